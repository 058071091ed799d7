/* SPDX-License-Identifier: BSD-3-Clause */
/* net_memif between two ports of this process (server and client on one
 * socket path in a temporary directory):
 *  - pair: frames both ways (64..3000 bytes; longer than bsize means
 *    chained descriptors and mbufs) arrive once, in order, byte for byte;
 *    the counters of both ends agree; the socket file is 0600; every mbuf
 *    is back in the pool after close;
 *  - tx_offloads: a UDP frame with a partial checksum and a TCP
 *    super-frame (tso_segsz 600) sent through memif, which carries no
 *    metadata, arrive complete: checksums done, the super-frame in three
 *    frames with their own lengths, sequence numbers and checksums;
 *  - zc_pair: a zero-copy client and a copying server: the client sends
 *    its pool's mbufs with no copy (chains above bsize and other pools'
 *    mbufs copied, counted in tx_zc_copies), receives mbufs of its pool,
 *    1518- and 2048-byte frames and chains included; counters agree and
 *    the pool's mbufs are all back once the client stops;
 *  - zc_forward: frames received by a zero-copy client go out of another
 *    zero-copy client with no copy (tx_zc_sent, none in tx_zc_copies),
 *    since it announced the first one's pool to its peer, and arrive
 *    intact; the first port closed while the second's ring holds its
 *    mbufs leaves the pool to the second until it lets go;
 *  - zc_app_pool: a pool of lr_eth_memif_pool_create() goes out of a
 *    zero-copy client with no copy once a connection announced it
 *    (copied before), frames intact; bad arguments and frees refused;
 *  - zc_close_held: a zero-copy client closed while the application
 *    holds one of its mbufs warns, and the mbuf stays usable;
 *  - zc_two_queues: a zero-copy client with two queue pairs;
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
 *  - secret: a wrong secret is refused with a clear reason;
 *  - bad_peer: a hand-written peer sending malformed messages (bad size,
 *    a region without its fd, an unknown id, a ring outside its region)
 *    gets a DISCONNECT naming the fault, as does one that connects and
 *    then publishes a descriptor outside its region; the server keeps
 *    serving;
 *  - zc_bad_peer: a hand-written server that fills a zero-copy client's
 *    buffer with a length past bsize, then one that moves the offset:
 *    nothing is received, the client disconnects naming the fault;
 *  - socket_removed: the server's socket file removed while a client
 *    is connected and while none is: a log line, the server listens on
 *    the path again, the link stays up, a new client gets in; another's
 *    file put in its place is left alone (the stop does not remove it);
 *    a client whose socket folder vanished retries until a server is
 *    back;
 *  - socket_mode: socket-mode=0660 creates the socket file 0660 and a
 *    client connects through it; a second server port on that socket
 *    asking for another mode is refused;
 *  - bad_devargs: each bad value is refused with a message naming it;
 *  - dpdk_server, dpdk_client: DPDK 22.11's dpdk-testpmd (io forwarding,
 *    its port joined to itself) as the server and as the client: every
 *    frame we send comes back once, in order, byte for byte (skipped when
 *    dpdk-testpmd is not installed: Debian's dpdk-dev); dpdk_server_zc
 *    with our client in zero-copy mode, sending and receiving its pool's
 *    mbufs with no copy. */
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
#include "lr_test_memif.h"
#include "lr_unix.h"

#define BURST 32
#define MAXF  3000

static const char *dir;
/* Longest frame sent. DPDK 22.11's net_memif tx never clears the NEXT flag
 * of a packet's first descriptor, so after a chained packet a later one in
 * the same slot arrives glued to its successor (DPDK to DPDK as well): the
 * interop cases send frames of one buffer only. */
static uint32_t size_cap = MAXF;
static struct lr_mempool *pool;
/* Zero-copy cases: frames are built in tx_pool's mbufs (NULL: pool), and
 * every segment received must be of rx_expect (when set). */
static struct lr_mempool *tx_pool, *rx_expect;

static int
init_eal(void)
{
	pool = lr_test_memif_eal("test_pmd_memif");
	return pool != NULL ? 0 : -1;
}

static int
port_open(const char *devargs, uint16_t nq)
{
	return lr_test_memif_open(devargs, nq, pool);
}

/* Wait (polling, up to 20 s) until the links of a and b are `up`. */
static int
wait_link(int a, int b, int up)
{
	uint64_t end = lr_get_tsc_cycles() + 20 * lr_get_tsc_hz();

	while (lr_get_tsc_cycles() < end) {
		if (lr_test_memif_link_up(a) == up &&
		    (b < 0 || lr_test_memif_link_up(b) == up))
			return 0;
		lr_delay_us(1000);
	}
	fprintf(stderr, "links %d/%d not %s after 20 s\n", a, b,
		up ? "up" : "down");
	return -1;
}

static uint32_t
size_of(unsigned i)
{
	static const uint32_t sizes[] = {60,   64,   100,  128,	 256, 1514,
					 1518, 2048, 2049, 3000, 511};

	return LR_MIN(sizes[i % LR_DIM(sizes)], size_cap);
}

/* Frame i of stream tag: an Ethernet header, then bytes from i and tag;
 * bytes 14..21 hold tag and i. */
static void
make_frame(uint8_t *d, unsigned tag, unsigned i, uint32_t len)
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

/* An mbuf (chained above one segment's room) holding frame i of tag. */
static struct lr_mbuf *
frame_mbuf(unsigned tag, unsigned i)
{
	static uint8_t f[MAXF];
	uint32_t len = size_of(i);
	struct lr_mempool *mp = tx_pool != NULL ? tx_pool : pool;
	struct lr_mbuf *m = lr_pktmbuf_alloc(mp);

	if (m == NULL)
		return NULL;
	make_frame(f, tag, i, len);
	if (lr_pktmbuf_append_copy(m, mp, f, len) != 0) {
		lr_pktmbuf_free(m);
		return NULL;
	}
	return m;
}

/* Check packet m against frame i of tag; 0 or -1 (printed). */
static int
check_frame(struct lr_mbuf *m, unsigned tag, unsigned i)
{
	static uint8_t exp[MAXF], got[MAXF];
	uint32_t len = size_of(i);

	if (m->pkt_len != len) {
		fprintf(stderr, "stream %u frame %u: %u bytes, expected %u\n",
			tag, i, m->pkt_len, len);
		return -1;
	}
	if (rx_expect != NULL && lr_mbuf_validate(m) != 0)
		return -1;
	for (struct lr_mbuf *s = m; rx_expect != NULL && s != NULL;
	     s = s->next) {
		if (s->pool != rx_expect) {
			fprintf(stderr,
				"stream %u frame %u: a segment of pool '%s', "
				"expected '%s' (zero-copy)\n",
				tag, i, s->pool->name, rx_expect->name);
			return -1;
		}
	}
	make_frame(exp, tag, i, len);
	lr_pktmbuf_copy_out(m, got);
	if (memcmp(exp, got, len) != 0) {
		unsigned gtag, gi;

		memcpy(&gtag, got + 14, 4);
		memcpy(&gi, got + 18, 4);
		fprintf(stderr,
			"stream %u frame %u: bytes differ (got stream %u frame "
			"%u)\n",
			tag, i, gtag, gi);
		return -1;
	}
	return 0;
}

/* Send n frames of stream tag from (tx, txq) and receive them on (rx, rxq)
 * in order and intact; 0 or -1. */
static int
xfer(int tx, uint16_t txq, int rx, uint16_t rxq, unsigned tag, unsigned n)
{
	struct lr_mbuf *m[BURST];
	unsigned sent = 0, got = 0;
	uint64_t hz = lr_get_tsc_hz();
	uint64_t end = lr_get_tsc_cycles() + 20 * hz;

	while (got < n) {
		if (lr_get_tsc_cycles() > end) {
			fprintf(stderr,
				"stream %u: %u of %u frames after 20 s "
				"(%u sent)\n",
				tag, got, n, sent);
			return -1;
		}
		/* at most 512 in flight: a forwarding peer drops what our
		 * ring cannot take, and our rx ring is 1024 slots */
		unsigned k = LR_MIN(BURST, n - sent);

		if (sent - got + k > 512)
			k = 0;

		for (unsigned j = 0; j < k; j++) {
			m[j] = frame_mbuf(tag, sent + j);
			if (m[j] == NULL) {
				lr_pktmbuf_free_bulk(m, j);
				fprintf(stderr, "pool empty\n");
				return -1;
			}
		}
		uint16_t s = lr_eth_tx_burst((uint16_t)tx, txq, m, (uint16_t)k);

		lr_pktmbuf_free_bulk(m + s, k - s);
		sent += s;
		uint16_t r = lr_eth_rx_burst((uint16_t)rx, rxq, m, BURST);

		for (uint16_t j = 0; j < r; j++) {
			int bad = got >= n || check_frame(m[j], tag, got) != 0;

			got++;
			if (bad) {
				lr_pktmbuf_free_bulk(m, r);
				return -1;
			}
		}
		lr_pktmbuf_free_bulk(m, r);
	}
	/* nothing more comes */
	uint16_t r = lr_eth_rx_burst((uint16_t)rx, rxq, m, BURST);

	lr_pktmbuf_free_bulk(m, r);
	LR_TEST_ASSERT(r == 0, "stream %u: %u frames too many", tag, r);
	return 0;
}

static uint64_t
xstat(int port, const char *name)
{
	uint64_t v = 0;

	lr_eth_xstats_get_by_name((uint16_t)port, name, &v);
	return v;
}

static int
test_pair(void)
{
	char s[256], c[256], sock[128];
	struct lr_eth_stats ss, cs;
	struct stat st;
	int sp, cp, ret = -1;
	const unsigned n = 20000;

	LR_TEST_ASSERT(init_eal() == 0, "EAL init");
	snprintf(sock, sizeof(sock), "%s/pair.sock", dir);
	snprintf(s, sizeof(s),
		 "net_memif0,role=server,socket=%s,socket-abstract=no", sock);
	snprintf(c, sizeof(c),
		 "net_memif1,role=client,socket=%s,socket-abstract=no,"
		 "rsize=8",
		 sock);
	sp = port_open(s, 1);
	cp = port_open(c, 1);
	if (sp < 0 || cp < 0 || wait_link(sp, cp, 1) != 0)
		goto out;
	if (stat(sock, &st) != 0 || (st.st_mode & 0777) != 0600) {
		fprintf(stderr, "socket mode %o, expected 600\n",
			st.st_mode & 0777);
		goto out;
	}
	if (xfer(cp, 0, sp, 0, 1, n) != 0 || xfer(sp, 0, cp, 0, 2, n) != 0)
		goto out;
	lr_eth_stats_get((uint16_t)sp, &ss);
	lr_eth_stats_get((uint16_t)cp, &cs);
	if (ss.ipackets != n || cs.opackets != n || cs.ipackets != n ||
	    ss.opackets != n || ss.ibytes != cs.obytes ||
	    cs.ibytes != ss.obytes ||
	    ss.ierrors + ss.oerrors + cs.ierrors + cs.oerrors + ss.rx_nombuf +
		    cs.rx_nombuf !=
		0) {
		fprintf(stderr,
			"counters: server rx %llu/%llu tx %llu/%llu, client "
			"rx %llu/%llu tx %llu/%llu, errors %llu %llu %llu "
			"%llu\n",
			(unsigned long long)ss.ipackets,
			(unsigned long long)ss.ibytes,
			(unsigned long long)ss.opackets,
			(unsigned long long)ss.obytes,
			(unsigned long long)cs.ipackets,
			(unsigned long long)cs.ibytes,
			(unsigned long long)cs.opackets,
			(unsigned long long)cs.obytes,
			(unsigned long long)ss.ierrors,
			(unsigned long long)ss.oerrors,
			(unsigned long long)cs.ierrors,
			(unsigned long long)cs.oerrors);
		goto out;
	}
	if (xstat(sp, "connects") != 1 || xstat(cp, "connects") != 1) {
		fprintf(stderr, "connects %llu/%llu, expected 1\n",
			(unsigned long long)xstat(sp, "connects"),
			(unsigned long long)xstat(cp, "connects"));
		goto out;
	}
	ret = 0;
out:
	lr_test_memif_shut(cp);
	lr_test_memif_shut(sp);
	LR_TEST_ASSERT(ret == 0, "pair failed");
	LR_TEST_ASSERT(access(sock, F_OK) != 0, "socket file %s left behind",
		       sock);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return 0;
}

