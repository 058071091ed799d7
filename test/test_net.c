/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/net: header parsing (VLAN tags, IPv4 options, IPv6 extension
 * headers, TCP options), checksum completion (virtio-net partial and from
 * the header lengths) for IPv4/IPv6 TCP/UDP over mbuf chains cut at odd
 * places, software segmentation of 64 KiB TCP super-frames, and frames
 * shorter than their headers claim. Every checksum is verified with a
 * byte-at-a-time reference written here, independent of the library.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lr_eal.h"
#include "lr_mbuf.h"
#include "lr_net.h"
#include "lr_test.h"
#include "lr_test_cksum.h"

#define FRAME_MAX (14 + 8 + 40 + 65535 + 64)

static struct lr_mempool *pool;
static uint8_t frame[FRAME_MAX], flat[FRAME_MAX];

/* What to build. */
struct fopt {
	int v6, udp;
	int vlans;    /* VLAN tags (the first one 802.1ad when two) */
	int ip_opts;  /* IPv4 option bytes, a multiple of 4 */
	int v6_ext;   /* IPv6 hop-by-hop header bytes, a multiple of 8 */
	int tcp_opts; /* TCP option bytes, a multiple of 4 */
	uint32_t payload;
	uint8_t tcp_flags;
	uint32_t seq;
	uint16_t ip_id;
};

/* Where it went. */
struct flay {
	uint32_t l2, l3, l4, len;
};

static void
wr16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint32_t
rd16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t
rd32(const uint8_t *p)
{
	return rd16(p) << 16 | rd16(p + 2);
}

/* Pseudo-header sum of the IP header at ip for l4_len bytes of proto. */
static uint32_t
ref_pseudo(const uint8_t *ip, uint32_t proto, uint32_t l4_len)
{
	uint32_t acc = proto + (l4_len >> 16) + (l4_len & 0xffff);

	if ((ip[0] >> 4) == 4)
		return lr_test_cksum_ref(ip + 12, 8, acc);
	return lr_test_cksum_ref(ip + 8, 32, acc);
}

/* Frame f as o says, payload bytes a function of seed; its layout in L. */
static uint32_t
build(uint8_t *f, const struct fopt *o, struct flay *L, unsigned seed)
{
	uint32_t off = 12, l4_len, i;
	uint8_t *ip, *l4;

	memset(f, 0, 64);
	for (i = 0; i < 12; i++)
		f[i] = (uint8_t)(0x10 + i);
	for (int v = 0; v < o->vlans; v++, off += 4) {
		wr16(f + off, v == 0 && o->vlans > 1 ? 0x88a8 : 0x8100);
		wr16(f + off + 2, 100 + v);
	}
	wr16(f + off, o->v6 ? 0x86dd : 0x0800);
	L->l2 = off + 2;
	ip = f + L->l2;
	l4_len = (o->udp ? 8 : 20 + o->tcp_opts) + o->payload;
	if (!o->v6) {
		L->l3 = 20 + o->ip_opts;
		memset(ip, 0, L->l3);
		ip[0] = (uint8_t)(0x40 | L->l3 / 4);
		wr16(ip + 2, L->l3 + l4_len);
		wr16(ip + 4, o->ip_id);
		wr16(ip + 6, 0x4000); /* DF */
		ip[8] = 64;
		ip[9] = o->udp ? 17 : 6;
		for (i = 0; i < 8; i++)
			ip[12 + i] = (uint8_t)(192 + i * 7);
		memset(ip + 20, 1, o->ip_opts); /* NOPs */
		wr16(ip + 10, ~lr_test_cksum_ref(ip, L->l3, 0) & 0xffff);
	} else {
		L->l3 = 40 + o->v6_ext;
		memset(ip, 0, L->l3);
		ip[0] = 0x60;
		wr16(ip + 4, o->v6_ext + l4_len);
		ip[6] = o->v6_ext ? 0 : (o->udp ? 17 : 6);
		ip[7] = 64;
		for (i = 0; i < 32; i++)
			ip[8 + i] = (uint8_t)(0xfe - i * 3);
		if (o->v6_ext) {
			ip[40] = o->udp ? 17 : 6;
			ip[41] = (uint8_t)(o->v6_ext / 8 - 1);
			ip[42] = 1; /* PadN over the rest */
			ip[43] = (uint8_t)(o->v6_ext - 4);
		}
	}
	L->l4 = o->udp ? 8 : 20 + o->tcp_opts;
	l4 = ip + L->l3;
	memset(l4, 0, L->l4);
	wr16(l4, 40000);
	wr16(l4 + 2, 5201);
	if (o->udp) {
		wr16(l4 + 4, l4_len);
	} else {
		wr16(l4 + 4, o->seq >> 16);
		wr16(l4 + 6, o->seq & 0xffff);
		l4[8] = 0x12;
		l4[12] = (uint8_t)(L->l4 / 4 << 4);
		l4[13] = o->tcp_flags;
		wr16(l4 + 14, 512);
		memset(l4 + 20, 1, o->tcp_opts);
	}
	L->len = L->l2 + L->l3 + l4_len;
	for (i = L->len - o->payload; i < L->len; i++)
		f[i] = (uint8_t)(i * 31 + seed + (i >> 8));
	return L->len;
}

