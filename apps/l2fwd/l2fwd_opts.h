/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * l2fwd_opts.h - lr-l2fwd's options (after the EAL's `--`) and their
 * parser, options.c. Parsing is for start-up only; it uses getopt and so
 * is not thread-safe. Errors are printed to stderr naming the option and
 * the text given.
 */
#ifndef L2FWD_OPTS_H
#define L2FWD_OPTS_H

#include <stdint.h>
#include <stdio.h>

#include "lr_ethdev.h"

/** Bounds of --mbufs (the pool's cache of 256 needs some room). */
#define L2FWD_MBUFS_LOW	 512
#define L2FWD_MBUFS_HIGH (1u << 24)
/** Default --mbufs-idle: blocks idle this long (ms) are given back. */
#define L2FWD_IDLE_MS 1000

/** What the command line sets. */
struct l2fwd_opts {
	uint32_t portmask;
	unsigned nq;	 /* rx queues per lcore, 0: spread evenly */
	unsigned queues; /* rx and tx queues per port (1) */
	unsigned period; /* seconds, 0: no periodic stats */
	double duration; /* seconds, 0: until a signal */
	int mac_updating;
	int record_cycles;  /* --record-core-cycles */
	int xstats;	    /* --xstats */
	unsigned mbufs_min; /* --mbufs MIN-MAX (0-0: from the ports) */
	unsigned mbufs_max; /* == mbufs_min: a fixed pool */
	unsigned idle_ms;   /* --mbufs-idle: elastic pool's idle shrink */
	unsigned n_map;
	uint16_t map[LR_MAX_ETHPORTS][2];
};

/** Parse argv into o (defaults first): 0; 1 after printing the usage for
 *  -h/--help; -1 after printing what was wrong (on stderr, and the line
 *  that points at -h). */
int l2fwd_parse_args(int argc, char **argv, struct l2fwd_opts *o);

/** Print the usage of lr-l2fwd's own options (prog is argv[0]) to f. */
void l2fwd_usage(FILE *f, const char *prog);

#endif /* L2FWD_OPTS_H */
