/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_test_pmd_memif.c - what the net_memif driver tests (test_pmd_memif.c,
 * test_pmd_memif_zc.c, test_pmd_memif_ctl.c) share (lr_test_pmd_memif.h):
 * the EAL and the tests' pool, ports, links, numbered frames sent and
 * checked byte for byte, xstats, zero-copy pools given back, the log.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lr_cycles.h"
#include "lr_eal.h"
#include "lr_eth_memif.h"
#include "lr_ethdev.h"
#include "lr_ethdev_driver.h"
#include "lr_log.h"
#include "lr_mbuf.h"
#include "lr_test.h"
#include "lr_test_memif.h"
#include "lr_test_pmd_memif.h"
#include "lr_test_stream.h"

const char *dir;
/* Longest frame sent. DPDK 22.11's net_memif tx never clears the NEXT flag
 * of a packet's first descriptor, so after a chained packet a later one in
 * the same slot arrives glued to its successor (DPDK to DPDK as well): the
 * interop cases send frames of one buffer only. */
uint32_t size_cap = MAXF;
struct lr_mempool *pool;
/* Zero-copy cases: frames are built in tx_pool's mbufs (NULL: pool), and
 * every segment received must be of rx_expect (when set). */
struct lr_mempool *tx_pool, *rx_expect;

int
init_eal(void)
{
	pool = lr_test_memif_eal("test_pmd_memif");
	return pool != NULL ? 0 : -1;
}

int
port_open(const char *devargs, uint16_t nq)
{
	return lr_test_memif_open(devargs, nq, pool);
}

/* Wait (polling, up to 20 s) until the links of a and b are `up`. */
int
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

uint32_t
size_of(unsigned i)
{
	static const uint32_t sizes[] = {60,   64,   100,  128,	 256, 1514,
					 1518, 2048, 2049, 3000, 511};

	return LR_MIN(sizes[i % LR_DIM(sizes)], size_cap);
}

/* The zero-copy cases' checks of a received packet m (frame i of tag):
 * every segment of rx_expect (when set). */
static int
zc_check(const struct lr_mbuf *m, unsigned tag, unsigned i)
{
	if (rx_expect == NULL)
		return 0;
	if (lr_mbuf_validate(m) != 0)
		return -1;
	for (const struct lr_mbuf *s = m; s != NULL; s = s->next) {
		if (s->pool != rx_expect) {
			fprintf(stderr,
				"stream %u frame %u: a segment of pool '%s', "
				"expected '%s' (zero-copy)\n",
				tag, i, s->pool->name, rx_expect->name);
			return -1;
		}
	}
	return 0;
}

/* The tests' streams: frames made in tx_pool (NULL: pool), up to 512 in
 * flight (a forwarding peer drops what our ring cannot take, and our rx
 * ring is 1024 slots), 20 s for a transfer. */
static struct lr_test_stream
stream(void)
{
	return (struct lr_test_stream){tx_pool != NULL ? tx_pool : pool,
				       size_of, zc_check, 512, 20};
}

struct lr_mbuf *
frame_mbuf(unsigned tag, unsigned i)
{
	struct lr_test_stream s = stream();

	return lr_test_stream_mbuf(&s, tag, i);
}

int
check_frame(struct lr_mbuf *m, unsigned tag, unsigned i)
{
	struct lr_test_stream s = stream();

	return lr_test_stream_check(&s, m, tag, i);
}

int
xfer(int tx, uint16_t txq, int rx, uint16_t rxq, unsigned tag, unsigned n)
{
	struct lr_test_stream s = stream();
	struct lr_mbuf *m[BURST];
	uint16_t r;

	if (lr_test_stream_xfer(&s, tx, txq, rx, rxq, tag, n) != 0)
		return -1;
	/* nothing more comes */
	r = lr_eth_rx_burst((uint16_t)rx, rxq, m, BURST);
	lr_pktmbuf_free_bulk(m, r);
	LR_TEST_ASSERT(r == 0, "stream %u: %u frames too many", tag, r);
	return 0;
}

