/* SPDX-License-Identifier: BSD-3-Clause */
/* net_dpdk: linerate ports over DPDK ports (DPDK 22.11, Debian's dpdk-dev).
 * Each case runs in a child process of its own, since DPDK's EAL comes up
 * once per process.
 *  - ring_pair_forward: lr-l2fwd's loop over two net_dpdk ports of two
 *    queues, each over a DPDK ring port (rte_eth_from_rings): frames put
 *    as DPDK mbufs on the rx rings come out of the other port's tx ring of
 *    the same queue, every one once, intact, the very same DPDK mbuf (zero
 *    copy); linerate's, DPDK's and the forwarder's counters agree; every
 *    pool back at the end.
 *  - lr_mbufs_out: linerate mbufs (one segment and chains) sent on a
 *    net_dpdk port come out as DPDK mbufs over the same buffers; a DPDK
 *    chain received becomes a linerate chain; a full tx ring leaves the
 *    unsent packets with the caller; pools back on both sides.
 *  - null_forward: the loop over net_dpdk(net_null0) and
 *    net_dpdk([net_null1,size=128]), two queues: counters and bytes of
 *    both sides agree; a thread of ours polling a queue is a DPDK lcore
 *    after its first burst; DPDK mbufs back.
 *  - bound_headers: a DPDK mbuf of a net_dpdk port's receive pool comes
 *    with the same linerate header every time it is received (the header
 *    travels with it, dropped or forwarded), over the same buffer; the
 *    headers out are the DPDK mbufs out; the DPDK pools of a port over
 *    a vdev (DPDK's EAL without hugepages) lie in linerate's memory, every
 *    block of it back at close; every pool back at the end.
 *  - l2fwd_binary: the real lr-l2fwd on two net_dpdk(net_null) ports with
 *    2 queues for a second: clean exit, rx == tx, no mbuf left, DPDK's
 *    runtime folder removed.
 *  - memif_testpmd: lr-pktgen on net_dpdk over DPDK's net_memif client,
 *    testpmd (io) the server on the other side: every frame back once,
 *    or counted as dropped by testpmd; no mbuf left.
 *  - bad_input: unknown DPDK device, DPDK's EAL refusing its arguments,
 *    no dev=, a PCI device after a vdev-only EAL: clear errors, no port;
 *    lr-l2fwd exits non-zero naming the device.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "../apps/l2fwd/l2fwd.c"
#include "lr_eal.h"
#include "lr_eth_dpdk.h"
#include "lr_ethdev.h"
#include "lr_mbuf.h"
#include "lr_memory.h"
#include "lr_pagealloc.h"
#include "lr_test.h"

#define NQ	2
#define RINGSZ	1024
#define SEQ_OFF 14
#define FRAME	64

static struct lr_mempool *pool;
static struct rte_mempool *src; /* the test's DPDK mbufs */

/* Run fn in a child process whose EAL prefix is name's; its exit code.
 * DPDK's runtime folder of the child's prefix goes even when the child
 * failed before its cleanup. */
static int
in_child(int (*fn)(void), const char *name)
{
	char prefix[96], cmd[256];
	pid_t pid;
	int st, rc;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0)
		_exit(fn());
	if (waitpid(pid, &st, 0) != pid)
		return 1;
	lr_test_prefix_arg(prefix, sizeof(prefix), name);
	snprintf(cmd, sizeof(cmd), "rm -rf /var/run/dpdk/%s_dpdk",
		 strchr(prefix, '=') + 1);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove DPDK's runtime folder\n");
	if (WIFSIGNALED(st)) {
		fprintf(stderr, "child killed by signal %d\n", WTERMSIG(st));
		return 1;
	}
	rc = WEXITSTATUS(st);
	return rc;
}

static int
up(const char *name)
{
	if (lr_test_eal_init(name, 128) != 0)
		return -1;
	pool = lr_pktmbuf_pool_create(
	    "t_dpdk", 4096, 64, 0, LR_MBUF_DEFAULT_BUF_SIZE, LR_SOCKET_ID_ANY);
	if (pool == NULL || lr_eth_dpdk_eal_init(NULL) != 0)
		return -1;
	src = rte_pktmbuf_pool_create("t_src", 8191, 64, 0,
				      RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	return src ? 0 : -1;
}

/* Free the test's pools and stop the EAL; 0 or 1. */
static int
down(void)
{
	lr_mempool_free(pool);
	pool = NULL;
	return lr_eal_cleanup() == 0 ? 0 : 1;
}

/* Create, configure and start net_dpdk<id> over devargs' dev with nq
 * queues; the port id or -1. */
static int
port_up(const char *devargs, uint16_t nq)
{
	int p = lr_eth_dev_create(devargs);

	if (p < 0)
		return -1;
	if (lr_eth_dev_configure((uint16_t)p, nq, nq, NULL) != 0)
		return -1;
	for (uint16_t q = 0; q < nq; q++)
		if (lr_eth_rx_queue_setup((uint16_t)p, q, 512, -1, NULL,
					  pool) ||
		    lr_eth_tx_queue_setup((uint16_t)p, q, 512, -1, NULL))
			return -1;
	return lr_eth_dev_start((uint16_t)p) == 0 ? p : -1;
}

/* Every pool of port p back: 0 or -1. */
static int
port_pools_back(uint16_t p)
{
	unsigned rx, hdr, h;

	LR_TEST_ASSERT_EQ(lr_eth_dpdk_mbufs_in_use(p, &rx, &hdr, &h), 0);
	LR_TEST_ASSERT(rx == 0 && hdr == 0 && h == 0,
		       "port %u: DPDK rx %u, DPDK headers %u, lr headers %u "
		       "in use",
		       p, rx, hdr, h);
	return 0;
}

/* A DPDK frame of FRAME bytes carrying seq. */
static struct rte_mbuf *
frame(uint32_t seq)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(src);
	uint8_t *d;

	if (m == NULL)
		return NULL;
	d = (uint8_t *)rte_pktmbuf_append(m, FRAME);
	for (int i = 0; i < FRAME; i++)
		d[i] = (uint8_t)(seq * 7 + (uint32_t)i);
	memcpy(d + SEQ_OFF, &seq, sizeof(seq));
	d[12] = 0x08;
	d[13] = 0x00;
	return m;
}

/* The frame's seq if its bytes are intact, else UINT32_MAX. */
static uint32_t
frame_seq(const uint8_t *d, uint32_t len)
{
	uint32_t seq;

	if (len != FRAME)
		return UINT32_MAX;
	memcpy(&seq, d + SEQ_OFF, sizeof(seq));
	for (int i = 0; i < FRAME; i++) {
		if (i >= 12 && i < SEQ_OFF + 4)
			continue;
		if (d[i] != (uint8_t)(seq * 7 + (uint32_t)i))
			return UINT32_MAX;
	}
	return seq;
}

/* --- ring_pair_forward --- */

static struct rte_ring *rin[2][NQ], *rout[2][NQ];

static int
ring_ports(uint16_t port[2], uint16_t dpid[2])
{
	char name[64];

	for (int s = 0; s < 2; s++) {
		for (int q = 0; q < NQ; q++) {
			snprintf(name, sizeof(name), "t_in%d_%d", s, q);
			rin[s][q] =
			    rte_ring_create(name, RINGSZ, SOCKET_ID_ANY,
					    RING_F_SP_ENQ | RING_F_SC_DEQ);
			snprintf(name, sizeof(name), "t_out%d_%d", s, q);
			rout[s][q] =
			    rte_ring_create(name, RINGSZ, SOCKET_ID_ANY,
					    RING_F_SP_ENQ | RING_F_SC_DEQ);
			LR_TEST_ASSERT(rin[s][q] && rout[s][q], "rte rings");
		}
		snprintf(name, sizeof(name), "t_ring_%c", 'a' + s);
		int d = rte_eth_from_rings(name, rin[s], NQ, rout[s], NQ, 0);

		LR_TEST_ASSERT(d >= 0, "rte_eth_from_rings %s", name);
		dpid[s] = (uint16_t)d;
		snprintf(name, sizeof(name),
			 "net_dpdk%d,dev=net_ring_t_ring_%c", s, 'a' + s);
		int p = port_up(name, NQ);

		LR_TEST_ASSERT(p >= 0, "port %s", name);
		port[s] = (uint16_t)p;
		LR_TEST_ASSERT_EQ(lr_eth_dpdk_port_id(port[s]), d);
	}
	return 0;
}

