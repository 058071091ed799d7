/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_af_xdp: ports on AF_XDP sockets, UMEM from the page allocator (see
 * lr_eth_af_xdp.h for the devargs, the frame layout and the accounting).
 *
 * Life of a queue: setup allocates the UMEM block and lays the mbuf pool
 * over it (kept until close); start registers the UMEM, creates the socket
 * (libxdp loads its redirect program, through its dispatcher where bpffs
 * allows, else as a single program) and fills the fill ring; stop drains
 * the tx side, closes socket and UMEM registration and puts every frame
 * the kernel still held back into the pool.
 *
 * Hot path, per burst: rx = one peek of the rx ring, per frame a few
 * shifts and masks to find its mbuf, one 8-byte rearm store and five
 * field stores, a bitmap clear; one release; a refill of the fill ring
 * from the pool's per-lcore cache when 32 frames are due. tx = reclaim of
 * the completion ring into the pool, per mbuf one descriptor (or a copy
 * for foreign mbufs), a bitmap set; one submit and one sendto() when the
 * kernel asks for a wakeup (always in copy mode). No lock, no atomic
 * other than the ring index loads/stores, no division, no allocation.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <linux/if_xdp.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include <xdp/xsk.h>

#include "lr_cycles.h"
#include "lr_eth_af_xdp.h"
#include "lr_eth_iface.h"
#include "lr_ethdev_driver.h"
#include "lr_mbuf.h"
#include "lr_net.h"
#include "lr_pagealloc.h"

#ifndef SO_PREFER_BUSY_POLL
#define SO_PREFER_BUSY_POLL 69
#endif
#ifndef SO_BUSY_POLL_BUDGET
#define SO_BUSY_POLL_BUDGET 70
#endif
#ifndef XDP_PACKET_HEADROOM
#define XDP_PACKET_HEADROOM 256
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

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

static const char *const afxdp_keys[] = {
    "iface",	   "start_queue", "queue_count", "mode",
    "busy_budget", "xdp_prog",	  "shared_umem", "partial_csum",
    NULL,
};

enum xdp_mode { MODE_AUTO, MODE_SKB, MODE_DRV };
static const char *const mode_names[] = {"auto", "skb", "drv"};

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
 * reach a shared UMEM runs under shumem_lock (the *_op wrappers in the ops
 * table, and lr_eth_af_xdp_kernel_frames()); the functions below them
 * never take it, so they may call each other. The burst paths never touch
 * a shumem.
 */
static pthread_mutex_t shumem_lock = PTHREAD_MUTEX_INITIALIZER;
static struct shumem *shumems; /* under shumem_lock */

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
	uint8_t partial; /* partial_csum: look for partial checksums */
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
	unsigned shared; /* shared_umem=1 */
	unsigned partial; /* partial_csum= on (auto resolved at probe) */
	char xdp_prog[PATH_MAX];
	struct xdp_program *prog; /* xdp_prog= loaded at start */
	int xsks_map_fd;
	unsigned nb_open;
	int promisc_fd; /* packet socket holding promiscuous mode, or -1 */
};

/* ------------------------------------------------------------------ */
/* Hot path. */

/* Busy polling (busy_budget=N): a recvfrom() on an empty rx ring runs the
 * queue's NAPI on the caller's CPU. The kernel knows which NAPI only once a
 * frame came (the socket's NAPI id, 0 before), and some devices give none
 * (veth's XDP queues here): such a recvfrom polls nothing and only costs
 * a syscall. So: no busy recvfrom until the first frames, then on or off
 * for good by the socket's NAPI id. */
enum { BUSY_OFF, BUSY_WAIT, BUSY_ON };

/* Give frames (mbufs of q->mp) to the fill ring; the count given. */
static unsigned
refill(struct axq *q, unsigned n)
{
	void *objs[CHUNK];
	unsigned done = 0;

	while (done < n) {
		unsigned k = LR_MIN(n - done, (unsigned)CHUNK);
		uint32_t idx;

		if (lr_unlikely(lr_mempool_get_bulk(q->mp, objs, k) != 0)) {
			lr_counter_add(&q->refill_fail, 1);
			break;
		}
		if (lr_unlikely(xsk_ring_prod__reserve(&q->fq, k, &idx) != k)) {
			/* Cannot happen: the ring has a slot for every frame
			 * of the queue and as many spare (sock_open). */
			lr_mempool_put_bulk(q->mp, objs, k);
			lr_counter_add(&q->refill_fail, 1);
			break;
		}
		for (unsigned i = 0; i < k; i++) {
			uint64_t off = (uint64_t)((char *)objs[i] - q->umem_mb);
			unsigned f = (unsigned)(off >> FRAME_SHIFT);

			q->rx_held[f >> 6] |= 1ULL << (f & 63);
			*xsk_ring_prod__fill_addr(&q->fq, idx + i) = off;
		}
		xsk_ring_prod__submit(&q->fq, k);
		done += k;
	}
	return done;
}

