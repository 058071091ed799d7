/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_tap - ports on Linux TAP interfaces; design, cost and devargs in
 * lr_eth_tap.h. Receive: one readv() per frame into a header and a chain
 * of mbufs held ready; transmit: one writev() per frame.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <linux/if_arp.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/if_tun.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <linux/virtio_net.h>

#include "lr_errno.h"
#include "lr_eth_tap.h"
#include "lr_ethdev_driver.h"
#include "lr_log.h"
#include "lr_mbuf.h"
#include "lr_net.h"

#define TAP_VNET_HLEN ((uint32_t)sizeof(struct lr_net_vnet_hdr))
_Static_assert(sizeof(struct lr_net_vnet_hdr) == sizeof(struct virtio_net_hdr),
	       "lr_net_vnet_hdr is the kernel's virtio_net_hdr");
/* The longest frame the kernel hands over: a 64 KiB super-frame (the
 * tap's default GSO limit) with its Ethernet header and a VLAN tag. */
#define TAP_RX_MAX (65536u + ETH_HLEN + 4u)
/* Most mbufs in a receive chain (64 KiB of 2 KiB buffers take 33). */
#define TAP_RX_SEGS_MAX 64
/* Most segments of a transmitted chain (one iovec each). */
#define TAP_TX_SEGS_MAX 128
/* Most frames one transmitted super-frame is cut into here. */
#define TAP_TSO_SEGS_MAX 128
#define TAP_VLAN_HLEN	 4
/* What the port takes from the kernel (TUNSETOFFLOAD). */
#define TAP_OFFLOADS (TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN)

struct tap_port;

struct tap_rxq {
	/* Hot. */
	int fd;
	uint16_t port_id;
	uint16_t nb_segs;  /* mbufs behind iov[1..] */
	uint16_t nb_taken; /* segs[0..nb_taken-1] handed out: refill them */
	uint32_t cap;	   /* frame bytes the chain holds */
	struct lr_mempool *mp;
	struct lr_net_vnet_hdr vh;
	struct lr_mbuf *segs[TAP_RX_SEGS_MAX];
	struct iovec iov[1 + TAP_RX_SEGS_MAX];
	/* Counters (lr_counter_add() by the poller); c.errors = truncated +
	 * runts + gso_unsupported. */
	struct lr_eth_queue_counters c;
	uint64_t truncated;
	uint64_t runts;
	uint64_t gso_unsupported;
	uint64_t read_errors;
	/* Control. */
	struct tap_port *port;
	uint16_t qid;
} __lr_cache_aligned;

struct tap_txq {
	/* Hot. */
	int fd;
	uint32_t max_len; /* longest frame without GSO: MTU + 18 */
	struct tap_port *port;
	/* Counters; c.errors = write_errors + offload_errors + too long. */
	struct lr_eth_queue_counters c;
	uint64_t write_errors;
	uint64_t offload_errors;
	uint64_t tso_sw;
	int last_err; /* errno of the last write error logged */
	uint16_t qid;
} __lr_cache_aligned;

struct tap_port {
	struct tap_rxq rxq[LR_MAX_QUEUES_PER_PORT];
	struct tap_txq txq[LR_MAX_QUEUES_PER_PORT];
	int fds[LR_MAX_QUEUES_PER_PORT]; /* one tun descriptor per pair */
	uint8_t attached[LR_MAX_QUEUES_PER_PORT];
	const char *name;
	char iface[IFNAMSIZ]; /* as created; lr_eth_tap_ifname() for now */
	unsigned qpairs;
	int persist;	     /* persist=1: the interface outlives the port */
	int created;	     /* the port created the interface */
	uint64_t drops_base; /* the interface's tx_dropped at probe */
	uint64_t drops;	     /* its tx_dropped since, as last read */
};

static const char *const tap_keys[] = {
    "iface", "mac", "persist", "qpairs", NULL,
};
static const char *const tap_flag_keys[] = {"persist", NULL};

/* ---------------------------------------------------------------------
 * Receive
 */

/* Give the receive chain back its taken mbufs; 0 or -1 (pool empty). */
static __lr_always_inline int
rx_refill(struct tap_rxq *rxq)
{
	uint16_t k = rxq->nb_taken;

	if (lr_likely(k == 0))
		return 0;
	if (lr_unlikely(lr_pktmbuf_alloc_bulk(rxq->mp, rxq->segs, k) != 0))
		return -1;
	for (uint16_t i = 0; i < k; i++) {
		rxq->iov[1 + i].iov_base =
		    lr_pktmbuf_mtod(rxq->segs[i], void *);
		rxq->iov[1 + i].iov_len = lr_pktmbuf_tailroom(rxq->segs[i]);
	}
	rxq->nb_taken = 0;
	return 0;
}

/* The chain's first mbufs as a packet of len bytes; they leave the chain
 * (taken). */
