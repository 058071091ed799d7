/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr-pktgen sending, on net_null and net_ring ports, no privileges: exact
 * counts, rates and their accuracy, pacing, the frames it builds (sizes,
 * IMIX, field ranges, checksums, prebuilt frames: captured through a
 * net_ring pair with --capture and read back here), a zero-copy memif
 * pool; the L3 mode (ARP, NDP, echo: its frame code directly, then
 * lr-pktgen resolving and answering over a ring pair).
 *
 * Each case runs the lr-pktgen binary of this build tree and reads its
 * final line (lr_test_pktgen.h).
 */
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LR_TEST_PG_NAME "test_pktgen_send"
#include "lr_test_pktgen.h"
/* PG_PAYLOAD_LEN: the payload pattern of a prebuilt frame. */
#include "../apps/pktgen/pktgen.h"
/* The L3 mode's frame code, tested directly. */
#include "../apps/pktgen/l3_frame.c"

static int
test_count_exact(void)
{
	int rc = run(EAL " -l 0 --vdev net_null0 -- --tx-only --quiet "
			 "--count 100001");

	CHECK_RUN(rc);
	LR_TEST_ASSERT_EQ(field("tx"), 100001);
	rc = run(EAL " -l 0-1 --vdev net_null0 --vdev net_null1 -- --quiet "
		     "--tx-only --count 77777 --queues 2");
	CHECK_RUN(rc);
	LR_TEST_ASSERT_EQ(field("tx"), 77777);
	LR_TEST_ASSERT(strstr(out, "not back in") == NULL, "%s", out);
	return 0;
}

/* Run a paced case until key is within 1% of want, at most 3 times: a
 * host so busy that the generator is off its CPU for longer than the
 * bucket (1 s here) cannot be paced by anyone, so one bad attempt is
 * retried; the figure of every attempt is printed. */
static int
rate_close(const char *args, const char *key, double want, const char *key2,
	   double want2)
{
	for (int attempt = 1; attempt <= 3; attempt++) {
		int rc = run(EAL " -l 0 --vdev net_null0 -- --tx-only --quiet "
				 "--bucket-ms 1000 %s",
			     args);
		double got = field(key), got2 = key2 ? field(key2) : 1;

		if (key2 == NULL)
			want2 = 1;

		CHECK_RUN(rc);
		printf("%s: %s = %.6f (want %.6f)", args, key, got, want);
		if (key2)
			printf(", %s = %.6f (want %.6f)", key2, got2, want2);
		printf(", cpu_s %.3f\n", field("cpu_s"));
		if (fabs(got / want - 1) < 0.01 &&
		    fabs(got2 / want2 - 1) < 0.01)
			return 0;
	}
	LR_TEST_ASSERT(0, "rate off by more than 1%% three times:\n%s", out);
	return -1;
}

static int
test_rate_pps(void)
{
	return rate_close("--rate-pps 200k --duration 2", "tx_mpps", 0.2, "tx",
			  400000);
}

/* Rate accuracy on a net_null port from 10 kframes/s to 90% of what the
 * generator sends unpaced here: over a second, the frames sent are within
 * 0.5% of the rate asked, or the run says it missed the rate (tx_behind:
 * the host kept the generator off its CPU longer than --bucket-ms). A run
 * that misses is tried again (3 times), and a host that never lets it
 * keep up leaves that rate unchecked, said so; a rate off without saying
 * so fails at once. */
static int
test_rate_accuracy(void)
{
	double rates[5] = {10e3, 100e3, 1e6, 10e6, 0}, max;
	int rc = run(EAL " -l 0 --vdev net_null0 -- --tx-only --quiet "
			 "--duration 0.5");

	CHECK_RUN(rc);
	max = field("tx_mpps") * 1e6;
	rates[4] = 0.9 * max;
	printf("unpaced: %.0f frames/s\n", max);
	for (int i = 0; i < 5; i++) {
		bool done = false;

		if (rates[i] > 0.9 * max)
			continue;
		for (int attempt = 1; attempt <= 3 && !done; attempt++) {
			double tx, behind, off;

			rc = run(EAL " -l 0 --vdev net_null0 -- --tx-only "
				     "--quiet --rate-pps %.0f --duration 1",
				 rates[i]);
			CHECK_RUN(rc);
			tx = field("tx");
			behind = field("tx_behind");
			off = tx / rates[i] - 1;
			printf("--rate-pps %.0f attempt %d: tx %.0f (%+.3f%%), "
			       "tx_behind %.0f\n",
			       rates[i], attempt, tx, 100 * off, behind);
			LR_TEST_ASSERT(behind > 0 || fabs(off) <= 0.005,
				       "%.0f frames/s: sent %.0f, off by "
				       "%+.3f%% and no rate missed said:\n%s",
				       rates[i], tx, 100 * off, out);
			done = behind == 0;
		}
		if (!done)
			printf(
			    "--rate-pps %.0f: the host never let the generator "
			    "keep up (rate missed said each time): not "
			    "checked\n",
			    rates[i]);
	}
	return 0;
}

static int
test_rate_bits(void)
{
	/* Wire bits of varying sizes: IMIX at 400 Mbit/s. */
	if (rate_close("--imix --rate-mbps 400 --duration 1.5", "tx_gbps", 0.4,
		       NULL, 0))
		return -1;
	/* 2% of 10 Gbit/s with 64-byte frames: 297619 frames/s. */
	return rate_close("--rate-pct 2 --duration 1.5", "tx_gbps", 0.2,
			  "tx_mpps", 0.2e9 / (84 * 8) / 1e6);
}

static int
test_size_range(void)
{
	unsigned lo = 2000, hi = 0;
	int rc = ring_frames("range", 30, "--size 64-100 --size-step 4", 0);

	if (rc != 0)
		return rc;
	for (unsigned i = 0; i < nframes; i++) {
		LR_TEST_ASSERT_EQ(FRAME_SIZE(i), 64 + 4 * (i % 10));
		LR_TEST_ASSERT_EQ(be32(frames[i].data + 48), i);
	}
	rc = ring_frames("rrange", 3000, "--size 64-1518 --random", 0);
	if (rc != 0)
		return rc;
	for (unsigned i = 0; i < nframes; i++) {
		unsigned size = FRAME_SIZE(i);

		LR_TEST_ASSERT(size >= 64 && size <= 1518, "size %u", size);
		lo = size < lo ? size : lo;
		hi = size > hi ? size : hi;
	}
	LR_TEST_ASSERT(lo < 120 && hi > 1460, "random sizes %u..%u", lo, hi);
	return 0;
}

/* The frames read of 64, 570 and 1518 bytes (IMIX's sizes), counted into
 * n64, n570 and n1518. */
static void
imix_count(unsigned *n64, unsigned *n570, unsigned *n1518)
{
	*n64 = *n570 = *n1518 = 0;
	for (unsigned i = 0; i < nframes; i++) {
		*n64 += FRAME_SIZE(i) == 64;
		*n570 += FRAME_SIZE(i) == 570;
		*n1518 += FRAME_SIZE(i) == 1518;
	}
}

