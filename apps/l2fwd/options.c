/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * options.c - lr-l2fwd's command line (after the EAL's `--`), apart from
 * main.c so the fuzz target test/fuzz/fuzz_cmdline.c parses with the very
 * same code. Every bad value is reported with the option and the text.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "l2fwd_opts.h"
#include "lr_app.h"

void
l2fwd_usage(FILE *f, const char *prog)
{
	fprintf(
	    f,
	    "%s [EAL options] -- -p PORTMASK [-q NQ] [-Q N] [-T PERIOD]\n"
	    "       [--no-mac-updating] [--portmap=(a,b)[,(c,d)]] [--duration "
	    "S]\n"
	    "       [--record-core-cycles] [--xstats] [--mbufs MIN-MAX|N]\n"
	    "       [--mbufs-idle MS]\n"
	    "  -p PORTMASK        hexadecimal mask of the ports to use\n"
	    "  -q NQ              rx queues (port, queue) polled per lcore "
	    "(default:\n"
	    "                     spread evenly)\n"
	    "  -Q, --queues N     rx and tx queues per port, 1..%d (default "
	    "1); queue q\n"
	    "                     of a port forwards to queue q of its "
	    "pair\n"
	    "  -T PERIOD          print stats every PERIOD seconds (default "
	    "10, 0 off)\n"
	    "  --no-mac-updating  forward frames unchanged\n"
	    "  --mac-updating     rewrite MACs (default)\n"
	    "  --portmap=(a,b),.. pair ports a and b (default: 0-1, 2-3, ...)\n"
	    "  --duration S       stop after S seconds\n"
	    "  --record-core-cycles  count TSC cycles of the polls that "
	    "received\n"
	    "                     frames; print cycles per frame at the end\n"
	    "  --xstats           print every port's counters and non-zero "
	    "extended\n"
	    "                     stats at the end\n"
	    "  --mbufs MIN-MAX    elastic mbuf pool: MIN mbufs at start, "
	    "growing\n"
	    "                     up to MAX under bursts, shrinking back "
	    "when idle\n"
	    "                     (default: elastic, a quarter to twice the "
	    "fixed size\n"
	    "                     the ports need); --mbufs N: a fixed pool "
	    "of N\n"
	    "  --mbufs-idle MS    an elastic pool gives back blocks idle for "
	    "MS ms\n"
	    "                     (default %u, 0: only under memory "
	    "pressure)\n",
	    prog, LR_MAX_QUEUES_PER_PORT, L2FWD_IDLE_MS);
}

/* A port number of --portmap at *p: digits only, below LR_MAX_ETHPORTS;
 * advances *p past it and any blanks. 0, or -1 when there is none. */
static int
portmap_num(const char **p, unsigned *out)
{
	const char *s = *p;
	unsigned long v = 0;

	while (*s == ' ')
		s++;
	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (unsigned long)(*s - '0');
		if (v >= LR_MAX_ETHPORTS)
			return -1;
	}
	while (*s == ' ')
		s++;
	*out = (unsigned)v;
	*p = s;
	return 0;
}

/* One "(a,b)" at *p into a and b, *p advanced past it; 0 or -1. */
static int
portmap_pair(const char **p, unsigned *a, unsigned *b)
{
	const char *s = *p;

	while (*s == ' ')
		s++;
	if (*s++ != '(' || portmap_num(&s, a) < 0 || *s++ != ',' ||
	    portmap_num(&s, b) < 0 || *s++ != ')')
		return -1;
	*p = s;
	return 0;
}

/* "(a,b),(c,d)" into o->map; 0 or -1 after a message. */
static int
parse_portmap(struct l2fwd_opts *o, const char *s)
{
	const char *p = s;

	while (*p) {
		unsigned a, b;

		if (portmap_pair(&p, &a, &b) < 0) {
			fprintf(stderr,
				"--portmap '%s': expected (a,b)[,(c,d)...] "
				"with ports below %u at '%s'\n",
				s, LR_MAX_ETHPORTS, p);
			return -1;
		}
		if (a == b) {
			fprintf(stderr, "--portmap '%s': bad pair (%u,%u)\n", s,
				a, b);
			return -1;
		}
		if (o->n_map == LR_MAX_ETHPORTS) {
			fprintf(stderr, "--portmap '%s': too many pairs\n", s);
			return -1;
		}
		o->map[o->n_map][0] = (uint16_t)a;
		o->map[o->n_map][1] = (uint16_t)b;
		o->n_map++;
		if (*p == ',')
			p++;
		else if (*p) {
			fprintf(stderr, "--portmap '%s': unexpected '%s'\n", s,
				p);
			return -1;
		}
	}
	if (o->n_map == 0) {
		fprintf(stderr, "--portmap '%s': no pair\n", s);
		return -1;
	}
	return 0;
}

static int
parse_uint(const char *what, const char *s, int base, unsigned long max,
	   unsigned long *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, base);
	if (s[0] == '\0' || s[0] == '-' || *end || errno || v > max) {
		fprintf(stderr, "%s '%s': expected a number up to %lu\n", what,
			s, max);
		return -1;
	}
	*out = v;
	return 0;
}

