/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_virtio_user's ethdev operations: configure (queue pairs, the shared
 * region and the rings' eventfds), queue setup, start and stop (the
 * connection thread, virtio_user_socket.c), close, link state from the
 * connection, statistics and xstats per queue (kicks, calls, ring full).
 * None runs on the datapath.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "lr_ethdev_driver.h"
#include "lr_log.h"
#include "virtio_user_private.h"

/* Free what configure made for p's rings. */
static void
rings_free(struct vu_port *p)
{
	for (unsigned i = 0; i < VU_MAXQ; i++) {
		struct vu_queue *qs[2] = {&p->rxq[i], &p->txq[i]};

		for (unsigned d = 0; d < 2; d++) {
			struct vu_vring *vr = &qs[d]->vr;

			lr_unix_close_fds(&vr->kick_fd, 1);
			lr_unix_close_fds(&vr->call_fd, 1);
			if (d == 1)
				lr_vu_tx_release_(qs[d]);
			free(vr->tx_mbuf);
			vr->tx_mbuf = NULL;
			free(vr->free_ids);
			vr->free_ids = vr->chain_len = vr->chain_next = NULL;
		}
	}
	lr_shm_free(&p->shm);
}

/* The eventfds and id FIFO of ring vr, and for tx with zero copy the
 * mbuf of each descriptor; 0 or -errno. */
static int
ring_alloc(struct vu_vring *vr, uint32_t num, int zc)
{
	vr->kick_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	vr->call_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	/* the id FIFO, then chain_len and chain_next (tx) */
	vr->free_ids = calloc(3 * (size_t)num, sizeof(uint16_t));
	vr->tx_mbuf = zc ? calloc(num, sizeof(vr->tx_mbuf[0])) : NULL;
	if (vr->kick_fd < 0 || vr->call_fd < 0 || vr->free_ids == NULL ||
	    (zc && vr->tx_mbuf == NULL))
		return -ENOMEM;
	vr->chain_len = vr->free_ids + num;
	vr->chain_next = vr->free_ids + 2 * (size_t)num;
	return 0;
}

static int
vu_configure(struct lr_eth_dev *dev)
{
	struct vu_port *p = dev->data->dev_private;
	uint16_t nrx = dev->data->nb_rx_queues, ntx = dev->data->nb_tx_queues;
	uint16_t nq = LR_MAX(nrx, ntx);
	char name[LR_ETH_NAME_MAX_LEN + 16];
	uint64_t size;
	int ret;

	if (nrx == 0 || ntx == 0 || nq > p->queues) {
		LR_LOG(ERR, PMD,
		       "%s: takes 1..%u rx and tx queues (queues=%u), got %u "
		       "rx, %u tx\n",
		       dev->data->name, p->queues, p->queues, nrx, ntx);
		return -EINVAL;
	}
	rings_free(p);
	p->nq = nq;
	size = lr_vu_layout_(p);
	snprintf(name, sizeof(name), "linerate-%s", dev->data->name);
	ret = lr_shm_create(&p->shm, name, size, LR_SHM_HUGETLB,
			    LR_SHM_SEAL_SHRINK | LR_SHM_SEAL_GROW);
	if (ret < 0) {
		LR_LOG(ERR, PMD, "%s: cannot make its %llu-byte region: %s\n",
		       dev->data->name, (unsigned long long)size,
		       lr_strerror(-ret));
		return ret;
	}
	lr_vu_zc_regions_(p);
	for (unsigned i = 0; i < nq; i++) {
		if (ring_alloc(&p->rxq[i].vr, p->qsize, 0) < 0 ||
		    ring_alloc(&p->txq[i].vr, p->qsize, p->zc_n != 0) < 0) {
			LR_LOG(ERR, PMD, "%s: no memory for its rings\n",
			       dev->data->name);
			rings_free(p);
			return -ENOMEM;
		}
	}
	return 0;
}

static int
vu_infos_get(struct lr_eth_dev *dev, struct lr_eth_dev_info *info)
{
	const struct vu_port *p = dev->data->dev_private;

	info->max_rx_queues = p->queues;
	info->max_tx_queues = p->queues;
	/* without mrg_rxbuf a frame must fit one receive buffer */
	info->max_mtu =
	    p->want_mrg ? 9000 : VU_BSIZE - LR_VIRTIO_NET_HDR_MRG_LEN - 14;
	return 0;
}

static int
vu_rx_queue_setup(struct lr_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		  int socket_id, const struct lr_eth_rxconf *conf,
		  struct lr_mempool *mp)
{
	struct vu_port *p = dev->data->dev_private;

	p->rxq[qid].mp = mp;
	dev->data->rx_queues[qid] = &p->rxq[qid];
	return 0;
}

static int
vu_tx_queue_setup(struct lr_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		  int socket_id, const struct lr_eth_txconf *conf)
{
	struct vu_port *p = dev->data->dev_private;

	dev->data->tx_queues[qid] = &p->txq[qid];
	return 0;
}

static void
vu_rx_queue_release(struct lr_eth_dev *dev, uint16_t qid)
{
	struct vu_port *p = dev->data->dev_private;

	p->rxq[qid].mp = NULL;
}

static void
vu_tx_queue_release(struct lr_eth_dev *dev, uint16_t qid)
{
}

