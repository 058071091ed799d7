/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The page allocator's zones: building them over the EAL's memory
 * segments, the buddy free lists (split on allocation, merge on free),
 * migratetype fallback and pageblock stealing, watermarks, shrinkers and
 * the slow allocation path every fast-path miss ends in.
 *
 * Cost: a zone operation is O(MAX_ORDER) list operations under the zone
 * lock; building is O(pages) once.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "pagealloc_private.h"
#include "pagealloc_test.h"

struct lr_pa_lcore lr_pa_lcores_[LR_MAX_LCORE];
uintptr_t lr_pa_desc_base_;
uintptr_t lr_pa_desc_bytes_;
static uint8_t pb_mt_none[1];
uint8_t *lr_pa_pb_mt_ = pb_mt_none;
struct lr_page **lr_pa_chunk_dir_[1u << LR_PA_DIR_L1_BITS];

struct pa_global lr_pa_state_ = {
    .init_lock = PTHREAD_MUTEX_INITIALIZER,
    .shrink_lock = PTHREAD_MUTEX_INITIALIZER,
};

static __thread bool in_shrinker;

#define CHUNK_SHIFT LR_PA_CHUNK_SHIFT
#define L2_BITS	    LR_PA_DIR_L2_BITS

/* ---------------------------------------------------------------- locks */

void
lr_pa_lock_(struct lr_pa_lock_ *l)
{
	for (;;) {
		if (!atomic_exchange_explicit(&l->v, 1, memory_order_acquire))
			return;
		for (unsigned i = 0;
		     atomic_load_explicit(&l->v, memory_order_relaxed); i++) {
			if (i < 256) {
				lr_pause();
			} else {
				/* The holder may be off its CPU (2 cores,
				 * many threads): let it run. */
				sched_yield();
				i = 0;
			}
		}
	}
}

void
lr_pa_unlock_(struct lr_pa_lock_ *l)
{
	atomic_store_explicit(&l->v, 0, memory_order_release);
}

/* ---------------------------------------------------------- statistics */

/* ---------------------------------------------------------- free lists */

static inline void
fl_add(struct zone *z, struct lr_page *p, unsigned order, unsigned mt)
{
	struct free_area *a = &z->area[order];

	LR_ASSERT(order < MAX_ORDER && mt < LR_MT_TYPES);
	LR_ASSERT(desc_in_range(p) &&
		  (page_index(p) & ((1UL << order) - 1)) == 0);
	p->st.word = lr_pa_mkstate(LR_PG_BUDDY, mt, order, (unsigned)z->node);
	p->prev = NULL;
	p->next = a->head[mt];
	if (p->next != NULL)
		p->next->prev = p;
	a->head[mt] = p;
	/* Relaxed store: lr_pagealloc_free_info() reads it without the lock. */
	__atomic_store_n(&a->nr[mt], a->nr[mt] + 1, __ATOMIC_RELAXED);
}

static inline void
fl_del(struct zone *z, struct lr_page *p, unsigned order, unsigned mt)
{
	struct free_area *a = &z->area[order];

	LR_ASSERT(order < MAX_ORDER && mt < LR_MT_TYPES && a->nr[mt] > 0);
	LR_ASSERT(p->prev != NULL ? p->prev->next == p : a->head[mt] == p);
	LR_ASSERT(p->next == NULL || p->next->prev == p);
	if (p->prev != NULL)
		p->prev->next = p->next;
	else
		a->head[mt] = p->next;
	if (p->next != NULL)
		p->next->prev = p->prev;
	__atomic_store_n(&a->nr[mt], a->nr[mt] - 1, __ATOMIC_RELAXED);
}

/* Keep the first 2^low pages of the 2^high block at page; give the upper
 * halves back to the mt lists (the kernel's expand()). */
static inline void
expand(struct zone *z, struct lr_page *page, unsigned low, unsigned high,
       unsigned mt)
{
	LR_ASSERT(low <= high && high < MAX_ORDER);
	while (high > low) {
		high--;
		fl_add(z, page + (1UL << high), high, mt);
	}
}

static struct lr_page *
rmqueue_smallest(struct zone *z, unsigned order, unsigned mt)
{
	for (unsigned o = order; o < MAX_ORDER; o++) {
		struct lr_page *p = z->area[o].head[mt];

		if (p == NULL)
			continue;
		fl_del(z, p, o, mt);
		expand(z, p, order, o, mt);
		return p;
	}
	return NULL;
}

/* Change the type of the pageblock holding page to mt and move its free
 * blocks onto mt's lists, keeping "list type = pageblock type". */
static void
steal_pageblock(struct zone *z, struct lr_page *page, unsigned mt)
{
	size_t idx = page_index(page) & ~(size_t)(PB_PAGES - 1);
	struct lr_page *start =
	    (struct lr_page *)(lr_pa_desc_base_ + (idx << DESC_SHIFT));
	unsigned old = lr_pa_pb_mt_[idx >> PB_ORDER];

	for (size_t i = 0; i < PB_PAGES;) {
		struct lr_page *q = start + i;
		/* A head on an lcore's list or allocated may have its flags
		 * flipped meanwhile between PCP and ALLOC by its lcore
		 * without the lock (relaxed load); its order stays, and
		 * either way the block is skipped whole. */
		union lr_page_state qs = {.word = lr_pa_state_load(q)};
		unsigned o = qs.s.order;

		switch (qs.s.flags) {
		case LR_PG_BUDDY:
			fl_del(z, q, o, old);
			fl_add(z, q, o, mt);
			i += 1UL << o;
			break;
		case LR_PG_ALLOC:
		case LR_PG_PCP:
		case LR_PG_BAD:
			i += 1UL << o;
			break;
		default:
			i++;
			break;
		}
	}
	pb_mt_set(idx >> PB_ORDER, mt);
}