/* Frames of the first n whose length takes more than one buffer of bsize
 * 2048 (a zero-copy client copies those: chained). */
static unsigned
nb_chained(unsigned n)
{
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++)
		k += size_of(i) > 2048;
	return k;
}

/* Counters of server sp and client cp after the server received srx
 * frames and the client crx: packets and bytes agree, no errors. */
static int
counters_agree(int sp, int cp, uint64_t srx, uint64_t crx)
{
	struct lr_eth_stats ss, cs;

	lr_eth_stats_get((uint16_t)sp, &ss);
	lr_eth_stats_get((uint16_t)cp, &cs);
	if (ss.ipackets == srx && cs.opackets == srx && cs.ipackets == crx &&
	    ss.opackets == crx && ss.ibytes == cs.obytes &&
	    cs.ibytes == ss.obytes &&
	    ss.ierrors + ss.oerrors + cs.ierrors + cs.oerrors + ss.rx_nombuf +
		    cs.rx_nombuf ==
		0)
		return 0;
	fprintf(stderr,
		"counters: server rx %llu/%llu tx %llu/%llu, client rx "
		"%llu/%llu tx %llu/%llu, errors %llu %llu %llu %llu, nombuf "
		"%llu %llu\n",
		(unsigned long long)ss.ipackets, (unsigned long long)ss.ibytes,
		(unsigned long long)ss.opackets, (unsigned long long)ss.obytes,
		(unsigned long long)cs.ipackets, (unsigned long long)cs.ibytes,
		(unsigned long long)cs.opackets, (unsigned long long)cs.obytes,
		(unsigned long long)ss.ierrors, (unsigned long long)ss.oerrors,
		(unsigned long long)cs.ierrors, (unsigned long long)cs.oerrors,
		(unsigned long long)ss.rx_nombuf,
		(unsigned long long)cs.rx_nombuf);
	return -1;
}

/* A zero-copy client and a copying server: frames of the client's pool
 * go out with no copy (one buffer) or copied (chained), foreign frames
 * are copied, received frames are mbufs of the client's pool (chains
 * above bsize); every frame intact, counters agree, the pool's mbufs all
 * back once the client stops. */
static int
test_zc_pair(void)
{
	char s[256], c[256], sock[128];
	struct lr_mempool *zp = NULL;
	int sp, cp, ret = -1;
	const unsigned n = 20000;

	LR_TEST_ASSERT(init_eal() == 0, "EAL init");
	snprintf(sock, sizeof(sock), "%s/zc.sock", dir);
	snprintf(s, sizeof(s),
		 "net_memif70,role=server,socket=%s,socket-abstract=no", sock);
	snprintf(c, sizeof(c),
		 "net_memif71,role=client,socket=%s,socket-abstract=no,"
		 "rsize=8,zero-copy=yes",
		 sock);
	sp = port_open(s, 1);
	cp = port_open(c, 1);
	if (sp < 0 || cp < 0)
		goto out;
	zp = lr_eth_memif_pool((uint16_t)cp);
	if (zp == NULL || lr_eth_memif_pool((uint16_t)sp) != NULL ||
	    lr_errno != EINVAL || lr_eth_memif_pool(LR_MAX_ETHPORTS - 1) ||
	    lr_errno != ENODEV) {
		fprintf(stderr, "lr_eth_memif_pool: %p\n", (void *)zp);
		goto out;
	}
	if (wait_link(sp, cp, 1) != 0)
		goto out;
	/* our pool's frames: one buffer goes as is, chains are copied */
	tx_pool = zp;
	ret = xfer(cp, 0, sp, 0, 70, n);
	tx_pool = NULL;
	if (ret != 0 || xstat(cp, "tx_zc_copies") != nb_chained(n)) {
		fprintf(stderr, "pool frames: %d, %llu copied, expected %u\n",
			ret, (unsigned long long)xstat(cp, "tx_zc_copies"),
			nb_chained(n));
		goto fail;
	}
	/* frames of another pool are copied */
	if (xfer(cp, 0, sp, 0, 71, n) != 0 ||
	    xstat(cp, "tx_zc_copies") != nb_chained(n) + n)
		goto fail;
	/* received frames are the pool's mbufs */
	rx_expect = zp;
	ret = xfer(sp, 0, cp, 0, 72, n);
	rx_expect = NULL;
	if (ret != 0 || counters_agree(sp, cp, 2 * n, n) != 0)
		goto fail;
	lr_eth_dev_stop((uint16_t)cp);
	if (lr_mempool_in_use_count(zp) != 0 || lr_mempool_validate(zp) != 0) {
		fprintf(stderr, "zero-copy pool: %u mbufs in use after stop\n",
			lr_mempool_in_use_count(zp));
		goto fail;
	}
	ret = 0;
	goto out;
fail:
	ret = -1;
out:
	lr_test_memif_shut(cp);
	lr_test_memif_shut(sp);
	LR_TEST_ASSERT(ret == 0, "zero-copy pair failed");
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return 0;
}

/* A zero-copy client closed while the application holds one of its
 * received mbufs: a warning says so and the mbuf stays usable (its buffer
 * is not unmapped under it) until it is freed. */
static int
test_zc_close_held(void)
{
	char s[256], c[256], sock[128];
	struct lr_mbuf *m[BURST], *held = NULL;
	int sp, cp, ret = -1;

	LR_TEST_ASSERT(init_eal() == 0, "EAL init");
	snprintf(sock, sizeof(sock), "%s/held.sock", dir);
	snprintf(s, sizeof(s),
		 "net_memif73,role=server,socket=%s,socket-abstract=no", sock);
	snprintf(c, sizeof(c),
		 "net_memif74,role=client,socket=%s,socket-abstract=no,"
		 "zero-copy=yes",
		 sock);
	sp = port_open(s, 1);
	cp = port_open(c, 1);
	if (sp < 0 || cp < 0 || wait_link(sp, cp, 1) != 0)
		goto out;
	m[0] = frame_mbuf(73, 0);
	if (m[0] == NULL || lr_eth_tx_burst((uint16_t)sp, 0, m, 1) != 1)
		goto out;
	for (uint64_t end = lr_get_tsc_cycles() + 20 * lr_get_tsc_hz();
	     held == NULL && lr_get_tsc_cycles() < end;)
		if (lr_eth_rx_burst((uint16_t)cp, 0, m, BURST) == 1)
			held = m[0];
	if (held == NULL || check_frame(held, 73, 0) != 0)
		goto out;
	lr_test_log_begin();
	lr_test_memif_shut(cp);
	cp = -1;
	const char *log = lr_test_log_end();

	if (strstr(log, "net_memif74: the application still holds 1 mbufs "
			"of the zero-copy pool") == NULL) {
		fprintf(stderr, "no warning for the held mbuf: '%s'\n", log);
		goto out;
	}
	/* still ours: readable and writable */
	memset(lr_pktmbuf_mtod(held, uint8_t *), 0x5a, held->data_len);
	if (lr_pktmbuf_mtod(held, uint8_t *)[held->data_len - 1] != 0x5a)
		goto out;
	ret = 0;
out:
	if (held != NULL) {
		struct lr_mempool *zp = held->pool;

		lr_pktmbuf_free(held);
		if (lr_mempool_in_use_count(zp) != 0)
			ret = -1;
	}
	lr_test_memif_shut(cp);
	lr_test_memif_shut(sp);
	LR_TEST_ASSERT(ret == 0, "close with a held mbuf");
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return 0;
}

static int log_has(const char *text);
static int wait_log(const char *text);

/* The headers' pool of server zero-copy receive, from a packet. */
static int
zrx_pool_of(const struct lr_mbuf *m)
{
	return strncmp(m->pool->name, "memif_zrx_", 10) == 0;
}

/* A zero-copy server (receive in the client's buffers) with a copying
 * client (chains above 2048 bytes) and with a zero-copy one: every frame
 * intact, each segment a header of the server's queue over the client's
 * memory (never linerate's), counters agree, every header back after. */
static int
test_zrx_pair(void)
{
	char s[256], c[256], sock[128];
	int sp = -1, cp = -1, ret = -1;
	const unsigned n = 20000;

	LR_TEST_ASSERT(init_eal() == 0, "EAL init");
	snprintf(sock, sizeof(sock), "%s/zrx.sock", dir);
	snprintf(s, sizeof(s),
		 "net_memif75,role=server,socket=%s,socket-abstract=no,"
		 "zero-copy=yes",
		 sock);
	for (int zc = 0; zc < 2; zc++) {
		struct lr_mbuf *m[BURST];
		uint16_t k = 0;

		sp = port_open(s, 1);
		snprintf(c, sizeof(c),
			 "net_memif76,role=client,socket=%s,socket-abstract=no,"
			 "rsize=8%s",
			 sock, zc ? ",zero-copy=yes" : "");
		cp = port_open(c, 1);
		if (sp < 0 || cp < 0 || wait_link(sp, cp, 1) != 0)
			goto out;
		/* one frame first, to see what carries it */
		m[0] = frame_mbuf(75, 0);
		if (m[0] == NULL || lr_eth_tx_burst((uint16_t)cp, 0, m, 1) != 1)
			goto out;
		for (uint64_t end = lr_get_tsc_cycles() + 20 * lr_get_tsc_hz();
		     k == 0 && lr_get_tsc_cycles() < end;)
			k = lr_eth_rx_burst((uint16_t)sp, 0, m, BURST);
		if (k != 1 || check_frame(m[0], 75, 0) != 0 ||
		    !zrx_pool_of(m[0]) || lr_mbuf_validate(m[0]) != 0 ||
		    lr_memseg_find(m[0]->buf_addr) != NULL ||
		    xstat(sp, "rx_zc_held") != 1) {
			fprintf(stderr,
				"zero-copy receive: %u frames, pool '%s', "
				"held %llu\n",
				k, k ? m[0]->pool->name : "-",
				(unsigned long long)xstat(sp, "rx_zc_held"));
			if (k)
				lr_pktmbuf_free(m[0]);
			goto out;
		}
		lr_pktmbuf_free(m[0]);
		rx_expect = NULL;
		if (xfer(cp, 0, sp, 0, 76, n) != 0 ||
		    xfer(sp, 0, cp, 0, 77, n) != 0 ||
		    counters_agree(sp, cp, n + 1, n) != 0 ||
		    xstat(sp, "rx_zc_held") != 0)
			goto out;
		lr_test_memif_shut(cp);
		lr_test_memif_shut(sp);
		cp = sp = -1;
	}
	ret = 0;
out:
	lr_test_memif_shut(cp);
	lr_test_memif_shut(sp);
	LR_TEST_ASSERT(ret == 0, "zero-copy server pair failed");
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return 0;
}

/* Receive on port p until n packets are held in m[] (up to 20 s); the
 * count held. */
static unsigned
rx_hold(int p, struct lr_mbuf **m, unsigned n)
{
	unsigned got = 0;

	for (uint64_t end = lr_get_tsc_cycles() + 20 * lr_get_tsc_hz();
	     got < n && lr_get_tsc_cycles() < end;)
		got += lr_eth_rx_burst((uint16_t)p, 0, m + got,
				       (uint16_t)LR_MIN(BURST, n - got));
	return got;
}

/* A zero-copy server whose application holds what it received: the
 * client's ring fills (its tx refuses), and frees give the slots back;
 * the client goes away while a frame is held: the peer's memory stays
 * mapped (the frame readable and writable), the next connection copies
 * and the one after it takes no copy again once the frame was freed; the
 * port closed while a frame is held: said, the frame stays valid. */
