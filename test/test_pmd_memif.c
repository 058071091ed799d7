/* SPDX-License-Identifier: BSD-3-Clause */
/* net_memif between two ports of this process (server and client on one
 * socket path in a temporary directory), copying, and with DPDK's testpmd:
 *  - pair: frames both ways (64..3000 bytes; longer than bsize means
 *    chained descriptors and mbufs) arrive once, in order, byte for byte;
 *    the counters of both ends agree; the socket file is 0600; every mbuf
 *    is back in the pool after close;
 *  - tx_offloads: a UDP frame with a partial checksum and a TCP
 *    super-frame (tso_segsz 600) sent through memif, which carries no
 *    metadata, arrive complete: checksums done, the super-frame in three
 *    frames with their own lengths, sequence numbers and checksums;
 *  - empty_segment: frames that fill the client's buffers exactly and end
 *    in an empty mbuf segment take one slot each (no trailing NEXT, no
 *    extra slot): a burst of twice the ring stops when the ring is full,
 *    and the server reads each frame whole, its link staying up;
 *  - two_queues: two interfaces on one socket (id 0 and 1), the first with
 *    two queue pairs: each frame arrives on its own interface and queue;
 *  - reconnect: a client stopping takes the server's link down (tx counts
 *    its drops), starting it again brings both up; a server stopping takes
 *    the client down, and the client reconnects when the server is back;
 *  - zc_reconnect: the same with a zero-copy client, whose pool gets
 *    every mbuf of the rings back at each link down;
 *  - dpdk_server, dpdk_client: DPDK 22.11's dpdk-testpmd (io forwarding,
 *    its port joined to itself) as the server and as the client: every
 *    frame we send comes back once, in order, byte for byte (skipped when
 *    dpdk-testpmd is not installed: Debian's dpdk-dev); dpdk_server_zc
 *    with our client in zero-copy mode, sending and receiving its pool's
 *    mbufs with no copy.
 * Helpers shared with the other net_memif programs: lr_test_pmd_memif.h. */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>

#include "lr_cycles.h"
#include "lr_eal.h"
#include "lr_errno.h"
#include "lr_eth_memif.h"
#include "lr_ethdev.h"
#include "lr_ethdev_driver.h"
#include "lr_memory.h"
#include "lr_log.h"
#include "lr_mbuf.h"
#include "lr_test.h"
#include "lr_test_cksum.h"
#include "lr_test_memif.h"
#include "lr_test_pmd_memif.h"
#include "lr_test_stream.h"
#include "lr_test_virtio.h"
#include "lr_unix.h"

static int
test_pair(void)
{
	struct memif_pair p;
	struct stat st;
	int ret = -1;
	const unsigned n = 20000;

	LR_TEST_ASSERT(pair_init(&p, 0, "pair.sock", "", ",rsize=8") == 0,
		       "EAL init");
	if (pair_up(&p, 1) != 0)
		goto out;
	if (stat(p.sock, &st) != 0 || (st.st_mode & 0777) != 0600) {
		fprintf(stderr, "socket mode %o, expected 600\n",
			st.st_mode & 0777);
		goto out;
	}
	if (xfer(p.cp, 0, p.sp, 0, 1, n) != 0 ||
	    xfer(p.sp, 0, p.cp, 0, 2, n) != 0 ||
	    counters_agree(p.sp, p.cp, n, n) != 0)
		goto out;
	if (xstat(p.sp, "connects") != 1 || xstat(p.cp, "connects") != 1) {
		fprintf(stderr, "connects %llu/%llu, expected 1\n",
			(unsigned long long)xstat(p.sp, "connects"),
			(unsigned long long)xstat(p.cp, "connects"));
		goto out;
	}
	ret = 0;
out:
	pair_shut(&p);
	LR_TEST_ASSERT(ret == 0, "pair failed");
	LR_TEST_ASSERT(access(p.sock, F_OK) != 0, "socket file %s left behind",
		       p.sock);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return 0;
}

