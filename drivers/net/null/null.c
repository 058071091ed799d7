/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_null: a port with no device behind it. Receive hands out `size`-byte
 * packets from the queue's mbuf pool; transmit frees what it is given. It
 * measures what the framework itself costs per packet.
 *
 * Devargs: size=N (bytes per packet, default 64, at least an Ethernet
 * header: 14, so the port never hands out a runt), copy=0|1 (default 0: do
 * not touch packet data; 1: rx writes a template frame into each packet,
 * tx reads each packet into a sink buffer, as a device's DMA would),
 * no-rx=0|1 (default 0; 1: receive hands out nothing, the port is only a
 * sink, as DPDK's net_null no-rx=1; not with copy=1).
 *
 * Hot path: rx = one lr_pktmbuf_alloc_bulk + three stores per packet
 * (+ a copy when copy=1); tx = one load per packet for the byte count +
 * one lr_pktmbuf_free_bulk. The copy variant is chosen at start.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lr_ethdev_driver.h"

#define NULL_DEFAULT_SIZE 64
#define NULL_MAX_SIZE	  9600

static const char *const null_keys[] = {"size", "copy", "no-rx", NULL};

/* One rx or tx queue; counters written by the polling thread only
 * (lr_counter_add()). */
struct null_queue {
	struct lr_mempool *mp; /* rx: pool to allocate from */
	const uint8_t *tmpl;   /* rx copy: the frame written into packets */
	uint8_t *sink;	       /* tx copy: where packets are read into */
	uint32_t size;
	uint16_t port;
	uint8_t in_use;
	struct lr_eth_queue_counters c; /* packets, bytes, rx: nombuf */
	uint64_t bursts;
	uint64_t nombuf_bursts;
} __lr_cache_aligned;

struct null_private {
	struct null_queue rxq[LR_MAX_QUEUES_PER_PORT];
	struct null_queue txq[LR_MAX_QUEUES_PER_PORT];
	uint32_t size;
	int copy;
	int no_rx;
	uint8_t *tmpl;
};

static inline void
set_lengths(struct lr_mbuf **pkts, uint16_t n, uint32_t size, uint16_t port)
{
	for (uint16_t i = 0; i < n; i++) {
		struct lr_mbuf *m = pkts[i];

		m->data_len = (uint16_t)size;
		m->pkt_len = size;
		m->port = port;
	}
}

static __lr_cold uint16_t
rx_nombuf(struct null_queue *q, uint16_t n)
{
	lr_counter_add(&q->c.nombuf, n);
	lr_counter_add(&q->nombuf_bursts, 1);
	return 0;
}

static uint16_t
null_rx(void *rxq, struct lr_mbuf **pkts, uint16_t n)
{
	struct null_queue *q = rxq;

	if (lr_unlikely(lr_pktmbuf_alloc_bulk(q->mp, pkts, n) != 0))
		return rx_nombuf(q, n);
	set_lengths(pkts, n, q->size, q->port);
	lr_counter_add(&q->c.packets, n);
	lr_counter_add(&q->c.bytes, (uint64_t)n * q->size);
	lr_counter_add(&q->bursts, 1);
	return n;
}

static uint16_t
null_rx_copy(void *rxq, struct lr_mbuf **pkts, uint16_t n)
{
	struct null_queue *q = rxq;

	if (lr_unlikely(lr_pktmbuf_alloc_bulk(q->mp, pkts, n) != 0))
		return rx_nombuf(q, n);
	set_lengths(pkts, n, q->size, q->port);
	for (uint16_t i = 0; i < n; i++)
		memcpy(lr_pktmbuf_mtod(pkts[i], void *), q->tmpl, q->size);
	lr_counter_add(&q->c.packets, n);
	lr_counter_add(&q->c.bytes, (uint64_t)n * q->size);
	lr_counter_add(&q->bursts, 1);
	return n;
}

static uint16_t
null_tx(void *txq, struct lr_mbuf **pkts, uint16_t n)
{
	struct null_queue *q = txq;
	uint64_t bytes = 0;

	for (uint16_t i = 0; i < n; i++)
		bytes += pkts[i]->pkt_len;
	lr_pktmbuf_free_bulk(pkts, n);
	lr_counter_add(&q->c.packets, n);
	lr_counter_add(&q->c.bytes, bytes);
	lr_counter_add(&q->bursts, 1);
	return n;
}

static uint16_t
null_tx_copy(void *txq, struct lr_mbuf **pkts, uint16_t n)
{
	struct null_queue *q = txq;
	uint64_t bytes = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct lr_mbuf *m = pkts[i];
		uint32_t len = LR_MIN((uint32_t)m->data_len, q->size);

		memcpy(q->sink, lr_pktmbuf_mtod(m, void *), len);
		bytes += m->pkt_len;
	}
	lr_pktmbuf_free_bulk(pkts, n);
	lr_counter_add(&q->c.packets, n);
	lr_counter_add(&q->c.bytes, bytes);
	lr_counter_add(&q->bursts, 1);
	return n;
}

static int
null_infos_get(struct lr_eth_dev *dev, struct lr_eth_dev_info *info)
{
	info->max_rx_queues = LR_MAX_QUEUES_PER_PORT;
	info->max_tx_queues = LR_MAX_QUEUES_PER_PORT;
	info->max_mtu = NULL_MAX_SIZE;
	return 0;
}

/* no-rx=1: nothing ever arrives. */
static uint16_t
null_no_rx(void *rxq, struct lr_mbuf **pkts, uint16_t n)
{
	(void)rxq;
	(void)pkts;
	(void)n;
	return 0;
}

static int
null_start(struct lr_eth_dev *dev)
{
	struct null_private *p = dev->data->dev_private;

	dev->rx_pkt_burst = p->no_rx  ? null_no_rx
			    : p->copy ? null_rx_copy
				      : null_rx;
	dev->tx_pkt_burst = p->copy ? null_tx_copy : null_tx;
	return 0;
}

static int
null_rx_queue_setup(struct lr_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		    int socket_id, const struct lr_eth_rxconf *conf,
		    struct lr_mempool *mp)
{
	struct null_private *p = dev->data->dev_private;
	struct null_queue *q = &p->rxq[qid];

	/* The pool's buffers must hold a whole packet. */
	unsigned room = lr_pktmbuf_data_room_size(mp);

	room = room > LR_PKTMBUF_HEADROOM ? room - LR_PKTMBUF_HEADROOM : 0;
	if (room < p->size) {
		LR_LOG(ERR, PMD,
		       "%s: rx queue %u: size=%u does not fit mbufs of pool "
		       "'%s' (%u bytes after headroom)\n",
		       dev->data->name, qid, p->size, mp->name, room);
		return -EINVAL;
	}
	q->mp = mp;
	q->tmpl = p->tmpl;
	q->size = p->size;
	q->port = dev->data->port_id;
	q->in_use = 1;
	dev->data->rx_queues[qid] = q;
	return 0;
}

static int
null_tx_queue_setup(struct lr_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		    int socket_id, const struct lr_eth_txconf *conf)
{
	struct null_private *p = dev->data->dev_private;
	struct null_queue *q = &p->txq[qid];

	if (p->copy) {
		q->sink =
		    aligned_alloc(LR_CACHE_LINE_SIZE,
				  LR_ALIGN_CEIL(p->size, LR_CACHE_LINE_SIZE));
		if (q->sink == NULL)
			return -ENOMEM;
	}
	q->size = p->size;
	q->port = dev->data->port_id;
	q->in_use = 1;
	dev->data->tx_queues[qid] = q;
	return 0;
}

static void
null_rx_queue_release(struct lr_eth_dev *dev, uint16_t qid)
{
	struct null_private *p = dev->data->dev_private;

	p->rxq[qid].mp = NULL;
	p->rxq[qid].in_use = 0;
}

static void
null_tx_queue_release(struct lr_eth_dev *dev, uint16_t qid)
{
	struct null_private *p = dev->data->dev_private;

	free(p->txq[qid].sink);
	p->txq[qid].sink = NULL;
	p->txq[qid].in_use = 0;
}

static int
null_close(struct lr_eth_dev *dev)
{
	struct null_private *p = dev->data->dev_private;

	free(p->tmpl);
	free(p);
	dev->data->dev_private = NULL;
	return 0;
}

static int
null_link_update(struct lr_eth_dev *dev, int wait)
{
	dev->data->link.link_status = dev->data->started;
	dev->data->link.link_speed = 10000;
	dev->data->link.link_duplex = 1;
	dev->data->link.link_autoneg = 0;
	return 0;
}

static int
null_stats_get(struct lr_eth_dev *dev, struct lr_eth_stats *s)
{
	const struct null_private *p = dev->data->dev_private;

	/* Counters of queues not in use stay: they never go down. */
	for (unsigned q = 0; q < LR_MAX_QUEUES_PER_PORT; q++)
		lr_eth_stats_add_queue(s, q, &p->rxq[q].c, &p->txq[q].c);
	return 0;
}

static const char *const null_xstat_names[] = {
    "rx_bursts",
    "rx_nombuf_bursts",
    "tx_bursts",
};

static int
null_xstats_get(struct lr_eth_dev *dev, uint64_t *values, unsigned n)
{
	const struct null_private *p = dev->data->dev_private;
	uint64_t v[LR_DIM(null_xstat_names)] = {0};

	for (unsigned q = 0; q < LR_MAX_QUEUES_PER_PORT; q++) {
		v[0] += lr_counter_read(&p->rxq[q].bursts);
		v[1] += lr_counter_read(&p->rxq[q].nombuf_bursts);
		v[2] += lr_counter_read(&p->txq[q].bursts);
	}
	return lr_eth_xstats_values_fill(values, n, v, LR_DIM(v));
}

static const struct lr_eth_dev_ops null_ops = {
    .dev_start = null_start,
    .dev_close = null_close,
    .dev_infos_get = null_infos_get,
    .rx_queue_setup = null_rx_queue_setup,
    .tx_queue_setup = null_tx_queue_setup,
    .rx_queue_release = null_rx_queue_release,
    .tx_queue_release = null_tx_queue_release,
    .link_update = null_link_update,
    .stats_get = null_stats_get,
    .xstats_get = null_xstats_get,
    .xstat_names = null_xstat_names,
    .nb_xstat_names = LR_DIM(null_xstat_names),
};

/* The frame rx writes in copy mode: broadcast to a locally administered
 * source, EtherType IPv4, payload counting up. */
static void
fill_template(uint8_t *t, uint32_t size, const struct lr_ether_addr *src)
{
	for (uint32_t i = 0; i < size; i++)
		t[i] = (uint8_t)i;
	if (size >= LR_ETHER_HDR_LEN) {
		struct lr_ether_hdr *eh = (struct lr_ether_hdr *)t;

		memset(&eh->dst_addr, 0xff, sizeof(eh->dst_addr));
		eh->src_addr = *src;
		t[12] = LR_ETHER_TYPE_IPV4 >> 8;
		t[13] = LR_ETHER_TYPE_IPV4 & 0xff;
	}
}

static int
null_probe(struct lr_eth_dev *dev, const struct lr_devargs *args)
{
	struct null_private *p;
	uint64_t size;
	int copy, no_rx, ret;

	ret = lr_devargs_get_uint(args, "size", NULL_DEFAULT_SIZE,
				  LR_ETHER_HDR_LEN, NULL_MAX_SIZE, &size);
	if (ret < 0)
		return ret;
	ret = lr_devargs_get_bool(args, "copy", 0, &copy);
	if (ret < 0)
		return ret;
	ret = lr_devargs_get_bool(args, "no-rx", 0, &no_rx);
	if (ret < 0)
		return ret;
	if (copy && no_rx) {
		LR_LOG(ERR, PMD, "%s: copy=1 and no-rx=1 together: a port that "
		       "receives nothing has no frame to copy\n",
		       dev->data->name);
		return -EINVAL;
	}
	p = aligned_alloc(LR_CACHE_LINE_SIZE, sizeof(*p));
	if (p == NULL)
		return -ENOMEM;
	memset(p, 0, sizeof(*p));
	p->size = (uint32_t)size;
	p->copy = copy;
	p->no_rx = no_rx;
	p->tmpl = malloc(size);
	if (p->tmpl == NULL) {
		ret = -ENOMEM;
		goto free_private;
	}
	lr_eth_random_mac(&dev->data->mac_addr, dev->data->port_id, 0x4e55);
	fill_template(p->tmpl, p->size, &dev->data->mac_addr);
	dev->data->dev_private = p;
	dev->dev_ops = &null_ops;
	dev->rx_pkt_burst = no_rx ? null_no_rx : null_rx;
	dev->tx_pkt_burst = null_tx;
	dev->data->link.link_speed = 10000;
	dev->data->link.link_duplex = 1;
	LR_LOG(INFO, PMD, "%s: size=%u copy=%d no-rx=%d\n", dev->data->name,
	       p->size, p->copy, p->no_rx);
	return 0;

free_private:
	free(p);
	return ret;
}

static struct lr_eth_driver null_driver = {
    .keys = null_keys,
    .usage = "size=<1..9600> copy=<0|1>",
    .probe = null_probe,
};

LR_PMD_REGISTER(net_null, null_driver);
