/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rfc2544.c - lr-pktgen --rfc2544 throughput: the throughput test of RFC
 * 2544 (section 26.1) as a search over trials (trial.c), per frame size,
 * for two rates: the non-drop rate (NDR: no frame of a trial lost) and the
 * partial-drop rate (PDR: at most --pdr-loss percent lost).
 *
 * The search, per size (and per repetition, --repeat), in few trials, as
 * FD.io CSIT's MLRsearch does: short trials to find the bounds, long ones
 * to confirm them.
 *   1. A short trial (--trial-s) at the max rate. Where the generator
 *      cannot keep up with it (MAX_ATTEMPTS trials invalid), the max is
 *      lowered below what it did send, said so, and tried again.
 *   2. Short trials between the bounds of each rate: the lower bound is
 *      the highest rate that passed below the upper one, the upper bound
 *      the lowest rate that failed (else the max). The next trial goes
 *      where the device's forwarding rate in the trial at the upper bound
 *      points (for the PDR that rate over 1 - loss), when that is inside
 *      the interval; else a step out from the lower bound or down from the
 *      upper one, the precision first, doubling; else the middle. It stops
 *      when the bounds are within the precision (--precision percent of
 *      the max), or when the min rate failed (none).
 *   3. The same with final trials (--final-trial-s), from the lower bound
 *      found: it passes (confirmed), or the search goes on below it until
 *      a final trial passes within the precision of the lowest rate that
 *      failed.
 * Every trial counts for both rates. A rate that failed a short trial is
 * taken to fail a longer one too (loss only adds up); a pass counts only
 * at the length of its phase. A rate that failed below one that passed
 * (a moment of the host's, not the device's) is run once more, and the
 * later result holds. An invalid trial (trial.c: the generator did
 * not send what it was asked, or lost frames of its own) counts neither
 * way: it is run again, and invalid every time it lowers the max, so that
 * the search never reports a rate the generator could not send; where the
 * generator did send that rate or more before, the host is too busy and
 * the search stops. The precision reached is stated: the distance from
 * the rate found to the lowest rate that failed above it (or to the max).
 *
 * Rates are frames/s over every stream, split by their shares (as
 * --rate-pps); the line rate is the sum of the sending ports' link speeds
 * (--line-rate-gbps where a port does not know its speed, or over every
 * port's when given), in frames/s of
 * the size on the wire (frame + 20 bytes of preamble and gap).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "lr_eal.h"
#include "pktgen.h"
#include "rfc2544.h"

/* Most trials of a search phase (a safeguard: the bounds close long
 * before). */
#define MAX_PHASE_TRIALS 64
/* Most times the generator's limit lowers the max of a search. */
#define MAX_LOWERINGS 12
/* Trials at a rate, all invalid, before the generator is taken to be
 * unable to keep up with it. */
#define MAX_ATTEMPTS 3
/* IMIX's mean frame size (7 x 64, 4 x 570, 1 x 1518). */
#define IMIX_MEAN (4246.0 / 12)

static const char *const tgt_name[NTGT] = {"NDR", "PDR"};
static const char *const again[NTGT] = {"NDR, again", "PDR, again"};

unsigned rfc_ntrials;
static char why_stopped[512]; /* what ended the search early */

/* Say why the search stops (also kept for the JSON document); -1. */
int __attribute__((format(printf, 1, 2))) rfc_stop(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why_stopped, sizeof(why_stopped), fmt, ap);
	va_end(ap);
	return pg_fail("%s", why_stopped);
}

/* Mean frame size (with FCS) of size (0: IMIX). */
double
rfc_mean_size(unsigned size)
{
	return size ? (double)size : IMIX_MEAN;
}

/* Wire bits of a frame of size: frame, preamble and gap. */
double
rfc_wire_bits(unsigned size)
{
	return (rfc_mean_size(size) + PG_WIRE_GAP) * 8;
}

unsigned
pg_rfc2544_max_len(void)
{
	unsigned m = 0;

	for (unsigned i = 0; i < pg.o.rfc_nsizes; i++)
		m = LR_MAX(m, pg.o.rfc_sizes[i] ? pg.o.rfc_sizes[i] : 1518u);
	return m - PG_FCS;
}

const char *
rfc_size_name(unsigned size, char *buf, size_t n)
{
	if (size == 0)
		snprintf(buf, n, "IMIX");
	else
		snprintf(buf, n, "%u B", size);
	return buf;
}

/* A line said during the search: printed, and kept in the size's notes. */
void __attribute__((format(printf, 2, 3)))
rfc_say(struct search *s, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	printf("%s\n", line);
	fflush(stdout);
	json_array_append_new(s->notes, json_string(line));
}

/* ---- Bounds and line rate (before any trial) ---- */

/* Sum of the sending ports' link speeds in bits/s. */
double
rfc_line_bps(void)
{
	uint32_t tx = 0;
	double bps = 0;

	for (unsigned i = 0; i < pg.nstreams; i++)
		tx |= 1u << pg.txq[i]->port;
	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++) {
		struct lr_eth_link l;

		if (!(tx >> p & 1))
			continue;
		if (!pg.o.line_rate_set && lr_eth_link_get_nowait(p, &l) == 0 &&
		    l.link_speed != 0)
			bps += (double)l.link_speed * 1e6;
		else
			bps += pg.o.line_rate_gbps * 1e9;
	}
	return bps;
}

/* Bound b in frames/s at size, for a line rate of line frames/s. */
static double
bound_pps(const struct pg_rate_bound *b, unsigned size, double line)
{
	if (b->unit == PG_RATE_PCT)
		return line * b->v / 100;
	if (b->unit == PG_RATE_MBPS)
		return b->v * 1e6 / rfc_wire_bits(size);
	return b->v;
}

