/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * datapath.c - lr-pktgen's per-lcore loop: build frames from templates and
 * transmit them in bursts (at full speed or paced by a token bucket on the
 * TSC), receive, and account for the frames that come back.
 *
 * Cost per transmitted 64-byte frame on the fast path (nothing varies): a
 * share of one bulk mbuf allocation, a 64-byte copy from the template, two
 * length stores and the sequence number and timestamp (two byte-swapped
 * stores); the TSC is read once per burst. No division, no lock, no
 * atomic read-modify-write: counters are relaxed loads and stores of
 * this lcore's own cache lines, once per burst.
 *
 * Rate limiting: each stream owns a virtual clock next_fp (TSC cycles since
 * start, fixed point). A frame may leave when next_fp <= now and advances
 * next_fp by its cost (cycles per frame, plus cycles per wire byte for
 * bit rates). next_fp is never allowed to fall more than depth_fp behind
 * now: that is the bucket, the credit kept across a stall.
 */
#include <string.h>
#include <time.h>

#include "pktgen.h"

static __lr_always_inline void
wr_be16(uint8_t *p, uint16_t v)
{
	v = __builtin_bswap16(v);
	memcpy(p, &v, 2);
}

static __lr_always_inline void
wr_be32(uint8_t *p, uint32_t v)
{
	v = __builtin_bswap32(v);
	memcpy(p, &v, 4);
}

static __lr_always_inline uint16_t
rd_be16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return __builtin_bswap16(v);
}

static __lr_always_inline uint32_t
rd_be32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return __builtin_bswap32(v);
}

/* Add to a counter only this thread writes. */
static __lr_always_inline void
cnt_add(_Atomic uint64_t *c, uint64_t v)
{
	atomic_store_explicit(c,
			      atomic_load_explicit(c, memory_order_relaxed) + v,
			      memory_order_relaxed);
}

static __lr_always_inline uint64_t
rd_be48(const uint8_t *p)
{
	return (uint64_t)rd_be16(p) << 32 | rd_be32(p + 2);
}

/* Sequence number, 48 bits of TSC and the check value; run id and stream
 * are in the template. */
static __lr_always_inline void
stamp(const struct pg_txq *q, uint8_t *s, uint32_t seq, uint64_t tsc)
{
	tsc &= PG_TSC_MASK;
	wr_be32(s + PG_ST_SEQ, seq);
	wr_be16(s + PG_ST_TSC, (uint16_t)(tsc >> 32));
	wr_be32(s + PG_ST_TSC + 2, (uint32_t)tsc);
	wr_be16(s + PG_ST_CHECK,
		pg_stamp_check(pg.run_id, q->stream, seq, tsc));
}

/* xorshift64*: a fast generator, good enough for header fields. */
static __lr_always_inline uint64_t
rnd_next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* Index of generator g's value for this frame in 0..span-1; *carry: the
 * generators before it wrapped (the cartesian product: an increment or
 * decrement moves on when the one before it went round), set for the
 * next one. */
static __lr_always_inline uint64_t
fgen_next(struct pg_txq *q, struct pg_fgen *g, bool *carry)
{
	uint64_t i;

	if (g->mode == PG_V_RANDOM)
		return (uint64_t)(((unsigned __int128)rnd_next(&q->rnd) *
				   g->span) >>
				  64);
	i = g->cur;
	if (*carry) {
		if (++g->cur == g->span)
			g->cur = 0;
		*carry = g->cur == 0;
	}
	return g->mode == PG_V_DEC ? g->span - 1 - i : i;
}

/* --no-stamp, nothing varies: the template alone (a short frame in one
 * 64-byte copy, as mbuf data rooms are at least that; no copy when the
 * queue's buffers hold it already: q->prebuilt). */
static __lr_always_inline uint32_t
build_plain(struct pg_txq *q, struct lr_mbuf *m)
{
	const struct pg_tmpl *t = q->tmpl;
	uint32_t len = t->len;

	if (!q->prebuilt) {
		uint8_t *d = lr_pktmbuf_mtod(m, uint8_t *);

		if (lr_likely(len <= 64))
			memcpy(d, t->data, 64);
		else
			memcpy(d, t->data, len);
	}
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	return len;
}

/* Nothing varies and no checksum covers the stamp: the template and the
 * stamp; from a kept pool (q->keep), the stamp alone when the buffer
 * holds this template already. */