static __lr_cold uint16_t
rx_empty(struct axq *q)
{
	if (q->refill_due != 0)
		q->refill_due -= refill(q, q->refill_due);
	if (q->busy == BUSY_ON || xsk_ring_prod__needs_wakeup(&q->fq)) {
		lr_counter_add(&q->rx_wakeups, 1);
		recvfrom(q->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
	}
	return 0;
}

/* First frames on a busy-polling queue: is there a NAPI to poll? */
static __lr_cold void
busy_decide(struct axq *q)
{
	unsigned id = 0;
	socklen_t len = sizeof(id);

	if (getsockopt(q->fd, SOL_SOCKET, SO_INCOMING_NAPI_ID, &id, &len) ==
		0 &&
	    id != 0) {
		__atomic_store_n(&q->busy, BUSY_ON, __ATOMIC_RELAXED);
		LR_LOG(INFO, PMD, "port %u queue %u: busy polling NAPI %u\n",
		       q->port, q->qid, id);
		return;
	}
	__atomic_store_n(&q->busy, BUSY_OFF, __ATOMIC_RELAXED);
	LR_LOG(NOTICE, PMD,
	       "port %u queue %u: busy polling off: the kernel gives this "
	       "socket no NAPI to poll (SO_INCOMING_NAPI_ID is 0, as on veth); "
	       "frames come through the device's own NAPI\n",
	       q->port, q->qid);
}

/* A frame shorter than an Ethernet header: back to the pool, counted. */
static __lr_cold void
rx_runt(struct axq *q, struct lr_mbuf *m)
{
	lr_counter_add(&q->rx_runts, 1);
	lr_counter_add(&q->rxc.errors, 1);
	lr_pktmbuf_free(m);
}

/* partial_csum: mark the frames whose TCP/UDP checksum field holds only
 * the pseudo-header sum (XDP says nothing of checksum state). */
static __lr_cold __attribute__((noinline)) void
rx_partial_mark(struct axq *q, struct lr_mbuf **pkts, uint32_t n)
{
	uint64_t found = 0;

	for (uint32_t i = 0; i < n; i++)
		found += (uint64_t)lr_net_cksum_partial_mark(pkts[i]);
	if (found != 0)
		lr_counter_add(&q->rx_partial, found);
}

static uint16_t
afxdp_rx(void *rxq, struct lr_mbuf **pkts, uint16_t n)
{
	struct axq *q = rxq;
	char *umem_mb = q->umem_mb;
	uint64_t *held = q->rx_held;
	uint64_t bytes = 0;
	uint32_t idx, got, k = 0;
	uint16_t port = q->port;

	got = xsk_ring_cons__peek(&q->rx, n, &idx);
	if (got == 0)
		return rx_empty(q);
	if (lr_unlikely(q->busy == BUSY_WAIT))
		busy_decide(q);
	for (uint32_t i = 0; i < got; i++) {
		const struct xdp_desc *d =
		    xsk_ring_cons__rx_desc(&q->rx, idx + i);
		uint64_t a = d->addr, base = a & ~(uint64_t)(FRAME - 1);
		unsigned f = (unsigned)(a >> FRAME_SHIFT);
		struct lr_mbuf *m = (struct lr_mbuf *)(umem_mb + base);
		uint16_t data_off = (uint16_t)((a & (FRAME - 1)) - q->buf_off);

		if (lr_unlikely(!(held[f >> 6] & (1ULL << (f & 63)))))
			lr_counter_add(&q->rx_bad_desc, 1);
		held[f >> 6] &= ~(1ULL << (f & 63));
		lr_pktmbuf_rearm(m, lr_mbuf_rearm_word(data_off, port), d->len);
		if (lr_unlikely(d->len < LR_ETHER_HDR_LEN)) {
			rx_runt(q, m);
			continue;
		}
		bytes += d->len;
		pkts[k++] = m;
	}
	xsk_ring_cons__release(&q->rx, got);
	if (q->partial)
		rx_partial_mark(q, pkts, k);
	lr_counter_add(&q->rxc.packets, k);
	lr_counter_add(&q->rxc.bytes, bytes);
	q->refill_due += got;
	if (q->refill_due >= REFILL_BATCH)
		q->refill_due -= refill(q, q->refill_due);
	return (uint16_t)k;
}

/* Completed frames back to the pool. */
static __lr_always_inline void
reclaim(struct axq *q)
{
	void *objs[CHUNK];
	uint32_t idx, got;

	while ((got = xsk_ring_cons__peek(&q->cq, CHUNK, &idx)) != 0) {
		for (uint32_t i = 0; i < got; i++) {
			uint64_t a = *xsk_ring_cons__comp_addr(&q->cq, idx + i);
			uint64_t base = a & ~(uint64_t)(FRAME - 1);
			unsigned f = (unsigned)(a >> FRAME_SHIFT);

			if (lr_unlikely(
				!(q->tx_held[f >> 6] & (1ULL << (f & 63)))))
				lr_counter_add(&q->tx_bad_comp, 1);
			q->tx_held[f >> 6] &= ~(1ULL << (f & 63));
			objs[i] = q->tx_umem_mb + base;
		}
		xsk_ring_cons__release(&q->cq, got);
		lr_mempool_put_bulk(q->tx_mp, objs, got);
	}
}

static __lr_always_inline void
kick(struct axq *q)
{
	lr_counter_add(&q->tx_kicks, 1);
	if (sendto(q->tx_fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0 &&
	    errno != EAGAIN && errno != EBUSY && errno != ENOBUFS &&
	    errno != ENETDOWN)
		lr_counter_add(&q->txc.errors, 1);
}

/* Copy packet m (any pool, any segments) into a fresh UMEM frame; the
 * frame's mbuf or NULL when the pool has none. */
static __lr_cold struct lr_mbuf *
copy_to_frame(struct axq *q, const struct lr_mbuf *m)
{
	struct lr_mbuf *c = lr_pktmbuf_alloc(q->tx_mp);

	if (c == NULL)
		return NULL;
	lr_pktmbuf_copy_out(m, lr_pktmbuf_mtod(c, char *));
	c->data_len = (uint16_t)m->pkt_len;
	c->pkt_len = m->pkt_len;
	lr_counter_add(&q->tx_copies, 1);
	return c;
}

/* Descriptors on the tx ring the kernel has not taken yet? */
static __lr_always_inline int
tx_pending(struct xsk_ring_prod *r)
{
	return xsk_prod_nb_free(r, r->size) < r->size;
}

/* The checksums m's offload flags ask for, done here: AF_XDP hands the
 * frame to the device as it is. A frame they cannot be done for goes out
 * as it is (xstat tx_offload_errors). */
static __lr_cold void
tx_cksum_sw(struct axq *q, struct lr_mbuf *m)
{
	if (lr_net_cksum_offload(m) != 0)
		lr_counter_add(&q->tx_offload_errors, 1);
}

static uint16_t
afxdp_tx(void *txq, struct lr_mbuf **pkts, uint16_t n)
{
	struct axq *q = txq;
	struct lr_mbuf *done[LR_PKTMBUF_FREE_BATCH];
	unsigned nfree = 0, k = 0, i;
	uint64_t bytes = 0;
	uint32_t room, idx0;

	reclaim(q);
	room = xsk_prod_nb_free(&q->tx, n);
	if (lr_unlikely(room < n))
		lr_counter_add(&q->tx_ring_full, 1);
	idx0 = q->tx.cached_prod;
	for (i = 0; i < n && k < room; i++) {
		struct lr_mbuf *m = pkts[i];
		struct xdp_desc *d;
		uint64_t off;
		unsigned f;

		if (lr_unlikely(m->ol_flags & (LR_MBUF_F_L4_CKSUM_MASK |
					       LR_MBUF_F_TX_IP_CKSUM)))
			tx_cksum_sw(q, m);
		if (lr_unlikely(m->pool != q->tx_mp || m->nb_segs != 1 ||
				lr_mbuf_refcnt_read(m) != 1)) {
			/* Not a frame of this UMEM we may give away: copy. */
			struct lr_mbuf *c = NULL;

			if (lr_likely(m->pkt_len <= q->tx_room)) {
				c = copy_to_frame(q, m);
				if (c == NULL) {
					lr_counter_add(&q->tx_nobuf, 1);
					break;
				}
			} else {
				lr_counter_add(&q->txc.errors, 1);
			}
			if (nfree == LR_DIM(done)) {
				lr_pktmbuf_free_bulk(done, nfree);
				nfree = 0;
			}
			done[nfree++] = m;
			if (c == NULL)
				continue;
			m = c;
		}
		off = (uint64_t)((char *)m->buf_addr + m->data_off -
				 q->tx_umem_base);
		f = (unsigned)(off >> FRAME_SHIFT);
		q->tx_held[f >> 6] |= 1ULL << (f & 63);
		d = xsk_ring_prod__tx_desc(&q->tx, idx0 + k);
		d->addr = off;
		d->len = m->data_len;
		bytes += m->data_len;
		k++;
	}
	if (k != 0) {
		uint32_t idx;

		xsk_ring_prod__reserve(&q->tx, k, &idx);
		xsk_ring_prod__submit(&q->tx, k);
		lr_counter_add(&q->txc.packets, k);
		lr_counter_add(&q->txc.bytes, bytes);
	}
	/* Kick for new descriptors, and also when the ring is full or the
	 * call brought nothing but descriptors wait: copy mode sends at most
	 * 32 per kick, and a ring nobody kicks again stays full for good. */
	if ((k != 0 || i < n || tx_pending(&q->tx)) &&
	    (q->tx_kick_always || xsk_ring_prod__needs_wakeup(&q->tx)))
		kick(q);
	if (nfree != 0)
		lr_pktmbuf_free_bulk(done, nfree);
	return (uint16_t)i;
}

/* ------------------------------------------------------------------ */
/* Checks at probe. */

static int
cap_has(const struct __user_cap_data_struct *d, int cap)
{
	return (d[cap >> 5].effective >> (cap & 31)) & 1;
}

static int
caps_get(struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h = {
	    .version = _LINUX_CAPABILITY_VERSION_3,
	    .pid = 0,
	};

	memset(d, 0, 2 * sizeof(*d));
	return (int)syscall(SYS_capget, &h, d);
}

static int
check_permission(const char *name, struct __user_cap_data_struct caps[2])
{
	int raw = cap_has(caps, CAP_NET_RAW);
	int admin = cap_has(caps, CAP_NET_ADMIN);
	int bpf = cap_has(caps, CAP_BPF) || cap_has(caps, CAP_SYS_ADMIN);

	if (raw && admin && bpf)
		return 0;
	LR_LOG(ERR, PMD,
	       "%s: no permission for AF_XDP: missing%s%s%s; run as root or "
	       "grant CAP_NET_RAW, CAP_NET_ADMIN and CAP_BPF\n",
	       name, raw ? "" : " CAP_NET_RAW", admin ? "" : " CAP_NET_ADMIN",
	       bpf ? "" : " CAP_BPF");
	return -EPERM;
}

/* RLIMIT_MEMLOCK covers the UMEMs unless we hold CAP_IPC_LOCK; raise it
 * when allowed, else say what to raise. */
static int
check_memlock(const char *name, size_t need,
	      const struct __user_cap_data_struct caps[2])
{
	struct rlimit rl;

	if (cap_has(caps, CAP_IPC_LOCK))
		return 0;
	if (getrlimit(RLIMIT_MEMLOCK, &rl) != 0 ||
	    rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need)
		return 0;
	{
		struct rlimit want = rl;

		want.rlim_cur = need;
		if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need)
			want.rlim_max = need;
		if (setrlimit(RLIMIT_MEMLOCK, &want) == 0) {
			LR_LOG(INFO, PMD,
			       "%s: raised RLIMIT_MEMLOCK from %llu to %zu KiB "
			       "for the UMEM\n",
			       name, (unsigned long long)rl.rlim_cur >> 10,
			       need >> 10);
			return 0;
		}
	}
	LR_LOG(ERR, PMD,
	       "%s: the UMEM needs %zu KiB of locked memory but "
	       "RLIMIT_MEMLOCK is %llu KiB and cannot be raised: raise it "
	       "(ulimit -l %zu, LimitMEMLOCK= for a service) or grant "
	       "CAP_IPC_LOCK\n",
	       name, need >> 10, (unsigned long long)rl.rlim_cur >> 10,
	       need >> 10);
	return -ENOBUFS;
}

/* Receive queues of the interface: ethtool channels, else sysfs. */
static int
iface_queues(const char *ifname)
{
	struct ethtool_channels ch = {.cmd = ETHTOOL_GCHANNELS};
	struct ifreq ifr;
	char path[128];
	int fd, n = -1;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		memset(&ifr, 0, sizeof(ifr));
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
		ifr.ifr_data = (void *)&ch;
		if (ioctl(fd, SIOCETHTOOL, &ifr) == 0)
			n = (int)(ch.combined_count + ch.rx_count);
		close(fd);
	}
	if (n > 0)
		return n;
	n = 0;
	for (;; n++) {
		snprintf(path, sizeof(path), "/sys/class/net/%s/queues/rx-%d",
			 ifname, n);
		if (access(path, F_OK) != 0)
			break;
	}
	return n > 0 ? n : 1;
}

static int
iface_mac(const char *ifname, struct lr_ether_addr *mac)
{
	struct ifreq ifr;
	int fd, rc = -1;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) == 0) {
		memcpy(mac->addr_bytes, ifr.ifr_hwaddr.sa_data, 6);
		rc = 0;
	}
	close(fd);
	return rc;
}

/* Frames per UMEM: as many as one block of at most the largest order
 * holds, up to FRAMES_MAX. */
static unsigned
umem_order(void)
{
	unsigned order = LR_MAX_ORDER - 1;

	while (order > 0 &&
	       ((size_t)LR_PAGE_SIZE << order) > (size_t)FRAMES_MAX * FRAME)
		order--;
	return order;
}

/* Largest UMEM of one queue: one block, or two adjacent ones. */
static size_t
umem_max_bytes(void)
{
	size_t block = (size_t)LR_PAGE_SIZE << umem_order();

	return block >= (size_t)FRAMES_MAX * FRAME ? block : 2 * block;
}

/* ------------------------------------------------------------------ */
/* UMEM and pool of a queue (setup .. close). */

/* A UMEM must be virtually contiguous and a block holds at most
 * LR_MAX_ORDER - 1 pages (4 MiB of 4 KiB pages: 2048 frames). When a block
 * does not reach FRAMES_MAX, take a second one and keep it if the buddy
 * heap placed it right before or after the first (common in a fresh heap):
 * the UMEM doubles and the rx ring may be twice as deep. Otherwise give it
 * back and stay with one block. */
static void
umem_grow(struct lr_eth_dev *dev, struct axq *q)
{
	struct lr_page *pg;
	char *a;

	if (q->umem_len >= (size_t)FRAMES_MAX * FRAME)
		return;
	pg =
	    lr_alloc_pages(dev->data->socket_id, q->order,
			   LR_ALLOC_PINNED | LR_ALLOC_ZERO | LR_ALLOC_THISNODE);
	if (pg == NULL)
		return;
	a = lr_page_address(pg);
	if (a == q->umem_base + q->umem_len) {
		q->page2 = pg;
	} else if (a + q->umem_len == q->umem_base) {
		q->page2 = q->page;
		q->page = pg;
		q->umem_base = a;
	} else {
		lr_free_pages(pg, q->order);
		return;
	}
	q->umem_len *= 2;
}

/* Give a UMEM's one or two blocks back to the allocator, owner cleared. */
static void
umem_blocks_free(struct lr_page *page, struct lr_page *page2, unsigned order)
{
	lr_page_set_owner(page, NULL, NULL);
	lr_free_pages(page, order);
	if (page2 != NULL) {
		lr_page_set_owner(page2, NULL, NULL);
		lr_free_pages(page2, order);
	}
}

/* Free a UMEM (the pool over it and its blocks) unless the application
 * still holds frames of it: freeing would hand its mbufs to others, so the
 * UMEM is kept (logged, naming `what`). 0, or -EBUSY when kept. */