/* "--max-rate 120mbps (178571 frames/s at 64 B)". */
static const char *
bound_str(const char *opt, const struct pg_rate_bound *b, double pps,
	  unsigned size, char *buf, size_t n)
{
	static const char *const unit[] = {"", "", "mbps", "%"};
	char sz[16];

	snprintf(buf, n, "%s %.10g%s (%.0f frames/s at %s)", opt, b->v,
		 unit[b->unit], pps, rfc_size_name(size, sz, sizeof(sz)));
	return buf;
}

/* The max and min rates at size (frames/s) into s; 0, or -1 after saying
 * which bound is impossible. */
int
rfc_set_bounds(struct search *s, unsigned size, double bps)
{
	const struct pg_opts *o = &pg.o;
	char a[128], b[128], sz[16];

	s->size = size;
	s->line = bps / rfc_wire_bits(size);
	s->max0 = s->line;
	if (o->max_rate.unit != PG_RATE_MAX)
		s->max0 = bound_pps(&o->max_rate, size, s->line);
	/* Default: a thousandth of the max, at least 10 frames a trial. */
	s->min = LR_MIN(s->max0, LR_MAX(s->max0 / 1000, 10 / o->trial_s));
	if (o->min_rate.unit != PG_RATE_MAX)
		s->min = bound_pps(&o->min_rate, size, s->line);
	if (s->min * o->trial_s < pg.nstreams)
		return pg_fail("%s: a trial of --trial-s %g s holds less than "
			       "a frame for each of the %u stream instances",
			       bound_str("--min-rate", &o->min_rate, s->min,
					 size, a, sizeof(a)),
			       o->trial_s, pg.nstreams);
	if (s->max0 > s->line * (1 + 1e-9))
		return pg_fail("%s is above the line rate of the sending "
			       "ports at %s: %.0f frames/s (%.0f Mbit/s)",
			       bound_str("--max-rate", &o->max_rate, s->max0,
					 size, a, sizeof(a)),
			       rfc_size_name(size, sz, sizeof(sz)), s->line,
			       bps / 1e6);
	if (s->min > s->max0)
		return pg_fail("%s is above %s: no rate to search",
			       bound_str("--min-rate", &o->min_rate, s->min,
					 size, a, sizeof(a)),
			       o->max_rate.unit != PG_RATE_MAX
				   ? bound_str("--max-rate", &o->max_rate,
					       s->max0, size, b, sizeof(b))
				   : "the line rate");
	s->max = s->max0;
	return 0;
}

/* Every size's bounds possible, every stream able to take every size and
 * a rate set by the search; 0, or -1 after saying what is wrong. */
static int
check_all(void)
{
	struct search s;
	double bps = rfc_line_bps();

	for (unsigned k = 0; k < pg.nsdefs; k++) {
		const struct pg_sdef *d = &pg.sdefs[k];

		if (d->rate_mode != PG_RATE_MAX || d->count || d->burst)
			return pg_fail("--rfc2544: stream '%s' has a rate, "
				       "count or burst pattern of its own: "
				       "the search sets the rate of every "
				       "stream",
				       d->name);
	}
	for (unsigned i = 0; i < pg.o.rfc_nsizes; i++) {
		memset(&s, 0, sizeof(s));
		if (rfc_set_bounds(&s, pg.o.rfc_sizes[i], bps) != 0 ||
		    pg_trial_set_size(pg.o.rfc_sizes[i]) != 0)
			return -1;
	}
	return 0;
}

/* ---- Trials ---- */

static json_t *
json_lat(const struct pg_trial_stream *s)
{
	const double *l = s->lat_us;

	if (s->lat_n == 0)
		return json_pack("{s:I}", "n", (json_int_t)0);
	return json_pack("{s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "n",
			 (json_int_t)s->lat_n, "min", l[PG_TQ_MIN], "p50",
			 l[PG_TQ_P50], "p90", l[PG_TQ_P90], "p99", l[PG_TQ_P99],
			 "p999", l[PG_TQ_P999], "p9999", l[PG_TQ_P9999], "max",
			 l[PG_TQ_MAX]);
}

/* Per stream figures of a trial (lat: their latency too). */
json_t *
rfc_json_streams(const struct pg_trial_stream *st, bool lat)
{
	json_t *a = json_array();

	for (unsigned k = 0; k < pg.nsdefs; k++) {
		json_t *j = json_pack(
		    "{s:i, s:s, s:I, s:I, s:I, s:I, s:I}", "stream", k, "name",
		    pg.sdefs[k].name, "tx", (json_int_t)st[k].tx, "rx",
		    (json_int_t)st[k].rx, "lost", (json_int_t)st[k].lost,
		    "reordered", (json_int_t)st[k].reordered, "dup",
		    (json_int_t)st[k].dup);

		if (lat)
			json_object_set_new(j, "latency_us", json_lat(&st[k]));
		json_array_append_new(a, j);
	}
	return a;
}

static json_t *
verdict(const struct rec *r, int g)
{
	return r->valid ? json_string(r->pass[g] ? "pass" : "fail")
			: json_null();
}