/* Take what the ports sent; count frames, check each; -1 on a bad one. */
static int
ring_collect(uint8_t *seen, uint32_t nseq, uint8_t **where)
{
	void *objs[64];
	int got = 0;

	for (int s = 0; s < 2; s++) {
		for (int q = 0; q < NQ; q++) {
			unsigned n;

			while ((n = rte_ring_dequeue_burst(rout[s][q], objs, 64,
							   NULL)) != 0) {
				for (unsigned i = 0; i < n; i++) {
					struct rte_mbuf *m = objs[i];
					uint8_t *d =
					    rte_pktmbuf_mtod(m, uint8_t *);
					uint32_t seq = frame_seq(d, m->pkt_len);

					LR_TEST_ASSERT(seq < nseq,
						       "bad frame on %d/%d", s,
						       q);
					/* entered on the other side, same
					 * queue, and it is the same mbuf */
					LR_TEST_ASSERT_EQ((seq & 1) ^ 1,
							  (uint32_t)s);
					LR_TEST_ASSERT_EQ((seq >> 1) & 1,
							  (uint32_t)q);
					LR_TEST_ASSERT(where[seq] == d,
						       "frame %u copied", seq);
					LR_TEST_ASSERT(m->pool == src,
						       "frame %u: other mbuf",
						       seq);
					seen[seq]++;
				}
				rte_pktmbuf_free_bulk((struct rte_mbuf **)objs,
						      n);
				got += (int)n;
			}
		}
	}
	return got;
}

static int
ring_pair_forward_child(void)
{
	enum { NSEQ = 20000 };
	static uint8_t seen[NSEQ];
	static uint8_t *where[NSEQ];
	struct l2fwd fwd;
	uint16_t port[2], dpid[2];
	uint32_t next = 0;
	int got = 0;
	unsigned lc;

	LR_TEST_ASSERT(up("test_pmd_dpdk_ring") == 0, "EAL");
	LR_TEST_ASSERT(ring_ports(port, dpid) == 0, "ports");
	lc = lr_lcore_id();
	l2fwd_init(&fwd, 0);
	LR_TEST_ASSERT_EQ(l2fwd_pair(&fwd, port[0], port[1]), 0);
	for (uint16_t q = 0; q < NQ; q++)
		for (int s = 0; s < 2; s++)
			LR_TEST_ASSERT_EQ(
			    l2fwd_assign_queue(&fwd, lc, port[s], q), 0);
	for (int it = 0; got < NSEQ && it < 200000; it++) {
		while (next < NSEQ && next - (uint32_t)got < RINGSZ / 2) {
			struct rte_mbuf *m = frame(next);

			LR_TEST_ASSERT(m != NULL, "DPDK pool empty");
			where[next] = rte_pktmbuf_mtod(m, uint8_t *);
			LR_TEST_ASSERT_EQ(
			    rte_ring_enqueue(rin[next & 1][(next >> 1) & 1], m),
			    0);
			next++;
		}
		l2fwd_poll_once(&fwd, lc);
		l2fwd_flush(&fwd, lc);
		int n = ring_collect(seen, NSEQ, where);

		LR_TEST_ASSERT(n >= 0, "bad frame");
		got += n;
	}
	LR_TEST_ASSERT_EQ(got, NSEQ);
	for (uint32_t s = 0; s < NSEQ; s++)
		LR_TEST_ASSERT(seen[s] == 1, "frame %u seen %u times", s,
			       seen[s]);
	for (int s = 0; s < 2; s++) {
		struct l2fwd_port_stats st, other;
		struct lr_eth_stats es;
		struct rte_eth_stats ds;

		l2fwd_port_totals(&fwd, port[s], &st);
		l2fwd_port_totals(&fwd, port[s ^ 1], &other);
		LR_TEST_ASSERT_EQ(st.dropped, 0);
		LR_TEST_ASSERT_EQ(st.rx, NSEQ / 2);
		LR_TEST_ASSERT_EQ(st.tx, other.rx);
		LR_TEST_ASSERT_EQ(lr_eth_stats_get(port[s], &es), 0);
		LR_TEST_ASSERT_EQ(es.ipackets, st.rx);
		LR_TEST_ASSERT_EQ(es.opackets, st.tx);
		LR_TEST_ASSERT_EQ(es.ibytes, FRAME * st.rx);
		LR_TEST_ASSERT_EQ(es.obytes, FRAME * st.tx);
		for (int q = 0; q < NQ; q++)
			LR_TEST_ASSERT_EQ(es.q_opackets[q], NSEQ / 4);
		LR_TEST_ASSERT_EQ(rte_eth_stats_get(dpid[s], &ds), 0);
		LR_TEST_ASSERT_EQ(ds.ipackets, es.ipackets);
		LR_TEST_ASSERT_EQ(ds.opackets, es.opackets);
		LR_TEST_ASSERT(port_pools_back(port[s]) == 0, "pools");
	}
	for (int s = 0; s < 2; s++)
		LR_TEST_ASSERT_EQ(lr_eth_dev_close(port[s]), 0);
	LR_TEST_ASSERT_EQ(rte_mempool_in_use_count(src), 0);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return down();
}

/* --- lr_mbufs_out --- */

/* A linerate packet of FRAME bytes for seq, in nseg segments. */
static struct lr_mbuf *
lr_frame(uint32_t seq, unsigned nseg)
{
	struct rte_mbuf *t = frame(seq);
	struct lr_mbuf *m = NULL;
	uint32_t per = FRAME / nseg;

	if (t == NULL)
		return NULL;
	for (unsigned i = 0; i < nseg; i++) {
		struct lr_mbuf *s = lr_pktmbuf_alloc(pool);
		uint32_t len = i + 1 == nseg ? FRAME - per * i : per;

		memcpy(lr_pktmbuf_append(s, (uint16_t)len),
		       rte_pktmbuf_mtod_offset(t, char *, per *i), len);
		if (m == NULL)
			m = s;
		else
			lr_pktmbuf_chain(m, s);
	}
	rte_pktmbuf_free(t);
	return m;
}

