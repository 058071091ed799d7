/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * options.c - lr-pktgen's command line (after the EAL's `--`). Every bad
 * value is reported with the option and the text given, and parsing stops.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pktgen.h"

#define PROG "lr-pktgen"

/* The usage text is laid out as printed. */
/* clang-format off */
void
pg_usage(FILE *f, const char *prog)
{
	fprintf(f,
"usage: %s [EAL options] -- [options]\n"
"Generate Ethernet traffic (VLAN/QinQ, IPv4/IPv6, UDP/TCP/ICMP) on linerate\n"
"ports and measure what comes back (loss, reordering, duplicates, latency,\n"
"jitter), per stream.\n"
"\n"
"Ports (ports come from --vdev EAL options):\n"
"  --ports LIST          port ids to use, e.g. 0,1 or 0-3 (default: all)\n"
"  -p, --portmask MASK   the same as a hex mask, e.g. 0x3\n"
"  --tx-ports LIST       ports that transmit (default: all used ports)\n"
"  --rx-ports LIST       ports that receive (default: all used ports)\n"
"  --tx-only, --rx-only  transmit only / receive only\n"
"Frames (sizes include the 4-byte FCS; --size 64 puts 60 bytes in an mbuf):\n"
"  --size N | N-M        frame size, fixed or a range (default 64)\n"
"  --size-step S         step through a size range by S (default 1)\n"
"  --imix                sizes 64/570/1518 in the ratio 7:4:1\n"
"  --src-mac M[-M]       source MAC (default: the port's address)\n"
"  --dst-mac M[-M]       destination MAC (default 02:00:00:00:00:02)\n"
"  --src-ip A[-A]        source IP address (default 10.0.0.1)\n"
"  --dst-ip A[-A]        destination IP address (default 10.0.0.2)\n"
"  --src-port N[-N]      UDP/TCP source port (default 1234)\n"
"  --dst-port N[-N]      UDP/TCP destination port (default 5678)\n"
"  --random              random values within ranges (default: increment)\n"
"  --seed N              seed of --random (default 1)\n"
"  --udp-cksum           correct UDP checksums (default 0 = none; IPv6,\n"
"                        TCP and ICMP always have theirs)\n"
"  --no-stamp            frames without the stamp, no per-stream statistics\n"
"                        (nothing counts as received of ours: no loss, no\n"
"                        latency); bench/run pktgen gives their cost\n"
"  --proto udp|tcp|icmp  transport header (default udp; icmp: echo\n"
"                        requests, --src-port sets their id)\n"
"  --vlan ID             an 802.1Q tag; twice for QinQ (outer first,\n"
"                        TPID 0x88a8)\n"
"  --ipv6                IPv6 (default addresses fd00::1 -> fd00::2;\n"
"                        --src-ip/--dst-ip take IPv6 addresses, ranges\n"
"                        over the low 64 bits)\n"
"  Ranged fields vary independently: all their combinations are sent\n"
"  (the source MAC varies fastest, then destination MAC, source IP,\n"
"  destination IP, source port, destination port).\n"
"Streams:\n"
"  --profile FILE.json   the streams of a JSON profile (several streams,\n"
"                        each with its headers, field engine, sizes, rate\n"
"                        or rate share, burst pattern; see README.md);\n"
"                        the frame options above do not apply then\n"
"  --pcap FILE           replay the frames of FILE, looped, at --rate-* or\n"
"                        as fast as possible\n"
"  --replay FILE         the same at the capture's own timing (each queue\n"
"                        replays it; a loop lasts the capture and one\n"
"                        mean gap more)\n"
"  --speed X             --replay X times faster (default 1; 0.5: half)\n"
"L3 mode (stand in front of a kernel stack or a router):\n"
"  --ip PORT:ADDR/LEN    the port's own address, IPv4 and/or IPv6 (once\n"
"                        each a port), e.g. 0:10.0.0.1/24, 0:fd00::1/64;\n"
"                        the port answers ARP requests, neighbour\n"
"                        solicitations and echo requests (ping) for it\n"
"                        while it receives, and its streams' destination\n"
"                        MAC is resolved by ARP/NDP before sending: the\n"
"                        destination itself when it is one address on the\n"
"                        port's subnet, else the gateway; their source\n"
"                        address defaults to the port's (a stream's own\n"
"                        dst-mac or src-ip stay; untagged streams only)\n"
"  --gateway PORT:ADDR   the port's next hop of that family (on its subnet,\n"
"                        or an IPv6 link-local address)\n"
"  --resolve-tries N     requests sent before giving up (default 5): no\n"
"                        answer is an error naming the port and address\n"
"  --resolve-interval S  seconds between them (default 1)\n"
"Rate (default: as fast as possible; wire size = frame + 20):\n"
"  --rate-pps N          frames per second over all streams (k, M suffixes);\n"
"                        a profile's streams without a rate of their own\n"
"                        share it by their \"share\" (default 1 each)\n"
"  --rate-mbps N         Mbit/s on the wire over all streams\n"
"  --rate-pct P          percent of --line-rate-gbps per transmitting port\n"
"  --line-rate-gbps G    line rate for --rate-pct (default 10); given, the\n"
"                        line rate of every port for --rfc2544 (else a\n"
"                        port's link speed)\n"
"  --burst N             frames per tx/rx burst (default 32, max %d)\n"
"  --bucket-ms MS        rate credit kept after a stall (default 100): a\n"
"                        longer stall is reported as 'rate missed' with\n"
"                        the frames behind the schedule\n"
"Limits:\n"
"  --count N             frames to send in total (k, M, G suffixes)\n"
"  --duration S          seconds to send\n"
"  --drain-ms N          receive for N ms after sending ends (default 200)\n"
"  --drain-all           end that as soon as every frame of ours sent came\n"
"                        back (with a long --drain-ms: a loop test that\n"
"                        never depends on speed)\n"
"  --link-wait S         before sending, wait up to S seconds for the link\n"
"                        of every used port to be up, else fail (default\n"
"                        10; 0: send at once)\n"
"RFC 2544 tests (doc/pktgen.md; each trial sends at a rate for a time,\n"
"drains, and counts only when the generator sent what it was asked):\n"
"  --rfc2544 throughput  search the non-drop rate (NDR: nothing lost) and the\n"
"                        partial-drop rate (PDR) per frame size, then print\n"
"                        a table (--json: one document with every trial)\n"
"  --rfc2544 latency     the same search, then final trials at loads of\n"
"                        each size's NDR: latency percentiles per stream\n"
"  --rfc2544 frame-loss  final trials from the max rate down by --loss-step\n"
"                        until two in a row lose nothing: loss per load\n"
"  --rfc2544 back-to-back  the longest burst at the max rate that loses\n"
"                        nothing, searched from --trial-s of frames down\n"
"  --latency-loads LIST  percent of the NDR (default 10,50,90,100)\n"
"  --loss-step PCT       frame-loss: the step down (default 10)\n"
"  --tx-full drop|wait   a frame a port refuses (its ring full): dropped and\n"
"                        counted lost, or sent again (the generator falls\n"
"                        behind); default: drop on memif (its ring is the\n"
"                        device's input), wait elsewhere\n"
"  --rfc2544-sizes LIST  frame sizes with FCS, and imix (default\n"
"                        64,128,256,512,1024,1280,1518,imix)\n"
"  --pdr-loss PCT        loss the PDR allows (default 0.5)\n"
"  --trial-s S           short trials of the search (default 1)\n"
"  --final-trial-s S     the trial that confirms a rate (default 10)\n"
"  --repeat N            search each size N times; the lowest is reported\n"
"  --min-rate R, --max-rate R  bounds: frames/s (100k), percent of the\n"
"                        line rate (50%%) or wire bits/s (120Mbps); default\n"
"                        max: the line rate of the sending ports (lowered\n"
"                        where the generator cannot keep up), min: max/1000\n"
"                        and 10 frames a short trial at least\n"
"  --precision PCT       stop when the bounds are PCT%% of the max apart\n"
"                        (default 0.5)\n"
"Output:\n"
"  --quiet               no per-second lines\n"
"  --no-screen           per-second lines on a terminal too (default there:\n"
"                        a screen refreshed in place, a block of lines per\n"
"                        port and a line per stream; elsewhere lines)\n"
"  --stats-period S      every S seconds (0.01..3600), also with --quiet, one\n"
"                        line per port of the port's cumulative counters:\n"
"                        'stats t=SECONDS port=P ipackets=N opackets=N ...'\n"
"                        (t: CLOCK_MONOTONIC_RAW), after a first line\n"
"                        'stats period_s=S tsc_hz=HZ'\n"
"  --json [FILE]         the configuration and the results as one JSON\n"
"                        document on stdout (every other line on stderr),\n"
"                        or into FILE (the summary stays on stdout)\n"
"  --stats-json FILE     one JSON line a second to FILE: every port's\n"
"                        counters so far and rates since the last line\n"
"  --ctl PATH            a control socket at PATH: JSON requests a line,\n"
"                        {\"cmd\": \"stats\"|\"start\"|\"stop\"|\"quit\"} or\n"
"                        {\"cmd\": \"rate\", \"pps\"|\"mbps\"|\"pct\": N} (the\n"
"                        unit of --rate-*; with \"stream\": ID or NAME, that\n"
"                        stream's own rate); \"stop\" stops the sending,\n"
"                        \"start\" resumes it, \"quit\" ends the run; the\n"
"                        client: lr-pktgen-ctl PATH stats|start|stop|quit|\n"
"                        rate U N [stream S]; the socket is made 0600\n"
"                        whatever the umask and serves root and the run's\n"
"                        user (checked on connect)\n"
"  --ctl-group GROUP     the socket 0660 with group GROUP (a name or a\n"
"                        gid): its members may use it too\n"
"  --ctl-timeout S       a client that sends no complete request for S\n"
"                        seconds is answered a timeout error and closed\n"
"                        (default 5); at most 64 clients at once, one more\n"
"                        is answered a busy error and closed\n"
"  --idle                send nothing until a \"start\" request (needs\n"
"                        --ctl); --duration counts the sending time only\n"
"  --capture FILE        write every received frame to a pcap file\n"
"  --capture-mode MODE   permission bits of that file (octal, default 0600)\n"
"  --xstats              print every port's counters and non-zero extended\n"
"                        stats at the end\n"
"  --record-core-cycles  count the TSC cycles of the datapath's loop passes\n"
"                        that sent or received frames; print them a frame\n"
"                        at the end (as testpmd's option: one more TSC\n"
"                        read a pass)\n"
"Resources:\n"
"  --rxd N, --txd N      descriptors per queue (default 1024)\n"
"  --mbufs MIN-MAX       elastic mbuf pool: MIN mbufs at start, growing up\n"
"                        to MAX, giving idle blocks back (default: a quarter\n"
"                        to twice the size the queues need); --mbufs N: a\n"
"                        fixed pool of N\n"
"  --mbufs-idle MS       an elastic pool gives back blocks idle for MS ms\n"
"                        (default 1000; 0: only under memory pressure)\n"
"  --queues N            queues per port, spread over the lcores (default:\n"
"                        as many as lcores that land on the port)\n"
"The last line is always 'pktgen total: tx=N rx=N ...' (but with --rfc2544):\n"
"rx counts the frames of this run that came back (each stamped with a random\n"
"run id, stream, sequence number, time and check value), rx_other every\n"
"other frame.\n",
		prog, PG_MAX_BURST);
}
/* clang-format on */