/* Trial t as a JSON object. */
static json_t *
json_trial(const struct search *s, const struct pg_trial *t,
	   const struct rec *r, const char *purpose)
{
	json_t *j = json_pack(
	    "{s:i, s:i, s:s, s:b, s:f, s:f, s:I, s:I, s:I, s:I, s:f, s:I, "
	    "s:I, s:f, s:s, s:o, s:o, s:o}",
	    "n", rfc_ntrials, "repetition", s->rep + 1, "purpose", purpose,
	    "final", r->final, "rate_pps", t->pps, "duration_s", t->secs,
	    "expected", (json_int_t)t->expected, "tx", (json_int_t)t->tx, "rx",
	    (json_int_t)t->rx, "lost", (json_int_t)t->lost, "loss_ratio",
	    t->loss, "reordered", (json_int_t)t->reordered, "dup",
	    (json_int_t)t->dup, "achieved_pps", t->tx_pps, "verdict",
	    t->valid ? "valid" : "invalid", "ndr", verdict(r, NDR), "pdr",
	    verdict(r, PDR), "streams", json_incref(r->streams));

	json_object_set_new(j, "reason",
			    t->valid ? json_null() : json_string(t->reason));
	json_object_set_new(j, "tx_behind",
			    json_integer((json_int_t)t->behind));
	json_object_set_new(j, "late_ms", json_real(t->late_s * 1e3));
	json_object_set_new(j, "refused_ring_full",
			    json_integer((json_int_t)t->refused));
	return j;
}

/* A line for trial t. */
static void
print_trial(const struct search *s, const struct pg_trial *t,
	    const struct rec *r, const char *purpose)
{
	char sz[16];

	if (pg.o.quiet)
		return;
	printf("trial %u (%s, %s%s): %.0f frames/s for %g s: tx %llu rx "
	       "%llu lost %llu (%.4g%%)",
	       rfc_ntrials, rfc_size_name(s->size, sz, sizeof(sz)), purpose,
	       r->final ? ", final" : "", t->pps, t->secs,
	       (unsigned long long)t->tx, (unsigned long long)t->rx,
	       (unsigned long long)t->lost, 100 * t->loss);
	if (t->refused)
		printf(" (%llu refused: ring full)",
		       (unsigned long long)t->refused);
	if (t->valid)
		printf(": NDR %s, PDR %s\n", r->pass[NDR] ? "pass" : "fail",
		       r->pass[PDR] ? "pass" : "fail");
	else
		printf(": invalid: %s\n", t->reason);
	fflush(stdout);
}

/* Record trial t of the search. 0 or -1 (out of memory). */
static int
record(struct search *s, const struct pg_trial *t, const char *purpose)
{
	struct rec *r;

	if (s->nrecs == s->cap) {
		unsigned cap = s->cap ? 2 * s->cap : 32;
		struct rec *n = realloc(s->recs, cap * sizeof(*n));

		if (n == NULL)
			return pg_fail("out of memory");
		s->recs = n;
		s->cap = cap;
	}
	r = &s->recs[s->nrecs++];
	r->pps = t->pps;
	r->final = s->final;
	r->valid = t->valid;
	for (int g = 0; g < NTGT; g++)
		r->pass[g] = t->valid && (g == NDR ? t->lost == 0
						   : t->loss <= s->t[g].loss);
	r->all = t->all;
	r->streams = rfc_json_streams(t->st, true);
	r->fwd = (double)(t->tx_own - t->lost) / t->secs;
	rfc_ntrials++;
	print_trial(s, t, r, purpose);
	json_array_append_new(s->trials, json_trial(s, t, r, purpose));
	return 0;
}

/* The highest rate of a valid trial of the search; 0: none. */
static double
valid_top(const struct search *s)
{
	double top = 0;

	for (unsigned i = 0; i < s->nrecs; i++)
		if (s->recs[i].valid)
			top = LR_MAX(top, s->recs[i].pps);
	return top;
}

/* Every trial at rate was invalid, the last one t: the generator cannot
 * keep up with it, and the max goes below what it sent; 0. Where a trial
 * at that rate or above was valid before, the generator's speed varies
 * (with the host's load, or with the device: a port that drops what its
 * full ring refuses sends faster than one that copies): said so, and the
 * max lowered all the same. Where the new max is below the min, nothing
 * can be measured: -1. */
static int
lower_max(struct search *s, const struct pg_trial *t, double rate)
{
	double prec = pg.o.precision / 100 * s->max;
	double m = LR_MIN(rate, t->tx_pps) * (1 - 2 * 0.005);
	char sz[16];

	m = LR_MIN(m, rate - prec);
	rfc_size_name(s->size, sz, sizeof(sz));
	if (valid_top(s) >= rate)
		rfc_say(s,
			"%s: %d trials in a row at %.0f frames/s were invalid, "
			"though one at %.0f frames/s was valid before: the "
			"generator's speed varies here (the host's load, or "
			"the device's)",
			sz, MAX_ATTEMPTS, rate, valid_top(s));
	if (m < s->min)
		return rfc_stop(
		    "%s: the generator cannot send even the min rate "
		    "of %.0f frames/s here (%s)",
		    sz, s->min, t->reason);
	rfc_say(
	    s,
	    "%s: the generator cannot keep up with %.0f frames/s here (%d "
	    "trials invalid, the last: %s): the max rate is lowered to %.0f "
	    "frames/s",
	    sz, rate, MAX_ATTEMPTS, t->reason, m);
	s->max = m;
	return 0;
}

/* A trial at rate for secs, again while invalid (MAX_ATTEMPTS in all).
 * 0 valid, 1 invalid every time (the max lowered), -1 the search stops (a
 * port stalled, a stop signal, the generator cannot send the min rate). */
int
rfc_trial_at(struct search *s, double rate, double secs, const char *purpose)
{
	struct pg_trial t;
	int rc = 0;

	memset(&t, 0, sizeof(t));
	t.st = calloc(pg.nsdefs, sizeof(*t.st));
	if (t.st == NULL)
		return pg_fail("out of memory");
	t.pps = rate;
	t.secs = secs;
	t.burst = s->bursts;
	for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
		rc = pg_trial_run(&t);
		if (rc == 0)
			rc = record(s, &t, purpose);
		if (rc == 0 && t.stalled)
			rc = rfc_stop("%s", t.reason);
		if (rc != 0 || t.valid)
			break;
		rc = 1;
	}
	if (rc == 1)
		rc = lower_max(s, &t, rate) == 0 ? 1 : -1;
	if (rc < 0 && lr_eal_stop_requested())
		rfc_stop("stopped by a signal: the search did not end");
	free(t.st);
	s->phase_trials++;
	return rc;
}