/* Check the IPv4 header checksum (if any) and the L4 checksum of flat
 * frame f laid out as L (from the reference, not the library). */
static int
ref_check(const uint8_t *f, const struct flay *L, int udp)
{
	const uint8_t *ip = f + L->l2;
	uint32_t l4_len = L->len - L->l2 - L->l3;
	uint32_t s = ref_pseudo(ip, udp ? 17 : 6, l4_len);

	if ((ip[0] >> 4) == 4)
		LR_TEST_ASSERT_EQ(lr_test_cksum_ref(ip, L->l3, 0), 0xffff);
	s = lr_test_cksum_ref(f + L->l2 + L->l3, l4_len, s);
	LR_TEST_ASSERT(s == 0xffff, "L4 sum %#x", s);
	return 0;
}

/* f (len bytes) as an mbuf chain of seg-byte segments. */
static struct lr_mbuf *
load(const uint8_t *f, uint32_t len, uint32_t seg)
{
	struct lr_mbuf *head = NULL, *m;

	for (uint32_t off = 0; off < len || head == NULL; off += seg) {
		uint32_t k = LR_MIN(seg, len - off);

		m = lr_pktmbuf_alloc(pool);
		if (m == NULL)
			goto fail;
		memcpy(lr_pktmbuf_mtod(m, uint8_t *), f + off, k);
		m->data_len = (uint16_t)k;
		m->pkt_len = k;
		if (head == NULL)
			head = m;
		else if (lr_pktmbuf_chain(head, m) < 0)
			goto fail;
	}
	return head;
fail:
	fprintf(stderr, "load: no mbuf\n");
	lr_pktmbuf_free(head);
	return NULL;
}

static const uint32_t payloads[] = {0, 1, 7, 100, 1000, 1461, 8999};
static const uint32_t splits[] = {2048, 1, 7, 13, 64, 999};

/* Frame kinds: IPv4/IPv6 x TCP/UDP, then the same with VLAN tags and
 * options everywhere. */
#define KINDS 8

static void
frame_kind(struct fopt *o, int kind)
{
	o->v6 = kind & 1;
	o->udp = (kind >> 1) & 1;
	o->vlans = kind >= 4 ? 2 : 0;
	o->ip_opts = kind >= 4 ? 12 : 0;
	o->v6_ext = kind >= 4 ? 16 : 0;
	o->tcp_opts = kind >= 4 ? 12 : 0;
}

/* One frame's checksum completed by the library from mbufs cut every seg
 * bytes: partial (virtio-net) or from the header lengths. */
static int
one_cksum(const struct fopt *o, uint32_t seg, int partial)
{
	struct flay L;
	uint32_t len = build(frame, o, &L, seg), l4 = L.l2 + L.l3;
	uint32_t field = l4 + (o->udp ? 6 : 16), ps;
	struct lr_mbuf *m;

	ps = ref_pseudo(frame + L.l2, o->udp ? 17 : 6, len - l4);
	wr16(frame + field, partial ? ps : 0xbeef);
	if (!partial && !o->v6)
		wr16(frame + L.l2 + 10, 0x1234); /* wrong IPv4 checksum */
	m = load(frame, len, seg);
	LR_TEST_ASSERT(m != NULL, "load");
	if (partial) {
		m->ol_flags = LR_MBUF_F_RX_L4_CKSUM_PARTIAL;
		m->csum_start = (uint16_t)l4;
		m->csum_offset = o->udp ? 6 : 16;
	} else {
		m->ol_flags =
		    (o->udp ? LR_MBUF_F_TX_UDP_CKSUM : LR_MBUF_F_TX_TCP_CKSUM) |
		    (o->v6 ? 0 : LR_MBUF_F_TX_IP_CKSUM);
		m->l2_len = L.l2;
		m->l3_len = L.l3;
	}
	m->ol_flags |= LR_MBUF_F_RX_VLAN;
	int ret = lr_net_cksum_offload(m);
	LR_TEST_ASSERT(ret == 0, "offload: %s (v6 %d udp %d payload %u seg %u)",
		       strerror(-ret), o->v6, o->udp, o->payload, seg);
	LR_TEST_ASSERT_EQ(m->ol_flags, LR_MBUF_F_RX_VLAN);
	LR_TEST_ASSERT_EQ(lr_pktmbuf_copy_out(m, flat), len);
	lr_pktmbuf_free(m);
	if (ref_check(flat, &L, o->udp))
		return -1;
	/* Only the checksum fields changed. */
	memcpy(flat + field, frame + field, 2);
	if (!o->v6)
		memcpy(flat + L.l2 + 10, frame + L.l2 + 10, 2);
	LR_TEST_ASSERT(memcmp(flat, frame, len) == 0, "other bytes changed");
	return 0;
}