/* Take a block from another type's lists, largest first, stealing whole
 * pageblocks when the block is large (or the request pinned) so the types
 * don't fragment each other. */
static struct lr_page *
rmqueue_fallback(struct zone *z, unsigned order, unsigned mt,
		 struct lr_pagealloc_stats *st)
{
	unsigned other = mt == LR_MT_MOVABLE ? LR_MT_PINNED : LR_MT_MOVABLE;

	for (int o = MAX_ORDER - 1; o >= (int)order; o--) {
		struct lr_page *p = z->area[o].head[other];

		if (p == NULL)
			continue;
		pa_stat_add(st, &st->fallback, 1);
		if (o >= PB_ORDER) {
			size_t pb = page_index(p) >> PB_ORDER;

			fl_del(z, p, (unsigned)o, other);
			for (size_t i = 0; i < 1UL << (o - PB_ORDER); i++)
				pb_mt_set(pb + i, mt);
			pa_stat_add(st, &st->steal, 1UL << (o - PB_ORDER));
			expand(z, p, order, (unsigned)o, mt);
			return p;
		}
		if (mt == LR_MT_PINNED || o >= PB_ORDER / 2) {
			steal_pageblock(z, p, mt);
			pa_stat_add(st, &st->steal, 1);
			return rmqueue_smallest(z, order, mt);
		}
		fl_del(z, p, (unsigned)o, other);
		expand(z, p, order, (unsigned)o, other);
		return p;
	}
	return NULL;
}

struct lr_page *
lr_pa_rmqueue_(struct zone *z, unsigned order, unsigned mt, bool reserve,
	       struct lr_pagealloc_stats *st)
{
	struct lr_page *p = rmqueue_smallest(z, order, mt);

	if (p == NULL)
		p = rmqueue_fallback(z, order, mt, st);
	if (p == NULL && reserve)
		p = rmqueue_smallest(z, order, LR_MT_RESERVE);
	if (p != NULL)
		zone_free_add(z, -(1L << order));
	return p;
}

/* Give a checked block back to its zone's lists, merging with its buddy
 * as long as the buddy is free at the same order and type (the kernel's
 * __free_one_page()). Caller holds the zone lock. */
void
lr_pa_free_one_(struct zone *z, struct lr_page *page, unsigned order)
{
	unsigned mt = pb_mt(page);
	unsigned node = (unsigned)z->node;
	uint64_t tail = lr_pa_mkstate(0, 0, 0, node);
	uint64_t free0 = lr_pa_mkstate(LR_PG_BUDDY, mt, 0, node);

	LR_ASSERT(order < MAX_ORDER && desc_in_range(page));
	LR_ASSERT((page_index(page) & ((1UL << order) - 1)) == 0);
	zone_free_add(z, 1L << order);
	while (order < MAX_ORDER - 1) {
		struct lr_page *b = buddy_of(page, order);

		/* The buddy may be on another lcore's list or allocated,
		 * its flags flipped without the lock: a relaxed load. Only
		 * LR_PG_BUDDY matters here, and it changes under the lock
		 * only. */
		if (lr_pa_state_load(b) !=
		    (free0 | (uint64_t)order << LR_PA_ST_ORDER))
			break;
		/* The next level's buddy, while this level's links load. */
		__builtin_prefetch(buddy_of(b < page ? b : page, order + 1));
		fl_del(z, b, order, mt);
		if (b < page) {
			page->st.word = tail;
			page = b;
		} else {
			b->st.word = tail;
		}
		order++;
	}
	fl_add(z, page, order, mt);
}

bool
lr_pa_wmark_ok_(const struct zone *z, unsigned long pages, int mark,
		bool reserve)
{
	if (reserve || mark == WMARK_NONE)
		return zone_free(z) >= pages;
	return zone_free(z) >= pages + z->wmark[mark];
}

/* ------------------------------------------------------------ building */

static int
node_distance(int a, int b)
{
	if (lr_pa_state_.fake_nodes > 1)
		return a == b ? 10 : 10 + 10 * abs(a - b);
	return lr_numa_distance(a, b);
}

static void
build_zonelists(void)
{
	for (int n = 0; n < LR_MAX_NUMA_NODES; n++) {
		unsigned len = 0;

		for (int z = 0; z < LR_MAX_NUMA_NODES; z++)
			if (lr_pa_state_.zones[z].present)
				lr_pa_state_.zonelist[n][len++] = (uint8_t)z;
		/* insertion sort by distance, then node id */
		for (unsigned i = 1; i < len; i++) {
			uint8_t v = lr_pa_state_.zonelist[n][i];
			unsigned j = i;

			while (
			    j > 0 &&
			    node_distance(n, lr_pa_state_.zonelist[n][j - 1]) >
				node_distance(n, v)) {
				lr_pa_state_.zonelist[n][j] =
				    lr_pa_state_.zonelist[n][j - 1];
				j--;
			}
			lr_pa_state_.zonelist[n][j] = v;
		}
		lr_pa_state_.zonelist_len[n] = (uint8_t)len;
	}
}

