/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_af_packet - ports over Linux packet sockets with mmap rings.
 *
 *   net_af_packet0,iface=IF[,qpairs=N][,blocksz=B][,framesz=F][,framecnt=C]
 *                  [,vnet=0|1][,tpacket=v2|v3][,tov=MS]
 *
 * Each queue pair owns two sockets on IF:
 *  - receive: by default (tpacket=v2) a TPACKET_V2 ring of C frames of F
 *    bytes, handed over one by one as the kernel writes them (a status
 *    word per frame); rx_burst copies each frame into an mbuf of the
 *    queue's pool and gives the frame back. tpacket=v3: a TPACKET_V3 ring
 *    of C*F/B blocks of B bytes; the kernel fills a block with packets and
 *    hands it over (block_status TP_STATUS_USER, or after a timeout);
 *    rx_burst walks the packets of the block and hands the block back
 *    (TP_STATUS_KERNEL) once it has taken its last packet. With several
 *    receive queues the sockets form a PACKET_FANOUT_HASH group, so a flow
 *    always lands on the same queue.
 *  - transmit: a TPACKET_V2 ring of C frames of F bytes, with
 *    PACKET_QDISC_BYPASS and PACKET_LOSS. tx_burst copies each mbuf (all
 *    its segments) into the next free frame, marks it TP_STATUS_SEND_REQUEST
 *    and issues one send(MSG_DONTWAIT) per burst. The transmit socket is
 *    bound with protocol 0, so the kernel queues no received packet to it.
 *
 * Latency, throughput and memory. tpacket=v3 hands a partly filled block
 * over only at its timeout (tov=MS, default 1; the kernel takes whole
 * milliseconds, so no less than 1 ms): at low rates each frame waits up to
 * that long, about 0.5 ms on average (ping through lr-l2fwd: 1.2 ms
 * against 0.09 ms through a kernel bridge), and a ring of 16 blocks holds
 * only 16 timeouts' worth of frames. Its gain, one status word per block
 * and frames packed tight, does not show over veth: there the kernel's
 * work per frame, done on the sender's CPU, bounds the rate (DPDK's V2
 * af_packet and this driver's V3 forward alike, about 0.9 Mpps here). So
 * the default is tpacket=v2: no timeout, the added latency is the polling
 * loop's. Every page of every ring is written once when the ring is made
 * (in a VM the first write to a page costs about 10 us, unseen by the
 * guest's fault counters; a fresh port paid it on each 64 KiB frame until
 * the ring had gone round: +40 us on a ping's round trip through
 * lr-l2fwd); that is about 80 ms at port creation for the default rings. Its
 * frames have one size; with vnet=1 (the default) each must hold a 64 KiB
 * super-frame, so the default frame is 65664 bytes, 15 to a block of 1 MiB, 240
 * frames: 16 MiB a ring (receive and transmit each, per queue pair) for 240
 * frames of any size. For more small frames in less memory: vnet=0 (frames of 2
 * KiB, 1024 of them, 2 MiB, but no offloads: a super-frame is too long and
 * dropped) or tpacket=v3 (blocks of 128 KiB, 2 MiB). A frame longer than a ring
 * frame minus its header (GRO on a physical NIC makes such frames: turn it
 * off) is dropped and counted in ierrors; so is a runt, a frame shorter
 * than an Ethernet header (14 bytes; also in the xstat rx_runts). A VLAN
 * tag the kernel took off is put back into the frame.
 *
 * The driver touches only the interface named by iface=, in the calling
 * thread's network namespace: receive sockets are created with protocol 0
 * (they see nothing) and bound to that interface's index before they
 * receive. They are bound at start and closed at stop (a stopped port
 * receives nothing, as a stopped NIC; a restart opens fresh ones). All
 * rings are first created at probe, so a ring that cannot be mapped fails
 * there. Promiscuous mode is a
 * PACKET_MR_PROMISC membership of the port's control socket, so the
 * interface leaves promiscuous mode when the port is closed (or the
 * process dies). Frames the host itself sends on IF are not received
 * (PACKET_IGNORE_OUTGOING).
 *
 * Offloads (vnet=1, the default): both sockets carry the virtio-net header
 * (PACKET_VNET_HDR), as tap and virtio do, so the kernel's offloads cross
 * the port (header to and from mbuf flags: lr_net_vnet_rx() and
 * lr_net_vnet_tx(), shared with net_tap). Receive: a frame whose checksum the
 * sender left to offload (veth, tap: CHECKSUM_PARTIAL) comes with
 * LR_MBUF_F_RX_L4_CKSUM_PARTIAL and csum_start/csum_offset; a TCP super-frame
 * (GSO, up to 64 KiB: the default frame holds one; with tpacket=v3 frames are
 * bounded by the block, 128 KiB by default, not by framesz) comes whole, as a
 * chain of mbufs, with LR_MBUF_F_RX_GSO_TCP, tso_segsz and the header lengths.
 * A UDP or other GSO frame is dropped (xstat rx_gso_unsupported). Transmit: a
 * partial checksum goes to the kernel in the header (it completes it, or the
 * interface does); a TCP super-frame goes whole when it fits a ring frame,
 * else it is segmented here (lr_net_tso_segment()) into frames of
 * tso_segsz payload; checksums asked for from the header lengths
 * (LR_MBUF_F_TX_IP_CKSUM, _TCP_CKSUM, _UDP_CKSUM) are computed here. Cost:
 * 10 bytes more per frame each way and one test of the header's flags per
 * received frame. vnet=0: no header; partial checksums are completed and
 * super-frames segmented here on transmit, and received frames carry no
 * offload flags (a partial checksum then leaves the port as it came).
 *
 * Fanout group ids are 16 bits per network namespace and two programs that
 * pick the same id on one interface silently share one group. The kernel
 * is asked for a free id (PACKET_FANOUT_FLAG_UNIQUEID); on kernels without
 * it the id comes from a process-wide counter mixed with the pid and the
 * interface index, and a refused id is retried with the next one.
 *
 * Statistics: ipackets/ibytes/opackets/obytes per queue; imissed is what the
 * kernel dropped because the ring was full (PACKET_STATISTICS, read and
 * accumulated by stats_get); oerrors are frames too long for a ring frame
 * or the interface's MTU. A frame is counted as sent when it is in the ring.
 *
 * Threading: one thread polls one queue. Cost per packet: receive, one
 * copy plus 1/burst bulk mbuf alloc per block; transmit, one copy; per
 * burst one send() system call, which on veth runs the receiver's path too.
 *
 * Errors name the port, the key and the value:
 *   net_af_packet0: iface: no interface 'eth9' in this network namespace
 */
#include <errno.h>
#include <net/if.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <linux/ethtool.h>
#include <linux/if_arp.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/sockios.h>
#include <linux/virtio_net.h>

#include "lr_errno.h"
#include "lr_eth_iface.h"
#include "lr_ethdev_driver.h"
#include "lr_log.h"
#include "lr_mbuf.h"
#include "lr_net.h"

/* Ring sizes when the devargs do not give them. tpacket=v3 (and
 * tpacket=v2 with vnet=0): blocks of 128 KiB (one holds a 64 KiB GSO frame
 * with its headers), frames of 2 KiB, 1024 of them (2 MiB a ring). The
 * default, tpacket=v2 with vnet=1: frames that hold a 64 KiB super-frame
 * (AFP_V2_GSO_FRAMESZ), 15 to a block of 1 MiB, 16 blocks (16 MiB a ring):
 * 240 frames of any size. */
#define AFP_DEFAULT_BLOCKSZ  131072u
#define AFP_DEFAULT_FRAMESZ  2048u
#define AFP_DEFAULT_FRAMECNT 1024u
#define AFP_V2_GSO_BLOCKSZ   1048576u
#define AFP_V2_GSO_FRAMECNT  240u
#define AFP_MAX_BLOCKSZ	     (1u << 24)
#define AFP_MAX_RING	     (1ULL << 31)
/* Receive block timeout: a partly filled block is handed over after it. */
#define AFP_BLOCK_TOV_MS 1
/* Smallest framesz of a tpacket=v2 ring with vnet=1: a 64 KiB IPv4
 * super-frame after the frame header and virtio_net_hdr. */
#define AFP_V2_GSO_FRAMESZ 65664u
/* Bytes of a receive frame before the MAC header (tp_mac of an Ethernet
 * frame: TPACKET3_HDRLEN plus room so the network header is 16-aligned). */
#define AFP_RX_MAC_OFF (TPACKET_ALIGN(TPACKET3_HDRLEN + 16) - ETH_HLEN)
/* Where transmit data starts in a TPACKET_V2 frame. */
#define AFP_TX_DATA_OFF (TPACKET2_HDRLEN - sizeof(struct sockaddr_ll))
#define AFP_VLAN_HLEN	4
#define AFP_VNET_HLEN	((uint32_t)sizeof(struct lr_net_vnet_hdr))
_Static_assert(sizeof(struct lr_net_vnet_hdr) == sizeof(struct virtio_net_hdr),
	       "lr_net_vnet_hdr is the kernel's virtio_net_hdr");
