/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stream.c - frame templates (built once per stream), the per-field
 * generators that vary them, checksums, and pcap files: replay input
 * (--pcap, through libpcap) and capture output (--capture, written here).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <unistd.h>

#ifdef PG_HAVE_PCAP
#include <pcap/pcap.h>
#endif

#include "lr_net.h"
#include "pktgen.h"

/* 7 x 64, 4 x 570, 1 x 1518, spread so that no size bunches up. */
const uint16_t pg_imix_sizes[PG_IMIX_SLOTS] = {
    64, 570, 64, 64, 570, 64, 1518, 64, 570, 64, 64, 570,
};

/* Header bytes of a definition: Ethernet, tags, IP, transport. */
unsigned
pg_sdef_hdr_len(const struct pg_sdef *d)
{
	return 14 + 4 * d->ntags + (d->ipv6 ? 40 : 20) +
	       (d->l4 == PG_L4_TCP ? 20 : 8);
}

unsigned
pg_sdef_max_len(const struct pg_sdef *d)
{
	unsigned m = 0;

	if (d->slots == NULL)
		return (unsigned)d->size.hi - PG_FCS;
	for (unsigned i = 0; i < d->nslots; i++)
		m = LR_MAX(m, (unsigned)d->slots[i]);
	return m - PG_FCS;
}

void
pg_sdef_defaults(struct pg_sdef *d)
{
	memset(d, 0, sizeof(*d));
	for (int f = 0; f < PG_FV_COUNT; f++)
		d->v[f].step = 1;
	d->v[PG_FV_DST_MAC].lo = d->v[PG_FV_DST_MAC].hi = 0x020000000002ULL;
	d->v[PG_FV_SRC_IP].lo = d->v[PG_FV_SRC_IP].hi = 0x0a000001;
	d->v[PG_FV_DST_IP].lo = d->v[PG_FV_DST_IP].hi = 0x0a000002;
	d->v[PG_FV_SRC_PORT].lo = d->v[PG_FV_SRC_PORT].hi = 1234;
	d->v[PG_FV_DST_PORT].lo = d->v[PG_FV_DST_PORT].hi = 5678;
	d->ttl = 64;
	d->tcp_flags = 0x10; /* ACK */
	d->icmp_type = 8;    /* echo request (128 over IPv6) */
	d->size.lo = d->size.hi = 64;
	d->size.step = 1;
	d->share = 1;
}

/* IPv6 defaults fd00::1 -> fd00::2 where no address was given. */
static void
ipv6_defaults(struct pg_sdef *d)
{
	for (int i = 0; i < 2; i++) {
		struct pg_val *v = &d->v[PG_FV_SRC_IP + i];

		if (v->set)
			continue;
		d->hi6[i] = 0xfd00000000000000ULL;
		v->lo = v->hi = 1 + (uint64_t)i;
	}
}

int
pg_sdef_check(struct pg_sdef *d, const char *what)
{
	unsigned need = pg_sdef_hdr_len(d) + PG_PAYLOAD_LEN + PG_FCS;
	unsigned lo = d->slots ? 65535 : (unsigned)d->size.lo;

	if (d->ipv6)
		ipv6_defaults(d);
	if (d->icmp_type == 8 && d->ipv6 && d->l4 == PG_L4_ICMP)
		d->icmp_type = 128;
	for (unsigned i = 0; d->slots && i < d->nslots; i++)
		lo = LR_MIN(lo, (unsigned)d->slots[i]);
	/* An unset size fits the headers. */
	if (!d->size.set && d->slots == NULL && lo < need) {
		d->size.lo = d->size.hi = need;
		lo = need;
	}
	if (lo < need) {
		fprintf(stderr,
			"lr-pktgen: %s: stream '%s': frames of %u bytes "
			"cannot hold its headers and stamp: at least %u bytes "
			"(FCS included)\n",
			what, d->name, lo, need);
		return -1;
	}
	if (d->l4 == PG_L4_ICMP &&
	    d->v[PG_FV_DST_PORT].lo != d->v[PG_FV_DST_PORT].hi) {
		fprintf(stderr,
			"lr-pktgen: %s: stream '%s': ICMP has no destination "
			"port to vary\n",
			what, d->name);
		return -1;
	}
	return 0;
}

