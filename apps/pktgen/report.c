/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * report.c - what lr-pktgen prints about a run: the line that says what
 * runs, and at the end the figures (totals over the ports, the streams
 * and the lcores): the summary, or with --json one document of the
 * configuration and the results (built with jansson, never by hand), the
 * ports that stopped taking frames and the final `pktgen total:` line
 * that scripts read. Runs on the control thread once the lcores have
 * returned (pg_json_config() also for the RFC 2544 document).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "lr_ethdev.h"
#include "lr_mbuf.h"
#include "pktgen.h"

static FILE *json_out; /* --json: the real stdout (stdout is stderr) */

/* Totals over everything, for the summary and the final line. */
struct totals {
	uint64_t tx, txb, rx, rxb, rx_own, tx_own, tx_drop, tx_nombuf;
	uint64_t rx_all, rx_other, behind;
	uint64_t unique, reordered, dup, late, foreign;
	uint64_t lost;
	unsigned stalled; /* queues whose port stopped taking frames */
	double secs;
	double cpu_s, wall_s;		/* datapath lcores, summed */
	uint64_t busy_tsc, busy_frames; /* --record-core-cycles, summed */
	struct pg_lat lat;
};

static void
compute_totals(struct totals *t)
{
	uint64_t first = 0, last = 0;
	bool have_rx = false;

	memset(t, 0, sizeof(*t));
	t->lat.min = UINT64_MAX;
	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++) {
		have_rx |= pg_app.ports[p].used && pg_app.ports[p].rx;
		for (uint16_t q = 0;
		     pg_app.ports[p].used && q < pg_app.ports[p].nq; q++) {
			const struct pg_counters *c = &pg_app.ports[p].cnt[q];

			t->tx += c->tx_pkts;
			t->txb += c->tx_bytes;
			t->rx += c->rx_own;
			t->rxb += c->rx_own_bytes;
			t->rx_all += c->rx_pkts;
			t->behind += c->tx_behind;
			t->rx_own += c->rx_own;
			t->tx_own += c->tx_own;
			t->tx_drop += c->tx_drop;
			t->tx_nombuf += c->tx_nombuf;
		}
	}
	for (unsigned i = 0; i < pg_app.ntxqs; i++) {
		t->stalled += pg_app.txqs[i]->stall_tsc != 0;
		if (pg_app.txqs[i]->first_tsc == 0)
			continue;
		if (first == 0 || pg_app.txqs[i]->first_tsc < first)
			first = pg_app.txqs[i]->first_tsc;
		if (pg_app.txqs[i]->last_tsc > last)
			last = pg_app.txqs[i]->last_tsc;
	}
	for (unsigned i = 0; i < pg_app.n_dp; i++) {
		struct pg_lcore *lc = pg_dp_lcore(i);

		for (unsigned s = 0; s < pg.nstreams; s++) {
			t->unique += lc->win[s].unique;
			t->reordered += lc->win[s].reordered;
			t->dup += lc->win[s].dup;
			t->late += lc->win[s].late;
		}
		t->foreign += lc->rx_foreign_stream;
		t->cpu_s += (double)lc->cpu_ns / 1e9;
		t->wall_s += (double)lc->wall_ns / 1e9;
		t->busy_tsc += lc->busy_tsc;
		t->busy_frames += lc->busy_frames;
		pg_lat_merge(&t->lat, &lc->lat);
	}
	/* Sending time: from the first burst that left to the last one (a
	 * paced queue's schedule starts at its lcore's first poll, which a
	 * busy host delays), else from the start. */
	if (first != 0 && last > first)
		t->secs = (double)(last - first) / (double)pg.hz;
	else if (last > pg.t0)
		t->secs = (double)(last - pg.t0) / (double)pg.hz;
	else
		t->secs = (double)(pg_app.t_stop - pg.t0) / (double)pg.hz;
	if (t->tx > 0 && last <= pg.t0)
		t->secs = 1e-9;
	t->lost = have_rx && t->tx_own > t->unique ? t->tx_own - t->unique : 0;
	t->rx_other = t->rx_all - t->rx;
}

