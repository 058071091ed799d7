/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Page pool: everything but the inline fast paths of lr_page_pool.h.
 *
 * Accounting. pool->refs is the number of pages the pool holds plus one
 * while the pool is alive (destroy drops that one). A page entering the
 * pool takes a reference (reserved before the allocator is asked, so held
 * never passes pool_size); a page leaving it drops one; whoever drops the
 * last frees the pool, so no one may touch the pool after dropping a
 * reference that is not known to be the last but one.
 *
 * Special modes (checked pool, shrink request, pages of another node in
 * the pool, destroy, sync on put) close the fast path by storing
 * LR_PP_NO_LCORE in alloc_lcore / put_lcore; only the owner reopens it, in
 * its slow path, once the mode is over (open_fast()).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lr_eal.h"
#include "lr_errno.h"
#include "lr_log.h"
#include "lr_page_pool.h"
#include "lr_ring.h"

#define PP_POISON	 0x5aU
#define PP_POISON64	 0x5a5a5a5a5a5a5a5aULL
#define PP_MAX_POOL_SIZE (1u << 24)

static pthread_mutex_t pool_list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct lr_page_pool *pool_list; /* every pool not yet freed */
static unsigned pool_seq;
static int atexit_registered;
static int cleanup_registered;
static int shrinker_id = -1; /* the one shrinker of all page pools */

static const char *const state_names[] = {
    [LR_PP_STATE_POOL] = "in the pool",
    [LR_PP_STATE_DEVICE] = "owned by the device",
    [LR_PP_STATE_CPU] = "owned by the CPU",
};

static const char *
state_name(uint32_t s)
{
	return s < LR_DIM(state_names) ? state_names[s] : "corrupt";
}

static inline size_t
page_bytes(const struct lr_page_pool *pool)
{
	return (size_t)LR_PAGE_SIZE << pool->order;
}

/* Owner: set the number of cached pages. Only the owner writes it and
 * reads it plainly; lr_page_pool_get_stats() reads it from any thread, so
 * the store is relaxed atomic (a plain store on x86-64 and ppc64le). */
static inline void
count_set(struct lr_page_pool *pool, unsigned n)
{
	/* invariant: 0 <= count <= LR_PP_CACHE_SIZE */
	LR_ASSERT(n <= LR_PP_CACHE_SIZE);
	__atomic_store_n(&pool->count, n, __ATOMIC_RELAXED);
}

/* Per-lcore counter slot of the calling thread; the last slot is shared by
 * threads without an lcore id and is updated atomically. */
#define LSTAT_ADD(pool, field, n)                                              \
	do {                                                                   \
		unsigned id_ = lr_lcore_id();                                  \
		if (id_ < LR_MAX_LCORE) {                                      \
			_Atomic uint64_t *c_ = &(pool)->lstats[id_].field;     \
			atomic_store_explicit(                                 \
			    c_,                                                \
			    atomic_load_explicit(c_, memory_order_relaxed) +   \
				(n),                                           \
			    memory_order_relaxed);                             \
		} else {                                                       \
			atomic_fetch_add_explicit(                             \
			    &(pool)->lstats[LR_MAX_LCORE].field, (n),          \
			    memory_order_relaxed);                             \
		}                                                              \
	} while (0)

/* ---- the pool's pages ------------------------------------------------ */

/* Is page a descriptor of the allocator tagged as one of pool's pages (in
 * the pool or handed out)? */
static int
is_pool_page(const struct lr_page_pool *pool, const struct lr_page *page)
{
	uintptr_t off = (uintptr_t)page - lr_pa_desc_base_;

	return page != NULL && off < lr_pa_desc_bytes_ &&
	       (off & (sizeof(*page) - 1)) == 0 && page->owner == pool &&
	       page->st.s.flags == LR_PG_ALLOC;
}

/* Tag an allocated block as the pool's, or untag it before it is freed
 * (lr_page_set_owner() without its checks: the pool allocated the block). */
static inline void
tag(struct lr_page_pool *pool, struct lr_page *page)
{
	page->owner = pool;
	page->owner_name = pool->name;
}

static inline void
untag(struct lr_page *page)
{
	page->owner = NULL;
	page->owner_name = NULL;
}

static inline int
is_foreign(const struct lr_page_pool *pool, const struct lr_page *page)
{
	return lr_page_node(page) != pool->nid;
}

/* ---- checked pools ------------------------------------------------- */

static void report(struct lr_page_pool *pool, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static __lr_cold void
report(struct lr_page_pool *pool, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	LR_LOG(ERR, PAGEALLOC, "page pool '%s': %s\n", pool->name, msg);
	LSTAT_ADD(pool, errors, 1);
}

static void
poison(const struct lr_page_pool *pool, struct lr_page *page)
{
	memset(lr_page_address(page), PP_POISON, page_bytes(pool));
}

/* Offset of the first byte that lost its poison, or -1. */
static long
poison_broken(const struct lr_page_pool *pool, const struct lr_page *page)
{
	const uint64_t *w = lr_page_address(page);
	size_t n = page_bytes(pool) / sizeof(*w);

	for (size_t i = 0; i < n; i++)
		if (w[i] != PP_POISON64)
			return (long)(i * sizeof(*w));
	return -1;
}

/* FNV-1a over the page's words, folded to the 32 bits of pp_sum. */
static uint32_t
checksum(const struct lr_page_pool *pool, const struct lr_page *page)
{
	const uint64_t *w = lr_page_address(page);
	size_t n = page_bytes(pool) / sizeof(*w);
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ w[i]) * 0x100000001b3ULL;
	return (uint32_t)(h ^ (h >> 32));
}

/* State a page is handed out in. */
static uint32_t
alloc_state(const struct lr_page_pool *pool)
{
	return (pool->flags & LR_PP_FLAG_DMA_MAP) &&
		       pool->p.dma_dir != LR_DMA_TO_DEVICE
		   ? LR_PP_STATE_DEVICE
		   : LR_PP_STATE_CPU;
}

static void
check_alloc(struct lr_page_pool *pool, struct lr_page *page)
{
	long off;

	if (!is_pool_page(pool, page)) {
		report(pool,
		       "alloc found page %p, not one of this pool's, "
		       "in its cache",
		       (void *)page);
		return;
	}
	if (page->pp_state != LR_PP_STATE_POOL)
		report(pool, "alloc of page %p that is %s, not in the pool",
		       (void *)page, state_name(page->pp_state));
	off = poison_broken(pool, page);
	if (off >= 0)
		report(pool,
		       "page %p was written at +%ld while in the pool "
		       "(after its put)",
		       (void *)page, off);
	page->pp_state = alloc_state(pool);
	if (page->pp_state == LR_PP_STATE_DEVICE)
		page->pp_sum = checksum(pool, page);
}

