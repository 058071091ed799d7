/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpdk-ring-perf: lr-ring-bench's loops, written against DPDK's rte_ring,
 * so that bench/run ring can run DPDK's code path beside linerate's
 * in the same run, measured the same way. Built by that script against
 * libdpdk (pkg-config), once for Debian's package and once for
 * scripts/dpdk-native.sh's build; not part of the meson build.
 *
 *   dpdk-ring-perf [EAL options] -- [--iterations N] [--runs R]
 *
 * Same ring (4096 slots), same loops and the same statistic and output as
 * lr-ring-bench: (a) one lcore, enqueue n then dequeue n, timed in samples
 * of 4096 call pairs, min / median over the samples; (b) two lcores,
 * producer on the main lcore, consumer on the next, min / median of R
 * runs of N/8 items. The bulk size is a run-time value in both programs.
 */
#include <getopt.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_pause.h>
#include <rte_ring.h>
#include <rte_version.h>

#define RING_SIZE    4096
#define MAX_BULK     128
#define MAX_RUNS     31
#define SAMPLE_PAIRS 4096

static const unsigned bulk_sizes[] = {1, 8, 32, 128};
static unsigned long iterations = 1u << 21;
static unsigned runs = 15;
static void *objs_in[MAX_BULK];
static void *objs_out[MAX_BULK] __rte_cache_aligned;
static double *samples;
static unsigned nb_samples;

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

/* Enqueue then dequeue one object per call, iters times; total cycles. */
static __attribute__((noinline)) uint64_t
single_pairs(struct rte_ring *r, enum mode m, unsigned long iters)
{
	void *o = objs_in[0], *out = NULL;
	uint64_t t0 = rte_rdtsc();

	if (m == MODE_SPSC) {
		for (unsigned long i = 0; i < iters; i++) {
			rte_ring_sp_enqueue(r, o);
			rte_ring_sc_dequeue(r, &out);
		}
	} else {
		for (unsigned long i = 0; i < iters; i++) {
			rte_ring_mp_enqueue(r, o);
			rte_ring_mc_dequeue(r, &out);
		}
	}
	objs_out[0] = out;
	return rte_rdtsc() - t0;
}

/* Enqueue then dequeue n objects per call, iters times; total cycles. */
static __attribute__((noinline)) uint64_t
bulk_pairs(struct rte_ring *r, enum mode m, unsigned n, unsigned long iters)
{
	uint64_t t0 = rte_rdtsc();

	if (m == MODE_SPSC) {
		for (unsigned long i = 0; i < iters; i++) {
			rte_ring_sp_enqueue_bulk(r, objs_in, n, NULL);
			rte_ring_sc_dequeue_bulk(r, objs_out, n, NULL);
		}
	} else {
		for (unsigned long i = 0; i < iters; i++) {
			rte_ring_mp_enqueue_bulk(r, objs_in, n, NULL);
			rte_ring_mc_dequeue_bulk(r, objs_out, n, NULL);
		}
	}
	return rte_rdtsc() - t0;
}