static int
umem_release(const char *what, struct lr_mempool *mp, struct lr_page *page,
	     struct lr_page *page2, unsigned order, unsigned nb_frames)
{
	unsigned in_use = lr_mempool_in_use_count(mp);

	if (in_use != 0) {
		LR_LOG(ERR, PMD,
		       "%s: %u of %u UMEM frames still held by the "
		       "application at the last close; the UMEM is kept "
		       "(leaked)\n",
		       what, in_use, nb_frames);
		return -EBUSY;
	}
	lr_mempool_free(mp);
	umem_blocks_free(page, page2, order);
	return 0;
}

static void
umem_pages_free(struct axq *q)
{
	umem_blocks_free(q->page, q->page2, q->order);
	q->page = q->page2 = NULL;
}

/* Point queue q at a UMEM (base, len) and the pool over it. */
static int
queue_bind_mem(struct lr_eth_dev *dev, struct axq *q, char *base, size_t len,
	       struct lr_mempool *mp)
{
	size_t words;

	q->umem_base = base;
	q->umem_len = len;
	q->nb_frames = (unsigned)(len / FRAME);
	words = (q->nb_frames + 63) / 64;
	q->rx_held = calloc(words, sizeof(uint64_t));
	q->tx_held = calloc(words, sizeof(uint64_t));
	if (q->rx_held == NULL || q->tx_held == NULL) {
		free(q->rx_held);
		free(q->tx_held);
		q->rx_held = q->tx_held = NULL;
		return -ENOMEM;
	}
	q->mp = q->tx_mp = mp;
	q->buf_off = q->tx_buf_off = (uint16_t)lr_pktmbuf_xmem_buf_offset(0);
	q->umem_mb = q->tx_umem_mb = base + lr_mempool_obj_offset(0);
	q->tx_umem_base = base;
	q->tx_room =
	    (uint16_t)(lr_pktmbuf_data_room_size(mp) - LR_PKTMBUF_HEADROOM);
	q->port = dev->data->port_id;
	q->partial =
	    (uint8_t)((const struct axp *)dev->data->dev_private)->partial;
	q->dev = dev;
	return 0;
}

static struct shumem *
shumem_find(const struct lr_mempool *key)
{
	for (struct shumem *g = shumems; g != NULL; g = g->next)
		if (g->key == key)
			return g;
	return NULL;
}

static int
shumem_join(struct lr_eth_dev *dev, uint16_t qid, struct shumem *g)
{
	struct axp *p = dev->data->dev_private;
	struct axq *q = &p->q[qid];
	unsigned i;

	for (i = 0; i < SHARERS_MAX && g->member[i] != NULL; i++)
		;
	if (i == SHARERS_MAX) {
		LR_LOG(ERR, PMD,
		       "%s: queue %u: shared UMEM '%s' has %u sharers "
		       "already, the most\n",
		       dev->data->name, qid, g->mp->name, SHARERS_MAX);
		return -ENOSPC;
	}
	if (queue_bind_mem(dev, q, g->base, g->len, g->mp) != 0)
		return -ENOMEM;
	g->member[i] = q;
	g->refs++;
	q->sh = g;
	return 0;
}

static void
shumem_leave(struct axq *q)
{
	struct shumem *g = q->sh, **pp;
	char what[LR_MEMPOOL_NAMESIZE + 16];

	for (unsigned i = 0; i < SHARERS_MAX; i++)
		if (g->member[i] == q)
			g->member[i] = NULL;
	q->sh = NULL;
	if (--g->refs != 0)
		return;
	for (pp = &shumems; *pp != g; pp = &(*pp)->next)
		;
	*pp = g->next;
	snprintf(what, sizeof(what), "shared UMEM '%s'", g->mp->name);
	umem_release(what, g->mp, g->page, g->page2, g->order, g->nb_frames);
	free(g->parked);
	free(g);
}

/* A zeroed shared-UMEM entry with its parked-frame bitmap; NULL when out
 * of memory. */
static struct shumem *
shumem_new(void)
{
	struct shumem *g = calloc(1, sizeof(*g));

	if (g != NULL)
		g->parked = calloc((FRAMES_MAX + 63) / 64, sizeof(uint64_t));
	if (g == NULL || g->parked == NULL) {
		free(g);
		return NULL;
	}
	return g;
}

/* Give queue q of dev pinned, zeroed pages for its UMEM (grown to two
 * blocks when it can be); 0 or -ENOMEM after logging. */
static int
umem_pages_get(struct lr_eth_dev *dev, struct axq *q)
{
	q->order = umem_order();
	q->page = lr_alloc_pages(dev->data->socket_id, q->order,
				 LR_ALLOC_PINNED | LR_ALLOC_ZERO);
	if (q->page == NULL) {
		LR_LOG(ERR, PMD,
		       "%s: queue %u: no pages for a UMEM of %zu KiB: %s\n",
		       dev->data->name, q->qid,
		       ((size_t)LR_PAGE_SIZE << q->order) >> 10,
		       lr_strerror(lr_errno));
		return -ENOMEM;
	}
	q->umem_base = lr_page_address(q->page);
	q->umem_len = (size_t)LR_PAGE_SIZE << q->order;
	q->page2 = NULL;
	umem_grow(dev, q);
	return 0;
}

/* Hand queue q's UMEM (pages and pool mp) to the new shared entry g of
 * mempool key and list g: the shared UMEM owns the memory from now on. */
static void
shumem_adopt(struct shumem *g, struct axq *q, const struct lr_mempool *key,
	     struct lr_mempool *mp)
{
	g->key = key;
	g->mp = mp;
	g->page = q->page;
	g->page2 = q->page2;
	g->order = q->order;
	g->base = q->umem_base;
	g->len = q->umem_len;
	g->nb_frames = q->nb_frames;
	g->refs = 1;
	g->member[0] = q;
	g->parked_ifindex = -1;
	g->next = shumems;
	shumems = g;
	q->sh = g;
	q->page = q->page2 = NULL;
}

/* Give queue qid a UMEM: the shared one of mempool key when the port has
 * shared_umem=1 and key is not NULL (the first such queue allocates it),
 * else its own. */
static int
umem_alloc(struct lr_eth_dev *dev, uint16_t qid, const struct lr_mempool *key)
{
	struct axp *p = dev->data->dev_private;
	struct axq *q = &p->q[qid];
	char name[LR_MEMPOOL_NAMESIZE];
	struct lr_mempool *mp;
	struct shumem *g = NULL;
	int share = p->shared && key != NULL;

	if (q->mp != NULL)
		return 0;
	q->qid = qid;
	if (share) {
		g = shumem_find(key);
		if (g != NULL)
			return shumem_join(dev, qid, g);
		g = shumem_new();
		if (g == NULL)
			return -ENOMEM;
	}
	if (umem_pages_get(dev, q) < 0)
		goto free_shumem;
	snprintf(name, sizeof(name), "afxdp%s_p%u_q%u", share ? "_shared" : "",
		 dev->data->port_id, qid);
	mp = lr_pktmbuf_pool_create_xmem(name, q->umem_base, q->umem_len, FRAME,
					 POOL_CACHE, 0, dev->data->socket_id);
	if (mp == NULL) {
		LR_LOG(ERR, PMD,
		       "%s: queue %u: cannot lay a pool over the UMEM: %s\n",
		       dev->data->name, qid, lr_strerror(lr_errno));
		goto free_pages;
	}
	if (queue_bind_mem(dev, q, q->umem_base, q->umem_len, mp) != 0)
		goto free_pool;
	lr_page_set_owner(q->page, share ? (void *)g : (void *)q, mp->name);
	if (q->page2 != NULL)
		lr_page_set_owner(q->page2, share ? (void *)g : (void *)q,
				  mp->name);
	if (share)
		shumem_adopt(g, q, key, mp);
	return 0;

free_pool:
	lr_mempool_free(mp);
free_pages:
	umem_pages_free(q);
free_shumem:
	if (g != NULL)
		free(g->parked);
	free(g);
	return -ENOMEM;
}

static void
umem_free(struct lr_eth_dev *dev, uint16_t qid)
{
	struct axp *p = dev->data->dev_private;
	struct axq *q = &p->q[qid];

	if (q->mp == NULL)
		return;
	if (q->sh != NULL) {
		shumem_leave(q);
	} else {
		char what[LR_ETH_NAME_MAX_LEN + 16];

		snprintf(what, sizeof(what), "%s: queue %u", dev->data->name,
			 qid);
		umem_release(what, q->mp, q->page, q->page2, q->order,
			     q->nb_frames);
	}
	free(q->rx_held);
	free(q->tx_held);
	q->rx_held = q->tx_held = NULL;
	q->mp = q->tx_mp = NULL;
	q->page = q->page2 = NULL;
}

/* ------------------------------------------------------------------ */
/* Sockets (start .. stop). */

/* A libxdp or libbpf message into our log: warnings at INFO, the rest at
 * DEBUG. */
static int
lib_log(int warn, const char *fmt, va_list ap)
{
	char buf[512];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (warn)
		LR_LOG(INFO, PMD, "%s", buf);
	else
		LR_LOG(DEBUG, PMD, "%s", buf);
	return 0;
}

static int
libxdp_log(enum libxdp_print_level level, const char *fmt, va_list ap)
{
	return lib_log(level == LIBXDP_WARN, fmt, ap);
}

static int
libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return lib_log(level == LIBBPF_WARN, fmt, ap);
}

/* The text of a negative or positive error from libbpf (4000..4999),
 * libxdp (5000..5999) or the kernel. */
static const char *
axp_strerror(int err)
{
	static __thread char buf[128];

	if (err < 0)
		err = -err;
	if (err >= 4000 && err < 5000 &&
	    libbpf_strerror(err, buf, sizeof(buf)) == 0)
		return buf;
	if (err >= 5000 && err < 6000 &&
	    libxdp_strerror(err, buf, sizeof(buf)) == 0)
		return buf;
	return lr_strerror(err);
}

/* err as the negative errno ethdev's callers expect: libbpf's and libxdp's
 * own codes (ELF format, verifier, ...) become -EINVAL once logged. */
static int
axp_errno(int err)
{
	return err <= -4000 ? -EINVAL : err;
}

static const char *
xsk_error_hint(int err)
{
	switch (err) {
	case ENOBUFS:
	case ENOMEM:
		return " (locked memory: raise RLIMIT_MEMLOCK or grant "
		       "CAP_IPC_LOCK)";
	case EPERM:
	case EACCES:
		return " (needs CAP_NET_RAW, CAP_NET_ADMIN and CAP_BPF)";
	case EBUSY:
		return " (queue already bound by another AF_XDP socket or XDP "
		       "program in another mode)";
	case EOPNOTSUPP:
		return " (mode not supported by the interface's driver)";
	default:
		return "";
	}
}