/* Most frames one transmitted super-frame is cut into in software. */
#define AFP_TSO_SEGS_MAX 128

struct afp_port;

struct afp_rxq {
	/* Hot: read by every burst. */
	uint8_t *map; /* the ring: nb_blocks blocks of block_size */
	uint8_t *pkt; /* next packet in the current block */
	struct lr_mempool *mp;
	uint32_t block_size;
	uint32_t nb_blocks;
	uint8_t **frames;   /* tpacket=v2: address of each ring frame */
	uint32_t nb_frames; /* tpacket=v2: frames in the ring */
	uint32_t cur;	    /* current block */
	uint32_t left;	    /* packets left in it (0: none opened) */
	uint16_t port_id;
	uint8_t vnet; /* frames carry a virtio_net_hdr */
	/* Counters (lr_counter_add(), read with lr_counter_read()) written
	 * by the polling thread only, except c.missed and freeze_q: kernel
	 * counters accumulated by the control thread. c.errors: truncated
	 * or runts, dropped; c.missed: the kernel's drops (ring full). */
	struct lr_eth_queue_counters c;
	uint64_t truncated;	  /* longer than a ring frame, dropped */
	uint64_t runts;		  /* shorter than an Ethernet header, dropped */
	uint64_t gso_unsupported; /* GSO frames not TCP, dropped */
	uint64_t freeze_q;
	/* Control. */
	int fd;
	int bound; /* bound to the interface (receiving) */
	size_t map_len;
	struct afp_port *port;
	uint16_t qid;
} __lr_cache_aligned;

struct afp_txq {
	/* Hot. */
	uint8_t **frames; /* address of each ring frame */
	uint32_t nb_frames;
	uint32_t head;	   /* next frame to fill */
	uint32_t max_len;  /* longest frame accepted */
	uint32_t vnet_len; /* AFP_VNET_HLEN or 0 */
	uint32_t room;	   /* bytes of a ring frame for vnet header + data */
	int fd;
	/* Counters (lr_counter_add() by the poller, lr_counter_read());
	 * c.errors: frames too long, dropped. */
	struct lr_eth_queue_counters c;
	uint64_t ring_full;	 /* bursts that found no free frame */
	uint64_t send_errors;	 /* send() failures other than EAGAIN */
	uint64_t offload_errors; /* offload asked of a bad frame, dropped */
	uint64_t tso_sw;	 /* super-frames segmented here */
	/* Control. */
	uint8_t *map;
	size_t map_len;
	struct afp_port *port;
	uint16_t qid;
} __lr_cache_aligned;

struct afp_port {
	struct afp_rxq rxq[LR_MAX_QUEUES_PER_PORT];
	struct afp_txq txq[LR_MAX_QUEUES_PER_PORT];
	const char *name;
	char iface[IFNAMSIZ];
	int ifindex;
	int ctl_fd;  /* ioctls and promiscuous membership */
	int promisc; /* membership held */
	unsigned qpairs;
	uint32_t blocksz;
	uint32_t framesz;
	uint32_t framecnt;
	uint16_t fanout_id;
	int vnet;	 /* PACKET_VNET_HDR on every socket */
	int tpv2;	 /* receive rings are TPACKET_V2 (tpacket=v2) */
	uint32_t tov_ms; /* TPACKET_V3 block timeout */
};

static const char *const afp_keys[] = {
    "iface", "qpairs",	"blocksz", "framesz", "framecnt",
    "vnet",  "tpacket", "tov",	   NULL,
};

/* ---------------------------------------------------------------------
 * Receive
 */

/* Hand the current block back to the kernel and move to the next. */
static __lr_always_inline void
rx_block_done(struct afp_rxq *rxq, struct tpacket_block_desc *bd)
{
	__atomic_store_n(&bd->hdr.bh1.block_status, TP_STATUS_KERNEL,
			 __ATOMIC_RELEASE);
	if (++rxq->cur == rxq->nb_blocks)
		rxq->cur = 0;
	rxq->left = 0;
}

/* What the receive paths need of a ring frame, TPACKET_V2 or V3. */
struct afp_frame {
	const uint8_t *data; /* MAC header */
	uint32_t snaplen;
	uint32_t len;
	uint32_t status;
	uint16_t vlan_tci;
	uint16_t vlan_tpid;
};

static __lr_always_inline void
frame_v3(struct afp_frame *f, const struct tpacket3_hdr *h)
{
	f->data = (const uint8_t *)h + h->tp_mac;
	f->snaplen = h->tp_snaplen;
	f->len = h->tp_len;
	f->status = h->tp_status;
	f->vlan_tci = (uint16_t)h->hv1.tp_vlan_tci;
	f->vlan_tpid = (uint16_t)h->hv1.tp_vlan_tpid;
}

static __lr_always_inline void
frame_v2(struct afp_frame *f, const struct tpacket2_hdr *h)
{
	f->data = (const uint8_t *)h + h->tp_mac;
	f->snaplen = h->tp_snaplen;
	f->len = h->tp_len;
	f->status = h->tp_status;
	f->vlan_tci = h->tp_vlan_tci;
	f->vlan_tpid = h->tp_vlan_tpid;
}

/* The unusual packets: longer than the mbuf (chain), VLAN tag stripped by
 * the kernel (put back), cut to the frame size or shorter than an Ethernet
 * header (dropped). 0 if m now holds the packet, -1 to drop it (m still
 * owned by the caller, empty). */
static __lr_cold int
rx_copy_slow(struct afp_rxq *rxq, struct lr_mbuf *m, const struct afp_frame *h)
{
	const uint8_t *data = h->data;
	uint32_t len = h->snaplen, total = len;
	uint8_t tag[ETH_HLEN + AFP_VLAN_HLEN];

	if (h->snaplen != h->len) {
		lr_counter_add(&rxq->truncated, 1);
		lr_counter_add(&rxq->c.errors, 1);
		return -1;
	}
	if (len < ETH_HLEN) {
		lr_counter_add(&rxq->runts, 1);
		lr_counter_add(&rxq->c.errors, 1);
		return -1;
	}
	if ((h->status & TP_STATUS_VLAN_VALID) && len >= ETH_HLEN) {
		/* Rebuild the 802.1Q header the kernel took off. */
		uint16_t tpid = (h->status & TP_STATUS_VLAN_TPID_VALID)
				    ? h->vlan_tpid
				    : ETH_P_8021Q;
		uint16_t be_tpid = htons(tpid);
		uint16_t be_tci = htons(h->vlan_tci);

		memcpy(tag, data, 2 * ETH_ALEN);
		memcpy(tag + 2 * ETH_ALEN, &be_tpid, 2);
		memcpy(tag + 2 * ETH_ALEN + 2, &be_tci, 2);
		memcpy(tag + 2 * ETH_ALEN + 4, data + 2 * ETH_ALEN, 2);
		total += AFP_VLAN_HLEN;
	}
	m->pkt_len = 0;
	m->data_len = 0;
	/* The (possibly rebuilt) header, then the rest, segment by segment. */
	if ((total == len
		 ? lr_pktmbuf_append_copy(m, rxq->mp, data, len)
		 : lr_pktmbuf_append_copy(m, rxq->mp, tag, sizeof(tag)) ||
		       lr_pktmbuf_append_copy(m, rxq->mp, data + ETH_HLEN,
					      len - ETH_HLEN)) != 0) {
		lr_counter_add(&rxq->c.nombuf, 1);
		lr_pktmbuf_free(m->next);
		m->next = NULL;
		m->nb_segs = 1;
		m->data_len = 0;
		m->pkt_len = 0;
		return -1;
	}
	return 0;
}

/* The offloads of a frame's virtio_net_hdr into m (csum_start shifted
 * past a VLAN tag put back); 0, or -1 to drop it (a GSO type this port
 * does not carry). */
static __lr_cold int
rx_vnet(struct afp_rxq *rxq, struct lr_mbuf *m, const struct afp_frame *h,
	const struct lr_net_vnet_hdr *vh)
{
	uint32_t shift = (h->status & TP_STATUS_VLAN_VALID) ? AFP_VLAN_HLEN : 0;

	if (lr_likely(lr_net_vnet_rx(m, vh, shift) == 0))
		return 0;
	lr_counter_add(&rxq->gso_unsupported, 1);
	lr_counter_add(&rxq->c.errors, 1);
	return -1;
}

/* m back to an empty one-segment mbuf, to take the next frame. */
static __lr_cold void
rx_mbuf_empty(struct lr_mbuf *m)
{
	lr_pktmbuf_free(m->next);
	m->next = NULL;
	m->nb_segs = 1;
	m->data_len = 0;
	m->pkt_len = 0;
	m->ol_flags = 0;
}