/* ---- The search ---- */

/* Valid trials of the search at rate pps. */
static unsigned
valid_at(const struct search *s, double pps)
{
	unsigned n = 0;

	for (unsigned i = 0; i < s->nrecs; i++)
		n += s->recs[i].valid && s->recs[i].pps == pps;
	return n;
}

/* Whether trial i counts: valid, and no later valid trial at its rate
 * (which was run again: the later result holds). */
static bool
counts(const struct search *s, unsigned i)
{
	if (!s->recs[i].valid)
		return false;
	for (unsigned j = i + 1; j < s->nrecs; j++)
		if (s->recs[j].valid && s->recs[j].pps == s->recs[i].pps)
			return false;
	return true;
}

/* A rate that failed target g below one that passed (at the failure's
 * length or longer): a result of the host rather than of the device (a
 * moment off the CPU, a burst) may be at work; such a rate is run once
 * more, and the later result holds. The rate, or -1. */
static double
recheck(const struct search *s, int g)
{
	for (unsigned i = 0; i < s->nrecs; i++) {
		const struct rec *f = &s->recs[i];

		if (!counts(s, i) || f->pass[g] || valid_at(s, f->pps) > 1)
			continue;
		for (unsigned j = 0; j < s->nrecs; j++) {
			const struct rec *p = &s->recs[j];

			if (counts(s, j) && p->pass[g] && p->pps > f->pps &&
			    (p->final || !f->final))
				return f->pps;
		}
	}
	return -1;
}

/* Target g's bounds from the search's trials (see the top). */
static void
bounds(struct search *s, int g)
{
	struct tgt *t = &s->t[g];

	t->ub = s->max;
	t->ub_failed = false;
	t->lb = s->min;
	t->lb_ok = false;
	for (unsigned i = 0; i < s->nrecs; i++) {
		const struct rec *r = &s->recs[i];

		if (counts(s, i) && !r->pass[g] && r->pps <= t->ub) {
			t->ub = r->pps;
			t->ub_failed = true;
		}
	}
	for (unsigned i = 0; i < s->nrecs; i++) {
		const struct rec *r = &s->recs[i];

		if (!counts(s, i) || !r->pass[g] || r->final != s->final ||
		    r->pps > t->ub || (t->ub_failed && r->pps >= t->ub))
			continue;
		if (!t->lb_ok || r->pps > t->lb) {
			t->lb = r->pps;
			t->lb_ok = true;
		}
	}
}

/* Whether target g's phase is over. */
static bool
settled(struct search *s, int g)
{
	struct tgt *t = &s->t[g];

	bounds(s, g);
	if (recheck(s, g) >= 0)
		return false;
	if (t->lb_ok)
		return t->ub - t->lb <= pg.o.precision / 100 * s->max;
	/* Nothing passed, the min failed: none. */
	return t->ub_failed && t->ub <= s->min;
}

/* The rate at which target g's loss would be what it allows, were the
 * device to forward what it did in the trial at its upper bound (that
 * failed); -1 without one. */
static double
fwd_guess(const struct search *s, int g)
{
	const struct tgt *t = &s->t[g];

	for (unsigned i = 0; i < s->nrecs; i++) {
		const struct rec *r = &s->recs[i];

		if (counts(s, i) && !r->pass[g] && r->pps == t->ub)
			return r->fwd / (1 - t->loss);
	}
	return -1;
}

/* The next rate to try for target g (not settled): a rate to run again
 * (recheck()); the phase's guess; else, but never twice in a row (a device
 * that loses a few frames at any rate would have it creep), where the
 * device's forwarding rate at the upper bound points, kept half the
 * precision inside the interval; else a step down from the upper bound
 * (nothing passed yet) or up from the lower one, the precision first,
 * doubling, at most to the middle. */
static double
next_rate(struct search *s, int g)
{
	struct tgt *t = &s->t[g];
	double prec = pg.o.precision / 100 * s->max;
	double f = t->ub_failed ? fwd_guess(s, g) : -1, r;
	double mid = (t->lb + t->ub) / 2;
	bool fwd_ok = !t->fwd_last;

	if (recheck(s, g) >= 0)
		return recheck(s, g);
	t->fwd_last = false;
	if (t->guess > 0 &&
	    (t->guess < t->ub || (!t->ub_failed && t->guess <= t->ub))) {
		r = t->guess;
		t->guess = 0;
		return LR_MAX(r, s->min);
	}
	t->guess = 0;
	if (!t->lb_ok) {
		r = t->ub - t->w;
		t->fwd_last = fwd_ok && f >= 0 && f < r;
		if (t->fwd_last)
			return LR_MAX(f, s->min);
		t->w *= 2;
		return LR_MAX(r, s->min);
	}
	t->fwd_last = fwd_ok && f > t->lb && t->ub - t->lb > prec;
	if (t->fwd_last)
		return LR_MIN(LR_MAX(f, t->lb + prec / 2), t->ub - prec / 2);
	r = t->lb + t->w;
	if (r >= mid)
		return mid;
	t->w *= 2;
	return r;
}

/* Search until both targets settle, with trials of the phase's length;
 * 0, or -1 when the search stops. */
