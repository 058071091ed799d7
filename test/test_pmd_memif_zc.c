/* SPDX-License-Identifier: BSD-3-Clause */
/* net_memif's zero-copy modes between two ports of this process (server
 * and client on one socket path in a temporary directory):
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
#include "lr_test_memif.h"
#include "lr_test_pmd_memif.h"
#include "lr_unix.h"

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

/* A zero-copy client and a copying server: frames of the client's pool
 * go out with no copy (one buffer) or copied (chained), foreign frames
 * are copied, received frames are mbufs of the client's pool (chains
 * above bsize); every frame intact, counters agree, the pool's mbufs all
 * back once the client stops. */
static int
test_zc_pair(void)
{
	struct memif_pair p;
	struct lr_mempool *zp = NULL;
	int ret = -1;
	const unsigned n = 20000;

	LR_TEST_ASSERT(
	    pair_init(&p, 70, "zc.sock", "", ",rsize=8,zero-copy=yes") == 0,
	    "EAL init");
	if (pair_open(&p, 1) != 0)
		goto out;
	zp = lr_eth_memif_pool((uint16_t)p.cp);
	if (zp == NULL || lr_eth_memif_pool((uint16_t)p.sp) != NULL ||
	    lr_errno != EINVAL || lr_eth_memif_pool(LR_MAX_ETHPORTS - 1) ||
	    lr_errno != ENODEV) {
		fprintf(stderr, "lr_eth_memif_pool: %p\n", (void *)zp);
		goto out;
	}
	if (wait_link(p.sp, p.cp, 1) != 0)
		goto out;
	/* our pool's frames: one buffer goes as is, chains are copied */
	tx_pool = zp;
	ret = xfer(p.cp, 0, p.sp, 0, 70, n);
	tx_pool = NULL;
	if (ret != 0 || xstat(p.cp, "tx_zc_copies") != nb_chained(n)) {
		fprintf(stderr, "pool frames: %d, %llu copied, expected %u\n",
			ret, (unsigned long long)xstat(p.cp, "tx_zc_copies"),
			nb_chained(n));
		goto fail;
	}
	/* frames of another pool are copied */
	if (xfer(p.cp, 0, p.sp, 0, 71, n) != 0 ||
	    xstat(p.cp, "tx_zc_copies") != nb_chained(n) + n)
		goto fail;
	/* received frames are the pool's mbufs */
	rx_expect = zp;
	ret = xfer(p.sp, 0, p.cp, 0, 72, n);
	rx_expect = NULL;
	if (ret != 0 || counters_agree(p.sp, p.cp, 2 * n, n) != 0)
		goto fail;
	lr_eth_dev_stop((uint16_t)p.cp);
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
	return pair_end(&p, ret, "zero-copy pair failed");
}

/* A zero-copy client closed while the application holds one of its
 * received mbufs: a warning says so and the mbuf stays usable (its buffer
 * is not unmapped under it) until it is freed. */
