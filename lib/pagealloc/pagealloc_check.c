/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sanity checks of blocks entering and leaving the allocator, the detailed
 * diagnosis that runs only when the one-branch check failed, quarantine,
 * poisoning (debug build), lr_pagealloc_validate(), statistics and dump.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "pagealloc_private.h"

static const char *const mt_names[LR_MT_TYPES] = {
    [LR_MT_MOVABLE] = "movable",
    [LR_MT_PINNED] = "pinned",
    [LR_MT_RESERVE] = "reserve",
};

static const char *
state_name(unsigned flags)
{
	switch (flags) {
	case LR_PG_ALLOC:
		return "allocated";
	case LR_PG_BUDDY:
		return "free (zone list)";
	case LR_PG_PCP:
		return "free (lcore list)";
	case LR_PG_BAD:
		return "quarantined";
	case 0:
		return "tail";
	default:
		return "corrupt";
	}
}

/* Take a block out of circulation for good. Caller holds the zone lock. */
void
lr_pa_quarantine_(struct zone *z, struct lr_page *page, unsigned order)
{
	struct lr_pagealloc_stats *st = pa_stats();

	page->st.word = lr_pa_mkstate(LR_PG_BAD, 0, order, (unsigned)z->node);
	z->bad_pages += 1UL << order;
	pa_stat_add(st, &st->bad, 1);
	LR_LOG(ERR, PAGEALLOC,
	       "page %p (addr %p): quarantined with its block of order %u; it "
	       "will not be reused\n",
	       (void *)page, page->addr, order);
}

static void
quarantine_locked(struct lr_page *page, unsigned order)
{
	struct zone *z = page_zone(page);

	lr_pa_lock_(&z->lock);
	lr_pa_quarantine_(z, page, order);
	lr_pa_unlock_(&z->lock);
}

/* First tail page of the block at page whose descriptor is not a clean
 * tail, or NULL. */
static struct lr_page *
bad_tail(struct lr_page *page, unsigned order)
{
	uint64_t tail = lr_pa_mkstate(0, 0, 0, page->st.s.node);

	for (size_t i = 1; i < 1UL << order; i++) {
		struct lr_page *q = page + i;

		if (((q->st.word ^ tail) | (uintptr_t)q->owner) != 0)
			return q;
	}
	return NULL;
}

static void
report_tail(const char *who, struct lr_page *page, unsigned order,
	    const struct lr_page *q)
{
	LR_LOG(ERR, PAGEALLOC,
	       "%s: page %p (addr %p): block of order %u: page %p inside it is "
	       "corrupt (state %s, order %u, refcount %d, owner %p)\n",
	       who, (void *)page, page->addr, order, (const void *)q,
	       state_name(q->st.s.flags), q->st.s.order, q->st.s.refcount,
	       q->owner);
}

/* The block that holds a page which is not a head, or NULL. */
static struct lr_page *
find_head(struct lr_page *page, unsigned *order)
{
	size_t idx = page_index(page);

	for (unsigned k = 1; k < MAX_ORDER; k++) {
		size_t h = idx & ~((1UL << k) - 1);
		struct lr_page *q =
		    (struct lr_page *)(lr_pa_desc_base_ + (h << DESC_SHIFT));

		if (q->st.s.flags != 0 && q->st.s.order >= k &&
		    q->addr != NULL) {
			*order = q->st.s.order;
			return q;
		}
	}
	return NULL;
}

/* The one-branch check failed: find out why, say so, and quarantine the
 * block when it is in use and cannot be trusted any more. */
