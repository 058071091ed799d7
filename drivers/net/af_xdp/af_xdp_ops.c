/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * af_xdp_ops.c - net_af_xdp's ethdev operations (af_xdp_private.h says
 * which file does what): start and stop, queue setup and release with the
 * ring sizes a UMEM can feed, close, link, promiscuous mode, stats and
 * xstats. The ops that may reach a shared UMEM run under
 * lr_af_xdp_shumem_lock_ (the *_op wrappers of the table).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <xdp/libxdp.h>
#include <xdp/xsk.h>

#include "af_xdp_private.h"
#include "lr_eth_iface.h"
#include "lr_ethdev_driver.h"
#include "lr_mbuf.h"

#ifndef XDP_PACKET_HEADROOM
#define XDP_PACKET_HEADROOM 256
#endif

static uint32_t ring_size(unsigned want, unsigned cap);

/* Which queues share queue q's UMEM (logged at start). */
static void
shumem_log(struct lr_eth_dev *dev, uint16_t qid)
{
	struct axp *p = dev->data->dev_private;
	const struct shumem *g = p->q[qid].sh;
	char list[512];
	size_t o = 0;

	list[0] = '\0';
	for (unsigned i = 0; i < SHARERS_MAX && o < sizeof(list); i++) {
		const struct axq *m = g->member[i];

		if (m == NULL)
			continue;
		o += (size_t)snprintf(list + o, sizeof(list) - o,
				      "%s%s queue %u (%s)", o ? ", " : "",
				      m->dev->data->name, m->qid,
				      m->open ? "open" : "not started");
	}
	LR_LOG(INFO, PMD,
	       "%s: queue %u: shared UMEM '%s' of %u frames, registered by "
	       "%s, %u socket(s) open; sharers: %s\n",
	       dev->data->name, qid, g->mp->name, g->nb_frames,
	       g->owner ? g->owner->dev->data->name : "(stopped)", g->nb_open,
	       list);
}

static uint16_t
nb_sockets(const struct lr_eth_dev *dev)
{
	return LR_MAX(dev->data->nb_rx_queues, dev->data->nb_tx_queues);
}

/* Name of libxdp's AF_XDP redirect program. */
#define XSK_DEF_PROG "xsk_def_prog"

static int afxdp_start(struct lr_eth_dev *dev);
static int afxdp_start_op(struct lr_eth_dev *dev);

/* Another started port of this process on ifindex? (An af_xdp port is
 * known by its ops table's start function, afxdp_start_op.) */
static int
iface_used_here(const struct lr_eth_dev *self, int ifindex)
{
	for (uint16_t i = lr_eth_find_next(0); i < LR_MAX_ETHPORTS;
	     i = lr_eth_find_next((uint16_t)(i + 1))) {
		const struct lr_eth_dev *d = lr_eth_dev_get(i);

		if (d != NULL && d != self && d->dev_ops != NULL &&
		    d->dev_ops->dev_start == afxdp_start_op &&
		    d->data->started &&
		    ((const struct axp *)d->data->dev_private)->ifindex ==
			ifindex)
			return 1;
	}
	return 0;
}

/* Before this port attaches libxdp's redirect program: is one attached
 * already that no port of this process put there? Then another process
 * uses the interface, or one was killed before it closed its port (the
 * kernel removes the sockets of a dead process, not its XDP program, and
 * a program libxdp found attached is never removed by a later close).
 * Say so, and how to remove it. Returns 1 if one was found. */
