/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_pmd_virtio_user - net_virtio_user against backends no one here
 * wrote and against ones that misbehave:
 *  - testpmd_*: DPDK 22.11's dpdk-testpmd with net_vhost as the backend,
 *    io forwarding (each frame back on the queue it came in): frames of
 *    64 and 1518 bytes, each numbered and checked byte for byte, exactly
 *    once and in order, per queue; split rings with mrg_rxbuf and in_order
 *    on and off, one and two queue pairs, testpmd as the server (our
 *    client) and as the client (client=1, our server=1); counters and the
 *    pool checked after (every mbuf back).
 *  - reconnect: testpmd killed mid-burst: our link goes down, no mbuf
 *    lost; a new testpmd on the same socket: the link is back, traffic
 *    resumes.
 *  - nak, close_mid_setup: an in-process backend that NAKs SET_MEM_TABLE,
 *    or closes after GET_PROTOCOL_FEATURES: start fails naming it, no mbuf
 *    and no port left.
 *  - no_socket, bad_devargs: clear errors naming the path or the key.
 * Skips the testpmd cases when dpdk-testpmd is not installed (Debian:
 * dpdk). Socket files live in a private folder removed at exit; testpmd
 * runs with its own --file-prefix and its runtime folder is removed.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lr_cycles.h"
#include "lr_eal.h"
#include "lr_ethdev.h"
#include "lr_ethdev_driver.h"
#include "lr_mbuf.h"
#include "lr_memory.h"
#include "lr_net.h"
#include "lr_test.h"
#include "lr_test_memif.h"
#include "lr_test_stream.h"
#include "lr_test_virtio.h"
#include "lr_unix.h"
#include "lr_vhost_user.h"
#include "lr_virtio.h"

#define BURST	32
#define NFRAMES 3000

static const char *dir;
static struct lr_mempool *pool;
static struct lr_test_testpmd tp = {.pid = -1, .in = -1};

/* --- frames ---------------------------------------------------------- */

/* Size of the odd frames (the even ones are 60 and 64 bytes in turn:
 * a 60-byte frame and its header fill a short slot, VU_SSIZE, a 64-byte
 * one does not, so an id goes between its slot and its buffer). */
static uint32_t big = 1518;
/* Frames each way of ours_run()'s second transfer, whose kicks and calls
 * it counts: past 2^16 a ring's index crosses any fixed avail_event or
 * used_event (EVENT_IDX). */
static unsigned quiet = 1000;

static uint32_t
size_of(unsigned i)
{
	return (i & 1) ? big : (i & 2) ? 60 : 64;
}

/* The cases' streams (lr_test_stream.h): frames in pool, what is in
 * flight fits our rx ring of 256 buffers (at most 128, 64 with jumbo
 * frames: testpmd drops what our rx ring cannot take), 30 s for a
 * transfer. */
static struct lr_test_stream
stream(void)
{
	return (struct lr_test_stream){pool, size_of, NULL,
				       big > 2000 ? 64u : 128u, 30};
}

static struct lr_mbuf *
frame_mbuf(unsigned tag, unsigned i)
{
	struct lr_test_stream s = stream();

	return lr_test_stream_mbuf(&s, tag, i);
}

/* Send n frames of tag on queue q of port tx and receive each once on
 * queue q of port rx (tx itself: back from a forwarder), in order, byte
 * for byte; 0 or -1. */
static int
xfer(int tx, int rx, uint16_t q, unsigned tag, unsigned n)
{
	struct lr_test_stream s = stream();

	return lr_test_stream_xfer(&s, tx, q, rx, q, tag, n);
}

/* Frames on queue q of port to a forwarder and back. */
static int
roundtrip(int port, uint16_t q, unsigned tag, unsigned n)
{
	return xfer(port, port, q, tag, n);
}

/* --- testpmd ----------------------------------------------------------- */

/* Start testpmd: one net_vhost port on sock with nq queues, a client
 * (connects to our server) when client; io forwarding; output in
 * dir/testpmd.log. 0 or -1. */
static int
testpmd_start(const char *sock, unsigned nq, int client)
{
	char vdev[256];

	snprintf(vdev, sizeof(vdev), "net_vhost0,iface=%s,queues=%u,client=%d",
		 sock, nq, client);
	return lr_test_testpmd_start(&tp, vdev, nq, 256, 8192, NULL);
}

/* The virtio features testpmd's vhost says it negotiated (its log line
 * "negotiated Virtio features: 0x..."), or 0. */
static uint64_t
testpmd_features(void)
{
	char line[512];
	unsigned long long v = 0;
	FILE *f = fopen(tp.log, "r");

	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		const char *k = strstr(line, "negotiated Virtio features: ");

		if (k != NULL)
			sscanf(k + 28, "%llx", &v);
	}
	if (f != NULL)
		fclose(f);
	return v;
}

/* Create, configure (nq queue pairs) and start port devargs; id or -1. */
static int
port_open(const char *devargs, uint16_t nq)
{
	return lr_test_memif_open(devargs, nq, pool);
}

/* Every queue of port: NFRAMES frames there and back; counters agree. */
static int
traffic(int port, unsigned nq, unsigned tag)
{
	struct lr_eth_stats st;

	for (unsigned q = 0; q < nq; q++)
		if (roundtrip(port, (uint16_t)q, tag + q, NFRAMES) != 0)
			return -1;
	lr_eth_stats_get((uint16_t)port, &st);
	LR_TEST_ASSERT(
	    st.opackets == nq * NFRAMES && st.ipackets == nq * NFRAMES &&
		st.ibytes == st.obytes && st.oerrors == 0,
	    "counters: tx %llu rx %llu (bytes %llu/%llu, oerrors "
	    "%llu)",
	    (unsigned long long)st.opackets, (unsigned long long)st.ipackets,
	    (unsigned long long)st.obytes, (unsigned long long)st.ibytes,
	    (unsigned long long)st.oerrors);
	return 0;
}

/* The kicks and calls of queue q of port into v[4] (rx, tx kicks, rx,
 * tx calls). */
static void
notifications(int port, unsigned q, uint64_t v[4])
{
	static const char *const fmt[] = {"rx_q%u_kicks", "tx_q%u_kicks",
					  "rx_q%u_calls", "tx_q%u_calls"};
	char n[32];

	for (unsigned k = 0; k < 4; k++) {
		snprintf(n, sizeof(n), fmt[k], q);
		v[k] = lr_test_memif_xstat(port, n);
	}
}

/* Whether each kick and call counter of queue q moved by at most most
 * from a to b (notifications() around frames frames each way); if not,
 * which did. */