static int
test_imix(void)
{
	unsigned n64, n570, n1518;
	int rc = ring_frames("imix", 1200, "--imix", 0);

	if (rc != 0)
		return rc;
	imix_count(&n64, &n570, &n1518);
	LR_TEST_ASSERT(n64 == 700 && n570 == 400 && n1518 == 100,
		       "IMIX %u/%u/%u", n64, n570, n1518);
	rc = ring_frames("rimix", 12000, "--imix --random --seed 7", 0);
	if (rc != 0)
		return rc;
	imix_count(&n64, &n570, &n1518);
	LR_TEST_ASSERT_EQ(n64 + n570 + n1518, 12000);
	LR_TEST_ASSERT(fabs(n64 / 7000.0 - 1) < 0.06 &&
			   fabs(n570 / 4000.0 - 1) < 0.08 &&
			   fabs(n1518 / 1000.0 - 1) < 0.15,
		       "random IMIX %u/%u/%u", n64, n570, n1518);
	return 0;
}

#define FIELDS                                                                 \
	"--src-ip 10.0.0.1-10.0.0.3 --dst-ip 192.168.1.10-192.168.1.11 "       \
	"--src-port 1000-1004 --dst-port 7 "                                   \
	"--dst-mac 02:00:00:00:00:10-02:00:00:00:00:11 "                       \
	"--src-mac 02:00:00:00:00:aa"

static int
test_fields(void)
{
	unsigned seen_sip = 0, seen_sport = 0;
	int rc = ring_frames("fields", 60, FIELDS, 0);

	if (rc != 0)
		return rc;
	for (unsigned i = 0; i < nframes; i++) {
		const uint8_t *d = frames[i].data;

		LR_TEST_ASSERT_EQ(FRAME_SIZE(i), 64);
		/* The cartesian product, the destination MAC fastest, then
		 * source IP, destination IP, source port: 2 x 3 x 2 x 5 = 60
		 * frames, each combination once (before, every field
		 * stepped at once: 30 combinations, each twice). */
		LR_TEST_ASSERT_EQ(d[5], 0x10 + i % 2);
		LR_TEST_ASSERT_EQ(be32(d + 26), 0x0a000001 + i / 2 % 3);
		LR_TEST_ASSERT_EQ(be32(d + 30), 0xc0a8010a + i / 6 % 2);
		LR_TEST_ASSERT_EQ(be16(d + 34), 1000 + i / 12 % 5);
		LR_TEST_ASSERT_EQ(be16(d + 36), 7);
		LR_TEST_ASSERT(d[0] == 2 && d[1] == 0 && d[4] == 0 &&
				   d[11] == 0xaa && d[6] == 2,
			       "frame %u: MACs", i);
	}
	rc = ring_frames("rfields", 600, FIELDS " --random", 0);
	if (rc != 0)
		return rc;
	for (unsigned i = 0; i < nframes; i++) {
		const uint8_t *d = frames[i].data;
		uint32_t sip = be32(d + 26), sport = be16(d + 34);

		LR_TEST_ASSERT(sip >= 0x0a000001 && sip <= 0x0a000003,
			       "src ip %08x", sip);
		LR_TEST_ASSERT(sport >= 1000 && sport <= 1004, "port %u",
			       sport);
		LR_TEST_ASSERT(d[5] == 0x10 || d[5] == 0x11, "dst mac");
		seen_sip |= 1u << (sip - 0x0a000001);
		seen_sport |= 1u << (sport - 1000);
	}
	LR_TEST_ASSERT(seen_sip == 7 && seen_sport == 31,
		       "random values do not cover the ranges: %x %x", seen_sip,
		       seen_sport);
	/* Addresses over their whole range (every carry of the checksum's
	 * update from the template's, and 0.0.0.0, 255.255.255.255), at 64
	 * and 1000 bytes: the IPv4 checksum of each frame holds. */
	for (int k = 0; k < 2; k++) {
		rc = ring_frames("wfields", 2000,
				 k ? "--src-ip 0.0.0.0-255.255.255.255 "
				     "--dst-ip 255.255.0.0-255.255.255.255 "
				     "--src-port 0-65535 --random --size 1000"
				   : "--src-ip 0.0.0.0-255.255.255.255 "
				     "--dst-ip 255.255.255.0-255.255.255.255 "
				     "--dst-port 0-65535 --random",
				 0);
		if (rc != 0)
			return rc;
		for (unsigned i = 0; i < nframes; i++)
			LR_TEST_ASSERT_EQ(FRAME_SIZE(i), k ? 1000 : 64);
	}
	return 0;
}

static int
test_udp_cksum(void)
{
	int rc = ring_frames("udp", 500,
			     "--udp-cksum --size 64-300 --src-ip "
			     "10.1.0.1-10.1.0.200 --dst-port 1-65535 --random",
			     1);

	if (rc != 0)
		return rc;
	/* The fixed template path checksums too. */
	return ring_frames("udp1", 10, "--udp-cksum --size 200", 1);
}

/* 50 kpps for 3 s is 150000 frames: every frame of the schedule is sent
 * or counted behind it (tx_behind: the lcore was off its CPU for longer
 * than the bucket); with a bucket of a second, every frame is sent
 * (retried: a host can stall the generator longer than that). Before,
 * 145929 frames left, and nothing said so. */
static int
test_pacing_low_rate(void)
{
	int rc = run(EAL " -l 0 --vdev net_null0 -- --tx-only --quiet "
			 "--rate-pps 50k --duration 3");

	CHECK_RUN(rc);
	LR_TEST_ASSERT(fabs(field("tx") + field("tx_behind") - 150000) <= 1,
		       "tx + tx_behind != 150000:\n%s", out);
	for (int attempt = 1; attempt <= 3; attempt++) {
		rc = run(EAL " -l 0 --vdev net_null0 -- --tx-only --quiet "
			     "--rate-pps 50k --duration 3 --bucket-ms 1000");
		CHECK_RUN(rc);
		printf("attempt %d: tx %.0f tx_behind %.0f\n", attempt,
		       field("tx"), field("tx_behind"));
		if (field("tx_behind") == 0) {
			LR_TEST_ASSERT(fabs(field("tx") - 150000) <= 150, "%s",
				       out);
			return 0;
		}
	}
	LR_TEST_ASSERT(0, "behind the schedule three times:\n%s", out);
	return -1;
}

/* A rate no port or lcore reaches: said in the live lines and the
 * summary, with units. */
