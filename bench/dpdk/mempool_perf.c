/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpdk-mempool-perf: lr-mempool-bench's loops, written against DPDK's
 * rte_mempool and rte_pktmbuf, so that bench/run mempool can run
 * DPDK's code path beside linerate's in the same run, measured the same
 * way. Built by that script against libdpdk (pkg-config), once for
 * Debian's package and once for scripts/dpdk-native.sh's build; not part
 * of the meson build.
 *
 *   dpdk-mempool-perf [EAL options] -- [--objs N] [--reps R]
 *
 * Same pools (8192 objects of 64 bytes; mbuf pool of 8192 with cache 512
 * and the default data room), same loops (get n then put n, alloc_bulk n
 * then free_bulk n, n a compile-time constant), same statistic (minimum
 * over R runs of N objects of TSC cycles per object, each run between two
 * fenced TSC reads) and the same row names and format as lr-mempool-bench:
 *   name | bulk-1 | bulk-8 | bulk-32 | bulk-128   ("-" where not run)
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_version.h>

static unsigned long objs_per_run = 100000;
static unsigned reps = 61;

/* The TSC read in program order, as lr_get_tsc_cycles_fenced(). */
static inline uint64_t
tsc_fenced(void)
{
#if defined(__x86_64__)
	uint32_t lo, hi;

	__asm__ volatile("lfence\n\trdtsc\n\tlfence"
			 : "=a"(lo), "=d"(hi)
			 :
			 : "memory");
	return ((uint64_t)hi << 32) | lo;
#elif defined(__powerpc64__)
	uint64_t tb;

	__asm__ volatile("isync\n\tmfspr %0, 268\n\tisync"
			 : "=r"(tb)
			 :
			 : "memory");
	return tb;
#else
#error "no fenced cycle counter read for this architecture"
#endif
}

/* One timed run of get n / put n; cycles per object. */
#define DEFINE_MP_RUN(N)                                                       \
	static double mp_run_##N(struct rte_mempool *mp)                       \
	{                                                                      \
		void *objs[N];                                                 \
		unsigned long loops = objs_per_run / N;                        \
		uint64_t t0, t1;                                               \
                                                                               \
		t0 = tsc_fenced();                                             \
		for (unsigned long i = 0; i < loops; i++) {                    \
			if (unlikely(rte_mempool_get_bulk(mp, objs, N)))       \
				return -1;                                     \
			rte_mempool_put_bulk(mp, objs, N);                     \
		}                                                              \
		t1 = tsc_fenced();                                             \
		return (double)(t1 - t0) / ((double)loops * N);                \
	}

/* One timed run of alloc_bulk n / free_bulk n; cycles per mbuf. */
#define DEFINE_MBUF_RUN(N)                                                     \
	static double mbuf_run_##N(struct rte_mempool *mp)                     \
	{                                                                      \
		struct rte_mbuf *m[N];                                         \
		unsigned long loops = objs_per_run / N;                        \
		uint64_t t0, t1;                                               \
                                                                               \
		t0 = tsc_fenced();                                             \
		for (unsigned long i = 0; i < loops; i++) {                    \
			if (unlikely(rte_pktmbuf_alloc_bulk(mp, m, N)))        \
				return -1;                                     \
			rte_pktmbuf_free_bulk(m, N);                           \
		}                                                              \
		t1 = tsc_fenced();                                             \
		return (double)(t1 - t0) / ((double)loops * N);                \
	}

DEFINE_MP_RUN(1)
DEFINE_MP_RUN(8)
DEFINE_MP_RUN(32)
DEFINE_MP_RUN(128)
DEFINE_MBUF_RUN(1)
DEFINE_MBUF_RUN(8)
DEFINE_MBUF_RUN(32)
DEFINE_MBUF_RUN(128)

/* Single alloc/free (not the bulk calls). */
static double
mbuf_run_single(struct rte_mempool *mp)
{
	unsigned long loops = objs_per_run;
	uint64_t t0, t1;

	t0 = tsc_fenced();
	for (unsigned long i = 0; i < loops; i++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(mp);

		if (unlikely(m == NULL))
			return -1;
		rte_pktmbuf_free(m);
	}
	t1 = tsc_fenced();
	return (double)(t1 - t0) / (double)loops;
}

typedef double (*run_fn)(struct rte_mempool *mp);

static double
best_of(run_fn fn, struct rte_mempool *mp)
{
	double best = -1;

	fn(mp); /* warm the caches and the store */
	for (unsigned r = 0; r < reps; r++) {
		double v = fn(mp);

		if (v < 0)
			return -1;
		if (best < 0 || v < best)
			best = v;
	}
	return best;
}