static int
notifications_quiet(unsigned q, const uint64_t a[4], const uint64_t b[4],
		    uint64_t most, unsigned frames)
{
	for (unsigned k = 0; k < 4; k++) {
		if (b[k] - a[k] <= most)
			continue;
		fprintf(stderr,
			"queue %u: kicks +%llu rx +%llu tx, calls +%llu rx "
			"+%llu tx over %u frames to a polling peer\n",
			q, (unsigned long long)(b[0] - a[0]),
			(unsigned long long)(b[1] - a[1]),
			(unsigned long long)(b[2] - a[2]),
			(unsigned long long)(b[3] - a[3]), frames);
		return 0;
	}
	return 1;
}

/* testpmd polls: once its device runs (frames came back), it wants no
 * kicks: 1000 more frames a queue make none (one allowed: EVENT_IDX's
 * index crossing), and calls stay suppressed. */
static int
kicks_check(int port, unsigned nq)
{
	for (unsigned q = 0; q < nq; q++) {
		uint64_t a[4], b[4];

		notifications(port, q, a);
		if (roundtrip(port, (uint16_t)q, 90 + q, 1000) != 0)
			return -1;
		notifications(port, q, b);
		printf("queue %u: kicks rx %llu tx %llu, calls rx %llu tx "
		       "%llu; over the last 1000 frames +%llu +%llu\n",
		       q, (unsigned long long)b[0], (unsigned long long)b[1],
		       (unsigned long long)b[2], (unsigned long long)b[3],
		       (unsigned long long)(b[0] - a[0]),
		       (unsigned long long)(b[1] - a[1]));
		LR_TEST_ASSERT(notifications_quiet(q, a, b, 1, 1000),
			       "queue %u: notifications to testpmd", q);
	}
	return 0;
}

/* testpmd's vhost negotiated what devargs extra asked for: packed ring,
 * mergeable buffers, in order. */
static int
features_check(const char *extra)
{
	uint64_t f = testpmd_features();
	int packed = strstr(extra, "packed_vq=1") != NULL;
	int mrg = strstr(extra, "mrg_rxbuf=0") == NULL;
	int in_order = strstr(extra, "in_order=1") != NULL;

	printf("testpmd negotiated features 0x%llx\n", (unsigned long long)f);
	LR_TEST_ASSERT(
	    lr_virtio_has(f, LR_VIRTIO_F_VERSION_1) &&
		lr_virtio_has(f, LR_VIRTIO_F_RING_PACKED) == packed &&
		lr_virtio_has(f, LR_VIRTIO_NET_F_MRG_RXBUF) == mrg &&
		lr_virtio_has(f, LR_VIRTIO_F_IN_ORDER) == in_order,
	    "features 0x%llx for '%s'", (unsigned long long)f, extra);
	return 0;
}

static int
skip_no_testpmd(void)
{
	if (lr_test_testpmd_find(&tp, dir, "test_pmd_vu") == 0)
		return 0;
	printf("skip: needs dpdk-testpmd (Debian: dpdk)\n");
	return LR_TEST_SKIP;
}

/* testpmd server (client: testpmd connects to our server=1) with nq
 * queues, our port with extra devargs; frames both ways, then stop. */
static int
testpmd_run(unsigned nq, int client, const char *extra)
{
	char sock[128], dv[384];
	int port = -1, rc = -1, st;

	if (skip_no_testpmd() != 0)
		return LR_TEST_SKIP;
	snprintf(sock, sizeof(sock), "%s/tp.sock", dir);
	unlink(sock);
	snprintf(dv, sizeof(dv), "net_virtio_user0,path=%s,queues=%u%s%s", sock,
		 nq, client ? ",server=1" : "", extra);
	if (client) {
		port = port_open(dv, (uint16_t)nq);
		LR_TEST_ASSERT(port >= 0, "cannot open %s", dv);
	}
	if (testpmd_start(sock, nq, client) != 0 ||
	    lr_test_testpmd_wait_line(&tp, "Press enter to exit") != 0)
		goto out;
	if (!client) {
		port = port_open(dv, (uint16_t)nq);
		if (port < 0)
			goto out;
	}
	if (lr_test_memif_wait_link(port, 1) != 0 ||
	    traffic(port, nq, 10 * nq) != 0 || kicks_check(port, nq) != 0 ||
	    features_check(extra) != 0)
		goto out;
	rc = 0;
out:
	if (port >= 0)
		lr_test_memif_shut(port);
	st = lr_test_testpmd_stop(&tp, 0);
	if (rc != 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		lr_test_testpmd_log(&tp, 25);
	LR_TEST_ASSERT(rc == 0, "%s", dv);
	LR_TEST_ASSERT(lr_mempool_in_use_count(pool) == 0, "%u mbufs not back",
		       lr_mempool_in_use_count(pool));
	LR_TEST_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		       "testpmd exit status 0x%x", st);
	return 0;
}

/* testpmd killed in the middle of traffic: link down, every mbuf back; a
 * new testpmd on the socket: link up again (our client retries; our
 * server=1 accepts the new testpmd client) and the frames flow over
 * rings made new. */
