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
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lr_app.h"
#include "pktgen.h"

#define PROG "lr-pktgen"

/* The k/M/G suffix (powers of 1000; with lower_mg m and g too, in rates
 * where no milli is meant) at *end, stepped over: its multiplier; 1 (*end
 * unmoved) when there is none. */
static uint64_t
take_suffix(char **end, bool lower_mg)
{
	char c = **end;
	uint64_t mul;

	if (lower_mg && (c == 'm' || c == 'g'))
		c = (char)(c - 'a' + 'A');
	if (c == 'k' || c == 'K')
		mul = 1000;
	else if (c == 'M')
		mul = 1000000;
	else if (c == 'G')
		mul = 1000000000;
	else
		return 1;
	(*end)++;
	return mul;
}

/* Unsigned integer with an optional k/M/G suffix (powers of 1000). */
static int
parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max,
	  uint64_t *v)
{
	char *end;
	unsigned long long x;
	uint64_t mul;

	if (*s == '\0' || *s == '-' || *s == ' ')
		return pg_fail("%s '%s': expected a number", opt, s);
	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno || end == s)
		return pg_fail("%s '%s': expected a number", opt, s);
	mul = take_suffix(&end, false);
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
	uint64_t mul;
	double x;

	errno = 0;
	x = strtod(s, &end);
	if (errno || end == s || !isfinite(x))
		return pg_fail("%s '%s': expected a number", opt, s);
	mul = take_suffix(&end, false);
	if (*end != '\0')
		return pg_fail("%s '%s': expected a number", opt, s);
	x *= (double)mul;
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

/* The options, in the order of their table (opts[], below) and as
 * getopt_long() matched them before. */
enum {
	O_PORTS,
	O_PORTMASK,
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
	O_BUCKET,
	O_COUNT,
	O_DURATION,
	O_DRAIN,
	O_QUIET,
	O_STATS_PERIOD,
	O_XSTATS,
	O_RECORD_CYCLES,
	O_JSON,
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
	O_CAPTURE,
	O_CAPTURE_MODE,
	O_RXD,
	O_TXD,
	O_MBUFS,
	O_MBUFS_IDLE,
	O_QUEUES,
	O_DRAIN_ALL,
	O_LINK_WAIT,
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
	O_HELP,
	O_NUM, /* how many */
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
	uint64_t mul;
	double x;