static int
lr_mbufs_out_child(void)
{
	enum { N = 100 };
	struct rte_ring *in, *out;
	struct lr_mbuf *pk[N], *rx[8];
	uint8_t *data[N];
	void *objs[N];
	uint8_t buf[FRAME];
	int d, p;

	LR_TEST_ASSERT(up("test_pmd_dpdk_out") == 0, "EAL");
	in = rte_ring_create("t_c_in", 64, SOCKET_ID_ANY, 0);
	out = rte_ring_create("t_c_out", 64, SOCKET_ID_ANY, RING_F_EXACT_SZ);
	LR_TEST_ASSERT(in && out, "rings");
	d = rte_eth_from_rings("t_ring_c", &in, 1, &out, 1, 0);
	LR_TEST_ASSERT(d >= 0, "DPDK ring port");
	p = port_up("net_dpdk0,dev=net_ring_t_ring_c", 1);
	LR_TEST_ASSERT(p >= 0, "port");
	/* One-segment and 3-segment packets, more than the ring holds. */
	for (uint32_t i = 0; i < N; i++) {
		pk[i] = lr_frame(i, i % 2 ? 3 : 1);
		LR_TEST_ASSERT(pk[i] != NULL, "lr frame");
		data[i] = lr_pktmbuf_mtod(pk[i], uint8_t *);
	}
	uint16_t sent = lr_eth_tx_burst((uint16_t)p, 0, pk, N);

	LR_TEST_ASSERT_EQ(sent, 64);
	uint64_t att = 0;

	/* counted as sent, not as attached and given back */
	LR_TEST_ASSERT_EQ(
	    lr_eth_xstats_get_by_name((uint16_t)p, "tx_attached", &att), 0);
	LR_TEST_ASSERT_EQ(att, 64);
	/* The unsent are the caller's still, unchanged. */
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 64 * 2 + 36 * 2);
	unsigned n = rte_ring_dequeue_burst(out, objs, N, NULL);

	LR_TEST_ASSERT_EQ(n, 64);
	for (unsigned i = 0; i < n; i++) {
		struct rte_mbuf *m = objs[i];
		const uint8_t *b = rte_pktmbuf_read(m, 0, FRAME, buf);

		LR_TEST_ASSERT(RTE_MBUF_HAS_EXTBUF(m), "not attached");
		LR_TEST_ASSERT_EQ(m->nb_segs, i % 2 ? 3 : 1);
		LR_TEST_ASSERT(rte_pktmbuf_mtod(m, uint8_t *) == data[i],
			       "packet %u copied", i);
		LR_TEST_ASSERT_EQ(frame_seq(b, m->pkt_len), i);
	}
	rte_pktmbuf_free_bulk((struct rte_mbuf **)objs, n);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 36 * 2);
	lr_pktmbuf_free_bulk(pk + 64, N - 64);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);

	/* A DPDK chain in: a linerate chain over the same buffers. */
	struct rte_mbuf *c = frame(7), *c2 = rte_pktmbuf_alloc(src);

	LR_TEST_ASSERT(c && c2, "DPDK mbufs");
	memcpy(rte_pktmbuf_append(c2, 20), "twenty bytes of tail", 20);
	LR_TEST_ASSERT_EQ(rte_pktmbuf_chain(c, c2), 0);
	const uint8_t *tail = rte_pktmbuf_mtod(c2, uint8_t *);

	LR_TEST_ASSERT_EQ(rte_ring_enqueue(in, c), 0);
	LR_TEST_ASSERT_EQ(lr_eth_rx_burst((uint16_t)p, 0, rx, 8), 1);
	LR_TEST_ASSERT_EQ(rx[0]->nb_segs, 2);
	LR_TEST_ASSERT_EQ(rx[0]->pkt_len, FRAME + 20);
	LR_TEST_ASSERT(rx[0]->next->buf_addr == c2->buf_addr &&
			   lr_pktmbuf_mtod(rx[0]->next, uint8_t *) == tail,
		       "chain copied");
	LR_TEST_ASSERT_EQ(lr_mbuf_validate(rx[0]), 0);
	LR_TEST_ASSERT_EQ(
	    frame_seq(lr_pktmbuf_mtod(rx[0], uint8_t *), rx[0]->data_len), 7);
	/* and out again: attached headers over those buffers */
	LR_TEST_ASSERT_EQ(lr_eth_tx_burst((uint16_t)p, 0, rx, 1), 1);
	LR_TEST_ASSERT_EQ(rte_ring_dequeue(out, objs), 0);
	struct rte_mbuf *o = objs[0];

	LR_TEST_ASSERT_EQ(o->nb_segs, 2);
	LR_TEST_ASSERT_EQ(o->pkt_len, FRAME + 20);
	LR_TEST_ASSERT(rte_pktmbuf_mtod(o->next, const uint8_t *) == tail,
		       "tail copied");
	LR_TEST_ASSERT(memcmp(tail, "twenty bytes of tail", 20) == 0, "tail");
	/* c and c2 stay out until o goes */
	LR_TEST_ASSERT_EQ(rte_mempool_in_use_count(src), 2);
	rte_pktmbuf_free(o);
	LR_TEST_ASSERT_EQ(rte_mempool_in_use_count(src), 0);
	LR_TEST_ASSERT(port_pools_back((uint16_t)p) == 0, "pools");
	/* RSS hash and VLAN carried on receive */
	c = frame(8);
	c->ol_flags |= RTE_MBUF_F_RX_RSS_HASH | RTE_MBUF_F_RX_VLAN;
	c->hash.rss = 0x12345678;
	c->vlan_tci = 42;
	LR_TEST_ASSERT_EQ(rte_ring_enqueue(in, c), 0);
	LR_TEST_ASSERT_EQ(lr_eth_rx_burst((uint16_t)p, 0, rx, 8), 1);
	LR_TEST_ASSERT_EQ(rx[0]->ol_flags,
			  LR_MBUF_F_RX_RSS_HASH | LR_MBUF_F_RX_VLAN);
	LR_TEST_ASSERT_EQ(rx[0]->hash_rss, 0x12345678);
	LR_TEST_ASSERT_EQ(rx[0]->vlan_tci, 42);
	lr_pktmbuf_free(rx[0]);
	LR_TEST_ASSERT_EQ(rte_mempool_in_use_count(src), 0);
	LR_TEST_ASSERT_EQ(lr_eth_dev_close((uint16_t)p), 0);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return down();
}

/* --- null_forward --- */

/* A thread of ours polling a net_dpdk queue: it becomes a DPDK lcore. */
struct poller {
	uint16_t rx_port, tx_port;
	unsigned rte_id;
	unsigned moved;
};

static void *
poller_main(void *arg)
{
	struct poller *pl = arg;
	struct lr_mbuf *pk[32];

	if (lr_thread_register() < 0)
		return NULL;
	pl->rte_id = rte_lcore_id();
	uint16_t n = lr_eth_rx_burst(pl->rx_port, 1, pk, 32);
	uint16_t k = lr_eth_tx_burst(pl->tx_port, 1, pk, n);

	lr_pktmbuf_free_bulk(pk + k, n - k);
	pl->moved = n;
	/* after the first burst the thread has a DPDK lcore id */
	if (pl->rte_id == LCORE_ID_ANY)
		pl->rte_id = rte_lcore_id();
	else
		pl->rte_id = LCORE_ID_ANY - 1; /* it had one already: wrong */
	lr_thread_unregister();
	return NULL;
}