void
pg_sdef_fini(struct pg_sdef *d)
{
	free(d->slots);
	d->slots = NULL;
	d->nslots = 0;
}

static void
put_be(uint8_t *p, uint64_t v, unsigned width)
{
	for (unsigned i = 0; i < width; i++)
		p[i] = (uint8_t)(v >> (8 * (width - 1 - i)));
}

/* Where a field sits in a frame of definition d (l3, l4: header offsets):
 * offset, width and the bits kept around the value. */
static void
field_place(const struct pg_sdef *d, int f, unsigned l3, unsigned l4,
	    struct pg_fgen *g)
{
	g->keep = 0;
	switch (f) {
	case PG_FV_SRC_MAC:
		g->off = 6, g->width = 6;
		break;
	case PG_FV_DST_MAC:
		g->off = 0, g->width = 6;
		break;
	case PG_FV_VLAN:
		g->off = 14, g->width = 2;
		g->keep = d->tci[0] & 0xf000u;
		break;
	case PG_FV_SRC_IP:
		g->off = (uint16_t)(d->ipv6 ? l3 + 16 : l3 + 12);
		g->width = d->ipv6 ? 8 : 4;
		break;
	case PG_FV_DST_IP:
		g->off = (uint16_t)(d->ipv6 ? l3 + 32 : l3 + 16);
		g->width = d->ipv6 ? 8 : 4;
		break;
	case PG_FV_SRC_PORT:
		g->off = (uint16_t)(d->l4 == PG_L4_ICMP ? l4 + 4 : l4);
		g->width = 2;
		break;
	default:
		g->off = (uint16_t)(l4 + 2);
		g->width = 2;
		break;
	}
}

