/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_memif's ethdev operations: configure (queue counts; the zero-copy
 * memory of the port's mode), queue setup, start (the control thread and,
 * for a server, its listener; the burst functions of the port's role and
 * mode, chosen once), stop (the connection ended with "interface
 * stopped"), close, link state from the connection, statistics and
 * xstats. Each takes lr_memif_lock_ for the control state it reads or
 * changes; none runs on the datapath.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "lr_ethdev_driver.h"
#include "lr_log.h"
#include "memif_private.h"

static int
memif_configure(struct lr_eth_dev *dev)
{
	struct mif_port *p = dev->data->dev_private;
	int ret = 0;

	if (dev->data->nb_rx_queues == 0 || dev->data->nb_tx_queues == 0) {
		LR_LOG(ERR, PMD,
		       "%s: needs at least one rx and one tx queue (got %u "
		       "rx, %u tx)\n",
		       dev->data->name, dev->data->nb_rx_queues,
		       dev->data->nb_tx_queues);
		return -EINVAL;
	}
	pthread_mutex_lock(&lr_memif_lock_);
	if (p->zc)
		ret = lr_memif_zc_setup_(p, dev->data->port_id,
					 dev->data->nb_rx_queues,
					 dev->data->nb_tx_queues);
	if (p->zrx)
		ret = lr_memif_zrx_setup_(p, dev->data->port_id,
					  dev->data->nb_rx_queues);
	pthread_mutex_unlock(&lr_memif_lock_);
	return ret;
}

static int
memif_infos_get(struct lr_eth_dev *dev, struct lr_eth_dev_info *info)
{
	info->max_rx_queues = MIF_MAXQ;
	info->max_tx_queues = MIF_MAXQ;
	info->max_mtu = 9000;
	info->tx_offload_capa = LR_ETH_TX_OFFLOAD_ALL; /* in software */
	return 0;
}

/* Queue q, number qid of dev's port, told who it is; q. */
static struct mif_queue *
queue_setup(struct lr_eth_dev *dev, struct mif_queue *q, uint16_t qid)
{
	q->port_id = dev->data->port_id;
	q->qid = qid;
	q->p = dev->data->dev_private;
	return q;
}

static int
memif_rx_queue_setup(struct lr_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		     int socket_id, const struct lr_eth_rxconf *conf,
		     struct lr_mempool *mp)
{
	struct mif_port *p = dev->data->dev_private;
	struct mif_queue *q = queue_setup(dev, &p->rxq[qid], qid);

	q->mp = mp;
	dev->data->rx_queues[qid] = q;
	return 0;
}

static int
memif_tx_queue_setup(struct lr_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		     int socket_id, const struct lr_eth_txconf *conf)
{
	struct mif_port *p = dev->data->dev_private;

	dev->data->tx_queues[qid] = queue_setup(dev, &p->txq[qid], qid);
	return 0;
}

static void
memif_rx_queue_release(struct lr_eth_dev *dev, uint16_t qid)
{
	struct mif_port *p = dev->data->dev_private;

	p->rxq[qid].mp = NULL;
}

static void
memif_tx_queue_release(struct lr_eth_dev *dev, uint16_t qid)
{
}

/* The burst functions of p's role and mode, chosen once. */
static void
memif_set_bursts(struct lr_eth_dev *dev, const struct mif_port *p)
{
	lr_memif_bursts_(p, 1, &dev->rx_pkt_burst, &dev->tx_pkt_burst);
}

static int
memif_start(struct lr_eth_dev *dev)
{
	struct mif_port *p = dev->data->dev_private;
	int ret = 0;

	pthread_mutex_lock(&lr_memif_lock_);
	p->nb_rxq = dev->data->nb_rx_queues;
	p->nb_txq = dev->data->nb_tx_queues;
	ret = lr_memif_ctl_start_();
	if (ret == 0 && p->server)
		ret = lr_memif_listener_get_(p);
	if (ret == 0) {
		p->started = 1;
		p->retry_at = 0;
		p->waiting_logged = 0;
		memif_set_bursts(dev, p);
		lr_memif_ctl_wake_();
	}
	pthread_mutex_unlock(&lr_memif_lock_);
	return ret;
}

static int
memif_stop(struct lr_eth_dev *dev)
{
	struct mif_port *p = dev->data->dev_private;

	pthread_mutex_lock(&lr_memif_lock_);
	if (p->started) {
		lr_memif_port_disconnect_(
		    p, p->conn != NULL ? "interface stopped" : NULL, BY_STOP);
		if (p->server)
			lr_memif_listener_put_(p);
		p->started = 0;
	}
	pthread_mutex_unlock(&lr_memif_lock_);
	return 0;
}

static int
memif_close(struct lr_eth_dev *dev)
{
	struct mif_port *p = dev->data->dev_private;

	memif_stop(dev);
	lr_memif_port_free_(p);
	dev->data->dev_private = NULL;
	return 0;
}

static int
memif_link_update(struct lr_eth_dev *dev, int wait)
{
	struct mif_port *p = dev->data->dev_private;

	pthread_mutex_lock(&lr_memif_lock_);
	dev->data->link.link_status = (uint8_t)(p->started && p->up);
	pthread_mutex_unlock(&lr_memif_lock_);
	dev->data->link.link_speed = 10000;
	dev->data->link.link_duplex = 1;
	dev->data->link.link_autoneg = 0;
	return 0;
}

static int
memif_stats_get(struct lr_eth_dev *dev, struct lr_eth_stats *s)
{
	const struct mif_port *p = dev->data->dev_private;

	for (unsigned q = 0; q < MIF_MAXQ; q++)
		lr_eth_stats_add_queue(s, q, &p->rxq[q].c, &p->txq[q].c);
	return 0;
}

static const char *const memif_xstat_names[] = {
    "rx_bursts",	 "tx_bursts",	"tx_ring_full", "tx_link_down_drops",
    "connects",		 "disconnects", "tx_zc_copies", "tx_zc_sent",
    "tx_offload_errors", "rx_zc_held",
};

static int
memif_xstats_get(struct lr_eth_dev *dev, uint64_t *values, unsigned n)
{
	struct mif_port *p = dev->data->dev_private;
	uint64_t v[LR_DIM(memif_xstat_names)] = {0};

	for (unsigned q = 0; q < MIF_MAXQ; q++) {
		const struct mif_queue *rx = &p->rxq[q], *tx = &p->txq[q];

		v[0] += lr_counter_read(&rx->bursts);
		v[1] += lr_counter_read(&tx->bursts);
		v[2] += lr_counter_read(&tx->ring_full);
		v[3] += lr_counter_read(&tx->link_down);
		v[6] += lr_counter_read(&tx->zc_copies);
		v[7] += lr_counter_read(&tx->zc_sent);
		v[8] += lr_counter_read(&tx->offload_errors);
		if (rx->zrx != NULL)
			v[9] += atomic_load_explicit(&rx->zrx->out,
						     memory_order_relaxed);
	}
	pthread_mutex_lock(&lr_memif_lock_);
	v[4] = p->nb_connects;
	v[5] = p->nb_disconnects;
	pthread_mutex_unlock(&lr_memif_lock_);
	return lr_eth_xstats_values_fill(values, n, v, LR_DIM(v));
}

const struct lr_eth_dev_ops lr_memif_ops_ = {
    .dev_configure = memif_configure,
    .dev_start = memif_start,
    .dev_stop = memif_stop,
    .dev_close = memif_close,
    .dev_infos_get = memif_infos_get,
    .rx_queue_setup = memif_rx_queue_setup,
    .tx_queue_setup = memif_tx_queue_setup,
    .rx_queue_release = memif_rx_queue_release,
    .tx_queue_release = memif_tx_queue_release,
    .link_update = memif_link_update,
    .stats_get = memif_stats_get,
    .xstats_get = memif_xstats_get,
    .xstat_names = memif_xstat_names,
    .nb_xstat_names = LR_DIM(memif_xstat_names),
};
