/* SPDX-License-Identifier: BSD-3-Clause */
/* lr-l2fwd: the forwarding loop (compiled from apps/l2fwd/l2fwd.c) moves a
 * known set of packets between ring ports, every packet arriving once on the
 * paired port with the right MACs; the drain timer; drops counted when tx
 * is full; the loop on a worker lcore; and the real lr-l2fwd binary: clean
 * stop on every terminating signal (also during EAL init), --duration, bad
 * options, -h. */
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../apps/l2fwd/l2fwd.c"
#include "lr_eal.h"
#include "lr_eth_ring.h"
#include "lr_ethdev.h"
#include "lr_mbuf.h"
#include "lr_ring.h"
#include "lr_test.h"
#include "lr_test_port.h"

#define POOL_SIZE 8192
#define RING_SIZE 1024
#define SEQ_OFF	  LR_ETHER_HDR_LEN

static struct lr_mempool *pool;
static struct l2fwd fwd;

/* Two ports over application rings: the test writes in[p] (the port's rx)
 * and reads out[p] (the port's tx). */
struct pair {
	struct lr_ring *in[2][2], *out[2][2]; /* [port][queue] */
	uint16_t port[2];
	struct lr_ether_addr mac[2];
	uint16_t nq; /* queue pairs of each port */
};

static int
eal_up(void)
{
	pool = lr_test_eal_pool("test_l2fwd", 128, POOL_SIZE, 64);
	return pool != NULL ? 0 : -1;
}

/* Two ports over application rings, nq queue pairs each (the test writes
 * in[p][q], rx queue q of port p, and reads out[p][q], its tx queue q;
 * out rings of out_size slots), started; 0 or -1. */
static int
pair_create(struct pair *pr, const char *tag, unsigned out_size, uint16_t nq)
{
	char name[32];

	memset(pr, 0, sizeof(*pr));
	pr->nq = nq;
	for (int i = 0; i < 2; i++) {
		for (int q = 0; q < nq; q++) {
			snprintf(name, sizeof(name), "%s_in%d_%d", tag, i, q);
			pr->in[i][q] = lr_ring_create(name, RING_SIZE, -1, 0);
			snprintf(name, sizeof(name), "%s_out%d_%d", tag, i, q);
			pr->out[i][q] = lr_ring_create(name, out_size, -1, 0);
			if (!pr->in[i][q] || !pr->out[i][q])
				return -1;
		}
		snprintf(name, sizeof(name), "%s_port%d", tag, i);
		int p =
		    lr_eth_from_rings(name, pr->in[i], nq, pr->out[i], nq, -1);

		if (lr_test_port_start(p, nq, 512, pool) != 0)
			return -1;
		pr->port[i] = (uint16_t)p;
		lr_eth_macaddr_get(pr->port[i], &pr->mac[i]);
	}
	return 0;
}

/* Close the ports, free packets left in the rings, free the rings. */
static void
pair_destroy(struct pair *pr)
{
	void *objs[64];
	unsigned n;

	for (int i = 0; i < 2; i++) {
		lr_eth_dev_close(pr->port[i]);
		for (int q = 0; q < pr->nq; q++) {
			struct lr_ring *r[2] = {pr->in[i][q], pr->out[i][q]};

			for (int k = 0; k < 2; k++) {
				while ((n = lr_ring_dequeue_burst(r[k], objs,
								  64, NULL)))
					lr_pktmbuf_free_bulk(
					    (struct lr_mbuf **)objs, n);
				lr_ring_free(r[k]);
			}
		}
	}
}

/* The end of a case: pair_destroy(), and every mbuf of the pool back; 0
 * or -1. */
static int
pair_end(struct pair *pr)
{
	pair_destroy(pr);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return 0;
}

static const struct lr_ether_addr orig_src = {{0x02, 0xaa, 0, 0, 0, 1}};

/* A 64-byte frame carrying seq and the side it entered on. */
static struct lr_mbuf *
make_packet(uint32_t seq, uint8_t side)
{
	struct lr_mbuf *m = lr_pktmbuf_alloc(pool);
	uint8_t *d;

	if (m == NULL)
		return NULL;
	d = (uint8_t *)lr_pktmbuf_append(m, 64);
	if (d == NULL) {
		lr_pktmbuf_free(m);
		return NULL;
	}
	memset(d, 0xff, LR_ETHER_ADDR_LEN);
	memcpy(d + 6, &orig_src, LR_ETHER_ADDR_LEN);
	d[12] = 0x08;
	d[13] = 0x00;
	memcpy(d + SEQ_OFF, &seq, sizeof(seq));
	d[SEQ_OFF + 4] = side;
	memset(d + SEQ_OFF + 5, 0x5a, 64 - SEQ_OFF - 5);
	return m;
}

/* Check one packet read from out[side]: it entered on the other side, its
 * seq was not seen before, its MACs are right. 0 or -1 with a message. */
static int
check_packet(const struct pair *pr, struct lr_mbuf *m, int side, uint8_t *seen,
	     uint32_t nseq, int mac_updating)
{
	const uint8_t *d = lr_pktmbuf_mtod(m, const uint8_t *);
	uint32_t seq;
	uint8_t want_dst[6] = {0x02, 0, 0, 0, 0, (uint8_t)pr->port[side]};

	memcpy(&seq, d + SEQ_OFF, sizeof(seq));
	if (m->pkt_len != 64 || seq >= nseq || d[SEQ_OFF + 4] != (side ^ 1)) {
		fprintf(stderr,
			"bad packet on side %d: len %u seq %u from %u\n", side,
			m->pkt_len, seq, d[SEQ_OFF + 4]);
		return -1;
	}
	if (seen[seq]++) {
		fprintf(stderr, "packet %u arrived twice\n", seq);
		return -1;
	}
	if (mac_updating
		? (memcmp(d, want_dst, 6) || memcmp(d + 6, &pr->mac[side], 6))
		: (d[0] != 0xff || memcmp(d + 6, &orig_src, 6))) {
		fprintf(stderr,
			"packet %u: MACs %02x:..:%02x / %02x:..:%02x wrong "
			"(mac updating %d)\n",
			seq, d[0], d[5], d[6], d[11], mac_updating);
		return -1;
	}
	return 0;
}

/* Read what is in out[0], out[1]; check and free it; how many, or -1. */
/* Read what the ports sent (out rings of every queue); check each frame
 * (check_packet(); with two queues, that it left on the queue it came in
 * on, whose number is written after the side byte) and free it; how many,
 * or -1. */