static int
load_custom_prog(struct lr_eth_dev *dev)
{
	struct axp *p = dev->data->dev_private;
	enum xdp_attach_mode m = p->mode == MODE_SKB   ? XDP_MODE_SKB
				 : p->mode == MODE_DRV ? XDP_MODE_NATIVE
						       : XDP_MODE_UNSPEC;
	int err;

	p->prog = xdp_program__open_file(p->xdp_prog, NULL, NULL);
	err = (int)libxdp_get_error(p->prog);
	if (err) {
		LR_LOG(ERR, PMD, "%s: xdp_prog '%s': cannot open: %s\n",
		       dev->data->name, p->xdp_prog, axp_strerror(err));
		p->prog = NULL;
		return axp_errno(err);
	}
	err = xdp_program__attach(p->prog, p->ifindex, m, 0);
	if (err) {
		LR_LOG(ERR, PMD, "%s: xdp_prog '%s': cannot attach to %s: %s\n",
		       dev->data->name, p->xdp_prog, p->iface,
		       axp_strerror(err));
		goto close_prog;
	}
	p->xsks_map_fd = bpf_object__find_map_fd_by_name(
	    xdp_program__bpf_obj(p->prog), "xsks_map");
	if (p->xsks_map_fd < 0) {
		LR_LOG(ERR, PMD,
		       "%s: xdp_prog '%s': no map named 'xsks_map' (an XSKMAP "
		       "the program redirects into)\n",
		       dev->data->name, p->xdp_prog);
		err = -EINVAL;
		goto detach_prog;
	}
	return 0;

detach_prog:
	xdp_program__detach(p->prog, p->ifindex, m, 0);
close_prog:
	xdp_program__close(p->prog);
	p->prog = NULL;
	return axp_errno(err);
}

static void
unload_custom_prog(struct axp *p)
{
	enum xdp_attach_mode m = p->mode == MODE_SKB   ? XDP_MODE_SKB
				 : p->mode == MODE_DRV ? XDP_MODE_NATIVE
						       : XDP_MODE_UNSPEC;

	if (p->prog == NULL)
		return;
	xdp_program__detach(p->prog, p->ifindex, m, 0);
	xdp_program__close(p->prog);
	p->prog = NULL;
}

/* Which program serves the interface: a libxdp dispatcher or one program. */
static const char *
prog_kind(const struct axp *p)
{
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(p->ifindex);
	const char *kind;

	if (libxdp_get_error(mp))
		return "unknown";
	if (xdp_multiprog__is_legacy(mp))
		kind = p->prog ? "xdp_prog (single program)"
			       : "libxdp redirect (single program: libxdp "
				 "could not load its dispatcher)";
	else
		kind = p->prog ? "xdp_prog (libxdp dispatcher)"
			       : "libxdp redirect (libxdp dispatcher)";
	xdp_multiprog__close(mp);
	return kind;
}

/* Put back every frame marked in held; how many. */
static unsigned
take_back(struct axq *q, uint64_t *held)
{
	void *objs[CHUNK];
	unsigned n = 0, k = 0;

	for (unsigned f = 0; f < q->nb_frames; f++) {
		if (!(held[f >> 6] & (1ULL << (f & 63))))
			continue;
		held[f >> 6] &= ~(1ULL << (f & 63));
		objs[k++] = q->umem_mb + (size_t)f * FRAME;
		n++;
		if (k == CHUNK) {
			lr_mempool_put_bulk(q->mp, objs, k);
			k = 0;
		}
	}
	if (k != 0)
		lr_mempool_put_bulk(q->mp, objs, k);
	return n;
}

/* Ring sizes of a queue whose UMEM is shared (g): the registering socket
 * gives every sharer's fill and completion rings the largest sizes asked
 * (libxdp sizes them once); a later sharer fits its rings to them. 0, or
 * -EBUSY while the registering socket is parked on this very queue. */
static int
shared_ring_sizes(struct lr_eth_dev *dev, struct axq *q, struct shumem *g,
		  unsigned queue, struct xsk_umem_config *uc,
		  struct xsk_socket_config *sc)
{
	struct axp *p = dev->data->dev_private;

	if (g->umem == NULL) {
		g->fill_size = g->comp_size = 0;
		for (unsigned i = 0; i < SHARERS_MAX; i++) {
			const struct axq *m = g->member[i];

			if (m == NULL)
				continue;
			g->fill_size = LR_MAX(g->fill_size, 2 * m->nb_rx_desc);
			g->comp_size = LR_MAX(g->comp_size, m->nb_tx_desc);
		}
		uc->fill_size = g->fill_size;
		uc->comp_size = g->comp_size;
		return 0;
	}
	if (g->parked_ifindex == p->ifindex && g->parked_queue == queue) {
		LR_LOG(
		    ERR, PMD,
		    "%s: %s queue %u: still bound by the stopped socket that "
		    "registered shared UMEM '%s'; stop the other %u sharer "
		    "socket(s) first\n",
		    dev->data->name, p->iface, queue, g->mp->name, g->nb_open);
		return -EBUSY;
	}
	q->nb_rx_desc = LR_MIN(q->nb_rx_desc, g->fill_size / 2);
	q->nb_tx_desc = LR_MIN(q->nb_tx_desc, g->comp_size);
	sc->rx_size = q->nb_rx_desc;
	sc->tx_size = q->nb_tx_desc;
	return 0;
}

/* Register the UMEM *um if nobody has (*reg set then) and create the
 * queue's socket on it, retrying a bind the kernel still holds for a
 * closed socket; 0 or a negative libxdp error after logging. */
static int
xsk_create(struct lr_eth_dev *dev, struct axq *q, struct xsk_umem **um,
	   const struct xsk_umem_config *uc, const struct xsk_socket_config *sc,
	   unsigned queue, int *reg)
{
	struct axp *p = dev->data->dev_private;
	int err, tries = 0;

again:
	/* Fresh ring state: libxdp does not set every index of a ring it
	 * maps (the fill ring's cached producer), and a restarted queue
	 * would carry the last socket's on. */
	memset(&q->fq, 0, sizeof(q->fq));
	memset(&q->cq, 0, sizeof(q->cq));
	memset(&q->rx, 0, sizeof(q->rx));
	memset(&q->tx, 0, sizeof(q->tx));
	*reg = *um == NULL;
	if (*reg) {
		err = xsk_umem__create(um, q->umem_base, q->umem_len, &q->fq,
				       &q->cq, uc);
		if (err) {
			LR_LOG(ERR, PMD,
			       "%s: queue %u: UMEM of %zu KiB not registered: "
			       "%s%s\n",
			       dev->data->name, q->qid, q->umem_len >> 10,
			       axp_strerror(err), xsk_error_hint(-err));
			*um = NULL;
			*reg = 0;
			return err;
		}
		err = xsk_socket__create(&q->xsk, p->iface, queue, *um, &q->rx,
					 &q->tx, sc);
	} else {
		/* A later sharer: own fill and completion rings. */
		err = xsk_socket__create_shared(&q->xsk, p->iface, queue, *um,
						&q->rx, &q->tx, &q->fq, &q->cq,
						sc);
	}
	if (err == -EBUSY && tries++ < BIND_RETRIES) {
		/* The kernel releases a closed socket's hold on the queue
		 * from a work item: a restart may come before it ran. */
		if (*reg) {
			xsk_umem__delete(*um);
			*um = NULL;
		}
		usleep(BIND_RETRY_US);
		goto again;
	}
	if (err)
		LR_LOG(ERR, PMD,
		       "%s: %s queue %u: AF_XDP socket (mode %s): %s%s\n",
		       dev->data->name, p->iface, queue, mode_names[p->mode],
		       axp_strerror(err), xsk_error_hint(-err));
	return err;
}

/* Socket options of an open queue: zero-copy or not, busy polling. */
static void
sock_tune(struct lr_eth_dev *dev, struct axq *q)
{
	struct axp *p = dev->data->dev_private;
	struct xdp_options opts = {0};
	socklen_t optlen = sizeof(opts);

	if (getsockopt(q->fd, SOL_XDP, XDP_OPTIONS, &opts, &optlen) == 0)
		q->zerocopy = !!(opts.flags & XDP_OPTIONS_ZEROCOPY);
	q->tx_kick_always = 0;
	__atomic_store_n(&q->busy, BUSY_OFF, __ATOMIC_RELAXED);
	if (p->busy_budget != 0) {
		int one = 1, usec = 20, budget = (int)p->busy_budget;

		if (setsockopt(q->fd, SOL_SOCKET, SO_PREFER_BUSY_POLL, &one,
			       sizeof(one)) ||
		    setsockopt(q->fd, SOL_SOCKET, SO_BUSY_POLL, &usec,
			       sizeof(usec)) ||
		    setsockopt(q->fd, SOL_SOCKET, SO_BUSY_POLL_BUDGET, &budget,
			       sizeof(budget)))
			LR_LOG(WARNING, PMD,
			       "%s: queue %u: busy polling not enabled: %s\n",
			       dev->data->name, q->qid, strerror(errno));
		else
			__atomic_store_n(&q->busy, BUSY_WAIT, __ATOMIC_RELAXED);
	}
}

/* A queue's socket is ready (reg: it registered the shared UMEM). */
static void
sock_opened(struct lr_eth_dev *dev, struct axq *q, int reg, unsigned queue)
{
	struct axp *p = dev->data->dev_private;
	struct shumem *g = q->sh;

	q->open = 1;
	if (g != NULL) {
		g->nb_open++;
		if (reg)
			g->owner = q;
	}
	LR_LOG(INFO, PMD,
	       "%s: %s queue %u: %s mode, %u UMEM frames of %u bytes, rings "
	       "rx/fill %u tx/comp %u, program: %s\n",
	       dev->data->name, p->iface, queue,
	       q->zerocopy ? "zero-copy" : "copy", q->nb_frames, FRAME,
	       q->nb_rx_desc, q->nb_tx_desc, prog_kind(p));
}