static int
phase(struct search *s)
{
	const double secs = s->final ? pg.o.final_s : pg.o.trial_s;

	s->phase_trials = 0;
	for (;;) {
		int g = 0, rc;

		while (g < NTGT && settled(s, g))
			g++;
		if (g == NTGT)
			return 0;
		if (s->phase_trials >= MAX_PHASE_TRIALS)
			return rfc_stop(
			    "the search did not settle in %d trials "
			    "(results that change from one trial to "
			    "the next?)",
			    MAX_PHASE_TRIALS);
		rc = rfc_trial_at(s, next_rate(s, g), secs,
				  recheck(s, g) >= 0 ? again[g] : tgt_name[g]);
		if (rc < 0)
			return -1;
	}
}

/* Step 1: a short trial at the max rate, lowered while the generator
 * cannot keep up with it. 0 or -1. */
int
rfc_max_trial(struct search *s)
{
	double prec;
	unsigned n = 0;
	int rc;

	do {
		rc = rfc_trial_at(s, s->max, pg.o.trial_s, "max");
	} while (rc == 1 && ++n < MAX_LOWERINGS);
	if (rc == 1)
		return rfc_stop(
		    "the generator's limit lowered the max %d times: "
		    "giving up",
		    MAX_LOWERINGS);
	if (rc != 0)
		return -1;
	prec = pg.o.precision / 100 * s->max;
	for (int g = 0; g < NTGT; g++) {
		s->t[g].w = prec;
		s->t[g].guess = 0;
		s->t[g].fwd_last = false;
	}
	return 0;
}

/* The trial of the final phase that confirmed target g's rate. */
static const struct rec *
confirmed_by(const struct search *s, int g)
{
	const struct rec *at = NULL;

	for (unsigned i = 0; i < s->nrecs; i++) {
		const struct rec *r = &s->recs[i];

		if (r->final && r->pass[g] && r->pps == s->t[g].rate)
			at = r;
	}
	return at;
}

/* One repetition of the search at a size: s->t[] filled. 0 or -1. */
static int
search(struct search *s)
{
	for (int g = 0; g < NTGT; g++)
		s->t[g].loss = g == NDR ? 0 : pg.o.pdr_loss / 100;
	s->final = false;
	if (rfc_max_trial(s) != 0 || phase(s) != 0)
		return -1;
	/* Step 3: confirm each lower bound with final-length trials. */
	for (int g = 0; g < NTGT; g++) {
		struct tgt *t = &s->t[g];

		bounds(s, g);
		t->guess = t->lb_ok ? t->lb : 0;
		t->w = pg.o.precision / 100 * s->max;
		t->fwd_last = false;
	}
	s->final = true;
	if (phase(s) != 0)
		return -1;
	for (int g = 0; g < NTGT; g++) {
		struct tgt *t = &s->t[g];

		bounds(s, g);
		t->rate = t->lb_ok ? t->lb : 0;
		t->prec = t->lb_ok ? t->ub - t->lb : t->ub;
		t->capped = t->lb_ok && !t->ub_failed;
		t->at = t->lb_ok ? confirmed_by(s, g) : NULL;
	}
	return 0;
}

/* ---- Results ---- */

/* A size's results, over its repetitions: the lowest rate of each. */
struct result {
	unsigned size;
	double line, min, max0, max; /* max: the lowest it was lowered to */
	double rate[NTGT], prec[NTGT], hi[NTGT];
	bool capped[NTGT];
	struct pg_trial_stream all[NTGT]; /* at the rate */
	json_t *lat[NTGT];		  /* per stream, at the rate */
	json_t *trials, *notes, *reps;
	unsigned ntrials;
	bool done;
	/* --rfc2544 latency: a trial at each load of the NDR. */
	struct pg_trial_stream at_load[PG_RFC_MAX_LOADS];
	bool load_valid[PG_RFC_MAX_LOADS];
	json_t *loads;
};

/* Fold repetition s into the size's result. */
static void
fold(struct result *res, const struct search *s)
{
	for (int g = 0; g < NTGT; g++) {
		const struct tgt *t = &s->t[g];

		res->hi[g] = LR_MAX(res->hi[g], t->rate);
		if (s->rep != 0 && t->rate >= res->rate[g])
			continue;
		res->rate[g] = t->rate;
		res->prec[g] = t->prec;
		res->capped[g] = t->capped;
		memset(&res->all[g], 0, sizeof(res->all[g]));
		json_decref(res->lat[g]);
		res->lat[g] = NULL;
		if (t->at != NULL) {
			res->all[g] = t->at->all;
			res->lat[g] = json_incref(t->at->streams);
		}
	}
	res->max = s->rep == 0 ? s->max : LR_MIN(res->max, s->max);
	json_array_append_new(
	    res->reps, json_pack("{s:i, s:f, s:f, s:f, s:f, s:f}", "repetition",
				 s->rep + 1, "ndr_pps", s->t[NDR].rate,
				 "ndr_precision_pps", s->t[NDR].prec, "pdr_pps",
				 s->t[PDR].rate, "pdr_precision_pps",
				 s->t[PDR].prec, "max_rate_pps", s->max));
}

void
rfc_free_recs(struct search *s)
{
	for (unsigned i = 0; i < s->nrecs; i++)
		json_decref(s->recs[i].streams);
	free(s->recs);
	s->recs = NULL;
	s->nrecs = s->cap = 0;
}

/* A search s at res->size (the rates of line rate bps), its trials and
 * notes going to res's; 0, or -1 when the size has no rates (the sizes
 * were checked before: not reached). */
static int
search_for(struct search *s, const struct result *res, double bps)
{
	memset(s, 0, sizeof(*s));
	if (rfc_set_bounds(s, res->size, bps) != 0)
		return -1;
	s->trials = res->trials;
	s->notes = res->notes;
	return 0;
}

