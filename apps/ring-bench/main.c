/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr-ring-bench: cycles per item of the lock-free ring, SP/SC and MP/MC,
 * at bulk sizes 1, 8, 32 and 128.
 *
 *   lr-ring-bench [EAL options] -- [--iterations N] [--runs R]
 *   e.g. lr-ring-bench -l 0-1 --no-huge -- --iterations 1000000
 *
 * (a) one lcore: enqueue n then dequeue n, timed in samples of 4096 call
 *     pairs; prints cycles per enqueue+dequeue call pair (the unit of
 *     DPDK's ring_perf_autotest "single"/"bulk" lines multiplied by n) and
 *     per item, as the minimum and the median over the samples.
 * (b) two lcores (when -l gives two): the main lcore produces, a worker
 *     consumes, each spinning on a full/empty ring; prints cycles per item
 *     on each side, minimum and median of R runs of N/8 items.
 * (c) two lcores: one cache line's round trip between them (each waits
 *     for the other's store to a line of its own), the floor of every
 *     hand-over between two CPUs. On a VM it tells where the host put the
 *     two vCPUs: bench/comparisons/vhost.py labels each run with it.
 *     --line-rtt N prints this figure alone, over N round trips; with
 *     --every MS, again every MS ms until a stop signal (both lcores sleep
 *     in between: a probe beside other programs).
 * The bulk size is a run-time value: nothing is specialised for a constant
 * n. Exit status (lr_app.h): 0 done, 1 run-time failure, 2 usage error.
 */
#include <getopt.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lr_app.h"
#include "lr_eal.h"
#include "lr_ring.h"

#define RING_SIZE 4096
#define MAX_BULK  128
#define MAX_RUNS  31
#define PROG	  "lr-ring-bench"
#define LINE_TRIPS 100000 /* (c)'s round trips by default */

static const unsigned bulk_sizes[] = {1, 8, 32, 128};

static unsigned long iterations = 1u << 21;
static unsigned long runs = 15;
static unsigned long line_rtt; /* --line-rtt: (c) alone, this many trips */
static unsigned long every_ms; /* --every: (c) again after this many ms */

static void *objs_in[MAX_BULK];
static void *objs_out[MAX_BULK] __lr_cache_aligned;

enum mode { MODE_SPSC, MODE_MPMC };
static const char *const mode_name[] = {"SP/SC", "MP/MC"};

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct stat2 {
	double min, median;
};

static struct stat2
summarise(double *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return (struct stat2){v[0], v[n / 2]};
}

/* ---- (a) one lcore ---- */

/* Enqueue then dequeue one object per call, iters times; total cycles. */
static __attribute__((noinline)) uint64_t
single_pairs(struct lr_ring *r, enum mode m, unsigned long iters)
{
	void *o = objs_in[0], *out = NULL;
	uint64_t t0 = lr_get_tsc_cycles();

	if (m == MODE_SPSC) {
		for (unsigned long i = 0; i < iters; i++) {
			lr_ring_sp_enqueue(r, o);
			lr_ring_sc_dequeue(r, &out);
		}
	} else {
		for (unsigned long i = 0; i < iters; i++) {
			lr_ring_mp_enqueue(r, o);
			lr_ring_mc_dequeue(r, &out);
		}
	}
	objs_out[0] = out;
	return lr_get_tsc_cycles() - t0;
}

/* Enqueue then dequeue n objects per call, iters times; total cycles. */
static __attribute__((noinline)) uint64_t
bulk_pairs(struct lr_ring *r, enum mode m, unsigned n, unsigned long iters)
{
	uint64_t t0 = lr_get_tsc_cycles();

	if (m == MODE_SPSC) {
		for (unsigned long i = 0; i < iters; i++) {
			lr_ring_sp_enqueue_bulk(r, objs_in, n, NULL);
			lr_ring_sc_dequeue_bulk(r, objs_out, n, NULL);
		}
	} else {
		for (unsigned long i = 0; i < iters; i++) {
			lr_ring_mp_enqueue_bulk(r, objs_in, n, NULL);
			lr_ring_mc_dequeue_bulk(r, objs_out, n, NULL);
		}
	}
	return lr_get_tsc_cycles() - t0;
}

/* Pairs per timed sample: short enough (well under a scheduler tick) that
 * most samples run undisturbed on a shared machine; the minimum over many
 * samples is the cost, the median shows the spread. */
#define SAMPLE_PAIRS 4096

static double *samples;
static unsigned nb_samples;

static void
bench_one_lcore(struct lr_ring *r)
{
	printf("\n(a) one lcore (lcore %u), enqueue then dequeue; %u samples "
	       "of %u call pairs: min / median\n",
	       lr_lcore_id(), nb_samples, SAMPLE_PAIRS);
	printf("%-6s %-8s %22s %22s\n", "mode", "n", "cycles per call pair",
	       "cycles per item");
	for (int m = MODE_SPSC; m <= MODE_MPMC; m++) {
		struct stat2 s;

		single_pairs(r, m, SAMPLE_PAIRS); /* warm up */
		for (unsigned k = 0; k < nb_samples; k++)
			samples[k] = (double)single_pairs(r, m, SAMPLE_PAIRS) /
				     SAMPLE_PAIRS;
		s = summarise(samples, nb_samples);
		printf("%-6s %-8s %10.1f / %-9.1f %10.2f / %-9.2f\n",
		       mode_name[m], "single", s.min, s.median, s.min,
		       s.median);
		for (unsigned b = 0; b < LR_DIM(bulk_sizes); b++) {
			/* volatile: keep n a run-time value */
			volatile unsigned nv = bulk_sizes[b];
			unsigned n = nv;

			bulk_pairs(r, m, n, SAMPLE_PAIRS);
			for (unsigned k = 0; k < nb_samples; k++)
				samples[k] =
				    (double)bulk_pairs(r, m, n, SAMPLE_PAIRS) /
				    SAMPLE_PAIRS;
			s = summarise(samples, nb_samples);
			printf(
			    "%-6s bulk %-3u %10.1f / %-9.1f %10.2f / %-9.2f\n",
			    mode_name[m], n, s.min, s.median, s.min / n,
			    s.median / n);
		}
	}
}

/* ---- (b) two lcores ---- */

struct pair_arg {
	struct lr_ring *r;
	enum mode m;
	unsigned n;
	unsigned long items;
	_Atomic int go;
	uint64_t cycles; /* consumer side */
};

static int
consumer_lcore(void *p)
{
	struct pair_arg *a = p;
	void *out[MAX_BULK];
	unsigned long got = 0;
	const unsigned n = a->n;

	while (!atomic_load_explicit(&a->go, memory_order_acquire))
		lr_pause();
	uint64_t t0 = lr_get_tsc_cycles();

	if (a->m == MODE_SPSC) {
		while (got < a->items) {
			while (lr_ring_sc_dequeue_bulk(a->r, out, n, NULL) == 0)
				lr_pause();
			got += n;
		}
	} else {
		while (got < a->items) {
			while (lr_ring_mc_dequeue_bulk(a->r, out, n, NULL) == 0)
				lr_pause();
			got += n;
		}
	}
	a->cycles = lr_get_tsc_cycles() - t0;
	objs_out[0] = out[0];
	return 0;
}

/* Producer side on the calling lcore; its cycles. */
static uint64_t
producer_run(struct pair_arg *a)
{
	unsigned long put = 0;
	const unsigned n = a->n;

	atomic_store_explicit(&a->go, 1, memory_order_release);
	uint64_t t0 = lr_get_tsc_cycles();

	if (a->m == MODE_SPSC) {
		while (put < a->items) {
			while (lr_ring_sp_enqueue_bulk(a->r, objs_in, n,
						       NULL) == 0)
				lr_pause();
			put += n;
		}
	} else {
		while (put < a->items) {
			while (lr_ring_mp_enqueue_bulk(a->r, objs_in, n,
						       NULL) == 0)
				lr_pause();
			put += n;
		}
	}
	return lr_get_tsc_cycles() - t0;
}

static int
bench_two_lcores(struct lr_ring *r)
{
	unsigned worker = lr_get_next_lcore(lr_lcore_id(), 1, 1);
	double vp[MAX_RUNS], vc[MAX_RUNS];
	/* short runs: on a shared machine some run with both lcores undisturbed
	 */
	unsigned long items = LR_MAX(iterations / 8, 1024ul);

	if (lr_lcore_count() < 2 || worker >= LR_MAX_LCORE) {
		printf(
		    "\n(b) two lcores: skipped, only one lcore (use -l 0-1)\n");
		return 0;
	}
	printf("\n(b) two lcores: producer lcore %u (CPU %d), consumer lcore "
	       "%u (CPU %d), %lu items per run, %lu runs: min / median\n",
	       lr_lcore_id(), lr_lcore_to_cpu_id(lr_lcore_id()), worker,
	       lr_lcore_to_cpu_id(worker), items, runs);
	printf("%-6s %-8s %22s %22s\n", "mode", "n", "producer cycles/item",
	       "consumer cycles/item");
	for (int m = MODE_SPSC; m <= MODE_MPMC; m++) {
		for (unsigned b = 0; b < LR_DIM(bulk_sizes); b++) {
			unsigned n = bulk_sizes[b];
			struct stat2 sp, sc;

			for (unsigned k = 0; k < runs; k++) {
				struct pair_arg a = {
				    .r = r, .m = m, .n = n, .items = items};
				int rc = lr_eal_remote_launch(consumer_lcore,
							      &a, worker);

				if (rc < 0) {
					fprintf(
					    stderr,
					    "lr-ring-bench: launch on lcore "
					    "%u: %s\n",
					    worker, lr_strerror(-rc));
					return rc;
				}
				vp[k] =
				    (double)producer_run(&a) / (double)items;
				lr_eal_wait_lcore(worker);
				vc[k] = (double)a.cycles / (double)items;
			}
			sp = summarise(vp, (unsigned)runs);
			sc = summarise(vc, (unsigned)runs);
			printf(
			    "%-6s bulk %-3u %10.2f / %-9.2f %10.2f / %-9.2f\n",
			    mode_name[m], n, sp.min, sp.median, sc.min,
			    sc.median);
		}
	}
	return 0;
}

/* ---- (c) a cache line's round trip ---- */

struct rtt_arg {
	_Atomic uint64_t ping __lr_cache_aligned; /* written by the main lcore */
	_Atomic uint64_t pong __lr_cache_aligned; /* written by the worker */
	unsigned long trips;
};

static int
pong_lcore(void *p)
{
	struct rtt_arg *a = p;

	for (uint64_t i = 1; i <= a->trips; i++) {
		while (atomic_load_explicit(&a->ping, memory_order_acquire) != i)
			;
		atomic_store_explicit(&a->pong, i, memory_order_release);
	}
	return 0;
}

/* Figure (c) over trips round trips; 0, or a launch error. */
static int
bench_line_rtt(unsigned long trips)
{
	unsigned worker = lr_get_next_lcore(lr_lcore_id(), 1, 1);
	static struct rtt_arg a;
	uint64_t t0, t;
	int rc;

	if (lr_lcore_count() < 2 || worker >= LR_MAX_LCORE) {
		printf("\n(c) line round trip: skipped, only one lcore (use -l "
		       "0-1)\n");
		return 0;
	}
	atomic_store(&a.ping, 0);
	atomic_store(&a.pong, 0);
	a.trips = trips;
	rc = lr_eal_remote_launch(pong_lcore, &a, worker);
	if (rc < 0) {
		fprintf(stderr, "lr-ring-bench: launch on lcore %u: %s\n",
			worker, lr_strerror(-rc));
		return rc;
	}
	t0 = lr_get_tsc_cycles();
	for (uint64_t i = 1; i <= trips; i++) {
		atomic_store_explicit(&a.ping, i, memory_order_release);
		while (atomic_load_explicit(&a.pong, memory_order_acquire) != i)
			;
	}
	t = lr_get_tsc_cycles() - t0;
	lr_eal_wait_lcore(worker);
	printf("\n(c) line round trip: lcore %u (CPU %d) <-> lcore %u (CPU %d): "
	       "%.1f cycles, %.1f ns (%lu trips)\n",
	       lr_lcore_id(), lr_lcore_to_cpu_id(lr_lcore_id()), worker,
	       lr_lcore_to_cpu_id(worker), (double)t / (double)trips,
	       (double)t / (double)trips * 1e9 / (double)lr_get_tsc_hz(),
	       trips);
	return 0;
}

/* Figure (c) every every_ms ms until a stop signal; 0, or an error. */
static int
line_rtt_every(unsigned long trips)
{
	struct timespec ts = {(time_t)(every_ms / 1000),
			      (long)(every_ms % 1000) * 1000000};
	int rc = lr_eal_stop_handler_install(NULL);

	if (rc < 0) {
		fprintf(stderr, "lr-ring-bench: stop handler: %s\n",
			lr_strerror(-rc));
		return rc;
	}
	while (rc == 0 && !lr_eal_stop_requested()) {
		rc = bench_line_rtt(trips);
		fflush(stdout);
		if (rc == 0 && !lr_eal_stop_requested())
			nanosleep(&ts, NULL); /* a signal ends it early */
	}
	return rc;
}

static void
usage(FILE *f, const char *prog)
{
	fprintf(
	    f,
	    "usage: %s [EAL options] -- [--iterations N] [--runs R] "
	    "[--line-rtt N [--every MS]]\n"
	    "  --iterations N  call pairs per figure on one lcore, timed in "
	    "samples of %d\n"
	    "                  (default %lu); each two-lcore run moves N/8 "
	    "items\n"
	    "  --runs R        two-lcore runs per figure, 1..%d (default "
	    "%lu)\n"
	    "  --line-rtt N    only figure (c), a cache line's round trip "
	    "between two\n"
	    "                  lcores, over N trips (without it: after (a) "
	    "and (b), %d)\n"
	    "  --every MS      with --line-rtt: again every MS ms, until "
	    "a stop signal\n"
	    "  -h, --help      this text\n",
	    prog, SAMPLE_PAIRS, iterations, MAX_RUNS, runs, LINE_TRIPS);
}

int
main(int argc, char **argv)
{
	static const struct lr_app app = {PROG, usage};
	static const struct lr_app_num_opt opt[] = {
	    {"iterations", 'i', 1, UINT32_MAX, &iterations, NULL},
	    {"runs", 'r', 1, MAX_RUNS, &runs, NULL},
	    {"line-rtt", 'L', 1, UINT32_MAX, &line_rtt, NULL},
	    {"every", 'E', 1, 60000, &every_ms, NULL},
	    {NULL, 0, 0, 0, NULL, NULL},
	};
	static struct lr_app_nums nums = {usage, 0, opt};
	struct lr_ring *r;
	int status, ret;

	if (lr_app_start(&app, argc, argv, lr_app_parse_nums, &nums, &status) <
	    0)
		return status;
	if (every_ms != 0 && line_rtt == 0) {
		fprintf(stderr, "lr-ring-bench: --every needs --line-rtt\n");
		lr_eal_cleanup();
		return LR_EXIT_USAGE;
	}
	nb_samples = (unsigned)LR_MAX(iterations / SAMPLE_PAIRS, 1ul);
	samples = malloc(sizeof(*samples) * LR_MAX(nb_samples, MAX_RUNS));
	if (samples == NULL) {
		fprintf(stderr, "lr-ring-bench: out of memory\n");
		lr_eal_cleanup();
		return LR_EXIT_FAILURE;
	}
	for (unsigned i = 0; i < MAX_BULK; i++)
		objs_in[i] = (void *)(uintptr_t)(0x1000 + 64 * i);

	r = lr_ring_create("ring_bench", RING_SIZE, lr_socket_id(), 0);
	if (r == NULL) {
		fprintf(stderr, "lr-ring-bench: ring: %s\n",
			lr_strerror(lr_errno));
		lr_eal_cleanup();
		return LR_EXIT_FAILURE;
	}
	printf("lr-ring-bench: ring of %u slots, %s, TSC %.2f GHz, "
	       "cache line %d\n",
	       RING_SIZE, LR_ARCH_NAME, (double)lr_get_tsc_hz() / 1e9,
	       LR_CACHE_LINE_SIZE);
	if (every_ms != 0) {
		ret = line_rtt_every(line_rtt);
	} else if (line_rtt != 0) {
		ret = bench_line_rtt(line_rtt);
	} else {
		bench_one_lcore(r);
		ret = bench_two_lcores(r);
		if (ret == 0)
			ret = bench_line_rtt(LINE_TRIPS);
	}
	lr_ring_free(r);
	free(samples);
	lr_eal_cleanup();
	return ret < 0 ? LR_EXIT_FAILURE : LR_EXIT_OK;
}
