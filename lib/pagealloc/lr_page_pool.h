/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_page_pool.h - a bounded pool of DMA-mapped pages for one receive (or
 * transmit) queue, recycled instead of being mapped, unmapped and freed per
 * packet. The model is Linux's net/core/page_pool.c; this one sits on the
 * linerate page allocator (lr_pagealloc.h) and the lock-free ring.
 *
 * Structure. A pool has one owner lcore (the queue's poller). It keeps
 *  - an array cache of LR_PP_CACHE_SIZE pages that only the owner touches;
 *  - a recycle ring (multi-producer, multi-consumer) that any thread may put
 *    pages into;
 *  - nothing per page outside the page descriptor: a page the pool holds
 *    is an allocated block whose descriptor carries the pool as its owner
 *    tag (so the allocator refuses a plain lr_free_pages() of it), its
 *    DMA address (dma_addr) and, in checked pools, its owner state
 *    (pp_state) and check word (pp_sum): the fields of struct lr_page that
 *    belong to a block's owner while it is allocated. Every lookup is the
 *    descriptor itself; no per-page lock or table.
 * alloc on the owner pops the array cache. An empty cache is refilled first
 * from the ring (up to LR_PP_REFILL pages in one dequeue), then from
 * lr_alloc_pages_bulk() (LR_PP_REFILL pages, pinned), mapping each new page
 * once. put on the owner with allow_direct goes back into the array cache
 * ("direct recycle"); any other put goes into the ring; when the ring is
 * full, the pool is being destroyed or the page lives on another NUMA node,
 * the page is unmapped, untagged and given back to the allocator.
 *
 * Bound and invariants (u64 counters; "held" = pages the pool took from the
 * allocator and has not given back):
 *   held == cached + ringed + in_flight            (at quiescence)
 *   held <= pool_size                               (always)
 *   in_flight == allocated - returned               (at quiescence)
 *   allocated == alloc.fast + alloc.slow + alloc.slow_high_order
 *                + alloc.refill + alloc.remote
 *   returned  == recycle.cached + recycle.ring + recycle.ring_full
 *                + recycle.released_refcnt + recycle.waive
 *   cached <= LR_PP_CACHE_SIZE, ringed <= ring capacity
 * lr_page_pool_validate() checks them.
 *
 * Ownership. A page handed out by alloc is owned by the device (a mapped
 * pool whose direction lets the device write: FROM_DEVICE, BIDIRECTIONAL)
 * or by the CPU (otherwise). lr_page_pool_sync_for_cpu() moves a page from
 * the device to the CPU, lr_page_pool_sync_for_device() back. A checked
 * pool (LR_PP_FLAG_CHECK, or every pool in a -Dpagealloc_debug=true build)
 * records the owner of every page and reports, with an LR_LOG error and a
 * counter: a put of a page that is already in the pool or belongs to
 * another pool, a sync in the wrong state, a CPU write to a page while it
 * sits in the pool (poison checked at alloc) and, for TO_DEVICE pools, a
 * CPU write to a page the device owns (checksum recorded when the device
 * takes the page, checked when the CPU gets it back). A device that writes
 * (FROM_DEVICE) makes the last check meaningless, so it is not made there.
 *
 * Threading contract. lr_page_pool_alloc() and direct puts are for the
 * owner lcore; a call from another thread is still correct but takes the
 * slow shared path. lr_page_pool_put() with allow_direct == 0 and
 * lr_page_pool_release_page() may run on any thread at any time.
 * lr_page_pool_free() runs once the owner no longer uses the pool (queue
 * stopped), from any thread. Stats and dump read snapshots.
 *
 * Cost on the hot path (owner lcore, cache neither empty nor full): alloc
 * and put are each one thread-local load, one compare against a field that
 * folds every special mode (checked pool, shrink request, pages from
 * another node, pool being destroyed, sync on put), one array access and
 * one counter increment: no atomics, no locks, no call. The ring path adds
 * an out-of-line call and one compare-and-swap. From another CPU, a put
 * would pull the ring's head, tail and slot lines over from the owner for
 * every page (three cache-line transfers, the more costly the busier the
 * owner), so a single put from another EAL lcore goes into that lcore's
 * stash of LR_PP_STASH pages, which enters the ring in one enqueue when
 * full: one compare-and-swap on a line of the putting lcore per page, one
 * ring enqueue per LR_PP_STASH pages. Stashed pages count as returned, not
 * as held elsewhere. Whoever finds the pool at its bound (alloc about to
 * fail with ENOBUFS), the shrinker and destroy take the stashes over
 * (exchange of the stash count; the putter's compare-and-swap then fails
 * and its page goes to the ring itself), so a stash never hides a free
 * page from an alloc that would otherwise fail. Threads without an lcore
 * id put into the ring directly; lr_page_pool_put_bulk() always does.
 *
 * Shrinking. One shrinker registered with the allocator serves every pool
 * (holding a reference on each pool while it scans it, so a concurrent
 * destroy is safe; "held" counts that reference meanwhile). Under
 * pressure it drains each pool's ring (multi-consumer dequeue, safe from
 * any thread) and asks the owner to drain its array cache: the owner sees
 * the request at its next alloc or put (the folded field sends it to the
 * slow path) and gives back all but LR_PP_SHRINK_KEEP cached pages. No
 * thread but the owner ever touches the array cache.
 *
 * Destroy. lr_page_pool_free() gives back the cache and the ring. With
 * pages still in flight the pool stays alive until the last of them
 * returns (any put then gives the page back and drains the ring); a
 * process that exits first gets a report of such pools and their counts.
 * A put that runs at the very moment of the destroy may still land in the
 * ring after destroy drained it: the next put or the shrinker collects it
 * (no fence on the put path to close that window), else the exit report
 * counts it.
 *
 * Error model: lr_page_pool_create() and lr_page_pool_alloc() return NULL
 * and set lr_errno (EINVAL: bad parameter, logged; ENOBUFS: the pool holds
 * pool_size pages and none is free; ENOMEM: the allocator has none).
 * Puts, release and destroy return nothing: a bad page (checked pools) is
 * logged, counted and refused. Other functions return 0 or -errno.
 */
