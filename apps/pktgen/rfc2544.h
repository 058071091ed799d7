/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rfc2544.h - what the RFC 2544 tests of lr-pktgen share (private to
 * apps/pktgen): the search state of a frame size (rfc2544.c runs the
 * throughput and latency tests over it), the trials as the search keeps
 * them, and the helpers that the frame-loss and back-to-back tests
 * (rfc2544_modes.c) use too.
 *
 * Errors: functions returning int give 0, or -1 after printing why
 * (pg_fail); rfc_trial_at() also 1 (see there).
 */
#ifndef PG_RFC2544_H
#define PG_RFC2544_H

#include <jansson.h>

#include "pktgen.h"

enum { NDR, PDR, NTGT };

/* One of the two rates searched, in one repetition. */
struct tgt {
	double loss; /* loss ratio allowed */
	/* The current phase's bounds (bounds()). */
	double lb, ub;
	bool lb_ok;	/* lb passed a trial of the phase's length */
	bool ub_failed; /* ub failed a trial (else it is the max) */
	double w;	/* the next step outward */
	double guess;	/* the first rate of the phase; 0: none */
	bool fwd_last;	/* the last trial went where fwd_guess() said */
	/* The result. */
	double rate; /* 0: none passed */
	double prec; /* the lowest rate that failed above it, minus it */
	bool capped; /* no rate above it failed: the max held it back */
	const struct rec *at; /* the trial that confirmed it */
};

/* A trial as the search keeps it. */
struct rec {
	double pps;
	bool final;
	bool valid;
	bool pass[NTGT];
	double fwd;		    /* frames/s the device forwarded */
	struct pg_trial_stream all; /* its figures and latency */
	json_t *streams;	    /* per stream, latency included */
};

/* One search: a size, a repetition. */
struct search {
	unsigned size;		/* with FCS; 0: IMIX */
	double line, max0, min; /* frames/s */
	double max;		/* lowered where the generator falls short */
	bool final;		/* the phase: trials of --final-trial-s */
	struct tgt t[NTGT];
	struct rec *recs;
	unsigned nrecs, cap;
	unsigned phase_trials;
	json_t *trials; /* the size's, every repetition's */
	json_t *notes;
	unsigned rep;
	bool bursts; /* back-to-back: trials are bursts (trial.c, late) */
};

/** Trials run so far, over the whole run (numbers them). */
extern unsigned rfc_ntrials;

/** Say why the test stops (kept for the JSON document too); -1. */
int __attribute__((format(printf, 1, 2))) rfc_stop(const char *fmt, ...);
/** Mean frame size (with FCS) of size (0: IMIX). */
double rfc_mean_size(unsigned size);
/** Wire bits of a frame of size: frame, preamble and gap. */
double rfc_wire_bits(unsigned size);
/** "64 B" or "IMIX" into buf. */
const char *rfc_size_name(unsigned size, char *buf, size_t n);
/** A line said during a test: printed, and kept in the size's notes. */
void __attribute__((format(printf, 2, 3)))
rfc_say(struct search *s, const char *fmt, ...);
/** Sum of the sending ports' link speeds in bits/s. */
double rfc_line_bps(void);
/** The max and min rates at size (frames/s) into s; 0, or -1 after
 *  saying which bound is impossible. */
int rfc_set_bounds(struct search *s, unsigned size, double bps);
/** Per stream figures of a trial (lat: their latency too). */
json_t *rfc_json_streams(const struct pg_trial_stream *st, bool lat);
/** A trial at rate for secs, recorded in s (printed, in the JSON), run
 *  again while invalid: 0 valid, 1 invalid every time (the max lowered),
 *  -1 the test stops (a port stalled, a stop signal, the generator cannot
 *  send the min rate). */
int rfc_trial_at(struct search *s, double rate, double secs,
		 const char *purpose);
/** A short trial at the max rate, lowered while the generator cannot
 *  keep up with it; 0 or -1. */
int rfc_max_trial(struct search *s);
/** Free the trials s keeps. */
void rfc_free_recs(struct search *s);
/** Write doc (consumed) to --json's stream; the test's error if any. */
void rfc_write_json(json_t *doc);

/** --rfc2544 frame-loss over every size; the exit status. */
int rfc_frame_loss_run(double bps);
/** --rfc2544 back-to-back over every size; the exit status. */
int rfc_back_to_back_run(double bps);

#endif /* PG_RFC2544_H */
