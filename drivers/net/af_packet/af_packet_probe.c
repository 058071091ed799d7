/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * af_packet_probe.c - net_af_packet's devargs, probe and driver
 * (af_packet_private.h says which file does what): ring sizes, tpacket=,
 * tov= and iface= read and checked, the interface found (Ethernet, its
 * MAC and MTU), every queue's sockets and rings made, the port
 * registered.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/ethtool.h>
#include <linux/if_arp.h>
#include <linux/if_packet.h>
#include <linux/sockios.h>

#include "af_packet_private.h"
#include "lr_errno.h"
#include "lr_eth_iface.h"
#include "lr_ethdev_driver.h"
#include "lr_log.h"
#include "lr_mbuf.h"

static const char *const afp_keys[] = {
    "iface", "qpairs",	"blocksz", "framesz", "framecnt",
    "vnet",  "tpacket", "tov",	   NULL,
};

/* Read and check the ring sizes; 0 or -EINVAL after logging. */
static int
ring_args(struct afp_port *pp, const struct lr_devargs *args)
{
	long page = sysconf(_SC_PAGESIZE);
	/* tpacket=v2 (the default) with vnet=1 takes super-frames whole. */
	int gso2 = pp->tpv2 && pp->vnet;
	uint64_t bs, fs, fc;
	int ret;

	ret = lr_devargs_get_uint(
	    args, "blocksz", gso2 ? AFP_V2_GSO_BLOCKSZ : AFP_DEFAULT_BLOCKSZ,
	    (uint64_t)page, AFP_MAX_BLOCKSZ, &bs);
	if (ret < 0)
		return ret;
	if (!lr_is_power_of_2(bs)) {
		LR_LOG(ERR, PMD,
		       "%s: blocksz: bad value '%s' (expected a power of two "
		       "from %ld to %u)\n",
		       pp->name, lr_devargs_get(args, "blocksz"), page,
		       AFP_MAX_BLOCKSZ);
		return -EINVAL;
	}
	ret = lr_devargs_get_uint(
	    args, "framesz", gso2 ? AFP_V2_GSO_FRAMESZ : AFP_DEFAULT_FRAMESZ,
	    AFP_RX_MAC_OFF + ETH_ZLEN, bs, &fs);
	if (ret < 0)
		return ret;
	if (fs % TPACKET_ALIGNMENT) {
		LR_LOG(
		    ERR, PMD,
		    "%s: framesz: bad value '%s' (expected a multiple of %u)\n",
		    pp->name, lr_devargs_get(args, "framesz"),
		    TPACKET_ALIGNMENT);
		return -EINVAL;
	}
	if (gso2 && fs < AFP_V2_GSO_FRAMESZ) {
		LR_LOG(ERR, PMD,
		       "%s: framesz: bad value '%llu' (tpacket=v2 with vnet=1 "
		       "takes 64 KiB super-frames into one frame: framesz >= "
		       "%u (the default when framesz is not given); or vnet=0, "
		       "or tpacket=v3)\n",
		       pp->name, (unsigned long long)fs, AFP_V2_GSO_FRAMESZ);
		return -EINVAL;
	}
	/* Not given: the default count, rounded up to whole blocks. */
	uint64_t per_block = bs / fs;
	uint64_t def_fc = gso2 ? AFP_V2_GSO_FRAMECNT : AFP_DEFAULT_FRAMECNT;

	def_fc = (def_fc + per_block - 1) / per_block * per_block;
	ret = lr_devargs_get_uint(args, "framecnt", def_fc, 1, UINT32_MAX, &fc);
	if (ret < 0)
		return ret;
	if (fc % (bs / fs) != 0) {
		LR_LOG(ERR, PMD,
		       "%s: framecnt: bad value '%s' (expected a multiple of "
		       "blocksz/framesz = %llu/%llu = %llu frames per block)\n",
		       pp->name, lr_devargs_get(args, "framecnt"),
		       (unsigned long long)bs, (unsigned long long)fs,
		       (unsigned long long)(bs / fs));
		return -EINVAL;
	}
	if (fc / (bs / fs) * bs > AFP_MAX_RING) {
		LR_LOG(ERR, PMD,
		       "%s: framecnt: bad value '%s' (a ring of %llu bytes; at "
		       "most %llu)\n",
		       pp->name, lr_devargs_get(args, "framecnt"),
		       (unsigned long long)(fc / (bs / fs) * bs),
		       (unsigned long long)AFP_MAX_RING);
		return -EINVAL;
	}
	pp->blocksz = (uint32_t)bs;
	pp->framesz = (uint32_t)fs;
	pp->framecnt = (uint32_t)fc;
	return 0;
}