static __lr_cold void
diagnose_free(const char *who, struct lr_page *page, unsigned order)
{
	unsigned flags = page->st.s.flags, real = page->st.s.order;

	if (page->addr == NULL) {
		LR_LOG(ERR, PAGEALLOC,
		       "%s: page %p: not a page of this allocator (a "
		       "descriptor of no memory)\n",
		       who, (void *)page);
		return;
	}
	switch (flags) {
	case LR_PG_BUDDY:
	case LR_PG_PCP:
		LR_LOG(ERR, PAGEALLOC,
		       "%s: page %p (addr %p): double free: its block of order "
		       "%u is already %s\n",
		       who, (void *)page, page->addr, real, state_name(flags));
		return;
	case LR_PG_BAD:
		LR_LOG(ERR, PAGEALLOC,
		       "%s: page %p (addr %p): freeing a quarantined page (it "
		       "failed a check before)\n",
		       who, (void *)page, page->addr);
		return;
	case 0: {
		unsigned ho = 0;
		struct lr_page *h = find_head(page, &ho);

		if (h != NULL)
			LR_LOG(
			    ERR, PAGEALLOC,
			    "%s: page %p (addr %p): not the head of a block: "
			    "it is page %zu of the %s block of order %u at "
			    "%p%s\n",
			    who, (void *)page, page->addr, (size_t)(page - h),
			    state_name(h->st.s.flags), ho, h->addr,
			    h->st.s.flags == LR_PG_ALLOC ? ""
							 : " (double free?)");
		else
			LR_LOG(ERR, PAGEALLOC,
			       "%s: page %p (addr %p): not the head of any "
			       "block\n",
			       who, (void *)page, page->addr);
		return;
	}
	case LR_PG_ALLOC:
		break;
	default:
		LR_LOG(
		    ERR, PAGEALLOC,
		    "%s: page %p (addr %p): corrupt descriptor (flags %#x)\n",
		    who, (void *)page, page->addr, flags);
		return;
	}
	if (page->owner != NULL) {
		LR_LOG(ERR, PAGEALLOC,
		       "%s: page %p (addr %p): page owned by pool %s: refusing "
		       "to free it (clear its owner first)\n",
		       who, (void *)page, page->addr,
		       page->owner_name ? page->owner_name : "(unnamed)");
		return;
	}
	if (real != order) {
		LR_LOG(ERR, PAGEALLOC,
		       "%s: page %p (addr %p): wrong order: freed with order "
		       "%u but allocated with order %u\n",
		       who, (void *)page, page->addr, order, real);
	} else if (page->st.s.refcount != 0) {
		LR_LOG(ERR, PAGEALLOC,
		       "%s: page %p (addr %p): nonzero refcount %d: the block "
		       "is still in use\n",
		       who, (void *)page, page->addr, page->st.s.refcount);
	} else {
		LR_LOG(ERR, PAGEALLOC,
		       "%s: page %p (addr %p): corrupt descriptor (type byte "
		       "%u)\n",
		       who, (void *)page, page->addr, page->st.s.mt);
	}
	quarantine_locked(page, real);
}

bool
lr_pa_check_free_(struct lr_page *page, unsigned order, const char *who)
{
	struct lr_pagealloc_stats *st;

	if (page == NULL) {
		LR_LOG(ERR, PAGEALLOC,
		       "%s: NULL page (not a page of this allocator)\n", who);
		goto bad;
	}
	if (!desc_in_range(page)) {
		LR_LOG(ERR, PAGEALLOC,
		       "%s: page %p: not a page descriptor of this allocator "
		       "(foreign address)\n",
		       who, (void *)page);
		goto bad;
	}
	if (order >= MAX_ORDER) {
		LR_LOG(ERR, PAGEALLOC,
		       "%s: page %p (addr %p): order %u above the maximum %d\n",
		       who, (void *)page, page->addr, order, MAX_ORDER - 1);
		goto bad;
	}
	uint64_t want = lr_pa_mkstate(LR_PG_ALLOC, 0, order, 0);

	if ((((page->st.word & ~NODE_MASK_STATE) ^ want) |
	     (uintptr_t)page->owner) == 0) {
		struct lr_page *q;

		if (!LR_PAGEALLOC_DEBUG)
			return true;
		q = bad_tail(page, order);
		if (q == NULL)
			return true;
		report_tail(who, page, order, q);
		quarantine_locked(page, order);
		goto bad;
	}
	diagnose_free(who, page, order);
bad:
	st = pa_stats();
	pa_stat_add(st, &st->bad, 1);
	lr_errno = LR_E_BADPAGE;
	return false;
}