static double
us(double cycles)
{
	return cycles * 1e6 / (double)pg.hz;
}

/* A stream definition's figures, over its instances and the lcores. */
struct sstats {
	uint64_t tx, txb, unique, dup, reordered, late, lost;
	double jitter; /* cycles: the largest of its instances' */
	struct pg_lat lat;
};

static const struct sstats *
sdef_stats(unsigned k)
{
	static struct sstats ss;
	bool have_rx = false;

	memset(&ss, 0, sizeof(ss));
	ss.lat.min = UINT64_MAX;
	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++)
		have_rx |= pg_app.ports[p].used && pg_app.ports[p].rx;
	for (unsigned i = 0; i < pg_app.ntxqs; i++) {
		const struct pg_txq *q = pg_app.txqs[i];

		if (q->sdef != k)
			continue;
		ss.tx += q->scnt.tx_own;
		ss.txb += q->scnt.tx_bytes;
		for (unsigned l = 0; l < pg_app.n_dp; l++) {
			const struct pg_seqwin *w =
			    &pg_dp_lcore(l)->win[q->stream];

			ss.unique += w->unique;
			ss.dup += w->dup;
			ss.reordered += w->reordered;
			ss.late += w->late;
			ss.jitter = LR_MAX(ss.jitter, (double)w->jitter16 / 16);
		}
	}
	for (unsigned l = 0; l < pg_app.n_dp; l++)
		pg_lat_merge(&ss.lat, &pg_dp_lcore(l)->slat[k]);
	ss.lost = have_rx && ss.tx > ss.unique ? ss.tx - ss.unique : 0;
	return &ss;
}

/* Whether a queue of port p gave up on it (the port stopped taking
 * frames); the earliest time into the run its refusal began and the
 * longest it lasted, in seconds. */
static bool
port_stall(uint16_t p, double *since, double *secs)
{
	bool any = false;

	*since = *secs = 0;
	for (unsigned i = 0; i < pg_app.ntxqs; i++) {
		const struct pg_txq *q = pg_app.txqs[i];
		double s, d;

		if (q->port != p || q->stall_tsc == 0)
			continue;
		s = (double)(q->stall_since - pg.t0) / (double)pg.hz;
		d = (double)q->stall_tsc / (double)pg.hz;
		if (!any || s < *since)
			*since = s;
		*secs = LR_MAX(*secs, d);
		any = true;
	}
	return any;
}

/* A line for every port that stopped taking frames; how many. */
static unsigned
print_stalls(void)
{
	unsigned n = 0;
	double since, secs;

	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++) {
		if (!pg_app.ports[p].used || !port_stall(p, &since, &secs))
			continue;
		printf("port %u (%s): transmit refused every frame for %.2f s "
		       "(from %.3f s into the run): the port stopped taking "
		       "frames\n",
		       p, pg_app.ports[p].name, secs, since);
		n++;
	}
	fflush(stdout);
	return n;
}

/* The ports that stopped taking frames, for the JSON results. */
static json_t *
json_stalls(void)
{
	json_t *a = json_array();
	double since, secs;

	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++)
		if (pg_app.ports[p].used && port_stall(p, &since, &secs))
			json_array_append_new(
			    a, json_pack("{s:i, s:s, s:f, s:f}", "port", p,
					 "name", pg_app.ports[p].name,
					 "since_s", since, "refused_s", secs));
	return a;
}

/* A line a port: its frames and bytes, of ours and not, and its own
 * counters. */
