/* SPDX-License-Identifier: BSD-3-Clause */
/* Page allocator: split/merge, alignment, per-lcore lists, bulk, zeroing,
 * a randomized two-lcore workload, bad input, fake NUMA nodes,
 * migratetypes, reserve, shrinkers, the standalone heap and (debug build)
 * poison. Every case checks lr_pagealloc_validate(). */
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lr_eal.h"
#include "lr_pagealloc.h"
#include "lr_test.h"
#include "pagealloc_test.h"

/* Enough for several max-order blocks: 4 MiB with 4 KiB pages, 64 MiB
 * (aligned to 64 MiB) with 64 KiB pages. */
#if LR_PAGE_SHIFT == 12
#define MEM_MB "64"
#else
#define MEM_MB "256"
#endif
#define MEM_BYTES ((unsigned long)atoi(MEM_MB) << 20)

static double
test_scale(void)
{
	const char *s = getenv("LR_TEST_SCALE");
	double v = s ? atof(s) : 1.0;

	return v > 0 && v <= 1 ? v : 1.0;
}

static int
eal_up(void)
{
	/* lr_eal_init() pins this thread to its lcore's CPU and cleanup
	 * leaves it so: give it back every CPU it had at start. */
	static cpu_set_t orig;
	static bool saved;

	if (!saved) {
		sched_getaffinity(0, sizeof(orig), &orig);
		saved = true;
	}
	sched_setaffinity(0, sizeof(orig), &orig);

	/* The pid in the prefix: other worktrees may run this binary at
	 * the same time. */
	char prefix[64];
	char *argv[] = {"test_pagealloc", "-l",	  "0-1", "--no-huge", "-m",
			MEM_MB,		  prefix, NULL};
	int argc = (int)LR_DIM(argv) - 1;

	snprintf(prefix, sizeof(prefix), "--file-prefix=test_pagealloc_%d",
		 (int)getpid());
	/* A failed case may have left the EAL up: start clean. */
	if (lr_eal_initialized())
		lr_eal_cleanup();

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		argv[2] = "0";
	return lr_eal_init(argc, argv) < 0 ? -1 : 0;
}

/* --------------------------------------------------------- log capture */




/* Run fn(arg) on a thread that is not an lcore (the zone-lock path). */
struct thread_call {
	int (*fn)(void *);
	void *arg;
	int ret;
};

static void *
thread_main(void *p)
{
	struct thread_call *c = p;

	c->ret = c->fn(c->arg);
	return NULL;
}

static int
run_in_thread(int (*fn)(void *), void *arg)
{
	struct thread_call c = {fn, arg, -1};
	pthread_t t;

	if (pthread_create(&t, NULL, thread_main, &c) != 0)
		return -1;
	pthread_join(t, NULL);
	return c.ret;
}

static int
zinfo(int node, struct lr_pagealloc_zone_info *zi)
{
	return lr_pagealloc_zone_info(node, zi);
}

/* ------------------------------------------------------------ the cases */

static int
test_basics(void)
{
	struct lr_pagealloc_zone_info zi;
	struct lr_page *p;
	char *addr;
	int local;

	LR_TEST_ASSERT(eal_up() == 0, "eal init");
	LR_TEST_ASSERT_EQ(lr_pagealloc_zone_count(), 1);
	LR_TEST_ASSERT_EQ(zinfo(0, &zi), 0);
	LR_TEST_ASSERT_EQ(zi.pages, MEM_BYTES >> LR_PAGE_SHIFT);
	LR_TEST_ASSERT(zi.wmark_min <= zi.wmark_low &&
			   zi.wmark_low <= zi.wmark_high,
		       "watermarks %lu %lu %lu", zi.wmark_min, zi.wmark_low,
		       zi.wmark_high);
	p = lr_alloc_pages(LR_SOCKET_ID_ANY, 0, 0);
	LR_TEST_ASSERT(p != NULL, "alloc: %s", lr_strerror(lr_errno));
	addr = lr_page_address(p);
	LR_TEST_ASSERT(lr_virt_to_page(addr) == p, "virt_to_page");
	LR_TEST_ASSERT(lr_virt_to_page(addr + LR_PAGE_SIZE - 1) == p,
		       "virt_to_page of the last byte");
	LR_TEST_ASSERT_EQ(lr_page_iova(p), lr_mem_virt2iova(addr));
	LR_TEST_ASSERT_EQ(lr_page_node(p), 0);
	LR_TEST_ASSERT_EQ(lr_page_migratetype(p), LR_MT_MOVABLE);
	memset(addr, 0x5a, LR_PAGE_SIZE);
	lr_free_pages(p, 0);
	local = 1;
	LR_TEST_ASSERT(lr_virt_to_page(&local) == NULL, "stack address");
	void *m = malloc(100);

	LR_TEST_ASSERT(lr_virt_to_page(m) == NULL, "malloc address");
	free(m);
	LR_TEST_ASSERT(lr_virt_to_page((void *)-1L) == NULL, "top address");
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	lr_pagealloc_dump(stdout);
	lr_eal_cleanup();
	return 0;
}

/* The smallest order >= k with a free movable block. */
static int
smallest_free(const struct lr_pagealloc_zone_info *zi, unsigned k)
{
	for (unsigned o = k; o < LR_MAX_ORDER; o++)
		if (zi->nr_free[o][LR_MT_MOVABLE])
			return (int)o;
	return -1;
}

static int
split_merge_body(void *arg)
{
	(void)arg;
	for (unsigned k = 0; k < LR_MAX_ORDER; k++) {
		struct lr_pagealloc_zone_info a, b, c;
		struct lr_page *p;
		int j;

		LR_TEST_ASSERT_EQ(zinfo(0, &a), 0);
		j = smallest_free(&a, k);
		LR_TEST_ASSERT(j >= 0, "no free block of order >= %u", k);
		p = lr_alloc_pages(0, k, 0);
		LR_TEST_ASSERT(p != NULL, "order %u: %s", k,
			       lr_strerror(lr_errno));
		LR_TEST_ASSERT(((uintptr_t)lr_page_address(p) &
				((LR_PAGE_SIZE << k) - 1)) == 0,
			       "order %u block at %p is not aligned", k,
			       lr_page_address(p));
		LR_TEST_ASSERT_EQ(zinfo(0, &b), 0);
		LR_TEST_ASSERT_EQ(b.free, a.free - (1UL << k));
		/* One block of order j split: one less there, one more at
		 * each order k..j-1. */
		for (unsigned o = 0; o < LR_MAX_ORDER; o++) {
			long want = (long)a.nr_free[o][LR_MT_MOVABLE];

			if ((int)o == j)
				want--;
			else if (o >= k && (int)o < j)
				want++;
			LR_TEST_ASSERT(
			    (long)b.nr_free[o][LR_MT_MOVABLE] == want,
			    "alloc order %u from order %d: order %u has %lu "
			    "free blocks, want %ld",
			    k, j, o, b.nr_free[o][LR_MT_MOVABLE], want);
		}
		LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
		lr_free_pages(p, k);
		LR_TEST_ASSERT_EQ(zinfo(0, &c), 0);
		LR_TEST_ASSERT(
		    memcmp(a.nr_free, c.nr_free, sizeof(a.nr_free)) == 0,
		    "order %u: free and merge do not restore the lists", k);
	}
	return 0;
}

static int
test_split_merge(void)
{
	LR_TEST_ASSERT(eal_up() == 0, "eal init");
	/* Not an lcore: every order goes straight to the buddy lists. */
	LR_TEST_ASSERT_EQ(run_in_thread(split_merge_body, NULL), 0);
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	lr_eal_cleanup();
	return 0;
}