static int
test_zrx_held(void)
{
	enum { SLOTS = 256 };
	static struct lr_mbuf *held[SLOTS + BURST];
	char s[256], c[256], sock[128];
	int sp = -1, cp = -1, ret = -1;
	unsigned sent = 0, got;
	struct lr_mbuf *m[BURST];

	LR_TEST_ASSERT(init_eal() == 0, "EAL init");
	snprintf(sock, sizeof(sock), "%s/zrxh.sock", dir);
	snprintf(s, sizeof(s),
		 "net_memif77,role=server,socket=%s,socket-abstract=no,"
		 "zero-copy=yes",
		 sock);
	snprintf(c, sizeof(c),
		 "net_memif78,role=client,socket=%s,socket-abstract=no,"
		 "rsize=8",
		 sock);
	sp = port_open(s, 1);
	cp = port_open(c, 1);
	if (sp < 0 || cp < 0 || wait_link(sp, cp, 1) != 0)
		goto out;
	lr_test_log_begin();
	/* fill: the server holds every frame, the client's ring runs out */
	size_cap = 64;
	for (unsigned tries = 0; tries < 100000 && sent < SLOTS + BURST;
	     tries++) {
		m[0] = frame_mbuf(78, sent);
		if (m[0] == NULL)
			goto out;
		if (lr_eth_tx_burst((uint16_t)cp, 0, m, 1) == 1)
			sent++;
		else
			lr_pktmbuf_free(m[0]);
		if (xstat(cp, "tx_ring_full") != 0)
			break;
	}
	got = rx_hold(sp, held, sent);
	if (sent != SLOTS || got != SLOTS || xstat(sp, "rx_zc_held") != SLOTS) {
		fprintf(stderr,
			"ring of %u slots: %u sent, %u held, rx_zc_held %llu, "
			"tx_ring_full %llu\n",
			SLOTS, sent, got,
			(unsigned long long)xstat(sp, "rx_zc_held"),
			(unsigned long long)xstat(cp, "tx_ring_full"));
		lr_pktmbuf_free_bulk(held, got);
		goto out;
	}
	for (unsigned i = 0; i < got; i++)
		if (check_frame(held[i], 78, i) != 0) {
			lr_pktmbuf_free_bulk(held, got);
			goto out;
		}
	/* freed out of order: the slots go back once the first is back */
	lr_pktmbuf_free_bulk(held + 1, got - 1);
	m[0] = frame_mbuf(79, 0);
	if (m[0] == NULL || lr_eth_rx_burst((uint16_t)sp, 0, m + 1, 1) != 0 ||
	    lr_eth_tx_burst((uint16_t)cp, 0, m, 1) != 0) {
		fprintf(stderr, "ring not full with its first slot held\n");
		lr_pktmbuf_free(held[0]);
		goto out;
	}
	lr_pktmbuf_free(m[0]);
	lr_pktmbuf_free(held[0]);
	lr_eth_rx_burst((uint16_t)sp, 0, m, 1); /* gives the slots back */
	size_cap = MAXF;
	if (xfer(cp, 0, sp, 0, 80, 2000) != 0)
		goto out;
	/* the client goes while a frame is held */
	m[0] = frame_mbuf(81, 0);
	if (m[0] == NULL || lr_eth_tx_burst((uint16_t)cp, 0, m, 1) != 1 ||
	    rx_hold(sp, held, 1) != 1)
		goto out;
	lr_test_memif_shut(cp);
	cp = -1;
	if (wait_log("the application holds 1 mbufs received with zero "
		     "copy") != 0 ||
	    check_frame(held[0], 81, 0) != 0) {
		lr_pktmbuf_free(held[0]);
		goto out;
	}
	memset(lr_pktmbuf_mtod(held[0], uint8_t *), 0x5a, held[0]->data_len);
	cp = port_open(c, 1);
	if (cp < 0 || wait_link(sp, cp, 1) != 0 ||
	    wait_log("receiving by copy on this connection") != 0 ||
	    xfer(cp, 0, sp, 0, 82, 2000) != 0) {
		lr_pktmbuf_free(held[0]);
		goto out;
	}
	lr_pktmbuf_free(held[0]);
	if (wait_log("gave back its last zero-copy mbuf") != 0)
		goto out;
	lr_test_memif_shut(cp);
	cp = port_open(c, 1);
	if (cp < 0 || wait_link(sp, cp, 1) != 0)
		goto out;
	m[0] = frame_mbuf(83, 0);
	if (m[0] == NULL || lr_eth_tx_burst((uint16_t)cp, 0, m, 1) != 1 ||
	    rx_hold(sp, held, 1) != 1)
		goto out;
	if (!zrx_pool_of(held[0]) || check_frame(held[0], 83, 0) != 0) {
		fprintf(stderr, "no zero copy again after the frees\n");
		lr_pktmbuf_free(held[0]);
		goto out;
	}
	/* the server closed under a held frame */
	lr_test_memif_shut(sp);
	sp = -1;
	if (!log_has("closed while the application holds 1 mbufs") ||
	    check_frame(held[0], 83, 0) != 0) {
		lr_pktmbuf_free(held[0]);
		goto out;
	}
	lr_pktmbuf_free(held[0]);
	ret = 0;
out:
	size_cap = MAXF;
	lr_test_log_end();
	lr_test_memif_shut(cp);
	lr_test_memif_shut(sp);
	LR_TEST_ASSERT(ret == 0, "zero-copy server with held frames");
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
	LR_TEST_ASSERT(ret == 0, "two queues failed");
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return 0;
}

/* Zero-copy client cp: every mbuf of its pool back (none on the rings,
 * none held) once it is stopped or its link is down; 0 or -1. */
static int
zc_pool_back(int cp)
{
	struct lr_mempool *zp = lr_eth_memif_pool((uint16_t)cp);

	if (zp == NULL || lr_mempool_in_use_count(zp) == 0)
		return 0;
	fprintf(stderr, "zero-copy pool: %u mbufs in use with the link down\n",
		lr_mempool_in_use_count(zp));
	return -1;
}

/* Server and client (devargs suffix extra) port numbers id, id + 1 on
 * socket name: links follow the peers' stops and starts, traffic flows
 * after each reconnect. */