static int
null_forward_child(void)
{
	struct l2fwd fwd;
	int p0, p1;
	unsigned lc;

	LR_TEST_ASSERT(up("test_pmd_dpdk_null") == 0, "EAL");
	p0 = port_up("net_dpdk0,dev=net_null0", NQ);
	p1 = port_up("net_dpdk1,dev=[net_null1,size=128]", NQ);
	LR_TEST_ASSERT(p0 >= 0 && p1 >= 0, "ports");
	lc = lr_lcore_id();
	l2fwd_init(&fwd, 1);
	LR_TEST_ASSERT_EQ(l2fwd_pair(&fwd, (uint16_t)p0, (uint16_t)p1), 0);
	for (uint16_t q = 0; q < NQ; q++) {
		LR_TEST_ASSERT_EQ(l2fwd_assign_queue(&fwd, lc, (uint16_t)p0, q),
				  0);
		LR_TEST_ASSERT_EQ(l2fwd_assign_queue(&fwd, lc, (uint16_t)p1, q),
				  0);
	}
	for (int i = 0; i < 2000; i++)
		l2fwd_poll_once(&fwd, lc);
	l2fwd_flush(&fwd, lc);
	uint16_t ports[2] = {(uint16_t)p0, (uint16_t)p1};
	uint32_t size[2] = {64, 128};

	for (int s = 0; s < 2; s++) {
		struct l2fwd_port_stats st, other;
		struct lr_eth_stats es;
		struct rte_eth_stats ds;

		l2fwd_port_totals(&fwd, ports[s], &st);
		l2fwd_port_totals(&fwd, ports[s ^ 1], &other);
		LR_TEST_ASSERT(st.rx > 0, "nothing received");
		LR_TEST_ASSERT_EQ(st.dropped, 0);
		LR_TEST_ASSERT_EQ(other.tx, st.rx);
		LR_TEST_ASSERT_EQ(lr_eth_stats_get(ports[s], &es), 0);
		LR_TEST_ASSERT_EQ(es.ipackets, st.rx);
		LR_TEST_ASSERT_EQ(es.ibytes, size[s] * st.rx);
		LR_TEST_ASSERT_EQ(es.opackets, st.tx);
		LR_TEST_ASSERT_EQ(es.obytes, size[s ^ 1] * st.tx);
		LR_TEST_ASSERT_EQ(
		    rte_eth_stats_get((uint16_t)lr_eth_dpdk_port_id(ports[s]),
				      &ds),
		    0);
		LR_TEST_ASSERT_EQ(ds.ipackets, es.ipackets);
		LR_TEST_ASSERT_EQ(ds.opackets, es.opackets);
		uint64_t v = 0;

		LR_TEST_ASSERT_EQ(lr_eth_xstats_get_by_name(
				      ports[s], "dpdk_rx_good_packets", &v),
				  0);
		LR_TEST_ASSERT_EQ(v, ds.ipackets);
	}
	/* A registered thread of ours polling: registered with DPDK too. */
	struct poller pl = {(uint16_t)p0, (uint16_t)p1, 0, 0};
	pthread_t th;

	LR_TEST_ASSERT_EQ(pthread_create(&th, NULL, poller_main, &pl), 0);
	LR_TEST_ASSERT_EQ(pthread_join(th, NULL), 0);
	LR_TEST_ASSERT(pl.moved > 0, "poller received nothing");
	LR_TEST_ASSERT(pl.rte_id < RTE_MAX_LCORE && pl.rte_id != 0,
		       "poller's DPDK lcore id %u", pl.rte_id);
	for (int s = 0; s < 2; s++) {
		LR_TEST_ASSERT_EQ(lr_eth_dev_stop(ports[s]), 0);
		LR_TEST_ASSERT(port_pools_back(ports[s]) == 0, "pools");
		LR_TEST_ASSERT_EQ(lr_eth_dev_close(ports[s]), 0);
	}
	/* closed ports free their DPDK devices: the names may come back */
	p0 = port_up("net_dpdk0,dev=net_null0", 1);
	LR_TEST_ASSERT(p0 >= 0, "port again");
	LR_TEST_ASSERT_EQ(lr_eth_dev_close((uint16_t)p0), 0);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return down();
}

/* --- bound_headers --- */

/* The DPDK mbuf a net_dpdk header carries (the driver's private area). */
#define HDR_RTE(m) (*(struct rte_mbuf **)lr_mbuf_to_priv(m))

static int
bound_headers_child(void)
{
	enum { ROUNDS = 300, BURST = 32, MAXX = 8192 };
	static struct rte_mbuf *xs[MAXX];
	static struct lr_mbuf *hs[MAXX];
	unsigned nx = 0, again = 0;
	struct lr_mbuf *pk[BURST];
	struct lr_pagealloc_stats st;
	uint64_t blocks0, blocks;
	int p0, p1;

	LR_TEST_ASSERT(up("test_pmd_dpdk_bound") == 0, "EAL");
	lr_pagealloc_stats_get(&st);
	blocks0 = st.alloc[LR_PAGEBLOCK_ORDER] - st.free[LR_PAGEBLOCK_ORDER];
	p0 = port_up("net_dpdk0,dev=net_null0", 1);
	p1 = port_up("net_dpdk1,dev=net_null1", 1);
	LR_TEST_ASSERT(p0 >= 0 && p1 >= 0, "ports");
	LR_TEST_ASSERT(!rte_eal_has_hugepages(), "DPDK on hugepages");
	lr_pagealloc_stats_get(&st);
	blocks = st.alloc[LR_PAGEBLOCK_ORDER] - st.free[LR_PAGEBLOCK_ORDER];
	LR_TEST_ASSERT(blocks > blocks0,
		       "no block of linerate's memory for DPDK's pools");
	for (int r = 0; r < ROUNDS; r++) {
		uint16_t n = lr_eth_rx_burst((uint16_t)p0, 0, pk, BURST);
		unsigned rx, hdr, h;

		LR_TEST_ASSERT(n > 0, "round %d: nothing received", r);
		LR_TEST_ASSERT_EQ(
		    lr_eth_dpdk_mbufs_in_use((uint16_t)p0, &rx, &hdr, &h), 0);
		LR_TEST_ASSERT(rx == n && h == n,
			       "round %d: %u received, DPDK rx %u and "
			       "headers %u out",
			       r, n, rx, h);
		for (uint16_t i = 0; i < n; i++) {
			struct rte_mbuf *x = HDR_RTE(pk[i]);
			unsigned j = 0;

			LR_TEST_ASSERT(x != NULL &&
					   x->buf_addr == pk[i]->buf_addr,
				       "header over another buffer");
			LR_TEST_ASSERT(lr_memseg_find(x) != NULL &&
					   lr_memseg_find(x->buf_addr) != NULL,
				       "DPDK mbuf %p outside linerate's memory",
				       (void *)x);
			while (j < nx && xs[j] != x)
				j++;
			if (j < nx) {
				LR_TEST_ASSERT(hs[j] == pk[i],
					       "round %d: DPDK mbuf %p came "
					       "with header %p, before with %p",
					       r, (void *)x, (void *)pk[i],
					       (void *)hs[j]);
				again++;
				continue;
			}
			LR_TEST_ASSERT(nx < MAXX, "too many DPDK mbufs");
			xs[nx] = x;
			hs[nx++] = pk[i];
		}
		/* Dropped or forwarded, the header goes with its mbuf. */
		if (r % 2)
			LR_TEST_ASSERT_EQ(
			    lr_eth_tx_burst((uint16_t)p1, 0, pk, n), n);
		else
			lr_pktmbuf_free_bulk(pk, n);
	}
	/* DPDK's per-lcore cache hands its mbufs out again and again. */
	LR_TEST_ASSERT(again > ROUNDS, "only %u DPDK mbufs received again",
		       again);
	for (int s = 0; s < 2; s++) {
		uint16_t pt = (uint16_t)(s ? p1 : p0);

		LR_TEST_ASSERT_EQ(lr_eth_dev_stop(pt), 0);
		LR_TEST_ASSERT(port_pools_back(pt) == 0, "pools");
		LR_TEST_ASSERT_EQ(lr_eth_dev_close(pt), 0);
	}
	lr_pagealloc_stats_get(&st);
	LR_TEST_ASSERT_EQ(st.alloc[LR_PAGEBLOCK_ORDER] -
			      st.free[LR_PAGEBLOCK_ORDER],
			  blocks0);
	return down();
}

/* --- bound_tx --- */

/* Receive a full burst of BURST bound headers on port p into pk, their
 * DPDK mbufs into x; 0 or -1. */
static int
rx_bound(uint16_t p, struct lr_mbuf **pk, struct rte_mbuf **x, uint16_t n)
{
	LR_TEST_ASSERT_EQ(lr_eth_rx_burst(p, 0, pk, n), n);
	for (uint16_t i = 0; i < n; i++) {
		x[i] = HDR_RTE(pk[i]);
		LR_TEST_ASSERT(x[i] != NULL, "no DPDK mbuf under %u", i);
	}
	return 0;
}

/* Received packets of a net_null port sent out of a net_ring port, in
 * bursts of bound headers only (dpdk_tx's fast path) and mixed with a
 * linerate packet and an offload request: each goes out as its own DPDK
 * mbuf with the data offset, lengths and VLAN request the program left in
 * its header, the linerate one attached; what the ring refuses is not
 * counted; every pool back. */
