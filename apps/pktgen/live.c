/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * live.c - lr-pktgen while the run goes on: the datapath lcores started
 * (pg_lcore_loop(), datapath.c) and the control thread beside them (the
 * main lcore when there are workers, else a plain thread). The control
 * thread prints a line per port each second (on a terminal the live
 * screen redraws instead, screen.c), the --stats-period and --stats-json
 * lines, serves the control socket (ctl.c), ends the run (count,
 * duration, signal, "quit"), lets in-flight frames drain and stops the
 * lcores. It reads the queues' counters (relaxed atomic loads) and never
 * writes what the lcores own.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "lr_app.h"
#include "lr_eal.h"
#include "lr_ethdev.h"
#include "lr_mbuf.h"
#include "pktgen.h"

static uint64_t last_stats;    /* TSC of the last --stats-period lines */
static unsigned ctl_quits;     /* "quit" requests of the control socket */
static FILE *stats_json;       /* --stats-json */
static bool stats_json_failed; /* a write failed (said once) */
static uint64_t last_sjson;    /* TSC of the last --stats-json line */

double
pg_wire_gbps(uint64_t pkts, uint64_t bytes, double secs)
{
	return secs > 0 ? (double)(bytes + pkts * (PG_FCS + PG_WIRE_GAP)) * 8 /
			      secs / 1e9
			: 0;
}

/* Sums of a port's queue counters into s: rx and rxb count the frames of
 * ours, other the rest. */
static void
port_sums(uint16_t p, struct pg_sums *s)
{
	uint64_t all = 0;

	*s = (struct pg_sums){0};
	for (uint16_t q = 0; q < pg_app.ports[p].nq; q++) {
		const struct pg_counters *c = &pg_app.ports[p].cnt[q];

		s->tx +=
		    atomic_load_explicit(&c->tx_pkts, memory_order_relaxed);
		s->txb +=
		    atomic_load_explicit(&c->tx_bytes, memory_order_relaxed);
		s->rx += atomic_load_explicit(&c->rx_own, memory_order_relaxed);
		s->rxb += atomic_load_explicit(&c->rx_own_bytes,
					       memory_order_relaxed);
		all += atomic_load_explicit(&c->rx_pkts, memory_order_relaxed);
	}
	s->other = all > s->rx ? all - s->rx : 0;
}

int
pg_port_next(uint16_t *p, struct pg_sums *s)
{
	for (; *p < LR_MAX_ETHPORTS; (*p)++) {
		if (pg_app.ports[*p].used) {
			port_sums(*p, s);
			return 1;
		}
	}
	return 0;
}

json_t *
pg_port_json(uint16_t p, const struct pg_sums *s)
{
	return json_pack("{s:i, s:I, s:I, s:I, s:I, s:I}", "port", p, "tx",
			 (json_int_t)s->tx, "tx_bytes", (json_int_t)s->txb,
			 "rx", (json_int_t)s->rx, "rx_bytes",
			 (json_int_t)s->rxb, "rx_other", (json_int_t)s->other);
}

uint64_t
pg_port_drops(uint16_t p)
{
	struct lr_eth_stats st;

	if (lr_eth_stats_get(p, &st) != 0)
		return 0;
	return st.imissed + st.ierrors + st.oerrors + st.rx_nombuf;
}

/* Frames behind the rate's schedule, over every queue. */
uint64_t
pg_behind_sum(void)
{
	uint64_t n = 0;

	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++)
		for (uint16_t q = 0;
		     pg_app.ports[p].used && q < pg_app.ports[p].nq; q++)
			n += atomic_load_explicit(
			    &pg_app.ports[p].cnt[q].tx_behind,
			    memory_order_relaxed);
	return n;
}

/* "X of Y UNIT": the rate reached over pkts frames and bytes in secs
 * against the one asked for, in the unit it was asked in. */
/* "X of Y UNIT": the rate reached over pkts frames and bytes in secs
 * against the sum of the continuous streams' targets, in frames/s or, when
 * every target is a bit rate, in bits/s. */
void
pg_rate_vs_target(char *buf, size_t len, uint64_t pkts, uint64_t bytes,
		  double secs)
{
	if (pg_app.target_pps > 0 || pg_app.target_bps == 0)
		snprintf(buf, len, "%.4g of %.6g Mpps%s",
			 secs > 0 ? (double)pkts / secs / 1e6 : 0,
			 pg_app.target_pps / 1e6,
			 pg_app.target_bps > 0 ? " (and targets in bits/s)"
					       : "");
	else if (pg.o.rate_mode == PG_RATE_PCT)
		snprintf(buf, len, "%.4g of %.6g Gbit/s",
			 pg_wire_gbps(pkts, bytes, secs),
			 pg_app.target_bps / 1e9);
	else
		snprintf(buf, len, "%.4g of %.6g Mbit/s",
			 pg_wire_gbps(pkts, bytes, secs) * 1e3,
			 pg_app.target_bps / 1e6);
}

