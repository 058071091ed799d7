/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr-pagealloc-bench: the Linux page allocator microbenchmark of the 2016
 * fast-path series, run against lib/pagealloc. For each order and batch
 * size it allocates a batch of blocks one call at a time, then frees them,
 * many times, and prints the minimum cycles per call for alloc, free and
 * both, beside the kernel's figures and the ratio (kernel / ours).
 * --bulk does the same with the bulk API (one call per batch; cycles per
 * block).
 *
 *   lr-pagealloc-bench [EAL options] -- [--bulk] [--orders 0-4]
 *       [--max-batch N] [--loops N] [--reference FILE]
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lr_eal.h"
#include "lr_pagealloc.h"

#define MAX_BATCH_LOG 14 /* 16384 */
#define DEFAULT_LOOPS (1UL << 20)
#define REF_NAME      "kernel-page-alloc-2016.tsv"

enum { T_ALLOC, T_FREE, T_TOTAL, T_KINDS };
static const char *const kind_names[T_KINDS] = {"alloc", "free", "total"};

/* Kernel figures (patched), -1 where absent. */
static double ref[T_KINDS][5][MAX_BATCH_LOG + 1];
static char ref_path[1024];

static struct {
	bool bulk;
	unsigned orders_mask;
	unsigned long max_batch;
	unsigned long loops;
	const char *reference;
} opt = {false, 0x1f, 1UL << MAX_BATCH_LOG, DEFAULT_LOOPS, NULL};

static void
usage(FILE *f, const char *prog)
{
	fprintf(
	    f,
	    "usage: %s [EAL options] -- [options]\n"
	    "  --bulk            use the bulk API (one call per batch)\n"
	    "  --orders LIST     orders to run, e.g. 0-4 or 0,2 (default 0-4)\n"
	    "  --max-batch N     largest batch (default: 16384 >> order)\n"
	    "  --loops N         calls per row, spread over the runs (default "
	    "%lu)\n"
	    "  --reference FILE  the kernel's figures (default: %s in the "
	    "source\n"
	    "                    tree, then in the installed data dir)\n",
	    prog, DEFAULT_LOOPS, REF_NAME);
}

static int
parse_orders(const char *s)
{
	unsigned mask = 0;

	while (*s) {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;

		if (end == s)
			return -1;
		if (*end == '-') {
			s = end + 1;
			b = strtoul(s, &end, 10);
			if (end == s)
				return -1;
		}
		if (a > b || b > 4)
			return -1;
		for (unsigned long o = a; o <= b; o++)
			mask |= 1u << o;
		s = end;
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	if (mask == 0)
		return -1;
	opt.orders_mask = mask;
	return 0;
}

static int
parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
	    {"bulk", no_argument, NULL, 'b'},
	    {"orders", required_argument, NULL, 'o'},
	    {"max-batch", required_argument, NULL, 'm'},
	    {"loops", required_argument, NULL, 'n'},
	    {"reference", required_argument, NULL, 'r'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;
	char *end;

	optind = 1; /* the EAL parsed its own options with getopt too */
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'b':
			opt.bulk = true;
			break;
		case 'o':
			if (parse_orders(optarg) < 0) {
				fprintf(stderr,
					"--orders '%s': want orders 0..4 like "
					"0-4 or 0,2\n",
					optarg);
				return -1;
			}
			break;
		case 'm':
			opt.max_batch = strtoul(optarg, &end, 10);
			if (*end || opt.max_batch == 0 ||
			    opt.max_batch > (1UL << MAX_BATCH_LOG)) {
				fprintf(stderr,
					"--max-batch '%s': want 1..%lu\n",
					optarg, 1UL << MAX_BATCH_LOG);
				return -1;
			}
			break;
		case 'n':
			opt.loops = strtoul(optarg, &end, 10);
			if (*end || opt.loops == 0) {
				fprintf(
				    stderr,
				    "--loops '%s': want a positive number\n",
				    optarg);
				return -1;
			}
			break;
		case 'r':
			opt.reference = optarg;
			break;
		case 'h':
			usage(stdout, argv[0]);
			exit(0);
		default:
			usage(stderr, argv[0]);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	return 0;
}

/* Read the kernel's table: test order batch vanilla patched. */
static int
load_reference(void)
{
	const char *cand[] = {
	    opt.reference,
#ifdef LR_BENCH_REF_SRC
	    opt.reference ? NULL : LR_BENCH_REF_SRC,
#endif
#ifdef LR_BENCH_REF_INSTALLED
	    opt.reference ? NULL : LR_BENCH_REF_INSTALLED,
#endif
	};
	char line[512];
	FILE *f = NULL;

	for (size_t i = 0; i < LR_DIM(ref); i++)
		for (size_t o = 0; o < 5; o++)
			for (size_t b = 0; b <= MAX_BATCH_LOG; b++)
				ref[i][o][b] = -1;
	for (size_t i = 0; i < LR_DIM(cand) && f == NULL; i++) {
		if (cand[i] == NULL)
			continue;
		f = fopen(cand[i], "r");
		if (f != NULL)
			snprintf(ref_path, sizeof(ref_path), "%s", cand[i]);
		else if (opt.reference)
			fprintf(stderr, "--reference %s: cannot open it\n",
				cand[i]);
	}
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char test[16];
		unsigned order, batch;
		double vanilla, patched;

		if (line[0] == '#' ||
		    sscanf(line, "%15s %u %u %lf %lf", test, &order, &batch,
			   &vanilla, &patched) != 5)
			continue;
		if (order > 4 || !lr_is_power_of_2(batch) ||
		    lr_log2_u64(batch) > MAX_BATCH_LOG)
			continue;
		for (int k = 0; k < T_KINDS; k++)
			if (strcmp(test, kind_names[k]) == 0)
				ref[k][order][lr_log2_u64(batch)] = patched;
	}
	fclose(f);
	return 0;
}