/* First offset in [p, p + len) not holding the poison byte, or len. */
static size_t
poison_mismatch(const uint8_t *p, size_t len)
{
	const uint64_t pat = 0x0101010101010101ULL * POISON_BYTE;

	for (size_t i = 0; i < len; i += 8) {
		uint64_t v;

		memcpy(&v, p + i, 8);
		if (v != pat) {
			for (size_t j = i; j < i + 8; j++)
				if (p[j] != POISON_BYTE)
					return j;
		}
	}
	return len;
}

bool
lr_pa_check_alloc_(struct zone *z, struct lr_page *page, unsigned order,
		   bool strict_head)
{
	uint64_t tail = lr_pa_mkstate(0, 0, 0, (unsigned)z->node);
	uint64_t head =
	    strict_head ? page->st.word ^ tail : (uint32_t)page->st.s.refcount;
	struct lr_page *q;

	if ((head | (uintptr_t)page->owner) != 0) {
		LR_LOG(ERR, PAGEALLOC,
		       "page %p (addr %p): corrupted while free (state %s, "
		       "refcount %d, owner %p)\n",
		       (void *)page, page->addr,
		       strict_head ? state_name(page->st.s.flags) : "head",
		       page->st.s.refcount, page->owner);
		goto quarantine;
	}
	q = bad_tail(page, order);
	if (q != NULL) {
		report_tail("allocation", page, order, q);
		goto quarantine;
	}
	if (LR_PAGEALLOC_DEBUG) {
		for (size_t i = 0; i < 1UL << order; i++) {
			struct lr_page *pg = page + i;
			size_t off;

			if (!pg->dbg)
				continue;
			off = poison_mismatch(pg->addr, LR_PAGE_SIZE);
			if (off < LR_PAGE_SIZE) {
				LR_LOG(ERR, PAGEALLOC,
				       "page %p (addr %p): use after free: "
				       "poison overwritten at offset %zu (byte "
				       "%#x, expected %#x)\n",
				       (void *)pg, pg->addr, off,
				       ((uint8_t *)pg->addr)[off], POISON_BYTE);
				goto quarantine;
			}
		}
	}
	return true;
quarantine:
	lr_pa_quarantine_(z, page, order);
	return false;
}

void
lr_pa_poison_(struct lr_page *page, unsigned order)
{
	for (size_t i = 0; i < 1UL << order; i++) {
		memset(page[i].addr, POISON_BYTE, LR_PAGE_SIZE);
		page[i].dbg = 1;
	}
}

void
lr_pa_prep_alloc_(struct lr_page *page, unsigned order, unsigned flags)
{
	if (LR_PAGEALLOC_DEBUG)
		for (size_t i = 0; i < 1UL << order; i++)
			page[i].dbg = 0;
	if (flags & LR_ALLOC_ZERO)
		memset(page->addr, 0, LR_PAGE_SIZE << order);
}

void
lr_page_set_owner(struct lr_page *page, const void *owner,
		  const char *owner_name)
{
	if (page == NULL || !desc_in_range(page) ||
	    page->st.s.flags != LR_PG_ALLOC) {
		LR_LOG(ERR, PAGEALLOC,
		       "set owner '%s': page %p is not an allocated block\n",
		       owner_name ? owner_name : "(null)", (void *)page);
		return;
	}
	page->owner = owner;
	page->owner_name = owner ? owner_name : NULL;
}

/* ------------------------------------------------------------ validate */

/* What one validate pass has found so far. */
struct vctx {
	uint8_t *seen;	      /* one bit per descriptor: on a list */
	unsigned long errors; /* problems found (the first 20 logged) */
	int n;		      /* the zone being checked */
	/* Pages and block heads of zone n, by where they were found. */
	unsigned long buddy, pcp, alloc, bad;
	unsigned long buddy_heads, list_heads, pcp_heads, pcp_listed;
};