static int
reconnect_run(unsigned id, const char *name, const char *extra)
{
	char s[256], c[256];
	struct lr_mbuf *m[4];
	int sp, cp = -1, ret = -1;

	LR_TEST_ASSERT(init_eal() == 0, "EAL init");
	snprintf(s, sizeof(s), "net_memif%u,role=server,socket=%s/%s", id, dir,
		 name);
	snprintf(c, sizeof(c), "net_memif%u,role=client,socket=%s/%s%s", id + 1,
		 dir, name, extra);
	/* the client first: it waits for the server */
	cp = port_open(c, 1);
	sp = port_open(s, 1);
	if (sp < 0 || cp < 0 || wait_link(sp, cp, 1) != 0 ||
	    xfer(cp, 0, sp, 0, 20, 500) != 0)
		goto out;
	/* client goes: server down, its tx drops and counts */
	lr_eth_dev_stop((uint16_t)cp);
	if (wait_link(sp, -1, 0) != 0 || zc_pool_back(cp) != 0)
		goto out;
	for (int i = 0; i < 4; i++)
		m[i] = frame_mbuf(21, (unsigned)i);
	if (lr_eth_tx_burst((uint16_t)sp, 0, m, 4) != 4 ||
	    xstat(sp, "tx_link_down_drops") != 4) {
		fprintf(stderr, "link-down tx: drops %llu, expected 4\n",
			(unsigned long long)xstat(sp, "tx_link_down_drops"));
		goto out;
	}
	if (lr_eth_rx_burst((uint16_t)sp, 0, m, 4) != 0)
		goto out;
	/* client back */
	if (lr_eth_dev_start((uint16_t)cp) != 0 || wait_link(sp, cp, 1) != 0 ||
	    xfer(sp, 0, cp, 0, 22, 500) != 0)
		goto out;
	/* server goes: client down; server back: client reconnects */
	lr_eth_dev_stop((uint16_t)sp);
	if (wait_link(cp, -1, 0) != 0)
		goto out;
	/* the control thread gave the rings' mbufs back with the link */
	if (zc_pool_back(cp) != 0)
		goto out;
	if (lr_eth_dev_start((uint16_t)sp) != 0 || wait_link(sp, cp, 1) != 0 ||
	    xfer(cp, 0, sp, 0, 23, 500) != 0 || xfer(sp, 0, cp, 0, 24, 500))
		goto out;
	if (xstat(cp, "connects") != 3 || xstat(cp, "disconnects") != 2) {
		fprintf(stderr, "client connects %llu disconnects %llu\n",
			(unsigned long long)xstat(cp, "connects"),
			(unsigned long long)xstat(cp, "disconnects"));
		goto out;
	}
	lr_eth_dev_stop((uint16_t)cp);
	ret = zc_pool_back(cp);
out:
	lr_test_memif_shut(cp);
	lr_test_memif_shut(sp);
	LR_TEST_ASSERT(ret == 0, "reconnect failed");
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return 0;
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

/* A zero-copy client with two queue pairs: each queue's rings hold mbufs
 * of the one pool, each frame arrives on its own queue, intact. */
static int
test_zc_two_queues(void)
{
	char s[256], c[256];
	struct lr_mempool *zp;
	int sp, cp, ret = -1;

	LR_TEST_ASSERT(init_eal() == 0, "EAL init");
	snprintf(s, sizeof(s), "net_memif75,role=server,socket=%s/zc2", dir);
	snprintf(c, sizeof(c),
		 "net_memif76,role=client,socket=%s/zc2,zero-copy=yes,rsize=7",
		 dir);
	sp = port_open(s, 2);
	cp = port_open(c, 2);
	if (sp < 0 || cp < 0 || wait_link(sp, cp, 1) != 0)
		goto out;
	zp = lr_eth_memif_pool((uint16_t)cp);
	tx_pool = zp; /* the client sends its pool's mbufs */
	ret = xfer(cp, 1, sp, 1, 75, 3000) || xfer(cp, 0, sp, 0, 76, 3000);
	tx_pool = NULL;
	rx_expect = zp; /* and receives them */
	if (ret == 0)
		ret = xfer(sp, 1, cp, 1, 77, 3000) ||
		      xfer(sp, 0, cp, 0, 78, 3000);
	rx_expect = NULL;
	if (ret == 0 && counters_agree(sp, cp, 6000, 6000) != 0)
		ret = -1;
	lr_eth_dev_stop((uint16_t)cp);
	if (ret == 0)
		ret = zc_pool_back(cp);
out:
	lr_test_memif_shut(cp);
	lr_test_memif_shut(sp);
	LR_TEST_ASSERT(ret == 0, "zero-copy two queues failed");
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return 0;
}

/* Zero-copy forwarding: frames the server sa sends arrive on zero-copy
 * client a as mbufs of a's pool, go out of zero-copy client b as they are
 * (b announced a's pool to its peer as a region) and reach b's server sb
 * intact: b counts them in tx_zc_sent, none in tx_zc_copies, and a's
 * mbufs come back to a's pool once sb has read them. Then a (and sa)
 * close while b's ring holds a's last mbufs: the pool stays until b
 * lets go of it. */
static int mixed_pools_burst(int b, int sb, struct lr_mempool *pa);

static int
test_zc_forward(void)
{
	char s[256], c[256], sock_a[128], sock_b[128];
	struct lr_mempool *pa = NULL;
	struct lr_mbuf *m[BURST];
	int sa, a, sb, b, ret = -1;
	const unsigned n = 5000;
	unsigned sent = 0, fwd = 0, got = 0;
	uint64_t end;

	LR_TEST_ASSERT(init_eal() == 0, "EAL init");
	snprintf(sock_a, sizeof(sock_a), "%s/fwd-a.sock", dir);
	snprintf(sock_b, sizeof(sock_b), "%s/fwd-b.sock", dir);
	snprintf(s, sizeof(s),
		 "net_memif92,role=server,socket=%s,socket-abstract=no",
		 sock_a);
	snprintf(c, sizeof(c),
		 "net_memif93,role=client,socket=%s,socket-abstract=no,"
		 "zero-copy=yes,rsize=8",
		 sock_a);
	sa = port_open(s, 1);
	a = port_open(c, 1); /* configured first: b announces its pool */
	snprintf(s, sizeof(s),
		 "net_memif94,role=server,socket=%s,socket-abstract=no",
		 sock_b);
	snprintf(c, sizeof(c),
		 "net_memif95,role=client,socket=%s,socket-abstract=no,"
		 "zero-copy=yes,rsize=8",
		 sock_b);
	sb = port_open(s, 1);
	b = port_open(c, 1);
	if (sa < 0 || a < 0 || sb < 0 || b < 0 || wait_link(sa, a, 1) != 0 ||
	    wait_link(sb, b, 1) != 0)
		goto out;
	pa = lr_eth_memif_pool((uint16_t)a);
	size_cap = 2048; /* one buffer: a receives whole frames */
	end = lr_get_tsc_cycles() + 20 * lr_get_tsc_hz();
	while (got < n && lr_get_tsc_cycles() < end) {
		unsigned k = LR_MIN(BURST, n - sent);
		uint16_t r, t;

		if (sent - got + k > 200)
			k = 0;
		for (unsigned j = 0; j < k; j++)
			if ((m[j] = frame_mbuf(92, sent + j)) == NULL)
				goto out;
		t = lr_eth_tx_burst((uint16_t)sa, 0, m, (uint16_t)k);
		lr_pktmbuf_free_bulk(m + t, k - t);
		sent += t;
		/* a -> b: the mbufs of a's pool as they came */
		r = lr_eth_rx_burst((uint16_t)a, 0, m, BURST);
		for (uint16_t j = 0; j < r; j++)
			if (m[j]->pool != pa)
				goto out;
		t = lr_eth_tx_burst((uint16_t)b, 0, m, r);
		lr_pktmbuf_free_bulk(m + t, r - t);
		fwd += t;
		r = lr_eth_rx_burst((uint16_t)sb, 0, m, BURST);
		for (uint16_t j = 0; j < r; j++, got++) {
			if (check_frame(m[j], 92, got) != 0) {
				lr_pktmbuf_free_bulk(m, r);
				goto out;
			}
		}
		lr_pktmbuf_free_bulk(m, r);
	}
	if (got != n || fwd != n || xstat(b, "tx_zc_sent") != n ||
	    xstat(b, "tx_zc_copies") != 0) {
		fprintf(stderr,
			"forwarded %u, received %u of %u: b sent %llu as "
			"they were, copied %llu\n",
			fwd, got, n, (unsigned long long)xstat(b, "tx_zc_sent"),
			(unsigned long long)xstat(b, "tx_zc_copies"));
		goto out;
	}
	if (mixed_pools_burst(b, sb, pa) != 0)
		goto out;
	/* a's last frames are still on b's ring: a goes, its pool stays */
	if (lr_mempool_in_use_count(pa) == 0) {
		fprintf(stderr, "b's ring holds none of a's mbufs\n");
		goto out;
	}
	lr_test_memif_shut(a);
	a = -1;
	lr_test_memif_shut(sa);
	sa = -1;
	/* more from b: it frees what sb has read, into a's pool */
	for (unsigned i = 0; i < 4; i++) {
		m[0] = frame_mbuf(93, i);
		if (m[0] == NULL || lr_eth_tx_burst((uint16_t)b, 0, m, 1) != 1)
			goto out;
		for (end = lr_get_tsc_cycles() + 20 * lr_get_tsc_hz();
		     lr_get_tsc_cycles() < end;)
			if (lr_eth_rx_burst((uint16_t)sb, 0, m, 1) == 1)
				break;
		lr_pktmbuf_free(m[0]);
	}
	if (lr_mempool_in_use_count(pa) != 0 || lr_mempool_validate(pa) != 0) {
		fprintf(stderr, "a's pool: %u mbufs not back\n",
			lr_mempool_in_use_count(pa));
		goto out;
	}
	ret = 0;
out:
	size_cap = MAXF;
	lr_test_memif_shut(b); /* lets go of a's pool: freed */
	lr_test_memif_shut(sb);
	lr_test_memif_shut(a);
	lr_test_memif_shut(sa);
	LR_TEST_ASSERT(ret == 0, "zero-copy forwarding");
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return 0;
}

/* One burst through zero-copy client b whose mbufs alternate between
 * three pools: pa (another zero-copy port's, which b announced), b's own
 * and the shared pool (which b's peer does not map). The first two go
 * out as they are, each at the region and offset of its own pool (the
 * send keeps the last pool it found: it must follow every change), the
 * third is copied; server sb gets them all intact and in order. 0 when
 * so. */
static int
mixed_pools_burst(int b, int sb, struct lr_mempool *pa)
{
	struct lr_mempool *mps[3] = {pa, lr_eth_memif_pool((uint16_t)b), NULL};
	uint64_t zs = xstat(b, "tx_zc_sent"), zc = xstat(b, "tx_zc_copies");
	struct lr_mbuf *m[12];
	unsigned got = 0;
	uint16_t t;
	uint64_t end;

	for (unsigned j = 0; j < 12; j++) {
		tx_pool = mps[j % 3];
		m[j] = frame_mbuf(94, j);
		tx_pool = NULL;
		if (m[j] == NULL) {
			lr_pktmbuf_free_bulk(m, j);
			return -1;
		}
	}
	t = lr_eth_tx_burst((uint16_t)b, 0, m, 12);
	lr_pktmbuf_free_bulk(m + t, 12u - t);
	end = lr_get_tsc_cycles() + 20 * lr_get_tsc_hz();
	while (t == 12 && got < 12 && lr_get_tsc_cycles() < end) {
		uint16_t r = lr_eth_rx_burst((uint16_t)sb, 0, m, 12);

		for (uint16_t j = 0; j < r; j++, got++) {
			if (check_frame(m[j], 94, got) != 0) {
				lr_pktmbuf_free_bulk(m, r);
				return -1;
			}
		}
		lr_pktmbuf_free_bulk(m, r);
	}
	if (t != 12 || got != 12 || xstat(b, "tx_zc_sent") - zs != 8 ||
	    xstat(b, "tx_zc_copies") - zc != 4) {
		fprintf(stderr,
			"mixed pools: sent %u, received %u of 12, %llu as they "
			"were (8 expected), %llu copied (4)\n",
			t, got, (unsigned long long)(xstat(b, "tx_zc_sent") - zs),
			(unsigned long long)(xstat(b, "tx_zc_copies") - zc));
		return -1;
	}
	return 0;
}

/* k frames (k <= BURST) of tag from pool mp through client c to server
 * s, all received intact and in order; how many c sent as they were
 * into *zs, how many it copied into *zc. 0 when so. */
static int
pool_burst(int c, int s, struct lr_mempool *mp, unsigned tag, unsigned k,
	   uint64_t *zs, uint64_t *zc)
{
	uint64_t zs0 = xstat(c, "tx_zc_sent"), zc0 = xstat(c, "tx_zc_copies");
	struct lr_mbuf *m[BURST];
	unsigned got = 0;
	uint16_t t;
	uint64_t end;

	tx_pool = mp;
	for (unsigned j = 0; j < k; j++) {
		m[j] = frame_mbuf(tag, j);
		if (m[j] == NULL) {
			tx_pool = NULL;
			lr_pktmbuf_free_bulk(m, j);
			return -1;
		}
	}
	tx_pool = NULL;
	t = lr_eth_tx_burst((uint16_t)c, 0, m, (uint16_t)k);
	lr_pktmbuf_free_bulk(m + t, k - t);
	end = lr_get_tsc_cycles() + 20 * lr_get_tsc_hz();
	while (t == k && got < k && lr_get_tsc_cycles() < end) {
		uint16_t r = lr_eth_rx_burst((uint16_t)s, 0, m, BURST);

		for (uint16_t j = 0; j < r; j++, got++) {
			if (check_frame(m[j], tag, got) != 0) {
				lr_pktmbuf_free_bulk(m, r);
				return -1;
			}
		}
		lr_pktmbuf_free_bulk(m, r);
	}
	*zs = xstat(c, "tx_zc_sent") - zs0;
	*zc = xstat(c, "tx_zc_copies") - zc0;
	if (t != k || got != k) {
		fprintf(stderr, "pool '%s': sent %u, received %u of %u\n",
			mp->name, t, got, k);
		return -1;
	}
	return 0;
}

/* pool_burst() of 24 frames from mp (case what): all sent as they are
 * (zc), or all copied; 0 when so. */
static int
app_burst(int c, int s, struct lr_mempool *mp, unsigned tag, int zc,
	  const char *what)
{
	uint64_t sent = 0, copied = 0;

	if (pool_burst(c, s, mp, tag, 24, &sent, &copied) == 0 &&
	    sent == (zc ? 24u : 0u) && copied == (zc ? 0u : 24u))
		return 0;
	fprintf(stderr,
		"pool %s: %llu sent as they were, %llu copied (%u, %u "
		"expected)\n",
		what, (unsigned long long)sent, (unsigned long long)copied,
		zc ? 24u : 0u, zc ? 0u : 24u);
	return -1;
}

/* Pools of lr_eth_memif_pool_create() from a zero-copy client: one made
 * before the client connects is announced to the server (its mbufs go
 * out as they are), one made while connected is copied until the next
 * connection, then announced too; frames intact either way. Refused: a
 * pool of no mbuf, a data room no larger than the headroom, a name
 * taken, and freeing a pool that is not one (the shared pool, the port's
 * own, one freed already). */
static int
test_zc_app_pool(void)
{
	const uint16_t room = LR_PKTMBUF_HEADROOM + 2048;
	char s[256], c[256];
	struct lr_mempool *early, *late = NULL;
	int sp = -1, cp = -1, ret = -1;

	LR_TEST_ASSERT(init_eal() == 0, "EAL init");
	LR_TEST_ASSERT(lr_eth_memif_pool_create("memif_app_bad", 0, 0, room,
						LR_SOCKET_ID_ANY) == NULL &&
			   lr_errno == EINVAL,
		       "a pool of no mbuf");
	LR_TEST_ASSERT(lr_eth_memif_pool_create("memif_app_bad", 64, 0,
						LR_PKTMBUF_HEADROOM,
						LR_SOCKET_ID_ANY) == NULL &&
			   lr_errno == EINVAL,
		       "no room past the headroom");
	early = lr_eth_memif_pool_create("memif_app_early", 256, 0, room,
					 LR_SOCKET_ID_ANY);
	LR_TEST_ASSERT(early != NULL, "pool: %s", lr_strerror(lr_errno));
	LR_TEST_ASSERT(lr_eth_memif_pool_create("memif_app_early", 64, 0, room,
						LR_SOCKET_ID_ANY) == NULL,
		       "a second pool under a name taken");
	LR_TEST_ASSERT_EQ(lr_eth_memif_pool_free(pool), -EINVAL);
	snprintf(s, sizeof(s), "net_memif96,role=server,socket=%s/apppool",
		 dir);
	snprintf(c, sizeof(c),
		 "net_memif97,role=client,socket=%s/apppool,zero-copy=yes,"
		 "rsize=8",
		 dir);
	sp = port_open(s, 1);
	cp = port_open(c, 1);
	size_cap = 2048; /* one buffer: sent as it is */
	if (sp < 0 || cp < 0 || wait_link(sp, cp, 1) != 0)
		goto out;
	if (lr_eth_memif_pool_free(lr_eth_memif_pool((uint16_t)cp)) !=
	    -EINVAL) {
		fprintf(stderr, "the port's own pool freed\n");
		goto out;
	}
	late = lr_eth_memif_pool_create("memif_app_late", 256, 0, room,
					LR_SOCKET_ID_ANY);
	if (late == NULL || app_burst(cp, sp, early, 98, 1, "announced") ||
	    app_burst(cp, sp, late, 99, 0, "made after the connection"))
		goto out;
	/* the next connection announces it */
	lr_eth_dev_stop((uint16_t)cp);
	if (wait_link(sp, -1, 0) != 0 || lr_eth_dev_start((uint16_t)cp) != 0 ||
	    wait_link(sp, cp, 1) != 0 ||
	    app_burst(cp, sp, late, 100, 1, "after reconnecting"))
		goto out;
	ret = 0;
out:
	size_cap = MAXF;
	lr_test_memif_shut(cp);
	lr_test_memif_shut(sp);
	LR_TEST_ASSERT(ret == 0, "application pools over zero-copy memif");
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(early), 0);
	LR_TEST_ASSERT_EQ(lr_eth_memif_pool_free(early), 0);
	LR_TEST_ASSERT_EQ(lr_eth_memif_pool_free(early), -EINVAL);
	if (late != NULL) {
		LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(late), 0);
		LR_TEST_ASSERT_EQ(lr_eth_memif_pool_free(late), 0);
	}
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return 0;
}

