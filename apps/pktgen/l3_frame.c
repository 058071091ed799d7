/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * l3_frame.c - the pure part of lr-pktgen's L3 mode (l3.h): --ip and
 * --gateway parsing, ARP requests and neighbour solicitations, and the
 * classifier that reads a received frame and builds its answer (ARP reply,
 * neighbour advertisement, echo reply). No state: tests call it directly.
 *
 * Frames handled (untagged only; offsets from the frame's start):
 *   ARP       14: htype 1, ptype 0x0800, hlen 6, plen 4, op, sha, spa,
 *                 tha, tpa (42 bytes, padded to 60)
 *   IPv4      14: ICMP echo request (type 8) to our address, not a
 *                 fragment, good header and ICMP checksums
 *   IPv6      14: next header ICMPv6 (58), good checksum; 54: echo request
 *                 (128) to our address, neighbour solicitation (135) for
 *                 it and neighbour advertisement (136), both with hop
 *                 limit 255 (RFC 4861 7.1.1)
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "l3.h"
#include "lr_net.h"

#define PROG "lr-pktgen"

static uint16_t
l3_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void
l3_put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Sum of an ICMPv6 message of n bytes after the IPv6 header ip, with its
 * pseudo header (addresses, length, next header 58), folded, in memory
 * order (lib/net's sums): 0xffff when it holds; inverted, the field. */
static uint16_t
icmp6_sum(const uint8_t *ip, const uint8_t *msg, unsigned n)
{
	return lr_net_cksum_fold((uint64_t)lr_net_pseudo_sum(ip, 58, n) +
				 lr_net_cksum_buf(msg, n));
}

/* Store checksum field value v (memory order, as lib/net gives it). */
static void
put_cksum(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, 2);
}

static bool
all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

const char *
pg_l3_ntop(const uint8_t *addr, bool v6, char *buf, size_t n)
{
	if (inet_ntop(v6 ? AF_INET6 : AF_INET, addr, buf, (socklen_t)n) == NULL)
		snprintf(buf, n, "?");
	return buf;
}

int
pg_l3_on_link(const uint8_t *own, unsigned plen, const uint8_t *addr, bool v6)
{
	unsigned full = plen / 8, rest = plen % 8;

	if (plen > (v6 ? 128u : 32u))
		return 0;
	/* fe80::/10: on every link (RFC 4291 2.5.6). */
	if (v6 && addr[0] == 0xfe && (addr[1] & 0xc0) == 0x80)
		return 1;
	if (memcmp(own, addr, full) != 0)
		return 0;
	if (rest == 0)
		return 1;
	return ((own[full] ^ addr[full]) & (uint8_t)(0xff00 >> rest)) == 0;
}

/* "PORT:" at the start of s: the port into *port, the rest into *rest;
 * 0 or -1 (not printed). */
static int
split_port(const char *s, unsigned nports, unsigned *port, const char **rest)
{
	char *end;
	unsigned long p;

	if (*s < '0' || *s > '9')
		return -1;
	p = strtoul(s, &end, 10);
	if (*end != ':' || p >= nports)
		return -1;
	*port = (unsigned)p;
	*rest = end + 1;
	return 0;
}

/* A unicast address a host may hold: not unspecified, loopback,
 * multicast or (IPv4) the limited broadcast. */
static bool
unicast(const uint8_t *a, bool v6)
{
	if (v6)
		return !all_zero(a, 16) && a[0] != 0xff &&
		       !(all_zero(a, 15) && a[15] == 1);
	return a[0] != 0 && a[0] != 127 && a[0] < 224;
}

/* The address text of s (up to a '/' when slash) into a[16]; 4 (IPv4),
 * 16 (IPv6) or -1. */
static int
parse_addr(const char *s, bool slash, uint8_t *a, const char **after)
{
	char buf[64];
	size_t n =
	    slash && strchr(s, '/') ? (size_t)(strchr(s, '/') - s) : strlen(s);

	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	*after = s + n;
	if (inet_pton(AF_INET, buf, a) == 1)
		return 4;
	if (inet_pton(AF_INET6, buf, a) == 1)
		return 16;
	return -1;
}

int
pg_l3_parse_ip(const char *s, struct pg_l3_conf *conf, unsigned nports)
{
	const char *rest, *after;
	uint8_t a[16];
	unsigned port;
	unsigned long plen;
	char *end, old[64];
	int w;
	struct pg_l3_conf *c;

	if (split_port(s, nports, &port, &rest) != 0)
		goto syntax;
	w = parse_addr(rest, true, a, &after);
	if (w < 0) {
		fprintf(stderr,
			PROG ": --ip '%s': '%.*s' is not an IPv4 or IPv6 "
			     "address\n",
			s, (int)strcspn(rest, "/"), rest);
		return -1;
	}
	if (*after != '/' || after[1] < '0' || after[1] > '9')
		goto syntax;
	plen = strtoul(after + 1, &end, 10);
	if (*end != '\0')
		goto syntax;
	if (plen < 1 || plen > (w == 16 ? 128u : 32u)) {
		fprintf(stderr,
			PROG ": --ip '%s': prefix length %lu: %s takes 1..%u\n",
			s, plen, w == 16 ? "IPv6" : "IPv4",
			w == 16 ? 128u : 32u);
		return -1;
	}
	if (!unicast(a, w == 16)) {
		fprintf(stderr,
			PROG ": --ip '%s': not a unicast address a port may "
			     "hold\n",
			s);
		return -1;
	}
	c = &conf[port];
	if ((w == 16 && c->has6) || (w == 4 && c->has4)) {
		fprintf(stderr,
			PROG ": --ip '%s': port %u already has the %s address "
			     "%s (one IPv4 and one IPv6 address a port)\n",
			s, port, w == 16 ? "IPv6" : "IPv4",
			pg_l3_ntop(w == 16 ? c->ip6 : c->ip4, w == 16, old,
				   sizeof(old)));
		return -1;
	}
	if (w == 16) {
		memcpy(c->ip6, a, 16);
		c->plen6 = (uint8_t)plen;
		c->has6 = true;
	} else {
		memcpy(c->ip4, a, 4);
		c->plen4 = (uint8_t)plen;
		c->has4 = true;
	}
	return 0;
syntax:
	fprintf(stderr,
		PROG ": --ip '%s': expected PORT:ADDRESS/PREFIX with a port id "
		     "0..%u, e.g. 0:10.0.0.1/24 or 0:fd00::1/64\n",
		s, nports - 1);
	return -1;
}

int
pg_l3_parse_gateway(const char *s, struct pg_l3_conf *conf, unsigned nports)
{
	const char *rest, *after;
	uint8_t a[16];
	unsigned port;
	int w;
	struct pg_l3_conf *c;

	if (split_port(s, nports, &port, &rest) != 0) {
		fprintf(stderr,
			PROG ": --gateway '%s': expected PORT:ADDRESS with a "
			     "port id 0..%u, e.g. 0:10.0.0.254 or 0:fd00::fe\n",
			s, nports - 1);
		return -1;
	}
	w = parse_addr(rest, false, a, &after);
	if (w < 0 || !unicast(a, w == 16)) {
		fprintf(stderr,
			PROG ": --gateway '%s': '%s' is not a unicast IPv4 or "
			     "IPv6 address\n",
			s, rest);
		return -1;
	}
	c = &conf[port];
	if ((w == 16 && c->gw6_set) || (w == 4 && c->gw4_set)) {
		fprintf(stderr,
			PROG ": --gateway '%s': port %u already has an %s "
			     "gateway\n",
			s, port, w == 16 ? "IPv6" : "IPv4");
		return -1;
	}
	if (w == 16) {
		memcpy(c->gw6, a, 16);
		c->gw6_set = true;
	} else {
		memcpy(c->gw4, a, 4);
		c->gw4_set = true;
	}
	return 0;
}

/* One family's gateway against the port's address. */
static int
check_gw(const struct pg_l3_conf *c, unsigned port, bool v6)
{
	const uint8_t *gw = v6 ? c->gw6 : c->gw4, *ip = v6 ? c->ip6 : c->ip4;
	unsigned plen = v6 ? c->plen6 : c->plen4;
	const char *fam = v6 ? "IPv6" : "IPv4";
	char g[64], a[64];

	pg_l3_ntop(gw, v6, g, sizeof(g));
	if (!(v6 ? c->has6 : c->has4)) {
		fprintf(stderr,
			PROG ": --gateway %u:%s: port %u has no %s address: "
			     "give --ip %u:ADDRESS/PREFIX too\n",
			port, g, port, fam, port);
		return -1;
	}
	pg_l3_ntop(ip, v6, a, sizeof(a));
	if (memcmp(gw, ip, v6 ? 16 : 4) == 0) {
		fprintf(stderr,
			PROG ": --gateway %u:%s: that is port %u's own "
			     "address\n",
			port, g, port);
		return -1;
	}
	if (!pg_l3_on_link(ip, plen, gw, v6)) {
		fprintf(stderr,
			PROG ": --gateway %u:%s: not on port %u's subnet "
			     "(--ip %u:%s/%u)\n",
			port, g, port, port, a, plen);
		return -1;
	}
	return 0;
}

int
pg_l3_check(const struct pg_l3_conf *c, unsigned port)
{
	if (c->gw4_set && check_gw(c, port, false) != 0)
		return -1;
	if (c->gw6_set && check_gw(c, port, true) != 0)
		return -1;
	return 0;
}

/* Ethernet header: dst, src, type. */
static void
eth_hdr(uint8_t *f, const uint8_t *dst, const uint8_t *src, unsigned type)
{
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	l3_put16(f + 12, type);
}

/* An ARP packet of operation op from sha/spa to tha/tpa after an
 * Ethernet header to dst; 60 bytes. */
static unsigned
arp_build(uint8_t *f, const uint8_t *dst, unsigned op, const uint8_t *sha,
	  const uint8_t *spa, const uint8_t *tha, const uint8_t *tpa)
{
	uint8_t *a = f + 14;

	memset(f, 0, 60);
	eth_hdr(f, dst, sha, 0x0806);
	l3_put16(a, 1);
	l3_put16(a + 2, 0x0800);
	a[4] = 6;
	a[5] = 4;
	l3_put16(a + 6, op);
	memcpy(a + 8, sha, 6);
	memcpy(a + 14, spa, 4);
	memcpy(a + 18, tha, 6);
	memcpy(a + 24, tpa, 4);
	return 60;
}

unsigned
pg_l3_arp_request(uint8_t *f, const struct pg_l3_if *ifc,
		  const uint8_t target[4])
{
	static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	static const uint8_t none[6];

	return arp_build(f, bcast, 1, ifc->mac, ifc->c.ip4, none, target);
}

/* An IPv6 header (hop limit hl, ICMPv6, payload n bytes) and an ICMPv6
 * neighbour message of type (135, 136) with flags, target and a
 * link-layer address option of opt (1 source, 2 target) with mac; 86. */
static unsigned
nd_build(uint8_t *f, const uint8_t *dmac, const uint8_t *smac,
	 const uint8_t *src, const uint8_t *dst, unsigned type, uint8_t flags,
	 const uint8_t *target, unsigned opt)
{
	uint8_t *ip = f + 14, *m = f + 54;

	memset(f, 0, 86);
	eth_hdr(f, dmac, smac, 0x86dd);
	ip[0] = 0x60;
	l3_put16(ip + 4, 32);
	ip[6] = 58;
	ip[7] = 255;
	memcpy(ip + 8, src, 16);
	memcpy(ip + 24, dst, 16);
	m[0] = (uint8_t)type;
	m[4] = flags;
	memcpy(m + 8, target, 16);
	m[24] = (uint8_t)opt;
	m[25] = 1;
	memcpy(m + 26, smac, 6);
	put_cksum(m + 2, (uint16_t)~icmp6_sum(ip, m, 32));
	return 86;
}

unsigned
pg_l3_ns_request(uint8_t *f, const struct pg_l3_if *ifc,
		 const uint8_t target[16])
{
	/* The solicited-node multicast address ff02::1:ffXX:XXXX and its
	 * MAC 33:33:ff:XX:XX:XX (RFC 4291 2.7.1, RFC 2464 7). */
	uint8_t dst[16] = {0xff, 0x02, [11] = 0x01, [12] = 0xff};
	uint8_t dmac[6] = {0x33, 0x33, 0xff};

	memcpy(dst + 13, target + 13, 3);
	memcpy(dmac + 3, target + 13, 3);
	return nd_build(f, dmac, ifc->mac, ifc->c.ip6, dst, 135, 0, target, 1);
}

static void
learn(struct pg_l3_learned *l, bool v6, const uint8_t *ip, const uint8_t *mac)
{
	/* A group or zero MAC tells nothing about a neighbour. */
	if ((mac[0] & 1) || all_zero(mac, 6))
		return;
	l->valid = true;
	l->v6 = v6;
	memset(l->ip, 0, sizeof(l->ip));
	memcpy(l->ip, ip, v6 ? 16 : 4);
	memcpy(l->mac, mac, 6);
}

static enum pg_l3_kind
arp_in(const struct pg_l3_if *ifc, const uint8_t *in, unsigned len,
       uint8_t *out, unsigned *out_len, struct pg_l3_learned *l)
{
	const uint8_t *a = in + 14, *sha = a + 8, *spa = a + 14, *tpa = a + 24;
	unsigned op;

	if (!ifc->c.has4 || len < 42 || l3_get16(a) != 1 ||
	    l3_get16(a + 2) != 0x0800 || a[4] != 6 || a[5] != 4)
		return PG_L3_OTHER;
	op = l3_get16(a + 6);
	if (op != 1 && op != 2)
		return PG_L3_OTHER;
	if (!all_zero(spa, 4))
		learn(l, false, spa, sha);
	if (op == 1 && memcmp(tpa, ifc->c.ip4, 4) == 0 && !(sha[0] & 1)) {
		/* A probe (sender 0.0.0.0) gets its answer too: the address
		 * is taken. */
		*out_len =
		    arp_build(out, sha, 2, ifc->mac, ifc->c.ip4, sha, spa);
		return PG_L3_ARP;
	}
	return l->valid ? PG_L3_LEARN : PG_L3_OTHER;
}

static enum pg_l3_kind
ip4_in(const struct pg_l3_if *ifc, const uint8_t *in, unsigned len,
       uint8_t *out, unsigned room, unsigned *out_len)
{
	const uint8_t *ip = in + 14;
	unsigned hl, tl, n;
	uint8_t *oip, *icmp;

	if (len < 14 + 28 || (ip[0] >> 4) != 4 || ip[9] != 1 ||
	    memcmp(ip + 16, ifc->c.ip4, 4) != 0)
		return PG_L3_OTHER;
	hl = (ip[0] & 15u) * 4;
	tl = l3_get16(ip + 2);
	if (hl < 20 || tl < hl + 8 || 14 + tl > len || 14 + tl > room ||
	    (l3_get16(ip + 6) & 0x3fff) != 0 || ip[hl] != 8 || ip[hl + 1] != 0)
		return PG_L3_OTHER;
	if (lr_net_cksum_buf(ip, hl) != 0xffff ||
	    lr_net_cksum_buf(ip + hl, tl - hl) != 0xffff)
		return PG_L3_OTHER;
	n = 14 + tl;
	memcpy(out, in, n);
	if (n < 60) {
		memset(out + n, 0, 60 - n);
		n = 60;
	}
	eth_hdr(out, in + 6, ifc->mac, 0x0800);
	oip = out + 14;
	memcpy(oip + 12, ip + 16, 4);
	memcpy(oip + 16, ip + 12, 4);
	oip[8] = 64;
	l3_put16(oip + 10, 0);
	put_cksum(oip + 10, lr_net_ipv4_cksum(oip, hl));
	icmp = oip + hl;
	icmp[0] = 0;
	l3_put16(icmp + 2, 0);
	put_cksum(icmp + 2, (uint16_t)~lr_net_cksum_buf(icmp, tl - hl));
	*out_len = n;
	return PG_L3_ECHO;
}

/* The link-layer address option of type in the n bytes of options o, or
 * NULL; *bad set when the options are malformed (a zero length). */
static const uint8_t *
nd_opt(const uint8_t *o, unsigned n, uint8_t type, bool *bad)
{
	const uint8_t *found = NULL;

	*bad = false;
	for (unsigned i = 0; i + 2 <= n;) {
		unsigned ol = o[i + 1] * 8u;

		if (ol == 0 || i + ol > n) {
			*bad = true;
			return NULL;
		}
		if (o[i] == type && ol >= 8 && found == NULL)
			found = o + i + 2;
		i += ol;
	}
	return found;
}

static enum pg_l3_kind
ns_in(const struct pg_l3_if *ifc, const uint8_t *in, unsigned pl, uint8_t *out,
      unsigned *out_len, struct pg_l3_learned *l)
{
	static const uint8_t all_nodes[16] = {0xff, 0x02, [15] = 1};
	static const uint8_t all_nodes_mac[6] = {0x33, 0x33, 0, 0, 0, 1};
	const uint8_t *ip = in + 14, *m = in + 54, *slla;
	bool bad, dad = all_zero(ip + 8, 16);

	slla = nd_opt(m + 24, pl - 24, 1, &bad);
	if (bad || (dad && slla))
		return PG_L3_OTHER;
	if (!dad && slla)
		learn(l, true, ip + 8, slla);
	if (memcmp(m + 8, ifc->c.ip6, 16) != 0)
		return l->valid ? PG_L3_LEARN : PG_L3_OTHER;
	/* To the solicitor (solicited, override), or to all nodes when it
	 * checks the address is free (RFC 4861 7.2.4). */
	if (dad)
		*out_len = nd_build(out, all_nodes_mac, ifc->mac, ifc->c.ip6,
				    all_nodes, 136, 0x20, ifc->c.ip6, 2);
	else
		*out_len =
		    nd_build(out, slla ? slla : in + 6, ifc->mac, ifc->c.ip6,
			     ip + 8, 136, 0x60, ifc->c.ip6, 2);
	return PG_L3_NS;
}

static enum pg_l3_kind
ip6_in(const struct pg_l3_if *ifc, const uint8_t *in, unsigned len,
       uint8_t *out, unsigned room, unsigned *out_len, struct pg_l3_learned *l)
{
	const uint8_t *ip = in + 14, *m = in + 54, *tlla;
	unsigned pl, n;
	uint8_t *oip, *om;
	bool bad;

	if (len < 54 + 8 || (ip[0] >> 4) != 6 || ip[6] != 58)
		return PG_L3_OTHER;
	pl = l3_get16(ip + 4);
	if (pl < 8 || 54 + pl > len || icmp6_sum(ip, m, pl) != 0xffff ||
	    m[1] != 0)
		return PG_L3_OTHER;
	switch (m[0]) {
	case 128:
		n = 54 + pl;
		if (n > room || memcmp(ip + 24, ifc->c.ip6, 16) != 0)
			return PG_L3_OTHER;
		memcpy(out, in, n);
		eth_hdr(out, in + 6, ifc->mac, 0x86dd);
		oip = out + 14;
		om = out + 54;
		memcpy(oip + 8, ip + 24, 16);
		memcpy(oip + 24, ip + 8, 16);
		oip[7] = 64;
		om[0] = 129;
		l3_put16(om + 2, 0);
		put_cksum(om + 2, (uint16_t)~icmp6_sum(oip, om, pl));
		*out_len = n;
		return PG_L3_ECHO6;
	case 135:
		if (ip[7] != 255 || pl < 24)
			return PG_L3_OTHER;
		return ns_in(ifc, in, pl, out, out_len, l);
	case 136:
		if (ip[7] != 255 || pl < 24)
			return PG_L3_OTHER;
		tlla = nd_opt(m + 24, pl - 24, 2, &bad);
		if (bad)
			return PG_L3_OTHER;
		learn(l, true, m + 8, tlla ? tlla : in + 6);
		return l->valid ? PG_L3_LEARN : PG_L3_OTHER;
	default:
		return PG_L3_OTHER;
	}
}

enum pg_l3_kind
pg_l3_classify(const struct pg_l3_if *ifc, const uint8_t *in, unsigned len,
	       uint8_t *out, unsigned room, unsigned *out_len,
	       struct pg_l3_learned *learned)
{
	unsigned type;

	learned->valid = false;
	*out_len = 0;
	if (len < 14 || room < PG_L3_MIN_ROOM)
		return PG_L3_OTHER;
	type = l3_get16(in + 12);
	if (type == 0x0806)
		return arp_in(ifc, in, len, out, out_len, learned);
	if (type == 0x0800 && ifc->c.has4)
		return ip4_in(ifc, in, len, out, room, out_len);
	if (type == 0x86dd && ifc->c.has6)
		return ip6_in(ifc, in, len, out, room, out_len, learned);
	return PG_L3_OTHER;
}