/* The mbuf pool's size now, and for an elastic pool its range, peak,
 * growths and shrinks (a live line). */
static void
print_pool(void)
{
	char phrase[160];

	if (pg.pool != NULL &&
	    lr_app_pool_phrase(pg.pool, phrase, sizeof(phrase)) == 0)
		printf("          mbuf pool: %s\n", phrase);
}

/* --xstats: the mbuf pool's counters. */
void
pg_print_pool_xstats(void)
{
	if (pg.pool != NULL && lr_app_pool_xstats(pg.pool) < 0)
		printf("mbuf pool '%s': %u mbufs (fixed)\n", pg.pool->name,
		       lr_mempool_objs_count(pg.pool));
}

void
pg_print_live(uint64_t now)
{
	double dt = (double)(now - pg_app.last_print) / (double)pg.hz;
	uint64_t all_tx = 0, all_txb = 0, behind;
	struct pg_sums s;

	if (dt <= 0)
		return;
	for (uint16_t p = 0; pg_port_next(&p, &s); p++) {
		struct pg_port *pi = &pg_app.ports[p];
		uint64_t tx = s.tx, txb = s.txb, rx = s.rx, rxb = s.rxb;
		uint64_t other = s.other, drops = pg_port_drops(p);

		printf("[%7.1fs] port %u: tx %8.3f Mpps %7.3f Gb/s | rx %8.3f "
		       "Mpps %7.3f Gb/s | drops %llu",
		       (double)(now - pg.t0) / (double)pg.hz, p,
		       (double)(tx - pi->l_tx) / dt / 1e6,
		       pg_wire_gbps(tx - pi->l_tx, txb - pi->l_txb, dt),
		       (double)(rx - pi->l_rx) / dt / 1e6,
		       pg_wire_gbps(rx - pi->l_rx, rxb - pi->l_rxb, dt),
		       (unsigned long long)(drops - pi->l_drops));
		if (other != pi->l_other)
			printf(" | not ours %.3f Mpps",
			       (double)(other - pi->l_other) / dt / 1e6);
		putchar('\n');
		pi->l_tx = tx;
		pi->l_txb = txb;
		pi->l_rx = rx;
		pi->l_rxb = rxb;
		pi->l_other = other;
		pi->l_drops = drops;
		all_tx += tx;
		all_txb += txb;
	}
	behind = pg_behind_sum();
	if (behind != pg_app.l_behind) {
		char r[96];

		pg_rate_vs_target(r, sizeof(r), all_tx - pg_app.l_all_tx,
				  all_txb - pg_app.l_all_txb, dt);
		printf("[%7.1fs] rate missed: %s (%llu frames behind the "
		       "schedule in %.1f s)\n",
		       (double)(now - pg.t0) / (double)pg.hz, r,
		       (unsigned long long)(behind - pg_app.l_behind), dt);
	}
	pg_app.l_behind = behind;
	pg_app.l_all_tx = all_tx;
	pg_app.l_all_txb = all_txb;
	print_pool();
	fflush(stdout);
	pg_app.last_print = now;
}

/* --stats-period: every used port's cumulative counters, one line each,
 * all with the same CLOCK_MONOTONIC_RAW time, so that a script can take
 * rates between any two of them. */
static void
print_stats_lines(void)
{
	double t = (double)lr_time_ns() / 1e9;

	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++) {
		struct lr_eth_stats st;

		if (!pg_app.ports[p].used || lr_eth_stats_get(p, &st) != 0)
			continue;
		printf("stats t=%.6f port=%u ipackets=%llu opackets=%llu "
		       "ibytes=%llu obytes=%llu imissed=%llu ierrors=%llu "
		       "oerrors=%llu rx_nombuf=%llu\n",
		       t, p, (unsigned long long)st.ipackets,
		       (unsigned long long)st.opackets,
		       (unsigned long long)st.ibytes,
		       (unsigned long long)st.obytes,
		       (unsigned long long)st.imissed,
		       (unsigned long long)st.ierrors,
		       (unsigned long long)st.oerrors,
		       (unsigned long long)st.rx_nombuf);
	}
	fflush(stdout);
}

/* --stats-json: one line a second, every port's counters so far and the
 * rates since the last line. */