static int
sock_open(struct lr_eth_dev *dev, uint16_t qid)
{
	struct axp *p = dev->data->dev_private;
	struct axq *q = &p->q[qid];
	struct shumem *g = q->sh;
	struct xsk_umem **um = g ? &g->umem : &q->umem;
	/* The fill ring has twice the slots of the frames kept in it: the
	 * kernel publishes how far it read the ring only when it next looks
	 * for more, so frames it already put on the rx ring (and that we
	 * replace) can still hold their slots. With one slot per frame a
	 * refill found the ring full and the kernel, the ring empty. */
	struct xsk_umem_config uc = {
	    .fill_size = 2 * q->nb_rx_desc,
	    .comp_size = q->nb_tx_desc,
	    .frame_size = FRAME,
	    .frame_headroom = q->buf_off,
	    .flags = 0,
	};
	struct xsk_socket_config sc = {
	    .rx_size = q->nb_rx_desc,
	    .tx_size = q->nb_tx_desc,
	    .libxdp_flags = p->prog ? XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD : 0,
	    .xdp_flags = p->mode == MODE_SKB   ? XDP_FLAGS_SKB_MODE
			 : p->mode == MODE_DRV ? XDP_FLAGS_DRV_MODE
					       : 0,
	    .bind_flags =
		XDP_USE_NEED_WAKEUP | (p->mode == MODE_SKB ? XDP_COPY : 0),
	};
	unsigned queue = p->start_queue + qid;
	int err, reg = 0;

	if (g != NULL) {
		err = shared_ring_sizes(dev, q, g, queue, &uc, &sc);
		if (err)
			return err;
	}
	err = xsk_create(dev, q, um, &uc, &sc, queue, &reg);
	if (err)
		goto delete_umem;
	if (p->prog != NULL) {
		err = xsk_socket__update_xskmap(q->xsk, p->xsks_map_fd);
		if (err) {
			LR_LOG(ERR, PMD, "%s: queue %u: xsks_map of '%s': %s\n",
			       dev->data->name, qid, p->xdp_prog,
			       axp_strerror(err));
			goto delete_socket;
		}
	}
	q->fd = q->tx_fd = xsk_socket__fd(q->xsk);
	sock_tune(dev, q);
	q->refill_due = 0;
	if (refill(q, q->nb_rx_desc) != q->nb_rx_desc) {
		LR_LOG(ERR, PMD,
		       "%s: queue %u: pool '%s' cannot fill %u descriptors\n",
		       dev->data->name, qid, q->mp->name, q->nb_rx_desc);
		err = -ENOMEM;
		goto delete_socket;
	}
	sock_opened(dev, q, reg, queue);
	return 0;

delete_socket:
	xsk_socket__delete(q->xsk);
	q->xsk = NULL;
delete_umem:
	if (reg) {
		xsk_umem__delete(*um);
		*um = NULL;
	}
	/* Frames put in the fill ring went nowhere: take them back. */
	take_back(q, q->rx_held);
	return axp_errno(err);
}

static unsigned
held_count(const struct axq *q, const uint64_t *held)
{
	unsigned n = 0;

	for (unsigned w = 0; w < (q->nb_frames + 63) / 64; w++)
		n += (unsigned)__builtin_popcountll(held[w]);
	return n;
}

/* Frames the kernel sockets of shared UMEM g hold (parked included). */
static unsigned
shumem_kernel_frames(const struct shumem *g)
{
	unsigned n = 0;

	for (unsigned i = 0; i < SHARERS_MAX; i++) {
		const struct axq *m = g->member[i];

		if (m != NULL)
			n += held_count(m, m->rx_held) +
			     held_count(m, m->tx_held);
	}
	if (g->parked_ifindex >= 0)
		for (unsigned w = 0; w < (g->nb_frames + 63) / 64; w++)
			n += (unsigned)__builtin_popcountll(g->parked[w]);
	return n;
}

/* Socket of shared queue q deleted (libxdp): when it registered the UMEM
 * and other sharers are open, its kernel socket stays bound (libxdp keeps
 * the registration fd): the frames it held stay the kernel's (parked).
 * When it was the last open socket, the registration goes and parked
 * frames return to the pool; how many returned. */
static unsigned
shumem_socket_closed(struct lr_eth_dev *dev, struct axq *q)
{
	struct shumem *g = q->sh;
	struct axp *p = dev->data->dev_private;
	unsigned n = 0;

	g->nb_open--;
	if (g->owner == q) {
		g->owner = NULL;
		if (g->nb_open != 0) {
			for (unsigned w = 0; w < (q->nb_frames + 63) / 64;
			     w++) {
				g->parked[w] |= q->rx_held[w] | q->tx_held[w];
				q->rx_held[w] = q->tx_held[w] = 0;
			}
			g->parked_ifindex = p->ifindex;
			g->parked_queue = p->start_queue + q->qid;
			snprintf(g->parked_name, sizeof(g->parked_name),
				 "%.40s queue %u", dev->data->name, q->qid);
			LR_LOG(INFO, PMD,
			       "%s: queue %u: its socket registered shared "
			       "UMEM '%s': it stays bound to %s queue %u "
			       "with %u frames until the other %u sharer "
			       "socket(s) stop\n",
			       dev->data->name, q->qid, g->mp->name, p->iface,
			       g->parked_queue, held_count(q, g->parked),
			       g->nb_open);
		}
	}
	if (g->nb_open == 0) {
		xsk_umem__delete(g->umem);
		g->umem = NULL;
		if (g->parked_ifindex >= 0) {
			n = take_back(q, g->parked);
			LR_LOG(INFO, PMD,
			       "shared UMEM '%s': registration closed, %u "
			       "frames back from %s\n",
			       g->mp->name, n, g->parked_name);
			g->parked_ifindex = -1;
		}
	}
	return n;
}

static void
sock_close(struct lr_eth_dev *dev, uint16_t qid)
{
	struct axp *p = dev->data->dev_private;
	struct axq *q = &p->q[qid];
	struct xdp_statistics st;
	socklen_t len = sizeof(st);
	uint64_t until = lr_get_tsc_cycles() +
			 lr_get_tsc_hz() / (1000000000ULL / TX_DRAIN_NS);
	unsigned back_rx, back_tx, in_use, others;

	if (!q->open)
		return;
	/* Let the kernel send what is queued. */
	while (held_count(q, q->tx_held) != 0 && lr_get_tsc_cycles() < until) {
		kick(q);
		reclaim(q);
	}
	if (getsockopt(q->fd, SOL_XDP, XDP_STATISTICS, &st, &len) == 0) {
		q->xstats_old.rx_dropped += st.rx_dropped;
		q->xstats_old.rx_invalid_descs += st.rx_invalid_descs;
		q->xstats_old.tx_invalid_descs += st.tx_invalid_descs;
		q->xstats_old.rx_ring_full += st.rx_ring_full;
		q->xstats_old.rx_fill_ring_empty_descs +=
		    st.rx_fill_ring_empty_descs;
		q->xstats_old.tx_ring_empty_descs += st.tx_ring_empty_descs;
	}
	xsk_socket__delete(q->xsk);
	q->xsk = NULL;
	q->open = 0;
	if (q->sh != NULL) {
		unsigned parked = shumem_socket_closed(dev, q);

		lr_counter_add(&q->recovered, parked);
	} else {
		xsk_umem__delete(q->umem);
		q->umem = NULL;
	}
	/* The kernel holds nothing now: what it had returns to the pool. */
	back_rx = take_back(q, q->rx_held);
	back_tx = take_back(q, q->tx_held);
	lr_counter_add(&q->recovered, back_rx + back_tx);
	q->refill_due = 0;
	in_use = lr_mempool_in_use_count(q->mp);
	if (q->sh == NULL) {
		LR_LOG(INFO, PMD,
		       "%s: queue %u stopped: %u frames back from the kernel "
		       "(%u rx side, %u tx side); UMEM frames: %u free, %u "
		       "held by the application, of %u; pool %s\n",
		       dev->data->name, qid, back_rx + back_tx, back_rx,
		       back_tx, q->nb_frames - in_use, in_use, q->nb_frames,
		       lr_mempool_validate(q->mp) == 0 ? "valid" : "INVALID");
		return;
	}
	others = shumem_kernel_frames(q->sh);
	LR_LOG(INFO, PMD,
	       "%s: queue %u stopped: %u frames back from the kernel (%u rx "
	       "side, %u tx side); shared UMEM frames: %u free, %u held by "
	       "the kernel (other sharers, parked socket), %u held by the "
	       "application, of %u; pool %s\n",
	       dev->data->name, qid, back_rx + back_tx, back_rx, back_tx,
	       q->nb_frames - in_use, others, in_use - others, q->nb_frames,
	       lr_mempool_validate(q->mp) == 0 ? "valid" : "INVALID");
}

/* ------------------------------------------------------------------ */
/* Ops. */

static uint32_t ring_size(unsigned want, unsigned cap);

/* Which queues share queue q's UMEM (logged at start). */
static void
shumem_log(struct lr_eth_dev *dev, uint16_t qid)
{
	struct axp *p = dev->data->dev_private;
	const struct shumem *g = p->q[qid].sh;
	char list[512];
	size_t o = 0;

	list[0] = '\0';
	for (unsigned i = 0; i < SHARERS_MAX && o < sizeof(list); i++) {
		const struct axq *m = g->member[i];

		if (m == NULL)
			continue;
		o += (size_t)snprintf(list + o, sizeof(list) - o,
				      "%s%s queue %u (%s)", o ? ", " : "",
				      m->dev->data->name, m->qid,
				      m->open ? "open" : "not started");
	}
	LR_LOG(INFO, PMD,
	       "%s: queue %u: shared UMEM '%s' of %u frames, registered by "
	       "%s, %u socket(s) open; sharers: %s\n",
	       dev->data->name, qid, g->mp->name, g->nb_frames,
	       g->owner ? g->owner->dev->data->name : "(stopped)", g->nb_open,
	       list);
}

static uint16_t
nb_sockets(const struct lr_eth_dev *dev)
{
	return LR_MAX(dev->data->nb_rx_queues, dev->data->nb_tx_queues);
}

/* Name of libxdp's AF_XDP redirect program. */
#define XSK_DEF_PROG "xsk_def_prog"

static int afxdp_start(struct lr_eth_dev *dev);

/* Another started port of this process on ifindex? */
static int
iface_used_here(const struct lr_eth_dev *self, int ifindex)
{
	for (uint16_t i = lr_eth_find_next(0); i < LR_MAX_ETHPORTS;
	     i = lr_eth_find_next((uint16_t)(i + 1))) {
		const struct lr_eth_dev *d = lr_eth_dev_get(i);

		if (d != NULL && d != self && d->dev_ops != NULL &&
		    d->dev_ops->dev_start == afxdp_start && d->data->started &&
		    ((const struct axp *)d->data->dev_private)->ifindex ==
			ifindex)
			return 1;
	}
	return 0;
}