static int
cksum_all(const void *arg)
{
	const int partial = LR_TEST_INT(arg);
	struct fopt o = {0};

	for (int kind = 0; kind < KINDS; kind++) {
		frame_kind(&o, kind);
		for (unsigned p = 0; p < LR_DIM(payloads); p++) {
			o.payload = payloads[p];
			for (unsigned s = 0; s < LR_DIM(splits); s++) {
				if (splits[s] == 1 && o.payload > 1000)
					continue; /* too many segments */
				if (one_cksum(&o, splits[s], partial))
					return -1;
			}
		}
	}
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return 0;
}

/* lr_net_cksum_range() against the reference over every start and length
 * of a small odd-cut chain. */
static int
test_cksum_range(void)
{
	struct lr_mbuf *m;
	uint16_t s;

	for (uint32_t i = 0; i < 101; i++)
		frame[i] = (uint8_t)(i * 37 + 5);
	m = load(frame, 101, 7);
	LR_TEST_ASSERT(m != NULL, "load");
	for (uint32_t off = 0; off <= 101; off++)
		for (uint32_t len = 0; off + len <= 101; len++) {
			uint32_t r = lr_test_cksum_ref(frame + off, len, 0);

			LR_TEST_ASSERT_EQ(lr_net_cksum_range(m, off, len, &s),
					  0);
			/* Host-order words: compare as wire bytes. */
			uint8_t b[2];
			memcpy(b, &s, 2);
			LR_TEST_ASSERT(rd16(b) == r || (r == 0xffff && s == 0),
				       "off %u len %u: %#x vs %#x", off, len,
				       rd16(b), r);
		}
	LR_TEST_ASSERT_EQ(lr_net_cksum_range(m, 100, 2, &s), -EINVAL);
	lr_pktmbuf_free(m);
	return 0;
}

static int
test_parse(void)
{
	struct fopt o = {
	    .vlans = 2, .ip_opts = 8, .tcp_opts = 12, .payload = 10};
	struct lr_net_hdrs h;
	struct flay L;
	struct lr_mbuf *m;

	build(frame, &o, &L, 0);
	m = load(frame, L.len, 5);
	LR_TEST_ASSERT_EQ(lr_net_parse(m, &h), 0);
	LR_TEST_ASSERT_EQ(h.l2_len, 22);
	LR_TEST_ASSERT_EQ(h.l3_len, 28);
	LR_TEST_ASSERT_EQ(h.l4_len, 32);
	LR_TEST_ASSERT_EQ(h.ip_version, 4);
	LR_TEST_ASSERT_EQ(h.l4_proto, LR_NET_PROTO_TCP);
	LR_TEST_ASSERT_EQ(h.l3_end, L.len);
	lr_pktmbuf_free(m);

	o = (struct fopt){.v6 = 1, .udp = 1, .v6_ext = 24, .payload = 3};
	build(frame, &o, &L, 0);
	m = load(frame, L.len, 2048);
	LR_TEST_ASSERT_EQ(lr_net_parse(m, &h), 0);
	LR_TEST_ASSERT_EQ(h.l2_len, 14);
	LR_TEST_ASSERT_EQ(h.l3_len, 64);
	LR_TEST_ASSERT_EQ(h.l4_len, 8);
	LR_TEST_ASSERT_EQ(h.ip_version, 6);
	LR_TEST_ASSERT_EQ(h.l4_proto, LR_NET_PROTO_UDP);
	/* Ethernet padding after the IPv6 payload is not part of it. */
	lr_pktmbuf_free(m);
	memset(frame + L.len, 0, 20);
	m = load(frame, L.len + 20, 2048);
	LR_TEST_ASSERT_EQ(lr_net_parse(m, &h), 0);
	LR_TEST_ASSERT_EQ(h.l3_end, L.len);
	lr_pktmbuf_free(m);

	/* ARP, an IPv4 fragment, ICMP: not ours. */
	wr16(frame + 12, 0x0806);
	m = load(frame, 60, 2048);
	LR_TEST_ASSERT_EQ(lr_net_parse(m, &h), -EPROTONOSUPPORT);
	lr_pktmbuf_free(m);
	o = (struct fopt){.payload = 20};
	build(frame, &o, &L, 0);
	wr16(frame + 14 + 6, 0x2000); /* MF */
	m = load(frame, L.len, 2048);
	LR_TEST_ASSERT_EQ(lr_net_parse(m, &h), -EPROTONOSUPPORT);
	lr_pktmbuf_free(m);
	build(frame, &o, &L, 0);
	frame[14 + 9] = 1;
	m = load(frame, L.len, 2048);
	LR_TEST_ASSERT_EQ(lr_net_parse(m, &h), -EPROTONOSUPPORT);
	LR_TEST_ASSERT_EQ(h.l3_len, 20);
	lr_pktmbuf_free(m);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return 0;
}