/* 0 if page may be put into pool, -EINVAL after a report. */
static int
check_put(struct lr_page_pool *pool, struct lr_page *page)
{
	if (!is_pool_page(pool, page)) {
		report(pool,
		       "put of page %p that is not one of this pool's "
		       "(refused)",
		       (void *)page);
		return -EINVAL;
	}
	if (page->pp_state == LR_PP_STATE_POOL) {
		report(pool,
		       "put of page %p that is already in the pool "
		       "(double put, refused)",
		       (void *)page);
		return -EINVAL;
	}
	if (page->pp_state == LR_PP_STATE_DEVICE &&
	    pool->p.dma_dir == LR_DMA_TO_DEVICE &&
	    page->pp_sum != checksum(pool, page))
		report(pool,
		       "page %p was written by the CPU while the device "
		       "owned it (seen at put)",
		       (void *)page);
	return 0;
}

/* ---- fast-path modes ----------------------------------------------- */

static void
close_fast(struct lr_page_pool *pool)
{
	atomic_store(&pool->alloc_lcore, LR_PP_NO_LCORE);
	atomic_store(&pool->put_lcore, LR_PP_NO_LCORE);
}

static int
put_needs_slow(const struct lr_page_pool *pool)
{
	return ((pool->flags & LR_PP_FLAG_DMA_SYNC_DEV) &&
		pool->p.sync_for_device != NULL) ||
	       atomic_load_explicit(&pool->foreign, memory_order_relaxed) != 0;
}

/* Owner only: reopen the fast paths that no mode keeps closed. */
static void
open_fast(struct lr_page_pool *pool)
{
	if (pool->checked || atomic_load(&pool->dying))
		return;
	atomic_store(&pool->alloc_lcore, pool->owner_lcore);
	atomic_store(&pool->put_lcore,
		     put_needs_slow(pool) ? LR_PP_NO_LCORE : pool->owner_lcore);
	/* A shrinker that asked after our exchange and closed before our
	 * stores must not be undone. */
	if (atomic_load(&pool->shrink_req))
		close_fast(pool);
}

/* ---- pages entering and leaving ------------------------------------ */

/* Reserve up to want references for pages about to enter (alive pool). */
static unsigned
reserve(struct lr_page_pool *pool, unsigned want)
{
	long r = atomic_load_explicit(&pool->refs, memory_order_relaxed);
	long room, n;

	LR_ASSERT(want > 0);
	do {
		room = (long)pool->pool_size - (r - 1);
		if (room <= 0)
			return 0;
		n = LR_MIN((long)want, room);
	} while (!atomic_compare_exchange_weak_explicit(&pool->refs, &r, r + n,
							memory_order_relaxed,
							memory_order_relaxed));
	return (unsigned)n;
}

static void free_pool(struct lr_page_pool *pool);
static void steal_stashes(struct lr_page_pool *pool);
static void put_ring(struct lr_page_pool *pool, struct lr_page *const *pages,
		     unsigned n);

/* Drop n references; the last one frees the pool. */
static void
unref(struct lr_page_pool *pool, long n)
{
	/* invariant: refs = 1 (the creator's, until destroy) + pages alive */
	LR_ASSERT(n > 0 && atomic_load_explicit(&pool->refs,
						 memory_order_relaxed) >= n);
	if (atomic_fetch_sub_explicit(&pool->refs, n, memory_order_acq_rel) ==
	    n)
		free_pool(pool);
}

/* Make page (just allocated, reference reserved) a page of the pool; 0, or
 * -errno after giving the page back (the reference is then the caller's to
 * drop). */
static inline int
enter(struct lr_page_pool *pool, struct lr_page *page)
{
	uint64_t dma = lr_page_iova(page);

	/* a page enters once: fresh from the allocator, nobody's yet */
	LR_ASSERT(page != NULL && page->owner == NULL);
	if ((pool->flags & LR_PP_FLAG_DMA_MAP) && pool->p.map != NULL) {
		int ret = pool->p.map(pool->p.cb_arg, page, pool->order,
				      pool->p.dma_dir, &dma);

		if (ret < 0) {
			LR_LOG(ERR, PAGEALLOC,
			       "page pool '%s': map of page %p failed: %s\n",
			       pool->name, (void *)page, lr_strerror(-ret));
			lr_free_pages(page, pool->order);
			return ret;
		}
	}
	page->dma_addr = dma;
	page->pp_state = LR_PP_STATE_POOL;
	if (lr_unlikely(is_foreign(pool, page))) {
		atomic_fetch_add(&pool->foreign, 1);
		atomic_store(&pool->put_lcore, LR_PP_NO_LCORE);
	}
	if ((pool->flags & LR_PP_FLAG_DMA_SYNC_DEV) &&
	    pool->p.sync_for_device != NULL)
		pool->p.sync_for_device(pool->p.cb_arg, dma + pool->p.offset,
					pool->p.max_len, pool->p.dma_dir);
	if (pool->checked)
		poison(pool, page);
	tag(pool, page);
	return 0;
}

/* The page leaves the pool: unmap, untag, free, drop its reference. The
 * caller must not touch the pool afterwards unless it holds another. */
static void
release(struct lr_page_pool *pool, struct lr_page *page)
{
	int foreign;

	LR_ASSERT(is_pool_page(pool, page));
	foreign = is_foreign(pool, page);

	if ((pool->flags & LR_PP_FLAG_DMA_MAP) && pool->p.unmap != NULL)
		pool->p.unmap(pool->p.cb_arg, page, pool->order, page->dma_addr,
			      pool->p.dma_dir);
	untag(page);
	lr_free_pages(page, pool->order);
	if (lr_unlikely(foreign))
		atomic_fetch_sub(&pool->foreign, 1);
	unref(pool, 1);
}

/* Give back up to max pages from the ring (any thread); how many. The
 * caller holds a reference of its own. */
static unsigned
drain_ring(struct lr_page_pool *pool, unsigned max)
{
	void *objs[LR_PP_REFILL];
	unsigned done = 0, n;

	while (done < max &&
	       (n = lr_ring_mc_dequeue_burst(pool->ring, objs,
					     LR_MIN(max - done, LR_PP_REFILL),
					     NULL)) != 0) {
		for (unsigned i = 0; i < n; i++)
			release(pool, objs[i]);
		done += n;
	}
	return done;
}