/* The virtio_net_hdr of frame h, when the socket has them: one load of
 * its flags and GSO type, the offload work out of line. 0 or -1 (drop). */
static __lr_always_inline int
rx_offloads(struct afp_rxq *rxq, struct lr_mbuf *m, const struct afp_frame *h)
{
	const struct lr_net_vnet_hdr *vh;

	if (!rxq->vnet)
		return 0;
	vh = (const struct lr_net_vnet_hdr *)(h->data - AFP_VNET_HLEN);
	if (lr_likely((vh->flags | vh->gso_type) == 0))
		return 0;
	return rx_vnet(rxq, m, h, vh);
}

static uint16_t
afp_rx_burst(void *q, struct lr_mbuf **pkts, uint16_t nb_pkts)
{
	struct afp_rxq *rxq = q;
	uint64_t bytes = 0;
	uint16_t n = 0;

	while (n < nb_pkts) {
		struct tpacket_block_desc *bd =
		    (struct tpacket_block_desc *)(rxq->map +
						  (size_t)rxq->cur *
						      rxq->block_size);
		uint32_t k, got;

		if (rxq->left == 0) {
			if (!(__atomic_load_n(&bd->hdr.bh1.block_status,
					      __ATOMIC_ACQUIRE) &
			      TP_STATUS_USER))
				break;
			rxq->left = bd->hdr.bh1.num_pkts;
			rxq->pkt =
			    (uint8_t *)bd + bd->hdr.bh1.offset_to_first_pkt;
			if (lr_unlikely(rxq->left == 0)) {
				rx_block_done(rxq, bd);
				continue;
			}
		}
		k = LR_MIN((uint32_t)(nb_pkts - n), rxq->left);
		if (lr_unlikely(lr_pktmbuf_alloc_bulk(rxq->mp, pkts + n, k) !=
				0)) {
			lr_counter_add(&rxq->c.nombuf, 1);
			break;
		}
		got = 0;
		for (uint32_t i = 0; i < k; i++) {
			const struct tpacket3_hdr *h =
			    (const struct tpacket3_hdr *)rxq->pkt;
			struct lr_mbuf *m = pkts[n + got];
			uint32_t len = h->tp_snaplen;
			struct afp_frame f;

			frame_v3(&f, h);

			if (lr_likely(len <= lr_pktmbuf_tailroom(m) &&
				      len >= ETH_HLEN && len == h->tp_len &&
				      !(h->tp_status & TP_STATUS_VLAN_VALID))) {
				memcpy(lr_pktmbuf_mtod(m, uint8_t *),
				       (const uint8_t *)h + h->tp_mac, len);
				m->data_len = (uint16_t)len;
				m->pkt_len = len;
			} else if (rx_copy_slow(rxq, m, &f) != 0) {
				/* Dropped: m is reused for the next one. */
				rxq->pkt += h->tp_next_offset;
				continue;
			}
			if (lr_unlikely(rx_offloads(rxq, m, &f) != 0)) {
				rx_mbuf_empty(m);
				rxq->pkt += h->tp_next_offset;
				continue;
			}
			m->port = rxq->port_id;
			bytes += m->pkt_len;
			got++;
			rxq->pkt += h->tp_next_offset;
		}
		if (lr_unlikely(got != k))
			lr_pktmbuf_free_bulk(pkts + n + got, k - got);
		n = (uint16_t)(n + got);
		rxq->left -= k;
		if (rxq->left == 0)
			rx_block_done(rxq, bd);
	}
	lr_counter_add(&rxq->c.packets, n);
	lr_counter_add(&rxq->c.bytes, bytes);
	return n;
}

/* tpacket=v2: one ring frame per packet, handed over by the kernel as soon
 * as it is written (no block timeout); one mbuf alloc per packet. */
static uint16_t
afp_rx_burst_v2(void *q, struct lr_mbuf **pkts, uint16_t nb_pkts)
{
	struct afp_rxq *rxq = q;
	uint64_t bytes = 0;
	uint16_t n = 0;

	while (n < nb_pkts) {
		struct tpacket2_hdr *h =
		    (struct tpacket2_hdr *)rxq->frames[rxq->cur];
		struct afp_frame f;
		struct lr_mbuf *m;

		if (!(__atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) &
		      TP_STATUS_USER))
			break;
		m = lr_pktmbuf_alloc(rxq->mp);
		if (lr_unlikely(m == NULL)) {
			lr_counter_add(&rxq->c.nombuf, 1);
			break;
		}
		frame_v2(&f, h);
		if (lr_likely(f.snaplen <= lr_pktmbuf_tailroom(m) &&
			      f.snaplen >= ETH_HLEN && f.snaplen == f.len &&
			      !(f.status & TP_STATUS_VLAN_VALID))) {
			memcpy(lr_pktmbuf_mtod(m, uint8_t *), f.data,
			       f.snaplen);
			m->data_len = (uint16_t)f.snaplen;
			m->pkt_len = f.snaplen;
		} else if (rx_copy_slow(rxq, m, &f) != 0) {
			lr_pktmbuf_free(m);
			m = NULL;
		}
		if (m != NULL && lr_unlikely(rx_offloads(rxq, m, &f) != 0)) {
			lr_pktmbuf_free(m);
			m = NULL;
		}
		__atomic_store_n(&h->tp_status, TP_STATUS_KERNEL,
				 __ATOMIC_RELEASE);
		if (++rxq->cur == rxq->nb_frames)
			rxq->cur = 0;
		if (m == NULL)
			continue;
		m->port = rxq->port_id;
		bytes += m->pkt_len;
		pkts[n++] = m;
	}
	lr_counter_add(&rxq->c.packets, n);
	lr_counter_add(&rxq->c.bytes, bytes);
	return n;
}

/* ---------------------------------------------------------------------
 * Transmit
 */

static __lr_cold void
tx_kick_failed(struct afp_txq *txq, int err)
{
	if (err == EAGAIN || err == ENOBUFS || err == EINTR)
		return;
	lr_counter_add(&txq->send_errors, 1);
	if (txq->send_errors == 1)
		LR_LOG(ERR, PMD, "%s: tx queue %u: send on '%s': %s\n",
		       txq->port->name, txq->qid, txq->port->iface,
		       strerror(err));
}

/* Whether the n ring frames from head on are all free. */
static int
tx_frames_free(const struct afp_txq *txq, uint32_t head, uint32_t n)
{
	for (uint32_t k = 0; k < n;
	     k++, head = head + 1 == txq->nb_frames ? 0 : head + 1) {
		struct tpacket2_hdr *h =
		    (struct tpacket2_hdr *)txq->frames[head];

		if (__atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) !=
		    TP_STATUS_AVAILABLE)
			return 0;
	}
	return 1;
}

/* Put m into the free frame at txq->head with virtio_net_hdr vh (when the
 * socket has them) and hand it to the kernel. */
static void
tx_frame_put(struct afp_txq *txq, const struct lr_mbuf *m,
	     const struct lr_net_vnet_hdr *vh)
{
	struct tpacket2_hdr *h = (struct tpacket2_hdr *)txq->frames[txq->head];
	uint8_t *dst = (uint8_t *)h + AFP_TX_DATA_OFF;

	memcpy(dst, vh, txq->vnet_len);
	lr_pktmbuf_copy_out(m, dst + txq->vnet_len);
	h->tp_len = m->pkt_len + txq->vnet_len;
	h->tp_snaplen = h->tp_len;
	__atomic_store_n(&h->tp_status, TP_STATUS_SEND_REQUEST,
			 __ATOMIC_RELEASE);
	if (++txq->head == txq->nb_frames)
		txq->head = 0;
	lr_counter_add(&txq->c.packets, 1);
	lr_counter_add(&txq->c.bytes, m->pkt_len);
}

/* Cut super-frame m into frames here and queue them all, or none: 1 if
 * they went (or m was dropped as bad), 0 if the ring has no room yet. */
static int
tx_tso_sw(struct afp_txq *txq, struct lr_mbuf *m)
{
	struct lr_mbuf *segs[AFP_TSO_SEGS_MAX];
	struct lr_net_vnet_hdr vh;
	int n = lr_net_tso_segment(m, m->pool, segs, AFP_TSO_SEGS_MAX);

	if (n == -ENOBUFS)
		return 0; /* the pool is short now: again on the next burst */
	if (n < 0) {
		lr_counter_add(&txq->offload_errors, 1);
		lr_counter_add(&txq->c.errors, 1);
		return 1;
	}
	int room = tx_frames_free(txq, txq->head, (uint32_t)n);

	memset(&vh, 0, sizeof(vh));
	for (int k = 0; k < n; k++) {
		if (room)
			tx_frame_put(txq, segs[k], &vh);
		lr_pktmbuf_free(segs[k]);
	}
	if (room)
		lr_counter_add(&txq->tso_sw, 1);
	return room;
}