static int
test_alignment(void)
{
	enum { N = 400 };
	struct lr_page *pg[N];
	unsigned ord[N];

	LR_TEST_ASSERT(eal_up() == 0, "eal init");
	srand(7);
	/* Orders 0..5 (0..2 with 64 KiB pages, whose zone is smaller). */
	for (int i = 0; i < N; i++) {
		ord[i] = (unsigned)(rand() % (LR_PAGE_SHIFT == 12 ? 6 : 3));
		pg[i] = lr_alloc_pages(LR_SOCKET_ID_ANY, ord[i], 0);
		LR_TEST_ASSERT(pg[i] != NULL, "alloc %d", i);
		uintptr_t a = (uintptr_t)lr_page_address(pg[i]);

		LR_TEST_ASSERT((a & ((LR_PAGE_SIZE << ord[i]) - 1)) == 0,
			       "order %u block at %#lx", ord[i],
			       (unsigned long)a);
		LR_TEST_ASSERT(lr_virt_to_page((
				   void *)(a + (LR_PAGE_SIZE << ord[i]) - 1)) ==
				   pg[i] + ((1UL << ord[i]) - 1),
			       "last page of the block");
		/* Write the whole block: overlapping blocks would show. */
		memset((void *)a, i & 0xff, LR_PAGE_SIZE << ord[i]);
	}
	for (int i = 0; i < N; i++) {
		uint8_t *a = lr_page_address(pg[i]);

		for (size_t k = 0; k < LR_PAGE_SIZE << ord[i];
		     k += LR_PAGE_SIZE / 2)
			LR_TEST_ASSERT(a[k] == (i & 0xff),
				       "block %d was overwritten", i);
	}
	for (int i = 0; i < N; i++)
		lr_free_pages(pg[i], ord[i]);
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	lr_eal_cleanup();
	return 0;
}

static int
test_alloc_all_free_all(void)
{
	struct lr_pagealloc_zone_info start, end;
	struct lr_page **pg;
	size_t n = 0, cap;
	unsigned long pages = 0;

	LR_TEST_ASSERT(eal_up() == 0, "eal init");
	LR_TEST_ASSERT_EQ(zinfo(0, &start), 0);
	cap = start.pages + 16;
	pg = malloc(cap * sizeof(*pg));
	LR_TEST_ASSERT(pg != NULL, "malloc");
	/* Everything, reserve included: orders 3, then 0. */
	for (unsigned o = 3;; o = 0) {
		struct lr_page *p;

		while (n < cap &&
		       (p = lr_alloc_pages(0, o, LR_ALLOC_RESERVE)) != NULL) {
			pg[n++] = p;
			p->user = o;
			pages += 1UL << o;
		}
		if (o == 0)
			break;
	}
	/* Lcore lists may still hold a few pages of order 3. */
	lr_pagealloc_drain_lcore(lr_lcore_id());
	while (n < cap) {
		struct lr_page *p = lr_alloc_pages(0, 0, LR_ALLOC_RESERVE);

		if (p == NULL)
			break;
		pg[n++] = p;
		p->user = 0;
		pages++;
	}
	LR_TEST_ASSERT_EQ(pages, start.pages);
	LR_TEST_ASSERT_EQ(zinfo(0, &end), 0);
	LR_TEST_ASSERT_EQ(end.free, 0);
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	for (size_t i = 0; i < n; i++)
		lr_free_pages(pg[i], pg[i]->user);
	LR_TEST_ASSERT_EQ(lr_pagealloc_drain_lcore(lr_lcore_id()), 0);
	LR_TEST_ASSERT_EQ(lr_pagealloc_drain_lcore(LR_MAX_LCORE), -EINVAL);
	LR_TEST_ASSERT_EQ(zinfo(0, &end), 0);
	LR_TEST_ASSERT_EQ(end.free, start.pages);
	LR_TEST_ASSERT(
	    memcmp(start.nr_free, end.nr_free, sizeof(start.nr_free)) == 0,
	    "the zone is not back to its max-order blocks");
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	free(pg);
	lr_eal_cleanup();
	return 0;
}

static int
test_pcp_batches(void)
{
	struct lr_pagealloc_zone_info zi;
	struct lr_pagealloc_stats s0, s1;
	struct lr_page *pg[2048];
	unsigned b, h, lc = lr_get_main_lcore();

	LR_TEST_ASSERT(eal_up() == 0, "eal init");
	LR_TEST_ASSERT_EQ(zinfo(0, &zi), 0);
	b = zi.batch;
	h = zi.high;
	LR_TEST_ASSERT(b >= 4 && h > b && h < LR_DIM(pg), "batch %u high %u", b,
		       h);
	LR_TEST_ASSERT_EQ(zi.pcp, 0);
	lr_pagealloc_stats_get(&s0);
	/* The first allocation refills the list with one batch. */
	pg[0] = lr_alloc_pages(LR_SOCKET_ID_ANY, 0, 0);
	LR_TEST_ASSERT(pg[0] != NULL, "alloc");
	lr_pagealloc_stats_get(&s1);
	LR_TEST_ASSERT_EQ(s1.refill - s0.refill, 1);
	LR_TEST_ASSERT_EQ(zinfo(0, &zi), 0);
	LR_TEST_ASSERT_EQ(zi.pcp, b - 1);
	/* The rest of the batch comes from the list ... */
	for (unsigned i = 1; i < b; i++)
		pg[i] = lr_alloc_pages(LR_SOCKET_ID_ANY, 0, 0);
	lr_pagealloc_stats_get(&s1);
	LR_TEST_ASSERT_EQ(s1.refill - s0.refill, 1);
	LR_TEST_ASSERT_EQ(zinfo(0, &zi), 0);
	LR_TEST_ASSERT_EQ(zi.pcp, 0);
	/* ... and one more needs a second refill. */
	for (unsigned i = b; i < h + 1; i++)
		pg[i] = lr_alloc_pages(LR_SOCKET_ID_ANY, 0, 0);
	lr_pagealloc_stats_get(&s1);
	LR_TEST_ASSERT_EQ(s1.refill - s0.refill, (h + 1 + b - 1) / b);
	/* Frees fill the list up to high without a drain ... */
	LR_TEST_ASSERT_EQ(zinfo(0, &zi), 0);
	unsigned left = zi.pcp, i;

	for (i = 0; left + i < h; i++)
		lr_free_pages(pg[i], 0);
	lr_pagealloc_stats_get(&s1);
	LR_TEST_ASSERT_EQ(s1.drain - s0.drain, 0);
	LR_TEST_ASSERT_EQ(zinfo(0, &zi), 0);
	LR_TEST_ASSERT_EQ(zi.pcp, h);
	/* ... the one above high drains one batch. */
	lr_free_pages(pg[i++], 0);
	lr_pagealloc_stats_get(&s1);
	LR_TEST_ASSERT_EQ(s1.drain - s0.drain, 1);
	LR_TEST_ASSERT_EQ(zinfo(0, &zi), 0);
	LR_TEST_ASSERT_EQ(zi.pcp, h + 1 - b);
	for (; i < h + 1; i++)
		lr_free_pages(pg[i], 0);
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	/* Draining on demand empties the lcore's lists. */
	lr_pagealloc_drain_lcore(lc);
	LR_TEST_ASSERT_EQ(zinfo(0, &zi), 0);
	LR_TEST_ASSERT_EQ(zi.pcp, 0);
	LR_TEST_ASSERT_EQ(zi.free, zi.pages);
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	lr_eal_cleanup();
	return 0;
}

/* Pinned blocks have per-lcore lists of their own, so they are recycled
 * without the zone lock too; a pinned free never lands on the movable
 * list. Order 4 has lists as well. Drained runs merge back whole. */