static int
test_rate_missed(void)
{
	int rc = run(EAL " -l 0 --vdev net_null0 -- --tx-only "
			 "--rate-pps 10G --duration 1.5");

	CHECK_RUN(rc);
	LR_TEST_ASSERT(field("tx_behind") > 0 &&
			   strstr(out, "s] rate missed: ") &&
			   strstr(out, "\nrate missed: ") &&
			   strstr(out, " of 1e+04 Mpps (") == NULL &&
			   strstr(out, " of 10000 Mpps ("),
		       "missed rate not reported:\n%s", out);
	/* A rate it reaches is on schedule: a sender descheduled for tens of
	 * milliseconds (a loaded machine) falls behind for real, so three
	 * tries, as pacing_low_rate does. */
	for (int attempt = 1; attempt <= 3; attempt++) {
		rc = run(EAL " -l 0 --vdev net_null0 -- --tx-only --quiet "
			     "--rate-pps 1k --count 100");
		CHECK_RUN(rc);
		if (field("tx_behind") == 0) {
			LR_TEST_ASSERT(
			    strstr(out, " of 0.001 Mpps, on schedule"), "%s",
			    out);
			return 0;
		}
		printf("attempt %d: tx_behind %.0f\n", attempt,
		       field("tx_behind"));
	}
	LR_TEST_ASSERT(0, "behind the schedule three times:\n%s", out);
	return -1;
}

/* --no-stamp, nothing varies: the queue sends from a pool of its own
 * whose buffers hold the frame (written once). 6000 frames over a ring
 * pair come back through the receive path and its capture, every mbuf of
 * that pool used more than once: each frame the same, consistent, with
 * the payload pattern. */
static int
test_prebuilt(void)
{
	const uint8_t *d;
	int rc = run(EAL " -l 0 --vdev net_ring0 --vdev net_ring1 -- "
			 "--tx-ports 0 --rx-ports 1 --count 6000 --size 200 "
			 "--no-stamp --drain-ms 2000 --capture %s",
		     cap_path("plain"));

	CHECK_RUN(rc);
	LR_TEST_ASSERT(strstr(out, "tx frames prebuilt in pool 'pktgen_tx0'"),
		       "no prebuilt pool:\n%s", out);
	LR_TEST_ASSERT_EQ(read_pcap(cap_path("plain"), 7000), 6000);
	d = frames[0].data;
	LR_TEST_ASSERT(
	    frames[0].len == 196 && be16(d + 12) == 0x0800 && d[14] == 0x45 &&
		d[23] == 17 && be16(d + 16) == 196 - 14 &&
		be16(d + 38) == 196 - 34 && fold(sum16(d + 14, 20)) == 0xffff,
	    "frame 0: bad headers");
	for (unsigned k = 42; k < 42 + PG_PAYLOAD_LEN; k++)
		LR_TEST_ASSERT(d[k] == (uint8_t)k, "frame 0: payload byte %u",
			       k);
	for (unsigned i = 1; i < nframes; i++)
		LR_TEST_ASSERT(frames[i].len == frames[0].len &&
				   memcmp(frames[i].data, d, frames[0].len) ==
				       0,
			       "frame %u differs from frame 0", i);
	return 0;
}

/* A zero-copy memif client lends lr-pktgen its pool: frames are built in
 * its mbufs (said at setup), all back at exit (no warning from the port's
 * close); a pool whose buffers are too short for the frames is not used.
 * No server: the link stays down (--link-wait 0: send all the same) and
 * the frames are dropped, so nothing depends on a peer's timing. */
static int
test_memif_zc_pool(void)
{
	int rc = run(EAL " -l 0 --vdev net_memif0,role=client,zero-copy=yes,"
			 "socket=%s/none.sock,socket-abstract=no -- "
			 "--tx-only --count 20000 --size 1518 --link-wait 0",
		     tmpdir);

	if (strstr(out, "no driver 'net_pcap'") != NULL) {
		printf("net_memif not built: skipping\n");
		return LR_TEST_SKIP;
	}
	CHECK_RUN(rc);
	LR_TEST_ASSERT_EQ(field("tx"), 20000);
	LR_TEST_ASSERT(strstr(out, "port 0 (net_memif0): tx mbufs from its "
				   "pool 'memif_zc_p0_") != NULL &&
			   strstr(out, "still holds") == NULL &&
			   strstr(out, "not back in") == NULL,
		       "zero-copy pool not used or not given back:\n%s", out);
	rc = run(EAL " -l 0 --vdev net_memif0,role=client,zero-copy=yes,"
		     "bsize=1024,socket=%s/none.sock,socket-abstract=no -- "
		     "--tx-only --count 2000 --size 1518 --link-wait 0",
		 tmpdir);
	CHECK_RUN(rc);
	LR_TEST_ASSERT(strstr(out, "tx mbufs from its pool") == NULL,
		       "1518-byte frames built in 1024-byte buffers:\n%s", out);
	return 0;
}

/* ---- L3 mode (l3.h): the frame code directly, then lr-pktgen ---- */

static void
wr16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Two ports: a (10.0.0.1/24, fd00::1/64) and b (10.0.0.2, fd00::2). */
static void
l3_ifs(struct pg_l3_if *a, struct pg_l3_if *b)
{
	memset(a, 0, sizeof(*a));
	memset(b, 0, sizeof(*b));
	a->c.has4 = a->c.has6 = b->c.has4 = b->c.has6 = true;
	a->c.plen4 = b->c.plen4 = 24;
	a->c.plen6 = b->c.plen6 = 64;
	a->c.ip4[0] = b->c.ip4[0] = 10;
	a->c.ip4[3] = 1;
	b->c.ip4[3] = 2;
	a->c.ip6[0] = b->c.ip6[0] = 0xfd;
	a->c.ip6[15] = 1;
	b->c.ip6[15] = 2;
	a->mac[0] = b->mac[0] = 2;
	a->mac[5] = 0xa;
	b->mac[5] = 0xb;
}

/* The ICMPv6 checksum of IPv6 frame f holds. */
static int
icmp6_ok(const uint8_t *f)
{
	unsigned pl = be16(f + 18);

	return fold(sum16(f + 22, 32) + pl + 58 + sum16(f + 54, pl)) == 0xffff;
}

/* Set the ICMPv6 checksum of IPv6 frame f. */
static void
icmp6_fix(uint8_t *f)
{
	unsigned pl = be16(f + 18);

	wr16(f + 56, 0);
	wr16(f + 56,
	     (uint16_t)~fold(sum16(f + 22, 32) + pl + 58 + sum16(f + 54, pl)));
}

/* Where an echo request of one family has its fields, and their values
 * (IPv4: ICMP; IPv6: ICMPv6). */
struct echo_shape {
	uint16_t ethertype;
	uint8_t first, l4, type; /* the IP header's first byte, the protocol
				    (next header), the echo request */
	unsigned len, len0;	 /* the IP length field, its value bare */
	unsigned hop, proto;	 /* the TTL (hop limit: 64), the protocol */
	unsigned addr, alen;	 /* the addresses (source first), a length */
	unsigned icmp;		 /* the ICMP header: type, id, sequence */
	uint16_t id, seq;
	unsigned mul; /* payload byte i is i * mul */
};

static const struct echo_shape echo4 = {0x0800, 0x45, 1, 8,  16,     28, 22,
					23,	26,   4, 34, 0x1234, 7,	 7};
static const struct echo_shape echo6 = {0x86dd, 0x60, 58, 128, 18,     8, 21,
					20,	22,   16, 54,  0x4321, 3, 3};

