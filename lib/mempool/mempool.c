/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Mempool creation, memory layout, the cache's refill and flush paths,
 * the shared path of threads without an lcore id, accounting and dumps.
 *
 * Layout of a block (2^order pinned pages). Let align be the cache line
 * (8 with LR_MEMPOOL_F_NO_CACHE_ALIGN), hdr the object header size,
 *   lead  = ALIGN(hdr, align)          offset of the first object
 *   total = ALIGN(hdr + elt_size, align) distance between objects
 * A block is cut into units: the whole block when its IOVA is contiguous
 * (or an object does not fit in a base page), else each base page. In a
 * unit, object j sits at lead + j * total and ends before the unit does:
 *   per_unit = (unit - lead - elt_size) / total + 1.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "lr_eal.h"
#include "lr_errno.h"
#include "lr_log.h"
#include "lr_mempool.h"
#include "lr_pagealloc.h"
#include "mempool_private.h"

/* Blocks aim at this size (a 2 MiB hugepage's worth) when the pool is
 * big enough, to keep page-table and allocator work per object low. */
#define BLOCK_TARGET_SHIFT 21

struct mp_block {
	struct lr_page *page; /* first block page; NULL: caller memory */
	char *addr;	      /* its address */
	size_t unit;	      /* bytes per unit */
	unsigned per_unit;    /* objects per unit */
	unsigned first_idx;   /* index of the block's first object */
	unsigned nb_objs;     /* objects carved from this block */
	unsigned order;	      /* page order (0 for caller's memory) */
	size_t len;	      /* bytes in the block */
};

struct mp_impl {
	struct mp_block *blocks;
	unsigned nb_blocks;
	unsigned lead; /* offset of the first object in a unit */
	void *mem;     /* raw allocation: the pool, then its caches */
};

/* Caller-provided memory of lr_mempool_create_xmem(). */
struct mp_xmem {
	void *addr;
	size_t len;
	unsigned stride;
};

/* How to get more memory, for an out-of-pages message. */
static const char *
heap_hint(void)
{
	static __thread char buf[160];

	if (lr_eal_initialized())
		return " (give the EAL more memory: -m or --numa-mem)";
	snprintf(buf, sizeof(buf),
		 " (the default heap is %zu MiB: size it with "
		 "lr_memory_set_default_heap() before the first pool, or "
		 "LR_HEAP_MB)",
		 lr_default_heap_size() >> 20);
	return buf;
}

static pthread_mutex_t pools_lock = PTHREAD_MUTEX_INITIALIZER;
static struct lr_mempool *pools;
static pthread_once_t release_once = PTHREAD_ONCE_INIT;
static int cleanup_registered;

static void pools_on_eal_cleanup(void);

/* ------------------------------------------------------------------ */
/* Store overflow report.                                              */

void
lr_mempool_store_overflow_(const struct lr_mempool *mp, unsigned n)
{
	LR_LOG(ERR, MEMPOOL,
	       "mempool '%s': backing store full, %u objects dropped "
	       "(put of objects not from this pool, or put twice)\n",
	       mp->name, n);
}

/* ------------------------------------------------------------------ */
/* Hot-path helpers kept out of line.                                   */

/* A get the inline bound sent here: the pool counts calls (the cache may
 * hold the n objects), or the cache holds fewer than n: it hands out what
 * it has (the hottest) and refills from the store. */
int
lr_mempool_get_slow_(struct lr_mempool *mp, struct lr_mempool_cache *c,
		     void **objs, unsigned n)
{
	unsigned len = c->len;

	LR_ASSERT(c->len <= c->flushthresh && c->size <= c->flushthresh);
	if (n <= len) {
		/* Served by the cache: only counting brought it here. */
		c->len = len - n;
		lr_mempool_copy_(objs, &c->objs[len - n], n);
		goto success;
	}
	/* The cache's objects are the hottest: the caller gets them. */
	lr_mempool_copy_(objs, c->objs, len);
	if (n <= c->size) {
		unsigned req = c->size + n - len;

		/* On failure the store writes nothing: c->objs is intact. */
		if (lr_mempool_store_dequeue_(mp, c->objs, req) == 0) {
			lr_mempool_copy_(objs + len, &c->objs[c->size],
					 n - len);
			c->len = c->size;
			c->stats.store_get_bulk++;
			goto success;
		}
	}
	/* Larger than the cache, or the store cannot refill it: take only
	 * the shortfall and leave the cache empty. */
	if (lr_mempool_store_dequeue_(mp, objs + len, n - len) == 0) {
		c->len = 0;
		c->stats.store_get_bulk++;
		goto success;
	}
	c->stats.get_fail_bulk++;
	c->stats.get_fail_objs += n;
	return -ENOENT;
success:
	if (c->count_calls) {
		c->stats.get_success_bulk++;
		c->stats.get_success_objs += n;
	}
	return 0;
}

/* A put the inline bound sent here: the pool counts calls (the objects
 * may fit), or the cache would pass its threshold (n <= size): the
 * coldest objects go to the store so that exactly size remain. */
void
lr_mempool_put_slow_(struct lr_mempool *mp, struct lr_mempool_cache *c,
		     void *const *objs, unsigned n)
{
	unsigned k;

	LR_ASSERT(c->len <= c->flushthresh);
	if (c->count_calls) {
		c->stats.put_bulk++;
		c->stats.put_objs += n;
	}
	if (c->len + n <= c->flushthresh) {
		lr_mempool_copy_(&c->objs[c->len], objs, n);
		c->len += n;
		return;
	}
	LR_ASSERT(n <= c->size);
	/* len + n > flushthresh >= size and n <= size: 0 < k <= len. Send
	 * the k coldest (the bottom) down, keep the rest, add the new ones
	 * on top: the cache ends at exactly size. */
	c->stats.store_put_bulk++;
	k = c->len + n - c->size;
	if (lr_unlikely(lr_mempool_store_enqueue_(mp, c->objs, k) != 0))
		lr_mempool_store_overflow_(mp, k);
	memmove(c->objs, &c->objs[k], (size_t)(c->len - k) * sizeof(void *));
	c->len -= k;
	lr_mempool_copy_(&c->objs[c->len], objs, n);
	c->len += n;
	LR_ASSERT(c->len == c->size);
}