static __lr_always_inline uint32_t
build_fast(struct pg_txq *q, struct lr_mbuf *m, uint64_t tsc)
{
	const struct pg_tmpl *t = q->tmpl;
	uint32_t len;

	if (q->keep && t->len >= PG_KEEP_MIN) {
		len = t->len;
		if (lr_unlikely(m->udata64 != t->gen)) {
			memcpy(lr_pktmbuf_mtod(m, uint8_t *), t->data, len);
			m->udata64 = t->gen;
		}
		m->data_len = (uint16_t)len;
		m->pkt_len = len;
	} else {
		len = build_plain(q, m);
	}
	stamp(q, lr_pktmbuf_mtod(m, uint8_t *) + q->tmpl->stamp_off, q->seq++,
	      tsc);
	return len;
}

/* Write the value v of generator g into frame d. */
static __lr_always_inline void
fgen_write(const struct pg_fgen *g, uint8_t *d, uint64_t v)
{
	uint8_t *p = d + g->off;

	switch (g->width) {
	case 8:
		wr_be32(p, (uint32_t)(v >> 32));
		wr_be32(p + 4, (uint32_t)v);
		break;
	case 6:
		wr_be16(p, (uint16_t)(v >> 32));
		wr_be32(p + 2, (uint32_t)v);
		break;
	case 4:
		wr_be32(p, (uint32_t)v);
		break;
	default:
		wr_be16(p, (uint16_t)v);
		break;
	}
}

/* Sizes or fields vary, or a checksum covers the stamp. */
static inline uint32_t
build_general(struct pg_txq *q, struct lr_mbuf *m, uint64_t tsc)
{
	const struct pg_tmpl *t = q->tmpl;
	uint8_t *d = lr_pktmbuf_mtod(m, uint8_t *);
	uint32_t len = t->len;
	bool carry = true;

	if (q->vary_size) {
		bool c = true;
		uint64_t i = fgen_next(q, &q->sgen, &c);

		len = (uint32_t)(q->slots ? q->slots[i]
					  : q->sgen.lo + i * q->sgen.step) -
		      PG_FCS;
	}
	memcpy(d, t->data, len);
	for (unsigned gi = 0; gi < q->nfgen; gi++) {
		struct pg_fgen *g = &q->fgen[gi];
		uint64_t v =
		    g->keep | (g->lo + fgen_next(q, g, &carry) * g->step);

		fgen_write(g, d, v);
	}
	if (lr_likely(t->stamped))
		stamp(q, d + t->stamp_off, q->seq++, tsc);
	pg_stream_fix(q, d, len);
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	return len;
}

/* PG_K_FIELDS: fields vary over a fixed size, IPv4, no L4 checksum (a
 * flows test): the template in one constant copy when it fits 64 bytes,
 * the fields, the IPv4 checksum from the template's with only the address
 * words that changed (RFC 1624: ~(~HC + ~m + m')), the stamp. No length
 * to write: the template's hold. */
static __lr_always_inline uint32_t
build_fields(struct pg_txq *q, struct lr_mbuf *m, uint64_t tsc)
{
	const struct pg_tmpl *t = q->tmpl;
	uint8_t *d = lr_pktmbuf_mtod(m, uint8_t *);
	uint32_t len = t->len;
	uint64_t ck = q->ck_base;
	bool carry = true;

	if (lr_likely(len <= 64))
		memcpy(d, t->data, 64);
	else
		memcpy(d, t->data, len);
	for (unsigned gi = 0; gi < q->nfgen; gi++) {
		struct pg_fgen *g = &q->fgen[gi];
		uint64_t v;

		if (lr_unlikely(g->mode == PG_V_RANDOM)) {
			v = g->keep | (g->lo + fgen_next(q, g, &carry) * g->step);
		} else {
			/* The cartesian product: a field moves on when the
			 * one before it went round (carry). */
			v = g->val;
			if (carry) {
				if (++g->cur == g->span) {
					g->cur = 0;
					g->val = g->first;
				} else {
					g->val += g->dstep;
					carry = false;
				}
			}
		}
		fgen_write(g, d, v);
		if (g->in_ip)
			ck += (v >> 16 & 0xffff) + (v & 0xffff);
	}
	ck = (ck & 0xffff) + (ck >> 16);
	ck = (ck & 0xffff) + (ck >> 16);
	wr_be16(d + q->l3_off + 10, (uint16_t)~ck);
	if (lr_likely(t->stamped))
		stamp(q, d + t->stamp_off, q->seq++, tsc);
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	return len;
}