static __lr_always_inline struct lr_mbuf *
rx_take(struct tap_rxq *rxq, uint32_t len)
{
	struct lr_mbuf *m = rxq->segs[0], *prev = m;
	uint32_t k = (uint32_t)rxq->iov[1].iov_len;
	uint16_t n = 1;

	m->pkt_len = len;
	m->data_len = (uint16_t)LR_MIN(len, k);
	for (uint32_t left = len - m->data_len; left > 0; n++) {
		struct lr_mbuf *s = rxq->segs[n];

		s->data_len =
		    (uint16_t)LR_MIN(left, (uint32_t)rxq->iov[1 + n].iov_len);
		s->pkt_len = s->data_len;
		prev->next = s;
		prev = s;
		left -= s->data_len;
	}
	m->nb_segs = n;
	m->port = rxq->port_id;
	rxq->nb_taken = n;
	return m;
}

/* A frame that is not a plain one: counted and dropped (-1), or its
 * offloads taken into m (0). */
static __lr_cold int
rx_unusual(struct tap_rxq *rxq, struct lr_mbuf *m)
{
	if (lr_net_vnet_rx(m, &rxq->vh, 0) == 0)
		return 0;
	lr_counter_add(&rxq->gso_unsupported, 1);
	lr_counter_add(&rxq->c.errors, 1);
	return -1;
}

static __lr_cold void
rx_read_failed(struct tap_rxq *rxq, int err)
{
	if (err == EAGAIN || err == EINTR)
		return;
	lr_counter_add(&rxq->read_errors, 1);
	if (rxq->read_errors == 1)
		LR_LOG(ERR, PMD, "%s: rx queue %u: read: %s\n", rxq->port->name,
		       rxq->qid, strerror(err));
}

/* Long because the loop reads, checks and hands out a frame per pass. */
static uint16_t
tap_rx_burst(void *q, struct lr_mbuf **pkts, uint16_t nb_pkts)
{
	struct tap_rxq *rxq = q;
	uint64_t bytes = 0;
	uint16_t n = 0;

	while (n < nb_pkts) {
		ssize_t r;
		uint32_t len;
		struct lr_mbuf *m;

		if (lr_unlikely(rx_refill(rxq) != 0)) {
			lr_counter_add(&rxq->c.nombuf, 1);
			break;
		}
		r = readv(rxq->fd, rxq->iov, 1 + rxq->nb_segs);
		if (r < 0) {
			rx_read_failed(rxq, errno);
			break;
		}
		/* The kernel returns a frame's whole length even when the
		 * chain held only part of it. */
		len = (uint32_t)r - LR_MIN((uint32_t)r, TAP_VNET_HLEN);
		if (lr_unlikely(len < ETH_HLEN || len > rxq->cap)) {
			lr_counter_add(
			    len < ETH_HLEN ? &rxq->runts : &rxq->truncated, 1);
			lr_counter_add(&rxq->c.errors, 1);
			continue; /* the chain stays for the next frame */
		}
		m = rx_take(rxq, len);
		if (lr_unlikely((rxq->vh.flags | rxq->vh.gso_type) != 0) &&
		    rx_unusual(rxq, m) != 0) {
			lr_pktmbuf_free(m);
			continue;
		}
		bytes += len;
		pkts[n++] = m;
	}
	lr_counter_add(&rxq->c.packets, n);
	lr_counter_add(&rxq->c.bytes, bytes);
	return n;
}

/* The chain's mbufs back to the pool (stop, release). */
static void
rxq_chain_free(struct tap_rxq *rxq)
{
	for (uint16_t i = rxq->nb_taken; i < rxq->nb_segs; i++)
		lr_pktmbuf_free(rxq->segs[i]);
	rxq->nb_taken = rxq->nb_segs;
}

/* ---------------------------------------------------------------------
 * Transmit
 */

static __lr_cold void
tx_write_failed(struct tap_txq *txq, int err)
{
	lr_counter_add(&txq->write_errors, 1);
	lr_counter_add(&txq->c.errors, 1);
	if (err != txq->last_err) {
		txq->last_err = err;
		LR_LOG(ERR, PMD, "%s: tx queue %u: write: %s\n",
		       txq->port->name, txq->qid, strerror(err));
	}
}

/* Write frame m with header vh: 1 if written or dropped, 0 if the kernel
 * has no room now (EAGAIN: try again later). */