#ifndef LR_PAGE_POOL_H
#define LR_PAGE_POOL_H

#include <stdint.h>
#include <stdio.h>

#include "lr_common.h"
#include "lr_lcore.h"
#include "lr_pagealloc.h"

LR_BEGIN_DECLS

/** Pages the owner's array cache holds. */
#define LR_PP_CACHE_SIZE 128
/** Pages moved per refill (from the ring or from the allocator). */
#define LR_PP_REFILL 64
/** Pages the owner keeps in its cache when a shrinker asks for them. */
#define LR_PP_SHRINK_KEEP 8
/** Longest pool name, NUL included. */
#define LR_PP_NAMESIZE 32

/** Map each page once when it enters the pool, unmap when it leaves. */
#define LR_PP_FLAG_DMA_MAP (1u << 0)
/** Sync [offset, offset + max_len) for the device when a page is recycled. */
#define LR_PP_FLAG_DMA_SYNC_DEV (1u << 1)
/** Record and check page ownership (always on with LR_PAGEALLOC_DEBUG). */
#define LR_PP_FLAG_CHECK (1u << 2)
#define LR_PP_FLAG_ALL                                                         \
	(LR_PP_FLAG_DMA_MAP | LR_PP_FLAG_DMA_SYNC_DEV | LR_PP_FLAG_CHECK)

/** Direction of DMA to and from a pool's pages. */
enum lr_dma_dir {
	LR_DMA_BIDIRECTIONAL = 0, /**< device reads and writes */
	LR_DMA_TO_DEVICE = 1,	  /**< device only reads (transmit) */
	LR_DMA_FROM_DEVICE = 2,	  /**< device only writes (receive) */
};

/** Who owns a page of a pool (recorded in checked pools only). */
enum lr_pp_state {
	LR_PP_STATE_POOL = 0, /**< in the array cache or the ring */
	LR_PP_STATE_DEVICE,   /**< handed out; the device may access it */
	LR_PP_STATE_CPU,      /**< handed out; the CPU may access it */
};

/** Map callback: store the device address of page in *dma; 0 or -errno. */
typedef int (*lr_pp_map_t)(void *arg, struct lr_page *page, unsigned order,
			   enum lr_dma_dir dir, uint64_t *dma);
/** Unmap callback: undo a map. */
typedef void (*lr_pp_unmap_t)(void *arg, struct lr_page *page, unsigned order,
			      uint64_t dma, enum lr_dma_dir dir);
/** Sync callback: make len bytes at dma coherent for the device or CPU. */
typedef void (*lr_pp_sync_t)(void *arg, uint64_t dma, unsigned len,
			     enum lr_dma_dir dir);