static void
zone_setup(struct zone *z)
{
	unsigned long pages = z->pages;
	unsigned long pbs = pages / PB_PAGES;
	unsigned long batch;

	/* The min watermark is the reserve: the RESERVE pageblocks (about
	 * 1/128 of the zone, at most a quarter of it). Below min only
	 * LR_ALLOC_RESERVE requests succeed. */
	unsigned long rpb = (pages / 128 + PB_PAGES - 1) / PB_PAGES;

	if (rpb > pbs / 4)
		rpb = pbs / 4;
	z->reserve_pages = rpb * PB_PAGES;
	z->wmark[WMARK_MIN] = z->reserve_pages;
	z->wmark[WMARK_LOW] = z->reserve_pages + pages / 64;
	z->wmark[WMARK_HIGH] = z->reserve_pages + pages / 32;
	/* Per-lcore lists: about 1/1024 of the zone per batch (a power of
	 * two, 4..64 pages), high = 6 batches, as the kernel sizes them. */
	batch = pages >> 10;
	batch = batch < 4 ? 4 : batch > 64 ? 64 : batch;
	z->batch = 1u << lr_log2_u64(batch);
	z->high = 6 * z->batch;
}

/* Build the lists of free blocks of a run of pages whose pageblocks all
 * have type mt: the largest aligned blocks that fit. */
static void
carve(struct zone *z, struct lr_page *first, size_t npages, unsigned mt)
{
	size_t idx = page_index(first), end = idx + npages;

	while (idx < end) {
		unsigned o = MAX_ORDER - 1;

		while ((idx & ((1UL << o) - 1)) != 0 || idx + (1UL << o) > end)
			o--;
		fl_add(
		    z,
		    (struct lr_page *)(lr_pa_desc_base_ + (idx << DESC_SHIFT)),
		    o, mt);
		zone_free_add(z, 1L << o);
		idx += 1UL << o;
	}
}

static void
free_span_memory(struct span *s)
{
	struct zone *z = &lr_pa_state_.zones[s->node];
	size_t pb0 = page_index(s->desc) >> PB_ORDER;
	size_t npb = s->npages / PB_PAGES;

	for (size_t i = 0; i < npb;) {
		unsigned mt = lr_pa_pb_mt_[pb0 + i];
		size_t j = i;

		while (j < npb && lr_pa_pb_mt_[pb0 + j] == mt)
			j++;
		carve(z, s->desc + i * PB_PAGES, (j - i) * PB_PAGES, mt);
		i = j;
	}
}

static int
chunk_map(uintptr_t addr, struct lr_page *desc)
{
	size_t top = addr >> (CHUNK_SHIFT + L2_BITS);

	if ((addr >> LR_PA_VA_BITS) != 0)
		return -EINVAL;
	if (lr_pa_chunk_dir_[top] == NULL) {
		lr_pa_chunk_dir_[top] = calloc(1u << L2_BITS, sizeof(void *));
		if (lr_pa_chunk_dir_[top] == NULL)
			return -ENOMEM;
	}
	lr_pa_chunk_dir_[top][(addr >> CHUNK_SHIFT) & ((1u << L2_BITS) - 1)] =
	    desc;
	return 0;
}

static void
chunk_unmap_all(void)
{
	for (size_t i = 0; i < LR_DIM(lr_pa_chunk_dir_); i++) {
		free(lr_pa_chunk_dir_[i]);
		lr_pa_chunk_dir_[i] = NULL;
	}
}

static void pa_reset(void);

struct range {
	uintptr_t a, e;
	size_t desc;
	const struct lr_memseg *seg;
};

/* Cut the usable ranges into spans, one node each. */
static int
make_spans(struct range *r, unsigned nr)
{
	size_t total_pb = 0, quota = 0;
	unsigned node = 0;

	for (unsigned i = 0; i < nr; i++)
		total_pb += (r[i].e - r[i].a) >> CHUNK_SHIFT;
	if (lr_pa_state_.fake_nodes > 1)
		quota = (total_pb + lr_pa_state_.fake_nodes - 1) /
			lr_pa_state_.fake_nodes;
	lr_pa_state_.nr_spans = 0;
	for (unsigned i = 0; i < nr; i++) {
		uintptr_t a = r[i].a;

		while (a < r[i].e) {
			uintptr_t e = r[i].e;
			int nid;

			if (lr_pa_state_.fake_nodes > 1) {
				size_t left = quota;

				if ((e - a) >> CHUNK_SHIFT > left)
					e = a + (left << CHUNK_SHIFT);
				nid = (int)node;
				quota -= (e - a) >> CHUNK_SHIFT;
				if (quota == 0 &&
				    node + 1 < lr_pa_state_.fake_nodes) {
					node++;
					quota = (total_pb +
						 lr_pa_state_.fake_nodes - 1) /
						lr_pa_state_.fake_nodes;
				}
			} else {
				nid = r[i].seg->socket_id;
				if (nid < 0 || nid >= LR_MAX_NUMA_NODES)
					nid = 0;
			}
			if (lr_pa_state_.nr_spans == MAX_SPANS)
				return -ENOSPC;
			struct span *s =
			    &lr_pa_state_.spans[lr_pa_state_.nr_spans++];

			s->addr = a;
			s->npages = (e - a) >> LR_PAGE_SHIFT;
			s->desc =
			    (struct lr_page *)(lr_pa_desc_base_ +
					       ((r[i].desc + ((a - r[i].a) >>
							      LR_PAGE_SHIFT))
						<< DESC_SHIFT));
			s->node = nid;
			a = e;
		}
	}
	return 0;
}

static void
init_span_pages(struct span *s, const struct lr_memseg *seg)
{
	struct zone *z = &lr_pa_state_.zones[s->node];
	uint64_t tail = lr_pa_mkstate(0, 0, 0, (unsigned)s->node);

	for (size_t i = 0; i < s->npages; i++) {
		struct lr_page *p = &s->desc[i];
		void *addr = (void *)(s->addr + (i << LR_PAGE_SHIFT));

		p->st.word = tail;
		p->addr = addr;
		p->iova = lr_memseg_iova(seg, addr);
	}
	z->present = true;
	z->node = s->node;
	z->pages += s->npages;
}