/* Store host-order v as 2 big-endian bytes at p. */
static inline void
be16_at(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* lr_net_ipv4_cksum() of a 20-byte header (every generated one), inline:
 * five 4-byte adds and lib/net's fold, where the call summed in a loop
 * (about 67 instructions a frame, a quarter of a 16-stream profile's). */
static inline uint16_t
ipv4_cksum20(const uint8_t *h)
{
	uint32_t w[5];

	memcpy(w, h, sizeof(w));
	return (uint16_t)~lr_net_cksum_fold((uint64_t)w[0] + w[1] + w[2] +
					    w[3] + w[4]);
}

/* The L4 checksum field of the frame of len bytes (pseudo header included
 * where the protocol has one; the field zero), as stored: lib/net's sums
 * are in memory order. */
static uint16_t
l4_cksum(const struct pg_txq *q, const uint8_t *d, unsigned len)
{
	unsigned l4len = len - q->l4_off;
	uint64_t s = lr_net_cksum_buf(d + q->l4_off, l4len);
	uint8_t proto = q->l4 == PG_L4_UDP   ? 17
			: q->l4 == PG_L4_TCP ? 6
			: q->ipv6	     ? 58
					     : 1;

	if (proto != 1)
		s += lr_net_pseudo_sum(d + q->l3_off, proto, l4len);
	return (uint16_t)~lr_net_cksum_fold(s);
}

void
pg_stream_fix(struct pg_txq *q, uint8_t *d, unsigned len)
{
	unsigned l3 = q->l3_off, l4 = q->l4_off, at;
	uint16_t ck = 0;

	if (q->ipv6) {
		be16_at(d + l3 + 4, len - l3 - 40);
	} else {
		be16_at(d + l3 + 2, len - l3);
		memcpy(d + l3 + 10, &ck, 2);
		ck = ipv4_cksum20(d + l3);
		memcpy(d + l3 + 10, &ck, 2);
	}
	if (q->l4 == PG_L4_UDP)
		be16_at(d + l4 + 4, len - l4);
	if (!q->l4_cksum)
		return;
	at = l4 + (q->l4 == PG_L4_UDP ? 6 : q->l4 == PG_L4_TCP ? 16 : 2);
	ck = 0;
	memcpy(d + at, &ck, 2);
	ck = l4_cksum(q, d, len);
	if (ck == 0 && q->l4 == PG_L4_UDP)
		ck = 0xffff; /* 0 means "none" in UDP */
	memcpy(d + at, &ck, 2);
}

/* Ones' complement of the 16-bit word at p, as a number. */
static inline uint64_t
not16(const uint8_t *p)
{
	return (uint64_t)(uint16_t)~(p[0] << 8 | p[1]);
}

/* PG_K_FIELDS: the checksum base from template d (whose checksum is set)
 * and the addresses that vary. */
static void
fields_base(struct pg_txq *q, const uint8_t *d)
{
	unsigned l3 = q->l3_off;

	q->ck_base = not16(d + l3 + 10);
	for (unsigned i = 0; i < q->nfgen; i++) {
		struct pg_fgen *g = &q->fgen[i];

		g->in_ip = g->off >= l3 && g->off < l3 + 20;
		if (g->in_ip)
			q->ck_base += not16(d + g->off) + not16(d + g->off + 2);
	}
}

void
pg_stream_tmpl_fix(struct pg_txq *q)
{
	static uint64_t gens; /* control thread only */
	struct pg_tmpl *t = q->own_tmpl;

	pg_stream_fix(q, t->data, t->len);
	if (q->kind == PG_K_FIELDS)
		fields_base(q, t->data);
	t->gen = ++gens;
}

/* The Ethernet header and VLAN tags of definition sd into d (the source
 * port_mac unless sd sets one); the offset of the IP header. */
static unsigned
put_eth(uint8_t *d, const struct pg_sdef *sd, uint64_t port_mac)
{
	unsigned off;

	put_be(d + 0, sd->v[PG_FV_DST_MAC].lo, 6);
	put_be(d + 6,
	       sd->v[PG_FV_SRC_MAC].set ? sd->v[PG_FV_SRC_MAC].lo : port_mac,
	       6);
	off = 12;
	for (unsigned i = 0; i < sd->ntags; i++) {
		put_be(d + off, sd->tpid[i], 2);
		put_be(d + off + 2,
		       i == 0 ? (sd->tci[0] & 0xf000u) |
				    (sd->v[PG_FV_VLAN].lo & 0xfff)
			      : sd->tci[i],
		       2);
		off += 4;
	}
	put_be(d + off, sd->ipv6 ? 0x86dd : 0x0800, 2);
	return off + 2;
}

/* The IPv4 or IPv6 header of sd at d + l3 (lengths and checksum left to
 * pg_stream_fix()); the offset of the transport header. */
static unsigned
put_ip(uint8_t *d, unsigned l3, const struct pg_sdef *sd)
{
	if (sd->ipv6) {
		put_be(d + l3, 0x60000000u | (uint32_t)sd->tos << 20, 4);
		d[l3 + 6] = sd->l4 == PG_L4_UDP	  ? 17
			    : sd->l4 == PG_L4_TCP ? 6
						  : 58;
		d[l3 + 7] = sd->ttl;
		put_be(d + l3 + 8, sd->hi6[0], 8);
		put_be(d + l3 + 16, sd->v[PG_FV_SRC_IP].lo, 8);
		put_be(d + l3 + 24, sd->hi6[1], 8);
		put_be(d + l3 + 32, sd->v[PG_FV_DST_IP].lo, 8);
		return l3 + 40;
	}
	d[l3] = 0x45;
	d[l3 + 1] = sd->tos;
	put_be(d + l3 + 6, 0x4000, 2); /* DF */
	d[l3 + 8] = sd->ttl;
	d[l3 + 9] = sd->l4 == PG_L4_UDP ? 17 : sd->l4 == PG_L4_TCP ? 6 : 1;
	put_be(d + l3 + 12, sd->v[PG_FV_SRC_IP].lo, 4);
	put_be(d + l3 + 16, sd->v[PG_FV_DST_IP].lo, 4);
	return l3 + 20;
}

/* The UDP, TCP or ICMP header of sd at d + l4 (length and checksum left
 * to pg_stream_fix()). */
static void
put_l4(uint8_t *d, unsigned l4, const struct pg_sdef *sd)
{
	if (sd->l4 == PG_L4_ICMP) {
		d[l4] = sd->icmp_type;
		d[l4 + 1] = sd->icmp_code;
		put_be(d + l4 + 4, sd->v[PG_FV_SRC_PORT].lo, 2); /* id */
		return;
	}
	put_be(d + l4, sd->v[PG_FV_SRC_PORT].lo, 2);
	put_be(d + l4 + 2, sd->v[PG_FV_DST_PORT].lo, 2);
	if (sd->l4 == PG_L4_TCP) {
		put_be(d + l4 + 4, 1, 4); /* seq */
		d[l4 + 12] = 5 << 4;
		d[l4 + 13] = sd->tcp_flags;
		put_be(d + l4 + 14, 65535, 2);
	}
}

/* The field engine of q: a generator for every field of sd that varies
 * (the outer VLAN id only when there is a tag). */
static void
fields_init(struct pg_txq *q, const struct pg_sdef *sd, unsigned l3,
	    unsigned l4)
{
	q->nfgen = 0;
	for (int f = 0; f < PG_FV_COUNT; f++) {
		const struct pg_val *v = &sd->v[f];
		struct pg_fgen *g;

		if (v->lo == v->hi)
			continue;
		if (f == PG_FV_VLAN && sd->ntags == 0)
			continue;
		g = &q->fgen[q->nfgen++];
		field_place(sd, f, l3, l4, g);
		g->mode = v->mode;
		g->lo = v->lo;
		g->step = v->step;
		g->span = (v->hi - v->lo) / v->step + 1;
		g->cur = 0;
		g->first = g->keep | (g->mode == PG_V_DEC
					  ? g->lo + (g->span - 1) * g->step
					  : g->lo);
		g->dstep = g->mode == PG_V_DEC ? -g->step : g->step;
		g->val = g->first;
	}
}

/* q's sizes (a range or a table of sd), and how it builds its frames. */
static void
sizes_init(struct pg_txq *q, const struct pg_sdef *sd, uint64_t seed)
{
	memset(&q->sgen, 0, sizeof(q->sgen));
	q->slots = sd->slots;
	q->vary_size = sd->slots != NULL || sd->size.lo != sd->size.hi;
	q->sgen.mode = sd->size.mode;
	q->sgen.lo = sd->size.lo;
	q->sgen.step = sd->size.step;
	q->sgen.span = sd->slots
			   ? sd->nslots
			   : (sd->size.hi - sd->size.lo) / sd->size.step + 1;
	q->kind = q->nfgen == 0 && !q->vary_size && !q->l4_cksum ? PG_K_FAST
								 : PG_K_GENERAL;
	q->rnd = (seed * 0x9e3779b97f4a7c15ULL + q->stream) | 1;
	if (q->nfgen && !q->vary_size && !q->l4_cksum && !q->ipv6)
		q->kind = PG_K_FIELDS;
}

/* The length (without FCS) of sd's first frame: the first size of its
 * table or range (the last one of a falling range). */
static unsigned
first_len(const struct pg_sdef *sd)
{
	unsigned len =
	    (sd->slots ? sd->slots[0] : (unsigned)sd->size.lo) - PG_FCS;

	if (sd->size.mode == PG_V_DEC && sd->slots == NULL)
		len = (unsigned)(sd->size.lo + (sd->size.hi - sd->size.lo) /
						   sd->size.step *
						   sd->size.step) -
		      PG_FCS;
	return len;
}

int
pg_stream_init(struct pg_txq *q, const struct pg_sdef *sd, uint64_t port_mac,
	       uint64_t seed, uint32_t run_id)
{
	unsigned max_len = pg_sdef_max_len(sd), off, l3, l4;
	struct pg_tmpl *t;
	uint8_t *d;

	t = calloc(1, sizeof(*t));
	if (t == NULL)
		return -1;
	/* 64 bytes of slack: the fast path copies 64 bytes at least. */
	d = calloc(1, max_len + 64);
	if (d == NULL) {
		free(t);
		return -1;
	}
	l3 = put_eth(d, sd, port_mac);
	l4 = put_ip(d, l3, sd);
	put_l4(d, l4, sd);
	off = pg_sdef_hdr_len(sd);
	/* Stamp, then the pattern. */
	put_be(d + off + PG_ST_RUN, run_id, 4);
	put_be(d + off + PG_ST_STREAM, q->stream, 2);
	for (unsigned i = off + PG_PAYLOAD_LEN; i < max_len; i++)
		d[i] = sd->patlen
			   ? sd->pat[(i - off - PG_PAYLOAD_LEN) % sd->patlen]
			   : (uint8_t)i;

	t->data = d;
	t->len = first_len(sd);
	t->stamped = true;
	t->stamp_off = (uint16_t)off;
	q->tmpl = t;
	q->own_tmpl = t;
	q->ntmpl = 1;
	q->tmpl_idx = 0;
	q->l3_off = (uint16_t)l3;
	q->l4_off = (uint16_t)l4;
	q->l4 = sd->l4;
	q->ipv6 = sd->ipv6;
	/* UDP over IPv4 may go without; IPv6 and the others may not. */
	q->l4_cksum = sd->l4 != PG_L4_UDP || sd->ipv6 || sd->udp_cksum;
	fields_init(q, sd, l3, l4);
	sizes_init(q, sd, seed);
	pg_stream_tmpl_fix(q);
	return 0;
}

void
pg_stream_unstamp(struct pg_txq *q, const struct pg_sdef *sd)
{
	struct pg_tmpl *t = q->own_tmpl;
	unsigned off = t->stamp_off;

	for (unsigned i = off; i < off + PG_PAYLOAD_LEN; i++)
		t->data[i] =
		    sd->patlen ? sd->pat[(i - off) % sd->patlen] : (uint8_t)i;
	t->stamped = false;
	if (q->kind == PG_K_FAST)
		q->kind = PG_K_PLAIN;
	pg_stream_tmpl_fix(q);
}

void
pg_stream_fini(struct pg_txq *q)
{
	if (q->own_tmpl != NULL) {
		free(q->own_tmpl->data);
		free(q->own_tmpl);
		q->own_tmpl = NULL;
	}
}

#ifdef PG_HAVE_PCAP

int
pg_have_pcap(void)
{
	return 1;
}

static uint64_t
get_be(const uint8_t *p, unsigned width)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < width; i++)
		v = v << 8 | p[i];
	return v;
}