/* The captured log holds text: 1, else 0. Read with pread() beside the
 * stream, never through it: the control thread writes to that stream at
 * any time (under the log's lock, which we do not hold), and moving its
 * position (rewind, fread, fseek back) would make such a write land over
 * earlier lines, or be overwritten by the next; a line looked for could
 * vanish that way, more likely the busier the machine. */
static int
log_has(const char *text)
{
	struct lr_test_log_state *st = lr_test_log_state();
	int fd = fileno(st->f);
	struct stat sb;
	char *buf;
	ssize_t n;
	int found;

	fflush(st->f); /* takes the stream's own lock */
	if (fstat(fd, &sb) != 0)
		return 0;
	buf = malloc((size_t)sb.st_size + 1);
	if (buf == NULL)
		return 0;
	n = pread(fd, buf, (size_t)sb.st_size, 0);
	buf[n > 0 ? n : 0] = '\0';
	found = strstr(buf, text) != NULL;
	free(buf);
	return found;
}

/* Wait (up to 20 s) until the captured log holds text. */
static int
wait_log(const char *text)
{
	uint64_t end = lr_get_tsc_cycles() + 20 * lr_get_tsc_hz();

	while (lr_get_tsc_cycles() < end) {
		if (log_has(text))
			return 0;
		lr_delay_us(1000);
	}
	fprintf(stderr, "no log line with '%s' after 20 s\n", text);
	return -1;
}

/* A socket file of someone else's at path (bound, not listening: a
 * client's connect is refused), put there by rename() so that no one sees
 * the path empty; its fd or -1. */
static int
foreign_socket(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char tmp[sizeof(sa.sun_path)];
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);

	snprintf(tmp, sizeof(tmp), "%.90s.other", path);
	memcpy(sa.sun_path, tmp, sizeof(tmp));
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    rename(tmp, path) != 0) {
		perror("foreign socket");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* The server's socket file removed while a client is connected, then
 * while none is: the server says so and listens on the path again, the
 * connected link stays up and carries frames, a new client gets in. A
 * file of someone else's in its place is left alone, also when the
 * server stops. A client whose socket path vanished (its folder
 * removed) keeps retrying and reconnects when a server is back. */
static int
test_socket_removed(void)
{
	char s[256], c[256], sub[96], sock[128], cmd[160];
	int sp = -1, cp = -1, other = -1, ret = -1;
	struct stat st;

	LR_TEST_ASSERT(init_eal() == 0, "EAL init");
	snprintf(sub, sizeof(sub), "%s/rm", dir);
	snprintf(sock, sizeof(sock), "%s/s.sock", sub);
	LR_TEST_ASSERT(mkdir(sub, 0700) == 0, "mkdir %s", sub);
	snprintf(s, sizeof(s),
		 "net_memif90,role=server,socket=%s,socket-abstract=no", sock);
	snprintf(c, sizeof(c),
		 "net_memif91,role=client,socket=%s,socket-abstract=no", sock);
	sp = port_open(s, 1);
	cp = port_open(c, 1);
	if (sp < 0 || cp < 0 || wait_link(sp, cp, 1) != 0)
		goto out;
	/* removed while connected: reported, listening again, link up */
	lr_test_log_begin();
	if (unlink(sock) != 0 || wait_log("net_memif90: socket ") != 0 ||
	    wait_log("/rm/s.sock removed: listening on it again (connected "
		     "clients stay connected)") != 0)
		goto log_out;
	lr_test_log_end();
	if (!lr_test_memif_link_up(sp) || !lr_test_memif_link_up(cp) ||
	    stat(sock, &st) != 0 || (st.st_mode & 0777) != 0600 ||
	    xfer(cp, 0, sp, 0, 90, 300) != 0 ||
	    xfer(sp, 0, cp, 0, 91, 300) != 0) {
		fprintf(stderr, "after the removal: links %d %d, file %d\n",
			lr_test_memif_link_up(sp), lr_test_memif_link_up(cp),
			access(sock, F_OK));
		goto out;
	}
	/* removed while no client is connected; a client gets in */
	lr_eth_dev_stop((uint16_t)cp);
	if (wait_link(sp, -1, 0) != 0)
		goto out;
	lr_test_log_begin();
	if (unlink(sock) != 0 ||
	    wait_log("/rm/s.sock removed: listening on it again") != 0)
		goto log_out;
	lr_test_log_end();
	if (lr_eth_dev_start((uint16_t)cp) != 0 || wait_link(sp, cp, 1) != 0 ||
	    xfer(cp, 0, sp, 0, 92, 300) != 0)
		goto out;
	/* another's file in its place: left alone, even by the stop */
	lr_test_log_begin();
	other = foreign_socket(sock);
	if (other < 0 || wait_log("/rm/s.sock replaced by another file: "
				  "left alone") != 0)
		goto log_out;
	if (!lr_test_memif_link_up(sp) || !lr_test_memif_link_up(cp) ||
	    xfer(sp, 0, cp, 0, 93, 300) != 0)
		goto log_out;
	lr_eth_dev_stop((uint16_t)sp);
	if (wait_link(cp, -1, 0) != 0)
		goto log_out;
	lr_test_log_end();
	if (access(sock, F_OK) != 0) {
		fprintf(stderr, "the server's stop removed another's file\n");
		goto out;
	}
	/* the client's path vanishes: it goes on retrying */
	lr_test_log_begin();
	close(other);
	other = -1;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", sub);
	if (system(cmd) != 0 ||
	    wait_log("net_memif91: waiting for a server on ") != 0 ||
	    wait_log("/rm/s.sock (No such file or directory)") != 0)
		goto log_out;
	lr_test_log_end();
	if (mkdir(sub, 0700) != 0 || lr_eth_dev_start((uint16_t)sp) != 0 ||
	    wait_link(sp, cp, 1) != 0 || xfer(cp, 0, sp, 0, 94, 300) != 0 ||
	    xfer(sp, 0, cp, 0, 95, 300) != 0)
		goto out;
	if (xstat(cp, "connects") != 3) {
		fprintf(stderr, "client connects %llu, expected 3\n",
			(unsigned long long)xstat(cp, "connects"));
		goto out;
	}
	ret = 0;
	goto out;
log_out:
	fprintf(stderr, "log:\n%s\n", lr_test_log_end());
out:
	if (other >= 0)
		close(other);
	lr_test_memif_shut(cp);
	lr_test_memif_shut(sp);
	LR_TEST_ASSERT(ret == 0, "socket removed");
	LR_TEST_ASSERT(access(sock, F_OK) != 0, "socket file %s left behind",
		       sock);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return 0;
}

static int
test_secret(void)
{
	char s[256], c[256];
	int sp, cp, ret;

	LR_TEST_ASSERT(init_eal() == 0, "EAL init");
	snprintf(s, sizeof(s),
		 "net_memif30,role=server,socket=%s/sec,"
		 "secret=open-sesame",
		 dir);
	snprintf(c, sizeof(c),
		 "net_memif31,role=client,socket=%s/sec,"
		 "secret=open-barley",
		 dir);
	lr_test_log_begin();
	sp = port_open(s, 1);
	cp = port_open(c, 1);
	ret = sp >= 0 && cp >= 0 ? wait_log("incorrect secret") : -1;
	if (ret == 0)
		ret = wait_log("net_memif31: peer disconnected: incorrect "
			       "secret");
	LR_TEST_ASSERT(!lr_test_memif_link_up(sp) && !lr_test_memif_link_up(cp),
		       "link up");
	lr_test_memif_shut(cp);
	lr_test_memif_shut(sp);
	lr_test_log_end();
	LR_TEST_ASSERT(ret == 0, "wrong secret not refused");
	/* the right one */
	snprintf(c, sizeof(c),
		 "net_memif31,role=client,socket=%s/sec,"
		 "secret=open-sesame",
		 dir);
	sp = port_open(s, 1);
	cp = port_open(c, 1);
	ret = sp >= 0 && cp >= 0 ? wait_link(sp, cp, 1) : -1;
	lr_test_memif_shut(cp);
	lr_test_memif_shut(sp);
	LR_TEST_ASSERT(ret == 0, "right secret refused");
	return 0;
}

/* ------------------------------------------------------------------ */
/* A hand-written peer. */

struct __attribute__((packed)) raw_msg {
	uint16_t type;
	uint8_t body[126];
};

static int
raw_connect(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);

	if (strlen(path) >= sizeof(sa.sun_path))
		return -1;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		perror("connect");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Send len bytes of m with fd (-1: none); 0 or -1. */
static int
raw_send(int s, const void *m, size_t len, int fd)
{
	return lr_unix_send(s, m, len, &fd, fd >= 0 ? 1 : 0) == 0 ? 0 : -1;
}

/* Receive one message (waiting up to 20 s); its type or -1. */
static int
raw_recv(int s, struct raw_msg *m)
{
	struct pollfd pfd = {.fd = s, .events = POLLIN};

	if (poll(&pfd, 1, 20000) != 1)
		return -1;
	memset(m, 0, sizeof(*m));
	if (recv(s, m, sizeof(*m), 0) != (ssize_t)sizeof(*m))
		return -1;
	return m->type;
}

enum {
	ACK = 1,
	HELLO = 2,
	INIT = 3,
	ADD_REGION = 4,
	ADD_RING = 5,
	CONNECT = 6,
	DISCONNECT = 8
};

static void
raw_init(struct raw_msg *m, uint32_t id)
{
	memset(m, 0, sizeof(*m));
	m->type = INIT;
	uint16_t v = 0x0200;

	memcpy(m->body, &v, 2);
	memcpy(m->body + 2, &id, 4);
}

/* Run one bad exchange against the server at path; 0 if the server
 * answered with DISCONNECT whose reason holds `reason`. */
static int
bad_exchange(const char *path, int what, const char *reason)
{
	struct raw_msg m;
	int s = raw_connect(path), ret = -1, mfd = -1;

	if (s < 0)
		return -1;
	if (raw_recv(s, &m) != HELLO)
		goto out;
	if (what == 0) { /* a short message */
		raw_init(&m, 0);
		raw_send(s, &m, 64, -1);
		goto answer;
	}
	raw_init(&m, what == 2 ? 77 : 0);
	raw_send(s, &m, sizeof(m), -1);
	if (what == 2)
		goto answer;
	if (raw_recv(s, &m) != ACK)
		goto out;
	memset(&m, 0, sizeof(m));
	m.type = ADD_REGION;
	uint64_t size = 4096;

	memcpy(m.body + 2, &size, 8);
	if (what == 1) { /* region without its memfd */
		raw_send(s, &m, sizeof(m), -1);
		goto answer;
	}
	mfd = memfd_create("bad", MFD_ALLOW_SEALING);
	if (mfd < 0 || ftruncate(mfd, 4096) != 0 ||
	    fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK) != 0)
		goto out;
	uint32_t cookie = 0x3E31F20; /* the C2S ring at 0 looks right */

	if (pwrite(mfd, &cookie, 4, 0) != 4)
		goto out;
	raw_send(s, &m, sizeof(m), mfd);
	if (raw_recv(s, &m) != ACK)
		goto out;
	/* two rings; the S2C one past the region's end */
	for (int dir = 0; dir < 2; dir++) {
		uint16_t flags = dir == 0 ? 1 : 0;
		uint32_t off = dir == 0 ? 0 : 4096 - 64;
		int efd = memfd_create("ev", 0);

		memset(&m, 0, sizeof(m));
		m.type = ADD_RING;
		memcpy(m.body, &flags, 2);
		memcpy(m.body + 6, &off, 4);
		m.body[10] = 4;
		raw_send(s, &m, sizeof(m), efd);
		close(efd);
		if (raw_recv(s, &m) != ACK)
			goto out;
	}
	memset(&m, 0, sizeof(m));
	m.type = CONNECT;
	raw_send(s, &m, sizeof(m), -1);
answer:
	if (raw_recv(s, &m) != DISCONNECT) {
		fprintf(stderr, "bad peer %d: no DISCONNECT (type %u)\n", what,
			m.type);
		goto out;
	}
	m.body[125] = '\0';
	if (strstr((char *)m.body + 4, reason) == NULL) {
		fprintf(stderr, "bad peer %d: reason '%s', expected '%s'\n",
			what, (char *)m.body + 4, reason);
		goto out;
	}
	ret = 0;
out:
	if (mfd >= 0)
		close(mfd);
	close(s);
	return ret;
}