/* Every prefix of a frame shorter than its headers, and headers whose
 * lengths lie: -EINVAL from the parser, the checksum and segmentation
 * calls, and the packet left as it was. */
static int
truncated_one(uint32_t cut, const struct flay *L)
{
	struct lr_mbuf *m = load(frame, cut, 3), *out[4];
	struct lr_net_hdrs h;
	int ret;

	LR_TEST_ASSERT(m != NULL, "load");
	ret = lr_net_parse(m, &h);
	LR_TEST_ASSERT(ret == -EINVAL, "cut %u: parse %d", cut, ret);
	m->ol_flags = LR_MBUF_F_TX_TCP_CKSUM | LR_MBUF_F_TX_IP_CKSUM;
	m->l2_len = L->l2;
	m->l3_len = L->l3;
	LR_TEST_ASSERT_EQ(lr_net_cksum_offload(m), -EINVAL);
	m->ol_flags = LR_MBUF_F_RX_L4_CKSUM_PARTIAL;
	m->csum_start = (uint16_t)(L->l2 + L->l3);
	m->csum_offset = 16;
	if (cut < L->l2 + L->l3 + 18)
		LR_TEST_ASSERT_EQ(lr_net_cksum_offload(m), -EINVAL);
	m->tso_segsz = 100;
	LR_TEST_ASSERT_EQ(lr_net_tso_segment(m, pool, out, 4), -EINVAL);
	LR_TEST_ASSERT_EQ(lr_pktmbuf_copy_out(m, flat), cut);
	LR_TEST_ASSERT(memcmp(flat, frame, cut) == 0, "cut %u changed", cut);
	lr_pktmbuf_free(m);
	return 0;
}

static int
test_truncated(void)
{
	struct fopt o = {
	    .vlans = 1, .ip_opts = 4, .tcp_opts = 8, .payload = 100};
	struct lr_net_hdrs h;
	struct lr_mbuf *m;
	struct flay L;

	build(frame, &o, &L, 0);
	/* Every cut short of the full frame: IPv4 total length lies. */
	for (uint32_t cut = 0; cut < L.len; cut++)
		if (truncated_one(cut, &L))
			return -1;
	o.v6 = 1;
	o.v6_ext = 8;
	build(frame, &o, &L, 0);
	for (uint32_t cut = 0; cut < L.len; cut += 5)
		if (truncated_one(cut, &L))
			return -1;
	/* IHL 15 in a frame with 20 bytes of IPv4 header and nothing more;
	 * a TCP data offset of 4; an IPv6 payload length past the end. */
	o = (struct fopt){0};
	build(frame, &o, &L, 0);
	frame[14] = 0x4f;
	m = load(frame, 34, 2048);
	LR_TEST_ASSERT_EQ(lr_net_parse(m, &h), -EINVAL);
	lr_pktmbuf_free(m);
	build(frame, &o, &L, 0);
	frame[14 + 20 + 12] = 0x40;
	m = load(frame, L.len, 2048);
	LR_TEST_ASSERT_EQ(lr_net_parse(m, &h), -EINVAL);
	lr_pktmbuf_free(m);
	o.v6 = 1;
	o.payload = 50;
	build(frame, &o, &L, 0);
	wr16(frame + 14 + 4, 20 + 51);
	m = load(frame, L.len, 2048);
	LR_TEST_ASSERT_EQ(lr_net_parse(m, &h), -EINVAL);
	lr_pktmbuf_free(m);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return 0;
}