#define VFAIL(v, ...)                                                          \
	do {                                                                   \
		if ((v)->errors++ < 20)                                        \
			LR_LOG(ERR, PAGEALLOC, "validate: " __VA_ARGS__);      \
	} while (0)

static inline bool
test_and_set(uint8_t *bits, size_t i)
{
	bool was = bits[i >> 3] & (1u << (i & 7));

	bits[i >> 3] |= (uint8_t)(1u << (i & 7));
	return was;
}

static inline bool
test_bit(const uint8_t *bits, size_t i)
{
	return bits[i >> 3] & (1u << (i & 7));
}

/* One block p on the zone's order-o list of type mt; false ends the walk
 * of that list (p is no descriptor, or the list crosses another). */
static bool
check_free_block(struct vctx *v, struct lr_page *p, struct lr_page *prev,
		 unsigned o, unsigned mt)
{
	int n = v->n;
	uint64_t want = lr_pa_mkstate(LR_PG_BUDDY, mt, o, (unsigned)n);
	size_t idx;

	if (!desc_in_range(p)) {
		VFAIL(v, "zone %d order %u %s list: %p is not a descriptor\n",
		      n, o, mt_names[mt], (void *)p);
		return false;
	}
	idx = page_index(p);
	if (test_and_set(v->seen, idx)) {
		VFAIL(v,
		      "zone %d: block %p (addr %p) is on two lists (or a "
		      "list loops)\n",
		      n, (void *)p, p->addr);
		return false;
	}
	if (p->st.word != want || p->owner)
		VFAIL(v,
		      "zone %d order %u %s list: block %p (addr %p) has "
		      "state %s order %u node %u type %u\n",
		      n, o, mt_names[mt], (void *)p, p->addr,
		      state_name(p->st.s.flags), p->st.s.order, p->st.s.node,
		      p->st.s.mt);
	if (p->prev != prev)
		VFAIL(v, "zone %d order %u: block %p has a broken back link\n",
		      n, o, (void *)p);
	if (idx & ((1UL << o) - 1))
		VFAIL(v,
		      "zone %d: free block %p (addr %p) of order %u is not "
		      "aligned to its order\n",
		      n, (void *)p, p->addr, o);
	if (pb_mt(p) != mt)
		VFAIL(v,
		      "zone %d: free block %p (addr %p) is on the %s list but "
		      "its pageblock is %s\n",
		      n, (void *)p, p->addr, mt_names[mt],
		      mt_names[pb_mt(p) % LR_MT_TYPES]);
	if (o < MAX_ORDER - 1 && buddy_of(p, o)->st.word == want)
		VFAIL(v,
		      "zone %d: free block %p (addr %p) of order %u and its "
		      "buddy are both free: they should have merged\n",
		      n, (void *)p, p->addr, o);
	return true;
}

/* The zone's free lists against their counters and free_pages. */
static void
check_free_lists(struct vctx *v, struct zone *z)
{
	for (unsigned o = 0; o < MAX_ORDER; o++) {
		for (unsigned mt = 0; mt < LR_MT_TYPES; mt++) {
			unsigned long cnt = 0;
			struct lr_page *prev = NULL;

			for (struct lr_page *p = z->area[o].head[mt]; p != NULL;
			     prev = p, p = p->next) {
				if (!check_free_block(v, p, prev, o, mt))
					break;
				cnt++;
			}
			if (cnt != z->area[o].nr[mt])
				VFAIL(v,
				      "zone %d order %u %s: %lu blocks listed, "
				      "counter says %lu\n",
				      v->n, o, mt_names[mt], cnt,
				      z->area[o].nr[mt]);
			v->buddy += cnt << o;
			v->list_heads += cnt;
		}
	}
	if (v->buddy != zone_free(z))
		VFAIL(v,
		      "zone %d: %lu pages on free lists, free counter says "
		      "%lu\n",
		      v->n, v->buddy, zone_free(z));
}