static int
vu_start(struct lr_eth_dev *dev)
{
	struct vu_port *p = dev->data->dev_private;

	for (unsigned i = 0; i < p->nq; i++) {
		if (p->rxq[i].mp == NULL) {
			LR_LOG(ERR, PMD,
			       "%s: queue pair %u has no rx queue set up (all "
			       "%u pairs are rings of the backend)\n",
			       dev->data->name, i, p->nq);
			return -EINVAL;
		}
		p->rxq[i].port_id = p->txq[i].port_id = dev->data->port_id;
	}
	dev->rx_pkt_burst =
	    p->packed ? lr_vu_rx_burst_packed_ : lr_vu_rx_burst_;
	dev->tx_pkt_burst =
	    p->packed ? lr_vu_tx_burst_packed_ : lr_vu_tx_burst_;
	return lr_vu_start_(p);
}

static int
vu_stop(struct lr_eth_dev *dev)
{
	lr_vu_stop_(dev->data->dev_private);
	return 0;
}

static int
vu_close(struct lr_eth_dev *dev)
{
	struct vu_port *p = dev->data->dev_private;

	lr_vu_stop_(p);
	rings_free(p);
	lr_unix_close_fds(&p->wake_fd, 1);
	pthread_mutex_destroy(&p->lock);
	free(p);
	dev->data->dev_private = NULL;
	return 0;
}

static int
vu_link_update(struct lr_eth_dev *dev, int wait)
{
	struct vu_port *p = dev->data->dev_private;

	dev->data->link.link_status =
	    (uint8_t)(dev->data->started && atomic_load(&p->link));
	dev->data->link.link_speed = 10000;
	dev->data->link.link_duplex = 1;
	dev->data->link.link_autoneg = 0;
	return 0;
}

static int
vu_stats_get(struct lr_eth_dev *dev, struct lr_eth_stats *s)
{
	const struct vu_port *p = dev->data->dev_private;

	for (unsigned q = 0; q < VU_MAXQ; q++)
		lr_eth_stats_add_queue(s, q, &p->rxq[q].c, &p->txq[q].c);
	return 0;
}

/* Port-wide xstats, then per queue pair the names of per_q. */
static const char *const port_xstats[] = {
    "connects",		 "disconnects",	      "tx_link_down_drops",
    "tx_too_long_drops", "tx_offload_errors",  "tx_zero_copy",
};
static const char *const per_q[] = {
    "rx_q%u_kicks", "rx_q%u_calls",	"tx_q%u_kicks",
    "tx_q%u_calls", "tx_q%u_ring_full",
};
#define N_PORT LR_DIM(port_xstats)
#define N_PERQ LR_DIM(per_q)

static int
vu_xstats_names(struct lr_eth_dev *dev, struct lr_eth_xstat_name *names,
		unsigned n)
{
	const struct vu_port *p = dev->data->dev_private;
	unsigned total = N_PORT + N_PERQ * p->queues;

	for (unsigned i = 0; names != NULL && i < total && i < n; i++) {
		if (i < N_PORT)
			snprintf(names[i].name, sizeof(names[i].name), "%s",
				 port_xstats[i]);
		else
			snprintf(names[i].name, sizeof(names[i].name),
				 per_q[(i - N_PORT) % N_PERQ],
				 (i - N_PORT) / N_PERQ);
	}
	return (int)total;
}

static int
vu_xstats_get(struct lr_eth_dev *dev, uint64_t *values, unsigned n)
{
	struct vu_port *p = dev->data->dev_private;
	uint64_t v[N_PORT + N_PERQ * VU_MAXQ] = {0};

	pthread_mutex_lock(&p->lock);
	lr_vu_calls_collect_(p);
	v[0] = p->connects;
	v[1] = p->disconnects;
	pthread_mutex_unlock(&p->lock);
	for (unsigned q = 0; q < p->queues; q++) {
		const struct vu_queue *rx = &p->rxq[q], *tx = &p->txq[q];
		uint64_t *w = &v[N_PORT + N_PERQ * q];

		v[2] += lr_counter_read(&tx->link_down);
		v[3] += lr_counter_read(&tx->too_long);
		v[4] += lr_counter_read(&tx->offload_errors);
		v[5] += lr_counter_read(&tx->zero_copy);
		w[0] = lr_counter_read(&rx->kicks);
		w[1] = lr_counter_read(&rx->calls);
		w[2] = lr_counter_read(&tx->kicks);
		w[3] = lr_counter_read(&tx->calls);
		w[4] = lr_counter_read(&tx->ring_full);
	}
	return lr_eth_xstats_values_fill(values, n, v,
					 N_PORT + N_PERQ * p->queues);
}

const struct lr_eth_dev_ops lr_vu_ops_ = {
    .dev_configure = vu_configure,
    .dev_start = vu_start,
    .dev_stop = vu_stop,
    .dev_close = vu_close,
    .dev_infos_get = vu_infos_get,
    .rx_queue_setup = vu_rx_queue_setup,
    .tx_queue_setup = vu_tx_queue_setup,
    .rx_queue_release = vu_rx_queue_release,
    .tx_queue_release = vu_tx_queue_release,
    .link_update = vu_link_update,
    .stats_get = vu_stats_get,
    .xstats_get_names = vu_xstats_names,
    .xstats_get = vu_xstats_get,
};