int
lr_mempool_get_shared_(struct lr_mempool *mp, void **objs, unsigned n)
{
	struct lr_mempool_shared_stats *st = &mp->shared_stats;

	if (n == 0 || lr_mempool_store_dequeue_(mp, objs, n) == 0) {
		atomic_fetch_add_explicit(&st->get_success_bulk, 1,
					  memory_order_relaxed);
		atomic_fetch_add_explicit(&st->get_success_objs, n,
					  memory_order_relaxed);
		atomic_fetch_add_explicit(&st->store_get_bulk, 1,
					  memory_order_relaxed);
		return 0;
	}
	atomic_fetch_add_explicit(&st->get_fail_bulk, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&st->get_fail_objs, n, memory_order_relaxed);
	return -ENOENT;
}

void
lr_mempool_put_shared_(struct lr_mempool *mp, void *const *objs, unsigned n)
{
	struct lr_mempool_shared_stats *st = &mp->shared_stats;

	atomic_fetch_add_explicit(&st->put_bulk, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&st->put_objs, n, memory_order_relaxed);
	atomic_fetch_add_explicit(&st->store_put_bulk, 1, memory_order_relaxed);
	if (n != 0 && lr_unlikely(lr_mempool_store_enqueue_(mp, objs, n) != 0))
		lr_mempool_store_overflow_(mp, n);
}

#if LR_MEMPOOL_DEBUG
static __lr_cold void
cookie_error(const struct lr_mempool *mp, const void *obj,
	     const struct lr_mempool_objhdr *h, int getting)
{
	LR_LOG(ERR, MEMPOOL,
	       "mempool '%s': %s of object %p: header pool %p (%s), cookie "
	       "%#llx: %s\n",
	       mp->name, getting ? "get" : "put", obj, (void *)h->mp,
	       h->mp == mp ? "this pool" : "another pool",
	       (unsigned long long)h->cookie,
	       h->mp != mp ? "object of another pool"
	       : getting   ? "object in the pool was written or given twice"
			   : "object already in the pool (double put)");
	abort();
}
#endif

void
lr_mempool_check_cookies_(const struct lr_mempool *mp, void *const *objs,
			  unsigned n, int getting)
{
#if LR_MEMPOOL_DEBUG
	for (unsigned i = 0; i < n; i++) {
		struct lr_mempool_objhdr *h =
		    (struct lr_mempool_objhdr *)objs[i] - 1;
		uint64_t want =
		    getting ? LR_MEMPOOL_COOKIE_FREE : LR_MEMPOOL_COOKIE_INUSE;

		if (lr_unlikely(h->mp != mp || h->cookie != want))
			cookie_error(mp, objs[i], h, getting);
		h->cookie =
		    getting ? LR_MEMPOOL_COOKIE_INUSE : LR_MEMPOOL_COOKIE_FREE;
	}
#else
	(void)mp;
	(void)objs;
	(void)n;
	(void)getting;
#endif
}

/* ------------------------------------------------------------------ */
/* Layout.                                                              */

static inline size_t
block_bytes(unsigned order)
{
	return (size_t)LR_PAGE_SIZE << order;
}

static inline unsigned
objs_in(size_t unit, size_t lead, size_t elt, size_t total)
{
	if (unit < lead + elt)
		return 0;
	return (unsigned)((unit - lead - elt) / total + 1);
}

static inline char *
block_obj(const struct mp_block *b, unsigned lead, unsigned total, unsigned k)
{
	unsigned u = k / b->per_unit, j = k % b->per_unit;

	return b->addr + (size_t)u * b->unit + lead + (size_t)j * total;
}

int
lr_mp_block_iova_contig_(const char *addr, unsigned order)
{
	uint64_t iova0 = lr_page_iova(lr_virt_to_page(addr));

	for (size_t i = 1; i < ((size_t)1 << order); i++) {
		const struct lr_page *p =
		    lr_virt_to_page(addr + i * LR_PAGE_SIZE);

		if (p == NULL || lr_page_iova(p) != iova0 + i * LR_PAGE_SIZE)
			return 0;
	}
	return 1;
}

/* Order of the blocks: big enough for one object, as big as the pool
 * needs up to the target size. */
static unsigned
pick_order(size_t lead, size_t elt, size_t total, unsigned n)
{
	unsigned one = 0, want = 0, target;
	size_t need = lead + (size_t)n * total;

	while (block_bytes(one) < lead + elt)
		one++;
	while (want < LR_MAX_ORDER - 1 && block_bytes(want) < need)
		want++;
	target = BLOCK_TARGET_SHIFT > LR_PAGE_SHIFT
		     ? BLOCK_TARGET_SHIFT - LR_PAGE_SHIFT
		     : 0;
	if (target > LR_MAX_ORDER - 1)
		target = LR_MAX_ORDER - 1;
	return LR_MAX(one, LR_MIN(want, target));
}

static void
free_blocks(struct lr_mempool *mp, struct mp_impl *im)
{
	for (unsigned i = 0; i < im->nb_blocks; i++) {
		if (im->blocks[i].page == NULL)
			continue; /* the caller's memory stays the caller's */
		lr_page_set_owner(im->blocks[i].page, NULL, NULL);
		lr_free_pages(im->blocks[i].page, im->blocks[i].order);
	}
	free(im->blocks);
	im->blocks = NULL;
	im->nb_blocks = 0;
	(void)mp;
}

