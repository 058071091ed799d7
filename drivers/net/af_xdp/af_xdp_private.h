/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * af_xdp_private.h - what the files of net_af_xdp share (never installed):
 * ports on AF_XDP sockets, UMEM from the page allocator (see
 * lr_eth_af_xdp.h for the devargs, the frame layout and the accounting).
 * The files, one concern each (as drivers/net/memif):
 *   af_xdp_rx_tx.c   the datapath: burst functions, fill-ring refill,
 *                    completion reclaim, software checksums on transmit;
 *   af_xdp_umem.c    UMEM and pool of a queue, the shared UMEMs;
 *   af_xdp_socket.c  the XSK sockets (start .. stop): libxdp's program or
 *                    the xdp_prog= one, open, close, frames taken back;
 *   af_xdp_ops.c     the ethdev operations (start, stop, queue setup,
 *                    close, link, promiscuous mode, stats, xstats);
 *   af_xdp_probe.c   checks at probe, devargs, probe, the driver and the
 *                    driver API of lr_eth_af_xdp.h.
 *
 * Life of a queue: setup allocates the UMEM block and lays the mbuf pool
 * over it (kept until close); start registers the UMEM, creates the socket
 * (libxdp loads its redirect program, through its dispatcher where bpffs
 * allows, else as a single program) and fills the fill ring; stop drains
 * the tx side, closes socket and UMEM registration and puts every frame
 * the kernel still held back into the pool.
 *
 * Functions shared between the files are hidden (the library is built
 * with -fvisibility=hidden and they are declared outside LR_BEGIN_DECLS)
 * and named lr_af_xdp_*_ (a static archive's globals all carry lr_: see
 * test/check_exports.sh); everything else is static to its file. Errors:
 * 0 or a negative errno.
 */
#ifndef AF_XDP_PRIVATE_H
#define AF_XDP_PRIVATE_H

#include <limits.h>
#include <linux/if_xdp.h>
#include <net/if.h>
#include <pthread.h>
#include <stdint.h>

#include <xdp/xsk.h>

#include "lr_eth_af_xdp.h"
#include "lr_ethdev_driver.h"
#include "lr_mbuf.h"
#include "lr_pagealloc.h"

#define FRAME_SHIFT   11
#define FRAME	      LR_AF_XDP_FRAME_SIZE
#define FRAMES_MAX    4096	/* frames per UMEM at most (8 MiB) */
#define REFILL_BATCH  32	/* refill the fill ring this many at once */
#define CHUNK	      64	/* frames moved per pool call */
#define TX_DRAIN_NS   200000000 /* stop waits this long for tx to finish */
#define DEFAULT_DESC  512
#define BIND_RETRIES  100   /* queue still held by a closed socket: */
#define BIND_RETRY_US 10000 /* retry for up to a second */
#define POOL_CACHE    128   /* per-lcore cache of a UMEM pool */

LR_BUILD_BUG_ON(FRAME != 1 << FRAME_SHIFT);

enum xdp_mode { MODE_AUTO, MODE_SKB, MODE_DRV };

struct axq;

#define SHARERS_MAX 64 /* queues on one shared UMEM at most */

/* A UMEM shared by the queues (of any af_xdp port with shared_umem=1) set
 * up with the same mempool. The memory and its mbuf pool live while a
 * queue refers to it (refs); the kernel registration while a socket on it
 * is open (nb_open). The socket that registered it owns the registration
 * fd: when its queue stops before the other sharers, it stays bound in the
 * kernel (parked) with the frames it held until the last sharer stops. */
struct shumem {
	struct shumem *next;
	const struct lr_mempool *key; /* mempool given at rx queue setup */
	struct lr_mempool *mp;	      /* pool over the UMEM */
	struct lr_page *page, *page2;
	unsigned order;
	char *base;
	size_t len;
	unsigned nb_frames;
	unsigned refs;
	struct axq *member[SHARERS_MAX];
	struct xsk_umem *umem; /* registration, NULL when not registered */
	unsigned nb_open;      /* sockets open on the registration */
	uint32_t fill_size, comp_size;
	struct axq *owner;  /* queue whose socket registered it */
	uint64_t *parked;   /* frames held by the parked registering socket */
	int parked_ifindex; /* -1: no socket parked */
	unsigned parked_queue;
	char parked_name[64];
};