/* Read and check tpacket= (v2 when absent); 0 or -EINVAL after logging. */
static int
tpacket_arg(struct afp_port *pp, const struct lr_devargs *args)
{
	const char *v = lr_devargs_get(args, "tpacket");

	if (v != NULL && strcmp(v, "v2") != 0 && strcmp(v, "v3") != 0) {
		LR_LOG(ERR, PMD,
		       "%s: tpacket: bad value '%s' (expected v2 or v3)\n",
		       pp->name, v);
		return -EINVAL;
	}
	pp->tpv2 = v == NULL || strcmp(v, "v2") == 0;
	return 0;
}

/* Read and check tov= and the v2 frame size (after the ring sizes, vnet=
 * and tpacket=); 0 or -EINVAL after logging. */
static int
latency_args(struct afp_port *pp, const struct lr_devargs *args)
{
	uint64_t tov;
	int ret;

	ret = lr_devargs_get_uint(args, "tov", AFP_BLOCK_TOV_MS, 1, 1000, &tov);
	if (ret < 0)
		return ret;
	if (pp->tpv2 && lr_devargs_get(args, "tov") != NULL) {
		LR_LOG(ERR, PMD,
		       "%s: tov: bad value '%s' (a block timeout of "
		       "tpacket=v3; tpacket=v2, the default, has no blocks to "
		       "time out)\n",
		       pp->name, lr_devargs_get(args, "tov"));
		return -EINVAL;
	}
	pp->tov_ms = (uint32_t)tov;
	return 0;
}

/* Read and check the iface devarg into *iface; 0 or -EINVAL after
 * logging. */
static int
iface_arg(struct lr_eth_dev *dev, const struct lr_devargs *args,
	  const char **iface)
{
	const char *v = lr_devargs_get(args, "iface");

	if (v == NULL || v[0] == '\0') {
		LR_LOG(ERR, PMD,
		       "%s: iface: missing (usage: "
		       "%s,iface=IF[,qpairs=N][,blocksz=B][,framesz=F][,"
		       "framecnt=C][,vnet=0|1][,tpacket=v2|v3][,tov=MS])\n",
		       dev->data->name, dev->data->name);
		return -EINVAL;
	}
	if (lr_devargs_count(args, "iface") > 1) {
		LR_LOG(ERR, PMD, "%s: iface: given more than once\n",
		       dev->data->name);
		return -EINVAL;
	}
	if (strlen(v) >= IFNAMSIZ) {
		LR_LOG(ERR, PMD,
		       "%s: iface: bad value '%s' (interface names have at "
		       "most %d characters)\n",
		       dev->data->name, v, IFNAMSIZ - 1);
		return -EINVAL;
	}
	*iface = v;
	return 0;
}

/* Allocate a zeroed, cache-line aligned port on iface with every queue
 * closed and linked to it; NULL after logging. */
static struct afp_port *
afp_port_alloc(struct lr_eth_dev *dev, const char *iface)
{
	struct afp_port *pp;

	/* The queues are cache-line aligned: so must the port be. */
	pp = aligned_alloc(LR_CACHE_LINE_SIZE,
			   LR_ALIGN_CEIL(sizeof(*pp), LR_CACHE_LINE_SIZE));
	if (pp != NULL)
		memset(pp, 0, sizeof(*pp));
	if (pp == NULL) {
		LR_LOG(ERR, PMD, "%s: no memory for the port\n",
		       dev->data->name);
		return NULL;
	}
	pp->name = dev->data->name;
	pp->ctl_fd = -1;
	snprintf(pp->iface, sizeof(pp->iface), "%s", iface);
	for (uint16_t q = 0; q < LR_MAX_QUEUES_PER_PORT; q++) {
		pp->rxq[q].fd = -1;
		pp->rxq[q].port = pp;
		pp->rxq[q].qid = q;
		pp->rxq[q].sibling = &pp->txq[q];
		pp->txq[q].fd = -1;
		pp->txq[q].port = pp;
		pp->txq[q].qid = q;
	}
	return pp;
}

/* Find the interface in this namespace and open the control socket;
 * 0 or -errno after logging. */
static int
iface_find(struct afp_port *pp)
{
	pp->ifindex = (int)if_nametoindex(pp->iface);
	if (pp->ifindex == 0) {
		LR_LOG(ERR, PMD,
		       "%s: iface: no interface '%s' in this network namespace "
		       "(%s)\n",
		       pp->name, pp->iface, strerror(errno));
		return -ENODEV;
	}
	pp->ctl_fd = lr_af_packet_packet_socket_(pp, "control", 0);
	if (pp->ctl_fd < 0)
		return pp->ctl_fd;
	return 0;
}

/* Check the interface is Ethernet and take its MAC address as the port's;
 * 0 or -errno after logging. */