static int
test_pcp_types(void)
{
	struct lr_pagealloc_zone_info z0, zi;
	struct lr_pagealloc_stats s0, s1;
	struct lr_page *p, *q, *pg[64];

	LR_TEST_ASSERT(eal_up() == 0, "eal init");
	LR_TEST_ASSERT_EQ(zinfo(0, &z0), 0);
	p = lr_alloc_pages(LR_SOCKET_ID_ANY, 0, LR_ALLOC_PINNED);
	LR_TEST_ASSERT(p != NULL, "pinned alloc");
	LR_TEST_ASSERT_EQ(lr_page_migratetype(p), LR_MT_PINNED);
	/* The refill put one batch on this lcore's pinned list. */
	LR_TEST_ASSERT_EQ(zinfo(0, &zi), 0);
	LR_TEST_ASSERT_EQ(zi.pcp, zi.batch - 1);
	lr_free_pages(p, 0);
	lr_pagealloc_stats_get(&s0);
	q = lr_alloc_pages(LR_SOCKET_ID_ANY, 0, 0);
	LR_TEST_ASSERT(q != NULL && q != p, "movable alloc got %p (pinned %p)",
		       (void *)q, (void *)p);
	LR_TEST_ASSERT_EQ(lr_page_migratetype(q), LR_MT_MOVABLE);
	lr_free_pages(q, 0);
	q = lr_alloc_pages(LR_SOCKET_ID_ANY, 0, LR_ALLOC_PINNED);
	LR_TEST_ASSERT(q == p,
		       "pinned alloc got %p, not the page just freed %p",
		       (void *)q, (void *)p);
	lr_pagealloc_stats_get(&s1);
	/* One refill: the movable list's; the pinned page was listed. */
	LR_TEST_ASSERT_EQ(s1.refill - s0.refill, 1);
	lr_free_pages(q, 0);
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);

	/* Order 4: a refill serves several blocks, a drain several too. */
	lr_pagealloc_stats_get(&s0);
	for (unsigned i = 0; i < LR_DIM(pg); i++) {
		pg[i] = lr_alloc_pages(LR_SOCKET_ID_ANY, 4, LR_ALLOC_PINNED);
		LR_TEST_ASSERT(pg[i] != NULL, "order-4 alloc %u", i);
		LR_TEST_ASSERT_EQ(lr_page_migratetype(pg[i]), LR_MT_PINNED);
	}
	lr_pagealloc_stats_get(&s1);
	LR_TEST_ASSERT(s1.refill - s0.refill >= 1 &&
			   s1.refill - s0.refill <= LR_DIM(pg) / 2,
		       "%lu refills for %zu order-4 blocks",
		       (unsigned long)(s1.refill - s0.refill), LR_DIM(pg));
	for (unsigned i = 0; i < LR_DIM(pg); i++)
		lr_free_pages(pg[i], 4);
	lr_pagealloc_stats_get(&s0);
	LR_TEST_ASSERT(s0.drain - s1.drain >= 1 &&
			   s0.drain - s1.drain <= LR_DIM(pg) / 2,
		       "%lu drains for %zu order-4 blocks",
		       (unsigned long)(s0.drain - s1.drain), LR_DIM(pg));
	LR_TEST_ASSERT_EQ(zinfo(0, &zi), 0);
	LR_TEST_ASSERT(zi.pcp > 0, "no block on the lcore's lists");
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	/* Everything back: the zone has its blocks of every order again. */
	lr_pagealloc_drain_lcore(lr_lcore_id());
	LR_TEST_ASSERT_EQ(zinfo(0, &zi), 0);
	LR_TEST_ASSERT_EQ(zi.pcp, 0);
	LR_TEST_ASSERT_EQ(zi.free, zi.pages);
	for (unsigned o = 0; o < LR_MAX_ORDER; o++) {
		unsigned long a = 0, b = 0;

		for (unsigned t = 0; t < LR_MT_TYPES; t++) {
			a += z0.nr_free[o][t];
			b += zi.nr_free[o][t];
		}
		LR_TEST_ASSERT(
		    a == b, "order %u: %lu free blocks, %lu at start", o, b, a);
	}
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	lr_eal_cleanup();
	return 0;
}

static int
test_bulk(void)
{
	struct lr_pagealloc_zone_info zi;
	struct lr_page *pg[256], **all;
	unsigned got;

	LR_TEST_ASSERT(eal_up() == 0, "eal init");
	LR_TEST_ASSERT_EQ(zinfo(0, &zi), 0);
	for (unsigned o = 0; o < 6; o++) {
		unsigned want = (unsigned)LR_MIN(200UL, zi.pages >> (o + 2));

		got = lr_alloc_pages_bulk(LR_SOCKET_ID_ANY, o, 0, want, pg);
		LR_TEST_ASSERT_EQ(got, want);
		for (unsigned i = 0; i < got; i++) {
			LR_TEST_ASSERT(pg[i] != NULL, "entry %u", i);
			/* Distinct blocks: tag them. */
			memset(lr_page_address(pg[i]), (int)i,
			       LR_PAGE_SIZE << o);
		}
		for (unsigned i = 0; i < got; i++)
			LR_TEST_ASSERT(
			    *(uint8_t *)lr_page_address(pg[i]) == (uint8_t)i,
			    "order %u: block %u handed out twice", o, i);
		LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
		lr_free_pages_bulk(pg, got, o);
		LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	}
	/* Asking for more than there is: a partial result, never more than
	 * the zone has above its min watermark. Lists of orders 1..3 hold
	 * blocks from above: give them back first. */
	lr_pagealloc_drain_lcore(lr_lcore_id());
	LR_TEST_ASSERT_EQ(zinfo(0, &zi), 0);
	all = malloc((zi.pages + 100) * sizeof(*all));
	LR_TEST_ASSERT(all != NULL, "malloc");
	got = lr_alloc_pages_bulk(LR_SOCKET_ID_ANY, 0, 0,
				  (unsigned)zi.pages + 100, all);
	LR_TEST_ASSERT(got > 0 && got < zi.pages, "got %u of %lu", got,
		       zi.pages);
	LR_TEST_ASSERT(got == zi.pages - zi.wmark_min, "got only %u of %lu",
		       got, zi.pages);
	/* Nothing more without the reserve flag ... */
	LR_TEST_ASSERT_EQ(lr_alloc_pages_bulk(LR_SOCKET_ID_ANY, 0, 0, 10, pg),
			  0);
	LR_TEST_ASSERT_EQ(lr_errno, ENOMEM);
	/* ... and the reserve gives a partial result of its own. */
	unsigned r = lr_alloc_pages_bulk(LR_SOCKET_ID_ANY, 0, LR_ALLOC_RESERVE,
					 (unsigned)zi.pages, all + got);
	LR_TEST_ASSERT(r > 0 && got + r <= zi.pages, "reserve got %u", r);
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	lr_free_pages_bulk(all, got + r, 0);
	lr_pagealloc_drain_lcore(lr_lcore_id());
	LR_TEST_ASSERT_EQ(zinfo(0, &zi), 0);
	LR_TEST_ASSERT_EQ(zi.free, zi.pages);
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	free(all);
	lr_eal_cleanup();
	return 0;
}

static int
zero_body(void *arg)
{
	(void)arg;
	for (unsigned o = 0; o < 5; o++) {
		for (int round = 0; round < 4; round++) {
			struct lr_page *p = lr_alloc_pages(0, o, LR_ALLOC_ZERO);
			uint8_t *a;

			LR_TEST_ASSERT(p != NULL, "alloc order %u", o);
			a = lr_page_address(p);
			for (size_t i = 0; i < LR_PAGE_SIZE << o; i++)
				LR_TEST_ASSERT(a[i] == 0,
					       "order %u: byte %zu is %#x", o,
					       i, a[i]);
			memset(a, 0xa5, LR_PAGE_SIZE << o);
			lr_free_pages(p, o);
		}
	}
	struct lr_page *pg[8];

	LR_TEST_ASSERT_EQ(lr_alloc_pages_bulk(0, 1, LR_ALLOC_ZERO, 8, pg), 8);
	for (int i = 0; i < 8; i++) {
		uint8_t *a = lr_page_address(pg[i]);

		for (size_t k = 0; k < 2 * LR_PAGE_SIZE; k++)
			LR_TEST_ASSERT(a[k] == 0, "bulk block %d not zeroed",
				       i);
	}
	lr_free_pages_bulk(pg, 8, 1);
	return 0;
}

static int
test_zeroing(void)
{
	LR_TEST_ASSERT(eal_up() == 0, "eal init");
	/* The same pages come back (lists are LIFO): the dirt must go. */
	LR_TEST_ASSERT_EQ(zero_body(NULL), 0);
	LR_TEST_ASSERT_EQ(run_in_thread(zero_body, NULL), 0);
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	lr_eal_cleanup();
	return 0;
}

/* ------------------------------------------------- randomized, 2 lcores */

#define HOLD_MAX 4096
#define MAILBOX	 512

struct held {
	struct lr_page *p;
	unsigned order;
};

struct mailbox {
	pthread_mutex_t lock;
	unsigned n;
	struct held h[MAILBOX];
};

