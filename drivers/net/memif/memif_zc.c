/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_memif's zero-copy memory (lr_eth_memif.h, "Buffers, zero-copy=yes"):
 *  - client: a pool of mbufs over a shared region of its own (region 1),
 *    announced to the peer at every connect, and the pools of the other
 *    zero-copy ports and of the application (lr_eth_memif_pool_create()),
 *    announced as regions 2.. so that their mbufs go out with no copy; a
 *    pool lives while a port, the application or a connection holds it,
 *    and longer, reported, while the application holds its mbufs;
 *  - server (zero-copy receive): a header for every slot of each rx
 *    queue's C2S ring, handed up over the peer's buffer; the headers' pool
 *    has a store of its own (put back = slot freed); the peer's regions
 *    stay mapped after a disconnect until the application gave back every
 *    header it held over them (kept entries, reaped by the control
 *    thread).
 * Everything here runs under lr_memif_lock_, except the headers' store,
 * which any thread that frees a header calls.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lr_errno.h"
#include "lr_eth_memif.h"
#include "lr_log.h"
#include "lr_mbuf.h"
#include "lr_mempool.h"
#include "memif_private.h"

/* The zero-copy pools and peer regions of all memif ports (under
 * lr_memif_lock_). */
static struct {
	unsigned nb_zc_pools;  /* zero-copy pools made (their names) */
	struct mif_kept *kept; /* peer regions under held headers */
	struct mif_zc *zcs;    /* the zero-copy pools of open ports, and the
				* application's (lr_eth_memif_pool_create) */
} pools;

/* ------------------------------------------------------------------ */
/* Server zero-copy receive: the headers' store. A header comes only with
 * its slot (zrx_take), so the store hands out nothing; a header put back
 * (from any thread) marks its slot freed for the rx burst to give back. */

static int
zrx_store_alloc(struct lr_mempool *mp)
{
	mp->pool_data = NULL; /* the queue's mif_zrx, set once made */
	return 0;
}

static void
zrx_store_free(struct lr_mempool *mp)
{
	(void)mp;
}

static int
zrx_store_enqueue(struct lr_mempool *mp, void *const *objs, unsigned n)
{
	struct mif_zrx *z = mp->pool_data;

	if (z == NULL) /* the pool filling its store at creation */
		return 0;
	for (unsigned i = 0; i < n; i++) {
		const struct zrx_priv *pv = lr_mbuf_to_priv(objs[i]);

		atomic_store_explicit(&z->freed[pv->slot], 1,
				      memory_order_release);
	}
	atomic_fetch_sub_explicit(&z->out, n, memory_order_release);
	return 0;
}

static int
zrx_store_dequeue(struct lr_mempool *mp, void **objs, unsigned n)
{
	(void)mp;
	(void)objs;
	(void)n;
	return -ENOENT;
}

static unsigned
zrx_store_count(const struct lr_mempool *mp)
{
	const struct mif_zrx *z = mp->pool_data;

	return z == NULL ? mp->size
			 : mp->size -
			       atomic_load_explicit(&((struct mif_zrx *)z)->out,
						    memory_order_relaxed);
}

static const struct lr_mempool_ops zrx_ops = {
    .name = MIF_ZRX_OPS_NAME,
    .alloc = zrx_store_alloc,
    .free = zrx_store_free,
    .enqueue = zrx_store_enqueue,
    .dequeue = zrx_store_dequeue,
    .get_count = zrx_store_count,
};

static void
zrx_hdr_init(struct lr_mempool *mp, void *opaque, void *obj, unsigned idx)
{
	struct mif_zrx *z = opaque;
	struct lr_mbuf *m = obj;
	struct zrx_priv *pv;

	memset(m, 0, sizeof(*m) + sizeof(*pv));
	m->priv_size = sizeof(*pv);
	m->pool = mp;
	pv = lr_mbuf_to_priv(m);
	pv->z = z;
	pv->slot = idx;
	z->hdr[idx] = m;
}

/* Free z; the caller checked that no header is out. */
static void
zrx_free(struct mif_zrx *z)
{
	if (z->mp != NULL)
		lr_mempool_free(z->mp);
	free(z->hdr);
	free((void *)z->freed);
	free(z);
}

