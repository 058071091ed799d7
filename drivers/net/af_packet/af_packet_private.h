/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * af_packet_private.h - what the files of net_af_packet share (never
 * installed): ports over Linux packet sockets with mmap rings. The files,
 * one concern each (as drivers/net/memif):
 *   af_packet_rx_tx.c   the datapath: receive bursts (TPACKET_V3 blocks,
 *                       TPACKET_V2 frames) and the transmit burst, with
 *                       the virtio-net header's offloads;
 *   af_packet_socket.c  sockets and rings (slow path): opened, mapped,
 *                       bound, joined into a fanout group, closed;
 *   af_packet_ops.c     the ethdev operations (start, stop, close, link,
 *                       promiscuous mode, MTU, stats, xstats);
 *   af_packet_probe.c   devargs, the interface checked, probe, the driver.
 * Functions shared between the files are hidden (the library is built
 * with -fvisibility=hidden and they are declared outside LR_BEGIN_DECLS)
 * and named lr_af_packet_*_ (a static archive's globals all carry lr_: see
 * test/check_exports.sh); everything else is static to its file.
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
#ifndef AF_PACKET_PRIVATE_H
#define AF_PACKET_PRIVATE_H

#include <net/if.h>
#include <stdint.h>
#include <sys/socket.h>

#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>

#include "lr_ethdev_driver.h"
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
	/* The transmit queue of the same number, whose frames a cut-short
	 * send left in its ring: each burst sends them if it is pending. */
	struct afp_txq *sibling;
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
	/* Frames left in the ring by a send the kernel cut short (EAGAIN:
	 * the socket's send buffer full); the next burst, or the port's
	 * receive poll when no burst comes, sends them (__atomic). */
	int kick_pending;
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

/* ------------------------------------------------------------------ */
/* af_packet_rx_tx.c: the datapath. */

/* Receive burst of a tpacket=v3 queue (struct afp_rxq). */
uint16_t lr_af_packet_rx_burst_(void *q, struct lr_mbuf **pkts,
				uint16_t nb_pkts);

/* Receive burst of a tpacket=v2 queue (struct afp_rxq). */
uint16_t lr_af_packet_rx_burst_v2_(void *q, struct lr_mbuf **pkts,
				   uint16_t nb_pkts);

/* Transmit burst of a queue (struct afp_txq). */
uint16_t lr_af_packet_tx_burst_(void *q, struct lr_mbuf **pkts,
				uint16_t nb_pkts);

/* Ask the kernel to send every frame txq's ring holds to send; sets
 * txq->kick_pending when it left some (its send buffer full). */
void lr_af_packet_tx_kick_(struct afp_txq *txq);

/* ------------------------------------------------------------------ */
/* af_packet_socket.c: sockets and rings (slow path). */

/* Close rx queue rxq's socket and unmap its ring. */
void lr_af_packet_rxq_close_(struct afp_rxq *rxq);

/* Close tx queue txq's socket and unmap its ring. */
void lr_af_packet_txq_close_(struct afp_txq *txq);

/* An unbound packet socket (protocol 0: receives nothing); fd or -errno
 * (what and q name it in the log). */
int lr_af_packet_packet_socket_(const struct afp_port *pp, const char *what,
				uint16_t q);

/* Create rx queue q's socket and ring, not bound yet; 0 or -errno. */
int lr_af_packet_rxq_open_(struct afp_port *pp, uint16_t q);

/* Create tx queue q's socket, bound to the interface with protocol 0, and
 * its ring; 0 or -errno. */
int lr_af_packet_txq_open_(struct afp_port *pp, uint16_t q);

/* Bind rx queue q's socket to the interface: it receives from now on;
 * 0 or -errno. */
int lr_af_packet_rxq_bind_(struct afp_port *pp, uint16_t q);

/* Join the first n rx sockets into one PACKET_FANOUT_HASH group; 0 or
 * -errno. */
int lr_af_packet_fanout_join_(struct afp_port *pp, uint16_t n);

/* Hold (on) or drop the interface's promiscuous membership; 0 or -errno. */
int lr_af_packet_promisc_set_(struct afp_port *pp, int on);

/* An interface ioctl on the control socket; 0 or -errno. */
int lr_af_packet_iface_ioctl_(const struct afp_port *pp, unsigned long req,
			      struct ifreq *ifr);

/* ------------------------------------------------------------------ */
/* af_packet_ops.c: the ethdev operations. */

/* The ethdev operations of an af_packet port. */
extern const struct lr_eth_dev_ops lr_af_packet_ops_;

/* Close every socket of pp and free it. */
void lr_af_packet_port_free_(struct afp_port *pp);

#endif /* AF_PACKET_PRIVATE_H */
