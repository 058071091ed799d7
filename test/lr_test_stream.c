/* SPDX-License-Identifier: BSD-3-Clause */
/* lr_test_stream - numbered frames of the driver tests (see
 * lr_test_stream.h). */
#include <stdio.h>
#include <string.h>

#include "lr_cycles.h"
#include "lr_ethdev.h"
#include "lr_test_stream.h"

/* Frames a burst; the longest frame checked. */
#define BURST 32
#define MAXF  65536

void
lr_test_frame_make(uint8_t *d, unsigned tag, unsigned i, uint32_t len)
{
	memset(d, 0xff, 6);
	memcpy(d + 6, "\x02\0\0\0\0\x01", 6);
	d[12] = 0x08;
	d[13] = 0x00;
	for (uint32_t k = 14; k < len; k++)
		d[k] = (uint8_t)(i * 7 + k * 3 + tag);
	memcpy(d + 14, &tag, 4);
	memcpy(d + 18, &i, 4);
}

struct lr_mbuf *
lr_test_stream_mbuf(const struct lr_test_stream *s, unsigned tag, unsigned i)
{
	static uint8_t f[MAXF];
	uint32_t len = s->size_of(i);
	struct lr_mbuf *m = lr_pktmbuf_alloc(s->pool);

	if (m == NULL)
		return NULL;
	lr_test_frame_make(f, tag, i, len);
	if (lr_pktmbuf_append_copy(m, s->pool, f, len) != 0) {
		lr_pktmbuf_free(m);
		return NULL;
	}
	return m;
}

int
lr_test_stream_check(const struct lr_test_stream *s, const struct lr_mbuf *m,
		     unsigned tag, unsigned i)
{
	static uint8_t exp[MAXF], got[MAXF];
	uint32_t len = s->size_of(i);
	unsigned gtag, gi;

	if (m->pkt_len != len) {
		fprintf(stderr, "stream %u frame %u: %u bytes, expected %u\n",
			tag, i, m->pkt_len, len);
		return -1;
	}
	if (s->check != NULL && s->check(m, tag, i) != 0)
		return -1;
	lr_test_frame_make(exp, tag, i, len);
	lr_pktmbuf_copy_out(m, got);
	if (memcmp(exp, got, len) == 0)
		return 0;
	memcpy(&gtag, got + 14, 4);
	memcpy(&gi, got + 18, 4);
	fprintf(stderr,
		"stream %u frame %u: bytes differ (got stream %u frame %u)\n",
		tag, i, gtag, gi);
	return -1;
}

struct lr_mbuf *
lr_test_tso_mbuf(struct lr_mempool *mp, const uint8_t *f, uint32_t len,
		 uint16_t mss)
{
	struct lr_mbuf *m = lr_pktmbuf_alloc(mp);

	if (m == NULL)
		return NULL;
	if (lr_pktmbuf_append_copy(m, mp, f, len) != 0) {
		lr_pktmbuf_free(m);
		return NULL;
	}
	m->ol_flags |= LR_MBUF_F_TX_TCP_SEG | LR_MBUF_F_TX_IP_CKSUM |
		       LR_MBUF_F_TX_TCP_CKSUM;
	m->l2_len = 14;
	m->l3_len = 20;
	m->l4_len = 20;
	m->tso_segsz = mss;
	return m;
}

/* Up to k frames of tag from number from on into m: how many (fewer only
 * when the pool ran dry: said). */
static unsigned
make_burst(const struct lr_test_stream *s, struct lr_mbuf **m, unsigned k,
	   unsigned tag, unsigned from)
{
	for (unsigned j = 0; j < k; j++) {
		m[j] = lr_test_stream_mbuf(s, tag, from + j);
		if (m[j] == NULL) {
			lr_pktmbuf_free_bulk(m, j);
			fprintf(stderr, "stream %u: pool empty\n", tag);
			return j;
		}
	}
	return k;
}

int
lr_test_stream_xfer(const struct lr_test_stream *s, int tx, uint16_t txq,
		    int rx, uint16_t rxq, unsigned tag, unsigned n)
{
	struct lr_mbuf *m[BURST];
	unsigned sent = 0, got = 0;
	uint64_t end = lr_get_tsc_cycles() + s->secs * lr_get_tsc_hz();

	while (got < n) {
		unsigned k = LR_MIN(BURST, n - sent);

		if (lr_get_tsc_cycles() > end) {
			fprintf(stderr,
				"stream %u: %u of %u frames back after %u s "
				"(%u sent)\n",
				tag, got, n, s->secs, sent);
			return -1;
		}
		if (sent - got + k > s->window)
			k = 0;
		if (make_burst(s, m, k, tag, sent) != k)
			return -1;
		uint16_t t = lr_eth_tx_burst((uint16_t)tx, txq, m, (uint16_t)k);

		lr_pktmbuf_free_bulk(m + t, k - t);
		sent += t;
		uint16_t r = lr_eth_rx_burst((uint16_t)rx, rxq, m, BURST);

		for (uint16_t j = 0; j < r; j++) {
			int bad = got >= n ||
				  lr_test_stream_check(s, m[j], tag, got) != 0;

			got++;
			if (bad) {
				lr_pktmbuf_free_bulk(m, r);
				return -1;
			}
		}
		lr_pktmbuf_free_bulk(m, r);
	}
	return 0;
}