uint64_t
xstat(int port, const char *name)
{
	return lr_test_memif_xstat(port, name);
}

/* Zero-copy client cp: every mbuf of its pool back (none on the rings,
 * none held) once it is stopped or its link is down; 0 or -1. */
int
zc_pool_back(int cp)
{
	struct lr_mempool *zp = lr_eth_memif_pool((uint16_t)cp);

	if (zp == NULL || lr_mempool_in_use_count(zp) == 0)
		return 0;
	fprintf(stderr, "zero-copy pool: %u mbufs in use with the link down\n",
		lr_mempool_in_use_count(zp));
	return -1;
}

/* Counters of server sp and client cp after the server received srx
 * frames and the client crx: packets and bytes agree, no errors. */
int
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

/* Receive on port p until n packets are held in m[] (up to 20 s); the
 * count held. */
unsigned
rx_hold(int p, struct lr_mbuf **m, unsigned n)
{
	unsigned got = 0;

	for (uint64_t end = lr_get_tsc_cycles() + 20 * lr_get_tsc_hz();
	     got < n && lr_get_tsc_cycles() < end;)
		got += lr_eth_rx_burst((uint16_t)p, 0, m + got,
				       (uint16_t)LR_MIN(BURST, n - got));
	return got;
}

/* One burst of the k frames of tag in m[] from tx; when all went, receive
 * them on rx and check each in order. */
int
burst_back(int tx, int rx, struct lr_mbuf **m, unsigned k, unsigned tag,
	   uint16_t *sent)
{
	struct lr_mbuf *r[BURST];
	uint16_t t = lr_eth_tx_burst((uint16_t)tx, 0, m, (uint16_t)k);
	uint64_t end = lr_get_tsc_cycles() + 20 * lr_get_tsc_hz();
	unsigned got = 0;

	lr_pktmbuf_free_bulk(m + t, k - t);
	*sent = t;
	while (t == k && got < k && lr_get_tsc_cycles() < end) {
		uint16_t n = lr_eth_rx_burst((uint16_t)rx, 0, r, BURST);

		for (uint16_t j = 0; j < n; j++, got++) {
			if (check_frame(r[j], tag, got) != 0) {
				lr_pktmbuf_free_bulk(r, n);
				return -1;
			}
		}
		lr_pktmbuf_free_bulk(r, n);
	}
	return (int)got;
}

int
case_end(int ret, const char *what)
{
	LR_TEST_ASSERT(ret == 0, "%s", what);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return 0;
}

/* The EAL, and the devargs of a server and client pair on one socket. */
int
pair_init(struct memif_pair *p, unsigned id, const char *name, const char *sx,
	  const char *cx)
{
	size_t len = strlen(name);
	const char *file = len > 5 && strcmp(name + len - 5, ".sock") == 0
			       ? ",socket-abstract=no"
			       : "";

	p->sp = p->cp = -1;
	snprintf(p->sock, sizeof(p->sock), "%s/%s", dir, name);
	snprintf(p->s, sizeof(p->s), "net_memif%u,role=server,socket=%s%s%s",
		 id, p->sock, file, sx);
	snprintf(p->c, sizeof(p->c), "net_memif%u,role=client,socket=%s%s%s",
		 id + 1, p->sock, file, cx);
	return init_eal();
}

int
pair_open(struct memif_pair *p, uint16_t nq)
{
	p->sp = port_open(p->s, nq);
	p->cp = port_open(p->c, nq);
	return p->sp >= 0 && p->cp >= 0 ? 0 : -1;
}

int
pair_up(struct memif_pair *p, uint16_t nq)
{
	if (pair_open(p, nq) != 0)
		return -1;
	return wait_link(p->sp, p->cp, 1);
}

void
pair_shut(struct memif_pair *p)
{
	lr_test_memif_shut(p->cp);
	lr_test_memif_shut(p->sp);
	p->sp = p->cp = -1;
}

int
pair_end(struct memif_pair *p, int ret, const char *what)
{
	pair_shut(p);
	return case_end(ret, what);
}