/* An echo request of shape sh (echo4, echo6) from a to b with dlen
 * payload bytes, checksums right; its length. */
static unsigned
l3_echo(uint8_t *f, const struct echo_shape *sh, const struct pg_l3_if *a,
	const struct pg_l3_if *b, unsigned dlen)
{
	unsigned hlen = sh->icmp + 8;
	int v4 = sh->alen == 4;

	memset(f, 0, hlen + dlen);
	memcpy(f, b->mac, 6);
	memcpy(f + 6, a->mac, 6);
	wr16(f + 12, sh->ethertype);
	f[14] = sh->first;
	wr16(f + sh->len, sh->len0 + dlen);
	f[sh->hop] = 64;
	f[sh->proto] = sh->l4;
	memcpy(f + sh->addr, v4 ? a->c.ip4 : a->c.ip6, sh->alen);
	memcpy(f + sh->addr + sh->alen, v4 ? b->c.ip4 : b->c.ip6, sh->alen);
	f[sh->icmp] = sh->type;
	wr16(f + sh->icmp + 4, sh->id);
	wr16(f + sh->icmp + 6, sh->seq);
	for (unsigned i = 0; i < dlen; i++)
		f[hlen + i] = (uint8_t)(i * sh->mul);
	if (!v4) {
		icmp6_fix(f);
		return hlen + dlen;
	}
	wr16(f + 24, (uint16_t)~fold(sum16(f + 14, 20)));
	wr16(f + 36, (uint16_t)~fold(sum16(f + 34, 8 + dlen)));
	return hlen + dlen;
}

/* --ip and --gateway: good and bad text, and the checks between them. */
static int
test_l3_parse(void)
{
	static const char *const bad_ip[] = {
	    "10.0.0.1/24",
	    "0:10.0.0.1",
	    "0:10.0.0.300/24",
	    "0:10.0.0.1/33",
	    "0:fd00::1/129",
	    "0:224.0.0.1/4",
	    "0:10.0.0.1/24x",
	    "32:10.0.0.1/24",
	    "0:0.0.0.0/8",
	    "0:ff02::1/64",
	    "0:/24",
	    "x:10.0.0.1/24",
	    "0:10.0.0.1/0",
	    "0:127.0.0.1/8",
	    "0:::1/128",
	    "0:255.255.255.255/32",
	    "",
	    "0:10.0.0.1/-1",
	};
	static const char *const bad_gw[] = {
	    "0:foo", "0:10.0.0.1/24", "9", "0:224.1.1.1", "33:10.0.0.1",
	    "0:",    ":10.0.0.1"};
	static const uint8_t zero[sizeof(struct pg_l3_conf)];
	struct pg_l3_conf c[LR_MAX_ETHPORTS];
	uint8_t x[16] = {10, 0, 0, 200}, y[16] = {10, 0, 1, 1};

	memset(c, 0, sizeof(c));
	for (unsigned i = 0; i < sizeof(bad_ip) / sizeof(bad_ip[0]); i++)
		LR_TEST_ASSERT(pg_l3_parse_ip(bad_ip[i], c, LR_MAX_ETHPORTS) !=
				   0,
			       "--ip '%s' accepted", bad_ip[i]);
	for (unsigned i = 0; i < sizeof(bad_gw) / sizeof(bad_gw[0]); i++)
		LR_TEST_ASSERT(
		    pg_l3_parse_gateway(bad_gw[i], c, LR_MAX_ETHPORTS) != 0,
		    "--gateway '%s' accepted", bad_gw[i]);
	for (unsigned p = 0; p < LR_MAX_ETHPORTS; p++)
		LR_TEST_ASSERT(memcmp(&c[p], zero, sizeof(zero)) == 0,
			       "port %u: a refused option left something", p);
	LR_TEST_ASSERT(pg_l3_parse_ip("0:10.0.0.1/24", c, 32) == 0 &&
			   pg_l3_parse_ip("0:fd00::1/64", c, 32) == 0 &&
			   pg_l3_parse_ip("3:192.168.7.9/20", c, 32) == 0,
		       "good --ip refused");
	LR_TEST_ASSERT(c[0].has4 && c[0].plen4 == 24 && c[0].ip4[0] == 10 &&
			   c[0].ip4[3] == 1 && c[0].has6 && c[0].plen6 == 64 &&
			   c[0].ip6[0] == 0xfd && c[0].ip6[15] == 1 &&
			   c[3].has4 && !c[3].has6 && c[3].plen4 == 20,
		       "--ip stored wrong");
	/* One address of a family a port. */
	LR_TEST_ASSERT(pg_l3_parse_ip("0:10.0.0.5/24", c, 32) != 0 &&
			   c[0].ip4[3] == 1,
		       "second IPv4 address taken");
	LR_TEST_ASSERT(pg_l3_parse_gateway("0:10.0.0.254", c, 32) == 0 &&
			   pg_l3_parse_gateway("0:fd00::fe", c, 32) == 0 &&
			   pg_l3_check(&c[0], 0) == 0,
		       "good gateways refused");
	LR_TEST_ASSERT(pg_l3_parse_gateway("0:10.0.0.9", c, 32) != 0,
		       "second IPv4 gateway taken");
	/* A gateway without an address, off the subnet, the own address. */
	LR_TEST_ASSERT(pg_l3_parse_gateway("1:10.0.0.254", c, 32) == 0 &&
			   pg_l3_check(&c[1], 1) != 0,
		       "gateway without an address passed");
	LR_TEST_ASSERT(pg_l3_parse_gateway("3:192.168.16.1", c, 32) == 0 &&
			   pg_l3_check(&c[3], 3) != 0,
		       "gateway off the /20 passed");
	LR_TEST_ASSERT(pg_l3_parse_ip("5:10.5.0.1/24", c, 32) == 0 &&
			   pg_l3_parse_gateway("5:10.5.0.1", c, 32) == 0 &&
			   pg_l3_check(&c[5], 5) != 0,
		       "gateway = own address passed");
	LR_TEST_ASSERT(pg_l3_parse_ip("6:fd06::1/64", c, 32) == 0 &&
			   pg_l3_parse_gateway("6:fd07::1", c, 32) == 0 &&
			   pg_l3_check(&c[6], 6) != 0,
		       "IPv6 gateway off the /64 passed");
	/* An IPv6 link-local gateway is on every link. */
	LR_TEST_ASSERT(pg_l3_parse_ip("7:fd08::1/64", c, 32) == 0 &&
			   pg_l3_parse_gateway("7:fe80::1", c, 32) == 0 &&
			   pg_l3_check(&c[7], 7) == 0,
		       "link-local gateway refused");
	/* On the subnet: whole bytes and a partial one. */
	LR_TEST_ASSERT(pg_l3_on_link(c[0].ip4, 24, x, false) &&
			   !pg_l3_on_link(c[0].ip4, 24, y, false) &&
			   pg_l3_on_link(c[0].ip4, 23, y, false) &&
			   !pg_l3_on_link(c[0].ip4, 32, x, false),
		       "pg_l3_on_link wrong for IPv4");
	memcpy(x, c[0].ip6, 16);
	x[15] = 0x77;
	x[8] = 0x80;
	LR_TEST_ASSERT(pg_l3_on_link(c[0].ip6, 64, x, true) &&
			   !pg_l3_on_link(c[0].ip6, 65, x, true),
		       "pg_l3_on_link wrong for IPv6");
	memset(x, 0, 16);
	x[0] = 0xfe;
	x[1] = 0x80;
	x[15] = 5;
	LR_TEST_ASSERT(pg_l3_on_link(c[0].ip6, 64, x, true),
		       "fe80::5 not on the link");
	x[1] = 0xc0;
	LR_TEST_ASSERT(!pg_l3_on_link(c[0].ip6, 64, x, true),
		       "fec0::5 on the link");
	return 0;
}

