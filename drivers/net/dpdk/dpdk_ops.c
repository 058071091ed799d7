/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpdk_ops.c - net_dpdk's control path (dpdk_private.h says which file
 * does what): the port's pools (DPDK's receive pool on linerate's memory
 * when it can be, the headers' pools) and the ethdev operations mapped to
 * DPDK's ethdev calls.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mbuf_pool_ops.h>
#include <rte_memory.h>
#include <rte_mempool.h>

#include "dpdk_private.h"
#include "lr_ethdev_driver.h"
#include "lr_mbuf.h"
#include "lr_memory.h"
#include "lr_pagealloc.h"

static const char *const own_xstats[] = {
    "rx_header_nombuf",
    "tx_attached",
    "tx_no_header",
    "tx_prepare_rejected",
};

/* A DPDK pool's memory chunk from linerate's page allocator: freed with
 * the pool. */
static void
lr_chunk_free(struct rte_mempool_memhdr *memhdr, void *opaque)
{
	(void)memhdr;
	lr_free_pages(opaque, LR_PAGEBLOCK_ORDER);
}

/* rte_pktmbuf_pool_create() on linerate's memory: blocks of one 2 MiB
 * pageblock from its page allocator (hugepages when linerate has them),
 * objects packed without regard to 4 KiB page boundaries (only for a
 * DPDK that runs IOVA as VA and drives no device's DMA: vdevs); NULL
 * with rte_errno when linerate's memory runs short. */
static struct rte_mempool *
pool_on_lr(const char *name, unsigned n, unsigned priv_size, unsigned data_room,
	   int socket)
{
	struct rte_pktmbuf_pool_private pp = {
	    .mbuf_data_room_size = (uint16_t)data_room,
	    .mbuf_priv_size = (uint16_t)priv_size,
	};
	size_t chunk = LR_PAGE_SIZE << LR_PAGEBLOCK_ORDER;
	struct rte_mempool *mp = rte_mempool_create_empty(
	    name, n, sizeof(struct rte_mbuf) + priv_size + data_room, 256,
	    sizeof(pp), socket, RTE_MEMPOOL_F_NO_IOVA_CONTIG);

	if (mp == NULL)
		return NULL;
	if (rte_mempool_set_ops_byname(mp, rte_mbuf_best_mempool_ops(), NULL) !=
	    0)
		goto fail;
	rte_pktmbuf_pool_init(mp, &pp);
	while (mp->populated_size < mp->size) {
		struct lr_page *pg =
		    lr_alloc_pages(LR_SOCKET_ID_ANY, LR_PAGEBLOCK_ORDER, 0);
		int rc;

		if (pg == NULL) {
			rte_errno = ENOMEM;
			goto fail;
		}
		rc = rte_mempool_populate_virt(mp, lr_page_address(pg), chunk,
					       LR_PAGE_SIZE, lr_chunk_free, pg);
		if (rc <= 0) {
			lr_free_pages(pg, LR_PAGEBLOCK_ORDER);
			rte_errno = rc < 0 ? -rc : ENOMEM;
			goto fail;
		}
	}
	rte_mempool_obj_iter(mp, rte_pktmbuf_init, NULL);
	return mp;
fail:
	rte_mempool_free(mp);
	return NULL;
}

/* A DPDK mbuf pool for the port: on linerate's memory when DPDK's EAL
 * has no hugepages (the vdev default: DPDK would put each mbuf on a 4 KiB
 * page of its own), else (or when linerate's memory runs short) DPDK's
 * rte_pktmbuf_pool_create(). */
static struct rte_mempool *
port_pool(const char *who, const char *name, unsigned n, unsigned priv_size,
	  unsigned data_room, int socket)
{
	struct rte_mempool *mp;

	if (!rte_eal_has_hugepages() && rte_eal_iova_mode() == RTE_IOVA_VA) {
		mp = pool_on_lr(name, n, priv_size, data_room, socket);
		if (mp != NULL)
			return mp;
		LR_LOG(INFO, PMD,
		       "%s: DPDK mempool '%s' does not fit in linerate's "
		       "memory (%s): on DPDK's own\n",
		       who, name, rte_strerror(rte_errno));
	}
	return rte_pktmbuf_pool_create(name, n, 256, (uint16_t)priv_size,
				       (uint16_t)data_room, socket);
}

