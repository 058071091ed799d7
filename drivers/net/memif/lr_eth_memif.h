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
 *   socket-mode=OCTAL       a server's socket file created with these
 *                           permission bits instead (0000..0777, e.g. 0660
 *                           for a group of clients; socket-abstract=no)
 *   bsize=N                 bytes per packet buffer, 64..65535 (2048)
 *   rsize=N                 log2 of the ring size, 1..14 (10)
 *   mac=xx:xx:xx:xx:xx:xx   the port's MAC address (default: generated)
 *   secret=TEXT             up to 24 characters the client must present
 *   zero-copy=yes|no        client: packets live in the port's
 *                           buffers, shared with the peer; server:
 *                           packets are received in the client's
 *                           buffers (default no)
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
 * every ring (zero-copy: the rings alone, the buffers in region 1, see
 * below), hugepage-backed (MFD_HUGETLB) when the EAL has hugepages and
 * free ones remain, else ordinary pages; mapped once when the connection is
 * made and unmapped only after it ended and no burst uses it (the burst
 * marks its queue busy with a seq_cst store, the control thread clears
 * `up` with one and waits for busy to drop: one locked instruction per
 * burst on x86, a sync on ppc64). A peer killed mid-burst leaves its
 * memory mapped in our process until we tear down: we never touch unmapped
 * memory. The regions are memfds of their own, not pages of linerate's
 * page allocator: a region must be a file the peer can map and that we
 * seal (F_SEAL_SHRINK), and the buddy heap is one private mapping per
 * process; they draw on the same hugepage pool as the EAL, and the mbufs
 * that cross the port (headers, and in copy mode the buffers) come from
 * mempools over the page allocator.
 *
 * Page pool and elastic pools. The regions do not take their pages from
 * the page pool, for the reasons above and one more: the protocol fixes
 * the regions when the connection is made (the client announces them
 * before the rings, the server maps them once), so they cannot grow or
 * shrink while connected: a page pool's pages, which come and go, could
 * only be used by reconnecting, and sharing them would mean sharing the
 * process's heap with the peer. In copy mode the mbufs of the rx queue's
 * mempool can come from an elastic pool (lr_pktmbuf_pool_create_elastic(),
 * lr-l2fwd's and lr-pktgen's default): received packets are copied into
 * them, so the pool grows from the page pool under a burst and gives
 * blocks back after it like any other. The zero-copy pool (below) is fixed:
 * its buffers are the slots of region 1.
 *
 * Buffers, copy mode (the default, and every server): packets are copied
 * between the ring's buffers and mbufs of the rx queue's mempool (rx) or
 * the caller's mbufs (tx, freed once copied). A copy keeps the two
 * processes' memory independent (a peer can neither hold nor corrupt our
 * mbufs); at 64..1518 bytes it costs less than the cache misses on the
 * descriptors. A one-segment packet that fits one buffer takes a short
 * path on either side's send (one descriptor, read or written once; a
 * frame of 32 to 64 bytes copied as two overlapping 32-byte moves, never a
 * byte past it); chains and packets over several buffers the general one.
 *
 * Buffers, zero-copy=yes (client): which pool and why. The port owns a
 * second memfd region (region 1, hugepage-backed like region 0 when it
 * can be) holding nothing but packet buffers of 128 bytes of headroom +
 * bsize, rounded up to a cache line, and an mbuf pool over them
 * (lr_pktmbuf_pool_create_extbuf()): mbuf i keeps buffer i for life. It
 * is the mbuf pool, not the page pool, because what crosses the port is
 * a packet, and the mbuf pool already has what a packet buffer needs
 * (per-lcore caches, bulk get/put that the bursts use, refcounts,
 * chains, in-use accounting); the page pool recycles pages for one queue
 * and would add a second layer to turn pages into mbufs. The mbuf headers
 * are in the pool's private pages, never in the shared region: the peer
 * is untrusted and must not reach pool pointers or refcounts; it can
 * write the bytes of the buffers only (with zero-copy it can change a
 * packet's data while we hold it, as with any zero-copy memif). The pool
 * holds a buffer for every slot of every ring, as many again for the
 * application, and the lcores' caches; it lives from configure to close
 * across reconnects (region 1 stays mapped in our process whatever the
 * peer does and is announced again on every connect).
 *  - rx: each S2C slot holds an mbuf of the pool (private slot->mbuf
 *    array); the server fills the buffer, the burst checks the length (<=
 *    bsize) and that region and offset are still those offered (the
 *    buffer is taken from our slot, never from the descriptor), hands
 *    the mbuf up as it is (a chain of descriptors as a chain of mbufs) and
 *    gives the slot a fresh mbuf of the pool in bulk. The rx queue's
 *    mempool is not used.
 *  - tx: a one-segment mbuf of a pool the peer maps goes on the C2S ring
 *    as it is (offset = its data - its region) and is freed in bulk once
 *    the server moved the tail past it; any other packet is copied into
 *    pool mbufs (chained descriptors above bsize) and freed at once
 *    (xstats tx_zc_sent and tx_zc_copies count the two). The freed mbufs
    go to this lcore's cache, so the next burst reuses the buffers last
 *    sent, warm in our cache. Measured against putting them in the pool's
 *    store oldest first (a copying port's reuse, a ring lap later): with
 *    testpmd rxonly reading 1518-byte frames, lr-pktgen's busy cycles a
 *    frame fell from about 125 to 30-57 (it no longer took back lines the
 *    reader held) but the pair's rate, set by testpmd, moved by 3%; with a
 *    receiver that does not read the payload (lr-pktgen -> lr-pktgen at
 *    1518 bytes) it lost 13%, and lr-l2fwd's busy cycles rose. Kept: the
 *    cache.
 *    lr_eth_memif_pool() gives applications the pool, so that a
 *    generator sends with no copy.
 *  - the pools the peer maps: ours as region 1, and, as DPDK's memif
 *    announces all its memory, the pool of every other zero-copy port of
 *    the process and every pool of lr_eth_memif_pool_create() as regions
 *    2.. (struct mif_zc), so that a forwarder between two zero-copy ports
 *    sends what it received with no copy, and a generator sends frames it
 *    wrote once into a pool of its own (no other writer: the port's
 *    receive fills its own pool) with no write at all per frame.
 *    The protocol bounds this: regions are announced only during the
 *    handshake (ADD_REGION before CONNECT; none can be added to a live
 *    connection), and at most the server's max_region + 1 of them (ours
 *    take 16: rings, our pool, 14 others). So a port announces the pools
 *    of the ports configured before its HELLO arrives; a pool configured
 *    later is announced at its next connection, and until then its mbufs
 *    are copied (counted in tx_zc_copies; lr-l2fwd configures every port
 *    before it starts any, so its ports see each other). The choice per
 *    packet costs one compare for our own pool and a scan of the few
 *    others. A connection holds each pool it announced (refcount) until
 *    it ends, after the mbufs on its rings went back: a port closed while
 *    another's ring holds its mbufs leaves the pool and region to it.
 *    The other side: a peer of any zero-copy port can read and write the
 *    buffers of every zero-copy pool of the process, not only its own
 *    port's (as with DPDK, whose peers map all its memory).
 *  - where it pays: at the ends of a path (a receiver that consumes the
 *    packets, a generator that builds them in the pool), and in a
 *    forwarder whose ports are all zero-copy clients (no copy at all; a
 *    mix of zero-copy and copying ports copies at the copying one, once
 *    when the copying port receives into the zero-copy port's pool, as
 *    lr-l2fwd does: a server's receive copies into the client's buffers,
 *    which the client then sends as they are).
 *  - link down: the mbufs on the rings go back to the pool. Close frees
 *    the pool and unmaps region 1, unless the application still holds
 *    mbufs of it: then a warning names how many, and pool and region stay
 *    (never unmapped under an mbuf in use).
 * A server cannot lend memory (the protocol gives it to the client), but
 * it can receive in the client's:
 *
 * Buffers, zero-copy=yes on a server: receive only. Each rx queue has a
 * header pool of 1 << rsize mbuf headers (struct mif_zrx), header i bound
 * to slot i of the C2S ring for the queue's life; a burst checks each
 * descriptor (region, offset + length inside the client's regions, length
 * <= 65535), points the slot's header at the buffer it names (data_off 0,
 * buf_len the length: no headroom, no tailroom) and hands it up; the
 * slot is not given back yet. The pool's store (zrx_ops, no cache) takes
 * a header put back from any thread by marking its slot freed (a release
 * store and one atomic decrement per put batch); the next burst moves the
 * ring's tail over the freed slots, in ring order, up to the first one
 * still held. Why headers bound to slots and not an mbuf pool: a slot can
 * be handed up again only after its header came back (the tail cannot
 * pass it), so the binding needs no allocation on the hot path and no
 * search on the way back. Cost: per packet the descriptor read and
 * checked, one header's first line written, one byte stored when it comes
 * back and one loaded and cleared when its slot goes back; no copy and no
 * read of the payload. Lifetime: the client's regions stay mapped after a
 * disconnect while the application holds headers over them (a kept
 * entry, unmapped by the control thread once the last came back, logged);
 * a connection made meanwhile, or one whose rings are larger than rsize,
 * is received by copy; a port closed under held headers leaves them, and
 * the mappings, valid until freed (logged). xstat rx_zc_held: headers the
 * application holds. The server's tx always copies.
 *
 * Datapath: every descriptor the peer wrote is read once into locals and
 * checked (server: region index, offset + length inside the region;
 * client: length <= bsize, its buffer taken from the slot, not from the
 * peer); an index the peer moved further than the ring allows, or a bad
 * descriptor, takes the queue down and the connection ends. Indexes are
 * published with release stores after the descriptors and data and read
 * with acquire loads (C11 atomics: correct on ppc64le as on x86).
 *
 * Offloads: a memif frame carries no metadata, so the peer can neither
 * complete a checksum nor segment. Transmit does what a frame's offload
 * flags ask in software (lr_net_cksum_offload(): a partial checksum from a
 * veth or tap peer, checksums from the header lengths; a TCP super-frame
 * cut into tso_segsz frames by lr_net_tso_segment()) and advertises every
 * transmit offload. A burst with no such flag pays one load of ol_flags
 * per packet; a frame whose headers do not allow it is counted in the
 * xstat tx_offload_errors (segments the ring has no room for are dropped
 * and counted in oerrors). Received frames carry no offload flags.
 *
 * Link: down while there is no peer (rx returns 0; tx frees the packets
 * and counts them as errors and in xstat tx_link_down_drops); up from
 * CONNECTED until DISCONNECT, the peer closing its socket (it exited or
 * was killed), a protocol fault, or the port stopping.
 *
 * Socket file removed (socket-abstract=no; a cleanup of /run, say): a
 * connection does not depend on the name it was made through, so a
 * connected link stays up and keeps its traffic. The server's control
 * thread looks at the file every 100 ms: when it is gone, the port logs
 * it ("socket PATH removed: listening on it again") and binds the path
 * anew (takes the clients already queued on the old socket first), so
 * clients that start or reconnect later reach it; when another file
 * stands there (another server's socket, say), it is left alone and
 * logged, and no stop or close of ours ever removes a file that is not
 * our own socket. A client whose socket path vanished (file or folder)
 * keeps retrying every 100 ms, saying so again whenever the reason of
 * the failure changes, and connects once a server listens there.
 *
 * Cost on the hot path: one seq_cst store and one load per burst, one
 * acquire load and one release store per burst, and per packet one
 * descriptor read or write plus the copy (zero-copy client: plus a
 * mempool get and put through the lcore's cache instead of the copy;
 * zero-copy server receive: a header's first line written and a byte
 * stored and cleared per segment instead of the copy). A server's send
 * of a one-segment packet that fits its slot reads the descriptor once
 * and copies a frame of 32 to 64 bytes as two 32-byte moves. Each burst
 * first prefetches the descriptor lines it will go through (for writing
 * where it writes them): the peer's CPU wrote them last, and asked for
 * together they cross between the CPUs at once instead of one after
 * another as the loop reaches each (lr-pktgen -> lr-l2fwd -> lr-pktgen
 * over zero-copy memif, 64 B, six alternated runs: 70.5 -> 82 Mpps
 * median, lr-l2fwd 27-28 -> 22-23 busy cycles a frame).
 */
#ifndef LR_ETH_MEMIF_H
#define LR_ETH_MEMIF_H

#include "lr_common.h"

LR_BEGIN_DECLS

/** Default control socket, as DPDK's. */
#define LR_ETH_MEMIF_DEFAULT_SOCKET "/run/memif.sock"
/** Default packet buffer size in bytes. */
#define LR_ETH_MEMIF_DEFAULT_BSIZE 2048
/** Mode of a server's socket file unless socket-mode says otherwise. */
#define LR_ETH_MEMIF_DEFAULT_SOCKET_MODE 0600
/** Default log2 of the ring size (1024 slots). */
#define LR_ETH_MEMIF_DEFAULT_LOG2_RING 10

struct lr_mempool;

/** The mbuf pool over the shared buffers of a zero-copy memif client
 *  (configured); NULL with lr_errno ENODEV (not a memif port) or EINVAL
 *  (no zero-copy). Its one-segment mbufs are sent with no copy. */
struct lr_mempool *lr_eth_memif_pool(uint16_t port_id);

/** A pool of n mbufs of data_room bytes (headroom included) over shared
 *  memory that every zero-copy memif client of the process announces to
 *  its peer from its next connection on, so that its one-segment mbufs
 *  go out of those ports with no copy (a generator's prebuilt frames);
 *  cache_size as lr_pktmbuf_pool_create(). NULL with lr_errno EINVAL (n
 *  0, data_room not above LR_PKTMBUF_HEADROOM or above 65472), ENOMEM, or
 *  the pool's (EEXIST: the name is taken). */
struct lr_mempool *lr_eth_memif_pool_create(const char *name, unsigned n,
					    unsigned cache_size,
					    uint16_t data_room, int socket_id);

/** Free pool mp of lr_eth_memif_pool_create(): no port announces it
 *  any more; a connection that did keeps it until it ends, and while the
 *  application holds mbufs of it, it stays (logged). 0, or -EINVAL when
 *  mp is not such a pool. */
int lr_eth_memif_pool_free(struct lr_mempool *mp);

LR_END_DECLS

#endif /* LR_ETH_MEMIF_H */
