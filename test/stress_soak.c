/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stress_soak [SECONDS]: a randomized soak of the page allocator, two page
 * pools and two mempools on two lcores, for SECONDS (default: the
 * environment's LR_STRESS_SECONDS, else 600).
 *
 * Each lcore draws random operations: blocks of order 0-5 from the
 * allocator (one at a time or in bulk, movable or pinned), pages from its
 * own page pool (checked: every ownership error is counted), objects from
 * a cached ring mempool and an uncached stack mempool (one at a time or in
 * bulk); frees of what it holds; hand-overs of what it holds to the other
 * lcore, which frees or puts it there (page-pool pages then go through the
 * ring and the stashes); now and then a shrink of its page pool's cache or
 * a flush of its mempool cache. Every piece of memory it holds carries its
 * own address, checked when it is freed: memory handed out twice would
 * have been overwritten by its other holder.
 *
 * Every second both lcores stop at a quiescent point and the main lcore
 * checks lr_pagealloc_validate(), lr_page_pool_validate() and
 * lr_mempool_validate() of every pool, no ownership error in the page
 * pools, and the accounting against what the test holds:
 *   page pool in_flight == its pages the test holds
 *   mempool in use      == its objects the test holds
 *   zone pages - free - pcp - bad == baseline + pages of held blocks
 *                                    + pages the page pools hold
 * Any violation fails the run at once. At the end everything is given
 * back: no page, object or pool may be left.
 *
 * Prints a line every 10 s and "stress_soak: N s, ... ok" at the end;
 * exit 0, or 1 on any violation.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lr_cycles.h"
#include "lr_eal.h"
#include "lr_mempool.h"
#include "lr_page_pool.h"
#include "lr_pagealloc.h"
#include "lr_test.h"

#define HOLD_MAX     4096 /* items an lcore holds at most */
#define MAILBOX	     1024 /* items waiting for the other lcore */
#define MAX_ORDER    5	  /* blocks of up to 32 pages */
#define PP_SIZE	     512  /* pages per page pool */
#define MP_OBJS	     8192 /* objects per mempool */
#define MP_ELT	     192  /* bytes per object */
#define OBJ_STAMP    0x5eed5eed5eed5eedULL
#define REPORT_EVERY 10 /* seconds between progress lines */

enum kind { K_BLOCK, K_PP, K_MP };

/* One piece of memory the test holds. */
struct item {
	void *p;       /* struct lr_page * (K_BLOCK, K_PP) or object */
	uint8_t kind;  /* enum kind */
	uint8_t order; /* K_BLOCK */
	uint8_t which; /* K_PP, K_MP: index of the pool */
};

struct mailbox {
	pthread_mutex_t lock;
	unsigned n;
	struct item it[MAILBOX];
};

struct worker {
	unsigned lcore;
	uint64_t seed;
	unsigned n;
	struct item *held; /* HOLD_MAX */
	uint64_t ops, failed_allocs, handed, received;
};

static struct {
	unsigned nr; /* lcores taking part: 1 or 2 */
	struct worker w[2];
	struct mailbox box[2];
	struct lr_page_pool *pp[2];
	struct lr_mempool *mp[2];
	pthread_barrier_t bar;
	atomic_int pause, stop, failed;
	unsigned long base_pages; /* allocated before the workload */
} s;

static uint64_t
xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void
fail(const char *fmt, const char *what, const void *p)
{
	fprintf(stderr, "stress_soak: ");
	fprintf(stderr, fmt, what, p);
	fputc('\n', stderr);
	atomic_store(&s.failed, 1);
}

static void
stamp(struct item *it)
{
	uintptr_t *w = it->kind == K_MP ? it->p : lr_page_address(it->p);

	w[0] = (uintptr_t)it->p ^ (uintptr_t)OBJ_STAMP;
}

static void
check_stamp(const struct item *it)
{
	const uintptr_t *w = it->kind == K_MP ? it->p : lr_page_address(it->p);

	if (w[0] != ((uintptr_t)it->p ^ (uintptr_t)OBJ_STAMP))
		fail("%s %p: overwritten while held (handed out twice?)",
		     it->kind == K_BLOCK ? "block"
		     : it->kind == K_PP	 ? "page-pool page"
					 : "object",
		     it->p);
	if (it->kind != K_MP && lr_virt_to_page(w) != it->p)
		fail("%s %p: address does not map back to its page", "block",
		     it->p);
}

/* Give one item back where it came from; me: the calling worker's index. */
static void
release(unsigned me, struct item *it)
{
	check_stamp(it);
	switch (it->kind) {
	case K_BLOCK:
		lr_free_pages(it->p, it->order);
		break;
	case K_PP:
		lr_page_pool_put(s.pp[it->which], it->p, ~0u, it->which == me);
		break;
	default:
		lr_mempool_put(s.mp[it->which], it->p);
		break;
	}
}

static void
hold(struct worker *w, void *p, enum kind k, unsigned order, unsigned which)
{
	struct item *it = &w->held[w->n++];

	it->p = p;
	it->kind = (uint8_t)k;
	it->order = (uint8_t)order;
	it->which = (uint8_t)which;
	stamp(it);
}

static void
op_blocks(struct worker *w, uint64_t r)
{
	unsigned order = (r & 7) < 5 ? 0 : 1 + (unsigned)((r >> 3) % MAX_ORDER);
	unsigned batch = 1 + (unsigned)((r >> 8) % 16);
	unsigned flags = (r >> 12) & 1 ? LR_ALLOC_PINNED : 0;
	struct lr_page *tmp[16];
	unsigned got = 0;

	if (w->n + batch > HOLD_MAX)
		return;
	if ((r >> 13) & 1) {
		got = lr_alloc_pages_bulk(LR_SOCKET_ID_ANY, order, flags, batch,
					  tmp);
	} else {
		for (unsigned k = 0; k < batch; k++)
			if ((tmp[got] = lr_alloc_pages(LR_SOCKET_ID_ANY, order,
						       flags)) != NULL)
				got++;
	}
	w->failed_allocs += batch - got;
	for (unsigned k = 0; k < got; k++)
		hold(w, tmp[k], K_BLOCK, order, 0);
}

static void
op_page_pool(struct worker *w, unsigned me, uint64_t r)
{
	unsigned n = 1 + (unsigned)((r >> 8) % 8);

	for (unsigned k = 0; k < n && w->n < HOLD_MAX; k++) {
		struct lr_page *pg = lr_page_pool_alloc(s.pp[me]);

		if (pg == NULL) {
			w->failed_allocs++;
			return;
		}
		/* The device wrote it; the CPU takes it over. */
		if (lr_page_pool_sync_for_cpu(s.pp[me], pg, 0,
					      (unsigned)LR_PAGE_SIZE) != 0)
			fail("%s %p: sync_for_cpu refused", "page-pool page",
			     pg);
		hold(w, pg, K_PP, 0, me);
	}
}

static void
op_mempool(struct worker *w, uint64_t r)
{
	unsigned which = (unsigned)(r >> 8) & 1;
	unsigned n = (r >> 9) & 1 ? 1 + (unsigned)((r >> 10) % 48) : 1;
	void *objs[48];

	if (w->n + n > HOLD_MAX)
		return;
	if (lr_mempool_get_bulk(s.mp[which], objs, n) != 0) {
		w->failed_allocs++;
		return;
	}
	for (unsigned k = 0; k < n; k++)
		hold(w, objs[k], K_MP, 0, which);
}

static void
op_free(struct worker *w, unsigned me, uint64_t r)
{
	unsigned n = 1 + (unsigned)((r >> 8) % 24);

	while (n-- > 0 && w->n > 0) {
		unsigned k = (unsigned)(xorshift(&w->seed) % w->n);

		release(me, &w->held[k]);
		w->held[k] = w->held[--w->n];
	}
}

static void
op_hand_over(struct worker *w, unsigned me, uint64_t r)
{
	struct mailbox *b = &s.box[s.nr == 2 ? 1 - me : me];
	unsigned n = 1 + (unsigned)((r >> 8) % 16);

	pthread_mutex_lock(&b->lock);
	while (n-- > 0 && w->n > 0 && b->n < MAILBOX) {
		unsigned k = (unsigned)(xorshift(&w->seed) % w->n);

		b->it[b->n++] = w->held[k];
		w->held[k] = w->held[--w->n];
		w->handed++;
	}
	pthread_mutex_unlock(&b->lock);
}

static void
op_take_mail(struct worker *w, unsigned me)
{
	struct mailbox *b = &s.box[me];

	pthread_mutex_lock(&b->lock);
	for (unsigned k = 0; k < b->n; k++)
		release(me, &b->it[k]);
	w->received += b->n;
	b->n = 0;
	pthread_mutex_unlock(&b->lock);
}

static void
one_op(struct worker *w, unsigned me)
{
	uint64_t r = xorshift(&w->seed);
	unsigned what = (unsigned)(r >> 48) % 1000;

	if (what < 250)
		op_blocks(w, r);
	else if (what < 400)
		op_page_pool(w, me, r);
	else if (what < 600)
		op_mempool(w, r);
	else if (what < 680)
		op_hand_over(w, me, r);
	else if (what < 730)
		op_take_mail(w, me);
	else if (what < 997)
		op_free(w, me, r);
	else if (what < 998)
		lr_page_pool_shrink_cache(s.pp[me], (unsigned)(r % 16));
	else
		lr_mempool_cache_flush(s.mp[0], w->lcore);
	w->ops++;
}

/* Every piece the test holds, per pool and in allocator pages. */
struct census {
	unsigned long pp[2], mp[2], block_pages;
};

static void
count_items(struct census *c, const struct item *it, unsigned n)
{
	for (unsigned k = 0; k < n; k++) {
		if (it[k].kind == K_BLOCK)
			c->block_pages += 1UL << it[k].order;
		else if (it[k].kind == K_PP)
			c->pp[it[k].which]++;
		else
			c->mp[it[k].which]++;
	}
}

/* At a quiescent point: every check; 0 or -1 (after saying what). */
static int
check_all(int verbose, double t)
{
	struct census c = {{0}};
	struct lr_pagealloc_zone_info zi;
	unsigned long used = 0, pp_held = 0;
	int bad = 0;

	for (unsigned i = 0; i < s.nr; i++) {
		count_items(&c, s.w[i].held, s.w[i].n);
		count_items(&c, s.box[i].it, s.box[i].n);
	}
	if (lr_pagealloc_validate() != 0) {
		fprintf(stderr, "stress_soak: lr_pagealloc_validate failed\n");
		bad = 1;
	}
	for (unsigned i = 0; i < 2; i++) {
		struct lr_page_pool_stats st;

		if (lr_page_pool_validate(s.pp[i]) != 0 ||
		    lr_page_pool_stats_get(s.pp[i], &st) != 0) {
			fprintf(stderr, "stress_soak: page pool %u invalid\n",
				i);
			bad = 1;
			continue;
		}
		if (st.errors != 0 || st.in_flight != c.pp[i]) {
			fprintf(stderr,
				"stress_soak: page pool %u: %llu errors, "
				"in flight %llu, the test holds %lu\n",
				i, (unsigned long long)st.errors,
				(unsigned long long)st.in_flight, c.pp[i]);
			bad = 1;
		}
		pp_held += st.held;
	}
	for (unsigned i = 0; i < 2; i++) {
		unsigned in_use = lr_mempool_in_use_count(s.mp[i]);

		if (lr_mempool_validate(s.mp[i]) != 0 || in_use != c.mp[i]) {
			fprintf(stderr,
				"stress_soak: mempool %u: validate failed or "
				"%u in use, the test holds %lu\n",
				i, in_use, c.mp[i]);
			bad = 1;
		}
	}
	for (unsigned z = 0; z < lr_pagealloc_zone_count(); z++) {
		if (lr_pagealloc_zone_info((int)z, &zi) != 0)
			continue;
		used += zi.pages - zi.free - zi.pcp - zi.bad;
		if (zi.bad != 0) {
			fprintf(stderr, "stress_soak: zone %u: %lu bad pages\n",
				z, zi.bad);
			bad = 1;
		}
	}
	if (used != s.base_pages + c.block_pages + pp_held) {
		fprintf(stderr,
			"stress_soak: %lu pages allocated, expected %lu "
			"(baseline) + %lu (blocks held) + %lu (page pools)\n",
			used, s.base_pages, c.block_pages, pp_held);
		bad = 1;
	}
	if (verbose || bad)
		printf("[%6.0f s] blocks %lu pages, page pools %lu+%lu in "
		       "flight (%lu held), mempools %lu+%lu in use: %s\n",
		       t, c.block_pages, c.pp[0], c.pp[1], pp_held, c.mp[0],
		       c.mp[1], bad ? "VIOLATION" : "valid");
	fflush(stdout);
	return bad ? -1 : 0;
}

static void
quiesce(void)
{
	if (s.nr == 2)
		pthread_barrier_wait(&s.bar);
}

/* The worker lcore: operations until paused; at a pause, wait while the
 * main lcore checks. */
static int
worker_main(void *arg)
{
	struct worker *w = arg;

	while (!atomic_load_explicit(&s.stop, memory_order_relaxed)) {
		if (atomic_load_explicit(&s.pause, memory_order_acquire)) {
			quiesce(); /* stopped */
			quiesce(); /* checked */
			continue;
		}
		one_op(w, 1);
	}
	return 0;
}

static void
give_back(unsigned me)
{
	struct worker *w = &s.w[me];

	for (unsigned k = 0; k < w->n; k++)
		release(me, &w->held[k]);
	w->n = 0;
	op_take_mail(w, me);
}

static int
run(double seconds)
{
	uint64_t hz = lr_get_tsc_hz(), t0 = lr_get_tsc_cycles();
	uint64_t end = t0 + (uint64_t)(seconds * (double)hz), next = t0 + hz;
	unsigned checks = 0;

	if (s.nr == 2)
		lr_eal_remote_launch(worker_main, &s.w[1], s.w[1].lcore);
	for (;;) {
		for (unsigned k = 0; k < 256; k++)
			one_op(&s.w[0], 0);
		uint64_t now = lr_get_tsc_cycles();

		if (now < next && !atomic_load(&s.failed))
			continue;
		/* A quiescent point: the worker parks at the barrier. */
		atomic_store(&s.pause, 1);
		quiesce();
		double t = (double)(now - t0) / (double)hz;
		int done = now >= end || atomic_load(&s.failed);

		checks++;
		if (check_all(checks % REPORT_EVERY == 0, t) != 0)
			atomic_store(&s.failed, 1);
		if (done || atomic_load(&s.failed))
			atomic_store(&s.stop, 1);
		atomic_store(&s.pause, 0);
		quiesce();
		if (done || atomic_load(&s.failed))
			break;
		next = lr_get_tsc_cycles() + hz;
	}
	if (s.nr == 2)
		lr_eal_wait_lcore(s.w[1].lcore);
	/* Quiescent for good: the main lcore gives back everything (the
	 * worker's page-pool pages go through the ring, as from any other
	 * thread). */
	for (unsigned i = 0; i < s.nr; i++)
		give_back(i);
	return (int)checks;
}

int
main(int argc, char **argv)
{
	const char *env = getenv("LR_STRESS_SECONDS");
	double seconds = argc > 1 ? atof(argv[1]) : env ? atof(env) : 600;
	struct lr_pagealloc_zone_info zi;
	int rc = 1, checks;

	if (!(seconds > 0)) {
		fprintf(stderr,
			"stress_soak: duration '%s': expected seconds "
			"> 0\n",
			argc > 1 ? argv[1] : env);
		return 1;
	}
	if (lr_test_eal_init("stress_soak", 256) < 0)
		return 1;
	s.nr = lr_lcore_count() >= 2 ? 2 : 1;
	s.w[0].lcore = lr_lcore_id();
	s.w[1].lcore = s.nr == 2 ? lr_get_next_lcore(-1, 1, 0) : s.w[0].lcore;
	for (unsigned i = 0; i < 2; i++) {
		char name[32];
		struct lr_page_pool_params pp = {
		    .pool_size = PP_SIZE,
		    .nid = LR_SOCKET_ID_ANY,
		    .owner_lcore = s.w[i].lcore,
		    .flags = LR_PP_FLAG_DMA_MAP | LR_PP_FLAG_CHECK,
		    .dma_dir = LR_DMA_FROM_DEVICE,
		};

		snprintf(name, sizeof(name), "soak_pp%u", i);
		pp.name = name;
		s.pp[i] = lr_page_pool_create(&pp);
		s.w[i].held = calloc(HOLD_MAX, sizeof(struct item));
		s.w[i].seed = 0x9e3779b97f4a7c15ULL * (i + 1) ^
			      (uint64_t)lr_get_tsc_cycles();
		pthread_mutex_init(&s.box[i].lock, NULL);
		if (s.pp[i] == NULL || s.w[i].held == NULL) {
			fprintf(stderr, "stress_soak: setup: %s\n",
				lr_strerror(lr_errno));
			goto out;
		}
	}
	s.mp[0] = lr_mempool_create("soak_ring", MP_OBJS, MP_ELT, 64, 0, NULL,
				    NULL, LR_SOCKET_ID_ANY, 0);
	s.mp[1] =
	    lr_mempool_create_ops("soak_stack", MP_OBJS, MP_ELT, 0, 0, NULL,
				  NULL, LR_SOCKET_ID_ANY, 0, "stack");
	if (s.mp[0] == NULL || s.mp[1] == NULL) {
		fprintf(stderr, "stress_soak: mempool: %s\n",
			lr_strerror(lr_errno));
		goto out;
	}
	for (unsigned z = 0; z < lr_pagealloc_zone_count(); z++)
		if (lr_pagealloc_zone_info((int)z, &zi) == 0)
			s.base_pages += zi.pages - zi.free - zi.pcp - zi.bad;
	pthread_barrier_init(&s.bar, NULL, s.nr);
	printf("stress_soak: %.0f s on %u lcore(s), seeds %#llx %#llx\n",
	       seconds, s.nr, (unsigned long long)s.w[0].seed,
	       (unsigned long long)s.w[1].seed);
	fflush(stdout);

	checks = run(seconds);
	/* Everything is back: one last check, nothing may be held. */
	if (check_all(1, seconds) != 0)
		atomic_store(&s.failed, 1);
	printf("stress_soak: %d checks; ops %llu + %llu, handed over %llu + "
	       "%llu, allocations refused %llu + %llu: %s\n",
	       checks, (unsigned long long)s.w[0].ops,
	       (unsigned long long)s.w[1].ops,
	       (unsigned long long)s.w[0].handed,
	       (unsigned long long)s.w[1].handed,
	       (unsigned long long)s.w[0].failed_allocs,
	       (unsigned long long)s.w[1].failed_allocs,
	       atomic_load(&s.failed) ? "FAILED" : "ok");
	rc = atomic_load(&s.failed) ? 1 : 0;
	pthread_barrier_destroy(&s.bar);
out:
	for (unsigned i = 0; i < 2; i++) {
		if (s.mp[i])
			lr_mempool_free(s.mp[i]);
		if (s.pp[i])
			lr_page_pool_free(s.pp[i]);
		free(s.w[i].held);
	}
	if (lr_page_pool_pending_count() != 0) {
		fprintf(stderr, "stress_soak: %u page pools wait for pages\n",
			lr_page_pool_pending_count());
		rc = 1;
	}
	lr_eal_cleanup();
	return rc;
}