/* Replay: the next frame of the file, restamped if it is one of ours. */
static inline uint32_t
build_pcap(struct pg_txq *q, struct lr_mbuf *m, uint64_t tsc)
{
	const struct pg_tmpl *t = &q->tmpl[q->tmpl_idx];
	uint8_t *d = lr_pktmbuf_mtod(m, uint8_t *);

	if (++q->tmpl_idx == q->ntmpl)
		q->tmpl_idx = 0;
	memcpy(d, t->data, t->len);
	if (t->stamped) {
		uint8_t *s = d + t->stamp_off;

		wr_be32(s + PG_ST_RUN, pg.run_id);
		wr_be16(s + PG_ST_STREAM, q->stream);
		stamp(q, s, q->seq++, tsc);
	}
	m->data_len = (uint16_t)t->len;
	m->pkt_len = t->len;
	return t->len;
}

/* Offset of the stamp of frame m when it is one of this run's, else 0:
 * the run id and the check value must hold. */
static __lr_always_inline uint32_t
own_stamp(const struct lr_mbuf *m)
{
	const uint8_t *d = lr_pktmbuf_mtod(m, const uint8_t *);
	uint32_t off = pg_stamp_offset(d, m->data_len);
	const uint8_t *s = d + off;

	if (off == 0 || rd_be32(s + PG_ST_RUN) != pg.run_id)
		return 0;
	if (lr_unlikely(rd_be16(s + PG_ST_CHECK) !=
			pg_stamp_check(pg.run_id, rd_be16(s + PG_ST_STREAM),
				       rd_be32(s + PG_ST_SEQ),
				       rd_be48(s + PG_ST_TSC))))
		return 0;
	return off;
}

static inline int
is_own(const struct lr_mbuf *m)
{
	return own_stamp(m) != 0;
}

/* Count the sent frames the port took (bytes and own: theirs); sent. */
static inline unsigned
tx_count(struct pg_txq *q, unsigned sent, uint64_t bytes, uint64_t own,
	 uint64_t now)
{
	if (sent) {
		if (lr_unlikely(q->first_tsc == 0))
			q->first_tsc = now;
		q->last_tsc = now;
		cnt_add(&q->cnt->tx_pkts, sent);
		cnt_add(&q->cnt->tx_bytes, bytes);
		cnt_add(&q->cnt->tx_own, own);
		cnt_add(&q->scnt.tx_pkts, sent);
		cnt_add(&q->scnt.tx_bytes, bytes);
		cnt_add(&q->scnt.tx_own, own);
	}
	return sent;
}

/* --tx-full drop: the n frames at pkts that the port refused (its ring
 * full: a device that did not take them) freed and counted (tx_full), the
 * sent before them counted as sent; the frames the port took. */
static __lr_cold unsigned
tx_refused(struct pg_txq *q, struct lr_mbuf **pkts, unsigned n,
	   unsigned sent, uint64_t bytes, uint64_t own, uint64_t now)
{
	uint64_t own_full = 0;

	for (unsigned i = 0; i < n; i++) {
		bytes -= pkts[i]->data_len;
		own_full += (uint64_t)is_own(pkts[i]);
	}
	own -= own_full;
	cnt_add(&q->cnt->tx_full, n);
	cnt_add(&q->cnt->tx_full_own, own_full);
	cnt_add(&q->scnt.tx_full, n);
	cnt_add(&q->scnt.tx_full_own, own_full);
	lr_pktmbuf_free_bulk(pkts, n);
	/* A ring that drains refuses some frames now and then; one that
	 * refused every frame for PG_STALL_MS is a port that stopped taking
	 * frames (a peer gone): the queue gives up, reported, as when it
	 * waits (tx_stalled()). */
	if (sent == 0 && q->refused_tsc != 0 &&
	    now - q->refused_tsc >= pg.hz / 1000 * PG_STALL_MS) {
		q->stall_since = q->refused_tsc;
		q->stall_tsc = now - q->refused_tsc;
		q->done = true;
	}
	return tx_count(q, sent, bytes, own, now);
}

/* Hand n built frames to the port; keep what it refuses for later (or
 * drop it: tx_refused()). The frames the port took. */