/* A hand-written client that connects properly, then publishes a C2S
 * descriptor pointing past its region: the server's rx must refuse it and
 * disconnect naming it. 0 or -1. */
static int
bad_descriptor(const char *path, int sp)
{
	struct raw_msg m;
	int s = raw_connect(path), ret = -1, mfd = -1;
	const uint32_t rb = 2 * LR_CACHE_LINE_SIZE + 16 * 16; /* log2 4 */
	uint8_t *reg = MAP_FAILED;

	if (s < 0)
		return -1;
	if (raw_recv(s, &m) != HELLO)
		goto out;
	raw_init(&m, 0);
	raw_send(s, &m, sizeof(m), -1);
	if (raw_recv(s, &m) != ACK)
		goto out;
	mfd = memfd_create("bad", MFD_ALLOW_SEALING);
	if (mfd < 0 || ftruncate(mfd, 4096) != 0 ||
	    fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK) != 0)
		goto out;
	reg = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	if (reg == MAP_FAILED)
		goto out;
	uint32_t cookie = 0x3E31F20;

	memcpy(reg, &cookie, 4);
	memcpy(reg + rb, &cookie, 4);
	memset(&m, 0, sizeof(m));
	m.type = ADD_REGION;
	uint64_t size = 4096;

	memcpy(m.body + 2, &size, 8);
	raw_send(s, &m, sizeof(m), mfd);
	if (raw_recv(s, &m) != ACK)
		goto out;
	for (int d = 0; d < 2; d++) {
		uint16_t flags = d == 0 ? 1 : 0;
		uint32_t off = d == 0 ? 0 : rb;
		int efd = memfd_create("ev", 0);

		memset(&m, 0, sizeof(m));
		m.type = ADD_RING;
		memcpy(m.body, &flags, 2);
		memcpy(m.body + 6, &off, 4);
		m.body[10] = 4;
		raw_send(s, &m, sizeof(m), efd);
		close(efd);
		if (raw_recv(s, &m) != ACK)
			goto out;
	}
	memset(&m, 0, sizeof(m));
	m.type = CONNECT;
	raw_send(s, &m, sizeof(m), -1);
	if (raw_recv(s, &m) != 7 /* CONNECTED */)
		goto out;
	/* desc 0 of the C2S ring: {flags, region, length, offset, meta} */
	uint16_t z = 0;
	uint32_t len = 500, off = 4000;
	uint8_t *d0 = reg + 2 * LR_CACHE_LINE_SIZE;

	memcpy(d0, &z, 2);
	memcpy(d0 + 2, &z, 2);
	memcpy(d0 + 4, &len, 4);
	memcpy(d0 + 8, &off, 4);
	__atomic_store_n((uint16_t *)(reg + 6), (uint16_t)1, __ATOMIC_RELEASE);
	/* the server polls and finds it */
	struct lr_mbuf *mb[BURST];
	struct pollfd pfd = {.fd = s, .events = POLLIN};
	uint64_t end = lr_get_tsc_cycles() + 20 * lr_get_tsc_hz();

	while (poll(&pfd, 1, 0) == 0 && lr_get_tsc_cycles() < end) {
		uint16_t n = lr_eth_rx_burst((uint16_t)sp, 0, mb, BURST);

		lr_pktmbuf_free_bulk(mb, n);
		if (n != 0) {
			fprintf(stderr, "bad descriptor received\n");
			goto out;
		}
		lr_delay_us(100);
	}
	if (raw_recv(s, &m) != DISCONNECT)
		goto out;
	m.body[125] = '\0';
	if (strstr((char *)m.body + 4,
		   "rx queue 0: descriptor 0: region 0 offset 4000 length 500 "
		   "outside the regions") == NULL) {
		fprintf(stderr, "bad descriptor: reason '%s'\n",
			(char *)m.body + 4);
		goto out;
	}
	ret = 0;
out:
	if (reg != MAP_FAILED)
		munmap(reg, 4096);
	if (mfd >= 0)
		close(mfd);
	close(s);
	return ret;
}

static int
test_bad_peer(void)
{
	char s[256], c[256], sock[128];
	int sp, cp;

	LR_TEST_ASSERT(init_eal() == 0, "EAL init");
	snprintf(sock, sizeof(sock), "%s/bad.sock", dir);
	snprintf(s, sizeof(s),
		 "net_memif40,role=server,socket=%s,socket-abstract=no", sock);
	sp = port_open(s, 1);
	LR_TEST_ASSERT(sp >= 0, "server");
	lr_test_log_begin();
	int r0 = bad_exchange(sock, 0, "message of 64 bytes");
	int r1 = bad_exchange(sock, 1, "ADD_REGION: missing file descriptor");
	int r2 = bad_exchange(sock, 2, "no interface with id 77");
	int r3 = bad_exchange(sock, 3, "S2C ring 0: region 0 offset 4032");
	int r4 = bad_descriptor(sock, sp);
	const char *log = lr_test_log_end();

	LR_TEST_ASSERT(r0 == 0 && r1 == 0 && r2 == 0 && r3 == 0 && r4 == 0,
		       "bad peers: %d %d %d %d %d", r0, r1, r2, r3, r4);
	LR_TEST_ASSERT(strstr(log, "outside the regions") != NULL,
		       "no log line for the bad ring");
	LR_TEST_ASSERT(!lr_test_memif_link_up(sp), "link up after a bad peer");
	/* and a real client still gets in */
	snprintf(c, sizeof(c),
		 "net_memif41,role=client,socket=%s,socket-abstract=no", sock);
	cp = port_open(c, 1);
	int ret = cp >= 0 ? wait_link(sp, cp, 1) : -1;

	if (ret == 0)
		ret = xfer(cp, 0, sp, 0, 40, 100);
	lr_test_memif_shut(cp);
	lr_test_memif_shut(sp);
	LR_TEST_ASSERT(ret == 0, "client after bad peers");
	return 0;
}

/* Receive one message and up to one fd with it (waiting up to 20 s);
 * its type or -1. */
static int
raw_recv_fd(int s, struct raw_msg *m, int *fd)
{
	struct pollfd pfd = {.fd = s, .events = POLLIN};
	unsigned n;

	*fd = -1;
	if (poll(&pfd, 1, 20000) != 1)
		return -1;
	memset(m, 0, sizeof(*m));
	if (lr_unix_recv(s, m, sizeof(*m), fd, 1, &n) != (ssize_t)sizeof(*m))
		return -1;
	if (n == 0)
		*fd = -1;
	return m->type;
}

/* What a hand-written server learnt from a client's handshake. */
struct raw_peer {
	int s;	       /* the connection */
	int reg_fd[2]; /* regions 0 and 1 */
	uint64_t reg_size[2];
	uint32_t s2c_off; /* S2C ring 0 in region 0 */
	uint8_t *reg0;	  /* region 0, mapped */
};

/* Accept a client on listener lis and take it through the handshake
 * (HELLO, then ACK to everything up to CONNECT, answered CONNECTED);
 * 0 or -1. The client's control thread does its part meanwhile. */
static int
raw_serve(int lis, struct raw_peer *rp)
{
	struct pollfd pfd = {.fd = lis, .events = POLLIN};
	struct raw_msg m;
	int type, fd;

	memset(rp, 0, sizeof(*rp));
	rp->s = -1;
	rp->reg_fd[0] = rp->reg_fd[1] = -1;
	rp->reg0 = MAP_FAILED;
	if (poll(&pfd, 1, 20000) != 1 || (rp->s = accept(lis, NULL, 0)) < 0)
		return -1;
	memset(&m, 0, sizeof(m));
	m.type = HELLO;
	uint16_t v = 0x0200, maxreg = 1, maxq = 0;

	memcpy(m.body + 32, &v, 2);
	memcpy(m.body + 34, &v, 2);
	memcpy(m.body + 36, &maxreg, 2);
	memcpy(m.body + 38, &maxq, 2);
	memcpy(m.body + 40, &maxq, 2);
	m.body[42] = 10;
	raw_send(rp->s, &m, sizeof(m), -1);
	while ((type = raw_recv_fd(rp->s, &m, &fd)) != CONNECT) {
		uint16_t idx, flags;

		memcpy(&idx, m.body, 2);
		if (type == ADD_REGION && idx < 2) {
			rp->reg_fd[idx] = fd;
			memcpy(&rp->reg_size[idx], m.body + 2, 8);
		} else if (type == ADD_RING) {
			memcpy(&flags, m.body, 2);
			if (!(flags & 1))
				memcpy(&rp->s2c_off, m.body + 6, 4);
			close(fd);
		} else if (type != INIT) {
			return -1;
		}
		memset(&m, 0, sizeof(m));
		m.type = ACK;
		raw_send(rp->s, &m, sizeof(m), -1);
	}
	if (rp->reg_fd[0] < 0 || rp->reg_fd[1] < 0)
		return -1;
	rp->reg0 = mmap(NULL, rp->reg_size[0], PROT_READ | PROT_WRITE,
			MAP_SHARED, rp->reg_fd[0], 0);
	memset(&m, 0, sizeof(m));
	m.type = 7; /* CONNECTED */
	raw_send(rp->s, &m, sizeof(m), -1);
	return rp->reg0 == MAP_FAILED ? -1 : 0;
}

static void
raw_peer_close(struct raw_peer *rp)
{
	if (rp->reg0 != MAP_FAILED)
		munmap(rp->reg0, rp->reg_size[0]);
	for (int i = 0; i < 2; i++)
		if (rp->reg_fd[i] >= 0)
			close(rp->reg_fd[i]);
	if (rp->s >= 0)
		close(rp->s);
}

/* A hand-written server fills S2C slot 0 of the zero-copy client cp
 * wrongly (what 0: a length past bsize; 1: another offset than the one
 * offered) and publishes it: the client's rx must hand nothing up and
 * disconnect with a DISCONNECT whose reason holds `reason`. 0 or -1. */
static int
bad_zc_server(int lis, int cp, int what, const char *reason)
{
	struct raw_peer rp;
	struct raw_msg m;
	int ret = -1;

	if (raw_serve(lis, &rp) != 0)
		goto out;
	uint8_t *ring = rp.reg0 + rp.s2c_off;
	uint8_t *d0 = ring + 2 * LR_CACHE_LINE_SIZE;
	uint32_t len = what == 0 ? 5000 : 100, off;
	struct lr_mbuf *mb[BURST];
	struct pollfd pfd = {.fd = rp.s, .events = POLLIN};
	uint64_t end = lr_get_tsc_cycles() + 20 * lr_get_tsc_hz();

	/* the client offers region 1 buffers from CONNECTED on */
	memcpy(&off, d0 + 8, 4);
	off += what == 1 ? 64 : 0;
	memcpy(d0 + 4, &len, 4);
	memcpy(d0 + 8, &off, 4);
	__atomic_store_n((uint16_t *)(ring + LR_CACHE_LINE_SIZE), (uint16_t)1,
			 __ATOMIC_RELEASE);
	while (poll(&pfd, 1, 0) == 0 && lr_get_tsc_cycles() < end) {
		uint16_t n = lr_eth_rx_burst((uint16_t)cp, 0, mb, BURST);

		lr_pktmbuf_free_bulk(mb, n);
		if (n != 0) {
			fprintf(stderr, "bad zc descriptor %d received\n",
				what);
			goto out;
		}
		lr_delay_us(100);
	}
	if (raw_recv(rp.s, &m) != DISCONNECT)
		goto out;
	m.body[125] = '\0';
	if (strstr((char *)m.body + 4, reason) == NULL) {
		fprintf(stderr, "bad zc descriptor %d: reason '%s'\n", what,
			(char *)m.body + 4);
		goto out;
	}
	ret = 0;
out:
	raw_peer_close(&rp);
	return ret;
}

