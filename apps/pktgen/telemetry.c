/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * telemetry.c - lr-pktgen's telemetry command, /linerate/pktgen/stats:
 * per stream definition the frames of ours sent and received, lost,
 * reordered, duplicated, and the latency percentiles, as the --json
 * report counts them (report.c) but while the run goes on.
 *
 * The figures are read as the live output reads its counters: relaxed
 * loads of what each lcore adds to its own (the queues' pg_counters, the
 * receiving lcores' sequence windows and latency histograms, written with
 * relaxed stores: stats.c, datapath.c). No lock, no store on the datapath.
 * While frames move, two figures of one reply may straddle a burst; once
 * the run stands still ("stop" of the control socket, or its end) they are
 * the --json report's exactly.
 *
 * The handler runs on the telemetry thread, which outlives the run's state:
 * pg_telemetry_fini() makes it refuse, and waits for a reply being built,
 * before free_all() frees what it reads (a seq_cst flag and a count of
 * readers, control path only).
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "lr_telemetry.h"
#include "pktgen.h"

#define TEL_CMD "/linerate/pktgen/stats"

static atomic_int tel_live;    /* the run's state may be read */
static atomic_int tel_readers; /* handlers inside */

/* A stream definition's figures (report.c's sdef_stats(), read live). */
struct tel_stream {
	uint64_t tx, unique, dup, reordered, late, lost;
	struct pg_lat lat;
};

/* Relaxed copy of a histogram an lcore may be adding to, into out. */
static void
lat_read(struct pg_lat *out, const struct pg_lat *l)
{
	out->n = lr_counter_read(&l->n);
	out->sum = lr_counter_read(&l->sum);
	out->min = lr_counter_read(&l->min);
	out->max = lr_counter_read(&l->max);
	for (unsigned b = 0; b < PG_LAT_BUCKETS; b++)
		out->hist[b] = lr_counter_read(&l->hist[b]);
}

/* Stream definition k's figures into ts, over its instances and lcores:
 * received first, then sent, so that a frame is never received unsent. */
static void
stream_read(unsigned k, struct tel_stream *ts)
{
	static struct pg_lat one; /* telemetry thread only */
	bool have_rx = false;

	memset(ts, 0, sizeof(*ts));
	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++)
		have_rx |= pg_app.ports[p].used && pg_app.ports[p].rx;
	for (unsigned l = 0; l < pg_app.n_dp; l++) {
		lat_read(&one, &pg_dp_lcore(l)->slat[k]);
		pg_lat_merge(&ts->lat, &one);
	}
	for (unsigned i = 0; i < pg_app.ntxqs; i++) {
		const struct pg_txq *q = pg_app.txqs[i];

		if (q->sdef != k)
			continue;
		for (unsigned l = 0; l < pg_app.n_dp; l++) {
			const struct pg_seqwin *w =
			    &pg_dp_lcore(l)->win[q->stream];

			ts->unique += lr_counter_read(&w->unique);
			ts->dup += lr_counter_read(&w->dup);
			ts->reordered += lr_counter_read(&w->reordered);
			ts->late += lr_counter_read(&w->late);
		}
	}
	for (unsigned i = 0; i < pg_app.ntxqs; i++)
		if (pg_app.txqs[i]->sdef == k)
			ts->tx += atomic_load_explicit(
			    &pg_app.txqs[i]->scnt.tx_own, memory_order_relaxed);
	ts->lost = have_rx && ts->tx > ts->unique ? ts->tx - ts->unique : 0;
}

/* Cycles c in nanoseconds, rounded. */
static uint64_t
ns(double c)
{
	return (uint64_t)(c * 1e9 / (double)pg.hz + 0.5);
}

/* Add the latency keys of l to dict d (percentiles 0 with no sample). */
static void
add_latency(struct lr_tel_data *d, const struct pg_lat *l)
{
	static const struct {
		const char *key;
		double q;
	} pct[] = {{"latency_p50_ns", 0.5},
		   {"latency_p90_ns", 0.9},
		   {"latency_p99_ns", 0.99},
		   {"latency_p999_ns", 0.999},
		   {"latency_p9999_ns", 0.9999}};
	bool have = l->n > 0;

	lr_tel_data_add_dict_uint(d, "latency_samples_total", l->n);
	lr_tel_data_add_dict_uint(d, "latency_min_ns",
				  have ? ns((double)l->min) : 0);
	for (unsigned i = 0; i < sizeof(pct) / sizeof(pct[0]); i++)
		lr_tel_data_add_dict_uint(
		    d, pct[i].key, have ? ns(pg_lat_quantile(l, pct[i].q)) : 0);
	lr_tel_data_add_dict_uint(d, "latency_max_ns",
				  have ? ns((double)l->max) : 0);
	lr_tel_data_add_dict_uint(d, "latency_avg_ns",
				  have ? ns((double)l->sum / (double)l->n) : 0);
}

