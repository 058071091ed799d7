/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stress_l2fwd [FRAMES]: the lr-l2fwd forwarding loop (apps/l2fwd/l2fwd.c,
 * the very code lr-l2fwd runs) on two net_ring ports for FRAMES forwarded
 * frames (default: the environment's LR_STRESS_FRAMES, else 10^9), fed by
 * a generator on the main lcore; the forwarder runs on a worker lcore (on
 * the main lcore between the generator's steps when there is only one).
 *
 * Two streams of FLIGHT frames each circulate: stream s enters port s's
 * receive ring, lr-l2fwd sends it out of port 1-s, the generator takes it
 * from that port's transmit ring, checks it and puts it back into port s.
 * Every frame carries its stream and a sequence number; the generator
 * checks that every frame comes back exactly once and in order (one
 * queue, one lcore: FIFO), with its length, payload and the MACs lr-l2fwd
 * writes (the generator puts the original MACs back before each trip, so a
 * forwarder that did not rewrite them is caught). One frame in 256 is
 * freed and a fresh mbuf allocated in its place, so the pool keeps turning.
 *
 * Every second the generator stops feeding, waits until every frame it
 * sent came back (bounded: a frame that never does is a loss) and checks
 * the pool accounting,
 *   mbufs in the pool + mbufs in flight (all in the generator's hand now)
 *     == pool size,  and lr_mempool_validate(),
 * and the counters: lr-l2fwd's rx == tx == frames returned, none dropped,
 * each port's ethdev counters equal lr-l2fwd's. At the end every frame is
 * freed: no mbuf in use, pool valid.
 *
 * Prints a line every 10 s and "stress_l2fwd: N frames ... ok" at the end;
 * exit 0, or 1 on any violation.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../apps/l2fwd/l2fwd.c"
#include "lr_eal.h"
#include "lr_eth_ring.h"
#include "lr_ethdev.h"
#include "lr_mbuf.h"
#include "lr_ring.h"
#include "lr_test.h"

#define FLIGHT	     512  /* frames per stream */
#define RING_SLOTS   4096 /* more than all frames together */
#define POOL_SIZE    4096
#define FRAME_LEN    64
#define SEQ_OFF	     LR_ETHER_HDR_LEN
#define PAYLOAD_OFF  (SEQ_OFF + 9)
#define CHURN_EVERY  256 /* one frame in this many gets a fresh mbuf */
#define DRAIN_S	     60	 /* bound on a frame's way back: a loss after */
#define REPORT_EVERY 10	 /* seconds between progress lines */

static struct l2fwd fwd;

static struct {
	struct lr_mempool *pool;
	struct lr_ring *to_port[2], *from_port[2];
	uint16_t port[2];
	struct lr_ether_addr mac[2];
	unsigned fwd_lcore;
	int one_lcore;
	uint64_t limit[2]; /* frames stream s sends in all */
	uint64_t sent[2];  /* frames of stream s sent (next seq) */
	uint64_t back[2];  /* frames of stream s back (next expected) */
	struct lr_mbuf *hand[2 * FLIGHT]; /* frames the generator holds */
	unsigned n_hand;
	uint64_t churned;
	int failed;
} g;

static const struct lr_ether_addr orig_src = {{0x02, 0x67, 0x65, 0x6e, 0, 1}};
static uint8_t payload[FRAME_LEN - PAYLOAD_OFF];

static void
set_headers(uint8_t *d)
{
	memset(d, 0xff, LR_ETHER_ADDR_LEN);
	memcpy(d + 6, &orig_src, LR_ETHER_ADDR_LEN);
}

static struct lr_mbuf *
new_frame(void)
{
	struct lr_mbuf *m = lr_pktmbuf_alloc(g.pool);
	uint8_t *d;

	if (m == NULL)
		return NULL;
	d = (uint8_t *)lr_pktmbuf_append(m, FRAME_LEN);
	if (d == NULL) {
		lr_pktmbuf_free(m);
		return NULL;
	}
	set_headers(d);
	d[12] = 0x08;
	d[13] = 0x00;
	memcpy(d + PAYLOAD_OFF, payload, sizeof(payload));
	return m;
}

/* Stamp m as the next frame of stream s and send it into port s; the ring
 * holds every frame there is, so it always takes it. */
static int
send_frame(struct lr_mbuf *m, unsigned s)
{
	uint8_t *d;

	if (g.sent[s] % CHURN_EVERY == CHURN_EVERY - 1) {
		lr_pktmbuf_free(m);
		m = new_frame();
		if (m == NULL) {
			fprintf(stderr, "stress_l2fwd: mbuf pool empty with "
					"every frame accounted for\n");
			return -1;
		}
		g.churned++;
	}
	d = lr_pktmbuf_mtod(m, uint8_t *);
	set_headers(d);
	memcpy(d + SEQ_OFF, &g.sent[s], sizeof(uint64_t));
	d[SEQ_OFF + 8] = (uint8_t)s;
	if (lr_ring_sp_enqueue(g.to_port[s], m) != 0) {
		fprintf(stderr, "stress_l2fwd: port %u's receive ring full\n",
			g.port[s]);
		lr_pktmbuf_free(m);
		return -1;
	}
	g.sent[s]++;
	return 0;
}

/* A frame that left port 1-s: stream s, the next seq, intact. */
static int
check_frame(const struct lr_mbuf *m, unsigned s)
{
	const uint8_t *d = lr_pktmbuf_mtod(m, const uint8_t *);
	const unsigned out = 1 - s;
	uint8_t want_dst[6] = {0x02, 0, 0, 0, 0, (uint8_t)g.port[out]};
	uint64_t seq;

	memcpy(&seq, d + SEQ_OFF, sizeof(seq));
	if (m->pkt_len != FRAME_LEN || m->data_len != FRAME_LEN ||
	    m->nb_segs != 1 || d[SEQ_OFF + 8] != s || seq != g.back[s]) {
		fprintf(stderr,
			"stress_l2fwd: port %u sent len %u stream %u seq "
			"%" PRIu64 "; expected stream %u seq %" PRIu64
			" (lost, duplicated or reordered)\n",
			g.port[out], m->pkt_len, d[SEQ_OFF + 8], seq, s,
			g.back[s]);
		return -1;
	}
	if (memcmp(d, want_dst, 6) || memcmp(d + 6, &g.mac[out], 6) ||
	    d[12] != 0x08 || d[13] != 0x00 ||
	    memcmp(d + PAYLOAD_OFF, payload, sizeof(payload))) {
		fprintf(stderr,
			"stress_l2fwd: frame %" PRIu64 " of stream %u: "
			"headers or payload wrong\n",
			seq, s);
		return -1;
	}
	g.back[s]++;
	return 0;
}

/* Take what the ports sent; put it back into its stream unless hold. */
static int
generator_step(int hold)
{
	for (unsigned s = 0; s < 2; s++) {
		void *objs[L2FWD_BURST];
		unsigned n = lr_ring_sc_dequeue_burst(g.from_port[1 - s], objs,
						      L2FWD_BURST, NULL);

		for (unsigned i = 0; i < n; i++) {
			struct lr_mbuf *m = objs[i];

			if (check_frame(m, s) != 0) {
				lr_pktmbuf_free(m);
				return -1;
			}
			if (hold || g.sent[s] >= g.limit[s])
				g.hand[g.n_hand++] = m;
			else if (send_frame(m, s) != 0)
				return -1;
		}
	}
	if (g.one_lcore)
		l2fwd_poll_once(&fwd, g.fwd_lcore);
	return 0;
}

static uint64_t
in_flight(void)
{
	return g.sent[0] - g.back[0] + g.sent[1] - g.back[1];
}

/* Every frame is back in the generator's hand: the accounting. */
static int
check_quiescent(double t, int verbose)
{
	struct l2fwd_port_stats a, b;
	struct lr_eth_stats ea, eb;
	unsigned in_use = lr_mempool_in_use_count(g.pool);
	unsigned avail = lr_mempool_avail_count(g.pool);
	uint64_t back = g.back[0] + g.back[1];
	int bad = 0;

	l2fwd_port_totals(&fwd, g.port[0], &a);
	l2fwd_port_totals(&fwd, g.port[1], &b);
	lr_eth_stats_get(g.port[0], &ea);
	lr_eth_stats_get(g.port[1], &eb);
	if (lr_mempool_validate(g.pool) != 0 || in_use != g.n_hand ||
	    avail + g.n_hand != POOL_SIZE) {
		fprintf(stderr,
			"stress_l2fwd: pool: %u available + %u in flight "
			"!= %u (in use %u), or invalid\n",
			avail, g.n_hand, POOL_SIZE, in_use);
		bad = 1;
	}
	if (a.rx != g.sent[0] || b.rx != g.sent[1] || a.tx != g.back[1] ||
	    b.tx != g.back[0] || a.dropped || b.dropped) {
		fprintf(stderr,
			"stress_l2fwd: lr-l2fwd rx %" PRIu64 "/%" PRIu64
			" tx %" PRIu64 "/%" PRIu64 " dropped %" PRIu64
			"/%" PRIu64 "; sent %" PRIu64 "/%" PRIu64
			" back %" PRIu64 "/%" PRIu64 "\n",
			a.rx, b.rx, a.tx, b.tx, a.dropped, b.dropped, g.sent[0],
			g.sent[1], g.back[1], g.back[0]);
		bad = 1;
	}
	if (ea.ipackets != a.rx || eb.ipackets != b.rx || ea.opackets != a.tx ||
	    eb.opackets != b.tx) {
		fprintf(stderr,
			"stress_l2fwd: ethdev counters rx %" PRIu64 "/%" PRIu64
			" tx %" PRIu64 "/%" PRIu64 " differ from lr-l2fwd's\n",
			ea.ipackets, eb.ipackets, ea.opackets, eb.opackets);
		bad = 1;
	}
	if (verbose || bad)
		printf("[%6.0f s] %" PRIu64 " frames forwarded, %u in flight, "
		       "%u in the pool of %u, %" PRIu64 " fresh mbufs: %s\n",
		       t, back, g.n_hand, avail, POOL_SIZE, g.churned,
		       bad ? "VIOLATION" : "accounted");
	fflush(stdout);
	return bad ? -1 : 0;
}

static int
run(void)
{
	uint64_t hz = lr_get_tsc_hz(), t0 = lr_get_tsc_cycles();
	uint64_t next = t0 + hz, now = t0;
	unsigned checks = 0, iter = 0;

	for (unsigned s = 0; s < 2; s++)
		for (unsigned i = 0; i < FLIGHT && g.sent[s] < g.limit[s]; i++)
			if (send_frame(new_frame(), s) != 0)
				return -1;
	if (!g.one_lcore)
		lr_eal_remote_launch(l2fwd_main_loop, &fwd, g.fwd_lcore);
	for (;;) {
		int done = g.sent[0] >= g.limit[0] && g.sent[1] >= g.limit[1];

		if (generator_step(0) != 0)
			return -1;
		if ((++iter & 255) == 0)
			now = lr_get_tsc_cycles();
		if (now < next && !done)
			continue;
		/* Quiescent point: nothing more goes out; wait until every
		 * frame is back (the forwarder drains its tx buffers every
		 * L2FWD_DRAIN_US). */
		uint64_t limit = lr_get_tsc_cycles() + DRAIN_S * hz;

		while (in_flight() != 0) {
			if (generator_step(1) != 0)
				return -1;
			if (lr_get_tsc_cycles() > limit) {
				fprintf(stderr,
					"stress_l2fwd: %" PRIu64 " frames "
					"not back after %d s: lost\n",
					in_flight(), DRAIN_S);
				return -1;
			}
		}
		checks++;
		if (check_quiescent((double)(now - t0) / (double)hz,
				    checks % REPORT_EVERY == 0 || done) != 0)
			return -1;
		if (done)
			break;
		/* Back on their way, stream by stream. */
		for (unsigned k = 0; k < g.n_hand; k++) {
			const uint8_t *d =
			    lr_pktmbuf_mtod(g.hand[k], const uint8_t *);
			unsigned s = d[SEQ_OFF + 8];

			if (g.sent[s] >= g.limit[s]) {
				lr_pktmbuf_free(g.hand[k]);
			} else if (send_frame(g.hand[k], s) != 0) {
				g.n_hand = 0;
				return -1;
			}
		}
		g.n_hand = 0;
		now = lr_get_tsc_cycles();
		next = now + hz;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	char name[32];
	const char *env = getenv("LR_STRESS_FRAMES");
	double frames = argc > 1 ? atof(argv[1]) : env ? atof(env) : 1e9;
	int rc = 1, nports = 0;

	if (!(frames >= 2) || frames > 1e15) {
		fprintf(stderr, "stress_l2fwd: frames '%s': expected 2..1e15\n",
			argc > 1 ? argv[1] : env);
		return 1;
	}
	if (lr_test_eal_init("stress_l2fwd", 256) < 0)
		return 1;
	for (unsigned i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(0xa5 ^ i * 7);
	g.limit[0] = (uint64_t)frames / 2;
	g.limit[1] = (uint64_t)frames - g.limit[0];
	g.fwd_lcore = lr_get_next_lcore(-1, 1, 0);
	g.one_lcore = g.fwd_lcore >= LR_MAX_LCORE;
	if (g.one_lcore)
		g.fwd_lcore = lr_lcore_id();
	g.pool =
	    lr_pktmbuf_pool_create("stress_l2fwd", POOL_SIZE, 64, 0,
				   LR_MBUF_DEFAULT_BUF_SIZE, lr_socket_id());
	if (g.pool == NULL)
		goto out;
	for (unsigned i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "sl_to_port%u", i);
		g.to_port[i] =
		    lr_ring_create(name, RING_SLOTS, lr_socket_id(),
				   LR_RING_F_SP_ENQ | LR_RING_F_SC_DEQ);
		snprintf(name, sizeof(name), "sl_from_port%u", i);
		g.from_port[i] =
		    lr_ring_create(name, RING_SLOTS, lr_socket_id(),
				   LR_RING_F_SP_ENQ | LR_RING_F_SC_DEQ);
		if (!g.to_port[i] || !g.from_port[i])
			goto out;
		snprintf(name, sizeof(name), "sl_port%u", i);
		int p = lr_eth_from_rings(name, &g.to_port[i], 1,
					  &g.from_port[i], 1, lr_socket_id());

		if (p < 0)
			goto out;
		g.port[i] = (uint16_t)p;
		nports++;
		if (lr_eth_dev_configure(g.port[i], 1, 1, NULL) ||
		    lr_eth_rx_queue_setup(g.port[i], 0, 1024, -1, NULL,
					  g.pool) ||
		    lr_eth_tx_queue_setup(g.port[i], 0, 1024, -1, NULL) ||
		    lr_eth_dev_start(g.port[i]) ||
		    lr_eth_macaddr_get(g.port[i], &g.mac[i]))
			goto out;
	}
	l2fwd_init(&fwd, 1);
	if (l2fwd_pair(&fwd, g.port[0], g.port[1]) ||
	    l2fwd_assign(&fwd, g.fwd_lcore, g.port[0]) ||
	    l2fwd_assign(&fwd, g.fwd_lcore, g.port[1]))
		goto out;
	printf("stress_l2fwd: %.0f frames, forwarder on lcore %u, generator "
	       "on lcore %u, %u frames in flight per stream\n",
	       frames, g.fwd_lcore, lr_lcore_id(), FLIGHT);
	fflush(stdout);

	rc = run() == 0 ? 0 : 1;
	atomic_store(&fwd.quit, 1);
	if (!g.one_lcore)
		lr_eal_wait_lcore(g.fwd_lcore);
	else
		l2fwd_flush(&fwd, g.fwd_lcore);
	for (unsigned k = 0; k < g.n_hand; k++)
		lr_pktmbuf_free(g.hand[k]);
	g.n_hand = 0;

out:
	if (rc != 0 && g.pool == NULL)
		fprintf(stderr, "stress_l2fwd: setup: %s\n",
			lr_strerror(lr_errno));
	for (int i = 0; i < nports; i++)
		lr_eth_dev_close(g.port[i]);
	for (unsigned i = 0; i < 2; i++) {
		struct lr_ring *r[2] = {g.to_port[i], g.from_port[i]};

		for (unsigned k = 0; k < 2; k++) {
			void *objs[64];
			unsigned n;

			if (r[k] == NULL)
				continue;
			while ((n = lr_ring_dequeue_burst(r[k], objs, 64,
							  NULL)) > 0)
				lr_pktmbuf_free_bulk((struct lr_mbuf **)objs,
						     n);
			lr_ring_free(r[k]);
		}
	}
	if (g.pool) {
		unsigned in_use = lr_mempool_in_use_count(g.pool);

		if (in_use != 0 || lr_mempool_validate(g.pool) != 0) {
			fprintf(stderr,
				"stress_l2fwd: %u mbufs in use at the end\n",
				in_use);
			rc = 1;
		}
		lr_mempool_free(g.pool);
	}
	printf("stress_l2fwd: %" PRIu64 " frames forwarded, %" PRIu64
	       " fresh mbufs: %s\n",
	       g.back[0] + g.back[1], g.churned, rc ? "FAILED" : "ok");
	lr_eal_cleanup();
	return rc;
}