/* Before this port attaches libxdp's redirect program: is one attached
 * already that no port of this process put there? Then another process
 * uses the interface, or one was killed before it closed its port (the
 * kernel removes the sockets of a dead process, not its XDP program, and
 * a program libxdp found attached is never removed by a later close).
 * Say so, and how to remove it. Returns 1 if one was found. */
static int
stale_prog_check(struct lr_eth_dev *dev)
{
	struct axp *p = dev->data->dev_private;
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(p->ifindex);
	struct xdp_program *prog = NULL;
	enum xdp_attach_mode mode;
	int found = 0;

	if (mp == NULL || libxdp_get_error(mp))
		return 0;
	mode = xdp_multiprog__attach_mode(mp);
	if (xdp_multiprog__is_legacy(mp)) {
		prog = xdp_multiprog__main_prog(mp);
		found = prog != NULL &&
			strcmp(xdp_program__name(prog), XSK_DEF_PROG) == 0;
	} else {
		while (!found &&
		       (prog = xdp_multiprog__next_prog(prog, mp)) != NULL)
			found =
			    strcmp(xdp_program__name(prog), XSK_DEF_PROG) == 0;
	}
	if (found && !iface_used_here(dev, p->ifindex))
		LR_LOG(WARNING, PMD,
		       "%s: %s: libxdp's AF_XDP program (%s, id %u) is already "
		       "attached: another process uses this interface, or one "
		       "was killed before closing its port. This port shares "
		       "it and it stays attached after the port closes; if no "
		       "process uses %s, remove it with 'xdp-loader unload %s "
		       "--all' or 'ip link set dev %s %s off'\n",
		       dev->data->name, p->iface, XSK_DEF_PROG,
		       xdp_program__id(prog), p->iface, p->iface, p->iface,
		       mode == XDP_MODE_SKB ? "xdpgeneric" : "xdp");
	xdp_multiprog__close(mp);
	return found;
}

static int
afxdp_start(struct lr_eth_dev *dev)
{
	struct axp *p = dev->data->dev_private;
	uint16_t n = nb_sockets(dev), q;
	int err = 0;

	if (p->xdp_prog[0] == '\0')
		stale_prog_check(dev);

	for (q = 0; q < n; q++) {
		struct axq *aq = &p->q[q];
		unsigned div = aq->sh ? 2 : 1;

		err = umem_alloc(dev, q, NULL);
		if (err)
			goto close_sockets;
		if (!aq->nb_rx_desc)
			aq->nb_rx_desc =
			    ring_size(DEFAULT_DESC, aq->nb_frames / 2 / div);
		if (!aq->nb_tx_desc)
			aq->nb_tx_desc = ring_size(
			    aq->tx_want ? aq->tx_want : DEFAULT_DESC / 2,
			    aq->nb_frames / 8 / div);
	}
	if (p->xdp_prog[0] != '\0') {
		err = load_custom_prog(dev);
		if (err)
			goto close_sockets;
	}
	for (q = 0; q < n; q++) {
		err = sock_open(dev, q);
		if (err)
			goto close_sockets;
	}
	for (q = 0; q < n; q++)
		if (p->q[q].sh != NULL)
			shumem_log(dev, q);
	dev->data->link.link_status = 1;
	return 0;

close_sockets:
	while (q-- > 0)
		sock_close(dev, q);
	unload_custom_prog(p);
	return err;
}

static int
afxdp_stop(struct lr_eth_dev *dev)
{
	struct axp *p = dev->data->dev_private;

	for (uint16_t q = 0; q < LR_MAX_QUEUES_PER_PORT; q++)
		sock_close(dev, q);
	unload_custom_prog(p);
	dev->data->link.link_status = 0;
	return 0;
}

static int
afxdp_infos_get(struct lr_eth_dev *dev, struct lr_eth_dev_info *info)
{
	struct axp *p = dev->data->dev_private;
	unsigned buf_off = lr_pktmbuf_xmem_buf_offset(0);

	info->max_rx_queues = (uint16_t)p->queue_count;
	info->max_tx_queues = (uint16_t)p->queue_count;
	info->max_mtu = (uint16_t)(FRAME - buf_off - XDP_PACKET_HEADROOM -
				   LR_ETHER_HDR_LEN);
	/* Any count up to the UMEM size is accepted; ring_size() lowers it
	 * to what the UMEM can feed (logged at debug level). */
	info->min_rx_desc = 64;
	info->max_rx_desc = FRAMES_MAX;
	info->min_tx_desc = 64;
	info->max_tx_desc = FRAMES_MAX;
	/* Checksums done in software on transmit; no segmentation. */
	info->tx_offload_capa =
	    LR_ETH_TX_OFFLOAD_IPV4_CKSUM | LR_ETH_TX_OFFLOAD_TCP_CKSUM |
	    LR_ETH_TX_OFFLOAD_UDP_CKSUM | LR_ETH_TX_OFFLOAD_CKSUM_PARTIAL;
	if (((const struct axp *)dev->data->dev_private)->partial)
		info->rx_offload_capa = LR_ETH_RX_OFFLOAD_CKSUM_PARTIAL;
	return 0;
}

/* Ring size for a requested count: a power of two, at most cap. Frames
 * out at once: fill + rx <= rx size, tx + completion <= 2 x tx size, plus
 * the per-lcore caches. rx takes at most half of the UMEM (a deep ring
 * rides out a forwarder that loses its CPU for a while), tx an eighth
 * (completions are reclaimed every burst), so a quarter is left to the
 * caches and the pool does not run dry. */
static uint32_t
ring_size(unsigned want, unsigned cap)
{
	uint32_t s = (uint32_t)lr_align64pow2(want);

	return s > cap ? cap : s;
}

/* Frames the rings of sharer m may hold at once: fill + rx, tx +
 * completion (sizes not yet set count as the defaults). */
static unsigned
ring_frames(const struct axq *m)
{
	unsigned rx = m->nb_rx_desc ? m->nb_rx_desc : DEFAULT_DESC;
	unsigned tx = m->nb_tx_desc ? m->nb_tx_desc : DEFAULT_DESC / 2;

	return rx + 2 * tx;
}

static unsigned
shumem_demand(const struct shumem *g)
{
	unsigned d = 0;

	for (unsigned i = 0; i < SHARERS_MAX; i++)
		if (g->member[i] != NULL)
			d += ring_frames(g->member[i]);
	return d;
}

/* The rings of all sharers of q's UMEM must leave a quarter of its frames
 * to the per-lcore caches: halve q's larger ring until they do (down to
 * 64), else fail naming every sharer. */
static int
shumem_fit(struct lr_eth_dev *dev, struct axq *q)
{
	const struct shumem *g = q->sh;
	unsigned limit = g->nb_frames - g->nb_frames / 4;
	unsigned rx0 = q->nb_rx_desc, tx0 = q->nb_tx_desc;
	char list[512];
	size_t o = 0;

	while (shumem_demand(g) > limit &&
	       (q->nb_rx_desc > 64 || q->nb_tx_desc > 64)) {
		if (q->nb_rx_desc >= 2 * q->nb_tx_desc && q->nb_rx_desc > 64)
			q->nb_rx_desc /= 2;
		else if (q->nb_tx_desc > 64)
			q->nb_tx_desc /= 2;
		else
			q->nb_rx_desc /= 2;
	}
	if (shumem_demand(g) <= limit) {
		if (q->nb_rx_desc != rx0 || q->nb_tx_desc != tx0)
			LR_LOG(INFO, PMD,
			       "%s: queue %u: rings rx %u tx %u lowered to rx "
			       "%u tx %u to fit shared UMEM '%s' (%u frames)\n",
			       dev->data->name, q->qid, rx0, tx0, q->nb_rx_desc,
			       q->nb_tx_desc, g->mp->name, g->nb_frames);
		return 0;
	}
	list[0] = '\0';
	for (unsigned i = 0; i < SHARERS_MAX && o < sizeof(list); i++) {
		const struct axq *m = g->member[i];

		if (m == NULL)
			continue;
		o += (size_t)snprintf(
		    list + o, sizeof(list) - o, "%s%s queue %u: %u",
		    o ? ", " : "", m->dev->data->name, m->qid, ring_frames(m));
	}
	LR_LOG(ERR, PMD,
	       "%s: queue %u: shared UMEM '%s' of %u frames cannot feed the "
	       "rings of its sharers: they need %u frames (fill+rx and "
	       "2 x tx; %s), more than the %u usable (3/4 of the frames); "
	       "use fewer sharers, smaller rings or shared_umem=0\n",
	       dev->data->name, q->qid, g->mp->name, g->nb_frames,
	       shumem_demand(g), list, limit);
	q->nb_rx_desc = rx0;
	q->nb_tx_desc = tx0;
	return -ENOSPC;
}

static int
afxdp_rx_queue_setup(struct lr_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		     int socket_id, const struct lr_eth_rxconf *conf,
		     struct lr_mempool *mp)
{
	struct axp *p = dev->data->dev_private;
	struct axq *q = &p->q[qid];
	int err = umem_alloc(dev, qid, mp);
	unsigned div;

	if (err)
		return err;
	div = q->sh ? 2 : 1; /* shared: two sharers fit */
	q->nb_rx_desc = ring_size(nb_desc, q->nb_frames / 2 / div);
	if (q->tx_want != 0 && q->nb_tx_desc == 0)
		q->nb_tx_desc = ring_size(q->tx_want, q->nb_frames / 8 / div);
	if (q->sh != NULL) {
		err = shumem_fit(dev, q);
		if (err) {
			if (!q->tx_set)
				umem_free(dev, qid);
			q->nb_rx_desc = 0;
			return err;
		}
	}
	p->q[qid].rx_set = 1;
	dev->data->rx_queues[qid] = &p->q[qid];
	LR_LOG(DEBUG, PMD,
	       "%s: rx queue %u: %u descriptors (%u asked); frames come from "
	       "UMEM pool '%s', not from '%s'\n",
	       dev->data->name, qid, p->q[qid].nb_rx_desc, nb_desc,
	       p->q[qid].mp->name, mp ? mp->name : "(none)");
	return 0;
}

static int
afxdp_tx_queue_setup(struct lr_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		     int socket_id, const struct lr_eth_txconf *conf)
{
	struct axp *p = dev->data->dev_private;
	struct axq *q = &p->q[qid];
	int err;

	if (p->shared && q->mp == NULL) {
		/* The UMEM comes with the rx queue's mempool (or at start). */
		q->tx_want = nb_desc;
		q->nb_tx_desc = 0;
		q->tx_set = 1;
		dev->data->tx_queues[qid] = q;
		return 0;
	}
	err = umem_alloc(dev, qid, NULL);
	if (err)
		return err;
	q->nb_tx_desc =
	    ring_size(nb_desc, q->nb_frames / 8 / (q->sh != NULL ? 2 : 1));
	if (q->sh != NULL) {
		err = shumem_fit(dev, q);
		if (err)
			return err;
	}
	p->q[qid].tx_set = 1;
	dev->data->tx_queues[qid] = &p->q[qid];
	LR_LOG(DEBUG, PMD, "%s: tx queue %u: %u descriptors (%u asked)\n",
	       dev->data->name, qid, p->q[qid].nb_tx_desc, nb_desc);
	return 0;
}