static void
summary_ports(void)
{
	struct pg_sums s;

	for (uint16_t p = 0; pg_port_next(&p, &s); p++) {
		const struct pg_port *pi = &pg_app.ports[p];

		printf("port %u (%s): tx %llu frames %llu bytes, rx %llu "
		       "frames %llu bytes of ours and %llu frames not ours; "
		       "port counters: imissed %llu ierrors %llu oerrors %llu "
		       "rx_nombuf %llu\n",
		       p, pi->name, (unsigned long long)s.tx,
		       (unsigned long long)s.txb, (unsigned long long)s.rx,
		       (unsigned long long)s.rxb, (unsigned long long)s.other,
		       (unsigned long long)pi->stats.imissed,
		       (unsigned long long)pi->stats.ierrors,
		       (unsigned long long)pi->stats.oerrors,
		       (unsigned long long)pi->stats.rx_nombuf);
	}
}

/* The rates reached, and against their target. */
static void
summary_rate(const struct totals *t)
{
	printf("rate: tx %.3f Mpps %.3f Gb/s, rx %.3f Mpps %.3f Gb/s of ours "
	       "(wire bits: frame + 4 FCS + 20 preamble/gap)\n",
	       (double)t->tx / t->secs / 1e6,
	       pg_wire_gbps(t->tx, t->txb, t->secs),
	       (double)t->rx / t->secs / 1e6,
	       pg_wire_gbps(t->rx, t->rxb, t->secs));
	if (pg_app.any_paced) {
		char r[96];

		pg_rate_vs_target(r, sizeof(r), t->tx, t->txb, t->secs);
		if (t->behind)
			printf("rate missed: %s (%llu frames behind the "
			       "schedule)\n",
			       r, (unsigned long long)t->behind);
		else if (t->stalled)
			printf("rate missed: %s until a port stopped taking "
			       "frames\n",
			       r);
		else
			printf("rate: %s, on schedule\n", r);
	}
	if (t->rx_other)
		printf("frames not ours: %llu (another run or generator, or "
		       "a port's own frames)\n",
		       (unsigned long long)t->rx_other);
}

/* The own frames over all streams, then a line a stream definition. */
static void
summary_streams(const struct totals *t)
{
	printf("streams: %u; own frames sent %llu, received %llu (unique "
	       "%llu), lost %llu, reordered %llu (of which below the window "
	       "%llu), duplicates %llu\n",
	       pg.nstreams, (unsigned long long)t->tx_own,
	       (unsigned long long)t->rx_own, (unsigned long long)t->unique,
	       (unsigned long long)t->lost, (unsigned long long)t->reordered,
	       (unsigned long long)t->late, (unsigned long long)t->dup);
	for (unsigned k = 0; k < pg.nsdefs; k++) {
		const struct sstats *ss = sdef_stats(k);
		const struct pg_lat *sl = &ss->lat;

		printf("stream %u '%s': tx %llu frames, rx %llu frames, lost "
		       "%llu, reordered %llu, duplicates %llu; ",
		       k, pg.sdefs[k].name, (unsigned long long)ss->tx,
		       (unsigned long long)(ss->unique + ss->dup),
		       (unsigned long long)ss->lost,
		       (unsigned long long)ss->reordered,
		       (unsigned long long)ss->dup);
		if (sl->n == 0)
			printf("no latency (nothing came back)\n");
		else
			printf("latency (us) min %.3f avg %.3f p50 %.3f p99 "
			       "%.3f p99.9 %.3f max %.3f, jitter %.3f us\n",
			       us((double)sl->min),
			       us((double)sl->sum / (double)sl->n),
			       us(pg_lat_quantile(sl, 0.5)),
			       us(pg_lat_quantile(sl, 0.99)),
			       us(pg_lat_quantile(sl, 0.999)),
			       us((double)sl->max), us(ss->jitter));
	}
}

/* The datapath lcores' time and CPU time, --record-core-cycles' cycles a
 * frame, frames lost at exit. */
