/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Software segmentation of TCP super-frames (what a NIC's TSO or the
 * kernel's GSO does): every output frame is a new mbuf chain holding a
 * copy of the super-frame's headers, patched for its place in the stream,
 * and its share of the payload; its IPv4 and TCP checksums are computed
 * from scratch. Cost: one copy of every byte, one checksum pass over each
 * output frame's TCP segment.
 */
#include <errno.h>
#include <string.h>

#include "lr_net.h"

static inline uint32_t
get_be(const uint8_t *p, unsigned n)
{
	uint32_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static inline void
put_be(uint8_t *p, unsigned n, uint32_t v)
{
	for (unsigned i = n; i-- > 0; v >>= 8)
		p[i] = (uint8_t)v;
}

/* Append len bytes at offset off of packet src to packet dst. */
static int
append_range(struct lr_mbuf *dst, struct lr_mempool *mp,
	     const struct lr_mbuf *src, uint32_t off, uint32_t len)
{
	for (; src != NULL && len > 0; src = src->next) {
		if (off >= src->data_len) {
			off -= src->data_len;
			continue;
		}
		uint32_t k = LR_MIN(len, (uint32_t)src->data_len - off);
		int ret = lr_pktmbuf_append_copy(
		    dst, mp, lr_pktmbuf_mtod_offset(src, const char *, off), k);

		if (ret < 0)
			return ret;
		len -= k;
		off = 0;
	}
	return len ? -EINVAL : 0;
}

/* Headers hdr (a copy of the super-frame's) patched for frame i of nseg,
 * carrying seg_len payload bytes from payload offset pos. */
static void
patch_headers(uint8_t *hdr, const struct lr_net_hdrs *h, uint32_t i,
	      uint32_t nseg, uint32_t pos, uint32_t seg_len)
{
	uint8_t *ip = hdr + h->l2_len, *tcp = ip + h->l3_len;
	uint8_t flags = tcp[13];
	uint16_t c;

	if (h->ip_version == 4) {
		put_be(ip + 2, 2, h->l3_len + h->l4_len + seg_len);
		put_be(ip + 4, 2, get_be(ip + 4, 2) + i);
		memset(ip + 10, 0, 2);
		c = lr_net_ipv4_cksum(ip, h->l3_len);
		memcpy(ip + 10, &c, 2);
	} else {
		put_be(ip + 4, 2, h->l3_len - 40u + h->l4_len + seg_len);
	}
	put_be(tcp + 4, 4, get_be(tcp + 4, 4) + pos);
	if (i + 1 < nseg)
		flags &= (uint8_t) ~(LR_TCP_FIN | LR_TCP_PSH);
	if (i > 0)
		flags &= (uint8_t)~LR_TCP_CWR;
	tcp[13] = flags;
}

/* Frame i of nseg of super-frame m into *out: new mbufs from mp. */
static int
make_segment(const struct lr_mbuf *m, struct lr_mempool *mp,
	     const struct lr_net_hdrs *h, const uint8_t *tmpl, uint32_t i,
	     uint32_t nseg, struct lr_mbuf **out)
{
	uint32_t hdr_len = (uint32_t)h->l2_len + h->l3_len + h->l4_len;
	uint32_t payload = h->l3_end - hdr_len, pos = i * m->tso_segsz;
	uint32_t seg_len = LR_MIN(payload - pos, (uint32_t)m->tso_segsz);
	uint8_t hdr[LR_NET_HDR_MAX];
	struct lr_net_hdrs sh = *h;
	struct lr_mbuf *s;
	int ret;

	s = lr_pktmbuf_alloc(mp);
	if (s == NULL)
		return -ENOBUFS;
	memcpy(hdr, tmpl, hdr_len);
	patch_headers(hdr, h, i, nseg, pos, seg_len);
	ret = lr_pktmbuf_append_copy(s, mp, hdr, hdr_len);
	if (ret == 0)
		ret = append_range(s, mp, m, hdr_len + pos, seg_len);
	sh.l3_end = hdr_len + seg_len;
	if (ret == 0)
		ret = lr_net_l4_cksum_set(s, &sh);
	if (ret < 0) {
		lr_pktmbuf_free(s);
		return ret;
	}
	s->port = m->port;
	s->packet_type = m->packet_type;
	s->vlan_tci = m->vlan_tci;
	s->vlan_tci_outer = m->vlan_tci_outer;
	s->hash_rss = m->hash_rss;
	s->timestamp = m->timestamp;
	s->ol_flags = m->ol_flags & ~LR_MBUF_F_OFFLOAD_MASK;
	s->tx_offload = 0;
	s->l2_len = h->l2_len;
	s->l3_len = h->l3_len;
	s->l4_len = h->l4_len;
	*out = s;
	return 0;
}

int
lr_net_tso_segment(const struct lr_mbuf *m, struct lr_mempool *mp,
		   struct lr_mbuf **out, unsigned n_out)
{
	uint8_t tmpl[LR_NET_HDR_MAX];
	const uint8_t *p;
	struct lr_net_hdrs h;
	uint32_t hdr_len, nseg, i;
	int ret = lr_net_parse(m, &h);

	if (ret < 0)
		return ret;
	if (h.l4_proto != LR_NET_PROTO_TCP)
		return -EPROTONOSUPPORT;
	hdr_len = (uint32_t)h.l2_len + h.l3_len + h.l4_len;
	if (hdr_len > LR_NET_HDR_MAX || m->tso_segsz == 0)
		return -EINVAL;
	nseg = lr_net_tso_nb_segs(h.l3_end - hdr_len, m->tso_segsz);
	if (nseg > n_out)
		return -E2BIG;
	p = lr_pktmbuf_read(m, 0, hdr_len, tmpl);
	if (p != tmpl)
		memcpy(tmpl, p, hdr_len);
	for (i = 0; i < nseg; i++) {
		ret = make_segment(m, mp, &h, tmpl, i, nseg, &out[i]);
		if (ret < 0)
			break;
	}
	if (i == nseg)
		return (int)nseg;
	while (i-- > 0)
		lr_pktmbuf_free(out[i]);
	return ret;
}