static int
reconnect_run(unsigned nq, int server, const char *extra)
{
	char sock[128], dv[256];
	struct lr_mbuf *m[BURST];
	int port = -1, rc = -1;
	uint64_t t0;

	if (skip_no_testpmd() != 0)
		return LR_TEST_SKIP;
	snprintf(sock, sizeof(sock), "%s/re.sock", dir);
	unlink(sock);
	snprintf(dv, sizeof(dv), "net_virtio_user0,path=%s%s%s", sock,
		 server ? ",server=1" : "", extra);
	if (server && (port = port_open(dv, (uint16_t)nq)) < 0)
		goto out;
	if (testpmd_start(sock, nq, server) != 0 ||
	    lr_test_testpmd_wait_line(&tp, "Press enter to exit") != 0)
		goto out;
	if (!server)
		port = port_open(dv, (uint16_t)nq);
	if (port < 0 || lr_test_memif_wait_link(port, 1) != 0 ||
	    roundtrip(port, 0, 1, 500) != 0)
		goto out;
	for (unsigned j = 0; j < BURST; j++)
		if ((m[j] = frame_mbuf(2, j)) == NULL)
			goto out;
	uint16_t s = lr_eth_tx_burst((uint16_t)port, 0, m, BURST);

	lr_pktmbuf_free_bulk(m + s, BURST - s);
	lr_test_testpmd_stop(&tp, 1); /* SIGKILL mid-burst */
	t0 = lr_get_tsc_cycles();
	while (lr_test_memif_link_up(port)) {
		uint16_t r = lr_eth_rx_burst((uint16_t)port, 0, m, BURST);

		lr_pktmbuf_free_bulk(m, r);
		if (lr_get_tsc_cycles() - t0 > 30 * lr_get_tsc_hz()) {
			fprintf(stderr, "link still up 30 s after testpmd "
					"was killed\n");
			goto out;
		}
		lr_delay_us(1000);
	}
	if (lr_mempool_in_use_count(pool) != 0) {
		fprintf(stderr, "%u mbufs out with the link down\n",
			lr_mempool_in_use_count(pool));
		goto out;
	}
	if (!server)
		unlink(sock); /* what the killed testpmd left */
	if (testpmd_start(sock, nq, server) != 0 ||
	    lr_test_testpmd_wait_line(&tp, "Press enter to exit") != 0)
		goto out;
	t0 = lr_get_tsc_cycles();
	if (lr_test_memif_wait_link(port, 1) != 0)
		goto out;
	printf("link back %.3f s after testpmd was ready\n",
	       (double)(lr_get_tsc_cycles() - t0) / (double)lr_get_tsc_hz());
	if (roundtrip(port, 0, 3, 1000) != 0)
		goto out;
	if (lr_test_memif_connects(port, 2, 1) != 0)
		goto out;
	rc = 0;
out:
	lr_test_memif_shut(port);
	if (lr_test_testpmd_stop(&tp, 0) != 0 || rc != 0)
		lr_test_testpmd_log(&tp, 25);
	LR_TEST_ASSERT(rc == 0, "reconnect failed (%s)", dv);
	LR_TEST_ASSERT(lr_mempool_in_use_count(pool) == 0, "%u mbufs not back",
		       lr_mempool_in_use_count(pool));
	return 0;
}

/* --- linerate's own net_vhost as the backend ------------------------- */

/* Frames our port of the last ours_run() sent with no copy (xstat
 * tx_zero_copy); whether the EAL's memory is hugepages another process
 * can map (main()). */
static uint64_t ours_zc;
static int huge_shared;

/* The end of a case between our net_virtio_user a (devargs vu) and our
 * net_vhost b (vh): both shut; rc 0 and every mbuf back, 0, else -1
 * after a message. */
static int
ours_end(int a, int b, int rc, const char *vu, const char *vh)
{
	lr_test_memif_shut(a);
	lr_test_memif_shut(b);
	LR_TEST_ASSERT(rc == 0, "%s <-> %s", vu, vh);
	LR_TEST_ASSERT(lr_mempool_in_use_count(pool) == 0, "%u mbufs not back",
		       lr_mempool_in_use_count(pool));
	return 0;
}

/* Our port against net_vhost in this process (vu_server: net_vhost is
 * the client), nq queue pairs: frames each way on every queue. */
static int
ours_run(unsigned nq, int vu_server, const char *extra)
{
	char sock[128], vu[256], vh[256];
	int a = -1, b = -1, rc = -1;

	if (lr_eth_driver_find("net_vhost") == NULL) {
		printf("skip: net_vhost is not built in\n");
		return LR_TEST_SKIP;
	}
	snprintf(sock, sizeof(sock), "%s/ours.sock", dir);
	unlink(sock);
	snprintf(vu, sizeof(vu), "net_virtio_user0,path=%s,queues=%u%s%s", sock,
		 nq, vu_server ? ",server=1" : "", extra);
	snprintf(vh, sizeof(vh), "net_vhost0,iface=%s,queues=%u,client=%d",
		 sock, nq, vu_server);
	if (vu_server) {
		a = port_open(vu, (uint16_t)nq);
		b = a >= 0 ? port_open(vh, (uint16_t)nq) : -1;
	} else {
		b = port_open(vh, (uint16_t)nq);
		a = b >= 0 ? port_open(vu, (uint16_t)nq) : -1;
	}
	if (a < 0 || b < 0 || lr_test_memif_wait_link(a, 1) != 0 ||
	    lr_test_memif_wait_link(b, 1) != 0)
		goto out;
	for (unsigned q = 0; q < nq; q++)
		if (xfer(a, b, (uint16_t)q, 40 + q, NFRAMES) != 0 ||
		    xfer(b, a, (uint16_t)q, 50 + q, NFRAMES) != 0)
			goto out;
	/* running, both ports poll: no kick, no call */
	for (unsigned q = 0; q < nq; q++) {
		uint64_t k0[4], k1[4];

		notifications(a, q, k0);
		if (xfer(a, b, (uint16_t)q, 60 + q, quiet) != 0 ||
		    xfer(b, a, (uint16_t)q, 70 + q, quiet) != 0)
			goto out;
		notifications(a, q, k1);
		if (!notifications_quiet(q, k0, k1, 0, quiet))
			goto out;
	}
	if (lr_eth_xstats_get_by_name((uint16_t)a, "tx_zero_copy", &ours_zc) !=
	    0)
		goto out;
	rc = 0;
out:
	return ours_end(a, b, rc, vu, vh);
}

/* One case against testpmd or our net_vhost: what runs it, queue pairs,
 * the peer the client (our port server=1), our devargs, the size of the
 * odd frames. */
struct vu_case {
	int (*run)(unsigned nq, int client, const char *extra);
	unsigned nq;
	int client;
	const char *extra;
	uint32_t big;
	unsigned quiet; /* ours_run(): frames counted for kicks (0: 1000) */
	int representative; /* a testpmd case run in a short matrix */
};

/* Row arg (a struct vu_case) run with its frame size; big 1518 after. */
static int
vu_case_run(const void *arg)
{
	const struct vu_case *c = arg;
	int rc;

	if (c->run != ours_run &&
	    lr_test_matrix_skip(c->extra, c->representative))
		return LR_TEST_SKIP;
	big = c->big;
	quiet = c->quiet ? c->quiet : 1000;
	rc = c->run(c->nq, c->client, c->extra);
	big = 1518;
	quiet = 1000;
	return rc;
}

static const struct vu_case tp_mrg = {
    testpmd_run, 1, 0, ",mrg_rxbuf=1,in_order=0", 1518, 0, 1};
static const struct vu_case tp_nomrg = {testpmd_run, 1, 0,
					",mrg_rxbuf=0,in_order=0", 1518};
static const struct vu_case tp_mrg_inorder = {testpmd_run, 1, 0,
					      ",mrg_rxbuf=1,in_order=1", 1518};
