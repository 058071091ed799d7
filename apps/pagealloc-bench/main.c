/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr-pagealloc-bench: the rows of the Linux page allocator microbenchmark
 * of the 2016 fast-path series, run against lib/pagealloc. For each order
 * and batch size it allocates a batch of blocks one call at a time, then
 * frees them, over and over for a window of many milliseconds, and prints
 * cycles per call for alloc, free and both (median and range over the
 * windows), beside the kernel's 2016 figures (another CPU) and the ratio.
 * --bulk does the same with the bulk API (one call per batch; cycles per
 * block).
 *
 *   lr-pagealloc-bench [EAL options] -- [--bulk] [--orders 0-4]
 *       [--max-batch N] [--window-ms N] [--runs N] [--reference FILE]
 *
 * Exit status (lr_app.h): 0 done, 1 run-time failure, 2 usage error.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lr_app.h"
#include "lr_eal.h"
#include "lr_pagealloc.h"

#define MAX_BATCH_LOG	  14 /* 16384 */
#define DEFAULT_WINDOW_MS 10
#define DEFAULT_RUNS	  5
#define MAX_RUNS	  101
#define REF_NAME	  "kernel-page-alloc-2016.tsv"
#define PROG		  "lr-pagealloc-bench"

enum { T_ALLOC, T_FREE, T_TOTAL, T_KINDS };
static const char *const kind_names[T_KINDS] = {"alloc", "free", "total"};

/* Kernel figures (patched), -1 where absent. */
static double ref[T_KINDS][5][MAX_BATCH_LOG + 1];
static char ref_path[1024];

static struct {
	bool bulk;
	unsigned orders_mask;
	unsigned long max_batch;
	unsigned window_ms;
	unsigned runs;
	const char *reference;
} opt = {false,	       0x1f, 1UL << MAX_BATCH_LOG, DEFAULT_WINDOW_MS,
	 DEFAULT_RUNS, NULL};