static int
test_two_queues(void)
{
	char a[256], b[256], c[256], d[256];
	int s0, s1, c0, c1, ret = -1;

	LR_TEST_ASSERT(init_eal() == 0, "EAL init");
	/* abstract socket (the default), two interfaces on it */
	snprintf(a, sizeof(a), "net_memif10,role=server,id=0,socket=%s/two",
		 dir);
	snprintf(b, sizeof(b), "net_memif11,role=server,id=1,socket=%s/two",
		 dir);
	snprintf(c, sizeof(c), "net_memif12,role=client,id=0,socket=%s/two",
		 dir);
	snprintf(d, sizeof(d), "net_memif13,role=client,id=1,socket=%s/two",
		 dir);
	s0 = port_open(a, 2);
	s1 = port_open(b, 1);
	c1 = port_open(d, 1);
	c0 = port_open(c, 2);
	if (s0 < 0 || s1 < 0 || c0 < 0 || c1 < 0 || wait_link(s0, c0, 1) != 0 ||
	    wait_link(s1, c1, 1) != 0)
		goto out;
	if (xfer(c0, 0, s0, 0, 10, 3000) || xfer(c0, 1, s0, 1, 11, 3000) ||
	    xfer(s0, 1, c0, 1, 12, 3000) || xfer(s0, 0, c0, 0, 13, 3000) ||
	    xfer(c1, 0, s1, 0, 14, 3000) || xfer(s1, 0, c1, 0, 15, 3000))
		goto out;
	ret = 0;
out:
	lr_test_memif_shut(c0);
	lr_test_memif_shut(c1);
	lr_test_memif_shut(s0);
	lr_test_memif_shut(s1);
	return case_end(ret, "two queues failed");
}

/* Server and client (devargs suffix extra) port numbers id, id + 1 on
 * socket name: links follow the peers' stops and starts, traffic flows
 * after each reconnect. */
static int
reconnect_run(unsigned id, const char *name, const char *extra)
{
	struct memif_pair p;
	struct lr_mbuf *m[4];
	int ret = -1;

	LR_TEST_ASSERT(pair_init(&p, id, name, "", extra) == 0, "EAL init");
	/* the client first: it waits for the server */
	p.cp = port_open(p.c, 1);
	p.sp = port_open(p.s, 1);
	if (p.sp < 0 || p.cp < 0 || wait_link(p.sp, p.cp, 1) != 0 ||
	    xfer(p.cp, 0, p.sp, 0, 20, 500) != 0)
		goto out;
	/* client goes: server down, its tx drops and counts */
	lr_eth_dev_stop((uint16_t)p.cp);
	if (wait_link(p.sp, -1, 0) != 0 || zc_pool_back(p.cp) != 0)
		goto out;
	for (int i = 0; i < 4; i++)
		m[i] = frame_mbuf(21, (unsigned)i);
	if (lr_eth_tx_burst((uint16_t)p.sp, 0, m, 4) != 4 ||
	    xstat(p.sp, "tx_link_down_drops") != 4) {
		fprintf(stderr, "link-down tx: drops %llu, expected 4\n",
			(unsigned long long)xstat(p.sp, "tx_link_down_drops"));
		goto out;
	}
	if (lr_eth_rx_burst((uint16_t)p.sp, 0, m, 4) != 0)
		goto out;
	/* client back */
	if (lr_eth_dev_start((uint16_t)p.cp) != 0 ||
	    wait_link(p.sp, p.cp, 1) != 0 ||
	    xfer(p.sp, 0, p.cp, 0, 22, 500) != 0)
		goto out;
	/* server goes: client down; server back: client reconnects */
	lr_eth_dev_stop((uint16_t)p.sp);
	if (wait_link(p.cp, -1, 0) != 0)
		goto out;
	/* the control thread gave the rings' mbufs back with the link */
	if (zc_pool_back(p.cp) != 0)
		goto out;
	if (lr_eth_dev_start((uint16_t)p.sp) != 0 ||
	    wait_link(p.sp, p.cp, 1) != 0 ||
	    xfer(p.cp, 0, p.sp, 0, 23, 500) != 0 ||
	    xfer(p.sp, 0, p.cp, 0, 24, 500))
		goto out;
	if (lr_test_memif_connects(p.cp, 3, 2) != 0)
		goto out;
	lr_eth_dev_stop((uint16_t)p.cp);
	ret = zc_pool_back(p.cp);
out:
	return pair_end(&p, ret, "reconnect failed");
}