/* Carve mp->size objects out of pinned blocks. */
static int
populate(struct lr_mempool *mp, struct mp_impl *im, unsigned order_hint)
{
	size_t elt = mp->elt_size, total = mp->total_elt_size;
	unsigned lead = im->lead, done = 0, cap = 0, order = order_hint;
	size_t one = lead + elt;

	while (done < mp->size) {
		struct mp_block *b;
		struct lr_page *pg;

		pg = lr_alloc_pages(mp->socket_id, order, LR_ALLOC_PINNED);
		while (pg == NULL && order > 0 &&
		       block_bytes(order - 1) >= one) {
			order--;
			pg = lr_alloc_pages(mp->socket_id, order,
					    LR_ALLOC_PINNED);
		}
		if (pg == NULL) {
			LR_LOG(ERR, MEMPOOL,
			       "mempool '%s': no pages for objects %u..%u "
			       "(order %u on node %d): %s%s\n",
			       mp->name, done, mp->size - 1, order,
			       mp->socket_id, lr_strerror(lr_errno),
			       heap_hint());
			return -ENOMEM;
		}
		if (im->nb_blocks == cap) {
			unsigned ncap = cap ? cap * 2 : 8;
			void *nb = realloc(im->blocks, ncap * sizeof(*b));

			if (nb == NULL) {
				lr_free_pages(pg, order);
				return -ENOMEM;
			}
			im->blocks = nb;
			cap = ncap;
		}
		lr_page_set_owner(pg, mp, mp->name);
		b = &im->blocks[im->nb_blocks++];
		b->page = pg;
		b->addr = lr_page_address(pg);
		b->order = order;
		b->len = block_bytes(order);
		b->first_idx = done;
		b->unit = block_bytes(order);
		if (one <= LR_PAGE_SIZE &&
		    ((mp->flags & LR_MEMPOOL_F_NO_STRADDLE) ||
		     !lr_mp_block_iova_contig_(b->addr, order)))
			b->unit = LR_PAGE_SIZE;
		b->per_unit = objs_in(b->unit, lead, elt, total);
		b->nb_objs =
		    b->per_unit * (unsigned)(block_bytes(order) / b->unit);
		if (b->nb_objs > mp->size - done)
			b->nb_objs = mp->size - done;
		done += b->nb_objs;
	}
	mp->block_order = order_hint;
	mp->nb_blocks = im->nb_blocks;
	return 0;
}

/* One block over the caller's memory: object j at addr + j * stride +
 * lead (mp->total_elt_size == stride). */