static __lr_always_inline int
tx_write(struct tap_txq *txq, const struct lr_mbuf *m,
	 const struct lr_net_vnet_hdr *vh)
{
	struct iovec iov[1 + TAP_TX_SEGS_MAX];
	unsigned n = 1;

	iov[0].iov_base = (void *)(uintptr_t)vh;
	iov[0].iov_len = TAP_VNET_HLEN;
	for (const struct lr_mbuf *s = m; s != NULL; s = s->next) {
		if (lr_unlikely(n == 1 + TAP_TX_SEGS_MAX)) {
			lr_counter_add(&txq->offload_errors, 1);
			lr_counter_add(&txq->c.errors, 1);
			return 1;
		}
		iov[n].iov_base = lr_pktmbuf_mtod(s, void *);
		iov[n].iov_len = s->data_len;
		n++;
	}
	if (lr_unlikely(writev(txq->fd, iov, (int)n) < 0)) {
		if (errno == EAGAIN || errno == ENOBUFS)
			return 0;
		tx_write_failed(txq, errno);
		return 1;
	}
	lr_counter_add(&txq->c.packets, 1);
	lr_counter_add(&txq->c.bytes, m->pkt_len);
	return 1;
}

/* Cut super-frame m into frames here and write them all (a frame the
 * kernel has no room for is counted as a write error). */
static void
tx_tso_sw(struct tap_txq *txq, struct lr_mbuf *m)
{
	static const struct lr_net_vnet_hdr zero;
	struct lr_mbuf *segs[TAP_TSO_SEGS_MAX];
	int n = lr_net_tso_segment(m, m->pool, segs, TAP_TSO_SEGS_MAX);

	if (n < 0) {
		lr_counter_add(&txq->offload_errors, 1);
		lr_counter_add(&txq->c.errors, 1);
		return;
	}
	for (int k = 0; k < n; k++) {
		if (!tx_write(txq, segs[k], &zero))
			tx_write_failed(txq, EAGAIN);
		lr_pktmbuf_free(segs[k]);
	}
	lr_counter_add(&txq->tso_sw, 1);
}

/* A frame with offload flags (lr_net_vnet_tx()): 1 if written or
 * dropped, 0 if the kernel has no room now. */
static __lr_cold int
tx_offload(struct tap_txq *txq, struct lr_mbuf *m)
{
	struct lr_net_vnet_hdr vh;
	int ret = lr_net_vnet_tx(m, &vh);

	if (ret == LR_NET_VNET_TX_SEGMENT) {
		tx_tso_sw(txq, m);
		return 1;
	}
	if (ret != 0 || (vh.gso_type == LR_NET_VNET_GSO_NONE &&
			 m->pkt_len > txq->max_len)) {
		lr_counter_add(&txq->offload_errors, 1);
		lr_counter_add(&txq->c.errors, 1);
		return 1;
	}
	return tx_write(txq, m, &vh);
}

static uint16_t
tap_tx_burst(void *q, struct lr_mbuf **pkts, uint16_t nb_pkts)
{
	static const struct lr_net_vnet_hdr zero;
	struct tap_txq *txq = q;
	uint16_t i;

	for (i = 0; i < nb_pkts; i++) {
		struct lr_mbuf *m = pkts[i];
		int done;

		if (lr_unlikely(m->ol_flags & LR_MBUF_F_OFFLOAD_MASK)) {
			done = tx_offload(txq, m);
		} else if (lr_unlikely(m->pkt_len > txq->max_len)) {
			lr_counter_add(&txq->c.errors, 1);
			done = 1;
		} else {
			done = tx_write(txq, m, &zero);
		}
		if (!done)
			break;
	}
	lr_pktmbuf_free_bulk(pkts, i);
	return i;
}

/* ---------------------------------------------------------------------
 * The interface (control path)
 */

/* A socket(domain, type, proto) in the network namespace the interface
 * is in now (it may have been moved since the port made it): the thread
 * enters that namespace for the socket() call only. fd or -errno. */
static int
ns_socket(const struct tap_port *pt, int domain, int type, int proto)
{
	int nsfd, self, fd, err = 0;

	nsfd = ioctl(pt->fds[0], TUNGETDEVNETNS);
	if (nsfd < 0) { /* older kernel: the interface is where we are */
		fd = socket(domain, type | SOCK_CLOEXEC, proto);
		return fd < 0 ? -errno : fd;
	}
	self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self < 0) {
		err = -errno;
		close(nsfd);
		return err;
	}
	if (setns(nsfd, CLONE_NEWNET) < 0) {
		err = -errno;
		goto close_fds;
	}
	fd = socket(domain, type | SOCK_CLOEXEC, proto);
	if (fd < 0)
		err = -errno;
	if (setns(self, CLONE_NEWNET) < 0) {
		err = -errno;
		LR_LOG(ERR, PMD,
		       "%s: cannot return to this thread's network namespace: "
		       "%s\n",
		       pt->name, strerror(-err));
		if (fd >= 0)
			close(fd);
	} else if (err == 0) {
		err = fd;
	}
close_fds:
	close(self);
	close(nsfd);
	return err;
}

/* The interface's name now (TUNGETIFF on queue 0, which stays attached);
 * 0 or -errno. */
