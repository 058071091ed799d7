/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_net: lib/net's parsers and software offloads on any frame. The
 * input is a 6-byte control block then the frame: byte 0 the segment size
 * the frame is cut into (0: one segment, else 1..255 bytes), byte 1 which
 * offload flags to ask for, bytes 2-3 csum_start (low 9 bits) and
 * csum_offset (high 7 bits), bytes 4-5 the TSO segment size (big-endian).
 * Checked: lr_net_parse() finds headers inside the frame and IP lengths
 * that fit it; lr_net_cksum_offload() succeeds or leaves the frame and its
 * flags as they were; lr_net_tso_segment() makes frames whose headers parse
 * again and whose lengths add up; a virtio-net header made of the same
 * control bytes (lr_net_vnet_rx(): byte 1's bit 0 NEEDS_CSUM, bits 1-2
 * the GSO type none/TCPv4/UDP/TCPv6, bit 7 ECN) is taken or refused with
 * the mbuf as it was, and lr_net_vnet_tx() gives back a header that fits
 * the frame; lr_net_cksum_partial_mark() marks only frames that parse, at
 * their L4 checksum field, and changes no byte; every mbuf goes back to
 * the pool.
 */
#include <errno.h>
#include <string.h>

#include "fuzz_common.h"
#include "lr_net.h"

#define SEGS_MAX 64

static struct lr_mempool *pool;
static uint8_t before[1 << 16], after[1 << 16];

/* The frame as an mbuf chain of seg-byte segments (0: one). */
static struct lr_mbuf *
load(const uint8_t *f, uint32_t len, uint32_t seg)
{
	struct lr_mbuf *head = NULL, *m;
	uint32_t off = 0;

	/* At most 512 segments: the pool holds 2048 mbufs. */
	if (seg == 0 || len / seg >= 512)
		seg = 2048;
	do {
		uint32_t k = LR_MIN(seg, len - off);

		m = lr_pktmbuf_alloc(pool);
		FUZZ_CHECK(m != NULL);
		memcpy(lr_pktmbuf_mtod(m, uint8_t *), f + off, k);
		m->data_len = (uint16_t)k;
		m->pkt_len = k;
		if (head == NULL)
			head = m;
		else
			FUZZ_CHECK(lr_pktmbuf_chain(head, m) == 0);
		off += k;
	} while (off < len);
	return head;
}

static void
check_parse(const struct lr_mbuf *m)
{
	struct lr_net_hdrs h;
	int ret = lr_net_parse(m, &h);

	FUZZ_CHECK(ret == 0 || ret == -EINVAL || ret == -EPROTONOSUPPORT);
	if (ret != 0)
		return;
	FUZZ_CHECK(h.ip_version == 4 || h.ip_version == 6);
	FUZZ_CHECK(h.l4_proto == LR_NET_PROTO_TCP ||
		   h.l4_proto == LR_NET_PROTO_UDP);
	FUZZ_CHECK((uint32_t)h.l2_len + h.l3_len + h.l4_len <= h.l3_end);
	FUZZ_CHECK(h.l3_end <= m->pkt_len);
}

static void
check_cksum(struct lr_mbuf *m, uint8_t ask, uint16_t where)
{
	static const uint64_t flags[] = {
	    LR_MBUF_F_RX_L4_CKSUM_PARTIAL, LR_MBUF_F_TX_L4_CKSUM,
	    LR_MBUF_F_TX_TCP_CKSUM,	   LR_MBUF_F_TX_UDP_CKSUM,
	    LR_MBUF_F_TX_IP_CKSUM,
	};
	uint64_t fl = 0;
	int ret;

	for (unsigned i = 0; i < LR_DIM(flags); i++)
		if (ask & (1u << i))
			fl |= flags[i];
	m->ol_flags = fl;
	m->csum_start = where & 0x1ff;
	m->csum_offset = where >> 9;
	m->l2_len = 14 + 4 * ((ask >> 5) & 1);
	m->l3_len = (ask & 0x40) ? 40 : 20;
	lr_pktmbuf_copy_out(m, before);
	ret = lr_net_cksum_offload(m);
	FUZZ_CHECK(ret == 0 || ret == -EINVAL || ret == -EPROTONOSUPPORT);
	lr_pktmbuf_copy_out(m, after);
	if (ret != 0) {
		FUZZ_CHECK(m->ol_flags == fl);
		FUZZ_CHECK(memcmp(before, after, m->pkt_len) == 0);
	} else {
		FUZZ_CHECK(!(m->ol_flags & LR_MBUF_F_L4_CKSUM_MASK));
	}
}

/* lr_net_cksum_partial_mark(): marks only a frame that parses, with
 * csum_start/csum_offset on its L4 checksum field; data untouched. */
static void
check_partial_mark(struct lr_mbuf *m)
{
	struct lr_net_hdrs h;
	int ret;

	m->ol_flags = 0;
	lr_pktmbuf_copy_out(m, before);
	ret = lr_net_cksum_partial_mark(m);
	FUZZ_CHECK(ret == 0 || ret == 1);
	lr_pktmbuf_copy_out(m, after);
	FUZZ_CHECK(memcmp(before, after, m->pkt_len) == 0);
	if (ret == 0) {
		FUZZ_CHECK(m->ol_flags == 0);
		return;
	}
	FUZZ_CHECK(m->ol_flags == LR_MBUF_F_RX_L4_CKSUM_PARTIAL);
	FUZZ_CHECK(lr_net_parse(m, &h) == 0);
	FUZZ_CHECK(m->csum_start == h.l2_len + h.l3_len);
	FUZZ_CHECK(m->csum_offset ==
		   (h.l4_proto == LR_NET_PROTO_TCP ? 16 : 6));
	FUZZ_CHECK((uint32_t)m->csum_start + m->csum_offset + 2 <= h.l3_end);
	m->ol_flags = 0;
}