/* Every repetition of the search at res->size; 0 or -1. */
static int
run_size(struct result *res, double bps)
{
	unsigned n0 = rfc_ntrials;
	int rc = 0;

	for (unsigned rep = 0; rep < pg.o.repeat && rc == 0; rep++) {
		struct search s;

		if (search_for(&s, res, bps) != 0)
			return -1;
		s.rep = rep;
		rc = search(&s);
		if (rc == 0)
			fold(res, &s);
		rfc_free_recs(&s);
	}
	res->ntrials = rfc_ntrials - n0;
	res->done = rc == 0;
	return rc;
}

/* --rfc2544 latency: a final trial at each load of res's NDR (RFC 2544
 * 26.2 measures at the throughput rate; loads below it show the latency
 * of a device that is not full), its figures kept with the per stream
 * latency. 0 or -1 (the test stops). */
static int
latency_loads(struct result *res, double bps)
{
	const struct pg_opts *o = &pg.o;
	struct search s;
	char sz[16], purpose[48];
	int rc = 0;

	if (search_for(&s, res, bps) != 0)
		return -1;
	s.final = true;
	if (res->rate[NDR] == 0) {
		rfc_say(&s, "%s: no latency trials: the NDR is 0",
			rfc_size_name(res->size, sz, sizeof(sz)));
		return 0;
	}
	for (unsigned i = 0; i < o->rfc_nloads && rc >= 0; i++) {
		double pps = res->rate[NDR] * o->rfc_loads[i] / 100;
		const struct rec *r;

		snprintf(purpose, sizeof(purpose), "latency at %g%% of the NDR",
			 o->rfc_loads[i]);
		rc = rfc_trial_at(&s, LR_MAX(pps, s.min), o->final_s, purpose);
		if (rc < 0)
			break;
		r = &s.recs[s.nrecs - 1];
		res->at_load[i] = r->all;
		res->load_valid[i] = r->valid;
		json_array_append_new(
		    res->loads,
		    json_pack("{s:f, s:f, s:b, s:I, s:I, s:I, s:I, s:O}",
			      "pct_of_ndr", o->rfc_loads[i], "rate_pps", r->pps,
			      "valid", r->valid, "tx", (json_int_t)r->all.tx,
			      "lost", (json_int_t)r->all.lost, "reordered",
			      (json_int_t)r->all.reordered, "dup",
			      (json_int_t)r->all.dup, "streams", r->streams));
	}
	res->ntrials += s.nrecs;
	rfc_free_recs(&s);
	return rc < 0 ? -1 : 0;
}

/* The latency table: a row per size and load. */
static void
print_latency(const struct result *res, unsigned n)
{
	const struct pg_opts *o = &pg.o;
	char sz[16];

	printf("\n=== RFC 2544 latency: final trials of %g s at loads of the "
	       "NDR, every stream (per stream: --json) ===\n",
	       o->final_s);
	printf("%-6s %6s %13s %9s %9s %9s %9s %9s %9s %8s\n", "size", "load",
	       "frames/s", "min", "p50", "p90", "p99", "p99.9", "max", "lost");
	for (unsigned i = 0; i < n; i++) {
		if (!res[i].done || res[i].rate[NDR] == 0)
			continue;
		for (unsigned k = 0; k < o->rfc_nloads; k++) {
			const struct pg_trial_stream *a = &res[i].at_load[k];
			const double *l = a->lat_us;

			if (!res[i].load_valid[k]) {
				printf(
				    "%-6s %5g%% %13.0f  invalid: the "
				    "generator fell short (see the trial)\n",
				    rfc_size_name(res[i].size, sz, sizeof(sz)),
				    o->rfc_loads[k],
				    res[i].rate[NDR] * o->rfc_loads[k] / 100);
				continue;
			}
			printf("%-6s %5g%% %13.0f %9.1f %9.1f %9.1f %9.1f "
			       "%9.1f %9.1f %8llu\n",
			       rfc_size_name(res[i].size, sz, sizeof(sz)),
			       o->rfc_loads[k],
			       res[i].rate[NDR] * o->rfc_loads[k] / 100,
			       l[PG_TQ_MIN], l[PG_TQ_P50], l[PG_TQ_P90],
			       l[PG_TQ_P99], l[PG_TQ_P999], l[PG_TQ_MAX],
			       (unsigned long long)a->lost);
		}
	}
	printf("(latency in us, from a histogram of %.2g%% resolution)\n",
	       100.0 / (1 << PG_LAT_SUB_BITS));
	fflush(stdout);
}

/* Wire Mbit/s and percent of the line rate of pps at the size. */
static double
mbps(const struct result *r, double pps)
{
	return pps * rfc_wire_bits(r->size) / 1e6;
}

static double
pct(const struct result *r, double pps)
{
	return r->line > 0 ? 100 * pps / r->line : 0;
}

/* The table's row of a size. */
static void
print_row(const struct result *r)
{
	const double *l = r->all[NDR].lat_us;
	char sz[16], lat[48];

	if (r->all[NDR].lat_n)
		snprintf(lat, sizeof(lat), "%.1f / %.1f / %.1f", l[PG_TQ_P50],
			 l[PG_TQ_P99], l[PG_TQ_MAX]);
	else
		snprintf(lat, sizeof(lat), "-");
	printf("%-6s %13.0f %9.3f %7.3f %13.0f %9.3f %7.3f  %-24s %6u\n",
	       rfc_size_name(r->size, sz, sizeof(sz)), r->rate[NDR],
	       mbps(r, r->rate[NDR]), pct(r, r->rate[NDR]), r->rate[PDR],
	       mbps(r, r->rate[PDR]), pct(r, r->rate[PDR]), lat, r->ntrials);
}

/* What a size's figures are worth: the precision reached, a rate held
 * back by the max, no rate at all. */