static int
iface_name_now(const struct tap_port *pt, char name[IFNAMSIZ])
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	if (ioctl(pt->fds[0], TUNGETIFF, &ifr) < 0)
		return -errno;
	memcpy(name, ifr.ifr_name, IFNAMSIZ);
	name[IFNAMSIZ - 1] = '\0';
	return 0;
}

/* Interface ioctl req (SIOCGIFFLAGS, SIOCSIFMTU, ...) wherever the
 * interface is; 0 or -errno. */
static int
iface_ioctl(const struct tap_port *pt, unsigned long req, struct ifreq *ifr)
{
	int fd, ret;

	ret = iface_name_now(pt, ifr->ifr_name);
	if (ret < 0)
		return ret;
	fd = ns_socket(pt, AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return fd;
	ret = ioctl(fd, req, ifr) < 0 ? -errno : 0;
	close(fd);
	return ret;
}

/* The interface's tx_dropped: frames the kernel could not queue to the
 * port (a queue full), from rtnetlink in the interface's namespace, into
 * *v; 0 or -errno. */
static int
kernel_drops(const struct tap_port *pt, uint64_t *v)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
	} req;
	char buf[16384];
	struct ifreq ifr;
	struct rtattr *a;
	int fd, ret, len;
	ssize_t n;

	memset(&ifr, 0, sizeof(ifr));
	ret = iface_ioctl(pt, SIOCGIFINDEX, &ifr);
	if (ret < 0)
		return ret;
	fd = ns_socket(pt, AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
	if (fd < 0)
		return fd;
	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = sizeof(req);
	req.nh.nlmsg_type = RTM_GETLINK;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.ifi.ifi_family = AF_UNSPEC;
	req.ifi.ifi_index = ifr.ifr_ifindex;
	ret = -EIO;
	if (send(fd, &req, sizeof(req), 0) != (ssize_t)sizeof(req) ||
	    (n = recv(fd, buf, sizeof(buf), 0)) <= 0)
		goto close_fd;
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;

	if (!NLMSG_OK(nh, (unsigned)n) || nh->nlmsg_type != RTM_NEWLINK)
		goto close_fd;
	len = (int)IFLA_PAYLOAD(nh);
	for (a = IFLA_RTA((struct ifinfomsg *)NLMSG_DATA(nh)); RTA_OK(a, len);
	     a = RTA_NEXT(a, len)) {
		struct rtnl_link_stats64 st;

		if (a->rta_type != IFLA_STATS64 || RTA_PAYLOAD(a) < sizeof(st))
			continue;
		memcpy(&st, RTA_DATA(a), sizeof(st));
		*v = st.tx_dropped;
		ret = 0;
		break;
	}
close_fd:
	close(fd);
	return ret;
}

/* Set (on) or clear IFF_UP; 0 or -errno. */
static int
iface_up(const struct tap_port *pt, int on)
{
	struct ifreq ifr;
	int ret;

	memset(&ifr, 0, sizeof(ifr));
	ret = iface_ioctl(pt, SIOCGIFFLAGS, &ifr);
	if (ret < 0 || !!(ifr.ifr_flags & IFF_UP) == !!on)
		return ret;
	ifr.ifr_flags =
	    (short)(on ? ifr.ifr_flags | IFF_UP : ifr.ifr_flags & ~IFF_UP);
	return iface_ioctl(pt, SIOCSIFFLAGS, &ifr);
}

/* Attach (on) or detach queue q's descriptor; 0 or -errno. */
static int
queue_attach(struct tap_port *pt, unsigned q, int on)
{
	struct ifreq ifr;

	if (pt->attached[q] == on)
		return 0;
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = on ? IFF_ATTACH_QUEUE : IFF_DETACH_QUEUE;
	if (ioctl(pt->fds[q], TUNSETQUEUE, &ifr) < 0) {
		int err = errno;

		LR_LOG(ERR, PMD, "%s: queue %u: %s: %s\n", pt->name, q,
		       on ? "attach" : "detach", strerror(err));
		return -err;
	}
	pt->attached[q] = (uint8_t)on;
	return 0;
}

/* Carrier on or off (TUNSETCARRIER; kernels before 5.0 lack it: the
 * carrier then stays on). */
static void
carrier_set(const struct tap_port *pt, int on)
{
	int v = on;

	if (ioctl(pt->fds[0], TUNSETCARRIER, &v) < 0 && errno != EINVAL &&
	    errno != ENOTTY)
		LR_LOG(WARNING, PMD, "%s: carrier %s: %s\n", pt->name,
		       on ? "on" : "off", strerror(errno));
}

/* Read and drop what the kernel queued on fd while the port was
 * stopped. */
static void
queue_drain(int fd)
{
	uint8_t sink[256]; /* a shorter read still takes the whole frame */

	while (read(fd, sink, sizeof(sink)) > 0)
		;
}

/* ---------------------------------------------------------------------
 * Control path
 */