static void
row(const char *what, const double *v, unsigned nb)
{
	printf("%-34s", what);
	for (unsigned i = 0; i < 4; i++) {
		if (i >= nb)
			printf(" | %6s", "-");
		else if (v[i] < 0)
			printf(" | %6s", "fail");
		else
			printf(" | %6.2f", v[i]);
	}
	printf("\n");
}

/* A row that cannot run here says why instead of showing figures. */
static void
row_missing(const char *what, const char *why)
{
	printf("# %s: not run (%s)\n", what, why);
}

static int
bench_mempool(const char *what, unsigned cache, const char *ops)
{
	static const run_fn fns[] = {mp_run_1, mp_run_8, mp_run_32, mp_run_128};
	struct rte_mempool *mp;
	double v[4];

	mp = rte_mempool_create_empty("bench_mp", 8192, 64, cache, 0,
				      (int)rte_socket_id(), 0);
	if (mp == NULL) {
		fprintf(stderr, "mempool: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	if (rte_mempool_set_ops_byname(mp, ops, NULL) != 0) {
		row_missing(what,
			    "no mempool driver of that name in this DPDK");
		rte_mempool_free(mp);
		return 0;
	}
	if (rte_mempool_populate_default(mp) < 0) {
		fprintf(stderr, "mempool populate: %s\n",
			rte_strerror(rte_errno));
		rte_mempool_free(mp);
		return -1;
	}
	for (unsigned i = 0; i < 4; i++)
		v[i] = best_of(fns[i], mp);
	row(what, v, 4);
	rte_mempool_free(mp);
	return 0;
}

static int
bench_mbuf(void)
{
	static const run_fn fns[] = {mbuf_run_1, mbuf_run_8, mbuf_run_32,
				     mbuf_run_128};
	struct rte_mempool *mp;
	double v[4];

	mp = rte_pktmbuf_pool_create("bench_mbuf", 8192, 512, 0,
				     RTE_MBUF_DEFAULT_BUF_SIZE,
				     (int)rte_socket_id());
	if (mp == NULL) {
		fprintf(stderr, "mbuf pool: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	for (unsigned i = 0; i < 4; i++)
		v[i] = best_of(fns[i], mp);
	row("mbuf alloc_bulk+free_bulk, c512", v, 4);
	v[0] = best_of(mbuf_run_single, mp);
	row("mbuf alloc+free (single calls)", v, 1);
	rte_mempool_free(mp);
	return 0;
}

/* A whole number in [lo, hi] or -1. */
static long
parse_num(const char *s, long lo, long hi)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (end == s || *end || v < lo || v > hi)
		return -1;
	return v;
}

static int
parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"objs", required_argument, NULL, 'o'},
	    {"reps", required_argument, NULL, 'r'},
	    {NULL, 0, NULL, 0},
	};
	int c;
	long v;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		v = c == '?' ? -1
			     : parse_num(optarg, c == 'o' ? 128 : 1, 1L << 40);
		if (v < 0) {
			fprintf(stderr,
				"usage: %s [EAL options] -- [--objs N "
				"(>= 128)] [--reps R (>= 1)]\n",
				argv[0]);
			return -1;
		}
		if (c == 'o')
			objs_per_run = (unsigned long)v;
		else
			reps = (unsigned)v;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	int ret = rte_eal_init(argc, argv);

	if (ret < 0) {
		fprintf(stderr, "dpdk-mempool-perf: EAL init: %s\n",
			rte_strerror(rte_errno));
		return 1;
	}
	if (parse_args(argc - ret, argv + ret) < 0)
		return 1;
	printf("# dpdk-mempool-perf: %s, cycles per object (get+put, or "
	       "alloc+free), one lcore,\n# minimum of %u runs of %lu objects\n",
	       rte_version(), reps, objs_per_run);
	if (bench_mempool("mempool, cache 256, ring_mp_mc", 256,
			  "ring_mp_mc") ||
	    bench_mempool("mempool, cache 512, ring_mp_mc", 512,
			  "ring_mp_mc") ||
	    bench_mempool("mempool, no cache, ring_mp_mc", 0, "ring_mp_mc") ||
	    bench_mempool("mempool, no cache, ring_sp_sc", 0, "ring_sp_sc") ||
	    bench_mempool("mempool, no cache, stack", 0, "stack") ||
	    bench_mbuf())
		return 1;
	rte_eal_cleanup();
	return 0;
}