/* Owner: give back cached pages above keep. */
static unsigned
drain_cache(struct lr_page_pool *pool, unsigned keep)
{
	unsigned n = 0;

	while (pool->count > keep) {
		count_set(pool, pool->count - 1);
		release(pool, pool->cache[pool->count]);
		n++;
	}
	return n;
}

/* Owner slow-path entry: serve a shrink request, reopen the fast paths
 * when a mode is over. Plain loads unless something changed. */
static void
owner_service(struct lr_page_pool *pool)
{
	unsigned want_put;

	if (lr_unlikely(atomic_load_explicit(&pool->shrink_req,
					     memory_order_relaxed)) &&
	    atomic_exchange(&pool->shrink_req, 0))
		lr_counter_add(&pool->alloc_stats.shrunk,
			       drain_cache(pool, LR_PP_SHRINK_KEEP));
	if (pool->checked ||
	    atomic_load_explicit(&pool->dying, memory_order_relaxed))
		return;
	want_put = put_needs_slow(pool) ? LR_PP_NO_LCORE : pool->owner_lcore;
	if (atomic_load_explicit(&pool->alloc_lcore, memory_order_relaxed) !=
		pool->owner_lcore ||
	    atomic_load_explicit(&pool->put_lcore, memory_order_relaxed) !=
		want_put)
		open_fast(pool);
}

/* Owner: fill the cache from the allocator; the last page, or NULL. */
static struct lr_page *
refill_from_allocator(struct lr_page_pool *pool)
{
	struct lr_page *pages[LR_PP_REFILL];
	unsigned want, got, k = 0;

	/* the batch fits the cache above what it holds */
	LR_ASSERT(pool->count + LR_PP_REFILL <= LR_PP_CACHE_SIZE);
	want = reserve(pool, LR_PP_REFILL);
	if (want == 0) {
		unsigned n;

		/* At the bound: free pages may wait in other lcores' stashes.
		 */
		steal_stashes(pool);
		n = lr_ring_mc_dequeue_burst(pool->ring, (void **)pool->cache,
					     LR_PP_REFILL, NULL);
		if (n != 0) {
			count_set(pool, n - 1);
			lr_counter_add(&pool->alloc_stats.refill, 1);
			return pool->cache[n - 1];
		}
		lr_counter_add(&pool->alloc_stats.exhausted, 1);
		lr_errno = ENOBUFS;
		return NULL;
	}
	got = lr_alloc_pages_bulk(pool->nid, pool->order, LR_ALLOC_PINNED, want,
				  pages);
	if (got < want)
		unref(pool, want - got);
	if (got == 0) {
		lr_errno = ENOMEM;
		return NULL;
	}
	for (unsigned i = 0; i < got; i++) {
		if (enter(pool, pages[i]) < 0) {
			unref(pool, 1);
			continue;
		}
		pool->cache[pool->count + k++] = pages[i];
	}
	if (k == 0) {
		lr_errno = ENOMEM;
		return NULL;
	}
	count_set(pool, pool->count + k - 1);
	if (pool->order == 0)
		lr_counter_add(&pool->alloc_stats.slow, 1);
	else
		lr_counter_add(&pool->alloc_stats.slow_high_order, 1);
	return pool->cache[pool->count];
}

/* Owner with an empty cache: the ring first, then the allocator. */
static struct lr_page *
refill(struct lr_page_pool *pool)
{
	unsigned n = lr_ring_mc_dequeue_burst(pool->ring, (void **)pool->cache,
					      LR_PP_REFILL, NULL);

	if (n != 0) {
		count_set(pool, n - 1);
		lr_counter_add(&pool->alloc_stats.refill, 1);
		return pool->cache[n - 1];
	}
	lr_counter_add(&pool->alloc_stats.empty, 1);
	return refill_from_allocator(pool);
}

/* A thread that is not the owner: one page from the ring or allocator. */
static struct lr_page *
alloc_remote(struct lr_page_pool *pool)
{
	struct lr_page *page;
	void *obj;

	if (lr_ring_mc_dequeue_burst(pool->ring, &obj, 1, NULL) == 1) {
		page = obj;
		goto got;
	}
	if (reserve(pool, 1) == 0) {
		steal_stashes(pool);
		if (lr_ring_mc_dequeue_burst(pool->ring, &obj, 1, NULL) == 1) {
			page = obj;
			goto got;
		}
		lr_errno = ENOBUFS;
		return NULL;
	}
	page = lr_alloc_pages(pool->nid, pool->order, LR_ALLOC_PINNED);
	if (page == NULL) {
		unref(pool, 1);
		lr_errno = ENOMEM;
		return NULL;
	}
	if (enter(pool, page) < 0) {
		unref(pool, 1);
		lr_errno = ENOMEM;
		return NULL;
	}
got:
	LSTAT_ADD(pool, remote, 1);
	return page;
}

struct lr_page *
lr_page_pool_alloc_slow_(struct lr_page_pool *pool)
{
	struct lr_page *page;

	if (lr_unlikely(
		atomic_load_explicit(&pool->dying, memory_order_relaxed))) {
		LR_LOG(ERR, PAGEALLOC, "page pool '%s': alloc after destroy\n",
		       pool->name);
		lr_errno = EINVAL;
		return NULL;
	}
	if (lr_lcore_id() != pool->owner_lcore) {
		page = alloc_remote(pool);
	} else {
		owner_service(pool);
		if (pool->count != 0) {
			count_set(pool, pool->count - 1);
			page = pool->cache[pool->count];
			lr_counter_add(&pool->alloc_fast, 1);
		} else {
			page = refill(pool);
		}
	}
	if (page != NULL && pool->checked)
		check_alloc(pool, page);
	return page;
}

/* Enter up to n freshly allocated pages (references reserved) into the
 * pool, keeping those that made it at the front of pages[]; how many. */
static unsigned
enter_bulk(struct lr_page_pool *pool, struct lr_page **pages, unsigned n)
{
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++) {
		if (enter(pool, pages[i]) < 0) {
			unref(pool, 1);
			continue;
		}
		pages[k++] = pages[i];
	}
	return k;
}