static int
bound_tx_child(void)
{
	enum { B = 32 };
	struct lr_mbuf *pk[B], *out[B + 1];
	struct rte_mbuf *x[B], *got[2 * B + 1];
	struct rte_ring *in, *ro;
	struct lr_eth_stats st;
	uint64_t att = 0, bytes = 0;
	uint16_t pn, pr;
	int d, p0, p1;

	LR_TEST_ASSERT(up("test_pmd_dpdk_btx") == 0, "EAL");
	in = rte_ring_create("t_b_in", 64, SOCKET_ID_ANY, 0);
	ro = rte_ring_create("t_b_out", 2 * B, SOCKET_ID_ANY, RING_F_EXACT_SZ);
	LR_TEST_ASSERT(in && ro, "rings");
	d = rte_eth_from_rings("t_ring_b", &in, 1, &ro, 1, 0);
	LR_TEST_ASSERT(d >= 0, "DPDK ring port");
	p0 = port_up("net_dpdk0,dev=[net_null0,size=64]", 1);
	p1 = port_up("net_dpdk1,dev=net_ring_t_ring_b", 1);
	LR_TEST_ASSERT(p0 >= 0 && p1 >= 0, "ports");
	pn = (uint16_t)p0;
	pr = (uint16_t)p1;

	/* Mixed: bound, bound cut by 4 bytes, bound asking for a VLAN tag,
	 * ..., a linerate packet at 5, bound again. */
	LR_TEST_ASSERT(rx_bound(pn, pk, x, B) == 0, "rx");
	LR_TEST_ASSERT(lr_pktmbuf_adj(pk[1], 4) != NULL, "adj");
	pk[2]->ol_flags |= LR_MBUF_F_TX_VLAN;
	pk[2]->vlan_tci = 7;
	for (int i = 0, j = 0; i <= B; i++)
		out[i] = i == 5 ? lr_frame(5, 1) : pk[j++];
	LR_TEST_ASSERT(out[5] != NULL, "lr frame");
	for (int i = 0; i <= B; i++)
		bytes += out[i]->pkt_len;
	LR_TEST_ASSERT_EQ(lr_eth_tx_burst(pr, 0, out, B + 1), B + 1);
	LR_TEST_ASSERT_EQ(rte_ring_dequeue_bulk(ro, (void **)got, B + 1, NULL),
			  B + 1);
	for (int i = 0, j = 0; i <= B; i++) {
		struct rte_mbuf *g = got[i];

		if (i == 5) {
			LR_TEST_ASSERT(RTE_MBUF_HAS_EXTBUF(g), "not attached");
			LR_TEST_ASSERT_EQ(g->pkt_len, FRAME);
			continue;
		}
		LR_TEST_ASSERT(g == x[j], "packet %d: not its DPDK mbuf", i);
		LR_TEST_ASSERT_EQ(g->data_off,
				  RTE_PKTMBUF_HEADROOM + (j == 1 ? 4 : 0));
		LR_TEST_ASSERT_EQ(g->pkt_len, j == 1 ? 60u : 64u);
		LR_TEST_ASSERT_EQ(g->data_len, j == 1 ? 60 : 64);
		LR_TEST_ASSERT_EQ(!!(g->ol_flags & RTE_MBUF_F_TX_VLAN), j == 2);
		if (j == 2)
			LR_TEST_ASSERT_EQ(g->vlan_tci, 7);
		j++;
	}
	rte_pktmbuf_free_bulk(got, B + 1);
	LR_TEST_ASSERT_EQ(lr_eth_xstats_get_by_name(pr, "tx_attached", &att),
			  0);
	LR_TEST_ASSERT_EQ(att, 1);

	/* Bound only, twice (the ring is then full), one cut by 2 bytes;
	 * a third burst the ring refuses whole. */
	for (int r = 0; r < 3; r++) {
		LR_TEST_ASSERT(rx_bound(pn, pk, x, B) == 0, "rx");
		LR_TEST_ASSERT(lr_pktmbuf_adj(pk[3], 2) != NULL, "adj");
		uint16_t sent = lr_eth_tx_burst(pr, 0, pk, B);

		LR_TEST_ASSERT_EQ(sent, r < 2 ? B : 0);
		if (r < 2)
			bytes += 31 * 64 + 62;
		else
			lr_pktmbuf_free_bulk(pk, B);
	}
	LR_TEST_ASSERT_EQ(rte_ring_dequeue_bulk(ro, (void **)got, 2 * B, NULL),
			  2 * B);
	for (int i = 0; i < 2 * B; i++) {
		LR_TEST_ASSERT_EQ(got[i]->data_off,
				  RTE_PKTMBUF_HEADROOM + (i % B == 3 ? 2 : 0));
		LR_TEST_ASSERT_EQ(got[i]->pkt_len, i % B == 3 ? 62u : 64u);
		LR_TEST_ASSERT_EQ(got[i]->data_len, i % B == 3 ? 62 : 64);
		LR_TEST_ASSERT_EQ(got[i]->ol_flags & RTE_MBUF_F_TX_VLAN, 0);
	}
	rte_pktmbuf_free_bulk(got, 2 * B);
	LR_TEST_ASSERT_EQ(lr_eth_stats_get(pr, &st), 0);
	LR_TEST_ASSERT_EQ(st.opackets, 3 * B + 1);
	LR_TEST_ASSERT_EQ(st.obytes, bytes);
	LR_TEST_ASSERT_EQ(lr_eth_xstats_get_by_name(pr, "tx_attached", &att),
			  0);
	LR_TEST_ASSERT_EQ(att, 1);
	for (int s = 0; s < 2; s++) {
		uint16_t pt = s ? pr : pn;

		LR_TEST_ASSERT_EQ(lr_eth_dev_stop(pt), 0);
		LR_TEST_ASSERT(port_pools_back(pt) == 0, "pools");
		LR_TEST_ASSERT_EQ(lr_eth_dev_close(pt), 0);
	}
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return down();
}

/* A net_dpdk port (devargs extra) over a DPDK ring port t_ring_<tag>
 * made of two rings; *in: the ring it receives from, *rxp: its DPDK
 * receive pool. The port id, or -1 after saying why. */
static int
ring_port(const char *tag, const char *extra, struct rte_ring **in,
	  struct rte_mempool **rxp)
{
	char name[RTE_MEMPOOL_NAMESIZE], dev[96];
	struct rte_ring *ro;
	int p;

	snprintf(name, sizeof(name), "t_%s_in", tag);
	*in = rte_ring_create(name, 64, SOCKET_ID_ANY, 0);
	snprintf(name, sizeof(name), "t_%s_out", tag);
	ro = rte_ring_create(name, 64, SOCKET_ID_ANY, RING_F_EXACT_SZ);
	snprintf(name, sizeof(name), "t_ring_%s", tag);
	if (*in == NULL || ro == NULL ||
	    rte_eth_from_rings(name, in, 1, &ro, 1, 0) < 0) {
		fprintf(stderr, "DPDK ring port %s: %s\n", name,
			rte_strerror(rte_errno));
		return -1;
	}
	snprintf(dev, sizeof(dev), "net_dpdk0,dev=net_ring_%s%s", name, extra);
	p = port_up(dev, 1);
	if (p < 0)
		return -1;
	snprintf(name, sizeof(name), "lr_rx_%d", p);
	*rxp = rte_mempool_lookup(name);
	if (*rxp == NULL) {
		fprintf(stderr, "no DPDK pool %s\n", name);
		return -1;
	}
	return p;
}

/* --- attached_rx --- */

static int ext_freed; /* the external buffer's free callback ran */

static void
ext_buf_free(void *addr, void *opaque)
{
	(void)addr;
	(void)opaque;
	ext_freed++;
}

/* A mbuf of the port's own DPDK receive pool that arrives attached to an
 * external buffer (as mlx5's multi-packet receive queues hand theirs out)
 * comes under a header over that buffer, and its bound header keeps the
 * mbuf's own buffer for when it arrives direct again. */
