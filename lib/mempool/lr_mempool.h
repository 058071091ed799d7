/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_mempool.h - pools of fixed-size objects with a per-lcore cache in
 * front of a shared backing store.
 *
 * A pool of n objects of elt_size bytes is carved at creation from blocks
 * of pinned pages taken from the page allocator (lr_alloc_pages), each
 * block tagged with the pool as its owner. Objects are laid out in a block
 * one after the other; when the block's IOVA is not contiguous (IOVA as PA
 * on scattered pages) or LR_MEMPOOL_F_NO_STRADDLE is given, an object that
 * fits in a base page never crosses a base-page boundary. Either way every
 * object spans one IOVA-contiguous range. Each object is preceded by a
 * header of one pointer (the pool), plus a cookie in debug builds
 * (-Dpagealloc_debug=true) that catches double puts. A pool may instead
 * be laid over memory the caller provides, one object per fixed-size slot
 * (lr_mempool_create_xmem(), used for AF_XDP UMEM frames).
 *
 * Backing store: chosen by name through an ops table: "ring_mp_mc" (the
 * default), "ring_sp_sc", "ring_sp_mc", "ring_mp_sc" (lr_ring) and "stack"
 * (a spin-locked LIFO array). LR_MEMPOOL_F_SP_PUT / _SC_GET pick the ring
 * variant when no name is given. More stores register with
 * lr_mempool_register_ops().
 *
 * Per-lcore cache (cache_size > 0): an array of object pointers per lcore
 * id, used as a stack (the top is the hottest object).
 *  - put appends to the top; when the cache would pass its flush threshold
 *    (1.5 x cache_size) the coldest objects, at the bottom, go back to the
 *    store in one bulk so that exactly cache_size remain.
 *  - get takes from the top; when the cache holds fewer than n it hands out
 *    what it has (the hot objects) and refills itself from the store with
 *    one bulk of cache_size + the shortfall, keeping cache_size.
 * After a flush or a refill the cache holds cache_size objects, half a
 * cache away from both edges, so alternating get/put never reaches the
 * store (no ping-pong). Requests larger than cache_size go to the store.
 *
 * Threading contract: get/put from any thread. A thread with an lcore id
 * (an EAL lcore, or any thread after lr_thread_register()) uses its own
 * cache with no lock and no atomic; a thread without one (LR_LCORE_ID_ANY)
 * goes to the store directly (the store is multi-thread safe unless its
 * ops say single producer / consumer, in which case the caller serializes).
 * Two threads must never share one lcore id. A registered thread that
 * unregisters has its cache flushed back to the store. Create, free,
 * lookup and iteration take a global lock.
 *
 * Cost on the hot path (x86-64, cache hit): one thread-local load (the
 * lcore id) and a compare; the cache's address from the id and the
 * pool's first line (the caches follow the pool's structure, one every
 * cache_stride bytes: one multiply, no load that waits on the id); one
 * load of the length and one compare against a bound in the cache's
 * first line that also stands for the statistics flag (a pool that counts
 * every call, LR_MEMPOOL_F_STATS, has bounds no call passes, so its calls
 * take the out-of-line path that counts them); the copy of n pointers
 * (one load or store for n == 1, unrolled for a constant n) and the new
 * length. No lock, no atomic, no division, no call through a pointer; the
 * statistics are not on this path. Counted by callgrind
 * (bench/run mempool_instructions): 21 instructions per get+put pair in
 * lr-mempool-bench's bulk-1 loop, the loop's own 3 and its round trip of
 * the object through the stack included (DPDK 22.11's rte_mempool in the
 * same loop: 35). A refill or
 * flush is one bulk operation on the store (the ring inline for the ring
 * stores, an ops call for the others); without a cache, get and put are
 * that operation, inline.
 *
 * Invariant (at a quiescent point, every lcore's counters included):
 *
 *   sum over lcores(cache len) + store count + in use == size
 *   in use == sum(get_success_objs) - sum(put_objs)
 *   0 <= cache len <= flushthresh (1.5 x cache_size) <= capacity
 *     (2 x cache_size) for every lcore
 *
 * lr_mempool_validate() checks these (the second only for pools that count
 * every call, LR_MEMPOOL_F_STATS; the cache length against capacity) and
 * that no object sits in two cache slots (and, in debug builds, that every
 * cached object is marked free). Debug and sanitizer builds also assert
 * on every get and put that the cache length is within its threshold and
 * on every put that each object's header names this pool.
 * lr_mempool_in_use_count() is the pool's objects (size, or the current
 * count of an elastic pool) minus what caches and store hold.
 *
 * Elastic pools (lr_mempool_create_elastic()): the store starts with min
 * objects and grows, when a get finds it short, by blocks of pages taken
 * in one bulk call from a page pool on the pool's node, up to max objects;
 * a block whose objects are all back in the store goes back to the page
 * allocator when the allocator's shrinker asks (memory pressure), when it
 * has been idle for the time set by lr_mempool_set_idle_shrink(), or on
 * lr_mempool_shrink(); never below min objects.
 *
 *   Geometry. A block is 2^order pages, aligned to its size (buddy
 *   blocks are), so an object finds its block with one AND of its
 *   address. The block opens with a header of one cache line (pool, page,
 *   counts, list links) followed by objects laid out as in a fixed pool,
 *   the first pushed back by a "color" of 0, 1, 2... cache lines in turn
 *   from block to block, within the block's slack (as the kernel's slab
 *   does: blocks are aligned alike, and without it the n-th objects of all
 *   blocks would compete for the same cache sets); the order is the smallest of
 * 0..LR_PCP_ORDERS-1 that wastes at most 1/8 of the block (the per-lcore page
 * lists serve those orders without a lock), or the smallest that holds one
 * object. A 2 KiB mbuf (2368 bytes with headers) takes order-3 blocks of 13
 * mbufs. Each block's IOVA is read once, when it joins the pool (the page pool
 *   maps it: dma_addr); lr_mempool_obj_iova() derives an object's from it.
 *
 *   Store. Each block keeps its free objects on a list linked through the
 *   8 bytes before the object header (objects of elastic pools have that
 *   much more header room; a handed-out object's link holds an "in use"
 *   mark, so a put of an object that is already free, or of another
 *   pool's object, is caught and dropped with a log at the store). Blocks
 *   are on three lists: partial (some objects free), free (all free; the
 *   most recently freed first) and full. A get takes objects from partial
 *   blocks first, then from free ones, so the busy objects gather in few
 *   blocks and the others stay whole for the shrinker, which gives back
 *   the free blocks that have been free the longest. One mutex guards the
 *   store.
 *
 *   Cost. The per-lcore cache in front is the fixed pool's, unchanged: a
 *   get or put that the cache serves does not know the pool is elastic.
 *   A refill or flush (once per cache_size objects) calls the store
 *   through its ops: one mutex round trip, one TSC read (the idle check),
 *   and per object one AND, a load and a store of its link and a counter
 *   update in its block's header. A growth is one lr_page_pool_alloc_bulk()
 *   and the carving of the new objects (obj_init on each). Without a cache
 *   every get and put is such a store call.
 *
 *   Invariants (lr_mempool_validate(), quiescent):
 *     sum over lcores(cache len) + store count + in use == objs <= size
 *     objs == sum over blocks(nobjs), store count == sum(nfree)
 *     min <= objs (once created), blocks <= max blocks, page-pool held
 *     pages == blocks, every block's free list holds exactly nfree objects
 *     of that block, and the list a block is on matches its nfree.
 *   mp->size is max rounded up to whole blocks: the bound.
 *
 * Error model: lr_mempool_create*() returns NULL and sets lr_errno (EINVAL
 * for a bad argument, ENAMETOOLONG, EEXIST for a duplicate name, ENOMEM),
 * after logging the pool's name and the bad value. get returns 0 or
 * -ENOENT (all or nothing); put cannot fail. Others return 0 or -errno.
 */
#ifndef LR_MEMPOOL_H
#define LR_MEMPOOL_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lr_common.h"
#include "lr_errno.h"
#include "lr_lcore.h"
#include "lr_ring.h"

LR_BEGIN_DECLS

/** Longest pool name, NUL included (the store's ring is named "MP_<name>"). */
#define LR_MEMPOOL_NAMESIZE (LR_RING_NAMESIZE - 3)
/** Largest per-lcore cache size. */
#define LR_MEMPOOL_CACHE_MAX_SIZE 512
/** Longest ops name, NUL included. */
#define LR_MEMPOOL_OPS_NAMESIZE 32
/** Most ops that may be registered. */
#define LR_MEMPOOL_MAX_OPS 16

#define LR_MEMPOOL_F_SP_PUT 0x1 /**< puts come from one thread at a time */
#define LR_MEMPOOL_F_SC_GET 0x2 /**< gets come from one thread at a time */
/** Objects are 8-byte aligned instead of cache-line aligned. */
#define LR_MEMPOOL_F_NO_CACHE_ALIGN 0x4
/** No object that fits in a base page crosses one, even in an
 *  IOVA-contiguous block. */
#define LR_MEMPOOL_F_NO_STRADDLE 0x8
/** Count every get and put of lcores in their stats (put_bulk, put_objs,
 *  get_success_bulk, get_success_objs), which also makes validate check
 *  the accounting equation. Off by default, as DPDK builds: the four
 *  counter updates per get+put pair are a store-to-load chain from one
 *  call to the next, the largest cost of a bulk-1 pair after the copy
 *  (BENCHMARKS.md has the measured figures); with it every get and put
 *  of an lcore takes the out-of-line path, and the inline one never
 *  tests the flag. Failures, refills, flushes and store calls are always
 *  counted, and so is everything threads without an lcore id do. The
 *  environment variable LR_MEMPOOL_STATS=1 sets it on every pool (the
 *  test suites run that way). */
#define LR_MEMPOOL_F_STATS 0x10
#define LR_MEMPOOL_F_ALL   0x1f
/** Set by lr_mempool_create_elastic() (never given by a caller): the
 *  store grows and shrinks by blocks of a page pool. */
#define LR_MEMPOOL_F_ELASTIC 0x20

/** Objects carry a debug cookie in debug builds. */
#define LR_MEMPOOL_DEBUG LR_PAGEALLOC_DEBUG

#define LR_MEMPOOL_COOKIE_FREE	0xf7ee0b1ec7f7ee00ULL /**< in the pool */
#define LR_MEMPOOL_COOKIE_INUSE 0x1105e0b1ec71105eULL /**< handed out */

struct lr_mempool;

/** Header placed right before every object. */
struct lr_mempool_objhdr {
#if LR_MEMPOOL_DEBUG
	uint64_t cookie; /**< LR_MEMPOOL_COOKIE_FREE / _INUSE */
#endif
	struct lr_mempool *mp; /**< the pool the object belongs to */
};

/** Counters of one lcore (or of the threads without one). */
struct lr_mempool_stats {
	/* Counters updated together are not adjacent: the compiler would
	 * merge two neighbours into one 16-byte vector add, whose
	 * store-to-load forwarding from one call to the next costs more
	 * than two scalar adds. */
	uint64_t put_bulk;	   /**< put calls */
	uint64_t get_success_bulk; /**< get calls that succeeded */
	uint64_t put_objs;	   /**< objects put */
	uint64_t get_success_objs; /**< objects got */
	uint64_t get_fail_bulk;	   /**< get calls that failed */
	uint64_t store_put_bulk;   /**< bulk puts into the backing store */
	uint64_t get_fail_objs;	   /**< objects asked for by failed gets */
	uint64_t store_get_bulk;   /**< bulk gets from the backing store */
};

/** The counters of threads without an lcore id (updated atomically). */
struct lr_mempool_shared_stats {
	LR_ATOMIC(uint64_t) put_bulk;
	LR_ATOMIC(uint64_t) get_success_bulk;
	LR_ATOMIC(uint64_t) put_objs;
	LR_ATOMIC(uint64_t) get_success_objs;
	LR_ATOMIC(uint64_t) get_fail_bulk;
	LR_ATOMIC(uint64_t) store_put_bulk;
	LR_ATOMIC(uint64_t) get_fail_objs;
	LR_ATOMIC(uint64_t) store_get_bulk;
};

/** Per-lcore cache: header and counters on the first line, then the
 *  object stack objs[0 .. len) with objs[len - 1] the hottest. The two
 *  bounds the inline paths compare against fold the statistics flag in:
 *  a pool that counts every call (LR_MEMPOOL_F_STATS) has bounds no call
 *  passes, so its calls take the out-of-line path, which counts them. */
struct lr_mempool_cache {
	uint32_t len;	       /**< objects held now */
	uint32_t fast_get_min; /**< inline get of n while n + this <= len:
				    0, or UINT32_MAX when counting calls */
	uint32_t fast_put_lim; /**< inline put of n (>= 1) while len + n <=
				    this: flushthresh, or 0 when counting */
	uint32_t size;	       /**< level after a flush or refill */
	uint32_t flushthresh;  /**< a put that would pass it flushes */
	uint32_t count_calls;  /**< pool has LR_MEMPOOL_F_STATS */
	struct lr_mempool_stats stats; /**< this lcore's counters */
	void *objs[];		       /**< the object stack, 2 x size slots */
} __lr_cache_aligned;

/* The object stack starts 8 bytes past a 16-byte boundary (offset 88).
 * Measured in lr-mempool-bench, same runs, every process (EPYC, Zen 5):
 * at offset 96 or 128 the get+put pairs of bulk 8, 32 and 128 took 6-13%
 * more cycles for the same instructions, whatever the cache's page offset
 * (scanned in steps of 128 bytes). A field added before objs must keep
 * it there or measure again. */
LR_BUILD_BUG_ON(offsetof(struct lr_mempool_cache, objs) % 16 != 8);

/**
 * A backing store. Every function gets the pool; the store keeps its state
 * in mp->pool_data. enqueue and dequeue move all n objects or none and write
 * nothing to objs on failure; the store holds up to mp->size objects. A ring
 * store sets mp->store_ring (and mp->store_ring_flags to its LR_RING_F_SP_ENQ /
 * LR_RING_F_SC_DEQ): the refill and flush paths then call the ring's
 * explicit variants inline instead of the ops.
 */
struct lr_mempool_ops {
	char name[LR_MEMPOOL_OPS_NAMESIZE]; /**< name given at create */
	/** Set up an empty store for mp->size objects; 0 or -errno. */
	int (*alloc)(struct lr_mempool *mp);
	/** Release the store. */
	void (*free)(struct lr_mempool *mp);
	/** Put all n objects; 0 or -ENOBUFS. */
	int (*enqueue)(struct lr_mempool *mp, void *const *objs, unsigned n);
	/** Take n objects; 0 or -ENOENT. */
	int (*dequeue)(struct lr_mempool *mp, void **objs, unsigned n);
	/** Objects in the store now. */
	unsigned (*get_count)(const struct lr_mempool *mp);
};

/** Called for each object (obj_init at creation, lr_mempool_obj_iter()). */
typedef void(lr_mempool_obj_cb_t)(struct lr_mempool *mp, void *opaque,
				  void *obj, unsigned obj_idx);

/** A pool. Fields are read-only after creation except where noted. The
 *  per-lcore caches follow the structure in the same allocation, one every
 *  cache_stride bytes (lr_mempool_lcore_cache()): the get and put paths
 *  find theirs from the lcore id and this first line, with no load that
 *  waits on the id. */
struct lr_mempool {
	/* First line: what the get/put paths read. */
	struct lr_ring *store_ring;	  /**< ring store, or NULL: use ops */
	uint32_t store_ring_flags;	  /**< its LR_RING_F_SP_ENQ / _SC_DEQ */
	uint32_t cache_stride;		  /**< bytes from a cache to the next */
	const struct lr_mempool_ops *ops; /**< the backing store's ops */
	void *pool_data;		  /**< the store's state */
	uint32_t cache_size;		  /**< per-lcore cache size (0: none) */
	uint32_t flags;			  /**< LR_MEMPOOL_F_* */
	uint32_t size;			  /**< number of objects */
	uint32_t elt_size;		  /**< object size asked for */
	uint32_t header_size;		  /**< bytes before each object */
	uint32_t total_elt_size;	  /**< distance between objects */

	char name[LR_MEMPOOL_NAMESIZE]; /**< unique name */
	int socket_id;			/**< node the memory came from */
	unsigned private_data_size;	/**< bytes at lr_mempool_get_priv() */
	void *priv;			/**< private area, or NULL */
	unsigned block_order;		/**< page order of the blocks */
	unsigned nb_blocks;		/**< blocks of objects */
	void *impl;			/**< blocks and raw memory (private) */
	struct lr_mempool *next;	/**< named-pool list (private) */

	/** Counters of threads without an lcore id. */
	struct lr_mempool_shared_stats shared_stats __lr_cache_aligned;
	/* LR_MAX_LCORE caches follow (always present: they hold the
	 * counters), the first at the next cache line. */
};

/** The cache of lcore lcore_id (< LR_MAX_LCORE) in mp: an address computed
 *  from the id, never NULL. */
static __lr_always_inline struct lr_mempool_cache *
lr_mempool_lcore_cache(const struct lr_mempool *mp, unsigned lcore_id)
{
	/* A 32-bit product (below LR_MAX_LCORE x 8.3 KiB): one multiply
	 * by a memory operand, zero-extended for free. */
	uint32_t off = lcore_id * mp->cache_stride;

	return (struct lr_mempool_cache *)((uintptr_t)(mp + 1) + off);
}

/* ------------------------------------------------------------------ */
/* Creation and control (slow path).                                   */

/**
 * Create a pool of n objects of elt_size bytes with a per-lcore cache of
 * cache_size, a private area of private_data_size bytes, obj_init called
 * on each object, memory from socket_id; the store is a ring chosen by
 * flags. NULL and lr_errno on error.
 */
struct lr_mempool *lr_mempool_create(const char *name, unsigned n,
				     unsigned elt_size, unsigned cache_size,
				     unsigned private_data_size,
				     lr_mempool_obj_cb_t *obj_init,
				     void *obj_init_arg, int socket_id,
				     unsigned flags);

/** lr_mempool_create() with the backing store named by ops_name (NULL:
 *  chosen by flags). NULL and lr_errno on error. */
struct lr_mempool *lr_mempool_create_ops(const char *name, unsigned n,
					 unsigned elt_size, unsigned cache_size,
					 unsigned private_data_size,
					 lr_mempool_obj_cb_t *obj_init,
					 void *obj_init_arg, int socket_id,
					 unsigned flags, const char *ops_name);

/**
 * Create a pool over memory the caller owns (for example a region already
 * registered with a device, such as an AF_XDP UMEM): object j sits at
 * addr + j * stride + lr_mempool_obj_offset(flags), its header right before
 * it, so the object of any address a inside slot j is found by rounding
 * (a - addr) down to a multiple of stride. The pool holds len / stride
 * objects; addr and stride must be multiples of the object alignment and a
 * slot must hold the header and elt_size bytes. The memory is neither taken
 * from nor given back to the page allocator: it must outlive the pool.
 * Other arguments as lr_mempool_create(). NULL and lr_errno on error.
 */
struct lr_mempool *
lr_mempool_create_xmem(const char *name, void *addr, size_t len,
		       unsigned stride, unsigned elt_size, unsigned cache_size,
		       unsigned private_data_size,
		       lr_mempool_obj_cb_t *obj_init, void *obj_init_arg,
		       int socket_id, unsigned flags);

/**
 * Create an elastic pool (see "Elastic pools" at the top): min objects at
 * once, growing on demand up to max (rounded up to whole blocks) from a
 * page pool on socket_id, shrinking back to min. priv_init (NULL: zeroes)
 * fills the private area before any object is carved, so obj_init may
 * read it; obj_init runs on every object as its block joins the pool (at
 * creation and at every growth, with a running index), so obj_init_arg
 * must stay valid as long as the pool. Other arguments as
 * lr_mempool_create(). NULL and lr_errno on error (ENOMEM when min
 * objects cannot be had).
 */
struct lr_mempool *
lr_mempool_create_elastic(const char *name, unsigned min, unsigned max,
			  unsigned elt_size, unsigned cache_size,
			  unsigned private_data_size, const void *priv_init,
			  lr_mempool_obj_cb_t *obj_init, void *obj_init_arg,
			  int socket_id, unsigned flags);

/** What an elastic pool reports (lr_mempool_elastic_stats_get()). */
struct lr_mempool_elastic_stats {
	unsigned objs;		 /**< objects the pool has now */
	unsigned peak_objs;	 /**< most it has had */
	unsigned min_objs;	 /**< floor (min given at creation) */
	unsigned max_objs;	 /**< bound (mp->size) */
	unsigned blocks;	 /**< blocks held now */
	unsigned peak_blocks;	 /**< most blocks held */
	unsigned block_order;	 /**< pages per block: 2^block_order */
	unsigned objs_per_block; /**< objects in a block (IOVA-contiguous) */
	unsigned idle_shrink_ms; /**< idle time before a free block goes */
	int node;		 /**< NUMA node of the blocks */
	uint64_t growths;	 /**< growths (one bulk page allocation each) */
	uint64_t grown_blocks;	 /**< blocks they added */
	uint64_t shrinks;	 /**< shrink passes that gave blocks back */
	uint64_t shrunk_blocks;	 /**< blocks given back */
	uint64_t grow_fail_max;	 /**< gets refused: at max */
	uint64_t grow_fail_nomem; /**< gets refused: no pages to grow */
	uint64_t bad_puts;	  /**< double or foreign puts dropped */
};

/** Fill *st for an elastic pool without taking its store's lock (each
 *  field a value that was there; exact at a quiescent point); 0, or
 *  -EINVAL for a fixed pool. */
int lr_mempool_elastic_stats_get(const struct lr_mempool *mp,
				 struct lr_mempool_elastic_stats *st);

/**
 * Give back blocks that have been wholly free for ms milliseconds (0:
 * never by age; pressure and lr_mempool_shrink() still do), checked at
 * each store call and by lr_mempool_shrink_idle(); 0 or -EINVAL.
 */
int lr_mempool_set_idle_shrink(struct lr_mempool *mp, unsigned ms);

/** Give back idle blocks now (see lr_mempool_set_idle_shrink()), from any
 *  thread, e.g. a periodic timer; base pages given back (0: fixed pool). */
unsigned long lr_mempool_shrink_idle(struct lr_mempool *mp);

/**
 * Shrink as the page allocator's shrinker does: give back up to nr_pages
 * base pages of wholly free blocks, the longest free first, keeping min
 * objects; from any thread. Objects in lcore caches keep their blocks:
 * lr_mempool_cache_flush() first at a quiescent point to shrink to min.
 * Returns base pages given back (0 for a fixed pool).
 */
unsigned long lr_mempool_shrink(struct lr_mempool *mp, unsigned long nr_pages);

/** Objects the pool has now: size for a fixed pool, the current count for
 *  an elastic one; a snapshot. */
unsigned lr_mempool_objs_count(const struct lr_mempool *mp);

/** Bytes of memory the pool's objects live in now, whole: a fixed pool's
 *  blocks of pages (or the caller's memory) since creation, an elastic
 *  pool's blocks as it grows and shrinks, padding and headers included;
 *  not the pool's own struct and cache arrays. 0 for NULL. Walks a fixed
 *  pool's blocks; takes an elastic store's lock. */
size_t lr_mempool_mem_bytes(const struct lr_mempool *mp);

/** IOVA of an object of mp: from its block's IOVA, read once when the
 *  block joined (elastic pools), else lr_mempool_virt2iova(). */
uint64_t lr_mempool_obj_iova(const struct lr_mempool *mp, const void *obj);

/** Offset of an object from the start of its slot (header included) in a
 *  pool created with these flags; the layout of lr_mempool_create_xmem(). */
unsigned lr_mempool_obj_offset(unsigned flags);

/** Flush the caches, report objects still in use, give the memory back
 *  (NULL is ignored). Objects still out become invalid. */
void lr_mempool_free(struct lr_mempool *mp);

/** The pool of that name, or NULL with lr_errno = ENOENT. */
struct lr_mempool *lr_mempool_lookup(const char *name);

/** Register a backing store; its index, or -EEXIST / -ENOSPC / -EINVAL. */
int lr_mempool_register_ops(const struct lr_mempool_ops *ops);

/** The ops registered under name, or NULL. */
const struct lr_mempool_ops *lr_mempool_ops_lookup(const char *name);

/** Objects free in the pool (store and every cache); a snapshot. */
unsigned lr_mempool_avail_count(const struct lr_mempool *mp);

/** Objects handed out and not yet put back: lr_mempool_objs_count() -
 *  avail; a snapshot. */
unsigned lr_mempool_in_use_count(const struct lr_mempool *mp);

/** Objects in the backing store alone; a snapshot. */
unsigned lr_mempool_store_count(const struct lr_mempool *mp);

/** Objects in one lcore's cache (0 for an id without a cache). */
unsigned lr_mempool_cache_count(const struct lr_mempool *mp, unsigned lcore_id);

/** Give the objects of lcore_id's cache back to the store; LR_LCORE_ID_ANY
 *  flushes every cache. Only the owning thread, or nobody, may be using
 *  the cache meanwhile. */
void lr_mempool_cache_flush(struct lr_mempool *mp, unsigned lcore_id);

/** Check the invariants at a quiescent point; 0 or -EINVAL after logging. */
int lr_mempool_validate(const struct lr_mempool *mp);

/** The pool's private area (NULL if it has none). */
void *lr_mempool_get_priv(struct lr_mempool *mp);

/** IOVA of an object of any pool. */
uint64_t lr_mempool_virt2iova(const void *obj);

/** Call cb on each object of the pool in index order; the object count. */
unsigned lr_mempool_obj_iter(struct lr_mempool *mp, lr_mempool_obj_cb_t *cb,
			     void *opaque);

/** Sum of every lcore's counters and the shared ones into *st. */
void lr_mempool_stats_get(const struct lr_mempool *mp,
			  struct lr_mempool_stats *st);

/** Print the pool's geometry, counts and per-lcore counters to f. */
void lr_mempool_dump(FILE *f, const struct lr_mempool *mp);

/** Call fn on every pool (under the pool list lock). */
void lr_mempool_walk(void (*fn)(struct lr_mempool *mp, void *arg), void *arg);

/** The pool an object belongs to. */
static inline struct lr_mempool *
lr_mempool_from_obj(const void *obj)
{
	return ((const struct lr_mempool_objhdr *)obj - 1)->mp;
}

/* ------------------------------------------------------------------ */
/* Hot path internals; callers use lr_mempool_get*()/put*() below.     */

/* Out of line: the cache paths the inline bounds send away (refill,
 * flush, counted calls), the shared path and the debug checks. */
int lr_mempool_get_slow_(struct lr_mempool *mp, struct lr_mempool_cache *c,
			 void **objs, unsigned n);
void lr_mempool_put_slow_(struct lr_mempool *mp, struct lr_mempool_cache *c,
			  void *const *objs, unsigned n);
int lr_mempool_get_shared_(struct lr_mempool *mp, void **objs, unsigned n);
void lr_mempool_put_shared_(struct lr_mempool *mp, void *const *objs,
			    unsigned n);
void lr_mempool_check_cookies_(const struct lr_mempool *mp, void *const *objs,
			       unsigned n, int getting);
__lr_cold void lr_mempool_store_overflow_(const struct lr_mempool *mp,
					  unsigned n);

/* Put n objects into the backing store: the ring's explicit variant
 * inline, else the ops; 0 or -ENOBUFS. */
static __lr_always_inline int
lr_mempool_store_enqueue_(struct lr_mempool *mp, void *const *objs, unsigned n)
{
	struct lr_ring *r = mp->store_ring;
	unsigned done;

	if (lr_unlikely(r == NULL))
		return mp->ops->enqueue(mp, objs, n);
	if (mp->store_ring_flags & LR_RING_F_SP_ENQ)
		done = lr_ring_sp_enqueue_bulk(r, objs, n, NULL);
	else
		done = lr_ring_mp_enqueue_bulk(r, objs, n, NULL);
	return done == n ? 0 : -ENOBUFS;
}

/* Take n objects from the backing store; 0 or -ENOENT. */
static __lr_always_inline int
lr_mempool_store_dequeue_(struct lr_mempool *mp, void **objs, unsigned n)
{
	struct lr_ring *r = mp->store_ring;
	unsigned done;

	if (lr_unlikely(r == NULL))
		return mp->ops->dequeue(mp, objs, n);
	if (mp->store_ring_flags & LR_RING_F_SC_DEQ)
		done = lr_ring_sc_dequeue_bulk(r, objs, n, NULL);
	else
		done = lr_ring_mc_dequeue_bulk(r, objs, n, NULL);
	return done == n ? 0 : -ENOENT;
}

/* Four pointers as one unaligned vector (GNU C vector extension: one
 * 32-byte move with AVX2, two 16-byte moves with VSX). */
typedef uint64_t lr_mempool_vec4_
    __attribute__((vector_size(32), aligned(8), may_alias));
/* Two pointers as one unaligned 16-byte vector. */
typedef uint64_t lr_mempool_vec2_
    __attribute__((vector_size(16), aligned(8), may_alias));

/* Copy n pointers between arrays that do not overlap; a constant n
 * unrolls into a few moves. get and put copy the same pointers back and
 * forth, so each load is forwarded from the previous call's store: below 8
 * pointers scalar moves keep that forwarding latency short, from 8 to 15
 * 16-byte moves (scalar moves at 8 made the cost depend on the stack's
 * address from process to process), from 16 on the
 * number of moves dominates and 32-byte moves win. */
static __lr_always_inline void
lr_mempool_copy_(void **dst, void *const *src, unsigned n)
{
	unsigned i = 0;

	if (n >= 16)
		for (; i + 4 <= n; i += 4)
			*(lr_mempool_vec4_ *)&dst[i] =
			    *(const lr_mempool_vec4_ *)&src[i];
	else if (n >= 8)
		for (; i + 2 <= n; i += 2)
			*(lr_mempool_vec2_ *)&dst[i] =
			    *(const lr_mempool_vec2_ *)&src[i];
	for (; i < n; i++)
		dst[i] = src[i];
}

/** The calling thread's cache in mp, or NULL for a thread without an id. */
static __lr_always_inline struct lr_mempool_cache *
lr_mempool_default_cache(struct lr_mempool *mp)
{
	unsigned id = lr_lcore_id();

	return lr_likely(id < LR_MAX_LCORE) ? lr_mempool_lcore_cache(mp, id)
					    : NULL;
}

/* Debug and sanitizer builds (LR_ENABLE_ASSERT): the invariants the inline
 * paths rely on, checked on every put; nothing in release builds. The
 * cache never holds more than its flush threshold (a put that would pass
 * it flushes; a refill or flush leaves size <= flushthresh), and a put
 * gives back objects of this pool (their header names it). The cookies
 * of pagealloc-debug builds are checked first: their message says more. */
static __lr_always_inline void
lr_mempool_assert_put_(const struct lr_mempool *mp,
		       const struct lr_mempool_cache *c, void *const *objs,
		       unsigned n)
{
#if LR_MEMPOOL_DEBUG
	lr_mempool_check_cookies_(mp, objs, n, 0);
#endif
#if LR_ENABLE_ASSERT
	LR_ASSERT(c == NULL || c->len <= c->flushthresh);
	for (unsigned i = 0; i < n; i++)
		LR_ASSERT(lr_mempool_from_obj(objs[i]) == mp);
#else
	(void)mp;
	(void)c;
	(void)objs;
	(void)n;
#endif
}

/* Put n objects through lcore cache c. Inline: one bound that also stands
 * for the statistics flag, the copy, the new length. */
static __lr_always_inline void
lr_mempool_cache_put_(struct lr_mempool *mp, void *const *objs, unsigned n,
		      struct lr_mempool_cache *c)
{
	uint32_t len = c->len;

	lr_mempool_assert_put_(mp, c, objs, n);
	/* len + n <= fast_put_lim for n >= 1 (a constant n: as written);
	 * n == 0 goes out of line when the cache is empty, so that a pool
	 * that counts calls sees it. */
	if (lr_likely(__builtin_constant_p(n) && n >= 1
			  ? len + n <= c->fast_put_lim
			  : len + n - 1 < c->fast_put_lim)) {
		lr_mempool_copy_(&c->objs[len], objs, n);
		c->len = len + n;
		return;
	}
	if (n > c->size && len + n > c->flushthresh) {
		/* Larger than the cache and does not fit (every put of a
		 * pool without one): straight to the store. */
		if (c->count_calls) {
			c->stats.put_bulk++;
			c->stats.put_objs += n;
		}
		c->stats.store_put_bulk++;
		if (lr_unlikely(lr_mempool_store_enqueue_(mp, objs, n) != 0))
			lr_mempool_store_overflow_(mp, n);
		return;
	}
	lr_mempool_put_slow_(mp, c, objs, n);
}

/* Get n objects through lcore cache c; 0 or -ENOENT. Inline: one bound
 * that also stands for the statistics flag, the new length, the copy. */
static __lr_always_inline int
lr_mempool_cache_get_(struct lr_mempool *mp, void **objs, unsigned n,
		      struct lr_mempool_cache *c)
{
	uint32_t len = c->len;
	int rc;

	LR_ASSERT(len <= c->flushthresh);
	/* n + fast_get_min <= len, in 64 bits (no wrap); for a constant 1
	 * one compare (the compiler keeps the add otherwise). */
	if (lr_likely(__builtin_constant_p(n) && n == 1
			  ? len > c->fast_get_min
			  : (uint64_t)n + c->fast_get_min <= len)) {
		len -= n;
		c->len = len;
		lr_mempool_copy_(objs, &c->objs[len], n);
		rc = 0;
	} else if (len == 0 && n > c->size) {
		/* Nothing cached and larger than the cache (every get of a
		 * pool without one): straight from the store. */
		rc = lr_mempool_store_dequeue_(mp, objs, n);
		if (lr_likely(rc == 0)) {
			c->stats.store_get_bulk++;
			if (c->count_calls) {
				c->stats.get_success_bulk++;
				c->stats.get_success_objs += n;
			}
		} else {
			c->stats.get_fail_bulk++;
			c->stats.get_fail_objs += n;
		}
	} else {
		rc = lr_mempool_get_slow_(mp, c, objs, n);
	}
#if LR_MEMPOOL_DEBUG
	if (rc == 0)
		lr_mempool_check_cookies_(mp, objs, n, 1);
#endif
	return rc;
}

/** Put n objects through cache c (NULL: straight to the store). */
static __lr_always_inline void
lr_mempool_generic_put(struct lr_mempool *mp, void *const *objs, unsigned n,
		       struct lr_mempool_cache *c)
{
	if (lr_unlikely(c == NULL)) {
		lr_mempool_assert_put_(mp, NULL, objs, n);
		lr_mempool_put_shared_(mp, objs, n);
		return;
	}
	lr_mempool_cache_put_(mp, objs, n, c);
}

/** Get n objects through cache c (NULL: from the store); 0 or -ENOENT. */
static __lr_always_inline int
lr_mempool_generic_get(struct lr_mempool *mp, void **objs, unsigned n,
		       struct lr_mempool_cache *c)
{
	int rc;

	if (lr_likely(c != NULL))
		return lr_mempool_cache_get_(mp, objs, n, c);
	rc = lr_mempool_get_shared_(mp, objs, n);
#if LR_MEMPOOL_DEBUG
	if (rc == 0)
		lr_mempool_check_cookies_(mp, objs, n, 1);
#endif
	return rc;
}

/* ------------------------------------------------------------------ */
/* Get and put.                                                         */

/** Put n objects back into their pool mp. */
static __lr_always_inline void
lr_mempool_put_bulk(struct lr_mempool *mp, void *const *objs, unsigned n)
{
	unsigned id = lr_lcore_id();

	if (lr_likely(id < LR_MAX_LCORE)) {
		lr_mempool_cache_put_(mp, objs, n,
				      lr_mempool_lcore_cache(mp, id));
		return;
	}
	lr_mempool_generic_put(mp, objs, n, NULL);
}

/** Put one object back into its pool mp. */
static __lr_always_inline void
lr_mempool_put(struct lr_mempool *mp, void *obj)
{
	lr_mempool_put_bulk(mp, &obj, 1);
}

/** Get n objects, all or none; 0 or -ENOENT. */
static __lr_always_inline int
lr_mempool_get_bulk(struct lr_mempool *mp, void **objs, unsigned n)
{
	unsigned id = lr_lcore_id();

	if (lr_likely(id < LR_MAX_LCORE))
		return lr_mempool_cache_get_(mp, objs, n,
					     lr_mempool_lcore_cache(mp, id));
	return lr_mempool_generic_get(mp, objs, n, NULL);
}

/** Get one object into *obj; 0 or -ENOENT (*obj untouched). */
static __lr_always_inline int
lr_mempool_get(struct lr_mempool *mp, void **obj)
{
	return lr_mempool_get_bulk(mp, obj, 1);
}

LR_END_DECLS

#endif /* LR_MEMPOOL_H */