static int
test_zc_close_held(void)
{
	struct memif_pair p;
	struct lr_mbuf *m[BURST], *held = NULL;
	int ret = -1;

	LR_TEST_ASSERT(pair_init(&p, 73, "held.sock", "", ",zero-copy=yes") ==
			   0,
		       "EAL init");
	if (pair_up(&p, 1) != 0)
		goto out;
	m[0] = frame_mbuf(73, 0);
	if (m[0] == NULL || lr_eth_tx_burst((uint16_t)p.sp, 0, m, 1) != 1)
		goto out;
	for (uint64_t end = lr_get_tsc_cycles() + 20 * lr_get_tsc_hz();
	     held == NULL && lr_get_tsc_cycles() < end;)
		if (lr_eth_rx_burst((uint16_t)p.cp, 0, m, BURST) == 1)
			held = m[0];
	if (held == NULL || check_frame(held, 73, 0) != 0)
		goto out;
	lr_test_log_begin();
	lr_test_memif_shut(p.cp);
	p.cp = -1;
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
	return pair_end(&p, ret, "close with a held mbuf");
}

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
	struct memif_pair p = {.sp = -1, .cp = -1};
	int ret = -1;
	const unsigned n = 20000;

	LR_TEST_ASSERT(init_eal() == 0, "EAL init");
	for (int zc = 0; zc < 2; zc++) {
		struct lr_mbuf *m[BURST];
		uint16_t k = 0;

		if (pair_init(&p, 75, "zrx.sock", ",zero-copy=yes",
			      zc ? ",rsize=8,zero-copy=yes" : ",rsize=8") !=
			0 ||
		    pair_up(&p, 1) != 0)
			goto out;
		/* one frame first, to see what carries it */
		m[0] = frame_mbuf(75, 0);
		if (m[0] == NULL ||
		    lr_eth_tx_burst((uint16_t)p.cp, 0, m, 1) != 1)
			goto out;
		for (uint64_t end = lr_get_tsc_cycles() + 20 * lr_get_tsc_hz();
		     k == 0 && lr_get_tsc_cycles() < end;)
			k = lr_eth_rx_burst((uint16_t)p.sp, 0, m, BURST);
		if (k != 1 || check_frame(m[0], 75, 0) != 0 ||
		    !zrx_pool_of(m[0]) || lr_mbuf_validate(m[0]) != 0 ||
		    lr_memseg_find(m[0]->buf_addr) != NULL ||
		    xstat(p.sp, "rx_zc_held") != 1) {
			fprintf(stderr,
				"zero-copy receive: %u frames, pool '%s', "
				"held %llu\n",
				k, k ? m[0]->pool->name : "-",
				(unsigned long long)xstat(p.sp, "rx_zc_held"));
			if (k)
				lr_pktmbuf_free(m[0]);
			goto out;
		}
		lr_pktmbuf_free(m[0]);
		rx_expect = NULL;
		if (xfer(p.cp, 0, p.sp, 0, 76, n) != 0 ||
		    xfer(p.sp, 0, p.cp, 0, 77, n) != 0 ||
		    counters_agree(p.sp, p.cp, n + 1, n) != 0 ||
		    xstat(p.sp, "rx_zc_held") != 0)
			goto out;
		pair_shut(&p);
	}
	ret = 0;