struct rand_ctx {
	unsigned long ops;	/* per lcore */
	unsigned long interval; /* validate every this many ops (total) */
	pthread_barrier_t bar;
	struct mailbox box[2];
	atomic_int failed;
	atomic_ulong allocs, frees, cross;
	unsigned lcores[2];
	unsigned nr_lcores;
};

static uint64_t
xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void
check_block(struct rand_ctx *c, struct lr_page *p, unsigned o)
{
	/* The block's first word holds its own address: a block handed
	 * out twice would have been overwritten by its other owner. */
	uintptr_t *w = lr_page_address(p);

	if (w[0] != (uintptr_t)p || lr_virt_to_page(w) != p) {
		fprintf(stderr, "block %p order %u: contents or lookup wrong\n",
			(void *)p, o);
		atomic_store(&c->failed, 1);
	}
}

static int
rand_worker(void *arg)
{
	struct rand_ctx *c = arg;
	unsigned me = lr_lcore_id() == c->lcores[0] ? 0 : 1;
	unsigned other = c->nr_lcores == 2 ? 1 - me : me;
	struct held *h = calloc(HOLD_MAX, sizeof(*h));
	struct lr_page *tmp[32];
	unsigned nh = 0;
	uint64_t seed = 0x9e3779b97f4a7c15ULL * (me + 1);
	unsigned long per_round = c->interval / c->nr_lcores;

	if (h == NULL)
		return -1;
	for (unsigned long i = 0; i < c->ops; i++) {
		uint64_t r = xorshift(&seed);
		unsigned order = (r & 7) < 5 ? 0 : (unsigned)((r >> 3) % 6);
		unsigned batch = 1 + (unsigned)((r >> 8) % 16);
		unsigned what = (unsigned)((r >> 16) % 100);

		if (what < 50 && nh + batch <= HOLD_MAX) {
			unsigned got;

			if (batch == 1 || (r >> 24) & 1) {
				got = 0;
				for (unsigned k = 0; k < batch; k++) {
					tmp[got] = lr_alloc_pages(
					    LR_SOCKET_ID_ANY, order,
					    (r >> 30) & 1 ? LR_ALLOC_PINNED
							  : 0);
					if (tmp[got] != NULL)
						got++;
				}
			} else {
				got = lr_alloc_pages_bulk(LR_SOCKET_ID_ANY,
							  order, 0, batch, tmp);
			}
			for (unsigned k = 0; k < got; k++) {
				*(uintptr_t *)lr_page_address(tmp[k]) =
				    (uintptr_t)tmp[k];
				h[nh].p = tmp[k];
				h[nh++].order = order;
			}
			atomic_fetch_add(&c->allocs, got);
		} else if (what < 60 && nh > 0) {
			/* Hand a block to the other lcore to free. */
			struct mailbox *b = &c->box[other];
			unsigned k = (unsigned)((r >> 32) % nh);

			pthread_mutex_lock(&b->lock);
			if (b->n < MAILBOX) {
				b->h[b->n++] = h[k];
				h[k] = h[--nh];
			}
			pthread_mutex_unlock(&b->lock);
		} else if (what < 70) {
			/* Free what the other lcore sent us. */
			struct mailbox *b = &c->box[me];

			pthread_mutex_lock(&b->lock);
			for (unsigned k = 0; k < b->n; k++) {
				check_block(c, b->h[k].p, b->h[k].order);
				lr_free_pages(b->h[k].p, b->h[k].order);
			}
			atomic_fetch_add(&c->cross, b->n);
			atomic_fetch_add(&c->frees, b->n);
			b->n = 0;
			pthread_mutex_unlock(&b->lock);
		} else if (nh > 0) {
			unsigned n = 1 + (unsigned)((r >> 40) % 16);

			while (n-- > 0 && nh > 0) {
				unsigned k = (unsigned)(xorshift(&seed) % nh);

				check_block(c, h[k].p, h[k].order);
				lr_free_pages(h[k].p, h[k].order);
				h[k] = h[--nh];
				atomic_fetch_add(&c->frees, 1);
			}
		}
		if ((i + 1) % per_round == 0) {
			/* Quiescent point: both lcores stop, one validates. */
			pthread_barrier_wait(&c->bar);
			if (me == 0 && lr_pagealloc_validate() != 0)
				atomic_store(&c->failed, 1);
			pthread_barrier_wait(&c->bar);
		}
	}
	for (unsigned k = 0; k < nh; k++) {
		check_block(c, h[k].p, h[k].order);
		lr_free_pages(h[k].p, h[k].order);
	}
	atomic_fetch_add(&c->frees, nh);
	pthread_barrier_wait(&c->bar);
	struct mailbox *b = &c->box[me];

	for (unsigned k = 0; k < b->n; k++)
		lr_free_pages(b->h[k].p, b->h[k].order);
	atomic_fetch_add(&c->frees, b->n);
	b->n = 0;
	lr_pagealloc_drain_lcore(lr_lcore_id());
	free(h);
	return 0;
}

static int
test_random_2lcores(void)
{
	struct lr_pagealloc_zone_info zi;
	struct rand_ctx *c = calloc(1, sizeof(*c));
	unsigned long total = (unsigned long)(1000000 * test_scale());
	unsigned w;

	LR_TEST_ASSERT(c != NULL, "calloc");
	LR_TEST_ASSERT(eal_up() == 0, "eal init");
	c->lcores[0] = lr_get_main_lcore();
	c->nr_lcores = 1;
	LR_LCORE_FOREACH_WORKER(w)
	{
		if (c->nr_lcores < 2)
			c->lcores[c->nr_lcores++] = w;
	}
	if (c->nr_lcores < 2)
		printf("random: one CPU only: running on one lcore\n");
	c->interval = 10000;
	if (total < c->interval * 2)
		total = c->interval * 2;
	c->ops = total / c->nr_lcores;
	pthread_barrier_init(&c->bar, NULL, c->nr_lcores);
	for (int i = 0; i < 2; i++)
		pthread_mutex_init(&c->box[i].lock, NULL);
	if (c->nr_lcores == 2)
		lr_eal_remote_launch(rand_worker, c, c->lcores[1]);
	int rc = rand_worker(c);

	if (c->nr_lcores == 2)
		rc |= lr_eal_wait_lcore(c->lcores[1]);
	printf("random: %lu ops on %u lcores, %lu blocks allocated, %lu freed "
	       "(%lu on the other lcore)\n",
	       c->ops * c->nr_lcores, c->nr_lcores, (unsigned long)c->allocs,
	       (unsigned long)c->frees, (unsigned long)c->cross);
	LR_TEST_ASSERT_EQ(rc, 0);
	LR_TEST_ASSERT_EQ(atomic_load(&c->failed), 0);
	LR_TEST_ASSERT_EQ(c->allocs, c->frees);
	LR_TEST_ASSERT(c->cross > 0, "no cross-lcore frees happened");
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	/* No page lost. */
	LR_TEST_ASSERT_EQ(zinfo(0, &zi), 0);
	LR_TEST_ASSERT_EQ(zi.pcp, 0);
	LR_TEST_ASSERT_EQ(zi.bad, 0);
	LR_TEST_ASSERT_EQ(zi.free, zi.pages);
	lr_pagealloc_dump(stdout);
	pthread_barrier_destroy(&c->bar);
	free(c);
	lr_eal_cleanup();
	return 0;
}

/* ------------------------------------------------------------ bad input */

static int
expect_log(const char *log, const char *what)
{
	if (strstr(log, what) == NULL) {
		fprintf(stderr, "expected a message containing '%s'\n", what);
		return -1;
	}
	return 0;
}