static int
collect(const struct pair *pr, uint8_t *seen, uint32_t nseq, int mac_upd)
{
	void *objs[64];
	unsigned n;
	int total = 0;

	for (int side = 0; side < 2; side++) {
		for (int q = 0; q < pr->nq; q++) {
			while ((n = lr_ring_dequeue_burst(pr->out[side][q],
							  objs, 64, NULL))) {
				for (unsigned i = 0; i < n; i++) {
					struct lr_mbuf *m = objs[i];
					const uint8_t *d =
					    lr_pktmbuf_mtod(m, uint8_t *);

					if (check_packet(pr, m, side, seen,
							 nseq, mac_upd) < 0)
						return -1;
					if (pr->nq > 1)
						LR_TEST_ASSERT_EQ(
						    d[SEQ_OFF + 5], q);
				}
				lr_pktmbuf_free_bulk((struct lr_mbuf **)objs,
						     n);
				total += (int)n;
			}
		}
	}
	return total;
}

/* got packets were collected of nseq sent, and seen[] says each came
 * once; 0 or -1. */
static int
all_once(const uint8_t *seen, uint32_t nseq, int got)
{
	LR_TEST_ASSERT_EQ(got, nseq);
	for (uint32_t s = 0; s < nseq; s++)
		LR_TEST_ASSERT(seen[s] == 1, "packet %u seen %u times", s,
			       seen[s]);
	return 0;
}

/* Ports pr (named name, ring_size slots) paired in the forwarder, set up
 * (MAC updating as mac_updating), both polled by lcore lc; 0 or -1. */
/* The EAL, and ports pr (named name, out rings of out_size slots, a
 * queue pair each) paired in the forwarder (MAC updating as
 * mac_updating), polled by this thread's lcore (into *lc): both ports, or
 * with one_way port 0 only; 0 or -1. */
static int
fwd_pair_up(struct pair *pr, const char *name, unsigned out_size,
	    int mac_updating, int one_way, unsigned *lc)
{
	LR_TEST_ASSERT(eal_up() == 0, "EAL");
	*lc = lr_lcore_id();
	LR_TEST_ASSERT(pair_create(pr, name, out_size, 1) == 0, "ports");
	l2fwd_init(&fwd, mac_updating);
	LR_TEST_ASSERT_EQ(l2fwd_pair(&fwd, pr->port[0], pr->port[1]), 0);
	LR_TEST_ASSERT_EQ(l2fwd_assign(&fwd, *lc, pr->port[0]), 0);
	if (!one_way)
		LR_TEST_ASSERT_EQ(l2fwd_assign(&fwd, *lc, pr->port[1]), 0);
	return 0;
}

/* Forward nseq packets (alternating sides, in chunks of up to 50) on the
 * calling lcore, stepping the loop; every packet must arrive once. */
static int
run_forward(const void *arg)
{
	const int mac_updating = LR_TEST_INT(arg);
	enum { NSEQ = 20000 };
	static uint8_t seen[NSEQ];
	struct pair pr;
	struct l2fwd_port_stats st;
	struct lr_eth_stats es;
	unsigned lc;
	uint32_t next = 0;
	int got = 0;

	memset(seen, 0, sizeof(seen));
	LR_TEST_ASSERT_EQ(fwd_pair_up(&pr, mac_updating ? "fw" : "fn",
				      RING_SIZE, mac_updating, 0, &lc),
			  0);

	while (next < NSEQ) {
		/* Chunks of odd sizes so bursts straddle the tx buffer. */
		unsigned chunk = 1 + (next * 7) % 50;

		for (unsigned i = 0; i < chunk && next < NSEQ; i++, next++) {
			uint8_t side = (uint8_t)((next / 3) & 1);
			struct lr_mbuf *m = make_packet(next, side);

			LR_TEST_ASSERT(m != NULL, "pool empty at %u", next);
			LR_TEST_ASSERT_EQ(lr_ring_enqueue(pr.in[side][0], m),
					  0);
		}
		l2fwd_poll_once(&fwd, lc);
		int n = collect(&pr, seen, NSEQ, mac_updating);

		LR_TEST_ASSERT(n >= 0, "bad packet");
		got += n;
	}
	/* Let the loop drain what is still received or buffered. */
	for (int i = 0; i < 100 && got < NSEQ; i++) {
		l2fwd_poll_once(&fwd, lc);
		l2fwd_flush(&fwd, lc);
		int n = collect(&pr, seen, NSEQ, mac_updating);

		LR_TEST_ASSERT(n >= 0, "bad packet");
		got += n;
	}
	if (all_once(seen, NSEQ, got) != 0)
		return -1;
	/* The counters agree: each side's rx is the other side's tx. */
	for (int side = 0; side < 2; side++) {
		l2fwd_port_totals(&fwd, pr.port[side], &st);
		struct l2fwd_port_stats other;

		l2fwd_port_totals(&fwd, pr.port[side ^ 1], &other);
		LR_TEST_ASSERT_EQ(st.dropped, 0);
		LR_TEST_ASSERT_EQ(st.rx, other.tx);
		LR_TEST_ASSERT_EQ(lr_eth_stats_get(pr.port[side], &es), 0);
		LR_TEST_ASSERT_EQ(es.ipackets, st.rx);
		LR_TEST_ASSERT_EQ(es.opackets, st.tx);
		LR_TEST_ASSERT_EQ(es.obytes, 64 * st.tx);
	}
	l2fwd_port_totals(&fwd, pr.port[0], &st);
	struct l2fwd_port_stats s1;
	l2fwd_port_totals(&fwd, pr.port[1], &s1);
	LR_TEST_ASSERT_EQ(st.rx + s1.rx, NSEQ);
	if (pair_end(&pr) != 0)
		return -1;
	LR_TEST_ASSERT_EQ(lr_eth_dev_validate(), 0);
	return 0;
}

/* Fewer than a burst, then a round that receives nothing: out at once,
 * however long the drain interval (made a day here, so only the idle
 * flush can send them). */
static int
test_idle_flush(void)
{
	enum { N = 5 };
	static uint8_t seen[N];
	struct pair pr;
	unsigned lc;

	LR_TEST_ASSERT_EQ(fwd_pair_up(&pr, "if", RING_SIZE, 1, 0, &lc), 0);
	fwd.drain_tsc = lr_get_tsc_hz() * 86400;
	fwd.lcore[lc].prev_tsc = lr_get_tsc_cycles();
	for (uint32_t s = 0; s < N; s++)
		LR_TEST_ASSERT_EQ(
		    lr_ring_enqueue(pr.in[0][0], make_packet(s, 0)), 0);
	/* Received in a round that had packets: held in the tx buffer. */
	LR_TEST_ASSERT_EQ(l2fwd_poll_once(&fwd, lc), N);
	LR_TEST_ASSERT_EQ(lr_ring_count(pr.out[1][0]), 0);
	LR_TEST_ASSERT_EQ(fwd.lcore[lc].buffered, N);
	/* The next round receives nothing: the buffer goes out. */
	LR_TEST_ASSERT_EQ(l2fwd_poll_once(&fwd, lc), 0);
	LR_TEST_ASSERT_EQ(fwd.lcore[lc].buffered, 0);
	LR_TEST_ASSERT_EQ(collect(&pr, seen, N, 1), N);
	return pair_end(&pr);
}

