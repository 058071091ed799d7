/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How lr-pktgen is told what to do, on net_null and net_ring ports, no
 * privileges: bad options, the header kinds and the streams of a profile
 * (fields, rates, bursts, errors placed in the file), the ends of a run
 * (SIGINT and every other stop signal, in the drain too; a port that stops
 * taking frames) and the control socket (rate, start, stop, quit, a
 * stream's own rate).
 *
 * Each case runs the lr-pktgen binary of this build tree and reads its
 * final line (lr_test_pktgen.h).
 */
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LR_TEST_PG_NAME "test_pktgen_config"
#include "lr_test_pktgen.h"
/* PG_ST_CHECK and pg_stamp_check(): the stamp after the headers. */
#include "../apps/pktgen/pktgen.h"

static int
test_bad_options(void)
{
	static const struct {
		const char *args;
		int status;
		const char *msg;
	} cases[] = {
	    {"--size 63", 2, "--size '63': below 64"},
	    {"--size 100-64", 2, "high to low"},
	    {"--size 9999", 2, "above 9018"},
	    {"--rate-pps fast", 2, "--rate-pps 'fast': expected a number"},
	    {"--rate-pct 150", 2, "--rate-pct '150': out of range"},
	    {"--rate-pps 1k --rate-mbps 5", 2, "give one"},
	    {"--src-ip 300.1.1.1", 2, "--src-ip '300.1.1.1'"},
	    {"--dst-mac 02:00:00:00:00", 2, "--dst-mac '02:00:00:00:00'"},
	    {"--src-port 70000", 2, "--src-port '70000': out of range"},
	    {"--burst 0", 2, "--burst '0': out of range"},
	    {"--count", 2, "'--count' needs a value"},
	    {"--bogus", 2, "unknown option '--bogus'"},
	    {"--tx-only --rx-only", 2, "give one"},
	    {"--imix --size 64", 2, "--size and --imix"},
	    {"--size-step 4", 2, "--size-step needs a size range"},
	    {"--ports 3", 2, "port 3: no such port"},
	    {"--portmask zz", 2, "--portmask 'zz'"},
	    {"--pcap /nonexistent/x.pcap", 2, "--pcap '/nonexistent/x.pcap'"},
	    {"--capture-mode 0999", 2,
	     "--capture-mode '0999': expected octal permission bits"},
	    {"--capture-mode 1777", 2, "--capture-mode '1777'"},
	    {"--capture-mode 0640", 2, "--capture-mode needs --capture FILE"},
	    {"--rx-only --count 5", 2, "--rx-only sends nothing"},
	    {"--stats-period 0", 2, "--stats-period '0': out of range"},
	    {"stray", 2, "unexpected argument 'stray'"},
	    {"--link-wait -1", 2, "--link-wait '-1': out of range"},
	    {"--link-wait soon", 2, "--link-wait 'soon': expected a number"},
	    {"--mbufs 10", 2,
	     "--mbufs '10': expected N or MIN-MAX with MIN <= MAX, MAX in "
	     "64.."},
	    {"--mbufs 5000-100", 2, "--mbufs '5000-100'"},
	    {"--mbufs 100-", 2, "--mbufs '100-'"},
	    {"--mbufs-idle soon", 2, "--mbufs-idle 'soon': expected a number"},
	    {"--proto sctp", 2, "--proto 'sctp': expected udp, tcp or icmp"},
	    {"--vlan 4096", 2, "--vlan '4096': out of range"},
	    {"--vlan 1 --vlan 2 --vlan 3", 2, "--vlan '3': at most two"},
	    {"--ipv6 --src-ip 10.0.0.1", 2,
	     "--src-ip '10.0.0.1': expected an IPv6 address"},
	    {"--ipv6 --size 64", 2, "at least 84 bytes"},
	    {"--profile x.json --size 100", 2,
	     "--profile defines the streams: --size does not apply"},
	    {"--profile /nonexistent.json", 2,
	     "--profile '/nonexistent.json': cannot open: No such file"},
	    {"--speed 2", 2, "--speed needs --replay FILE"},
	    {"--replay x.pcap --rate-pps 5", 2,
	     "--replay sends at the capture's timing"},
	    {"--replay x.pcap --speed 0", 2, "--speed '0': out of range"},
	    {"--ctl /nonexistent/dir/c.sock --count 1", 1,
	     "--ctl '/nonexistent/dir/c.sock': No such file or directory"},
	    {"--idle --count 1", 2,
	     "--idle waits for a \"start\" request: it needs --ctl PATH"},
	    {"--idle --ctl x.sock --rx-only", 2, "--idle and --rx-only"},
	    {"--rfc2544 jitter", 2,
	     "--rfc2544 'jitter': expected throughput, latency, frame-loss "
	     "or back-to-back"},
	    {"--pdr-loss 1", 2,
	     "--pdr-loss needs --rfc2544 (throughput, latency, frame-loss or "
	     "back-to-back)"},
	    {"--rfc2544 throughput --latency-loads 50", 2,
	     "--latency-loads applies to --rfc2544 latency"},
	    {"--rfc2544 latency --latency-loads 50,101", 2,
	     "--latency-loads '50,101': expected percent of the NDR above 0 "
	     "and at most 100"},
	    {"--rfc2544 back-to-back --loss-step 5", 2,
	     "--loss-step applies to --rfc2544 frame-loss"},
	    {"--rfc2544 frame-loss --tx-full later", 2,
	     "--tx-full 'later': expected drop or wait"},
	    {"--rfc2544 throughput --duration 1", 2,
	     "--duration does not apply"},
	    {"--rfc2544 throughput --rate-pps 1k", 2,
	     "--rate-pps/--rate-mbps/--rate-pct does not apply"},
	    {"--rfc2544 throughput --rfc2544-sizes 63,imix", 2,
	     "--rfc2544-sizes '63,imix': expected frame sizes 64..9018"},
	    {"--rfc2544 throughput --max-rate fast", 2,
	     "--max-rate 'fast': expected a rate above 0"},
	    {"--rfc2544 throughput --min-rate 2k --max-rate 1k", 2,
	     "--min-rate 2000 is above --max-rate 1000: no rate to search"},
	    {"--rfc2544 throughput --max-rate 1k --min-rate 5%", 2,
	     "--min-rate 5% (744048 frames/s at 64 B) is above --max-rate "
	     "1000 (1000 frames/s at 64 B): no rate to search"},
	    {"--rfc2544 throughput --max-rate 20M", 2,
	     "--max-rate 20000000 (20000000 frames/s at 64 B) is above the "
	     "line rate of the sending ports at 64 B: 14880952 frames/s"},
	    {"--rfc2544 throughput --ipv6 --rfc2544-sizes 64", 2,
	     "at least 84 bytes"},
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = run(EAL " -l 0 --vdev net_null0 -- %s", cases[i].args);

		LR_TEST_ASSERT(
		    rc == cases[i].status && strstr(out, cases[i].msg) != NULL,
		    "'%s': exit %d (want %d), want '%s' in:\n%s", cases[i].args,
		    rc, cases[i].status, cases[i].msg, out);
	}
	int rc = run(EAL " -l 0 -- --count 5");

	LR_TEST_ASSERT(rc == 2 && strstr(out, "no ports") != NULL,
		       "no --vdev: exit %d:\n%s", rc, out);
	return 0;
}

/* ---- streams: header kinds, field engine, sizes, profiles ---- */

/* Frame i has ntags VLAN tags (outer TPID tpid0), IPv4 or IPv6, L4
 * protocol proto (17, 6, 1 or 58) with right lengths and checksums and a
 * stamp whose check holds right after the transport header. *l4 gets the
 * transport header's offset. */
static int
check_headers(unsigned i, unsigned ntags, unsigned tpid0, int v6,
	      unsigned proto, unsigned *l4)
{
	const struct frame *fr = &frames[i];
	const uint8_t *d = fr->data, *st;
	unsigned off = 12, l3, hl, len = fr->len;
	uint32_t s;

	for (unsigned t = 0; t < ntags; t++) {
		LR_TEST_ASSERT_EQ(be16(d + off), t == 0 ? tpid0 : 0x8100);
		off += 4;
	}
	LR_TEST_ASSERT_EQ(be16(d + off), v6 ? 0x86dd : 0x0800);
	l3 = off + 2;
	if (v6) {
		LR_TEST_ASSERT_EQ(d[l3] >> 4, 6);
		LR_TEST_ASSERT_EQ(d[l3 + 6], proto);
		LR_TEST_ASSERT_EQ(be16(d + l3 + 4), len - l3 - 40);
		*l4 = l3 + 40;
	} else {
		LR_TEST_ASSERT_EQ(d[l3], 0x45);
		LR_TEST_ASSERT_EQ(d[l3 + 9], proto);
		LR_TEST_ASSERT_EQ(be16(d + l3 + 2), len - l3);
		LR_TEST_ASSERT(fold(sum16(d + l3, 20)) == 0xffff,
			       "frame %u: bad IPv4 checksum", i);
		*l4 = l3 + 20;
	}
	hl = proto == 6 ? 20u : 8u;
	if (proto == 17)
		LR_TEST_ASSERT_EQ(be16(d + *l4 + 4), len - *l4);
	if (proto == 6)
		LR_TEST_ASSERT_EQ(d[*l4 + 12] >> 4, 5);
	/* Transport checksum: over the pseudo header too, but ICMPv4. */
	s = sum16(d + *l4, len - *l4);
	if (v6)
		s += sum16(d + l3 + 8, 32) + proto + (len - *l4);
	else if (proto != 1)
		s += sum16(d + l3 + 12, 8) + proto + (len - *l4);
	if (proto != 17 || v6 || be16(d + *l4 + 6) != 0)
		LR_TEST_ASSERT(fold(s) == 0xffff,
			       "frame %u: bad L4 (%u) checksum", i, proto);
	st = d + *l4 + hl;
	LR_TEST_ASSERT(
	    be16(st + PG_ST_CHECK) ==
		pg_stamp_check(be32(st), (uint16_t)be16(st + 4), be32(st + 6),
			       (uint64_t)be16(st + 10) << 32 | be32(st + 12)),
	    "frame %u: stamp check fails", i);
	LR_TEST_ASSERT_EQ(be32(st + 6), i);
	return 0;
}

/* Each header kind from the command line, on the wire: tags, IPv4 and
 * IPv6, UDP, TCP and ICMP, lengths and checksums, the stamp after them;
 * the receiving port finds every frame (rx_own). */
static int
test_header_kinds(void)
{
	static const struct {
		const char *args;
		unsigned ntags, tpid0, proto;
		int v6;
	} k[] = {
	    {"--proto tcp", 0, 0, 6, 0},
	    {"--proto icmp", 0, 0, 1, 0},
	    {"--vlan 100 --udp-cksum", 1, 0x8100, 17, 0},
	    {"--vlan 100 --vlan 200 --proto tcp", 2, 0x88a8, 6, 0},
	    {"--ipv6", 0, 0, 17, 1},
	    {"--ipv6 --proto tcp --vlan 7", 1, 0x8100, 6, 1},
	    {"--ipv6 --proto icmp --size 200", 0, 0, 58, 1},
	};

	for (unsigned c = 0; c < sizeof(k) / sizeof(k[0]); c++) {
		unsigned l4;
		int rc = RING_CAPTURE("hdr", 20, k[c].args);

		CHECK_RUN(rc);
		LR_TEST_ASSERT(field("rx_own") == 20 && field("lost") == 0,
			       "%s: own frames not found:\n%s", k[c].args, out);
		LR_TEST_ASSERT_EQ(read_pcap(cap_path("hdr"), 40), 20);
		for (unsigned i = 0; i < nframes; i++) {
			const uint8_t *d = frames[i].data;

			if (check_headers(i, k[c].ntags, k[c].tpid0, k[c].v6,
					  k[c].proto, &l4))
				return -1;
			if (k[c].ntags)
				LR_TEST_ASSERT_EQ(be16(d + 14) & 0xfff,
						  k[c].ntags == 2 ? 100u
						  : k[c].v6	  ? 7u
								  : 100u);
			if (k[c].ntags == 2)
				LR_TEST_ASSERT_EQ(be16(d + 18), 200);
			if (k[c].proto == 1)
				LR_TEST_ASSERT(d[l4] == 8 && d[l4 + 1] == 0,
					       "ICMP echo request");
			if (k[c].proto == 58)
				LR_TEST_ASSERT_EQ(d[l4], 128);
			if (k[c].v6) {
				unsigned l3 = 14 + 4 * k[c].ntags;

				LR_TEST_ASSERT(d[l3 + 8] == 0xfd &&
						   d[l3 + 23] == 1 &&
						   d[l3 + 39] == 2,
					       "IPv6 default addresses");
			}
		}
		/* IPv6 + UDP + stamp: 62 + 18 + 4 > 64: the default size
		 * grows to fit. */
		if (k[c].v6 && k[c].proto == 17)
			LR_TEST_ASSERT_EQ(frames[0].len, 80);
	}
	return 0;
}

/* The field engine from a profile: decrementing and incrementing fields
 * make their cartesian product (the first one fastest), a random one
 * stays in its range and covers it, IPv6 ranges over the low bits;
 * weighted sizes come in their proportions, spread. */
static int
test_profile_fields(void)
{
	const char *prof = write_text(
	    "fields.json",
	    "{\"streams\": [{\"name\": \"f\", \"ipv6\": true,"
	    " \"src_ip\": {\"from\": \"2001:db8::10\", \"to\": "
	    "\"2001:db8::12\", \"mode\": \"dec\"},"
	    " \"vlan\": {\"from\": 10, \"to\": 11}, \"vlan_pcp\": 5,"
	    " \"src_port\": {\"from\": 100, \"to\": 106, \"step\": 3},"
	    " \"dst_port\": {\"from\": 1, \"to\": 4, \"mode\": \"random\"},"
	    " \"payload\": \"hex:a5\","
	    " \"size\": [[100, 3], [200, 1]]}]}");
	unsigned sizes[2] = {0, 0}, seen = 0, l4;
	int rc;

	LR_TEST_ASSERT(prof != NULL, "writing the profile");
	rc = run(EAL " -l 0 --vdev net_ring0 --vdev net_ring1 -- --tx-ports 0 "
		     "--rx-ports 1 --quiet --count 72 --profile %s --capture "
		     "%s",
		 prof, cap_path("pf"));
	CHECK_RUN(rc);
	LR_TEST_ASSERT_EQ(field("rx_own"), 72);
	LR_TEST_ASSERT_EQ(read_pcap(cap_path("pf"), 100), 72);
	for (unsigned i = 0; i < nframes; i++) {
		const uint8_t *d = frames[i].data;
		unsigned dport;

		if (check_headers(i, 1, 0x8100, 1, 17, &l4))
			return -1;
		/* vlan (2) x src_ip (3, down) x src_port (3): the random
		 * dst_port is outside the product. */
		LR_TEST_ASSERT_EQ(be16(d + 14), (5u << 13) | (10 + i % 2));
		LR_TEST_ASSERT_EQ(d[18 + 8 + 15], 0x12 - i / 2 % 3);
		LR_TEST_ASSERT_EQ(be32(d + 18 + 8), 0x20010db8);
		LR_TEST_ASSERT_EQ(be16(d + l4), 100 + 3 * (i / 6 % 3));
		dport = be16(d + l4 + 2);
		LR_TEST_ASSERT(dport >= 1 && dport <= 4, "dst port %u", dport);
		seen |= 1u << dport;
		LR_TEST_ASSERT(frames[i].len + 4 == 100 ||
				   frames[i].len + 4 == 200,
			       "size %u", frames[i].len + 4);
		sizes[frames[i].len + 4 == 200]++;
		LR_TEST_ASSERT(d[l4 + 8 + 18] == 0xa5 &&
				   d[frames[i].len - 1] == 0xa5,
			       "payload pattern");
		/* 3:1, spread: never two 200s in a row. */
		if (i > 0)
			LR_TEST_ASSERT(frames[i].len + 4 == 100 ||
					   frames[i - 1].len + 4 == 100,
				       "sizes bunch up at %u", i);
	}
	LR_TEST_ASSERT(sizes[0] == 54 && sizes[1] == 18, "sizes %u/%u",
		       sizes[0], sizes[1]);
	LR_TEST_ASSERT_EQ(seen, 0x1e);
	return 0;
}

/* Three streams: two at rates of their own, one sharing --rate-pps with
 * nothing else; each gets its rate within 1% over 2 s (all of them, or
 * their sum, behind the schedule: retried, as a busy host may stall the
 * generator longer than the bucket); every frame comes back. */
static int
test_profile_rates(void)
{
	const char *prof = write_text(
	    "rates.json",
	    "{\"streams\": ["
	    "{\"name\": \"slow\", \"rate_pps\": 1000, \"proto\": \"tcp\"},"
	    "{\"name\": \"mid\", \"rate_pps\": 3000, \"size\": 128},"
	    "{\"name\": \"shared\", \"share\": 2, \"proto\": \"icmp\","
	    " \"ipv6\": true}]}");
	char jfile[PATH_MAX + 64];
	static const double want[3] = {2000, 6000, 10000};

	LR_TEST_ASSERT(prof != NULL, "writing the profile");
	snprintf(jfile, sizeof(jfile), "%s/rates.json.out", tmpdir);
	for (int attempt = 1; attempt <= 3; attempt++) {
		json_error_t e;
		json_t *doc, *st;
		int ok = 1;
		int rc = run_split(
		    jfile,
		    EAL " -l 0 --vdev net_ring0 --vdev net_ring1 -- "
			"--tx-ports 0 --rx-ports 1 --json --rate-pps 5000 "
			"--duration 2 --bucket-ms 1000 --profile %s",
		    prof);

		CHECK_RUN(rc);
		doc = json_load_file(jfile, 0, &e);
		LR_TEST_ASSERT(doc != NULL, "%s: %s", jfile, e.text);
		st =
		    json_object_get(json_object_get(doc, "results"), "streams");
		LR_TEST_ASSERT_EQ(json_array_size(st), 3);
		for (unsigned k = 0; k < 3; k++) {
			json_t *s = json_array_get(st, k);
			double tx = (double)jint(s, "tx");

			printf("attempt %d: stream %u tx %.0f (want %.0f), rx "
			       "%lld, jitter %.3f us\n",
			       attempt, k, tx, want[k], jint(s, "rx"),
			       jnum(s, "jitter_us"));
			LR_TEST_ASSERT(
			    jint(s, "rx") == (long long)tx &&
				jint(s, "lost") == 0 &&
				jint(s, "latency_us.n") == (long long)tx,
			    "stream %u: rx %lld of %.0f", k, jint(s, "rx"), tx);
			ok &= fabs(tx / want[k] - 1) < 0.01;
		}
		json_decref(doc);
		if (ok)
			return 0;
	}
	LR_TEST_ASSERT(0, "rates off by more than 1%% three times");
	return -1;
}

/* A single burst, and bursts with gaps between them: counts and the
 * capture's times. */
static int
test_profile_bursts(void)
{
	const char *prof = write_text(
	    "bursts.json",
	    "{\"streams\": [{\"name\": \"one\", \"burst\": 25},"
	    " {\"name\": \"three\", \"burst\": 10, \"gap_us\": 50000,"
	    " \"bursts\": 3, \"src_port\": 9}]}");
	uint32_t last_ts = 0;
	unsigned n9 = 0;
	int rc;
	FILE *f;

	LR_TEST_ASSERT(prof != NULL, "writing the profile");
	rc = run(EAL " -l 0 --vdev net_ring0 --vdev net_ring1 -- --tx-ports 0 "
		     "--rx-ports 1 --quiet --profile %s --capture %s",
		 prof, cap_path("bursts"));
	CHECK_RUN(rc);
	LR_TEST_ASSERT(field("tx") == 55 && field("rx_own") == 55,
		       "bursts:\n%s", out);
	LR_TEST_ASSERT_EQ(read_pcap(cap_path("bursts"), 100), 55);
	/* The capture's record times (microseconds): 50 ms between the
	 * bursts of the second stream, never less. */
	f = fopen(cap_path("bursts"), "rb");
	LR_TEST_ASSERT(f != NULL && fseek(f, 24, SEEK_SET) == 0, "reopen");
	for (unsigned i = 0; i < nframes; i++) {
		uint32_t rh[4];
		uint64_t ts;

		LR_TEST_ASSERT(fread(rh, 4, 4, f) == 4 &&
				   fseek(f, (long)rh[2], SEEK_CUR) == 0,
			       "record %u", i);
		ts = (uint64_t)rh[0] * 1000000 + rh[1];
		if (be16(frames[i].data + 34) != 9)
			continue;
		if (n9 == 10 || n9 == 20)
			LR_TEST_ASSERT(ts - last_ts >= 49000,
				       "gap before frame %u: %llu us", n9,
				       (unsigned long long)(ts - last_ts));
		last_ts = (uint32_t)ts;
		n9++;
	}
	fclose(f);
	LR_TEST_ASSERT_EQ(n9, 30);
	return 0;
}

/* Bad profiles: a usage error (exit 2) whose message places it in the
 * file (FILE:LINE:COLUMN of the bad value, or of its stream for what the
 * stream as a whole breaks) and names the field's JSON path, the stream
 * and the value; a syntax error has jansson's position; a file that cannot
 * be read says why, never a position it does not have. */
static int
test_profile_errors(void)
{
	static const struct {
		const char *text, *pos, *msg;
	} cases[] = {
	    {"{\"streams\": [{\"nmae\": \"x\"}]}",
	     ":1:23: ", "streams[0].nmae (stream '0'): unknown key"},
	    {"{\"streams\": [{\"name\": \"a\", \"src_ip\": \"10.0.0.300\"}]}",
	     ":1:38: ",
	     "streams[0].src_ip (stream 'a'): expected an IPv4 "
	     "address"},
	    {"{\"streams\": [{},\n {\"name\": \"b\",\n  \"size\": 63}]}",
	     ":3:11: ", "streams[1].size (stream 'b'): 63: below 64"},
	    {"{\"streams\": [{\"name\": \"c\", \"ipv6\": true, \"size\": 64}]}",
	     ":1:14: ",
	     "streams[0]: stream 'c': frames of 64 bytes cannot hold its "
	     "headers and stamp: at least 84 bytes"},
	    {"{\"streams\": [{\"dst_port\": {\"from\": 1, \"to\": 2, "
	     "\"mode\": \"up\"}}]}",
	     ":1:27: ",
	     "streams[0].dst_port (stream '0'): mode \"up\": expected"},
	    {"{\"streams\": [{\"rate_pps\": 5, \"share\": 2}]}", ":1:27: ",
	     "streams[0] (stream '0'): rate_pps/rate_mbps/share: give one"},
	    {"{\"streams\": [{\"gap_us\": 5}]}", ":1:25: ", "need \"burst\""},
	    {"{\"streams\": []}", ":1:13: ", "with 1 to 64 streams"},
	    {"{\"streamz\": []}", ":1:1: ", "with 1 to 64 streams"},
	    {"{\"streams\": [7]}", ":1:14: ", "streams[0]: expected an object"},
	    /* A key spelled with escapes is found as jansson reads it. */
	    {"{\"streams\": [{\"n\\u0061me\": \"e\", \"s\\u0069ze\": 1}]}",
	     ":1:46: ", "streams[0].size (stream 'e'): 1: below 64"},
	    /* Found by fuzz_profile: a long range cut before its dash. */
	    {"{\"streams\": [{\"name\": \"d\", \"size\": "
	     "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	     "a"
	     "76-1518\"}]}",
	     ":1:36: ", "streams[0].size (stream 'd'): \"aaaa"},
	    /* Syntax: jansson's position. */
	    {"{\"streams\": [", ":1:13: ", "']' expected near end of file"},
	    {"{\"streams\": [{}],\n \"streams\": 1}",
	     ":2:10: ", "duplicate object key"},
	    {"", ":1:1: ", "'[' or '{' expected"},
	};
	char want[PATH_MAX + 96];

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *p = write_text("bad.json", cases[i].text);
		int rc;

		LR_TEST_ASSERT(p != NULL, "writing bad.json");
		snprintf(want, sizeof(want), "lr-pktgen: --profile %s%s", p,
			 cases[i].pos);
		rc = run(EAL " -l 0 --vdev net_null0 -- --count 1 --profile %s",
			 p);
		LR_TEST_ASSERT(rc == 2 && strstr(out, want) &&
				   strstr(out, cases[i].msg),
			       "'%s': exit %d, want '%s' and '%s' in:\n%s",
			       cases[i].text, rc, want, cases[i].msg, out);
	}
	/* No file, or one that is not a file: why, and no position. */
	int rc = run(EAL " -l 0 --vdev net_null0 -- --count 1 --profile "
			 "%s/none.json",
		     tmpdir);

	snprintf(want, sizeof(want),
		 "lr-pktgen: --profile '%s/none.json': cannot open: No such "
		 "file or directory",
		 tmpdir);
	LR_TEST_ASSERT(rc == 2 && strstr(out, want) && !strstr(out, "line"),
		       "missing file: exit %d, want '%s' in:\n%s", rc, want,
		       out);
	rc =
	    run(EAL " -l 0 --vdev net_null0 -- --count 1 --profile %s", tmpdir);
	LR_TEST_ASSERT(rc == 2 && strstr(out, "': cannot read: Is a directory"),
		       "a folder: exit %d:\n%s", rc, out);
	return 0;
}

