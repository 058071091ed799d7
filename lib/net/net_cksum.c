/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internet checksums (RFC 1071) over buffers and mbuf chains, and their
 * completion in software: virtio-net partial checksums and checksums from
 * scratch given the headers. Sums are of 16-bit words as read from memory
 * (host order), so no byte swap is needed on either endianness; a piece
 * that starts at an odd offset of the summed range has its folded sum
 * byte-swapped before it is added.
 */
#include <errno.h>
#include <string.h>

#include "lr_net.h"

/* Sum of len bytes as host-order 16-bit words, 4 bytes per add; a last odd
 * byte counts as the first byte of a zero-padded word. */
static uint64_t
sum_words(const uint8_t *p, uint32_t len)
{
	uint64_t sum = 0;
	uint32_t w;
	uint16_t h;

	while (len >= 4) {
		memcpy(&w, p, 4);
		sum += w;
		p += 4;
		len -= 4;
	}
	if (len >= 2) {
		memcpy(&h, p, 2);
		sum += h;
		p += 2;
		len -= 2;
	}
	if (len) {
		h = 0;
		memcpy(&h, p, 1);
		sum += h;
	}
	return sum;
}

static inline uint16_t
swap16(uint16_t v)
{
	return (uint16_t)(v << 8 | v >> 8);
}

uint16_t
lr_net_cksum_buf(const void *buf, uint32_t len)
{
	return lr_net_cksum_fold(sum_words(buf, len));
}

int
lr_net_cksum_range(const struct lr_mbuf *m, uint32_t off, uint32_t len,
		   uint16_t *sum)
{
	uint64_t acc = 0;
	uint32_t done = 0;

	if ((uint64_t)off + len > m->pkt_len)
		return -EINVAL;
	for (; m != NULL && done < len; m = m->next) {
		if (off >= m->data_len) {
			off -= m->data_len;
			continue;
		}
		uint32_t k = LR_MIN(len - done, (uint32_t)m->data_len - off);
		uint16_t s = lr_net_cksum_fold(sum_words(
		    lr_pktmbuf_mtod_offset(m, const uint8_t *, off), k));

		acc += (done & 1) ? swap16(s) : s;
		done += k;
		off = 0;
	}
	if (done != len)
		return -EINVAL; /* chain shorter than pkt_len says */
	*sum = lr_net_cksum_fold(acc);
	return 0;
}

uint16_t
lr_net_ipv4_cksum(const void *hdr, uint32_t hdr_len)
{
	return (uint16_t)~lr_net_cksum_buf(hdr, hdr_len);
}

/* Host-order value v as the word its network-order bytes read as. */
static inline uint16_t
net16(uint16_t v)
{
	uint8_t b[2] = {(uint8_t)(v >> 8), (uint8_t)v};
	uint16_t w;

	memcpy(&w, b, 2);
	return w;
}

uint16_t
lr_net_pseudo_sum(const void *ip_hdr, uint8_t proto, uint32_t l4_len)
{
	const uint8_t *ip = ip_hdr;
	uint64_t sum;

	if ((ip[0] >> 4) == 4)
		sum = sum_words(ip + 12, 8);
	else
		sum = sum_words(ip + 8, 32);
	sum += net16((uint16_t)(l4_len >> 16)) + net16((uint16_t)l4_len);
	sum += net16(proto);
	return lr_net_cksum_fold(sum);
}

/* Write the 2 bytes of v (as in memory) at offset off of packet m, which
 * may cross a segment boundary; the caller checked off + 2 <= pkt_len. */
static void
put16(struct lr_mbuf *m, uint32_t off, uint16_t v)
{
	uint8_t b[2];
	unsigned i = 0;

	memcpy(b, &v, 2);
	for (; m != NULL && i < 2; m = m->next) {
		while (i < 2 && off < m->data_len)
			*lr_pktmbuf_mtod_offset(m, uint8_t *, off++) = b[i++];
		off -= m->data_len;
	}
}

int
lr_net_cksum_complete(struct lr_mbuf *m, uint32_t csum_start,
		      uint32_t csum_offset)
{
	uint16_t sum, c;
	int ret;

	if ((uint64_t)csum_start + csum_offset + 2 > m->pkt_len)
		return -EINVAL;
	ret = lr_net_cksum_range(m, csum_start, m->pkt_len - csum_start, &sum);
	if (ret < 0)
		return ret;
	/* An all-zero result is sent as 0xffff (the same in ones'
	 * complement), as UDP requires: 0 there means "no checksum". */
	c = (uint16_t)~sum;
	put16(m, csum_start + csum_offset, c ? c : 0xffff);
	return 0;
}

int
lr_net_cksum_partial_mark(struct lr_mbuf *m)
{
	struct lr_net_hdrs h;
	uint8_t ipbuf[40], fbuf[2];
	const uint8_t *ip, *f;
	uint32_t l4_off, field;
	uint16_t v;

	if (lr_net_parse(m, &h) != 0)
		return 0;
	l4_off = (uint32_t)h.l2_len + h.l3_len;
	field = l4_off + (h.l4_proto == LR_NET_PROTO_TCP ? 16 : 6);
	if (h.l3_end < field + 2 || h.l3_end > m->pkt_len)
		return 0;
	f = lr_pktmbuf_read(m, field, 2, fbuf);
	ip = lr_pktmbuf_read(m, h.l2_len, h.ip_version == 4 ? 20 : 40, ipbuf);
	if (f == NULL || ip == NULL)
		return 0;
	memcpy(&v, f, 2);
	if (v == 0 || /* UDP over IPv4 without checksum */
	    v != lr_net_pseudo_sum(ip, h.l4_proto, h.l3_end - l4_off))
		return 0;
	m->ol_flags |= LR_MBUF_F_RX_L4_CKSUM_PARTIAL;
	m->csum_start = (uint16_t)l4_off;
	m->csum_offset = (uint16_t)(field - l4_off);
	return 1;
}