/* A trickle: every round receives one packet and none fills a burst, so
 * nothing goes out (the drain interval made a day) until the drain timer
 * expires; it sends what is held at the start of the next round, and the
 * packet that round receives waits for the next idle round. */
static int
test_drain_timer(void)
{
	enum { N = L2FWD_BURST - 1 };
	static uint8_t seen[N + 1];
	struct l2fwd_lcore *l;
	struct pair pr;
	uint64_t drain;
	unsigned lc;

	LR_TEST_ASSERT_EQ(fwd_pair_up(&pr, "dt", RING_SIZE, 1, 0, &lc), 0);
	drain = fwd.drain_tsc;
	LR_TEST_ASSERT(drain > 0, "drain interval %llu",
		       (unsigned long long)drain);
	fwd.drain_tsc = lr_get_tsc_hz() * 86400;
	l = &fwd.lcore[lc];
	l->prev_tsc = lr_get_tsc_cycles();
	for (uint32_t s = 0; s < N; s++) {
		LR_TEST_ASSERT_EQ(
		    lr_ring_enqueue(pr.in[0][0], make_packet(s, 0)), 0);
		LR_TEST_ASSERT_EQ(l2fwd_poll_once(&fwd, lc), 1);
		LR_TEST_ASSERT_EQ(lr_ring_count(pr.out[1][0]), 0);
		LR_TEST_ASSERT_EQ(l->buffered, s + 1);
	}
	fwd.drain_tsc = drain;
	l->prev_tsc = lr_get_tsc_cycles() - drain - 1;
	LR_TEST_ASSERT_EQ(lr_ring_enqueue(pr.in[0][0], make_packet(N, 0)), 0);
	LR_TEST_ASSERT_EQ(l2fwd_poll_once(&fwd, lc), 1);
	LR_TEST_ASSERT_EQ(lr_ring_count(pr.out[1][0]), N);
	LR_TEST_ASSERT_EQ(l->buffered, 1);
	LR_TEST_ASSERT_EQ(l2fwd_poll_once(&fwd, lc), 0);
	LR_TEST_ASSERT_EQ(l->buffered, 0);
	LR_TEST_ASSERT_EQ(collect(&pr, seen, N + 1, 1), N + 1);
	return pair_end(&pr);
}

/* The wrapped tx function of each port and the empty bursts it saw. */
static lr_eth_tx_burst_t kick_orig[LR_MAX_ETHPORTS];
static unsigned kick_empty[LR_MAX_ETHPORTS];
static uint16_t kick_port_of_q[2];
static void *kick_q[2];

static uint16_t
kick_count_tx(void *txq, struct lr_mbuf **pkts, uint16_t n)
{
	unsigned i = txq == kick_q[0] ? 0 : 1;
	uint16_t p = kick_port_of_q[i];

	if (n == 0)
		kick_empty[p]++;
	return kick_orig[p](txq, pkts, n);
}

/* Once the drain interval passed, an idle forwarder still calls each
 * port's tx with an empty burst: net_af_xdp sends what waits in its ring
 * only when kicked, and without this frames left there when traffic
 * stopped were never sent (lost, seen on a loaded machine). */
static int
test_drain_kicks_idle_ports(void)
{
	struct pair pr;
	unsigned lc;
	double end;

	LR_TEST_ASSERT_EQ(fwd_pair_up(&pr, "dk", RING_SIZE, 1, 0, &lc), 0);
	for (int i = 0; i < 2; i++) {
		struct lr_eth_fp_txq *e = &lr_eth_fp_ops[pr.port[i]].tx[0];

		kick_orig[pr.port[i]] = e->fn;
		kick_empty[pr.port[i]] = 0;
		kick_port_of_q[i] = pr.port[i];
		kick_q[i] = e->q;
		e->fn = kick_count_tx;
	}
	fwd.lcore[lc].prev_tsc = lr_get_tsc_cycles();
	/* Nothing to receive; the bound only for a missing kick. */
	end = lr_test_now() + 10;
	while ((kick_empty[pr.port[0]] == 0 || kick_empty[pr.port[1]] == 0) &&
	       lr_test_now() < end)
		l2fwd_poll_once(&fwd, lc);
	for (int i = 0; i < 2; i++)
		lr_eth_fp_ops[pr.port[i]].tx[0].fn = kick_orig[pr.port[i]];
	LR_TEST_ASSERT(kick_empty[pr.port[0]] > 0 && kick_empty[pr.port[1]] > 0,
		       "empty tx bursts: port %u %u, port %u %u", pr.port[0],
		       kick_empty[pr.port[0]], pr.port[1],
		       kick_empty[pr.port[1]]);
	return pair_end(&pr);
}

static int
test_drops_counted(void)
{
	enum { N = 200 };
	struct pair pr;
	struct l2fwd_port_stats st;
	unsigned lc;

	/* out rings of 64 slots (63 usable), only port 0 polled, never read
	 * during the run. */
	LR_TEST_ASSERT_EQ(fwd_pair_up(&pr, "dr", 64, 1, 1, &lc), 0);
	for (uint32_t s = 0; s < N; s++)
		LR_TEST_ASSERT_EQ(
		    lr_ring_enqueue(pr.in[0][0], make_packet(s, 0)), 0);
	for (int i = 0; i < 20; i++)
		l2fwd_poll_once(&fwd, lc);
	l2fwd_flush(&fwd, lc);
	l2fwd_port_totals(&fwd, pr.port[1], &st);
	unsigned cap = lr_ring_get_capacity(pr.out[1][0]);

	LR_TEST_ASSERT_EQ(st.tx, cap);
	LR_TEST_ASSERT_EQ(st.dropped, N - cap);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), cap);
	return pair_end(&pr);
}

/* Runts (shorter than the 12 MAC bytes) given to the forwarder with MAC
 * updating are dropped and counted, never written past their data_len;
 * 12- and 64-byte frames, before and after them, are forwarded with new
 * MACs. */