static void
usage(FILE *f, const char *prog)
{
	fprintf(
	    f,
	    "usage: %s [EAL options] -- [options]\n"
	    "  --bulk            use the bulk API (one call per batch)\n"
	    "  --orders LIST     orders to run, e.g. 0-4 or 0,2 (default 0-4)\n"
	    "  --max-batch N     largest batch (default: 16384 >> order)\n"
	    "  --window-ms N     each timed window lasts at least N ms of TSC "
	    "(default %d)\n"
	    "  --runs N          windows per row, 1..%d; the row prints their "
	    "median\n"
	    "                    and range (default %d)\n"
	    "  --reference FILE  the kernel's figures (default: %s in the "
	    "source\n"
	    "                    tree, then in the installed data dir)\n"
	    "  -h, --help        this text\n",
	    prog, DEFAULT_WINDOW_MS, MAX_RUNS, DEFAULT_RUNS, REF_NAME);
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

/* One option c (lr_app_getopt()) with its value arg: 0, or -1 after a
 * message. */
static int
take_option(int c, const char *arg, void *ctx)
{
	unsigned long v;

	switch (c) {
	case 'b':
		opt.bulk = true;
		return 0;
	case 'o':
		if (parse_orders(arg) < 0) {
			fprintf(stderr,
				PROG ": --orders '%s': want orders 0..4 like "
				     "0-4 or 0,2\n",
				arg);
			return -1;
		}
		return 0;
	case 'm':
		return lr_app_parse_num(PROG, "--max-batch", arg, 1,
					1UL << MAX_BATCH_LOG, &opt.max_batch);
	case 'w':
		if (lr_app_parse_num(PROG, "--window-ms", arg, 1, 60000, &v) <
		    0)
			return -1;
		opt.window_ms = (unsigned)v;
		return 0;
	case 'n':
		if (lr_app_parse_num(PROG, "--runs", arg, 1, MAX_RUNS, &v) < 0)
			return -1;
		opt.runs = (unsigned)v;
		return 0;
	case 'r':
		opt.reference = arg;
		return 0;
	}
	return -1; /* getopt returns none but lo[]'s */
}

/* The options after the EAL's (lr_app_start()): 0, 1 after --help, -1
 * after a message. */
static int
parse_args(int argc, char **argv, void *arg)
{
	static const struct option lo[] = {
	    {"bulk", no_argument, NULL, 'b'},
	    {"orders", required_argument, NULL, 'o'},
	    {"max-batch", required_argument, NULL, 'm'},
	    {"window-ms", required_argument, NULL, 'w'},
	    {"runs", required_argument, NULL, 'n'},
	    {"reference", required_argument, NULL, 'r'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};

	return lr_app_getopt(argc, argv, ":h", lo, usage, take_option, arg);
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
 * Timing. Nothing is timed one call at a time and nothing is subtracted:
 * a window repeats the row's cycle (allocate the batch, then free it)
 * back to back until it covers at least --window-ms of TSC, between two
 * fenced TSC reads, and the row's figure is the window's cycles divided by
 * the calls it made. Each row runs --runs windows and prints their median
 * and range.
 *
 * total rows: the whole cycle, throughput (the reads are two per window,
 * millions of calls apart).
 * alloc and free rows: the same windows with a fenced read between the two
 * phases of every cycle as well, the cycles of each phase summed. Each
 * phase thus carries one fenced read (printed in the header) spread over
 * its batch, and the fences stop the phases overlapping: at small batches
 * these rows are a latency per call, not a throughput.
 */
static struct lr_page **pages;
static uint64_t window_cycles;

/* One phase of a cycle: allocate n order-`order` blocks into pages[]. */
static int
alloc_batch(unsigned order, unsigned long n)
{
	if (opt.bulk) {
		unsigned got = lr_alloc_pages_bulk(LR_SOCKET_ID_ANY, order, 0,
						   (unsigned)n, pages);

		if (got == n)
			return 0;
		if (got)
			lr_free_pages_bulk(pages, got, order);
		fprintf(stderr,
			"bulk alloc of %lu order-%u blocks got %u: %s\n", n,
			order, got, lr_strerror(lr_errno));
		return -1;
	}
	for (unsigned long i = 0; i < n; i++) {
		pages[i] = lr_alloc_pages(LR_SOCKET_ID_ANY, order, 0);
		if (lr_unlikely(pages[i] == NULL)) {
			fprintf(
			    stderr,
			    "alloc of order-%u block %lu of %lu failed: %s\n",
			    order, i, n, lr_strerror(lr_errno));
			while (i-- > 0)
				lr_free_pages(pages[i], order);
			return -1;
		}
	}
	return 0;
}

/* The other phase: free what alloc_batch() took. */
static void
free_batch(unsigned order, unsigned long n)
{
	if (opt.bulk) {
		lr_free_pages_bulk(pages, (unsigned)n, order);
		return;
	}
	for (unsigned long i = 0; i < n; i++)
		lr_free_pages(pages[i], order);
}

/* reps cycles of `batch` blocks between two fenced reads: cycles spent. */
static int
window_total(unsigned order, unsigned long batch, unsigned long reps,
	     uint64_t *cycles)
{
	uint64_t t0 = lr_get_tsc_cycles_fenced();

	for (unsigned long r = 0; r < reps; r++) {
		if (alloc_batch(order, batch) < 0)
			return -1;
		free_batch(order, batch);
	}
	*cycles = lr_get_tsc_cycles_fenced() - t0;
	return 0;
}

/* The same with each phase between fenced reads: cycles of each phase. */
static int
window_split(unsigned order, unsigned long batch, unsigned long reps,
	     uint64_t *ca, uint64_t *cf)
{
	uint64_t sa = 0, sf = 0;

	for (unsigned long r = 0; r < reps; r++) {
		uint64_t t0 = lr_get_tsc_cycles_fenced();

		if (alloc_batch(order, batch) < 0)
			return -1;
		uint64_t t1 = lr_get_tsc_cycles_fenced();

		free_batch(order, batch);
		uint64_t t2 = lr_get_tsc_cycles_fenced();

		sa += t1 - t0;
		sf += t2 - t1;
	}
	*ca = sa;
	*cf = sf;
	return 0;
}

/* Cycles the batch must repeat for a window of window_cycles: doubled
 * from 1 until a timed window is long enough (this also warms up). */
static long
window_reps(unsigned order, unsigned long batch)
{
	unsigned long reps = 1;

	for (;;) {
		uint64_t c;

		if (window_total(order, batch, reps, &c) < 0)
			return -1;
		if (c >= window_cycles || reps >= (1UL << 40) / batch)
			return (long)reps;
		reps *= 2;
	}
}

/* Cost of one fenced read, from a window of them. */
static double
fenced_read_cost(void)
{
	unsigned long n = 1UL << 20;
	uint64_t t0 = lr_get_tsc_cycles_fenced();

	for (unsigned long i = 0; i < n; i++)
		(void)lr_get_tsc_cycles_fenced();
	return (double)(lr_get_tsc_cycles_fenced() - t0) / (double)n;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct stat3 {
	double med, lo, hi;
};

static struct stat3
stat_of(double *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return (struct stat3){v[n / 2], v[0], v[n - 1]};
}

/* One row: cycles per call (per block in bulk mode) for alloc, free and
 * both, over opt.runs windows, the total and split windows alternating. */
static int
run_row(unsigned order, unsigned long batch, struct stat3 out[T_KINDS])
{
	double v[T_KINDS][MAX_RUNS];
	long reps = window_reps(order, batch);

	if (reps < 0)
		return -1;
	double calls = (double)reps * (double)batch;

	for (unsigned r = 0; r < opt.runs; r++) {
		uint64_t ct, ca, cf;

		if (window_total(order, batch, (unsigned long)reps, &ct) < 0 ||
		    window_split(order, batch, (unsigned long)reps, &ca, &cf) <
			0)
			return -1;
		v[T_TOTAL][r] = (double)ct / calls;
		v[T_ALLOC][r] = (double)ca / calls;
		v[T_FREE][r] = (double)cf / calls;
	}
	for (int k = 0; k < T_KINDS; k++)
		out[k] = stat_of(v[k], opt.runs);
	return 0;
}

static void
print_header(bool have_ref)
{
	unsigned long mem = 0;

	for (unsigned i = 0; i < lr_memseg_count(); i++)
		mem += lr_memseg_get(i)->len;
	printf("# lr-pagealloc-bench: the rows of the Linux page allocator "
	       "microbenchmark (2016 series), %s\n",
	       opt.bulk ? "BULK API: one call per batch, cycles per block"
			: "one call per block, cycles per call");
	printf("# CPU: %s; TSC %.3f GHz\n", cpu_model(), lr_get_tsc_hz() / 1e9);
	printf("# memory: %lu MB in %u zone%s, hugepages: %s; base page %lu "
	       "KB; lcore %u%s%s\n",
	       mem >> 20, lr_pagealloc_zone_count(),
	       lr_pagealloc_zone_count() > 1 ? "s" : "",
	       lr_eal_has_hugepages() ? "yes" : "no (ordinary memory)",
	       LR_PAGE_SIZE >> 10, lr_lcore_id(),
	       lr_lcore_id() < LR_MAX_LCORE ? " (per-lcore lists)" : "",
	       LR_PAGEALLOC_DEBUG ? "; DEBUG BUILD (checks and poison)" : "");
	printf("# method: a window repeats the batch (allocate it, free it) "
	       "for >= %u ms of TSC between two\n"
	       "#   fenced TSC reads; cycles = window cycles / calls, median "
	       "[min-max] of %u windows.\n"
	       "# total: throughput of the whole cycle. alloc, free: each "
	       "phase between fenced reads\n"
	       "#   (%.1f cycles each, included, not subtracted): a latency "
	       "per call at small batches.\n",
	       opt.window_ms, opt.runs, fenced_read_cost());
	printf("# kernel-2016: Linux 4.6.0-rc3 + the fast-path series (Mel "
	       "Gorman, 2016), ANOTHER CPU,\n"
	       "#   one call per block, minimum cycles per call (%s);\n"
	       "#   ratio = kernel-2016 / ours: an order of magnitude across "
	       "machines and methods,\n"
	       "#   not a same-run comparison\n",
	       have_ref ? ref_path : "reference file not found");
	printf("%-20s %10s %19s %12s %8s\n", "test", "cycles", "[min-max]",
	       "kernel-2016", "ratio");
}

static void
print_row(const char *name, struct stat3 s, double kv)
{
	char range[40];

	snprintf(range, sizeof(range), "[%.2f-%.2f]", s.lo, s.hi);
	if (kv > 0)
		printf("%-20s %10.2f %19s %12.2f %7.1fx\n", name, s.med, range,
		       kv, kv / s.med);
	else
		printf("%-20s %10.2f %19s %12s %8s\n", name, s.med, range, "-",
		       "-");
}

int
main(int argc, char **argv)
{
	static const struct lr_app app = {PROG, usage};
	static struct stat3 res[T_KINDS][5][MAX_BATCH_LOG + 1];
	int status;

	if (lr_app_start(&app, argc, argv, parse_args, NULL, &status) < 0)
		return status;
	if (lr_pagealloc_init() < 0) {
		fprintf(stderr, "lr-pagealloc-bench: page allocator: %s\n",
			lr_strerror(lr_errno));
		lr_eal_cleanup();
		return LR_EXIT_FAILURE;
	}
	pages = calloc(1UL << MAX_BATCH_LOG, sizeof(*pages));
	if (pages == NULL) {
		lr_eal_cleanup();
		return LR_EXIT_FAILURE;
	}
	window_cycles = lr_get_tsc_hz() / 1000 * opt.window_ms;
	print_header(load_reference() == 0);
	for (unsigned order = 0; order < 5; order++) {
		if (!(opt.orders_mask & (1u << order)))
			continue;
		unsigned long maxb =
		    LR_MIN(opt.max_batch, (1UL << MAX_BATCH_LOG) >> order);

		for (unsigned b = 0; (1UL << b) <= maxb; b++) {
			struct stat3 out[T_KINDS];

			if (run_row(order, 1UL << b, out) < 0)
				return LR_EXIT_FAILURE;
			for (int k = 0; k < T_KINDS; k++)
				res[k][order][b] = out[k];
		}
		for (int k = 0; k < T_KINDS; k++) {
			for (unsigned b = 0; (1UL << b) <= maxb; b++) {
				char name[32];

				snprintf(name, sizeof(name), "%s-odr%u-%lu",
					 kind_names[k], order, 1UL << b);
				print_row(name, res[k][order][b],
					  ref[k][order][b]);
			}
		}
	}
	if (opt.bulk)
		printf("# kernel bulk API for comparison (another CPU): 98 "
		       "cycles/page alloc+free with the array API\n"
		       "# at bulk 64 (Linux 5.13 bulk page allocator, Xeon "
		       "E5-1650 v4, Jesper Brouer's measurements)\n");
	free(pages);
	lr_eal_cleanup();
	return LR_EXIT_OK;
}