static const char *
cpu_model(void)
{
	static char model[256] = "unknown";
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (f == NULL)
		return model;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (colon == NULL)
			continue;
		if (strncmp(line, "model name", 10) == 0 ||
		    strncmp(line, "cpu\t", 4) == 0) {
			snprintf(model, sizeof(model), "%s", colon + 2);
			model[strcspn(model, "\n")] = '\0';
			break;
		}
	}
	fclose(f);
	return model;
}

/*
 * Timing. The TSC of some machines (VMs) ticks in steps of tens of cycles,
 * so one short timed loop cannot be measured on its own. A "run" is W
 * back-to-back repetitions of the batch, W chosen so that a run covers at
 * least WINDOW_CALLS calls; the timed loops of a run are summed (their
 * rounding errors average out) and each row reports the minimum over runs
 * (which drops runs hit by an interrupt). The cost of the two TSC reads
 * around a timed loop, measured the same way, is subtracted.
 */
#define WINDOW_CALLS 1024

/* Mean cycles between two back-to-back TSC reads, minimum over runs. */
static double
tsc_pair_cost(void)
{
	double best = 1e30;

	for (int r = 0; r < 256; r++) {
		uint64_t sum = 0;

		for (int i = 0; i < WINDOW_CALLS; i++) {
			uint64_t a = lr_get_tsc_cycles();
			uint64_t b = lr_get_tsc_cycles();

			sum += b - a;
		}
		best = LR_MIN(best, (double)sum / WINDOW_CALLS);
	}
	return best;
}

/* One row: cycles per call (per block in bulk mode) for alloc, free and
 * both. */
static int
run_row(unsigned order, unsigned long batch, struct lr_page **pages, double ovh,
	double out[T_KINDS])
{
	unsigned long w = batch >= WINDOW_CALLS ? 1 : WINDOW_CALLS / batch;
	unsigned long runs = opt.loops / (batch * w);
	double best[T_KINDS] = {1e30, 1e30, 1e30};

	if (runs < 16)
		runs = 16;
	for (unsigned long r = 0; r <= runs; r++) {
		uint64_t sa = 0, sf = 0;

		for (unsigned long k = 0; k < w; k++) {
			uint64_t t0, t1, t2;

			if (opt.bulk) {
				t0 = lr_get_tsc_cycles();
				unsigned got = lr_alloc_pages_bulk(
				    LR_SOCKET_ID_ANY, order, 0, (unsigned)batch,
				    pages);
				t1 = lr_get_tsc_cycles();
				if (got != batch) {
					fprintf(stderr,
						"bulk alloc of %lu order-%u "
						"blocks got %u: %s\n",
						batch, order, got,
						lr_strerror(lr_errno));
					if (got)
						lr_free_pages_bulk(pages, got,
								   order);
					return -1;
				}
				lr_free_pages_bulk(pages, (unsigned)batch,
						   order);
				t2 = lr_get_tsc_cycles();
			} else {
				t0 = lr_get_tsc_cycles();
				for (unsigned long i = 0; i < batch; i++)
					pages[i] = lr_alloc_pages(
					    LR_SOCKET_ID_ANY, order, 0);
				t1 = lr_get_tsc_cycles();
				for (unsigned long i = 0; i < batch; i++)
					lr_free_pages(pages[i], order);
				t2 = lr_get_tsc_cycles();
				/* A NULL was "freed" with an error above. */
				if (pages[0] == NULL ||
				    pages[batch - 1] == NULL) {
					fprintf(stderr,
						"alloc of %lu order-%u blocks "
						"failed: %s\n",
						batch, order,
						lr_strerror(lr_errno));
					return -1;
				}
			}
			sa += t1 - t0;
			sf += t2 - t1;
		}
		if (r == 0)
			continue; /* warm-up run */
		double a = (double)sa / (double)w - ovh;
		double f = (double)sf / (double)w - ovh;

		best[T_ALLOC] = LR_MIN(best[T_ALLOC], a);
		best[T_FREE] = LR_MIN(best[T_FREE], f);
		best[T_TOTAL] = LR_MIN(best[T_TOTAL], a + f);
	}
	for (int k = 0; k < T_KINDS; k++)
		out[k] = LR_MAX(best[k], 0.0) / (double)batch;
	return 0;
}