static void
bench_one_lcore(struct rte_ring *r)
{
	printf("\n(a) one lcore (lcore %u), enqueue then dequeue; %u samples "
	       "of %u call pairs: min / median\n",
	       rte_lcore_id(), nb_samples, SAMPLE_PAIRS);
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
		for (unsigned b = 0; b < RTE_DIM(bulk_sizes); b++) {
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

struct pair_arg {
	struct rte_ring *r;
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
		rte_pause();
	uint64_t t0 = rte_rdtsc();

	if (a->m == MODE_SPSC) {
		while (got < a->items) {
			while (rte_ring_sc_dequeue_bulk(a->r, out, n, NULL) ==
			       0)
				rte_pause();
			got += n;
		}
	} else {
		while (got < a->items) {
			while (rte_ring_mc_dequeue_bulk(a->r, out, n, NULL) ==
			       0)
				rte_pause();
			got += n;
		}
	}
	a->cycles = rte_rdtsc() - t0;
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
	uint64_t t0 = rte_rdtsc();

	if (a->m == MODE_SPSC) {
		while (put < a->items) {
			while (rte_ring_sp_enqueue_bulk(a->r, objs_in, n,
							NULL) == 0)
				rte_pause();
			put += n;
		}
	} else {
		while (put < a->items) {
			while (rte_ring_mp_enqueue_bulk(a->r, objs_in, n,
							NULL) == 0)
				rte_pause();
			put += n;
		}
	}
	return rte_rdtsc() - t0;
}

static int
bench_two_lcores(struct rte_ring *r)
{
	/* The first worker (wrap 0: with wrap 1 and no worker, DPDK's
	 * rte_get_next_lcore never returns). */
	unsigned worker = rte_get_next_lcore(-1, 1, 0);
	double vp[MAX_RUNS], vc[MAX_RUNS];
	unsigned long items = RTE_MAX(iterations / 8, 1024ul);

	if (rte_lcore_count() < 2 || worker >= RTE_MAX_LCORE) {
		printf(
		    "\n(b) two lcores: skipped, only one lcore (use -l 0-1)\n");
		return 0;
	}
	printf("\n(b) two lcores: producer lcore %u (CPU %d), consumer lcore "
	       "%u (CPU %d), %lu items per run, %u runs: min / median\n",
	       rte_lcore_id(), rte_lcore_to_cpu_id((int)rte_lcore_id()), worker,
	       rte_lcore_to_cpu_id((int)worker), items, runs);
	printf("%-6s %-8s %22s %22s\n", "mode", "n", "producer cycles/item",
	       "consumer cycles/item");
	for (int m = MODE_SPSC; m <= MODE_MPMC; m++) {
		for (unsigned b = 0; b < RTE_DIM(bulk_sizes); b++) {
			unsigned n = bulk_sizes[b];
			struct stat2 sp, sc;

			for (unsigned k = 0; k < runs; k++) {
				struct pair_arg a = {
				    .r = r, .m = m, .n = n, .items = items};
				int rc = rte_eal_remote_launch(consumer_lcore,
							       &a, worker);

				if (rc < 0) {
					fprintf(stderr,
						"dpdk-ring-perf: launch on "
						"lcore %u: %d\n",
						worker, rc);
					return rc;
				}
				vp[k] =
				    (double)producer_run(&a) / (double)items;
				rte_eal_wait_lcore(worker);
				vc[k] = (double)a.cycles / (double)items;
			}
			sp = summarise(vp, runs);
			sc = summarise(vc, runs);
			printf(
			    "%-6s bulk %-3u %10.2f / %-9.2f %10.2f / %-9.2f\n",
			    mode_name[m], n, sp.min, sp.median, sc.min,
			    sc.median);
		}
	}
	return 0;
}

static int
parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"iterations", required_argument, NULL, 'i'},
	    {"runs", required_argument, NULL, 'r'},
	    {NULL, 0, NULL, 0},
	};
	int c;
	char *end;
	unsigned long v;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		v = c == '?' ? 0 : strtoul(optarg, &end, 0);
		if (c == '?' || *end != '\0' || v == 0 ||
		    (c == 'r' && v > MAX_RUNS)) {
			fprintf(stderr,
				"usage: %s [EAL options] -- [--iterations N "
				"(>= 1)] [--runs R (1..%d)]\n",
				argv[0], MAX_RUNS);
			return -1;
		}
		if (c == 'i')
			iterations = v;
		else
			runs = (unsigned)v;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct rte_ring *r;
	int ret = rte_eal_init(argc, argv);

	if (ret < 0) {
		fprintf(stderr, "dpdk-ring-perf: EAL init: %s\n",
			rte_strerror(rte_errno));
		return 1;
	}
	if (parse_args(argc - ret, argv + ret) < 0)
		return 1;
	nb_samples = (unsigned)RTE_MAX(iterations / SAMPLE_PAIRS, 1ul);
	samples =
	    malloc(sizeof(*samples) * RTE_MAX(nb_samples, (unsigned)MAX_RUNS));
	if (samples == NULL)
		return 1;
	for (unsigned i = 0; i < MAX_BULK; i++)
		objs_in[i] = (void *)(uintptr_t)(0x1000 + 64 * i);
	r = rte_ring_create("ring_bench", RING_SIZE, (int)rte_socket_id(), 0);
	if (r == NULL) {
		fprintf(stderr, "dpdk-ring-perf: ring: %s\n",
			rte_strerror(rte_errno));
		return 1;
	}
	printf("dpdk-ring-perf: %s, ring of %u slots, TSC %.2f GHz\n",
	       rte_version(), RING_SIZE, (double)rte_get_tsc_hz() / 1e9);
	bench_one_lcore(r);
	ret = bench_two_lcores(r);
	rte_ring_free(r);
	free(samples);
	rte_eal_cleanup();
	return ret < 0 ? 1 : 0;
}
