/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ctl_handlers.c - what the control socket's commands (ctl.c) do to the
 * run: "stats" reads the counters so far, "start" and "stop" start and
 * stop the sending, "rate" sets a new rate, split over the instances as
 * --rate-* was at setup (setup.c). Runs on the control thread, between
 * the ticks of its loop: a new rate reaches a queue's lcore through the
 * queue's rate_gen (release), the counters are read with relaxed loads.
 */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "lr_ethdev.h"
#include "pktgen.h"

json_t *
pg_ctl_stats(void)
{
	json_t *jp = json_array(), *js = json_array(), *r;
	uint64_t now = lr_get_tsc_cycles();
	struct pg_sums s;

	for (uint16_t p = 0; pg_port_next(&p, &s); p++)
		json_array_append_new(jp, pg_port_json(p, &s));
	/* Per stream: the frames sent so far and its own rate, if any. */
	for (unsigned k = 0; k < pg.nsdefs; k++) {
		const struct pg_sdef *d = &pg.sdefs[k];
		uint64_t tx = 0;
		json_t *j;

		for (unsigned i = 0; i < pg_app.ntxqs; i++)
			if (pg_app.txqs[i]->sdef == k)
				tx += atomic_load_explicit(
				    &pg_app.txqs[i]->scnt.tx_pkts,
				    memory_order_relaxed);
		j = json_pack("{s:i, s:s, s:I}", "id", k, "name", d->name, "tx",
			      (json_int_t)tx);
		if (d->rate_mode != PG_RATE_MAX)
			json_object_set_new(j,
					    d->rate_mode == PG_RATE_PPS
						? "rate_pps"
						: "rate_mbps",
					    json_real(d->rate));
		json_array_append_new(js, j);
	}
	r = json_pack("{s:f, s:o, s:o, s:I, s:s, s:f, s:s}", "t",
		      (double)(now - pg.t0) / (double)pg.hz, "ports", jp,
		      "streams", js, "tx_behind", (json_int_t)pg_behind_sum(),
		      "rate_mode", pg_rate_mode_name[pg.o.rate_mode], "rate",
		      pg.o.rate_mode == PG_RATE_MAX ? 0.0 : pg.o.rate, "state",
		      pg_send_state());
	if (r != NULL && pg.l3)
		json_object_set_new(r, "l3", pg_l3_json());
	return r;
}

/* Give instance i the rate pps or bps: its costs, then its rate_gen
 * moved on (release) for its lcore to take them. */
static void
inst_set_rate(unsigned i, double pps, double bps)
{
	struct pg_txq *q = pg_app.txqs[i];
	const struct pg_sdef *d = &pg.sdefs[q->sdef];
	double hz = (double)pg.hz;

	if (!(d->burst && d->gap_us > 0)) {
		pg_app.target_pps += pps - pg_app.inst_pps[i];
		pg_app.target_bps += bps - pg_app.inst_bps[i];
	}
	pg_app.inst_pps[i] = pps;
	pg_app.inst_bps[i] = bps;
	atomic_store_explicit(
	    &q->new_pkt_cost,
	    pps > 0 ? (uint64_t)(hz * (1 << PG_FP_SHIFT) / pps + 0.5) : 0,
	    memory_order_relaxed);
	atomic_store_explicit(
	    &q->new_byte_cost,
	    bps > 0 ? (uint64_t)(hz * 8 * (1 << PG_FP_SHIFT) / bps + 0.5) : 0,
	    memory_order_relaxed);
	atomic_fetch_add_explicit(&q->rate_gen, 1, memory_order_release);
}

int
pg_ctl_set_rate(int mode, double v, int stream, char *err, size_t n)
{
	static const double lo[] = {0, 1, 0.001, 0.0001};
	static const double hi[] = {0, 1e10, 1e7, 100};
	struct pg_opts *o = &pg.o;
	struct pg_sdef *sd = stream >= 0 ? &pg.sdefs[stream] : NULL;
	char which[PG_NAME_MAX + 32] = "";
	double was;

	if (sd != NULL && sd->rate_mode == PG_RATE_MAX) {
		snprintf(err, n,
			 "rate: stream %d '%s' has no rate of its own (it "
			 "takes a share of --rate-*: set that without "
			 "\"stream\")",
			 stream, sd->name);
		return -1;
	}
	if (sd != NULL && mode != (int)sd->rate_mode) {
		snprintf(err, n, "rate: stream %d '%s' has its rate in %s",
			 stream, sd->name, pg_rate_mode_name[sd->rate_mode]);
		return -1;
	}
	if (sd == NULL && (o->rate_mode == PG_RATE_MAX || pg_app.wsum == 0)) {
		snprintf(err, n,
			 "rate: the run was started without --rate-* "
			 "(or every stream has a rate of its own): "
			 "nothing to change");
		return -1;
	}
	if (sd == NULL && mode != (int)o->rate_mode) {
		snprintf(err, n, "rate: the run's rate is in %s",
			 pg_rate_mode_name[o->rate_mode]);
		return -1;
	}
	if (!(v >= lo[mode] && v <= hi[mode])) {
		snprintf(err, n, "rate: %g out of range %g..%g", v, lo[mode],
			 hi[mode]);
		return -1;
	}
	if (sd != NULL) {
		was = sd->rate;
		sd->rate = v;
		snprintf(which, sizeof(which), " for stream %d '%s'", stream,
			 sd->name);
	} else {
		was = o->rate;
		o->rate = v;
	}
	for (unsigned i = 0; i < pg_app.ntxqs; i++) {
		struct pg_txq *q = pg_app.txqs[i];
		const struct pg_sdef *d = &pg.sdefs[q->sdef];
		unsigned idx = 0, ni = pg_sdef_instances(q->sdef, q, &idx);
		double w = d->share / ni, pps = 0, bps = 0;

		if (!q->paced || q->timed)
			continue;
		if (sd != NULL) {
			if ((int)q->sdef != stream)
				continue;
			if (mode == PG_RATE_PPS)
				pps = v / ni;
			else
				bps = v * 1e6 / ni;
		} else {
			if (d->rate_mode != PG_RATE_MAX)
				continue;
			if (mode == PG_RATE_PPS)
				pps = v * w / pg_app.wsum;
			else if (mode == PG_RATE_MBPS)
				bps = v * 1e6 * w / pg_app.wsum;
			else
				bps = o->line_rate_gbps * 1e9 * v / 100 * w /
				      pg_app.wport[q->port];
		}
		inst_set_rate(i, pps, bps);
	}
	pg_note("[%7.1fs] control: rate %.10g %s (was %.10g)%s",
		(double)(lr_get_tsc_cycles() - pg.t0) / (double)pg.hz, v,
		pg_rate_mode_unit[mode], was, which);
	return 0;
}

void
pg_ctl_set_sending(bool on)
{
	if (on == pg_sending())
		return;
	atomic_store_explicit(&pg.paused, !on, memory_order_relaxed);
	pg_note("[%7.1fs] control: sending %s",
		(double)(lr_get_tsc_cycles() - pg.t0) / (double)pg.hz,
		on ? "started" : "stopped");
}