unsigned
lr_page_pool_alloc_bulk(struct lr_page_pool *pool, struct lr_page **pages,
			unsigned n)
{
	unsigned got, want, k;

	if (lr_unlikely(n == 0 || atomic_load_explicit(&pool->dying,
						       memory_order_relaxed))) {
		LR_LOG(ERR, PAGEALLOC, "page pool '%s': alloc_bulk of %u %s\n",
		       pool->name, n, n == 0 ? "pages" : "after destroy");
		lr_errno = EINVAL;
		return 0;
	}
	got = lr_ring_mc_dequeue_burst(pool->ring, (void **)pages, n, NULL);
	want = got < n ? reserve(pool, n - got) : 0;
	if (want != 0) {
		k = lr_alloc_pages_bulk(pool->nid, pool->order, LR_ALLOC_PINNED,
					want, pages + got);
		if (k < want)
			unref(pool, want - k);
		got += enter_bulk(pool, pages + got, k);
	} else if (got == 0) {
		/* At the bound: free pages may wait in other lcores' stashes. */
		steal_stashes(pool);
		got = lr_ring_mc_dequeue_burst(pool->ring, (void **)pages, n,
					       NULL);
	}
	if (got == 0) {
		lr_errno = want == 0 ? ENOBUFS : ENOMEM;
		return 0;
	}
	if (pool->checked)
		for (unsigned i = 0; i < got; i++)
			check_alloc(pool, pages[i]);
	LSTAT_ADD(pool, remote, got);
	return got;
}

/* Put on a destroyed pool: collect ring stragglers, give the page back. */
static void
put_dying(struct lr_page_pool *pool, struct lr_page *page)
{
	drain_ring(pool, UINT32_MAX);
	LSTAT_ADD(pool, released_refcnt, 1);
	release(pool, page);
}

/* What a put does with a page before it can be recycled: checks, the
 * destroyed and foreign cases, the device sync. 1 if the page is ready to
 * recycle, 0 if it has been dealt with (refused or given back). */
static int
put_prepare(struct lr_page_pool *pool, struct lr_page *page,
	    unsigned dma_sync_len)
{
	if (pool->checked && check_put(pool, page) < 0)
		return 0;
	if (lr_unlikely(
		atomic_load_explicit(&pool->dying, memory_order_relaxed))) {
		put_dying(pool, page);
		return 0;
	}
	if (lr_unlikely(atomic_load_explicit(&pool->foreign,
					     memory_order_relaxed) != 0) &&
	    is_foreign(pool, page)) {
		LSTAT_ADD(pool, waive, 1);
		release(pool, page);
		return 0;
	}
	if ((pool->flags & LR_PP_FLAG_DMA_SYNC_DEV) &&
	    pool->p.sync_for_device != NULL)
		pool->p.sync_for_device(
		    pool->p.cb_arg, page->dma_addr + pool->p.offset,
		    LR_MIN(dma_sync_len, pool->p.max_len), pool->p.dma_dir);
	if (pool->checked) {
		poison(pool, page);
		page->pp_state = LR_PP_STATE_POOL;
	}
	return 1;
}

/* Owner, direct: move up to n pages into the cache; how many. */
static unsigned
put_cache(struct lr_page_pool *pool, struct lr_page *const *pages, unsigned n)
{
	unsigned k;

	owner_service(pool);
	k = LR_MIN(n, LR_PP_CACHE_SIZE - pool->count);
	memcpy(&pool->cache[pool->count], pages, k * sizeof(*pages));
	count_set(pool, pool->count + k);
	lr_counter_add(&pool->recycle_cached, k);
	if (k < n)
		lr_counter_add(&pool->recycle_cache_full, n - k);
	return k;
}

/* Take the stash of lcore id (any thread): its pages into the ring. The
 * stash stays closed for good when the pool is dying. */
static void
steal_stash(struct lr_page_pool *pool, unsigned id)
{
	struct lr_page_pool_lstats *l = &pool->lstats[id];
	struct lr_page *pg[LR_PP_STASH];
	unsigned n = atomic_exchange_explicit(&l->stash_n, LR_PP_STASH,
					      memory_order_acq_rel);

	if (n >= LR_PP_STASH)
		return; /* another taker has it, or closed for good */
	memcpy(pg, l->stash, n * sizeof(pg[0]));
	if (!atomic_load(&pool->dying))
		atomic_store_explicit(&l->stash_n, 0, memory_order_release);
	if (n != 0)
		put_ring(pool, pg, n);
}

/* Every lcore's stash into the ring (any thread). */
static void
steal_stashes(struct lr_page_pool *pool)
{
	for (unsigned w = 0; w < LR_PP_STASH_WORDS; w++) {
		uint64_t m = atomic_load_explicit(&pool->stash_mask[w],
						  memory_order_acquire);

		while (m != 0) {
			steal_stash(pool,
				    w * 64 + (unsigned)__builtin_ctzll(m));
			m &= m - 1;
		}
	}
}

/* Ready pages into the ring; the ones that do not fit go back. */
static void
put_ring(struct lr_page_pool *pool, struct lr_page *const *pages, unsigned n)
{
	unsigned k =
	    lr_ring_mp_enqueue_burst(pool->ring, (void *const *)pages, n, NULL);

	LSTAT_ADD(pool, ring, k);
	if (lr_unlikely(k < n)) {
		LSTAT_ADD(pool, ring_full, n - k);
		for (; k < n; k++)
			release(pool, pages[k]);
	}
}

/* A ready page from lcore id, not the owner: into the lcore's stash, the
 * whole stash into the ring when it is full. The stash count is published
 * with a compare-and-swap so that a taker's exchange (steal_stash) and
 * this put agree on who has which page. */
static void
put_stash(struct lr_page_pool *pool, struct lr_page *page, unsigned id)
{
	struct lr_page_pool_lstats *l = &pool->lstats[id];
	/* Acquire: when a taker has just emptied the stash (its release
	 * store of 0), its copy of stash[] happens before we write slot 0. */
	unsigned n = atomic_load_explicit(&l->stash_n, memory_order_acquire);

	if (lr_unlikely(n >= LR_PP_STASH))
		goto ring; /* being taken, or closed for good */
	if (lr_unlikely(!l->stash_used)) {
		l->stash_used = 1;
		atomic_fetch_or(&pool->stash_mask[id / 64], UINT64_C(1)
								<< (id % 64));
	}
	l->stash[n] = page;
	if (n + 1 < LR_PP_STASH) {
		if (atomic_compare_exchange_strong_explicit(
			&l->stash_n, &n, n + 1, memory_order_release,
			memory_order_relaxed))
			return;
	} else if (atomic_compare_exchange_strong_explicit(
		       &l->stash_n, &n, 0, memory_order_acquire,
		       memory_order_relaxed)) {
		/* Only this lcore writes stash[]: enqueue it in place. */
		put_ring(pool, l->stash, LR_PP_STASH);
		return;
	}
ring:
	put_ring(pool, &page, 1); /* a taker has the stash: this page alone */
}