static void
print_precision(const struct result *r)
{
	char sz[16];

	rfc_size_name(r->size, sz, sizeof(sz));
	for (int g = 0; g < NTGT; g++) {
		if (r->rate[g] == 0) {
			printf("%s: %s 0: no rate passed, down to the min rate "
			       "of %.0f frames/s\n",
			       sz, tgt_name[g], r->min);
			continue;
		}
		if (r->capped[g])
			printf(
			    "%s: %s %.0f frames/s, within %.0f of the max "
			    "rate (%s): no trial failed above it, the device "
			    "may carry more\n",
			    sz, tgt_name[g], r->rate[g], r->prec[g],
			    r->max < r->max0
				? "lowered to what the generator keeps up "
				  "with"
				: "--max-rate or the line rate");
		else
			printf("%s: %s %.0f frames/s within %.0f (%.3g%% of "
			       "the max %.0f)\n",
			       sz, tgt_name[g], r->rate[g], r->prec[g],
			       100 * r->prec[g] / r->max, r->max);
		if (pg.o.repeat > 1 && r->hi[g] > r->rate[g])
			printf("%s: %s over %u repetitions: %.0f to %.0f "
			       "frames/s (the lowest reported)\n",
			       sz, tgt_name[g], pg.o.repeat, r->rate[g],
			       r->hi[g]);
	}
}

static void
print_table(const struct result *res, unsigned n)
{
	const struct pg_opts *o = &pg.o;

	printf("\n=== RFC 2544 throughput: trials of %g s, final %g s, PDR: "
	       "at most %g%% lost, precision %g%% of the max rate ===\n",
	       o->trial_s, o->final_s, o->pdr_loss, o->precision);
	printf("%-6s %13s %9s %7s %13s %9s %7s  %-24s %6s\n", "size",
	       "NDR frames/s", "Mbit/s", "% line", "PDR frames/s", "Mbit/s",
	       "% line", "NDR latency p50/p99/max", "trials");
	for (unsigned i = 0; i < n; i++)
		if (res[i].done)
			print_row(&res[i]);
	printf("(Mbit/s on the wire: frame + 20 bytes of preamble and gap; "
	       "latency in us)\n");
	for (unsigned i = 0; i < n; i++)
		if (res[i].done)
			print_precision(&res[i]);
	fflush(stdout);
}

/* {pps, bps, bps_l2, pct_line, precision_pps} of rate g of a size. */
static json_t *
json_rate(const struct result *r, int g)
{
	double pps = r->rate[g];

	return json_pack("{s:f, s:f, s:f, s:f, s:f, s:b, s:s?}", "pps", pps,
			 "bps", pps * rfc_wire_bits(r->size), "bps_l2",
			 pps * rfc_mean_size(r->size) * 8, "pct_line",
			 pct(r, pps), "precision_pps", r->prec[g], "found",
			 pps > 0, "limited_by",
			 !r->capped[g]	    ? NULL
			 : r->max < r->max0 ? "generator"
					    : "max_rate");
}

static json_t *
json_size(const struct result *r)
{
	json_t *j = json_pack("{s:f, s:f, s:f, s:f, s:f, s:i, s:O, s:O, s:O}",
			      "mean_size", rfc_mean_size(r->size),
			      "line_rate_pps", r->line, "max_rate_pps", r->max0,
			      "min_rate_pps", r->min, "generator_max_pps",
			      r->max, "trial_count", r->ntrials, "repetitions",
			      r->reps, "notes", r->notes, "trials", r->trials);

	json_object_set_new(
	    j, "size", r->size ? json_integer(r->size) : json_string("imix"));
	if (!r->done)
		return j;
	json_object_set_new(j, "ndr", json_rate(r, NDR));
	json_object_set_new(j, "pdr", json_rate(r, PDR));
	json_object_set_new(j, "latency_at_ndr_us",
			    r->lat[NDR] ? json_incref(r->lat[NDR])
					: json_array());
	json_object_set_new(j, "latency_at_pdr_us",
			    r->lat[PDR] ? json_incref(r->lat[PDR])
					: json_array());
	if (pg.o.rfc_mode == PG_RFC_LATENCY)
		json_object_set_new(j, "latency_at_loads",
				    json_incref(r->loads));
	return j;
}

/* The one document of --json. */
static void
write_json(const struct result *res, unsigned n, int status)
{
	const struct pg_opts *o = &pg.o;
	json_t *sizes = json_array(), *doc;

	for (unsigned i = 0; i < n; i++)
		json_array_append_new(sizes, json_size(&res[i]));
	doc = json_pack(
	    "{s:o, s:{s:s, s:f, s:f, s:f, s:f, s:i, s:f, s:s, s:o}, s:s}",
	    "config", pg_json_config(), "rfc2544", "mode",
	    o->rfc_mode == PG_RFC_LATENCY ? "latency" : "throughput",
	    "pdr_loss_pct", o->pdr_loss, "trial_s", o->trial_s, "final_trial_s",
	    o->final_s, "precision_pct", o->precision, "repeat", o->repeat,
	    "latency_resolution_pct", 100.0 / (1 << PG_LAT_SUB_BITS),
	    "rate_unit",
	    "frames/s over every stream; bps on the wire (frame + 20), "
	    "bps_l2 the frames (FCS included)",
	    "sizes", sizes, "status", status == 0 ? "ok" : "failed");
	rfc_write_json(doc);
}