/* Memory to manage: the EAL's segments, else a default heap reserved now.
 * The number of segments, or -ENOMEM after logging. */
static int
memory_segments(void)
{
	if (lr_memseg_count() == 0 &&
	    lr_memseg_reserve(lr_default_heap_size(), LR_SOCKET_ID_ANY) ==
		NULL) {
		LR_LOG(ERR, PAGEALLOC,
		       "cannot reserve the default heap of %zu MB: %s "
		       "(lr_memory_set_default_heap() or LR_HEAP_MB sizes "
		       "it)\n",
		       lr_default_heap_size() >> 20, lr_strerror(lr_errno));
		return -ENOMEM;
	}
	return (int)lr_memseg_count();
}

/* The 2 MiB aligned part of each of the nseg segments into r, each at a
 * descriptor index congruent to its frame number; how many ranges, and in
 * *ndesc the descriptors they need. */
static unsigned
collect_ranges(struct range *r, unsigned nseg, size_t *ndesc)
{
	unsigned nr = 0;

	*ndesc = 0;
	for (unsigned i = 0; i < nseg; i++) {
		const struct lr_memseg *s = lr_memseg_get(i);
		uintptr_t a =
		    LR_ALIGN_CEIL((uintptr_t)s->addr, 1UL << CHUNK_SHIFT);
		uintptr_t e = LR_ALIGN_FLOOR((uintptr_t)s->addr + s->len,
					     1UL << CHUNK_SHIFT);

		if (e <= a)
			continue;
		if (a != (uintptr_t)s->addr || e != (uintptr_t)s->addr + s->len)
			LR_LOG(NOTICE, PAGEALLOC,
			       "memseg %u: using the 2 MiB aligned part "
			       "%#lx-%#lx\n",
			       i, (unsigned long)a, (unsigned long)e);
		r[nr].a = a;
		r[nr].e = e;
		r[nr].seg = s;
		/* A fresh max-order window, index congruent to the frame
		 * number: index alignment = address alignment. */
		r[nr].desc = LR_ALIGN_CEIL(*ndesc, MAX_BLOCK_PAGES) +
			     ((a >> LR_PAGE_SHIFT) & (MAX_BLOCK_PAGES - 1));
		*ndesc = r[nr].desc + ((e - a) >> LR_PAGE_SHIFT);
		nr++;
	}
	*ndesc = LR_ALIGN_CEIL(*ndesc, MAX_BLOCK_PAGES);
	return nr;
}

/* The descriptor array for ndesc pages (2 MiB aligned, untouched until
 * used) and the pageblock type map; 0 or -ENOMEM (pa_reset() undoes). */