static const struct vu_case tp_nomrg_inorder = {
    testpmd_run, 1, 0, ",mrg_rxbuf=0,in_order=1,queue_size=1024", 1518, 0, 1};
/* Frames of 9000 bytes: chains of descriptors on our tx ring, several
 * buffers merged (num_buffers) on our rx ring. */
static const struct vu_case tp_mrg_jumbo = {testpmd_run, 1, 0, ",mrg_rxbuf=1",
					    9000,	 0, 1};
static const struct vu_case tp_mrg_jumbo_inorder = {
    testpmd_run, 1, 1, ",mrg_rxbuf=1,in_order=1", 5000};
static const struct vu_case tp_packed = {
    testpmd_run, 1, 0, ",packed_vq=1,mrg_rxbuf=1", 1518, 0, 1};
static const struct vu_case tp_packed_nomrg_inorder = {
    testpmd_run, 1, 0, ",packed_vq=1,mrg_rxbuf=0,in_order=1", 1518};
static const struct vu_case tp_packed_jumbo = {
    testpmd_run, 1, 0, ",packed_vq=1,mrg_rxbuf=1,in_order=1", 9000};
static const struct vu_case tp_packed_client_2q = {
    testpmd_run, 2, 1, ",packed_vq=1,queue_size=512", 1518, 0, 1};
static const struct vu_case tp_2q = {testpmd_run, 2, 0, "", 1518, 0, 1};
static const struct vu_case tp_client = {testpmd_run, 1, 1, ",in_order=1",
					 1518};
static const struct vu_case tp_client_2q = {testpmd_run, 2, 1, ",mrg_rxbuf=0",
					    1518};
static const struct vu_case re_client = {reconnect_run, 1, 0, "", 1518, 0, 1};
static const struct vu_case re_server_packed = {
    reconnect_run, 1, 1, ",packed_vq=1", 1518, 0, 1};
static const struct vu_case ours_mrg = {ours_run, 1, 0, ",mrg_rxbuf=1", 1518};
static const struct vu_case ours_nomrg_inorder = {
    ours_run, 1, 0, ",mrg_rxbuf=0,in_order=1", 1518};
static const struct vu_case ours_jumbo = {ours_run, 1, 0,
					  ",mrg_rxbuf=1,in_order=1", 9000};
static const struct vu_case ours_server_2q = {ours_run, 2, 1, ",mrg_rxbuf=0",
					      1518};
/* Split rings with EVENT_IDX (the default), 70000 short frames each way:
 * every ring's indexes go round once, and no kick or call. */
static const struct vu_case ours_no_kicks = {ours_run,	    1,	0,
					     ",in_order=1", 64, 70000};

/* Our two drivers against each other over the paths of DPDK's
 * virtio-user loopback test plan: split and packed, mergeable buffers on
 * and off, in-order on and off, each with 1 queue pair (net_vhost
 * listening) and 2 (our virtio-user listening); 64 and 1518-byte frames
 * each way on every queue. */
static int
test_ours_matrix(void)
{
	for (unsigned path = 0; path < 8; path++) {
		for (unsigned nq = 1; nq <= 2; nq++) {
			char extra[64];
			int rc;

			snprintf(extra, sizeof(extra),
				 ",packed_vq=%u,mrg_rxbuf=%u,in_order=%u",
				 path >> 2 & 1, path >> 1 & 1, path & 1);
			rc = ours_run(nq, nq == 2, extra);
			if (rc == LR_TEST_SKIP)
				return rc;
			LR_TEST_ASSERT(rc == 0, "queues=%u%s", nq, extra);
		}
	}
	return 0;
}

/* Zero-copy transmit (the default on hugepages): frames go from their
 * own buffers, over split and packed rings, and every one arrives whole
 * (xfer checks each byte); zero_copy=0 copies every frame; mbufs all
 * come back. */
static int
test_zero_copy(void)
{
	static const struct {
		const char *extra;
		int zc;
	} runs[] = {
	    {"", 1},
	    {",in_order=1,mrg_rxbuf=0", 1},
	    {",zero_copy=0", 0},
	    {",packed_vq=1", 1},
	    {",packed_vq=1,in_order=0", 1},
	    {",packed_vq=1,zero_copy=0", 0},
	};

	if (!huge_shared) {
		printf("skip: no hugepages: the EAL's memory cannot be shared "
		       "(zero copy needs it)\n");
		return LR_TEST_SKIP;
	}
	for (unsigned i = 0; i < LR_DIM(runs); i++) {
		int rc = ours_run(1, 0, runs[i].extra);

		if (rc == LR_TEST_SKIP)
			return rc;
		LR_TEST_ASSERT(rc == 0, "'%s'", runs[i].extra);
		printf("'%s': %llu frames sent with no copy\n", runs[i].extra,
		       (unsigned long long)ours_zc);
		LR_TEST_ASSERT(runs[i].zc ? ours_zc > 0 : ours_zc == 0,
			       "'%s': tx_zero_copy %llu", runs[i].extra,
			       (unsigned long long)ours_zc);
	}
	return 0;
}

/* net_vhost stopped and started again (a backend that restarts): our
 * client's link goes down, comes back, and frames flow each way. */
static int
test_ours_reconnect(void)
{
	char sock[128], vu[256], vh[256];
	int a = -1, b = -1, rc = -1;
	uint64_t t0;

	if (lr_eth_driver_find("net_vhost") == NULL) {
		printf("skip: net_vhost is not built in\n");
		return LR_TEST_SKIP;
	}
	snprintf(sock, sizeof(sock), "%s/ours_re.sock", dir);
	unlink(sock);
	snprintf(vu, sizeof(vu), "net_virtio_user0,path=%s", sock);
	snprintf(vh, sizeof(vh), "net_vhost0,iface=%s", sock);
	b = port_open(vh, 1);
	a = b >= 0 ? port_open(vu, 1) : -1;
	if (a < 0 || b < 0 || lr_test_memif_wait_link(a, 1) != 0 ||
	    xfer(a, b, 0, 60, 1000) != 0 || lr_eth_dev_stop((uint16_t)b) != 0 ||
	    lr_test_memif_wait_link(a, 0) != 0 ||
	    lr_eth_dev_start((uint16_t)b) != 0)
		goto out;
	t0 = lr_get_tsc_cycles();
	if (lr_test_memif_wait_link(a, 1) != 0 ||
	    lr_test_memif_wait_link(b, 1) != 0)
		goto out;
	printf("link back %.3f s after net_vhost started again\n",
	       (double)(lr_get_tsc_cycles() - t0) / (double)lr_get_tsc_hz());
	if (xfer(a, b, 0, 61, 1000) != 0 || xfer(b, a, 0, 62, 1000) != 0)
		goto out;
	rc = 0;
out:
	return ours_end(a, b, rc, vu, vh);
}