/* One lcore list of order o for zone n against its count. */
static void
check_pcp_list(struct vctx *v, unsigned l, const struct lr_pa_pcp_list *pl,
	       unsigned o)
{
	int n = v->n;
	uint64_t want = lr_pa_mkstate(LR_PG_PCP, 0, o, (unsigned)n);
	unsigned long cnt = 0;

	for (struct lr_page *p = pl->head; p != NULL; p = p->next) {
		if (!desc_in_range(p)) {
			VFAIL(v,
			      "lcore %u zone %d order %u list: %p is not a "
			      "descriptor\n",
			      l, n, o, (void *)p);
			break;
		}
		if (test_and_set(v->seen, page_index(p))) {
			VFAIL(v,
			      "lcore %u: block %p (addr %p) is on two lists "
			      "(or a list loops)\n",
			      l, (void *)p, p->addr);
			break;
		}
		if (p->st.word != want || p->owner)
			VFAIL(v,
			      "lcore %u zone %d order %u list: block %p (addr "
			      "%p) has state %s order %u\n",
			      l, n, o, (void *)p, p->addr,
			      state_name(p->st.s.flags), p->st.s.order);
		if (page_index(p) & ((1UL << o) - 1))
			VFAIL(v,
			      "lcore %u: block %p of order %u is not "
			      "aligned\n",
			      l, (void *)p, o);
		cnt++;
	}
	if (cnt != pl->count)
		VFAIL(v,
		      "lcore %u zone %d order %u: %lu blocks listed, count "
		      "says %u\n",
		      l, n, o, cnt, pl->count);
	v->pcp += cnt << o;
	v->pcp_listed += cnt;
}

/* The head p of a block of order o in zone n (already known to fit its
 * span and be aligned): its pages, and the counters of its state. */
static void
check_block(struct vctx *v, struct lr_page *p, unsigned o)
{
	int n = v->n;
	unsigned f = p->st.s.flags;
	size_t idx = page_index(p);

	if (p->st.s.node != n)
		VFAIL(v, "zone %d: page %p says node %u\n", n, (void *)p,
		      p->st.s.node);
	if (f != LR_PG_BAD) {
		struct lr_page *q = bad_tail(p, o);

		if (q != NULL)
			VFAIL(v,
			      "zone %d: block %p (addr %p) of order %u: page "
			      "%p inside it has state %s\n",
			      n, (void *)p, p->addr, o, (void *)q,
			      state_name(q->st.s.flags));
	}
	switch (f) {
	case LR_PG_BUDDY:
		v->buddy_heads++;
		if (!test_bit(v->seen, idx))
			VFAIL(v,
			      "zone %d: free block %p (addr %p) is on no "
			      "list\n",
			      n, (void *)p, p->addr);
		break;
	case LR_PG_PCP:
		v->pcp_heads++;
		if (!test_bit(v->seen, idx))
			VFAIL(v,
			      "zone %d: lcore-list block %p (addr %p) is on "
			      "no list\n",
			      n, (void *)p, p->addr);
		break;
	case LR_PG_ALLOC:
		v->alloc += 1UL << o;
		break;
	case LR_PG_BAD:
		v->bad += 1UL << o;
		break;
	default:
		VFAIL(v, "zone %d: page %p has flags %#x\n", n, (void *)p, f);
	}
}

/* Every page of span sp belongs to exactly one block. */
static void
check_span(struct vctx *v, struct span *sp)
{
	int n = v->n;

	for (size_t i = 0; i < sp->npages;) {
		struct lr_page *p = &sp->desc[i];
		unsigned o = p->st.s.order;

		if (p->st.s.flags == 0) {
			VFAIL(v,
			      "zone %d: page %p (addr %p) belongs to no "
			      "block\n",
			      n, (void *)p, p->addr);
			i++;
			continue;
		}
		if (o >= MAX_ORDER || i + (1UL << o) > sp->npages ||
		    (page_index(p) & ((1UL << o) - 1))) {
			VFAIL(v,
			      "zone %d: block %p (addr %p) of order %u is "
			      "misplaced\n",
			      n, (void *)p, p->addr, o);
			i++;
			continue;
		}
		check_block(v, p, o);
		i += 1UL << o;
	}
}