static int
tap_infos_get(struct lr_eth_dev *dev, struct lr_eth_dev_info *info)
{
	struct tap_port *pt = dev->data->dev_private;

	info->max_rx_queues = (uint16_t)pt->qpairs;
	info->max_tx_queues = (uint16_t)pt->qpairs;
	info->min_mtu = 68;
	info->max_mtu = (uint16_t)(65535u - ETH_HLEN - TAP_VLAN_HLEN);
	info->rx_offload_capa =
	    LR_ETH_RX_OFFLOAD_CKSUM_PARTIAL | LR_ETH_RX_OFFLOAD_TCP_LRO;
	info->tx_offload_capa = LR_ETH_TX_OFFLOAD_ALL;
	return 0;
}

static int
tap_rx_queue_setup(struct lr_eth_dev *dev, uint16_t q, uint16_t nb_desc,
		   int socket_id, const struct lr_eth_rxconf *conf,
		   struct lr_mempool *mp)
{
	struct tap_port *pt = dev->data->dev_private;
	struct tap_rxq *rxq = &pt->rxq[q];
	uint32_t room = lr_pktmbuf_data_room_size(mp);

	room -= LR_MIN(room, (uint32_t)LR_PKTMBUF_HEADROOM);
	if (room < 64) {
		LR_LOG(ERR, PMD,
		       "%s: rx queue %u: pool '%s' has %u-byte buffers after "
		       "the headroom; at least 64 needed\n",
		       pt->name, q, mp->name, room);
		return -EINVAL;
	}
	rxq_chain_free(rxq);
	rxq->mp = mp;
	rxq->port_id = dev->data->port_id;
	rxq->nb_segs = (uint16_t)LR_MIN((TAP_RX_MAX + room - 1) / room,
					(uint32_t)TAP_RX_SEGS_MAX);
	rxq->nb_taken = rxq->nb_segs; /* filled by the first burst */
	rxq->cap = room * rxq->nb_segs;
	rxq->fd = pt->fds[q];
	rxq->iov[0].iov_base = &rxq->vh;
	rxq->iov[0].iov_len = TAP_VNET_HLEN;
	dev->data->rx_queues[q] = rxq;
	return 0;
}

static int
tap_tx_queue_setup(struct lr_eth_dev *dev, uint16_t q, uint16_t nb_desc,
		   int socket_id, const struct lr_eth_txconf *conf)
{
	struct tap_port *pt = dev->data->dev_private;

	pt->txq[q].fd = pt->fds[q];
	pt->txq[q].max_len = dev->data->mtu + ETH_HLEN + TAP_VLAN_HLEN;
	dev->data->tx_queues[q] = &pt->txq[q];
	return 0;
}

static int
tap_dev_stop(struct lr_eth_dev *dev)
{
	struct tap_port *pt = dev->data->dev_private;

	carrier_set(pt, 0);
	for (unsigned q = 0; q < pt->qpairs; q++)
		rxq_chain_free(&pt->rxq[q]);
	return 0;
}

static int
tap_dev_start(struct lr_eth_dev *dev)
{
	struct tap_port *pt = dev->data->dev_private;
	struct lr_eth_dev_data *d = dev->data;
	unsigned used = LR_MAX(LR_MAX(d->nb_rx_queues, d->nb_tx_queues), 1);
	int ret;

	/* Attach before detach: queue 0 stays attached throughout. */
	for (unsigned q = 0; q < pt->qpairs; q++) {
		ret = queue_attach(pt, q, q < used);
		if (ret < 0)
			return ret;
		if (q < used)
			queue_drain(pt->fds[q]);
	}
	ret = iface_up(pt, 1);
	if (ret < 0)
		LR_LOG(WARNING, PMD, "%s: cannot set '%s' up: %s\n", pt->name,
		       pt->iface, strerror(-ret));
	carrier_set(pt, 1);
	return 0;
}

static void
tap_port_free(struct tap_port *pt)
{
	for (unsigned q = 0; q < LR_MAX_QUEUES_PER_PORT; q++) {
		rxq_chain_free(&pt->rxq[q]);
		if (pt->fds[q] >= 0)
			close(pt->fds[q]);
	}
	free(pt);
}

static int
tap_dev_close(struct lr_eth_dev *dev)
{
	struct tap_port *pt = dev->data->dev_private;

	/* Closing the last descriptor removes an interface that is not
	 * persistent. */
	LR_LOG(INFO, PMD, "%s: closed; interface '%s' %s\n", pt->name,
	       pt->iface,
	       pt->persist   ? "kept (persist)"
	       : pt->created ? "removed"
			     : "left as it was found");
	tap_port_free(pt);
	dev->data->dev_private = NULL;
	return 0;
}