int
lr_net_l4_cksum_set(struct lr_mbuf *m, const struct lr_net_hdrs *h)
{
	uint8_t ipbuf[40];
	const uint8_t *ip;
	uint32_t l4_off = (uint32_t)h->l2_len + h->l3_len, l4_bytes, field;
	uint16_t sum, c;
	uint64_t acc;
	int ret;

	if (h->l4_proto == LR_NET_PROTO_TCP)
		field = l4_off + 16;
	else if (h->l4_proto == LR_NET_PROTO_UDP)
		field = l4_off + 6;
	else
		return -EPROTONOSUPPORT;
	if (h->l3_end < field + 2 || h->l3_end > m->pkt_len)
		return -EINVAL;
	ip = lr_pktmbuf_read(m, h->l2_len, h->ip_version == 4 ? 20 : 40, ipbuf);
	if (ip == NULL)
		return -EINVAL;
	l4_bytes = h->l3_end - l4_off;
	put16(m, field, 0);
	ret = lr_net_cksum_range(m, l4_off, l4_bytes, &sum);
	if (ret < 0)
		return ret;
	acc = (uint64_t)sum + lr_net_pseudo_sum(ip, h->l4_proto, l4_bytes);
	c = (uint16_t)~lr_net_cksum_fold(acc);
	if (c == 0 && h->l4_proto == LR_NET_PROTO_UDP)
		c = 0xffff;
	put16(m, field, c);
	return 0;
}

/* The IPv4 header checksum of frame m at l2_len, l3_len bytes long. */
static int
ipv4_cksum_set(struct lr_mbuf *m, uint32_t l2_len, uint32_t l3_len)
{
	uint8_t buf[60];
	const uint8_t *p;

	if (l3_len < 20 || l3_len > 60)
		return -EINVAL;
	p = lr_pktmbuf_read(m, l2_len, l3_len, buf);
	if (p == NULL)
		return -EINVAL;
	if (p != buf)
		memcpy(buf, p, l3_len);
	if ((buf[0] >> 4) != 4)
		return -EINVAL;
	memset(buf + 10, 0, 2);
	put16(m, l2_len + 10, lr_net_ipv4_cksum(buf, l3_len));
	return 0;
}

/* Whether m has an IPv4 header of l3_len bytes at l2_len. */
static int
ipv4_hdr_ok(const struct lr_mbuf *m)
{
	uint8_t b;
	const uint8_t *p = lr_pktmbuf_read(m, m->l2_len, 1, &b);

	return m->l3_len >= 20 && m->l3_len <= 60 &&
	       (uint32_t)m->l2_len + m->l3_len <= m->pkt_len && p != NULL &&
	       *p == (0x40 | m->l3_len / 4);
}

/* Headers for LR_MBUF_F_TX_TCP_CKSUM / _UDP_CKSUM: parsed, then checked
 * against what m's l2_len, l3_len and flags say. */
static int
hdrs_from_lengths(const struct lr_mbuf *m, struct lr_net_hdrs *h)
{
	uint8_t want = (m->ol_flags & LR_MBUF_F_TX_TCP_CKSUM)
			   ? LR_NET_PROTO_TCP
			   : LR_NET_PROTO_UDP;
	int ret = lr_net_parse(m, h);

	if (ret < 0)
		return ret;
	if (h->l2_len != m->l2_len || h->l3_len != m->l3_len ||
	    h->l4_proto != want)
		return -EINVAL;
	return 0;
}

int
lr_net_cksum_offload(struct lr_mbuf *m)
{
	uint64_t fl = m->ol_flags;
	struct lr_net_hdrs h;
	int ret;

	/* Everything that can fail is checked before the packet changes. */
	if ((fl & (LR_MBUF_F_TX_TCP_CKSUM | LR_MBUF_F_TX_UDP_CKSUM)) &&
	    !(fl & (LR_MBUF_F_RX_L4_CKSUM_PARTIAL | LR_MBUF_F_TX_L4_CKSUM))) {
		ret = hdrs_from_lengths(m, &h);
		if (ret < 0)
			return ret;
	}
	if ((fl & LR_MBUF_F_TX_IP_CKSUM) && !ipv4_hdr_ok(m))
		return -EINVAL;
	if ((fl & (LR_MBUF_F_RX_L4_CKSUM_PARTIAL | LR_MBUF_F_TX_L4_CKSUM)) &&
	    (uint32_t)m->csum_start + m->csum_offset + 2 > m->pkt_len)
		return -EINVAL;
	/* The IPv4 header first: a partial checksum's field may lie in it
	 * (bad input), and nothing may fail once the frame has changed. */
	ret = 0;
	if (fl & LR_MBUF_F_TX_IP_CKSUM)
		ret = ipv4_cksum_set(m, m->l2_len, m->l3_len);
	if (ret < 0)
		return ret;
	if (fl & (LR_MBUF_F_RX_L4_CKSUM_PARTIAL | LR_MBUF_F_TX_L4_CKSUM))
		ret = lr_net_cksum_complete(m, m->csum_start, m->csum_offset);
	else if (fl & (LR_MBUF_F_TX_TCP_CKSUM | LR_MBUF_F_TX_UDP_CKSUM))
		ret = lr_net_l4_cksum_set(m, &h);
	if (ret < 0)
		return ret;
	m->ol_flags = fl & ~(LR_MBUF_F_L4_CKSUM_MASK | LR_MBUF_F_TX_IP_CKSUM);
	return 0;
}