static int
stale_prog_check(struct lr_eth_dev *dev)
{
	struct axp *p = dev->data->dev_private;
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(p->ifindex);
	struct xdp_program *prog = NULL;
	enum xdp_attach_mode mode;
	int found = 0;

	if (mp == NULL || libxdp_get_error(mp))
		return 0;
	mode = xdp_multiprog__attach_mode(mp);
	if (xdp_multiprog__is_legacy(mp)) {
		prog = xdp_multiprog__main_prog(mp);
		found = prog != NULL &&
			strcmp(xdp_program__name(prog), XSK_DEF_PROG) == 0;
	} else {
		while (!found &&
		       (prog = xdp_multiprog__next_prog(prog, mp)) != NULL)
			found =
			    strcmp(xdp_program__name(prog), XSK_DEF_PROG) == 0;
	}
	if (found && !iface_used_here(dev, p->ifindex))
		LR_LOG(WARNING, PMD,
		       "%s: %s: libxdp's AF_XDP program (%s, id %u) is already "
		       "attached: another process uses this interface, or one "
		       "was killed before closing its port. This port shares "
		       "it and it stays attached after the port closes; if no "
		       "process uses %s, remove it with 'xdp-loader unload %s "
		       "--all' or 'ip link set dev %s %s off'\n",
		       dev->data->name, p->iface, XSK_DEF_PROG,
		       xdp_program__id(prog), p->iface, p->iface, p->iface,
		       mode == XDP_MODE_SKB ? "xdpgeneric" : "xdp");
	xdp_multiprog__close(mp);
	return found;
}

static int
afxdp_start(struct lr_eth_dev *dev)
{
	struct axp *p = dev->data->dev_private;
	uint16_t n = nb_sockets(dev), q;
	int err = 0;

	if (p->xdp_prog[0] == '\0')
		stale_prog_check(dev);

	for (q = 0; q < n; q++) {
		struct axq *aq = &p->q[q];
		unsigned div = aq->sh ? 2 : 1;

		err = lr_af_xdp_umem_alloc_(dev, q, NULL);
		if (err)
			goto close_sockets;
		if (!aq->nb_rx_desc)
			aq->nb_rx_desc =
			    ring_size(DEFAULT_DESC, aq->nb_frames / 2 / div);
		if (!aq->nb_tx_desc)
			aq->nb_tx_desc = ring_size(
			    aq->tx_want ? aq->tx_want : DEFAULT_DESC / 2,
			    aq->nb_frames / 8 / div);
	}
	if (p->xdp_prog[0] != '\0') {
		err = lr_af_xdp_load_custom_prog_(dev);
		if (err)
			goto close_sockets;
	}
	for (q = 0; q < n; q++) {
		err = lr_af_xdp_sock_open_(dev, q);
		if (err)
			goto close_sockets;
	}
	for (q = 0; q < n; q++)
		if (p->q[q].sh != NULL)
			shumem_log(dev, q);
	dev->data->link.link_status = 1;
	return 0;

close_sockets:
	while (q-- > 0)
		lr_af_xdp_sock_close_(dev, q);
	lr_af_xdp_unload_custom_prog_(p);
	return err;
}

static int
afxdp_stop(struct lr_eth_dev *dev)
{
	struct axp *p = dev->data->dev_private;

	for (uint16_t q = 0; q < LR_MAX_QUEUES_PER_PORT; q++)
		lr_af_xdp_sock_close_(dev, q);
	lr_af_xdp_unload_custom_prog_(p);
	dev->data->link.link_status = 0;
	return 0;
}

static int
afxdp_infos_get(struct lr_eth_dev *dev, struct lr_eth_dev_info *info)
{
	struct axp *p = dev->data->dev_private;
	unsigned buf_off = lr_pktmbuf_xmem_buf_offset(0);

	info->max_rx_queues = (uint16_t)p->queue_count;
	info->max_tx_queues = (uint16_t)p->queue_count;
	info->max_mtu = (uint16_t)(FRAME - buf_off - XDP_PACKET_HEADROOM -
				   LR_ETHER_HDR_LEN);
	/* Any count up to the UMEM size is accepted; ring_size() lowers it
	 * to what the UMEM can feed (logged at debug level). */
	info->min_rx_desc = 64;
	info->max_rx_desc = FRAMES_MAX;
	info->min_tx_desc = 64;
	info->max_tx_desc = FRAMES_MAX;
	/* Checksums done in software on transmit; no segmentation. */
	info->tx_offload_capa =
	    LR_ETH_TX_OFFLOAD_IPV4_CKSUM | LR_ETH_TX_OFFLOAD_TCP_CKSUM |
	    LR_ETH_TX_OFFLOAD_UDP_CKSUM | LR_ETH_TX_OFFLOAD_CKSUM_PARTIAL;
	if (((const struct axp *)dev->data->dev_private)->partial)
		info->rx_offload_capa = LR_ETH_RX_OFFLOAD_CKSUM_PARTIAL;
	return 0;
}