static int
test_bad_input(void)
{
	struct lr_pagealloc_zone_info zi;
	struct lr_page fake, *p, *q, *arr[4];
	const char *log;
	char want[160];
	unsigned long bad0;

	LR_TEST_ASSERT(eal_up() == 0, "eal init");
	LR_TEST_ASSERT_EQ(zinfo(0, &zi), 0);
	bad0 = zi.bad;

	/* Double free. */
	p = lr_alloc_pages(LR_SOCKET_ID_ANY, 0, 0);
	LR_TEST_ASSERT(p != NULL, "alloc");
	lr_free_pages(p, 0);
	lr_test_log_begin();
	lr_errno = 0;
	lr_free_pages(p, 0);
	log = lr_test_log_end();
	snprintf(want, sizeof(want), "page %p (addr %p): double free",
		 (void *)p, lr_page_address(p));
	LR_TEST_ASSERT_EQ(expect_log(log, want), 0);
	LR_TEST_ASSERT_EQ(lr_errno, LR_E_BADPAGE);
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	/* A double free of a block already merged into the zone. */
	q = lr_alloc_pages(LR_SOCKET_ID_ANY, 5, 0);
	LR_TEST_ASSERT(q != NULL, "alloc");
	lr_free_pages(q, 5);
	lr_test_log_begin();
	lr_free_pages(q, 5);
	log = lr_test_log_end();
	LR_TEST_ASSERT_EQ(expect_log(log, "double free"), 0);
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);

	/* Foreign addresses. */
	memset(&fake, 0, sizeof(fake));
	fake.st.s.flags = LR_PG_ALLOC;
	lr_test_log_begin();
	lr_free_pages(&fake, 0);
	lr_free_pages(lr_virt_to_page(&fake), 0);
	log = lr_test_log_end();
	snprintf(want, sizeof(want),
		 "page %p: not a page descriptor of this allocator (foreign "
		 "address)",
		 (void *)&fake);
	LR_TEST_ASSERT_EQ(expect_log(log, want), 0);
	LR_TEST_ASSERT_EQ(expect_log(log, "NULL page"), 0);
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);

	/* Wrong order: the block is quarantined, never reused. */
	p = lr_alloc_pages(LR_SOCKET_ID_ANY, 2, 0);
	LR_TEST_ASSERT(p != NULL, "alloc");
	lr_test_log_begin();
	lr_free_pages(p, 1);
	log = lr_test_log_end();
	snprintf(want, sizeof(want),
		 "page %p (addr %p): wrong order: freed with order 1 but "
		 "allocated with order 2",
		 (void *)p, lr_page_address(p));
	LR_TEST_ASSERT_EQ(expect_log(log, want), 0);
	LR_TEST_ASSERT_EQ(zinfo(0, &zi), 0);
	LR_TEST_ASSERT_EQ(zi.bad, bad0 + 4);
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	/* Freeing it again now is refused too. */
	lr_test_log_begin();
	lr_free_pages(p, 2);
	log = lr_test_log_end();
	LR_TEST_ASSERT_EQ(expect_log(log, "quarantined"), 0);

	/* Not the head of a block. */
	p = lr_alloc_pages(LR_SOCKET_ID_ANY, 2, 0);
	LR_TEST_ASSERT(p != NULL, "alloc");
	lr_test_log_begin();
	lr_free_pages(p + 1, 0);
	log = lr_test_log_end();
	LR_TEST_ASSERT_EQ(expect_log(log, "not the head of a block"), 0);
	lr_free_pages(p, 2);
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);

	/* Order above the maximum. */
	lr_test_log_begin();
	lr_errno = 0;
	p = lr_alloc_pages(LR_SOCKET_ID_ANY, LR_MAX_ORDER, 0);
	LR_TEST_ASSERT(p == NULL, "order %d allocated", LR_MAX_ORDER);
	LR_TEST_ASSERT_EQ(lr_errno, EINVAL);
	LR_TEST_ASSERT_EQ(lr_alloc_pages_bulk(0, 40, 0, 4, arr), 0);
	q = lr_alloc_pages(LR_SOCKET_ID_ANY, 0, 0);
	lr_free_pages(q, 12);
	log = lr_test_log_end();
	LR_TEST_ASSERT_EQ(expect_log(log, "order 11 above the maximum 10"), 0);
	LR_TEST_ASSERT_EQ(expect_log(log, "order 40 above the maximum 10"), 0);
	snprintf(want, sizeof(want),
		 "page %p (addr %p): order 12 above the maximum 10", (void *)q,
		 lr_page_address(q));
	LR_TEST_ASSERT_EQ(expect_log(log, want), 0);
	lr_free_pages(q, 0);
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);

	/* Bad node and flags. */
	lr_test_log_begin();
	LR_TEST_ASSERT(lr_alloc_pages(LR_MAX_NUMA_NODES + 3, 0, 0) == NULL,
		       "bad node");
	LR_TEST_ASSERT(lr_alloc_pages(-7, 0, 0) == NULL, "bad node");
	LR_TEST_ASSERT(lr_alloc_pages(0, 0, 0x100) == NULL, "bad flags");
	log = lr_test_log_end();
	LR_TEST_ASSERT_EQ(expect_log(log, "node -7 does not exist"), 0);
	LR_TEST_ASSERT_EQ(expect_log(log, "unknown flags 0x100"), 0);

	/* Zero-sized bulk. */
	lr_test_log_begin();
	lr_errno = 0;
	LR_TEST_ASSERT_EQ(lr_alloc_pages_bulk(LR_SOCKET_ID_ANY, 0, 0, 0, arr),
			  0);
	LR_TEST_ASSERT_EQ(lr_errno, EINVAL);
	lr_free_pages_bulk(arr, 0, 0);
	log = lr_test_log_end();
	LR_TEST_ASSERT_EQ(expect_log(log, "zero-sized bulk request (n = 0)"),
			  0);
	LR_TEST_ASSERT_EQ(expect_log(log, "zero-sized bulk free (n = 0)"), 0);

	/* A bulk free with a bad entry frees the good ones. */
	LR_TEST_ASSERT_EQ(lr_alloc_pages_bulk(LR_SOCKET_ID_ANY, 0, 0, 3, arr),
			  3);
	arr[3] = arr[1];
	lr_test_log_begin();
	lr_free_pages_bulk(arr, 4, 0);
	log = lr_test_log_end();
	LR_TEST_ASSERT_EQ(expect_log(log, "double free"), 0);
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);

	/* Owned by a pool: refused until the owner lets go. */
	p = lr_alloc_pages(LR_SOCKET_ID_ANY, 1, 0);
	LR_TEST_ASSERT(p != NULL, "alloc");
	lr_page_set_owner(p, &fake, "mbufs0");
	lr_test_log_begin();
	lr_free_pages(p, 1);
	log = lr_test_log_end();
	snprintf(want, sizeof(want),
		 "page %p (addr %p): page owned by pool mbufs0", (void *)p,
		 lr_page_address(p));
	LR_TEST_ASSERT_EQ(expect_log(log, want), 0);
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	lr_page_set_owner(p, NULL, NULL);
	lr_free_pages(p, 1);

	/* Nonzero refcount: quarantined. */
	p = lr_alloc_pages(LR_SOCKET_ID_ANY, 0, 0);
	LR_TEST_ASSERT(p != NULL, "alloc");
	p->st.s.refcount = 2;
	lr_test_log_begin();
	lr_free_pages(p, 0);
	log = lr_test_log_end();
	LR_TEST_ASSERT_EQ(expect_log(log, "nonzero refcount 2"), 0);
	LR_TEST_ASSERT_EQ(zinfo(0, &zi), 0);
	LR_TEST_ASSERT_EQ(zi.bad, bad0 + 5);

	/* Setting an owner on a free page is refused. */
	lr_test_log_begin();
	q = lr_alloc_pages(LR_SOCKET_ID_ANY, 0, 0);
	lr_free_pages(q, 0);
	lr_page_set_owner(q, &fake, "late");
	log = lr_test_log_end();
	LR_TEST_ASSERT_EQ(expect_log(log, "is not an allocated block"), 0);

	/* The same from a thread that is not an lcore (zone path). */
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	lr_pagealloc_drain_lcore(lr_lcore_id());
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	LR_TEST_ASSERT_EQ(zinfo(0, &zi), 0);
	LR_TEST_ASSERT_EQ(zi.free + zi.bad, zi.pages);
	lr_eal_cleanup();
	return 0;
}

static int
bad_thread_body(void *arg)
{
	struct lr_page *p = lr_alloc_pages(0, 0, 0);
	const char *log;

	(void)arg;
	LR_TEST_ASSERT(p != NULL, "alloc");
	lr_free_pages(p, 0);
	lr_test_log_begin();
	lr_free_pages(p, 0);
	log = lr_test_log_end();
	LR_TEST_ASSERT_EQ(expect_log(log, "double free"), 0);
	return lr_pagealloc_validate();
}