/* The IP protocol (next header) of frame d, which pg_stamp_offset()
 * accepted. */
static unsigned
l4_proto(const uint8_t *d)
{
	unsigned off = 12;

	while (get_be(d + off, 2) == 0x8100 || get_be(d + off, 2) == 0x88a8)
		off += 4;
	return get_be(d + off, 2) == 0x0800 ? d[off + 2 + 9] : d[off + 2 + 6];
}

/* A UDP frame of ours captured earlier (of any run: its stamp's check
 * value holds): replay it with fresh stamps and no UDP checksum. The
 * stamp's offset, or 0 (other frames, TCP and ICMP ones of ours too,
 * are replayed as they are). */
static uint32_t
stamped_at(const uint8_t *d, unsigned len)
{
	uint32_t off = pg_stamp_offset(d, len);
	const uint8_t *s = d + off;

	if (off == 0 || l4_proto(d) != 17 ||
	    get_be(s + PG_ST_CHECK, 2) !=
		pg_stamp_check((uint32_t)get_be(s + PG_ST_RUN, 4),
			       (uint16_t)get_be(s + PG_ST_STREAM, 2),
			       (uint32_t)get_be(s + PG_ST_SEQ, 4),
			       get_be(s + PG_ST_TSC, 6)))
		return 0;
	return off;
}