/* Ring size for a requested count: a power of two, at most cap. Frames
 * out at once: fill + rx <= rx size, tx + completion <= 2 x tx size, plus
 * the per-lcore caches. rx takes at most half of the UMEM (a deep ring
 * rides out a forwarder that loses its CPU for a while), tx an eighth
 * (completions are reclaimed every burst), so a quarter is left to the
 * caches and the pool does not run dry. */
static uint32_t
ring_size(unsigned want, unsigned cap)
{
	uint32_t s = (uint32_t)lr_align64pow2(want);

	return s > cap ? cap : s;
}

/* Frames the rings of sharer m may hold at once: fill + rx, tx +
 * completion (sizes not yet set count as the defaults). */
static unsigned
ring_frames(const struct axq *m)
{
	unsigned rx = m->nb_rx_desc ? m->nb_rx_desc : DEFAULT_DESC;
	unsigned tx = m->nb_tx_desc ? m->nb_tx_desc : DEFAULT_DESC / 2;

	return rx + 2 * tx;
}

static unsigned
shumem_demand(const struct shumem *g)
{
	unsigned d = 0;

	for (unsigned i = 0; i < SHARERS_MAX; i++)
		if (g->member[i] != NULL)
			d += ring_frames(g->member[i]);
	return d;
}

/* The rings of all sharers of q's UMEM must leave a quarter of its frames
 * to the per-lcore caches: halve q's larger ring until they do (down to
 * 64), else fail naming every sharer. */
static int
shumem_fit(struct lr_eth_dev *dev, struct axq *q)
{
	const struct shumem *g = q->sh;
	unsigned limit = g->nb_frames - g->nb_frames / 4;
	unsigned rx0 = q->nb_rx_desc, tx0 = q->nb_tx_desc;
	char list[512];
	size_t o = 0;

	while (shumem_demand(g) > limit &&
	       (q->nb_rx_desc > 64 || q->nb_tx_desc > 64)) {
		if (q->nb_rx_desc >= 2 * q->nb_tx_desc && q->nb_rx_desc > 64)
			q->nb_rx_desc /= 2;
		else if (q->nb_tx_desc > 64)
			q->nb_tx_desc /= 2;
		else
			q->nb_rx_desc /= 2;
	}
	if (shumem_demand(g) <= limit) {
		if (q->nb_rx_desc != rx0 || q->nb_tx_desc != tx0)
			LR_LOG(INFO, PMD,
			       "%s: queue %u: rings rx %u tx %u lowered to rx "
			       "%u tx %u to fit shared UMEM '%s' (%u frames)\n",
			       dev->data->name, q->qid, rx0, tx0, q->nb_rx_desc,
			       q->nb_tx_desc, g->mp->name, g->nb_frames);
		return 0;
	}
	list[0] = '\0';
	for (unsigned i = 0; i < SHARERS_MAX && o < sizeof(list); i++) {
		const struct axq *m = g->member[i];

		if (m == NULL)
			continue;
		o += (size_t)snprintf(
		    list + o, sizeof(list) - o, "%s%s queue %u: %u",
		    o ? ", " : "", m->dev->data->name, m->qid, ring_frames(m));
	}
	LR_LOG(ERR, PMD,
	       "%s: queue %u: shared UMEM '%s' of %u frames cannot feed the "
	       "rings of its sharers: they need %u frames (fill+rx and "
	       "2 x tx; %s), more than the %u usable (3/4 of the frames); "
	       "use fewer sharers, smaller rings or shared_umem=0\n",
	       dev->data->name, q->qid, g->mp->name, g->nb_frames,
	       shumem_demand(g), list, limit);
	q->nb_rx_desc = rx0;
	q->nb_tx_desc = tx0;
	return -ENOSPC;
}

static int
afxdp_rx_queue_setup(struct lr_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		     int socket_id, const struct lr_eth_rxconf *conf,
		     struct lr_mempool *mp)
{
	struct axp *p = dev->data->dev_private;
	struct axq *q = &p->q[qid];
	int err = lr_af_xdp_umem_alloc_(dev, qid, mp);
	unsigned div;