static int
attached_rx_child(void)
{
	static uint8_t ext[2048] __attribute__((aligned(64)));
	struct rte_mbuf_ext_shared_info sh = {.free_cb = ext_buf_free};
	struct rte_ring *in;
	struct rte_mempool *rxp;
	struct rte_mbuf *x, *f;
	struct lr_mbuf *rx[4];
	int p;

	LR_TEST_ASSERT(up("test_pmd_dpdk_att") == 0, "EAL");
	p = ring_port("a", "", &in, &rxp);
	LR_TEST_ASSERT(p >= 0, "port");

	/* round 0: x over the external buffer; 1: x direct */
	for (int round = 0; round < 2; round++) {
		x = rte_pktmbuf_alloc(rxp);
		f = frame(9);
		LR_TEST_ASSERT(x && f, "DPDK mbufs");
		char *own = x->buf_addr;

		if (round == 0) {
			rte_mbuf_ext_refcnt_set(&sh, 1);
			rte_pktmbuf_attach_extbuf(x, ext, 0, sizeof(ext), &sh);
		}
		memcpy(rte_pktmbuf_append(x, FRAME),
		       rte_pktmbuf_mtod(f, void *), FRAME);
		rte_pktmbuf_free(f);
		LR_TEST_ASSERT_EQ(rte_ring_enqueue(in, x), 0);
		LR_TEST_ASSERT_EQ(lr_eth_rx_burst((uint16_t)p, 0, rx, 4), 1);
		LR_TEST_ASSERT(HDR_RTE(rx[0]) == x, "not x's header");
		LR_TEST_ASSERT(rx[0]->buf_addr == x->buf_addr &&
				   rx[0]->buf_len == x->buf_len,
			       "round %d: header over %p, x over %p", round,
			       rx[0]->buf_addr, x->buf_addr);
		LR_TEST_ASSERT((round == 0) ==
				   ((char *)x->buf_addr == (char *)ext),
			       "round %d: x over the wrong buffer", round);
		LR_TEST_ASSERT(round == 0 || x->buf_addr == own,
			       "x over another buffer");
		LR_TEST_ASSERT_EQ(frame_seq(lr_pktmbuf_mtod(rx[0], uint8_t *),
					    rx[0]->data_len),
				  9);
		lr_pktmbuf_free(rx[0]);
		LR_TEST_ASSERT_EQ(ext_freed, 1);
		LR_TEST_ASSERT_EQ(rte_mempool_in_use_count(src), 0);
		LR_TEST_ASSERT(port_pools_back((uint16_t)p) == 0, "pools");
	}
	LR_TEST_ASSERT_EQ(lr_eth_dev_close((uint16_t)p), 0);
	return down();
}

/* --- indirect_rx --- */

/* Takes mbufs of pool mp until both a and b are among them (they were
 * just freed into it); the others go back. 0, or -1 if they never came. */
static int
take_back(struct rte_mempool *mp, struct rte_mbuf *a, struct rte_mbuf *b)
{
	static struct rte_mbuf *held[8192];
	unsigned n = 0, found = 0;

	while (found < 2 && n < LR_DIM(held)) {
		struct rte_mbuf *x = rte_pktmbuf_alloc(mp);

		if (x == NULL)
			break;
		if (x == a || x == b)
			found++;
		else
			held[n++] = x;
	}
	for (unsigned i = 0; i < n; i++)
		rte_pktmbuf_free(held[i]);
	return found == 2 ? 0 : -1;
}

/* A mbuf of the port's receive pool attached to another of that pool
 * (rte_pktmbuf_attach(), as a clone or a driver that shares receive
 * buffers makes them) arrives under a header of its own; once detached
 * and received direct again, each of the two has its own bound header
 * (rte_pktmbuf_attach() copies DPDK's dynamic fields into the indirect
 * mbuf, so the binding must not live in one). */
static int
indirect_rx_child(void)
{
	struct rte_ring *in;
	struct rte_mempool *rxp;
	struct rte_mbuf *a, *b, *f;
	struct lr_mbuf *rx[4];
	int p;

	LR_TEST_ASSERT(up("test_pmd_dpdk_ind") == 0, "EAL");
	p = ring_port("i", ",mbufs=512", &in, &rxp);
	LR_TEST_ASSERT(p >= 0, "port");

	a = rte_pktmbuf_alloc(rxp);
	b = rte_pktmbuf_alloc(rxp);
	f = frame(1);
	LR_TEST_ASSERT(a && b && f, "DPDK mbufs");
	memcpy(rte_pktmbuf_append(a, FRAME), rte_pktmbuf_mtod(f, void *),
	       FRAME);
	rte_pktmbuf_free(f);
	rte_pktmbuf_attach(b, a); /* b indirect, over a's buffer */
	LR_TEST_ASSERT_EQ(rte_ring_enqueue(in, b), 0);
	LR_TEST_ASSERT_EQ(lr_eth_rx_burst((uint16_t)p, 0, rx, 4), 1);
	LR_TEST_ASSERT(HDR_RTE(rx[0]) == b, "not b's header");
	LR_TEST_ASSERT_EQ(frame_seq(lr_pktmbuf_mtod(rx[0], uint8_t *),
				    rx[0]->data_len),
			  1);
	lr_pktmbuf_free(rx[0]); /* b detached, back in the pool */
	rte_pktmbuf_free(a);
	LR_TEST_ASSERT(port_pools_back((uint16_t)p) == 0, "pools");

	/* Both direct now, received in one burst. */
	LR_TEST_ASSERT(take_back(rxp, a, b) == 0, "a and b not in the pool");
	for (uint32_t i = 0; i < 2; i++) {
		struct rte_mbuf *x = i ? b : a;

		f = frame(2 + i);
		LR_TEST_ASSERT(f != NULL, "DPDK mbuf");
		memcpy(rte_pktmbuf_append(x, FRAME),
		       rte_pktmbuf_mtod(f, void *), FRAME);
		rte_pktmbuf_free(f);
		LR_TEST_ASSERT_EQ(rte_ring_enqueue(in, x), 0);
	}
	LR_TEST_ASSERT_EQ(lr_eth_rx_burst((uint16_t)p, 0, rx, 4), 2);
	LR_TEST_ASSERT(rx[0] != rx[1], "a and b came under one header %p",
		       (void *)rx[0]);
	for (uint32_t i = 0; i < 2; i++) {
		LR_TEST_ASSERT(HDR_RTE(rx[i]) == (i ? b : a),
			       "header %u carries another DPDK mbuf", i);
		LR_TEST_ASSERT(rx[i]->buf_addr == HDR_RTE(rx[i])->buf_addr,
			       "header %u over another buffer", i);
		LR_TEST_ASSERT_EQ(frame_seq(lr_pktmbuf_mtod(rx[i], uint8_t *),
					    rx[i]->data_len),
				  2 + i);
	}
	lr_pktmbuf_free_bulk(rx, 2);
	LR_TEST_ASSERT(port_pools_back((uint16_t)p) == 0, "pools");
	LR_TEST_ASSERT_EQ(lr_eth_dev_close((uint16_t)p), 0);
	return down();
}

/* --- the lr-l2fwd binary --- */

static char l2fwd_bin[4096];

static int
find_l2fwd(void)
{
	return lr_test_build_path(l2fwd_bin, sizeof(l2fwd_bin),
				  "apps/l2fwd/lr-l2fwd");
}