/* Zone n, under its lock: lists, lcore lists, pages, and the equation
 * free + lcore lists + allocated + quarantined = pages. */
static void
check_zone(struct vctx *v, struct zone *z)
{
	int n = v->n;

	memset(&v->buddy, 0, sizeof(*v) - offsetof(struct vctx, buddy));
	lr_pa_lock_(&z->lock);
	check_free_lists(v, z);
	/* Every lcore's lists for this zone (quiescent lcores). */
	for (unsigned l = 0; l < LR_MAX_LCORE; l++)
		for (unsigned t = 0; t < LR_PCP_TYPES; t++)
			for (unsigned o = 0; o < LR_PCP_ORDERS; o++)
				check_pcp_list(
				    v, l, &lr_pa_lcores_[l].list[n][t][o], o);
	for (unsigned s = 0; s < lr_pa_state_.nr_spans; s++)
		if (lr_pa_state_.spans[s].node == n)
			check_span(v, &lr_pa_state_.spans[s]);
	if (v->buddy_heads != v->list_heads || v->pcp_heads != v->pcp_listed)
		VFAIL(v,
		      "zone %d: %lu free heads and %lu listed; %lu lcore-list "
		      "heads and %lu listed\n",
		      n, v->buddy_heads, v->list_heads, v->pcp_heads,
		      v->pcp_listed);
	if (v->bad != z->bad_pages)
		VFAIL(v,
		      "zone %d: %lu quarantined pages found, counter says "
		      "%lu\n",
		      n, v->bad, z->bad_pages);
	if (v->buddy + v->pcp + v->alloc + v->bad != z->pages)
		VFAIL(v,
		      "zone %d: free %lu + lcore lists %lu + allocated %lu + "
		      "quarantined %lu = %lu, zone has %lu pages\n",
		      n, v->buddy, v->pcp, v->alloc, v->bad,
		      v->buddy + v->pcp + v->alloc + v->bad, z->pages);
	lr_pa_unlock_(&z->lock);
}

int
lr_pagealloc_validate(void)
{
	struct vctx v = {0};

	if (!atomic_load_explicit(&lr_pa_state_.ready, memory_order_acquire))
		return 0;
	v.seen = calloc(lr_pa_state_.nr_desc / 8 + 1, 1);
	if (v.seen == NULL)
		return -ENOMEM;
	for (v.n = 0; v.n < LR_MAX_NUMA_NODES; v.n++)
		if (lr_pa_state_.zones[v.n].present)
			check_zone(&v, &lr_pa_state_.zones[v.n]);
	free(v.seen);
	if (v.errors) {
		LR_LOG(ERR, PAGEALLOC, "validate: %lu problem%s found\n",
		       v.errors, v.errors > 1 ? "s" : "");
		return -EINVAL;
	}
	return 0;
}

/* ------------------------------------------------- statistics and dump */

static void
stats_add(struct lr_pagealloc_stats *s, const struct lr_pagealloc_stats *a)
{
	const uint64_t *src = (const uint64_t *)a;
	uint64_t *dst = (uint64_t *)s;

	for (size_t i = 0; i < sizeof(*s) / sizeof(uint64_t); i++)
		dst[i] += lr_counter_read(&src[i]);
}

void
lr_pagealloc_stats_get(struct lr_pagealloc_stats *s)
{
	memset(s, 0, sizeof(*s));
	for (unsigned l = 0; l < LR_MAX_LCORE; l++)
		stats_add(s, &lr_pa_lcores_[l].stats);
	stats_add(s, &lr_pa_state_.shared_stats);
}