static int
test_reconnect(void)
{
	return reconnect_run(20, "re", "");
}

static int
test_zc_reconnect(void)
{
	return reconnect_run(22, "rezc", ",zero-copy=yes");
}

/* ------------------------------------------------------------------ */
/* DPDK's testpmd as the peer. */

static struct lr_test_testpmd tp = {.pid = -1, .in = -1};

/* Start testpmd with one memif port of this role on sock (io forwarding,
 * the port forwarding to itself); output in dir/testpmd.log. */
static int
testpmd_start(const char *role, const char *sock)
{
	char vdev[256];

	snprintf(vdev, sizeof(vdev),
		 "net_memif0,role=%s,socket=%s,socket-abstract=no", role, sock);
	return lr_test_testpmd_start(&tp, vdev, 1, 256, 8192, NULL);
}

/* Before a case with testpmd: LR_TEST_SKIP without dpdk-testpmd or with
 * one CPU, else the EAL: 0 or -1. */
static int
testpmd_begin(void)
{
	if (lr_test_testpmd_find(&tp, dir, "test_pmd_memif_dpdk") != 0 ||
	    sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		printf(
		    "skip: needs dpdk-testpmd (Debian: dpdk-dev) and 2 CPUs\n");
		return LR_TEST_SKIP;
	}
	LR_TEST_ASSERT(init_eal() == 0, "EAL init");
	return 0;
}

/* After a case with testpmd: its log's tail when ret is not 0, then
 * case_end(ret, what). */
static int
testpmd_end(int ret, const char *what)
{
	if (ret != 0)
		lr_test_testpmd_log(&tp, 20);
	return case_end(ret, what);
}

/* Frames to testpmd and back on port p; 0 or -1. */
static int
dpdk_roundtrip(int p, unsigned tag)
{
	struct lr_eth_stats st;
	const unsigned n = 5000;
	int ret;

	size_cap = 2048;
	ret = xfer(p, 0, p, 0, tag, n);
	size_cap = MAXF;
	if (ret != 0)
		return -1;
	lr_eth_stats_get((uint16_t)p, &st);
	if (st.opackets != n || st.ipackets != n || st.ibytes != st.obytes) {
		fprintf(stderr, "counters: tx %llu/%llu rx %llu/%llu\n",
			(unsigned long long)st.opackets,
			(unsigned long long)st.obytes,
			(unsigned long long)st.ipackets,
			(unsigned long long)st.ibytes);
		return -1;
	}
	return 0;
}

/* testpmd as the server, our client port net_memif60 (arg an int zc: 1,
 * net_memif62 in zero-copy mode, sending its pool's mbufs and checking it
 * receives them). */
static int
dpdk_server_run(const void *arg)
{
	const int zc = LR_TEST_INT(arg);
	const unsigned id = 60 + 2 * (unsigned)zc;
	char c[256], sock[128];
	int cp = -1, ret = testpmd_begin();
	uint64_t end;

	if (ret != 0)
		return ret;
	ret = -1;
	/* a path of its own: DPDK leaves its socket file behind, and a
	 * DPDK server does not replace a stale one */
	snprintf(sock, sizeof(sock), "%s/dpdk-server%u.sock", dir, id);
	LR_TEST_ASSERT(testpmd_start("server", sock) == 0, "fork");
	/* ready when its socket exists */
	end = lr_get_tsc_cycles() + 30 * lr_get_tsc_hz();
	while (access(sock, F_OK) != 0 && lr_get_tsc_cycles() < end &&
	       waitpid(tp.pid, NULL, WNOHANG) == 0)
		lr_delay_us(1000);
	snprintf(c, sizeof(c),
		 "net_memif%u,role=client,socket=%s,socket-abstract=no%s", id,
		 sock, zc ? ",zero-copy=yes" : "");
	cp = access(sock, F_OK) == 0 ? port_open(c, 1) : -1;
	if (cp >= 0 && zc)
		tx_pool = rx_expect = lr_eth_memif_pool((uint16_t)cp);
	if (cp >= 0 && wait_link(cp, -1, 1) == 0 &&
	    lr_test_testpmd_wait_line(&tp, "Press enter to exit") == 0)
		ret = dpdk_roundtrip(cp, id);
	tx_pool = rx_expect = NULL;
	/* frames of the pool within bsize go with no copy */
	if (ret == 0 && zc && xstat(cp, "tx_zc_copies") != 0) {
		fprintf(stderr, "%llu frames copied\n",
			(unsigned long long)xstat(cp, "tx_zc_copies"));
		ret = -1;
	}
	if (cp >= 0)
		lr_eth_dev_stop((uint16_t)cp);
	if (ret == 0 && zc && zc_pool_back(cp) != 0)
		ret = -1;
	lr_test_memif_shut(cp);
	lr_test_testpmd_stop(&tp, 0);
	return testpmd_end(ret, "testpmd as server");
}