/** Parameters of lr_page_pool_create(). Zero means "default" where noted. */
struct lr_page_pool_params {
	const char *name;   /**< for logs and the owner tag; NULL: "pp<n>" */
	unsigned order;	    /**< pages of LR_PAGE_SIZE << order */
	unsigned pool_size; /**< most pages the pool holds (the bound) */
	unsigned ring_size; /**< recycle ring capacity; 0: pool_size */
	int nid;	    /**< NUMA node, LR_SOCKET_ID_ANY: the creator's */
	enum lr_dma_dir dma_dir; /**< direction of DMA */
	unsigned flags;		 /**< LR_PP_FLAG_* */
	unsigned offset;	 /**< DMA_SYNC_DEV: first byte synced */
	unsigned max_len;	 /**< DMA_SYNC_DEV: most bytes synced */
	unsigned owner_lcore; /**< lcore of the direct path; ANY: creator's */
	lr_pp_map_t map;      /**< NULL: the allocator's IOVA */
	lr_pp_unmap_t unmap;  /**< NULL: nothing to undo */
	lr_pp_sync_t sync_for_device; /**< NULL: memory is coherent */
	lr_pp_sync_t sync_for_cpu;    /**< NULL: memory is coherent */
	void *cb_arg;		      /**< first argument of the callbacks */
};

/** Allocation counters (kernel names). Every alloc that returns a page
 *  counts in exactly one of fast, slow, slow_high_order, refill, remote. */
struct lr_page_pool_alloc_stats {
	uint64_t fast;		  /**< popped from the array cache */
	uint64_t slow;		  /**< order-0 bulk refill from the allocator */
	uint64_t slow_high_order; /**< same for order > 0 */
	uint64_t empty;		  /**< refill found the ring empty */
	uint64_t refill;	  /**< refill from the ring */
	uint64_t remote;	  /**< alloc by a thread other than the owner */
	uint64_t exhausted;	  /**< failed: pool_size held, none free */
	uint64_t shrunk;	  /**< pages the owner gave back on request */
};

/** Recycle counters (kernel names). Every put or release counts in exactly
 *  one of cached, ring, ring_full, released_refcnt, waive. */
struct lr_page_pool_recycle_stats {
	uint64_t cached;	  /**< direct put into the array cache */
	uint64_t cache_full;	  /**< direct put found the cache full */
	uint64_t ring;		  /**< put into the recycle ring */
	uint64_t ring_full;	  /**< ring full: page given back */
	uint64_t released_refcnt; /**< released: left the pool for good */
	uint64_t waive;		  /**< put of a page of another node (the kernel
				       counts it at refill: here such a page
				       never reaches the ring) */
	uint64_t shrunk;	  /**< taken from the ring by the shrinker */
};

/** Everything lr_page_pool_stats_get() reports. */
struct lr_page_pool_stats {
	struct lr_page_pool_alloc_stats alloc;
	struct lr_page_pool_recycle_stats recycle;
	uint64_t held;	    /**< taken from the allocator, not given back */
	uint64_t cached;    /**< in the array cache now */
	uint64_t ringed;    /**< in the recycle ring now */
	uint64_t stashed;   /**< in other lcores' stashes now (bound for the
				 ring, counted as returned) */
	uint64_t allocated; /**< sum of the alloc counters that return a page */
	uint64_t returned;  /**< sum of the recycle outcome counters */
	uint64_t in_flight; /**< allocated - returned */
	uint64_t errors;    /**< ownership errors found (checked pools) */
};

/** Pages an lcore other than the owner batches before one ring enqueue. */
#define LR_PP_STASH 32

/** Per-lcore counters of puts from any thread, and the lcore's stash of
 * pages bound for the ring (private layout). */
struct lr_page_pool_lstats {
	LR_ATOMIC(uint64_t) ring;
	LR_ATOMIC(uint64_t) ring_full;
	LR_ATOMIC(uint64_t) released_refcnt;
	LR_ATOMIC(uint64_t) waive;
	LR_ATOMIC(uint64_t) remote;
	LR_ATOMIC(uint64_t) shrunk;
	LR_ATOMIC(uint64_t) errors;
	LR_ATOMIC(unsigned)
	stash_n;		  /* pages in stash[]; >= LR_PP_STASH: closed */
	unsigned stash_used;	  /* this lcore's bit is set in stash_mask */
	struct lr_page *stash[LR_PP_STASH];
} __lr_cache_aligned;

/* Words of the mask of lcores that have used their stash. */
#define LR_PP_STASH_WORDS ((LR_MAX_LCORE + 63) / 64)

/** Value of the fast-path fields that no lcore id matches. */
#define LR_PP_NO_LCORE (LR_LCORE_ID_ANY - 1)

