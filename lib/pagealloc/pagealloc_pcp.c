/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-lcore page lists (the kernel's per-cpu pages): each lcore owns, per
 * zone and per migratetype with lists (movable, pinned), a LIFO list of
 * free blocks for orders 0..LR_PCP_ORDERS-1. As in the kernel, a list's
 * type is the type its blocks were taken for; a block freed goes to the
 * list of its pageblock's type, and a drain gives it to the free lists of
 * that type (a pageblock stolen meanwhile just changes where it goes). The
 * inline paths in lr_pagealloc.h pop and push without lock or atomic; this
 * file refills an empty list with `batch` blocks in one locked pass over
 * the zone (the kernel's rmqueue_bulk) and drains `batch` blocks of a list
 * above `high` in one locked pass (free_pcppages_bulk).
 *
 * Refill takes the largest block that fits the batch and splits it straight
 * onto the list, so a batch of 64 pages costs one free-list removal plus
 * 64 descriptor stores. The allocation-side check of the default build
 * runs here, once per page moved onto the list.
 */
#include <string.h>

#include "pagealloc_private.h"

static inline void
pcp_push(struct lr_pa_pcp_list *l, struct lr_page *p, unsigned order,
	 unsigned node)
{
	LR_ASSERT(order < LR_PCP_ORDERS && desc_in_range(p));
	LR_ASSERT((page_index(p) & ((1UL << order) - 1)) == 0);
	p->st.word = lr_pa_mkstate(LR_PG_PCP, 0, order, node);
	p->next = l->head;
	l->head = p;
	l->count++;
}

/* Move up to count blocks of one order and type from zone z onto list l
 * while the zone stays above mark; returns blocks moved. */
static unsigned
refill(struct zone *z, struct lr_pa_pcp_list *l, unsigned mt, unsigned order,
       unsigned count, int mark, struct lr_pagealloc_stats *st)
{
	unsigned node = (unsigned)z->node, got = 0;
	uint64_t tail = lr_pa_mkstate(0, 0, 0, node);
	unsigned long avail, fr;

	lr_pa_lock_(&z->lock);
	fr = zone_free(z);
	avail = fr > z->wmark[mark] ? fr - z->wmark[mark] : 0;
	if ((avail >> order) < count)
		count = (unsigned)(avail >> order);
	while (got < count) {
		unsigned want = count - got;
		unsigned t = order + lr_log2_u64(want);
		struct lr_page *b;

		if (t >= MAX_ORDER)
			t = MAX_ORDER - 1;
		for (;; t--) {
			b = lr_pa_rmqueue_(z, t, mt, false, st);
			if (b != NULL || t == order)
				break;
		}
		if (b == NULL)
			break;
		/* Split the 2^t block into 2^(t-order) blocks, pushed from
		 * the top so the lowest address pops first. Every block
		 * but the first was a tail: its whole state word must be
		 * the tail state; the first keeps its old head state, only
		 * its refcount and owner must be clear. */
		unsigned nb = 1u << (t - order);

		for (unsigned i = nb; i-- > 0;) {
			struct lr_page *q = b + ((size_t)i << order);
			uint64_t bad = (i ? q->st.word ^ tail
					  : (uint32_t)q->st.s.refcount) |
				       (uintptr_t)q->owner;

			if (lr_unlikely(bad != 0 || LR_PAGEALLOC_DEBUG) &&
			    !lr_pa_check_alloc_(z, q, order, i != 0))
				continue;
			pcp_push(l, q, order, node);
			got++;
		}
	}
	lr_pa_unlock_(&z->lock);
	pa_stat_add(st, &st->refill, 1);
	return got;
}

unsigned
lr_pa_pcp_take_(struct zone *z, struct lr_pa_lcore *pc, unsigned mt,
		unsigned order, unsigned n, struct lr_page **out, int mark)
{
	struct lr_pa_pcp_list *l = &pc->list[z->node][mt][order];
	unsigned got = 0;

	for (;;) {
		while (got < n && l->head != NULL) {
			struct lr_page *p = l->head;

			l->head = p->next;
			l->count--;
			if (LR_PAGEALLOC_DEBUG) {
				/* Every page on every allocation. */
				bool ok;

				lr_pa_lock_(&z->lock);
				ok = lr_pa_check_alloc_(z, p, order, false);
				lr_pa_unlock_(&z->lock);
				if (!ok)
					continue;
			}
			lr_pa_flags_store(p, LR_PG_ALLOC);
			out[got++] = p;
		}
		if (got == n)
			break;
		unsigned want = n - got;

		if (want < l->batch)
			want = l->batch;
		if (refill(z, l, mt, order, want, mark, &pc->stats) == 0)
			break;
	}
	return got;
}

/* Give count blocks of list l back to zone z, one locked pass per 64.
 *
 * The blocks are unlinked first, outside the lock, and merged among
 * themselves there: they are this lcore's, in no zone list, so two that are
 * buddies become one block of the next order without a free-list removal.
 * A burst freed in address order (either way) sits on the list as a run,
 * so the run of up to 64 blocks leaves as a few large blocks: the zone pass
 * then does a few merges with the zone's free blocks instead of one list
 * insertion and one removal per block. Merging stops below the pageblock
 * order (above it, buddies may differ in type; the zone pass decides).
 * The buddies of what is left are prefetched before the lock is taken. */
void
lr_pa_pcp_drain_list_(struct zone *z, struct lr_pa_pcp_list *l, unsigned order,
		      unsigned count)
{
	const uint64_t tail = lr_pa_mkstate(0, 0, 0, (unsigned)z->node);

	LR_ASSERT(order < LR_PCP_ORDERS && count <= l->count);
	while (count > 0 && l->head != NULL) {
		struct lr_page *v[64], *p = l->head;
		uint8_t vo[64];
		unsigned n = 0, taken = 0;

		/* A stack of blocks: a new block that is the buddy of the
		 * top (same order) merges with it, and so on down. */
		while (taken < LR_DIM(v) && taken < count && p != NULL) {
			struct lr_page *b = p;
			unsigned o = order;

			p = p->next;
			taken++;
			while (n > 0 && vo[n - 1] == o && o < PB_ORDER &&
			       buddy_of(b, o) == v[n - 1]) {
				struct lr_page *hi =
				    b > v[n - 1] ? b : v[n - 1];

				/* Relaxed: a zone merge may read it. */
				lr_pa_state_store(hi, tail);
				b = b < v[n - 1] ? b : v[n - 1];
				n--;
				o++;
			}
			v[n] = b;
			vo[n++] = (uint8_t)o;
		}
		l->head = p;
		l->count -= taken;
		count -= taken;
		for (unsigned i = 0; i < n; i++)
			__builtin_prefetch(buddy_of(v[i], vo[i]));
		lr_pa_lock_(&z->lock);
		for (unsigned i = 0; i < n; i++)
			lr_pa_free_one_(z, v[i], vo[i]);
		lr_pa_unlock_(&z->lock);
	}
}

void
lr_pa_pcp_drain_(unsigned lcore, unsigned node, unsigned mt, unsigned order)
{
	struct lr_pa_lcore *pc = &lr_pa_lcores_[lcore];
	struct lr_pa_pcp_list *l = &pc->list[node][mt][order];

	if (lr_unlikely(!pc->sized)) {
		/* The first free of this lcore found its lists unsized
		 * (high 0): size them, and drain only if still above. */
		pa_pcp_size_own(pc);
		if (l->count <= l->high)
			return;
	}
	lr_pa_pcp_drain_list_(&lr_pa_state_.zones[node], l, order, l->batch);
	lr_counter_add(&pc->stats.drain, 1);
}

int
lr_pagealloc_drain_lcore(unsigned lcore_id)
{
	if (lcore_id >= LR_MAX_LCORE) {
		LR_LOG(ERR, PAGEALLOC, "drain: lcore %u does not exist\n",
		       lcore_id);
		return -EINVAL;
	}
	if (!atomic_load_explicit(&lr_pa_state_.ready, memory_order_acquire))
		return 0;
	struct lr_pa_lcore *pc = &lr_pa_lcores_[lcore_id];

	for (int n = 0; n < LR_MAX_NUMA_NODES; n++) {
		if (!lr_pa_state_.zones[n].present)
			continue;
		for (unsigned t = 0; t < LR_PCP_TYPES; t++) {
			for (unsigned o = 0; o < LR_PCP_ORDERS; o++) {
				struct lr_pa_pcp_list *l = &pc->list[n][t][o];

				if (l->count == 0)
					continue;
				lr_pa_pcp_drain_list_(&lr_pa_state_.zones[n], l,
						      o, l->count);
				/* Counted on the drained lcore: its owner
				 * is idle. */
				lr_counter_add(&pc->stats.drain, 1);
			}
		}
	}
	return 0;
}

/* Size the lists of one lcore from its zones and find its local zone.
 * Runs on that lcore (pa_pcp_size_own(), lr_pa_local_node_slow_()). */
void
lr_pa_pcp_init_lcore_(struct lr_pa_lcore *pc)
{
	unsigned lcore = (unsigned)(pc - lr_pa_lcores_);
	int node =
	    lr_lcore_is_enabled(lcore) ? lr_lcore_to_socket_id(lcore) : 0;

	if (node < 0 || node >= LR_MAX_NUMA_NODES)
		node = 0;
	for (int n = 0; n < LR_MAX_NUMA_NODES; n++) {
		const struct zone *z = &lr_pa_state_.zones[n];

		for (unsigned o = 0; o < LR_PCP_ORDERS; o++) {
			/* Blocks per batch and high: the order-0 figures
			 * >> order, order 4 keeping order 3's counts. */
			unsigned s = o < 3 ? o : 3;
			unsigned batch = z->batch >> s, high = z->high >> s;

			if (batch < 2)
				batch = 2;
			if (high < 2 * batch)
				high = 2 * batch;
			for (unsigned t = 0; t < LR_PCP_TYPES; t++) {
				struct lr_pa_pcp_list *l = &pc->list[n][t][o];

				l->batch = (uint16_t)batch;
				l->high = (uint16_t)high;
			}
		}
	}
	pc->local_node = lr_pa_state_.zonelist_len[node]
			     ? lr_pa_state_.zonelist[node][0]
			     : 0;
	pc->node_set = lr_lcore_is_enabled(lcore);
	__atomic_store_n(&pc->sized, 1, __ATOMIC_RELEASE); /* telemetry reads */
}

/* A registered thread gives its lcore id back: its lists go back to the
 * zones so the next owner of the id starts empty. */
void
lr_pa_pcp_release_cb_(unsigned lcore_id, void *arg)
{
	(void)arg;
	lr_pagealloc_drain_lcore(lcore_id);
	if (lcore_id < LR_MAX_LCORE)
		lr_pa_lcores_[lcore_id].node_set = 0;
}