static int
tap_link_update(struct lr_eth_dev *dev, int wait)
{
	struct tap_port *pt = dev->data->dev_private;
	struct lr_eth_link link;
	struct ifreq ifr;
	int ret;

	memset(&ifr, 0, sizeof(ifr));
	ret = iface_ioctl(pt, SIOCGIFFLAGS, &ifr);
	if (ret < 0) {
		LR_LOG(ERR, PMD, "%s: link of '%s': %s\n", pt->name, pt->iface,
		       strerror(-ret));
		return ret;
	}
	memset(&link, 0, sizeof(link));
	link.link_status = (ifr.ifr_flags & IFF_UP) &&
			   (ifr.ifr_flags & IFF_RUNNING) && dev->data->started;
	link.link_duplex = 1;
	link.link_speed = 10000; /* nominal: a tap has no wire */
	dev->data->link = link;
	return 0;
}

static int
tap_mtu_set(struct lr_eth_dev *dev, uint16_t mtu)
{
	struct tap_port *pt = dev->data->dev_private;
	struct ifreq ifr;
	int ret;

	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_mtu = mtu;
	ret = iface_ioctl(pt, SIOCSIFMTU, &ifr);
	if (ret < 0) {
		LR_LOG(ERR, PMD, "%s: mtu %u on '%s': %s\n", pt->name, mtu,
		       pt->iface, strerror(-ret));
		return ret;
	}
	for (unsigned q = 0; q < pt->qpairs; q++)
		pt->txq[q].max_len = (uint32_t)mtu + ETH_HLEN + TAP_VLAN_HLEN;
	return 0;
}

/* Set the interface's MAC address (through the tun descriptor); 0 or
 * -errno after logging. */
static int
mac_set(const struct tap_port *pt, const struct lr_ether_addr *mac)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_hwaddr.sa_family = ARPHRD_ETHER;
	memcpy(ifr.ifr_hwaddr.sa_data, mac->addr_bytes, LR_ETHER_ADDR_LEN);
	if (ioctl(pt->fds[0], SIOCSIFHWADDR, &ifr) < 0) {
		int err = errno;

		LR_LOG(ERR, PMD,
		       "%s: mac: cannot set the address of '%s': %s\n",
		       pt->name, pt->iface, strerror(err));
		return -err;
	}
	return 0;
}

static int
tap_mac_set(struct lr_eth_dev *dev, const struct lr_ether_addr *mac)
{
	return mac_set(dev->data->dev_private, mac);
}

static int
tap_stats_get(struct lr_eth_dev *dev, struct lr_eth_stats *s)
{
	struct tap_port *pt = dev->data->dev_private;

	uint64_t v;

	for (unsigned q = 0; q < LR_MAX_QUEUES_PER_PORT; q++)
		lr_eth_stats_add_queue(s, q, &pt->rxq[q].c, &pt->txq[q].c);
	/* The kernel's drops (never less than last read: the counter of an
	 * interface only grows). */
	if (kernel_drops(pt, &v) == 0 && v >= pt->drops_base &&
	    v - pt->drops_base > pt->drops)
		pt->drops = v - pt->drops_base;
	s->imissed += pt->drops;
	return 0;
}

static const char *const tap_xstat_names[] = {
    "rx_truncated",   "rx_runts",	 "rx_gso_unsupported",
    "rx_read_errors", "tx_write_errors", "tx_offload_errors",
    "tx_tso_sw",
};

static int
tap_xstats_get(struct lr_eth_dev *dev, uint64_t *values, unsigned n)
{
	struct tap_port *pt = dev->data->dev_private;
	uint64_t v[LR_DIM(tap_xstat_names)] = {0};

	for (unsigned q = 0; q < LR_MAX_QUEUES_PER_PORT; q++) {
		const struct tap_rxq *rxq = &pt->rxq[q];
		const struct tap_txq *txq = &pt->txq[q];

		v[0] += lr_counter_read(&rxq->truncated);
		v[1] += lr_counter_read(&rxq->runts);
		v[2] += lr_counter_read(&rxq->gso_unsupported);
		v[3] += lr_counter_read(&rxq->read_errors);
		v[4] += lr_counter_read(&txq->write_errors);
		v[5] += lr_counter_read(&txq->offload_errors);
		v[6] += lr_counter_read(&txq->tso_sw);
	}
	return lr_eth_xstats_values_fill(values, n, v, LR_DIM(v));
}

static const struct lr_eth_dev_ops tap_ops = {
    .dev_start = tap_dev_start,
    .dev_stop = tap_dev_stop,
    .dev_close = tap_dev_close,
    .dev_infos_get = tap_infos_get,
    .rx_queue_setup = tap_rx_queue_setup,
    .tx_queue_setup = tap_tx_queue_setup,
    .link_update = tap_link_update,
    .mac_addr_set = tap_mac_set,
    .mtu_set = tap_mtu_set,
    .stats_get = tap_stats_get,
    .xstats_get = tap_xstats_get,
    .xstat_names = tap_xstat_names,
    .nb_xstat_names = LR_DIM(tap_xstat_names),
};