/* What x makes of the n bytes of f (the answer it may build dropped). */
static enum pg_l3_kind
l3_kind(const struct pg_l3_if *x, const uint8_t *f, unsigned n)
{
	static uint8_t o[2048];
	struct pg_l3_learned l;
	unsigned m;

	return pg_l3_classify(x, f, n, o, sizeof(o), &m, &l);
}

/* Frame f (n bytes) cut short at each length below n: x makes nothing
 * (PG_L3_OTHER) of it below from, want from there on; 0 or -1. */
static int
l3_cut(const struct pg_l3_if *x, const uint8_t *f, unsigned n, unsigned from,
       enum pg_l3_kind want)
{
	for (unsigned k = 0; k < n; k++)
		LR_TEST_ASSERT_EQ(l3_kind(x, f, k),
				  k >= from ? want : PG_L3_OTHER);
	return 0;
}

/* Frame f (n bytes, at most 256) with bit 0 of byte at flipped: x makes
 * nothing of it; 0 or -1. */
static int
l3_spoilt(const struct pg_l3_if *x, const uint8_t *f, unsigned n, unsigned at)
{
	uint8_t g[256];

	memcpy(g, f, n);
	g[at] ^= 1;
	LR_TEST_ASSERT_EQ(l3_kind(x, g, n), PG_L3_OTHER);
	return 0;
}

/* l tells the address ip (len bytes) at mac. */
static bool
l3_learned(const struct pg_l3_learned *l, const uint8_t *ip, unsigned len,
	   const uint8_t *mac)
{
	return l->valid && memcmp(l->ip, ip, len) == 0 &&
	       memcmp(l->mac, mac, 6) == 0;
}

/* x learns ip (len bytes) at mac from the n bytes of f, an answer (ARP
 * reply, advert) it does not answer; 0 or -1 after a message with what. */
static int
l3_learns(const struct pg_l3_if *x, const uint8_t *f, unsigned n,
	  const uint8_t *ip, unsigned len, const uint8_t *mac, const char *what)
{
	uint8_t o[2048];
	struct pg_l3_learned l;
	unsigned m;

	LR_TEST_ASSERT_EQ(pg_l3_classify(x, f, n, o, sizeof(o), &m, &l),
			  PG_L3_LEARN);
	LR_TEST_ASSERT(m == 0 && l3_learned(&l, ip, len, mac),
		       "%s: not learned", what);
	return 0;
}

/* ARP, NDP and echo frames: what is built, what is answered, what is
 * learned; truncated and corrupt frames get nothing. */
