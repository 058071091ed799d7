/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr-mempool-bench: cycles per object for mempool get+put and for mbuf
 * alloc+free on one lcore. It prints linerate's figures only: DPDK's are
 * measured in the same run by bench/run mempool, which runs the same
 * loops written against rte_mempool (bench/dpdk/mempool_perf.c, same rows
 * and format) in processes alternating with this one.
 *
 *   lr-mempool-bench [EAL options] -- [--objs N] [--reps R]
 *
 * Each figure is the minimum over R short runs of (TSC cycles / objects)
 * for a loop of get n then put n (alloc_bulk n then free_bulk n), with n a
 * compile-time constant as in DPDK's own benchmark, each run between two
 * fenced TSC reads. Short runs and the minimum keep out most of what other
 * processes on a shared machine cost; still compare figures from one run,
 * not across runs. Rows: "name | bulk 1 | bulk 8 | bulk 32 | bulk 128".
 * Exit status (lr_app.h): 0 done, 1 run-time failure, 2 usage error.
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lr_app.h"
#include "lr_eal.h"
#include "lr_mbuf.h"
#include "lr_mempool.h"

#define PROG "lr-mempool-bench"

static unsigned long objs_per_run = 100000;
static unsigned long reps = 61;

/* One timed run NAME_N: GET n objects of type T from mp, then PUT them
 * back (get_bulk/put_bulk, alloc_bulk/free_bulk), n a compile-time
 * constant; cycles per object. */
#define DEFINE_BULK_RUN(NAME, T, GET, PUT, N)                                  \
	static double NAME##_##N(struct lr_mempool *mp)                        \
	{                                                                      \
		T objs[N];                                                     \
		unsigned long loops = objs_per_run / N;                        \
		uint64_t t0, t1;                                               \
                                                                               \
		t0 = lr_get_tsc_cycles_fenced();                               \
		for (unsigned long i = 0; i < loops; i++) {                    \
			if (lr_unlikely(GET(mp, objs, N)))                     \
				return -1;                                     \
			PUT(mp, objs, N);                                      \
		}                                                              \
		t1 = lr_get_tsc_cycles_fenced();                               \
		return (double)(t1 - t0) / ((double)loops * N);                \
	}

/* lr_pktmbuf_free_bulk() called as lr_mempool_put_bulk() is. */
#define MBUF_FREE_BULK(mp, m, n) lr_pktmbuf_free_bulk(m, n)

#define DEFINE_MP_RUN(N)                                                       \
	DEFINE_BULK_RUN(mp_run, void *, lr_mempool_get_bulk,                   \
			lr_mempool_put_bulk, N)
#define DEFINE_MBUF_RUN(N)                                                     \
	DEFINE_BULK_RUN(mbuf_run, struct lr_mbuf *, lr_pktmbuf_alloc_bulk,     \
			MBUF_FREE_BULK, N)

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
mbuf_run_single(struct lr_mempool *mp)
{
	unsigned long loops = objs_per_run;
	uint64_t t0, t1;

	t0 = lr_get_tsc_cycles_fenced();
	for (unsigned long i = 0; i < loops; i++) {
		struct lr_mbuf *m = lr_pktmbuf_alloc(mp);

		if (lr_unlikely(m == NULL))
			return -1;
		lr_pktmbuf_free(m);
	}
	t1 = lr_get_tsc_cycles_fenced();
	return (double)(t1 - t0) / (double)loops;
}

typedef double (*run_fn)(struct lr_mempool *mp);

static double
best_of(run_fn fn, struct lr_mempool *mp)
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
row(const char *what, const double *ours, unsigned nb)
{
	printf("%-34s", what);
	for (unsigned i = 0; i < 4; i++) {
		if (i >= nb)
			printf(" | %6s", "-");
		else if (ours[i] < 0)
			printf(" | %6s", "fail");
		else
			printf(" | %6.2f", ours[i]);
	}
	printf("\n");
}

static int
bench_mempool(const char *what, unsigned cache, const char *ops)
{
	static const run_fn fns[] = {mp_run_1, mp_run_8, mp_run_32, mp_run_128};
	struct lr_mempool *mp;
	double v[4];

	mp = lr_mempool_create_ops("bench_mp", 8192, 64, cache, 0, NULL, NULL,
				   LR_SOCKET_ID_ANY, 0, ops);
	if (mp == NULL) {
		fprintf(stderr, "mempool: %s\n", lr_strerror(lr_errno));
		return -1;
	}
	for (unsigned i = 0; i < 4; i++)
		v[i] = best_of(fns[i], mp);
	row(what, v, 4);
	if (lr_mempool_validate(mp) != 0)
		return -1;
	lr_mempool_free(mp);
	return 0;
}

static int
bench_mbuf(void)
{
	static const run_fn fns[] = {mbuf_run_1, mbuf_run_8, mbuf_run_32,
				     mbuf_run_128};
	struct lr_mempool *mp;
	double v[4] = {-1, -1, -1, -1};

	mp = lr_pktmbuf_pool_create("bench_mbuf", 8192, 512, 0,
				    LR_MBUF_DEFAULT_BUF_SIZE, LR_SOCKET_ID_ANY);
	if (mp == NULL) {
		fprintf(stderr, "mbuf pool: %s\n", lr_strerror(lr_errno));
		return -1;
	}
	for (unsigned i = 0; i < 4; i++)
		v[i] = best_of(fns[i], mp);
	row("mbuf alloc_bulk+free_bulk, c512", v, 4);
	v[0] = best_of(mbuf_run_single, mp);
	row("mbuf alloc+free (single calls)", v, 1);
	lr_mempool_free(mp);
	return 0;
}

static void
usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [EAL options] -- [--objs N] [--reps R]\n"
		"  --objs N    objects per timed run, at least 128 (default "
		"%lu)\n"
		"  --reps R    timed runs per figure, minimum kept (default "
		"%lu)\n"
		"  -h, --help  this text\n",
		prog, objs_per_run, reps);
}

int
main(int argc, char **argv)
{
	static const struct lr_app app = {PROG, usage};
	static const struct lr_app_num_opt opt[] = {
	    {"objs", 'o', 128, UINT32_MAX, &objs_per_run, NULL},
	    {"reps", 'r', 1, UINT32_MAX, &reps, NULL},
	    {NULL, 0, 0, 0, NULL, NULL},
	};
	static struct lr_app_nums nums = {usage, 0, opt};
	int status;

	if (lr_app_start(&app, argc, argv, lr_app_parse_nums, &nums, &status) <
	    0)
		return status;

	printf("# lr-mempool-bench: cycles per object (get+put, or "
	       "alloc+free), one lcore,\n# minimum of %lu runs of %lu objects; "
	       "no peer figures here: bench/run mempool\n# runs "
	       "DPDK's code beside it in the same run\n",
	       reps, objs_per_run);
	printf("%-34s | %6s | %6s | %6s | %6s\n", "# bulk", "1", "8", "32",
	       "128");
	if (bench_mempool("mempool, cache 256, ring_mp_mc", 256,
			  "ring_mp_mc") ||
	    bench_mempool("mempool, cache 512, ring_mp_mc", 512,
			  "ring_mp_mc") ||
	    bench_mempool("mempool, no cache, ring_mp_mc", 0, "ring_mp_mc") ||
	    bench_mempool("mempool, no cache, ring_sp_sc", 0, "ring_sp_sc") ||
	    bench_mempool("mempool, no cache, stack", 0, "stack") ||
	    bench_mbuf()) {
		lr_eal_cleanup();
		return LR_EXIT_FAILURE;
	}
	lr_eal_cleanup();
	return LR_EXIT_OK;
}