/* ---- ending a run: signals, a port that stops ---- */

static int
test_sigint(void)
{
	/* SIGINT once it has sent for a second: its first per-second
	 * line says so (it has installed its handlers long before). */
	int rc = run_sig("s] port 1: tx",
			 EAL " -l 0 --vdev net_ring0 --vdev net_ring1 "
			     "-- --rate-pps 100k");

	CHECK_RUN(rc);
	LR_TEST_ASSERT(field("tx") > 1000, "%s", out);
	LR_TEST_ASSERT_EQ(field("lost"), 0);
	LR_TEST_ASSERT(strstr(out, "summary") != NULL, "no summary:\n%s", out);
	LR_TEST_ASSERT(strstr(out, "not back in") == NULL, "%s", out);
	/* Full speed, two lcores. */
	rc = run_sig("s] port 0: tx",
		     EAL " -l 0-1 --vdev net_null0 -- --tx-only");
	CHECK_RUN(rc);
	LR_TEST_ASSERT(field("tx") > 1000, "%s", out);
	return 0;
}

/* A stop signal during the drain ends it at once, the first one (the run
 * ended by --count) or a second one of any kind (the first ended the
 * sending): --drain-ms 600000 must not keep it for ten minutes. */
static int
test_stop_during_drain(void)
{
	struct lr_test_child c;
	char name[96], what[512];
	int rc;

	lr_test_prefix_name(name, sizeof(name), "test_pktgen_drain");
	if (start_pktgen(&c, name, "--count 100 --drain-ms 600000",
			 "Ctrl-C ends it") != 0)
		return -1;
	kill(c.pid, SIGINT);
	/* Bounded for the old behaviour (600 s), not for speed. */
	rc = lr_test_child_finish(&c, READY_S);
	LR_TEST_ASSERT(rc == 0 && final_line_is_last(),
		       "SIGINT in the drain: exit %d (-3: still draining):\n%s",
		       rc, out);
	LR_TEST_ASSERT(field("tx") == 100 && field("rx_own") == 100,
		       "counts:\n%s", out);
	LR_TEST_ASSERT(!lr_test_leftovers(name, what, sizeof(what)),
		       "%s left behind", what);

	if (start_pktgen(&c, name, "--rate-pps 10k --drain-ms 600000",
			 "s] port 1: tx") != 0)
		return -1;
	kill(c.pid, SIGINT);
	if (lr_test_child_wait_for(&c, "Ctrl-C ends it", READY_S) != 0) {
		kill(c.pid, SIGKILL);
		lr_test_child_finish(&c, READY_S);
		LR_TEST_ASSERT(0, "no drain after SIGINT:\n%s", out);
	}
	kill(c.pid, SIGHUP);
	rc = lr_test_child_finish(&c, READY_S);
	LR_TEST_ASSERT(rc == 0 && final_line_is_last(),
		       "SIGINT, then SIGHUP in the drain: exit %d:\n%s", rc,
		       out);
	LR_TEST_ASSERT(!lr_test_leftovers(name, what, sizeof(what)),
		       "%s left behind", what);
	return 0;
}

