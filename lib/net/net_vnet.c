/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The virtio-net header (struct lr_net_vnet_hdr) to and from mbuf offload
 * metadata, for every port whose kernel side speaks it (net_af_packet with
 * PACKET_VNET_HDR, net_tap with IFF_VNET_HDR): what a received header asks
 * becomes ol_flags, csum_start/csum_offset and tso_segsz; what an mbuf
 * asks becomes the header to send, after the checksums the header cannot
 * carry are done here.
 */
#include <errno.h>
#include <string.h>

#include "lr_net.h"

int
lr_net_vnet_rx(struct lr_mbuf *m, const struct lr_net_vnet_hdr *vh,
	       uint32_t shift)
{
	uint8_t gso = vh->gso_type & (uint8_t)~LR_NET_VNET_GSO_ECN;
	struct lr_net_hdrs hd;

	if (gso != LR_NET_VNET_GSO_NONE) {
		/* Checked first: a dropped frame keeps its flags as they
		 * were. */
		if ((gso != LR_NET_VNET_GSO_TCPV4 &&
		     gso != LR_NET_VNET_GSO_TCPV6) ||
		    vh->gso_size == 0)
			return -EPROTONOSUPPORT;
		if (lr_net_parse(m, &hd) != 0 ||
		    hd.l4_proto != LR_NET_PROTO_TCP)
			return -EPROTONOSUPPORT;
	}
	if (vh->flags & LR_NET_VNET_F_NEEDS_CSUM) {
		m->ol_flags |= LR_MBUF_F_RX_L4_CKSUM_PARTIAL;
		m->csum_start = (uint16_t)(vh->csum_start + shift);
		m->csum_offset = vh->csum_offset;
	}
	if (gso == LR_NET_VNET_GSO_NONE)
		return 0;
	m->ol_flags |= LR_MBUF_F_RX_GSO_TCP;
	m->tso_segsz = vh->gso_size;
	m->l2_len = hd.l2_len;
	m->l3_len = hd.l3_len;
	m->l4_len = hd.l4_len;
	return 0;
}

int
lr_net_vnet_tx(struct lr_mbuf *m, struct lr_net_vnet_hdr *vh)
{
	const uint64_t part =
	    LR_MBUF_F_RX_L4_CKSUM_PARTIAL | LR_MBUF_F_TX_L4_CKSUM;
	struct lr_net_hdrs hd;

	memset(vh, 0, sizeof(*vh));
	/* Asked from the header lengths (IPv4 header, TCP/UDP from
	 * scratch): done here, the header has no field for them. */
	if ((m->ol_flags & ~(part | LR_MBUF_F_TCP_SEG_MASK) &
	     LR_MBUF_F_OFFLOAD_MASK) &&
	    lr_net_cksum_offload(m) != 0)
		return -EINVAL;
	if (m->ol_flags & LR_MBUF_F_TCP_SEG_MASK) {
		/* The kernel takes GSO only with the partial checksum that
		 * tells it where the TCP header is. */
		if (!(m->ol_flags & part))
			return LR_NET_VNET_TX_SEGMENT;
		if (lr_net_parse(m, &hd) != 0 ||
		    hd.l4_proto != LR_NET_PROTO_TCP || m->tso_segsz == 0)
			return -EINVAL;
		vh->gso_type = hd.ip_version == 4 ? LR_NET_VNET_GSO_TCPV4
						  : LR_NET_VNET_GSO_TCPV6;
		vh->gso_size = (uint16_t)m->tso_segsz;
		vh->hdr_len = (uint16_t)(hd.l2_len + hd.l3_len + hd.l4_len);
	}
	if (m->ol_flags & part) {
		if ((uint32_t)m->csum_start + m->csum_offset + 2 > m->pkt_len)
			return -EINVAL;
		vh->flags = LR_NET_VNET_F_NEEDS_CSUM;
		vh->csum_start = m->csum_start;
		vh->csum_offset = m->csum_offset;
	}
	return 0;
}