static int
test_bad_input_zone_path(void)
{
	LR_TEST_ASSERT(eal_up() == 0, "eal init");
	LR_TEST_ASSERT_EQ(run_in_thread(bad_thread_body, NULL), 0);
	lr_eal_cleanup();
	return 0;
}

/* ------------------------------------------------ standalone, release */

static int
standalone_child(void)
{
	struct lr_pagealloc_zone_info zi;
	struct lr_page *p, *pg[100];

	/* No lr_eal_init(): the first use sets up a default heap. */
	LR_TEST_ASSERT_EQ(lr_memseg_count(), 0);
	LR_TEST_ASSERT_EQ(lr_lcore_id(), LR_LCORE_ID_ANY);
	p = lr_alloc_pages(LR_SOCKET_ID_ANY, 0, LR_ALLOC_ZERO);
	LR_TEST_ASSERT(p != NULL, "alloc: %s", lr_strerror(lr_errno));
	LR_TEST_ASSERT_EQ(lr_memseg_count(), 1);
	LR_TEST_ASSERT_EQ(lr_pagealloc_zone_count(), 1);
	LR_TEST_ASSERT_EQ(zinfo(0, &zi), 0);
	LR_TEST_ASSERT_EQ(zi.pages, 16UL << 20 >> LR_PAGE_SHIFT);
	LR_TEST_ASSERT(lr_virt_to_page(lr_page_address(p)) == p, "lookup");
	LR_TEST_ASSERT_EQ(lr_alloc_pages_bulk(LR_SOCKET_ID_ANY, 1, 0, 100, pg),
			  100);
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	lr_free_pages_bulk(pg, 100, 1);
	lr_free_pages(p, 0);
	LR_TEST_ASSERT_EQ(zinfo(0, &zi), 0);
	LR_TEST_ASSERT_EQ(zi.pcp, 0); /* not an lcore: no lists */
	LR_TEST_ASSERT_EQ(zi.free, zi.pages);
	/* A registered thread gets lists of its own; they are drained when
	 * it gives its id back. */
	int id = lr_thread_register();

	LR_TEST_ASSERT(id >= 0, "register: %d", id);
	p = lr_alloc_pages(LR_SOCKET_ID_ANY, 0, 0);
	LR_TEST_ASSERT(p != NULL, "alloc");
	lr_free_pages(p, 0);
	LR_TEST_ASSERT_EQ(zinfo(0, &zi), 0);
	LR_TEST_ASSERT_EQ(zi.pcp, zi.batch);
	lr_thread_unregister();
	LR_TEST_ASSERT_EQ(zinfo(0, &zi), 0);
	LR_TEST_ASSERT_EQ(zi.pcp, 0);
	LR_TEST_ASSERT_EQ(zi.free, zi.pages);
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	return 0;
}

static int
test_standalone(void)
{
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		setenv("LR_HEAP_MB", "16", 1);
		_exit(standalone_child() == 0 ? 0 : 1);
	}
	LR_TEST_ASSERT(pid > 0, "fork");
	waitpid(pid, &st, 0);
	LR_TEST_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		       "the standalone child failed (status %#x)", st);
	return 0;
}

/* ------------------------------------------------------------ fake NUMA */

/* Allocate order-0 pages from node with flags until none is left;
 * returns how many (kept in pg[]). */
static size_t
drain_node(int node, unsigned flags, struct lr_page **pg, size_t n, size_t cap)
{
	struct lr_page *p;

	while (n < cap && (p = lr_alloc_pages(node, 0, flags)) != NULL)
		pg[n++] = p;
	return n;
}

static int
test_numa_fake(void)
{
	struct lr_pagealloc_zone_info zi[3];
	struct lr_page **pg, *p;
	size_t n = 0, cap;

	LR_TEST_ASSERT_EQ(lr_pagealloc_test_fake_nodes(3), 0);
	LR_TEST_ASSERT(eal_up() == 0, "eal init");
	LR_TEST_ASSERT_EQ(lr_pagealloc_zone_count(), 3);
	LR_TEST_ASSERT_EQ(lr_pagealloc_test_fake_nodes(2), -EBUSY);
	for (int i = 0; i < 3; i++) {
		LR_TEST_ASSERT_EQ(zinfo(i, &zi[i]), 0);
		LR_TEST_ASSERT(zi[i].pages > 0, "node %d has no pages", i);
	}
	LR_TEST_ASSERT_EQ(zi[0].pages + zi[1].pages + zi[2].pages,
			  MEM_BYTES >> LR_PAGE_SHIFT);
	cap = zi[0].pages + zi[1].pages + zi[2].pages;
	pg = malloc(cap * sizeof(*pg));
	LR_TEST_ASSERT(pg != NULL, "malloc");

	/* The local node (the lcore's, 0) first; an explicit node is
	 * honoured. */
	p = lr_alloc_pages(LR_SOCKET_ID_ANY, 0, 0);
	LR_TEST_ASSERT(p != NULL && lr_page_node(p) == 0, "local node");
	pg[n++] = p;
	for (int i = 0; i < 3; i++) {
		p = lr_alloc_pages(i, 2, 0);
		LR_TEST_ASSERT(p != NULL && lr_page_node(p) == i,
			       "node %d asked, got %d", i,
			       p ? lr_page_node(p) : -1);
		lr_free_pages(p, 2);
		p = lr_alloc_pages(i, 5, LR_ALLOC_THISNODE);
		LR_TEST_ASSERT(p != NULL && lr_page_node(p) == i,
			       "zone path: node %d", i);
		lr_free_pages(p, 5);
	}
	/* Node 0 runs out: THISNODE gets nothing more ... */
	n = drain_node(0, LR_ALLOC_THISNODE, pg, n, cap);
	LR_TEST_ASSERT(lr_alloc_pages(0, 0, LR_ALLOC_THISNODE) == NULL,
		       "THISNODE fell back");
	LR_TEST_ASSERT(lr_alloc_pages(LR_SOCKET_ID_ANY, 3, LR_ALLOC_THISNODE) ==
			   NULL,
		       "THISNODE (local) fell back");
	LR_TEST_ASSERT_EQ(lr_errno, ENOMEM);
	for (size_t i = 0; i < n; i++)
		LR_TEST_ASSERT(lr_page_node(pg[i]) == 0, "page %zu on node %d",
			       i, lr_page_node(pg[i]));
	/* ... and the rest falls back by distance: node 1 (20) before
	 * node 2 (30). */
	p = lr_alloc_pages(LR_SOCKET_ID_ANY, 0, 0);
	LR_TEST_ASSERT(p != NULL && lr_page_node(p) == 1,
		       "fallback went to node %d", p ? lr_page_node(p) : -1);
	pg[n++] = p;
	p = lr_alloc_pages(0, 4, 0);
	LR_TEST_ASSERT(p != NULL && lr_page_node(p) == 1,
		       "zone-path fallback went to node %d",
		       p ? lr_page_node(p) : -1);
	lr_free_pages(p, 4);
	n = drain_node(1, LR_ALLOC_THISNODE, pg, n, cap);
	p = lr_alloc_pages(LR_SOCKET_ID_ANY, 0, 0);
	LR_TEST_ASSERT(p != NULL && lr_page_node(p) == 2,
		       "second fallback went to node %d",
		       p ? lr_page_node(p) : -1);
	pg[n++] = p;
	/* From node 2, node 1 is nearer than node 0. */
	n = drain_node(2, LR_ALLOC_THISNODE, pg, n, cap);
	p = lr_alloc_pages(2, 0, LR_ALLOC_RESERVE);
	LR_TEST_ASSERT(p != NULL && lr_page_node(p) == 2, "reserve on node 2");
	pg[n++] = p;
	LR_TEST_ASSERT(lr_alloc_pages(2, 0, 0) == NULL,
		       "every node is below min");
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	lr_free_pages_bulk(pg, (unsigned)n, 0);
	lr_pagealloc_drain_lcore(lr_lcore_id());
	for (int i = 0; i < 3; i++) {
		struct lr_pagealloc_zone_info z;

		LR_TEST_ASSERT_EQ(zinfo(i, &z), 0);
		LR_TEST_ASSERT_EQ(z.free, z.pages);
	}
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	lr_pagealloc_dump(stdout);
	free(pg);
	lr_eal_cleanup();
	/* The option lasts one build only. */
	LR_TEST_ASSERT(eal_up() == 0, "eal init");
	LR_TEST_ASSERT_EQ(lr_pagealloc_zone_count(), 1);
	lr_eal_cleanup();
	return 0;
}