/* Room for one more template in *t, of *cap (doubled); 0, or -1 out of
 * memory (*t kept). */
static int
grow(struct pg_tmpl **t, unsigned *cap)
{
	unsigned n = *cap ? *cap * 2 : 64;
	struct pg_tmpl *nt = realloc(*t, n * sizeof(**t));

	if (nt == NULL)
		return -1;
	*t = nt;
	*cap = n;
	return 0;
}

/* Frame h, data (its len bytes, an Ethernet header at least) as
 * template t: padded to the shortest frame, its capture time after the
 * first frame's (*t0_us, set by frame 0, the n-th), its stamp found. 0,
 * or -1 out of memory. */
static int
pcap_frame(struct pg_tmpl *t, unsigned n, const struct pcap_pkthdr *h,
	   const u_char *data, uint64_t *t0_us)
{
	unsigned len = h->caplen;
	uint64_t us =
	    (uint64_t)h->ts.tv_sec * 1000000 + (uint64_t)h->ts.tv_usec;

	/* Short frames are padded as a port pads them on the wire. */
	t[n].len = LR_MAX(len, (unsigned)LR_ETHER_MIN_LEN);
	/* Capture times after the first frame's, never going back. */
	if (n == 0)
		*t0_us = us;
	t[n].t_us = us > *t0_us ? us - *t0_us : 0;
	if (n > 0 && t[n].t_us < t[n - 1].t_us)
		t[n].t_us = t[n - 1].t_us;
	t[n].data = calloc(1, t[n].len + 64);
	if (t[n].data == NULL)
		return -1;
	memcpy(t[n].data, data, len);
	t[n].stamp_off = (uint16_t)stamped_at(t[n].data, t[n].len);
	t[n].stamped = t[n].stamp_off != 0;
	if (t[n].stamped)
		/* Its old UDP checksum would be wrong after new stamps: send
		 * without one. */
		memset(t[n].data + t[n].stamp_off - 2, 0, 2);
	return 0;
}