int
lr_pagealloc_zone_info(int node, struct lr_pagealloc_zone_info *zi)
{
	if (pa_ensure_init() < 0)
		return -ENOMEM;
	if (node < 0 || node >= LR_MAX_NUMA_NODES ||
	    !lr_pa_state_.zones[node].present)
		return -ENODEV;
	struct zone *z = &lr_pa_state_.zones[node];

	memset(zi, 0, sizeof(*zi));
	zi->node = node;
	lr_pa_lock_(&z->lock);
	zi->pages = z->pages;
	zi->free = zone_free(z);
	zi->bad = z->bad_pages;
	zi->wmark_min = z->wmark[WMARK_MIN];
	zi->wmark_low = z->wmark[WMARK_LOW];
	zi->wmark_high = z->wmark[WMARK_HIGH];
	zi->reserve = z->reserve_pages;
	zi->batch = z->batch;
	zi->high = z->high;
	for (unsigned o = 0; o < MAX_ORDER; o++)
		for (unsigned mt = 0; mt < LR_MT_TYPES; mt++)
			zi->nr_free[o][mt] = z->area[o].nr[mt];
	lr_pa_unlock_(&z->lock);
	for (unsigned l = 0; l < LR_MAX_LCORE; l++)
		for (unsigned t = 0; t < LR_PCP_TYPES; t++)
			for (unsigned o = 0; o < LR_PCP_ORDERS; o++)
				zi->pcp +=
				    (unsigned long)__atomic_load_n(
					&lr_pa_lcores_[l].list[node][t][o].count,
					__ATOMIC_RELAXED)
				    << o;
	return 0;
}

/* Pageblocks of node n's zone by type (types read relaxed: they change
 * under the zone lock, and a snapshot is all a report needs). */
static void
count_pageblocks(int n, unsigned long pbs[LR_MT_TYPES])
{
	memset(pbs, 0, sizeof(pbs[0]) * LR_MT_TYPES);
	for (unsigned s = 0; s < lr_pa_state_.nr_spans; s++) {
		const struct span *sp = &lr_pa_state_.spans[s];
		size_t pb0 = page_index(sp->desc) >> PB_ORDER;

		if (sp->node != n)
			continue;
		for (size_t i = 0; i < sp->npages / PB_PAGES; i++)
			pbs[__atomic_load_n(&lr_pa_pb_mt_[pb0 + i],
					    __ATOMIC_RELAXED) %
			    LR_MT_TYPES]++;
	}
}

/* The zone of node when the allocator is built and has it: 0, -EAGAIN
 * (not built: these readers never build it) or -ENODEV. */
static int
built_zone(int node)
{
	if (!atomic_load_explicit(&lr_pa_state_.ready, memory_order_acquire))
		return -EAGAIN;
	if (node < 0 || node >= LR_MAX_NUMA_NODES ||
	    !lr_pa_state_.zones[node].present)
		return -ENODEV;
	return 0;
}

int
lr_pagealloc_free_info(int node, struct lr_pagealloc_free_info *fi)
{
	int rc = built_zone(node);
	const struct zone *z;

	if (rc < 0)
		return rc;
	z = &lr_pa_state_.zones[node];
	memset(fi, 0, sizeof(*fi));
	fi->node = node;
	for (unsigned o = 0; o < MAX_ORDER; o++)
		for (unsigned mt = 0; mt < LR_MT_TYPES; mt++)
			fi->nr_free[o][mt] = __atomic_load_n(&z->area[o].nr[mt],
							     __ATOMIC_RELAXED);
	count_pageblocks(node, fi->pageblocks);
	return 0;
}

int
lr_pagealloc_pcp_info(unsigned lcore, int node,
		      struct lr_pagealloc_pcp_info *pi)
{
	int rc = built_zone(node);
	const struct lr_pa_lcore *pc;