/* --- a backend that misbehaves (in this process) ----------------------- */

struct fake {
	int lis;
	uint32_t nak;	/* request to NAK (0: none) */
	uint32_t close; /* request after which it closes (0: none) */
	int seen;	/* the request it acts on came */
};

static void
fake_reply(int fd, uint32_t req, uint32_t size, uint64_t v)
{
	struct lr_vhost_user_msg r;

	memset(&r, 0, sizeof(r));
	r.hdr.request = req;
	r.hdr.flags = LR_VHOST_USER_VERSION | LR_VHOST_USER_REPLY;
	r.hdr.size = size;
	r.payload.u64 = v;
	if (lr_vhost_user_send(fd, &r, NULL, 0, 5000) != 0)
		fprintf(stderr, "fake backend: cannot reply\n");
}

/* The one frontend of a backend listening on lis (waiting up to 30 s):
 * its connection, or -1. */
static int
accept_one(int lis)
{
	struct pollfd pfd = {.fd = lis, .events = POLLIN};

	if (poll(&pfd, 1, 30000) != 1)
		return -1;
	return accept(lis, NULL, NULL);
}

static void *
fake_backend(void *arg)
{
	struct fake *f = arg;
	struct lr_vhost_user_msg m;
	int fds[LR_VHOST_USER_MAX_REGIONS];
	unsigned nfds;
	int fd = accept_one(f->lis);

	if (fd < 0)
		return NULL;
	while (lr_vhost_user_recv(fd, &m, fds, &nfds, 30000) > 0) {
		uint32_t req = m.hdr.request;

		lr_unix_close_fds(fds, nfds);
		if (req == f->close) {
			f->seen = 1;
			break;
		}
		if (req == LR_VHOST_USER_GET_FEATURES)
			fake_reply(fd, req, 8,
				   LR_VIRTIO_BIT(LR_VIRTIO_F_VERSION_1) |
				       LR_VIRTIO_BIT(
					   LR_VHOST_USER_F_PROTOCOL_FEATURES));
		else if (req == LR_VHOST_USER_GET_PROTOCOL_FEATURES)
			fake_reply(
			    fd, req, 8,
			    LR_VIRTIO_BIT(LR_VHOST_USER_PROTOCOL_F_REPLY_ACK));
		else if (m.hdr.flags & LR_VHOST_USER_NEED_REPLY) {
			f->seen |= req == f->nak;
			fake_reply(fd, req, 8, req == f->nak);
		}
	}
	close(fd);
	return NULL;
}

/* Our client against the fake backend f: start must fail with a log line
 * holding want; nothing left open, no mbuf out. */
static int
fake_run(struct fake *f, const char *name, const char *extra, const char *want)
{
	char sock[128], dv[256];
	pthread_t th;
	const char *log;
	int port, ret, fds0 = lr_test_fd_count();

	snprintf(sock, sizeof(sock), "%s/%s.sock", dir, name);
	f->lis = lr_unix_listen(sock, LR_UNIX_STREAM, LR_UNIX_MODE_KEEP, 1);
	LR_TEST_ASSERT(f->lis >= 0, "cannot listen on %s", sock);
	LR_TEST_ASSERT(pthread_create(&th, NULL, fake_backend, f) == 0,
		       "thread");
	snprintf(dv, sizeof(dv), "net_virtio_user0,path=%s%s", sock, extra);
	port = lr_eth_dev_create(dv);
	LR_TEST_ASSERT(port >= 0, "cannot create %s", dv);
	ret = lr_eth_dev_configure((uint16_t)port, 1, 1, NULL);
	LR_TEST_ASSERT(ret == 0 &&
			   lr_eth_rx_queue_setup((uint16_t)port, 0, 256,
						 LR_SOCKET_ID_ANY, NULL,
						 pool) == 0 &&
			   lr_eth_tx_queue_setup((uint16_t)port, 0, 256,
						 LR_SOCKET_ID_ANY, NULL) == 0,
		       "setup");
	lr_test_log_begin();
	ret = lr_eth_dev_start((uint16_t)port);
	log = lr_test_log_end();
	pthread_join(th, NULL);
	close(f->lis);
	unlink(sock);
	lr_eth_dev_close((uint16_t)port);
	LR_TEST_ASSERT(ret < 0, "start succeeded against %s", name);
	LR_TEST_ASSERT(f->seen, "the backend never saw its cue");
	LR_TEST_ASSERT(strstr(log, want) != NULL, "no '%s' in the log", want);
	LR_TEST_ASSERT_EQ(lr_test_fd_count(), fds0);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return 0;
}

static int
test_nak(void)
{
	struct fake f = {.nak = LR_VHOST_USER_SET_MEM_TABLE};

	return fake_run(&f, "nak", "", "backend refused SET_MEM_TABLE (NAK 1)");
}

static int
test_close_mid_setup(void)
{
	struct fake f = {.close = LR_VHOST_USER_SET_OWNER};

	return fake_run(&f, "close", "",
			"backend closed the connection before "
			"the reply to SET_OWNER");
}

/* packed_vq=1 and a backend without RING_PACKED: refused, named. */
static int
test_no_packed(void)
{
	struct fake f = {.close = LR_VHOST_USER_SET_OWNER};

	f.seen = 1; /* the set-up ends before SET_OWNER */
	return fake_run(&f, "nopacked", ",packed_vq=1",
			"backend does not offer RING_PACKED (packed_vq=1");
}

/* --- a fake device: our rings and buffers as a backend sees them ------ */

/* A backend in this process that maps our region as a real one does
 * (the memfd sent in SET_MEM_TABLE) and lets the test write used entries
 * and read what we made available. Rings 0 (rx 0) and 1 (tx 0). */
struct fdev {
	int lis;
	uint8_t *map;
	size_t map_len;
	uint64_t uaddr;
	uint64_t desc[2], avail[2], used[2];
	uint32_t num[2];
	_Atomic int ready;
	_Atomic int done;
	int disabled; /* SET_VRING_ENABLE 0 seen (stop) */
	int bases;    /* GET_VRING_BASE seen (stop) */
};

/* Our address of the frontend's address u. */
#define FDEV_AT(f, u) ((void *)((f)->map + ((u) - (f)->uaddr)))

