/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_ring: ports over lib/ring rings (see lr_eth_ring.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lr_eth_ring.h"
#include "lr_ethdev_driver.h"

#define DRV_NAME "net_ring"

/* One queue; counters written by the polling thread only (lr_counter_add()). */
struct ring_queue {
	struct lr_ring *ring;
	struct lr_eth_queue_counters c; /* packets, bytes */
	uint64_t full; /* tx: packets the ring had no room for */
} __lr_cache_aligned;

/* Rings between ports net_ring<2k> and net_ring<2k+1>: r[s][q] carries
 * packets from side s to side s ^ 1 on queue q. */
struct ring_pair {
	unsigned index; /* k */
	unsigned refs;	/* ports of the pair that exist */
	struct lr_ring *r[2][LR_MAX_QUEUES_PER_PORT];
	struct ring_pair *next;
};

struct ring_private {
	struct ring_queue rxq[LR_MAX_QUEUES_PER_PORT];
	struct ring_queue txq[LR_MAX_QUEUES_PER_PORT];
	struct ring_pair *pair; /* NULL for application rings */
	unsigned side;
	unsigned nb_app_rx; /* application rings given */
	unsigned nb_app_tx;
	struct lr_ring *app_rx[LR_MAX_QUEUES_PER_PORT];
	struct lr_ring *app_tx[LR_MAX_QUEUES_PER_PORT];
};

static struct ring_pair *pairs;
static pthread_mutex_t pairs_lock = PTHREAD_MUTEX_INITIALIZER;

static inline uint64_t
sum_bytes(struct lr_mbuf *const *pkts, unsigned n)
{
	uint64_t b = 0;

	for (unsigned i = 0; i < n; i++)
		b += pkts[i]->pkt_len;
	return b;
}

/* Count a receive of got packets; got. */
static __lr_always_inline uint16_t
rx_count(struct ring_queue *q, struct lr_mbuf *const *pkts, unsigned got)
{
	lr_counter_add(&q->c.packets, got);
	lr_counter_add(&q->c.bytes, sum_bytes(pkts, got));
	return (uint16_t)got;
}

/* Count a send of put of n packets whose bytes were summed before the
 * enqueue (bytes); put. */
static __lr_always_inline uint16_t
tx_count(struct ring_queue *q, struct lr_mbuf *const *pkts, unsigned n,
	 unsigned put, uint64_t bytes)
{
	if (lr_unlikely(put < n)) {
		bytes -= sum_bytes(pkts + put, n - put);
		lr_counter_add(&q->full, n - put);
	}
	lr_counter_add(&q->c.packets, put);
	lr_counter_add(&q->c.bytes, bytes);
	return (uint16_t)put;
}

/* Joined ports: one consumer per ring. */
static uint16_t
ring_rx_sc(void *rxq, struct lr_mbuf **pkts, uint16_t n)
{
	struct ring_queue *q = rxq;
	unsigned got;

	got = lr_ring_sc_dequeue_burst(q->ring, (void **)pkts, n, NULL);
	return rx_count(q, pkts, got);
}

/* Joined ports: one producer per ring. The byte count is taken before the
 * enqueue: once in the ring the packets belong to the other side. */
static uint16_t
ring_tx_sp(void *txq, struct lr_mbuf **pkts, uint16_t n)
{
	struct ring_queue *q = txq;
	uint64_t bytes = sum_bytes(pkts, n);
	unsigned put;

	put = lr_ring_sp_enqueue_burst(q->ring, (void *const *)pkts, n, NULL);
	return tx_count(q, pkts, n, put, bytes);
}

/* Application rings: the ring's own default mode. */
static uint16_t
ring_rx_default(void *rxq, struct lr_mbuf **pkts, uint16_t n)
{
	struct ring_queue *q = rxq;
	unsigned got;

	got = lr_ring_dequeue_burst(q->ring, (void **)pkts, n, NULL);
	return rx_count(q, pkts, got);
}

static uint16_t
ring_tx_default(void *txq, struct lr_mbuf **pkts, uint16_t n)
{
	struct ring_queue *q = txq;
	uint64_t bytes = sum_bytes(pkts, n);
	unsigned put;

	put = lr_ring_enqueue_burst(q->ring, (void *const *)pkts, n, NULL);
	return tx_count(q, pkts, n, put, bytes);
}

static int
ring_infos_get(struct lr_eth_dev *dev, struct lr_eth_dev_info *info)
{
	struct ring_private *p = dev->data->dev_private;

	if (p->pair) {
		info->max_rx_queues = LR_MAX_QUEUES_PER_PORT;
		info->max_tx_queues = LR_MAX_QUEUES_PER_PORT;
	} else {
		info->max_rx_queues = (uint16_t)p->nb_app_rx;
		info->max_tx_queues = (uint16_t)p->nb_app_tx;
	}
	/* Mbufs cross whole, offload flags and lengths with them: a frame
	 * asking for an offload leaves this port as it came, for the port
	 * that finally sends it (or its consumer) to honour; a ring port
	 * receives whatever its producer flagged. */
	info->tx_offload_capa = LR_ETH_TX_OFFLOAD_ALL;
	info->rx_offload_capa =
	    LR_ETH_RX_OFFLOAD_CKSUM_PARTIAL | LR_ETH_RX_OFFLOAD_TCP_LRO;
	return 0;
}

/* The ring r[side][q] of a pair, made with nb_desc slots if absent. */
static struct lr_ring *
pair_ring(struct ring_pair *pr, unsigned side, uint16_t q, uint16_t nb_desc,
	  int socket_id)
{
	struct lr_ring *r;
	char name[LR_RING_NAMESIZE];

	pthread_mutex_lock(&pairs_lock);
	r = pr->r[side][q];
	if (r == NULL) {
		snprintf(name, sizeof(name), "nring%u_s%u_q%u", pr->index, side,
			 q);
		r = lr_ring_create(name, nb_desc, socket_id,
				   LR_RING_F_SP_ENQ | LR_RING_F_SC_DEQ |
				       LR_RING_F_EXACT_SZ);
		if (r == NULL)
			LR_LOG(ERR, PMD, "net_ring pair %u: ring '%s': %s\n",
			       pr->index, name, lr_strerror(lr_errno));
		pr->r[side][q] = r;
	}
	pthread_mutex_unlock(&pairs_lock);
	return r;
}

static int
ring_rx_queue_setup(struct lr_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		    int socket_id, const struct lr_eth_rxconf *conf,
		    struct lr_mempool *mp)
{
	struct ring_private *p = dev->data->dev_private;
	struct lr_ring *r;

	if (p->pair)
		r = pair_ring(p->pair, p->side ^ 1, qid, nb_desc, socket_id);
	else
		r = p->app_rx[qid];
	if (r == NULL)
		return -lr_errno;
	p->rxq[qid].ring = r;
	dev->data->rx_queues[qid] = &p->rxq[qid];
	return 0;
}

static int
ring_tx_queue_setup(struct lr_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		    int socket_id, const struct lr_eth_txconf *conf)
{
	struct ring_private *p = dev->data->dev_private;
	struct lr_ring *r;

	if (p->pair)
		r = pair_ring(p->pair, p->side, qid, nb_desc, socket_id);
	else
		r = p->app_tx[qid];
	if (r == NULL)
		return -lr_errno;
	p->txq[qid].ring = r;
	dev->data->tx_queues[qid] = &p->txq[qid];
	return 0;
}

static void
ring_rx_queue_release(struct lr_eth_dev *dev, uint16_t qid)
{
	struct ring_private *p = dev->data->dev_private;

	p->rxq[qid].ring = NULL;
}

static void
ring_tx_queue_release(struct lr_eth_dev *dev, uint16_t qid)
{
	struct ring_private *p = dev->data->dev_private;

	p->txq[qid].ring = NULL;
}

/* Free a pair's rings with the packets still in them. Pairs lock held. */
static void
pair_free(struct ring_pair *pr)
{
	struct ring_pair **pp;

	for (unsigned s = 0; s < 2; s++) {
		for (unsigned q = 0; q < LR_MAX_QUEUES_PER_PORT; q++) {
			struct lr_ring *r = pr->r[s][q];
			void *objs[64];
			unsigned n;

			if (r == NULL)
				continue;
			while ((n = lr_ring_sc_dequeue_burst(r, objs, 64,
							     NULL)) > 0)
				lr_pktmbuf_free_bulk((struct lr_mbuf **)objs,
						     n);
			lr_ring_free(r);
		}
	}
	for (pp = &pairs; *pp; pp = &(*pp)->next) {
		if (*pp == pr) {
			*pp = pr->next;
			break;
		}
	}
	free(pr);
}

static int
ring_close(struct lr_eth_dev *dev)
{
	struct ring_private *p = dev->data->dev_private;

	if (p->pair) {
		pthread_mutex_lock(&pairs_lock);
		if (--p->pair->refs == 0)
			pair_free(p->pair);
		pthread_mutex_unlock(&pairs_lock);
	}
	free(p);
	dev->data->dev_private = NULL;
	return 0;
}

static int
ring_link_update(struct lr_eth_dev *dev, int wait)
{
	dev->data->link.link_status = dev->data->started;
	dev->data->link.link_speed = 10000;
	dev->data->link.link_duplex = 1;
	return 0;
}

static int
ring_stats_get(struct lr_eth_dev *dev, struct lr_eth_stats *s)
{
	const struct ring_private *p = dev->data->dev_private;

	for (unsigned q = 0; q < LR_MAX_QUEUES_PER_PORT; q++)
		lr_eth_stats_add_queue(s, q, &p->rxq[q].c, &p->txq[q].c);
	return 0;
}

static const char *const ring_xstat_names[] = {"tx_ring_full"};

static int
ring_xstats_get(struct lr_eth_dev *dev, uint64_t *values, unsigned n)
{
	const struct ring_private *p = dev->data->dev_private;
	uint64_t full[1] = {0};

	for (unsigned q = 0; q < LR_MAX_QUEUES_PER_PORT; q++)
		full[0] += lr_counter_read(&p->txq[q].full);
	return lr_eth_xstats_values_fill(values, n, full, LR_DIM(full));
}

static const struct lr_eth_dev_ops ring_ops = {
    .dev_close = ring_close,
    .dev_infos_get = ring_infos_get,
    .rx_queue_setup = ring_rx_queue_setup,
    .tx_queue_setup = ring_tx_queue_setup,
    .rx_queue_release = ring_rx_queue_release,
    .tx_queue_release = ring_tx_queue_release,
    .link_update = ring_link_update,
    .stats_get = ring_stats_get,
    .xstats_get = ring_xstats_get,
    .xstat_names = ring_xstat_names,
    .nb_xstat_names = LR_DIM(ring_xstat_names),
};

static struct ring_private *
private_new(void)
{
	struct ring_private *p = aligned_alloc(LR_CACHE_LINE_SIZE, sizeof(*p));

	if (p)
		memset(p, 0, sizeof(*p));
	return p;
}

static void
port_common(struct lr_eth_dev *dev, struct ring_private *p)
{
	dev->data->dev_private = p;
	dev->dev_ops = &ring_ops;
	dev->data->link.link_speed = 10000;
	dev->data->link.link_duplex = 1;
	lr_eth_random_mac(&dev->data->mac_addr, dev->data->port_id, 0x5249);
}

static int
ring_probe(struct lr_eth_dev *dev, const struct lr_devargs *args)
{
	const char *num = args->name + strlen(DRV_NAME);
	struct ring_private *p;
	struct ring_pair *pr;
	unsigned long n;
	char *end;

	/* Digits only, no leading zero: one name per side of a pair. */
	if (num[0] < '0' || num[0] > '9' || (num[0] == '0' && num[1]) ||
	    (n = strtoul(num, &end, 10), *end != '\0') || n > 1000000) {
		LR_LOG(ERR, PMD,
		       "%s: net_ring ports are named net_ring<N>; net_ring<2k> "
		       "and net_ring<2k+1> are joined\n",
		       args->name);
		return -EINVAL;
	}
	p = private_new();
	if (p == NULL)
		return -ENOMEM;
	pthread_mutex_lock(&pairs_lock);
	for (pr = pairs; pr; pr = pr->next)
		if (pr->index == n / 2)
			break;
	if (pr == NULL) {
		pr = calloc(1, sizeof(*pr));
		if (pr == NULL) {
			pthread_mutex_unlock(&pairs_lock);
			free(p);
			return -ENOMEM;
		}
		pr->index = (unsigned)(n / 2);
		pr->next = pairs;
		pairs = pr;
	}
	pr->refs++;
	pthread_mutex_unlock(&pairs_lock);
	p->pair = pr;
	p->side = (unsigned)(n & 1);
	port_common(dev, p);
	dev->rx_pkt_burst = ring_rx_sc;
	dev->tx_pkt_burst = ring_tx_sp;
	return 0;
}

static struct lr_eth_driver ring_driver = {
    .keys = NULL,
    .usage = "(no keys; net_ring<2k> and net_ring<2k+1> are joined)",
    .probe = ring_probe,
};

LR_PMD_REGISTER(net_ring, ring_driver);

int
lr_eth_from_rings(const char *name, struct lr_ring *const rx_rings[],
		  unsigned nb_rx_queues, struct lr_ring *const tx_rings[],
		  unsigned nb_tx_queues, int socket_id)
{
	struct ring_private *p;
	struct lr_eth_dev *dev;

	if (name == NULL || name[0] == '\0') {
		LR_LOG(ERR, PMD, "lr_eth_from_rings: no port name\n");
		return -EINVAL;
	}
	if (nb_rx_queues > LR_MAX_QUEUES_PER_PORT ||
	    nb_tx_queues > LR_MAX_QUEUES_PER_PORT ||
	    (nb_rx_queues == 0 && nb_tx_queues == 0)) {
		LR_LOG(ERR, PMD,
		       "%s: %u rx and %u tx rings (1..%d, not both 0)\n", name,
		       nb_rx_queues, nb_tx_queues, LR_MAX_QUEUES_PER_PORT);
		return -EINVAL;
	}
	for (unsigned i = 0; i < nb_rx_queues; i++) {
		if (rx_rings == NULL || rx_rings[i] == NULL) {
			LR_LOG(ERR, PMD, "%s: rx ring %u is NULL\n", name, i);
			return -EINVAL;
		}
	}
	for (unsigned i = 0; i < nb_tx_queues; i++) {
		if (tx_rings == NULL || tx_rings[i] == NULL) {
			LR_LOG(ERR, PMD, "%s: tx ring %u is NULL\n", name, i);
			return -EINVAL;
		}
	}
	p = private_new();
	if (p == NULL)
		return -ENOMEM;
	p->nb_app_rx = nb_rx_queues;
	p->nb_app_tx = nb_tx_queues;
	for (unsigned i = 0; i < nb_rx_queues; i++)
		p->app_rx[i] = rx_rings[i];
	for (unsigned i = 0; i < nb_tx_queues; i++)
		p->app_tx[i] = tx_rings[i];
	dev = lr_eth_dev_allocate(name, &ring_driver);
	if (dev == NULL) {
		int err = lr_errno;

		free(p);
		return -err;
	}
	port_common(dev, p);
	if (socket_id != LR_SOCKET_ID_ANY)
		dev->data->socket_id = socket_id;
	dev->rx_pkt_burst = ring_rx_default;
	dev->tx_pkt_burst = ring_tx_default;
	lr_eth_dev_probing_finish(dev);
	LR_LOG(INFO, PMD, "port %u: %s over %u rx and %u tx rings\n",
	       dev->data->port_id, name, nb_rx_queues, nb_tx_queues);
	return dev->data->port_id;
}