/* Run lr-l2fwd with argv (after its path); output into out; exit code. */
static int
run_l2fwd(char **args, char *out, size_t len)
{
	struct lr_test_child c;
	char *argv[32];
	int n = 0;

	argv[n++] = l2fwd_bin;
	for (int i = 0; args[i] != NULL; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	if (lr_test_spawn(&c, l2fwd_bin, argv, out, len) != 0)
		return -1;
	return lr_test_child_finish(&c, 120);
}

static int
test_l2fwd_binary(void)
{
	static char out[1 << 16];
	char prefix[96], dir[256];
	unsigned long long rx, tx, drop;
	const char *t;
	struct stat sb;

	if (find_l2fwd() != 0)
		return LR_TEST_SKIP;
	lr_test_prefix_arg(prefix, sizeof(prefix), "test_pmd_dpdk_bin");
	char *args[] = {"-l",	     "0",
			"--no-huge", "-m",
			"128",	     prefix,
			"--vdev",    "net_dpdk0,dev=net_null0",
			"--vdev",    "net_dpdk1,dev=[net_null1,size=128]",
			"--",	     "-p",
			"3",	     "-Q",
			"2",	     "-T",
			"0",	     "--duration",
			"1",	     NULL};
	int rc = run_l2fwd(args, out, sizeof(out));

	LR_TEST_ASSERT(rc == 0, "lr-l2fwd exit %d:\n%s", rc, out);
	t = strstr(out, "l2fwd total: ");
	LR_TEST_ASSERT(t != NULL, "no total line:\n%s", out);
	LR_TEST_ASSERT_EQ(sscanf(t, "l2fwd total: rx=%llu tx=%llu dropped=%llu",
				 &rx, &tx, &drop),
			  3);
	LR_TEST_ASSERT(rx > 0 && rx == tx && drop == 0, "rx %llu tx %llu", rx,
		       tx);
	LR_TEST_ASSERT(strstr(out, "mbufs in use after stop: 0"), "mbufs");
	snprintf(dir, sizeof(dir), "/var/run/dpdk/%s_dpdk",
		 strchr(prefix, '=') + 1);
	LR_TEST_ASSERT(stat(dir, &sb) != 0, "%s left behind", dir);
	return 0;
}

/* --- lr-pktgen over net_dpdk(net_memif client) to testpmd --- */

/* dpdk-testpmd on PATH into buf; 0 or -1. */
static int
find_testpmd(char *buf, size_t len)
{
	const char *path = getenv("PATH");
	char dirs[4096];

	snprintf(dirs, sizeof(dirs), "%s", path ? path : "/usr/bin:/bin");
	for (char *d = strtok(dirs, ":"); d != NULL; d = strtok(NULL, ":")) {
		snprintf(buf, len, "%s/dpdk-testpmd", d);
		if (access(buf, X_OK) == 0)
			return 0;
	}
	return -1;
}

/* The number after the last "key" in text, or -1. */
static long long
last_number(const char *text, const char *key)
{
	const char *p = text, *hit = NULL;

	while ((p = strstr(p, key)) != NULL)
		hit = p++;
	return hit ? strtoll(hit + strlen(key), NULL, 10) : -1;
}

/* Read file f into buf until it holds needle (up to 60 s, while process
 * pid, if > 0, lives); 0, or -1 with what was read. */
static int
wait_file(const char *f, const char *needle, pid_t pid, char *buf, size_t len)
{
	double end = lr_test_now() + 60;

	do {
		FILE *fp = fopen(f, "r");
		size_t n = fp ? fread(buf, 1, len - 1, fp) : 0;

		if (fp != NULL)
			fclose(fp);
		buf[n] = '\0';
		if (strstr(buf, needle) != NULL)
			return 0;
		if (pid > 0) {
			siginfo_t si = {0};

			/* exited? (not reaped: the caller wants its status) */
			if (waitid(P_PID, (id_t)pid, &si,
				   WEXITED | WNOHANG | WNOWAIT) == 0 &&
			    si.si_pid == pid)
				return -1;
		}
		poll(NULL, 0, 20);
	} while (pid > 0 && lr_test_now() < end);
	return -1;
}

/* testpmd (io, its memif server port forwarding to itself) and lr-pktgen
 * on a net_dpdk port over DPDK's net_memif client: every frame comes back
 * once, except those testpmd could not send back (its tx ring full while
 * the generator was descheduled), which it counts; no mbuf left. */
static int
memif_testpmd_once(bool *peer_crashed)
{
	static char out[1 << 16], tpo[1 << 20];
	char tp[256], pg[4096], sock[128], vdev[256], dev[300], p1[96], p2[96];
	struct lr_test_child c;
	unsigned long long tx, rx, dup, lost;
	char tlog[128];
	int rc, pfd[2];
	pid_t tpid;

	if (find_l2fwd() != 0 || find_testpmd(tp, sizeof(tp)) != 0 ||
	    sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		printf("skip: needs dpdk-testpmd (Debian: dpdk) and 2 CPUs\n");
		return LR_TEST_SKIP;
	}
	snprintf(pg, sizeof(pg), "%s", l2fwd_bin);
	strcpy(strrchr(pg, '/') - strlen("l2fwd"), "pktgen/lr-pktgen");
	snprintf(sock, sizeof(sock), "/tmp/test_pmd_dpdk_%d.sock",
		 (int)getpid());
	unlink(sock);
	snprintf(vdev, sizeof(vdev),
		 "net_memif0,role=server,socket=%s,socket-abstract=no", sock);
	lr_test_prefix_arg(p1, sizeof(p1), "test_pmd_dpdk_tp");
	char *targv[] = {"stdbuf",
			 "-oL",
			 tp,
			 "-l",
			 "0,1",
			 "--no-huge",
			 "-m",
			 "256",
			 p1,
			 "--no-pci",
			 "--vdev",
			 vdev,
			 "--",
			 "--forward-mode=io",
			 "-a",
			 "--nb-cores=1",
			 "--total-num-mbufs=8192",
			 NULL};

	/* testpmd runs until a line comes on its stdin (then it stops,
	 * prints its totals and exits 0); its output goes to tlog. */
	snprintf(tlog, sizeof(tlog), "/tmp/test_pmd_dpdk_%d.log",
		 (int)getpid());
	LR_TEST_ASSERT_EQ(pipe(pfd), 0);
	fflush(NULL);
	tpid = fork();
	LR_TEST_ASSERT(tpid >= 0, "fork");
	if (tpid == 0) {
		int fd = open(tlog, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		dup2(pfd[0], 0);
		dup2(fd, 1);
		dup2(fd, 2);
		close(pfd[1]);
		execvp("stdbuf", targv);
		execv(tp, targv + 2);
		_exit(127);
	}
	close(pfd[0]);
	rc = wait_file(tlog, "Press enter to exit", tpid, tpo, sizeof(tpo));
	if (rc != 0) {
		close(pfd[1]);
		kill(tpid, SIGKILL);
		waitpid(tpid, NULL, 0);
		unlink(tlog);
		LR_TEST_ASSERT(0, "testpmd did not start:\n%s", tpo);
	}
	snprintf(dev, sizeof(dev),
		 "net_dpdk0,dev=[net_memif0,role=client,socket=%s,"
		 "socket-abstract=no]",
		 sock);
	lr_test_prefix_arg(p2, sizeof(p2), "test_pmd_dpdk_pg");
	char *pargv[] = {pg,	       "-l",	      "0",
			 "--no-huge",  "-m",	      "128",
			 p2,	       "--vdev",      dev,
			 "--",	       "--count",     "20000",
			 "--rate-pps", "100k",	      "--link-wait",
			 "30",	       "--drain-all", "--drain-ms",
			 "2000",       NULL};

	LR_TEST_ASSERT_EQ(lr_test_spawn(&c, pg, pargv, out, sizeof(out)), 0);
	rc = lr_test_child_finish(&c, 120);
	int trc = -1;

	if (write(pfd[1], "\n", 1) == 1)
		wait_file(tlog, "Bye", tpid, tpo, sizeof(tpo));
	close(pfd[1]);
	if (waitpid(tpid, &trc, 0) != tpid)
		trc = -1;
	else if (WIFEXITED(trc))
		trc = WEXITSTATUS(trc);
	else
		trc = 1000 + WTERMSIG(trc);
	wait_file(tlog, "", -1, tpo, sizeof(tpo));
	unlink(tlog);
	char rmdir_cmd[160];

	snprintf(rmdir_cmd, sizeof(rmdir_cmd), "rm -rf /var/run/dpdk/%s",
		 strchr(p1, '=') + 1);
	if (system(rmdir_cmd) != 0)
		fprintf(stderr, "cannot remove testpmd's runtime folder\n");
	unlink(sock);
	LR_TEST_ASSERT(rc == 0, "lr-pktgen exit %d:\n%s", rc, out);
	LR_TEST_ASSERT(trc == 0 || trc > 1000, "testpmd exit %d:\n%s", trc,
		       tpo);
	const char *tl = strstr(out, "pktgen total: ");

	LR_TEST_ASSERT(tl != NULL, "no total line:\n%s", out);
	LR_TEST_ASSERT_EQ(sscanf(tl, "pktgen total: tx=%llu rx=%llu", &tx, &rx),
			  2);
	dup = (unsigned long long)last_number(tl, "dup=");
	lost = (unsigned long long)last_number(tl, "lost=");
	LR_TEST_ASSERT_EQ(tx, 20000);
	LR_TEST_ASSERT_EQ(dup, 0);
	LR_TEST_ASSERT_EQ(rx + lost, tx);
	LR_TEST_ASSERT(strstr(out, "mbufs in use after stop: 0"), "mbufs");
	/* testpmd (DPDK 22.11) died of a signal once in about twenty runs
	 * here, after the run, its output ending at "Press enter to exit":
	 * its memif server as the client leaves. Its totals are gone with
	 * it, so a loss cannot be checked against its drops: the caller
	 * runs again. */
	if (trc > 1000) {
		fprintf(stderr, "testpmd killed by signal %d after the run\n",
			trc - 1000);
		*peer_crashed = lost != 0;
		LR_TEST_ASSERT_EQ(lost, 0);
		return 0;
	}
	/* Every frame lost is one testpmd's forwarding could not send (its
	 * accumulated TX-dropped; its port counters are no witness: DPDK's
	 * memif server clears them when the client goes). */
	long long tdrop = last_number(tpo, "TX-dropped: ");

	LR_TEST_ASSERT(tdrop >= 0, "no totals from testpmd:\n%s", tpo);
	LR_TEST_ASSERT((unsigned long long)tdrop == lost,
		       "testpmd dropped %lld, lr-pktgen lost %llu", tdrop,
		       lost);
	return 0;
}

/* memif_testpmd_once(), again (up to three runs) while testpmd crashes
 * after a run that lost frames: its drops, the only witness of where a
 * frame went, die with it. */
static int
test_memif_testpmd(void)
{
	bool crashed = false;
	int rc = 0;

	for (int i = 0; i < 3; i++) {
		crashed = false;
		rc = memif_testpmd_once(&crashed);
		if (!crashed)
			return rc;
		fprintf(stderr, "testpmd crashed after a run with losses: "
				"running again\n");
	}
	return rc;
}

/* --- bad input --- */

static int
create_fails(const char *devargs, const char *msg)
{
	lr_test_log_begin();
	int p = lr_eth_dev_create(devargs);
	const char *t = lr_test_log_end();

	LR_TEST_ASSERT(p < 0, "'%s' created port %d", devargs, p);
	LR_TEST_ASSERT(strstr(t, msg) != NULL, "'%s': log lacks '%s':\n%s",
		       devargs, msg, t);
	LR_TEST_ASSERT_EQ(lr_eth_dev_count_avail(), 0);
	return 0;
}

static int
bad_device_child(void)
{
	LR_TEST_ASSERT(lr_test_eal_init("test_pmd_dpdk_bad", 64) == 0, "EAL");
	LR_TEST_ASSERT(create_fails("net_dpdk0", "net_dpdk0: dev: missing") ==
			   0,
		       "no dev");
	LR_TEST_ASSERT(create_fails("net_dpdk0,dev=net_bogus0",
				    "net_dpdk0: dev: DPDK cannot probe "
				    "'net_bogus0'") == 0,
		       "unknown device");
	LR_TEST_ASSERT(create_fails("net_dpdk0,dev=0000:00:1f.7",
				    "is a PCI device but DPDK's EAL was "
				    "started for vdevs only") == 0,
		       "pci after vdev");
	LR_TEST_ASSERT(create_fails("net_dpdk0,dev=[net_null0,bogus=1]",
				    "DPDK cannot probe") == 0,
		       "bad vdev args");
	LR_TEST_ASSERT(create_fails("net_dpdk0,dev=net_null0,mbufs=5",
				    "net_dpdk0: mbufs: bad value '5'") == 0,
		       "mbufs");
	return down();
}

static int
eal_refuses_child(void)
{
	LR_TEST_ASSERT(lr_test_eal_init("test_pmd_dpdk_eal", 64) == 0, "EAL");
	LR_TEST_ASSERT(
	    create_fails("net_dpdk0,dev=net_null0,"
			 "dpdk-args=[--no-huge --bogus-eal-option]",
			 "net_dpdk0: dpdk-args: DPDK's EAL refused its "
			 "arguments") == 0,
	    "refused");
	LR_TEST_ASSERT(create_fails("net_dpdk1,dev=net_null1",
				    "net_dpdk1: DPDK's EAL refused its "
				    "arguments earlier") == 0,
		       "refused earlier");
	return down();
}

static int
test_bad_input(void)
{
	static char out[1 << 16];
	char prefix[96];

	LR_TEST_ASSERT_EQ(in_child(bad_device_child, "test_pmd_dpdk_bad"), 0);
	LR_TEST_ASSERT_EQ(in_child(eal_refuses_child, "test_pmd_dpdk_eal"), 0);
	if (find_l2fwd() != 0)
		return 0;
	lr_test_prefix_arg(prefix, sizeof(prefix), "test_pmd_dpdk_badbin");
	char *args[] = {"-l", "0",    "--no-huge", "-m",
			"64", prefix, "--vdev",	   "net_dpdk0,dev=net_bogus0",
			"--", "-p",   "1",	   "-T",
			"0",  NULL};
	int rc = run_l2fwd(args, out, sizeof(out));

	LR_TEST_ASSERT(rc != 0, "lr-l2fwd exit 0 on a bogus device");
	LR_TEST_ASSERT(strstr(out, "DPDK cannot probe 'net_bogus0'"),
		       "no message naming the device:\n%s", out);
	return 0;
}

/* A case whose body runs in a child (in_child()): its body and prefix. */
struct child_case {
	int (*fn)(void);
	const char *name;
};

/* A row of the table of cases: case name, run in a child by fn with
 * file prefix prefix. */
/* clang-format off */
#define CHILD_ROW(name, fn, prefix)                                            \
	{name, NULL, child_case, &(const struct child_case){fn, prefix}}
/* clang-format on */

/* The case of arg, a struct child_case, run in a child. */
static int
child_case(const void *arg)
{
	const struct child_case *c = arg;

	return in_child(c->fn, c->name);
}

static const struct lr_test_case cases[] = {
    CHILD_ROW("ring_pair_forward", ring_pair_forward_child,
	      "test_pmd_dpdk_ring"),
    CHILD_ROW("lr_mbufs_out", lr_mbufs_out_child, "test_pmd_dpdk_out"),
    CHILD_ROW("null_forward", null_forward_child, "test_pmd_dpdk_null"),
    CHILD_ROW("bound_headers", bound_headers_child, "test_pmd_dpdk_bound"),
    CHILD_ROW("bound_tx", bound_tx_child, "test_pmd_dpdk_btx"),
    CHILD_ROW("attached_rx", attached_rx_child, "test_pmd_dpdk_att"),
    CHILD_ROW("indirect_rx", indirect_rx_child, "test_pmd_dpdk_ind"),
    {"l2fwd_binary", test_l2fwd_binary},
    {"memif_testpmd", test_memif_testpmd},
    {"bad_input", test_bad_input},
};

LR_TEST_MAIN("pmd_dpdk", cases)