/* Every terminating signal ends a run as SIGINT does: the final line,
 * exit 0, nothing left of its prefix; -h exits 0 without an error. */
static int
test_stop_signals(void)
{
	static const int sigs[] = {SIGHUP,  SIGPIPE, SIGQUIT,
				   SIGUSR1, SIGUSR2, SIGTERM};
	struct lr_test_child c;
	char name[96], what[512];
	int rc;

	lr_test_prefix_name(name, sizeof(name), "test_pktgen_stop");
	for (unsigned i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		if (start_pktgen(&c, name, "--rate-pps 10k --drain-ms 50",
				 "s] port 1: tx") != 0)
			return -1;
		kill(c.pid, sigs[i]);
		rc = lr_test_child_finish(&c, READY_S);
		LR_TEST_ASSERT(rc == 0 && final_line_is_last(),
			       "signal %d: exit %d (-1: killed):\n%s", sigs[i],
			       rc, out);
		LR_TEST_ASSERT(field("lost") == 0, "signal %d:\n%s", sigs[i],
			       out);
		LR_TEST_ASSERT(!lr_test_leftovers(name, what, sizeof(what)),
			       "signal %d: %s left behind", sigs[i], what);
	}
	rc = run("-h");
	LR_TEST_ASSERT(rc == 0 && strstr(out, "EAL options:") &&
			   !strstr(out, "failed"),
		       "-h: exit %d:\n%s", rc, out);
	return 0;
}