static int
test_runts_not_rewritten(void)
{
	static const uint16_t lens[] = {12, 0, 1, 64, 11};
	struct lr_mbuf *m[LR_DIM(lens)];
	struct l2fwd_port_stats st;
	struct pair pr;
	void *objs[8];
	unsigned lc, n;

	LR_TEST_ASSERT_EQ(fwd_pair_up(&pr, "rt", 64, 1, 1, &lc), 0);
	for (unsigned i = 0; i < LR_DIM(lens); i++) {
		m[i] = lr_pktmbuf_alloc(pool);
		LR_TEST_ASSERT(m[i] != NULL, "alloc");
		memset(lr_pktmbuf_mtod(m[i], void *), 0xee, 64);
		LR_TEST_ASSERT(lr_pktmbuf_append(m[i], lens[i]) != NULL ||
				   lens[i] == 0,
			       "append");
		/* Keep the buffer to look at it after the forwarder. */
		lr_mbuf_refcnt_update(m[i], 1);
		LR_TEST_ASSERT_EQ(lr_ring_enqueue(pr.in[0][0], m[i]), 0);
	}
	for (int i = 0; i < 4; i++)
		l2fwd_poll_once(&fwd, lc);
	l2fwd_flush(&fwd, lc);
	l2fwd_port_totals(&fwd, pr.port[1], &st);
	n = lr_ring_dequeue_burst(pr.out[1][0], objs, 8, NULL);
	lr_pktmbuf_free_bulk((struct lr_mbuf **)objs, n);
	for (unsigned i = 0; i < LR_DIM(lens); i++) {
		const uint8_t *d = lr_pktmbuf_mtod(m[i], const uint8_t *);
		unsigned touched = 0;

		for (unsigned k = lens[i]; k < 64; k++)
			touched += d[k] != 0xee;
		LR_TEST_ASSERT(touched == 0,
			       "%u-byte frame: %u bytes past data_len written",
			       lens[i], touched);
		LR_TEST_ASSERT(lens[i] < 12 || d[0] == 0x02,
			       "%u-byte frame: MACs not rewritten", lens[i]);
		lr_pktmbuf_free(m[i]);
	}
	LR_TEST_ASSERT_EQ(n, 2);
	LR_TEST_ASSERT_EQ(st.tx, 2);
	LR_TEST_ASSERT_EQ(st.dropped, 3);
	return pair_end(&pr);
}

/* The loop on a worker lcore while this thread injects and collects. */
static int
test_worker_lcore(void)
{
	enum { NSEQ = 50000 };
	static uint8_t seen[NSEQ];
	struct pair pr;
	unsigned worker;
	uint32_t next = 0;
	int got = 0;
	uint64_t t0;

	LR_TEST_ASSERT(eal_up() == 0, "EAL");
	worker = lr_get_next_lcore(-1, 1, 0);
	if (worker >= LR_MAX_LCORE) {
		printf("skip: one lcore only\n");
		return LR_TEST_SKIP;
	}
	LR_TEST_ASSERT(pair_create(&pr, "wk", RING_SIZE, 1) == 0, "ports");
	l2fwd_init(&fwd, 1);
	LR_TEST_ASSERT_EQ(l2fwd_pair(&fwd, pr.port[0], pr.port[1]), 0);
	LR_TEST_ASSERT_EQ(l2fwd_assign(&fwd, worker, pr.port[0]), 0);
	LR_TEST_ASSERT_EQ(l2fwd_assign(&fwd, worker, pr.port[1]), 0);
	LR_TEST_ASSERT_EQ(lr_eal_remote_launch(l2fwd_main_loop, &fwd, worker),
			  0);
	t0 = lr_get_tsc_cycles();
	while (got < NSEQ && lr_get_tsc_cycles() - t0 < 30 * lr_get_tsc_hz()) {
		/* At most RING_SIZE / 2 in flight: the out rings never
		 * overflow, so nothing may be dropped. */
		while (next < NSEQ && next - (uint32_t)got < RING_SIZE / 2) {
			struct lr_mbuf *m =
			    make_packet(next, (uint8_t)(next & 1));

			if (m == NULL)
				break;
			LR_TEST_ASSERT_EQ(
			    lr_ring_enqueue(pr.in[next & 1][0], m), 0);
			next++;
		}
		int n = collect(&pr, seen, NSEQ, 1);

		if (n < 0)
			atomic_store(&fwd.quit, 1);
		LR_TEST_ASSERT(n >= 0, "bad packet");
		got += n;
	}
	atomic_store(&fwd.quit, 1);
	LR_TEST_ASSERT_EQ(lr_eal_wait_lcore(worker), 0);
	got += collect(&pr, seen, NSEQ, 1);
	if (all_once(seen, NSEQ, got) != 0)
		return -1;
	for (int side = 0; side < 2; side++) {
		struct l2fwd_port_stats st;

		l2fwd_port_totals(&fwd, pr.port[side], &st);
		LR_TEST_ASSERT_EQ(st.dropped, 0);
	}
	return pair_end(&pr);
}

/* --queues: rx queue q of a port goes out of tx queue q of its pair; both
 * queues of both ports polled by one lcore: every frame once, on its own
 * queue, the counters of the ports and of the forwarder agree. */
static int
test_two_queues(void)
{
	enum { NSEQ = 20000 };
	static uint8_t seen[NSEQ];
	struct pair pr;
	struct l2fwd_port_stats st[2];
	unsigned lc;
	uint32_t next = 0;
	int got = 0;

	LR_TEST_ASSERT(eal_up() == 0, "EAL");
	lc = lr_lcore_id();
	memset(seen, 0, sizeof(seen));
	LR_TEST_ASSERT(pair_create(&pr, "mq", RING_SIZE, 2) == 0, "ports");
	l2fwd_init(&fwd, 1);
	LR_TEST_ASSERT_EQ(l2fwd_pair(&fwd, pr.port[0], pr.port[1]), 0);
	for (uint16_t q = 0; q < 2; q++)
		for (int i = 0; i < 2; i++)
			LR_TEST_ASSERT_EQ(
			    l2fwd_assign_queue(&fwd, lc, pr.port[i], q), 0);
	for (int i = 0; got < NSEQ && i < 100000; i++) {
		/* At most RING_SIZE / 2 in flight: nothing overflows. */
		while (next < NSEQ && next - (uint32_t)got < RING_SIZE / 2) {
			uint8_t side = (uint8_t)(next & 1), q = (next >> 1) & 1;
			struct lr_mbuf *m = make_packet(next, side);

			LR_TEST_ASSERT(m != NULL, "pool empty at %u", next);
			lr_pktmbuf_mtod(m, uint8_t *)[SEQ_OFF + 5] = q;
			LR_TEST_ASSERT_EQ(lr_ring_enqueue(pr.in[side][q], m),
					  0);
			next++;
		}
		l2fwd_poll_once(&fwd, lc);
		l2fwd_flush(&fwd, lc);
		int n = collect(&pr, seen, NSEQ, 1);

		LR_TEST_ASSERT(n >= 0, "bad packet");
		got += n;
	}
	if (all_once(seen, NSEQ, got) != 0)
		return -1;
	for (int i = 0; i < 2; i++)
		l2fwd_port_totals(&fwd, pr.port[i], &st[i]);
	for (int i = 0; i < 2; i++) {
		struct lr_eth_stats es;

		LR_TEST_ASSERT_EQ(st[i].dropped, 0);
		LR_TEST_ASSERT_EQ(st[i].rx, NSEQ / 2);
		LR_TEST_ASSERT_EQ(st[i].tx, st[i ^ 1].rx);
		LR_TEST_ASSERT_EQ(lr_eth_stats_get(pr.port[i], &es), 0);
		LR_TEST_ASSERT_EQ(es.ipackets, st[i].rx);
		LR_TEST_ASSERT_EQ(es.opackets, st[i].tx);
		for (int q = 0; q < 2; q++)
			LR_TEST_ASSERT_EQ(es.q_opackets[q], NSEQ / 4);
	}
	return pair_end(&pr);
}