/** A page pool. Fields are private; the layout is public for inlining. */
struct lr_page_pool {
	/* Owner's hot line: read and written by the owner only, except the
	 * two fast-path lcore fields, which other threads may close. */
	LR_ATOMIC(unsigned) alloc_lcore; /* owner, or LR_PP_NO_LCORE */
	LR_ATOMIC(unsigned) put_lcore;	 /* owner, or LR_PP_NO_LCORE */
	unsigned count;		      /* pages in cache[] */
	unsigned order;
	uint64_t alloc_fast;
	uint64_t recycle_cached;
	struct lr_page *cache[LR_PP_CACHE_SIZE];

	/* Owner's cold counters. */
	struct lr_page_pool_alloc_stats alloc_stats __lr_cache_aligned;
	uint64_t recycle_cache_full;

	/* Shared, written rarely. */
	LR_ATOMIC(long) refs __lr_cache_aligned; /* held + 1 while alive */
	LR_ATOMIC(unsigned) foreign; /* held pages of another node */
	LR_ATOMIC(int) shrink_req;   /* a shrinker asked for the cache */
	LR_ATOMIC(int) dying;	     /* destroy has run */
	struct lr_ring *ring;
	LR_ATOMIC(uint64_t) stash_mask[LR_PP_STASH_WORDS];

	/* Set at create. */
	char name[LR_PP_NAMESIZE];
	unsigned owner_lcore;
	unsigned pool_size;
	unsigned flags;
	int nid;
	int checked;
	struct lr_page_pool_params p;
	unsigned id; /* creation number: unique among the process's pools */
	struct lr_page_pool_lstats *lstats; /* LR_MAX_LCORE + 1 slots */
	struct lr_page_pool *next;	    /* list of all pools */
};

/** Create a page pool; NULL + lr_errno (EINVAL after a log, ENOMEM). */
struct lr_page_pool *
lr_page_pool_create(const struct lr_page_pool_params *params);

/** Destroy a pool: give back cached pages; defer the rest (see top). */
void lr_page_pool_free(struct lr_page_pool *pool);

/** Slow path of lr_page_pool_alloc() (cache empty, not owner, special). */
struct lr_page *lr_page_pool_alloc_slow_(struct lr_page_pool *pool);

/** Slow path of lr_page_pool_put() (ring, cache full, not owner, special). */
void lr_page_pool_put_slow_(struct lr_page_pool *pool, struct lr_page *page,
			    unsigned dma_sync_len, int allow_direct);

/**
 * Take a page from the pool: NULL + lr_errno (ENOBUFS when the pool holds
 * pool_size pages and none is free, ENOMEM when the allocator has none).
 * On the owner lcore with pages cached: a pop from the array cache.
 */
static __lr_always_inline struct lr_page *
lr_page_pool_alloc(struct lr_page_pool *pool)
{
	/* The cache and its counters are the owner's: another thread
	 * must not even read them (the owner writes them without any
	 * synchronisation), so the owner test comes first. */
	if (lr_likely(atomic_load_explicit(&pool->alloc_lcore,
					   memory_order_relaxed) ==
		      lr_lcore_id())) {
		unsigned n = pool->count;

		if (lr_likely(n != 0)) {
			/* Relaxed: lr_page_pool_get_stats() reads it. */
			__atomic_store_n(&pool->count, --n, __ATOMIC_RELAXED);
			lr_counter_add(&pool->alloc_fast, 1);
			return pool->cache[n];
		}
	}
	return lr_page_pool_alloc_slow_(pool);
}

/**
 * Give a page back to its pool. dma_sync_len: bytes the device may have
 * written (DMA_SYNC_DEV syncs min(dma_sync_len, max_len) from offset);
 * allow_direct: the caller runs on the owner lcore in the pool's context,
 * so the page may go straight into the array cache.
 */
static __lr_always_inline void
lr_page_pool_put(struct lr_page_pool *pool, struct lr_page *page,
		 unsigned dma_sync_len, int allow_direct)
{
	/* As in lr_page_pool_alloc(): the owner test before the cache. */
	if (lr_likely(
		allow_direct &&
		atomic_load_explicit(&pool->put_lcore, memory_order_relaxed) ==
		    lr_lcore_id())) {
		unsigned n = pool->count;

		if (lr_likely(n < LR_PP_CACHE_SIZE)) {
			pool->cache[n] = page;
			__atomic_store_n(&pool->count, n + 1, __ATOMIC_RELAXED);
			lr_counter_add(&pool->recycle_cached, 1);
			return;
		}
	}
	lr_page_pool_put_slow_(pool, page, dma_sync_len, allow_direct);
}