int
main(int argc, char **argv)
{
	int ret = lr_eal_init(argc, argv);
	static double res[T_KINDS][5][MAX_BATCH_LOG + 1];
	struct lr_page **pages;
	double ovh;

	if (ret < 0) {
		fprintf(stderr, "lr-pagealloc-bench: EAL init failed: %s\n",
			lr_strerror(-ret));
		lr_eal_usage(stderr);
		return 1;
	}
	if (parse_args(argc - ret, argv + ret) < 0)
		return 1;
	if (lr_pagealloc_init() < 0) {
		fprintf(stderr, "lr-pagealloc-bench: page allocator: %s\n",
			lr_strerror(lr_errno));
		return 1;
	}
	pages = calloc(1UL << MAX_BATCH_LOG, sizeof(*pages));
	if (pages == NULL)
		return 1;
	bool have_ref = load_reference() == 0;

	ovh = tsc_pair_cost();
	unsigned long mem = 0;

	for (unsigned i = 0; i < lr_memseg_count(); i++)
		mem += lr_memseg_get(i)->len;
	printf("# lr-pagealloc-bench: Linux page allocator microbenchmark rows "
	       "(2016 series), %s\n",
	       opt.bulk ? "BULK API: one call per batch, cycles per block"
			: "one call per block");
	printf("# CPU: %s; TSC %.3f GHz\n", cpu_model(), lr_get_tsc_hz() / 1e9);
	printf("# TSC read overhead: %.1f cycles (mean of back-to-back reads; "
	       "lr_tsc_read_overhead(), their minimum: %lu),\n"
	       "#   subtracted from every timed loop\n",
	       ovh, (unsigned long)lr_tsc_read_overhead());
	printf("# memory: %lu MB in %u zone%s, hugepages: %s; base page %lu "
	       "KB; lcore %u%s%s\n",
	       mem >> 20, lr_pagealloc_zone_count(),
	       lr_pagealloc_zone_count() > 1 ? "s" : "",
	       lr_eal_has_hugepages() ? "yes" : "no (ordinary memory)",
	       LR_PAGE_SIZE >> 10, lr_lcore_id(),
	       lr_lcore_id() < LR_MAX_LCORE ? " (per-lcore lists)" : "",
	       LR_PAGEALLOC_DEBUG ? "; DEBUG BUILD (checks and poison)" : "");
	printf("# %lu calls per row; a run repeats the batch until it covers "
	       "%d calls (the TSC may tick coarsely);\n"
	       "#   each row is the minimum over runs of cycles per %s\n",
	       opt.loops, WINDOW_CALLS, opt.bulk ? "block" : "call");
	printf("# kernel: 4.6.0-rc3 + fast-path series, one call per block, "
	       "patched figures (%s)\n",
	       have_ref ? ref_path : "reference file not found");
	printf("%-20s %10s %10s %8s\n", "test", "cycles", "kernel", "ratio");
	for (unsigned order = 0; order < 5; order++) {
		if (!(opt.orders_mask & (1u << order)))
			continue;
		unsigned long maxb =
		    LR_MIN(opt.max_batch, (1UL << MAX_BATCH_LOG) >> order);

		for (unsigned b = 0; (1UL << b) <= maxb; b++) {
			double out[T_KINDS];

			if (run_row(order, 1UL << b, pages, ovh, out) < 0)
				return 1;
			for (int k = 0; k < T_KINDS; k++)
				res[k][order][b] = out[k];
		}
		for (int k = 0; k < T_KINDS; k++) {
			for (unsigned b = 0; (1UL << b) <= maxb; b++) {
				char name[32];
				double kv = ref[k][order][b];

				snprintf(name, sizeof(name), "%s-odr%u-%lu",
					 kind_names[k], order, 1UL << b);
				if (kv > 0 && res[k][order][b] < 1.0)
					/* Hidden under the TSC reads' own
					 * latency: below what can be told. */
					printf("%-20s %10s %10.2f %7s\n", name,
					       "<1", kv, ">100x");
				else if (kv > 0)
					printf("%-20s %10.1f %10.2f %7.1fx\n",
					       name, res[k][order][b], kv,
					       kv / res[k][order][b]);
				else
					printf("%-20s %10.1f %10s %8s\n", name,
					       res[k][order][b], "-", "-");
			}
		}
	}
	if (opt.bulk)
		printf("# kernel bulk API for comparison: 98 cycles/page "
		       "alloc+free with the array API at bulk 64\n"
		       "# (Linux 5.13 bulk page allocator, Xeon E5-1650 v4, "
		       "Jesper Brouer's measurements)\n");
	free(pages);
	lr_eal_cleanup();
	return 0;
}