static int
test_l3_frames(void)
{
	struct pg_l3_if a, b;
	struct pg_l3_learned l;
	uint8_t f[256], o[2048], o2[2048], g[256];
	unsigned n, m, m2;

	l3_ifs(&a, &b);
	/* ARP request a -> b, b's reply, a learns b. */
	n = pg_l3_arp_request(f, &a, b.c.ip4);
	LR_TEST_ASSERT(n == 60 && f[0] == 0xff && f[5] == 0xff &&
			   be16(f + 12) == 0x0806 && be16(f + 20) == 1 &&
			   memcmp(f + 22, a.mac, 6) == 0 &&
			   memcmp(f + 28, a.c.ip4, 4) == 0 &&
			   memcmp(f + 38, b.c.ip4, 4) == 0,
		       "ARP request built wrong");
	LR_TEST_ASSERT_EQ(pg_l3_classify(&b, f, n, o, sizeof(o), &m, &l),
			  PG_L3_ARP);
	LR_TEST_ASSERT(!l.v6 && l3_learned(&l, a.c.ip4, 4, a.mac),
		       "ARP request: sender not learned");
	LR_TEST_ASSERT(m == 60 && memcmp(o, a.mac, 6) == 0 &&
			   memcmp(o + 6, b.mac, 6) == 0 &&
			   be16(o + 12) == 0x0806 && be16(o + 20) == 2 &&
			   memcmp(o + 22, b.mac, 6) == 0 &&
			   memcmp(o + 28, b.c.ip4, 4) == 0 &&
			   memcmp(o + 32, a.mac, 6) == 0 &&
			   memcmp(o + 38, a.c.ip4, 4) == 0,
		       "ARP reply built wrong");
	if (l3_learns(&a, o, m, b.c.ip4, 4, b.mac, "ARP reply: b") != 0)
		return -1;
	/* A request for another address is not answered. */
	LR_TEST_ASSERT_EQ(pg_l3_classify(&a, f, n, o2, sizeof(o2), &m2, &l),
			  PG_L3_LEARN);
	LR_TEST_ASSERT_EQ(m2, 0);
	if (l3_cut(&b, f, n, 42, PG_L3_ARP) != 0)
		return -1;

	/* Neighbour solicitation a -> b, b's advert, a learns b. */
	n = pg_l3_ns_request(f, &a, b.c.ip6);
	LR_TEST_ASSERT(n == 86 && f[0] == 0x33 && f[1] == 0x33 &&
			   f[2] == 0xff && f[5] == 2 && f[38] == 0xff &&
			   f[39] == 2 && f[49] == 1 && f[50] == 0xff &&
			   f[53] == 2 && f[21] == 255 && f[54] == 135 &&
			   memcmp(f + 62, b.c.ip6, 16) == 0 && f[78] == 1 &&
			   memcmp(f + 80, a.mac, 6) == 0 && icmp6_ok(f),
		       "neighbour solicitation built wrong");
	LR_TEST_ASSERT_EQ(pg_l3_classify(&b, f, n, o, sizeof(o), &m, &l),
			  PG_L3_NS);
	LR_TEST_ASSERT(l.v6 && l3_learned(&l, a.c.ip6, 16, a.mac),
		       "solicitation: sender not learned");
	LR_TEST_ASSERT(m == 86 && memcmp(o, a.mac, 6) == 0 &&
			   memcmp(o + 6, b.mac, 6) == 0 &&
			   memcmp(o + 22, b.c.ip6, 16) == 0 &&
			   memcmp(o + 38, a.c.ip6, 16) == 0 && o[21] == 255 &&
			   o[54] == 136 && o[58] == 0x60 &&
			   memcmp(o + 62, b.c.ip6, 16) == 0 && o[78] == 2 &&
			   o[79] == 1 && memcmp(o + 80, b.mac, 6) == 0 &&
			   icmp6_ok(o),
		       "neighbour advert built wrong");
	if (l3_learns(&a, o, m, b.c.ip6, 16, b.mac, "advert: b") != 0 ||
	    l3_cut(&b, f, n, n, PG_L3_OTHER) != 0)
		return -1;
	/* A bad checksum, a hop limit below 255 (254): nothing. */
	if (l3_spoilt(&b, f, n, 70) != 0 || l3_spoilt(&b, f, n, 21) != 0)
		return -1;
	/* Duplicate address detection (source ::, no option): the advert
	 * goes to all nodes, not solicited. */
	memcpy(g, f, 78);
	memset(g + 22, 0, 16);
	wr16(g + 18, 24);
	icmp6_fix(g);
	LR_TEST_ASSERT_EQ(pg_l3_classify(&b, g, 78, o, sizeof(o), &m, &l),
			  PG_L3_NS);
	LR_TEST_ASSERT(!l.valid && o[0] == 0x33 && o[5] == 1 && o[38] == 0xff &&
			   o[39] == 2 && o[53] == 1 && o[58] == 0x20 &&
			   icmp6_ok(o),
		       "advert to a DAD probe wrong");

	/* ICMP echo a -> b: b answers; not a's address, a bad checksum, a
	 * fragment: nothing. */
	n = l3_echo(f, &echo4, &a, &b, 12);
	LR_TEST_ASSERT_EQ(pg_l3_classify(&b, f, n, o, sizeof(o), &m, &l),
			  PG_L3_ECHO);
	LR_TEST_ASSERT(m == 60 && memcmp(o, a.mac, 6) == 0 &&
			   memcmp(o + 6, b.mac, 6) == 0 &&
			   memcmp(o + 26, b.c.ip4, 4) == 0 &&
			   memcmp(o + 30, a.c.ip4, 4) == 0 &&
			   fold(sum16(o + 14, 20)) == 0xffff && o[34] == 0 &&
			   fold(sum16(o + 34, 20)) == 0xffff &&
			   memcmp(o + 38, f + 38, 16) == 0,
		       "echo reply built wrong");
	LR_TEST_ASSERT_EQ(l3_kind(&a, f, n), PG_L3_OTHER);
	if (l3_spoilt(&b, f, n, 45) != 0)
		return -1;
	memcpy(g, f, n);
	g[20] = 0x20; /* more fragments */
	wr16(g + 24, 0);
	wr16(g + 24, (uint16_t)~fold(sum16(g + 14, 20)));
	LR_TEST_ASSERT_EQ(l3_kind(&b, g, n), PG_L3_OTHER);
	if (l3_cut(&b, f, n, n, PG_L3_OTHER) != 0)
		return -1;
	/* A reply that does not fit the buffer is not built. */
	n = l3_echo(f, &echo4, &a, &b, 200);
	LR_TEST_ASSERT_EQ(pg_l3_classify(&b, f, n, o2, 200, &m2, &l),
			  PG_L3_OTHER);

	/* ICMPv6 echo a -> b. */
	n = l3_echo(f, &echo6, &a, &b, 20);
	LR_TEST_ASSERT_EQ(pg_l3_classify(&b, f, n, o, sizeof(o), &m, &l),
			  PG_L3_ECHO6);
	LR_TEST_ASSERT(m == n && memcmp(o, a.mac, 6) == 0 &&
			   memcmp(o + 6, b.mac, 6) == 0 &&
			   memcmp(o + 22, b.c.ip6, 16) == 0 &&
			   memcmp(o + 38, a.c.ip6, 16) == 0 && o[54] == 129 &&
			   icmp6_ok(o) && memcmp(o + 58, f + 58, 24) == 0,
		       "ICMPv6 echo reply built wrong");
	LR_TEST_ASSERT_EQ(l3_kind(&a, f, n), PG_L3_OTHER);
	if (l3_cut(&b, f, n, n, PG_L3_OTHER) != 0)
		return -1;
	/* Without an address of the family: nothing. */
	b.c.has6 = false;
	LR_TEST_ASSERT_EQ(l3_kind(&b, f, n), PG_L3_OTHER);
	b.c.has4 = false;
	n = pg_l3_arp_request(f, &a, b.c.ip4);
	LR_TEST_ASSERT_EQ(l3_kind(&b, f, n), PG_L3_OTHER);
	return 0;
}

/* "next hop ADDR (KIND) is at MAC" in out: the MAC's 6 bytes. */
static int
l3_hop_mac(const char *addr, uint8_t *mac)
{
	char pat[128];
	const char *p;
	unsigned b[6];

	snprintf(pat, sizeof(pat), "next hop %s (destination) is at ", addr);
	p = strstr(out, pat);
	if (p == NULL || sscanf(p + strlen(pat), "%2x:%2x:%2x:%2x:%2x:%2x",
				&b[0], &b[1], &b[2], &b[3], &b[4], &b[5]) != 6)
		return -1;
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
	return 0;
}

/* Frame i (bytes d) of port 0's IPv4 run in test_l3_ring(): consistent,
 * to the next hop's mac, between the two ports' addresses; 0 or -1. */
static int
l3_ring_v4(unsigned i, const uint8_t *d, const uint8_t *mac)
{
	unsigned size;

	if (check_frame(i, 0, &size))
		return -1;
	LR_TEST_ASSERT(memcmp(d, mac, 6) == 0 && memcmp(d + 6, mac, 6) != 0,
		       "frame %u: destination MAC not the next hop's", i);
	LR_TEST_ASSERT(be32(d + 26) == 0x0a070001 && be32(d + 30) == 0x0a070304,
		       "frame %u: addresses %08x -> %08x", i, be32(d + 26),
		       be32(d + 30));
	return 0;
}

/* The same for the IPv6 run: IPv6 to mac, the addresses, the UDP
 * checksum right. */
static int
l3_ring_v6(unsigned i, const uint8_t *d, const uint8_t *mac)
{
	unsigned pl = be16(d + 18);

	LR_TEST_ASSERT(be16(d + 12) == 0x86dd && memcmp(d, mac, 6) == 0,
		       "frame %u: not IPv6 to the next hop", i);
	LR_TEST_ASSERT(be32(d + 22) == 0xfd070000 && be32(d + 34) == 1 &&
			   be32(d + 50) == 0x00030004,
		       "frame %u: addresses", i);
	LR_TEST_ASSERT(fold(sum16(d + 22, 32) + pl + 17 + sum16(d + 54, pl)) ==
			   0xffff,
		       "frame %u: bad UDP checksum", i);
	return 0;
}

/* lr-pktgen on a net_ring pair sends count frames from port 0 to port 1
 * (captured in cap) with the addresses and destination of opts: port 0
 * resolved the next hop hop by kind ("ARP" or "NDP") to a MAC of its own,
 * port 1 received every frame, and frame_ok() passes each. 0, or what the
 * case returns. */