static int
populate_xmem(struct lr_mempool *mp, struct mp_impl *im,
	      const struct mp_xmem *x)
{
	struct mp_block *b = calloc(1, sizeof(*b));

	if (b == NULL)
		return -ENOMEM;
	b->addr = x->addr;
	b->len = x->len;
	b->unit = x->len;
	b->per_unit = mp->size;
	b->nb_objs = mp->size;
	im->blocks = b;
	im->nb_blocks = 1;
	mp->block_order = 0;
	mp->nb_blocks = 1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Creation.                                                            */

static void
release_lcore(unsigned lcore_id, void *arg)
{
	(void)arg;
	pthread_mutex_lock(&pools_lock);
	for (struct lr_mempool *mp = pools; mp != NULL; mp = mp->next)
		lr_mempool_cache_flush(mp, lcore_id);
	pthread_mutex_unlock(&pools_lock);
}

static void
register_release(void)
{
	if (lr_lcore_on_release(release_lcore, NULL) != 0)
		LR_LOG(WARNING, MEMPOOL,
		       "mempool: cannot hook thread unregistration; caches of "
		       "unregistered threads stay filled until "
		       "lr_mempool_cache_flush()\n");
}

/* LR_MEMPOOL_STATS=1 in the environment: every pool counts every call. */
static int
stats_from_env(void)
{
	const char *v = getenv("LR_MEMPOOL_STATS");

	return v != NULL && strcmp(v, "1") == 0;
}

static const char *
default_ops_name(unsigned flags)
{
	unsigned f = flags & (LR_MEMPOOL_F_SP_PUT | LR_MEMPOOL_F_SC_GET);

	if (f == (LR_MEMPOOL_F_SP_PUT | LR_MEMPOOL_F_SC_GET))
		return "ring_sp_sc";
	if (f == LR_MEMPOOL_F_SP_PUT)
		return "ring_sp_mc";
	if (f == LR_MEMPOOL_F_SC_GET)
		return "ring_mp_sc";
	return "ring_mp_mc";
}

static struct lr_mempool *
find_pool(const char *name)
{
	for (struct lr_mempool *mp = pools; mp != NULL; mp = mp->next)
		if (strcmp(mp->name, name) == 0)
			return mp;
	return NULL;
}

static int
check_args(const char *name, unsigned n, unsigned elt_size, unsigned cache_size,
	   unsigned flags, const char *ops_name,
	   const struct lr_mempool_ops **ops)
{
	size_t max_block = block_bytes(LR_MAX_ORDER - 1);
	size_t need = sizeof(struct lr_mempool_objhdr) + (size_t)elt_size;
	int dup;

	if (name == NULL || name[0] == '\0') {
		LR_LOG(ERR, MEMPOOL, "mempool: no name given\n");
		return EINVAL;
	}
	if (strnlen(name, LR_MEMPOOL_NAMESIZE) == LR_MEMPOOL_NAMESIZE) {
		LR_LOG(ERR, MEMPOOL, "mempool '%s': name longer than %d\n",
		       name, LR_MEMPOOL_NAMESIZE - 1);
		return ENAMETOOLONG;
	}
	if (n == 0) {
		LR_LOG(ERR, MEMPOOL, "mempool '%s': pool size 0\n", name);
		return EINVAL;
	}
	if (elt_size == 0) {
		LR_LOG(ERR, MEMPOOL, "mempool '%s': element size 0\n", name);
		return EINVAL;
	}
	if (need + LR_CACHE_LINE_SIZE > max_block) {
		LR_LOG(ERR, MEMPOOL,
		       "mempool '%s': element size %u > largest block %zu "
		       "(order %d) less the header\n",
		       name, elt_size, max_block, LR_MAX_ORDER - 1);
		return EINVAL;
	}
	if (cache_size > LR_MEMPOOL_CACHE_MAX_SIZE) {
		LR_LOG(ERR, MEMPOOL, "mempool '%s': cache size %u > max %d\n",
		       name, cache_size, LR_MEMPOOL_CACHE_MAX_SIZE);
		return EINVAL;
	}
	if (cache_size > n) {
		LR_LOG(ERR, MEMPOOL,
		       "mempool '%s': cache size %u > pool size %u\n", name,
		       cache_size, n);
		return EINVAL;
	}
	if (flags & ~(unsigned)LR_MEMPOOL_F_ALL) {
		LR_LOG(ERR, MEMPOOL, "mempool '%s': unknown flags %#x\n", name,
		       flags & ~(unsigned)LR_MEMPOOL_F_ALL);
		return EINVAL;
	}
	if (ops_name == NULL)
		ops_name = default_ops_name(flags);
	*ops = lr_mempool_ops_lookup(ops_name);
	if (*ops == NULL) {
		LR_LOG(ERR, MEMPOOL, "mempool '%s': unknown ops '%s'\n", name,
		       ops_name);
		return EINVAL;
	}
	pthread_mutex_lock(&pools_lock);
	dup = find_pool(name) != NULL;
	pthread_mutex_unlock(&pools_lock);
	if (dup) {
		LR_LOG(ERR, MEMPOOL, "mempool '%s': name already in use\n",
		       name);
		return EEXIST;
	}
	return 0;
}

/* Bytes from one lcore's cache to the next: the header and 2 x
 * cache_size slots (the cache's capacity; it holds at most flushthresh,
 * 1.5 x cache_size), whole cache lines. */
static size_t
cache_stride(unsigned cache_size)
{
	return LR_ALIGN_CEIL(offsetof(struct lr_mempool_cache, objs) +
				 (size_t)cache_size * 2 * sizeof(void *),
			     (size_t)LR_CACHE_LINE_SIZE);
}

/* Set up the LR_MAX_LCORE empty caches after the pool's structure. The
 * inline bounds of a pool that counts its calls pass no call. */
static void
init_caches(struct lr_mempool *mp)
{
	int count = !!(mp->flags & LR_MEMPOOL_F_STATS);

	for (unsigned i = 0; i < LR_MAX_LCORE; i++) {
		struct lr_mempool_cache *c = lr_mempool_lcore_cache(mp, i);

		c->size = mp->cache_size;
		c->flushthresh = mp->cache_size * 3 / 2;
		c->count_calls = (uint32_t)count;
		c->fast_get_min = count ? UINT32_MAX : 0;
		c->fast_put_lim = count ? 0 : c->flushthresh;
	}
}

/* Give back the pool's structure, caches, private area and state. */
static void
pool_release(struct lr_mempool *mp)
{
	struct mp_impl *im = mp->impl;
	void *mem = im->mem;

	free(mp->priv);
	free(im);
	free(mem); /* mp and its caches */
}

struct init_arg {
	lr_mempool_obj_cb_t *obj_init;
	void *arg;
	void **objs;
};

static void
init_one(struct lr_mempool *mp, void *opaque, void *obj, unsigned idx)
{
	struct init_arg *ia = opaque;
	struct lr_mempool_objhdr *h = (struct lr_mempool_objhdr *)obj - 1;

	h->mp = mp;
#if LR_MEMPOOL_DEBUG
	h->cookie = LR_MEMPOOL_COOKIE_FREE;
#endif
	if (ia->obj_init != NULL)
		ia->obj_init(mp, ia->arg, obj, idx);
	ia->objs[idx] = obj;
}

/* The pool's descriptor, caches and private state, sized for n objects
 * of elt_size (x: carved from caller memory); NULL after ENOMEM. */
static struct lr_mempool *
pool_new(const char *name, unsigned n, unsigned elt_size, unsigned cache_size,
	 unsigned private_data_size, int socket_id, unsigned flags,
	 const struct lr_mempool_ops *ops, const struct mp_xmem *x)
{
	size_t stride = cache_stride(cache_size);
	struct lr_mempool *mp;
	struct mp_impl *im;
	unsigned align;
	void *mem;

	/* calloc: an area this large comes zeroed from mmap, its pages
	 * untouched until an lcore uses its cache. */
	mem =
	    calloc(1, sizeof(*mp) + stride * LR_MAX_LCORE + LR_CACHE_LINE_SIZE);
	im = calloc(1, sizeof(*im));
	if (mem == NULL || im == NULL) {
		LR_LOG(ERR, MEMPOOL,
		       "mempool '%s': no memory for the pool and %d caches\n",
		       name, LR_MAX_LCORE);
		free(im);
		free(mem);
		return NULL;
	}
	mp = (struct lr_mempool *)LR_ALIGN_CEIL((uintptr_t)mem,
						(uintptr_t)LR_CACHE_LINE_SIZE);
	im->mem = mem;
	snprintf(mp->name, sizeof(mp->name), "%s", name);
	mp->size = n;
	mp->elt_size = elt_size;
	mp->cache_size = cache_size;
	mp->cache_stride = (uint32_t)stride;
	mp->flags = flags | (stats_from_env() ? LR_MEMPOOL_F_STATS : 0);
	mp->socket_id = socket_id;
	mp->private_data_size = private_data_size;
	mp->ops = ops;
	mp->impl = im;
	align = (flags & LR_MEMPOOL_F_NO_CACHE_ALIGN) ? 8 : LR_CACHE_LINE_SIZE;
	mp->header_size = sizeof(struct lr_mempool_objhdr);
	mp->total_elt_size =
	    x != NULL ? x->stride
		      : LR_ALIGN_CEIL(mp->header_size + elt_size, align);
	im->lead = LR_ALIGN_CEIL(mp->header_size, align);
	init_caches(mp);
	if (private_data_size != 0) {
		mp->priv = calloc(1, private_data_size);
		if (mp->priv == NULL) {
			pool_release(mp);
			return NULL;
		}
	}
	return mp;
}

/* Initialise every object, then fill the store in index order; 0 or a
 * positive errno. */
static int
fill_store(struct lr_mempool *mp, lr_mempool_obj_cb_t *obj_init,
	   void *obj_init_arg)
{
	struct init_arg ia = {obj_init, obj_init_arg, NULL};
	int rc;

	ia.objs = malloc((size_t)mp->size * sizeof(void *));
	if (ia.objs == NULL)
		return ENOMEM;
	lr_mempool_obj_iter(mp, init_one, &ia);
	rc = -mp->ops->enqueue(mp, ia.objs, mp->size);
	free(ia.objs);
	if (rc != 0)
		LR_LOG(ERR, MEMPOOL,
		       "mempool '%s': store '%s' refused the %u objects\n",
		       mp->name, mp->ops->name, mp->size);
	return rc;
}

/* Put mp on the list of pools; EEXIST if the name was taken meanwhile. */
static int
register_pool(struct lr_mempool *mp)
{
	pthread_mutex_lock(&pools_lock);
	if (find_pool(mp->name) != NULL) {
		pthread_mutex_unlock(&pools_lock);
		LR_LOG(ERR, MEMPOOL, "mempool '%s': name already in use\n",
		       mp->name);
		return EEXIST;
	}
	mp->next = pools;
	pools = mp;
	/* Registered once the page allocator is up (it registered its own
	 * hook first), so that pools go before its memory does. */
	if (!cleanup_registered && lr_eal_on_cleanup(pools_on_eal_cleanup) == 0)
		cleanup_registered = 1;
	pthread_mutex_unlock(&pools_lock);
	return 0;
}

/* The start of every creator: the arguments checked (the backing store
 * ops_name's, or store when given, with extra flags), then a new pool
 * (pool_new()) not yet populated; NULL with lr_errno. */
static struct lr_mempool *
pool_start(const char *name, unsigned n, unsigned elt_size, unsigned cache_size,
	   unsigned private_data_size, int socket_id, unsigned flags,
	   const char *ops_name, const struct lr_mempool_ops *store,
	   unsigned extra, const struct mp_xmem *x)
{
	const struct lr_mempool_ops *ops = NULL;
	struct lr_mempool *mp;
	int rc;

	rc = check_args(name, n, elt_size, cache_size, flags, ops_name, &ops);
	if (rc != 0) {
		lr_errno = rc;
		return NULL;
	}
	pthread_once(&release_once, register_release);
	mp = pool_new(name, n, elt_size, cache_size, private_data_size,
		      socket_id, flags | extra, store != NULL ? store : ops, x);
	if (mp == NULL)
		lr_errno = ENOMEM;
	return mp;
}

static struct lr_mempool *
create_common(const char *name, unsigned n, unsigned elt_size,
	      unsigned cache_size, unsigned private_data_size,
	      lr_mempool_obj_cb_t *obj_init, void *obj_init_arg, int socket_id,
	      unsigned flags, const char *ops_name, const struct mp_xmem *x)
{
	const struct lr_mempool_ops *ops;
	struct lr_mempool *mp;
	struct mp_impl *im;
	int rc;

	mp = pool_start(name, n, elt_size, cache_size, private_data_size,
			socket_id, flags, ops_name, NULL, 0, x);
	if (mp == NULL)
		return NULL;
	ops = mp->ops;
	im = mp->impl;
	rc = -ops->alloc(mp);
	if (rc != 0)
		goto free_mp;
	if (x != NULL)
		rc = -populate_xmem(mp, im, x);
	else
		rc = -populate(
		    mp, im,
		    pick_order(im->lead, elt_size, mp->total_elt_size, n));
	if (rc == 0)
		rc = fill_store(mp, obj_init, obj_init_arg);
	if (rc == 0)
		rc = register_pool(mp);
	if (rc != 0)
		goto free_blocks;
	LR_LOG(DEBUG, MEMPOOL,
	       "mempool '%s': %u x %u bytes (%u apart), cache %u, ops %s, "
	       "%u blocks of order %u\n",
	       name, n, elt_size, mp->total_elt_size, cache_size, ops->name,
	       mp->nb_blocks, mp->block_order);
	return mp;

free_blocks:
	free_blocks(mp, im);
	ops->free(mp);
free_mp:
	pool_release(mp);
	lr_errno = rc;
	return NULL;
}

struct lr_mempool *
lr_mempool_create_ops(const char *name, unsigned n, unsigned elt_size,
		      unsigned cache_size, unsigned private_data_size,
		      lr_mempool_obj_cb_t *obj_init, void *obj_init_arg,
		      int socket_id, unsigned flags, const char *ops_name)
{
	return create_common(name, n, elt_size, cache_size, private_data_size,
			     obj_init, obj_init_arg, socket_id, flags, ops_name,
			     NULL);
}

unsigned
lr_mempool_obj_offset(unsigned flags)
{
	unsigned align =
	    (flags & LR_MEMPOOL_F_NO_CACHE_ALIGN) ? 8 : LR_CACHE_LINE_SIZE;

	return LR_ALIGN_CEIL((unsigned)sizeof(struct lr_mempool_objhdr), align);
}

struct lr_mempool *
lr_mempool_create_xmem(const char *name, void *addr, size_t len,
		       unsigned stride, unsigned elt_size, unsigned cache_size,
		       unsigned private_data_size,
		       lr_mempool_obj_cb_t *obj_init, void *obj_init_arg,
		       int socket_id, unsigned flags)
{
	unsigned lead = lr_mempool_obj_offset(flags);
	unsigned align =
	    (flags & LR_MEMPOOL_F_NO_CACHE_ALIGN) ? 8 : LR_CACHE_LINE_SIZE;
	struct mp_xmem x = {.addr = addr, .len = len, .stride = stride};
	const char *why = NULL;

	if (addr == NULL)
		why = "no memory given";
	else if ((uintptr_t)addr % align != 0)
		why = "memory not aligned to the object alignment";
	else if (stride == 0 || stride % align != 0)
		why = "stride not a non-zero multiple of the object alignment";
	else if ((size_t)lead + elt_size > stride)
		why = "object and its header larger than the stride";
	else if (len / stride == 0 || len / stride > UINT32_MAX)
		why = "memory holds no object (or too many)";
	if (why != NULL) {
		LR_LOG(ERR, MEMPOOL,
		       "mempool '%s': external memory %p, %zu bytes, stride "
		       "%u, element %u: %s\n",
		       name ? name : "(null)", addr, len, stride, elt_size,
		       why);
		lr_errno = EINVAL;
		return NULL;
	}
	return create_common(name, (unsigned)(len / stride), elt_size,
			     cache_size, private_data_size, obj_init,
			     obj_init_arg, socket_id, flags, NULL, &x);
}

struct lr_mempool *
lr_mempool_create(const char *name, unsigned n, unsigned elt_size,
		  unsigned cache_size, unsigned private_data_size,
		  lr_mempool_obj_cb_t *obj_init, void *obj_init_arg,
		  int socket_id, unsigned flags)
{
	return lr_mempool_create_ops(name, n, elt_size, cache_size,
				     private_data_size, obj_init, obj_init_arg,
				     socket_id, flags, NULL);
}

struct lr_mempool *
lr_mempool_create_elastic(const char *name, unsigned min, unsigned max,
			  unsigned elt_size, unsigned cache_size,
			  unsigned private_data_size, const void *priv_init,
			  lr_mempool_obj_cb_t *obj_init, void *obj_init_arg,
			  int socket_id, unsigned flags)
{
	struct lr_mempool *mp;
	int rc;

	mp = pool_start(name, max, elt_size, cache_size, private_data_size,
			socket_id, flags, NULL, &lr_mp_elastic_ops_,
			LR_MEMPOOL_F_ELASTIC, NULL);
	if (mp == NULL)
		return NULL;
	if (priv_init != NULL && private_data_size != 0)
		memcpy(mp->priv, priv_init, private_data_size);
	rc = lr_mp_elastic_setup_(mp, min, max, obj_init, obj_init_arg);
	if (rc != 0)
		goto free_mp;
	rc = register_pool(mp);
	if (rc != 0)
		goto free_store;
	LR_LOG(DEBUG, MEMPOOL,
	       "mempool '%s': elastic, %u..%u x %u bytes (%u apart), cache "
	       "%u, blocks of order %u\n",
	       name, min, mp->size, elt_size, mp->total_elt_size, cache_size,
	       mp->block_order);
	return mp;

free_store:
	mp->ops->free(mp);
free_mp:
	pool_release(mp);
	lr_errno = rc;
	return NULL;
}

/* Give back everything of a pool already off the list. */
static void
destroy(struct lr_mempool *mp)
{
	struct mp_impl *im = mp->impl;
	unsigned avail;

	lr_mempool_cache_flush(mp, LR_LCORE_ID_ANY);
	avail = mp->ops->get_count(mp);
	if (avail != lr_mempool_objs_count(mp))
		LR_LOG(ERR, MEMPOOL,
		       "mempool '%s': freed with %u of %u objects still in "
		       "use\n",
		       mp->name, lr_mempool_objs_count(mp) - avail,
		       lr_mempool_objs_count(mp));
	free_blocks(mp, im);
	mp->ops->free(mp);
	pool_release(mp);
}

void
lr_mempool_free(struct lr_mempool *mp)
{
	struct lr_mempool **pp;

	if (mp == NULL)
		return;
	pthread_mutex_lock(&pools_lock);
	for (pp = &pools; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == mp) {
			*pp = mp->next;
			break;
		}
	}
	pthread_mutex_unlock(&pools_lock);
	destroy(mp);
}