/* testpmd (io) as the client of our server port net_memif61 (arg an int
 * zrx: 1, net_memif63 with zero-copy receive: frames received in DPDK's
 * buffers), frames sent to it come back intact, byte for byte. */
static int
dpdk_client_run(const void *arg)
{
	const int zrx = LR_TEST_INT(arg);
	const unsigned tag = 61 + 2 * (unsigned)zrx;
	char s[256], sock[128];
	int sp, ret = testpmd_begin();

	if (ret != 0)
		return ret;
	ret = -1;
	snprintf(sock, sizeof(sock), "%s/dpdk-client.sock", dir);
	snprintf(s, sizeof(s),
		 "net_memif%u,role=server,socket=%s,socket-abstract=no%s", tag,
		 sock, zrx ? ",zero-copy=yes" : "");
	sp = port_open(s, 1);
	LR_TEST_ASSERT(sp >= 0, "server port");
	if (testpmd_start("client", sock) == 0 && wait_link(sp, -1, 1) == 0 &&
	    lr_test_testpmd_wait_line(&tp, "Press enter to exit") == 0)
		ret = dpdk_roundtrip(sp, tag);
	/* zero-copy receive: every frame came in the client's buffers and
	 * every header went back */
	if (ret == 0 && zrx && xstat(sp, "rx_zc_held") != 0)
		ret = -1;
	lr_test_testpmd_stop(&tp, 0);
	if (ret == 0 && wait_link(sp, -1, 0) != 0)
		ret = -1; /* testpmd gone: link down */
	lr_test_memif_shut(sp);
	return testpmd_end(ret, "testpmd as client");
}

/* Client frames of one full buffer (bsize=1024) followed by an empty
 * segment, twice as many as the ring's 16 slots, in one burst. */
static int
test_empty_segment(void)
{
	struct memif_pair p;
	struct lr_mbuf *m[32];
	uint16_t sent = 0, got = 0, bad = 0;
	uint64_t end;

	LR_TEST_ASSERT(
	    pair_init(&p, 77, "empty.sock", "", ",rsize=4,bsize=1024") == 0,
	    "EAL init");
	if (pair_up(&p, 1) != 0)
		goto out;
	for (unsigned j = 0; j < LR_DIM(m); j++) {
		struct lr_mbuf *t = lr_pktmbuf_alloc(pool);

		m[j] = lr_pktmbuf_alloc(pool);
		LR_TEST_ASSERT(m[j] != NULL && t != NULL, "pool empty");
		memset(lr_pktmbuf_append(m[j], 1024), (int)j, 1024);
		LR_TEST_ASSERT(lr_pktmbuf_chain(m[j], t) == 0, "chain");
	}
	sent = lr_eth_tx_burst((uint16_t)p.cp, 0, m, LR_DIM(m));
	lr_pktmbuf_free_bulk(m + sent, LR_DIM(m) - sent);
	end = lr_get_tsc_cycles() + 20 * lr_get_tsc_hz();
	while (got < sent && lr_test_memif_link_up(p.sp) &&
	       lr_get_tsc_cycles() < end) {
		uint16_t r = lr_eth_rx_burst((uint16_t)p.sp, 0, m, LR_DIM(m));

		for (uint16_t j = 0; j < r; j++, got++)
			bad += m[j]->pkt_len != 1024 ||
			       *lr_pktmbuf_mtod(m[j], uint8_t *) != got;
		lr_pktmbuf_free_bulk(m, r);
	}
out:;
	int up = p.sp >= 0 && lr_test_memif_link_up(p.sp);
	int opened = p.sp >= 0 && p.cp >= 0;

	pair_shut(&p);
	LR_TEST_ASSERT(opened, "ports");
	LR_TEST_ASSERT(up, "server link down after the burst");
	LR_TEST_ASSERT(sent == 16 && got == 16 && bad == 0,
		       "sent %u, got %u (%u bad): expected 16 whole frames",
		       sent, got, bad);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return 0;
}