/* --- the real binary --- */

static char l2fwd_path[4096];

static int
find_binary(void)
{
	return lr_test_build_path(l2fwd_path, sizeof(l2fwd_path),
				  "apps/l2fwd/lr-l2fwd");
}

/* Run lr-l2fwd with args (a --file-prefix=NAME gets "_<pid>" added: every
 * run of this test its own prefix); once it printed ready (NULL: at once)
 * send sig (0: none); its output into out; returns its exit status, -2 if
 * it could not be run, -3 if it did not end within timeout_s, -4 if a
 * signal ended it, -5 if it never printed ready (killed then). */
static int
run_l2fwd(const char *const *args, const char *ready, int sig, int timeout_s,
	  char *out, size_t outlen)
{
	struct lr_test_child c;
	char *argv[32], prefix[80];
	int n = 0, r;

	argv[n++] = l2fwd_path;
	for (; args[n - 1] && n < 31; n++) {
		argv[n] = (char *)args[n - 1];
		if (strncmp(argv[n], "--file-prefix=", 14) == 0)
			argv[n] = lr_test_prefix_arg(prefix, sizeof(prefix),
						     argv[n] + 14);
	}
	argv[n] = NULL;
	if (lr_test_spawn(&c, l2fwd_path, argv, out, outlen) != 0)
		return -2;
	if (ready != NULL) {
		if (lr_test_child_wait_for(&c, ready, timeout_s) != 0) {
			kill(c.pid, SIGKILL);
			lr_test_child_finish(&c, timeout_s);
			fprintf(stderr, "lr-l2fwd never printed '%s':\n%s\n",
				ready, out);
			return -5;
		}
		if (sig)
			kill(c.pid, sig);
	}
	r = lr_test_child_finish(&c, timeout_s);
	if (r == -1)
		return -4;
	if (r == 127)
		return -2;
	return r;
}

/* The EAL options (after -l) of a run on two net_null ports. */
#define NULL_PORTS                                                             \
	"--no-huge -m 128 --vdev net_null0,size=64,copy=0 --vdev "             \
	"net_null1,size=64,copy=0"

/* Skip the case unless lr-l2fwd is built. */
#define NEED_L2FWD()                                                           \
	do {                                                                   \
		if (find_binary() != 0) {                                      \
			printf("skip: lr-l2fwd not built (-Dapps=false)\n");   \
			return LR_TEST_SKIP;                                   \
		}                                                              \
	} while (0)

/* Skip the case when run_l2fwd() said (r == -2) lr-l2fwd cannot run
 * here. */
#define SKIP_UNRUNNABLE(r)                                                     \
	do {                                                                   \
		if ((r) == -2) {                                               \
			printf("skip: cannot run %s here\n", l2fwd_path);      \
			return LR_TEST_SKIP;                                   \
		}                                                              \
	} while (0)

static int
check_clean_exit(const char *out)
{
	const char *t = strstr(out, "l2fwd total: rx=");
	unsigned long long rx = 0, tx = 0, dropped = 1;

	LR_TEST_ASSERT(t != NULL, "no total line in:\n%s", out);
	LR_TEST_ASSERT(sscanf(t, "l2fwd total: rx=%llu tx=%llu dropped=%llu",
			      &rx, &tx, &dropped) == 3,
		       "total line format");
	LR_TEST_ASSERT(rx > 0 && tx == rx && dropped == 0,
		       "rx %llu tx %llu dropped %llu", rx, tx, dropped);
	LR_TEST_ASSERT(strstr(out, "mbufs in use after stop: 0\n"),
		       "in-use line missing or not 0:\n%s", out);
	LR_TEST_ASSERT(strstr(out, "Closing port 1... Done"), "ports closed");
	return 0;
}

static char outbuf[1 << 16];

/* run_l2fwd() with the printf-formatted arguments of fmt, split at
 * spaces, its output in outbuf, a bound of 120 s (only for a hang). */