/* --queues N (-Q N): 1..LR_MAX_QUEUES_PER_PORT; 0 or -1 after a message. */
static int
parse_queues(struct l2fwd_opts *o, const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (s[0] < '0' || s[0] > '9' || *end || errno || v == 0 ||
	    v > LR_MAX_QUEUES_PER_PORT) {
		fprintf(stderr,
			"--queues '%s': expected a number of queues per port, "
			"1..%d\n",
			s, LR_MAX_QUEUES_PER_PORT);
		return -1;
	}
	o->queues = (unsigned)v;
	return 0;
}

/* The message for an option getopt refused: unknown, or missing its value. */
static void
bad_option(const char *prog, const char *arg)
{
	if (strncmp(arg, "--", 2) == 0 && strchr(arg, '=') == NULL &&
	    (strcmp(arg + 2, "portmap") == 0 ||
	     strcmp(arg + 2, "duration") == 0 ||
	     strcmp(arg + 2, "mbufs") == 0 ||
	     strcmp(arg + 2, "mbufs-idle") == 0 ||
	     strcmp(arg + 2, "queues") == 0))
		fprintf(stderr, "option '%s' needs a value\n", arg);
	else if (optopt && strchr("pqQT", optopt) && arg[1] != '-')
		fprintf(stderr, "option -%c needs a value\n", optopt);
	else
		fprintf(stderr, "unknown option '%s'\n", arg);
	fprintf(stderr, "run '%s -- -h' for the options\n", prog);
}

/* One option c with its value arg (getopt's optarg) into o: 0, or -1
 * after a message. */
static int
apply_option(int c, const char *arg, struct l2fwd_opts *o)
{
	unsigned long v;
	char *end;

	switch (c) {
	case 'p':
		if (parse_uint("-p", arg, 16, UINT32_MAX, &v) < 0)
			return -1;
		if (v == 0) {
			fprintf(stderr, "-p '%s': no port in the mask\n", arg);
			return -1;
		}
		o->portmask = (uint32_t)v;
		return 0;
	case 'q':
		if (parse_uint("-q", arg, 10, LR_MAX_ETHPORTS, &v) < 0)
			return -1;
		if (v == 0) {
			fprintf(stderr, "-q '%s': at least 1\n", arg);
			return -1;
		}
		o->nq = (unsigned)v;
		return 0;
	case 'Q':
		return parse_queues(o, arg);
	case 'T':
		if (parse_uint("-T", arg, 10, 86400, &v) < 0)
			return -1;
		o->period = (unsigned)v;
		return 0;
	case 'C':
		o->record_cycles = 1;
		return 0;
	case 'X':
		o->xstats = 1;
		return 0;
	case 'N':
	case 'M':
		o->mac_updating = c == 'M';
		return 0;
	case 'P':
		return parse_portmap(o, arg);
	case 'B': /* N (a fixed pool) or MIN-MAX (elastic) */
		return lr_app_parse_range("lr-l2fwd", "--mbufs", arg,
					  L2FWD_MBUFS_LOW, L2FWD_MBUFS_HIGH,
					  &o->mbufs_min, &o->mbufs_max);
	case 'I':
		if (parse_uint("--mbufs-idle", arg, 10, 3600000, &v) < 0)
			return -1;
		o->idle_ms = (unsigned)v;
		return 0;
	case 'D':
		o->duration = strtod(arg, &end);
		if (arg[0] == '\0' || *end || !(o->duration > 0) ||
		    o->duration > 1e6) {
			fprintf(stderr,
				"--duration '%s': expected seconds > 0\n", arg);
			return -1;
		}
		return 0;
	}
	return -1;
}

int
l2fwd_parse_args(int argc, char **argv, struct l2fwd_opts *o)
{
	static const struct option longopts[] = {
	    {"no-mac-updating", no_argument, NULL, 'N'},
	    {"mac-updating", no_argument, NULL, 'M'},
	    {"portmap", required_argument, NULL, 'P'},
	    {"duration", required_argument, NULL, 'D'},
	    {"record-core-cycles", no_argument, NULL, 'C'},
	    {"xstats", no_argument, NULL, 'X'},
	    {"queues", required_argument, NULL, 'Q'},
	    {"mbufs", required_argument, NULL, 'B'},
	    {"mbufs-idle", required_argument, NULL, 'I'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	memset(o, 0, sizeof(*o));
	opterr = 0; /* bad_option() names the option itself */
	o->period = 10;
	o->mac_updating = 1;
	o->queues = 1;
	o->idle_ms = L2FWD_IDLE_MS;
	optind = 0; /* the EAL used getopt before: start over */
	while ((c = getopt_long(argc, argv, "p:q:Q:T:h", longopts, NULL)) !=
	       -1) {
		if (c == 'h') {
			l2fwd_usage(stdout, argv[0]);
			return 1;
		}
		if (c <= 0 || strchr("pqQTCXNMPDBI", c) == NULL) {
			bad_option(argv[0], argv[optind - 1]);
			return -1;
		}
		if (apply_option(c, optarg, o) < 0)
			return -1;
	}
	if (optind < argc) {
		fprintf(stderr, "unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (o->portmask == 0) {
		fprintf(stderr,
			"-p PORTMASK is required\nrun '%s -- -h' for the "
			"options\n",
			argv[0]);
		return -1;
	}
	return 0;
}