static inline unsigned
tx_send(struct pg_txq *q, struct lr_mbuf **pkts, unsigned n, uint64_t bytes,
	uint64_t own, uint64_t now)
{
	uint16_t sent = lr_eth_tx_burst(q->port, q->queue, pkts, (uint16_t)n);

	if (sent != 0)
		q->refused_tsc = 0;
	else if (q->refused_tsc == 0)
		q->refused_tsc = now;
	if (lr_unlikely(sent < n)) {
		if (q->drop_full)
			return tx_refused(q, pkts + sent, n - sent, sent, bytes,
					  own, now);
		for (unsigned i = sent; i < n; i++) {
			bytes -= pkts[i]->data_len;
			own -= (uint64_t)is_own(pkts[i]);
			q->pending[q->npending++] = pkts[i];
		}
	}
	return tx_count(q, sent, bytes, own, now);
}

/* Try again with the frames the port refused; the frames it took. */
static __lr_cold unsigned
tx_retry(struct pg_txq *q, uint64_t now)
{
	struct lr_mbuf *pkts[PG_MAX_BURST];
	unsigned n = q->npending;
	uint64_t bytes = 0, own = 0;

	memcpy(pkts, q->pending, n * sizeof(pkts[0]));
	for (unsigned i = 0; i < n; i++) {
		bytes += pkts[i]->data_len;
		own += (uint64_t)is_own(pkts[i]);
	}
	q->npending = 0;
	return tx_send(q, pkts, n, bytes, own, now);
}

static __lr_always_inline uint32_t
build_one(struct pg_txq *q, struct lr_mbuf *m, uint64_t tsc)
{
	if (q->kind == PG_K_FAST)
		return build_fast(q, m, tsc);
	if (q->kind == PG_K_FIELDS)
		return build_fields(q, m, tsc);
	if (q->kind == PG_K_GENERAL)
		return build_general(q, m, tsc);
	if (q->kind == PG_K_PLAIN)
		return build_plain(q, m);
	return build_pcap(q, m, tsc);
}

/* As fast as possible: one full burst per call; the frames sent. */
static inline unsigned
tx_max(struct pg_txq *q, unsigned burst, uint64_t now)
{
	struct lr_mbuf *pkts[PG_MAX_BURST];
	unsigned n = burst;
	uint64_t bytes = 0, own = 0;

	if (lr_unlikely(q->quota < n))
		n = (unsigned)q->quota;
	/* Raw get: every field alloc would reset is written below. */
	if (lr_unlikely(lr_mempool_get_bulk(q->pool, (void **)pkts, n) != 0)) {
		cnt_add(&q->cnt->tx_nombuf, 1);
		return 0;
	}
	/* The buffers may have been read last by the peer's CPU (a
	 * zero-copy port hands them back once it has): ask for every data
	 * line at once, rather than stall the template writes below on one
	 * line after the other. */
	for (unsigned i = 0; i < n; i++) {
		lr_pktmbuf_rearm(pkts[i], q->rearm, 0);
		if (!q->prebuilt) /* prebuilt: the data is not written */
			__builtin_prefetch(lr_pktmbuf_mtod(pkts[i], void *), 1);
	}
	if (lr_likely(q->kind == PG_K_FAST)) {
		for (unsigned i = 0; i < n; i++)
			bytes += build_fast(q, pkts[i], now);
		own = n;
	} else if (q->kind == PG_K_FIELDS) {
		for (unsigned i = 0; i < n; i++)
			bytes += build_fields(q, pkts[i], now);
		own = q->tmpl->stamped ? n : 0;
	} else if (q->kind == PG_K_GENERAL) {
		for (unsigned i = 0; i < n; i++)
			bytes += build_general(q, pkts[i], now);
		own = q->tmpl->stamped ? n : 0;
	} else if (q->kind == PG_K_PLAIN) {
		for (unsigned i = 0; i < n; i++)
			bytes += build_plain(q, pkts[i]);
	} else {
		for (unsigned i = 0; i < n; i++) {
			own += q->tmpl[q->tmpl_idx].stamped;
			bytes += build_pcap(q, pkts[i], now);
		}
	}
	q->quota -= n;
	return tx_send(q, pkts, n, bytes, own, now);
}

/* The queue's first poll starts its schedule (an lcore that starts late
 * owes nothing for the time before). */
static __lr_cold void
tx_sched_start(struct pg_txq *q, uint64_t now_fp)
{
	q->started = true;
	q->next_fp = now_fp;
	q->base_fp = now_fp;
	/* Half a frame short of the end: the frame due at the end itself is
	 * not sent, whichever way the cost was rounded (50 kpps for 3 s is
	 * 150000 frames, not 150001). */
	if (pg.o.duration > 0)
		q->end_fp = now_fp +
			    (uint64_t)(pg.o.duration * (double)pg.hz *
				       (double)(1u << PG_FP_SHIFT)) -
			    q->frame_cost_fp / 2;
}