/* Pools of the port for nb_rxq rx queues (created at the first
 * configure); 0 or a negative errno after logging. */
static int
pools_create(struct lr_eth_dev *dev, struct dpdk_private *p)
{
	const char *name = dev->data->name;
	unsigned n = p->mbufs
			 ? p->mbufs
			 : 4096u * LR_MAX(dev->data->nb_rx_queues, 1) + 1024u;
	int socket = rte_eth_dev_socket_id(p->pid);
	char pn[RTE_MEMPOOL_NAMESIZE], bn[LR_MEMPOOL_NAMESIZE];
	struct lr_pktmbuf_pool_private pp = {
	    .mbuf_data_room_size = RTE_MBUF_DEFAULT_BUF_SIZE,
	    .mbuf_priv_size = sizeof(void *),
	    .flags = LR_PKTMBUF_POOL_F_ATTACHED,
	};

	if (p->rx_pool != NULL)
		return 0;
	if (socket < 0)
		socket = SOCKET_ID_ANY;
	snprintf(pn, sizeof(pn), "lr_rx_%u", dev->data->port_id);
	p->rx_pool = port_pool(name, pn, n, RX_PRIV_SIZE,
			       RTE_MBUF_DEFAULT_BUF_SIZE, socket);
	if (p->rx_pool == NULL)
		goto fail;
	snprintf(pn, sizeof(pn), "lr_ext_%u", dev->data->port_id);
	p->ext_pool =
	    port_pool(name, pn, n,
		      RTE_ALIGN_CEIL(sizeof(struct rte_mbuf_ext_shared_info),
				     RTE_MBUF_PRIV_ALIGN),
		      0, socket);
	if (p->ext_pool == NULL)
		goto fail;
	p->hdrs = lr_mempool_create_ops(
	    name, n, sizeof(struct lr_mbuf) + sizeof(void *), 0,
	    sizeof(struct lr_pktmbuf_pool_private), lr_dpdk_hdr_init_, NULL,
	    LR_SOCKET_ID_ANY, 0, HDR_OPS_NAME);
	if (p->hdrs == NULL) {
		LR_LOG(ERR, PMD, "%s: cannot create its %u mbuf headers: %s\n",
		       name, n, strerror(lr_errno));
		return -ENOMEM;
	}
	memcpy(lr_mempool_get_priv(p->hdrs), &pp, sizeof(pp));
	snprintf(bn, sizeof(bn), "B_%.*s", LR_MEMPOOL_NAMESIZE - 3, name);
	p->bound = lr_mempool_create_ops(
	    bn, n, sizeof(struct lr_mbuf) + sizeof(void *), 0,
	    sizeof(struct lr_pktmbuf_pool_private), lr_dpdk_hdr_init_, NULL,
	    LR_SOCKET_ID_ANY, 0, BOUND_OPS_NAME);
	if (p->bound == NULL ||
	    lr_dpdk_bind_headers_(p->bound, p->rx_pool, n) != 0) {
		LR_LOG(ERR, PMD,
		       "%s: cannot create or bind the %u headers of its "
		       "receive pool: %s\n",
		       name, n, strerror(p->bound ? ENOMEM : lr_errno));
		return -ENOMEM;
	}
	memcpy(lr_mempool_get_priv(p->bound), &pp, sizeof(pp));
	return 0;
fail:
	LR_LOG(ERR, PMD,
	       "%s: cannot create DPDK mempool '%s' of %u mbufs: %s\n", name,
	       pn, n, rte_strerror(rte_errno));
	return -ENOMEM;
}

