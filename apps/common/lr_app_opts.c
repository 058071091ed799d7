/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The command line of every program (lr_app.h): the loop over its own
 * options, a table of whole-number options, numbers and N-or-MIN-MAX ranges
 * read with the error that names the option, and the message for an option
 * getopt refused. Linked by programs that have no linerate library too, and by
 * the fuzz targets of the programs' parsers: nothing here calls one.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lr_app.h"

int
lr_app_getopt(int argc, char **argv, const char *optstring,
	      const struct option *longopts,
	      void (*usage)(FILE *f, const char *prog),
	      int (*take)(int c, const char *arg, void *ctx), void *ctx)
{
	int c;

	optind = 0; /* the EAL read its options with getopt: start over */
	opterr = 0; /* lr_app_bad_option() names the option itself */
	while ((c = getopt_long(argc, argv, optstring, longopts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout, argv[0]);
			return 1;
		}
		if (c == '?' || c == ':') {
			lr_app_bad_option(argv[0], c, argv);
			return -1;
		}
		if (take(c, optarg, ctx) < 0)
			return -1;
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", argv[0],
			argv[optind]);
		return -1;
	}
	return 0;
}

/* What take_num() reads: the table, and the arguments getopt goes
 * through (to name an option as it was typed). */
struct nums_ctx {
	const struct lr_app_nums *nums;
	char **argv;
};

/* The option getopt took with value arg, as it was typed, into name (n
 * bytes): "--runs" of "--runs=0" or "--runs 0", "-r" of "-r0" or "-r 0". */
static void
typed_name(char **argv, const char *arg, char *name, size_t n)
{
	const char *o = argv[optind - 1];

	if (o == arg) /* the value was an argument of its own */
		o = argv[optind - 2];
	if (strncmp(o, "--", 2) == 0)
		snprintf(name, n, "%.*s", (int)strcspn(o, "="), o);
	else
		snprintf(name, n, "-%c", o[1]);
}

/* One option c of a struct lr_app_nums (lr_app_getopt()'s take) with its
 * value arg into its variable: 0, or -1 after a message (the variable
 * untouched). */
static int
take_num(int c, const char *arg, void *ctx)
{
	const struct nums_ctx *x = ctx;
	const struct lr_app_num_opt *o = x->nums->opt;
	unsigned long v;
	unsigned lo, hi;
	char name[64];

	while (o->name != NULL && o->c != c)
		o++;
	if (o->name == NULL)
		return -1; /* getopt returns none but the table's */
	typed_name(x->argv, arg, name, sizeof(name));
	if (o->hi != NULL) {
		if (lr_app_parse_range(x->argv[0], name, arg, (unsigned)o->min,
				       (unsigned)o->max, &lo, &hi) < 0)
			return -1;
		*o->v = lo;
		*o->hi = hi;
		return 0;
	}
	if (lr_app_parse_num(x->argv[0], name, arg, o->min, o->max, &v) < 0)
		return -1;
	*o->v = v;
	return 0;
}

int
lr_app_parse_nums(int argc, char **argv, void *opts)
{
	const struct lr_app_nums *nums = opts;
	struct option lo[LR_APP_NUMS_MAX + 2];
	char optstring[2 * LR_APP_NUMS_MAX + 3] = ":";
	struct nums_ctx ctx = {nums, argv};
	size_t n, k = 1;

	for (n = 0; nums->opt[n].name != NULL; n++) {
		if (n == LR_APP_NUMS_MAX) {
			fprintf(stderr,
				"%s: more than %d options in its table\n",
				argv[0], LR_APP_NUMS_MAX);
			return -1;
		}
		lo[n] = (struct option){nums->opt[n].name, required_argument,
					NULL, nums->opt[n].c};
		if (nums->short_too) {
			optstring[k++] = (char)nums->opt[n].c;
			optstring[k++] = ':';
		}
	}
	lo[n] = (struct option){"help", no_argument, NULL, 'h'};
	lo[n + 1] = (struct option){NULL, 0, NULL, 0};
	optstring[k++] = 'h';
	optstring[k] = '\0';
	return lr_app_getopt(argc, argv, optstring, lo, nums->usage, take_num,
			     &ctx);
}

int
lr_app_parse_num(const char *prog, const char *opt, const char *s,
		 unsigned long min, unsigned long max, unsigned long *v)
{
	char *end;

	if (max > UINT32_MAX)
		max = UINT32_MAX;
	errno = 0;
	*v = strtoul(s, &end, 0);
	if (*s < '0' || *s > '9' || *end != '\0' || errno != 0 || *v < min ||
	    *v > max) {
		fprintf(stderr,
			"%s: %s '%s': expected a number from %lu to %lu\n",
			prog, opt, s, min, max);
		return -1;
	}
	return 0;
}

int
lr_app_parse_range(const char *prog, const char *opt, const char *s,
		   unsigned low, unsigned high, unsigned *lo, unsigned *hi)
{
	unsigned long a, b;
	char *end;

	errno = 0;
	a = strtoul(s, &end, 10);
	b = a;
	if (end != s && *end == '-' && end[1] >= '0' && end[1] <= '9')
		b = strtoul(end + 1, &end, 10);
	if (*s < '0' || *s > '9' || *end != '\0' || errno != 0 || a > b ||
	    b < low || b > high) {
		fprintf(stderr,
			"%s: %s '%s': expected N or MIN-MAX with MIN <= MAX, "
			"MAX in %u..%u\n",
			prog, opt, s, low, high);
		return -1;
	}
	*lo = (unsigned)a;
	*hi = (unsigned)b;
	return 0;
}

int
lr_app_bad_option(const char *prog, int c, char *const *argv)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	char name[64];

	/* An unknown long option leaves optopt 0; a long one missing its
	 * value is the last argument getopt took. */
	if ((c == '?' && optopt == 0) ||
	    (c == ':' && strncmp(arg, "--", 2) == 0))
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(arg, "="),
			 arg);
	else
		snprintf(name, sizeof(name), "-%c", optopt);
	if (c == ':')
		fprintf(stderr, "%s: option '%s' needs a value\n", prog, name);
	else
		fprintf(stderr,
			"%s: unknown option '%s' (%s --help lists "
			"them)\n",
			prog, name, prog);
	return LR_EXIT_USAGE;
}
