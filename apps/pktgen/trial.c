/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * trial.c - one trial of a search (rfc2544.c): send pps frames/s on the
 * configured streams for secs seconds, drain, and count per stream what
 * came back: frames sent and received, lost, reordered and duplicated
 * (from the sequence numbers of the stamps, stats.c), latency percentiles
 * (from the histogram).
 *
 * Every trial starts clean: the templates are rebuilt with a run id of its
 * own (a frame of an earlier trial that comes back late counts as not
 * ours, never as received, duplicated or late), the counters, sequence
 * windows and histograms are cleared, the schedule starts at the first
 * poll. The rate is split over the stream instances by their shares, as
 * --rate-pps is. The drain ends as soon as every frame sent came back, or
 * after --drain-ms.
 *
 * A trial is valid only when the generator did what it was asked, so that
 * no loss of its own is taken for the device's:
 *   - it sent the frames of the schedule: pps x secs, within 0.5% (at
 *     least one frame per stream instance: the schedule's rounding);
 *   - none fell behind the schedule (tx_behind: 'rate missed');
 *   - none took longer to send its frames than their schedule, by more
 *     than 0.5% of the trial (LATE_TOL) and two frames' time, and 20 ms
 *     (LATE_FLOOR: time slices lost to a process beside it on a shared
 *     CPU): a stall shorter than the bucket is caught up with a clump
 *     rather than counted behind, but a trial whose last frames left late
 *     offered a lower load than asked. A back-to-back burst may be late
 *     by 1% of its time (LATE_BURST) and two frames' time, no more: its
 *     result is a count of frames, and a device that drains while the
 *     burst waits lets more through (at most 1% more: it drains slower
 *     than the burst came, or the burst would lose nothing);
 *   - its transmit pool never ran dry (tx_nombuf), its receive ports
 *     dropped nothing for want of mbufs (rx_nombuf) or a full ring
 *     (imissed: frames the port could not hand over to us);
 *   - no port stopped taking frames (the search then stops: exit 1).
 * With --tx-full drop (memif ports by default: their ring is the
 * device's own input), a frame the port refuses because its ring is full
 * is dropped and counted as sent and lost: the device did not take it.
 * Otherwise it is kept and sent again, and the generator falls behind.
 * Otherwise the trial is marked invalid with every reason that holds.
 *
 * Threading: runs on the main thread between runs of the lcores, which
 * are stopped while it writes their state.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "lr_eal.h"
#include "pktgen.h"

/* Accuracy the achieved rate must reach. */
#define RATE_TOL 0.005
/* Most time, as a share of the trial, the sending may take beyond its
 * schedule; and at least, but for a burst, in seconds. */
#define LATE_TOL   0.005
#define LATE_FLOOR 0.02
#define LATE_BURST 0.01

static void
cnt_zero(struct pg_counters *c)
{
	atomic_store_explicit(&c->tx_pkts, 0, memory_order_relaxed);
	atomic_store_explicit(&c->tx_bytes, 0, memory_order_relaxed);
	atomic_store_explicit(&c->tx_drop, 0, memory_order_relaxed);
	atomic_store_explicit(&c->tx_own, 0, memory_order_relaxed);
	atomic_store_explicit(&c->tx_nombuf, 0, memory_order_relaxed);
	atomic_store_explicit(&c->tx_behind, 0, memory_order_relaxed);
	atomic_store_explicit(&c->tx_full, 0, memory_order_relaxed);
	atomic_store_explicit(&c->tx_full_own, 0, memory_order_relaxed);
	atomic_store_explicit(&c->rx_pkts, 0, memory_order_relaxed);
	atomic_store_explicit(&c->rx_own, 0, memory_order_relaxed);
	atomic_store_explicit(&c->rx_own_bytes, 0, memory_order_relaxed);
}

static uint64_t
cnt_get(_Atomic uint64_t *c)
{
	return atomic_load_explicit(c, memory_order_relaxed);
}

int
pg_trial_set_size(unsigned size)
{
	for (unsigned k = 0; k < pg.nsdefs; k++) {
		struct pg_sdef *d = &pg.sdefs[k];

		pg_sdef_fini(d);
		d->size.set = true;
		d->size.step = 1;
		d->size.mode = PG_V_INC;
		d->size.lo = d->size.hi = size;
		d->size_mode = PG_SIZE_FIXED;
		if (size == 0) {
			d->slots = malloc(sizeof(pg_imix_sizes));
			if (d->slots == NULL)
				return pg_fail("out of memory");
			memcpy(d->slots, pg_imix_sizes, sizeof(pg_imix_sizes));
			d->nslots = PG_IMIX_SLOTS;
			d->size_mode = PG_SIZE_IMIX;
			d->size.lo = d->size.hi = pg_imix_sizes[0];
		}
		if (pg_sdef_check(d, "--rfc2544-sizes") != 0)
			return -1;
	}
	return 0;
}

/* A run id of the trial's own, in every stamp. */
static void
new_run_id(void)
{
	uint32_t id = pg.run_id;

	while (id == pg.run_id)
		if (getrandom(&id, sizeof(id), 0) != (ssize_t)sizeof(id))
			id = pg.run_id * 2654435761u + 1;
	pg.run_id = id;
}

/* Rebuild q's template for its definition (the size of the trial) with
 * the trial's run id; 0 or -1 (out of memory, said). */
static int
rebuild(struct pg_txq *q)
{
	struct lr_ether_addr mac;
	uint64_t m = 0;

	lr_eth_macaddr_get(q->port, &mac);
	for (int i = 0; i < LR_ETHER_ADDR_LEN; i++)
		m = m << 8 | mac.addr_bytes[i];
	pg_stream_fini(q);
	if (pg_stream_init(q, &pg.sdefs[q->sdef], m, pg.o.seed, pg.run_id))
		return pg_fail("stream %u: out of memory", q->stream);
	return 0;
}

/* Share weight of instance q: its definition's share over its
 * instances. */
static double
weight(const struct pg_txq *q)
{
	unsigned n = 0;

	for (unsigned i = 0; i < pg.nstreams; i++)
		n += pg.txq[i]->sdef == q->sdef;
	return pg.sdefs[q->sdef].share / n;
}

/* Queue q from the start, at pps frames/s for the trial's duration; the
 * frames its schedule holds. */
static uint64_t
reset_queue(struct pg_txq *q, double pps)
{
	double hz = (double)pg.hz, c1;

	q->done = false;
	q->seq = 0;
	q->quota = UINT64_MAX;
	q->count = 0;
	q->started = false;
	q->paused_at = q->paused_tsc = 0;
	q->end_fp = q->next_fp = q->base_fp = 0;
	q->behind_fp = q->behind_n = 0;
	q->first_tsc = q->last_tsc = 0;
	q->refused_tsc = q->stall_since = q->stall_tsc = 0;
	q->paced = true;
	q->pkt_cost_fp = (uint64_t)(hz * (1 << PG_FP_SHIFT) / pps + 0.5);
	q->byte_cost_fp = 0;
	c1 = (double)q->pkt_cost_fp;
	q->frame_cost_fp = q->pkt_cost_fp;
	q->depth_fp = (uint64_t)LR_MAX(
	    c1 * pg.o.burst, pg.o.bucket_ms / 1000 * hz * (1 << PG_FP_SHIFT));
	cnt_zero(&q->scnt);
	/* The schedule ends half a frame short of the end (datapath.c). */
	return (uint64_t)(pps * pg.o.duration + 0.5);
}

static void
reset_lcore(struct pg_lcore *lc)
{
	atomic_store(&lc->tx_done, 0);
	atomic_store(&lc->tx_still, 0);
	lc->still = false;
	memset(lc->win, 0, pg.nstreams * sizeof(*lc->win));
	memset(&lc->lat, 0, sizeof(lc->lat));
	lc->lat.min = UINT64_MAX;
	memset(lc->slat, 0, pg.nsdefs * sizeof(*lc->slat));
	for (unsigned k = 0; k < pg.nsdefs; k++)
		lc->slat[k].min = UINT64_MAX;
	lc->rx_foreign_stream = 0;
	lc->busy_tsc = lc->busy_frames = 0;
	for (unsigned i = 0; i < lc->nrx; i++)
		cnt_zero(lc->rx[i].cnt);
	for (unsigned i = 0; i < lc->ntx; i++)
		cnt_zero(lc->tx[i]->cnt);
}

/* Every queue, lcore and port ready for trial t; 0 or -1. */
static int
prepare(struct pg_trial *t)
{
	double wsum = 0;

	new_run_id();
	for (unsigned i = 0; i < pg.nstreams; i++) {
		if (rebuild(pg.txq[i]) != 0)
			return -1;
		wsum += weight(pg.txq[i]);
	}
	pg.o.duration = t->secs;
	pg.o.count = 0;
	t->expected = 0;
	for (unsigned i = 0; i < pg.nstreams; i++)
		t->expected +=
		    reset_queue(pg.txq[i], t->pps * weight(pg.txq[i]) / wsum);
	for (unsigned i = 0; i < pg.nlcs; i++)
		reset_lcore(pg.lcs[i]);
	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++)
		if (lr_eth_dev_is_valid_port(p))
			lr_eth_stats_reset(p);
	atomic_store(&pg.paused, 0);
	atomic_store(&pg.state, PG_RUN);
	return 0;
}

/* Latency figures of l into s. */
static void
lat_figures(struct pg_trial_stream *s, const struct pg_lat *l)
{
	static const double q[PG_TQ_COUNT] = {0,     0.5,    0.9, 0.99,
					      0.999, 0.9999, 1};
	double us = 1e6 / (double)pg.hz;

	s->lat_n = l->n;
	for (int i = 0; i < PG_TQ_COUNT; i++)
		s->lat_us[i] = l->n == 0	? 0
			       : i == PG_TQ_MIN ? (double)l->min * us
			       : i == PG_TQ_MAX ? (double)l->max * us
						: pg_lat_quantile(l, q[i]) * us;
}

/* What stream definition k sent and got back. */
static void
stream_figures(unsigned k, struct pg_trial_stream *s)
{
	struct pg_lat l;
	uint64_t unique = 0;

	memset(s, 0, sizeof(*s));
	memset(&l, 0, sizeof(l));
	l.min = UINT64_MAX;
	for (unsigned i = 0; i < pg.nstreams; i++) {
		struct pg_txq *q = pg.txq[i];

		if (q->sdef != k)
			continue;
		/* Refused by a full ring and dropped (--tx-full drop): sent
		 * to a device that did not take them, so lost. */
		s->tx += cnt_get(&q->scnt.tx_own) +
			 cnt_get(&q->scnt.tx_full_own);
		for (unsigned c = 0; c < pg.nlcs; c++) {
			const struct pg_seqwin *w = &pg.lcs[c]->win[q->stream];

			unique += w->unique;
			s->dup += w->dup;
			s->reordered += w->reordered;
		}
	}
	for (unsigned c = 0; c < pg.nlcs; c++)
		pg_lat_merge(&l, &pg.lcs[c]->slat[k]);
	s->rx = unique + s->dup;
	s->lost = s->tx > unique ? s->tx - unique : 0;
	lat_figures(s, &l);
}

/* Whether q is the first instance counting into its port queue's
 * counters (several streams on one queue share them). */
static bool
first_on_cnt(unsigned i)
{
	for (unsigned j = 0; j < i; j++)
		if (pg.txq[j]->cnt == pg.txq[i]->cnt)
			return false;
	return true;
}

/* How much longer than its schedule q took from its first frame sent to
 * its last, in seconds (the schedule of its n frames spans n - 1 frame
 * times; a frame leaves at the first poll at or after its time). */
static double
late_s(struct pg_txq *q)
{
	uint64_t n = cnt_get(&q->scnt.tx_pkts) + cnt_get(&q->scnt.tx_full);
	double span, sched;

	if (n < 2 || q->first_tsc == 0)
		return 0;
	span = (double)(q->last_tsc - q->first_tsc) / (double)pg.hz;
	sched = (double)(n - 1) * (double)q->pkt_cost_fp /
		(double)(1u << PG_FP_SHIFT) / (double)pg.hz;
	return LR_MAX(span - sched, 0.0);
}

/* The trial's figures: per stream, in all, and the generator's own. */
static void
collect(struct pg_trial *t)
{
	struct pg_lat all;

	memset(&all, 0, sizeof(all));
	all.min = UINT64_MAX;
	t->tx = t->tx_own = t->rx = t->lost = t->reordered = t->dup = 0;
	t->refused = 0;
	t->behind = t->tx_nombuf = t->rx_nombuf = t->imissed = 0;
	t->late_s = 0;
	for (unsigned k = 0; k < pg.nsdefs; k++) {
		stream_figures(k, &t->st[k]);
		t->tx_own += t->st[k].tx;
		t->rx += t->st[k].rx;
		t->lost += t->st[k].lost;
		t->reordered += t->st[k].reordered;
		t->dup += t->st[k].dup;
	}
	for (unsigned i = 0; i < pg.nstreams; i++) {
		struct pg_txq *q = pg.txq[i];

		t->tx += cnt_get(&q->scnt.tx_pkts) + cnt_get(&q->scnt.tx_full);
		t->refused += cnt_get(&q->scnt.tx_full);
		t->late_s = LR_MAX(t->late_s, late_s(q));
		if (!first_on_cnt(i))
			continue;
		t->behind += cnt_get(&q->cnt->tx_behind);
		t->tx_nombuf += cnt_get(&q->cnt->tx_nombuf);
	}
	for (unsigned c = 0; c < pg.nlcs; c++)
		pg_lat_merge(&all, &pg.lcs[c]->lat);
	t->all.tx = t->tx_own;
	t->all.rx = t->rx;
	t->all.lost = t->lost;
	t->all.reordered = t->reordered;
	t->all.dup = t->dup;
	lat_figures(&t->all, &all);
	/* Over the time the sending took: frames that left late were a lower
	 * load than asked. */
	t->tx_pps = (double)t->tx / (t->secs + t->late_s);
	t->loss = t->tx_own ? (double)t->lost / (double)t->tx_own : 0;
}

/* The receive ports' drops on our side: no mbufs, a full ring. */
static void
rx_drops(struct pg_trial *t)
{
	uint32_t rx = 0;

	for (unsigned c = 0; c < pg.nlcs; c++)
		for (unsigned i = 0; i < pg.lcs[c]->nrx; i++)
			rx |= 1u << pg.lcs[c]->rx[i].port;
	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++) {
		struct lr_eth_stats st;

		if (!(rx >> p & 1) || lr_eth_stats_get(p, &st) != 0)
			continue;
		t->rx_nombuf += st.rx_nombuf;
		t->imissed += st.imissed;
	}
}

