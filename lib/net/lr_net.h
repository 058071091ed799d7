/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_net.h - packet headers and the offloads a port may not do itself:
 * header parsing (Ethernet with VLAN tags, IPv4 with options, IPv6 with
 * extension headers, TCP with options, UDP), Internet checksums over
 * mbuf chains, checksum completion (virtio-net csum_start/csum_offset, or
 * from the header lengths) and software segmentation of TCP super-frames
 * (GSO/TSO), and the virtio-net header that carries these offloads to
 * and from the kernel (tap, packet sockets). Every driver whose egress
 * cannot take an offload calls these, so the logic lives once, below the
 * drivers.
 *
 * Byte order: the structures are the wire's (network order). Checksum
 * sums are kept as the 16-bit words read from memory in host order and
 * folded; a folded sum stored back as it is, is the right wire bytes on
 * either endianness (the ones'-complement sum commutes with byte swaps).
 *
 * Threading contract: none needed; each call works on the packet it is
 * given, which belongs to the calling thread.
 *
 * Cost: these are slow paths (a port that cannot offload pays them per
 * packet): the checksum reads every byte of the L4 payload once, 4 bytes
 * per add; segmentation copies every payload byte once into new mbufs.
 *
 * Error model: functions return 0, a count, or a negative errno:
 * -EINVAL for a frame shorter than the headers it claims or headers that
 * contradict each other (an IPv4 IHL below 5, a TCP data offset below 5,
 * an IP length past the frame's end, csum_start past the end),
 * -EPROTONOSUPPORT for what these helpers do not handle (not IPv4/IPv6,
 * not TCP/UDP, IP fragments), -ENOBUFS when the pool ran out, -E2BIG when
 * the output array is too small. On error the input packet is unchanged.
 */
#ifndef LR_NET_H
#define LR_NET_H

#include <stdint.h>

#include "lr_common.h"
#include "lr_mbuf.h"

LR_BEGIN_DECLS

/** EtherType of IPv4, host order. */
#define LR_NET_ETHER_TYPE_IPV4 0x0800
/** EtherType of IPv6, host order. */
#define LR_NET_ETHER_TYPE_IPV6 0x86dd
/** EtherType of an IEEE 802.1Q VLAN tag, host order. */
#define LR_NET_ETHER_TYPE_VLAN 0x8100
/** EtherType of an IEEE 802.1ad (QinQ) service tag, host order. */
#define LR_NET_ETHER_TYPE_QINQ 0x88a8
/** IP protocol number of TCP. */
#define LR_NET_PROTO_TCP 6
/** IP protocol number of UDP. */
#define LR_NET_PROTO_UDP 17
/** Most VLAN tags lr_net_parse() walks before giving up. */
#define LR_NET_VLAN_MAX 4
/** Longest L2 + L3 + L4 header lr_net_tso_segment() accepts. */
#define LR_NET_HDR_MAX 512

/** TCP flags (the byte at offset 13 of the TCP header). */
#define LR_TCP_FIN 0x01
#define LR_TCP_SYN 0x02
#define LR_TCP_RST 0x04
#define LR_TCP_PSH 0x08
#define LR_TCP_ACK 0x10
#define LR_TCP_URG 0x20
#define LR_TCP_ECE 0x40
#define LR_TCP_CWR 0x80

/** IPv4 header (no options), network order. */
struct lr_ipv4_hdr {
	uint8_t version_ihl; /**< version (4) << 4 | header words */
	uint8_t tos;
	uint16_t total_length; /**< header + payload bytes */
	uint16_t packet_id;
	uint16_t fragment_offset; /**< flags (3 bits) and offset */
	uint8_t ttl;
	uint8_t next_proto_id;
	uint16_t hdr_checksum;
	uint32_t src_addr;
	uint32_t dst_addr;
} __attribute__((packed));

/** IPv6 fixed header, network order. */
struct lr_ipv6_hdr {
	uint32_t vtc_flow;    /**< version 6, traffic class, flow label */
	uint16_t payload_len; /**< bytes after this header */
	uint8_t proto;	      /**< next header */
	uint8_t hop_limits;
	uint8_t src_addr[16];
	uint8_t dst_addr[16];
} __attribute__((packed));

/** TCP header (no options), network order. */
struct lr_tcp_hdr {
	uint16_t src_port;
	uint16_t dst_port;
	uint32_t sent_seq;
	uint32_t recv_ack;
	uint8_t data_off; /**< header words << 4 */
	uint8_t tcp_flags;
	uint16_t rx_win;
	uint16_t cksum;
	uint16_t tcp_urp;
} __attribute__((packed));

/** UDP header, network order. */
struct lr_udp_hdr {
	uint16_t src_port;
	uint16_t dst_port;
	uint16_t dgram_len;
	uint16_t dgram_cksum;
} __attribute__((packed));

/** Where a frame's headers are, as lr_net_parse() found them. */
struct lr_net_hdrs {
	uint16_t l2_len;    /**< Ethernet header and its VLAN tags */
	uint16_t l3_len;    /**< IPv4 with options, IPv6 with extensions */
	uint16_t l4_len;    /**< TCP with options, 8 for UDP, else 0 */
	uint8_t ip_version; /**< 4 or 6 */
	uint8_t l4_proto;   /**< LR_NET_PROTO_TCP / _UDP, or another */
	uint32_t l3_end;    /**< frame offset where the IP length ends */
};

/** Find the L2, L3 and L4 headers of frame m (any segmentation): 0, or
 *  -EINVAL (truncated or inconsistent), or -EPROTONOSUPPORT (not IP, an IP
 *  fragment or not TCP/UDP: h holds the lengths found up to there). */
int lr_net_parse(const struct lr_mbuf *m, struct lr_net_hdrs *h);

/** Fold a 64-bit sum of 16-bit words to 16 bits (not inverted). */
static inline uint16_t
lr_net_cksum_fold(uint64_t sum)
{
	sum = (sum & 0xffffffffu) + (sum >> 32);
	sum = (sum & 0xffffffffu) + (sum >> 32);
	sum = (sum & 0xffffu) + (sum >> 16);
	sum = (sum & 0xffffu) + (sum >> 16);
	return (uint16_t)((sum & 0xffffu) + (sum >> 16));
}

/** Ones'-complement sum (folded, not inverted) of len bytes at buf. */
uint16_t lr_net_cksum_buf(const void *buf, uint32_t len);

/** Ones'-complement sum (folded, not inverted) of len bytes at offset
 *  off of packet m across its segments, into *sum; 0 or -EINVAL when the
 *  range passes the packet's end. */
int lr_net_cksum_range(const struct lr_mbuf *m, uint32_t off, uint32_t len,
		       uint16_t *sum);

/** IPv4 header checksum (inverted, ready to store) of hdr_len bytes at
 *  hdr, whose checksum field must be zero. */
uint16_t lr_net_ipv4_cksum(const void *hdr, uint32_t hdr_len);

/** Pseudo-header sum (folded, not inverted) of an IPv4 or IPv6 header
 *  for an L4 segment of l4_len bytes of protocol proto. */
uint16_t lr_net_pseudo_sum(const void *ip_hdr, uint8_t proto, uint32_t l4_len);

/** Complete a partial checksum (virtio-net NEEDS_CSUM): sum from
 *  csum_start to the packet's end, store it inverted at csum_start +
 *  csum_offset; 0 or -EINVAL (past the end, no room for the field). */
int lr_net_cksum_complete(struct lr_mbuf *m, uint32_t csum_start,
			  uint32_t csum_offset);

/** Mark frame m LR_MBUF_F_RX_L4_CKSUM_PARTIAL (csum_start, csum_offset)
 *  when its TCP or UDP checksum field holds the pseudo-header sum alone,
 *  as a frame the Linux stack left to checksum offload does, for a port
 *  whose receive path says nothing of it (AF_XDP on veth or tap): 1 if
 *  marked, else 0 (not IP TCP/UDP, a fragment, truncated, a UDP frame
 *  without checksum, or any other field value). Safe on good frames: one
 *  whose complete checksum equals that sum (1 in 65536) is completed to
 *  the same value. */
int lr_net_cksum_partial_mark(struct lr_mbuf *m);

/** Compute the TCP or UDP checksum of frame m from scratch (pseudo-header
 *  from its IP header) with the headers h found; 0 or -errno. */
int lr_net_l4_cksum_set(struct lr_mbuf *m, const struct lr_net_hdrs *h);

/** Do in software the checksums m->ol_flags ask for (LR_MBUF_F_TX_IP_CKSUM,
 *  the LR_MBUF_F_L4_CKSUM_MASK flags) and clear those flags; segmentation
 *  is lr_net_tso_segment()'s. 0 or -errno (m unchanged). */
int lr_net_cksum_offload(struct lr_mbuf *m);

/** Number of frames lr_net_tso_segment() makes of a TCP frame with
 *  payload bytes of payload and segment size mss (at least 1). */
static inline uint32_t
lr_net_tso_nb_segs(uint32_t payload, uint16_t mss)
{
	return payload == 0 || mss == 0 ? 1 : (payload + mss - 1) / mss;
}

/**
 * Cut TCP super-frame m (IPv4 or IPv6, any segmentation, up to 64 KiB)
 * into frames of at most m->tso_segsz payload bytes, new mbufs from mp
 * (chained when one buffer is too small): each with the headers of m, IPv4
 * ids counting up from m's, IP lengths, TCP sequence numbers, FIN and PSH
 * only on the last, CWR only on the first, and IP and TCP checksums
 * complete; ol_flags without the offload requests, l2_len/l3_len/l4_len
 * set. Returns the number of frames put in out (at most n_out), or
 * -EINVAL, -EPROTONOSUPPORT (not TCP), -E2BIG (n_out too small), -ENOBUFS.
 * m is left as it was (the caller frees it).
 */
int lr_net_tso_segment(const struct lr_mbuf *m, struct lr_mempool *mp,
		       struct lr_mbuf **out, unsigned n_out);

/** The virtio-net header (legacy, 10 bytes) of tap (IFF_VNET_HDR) and
 *  packet sockets (PACKET_VNET_HDR): fields in the host's byte order (the
 *  kernel's legacy virtio order on the little-endian hosts linerate runs
 *  on). */
struct lr_net_vnet_hdr {
	uint8_t flags;	      /**< LR_NET_VNET_F_* */
	uint8_t gso_type;     /**< LR_NET_VNET_GSO_*, maybe | _ECN */
	uint16_t hdr_len;     /**< L2 + L3 + L4 header bytes of a GSO frame */
	uint16_t gso_size;    /**< payload bytes per segment */
	uint16_t csum_start;  /**< sum from here to the end (frame offset) */
	uint16_t csum_offset; /**< store it at csum_start + csum_offset */
};

/** Flag: the L4 checksum is partial (csum_start, csum_offset). */
#define LR_NET_VNET_F_NEEDS_CSUM 1
/** Flag (receive): the checksum was checked already. */
#define LR_NET_VNET_F_DATA_VALID 2
/** GSO types. */
#define LR_NET_VNET_GSO_NONE  0
#define LR_NET_VNET_GSO_TCPV4 1
#define LR_NET_VNET_GSO_UDP   3
#define LR_NET_VNET_GSO_TCPV6 4
#define LR_NET_VNET_GSO_ECN   0x80
/** lr_net_vnet_tx(): the frame must be segmented here. */
#define LR_NET_VNET_TX_SEGMENT 1

/** Offloads of received virtio-net header vh into frame m (already
 *  holding the frame): a partial checksum as LR_MBUF_F_RX_L4_CKSUM_PARTIAL
 *  with csum_start (+ shift: bytes put in front of it, e.g. a VLAN tag
 *  the kernel had taken off) and csum_offset; a TCP super-frame as
 *  LR_MBUF_F_RX_GSO_TCP with tso_segsz and the header lengths. 0, or
 *  -EPROTONOSUPPORT for a GSO frame that is not TCP (m unchanged). */
int lr_net_vnet_rx(struct lr_mbuf *m, const struct lr_net_vnet_hdr *vh,
		   uint32_t shift);

/** The virtio-net header *vh to send frame m (which has offload flags)
 *  whole to the kernel: checksums the header cannot ask for
 *  (LR_MBUF_F_TX_IP_CKSUM, TCP/UDP from the header lengths) done here
 *  first, then the partial checksum and the GSO fields. Returns 0 (send m
 *  with *vh), LR_NET_VNET_TX_SEGMENT (a super-frame without a partial
 *  checksum: segment it with lr_net_tso_segment() and send the frames
 *  with a zero header), or -EINVAL (a bad frame: drop it). */
int lr_net_vnet_tx(struct lr_mbuf *m, struct lr_net_vnet_hdr *vh);

LR_END_DECLS

#endif /* LR_NET_H */
