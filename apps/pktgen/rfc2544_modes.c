/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rfc2544_modes.c - lr-pktgen --rfc2544 frame-loss and back-to-back: the
 * frame loss rate (RFC 2544 section 26.3) and back-to-back frames (26.4)
 * tests, over the trials of trial.c and the bounds of rfc2544.c.
 *
 * Both start as the throughput search does: a short trial at the max rate
 * (the line rate of the sending ports, or --max-rate), lowered while the
 * generator cannot keep up with it (said), so that no figure below is the
 * generator's own shortfall.
 *
 * frame-loss: final trials (--final-trial-s) at 100% of the max rate, then
 *   down by --loss-step percent of it, until two trials in a row lose no
 *   frame (the RFC's end) or the min rate is passed. A load above what the
 *   generator keeps up with is reported as not measured, never as a loss.
 * back-to-back: the longest burst at the max rate that loses nothing. The
 *   first burst is --trial-s of frames at that rate (the max trial itself);
 *   if it loses nothing the device keeps up with the max rate and the
 *   burst is only bounded by the trial (said); else a bisection over the
 *   burst length in frames, until the bounds are --precision percent of
 *   the first burst apart (or one frame). With --repeat N (the RFC asks
 *   for 50), the mean, min and max of the N results.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "lr_eal.h"
#include "rfc2544.h"

/* Most times a back-to-back search starts again at a lowered max. */
#define MAX_RESTARTS 12

/* A search of the size's, trials and notes into the size's arrays; 0 or
 * -1 (out of memory, or bounds checked before: not reached). */
static int
start(struct search *s, unsigned size, double bps, json_t *trials,
      json_t *notes)
{
	memset(s, 0, sizeof(*s));
	if (rfc_set_bounds(s, size, bps) != 0)
		return -1;
	s->trials = trials;
	s->notes = notes;
	return 0;
}

/* The JSON object of a size: its name, line rate, notes and trials. */
static json_t *
json_size(const struct search *s, json_t *trials, json_t *notes)
{
	json_t *j = json_pack("{s:f, s:f, s:f, s:f, s:O, s:O}", "mean_size",
			      rfc_mean_size(s->size), "line_rate_pps", s->line,
			      "max_rate_pps", s->max0, "generator_max_pps",
			      s->max, "notes", notes, "trials", trials);

	json_object_set_new(
	    j, "size", s->size ? json_integer(s->size) : json_string("imix"));
	return j;
}

/* The document of --json: the mode's parameters and the sizes. */
static void
write_doc(const char *mode, json_t *sizes, int status)
{
	const struct pg_opts *o = &pg.o;
	json_t *doc = json_pack(
	    "{s:o, s:{s:s, s:f, s:f, s:f, s:f, s:i, s:s, s:o}, s:s}", "config",
	    pg_json_config(), "rfc2544", "mode", mode, "trial_s", o->trial_s,
	    "final_trial_s", o->final_s, "loss_step_pct", o->loss_step,
	    "precision_pct", o->precision, "repeat", o->repeat, "rate_unit",
	    "frames/s over every stream", "sizes", sizes, "status",
	    status == 0 ? "ok" : "failed");

	rfc_write_json(doc);
}

/* ---- Frame loss rate (26.3) ---- */

/* One load's trial of frame-loss as the table shows it. */
struct load {
	double pct, pps;
	bool measured, valid;
	uint64_t tx, lost;
};

/* The loads of one size into ld (at most nld), the JSON into jl; how
 * many, or -1 when the test stops. */
static int
loss_size(struct search *s, struct load *ld, int nld, json_t *jl)
{
	const struct pg_opts *o = &pg.o;
	unsigned clean = 0;
	char sz[16], purpose[48];
	int n = 0;

	if (rfc_max_trial(s) != 0)
		return -1;
	rfc_size_name(s->size, sz, sizeof(sz));
	s->final = true;
	for (double pct = 100; clean < 2 && n < nld; pct -= o->loss_step) {
		struct load *l = &ld[n++];
		const struct rec *r;
		int rc;

		l->pct = LR_MAX(pct, 0.0);
		l->pps = s->max0 * l->pct / 100;
		if (l->pps < s->min) {
			rfc_say(s,
				"%s: %g%% of the max rate is below the min "
				"rate of %.0f frames/s: the test ends",
				sz, l->pct, s->min);
			n--;
			break;
		}
		if (l->pps > s->max) {
			rfc_say(s,
				"%s: %g%% of the max rate (%.0f frames/s) "
				"is above what the generator keeps up with "
				"(%.0f): not measured",
				sz, l->pct, l->pps, s->max);
			json_array_append_new(
			    jl,
			    json_pack("{s:f, s:f, s:b}", "pct_of_max", l->pct,
				      "rate_pps", l->pps, "measured", 0));
			continue;
		}
		snprintf(purpose, sizeof(purpose), "frame loss at %g%%",
			 l->pct);
		rc = rfc_trial_at(s, l->pps, o->final_s, purpose);
		if (rc < 0)
			return -1;
		r = &s->recs[s->nrecs - 1];
		l->measured = true;
		l->valid = r->valid;
		l->tx = r->all.tx;
		l->lost = r->all.lost;
		clean = r->valid && r->all.lost == 0 ? clean + 1 : 0;
		json_array_append_new(
		    jl,
		    json_pack("{s:f, s:f, s:b, s:b, s:I, s:I, s:f, s:I, "
			      "s:I, s:O}",
			      "pct_of_max", l->pct, "rate_pps", l->pps,
			      "measured", 1, "valid", r->valid, "tx",
			      (json_int_t)r->all.tx, "lost",
			      (json_int_t)r->all.lost, "loss_pct",
			      r->all.tx ? 100.0 * (double)r->all.lost /
					      (double)r->all.tx
					: 0.0,
			      "reordered", (json_int_t)r->all.reordered, "dup",
			      (json_int_t)r->all.dup, "streams", r->streams));
	}
	return n;
}

static void
print_loss_rows(unsigned size, const struct load *ld, int n)
{
	char sz[16];

	rfc_size_name(size, sz, sizeof(sz));
	for (int i = 0; i < n; i++) {
		const struct load *l = &ld[i];

		if (!l->measured)
			printf("%-6s %5g%% %13.0f  not measured: above what "
			       "the generator keeps up with\n",
			       sz, l->pct, l->pps);
		else if (!l->valid)
			printf("%-6s %5g%% %13.0f  invalid: the generator "
			       "fell short (see the trial)\n",
			       sz, l->pct, l->pps);
		else
			printf("%-6s %5g%% %13.0f %12llu %12llu %9.4f\n", sz,
			       l->pct, l->pps, (unsigned long long)l->tx,
			       (unsigned long long)l->lost,
			       l->tx ? 100.0 * (double)l->lost / (double)l->tx
				     : 0.0);
	}
}

int
rfc_frame_loss_run(double bps)
{
	const struct pg_opts *o = &pg.o;
	const int nld = (int)(100 / o->loss_step) + 2;
	struct load *ld = calloc((size_t)nld * o->rfc_nsizes, sizeof(*ld));
	int *nrows = calloc(o->rfc_nsizes, sizeof(*nrows));
	json_t *sizes = json_array();
	int status = 0;

	if (ld == NULL || nrows == NULL || sizes == NULL) {
		free(ld);
		free(nrows);
		json_decref(sizes);
		pg_fail("out of memory");
		return 1;
	}
	if (!o->quiet)
		printf("lr-pktgen: RFC 2544 frame loss over %u size(s): trials "
		       "of %g s from the max rate down by %g%% until two in a "
		       "row lose nothing\n",
		       o->rfc_nsizes, o->final_s, o->loss_step);
	for (unsigned i = 0; i < o->rfc_nsizes && status == 0; i++) {
		json_t *tr = json_array(), *no = json_array();
		json_t *jl = json_array(), *js;
		struct search s;

		memset(&s, 0, sizeof(s));
		s.size = o->rfc_sizes[i];
		if (pg_trial_set_size(o->rfc_sizes[i]) != 0 ||
		    start(&s, o->rfc_sizes[i], bps, tr, no) != 0)
			status = 1;
		else if ((nrows[i] =
			      loss_size(&s, &ld[(size_t)i * nld], nld, jl)) < 0)
			status = 1;
		js = json_size(&s, tr, no);
		json_object_set_new(js, "loads", jl);
		json_array_append_new(sizes, js);
		json_decref(tr);
		json_decref(no);
		rfc_free_recs(&s);
	}
	printf("\n=== RFC 2544 frame loss rate: trials of %g s, loads in %% "
	       "of the max rate ===\n",
	       o->final_s);
	printf("%-6s %6s %13s %12s %12s %9s\n", "size", "load", "frames/s",
	       "tx", "lost", "loss %");
	for (unsigned i = 0; i < o->rfc_nsizes; i++)
		print_loss_rows(o->rfc_sizes[i], &ld[(size_t)i * nld],
				nrows[i] > 0 ? nrows[i] : 0);
	fflush(stdout);
	if (o->json)
		write_doc("frame-loss", sizes, status);
	else
		json_decref(sizes);
	free(ld);
	free(nrows);
	return status;
}

/* ---- Back-to-back frames (26.4) ---- */

/* The result of one repetition at a size. */
struct burst {
	double pps;	 /* the rate of the bursts */
	uint64_t frames; /* the longest burst that lost nothing */
	uint64_t first;	 /* the first burst's length */
	bool whole;	 /* the first burst passed: bounded by the trial */
};

/* A burst of n frames at s->max: 0 passed, 1 lost frames, 2 invalid (the
 * max lowered), -1 the test stops. */
static int
burst_trial(struct search *s, uint64_t n)
{
	char purpose[64];
	const struct rec *r;
	int rc;

	snprintf(purpose, sizeof(purpose), "burst of %llu",
		 (unsigned long long)n);
	rc = rfc_trial_at(s, s->max, (double)n / s->max, purpose);
	if (rc != 0)
		return rc < 0 ? -1 : 2;
	r = &s->recs[s->nrecs - 1];
	return r->all.lost == 0 ? 0 : 1;
}

/* Bisect the burst length between lo (passed) and hi (lost frames) at
 * s->max: 0, 1 (the max lowered: start again) or -1. */
static int
bisect(struct search *s, struct burst *b, uint64_t hi)
{
	const double prec = LR_MAX(1.0, pg.o.precision / 100 * b->first);
	uint64_t lo = 0;

	while ((double)(hi - lo) > prec) {
		uint64_t mid = lo + (hi - lo) / 2;
		int rc;

		if (mid < pg.nstreams) {
			lo = 0;
			break;
		}
		rc = burst_trial(s, mid);
		if (rc < 0)
			return -1;
		if (rc == 2)
			return 1;
		if (rc == 0)
			lo = mid;
		else
			hi = mid;
	}
	b->frames = lo;
	return 0;
}

/* One repetition at s's size into b; 0 or -1. */
static int
burst_search(struct search *s, struct burst *b)
{
	char sz[16];

	rfc_size_name(s->size, sz, sizeof(sz));
	for (int restart = 0; restart < MAX_RESTARTS; restart++) {
		const struct rec *r;
		int rc;

		if (rfc_max_trial(s) != 0)
			return -1;
		r = &s->recs[s->nrecs - 1];
		b->pps = s->max;
		b->first = (uint64_t)(s->max * pg.o.trial_s + 0.5);
		b->whole = r->all.lost == 0;
		if (b->whole) {
			b->frames = b->first;
			rfc_say(s,
				"%s: a burst of %llu frames at %.0f "
				"frames/s lost nothing: the device keeps up "
				"with the max rate, the burst is bounded by "
				"--trial-s only",
				sz, (unsigned long long)b->first, s->max);
			return 0;
		}
		rc = bisect(s, b, b->first);
		if (rc <= 0)
			return rc;
		rfc_say(s, "%s: the bursts start again at %.0f frames/s", sz,
			s->max);
	}
	return rfc_stop("%s: the generator's limit lowered the max %d "
			"times: giving up",
			sz, MAX_RESTARTS);
}

/* The size's repetitions (bs[rep]) as a table row and JSON. */
static json_t *
burst_result(unsigned size, const struct burst *bs, unsigned n)
{
	double sum = 0, lo = INFINITY, hi = 0, pps = INFINITY;
	json_t *reps = json_array(), *j;
	bool whole = true;
	char sz[16];

	for (unsigned i = 0; i < n; i++) {
		sum += (double)bs[i].frames;
		lo = LR_MIN(lo, (double)bs[i].frames);
		hi = LR_MAX(hi, (double)bs[i].frames);
		pps = LR_MIN(pps, bs[i].pps);
		whole &= bs[i].whole;
		json_array_append_new(
		    reps, json_pack("{s:i, s:f, s:I, s:b}", "repetition", i + 1,
				    "rate_pps", bs[i].pps, "frames",
				    (json_int_t)bs[i].frames, "whole_trial",
				    bs[i].whole));
	}
	printf("%-6s %13.0f %12.0f %12.0f %12.0f %11.1f %s\n",
	       rfc_size_name(size, sz, sizeof(sz)), pps, sum / n, lo, hi,
	       sum / n / pps * 1e6, whole ? " (no loss: trial-bound)" : "");
	j = json_pack("{s:f, s:f, s:f, s:f, s:f, s:b, s:o}", "rate_pps", pps,
		      "frames_mean", sum / n, "frames_min", lo, "frames_max",
		      hi, "burst_us_mean", sum / n / pps * 1e6, "whole_trial",
		      whole, "repetitions", reps);
	return j;
}

int
rfc_back_to_back_run(double bps)
{
	const struct pg_opts *o = &pg.o;
	struct burst *bs =
	    calloc((size_t)o->repeat * o->rfc_nsizes, sizeof(*bs));
	unsigned *done = calloc(o->rfc_nsizes, sizeof(*done));
	json_t *sizes = json_array(), *js[PG_RFC_MAX_SIZES] = {0};
	int status = 0;

	if (bs == NULL || done == NULL || sizes == NULL) {
		free(bs);
		free(done);
		json_decref(sizes);
		pg_fail("out of memory");
		return 1;
	}
	if (!o->quiet)
		printf("lr-pktgen: RFC 2544 back-to-back over %u size(s): "
		       "bursts at the max rate, the first of %g s, %u "
		       "repetition(s), precision %g%%\n",
		       o->rfc_nsizes, o->trial_s, o->repeat, o->precision);
	for (unsigned i = 0; i < o->rfc_nsizes && status == 0; i++) {
		json_t *tr = json_array(), *no = json_array();
		struct search s;

		memset(&s, 0, sizeof(s));
		s.size = o->rfc_sizes[i];
		if (pg_trial_set_size(o->rfc_sizes[i]) != 0)
			status = 1;
		for (unsigned rep = 0; rep < o->repeat && status == 0; rep++) {
			if (start(&s, o->rfc_sizes[i], bps, tr, no) != 0)
				status = 1;
			s.rep = rep;
			s.bursts = true;
			if (status == 0 &&
			    burst_search(&s, &bs[i * o->repeat + rep]) != 0)
				status = 1;
			if (status == 0)
				done[i]++;
			rfc_free_recs(&s);
		}
		js[i] = json_size(&s, tr, no);
		json_decref(tr);
		json_decref(no);
	}
	printf("\n=== RFC 2544 back-to-back frames: the longest burst that "
	       "loses nothing, %u repetition(s) ===\n",
	       o->repeat);
	printf("%-6s %13s %12s %12s %12s %11s\n", "size", "frames/s",
	       "burst mean", "min", "max", "mean us");
	for (unsigned i = 0; i < o->rfc_nsizes; i++) {
		if (js[i] == NULL)
			continue;
		if (done[i] == o->repeat)
			json_object_set_new(js[i], "burst",
					    burst_result(o->rfc_sizes[i],
							 &bs[i * o->repeat],
							 o->repeat));
		json_array_append_new(sizes, js[i]);
	}
	fflush(stdout);
	if (o->json)
		write_doc("back-to-back", sizes, status);
	else
		json_decref(sizes);
	free(bs);
	free(done);
	return status;
}