static void
summary_cpu(const struct totals *t)
{
	printf("datapath: %u lcore(s) ran %.3f s, on a CPU %.3f s (%.0f%%): "
	       "%.3f Mpps tx per CPU-second, %.1f cycles of CPU time a frame "
	       "sent\n",
	       pg_app.n_dp, t->wall_s, t->cpu_s,
	       t->wall_s > 0 ? 100 * t->cpu_s / t->wall_s : 0,
	       t->cpu_s > 0 ? (double)t->tx / t->cpu_s / 1e6 : 0,
	       t->tx > 0 ? t->cpu_s * (double)pg.hz / (double)t->tx : 0);
	/* testpmd's words, so that one parser reads both. */
	if (pg.o.record_cycles)
		printf("CPU cycles/packet=%.2f (busy cycles=%llu / frames sent "
		       "or received=%llu) at %llu MHz\n",
		       t->busy_frames
			   ? (double)t->busy_tsc / (double)t->busy_frames
			   : 0.0,
		       (unsigned long long)t->busy_tsc,
		       (unsigned long long)t->busy_frames,
		       (unsigned long long)(pg.hz / 1000000));
	if (t->tx_drop || t->tx_nombuf || t->foreign)
		printf("frames refused by ports at exit %llu, bursts without "
		       "mbufs %llu, frames of unknown streams %llu\n",
		       (unsigned long long)t->tx_drop,
		       (unsigned long long)t->tx_nombuf,
		       (unsigned long long)t->foreign);
}

/* The latency histogram of l (with samples), a line a power of two of
 * microseconds that has some. */
static void
latency_histogram(const struct pg_lat *l)
{
	uint64_t coarse[65] = {0};

	for (unsigned b = 0; b < PG_LAT_BUCKETS; b++) {
		uint64_t lo = pg_lat_bucket_lo(b);

		coarse[lo ? 64 - __builtin_clzll(lo) : 0] += l->hist[b];
	}
	printf("latency histogram (us):\n");
	for (unsigned e = 0; e < 65; e++) {
		double lo = e ? (double)(1ULL << (e - 1)) : 0;
		double hi =
		    (double)(1ULL << (e < 64 ? e : 63)) * (e < 64 ? 1 : 2);
		double pct = 100.0 * (double)coarse[e] / (double)l->n;

		if (coarse[e] == 0)
			continue;
		printf("  %11.3f .. %11.3f  %12llu  %5.1f%% ", us(lo), us(hi),
		       (unsigned long long)coarse[e], pct);
		for (int k = 0; k < (int)(pct / 2); k++)
			putchar('#');
		putchar('\n');
	}
}

/* The latency over every frame of ours that came back. */
static void
summary_latency(const struct pg_lat *l)
{
	if (l->n == 0) {
		printf("latency: no frames of ours came back\n");
	} else {
		printf("latency (us) over %llu frames: min %.3f avg %.3f max "
		       "%.3f p50 %.3f p99 %.3f p99.9 %.3f\n",
		       (unsigned long long)l->n, us((double)l->min),
		       us((double)l->sum / (double)l->n), us((double)l->max),
		       us(pg_lat_quantile(l, 0.5)),
		       us(pg_lat_quantile(l, 0.99)),
		       us(pg_lat_quantile(l, 0.999)));
		latency_histogram(l);
	}
}

/* The summary at the end of a run (leaked: mbufs not back). */
static void
print_summary(const struct totals *t, unsigned leaked)
{
	printf("\n=== lr-pktgen summary (%.3f s sending) ===\n", t->secs);
	summary_ports();
	summary_rate(t);
	summary_streams(t);
	summary_cpu(t);
	summary_latency(&t->lat);
	pg_l3_print(stdout);
	printf("mbufs in use after stop: %u\n", leaked);
}

/* jansson: objects built with json_pack, one call a level. */
const char *const pg_rate_mode_name[] = {"max", "pps", "mbps", "pct"};
const char *const pg_rate_mode_unit[] = {"", "frames/s", "Mbit/s",
					 "% of line rate"};

static const char *const vmode_name[] = {"inc", "dec", "random"};
static const char *const l4_name[] = {"udp", "tcp", "icmp"};

