/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stats.c - receive-side accounting of lr-pktgen's own frames.
 *
 * Sequence window: per stream, the highest sequence number seen (top) and
 * a bitmap of the PG_SEQ_WINDOW numbers ending at top. A number above top
 * moves the window (the numbers skipped are cleared: not seen yet); one
 * inside the window is a duplicate if its bit is set, else a reordered
 * frame; one below the window is counted reordered ("late") as it can no
 * longer be told from a duplicate. Invariant per stream:
 *
 *   unique == frames received - dup,  lost == sent - unique
 *
 * Latency histogram: log-linear buckets, 2^PG_LAT_SUB_BITS per power of
 * two (values below 2^PG_LAT_SUB_BITS exact), so a quantile read from it
 * is within 1/2^PG_LAT_SUB_BITS of the true value.
 *
 * The counts (unique, reordered, dup, late) are added with
 * lr_counter_add(): the receiving lcore is their only writer, and the
 * telemetry thread reads them meanwhile (telemetry.c).
 */
#include <string.h>

#include "pktgen.h"

static inline void
bit_set(struct pg_seqwin *w, uint64_t s)
{
	w->bits[(s / 64) % (PG_SEQ_WINDOW / 64)] |= 1ULL << (s % 64);
}

static inline void
bit_clear(struct pg_seqwin *w, uint64_t s)
{
	w->bits[(s / 64) % (PG_SEQ_WINDOW / 64)] &= ~(1ULL << (s % 64));
}

static inline int
bit_test(const struct pg_seqwin *w, uint64_t s)
{
	return (w->bits[(s / 64) % (PG_SEQ_WINDOW / 64)] >> (s % 64)) & 1;
}

void
pg_seq_account(struct pg_seqwin *w, uint32_t seq32)
{
	uint64_t s;

	if (lr_unlikely(!w->seen)) {
		w->seen = true;
		w->top = seq32;
		memset(w->bits, 0, sizeof(w->bits));
		bit_set(w, seq32);
		lr_counter_add(&w->unique, 1);
		return;
	}
	/* Extend to 64 bits: the nearest number to top with these low
	 * 32 bits. */
	s = w->top + (uint64_t)(int64_t)(int32_t)(seq32 - (uint32_t)w->top);
	if (lr_likely(s > w->top)) {
		uint64_t gap = s - w->top;

		if (gap >= PG_SEQ_WINDOW) {
			memset(w->bits, 0, sizeof(w->bits));
		} else {
			for (uint64_t x = w->top + 1; x < s; x++)
				bit_clear(w, x);
		}
		bit_set(w, s);
		w->top = s;
		lr_counter_add(&w->unique, 1);
		return;
	}
	if (w->top - s >= PG_SEQ_WINDOW) {
		lr_counter_add(&w->late, 1);
		lr_counter_add(&w->reordered, 1);
		lr_counter_add(&w->unique, 1);
	} else if (bit_test(w, s)) {
		lr_counter_add(&w->dup, 1);
	} else {
		bit_set(w, s);
		lr_counter_add(&w->reordered, 1);
		lr_counter_add(&w->unique, 1);
	}
}

uint64_t
pg_lat_bucket_lo(unsigned b)
{
	unsigned e, sub;

	if (b < (1u << PG_LAT_SUB_BITS))
		return b;
	e = b >> PG_LAT_SUB_BITS;
	sub = b & ((1u << PG_LAT_SUB_BITS) - 1);
	return (uint64_t)((1u << PG_LAT_SUB_BITS) + sub) << (e - 1);
}

void
pg_lat_merge(struct pg_lat *dst, const struct pg_lat *src)
{
	if (src->n == 0)
		return;
	if (dst->n == 0 || src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->n += src->n;
	dst->sum += src->sum;
	for (unsigned i = 0; i < PG_LAT_BUCKETS; i++)
		dst->hist[i] += src->hist[i];
}

double
pg_lat_quantile(const struct pg_lat *l, double q)
{
	uint64_t want, acc = 0;

	if (l->n == 0)
		return 0;
	want = (uint64_t)(q * (double)l->n);
	if (want >= l->n)
		want = l->n - 1;
	for (unsigned b = 0; b < PG_LAT_BUCKETS; b++) {
		acc += l->hist[b];
		if (acc > want) {
			double lo = (double)pg_lat_bucket_lo(b);
			double hi = b + 1 < PG_LAT_BUCKETS
					? (double)pg_lat_bucket_lo(b + 1)
					: lo;
			double mid =
			    b < (1u << PG_LAT_SUB_BITS) ? lo : (lo + hi) / 2;

			if (mid < (double)l->min)
				mid = (double)l->min;
			if (mid > (double)l->max)
				mid = (double)l->max;
			return mid;
		}
	}
	return (double)l->max;
}

void
pg_jitter_account(struct pg_seqwin *w, uint64_t transit)
{
	if (lr_likely(w->have_transit)) {
		int64_t d = (int64_t)(transit - (uint64_t)w->transit);
		uint64_t ad = (uint64_t)(d < 0 ? -d : d);

		/* RFC 3550 6.4.1: J += (|D| - J) / 16, kept as 16 J. */
		w->jitter16 += ad - ((w->jitter16 + 8) >> 4);
	}
	w->transit = (int64_t)transit;
	w->have_transit = true;
}