	if (err)
		return err;
	div = q->sh ? 2 : 1; /* shared: two sharers fit */
	q->nb_rx_desc = ring_size(nb_desc, q->nb_frames / 2 / div);
	if (q->tx_want != 0 && q->nb_tx_desc == 0)
		q->nb_tx_desc = ring_size(q->tx_want, q->nb_frames / 8 / div);
	if (q->sh != NULL) {
		err = shumem_fit(dev, q);
		if (err) {
			if (!q->tx_set)
				lr_af_xdp_umem_free_(dev, qid);
			q->nb_rx_desc = 0;
			return err;
		}
	}
	p->q[qid].rx_set = 1;
	dev->data->rx_queues[qid] = &p->q[qid];
	LR_LOG(DEBUG, PMD,
	       "%s: rx queue %u: %u descriptors (%u asked); frames come from "
	       "UMEM pool '%s', not from '%s'\n",
	       dev->data->name, qid, p->q[qid].nb_rx_desc, nb_desc,
	       p->q[qid].mp->name, mp ? mp->name : "(none)");
	return 0;
}

static int
afxdp_tx_queue_setup(struct lr_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		     int socket_id, const struct lr_eth_txconf *conf)
{
	struct axp *p = dev->data->dev_private;
	struct axq *q = &p->q[qid];
	int err;

	if (p->shared && q->mp == NULL) {
		/* The UMEM comes with the rx queue's mempool (or at start). */
		q->tx_want = nb_desc;
		q->nb_tx_desc = 0;
		q->tx_set = 1;
		dev->data->tx_queues[qid] = q;
		return 0;
	}
	err = lr_af_xdp_umem_alloc_(dev, qid, NULL);
	if (err)
		return err;
	q->nb_tx_desc =
	    ring_size(nb_desc, q->nb_frames / 8 / (q->sh != NULL ? 2 : 1));
	if (q->sh != NULL) {
		err = shumem_fit(dev, q);
		if (err)
			return err;
	}
	p->q[qid].tx_set = 1;
	dev->data->tx_queues[qid] = &p->q[qid];
	LR_LOG(DEBUG, PMD, "%s: tx queue %u: %u descriptors (%u asked)\n",
	       dev->data->name, qid, p->q[qid].nb_tx_desc, nb_desc);
	return 0;
}

static void
afxdp_rx_queue_release(struct lr_eth_dev *dev, uint16_t qid)
{
	struct axp *p = dev->data->dev_private;

	p->q[qid].rx_set = 0;
	if (!p->q[qid].tx_set)
		lr_af_xdp_umem_free_(dev, qid);
}

static void
afxdp_tx_queue_release(struct lr_eth_dev *dev, uint16_t qid)
{
	struct axp *p = dev->data->dev_private;

	p->q[qid].tx_set = 0;
	if (!p->q[qid].rx_set)
		lr_af_xdp_umem_free_(dev, qid);
}

static int afxdp_promisc(struct lr_eth_dev *dev, int on);

static int
afxdp_close(struct lr_eth_dev *dev)
{
	struct axp *p = dev->data->dev_private;

	afxdp_stop(dev);
	for (uint16_t q = 0; q < LR_MAX_QUEUES_PER_PORT; q++)
		lr_af_xdp_umem_free_(dev, q);
	afxdp_promisc(dev, 0);
	free(p);
	dev->data->dev_private = NULL;
	return 0;
}

/* The interface's link as the kernel reports it (up and running, ethtool
 * speed); down while the port is stopped. */
static int
afxdp_link_update(struct lr_eth_dev *dev, int wait)
{
	struct axp *p = dev->data->dev_private;
	struct lr_eth_link link;
	int ret = lr_eth_iface_link(p->iface, &link);

	if (ret < 0) {
		dev->data->link.link_status = 0;
		LR_LOG(ERR, PMD, "%s: link of '%s': %s\n", dev->data->name,
		       p->iface, strerror(-ret));
		return ret;
	}
	link.link_status = link.link_status && dev->data->started;
	dev->data->link = link;
	return 0;
}