/* The dict of stream definition k, or NULL (out of memory). */
static struct lr_tel_data *
stream_dict(unsigned k)
{
	static struct tel_stream ts; /* telemetry thread only */
	struct lr_tel_data *d = lr_tel_data_alloc();

	if (d == NULL)
		return NULL;
	stream_read(k, &ts);
	lr_tel_data_start_dict(d);
	lr_tel_data_add_dict_uint(d, "stream", k);
	lr_tel_data_add_dict_string(d, "name", pg.sdefs[k].name);
	lr_tel_data_add_dict_uint(d, "sent_total", ts.tx);
	lr_tel_data_add_dict_uint(d, "received_total", ts.unique + ts.dup);
	lr_tel_data_add_dict_uint(d, "lost", ts.lost);
	lr_tel_data_add_dict_uint(d, "reordered_total", ts.reordered);
	lr_tel_data_add_dict_uint(d, "late_total", ts.late);
	lr_tel_data_add_dict_uint(d, "duplicates_total", ts.dup);
	add_latency(d, &ts.lat);
	return d;
}

/* Parse params: NULL is every stream (*one = -1), else a stream id. */
static int
parse_stream(const char *params, long *one)
{
	char *end;

	*one = -1;
	if (params == NULL)
		return 0;
	if (*params < '0' || *params > '9')
		return -EINVAL;
	errno = 0;
	*one = strtol(params, &end, 10);
	if (errno != 0 || *end != '\0' || *one >= (long)pg.nsdefs)
		return -EINVAL;
	return 0;
}

/* Fill d; the caller holds a reader's place. */
static int
fill(const char *params, struct lr_tel_data *d)
{
	struct lr_tel_data *all, *s;
	char key[16];
	long one;

	if (parse_stream(params, &one) != 0)
		return -EINVAL;
	if (one >= 0) {
		s = stream_dict((unsigned)one);
		if (s == NULL)
			return -ENOMEM;
		lr_tel_data_start_dict(d);
		lr_tel_data_add_dict_container(d, "stream", s, 0);
		return 0;
	}
	all = lr_tel_data_alloc();
	if (all == NULL)
		return -ENOMEM;
	lr_tel_data_start_dict(all);
	for (unsigned k = 0; k < pg.nsdefs && k < LR_TEL_MAX_DICT_ENTRIES;
	     k++) {
		s = stream_dict(k);
		snprintf(key, sizeof(key), "%u", k);
		if (s == NULL ||
		    lr_tel_data_add_dict_container(all, key, s, 0) < 0) {
			lr_tel_data_free(s);
			lr_tel_data_free(all);
			return -ENOMEM;
		}
	}
	lr_tel_data_start_dict(d);
	lr_tel_data_add_dict_uint(d, "running",
				  atomic_load(&pg.state) != PG_STOP);
	lr_tel_data_add_dict_string(d, "sending", pg_send_state());
	lr_tel_data_add_dict_uint(d, "latency_resolution_ppm",
				  1000000u >> PG_LAT_SUB_BITS);
	lr_tel_data_add_dict_container(d, "streams", all, 0);
	return 0;
}

static int
tel_stats(const char *cmd, const char *params, struct lr_tel_data *d)
{
	int rc = -EINVAL;

	(void)cmd;
	atomic_fetch_add(&tel_readers, 1);
	if (atomic_load(&tel_live))
		rc = fill(params, d);
	atomic_fetch_sub(&tel_readers, 1);
	return rc;
}

int
pg_telemetry_init(void)
{
	atomic_store(&tel_live, 1);
	return lr_telemetry_register(
	    TEL_CMD, tel_stats,
	    "lr-pktgen's per-stream frames and latency. Param: a stream id");
}

void
pg_telemetry_fini(void)
{
	atomic_store(&tel_live, 0);
	while (atomic_load(&tel_readers) != 0)
		sched_yield();
}
