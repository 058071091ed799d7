/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The elastic store of mempools (lr_mempool_create_elastic(); the design,
 * its cost and its invariants are in lr_mempool.h under "Elastic pools").
 *
 * Layout of a block (2^order pages from the store's page pool, aligned to
 * its size): the header (struct ep_block, EP_HDR bytes), then units as in
 * a fixed pool: the rest of the block when its IOVA is contiguous (or an
 * object does not fit in a base page), else each base page (the first
 * one after the header). In an IOVA-contiguous block the first unit also
 * skips the block's color: 0..colors-1 cache lines, given in turn. In a unit the slot of object j starts at
 * j * total and the object at lead; the object header (the pool) sits
 * right before the object and the store's link right before that:
 *
 *   | link (8) | ... | objhdr | object (elt_size) | pad | link | ...
 *   ^ slot              ^ obj - header_size       (next slot at + total)
 *
 * A free object's link points to the next free object of its block (NULL
 * ends the list); a handed-out object's link is EP_INUSE.
 *
 * Locking: st->lock guards everything in the store and its blocks'
 * headers. The counters that lr_mempool_store_count() and
 * lr_mempool_objs_count() read without the lock are stored relaxed. The
 * allocator's shrinker (one for all elastic pools, ep_shrink_all) walks
 * the list of stores under ep_list_lock and only try-locks each store: it
 * may run inside a growth of that very store (the allocator calls
 * shrinkers from the allocating thread).
 */
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "lr_cycles.h"
#include "lr_eal.h"
#include "lr_errno.h"
#include "lr_log.h"
#include "lr_page_pool.h"
#include "lr_pagealloc.h"
#include "mempool_private.h"

#define EP_MAGIC 0x656c6173u /* "elas" */
/* The link of a handed-out object: odd, so never an object's address. */
#define EP_INUSE ((void *)(uintptr_t)0x1105e0b1ec71105fULL)
/* Blocks asked of the page pool per bulk call. */
#define EP_GROW_BULK 64
/* A growth adds at least this share of the objects the pool has (1/4),
 * so a ramp to max takes a few growths, not one per refill. */
#define EP_GROW_SHIFT 2
/* Most waste (1/8 of a block) accepted before trying a larger order. */
#define EP_WASTE_SHIFT 3
/* The idle check runs at most this often: a quarter of the idle time. */
#define EP_IDLE_CHECK_SHIFT 2

enum ep_list_id { EP_FREE, EP_PARTIAL, EP_FULL, EP_NLISTS };

static const char *const list_names[EP_NLISTS] = {"free", "partial", "full"};

/* Header at the start of every block: one cache line. */
struct ep_block {
	struct lr_mempool *mp; /* its pool */
	struct lr_page *page;  /* its head page (of the page pool) */
	void *free;	       /* first free object, NULL: none */
	struct ep_block *prev; /* list links */
	struct ep_block *next;
	uint64_t idle_since; /* cycles: when it became wholly free */
	uint32_t magic;	     /* EP_MAGIC while the block is in a pool */
	uint16_t nobjs;	     /* objects carved from it */
	uint16_t nfree;	     /* of them in the store */
	uint16_t color;	     /* bytes the first object is pushed back */
	uint8_t list;	     /* enum ep_list_id */
	uint8_t contig;	     /* IOVA contiguous over the block */
};

LR_STATIC_ASSERT(sizeof(struct ep_block) <= 64, "a block header is one line");

#define EP_HDR LR_ALIGN_CEIL(sizeof(struct ep_block), LR_CACHE_LINE_SIZE)

struct ep_list {
	struct ep_block *head;
	struct ep_block *tail;
	unsigned n;
};

struct ep_store {
	pthread_mutex_t lock;
	struct lr_mempool *mp;
	struct lr_page_pool *pp;
	struct ep_list lists[EP_NLISTS];
	lr_mempool_obj_cb_t *obj_init;
	void *obj_init_arg;
	size_t bytes;	    /* per block */
	unsigned order;	    /* of a block */
	unsigned per_block; /* objects in an IOVA-contiguous block */
	unsigned colors;    /* first-object offsets used in turn */
	unsigned next_color;
	unsigned lead; /* object offset in its slot */
	unsigned min_objs;
	unsigned max_blocks;
	unsigned objs;	    /* relaxed: read without the lock */
	unsigned free_objs; /* relaxed: read without the lock */
	/* These, idle_ms and the u64 counters below: written by the lock
	 * holder with relaxed stores, read without the lock by
	 * lr_mempool_elastic_stats_get() (for telemetry). */
	unsigned blocks;
	unsigned peak_objs;
	unsigned peak_blocks;
	unsigned carved; /* obj_init's running index */
	unsigned idle_ms;
	uint64_t idle_cycles; /* 0: no idle shrink */
	uint64_t next_idle;   /* cycles of the next idle check */
	uint64_t growths, grown_blocks, shrinks, shrunk_blocks;
	uint64_t grow_fail_max, grow_fail_nomem, bad_puts;
	struct ep_store *next; /* list of elastic stores */
};