static struct lr_eth_driver tap_driver;

int
lr_eth_tap_ifname(uint16_t port_id, char *name, size_t len)
{
	struct lr_eth_dev *dev = lr_eth_dev_get(port_id);
	char now[IFNAMSIZ];
	int ret;

	if (dev == NULL)
		return -ENODEV;
	if (dev->driver != &tap_driver || dev->data->dev_private == NULL)
		return -EINVAL;
	ret = iface_name_now(dev->data->dev_private, now);
	if (ret < 0)
		return ret;
	if (strlen(now) >= len)
		return -ENOSPC;
	memcpy(name, now, strlen(now) + 1);
	return 0;
}

/* ---------------------------------------------------------------------
 * Probe
 */

/* Read and check iface=; 0 or -EINVAL after logging. */
static int
iface_arg(struct tap_port *pt, const struct lr_devargs *args)
{
	const char *v = lr_devargs_get(args, "iface");
	const char *why = NULL;

	if (lr_devargs_count(args, "iface") > 1) {
		LR_LOG(ERR, PMD, "%s: iface: given more than once\n", pt->name);
		return -EINVAL;
	}
	if (v == NULL)
		v = LR_ETH_TAP_DEFAULT_IFACE;
	if (v[0] == '\0')
		why = "empty";
	else if (strlen(v) >= IFNAMSIZ)
		why = "interface names have at most 15 characters";
	else if (strcmp(v, ".") == 0 || strcmp(v, "..") == 0 ||
		 strpbrk(v, "/: \t\n") != NULL)
		why = "no '/', ':' or spaces, not '.' or '..'";
	if (why != NULL) {
		LR_LOG(ERR, PMD, "%s: iface: bad value '%s' (%s)\n", pt->name,
		       v, why);
		return -EINVAL;
	}
	snprintf(pt->iface, sizeof(pt->iface), "%s", v);
	return 0;
}

/* Read and check mac= into *mac (*set = given); 0 or -EINVAL. */
static int
mac_arg(struct tap_port *pt, const struct lr_devargs *args,
	struct lr_ether_addr *mac, int *set)
{
	const char *v = lr_devargs_get(args, "mac");
	unsigned b[6];
	char end;

	*set = v != NULL;
	if (v == NULL)
		return 0;
	if (sscanf(v, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3],
		   &b[4], &b[5], &end) == 6) {
		for (int i = 0; i < 6; i++)
			mac->addr_bytes[i] = (uint8_t)b[i];
		if (lr_ether_addr_is_valid_assigned(mac) && strlen(v) == 17)
			return 0;
	}
	LR_LOG(ERR, PMD,
	       "%s: mac: bad value '%s' (expected xx:xx:xx:xx:xx:xx, a unicast "
	       "address)\n",
	       pt->name, v);
	return -EINVAL;
}

/* Open queue q's descriptor on the interface (creating it for q == 0 if
 * absent); 0 or -errno after logging. */
static int
queue_open(struct tap_port *pt, unsigned q)
{
	struct ifreq ifr;
	int fd, err;

	fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		LR_LOG(ERR, PMD, "%s: cannot open /dev/net/tun: %s\n", pt->name,
		       strerror(err));
		return -err;
	}
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR | IFF_MULTI_QUEUE;
	memcpy(ifr.ifr_name, pt->iface, strlen(pt->iface));
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		err = errno;
		LR_LOG(ERR, PMD, "%s: iface: cannot %s '%s' (queue %u): %s%s\n",
		       pt->name, q == 0 && pt->created ? "create" : "attach to",
		       pt->iface, q, strerror(err),
		       err == EINVAL  ? " (an interface that exists must be a "
					"TAP made with multi_queue)"
		       : err == EPERM ? " (needs CAP_NET_ADMIN)"
				      : "");
		close(fd);
		return -err;
	}
	/* The name the kernel chose for a template such as lrtap%d. */
	memcpy(pt->iface, ifr.ifr_name, IFNAMSIZ - 1);
	pt->iface[IFNAMSIZ - 1] = '\0';
	pt->fds[q] = fd;
	pt->attached[q] = 1;
	return 0;
}

/* The device settings, through queue 0: virtio-net header of 10 bytes,
 * offloads, persistence, MAC; 0 or -errno after logging. */