static int
l3_ring_run(const char *opts, unsigned count, const char *cap, const char *hop,
	    const char *kind,
	    int (*frame_ok)(unsigned i, const uint8_t *d, const uint8_t *mac))
{
	static const uint8_t dflt[6] = {2, 0, 0, 0, 0, 2};
	uint8_t mac[6];
	char how[16];
	int rc;

	rc = run(EAL " -l 0 --vdev net_ring0 --vdev net_ring1 -- --tx-ports 0 "
		     "--rx-ports 1 --quiet --count %u --drain-ms 600000 "
		     "--drain-all %s --capture %s",
		 count, opts, cap_path(cap));
	CHECK_RUN(rc);
	snprintf(how, sizeof(how), "(%s, ", kind);
	LR_TEST_ASSERT(l3_hop_mac(hop, mac) == 0 && memcmp(mac, dflt, 6) != 0 &&
			   strstr(out, how) != NULL,
		       "no next hop %s resolved by %s:\n%s", hop, kind, out);
	LR_TEST_ASSERT_EQ(field("rx_own"), count);
	LR_TEST_ASSERT_EQ(read_pcap(cap_path(cap), 2 * count), count);
	for (unsigned i = 0; i < nframes; i++)
		if (frame_ok(i, frames[i].data, mac) != 0)
			return -1;
	return 0;
}

/* Two ports of one lr-pktgen on a net_ring pair, each with an address:
 * port 0 resolves port 1's MAC (ARP, then NDP) and its frames carry it,
 * with port 0's address as their source (checksums right). */
static int
test_l3_ring(void)
{
	int rc = l3_ring_run("--ip 0:10.7.0.1/16 --ip 1:10.7.3.4/16 "
			     "--dst-ip 10.7.3.4",
			     100, "l3v4", "10.7.3.4", "ARP", l3_ring_v4);

	if (rc != 0)
		return rc;
	return l3_ring_run("--ipv6 --ip 0:fd07::1/64 --ip 1:fd07::3:4/64 "
			   "--dst-ip fd07::3:4",
			   50, "l3v6", "fd07::3:4", "NDP", l3_ring_v6);
}

/* Bad L3 options and setups: each a clear error and its exit status. */
static int
test_l3_errors(void)
{
#define RING2 "--vdev net_ring0 --vdev net_ring1 -- --tx-ports 0 "
	static const struct {
		const char *args;
		int status;
		const char *msg;
	} cases[] = {
	    {"--vdev net_null0 -- --gateway 0:10.0.0.254", 2,
	     "--gateway 0:10.0.0.254: port 0 has no IPv4 address"},
	    {"--vdev net_null0 -- --ip 0:10.0.0.1", 2,
	     "--ip '0:10.0.0.1': expected PORT:ADDRESS/PREFIX"},
	    {"--vdev net_null0 -- --ip 0:10.0.0.1/24 --ip 0:10.0.0.2/24", 2,
	     "port 0 already has the IPv4 address 10.0.0.1"},
	    {"--vdev net_null0 -- --ip 0:10.0.0.1/24 --gateway 0:10.1.0.1", 2,
	     "--gateway 0:10.1.0.1: not on port 0's subnet"},
	    {"--vdev net_null0 -- --resolve-tries 3", 2,
	     "--resolve-tries needs --ip"},
	    {"--vdev net_null0 -- --ip 0:10.0.0.1/24 --resolve-interval 0", 2,
	     "--resolve-interval '0': out of range"},
	    {"--vdev net_null0 -- --ip 0:10.0.0.1/24 --gateway 0:10.0.0.2 "
	     "--pcap x.pcap",
	     2, "--gateway does not apply"},
	    {"--vdev net_null0 -- --ip 3:10.0.0.1/24", 1,
	     "--ip 3:10.0.0.1: port 3 is not used"},
	    {RING2 "--ip 0:10.0.0.1/24 --dst-ip 10.1.0.1", 1,
	     "port 0 (net_ring0): stream 'cli': destination 10.1.0.1 is not "
	     "on the port's subnet 10.0.0.1/24: give --gateway 0:ADDRESS"},
	    {RING2 "--ip 0:10.0.0.1/24 --dst-ip 10.0.0.5-10.0.0.9", 1,
	     "destinations 10.0.0.5-10.0.0.9 on the port's subnet"},
	    {RING2 "--ip 0:10.0.0.1/24 --ipv6", 1,
	     "stream 'cli' is IPv6 but the port has no IPv6 address"},
	    {RING2 "--ip 0:10.0.0.1/24 --vlan 5", 1, "has VLAN tags"},
	    {RING2 "--ip 0:10.0.0.1/24 --dst-ip 10.0.0.1", 1,
	     "destination 10.0.0.1 is the port's own address"},
	    /* Nobody answers: port 1 has no address. */
	    {RING2 "--ip 0:10.0.0.1/24 --gateway 0:10.0.0.254 --dst-ip "
		   "10.9.9.9 --count 10 --resolve-tries 2 --resolve-interval "
		   "0.05",
	     1,
	     "port 0 (net_ring0): no answer from 10.0.0.254 (the gateway) "
	     "to 2 ARP requests"},
	    {RING2 "--ipv6 --ip 0:fd00::1/64 --dst-ip fd00::7 --count 10 "
		   "--resolve-tries 1 --resolve-interval 0.05",
	     1,
	     "no answer from fd00::7 (the destination) to 1 neighbour "
	     "solicitations"},
	};
#undef RING2

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = run(EAL " -l 0 %s", cases[i].args);

		LR_TEST_ASSERT(rc == cases[i].status &&
				   strstr(out, cases[i].msg) != NULL &&
				   strstr(out, "not back in") == NULL,
			       "'%s': exit %d (want %d), want '%s' in:\n%s",
			       cases[i].args, rc, cases[i].status, cases[i].msg,
			       out);
	}
	return 0;
}

/* The control socket's "stats" carries the L3 ports: port 1 answered
 * port 0's ARP request before the run, port 0 learned its MAC. */
static int
test_l3_ctl(void)
{
	char sock[PATH_MAX + 64], ans[4096];
	struct lr_test_child c;
	int rc;

	if (start_ctl(&c, sock, sizeof(sock), "l3ctl", PG_RING_VDEVS,
		      "--tx-ports 0 --rate-pps 1000 --quiet --ip 0:10.0.0.1/24 "
		      "--ip 1:10.0.0.2/24",
		      "control socket") != 0)
		return -1;
	rc = run_ctl(ans, sizeof(ans), "%s stats", sock);
	kill(c.pid, SIGINT);
	LR_TEST_ASSERT(lr_test_child_finish(&c, READY_S) == 0 &&
			   final_line_is_last(),
		       "lr-pktgen after SIGINT:\n%s", out);
	LR_TEST_ASSERT(rc == 0 && strstr(ans, "\"l3\":[{\"port\":0,") &&
			   strstr(ans, "\"next_hops\":[{\"ip\":\"10.0.0.2\"") &&
			   strstr(ans, "\"port\":1,\"ipv4\":\"10.0.0.2/24\"") &&
			   strstr(ans, "\"arp_answered\":1"),
		       "stats: exit %d: %s", rc, ans);
	return 0;
}