/* More than the bucket behind the schedule (the lcore was off its CPU, or
 * the rate is above what it can send): the frames beyond the bucket are
 * given up and counted, so that the missed rate is reported. */
static __lr_cold void
tx_fall_behind(struct pg_txq *q, uint64_t now_fp)
{
	uint64_t n;

	/* A replay at the file's timing slips: every frame still leaves, the
	 * gaps after the stall as in the file. */
	if (q->timed)
		q->base_fp += now_fp - q->depth_fp - q->next_fp;
	/* Summed in time, then divided: no frame lost to rounding. */
	q->behind_fp += now_fp - q->depth_fp - q->next_fp;
	q->next_fp = now_fp - q->depth_fp;
	if (q->frame_cost_fp == 0)
		return;
	n = q->behind_fp / q->frame_cost_fp;
	cnt_add(&q->cnt->tx_behind, n - q->behind_n);
	q->behind_n = n;
}

/* Take the costs of a rate set through the control socket. */
static __lr_cold void
tx_new_rate(struct pg_txq *q)
{
	uint32_t gen = atomic_load_explicit(&q->rate_gen, memory_order_acquire);
	double c1;

	q->pkt_cost_fp =
	    atomic_load_explicit(&q->new_pkt_cost, memory_order_relaxed);
	q->byte_cost_fp =
	    atomic_load_explicit(&q->new_byte_cost, memory_order_relaxed);
	c1 = (double)q->pkt_cost_fp +
	     (double)(q->tmpl[0].len + PG_FCS + PG_WIRE_GAP) *
		 (double)q->byte_cost_fp;
	q->frame_cost_fp = (uint64_t)c1;
	q->depth_fp = (uint64_t)LR_MAX(c1 * pg.o.burst, pg.o.bucket_ms / 1000 *
							    (double)pg.hz *
							    (1 << PG_FP_SHIFT));
	q->behind_fp = q->behind_n * q->frame_cost_fp;
	q->rate_seen = gen;
}

/* Paced: as many frames as the bucket allows, at most one burst; the
 * frames sent. */
static inline unsigned
tx_paced(struct pg_txq *q, unsigned burst, uint64_t now)
{
	struct lr_mbuf *pkts[PG_MAX_BURST];
	uint64_t now_fp = (now - pg.t0) << PG_FP_SHIFT;
	uint64_t bytes = 0, own = 0, end_fp;
	unsigned n = 0;

	if (lr_unlikely(
		atomic_load_explicit(&q->rate_gen, memory_order_relaxed) !=
		q->rate_seen))
		tx_new_rate(q);
	if (lr_unlikely(!q->started))
		tx_sched_start(q, now_fp);
	if (now_fp < q->next_fp)
		return 0;
	if (lr_unlikely(q->next_fp + q->depth_fp < now_fp))
		tx_fall_behind(q, now_fp);
	end_fp = q->end_fp ? q->end_fp : UINT64_MAX;
	if (q->nstash < burst) {
		unsigned need = burst - q->nstash;

		if (lr_pktmbuf_alloc_bulk(q->pool, q->stash + q->nstash,
					  need) == 0)
			q->nstash += need;
		else if (q->nstash == 0) {
			cnt_add(&q->cnt->tx_nombuf, 1);
			return 0;
		}
	}
	while (n < q->nstash && n < q->quota && q->next_fp <= now_fp &&
	       q->next_fp < end_fp) {
		struct lr_mbuf *m = q->stash[q->nstash - 1 - n];
		uint32_t len;

		/* tmpl_idx is 0 but for a pcap file. */
		own += q->tmpl[q->tmpl_idx].stamped;
		len = build_one(q, m, now);
		bytes += len;
		if (q->timed) {
			/* build_pcap() moved tmpl_idx to the next frame. */
			if (q->tmpl_idx == 0)
				q->base_fp += q->loop_fp;
			q->next_fp = q->base_fp + q->tmpl[q->tmpl_idx].t_fp;
		} else {
			q->next_fp += q->pkt_cost_fp +
				      (uint64_t)(len + PG_FCS + PG_WIRE_GAP) *
					  q->byte_cost_fp;
		}
		pkts[n++] = m;
		if (q->burst_len && --q->burst_left == 0) {
			/* The gap after a burst: from now when the burst had
			 * no rate of its own. */
			q->burst_left = q->burst_len;
			if (q->next_fp < now_fp)
				q->next_fp = now_fp;
			q->next_fp += q->gap_fp;
		}
	}
	q->nstash -= n;
	q->quota -= n;
	return tx_send(q, pkts, n, bytes, own, now);
}