/* The headers of rx queue qid of server p: one for each of 1 << p->log2
 * slots; NULL (logged) when out of memory. */
static struct mif_zrx *
zrx_new(struct mif_port *p, uint16_t port_id, unsigned qid)
{
	struct lr_pktmbuf_pool_private pp = {
	    .mbuf_data_room_size = 0,
	    .mbuf_priv_size = sizeof(struct zrx_priv),
	    .flags = LR_PKTMBUF_POOL_F_ATTACHED,
	};
	char name[LR_MEMPOOL_NAMESIZE];
	struct mif_zrx *z = calloc(1, sizeof(*z));
	unsigned n = 1u << p->log2;

	if (z == NULL)
		goto fail;
	z->n = n;
	z->hdr = calloc(n, sizeof(*z->hdr));
	z->freed = calloc(n, sizeof(*z->freed));
	if (z->hdr == NULL || z->freed == NULL)
		goto fail;
	/* unique: headers left behind at close keep their pool's name */
	snprintf(name, sizeof(name), "memif_zrx_p%u_%u_%u", port_id, qid,
		 ++pools.nb_zc_pools);
	z->mp = lr_mempool_create_ops(
	    name, n, sizeof(struct lr_mbuf) + sizeof(struct zrx_priv), 0,
	    sizeof(pp), zrx_hdr_init, z,
	    p->dev != NULL ? p->dev->data->socket_id : LR_SOCKET_ID_ANY, 0,
	    MIF_ZRX_OPS_NAME);
	if (z->mp == NULL)
		goto fail;
	memcpy(lr_mempool_get_priv(z->mp), &pp, sizeof(pp));
	z->mp->pool_data = z;
	return z;
fail:
	LR_LOG(ERR, PMD,
	       "%s: zero-copy receive: cannot make the %u headers of rx queue "
	       "%u: %s\n",
	       p->name, n, qid, lr_strerror(z && !z->mp ? lr_errno : ENOMEM));
	if (z != NULL)
		zrx_free(z);
	return NULL;
}

/* Unmap the regions of kept entries whose headers all came back, and free
 * the headers of closed ports among them (lr_memif_lock_ held). */
void
lr_memif_kept_reap_(void)
{
	for (struct mif_kept **pk = &pools.kept; *pk != NULL;) {
		struct mif_kept *k = *pk;
		unsigned held = 0;

		for (unsigned i = 0; i < k->nzrx; i++)
			held += atomic_load_explicit(&k->zrx[i]->out,
						     memory_order_acquire);
		if (held != 0) {
			pk = &k->next;
			continue;
		}
		for (unsigned i = 0; i < k->nreg; i++)
			lr_shm_unmap(&k->reg[i]);
		for (unsigned i = 0; i < k->nzrx; i++)
			if (k->zrx[i]->orphan)
				zrx_free(k->zrx[i]);
		if (k->name != NULL)
			LR_LOG(NOTICE, PMD,
			       "%s: the application gave back its last "
			       "zero-copy mbuf of the last connection: its "
			       "peer's memory is unmapped\n",
			       k->name);
		*pk = k->next;
		free(k);
	}
}

/* Server zero-copy rx at disconnect (queues quiesced): 1 when headers of
 * this connection are still out, the regions then kept mapped for them
 * (a kept entry; 0: unmap them now). */
int
lr_memif_zrx_keep_regions_(struct mif_port *p)
{
	struct mif_kept *k = NULL;

	for (unsigned q = 0; q < MIF_MAXQ; q++) {
		struct mif_queue *rq = &p->rxq[q];
		uint32_t out;

		if (!rq->zr_on)
			continue;
		rq->zr_on = 0;
		out = atomic_load_explicit(&rq->zrx->out, memory_order_acquire);
		if (out == 0)
			continue;
		if (k == NULL && (k = calloc(1, sizeof(*k))) == NULL)
			return 1; /* never unmapped: no memory to remember */
		k->zrx[k->nzrx++] = rq->zrx;
		LR_LOG(WARNING, PMD,
		       "%s: rx queue %u: the application holds %u mbufs "
		       "received with zero copy: the peer's memory stays "
		       "mapped until they are freed\n",
		       p->name, q, out);
	}
	if (k == NULL)
		return 0;
	/* the mappings move to k (lr_memif_port_disconnect_() forgets them) */
	for (unsigned i = 0; i < MIF_MAX_REGIONS; i++) {
		if (p->shm[i].map != NULL) {
			k->reg[k->nreg] = p->shm[i];
			k->reg[k->nreg++].fd = -1;
		}
	}
	k->name = p->name;
	k->next = pools.kept;
	pools.kept = k;
	return 1;
}