static int
iface_mac_get(struct lr_eth_dev *dev, struct afp_port *pp)
{
	struct ifreq ifr;
	int ret;

	ret = lr_af_packet_iface_ioctl_(pp, SIOCGIFHWADDR, &ifr);
	if (ret < 0) {
		LR_LOG(ERR, PMD, "%s: iface: address of '%s': %s\n", pp->name,
		       pp->iface, strerror(-ret));
		return ret;
	}
	if (ifr.ifr_hwaddr.sa_family != ARPHRD_ETHER) {
		LR_LOG(ERR, PMD,
		       "%s: iface: '%s' is not an Ethernet interface (ARPHRD "
		       "type %u)\n",
		       pp->name, pp->iface, ifr.ifr_hwaddr.sa_family);
		return -EINVAL;
	}
	memcpy(dev->data->mac_addr.addr_bytes, ifr.ifr_hwaddr.sa_data,
	       LR_ETHER_ADDR_LEN);
	return 0;
}

/* Take the interface's MTU (when it can be read) as the port's, after
 * checking a frame of that size fits framesz; 0 or -EINVAL after
 * logging. */
static int
iface_mtu_get(struct lr_eth_dev *dev, struct afp_port *pp)
{
	struct ifreq ifr;
	uint32_t need;

	if (lr_af_packet_iface_ioctl_(pp, SIOCGIFMTU, &ifr) != 0)
		return 0;
	need =
	    (uint32_t)ifr.ifr_mtu + ETH_HLEN + AFP_VLAN_HLEN + AFP_RX_MAC_OFF;
	if (pp->framesz < need) {
		LR_LOG(ERR, PMD,
		       "%s: framesz: bad value '%u' (frames of '%s' with "
		       "mtu %d need framesz >= %u)\n",
		       pp->name, pp->framesz, pp->iface, ifr.ifr_mtu,
		       LR_ALIGN_CEIL(need, (uint32_t)TPACKET_ALIGNMENT));
		return -EINVAL;
	}
	dev->data->mtu = (uint16_t)ifr.ifr_mtu;
	return 0;
}

/* Attach pp to dev: ops and burst functions; log the port. */
static void
afp_port_register(struct lr_eth_dev *dev, struct afp_port *pp)
{
	dev->data->dev_private = pp;
	dev->dev_ops = &lr_af_packet_ops_;
	dev->rx_pkt_burst =
	    pp->tpv2 ? lr_af_packet_rx_burst_v2_ : lr_af_packet_rx_burst_;
	dev->tx_pkt_burst = lr_af_packet_tx_burst_;
	LR_LOG(INFO, PMD,
	       "%s: on '%s' (ifindex %d), %u queue pairs, rings of %u x "
	       "%u-byte frames in %u-byte blocks, offloads %s\n",
	       pp->name, pp->iface, pp->ifindex, pp->qpairs, pp->framecnt,
	       pp->framesz, pp->blocksz, pp->vnet ? "on (vnet)" : "off");
}

/* Create a port from devargs: parse them, check the interface, open every
 * queue pair, then register; 0 or -errno after logging. */
static int
afp_probe(struct lr_eth_dev *dev, const struct lr_devargs *args)
{
	struct afp_port *pp;
	const char *iface;
	uint64_t qpairs;
	int ret;

	ret = iface_arg(dev, args, &iface);
	if (ret < 0)
		return ret;
	pp = afp_port_alloc(dev, iface);
	if (pp == NULL)
		return -ENOMEM;
	ret = lr_devargs_get_uint(args, "qpairs", 1, 1, LR_MAX_QUEUES_PER_PORT,
				  &qpairs);
	if (ret < 0)
		goto free_port;
	pp->qpairs = (unsigned)qpairs;
	ret = lr_devargs_get_uint(args, "vnet", 1, 0, 1, &qpairs);
	if (ret < 0)
		goto free_port;
	pp->vnet = (int)qpairs;
	ret = tpacket_arg(pp, args);
	if (ret < 0)
		goto free_port;
	ret = ring_args(pp, args);
	if (ret < 0)
		goto free_port;
	ret = latency_args(pp, args);
	if (ret < 0)
		goto free_port;

	ret = iface_find(pp);
	if (ret < 0)
		goto free_port;
	ret = iface_mac_get(dev, pp);
	if (ret < 0)
		goto free_port;
	ret = iface_mtu_get(dev, pp);
	if (ret < 0)
		goto free_port;
	for (uint16_t q = 0; q < pp->qpairs; q++) {
		ret = lr_af_packet_rxq_open_(pp, q);
		if (ret < 0)
			goto free_port;
		ret = lr_af_packet_txq_open_(pp, q);
		if (ret < 0)
			goto free_port;
	}
	afp_port_register(dev, pp);
	return 0;

free_port:
	lr_af_packet_port_free_(pp);
	return ret;
}

static struct lr_eth_driver afp_driver = {
    .keys = afp_keys,
    .usage = "iface=<if> qpairs=<1..16> blocksz=<bytes> framesz=<bytes> "
	     "framecnt=<n> vnet=<0|1> tpacket=<v2|v3> tov=<ms>",
    .probe = afp_probe,
};

LR_PMD_REGISTER(net_af_packet, afp_driver);