/* The EAL is going and the page allocator's memory with it: pools still
 * there are freed (their objects become invalid). */
static void
pools_on_eal_cleanup(void)
{
	struct lr_mempool *list, *next;

	pthread_mutex_lock(&pools_lock);
	list = pools;
	pools = NULL;
	pthread_mutex_unlock(&pools_lock);
	for (struct lr_mempool *mp = list; mp != NULL; mp = next) {
		next = mp->next;
		LR_LOG(WARNING, MEMPOOL,
		       "mempool '%s' still exists at EAL cleanup: freed\n",
		       mp->name);
		destroy(mp);
	}
	lr_mp_elastic_forget_shrinker_();
}

struct lr_mempool *
lr_mempool_lookup(const char *name)
{
	struct lr_mempool *mp = NULL;

	if (name != NULL) {
		pthread_mutex_lock(&pools_lock);
		mp = find_pool(name);
		pthread_mutex_unlock(&pools_lock);
	}
	if (mp == NULL)
		lr_errno = ENOENT;
	return mp;
}

void
lr_mempool_walk(void (*fn)(struct lr_mempool *mp, void *arg), void *arg)
{
	pthread_mutex_lock(&pools_lock);
	for (struct lr_mempool *mp = pools; mp != NULL; mp = mp->next)
		fn(mp, arg);
	pthread_mutex_unlock(&pools_lock);
}