static void
pools_free(struct lr_eth_dev *dev, struct dpdk_private *p)
{
	unsigned out = (p->hdrs ? lr_mempool_in_use_count(p->hdrs) : 0) +
		       (p->bound ? lr_mempool_in_use_count(p->bound) : 0);

	if (out != 0) {
		LR_LOG(ERR, PMD,
		       "%s: closed while %u of its received packets are "
		       "still out: its DPDK pools are left behind\n",
		       dev->data->name, out);
		return;
	}
	lr_mempool_free(p->hdrs);
	lr_mempool_free(p->bound); /* before the DPDK pool it counts */
	rte_mempool_free(p->rx_pool);
	rte_mempool_free(p->ext_pool);
	p->hdrs = NULL;
	p->bound = NULL;
	p->rx_pool = NULL;
	p->ext_pool = NULL;
}

/* linerate transmit capabilities of DPDK's tx offload capabilities. */
static uint64_t
tx_capa(uint64_t d)
{
	uint64_t c = 0;

	if (d & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM)
		c |= LR_ETH_TX_OFFLOAD_IPV4_CKSUM;
	if (d & RTE_ETH_TX_OFFLOAD_TCP_CKSUM)
		c |= LR_ETH_TX_OFFLOAD_TCP_CKSUM;
	if (d & RTE_ETH_TX_OFFLOAD_UDP_CKSUM)
		c |= LR_ETH_TX_OFFLOAD_UDP_CKSUM;
	if ((d & RTE_ETH_TX_OFFLOAD_TCP_TSO) &&
	    (d & RTE_ETH_TX_OFFLOAD_TCP_CKSUM))
		c |= LR_ETH_TX_OFFLOAD_TCP_TSO;
	return c;
}

static int
dpdk_configure(struct lr_eth_dev *dev)
{
	struct dpdk_private *p = dev->data->dev_private;
	struct rte_eth_dev_info di;
	struct rte_eth_conf conf;
	const uint64_t txo =
	    RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_CKSUM |
	    RTE_ETH_TX_OFFLOAD_UDP_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_TSO |
	    RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	int rc;

	rc = rte_eth_dev_info_get(p->pid, &di);
	if (rc != 0)
		return rc;
	memset(&conf, 0, sizeof(conf));
	if (dev->data->nb_rx_queues > 1 && di.flow_type_rss_offloads) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf =
		    di.flow_type_rss_offloads &
		    (RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP);
	}
	p->rx_offloads = di.rx_offload_capa & (RTE_ETH_RX_OFFLOAD_RSS_HASH |
					       RTE_ETH_RX_OFFLOAD_CHECKSUM |
					       RTE_ETH_RX_OFFLOAD_SCATTER);
	if (conf.rxmode.mq_mode != RTE_ETH_MQ_RX_RSS)
		p->rx_offloads &= ~RTE_ETH_RX_OFFLOAD_RSS_HASH;
	p->tx_offloads = di.tx_offload_capa & txo;
	conf.rxmode.offloads = p->rx_offloads;
	conf.txmode.offloads = p->tx_offloads;
	rc = rte_eth_dev_configure(p->pid, dev->data->nb_rx_queues,
				   dev->data->nb_tx_queues, &conf);
	if (rc != 0) {
		LR_LOG(ERR, PMD,
		       "%s: DPDK port %u refused %u rx and %u tx queues: %s\n",
		       dev->data->name, p->pid, dev->data->nb_rx_queues,
		       dev->data->nb_tx_queues, rte_strerror(-rc));
		return rc;
	}
	p->dpdk_configured = 1;
	return pools_create(dev, p);
}