static void
afxdp_rx_queue_release(struct lr_eth_dev *dev, uint16_t qid)
{
	struct axp *p = dev->data->dev_private;

	p->q[qid].rx_set = 0;
	if (!p->q[qid].tx_set)
		umem_free(dev, qid);
}

static void
afxdp_tx_queue_release(struct lr_eth_dev *dev, uint16_t qid)
{
	struct axp *p = dev->data->dev_private;

	p->q[qid].tx_set = 0;
	if (!p->q[qid].rx_set)
		umem_free(dev, qid);
}

static int afxdp_promisc(struct lr_eth_dev *dev, int on);

static int
afxdp_close(struct lr_eth_dev *dev)
{
	struct axp *p = dev->data->dev_private;

	afxdp_stop(dev);
	for (uint16_t q = 0; q < LR_MAX_QUEUES_PER_PORT; q++)
		umem_free(dev, q);
	afxdp_promisc(dev, 0);
	free(p);
	dev->data->dev_private = NULL;
	return 0;
}

/* The interface's link as the kernel reports it (up and running, ethtool
 * speed); down while the port is stopped. */
static int
afxdp_link_update(struct lr_eth_dev *dev, int wait)
{
	struct axp *p = dev->data->dev_private;
	struct lr_eth_link link;
	int ret = lr_eth_iface_link(p->iface, &link);

	if (ret < 0) {
		dev->data->link.link_status = 0;
		LR_LOG(ERR, PMD, "%s: link of '%s': %s\n", dev->data->name,
		       p->iface, strerror(-ret));
		return ret;
	}
	link.link_status = link.link_status && dev->data->started;
	dev->data->link = link;
	return 0;
}

/* Kernel counters of queue q: closed sockets plus the open one. */
static void
kernel_stats(const struct axq *q, struct xdp_statistics *out)
{
	struct xdp_statistics st;
	socklen_t len = sizeof(st);

	*out = q->xstats_old;
	if (q->open &&
	    getsockopt(q->fd, SOL_XDP, XDP_STATISTICS, &st, &len) == 0) {
		out->rx_dropped += st.rx_dropped;
		out->rx_invalid_descs += st.rx_invalid_descs;
		out->tx_invalid_descs += st.tx_invalid_descs;
		out->rx_ring_full += st.rx_ring_full;
		out->rx_fill_ring_empty_descs += st.rx_fill_ring_empty_descs;
		out->tx_ring_empty_descs += st.tx_ring_empty_descs;
	}
}

static int
afxdp_stats_get(struct lr_eth_dev *dev, struct lr_eth_stats *s)
{
	const struct axp *p = dev->data->dev_private;

	for (unsigned i = 0; i < LR_MAX_QUEUES_PER_PORT; i++) {
		struct xdp_statistics st;

		lr_eth_stats_add_queue(s, i, &p->q[i].rxc, &p->q[i].txc);
		kernel_stats(&p->q[i], &st);
		s->imissed += st.rx_dropped + st.rx_ring_full;
		s->rx_nombuf += st.rx_fill_ring_empty_descs;
		s->ierrors += st.rx_invalid_descs;
	}
	return 0;
}

static const char *const afxdp_xstat_names[] = {
    "rx_wakeups",
    "refill_fail",
    "rx_bad_desc",
    "tx_copies",
    "tx_kicks",
    "tx_ring_full",
    "tx_nobuf",
    "tx_bad_comp",
    "kernel_rx_ring_full",
    "kernel_rx_fill_empty",
    "kernel_tx_invalid_descs",
    "frames_recovered_at_stop",
    "rx_busy_poll_queues",
    "rx_runts",
    "tx_offload_errors",
    "rx_partial_csum",
};

static int
afxdp_xstats_get(struct lr_eth_dev *dev, uint64_t *values, unsigned n)
{
	const struct axp *p = dev->data->dev_private;
	uint64_t v[LR_DIM(afxdp_xstat_names)] = {0};

	for (unsigned i = 0; i < LR_MAX_QUEUES_PER_PORT; i++) {
		const struct axq *q = &p->q[i];
		struct xdp_statistics st;

		kernel_stats(&p->q[i], &st);
		v[0] += lr_counter_read(&q->rx_wakeups);
		v[1] += lr_counter_read(&q->refill_fail);
		v[2] += lr_counter_read(&q->rx_bad_desc);
		v[3] += lr_counter_read(&q->tx_copies);
		v[4] += lr_counter_read(&q->tx_kicks);
		v[5] += lr_counter_read(&q->tx_ring_full);
		v[6] += lr_counter_read(&q->tx_nobuf);
		v[7] += lr_counter_read(&q->tx_bad_comp);
		v[8] += st.rx_ring_full;
		v[9] += st.rx_fill_ring_empty_descs;
		v[10] += st.tx_invalid_descs;
		v[11] += lr_counter_read(&q->recovered);
		v[12] += __atomic_load_n(&q->busy, __ATOMIC_RELAXED) == BUSY_ON;
		v[13] += lr_counter_read(&q->rx_runts);
		v[14] += lr_counter_read(&q->tx_offload_errors);
		v[15] += lr_counter_read(&q->rx_partial);
	}
	return lr_eth_xstats_values_fill(values, n, v, LR_DIM(v));
}

/* Promiscuous mode is a PACKET_MR_PROMISC membership of a packet socket
 * of the port (protocol 0: it receives nothing), as in net_af_packet: the
 * kernel counts it apart from the IFF_PROMISC the administrator sets, so
 * the interface's own promiscuous state comes back when the port turns it
 * off or closes, or the process dies (even by SIGKILL). 0 or -errno. */
static int
afxdp_promisc(struct lr_eth_dev *dev, int on)
{
	struct axp *p = dev->data->dev_private;
	int fd;

	if (!on) {
		if (p->promisc_fd >= 0)
			close(p->promisc_fd);
		p->promisc_fd = -1;
		return 0;
	}
	if (p->promisc_fd >= 0)
		return 0;
	fd = lr_eth_iface_promisc_hold(p->ifindex);
	if (fd < 0) {
		LR_LOG(ERR, PMD, "%s: %s: promiscuous on: %s\n",
		       dev->data->name, p->iface, strerror(-fd));
		return fd;
	}
	p->promisc_fd = fd;
	return 0;
}

static int
afxdp_promisc_on(struct lr_eth_dev *dev)
{
	return afxdp_promisc(dev, 1);
}

static int
afxdp_promisc_off(struct lr_eth_dev *dev)
{
	return afxdp_promisc(dev, 0);
}

/* The control ops that may reach a shared UMEM, under shumem_lock. */
static int
afxdp_start_op(struct lr_eth_dev *dev)
{
	pthread_mutex_lock(&shumem_lock);
	int rc = afxdp_start(dev);
	pthread_mutex_unlock(&shumem_lock);
	return rc;
}

static int
afxdp_stop_op(struct lr_eth_dev *dev)
{
	pthread_mutex_lock(&shumem_lock);
	int rc = afxdp_stop(dev);
	pthread_mutex_unlock(&shumem_lock);
	return rc;
}

static int
afxdp_close_op(struct lr_eth_dev *dev)
{
	pthread_mutex_lock(&shumem_lock);
	int rc = afxdp_close(dev);
	pthread_mutex_unlock(&shumem_lock);
	return rc;
}

static int
afxdp_rx_queue_setup_op(struct lr_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
			int socket_id, const struct lr_eth_rxconf *conf,
			struct lr_mempool *mp)
{
	pthread_mutex_lock(&shumem_lock);
	int rc = afxdp_rx_queue_setup(dev, qid, nb_desc, socket_id, conf, mp);
	pthread_mutex_unlock(&shumem_lock);
	return rc;
}

static int
afxdp_tx_queue_setup_op(struct lr_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
			int socket_id, const struct lr_eth_txconf *conf)
{
	pthread_mutex_lock(&shumem_lock);
	int rc = afxdp_tx_queue_setup(dev, qid, nb_desc, socket_id, conf);
	pthread_mutex_unlock(&shumem_lock);
	return rc;
}

static void
afxdp_rx_queue_release_op(struct lr_eth_dev *dev, uint16_t qid)
{
	pthread_mutex_lock(&shumem_lock);
	afxdp_rx_queue_release(dev, qid);
	pthread_mutex_unlock(&shumem_lock);
}

static void
afxdp_tx_queue_release_op(struct lr_eth_dev *dev, uint16_t qid)
{
	pthread_mutex_lock(&shumem_lock);
	afxdp_tx_queue_release(dev, qid);
	pthread_mutex_unlock(&shumem_lock);
}

static const struct lr_eth_dev_ops afxdp_ops = {
    .dev_start = afxdp_start_op,
    .dev_stop = afxdp_stop_op,
    .dev_close = afxdp_close_op,
    .dev_infos_get = afxdp_infos_get,
    .rx_queue_setup = afxdp_rx_queue_setup_op,
    .tx_queue_setup = afxdp_tx_queue_setup_op,
    .rx_queue_release = afxdp_rx_queue_release_op,
    .tx_queue_release = afxdp_tx_queue_release_op,
    .link_update = afxdp_link_update,
    .promiscuous_enable = afxdp_promisc_on,
    .promiscuous_disable = afxdp_promisc_off,
    .stats_get = afxdp_stats_get,
    .xstats_get = afxdp_xstats_get,
    .xstat_names = afxdp_xstat_names,
    .nb_xstat_names = LR_DIM(afxdp_xstat_names),
};

/* ------------------------------------------------------------------ */
/* Probe. */

static struct lr_eth_driver afxdp_driver;

/* What the devargs ask of a port, read and checked by afxdp_parse_args. */
struct axp_cfg {
	const char *iface, *prog;
	uint64_t sq, qc, budget, shared;
	int mode;
	int partial; /* partial_csum: 0, 1, or -1 (auto) */
};