/* A frame with offload flags: checksums from the header lengths computed
 * here, a partial checksum and a super-frame that fits a ring frame handed
 * to the kernel in the header (vnet=1, lr_net_vnet_tx()) or done here. 1
 * if m was queued or dropped, 0 if the ring has no room yet. */
static __lr_cold int
tx_offload(struct afp_txq *txq, struct lr_mbuf *m)
{
	struct lr_net_vnet_hdr vh;
	int ret;

	memset(&vh, 0, sizeof(vh));
	if (!txq->vnet_len) {
		if (m->ol_flags & LR_MBUF_F_TCP_SEG_MASK)
			return tx_tso_sw(txq, m);
		ret = lr_net_cksum_offload(m);
	} else {
		ret = lr_net_vnet_tx(m, &vh);
		if (ret == LR_NET_VNET_TX_SEGMENT ||
		    (ret == 0 && vh.gso_type != LR_NET_VNET_GSO_NONE &&
		     m->pkt_len + txq->vnet_len > txq->room))
			return tx_tso_sw(txq, m);
	}
	if (ret != 0 || (vh.gso_type == LR_NET_VNET_GSO_NONE &&
			 m->pkt_len > txq->max_len)) {
		lr_counter_add(&txq->offload_errors, 1);
		lr_counter_add(&txq->c.errors, 1);
		return 1;
	}
	if (!tx_frames_free(txq, txq->head, 1)) {
		lr_counter_add(&txq->ring_full, 1);
		return 0;
	}
	tx_frame_put(txq, m, &vh);
	return 1;
}

static uint16_t
afp_tx_burst(void *q, struct lr_mbuf **pkts, uint16_t nb_pkts)
{
	struct afp_txq *txq = q;
	uint32_t head = txq->head, vlen = txq->vnet_len;
	uint64_t bytes = 0;
	uint16_t i, sent = 0;

	for (i = 0; i < nb_pkts; i++) {
		struct lr_mbuf *m = pkts[i];
		struct tpacket2_hdr *h =
		    (struct tpacket2_hdr *)txq->frames[head];
		uint8_t *dst = (uint8_t *)h + AFP_TX_DATA_OFF;

		if (lr_unlikely(m->ol_flags & LR_MBUF_F_OFFLOAD_MASK)) {
			txq->head = head;
			if (!tx_offload(txq, m))
				break;
			head = txq->head;
			continue;
		}
		if (__atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) !=
		    TP_STATUS_AVAILABLE) {
			lr_counter_add(&txq->ring_full, 1);
			break;
		}
		if (lr_unlikely(m->pkt_len > txq->max_len)) {
			lr_counter_add(&txq->c.errors, 1);
			continue;
		}
		/* A zero virtio_net_hdr (vnet=1): no offload. */
		memset(dst, 0, vlen);
		dst += vlen;
		if (lr_likely(m->nb_segs == 1))
			memcpy(dst, lr_pktmbuf_mtod(m, const uint8_t *),
			       m->data_len);
		else
			lr_pktmbuf_copy_out(m, dst);
		h->tp_len = m->pkt_len + vlen;
		h->tp_snaplen = h->tp_len;
		__atomic_store_n(&h->tp_status, TP_STATUS_SEND_REQUEST,
				 __ATOMIC_RELEASE);
		if (++head == txq->nb_frames)
			head = 0;
		bytes += m->pkt_len;
		sent++;
	}
	txq->head = head;
	/* One system call for the whole burst; also when the ring was full,
	 * so frames left by an earlier EAGAIN go out. */
	if (send(txq->fd, NULL, 0, MSG_DONTWAIT) < 0)
		tx_kick_failed(txq, errno);
	lr_pktmbuf_free_bulk(pkts, i);
	lr_counter_add(&txq->c.packets, sent);
	lr_counter_add(&txq->c.bytes, bytes);
	return i;
}

/* ---------------------------------------------------------------------
 * Sockets and rings (slow path)
 */

static void
rxq_close(struct afp_rxq *rxq)
{
	struct tpacket_stats_v3 st;
	socklen_t len = sizeof(st);

	if (rxq->fd < 0)
		return;
	if (getsockopt(rxq->fd, SOL_PACKET, PACKET_STATISTICS, &st, &len) ==
	    0) {
		lr_counter_add(&rxq->c.missed, st.tp_drops);
		lr_counter_add(&rxq->freeze_q, st.tp_freeze_q_cnt);
	}
	if (rxq->map != NULL)
		munmap(rxq->map, rxq->map_len);
	close(rxq->fd);
	free(rxq->frames);
	rxq->frames = NULL;
	rxq->map = NULL;
	rxq->fd = -1;
	rxq->bound = 0;
	rxq->cur = 0;
	rxq->left = 0;
	rxq->pkt = NULL;
}

static void
txq_close(struct afp_txq *txq)
{
	if (txq->fd < 0)
		return;
	if (txq->map != NULL)
		munmap(txq->map, txq->map_len);
	close(txq->fd);
	free(txq->frames);
	txq->frames = NULL;
	txq->map = NULL;
	txq->fd = -1;
}

/* The ring geometry as text for error messages. */
static void
ring_desc(const struct afp_port *pp, char *buf, size_t len)
{
	uint32_t blocks = pp->framecnt / (pp->blocksz / pp->framesz);

	snprintf(buf, len,
		 "blocksz=%u framesz=%u framecnt=%u: %u blocks, %llu bytes",
		 pp->blocksz, pp->framesz, pp->framecnt, blocks,
		 (unsigned long long)blocks * pp->blocksz);
}

/* An unbound packet socket (protocol 0: receives nothing); fd or -errno. */
static int
packet_socket(const struct afp_port *pp, const char *what, uint16_t q)
{
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);

	if (fd < 0) {
		int err = errno;

		LR_LOG(ERR, PMD,
		       "%s: iface: cannot open a packet socket for %s queue %u "
		       "on '%s': %s%s\n",
		       pp->name, what, q, pp->iface, strerror(err),
		       err == EPERM || err == EACCES ? " (needs CAP_NET_RAW)"
						     : "");
		return -err;
	}
	return fd;
}

static int
set_int_opt(int fd, int opt, int val)
{
	return setsockopt(fd, SOL_PACKET, opt, &val, sizeof(val));
}

/* The addresses of the frames of a TPACKET_V2 receive ring; 0 or
 * -ENOMEM after logging. */
static int
rxq_frames_list(struct afp_port *pp, struct afp_rxq *rxq)
{
	uint32_t per_block = pp->blocksz / pp->framesz;

	rxq->frames = malloc(sizeof(*rxq->frames) * pp->framecnt);
	if (rxq->frames == NULL) {
		LR_LOG(ERR, PMD,
		       "%s: rx queue %u: no memory for %u frame addresses\n",
		       pp->name, rxq->qid, pp->framecnt);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < pp->framecnt; i++)
		rxq->frames[i] = rxq->map +
				 (size_t)(i / per_block) * pp->blocksz +
				 (size_t)(i % per_block) * pp->framesz;
	rxq->nb_frames = pp->framecnt;
	return 0;
}

/* Write to every page of a freshly mapped ring once. The kernel maps the
 * pages at mmap, but the first write to each still takes a page fault
 * (the shared mapping starts write-protected), measured at about 10 us
 * a page in this project's VMs: with 64 KiB frames every frame is its own
 * page, so until the ring had gone round once, each frame the port
 * received or sent paid it (a ping through lr-l2fwd, four frames a round
 * trip, about 40 us more than on a warm ring). Paid here once instead, at
 * creation: the socket has no traffic yet (receive sockets are bound at
 * start, transmit ones have sent nothing), so rewriting each page's first
 * byte changes nothing. */
static void
ring_prefault(uint8_t *map, size_t len)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t step = pg > 0 ? (size_t)pg : 4096;

	for (size_t off = 0; off < len; off += step) {
		volatile uint8_t *b = map + off;

		*b = *b;
	}
}

/* Ask for rx queue q's ring on fd (TPACKET_V3 blocks or V2 frames) and map
 * it; 0 or -errno after logging. */
