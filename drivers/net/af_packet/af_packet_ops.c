/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * af_packet_ops.c - net_af_packet's ethdev operations (af_packet_private.h
 * says which file does what): start (receive sockets bound, fanout group
 * joined, burst functions chosen), stop, close, link, promiscuous mode,
 * MTU, stats and xstats.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/if_packet.h>
#include <linux/sockios.h>

#include "af_packet_private.h"
#include "lr_eth_iface.h"
#include "lr_ethdev_driver.h"
#include "lr_log.h"
#include "lr_mbuf.h"

/* ---------------------------------------------------------------------
 * Control path
 */

static int
afp_infos_get(struct lr_eth_dev *dev, struct lr_eth_dev_info *info)
{
	struct afp_port *pp = dev->data->dev_private;
	uint32_t room = pp->framesz - AFP_RX_MAC_OFF;

	info->max_rx_queues = (uint16_t)pp->qpairs;
	info->max_tx_queues = (uint16_t)pp->qpairs;
	info->max_mtu = (uint16_t)LR_MIN(room - ETH_HLEN - AFP_VLAN_HLEN,
					 (uint32_t)UINT16_MAX);
	info->min_mtu = 68;
	/* Transmit: each offload done by the kernel (vnet=1) or here. */
	info->tx_offload_capa = LR_ETH_TX_OFFLOAD_ALL;
	if (pp->vnet)
		info->rx_offload_capa =
		    LR_ETH_RX_OFFLOAD_CKSUM_PARTIAL | LR_ETH_RX_OFFLOAD_TCP_LRO;
	return 0;
}

static int
afp_rx_queue_setup(struct lr_eth_dev *dev, uint16_t q, uint16_t nb_desc,
		   int socket_id, const struct lr_eth_rxconf *conf,
		   struct lr_mempool *mp)
{
	struct afp_port *pp = dev->data->dev_private;
	struct afp_rxq *rxq = &pp->rxq[q];

	rxq->mp = mp;
	rxq->port_id = dev->data->port_id;
	dev->data->rx_queues[q] = rxq;
	return 0;
}

static int
afp_tx_queue_setup(struct lr_eth_dev *dev, uint16_t q, uint16_t nb_desc,
		   int socket_id, const struct lr_eth_txconf *conf)
{
	struct afp_port *pp = dev->data->dev_private;

	dev->data->tx_queues[q] = &pp->txq[q];
	return 0;
}

static int
afp_dev_stop(struct lr_eth_dev *dev)
{
	struct afp_port *pp = dev->data->dev_private;

	/* Closing a receive socket ends its binding and fanout membership;
	 * the next start opens a fresh one. */
	for (uint16_t q = 0; q < pp->qpairs; q++)
		if (pp->rxq[q].bound)
			lr_af_packet_rxq_close_(&pp->rxq[q]);
	return 0;
}

static int
afp_dev_start(struct lr_eth_dev *dev)
{
	struct afp_port *pp = dev->data->dev_private;
	struct lr_eth_dev_data *d = dev->data;
	struct ifreq ifr;
	int ret;

	for (uint16_t q = 0; q < d->nb_rx_queues; q++) {
		if (pp->rxq[q].fd < 0) {
			ret = lr_af_packet_rxq_open_(pp, q);
			if (ret < 0)
				goto stop;
		}
		ret = lr_af_packet_rxq_bind_(pp, q);
		if (ret < 0)
			goto stop;
	}
	if (d->nb_rx_queues > 1) {
		ret = lr_af_packet_fanout_join_(pp, d->nb_rx_queues);
		if (ret < 0)
			goto stop;
	}
	if (d->promiscuous) {
		ret = lr_af_packet_promisc_set_(pp, 1);
		if (ret < 0)
			goto stop;
	}
	/* The longest frame the kernel accepts: the MTU plus the Ethernet
	 * header and one VLAN tag, within a ring frame. */
	uint32_t max_len = pp->framesz - (uint32_t)AFP_TX_DATA_OFF -
			   (pp->vnet ? AFP_VNET_HLEN : 0);

	if (lr_af_packet_iface_ioctl_(pp, SIOCGIFMTU, &ifr) == 0)
		max_len = LR_MIN(max_len, (uint32_t)ifr.ifr_mtu + ETH_HLEN +
					      AFP_VLAN_HLEN);
	for (uint16_t q = 0; q < d->nb_tx_queues; q++)
		pp->txq[q].max_len = max_len;
	dev->rx_pkt_burst =
	    pp->tpv2 ? lr_af_packet_rx_burst_v2_ : lr_af_packet_rx_burst_;
	dev->tx_pkt_burst = lr_af_packet_tx_burst_;
	return 0;

stop:
	afp_dev_stop(dev);
	return ret;
}

/* Close every socket of pp and free it (af_packet_private.h). */
void
lr_af_packet_port_free_(struct afp_port *pp)
{
	for (uint16_t q = 0; q < LR_MAX_QUEUES_PER_PORT; q++) {
		lr_af_packet_rxq_close_(&pp->rxq[q]);
		lr_af_packet_txq_close_(&pp->txq[q]);
	}
	if (pp->ctl_fd >= 0)
		close(pp->ctl_fd);
	free(pp);
}