static void
check_tso(const struct lr_mbuf *m)
{
	struct lr_mbuf *out[SEGS_MAX];
	struct lr_net_hdrs h, s;
	uint32_t payload = 0;
	int n = lr_net_tso_segment(m, pool, out, SEGS_MAX);

	FUZZ_CHECK(n != 0);
	if (n < 0)
		return;
	FUZZ_CHECK(lr_net_parse(m, &h) == 0);
	for (int i = 0; i < n; i++) {
		uint32_t hdr;

		FUZZ_CHECK(lr_net_parse(out[i], &s) == 0);
		hdr = (uint32_t)s.l2_len + s.l3_len + s.l4_len;
		FUZZ_CHECK(s.l3_end == out[i]->pkt_len);
		FUZZ_CHECK(out[i]->pkt_len - hdr <= m->tso_segsz);
		payload += out[i]->pkt_len - hdr;
		FUZZ_CHECK(lr_mbuf_validate(out[i]) == 0);
		lr_pktmbuf_free(out[i]);
	}
	FUZZ_CHECK(payload ==
		   h.l3_end - ((uint32_t)h.l2_len + h.l3_len + h.l4_len));
}

static void
check_vnet(struct lr_mbuf *m, uint8_t ask, uint16_t where)
{
	static const uint8_t gso[] = {
	    LR_NET_VNET_GSO_NONE, LR_NET_VNET_GSO_TCPV4, LR_NET_VNET_GSO_UDP,
	    LR_NET_VNET_GSO_TCPV6};
	struct lr_net_vnet_hdr vh = {
	    .flags = ask & 1,
	    .gso_type = (uint8_t)(gso[(ask >> 1) & 3] | (ask & 0x80)),
	    .gso_size = (uint16_t)m->tso_segsz,
	    .csum_start = where & 0x1ff,
	    .csum_offset = where >> 9,
	};
	struct lr_net_vnet_hdr tx;
	struct lr_net_hdrs h;
	int ret;

	m->ol_flags = 0;
	ret = lr_net_vnet_rx(m, &vh, 0);
	FUZZ_CHECK(ret == 0 || ret == -EPROTONOSUPPORT);
	if (ret != 0) {
		FUZZ_CHECK(m->ol_flags == 0);
		return;
	}
	FUZZ_CHECK(!!(m->ol_flags & LR_MBUF_F_RX_L4_CKSUM_PARTIAL) ==
		   (vh.flags & 1));
	if (m->ol_flags & LR_MBUF_F_RX_GSO_TCP) {
		FUZZ_CHECK(lr_net_parse(m, &h) == 0 &&
			   h.l4_proto == LR_NET_PROTO_TCP);
		FUZZ_CHECK(m->l2_len == h.l2_len && m->l3_len == h.l3_len &&
			   m->l4_len == h.l4_len && m->tso_segsz != 0);
	}
	/* Back to a header: the offloads as they came, nothing done here
	 * (no checksum from the lengths was asked), the frame unchanged. */
	lr_pktmbuf_copy_out(m, before);
	ret = lr_net_vnet_tx(m, &tx);
	/* A super-frame without a partial checksum is segmented here. */
	FUZZ_CHECK(ret == 0 || ret == -EINVAL ||
		   (ret == LR_NET_VNET_TX_SEGMENT &&
		    (m->ol_flags & LR_MBUF_F_RX_GSO_TCP) &&
		    !(m->ol_flags & LR_MBUF_F_RX_L4_CKSUM_PARTIAL)));
	lr_pktmbuf_copy_out(m, after);
	FUZZ_CHECK(memcmp(before, after, m->pkt_len) == 0);
	if (ret != 0)
		return;
	if (tx.flags & LR_NET_VNET_F_NEEDS_CSUM)
		FUZZ_CHECK((uint32_t)tx.csum_start + tx.csum_offset + 2 <=
			   m->pkt_len);
	if (tx.gso_type != LR_NET_VNET_GSO_NONE)
		FUZZ_CHECK(tx.hdr_len <= m->pkt_len && tx.gso_size != 0 &&
			   (tx.flags & LR_NET_VNET_F_NEEDS_CSUM));
	m->ol_flags = 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lr_mbuf *m;

	if (pool == NULL)
		pool = fuzz_eal_up("fuzz_net");
	if (size < 6 || size - 6 > 65535 + 64)
		return 0;
	m = load(data + 6, (uint32_t)(size - 6), data[0]);
	check_parse(m);
	check_partial_mark(m);
	m->tso_segsz = (uint16_t)(data[4] << 8 | data[5]);
	check_tso(m);
	check_vnet(m, data[1], (uint16_t)(data[2] | data[3] << 8));
	check_cksum(m, data[1], (uint16_t)(data[2] | data[3] << 8));
	check_parse(m);
	lr_pktmbuf_free(m);
	fuzz_check_pool(pool);
	return 0;
}