/* A zero-copy client facing a server that fills its buffers wrongly. */
static int
test_zc_bad_peer(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char c[256];
	int lis, cp, r0 = -1, r1 = -1;

	LR_TEST_ASSERT(init_eal() == 0, "EAL init");
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/zcbad.sock", dir);
	lis = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	LR_TEST_ASSERT(lis >= 0 &&
			   bind(lis, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
			   listen(lis, 4) == 0,
		       "listener: %s", strerror(errno));
	snprintf(c, sizeof(c),
		 "net_memif72,role=client,socket=%s,socket-abstract=no,"
		 "zero-copy=yes",
		 sa.sun_path);
	lr_test_log_begin();
	cp = port_open(c, 1);
	if (cp >= 0) {
		r0 = bad_zc_server(lis, cp, 0,
				   "rx queue 0: descriptor 0: length 5000 > "
				   "buffer size 2048");
		/* the client reconnects; the next peer moves the offset */
		r1 = bad_zc_server(lis, cp, 1, "not the buffer offered");
	}
	const char *log = lr_test_log_end();
	int back =
	    cp >= 0 ? wait_link(cp, -1, 0) == 0 && zc_pool_back(cp) == 0 : 0;

	lr_test_memif_shut(cp);
	close(lis);
	unlink(sa.sun_path);
	LR_TEST_ASSERT(cp >= 0, "client");
	LR_TEST_ASSERT(r0 == 0 && r1 == 0, "bad zc peers: %d %d", r0, r1);
	LR_TEST_ASSERT(strstr(log, "net_memif72: disconnected: rx queue 0: "
				   "descriptor 0: length 5000 > buffer size "
				   "2048") != NULL,
		       "no log line for the long descriptor");
	LR_TEST_ASSERT(back, "zero-copy pool not back after the bad peers");
	return 0;
}

static int
test_socket_mode(void)
{
	char s[256], s2[256], c[256], sock[128];
	struct stat st;
	int sp, sp2, cp, ret = -1;
	const char *log;

	LR_TEST_ASSERT(init_eal() == 0, "EAL init");
	snprintf(sock, sizeof(sock), "%s/mode.sock", dir);
	snprintf(s, sizeof(s),
		 "net_memif80,role=server,socket=%s,socket-abstract=no,"
		 "socket-mode=0660",
		 sock);
	snprintf(s2, sizeof(s2),
		 "net_memif81,role=server,id=1,socket=%s,socket-abstract=no",
		 sock);
	snprintf(c, sizeof(c),
		 "net_memif82,role=client,socket=%s,socket-abstract=no", sock);
	sp = port_open(s, 1);
	LR_TEST_ASSERT(sp >= 0, "server with socket-mode=0660");
	LR_TEST_ASSERT(stat(sock, &st) == 0, "stat %s: %s", sock,
		       strerror(errno));
	if ((st.st_mode & 07777) != 0660)
		fprintf(stderr, "socket mode %o, expected 660\n",
			st.st_mode & 07777);
	/* a second server port on it wants the default 0600 */
	lr_test_log_begin();
	sp2 = port_open(s2, 1);
	log = lr_test_log_end();
	lr_test_memif_shut(sp2);
	cp = port_open(c, 1);
	if (cp >= 0 && wait_link(sp, cp, 1) == 0)
		ret = xfer(cp, 0, sp, 0, 3, 100);
	lr_test_memif_shut(cp);
	lr_test_memif_shut(sp);
	LR_TEST_ASSERT((st.st_mode & 07777) == 0660, "socket file mode");
	LR_TEST_ASSERT(sp2 < 0, "a second mode for one socket accepted");
	LR_TEST_ASSERT(strstr(log, "net_memif81: socket-mode: 0600, but "
				   "socket") != NULL,
		       "no clear error for two modes on one socket");
	LR_TEST_ASSERT(ret == 0, "client through a 0660 socket");
	return 0;
}

static int
test_bad_devargs(void)
{
	static const struct {
		const char *args, *msg;
	} bad[] = {
	    {"net_memif50,role=master", "role: bad value 'master'"},
	    {"net_memif50,rsize=15", "rsize"},
	    {"net_memif50,bsize=10", "bsize"},
	    {"net_memif50,mac=02:00:00:00:zz:01", "mac: bad value"},
	    {"net_memif50,secret=0123456789012345678901234",
	     "secret: bad value"},
	    {"net_memif50,role=server,zero-copy=maybe",
	     "zero-copy: bad value 'maybe'"},
	    {"net_memif50,role=client,zero-copy=maybe",
	     "zero-copy: bad value 'maybe'"},
	    {"net_memif50,role=client,zero-copy=yes,bsize=65400",
	     "bsize: bad value '65400' with zero-copy=yes"},
	    {"net_memif50,socket-abstract=maybe", "socket-abstract"},
	    {"net_memif50,id=-1", "id"},
	    {"net_memif50,queues=2", "queues"},
	    {"net_memif50,socket-abstract=no,socket-mode=0999",
	     "socket-mode: bad value '0999' (expected octal permission bits"},
	    {"net_memif50,socket-abstract=no,socket-mode=1777",
	     "socket-mode: bad value '1777'"},
	    {"net_memif50,socket-abstract=no,socket-mode=rw",
	     "socket-mode: bad value 'rw'"},
	    {"net_memif50,socket-abstract=no,socket-mode=", "socket-mode"},
	    {"net_memif50,socket-mode=0660",
	     "socket-mode: '0660' needs a server's socket file"},
	    {"net_memif50,role=client,socket-abstract=no,socket-mode=0660",
	     "socket-mode: '0660' needs a server's socket file"},
	    {"net_memif50,socket=/tmp/"
	     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	     "socket: bad value"},
	};

	LR_TEST_ASSERT(init_eal() == 0, "EAL init");
	for (unsigned i = 0; i < LR_DIM(bad); i++) {
		lr_test_log_begin();
		int r = lr_eth_dev_create(bad[i].args);
		const char *log = lr_test_log_end();

		LR_TEST_ASSERT(r < 0, "'%s' accepted", bad[i].args);
		LR_TEST_ASSERT(strstr(log, bad[i].msg) != NULL,
			       "'%s': no '%s' in the log", bad[i].args,
			       bad[i].msg);
	}
	/* a socket path another server holds */
	char a[256], b[256];
	int p1, p2;

	snprintf(a, sizeof(a), "net_memif51,socket=%s/busy", dir);
	snprintf(b, sizeof(b), "net_memif52,socket=%s/busy", dir);
	p1 = port_open(a, 1);
	LR_TEST_ASSERT(p1 >= 0, "first server");
	lr_test_log_begin();
	p2 = port_open(b, 1); /* same id 0 on the same socket */
	const char *log = lr_test_log_end();

	lr_test_memif_shut(p2);
	lr_test_memif_shut(p1);
	LR_TEST_ASSERT(p2 < 0, "two servers with id 0 on one socket");
	LR_TEST_ASSERT(strstr(log, "id 0: already used by net_memif51") != NULL,
		       "no clear error for a busy id");

	/* a socket file another process listens on */
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int other = socket(AF_UNIX, SOCK_SEQPACKET, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/taken", dir);
	LR_TEST_ASSERT(other >= 0 &&
			   bind(other, (struct sockaddr *)&sa, sizeof(sa)) ==
			       0 &&
			   listen(other, 1) == 0,
		       "other listener: %s", strerror(errno));
	snprintf(a, sizeof(a), "net_memif53,socket=%s,socket-abstract=no",
		 sa.sun_path);
	lr_test_log_begin();
	p1 = port_open(a, 1);
	log = lr_test_log_end();
	close(other);
	lr_test_memif_shut(p1);
	LR_TEST_ASSERT(p1 < 0, "a socket path in use was taken over");
	LR_TEST_ASSERT(strstr(log, "cannot listen: Address already in use "
				   "(another server uses it)") != NULL,
		       "no clear error for a socket in use");
	return 0;
}

/* ------------------------------------------------------------------ */
/* DPDK's testpmd as the peer. */

static char testpmd[256];
static pid_t tp_pid = -1;
static int tp_stdin = -1;

/* dpdk-testpmd on PATH; 0 or -1. */
static int
find_testpmd(void)
{
	const char *path = getenv("PATH");
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s", path ? path : "/usr/bin:/bin");
	for (char *d = strtok(buf, ":"); d != NULL; d = strtok(NULL, ":")) {
		snprintf(testpmd, sizeof(testpmd), "%s/dpdk-testpmd", d);
		if (access(testpmd, X_OK) == 0)
			return 0;
	}
	return -1;
}

/* Start testpmd with one memif port of this role on sock (io forwarding,
 * the port forwarding to itself); output in dir/testpmd-<role>.log. */
static int
testpmd_start(const char *role, const char *sock)
{
	char vdev[256], prefix[64], logp[128];
	int pfd[2];

	snprintf(vdev, sizeof(vdev),
		 "net_memif0,role=%s,socket=%s,socket-abstract=no", role, sock);
	snprintf(prefix, sizeof(prefix), "--file-prefix=test_pmd_memif_dpdk%d",
		 (int)getpid());
	snprintf(logp, sizeof(logp), "%s/testpmd-%s.log", dir, role);
	if (pipe(pfd) != 0)
		return -1;
	tp_pid = fork();
	if (tp_pid < 0)
		return -1;
	if (tp_pid == 0) {
		int fd = open(logp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		/* line-buffered through stdbuf: the test waits for lines */
		char *argv[] = {"stdbuf",
				"-oL",
				testpmd,
				"-l",
				"0,1",
				"--no-huge",
				"-m",
				"256",
				prefix,
				"--no-pci",
				"--vdev",
				vdev,
				"--",
				"--forward-mode=io",
				"-a",
				"--nb-cores=1",
				"--total-num-mbufs=8192",
				NULL};

		dup2(pfd[0], 0);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		close(pfd[1]);
		execvp("stdbuf", argv);
		execv(testpmd, argv + 2);
		_exit(127);
	}
	close(pfd[0]);
	tp_stdin = pfd[1]; /* testpmd runs until this closes */
	return 0;
}

/* Stop testpmd (enter, then a signal if it lingers); its exit status. */
static int
testpmd_stop(void)
{
	int st = -1;

	if (tp_pid < 0)
		return -1;
	if (tp_stdin >= 0 && write(tp_stdin, "\n", 1) != 1)
		kill(tp_pid, SIGTERM);
	close(tp_stdin);
	tp_stdin = -1;
	for (int i = 0; i < 20000; i++) {
		if (waitpid(tp_pid, &st, WNOHANG) == tp_pid)
			goto done;
		lr_delay_us(1000);
	}
	kill(tp_pid, SIGKILL);
	waitpid(tp_pid, &st, 0);
done:
	tp_pid = -1;
	/* DPDK leaves its runtime folder for the prefix behind */
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf /var/run/dpdk/test_pmd_memif_dpdk%d",
		 (int)getpid());
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove DPDK's runtime folder\n");
	return st;
}

static void
testpmd_log(const char *role)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "tail -20 '%s/testpmd-%s.log' >&2", dir,
		 role);
	if (system(cmd) != 0)
		fprintf(stderr, "(no testpmd log)\n");
}