/* A port with addresses answers while the run lasts: port 0 replays an
 * ARP request, an ICMP echo request, a neighbour solicitation, an ICMPv6
 * echo request and a stamped frame of ours to port 1 (--ip); port 1
 * answers each once (counted apart from the test frames) and the answers
 * reach port 0 right. One lcore polls both ports in turn, so the answers
 * of one burst are received in the next while sending lasts. */
static int
test_l3_answers(void)
{
	struct pg_l3_if x, b;
	uint8_t f[5][256];
	const uint8_t *fp[5] = {f[0], f[1], f[2], f[3], f[4]};
	uint32_t len[5];
	unsigned seen[4] = {0};
	char req[PATH_MAX + 64];
	const char *p;
	int rc;

	l3_ifs(&x, &b);
	x.c.ip4[3] = 9;
	x.c.ip6[15] = 9;
	x.mac[5] = 0xc;
	rc = RING_CAPTURE("l3stamp", 1, "");
	CHECK_RUN(rc);
	LR_TEST_ASSERT_EQ(read_pcap(cap_path("l3stamp"), 2), 1);
	len[0] = pg_l3_arp_request(f[0], &x, b.c.ip4);
	len[1] = l3_echo(f[1], &echo4, &x, &b, 16);
	len[2] = pg_l3_ns_request(f[2], &x, b.c.ip6);
	len[3] = l3_echo(f[3], &echo6, &x, &b, 16);
	memcpy(f[4], frames[0].data, frames[0].len);
	len[4] = frames[0].len;
	LR_TEST_ASSERT(write_pcap(cap_path("l3req"), fp, len, 5) == 0,
		       "cannot write %s", cap_path("l3req"));
	snprintf(req, sizeof(req), "%s", cap_path("l3req"));
	rc = run(EAL " -l 0 --vdev net_ring0 --vdev net_ring1 -- --quiet "
		     "--tx-ports 0 --ip 1:10.0.0.2/24 --ip 1:fd00::2/64 "
		     "--pcap %s --count 1000 --drain-ms 600000 --drain-all "
		     "--capture %s",
		 req, cap_path("l3ans"));
	CHECK_RUN(rc);
	LR_TEST_ASSERT(strstr(out, "L3 port 1: 10.0.0.2/24 fd00::2/64; "
				   "answered 200 ARP requests, 200 neighbour "
				   "solicitations, 400 echo requests; 0 "
				   "answers dropped") != NULL,
		       "answers not counted right:\n%s", out);
	LR_TEST_ASSERT_EQ(field("rx_own"), 200);
	LR_TEST_ASSERT(read_pcap(cap_path("l3ans"), 4000) > 0,
		       "capture %s unreadable:\n%s", cap_path("l3ans"), out);
	for (unsigned i = 0; i < nframes; i++) {
		const uint8_t *d = frames[i].data;

		if (memcmp(d, x.mac, 6) != 0)
			continue; /* a request, or a frame of ours */
		if (be16(d + 12) == 0x0806) {
			LR_TEST_ASSERT(be16(d + 20) == 2 &&
					   memcmp(d + 28, b.c.ip4, 4) == 0 &&
					   memcmp(d + 32, x.mac, 6) == 0 &&
					   memcmp(d + 38, x.c.ip4, 4) == 0,
				       "frame %u: bad ARP reply", i);
			seen[0]++;
		} else if (be16(d + 12) == 0x0800) {
			LR_TEST_ASSERT(d[34] == 0 &&
					   be32(d + 26) == 0x0a000002 &&
					   fold(sum16(d + 34, 24)) == 0xffff,
				       "frame %u: bad echo reply", i);
			seen[1]++;
		} else if (d[54] == 136) {
			LR_TEST_ASSERT(icmp6_ok(d) &&
					   memcmp(d + 62, b.c.ip6, 16) == 0,
				       "frame %u: bad advert", i);
			seen[2]++;
		} else {
			LR_TEST_ASSERT(d[54] == 129 && icmp6_ok(d) &&
					   memcmp(d + 38, x.c.ip6, 16) == 0,
				       "frame %u: bad ICMPv6 echo reply", i);
			seen[3]++;
		}
	}
	LR_TEST_ASSERT(seen[0] && seen[1] && seen[2] && seen[3],
		       "answers missing from the capture: ARP %u echo %u NA %u "
		       "echo6 %u",
		       seen[0], seen[1], seen[2], seen[3]);
	/* --no-stamp: no frame is a test frame, the requests are still
	 * answered (those of the bursts before the last, at least). */
	rc = run(EAL " -l 0 --vdev net_ring0 --vdev net_ring1 -- --quiet "
		     "--tx-ports 0 --ip 1:10.0.0.2/24 --ip 1:fd00::2/64 "
		     "--pcap %s --count 1000 --no-stamp",
		 req);
	CHECK_RUN(rc);
	p = strstr(out, "L3 port 1: 10.0.0.2/24 fd00::2/64; answered ");
	LR_TEST_ASSERT(p != NULL &&
			   sscanf(p,
				  "L3 port 1: 10.0.0.2/24 fd00::2/64; "
				  "answered %u ARP requests, %u neighbour "
				  "solicitations, %u echo requests",
				  &seen[0], &seen[1], &seen[2]) == 3 &&
			   seen[0] > 0 && seen[1] > 0 && seen[2] > 0,
		       "--no-stamp: requests not answered:\n%s", out);
	return 0;
}

CASE(count_exact)
CASE(rate_pps)
CASE(rate_bits)
CASE(rate_accuracy)
CASE(size_range)
CASE(imix)
CASE(fields)
CASE(udp_cksum)
CASE(memif_zc_pool)
CASE(pacing_low_rate)
CASE(rate_missed)
CASE(prebuilt)
CASE(l3_ring)
CASE(l3_errors)
CASE(l3_answers)
CASE(l3_ctl)

static const struct lr_test_case cases[] = {
    {"count_exact", case_count_exact},
    {"rate_pps", case_rate_pps},
    {"rate_bits", case_rate_bits},
    {"rate_accuracy", case_rate_accuracy},
    {"size_range", case_size_range},
    {"imix", case_imix},
    {"fields", case_fields},
    {"udp_cksum", case_udp_cksum},
    {"memif_zc_pool", case_memif_zc_pool},
    {"pacing_low_rate", case_pacing_low_rate},
    {"rate_missed", case_rate_missed},
    {"prebuilt", case_prebuilt},
    {"l3_parse", test_l3_parse},
    {"l3_frames", test_l3_frames},
    {"l3_ring", case_l3_ring},
    {"l3_errors", case_l3_errors},
    {"l3_answers", case_l3_answers},
    {"l3_ctl", case_l3_ctl},
};

LR_TEST_MAIN("pktgen_send", cases)