/* A stream definition as the run uses it. */
static json_t *
json_sdef(unsigned k)
{
	const struct pg_sdef *d = &pg.sdefs[k];
	json_t *j, *inst = json_array(), *vars = json_array(), *size;
	static const char *const fname[PG_FV_COUNT] = {
	    "src_mac", "dst_mac",  "vlan",    "src_ip",
	    "dst_ip",  "src_port", "dst_port"};

	for (unsigned i = 0; i < pg_app.ntxqs; i++)
		if (pg_app.txqs[i]->sdef == k)
			json_array_append_new(
			    inst, json_pack("{s:i, s:i, s:i, s:I}", "id",
					    pg_app.txqs[i]->stream, "port",
					    pg_app.txqs[i]->port, "queue",
					    pg_app.txqs[i]->queue, "count",
					    (json_int_t)pg_app.txqs[i]->count));
	for (int f = 0; f < PG_FV_COUNT; f++)
		if (d->v[f].lo != d->v[f].hi)
			json_array_append_new(
			    vars,
			    json_pack("{s:s, s:I, s:I, s:I, s:s}", "field",
				      fname[f], "from", (json_int_t)d->v[f].lo,
				      "to", (json_int_t)d->v[f].hi, "step",
				      (json_int_t)d->v[f].step, "mode",
				      vmode_name[d->v[f].mode]));
	if (pg.o.pcap_file) {
		size = json_pack("{s:s, s:s, s:i}", "mode", "pcap", "file",
				 pg.o.pcap_file, "frames", pg_app.pcap_n);
	} else if (d->slots) {
		json_t *sl = json_array();

		for (unsigned i = 0; i < d->nslots; i++)
			json_array_append_new(sl, json_integer(d->slots[i]));
		size = json_pack("{s:s, s:o, s:s}", "mode", "table", "slots",
				 sl, "order", vmode_name[d->size.mode]);
	} else {
		size = json_pack("{s:s, s:I, s:I, s:I, s:s}", "mode",
				 d->size.lo == d->size.hi ? "fixed" : "range",
				 "min", (json_int_t)d->size.lo, "max",
				 (json_int_t)d->size.hi, "step",
				 (json_int_t)d->size.step, "order",
				 vmode_name[d->size.mode]);
	}
	j = json_pack("{s:i, s:s, s:s, s:s, s:i, s:o, s:o, s:o}", "id", k,
		      "name", d->name, "l3", d->ipv6 ? "ipv6" : "ipv4", "l4",
		      l4_name[d->l4], "vlan_tags", d->ntags, "size", size,
		      "fields", vars, "instances", inst);
	if (d->rate_mode == PG_RATE_PPS)
		json_object_set_new(j, "rate_pps", json_real(d->rate));
	else if (d->rate_mode == PG_RATE_MBPS)
		json_object_set_new(j, "rate_mbps", json_real(d->rate));
	else
		json_object_set_new(j, "share", json_real(d->share));
	if (d->count)
		json_object_set_new(j, "count",
				    json_integer((json_int_t)d->count));
	if (d->burst)
		json_object_set_new(j, "burst",
				    json_pack("{s:I, s:I, s:f}", "frames",
					      (json_int_t)d->burst, "bursts",
					      (json_int_t)d->bursts, "gap_us",
					      d->gap_us));
	return j;
}