/* The frames of one segmented super-frame against the original. */
static int
check_segments(struct lr_mbuf **out, int n, const struct fopt *o,
	       const struct flay *L, uint16_t mss)
{
	uint32_t hdr = L->l2 + L->l3 + L->l4, payload = L->len - hdr;
	uint32_t pos = 0;

	LR_TEST_ASSERT_EQ(n, (payload + mss - 1) / mss);
	for (int i = 0; i < n; i++, pos += mss) {
		uint32_t seg = LR_MIN(payload - pos, (uint32_t)mss);
		const uint8_t *ip = flat + L->l2, *tcp = ip + L->l3;
		struct flay sl = *L;
		uint8_t want = o->tcp_flags;

		sl.len = hdr + seg;
		LR_TEST_ASSERT_EQ(out[i]->pkt_len, sl.len);
		LR_TEST_ASSERT_EQ(lr_mbuf_validate(out[i]), 0);
		LR_TEST_ASSERT_EQ(out[i]->ol_flags, 0);
		LR_TEST_ASSERT_EQ(out[i]->l4_len, L->l4);
		lr_pktmbuf_copy_out(out[i], flat);
		if (ref_check(flat, &sl, 0))
			return -1;
		if (!o->v6) {
			LR_TEST_ASSERT_EQ(rd16(ip + 2), sl.len - L->l2);
			LR_TEST_ASSERT_EQ(rd16(ip + 4),
					  (uint16_t)(o->ip_id + i));
		} else {
			LR_TEST_ASSERT_EQ(rd16(ip + 4), sl.len - L->l2 - 40);
		}
		LR_TEST_ASSERT_EQ(rd32(tcp + 4), (uint32_t)(o->seq + pos));
		if (i + 1 < n)
			want &= (uint8_t) ~(LR_TCP_FIN | LR_TCP_PSH);
		if (i > 0)
			want &= (uint8_t)~LR_TCP_CWR;
		LR_TEST_ASSERT(tcp[13] == want,
			       "segment %d flags %#x, want %#x", i, tcp[13],
			       want);
		/* Addresses, ports, options and payload as in the original. */
		LR_TEST_ASSERT(memcmp(flat, frame, L->l2) == 0, "L2");
		LR_TEST_ASSERT(memcmp(tcp + 20, frame + L->l2 + L->l3 + 20,
				      L->l4 - 20) == 0,
			       "TCP options");
		LR_TEST_ASSERT(memcmp(flat + hdr, frame + hdr + pos, seg) == 0,
			       "segment %d payload", i);
	}
	return 0;
}

static int
tso_one(const struct fopt *o, uint16_t mss, uint32_t split,
	struct lr_mempool *out_pool)
{
	static struct lr_mbuf *out[128];
	struct flay L;
	struct lr_mbuf *m;
	int n, bad;

	build(frame, o, &L, mss);
	m = load(frame, L.len, split);
	LR_TEST_ASSERT(m != NULL, "load");
	m->tso_segsz = mss;
	m->ol_flags = LR_MBUF_F_TX_TCP_SEG;
	n = lr_net_tso_segment(m, out_pool, out, LR_DIM(out));
	LR_TEST_ASSERT(n > 0, "segment: %s (v6 %d len %u mss %u)", strerror(-n),
		       o->v6, L.len, mss);
	bad = check_segments(out, n, o, &L, mss);
	for (int i = 0; i < n; i++)
		lr_pktmbuf_free(out[i]);
	lr_pktmbuf_free(m);
	return bad;
}

static int
test_tso_64k(void)
{
	struct fopt o = {.tcp_opts = 12,
			 .tcp_flags = LR_TCP_ACK | LR_TCP_PSH | LR_TCP_FIN |
				      LR_TCP_CWR | LR_TCP_ECE,
			 .seq = 0xffffff00u,
			 .ip_id = 0xfff0};
	struct lr_mempool *small;

	/* The largest IPv4 and IPv6 frames, cut at odd places. */
	o.payload = 65535 - 20 - 32;
	if (tso_one(&o, 1448, 1999, pool))
		return -1;
	o.v6 = 1;
	o.payload = 65535 - 32;
	if (tso_one(&o, 1440, 2048, pool))
		return -1;
	/* VLAN, IPv4 options, an odd MSS and a short last segment. */
	o = (struct fopt){.vlans = 1,
			  .ip_opts = 20,
			  .tcp_opts = 4,
			  .payload = 10001,
			  .tcp_flags = LR_TCP_ACK,
			  .seq = 7,
			  .ip_id = 3};
	if (tso_one(&o, 999, 777, pool))
		return -1;
	/* IPv6 with an extension header; a payload shorter than one MSS. */
	o = (struct fopt){.v6 = 1,
			  .v6_ext = 8,
			  .payload = 500,
			  .tcp_flags = LR_TCP_ACK | LR_TCP_FIN};
	if (tso_one(&o, 1448, 100, pool))
		return -1;
	/* Output buffers smaller than a frame: chained output. */
	small =
	    lr_pktmbuf_pool_create("net_small", 2048, 0, 0,
				   LR_PKTMBUF_HEADROOM + 256, LR_SOCKET_ID_ANY);
	LR_TEST_ASSERT(small != NULL, "pool");
	o = (struct fopt){.tcp_opts = 12,
			  .payload = 30000,
			  .tcp_flags = LR_TCP_ACK | LR_TCP_PSH};
	int bad = tso_one(&o, 1448, 1000, small);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(small), 0);
	lr_mempool_free(small);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return bad;
}