	errno = 0;
	x = strtod(s, &end);
	if (errno == 0 && end != s && isfinite(x) && x > 0) {
		mul = take_suffix(&end, true);
		b->v = x * (double)mul;
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

/* ---- The options as a table that the parse walks ---- */

/* A parse: the options being filled, and what the checks at the end need
 * (which options were given, and how they were named). */
struct args {
	struct pg_opts *o;
	int argc;
	char **argv;
	const char *prog;
	unsigned given[O_NUM]; /* times each option was taken */
	uint64_t size_step;
	const char *stream_opt; /* first option about the frames */
	const char *rfc_opt;	/* first option of the RFC 2544 search */
	const char *resolve;	/* the last --resolve-* option */
	char optname[40], stream_name[40], rfc_name[40];
};

struct opt_def;
/* Take an option's value arg (NULL: it has none): 0, 1 after printing
 * the usage (--help), or -1 after a message naming the option. */
typedef int opt_take(struct args *a, const struct opt_def *d, const char *arg);

/* What an option is besides its value (struct opt_def's flags). */
enum {
	OPT_STREAM = 1,	 /* about the frames: --profile does not take it */
	OPT_RFC = 2,	 /* of the RFC 2544 search: needs --rfc2544 */
	OPT_RESOLVE = 4, /* of L3 mode's resolution: needs --ip */
};

/* An option: its name ("--" and its long name), whether it takes a
 * value, its short name (0: none), its OPT_* flags, the function that
 * takes it and what that function needs: where the value goes in struct
 * pg_opts (or which field, mode or file it is), its range. */
struct opt_def {
	const char *name;
	int has_arg;
	char short_name;
	uint8_t flags;
	opt_take *take;
	size_t at;
	double lo, hi;
};

/* The offset of member m of struct pg_opts, which must be of type t (a
 * table entry that names the wrong member does not compile). */
/* clang-format off */
#define AT(m, t)							\
	(offsetof(struct pg_opts, m) +					\
	 0 * sizeof(char[_Generic(((struct pg_opts *)0)->m,		\
				  t: 1, default: -1)]))
/* clang-format on */

/* The member of a's options at offset at, of type t. */
#define MEMBER(a, at, t) ((t *)(void *)((char *)(a)->o + (at)))

static int
opt_flag(struct args *a, const struct opt_def *d, const char *arg)
{
	(void)arg;
	*MEMBER(a, d->at, bool) = true;
	return 0;
}

static int
opt_text(struct args *a, const struct opt_def *d, const char *arg)
{
	*MEMBER(a, d->at, const char *) = arg;
	return 0;
}

static int
opt_real(struct args *a, const struct opt_def *d, const char *arg)
{
	return parse_double(d->name, arg, d->lo, d->hi,
			    MEMBER(a, d->at, double));
}

static int
opt_uint(struct args *a, const struct opt_def *d, const char *arg)
{
	uint64_t v;

	if (parse_u64(d->name, arg, (uint64_t)d->lo, (uint64_t)d->hi, &v))
		return -1;
	*MEMBER(a, d->at, unsigned) = (unsigned)v;
	return 0;
}

static int
opt_help(struct args *a, const struct opt_def *d, const char *arg)
{
	(void)d;
	(void)arg;
	pg_usage(stdout, a->prog);
	return 1;
}

static int
opt_port_list(struct args *a, const struct opt_def *d, const char *arg)
{
	return parse_port_list(d->name, arg, MEMBER(a, d->at, uint32_t));
}

static int
opt_portmask(struct args *a, const struct opt_def *d, const char *arg)
{
	char *end;
	unsigned long m;

	(void)d;
	errno = 0;
	m = strtoul(arg, &end, 16);
	if (errno || end == arg || *end || m == 0 || m >> LR_MAX_ETHPORTS)
		return pg_fail("--portmask '%s': expected a non-zero"
			       " hex mask of ports 0..%d",
			       arg, LR_MAX_ETHPORTS - 1);
	a->o->ports = (uint32_t)m;
	return 0;
}

/* --size, --src-mac, --dst-mac, --src-port, --dst-port: field d->at. */
static int
opt_field(struct args *a, const struct opt_def *d, const char *arg)
{
	enum pg_field f = (enum pg_field)d->at;

	if (f == PG_F_SIZE && a->o->size_mode == PG_SIZE_IMIX)
		return pg_fail("--size and --imix: give one");
	return parse_field_range(field_opt[f], arg, f, &a->o->f[f]);
}

static int
opt_size_step(struct args *a, const struct opt_def *d, const char *arg)
{
	return parse_u64(d->name, arg, 1, PG_MAX_SIZE, &a->size_step);
}

static int
opt_imix(struct args *a, const struct opt_def *d, const char *arg)
{
	(void)d;
	(void)arg;
	if (a->o->f[PG_F_SIZE].set)
		return pg_fail("--size and --imix: give one");
	a->o->size_mode = PG_SIZE_IMIX;
	return 0;
}

/* --src-ip (d->at 0), --dst-ip (1): parsed at the end, for --ipv6 may
 * come later. */
static int
opt_ip(struct args *a, const struct opt_def *d, const char *arg)
{
	a->o->ip[d->at] = arg;
	return 0;
}

static int
opt_proto(struct args *a, const struct opt_def *d, const char *arg)
{
	(void)d;
	if (strcmp(arg, "udp") == 0)
		a->o->l4 = PG_L4_UDP;
	else if (strcmp(arg, "tcp") == 0)
		a->o->l4 = PG_L4_TCP;
	else if (strcmp(arg, "icmp") == 0)
		a->o->l4 = PG_L4_ICMP;
	else
		return pg_fail("--proto '%s': expected udp, tcp or icmp", arg);
	return 0;
}

static int
opt_vlan(struct args *a, const struct opt_def *d, const char *arg)
{
	uint64_t v;

	if (a->o->nvlan == 2)
		return pg_fail("--vlan '%s': at most two tags (QinQ)", arg);
	if (parse_u64(d->name, arg, 0, 4095, &v))
		return -1;
	a->o->vlan[a->o->nvlan++] = (uint16_t)v;
	return 0;
}

static int
opt_seed(struct args *a, const struct opt_def *d, const char *arg)
{
	return parse_u64(d->name, arg, 0, UINT64_MAX, &a->o->seed);
}

static int
opt_count(struct args *a, const struct opt_def *d, const char *arg)
{
	return parse_u64(d->name, arg, 1, UINT64_MAX / 2, &a->o->count);
}

/* --pcap (d->at 0), --replay (1). */
static int
opt_pcap(struct args *a, const struct opt_def *d, const char *arg)
{
	if (a->o->pcap_file)
		return pg_fail("--pcap and --replay: give one file");
	a->o->pcap_file = arg;
	a->o->replay = d->at == 1;
	return 0;
}

static int
opt_capture_mode(struct args *a, const struct opt_def *d, const char *arg)
{
	char *end;
	unsigned long m;

	(void)d;
	errno = 0;
	m = strtoul(arg, &end, 8);
	if (arg[0] < '0' || arg[0] > '7' || *end || errno || m > 0777)
		return pg_fail("--capture-mode '%s': expected octal permission "
			       "bits such as 0600 or 0644",
			       arg);
	a->o->capture_mode = (unsigned)m;
	return 0;
}

/* --rate-pps, --rate-mbps, --rate-pct: rate mode d->at. */
static int
opt_rate(struct args *a, const struct opt_def *d, const char *arg)
{
	a->o->rate_mode = (enum pg_rate_mode)d->at;
	return parse_double(d->name, arg, d->lo, d->hi, &a->o->rate);
}

static int
opt_line_rate(struct args *a, const struct opt_def *d, const char *arg)
{
	if (opt_real(a, d, arg) != 0)
		return -1;
	a->o->line_rate_set = true;
	return 0;
}

/* --json [FILE]: FILE an argument that is no option. */
static int
opt_json(struct args *a, const struct opt_def *d, const char *arg)
{
	(void)d;
	(void)arg;
	a->o->json = true;
	if (optind < a->argc && a->argv[optind][0] != '-')
		a->o->json_file = a->argv[optind++];
	return 0;
}

static int
opt_ctl_group(struct args *a, const struct opt_def *d, const char *arg)
{
	(void)d;
	return parse_group(a->o, arg);
}

static int
opt_l3_ip(struct args *a, const struct opt_def *d, const char *arg)
{
	(void)d;
	return pg_l3_parse_ip(arg, a->o->l3, LR_MAX_ETHPORTS) ? -1 : 0;
}

static int
opt_gateway(struct args *a, const struct opt_def *d, const char *arg)
{
	(void)d;
	return pg_l3_parse_gateway(arg, a->o->l3, LR_MAX_ETHPORTS) ? -1 : 0;
}

static int
opt_mbufs(struct args *a, const struct opt_def *d, const char *arg)
{
	(void)d;
	/* N (a fixed pool) or MIN-MAX (elastic) */
	return lr_app_parse_range(PROG, "--mbufs", arg, 64, 1u << 24,
				  &a->o->nb_mbufs, &a->o->mbufs_max);
}

/* The options of --rfc2544 (parse_rfc() knows them by their O_*). */
static int opt_rfc(struct args *a, const struct opt_def *d, const char *arg);

/* Entries of the table: an option without a value that sets a bool; one
 * whose value is kept as given; a number in lo..hi; another kind. */
/* clang-format off */
#define FLAG(n, m, fl)	{n, no_argument, 0, fl, opt_flag, AT(m, bool), 0, 0}
#define TEXT(n, m)							\
	{n, required_argument, 0, 0, opt_text, AT(m, const char *), 0, 0}
#define REAL(n, m, lo, hi, fl)						\
	{n, required_argument, 0, fl, opt_real, AT(m, double), lo, hi}
#define UINT(n, m, lo, hi, fl)						\
	{n, required_argument, 0, fl, opt_uint, AT(m, unsigned), lo, hi}
#define WITH(n, take, at, fl) {n, required_argument, 0, fl, take, at, 0, 0}

static const struct opt_def opts[O_NUM] = {
	[O_PORTS] = WITH("--ports", opt_port_list, AT(ports, uint32_t), 0),
	[O_PORTMASK] = {"--portmask", required_argument, 'p', 0, opt_portmask,
			0, 0, 0},
	[O_TX_PORTS] = WITH("--tx-ports", opt_port_list,
			    AT(tx_ports, uint32_t), 0),
	[O_RX_PORTS] = WITH("--rx-ports", opt_port_list,
			    AT(rx_ports, uint32_t), 0),
	[O_TX_ONLY] = FLAG("--tx-only", tx_only, 0),
	[O_RX_ONLY] = FLAG("--rx-only", rx_only, 0),
	[O_SIZE] = WITH("--size", opt_field, PG_F_SIZE, OPT_STREAM),
	[O_SIZE_STEP] = WITH("--size-step", opt_size_step, 0, OPT_STREAM),
	[O_IMIX] = {"--imix", no_argument, 0, OPT_STREAM, opt_imix, 0, 0, 0},
	[O_SRC_MAC] = WITH("--src-mac", opt_field, PG_F_SRC_MAC, OPT_STREAM),
	[O_DST_MAC] = WITH("--dst-mac", opt_field, PG_F_DST_MAC, OPT_STREAM),
	[O_SRC_IP] = WITH("--src-ip", opt_ip, 0, OPT_STREAM),
	[O_DST_IP] = WITH("--dst-ip", opt_ip, 1, OPT_STREAM),
	[O_SRC_PORT] = WITH("--src-port", opt_field, PG_F_SRC_PORT,
			    OPT_STREAM),
	[O_DST_PORT] = WITH("--dst-port", opt_field, PG_F_DST_PORT,
			    OPT_STREAM),
	[O_RANDOM] = FLAG("--random", random, OPT_STREAM),
	[O_SEED] = WITH("--seed", opt_seed, 0, 0),
	[O_UDP_CKSUM] = FLAG("--udp-cksum", udp_cksum, OPT_STREAM),
	[O_PCAP] = WITH("--pcap", opt_pcap, 0, 0),
	[O_RATE_PPS] = {"--rate-pps", required_argument, 0, 0, opt_rate,
			PG_RATE_PPS, 1, 1e10},
	[O_RATE_MBPS] = {"--rate-mbps", required_argument, 0, 0, opt_rate,
			 PG_RATE_MBPS, 0.001, 1e7},
	[O_RATE_PCT] = {"--rate-pct", required_argument, 0, 0, opt_rate,
			PG_RATE_PCT, 0.0001, 100},
	[O_LINE_RATE] = {"--line-rate-gbps", required_argument, 0, 0,
			 opt_line_rate, AT(line_rate_gbps, double), 0.001, 1e4},
	[O_BURST] = UINT("--burst", burst, 1, PG_MAX_BURST, 0),
	[O_BUCKET] = REAL("--bucket-ms", bucket_ms, 0, 10000, 0),
	[O_COUNT] = WITH("--count", opt_count, 0, 0),
	[O_DURATION] = REAL("--duration", duration, 0.001, 1e7, 0),
	[O_DRAIN] = UINT("--drain-ms", drain_ms, 0, 600000, 0),
	[O_QUIET] = FLAG("--quiet", quiet, 0),
	[O_STATS_PERIOD] = REAL("--stats-period", stats_period, 0.01, 3600, 0),
	[O_XSTATS] = FLAG("--xstats", xstats, 0),
	[O_RECORD_CYCLES] = FLAG("--record-core-cycles", record_cycles, 0),
	[O_JSON] = {"--json", no_argument, 0, 0, opt_json, 0, 0, 0},
	[O_STATS_JSON] = TEXT("--stats-json", stats_json_file),
	[O_PROTO] = WITH("--proto", opt_proto, 0, OPT_STREAM),
	[O_VLAN] = WITH("--vlan", opt_vlan, 0, OPT_STREAM),
	[O_IPV6] = FLAG("--ipv6", ipv6, OPT_STREAM),
	[O_PROFILE] = TEXT("--profile", profile),
	[O_REPLAY] = WITH("--replay", opt_pcap, 1, 0),
	[O_SPEED] = REAL("--speed", speed, 1e-6, 1e6, 0),
	[O_CTL] = TEXT("--ctl", ctl_path),
	[O_CTL_GROUP] = WITH("--ctl-group", opt_ctl_group, 0, 0),
	[O_CTL_TIMEOUT] = REAL("--ctl-timeout", ctl_timeout, 0.01, 86400, 0),
	[O_IDLE] = FLAG("--idle", idle, 0),
	[O_NO_STAMP] = FLAG("--no-stamp", no_stamp, 0),
	[O_NO_SCREEN] = FLAG("--no-screen", no_screen, 0),
	[O_IP] = WITH("--ip", opt_l3_ip, 0, 0),
	[O_GATEWAY] = WITH("--gateway", opt_gateway, 0, 0),
	[O_RESOLVE_TRIES] = UINT("--resolve-tries", resolve_tries, 1, 1000,
				 OPT_RESOLVE),
	[O_RESOLVE_INTERVAL] = REAL("--resolve-interval", resolve_interval,
				    0.001, 60, OPT_RESOLVE),
	[O_CAPTURE] = TEXT("--capture", capture_file),
	[O_CAPTURE_MODE] = WITH("--capture-mode", opt_capture_mode, 0, 0),
	[O_RXD] = UINT("--rxd", nb_rxd, 16, 16384, 0),
	[O_TXD] = UINT("--txd", nb_txd, 16, 16384, 0),
	[O_MBUFS] = WITH("--mbufs", opt_mbufs, 0, 0),
	[O_MBUFS_IDLE] = UINT("--mbufs-idle", idle_ms, 0, 3600000, 0),
	[O_QUEUES] = UINT("--queues", queues, 1, LR_MAX_QUEUES_PER_PORT, 0),
	[O_DRAIN_ALL] = FLAG("--drain-all", drain_all, 0),
	[O_LINK_WAIT] = REAL("--link-wait", link_wait, 0, 3600, 0),
	[O_RFC2544] = WITH("--rfc2544", opt_rfc, 0, 0),
	[O_RFC_SIZES] = WITH("--rfc2544-sizes", opt_rfc, 0, OPT_RFC),
	[O_PDR_LOSS] = WITH("--pdr-loss", opt_rfc, 0, OPT_RFC),
	[O_TRIAL_S] = WITH("--trial-s", opt_rfc, 0, OPT_RFC),
	[O_FINAL_S] = WITH("--final-trial-s", opt_rfc, 0, OPT_RFC),
	[O_REPEAT] = WITH("--repeat", opt_rfc, 0, OPT_RFC),
	[O_MIN_RATE] = WITH("--min-rate", opt_rfc, 0, OPT_RFC),
	[O_MAX_RATE] = WITH("--max-rate", opt_rfc, 0, OPT_RFC),
	[O_PRECISION] = WITH("--precision", opt_rfc, 0, OPT_RFC),
	[O_LAT_LOADS] = WITH("--latency-loads", opt_rfc, 0, OPT_RFC),
	[O_LOSS_STEP] = WITH("--loss-step", opt_rfc, 0, OPT_RFC),
	[O_TX_FULL] = WITH("--tx-full", opt_rfc, 0, OPT_RFC),
	[O_HELP] = {"--help", no_argument, 'h', 0, opt_help, 0, 0, 0},
};
/* clang-format on */

static int
opt_rfc(struct args *a, const struct opt_def *d, const char *arg)
{
	return parse_rfc(a->o, (int)(d - opts), arg);
}

/* getopt_long() returns a long option's index plus this, or its short
 * name. */
#define OPT_VAL0 256

/* getopt_long()'s view of opts[]. */
static void
build_longopts(struct option *lo)
{
	for (unsigned i = 0; i < O_NUM; i++) {
		lo[i].name = opts[i].name + 2;
		lo[i].has_arg = opts[i].has_arg;
		lo[i].flag = NULL;
		lo[i].val =
		    opts[i].short_name ? opts[i].short_name : OPT_VAL0 + (int)i;
	}
	lo[O_NUM] = (struct option){NULL, 0, NULL, 0};
}

/* The option getopt_long() returned as c, or NULL. */
static const struct opt_def *
opt_of(int c)
{
	if (c >= OPT_VAL0 && c < OPT_VAL0 + O_NUM)
		return &opts[c - OPT_VAL0];
	for (unsigned i = 0; i < O_NUM; i++)
		if (opts[i].short_name != 0 && opts[i].short_name == c)
			return &opts[i];
	return NULL;
}

/* Take option c as getopt_long() returned it (li: its index when it was
 * given by its long name, else -1): 0, 1 after printing the usage, or -1
 * after a message that names the option as given. */
static int
take_option(struct args *a, int c, int li)
{
	const char *name =
	    optind > 0 && optind <= a->argc ? a->argv[optind - 1] : "";
	const struct opt_def *d;
	int ret;

	if (c >= OPT_VAL0 && li >= 0) {
		snprintf(a->optname, sizeof(a->optname), "%s", opts[li].name);
		name = a->optname;
	}
	if (c == '?')
		return pg_fail("unknown option '%s' (see --help)", name);
	if (c == ':')
		return pg_fail("option '%s' needs a value", name);
	d = opt_of(c);
	if (d == NULL)
		return pg_fail("unknown option '%s' (see --help)", name);
	ret = d->take(a, d, optarg);
	if (ret != 0)
		return ret;
	a->given[d - opts]++;
	if ((d->flags & OPT_STREAM) && !a->stream_opt)
		a->stream_opt = strcpy(a->stream_name, name);
	if ((d->flags & OPT_RFC) && !a->rfc_opt)
		a->rfc_opt = strcpy(a->rfc_name, name);
	if (d->flags & OPT_RESOLVE)
		a->resolve = d->name;
	return 0;
}

/* ---- What the options say together ---- */

/* --src-ip and --dst-ip, now that --ipv6 is known; 0 or -1. */
static int
parse_ips(struct pg_opts *o)
{
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
	return 0;
}

/* --rate-* options given. */
static unsigned
nrate(const struct args *a)
{
	return a->given[O_RATE_PPS] + a->given[O_RATE_MBPS] +
	       a->given[O_RATE_PCT];
}

/* What --pcap does not take of the frame options; 0 or -1. */
static int
check_pcap_frames(const struct args *a)
{
	const struct pg_opts *o = a->o;

	if (!o->pcap_file)
		return 0;
	if (o->f[PG_F_SIZE].set || o->size_mode == PG_SIZE_IMIX || a->size_step)
		return pg_fail("--pcap sends the file's frames: --size, "
			       "--size-step and --imix do not apply");
	for (int i = PG_F_SRC_MAC; i < PG_F_COUNT; i++)
		if (o->f[i].set)
			return pg_fail("--pcap sends the file's frames: "
				       "%s does not apply",
				       field_opt[i]);
	if (o->udp_cksum)
		return pg_fail("--pcap sends the file's frames: "
			       "--udp-cksum does not apply");
	return 0;
}

/* The directions, the rate, the frames and where they come from; the size
 * range and its step set. 0 or -1. */
static int
check_frames(const struct args *a)
{
	struct pg_opts *o = a->o;

	if (nrate(a) > 1)
		return pg_fail(
		    "--rate-pps, --rate-mbps and --rate-pct: give one");
	if (o->tx_only && o->rx_only)
		return pg_fail("--tx-only and --rx-only: give one");
	if (o->rx_only && (o->count || nrate(a) || o->pcap_file))
		return pg_fail("--rx-only sends nothing: --count, --rate-* and "
			       "--pcap need transmitting");
	if (check_pcap_frames(a) != 0)
		return -1;
	if (o->f[PG_F_SIZE].lo != o->f[PG_F_SIZE].hi)
		o->size_mode = PG_SIZE_RANGE;
	if (a->size_step) {
		if (o->size_mode != PG_SIZE_RANGE)
			return pg_fail("--size-step needs a size range (--size "
				       "N-M)");
		o->f[PG_F_SIZE].step = a->size_step;
	}
	if (a->given[O_SPEED] && !o->replay)
		return pg_fail("--speed needs --replay FILE");
	if (o->replay && nrate(a))
		return pg_fail(
		    "--replay sends at the capture's timing: --rate-* "
		    "does not apply (--pcap FILE --rate-* sends the file "
		    "at a set rate)");
	if (o->profile && (a->stream_opt || o->pcap_file))
		return pg_fail(
		    "--profile defines the streams: %s does not apply",
		    o->pcap_file ? "--pcap" : a->stream_opt);
	if (o->pcap_file && (o->l4 || o->nvlan || o->ipv6))
		return pg_fail(
		    "--pcap sends the file's frames: --proto, --vlan "
		    "and --ipv6 do not apply");
	return 0;
}

/* The control socket's options, L3 mode's and --capture-mode; 0 or -1. */
static int
check_ctl_l3(const struct args *a)
{
	const struct pg_opts *o = a->o;
	int l3 = 0;

	if (o->idle && !o->ctl_path)
		return pg_fail("--idle waits for a \"start\" request: it needs "
			       "--ctl PATH");
	if (o->ctl_group && !o->ctl_path)
		return pg_fail("--ctl-group is the control socket's group: it "
			       "needs --ctl PATH");
	if (a->given[O_CTL_TIMEOUT] && !o->ctl_path)
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
	if (a->resolve && !l3)
		return pg_fail("%s needs --ip PORT:ADDRESS/PREFIX (L3 mode)",
			       a->resolve);
	if (a->given[O_GATEWAY] && o->pcap_file)
		return pg_fail(
		    "--pcap sends the file's frames as they are: "
		    "--gateway does not apply (--ip alone answers ARP, "
		    "NDP and ping)");
	if (a->given[O_CAPTURE_MODE] && !o->capture_file)
		return pg_fail("--capture-mode needs --capture FILE");
	return 0;
}

int
pg_parse_args(int argc, char **argv, struct pg_opts *o)
{
	struct args a = {.o = o, .argc = argc, .argv = argv};
	struct option longopts[O_NUM + 1];
	int c, li = -1, ret;

	a.prog = argc > 0 ? argv[0] : PROG;
	set_defaults(o);
	build_longopts(longopts);
	optind = 0; /* the EAL used getopt before: start over */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:h", longopts, &li)) != -1) {
		ret = take_option(&a, c, li);
		li = -1;
		if (ret != 0)
			return ret;
	}
	if (optind < argc)
		return pg_fail(
		    "unexpected argument '%s' (options start with --)",
		    argv[optind]);
	if (parse_ips(o) != 0 || check_frames(&a) != 0 ||
	    check_ctl_l3(&a) != 0 ||
	    check_rfc(o, (int)nrate(&a), a.rfc_opt) != 0)
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