/* The reading of p stopped on an error after n frames kept and skipped
 * others: a file cut short (a killed capture) keeps its whole records
 * (0, after a warning); anything else is corruption (-1, said). */
static int
pcap_cut(pcap_t *p, const char *path, unsigned n, unsigned skipped)
{
	FILE *f = pcap_file(p);

	if (f == NULL || !feof(f) || ferror(f)) {
		fprintf(stderr,
			"lr-pktgen: --pcap '%s': record %u is corrupt (%s)\n",
			path, n + skipped + 1, pcap_geterr(p));
		return -1;
	}
	fprintf(stderr,
		"lr-pktgen: --pcap '%s': warning: the last record (%u) is "
		"truncated (%s); using the %u records before it\n",
		path, n + skipped + 1, pcap_geterr(p), n + skipped);
	return 0;
}

/* Whether p holds Ethernet frames (else said). */
static bool
pcap_ethernet(pcap_t *p, const char *path)
{
	int lt = pcap_datalink(p);
	const char *name;

	if (lt == DLT_EN10MB)
		return true;
	name = pcap_datalink_val_to_name(lt);
	fprintf(stderr,
		"lr-pktgen: --pcap '%s': link type %s (%d), not Ethernet "
		"(EN10MB)\n",
		path, name ? name : "unknown", lt);
	return false;
}

int
pg_pcap_load(const char *path, struct pg_tmpl **out, unsigned max_len)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	struct pg_tmpl *t = NULL;
	unsigned n = 0, cap = 0, skipped = 0;
	uint64_t t0_us = 0;
	pcap_t *p;
	int rc;

	p = pcap_open_offline(path, err);
	if (p == NULL) {
		fprintf(stderr, "lr-pktgen: --pcap '%s': %s\n", path, err);
		return -1;
	}
	if (!pcap_ethernet(p, path))
		goto close_file;
	while ((rc = pcap_next_ex(p, &h, &data)) == 1) {
		unsigned len = h->caplen;

		if (len < LR_ETHER_HDR_LEN) {
			skipped++;
			continue;
		}
		if (len > max_len) {
			fprintf(stderr,
				"lr-pktgen: --pcap '%s': frame %u has %u "
				"bytes, more than the %u an mbuf holds\n",
				path, n + skipped + 1, len, max_len);
			goto free_frames;
		}
		if ((n == cap && grow(&t, &cap) != 0) ||
		    pcap_frame(t, n, h, data, &t0_us) != 0)
			goto no_memory;
		n++;
	}
	if (rc == -1 && pcap_cut(p, path, n, skipped) != 0)
		goto free_frames;
	if (n == 0) {
		fprintf(stderr, "lr-pktgen: --pcap '%s': no Ethernet frames\n",
			path);
		goto free_frames;
	}
	if (skipped)
		fprintf(stderr,
			"lr-pktgen: --pcap '%s': skipped %u frames shorter "
			"than an Ethernet header\n",
			path, skipped);
	pcap_close(p);
	*out = t;
	return (int)n;