/* Bad requests: too small an array, no MSS, UDP, an empty pool. */
static int
test_tso_errors(void)
{
	struct fopt o = {.payload = 5000};
	struct lr_mbuf *m, *out[8];
	struct lr_mempool *tiny;
	struct flay L;

	build(frame, &o, &L, 0);
	m = load(frame, L.len, 2048);
	m->tso_segsz = 1000;
	LR_TEST_ASSERT_EQ(lr_net_tso_segment(m, pool, out, 4), -E2BIG);
	m->tso_segsz = 0;
	LR_TEST_ASSERT_EQ(lr_net_tso_segment(m, pool, out, 8), -EINVAL);
	m->tso_segsz = 1000;
	tiny = lr_pktmbuf_pool_create(
	    "net_tiny", 3, 0, 0, LR_MBUF_DEFAULT_BUF_SIZE, LR_SOCKET_ID_ANY);
	LR_TEST_ASSERT(tiny != NULL, "pool");
	LR_TEST_ASSERT_EQ(lr_net_tso_segment(m, tiny, out, 8), -ENOBUFS);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(tiny), 0);
	lr_mempool_free(tiny);
	lr_pktmbuf_free(m);
	o.udp = 1;
	build(frame, &o, &L, 0);
	m = load(frame, L.len, 2048);
	m->tso_segsz = 1000;
	LR_TEST_ASSERT_EQ(lr_net_tso_segment(m, pool, out, 8),
			  -EPROTONOSUPPORT);
	lr_pktmbuf_free(m);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return 0;
}

/* lr_net_vnet_rx(): a partial checksum (shifted), a TCP super-frame with
 * its lengths, UDP GSO refused with m unchanged. lr_net_vnet_tx(): the
 * header back from the flags, checksums from the lengths done first, a
 * super-frame without a partial checksum to be segmented, bad csum_start. */