static pthread_mutex_t ep_list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ep_store *ep_stores;
static int ep_shrinker_id = -1;

/* ------------------------------------------------------------------ */
/* Small helpers.                                                       */

static inline void **
obj_link(const struct lr_mempool *mp, void *obj)
{
	return (void **)((char *)obj - mp->header_size) - 1;
}

static inline void
relaxed_set(unsigned *p, unsigned v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

static inline void
relaxed_set64(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

/* A store counter (one writer: the lock holder; readers without it). */
static inline void
relaxed_add64(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, *p + v, __ATOMIC_RELAXED);
}

static inline unsigned
relaxed_get(const unsigned *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline uint64_t
relaxed_get64(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline struct ep_store *
store_of(const struct lr_mempool *mp)
{
	return mp->pool_data;
}

static int
is_elastic(const struct lr_mempool *mp)
{
	return mp != NULL && (mp->flags & LR_MEMPOOL_F_ELASTIC) &&
	       mp->pool_data != NULL;
}

static void
list_del(struct ep_store *st, struct ep_block *b)
{
	struct ep_list *l = &st->lists[b->list];

	LR_ASSERT(l->n > 0);
	if (b->prev != NULL)
		b->prev->next = b->next;
	else
		l->head = b->next;
	if (b->next != NULL)
		b->next->prev = b->prev;
	else
		l->tail = b->prev;
	l->n--;
}

static void
list_push(struct ep_store *st, struct ep_block *b, enum ep_list_id id)
{
	struct ep_list *l = &st->lists[id];

	b->list = (uint8_t)id;
	b->prev = NULL;
	b->next = l->head;
	if (l->head != NULL)
		l->head->prev = b;
	else
		l->tail = b;
	l->head = b;
	l->n++;
}

/* The list a block with nfree free objects belongs on. */
static inline enum ep_list_id
list_for(const struct ep_block *b)
{
	if (b->nfree == b->nobjs)
		return EP_FREE;
	return b->nfree == 0 ? EP_FULL : EP_PARTIAL;
}

/* Move b to the list its counts call for, if it is not on it. */
static inline void
relist(struct ep_store *st, struct ep_block *b, uint64_t now)
{
	enum ep_list_id id = list_for(b);

	if (b->list == id)
		return;
	list_del(st, b);
	if (id == EP_FREE)
		b->idle_since = now;
	list_push(st, b, id);
}

/* The block of obj if obj is an object slot of a live block of st's
 * pool, else NULL. Reads only heap memory: the block's head page must be
 * tagged by the store's page pool before its header is read. */
static struct ep_block *
block_of(const struct ep_store *st, const void *obj)
{
	uintptr_t base = (uintptr_t)obj & ~(uintptr_t)(st->bytes - 1);
	const struct lr_page *pg = lr_virt_to_page((const void *)base);
	struct ep_block *b = (struct ep_block *)base;

	if (pg == NULL || pg->owner != st->pp ||
	    lr_page_address(pg) != (void *)base || b->magic != EP_MAGIC ||
	    b->mp != st->mp || (uintptr_t)obj < base + EP_HDR + st->lead ||
	    (uintptr_t)obj % 8 != 0)
		return NULL;
	return b;
}

/* ------------------------------------------------------------------ */
/* Geometry.                                                            */

static inline size_t
block_bytes(unsigned order)
{
	return (size_t)LR_PAGE_SIZE << order;
}

/* Objects in a unit of len bytes starting at off: slot j at off + j *
 * total, its object at + lead, ending within the unit. */
static unsigned
objs_in(size_t len, size_t lead, size_t elt, size_t total)
{
	if (len < lead + elt)
		return 0;
	return (unsigned)((len - lead - elt) / total + 1);
}

/* Geometry of the pool: block order, lead, objects per block, and in mp
 * total_elt_size, size (max rounded up to whole blocks) and block_order.
 * 0, or a positive errno after a log. */
static int
layout(struct ep_store *st, struct lr_mempool *mp, unsigned max)
{
	unsigned align =
	    (mp->flags & LR_MEMPOOL_F_NO_CACHE_ALIGN) ? 8 : LR_CACHE_LINE_SIZE;
	size_t lead =
	    LR_ALIGN_CEIL(mp->header_size + sizeof(void *), (size_t)align);
	size_t total = LR_ALIGN_CEIL(mp->header_size + sizeof(void *) +
					 (size_t)mp->elt_size,
				     (size_t)align);
	size_t elt = mp->elt_size;
	unsigned order = 0, best, best_n;
	uint64_t blocks;

	while (order < LR_MAX_ORDER &&
	       objs_in(block_bytes(order) - EP_HDR, lead, elt, total) == 0)
		order++;
	if (order == LR_MAX_ORDER) {
		LR_LOG(ERR, MEMPOOL,
		       "mempool '%s': element size %u does not fit a block of "
		       "order %d\n",
		       mp->name, mp->elt_size, LR_MAX_ORDER - 1);
		return EINVAL;
	}
	best = order;
	best_n = objs_in(block_bytes(order) - EP_HDR, lead, elt, total);
	/* The smallest order that wastes at most 1/8, among those with
	 * per-lcore page lists; else the least wasteful of them. */
	for (unsigned o = order; o < LR_PCP_ORDERS; o++) {
		size_t bytes = block_bytes(o);
		unsigned n = objs_in(bytes - EP_HDR, lead, elt, total);

		if (bytes - n * total <= bytes >> EP_WASTE_SHIFT) {
			best = o;
			best_n = n;
			break;
		}
		if ((uint64_t)n * block_bytes(best) >
		    (uint64_t)best_n * bytes) {
			best = o;
			best_n = n;
		}
	}
	if (best_n > UINT16_MAX) {
		LR_LOG(ERR, MEMPOOL,
		       "mempool '%s': %u objects of %u bytes per block: too "
		       "many\n",
		       mp->name, best_n, mp->elt_size);
		return EINVAL;
	}
	/* Colors: how far the first object may move back and all still fit. */
	st->colors = (unsigned)((block_bytes(best) - EP_HDR -
				 (size_t)(best_n - 1) * total - lead - elt) /
				    LR_CACHE_LINE_SIZE +
				1);
	blocks = ((uint64_t)max + best_n - 1) / best_n;
	if (blocks * best_n > UINT32_MAX / 2) {
		LR_LOG(ERR, MEMPOOL, "mempool '%s': max %u objects too many\n",
		       mp->name, max);
		return EINVAL;
	}
	st->order = best;
	st->bytes = block_bytes(best);
	st->lead = (unsigned)lead;
	st->per_block = best_n;
	st->max_blocks = (unsigned)blocks;
	mp->total_elt_size = (uint32_t)total;
	mp->size = (uint32_t)(blocks * best_n);
	mp->block_order = best;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Growing.                                                             */

typedef void(slot_fn)(struct ep_store *st, struct ep_block *b, void *obj,
		      void *arg);

/* Call fn on each object of block b in address order: units as in a fixed
 * pool, the first one after the header and the block's color. */
static void
each_slot(struct ep_store *st, struct ep_block *b, slot_fn *fn, void *arg)
{
	size_t elt = st->mp->elt_size, total = st->mp->total_elt_size;
	size_t unit = st->bytes;
	char *base = (char *)b;

	if (!b->contig && EP_HDR + st->lead + elt <= LR_PAGE_SIZE)
		unit = LR_PAGE_SIZE;
	for (size_t u = 0; u < st->bytes; u += unit) {
		size_t off = u == 0 ? EP_HDR + b->color : u;

		for (; off + st->lead + elt <= u + unit; off += total)
			fn(st, b, base + off + st->lead, arg);
	}
}

/* A new object: its header, obj_init, onto its block's free list. */
static void
carve_one(struct ep_store *st, struct ep_block *b, void *obj, void *arg)
{
	struct lr_mempool *mp = st->mp;
	struct lr_mempool_objhdr *h = (struct lr_mempool_objhdr *)obj - 1;

	(void)arg;
	h->mp = mp;
#if LR_MEMPOOL_DEBUG
	h->cookie = LR_MEMPOOL_COOKIE_FREE;
#endif
	if (st->obj_init != NULL)
		st->obj_init(mp, st->obj_init_arg, obj, st->carved);
	st->carved++;
	*obj_link(mp, obj) = b->free;
	b->free = obj;
	b->nobjs++;
}

/* A page of the page pool becomes a block of the store. */
static void
join(struct ep_store *st, struct lr_page *pg, uint64_t now)
{
	struct ep_block *b = lr_page_address(pg);

	LR_ASSERT(((uintptr_t)b & (st->bytes - 1)) == 0);
	memset(b, 0, sizeof(*b));
	b->magic = EP_MAGIC;
	b->mp = st->mp;
	b->page = pg;
	b->contig = (uint8_t)lr_mp_block_iova_contig_((const char *)b, st->order);
	/* Slab coloring: blocks are aligned alike, so without it the n-th
	 * objects of every block would share their cache sets. */
	if (b->contig) {
		b->color = (uint16_t)(st->next_color * LR_CACHE_LINE_SIZE);
		st->next_color = (st->next_color + 1) % st->colors;
	}
	each_slot(st, b, carve_one, NULL);
	b->nfree = b->nobjs;
	b->idle_since = now;
	list_push(st, b, EP_FREE);
	relaxed_set(&st->blocks, st->blocks + 1);
	relaxed_set(&st->objs, st->objs + b->nobjs);
	relaxed_set(&st->free_objs, st->free_objs + b->nobjs);
	if (st->blocks > st->peak_blocks)
		relaxed_set(&st->peak_blocks, st->blocks);
	if (st->objs > st->peak_objs)
		relaxed_set(&st->peak_objs, st->objs);
}

/* Add blocks for at least need more free objects (a quarter of the pool
 * at least), up to max blocks; objects added. */
static unsigned
grow(struct ep_store *st, unsigned need, uint64_t now)
{
	struct lr_page *pages[EP_GROW_BULK];
	unsigned want = LR_MAX(need, st->objs >> EP_GROW_SHIFT);
	unsigned nblocks = (want + st->per_block - 1) / st->per_block;
	unsigned before = st->objs, got = 0;

	nblocks = LR_MIN(nblocks, st->max_blocks - st->blocks);
	while (nblocks > 0) {
		unsigned k = lr_page_pool_alloc_bulk(
		    st->pp, pages, LR_MIN(nblocks, (unsigned)EP_GROW_BULK));

		for (unsigned i = 0; i < k; i++)
			join(st, pages[i], now);
		got += k;
		if (k == 0)
			break;
		nblocks -= k;
	}
	if (got != 0) {
		relaxed_add64(&st->growths, 1);
		relaxed_add64(&st->grown_blocks, got);
	}
	return st->objs - before;
}

/* ------------------------------------------------------------------ */
/* Shrinking.                                                           */

/* The block leaves the pool: its page goes back through the page pool. */
static void
release(struct ep_store *st, struct ep_block *b)
{
	struct lr_page *pg = b->page;

	LR_ASSERT(b->nfree == b->nobjs && b->list == EP_FREE);
	list_del(st, b);
	relaxed_set(&st->blocks, st->blocks - 1);
	relaxed_set(&st->objs, st->objs - b->nobjs);
	relaxed_set(&st->free_objs, st->free_objs - b->nobjs);
	b->magic = 0;
	b->mp = NULL;
	lr_page_pool_release_page(st->pp, pg);
}

/* Give back up to max_blocks wholly free blocks, the longest free first,
 * keeping min objects; idle_only: only those free for the idle time.
 * Blocks given back. */
static unsigned
shrink_locked(struct ep_store *st, unsigned long max_blocks, int idle_only,
	      uint64_t now)
{
	unsigned done = 0;

	while (done < max_blocks) {
		struct ep_block *b = st->lists[EP_FREE].tail;

		if (b == NULL || st->objs - b->nobjs < st->min_objs)
			break;
		if (idle_only && now - b->idle_since < st->idle_cycles)
			break;
		release(st, b);
		done++;
	}
	if (done != 0) {
		relaxed_add64(&st->shrinks, 1);
		relaxed_add64(&st->shrunk_blocks, done);
	}
	return done;
}

/* The idle check of a store call: cheap unless it is time. */
static inline void
idle_check(struct ep_store *st, uint64_t now)
{
	if (st->idle_cycles == 0 || now < st->next_idle)
		return;
	st->next_idle = now + (st->idle_cycles >> EP_IDLE_CHECK_SHIFT);
	shrink_locked(st, ULONG_MAX, 1, now);
}

/* The allocator's shrinker for every elastic pool: stores on the node
 * under pressure that can be locked at once give back free blocks. */
static unsigned long
ep_shrink_all(void *arg, int node, unsigned long nr_pages)
{
	unsigned long freed = 0;

	(void)arg;
	pthread_mutex_lock(&ep_list_lock);
	for (struct ep_store *st = ep_stores; st != NULL && freed < nr_pages;
	     st = st->next) {
		unsigned long want;

		if (node != LR_SOCKET_ID_ANY && st->pp->nid != node)
			continue;
		if (pthread_mutex_trylock(&st->lock) != 0)
			continue; /* busy, maybe growing on this thread */
		want = (nr_pages - freed + (1UL << st->order) - 1) >> st->order;
		freed += (unsigned long)shrink_locked(st, want, 0,
						      lr_get_tsc_cycles())
			 << st->order;
		pthread_mutex_unlock(&st->lock);
	}
	pthread_mutex_unlock(&ep_list_lock);
	return freed;
}

void
lr_mp_elastic_forget_shrinker_(void)
{
	pthread_mutex_lock(&ep_list_lock);
	ep_shrinker_id = -1;
	pthread_mutex_unlock(&ep_list_lock);
}

/* ------------------------------------------------------------------ */
/* The store's ops.                                                     */

/* Take n objects from the blocks, partial ones first. */
static void
take(struct ep_store *st, void **objs, unsigned n, uint64_t now)
{
	struct lr_mempool *mp = st->mp;
	unsigned i = 0;

	while (i < n) {
		struct ep_block *b = st->lists[EP_PARTIAL].head;

		if (b == NULL)
			b = st->lists[EP_FREE].head;
		LR_ASSERT(b != NULL && b->nfree > 0);
		while (i < n && b->free != NULL) {
			void *obj = b->free;
			void **l = obj_link(mp, obj);

			b->free = *l;
			*l = EP_INUSE;
			b->nfree--;
			objs[i++] = obj;
		}
		relist(st, b, now);
	}
	relaxed_set(&st->free_objs, st->free_objs - n);
}

static int
ep_dequeue(struct lr_mempool *mp, void **objs, unsigned n)
{
	struct ep_store *st = store_of(mp);
	uint64_t now = lr_get_tsc_cycles();
	int rc = 0;

	pthread_mutex_lock(&st->lock);
	if (st->free_objs < n)
		grow(st, n - st->free_objs, now);
	if (lr_likely(st->free_objs >= n)) {
		take(st, objs, n, now);
	} else {
		if (st->blocks == st->max_blocks)
			relaxed_add64(&st->grow_fail_max, 1);
		else
			relaxed_add64(&st->grow_fail_nomem, 1);
		rc = -ENOENT;
	}
	idle_check(st, now);
	pthread_mutex_unlock(&st->lock);
	return rc;
}

static __lr_cold void
bad_put(struct ep_store *st, void *obj, const char *why)
{
	relaxed_add64(&st->bad_puts, 1);
	if (st->bad_puts <= 16)
		LR_LOG(ERR, MEMPOOL, "mempool '%s': put of %p: %s (dropped)\n",
		       st->mp->name, obj, why);
}

static int
ep_enqueue(struct lr_mempool *mp, void *const *objs, unsigned n)
{
	struct ep_store *st = store_of(mp);
	uint64_t now = lr_get_tsc_cycles();
	unsigned done = 0;

	pthread_mutex_lock(&st->lock);
	for (unsigned i = 0; i < n; i++) {
		struct ep_block *b = block_of(st, objs[i]);
		void **l;

		if (lr_unlikely(b == NULL)) {
			bad_put(st, objs[i], "not an object of this pool");
			continue;
		}
		l = obj_link(mp, objs[i]);
		if (lr_unlikely(*l != EP_INUSE)) {
			bad_put(st, objs[i],
				"object already in the pool (double put)");
			continue;
		}
		*l = b->free;
		b->free = objs[i];
		b->nfree++;
		if (b->nfree == 1 || b->nfree == b->nobjs)
			relist(st, b, now);
		done++;
	}
	relaxed_set(&st->free_objs, st->free_objs + done);
	idle_check(st, now);
	pthread_mutex_unlock(&st->lock);
	/* Bad objects are dropped, not refused: the others are in. */
	return 0;
}

static unsigned
ep_get_count(const struct lr_mempool *mp)
{
	return relaxed_get(&store_of(mp)->free_objs);
}

static int
ep_alloc(struct lr_mempool *mp)
{
	(void)mp;
	return -EINVAL; /* made by lr_mp_elastic_setup_() only */
}

/* Give every block back, then the page pool, and forget the store. */
static void
ep_free(struct lr_mempool *mp)
{
	struct ep_store *st = store_of(mp);
	struct ep_store **pp;

	if (st == NULL)
		return;
	pthread_mutex_lock(&ep_list_lock);
	for (pp = &ep_stores; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == st) {
			*pp = st->next;
			break;
		}
	}
	pthread_mutex_unlock(&ep_list_lock);
	for (unsigned id = 0; id < EP_NLISTS; id++) {
		struct ep_block *b;

		while ((b = st->lists[id].head) != NULL) {
			struct lr_page *pg = b->page;

			list_del(st, b);
			b->magic = 0;
			b->mp = NULL;
			lr_page_pool_release_page(st->pp, pg);
		}
	}
	lr_page_pool_free(st->pp);
	pthread_mutex_destroy(&st->lock);
	free(st);
	mp->pool_data = NULL;
}

const struct lr_mempool_ops lr_mp_elastic_ops_ = {
    .name = "elastic",
    .alloc = ep_alloc,
    .free = ep_free,
    .enqueue = ep_enqueue,
    .dequeue = ep_dequeue,
    .get_count = ep_get_count,
};

/* ------------------------------------------------------------------ */
/* Setup.                                                               */

static int
make_page_pool(struct ep_store *st, struct lr_mempool *mp)
{
	struct lr_page_pool_params p = {
	    .name = mp->name,
	    .order = st->order,
	    .pool_size = st->max_blocks,
	    .ring_size = LR_MIN(st->max_blocks, (unsigned)EP_GROW_BULK),
	    .nid = mp->socket_id,
	    .dma_dir = LR_DMA_BIDIRECTIONAL,
	    .flags = LR_PP_FLAG_DMA_MAP,
	    /* Only lr_page_pool_alloc_bulk() and release are used: any
	     * thread, never the owner's cache. */
	    .owner_lcore = lr_lcore_id() < LR_MAX_LCORE ? LR_LCORE_ID_ANY : 0,
	};

	st->pp = lr_page_pool_create(&p);
	if (st->pp == NULL) {
		LR_LOG(ERR, MEMPOOL, "mempool '%s': page pool: %s\n", mp->name,
		       lr_strerror(lr_errno));
		return lr_errno == EINVAL ? EINVAL : ENOMEM;
	}
	return 0;
}

/* Register the one shrinker of elastic pools if it is not (again). */
static void
register_store(struct ep_store *st)
{
	pthread_mutex_lock(&ep_list_lock);
	if (ep_shrinker_id < 0) {
		ep_shrinker_id =
		    lr_pagealloc_register_shrinker(ep_shrink_all, NULL);
		if (ep_shrinker_id < 0)
			LR_LOG(WARNING, MEMPOOL,
			       "elastic mempools: no shrinker (%s): no blocks "
			       "given back under memory pressure\n",
			       lr_strerror(-ep_shrinker_id));
	}
	st->next = ep_stores;
	ep_stores = st;
	pthread_mutex_unlock(&ep_list_lock);
}

int
lr_mp_elastic_setup_(struct lr_mempool *mp, unsigned min, unsigned max,
		     lr_mempool_obj_cb_t *obj_init, void *obj_init_arg)
{
	struct ep_store *st;
	int rc;

	if (min > max) {
		LR_LOG(ERR, MEMPOOL, "mempool '%s': min %u objects > max %u\n",
		       mp->name, min, max);
		return EINVAL;
	}
	st = calloc(1, sizeof(*st));
	if (st == NULL)
		return ENOMEM;
	rc = layout(st, mp, max);
	if (rc != 0)
		goto free_st;
	pthread_mutex_init(&st->lock, NULL);
	st->mp = mp;
	st->min_objs = min;
	st->obj_init = obj_init;
	st->obj_init_arg = obj_init_arg;
	rc = make_page_pool(st, mp);
	if (rc != 0)
		goto destroy_lock;
	mp->pool_data = st;
	if (min > 0 && grow(st, min, lr_get_tsc_cycles()) < min) {
		LR_LOG(ERR, MEMPOOL,
		       "mempool '%s': no pages for %u objects (%u blocks of "
		       "order %u on node %d): %s\n",
		       mp->name, min, (min + st->per_block - 1) / st->per_block,
		       st->order, st->pp->nid, lr_strerror(lr_errno));
		ep_free(mp); /* frees st */
		return ENOMEM;
	}
	/* Counters count what happens after creation. */
	relaxed_set64(&st->growths, 0);
	relaxed_set64(&st->grown_blocks, 0);
	register_store(st);
	return 0;

destroy_lock:
	pthread_mutex_destroy(&st->lock);
free_st:
	free(st);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Public calls.                                                        */

unsigned
lr_mp_elastic_objs_(const struct lr_mempool *mp)
{
	return relaxed_get(&store_of(mp)->objs);
}

int
lr_mempool_elastic_stats_get(const struct lr_mempool *mp,
			     struct lr_mempool_elastic_stats *s)
{
	struct ep_store *st;

	if (!is_elastic(mp) || s == NULL)
		return -EINVAL;
	/* Without the store's lock (a get that misses every cache takes
	 * it): each field is written by the lock holder with a relaxed
	 * store, so each value read is one that was there. */
	st = store_of(mp);
	s->objs = relaxed_get(&st->objs);
	s->peak_objs = relaxed_get(&st->peak_objs);
	s->min_objs = st->min_objs;
	s->max_objs = mp->size;
	s->blocks = relaxed_get(&st->blocks);
	s->peak_blocks = relaxed_get(&st->peak_blocks);
	s->block_order = st->order;
	s->objs_per_block = st->per_block;
	s->idle_shrink_ms = relaxed_get(&st->idle_ms);
	s->node = st->pp->nid;
	s->growths = relaxed_get64(&st->growths);
	s->grown_blocks = relaxed_get64(&st->grown_blocks);
	s->shrinks = relaxed_get64(&st->shrinks);
	s->shrunk_blocks = relaxed_get64(&st->shrunk_blocks);
	s->grow_fail_max = relaxed_get64(&st->grow_fail_max);
	s->grow_fail_nomem = relaxed_get64(&st->grow_fail_nomem);
	s->bad_puts = relaxed_get64(&st->bad_puts);
	return 0;
}

int
lr_mempool_set_idle_shrink(struct lr_mempool *mp, unsigned ms)
{
	struct ep_store *st;

	if (!is_elastic(mp)) {
		LR_LOG(ERR, MEMPOOL,
		       "mempool '%s': idle shrink of a pool that is not "
		       "elastic\n",
		       mp != NULL ? mp->name : "(null)");
		return -EINVAL;
	}
	st = store_of(mp);
	pthread_mutex_lock(&st->lock);
	relaxed_set(&st->idle_ms, ms);
	st->idle_cycles = (uint64_t)((double)lr_get_tsc_hz() * ms / 1e3);
	if (ms != 0 && st->idle_cycles == 0)
		st->idle_cycles = 1;
	st->next_idle = 0;
	pthread_mutex_unlock(&st->lock);
	return 0;
}

unsigned long
lr_mempool_shrink_idle(struct lr_mempool *mp)
{
	struct ep_store *st;
	unsigned n = 0;

	if (!is_elastic(mp))
		return 0;
	st = store_of(mp);
	pthread_mutex_lock(&st->lock);
	if (st->idle_cycles != 0)
		n = shrink_locked(st, ULONG_MAX, 1, lr_get_tsc_cycles());
	pthread_mutex_unlock(&st->lock);
	return (unsigned long)n << st->order;
}

unsigned long
lr_mempool_shrink(struct lr_mempool *mp, unsigned long nr_pages)
{
	struct ep_store *st;
	unsigned long want;
	unsigned n;

	if (!is_elastic(mp))
		return 0;
	st = store_of(mp);
	want = nr_pages / (1UL << st->order) +
	       (nr_pages % (1UL << st->order) != 0);
	pthread_mutex_lock(&st->lock);
	n = shrink_locked(st, want, 0, lr_get_tsc_cycles());
	pthread_mutex_unlock(&st->lock);
	return (unsigned long)n << st->order;
}

uint64_t
lr_mempool_obj_iova(const struct lr_mempool *mp, const void *obj)
{
	if (is_elastic(mp)) {
		const struct ep_store *st = store_of(mp);
		uintptr_t base = (uintptr_t)obj & ~(uintptr_t)(st->bytes - 1);
		const struct ep_block *b = (const struct ep_block *)base;

		if (b->magic == EP_MAGIC && b->contig)
			return lr_page_pool_get_dma_addr(st->pp, b->page) +
			       ((uintptr_t)obj - base);
	}
	return lr_mempool_virt2iova(obj);
}

struct iter_arg {
	lr_mempool_obj_cb_t *cb;
	void *opaque;
	unsigned count;
};

static void
iter_one(struct ep_store *st, struct ep_block *b, void *obj, void *arg)
{
	struct iter_arg *ia = arg;

	(void)b;
	ia->cb(st->mp, ia->opaque, obj, ia->count++);
}

unsigned
lr_mp_elastic_obj_iter_(struct lr_mempool *mp, lr_mempool_obj_cb_t *cb,
			void *opaque)
{
	struct ep_store *st = store_of(mp);
	struct iter_arg ia = {cb, opaque, 0};

	pthread_mutex_lock(&st->lock);
	for (unsigned id = 0; id < EP_NLISTS; id++)
		for (struct ep_block *b = st->lists[id].head; b != NULL;
		     b = b->next)
			each_slot(st, b, iter_one, &ia);
	pthread_mutex_unlock(&st->lock);
	return ia.count;
}

static int
ptr_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t) * (void *const *)a;
	uintptr_t y = (uintptr_t) * (void *const *)b;

	return x < y ? -1 : x > y;
}

/* Check one block: its list, its free list, its counts; 0 or -EINVAL. */
static int
check_block(const struct ep_store *st, const struct ep_block *b, unsigned id)
{
	const struct lr_mempool *mp = st->mp;
	const char *why = NULL;
	unsigned n = 0;

	if (b->magic != EP_MAGIC || b->mp != mp)
		why = "header overwritten";
	else if (b->list != id)
		why = "on another list than its header says";
	else if (b->nfree > b->nobjs || b->nobjs == 0 ||
		 b->nobjs > st->per_block)
		why = "counts out of range";
	else if (list_for(b) != id)
		why = "on the wrong list for its free count";
	else if (lr_page_address(b->page) != (const void *)b ||
		 b->page->owner != st->pp)
		why = "page not the page pool's";
	for (const void *o = b->free; why == NULL && o != NULL;
	     o = *obj_link(mp, (void *)o)) {
		if (block_of(st, o) != b)
			why = "free list leaves the block";
		else if (++n > b->nfree)
			why = "free list longer than its count";
	}
	if (why == NULL && n != b->nfree)
		why = "free list shorter than its count";
	if (why == NULL)
		return 0;
	LR_LOG(ERR, MEMPOOL,
	       "mempool '%s': block %p (%s list, %u of %u free): %s\n",
	       mp->name, (const void *)b, list_names[id], b->nfree, b->nobjs,
	       why);
	return -EINVAL;
}

/* The store's own invariants (lock held); 0 or -EINVAL. */
static int
check_store(const struct ep_store *st)
{
	const struct lr_mempool *mp = st->mp;
	struct lr_page_pool_stats pps;
	uint64_t objs = 0, nfree = 0;
	unsigned blocks = 0;

	for (unsigned id = 0; id < EP_NLISTS; id++) {
		unsigned n = 0;

		for (const struct ep_block *b = st->lists[id].head; b != NULL;
		     b = b->next, n++) {
			if (check_block(st, b, id) != 0)
				return -EINVAL;
			objs += b->nobjs;
			nfree += b->nfree;
		}
		if (n != st->lists[id].n) {
			LR_LOG(ERR, MEMPOOL,
			       "mempool '%s': %s list has %u blocks, count "
			       "says %u\n",
			       mp->name, list_names[id], n, st->lists[id].n);
			return -EINVAL;
		}
		blocks += n;
	}
	lr_page_pool_stats_get(st->pp, &pps);
	if (objs != st->objs || nfree != st->free_objs ||
	    blocks != st->blocks || blocks > st->max_blocks ||
	    st->objs > mp->size || st->objs < st->min_objs ||
	    pps.held != blocks) {
		LR_LOG(ERR, MEMPOOL,
		       "mempool '%s': blocks %u (count %u, max %u, page pool "
		       "holds %llu), objects %llu (count %u, min %u, max %u), "
		       "free %llu (count %u)\n",
		       mp->name, blocks, st->blocks, st->max_blocks,
		       (unsigned long long)pps.held, (unsigned long long)objs,
		       st->objs, st->min_objs, mp->size,
		       (unsigned long long)nfree, st->free_objs);
		return -EINVAL;
	}
	return lr_page_pool_validate(st->pp);
}

int
lr_mp_elastic_validate_(const struct lr_mempool *mp, void *const *cached,
			unsigned n)
{
	struct ep_store *st = store_of(mp);
	void **sorted = NULL;
	int rc = 0;

	if (n != 0) {
		sorted = malloc((size_t)n * sizeof(*sorted));
		if (sorted == NULL)
			return -ENOMEM;
		memcpy(sorted, cached, (size_t)n * sizeof(*sorted));
		qsort(sorted, n, sizeof(*sorted), ptr_cmp);
	}
	pthread_mutex_lock(&st->lock);
	for (unsigned i = 0; i < n && rc == 0; i++) {
		const char *why = NULL;

		if (block_of(st, sorted[i]) == NULL)
			why = "not an object of a block of the pool";
		else if (*obj_link(mp, sorted[i]) != EP_INUSE)
			why = "also in the store";
		else if (i > 0 && sorted[i] == sorted[i - 1])
			why = "cached twice";
		if (why != NULL) {
			LR_LOG(ERR, MEMPOOL,
			       "mempool '%s': cached object %p: %s\n", mp->name,
			       sorted[i], why);
			rc = -EINVAL;
		}
	}
	if (rc == 0)
		rc = check_store(st);
	pthread_mutex_unlock(&st->lock);
	free(sorted);
	return rc;
}

void
lr_mp_elastic_dump_(FILE *f, const struct lr_mempool *mp)
{
	struct lr_mempool_elastic_stats s;

	if (lr_mempool_elastic_stats_get(mp, &s) != 0)
		return;
	fprintf(f,
		"  elastic: %u objects (min %u, max %u, peak %u) in %u blocks "
		"(peak %u) of order %u, %u objects each, node %d\n",
		s.objs, s.min_objs, s.max_objs, s.peak_objs, s.blocks,
		s.peak_blocks, s.block_order, s.objs_per_block, s.node);
	fprintf(
	    f,
	    "  elastic: growths %llu (+%llu blocks), shrinks %llu (-%llu "
	    "blocks), refused at max %llu, no memory %llu, bad puts %llu, "
	    "idle shrink %u ms\n",
	    (unsigned long long)s.growths, (unsigned long long)s.grown_blocks,
	    (unsigned long long)s.shrinks, (unsigned long long)s.shrunk_blocks,
	    (unsigned long long)s.grow_fail_max,
	    (unsigned long long)s.grow_fail_nomem,
	    (unsigned long long)s.bad_puts, s.idle_shrink_ms);
}