/* Count latency c in l. The stores are relaxed atomic ones (plain moves
 * on x86-64) so that the telemetry thread may read l meanwhile
 * (telemetry.c): the same stores as plain ones, no locked instruction. */
static __lr_always_inline void
lat_add(struct pg_lat *l, uint64_t c)
{
	lr_counter_add(&l->n, 1);
	lr_counter_add(&l->sum, c);
	if (c < l->min)
		__atomic_store_n(&l->min, c, __ATOMIC_RELAXED);
	if (c > l->max)
		__atomic_store_n(&l->max, c, __ATOMIC_RELAXED);
	lr_counter_add(&l->hist[pg_lat_bucket(c)], 1);
}

/* Receive a burst on r and account for it; the frames received. */
static inline unsigned
rx_poll(struct pg_lcore *lc, struct pg_rxq *r, unsigned burst)
{
	struct lr_mbuf *pkts[PG_MAX_BURST];
	uint16_t n = lr_eth_rx_burst(r->port, r->queue, pkts, (uint16_t)burst);
	uint64_t own = 0, own_bytes = 0, now;
	unsigned nchk;

	if (n == 0)
		return 0;
	/* The capture gets the frames as they came, before the stamps are
	 * wiped below. */
	if (lr_unlikely(pg.capture) && pg_capture_write(pkts, n) != 0)
		atomic_store(&pg.state, PG_STOP);
	now = lr_get_tsc_cycles();
	/* --no-stamp: no frame is told apart, none is ours. */
	nchk = lr_unlikely(pg.o.no_stamp) ? 0 : n;
	/* The stamps were written by another CPU: start every line's
	 * transfer at once, instead of one miss after the other in the loop
	 * below. For reading: only this run's own frames get their stamp
	 * wiped, and leaving the line shared spares the sender a transfer
	 * when it writes the buffer again. */
	for (unsigned i = 0; i < nchk; i++)
		__builtin_prefetch(lr_pktmbuf_mtod(pkts[i], void *), 0);
	for (unsigned i = 0; i < nchk; i++) {
		struct lr_mbuf *m = pkts[i];
		uint8_t *s;
		uint32_t off;
		uint16_t stream;
		uint64_t sent;

		off = own_stamp(m);
		if (off == 0) {
			/* Not a test frame: ARP, NDP or ping for L3 mode. */
			if (lr_unlikely(pg.l3))
				pg_l3_input(r->port, r->queue, m);
			continue;
		}
		s = lr_pktmbuf_mtod(m, uint8_t *) + off;
		stream = rd_be16(s + PG_ST_STREAM);
		if (lr_unlikely(stream >= pg.nstreams)) {
			lc->rx_foreign_stream++;
			continue;
		}
		own++;
		own_bytes += m->pkt_len;
		pg_seq_account(&lc->win[stream], rd_be32(s + PG_ST_SEQ));
		sent = (now - rd_be48(s + PG_ST_TSC)) & PG_TSC_MASK;
		lat_add(&lc->lat, sent);
		lat_add(&lc->slat[pg.inst_sdef[stream]], sent);
		pg_jitter_account(&lc->win[stream], sent);
		/* Counted once: a port that hands this buffer back with its
		 * old contents (net_null) shows no stamp. */
		wr_be32(s + PG_ST_RUN, ~pg.run_id);
	}
	/* --no-stamp: any frame may be for the L3 mode. */
	if (lr_unlikely(nchk == 0 && pg.l3))
		for (unsigned i = 0; i < n; i++)
			pg_l3_input(r->port, r->queue, pkts[i]);
	lr_pktmbuf_free_bulk(pkts, n);
	cnt_add(&r->cnt->rx_pkts, n);
	cnt_add(&r->cnt->rx_own, own);
	cnt_add(&r->cnt->rx_own_bytes, own_bytes);
	return n;
}

void
pg_txq_release(struct pg_txq *q)
{
	if (q->nstash) {
		lr_pktmbuf_free_bulk(q->stash, q->nstash);
		q->nstash = 0;
	}
	if (q->npending) {
		cnt_add(&q->cnt->tx_drop, q->npending);
		lr_pktmbuf_free_bulk(q->pending, q->npending);
		q->npending = 0;
	}
}