static int
test_vnet(void)
{
	struct fopt o = {.vlans = 1, .ip_opts = 4, .tcp_opts = 12,
			 .payload = 30000};
	struct lr_net_vnet_hdr vh = {0}, tx;
	struct lr_mbuf *m;
	struct flay L;

	LR_TEST_ASSERT_EQ(sizeof(vh), 10);
	build(frame, &o, &L, 3);
	m = load(frame, L.len, 2048);
	LR_TEST_ASSERT(m != NULL, "load");
	vh.flags = LR_NET_VNET_F_NEEDS_CSUM;
	vh.gso_type = LR_NET_VNET_GSO_TCPV4 | LR_NET_VNET_GSO_ECN;
	vh.gso_size = 1448;
	vh.csum_start = (uint16_t)(L.l2 + L.l3 - 4);
	vh.csum_offset = 16;
	LR_TEST_ASSERT_EQ(lr_net_vnet_rx(m, &vh, 4), 0);
	LR_TEST_ASSERT_EQ(m->ol_flags, LR_MBUF_F_RX_L4_CKSUM_PARTIAL |
					   LR_MBUF_F_RX_GSO_TCP);
	LR_TEST_ASSERT_EQ(m->csum_start, L.l2 + L.l3);
	LR_TEST_ASSERT_EQ(m->csum_offset, 16);
	LR_TEST_ASSERT_EQ(m->tso_segsz, 1448);
	LR_TEST_ASSERT(m->l2_len == L.l2 && m->l3_len == L.l3 &&
			   m->l4_len == L.l4,
		       "lengths %u %u %u", (unsigned)m->l2_len,
		       (unsigned)m->l3_len, (unsigned)m->l4_len);
	/* And back: the same header (no ECN: the flag is not kept). */
	LR_TEST_ASSERT_EQ(lr_net_vnet_tx(m, &tx), 0);
	LR_TEST_ASSERT(tx.flags == LR_NET_VNET_F_NEEDS_CSUM &&
			   tx.gso_type == LR_NET_VNET_GSO_TCPV4 &&
			   tx.gso_size == 1448 &&
			   tx.hdr_len == L.l2 + L.l3 + L.l4 &&
			   tx.csum_start == L.l2 + L.l3 && tx.csum_offset == 16,
		       "tx header %u %u %u %u %u %u", tx.flags, tx.gso_type,
		       tx.gso_size, tx.hdr_len, tx.csum_start, tx.csum_offset);
	/* Without the partial checksum the kernel cannot take it whole. */
	m->ol_flags = LR_MBUF_F_RX_GSO_TCP;
	LR_TEST_ASSERT_EQ(lr_net_vnet_tx(m, &tx), LR_NET_VNET_TX_SEGMENT);
	/* A partial checksum whose field lies past the end. */
	m->ol_flags = LR_MBUF_F_TX_L4_CKSUM;
	m->csum_start = (uint16_t)(L.len - 10);
	LR_TEST_ASSERT_EQ(lr_net_vnet_tx(m, &tx), -EINVAL);
	/* UDP GSO: refused, nothing changed. */
	m->ol_flags = 0;
	vh.gso_type = LR_NET_VNET_GSO_UDP;
	LR_TEST_ASSERT_EQ(lr_net_vnet_rx(m, &vh, 0), -EPROTONOSUPPORT);
	LR_TEST_ASSERT_EQ(m->ol_flags, 0);
	vh.gso_type = LR_NET_VNET_GSO_TCPV6; /* but the frame is IPv4 TCP */
	vh.gso_size = 0;
	LR_TEST_ASSERT_EQ(lr_net_vnet_rx(m, &vh, 0), -EPROTONOSUPPORT);
	lr_pktmbuf_free(m);

	/* Checksums from the header lengths: done here, header all zero. */
	o = (struct fopt){.udp = 1, .payload = 333};
	build(frame, &o, &L, 9);
	memset(frame + L.l2 + 10, 0, 2);
	memset(frame + L.l2 + L.l3 + 6, 0, 2);
	m = load(frame, L.len, 100);
	LR_TEST_ASSERT(m != NULL, "load");
	m->ol_flags = LR_MBUF_F_TX_IP_CKSUM | LR_MBUF_F_TX_UDP_CKSUM;
	m->l2_len = L.l2;
	m->l3_len = L.l3;
	LR_TEST_ASSERT_EQ(lr_net_vnet_tx(m, &tx), 0);
	LR_TEST_ASSERT(tx.flags == 0 && tx.gso_type == 0 && tx.csum_start == 0,
		       "header not zero");
	LR_TEST_ASSERT_EQ(m->ol_flags, 0);
	lr_pktmbuf_copy_out(m, flat);
	if (ref_check(flat, &L, 1))
		return -1;
	lr_pktmbuf_free(m);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return 0;
}

/* lr_net_cksum_partial_mark() on frame f of layout L (cut every seg
 * bytes): whether it marks it; when it does, the checksum completed by
 * lr_net_cksum_offload() checks out by the reference. */
static int
mark_one(const struct flay *L, int udp, uint32_t seg, int *marked)
{
	struct lr_mbuf *m = load(frame, L->len, seg);

	LR_TEST_ASSERT(m != NULL, "load");
	m->ol_flags = LR_MBUF_F_RX_VLAN;
	*marked = lr_net_cksum_partial_mark(m);
	if (*marked) {
		LR_TEST_ASSERT_EQ(m->ol_flags, LR_MBUF_F_RX_VLAN |
						   LR_MBUF_F_RX_L4_CKSUM_PARTIAL);
		LR_TEST_ASSERT_EQ(m->csum_start, L->l2 + L->l3);
		LR_TEST_ASSERT_EQ(m->csum_offset, udp ? 6 : 16);
		LR_TEST_ASSERT_EQ(lr_net_cksum_offload(m), 0);
		LR_TEST_ASSERT_EQ(lr_pktmbuf_copy_out(m, flat), L->len);
		if (ref_check(flat, L, udp)) {
			lr_pktmbuf_free(m);
			return -1;
		}
	} else {
		LR_TEST_ASSERT_EQ(m->ol_flags, LR_MBUF_F_RX_VLAN);
		LR_TEST_ASSERT_EQ(lr_pktmbuf_copy_out(m, flat), L->len);
		LR_TEST_ASSERT(memcmp(flat, frame, L->len) == 0, "changed");
	}
	lr_pktmbuf_free(m);
	return 0;
}

/* Partial checksums found in frames nothing says it of (AF_XDP): IPv4 and
 * IPv6, TCP and UDP, with VLAN tags and options, any segmentation, are
 * marked and complete right; complete checksums are not marked, nor a
 * UDP frame without checksum, a truncated frame or one that is not IP;
 * a complete checksum that happens to equal the pseudo-header sum is
 * marked and completed to the same value. */