out:
	return pair_end(&p, ret, "zero-copy server pair failed");
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
	struct memif_pair p;
	int ret = -1;
	unsigned sent = 0, got;
	struct lr_mbuf *m[BURST];

	LR_TEST_ASSERT(
	    pair_init(&p, 77, "zrxh.sock", ",zero-copy=yes", ",rsize=8") == 0,
	    "EAL init");
	if (pair_up(&p, 1) != 0)
		goto out;
	lr_test_log_begin();
	/* fill: the server holds every frame, the client's ring runs out */
	size_cap = 64;
	for (unsigned tries = 0; tries < 100000 && sent < SLOTS + BURST;
	     tries++) {
		m[0] = frame_mbuf(78, sent);
		if (m[0] == NULL)
			goto out;
		if (lr_eth_tx_burst((uint16_t)p.cp, 0, m, 1) == 1)
			sent++;
		else
			lr_pktmbuf_free(m[0]);
		if (xstat(p.cp, "tx_ring_full") != 0)
			break;
	}
	got = rx_hold(p.sp, held, sent);
	if (sent != SLOTS || got != SLOTS ||
	    xstat(p.sp, "rx_zc_held") != SLOTS) {
		fprintf(stderr,
			"ring of %u slots: %u sent, %u held, rx_zc_held %llu, "
			"tx_ring_full %llu\n",
			SLOTS, sent, got,
			(unsigned long long)xstat(p.sp, "rx_zc_held"),
			(unsigned long long)xstat(p.cp, "tx_ring_full"));
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
	if (m[0] == NULL || lr_eth_rx_burst((uint16_t)p.sp, 0, m + 1, 1) != 0 ||
	    lr_eth_tx_burst((uint16_t)p.cp, 0, m, 1) != 0) {
		fprintf(stderr, "ring not full with its first slot held\n");
		lr_pktmbuf_free(held[0]);
		goto out;
	}
	lr_pktmbuf_free(m[0]);
	lr_pktmbuf_free(held[0]);
	lr_eth_rx_burst((uint16_t)p.sp, 0, m, 1); /* gives the slots back */
	size_cap = MAXF;
	if (xfer(p.cp, 0, p.sp, 0, 80, 2000) != 0)
		goto out;
	/* the client goes while a frame is held */
	m[0] = frame_mbuf(81, 0);
	if (m[0] == NULL || lr_eth_tx_burst((uint16_t)p.cp, 0, m, 1) != 1 ||
	    rx_hold(p.sp, held, 1) != 1)
		goto out;
	lr_test_memif_shut(p.cp);
	p.cp = -1;
	if (lr_test_log_wait("the application holds 1 mbufs received with zero "
			     "copy") != 0 ||
	    check_frame(held[0], 81, 0) != 0) {
		lr_pktmbuf_free(held[0]);
		goto out;
	}
	memset(lr_pktmbuf_mtod(held[0], uint8_t *), 0x5a, held[0]->data_len);
	p.cp = port_open(p.c, 1);
	if (p.cp < 0 || wait_link(p.sp, p.cp, 1) != 0 ||
	    lr_test_log_wait("receiving by copy on this connection") != 0 ||
	    xfer(p.cp, 0, p.sp, 0, 82, 2000) != 0) {
		lr_pktmbuf_free(held[0]);
		goto out;
	}
	lr_pktmbuf_free(held[0]);
	if (lr_test_log_wait("gave back its last zero-copy mbuf") != 0)
		goto out;
	lr_test_memif_shut(p.cp);
	p.cp = port_open(p.c, 1);
	if (p.cp < 0 || wait_link(p.sp, p.cp, 1) != 0)
		goto out;
	m[0] = frame_mbuf(83, 0);
	if (m[0] == NULL || lr_eth_tx_burst((uint16_t)p.cp, 0, m, 1) != 1 ||
	    rx_hold(p.sp, held, 1) != 1)
		goto out;
	if (!zrx_pool_of(held[0]) || check_frame(held[0], 83, 0) != 0) {
		fprintf(stderr, "no zero copy again after the frees\n");
		lr_pktmbuf_free(held[0]);
		goto out;
	}
	/* the server closed under a held frame */
	lr_test_memif_shut(p.sp);
	p.sp = -1;
	if (!lr_test_log_has("closed while the application holds 1 mbufs") ||
	    check_frame(held[0], 83, 0) != 0) {
		lr_pktmbuf_free(held[0]);
		goto out;
	}
	lr_pktmbuf_free(held[0]);
	ret = 0;
out:
	size_cap = MAXF;
	lr_test_log_end();
	return pair_end(&p, ret, "zero-copy server with held frames");
}

/* A zero-copy client with two queue pairs: each queue's rings hold mbufs
 * of the one pool, each frame arrives on its own queue, intact. */