/* The run as asked: ports, rate, sizes, limits, streams. */
static json_t *
json_config(void)
{
	const struct pg_opts *o = &pg.o;
	json_t *jp = json_array(), *js = json_array();

	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++) {
		const struct pg_port *pi = &pg_app.ports[p];

		if (pi->used)
			json_array_append_new(
			    jp, json_pack("{s:i, s:s, s:b, s:b, s:i}", "port",
					  p, "name", pi->name, "tx", pi->tx,
					  "rx", pi->rx, "queues", pi->nq));
	}
	for (unsigned k = 0; k < pg.nsdefs; k++)
		json_array_append_new(js, json_sdef(k));
	return json_pack(
	    "{s:I, s:i, s:o, s:{s:s, s:f, s:s, s:f}, s:I, s:f, s:i, "
	    "s:i, s:f, s:o}",
	    "run_id", (json_int_t)pg.run_id, "lcores", pg_app.n_dp, "ports", jp,
	    "rate", "mode", pg_rate_mode_name[o->rate_mode], "value",
	    o->rate_mode == PG_RATE_MAX ? 0.0 : o->rate, "unit",
	    pg_rate_mode_unit[o->rate_mode], "line_rate_gbps",
	    o->line_rate_gbps, "count", (json_int_t)o->count, "duration_s",
	    o->duration, "burst", o->burst, "drain_ms", o->drain_ms,
	    "bucket_ms", o->bucket_ms, "streams", js);
}

static json_t *
json_latency(const struct pg_lat *l)
{
	json_t *j = json_pack("{s:I}", "n", (json_int_t)l->n), *h;

	if (l->n == 0)
		return j;
	json_object_set_new(j, "min", json_real(us((double)l->min)));
	json_object_set_new(j, "avg",
			    json_real(us((double)l->sum / (double)l->n)));
	json_object_set_new(j, "max", json_real(us((double)l->max)));
	json_object_set_new(j, "p50", json_real(us(pg_lat_quantile(l, 0.5))));
	json_object_set_new(j, "p99", json_real(us(pg_lat_quantile(l, 0.99))));
	json_object_set_new(j, "p999",
			    json_real(us(pg_lat_quantile(l, 0.999))));
	h = json_array();
	for (unsigned b = 0; b < PG_LAT_BUCKETS; b++) {
		if (l->hist[b] == 0)
			continue;
		json_array_append_new(
		    h, json_pack("{s:f, s:f, s:I}", "lo",
				 us((double)pg_lat_bucket_lo(b)), "hi",
				 us((double)(b + 1 < PG_LAT_BUCKETS
						 ? pg_lat_bucket_lo(b + 1)
						 : UINT64_MAX)),
				 "count", (json_int_t)l->hist[b]));
	}
	json_object_set_new(j, "histogram", h);
	return j;
}

/* Per stream definition: sent, back, lost, reordered, duplicates,
 * latency, jitter. */
static json_t *
json_streams(void)
{
	json_t *a = json_array();

	for (unsigned k = 0; k < pg.nsdefs; k++) {
		const struct sstats *ss = sdef_stats(k);
		json_t *j = json_pack(
		    "{s:i, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f}", "id",
		    k, "name", pg.sdefs[k].name, "tx", (json_int_t)ss->tx,
		    "tx_bytes", (json_int_t)ss->txb, "rx",
		    (json_int_t)(ss->unique + ss->dup), "lost",
		    (json_int_t)ss->lost, "reordered",
		    (json_int_t)ss->reordered, "late", (json_int_t)ss->late,
		    "dup", (json_int_t)ss->dup, "jitter_us", us(ss->jitter));

		json_object_set_new(j, "latency_us", json_latency(&ss->lat));
		json_array_append_new(a, j);
	}
	return a;
}