/*
 * The shared UMEMs and every field of them are changed by the control calls
 * of any af_xdp port (queue setup and release, start, stop, close), and
 * lib/ethdev serializes control calls per port only: two ports set up or
 * stopped from two threads would race on the list and on a shumem's refs,
 * members and registration. So every control op of this driver that may
 * reach a shared UMEM runs under lr_af_xdp_shumem_lock_ (the *_op wrappers
 * in the ops table, and lr_eth_af_xdp_kernel_frames()); the functions below
 * them never take it, so they may call each other. The burst paths never
 * touch a shumem.
 */
extern pthread_mutex_t lr_af_xdp_shumem_lock_;

/* One XSK socket: port queue q's rx side (rx and fill rings) and tx side
 * (tx and completion rings) on separate cache lines. */
struct axq {
	/* rx side: written by the rx poller only */
	struct xsk_ring_cons rx;
	struct xsk_ring_prod fq;
	char *umem_mb;	       /* UMEM base + offset of the mbuf in a frame */
	struct lr_mempool *mp; /* pool over the UMEM */
	uint64_t *rx_held;     /* bit per frame: in the fill/rx rings */
	uint16_t buf_off;      /* frame start -> buf_addr */
	uint16_t port;
	uint8_t partial;     /* partial_csum: look for partial checksums */
	uint32_t refill_due; /* frames received, not yet replaced */
	int fd;
	/* BUSY_*: does a recvfrom() on an empty rx drive NAPI? Stored with
	 * __atomic (xstats read it from another thread). */
	int busy;
	struct lr_eth_queue_counters rxc; /* packets, bytes */
	/* xstats: lr_counter_add() by the queue's poller, lr_counter_read() */
	uint64_t rx_wakeups;
	uint64_t refill_fail; /* refills the pool could not serve */
	uint64_t rx_bad_desc; /* descriptors of frames not given */
	uint64_t rx_runts;    /* frames shorter than an Ethernet header */
	uint64_t rx_partial;  /* frames found with a partial checksum */

	/* tx side: written by the tx poller only */
	struct xsk_ring_prod tx __lr_cache_aligned;
	struct xsk_ring_cons cq;
	char *tx_umem_mb;
	char *tx_umem_base;
	struct lr_mempool *tx_mp;
	uint64_t *tx_held; /* bit per frame: in the tx/completion rings */
	uint16_t tx_buf_off;
	uint16_t tx_room; /* bytes a copied frame may carry */
	int tx_fd;
	uint32_t tx_kick_always;	  /* no need_wakeup: kick every burst */
	struct lr_eth_queue_counters txc; /* errors: too long for a frame */
	uint64_t tx_copies;
	uint64_t tx_kicks;
	uint64_t tx_ring_full; /* bursts cut short by a full tx ring */
	uint64_t tx_nobuf;     /* bursts cut short: no frame to copy into */
	uint64_t tx_bad_comp;  /* completions of frames not sent */
	uint64_t tx_offload_errors; /* checksum asked of a bad frame */

	/* control: start/stop/close only */
	struct xsk_umem *umem __lr_cache_aligned;
	struct xsk_socket *xsk;
	struct lr_page *page;  /* lowest block of the UMEM */
	struct lr_page *page2; /* the block right after it, or NULL */
	unsigned order;
	char *umem_base;
	size_t umem_len;
	unsigned nb_frames;
	uint32_t nb_rx_desc;
	uint32_t nb_tx_desc;
	uint8_t rx_set, tx_set, open, zerocopy;
	uint16_t qid;
	uint32_t tx_want;  /* tx descriptors asked before the UMEM came */
	struct shumem *sh; /* shared UMEM, or NULL: the queue's own */
	struct lr_eth_dev *dev;
	struct xdp_statistics xstats_old; /* sums of closed sockets */
	uint64_t recovered;		  /* frames taken back at stops */
};