/* --mbufs N (a fixed pool) or MIN-MAX (elastic), each 64..2^24 with
 * MIN <= MAX: 0, or -1 after a message naming the text. */
static int
parse_mbufs(struct pg_opts *o, const char *s)
{
	unsigned long lo, hi;
	char *end;

	errno = 0;
	lo = strtoul(s, &end, 10);
	hi = lo;
	if (end != s && *end == '-' && end[1] >= '0' && end[1] <= '9')
		hi = strtoul(end + 1, &end, 10);
	if (*s < '0' || *s > '9' || *end != '\0' || errno != 0 || lo > hi ||
	    hi < 64 || hi > (1u << 24))
		return pg_fail(
		    "--mbufs '%s': expected N or MIN-MAX with MIN <= "
		    "MAX, MAX in 64..%u",
		    s, 1u << 24);
	o->nb_mbufs = (unsigned)lo;
	o->mbufs_max = (unsigned)hi;
	return 0;
}

/* Unsigned integer with an optional k/M/G suffix (powers of 1000). */
static int
parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max,
	  uint64_t *v)
{
	char *end;
	unsigned long long x;
	uint64_t mul = 1;

	if (*s == '\0' || *s == '-' || *s == ' ')
		return pg_fail("%s '%s': expected a number", opt, s);
	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno || end == s)
		return pg_fail("%s '%s': expected a number", opt, s);
	if (*end == 'k' || *end == 'K')
		mul = 1000, end++;
	else if (*end == 'M')
		mul = 1000000, end++;
	else if (*end == 'G')
		mul = 1000000000, end++;
	if (*end != '\0')
		return pg_fail("%s '%s': expected a number", opt, s);
	if (x > max / mul || x * mul < min || x * mul > max)
		return pg_fail("%s '%s': out of range %llu..%llu", opt, s,
			       (unsigned long long)min,
			       (unsigned long long)max);
	*v = x * mul;
	return 0;
}

/* Positive real number with an optional k/M/G suffix. */
static int
parse_double(const char *opt, const char *s, double min, double max, double *v)
{
	char *end;
	double x, mul = 1;

	errno = 0;
	x = strtod(s, &end);
	if (errno || end == s || !isfinite(x))
		return pg_fail("%s '%s': expected a number", opt, s);
	if (*end == 'k' || *end == 'K')
		mul = 1e3, end++;
	else if (*end == 'M')
		mul = 1e6, end++;
	else if (*end == 'G')
		mul = 1e9, end++;
	if (*end != '\0')
		return pg_fail("%s '%s': expected a number", opt, s);
	x *= mul;
	if (!(x >= min && x <= max))
		return pg_fail("%s '%s': out of range %g..%g", opt, s, min,
			       max);
	*v = x;
	return 0;
}

