/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vhost_private.h - what the files of net_vhost share (never installed):
 * the port, its virtqueues, and the functions one file calls in another.
 * net_vhost is the backend (device) side of vhost-user: a frontend (QEMU
 * for a VM, DPDK's virtio-user in a container) shares its memory and its
 * virtqueues over a Unix socket, and we move frames in and out of them.
 * The files, one concern each:
 *   vhost_rx_tx.c    the datapath: rx_burst takes frames from the guest's
 *                    transmit rings (odd virtqueues), tx_burst puts frames
 *                    into its receive rings (even virtqueues); split and
 *                    packed rings, with or without mergeable buffers, in
 *                    order; it never
 *                    touches the socket (a fault is handed to the control
 *                    thread through the port's `bad` flag and a wake-up);
 *   vhost_control.c  the protocol: one function per message, every field
 *                    checked (lr_vhost_user_msg_check(), then the state);
 *                    memory regions mapped, rings mapped, link up/down;
 *   vhost_socket.c   the control thread: listening or connecting (with
 *                    retries), the connection, kick counting;
 *   vhost_ops.c      the ethdev operations;
 *   vhost_probe.c    devargs, probe, the driver.
 * The wire format and the checked region table are lib/net's
 * (lr_vhost_user.h, lr_virtio.h); descriptors and regions come through
 * lr_unix.h and lr_shm.h.
 *
 * Locking: one mutex per port (p->lk) guards its control state; the
 * control thread holds it while it handles a message, the ethdev
 * operations briefly. Burst functions never take it: they see a ring's
 * `up` flag and mark themselves `busy` (ring_enter()); the control thread
 * clears `up` and waits for `busy` to drop (lr_vhost_ring_quiesce_())
 * before it changes or unmaps anything a ring uses.
 *
 * Shared functions are hidden (the library is built with hidden
 * visibility) and named lr_vhost_*_; everything else is static. Errors:
 * 0 or a negative errno; creators NULL with lr_errno set.
 */
#ifndef VHOST_PRIVATE_H
#define VHOST_PRIVATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "lr_ethdev_driver.h"
#include "lr_mbuf.h"
#include "lr_shm.h"
#include "lr_unix.h"
#include "lr_vhost_user.h"
#include "lr_virtio.h"

#define VH_MAXQP	  8 /* queue pairs a port may have */
#define VH_NRING	  (2 * VH_MAXQP)
#define VH_RETRY_MS	  100  /* a client's connect retry */
#define VH_MSG_TIMEOUT_MS 1000 /* for the rest of a message begun */
#define VH_FRAME_MAX	  (65535u + LR_VIRTIO_NET_HDR_MRG_LEN)
/* rx, split rings: mbufs taken from the pool in one get, at most */
#define VH_RX_BULK	  64u
#define VH_TSO_SEGS_MAX	  128 /* frames one super-frame is cut into here */

/* The virtio-net features we offer. */
#define VH_FEATURES                                                            \
	(LR_VIRTIO_BIT(LR_VIRTIO_F_VERSION_1) |                                \
	 LR_VIRTIO_BIT(LR_VHOST_USER_F_PROTOCOL_FEATURES) |                    \
	 LR_VIRTIO_BIT(LR_VIRTIO_NET_F_MRG_RXBUF) |                            \
	 LR_VIRTIO_BIT(LR_VIRTIO_F_IN_ORDER) |                                 \
	 LR_VIRTIO_BIT(LR_VIRTIO_F_RING_PACKED) |                              \
	 LR_VIRTIO_BIT(LR_VIRTIO_F_RING_EVENT_IDX) |                           \
	 LR_VIRTIO_BIT(LR_VIRTIO_F_NOTIFY_ON_EMPTY) |                          \
	 LR_VIRTIO_BIT(LR_VIRTIO_F_ANY_LAYOUT) |                               \
	 LR_VIRTIO_BIT(LR_VIRTIO_NET_F_MQ) |                                   \
	 LR_VIRTIO_BIT(LR_VIRTIO_NET_F_CSUM) |                                 \
	 LR_VIRTIO_BIT(LR_VIRTIO_NET_F_GUEST_CSUM) |                           \
	 LR_VIRTIO_BIT(LR_VIRTIO_NET_F_HOST_TSO4) |                            \
	 LR_VIRTIO_BIT(LR_VIRTIO_NET_F_HOST_TSO6) |                            \
	 LR_VIRTIO_BIT(LR_VIRTIO_NET_F_GUEST_TSO4) |                           \
	 LR_VIRTIO_BIT(LR_VIRTIO_NET_F_GUEST_TSO6))

/* The protocol features we offer. */
#define VH_PROTOCOL_FEATURES                                                   \
	(LR_VIRTIO_BIT(LR_VHOST_USER_PROTOCOL_F_MQ) |                          \
	 LR_VIRTIO_BIT(LR_VHOST_USER_PROTOCOL_F_REPLY_ACK) |                   \
	 LR_VIRTIO_BIT(LR_VHOST_USER_PROTOCOL_F_STATUS))

struct vh_port;

/* flush=: whether rx gives each frame's first line back to memory. */
enum { VH_FLUSH_OFF, VH_FLUSH_ON, VH_FLUSH_AUTO };

/* rx with flush=auto: how far the guest's CPU is, from the time a read of
 * avail->idx takes just after the guest moved it (a line from its CPU's
 * cache), timed once every VH_FAR_EVERY polls. Every VH_FAR_PERIOD_MS,
 * with VH_FAR_MIN samples or more, the ring gives frames' first lines
 * back while most samples took VH_FAR_NS or longer (bound, in cycles). */
#define VH_FAR_EVERY	 16
#define VH_FAR_PERIOD_MS 50
#define VH_FAR_MIN	 8
#define VH_FAR_NS	 100
struct vh_far {
	uint64_t decide_at; /* TSC of the next decision */
	uint64_t bound;	    /* VH_FAR_NS in TSC cycles */
	uint32_t far, near; /* samples at or over the bound, under it */
	uint16_t seen;	    /* avail->idx at the last poll */
	uint16_t polls;	    /* since the last timed one */
};

/* One virtqueue; datapath fields first. Ring 2q is the guest's receive
 * queue q (our tx queue q), ring 2q + 1 its transmit queue q (our rx). */
struct vh_ring {
	_Atomic int busy; /* a burst is running (written by the poller) */
	_Atomic int up;	  /* usable (written by the control thread) */
	struct lr_vring_desc *desc;
	struct lr_vring_avail *avail;
	struct lr_vring_used *used;
	/* packed ring (RING_PACKED): descriptors, event suppression areas */
	struct lr_vring_packed_desc *pdesc;
	struct lr_vring_packed_event *drv_ev; /* the driver's wishes */
	struct lr_vring_packed_event *dev_ev; /* ours */
	const struct lr_vhost_mem *mem;
	uint16_t size; /* descriptors (a power of two, <= 32768) */
	uint16_t mask;
	uint16_t last_avail;   /* next avail entry we take */
	uint16_t last_used;    /* next used entry we write */
	uint16_t ev_mark;      /* EVENT_IDX: last_avail at avail_event's move */
	uint16_t hdr_len;      /* 10 or 12 (VERSION_1 or MRG_RXBUF) */
	uint8_t mrg;	       /* MRG_RXBUF negotiated */
	uint8_t event_idx;     /* EVENT_IDX negotiated */
	uint8_t guest_csum;    /* GUEST_CSUM negotiated (tx offloads) */
	uint8_t guest_tso;     /* GUEST_TSO4/6 negotiated */
	uint8_t packed;	       /* RING_PACKED negotiated */
	uint8_t avail_wrap;    /* packed: wrap counter at last_avail */
	uint8_t used_wrap;     /* packed: wrap counter at last_used */
	uint8_t flush;	       /* rx: give frames' first lines back now */
	uint8_t give;	       /* rx: ... in this burst */
	uint8_t flush_mode;    /* rx: VH_FLUSH_* (devargs) */
	struct vh_far far;     /* rx, flush=auto: the guest CPU's distance */
	int call_fd;	       /* eventfd we write to interrupt, or -1 */
	struct lr_mempool *mp; /* rx: where mbufs come from */
	uint16_t port_id;
	uint16_t qid;
	struct vh_port *p;
	struct lr_eth_queue_counters c;
	uint64_t calls;		 /* call eventfd writes */
	uint64_t ring_full;	 /* tx: bursts stopped by a full ring */
	uint64_t bad_desc;	 /* descriptors refused */
	uint64_t offload_errors; /* offloads the guest cannot take */
	uint64_t tso_sw;	 /* tx: super-frames segmented here */
	uint64_t kicks;		 /* kicks read (control thread) */
	uint64_t flushed;	 /* rx: frames whose first line went back */
	/* control state, under p->lk */
	uint32_t num;
	uint32_t base;
	struct lr_vhost_user_vring_addr addr;
	int have_num, have_addr, have_kick;
	int kick_fd;
	int enabled;
	int mapped;
} __lr_cache_aligned;

struct vh_port {
	struct vh_ring ring[VH_NRING];
	struct lr_eth_dev *dev;
	const char *name;
	char path[LR_UNIX_PATH_MAX];
	unsigned qp;	    /* queue pairs offered */
	int flush;	    /* VH_FLUSH_* (devargs) */
	int client;	    /* we connect (else we listen) */
	pthread_mutex_t lk; /* the control state below */
	pthread_t thr;
	int thr_on;
	int wake_fd;	  /* eventfd: wakes the control thread */
	_Atomic int stop; /* the control thread ends */
	int lis_fd;	  /* server: listening socket, or -1 */
	dev_t lis_dev;	  /* the socket file we made */
	ino_t lis_ino;
	int conn_fd; /* the frontend's connection, or -1 */
	int started;
	int up;		    /* link */
	int waiting_logged; /* client: the connect error last logged */
	uint16_t nb_rxq, nb_txq;
	uint64_t features; /* negotiated (SET_FEATURES) */
	uint64_t proto;	   /* protocol features negotiated */
	int owner;
	uint8_t status;
	struct lr_vhost_mem mem;
	struct lr_shm shm[LR_VHOST_USER_MAX_REGIONS];
	_Atomic int bad; /* 0; 1 the datapath is writing bad_why; 2 set */
	char bad_why[160];
	char why[256]; /* why the last message was refused */
	uint64_t nb_connects;
	uint64_t nb_disconnects;
	uint64_t bad_msgs;
};

/* The devargs of a vhost port, parsed. */
struct vhost_args {
	const char *iface;
	uint64_t queues;
	int client;
	int flush; /* VH_FLUSH_* */
};

/* ------------------------------------------------------------------ */
/* vhost_rx_tx.c: the datapath. */

/* Frames from the guest's transmit ring q (ring 2q + 1) into pkts. */
uint16_t lr_vhost_rx_burst_(void *queue, struct lr_mbuf **pkts, uint16_t n);

/* Frames of pkts into the guest's receive ring q (ring 2q). */
uint16_t lr_vhost_tx_burst_(void *queue, struct lr_mbuf **pkts, uint16_t n);

/* Wait until no burst uses r, with r marked down. */
void lr_vhost_ring_quiesce_(struct vh_ring *r);

/* Reset r's flush state as its port's devargs say (r stopped). */
void lr_vhost_flush_reset_(struct vh_ring *r);

/* ------------------------------------------------------------------ */
/* vhost_control.c: the protocol. */

/*
 * Act on message m (len bytes received) with nfds descriptors in fds[]
 * (each one taken sets its slot to -1; the caller closes the rest): checked,
 * handled, answered on p->conn_fd. 0, or -errno with p->why saying why
 * (the connection must end).
 */
int lr_vhost_msg_(struct vh_port *p, const struct lr_vhost_user_msg *m,
		  size_t len, int *fds, unsigned nfds);

/* Bring p's rings up or down as their state and the port's say; the
 * link is up when rings 0 and 1 are. */
void lr_vhost_rings_update_(struct vh_port *p);

/* End p's connection: rings stopped, memory unmapped, descriptors closed,
 * negotiated state forgotten, link down; reason logged (as an error when
 * error, else as a notice), NULL for none. */
void lr_vhost_disconnect_(struct vh_port *p, const char *reason, int error);

/* ------------------------------------------------------------------ */
/* vhost_socket.c: the control thread. */

/* Start p's control thread (a server listens first); 0 or -errno
 * (logged). Called with p->lk held. */
int lr_vhost_ctl_start_(struct vh_port *p);

/* Stop p's control thread, end its connection, close its listening
 * socket (removing the socket file we made). Called without p->lk. */
void lr_vhost_ctl_stop_(struct vh_port *p);

/* Wake p's control thread (any thread). */
void lr_vhost_ctl_wake_(struct vh_port *p);

/* ------------------------------------------------------------------ */
/* vhost_ops.c, vhost_probe.c */

/* The ethdev operations of a vhost port. */
extern const struct lr_eth_dev_ops lr_vhost_ops_;

/* Free port p (stopped). */
void lr_vhost_port_free_(struct vh_port *p);

#endif /* VHOST_PRIVATE_H */