/* Act on request m of the fake device (fds: what came with it). */
static void
fdev_msg(struct fdev *f, int fd, const struct lr_vhost_user_msg *m,
	 const int *fds, unsigned nfds)
{
	uint32_t req = m->hdr.request, i = m->payload.state.index & 1;
	const struct lr_vhost_user_region *r = &m->payload.memory.regions[0];

	if (req == LR_VHOST_USER_GET_FEATURES)
		fake_reply(
		    fd, req, 8,
		    LR_VIRTIO_BIT(LR_VIRTIO_F_VERSION_1) |
			LR_VIRTIO_BIT(LR_VIRTIO_NET_F_MRG_RXBUF) |
			LR_VIRTIO_BIT(LR_VIRTIO_NET_F_CSUM) |
			LR_VIRTIO_BIT(LR_VIRTIO_NET_F_GUEST_CSUM) |
			LR_VIRTIO_BIT(LR_VHOST_USER_F_PROTOCOL_FEATURES));
	else if (req == LR_VHOST_USER_GET_PROTOCOL_FEATURES)
		fake_reply(fd, req, 8,
			   LR_VIRTIO_BIT(LR_VHOST_USER_PROTOCOL_F_REPLY_ACK));
	else if (req == LR_VHOST_USER_SET_MEM_TABLE && nfds >= 1) {
		f->map_len = r->size + r->mmap_offset;
		f->map = mmap(NULL, f->map_len, PROT_READ | PROT_WRITE,
			      MAP_SHARED, fds[0], 0);
		f->map += r->mmap_offset;
		f->uaddr = r->user_addr;
	} else if (req == LR_VHOST_USER_SET_VRING_NUM) {
		f->num[i] = m->payload.state.num;
	} else if (req == LR_VHOST_USER_SET_VRING_ADDR) {
		i = m->payload.addr.index & 1;
		f->desc[i] = m->payload.addr.desc_addr;
		f->avail[i] = m->payload.addr.avail_addr;
		f->used[i] = m->payload.addr.used_addr;
	} else if (req == LR_VHOST_USER_SET_VRING_ENABLE && i == 1 &&
		   m->payload.state.num == 1) {
		atomic_store(&f->ready, 1);
	} else if (req == LR_VHOST_USER_SET_VRING_ENABLE) {
		f->disabled += m->payload.state.num == 0;
	} else if (req == LR_VHOST_USER_GET_VRING_BASE) {
		f->bases++;
		struct lr_vhost_user_msg rep = *m;

		rep.hdr.flags = LR_VHOST_USER_VERSION | LR_VHOST_USER_REPLY;
		rep.payload.state.num = 0;
		lr_vhost_user_send(fd, &rep, NULL, 0, 5000);
	}
	if (m->hdr.flags & LR_VHOST_USER_NEED_REPLY)
		fake_reply(fd, req, 8, 0);
}

static void *
fdev_thread(void *arg)
{
	struct fdev *f = arg;
	struct lr_vhost_user_msg m;
	int fds[LR_VHOST_USER_MAX_REGIONS];
	unsigned nfds;
	ssize_t n;
	int fd = accept_one(f->lis);

	if (fd < 0)
		return NULL;
	close(f->lis); /* one frontend: later connects are refused */
	f->lis = -1;
	while (!atomic_load(&f->done)) {
		n = lr_vhost_user_recv(fd, &m, fds, &nfds, 100);
		if (n == -EAGAIN)
			continue;
		if (n <= 0)
			break;
		fdev_msg(f, fd, &m, fds, nfds);
		lr_unix_close_fds(fds, nfds);
	}
	close(fd);
	return NULL;
}

/* Our client port on a fake device (started, link up); the port or -1. */
static int
fdev_open(struct fdev *f, pthread_t *th, const char *name)
{
	char sock[128], dv[256];
	int port;

	snprintf(sock, sizeof(sock), "%s/%s.sock", dir, name);
	f->lis = lr_unix_listen(sock, LR_UNIX_STREAM, LR_UNIX_MODE_KEEP, 1);
	if (f->lis < 0 || pthread_create(th, NULL, fdev_thread, f) != 0)
		return -1;
	/* zero_copy=0: the fake device maps the port's region only, so
	 * every frame it reads must be in it */
	snprintf(dv, sizeof(dv), "net_virtio_user0,path=%s,zero_copy=0", sock);
	port = port_open(dv, 1);
	unlink(sock);
	if (port >= 0 && (lr_test_memif_wait_link(port, 1) != 0 ||
			  !atomic_load(&f->ready) || f->map == NULL)) {
		lr_test_memif_shut(port);
		port = -1;
	}
	return port;
}

/* Close port and the fake device; nothing left mapped or held. */
static int
fdev_close(struct fdev *f, pthread_t th, int port)
{
	lr_test_memif_shut(port);
	atomic_store(&f->done, 1);
	pthread_join(th, NULL);
	if (f->lis >= 0)
		close(f->lis);
	if (f->map != NULL)
		munmap(f->map, f->map_len);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return 0;
}

/* An IPv4/TCP frame of len bytes with a partial checksum at 34 + 16. */
static void
tcp_frame(uint8_t *d, uint32_t len)
{
	lr_test_frame_make(d, 7, 1, len);
	memcpy(d + 14, "\x45\x00", 2);
	d[14 + 2] = (uint8_t)((len - 14) >> 8);
	d[14 + 3] = (uint8_t)(len - 14);
	d[14 + 9] = 6;	     /* TCP */
	d[34 + 12] = 5 << 4; /* data offset */
}

/* A TCP super-frame (2500 bytes of payload, MSS 1000) to a device that
 * did not take HOST_TSO: cut here into 3 frames with zero headers, after
 * the one frame already on tx ring 0; 0 or -1. */
static int
tso_soft(struct fdev *f, int port)
{
	static uint8_t fr[54 + 2500];
	struct lr_vring_avail *av = FDEV_AT(f, f->avail[1]);
	struct lr_vring_desc *ds = FDEV_AT(f, f->desc[1]);
	struct lr_mbuf *m;
	uint32_t total = 0;

	tcp_frame(fr, sizeof(fr));
	m = lr_test_tso_mbuf(pool, fr, sizeof(fr), 1000);
	if (m == NULL)
		return -1;
	if (lr_eth_tx_burst((uint16_t)port, 0, &m, 1) != 1) {
		lr_pktmbuf_free(m);
		return -1;
	}
	if (__atomic_load_n(&av->idx, __ATOMIC_ACQUIRE) != 4) {
		fprintf(stderr, "super-frame: avail index %u, expected 4\n",
			av->idx);
		return -1;
	}
	for (uint16_t k = 1; k < 4; k++) {
		const struct lr_vring_desc *d = &ds[av->ring[k]];
		const uint8_t *b = FDEV_AT(f, d->addr);
		static const uint8_t zero[12];

		if (memcmp(b, zero, 12) != 0 || d->len > 12 + 54 + 1000) {
			fprintf(stderr, "segment %u: %u bytes, header %s\n", k,
				d->len, memcmp(b, zero, 12) ? "set" : "zero");
			return -1;
		}
		total += d->len - 12 - 54;
	}
	if (total != 2500) {
		fprintf(stderr, "segments carry %u bytes of 2500\n", total);
		return -1;
	}
	return 0;
}