/* Server zero-copy rx at close: free each queue's headers, or leave them
 * to the kept entry that holds them (reported), freed with the last. */
void
lr_memif_zrx_teardown_(struct mif_port *p)
{
	for (struct mif_kept *k = pools.kept; k != NULL; k = k->next)
		if (k->name == p->name)
			k->name = NULL;
	for (unsigned q = 0; q < MIF_MAXQ; q++) {
		struct mif_zrx *z = p->rxq[q].zrx;
		uint32_t out;

		if (z == NULL)
			continue;
		p->rxq[q].zrx = NULL;
		out = atomic_load_explicit(&z->out, memory_order_acquire);
		if (out == 0) {
			zrx_free(z);
			continue;
		}
		z->orphan = 1;
		LR_LOG(WARNING, PMD,
		       "%s: closed while the application holds %u mbufs of rx "
		       "queue %u received with zero copy: they and the peer's "
		       "memory under them stay until freed\n",
		       p->name, out, q);
	}
}

/* Server zero-copy rx: headers for nrx rx queues (made at the first
 * configure, kept after). 0 or -errno (logged). */
int
lr_memif_zrx_setup_(struct mif_port *p, uint16_t port_id, unsigned nrx)
{
	for (unsigned q = 0; q < nrx; q++) {
		if (p->rxq[q].zrx != NULL)
			continue;
		p->rxq[q].zrx = zrx_new(p, port_id, q);
		if (p->rxq[q].zrx == NULL)
			return -ENOMEM;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Client zero-copy: the pools over shared regions. */

/* Drop a hold of zero-copy pool z (name: the port dropping it, for the
 * log). The last frees the pool and unmaps its region, unless the
 * application still holds mbufs of it: then both stay, reported, so that
 * those mbufs stay valid. */
void
lr_memif_zc_put_(struct mif_zc *z, const char *name)
{
	unsigned held;

	if (--z->refs > 0)
		return;
	held = z->mp != NULL ? lr_mempool_in_use_count(z->mp) : 0;
	if (held != 0) {
		LR_LOG(WARNING, PMD,
		       "%s: the application still holds %u mbufs of the "
		       "zero-copy pool '%s': the pool and its region stay "
		       "(not freed under them)\n",
		       name, held, z->mp->name);
	} else {
		if (z->mp != NULL)
			lr_mempool_free(z->mp);
		lr_shm_unmap(&z->shm);
	}
	lr_shm_close(&z->shm); /* the mapping, if kept, outlives it */
	free(z);
}

/* Client zero-copy, at HELLO: hold the pools of the other zero-copy
 * ports (at most max), to be announced to the peer as regions 2.. so
 * that their mbufs go out with no copy; released at disconnect. */
void
lr_memif_zc_hold_others_(struct mif_port *p, unsigned max)
{
	p->nxzc = 0;
	for (struct mif_zc *z = pools.zcs; z != NULL && p->nxzc < max;
	     z = z->next) {
		if (z == p->zcp)
			continue;
		z->refs++;
		p->xzc_hold[p->nxzc] = z;
		p->xzc[p->nxzc].mp = z->mp;
		p->xzc[p->nxzc].base = z->shm.addr;
		p->xzc[p->nxzc].region = (uint16_t)(ZC_REGION + 1 + p->nxzc);
		p->nxzc++;
	}
}

/* Server zero-copy rx: whether rx queue q takes this connection's packets
 * with no copy: when its headers cover the ring and all came back from
 * the last connection (else it copies, said once). */
void
lr_memif_zrx_attach_(struct mif_port *p, struct mif_queue *q)
{
	struct mif_zrx *z = q->zrx;
	uint32_t out;

	lr_memif_kept_reap_();
	out = atomic_load_explicit(&z->out, memory_order_acquire);
	q->zr_on = 0;
	if (out != 0 || q->size > z->n) {
		LR_LOG(WARNING, PMD,
		       "%s: rx queue %u: receiving by copy on this connection "
		       "(%s)\n",
		       p->name, q->qid,
		       out != 0 ? "the application still holds zero-copy "
				  "mbufs of the last one"
				: "ring larger than rsize");
		return;
	}
	for (unsigned s = 0; s < z->n; s++)
		atomic_store_explicit(&z->freed[s], 0, memory_order_relaxed);
	q->zr_on = 1;
}

/* Client zero-copy: free the pool, region 1 and the slot arrays, unless
 * the application still holds mbufs of the pool: then they are left in
 * place (reported) so that those mbufs stay valid. */
void
lr_memif_zc_teardown_(struct mif_port *p)
{
	for (unsigned q = 0; q < MIF_MAXQ; q++) {
		free(p->rxq[q].slot_mb);
		free(p->txq[q].slot_mb);
		p->rxq[q].slot_mb = p->txq[q].slot_mb = NULL;
	}
	p->zc_nq[0] = p->zc_nq[1] = 0;
	if (p->zcp == NULL)
		return;
	for (struct mif_zc **pz = &pools.zcs; *pz != NULL; pz = &(*pz)->next) {
		if (*pz == p->zcp) {
			*pz = p->zcp->next;
			break;
		}
	}
	/* other connected ports may still send its mbufs: freed with the
	 * last hold */
	lr_memif_zc_put_(p->zcp, p->name);
	p->zcp = NULL;
	p->zc_mp = NULL;
}

/* A zero-copy pool: n mbufs of cache_size per-lcore caches over a new
 * shared region of n buffers of stride bytes, one hold, in no list;
 * NULL with lr_errno set and w's reason. */
static struct mif_zc *
zc_new(const char *name, unsigned n, unsigned cache_size, unsigned stride,
       int socket_id, struct mif_why *w)
{
	struct mif_zc *z = calloc(1, sizeof(*z));
	int err;

	if (z == NULL) {
		lr_errno = -mif_refuse(w, -ENOMEM, "out of memory");
		return NULL;
	}
	err = lr_memif_region_create_(name, (uint64_t)n * stride, &z->shm, w);
	if (err != 0)
		goto free_z;
	z->mp = lr_pktmbuf_pool_create_extbuf(
	    name, n, cache_size, 0, z->shm.addr, (uint16_t)stride, socket_id);
	if (z->mp == NULL) {
		err = mif_refuse(w, -lr_errno, "pool '%s' of %u mbufs: %s",
				 name, n, lr_strerror(lr_errno));
		goto free_region;
	}
	z->refs = 1;
	return z;
free_region:
	lr_shm_free(&z->shm);
free_z:
	free(z);
	lr_errno = -err;
	return NULL;
}

/* Client zero-copy: region 1 and the pool of mbufs over its buffers, for
 * nrx rx and ntx tx queues: a buffer for every slot of every ring, as
 * many again for the application, and the lcores' caches; slot arrays
 * for every queue. 0 or -errno (logged). */
int
lr_memif_zc_setup_(struct mif_port *p, uint16_t port_id, unsigned nrx,
		   unsigned ntx)
{
	unsigned slots = 1u << p->log2;
	unsigned stride =
	    LR_ALIGN_CEIL(LR_PKTMBUF_HEADROOM + p->bsize, LR_CACHE_LINE_SIZE);
	unsigned n = 2 * (nrx + ntx) * slots + 4 * ZC_CACHE;
	char name[LR_MEMPOOL_NAMESIZE];
	struct mif_why why;
	struct mif_zc *z;

	if (p->zc_mp != NULL && nrx <= p->zc_nq[0] && ntx <= p->zc_nq[1])
		return 0; /* configured again: what we have serves */
	if (p->zc_mp != NULL && lr_mempool_in_use_count(p->zc_mp) != 0) {
		LR_LOG(ERR, PMD,
		       "%s: zero-copy pool too small for %u rx, %u tx queues, "
		       "and %u of its mbufs are still in use\n",
		       p->name, nrx, ntx, lr_mempool_in_use_count(p->zc_mp));
		return -EBUSY;
	}
	lr_memif_zc_teardown_(p);
	/* unique: a pool left behind at close (held mbufs) keeps its name */
	snprintf(name, sizeof(name), "memif_zc_p%u_%u", port_id,
		 ++pools.nb_zc_pools);
	z = zc_new(name, n, ZC_CACHE, stride,
		   p->dev != NULL ? p->dev->data->socket_id : LR_SOCKET_ID_ANY,
		   &why);
	if (z == NULL) {
		LR_LOG(ERR, PMD, "%s: zero-copy: %s\n", p->name, why.text);
		return -ENOMEM;
	}
	z->next = pools.zcs;
	pools.zcs = z;
	p->zcp = z;
	p->zc_mp = z->mp;
	for (unsigned q = 0; q < nrx || q < ntx; q++) {
		if ((q < nrx &&
		     !(p->rxq[q].slot_mb = calloc(slots, sizeof(void *)))) ||
		    (q < ntx &&
		     !(p->txq[q].slot_mb = calloc(slots, sizeof(void *)))))
			goto fail;
	}
	p->zc_nq[0] = nrx;
	p->zc_nq[1] = ntx;
	return 0;
fail:
	LR_LOG(ERR, PMD, "%s: zero-copy: slots of %u rx, %u tx queues: %s\n",
	       p->name, nrx, ntx, lr_strerror(ENOMEM));
	lr_memif_zc_teardown_(p);
	return -ENOMEM;
}

struct lr_mempool *
lr_eth_memif_pool_create(const char *name, unsigned n, unsigned cache_size,
			 uint16_t data_room, int socket_id)
{
	unsigned stride =
	    LR_ALIGN_CEIL((unsigned)data_room, LR_CACHE_LINE_SIZE);
	struct mif_why why;
	struct mif_zc *z;

	if (name == NULL || n == 0 || data_room <= LR_PKTMBUF_HEADROOM ||
	    stride > UINT16_MAX) {
		LR_LOG(ERR, PMD,
		       "memif pool '%s': %u mbufs of %u bytes: needs at least "
		       "one mbuf, and a data room above the headroom (%u) "
		       "and at most %u\n",
		       name ? name : "(null)", n, data_room,
		       LR_PKTMBUF_HEADROOM,
		       LR_ALIGN_FLOOR(UINT16_MAX, LR_CACHE_LINE_SIZE));
		lr_errno = EINVAL;
		return NULL;
	}
	z = zc_new(name, n, cache_size, stride, socket_id, &why);
	if (z == NULL) {
		LR_LOG(ERR, PMD, "memif pool '%s': %s\n", name, why.text);
		return NULL;
	}
	z->app = 1;
	pthread_mutex_lock(&lr_memif_lock_);
	z->next = pools.zcs;
	pools.zcs = z;
	pthread_mutex_unlock(&lr_memif_lock_);
	return z->mp;
}

int
lr_eth_memif_pool_free(struct lr_mempool *mp)
{
	pthread_mutex_lock(&lr_memif_lock_);
	for (struct mif_zc **pz = &pools.zcs; *pz != NULL; pz = &(*pz)->next) {
		struct mif_zc *z = *pz;

		if (z->mp != mp || !z->app)
			continue;
		*pz = z->next;
		/* connections that announced it hold it until they end */
		lr_memif_zc_put_(z, mp->name);
		pthread_mutex_unlock(&lr_memif_lock_);
		return 0;
	}
	pthread_mutex_unlock(&lr_memif_lock_);
	return -EINVAL;
}

int
lr_memif_zrx_register_(void)
{
	int ret;

	if (lr_mempool_ops_lookup(MIF_ZRX_OPS_NAME) != NULL)
		return 0;
	ret = lr_mempool_register_ops(&zrx_ops);
	return ret == -EEXIST ? 0 : ret;
}
