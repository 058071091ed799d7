/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The command line of every program (lr_app.h): the loop over its own
 * options, numbers and N-or-MIN-MAX ranges read with the error that names
 * the option, and the message for an option getopt refused. Linked by
 * programs that have no linerate library too, and by the fuzz targets of
 * the programs' parsers: nothing here calls one.
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