/* The device hands us a frame with a partial checksum (NEEDS_CSUM): it
 * arrives flagged so; sent back, its header says NEEDS_CSUM again. Then
 * a super-frame the device cannot take is segmented here. */
static int
test_vnet_offload(void)
{
	struct fdev f = {.lis = -1};
	pthread_t th;
	uint8_t fr[200];
	struct lr_mbuf *m = NULL;
	int port = fdev_open(&f, &th, "fdev_ol"), rc = -1;

	LR_TEST_ASSERT(port >= 0, "no port on the fake device");
	struct lr_vring_avail *av = FDEV_AT(&f, f.avail[0]);
	struct lr_vring_used *us = FDEV_AT(&f, f.used[0]);
	struct lr_vring_desc *ds = FDEV_AT(&f, f.desc[0]);
	uint16_t id = av->ring[0];
	uint8_t *b = FDEV_AT(&f, ds[id].addr);
	struct lr_net_vnet_hdr vh = {.flags = LR_NET_VNET_F_NEEDS_CSUM,
				     .csum_start = 34,
				     .csum_offset = 16};
	uint16_t one = 1;

	tcp_frame(fr, sizeof(fr));
	memcpy(b, &vh, sizeof(vh));
	memcpy(b + 10, &one, 2); /* num_buffers */
	memcpy(b + 12, fr, sizeof(fr));
	us->ring[0].id = id;
	us->ring[0].len = 12 + sizeof(fr);
	__atomic_store_n(&us->idx, 1, __ATOMIC_RELEASE);
	if (lr_eth_rx_burst((uint16_t)port, 0, &m, 1) != 1 ||
	    m->pkt_len != sizeof(fr) ||
	    !(m->ol_flags & LR_MBUF_F_RX_L4_CKSUM_PARTIAL) ||
	    m->csum_start != 34 || m->csum_offset != 16) {
		fprintf(stderr, "rx: no frame, or not flagged partial\n");
		goto out;
	}
	if (lr_eth_tx_burst((uint16_t)port, 0, &m, 1) != 1)
		goto out;
	m = NULL;
	av = FDEV_AT(&f, f.avail[1]);
	ds = FDEV_AT(&f, f.desc[1]);
	id = av->ring[0];
	b = FDEV_AT(&f, ds[id].addr);
	memcpy(&vh, b, sizeof(vh));
	if (av->idx != 1 || ds[id].len != 12 + sizeof(fr) ||
	    !(vh.flags & LR_NET_VNET_F_NEEDS_CSUM) || vh.csum_start != 34 ||
	    vh.csum_offset != 16 || memcmp(b + 12, fr, sizeof(fr)) != 0) {
		fprintf(stderr,
			"tx: header flags %u start %u offset %u, "
			"len %u\n",
			vh.flags, vh.csum_start, vh.csum_offset, ds[id].len);
		goto out;
	}
	rc = tso_soft(&f, port);
out:
	lr_pktmbuf_free(m);
	LR_TEST_ASSERT(fdev_close(&f, th, port) == 0, "close");
	LR_TEST_ASSERT(rc == 0, "vnet header offloads");
	/* the stop told the device: both rings disabled, their bases asked */
	LR_TEST_ASSERT(f.disabled == 2 && f.bases == 2,
		       "stop: %d rings disabled, %d bases asked (2 each)",
		       f.disabled, f.bases);
	return 0;
}

/* The device writes a used index past what the ring allows (rx), or a
 * used id that heads no chain of ours (tx): the link goes down with a
 * line naming the queue and the field (want, a format of the value);
 * nothing leaks. Tx reads the used ring only once fewer than a quarter of
 * it are free, and the frames sent until then take ids 0, 1, ... from the
 * FIFO: its last id is still none of ours then. */
static int
fdev_fault(int tx, const char *want_fmt)
{
	struct fdev f = {.lis = -1};
	pthread_t th;
	struct lr_mbuf *m[4];
	const char *log;
	char want[160];
	int port = fdev_open(&f, &th, tx ? "fdev_tx" : "fdev_rx"), down;

	LR_TEST_ASSERT(port >= 0, "no port on the fake device");
	struct lr_vring_used *us = FDEV_AT(&f, f.used[tx]);
	uint16_t bad = tx ? (uint16_t)(f.num[1] - 1) : (uint16_t)(f.num[0] + 5);
	uint64_t t0 = lr_get_tsc_cycles();

	snprintf(want, sizeof(want), want_fmt, bad);

	lr_test_log_begin();
	if (tx) {
		m[0] = frame_mbuf(8, 0);
		if (m[0] != NULL &&
		    lr_eth_tx_burst((uint16_t)port, 0, m, 1) != 1)
			lr_pktmbuf_free(m[0]);
		us->ring[0].id = bad; /* we sent id 0 */
	}
	__atomic_store_n(&us->idx, tx ? 1 : bad, __ATOMIC_RELEASE);
	while (lr_test_memif_link_up(port) &&
	       lr_get_tsc_cycles() - t0 < 30 * lr_get_tsc_hz()) {
		uint16_t r = lr_eth_rx_burst((uint16_t)port, 0, m, 4);

		lr_pktmbuf_free_bulk(m, r);
		if (tx && (m[0] = frame_mbuf(8, 1)) != NULL &&
		    lr_eth_tx_burst((uint16_t)port, 0, m, 1) != 1)
			lr_pktmbuf_free(m[0]);
		lr_delay_us(1000);
	}
	down = !lr_test_memif_link_up(port); /* the thread logged why before */
	log = lr_test_log_end();
	LR_TEST_ASSERT(fdev_close(&f, th, port) == 0, "close");
	LR_TEST_ASSERT(down, "link still up after a bad used entry");
	LR_TEST_ASSERT(strstr(log, want) != NULL, "no '%s' in the log", want);
	return 0;
}

