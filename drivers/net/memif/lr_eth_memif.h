/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_eth_memif.h - net_memif<N>: a port over shared memory that speaks the
 * memif protocol, version 2.0, wire-compatible with DPDK 22.11's net_memif
 * (and so with VPP and libmemif): a linerate program and a DPDK program
 * connect to each other through it, as do two linerate ports.
 *
 * Devargs (DPDK's names and defaults, so command lines carry over):
 *   role=server|client      server (default) listens, client connects
 *   id=N                    interface id; several interfaces share one
 *                           socket, told apart by id (default 0)
 *   socket=PATH             control socket (default /run/memif.sock)
 *   socket-abstract=yes|no  PATH in the abstract namespace (default yes,
 *                           as DPDK 22.11); a file socket is created 0600
 *   bsize=N                 bytes per packet buffer, 64..65535 (2048)
 *   rsize=N                 log2 of the ring size, 1..14 (10)
 *   mac=xx:xx:xx:xx:xx:xx   the port's MAC address (default: generated)
 *   secret=TEXT             up to 24 characters the client must present
 *   zero-copy=no            accepted; yes is refused (not implemented)
 * Queue counts come from lr_eth_dev_configure(), as in DPDK (which has no
 * devarg for them): the client creates min(its tx queues, what the server
 * allows) C2S rings and min(its rx queues, ...) S2C rings; a server's rx
 * queue q reads C2S ring q, its tx queue q writes S2C ring q.
 *
 * Control channel: one control thread per process (started with the first
 * port, joined after the last is closed) runs every memif socket and
 * connection with epoll, as DPDK does from its interrupt thread. The
 * datapath never makes a system call nor takes a lock for it (except an
 * eventfd kick when the peer asks for interrupts, as DPDK's does); burst
 * functions only test a per-queue `up` flag. Clients retry connecting
 * every 100 ms while started and not connected. The thread validates every
 * message (size, type, fields, fds: memif_proto.c) and every ring the peer
 * announces (region index, offset + size inside the region, cookie, ring
 * sizes, index order, F_SEAL_SHRINK on its memfd); a bad one ends the
 * connection with a DISCONNECT naming the fault and an error log line.
 *
 * Memory: as in the protocol, the client owns the shared memory: one memfd
 * region holding the rings, then bsize-byte buffers for every slot of
 * every ring, hugepage-backed (MFD_HUGETLB) when the EAL has hugepages and
 * free ones remain, else ordinary pages; mapped once when the connection is
 * made and unmapped only after it ended and no burst uses it (the burst
 * marks its queue busy with a seq_cst store, the control thread clears
 * `up` with one and waits for busy to drop: one locked instruction per
 * burst on x86, a sync on ppc64). A peer killed mid-burst leaves its
 * memory mapped in our process until we tear down: we never touch unmapped
 * memory.
 *
 * Buffers: this first version copies, between the ring's buffers and mbufs
 * from the rx queue's mempool (rx) or the caller's mbufs (tx, freed once
 * copied). A copy keeps the two processes' memory independent (a peer can
 * neither hold nor corrupt our mbufs) and the design identical in both
 * roles; at 64..1518 bytes the copy costs less than the cache misses on the
 * descriptors. Zero-copy receive (the client's buffers lent as mbufs from
 * a pool built on the region) is the next step.
 *
 * Datapath: every descriptor the peer wrote is read once into locals and
 * checked (server: region index, offset + length inside the region;
 * client: length <= bsize, its buffer taken from the slot, not from the
 * peer); an index the peer moved further than the ring allows, or a bad
 * descriptor, takes the queue down and the connection ends. Indexes are
 * published with release stores after the descriptors and data and read
 * with acquire loads (C11 atomics: correct on ppc64le as on x86).
 *
 * Link: down while there is no peer (rx returns 0; tx frees the packets
 * and counts them as errors and in xstat tx_link_down_drops); up from
 * CONNECTED until DISCONNECT, the peer closing its socket (it exited or
 * was killed), a protocol fault, or the port stopping.
 *
 * Cost on the hot path: one seq_cst store and one load per burst, one
 * acquire load and one release store per burst, and per packet one
 * descriptor read or write plus the copy.
 */
#ifndef LR_ETH_MEMIF_H
#define LR_ETH_MEMIF_H

#include "lr_common.h"

LR_BEGIN_DECLS

/** Default control socket, as DPDK's. */
#define LR_ETH_MEMIF_DEFAULT_SOCKET "/run/memif.sock"
/** Default packet buffer size in bytes. */
#define LR_ETH_MEMIF_DEFAULT_BSIZE 2048
/** Default log2 of the ring size (1024 slots). */
#define LR_ETH_MEMIF_DEFAULT_LOG2_RING 10

LR_END_DECLS

#endif /* LR_ETH_MEMIF_H */