/* The one JSON document of --json, on the saved stdout. */
static void
print_json(const struct totals *t, unsigned leaked)
{
	json_t *res, *jp = json_array(), *doc;
	struct pg_sums s;

	for (uint16_t p = 0; pg_port_next(&p, &s); p++) {
		const struct pg_port *pi = &pg_app.ports[p];

		json_array_append_new(
		    jp, json_pack("{s:i, s:s, s:I, s:I, s:I, s:I, s:I, s:I, "
				  "s:I, s:I, s:I}",
				  "port", p, "name", pi->name, "tx",
				  (json_int_t)s.tx, "tx_bytes",
				  (json_int_t)s.txb, "rx", (json_int_t)s.rx,
				  "rx_bytes", (json_int_t)s.rxb, "rx_other",
				  (json_int_t)s.other, "imissed",
				  (json_int_t)pi->stats.imissed, "ierrors",
				  (json_int_t)pi->stats.ierrors, "oerrors",
				  (json_int_t)pi->stats.oerrors, "rx_nombuf",
				  (json_int_t)pi->stats.rx_nombuf));
	}
	res = json_pack(
	    "{s:f, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, "
	    "s:I, s:I, s:f, s:f, s:f, s:f, s:b, s:i, s:f, s:f}",
	    "elapsed_s", t->secs, "tx", (json_int_t)t->tx, "tx_bytes",
	    (json_int_t)t->txb, "rx", (json_int_t)t->rx, "rx_bytes",
	    (json_int_t)t->rxb, "rx_own", (json_int_t)t->rx_own, "rx_other",
	    (json_int_t)t->rx_other, "tx_own", (json_int_t)t->tx_own, "lost",
	    (json_int_t)t->lost, "reordered", (json_int_t)t->reordered, "late",
	    (json_int_t)t->late, "dup", (json_int_t)t->dup, "tx_dropped",
	    (json_int_t)t->tx_drop, "tx_behind", (json_int_t)t->behind,
	    "tx_mpps", (double)t->tx / t->secs / 1e6, "rx_mpps",
	    (double)t->rx / t->secs / 1e6, "tx_gbps",
	    pg_wire_gbps(t->tx, t->txb, t->secs), "rx_gbps",
	    pg_wire_gbps(t->rx, t->rxb, t->secs), "rate_missed",
	    t->behind != 0 || t->stalled, "mbufs_leaked", leaked, "cpu_s",
	    t->cpu_s, "lcore_wall_s", t->wall_s);
	json_object_set_new(res, "ports", jp);
	json_object_set_new(res, "latency_us", json_latency(&t->lat));
	json_object_set_new(res, "streams", json_streams());
	json_object_set_new(res, "stalls", json_stalls());
	if (pg.l3)
		json_object_set_new(res, "l3", pg_l3_json());
	doc = json_pack("{s:o, s:o}", "config", json_config(), "results", res);
	if (doc == NULL ||
	    json_dumpf(doc, json_out,
		       JSON_INDENT(1) | JSON_REAL_PRECISION(10)) != 0 ||
	    fputc('\n', json_out) == EOF || fflush(json_out) != 0)
		pg_fail("--json: cannot write the JSON document to %s",
			pg.o.json_file ? pg.o.json_file : "stdout");
	json_decref(doc);
}

static void
print_final(const struct totals *t)
{
	const struct pg_lat *l = &t->lat;
	bool have = l->n > 0;

	printf("pktgen total: tx=%llu rx=%llu rx_own=%llu rx_other=%llu "
	       "lost=%llu reordered=%llu dup=%llu tx_behind=%llu "
	       "tx_mpps=%.4f rx_mpps=%.4f "
	       "tx_gbps=%.4f rx_gbps=%.4f lat_min_us=%.3f lat_avg_us=%.3f "
	       "lat_p50_us=%.3f lat_p99_us=%.3f lat_p999_us=%.3f "
	       "lat_max_us=%.3f elapsed_s=%.4f cpu_s=%.4f\n",
	       (unsigned long long)t->tx, (unsigned long long)t->rx,
	       (unsigned long long)t->rx_own, (unsigned long long)t->rx_other,
	       (unsigned long long)t->lost, (unsigned long long)t->reordered,
	       (unsigned long long)t->dup, (unsigned long long)t->behind,
	       (double)t->tx / t->secs / 1e6, (double)t->rx / t->secs / 1e6,
	       pg_wire_gbps(t->tx, t->txb, t->secs),
	       pg_wire_gbps(t->rx, t->rxb, t->secs),
	       have ? us((double)l->min) : 0,
	       have ? us((double)l->sum / (double)l->n) : 0,
	       have ? us(pg_lat_quantile(l, 0.5)) : 0,
	       have ? us(pg_lat_quantile(l, 0.99)) : 0,
	       have ? us(pg_lat_quantile(l, 0.999)) : 0,
	       have ? us((double)l->max) : 0, t->secs, t->cpu_s);
	fflush(stdout);
}