static int
test_bad_used_index(void)
{
	return fdev_fault(0, "link down: rx queue 0: backend wrote a bad "
			     "used index (%u)");
}

static int
test_bad_used_id(void)
{
	return fdev_fault(1, "link down: tx queue 0: backend wrote a bad "
			     "used id (%u)");
}

/* A socket that does not exist: start fails naming it. */
static int
test_no_socket(void)
{
	char dv[256], want[200];
	const char *log;
	int port, ret, fds0 = lr_test_fd_count();

	snprintf(dv, sizeof(dv), "net_virtio_user0,path=%s/none.sock", dir);
	snprintf(want, sizeof(want),
		 "net_virtio_user0: path: cannot connect to '%s/none.sock': No "
		 "such file or directory",
		 dir);
	port = lr_eth_dev_create(dv);
	LR_TEST_ASSERT(port >= 0, "cannot create %s", dv);
	lr_test_log_begin();
	ret = -1;
	if (lr_eth_dev_configure((uint16_t)port, 1, 1, NULL) == 0 &&
	    lr_eth_rx_queue_setup((uint16_t)port, 0, 256, LR_SOCKET_ID_ANY,
				  NULL, pool) == 0 &&
	    lr_eth_tx_queue_setup((uint16_t)port, 0, 256, LR_SOCKET_ID_ANY,
				  NULL) == 0)
		ret = lr_eth_dev_start((uint16_t)port);
	log = lr_test_log_end();
	lr_eth_dev_close((uint16_t)port);
	LR_TEST_ASSERT(ret == -ENOENT, "start: %d, expected -ENOENT", ret);
	LR_TEST_ASSERT(strstr(log, want) != NULL, "no '%s' in the log", want);
	LR_TEST_ASSERT_EQ(lr_test_fd_count(), fds0);
	return 0;
}

/* Bad devargs: no port, an error naming the key and the value. */
static int
test_bad_devargs(void)
{
	static const char *const bad[][2] = {
	    {"net_virtio_user0,path=/x.sock,queue_size=100",
	     "queue_size: bad value '100'"},
	    {"net_virtio_user0,path=/x.sock,queues=0", "queues"},
	    {"net_virtio_user0,path=/x.sock,queues=17", "queues"},
	    {"net_virtio_user0,path=/x.sock,mrg_rxbuf=2", "mrg_rxbuf"},
	    {"net_virtio_user0,path=/x.sock,packed_vq=2", "packed_vq"},
	    {"net_virtio_user0,server=1", "path: bad value '(none)'"},
	    {"net_virtio_user0,path=/x.sock,bogus=1", "bogus"},
	};

	return lr_test_bad_devargs(bad, LR_DIM(bad), pool);
}

static const struct lr_test_case cases[] = {
    {"bad_devargs", test_bad_devargs},
    {"no_socket", test_no_socket},
    {"vnet_offload", test_vnet_offload},
    {"bad_used_index", test_bad_used_index},
    {"bad_used_id", test_bad_used_id},
    {"nak", test_nak},
    {"close_mid_setup", test_close_mid_setup},
    {"no_packed", test_no_packed},
    {"testpmd_mrg", NULL, vu_case_run, &tp_mrg},
    {"testpmd_nomrg", NULL, vu_case_run, &tp_nomrg},
    {"testpmd_mrg_inorder", NULL, vu_case_run, &tp_mrg_inorder},
    {"testpmd_nomrg_inorder", NULL, vu_case_run, &tp_nomrg_inorder},
    {"testpmd_mrg_jumbo", NULL, vu_case_run, &tp_mrg_jumbo},
    {"testpmd_mrg_jumbo_inorder", NULL, vu_case_run, &tp_mrg_jumbo_inorder},
    {"testpmd_2q", NULL, vu_case_run, &tp_2q},
    {"testpmd_packed", NULL, vu_case_run, &tp_packed},
    {"testpmd_packed_nomrg_inorder", NULL, vu_case_run,
     &tp_packed_nomrg_inorder},
    {"testpmd_packed_jumbo", NULL, vu_case_run, &tp_packed_jumbo},
    {"testpmd_packed_client_2q", NULL, vu_case_run, &tp_packed_client_2q},
    {"testpmd_client", NULL, vu_case_run, &tp_client},
    {"testpmd_client_2q", NULL, vu_case_run, &tp_client_2q},
    {"reconnect", NULL, vu_case_run, &re_client},
    {"reconnect_server_packed", NULL, vu_case_run, &re_server_packed},
    {"ours_mrg", NULL, vu_case_run, &ours_mrg},
    {"ours_nomrg_inorder", NULL, vu_case_run, &ours_nomrg_inorder},
    {"ours_jumbo", NULL, vu_case_run, &ours_jumbo},
    {"ours_server_2q", NULL, vu_case_run, &ours_server_2q},
    {"ours_no_kicks", NULL, vu_case_run, &ours_no_kicks},
    {"ours_reconnect", test_ours_reconnect},
    {"ours_matrix", test_ours_matrix},
    {"zero_copy", test_zero_copy},
};

/* The EAL on hugepages (--in-memory: a memfd our ports can share for
 * zero-copy transmit) when enough are free; 1 if so, else 0 (the cases
 * then run on ordinary memory, copying). */
static int
eal_huge(void)
{
	char prefix[96], lcores[8] = "0-1";
	char *argv[] = {"test_pmd_virtio_user", "-l",	lcores, "-m", "128",
			"--in-memory",		prefix, NULL};

	if (lr_test_free_hugepages_2m() < 96)
		return 0;
	lr_test_prefix_arg(prefix, sizeof(prefix), "test_pmd_virtio_user");
	if (lr_eal_init(7, argv) < 0) {
		snprintf(lcores, sizeof(lcores), "0");
		if (lr_eal_init(7, argv) < 0)
			return 0;
	}
	for (unsigned i = 0; i < lr_memseg_count(); i++)
		if (lr_memseg_get(i)->share_fd >= 0)
			return 1;
	return 0;
}

int
main(int argc, char **argv)
{
	if (lr_eth_driver_find("net_virtio_user") == NULL) {
		printf("skip: net_virtio_user is not built in\n");
		return LR_TEST_SKIP;
	}
	dir = lr_test_private_dir("test_pmd_virtio_user");
	if (dir == NULL)
		return 1;
	huge_shared = eal_huge();
	pool = lr_test_memif_eal("test_pmd_virtio_user");
	if (pool == NULL)
		return 1;
	return lr_test_run("pmd_virtio_user", cases, (int)LR_DIM(cases), argc,
			   argv);
}