static int
afp_dev_close(struct lr_eth_dev *dev)
{
	lr_af_packet_port_free_(dev->data->dev_private);
	dev->data->dev_private = NULL;
	return 0;
}

static int
afp_link_update(struct lr_eth_dev *dev, int wait)
{
	struct afp_port *pp = dev->data->dev_private;
	struct lr_eth_link link;
	int ret = lr_eth_iface_link(pp->iface, &link);

	if (ret < 0) {
		LR_LOG(ERR, PMD, "%s: link of '%s': %s\n", pp->name, pp->iface,
		       strerror(-ret));
		return ret;
	}
	link.link_status = link.link_status && dev->data->started;
	dev->data->link = link;
	return 0;
}

static int
afp_promisc_enable(struct lr_eth_dev *dev)
{
	return lr_af_packet_promisc_set_(dev->data->dev_private, 1);
}

static int
afp_promisc_disable(struct lr_eth_dev *dev)
{
	return lr_af_packet_promisc_set_(dev->data->dev_private, 0);
}

static int
afp_mtu_set(struct lr_eth_dev *dev, uint16_t mtu)
{
	struct afp_port *pp = dev->data->dev_private;
	struct ifreq ifr;
	int ret;

	ifr.ifr_mtu = mtu;
	ret = lr_af_packet_iface_ioctl_(pp, SIOCSIFMTU, &ifr);
	if (ret < 0) {
		LR_LOG(ERR, PMD, "%s: mtu %u on '%s': %s\n", pp->name, mtu,
		       pp->iface, strerror(-ret));
		return ret;
	}
	for (uint16_t q = 0; q < pp->qpairs; q++)
		pp->txq[q].max_len =
		    LR_MIN(pp->framesz - (uint32_t)AFP_TX_DATA_OFF -
			       (pp->vnet ? AFP_VNET_HLEN : 0),
			   (uint32_t)mtu + ETH_HLEN + AFP_VLAN_HLEN);
	return 0;
}

/* Fold the kernel's receive counters (reset by each read) into ours. */
static void
kernel_stats_fold(struct afp_port *pp)
{
	for (uint16_t q = 0; q < pp->qpairs; q++) {
		struct afp_rxq *rxq = &pp->rxq[q];
		struct tpacket_stats_v3 st;
		socklen_t len = sizeof(st);

		if (rxq->fd >= 0 &&
		    getsockopt(rxq->fd, SOL_PACKET, PACKET_STATISTICS, &st,
			       &len) == 0) {
			lr_counter_add(&rxq->c.missed, st.tp_drops);
			lr_counter_add(&rxq->freeze_q, st.tp_freeze_q_cnt);
		}
	}
}

static int
afp_stats_get(struct lr_eth_dev *dev, struct lr_eth_stats *s)
{
	struct afp_port *pp = dev->data->dev_private;

	kernel_stats_fold(pp);
	for (uint16_t q = 0; q < LR_MAX_QUEUES_PER_PORT; q++)
		lr_eth_stats_add_queue(s, q, &pp->rxq[q].c, &pp->txq[q].c);
	return 0;
}

static const char *const afp_xstat_names[] = {
    "rx_kernel_drops",	  "rx_kernel_freeze_queue", "rx_truncated_frames",
    "rx_runts",		  "tx_ring_full",	    "tx_send_errors",
    "rx_gso_unsupported", "tx_offload_errors",	    "tx_tso_sw",
};

static int
afp_xstats_get(struct lr_eth_dev *dev, uint64_t *values, unsigned n)
{
	struct afp_port *pp = dev->data->dev_private;
	uint64_t v[LR_DIM(afp_xstat_names)] = {0};

	kernel_stats_fold(pp);
	for (uint16_t q = 0; q < LR_MAX_QUEUES_PER_PORT; q++) {
		const struct afp_rxq *rxq = &pp->rxq[q];
		const struct afp_txq *txq = &pp->txq[q];

		v[0] += lr_counter_read(&rxq->c.missed);
		v[1] += lr_counter_read(&rxq->freeze_q);
		v[2] += lr_counter_read(&rxq->truncated);
		v[3] += lr_counter_read(&rxq->runts);
		v[4] += lr_counter_read(&txq->ring_full);
		v[5] += lr_counter_read(&txq->send_errors);
		v[6] += lr_counter_read(&rxq->gso_unsupported);
		v[7] += lr_counter_read(&txq->offload_errors);
		v[8] += lr_counter_read(&txq->tso_sw);
	}
	return lr_eth_xstats_values_fill(values, n, v, LR_DIM(v));
}

/* The ethdev operations of an af_packet port (af_packet_private.h). */
const struct lr_eth_dev_ops lr_af_packet_ops_ = {
    .dev_start = afp_dev_start,
    .dev_stop = afp_dev_stop,
    .dev_close = afp_dev_close,
    .dev_infos_get = afp_infos_get,
    .rx_queue_setup = afp_rx_queue_setup,
    .tx_queue_setup = afp_tx_queue_setup,
    .link_update = afp_link_update,
    .promiscuous_enable = afp_promisc_enable,
    .promiscuous_disable = afp_promisc_disable,
    .mtu_set = afp_mtu_set,
    .stats_get = afp_stats_get,
    .xstats_get = afp_xstats_get,
    .xstat_names = afp_xstat_names,
    .nb_xstat_names = LR_DIM(afp_xstat_names),
};