/* Run lr-pktgen on net_ring0 alone (it takes 1,024 frames, then refuses
 * every one: nobody reads its ring) with the options opts; it must end
 * within max_s, exit 1 and name the port that stopped taking frames. */
static int
stall_run(const char *opts, double max_s)
{
	struct timespec t0;
	double secs;
	int rc;

	const char *d;
	double ran = -1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = run(EAL " -l 0 --vdev net_ring0 -- --drain-ms 0 %s", opts);
	secs = since(&t0);
	d = strstr(out, "lcore(s) ran ");
	if (d != NULL)
		ran = strtod(d + strlen("lcore(s) ran "), NULL);
	printf("%s: exit %d after %.2f s (datapath %.2f s)\n", opts, rc, secs,
	       ran);
	/* The datapath's own run time, not the process's: a busy host can
	 * stretch the start (EAL, pools) past any fixed bound. max_s is far
	 * below what ignoring the stall would take (--count 1M at 50k/s: 20
	 * s; --duration ignored: for ever). */
	LR_TEST_ASSERT(ran >= 0 && ran < max_s,
		       "%s: the datapath ran %.2f s before ending (at most "
		       "%.1f)",
		       opts, ran, max_s);
	LR_TEST_ASSERT(rc == 1 && final_line_is_last() && field("tx") == 1024,
		       "%s: exit %d (want 1), output:\n%s", opts, rc, out);
	LR_TEST_ASSERT(strstr(out, "port 0 (net_ring0): transmit refused "
				   "every frame for ") &&
			   strstr(out, ": the port stopped taking frames\n"),
		       "%s: the stall is not said:\n%s", opts, out);
	return 0;
}

