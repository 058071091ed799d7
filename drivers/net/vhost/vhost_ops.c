/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_vhost's ethdev operations: configure (queue counts within the
 * queue pairs offered), queue setup (rx queue q reads ring 2q + 1, tx
 * queue q writes ring 2q), start (the control thread; a server listens),
 * stop (the connection ended, the socket file removed), close, link from
 * the rings, statistics and per-queue xstats. Each takes the port's lock
 * for the control state; none runs on the datapath.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "lr_ethdev_driver.h"
#include "lr_log.h"
#include "vhost_private.h"

static int
vhost_configure(struct lr_eth_dev *dev)
{
	struct vh_port *p = dev->data->dev_private;
	unsigned nrx = dev->data->nb_rx_queues, ntx = dev->data->nb_tx_queues;

	if (nrx == 0 || ntx == 0 || nrx > p->qp || ntx > p->qp) {
		LR_LOG(ERR, PMD,
		       "%s: %u rx and %u tx queues: each must be 1..%u (the "
		       "queues= devarg)\n",
		       p->name, nrx, ntx, p->qp);
		return -EINVAL;
	}
	return 0;
}

static int
vhost_infos_get(struct lr_eth_dev *dev, struct lr_eth_dev_info *info)
{
	const struct vh_port *p = dev->data->dev_private;

	info->max_rx_queues = (uint16_t)p->qp;
	info->max_tx_queues = (uint16_t)p->qp;
	info->max_mtu = 9000;
	info->tx_offload_capa = LR_ETH_TX_OFFLOAD_ALL;
	return 0;
}

static int
vhost_rx_queue_setup(struct lr_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		     int socket_id, const struct lr_eth_rxconf *conf,
		     struct lr_mempool *mp)
{
	struct vh_port *p = dev->data->dev_private;
	struct vh_ring *r = &p->ring[2 * qid + 1];

	r->mp = mp;
	r->port_id = dev->data->port_id;
	r->qid = qid;
	dev->data->rx_queues[qid] = r;
	return 0;
}

static int
vhost_tx_queue_setup(struct lr_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		     int socket_id, const struct lr_eth_txconf *conf)
{
	struct vh_port *p = dev->data->dev_private;
	struct vh_ring *r = &p->ring[2 * qid];

	r->port_id = dev->data->port_id;
	r->qid = qid;
	dev->data->tx_queues[qid] = r;
	return 0;
}

static void
vhost_rx_queue_release(struct lr_eth_dev *dev, uint16_t qid)
{
	struct vh_port *p = dev->data->dev_private;

	p->ring[2 * qid + 1].mp = NULL;
}

static void
vhost_tx_queue_release(struct lr_eth_dev *dev, uint16_t qid)
{
}

static int
vhost_start(struct lr_eth_dev *dev)
{
	struct vh_port *p = dev->data->dev_private;
	int rc;

	for (unsigned q = 0; q < dev->data->nb_rx_queues; q++)
		if (p->ring[2 * q + 1].mp == NULL) {
			LR_LOG(ERR, PMD, "%s: rx queue %u has no mempool\n",
			       p->name, q);
			return -EINVAL;
		}
	pthread_mutex_lock(&p->lk);
	p->nb_rxq = dev->data->nb_rx_queues;
	p->nb_txq = dev->data->nb_tx_queues;
	rc = lr_vhost_ctl_start_(p);
	if (rc == 0) {
		p->started = 1;
		lr_vhost_rings_update_(p);
	}
	pthread_mutex_unlock(&p->lk);
	dev->rx_pkt_burst = lr_vhost_rx_burst_;
	dev->tx_pkt_burst = lr_vhost_tx_burst_;
	return rc;
}

static int
vhost_stop(struct lr_eth_dev *dev)
{
	struct vh_port *p = dev->data->dev_private;

	pthread_mutex_lock(&p->lk);
	p->started = 0;
	lr_vhost_rings_update_(p);
	pthread_mutex_unlock(&p->lk);
	lr_vhost_ctl_stop_(p);
	return 0;
}