static void
stats_json_line(uint64_t now)
{
	static uint64_t last_t, l_tx[LR_MAX_ETHPORTS], l_rx[LR_MAX_ETHPORTS];
	double dt = (double)(now - (last_t ? last_t : pg.t0)) / (double)pg.hz;
	json_t *jp = json_array(), *line, *j;
	struct pg_sums s;

	for (uint16_t p = 0; pg_port_next(&p, &s); p++) {
		j = pg_port_json(p, &s);
		json_object_set_new(
		    j, "tx_mpps",
		    json_real(dt > 0 ? (double)(s.tx - l_tx[p]) / dt / 1e6
				     : 0));
		json_object_set_new(
		    j, "rx_mpps",
		    json_real(dt > 0 ? (double)(s.rx - l_rx[p]) / dt / 1e6
				     : 0));
		json_array_append_new(jp, j);
		l_tx[p] = s.tx;
		l_rx[p] = s.rx;
	}
	line = json_pack("{s:f, s:o, s:I}", "t",
			 (double)(now - pg.t0) / (double)pg.hz, "ports", jp,
			 "tx_behind", (json_int_t)pg_behind_sum());
	last_t = now;
	if (line == NULL ||
	    json_dumpf(line, stats_json,
		       JSON_COMPACT | JSON_REAL_PRECISION(10)) != 0 ||
	    fputc('\n', stats_json) == EOF || fflush(stats_json) != 0) {
		if (!stats_json_failed)
			pg_fail("--stats-json '%s': cannot write: %s",
				pg.o.stats_json_file, strerror(errno));
		stats_json_failed = true;
	}
	json_decref(line);
}

/* --stats-json: create the file. */
int
pg_stats_json_open(const struct pg_opts *o)
{
	stats_json = fopen(o->stats_json_file, "w");
	if (stats_json == NULL)
		return pg_fail("--stats-json '%s': cannot create: %s",
			       o->stats_json_file, strerror(errno));
	return 0;
}

/* The line of the run's end (t_stop), unless a write failed. */
void
pg_stats_json_last(void)
{
	if (stats_json && !stats_json_failed)
		stats_json_line(pg_app.t_stop);
}

/* A failed write was said when it failed; a failed close is said here. */
int
pg_stats_json_close(const struct pg_opts *o)
{
	if (stats_json && (fclose(stats_json) != 0 || stats_json_failed)) {
		if (!stats_json_failed)
			pg_fail("--stats-json '%s': cannot close: %s",
				o->stats_json_file, strerror(errno));
		return -1;
	}
	return 0;
}

static bool
all_tx_done(void)
{
	for (unsigned i = 0; i < pg_app.n_dp; i++)
		if (!atomic_load_explicit(&pg_dp_lcore(i)->tx_done,
					  memory_order_acquire))
			return false;
	return true;
}

/* Every frame of ours sent came back (--drain-all): own frames received
 * over every port reach the own frames sent. */
static bool
all_back(void)
{
	uint64_t sent = 0, back = 0;

	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++) {
		for (uint16_t q = 0;
		     pg_app.ports[p].used && q < pg_app.ports[p].nq; q++) {
			const struct pg_counters *c = &pg_app.ports[p].cnt[q];

			sent += atomic_load_explicit(&c->tx_own,
						     memory_order_relaxed);
			back += atomic_load_explicit(&c->rx_own,
						     memory_order_relaxed);
		}
	}
	return back >= sent;
}

/* ---- Sending stopped and started (the control socket, --idle) ---- */

/* Every lcore's queues stand still (or are done). */
static bool
all_still(void)
{
	for (unsigned i = 0; i < pg_app.n_dp; i++) {
		const struct pg_lcore *lc = pg_dp_lcore(i);

		if (!atomic_load_explicit(&lc->tx_done, memory_order_acquire) &&
		    !atomic_load_explicit(&lc->tx_still, memory_order_acquire))
			return false;
	}
	return true;
}

/* "sending"; "stopping" until every queue stands still, then "stopped";
 * "done" once the run's sending is over. */
const char *
pg_send_state(void)
{
	if (atomic_load(&pg.state) != PG_RUN)
		return "done";
	if (pg_sending())
		return "sending";
	return all_still() ? "stopped" : "stopping";
}