static int
map_descriptors(size_t ndesc)
{
	size_t bytes = ndesc * sizeof(struct lr_page);
	void *raw = mmap(NULL, bytes + (2UL << 20), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (raw == MAP_FAILED) {
		LR_LOG(ERR, PAGEALLOC,
		       "cannot map %zu KB of page descriptors: %s\n",
		       bytes >> 10, strerror(errno));
		return -ENOMEM;
	}
	lr_pa_state_.desc_map = raw;
	lr_pa_state_.desc_map_len = bytes + (2UL << 20);
	lr_pa_state_.nr_desc = ndesc;
	lr_pa_desc_base_ = LR_ALIGN_CEIL((uintptr_t)raw, 2UL << 20);
	lr_pa_pb_mt_ = calloc(ndesc >> PB_ORDER, 1);
	return lr_pa_pb_mt_ == NULL ? -ENOMEM : 0;
}

/* Describe every page of every span and index its chunks by address; 0
 * or a negative errno after logging. */
static int
index_spans(const struct range *r)
{
	for (unsigned i = 0, k = 0; i < lr_pa_state_.nr_spans; i++) {
		struct span *s = &lr_pa_state_.spans[i];

		while (!(s->addr >= r[k].a && s->addr < r[k].e))
			k++;
		init_span_pages(s, r[k].seg);
		for (size_t c = 0; c < s->npages; c += PB_PAGES) {
			int rc = chunk_map(s->addr + (c << LR_PAGE_SHIFT),
					   &s->desc[c]);

			if (rc < 0) {
				LR_LOG(ERR, PAGEALLOC,
				       "cannot index memory at %#lx\n",
				       (unsigned long)s->addr);
				return rc;
			}
		}
	}
	return 0;
}

/* Set up every present zone; its last pageblocks become its reserve. */
static void
setup_zones(void)
{
	lr_pa_state_.nr_zones = 0;
	for (int n = 0; n < LR_MAX_NUMA_NODES; n++) {
		struct zone *z = &lr_pa_state_.zones[n];
		unsigned long left;

		if (!z->present)
			continue;
		lr_pa_state_.nr_zones++;
		zone_setup(z);
		left = z->reserve_pages / PB_PAGES;
		for (unsigned i = lr_pa_state_.nr_spans; i-- > 0 && left > 0;) {
			struct span *s = &lr_pa_state_.spans[i];
			size_t pb0 = page_index(s->desc) >> PB_ORDER;
			size_t npb = s->npages / PB_PAGES;

			if (s->node != n)
				continue;
			while (npb > 0 && left > 0) {
				lr_pa_pb_mt_[pb0 + --npb] = LR_MT_RESERVE;
				left--;
			}
		}
	}
}

static int
build(void)
{
	int nseg = memory_segments(), rc;
	struct range *r;
	size_t ndesc;
	unsigned nr;

	if (nseg < 0)
		return nseg;
	r = calloc((size_t)nseg, sizeof(*r));
	if (r == NULL)
		return -ENOMEM;
	nr = collect_ranges(r, (unsigned)nseg, &ndesc);
	if (nr == 0) {
		LR_LOG(ERR, PAGEALLOC,
		       "no memory segment holds a whole 2 MiB chunk\n");
		rc = -ENOMEM;
		goto free_ranges;
	}
	rc = map_descriptors(ndesc);
	if (rc < 0 && lr_pa_state_.desc_map == NULL)
		goto free_ranges;
	if (rc < 0)
		goto unmap_desc;
	rc = make_spans(r, nr);
	if (rc < 0) {
		LR_LOG(ERR, PAGEALLOC, "more than %d memory spans\n",
		       MAX_SPANS);
		goto unmap_desc;
	}
	rc = index_spans(r);
	if (rc < 0)
		goto unmap_desc;
	setup_zones();
	/* The descriptors' extent first: freeing the spans checks it. */
	lr_pa_desc_bytes_ = ndesc * sizeof(struct lr_page);
	for (unsigned i = 0; i < lr_pa_state_.nr_spans; i++)
		free_span_memory(&lr_pa_state_.spans[i]);
	build_zonelists();
	/* Each lcore sizes its own lists (pa_pcp_size_own()): the build
	 * never writes an entry another lcore may be reading inline. */
	free(r);
	LR_LOG(INFO, PAGEALLOC, "%u zone%s, %zu pages of %lu KB\n",
	       lr_pa_state_.nr_zones, lr_pa_state_.nr_zones > 1 ? "s" : "",
	       (size_t)(lr_pa_state_.zones[0].pages), LR_PAGE_SIZE >> 10);
	return 0;

unmap_desc:
	pa_reset();
free_ranges:
	free(r);
	return rc;
}

/* Forget everything: lr_eal_cleanup() is about to unmap the memory. */
static void
pa_reset(void)
{
	chunk_unmap_all();
	if (lr_pa_state_.desc_map != NULL)
		munmap(lr_pa_state_.desc_map, lr_pa_state_.desc_map_len);
	lr_pa_state_.desc_map = NULL;
	if (lr_pa_pb_mt_ != pb_mt_none)
		free(lr_pa_pb_mt_);
	lr_pa_pb_mt_ = pb_mt_none;
	lr_pa_desc_bytes_ = 0;
	lr_pa_desc_base_ = 0;
	memset(lr_pa_state_.zones, 0, sizeof(lr_pa_state_.zones));
	memset(lr_pa_lcores_, 0, sizeof(lr_pa_lcores_));
	memset(&lr_pa_state_.shared_stats, 0,
	       sizeof(lr_pa_state_.shared_stats));
	memset(lr_pa_state_.spans, 0, sizeof(lr_pa_state_.spans));
	lr_pa_state_.nr_spans = 0;
	lr_pa_state_.nr_zones = 0;
	lr_pa_state_.nr_desc = 0;
	lr_pa_state_.fake_nodes = 0;
	pthread_mutex_lock(&lr_pa_state_.shrink_lock);
	memset(lr_pa_state_.shrinkers, 0, sizeof(lr_pa_state_.shrinkers));
	pthread_mutex_unlock(&lr_pa_state_.shrink_lock);
}

static void
pa_on_eal_cleanup(void)
{
	pthread_mutex_lock(&lr_pa_state_.init_lock);
	pa_reset();
	atomic_store_explicit(&lr_pa_state_.ready, 0, memory_order_release);
	pthread_mutex_unlock(&lr_pa_state_.init_lock);
}

int
lr_pa_build_once_(void)
{
	static bool hooks;
	int rc = 0;

	pthread_mutex_lock(&lr_pa_state_.init_lock);
	if (!atomic_load_explicit(&lr_pa_state_.ready, memory_order_relaxed)) {
		rc = build();
		if (rc == 0) {
			if (!hooks) {
				lr_eal_on_cleanup(pa_on_eal_cleanup);
				lr_lcore_on_release(lr_pa_pcp_release_cb_,
						    NULL);
				hooks = true;
			}
			atomic_store_explicit(&lr_pa_state_.ready, 1,
					      memory_order_release);
		}
	}
	pthread_mutex_unlock(&lr_pa_state_.init_lock);
	if (rc < 0)
		lr_errno = -rc;
	return rc;
}

int
lr_pagealloc_init(void)
{
	return pa_ensure_init();
}

unsigned
lr_pagealloc_zone_count(void)
{
	return pa_ensure_init() == 0 ? lr_pa_state_.nr_zones : 0;
}

int
lr_pagealloc_test_fake_nodes(unsigned nr)
{
	int rc = 0;

	if (nr == 0 || nr > LR_MAX_NUMA_NODES) {
		LR_LOG(ERR, PAGEALLOC, "fake nodes: %u not in 1..%d\n", nr,
		       LR_MAX_NUMA_NODES);
		return -EINVAL;
	}
	pthread_mutex_lock(&lr_pa_state_.init_lock);
	if (atomic_load(&lr_pa_state_.ready))
		rc = -EBUSY;
	else
		lr_pa_state_.fake_nodes = nr;
	pthread_mutex_unlock(&lr_pa_state_.init_lock);
	if (rc < 0)
		LR_LOG(ERR, PAGEALLOC,
		       "fake nodes: the allocator is already built\n");
	return rc;
}

/* ------------------------------------------------------------ shrinkers */

int
lr_pagealloc_register_shrinker(unsigned long (*scan)(void *arg, int node,
						     unsigned long nr_pages),
			       void *arg)
{
	int id = -ENOSPC;

	if (scan == NULL) {
		LR_LOG(ERR, PAGEALLOC, "register shrinker: NULL function\n");
		return -EINVAL;
	}
	pthread_mutex_lock(&lr_pa_state_.shrink_lock);
	for (int i = 0; i < MAX_SHRINKERS; i++) {
		if (!lr_pa_state_.shrinkers[i].used) {
			lr_pa_state_.shrinkers[i].scan = scan;
			lr_pa_state_.shrinkers[i].arg = arg;
			lr_pa_state_.shrinkers[i].used = true;
			id = i;
			break;
		}
	}
	pthread_mutex_unlock(&lr_pa_state_.shrink_lock);
	if (id < 0)
		LR_LOG(ERR, PAGEALLOC, "register shrinker: all %d slots used\n",
		       MAX_SHRINKERS);
	return id;
}

int
lr_pagealloc_unregister_shrinker(int id)
{
	int rc = -ENOENT;

	if (id < 0 || id >= MAX_SHRINKERS)
		return -ENOENT;
	pthread_mutex_lock(&lr_pa_state_.shrink_lock);
	if (lr_pa_state_.shrinkers[id].used) {
		memset(&lr_pa_state_.shrinkers[id], 0,
		       sizeof(lr_pa_state_.shrinkers[id]));
		rc = 0;
	}
	pthread_mutex_unlock(&lr_pa_state_.shrink_lock);
	return rc;
}

/* Ask every shrinker for pages; they run without any lock of ours held
 * and free through the ordinary paths. Returns pages freed. */
static unsigned long
run_shrinkers(int node, unsigned long nr, struct lr_pagealloc_stats *st)
{
	struct shrinker list[MAX_SHRINKERS];
	unsigned n = 0;
	unsigned long freed = 0;

	if (in_shrinker)
		return 0;
	pthread_mutex_lock(&lr_pa_state_.shrink_lock);
	for (int i = 0; i < MAX_SHRINKERS; i++)
		if (lr_pa_state_.shrinkers[i].used)
			list[n++] = lr_pa_state_.shrinkers[i];
	pthread_mutex_unlock(&lr_pa_state_.shrink_lock);
	if (n == 0)
		return 0;
	pa_stat_add(st, &st->shrink, 1);
	in_shrinker = true;
	for (unsigned i = 0; i < n && freed < nr; i++)
		freed += list[i].scan(list[i].arg, node, nr - freed);
	in_shrinker = false;
	return freed;
}

/* ---------------------------------------------------------- slow paths */

int
lr_pa_local_node_slow_(void)
{
	unsigned lcore = lr_lcore_id();
	int node;

	if (lcore < LR_MAX_LCORE) {
		struct lr_pa_lcore *pc = &lr_pa_lcores_[lcore];

		lr_pa_pcp_init_lcore_(pc);
		return pc->local_node;
	}
	node = lr_socket_id();
	if (node < 0 || node >= LR_MAX_NUMA_NODES)
		node = 0;
	return lr_pa_state_.zonelist_len[node] ? lr_pa_state_.zonelist[node][0]
					       : node;
}

/* Zone path: n blocks under one lock round trip. */
static unsigned
zone_take(struct zone *z, unsigned order, unsigned mt, bool reserve, unsigned n,
	  struct lr_page **out, int mark, struct lr_pagealloc_stats *st)
{
	unsigned got = 0;

	lr_pa_lock_(&z->lock);
	while (got < n && lr_pa_wmark_ok_(z, 1UL << order, mark, reserve)) {
		struct lr_page *p = lr_pa_rmqueue_(z, order, mt, reserve, st);

		if (p == NULL)
			break;
		if (lr_unlikely(((uint32_t)p->st.s.refcount |
				 (uintptr_t)p->owner) != 0 ||
				LR_PAGEALLOC_DEBUG) &&
		    !lr_pa_check_alloc_(z, p, order, false))
			continue;
		p->st.word =
		    lr_pa_mkstate(LR_PG_ALLOC, 0, order, (unsigned)z->node);
		out[got++] = p;
	}
	lr_pa_unlock_(&z->lock);
	return got;
}

static __lr_cold bool
bad_args(const char *who, int node, unsigned order, unsigned flags)
{
	if (order >= MAX_ORDER)
		LR_LOG(ERR, PAGEALLOC, "%s: order %u above the maximum %d\n",
		       who, order, MAX_ORDER - 1);
	else if (flags & ~LR_ALLOC_FLAGS_ALL)
		LR_LOG(ERR, PAGEALLOC, "%s: unknown flags %#x\n", who,
		       flags & ~LR_ALLOC_FLAGS_ALL);
	else
		LR_LOG(ERR, PAGEALLOC, "%s: node %d does not exist\n", who,
		       node);
	lr_errno = EINVAL;
	return false;
}

static inline bool
check_args(const char *who, int node, unsigned order, unsigned flags)
{
	if (lr_unlikely(order >= MAX_ORDER ||
			(unsigned)(node + 1) > LR_MAX_NUMA_NODES ||
			(flags & ~LR_ALLOC_FLAGS_ALL) != 0))
		return bad_args(who, node, order, flags);
	return pa_ensure_init() == 0;
}

unsigned
lr_pa_alloc_blocks_(int node, unsigned order, unsigned flags, unsigned n,
		    struct lr_page **out)
{
	unsigned lcore = lr_lcore_id();
	struct lr_pa_lcore *pc =
	    lcore < LR_MAX_LCORE ? &lr_pa_lcores_[lcore] : NULL;
	struct lr_pagealloc_stats *st =
	    pc ? &pc->stats : &lr_pa_state_.shared_stats;
	unsigned mt = (flags & LR_ALLOC_PINNED) ? LR_MT_PINNED : LR_MT_MOVABLE;
	bool reserve = (flags & LR_ALLOC_RESERVE) != 0;
	bool use_pcp = pc != NULL && order < LR_PCP_ORDERS && !reserve;
	int nid = node == LR_SOCKET_ID_ANY ? pa_local_node() : node;
	const uint8_t *zl = lr_pa_state_.zonelist[nid];
	unsigned nzl = lr_pa_state_.zonelist_len[nid], got = 0;

	if (flags & LR_ALLOC_THISNODE)
		nzl = (nzl > 0 && zl[0] == nid) ? 1 : 0;
	if (pc != NULL)
		pa_pcp_size_own(pc);
	for (int pass = 0; pass < 2 && got < n; pass++) {
		int mark = pass == 0 ? WMARK_LOW : WMARK_MIN;

		if (pass == 1 && nzl > 0) {
			/* Ask for what is missing plus enough to bring the
			 * nearest zone back to its high watermark. */
			const struct zone *z0 = &lr_pa_state_.zones[zl[0]];
			unsigned long nr = (unsigned long)(n - got) << order;

			/* Without the lock: a hint (relaxed load). */
			unsigned long fr = zone_free(z0);

			if (fr < z0->wmark[WMARK_HIGH])
				nr += z0->wmark[WMARK_HIGH] - fr;
			run_shrinkers(nid, nr, st);
		}
		for (unsigned i = 0; i < nzl && got < n; i++) {
			struct zone *z = &lr_pa_state_.zones[zl[i]];

			if (use_pcp)
				got += lr_pa_pcp_take_(
				    z, pc, mt, order, n - got, out + got, mark);
			else
				got += zone_take(z, order, mt, reserve, n - got,
						 out + got, mark, st);
		}
	}
	for (unsigned i = 0; i < got; i++)
		lr_pa_prep_alloc_(out[i], order, flags);
	pa_stat_add(st, &st->alloc[order], got);
	if (got == 0) {
		pa_stat_add(st, &st->fail, 1);
		lr_errno = ENOMEM;
	}
	return got;
}

struct lr_page *
lr_alloc_pages_slow_(int node, unsigned order, unsigned flags)
{
	struct lr_page *p;

	if (!check_args("lr_alloc_pages", node, order, flags))
		return NULL;
	/* The common zone-path case inline: one block, no zeroing or
	 * reserve, the nearest zone above its low watermark. */
	if (!LR_PAGEALLOC_DEBUG &&
	    (flags & (LR_ALLOC_ZERO | LR_ALLOC_RESERVE)) == 0 &&
	    (order >= LR_PCP_ORDERS || lr_lcore_id() >= LR_MAX_LCORE)) {
		int nid = node == LR_SOCKET_ID_ANY ? pa_local_node() : node;
		unsigned zid = lr_pa_state_.zonelist[nid][0];
		struct lr_pagealloc_stats *st = pa_stats();

		if (lr_pa_state_.zonelist_len[nid] > 0 &&
		    ((flags & LR_ALLOC_THISNODE) == 0 ||
		     zid == (unsigned)nid) &&
		    zone_take(&lr_pa_state_.zones[zid], order,
			      (flags & LR_ALLOC_PINNED) ? LR_MT_PINNED
							: LR_MT_MOVABLE,
			      false, 1, &p, WMARK_LOW, st) == 1) {
			pa_stat_add(st, &st->alloc[order], 1);
			return p;
		}
	}
	return lr_pa_alloc_blocks_(node, order, flags, 1, &p) ? p : NULL;
}

unsigned
lr_alloc_pages_bulk(int node, unsigned order, unsigned flags, unsigned n,
		    struct lr_page **pages)
{
	unsigned lcore = lr_lcore_id(), got = 0;

	if (lr_unlikely(n == 0 || pages == NULL)) {
		LR_LOG(ERR, PAGEALLOC, "lr_alloc_pages_bulk: %s\n",
		       n == 0 ? "zero-sized bulk request (n = 0)"
			      : "NULL array");
		lr_errno = EINVAL;
		return 0;
	}
	if (!LR_PAGEALLOC_DEBUG && lcore < LR_MAX_LCORE &&
	    order < LR_PCP_ORDERS &&
	    (flags & ~(LR_ALLOC_THISNODE | LR_ALLOC_PINNED)) == 0) {
		/* As the single fast path, one list pop per block. */
		struct lr_pa_lcore *pc = &lr_pa_lcores_[lcore];
		unsigned nid = node == LR_SOCKET_ID_ANY
				   ? (unsigned)pc->local_node
				   : (unsigned)node;
		unsigned mt =
		    (flags & LR_ALLOC_PINNED) ? LR_MT_PINNED : LR_MT_MOVABLE;

		if (nid < LR_MAX_NUMA_NODES) {
			struct lr_pa_pcp_list *l = &pc->list[nid][mt][order];
			struct lr_page *p = l->head;

			while (got < n && p != NULL) {
				lr_pa_flags_store(p, LR_PG_ALLOC);
				pages[got++] = p;
				p = p->next;
			}
			l->head = p;
			l->count -= got;
			lr_counter_add(&pc->stats.alloc[order], got);
			if (got == n)
				return n;
		}
	}
	if (!check_args("lr_alloc_pages_bulk", node, order, flags))
		return got;
	got += lr_pa_alloc_blocks_(node, order, flags, n - got, pages + got);
	if (got > 0)
		lr_errno = 0;
	return got;
}

/* Give back a block that passed its checks. */
void
lr_pa_free_block_(struct lr_page *page, unsigned order)
{
	unsigned lcore = lr_lcore_id();
	struct lr_pagealloc_stats *st;

	if (LR_PAGEALLOC_DEBUG)
		lr_pa_poison_(page, order);
	unsigned mt = pb_mt(page);

	if (lcore < LR_MAX_LCORE && order < LR_PCP_ORDERS &&
	    mt < LR_PCP_TYPES) {
		struct lr_pa_lcore *pc = &lr_pa_lcores_[lcore];
		unsigned node = page->st.s.node;
		struct lr_pa_pcp_list *l = &pc->list[node][mt][order];

		pa_pcp_size_own(pc);
		lr_pa_state_store(page,
				  lr_pa_mkstate(LR_PG_PCP, 0, order, node));
		page->next = l->head;
		l->head = page;
		lr_counter_add(&pc->stats.free[order], 1);
		if (++l->count > l->high)
			lr_pa_pcp_drain_(lcore, node, mt, order);
		return;
	}
	struct zone *z = page_zone(page);

	lr_pa_lock_(&z->lock);
	lr_pa_free_one_(z, page, order);
	lr_pa_unlock_(&z->lock);
	st = pa_stats();
	pa_stat_add(st, &st->free[order], 1);
}

void
lr_free_pages_slow_(struct lr_page *page, unsigned order)
{
	/* The inline path's check, for the cases it does not take. */
	if (!LR_PAGEALLOC_DEBUG && lr_likely(desc_in_range(page)) &&
	    lr_likely(order < MAX_ORDER) &&
	    lr_likely((((page->st.word & ~NODE_MASK_STATE) ^
			lr_pa_mkstate(LR_PG_ALLOC, 0, order, 0)) |
		       (uintptr_t)page->owner) == 0)) {
		lr_pa_free_block_(page, order);
		return;
	}
	if (lr_pa_check_free_(page, order, "lr_free_pages"))
		lr_pa_free_block_(page, order);
}

/* Store a list kept in registers back; non-zero if it is above high. */
static __lr_always_inline unsigned
list_writeback(struct lr_pa_pcp_list *l, struct lr_page *head, uint32_t count)
{
	l->head = head;
	l->count = count;
	return count > l->high;
}

/* Drain each of lcore's lists of this order that is above its high mark. */
static __lr_cold void
drain_above_high(struct lr_pa_lcore *pc, unsigned lcore, unsigned order)
{
	for (int nd = 0; nd < LR_MAX_NUMA_NODES; nd++) {
		for (unsigned t = 0; t < LR_PCP_TYPES; t++) {
			struct lr_pa_pcp_list *l = &pc->list[nd][t][order];

			while (l->count > l->high)
				lr_pa_pcp_drain_(lcore, (unsigned)nd, t, order);
		}
	}
}

void
lr_free_pages_bulk(struct lr_page **pages, unsigned n, unsigned order)
{
	if (lr_unlikely(n == 0 || pages == NULL)) {
		LR_LOG(ERR, PAGEALLOC, "lr_free_pages_bulk: %s\n",
		       n == 0 ? "zero-sized bulk free (n = 0)" : "NULL array");
		return;
	}
	unsigned lcore = lr_lcore_id();

	if (LR_PAGEALLOC_DEBUG || lcore >= LR_MAX_LCORE ||
	    order >= LR_PCP_ORDERS) {
		for (unsigned i = 0; i < n; i++)
			lr_free_pages(pages[i], order);
		return;
	}
	/* The inline free path with its loads hoisted: per block a range
	 * check, the one-branch state check, the pageblock type and a
	 * push; lists above high drain once at the end. */
	struct lr_pa_lcore *pc = &lr_pa_lcores_[lcore];
	const uintptr_t base = lr_pa_desc_base_, bytes = lr_pa_desc_bytes_;
	const uint8_t *pbmt = lr_pa_pb_mt_;
	const uint64_t want = lr_pa_mkstate(LR_PG_ALLOC, 0, order, 0);
	const uint64_t pcp = lr_pa_mkstate(LR_PG_PCP, 0, order, 0);
	unsigned freed = 0, over = 0, cur = UINT32_MAX;
	struct lr_pa_pcp_list *l = NULL;
	struct lr_page *head = NULL;
	uint32_t count = 0;

	/* The list of the current node and type lives in registers; it is
	 * written back when they change and at the end. */
	for (unsigned i = 0; i < n; i++) {
		struct lr_page *page = pages[i];
		uintptr_t off = (uintptr_t)page - base;

		if (lr_likely(off < bytes &&
			      (off & (sizeof(*page) - 1)) == 0)) {
			uint64_t st = page->st.word;
			unsigned mt = lr_pa_pb_mt_load(pbmt, off);

			if (lr_likely((((st & ~NODE_MASK_STATE) ^ want) |
				       (uintptr_t)page->owner) == 0 &&
				      mt < LR_PCP_TYPES)) {
				unsigned node = page->st.s.node;
				unsigned key = node * LR_PCP_TYPES + mt;

				if (lr_unlikely(key != cur)) {
					if (l != NULL)
						over |= list_writeback(l, head,
								       count);
					cur = key;
					l = &pc->list[node][mt][order];
					head = l->head;
					count = l->count;
				}
				lr_pa_state_store(page, st ^ want ^ pcp);
				page->next = head;
				head = page;
				count++;
				freed++;
				continue;
			}
		}
		/* The slow path may touch this list: write it back. */
		if (l != NULL) {
			over |= list_writeback(l, head, count);
			l = NULL;
			cur = UINT32_MAX;
		}
		lr_free_pages_slow_(page, order);
	}
	if (l != NULL)
		over |= list_writeback(l, head, count);
	lr_counter_add(&pc->stats.free[order], freed);
	if (lr_unlikely(over))
		drain_above_high(pc, lcore, order);
}
