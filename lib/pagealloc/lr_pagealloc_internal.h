/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_pagealloc_internal.h - not an API. The allocator's state that the
 * inline fast paths of lr_pagealloc.h (lr_alloc_pages, lr_free_pages,
 * lr_virt_to_page) read, the slow paths they call, and the geometry they
 * share with pagealloc.c. Installed only because those inline functions
 * need it; include lr_pagealloc.h instead. Anything here may change in
 * any release without notice.
 *
 * Geometry, defined once here for the inline paths and the library:
 *   a descriptor is 2^LR_PA_DESC_SHIFT bytes; user addresses below
 *   2^LR_PA_VA_BITS are indexed by a two-level directory of 2 MiB chunks
 *   (2^LR_PA_CHUNK_SHIFT bytes): the top LR_PA_DIR_L1_BITS bits pick a
 *   second-level table, the next LR_PA_DIR_L2_BITS bits the chunk's first
 *   descriptor.
 */
#ifndef LR_PAGEALLOC_H
/* Included on its own: lr_pagealloc.h includes this file where the types
 * it needs are defined. */
#include "lr_pagealloc.h"
#elif !defined(LR_PAGEALLOC_INTERNAL_H)
#define LR_PAGEALLOC_INTERNAL_H

LR_BEGIN_DECLS

#define LR_PA_DESC_SHIFT  6  /* log2(sizeof(struct lr_page)) */
#define LR_PA_VA_BITS	  48 /* user address bits the directory covers */
#define LR_PA_CHUNK_SHIFT 21 /* one directory entry: a 2 MiB chunk */
#define LR_PA_DIR_L2_BITS 13 /* chunks per second-level table: 2^13 */
#define LR_PA_DIR_L1_BITS                                                      \
	(LR_PA_VA_BITS - LR_PA_CHUNK_SHIFT - LR_PA_DIR_L2_BITS)

/* Bit positions of the state word's fields, as the union lays them out. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define LR_PA_ST_FLAGS 0
#define LR_PA_ST_MT    8
#define LR_PA_ST_ORDER 16
#define LR_PA_ST_NODE  24
#else
#define LR_PA_ST_FLAGS 56
#define LR_PA_ST_MT    48
#define LR_PA_ST_ORDER 40
#define LR_PA_ST_NODE  32
#endif

/** A state word from its fields (each < 256; refcount 0). */
static __lr_always_inline uint64_t
lr_pa_mkstate(unsigned flags, unsigned mt, unsigned order, unsigned node)
{
	return (uint64_t)flags << LR_PA_ST_FLAGS | (uint64_t)mt << LR_PA_ST_MT |
	       (uint64_t)order << LR_PA_ST_ORDER |
	       (uint64_t)node << LR_PA_ST_NODE;
}

/*
 * Shared words read without a lock. A head page's state word is read under
 * the zone lock by any lcore (a buddy check while merging, a pageblock scan
 * while stealing) while the lcore holding the block on its list or
 * allocated flips its flags between LR_PG_PCP and LR_PG_ALLOC without the
 * lock; a pageblock's type (lr_pa_pb_mt_[]) changes under the zone lock
 * while the free paths read it without. Neither reader needs more than "a
 * value that was there": the zone only looks for LR_PG_BUDDY, which no
 * lcore ever writes without the lock, and a stale type sends a block to
 * the list of the pageblock's old type, which a drain corrects (see
 * pagealloc_pcp.c). So both are relaxed atomic accesses: plain loads and
 * stores on x86-64 and ppc64le, but no data race for the compiler or
 * ThreadSanitizer. Per-lcore counters are written by their lcore only and
 * read by lr_pagealloc_stats_get() from any thread: relaxed too, so a
 * reader never sees a torn 64-bit value. These use the GNU builtins rather
 * than <stdatomic.h> because the types must stay plain for C++.
 */
/** Relaxed load of a page's state word. */
static __lr_always_inline uint64_t
lr_pa_state_load(const struct lr_page *p)
{
	return __atomic_load_n(&p->st.word, __ATOMIC_RELAXED);
}

/** Relaxed store of a page's whole state word. */
static __lr_always_inline void
lr_pa_state_store(struct lr_page *p, uint64_t word)
{
	__atomic_store_n(&p->st.word, word, __ATOMIC_RELAXED);
}

/** Relaxed store of a page's state flags (LR_PG_*). */
static __lr_always_inline void
lr_pa_flags_store(struct lr_page *p, uint8_t flags)
{
	__atomic_store_n(&p->st.s.flags, flags, __ATOMIC_RELAXED);
}

/** Relaxed load of the type of the pageblock at descriptor offset off. */
static __lr_always_inline unsigned
lr_pa_pb_mt_load(const uint8_t *pb_mt, uintptr_t off)
{
	return __atomic_load_n(
	    &pb_mt[off >> (LR_PA_DESC_SHIFT + LR_PAGEBLOCK_ORDER)],
	    __ATOMIC_RELAXED);
}

/** Per-lcore, per-zone, per-order list of free blocks. */
struct lr_pa_pcp_list {
	struct lr_page *head;
	uint32_t count; /**< blocks on the list */
	uint16_t high;	/**< drain when count goes above this */
	uint16_t batch; /**< blocks moved per refill or drain */
};

/** What each lcore owns: its lists and counters (one cache-aligned slot). */
struct lr_pa_lcore {
	/** [zone][migratetype][order] */
	struct lr_pa_pcp_list list[LR_MAX_NUMA_NODES][LR_PCP_TYPES]
				  [LR_PCP_ORDERS];
	int local_node; /**< zone used for LR_SOCKET_ID_ANY */
	int node_set;	/**< local_node has been looked up */
	int sized; /**< lists sized (by this lcore, on its first slow call) */
	struct lr_pagealloc_stats stats;
} __lr_cache_aligned;

/* Internal state the inline paths read; not for users. */
extern struct lr_pa_lcore lr_pa_lcores_[LR_MAX_LCORE];
extern uintptr_t lr_pa_desc_base_;  /* first descriptor */
extern uintptr_t lr_pa_desc_bytes_; /* extent of the descriptor area */
extern uint8_t *lr_pa_pb_mt_;	    /* migratetype per pageblock */
extern struct lr_page **lr_pa_chunk_dir_[1u << LR_PA_DIR_L1_BITS];

/** Internal: everything lr_alloc_pages() does not do inline. */
struct lr_page *lr_alloc_pages_slow_(int node, unsigned order, unsigned flags);
/** Internal: everything lr_free_pages() does not do inline. */
void lr_free_pages_slow_(struct lr_page *page, unsigned order);
/** Internal: give one batch of an lcore's list above high to its zone. */
void lr_pa_pcp_drain_(unsigned lcore, unsigned node, unsigned mt,
		      unsigned order);

LR_END_DECLS

#endif /* LR_PAGEALLOC_H, LR_PAGEALLOC_INTERNAL_H */