/* An IPv4 frame's header checksum and its L4 (TCP or UDP) checksum both
 * verify: 0 or -1 after a message. */
static int
cksums_ok(const uint8_t *f, uint32_t len)
{
	uint32_t ihl = (uint32_t)(f[14] & 0xf) * 4, l4 = 14 + ihl;
	uint32_t l4len = (uint32_t)(f[16] << 8 | f[17]) - ihl;
	uint32_t sum = lr_test_cksum_ref(f + 26, 8, 0); /* addresses */

	if (l4 + l4len != len || lr_test_cksum_ref(f + 14, ihl, 0) != 0xffff) {
		fprintf(stderr, "IPv4 header of a %u-byte frame wrong\n", len);
		return -1;
	}
	sum += f[23] + l4len;
	if (lr_test_cksum_ref(f + l4, l4len, sum) != 0xffff) {
		fprintf(stderr, "%s checksum of a %u-byte frame wrong\n",
			f[23] == 6 ? "TCP" : "UDP", len);
		return -1;
	}
	return 0;
}

/* Ethernet + IPv4 (checksum left 0) + an L4 header of proto, payload
 * bytes of pattern after it; the frame's length. */
static uint32_t
make_ip_frame(uint8_t *f, uint8_t proto, uint32_t payload)
{
	uint32_t l4h = proto == 6 ? 20 : 8, len = 14 + 20 + l4h + payload;
	uint32_t iplen = len - 14;

	memset(f, 0, len);
	memset(f, 0x02, 12);
	f[12] = 0x08;
	f[14] = 0x45;
	f[16] = (uint8_t)(iplen >> 8);
	f[17] = (uint8_t)iplen;
	f[22] = 64;
	f[23] = proto;
	memcpy(f + 26, "\x0a\x00\x00\x01\x0a\x00\x00\x02", 8);
	f[34] = 0x30; /* ports 12345 -> 80 */
	f[35] = 0x39;
	f[37] = 80;
	if (proto == 6) {
		f[38] = 0x11; /* sequence 0x11223344 */
		f[39] = 0x22;
		f[40] = 0x33;
		f[41] = 0x44;
		f[46] = 0x50; /* data offset 5 */
		f[47] = 0x18; /* PSH ACK */
		f[49] = 0xff; /* window */
	} else {
		f[38] = (uint8_t)((l4h + payload) >> 8);
		f[39] = (uint8_t)(l4h + payload);
	}
	for (uint32_t i = 0; i < payload; i++)
		f[14 + 20 + l4h + i] = (uint8_t)(i * 7 + 3);
	return len;
}

/* Offloads across memif, which carries no metadata: a UDP frame with a
 * partial checksum (as veth and tap hand them out) and a TCP super-frame
 * (tso_segsz 600) sent by the client arrive at the server complete: the
 * checksum done, the super-frame cut into 3 frames with their own IP
 * lengths, sequence numbers and checksums. */