/* Wait (up to 30 s) until testpmd's output holds line; 0 or -1. */
static int
testpmd_wait_line(const char *role, const char *line)
{
	char path[128], buf[65536];
	uint64_t end = lr_get_tsc_cycles() + 30 * lr_get_tsc_hz();

	snprintf(path, sizeof(path), "%s/testpmd-%s.log", dir, role);
	while (lr_get_tsc_cycles() < end) {
		FILE *f = fopen(path, "r");
		size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

		if (f != NULL)
			fclose(f);
		buf[n] = '\0';
		if (strstr(buf, line) != NULL)
			return 0;
		if (waitpid(tp_pid, NULL, WNOHANG) != 0) {
			fprintf(stderr, "testpmd exited before '%s'\n", line);
			return -1;
		}
		lr_delay_us(1000);
	}
	fprintf(stderr, "no '%s' from testpmd after 30 s\n", line);
	return -1;
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

/* testpmd as the server, our client port number id (zc: in zero-copy
 * mode, sending its pool's mbufs and checking it receives them). */
static int
dpdk_server_run(unsigned id, int zc)
{
	char c[256], sock[128];
	int cp = -1, ret = -1;
	uint64_t end;

	if (find_testpmd() != 0 || sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		printf(
		    "skip: needs dpdk-testpmd (Debian: dpdk-dev) and 2 CPUs\n");
		return LR_TEST_SKIP;
	}
	LR_TEST_ASSERT(init_eal() == 0, "EAL init");
	/* a path of its own: DPDK leaves its socket file behind, and a
	 * DPDK server does not replace a stale one */
	snprintf(sock, sizeof(sock), "%s/dpdk-server%u.sock", dir, id);
	LR_TEST_ASSERT(testpmd_start("server", sock) == 0, "fork");
	/* ready when its socket exists */
	end = lr_get_tsc_cycles() + 30 * lr_get_tsc_hz();
	while (access(sock, F_OK) != 0 && lr_get_tsc_cycles() < end &&
	       waitpid(tp_pid, NULL, WNOHANG) == 0)
		lr_delay_us(1000);
	snprintf(c, sizeof(c),
		 "net_memif%u,role=client,socket=%s,socket-abstract=no%s", id,
		 sock, zc ? ",zero-copy=yes" : "");
	cp = access(sock, F_OK) == 0 ? port_open(c, 1) : -1;
	if (cp >= 0 && zc)
		tx_pool = rx_expect = lr_eth_memif_pool((uint16_t)cp);
	if (cp >= 0 && wait_link(cp, -1, 1) == 0 &&
	    testpmd_wait_line("server", "Press enter to exit") == 0)
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
	testpmd_stop();
	if (ret != 0)
		testpmd_log("server");
	LR_TEST_ASSERT(ret == 0, "testpmd as server");
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return 0;
}

static int
test_dpdk_server(void)
{
	return dpdk_server_run(60, 0);
}

static int
test_dpdk_server_zc(void)
{
	return dpdk_server_run(62, 1);
}

/* testpmd (io) as the client of our server port (zrx: zero-copy
 * receive), frames sent to it come back intact. */
static int
dpdk_client_run(unsigned tag, int zrx)
{
	char s[256], sock[128];
	int sp, ret = -1;

	if (find_testpmd() != 0 || sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		printf(
		    "skip: needs dpdk-testpmd (Debian: dpdk-dev) and 2 CPUs\n");
		return LR_TEST_SKIP;
	}
	LR_TEST_ASSERT(init_eal() == 0, "EAL init");
	snprintf(sock, sizeof(sock), "%s/dpdk-client.sock", dir);
	snprintf(s, sizeof(s),
		 "net_memif%u,role=server,socket=%s,socket-abstract=no%s", tag,
		 sock, zrx ? ",zero-copy=yes" : "");
	sp = port_open(s, 1);
	LR_TEST_ASSERT(sp >= 0, "server port");
	if (testpmd_start("client", sock) == 0 && wait_link(sp, -1, 1) == 0 &&
	    testpmd_wait_line("client", "Press enter to exit") == 0)
		ret = dpdk_roundtrip(sp, tag);
	/* zero-copy receive: every frame came in the client's buffers and
	 * every header went back */
	if (ret == 0 && zrx && xstat(sp, "rx_zc_held") != 0)
		ret = -1;
	testpmd_stop();
	if (ret == 0 && wait_link(sp, -1, 0) != 0)
		ret = -1; /* testpmd gone: link down */
	lr_test_memif_shut(sp);
	if (ret != 0)
		testpmd_log("client");
	LR_TEST_ASSERT(ret == 0, "testpmd as client");
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return 0;
}

static int
test_dpdk_client(void)
{
	return dpdk_client_run(61, 0);
}

/* testpmd as client of a zero-copy server: frames received in DPDK's
 * buffers, byte for byte. */
static int
test_dpdk_client_zrx(void)
{
	return dpdk_client_run(63, 1);
}

/* Client frames of one full buffer (bsize=1024) followed by an empty
 * segment, twice as many as the ring's 16 slots, in one burst. */
static int
test_empty_segment(void)
{
	char s[256], c[256], sock[128];
	struct lr_mbuf *m[32];
	uint16_t sent = 0, got = 0, bad = 0;
	uint64_t end;
	int sp, cp;

	LR_TEST_ASSERT(init_eal() == 0, "EAL init");
	snprintf(sock, sizeof(sock), "%s/empty.sock", dir);
	snprintf(s, sizeof(s),
		 "net_memif77,role=server,socket=%s,socket-abstract=no", sock);
	snprintf(c, sizeof(c),
		 "net_memif78,role=client,socket=%s,socket-abstract=no,"
		 "rsize=4,bsize=1024",
		 sock);
	sp = port_open(s, 1);
	cp = port_open(c, 1);
	if (sp < 0 || cp < 0 || wait_link(sp, cp, 1) != 0)
		goto out;
	for (unsigned j = 0; j < LR_DIM(m); j++) {
		struct lr_mbuf *t = lr_pktmbuf_alloc(pool);

		m[j] = lr_pktmbuf_alloc(pool);
		LR_TEST_ASSERT(m[j] != NULL && t != NULL, "pool empty");
		memset(lr_pktmbuf_append(m[j], 1024), (int)j, 1024);
		LR_TEST_ASSERT(lr_pktmbuf_chain(m[j], t) == 0, "chain");
	}
	sent = lr_eth_tx_burst((uint16_t)cp, 0, m, LR_DIM(m));
	lr_pktmbuf_free_bulk(m + sent, LR_DIM(m) - sent);
	end = lr_get_tsc_cycles() + 20 * lr_get_tsc_hz();
	while (got < sent && lr_test_memif_link_up(sp) &&
	       lr_get_tsc_cycles() < end) {
		uint16_t r = lr_eth_rx_burst((uint16_t)sp, 0, m, LR_DIM(m));

		for (uint16_t j = 0; j < r; j++, got++)
			bad += m[j]->pkt_len != 1024 ||
			       *lr_pktmbuf_mtod(m[j], uint8_t *) != got;
		lr_pktmbuf_free_bulk(m, r);
	}
out:;
	int up = sp >= 0 && lr_test_memif_link_up(sp);

	lr_test_memif_shut(cp);
	lr_test_memif_shut(sp);
	LR_TEST_ASSERT(sp >= 0 && cp >= 0, "ports");
	LR_TEST_ASSERT(up, "server link down after the burst");
	LR_TEST_ASSERT(sent == 16 && got == 16 && bad == 0,
		       "sent %u, got %u (%u bad): expected 16 whole frames",
		       sent, got, bad);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return 0;
}

/* Ones' complement sum of len bytes (big-endian words), added to sum. */
static uint32_t
ocsum(const uint8_t *d, uint32_t len, uint32_t sum)
{
	for (uint32_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(d[i] << 8 | d[i + 1]);
	if (len & 1)
		sum += (uint32_t)d[len - 1] << 8;
	return sum;
}

static uint16_t
ofold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* An IPv4 frame's header checksum and its L4 (TCP or UDP) checksum both
 * verify: 0 or -1 after a message. */
static int
cksums_ok(const uint8_t *f, uint32_t len)
{
	uint32_t ihl = (uint32_t)(f[14] & 0xf) * 4, l4 = 14 + ihl;
	uint32_t l4len = (uint32_t)(f[16] << 8 | f[17]) - ihl;
	uint32_t sum = ocsum(f + 26, 8, 0); /* addresses */

	if (l4 + l4len != len || ofold(ocsum(f + 14, ihl, 0)) != 0xffff) {
		fprintf(stderr, "IPv4 header of a %u-byte frame wrong\n", len);
		return -1;
	}
	sum += f[23] + l4len;
	if (ofold(ocsum(f + l4, l4len, sum)) != 0xffff) {
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
	char s[256], c[256], sock[128];
	static uint8_t f[2048];
	struct lr_mbuf *m, *rx[BURST];
	int sp, cp, ret = -1;
	unsigned got = 0;
	uint32_t len;

	LR_TEST_ASSERT(init_eal() == 0, "EAL init");
	snprintf(sock, sizeof(sock), "%s/offl.sock", dir);
	snprintf(s, sizeof(s),
		 "net_memif0,role=server,socket=%s,socket-abstract=no", sock);
	snprintf(c, sizeof(c),
		 "net_memif1,role=client,socket=%s,socket-abstract=no", sock);
	sp = port_open(s, 1);
	cp = port_open(c, 1);
	if (sp < 0 || cp < 0 || wait_link(sp, cp, 1) != 0)
		goto out;

	/* UDP, partial: the pseudo-header sum in the field. */
	len = make_ip_frame(f, 17, 301);
	uint32_t ps = ocsum(f + 26, 8, 17 + 8 + 301);
	uint16_t field = ofold(ps);

	f[40] = (uint8_t)(field >> 8);
	f[41] = (uint8_t)field;
	uint16_t ipc = (uint16_t)~ofold(ocsum(f + 14, 20, 0));

	f[24] = (uint8_t)(ipc >> 8);
	f[25] = (uint8_t)ipc;
	m = lr_pktmbuf_alloc(pool);
	if (m == NULL)
		goto out;
	memcpy(lr_pktmbuf_append(m, (uint16_t)len), f, len);
	m->ol_flags |= LR_MBUF_F_RX_L4_CKSUM_PARTIAL;
	m->csum_start = 34;
	m->csum_offset = 6;
	if (lr_eth_tx_burst((uint16_t)cp, 0, &m, 1) != 1) {
		lr_pktmbuf_free(m);
		goto out;
	}

	/* TCP super-frame: 1800 bytes of payload, segments of 600. */
	len = make_ip_frame(f, 6, 1800);
	m = lr_pktmbuf_alloc(pool);
	if (m == NULL)
		goto out;
	memcpy(lr_pktmbuf_append(m, (uint16_t)len), f, len);
	m->ol_flags |= LR_MBUF_F_TX_TCP_SEG | LR_MBUF_F_TX_IP_CKSUM |
		       LR_MBUF_F_TX_TCP_CKSUM;
	m->l2_len = 14;
	m->l3_len = 20;
	m->l4_len = 20;
	m->tso_segsz = 600;
	if (lr_eth_tx_burst((uint16_t)cp, 0, &m, 1) != 1) {
		lr_pktmbuf_free(m);
		goto out;
	}

	uint64_t end = lr_get_tsc_cycles() + 20 * lr_get_tsc_hz();

	while (got < 4 && lr_get_tsc_cycles() < end) {
		uint16_t k = lr_eth_rx_burst((uint16_t)sp, 0, rx, BURST);

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
	if (xstat(cp, "tx_offload_errors") != 0)
		goto out;
	ret = 0;
out:
	lr_test_memif_shut(cp);
	lr_test_memif_shut(sp);
	LR_TEST_ASSERT(ret == 0, "tx_offloads failed");
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return 0;
}

static const struct lr_test_case cases[] = {
    {"pair", test_pair},
    {"tx_offloads", test_tx_offloads},
    {"zc_pair", test_zc_pair},
    {"zc_close_held", test_zc_close_held},
    {"zrx_pair", test_zrx_pair},
    {"zrx_held", test_zrx_held},
    {"empty_segment", test_empty_segment},
    {"two_queues", test_two_queues},
    {"zc_two_queues", test_zc_two_queues},
    {"zc_forward", test_zc_forward},
    {"zc_app_pool", test_zc_app_pool},
    {"reconnect", test_reconnect},
    {"zc_reconnect", test_zc_reconnect},
    {"secret", test_secret},
    {"bad_peer", test_bad_peer},
    {"zc_bad_peer", test_zc_bad_peer},
    {"socket_mode", test_socket_mode},
    {"socket_removed", test_socket_removed},
    {"bad_devargs", test_bad_devargs},
    {"dpdk_server", test_dpdk_server},
    {"dpdk_server_zc", test_dpdk_server_zc},
    {"dpdk_client", test_dpdk_client},
    {"dpdk_client_zrx", test_dpdk_client_zrx},
};

int
main(int argc, char **argv)
{
	int ret = lr_test_memif_setup("test_pmd_memif", &dir);

	if (ret != 0)
		return ret;
	return lr_test_run("pmd_memif", cases, (int)LR_DIM(cases), argc, argv);
}