/* "0,2,4-6" into a mask of port ids below LR_MAX_ETHPORTS. */
static int
parse_port_list(const char *opt, const char *s, uint32_t *mask)
{
	const char *p = s;
	uint32_t m = 0;

	if (*p == '\0')
		return pg_fail("%s: empty port list", opt);
	while (*p) {
		char *end;
		unsigned long a, b;

		if (*p < '0' || *p > '9')
			return pg_fail(
			    "%s '%s': expected port ids like 0,1 or 0-3", opt,
			    s);
		a = strtoul(p, &end, 10);
		b = a;
		if (*end == '-') {
			p = end + 1;
			if (*p < '0' || *p > '9')
				return pg_fail(
				    "%s '%s': expected port ids like "
				    "0,1 or 0-3",
				    opt, s);
			b = strtoul(p, &end, 10);
		}
		if (a > b || b >= LR_MAX_ETHPORTS)
			return pg_fail(
			    "%s '%s': port ids are 0..%d, low to high", opt, s,
			    LR_MAX_ETHPORTS - 1);
		for (unsigned long i = a; i <= b; i++)
			m |= 1u << i;
		if (*end == ',')
			end++;
		else if (*end != '\0')
			return pg_fail(
			    "%s '%s': expected port ids like 0,1 or 0-3", opt,
			    s);
		p = end;
	}
	*mask = m;
	return 0;
}

int
pg_parse_mac(const char *s, uint64_t *v)
{
	unsigned b[6];
	char tail;

	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3],
		   &b[4], &b[5], &tail) != 6)
		return -1;
	*v = 0;
	for (int i = 0; i < 6; i++)
		*v = *v << 8 | b[i];
	return 0;
}

static int
parse_ip(const char *s, uint64_t *v)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1)
		return -1;
	*v = ntohl(a.s_addr);
	return 0;
}

/* "X" or "X-Y" for a field; kind selects the element parser. */
static int
parse_field_range(const char *opt, const char *s, enum pg_field f,
		  struct pg_range *r)
{
	char lo[64], *dash;
	const char *hi;
	uint64_t a, b;

	if (strlen(s) >= sizeof(lo))
		return pg_fail("%s '%s': too long", opt, s);
	strcpy(lo, s);
	dash = strchr(lo, '-');
	hi = NULL;
	if (dash) {
		*dash = '\0';
		hi = dash + 1;
	}
	switch (f) {
	case PG_F_SRC_MAC:
	case PG_F_DST_MAC:
		if (pg_parse_mac(lo, &a) || (hi && pg_parse_mac(hi, &b)))
			return pg_fail("%s '%s': expected a MAC like "
				       "02:00:00:00:00:01 or a range MAC-MAC",
				       opt, s);
		break;
	case PG_F_SRC_IP:
	case PG_F_DST_IP:
		if (parse_ip(lo, &a) || (hi && parse_ip(hi, &b)))
			return pg_fail("%s '%s': expected an IPv4 address like "
				       "10.0.0.1 or a range A-B",
				       opt, s);
		break;
	case PG_F_SRC_PORT:
	case PG_F_DST_PORT:
		if (parse_u64(opt, lo, 0, 65535, &a) ||
		    (hi && parse_u64(opt, hi, 0, 65535, &b)))
			return -1;
		break;
	case PG_F_SIZE:
		if (parse_u64(opt, lo, 0, UINT32_MAX, &a) ||
		    (hi && parse_u64(opt, hi, 0, UINT32_MAX, &b)))
			return -1;
		if (a < PG_MIN_SIZE || (hi && b < PG_MIN_SIZE))
			return pg_fail(
			    "%s '%s': below %d, the smallest Ethernet "
			    "frame (FCS included)",
			    opt, s, PG_MIN_SIZE);
		if (a > PG_MAX_SIZE || (hi && b > PG_MAX_SIZE))
			return pg_fail("%s '%s': above %d, the largest frame "
				       "supported",
				       opt, s, PG_MAX_SIZE);
		break;
	default:
		return -1;
	}
	if (!hi)
		b = a;
	if (a > b)
		return pg_fail("%s '%s': range goes from high to low", opt, s);
	r->lo = a;
	r->hi = b;
	r->step = 1;
	r->set = true;
	return 0;
}

/* --ctl-group: a group name, else a gid (digits), as chown(1) takes them:
 * 0, or -1 after a message naming the text. */
static int
parse_group(struct pg_opts *o, const char *s)
{
	struct group gr, *g = NULL;
	size_t len = 1024;
	char *buf = NULL, *end;
	unsigned long v;
	int err;

	do { /* a group of many members needs a larger buffer: ERANGE */
		free(buf);
		len *= 4;
		buf = malloc(len);
		err = buf ? getgrnam_r(s, &gr, buf, len, &g) : ENOMEM;
	} while (err == ERANGE && len < (1u << 24));
	if (g != NULL)
		o->ctl_gid = g->gr_gid;
	free(buf);
	if (g != NULL) {
		o->ctl_group = s;
		return 0;
	}
	errno = 0;
	v = strtoul(s, &end, 10);
	if (*s >= '0' && *s <= '9' && *end == '\0' && errno == 0 &&
	    v < (gid_t)-1) {
		o->ctl_gid = (gid_t)v;
		o->ctl_group = s;
		return 0;
	}
	if (err != 0)
		return pg_fail("--ctl-group '%s': cannot look it up: %s", s,
			       strerror(err));
	return pg_fail("--ctl-group '%s': no such group (a group name or a "
		       "gid)",
		       s);
}

enum {
	O_PORTS = 256,
	O_TX_PORTS,
	O_RX_PORTS,
	O_TX_ONLY,
	O_RX_ONLY,
	O_SIZE,
	O_SIZE_STEP,
	O_IMIX,
	O_SRC_MAC,
	O_DST_MAC,
	O_SRC_IP,
	O_DST_IP,
	O_SRC_PORT,
	O_DST_PORT,
	O_RANDOM,
	O_SEED,
	O_UDP_CKSUM,
	O_PCAP,
	O_RATE_PPS,
	O_RATE_MBPS,
	O_RATE_PCT,
	O_LINE_RATE,
	O_BURST,
	O_COUNT,
	O_DURATION,
	O_DRAIN,
	O_QUIET,
	O_STATS_PERIOD,
	O_XSTATS,
	O_RECORD_CYCLES,
	O_JSON,
	O_CAPTURE,
	O_CAPTURE_MODE,
	O_RXD,
	O_TXD,
	O_MBUFS,
	O_MBUFS_IDLE,
	O_QUEUES,
	O_DRAIN_ALL,
	O_LINK_WAIT,
	O_BUCKET,
	O_STATS_JSON,
	O_PROTO,
	O_VLAN,
	O_IPV6,
	O_PROFILE,
	O_REPLAY,
	O_SPEED,
	O_CTL,
	O_CTL_GROUP,
	O_CTL_TIMEOUT,
	O_IDLE,
	O_NO_STAMP,
	O_NO_SCREEN,
	O_IP,
	O_GATEWAY,
	O_RESOLVE_TRIES,
	O_RESOLVE_INTERVAL,
	O_RFC2544,
	O_RFC_SIZES,
	O_PDR_LOSS,
	O_TRIAL_S,
	O_FINAL_S,
	O_REPEAT,
	O_MIN_RATE,
	O_MAX_RATE,
	O_PRECISION,
	O_LAT_LOADS,
	O_LOSS_STEP,
	O_TX_FULL,
};