/* A port that stops taking frames (net_ring0 alone) must not keep the
 * generator from ending: --duration ends on time, paced or not, a --count
 * it cannot reach ends a second (PG_STALL_MS) after the port stopped;
 * the run fails (exit 1) naming the port, since when and for how long it
 * refused; the JSON says so and its counts stay positive. Before: a paced
 * run ignored --duration for ever, its instance count was -1026. */
static int
test_refusing_port(void)
{
	char jfile[PATH_MAX + 64];
	json_error_t e;
	json_t *doc, *inst, *st;
	double refused;
	int rc;

	if (stall_run("--tx-only --duration 0.3", 10) != 0 ||
	    stall_run("--rate-pps 50k --count 1M", 10) != 0)
		return -1;
	snprintf(jfile, sizeof(jfile), "%s/stall.json", tmpdir);
	rc = run_split(jfile,
		       EAL " -l 0 --vdev net_ring0 -- --drain-ms 0 --json "
			   "--rate-pps 50k --duration 0.6");
	LR_TEST_ASSERT(rc == 1 && strstr(out, "the port stopped taking frames"),
		       "exit %d:\n%s", rc, out);
	doc = json_load_file(jfile, 0, &e);
	LR_TEST_ASSERT(doc != NULL, "%s: line %d: %s", jfile, e.line, e.text);
	inst = jpath(doc, "config.streams.0.instances");
	st = jpath(doc, "results.stalls.0");
	refused = jnum(st, "refused_s");
	LR_TEST_ASSERT(jint(json_array_get(inst, 0), "count") == 0 &&
			   jint(doc, "results.tx") == 1024 &&
			   jint(st, "port") == 0 && refused > 0.5 &&
			   refused < 0.7 && jnum(st, "since_s") < 0.1 &&
			   json_is_true(jpath(doc, "results.rate_missed")),
		       "JSON: count %lld, tx %lld, stall port %lld for %.3f s",
		       jint(json_array_get(inst, 0), "count"),
		       jint(doc, "results.tx"), jint(st, "port"), refused);
	json_decref(doc);
	return 0;
}