void
rfc_write_json(json_t *doc)
{
	const struct pg_opts *o = &pg.o;
	FILE *f = pg_json_stream();

	if (doc != NULL && why_stopped[0])
		json_object_set_new(doc, "error", json_string(why_stopped));
	if (doc == NULL || f == NULL ||
	    json_dumpf(doc, f, JSON_INDENT(1) | JSON_REAL_PRECISION(10)) != 0 ||
	    fputc('\n', f) == EOF || fflush(f) != 0)
		pg_fail("--json: cannot write the JSON document to %s",
			o->json_file ? o->json_file : "stdout");
	json_decref(doc);
}

static void
describe(double bps)
{
	const struct pg_opts *o = &pg.o;
	char sz[16];

	printf("lr-pktgen: RFC 2544 %s over %u size(s), %u "
	       "stream(s) on %u queue(s), line rate %.0f Mbit/s: trials of "
	       "%g s, final %g s, PDR at most %g%% lost, precision %g%% of "
	       "the max rate, %u repetition(s)\n",
	       o->rfc_mode == PG_RFC_LATENCY ? "latency" : "throughput",
	       o->rfc_nsizes, pg.nsdefs, pg.nstreams, bps / 1e6, o->trial_s,
	       o->final_s, o->pdr_loss, o->precision, o->repeat);
	for (unsigned i = 0; i < o->rfc_nsizes; i++) {
		struct search s;

		memset(&s, 0, sizeof(s));
		rfc_set_bounds(&s, o->rfc_sizes[i], bps);
		printf("  %s: rates %.0f to %.0f frames/s (line rate %.0f)\n",
		       rfc_size_name(s.size, sz, sizeof(sz)), s.min, s.max0,
		       s.line);
	}
	fflush(stdout);
}

/* The sizes' results set up; 0 or -1 (out of memory). */
static int
results_init(struct result *res, unsigned n, double bps)
{
	for (unsigned i = 0; i < n; i++) {
		struct search s;

		memset(&s, 0, sizeof(s));
		rfc_set_bounds(&s, pg.o.rfc_sizes[i], bps);
		res[i].size = s.size;
		res[i].line = s.line;
		res[i].min = s.min;
		res[i].max0 = res[i].max = s.max0;
		res[i].trials = json_array();
		res[i].notes = json_array();
		res[i].reps = json_array();
		res[i].loads = json_array();
		if (!res[i].trials || !res[i].notes || !res[i].reps ||
		    !res[i].loads)
			return pg_fail("out of memory");
	}
	return 0;
}

static void
results_fini(struct result *res, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		json_decref(res[i].trials);
		json_decref(res[i].notes);
		json_decref(res[i].reps);
		json_decref(res[i].loads);
		for (int g = 0; g < NTGT; g++)
			json_decref(res[i].lat[g]);
	}
	free(res);
}

/* --tx-full: whether each queue drops the frames its port refuses for a
 * full ring (drop), sends them again (wait), or by its driver: drop on
 * memif, whose ring is the device's own input (a frame it has no room
 * for is the device's loss), wait elsewhere (a full transmit ring is the
 * generator's own limit). Said, once per port that drops. */
static void
set_tx_full(void)
{
	uint32_t said = 0;

	for (unsigned i = 0; i < pg.nstreams; i++) {
		struct pg_txq *q = pg.txq[i];
		struct lr_eth_dev_info info;
		bool memif = lr_eth_dev_info_get(q->port, &info) == 0 &&
			     info.driver_name != NULL &&
			     strcmp(info.driver_name, "net_memif") == 0;

		q->drop_full = pg.o.tx_full == 1 || (pg.o.tx_full < 0 && memif);
		if (!q->drop_full || pg.o.quiet || (said >> q->port & 1))
			continue;
		said |= 1u << q->port;
		printf("port %u (%s): a frame its ring has no room for is "
		       "dropped and counted lost (--tx-full drop%s)\n",
		       q->port, lr_eth_dev_name(q->port),
		       pg.o.tx_full < 0 ? ": memif's ring is the device's input"
					: "");
	}
}

/* 1 when a size has no NDR (said), else 0. */
static int
any_ndr_zero(const struct result *res, unsigned n)
{
	int rc = 0;
	char sz[16];

	for (unsigned i = 0; i < n; i++) {
		if (!res[i].done || res[i].rate[NDR] > 0)
			continue;
		pg_fail("%s: NDR 0: every trial lost frames, down to the min "
			"rate of %.0f frames/s",
			rfc_size_name(res[i].size, sz, sizeof(sz)), res[i].min);
		rc = 1;
	}
	return rc;
}

int
pg_rfc2544_run(void)
{
	const unsigned n = pg.o.rfc_nsizes;
	struct result *res;
	double bps;
	int status = 0;

	if (check_all() != 0)
		return 2;
	set_tx_full();
	bps = rfc_line_bps();
	if (pg.o.rfc_mode == PG_RFC_FRAME_LOSS)
		return rfc_frame_loss_run(bps);
	if (pg.o.rfc_mode == PG_RFC_BACK_TO_BACK)
		return rfc_back_to_back_run(bps);
	res = calloc(n, sizeof(*res));
	if (res == NULL || results_init(res, n, bps) != 0) {
		if (res)
			results_fini(res, n);
		pg_fail("out of memory");
		return 1;
	}
	if (!pg.o.quiet)
		describe(bps);
	for (unsigned i = 0; i < n && status == 0; i++)
		if (pg_trial_set_size(res[i].size) != 0 ||
		    run_size(&res[i], bps) != 0 ||
		    (pg.o.rfc_mode == PG_RFC_LATENCY &&
		     latency_loads(&res[i], bps) != 0))
			status = 1;
	print_table(res, n);
	if (pg.o.rfc_mode == PG_RFC_LATENCY)
		print_latency(res, n);
	if (status == 0)
		status = any_ndr_zero(res, n);
	if (pg.o.json)
		write_json(res, n, status);
	results_fini(res, n);
	return status;
}