static const struct option longopts[] = {
    {"ports", required_argument, NULL, O_PORTS},
    {"portmask", required_argument, NULL, 'p'},
    {"tx-ports", required_argument, NULL, O_TX_PORTS},
    {"rx-ports", required_argument, NULL, O_RX_PORTS},
    {"tx-only", no_argument, NULL, O_TX_ONLY},
    {"rx-only", no_argument, NULL, O_RX_ONLY},
    {"size", required_argument, NULL, O_SIZE},
    {"size-step", required_argument, NULL, O_SIZE_STEP},
    {"imix", no_argument, NULL, O_IMIX},
    {"src-mac", required_argument, NULL, O_SRC_MAC},
    {"dst-mac", required_argument, NULL, O_DST_MAC},
    {"src-ip", required_argument, NULL, O_SRC_IP},
    {"dst-ip", required_argument, NULL, O_DST_IP},
    {"src-port", required_argument, NULL, O_SRC_PORT},
    {"dst-port", required_argument, NULL, O_DST_PORT},
    {"random", no_argument, NULL, O_RANDOM},
    {"seed", required_argument, NULL, O_SEED},
    {"udp-cksum", no_argument, NULL, O_UDP_CKSUM},
    {"pcap", required_argument, NULL, O_PCAP},
    {"rate-pps", required_argument, NULL, O_RATE_PPS},
    {"rate-mbps", required_argument, NULL, O_RATE_MBPS},
    {"rate-pct", required_argument, NULL, O_RATE_PCT},
    {"line-rate-gbps", required_argument, NULL, O_LINE_RATE},
    {"burst", required_argument, NULL, O_BURST},
    {"bucket-ms", required_argument, NULL, O_BUCKET},
    {"count", required_argument, NULL, O_COUNT},
    {"duration", required_argument, NULL, O_DURATION},
    {"drain-ms", required_argument, NULL, O_DRAIN},
    {"quiet", no_argument, NULL, O_QUIET},
    {"stats-period", required_argument, NULL, O_STATS_PERIOD},
    {"xstats", no_argument, NULL, O_XSTATS},
    {"record-core-cycles", no_argument, NULL, O_RECORD_CYCLES},
    {"json", no_argument, NULL, O_JSON},
    {"stats-json", required_argument, NULL, O_STATS_JSON},
    {"proto", required_argument, NULL, O_PROTO},
    {"vlan", required_argument, NULL, O_VLAN},
    {"ipv6", no_argument, NULL, O_IPV6},
    {"profile", required_argument, NULL, O_PROFILE},
    {"replay", required_argument, NULL, O_REPLAY},
    {"speed", required_argument, NULL, O_SPEED},
    {"ctl", required_argument, NULL, O_CTL},
    {"ctl-group", required_argument, NULL, O_CTL_GROUP},
    {"ctl-timeout", required_argument, NULL, O_CTL_TIMEOUT},
    {"idle", no_argument, NULL, O_IDLE},
    {"no-stamp", no_argument, NULL, O_NO_STAMP},
    {"no-screen", no_argument, NULL, O_NO_SCREEN},
    {"ip", required_argument, NULL, O_IP},
    {"gateway", required_argument, NULL, O_GATEWAY},
    {"resolve-tries", required_argument, NULL, O_RESOLVE_TRIES},
    {"resolve-interval", required_argument, NULL, O_RESOLVE_INTERVAL},
    {"capture", required_argument, NULL, O_CAPTURE},
    {"capture-mode", required_argument, NULL, O_CAPTURE_MODE},
    {"rxd", required_argument, NULL, O_RXD},
    {"txd", required_argument, NULL, O_TXD},
    {"mbufs", required_argument, NULL, O_MBUFS},
    {"mbufs-idle", required_argument, NULL, O_MBUFS_IDLE},
    {"queues", required_argument, NULL, O_QUEUES},
    {"drain-all", no_argument, NULL, O_DRAIN_ALL},
    {"link-wait", required_argument, NULL, O_LINK_WAIT},
    {"rfc2544", required_argument, NULL, O_RFC2544},
    {"rfc2544-sizes", required_argument, NULL, O_RFC_SIZES},
    {"pdr-loss", required_argument, NULL, O_PDR_LOSS},
    {"trial-s", required_argument, NULL, O_TRIAL_S},
    {"final-trial-s", required_argument, NULL, O_FINAL_S},
    {"repeat", required_argument, NULL, O_REPEAT},
    {"min-rate", required_argument, NULL, O_MIN_RATE},
    {"max-rate", required_argument, NULL, O_MAX_RATE},
    {"precision", required_argument, NULL, O_PRECISION},
    {"latency-loads", required_argument, NULL, O_LAT_LOADS},
    {"loss-step", required_argument, NULL, O_LOSS_STEP},
    {"tx-full", required_argument, NULL, O_TX_FULL},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static const char *const field_opt[PG_F_COUNT] = {
    [PG_F_SIZE] = "--size",	    [PG_F_SRC_MAC] = "--src-mac",
    [PG_F_DST_MAC] = "--dst-mac",   [PG_F_SRC_IP] = "--src-ip",
    [PG_F_DST_IP] = "--dst-ip",	    [PG_F_SRC_PORT] = "--src-port",
    [PG_F_DST_PORT] = "--dst-port",
};

static void
set_defaults(struct pg_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->size_mode = PG_SIZE_FIXED;
	for (int i = 0; i < PG_F_COUNT; i++)
		o->f[i].step = 1;
	o->f[PG_F_SIZE].lo = o->f[PG_F_SIZE].hi = 64;
	o->f[PG_F_DST_MAC].lo = o->f[PG_F_DST_MAC].hi = 0x020000000002ULL;
	o->f[PG_F_SRC_IP].lo = o->f[PG_F_SRC_IP].hi = 0x0a000001;
	o->f[PG_F_DST_IP].lo = o->f[PG_F_DST_IP].hi = 0x0a000002;
	o->f[PG_F_SRC_PORT].lo = o->f[PG_F_SRC_PORT].hi = 1234;
	o->f[PG_F_DST_PORT].lo = o->f[PG_F_DST_PORT].hi = 5678;
	o->line_rate_gbps = 10;
	o->burst = 32;
	o->drain_ms = 200;
	o->link_wait = 10;
	o->capture_mode = 0600;
	o->bucket_ms = 100;
	o->nb_rxd = 1024;
	o->nb_txd = 1024;
	o->idle_ms = 1000;
	o->seed = 1;
	o->speed = 1;
	o->resolve_tries = 5;
	o->resolve_interval = 1;
	o->ctl_timeout = 5;
	o->rfc_nsizes = 8;
	memcpy(o->rfc_sizes,
	       (const uint16_t[]){64, 128, 256, 512, 1024, 1280, 1518, 0},
	       8 * sizeof(o->rfc_sizes[0]));
	o->pdr_loss = 0.5;
	o->trial_s = 1;
	o->final_s = 10;
	o->repeat = 1;
	o->rfc_nloads = 4;
	o->rfc_loads[0] = 10;
	o->rfc_loads[1] = 50;
	o->rfc_loads[2] = 90;
	o->rfc_loads[3] = 100;
	o->loss_step = 10;
	o->tx_full = -1;
	o->precision = 0.5;
	o->min_rate.unit = o->max_rate.unit = PG_RATE_MAX;
}

/* --rfc2544-sizes "64,128,imix": frame sizes with FCS (IMIX as 0); 0 or
 * -1 after a message naming the text. */
static int
parse_sizes(struct pg_opts *o, const char *s)
{
	const char *p = s;

	o->rfc_nsizes = 0;
	while (*p) {
		char *end;
		unsigned long v;

		if (o->rfc_nsizes == PG_RFC_MAX_SIZES)
			return pg_fail("--rfc2544-sizes '%s': at most %d sizes",
				       s, PG_RFC_MAX_SIZES);
		if (strncasecmp(p, "imix", 4) == 0) {
			v = 0;
			end = (char *)p + 4;
		} else {
			errno = 0;
			v = strtoul(p, &end, 10);
			if (*p < '0' || *p > '9' || errno || v < PG_MIN_SIZE ||
			    v > PG_MAX_SIZE)
				return pg_fail("--rfc2544-sizes '%s': expected "
					       "frame sizes %d..%d (FCS "
					       "included) or imix, e.g. "
					       "64,1518,imix",
					       s, PG_MIN_SIZE, PG_MAX_SIZE);
		}
		if (*end != ',' && *end != '\0')
			return pg_fail("--rfc2544-sizes '%s': expected sizes "
				       "separated by commas, e.g. 64,1518,imix",
				       s);
		o->rfc_sizes[o->rfc_nsizes++] = (uint16_t)v;
		p = *end == ',' ? end + 1 : end;
	}
	if (o->rfc_nsizes == 0)
		return pg_fail("--rfc2544-sizes: no size given");
	return 0;
}

/* --min-rate, --max-rate: N frames/s (k, M, G; "pps" may follow), N%% of
 * the line rate, or Nbps on the wire (k, M, G before it): 0 or -1. */
static int
parse_rate_bound(const char *opt, const char *s, struct pg_rate_bound *b)
{
	char *end;
	double x, mul = 1;

	errno = 0;
	x = strtod(s, &end);
	if (errno == 0 && end != s && isfinite(x) && x > 0) {
		if (*end == 'k' || *end == 'K')
			mul = 1e3, end++;
		else if (*end == 'm' || *end == 'M')
			mul = 1e6, end++;
		else if (*end == 'g' || *end == 'G')
			mul = 1e9, end++;
		b->v = x * mul;
		b->unit = PG_RATE_PPS;
		if (strcmp(end, "%") == 0 && mul == 1 && x <= 100) {
			b->unit = PG_RATE_PCT;
			return 0;
		}
		if (strcasecmp(end, "bps") == 0) {
			b->v /= 1e6;
			b->unit = PG_RATE_MBPS;
			return 0;
		}
		if (*end == '\0' || strcasecmp(end, "pps") == 0)
			return 0;
	}
	return pg_fail("%s '%s': expected a rate above 0: frames/s (100k, "
		       "100kpps), percent of the line rate (50%%, at most "
		       "100) or bits/s on the wire (120Mbps, 1Gbps)",
		       opt, s);
}

/* Whether the options of one mode were given (check_rfc()). */
static bool lat_loads_given, loss_step_given;

/* --rfc2544 MODE; 0 or -1 after naming the modes. */
static int
parse_mode(struct pg_opts *o, const char *arg)
{
	static const char *const name[] = {
	    [PG_RFC_THROUGHPUT] = "throughput",
	    [PG_RFC_LATENCY] = "latency",
	    [PG_RFC_FRAME_LOSS] = "frame-loss",
	    [PG_RFC_BACK_TO_BACK] = "back-to-back",
	};

	for (unsigned m = 0; m < LR_DIM(name); m++)
		if (strcmp(arg, name[m]) == 0) {
			o->rfc2544 = true;
			o->rfc_mode = (uint8_t)m;
			return 0;
		}
	return pg_fail("--rfc2544 '%s': expected throughput, latency, "
		       "frame-loss or back-to-back",
		       arg);
}

/* --latency-loads "10,50,90,100": percent of the NDR, each above 0 and at
 * most 100; 0 or -1 after a message naming the text. */
static int
parse_loads(struct pg_opts *o, const char *s)
{
	const char *p = s;

	o->rfc_nloads = 0;
	while (*p) {
		char *end;
		double v;

		errno = 0;
		v = strtod(p, &end);
		if (end == p || errno || !(v > 0 && v <= 100) ||
		    (*end != ',' && *end != '\0'))
			return pg_fail("--latency-loads '%s': expected percent "
				       "of the NDR above 0 and at most 100, "
				       "separated by commas, e.g. 10,50,90,100",
				       s);
		if (o->rfc_nloads == PG_RFC_MAX_LOADS)
			return pg_fail("--latency-loads '%s': at most %d loads",
				       s, PG_RFC_MAX_LOADS);
		o->rfc_loads[o->rfc_nloads++] = v;
		p = *end == ',' ? end + 1 : end;
	}
	if (o->rfc_nloads == 0)
		return pg_fail("--latency-loads: no load given");
	return 0;
}

/* An option of the RFC 2544 search; 0 or -1. */
static int
parse_rfc(struct pg_opts *o, int c, const char *arg)
{
	uint64_t v;

	switch (c) {
	case O_RFC2544:
		return parse_mode(o, arg);
	case O_LAT_LOADS:
		lat_loads_given = true;
		return parse_loads(o, arg);
	case O_TX_FULL:
		if (strcmp(arg, "drop") != 0 && strcmp(arg, "wait") != 0)
			return pg_fail("--tx-full '%s': expected drop or wait",
				       arg);
		o->tx_full = arg[0] == 'd';
		return 0;
	case O_LOSS_STEP:
		loss_step_given = true;
		return parse_double("--loss-step", arg, 0.1, 50, &o->loss_step);
	case O_RFC_SIZES:
		return parse_sizes(o, arg);
	case O_PDR_LOSS:
		return parse_double("--pdr-loss", arg, 0, 99, &o->pdr_loss);
	case O_TRIAL_S:
		return parse_double("--trial-s", arg, 0.01, 3600, &o->trial_s);
	case O_FINAL_S:
		return parse_double("--final-trial-s", arg, 0.01, 86400,
				    &o->final_s);
	case O_REPEAT:
		if (parse_u64("--repeat", arg, 1, 100, &v))
			return -1;
		o->repeat = (unsigned)v;
		return 0;
	case O_MIN_RATE:
		return parse_rate_bound("--min-rate", arg, &o->min_rate);
	case O_MAX_RATE:
		return parse_rate_bound("--max-rate", arg, &o->max_rate);
	default:
		return parse_double("--precision", arg, 0.001, 50,
				    &o->precision);
	}
}

/* What --rfc2544 cannot be combined with (the search sets the rate, the
 * length and the sizes of every trial, and counts stamped frames); 0, or
 * -1 after naming the option. rfc_opt: the first of its options given. */
static int
check_rfc(struct pg_opts *o, int nrate, const char *rfc_opt)
{
	const char *bad = NULL;

	if (!o->rfc2544)
		return rfc_opt
			   ? pg_fail("%s needs --rfc2544 (throughput, latency, "
				     "frame-loss or back-to-back)",
				     rfc_opt)
			   : 0;
	bad = o->count		    ? "--count"
	      : o->duration > 0	    ? "--duration"
	      : nrate		    ? "--rate-pps/--rate-mbps/--rate-pct"
	      : o->pcap_file	    ? "--pcap/--replay"
	      : o->no_stamp	    ? "--no-stamp"
	      : o->tx_only	    ? "--tx-only"
	      : o->rx_only	    ? "--rx-only"
	      : o->idle		    ? "--idle"
	      : o->ctl_path	    ? "--ctl"
	      : o->stats_json_file  ? "--stats-json"
	      : o->stats_period > 0 ? "--stats-period"
				    : NULL;
	for (unsigned p = 0; bad == NULL && p < LR_MAX_ETHPORTS; p++)
		if (o->l3[p].has4 || o->l3[p].has6)
			bad = "--ip";
	if (bad)
		return pg_fail("--rfc2544 sets the rate, length and sizes of "
			       "its trials and counts the frames that come "
			       "back: %s does not apply",
			       bad);
	if (o->rfc_mode != PG_RFC_LATENCY && lat_loads_given)
		return pg_fail("--latency-loads applies to --rfc2544 latency");
	if (o->rfc_mode != PG_RFC_FRAME_LOSS && loss_step_given)
		return pg_fail("--loss-step applies to --rfc2544 frame-loss");
	if (o->min_rate.unit == o->max_rate.unit &&
	    o->min_rate.unit != PG_RATE_MAX && o->min_rate.v > o->max_rate.v)
		return pg_fail("--min-rate %.10g is above --max-rate %.10g: no "
			       "rate to search",
			       o->min_rate.v, o->max_rate.v);
	o->drain_all = true;
	o->no_screen = true;
	return 0;
}

int
pg_parse_ip_range(const char *s, bool v6, uint64_t *lo, uint64_t *hi,
		  uint64_t *hi6)
{
	char a[64], *dash;
	uint8_t b[2][16];
	int n = 1;

	if (strlen(s) >= sizeof(a))
		return -1;
	strcpy(a, s);
	dash = strchr(a, '-');
	if (dash) {
		*dash = '\0';
		n = 2;
	}
	for (int i = 0; i < n; i++) {
		const char *t = i ? dash + 1 : a;

		if (inet_pton(v6 ? AF_INET6 : AF_INET, t, b[i]) != 1)
			return -1;
	}
	if (n == 1)
		memcpy(b[1], b[0], 16);
	if (v6) {
		uint64_t h[2] = {0, 0}, l[2] = {0, 0};

		for (int i = 0; i < 2; i++)
			for (int k = 0; k < 8; k++) {
				h[i] = h[i] << 8 | b[i][k];
				l[i] = l[i] << 8 | b[i][8 + k];
			}
		if (h[0] != h[1] || l[0] > l[1])
			return -1;
		*hi6 = h[0];
		*lo = l[0];
		*hi = l[1];
		return 0;
	}
	*lo = (uint64_t)b[0][0] << 24 | b[0][1] << 16 | b[0][2] << 8 | b[0][3];
	*hi = (uint64_t)b[1][0] << 24 | b[1][1] << 16 | b[1][2] << 8 | b[1][3];
	*hi6 = 0;
	return *lo <= *hi ? 0 : -1;
}

/* The one stream of the command line, from the options; 0 or -1. */
static int
cli_stream(struct pg_opts *o)
{
	static const int fmap[PG_F_COUNT] = {
	    [PG_F_SRC_MAC] = PG_FV_SRC_MAC,   [PG_F_DST_MAC] = PG_FV_DST_MAC,
	    [PG_F_SRC_IP] = PG_FV_SRC_IP,     [PG_F_DST_IP] = PG_FV_DST_IP,
	    [PG_F_SRC_PORT] = PG_FV_SRC_PORT, [PG_F_DST_PORT] = PG_FV_DST_PORT,
	};
	struct pg_sdef *d = &o->cli;
	uint64_t hi6[2] = {d->hi6[0], d->hi6[1]};

	pg_sdef_defaults(d);
	snprintf(d->name, sizeof(d->name), "%s", "cli");
	for (int f = PG_F_SRC_MAC; f < PG_F_COUNT; f++) {
		struct pg_val *v = &d->v[fmap[f]];

		if (!o->f[f].set)
			continue;
		v->lo = o->f[f].lo;
		v->hi = o->f[f].hi;
		v->step = 1;
		v->set = true;
		v->mode = o->random ? PG_V_RANDOM : PG_V_INC;
	}
	d->hi6[0] = hi6[0];
	d->hi6[1] = hi6[1];
	d->ipv6 = o->ipv6;
	d->l4 = o->l4;
	d->udp_cksum = o->udp_cksum;
	d->ntags = o->nvlan;
	if (o->nvlan) {
		d->v[PG_FV_VLAN].lo = d->v[PG_FV_VLAN].hi = o->vlan[0];
		d->tpid[0] = o->nvlan == 2 ? 0x88a8 : 0x8100;
	}
	if (o->nvlan == 2) {
		d->tpid[1] = 0x8100;
		d->tci[1] = o->vlan[1];
	}
	d->size.lo = o->f[PG_F_SIZE].lo;
	d->size.hi = o->f[PG_F_SIZE].hi;
	d->size.step = o->f[PG_F_SIZE].step;
	d->size.set = o->f[PG_F_SIZE].set || o->size_mode == PG_SIZE_IMIX;
	d->size.mode = o->random ? PG_V_RANDOM : PG_V_INC;
	d->size_mode = o->size_mode;
	if (o->size_mode == PG_SIZE_IMIX) {
		d->slots = malloc(sizeof(pg_imix_sizes));
		if (d->slots == NULL)
			return pg_fail("out of memory");
		memcpy(d->slots, pg_imix_sizes, sizeof(pg_imix_sizes));
		d->nslots = PG_IMIX_SLOTS;
	}
	return 0;
}

int
pg_parse_args(int argc, char **argv, struct pg_opts *o)
{
	uint64_t v, size_step = 0;
	int c, nrate = 0, capture_mode = 0;
	const char *stream_opt = NULL; /* first option about the frames */
	int speed = 0, gateway = 0, l3 = 0, ctl_timeout = 0;
	const char *resolve = NULL; /* a --resolve-* option given */
	static char optname[40], stream_name[40], rfc_name[40];
	const char *rfc_opt = NULL; /* first option of the RFC 2544 search */
	int li = -1;
	const char *prog = argc > 0 ? argv[0] : PROG;

	set_defaults(o);
	optind = 0; /* the EAL used getopt before: start over */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:h", longopts, &li)) != -1) {
		const char *name =
		    optind > 0 && optind <= argc ? argv[optind - 1] : "";

		if (c >= O_PORTS && li >= 0) {
			snprintf(optname, sizeof(optname), "--%s",
				 longopts[li].name);
			name = optname;
		}
		li = -1;
		enum pg_field f = PG_F_COUNT;

		switch (c) {
		case 'h':
			pg_usage(stdout, prog);
			return 1;
		case '?':
			return pg_fail("unknown option '%s' (see --help)",
				       name);
		case ':':
			return pg_fail("option '%s' needs a value", name);
		case O_PORTS:
			if (parse_port_list("--ports", optarg, &o->ports))
				return -1;
			break;
		case 'p': {
			char *end;
			unsigned long m;

			errno = 0;
			m = strtoul(optarg, &end, 16);
			if (errno || end == optarg || *end || m == 0 ||
			    m >> LR_MAX_ETHPORTS)
				return pg_fail(
				    "--portmask '%s': expected a non-zero"
				    " hex mask of ports 0..%d",
				    optarg, LR_MAX_ETHPORTS - 1);
			o->ports = (uint32_t)m;
			break;
		}
		case O_TX_PORTS:
			if (parse_port_list("--tx-ports", optarg, &o->tx_ports))
				return -1;
			break;
		case O_RX_PORTS:
			if (parse_port_list("--rx-ports", optarg, &o->rx_ports))
				return -1;
			break;
		case O_TX_ONLY:
			o->tx_only = true;
			break;
		case O_RX_ONLY:
			o->rx_only = true;
			break;
		case O_SIZE:
			f = PG_F_SIZE;
			if (o->size_mode == PG_SIZE_IMIX)
				return pg_fail("--size and --imix: give one");
			break;
		case O_SIZE_STEP:
			if (parse_u64("--size-step", optarg, 1, PG_MAX_SIZE,
				      &size_step))
				return -1;
			break;
		case O_IMIX:
			if (o->f[PG_F_SIZE].set)
				return pg_fail("--size and --imix: give one");
			o->size_mode = PG_SIZE_IMIX;
			break;
		case O_SRC_MAC:
			f = PG_F_SRC_MAC;
			break;
		case O_DST_MAC:
			f = PG_F_DST_MAC;
			break;
		case O_SRC_IP:
		case O_DST_IP:
			/* Parsed at the end: --ipv6 may come later. */
			o->ip[c == O_DST_IP] = optarg;
			if (!stream_opt)
				stream_opt = strcpy(stream_name, name);
			break;
		case O_PROTO:
			if (strcmp(optarg, "udp") == 0)
				o->l4 = PG_L4_UDP;
			else if (strcmp(optarg, "tcp") == 0)
				o->l4 = PG_L4_TCP;
			else if (strcmp(optarg, "icmp") == 0)
				o->l4 = PG_L4_ICMP;
			else
				return pg_fail(
				    "--proto '%s': expected udp, tcp or "
				    "icmp",
				    optarg);
			if (!stream_opt)
				stream_opt = strcpy(stream_name, name);
			break;
		case O_VLAN:
			if (o->nvlan == 2)
				return pg_fail("--vlan '%s': at most two tags "
					       "(QinQ)",
					       optarg);
			if (parse_u64("--vlan", optarg, 0, 4095, &v))
				return -1;
			o->vlan[o->nvlan++] = (uint16_t)v;
			if (!stream_opt)
				stream_opt = strcpy(stream_name, name);
			break;
		case O_IPV6:
			o->ipv6 = true;
			if (!stream_opt)
				stream_opt = strcpy(stream_name, name);
			break;
		case O_PROFILE:
			o->profile = optarg;
			break;
		case O_SRC_PORT:
			f = PG_F_SRC_PORT;
			break;
		case O_DST_PORT:
			f = PG_F_DST_PORT;
			break;
		case O_RANDOM:
			o->random = true;
			break;
		case O_SEED:
			if (parse_u64("--seed", optarg, 0, UINT64_MAX,
				      &o->seed))
				return -1;
			break;
		case O_UDP_CKSUM:
			o->udp_cksum = true;
			break;
		case O_PCAP:
		case O_REPLAY:
			if (o->pcap_file)
				return pg_fail("--pcap and --replay: give one "
					       "file");
			o->pcap_file = optarg;
			o->replay = c == O_REPLAY;
			break;
		case O_SPEED:
			if (parse_double("--speed", optarg, 1e-6, 1e6,
					 &o->speed))
				return -1;
			speed = 1;
			break;
		case O_CAPTURE:
			o->capture_file = optarg;
			break;
		case O_CAPTURE_MODE: {
			char *end;
			unsigned long m;

			errno = 0;
			m = strtoul(optarg, &end, 8);
			if (optarg[0] < '0' || optarg[0] > '7' || *end ||
			    errno || m > 0777)
				return pg_fail("--capture-mode '%s': expected "
					       "octal permission bits such as "
					       "0600 or 0644",
					       optarg);
			o->capture_mode = (unsigned)m;
			capture_mode = 1;
			break;
		}
		case O_RATE_PPS:
			nrate++;
			o->rate_mode = PG_RATE_PPS;
			if (parse_double("--rate-pps", optarg, 1, 1e10,
					 &o->rate))
				return -1;
			break;
		case O_RATE_MBPS:
			nrate++;
			o->rate_mode = PG_RATE_MBPS;
			if (parse_double("--rate-mbps", optarg, 0.001, 1e7,
					 &o->rate))
				return -1;
			break;
		case O_RATE_PCT:
			nrate++;
			o->rate_mode = PG_RATE_PCT;
			if (parse_double("--rate-pct", optarg, 0.0001, 100,
					 &o->rate))
				return -1;
			break;
		case O_LINE_RATE:
			if (parse_double("--line-rate-gbps", optarg, 0.001, 1e4,
					 &o->line_rate_gbps))
				return -1;
			o->line_rate_set = true;
			break;
		case O_BURST:
			if (parse_u64("--burst", optarg, 1, PG_MAX_BURST, &v))
				return -1;
			o->burst = (unsigned)v;
			break;
		case O_BUCKET:
			if (parse_double("--bucket-ms", optarg, 0, 10000,
					 &o->bucket_ms))
				return -1;
			break;
		case O_COUNT:
			if (parse_u64("--count", optarg, 1, UINT64_MAX / 2,
				      &o->count))
				return -1;
			break;
		case O_DURATION:
			if (parse_double("--duration", optarg, 0.001, 1e7,
					 &o->duration))
				return -1;
			break;
		case O_DRAIN:
			if (parse_u64("--drain-ms", optarg, 0, 600000, &v))
				return -1;
			o->drain_ms = (unsigned)v;
			break;
		case O_DRAIN_ALL:
			o->drain_all = true;
			break;
		case O_LINK_WAIT:
			if (parse_double("--link-wait", optarg, 0, 3600,
					 &o->link_wait))
				return -1;
			break;
		case O_QUIET:
			o->quiet = true;
			break;
		case O_STATS_PERIOD:
			if (parse_double("--stats-period", optarg, 0.01, 3600,
					 &o->stats_period))
				return -1;
			break;
		case O_XSTATS:
			o->xstats = true;
			break;
		case O_JSON:
			o->json = true;
			/* --json FILE: an argument that is no option */
			if (optind < argc && argv[optind][0] != '-')
				o->json_file = argv[optind++];
			break;
		case O_RFC2544:
		case O_RFC_SIZES:
		case O_PDR_LOSS:
		case O_TRIAL_S:
		case O_FINAL_S:
		case O_REPEAT:
		case O_MIN_RATE:
		case O_MAX_RATE:
		case O_PRECISION:
		case O_LAT_LOADS:
		case O_LOSS_STEP:
		case O_TX_FULL:
			if (parse_rfc(o, c, optarg) != 0)
				return -1;
			if (c != O_RFC2544 && !rfc_opt)
				rfc_opt = strcpy(rfc_name, name);
			break;
		case O_STATS_JSON:
			o->stats_json_file = optarg;
			break;
		case O_CTL:
			o->ctl_path = optarg;
			break;
		case O_CTL_GROUP:
			if (parse_group(o, optarg) != 0)
				return -1;
			break;
		case O_CTL_TIMEOUT:
			if (parse_double("--ctl-timeout", optarg, 0.01, 86400,
					 &o->ctl_timeout))
				return -1;
			ctl_timeout = 1;
			break;
		case O_IDLE:
			o->idle = true;
			break;
		case O_NO_STAMP:
			o->no_stamp = true;
			break;
		case O_RECORD_CYCLES:
			o->record_cycles = true;
			break;
		case O_NO_SCREEN:
			o->no_screen = true;
			break;
		case O_IP:
			if (pg_l3_parse_ip(optarg, o->l3, LR_MAX_ETHPORTS))
				return -1;
			break;
		case O_GATEWAY:
			if (pg_l3_parse_gateway(optarg, o->l3, LR_MAX_ETHPORTS))
				return -1;
			gateway = 1;
			break;
		case O_RESOLVE_TRIES:
			if (parse_u64("--resolve-tries", optarg, 1, 1000, &v))
				return -1;
			o->resolve_tries = (unsigned)v;
			resolve = "--resolve-tries";
			break;
		case O_RESOLVE_INTERVAL:
			if (parse_double("--resolve-interval", optarg, 0.001,
					 60, &o->resolve_interval))
				return -1;
			resolve = "--resolve-interval";
			break;
		case O_RXD:
		case O_TXD:
			if (parse_u64(c == O_RXD ? "--rxd" : "--txd", optarg,
				      16, 16384, &v))
				return -1;
			*(c == O_RXD ? &o->nb_rxd : &o->nb_txd) = (unsigned)v;
			break;
		case O_QUEUES:
			if (parse_u64("--queues", optarg, 1,
				      LR_MAX_QUEUES_PER_PORT, &v))
				return -1;
			o->queues = (unsigned)v;
			break;
		case O_MBUFS:
			if (parse_mbufs(o, optarg))
				return -1;
			break;
		case O_MBUFS_IDLE:
			if (parse_u64("--mbufs-idle", optarg, 0, 3600000, &v))
				return -1;
			o->idle_ms = (unsigned)v;
			break;
		default:
			return pg_fail("unknown option '%s' (see --help)",
				       name);
		}
		if (f != PG_F_COUNT &&
		    parse_field_range(field_opt[f], optarg, f, &o->f[f]))
			return -1;
		if (f != PG_F_COUNT || c == O_IMIX || c == O_UDP_CKSUM ||
		    c == O_RANDOM || c == O_SIZE_STEP)
			if (!stream_opt)
				stream_opt = strcpy(stream_name, name);
	}
	if (optind < argc)
		return pg_fail(
		    "unexpected argument '%s' (options start with --)",
		    argv[optind]);

	/* Combinations. */
	for (int i = 0; i < 2; i++) {
		uint64_t lo, hi, hi6;

		if (o->ip[i] == NULL)
			continue;
		if (pg_parse_ip_range(o->ip[i], o->ipv6, &lo, &hi, &hi6) != 0)
			return pg_fail(
			    "%s '%s': expected an %s address like %s "
			    "or a range A-B%s",
			    i ? "--dst-ip" : "--src-ip", o->ip[i],
			    o->ipv6 ? "IPv6" : "IPv4",
			    o->ipv6 ? "fd00::1" : "10.0.0.1",
			    o->ipv6 ? " (differing in the low 64 bits)" : "");
		o->f[PG_F_SRC_IP + i].lo = lo;
		o->f[PG_F_SRC_IP + i].hi = hi;
		o->f[PG_F_SRC_IP + i].set = true;
		o->cli.hi6[i] = hi6;
	}
	if (nrate > 1)
		return pg_fail(
		    "--rate-pps, --rate-mbps and --rate-pct: give one");
	if (o->tx_only && o->rx_only)
		return pg_fail("--tx-only and --rx-only: give one");
	if (o->rx_only && (o->count || nrate || o->pcap_file))
		return pg_fail("--rx-only sends nothing: --count, --rate-* and "
			       "--pcap need transmitting");
	if (o->pcap_file &&
	    (o->f[PG_F_SIZE].set || o->size_mode == PG_SIZE_IMIX || size_step))
		return pg_fail("--pcap sends the file's frames: --size, "
			       "--size-step and --imix do not apply");
	if (o->pcap_file) {
		for (int i = PG_F_SRC_MAC; i < PG_F_COUNT; i++)
			if (o->f[i].set)
				return pg_fail(
				    "--pcap sends the file's frames: "
				    "%s does not apply",
				    field_opt[i]);
		if (o->udp_cksum)
			return pg_fail("--pcap sends the file's frames: "
				       "--udp-cksum does not apply");
	}
	if (o->f[PG_F_SIZE].lo != o->f[PG_F_SIZE].hi)
		o->size_mode = PG_SIZE_RANGE;
	if (size_step) {
		if (o->size_mode != PG_SIZE_RANGE)
			return pg_fail("--size-step needs a size range (--size "
				       "N-M)");
		o->f[PG_F_SIZE].step = size_step;
	}
	if (speed && !o->replay)
		return pg_fail("--speed needs --replay FILE");
	if (o->replay && nrate)
		return pg_fail(
		    "--replay sends at the capture's timing: --rate-* "
		    "does not apply (--pcap FILE --rate-* sends the file "
		    "at a set rate)");
	if (o->profile && (stream_opt || o->pcap_file))
		return pg_fail(
		    "--profile defines the streams: %s does not apply",
		    o->pcap_file ? "--pcap" : stream_opt);
	if (o->pcap_file && (o->l4 || o->nvlan || o->ipv6))
		return pg_fail(
		    "--pcap sends the file's frames: --proto, --vlan "
		    "and --ipv6 do not apply");
	if (o->idle && !o->ctl_path)
		return pg_fail("--idle waits for a \"start\" request: it needs "
			       "--ctl PATH");
	if (o->ctl_group && !o->ctl_path)
		return pg_fail("--ctl-group is the control socket's group: it "
			       "needs --ctl PATH");
	if (ctl_timeout && !o->ctl_path)
		return pg_fail("--ctl-timeout is for the control socket's "
			       "clients: it needs --ctl PATH");
	if (o->idle && o->rx_only)
		return pg_fail("--idle and --rx-only: an --rx-only run sends "
			       "nothing to start");
	for (unsigned p = 0; p < LR_MAX_ETHPORTS; p++) {
		if (pg_l3_check(&o->l3[p], p) != 0)
			return -1;
		l3 |= o->l3[p].has4 || o->l3[p].has6;
	}
	if (resolve && !l3)
		return pg_fail("%s needs --ip PORT:ADDRESS/PREFIX (L3 mode)",
			       resolve);
	if (gateway && o->pcap_file)
		return pg_fail(
		    "--pcap sends the file's frames as they are: "
		    "--gateway does not apply (--ip alone answers ARP, "
		    "NDP and ping)");
	if (capture_mode && !o->capture_file)
		return pg_fail("--capture-mode needs --capture FILE");
	if (check_rfc(o, nrate, rfc_opt) != 0)
		return -1;
	if (o->pcap_file && !pg_have_pcap())
		return pg_fail(
		    "--pcap: this lr-pktgen was built without libpcap");
	/* Last: what it allocates is freed on the only failure after it. */
	if (cli_stream(o) != 0)
		return -1;
	if (!o->profile && pg_sdef_check(&o->cli, "command line") != 0) {
		pg_sdef_fini(&o->cli);
		return -1;
	}
	return 0;
}