/* Read the mode devarg into c->mode; 0 or -EINVAL after logging. */
static int
mode_arg(const char *name, const struct lr_devargs *args, struct axp_cfg *c)
{
	const char *mode = lr_devargs_get(args, "mode");
	int m = MODE_AUTO;

	if (mode != NULL) {
		for (m = 0; m < (int)LR_DIM(mode_names); m++)
			if (strcmp(mode, mode_names[m]) == 0)
				break;
		if (m == (int)LR_DIM(mode_names)) {
			LR_LOG(ERR, PMD,
			       "%s: mode: bad value '%s' (expected auto, skb "
			       "or drv)\n",
			       name, mode);
			return -EINVAL;
		}
	}
	c->mode = m;
	return 0;
}

/* Read the partial_csum devarg (auto, 0 or 1) into c->partial; 0 or
 * -EINVAL after logging. */
static int
partial_arg(const char *name, const struct lr_devargs *args,
	    struct axp_cfg *c)
{
	const char *v = lr_devargs_get(args, "partial_csum");

	c->partial = -1;
	if (v == NULL || strcmp(v, "auto") == 0)
		return 0;
	if (strcmp(v, "0") == 0 || strcmp(v, "1") == 0) {
		c->partial = v[0] - '0';
		return 0;
	}
	LR_LOG(ERR, PMD,
	       "%s: partial_csum: bad value '%s' (expected auto, 0 or 1)\n",
	       name, v);
	return -EINVAL;
}

/* Whether interface ifname is a virtual one whose frames may come from the
 * local stack with partial checksums: veth, tun/tap, or no device behind
 * it (no bus); a NIC's frames come from the wire, complete. */
static int
iface_virtual(const char *ifname)
{
	struct ethtool_drvinfo di = {.cmd = ETHTOOL_GDRVINFO};
	struct ifreq ifr;
	int fd, ret = 0;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)&di;
	if (ioctl(fd, SIOCETHTOOL, &ifr) == 0)
		ret = strcmp(di.driver, "veth") == 0 ||
		      strcmp(di.driver, "tun") == 0 || di.bus_info[0] == '\0';
	close(fd);
	return ret;
}

/* Read and check the devargs into c; 0 or -errno after logging. */
static int
afxdp_parse_args(const char *name, const struct lr_devargs *args,
		 struct axp_cfg *c)
{
	int ret;

	c->iface = lr_devargs_get(args, "iface");
	if (c->iface == NULL || c->iface[0] == '\0') {
		LR_LOG(ERR, PMD,
		       "%s: iface: missing (iface=<interface name>)\n", name);
		return -EINVAL;
	}
	if (strlen(c->iface) >= IF_NAMESIZE) {
		LR_LOG(ERR, PMD, "%s: iface: '%s' longer than %d characters\n",
		       name, c->iface, IF_NAMESIZE - 1);
		return -EINVAL;
	}
	ret = lr_devargs_get_uint(args, "start_queue", 0, 0, 65535, &c->sq);
	if (ret == 0)
		ret = lr_devargs_get_uint(args, "queue_count", 1, 1,
					  LR_MAX_QUEUES_PER_PORT, &c->qc);
	if (ret == 0)
		ret = lr_devargs_get_uint(args, "busy_budget", 0, 0, 1024,
					  &c->budget);
	if (ret == 0)
		ret = lr_devargs_get_uint(args, "shared_umem", 0, 0, 1,
					  &c->shared);
	if (ret < 0)
		return ret;
	ret = mode_arg(name, args, c);
	if (ret == 0)
		ret = partial_arg(name, args, c);
	if (ret < 0)
		return ret;
	c->prog = lr_devargs_get(args, "xdp_prog");
	if (c->prog != NULL &&
	    (c->prog[0] == '\0' || strlen(c->prog) >= PATH_MAX ||
	     access(c->prog, R_OK) != 0)) {
		LR_LOG(ERR, PMD, "%s: xdp_prog: cannot read '%s': %s\n", name,
		       c->prog, c->prog[0] ? strerror(errno) : "empty path");
		return -EINVAL;
	}
	return 0;
}

/* Check the interface exists and has the asked queues; its receive
 * queue count in *nq, 0 or -errno after logging. */
static int
afxdp_check_iface(const char *name, const struct axp_cfg *c, unsigned *nq)
{
	if (if_nametoindex(c->iface) == 0) {
		LR_LOG(
		    ERR, PMD,
		    "%s: iface: no interface '%s' in this network namespace\n",
		    name, c->iface);
		return -ENODEV;
	}
	*nq = (unsigned)iface_queues(c->iface);
	if (c->sq + c->qc > *nq) {
		LR_LOG(
		    ERR, PMD,
		    "%s: queues %llu..%llu out of range: '%s' has %u receive "
		    "queue(s) (0..%u); lower start_queue/queue_count or add "
		    "channels (ethtool -L, veth numrxqueues)\n",
		    name, (unsigned long long)c->sq,
		    (unsigned long long)(c->sq + c->qc - 1), c->iface, *nq,
		    *nq - 1);
		return -EINVAL;
	}
	return 0;
}

/* Check the capabilities and the locked-memory limit the queues need;
 * 0 or -errno after logging. */
static int
afxdp_check_privileges(const char *name, const struct axp_cfg *c)
{
	struct __user_cap_data_struct caps[2];
	int ret;

	if (caps_get(caps) != 0) {
		LR_LOG(ERR, PMD, "%s: cannot read capabilities: %s\n", name,
		       strerror(errno));
		return -EPERM;
	}
	ret = check_permission(name, caps);
	if (ret)
		return ret;
	return check_memlock(name, (size_t)c->qc * umem_max_bytes(), caps);
}

/* A zeroed, cache-line aligned port configured from c; NULL when out of
 * memory. */
static struct axp *
afxdp_port_new(const struct axp_cfg *c)
{
	struct axp *p;

	p = aligned_alloc(
	    LR_CACHE_LINE_SIZE,
	    LR_ALIGN_CEIL(sizeof(*p), (size_t)LR_CACHE_LINE_SIZE));
	if (p == NULL)
		return NULL;
	memset(p, 0, sizeof(*p));
	p->promisc_fd = -1;
	snprintf(p->iface, sizeof(p->iface), "%s", c->iface);
	p->ifindex = (int)if_nametoindex(c->iface);
	p->start_queue = (unsigned)c->sq;
	p->queue_count = (unsigned)c->qc;
	p->busy_budget = (unsigned)c->budget;
	p->shared = (unsigned)c->shared;
	p->partial = c->partial >= 0 ? (unsigned)c->partial
				     : (unsigned)iface_virtual(c->iface);
	p->mode = (enum xdp_mode)c->mode;
	p->xsks_map_fd = -1;
	if (c->prog != NULL)
		snprintf(p->xdp_prog, sizeof(p->xdp_prog), "%s", c->prog);
	return p;
}

/* Attach p to dev: MAC (the interface's, else a random one), library log
 * hooks, ops, burst functions and link; log the port (nq: the interface's
 * receive queues). */
static void
afxdp_port_register(struct lr_eth_dev *dev, struct axp *p, unsigned nq)
{
	const char *prog = p->xdp_prog[0] ? p->xdp_prog : NULL;

	if (iface_mac(p->iface, &dev->data->mac_addr) != 0)
		lr_eth_random_mac(&dev->data->mac_addr, dev->data->port_id,
				  0xaf);
	libxdp_set_print(libxdp_log);
	libbpf_set_print(libbpf_log);
	dev->data->dev_private = p;
	dev->dev_ops = &afxdp_ops;
	dev->rx_pkt_burst = afxdp_rx;
	dev->tx_pkt_burst = afxdp_tx;
	dev->data->link.link_speed = 10000;
	dev->data->link.link_duplex = 1;
	LR_LOG(INFO, PMD,
	       "%s: iface %s (index %d) queues %u..%u of %u, mode %s%s%s%s%s\n",
	       dev->data->name, p->iface, p->ifindex, p->start_queue,
	       p->start_queue + p->queue_count - 1, nq, mode_names[p->mode],
	       prog ? ", xdp_prog " : "", prog ? prog : "",
	       p->shared ? ", shared UMEM per mempool" : "",
	       p->partial ? ", partial checksums looked for" : "");
}

/* Create a port from devargs: parse them, check the interface and the
 * privileges, then allocate and register; 0 or -errno after logging. */
static int
afxdp_probe(struct lr_eth_dev *dev, const struct lr_devargs *args)
{
	const char *name = dev->data->name;
	struct axp_cfg c;
	struct axp *p;
	unsigned nq;
	int ret;

	ret = afxdp_parse_args(name, args, &c);
	if (ret < 0)
		return ret;
	ret = afxdp_check_iface(name, &c, &nq);
	if (ret < 0)
		return ret;
	ret = afxdp_check_privileges(name, &c);
	if (ret)
		return ret;
	p = afxdp_port_new(&c);
	if (p == NULL)
		return -ENOMEM;
	afxdp_port_register(dev, p, nq);
	return 0;
}

static struct lr_eth_driver afxdp_driver = {
    .keys = afxdp_keys,
    .usage = "iface=<if> [start_queue=<q>] [queue_count=<n>] "
	     "[mode=auto|skb|drv] [busy_budget=<n>] [xdp_prog=<file.o>] "
	     "[partial_csum=auto|0|1] "
	     "[shared_umem=0|1]",
    .probe = afxdp_probe,
};

LR_PMD_REGISTER(net_af_xdp, afxdp_driver);

/* ------------------------------------------------------------------ */
/* Driver API. */

static struct axq *
port_queue(uint16_t port_id, uint16_t qid)
{
	struct lr_eth_dev *dev = lr_eth_dev_get(port_id);
	struct axp *p;

	if (dev == NULL || dev->driver != &afxdp_driver) {
		lr_errno = ENODEV;
		return NULL;
	}
	p = dev->data->dev_private;
	if (qid >= LR_MAX_QUEUES_PER_PORT || p->q[qid].mp == NULL) {
		lr_errno = EINVAL;
		return NULL;
	}
	return &p->q[qid];
}

struct lr_mempool *
lr_eth_af_xdp_umem_pool(uint16_t port_id, uint16_t q)
{
	struct axq *aq = port_queue(port_id, q);

	return aq ? aq->mp : NULL;
}

int
lr_eth_af_xdp_kernel_frames(uint16_t port_id, uint16_t q)
{
	struct axq *aq = port_queue(port_id, q);

	unsigned n;

	if (aq == NULL)
		return -lr_errno;
	pthread_mutex_lock(&shumem_lock);
	if (aq->sh != NULL)
		n = shumem_kernel_frames(aq->sh);
	else
		n = held_count(aq, aq->rx_held) + held_count(aq, aq->tx_held);
	pthread_mutex_unlock(&shumem_lock);
	return (int)n;
}