static int
test_tx_offloads(void)
{
	struct memif_pair p;
	static uint8_t f[2048];
	struct lr_mbuf *m, *rx[BURST];
	int ret = -1;
	unsigned got = 0;
	uint32_t len;

	LR_TEST_ASSERT(pair_init(&p, 0, "offl.sock", "", "") == 0, "EAL init");
	if (pair_up(&p, 1) != 0)
		goto out;

	/* UDP, partial: the pseudo-header sum in the field. */
	len = make_ip_frame(f, 17, 301);
	uint32_t ps = lr_test_cksum_ref(f + 26, 8, 17 + 8 + 301);
	uint16_t field = (uint16_t)ps;

	f[40] = (uint8_t)(field >> 8);
	f[41] = (uint8_t)field;
	uint16_t ipc = (uint16_t)~lr_test_cksum_ref(f + 14, 20, 0);

	f[24] = (uint8_t)(ipc >> 8);
	f[25] = (uint8_t)ipc;
	m = lr_pktmbuf_alloc(pool);
	if (m == NULL)
		goto out;
	memcpy(lr_pktmbuf_append(m, (uint16_t)len), f, len);
	m->ol_flags |= LR_MBUF_F_RX_L4_CKSUM_PARTIAL;
	m->csum_start = 34;
	m->csum_offset = 6;
	if (lr_eth_tx_burst((uint16_t)p.cp, 0, &m, 1) != 1) {
		lr_pktmbuf_free(m);
		goto out;
	}

	/* TCP super-frame: 1800 bytes of payload, segments of 600. */
	len = make_ip_frame(f, 6, 1800);
	m = lr_test_tso_mbuf(pool, f, len, 600);
	if (m == NULL)
		goto out;
	if (lr_eth_tx_burst((uint16_t)p.cp, 0, &m, 1) != 1) {
		lr_pktmbuf_free(m);
		goto out;
	}

	uint64_t end = lr_get_tsc_cycles() + 20 * lr_get_tsc_hz();

	while (got < 4 && lr_get_tsc_cycles() < end) {
		uint16_t k = lr_eth_rx_burst((uint16_t)p.sp, 0, rx, BURST);

		for (uint16_t j = 0; j < k; j++) {
			static uint8_t buf[2048];
			uint32_t gl = rx[j]->pkt_len;
			const uint8_t *g =
			    gl > sizeof(buf)
				? NULL
				: lr_pktmbuf_read(rx[j], 0, gl, buf);
			int bad = g == NULL;

			if (!bad)
				bad = cksums_ok(g, gl);
			if (!bad && got == 0 &&
			    (g[23] != 17 || gl != 14 + 20 + 8 + 301))
				bad = -1;
			if (!bad && got > 0) {
				/* segment got-1: 600 bytes, its sequence */
				uint32_t seq = (uint32_t)g[38] << 24 |
					       (uint32_t)g[39] << 16 |
					       (uint32_t)g[40] << 8 | g[41];

				bad = g[23] != 6 || gl != 14 + 40 + 600 ||
				      seq != 0x11223344u + 600 * (got - 1) ||
				      memcmp(g + 54, f + 54 + 600 * (got - 1),
					     600) != 0;
			}
			if (bad) {
				fprintf(stderr, "frame %u (%u bytes) wrong\n",
					got, gl);
				lr_pktmbuf_free_bulk(rx + j, k - j);
				goto out;
			}
			got++;
			lr_pktmbuf_free(rx[j]);
		}
	}
	if (got != 4) {
		fprintf(stderr, "%u frames of 4 arrived\n", got);
		goto out;
	}
	if (xstat(p.cp, "tx_offload_errors") != 0)
		goto out;
	ret = 0;
out:
	return pair_end(&p, ret, "tx_offloads failed");
}

static const struct lr_test_case cases[] = {
    {"pair", test_pair},
    {"tx_offloads", test_tx_offloads},
    {"empty_segment", test_empty_segment},
    {"two_queues", test_two_queues},
    {"reconnect", test_reconnect},
    {"zc_reconnect", test_zc_reconnect},
    {"dpdk_server", NULL, dpdk_server_run, LR_TEST_ARG(0)},
    {"dpdk_server_zc", NULL, dpdk_server_run, LR_TEST_ARG(1)},
    {"dpdk_client", NULL, dpdk_client_run, LR_TEST_ARG(0)},
    {"dpdk_client_zrx", NULL, dpdk_client_run, LR_TEST_ARG(1)},
};

LR_TEST_PMD_MEMIF_MAIN("pmd_memif", cases)