/* --------------------------------------------- migratetypes and reserve */

static unsigned long
free_of_type(const struct lr_pagealloc_zone_info *zi, unsigned mt)
{
	unsigned long t = 0;

	for (unsigned o = 0; o < LR_MAX_ORDER; o++)
		t += zi->nr_free[o][mt] << o;
	return t;
}

static int
test_migratetype(void)
{
	struct lr_pagealloc_stats s0, s1, s2;
	struct lr_pagealloc_zone_info zi0, zi;
	struct lr_page *p1, *p2, *q, **pg;
	size_t n = 0;

	LR_TEST_ASSERT(eal_up() == 0, "eal init");
	LR_TEST_ASSERT_EQ(zinfo(0, &zi0), 0);
	LR_TEST_ASSERT_EQ(free_of_type(&zi0, LR_MT_PINNED), 0);
	LR_TEST_ASSERT_EQ(free_of_type(&zi0, LR_MT_RESERVE), zi0.reserve);
	lr_pagealloc_stats_get(&s0);
	/* No pinned pageblock yet: the first pinned block falls back to
	 * the movable lists and steals a whole max-order block. */
	p1 = lr_alloc_pages(LR_SOCKET_ID_ANY, 0, LR_ALLOC_PINNED);
	LR_TEST_ASSERT(p1 != NULL, "pinned alloc");
	LR_TEST_ASSERT_EQ(lr_page_migratetype(p1), LR_MT_PINNED);
	lr_pagealloc_stats_get(&s1);
	LR_TEST_ASSERT(s1.fallback - s0.fallback == 1, "fallbacks %lu",
		       (unsigned long)(s1.fallback - s0.fallback));
	LR_TEST_ASSERT(s1.steal - s0.steal >= 1, "no pageblock stolen");
	LR_TEST_ASSERT_EQ(zinfo(0, &zi), 0);
	/* The rest of the stolen pageblocks is free, on the zone's pinned
	 * lists or (a refill's batch) on this lcore's pinned list. */
	LR_TEST_ASSERT_EQ(free_of_type(&zi, LR_MT_PINNED) + zi.pcp,
			  (s1.steal - s0.steal) * LR_PAGEBLOCK_PAGES - 1);
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	/* The next pinned blocks come from the stolen pageblocks, with no
	 * further fallback. */
	p2 = lr_alloc_pages(LR_SOCKET_ID_ANY, 3, LR_ALLOC_PINNED);
	LR_TEST_ASSERT(p2 != NULL, "pinned alloc");
	LR_TEST_ASSERT_EQ(lr_page_migratetype(p2), LR_MT_PINNED);
	LR_TEST_ASSERT(((uintptr_t)lr_page_address(p1) >> 22) ==
			   ((uintptr_t)lr_page_address(p2) >> 22),
		       "pinned blocks %p and %p are apart", lr_page_address(p1),
		       lr_page_address(p2));
	lr_pagealloc_stats_get(&s2);
	LR_TEST_ASSERT_EQ(s2.fallback, s1.fallback);
	LR_TEST_ASSERT_EQ(s2.steal, s1.steal);
	/* Movable blocks stay out of pinned pageblocks while they can. */
	q = lr_alloc_pages(LR_SOCKET_ID_ANY, 4, 0);
	LR_TEST_ASSERT(q != NULL, "movable alloc");
	LR_TEST_ASSERT_EQ(lr_page_migratetype(q), LR_MT_MOVABLE);
	lr_free_pages(q, 4);

	/* Exhaust movable memory: the pinned pageblocks' free blocks are
	 * used by fallback before the allocation fails; the reserve is
	 * left alone. */
	pg = malloc(zi0.pages * sizeof(*pg));
	LR_TEST_ASSERT(pg != NULL, "malloc");
	n = drain_node(0, 0, pg, 0, zi0.pages);
	lr_pagealloc_stats_get(&s1);
	LR_TEST_ASSERT(s1.fallback > s2.fallback, "no fallback to pinned");
	LR_TEST_ASSERT_EQ(zinfo(0, &zi), 0);
	LR_TEST_ASSERT_EQ(free_of_type(&zi, LR_MT_PINNED), 0);
	LR_TEST_ASSERT_EQ(free_of_type(&zi, LR_MT_MOVABLE), 0);
	LR_TEST_ASSERT_EQ(free_of_type(&zi, LR_MT_RESERVE), zi0.reserve);
	size_t in_pinned = 0;

	for (size_t i = 0; i < n; i++)
		in_pinned += ((uintptr_t)lr_page_address(pg[i]) >> 22) ==
			     ((uintptr_t)lr_page_address(p1) >> 22);
	LR_TEST_ASSERT(in_pinned > 0, "no movable page in the pinned blocks");
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	lr_free_pages_bulk(pg, (unsigned)n, 0);
	lr_free_pages(p1, 0);
	lr_free_pages(p2, 3);
	lr_pagealloc_drain_lcore(lr_lcore_id());
	LR_TEST_ASSERT_EQ(zinfo(0, &zi), 0);
	LR_TEST_ASSERT_EQ(zi.free, zi.pages);
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	lr_pagealloc_dump(stdout);
	free(pg);
	lr_eal_cleanup();
	return 0;
}

static int
test_reserve(void)
{
	struct lr_pagealloc_zone_info zi0, zi;
	struct lr_page **pg, *p;
	size_t n, r;

	LR_TEST_ASSERT(eal_up() == 0, "eal init");
	LR_TEST_ASSERT_EQ(zinfo(0, &zi0), 0);
	LR_TEST_ASSERT(zi0.reserve > 0 && zi0.wmark_min == zi0.reserve,
		       "reserve %lu min %lu", zi0.reserve, zi0.wmark_min);
	pg = malloc(zi0.pages * sizeof(*pg));
	LR_TEST_ASSERT(pg != NULL, "malloc");
	/* Ordinary requests stop at the min watermark ... */
	n = drain_node(LR_SOCKET_ID_ANY, 0, pg, 0, zi0.pages);
	LR_TEST_ASSERT_EQ(lr_errno, ENOMEM);
	LR_TEST_ASSERT_EQ(zinfo(0, &zi), 0);
	LR_TEST_ASSERT(zi.free <= zi.wmark_min, "free %lu above min %lu",
		       zi.free, zi.wmark_min);
	LR_TEST_ASSERT_EQ(n, zi0.pages - zi0.reserve);
	LR_TEST_ASSERT(lr_alloc_pages(LR_SOCKET_ID_ANY, 2, 0) == NULL,
		       "order 2 below min");
	LR_TEST_ASSERT(lr_alloc_pages(LR_SOCKET_ID_ANY, 2, LR_ALLOC_PINNED) ==
			   NULL,
		       "pinned below min");
	/* ... below it, only reserve requests succeed, from the reserve
	 * pageblocks. */
	p = lr_alloc_pages(LR_SOCKET_ID_ANY, 0, LR_ALLOC_RESERVE);
	LR_TEST_ASSERT(p != NULL, "reserve alloc: %s", lr_strerror(lr_errno));
	LR_TEST_ASSERT_EQ(lr_page_migratetype(p), LR_MT_RESERVE);
	pg[n++] = p;
	r = drain_node(LR_SOCKET_ID_ANY, LR_ALLOC_RESERVE, pg, n, zi0.pages) -
	    n;
	LR_TEST_ASSERT_EQ(r + 1, zi0.reserve);
	n += r;
	LR_TEST_ASSERT_EQ(zinfo(0, &zi), 0);
	LR_TEST_ASSERT_EQ(zi.free, 0);
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	lr_free_pages_bulk(pg, (unsigned)n, 0);
	lr_pagealloc_drain_lcore(lr_lcore_id());
	LR_TEST_ASSERT_EQ(zinfo(0, &zi), 0);
	LR_TEST_ASSERT_EQ(zi.free, zi.pages);
	LR_TEST_ASSERT(memcmp(zi.nr_free, zi0.nr_free, sizeof(zi.nr_free)) == 0,
		       "the reserve did not come back whole");
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	free(pg);
	lr_eal_cleanup();
	return 0;
}