static int
device_setup(struct lr_eth_dev *dev, struct tap_port *pt,
	     const struct lr_ether_addr *mac, int have_mac)
{
	int hlen = (int)TAP_VNET_HLEN;
	struct ifreq ifr;
	int err;

	if (ioctl(pt->fds[0], TUNSETVNETHDRSZ, &hlen) < 0 ||
	    ioctl(pt->fds[0], TUNSETOFFLOAD, (unsigned long)TAP_OFFLOADS) < 0) {
		err = errno;
		LR_LOG(ERR, PMD, "%s: offloads of '%s': %s\n", pt->name,
		       pt->iface, strerror(err));
		return -err;
	}
	if (pt->persist && ioctl(pt->fds[0], TUNSETPERSIST, 1UL) < 0) {
		err = errno;
		LR_LOG(ERR, PMD, "%s: persist: '%s': %s\n", pt->name, pt->iface,
		       strerror(err));
		return -err;
	}
	if (have_mac) {
		err = mac_set(pt, mac);
		if (err < 0)
			return err;
	}
	memset(&ifr, 0, sizeof(ifr));
	if (ioctl(pt->fds[0], SIOCGIFHWADDR, &ifr) < 0) {
		err = errno;
		LR_LOG(ERR, PMD, "%s: address of '%s': %s\n", pt->name,
		       pt->iface, strerror(err));
		return -err;
	}
	memcpy(dev->data->mac_addr.addr_bytes, ifr.ifr_hwaddr.sa_data,
	       LR_ETHER_ADDR_LEN);
	memset(&ifr, 0, sizeof(ifr));
	if (iface_ioctl(pt, SIOCGIFMTU, &ifr) == 0)
		dev->data->mtu = (uint16_t)ifr.ifr_mtu;
	return 0;
}

/* Read the devargs into pt; 0 or -EINVAL after logging. */
static int
tap_args(struct tap_port *pt, const struct lr_devargs *args,
	 struct lr_ether_addr *mac, int *mac_set)
{
	uint64_t qpairs;
	int ret;

	ret = iface_arg(pt, args);
	if (ret == 0)
		ret = mac_arg(pt, args, mac, mac_set);
	if (ret == 0)
		ret = lr_devargs_get_bool(args, "persist", 0, &pt->persist);
	if (ret == 0)
		ret = lr_devargs_get_uint(args, "qpairs", 1, 1,
					  LR_MAX_QUEUES_PER_PORT, &qpairs);
	if (ret == 0)
		pt->qpairs = (unsigned)qpairs;
	return ret;
}

static int
tap_probe(struct lr_eth_dev *dev, const struct lr_devargs *args)
{
	struct lr_ether_addr mac;
	struct tap_port *pt;
	int ret, mac_set;

	pt = aligned_alloc(LR_CACHE_LINE_SIZE,
			   LR_ALIGN_CEIL(sizeof(*pt), LR_CACHE_LINE_SIZE));
	if (pt == NULL) {
		LR_LOG(ERR, PMD, "%s: no memory for the port\n",
		       dev->data->name);
		return -ENOMEM;
	}
	memset(pt, 0, sizeof(*pt));
	pt->name = dev->data->name;
	for (unsigned q = 0; q < LR_MAX_QUEUES_PER_PORT; q++) {
		pt->fds[q] = -1;
		pt->rxq[q].fd = -1;
		pt->rxq[q].port = pt;
		pt->rxq[q].qid = (uint16_t)q;
		pt->txq[q].fd = -1;
		pt->txq[q].port = pt;
		pt->txq[q].qid = (uint16_t)q;
	}
	ret = tap_args(pt, args, &mac, &mac_set);
	if (ret < 0)
		goto free_port;
	pt->created =
	    strchr(pt->iface, '%') != NULL || if_nametoindex(pt->iface) == 0;
	for (unsigned q = 0; q < pt->qpairs; q++) {
		ret = queue_open(pt, q);
		if (ret < 0)
			goto free_port;
	}
	ret = device_setup(dev, pt, &mac, mac_set);
	if (ret < 0)
		goto free_port;
	/* Stopped: no carrier, so the kernel sends nothing yet. */
	carrier_set(pt, 0);
	kernel_drops(pt, &pt->drops_base);
	dev->data->dev_private = pt;
	dev->dev_ops = &tap_ops;
	dev->rx_pkt_burst = tap_rx_burst;
	dev->tx_pkt_burst = tap_tx_burst;
	LR_LOG(INFO, PMD, "%s: on '%s' (%s%s), %u queue pairs\n", pt->name,
	       pt->iface, pt->created ? "created" : "existing",
	       pt->persist ? ", persist" : "", pt->qpairs);
	return 0;

free_port:
	/* A persistent interface made here is taken back. */
	if (pt->created && pt->persist && pt->fds[0] >= 0)
		ioctl(pt->fds[0], TUNSETPERSIST, 0UL);
	tap_port_free(pt);
	return ret;
}

static struct lr_eth_driver tap_driver = {
    .keys = tap_keys,
    .flag_keys = tap_flag_keys,
    .usage = "iface=<name> mac=<xx:xx:xx:xx:xx:xx> persist qpairs=<1..16>",
    .probe = tap_probe,
};

LR_PMD_REGISTER(net_tap, tap_driver);