/* Append a reason to t's. */
static void __attribute__((format(printf, 2, 3)))
because(struct pg_trial *t, const char *fmt, ...)
{
	size_t n = strlen(t->reason);
	va_list ap;

	if (n != 0 && n + 2 < sizeof(t->reason)) {
		memcpy(t->reason + n, "; ", 3);
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(t->reason + n, sizeof(t->reason) - n, fmt, ap);
	va_end(ap);
}

/* A port that stopped taking frames during t. */
static void
judge_stall(struct pg_trial *t)
{
	for (unsigned i = 0; i < pg.nstreams; i++) {
		const struct pg_txq *q = pg.txq[i];

		if (q->stall_tsc == 0)
			continue;
		t->stalled = true;
		because(t,
			"port %u (%s): transmit refused every frame for %.2f s "
			"(from %.3f s into the trial): the port stopped taking "
			"frames",
			q->port, lr_eth_dev_name(q->port),
			(double)q->stall_tsc / (double)pg.hz,
			(double)(q->stall_since - pg.t0) / (double)pg.hz);
		return;
	}
}

/* Whether the generator did what t asked of it (see the top). */
static void
judge(struct pg_trial *t)
{
	double tol =
	    LR_MAX(RATE_TOL * (double)t->expected, (double)pg.nstreams);
	double off = (double)t->tx - (double)t->expected;
	double late_tol =
	    t->burst ? LR_MAX(LATE_BURST * t->secs, 2 / t->pps)
		     : LR_MAX(LR_MAX(LATE_TOL * t->secs, 2 / t->pps), LATE_FLOOR);

	t->reason[0] = '\0';
	t->stalled = false;
	judge_stall(t);
	if (t->tx_own == 0)
		because(t, "no frame of ours sent");
	if (t->behind)
		because(t, "rate missed: %llu frames behind the schedule",
			(unsigned long long)t->behind);
	if (t->late_s > late_tol)
		because(t,
			"sent late: the last frame left %.3f ms after its "
			"time (more than %.3f ms)",
			t->late_s * 1e3, late_tol * 1e3);
	if (off > tol || -off > tol)
		because(t,
			"sent %llu of the %llu frames asked (%.6g of %.6g "
			"frames/s, %+.2f%%)",
			(unsigned long long)t->tx,
			(unsigned long long)t->expected, t->tx_pps, t->pps,
			100 * off / LR_MAX((double)t->expected, 1.0));
	if (t->tx_nombuf)
		because(t, "no mbufs to send: %llu bursts skipped",
			(unsigned long long)t->tx_nombuf);
	if (t->rx_nombuf)
		because(t, "receive: %llu frames dropped for want of mbufs",
			(unsigned long long)t->rx_nombuf);
	if (t->imissed)
		because(t,
			"receive: our ports missed %llu frames (their rings "
			"were full)",
			(unsigned long long)t->imissed);
	t->valid = t->reason[0] == '\0';
}

int
pg_trial_run(struct pg_trial *t)
{
	if (prepare(t) != 0)
		return -1;
	pg_run_lcores();
	pg_drain_ports();
	for (unsigned i = 0; i < pg.nstreams; i++)
		pg_txq_release(pg.txq[i]);
	collect(t);
	rx_drops(t);
	judge(t);
	return lr_eal_stop_requested() ? -1 : 0;
}