/* ------------------------------------------------------------ shrinkers */

struct cache {
	struct lr_page *pg[64];
	unsigned n;
	unsigned calls;
	int node;
	unsigned long asked;
	unsigned long free_at_call, low;
};

static unsigned long
cache_scan(void *arg, int node, unsigned long nr)
{
	struct cache *c = arg;
	struct lr_pagealloc_zone_info zi;
	unsigned long freed = 0;

	c->calls++;
	c->node = node;
	c->asked = nr;
	if (lr_pagealloc_zone_info(node, &zi) == 0) {
		c->free_at_call = zi.free;
		c->low = zi.wmark_low;
	}
	while (c->n > 0 && freed < nr) {
		lr_free_pages(c->pg[--c->n], 0);
		freed++;
	}
	return freed;
}

static int
test_shrinker(void)
{
	struct lr_pagealloc_zone_info zi0;
	struct lr_pagealloc_stats s0, s1;
	struct cache c = {.n = 0};
	struct lr_page **pg, *held[64], *p;
	unsigned k;
	size_t n;
	int id;

	LR_TEST_ASSERT(eal_up() == 0, "eal init");
	LR_TEST_ASSERT_EQ(zinfo(0, &zi0), 0);
	pg = malloc(zi0.pages * sizeof(*pg));
	LR_TEST_ASSERT(pg != NULL, "malloc");
	n = drain_node(LR_SOCKET_ID_ANY, 0, pg, 0, zi0.pages);
	/* A cache (as a page pool would be) holds the last k pages; what it
	 * gives back fits on the lcore's list. */
	k = (unsigned)LR_MIN(64UL, zi0.high / 2);
	LR_TEST_ASSERT(n > k, "allocated %zu", n);
	for (unsigned i = 0; i < k; i++)
		c.pg[c.n++] = held[i] = pg[--n];
	id = lr_pagealloc_register_shrinker(cache_scan, &c);
	LR_TEST_ASSERT(id >= 0, "register: %d", id);
	lr_pagealloc_stats_get(&s0);
	/* Below low, the allocator asks the cache before failing, and the
	 * cache's pages satisfy the allocation. */
	p = lr_alloc_pages(LR_SOCKET_ID_ANY, 0, 0);
	LR_TEST_ASSERT(p != NULL, "alloc under pressure failed");
	LR_TEST_ASSERT_EQ(c.calls, 1);
	LR_TEST_ASSERT_EQ(c.node, 0);
	LR_TEST_ASSERT(c.asked >= 1, "asked for %lu", c.asked);
	LR_TEST_ASSERT(c.free_at_call < c.low,
		       "called with free %lu >= low %lu", c.free_at_call,
		       c.low);
	bool from_cache = false;

	for (unsigned i = 0; i < k; i++)
		from_cache |= held[i] == p;
	LR_TEST_ASSERT(from_cache, "the page did not come from the cache");
	pg[n++] = p;
	lr_pagealloc_stats_get(&s1);
	LR_TEST_ASSERT_EQ(s1.shrink - s0.shrink, 1);
	/* The rest of what it gave back serves the next requests. */
	for (unsigned i = 1; i < k - c.n; i++) {
		p = lr_alloc_pages(LR_SOCKET_ID_ANY, 0, 0);
		LR_TEST_ASSERT(p != NULL, "alloc %u", i);
		pg[n++] = p;
	}
	LR_TEST_ASSERT_EQ(c.calls, 1);
	LR_TEST_ASSERT_EQ(lr_pagealloc_unregister_shrinker(id), 0);
	LR_TEST_ASSERT_EQ(lr_pagealloc_unregister_shrinker(id), -ENOENT);
	LR_TEST_ASSERT(lr_alloc_pages(LR_SOCKET_ID_ANY, 0, 0) == NULL,
		       "memory from nowhere");
	LR_TEST_ASSERT_EQ(c.calls, 1);
	for (unsigned i = 0; i < c.n; i++)
		pg[n++] = c.pg[i];
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	lr_free_pages_bulk(pg, (unsigned)n, 0);
	lr_pagealloc_drain_lcore(lr_lcore_id());
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	struct lr_pagealloc_zone_info zi;

	LR_TEST_ASSERT_EQ(zinfo(0, &zi), 0);
	LR_TEST_ASSERT_EQ(zi.free, zi.pages);
	free(pg);
	lr_eal_cleanup();
	return 0;
}

/* ------------------------------------------------------ poison (debug) */

static int
test_debug_poison(void)
{
	struct lr_pagealloc_zone_info zi;
	struct lr_page *p, *q;
	uint8_t *a;
	const char *log;
	char want[160];

	if (!LR_PAGEALLOC_DEBUG) {
		printf("debug_poison: skipped: poisoning is in the debug build "
		       "only (meson setup -Dpagealloc_debug=true)\n");
		return LR_TEST_SKIP;
	}
	LR_TEST_ASSERT(eal_up() == 0, "eal init");
	p = lr_alloc_pages(LR_SOCKET_ID_ANY, 0, 0);
	LR_TEST_ASSERT(p != NULL, "alloc");
	a = lr_page_address(p);
	memset(a, 1, LR_PAGE_SIZE);
	lr_free_pages(p, 0);
	LR_TEST_ASSERT(a[0] == 0x6b && a[LR_PAGE_SIZE - 1] == 0x6b,
		       "free page not poisoned");
	/* A write after free ... */
	a[100] = 0;
	/* ... is caught when the page would be handed out again. */
	lr_test_log_begin();
	q = lr_alloc_pages(LR_SOCKET_ID_ANY, 0, 0);
	log = lr_test_log_end();
	LR_TEST_ASSERT(q != NULL && q != p, "the poisoned page came back");
	snprintf(want, sizeof(want),
		 "page %p (addr %p): use after free: poison overwritten at "
		 "offset 100",
		 (void *)p, (void *)a);
	LR_TEST_ASSERT_EQ(expect_log(log, want), 0);
	LR_TEST_ASSERT_EQ(zinfo(0, &zi), 0);
	LR_TEST_ASSERT_EQ(zi.bad, 1);
	lr_free_pages(q, 0);
	/* Every page of a block is checked, in the zone path too. */
	p = lr_alloc_pages(LR_SOCKET_ID_ANY, 6, 0);
	LR_TEST_ASSERT(p != NULL, "alloc");
	a = lr_page_address(p);
	lr_free_pages(p, 6);
	a[5 * LR_PAGE_SIZE + 7] = 0;
	lr_test_log_begin();
	q = lr_alloc_pages(LR_SOCKET_ID_ANY, 6, 0);
	log = lr_test_log_end();
	LR_TEST_ASSERT(q != NULL && q != p, "the poisoned block came back");
	LR_TEST_ASSERT_EQ(expect_log(log, "poison overwritten at offset 7"), 0);
	lr_free_pages(q, 6);
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	lr_eal_cleanup();
	return 0;
}

#define REGISTER_CASE(fn)                                                      \
	{                                                                      \
#fn + 5, fn                                                    \
	}

static const struct lr_test_case cases[] = {
    REGISTER_CASE(test_standalone),
    REGISTER_CASE(test_basics),
    REGISTER_CASE(test_split_merge),
    REGISTER_CASE(test_alignment),
    REGISTER_CASE(test_alloc_all_free_all),
    REGISTER_CASE(test_pcp_batches),
    REGISTER_CASE(test_pcp_types),
    REGISTER_CASE(test_bulk),
    REGISTER_CASE(test_zeroing),
    REGISTER_CASE(test_random_2lcores),
    REGISTER_CASE(test_bad_input),
    REGISTER_CASE(test_bad_input_zone_path),
    REGISTER_CASE(test_numa_fake),
    REGISTER_CASE(test_migratetype),
    REGISTER_CASE(test_reserve),
    REGISTER_CASE(test_shrinker),
    REGISTER_CASE(test_debug_poison),
};

LR_TEST_MAIN("pagealloc", cases)
