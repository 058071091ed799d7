/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * memif_private.h - what the files of net_memif share (never installed):
 * the port, its queues, connections and listeners, the zero-copy pools,
 * and the functions one file calls in another. The files, one concern
 * each (DPDK's drivers/net/memif is split the same way):
 *   memif_rx_tx.c    the datapath: burst functions and the software
 *                    offloads on transmit; it never touches the socket
 *                    (a kick is an eventfd write, a fault is handed to
 *                    the control thread through the port's `bad` flag);
 *   memif_control.c  the control channel: one function per message each
 *                    side sends or receives, every field checked before
 *                    use; regions mapped, rings attached, link up/down;
 *   memif_socket.c   the control thread, its listening sockets and
 *                    connections, a client's connect retries;
 *   memif_zc.c       zero-copy memory: the client's pools over shared
 *                    regions, the server's receive headers;
 *   memif_ops.c      the ethdev operations (configure, start, stop,
 *                    close, link, stats, xstats);
 *   memif_probe.c    devargs, probe, the driver; a port made and freed;
 *   memif_proto.c    the checks of a message that need no state (the
 *                    wire format is memif_proto.h);
 *   memif_fuzz.c     the fuzz targets' hooks (memif_fuzz.h).
 * Descriptor passing and shared-memory regions come from lib/net
 * (lr_unix.h, lr_shm.h), which vhost-user shares.
 *
 * Roles of the ring indexes (both ends agree, DPDK's net_memif included):
 *   C2S ring: the client writes packets at head and publishes head; the
 *             server reads up to head and returns the slots by moving tail.
 *   S2C ring: the client offers empty buffers by moving head; the server
 *             fills slots from tail up to head and publishes tail; the
 *             client reads up to tail and offers the slots again.
 * Each index is published with a release store after the descriptors and
 * data it covers, and read with an acquire load before them (C11 atomics:
 * lwsync on ppc64le, plain moves on x86).
 *
 * Locking: one mutex (lr_memif_lock_) guards every port's control state,
 * the listeners, the connections and the zero-copy pools; the control thread
 * holds it while it handles events, lifecycle calls hold it briefly. Burst
 * functions never take it: they see a queue's `up` flag and mark themselves
 * `busy` (see q_enter()); the control thread clears `up` and waits for `busy`
 * to drop before it unmaps anything (lr_memif_queue_quiesce_()).
 *
 * Functions shared between the files are hidden (the library is built
 * with -fvisibility=hidden and they are declared outside LR_BEGIN_DECLS)
 * and named lr_memif_*_ (a static archive's globals all carry lr_: see
 * test/check_exports.sh); everything else is static to its file. Errors:
 * 0 or a negative errno; creators NULL with lr_errno set.
 */
#ifndef MEMIF_PRIVATE_H
#define MEMIF_PRIVATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "lr_ethdev_driver.h"
#include "lr_mbuf.h"
#include "lr_shm.h"
#include "lr_unix.h"
#include "memif_proto.h"

#define MIF_MAXQ     LR_MAX_QUEUES_PER_PORT
#define MIF_RETRY_NS (100ull * 1000 * 1000)
#define MIF_APP_NAME "linerate"
#define ZC_REGION    1	 /* client zero-copy: the buffers' region */
#define ZC_CACHE     256 /* per-lcore cache of the zero-copy pool */
#define ZC_FILL	     32	 /* mbufs taken in one bulk to refill rx slots */

/* What a watched object is (struct mif_ep). */
enum { EP_WAKE, EP_LISTEN, EP_CONN };

/* What epoll hands back: the first member of each watched object. */
struct mif_ep {
	int kind;
};

struct mif_port;

/* A zero-copy client's buffers: region 1 and the mbuf pool over it. Held
 * by its port from configure to close, and by every connected zero-copy
 * client that announced it to its peer as a region of its own (so that
 * it can send the pool's mbufs with no copy); freed with the last hold. */
struct mif_zc {
	struct lr_mempool *mp;
	struct lr_shm shm; /* region 1 of a connection that announces it */
	unsigned refs;
	int app;	     /* made by lr_eth_memif_pool_create(), no port's */
	struct mif_zc *next; /* in memif_zc.c's list while held */
};

/* Server zero-copy receive (zero-copy=yes on a server), per rx queue: a
 * header bound to each slot of the C2S ring, handed up over the peer's
 * buffer in that slot; a header put back marks its slot freed (the pool's
 * store, zrx_ops), and the next burst gives the slots back (tail) up to
 * the first one still held. Made at configure, kept until close, and
 * after close until the application put back the last header it held. */
struct mif_zrx {
	struct lr_mempool *mp;	/* the headers */
	struct lr_mbuf **hdr;	/* slot -> its header */
	_Atomic uint8_t *freed; /* slot's header back, slot not given back */
	_Atomic uint32_t out;	/* headers the application holds */
	unsigned n;		/* slots of the largest ring (1 << rsize) */
	int orphan; /* its port closed: freed with its last header */
};

/* What a server zero-copy header's private area holds. */
struct zrx_priv {
	struct mif_zrx *z;
	uint32_t slot;
};

/* The peer's regions of a connection that ended while the application
 * held zero-copy headers over them: mapped until every header of zrx[]
 * came back (lr_memif_kept_reap_()). */
struct mif_kept {
	struct lr_shm reg[MIF_MAX_REGIONS]; /* their mappings, fds closed */
	unsigned nreg;
	struct mif_zrx *zrx[MIF_MAXQ];
	unsigned nzrx;
	const char *name; /* of the port, for the log; NULL once closed */
	struct mif_kept *next;
};

/* Another port's zero-copy pool, announced to our peer as region
 * `region`: its mbufs are sent with no copy. */
struct mif_xzc {
	const struct lr_mempool *mp;
	uint8_t *base;
	uint16_t region;
};

/* A server socket; shared by the started server ports of one address. */
struct mif_listener {
	struct mif_ep ep;
	int fd;
	int abstract;
	int dead; /* closed; freed at the end of the event batch */
	unsigned refs;
	unsigned mode; /* of the socket file */
	char path[LR_UNIX_PATH_MAX];
	/* a socket file: which file is ours (removed or replaced when the
	 * path names another), checked every MIF_RETRY_NS */
	dev_t dev;
	ino_t ino;
	int gone; /* 1: ours is not at the path (reported once) */
	uint64_t check_at;
	struct mif_listener *next;
};

/* A control connection: a client port's, or one accepted by a listener
 * (bound to a server port once its INIT named one). */
struct mif_conn {
	struct mif_ep ep;
	int fd;
	int dead;	    /* closed; freed at the end of the event batch */
	struct mif_why why; /* why it ends (conn_fail()) */
	struct mif_listener *lis;
	struct mif_port *port;
	struct mif_conn *next;
};

/* One queue; datapath fields first. */
struct mif_queue {
	_Atomic int busy; /* a burst is running (written by the poller) */
	_Atomic int up;	  /* ring attached (written by the control thread) */
	struct mif_ring *ring;
	uint16_t mask;
	uint16_t size;
	uint16_t last;	   /* our private cursor (see rx/tx functions) */
	uint16_t head;	   /* client rx: head we published last */
	uint32_t bsize;	   /* client: bytes per buffer */
	uint8_t *buf_base; /* client: buffer of slot 0 of this ring */
	uint32_t buf_off;  /* client: its offset in region 0 */
	const struct mif_region_map *reg;
	unsigned nreg;
	int kick_fd; /* the ring's eventfd (peer may want a kick) */
	struct lr_mempool *mp;
	/* client zero-copy: the mbuf of every slot, private to us */
	struct lr_mbuf **slot_mb;
	struct lr_mempool *zc_mp;  /* the port's pool over region 1 */
	uint8_t *zc_base;	   /* region 1 */
	const struct mif_xzc *xzc; /* tx: other pools the peer maps */
	unsigned nxzc;
	uint16_t done; /* tx: first slot whose mbuf is not freed */
	/* server zero-copy rx: the headers, whether this connection uses
	 * them, and the first slot not given back (the ring's tail) */
	struct mif_zrx *zrx;
	uint8_t zr_on;
	uint16_t rel;
	uint16_t port_id;
	uint16_t qid;
	struct mif_port *p;
	struct lr_eth_queue_counters c;
	uint64_t bursts;
	uint64_t ring_full;
	uint64_t link_down;
	uint64_t zc_copies; /* zero-copy tx: packets copied into the pool */
	uint64_t zc_sent;   /* zero-copy tx: packets sent as they were */
	uint64_t offload_errors; /* tx: offloads asked that could not be done */
} __lr_cache_aligned;

enum mif_dir { C2S = 0, S2C = 1 };

struct mif_port {
	struct mif_queue rxq[MIF_MAXQ];
	struct mif_queue txq[MIF_MAXQ];
	struct lr_eth_dev *dev;
	const char *name;
	int server;
	uint32_t id;
	int abstract;
	unsigned sock_mode; /* of a socket file we create */
	uint32_t bsize;
	unsigned log2;
	char path[LR_UNIX_PATH_MAX];
	char secret[MIF_SECRET_SZ + 1];
	/* client zero-copy: region 1 and the pool over it, configure..close */
	int zc;
	struct mif_zc *zcp; /* ours; zc_mp: its pool */
	struct lr_mempool *zc_mp;
	unsigned zc_nq[2]; /* rx, tx queues with slot arrays */
	int zrx; /* server zero-copy receive (zero-copy=yes on a server) */
	/* while connected: other ports' pools announced as regions 2.. */
	struct mif_zc *xzc_hold[MIF_MAX_REGIONS - 2];
	struct mif_xzc xzc[MIF_MAX_REGIONS - 2];
	unsigned nxzc;
	/* control state, under lr_memif_lock_ */
	int started;
	int up;
	uint16_t nb_rxq, nb_txq;
	struct mif_listener *lis;
	struct mif_conn *conn;
	uint64_t retry_at;
	int waiting_logged; /* errno of the connect last logged, or 0 */
	unsigned sent;	    /* client: handshake messages sent */
	unsigned n_ring[2];
	unsigned run_log2;
	struct mif_region_map reg[MIF_MAX_REGIONS]; /* the queues' view */
	struct lr_shm shm[MIF_MAX_REGIONS]; /* a server's: fd once announced */
	unsigned nreg;
	int ring_fd[2][MIF_MAXQ];
	uint32_t ring_off[2][MIF_MAXQ];
	uint16_t ring_reg[2][MIF_MAXQ];
	uint8_t ring_log2[2][MIF_MAXQ];
	char peer_name[MIF_NAME_SZ + 1];
	_Atomic int bad; /* the datapath found a bad ring or descriptor */
	char bad_why[160];
	char last_reason[192]; /* of the last disconnect */
	uint64_t nb_connects;
	uint64_t nb_disconnects;
	struct mif_port *next;
};

/* Who ended a connection (lr_memif_port_disconnect_()). */
enum { BY_US = 0, BY_PEER = 1, BY_STOP = 2 };

/* The devargs of a memif port, parsed. */
struct memif_args {
	const char *role, *sock, *mac, *secret;
	uint64_t id, bsize, rsize;
	int abstract, zc;
	unsigned sock_mode;
};

/* ------------------------------------------------------------------ */
/* memif_rx_tx.c: the datapath. */

/*
 * The rx and tx burst functions of p's role and mode, into *rx and *tx
 * (chosen once, at probe and start): with offloads, tx does the software
 * offloads its frames ask for (ports); without, the bare burst (the fuzz
 * targets').
 */
void lr_memif_bursts_(const struct mif_port *p, int offloads,
		      lr_eth_rx_burst_t *rx, lr_eth_tx_burst_t *tx);

/* Client zero-copy rx: give slots [q->head, upto) fresh mbufs of the pool
 * and offer their buffers; the new head (short when the pool ran dry). */
uint16_t lr_memif_zc_rx_fill_(struct mif_queue *q, uint16_t upto);

/* Wait until no burst uses q, with q marked down. */
void lr_memif_queue_quiesce_(struct mif_queue *q);

/* Client zero-copy: give back the mbufs the slots of q's ring hold, q
 * quiesced: rx slots offered and not read (rx), tx slots not yet freed. */
void lr_memif_zc_release_(struct mif_queue *q, int rx);

/* ------------------------------------------------------------------ */
/* memif_socket.c: the control thread, its sockets and connections. */

/* Guards every port's control state, the listeners, the connections and
 * the zero-copy pools; the control thread holds it while it works. */
extern pthread_mutex_t lr_memif_lock_;

/* Wake the control thread (a queue found its peer at fault, a port
 * started). Any thread. */
void lr_memif_ctl_wake_(void);

/* Start the control thread if it is not running; 0 or -ENOMEM. */
int lr_memif_ctl_start_(void);

/* Make p one of the ports the control thread serves. */
void lr_memif_port_add_(struct mif_port *p);

/* p is no longer served; after the last port the control thread is
 * stopped (the lock is dropped and taken again around the join). */
void lr_memif_port_remove_(struct mif_port *p);

/* The control thread's round for p: end the connection its datapath
 * found at fault, retry a client's connect when it is time. */
void lr_memif_port_poll_(struct mif_port *p, uint64_t now);

/* The monotonic clock in nanoseconds. */
uint64_t lr_memif_now_ns_(void);

/* Listen on p's socket address, or share the listener another server
 * port made there; 0 or -errno (logged). */
int lr_memif_listener_get_(struct mif_port *p);

/* p stops listening; the last port of a listener closes it (and removes
 * its socket file, if it is still ours). */
void lr_memif_listener_put_(struct mif_port *p);

/* The started server port with this id on listener l, or NULL. */
struct mif_port *lr_memif_server_find_(struct mif_listener *l, uint32_t id);

/* Close connection c (freed after the control thread's round). */
void lr_memif_conn_close_(struct mif_conn *c);

/* ------------------------------------------------------------------ */
/* memif_control.c: the control messages and the connection's state. */

/* Handle what arrived on connection c (its messages, in turn). */
void lr_memif_conn_event_(struct mif_conn *c);

/* Server: send HELLO on connection fd just accepted; 0 or -errno. */
int lr_memif_send_hello_(int fd);

/*
 * Act on message m (len bytes; above MIF_MSG_SZ: longer) with nfds fds in
 * fds[] (-1: refused by the receive; taken over or closed either way)
 * that arrived on c: checked, then handled by the role's handler. 0 with
 * *reply the answer to send (type NONE: none), or -errno with c->why.
 */
int lr_memif_conn_msg_(struct mif_conn *c, const struct mif_msg *m, size_t len,
		       int *fds, int nfds, struct mif_msg *reply);

/* End connection c for the reason in c->why (a DISCONNECT tells the peer
 * why, unless it ended it). */
void lr_memif_conn_fail_(struct mif_conn *c);

/* p's link comes up: the queues whose rings exist are marked up. */
void lr_memif_port_up_(struct mif_port *p);

/*
 * Tear down p's connection: queues stopped, memory unmapped, fds closed;
 * a DISCONNECT with reason unless the peer ended it (by BY_PEER), logged
 * as an error when we found the peer at fault (BY_US), else a notice.
 */
void lr_memif_port_disconnect_(struct mif_port *p, const char *reason, int by);

/*
 * A memfd region r of at least size bytes named name for the peer, sealed
 * against shrinking (on hugepages when the EAL has them and free ones
 * remain); 0 or -errno with w's reason.
 */
int lr_memif_region_create_(const char *name, uint64_t size, struct lr_shm *r,
			    struct mif_why *w);

/* ------------------------------------------------------------------ */
/* memif_zc.c: zero-copy pools (client) and headers (server rx). */

/* The mempool ops of the server's zero-copy headers (their store). */
#define MIF_ZRX_OPS_NAME "net_memif_zrx"

/* Register MIF_ZRX_OPS_NAME unless it is; 0 or -errno. */
int lr_memif_zrx_register_(void);

/* Server zero-copy rx: headers for nrx rx queues of p (made at the first
 * configure, kept after); 0 or -errno (logged). */
int lr_memif_zrx_setup_(struct mif_port *p, uint16_t port_id, unsigned nrx);

/* Server zero-copy rx at close: free each queue's headers, or leave them
 * to the kept entry that holds them (reported). */
void lr_memif_zrx_teardown_(struct mif_port *p);

/* Server zero-copy rx at attach: whether rx queue q takes this
 * connection's packets with no copy. */
void lr_memif_zrx_attach_(struct mif_port *p, struct mif_queue *q);

/* Server zero-copy rx at disconnect (queues quiesced): 1 when headers of
 * this connection are still out and p's regions are kept mapped for them
 * (they move to a kept entry), 0 when they can be unmapped now. */
int lr_memif_zrx_keep_regions_(struct mif_port *p);

/* Unmap the kept peer regions whose zero-copy headers all came back. */
void lr_memif_kept_reap_(void);

/* Client zero-copy: region 1 and the pool over it, and slot arrays, for
 * nrx rx and ntx tx queues of p; 0 or -errno (logged). */
int lr_memif_zc_setup_(struct mif_port *p, uint16_t port_id, unsigned nrx,
		       unsigned ntx);

/* Client zero-copy at close: drop p's pool (kept, reported, while the
 * application holds its mbufs) and free the slot arrays. */
void lr_memif_zc_teardown_(struct mif_port *p);

/* Client zero-copy at HELLO: hold the other zero-copy pools (at most
 * max), to be announced as regions 2.. */
void lr_memif_zc_hold_others_(struct mif_port *p, unsigned max);

/* Drop a hold of pool z (name: who drops it, for the log). */
void lr_memif_zc_put_(struct mif_zc *z, const char *name);

/* ------------------------------------------------------------------ */
/* memif_ops.c: the ethdev operations. */

/* The ethdev operations of a memif port. */
extern const struct lr_eth_dev_ops lr_memif_ops_;

/* ------------------------------------------------------------------ */
/* memif_probe.c: devargs, probe, the driver. */

/* A new port named name as a says (no descriptors yet, in no list), or
 * NULL (out of memory). */
struct mif_port *lr_memif_port_new_(const char *name,
				    const struct memif_args *a);

/* Free port p, its connection torn down: it leaves the control thread's
 * ports (the last one stops the thread), its zero-copy pools and headers
 * are given back (or left, reported, under the mbufs the application
 * holds). Takes lr_memif_lock_. */
void lr_memif_port_free_(struct mif_port *p);

#endif /* MEMIF_PRIVATE_H */