static int
rxq_ring_map(struct afp_port *pp, uint16_t q, int fd)
{
	struct afp_rxq *rxq = &pp->rxq[q];
	struct tpacket_req3 req;
	char desc[128];
	int err;

	memset(&req, 0, sizeof(req));
	req.tp_block_size = pp->blocksz;
	req.tp_frame_size = pp->framesz;
	req.tp_frame_nr = pp->framecnt;
	req.tp_block_nr = pp->framecnt / (pp->blocksz / pp->framesz);
	req.tp_retire_blk_tov = pp->tov_ms;
	if (setsockopt(fd, SOL_PACKET, PACKET_RX_RING, &req,
		       pp->tpv2 ? sizeof(struct tpacket_req) : sizeof(req)) <
	    0) {
		err = errno;
		ring_desc(pp, desc, sizeof(desc));
		LR_LOG(ERR, PMD,
		       "%s: rx queue %u: cannot create the ring (%s): %s\n",
		       pp->name, q, desc, strerror(err));
		return -err;
	}
	rxq->map_len = (size_t)req.tp_block_size * req.tp_block_nr;
	rxq->map = mmap(NULL, rxq->map_len, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_POPULATE, fd, 0);
	if (rxq->map == MAP_FAILED) {
		err = errno;
		rxq->map = NULL;
		ring_desc(pp, desc, sizeof(desc));
		LR_LOG(ERR, PMD,
		       "%s: rx queue %u: cannot map the ring (%s): %s\n",
		       pp->name, q, desc, strerror(err));
		return -err;
	}
	ring_prefault(rxq->map, rxq->map_len);
	rxq->block_size = req.tp_block_size;
	rxq->nb_blocks = req.tp_block_nr;
	if (pp->tpv2 && rxq_frames_list(pp, rxq) < 0) {
		munmap(rxq->map, rxq->map_len);
		rxq->map = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* Create rx queue q's socket and ring, not bound yet; 0 or -errno. */
static int
rxq_open(struct afp_port *pp, uint16_t q)
{
	struct afp_rxq *rxq = &pp->rxq[q];
	int fd, err;

	fd = packet_socket(pp, "rx", q);
	if (fd < 0)
		return fd;
	if (set_int_opt(fd, PACKET_VERSION,
			pp->tpv2 ? TPACKET_V2 : TPACKET_V3) < 0) {
		err = errno;
		LR_LOG(ERR, PMD, "%s: rx queue %u: TPACKET_V%d on '%s': %s\n",
		       pp->name, q, pp->tpv2 ? 2 : 3, pp->iface, strerror(err));
		goto close_fd;
	}
	if (pp->vnet && set_int_opt(fd, PACKET_VNET_HDR, 1) < 0) {
		err = errno;
		LR_LOG(ERR, PMD,
		       "%s: vnet: rx queue %u: PACKET_VNET_HDR on '%s': %s "
		       "(vnet=0 turns the offloads off)\n",
		       pp->name, q, pp->iface, strerror(err));
		goto close_fd;
	}
	rxq->vnet = (uint8_t)pp->vnet;
	err = -rxq_ring_map(pp, q, fd);
	if (err > 0)
		goto close_fd;
	rxq->fd = fd;
	rxq->cur = 0;
	rxq->left = 0;
	rxq->pkt = NULL;
	return 0;

close_fd:
	close(fd);
	return -err;
}

/* Set tx queue q's socket options: TPACKET_V2, PACKET_LOSS and (if the
 * kernel has it) PACKET_QDISC_BYPASS; 0 or -errno after logging. */
static int
txq_sock_opts(struct afp_port *pp, uint16_t q, int fd)
{
	int err;

	if (set_int_opt(fd, PACKET_VERSION, TPACKET_V2) < 0) {
		err = errno;
		LR_LOG(ERR, PMD, "%s: tx queue %u: TPACKET_V2 on '%s': %s\n",
		       pp->name, q, pp->iface, strerror(err));
		return -err;
	}
	if (pp->vnet && set_int_opt(fd, PACKET_VNET_HDR, 1) < 0) {
		err = errno;
		LR_LOG(ERR, PMD,
		       "%s: vnet: tx queue %u: PACKET_VNET_HDR on '%s': %s "
		       "(vnet=0 turns the offloads off)\n",
		       pp->name, q, pp->iface, strerror(err));
		return -err;
	}
	/* A malformed frame is dropped instead of stopping the ring. */
	if (set_int_opt(fd, PACKET_LOSS, 1) < 0) {
		err = errno;
		LR_LOG(ERR, PMD, "%s: tx queue %u: PACKET_LOSS: %s\n", pp->name,
		       q, strerror(err));
		return -err;
	}
	if (set_int_opt(fd, PACKET_QDISC_BYPASS, 1) < 0)
		LR_LOG(WARNING, PMD,
		       "%s: tx queue %u: no PACKET_QDISC_BYPASS (%s): frames "
		       "go through the qdisc\n",
		       pp->name, q, strerror(errno));
	return 0;
}

/* Create and map tx queue q's ring on fd and list its frame addresses;
 * 0 or -errno after logging (nothing left mapped or allocated). */
static int
txq_ring_map(struct afp_port *pp, uint16_t q, int fd)
{
	struct afp_txq *txq = &pp->txq[q];
	uint32_t per_block = pp->blocksz / pp->framesz;
	struct tpacket_req req;
	char desc[128];
	int err;

	memset(&req, 0, sizeof(req));
	req.tp_block_size = pp->blocksz;
	req.tp_frame_size = pp->framesz;
	req.tp_frame_nr = pp->framecnt;
	req.tp_block_nr = pp->framecnt / per_block;
	if (setsockopt(fd, SOL_PACKET, PACKET_TX_RING, &req, sizeof(req)) < 0) {
		err = errno;
		ring_desc(pp, desc, sizeof(desc));
		LR_LOG(ERR, PMD,
		       "%s: tx queue %u: cannot create the ring (%s): %s\n",
		       pp->name, q, desc, strerror(err));
		return -err;
	}
	txq->map_len = (size_t)req.tp_block_size * req.tp_block_nr;
	txq->map = mmap(NULL, txq->map_len, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_POPULATE, fd, 0);
	if (txq->map == MAP_FAILED) {
		err = errno;
		txq->map = NULL;
		ring_desc(pp, desc, sizeof(desc));
		LR_LOG(ERR, PMD,
		       "%s: tx queue %u: cannot map the ring (%s): %s\n",
		       pp->name, q, desc, strerror(err));
		return -err;
	}
	ring_prefault(txq->map, txq->map_len);
	txq->frames = malloc(sizeof(*txq->frames) * req.tp_frame_nr);
	if (txq->frames == NULL) {
		LR_LOG(ERR, PMD,
		       "%s: tx queue %u: no memory for %u frame addresses\n",
		       pp->name, q, req.tp_frame_nr);
		goto unmap_ring;
	}
	for (uint32_t i = 0; i < req.tp_frame_nr; i++)
		txq->frames[i] = txq->map +
				 (size_t)(i / per_block) * pp->blocksz +
				 (size_t)(i % per_block) * pp->framesz;
	return 0;

unmap_ring:
	munmap(txq->map, txq->map_len);
	txq->map = NULL;
	return -ENOMEM;
}

/* Create tx queue q's socket, bound to the interface with protocol 0, and
 * its ring; 0 or -errno. */
static int
txq_open(struct afp_port *pp, uint16_t q)
{
	struct afp_txq *txq = &pp->txq[q];
	struct sockaddr_ll sll;
	int fd, err;

	fd = packet_socket(pp, "tx", q);
	if (fd < 0)
		return fd;
	err = txq_sock_opts(pp, q, fd);
	if (err < 0)
		goto close_fd;
	err = txq_ring_map(pp, q, fd);
	if (err < 0)
		goto close_fd;
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = 0;
	sll.sll_ifindex = pp->ifindex;
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		err = -errno;
		LR_LOG(ERR, PMD, "%s: tx queue %u: cannot bind to '%s': %s\n",
		       pp->name, q, pp->iface, strerror(-err));
		goto free_ring;
	}
	txq->fd = fd;
	txq->nb_frames = pp->framecnt;
	txq->head = 0;
	txq->vnet_len = pp->vnet ? AFP_VNET_HLEN : 0;
	txq->room = pp->framesz - (uint32_t)AFP_TX_DATA_OFF;
	return 0;

free_ring:
	free(txq->frames);
	txq->frames = NULL;
	munmap(txq->map, txq->map_len);
	txq->map = NULL;
close_fd:
	close(fd);
	return err;
}

/* Bind rx queue q's socket to the interface: it receives from now on. */
static int
rxq_bind(struct afp_port *pp, uint16_t q)
{
	struct afp_rxq *rxq = &pp->rxq[q];
	struct sockaddr_ll sll;

	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = pp->ifindex;
	if (bind(rxq->fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		int err = errno;

		LR_LOG(ERR, PMD, "%s: rx queue %u: cannot bind to '%s': %s\n",
		       pp->name, q, pp->iface, strerror(err));
		return -err;
	}
	rxq->bound = 1;
	if (set_int_opt(rxq->fd, PACKET_IGNORE_OUTGOING, 1) < 0)
		LR_LOG(WARNING, PMD,
		       "%s: rx queue %u: no PACKET_IGNORE_OUTGOING (%s): "
		       "frames the host sends on '%s' are received too\n",
		       pp->name, q, strerror(errno), pp->iface);
	return 0;
}

/* Process-wide counter for fanout ids chosen without the kernel's help. */
static atomic_uint fanout_seq;

/* Join the first n rx sockets into one PACKET_FANOUT_HASH group; 0 or
 * -errno. */
static int
fanout_join(struct afp_port *pp, uint16_t n)
{
	uint32_t val;
	socklen_t len = sizeof(val);
	int err = 0;

	/* Ask the kernel for an id no group uses. */
	val = (uint32_t)(PACKET_FANOUT_HASH | PACKET_FANOUT_FLAG_UNIQUEID)
	      << 16;
	if (setsockopt(pp->rxq[0].fd, SOL_PACKET, PACKET_FANOUT, &val,
		       sizeof(val)) == 0 &&
	    getsockopt(pp->rxq[0].fd, SOL_PACKET, PACKET_FANOUT, &val, &len) ==
		0) {
		pp->fanout_id = (uint16_t)(val & 0xffff);
	} else {
		/* Older kernel: an id of our own, retried while refused. */
		for (int tries = 0; tries < 64; tries++) {
			uint32_t seq = atomic_fetch_add(&fanout_seq, 1);
			uint32_t id = (seq * 0x9e3779b1u) ^
				      ((uint32_t)getpid() << 8) ^
				      (uint32_t)pp->ifindex;

			id = (id ^ (id >> 16)) & 0xffff;
			val = id | (uint32_t)PACKET_FANOUT_HASH << 16;
			if (setsockopt(pp->rxq[0].fd, SOL_PACKET, PACKET_FANOUT,
				       &val, sizeof(val)) == 0) {
				pp->fanout_id = (uint16_t)id;
				err = 0;
				break;
			}
			err = errno;
			if (err != EINVAL && err != EEXIST && err != EBUSY &&
			    err != ENOSPC)
				break;
		}
		if (err != 0) {
			LR_LOG(ERR, PMD,
			       "%s: qpairs: cannot create a fanout group on "
			       "'%s': %s\n",
			       pp->name, pp->iface, strerror(err));
			return -err;
		}
	}
	val = pp->fanout_id | (uint32_t)PACKET_FANOUT_HASH << 16;
	for (uint16_t q = 1; q < n; q++) {
		if (setsockopt(pp->rxq[q].fd, SOL_PACKET, PACKET_FANOUT, &val,
			       sizeof(val)) < 0) {
			err = errno;
			LR_LOG(ERR, PMD,
			       "%s: rx queue %u: cannot join fanout group %u "
			       "on '%s': %s\n",
			       pp->name, q, pp->fanout_id, pp->iface,
			       strerror(err));
			return -err;
		}
	}
	LR_LOG(DEBUG, PMD, "%s: %u rx queues in fanout group %u\n", pp->name, n,
	       pp->fanout_id);
	return 0;
}

static int
promisc_set(struct afp_port *pp, int on)
{
	struct packet_mreq mr;

	if (pp->promisc == on)
		return 0;
	memset(&mr, 0, sizeof(mr));
	mr.mr_ifindex = pp->ifindex;
	mr.mr_type = PACKET_MR_PROMISC;
	if (setsockopt(pp->ctl_fd, SOL_PACKET,
		       on ? PACKET_ADD_MEMBERSHIP : PACKET_DROP_MEMBERSHIP, &mr,
		       sizeof(mr)) < 0) {
		int err = errno;

		LR_LOG(ERR, PMD, "%s: promiscuous %s on '%s': %s\n", pp->name,
		       on ? "on" : "off", pp->iface, strerror(err));
		return -err;
	}
	pp->promisc = on;
	return 0;
}

/* An interface ioctl on the control socket; 0 or -errno. */
static int
iface_ioctl(const struct afp_port *pp, unsigned long req, struct ifreq *ifr)
{
	memset(ifr->ifr_name, 0, sizeof(ifr->ifr_name));
	memcpy(ifr->ifr_name, pp->iface, strlen(pp->iface));
	return ioctl(pp->ctl_fd, req, ifr) < 0 ? -errno : 0;
}

/* ---------------------------------------------------------------------
 * Control path
 */

static int
afp_infos_get(struct lr_eth_dev *dev, struct lr_eth_dev_info *info)
{
	struct afp_port *pp = dev->data->dev_private;
	uint32_t room = pp->framesz - AFP_RX_MAC_OFF;

	info->max_rx_queues = (uint16_t)pp->qpairs;
	info->max_tx_queues = (uint16_t)pp->qpairs;
	info->max_mtu = (uint16_t)LR_MIN(room - ETH_HLEN - AFP_VLAN_HLEN,
					 (uint32_t)UINT16_MAX);
	info->min_mtu = 68;
	/* Transmit: each offload done by the kernel (vnet=1) or here. */
	info->tx_offload_capa = LR_ETH_TX_OFFLOAD_ALL;
	if (pp->vnet)
		info->rx_offload_capa =
		    LR_ETH_RX_OFFLOAD_CKSUM_PARTIAL | LR_ETH_RX_OFFLOAD_TCP_LRO;
	return 0;
}

static int
afp_rx_queue_setup(struct lr_eth_dev *dev, uint16_t q, uint16_t nb_desc,
		   int socket_id, const struct lr_eth_rxconf *conf,
		   struct lr_mempool *mp)
{
	struct afp_port *pp = dev->data->dev_private;
	struct afp_rxq *rxq = &pp->rxq[q];

	rxq->mp = mp;
	rxq->port_id = dev->data->port_id;
	dev->data->rx_queues[q] = rxq;
	return 0;
}

static int
afp_tx_queue_setup(struct lr_eth_dev *dev, uint16_t q, uint16_t nb_desc,
		   int socket_id, const struct lr_eth_txconf *conf)
{
	struct afp_port *pp = dev->data->dev_private;

	dev->data->tx_queues[q] = &pp->txq[q];
	return 0;
}

static int
afp_dev_stop(struct lr_eth_dev *dev)
{
	struct afp_port *pp = dev->data->dev_private;

	/* Closing a receive socket ends its binding and fanout membership;
	 * the next start opens a fresh one. */
	for (uint16_t q = 0; q < pp->qpairs; q++)
		if (pp->rxq[q].bound)
			rxq_close(&pp->rxq[q]);
	return 0;
}

static int
afp_dev_start(struct lr_eth_dev *dev)
{
	struct afp_port *pp = dev->data->dev_private;
	struct lr_eth_dev_data *d = dev->data;
	struct ifreq ifr;
	int ret;

	for (uint16_t q = 0; q < d->nb_rx_queues; q++) {
		if (pp->rxq[q].fd < 0) {
			ret = rxq_open(pp, q);
			if (ret < 0)
				goto stop;
		}
		ret = rxq_bind(pp, q);
		if (ret < 0)
			goto stop;
	}
	if (d->nb_rx_queues > 1) {
		ret = fanout_join(pp, d->nb_rx_queues);
		if (ret < 0)
			goto stop;
	}
	if (d->promiscuous) {
		ret = promisc_set(pp, 1);
		if (ret < 0)
			goto stop;
	}
	/* The longest frame the kernel accepts: the MTU plus the Ethernet
	 * header and one VLAN tag, within a ring frame. */
	uint32_t max_len = pp->framesz - (uint32_t)AFP_TX_DATA_OFF -
			   (pp->vnet ? AFP_VNET_HLEN : 0);

	if (iface_ioctl(pp, SIOCGIFMTU, &ifr) == 0)
		max_len = LR_MIN(max_len, (uint32_t)ifr.ifr_mtu + ETH_HLEN +
					      AFP_VLAN_HLEN);
	for (uint16_t q = 0; q < d->nb_tx_queues; q++)
		pp->txq[q].max_len = max_len;
	dev->rx_pkt_burst = pp->tpv2 ? afp_rx_burst_v2 : afp_rx_burst;
	dev->tx_pkt_burst = afp_tx_burst;
	return 0;

stop:
	afp_dev_stop(dev);
	return ret;
}

static void
afp_port_free(struct afp_port *pp)
{
	for (uint16_t q = 0; q < LR_MAX_QUEUES_PER_PORT; q++) {
		rxq_close(&pp->rxq[q]);
		txq_close(&pp->txq[q]);
	}
	if (pp->ctl_fd >= 0)
		close(pp->ctl_fd);
	free(pp);
}

static int
afp_dev_close(struct lr_eth_dev *dev)
{
	afp_port_free(dev->data->dev_private);
	dev->data->dev_private = NULL;
	return 0;
}

static int
afp_link_update(struct lr_eth_dev *dev, int wait)
{
	struct afp_port *pp = dev->data->dev_private;
	struct lr_eth_link link;
	int ret = lr_eth_iface_link(pp->iface, &link);

	if (ret < 0) {
		LR_LOG(ERR, PMD, "%s: link of '%s': %s\n", pp->name, pp->iface,
		       strerror(-ret));
		return ret;
	}
	link.link_status = link.link_status && dev->data->started;
	dev->data->link = link;
	return 0;
}

static int
afp_promisc_enable(struct lr_eth_dev *dev)
{
	return promisc_set(dev->data->dev_private, 1);
}

static int
afp_promisc_disable(struct lr_eth_dev *dev)
{
	return promisc_set(dev->data->dev_private, 0);
}

static int
afp_mtu_set(struct lr_eth_dev *dev, uint16_t mtu)
{
	struct afp_port *pp = dev->data->dev_private;
	struct ifreq ifr;
	int ret;

	ifr.ifr_mtu = mtu;
	ret = iface_ioctl(pp, SIOCSIFMTU, &ifr);
	if (ret < 0) {
		LR_LOG(ERR, PMD, "%s: mtu %u on '%s': %s\n", pp->name, mtu,
		       pp->iface, strerror(-ret));
		return ret;
	}
	for (uint16_t q = 0; q < pp->qpairs; q++)
		pp->txq[q].max_len =
		    LR_MIN(pp->framesz - (uint32_t)AFP_TX_DATA_OFF -
			       (pp->vnet ? AFP_VNET_HLEN : 0),
			   (uint32_t)mtu + ETH_HLEN + AFP_VLAN_HLEN);
	return 0;
}

/* Fold the kernel's receive counters (reset by each read) into ours. */
static void
kernel_stats_fold(struct afp_port *pp)
{
	for (uint16_t q = 0; q < pp->qpairs; q++) {
		struct afp_rxq *rxq = &pp->rxq[q];
		struct tpacket_stats_v3 st;
		socklen_t len = sizeof(st);

		if (rxq->fd >= 0 &&
		    getsockopt(rxq->fd, SOL_PACKET, PACKET_STATISTICS, &st,
			       &len) == 0) {
			lr_counter_add(&rxq->c.missed, st.tp_drops);
			lr_counter_add(&rxq->freeze_q, st.tp_freeze_q_cnt);
		}
	}
}

static int
afp_stats_get(struct lr_eth_dev *dev, struct lr_eth_stats *s)
{
	struct afp_port *pp = dev->data->dev_private;

	kernel_stats_fold(pp);
	for (uint16_t q = 0; q < LR_MAX_QUEUES_PER_PORT; q++)
		lr_eth_stats_add_queue(s, q, &pp->rxq[q].c, &pp->txq[q].c);
	return 0;
}

static const char *const afp_xstat_names[] = {
    "rx_kernel_drops",	  "rx_kernel_freeze_queue", "rx_truncated_frames",
    "rx_runts",		  "tx_ring_full",	    "tx_send_errors",
    "rx_gso_unsupported", "tx_offload_errors",	    "tx_tso_sw",
};

static int
afp_xstats_get(struct lr_eth_dev *dev, uint64_t *values, unsigned n)
{
	struct afp_port *pp = dev->data->dev_private;
	uint64_t v[LR_DIM(afp_xstat_names)] = {0};

	kernel_stats_fold(pp);
	for (uint16_t q = 0; q < LR_MAX_QUEUES_PER_PORT; q++) {
		const struct afp_rxq *rxq = &pp->rxq[q];
		const struct afp_txq *txq = &pp->txq[q];

		v[0] += lr_counter_read(&rxq->c.missed);
		v[1] += lr_counter_read(&rxq->freeze_q);
		v[2] += lr_counter_read(&rxq->truncated);
		v[3] += lr_counter_read(&rxq->runts);
		v[4] += lr_counter_read(&txq->ring_full);
		v[5] += lr_counter_read(&txq->send_errors);
		v[6] += lr_counter_read(&rxq->gso_unsupported);
		v[7] += lr_counter_read(&txq->offload_errors);
		v[8] += lr_counter_read(&txq->tso_sw);
	}
	return lr_eth_xstats_values_fill(values, n, v, LR_DIM(v));
}

static const struct lr_eth_dev_ops afp_ops = {
    .dev_start = afp_dev_start,
    .dev_stop = afp_dev_stop,
    .dev_close = afp_dev_close,
    .dev_infos_get = afp_infos_get,
    .rx_queue_setup = afp_rx_queue_setup,
    .tx_queue_setup = afp_tx_queue_setup,
    .link_update = afp_link_update,
    .promiscuous_enable = afp_promisc_enable,
    .promiscuous_disable = afp_promisc_disable,
    .mtu_set = afp_mtu_set,
    .stats_get = afp_stats_get,
    .xstats_get = afp_xstats_get,
    .xstat_names = afp_xstat_names,
    .nb_xstat_names = LR_DIM(afp_xstat_names),
};

/* Read and check the ring sizes; 0 or -EINVAL after logging. */
static int
ring_args(struct afp_port *pp, const struct lr_devargs *args)
{
	long page = sysconf(_SC_PAGESIZE);
	/* tpacket=v2 (the default) with vnet=1 takes super-frames whole. */
	int gso2 = pp->tpv2 && pp->vnet;
	uint64_t bs, fs, fc;
	int ret;

	ret = lr_devargs_get_uint(
	    args, "blocksz", gso2 ? AFP_V2_GSO_BLOCKSZ : AFP_DEFAULT_BLOCKSZ,
	    (uint64_t)page, AFP_MAX_BLOCKSZ, &bs);
	if (ret < 0)
		return ret;
	if (!lr_is_power_of_2(bs)) {
		LR_LOG(ERR, PMD,
		       "%s: blocksz: bad value '%s' (expected a power of two "
		       "from %ld to %u)\n",
		       pp->name, lr_devargs_get(args, "blocksz"), page,
		       AFP_MAX_BLOCKSZ);
		return -EINVAL;
	}
	ret = lr_devargs_get_uint(
	    args, "framesz", gso2 ? AFP_V2_GSO_FRAMESZ : AFP_DEFAULT_FRAMESZ,
	    AFP_RX_MAC_OFF + ETH_ZLEN, bs, &fs);
	if (ret < 0)
		return ret;
	if (fs % TPACKET_ALIGNMENT) {
		LR_LOG(
		    ERR, PMD,
		    "%s: framesz: bad value '%s' (expected a multiple of %u)\n",
		    pp->name, lr_devargs_get(args, "framesz"),
		    TPACKET_ALIGNMENT);
		return -EINVAL;
	}
	if (gso2 && fs < AFP_V2_GSO_FRAMESZ) {
		LR_LOG(ERR, PMD,
		       "%s: framesz: bad value '%llu' (tpacket=v2 with vnet=1 "
		       "takes 64 KiB super-frames into one frame: framesz >= "
		       "%u (the default when framesz is not given); or vnet=0, "
		       "or tpacket=v3)\n",
		       pp->name, (unsigned long long)fs, AFP_V2_GSO_FRAMESZ);
		return -EINVAL;
	}
	/* Not given: the default count, rounded up to whole blocks. */
	uint64_t per_block = bs / fs;
	uint64_t def_fc = gso2 ? AFP_V2_GSO_FRAMECNT : AFP_DEFAULT_FRAMECNT;

	def_fc = (def_fc + per_block - 1) / per_block * per_block;
	ret = lr_devargs_get_uint(args, "framecnt", def_fc, 1, UINT32_MAX, &fc);
	if (ret < 0)
		return ret;
	if (fc % (bs / fs) != 0) {
		LR_LOG(ERR, PMD,
		       "%s: framecnt: bad value '%s' (expected a multiple of "
		       "blocksz/framesz = %llu/%llu = %llu frames per block)\n",
		       pp->name, lr_devargs_get(args, "framecnt"),
		       (unsigned long long)bs, (unsigned long long)fs,
		       (unsigned long long)(bs / fs));
		return -EINVAL;
	}
	if (fc / (bs / fs) * bs > AFP_MAX_RING) {
		LR_LOG(ERR, PMD,
		       "%s: framecnt: bad value '%s' (a ring of %llu bytes; at "
		       "most %llu)\n",
		       pp->name, lr_devargs_get(args, "framecnt"),
		       (unsigned long long)(fc / (bs / fs) * bs),
		       (unsigned long long)AFP_MAX_RING);
		return -EINVAL;
	}
	pp->blocksz = (uint32_t)bs;
	pp->framesz = (uint32_t)fs;
	pp->framecnt = (uint32_t)fc;
	return 0;
}

/* Read and check tpacket= (v2 when absent); 0 or -EINVAL after logging. */
static int
tpacket_arg(struct afp_port *pp, const struct lr_devargs *args)
{
	const char *v = lr_devargs_get(args, "tpacket");

	if (v != NULL && strcmp(v, "v2") != 0 && strcmp(v, "v3") != 0) {
		LR_LOG(ERR, PMD,
		       "%s: tpacket: bad value '%s' (expected v2 or v3)\n",
		       pp->name, v);
		return -EINVAL;
	}
	pp->tpv2 = v == NULL || strcmp(v, "v2") == 0;
	return 0;
}

/* Read and check tov= and the v2 frame size (after the ring sizes, vnet=
 * and tpacket=); 0 or -EINVAL after logging. */
static int
latency_args(struct afp_port *pp, const struct lr_devargs *args)
{
	uint64_t tov;
	int ret;

	ret = lr_devargs_get_uint(args, "tov", AFP_BLOCK_TOV_MS, 1, 1000, &tov);
	if (ret < 0)
		return ret;
	if (pp->tpv2 && lr_devargs_get(args, "tov") != NULL) {
		LR_LOG(ERR, PMD,
		       "%s: tov: bad value '%s' (a block timeout of "
		       "tpacket=v3; tpacket=v2, the default, has no blocks to "
		       "time out)\n",
		       pp->name, lr_devargs_get(args, "tov"));
		return -EINVAL;
	}
	pp->tov_ms = (uint32_t)tov;
	return 0;
}

/* Read and check the iface devarg into *iface; 0 or -EINVAL after
 * logging. */
static int
iface_arg(struct lr_eth_dev *dev, const struct lr_devargs *args,
	  const char **iface)
{
	const char *v = lr_devargs_get(args, "iface");

	if (v == NULL || v[0] == '\0') {
		LR_LOG(ERR, PMD,
		       "%s: iface: missing (usage: "
		       "%s,iface=IF[,qpairs=N][,blocksz=B][,framesz=F][,"
		       "framecnt=C][,vnet=0|1][,tpacket=v2|v3][,tov=MS])\n",
		       dev->data->name, dev->data->name);
		return -EINVAL;
	}
	if (lr_devargs_count(args, "iface") > 1) {
		LR_LOG(ERR, PMD, "%s: iface: given more than once\n",
		       dev->data->name);
		return -EINVAL;
	}
	if (strlen(v) >= IFNAMSIZ) {
		LR_LOG(ERR, PMD,
		       "%s: iface: bad value '%s' (interface names have at "
		       "most %d characters)\n",
		       dev->data->name, v, IFNAMSIZ - 1);
		return -EINVAL;
	}
	*iface = v;
	return 0;
}

/* Allocate a zeroed, cache-line aligned port on iface with every queue
 * closed and linked to it; NULL after logging. */
static struct afp_port *
afp_port_alloc(struct lr_eth_dev *dev, const char *iface)
{
	struct afp_port *pp;

	/* The queues are cache-line aligned: so must the port be. */
	pp = aligned_alloc(LR_CACHE_LINE_SIZE,
			   LR_ALIGN_CEIL(sizeof(*pp), LR_CACHE_LINE_SIZE));
	if (pp != NULL)
		memset(pp, 0, sizeof(*pp));
	if (pp == NULL) {
		LR_LOG(ERR, PMD, "%s: no memory for the port\n",
		       dev->data->name);
		return NULL;
	}
	pp->name = dev->data->name;
	pp->ctl_fd = -1;
	snprintf(pp->iface, sizeof(pp->iface), "%s", iface);
	for (uint16_t q = 0; q < LR_MAX_QUEUES_PER_PORT; q++) {
		pp->rxq[q].fd = -1;
		pp->rxq[q].port = pp;
		pp->rxq[q].qid = q;
		pp->txq[q].fd = -1;
		pp->txq[q].port = pp;
		pp->txq[q].qid = q;
	}
	return pp;
}

/* Find the interface in this namespace and open the control socket;
 * 0 or -errno after logging. */
static int
iface_find(struct afp_port *pp)
{
	pp->ifindex = (int)if_nametoindex(pp->iface);
	if (pp->ifindex == 0) {
		LR_LOG(ERR, PMD,
		       "%s: iface: no interface '%s' in this network namespace "
		       "(%s)\n",
		       pp->name, pp->iface, strerror(errno));
		return -ENODEV;
	}
	pp->ctl_fd = packet_socket(pp, "control", 0);
	if (pp->ctl_fd < 0)
		return pp->ctl_fd;
	return 0;
}

/* Check the interface is Ethernet and take its MAC address as the port's;
 * 0 or -errno after logging. */
static int
iface_mac_get(struct lr_eth_dev *dev, struct afp_port *pp)
{
	struct ifreq ifr;
	int ret;

	ret = iface_ioctl(pp, SIOCGIFHWADDR, &ifr);
	if (ret < 0) {
		LR_LOG(ERR, PMD, "%s: iface: address of '%s': %s\n", pp->name,
		       pp->iface, strerror(-ret));
		return ret;
	}
	if (ifr.ifr_hwaddr.sa_family != ARPHRD_ETHER) {
		LR_LOG(ERR, PMD,
		       "%s: iface: '%s' is not an Ethernet interface (ARPHRD "
		       "type %u)\n",
		       pp->name, pp->iface, ifr.ifr_hwaddr.sa_family);
		return -EINVAL;
	}
	memcpy(dev->data->mac_addr.addr_bytes, ifr.ifr_hwaddr.sa_data,
	       LR_ETHER_ADDR_LEN);
	return 0;
}

/* Take the interface's MTU (when it can be read) as the port's, after
 * checking a frame of that size fits framesz; 0 or -EINVAL after
 * logging. */
static int
iface_mtu_get(struct lr_eth_dev *dev, struct afp_port *pp)
{
	struct ifreq ifr;
	uint32_t need;

	if (iface_ioctl(pp, SIOCGIFMTU, &ifr) != 0)
		return 0;
	need =
	    (uint32_t)ifr.ifr_mtu + ETH_HLEN + AFP_VLAN_HLEN + AFP_RX_MAC_OFF;
	if (pp->framesz < need) {
		LR_LOG(ERR, PMD,
		       "%s: framesz: bad value '%u' (frames of '%s' with "
		       "mtu %d need framesz >= %u)\n",
		       pp->name, pp->framesz, pp->iface, ifr.ifr_mtu,
		       LR_ALIGN_CEIL(need, (uint32_t)TPACKET_ALIGNMENT));
		return -EINVAL;
	}
	dev->data->mtu = (uint16_t)ifr.ifr_mtu;
	return 0;
}

/* Attach pp to dev: ops and burst functions; log the port. */
static void
afp_port_register(struct lr_eth_dev *dev, struct afp_port *pp)
{
	dev->data->dev_private = pp;
	dev->dev_ops = &afp_ops;
	dev->rx_pkt_burst = pp->tpv2 ? afp_rx_burst_v2 : afp_rx_burst;
	dev->tx_pkt_burst = afp_tx_burst;
	LR_LOG(INFO, PMD,
	       "%s: on '%s' (ifindex %d), %u queue pairs, rings of %u x "
	       "%u-byte frames in %u-byte blocks, offloads %s\n",
	       pp->name, pp->iface, pp->ifindex, pp->qpairs, pp->framecnt,
	       pp->framesz, pp->blocksz, pp->vnet ? "on (vnet)" : "off");
}

/* Create a port from devargs: parse them, check the interface, open every
 * queue pair, then register; 0 or -errno after logging. */
static int
afp_probe(struct lr_eth_dev *dev, const struct lr_devargs *args)
{
	struct afp_port *pp;
	const char *iface;
	uint64_t qpairs;
	int ret;

	ret = iface_arg(dev, args, &iface);
	if (ret < 0)
		return ret;
	pp = afp_port_alloc(dev, iface);
	if (pp == NULL)
		return -ENOMEM;
	ret = lr_devargs_get_uint(args, "qpairs", 1, 1, LR_MAX_QUEUES_PER_PORT,
				  &qpairs);
	if (ret < 0)
		goto free_port;
	pp->qpairs = (unsigned)qpairs;
	ret = lr_devargs_get_uint(args, "vnet", 1, 0, 1, &qpairs);
	if (ret < 0)
		goto free_port;
	pp->vnet = (int)qpairs;
	ret = tpacket_arg(pp, args);
	if (ret < 0)
		goto free_port;
	ret = ring_args(pp, args);
	if (ret < 0)
		goto free_port;
	ret = latency_args(pp, args);
	if (ret < 0)
		goto free_port;

	ret = iface_find(pp);
	if (ret < 0)
		goto free_port;
	ret = iface_mac_get(dev, pp);
	if (ret < 0)
		goto free_port;
	ret = iface_mtu_get(dev, pp);
	if (ret < 0)
		goto free_port;
	for (uint16_t q = 0; q < pp->qpairs; q++) {
		ret = rxq_open(pp, q);
		if (ret < 0)
			goto free_port;
		ret = txq_open(pp, q);
		if (ret < 0)
			goto free_port;
	}
	afp_port_register(dev, pp);
	return 0;

free_port:
	afp_port_free(pp);
	return ret;
}

static struct lr_eth_driver afp_driver = {
    .keys = afp_keys,
    .usage = "iface=<if> qpairs=<1..16> blocksz=<bytes> framesz=<bytes> "
	     "framecnt=<n> vnet=<0|1> tpacket=<v2|v3> tov=<ms>",
    .probe = afp_probe,
};

LR_PMD_REGISTER(net_af_packet, afp_driver);