void
lr_page_pool_put_slow_(struct lr_page_pool *pool, struct lr_page *page,
		       unsigned dma_sync_len, int allow_direct)
{
	unsigned id;

	if (!put_prepare(pool, page, dma_sync_len))
		return;
	id = lr_lcore_id();
	if (id == pool->owner_lcore) {
		if (allow_direct && put_cache(pool, &page, 1) == 1)
			return;
	} else if (id < LR_MAX_LCORE) {
		put_stash(pool, page, id);
		return;
	}
	put_ring(pool, &page, 1);
}

void
lr_page_pool_put_bulk(struct lr_page_pool *pool, struct lr_page **pages,
		      unsigned n, unsigned dma_sync_len, int allow_direct)
{
	unsigned k = 0, done = 0;

	if (pool->checked ||
	    atomic_load_explicit(&pool->dying, memory_order_relaxed) ||
	    atomic_load_explicit(&pool->foreign, memory_order_relaxed) ||
	    (pool->flags & LR_PP_FLAG_DMA_SYNC_DEV)) {
		/* Per-page work first; keep the ready ones in front. */
		for (unsigned i = 0; i < n; i++)
			if (put_prepare(pool, pages[i], dma_sync_len))
				pages[k++] = pages[i];
	} else {
		k = n;
	}
	if (allow_direct && lr_lcore_id() == pool->owner_lcore)
		done = put_cache(pool, pages, k);
	if (done < k)
		put_ring(pool, pages + done, k - done);
}

void
lr_page_pool_release_page(struct lr_page_pool *pool, struct lr_page *page)
{
	if (pool->checked && check_put(pool, page) < 0)
		return;
	if (lr_unlikely(
		atomic_load_explicit(&pool->dying, memory_order_relaxed))) {
		put_dying(pool, page);
		return;
	}
	LSTAT_ADD(pool, released_refcnt, 1);
	release(pool, page);
}

/* ---- ownership ------------------------------------------------------ */

int
lr_page_pool_sync_for_cpu(struct lr_page_pool *pool, struct lr_page *page,
			  unsigned off, unsigned len)
{
	if (pool->checked) {
		if (!is_pool_page(pool, page)) {
			report(pool,
			       "sync_for_cpu of page %p that is not "
			       "one of this pool's",
			       (void *)page);
			return -EINVAL;
		}
		if (page->pp_state != LR_PP_STATE_DEVICE) {
			report(pool, "sync_for_cpu of page %p that is %s",
			       (void *)page, state_name(page->pp_state));
			return -EINVAL;
		}
		if (pool->p.dma_dir == LR_DMA_TO_DEVICE &&
		    page->pp_sum != checksum(pool, page))
			report(pool,
			       "page %p was written by the CPU while "
			       "the device owned it",
			       (void *)page);
		page->pp_state = LR_PP_STATE_CPU;
	}
	if (pool->p.sync_for_cpu != NULL)
		pool->p.sync_for_cpu(pool->p.cb_arg, page->dma_addr + off, len,
				     pool->p.dma_dir);
	return 0;
}

int
lr_page_pool_sync_for_device(struct lr_page_pool *pool, struct lr_page *page,
			     unsigned off, unsigned len)
{
	if (pool->checked) {
		if (!is_pool_page(pool, page)) {
			report(pool,
			       "sync_for_device of page %p that is not "
			       "one of this pool's",
			       (void *)page);
			return -EINVAL;
		}
		if (page->pp_state != LR_PP_STATE_CPU) {
			report(pool, "sync_for_device of page %p that is %s",
			       (void *)page, state_name(page->pp_state));
			return -EINVAL;
		}
		page->pp_state = LR_PP_STATE_DEVICE;
		page->pp_sum = checksum(pool, page);
	}
	if (pool->p.sync_for_device != NULL)
		pool->p.sync_for_device(pool->p.cb_arg, page->dma_addr + off,
					len, pool->p.dma_dir);
	return 0;
}

int
lr_page_pool_page_state(const struct lr_page_pool *pool,
			const struct lr_page *page)
{
	if (!pool->checked || !is_pool_page(pool, page))
		return -EINVAL;
	return (int)page->pp_state;
}

/* ---- shrinking ------------------------------------------------------ */

static unsigned long
shrink_scan(void *arg, int node, unsigned long nr_pages)
{
	struct lr_page_pool *pool = arg;
	unsigned long want;
	unsigned n;

	if (node != LR_SOCKET_ID_ANY && node != pool->nid)
		return 0;
	want = (nr_pages + (1UL << pool->order) - 1) >> pool->order;
	if (want == 0)
		return 0;
	steal_stashes(pool);
	n = drain_ring(pool, want > UINT32_MAX ? UINT32_MAX : (unsigned)want);
	LSTAT_ADD(pool, shrunk, n);
	if (n < want) {
		/* The owner gives back its cache at its next call. */
		atomic_store(&pool->shrink_req, 1);
		close_fast(pool);
	}
	return (unsigned long)n << pool->order;
}

unsigned long
lr_page_pool_shrink(struct lr_page_pool *pool, int node, unsigned long nr_pages)
{
	return shrink_scan(pool, node, nr_pages);
}

/* Take a reference unless the pool is being freed (refs reached 0). */
static int
ref_not_zero(struct lr_page_pool *pool)
{
	long r = atomic_load(&pool->refs);

	do {
		if (r == 0)
			return 0;
	} while (!atomic_compare_exchange_weak(&pool->refs, &r, r + 1));
	return 1;
}

/* The shrinker registered with the allocator. The allocator may call it
 * while a pool is being destroyed, so it holds a reference on each pool
 * it scans (taken under the list lock, which free_pool() needs too). */
static unsigned long
pools_shrink(void *arg, int node, unsigned long nr_pages)
{
	struct lr_page_pool *batch[64];
	unsigned long freed = 0;
	unsigned n = 0;

	(void)arg;
	pthread_mutex_lock(&pool_list_lock);
	for (struct lr_page_pool *p = pool_list; p != NULL && n < 64;
	     p = p->next)
		if (ref_not_zero(p))
			batch[n++] = p;
	pthread_mutex_unlock(&pool_list_lock);
	for (unsigned i = 0; i < n; i++) {
		if (freed < nr_pages)
			freed += shrink_scan(batch[i], node, nr_pages - freed);
		unref(batch[i], 1);
	}
	return freed;
}

