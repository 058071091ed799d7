/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr-page-pool-bench: cycles per page for alloc + put through each path of
 * the page pool, printed beside the Linux page_pool figures (Jesper
 * Brouer's bench_page_pool_simple: 19-22 fast, 54-60 ptr_ring, 238 slow)
 * and the targets of linerate issue 4 (fast <= 10, ring <= 40, slow <= 80).
 *
 *   lr-page-pool-bench [EAL options] [-- -n PAGES -r REPEATS]
 *
 * Without EAL options it runs with --no-huge -m 256 on lcores 0-1 (lcore 0
 * only on a one-CPU machine; the putter is then an unpinned thread).
 * Figures are TSC ticks per page. The one-lcore paths are timed in windows
 * of WINDOW pages (the TSC is read once per window, its cost spread over
 * the window) and report the minimum over all windows of all repeats, as
 * lr-pagealloc-bench does: on a shared machine a whole-run figure mostly
 * measures the other processes. The two-thread paths time each side's
 * pool calls per burst and report the median burst.
 * Exit status (lr_app.h): 0 done, 1 run-time failure, 2 usage error.
 */
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lr_app.h"
#include "lr_eal.h"
#include "lr_page_pool.h"
#include "lr_ring.h"

#define BURST  32
#define WINDOW 1024 /* pages per timed window */

#define PROG "lr-page-pool-bench"

static unsigned long npages = 2000000;
static unsigned long repeats = 5;

static struct lr_page_pool *
make_pool(const char *name, unsigned size, unsigned ring_size)
{
	struct lr_page_pool_params p = {
	    .name = name,
	    .pool_size = size,
	    .ring_size = ring_size,
	    .nid = LR_SOCKET_ID_ANY,
	    .owner_lcore = LR_LCORE_ID_ANY,
	    .flags = LR_PP_FLAG_DMA_MAP,
	    .dma_dir = LR_DMA_FROM_DEVICE,
	};
	struct lr_page_pool *pool = lr_page_pool_create(&p);

	if (pool == NULL) {
		fprintf(stderr, "lr-page-pool-bench: pool '%s': %s\n", name,
			lr_strerror(lr_errno));
		exit(1);
	}
	return pool;
}

static double
best(double a, double b)
{
	return a < b ? a : b;
}

/* Direct recycle: alloc and put on the owner, the cache never empties. */
static double
bench_fast(void)
{
	struct lr_page_pool *pool = make_pool("bench-fast", 1024, 0);
	double r = 1e30;

	lr_page_pool_put(pool, lr_page_pool_alloc(pool), 0, 1);
	for (unsigned rep = 0; rep < repeats; rep++) {
		for (unsigned long w = 0; w < npages; w += WINDOW) {
			uint64_t t0 = lr_get_tsc_cycles();

			for (unsigned i = 0; i < WINDOW; i++) {
				struct lr_page *pg = lr_page_pool_alloc(pool);

				lr_page_pool_put(pool, pg, 0, 1);
			}
			r = best(r,
				 (double)(lr_get_tsc_cycles() - t0) / WINDOW);
		}
	}
	lr_page_pool_free(pool);
	return r;
}

/* Ring path on one lcore (the kernel bench's ptr_ring case): put with
 * allow_direct == 0 goes into the ring; the next alloc finds the cache
 * empty and refills from the ring. burst 1 is the kernel's loop; a larger
 * burst lets one ring dequeue serve several allocs. */
static double
bench_ring_local(unsigned burst)
{
	struct lr_page_pool *pool = make_pool("bench-ring", 1024, 0);
	struct lr_page *pg[BURST];
	double r = 1e30;

	for (unsigned rep = 0; rep < repeats; rep++) {
		for (unsigned long w = 0; w < npages; w += WINDOW) {
			uint64_t t0 = lr_get_tsc_cycles();

			for (unsigned i = 0; i < WINDOW; i += burst) {
				for (unsigned k = 0; k < burst; k++)
					pg[k] = lr_page_pool_alloc(pool);
				for (unsigned k = 0; k < burst; k++)
					lr_page_pool_put(pool, pg[k], 0, 0);
			}
			r = best(r,
				 (double)(lr_get_tsc_cycles() - t0) / WINDOW);
		}
	}
	lr_page_pool_free(pool);
	return r;
}

/* Ring path across threads: the owner allocates bursts and hands them
 * over an SPSC ring; the putter puts them back (into the recycle ring).
 * Like a NIC with a ring of INFLIGHT descriptors, the owner keeps at most
 * INFLIGHT pages handed over and not yet taken: it waits on the hand-over
 * ring, not on the pool (an owner that spins on an empty pool pulls the
 * recycle ring's lines back for every page put, and measures that).
 * Each side times its pool calls per full burst and keeps the median
 * burst, so that preemption by other processes (2 shared CPUs) and the
 * owner's waits for pages still with the putter do not count. */
#define MAX_SAMPLES (1u << 16)
#ifndef INFLIGHT
#define INFLIGHT 256
#endif

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double
median_per_page(uint64_t *v, unsigned n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	return (double)v[n / 2] / BURST;
}

struct xthread {
	struct lr_page_pool *pool;
	struct lr_ring *hand;
	unsigned long pages;
	uint64_t *put_samples;
	unsigned nput;
	unsigned bulk; /* 0: single puts; else put_bulk of this many */
	_Atomic int done;
};

static int
putter(void *arg)
{
	struct xthread *x = arg;
	void *objs[BURST];
	unsigned long got = 0;

	x->nput = 0;
	while (got < x->pages) {
		unsigned n =
		    lr_ring_sc_dequeue_bulk(x->hand, objs, BURST, NULL);

		if (n == 0)
			continue;
		uint64_t t0 = lr_get_tsc_cycles();

		if (x->bulk)
			for (unsigned k = 0; k < n; k += x->bulk)
				lr_page_pool_put_bulk(
				    x->pool, (struct lr_page **)objs + k,
				    LR_MIN(x->bulk, n - k), 0, 0);
		else
			for (unsigned k = 0; k < n; k++)
				lr_page_pool_put(x->pool, objs[k], 0, 0);
		uint64_t t1 = lr_get_tsc_cycles();

		if (x->nput < MAX_SAMPLES)
			x->put_samples[x->nput++] = t1 - t0;
		got += n;
	}
	atomic_store(&x->done, 1);
	return 0;
}

static void *
putter_thread(void *arg)
{
	putter(arg);
	return NULL;
}

static void
bench_ring_xthread(unsigned bulk, double *alloc_c, double *put_c)
{
	struct xthread x = {.bulk = bulk};
	unsigned worker = lr_get_next_lcore(-1, 1, 0);
	pthread_t t;

	uint64_t *asamples = malloc(MAX_SAMPLES * sizeof(uint64_t));

	x.put_samples = malloc(MAX_SAMPLES * sizeof(uint64_t));
	if (asamples == NULL || x.put_samples == NULL) {
		fprintf(stderr, "lr-page-pool-bench: no memory\n");
		exit(1);
	}
	*alloc_c = *put_c = 1e30;
	x.pool = make_pool("bench-xring", 2048, 0);
	x.hand = lr_ring_create("bench-hand", 4096, LR_SOCKET_ID_ANY,
				LR_RING_F_SP_ENQ | LR_RING_F_SC_DEQ);
	if (x.hand == NULL) {
		fprintf(stderr, "lr-page-pool-bench: ring: %s\n",
			lr_strerror(lr_errno));
		exit(1);
	}
	for (unsigned rep = 0; rep < repeats; rep++) {
		struct lr_page *pg[BURST];
		unsigned long sent = 0;
		unsigned na = 0;

		x.pages = npages / 2;
		x.pages -= x.pages % BURST;
		atomic_store(&x.done, 0);
		if (worker < LR_MAX_LCORE)
			lr_eal_remote_launch(putter, &x, worker);
		else
			pthread_create(&t, NULL, putter_thread, &x);
		while (sent < x.pages) {
			unsigned k = 0;

			/* A NIC keeps at most its ring's worth of pages. */
			while (lr_ring_count(x.hand) >= INFLIGHT)
				;
			uint64_t t0 = lr_get_tsc_cycles();

			for (; k < BURST; k++) {
				pg[k] = lr_page_pool_alloc(x.pool);
				if (pg[k] == NULL)
					break; /* all pages with the putter */
			}
			uint64_t t1 = lr_get_tsc_cycles();

			if (k == BURST && na < MAX_SAMPLES)
				asamples[na++] = t1 - t0;
			/* The putter takes whole bursts: top up first. */
			while (k < BURST) {
				pg[k] = lr_page_pool_alloc(x.pool);
				k += pg[k] != NULL;
			}
			while (lr_ring_sp_enqueue_bulk(x.hand, (void **)pg, k,
						       NULL) == 0)
				;
			sent += k;
		}
		if (worker < LR_MAX_LCORE)
			lr_eal_wait_lcore(worker);
		else
			pthread_join(t, NULL);
		*alloc_c = best(*alloc_c, median_per_page(asamples, na));
		*put_c = best(*put_c, median_per_page(x.put_samples, x.nput));
	}
	lr_page_pool_free(x.pool);
	lr_ring_free(x.hand);
	free(asamples);
	free(x.put_samples);
}

/* Slow path: every page leaves the pool after use (the kernel bench's
 * page_pool03_slow: release_page + put_page), so allocs refill from the
 * page allocator, 64 pages a bulk call, each mapped once. With pool_size
 * 1 every alloc goes to the allocator for a single page. */
static double
bench_slow(unsigned pool_size)
{
	struct lr_page_pool *pool = make_pool("bench-slow", pool_size, 0);
	double r = 1e30;
	unsigned long n = npages / 4;

	for (unsigned rep = 0; rep < repeats; rep++) {
		for (unsigned long w = 0; w < n; w += WINDOW) {
			uint64_t t0 = lr_get_tsc_cycles();

			for (unsigned i = 0; i < WINDOW; i++) {
				struct lr_page *pg = lr_page_pool_alloc(pool);

				lr_page_pool_release_page(pool, pg);
			}
			r = best(r,
				 (double)(lr_get_tsc_cycles() - t0) / WINDOW);
		}
	}
	lr_page_pool_free(pool);
	return r;
}

/* Run every path and print its row. */
static void
print_figures(void)
{
	static const unsigned xbulk[] = {0, 8, 32};
	double fast, ring1, ring32, xa[3], xp[3], slow, slow1;

	fast = bench_fast();
	ring1 = bench_ring_local(1);
	ring32 = bench_ring_local(BURST);
	for (unsigned i = 0; i < LR_DIM(xbulk); i++)
		bench_ring_xthread(xbulk[i], &xa[i], &xp[i]);
	slow = bench_slow(1024);
	slow1 = bench_slow(1);

	printf("lr-page-pool-bench: %lu pages x %lu repeats, TSC %.2f GHz, "
	       "page %lu B, %s putter\n"
	       "one-lcore rows: minimum over windows of %d pages; two-thread "
	       "rows: median burst of %d\n",
	       npages, repeats, lr_get_tsc_hz() / 1e9,
	       (unsigned long)LR_PAGE_SIZE,
	       lr_get_next_lcore(-1, 1, 0) < LR_MAX_LCORE ? "lcore"
							  : "unpinned thread",
	       WINDOW, BURST);
	printf("%-44s %10s %10s %8s\n", "path (cycles per alloc+put)",
	       "linerate", "kernel", "target");
	printf("%-44s %10.1f %10s %8s\n", "fast: direct recycle", fast, "19-22",
	       "<= 10");
	printf("%-44s %10.1f %10s %8s\n", "ring: same lcore, burst 1", ring1,
	       "54-60", "<= 40");
	printf("%-44s %10.1f %10s %8s\n", "ring: same lcore, burst 32", ring32,
	       "54-60", "<= 40");
	for (unsigned i = 0; i < LR_DIM(xbulk); i++) {
		char row[64];

		if (xbulk[i] == 0)
			snprintf(row, sizeof(row),
				 "ring: other thread, single puts");
		else
			snprintf(row, sizeof(row),
				 "ring: other thread, put_bulk of %u",
				 xbulk[i]);
		printf("%-44s %10.1f %10s %8s\n", row, xa[i] + xp[i], "54-60",
		       "<= 40");
		printf("%-44s %10.1f\n",
		       "  of which alloc (owner, refill from ring)", xa[i]);
		printf("%-44s %10.1f\n", "  of which put (other thread)",
		       xp[i]);
	}
	printf("%-44s %10.1f %10s %8s\n",
	       "slow: release each page, bulk refill", slow, "238", "<= 80");
	printf("%-44s %10.1f %10s %8s\n",
	       "slow: pool_size 1, every alloc from allocator", slow1, "-",
	       "-");
}

static void
usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [EAL options] [-- [-n PAGES] [-r REPEATS]]\n"
		"  (no EAL options: --no-huge -m 256 -l 0-1 "
		"--file-prefix=pp_bench)\n"
		"  -n, --pages PAGES      pages per timed run, at least %d "
		"(default %lu)\n"
		"  -r, --repeats REPEATS  timed runs per figure (default %lu)\n"
		"  -h, --help             this text\n",
		prog, 4 * WINDOW, npages, repeats);
}

int
main(int argc, char **argv)
{
	static const struct lr_app app = {PROG, usage};
	static const struct lr_app_num_opt opt[] = {
	    {"pages", 'n', 4 * WINDOW, UINT32_MAX, &npages, NULL},
	    {"repeats", 'r', 1, UINT32_MAX, &repeats, NULL},
	    {NULL, 0, 0, 0, NULL, NULL},
	};
	static struct lr_app_nums nums = {usage, 1, opt};
	char *defargs[] = {argv[0],
			   "--no-huge",
			   "-m",
			   "256",
			   "-l",
			   "0-1",
			   "--file-prefix=pp_bench",
			   NULL};
	int status;

	if (argc == 1) {
		if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
			defargs[5] = "0";
		argc = 7;
		argv = defargs;
	}
	if (lr_app_start(&app, argc, argv, lr_app_parse_nums, &nums, &status) <
	    0)
		return status;
	print_figures();
	lr_eal_cleanup();
	return LR_EXIT_OK;
}