static int
dpdk_infos_get(struct lr_eth_dev *dev, struct lr_eth_dev_info *info)
{
	struct dpdk_private *p = dev->data->dev_private;
	struct rte_eth_dev_info di;
	int rc = rte_eth_dev_info_get(p->pid, &di);

	if (rc != 0)
		return rc;
	info->max_rx_queues = LR_MIN(di.max_rx_queues, LR_MAX_QUEUES_PER_PORT);
	info->max_tx_queues = LR_MIN(di.max_tx_queues, LR_MAX_QUEUES_PER_PORT);
	info->min_mtu = di.min_mtu;
	info->max_mtu = di.max_mtu;
	info->min_rx_desc = di.rx_desc_lim.nb_min;
	info->max_rx_desc = di.rx_desc_lim.nb_max;
	info->min_tx_desc = di.tx_desc_lim.nb_min;
	info->max_tx_desc = di.tx_desc_lim.nb_max;
	info->socket_id = rte_eth_dev_socket_id(p->pid);
	info->tx_offload_capa = tx_capa(di.tx_offload_capa);
	return 0;
}

static int
dpdk_rxq_setup(struct lr_eth_dev *dev, uint16_t q, uint16_t nb_desc,
	       int socket_id, const struct lr_eth_rxconf *conf,
	       struct lr_mempool *mp)
{
	struct dpdk_private *p = dev->data->dev_private;
	struct dpdk_rxq *rq = &p->rxq[q];
	uint16_t nd = nb_desc, nt = 0;
	struct rte_eth_dev_info di;
	struct rte_eth_rxconf rc_conf;
	int rc;

	rte_eth_dev_adjust_nb_rx_tx_desc(p->pid, &nd, &nt);
	rc = rte_eth_dev_info_get(p->pid, &di);
	if (rc != 0)
		return rc;
	rc_conf = di.default_rxconf;
	rc_conf.offloads = p->rx_offloads;
	rc = rte_eth_rx_queue_setup(
	    p->pid, q, nd, socket_id < 0 ? SOCKET_ID_ANY : (unsigned)socket_id,
	    &rc_conf, p->rx_pool);
	if (rc != 0) {
		LR_LOG(ERR, PMD, "%s: DPDK rx queue %u (%u descriptors): %s\n",
		       dev->data->name, q, nd, rte_strerror(-rc));
		return rc;
	}
	rq->pid = p->pid;
	rq->qid = q;
	rq->port = dev->data->port_id;
	rq->rearm = lr_mbuf_rearm_word(0, rq->port);
	rq->set = (v2u64){rq->rearm, 0};
	rq->keep =
	    (v2u64){lr_mbuf_rearm_word(0xffff, 0) & ~lr_mbuf_rearm_word(0, 0),
		    RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_RSS_HASH};
	rq->rx_pool = p->rx_pool;
	rq->hdrs = p->hdrs;
	dev->data->rx_queues[q] = rq;
	return 0;
}

static int
dpdk_txq_setup(struct lr_eth_dev *dev, uint16_t q, uint16_t nb_desc,
	       int socket_id, const struct lr_eth_txconf *conf)
{
	struct dpdk_private *p = dev->data->dev_private;
	struct dpdk_txq *tq = &p->txq[q];
	uint16_t nd = 0, nt = nb_desc;
	struct rte_eth_dev_info di;
	struct rte_eth_txconf tc;
	int rc;

	rte_eth_dev_adjust_nb_rx_tx_desc(p->pid, &nd, &nt);
	rc = rte_eth_dev_info_get(p->pid, &di);
	if (rc != 0)
		return rc;
	tc = di.default_txconf;
	tc.offloads = p->tx_offloads;
	rc = rte_eth_tx_queue_setup(
	    p->pid, q, nt, socket_id < 0 ? SOCKET_ID_ANY : (unsigned)socket_id,
	    &tc);
	if (rc != 0) {
		LR_LOG(ERR, PMD, "%s: DPDK tx queue %u (%u descriptors): %s\n",
		       dev->data->name, q, nt, rte_strerror(-rc));
		return rc;
	}
	tq->pid = p->pid;
	tq->qid = q;
	tq->use_va = rte_eal_iova_mode() == RTE_IOVA_VA;
	tq->prepare = (p->tx_offloads & ~RTE_ETH_TX_OFFLOAD_MULTI_SEGS) != 0;
	tq->ext_pool = p->ext_pool;
	dev->data->tx_queues[q] = tq;
	return 0;
}