static int
test_cksum_partial_mark(void)
{
	struct fopt o = {0};
	int marked;

	for (int kind = 0; kind < KINDS; kind++) {
		frame_kind(&o, kind);
		for (unsigned p = 0; p < LR_DIM(payloads) - 1; p++) {
			struct flay L;
			uint32_t len, l4, field, ps, seg = splits[p % 4];

			o.payload = payloads[p];
			len = build(frame, &o, &L, p);
			l4 = L.l2 + L.l3;
			field = l4 + (o.udp ? 6 : 16);
			ps = ref_pseudo(frame + L.l2, o.udp ? 17 : 6, len - l4);
			/* partial: marked, completed right */
			wr16(frame + field, ps);
			if (mark_one(&L, o.udp, seg, &marked))
				return -1;
			LR_TEST_ASSERT(marked, "partial kind %d payload %u "
					       "not marked", kind, o.payload);
			/* complete: left alone */
			wr16(frame + field, 0);
			wr16(frame + field,
			     ~lr_test_cksum_ref(frame + l4, len - l4, ps) &
				 0xffff);
			if (ref_check(frame, &L, o.udp) ||
			    mark_one(&L, o.udp, seg, &marked))
				return -1;
			LR_TEST_ASSERT(!marked, "complete kind %d payload %u "
						"marked", kind, o.payload);
			/* truncated inside the L4 header: left alone */
			wr16(frame + field, ps);
			L.len = l4 + 4;
			if (mark_one(&L, o.udp, seg, &marked))
				return -1;
			LR_TEST_ASSERT(!marked, "truncated frame marked");
		}
	}
	/* UDP over IPv4 without checksum (0), not IP (ARP). */
	o = (struct fopt){.udp = 1, .payload = 50};
	struct flay L;

	build(frame, &o, &L, 1);
	wr16(frame + L.l2 + L.l3 + 6, 0);
	if (mark_one(&L, 1, 2048, &marked))
		return -1;
	LR_TEST_ASSERT(!marked, "UDP without checksum marked");
	wr16(frame + 12, 0x0806);
	if (mark_one(&L, 1, 2048, &marked))
		return -1;
	LR_TEST_ASSERT(!marked, "ARP frame marked");

	/* A complete TCP checksum equal to the pseudo-header sum: two payload
	 * bytes chosen so (x + w = target in ones' complement, w = target +
	 * ~x). Marked, and completed to the same, right, value. */
	o = (struct fopt){.payload = 64};
	build(frame, &o, &L, 5);
	uint32_t l4 = L.l2 + L.l3, field = l4 + 16, w, ps, x;

	ps = ref_pseudo(frame + L.l2, 6, L.len - l4);
	wr16(frame + field, 0);
	wr16(frame + L.len - 2, 0);
	/* sum of pseudo-header and segment (w and the field 0) must be ~ps
	 * for the checksum, ~sum, to equal ps */
	x = lr_test_cksum_ref(frame + l4, L.len - l4, ps);
	w = lr_test_cksum_ref(
	    (const uint8_t[]){(uint8_t)(~ps >> 8), (uint8_t)~ps,
			      (uint8_t)(~x >> 8), (uint8_t)~x},
	    4, 0);
	wr16(frame + L.len - 2, w);
	wr16(frame + field, ps);
	if (ref_check(frame, &L, 0) || mark_one(&L, 0, 2048, &marked))
		return -1;
	LR_TEST_ASSERT(marked, "the coincidence not marked");
	LR_TEST_ASSERT(memcmp(flat, frame, L.len) == 0,
		       "a good frame changed by its completion");
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return 0;
}

static const struct lr_test_case cases[] = {
    {"cksum_range", test_cksum_range},
    {"cksum_partial", NULL, cksum_all, LR_TEST_ARG(1)},
    {"cksum_lengths", NULL, cksum_all, LR_TEST_ARG(0)},
    {"cksum_partial_mark", test_cksum_partial_mark},
    {"parse", test_parse},
    {"truncated", test_truncated},
    {"tso_64k", test_tso_64k},
    {"tso_errors", test_tso_errors},
    {"vnet", test_vnet},
};

int
main(int argc, char **argv)
{
	if (lr_test_eal_init("test_net", 256) < 0)
		return 1;
	pool = lr_pktmbuf_pool_create(
	    "net", 8192, 0, 0, LR_MBUF_DEFAULT_BUF_SIZE, LR_SOCKET_ID_ANY);
	if (pool == NULL) {
		fprintf(stderr, "pool: %s\n", lr_strerror(lr_errno));
		return 1;
	}
	int rc = lr_test_run("net", cases, (int)LR_DIM(cases), argc, argv);

	lr_mempool_free(pool);
	lr_eal_cleanup();
	return rc;
}
