/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_pagealloc.h - the page allocator: a buddy heap per NUMA node over the
 * EAL's memory segments, per-lcore page lists in front of it, and a bulk
 * API. Modelled on the Linux page allocator (mm/page_alloc.c).
 *
 * What it is
 *   Memory is cut into base pages of LR_PAGE_SIZE bytes, each described by
 *   a struct lr_page (one cache line at most). Blocks are 2^order
 *   contiguous base pages, aligned to their size, order 0..LR_MAX_ORDER-1.
 *   One zone per NUMA node keeps free blocks in free lists per order and
 *   per migratetype; a block's buddy is found by flipping one bit of its
 *   page index. Pageblocks (2 MiB worth of pages) carry a migratetype so
 *   pinned (long-lived, DMA) and movable (short-lived) memory stay apart.
 *   Each lcore owns, per zone and per migratetype with lists (movable and
 *   pinned: LR_PCP_TYPES), lists of free blocks of orders
 *   0..LR_PCP_ORDERS-1 that it refills and drains `batch` blocks at a time
 *   under the zone lock. A block freed goes to the list of its pageblock's
 *   type, so pinned (DMA) memory is recycled without a lock too.
 *
 * Threading
 *   Every call is thread-safe. An lcore (lr_lcore_id() < LR_MAX_LCORE)
 *   allocates and frees orders 0..LR_PCP_ORDERS-1, movable or pinned,
 *   through its own lists without any lock or atomic; a thread that is
 *   not an lcore goes to the zone under its lock. A block may be freed on
 *   any thread (it goes to the freeing lcore's list).
 * lr_pagealloc_drain_lcore() of another lcore, lr_pagealloc_validate() and
 * lr_pagealloc_dump() must run at a quiescent point: no lcore may be using its
 * lists meanwhile.
 *
 * Cost on the hot path (default build, lcore, order < LR_PCP_ORDERS,
 * flags 0, THISNODE or PINNED)
 *   allocate: a thread-local load, a list pop, a byte store and a counter
 *   increment; free: a range check, ONE branch over the descriptor's
 *   state (flags, order, refcount, owner), the pageblock type load, a
 *   list push and a counter increment. Every LR_PCP batch costs one zone
 *   lock round trip. The debug build (-Dpagealloc_debug=true) checks every
 *   page of every block and poisons free memory instead.
 *
 * Invariants (checked by lr_pagealloc_validate(), for every zone)
 *   buddy + pcp + allocated + quarantined = zone pages
 *     buddy:  sum over free lists of 2^order  (= the zone's free count)
 *     pcp:    sum over lcores' lists of count * 2^order
 *   every page belongs to exactly one block; a block is on at most one
 *   list; a free block's page index is a multiple of 2^order and its buddy
 *   is not free at the same order and type (it would have merged);
 *   a free block's list type = the type of its pageblock.
 *
 * Error model
 *   lr_alloc_pages() returns NULL and sets lr_errno (ENOMEM: no memory
 *   above the watermark; EINVAL: bad order, node or flags). The bulk
 *   allocator returns how many blocks it got (0 sets lr_errno). Frees
 *   return nothing: a bad free (double free, foreign address, wrong order,
 *   owned page, nonzero refcount) is logged at ERR naming the page and the
 *   reason, and the allocator stays consistent (the page is refused or
 *   quarantined, never reused). Other calls return 0 or a negative errno.
 */
#ifndef LR_PAGEALLOC_H
#define LR_PAGEALLOC_H

#include <stdint.h>
#include <stdio.h>

#include "lr_common.h"
#include "lr_errno.h"
#include "lr_lcore.h"

LR_BEGIN_DECLS

/** Bytes in a base page (4 KiB, or 64 KiB with -Dpage_shift=16). */
#define LR_PAGE_SIZE (1UL << LR_PAGE_SHIFT)
/** Number of block orders: blocks of 2^0 .. 2^(LR_MAX_ORDER-1) pages. */
#define LR_MAX_ORDER 11
/** Order of a pageblock: 2 MiB of base pages. */
#define LR_PAGEBLOCK_ORDER (21 - LR_PAGE_SHIFT)
/** Base pages per pageblock. */
#define LR_PAGEBLOCK_PAGES (1UL << LR_PAGEBLOCK_ORDER)
/**
 * Orders 0 .. LR_PCP_ORDERS-1 have per-lcore lists. The kernel keeps them
 * for orders 0..3 (and the THP order); order 4 is here too: 64 KiB blocks
 * (jumbo frames, page pools of 64 KiB buffers, the 64 KiB base page's
 * size) are common on a packet path, and without lists every such block
 * costs a zone lock round trip on alloc and on free. A list of order o
 * moves batch >> o blocks and holds at most high >> o, except that order 4
 * uses order 3's block counts (batch >> 3, high >> 3: 8 and 48 blocks in a
 * zone of 256 MiB or more), since a batch of 4 blocks paid a lock round
 * trip per 4 blocks; an order-4 list holds up to 2 * high pages.
 */
#define LR_PCP_ORDERS 5
/** Migratetypes 0 .. LR_PCP_TYPES-1 (movable, pinned) have per-lcore lists;
 *  reserve blocks always go through the zone. */
#define LR_PCP_TYPES 2

/** What a pageblock holds; allocations of one type stay in its blocks. */
enum lr_migratetype {
	LR_MT_MOVABLE = 0, /**< short-lived, general allocations */
	LR_MT_PINNED,	   /**< long-lived memory, e.g. DMA buffers */
	LR_MT_RESERVE,	   /**< kept for LR_ALLOC_RESERVE requests */
	LR_MT_TYPES,
};

#define LR_ALLOC_ZERO	   (1u << 0) /**< zero the block */
#define LR_ALLOC_RESERVE   (1u << 1) /**< may go below the min watermark */
#define LR_ALLOC_THISNODE  (1u << 2) /**< never fall back to another node */
#define LR_ALLOC_PINNED	   (1u << 3) /**< long-lived: LR_MT_PINNED blocks */
#define LR_ALLOC_FLAGS_ALL 0xfu

LR_STATIC_ASSERT(LR_MT_MOVABLE == 0 && LR_MT_PINNED == 1 &&
		     LR_ALLOC_PINNED == 8,
		 "the inline paths index lists by (flags / PINNED) & 1");

/* Page states, in lr_page.flags of a block's head page. Tail pages and
 * the head of nothing have flags 0. */
#define LR_PG_ALLOC 0x01 /**< allocated block */
#define LR_PG_BUDDY 0x02 /**< free block on a zone's free list */
#define LR_PG_PCP   0x04 /**< free block on an lcore's list */
#define LR_PG_BAD   0x08 /**< quarantined: failed a check, never reused */

/** The state word of a descriptor: compared in one go by the checks. */
union lr_page_state {
	struct {
		uint8_t flags;	  /**< LR_PG_* of a head page, 0 for a tail */
		uint8_t mt;	  /**< free list type of a LR_PG_BUDDY head */
		uint8_t order;	  /**< block order of a head page */
		uint8_t node;	  /**< node (zone) of the page, fixed */
		int32_t refcount; /**< users' count; 0 when freed */
	} s;
	uint64_t word;
};

/**
 * Page descriptor: one per base page, 64 bytes. Fields other than
 * refcount, user and (while the block is allocated) the owner's union
 * belong to the allocator; read them only through the functions below.
 */
struct lr_page {
	union lr_page_state st;
	const void *owner; /**< set by lr_page_set_owner() */
	union {
		/** Free block: links of the list it is on. */
		struct {
			struct lr_page *next; /**< list link */
			struct lr_page *prev; /**< list link (zone lists) */
		};
		/** Allocated block: its owner's (as the kernel's page_pool
		 *  fields overlay page->lru). The allocator never reads
		 *  them; it overwrites them when the block is freed. */
		struct {
			uint64_t dma_addr; /**< device address (page pool) */
			uint32_t pp_state; /**< owner's state (page pool) */
			uint32_t pp_sum;   /**< owner's check word */
		};
	};
	void *addr;		/**< first byte of the page */
	uint64_t iova;		/**< its IOVA */
	const char *owner_name; /**< owner's name, for reports */
	uint32_t dbg;		/**< debug build: page holds poison */
	uint32_t user;		/**< free for the block's current owner */
};

LR_STATIC_ASSERT(sizeof(struct lr_page) == 64 &&
		     sizeof(struct lr_page) <= LR_CACHE_LINE_SIZE,
		 "a page descriptor is 64 bytes, at most one cache line");

/** Allocator counters; per lcore, summed by lr_pagealloc_stats_get(). */
struct lr_pagealloc_stats {
	uint64_t alloc[LR_MAX_ORDER]; /**< blocks handed out, by order */
	uint64_t free[LR_MAX_ORDER];  /**< blocks given back, by order */
	uint64_t refill;   /**< per-lcore list refills (zone lock taken) */
	uint64_t drain;	   /**< per-lcore list drains (zone lock taken) */
	uint64_t fallback; /**< blocks taken from another migratetype */
	uint64_t steal;	   /**< pageblocks changed to the requested type */
	uint64_t fail;	   /**< allocations that got nothing */
	uint64_t shrink;   /**< shrinker rounds run under pressure */
	uint64_t bad;	   /**< bad frees and bad pages reported */
};

#include "lr_pagealloc_internal.h"

/** Build the allocator now (it also builds itself on first use); 0 or -errno.
 */
int lr_pagealloc_init(void);

/**
 * Allocate a block of 2^order pages on a node (LR_SOCKET_ID_ANY: the
 * caller's), with LR_ALLOC_* flags. NULL + lr_errno on failure.
 * Fast path: an lcore, order < LR_PCP_ORDERS, flags among THISNODE and
 * PINNED.
 */
static inline struct lr_page *
lr_alloc_pages(int node, unsigned order, unsigned flags)
{
	unsigned lcore = lr_lcore_id();

	if (!LR_PAGEALLOC_DEBUG && lr_likely(lcore < LR_MAX_LCORE) &&
	    lr_likely(order < LR_PCP_ORDERS) &&
	    lr_likely((flags & ~(LR_ALLOC_THISNODE | LR_ALLOC_PINNED)) == 0)) {
		struct lr_pa_lcore *pc = &lr_pa_lcores_[lcore];
		unsigned nid = node == LR_SOCKET_ID_ANY
				   ? (unsigned)pc->local_node
				   : (unsigned)node;
		unsigned mt = (flags / LR_ALLOC_PINNED) & 1; /* LR_MT_PINNED */

		if (lr_likely(nid < LR_MAX_NUMA_NODES)) {
			struct lr_pa_pcp_list *l = &pc->list[nid][mt][order];
			struct lr_page *p = l->head;

			if (lr_likely(p != NULL)) {
				l->head = p->next;
				l->count--;
				lr_pa_flags_store(p, LR_PG_ALLOC);
				lr_counter_add(&pc->stats.alloc[order], 1);
				return p;
			}
		}
	}
	return lr_alloc_pages_slow_(node, order, flags);
}

/** Allocate one order-0 page (see lr_alloc_pages()). */
static inline struct lr_page *
lr_alloc_page(int node, unsigned flags)
{
	return lr_alloc_pages(node, 0, flags);
}

/**
 * Free a block of 2^order pages obtained from lr_alloc_pages() with the
 * same order. Bad frees are logged and refused (see the error model).
 */
static inline void
lr_free_pages(struct lr_page *page, unsigned order)
{
	unsigned lcore = lr_lcore_id();
	uintptr_t off = (uintptr_t)page - lr_pa_desc_base_;

	if (!LR_PAGEALLOC_DEBUG && lr_likely(lcore < LR_MAX_LCORE) &&
	    lr_likely(order < LR_PCP_ORDERS) &&
	    lr_likely(off < lr_pa_desc_bytes_ &&
		      (off & (sizeof(struct lr_page) - 1)) == 0)) {
		/* One branch over flags, type, order, refcount, owner. */
		uint64_t want = lr_pa_mkstate(LR_PG_ALLOC, 0, order, 0);
		uint64_t bad =
		    ((page->st.word & ~lr_pa_mkstate(0, 0, 0, 0xff)) ^ want) |
		    (uintptr_t)page->owner;
		unsigned mt = lr_pa_pb_mt_load(lr_pa_pb_mt_, off);

		if (lr_likely(bad == 0) && lr_likely(mt < LR_PCP_TYPES)) {
			struct lr_pa_lcore *pc = &lr_pa_lcores_[lcore];
			unsigned node = page->st.s.node;
			struct lr_pa_pcp_list *l = &pc->list[node][mt][order];

			lr_pa_flags_store(page, LR_PG_PCP);
			page->next = l->head;
			l->head = page;
			lr_counter_add(&pc->stats.free[order], 1);
			if (lr_unlikely(++l->count > l->high))
				lr_pa_pcp_drain_(lcore, node, mt, order);
			return;
		}
	}
	lr_free_pages_slow_(page, order);
}

/** Free one order-0 page. */
static inline void
lr_free_page(struct lr_page *page)
{
	lr_free_pages(page, 0);
}

/**
 * Allocate n blocks of one order into pages[]; returns how many it got
 * (fewer when memory runs short; never blocks). n == 0 is an error.
 */
unsigned lr_alloc_pages_bulk(int node, unsigned order, unsigned flags,
			     unsigned n, struct lr_page **pages);

/** Free n blocks of one order; bad entries are reported and skipped. */
void lr_free_pages_bulk(struct lr_page **pages, unsigned n, unsigned order);

/** Address of the block's first byte. O(1). */
static inline void *
lr_page_address(const struct lr_page *page)
{
	return page->addr;
}

/** Descriptor of the page holding addr; NULL outside the heap. O(1). */
static inline struct lr_page *
lr_virt_to_page(const void *addr)
{
	uintptr_t a = (uintptr_t)addr;
	struct lr_page **dir, *first;

	if (lr_unlikely(a >> LR_PA_VA_BITS))
		return NULL;
	dir = lr_pa_chunk_dir_[a >> (LR_PA_CHUNK_SHIFT + LR_PA_DIR_L2_BITS)];
	if (dir == NULL)
		return NULL;
	first = dir[(a >> LR_PA_CHUNK_SHIFT) & ((1u << LR_PA_DIR_L2_BITS) - 1)];
	if (first == NULL)
		return NULL;
	return first +
	       ((a & ((1UL << LR_PA_CHUNK_SHIFT) - 1)) >> LR_PAGE_SHIFT);
}

/** IOVA of the page (the block's first byte for a head). O(1). */
static inline uint64_t
lr_page_iova(const struct lr_page *page)
{
	return page->iova;
}

/** NUMA node (zone) of the page. O(1). */
static inline int
lr_page_node(const struct lr_page *page)
{
	return page->st.s.node;
}

/** Migratetype of the pageblock holding the page. O(1). */
static inline enum lr_migratetype
lr_page_migratetype(const struct lr_page *page)
{
	uintptr_t off = (uintptr_t)page - lr_pa_desc_base_;

	return (enum lr_migratetype)lr_pa_pb_mt_load(lr_pa_pb_mt_, off);
}

/**
 * Tag an allocated block with its owner (e.g. a mempool); freeing it
 * while the owner is set is refused with "page owned by pool <name>".
 * Set owner NULL before freeing.
 */
void lr_page_set_owner(struct lr_page *page, const void *owner,
		       const char *owner_name);

/** Give lcore_id's listed blocks back to the zones (quiescent lcore);
 *  0, or -EINVAL if there is no such lcore. */
int lr_pagealloc_drain_lcore(unsigned lcore_id);

/** Check the invariants above; 0, or -EINVAL after logging what is wrong. */
int lr_pagealloc_validate(void);

/** Print statistics and each zone's free blocks per order and type. */
void lr_pagealloc_dump(FILE *f);

/** Sum every lcore's counters (and the non-lcore ones) into s. */
void lr_pagealloc_stats_get(struct lr_pagealloc_stats *s);

/** A zone's figures, in base pages unless said otherwise. */
struct lr_pagealloc_zone_info {
	int node;
	unsigned long pages; /**< pages the zone manages */
	unsigned long free;  /**< pages on its free lists */
	unsigned long pcp;   /**< pages on lcores' lists */
	unsigned long bad;   /**< pages quarantined */
	unsigned long wmark_min, wmark_low, wmark_high;
	unsigned long reserve; /**< pages in LR_MT_RESERVE pageblocks */
	unsigned batch, high;  /**< order-0 per-lcore list batch and high */
	unsigned long nr_free[LR_MAX_ORDER][LR_MT_TYPES]; /**< blocks */
};

/** Fill zi for node's zone; 0, or -ENODEV if the node has no zone. */
int lr_pagealloc_zone_info(int node, struct lr_pagealloc_zone_info *zi);

/** A zone's free blocks and pageblocks (lr_pagealloc_free_info()). */
struct lr_pagealloc_free_info {
	int node;
	unsigned long nr_free[LR_MAX_ORDER][LR_MT_TYPES]; /**< free blocks */
	unsigned long pageblocks[LR_MT_TYPES]; /**< pageblocks of each type */
};

/**
 * Fill fi for node's zone without taking its lock (for telemetry: never
 * stalls an lcore refilling its lists). Each count is one that was there;
 * while others allocate, counts of different orders may straddle a split
 * or merge. Never builds the allocator: 0, -EAGAIN (not built yet) or
 * -ENODEV (no zone on node).
 */
int lr_pagealloc_free_info(int node, struct lr_pagealloc_free_info *fi);

/** One lcore's page lists on one zone (lr_pagealloc_pcp_info()). */
struct lr_pagealloc_pcp_info {
	unsigned lcore;
	int node;	/**< the zone the lists hold pages of */
	int local_node; /**< the lcore's own node */
	/** Blocks on each list, [migratetype][order]. */
	unsigned long count[LR_PCP_TYPES][LR_PCP_ORDERS];
	unsigned high[LR_PCP_ORDERS];  /**< a list drains above this */
	unsigned batch[LR_PCP_ORDERS]; /**< blocks moved per refill or drain */
	unsigned long pages;	       /**< base pages on all these lists */
};

/**
 * Fill pi for lcore's lists of node's zone, read without any lock while
 * the lcore may use them (a snapshot). 0, -EAGAIN (allocator not built),
 * -ENODEV (no zone), -EINVAL (lcore >= LR_MAX_LCORE) or -ENOENT (the lcore
 * has not used its lists yet).
 */
int lr_pagealloc_pcp_info(unsigned lcore, int node,
			  struct lr_pagealloc_pcp_info *pi);

/** Number of zones (nodes with memory); builds the allocator if needed. */
unsigned lr_pagealloc_zone_count(void);

/**
 * Register a shrinker: scan(arg, node, nr) is called, without any lock
 * held, when a zone drops below its low watermark, and frees up to nr
 * pages, returning how many it freed. Returns an id, or -ENOSPC.
 */
int lr_pagealloc_register_shrinker(
    unsigned long (*scan)(void *arg, int node, unsigned long nr_pages),
    void *arg);

/** Remove a shrinker; 0 or -ENOENT. */
int lr_pagealloc_unregister_shrinker(int id);

LR_END_DECLS

#endif /* LR_PAGEALLOC_H */