static int
dpdk_start(struct lr_eth_dev *dev)
{
	struct dpdk_private *p = dev->data->dev_private;
	int rc = rte_eth_dev_start(p->pid);

	if (rc != 0) {
		LR_LOG(ERR, PMD, "%s: DPDK port %u does not start: %s\n",
		       dev->data->name, p->pid, rte_strerror(-rc));
		return rc;
	}
	dev->rx_pkt_burst = lr_dpdk_rx_;
	dev->tx_pkt_burst = lr_dpdk_tx_;
	return 0;
}

static int
dpdk_stop(struct lr_eth_dev *dev)
{
	struct dpdk_private *p = dev->data->dev_private;

	return rte_eth_dev_stop(p->pid);
}

static int
dpdk_close(struct lr_eth_dev *dev)
{
	struct dpdk_private *p = dev->data->dev_private;

	/* lib/ethdev stopped the port already when it was started. */
	if (p->probed) {
		rte_eth_dev_close(p->pid);
		if (p->rdev != NULL)
			rte_dev_remove(p->rdev);
	}
	pools_free(dev, p);
	lr_dpdk_pid_taken_[p->pid] = 0;
	free(p->dxstats);
	free(p);
	dev->data->dev_private = NULL;
	return 0;
}

static int
dpdk_link_update(struct lr_eth_dev *dev, int wait)
{
	struct dpdk_private *p = dev->data->dev_private;
	struct rte_eth_link l;
	int rc = wait ? rte_eth_link_get(p->pid, &l)
		      : rte_eth_link_get_nowait(p->pid, &l);

	if (rc != 0)
		return rc;
	dev->data->link.link_speed =
	    l.link_speed == RTE_ETH_SPEED_NUM_UNKNOWN ? 0 : l.link_speed;
	dev->data->link.link_duplex = l.link_duplex;
	dev->data->link.link_autoneg = l.link_autoneg;
	dev->data->link.link_status = l.link_status;
	return 0;
}

static int
dpdk_promisc_on(struct lr_eth_dev *dev)
{
	struct dpdk_private *p = dev->data->dev_private;

	return rte_eth_promiscuous_enable(p->pid);
}

static int
dpdk_promisc_off(struct lr_eth_dev *dev)
{
	struct dpdk_private *p = dev->data->dev_private;

	return rte_eth_promiscuous_disable(p->pid);
}

static int
dpdk_mac_set(struct lr_eth_dev *dev, const struct lr_ether_addr *mac)
{
	struct dpdk_private *p = dev->data->dev_private;
	struct rte_ether_addr a;

	memcpy(a.addr_bytes, mac->addr_bytes, sizeof(a.addr_bytes));
	return rte_eth_dev_default_mac_addr_set(p->pid, &a);
}

static int
dpdk_mtu_set(struct lr_eth_dev *dev, uint16_t mtu)
{
	struct dpdk_private *p = dev->data->dev_private;

	return rte_eth_dev_set_mtu(p->pid, mtu);
}

static int
dpdk_stats_get(struct lr_eth_dev *dev, struct lr_eth_stats *st)
{
	struct dpdk_private *p = dev->data->dev_private;
	struct lr_eth_queue_counters none = {0};
	struct rte_eth_stats d;

	for (unsigned q = 0;
	     q < LR_MAX(dev->data->nb_rx_queues, dev->data->nb_tx_queues); q++)
		lr_eth_stats_add_queue(
		    st, q, q < dev->data->nb_rx_queues ? &p->rxq[q].c : &none,
		    q < dev->data->nb_tx_queues ? &p->txq[q].c : &none);
	if (rte_eth_stats_get(p->pid, &d) == 0) {
		st->imissed += d.imissed;
		st->ierrors += d.ierrors;
		st->oerrors += d.oerrors;
		st->rx_nombuf += d.rx_nombuf;
	}
	return 0;
}