no_memory:
	fprintf(stderr, "lr-pktgen: --pcap '%s': out of memory\n", path);
free_frames:
	pg_pcap_free(t, n);
close_file:
	pcap_close(p);
	return -1;
}

void
pg_pcap_free(struct pg_tmpl *t, unsigned n)
{
	if (t == NULL)
		return;
	for (unsigned i = 0; i < n; i++)
		free(t[i].data);
	free(t);
}

#else /* !PG_HAVE_PCAP */

int
pg_have_pcap(void)
{
	return 0;
}

int
pg_pcap_load(const char *path, struct pg_tmpl **out, unsigned max_len)
{
	fprintf(stderr, "lr-pktgen: --pcap '%s': built without libpcap\n",
		path);
	return -1;
}

void
pg_pcap_free(struct pg_tmpl *t, unsigned n)
{
}

#endif /* PG_HAVE_PCAP */

/* ---- capture (--capture): our own writer, so every write is checked ----
 *
 * Microsecond pcap, snap length 65535. Each call writes its records with
 * one pwritev() at the end of the last whole record; a failed or short
 * write cuts the file back to the last whole record, prints the file and
 * the error once and drops every later frame; the caller stops the run
 * and the exit status is 1. */

#define CAP_SNAPLEN 65535u
#define CAP_BATCH   256 /* records per pwritev (two iovecs each) */

static struct {
	pthread_mutex_t lock;
	const char *path;
	int fd;
	uint64_t size; /* bytes of the header and whole records */
	uint64_t lost; /* frames not written after a failure */
	bool failed;
} cap = {PTHREAD_MUTEX_INITIALIZER, NULL, -1, 0, 0, false};

/* Write iov[0..cnt-1] at off in full; 0, or -errno with *done bytes
 * written. */
