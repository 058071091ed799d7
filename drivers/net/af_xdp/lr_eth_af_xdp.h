/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_eth_af_xdp.h - net_af_xdp: ports on AF_XDP sockets (libxdp's xsk API).
 *
 *   net_af_xdp0,iface=IF[,start_queue=Q][,queue_count=N]
 *              [,mode=auto|skb|drv][,busy_budget=B][,xdp_prog=FILE]
 *              [,shared_umem=0|1][,partial_csum=auto|0|1]
 *
 * Port queue q is an XSK socket bound to queue start_queue + q of IF. Each
 * socket has its own UMEM (unless shared_umem=1, below): one block of
 * pinned pages from lib/pagealloc of the largest order (4 MiB with 4 KiB
 * pages: 2048 frames), or two such blocks when the heap hands out adjacent
 * ones (4096 frames, the most), cut into 2 KiB frames and registered with
 * the kernel once per start. Ring sizes are powers of two, rx at most half
 * the frames, tx an eighth. The
 * frames are the objects of an mbuf pool laid over the UMEM
 * (lr_pktmbuf_pool_create_xmem()): a frame holds the pool's object header,
 * the mbuf, then the buffer; the kernel writes received data at
 * XDP_PACKET_HEADROOM (256) bytes into the buffer, so a received frame is an
 * mbuf with no copy, data_off 256.
 *
 *   frame (2048 bytes):  | hdr 64 | struct lr_mbuf 128 | buffer 1856 ...
 *                                                      ^buf_addr
 *   kernel headroom = 192 (hdr + mbuf); rx data at buf_addr + 256
 *   largest frame received: 2048 - 192 - 256 = 1600 bytes
 *
 * The pool given to lr_eth_rx_queue_setup() is not used for receiving: rx
 * mbufs come from the queue's UMEM pool (lr_eth_af_xdp_umem_pool()), and the
 * application frees them as any mbuf. Transmit hands mbufs of the queue's
 * UMEM pool to the kernel by address (no copy); other mbufs (another pool,
 * shared, chained) are copied into a UMEM frame and freed. A tx burst that
 * finds the ring full, or that brings nothing while descriptors wait, kicks
 * the kernel too (copy mode sends 32 per kick), so accepted frames always
 * leave; an application that stops sending calls lr_eth_tx_burst(port, q,
 * NULL, 0) now and then to push out the rest.
 *
 * The fill ring has twice the slots of the rx ring but holds only rx-ring
 * many frames: the kernel publishes how far it read the fill ring late, so
 * the spare slots let a refill replace every frame that arrived.
 *
 * partial_csum: XDP hands out a frame without the kernel's checksum
 * state, and the Linux stack behind a veth or tap leaves TCP and UDP
 * checksums to offload (the field holds only the pseudo-header sum), so a
 * forwarder would send them on broken and TCP through it would never
 * connect. With partial_csum=1 each received TCP/UDP frame whose checksum
 * field holds exactly its pseudo-header sum is marked
 * LR_MBUF_F_RX_L4_CKSUM_PARTIAL (lr_net_cksum_partial_mark()), and the
 * egress port completes it (in software here and on net_pcap, by the
 * kernel on net_af_packet and net_tap); a good frame whose checksum
 * happens to be that sum (1 in 65536) is completed to the same value.
 * Cost: the headers parsed and the pseudo-header summed, about 60
 * instructions a frame (rx_offload_capa says CKSUM_PARTIAL; xstat
 * rx_partial_csum counts the frames marked). auto (the default): 1 on
 * veth, tun/tap and interfaces with no bus (the stack's own frames), 0
 * on a NIC, whose frames come from the wire complete.
 *
 * busy_budget=B (default 0: off) sets SO_PREFER_BUSY_POLL with budget B: a
 * recvfrom() on an empty rx ring then runs the queue's NAPI on the polling
 * CPU. The kernel names that NAPI (SO_INCOMING_NAPI_ID) from the first
 * frame on; before it the port makes no such call, and if the name is 0
 * (veth's XDP queues have none) busy polling stays off for good, logged
 * once (xstat rx_busy_poll_queues: the queues where it is on).
 *
 * shared_umem=1 (default 0): the queues of such ports that were given the
 * same mempool in lr_eth_rx_queue_setup() share one UMEM and one mbuf pool
 * over it (the first allocates it, the others take a reference; a queue
 * with no rx setup keeps its own). The first socket started registers the
 * UMEM, later ones bind to it (XDP_SHARED_UMEM, kernel >= 5.10 across
 * devices) with their own fill and completion rings. A forwarder's tx then
 * sees mbufs of its own UMEM and sends them by address: no copy. Sizing:
 * a shared queue's rx ring is at most a quarter of the frames, tx a
 * sixteenth (two sharers fit); all sharers' fill+rx + 2 x tx must stay
 * within 3/4 of the frames: a later sharer's rings are halved until they
 * fit, else its setup fails (-ENOSPC, logged with every sharer's need).
 * All sharers' fill and completion rings have the sizes of the first
 * socket's (libxdp): later sharers' rings are lowered to them. Lifetime:
 * the memory and pool go with the last sharer's close, the kernel
 * registration with the last open socket. The registering socket, when its
 * port stops first, stays bound to its interface queue with the frames it
 * held (parked) until the other sharers stop: that port cannot restart
 * before (-EBUSY, logged). Control calls on sharing ports come from one
 * thread.
 *
 * Page pool and elastic pools. The UMEM is the page pool's idea already
 * (memory from lib/pagealloc, registered with the kernel once, its frames
 * recycled for the socket's life) but not a page pool: XDP_UMEM_REG takes
 * one virtually contiguous area, fixed until the socket closes, whose
 * frames the rings name by offset, so pages cannot join or leave it while
 * the port runs, and an elastic pool's blocks (which do) cannot be frames.
 * The UMEM is sized once (2048 or 4096 frames per queue, as above); the
 * mempool given to lr_eth_rx_queue_setup() may be elastic, but receive
 * does not draw on it, and mbufs of another pool sent are copied into
 * UMEM frames.
 *
 * Frame accounting, per queue, at any quiescent point:
 *   pool avail + frames held by the kernel + mbufs held by the application
 *     == frames of the UMEM
 * The driver marks every frame it hands to the kernel (fill or tx ring) in a
 * bitmap and clears it when the frame comes back (rx or completion ring);
 * at stop, after the socket is closed, the marked frames return to the
 * pool, so once the application has freed its mbufs the pool is full again
 * (lr_mempool_validate() holds and lr_mempool_in_use_count() == 0).
 * Shared UMEM, over its sharers:
 *   pool avail + sum of the frames held by every sharer's kernel socket
 *     (parked registering socket included) + mbufs held by the
 *     application == frames of the UMEM
 * each queue marks what its socket holds in its own bitmaps over the
 * shared frame space and gives it back when that socket closes (parked
 * frames when the registration closes).
 *
 * Error model: as lib/ethdev (a negative errno after a message); probe's
 * messages name the interface and what to change: interface missing
 * (-ENODEV), queue out of range (-EINVAL), no permission (-EPERM: needs
 * CAP_NET_RAW, CAP_NET_ADMIN and CAP_BPF or CAP_SYS_ADMIN), UMEM larger
 * than RLIMIT_MEMLOCK without CAP_IPC_LOCK (-ENOBUFS, after trying to
 * raise the limit). The two functions below return NULL with lr_errno, or
 * a negative errno.
 *
 * Threading: as lib/ethdev; the rx side (rx and fill rings) of queue q and
 * its tx side (tx and completion rings) may be polled by two threads. The
 * thread that starts the port must be in the interface's network
 * namespace.
 */
#ifndef LR_ETH_AF_XDP_H
#define LR_ETH_AF_XDP_H

#include <stdint.h>

#include "lr_mempool.h"

#include "lr_common.h"

LR_BEGIN_DECLS

/** Bytes per UMEM frame. */
#define LR_AF_XDP_FRAME_SIZE 2048

/** The mbuf pool over the UMEM of queue q of an af_xdp port, or NULL with
 *  lr_errno (ENODEV: not an af_xdp port, EINVAL: queue not set up). */
struct lr_mempool *lr_eth_af_xdp_umem_pool(uint16_t port_id, uint16_t q);

/** Frames of queue q now marked as held by the kernel (fill, rx, tx and
 *  completion rings; with a shared UMEM, those of all its sharers' sockets,
 *  so pool avail + this + application-held == frames); -ENODEV or -EINVAL
 *  as above. */
int lr_eth_af_xdp_kernel_frames(uint16_t port_id, uint16_t q);

LR_END_DECLS

#endif /* LR_ETH_AF_XDP_H */