void
pg_describe_run(const struct pg_opts *o)
{
	static const char *const rate_unit[] = {"max", "frames/s", "Mbit/s",
						"% of line rate"};
	unsigned np = 0;

	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++)
		np += pg_app.ports[p].used;
	printf("lr-pktgen: %u port(s), %u lcore(s), %u stream(s) on %u "
	       "queue(s), ",
	       np, pg_app.n_dp, pg.nsdefs, pg.nstreams);
	if (o->profile)
		printf("profile %s", o->profile);
	else if (o->replay)
		printf("replaying %u frames of %s at %g times their capture's "
		       "speed (a loop: %.6f s)",
		       pg_app.pcap_n, o->pcap_file, o->speed,
		       (double)pg_app.txqs[0]->loop_fp /
			   (double)(1u << PG_FP_SHIFT) / (double)pg.hz);
	else if (o->pcap_file)
		printf("replaying %u frames of %s", pg_app.pcap_n,
		       o->pcap_file);
	else if (o->size_mode == PG_SIZE_IMIX)
		printf("IMIX 64/570/1518 7:4:1");
	else if (o->size_mode == PG_SIZE_RANGE)
		printf("sizes %llu-%llu step %llu%s",
		       (unsigned long long)o->f[PG_F_SIZE].lo,
		       (unsigned long long)o->f[PG_F_SIZE].hi,
		       (unsigned long long)o->f[PG_F_SIZE].step,
		       o->random ? " random" : "");
	else
		printf("%llu-byte frames",
		       (unsigned long long)o->f[PG_F_SIZE].lo);
	if (o->rate_mode == PG_RATE_MAX)
		printf(", rate max");
	else
		printf(", rate %.10g %s", o->rate, rate_unit[o->rate_mode]);
	if (o->count)
		printf(", count %llu", (unsigned long long)o->count);
	if (o->duration > 0)
		printf(", duration %g s", o->duration);
	printf("\n");
	fflush(stdout);
}

/* --json: the document alone on stdout (everything else, the EAL's and
 * the drivers' lines too, goes to stderr), or --json FILE into FILE; 0, or
 * -1 after saying why not. */
int
pg_json_open(const struct pg_opts *o)
{
	int fd;

	if (o->json_file) {
		json_out = fopen(o->json_file, "w");
		if (json_out == NULL)
			return pg_fail("--json '%s': cannot create: %s",
				       o->json_file, strerror(errno));
		return 0;
	}
	fd = dup(STDOUT_FILENO);
	fflush(stdout);
	json_out = fd < 0 ? NULL : fdopen(fd, "w");
	if (json_out == NULL || dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
		return pg_fail("--json: cannot set stdout aside: %s",
			       strerror(errno));
	return 0;
}

FILE *
pg_json_stream(void)
{
	return json_out;
}

json_t *
pg_json_config(void)
{
	return json_config();
}

int
pg_json_close(const struct pg_opts *o)
{
	if (json_out && fclose(json_out) != 0 && o->json_file)
		return pg_fail("--json '%s': cannot write: %s", o->json_file,
			       strerror(errno));
	return 0;
}

/* The figures of a run that started: the summary (or the --json
 * document), the ports that stopped taking frames and the final `pktgen
 * total:` line. 0, or -1 when a port stopped taking frames. */
int
pg_report(const struct pg_opts *o, unsigned leaked)
{
	struct totals tot;
	bool stalled;

	compute_totals(&tot);
	pg_stats_json_last();
	if (o->json)
		print_json(&tot, leaked);
	if (o->json && !o->json_file)
		printf("mbufs in use after stop: %u\n", leaked);
	else
		print_summary(&tot, leaked);
	stalled = print_stalls() != 0;
	print_final(&tot);
	return stalled ? -1 : 0;
}