/**
 * Take up to n pages from any thread, through the shared path: the recycle
 * ring first, then one lr_alloc_pages_bulk() call for the rest (each new
 * page mapped once as it enters). Returns how many it got (counted in
 * alloc.remote); 0 sets lr_errno (ENOBUFS at the bound, ENOMEM, EINVAL).
 * Never touches the owner's array cache.
 */
unsigned lr_page_pool_alloc_bulk(struct lr_page_pool *pool,
				 struct lr_page **pages, unsigned n);

/** Put n pages (as lr_page_pool_put(); pages[] may be reordered). Off the
 *  owner: one ring enqueue for the lot. */
void lr_page_pool_put_bulk(struct lr_page_pool *pool, struct lr_page **pages,
			   unsigned n, unsigned dma_sync_len, int allow_direct);

/** Put a page from a thread that is not the owner (through the ring). */
static inline void
lr_page_pool_recycle(struct lr_page_pool *pool, struct lr_page *page)
{
	lr_page_pool_put_slow_(pool, page, ~0u, 0);
}

/** The page leaves the pool for good: unmapped, untagged, freed. */
void lr_page_pool_release_page(struct lr_page_pool *pool, struct lr_page *page);

/** Device address of a page the pool holds (mapped once): one load from
 *  the page descriptor. */
static __lr_always_inline uint64_t
lr_page_pool_get_dma_addr(const struct lr_page_pool *pool,
			  const struct lr_page *page)
{
	(void)pool;
	return page->dma_addr;
}

/** Move len bytes at off of a page to the CPU; 0, or -EINVAL (checked). */
int lr_page_pool_sync_for_cpu(struct lr_page_pool *pool, struct lr_page *page,
			      unsigned off, unsigned len);

/** Move len bytes at off of a page to the device; 0, or -EINVAL (checked). */
int lr_page_pool_sync_for_device(struct lr_page_pool *pool,
				 struct lr_page *page, unsigned off,
				 unsigned len);

/** Owner state of a page in a checked pool (enum lr_pp_state), or -EINVAL. */
int lr_page_pool_page_state(const struct lr_page_pool *pool,
			    const struct lr_page *page);

/** Owner lcore: give back all but keep cached pages; pages given back. */
unsigned lr_page_pool_shrink_cache(struct lr_page_pool *pool, unsigned keep);

/** Run the shrinker on one pool as the allocator would (node: the zone
 *  under pressure, or LR_SOCKET_ID_ANY); base pages freed. */
unsigned long lr_page_pool_shrink(struct lr_page_pool *pool, int node,
				  unsigned long nr_pages);

/** Fill *stats with a snapshot of the pool's counters; 0 or -EINVAL. */
int lr_page_pool_stats_get(const struct lr_page_pool *pool,
			   struct lr_page_pool_stats *stats);

/** Check the invariants (see top) at a quiescent point; 0 or -EINVAL. */
int lr_page_pool_validate(const struct lr_page_pool *pool);

/** Print the pool's parameters, counters and invariants to f. */
void lr_page_pool_dump(FILE *f, const struct lr_page_pool *pool);

/** What a pool is (lr_page_pool_info_get()). */
struct lr_page_pool_info {
	char name[LR_PP_NAMESIZE];
	unsigned id;	      /**< creation number, unique in the process */
	unsigned order;	      /**< pages of LR_PAGE_SIZE << order */
	unsigned pool_size;   /**< most pages it holds */
	unsigned ring_size;   /**< recycle ring capacity */
	int node;	      /**< NUMA node of its pages */
	unsigned owner_lcore; /**< lcore of the direct path */
	unsigned flags;	      /**< LR_PP_FLAG_* */
	int checked;	      /**< ownership recorded and checked */
	int destroyed;	      /**< destroyed, waiting for pages in flight */
};

/** Fill *info with the pool's parameters; 0 or -EINVAL. */
int lr_page_pool_info_get(const struct lr_page_pool *pool,
			  struct lr_page_pool_info *info);

/**
 * Call fn(pool, arg) for every pool not yet gone (destroyed ones that wait
 * for pages in flight included), newest first, under the list lock that
 * create, destroy and the shrinker take (never the alloc or put paths):
 * fn must not create or destroy a pool. Returns how many pools it visited.
 */
unsigned lr_page_pool_walk(void (*fn)(const struct lr_page_pool *pool,
				      void *arg),
			   void *arg);

/** Number of destroyed pools still waiting for pages in flight. */
unsigned lr_page_pool_pending_count(void);

/** Print destroyed pools still waiting, with their in-flight counts;
 *  returns how many (the atexit report calls it). */
unsigned lr_page_pool_report_pending(FILE *f);

LR_END_DECLS

#endif /* LR_PAGE_POOL_H */