static int run_line(const char *ready, int sig, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
run_line(const char *ready, int sig, const char *fmt, ...)
{
	char line[1024], *args[32], *save = NULL;
	int n = 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	for (char *t = strtok_r(line, " ", &save); t && n < 31;
	     t = strtok_r(NULL, " ", &save))
		args[n++] = t;
	args[n] = NULL;
	return run_l2fwd((const char *const *)args, ready, sig, 120, outbuf,
			 sizeof(outbuf));
}

/* A run that ended as it should (status r 0) with a clean exit's lines
 * (check_clean_exit()); 0, or -1 after a message. */
static int
clean_run(int r)
{
	LR_TEST_ASSERT(r == 0, "exit %d, output:\n%s", r, outbuf);
	return check_clean_exit(outbuf);
}

static int
test_sigint(void)
{
	static const int sigs[] = {SIGINT, SIGTERM};

	NEED_L2FWD();
	for (unsigned i = 0; i < LR_DIM(sigs); i++) {
		/* The signal once it has forwarded for a second (-T 1
		 * prints then). */
		int r = run_line("Aggregate statistics", sigs[i],
				 "-l 0 " NULL_PORTS
				 " --file-prefix=test_l2fwd_sig -- "
				 "-p 0x3 -T 1");

		SKIP_UNRUNNABLE(r);
		LR_TEST_ASSERT(r == 0, "signal %d: exit %d, output:\n%s",
			       sigs[i], r, outbuf);
		LR_TEST_ASSERT(strstr(outbuf, "Signal received"),
			       "no signal line");
		if (check_clean_exit(outbuf))
			return -1;
	}
	return 0;
}

/* Start lr-l2fwd on two null ports with prefix name, -T 1, with
 * LR_EAL_TEST_RAISE=raise_at in its environment (NULL: none). 0 once it printed
 * ready (NULL: don't wait), -1 after a message. */
static int
start_l2fwd(struct lr_test_child *c, const char *name, const char *raise_at,
	    const char *ready)
{
	char pfx[128];
	char *argv[24] = {l2fwd_path, "-l", "0", "-m", "128"};
	int n = 5;

	/* Hugepages when there are enough free, so that there is a
	 * hugepage file to be removed. */
	if (lr_test_free_hugepages_2m() < 128)
		argv[n++] = "--no-huge";
	argv[n++] = pfx;
	argv[n++] = "--vdev";
	argv[n++] = "net_null0,size=64,copy=0";
	argv[n++] = "--vdev";
	argv[n++] = "net_null1,size=64,copy=0";
	argv[n++] = "--";
	argv[n++] = "-p";
	argv[n++] = "0x3";
	argv[n++] = "-T";
	argv[n++] = "1";
	argv[n] = NULL;
	snprintf(pfx, sizeof(pfx), "--file-prefix=%s", name);
	if (raise_at)
		setenv("LR_EAL_TEST_RAISE", raise_at, 1);
	int r = lr_test_spawn(c, l2fwd_path, argv, outbuf, sizeof(outbuf));

	unsetenv("LR_EAL_TEST_RAISE");
	LR_TEST_ASSERT(r == 0, "cannot start %s", l2fwd_path);
	if (ready && lr_test_child_wait_for(c, ready, 120) != 0) {
		kill(c->pid, SIGKILL);
		lr_test_child_finish(c, 120);
		LR_TEST_ASSERT(0, "lr-l2fwd never printed '%s':\n%s", ready,
			       outbuf);
	}
	return 0;
}

/* Every terminating signal, sent once lr-l2fwd forwards, ends it the way
 * SIGINT does: the final lines, exit 0, and no runtime folder or hugepage
 * file left of its prefix. SIGPIPE also for real: its output closed. */
static int
test_stop_signals(void)
{
	static const int sigs[] = {SIGINT,  SIGTERM, SIGHUP, SIGPIPE,
				   SIGQUIT, SIGUSR1, SIGUSR2};
	struct lr_test_child c;
	char name[96], what[512];

	NEED_L2FWD();
	lr_test_prefix_name(name, sizeof(name), "test_l2fwd_stop");
	for (unsigned i = 0; i < LR_DIM(sigs); i++) {
		if (start_l2fwd(&c, name, NULL, "Forwarding on") != 0)
			return -1;
		LR_TEST_ASSERT(lr_test_leftovers(name, what, sizeof(what)),
			       "no runtime folder while running");
		kill(c.pid, sigs[i]);
		int r = lr_test_child_finish(&c, 120);

		LR_TEST_ASSERT(r == 0, "signal %d: exit %d, output:\n%s",
			       sigs[i], r, outbuf);
		LR_TEST_ASSERT(
		    strstr(outbuf, "Signal received") &&
			strstr(outbuf, "l2fwd total: rx=") &&
			strstr(outbuf, "mbufs in use after stop: 0\n"),
		    "signal %d: output:\n%s", sigs[i], outbuf);
		LR_TEST_ASSERT(!lr_test_leftovers(name, what, sizeof(what)),
			       "signal %d: %s left behind", sigs[i], what);
	}
	/* `lr-l2fwd ... | head -3`: the reader goes away, the next
	 * per-second line raises SIGPIPE. */
	if (start_l2fwd(&c, name, NULL, "Forwarding on") != 0)
		return -1;
	close(c.fd);
	c.fd = -1;
	int r = lr_test_child_finish(&c, 120);

	LR_TEST_ASSERT(r == 0, "output closed: exit %d (-1: killed)", r);
	LR_TEST_ASSERT(!lr_test_leftovers(name, what, sizeof(what)),
		       "output closed: %s left behind", what);
	return 0;
}

/* A signal during EAL init (raised there by the EAL's test hook once the
 * runtime folder and memory are taken) makes init undo it all and fail
 * with EINTR; one right after init (while the program sets up its pool
 * and ports) ends in the normal clean exit. */
static int
test_stop_during_init(void)
{
	struct lr_test_child c;
	char name[96], what[512], sig[32];

	NEED_L2FWD();
	lr_test_prefix_name(name, sizeof(name), "test_l2fwd_initsig");
	snprintf(sig, sizeof(sig), "%d", SIGHUP);
	if (start_l2fwd(&c, name, sig, NULL) != 0)
		return -1;
	int r = lr_test_child_finish(&c, 120);

	LR_TEST_ASSERT(r == 1 && strstr(outbuf, "stopped by signal") &&
			   strstr(outbuf, "EAL init failed"),
		       "SIGHUP in init: exit %d (-1: killed), output:\n%s", r,
		       outbuf);
	LR_TEST_ASSERT(!lr_test_leftovers(name, what, sizeof(what)),
		       "SIGHUP in init: %s left behind", what);
	snprintf(sig, sizeof(sig), "%d,late", SIGINT);
	if (start_l2fwd(&c, name, sig, NULL) != 0)
		return -1;
	r = lr_test_child_finish(&c, 120);
	LR_TEST_ASSERT(r == 0 && strstr(outbuf, "l2fwd total: rx=") &&
			   strstr(outbuf, "mbufs in use after stop: 0\n"),
		       "SIGINT after init: exit %d (-1: killed), output:\n%s",
		       r, outbuf);
	LR_TEST_ASSERT(!lr_test_leftovers(name, what, sizeof(what)),
		       "SIGINT after init: %s left behind", what);
	return 0;
}

/* -h is not an error: the EAL's options and lr-l2fwd's, exit 0. */
static int
test_help(void)
{
	NEED_L2FWD();
	int r = run_line(NULL, 0, "-h");

	LR_TEST_ASSERT(r == 0, "exit %d:\n%s", r, outbuf);
	LR_TEST_ASSERT(strstr(outbuf, "EAL options:") &&
			   strstr(outbuf, "PORTMASK") &&
			   !strstr(outbuf, "failed"),
		       "output:\n%s", outbuf);
	return 0;
}

static int
test_duration_and_bad_options(void)
{
	NEED_L2FWD();
	int r = run_line(NULL, 0,
			 "-l 0 " NULL_PORTS
			 " --file-prefix=test_l2fwd_dur -- -p 0x3 "
			 "-T 0 --duration 0.5 --portmap=(1,0) "
			 "--record-core-cycles --xstats");

	SKIP_UNRUNNABLE(r);
	if (clean_run(r) != 0)
		return -1;
	/* --record-core-cycles and --xstats print at the end. */
	LR_TEST_ASSERT(strstr(outbuf, "CPU cycles/packet=") &&
			   strstr(outbuf, "port 0: ") &&
			   strstr(outbuf, "port 1: ") &&
			   strstr(outbuf, "xstats: rx_good_packets "),
		       "no cycles or xstats:\n%s", outbuf);
	/* The mbuf pool is elastic by default; --xstats shows its counters. */
	LR_TEST_ASSERT(strstr(outbuf, "mbuf pool: elastic, ") &&
			   strstr(outbuf, "mbuf pool 'mbuf_pool' xstats:\n"
					  "  mbufs: ") &&
			   strstr(outbuf, "  growths: ") &&
			   strstr(outbuf, "  shrinks: "),
		       "no elastic pool or its xstats:\n%s", outbuf);

	/* The program's options after the EAL's, and the message. */
	static const struct {
		const char *opts;
		const char *msg;
	} bad[] = {
	    {"-p 0x4", "port 2 does not exist"},
	    {"-p 0x1", "an odd number of ports"},
	    {"-p zz", "-p 'zz'"},
	    {"-p 0x3 --portmap=(0,5)", "port 5 is not in the mask"},
	    {"-p 0x3 --portmap=(0,1", "--portmap '(0,1'"},
	    {"-p 0x3 -q 1", "not enough lcores"},
	    {"-p 0x3 --duration -1", "--duration '-1'"},
	    {"-T 1", "-p PORTMASK is required"},
	    {"-p 0x3 --bogus", "unknown option '--bogus'"},
	    {"-p 0x3 -x", "unknown option '-x'"},
	    {"-p 0x3 --portmap", "option '--portmap' needs a value"},
	    {"-p 0x3 -T", "option -T needs a value"},
	    {"-p 0x3 --queues 0", "--queues '0': expected"},
	    {"-p 0x3 -Q 17", "--queues '17': expected"},
	    {"-p 0x3 --queues 2x", "--queues '2x': expected"},
	    {"-p 0x3 --queues", "option '--queues' needs a value"},
	    {"-p 0x3 -Q", "option -Q needs a value"},
	    {"-p 0x3 --mbufs 100",
	     "--mbufs '100': expected N or MIN-MAX with MIN <= MAX, MAX in "
	     "512.."},
	    {"-p 0x3 --mbufs 9000-1000", "--mbufs '9000-1000'"},
	    {"-p 0x3 --mbufs 1000-2000-3000", "--mbufs '1000-2000-3000'"},
	    {"-p 0x3 --mbufs -1000", "--mbufs '-1000'"},
	    {"-p 0x3 --mbufs", "option '--mbufs' needs a value"},
	    {"-p 0x3 --mbufs-idle x", "--mbufs-idle 'x'"},
	    /* 2^32 must not wrap to port 0 */
	    {"-p 0x3 --portmap=(4294967296,1)",
	     "--portmap '(4294967296,1)': expected"},
	};
	for (unsigned i = 0; i < LR_DIM(bad); i++) {
		r = run_line(NULL, 0,
			     "-l 0 " NULL_PORTS
			     " --file-prefix=test_l2fwd_bad -- %s",
			     bad[i].opts);
		/* A usage error (2), and nothing said after it. */
		LR_TEST_ASSERT(r == 2, "case %u: exit %d:\n%s", i, r, outbuf);
		LR_TEST_ASSERT(strstr(outbuf, bad[i].msg),
			       "case %u: '%s' not in:\n%s", i, bad[i].msg,
			       outbuf);
		LR_TEST_ASSERT(!strstr(outbuf, "Bye") &&
				   !strstr(outbuf, "MAC updating") &&
				   !strstr(outbuf, "Closing port"),
			       "case %u: more after the error:\n%s", i, outbuf);
	}
	return 0;
}

/* Mbufs in a block of an elastic pool of lr-l2fwd's kind (default data
 * room, no private area): it depends on the allocator's page size; 0 if
 * no pool can be made. */
static unsigned
mbufs_per_block(void)
{
	struct lr_mempool_elastic_stats s;
	struct lr_mempool *mp;
	unsigned per = 0;

	if (eal_up() != 0)
		return 0;
	mp = lr_pktmbuf_pool_create_elastic("l2fwd_per_block", 0, 1024, 0, 0,
					    LR_MBUF_DEFAULT_BUF_SIZE,
					    LR_SOCKET_ID_ANY);
	if (mp != NULL && lr_mempool_elastic_stats_get(mp, &s) == 0)
		per = s.objs_per_block;
	lr_mempool_free(mp);
	return per;
}

static unsigned
round_up(unsigned n, unsigned per)
{
	return (n + per - 1) / per * per;
}

/* --mbufs N: a fixed pool; --mbufs MIN-MAX: an elastic one, its line in
 * the periodic stats. */
static int
test_mbufs_option(void)
{
	NEED_L2FWD();
	int r = run_line(NULL, 0,
			 "-l 0 " NULL_PORTS
			 " --file-prefix=test_l2fwd_mb -- -p 0x3 -T 0 "
			 "--duration 0.3 --mbufs 8192");
	char said[160], stats[64];
	unsigned per = mbufs_per_block();

	SKIP_UNRUNNABLE(r);
	if (clean_run(r) != 0)
		return -1;
	LR_TEST_ASSERT(strstr(outbuf, "mbuf pool: fixed, 8192 mbufs\n"),
		       "fixed pool not said:\n%s", outbuf);
	r = run_line(NULL, 0,
		     "-l 0 " NULL_PORTS
		     " --file-prefix=test_l2fwd_mb -- -p 0x3 -T 1 "
		     "--duration 1.5 --mbufs 1000-20000 "
		     "--mbufs-idle 50");
	if (clean_run(r) != 0)
		return -1;
	/* Whole blocks: min and max rounded up to a multiple of the mbufs
	 * a block holds (with 4 KiB pages 1001 and 20007). */
	LR_TEST_ASSERT(per != 0, "no elastic pool: %s", lr_strerror(lr_errno));
	snprintf(said, sizeof(said),
		 "mbuf pool: elastic, %u mbufs at start, grows up to %u, "
		 "gives back blocks idle for 50 ms\n",
		 round_up(1000, per), round_up(20000, per));
	snprintf(stats, sizeof(stats), "(elastic 1000-%u, peak ",
		 round_up(20000, per));
	LR_TEST_ASSERT(strstr(outbuf, said) &&
			   strstr(outbuf, "\nmbuf pool: ") &&
			   strstr(outbuf, stats),
		       "elastic pool not said (%u mbufs a block: '%s', '%s'):"
		       "\n%s",
		       per, said, stats, outbuf);
	return 0;
}

/* --queues 2 on two net_null ports: every (port, queue) polled (the plan
 * printed), forwarded and counted, a clean exit; a port with fewer queues
 * (net_pcap has one) is refused naming the port and its limit. */
static int
test_queues_binary(void)
{
	char pa[96], pb[96], dir[] = "/tmp/test_l2fwd_q.XXXXXX";

	NEED_L2FWD();
	int r = run_line(NULL, 0,
			 "-l 0-1 " NULL_PORTS " --file-prefix=test_l2fwd_q -- "
			 "-p 0x3 --queues 2 -T 0 --duration 0.5");

	if (clean_run(r) != 0)
		return -1;
	LR_TEST_ASSERT(
	    strstr(outbuf, "RX port 0 queue 1 -> TX port 1 queue 1") &&
		strstr(outbuf, "RX port 1 queue 0 -> TX port 0 queue 0") &&
		strstr(outbuf, "2 queue(s) each"),
	    "no queue plan in:\n%s", outbuf);

	LR_TEST_ASSERT(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(pa, sizeof(pa), "net_pcap0,tx_pcap=%s/a.pcap", dir);
	snprintf(pb, sizeof(pb), "net_pcap1,tx_pcap=%s/b.pcap", dir);
	r = run_line(NULL, 0,
		     "-l 0 --no-huge -m 128 --vdev %s --vdev %s "
		     "--file-prefix=test_l2fwd_qbad -- -p 0x3 -Q 2",
		     pa, pb);
	unlink(pa + strlen("net_pcap0,tx_pcap="));
	unlink(pb + strlen("net_pcap1,tx_pcap="));
	rmdir(dir);
	if (strstr(outbuf, "no driver 'net_pcap'")) {
		printf("net_pcap not built: no check of a port's limit\n");
		return 0;
	}
	LR_TEST_ASSERT(r == 2 && strstr(outbuf, "--queues 2: port 0 "
						"(net_pcap0) has at most 1 rx "
						"and 1 tx queues"),
		       "exit %d:\n%s", r, outbuf);
	return 0;
}

/* Two lcores, each polling one port, while the main lcore prints the
 * port statistics every second (l2fwd_port_totals() reading what the
 * forwarding lcores count): in a ThreadSanitizer build this is the run
 * that showed the counters' race; in every build the totals must add up. */
static int
test_two_lcores_stats(void)
{
	NEED_L2FWD();
	/* SIGINT once the first statistics are out: they were printed
	 * while both lcores forwarded. */
	int r =
	    run_line("Aggregate statistics", SIGINT,
		     "-l 0-1 " NULL_PORTS " --file-prefix=test_l2fwd_2lc -- "
		     "-p 0x3 -q 1 -T 1");

	SKIP_UNRUNNABLE(r);
	return clean_run(r);
}

/* lr-l2fwd-ring-bench: the forwarding loop on lcore 1 between two joined
 * net_ring ports fed by a checking generator on lcore 0. */
static int
test_ring_bench_two_lcores(void)
{
	static char bench[sizeof(l2fwd_path) + 16];
	static const char *const secs[] = {"0.5", "2", "5"};
	char prefix[80];
	struct lr_test_child c;
	unsigned long long fwd = 0, dropped = 1;

	NEED_L2FWD();
	snprintf(bench, sizeof(bench), "%s-ring-bench", l2fwd_path);
	/* Longer runs only when a busy host kept the lcores from
	 * forwarding at all in the shorter one; drops fail at once. */
	for (unsigned k = 0; k < 3 && fwd == 0; k++) {
		char *argv[] = {
		    bench,
		    "-l",
		    "0-1",
		    "--no-huge",
		    "-m",
		    "256",
		    lr_test_prefix_arg(prefix, sizeof(prefix), "test_l2fwd_rb"),
		    "--",
		    "--duration",
		    (char *)secs[k],
		    NULL};
		LR_TEST_ASSERT(
		    lr_test_spawn(&c, bench, argv, outbuf, sizeof(outbuf)) == 0,
		    "cannot start %s", bench);
		int r = lr_test_child_finish(&c, 120);
		const char *t = strstr(outbuf, "ring-fwd total: forwarded=");

		LR_TEST_ASSERT(r == 0, "exit %d, output:\n%s", r, outbuf);
		LR_TEST_ASSERT(t != NULL && sscanf(t,
						   "ring-fwd total: "
						   "forwarded=%llu "
						   "dropped=%llu",
						   &fwd, &dropped) == 2,
			       "no total line in:\n%s", outbuf);
		LR_TEST_ASSERT(dropped == 0,
			       "forwarded %llu dropped %llu in %s s", fwd,
			       dropped, secs[k]);
		LR_TEST_ASSERT(strstr(outbuf, "mbufs in use after stop: 0\n"),
			       "in-use line missing or not 0:\n%s", outbuf);
		if (fwd == 0)
			printf("ring bench: nothing forwarded in %s s (a busy "
			       "host?): again, longer\n",
			       secs[k]);
	}
	LR_TEST_ASSERT(fwd > 0, "nothing forwarded in 0.5, 2 or 5 s");
	return 0;
}

static const struct lr_test_case cases[] = {
    {"forward_every_packet", NULL, run_forward, LR_TEST_ARG(1)},
    {"forward_no_mac_updating", NULL, run_forward, LR_TEST_ARG(0)},
    {"idle_flush", test_idle_flush},
    {"drain_timer", test_drain_timer},
    {"drain_kicks_idle_ports", test_drain_kicks_idle_ports},
    {"drops_counted", test_drops_counted},
    {"runts_not_rewritten", test_runts_not_rewritten},
    {"worker_lcore", test_worker_lcore},
    {"two_queues", test_two_queues},
    {"sigint", test_sigint},
    {"duration_and_bad_options", test_duration_and_bad_options},
    {"mbufs_option", test_mbufs_option},
    {"stop_signals", test_stop_signals},
    {"stop_during_init", test_stop_during_init},
    {"help", test_help},
    {"two_lcores_stats", test_two_lcores_stats},
    {"queues_binary", test_queues_binary},
    {"ring_bench_two_lcores", test_ring_bench_two_lcores},
};

LR_TEST_MAIN("l2fwd", cases)