/* ------------------------------------------------------------------ */
/* Accounting.                                                          */

unsigned
lr_mempool_store_count(const struct lr_mempool *mp)
{
	return mp->ops->get_count(mp);
}

unsigned
lr_mempool_cache_count(const struct lr_mempool *mp, unsigned lcore_id)
{
	if (lcore_id >= LR_MAX_LCORE)
		return 0;
	return __atomic_load_n(&lr_mempool_lcore_cache(mp, lcore_id)->len,
			       __ATOMIC_RELAXED);
}

unsigned
lr_mempool_objs_count(const struct lr_mempool *mp)
{
	if (mp->flags & LR_MEMPOOL_F_ELASTIC)
		return lr_mp_elastic_objs_(mp);
	return mp->size;
}

size_t
lr_mempool_mem_bytes(const struct lr_mempool *mp)
{
	const struct mp_impl *im;
	struct lr_mempool_elastic_stats s;
	size_t bytes = 0;

	if (mp == NULL)
		return 0;
	if (mp->flags & LR_MEMPOOL_F_ELASTIC) {
		if (lr_mempool_elastic_stats_get(mp, &s) != 0)
			return 0;
		return (size_t)s.blocks * (LR_PAGE_SIZE << s.block_order);
	}
	im = mp->impl;
	for (unsigned i = 0; i < im->nb_blocks; i++)
		bytes += im->blocks[i].len;
	return bytes;
}

unsigned
lr_mempool_avail_count(const struct lr_mempool *mp)
{
	unsigned count = lr_mempool_store_count(mp), objs;

	for (unsigned i = 0; i < LR_MAX_LCORE; i++)
		count += lr_mempool_cache_count(mp, i);
	/* Caches read while they change may count an object twice. */
	objs = lr_mempool_objs_count(mp);
	return count > objs ? objs : count;
}

unsigned
lr_mempool_in_use_count(const struct lr_mempool *mp)
{
	unsigned objs = lr_mempool_objs_count(mp);
	unsigned avail = lr_mempool_avail_count(mp);

	/* An elastic pool may grow between the two reads. */
	return avail > objs ? 0 : objs - avail;
}

