/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpdk_mempool_ops.c - the stores of net_dpdk's header pools
 * (dpdk_private.h says which file does what): linerate headers for DPDK
 * mbufs, as lr_mempool_ops. The header pool's store is a ring, and a
 * header put back frees the DPDK mbuf it carried; the bound headers'
 * store holds nothing: each header is bound to one mbuf of the receive
 * pool and goes back into DPDK's pool with it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "dpdk_private.h"
#include "lr_mbuf.h"
#include "lr_mempool.h"
#include "lr_ring.h"

/* ------------------------------------------------------------------ */
/* The header pool's store: a ring; a header put back frees the DPDK   */
/* mbuf it carried.                                                     */

/* Free to DPDK, in bursts, the DPDK mbuf each of the n headers objs
 * carries (headers carrying none are passed over), each segment alone:
 * the linerate chain freed the others. With forget, the headers no longer
 * name them. */
static inline void
free_carried(void *const *objs, unsigned n, int forget)
{
	struct rte_mbuf *r[DPDK_BURST];
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++) {
		struct lr_mbuf *h = objs[i];
		struct rte_mbuf *x = HDR_RTE(h);

		if (x == NULL)
			continue;
		x->next = NULL;
		x->nb_segs = 1;
		if (forget)
			HDR_RTE(h) = NULL;
		r[k++] = x;
		if (k == DPDK_BURST) {
			rte_pktmbuf_free_bulk(r, k);
			k = 0;
		}
	}
	if (k != 0)
		rte_pktmbuf_free_bulk(r, k);
}

static int
hdr_alloc(struct lr_mempool *mp)
{
	char name[LR_RING_NAMESIZE];
	struct lr_ring *r;

	snprintf(name, sizeof(name), "H_%.*s", LR_RING_NAMESIZE - 3, mp->name);
	r = lr_ring_create(name, mp->size, mp->socket_id, LR_RING_F_EXACT_SZ);
	if (r == NULL)
		return -lr_errno;
	mp->pool_data = r;
	return 0;
}

static void
hdr_free(struct lr_mempool *mp)
{
	lr_ring_free(mp->pool_data);
}

static int
hdr_enqueue(struct lr_mempool *mp, void *const *objs, unsigned n)
{
	free_carried(objs, n, 1);
	return lr_ring_mp_enqueue_bulk(mp->pool_data, objs, n, NULL) == n
		   ? 0
		   : -ENOBUFS;
}

static int
hdr_dequeue(struct lr_mempool *mp, void **objs, unsigned n)
{
	return lr_ring_mc_dequeue_bulk(mp->pool_data, objs, n, NULL) == n
		   ? 0
		   : -ENOENT;
}

static unsigned
hdr_count(const struct lr_mempool *mp)
{
	return lr_ring_count(mp->pool_data);
}

static const struct lr_mempool_ops hdr_ops = {
    .name = HDR_OPS_NAME,
    .alloc = hdr_alloc,
    .free = hdr_free,
    .enqueue = hdr_enqueue,
    .dequeue = hdr_dequeue,
    .get_count = hdr_count,
};

/* The registered copy of hdr_ops: a header's pool has it. */
const struct lr_mempool_ops *lr_dpdk_hdr_ops_reg_;

/* Object initializer of a header pool (dpdk_private.h). */
void
lr_dpdk_hdr_init_(struct lr_mempool *mp, void *opaque, void *obj, unsigned idx)
{
	struct lr_mbuf *m = obj;

	memset(m, 0, sizeof(*m) + sizeof(void *));
	m->priv_size = sizeof(void *);
	m->pool = mp;
	lr_pktmbuf_reset(m);
}

/* ------------------------------------------------------------------ */
/* The bound headers' store: each header belongs to one mbuf of the    */
/* port's DPDK receive pool for the pool's life and travels with it. A */
/* header put back frees its DPDK mbuf, which carries the header back  */
/* into DPDK's pool (and its per-lcore cache): nothing else to store.  */

/* The store's state: the DPDK pool whose mbufs carry the headers. */
struct bound_store {
	struct rte_mempool *rx; /* NULL until the headers are bound */
};

static int
bound_alloc(struct lr_mempool *mp)
{
	mp->pool_data = calloc(1, sizeof(struct bound_store));
	return mp->pool_data ? 0 : -ENOMEM;
}

static void
bound_free(struct lr_mempool *mp)
{
	free(mp->pool_data);
}