/* lr_eal_cleanup(): the allocator forgets its shrinkers and its memory. */
static void
pools_on_eal_cleanup(void)
{
	pthread_mutex_lock(&pool_list_lock);
	shrinker_id = -1;
	for (struct lr_page_pool *p = pool_list; p != NULL; p = p->next)
		LR_LOG(WARNING, PAGEALLOC,
		       "page pool '%s' still exists at EAL cleanup (%ld pages "
		       "held)\n",
		       p->name, atomic_load(&p->refs));
	pthread_mutex_unlock(&pool_list_lock);
}

unsigned
lr_page_pool_shrink_cache(struct lr_page_pool *pool, unsigned keep)
{
	unsigned n;

	if (lr_lcore_id() != pool->owner_lcore) {
		LR_LOG(ERR, PAGEALLOC,
		       "page pool '%s': shrink_cache from lcore %u, not the "
		       "owner %u\n",
		       pool->name, lr_lcore_id(), pool->owner_lcore);
		return 0;
	}
	n = drain_cache(pool, keep);
	lr_counter_add(&pool->alloc_stats.shrunk, n);
	return n;
}

/* ---- create / destroy ----------------------------------------------- */

static void
report_at_exit(void)
{
	lr_page_pool_report_pending(stderr);
}

static __lr_cold int
check_params(const struct lr_page_pool_params *p, const char *name,
	     unsigned *owner)
{
	size_t bytes = (size_t)LR_PAGE_SIZE << LR_MIN(p->order, 40u);
	struct lr_pagealloc_zone_info zi;

#define BAD(fmt, ...)                                                          \
	do {                                                                   \
		LR_LOG(ERR, PAGEALLOC, "page pool '%s': " fmt, name,           \
		       ##__VA_ARGS__);                                         \
		return -EINVAL;                                                \
	} while (0)
	if (p->order >= LR_MAX_ORDER)
		BAD("order %u > max %u\n", p->order, LR_MAX_ORDER - 1);
	if (p->pool_size == 0)
		BAD("pool size 0\n");
	if (p->pool_size > PP_MAX_POOL_SIZE)
		BAD("pool size %u > max %u\n", p->pool_size, PP_MAX_POOL_SIZE);
	if (p->ring_size > p->pool_size)
		BAD("ring size %u > pool size %u\n", p->ring_size,
		    p->pool_size);
	if (p->flags & ~LR_PP_FLAG_ALL)
		BAD("unknown flags 0x%x\n", p->flags & ~LR_PP_FLAG_ALL);
	if ((unsigned)p->dma_dir > LR_DMA_FROM_DEVICE)
		BAD("DMA direction %d unknown\n", (int)p->dma_dir);
	if ((p->flags & LR_PP_FLAG_DMA_SYNC_DEV) &&
	    !(p->flags & LR_PP_FLAG_DMA_MAP))
		BAD("LR_PP_FLAG_DMA_SYNC_DEV needs LR_PP_FLAG_DMA_MAP\n");
	if ((p->flags & LR_PP_FLAG_DMA_SYNC_DEV) && p->max_len == 0)
		BAD("LR_PP_FLAG_DMA_SYNC_DEV with max_len 0\n");
	if ((uint64_t)p->offset + p->max_len > bytes)
		BAD("offset %u + max_len %u > %zu bytes per page\n", p->offset,
		    p->max_len, bytes);
	if ((p->map != NULL || p->unmap != NULL) &&
	    !(p->flags & LR_PP_FLAG_DMA_MAP))
		BAD("map/unmap callbacks given without LR_PP_FLAG_DMA_MAP\n");
	if (p->unmap != NULL && p->map == NULL)
		BAD("unmap callback without a map callback\n");
	if (p->nid != LR_SOCKET_ID_ANY &&
	    (p->nid < 0 || lr_pagealloc_zone_info(p->nid, &zi) != 0))
		BAD("NUMA node %d has no memory zone (%u zones)\n", p->nid,
		    lr_pagealloc_zone_count());
	*owner =
	    p->owner_lcore == LR_LCORE_ID_ANY ? lr_lcore_id() : p->owner_lcore;
	if (*owner == LR_LCORE_ID_ANY)
		BAD("the creating thread is not an lcore: call "
		    "lr_thread_register() or give owner_lcore\n");
	if (*owner >= LR_MAX_LCORE)
		BAD("owner lcore %u >= %u\n", *owner, LR_MAX_LCORE);
#undef BAD
	return 0;
}

/* The first pool's hooks (exit report, EAL cleanup, shrinker) and a
 * sequence number for its default and ring names. */
static unsigned
register_hooks(void)
{
	unsigned seq;

	pthread_mutex_lock(&pool_list_lock);
	seq = pool_seq++;
	if (!atexit_registered && atexit(report_at_exit) == 0)
		atexit_registered = 1;
	if (!cleanup_registered && lr_eal_on_cleanup(pools_on_eal_cleanup) == 0)
		cleanup_registered = 1;
	if (shrinker_id < 0)
		shrinker_id =
		    lr_pagealloc_register_shrinker(pools_shrink, NULL);
	if (shrinker_id < 0)
		LR_LOG(WARNING, PAGEALLOC,
		       "page pools: cannot register a shrinker (%s); pools "
		       "will not give pages back under pressure\n",
		       lr_strerror(-shrinker_id));
	pthread_mutex_unlock(&pool_list_lock);
	return seq;
}

/* A new pool's fields from its checked parameters (no ring yet); NULL
 * when out of memory. */
static struct lr_page_pool *
pool_new(const struct lr_page_pool_params *params, const char *name,
	 unsigned owner)
{
	struct lr_page_pool *pool;

	pool = aligned_alloc(LR_CACHE_LINE_SIZE,
			     LR_ALIGN_CEIL(sizeof(*pool), LR_CACHE_LINE_SIZE));
	if (pool == NULL)
		return NULL;
	memset(pool, 0, sizeof(*pool));
	snprintf(pool->name, sizeof(pool->name), "%s", name);
	pool->p = *params;
	pool->p.name = pool->name;
	pool->order = params->order;
	pool->pool_size = params->pool_size;
	pool->flags = params->flags;
	pool->owner_lcore = owner;
	pool->nid = params->nid != LR_SOCKET_ID_ANY
			? params->nid
			: lr_lcore_to_socket_id(owner);
	if (pool->nid < 0)
		pool->nid = 0;
	pool->checked =
	    LR_PAGEALLOC_DEBUG || (params->flags & LR_PP_FLAG_CHECK);
	atomic_init(&pool->refs, 1);
	atomic_init(&pool->alloc_lcore, LR_PP_NO_LCORE);
	atomic_init(&pool->put_lcore, LR_PP_NO_LCORE);
	pool->lstats = aligned_alloc(
	    LR_CACHE_LINE_SIZE, (LR_MAX_LCORE + 1) * sizeof(*pool->lstats));
	if (pool->lstats == NULL) {
		free(pool);
		return NULL;
	}
	memset(pool->lstats, 0, (LR_MAX_LCORE + 1) * sizeof(*pool->lstats));
	return pool;
}

struct lr_page_pool *
lr_page_pool_create(const struct lr_page_pool_params *params)
{
	struct lr_page_pool *pool;
	char name[LR_PP_NAMESIZE], rname[LR_RING_NAMESIZE];
	unsigned owner, seq;

	if (params == NULL) {
		LR_LOG(ERR, PAGEALLOC, "page pool: no parameters\n");
		lr_errno = EINVAL;
		return NULL;
	}
	seq = register_hooks();
	if (params->name == NULL)
		snprintf(name, sizeof(name), "pp%u", seq);
	else if (strlen(params->name) >= sizeof(name)) {
		LR_LOG(ERR, PAGEALLOC,
		       "page pool '%s': name longer than %d characters\n",
		       params->name, LR_PP_NAMESIZE - 1);
		lr_errno = EINVAL;
		return NULL;
	} else
		snprintf(name, sizeof(name), "%s", params->name);
	if (check_params(params, name, &owner) < 0) {
		lr_errno = EINVAL;
		return NULL;
	}
	pool = pool_new(params, name, owner);
	if (pool == NULL) {
		lr_errno = ENOMEM;
		return NULL;
	}
	snprintf(rname, sizeof(rname), "pp.ring.%u", seq);
	pool->ring = lr_ring_create(
	    rname, params->ring_size ? params->ring_size : pool->pool_size,
	    pool->nid, LR_RING_F_EXACT_SZ);
	if (pool->ring == NULL) {
		LR_LOG(ERR, PAGEALLOC, "page pool '%s': recycle ring: %s\n",
		       name, lr_strerror(lr_errno));
		if (lr_errno != EINVAL)
			lr_errno = ENOMEM;
		free(pool->lstats);
		free(pool);
		return NULL;
	}
	if (!pool->checked) {
		atomic_store(&pool->alloc_lcore, owner);
		atomic_store(&pool->put_lcore,
			     put_needs_slow(pool) ? LR_PP_NO_LCORE : owner);
	}
	pool->id = seq;
	pthread_mutex_lock(&pool_list_lock);
	pool->next = pool_list;
	pool_list = pool;
	pthread_mutex_unlock(&pool_list_lock);
	return pool;
}

static void
free_pool(struct lr_page_pool *pool)
{
	struct lr_page_pool **pp;

	pthread_mutex_lock(&pool_list_lock);
	for (pp = &pool_list; *pp != NULL; pp = &(*pp)->next)
		if (*pp == pool) {
			*pp = pool->next;
			break;
		}
	pthread_mutex_unlock(&pool_list_lock);
	lr_ring_free(pool->ring);
	free(pool->lstats);
	free(pool);
}

void
lr_page_pool_free(struct lr_page_pool *pool)
{
	long left;

	if (pool == NULL)
		return;
	if (atomic_exchange(&pool->dying, 1)) {
		LR_LOG(ERR, PAGEALLOC, "page pool '%s': destroyed twice\n",
		       pool->name);
		return;
	}
	close_fast(pool);
	drain_cache(pool, 0);
	steal_stashes(pool);
	drain_ring(pool, UINT32_MAX);
	left = atomic_load(&pool->refs) - 1;
	if (left > 0)
		LR_LOG(INFO, PAGEALLOC,
		       "page pool '%s': %ld pages in flight, destroy deferred "
		       "until they return\n",
		       pool->name, left);
	unref(pool, 1);
}

/* ---- stats, validate, dump ----------------------------------------- */

int
lr_page_pool_stats_get(const struct lr_page_pool *pool,
		       struct lr_page_pool_stats *s)
{
	if (pool == NULL || s == NULL)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	/* The owner's counters and cache count: written by the owner only,
	 * read here from any thread (relaxed, never torn). */
	s->alloc.slow = lr_counter_read(&pool->alloc_stats.slow);
	s->alloc.slow_high_order =
	    lr_counter_read(&pool->alloc_stats.slow_high_order);
	s->alloc.empty = lr_counter_read(&pool->alloc_stats.empty);
	s->alloc.refill = lr_counter_read(&pool->alloc_stats.refill);
	s->alloc.exhausted = lr_counter_read(&pool->alloc_stats.exhausted);
	s->alloc.shrunk = lr_counter_read(&pool->alloc_stats.shrunk);
	s->alloc.fast = lr_counter_read(&pool->alloc_fast);
	s->recycle.cached = lr_counter_read(&pool->recycle_cached);
	s->recycle.cache_full = lr_counter_read(&pool->recycle_cache_full);
	for (unsigned i = 0; i <= LR_MAX_LCORE; i++) {
		const struct lr_page_pool_lstats *l = &pool->lstats[i];

		s->recycle.ring +=
		    atomic_load_explicit(&l->ring, memory_order_relaxed);
		s->recycle.ring_full +=
		    atomic_load_explicit(&l->ring_full, memory_order_relaxed);
		s->recycle.released_refcnt += atomic_load_explicit(
		    &l->released_refcnt, memory_order_relaxed);
		s->recycle.waive +=
		    atomic_load_explicit(&l->waive, memory_order_relaxed);
		s->recycle.shrunk +=
		    atomic_load_explicit(&l->shrunk, memory_order_relaxed);
		s->alloc.remote +=
		    atomic_load_explicit(&l->remote, memory_order_relaxed);
		s->errors +=
		    atomic_load_explicit(&l->errors, memory_order_relaxed);
		if (i < LR_MAX_LCORE) {
			unsigned k = atomic_load_explicit(&l->stash_n,
							  memory_order_relaxed);

			s->stashed += k < LR_PP_STASH ? k : 0;
		}
	}
	s->held = (uint64_t)(atomic_load(&pool->refs) -
			     (atomic_load(&pool->dying) ? 0 : 1));
	s->cached = __atomic_load_n(&pool->count, __ATOMIC_RELAXED);
	s->ringed = lr_ring_count(pool->ring);
	s->allocated = s->alloc.fast + s->alloc.slow +
		       s->alloc.slow_high_order + s->alloc.refill +
		       s->alloc.remote;
	s->returned = s->recycle.cached + s->recycle.ring +
		      s->recycle.ring_full + s->recycle.released_refcnt +
		      s->recycle.waive + s->stashed;
	s->in_flight = s->allocated - s->returned;
	return 0;
}

int
lr_page_pool_validate(const struct lr_page_pool *pool)
{
	struct lr_page_pool_stats s;
	int bad = 0;

#define FAIL(fmt, ...)                                                         \
	do {                                                                   \
		LR_LOG(ERR, PAGEALLOC, "page pool '%s': " fmt, pool->name,     \
		       ##__VA_ARGS__);                                         \
		bad = 1;                                                       \
	} while (0)
	if (pool == NULL)
		return -EINVAL;
	lr_page_pool_stats_get(pool, &s);
	if (s.cached > LR_PP_CACHE_SIZE)
		FAIL("cache count %" PRIu64 " > %u\n", s.cached,
		     LR_PP_CACHE_SIZE);
	if (s.held > pool->pool_size)
		FAIL("holds %" PRIu64 " pages > pool size %u\n", s.held,
		     pool->pool_size);
	if ((int64_t)s.in_flight < 0)
		FAIL("allocated %" PRIu64 " < returned %" PRIu64 "\n",
		     s.allocated, s.returned);
	if (s.held != s.cached + s.ringed + s.stashed + s.in_flight)
		FAIL("held %" PRIu64 " != cached %" PRIu64 " + ring %" PRIu64
		     " + stashed %" PRIu64 " + in flight %" PRIu64 "\n",
		     s.held, s.cached, s.ringed, s.stashed, s.in_flight);
	if (atomic_load(&pool->foreign) > s.held)
		FAIL("%u pages of another node > %" PRIu64 " held\n",
		     atomic_load(&pool->foreign), s.held);
	for (unsigned i = 0; i < pool->count && i < LR_PP_CACHE_SIZE; i++) {
		const struct lr_page *pg = pool->cache[i];

		if (!is_pool_page(pool, pg)) {
			FAIL("cache[%u] = page %p is not the pool's\n", i,
			     (void *)pg);
			continue;
		}
		if (pool->checked && pg->pp_state != LR_PP_STATE_POOL)
			FAIL("cache[%u] = page %p is %s\n", i, (void *)pg,
			     state_name(pg->pp_state));
	}
#undef FAIL
	return bad ? -EINVAL : 0;
}

void
lr_page_pool_dump(FILE *f, const struct lr_page_pool *pool)
{
	struct lr_page_pool_stats s;

	if (pool == NULL)
		return;
	lr_page_pool_stats_get(pool, &s);
	fprintf(f,
		"page pool '%s': order %u, size %u, ring %u, node %d, owner "
		"lcore %u, flags 0x%x%s%s\n",
		pool->name, pool->order, pool->pool_size,
		lr_ring_get_capacity(pool->ring), pool->nid, pool->owner_lcore,
		pool->flags, pool->checked ? ", checked" : "",
		atomic_load(&pool->dying) ? ", destroyed" : "");
	fprintf(
	    f,
	    "  alloc: fast %" PRIu64 " slow %" PRIu64 " slow_high_order "
	    "%" PRIu64 " empty %" PRIu64 " refill %" PRIu64 " remote %" PRIu64
	    " exhausted %" PRIu64 " shrunk %" PRIu64 "\n",
	    s.alloc.fast, s.alloc.slow, s.alloc.slow_high_order, s.alloc.empty,
	    s.alloc.refill, s.alloc.remote, s.alloc.exhausted, s.alloc.shrunk);
	fprintf(f,
		"  recycle: cached %" PRIu64 " cache_full %" PRIu64
		" ring %" PRIu64 " ring_full %" PRIu64
		" released_refcnt %" PRIu64 " waive %" PRIu64 " shrunk %" PRIu64
		"\n",
		s.recycle.cached, s.recycle.cache_full, s.recycle.ring,
		s.recycle.ring_full, s.recycle.released_refcnt, s.recycle.waive,
		s.recycle.shrunk);
	fprintf(f,
		"  held %" PRIu64 " = cached %" PRIu64 " + ring %" PRIu64
		" + stashed %" PRIu64 " + in flight %" PRIu64
		" (allocated %" PRIu64 " - returned %" PRIu64
		"); errors %" PRIu64 "\n",
		s.held, s.cached, s.ringed, s.stashed, s.in_flight, s.allocated,
		s.returned, s.errors);
}

int
lr_page_pool_info_get(const struct lr_page_pool *pool,
		      struct lr_page_pool_info *info)
{
	if (pool == NULL || info == NULL)
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	snprintf(info->name, sizeof(info->name), "%s", pool->name);
	info->id = pool->id;
	info->order = pool->order;
	info->pool_size = pool->pool_size;
	info->ring_size = lr_ring_get_capacity(pool->ring);
	info->node = pool->nid;
	info->owner_lcore = pool->owner_lcore;
	info->flags = pool->flags;
	info->checked = pool->checked;
	info->destroyed = atomic_load(&pool->dying) != 0;
	return 0;
}

unsigned
lr_page_pool_walk(void (*fn)(const struct lr_page_pool *pool, void *arg),
		  void *arg)
{
	unsigned n = 0;

	pthread_mutex_lock(&pool_list_lock);
	for (const struct lr_page_pool *p = pool_list; p != NULL; p = p->next) {
		fn(p, arg);
		n++;
	}
	pthread_mutex_unlock(&pool_list_lock);
	return n;
}

unsigned
lr_page_pool_pending_count(void)
{
	unsigned n = 0;

	pthread_mutex_lock(&pool_list_lock);
	for (struct lr_page_pool *p = pool_list; p != NULL; p = p->next)
		n += atomic_load(&p->dying) != 0;
	pthread_mutex_unlock(&pool_list_lock);
	return n;
}

unsigned
lr_page_pool_report_pending(FILE *f)
{
	unsigned n = 0;

	pthread_mutex_lock(&pool_list_lock);
	for (struct lr_page_pool *p = pool_list; p != NULL; p = p->next) {
		long held;
		unsigned ringed;

		if (!atomic_load(&p->dying))
			continue;
		held = atomic_load(&p->refs);
		ringed = lr_ring_count(p->ring);
		fprintf(f,
			"page pool '%s': destroyed, still waiting for %ld "
			"pages in flight (%u more in its ring)\n",
			p->name, held - (long)ringed, ringed);
		n++;
	}
	pthread_mutex_unlock(&pool_list_lock);
	return n;
}