static int
test_zc_two_queues(void)
{
	struct memif_pair p;
	struct lr_mempool *zp;
	int ret = -1;

	LR_TEST_ASSERT(pair_init(&p, 75, "zc2", "", ",zero-copy=yes,rsize=7") ==
			   0,
		       "EAL init");
	if (pair_up(&p, 2) != 0)
		goto out;
	zp = lr_eth_memif_pool((uint16_t)p.cp);
	tx_pool = zp; /* the client sends its pool's mbufs */
	ret = xfer(p.cp, 1, p.sp, 1, 75, 3000) ||
	      xfer(p.cp, 0, p.sp, 0, 76, 3000);
	tx_pool = NULL;
	rx_expect = zp; /* and receives them */
	if (ret == 0)
		ret = xfer(p.sp, 1, p.cp, 1, 77, 3000) ||
		      xfer(p.sp, 0, p.cp, 0, 78, 3000);
	rx_expect = NULL;
	if (ret == 0 && counters_agree(p.sp, p.cp, 6000, 6000) != 0)
		ret = -1;
	lr_eth_dev_stop((uint16_t)p.cp);
	if (ret == 0)
		ret = zc_pool_back(p.cp);
out:
	return pair_end(&p, ret, "zero-copy two queues failed");
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
	struct memif_pair fa, fb;
	struct lr_mempool *pa = NULL;
	struct lr_mbuf *m[BURST];
	int sa, a, sb, b, ret = -1;
	const unsigned n = 5000;
	unsigned sent = 0, fwd = 0, got = 0;
	uint64_t end;

	LR_TEST_ASSERT(pair_init(&fa, 92, "fwd-a.sock", "",
				 ",zero-copy=yes,rsize=8") == 0 &&
			   pair_init(&fb, 94, "fwd-b.sock", "",
				     ",zero-copy=yes,rsize=8") == 0,
		       "EAL init");
	pair_open(&fa, 1); /* a configured first: b announces its pool */
	pair_open(&fb, 1);
	sa = fa.sp, a = fa.cp, sb = fb.sp, b = fb.cp;
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
	int got;
	uint16_t t;

	for (unsigned j = 0; j < 12; j++) {
		tx_pool = mps[j % 3];
		m[j] = frame_mbuf(94, j);
		tx_pool = NULL;
		if (m[j] == NULL) {
			lr_pktmbuf_free_bulk(m, j);
			return -1;
		}
	}
	got = burst_back(b, sb, m, 12, 94, &t);
	if (got < 0)
		return -1;
	if (t != 12 || got != 12 || xstat(b, "tx_zc_sent") - zs != 8 ||
	    xstat(b, "tx_zc_copies") - zc != 4) {
		fprintf(stderr,
			"mixed pools: sent %u, received %d of 12, %llu as they "
			"were (8 expected), %llu copied (4)\n",
			t, got,
			(unsigned long long)(xstat(b, "tx_zc_sent") - zs),
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
	int got;
	uint16_t t;

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
	got = burst_back(c, s, m, k, tag, &t);
	if (got < 0)
		return -1;
	*zs = xstat(c, "tx_zc_sent") - zs0;
	*zc = xstat(c, "tx_zc_copies") - zc0;
	if (t != k || got != (int)k) {
		fprintf(stderr, "pool '%s': sent %u, received %d of %u\n",
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
	struct memif_pair p;
	struct lr_mempool *early, *late = NULL;
	int ret = -1;

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
	LR_TEST_ASSERT(
	    pair_init(&p, 96, "apppool", "", ",zero-copy=yes,rsize=8") == 0,
	    "EAL init");
	size_cap = 2048; /* one buffer: sent as it is */
	if (pair_up(&p, 1) != 0)
		goto out;
	if (lr_eth_memif_pool_free(lr_eth_memif_pool((uint16_t)p.cp)) !=
	    -EINVAL) {
		fprintf(stderr, "the port's own pool freed\n");
		goto out;
	}
	late = lr_eth_memif_pool_create("memif_app_late", 256, 0, room,
					LR_SOCKET_ID_ANY);
	if (late == NULL || app_burst(p.cp, p.sp, early, 98, 1, "announced") ||
	    app_burst(p.cp, p.sp, late, 99, 0, "made after the connection"))
		goto out;
	/* the next connection announces it */
	lr_eth_dev_stop((uint16_t)p.cp);
	if (wait_link(p.sp, -1, 0) != 0 ||
	    lr_eth_dev_start((uint16_t)p.cp) != 0 ||
	    wait_link(p.sp, p.cp, 1) != 0 ||
	    app_burst(p.cp, p.sp, late, 100, 1, "after reconnecting"))
		goto out;
	ret = 0;
out:
	size_cap = MAXF;
	pair_shut(&p);
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

static const struct lr_test_case cases[] = {
    {"zc_pair", test_zc_pair},
    {"zc_close_held", test_zc_close_held},
    {"zrx_pair", test_zrx_pair},
    {"zrx_held", test_zrx_held},
    {"zc_two_queues", test_zc_two_queues},
    {"zc_forward", test_zc_forward},
    {"zc_app_pool", test_zc_app_pool},
};

LR_TEST_PMD_MEMIF_MAIN("pmd_memif_zc", cases)