/* DPDK's xstats count, read once (it does not change for a port). */
static int
dxstats_count(struct dpdk_private *p)
{
	if (p->dxstats == NULL) {
		int n = rte_eth_xstats_get(p->pid, NULL, 0);

		if (n < 0)
			n = 0;
		p->dxstats = calloc((size_t)n + 1, sizeof(*p->dxstats));
		if (p->dxstats == NULL)
			return 0;
		p->nb_dxstats = n;
	}
	return p->nb_dxstats;
}

static int
dpdk_xstats_names(struct lr_eth_dev *dev, struct lr_eth_xstat_name *names,
		  unsigned n)
{
	struct dpdk_private *p = dev->data->dev_private;
	unsigned own = LR_DIM(own_xstats);
	int nd = dxstats_count(p);
	struct rte_eth_xstat_name *dn;

	if (names == NULL || n == 0)
		return (int)own + nd;
	for (unsigned i = 0; i < own && i < n; i++)
		snprintf(names[i].name, sizeof(names[i].name), "%s",
			 own_xstats[i]);
	dn = calloc((size_t)nd + 1, sizeof(*dn));
	if (dn == NULL)
		return -ENOMEM;
	if (rte_eth_xstats_get_names(p->pid, dn, (unsigned)nd) == nd)
		for (int i = 0; i < nd && own + (unsigned)i < n; i++)
			/* "dpdk_" + DPDK's name, cut to our name's size */
			snprintf(names[own + i].name, sizeof(names[0].name),
				 "dpdk_%.*s",
				 (int)(sizeof(names[0].name) - sizeof("dpdk_")),
				 dn[i].name);
	free(dn);
	return (int)own + nd;
}

static int
dpdk_xstats_get(struct lr_eth_dev *dev, uint64_t *values, unsigned n)
{
	struct dpdk_private *p = dev->data->dev_private;
	unsigned own = LR_DIM(own_xstats);
	int nd = dxstats_count(p);
	uint64_t v[LR_DIM(own_xstats)] = {0};

	for (unsigned q = 0; q < dev->data->nb_rx_queues; q++)
		v[0] += lr_counter_read(&p->rxq[q].hdr_nombuf);
	for (unsigned q = 0; q < dev->data->nb_tx_queues; q++) {
		v[1] += lr_counter_read(&p->txq[q].attached);
		v[2] += lr_counter_read(&p->txq[q].no_header);
		v[3] += lr_counter_read(&p->txq[q].prep_rejected);
	}
	if (values == NULL || n == 0)
		return (int)own + nd;
	lr_eth_xstats_values_fill(values, n, v, own);
	if (nd > 0 &&
	    rte_eth_xstats_get(p->pid, p->dxstats, (unsigned)nd) == nd)
		for (int i = 0; i < nd && own + (unsigned)i < n; i++)
			values[own + i] = p->dxstats[i].value;
	return (int)own + nd;
}

/* The ethdev operations of a net_dpdk port (dpdk_private.h). */
const struct lr_eth_dev_ops lr_dpdk_ops_ = {
    .dev_configure = dpdk_configure,
    .dev_start = dpdk_start,
    .dev_stop = dpdk_stop,
    .dev_close = dpdk_close,
    .dev_infos_get = dpdk_infos_get,
    .rx_queue_setup = dpdk_rxq_setup,
    .tx_queue_setup = dpdk_txq_setup,
    .link_update = dpdk_link_update,
    .promiscuous_enable = dpdk_promisc_on,
    .promiscuous_disable = dpdk_promisc_off,
    .mac_addr_set = dpdk_mac_set,
    .mtu_set = dpdk_mtu_set,
    .stats_get = dpdk_stats_get,
    .xstats_get_names = dpdk_xstats_names,
    .xstats_get = dpdk_xstats_get,
};