/* Watch the run: live lines, the end of sending, the drain, the stop. */
static void
control_loop(void)
{
	const struct pg_opts *o = &pg.o;
	bool have_rx = false, draining = false;
	uint64_t drain_start = 0, drain = (uint64_t)o->drain_ms * pg.hz / 1000;
	unsigned stops_at_drain = 0;
	uint64_t last_shrink = pg.t0;
	const struct timespec tick = {0, 5 * 1000 * 1000};
	const uint64_t stats_every =
	    (uint64_t)(o->stats_period * (double)pg.hz);

	for (unsigned i = 0; i < pg_app.n_dp; i++)
		have_rx |= pg_dp_lcore(i)->nrx > 0;
	pg_app.last_print = last_stats = last_sjson = pg.t0;
	for (;;) {
		uint64_t now;

		nanosleep(&tick, NULL);
		now = lr_get_tsc_cycles();
		if (atomic_load(&pg.state) == PG_STOP)
			break;
		if (o->ctl_path && pg_ctl_poll())
			ctl_quits++;
		/* A stop signal while sending ends the sending and starts the
		 * drain; one during the drain (the first or a second one)
		 * ends the drain at once: the user asked to stop. */
		if (draining &&
		    lr_eal_stop_requested() + ctl_quits > stops_at_drain) {
			atomic_store(&pg.state, PG_STOP);
			break;
		}
		if (!draining &&
		    (lr_eal_stop_requested() + ctl_quits > 0 ||
		     (pg_app.ntxqs > 0 && all_tx_done()) ||
		     (pg_app.ntxqs == 0 && pg.end_tsc && now >= pg.end_tsc))) {
			draining = true;
			drain_start = now;
			stops_at_drain = lr_eal_stop_requested() + ctl_quits;
			atomic_store(&pg.state, PG_TX_STOP);
			if (!o->quiet && have_rx && o->drain_ms >= 1000)
				pg_note(
				    "sending done: receiving for up to %u ms "
				    "(Ctrl-C ends it)",
				    o->drain_ms);
		}
		if (draining &&
		    (!have_rx || now - drain_start >= drain ||
		     (o->drain_all && all_tx_done() && all_back())) &&
		    all_tx_done()) {
			atomic_store(&pg.state, PG_STOP);
			break;
		}
		/* Frames the port keeps refusing must not hold us forever. */
		if (draining && now - drain_start >= drain + pg.hz) {
			atomic_store(&pg.state, PG_STOP);
			break;
		}
		if (pg_screen_on())
			pg_screen_tick(now);
		else if (!o->quiet && !o->rfc2544 &&
			 now - pg_app.last_print >= pg.hz)
			pg_print_live(now);
		if (stats_json && now - last_sjson >= pg.hz) {
			stats_json_line(now);
			last_sjson = now;
		}
		if (stats_every && now - last_stats >= stats_every) {
			print_stats_lines();
			last_stats = now;
		}
		if (now - last_shrink >= pg.hz / 10) {
			lr_mempool_shrink_idle(pg.pool);
			last_shrink = now;
		}
	}
	pg_app.t_stop = lr_get_tsc_cycles();
}

static void *
control_thread(void *arg)
{
	(void)arg;
	control_loop();
	return NULL;
}

void
pg_run_lcores(void)
{
	const struct pg_opts *o = &pg.o;
	bool ctl_thread = false;
	pthread_t ctl;

	pg.t0 = lr_get_tsc_cycles();
	pg.end_tsc = o->duration > 0
			 ? pg.t0 + (uint64_t)(o->duration * (double)pg.hz)
			 : 0;
	atomic_store(&pg.go, 1);
	if (pg_app.dp_lcores[0] != lr_get_main_lcore()) {
		for (unsigned i = 0; i < pg_app.n_dp; i++)
			lr_eal_remote_launch(pg_lcore_loop, pg_dp_lcore(i),
					     pg_app.dp_lcores[i]);
		control_loop();
		lr_eal_mp_wait_lcore();
		return;
	}
	if (pthread_create(&ctl, NULL, control_thread, NULL) != 0) {
		pg_fail("cannot start the control thread");
		atomic_store(&pg.state, PG_STOP);
	} else {
		ctl_thread = true;
	}
	pg_lcore_loop(pg_dp_lcore(0));
	if (ctl_thread)
		pthread_join(ctl, NULL);
}

void
pg_drain_ports(void)
{
	struct lr_mbuf *pkts[PG_MAX_BURST];

	for (int round = 0; round < 1000; round++) {
		unsigned got = 0;

		for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++)
			for (uint16_t q = 0;
			     pg_app.ports[p].used && q < pg_app.ports[p].nq;
			     q++) {
				uint16_t n =
				    lr_eth_rx_burst(p, q, pkts, PG_MAX_BURST);

				lr_pktmbuf_free_bulk(pkts, n);
				got += n;
			}
		if (got == 0)
			break;
	}
}