/* The queue has nothing more to send: the run stopped, its count is
 * sent, or its time is over (paced: its schedule reached the end, so a
 * frame due before the end still leaves when the lcore comes late; the
 * time it stood still does not count). */
static __lr_always_inline bool
tx_over(const struct pg_txq *q, int st, bool paced, uint64_t end, uint64_t now)
{
	if (st != PG_RUN || q->quota == 0)
		return true;
	if (paced)
		return q->end_fp != 0 && q->next_fp >= q->end_fp;
	return end && now >= end + q->paused_tsc;
}

/* Sending resumes after a "stop" (or --idle): the schedule and the end of
 * --duration move on by the time the queue stood still, so that neither
 * the pause counts as frames behind the schedule nor as sending time. */
static __lr_cold void
tx_resume(struct pg_txq *q, uint64_t now)
{
	uint64_t d = now - q->paused_at, d_fp = d << PG_FP_SHIFT;

	q->paused_at = 0;
	q->paused_tsc += d;
	if (!q->started)
		return; /* its schedule starts at its next poll */
	q->next_fp += d_fp;
	q->base_fp += d_fp;
	if (q->end_fp)
		q->end_fp += d_fp;
}

/* The queue's sending time is over: the run stopped, its count is built,
 * or its time ran out (paced: the schedule's end passed in real time too,
 * for a schedule held up by frames the port refuses moves no more). */
static __lr_cold bool
tx_time_over(const struct pg_txq *q, int st, uint64_t end, uint64_t now)
{
	if (st != PG_RUN || q->quota == 0)
		return true;
	if (q->paced)
		return q->end_fp != 0 &&
		       (q->next_fp >= q->end_fp ||
			(now - pg.t0) << PG_FP_SHIFT >= q->end_fp);
	return end && now >= end + q->paused_tsc;
}

/* The port has refused every frame of q for too long: PG_STALL_MS while
 * q still has frames to send, PG_STALL_END_MS once its time is over (a
 * port that works takes a full ring in milliseconds). */
static __lr_cold bool
tx_stalled(const struct pg_txq *q, int st, uint64_t end, uint64_t now)
{
	uint64_t refused = now - q->refused_tsc;

	if (q->refused_tsc == 0)
		return false;
	if (refused >= pg.hz / 1000 * PG_STALL_MS)
		return true;
	return refused >= pg.hz / 1000 * PG_STALL_END_MS &&
	       tx_time_over(q, st, end, now);
}

/* Give up on a stalled port: since when and for how long it refused every
 * frame kept for the report; the frames it refused dropped (tx_drop). */
static __lr_cold void
tx_give_up(struct pg_txq *q, uint64_t now)
{
	q->stall_since = q->refused_tsc;
	q->stall_tsc = now - q->refused_tsc;
	q->done = true;
	pg_txq_release(q);
}

/* The acquire orders the copy after the control thread's reading of the
 * last one; the release publishes it. */
__lr_cold void
pg_lcore_snap(struct pg_lcore *lc)
{
	uint32_t g = atomic_load_explicit(&lc->snap_req, memory_order_acquire);

	if (lc->snap != NULL) {
		for (unsigned s = 0; s < pg.nstreams; s++) {
			const struct pg_seqwin *w = &lc->win[s];

			lc->snap[s].top = w->top;
			lc->snap[s].unique = w->unique;
			lc->snap[s].dup = w->dup;
			lc->snap[s].jitter16 = w->jitter16;
			lc->snap[s].seen = w->seen;
		}
		memcpy(lc->snap_lat, lc->slat, pg.nsdefs * sizeof(*lc->slat));
	}
	lc->snap_seen = g;
	atomic_store_explicit(&lc->snap_done, g, memory_order_release);
}

/* One pass over the lcore's transmit queues at state st: each sends a
 * burst (paced or as fast as it can), retries what its port refused,
 * stands still while sending is stopped or gives up on a port that
 * stopped taking frames. Once no queue has frames left, *tx_busy goes
 * false and tx_done is said. Frames moved. Inline: the body of the
 * loop, a function only to name it. */