struct axp {
	struct axq q[LR_MAX_QUEUES_PER_PORT];
	char iface[IF_NAMESIZE];
	int ifindex;
	unsigned start_queue;
	unsigned queue_count;
	unsigned busy_budget;
	enum xdp_mode mode;
	unsigned shared;  /* shared_umem=1 */
	unsigned partial; /* partial_csum= on (auto resolved at probe) */
	char xdp_prog[PATH_MAX];
	struct xdp_program *prog; /* xdp_prog= loaded at start */
	int xsks_map_fd;
	unsigned nb_open;
	int promisc_fd; /* packet socket holding promiscuous mode, or -1 */
};

/* Busy polling (busy_budget=N): a recvfrom() on an empty rx ring runs the
 * queue's NAPI on the caller's CPU. The kernel knows which NAPI only once a
 * frame came (the socket's NAPI id, 0 before), and some devices give none
 * (veth's XDP queues here): such a recvfrom polls nothing and only costs
 * a syscall. So: no busy recvfrom until the first frames, then on or off
 * for good by the socket's NAPI id (struct axq's busy). */
enum { BUSY_OFF, BUSY_WAIT, BUSY_ON };

/* Names of the modes (mode=), by enum xdp_mode. */
extern const char *const lr_af_xdp_mode_names_[3];

/* ------------------------------------------------------------------ */
/* af_xdp_rx_tx.c: the datapath. */

/* Receive burst of a queue (struct axq). */
uint16_t lr_af_xdp_rx_(void *rxq, struct lr_mbuf **pkts, uint16_t n);

/* Transmit burst of a queue (struct axq). */
uint16_t lr_af_xdp_tx_(void *txq, struct lr_mbuf **pkts, uint16_t n);

/* Give n frames of q's pool to its fill ring (at start); the count given. */
unsigned lr_af_xdp_refill_(struct axq *q, unsigned n);

/* One step of stop's tx drain: kick the kernel, take back what it sent. */
void lr_af_xdp_tx_drain_(struct axq *q);

/* ------------------------------------------------------------------ */
/* af_xdp_umem.c: UMEM and pool of a queue (setup .. close). */

/* Largest UMEM of one queue: one block, or two adjacent ones. */
size_t lr_af_xdp_umem_max_bytes_(void);

/* Give queue qid a UMEM: the shared one of mempool key when the port has
 * shared_umem=1 and key is not NULL (the first such queue allocates it),
 * else its own; 0 or -errno after logging. */
int lr_af_xdp_umem_alloc_(struct lr_eth_dev *dev, uint16_t qid,
			  const struct lr_mempool *key);

/* Drop queue qid's UMEM (a shared one when its last sharer leaves). */
void lr_af_xdp_umem_free_(struct lr_eth_dev *dev, uint16_t qid);

/* ------------------------------------------------------------------ */
/* af_xdp_socket.c: the sockets (start .. stop). */

/* Open and attach the xdp_prog= program of dev; 0 or -errno (logged). */
int lr_af_xdp_load_custom_prog_(struct lr_eth_dev *dev);

/* Detach and close p's xdp_prog= program, if loaded. */
void lr_af_xdp_unload_custom_prog_(struct axp *p);

/* Open queue qid's socket and fill its fill ring; 0 or -errno (logged). */
int lr_af_xdp_sock_open_(struct lr_eth_dev *dev, uint16_t qid);

/* Drain and close queue qid's socket; frames the kernel held go back to
 * the pool. */
void lr_af_xdp_sock_close_(struct lr_eth_dev *dev, uint16_t qid);

/* Frames the kernel holds of queue q's UMEM (shared: of every sharer and
 * the parked socket); under lr_af_xdp_shumem_lock_. */
unsigned lr_af_xdp_kernel_frames_(const struct axq *q);

/* ------------------------------------------------------------------ */
/* af_xdp_ops.c: the ethdev operations. */

/* The ethdev operations of an af_xdp port. */
extern const struct lr_eth_dev_ops lr_af_xdp_ops_;

#endif /* AF_XDP_PRIVATE_H */
