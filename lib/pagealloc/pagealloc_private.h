/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * State shared by the page allocator's source files; never installed.
 *
 * pagealloc.c        build/reset, zones, buddy lists, fallback and steal,
 *                    the slow allocation path, shrinkers
 * pagealloc_pcp.c    per-lcore lists: refill, drain, bulk API
 * pagealloc_check.c  bad-page diagnosis, quarantine, poison, validate,
 *                    statistics and dump
 *
 * Descriptor layout: all descriptors live in one mapping starting at
 * lr_pa_desc_base_ (aligned to 64 KiB). A segment's descriptors start at an
 * index congruent to its first page frame number modulo 2^(MAX_ORDER-1),
 * at a fresh 2^(MAX_ORDER-1) window, so that
 *   index alignment = address alignment, and
 *   buddy(page, order) = page XOR (sizeof(struct lr_page) << order)
 * always lands in mapped descriptors of the same segment or in zeroed
 * padding (state 0: never a free buddy).
 */
#ifndef PAGEALLOC_PRIVATE_H
#define PAGEALLOC_PRIVATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "lr_eal.h"
#include "lr_pagealloc.h"

#define PB_ORDER	LR_PAGEBLOCK_ORDER
#define PB_PAGES	LR_PAGEBLOCK_PAGES
#define DESC_SHIFT	LR_PA_DESC_SHIFT
_Static_assert(sizeof(struct lr_page) == 1u << LR_PA_DESC_SHIFT,
	       "LR_PA_DESC_SHIFT is log2 of the descriptor size");
#define MAX_ORDER	LR_MAX_ORDER
#define MAX_BLOCK_PAGES (1UL << (MAX_ORDER - 1))
#define MAX_SPANS	(2 * LR_MAX_MEMSEG)
#define MAX_SHRINKERS	16
#define POISON_BYTE	0x6b
#define NODE_MASK_STATE lr_pa_mkstate(0, 0, 0, 0xff)

/** A zone lock: test-and-set with a bounded spin, then yield. */
struct lr_pa_lock_ {
	atomic_int v;
};

/** Free lists of one order. */
struct free_area {
	struct lr_page *head[LR_MT_TYPES];
	/* Blocks on each list: written under the zone lock, read without
	 * it by lr_pagealloc_free_info() (relaxed atomic stores). */
	unsigned long nr[LR_MT_TYPES];
};

/** One NUMA node's memory. */
struct zone {
	struct lr_pa_lock_ lock;
	bool present;
	int node;
	unsigned long pages;	  /* managed */
	/* Pages on free lists. Written under the lock; read without it as a
	 * hint (the shrinker's target), so relaxed atomic: zone_free(). */
	_Atomic unsigned long free_pages;
	unsigned long bad_pages;  /* quarantined */
	unsigned long reserve_pages;
	unsigned long wmark[3]; /* min, low, high */
	unsigned batch, high;	/* order-0 per-lcore list sizes */
	struct free_area area[MAX_ORDER];
} __lr_cache_aligned;

enum { WMARK_MIN, WMARK_LOW, WMARK_HIGH, WMARK_NONE };

/** A run of pages of one segment on one node. */
struct span {
	uintptr_t addr;
	size_t npages;
	struct lr_page *desc;
	int node;
};

struct shrinker {
	unsigned long (*scan)(void *arg, int node, unsigned long nr);
	void *arg;
	bool used;
};

/** Everything the allocator owns. */
struct pa_global {
	atomic_int ready; /* zones are built */
	pthread_mutex_t init_lock;
	unsigned fake_nodes; /* test option, 0 = real topology */
	struct zone zones[LR_MAX_NUMA_NODES];
	unsigned nr_zones;
	/* zonelist[n]: zones by distance from node n */
	uint8_t zonelist[LR_MAX_NUMA_NODES][LR_MAX_NUMA_NODES];
	uint8_t zonelist_len[LR_MAX_NUMA_NODES];
	struct span spans[MAX_SPANS];
	unsigned nr_spans;
	void *desc_map;
	size_t desc_map_len;
	size_t nr_desc;
	pthread_mutex_t shrink_lock;
	struct shrinker shrinkers[MAX_SHRINKERS];
	struct lr_pagealloc_stats shared_stats; /* non-lcore threads, atomics */
};

extern struct pa_global lr_pa_state_;

static inline size_t
page_index(const struct lr_page *p)
{
	return ((uintptr_t)p - lr_pa_desc_base_) >> DESC_SHIFT;
}

static inline struct lr_page *
buddy_of(const struct lr_page *p, unsigned order)
{
	return (struct lr_page *)((uintptr_t)p ^
				  ((uintptr_t)sizeof(struct lr_page) << order));
}

/* The pageblock type: read without the zone lock by the free paths,
 * hence relaxed (see lr_pa_pb_mt_load()). */
static inline unsigned
pb_mt(const struct lr_page *p)
{
	return lr_pa_pb_mt_load(lr_pa_pb_mt_, (uintptr_t)p - lr_pa_desc_base_);
}