/* ---- the control socket ---- */

/* The control socket changes the rate of a running test: 20000 frames at
 * 1 kpps would take 20 s; raised to 100 kpps they are out long before
 * (15 s allowed). Stats and a wrong unit answered; "quit" ends a run. */
static int
test_ctl(void)
{
	char sock[PATH_MAX + 64], ans[4096];
	struct lr_test_child c;
	int rc;

	if (start_ctl(&c, sock, sizeof(sock), "ctl", "--vdev net_null0",
		      "--tx-only --quiet --rate-pps 1000 --count 20000",
		      "control socket") != 0)
		return -1;
	rc = run_ctl(ans, sizeof(ans), "%s stats", sock);
	LR_TEST_ASSERT(rc == 0 && strstr(ans, "\"ok\":true") &&
			   strstr(ans, "\"rate\":1000"),
		       "stats: exit %d: %s", rc, ans);
	rc = run_ctl(ans, sizeof(ans), "%s rate mbps 5", sock);
	LR_TEST_ASSERT(rc == 1 && strstr(ans, "the run's rate is in pps"),
		       "rate mbps: exit %d: %s", rc, ans);
	rc = run_ctl(ans, sizeof(ans), "%s rate pps 100000", sock);
	LR_TEST_ASSERT(rc == 0 && strstr(ans, "\"ok\":true"),
		       "rate pps: exit %d: %s", rc, ans);
	rc = lr_test_child_finish(&c, 15);
	LR_TEST_ASSERT(rc == 0 && final_line_is_last(),
		       "after the rate change: exit %d (-3: still at 1 kpps):"
		       "\n%s",
		       rc, out);
	LR_TEST_ASSERT(field("tx") == 20000 &&
			   strstr(out, "control: rate 100000 frames/s (was "
				       "1000)"),
		       "%s", out);
	LR_TEST_ASSERT(access(sock, F_OK) != 0, "%s left behind", sock);

	/* "quit" ends a run without an end. */
	if (start_ctl(&c, sock, sizeof(sock), "ctl", PG_RING_VDEVS,
		      "--rate-pps 1000 --drain-ms 50 --quiet",
		      "control socket") != 0)
		return -1;
	rc = run_ctl(ans, sizeof(ans), "%s quit", sock);
	LR_TEST_ASSERT(rc == 0, "quit: exit %d: %s", rc, ans);
	rc = lr_test_child_finish(&c, READY_S);
	LR_TEST_ASSERT(rc == 0 && final_line_is_last() && field("lost") == 0,
		       "quit: exit %d:\n%s", rc, out);
	return 0;
}