void
lr_mempool_cache_flush(struct lr_mempool *mp, unsigned lcore_id)
{
	unsigned first = lcore_id, last = lcore_id;

	if (lcore_id == LR_LCORE_ID_ANY) {
		first = 0;
		last = LR_MAX_LCORE - 1;
	} else if (lcore_id >= LR_MAX_LCORE) {
		return;
	}
	for (unsigned i = first; i <= last; i++) {
		struct lr_mempool_cache *c = lr_mempool_lcore_cache(mp, i);

		if (c->len == 0)
			continue;
		c->stats.store_put_bulk++;
		if (lr_mempool_store_enqueue_(mp, c->objs, c->len) != 0)
			lr_mempool_store_overflow_(mp, c->len);
		c->len = 0;
	}
}

void
lr_mempool_stats_get(const struct lr_mempool *mp, struct lr_mempool_stats *st)
{
	const struct lr_mempool_shared_stats *sh = &mp->shared_stats;

	st->put_bulk = atomic_load(&sh->put_bulk);
	st->put_objs = atomic_load(&sh->put_objs);
	st->get_success_bulk = atomic_load(&sh->get_success_bulk);
	st->get_success_objs = atomic_load(&sh->get_success_objs);
	st->get_fail_bulk = atomic_load(&sh->get_fail_bulk);
	st->get_fail_objs = atomic_load(&sh->get_fail_objs);
	st->store_put_bulk = atomic_load(&sh->store_put_bulk);
	st->store_get_bulk = atomic_load(&sh->store_get_bulk);
	for (unsigned i = 0; i < LR_MAX_LCORE; i++) {
		const struct lr_mempool_stats *s =
		    &lr_mempool_lcore_cache(mp, i)->stats;

		st->put_bulk += s->put_bulk;
		st->put_objs += s->put_objs;
		st->get_success_bulk += s->get_success_bulk;
		st->get_success_objs += s->get_success_objs;
		st->get_fail_bulk += s->get_fail_bulk;
		st->get_fail_objs += s->get_fail_objs;
		st->store_put_bulk += s->store_put_bulk;
		st->store_get_bulk += s->store_get_bulk;
	}
}

/* Index of obj in mp, or -1 if it is not an object of mp. */
static long
obj_index(const struct lr_mempool *mp, const void *obj)
{
	const struct mp_impl *im = mp->impl;
	uintptr_t a = (uintptr_t)obj;

	for (unsigned i = 0; i < im->nb_blocks; i++) {
		const struct mp_block *b = &im->blocks[i];
		uintptr_t base = (uintptr_t)b->addr, off, in_unit, u, j;

		if (a < base || a >= base + b->len)
			continue;
		off = a - base;
		u = off / b->unit;
		in_unit = off % b->unit;
		if (in_unit < im->lead ||
		    (in_unit - im->lead) % mp->total_elt_size != 0)
			return -1;
		j = (in_unit - im->lead) / mp->total_elt_size;
		if (j >= b->per_unit || u * b->per_unit + j >= b->nb_objs)
			return -1;
		return (long)(b->first_idx + u * b->per_unit + j);
	}
	return -1;
}

/* Lcore i's cache of mp, holding no more than its threshold: the cache,
 * or NULL after a log. */
static const struct lr_mempool_cache *
cache_checked(const struct lr_mempool *mp, unsigned i)
{
	const struct lr_mempool_cache *c = lr_mempool_lcore_cache(mp, i);

	if (lr_likely(c->len <= c->flushthresh))
		return c;
	LR_LOG(ERR, MEMPOOL,
	       "mempool '%s': lcore %u cache holds %u > its threshold %u\n",
	       mp->name, i, c->len, c->flushthresh);
	return NULL;
}

/* Elastic pools: every cached object, checked by the store; 0 or -errno. */
static int
validate_elastic_caches(const struct lr_mempool *mp, uint64_t *cached)
{
	unsigned n = 0;
	void **all;
	int rc;

	*cached = 0;
	for (unsigned i = 0; i < LR_MAX_LCORE; i++) {
		const struct lr_mempool_cache *c = cache_checked(mp, i);

		if (c == NULL)
			return -EINVAL;
		*cached += c->len;
	}
	all = malloc((size_t)(*cached + 1) * sizeof(*all));
	if (all == NULL)
		return -ENOMEM;
	for (unsigned i = 0; i < LR_MAX_LCORE; i++) {
		const struct lr_mempool_cache *c =
		    lr_mempool_lcore_cache(mp, i);

		memcpy(&all[n], c->objs, c->len * sizeof(*all));
		n += c->len;
	}
	rc = lr_mp_elastic_validate_(mp, all, n);
	free(all);
	return rc;
}

/* Fixed pools: every cached object is one of the pool's, marked free,
 * cached once; their number in *cached. 0 or -errno after a log. */
static int
validate_fixed_caches(const struct lr_mempool *mp, uint64_t *cached)
{
	unsigned char *seen;
	int rc = 0;

	*cached = 0;
	seen = calloc(mp->size, 1);
	if (seen == NULL)
		return -ENOMEM;
	for (unsigned i = 0; i < LR_MAX_LCORE && rc == 0; i++) {
		const struct lr_mempool_cache *c = cache_checked(mp, i);

		if (c == NULL) {
			rc = -EINVAL;
			break;
		}
		*cached += c->len;
		for (unsigned k = 0; k < c->len; k++) {
			long idx = obj_index(mp, c->objs[k]);

			if (idx < 0 || lr_mempool_from_obj(c->objs[k]) != mp) {
				LR_LOG(ERR, MEMPOOL,
				       "mempool '%s': lcore %u cache slot %u: "
				       "%p is not an object of the pool\n",
				       mp->name, i, k, c->objs[k]);
				rc = -EINVAL;
				break;
			}
#if LR_MEMPOOL_DEBUG
			if (((struct lr_mempool_objhdr *)c->objs[k] - 1)
				->cookie != LR_MEMPOOL_COOKIE_FREE) {
				LR_LOG(ERR, MEMPOOL,
				       "mempool '%s': lcore %u cache slot %u: "
				       "object %ld (%p) is marked in use\n",
				       mp->name, i, k, idx, c->objs[k]);
				rc = -EINVAL;
				break;
			}
#endif
			if (seen[idx]++) {
				LR_LOG(ERR, MEMPOOL,
				       "mempool '%s': object %ld (%p) cached "
				       "twice\n",
				       mp->name, idx, c->objs[k]);
				rc = -EINVAL;
				break;
			}
		}
	}
	free(seen);
	return rc;
}