/* Set a pageblock's type; zone lock held (readers without it: pb_mt()). */
static inline void
pb_mt_set(size_t pb, unsigned mt)
{
	__atomic_store_n(&lr_pa_pb_mt_[pb], (uint8_t)mt, __ATOMIC_RELAXED);
}

/* Free pages of a zone (relaxed: exact under the lock, a hint without). */
static inline unsigned long
zone_free(const struct zone *z)
{
	return atomic_load_explicit(&z->free_pages, memory_order_relaxed);
}

/* Add delta to a zone's free pages; zone lock held, so load + store. */
static inline void
zone_free_add(struct zone *z, long delta)
{
	atomic_store_explicit(&z->free_pages,
			      zone_free(z) + (unsigned long)delta,
			      memory_order_relaxed);
}

static inline bool
desc_in_range(const struct lr_page *p)
{
	uintptr_t off = (uintptr_t)p - lr_pa_desc_base_;

	return off < lr_pa_desc_bytes_ &&
	       (off & (sizeof(struct lr_page) - 1)) == 0;
}

static inline struct zone *
page_zone(const struct lr_page *p)
{
	return &lr_pa_state_.zones[p->st.s.node];
}

/* pagealloc.c */
int lr_pa_build_once_(void);
int lr_pa_local_node_slow_(void);
void lr_pa_lock_(struct lr_pa_lock_ *l);
void lr_pa_unlock_(struct lr_pa_lock_ *l);
int lr_pa_build_once_(void);
struct lr_page *lr_pa_rmqueue_(struct zone *z, unsigned order, unsigned mt,
			       bool reserve, struct lr_pagealloc_stats *st);
void lr_pa_free_one_(struct zone *z, struct lr_page *page, unsigned order);
bool lr_pa_wmark_ok_(const struct zone *z, unsigned long pages, int mark,
		     bool reserve);
int lr_pa_local_node_slow_(void);
unsigned lr_pa_alloc_blocks_(int node, unsigned order, unsigned flags,
			     unsigned n, struct lr_page **out);
void lr_pa_free_block_(struct lr_page *page, unsigned order);

/* pagealloc_pcp.c */
unsigned lr_pa_pcp_take_(struct zone *z, struct lr_pa_lcore *pc, unsigned mt,
			 unsigned order, unsigned n, struct lr_page **out,
			 int mark);
void lr_pa_pcp_drain_list_(struct zone *z, struct lr_pa_pcp_list *l,
			   unsigned order, unsigned count);
void lr_pa_pcp_init_lcore_(struct lr_pa_lcore *pc);
void lr_pa_pcp_release_cb_(unsigned lcore_id, void *arg);

/* pagealloc_check.c */
bool lr_pa_check_free_(struct lr_page *page, unsigned order, const char *who);
bool lr_pa_check_alloc_(struct zone *z, struct lr_page *page, unsigned order,
			bool strict_head);
void lr_pa_quarantine_(struct zone *z, struct lr_page *page, unsigned order);
void lr_pa_poison_(struct lr_page *page, unsigned order);
void lr_pa_prep_alloc_(struct lr_page *page, unsigned order, unsigned flags);

/*
 * Size the calling lcore's own lists on its first slow-path call. Only the
 * owning lcore ever writes its struct lr_pa_lcore (besides quiescent
 * drains and the reset at lr_eal_cleanup()), so the build, which may run on
 * any lcore while the others already poll their lists inline, never writes
 * another lcore's entry. Until sized, an lcore's lists are empty (a list
 * gets blocks only by a refill, which sizes first, or by a free, whose
 * count 1 above high 0 calls __lr_pa_pcp_drain(), which sizes): the inline
 * paths fall through to the slow ones and need no check of their own.
 */
static inline void
pa_pcp_size_own(struct lr_pa_lcore *pc)
{
	if (lr_unlikely(!pc->sized))
		lr_pa_pcp_init_lcore_(pc);
}

/** Build the allocator unless it is built; 0 or -errno. */
static inline int
pa_ensure_init(void)
{
	if (lr_likely(atomic_load_explicit(&lr_pa_state_.ready,
					   memory_order_acquire)))
		return 0;
	return lr_pa_build_once_();
}

/** Counters of the calling thread (non-lcore threads share one set). */
static inline struct lr_pagealloc_stats *
pa_stats(void)
{
	unsigned lcore = lr_lcore_id();

	return lcore < LR_MAX_LCORE ? &lr_pa_lcores_[lcore].stats
				    : &lr_pa_state_.shared_stats;
}

static inline void
pa_stat_add(struct lr_pagealloc_stats *st, uint64_t *field, uint64_t v)
{
	if (st == &lr_pa_state_.shared_stats)
		__atomic_fetch_add(field, v, __ATOMIC_RELAXED);
	else
		lr_counter_add(field, v);
}

/** The zone for LR_SOCKET_ID_ANY: the lcore's, else the CPU's node's. */
static inline int
pa_local_node(void)
{
	unsigned lcore = lr_lcore_id();

	if (lcore < LR_MAX_LCORE && lr_pa_lcores_[lcore].node_set)
		return lr_pa_lcores_[lcore].local_node;
	return lr_pa_local_node_slow_();
}

#endif /* PAGEALLOC_PRIVATE_H */