/* The "stats" answer of the control socket at sock: 0 with the frames
 * sent over every port in *tx and the sending state in state, or -1. */
static int
ctl_stats(const char *sock, long long *tx, char *state, size_t n)
{
	char ans[8192];
	json_t *j, *ports;
	int rc = run_ctl(ans, sizeof(ans), "%s stats", sock);
	size_t i;
	json_t *p;

	if (rc != 0 || (j = json_loads(ans, 0, NULL)) == NULL) {
		fprintf(stderr, "stats: exit %d: %s\n", rc, ans);
		return -1;
	}
	ports = json_object_get(j, "ports");
	*tx = 0;
	json_array_foreach(ports, i, p) *tx += jint(p, "tx");
	snprintf(state, n, "%s",
		 json_string_value(json_object_get(j, "state"))
		     ? json_string_value(json_object_get(j, "state"))
		     : "?");
	json_decref(j);
	return 0;
}

/* Ask for "stats" until the state is want (or READY_S seconds pass: only
 * a hung program); 0 with the frames sent so far in *tx, or -1. */
static int
ctl_wait_state(const char *sock, const char *want, long long *tx)
{
	double end = lr_test_now() + READY_S;
	char state[32];

	while (lr_test_now() < end) {
		if (ctl_stats(sock, tx, state, sizeof(state)) != 0)
			return -1;
		if (strcmp(state, want) == 0)
			return 0;
		poll(NULL, 0, 20);
	}
	fprintf(stderr, "state '%s', never '%s'\n", state, want);
	return -1;
}

/* Ask for "stats" until more than after frames were sent; 0 with them in
 * *tx, or -1 (READY_S seconds: only a hung program). */
static int
ctl_wait_tx(const char *sock, long long after, long long *tx)
{
	double end = lr_test_now() + READY_S;
	char state[32];

	while (lr_test_now() < end) {
		if (ctl_stats(sock, tx, state, sizeof(state)) != 0)
			return -1;
		if (*tx > after)
			return 0;
		poll(NULL, 0, 20);
	}
	fprintf(stderr, "no frame sent after %lld (state %s)\n", after, state);
	return -1;
}

/* --idle: nothing is sent until "start", not even after a live line
 * (a second) has passed; "stop" stops the sending while the run goes on
 * ("stopped" once every queue stands still: the count stays), "start"
 * resumes it, "quit" ends the run. Every wait is for a state the program
 * reports, none for a time. Before "start" and "stop" existed (as
 * requests that stop the sending), this run sent at once. */
static int
test_ctl_start_stop(void)
{
	char sock[PATH_MAX + 64], ans[4096];
	struct lr_test_child c;
	long long tx, tx2;
	int rc;

	if (start_ctl(&c, sock, sizeof(sock), "ctl2", PG_RING_VDEVS,
		      "--idle --rate-pps 10k --drain-ms 50",
		      "idle: sending starts with") != 0)
		return -1;
	LR_TEST_ASSERT(ctl_wait_state(sock, "stopped", &tx) == 0 && tx == 0,
		       "idle: %lld frames sent:\n%s", tx, out);
	if (lr_test_child_wait_for(&c, "s] port 1: tx", READY_S) != 0) {
		kill(c.pid, SIGKILL);
		lr_test_child_finish(&c, READY_S);
		LR_TEST_ASSERT(0, "no live line:\n%s", out);
	}
	LR_TEST_ASSERT(ctl_stats(sock, &tx, ans, sizeof(ans)) == 0 && tx == 0,
		       "idle after a second: %lld frames sent (%s)", tx, ans);
	rc = run_ctl(ans, sizeof(ans), "%s start", sock);
	LR_TEST_ASSERT(rc == 0 && strstr(ans, "\"sending\":true"),
		       "start: exit %d: %s", rc, ans);
	LR_TEST_ASSERT(ctl_wait_tx(sock, 0, &tx) == 0, "start:\n%s", out);
	rc = run_ctl(ans, sizeof(ans), "%s stop", sock);
	LR_TEST_ASSERT(rc == 0 && strstr(ans, "\"sending\":false"),
		       "stop: exit %d: %s", rc, ans);
	LR_TEST_ASSERT(ctl_wait_state(sock, "stopped", &tx) == 0, "stop:\n%s",
		       out);
	/* Stopped: the count stays (the live lines go on). */
	poll(NULL, 0, 300);
	LR_TEST_ASSERT(ctl_stats(sock, &tx2, ans, sizeof(ans)) == 0 &&
			   tx2 == tx && strcmp(ans, "stopped") == 0,
		       "stopped at %lld frames, then %lld (%s)", tx, tx2, ans);
	rc = run_ctl(ans, sizeof(ans), "%s start", sock);
	LR_TEST_ASSERT(rc == 0, "start again: exit %d: %s", rc, ans);
	LR_TEST_ASSERT(ctl_wait_tx(sock, tx, &tx2) == 0, "start again:\n%s",
		       out);
	rc = run_ctl(ans, sizeof(ans), "%s quit", sock);
	LR_TEST_ASSERT(rc == 0, "quit: exit %d: %s", rc, ans);
	rc = lr_test_child_finish(&c, READY_S);
	LR_TEST_ASSERT(rc == 0 && final_line_is_last() && field("lost") == 0 &&
			   field("tx") >= (double)tx2,
		       "quit: exit %d:\n%s", rc, out);
	LR_TEST_ASSERT(strstr(out, "control: sending stopped") &&
			   strstr(out, "control: sending started"),
		       "%s", out);
	return 0;
}

