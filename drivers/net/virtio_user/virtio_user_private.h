/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * virtio_user_private.h - what the files of net_virtio_user share (never
 * installed): the port, its virtqueues and queues, and the functions one
 * file calls in another. The files, one concern each:
 *   virtio_user_rx_tx.c    the datapath over split virtqueues: burst
 *                          functions, ring layout in the shared region and
 *                          ring reset; it never touches the socket (a
 *                          kick is an eventfd write, a fault is handed to
 *                          the connection thread through the port's `bad`);
 *   virtio_user_packed.c   the datapath over packed virtqueues
 *                          (packed_vq=1), the same buffers and checks;
 *   virtio_user_control.c  the vhost-user messages the frontend sends, in
 *                          the order of a set-up and of a stop, every reply
 *                          checked (lr_vhost_user_msg_check()) before use;
 *   virtio_user_socket.c   the connection thread: connect (client) or
 *                          accept (server=1), set-up, link up, watch the
 *                          socket, link down and reconnect;
 *   virtio_user_ops.c      the ethdev operations;
 *   virtio_user_probe.c    devargs, probe, the driver.
 *
 * Memory: one memfd region per port (lr_shm.h), made at configure and
 * kept until close: for each ring its descriptor table, available and
 * used rings, then its packet buffers (one of VU_BSIZE bytes per
 * descriptor) and its short slots (one of VU_SSIZE bytes per descriptor);
 * a transmit descriptor is pointed at its id's buffer, its short slot or
 * a zero-copy frame as each frame is put on it. The whole region is the
 * first entry of SET_MEM_TABLE, its
 * guest-physical address being our virtual one (as DPDK's virtio-user
 * does). Received packets are copied from these buffers into mbufs (see
 * virtio_user_rx_tx.c for why).
 *
 * Zero-copy transmit (split and packed rings, zero_copy=1, the default):
 * the EAL's hugepage segments that have a descriptor another process can
 * map (lr_memseg.share_fd: a hugetlbfs file or memfd) follow in the memory
 * table, and a frame whose one buffer lies in one of them goes on the
 * ring as it is: its virtio-net header written into its headroom, the
 * descriptor pointing there, the mbuf held (vr->tx_mbuf) until the
 * backend has used it. Other frames (under VU_ZC_MIN bytes; ordinary
 * memory: --no-huge; chains; shared mbufs; offloads) are copied into the
 * buffers.
 * Like DPDK's virtio-user, this shows the backend the whole hugepage heap:
 * zero_copy=0 keeps it to the port's own region.
 *
 * Quiescing: a burst marks its queue busy (seq_cst store) and returns at
 * once when the queue is not up; the connection thread clears `up` and
 * waits for `busy` to drop before it resets or tears down a ring.
 *
 * Functions shared between files are hidden and named lr_vu_*_; errors are
 * 0 or a negative errno.
 */
#ifndef VIRTIO_USER_PRIVATE_H
#define VIRTIO_USER_PRIVATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "lr_ethdev_driver.h"
#include "lr_mbuf.h"
#include "lr_net.h"
#include "lr_shm.h"
#include "lr_unix.h"
#include "lr_vhost_user.h"
#include "lr_virtio.h"

#define VU_MAXQ		 LR_MAX_QUEUES_PER_PORT
#define VU_BSIZE	 2048u /* bytes of a packet buffer (header included) */
#define VU_RETRY_MS	 100   /* client: between two connect attempts */
#define VU_MSG_TIMEOUT	 5000  /* ms a reply may take */
#define VU_DEFAULT_QSIZE 256u
#define VU_TSO_SEGS_MAX	 128 /* segments of a super-frame cut here */
/* Hugepage segments shared for zero-copy transmit: the memory table's
 * entries after the port's own region. */
#define VU_ZC_MAX (LR_VHOST_USER_MAX_REGIONS - 1)
/* Shortest frame sent with no copy: below it a copy into the ring's own
 * buffer (header and frame in one 128-byte pair of lines) costs the
 * backend less than reading the header from the frame's headroom line
 * and the frame from the next (lr-pktgen -> lr-l2fwd here, Mpps, copy
 * against zero copy: 64 B 16.4 against 6.2; 256 B 3.9 against 10.9;
 * 512 B 3.1 against 20.2). */
#define VU_ZC_MIN 256u
/* A short slot: a copied frame whose header and bytes fit (a 60-byte
 * frame and the 12-byte header) goes there, the slots of consecutive ids
 * side by side, so that such frames share cache lines (9 lines for 8
 * frames, where a buffer of its own each took 16: every line written here
 * is one the backend's CPU read last, and fetched back to be written). */
#define VU_SSIZE 72u

/* One virtqueue in the shared region: split, or packed (pdesc, and the
 * driver's and device's event areas where split has avail and used; the
 * indexes are then slots 0..num-1 with their wrap counters). */
struct vu_vring {
	struct lr_vring_desc *desc;
	struct lr_vring_packed_desc *pdesc;
	struct lr_vring_packed_event *drv_event; /* packed: ours */
	struct lr_vring_packed_event *dev_event; /* packed: the backend's */
	uint8_t avail_wrap; /* packed: wrap counter of avail_idx */
	uint8_t used_wrap;  /* packed: wrap counter of last_used */
	struct lr_vring_avail *avail;
	struct lr_vring_used *used;
	uint8_t *bufs;	      /* num buffers of VU_BSIZE bytes */
	uint8_t *sbufs;	      /* tx: num short slots of VU_SSIZE bytes */
	uint16_t *free_ids;   /* tx: ids not on the ring (a FIFO) */
	uint16_t *chain_len;  /* tx: descriptors of the chain at a head
			       * on the ring, 0 when none is there */
	uint16_t *chain_next; /* tx: the id after an id of a chain (ours,
			       * not the ring's next, which the backend
			       * could change) */
	struct lr_mbuf **tx_mbuf; /* tx, zero copy: the mbuf descriptor id
				   * points into, or NULL */
	uint16_t num;	      /* descriptors (a power of two) */
	uint16_t mask;	      /* num - 1 */
	uint16_t avail_idx;   /* the avail index we publish next */
	uint16_t last_used;   /* the used entry we read next */
	uint16_t ev_mark;     /* EVENT_IDX: last_used at used_event's move */
	uint16_t free_head;   /* tx: FIFO read position */
	uint16_t nfree;	      /* tx: ids in the FIFO */
	uint16_t done_id;     /* tx, in order: head of the next chain used */
	uint64_t desc_off;    /* offsets in the region */
	uint64_t avail_off;
	uint64_t used_off;
	uint64_t bufs_off;
	uint64_t sbufs_off;
	int kick_fd; /* eventfd we write to kick the backend */
	int call_fd; /* eventfd the backend writes to call us */
};

struct vu_port;

/* One rx or tx queue; datapath fields first. */
struct vu_queue {
	_Atomic int busy; /* a burst is running */
	_Atomic int up;	  /* ring set up and the link up */
	struct vu_vring vr;
	struct lr_mempool *mp; /* rx: where packets are copied into */
	struct vu_port *p;
	uint16_t qid;
	uint16_t port_id;
	uint8_t event_idx; /* RING_EVENT_IDX negotiated */
	uint8_t mrg;	   /* MRG_RXBUF negotiated */
	uint8_t in_order;  /* IN_ORDER negotiated */
	uint8_t hdr_len;   /* virtio-net header bytes (12) */
	uint8_t packed;	   /* RING_PACKED negotiated */
	uint8_t host_csum; /* CSUM: the backend completes partial sums */
	uint8_t host_tso;  /* HOST_TSO4 and 6: it takes TCP super-frames */
	uint8_t zc_n;	   /* tx: shared memory ranges (zero copy), or 0 */
	uintptr_t zc_lo[VU_ZC_MAX], zc_hi[VU_ZC_MAX]; /* [lo, hi) each */
	struct lr_eth_queue_counters c;
	uint64_t kicks;		 /* eventfd writes to the backend */
	uint64_t calls;		 /* backend calls seen (control thread) */
	uint64_t ring_full;	 /* tx: bursts cut short by a full ring */
	uint64_t link_down;	 /* tx: frames dropped, link down */
	uint64_t too_long;	 /* tx: frames over one buffer, dropped */
	uint64_t offload_errors; /* tx: offloads a frame could not have */
	uint64_t zero_copy;	 /* tx: frames sent from their own buffer */
} __lr_cache_aligned;

struct vu_port {
	struct vu_queue rxq[VU_MAXQ];
	struct vu_queue txq[VU_MAXQ];
	struct lr_eth_dev *dev;
	const char *name;
	char path[LR_UNIX_PATH_MAX];
	int server;	 /* server=1: we listen, the backend connects */
	uint16_t queues; /* queue pairs offered (devarg) */
	uint16_t nq;	 /* queue pairs set up (configure) */
	uint32_t qsize;	 /* descriptors per ring */
	int want_mrg;	 /* devargs */
	int want_in_order;
	int packed;	   /* packed_vq=1: packed rings (required) */
	int zero_copy;	   /* devarg: share the hugepage heap (tx) */
	unsigned zc_n;	   /* segments shared in the memory table */
	uintptr_t zc_lo[VU_ZC_MAX], zc_hi[VU_ZC_MAX];
	int zc_fd[VU_ZC_MAX];
	uint64_t features; /* negotiated */
	uint64_t protocol; /* negotiated protocol features */
	struct lr_shm shm; /* every ring and buffer of the port */
	/* the connection thread and what it owns */
	pthread_t thr;
	int thr_on;
	int wake_fd;	      /* eventfd: stop, or a fault to handle */
	int lis;	      /* server: listening socket, or -1 */
	int sock;	      /* the connection, or -1 */
	_Atomic int stopping; /* the thread ends at its next round */
	_Atomic int link;     /* 1 while set up and connected */
	_Atomic int bad;      /* the datapath found a ring at fault */
	char bad_why[128];
	char why[192];	      /* what went wrong last (set-up, link down) */
	int last_errno;	      /* client: the connect error logged last */
	uint64_t connects;    /* set-ups done */
	uint64_t disconnects; /* connections ended after a set-up */
	pthread_mutex_t lock; /* why, counters read by ops */
};

/* The devargs, parsed. */
struct vu_args {
	const char *path;
	int server, mrg, in_order, packed, zero_copy;
	uint64_t queues, qsize;
};

/* The virtio-net header with num_buffers (VERSION_1: always 12 bytes). */
struct vu_net_hdr {
	struct lr_net_vnet_hdr vh;
	uint16_t num_buffers;
};

/* A 16-bit ring field the backend writes, read before what it covers. */
static inline uint16_t
vu_load_acq16(const uint16_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

/* A 16-bit ring field we write, after what it covers. */
static inline void
vu_store_rel16(uint16_t *p, uint16_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

/* Mark q busy; 0 when it is up (then leave with vu_q_leave()), else -1. */
static inline int
vu_q_enter(struct vu_queue *q)
{
	atomic_store_explicit(&q->busy, 1, memory_order_seq_cst);
	if (lr_likely(atomic_load_explicit(&q->up, memory_order_seq_cst)))
		return 0;
	atomic_store_explicit(&q->busy, 0, memory_order_release);
	return -1;
}

/* The burst on q is over. */
static inline void
vu_q_leave(struct vu_queue *q)
{
	atomic_store_explicit(&q->busy, 0, memory_order_release);
}

/* The virtio-net header of m into h: 0, or -1 when m asks for an offload
 * the header cannot describe (counted). */
static inline int
vu_tx_hdr(struct vu_queue *q, struct lr_mbuf *m, struct vu_net_hdr *h)
{
	memset(h, 0, sizeof(*h));
	if (lr_likely((m->ol_flags & LR_MBUF_F_OFFLOAD_MASK) == 0))
		return 0;
	if (lr_net_vnet_tx(m, &h->vh) != 0) {
		lr_counter_add(&q->offload_errors, 1);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* virtio_user_rx_tx.c: split rings, layout, reset; what both share. */

/* The backend wrote something a ring cannot hold (what, value v): take
 * the link down (cold). */
void lr_vu_ring_fault_(struct vu_queue *q, const char *what, unsigned v)
    __attribute__((noinline, cold));

/* Free every packet of a burst the link cannot take; n (cold). */
uint16_t lr_vu_tx_drop_all_(struct vu_queue *q, struct lr_mbuf **pkts,
			    uint16_t n) __attribute__((noinline, cold));

/* Send pkts[0..n) through burst fn, the offloads the backend does not
 * take done first in software (checksums; segmentation of a super-frame
 * the header cannot carry); the number of pkts consumed (cold: a burst
 * with an offload flag). */
uint16_t lr_vu_tx_soft_(struct vu_queue *q, struct lr_mbuf **pkts, uint16_t n,
			lr_eth_tx_burst_t fn) __attribute__((noinline, cold));

/* Drop m, which the ring will never take (too_long: over the ring);
 * counted (cold). */
void lr_vu_tx_bad_(struct vu_queue *q, struct lr_mbuf *m, int too_long)
    __attribute__((noinline, cold));

/* The burst functions (split rings). */
uint16_t lr_vu_rx_burst_(void *queue, struct lr_mbuf **pkts, uint16_t n);
uint16_t lr_vu_tx_burst_(void *queue, struct lr_mbuf **pkts, uint16_t n);

/* Bytes of p's shared region for p->nq queue pairs of p->qsize, and the
 * offsets of each ring's parts set in the queues. */
uint64_t lr_vu_layout_(struct vu_port *p);

/* Point every ring of p at its place in p->shm and make it new: no
 * descriptor on any ring but every rx buffer offered, every tx id free,
 * calls suppressed. The queues must be down and quiesced. */
void lr_vu_rings_reset_(struct vu_port *p);

/* Wait until no burst uses q, with q marked down. */
void lr_vu_queue_quiesce_(struct vu_queue *q);

/* Free the mbufs tx queue q holds on its ring (zero copy); q down, the
 * backend done with them (stopped or gone). */
void lr_vu_tx_release_(struct vu_queue *q);

/* The hugepage segments p shares for zero-copy transmit, into p->zc_*
 * (none with zero_copy=0). */
void lr_vu_zc_regions_(struct vu_port *p);

/* Tx: mbufs done with (sent by copy, or used by the backend), freed in
 * bulk. */
struct vu_free_batch {
	unsigned n;
	struct lr_mbuf *m[64];
};

/* Add m to d, freeing d's mbufs when it is full. */
static inline void
lr_vu_done_add_(struct vu_free_batch *d, struct lr_mbuf *m)
{
	d->m[d->n++] = m;
	if (lr_unlikely(d->n == LR_DIM(d->m))) {
		lr_pktmbuf_free_bulk(d->m, d->n);
		d->n = 0;
	}
}

/* Take the mbuf of tx descriptor id head (zero copy), if any, into d
 * (the next frame on head writes the descriptor's address, whichever
 * path it takes). */
static inline void
lr_vu_zc_take_(struct vu_vring *vr, uint32_t head, struct vu_free_batch *d)
{
	struct lr_mbuf *m = vr->tx_mbuf[head];

	if (m == NULL)
		return;
	vr->tx_mbuf[head] = NULL;
	lr_vu_done_add_(d, m);
}

/* Whether m can go on tx queue q's ring with no copy: VU_ZC_MIN bytes or
 * more, one buffer of its own in shared memory, room for the header
 * before its data, no offload. */
static inline int
lr_vu_zc_ok_(const struct vu_queue *q, const struct lr_mbuf *m)
{
	uintptr_t a = (uintptr_t)m->buf_addr;

	if (m->pkt_len < VU_ZC_MIN || m->nb_segs != 1 || m->refcnt != 1 ||
	    m->data_off < q->hdr_len ||
	    (m->ol_flags & LR_MBUF_F_OFFLOAD_MASK) != 0)
		return 0;
	for (unsigned k = 0; k < q->zc_n; k++)
		if (a >= q->zc_lo[k] && a + m->buf_len <= q->zc_hi[k])
			return 1;
	return 0;
}

/* The zero virtio-net header of hdr_len bytes (10 or 12) in m's headroom,
 * just before its data: stored only when it is not zero already (from
 * the buffer's last trip), so that its line stays in the backend's cache.
 * Where it starts. */
static inline uint8_t *
lr_vu_zc_header_(struct lr_mbuf *m, uint32_t hdr_len)
{
	uint8_t *h = lr_pktmbuf_mtod(m, uint8_t *) - hdr_len;
	uint64_t a;
	uint32_t b = 0;
	uint16_t c;

	memcpy(&a, h, 8);
	memcpy(&c, h + 8, 2);
	if (hdr_len > 10)
		memcpy(&b, h + hdr_len - 4, 4);
	if ((a | c | b) != 0)
		memset(h, 0, hdr_len);
	return h;
}

/* Tx: ids given back to the FIFO over one reclaim, its state in locals
 * (each id stored into the FIFO, a uint16_t, would otherwise make the
 * compiler read vr's fields again, every chain). */
struct vu_give {
	uint16_t *free_ids, *chain_len, *chain_next;
	uint16_t mask, num;
	uint16_t tail; /* FIFO write position */
	uint16_t n;    /* ids given back */
};

/* Start giving ids back to vr's FIFO with g. */
static inline void
lr_vu_give_start_(const struct vu_vring *vr, struct vu_give *g)
{
	g->free_ids = vr->free_ids;
	g->chain_len = vr->chain_len;
	g->chain_next = vr->chain_next;
	g->mask = vr->mask;
	g->num = vr->num;
	g->tail = (uint16_t)(vr->free_head + vr->nfree);
	g->n = 0;
}

/* The ids g gave back now in vr's FIFO. */
static inline void
lr_vu_give_end_(struct vu_vring *vr, const struct vu_give *g)
{
	LR_ASSERT(vr->nfree + g->n <= vr->num);
	vr->nfree = (uint16_t)(vr->nfree + g->n);
}

/* Tx: give back the chain of head through g; its descriptors, or -1 when
 * no chain of ours starts there (a fault). */
static inline int
lr_vu_tx_chain_free_(struct vu_queue *q, struct vu_give *g, uint32_t head)
{
	uint16_t n, id = (uint16_t)head;

	if (lr_unlikely(head >= g->num || g->chain_len[head] == 0)) {
		lr_vu_ring_fault_(q, "used id", head);
		return -1;
	}
	n = g->chain_len[head];
	g->chain_len[head] = 0;
	for (uint16_t k = 0; k < n; k++) {
		g->free_ids[g->tail++ & g->mask] = id;
		id = g->chain_next[id];
	}
	g->n = (uint16_t)(g->n + n);
	return n;
}

/* ------------------------------------------------------------------ */
/* virtio_user_packed.c: packed rings. */

/* The burst functions (packed rings). */
uint16_t lr_vu_rx_burst_packed_(void *queue, struct lr_mbuf **pkts, uint16_t n);
uint16_t lr_vu_tx_burst_packed_(void *queue, struct lr_mbuf **pkts, uint16_t n);

/* Make packed ring vr of the region at base new (rx: every buffer
 * offered), its backend's calls disabled. */
void lr_vu_packed_reset_(struct vu_vring *vr, uint8_t *base, int rx);

/* ------------------------------------------------------------------ */
/* virtio_user_control.c */

/* Set up the backend on p->sock: features, owner, memory table, every
 * ring, enable. 0, or a negative errno with p->why saying what failed. */
int lr_vu_setup_(struct vu_port *p);

/* Tell the backend the rings stop (SET_VRING_ENABLE 0, GET_VRING_BASE
 * each), best effort: a backend gone is fine. */
void lr_vu_teardown_msgs_(struct vu_port *p);

/* ------------------------------------------------------------------ */
/* virtio_user_socket.c */

/* Start p: a client connects and sets up at once (its errors are the
 * start's), a server listens; then the connection thread runs. 0 or a
 * negative errno (logged). */
int lr_vu_start_(struct vu_port *p);

/* Stop p: the thread stops the rings, ends the connection and exits. */
void lr_vu_stop_(struct vu_port *p);

/* Wake p's connection thread (the datapath found a fault). */
void lr_vu_wake_(struct vu_port *p);

/* Read what the backend's calls added on p's call eventfds into the
 * queues' counters (ops, under p->lock). */
void lr_vu_calls_collect_(struct vu_port *p);

/* ------------------------------------------------------------------ */
/* virtio_user_ops.c */

extern const struct lr_eth_dev_ops lr_vu_ops_;

#endif /* VIRTIO_USER_PRIVATE_H */