/* Kernel counters of queue q: closed sockets plus the open one. */
static void
kernel_stats(const struct axq *q, struct xdp_statistics *out)
{
	struct xdp_statistics st;
	socklen_t len = sizeof(st);

	*out = q->xstats_old;
	if (q->open &&
	    getsockopt(q->fd, SOL_XDP, XDP_STATISTICS, &st, &len) == 0) {
		out->rx_dropped += st.rx_dropped;
		out->rx_invalid_descs += st.rx_invalid_descs;
		out->tx_invalid_descs += st.tx_invalid_descs;
		out->rx_ring_full += st.rx_ring_full;
		out->rx_fill_ring_empty_descs += st.rx_fill_ring_empty_descs;
		out->tx_ring_empty_descs += st.tx_ring_empty_descs;
	}
}

static int
afxdp_stats_get(struct lr_eth_dev *dev, struct lr_eth_stats *s)
{
	const struct axp *p = dev->data->dev_private;

	for (unsigned i = 0; i < LR_MAX_QUEUES_PER_PORT; i++) {
		struct xdp_statistics st;

		lr_eth_stats_add_queue(s, i, &p->q[i].rxc, &p->q[i].txc);
		kernel_stats(&p->q[i], &st);
		s->imissed += st.rx_dropped + st.rx_ring_full;
		s->rx_nombuf += st.rx_fill_ring_empty_descs;
		s->ierrors += st.rx_invalid_descs;
	}
	return 0;
}

static const char *const afxdp_xstat_names[] = {
    "rx_wakeups",
    "refill_fail",
    "rx_bad_desc",
    "tx_copies",
    "tx_kicks",
    "tx_ring_full",
    "tx_nobuf",
    "tx_bad_comp",
    "kernel_rx_ring_full",
    "kernel_rx_fill_empty",
    "kernel_tx_invalid_descs",
    "frames_recovered_at_stop",
    "rx_busy_poll_queues",
    "rx_runts",
    "tx_offload_errors",
    "rx_partial_csum",
};

static int
afxdp_xstats_get(struct lr_eth_dev *dev, uint64_t *values, unsigned n)
{
	const struct axp *p = dev->data->dev_private;
	uint64_t v[LR_DIM(afxdp_xstat_names)] = {0};

	for (unsigned i = 0; i < LR_MAX_QUEUES_PER_PORT; i++) {
		const struct axq *q = &p->q[i];
		struct xdp_statistics st;

		kernel_stats(&p->q[i], &st);
		v[0] += lr_counter_read(&q->rx_wakeups);
		v[1] += lr_counter_read(&q->refill_fail);
		v[2] += lr_counter_read(&q->rx_bad_desc);
		v[3] += lr_counter_read(&q->tx_copies);
		v[4] += lr_counter_read(&q->tx_kicks);
		v[5] += lr_counter_read(&q->tx_ring_full);
		v[6] += lr_counter_read(&q->tx_nobuf);
		v[7] += lr_counter_read(&q->tx_bad_comp);
		v[8] += st.rx_ring_full;
		v[9] += st.rx_fill_ring_empty_descs;
		v[10] += st.tx_invalid_descs;
		v[11] += lr_counter_read(&q->recovered);
		v[12] += __atomic_load_n(&q->busy, __ATOMIC_RELAXED) == BUSY_ON;
		v[13] += lr_counter_read(&q->rx_runts);
		v[14] += lr_counter_read(&q->tx_offload_errors);
		v[15] += lr_counter_read(&q->rx_partial);
	}
	return lr_eth_xstats_values_fill(values, n, v, LR_DIM(v));
}

/* Promiscuous mode is a PACKET_MR_PROMISC membership of a packet socket
 * of the port (protocol 0: it receives nothing), as in net_af_packet: the
 * kernel counts it apart from the IFF_PROMISC the administrator sets, so
 * the interface's own promiscuous state comes back when the port turns it
 * off or closes, or the process dies (even by SIGKILL). 0 or -errno. */