/* "rate" with "stream" (an id or a name) sets the own rate of one stream
 * of a profile; the shared rate still goes to the streams without one.
 * 20000 frames a stream at 1 kpps would take 20 s; all three raised to
 * 100 kpps, they are out long before (15 s allowed). A stream without a
 * rate of its own, a unit it does not have and a stream that does not
 * exist are refused, naming them. */
static int
test_ctl_stream_rate(void)
{
	char sock[PATH_MAX + 64], args[2 * PATH_MAX + 256], ans[4096];
	const char *prof = write_text(
	    "ctl3.json",
	    "{\"streams\": [{\"name\": \"a\", \"rate_pps\": 1000, "
	    "\"count\": 20000}, {\"name\": \"b\", \"rate_pps\": 1000, "
	    "\"count\": 20000}, {\"name\": \"c\", \"count\": 20000}]}");
	struct lr_test_child c;
	int rc;

	LR_TEST_ASSERT(prof != NULL, "cannot write the profile");
	snprintf(args, sizeof(args), "--quiet --rate-pps 1000 --profile %s",
		 prof);
	if (start_ctl(&c, sock, sizeof(sock), "ctl3", PG_RING_VDEVS, args,
		      "control socket") != 0)
		return -1;
	rc = run_ctl(ans, sizeof(ans), "%s rate pps 100000 stream 2", sock);
	LR_TEST_ASSERT(rc == 1 && strstr(ans, "stream 2 'c' has no rate of "
					      "its own"),
		       "stream c: exit %d: %s", rc, ans);
	rc = run_ctl(ans, sizeof(ans), "%s rate mbps 5 stream a", sock);
	LR_TEST_ASSERT(rc == 1 && strstr(ans, "has its rate in pps"),
		       "mbps for a: exit %d: %s", rc, ans);
	rc = run_ctl(ans, sizeof(ans), "%s rate pps 5 stream 7", sock);
	LR_TEST_ASSERT(rc == 1 && strstr(ans, "no stream 7"),
		       "stream 7: exit %d: %s", rc, ans);
	rc = run_ctl(ans, sizeof(ans), "%s rate pps 5 stream zz", sock);
	LR_TEST_ASSERT(rc == 1 && strstr(ans, "no stream named 'zz'"),
		       "stream zz: exit %d: %s", rc, ans);
	rc = run_ctl(ans, sizeof(ans), "%s stats", sock);
	LR_TEST_ASSERT(rc == 0 &&
			   strstr(ans, "{\"id\":0,\"name\":\"a\",\"tx\":") &&
			   strstr(ans, "\"rate_pps\":1000") &&
			   strstr(ans, "{\"id\":2,\"name\":\"c\",\"tx\":"),
		       "stats: no streams: %s", ans);
	rc = run_ctl(ans, sizeof(ans), "%s rate pps 100000 stream 0", sock);
	LR_TEST_ASSERT(rc == 0, "stream 0: exit %d: %s", rc, ans);
	rc = run_ctl(ans, sizeof(ans), "%s rate pps 100000 stream b", sock);
	LR_TEST_ASSERT(rc == 0, "stream b: exit %d: %s", rc, ans);
	rc = run_ctl(ans, sizeof(ans), "%s rate pps 100000", sock);
	LR_TEST_ASSERT(rc == 0, "shared: exit %d: %s", rc, ans);
	rc = lr_test_child_finish(&c, 15);
	LR_TEST_ASSERT(rc == 0 && final_line_is_last(),
		       "after the rate changes: exit %d (-3: a stream still "
		       "at 1 kpps):\n%s",
		       rc, out);
	LR_TEST_ASSERT(field("tx") == 60000 &&
			   strstr(out, "control: rate 100000 frames/s (was "
				       "1000) for stream 0 'a'") &&
			   strstr(out, "control: rate 100000 frames/s (was "
				       "1000) for stream 1 'b'") &&
			   strstr(out, "stream 2 'c': tx 20000 frames"),
		       "%s", out);
	return 0;
}

CASE(bad_options)
CASE(sigint)
CASE(refusing_port)
CASE(stop_during_drain)
CASE(stop_signals)
CASE(header_kinds)
CASE(profile_fields)
CASE(profile_rates)
CASE(profile_bursts)
CASE(profile_errors)
CASE(ctl)
CASE(ctl_start_stop)
CASE(ctl_stream_rate)

static const struct lr_test_case cases[] = {
    {"bad_options", case_bad_options},
    {"sigint", case_sigint},
    {"refusing_port", case_refusing_port},
    {"stop_during_drain", case_stop_during_drain},
    {"stop_signals", case_stop_signals},
    {"header_kinds", case_header_kinds},
    {"profile_fields", case_profile_fields},
    {"profile_rates", case_profile_rates},
    {"profile_bursts", case_profile_bursts},
    {"profile_errors", case_profile_errors},
    {"ctl", case_ctl},
    {"ctl_start_stop", case_ctl_start_stop},
    {"ctl_stream_rate", case_ctl_stream_rate},
};

LR_TEST_MAIN("pktgen_config", cases)