static int
vhost_close(struct lr_eth_dev *dev)
{
	struct vh_port *p = dev->data->dev_private;

	vhost_stop(dev);
	lr_vhost_port_free_(p);
	dev->data->dev_private = NULL;
	return 0;
}

static int
vhost_link_update(struct lr_eth_dev *dev, int wait)
{
	struct vh_port *p = dev->data->dev_private;

	pthread_mutex_lock(&p->lk);
	dev->data->link.link_status = (uint8_t)(p->started && p->up);
	pthread_mutex_unlock(&p->lk);
	dev->data->link.link_speed = 10000;
	dev->data->link.link_duplex = 1;
	dev->data->link.link_autoneg = 0;
	return 0;
}

static int
vhost_stats_get(struct lr_eth_dev *dev, struct lr_eth_stats *s)
{
	const struct vh_port *p = dev->data->dev_private;

	for (unsigned q = 0; q < p->qp; q++)
		lr_eth_stats_add_queue(s, q, &p->ring[2 * q + 1].c,
				       &p->ring[2 * q].c);
	return 0;
}

/* Per queue and direction, then the port's. */
static const char *const q_names[] = {"kicks",	  "calls",	    "ring_full",
				      "bad_desc", "offload_errors", "tso_sw",
				      "flushed"};
static const char *const port_names[] = {"connects", "disconnects",
					 "bad_messages"};
#define NQ LR_DIM(q_names)

static int
vhost_xstats_get_names(struct lr_eth_dev *dev, struct lr_eth_xstat_name *names,
		       unsigned n)
{
	const struct vh_port *p = dev->data->dev_private;
	unsigned total = 2 * p->qp * NQ + LR_DIM(port_names), k = 0;

	for (unsigned q = 0; q < p->qp; q++)
		for (unsigned d = 0; d < 2; d++)
			for (unsigned i = 0; i < NQ; i++, k++)
				if (names != NULL && k < n)
					snprintf(names[k].name,
						 sizeof(names[k].name),
						 "%s_q%u_%s", d ? "tx" : "rx",
						 q, q_names[i]);
	for (unsigned i = 0; i < LR_DIM(port_names); i++, k++)
		if (names != NULL && k < n)
			snprintf(names[k].name, sizeof(names[k].name), "%s",
				 port_names[i]);
	return (int)total;
}

static int
vhost_xstats_get(struct lr_eth_dev *dev, uint64_t *values, unsigned n)
{
	struct vh_port *p = dev->data->dev_private;
	uint64_t v[2 * VH_MAXQP * NQ + LR_DIM(port_names)];
	unsigned k = 0;

	for (unsigned q = 0; q < p->qp; q++)
		for (unsigned d = 0; d < 2; d++) {
			const struct vh_ring *r = &p->ring[2 * q + (d ? 0 : 1)];

			v[k++] = lr_counter_read(&r->kicks);
			v[k++] = lr_counter_read(&r->calls);
			v[k++] = lr_counter_read(&r->ring_full);
			v[k++] = lr_counter_read(&r->bad_desc);
			v[k++] = lr_counter_read(&r->offload_errors);
			v[k++] = lr_counter_read(&r->tso_sw);
			v[k++] = lr_counter_read(&r->flushed);
		}
	pthread_mutex_lock(&p->lk);
	v[k++] = p->nb_connects;
	v[k++] = p->nb_disconnects;
	v[k++] = p->bad_msgs;
	pthread_mutex_unlock(&p->lk);
	return lr_eth_xstats_values_fill(values, n, v, k);
}

const struct lr_eth_dev_ops lr_vhost_ops_ = {
    .dev_configure = vhost_configure,
    .dev_start = vhost_start,
    .dev_stop = vhost_stop,
    .dev_close = vhost_close,
    .dev_infos_get = vhost_infos_get,
    .rx_queue_setup = vhost_rx_queue_setup,
    .tx_queue_setup = vhost_tx_queue_setup,
    .rx_queue_release = vhost_rx_queue_release,
    .tx_queue_release = vhost_tx_queue_release,
    .link_update = vhost_link_update,
    .stats_get = vhost_stats_get,
    .xstats_get_names = vhost_xstats_get_names,
    .xstats_get = vhost_xstats_get,
};
