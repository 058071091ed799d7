/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * eth_iface.c - interface queries shared by the drivers over kernel
 * interfaces (see lr_eth_iface.h): ioctls on a throw-away datagram socket,
 * ethtool for the link speed, a packet-socket membership for promiscuous
 * mode.
 */
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/if_packet.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lr_eth_iface.h"

/* ioctl req on ifname with ifr (its name filled in here); 0 or -errno. */
static int
iface_ioctl(const char *ifname, unsigned long req, struct ifreq *ifr)
{
	int fd, ret = 0;

	if (ifname == NULL || ifname[0] == '\0' || strlen(ifname) >= IFNAMSIZ)
		return -ENODEV;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	memcpy(ifr->ifr_name, ifname, strlen(ifname) + 1);
	if (ioctl(fd, req, ifr) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

int
lr_eth_iface_flags(const char *ifname, unsigned *flags)
{
	struct ifreq ifr;
	int ret;

	memset(&ifr, 0, sizeof(ifr));
	ret = iface_ioctl(ifname, SIOCGIFFLAGS, &ifr);
	if (ret == 0)
		*flags = (unsigned)(unsigned short)ifr.ifr_flags;
	return ret;
}

int
lr_eth_iface_link(const char *ifname, struct lr_eth_link *link)
{
	struct ethtool_cmd ecmd;
	struct ifreq ifr;
	unsigned flags = 0;
	int ret;

	ret = lr_eth_iface_flags(ifname, &flags);
	if (ret < 0)
		return ret;
	memset(link, 0, sizeof(*link));
	link->link_status = (flags & IFF_UP) != 0 && (flags & IFF_RUNNING) != 0;
	link->link_duplex = 1;
	memset(&ifr, 0, sizeof(ifr));
	memset(&ecmd, 0, sizeof(ecmd));
	ecmd.cmd = ETHTOOL_GSET;
	ifr.ifr_data = (void *)&ecmd;
	if (iface_ioctl(ifname, SIOCETHTOOL, &ifr) == 0) {
		uint32_t speed = ethtool_cmd_speed(&ecmd);

		if (speed != (uint32_t)SPEED_UNKNOWN)
			link->link_speed = speed;
		link->link_duplex = ecmd.duplex == DUPLEX_FULL;
		link->link_autoneg = ecmd.autoneg == AUTONEG_ENABLE;
	}
	return 0;
}

int
lr_eth_iface_promisc_hold(int ifindex)
{
	struct packet_mreq mr;
	int fd, err;

	if (ifindex <= 0)
		return -ENODEV;
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	memset(&mr, 0, sizeof(mr));
	mr.mr_ifindex = ifindex;
	mr.mr_type = PACKET_MR_PROMISC;
	if (setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr,
		       sizeof(mr)) == 0)
		return fd;
	err = errno;
	close(fd);
	return -err;
}