	if (rc < 0)
		return rc;
	if (lcore >= LR_MAX_LCORE)
		return -EINVAL;
	pc = &lr_pa_lcores_[lcore];
	if (!__atomic_load_n(&pc->sized, __ATOMIC_ACQUIRE))
		return -ENOENT;
	memset(pi, 0, sizeof(*pi));
	pi->lcore = lcore;
	pi->node = node;
	pi->local_node = __atomic_load_n(&pc->local_node, __ATOMIC_RELAXED);
	for (unsigned o = 0; o < LR_PCP_ORDERS; o++) {
		const struct lr_pa_pcp_list *l0 = &pc->list[node][0][o];

		pi->high[o] = __atomic_load_n(&l0->high, __ATOMIC_RELAXED);
		pi->batch[o] = __atomic_load_n(&l0->batch, __ATOMIC_RELAXED);
		for (unsigned t = 0; t < LR_PCP_TYPES; t++) {
			unsigned long c = __atomic_load_n(
			    &pc->list[node][t][o].count, __ATOMIC_RELAXED);

			pi->count[t][o] = c;
			pi->pages += c << o;
		}
	}
	return 0;
}

void
lr_pagealloc_dump(FILE *f)
{
	struct lr_pagealloc_stats s;

	if (!atomic_load_explicit(&lr_pa_state_.ready, memory_order_acquire)) {
		fprintf(f, "page allocator: not built yet\n");
		return;
	}
	lr_pagealloc_stats_get(&s);
	fprintf(f,
		"page allocator: %u zone%s, %lu KB pages, pageblock %lu KB, "
		"max block %lu KB%s\n",
		lr_pa_state_.nr_zones, lr_pa_state_.nr_zones > 1 ? "s" : "",
		LR_PAGE_SIZE >> 10, (LR_PAGE_SIZE << PB_ORDER) >> 10,
		(LR_PAGE_SIZE << (MAX_ORDER - 1)) >> 10,
		LR_PAGEALLOC_DEBUG ? ", debug build" : "");
	fprintf(f, "  %-8s", "order");
	for (unsigned o = 0; o < MAX_ORDER; o++)
		fprintf(f, " %10u", o);
	fprintf(f, "\n  %-8s", "allocs");
	for (unsigned o = 0; o < MAX_ORDER; o++)
		fprintf(f, " %10" PRIu64, s.alloc[o]);
	fprintf(f, "\n  %-8s", "frees");
	for (unsigned o = 0; o < MAX_ORDER; o++)
		fprintf(f, " %10" PRIu64, s.free[o]);
	fprintf(f,
		"\n  refills %" PRIu64 ", drains %" PRIu64
		", fallbacks %" PRIu64 ", steals %" PRIu64 ", failures %" PRIu64
		", shrinks %" PRIu64 ", bad pages %" PRIu64 "\n",
		s.refill, s.drain, s.fallback, s.steal, s.fail, s.shrink,
		s.bad);
	for (int n = 0; n < LR_MAX_NUMA_NODES; n++) {
		struct lr_pagealloc_zone_info zi;
		unsigned long pbs[LR_MT_TYPES];

		if (!lr_pa_state_.zones[n].present ||
		    lr_pagealloc_zone_info(n, &zi) < 0)
			continue;
		count_pageblocks(n, pbs);
		fprintf(f,
			"  zone node %d: %lu pages, %lu free, %lu on lcore "
			"lists, %lu quarantined\n",
			n, zi.pages, zi.free, zi.pcp, zi.bad);
		fprintf(f,
			"    watermarks min %lu low %lu high %lu; lcore lists "
			"batch %u high %u\n",
			zi.wmark_min, zi.wmark_low, zi.wmark_high, zi.batch,
			zi.high);
		fprintf(f, "    %-8s", "free");
		for (unsigned o = 0; o < MAX_ORDER; o++) {
			unsigned long t = 0;

			for (unsigned mt = 0; mt < LR_MT_TYPES; mt++)
				t += zi.nr_free[o][mt];
			fprintf(f, " %6lu", t);
		}
		fprintf(f, "\n");
		for (unsigned mt = 0; mt < LR_MT_TYPES; mt++) {
			fprintf(f, "    %-8s", mt_names[mt]);
			for (unsigned o = 0; o < MAX_ORDER; o++)
				fprintf(f, " %6lu", zi.nr_free[o][mt]);
			fprintf(f, "   (%lu pageblocks)\n", pbs[mt]);
		}
	}
}