static int
afxdp_promisc(struct lr_eth_dev *dev, int on)
{
	struct axp *p = dev->data->dev_private;
	int fd;

	if (!on) {
		if (p->promisc_fd >= 0)
			close(p->promisc_fd);
		p->promisc_fd = -1;
		return 0;
	}
	if (p->promisc_fd >= 0)
		return 0;
	fd = lr_eth_iface_promisc_hold(p->ifindex);
	if (fd < 0) {
		LR_LOG(ERR, PMD, "%s: %s: promiscuous on: %s\n",
		       dev->data->name, p->iface, strerror(-fd));
		return fd;
	}
	p->promisc_fd = fd;
	return 0;
}

static int
afxdp_promisc_on(struct lr_eth_dev *dev)
{
	return afxdp_promisc(dev, 1);
}

static int
afxdp_promisc_off(struct lr_eth_dev *dev)
{
	return afxdp_promisc(dev, 0);
}

/* The control ops that may reach a shared UMEM, under
 * lr_af_xdp_shumem_lock_. */
static int
afxdp_start_op(struct lr_eth_dev *dev)
{
	pthread_mutex_lock(&lr_af_xdp_shumem_lock_);
	int rc = afxdp_start(dev);
	pthread_mutex_unlock(&lr_af_xdp_shumem_lock_);
	return rc;
}

static int
afxdp_stop_op(struct lr_eth_dev *dev)
{
	pthread_mutex_lock(&lr_af_xdp_shumem_lock_);
	int rc = afxdp_stop(dev);
	pthread_mutex_unlock(&lr_af_xdp_shumem_lock_);
	return rc;
}

static int
afxdp_close_op(struct lr_eth_dev *dev)
{
	pthread_mutex_lock(&lr_af_xdp_shumem_lock_);
	int rc = afxdp_close(dev);
	pthread_mutex_unlock(&lr_af_xdp_shumem_lock_);
	return rc;
}

static int
afxdp_rx_queue_setup_op(struct lr_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
			int socket_id, const struct lr_eth_rxconf *conf,
			struct lr_mempool *mp)
{
	pthread_mutex_lock(&lr_af_xdp_shumem_lock_);
	int rc = afxdp_rx_queue_setup(dev, qid, nb_desc, socket_id, conf, mp);
	pthread_mutex_unlock(&lr_af_xdp_shumem_lock_);
	return rc;
}

static int
afxdp_tx_queue_setup_op(struct lr_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
			int socket_id, const struct lr_eth_txconf *conf)
{
	pthread_mutex_lock(&lr_af_xdp_shumem_lock_);
	int rc = afxdp_tx_queue_setup(dev, qid, nb_desc, socket_id, conf);
	pthread_mutex_unlock(&lr_af_xdp_shumem_lock_);
	return rc;
}

static void
afxdp_rx_queue_release_op(struct lr_eth_dev *dev, uint16_t qid)
{
	pthread_mutex_lock(&lr_af_xdp_shumem_lock_);
	afxdp_rx_queue_release(dev, qid);
	pthread_mutex_unlock(&lr_af_xdp_shumem_lock_);
}

static void
afxdp_tx_queue_release_op(struct lr_eth_dev *dev, uint16_t qid)
{
	pthread_mutex_lock(&lr_af_xdp_shumem_lock_);
	afxdp_tx_queue_release(dev, qid);
	pthread_mutex_unlock(&lr_af_xdp_shumem_lock_);
}

/* The ethdev operations of an af_xdp port (af_xdp_private.h). */
const struct lr_eth_dev_ops lr_af_xdp_ops_ = {
    .dev_start = afxdp_start_op,
    .dev_stop = afxdp_stop_op,
    .dev_close = afxdp_close_op,
    .dev_infos_get = afxdp_infos_get,
    .rx_queue_setup = afxdp_rx_queue_setup_op,
    .tx_queue_setup = afxdp_tx_queue_setup_op,
    .rx_queue_release = afxdp_rx_queue_release_op,
    .tx_queue_release = afxdp_tx_queue_release_op,
    .link_update = afxdp_link_update,
    .promiscuous_enable = afxdp_promisc_on,
    .promiscuous_disable = afxdp_promisc_off,
    .stats_get = afxdp_stats_get,
    .xstats_get = afxdp_xstats_get,
    .xstat_names = afxdp_xstat_names,
    .nb_xstat_names = LR_DIM(afxdp_xstat_names),
};