static int
cap_pwritev(struct iovec *iov, int cnt, uint64_t off, uint64_t *done)
{
	*done = 0;
	while (cnt > 0) {
		ssize_t w = pwritev(cap.fd, iov, cnt, (off_t)(off + *done));

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		*done += (uint64_t)w;
		while (cnt > 0 && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			cnt--;
		}
		if (cnt > 0) {
			iov->iov_base = (uint8_t *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

/* A write failed with err after `whole` bytes of whole records. */
static void
cap_failed(int err, uint64_t whole)
{
	cap.size += whole;
	if (ftruncate(cap.fd, (off_t)cap.size) < 0)
		fprintf(stderr,
			"lr-pktgen: --capture '%s': cannot cut the file back "
			"to its last whole record (%llu bytes): %s\n",
			cap.path, (unsigned long long)cap.size,
			strerror(errno));
	fprintf(stderr,
		"lr-pktgen: --capture '%s': cannot write: %s; the file ends "
		"after its last whole record (%llu bytes); stopping\n",
		cap.path, strerror(-err), (unsigned long long)cap.size);
	cap.failed = true;
}

int
pg_capture_open(const char *path, unsigned mode)
{
	struct {
		uint32_t magic;
		uint16_t major, minor;
		int32_t thiszone;
		uint32_t sigfigs, snaplen, linktype;
	} fh = {0xa1b2c3d4u, 2, 4, 0, 0, CAP_SNAPLEN, 1 /* EN10MB */};
	struct iovec iov = {&fh, sizeof(fh)};
	struct stat st;
	uint64_t done;
	int err;

	cap.path = path;
	cap.size = 0;
	cap.lost = 0;
	cap.failed = false;
	cap.fd =
	    open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, (mode_t)mode);
	if (cap.fd < 0) {
		fprintf(stderr,
			"lr-pktgen: --capture '%s': cannot create: %s\n", path,
			strerror(errno));
		return -1;
	}
	/* An existing file keeps its mode: take away what was not asked
	 * (a regular file only). */
	if (fstat(cap.fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (st.st_mode & 07777 & ~mode) &&
	    fchmod(cap.fd, st.st_mode & 07777 & mode) < 0)
		fprintf(stderr,
			"lr-pktgen: --capture '%s': warning: mode %04o, "
			"cannot set %04o: %s\n",
			path, (unsigned)(st.st_mode & 07777),
			(unsigned)(st.st_mode & 07777 & mode), strerror(errno));
	err = cap_pwritev(&iov, 1, 0, &done);
	if (err < 0) {
		fprintf(stderr, "lr-pktgen: --capture '%s': cannot write: %s\n",
			path, strerror(-err));
		close(cap.fd);
		cap.fd = -1;
		return -1;
	}
	cap.size = sizeof(fh);
	return 0;
}

int
pg_capture_write(struct lr_mbuf **pkts, unsigned n)
{
	static struct iovec iov[2 * CAP_BATCH];
	static uint32_t hdr[CAP_BATCH][4];
	static uint64_t end[CAP_BATCH];
	struct timeval tv;

	gettimeofday(&tv, NULL);
	pthread_mutex_lock(&cap.lock);
	for (unsigned i = 0; i < n;) {
		unsigned k = LR_MIN(n - i, (unsigned)CAP_BATCH), whole = k;
		uint64_t done = 0;
		int err;

		if (cap.failed) {
			cap.lost += n - i;
			break;
		}
		for (unsigned r = 0; r < k; r++) {
			const struct lr_mbuf *m = pkts[i + r];
			uint32_t caplen =
			    LR_MIN((uint32_t)m->data_len, CAP_SNAPLEN);

			hdr[r][0] = (uint32_t)tv.tv_sec;
			hdr[r][1] = (uint32_t)tv.tv_usec;
			hdr[r][2] = caplen;
			hdr[r][3] = m->pkt_len;
			iov[2 * r].iov_base = hdr[r];
			iov[2 * r].iov_len = sizeof(hdr[r]);
			iov[2 * r + 1].iov_base = lr_pktmbuf_mtod(m, void *);
			iov[2 * r + 1].iov_len = caplen;
			end[r] = (r ? end[r - 1] : 0) + sizeof(hdr[r]) + caplen;
		}
		err = cap_pwritev(iov, (int)(2 * k), cap.size, &done);
		if (err < 0) {
			whole = 0;
			while (whole < k && end[whole] <= done)
				whole++;
			cap_failed(err, whole ? end[whole - 1] : 0);
			cap.lost += n - i - whole;
			break;
		}
		cap.size += end[k - 1];
		i += k;
	}
	pthread_mutex_unlock(&cap.lock);
	return cap.failed ? -1 : 0;
}

int
pg_capture_close(void)
{
	int ret = cap.failed ? -1 : 0;

	if (cap.fd < 0)
		return ret;
	if (cap.failed)
		fprintf(stderr,
			"lr-pktgen: --capture '%s': %llu received frames not "
			"written\n",
			cap.path, (unsigned long long)cap.lost);
	if (fsync(cap.fd) < 0 && errno != EINVAL) {
		fprintf(stderr, "lr-pktgen: --capture '%s': cannot sync: %s\n",
			cap.path, strerror(errno));
		ret = -1;
	}
	if (close(cap.fd) < 0) {
		fprintf(stderr, "lr-pktgen: --capture '%s': cannot close: %s\n",
			cap.path, strerror(errno));
		ret = -1;
	}
	cap.fd = -1;
	return ret;
}