static int
bound_enqueue(struct lr_mempool *mp, void *const *objs, unsigned n)
{
	/* A header carrying none: the pool filling its store, not bound
	 * yet. */
	free_carried(objs, n, 0);
	return 0;
}

static int
bound_dequeue(struct lr_mempool *mp, void **objs, unsigned n)
{
	/* A bound header comes only with its DPDK mbuf (dpdk_rx). */
	return -ENOENT;
}

/* Headers free: those whose DPDK mbufs are in DPDK's pool (all of them
 * before binding and once DPDK's EAL is gone). */
static unsigned
bound_count(const struct lr_mempool *mp)
{
	const struct bound_store *st = mp->pool_data;

	if (st->rx == NULL || lr_dpdk_eal_state_ != 1)
		return mp->size;
	return rte_mempool_avail_count(st->rx);
}

static const struct lr_mempool_ops bound_ops = {
    .name = BOUND_OPS_NAME,
    .alloc = bound_alloc,
    .free = bound_free,
    .enqueue = bound_enqueue,
    .dequeue = bound_dequeue,
    .get_count = bound_count,
};

/* The registered copy of bound_ops: a bound header's pool has it. */
const struct lr_mempool_ops *lr_dpdk_bound_ops_reg_;

/* Objects of a pool in index order (lr_mempool_obj_iter and
 * rte_mempool_obj_iter callbacks fill it). */
struct obj_list {
	void **objs;
	unsigned n, max;
};

static void
lr_obj_collect(struct lr_mempool *mp, void *arg, void *obj, unsigned idx)
{
	struct obj_list *l = arg;

	if (l->n < l->max)
		l->objs[l->n++] = obj;
}

static void
rte_obj_collect(struct rte_mempool *mp, void *arg, void *obj, unsigned idx)
{
	struct obj_list *l = arg;

	if (l->n < l->max)
		l->objs[l->n++] = obj;
}

/* Bind each header of bound to one mbuf of DPDK pool rx (both of n
 * objects); 0 or -ENOMEM. */
int
lr_dpdk_bind_headers_(struct lr_mempool *bound, struct rte_mempool *rx,
		      unsigned n)
{
	struct obj_list h = {calloc(n, sizeof(void *)), 0, n};
	struct obj_list x = {calloc(n, sizeof(void *)), 0, n};
	int rc = -ENOMEM;

	if (h.objs == NULL || x.objs == NULL)
		goto out;
	lr_mempool_obj_iter(bound, lr_obj_collect, &h);
	rte_mempool_obj_iter(rx, rte_obj_collect, &x);
	if (h.n != n || x.n != n)
		goto out;
	for (unsigned i = 0; i < n; i++) {
		struct lr_mbuf *hd = h.objs[i];
		struct rte_mbuf *xm = x.objs[i];

		if (!RTE_MBUF_DIRECT(xm) ||
		    rte_pktmbuf_priv_size(rx) != RX_PRIV_SIZE ||
		    xm->buf_addr != (char *)xm + sizeof(*xm) + RX_PRIV_SIZE)
			goto out;
		HDR_RTE(hd) = xm;
		RTE_HDR(xm) = hd;
		/* Its own buffer for good: dpdk_rx() takes only direct
		 * mbufs of the pool the fast way; BOUND_RTE() holds. */
		hd->buf_addr = xm->buf_addr;
		hd->buf_iova = xm->buf_iova;
		hd->buf_len = xm->buf_len;
	}
	((struct bound_store *)bound->pool_data)->rx = rx;
	rc = 0;
out:
	free(h.objs);
	free(x.objs);
	return rc;
}

/* Register both stores (dpdk_private.h). */
int
lr_dpdk_mempool_ops_register_(void)
{
	int rc;

	if (lr_dpdk_hdr_ops_reg_ == NULL) {
		rc = lr_mempool_register_ops(&hdr_ops);
		if (rc < 0 && rc != -EEXIST)
			return rc;
		lr_dpdk_hdr_ops_reg_ = lr_mempool_ops_lookup(HDR_OPS_NAME);
	}
	if (lr_dpdk_bound_ops_reg_ == NULL) {
		rc = lr_mempool_register_ops(&bound_ops);
		if (rc < 0 && rc != -EEXIST)
			return rc;
		lr_dpdk_bound_ops_reg_ = lr_mempool_ops_lookup(BOUND_OPS_NAME);
	}
	return 0;
}