static __lr_always_inline unsigned
tx_pass(struct pg_lcore *lc, int st, unsigned burst, uint64_t end,
	uint64_t now, bool *tx_busy)
{
	bool busy = false, moving = false;
	/* "stop" (--idle): the queues stand still; a stop of the run ends
	 * them all the same. */
	bool paused = st == PG_RUN && !pg_sending();
	unsigned moved = 0;

	for (unsigned i = 0; i < lc->ntx; i++) {
		struct pg_txq *q = lc->tx[i];

		if (lr_unlikely(q->npending != 0)) {
			/* The port stopped taking frames: the queue gives
			 * up (reported). */
			if (lr_unlikely(tx_stalled(q, st, end, now))) {
				tx_give_up(q, now);
				continue;
			}
			moved += tx_retry(q, now);
			busy = true;
			moving = true;
			continue;
		}
		if (lr_unlikely(q->done))
			continue;
		if (lr_unlikely(paused)) {
			if (q->paused_at == 0)
				q->paused_at = now;
			busy = true;
			continue;
		}
		if (lr_unlikely(q->paused_at != 0))
			tx_resume(q, now);
		if (lr_unlikely(tx_over(q, st, q->paced, end, now))) {
			q->done = true;
			pg_txq_release(q);
			continue;
		}
		busy = true;
		if (q->paced)
			moved += tx_paced(q, burst, now);
		else
			moved += tx_max(q, burst, now);
	}
	if (lr_unlikely(!busy)) {
		*tx_busy = false;
		atomic_store_explicit(&lc->tx_done, 1, memory_order_release);
	}
	if (lr_unlikely(lc->still != (paused && !moving))) {
		lc->still = paused && !moving;
		atomic_store_explicit(&lc->tx_still, lc->still,
				      memory_order_release);
	}
	return moved;
}

/* Sending is over: every millisecond (*next_flush), let ports push out
 * what they accepted and still hold (a kernel that refused a kick leaves
 * frames on an AF_XDP tx ring). */
static __lr_always_inline void
tx_flush(const struct pg_lcore *lc, uint64_t now, uint64_t *next_flush)
{
	if (now < *next_flush)
		return;
	*next_flush = now + pg.hz / 1000;
	for (unsigned i = 0; i < lc->ntx; i++)
		lr_eth_tx_burst(lc->tx[i]->port, lc->tx[i]->queue, NULL, 0);
}

/* The nanoseconds from a to b. */
static uint64_t
ns_between(const struct timespec *a, const struct timespec *b)
{
	return (uint64_t)((b->tv_sec - a->tv_sec) * 1000000000LL +
			  (b->tv_nsec - a->tv_nsec));
}

int
pg_lcore_loop(void *arg)
{
	struct pg_lcore *lc = arg;
	const unsigned burst = pg.o.burst;
	const uint64_t end = pg.end_tsc;
	bool tx_busy = lc->ntx > 0;
	const bool rec = pg.o.record_cycles;
	const unsigned lc_id = lr_lcore_id();
	uint64_t next_flush = 0;
	int worked = 0;

	struct timespec c0, c1, w0, w1;

	while (!atomic_load_explicit(&pg.go, memory_order_acquire))
		;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
	clock_gettime(CLOCK_MONOTONIC, &w0);
	if (!tx_busy)
		atomic_store_explicit(&lc->tx_done, 1, memory_order_release);
	/* Busy and idle cycles for telemetry's /eal/lcore/info, on each
	 * pass's own TSC read: the previous pass ends there (lr_lcore.h). */
	lr_lcore_poll_begin();
	for (;;) {
		int st = atomic_load_explicit(&pg.state, memory_order_relaxed);
		uint64_t now = lr_get_tsc_cycles();
		unsigned moved = 0;

		lr_lcore_poll_account_at(lc_id, now, worked);
		if (lr_unlikely(st == PG_STOP))
			break;
		if (lr_unlikely(atomic_load_explicit(&lc->snap_req,
						     memory_order_relaxed) !=
				lc->snap_seen))
			pg_lcore_snap(lc);
		if (tx_busy)
			moved += tx_pass(lc, st, burst, end, now, &tx_busy);
		else if (lc->ntx != 0)
			tx_flush(lc, now, &next_flush);
		for (unsigned i = 0; i < lc->nrx; i++)
			moved += rx_poll(lc, &lc->rx[i], burst);
		/* As testpmd's --record-core-cycles: the passes that moved
		 * frames, from their start to their end. */
		if (lr_unlikely(rec) && moved != 0) {
			lc->busy_tsc += lr_get_tsc_cycles() - now;
			lc->busy_frames += moved;
		}
		worked = moved != 0;
	}
	for (unsigned i = 0; i < lc->ntx; i++)
		pg_txq_release(lc->tx[i]);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
	clock_gettime(CLOCK_MONOTONIC, &w1);
	lc->cpu_ns = ns_between(&c0, &c1);
	lc->wall_ns = ns_between(&w0, &w1);
	return 0;
}