int
lr_mempool_validate(const struct lr_mempool *mp)
{
	struct lr_mempool_stats st;
	uint64_t cached = 0, store, in_use, objs;
	int rc;

	if (mp->flags & LR_MEMPOOL_F_ELASTIC)
		rc = validate_elastic_caches(mp, &cached);
	else
		rc = validate_fixed_caches(mp, &cached);
	if (rc != 0)
		return rc;
	store = lr_mempool_store_count(mp);
	objs = lr_mempool_objs_count(mp);
	if (cached + store > objs) {
		LR_LOG(ERR, MEMPOOL,
		       "mempool '%s': caches %llu + store %llu > size %llu\n",
		       mp->name, (unsigned long long)cached,
		       (unsigned long long)store, (unsigned long long)objs);
		return -EINVAL;
	}
	if (!(mp->flags & LR_MEMPOOL_F_STATS))
		return 0; /* lcores' calls not counted */
	lr_mempool_stats_get(mp, &st);
	in_use = st.get_success_objs - st.put_objs;
	if (mp->flags & LR_MEMPOOL_F_ELASTIC) {
		struct lr_mempool_elastic_stats es;

		/* Puts the store dropped (double, foreign) were counted. */
		lr_mempool_elastic_stats_get(mp, &es);
		in_use += es.bad_puts;
	}
	if (cached + store + in_use != objs) {
		LR_LOG(ERR, MEMPOOL,
		       "mempool '%s': caches %llu + store %llu + in use %lld "
		       "!= size %llu\n",
		       mp->name, (unsigned long long)cached,
		       (unsigned long long)store, (long long)in_use,
		       (unsigned long long)objs);
		return -EINVAL;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Objects.                                                             */

void *
lr_mempool_get_priv(struct lr_mempool *mp)
{
	return mp->priv;
}

uint64_t
lr_mempool_virt2iova(const void *obj)
{
	const struct lr_page *pg = lr_virt_to_page(obj);
	const char *base;

	if (pg == NULL)
		return UINT64_MAX;
	base = lr_page_address(pg);
	return lr_page_iova(pg) + (uint64_t)((const char *)obj - base);
}

unsigned
lr_mempool_obj_iter(struct lr_mempool *mp, lr_mempool_obj_cb_t *cb,
		    void *opaque)
{
	const struct mp_impl *im = mp->impl;
	unsigned count = 0;

	if (mp->flags & LR_MEMPOOL_F_ELASTIC)
		return lr_mp_elastic_obj_iter_(mp, cb, opaque);
	for (unsigned i = 0; i < im->nb_blocks; i++) {
		const struct mp_block *b = &im->blocks[i];

		for (unsigned k = 0; k < b->nb_objs; k++)
			cb(mp, opaque,
			   block_obj(b, im->lead, mp->total_elt_size, k),
			   count++);
	}
	return count;
}

void
lr_mempool_dump(FILE *f, const struct lr_mempool *mp)
{
	const struct mp_impl *im = mp->impl;
	struct lr_mempool_stats st;
	unsigned store = lr_mempool_store_count(mp), cached = 0;

	lr_mempool_stats_get(mp, &st);
	fprintf(f, "mempool '%s' at %p\n", mp->name, (const void *)mp);
	fprintf(f, "  size %u, elt_size %u, header %u, total_elt_size %u\n",
		mp->size, mp->elt_size, mp->header_size, mp->total_elt_size);
	fprintf(f, "  ops %s, flags %#x, node %d, private %u bytes\n",
		mp->ops->name, mp->flags, mp->socket_id, mp->private_data_size);
	fprintf(f, "  blocks %u of order %u (first at %p)\n", im->nb_blocks,
		mp->block_order,
		im->nb_blocks ? (void *)im->blocks[0].addr : NULL);
	fprintf(f, "  cache_size %u, flush threshold %u\n", mp->cache_size,
		lr_mempool_lcore_cache(mp, 0)->flushthresh);
	if (mp->flags & LR_MEMPOOL_F_ELASTIC)
		lr_mp_elastic_dump_(f, mp);
	for (unsigned i = 0; i < LR_MAX_LCORE; i++) {
		const struct lr_mempool_cache *c =
		    lr_mempool_lcore_cache(mp, i);
		const struct lr_mempool_stats *s = &c->stats;

		cached += c->len;
		if (c->len == 0 && s->put_bulk == 0 &&
		    s->get_success_bulk == 0 && s->get_fail_bulk == 0)
			continue;
		fprintf(f,
			"  lcore %u: cache %u, put %llu/%llu, get %llu/%llu, "
			"get fail %llu/%llu, store put %llu get %llu "
			"(calls/objects)\n",
			i, c->len, (unsigned long long)s->put_bulk,
			(unsigned long long)s->put_objs,
			(unsigned long long)s->get_success_bulk,
			(unsigned long long)s->get_success_objs,
			(unsigned long long)s->get_fail_bulk,
			(unsigned long long)s->get_fail_objs,
			(unsigned long long)s->store_put_bulk,
			(unsigned long long)s->store_get_bulk);
	}
	fprintf(f,
		"  total: put %llu/%llu, get %llu/%llu, get fail %llu/%llu, "
		"store put %llu get %llu\n",
		(unsigned long long)st.put_bulk,
		(unsigned long long)st.put_objs,
		(unsigned long long)st.get_success_bulk,
		(unsigned long long)st.get_success_objs,
		(unsigned long long)st.get_fail_bulk,
		(unsigned long long)st.get_fail_objs,
		(unsigned long long)st.store_put_bulk,
		(unsigned long long)st.store_get_bulk);
	fprintf(f, "  avail %u (store %u + caches %u), in use %u\n",
		store + cached, store, cached,
		lr_mempool_objs_count(mp) -
		    LR_MIN(lr_mempool_objs_count(mp), store + cached));
}
