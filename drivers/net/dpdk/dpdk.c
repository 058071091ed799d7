/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_dpdk: a port over a DPDK port (lr_eth_dpdk.h says what it does and
 * what it costs). This file: DPDK's EAL brought up beside linerate's, the
 * header pool whose store frees DPDK mbufs, the burst functions, probe and
 * the ops mapped to DPDK's ethdev calls.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_mbuf_pool_ops.h>
#include <rte_memory.h>
#include <rte_mempool.h>
#include <rte_pci.h>

#include "lr_eal.h"
#include "lr_eth_dpdk.h"
#include "lr_ethdev_driver.h"
#include "lr_mbuf.h"
#include "lr_memory.h"
#include "lr_pagealloc.h"
#include "lr_ring.h"

/* Most packets one burst call moves (larger requests move this many). */
#define DPDK_BURST 64
/* Most words of EAL arguments. */
#define DPDK_MAX_ARGS 64
/* Name of the store of the header pools for DPDK mbufs of other pools. */
#define HDR_OPS_NAME "net_dpdk_hdr"
/* Name of the store of the headers bound to the receive pool's mbufs. */
#define BOUND_OPS_NAME "net_dpdk_bound"

static const char *const dpdk_keys[] = {"dev", "dpdk-args", "mbufs", NULL};

/* The DPDK mbuf a linerate header carries (its private area), or NULL. */
#define HDR_RTE(m) (*(struct rte_mbuf **)lr_mbuf_to_priv(m))
/* Where mbuf x of a net_dpdk receive pool keeps its bound header: its
 * private area (one cache line, so that buffers stay line-aligned), which
 * no DPDK function copies into another mbuf (rte_pktmbuf_attach() and
 * rte_pktmbuf_copy() copy the dynamic fields, not the private area). */
#define RX_PRIV_SIZE RTE_CACHE_LINE_SIZE
#define RTE_HDR(x) (*(struct lr_mbuf **)rte_mbuf_to_priv(x))
/* The DPDK mbuf of bound header h, from its buffer (bind_headers() checks
 * that the buffer follows the mbuf and its private area): the transmit
 * path reads no line of the header but its first. */
#define BOUND_RTE(h)                                                           \
	((struct rte_mbuf *)((char *)(h)->buf_addr - sizeof(struct rte_mbuf) - \
			     RX_PRIV_SIZE))

/* rx flags whose bits are the same on both sides. */
LR_BUILD_BUG_ON(RTE_MBUF_F_RX_VLAN != LR_MBUF_F_RX_VLAN);
LR_BUILD_BUG_ON(RTE_MBUF_F_RX_RSS_HASH != LR_MBUF_F_RX_RSS_HASH);

/* Two 64-bit words moved and masked as one (SSE2 on x86-64, VSX on
 * POWER). */
typedef uint64_t v2u64 __attribute__((vector_size(16)));

struct dpdk_rxq {
	uint16_t pid; /* DPDK port */
	uint16_t qid;
	uint16_t port;	 /* ours */
	uint64_t rearm;	 /* rearm word of a header: data_off 0 */
	v2u64 keep, set; /* a DPDK mbuf's rearm word and flags to ours */
	struct rte_mempool *rx_pool; /* its mbufs come with bound headers */
	struct lr_mempool *hdrs;     /* headers for mbufs of other pools */
	struct lr_eth_queue_counters c;
	uint64_t hdr_nombuf; /* packets dropped for want of a header */
} __lr_cache_aligned;

struct dpdk_txq {
	uint16_t pid;
	uint16_t qid;
	uint8_t use_va;	 /* DPDK runs IOVA as VA: the address is the IOVA */
	uint8_t prepare; /* offloads on: rte_eth_tx_prepare() when asked */
	struct rte_mempool *ext_pool; /* data-less mbufs for attaching */
	struct lr_eth_queue_counters c;
	uint64_t attached;
	uint64_t no_header;
	uint64_t prep_rejected;
} __lr_cache_aligned;

struct dpdk_private {
	struct dpdk_rxq rxq[LR_MAX_QUEUES_PER_PORT];
	struct dpdk_txq txq[LR_MAX_QUEUES_PER_PORT];
	uint16_t pid;
	uint8_t probed; /* we probed the DPDK device: remove it at close */
	uint8_t dpdk_configured;
	struct rte_device *rdev;
	struct rte_mempool *rx_pool;  /* DPDK receives into it */
	struct rte_mempool *ext_pool; /* headers for linerate buffers */
	struct lr_mempool *hdrs;      /* headers for other pools' mbufs */
	struct lr_mempool *bound;     /* a header bound to each rx_pool mbuf */
	unsigned mbufs;		      /* devarg, 0: by queue count */
	uint64_t tx_offloads;	      /* DPDK tx offloads turned on */
	uint64_t rx_offloads;
	int nb_dxstats; /* DPDK's xstats, counted at the first call */
	struct rte_eth_xstat *dxstats;
};

static const char *const own_xstats[] = {
    "rx_header_nombuf",
    "tx_attached",
    "tx_no_header",
    "tx_prepare_rejected",
};

/* ------------------------------------------------------------------ */
/* DPDK's EAL.                                                          */

static pthread_mutex_t eal_lock = PTHREAD_MUTEX_INITIALIZER;
static int eal_state; /* 0 not tried, 1 up, -errno refused */
static int eal_no_pci;
/* The argument words DPDK's EAL got (it may keep pointers to them), and
 * the vector given to it (its getopt reorders it, and it writes its
 * program name over one slot). */
static char *eal_words[DPDK_MAX_ARGS + 1];
static char *eal_argv[DPDK_MAX_ARGS + 1];
static char eal_runtime_dir[512];
/* DPDK ports net_dpdk uses (one net_dpdk port each). */
static uint8_t pid_taken[RTE_MAX_ETHPORTS];

static int
is_pci_addr(const char *dev)
{
	struct rte_pci_addr a;
	char name[64];
	const char *comma = strchr(dev, ',');
	size_t n = comma ? (size_t)(comma - dev) : strlen(dev);

	if (n >= sizeof(name))
		return 0;
	memcpy(name, dev, n);
	name[n] = '\0';
	return rte_pci_addr_parse(name, &a) == 0;
}

/* The calling thread's CPUs as ranges, "0-3,8", into buf; 0 or -1. */
static int
cpu_list(char *buf, size_t len)
{
	cpu_set_t set;
	size_t off = 0;

	if (pthread_getaffinity_np(pthread_self(), sizeof(set), &set) != 0)
		return -1;
	buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE; c++) {
		int e = c, k;

		if (!CPU_ISSET(c, &set))
			continue;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, &set))
			e++;
		k = e == c ? snprintf(buf + off, len - off, "%s%d",
				      off ? "," : "", c)
			   : snprintf(buf + off, len - off, "%s%d-%d",
				      off ? "," : "", c, e);
		if (k < 0 || (size_t)k >= len - off)
			return -1;
		off += (size_t)k;
		c = e;
	}
	return off ? 0 : -1;
}

/* Non-zero if one of the words starts with one of the options. */
static int
has_opt(char *const *words, int n, const char *const *opts)
{
	for (int i = 0; i < n; i++)
		for (const char *const *o = opts; *o; o++)
			if (strncmp(words[i], *o, strlen(*o)) == 0)
				return 1;
	return 0;
}

/* Remove DPDK's runtime folder of our prefix (files, then the folder). */
static void
remove_runtime_dir(void)
{
	DIR *d;
	struct dirent *e;
	char p[1024];

	if (eal_runtime_dir[0] == '\0')
		return;
	d = opendir(eal_runtime_dir);
	if (d != NULL) {
		while ((e = readdir(d)) != NULL) {
			if (strcmp(e->d_name, ".") == 0 ||
			    strcmp(e->d_name, "..") == 0)
				continue;
			snprintf(p, sizeof(p), "%s/%s", eal_runtime_dir,
				 e->d_name);
			unlink(p);
		}
		closedir(d);
	}
	rmdir(eal_runtime_dir);
}

static void
free_argv(void)
{
	for (int i = 0; eal_words[i] != NULL; i++) {
		free(eal_words[i]);
		eal_words[i] = NULL;
	}
}

static void
eal_cleanup(void)
{
	pthread_mutex_lock(&eal_lock);
	if (eal_state == 1) {
		rte_eal_cleanup();
		remove_runtime_dir();
		free_argv();
		eal_state = -ESHUTDOWN;
	}
	pthread_mutex_unlock(&eal_lock);
}

/* Where DPDK would put its runtime folder for prefix (as it does:
 * /var/run/dpdk for root, else $XDG_RUNTIME_DIR or /tmp). */
static void
guess_runtime_dir(const char *prefix)
{
	const char *base = "/var/run";
	const char *x = getenv("XDG_RUNTIME_DIR");

	if (getuid() != 0)
		base = x ? x : "/tmp";
	snprintf(eal_runtime_dir, sizeof(eal_runtime_dir), "%s/dpdk/%s", base,
		 prefix);
}

/* The argument vector for rte_eal_init() into argv (words point into
 * buf, a copy of args); the count. */
static int
build_args(const char *args, const char *first_dev, char *buf, size_t len,
	   char **argv, char *prefix, size_t plen, char *lcores, size_t llen)
{
	static const char *const prefix_opts[] = {"--file-prefix", NULL};
	static const char *const lcore_opts[] = {"-l", "-c", "--lcores", NULL};
	static const char *const tele_opts[] = {"--no-telemetry", "--telemetry",
						NULL};
	char *words[DPDK_MAX_ARGS], cpus[512];
	int nw = 0, argc = 0;
	const char *lp = lr_eal_file_prefix();

	snprintf(buf, len, "%s", args ? args : "");
	for (char *w = strtok(buf, " \t\n"); w && nw < DPDK_MAX_ARGS - 12;
	     w = strtok(NULL, " \t\n"))
		words[nw++] = w;
	argv[argc++] = "linerate-net_dpdk";
	if (!has_opt(words, nw, prefix_opts)) {
		if (lp != NULL)
			snprintf(prefix, plen, "--file-prefix=%s_dpdk", lp);
		else
			snprintf(prefix, plen, "--file-prefix=linerate_dpdk_%d",
				 (int)getpid());
		argv[argc++] = prefix;
	}
	if (!has_opt(words, nw, lcore_opts) &&
	    cpu_list(cpus, sizeof(cpus)) == 0) {
		snprintf(lcores, llen, "--lcores=0@(%s)", cpus);
		argv[argc++] = lcores;
	}
	if (!has_opt(words, nw, tele_opts))
		argv[argc++] = "--no-telemetry";
	if (args == NULL) {
		if (first_dev != NULL && is_pci_addr(first_dev)) {
			argv[argc++] = "--in-memory";
			argv[argc++] = "-a";
			argv[argc++] = (char *)first_dev;
		} else {
			/* --in-memory is refused beside --no-huge */
			argv[argc++] = "--no-shconf";
			argv[argc++] = "--no-huge";
			argv[argc++] = "-m";
			argv[argc++] = "256";
			argv[argc++] = "--no-pci";
		}
	}
	for (int i = 0; i < nw; i++)
		argv[argc++] = words[i];
	argv[argc] = NULL;
	return argc;
}

/* Bring the EAL up for a first device first_dev (may be NULL); 0 or a
 * negative errno after logging (who names the caller in messages). */
static int
eal_up(const char *who, const char *args, const char *first_dev)
{
	char buf[LR_DEVARGS_MAX_LEN], prefix[128], lcores[600], line[1024];
	char *argv[DPDK_MAX_ARGS + 1];
	int argc, rc, sv_optind = optind, sv_opterr = opterr;
	char *sv_optarg = optarg;
	size_t off = 0;

	pthread_mutex_lock(&eal_lock);
	if (eal_state != 0) {
		rc = eal_state == 1 ? 0 : eal_state;
		pthread_mutex_unlock(&eal_lock);
		if (rc == 0 && args != NULL)
			LR_LOG(WARNING, PMD,
			       "%s: dpdk-args '%s' ignored: DPDK's EAL is up "
			       "already\n",
			       who, args);
		if (rc != 0)
			LR_LOG(ERR, PMD,
			       "%s: DPDK's EAL refused its arguments earlier "
			       "in this process (%s)\n",
			       who, strerror(-rc));
		return rc;
	}
	argc = build_args(args, first_dev, buf, sizeof(buf), argv, prefix,
			  sizeof(prefix), lcores, sizeof(lcores));
	line[0] = '\0';
	for (int i = 1; i < argc; i++) {
		int k = snprintf(line + off, sizeof(line) - off, "%s%s",
				 i > 1 ? " " : "", argv[i]);

		if (k > 0 && (size_t)k < sizeof(line) - off)
			off += (size_t)k;
	}
	guess_runtime_dir(strchr(prefix, '=') ? strchr(prefix, '=') + 1
					      : "rte");
	/* rte_eal_init() may keep pointers into argv: give it copies that
	 * live until its cleanup. */
	for (int i = 0; i < argc; i++)
		eal_argv[i] = eal_words[i] = strdup(argv[i]);
	eal_argv[argc] = eal_words[argc] = NULL;
	rte_openlog_stream(stderr);
	rc = rte_eal_init(argc, eal_argv);
	optind = sv_optind;
	opterr = sv_opterr;
	optarg = sv_optarg;
	if (rc < 0) {
		int err = rte_errno ? rte_errno : EINVAL;

		LR_LOG(ERR, PMD,
		       "%s: dpdk-args: DPDK's EAL refused its arguments '%s': "
		       "%s\n",
		       who, line, rte_strerror(err));
		eal_state = -err;
		remove_runtime_dir();
		free_argv();
		pthread_mutex_unlock(&eal_lock);
		return -err;
	}
	snprintf(eal_runtime_dir, sizeof(eal_runtime_dir), "%s",
		 rte_eal_get_runtime_dir());
	eal_no_pci = args == NULL && !(first_dev && is_pci_addr(first_dev));
	eal_state = 1;
	if (lr_eal_initialized())
		lr_eal_on_cleanup(eal_cleanup);
	LR_LOG(INFO, PMD, "%s: DPDK's EAL up: %s\n", who, line);
	pthread_mutex_unlock(&eal_lock);
	return 0;
}

int
lr_eth_dpdk_eal_init(const char *args)
{
	return eal_up("net_dpdk", args, NULL);
}

/* The calling thread becomes a DPDK lcore (its mempool caches work). */
static __lr_cold void
thread_register(void)
{
	static __thread int failed;

	if (failed)
		return;
	if (rte_thread_register() != 0) {
		failed = 1;
		LR_LOG(WARNING, PMD,
		       "net_dpdk: cannot register thread with DPDK (%s): "
		       "its DPDK mempool calls go without a cache\n",
		       rte_strerror(rte_errno));
	}
}

static __lr_always_inline void
thread_check(void)
{
	if (lr_unlikely(rte_lcore_id() == LCORE_ID_ANY))
		thread_register();
}

/* ------------------------------------------------------------------ */
/* The header pool's store: a ring; a header put back frees the DPDK   */
/* mbuf it carried.                                                     */

static int
hdr_alloc(struct lr_mempool *mp)
{
	char name[LR_RING_NAMESIZE];
	struct lr_ring *r;

	snprintf(name, sizeof(name), "H_%.*s", LR_RING_NAMESIZE - 3, mp->name);
	r = lr_ring_create(name, mp->size, mp->socket_id, LR_RING_F_EXACT_SZ);
	if (r == NULL)
		return -lr_errno;
	mp->pool_data = r;
	return 0;
}

static void
hdr_free(struct lr_mempool *mp)
{
	lr_ring_free(mp->pool_data);
}

static int
hdr_enqueue(struct lr_mempool *mp, void *const *objs, unsigned n)
{
	struct rte_mbuf *r[DPDK_BURST];
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++) {
		struct lr_mbuf *h = objs[i];
		struct rte_mbuf *x = HDR_RTE(h);

		if (x == NULL)
			continue;
		/* The segment alone: the linerate chain freed the others. */
		x->next = NULL;
		x->nb_segs = 1;
		HDR_RTE(h) = NULL;
		r[k++] = x;
		if (k == DPDK_BURST) {
			rte_pktmbuf_free_bulk(r, k);
			k = 0;
		}
	}
	if (k != 0)
		rte_pktmbuf_free_bulk(r, k);
	return lr_ring_mp_enqueue_bulk(mp->pool_data, objs, n, NULL) == n
		   ? 0
		   : -ENOBUFS;
}

static int
hdr_dequeue(struct lr_mempool *mp, void **objs, unsigned n)
{
	return lr_ring_mc_dequeue_bulk(mp->pool_data, objs, n, NULL) == n
		   ? 0
		   : -ENOENT;
}

static unsigned
hdr_count(const struct lr_mempool *mp)
{
	return lr_ring_count(mp->pool_data);
}

static const struct lr_mempool_ops hdr_ops = {
    .name = HDR_OPS_NAME,
    .alloc = hdr_alloc,
    .free = hdr_free,
    .enqueue = hdr_enqueue,
    .dequeue = hdr_dequeue,
    .get_count = hdr_count,
};

/* The registered copy of hdr_ops: a header's pool has it. */
static const struct lr_mempool_ops *hdr_ops_reg;

static void
hdr_init(struct lr_mempool *mp, void *opaque, void *obj, unsigned idx)
{
	struct lr_mbuf *m = obj;

	memset(m, 0, sizeof(*m) + sizeof(void *));
	m->priv_size = sizeof(void *);
	m->pool = mp;
	lr_pktmbuf_reset(m);
}

/* ------------------------------------------------------------------ */
/* The bound headers' store: each header belongs to one mbuf of the    */
/* port's DPDK receive pool for the pool's life and travels with it. A */
/* header put back frees its DPDK mbuf, which carries the header back  */
/* into DPDK's pool (and its per-lcore cache): nothing else to store.  */

/* The store's state: the DPDK pool whose mbufs carry the headers. */
struct bound_store {
	struct rte_mempool *rx; /* NULL until the headers are bound */
};

static int
bound_alloc(struct lr_mempool *mp)
{
	mp->pool_data = calloc(1, sizeof(struct bound_store));
	return mp->pool_data ? 0 : -ENOMEM;
}

static void
bound_free(struct lr_mempool *mp)
{
	free(mp->pool_data);
}

static int
bound_enqueue(struct lr_mempool *mp, void *const *objs, unsigned n)
{
	struct rte_mbuf *r[DPDK_BURST];
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++) {
		struct rte_mbuf *x = HDR_RTE((struct lr_mbuf *)objs[i]);

		if (x == NULL) /* the pool filling its store: not bound yet */
			continue;
		/* The segment alone: the linerate chain freed the others. */
		x->next = NULL;
		x->nb_segs = 1;
		r[k++] = x;
		if (k == DPDK_BURST) {
			rte_pktmbuf_free_bulk(r, k);
			k = 0;
		}
	}
	if (k != 0)
		rte_pktmbuf_free_bulk(r, k);
	return 0;
}

static int
bound_dequeue(struct lr_mempool *mp, void **objs, unsigned n)
{
	/* A bound header comes only with its DPDK mbuf (dpdk_rx). */
	return -ENOENT;
}

/* Headers free: those whose DPDK mbufs are in DPDK's pool (all of them
 * before binding and once DPDK's EAL is gone). */
static unsigned
bound_count(const struct lr_mempool *mp)
{
	const struct bound_store *st = mp->pool_data;

	if (st->rx == NULL || eal_state != 1)
		return mp->size;
	return rte_mempool_avail_count(st->rx);
}

static const struct lr_mempool_ops bound_ops = {
    .name = BOUND_OPS_NAME,
    .alloc = bound_alloc,
    .free = bound_free,
    .enqueue = bound_enqueue,
    .dequeue = bound_dequeue,
    .get_count = bound_count,
};

/* The registered copy of bound_ops: a bound header's pool has it. */
static const struct lr_mempool_ops *bound_ops_reg;

/* Objects of a pool in index order (lr_mempool_obj_iter and
 * rte_mempool_obj_iter callbacks fill it). */
struct obj_list {
	void **objs;
	unsigned n, max;
};

static void
lr_obj_collect(struct lr_mempool *mp, void *arg, void *obj, unsigned idx)
{
	struct obj_list *l = arg;

	if (l->n < l->max)
		l->objs[l->n++] = obj;
}

static void
rte_obj_collect(struct rte_mempool *mp, void *arg, void *obj, unsigned idx)
{
	struct obj_list *l = arg;

	if (l->n < l->max)
		l->objs[l->n++] = obj;
}

/* Bind each header of bound to one mbuf of DPDK pool rx (both of n
 * objects); 0 or -ENOMEM. */
static int
bind_headers(struct lr_mempool *bound, struct rte_mempool *rx, unsigned n)
{
	struct obj_list h = {calloc(n, sizeof(void *)), 0, n};
	struct obj_list x = {calloc(n, sizeof(void *)), 0, n};
	int rc = -ENOMEM;

	if (h.objs == NULL || x.objs == NULL)
		goto out;
	lr_mempool_obj_iter(bound, lr_obj_collect, &h);
	rte_mempool_obj_iter(rx, rte_obj_collect, &x);
	if (h.n != n || x.n != n)
		goto out;
	for (unsigned i = 0; i < n; i++) {
		struct lr_mbuf *hd = h.objs[i];
		struct rte_mbuf *xm = x.objs[i];

		if (!RTE_MBUF_DIRECT(xm) ||
		    rte_pktmbuf_priv_size(rx) != RX_PRIV_SIZE ||
		    xm->buf_addr != (char *)xm + sizeof(*xm) + RX_PRIV_SIZE)
			goto out;
		HDR_RTE(hd) = xm;
		RTE_HDR(xm) = hd;
		/* Its own buffer for good: dpdk_rx() takes only direct
		 * mbufs of the pool the fast way; BOUND_RTE() holds. */
		hd->buf_addr = xm->buf_addr;
		hd->buf_iova = xm->buf_iova;
		hd->buf_len = xm->buf_len;
	}
	((struct bound_store *)bound->pool_data)->rx = rx;
	rc = 0;
out:
	free(h.objs);
	free(x.objs);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Receive.                                                             */

/* Offload flags of a DPDK mbuf in linerate's terms. */
static __lr_always_inline uint64_t
rx_flags(uint64_t f)
{
	uint64_t o = f & (RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_RSS_HASH);

	if (lr_unlikely(f & (RTE_MBUF_F_RX_IP_CKSUM_MASK |
			     RTE_MBUF_F_RX_L4_CKSUM_MASK))) {
		if ((f & RTE_MBUF_F_RX_IP_CKSUM_MASK) ==
		    RTE_MBUF_F_RX_IP_CKSUM_BAD)
			o |= LR_MBUF_F_RX_IP_CKSUM_BAD;
		if ((f & RTE_MBUF_F_RX_L4_CKSUM_MASK) ==
		    RTE_MBUF_F_RX_L4_CKSUM_BAD)
			o |= LR_MBUF_F_RX_L4_CKSUM_BAD;
	}
	return o;
}

/* The buffer's address and IOVA, and the receive descriptor fields
 * (packet_type, pkt_len, data_len, vlan_tci, RSS hash), lie at the same
 * offsets on both sides: hdr_fill() copies each group as one 16-byte
 * move. */
LR_BUILD_BUG_ON(offsetof(struct lr_mbuf, buf_addr) !=
		offsetof(struct rte_mbuf, buf_addr));
LR_BUILD_BUG_ON(offsetof(struct lr_mbuf, buf_iova) !=
		offsetof(struct rte_mbuf, buf_iova));
LR_BUILD_BUG_ON(offsetof(struct lr_mbuf, buf_iova) !=
		offsetof(struct lr_mbuf, buf_addr) + 8);
LR_BUILD_BUG_ON(offsetof(struct lr_mbuf, packet_type) !=
		offsetof(struct rte_mbuf, packet_type));
LR_BUILD_BUG_ON(offsetof(struct lr_mbuf, pkt_len) !=
		offsetof(struct rte_mbuf, pkt_len));
LR_BUILD_BUG_ON(offsetof(struct lr_mbuf, data_len) !=
		offsetof(struct rte_mbuf, data_len));
LR_BUILD_BUG_ON(offsetof(struct lr_mbuf, vlan_tci) !=
		offsetof(struct rte_mbuf, vlan_tci));
LR_BUILD_BUG_ON(offsetof(struct lr_mbuf, hash_rss) !=
		offsetof(struct rte_mbuf, hash.rss));
LR_BUILD_BUG_ON(offsetof(struct lr_mbuf, hash_rss) + 4 !=
		offsetof(struct lr_mbuf, packet_type) + 16);

/* The rearm word and the flags too (dpdk_rx moves them as one). */
LR_BUILD_BUG_ON(offsetof(struct lr_mbuf, rearm_data) !=
		offsetof(struct rte_mbuf, rearm_data));
LR_BUILD_BUG_ON(offsetof(struct lr_mbuf, ol_flags) !=
		offsetof(struct lr_mbuf, rearm_data) + 8);
LR_BUILD_BUG_ON(offsetof(struct rte_mbuf, ol_flags) !=
		offsetof(struct rte_mbuf, rearm_data) + 8);
LR_BUILD_BUG_ON(offsetof(struct rte_mbuf, data_off) !=
		offsetof(struct rte_mbuf, rearm_data));

/* Make header h (fresh from its pool) carry DPDK segment x, its rearm
 * word rearm (the queue's: refcnt 1, one segment, the port) save
 * data_off, which the caller stores after it. */
static __lr_always_inline void
hdr_fill(struct lr_mbuf *h, struct rte_mbuf *x, uint64_t rearm)
{
	memcpy(&h->buf_addr, &x->buf_addr, 16);
	h->rearm_data = rearm;
	h->ol_flags = rx_flags(x->ol_flags);
	memcpy(&h->packet_type, &x->packet_type, 16);
	h->buf_len = x->buf_len;
}

/* A header of another pool's DPDK mbuf x (one the port did not receive
 * into its own pool: a net_ring peer's, say), or NULL. */
static __lr_cold struct lr_mbuf *
hdr_foreign(struct dpdk_rxq *q, struct rte_mbuf *x)
{
	struct lr_mbuf *h;

	if (lr_mempool_get(q->hdrs, (void **)&h) != 0)
		return NULL;
	HDR_RTE(h) = x;
	return h;
}

/* The header for received DPDK segment x: its bound one when x is of
 * the port's receive pool, else one from the other header pool. */
static __lr_always_inline struct lr_mbuf *
hdr_of(struct dpdk_rxq *q, struct rte_mbuf *x)
{
	struct lr_mbuf *h;

	/* A mbuf of the pool over another buffer (a driver that attaches
	 * its receive mbufs, mlx5's multi-packet queues): its bound header
	 * keeps its own buffer, another header carries it. */
	if (lr_unlikely(x->pool != q->rx_pool || !RTE_MBUF_DIRECT(x)))
		return hdr_foreign(q, x);
	h = RTE_HDR(x);
#if LR_MEMPOOL_DEBUG
	/* handed out: what lr_mempool_get() would have marked */
	((struct lr_mempool_objhdr *)h - 1)->cookie = LR_MEMPOOL_COOKIE_INUSE;
#endif
	return h;
}

/* The other segments of a chained DPDK packet x behind header h; 0, or -1
 * when headers ran out (h and x then freed). */
static __lr_cold int
rx_chain(struct dpdk_rxq *q, struct lr_mbuf *h, struct rte_mbuf *x)
{
	struct lr_mbuf *prev = h;

	h->nb_segs = x->nb_segs;
	for (struct rte_mbuf *s = x->next; s != NULL; s = s->next) {
		struct lr_mbuf *hs = hdr_of(q, s);

		if (hs == NULL) {
			/* The wrapped segments go with h (the store cuts
			 * each off its next), the others from s on here. */
			lr_pktmbuf_free(h);
			rte_pktmbuf_free(s);
			return -1;
		}
		hdr_fill(hs, s, q->rearm);
		hs->data_off = s->data_off;
		hs->pkt_len = s->data_len;
		prev->next = hs;
		prev = hs;
	}
	return 0;
}

/* A DPDK mbuf received that no header could be found for: dropped. */
static __lr_cold void
rx_no_header(struct dpdk_rxq *q, struct rte_mbuf *x)
{
	rte_pktmbuf_free(x);
	lr_counter_add(&q->hdr_nombuf, 1);
	lr_counter_add(&q->c.nombuf, 1);
}

/* dpdk_rx() from x[i] on, the general way (segments of other pools or
 * buffers, chains), into pkts[i..] (pkts[0..i) delivered already, of
 * bytes bytes); the packets delivered in all, counted. */
static __attribute__((noinline)) uint16_t
rx_rest(struct dpdk_rxq *q, struct rte_mbuf **x, uint16_t i, uint16_t nb,
	struct lr_mbuf **pkts, uint64_t bytes)
{
	uint16_t out = i;

	for (; i < nb; i++) {
		struct rte_mbuf *xi = x[i];
		struct lr_mbuf *h = hdr_of(q, xi);

		if (lr_unlikely(h == NULL)) {
			rx_no_header(q, xi);
			continue;
		}
		hdr_fill(h, xi, q->rearm);
		h->data_off = xi->data_off;
		if (lr_unlikely(xi->next != NULL) && rx_chain(q, h, xi) != 0) {
			lr_counter_add(&q->hdr_nombuf, 1);
			lr_counter_add(&q->c.nombuf, 1);
			continue;
		}
		bytes += h->pkt_len;
		pkts[out++] = h;
	}
	if (out != 0) {
		lr_counter_add(&q->c.packets, out);
		lr_counter_add(&q->c.bytes, bytes);
	}
	return out;
}

#ifdef LR_DPDK_BENCH_FLOOR
/* The benchmark-only build (drivers/plugins/floor, never installed; see
 * "What a forwarded packet costs" in lr_eth_dpdk.h): DPDK's mbufs handed
 * over as they are, no per-packet work at all. Only a program that reads
 * the fields both layouts share (buffer, data_off, lengths) and sends
 * every packet on a net_dpdk port may run on it: lr-l2fwd on net_null. */
static uint16_t
rx_floor(struct dpdk_rxq *q, struct lr_mbuf **pkts, uint16_t n)
{
	uint16_t nb = rte_eth_rx_burst(q->pid, q->qid,
				       (struct rte_mbuf **)pkts,
				       LR_MIN(n, DPDK_BURST));

	lr_counter_add(&q->c.packets, nb);
	return nb;
}

/* Transmit of the benchmark-only build: what DPDK did not take is freed
 * here, so the program never frees a DPDK mbuf as its own. */
static uint16_t
tx_floor(struct dpdk_txq *q, struct lr_mbuf **pkts, uint16_t n)
{
	struct rte_mbuf **x = (struct rte_mbuf **)pkts;
	uint16_t sent = rte_eth_tx_burst(q->pid, q->qid, x, n);

	if (sent < n)
		rte_pktmbuf_free_bulk(x + sent, n - sent);
	lr_counter_add(&q->c.packets, sent);
	return n;
}
#endif

static uint16_t
dpdk_rx(void *rxq, struct lr_mbuf **pkts, uint16_t n)
{
	struct dpdk_rxq *q = rxq;
	struct rte_mbuf *x[DPDK_BURST];
	/* Kept in registers: the stores to the headers may alias them. */
	const struct rte_mempool *pool = q->rx_pool;
	const v2u64 keep = q->keep, set = q->set;
	uint64_t bytes = 0;
	uint16_t nb, i;

	thread_check();
#ifdef LR_DPDK_BENCH_FLOOR
	return rx_floor(q, pkts, n);
#endif
	nb = rte_eth_rx_burst(q->pid, q->qid, x, LR_MIN(n, DPDK_BURST));
	/* The forwarding case: direct one-segment packets of the port's own
	 * pool, each under its bound header, which has their buffer already
	 * (bind_headers): rearm word and flags (data_off and the flags kept,
	 * the rest ours) as one 16-byte move, the descriptor fields as
	 * another; anything else from there on takes rx_rest(). */
	for (i = 0; i < nb; i++) {
		struct rte_mbuf *xi = x[i];
		uint64_t f = xi->ol_flags;
		struct lr_mbuf *h;
		v2u64 v;

		if (lr_unlikely(
			xi->pool != pool || xi->next != NULL ||
			(f & (RTE_MBUF_F_EXTERNAL | RTE_MBUF_F_INDIRECT))))
			break;
		h = RTE_HDR(xi);
#if LR_MEMPOOL_DEBUG
		((struct lr_mempool_objhdr *)h - 1)->cookie =
		    LR_MEMPOOL_COOKIE_INUSE;
#endif
		memcpy(&v, &xi->rearm_data, 16);
		v = (v & keep) | set;
		memcpy(&h->rearm_data, &v, 16);
		if (lr_unlikely(f & (RTE_MBUF_F_RX_IP_CKSUM_MASK |
				     RTE_MBUF_F_RX_L4_CKSUM_MASK)))
			h->ol_flags = rx_flags(f);
		memcpy(&h->packet_type, &xi->packet_type, 16);
		bytes += xi->pkt_len;
		pkts[i] = h;
	}
	if (lr_unlikely(i < nb))
		return rx_rest(q, x, i, nb, pkts, bytes);
	if (nb == 0)
		return 0;
	lr_counter_add(&q->c.packets, nb);
	lr_counter_add(&q->c.bytes, bytes);
	return nb;
}

/* ------------------------------------------------------------------ */
/* Transmit.                                                            */

/* Set the DPDK transmit offload request of x from linerate mbuf m. */
static __lr_cold void
tx_offload(struct rte_mbuf *x, const struct lr_mbuf *m)
{
	uint64_t f = m->ol_flags, o = 0;
	int v4 = 0;

	if (f & LR_MBUF_F_TX_VLAN) {
		o |= RTE_MBUF_F_TX_VLAN;
		x->vlan_tci = m->vlan_tci;
	}
	if (f & (LR_MBUF_F_TX_IP_CKSUM | LR_MBUF_F_TX_TCP_CKSUM |
		 LR_MBUF_F_TX_UDP_CKSUM | LR_MBUF_F_TCP_SEG_MASK)) {
		const uint8_t *ip =
		    lr_pktmbuf_mtod_offset(m, const uint8_t *, m->l2_len);

		if (m->l2_len < m->data_len)
			v4 = (ip[0] >> 4) == 4;
		o |= v4 ? RTE_MBUF_F_TX_IPV4 : RTE_MBUF_F_TX_IPV6;
		x->l2_len = m->l2_len;
		x->l3_len = m->l3_len;
		x->l4_len = m->l4_len;
	}
	if (f & LR_MBUF_F_TX_IP_CKSUM)
		o |= RTE_MBUF_F_TX_IP_CKSUM;
	if (f & LR_MBUF_F_TCP_SEG_MASK) {
		o |= RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_TCP_CKSUM;
		x->tso_segsz = m->tso_segsz;
	} else if (f & LR_MBUF_F_TX_TCP_CKSUM) {
		o |= RTE_MBUF_F_TX_TCP_CKSUM;
	} else if (f & LR_MBUF_F_TX_UDP_CKSUM) {
		o |= RTE_MBUF_F_TX_UDP_CKSUM;
	}
	x->ol_flags = (x->ol_flags & ~RTE_MBUF_F_TX_OFFLOAD_MASK) | o;
}

/* DPDK is done with a segment attached from linerate: free it. */
static void
ext_free(void *addr, void *opaque)
{
	struct lr_mbuf *s = opaque, *put;

	(void)addr;
	/* One segment, in whatever order DPDK releases them: the linerate
	 * chain's own per-segment step (refcnt, then back to its pool). */
	put = lr_pktmbuf_prefree_seg_(s);
	if (put != NULL)
		lr_mempool_put(put->pool, put);
}

static void
ext_keep(void *addr, void *opaque)
{
	(void)addr;
	(void)opaque;
}

/* A DPDK packet of data-less mbufs attached to m's segments; NULL when
 * the header pool is empty. */
static __attribute__((noinline)) struct rte_mbuf *
tx_attach(struct dpdk_txq *q, struct lr_mbuf *m)
{
	struct rte_mbuf *x[DPDK_BURST], *head;
	struct lr_mbuf *s = m;
	unsigned n = m->nb_segs;

	if (n > DPDK_BURST || rte_pktmbuf_alloc_bulk(q->ext_pool, x, n) != 0) {
		lr_counter_add(&q->no_header, 1);
		return NULL;
	}
	for (unsigned i = 0; i < n; i++, s = s->next) {
		struct rte_mbuf_ext_shared_info *sh = rte_mbuf_to_priv(x[i]);
		uint64_t iova =
		    q->use_va ? (uint64_t)(uintptr_t)s->buf_addr : s->buf_iova;

		sh->free_cb = ext_free;
		sh->fcb_opaque = s;
		rte_mbuf_ext_refcnt_set(sh, 1);
		rte_pktmbuf_attach_extbuf(x[i], s->buf_addr, iova, s->buf_len,
					  sh);
		x[i]->data_off = s->data_off;
		x[i]->data_len = s->data_len;
		if (i > 0)
			x[i - 1]->next = x[i];
	}
	head = x[0];
	head->nb_segs = (uint16_t)n;
	head->pkt_len = m->pkt_len;
	head->packet_type = m->packet_type;
	if (m->ol_flags & (LR_MBUF_F_OFFLOAD_MASK | LR_MBUF_F_TX_VLAN))
		tx_offload(head, m);
	return head;
}

/* Give back the attached DPDK packet x that was not sent, leaving its
 * linerate mbuf to the caller. */
static __lr_cold void
tx_detach_unsent(struct rte_mbuf *x)
{
	for (struct rte_mbuf *s = x; s != NULL; s = s->next)
		s->shinfo->free_cb = ext_keep;
	rte_pktmbuf_free(x);
}

/* What a packet to send is (dpdk_tx). */
enum tx_kind {
	TX_ATTACHED, /* a linerate packet: DPDK header mbufs attached */
	TX_OWN,	     /* a header carrying another pool's DPDK mbuf */
	TX_BOUND,    /* a header bound to a receive pool's DPDK mbuf */
};

/* The kind of packet m: a header carrying its own DPDK mbuf, whole and
 * unshared, goes out as that mbuf. */
static __lr_always_inline enum tx_kind
tx_kind_of(const struct lr_mbuf *m)
{
	const struct lr_mempool_ops *ops = m->pool->ops;

	if (m->nb_segs != 1 || lr_mbuf_refcnt_read(m) != 1)
		return TX_ATTACHED;
	if (lr_likely(ops == bound_ops_reg))
		return TX_BOUND;
	return ops == hdr_ops_reg ? TX_OWN : TX_ATTACHED;
}

/* What dpdk_tx() writes back into a packet's own DPDK mbuf: data_off,
 * and pkt_len, data_len and vlan_tci (read by a DPDK driver only with
 * RTE_MBUF_F_TX_VLAN) as one 8-byte move, at the same offsets on both
 * sides. */
LR_BUILD_BUG_ON(offsetof(struct lr_mbuf, data_off) !=
		offsetof(struct rte_mbuf, data_off));
LR_BUILD_BUG_ON(offsetof(struct lr_mbuf, data_len) !=
		offsetof(struct lr_mbuf, pkt_len) + 4);
LR_BUILD_BUG_ON(offsetof(struct lr_mbuf, vlan_tci) !=
		offsetof(struct lr_mbuf, pkt_len) + 6);
LR_BUILD_BUG_ON(offsetof(struct rte_mbuf, data_len) !=
		offsetof(struct rte_mbuf, pkt_len) + 4);
LR_BUILD_BUG_ON(offsetof(struct rte_mbuf, vlan_tci) !=
		offsetof(struct rte_mbuf, pkt_len) + 6);
LR_BUILD_BUG_ON(offsetof(struct lr_mbuf, nb_segs) !=
		offsetof(struct lr_mbuf, refcnt) + 2);

/* Write the lengths and data offset of header m back into DPDK mbuf r
 * (and its offload request, when m has one). */
static __lr_always_inline void
tx_write_back(struct rte_mbuf *r, const struct lr_mbuf *m)
{
	r->data_off = m->data_off;
	memcpy(&r->pkt_len, &m->pkt_len, 8);
	if (lr_unlikely(m->ol_flags &
			(LR_MBUF_F_OFFLOAD_MASK | LR_MBUF_F_TX_VLAN)))
		tx_offload(r, m);
}

/* dpdk_tx() from packet k on, once a packet that is not a plain bound
 * one came (pkts[0..k) are, x[0..k) their DPDK mbufs, bytes theirs):
 * packets of every kind, offloads asked, what DPDK did not take. */
static __attribute__((noinline)) uint16_t
tx_mixed(struct dpdk_txq *q, struct lr_mbuf **pkts, uint16_t n,
	 struct rte_mbuf **x, uint16_t k, uint64_t bytes)
{
	struct lr_mbuf *own[DPDK_BURST];
	uint8_t kind[DPDK_BURST]; /* enum tx_kind */
	uint64_t offl = 0;
	uint16_t sent, nown = 0, nbound = k;

	memset(kind, TX_BOUND, k);
	for (; k < n; k++) {
		struct lr_mbuf *m = pkts[k];
		enum tx_kind t = tx_kind_of(m);

		offl |= m->ol_flags;
		kind[k] = (uint8_t)t;
		if (lr_likely(t != TX_ATTACHED)) {
			struct rte_mbuf *r = HDR_RTE(m);

			tx_write_back(r, m);
			x[k] = r;
			nbound += t == TX_BOUND;
		} else {
			x[k] = tx_attach(q, m);
			if (x[k] == NULL)
				break;
		}
		bytes += m->pkt_len;
	}
	sent = k;
	if (lr_unlikely(q->prepare && (offl & (LR_MBUF_F_OFFLOAD_MASK |
					       LR_MBUF_F_TX_VLAN)))) {
		uint16_t ok = rte_eth_tx_prepare(q->pid, q->qid, x, k);

		lr_counter_add(&q->prep_rejected, (uint64_t)(k - ok));
		sent = ok;
	}
	sent = rte_eth_tx_burst(q->pid, q->qid, x, sent);
	/* A bound header went with its DPDK mbuf: nothing to give back.
	 * Other headers return to their pool without their mbuf. */
	if (nbound != k) {
		uint16_t natt = 0;

		for (uint16_t i = 0; i < sent; i++) {
			if (kind[i] == TX_OWN) {
				HDR_RTE(pkts[i]) = NULL;
				own[nown++] = pkts[i];
			} else if (kind[i] == TX_ATTACHED) {
				natt++;
			}
		}
		if (natt != 0)
			lr_counter_add(&q->attached, natt);
		if (nown != 0)
			lr_pktmbuf_free_bulk(own, nown);
	}
	if (lr_unlikely(sent < k)) {
		for (uint16_t i = sent; i < k; i++) {
			bytes -= pkts[i]->pkt_len;
			if (kind[i] == TX_ATTACHED)
				tx_detach_unsent(x[i]);
		}
	}
	lr_counter_add(&q->c.packets, sent);
	lr_counter_add(&q->c.bytes, bytes);
	return sent;
}

static uint16_t
dpdk_tx(void *txq, struct lr_mbuf **pkts, uint16_t n)
{
	struct dpdk_txq *q = txq;
	struct rte_mbuf *x[DPDK_BURST];
	/* Kept in a register: the stores to the DPDK mbufs may alias it. */
	const struct lr_mempool_ops *bound = bound_ops_reg;
	const union {
		uint16_t f[2];
		uint32_t w;
	} one = {{1, 1}}; /* refcnt 1, one segment */
	uint64_t bytes = 0;
	uint16_t k, sent;

	thread_check();
	n = LR_MIN(n, DPDK_BURST);
#ifdef LR_DPDK_BENCH_FLOOR
	return tx_floor(q, pkts, n);
#endif
	/* The forwarding case: headers bound to their DPDK mbufs, whole,
	 * unshared, no offload asked; anything else from there on takes
	 * tx_mixed(). */
	for (k = 0; k < n; k++) {
		struct lr_mbuf *m = pkts[k];
		struct rte_mbuf *r;
		uint32_t rs;

		memcpy(&rs, &m->refcnt, 4);
		if (lr_unlikely(m->pool->ops != bound || rs != one.w ||
				(m->ol_flags &
				 (LR_MBUF_F_OFFLOAD_MASK | LR_MBUF_F_TX_VLAN))))
			break;
		r = BOUND_RTE(m);
		r->data_off = m->data_off;
		memcpy(&r->pkt_len, &m->pkt_len, 8);
		x[k] = r;
		bytes += m->pkt_len;
	}
	if (lr_unlikely(k < n))
		return tx_mixed(q, pkts, n, x, k, bytes);
	sent = rte_eth_tx_burst(q->pid, q->qid, x, n);
	if (lr_unlikely(sent < n))
		for (k = sent; k < n; k++)
			bytes -= pkts[k]->pkt_len;
	lr_counter_add(&q->c.packets, sent);
	lr_counter_add(&q->c.bytes, bytes);
	return sent;
}

/* ------------------------------------------------------------------ */
/* Control path.                                                        */

/* A DPDK pool's memory chunk from linerate's page allocator: freed with
 * the pool. */
static void
lr_chunk_free(struct rte_mempool_memhdr *memhdr, void *opaque)
{
	(void)memhdr;
	lr_free_pages(opaque, LR_PAGEBLOCK_ORDER);
}

/* rte_pktmbuf_pool_create() on linerate's memory: blocks of one 2 MiB
 * pageblock from its page allocator (hugepages when linerate has them),
 * objects packed without regard to 4 KiB page boundaries (only for a
 * DPDK that runs IOVA as VA and drives no device's DMA: vdevs); NULL
 * with rte_errno when linerate's memory runs short. */
static struct rte_mempool *
pool_on_lr(const char *name, unsigned n, unsigned priv_size, unsigned data_room,
	   int socket)
{
	struct rte_pktmbuf_pool_private pp = {
	    .mbuf_data_room_size = (uint16_t)data_room,
	    .mbuf_priv_size = (uint16_t)priv_size,
	};
	size_t chunk = LR_PAGE_SIZE << LR_PAGEBLOCK_ORDER;
	struct rte_mempool *mp = rte_mempool_create_empty(
	    name, n, sizeof(struct rte_mbuf) + priv_size + data_room, 256,
	    sizeof(pp), socket, RTE_MEMPOOL_F_NO_IOVA_CONTIG);

	if (mp == NULL)
		return NULL;
	if (rte_mempool_set_ops_byname(mp, rte_mbuf_best_mempool_ops(), NULL) !=
	    0)
		goto fail;
	rte_pktmbuf_pool_init(mp, &pp);
	while (mp->populated_size < mp->size) {
		struct lr_page *pg =
		    lr_alloc_pages(LR_SOCKET_ID_ANY, LR_PAGEBLOCK_ORDER, 0);
		int rc;

		if (pg == NULL) {
			rte_errno = ENOMEM;
			goto fail;
		}
		rc = rte_mempool_populate_virt(mp, lr_page_address(pg), chunk,
					       LR_PAGE_SIZE, lr_chunk_free, pg);
		if (rc <= 0) {
			lr_free_pages(pg, LR_PAGEBLOCK_ORDER);
			rte_errno = rc < 0 ? -rc : ENOMEM;
			goto fail;
		}
	}
	rte_mempool_obj_iter(mp, rte_pktmbuf_init, NULL);
	return mp;
fail:
	rte_mempool_free(mp);
	return NULL;
}

/* A DPDK mbuf pool for the port: on linerate's memory when DPDK's EAL
 * has no hugepages (the vdev default: DPDK would put each mbuf on a 4 KiB
 * page of its own), else (or when linerate's memory runs short) DPDK's
 * rte_pktmbuf_pool_create(). */
static struct rte_mempool *
port_pool(const char *who, const char *name, unsigned n, unsigned priv_size,
	  unsigned data_room, int socket)
{
	struct rte_mempool *mp;

	if (!rte_eal_has_hugepages() && rte_eal_iova_mode() == RTE_IOVA_VA) {
		mp = pool_on_lr(name, n, priv_size, data_room, socket);
		if (mp != NULL)
			return mp;
		LR_LOG(INFO, PMD,
		       "%s: DPDK mempool '%s' does not fit in linerate's "
		       "memory (%s): on DPDK's own\n",
		       who, name, rte_strerror(rte_errno));
	}
	return rte_pktmbuf_pool_create(name, n, 256, (uint16_t)priv_size,
				       (uint16_t)data_room, socket);
}

/* Pools of the port for nb_rxq rx queues (created at the first
 * configure); 0 or a negative errno after logging. */
static int
pools_create(struct lr_eth_dev *dev, struct dpdk_private *p)
{
	const char *name = dev->data->name;
	unsigned n = p->mbufs
			 ? p->mbufs
			 : 4096u * LR_MAX(dev->data->nb_rx_queues, 1) + 1024u;
	int socket = rte_eth_dev_socket_id(p->pid);
	char pn[RTE_MEMPOOL_NAMESIZE], bn[LR_MEMPOOL_NAMESIZE];
	struct lr_pktmbuf_pool_private pp = {
	    .mbuf_data_room_size = RTE_MBUF_DEFAULT_BUF_SIZE,
	    .mbuf_priv_size = sizeof(void *),
	    .flags = LR_PKTMBUF_POOL_F_ATTACHED,
	};

	if (p->rx_pool != NULL)
		return 0;
	if (socket < 0)
		socket = SOCKET_ID_ANY;
	snprintf(pn, sizeof(pn), "lr_rx_%u", dev->data->port_id);
	p->rx_pool =
	    port_pool(name, pn, n, RX_PRIV_SIZE, RTE_MBUF_DEFAULT_BUF_SIZE,
		      socket);
	if (p->rx_pool == NULL)
		goto fail;
	snprintf(pn, sizeof(pn), "lr_ext_%u", dev->data->port_id);
	p->ext_pool =
	    port_pool(name, pn, n,
		      RTE_ALIGN_CEIL(sizeof(struct rte_mbuf_ext_shared_info),
				     RTE_MBUF_PRIV_ALIGN),
		      0, socket);
	if (p->ext_pool == NULL)
		goto fail;
	p->hdrs = lr_mempool_create_ops(
	    name, n, sizeof(struct lr_mbuf) + sizeof(void *), 0,
	    sizeof(struct lr_pktmbuf_pool_private), hdr_init, NULL,
	    LR_SOCKET_ID_ANY, 0, HDR_OPS_NAME);
	if (p->hdrs == NULL) {
		LR_LOG(ERR, PMD, "%s: cannot create its %u mbuf headers: %s\n",
		       name, n, strerror(lr_errno));
		return -ENOMEM;
	}
	memcpy(lr_mempool_get_priv(p->hdrs), &pp, sizeof(pp));
	snprintf(bn, sizeof(bn), "B_%.*s", LR_MEMPOOL_NAMESIZE - 3, name);
	p->bound = lr_mempool_create_ops(
	    bn, n, sizeof(struct lr_mbuf) + sizeof(void *), 0,
	    sizeof(struct lr_pktmbuf_pool_private), hdr_init, NULL,
	    LR_SOCKET_ID_ANY, 0, BOUND_OPS_NAME);
	if (p->bound == NULL || bind_headers(p->bound, p->rx_pool, n) != 0) {
		LR_LOG(ERR, PMD,
		       "%s: cannot create or bind the %u headers of its "
		       "receive pool: %s\n",
		       name, n, strerror(p->bound ? ENOMEM : lr_errno));
		return -ENOMEM;
	}
	memcpy(lr_mempool_get_priv(p->bound), &pp, sizeof(pp));
	return 0;
fail:
	LR_LOG(ERR, PMD,
	       "%s: cannot create DPDK mempool '%s' of %u mbufs: %s\n", name,
	       pn, n, rte_strerror(rte_errno));
	return -ENOMEM;
}

static void
pools_free(struct lr_eth_dev *dev, struct dpdk_private *p)
{
	unsigned out = (p->hdrs ? lr_mempool_in_use_count(p->hdrs) : 0) +
		       (p->bound ? lr_mempool_in_use_count(p->bound) : 0);

	if (out != 0) {
		LR_LOG(ERR, PMD,
		       "%s: closed while %u of its received packets are "
		       "still out: its DPDK pools are left behind\n",
		       dev->data->name, out);
		return;
	}
	lr_mempool_free(p->hdrs);
	lr_mempool_free(p->bound); /* before the DPDK pool it counts */
	rte_mempool_free(p->rx_pool);
	rte_mempool_free(p->ext_pool);
	p->hdrs = NULL;
	p->bound = NULL;
	p->rx_pool = NULL;
	p->ext_pool = NULL;
}

/* linerate transmit capabilities of DPDK's tx offload capabilities. */
static uint64_t
tx_capa(uint64_t d)
{
	uint64_t c = 0;

	if (d & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM)
		c |= LR_ETH_TX_OFFLOAD_IPV4_CKSUM;
	if (d & RTE_ETH_TX_OFFLOAD_TCP_CKSUM)
		c |= LR_ETH_TX_OFFLOAD_TCP_CKSUM;
	if (d & RTE_ETH_TX_OFFLOAD_UDP_CKSUM)
		c |= LR_ETH_TX_OFFLOAD_UDP_CKSUM;
	if ((d & RTE_ETH_TX_OFFLOAD_TCP_TSO) &&
	    (d & RTE_ETH_TX_OFFLOAD_TCP_CKSUM))
		c |= LR_ETH_TX_OFFLOAD_TCP_TSO;
	return c;
}

static int
dpdk_configure(struct lr_eth_dev *dev)
{
	struct dpdk_private *p = dev->data->dev_private;
	struct rte_eth_dev_info di;
	struct rte_eth_conf conf;
	const uint64_t txo =
	    RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_CKSUM |
	    RTE_ETH_TX_OFFLOAD_UDP_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_TSO |
	    RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	int rc;

	rc = rte_eth_dev_info_get(p->pid, &di);
	if (rc != 0)
		return rc;
	memset(&conf, 0, sizeof(conf));
	if (dev->data->nb_rx_queues > 1 && di.flow_type_rss_offloads) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf =
		    di.flow_type_rss_offloads &
		    (RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP);
	}
	p->rx_offloads = di.rx_offload_capa & (RTE_ETH_RX_OFFLOAD_RSS_HASH |
					       RTE_ETH_RX_OFFLOAD_CHECKSUM |
					       RTE_ETH_RX_OFFLOAD_SCATTER);
	if (conf.rxmode.mq_mode != RTE_ETH_MQ_RX_RSS)
		p->rx_offloads &= ~RTE_ETH_RX_OFFLOAD_RSS_HASH;
	p->tx_offloads = di.tx_offload_capa & txo;
	conf.rxmode.offloads = p->rx_offloads;
	conf.txmode.offloads = p->tx_offloads;
	rc = rte_eth_dev_configure(p->pid, dev->data->nb_rx_queues,
				   dev->data->nb_tx_queues, &conf);
	if (rc != 0) {
		LR_LOG(ERR, PMD,
		       "%s: DPDK port %u refused %u rx and %u tx queues: %s\n",
		       dev->data->name, p->pid, dev->data->nb_rx_queues,
		       dev->data->nb_tx_queues, rte_strerror(-rc));
		return rc;
	}
	p->dpdk_configured = 1;
	return pools_create(dev, p);
}

static int
dpdk_infos_get(struct lr_eth_dev *dev, struct lr_eth_dev_info *info)
{
	struct dpdk_private *p = dev->data->dev_private;
	struct rte_eth_dev_info di;
	int rc = rte_eth_dev_info_get(p->pid, &di);

	if (rc != 0)
		return rc;
	info->max_rx_queues = LR_MIN(di.max_rx_queues, LR_MAX_QUEUES_PER_PORT);
	info->max_tx_queues = LR_MIN(di.max_tx_queues, LR_MAX_QUEUES_PER_PORT);
	info->min_mtu = di.min_mtu;
	info->max_mtu = di.max_mtu;
	info->min_rx_desc = di.rx_desc_lim.nb_min;
	info->max_rx_desc = di.rx_desc_lim.nb_max;
	info->min_tx_desc = di.tx_desc_lim.nb_min;
	info->max_tx_desc = di.tx_desc_lim.nb_max;
	info->socket_id = rte_eth_dev_socket_id(p->pid);
	info->tx_offload_capa = tx_capa(di.tx_offload_capa);
	return 0;
}

static int
dpdk_rxq_setup(struct lr_eth_dev *dev, uint16_t q, uint16_t nb_desc,
	       int socket_id, const struct lr_eth_rxconf *conf,
	       struct lr_mempool *mp)
{
	struct dpdk_private *p = dev->data->dev_private;
	struct dpdk_rxq *rq = &p->rxq[q];
	uint16_t nd = nb_desc, nt = 0;
	struct rte_eth_dev_info di;
	struct rte_eth_rxconf rc_conf;
	int rc;

	rte_eth_dev_adjust_nb_rx_tx_desc(p->pid, &nd, &nt);
	rc = rte_eth_dev_info_get(p->pid, &di);
	if (rc != 0)
		return rc;
	rc_conf = di.default_rxconf;
	rc_conf.offloads = p->rx_offloads;
	rc = rte_eth_rx_queue_setup(
	    p->pid, q, nd, socket_id < 0 ? SOCKET_ID_ANY : (unsigned)socket_id,
	    &rc_conf, p->rx_pool);
	if (rc != 0) {
		LR_LOG(ERR, PMD, "%s: DPDK rx queue %u (%u descriptors): %s\n",
		       dev->data->name, q, nd, rte_strerror(-rc));
		return rc;
	}
	rq->pid = p->pid;
	rq->qid = q;
	rq->port = dev->data->port_id;
	rq->rearm = lr_mbuf_rearm_word(0, rq->port);
	rq->set = (v2u64){rq->rearm, 0};
	rq->keep =
	    (v2u64){lr_mbuf_rearm_word(0xffff, 0) & ~lr_mbuf_rearm_word(0, 0),
		    RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_RSS_HASH};
	rq->rx_pool = p->rx_pool;
	rq->hdrs = p->hdrs;
	dev->data->rx_queues[q] = rq;
	return 0;
}

static int
dpdk_txq_setup(struct lr_eth_dev *dev, uint16_t q, uint16_t nb_desc,
	       int socket_id, const struct lr_eth_txconf *conf)
{
	struct dpdk_private *p = dev->data->dev_private;
	struct dpdk_txq *tq = &p->txq[q];
	uint16_t nd = 0, nt = nb_desc;
	struct rte_eth_dev_info di;
	struct rte_eth_txconf tc;
	int rc;

	rte_eth_dev_adjust_nb_rx_tx_desc(p->pid, &nd, &nt);
	rc = rte_eth_dev_info_get(p->pid, &di);
	if (rc != 0)
		return rc;
	tc = di.default_txconf;
	tc.offloads = p->tx_offloads;
	rc = rte_eth_tx_queue_setup(
	    p->pid, q, nt, socket_id < 0 ? SOCKET_ID_ANY : (unsigned)socket_id,
	    &tc);
	if (rc != 0) {
		LR_LOG(ERR, PMD, "%s: DPDK tx queue %u (%u descriptors): %s\n",
		       dev->data->name, q, nt, rte_strerror(-rc));
		return rc;
	}
	tq->pid = p->pid;
	tq->qid = q;
	tq->use_va = rte_eal_iova_mode() == RTE_IOVA_VA;
	tq->prepare = (p->tx_offloads & ~RTE_ETH_TX_OFFLOAD_MULTI_SEGS) != 0;
	tq->ext_pool = p->ext_pool;
	dev->data->tx_queues[q] = tq;
	return 0;
}

static int
dpdk_start(struct lr_eth_dev *dev)
{
	struct dpdk_private *p = dev->data->dev_private;
	int rc = rte_eth_dev_start(p->pid);

	if (rc != 0) {
		LR_LOG(ERR, PMD, "%s: DPDK port %u does not start: %s\n",
		       dev->data->name, p->pid, rte_strerror(-rc));
		return rc;
	}
	dev->rx_pkt_burst = dpdk_rx;
	dev->tx_pkt_burst = dpdk_tx;
	return 0;
}

static int
dpdk_stop(struct lr_eth_dev *dev)
{
	struct dpdk_private *p = dev->data->dev_private;

	return rte_eth_dev_stop(p->pid);
}

static int
dpdk_close(struct lr_eth_dev *dev)
{
	struct dpdk_private *p = dev->data->dev_private;

	/* lib/ethdev stopped the port already when it was started. */
	if (p->probed) {
		rte_eth_dev_close(p->pid);
		if (p->rdev != NULL)
			rte_dev_remove(p->rdev);
	}
	pools_free(dev, p);
	pid_taken[p->pid] = 0;
	free(p->dxstats);
	free(p);
	dev->data->dev_private = NULL;
	return 0;
}

static int
dpdk_link_update(struct lr_eth_dev *dev, int wait)
{
	struct dpdk_private *p = dev->data->dev_private;
	struct rte_eth_link l;
	int rc = wait ? rte_eth_link_get(p->pid, &l)
		      : rte_eth_link_get_nowait(p->pid, &l);

	if (rc != 0)
		return rc;
	dev->data->link.link_speed =
	    l.link_speed == RTE_ETH_SPEED_NUM_UNKNOWN ? 0 : l.link_speed;
	dev->data->link.link_duplex = l.link_duplex;
	dev->data->link.link_autoneg = l.link_autoneg;
	dev->data->link.link_status = l.link_status;
	return 0;
}

static int
dpdk_promisc_on(struct lr_eth_dev *dev)
{
	struct dpdk_private *p = dev->data->dev_private;

	return rte_eth_promiscuous_enable(p->pid);
}

static int
dpdk_promisc_off(struct lr_eth_dev *dev)
{
	struct dpdk_private *p = dev->data->dev_private;

	return rte_eth_promiscuous_disable(p->pid);
}

static int
dpdk_mac_set(struct lr_eth_dev *dev, const struct lr_ether_addr *mac)
{
	struct dpdk_private *p = dev->data->dev_private;
	struct rte_ether_addr a;

	memcpy(a.addr_bytes, mac->addr_bytes, sizeof(a.addr_bytes));
	return rte_eth_dev_default_mac_addr_set(p->pid, &a);
}

static int
dpdk_mtu_set(struct lr_eth_dev *dev, uint16_t mtu)
{
	struct dpdk_private *p = dev->data->dev_private;

	return rte_eth_dev_set_mtu(p->pid, mtu);
}

static int
dpdk_stats_get(struct lr_eth_dev *dev, struct lr_eth_stats *st)
{
	struct dpdk_private *p = dev->data->dev_private;
	struct lr_eth_queue_counters none = {0};
	struct rte_eth_stats d;

	for (unsigned q = 0;
	     q < LR_MAX(dev->data->nb_rx_queues, dev->data->nb_tx_queues); q++)
		lr_eth_stats_add_queue(
		    st, q, q < dev->data->nb_rx_queues ? &p->rxq[q].c : &none,
		    q < dev->data->nb_tx_queues ? &p->txq[q].c : &none);
	if (rte_eth_stats_get(p->pid, &d) == 0) {
		st->imissed += d.imissed;
		st->ierrors += d.ierrors;
		st->oerrors += d.oerrors;
		st->rx_nombuf += d.rx_nombuf;
	}
	return 0;
}

/* DPDK's xstats count, read once (it does not change for a port). */
static int
dxstats_count(struct dpdk_private *p)
{
	if (p->dxstats == NULL) {
		int n = rte_eth_xstats_get(p->pid, NULL, 0);

		if (n < 0)
			n = 0;
		p->dxstats = calloc((size_t)n + 1, sizeof(*p->dxstats));
		if (p->dxstats == NULL)
			return 0;
		p->nb_dxstats = n;
	}
	return p->nb_dxstats;
}

static int
dpdk_xstats_names(struct lr_eth_dev *dev, struct lr_eth_xstat_name *names,
		  unsigned n)
{
	struct dpdk_private *p = dev->data->dev_private;
	unsigned own = LR_DIM(own_xstats);
	int nd = dxstats_count(p);
	struct rte_eth_xstat_name *dn;

	if (names == NULL || n == 0)
		return (int)own + nd;
	for (unsigned i = 0; i < own && i < n; i++)
		snprintf(names[i].name, sizeof(names[i].name), "%s",
			 own_xstats[i]);
	dn = calloc((size_t)nd + 1, sizeof(*dn));
	if (dn == NULL)
		return -ENOMEM;
	if (rte_eth_xstats_get_names(p->pid, dn, (unsigned)nd) == nd)
		for (int i = 0; i < nd && own + (unsigned)i < n; i++)
			snprintf(names[own + i].name, sizeof(names[0].name),
				 "dpdk_%s", dn[i].name);
	free(dn);
	return (int)own + nd;
}

static int
dpdk_xstats_get(struct lr_eth_dev *dev, uint64_t *values, unsigned n)
{
	struct dpdk_private *p = dev->data->dev_private;
	unsigned own = LR_DIM(own_xstats);
	int nd = dxstats_count(p);
	uint64_t v[LR_DIM(own_xstats)] = {0};

	for (unsigned q = 0; q < dev->data->nb_rx_queues; q++)
		v[0] += lr_counter_read(&p->rxq[q].hdr_nombuf);
	for (unsigned q = 0; q < dev->data->nb_tx_queues; q++) {
		v[1] += lr_counter_read(&p->txq[q].attached);
		v[2] += lr_counter_read(&p->txq[q].no_header);
		v[3] += lr_counter_read(&p->txq[q].prep_rejected);
	}
	if (values == NULL || n == 0)
		return (int)own + nd;
	lr_eth_xstats_values_fill(values, n, v, own);
	if (nd > 0 &&
	    rte_eth_xstats_get(p->pid, p->dxstats, (unsigned)nd) == nd)
		for (int i = 0; i < nd && own + (unsigned)i < n; i++)
			values[own + i] = p->dxstats[i].value;
	return (int)own + nd;
}

static const struct lr_eth_dev_ops dpdk_ops = {
    .dev_configure = dpdk_configure,
    .dev_start = dpdk_start,
    .dev_stop = dpdk_stop,
    .dev_close = dpdk_close,
    .dev_infos_get = dpdk_infos_get,
    .rx_queue_setup = dpdk_rxq_setup,
    .tx_queue_setup = dpdk_txq_setup,
    .link_update = dpdk_link_update,
    .promiscuous_enable = dpdk_promisc_on,
    .promiscuous_disable = dpdk_promisc_off,
    .mac_addr_set = dpdk_mac_set,
    .mtu_set = dpdk_mtu_set,
    .stats_get = dpdk_stats_get,
    .xstats_get_names = dpdk_xstats_names,
    .xstats_get = dpdk_xstats_get,
};

/* ------------------------------------------------------------------ */
/* Probe.                                                               */

/* The DPDK port of device string dev (name up to the first comma; a PCI
 * address in its full form); 0 and *pid, or -ENODEV. */
static int
find_port(const char *dev, uint16_t *pid)
{
	char name[RTE_ETH_NAME_MAX_LEN];
	const char *comma = strchr(dev, ',');
	size_t n = comma ? (size_t)(comma - dev) : strlen(dev);
	struct rte_pci_addr a;

	if (n >= sizeof(name))
		return -ENODEV;
	memcpy(name, dev, n);
	name[n] = '\0';
	if (rte_pci_addr_parse(name, &a) == 0)
		rte_pci_device_name(&a, name, sizeof(name));
	return rte_eth_dev_get_port_by_name(name, pid) == 0 ? 0 : -ENODEV;
}

/* Register linerate's memory with DPDK and map it for device d's DMA
 * (PCI devices: a NIC reads linerate mbufs); failures are logged. */
static void
dma_map_memory(const char *who, struct rte_device *d)
{
	int va = rte_eal_iova_mode() == RTE_IOVA_VA;

	for (unsigned i = 0; i < lr_memseg_count(); i++) {
		const struct lr_memseg *s = lr_memseg_get(i);
		unsigned pages = (unsigned)(s->len / s->page_sz);
		int rc;

		if (!va && s->iova == NULL) {
			LR_LOG(WARNING, PMD,
			       "%s: linerate memory %p has no physical "
			       "addresses and DPDK runs IOVA as PA: not "
			       "mapped for DMA\n",
			       who, s->addr);
			continue;
		}
		rc = rte_extmem_register(s->addr, s->len,
					 va ? NULL : (rte_iova_t *)s->iova,
					 va ? 0 : pages, s->page_sz);
		if (rc != 0 && rte_errno != EEXIST) {
			LR_LOG(WARNING, PMD,
			       "%s: rte_extmem_register(%p, %zu): %s\n", who,
			       s->addr, s->len, rte_strerror(rte_errno));
			continue;
		}
		for (unsigned k = 0; k < (va ? 1 : pages); k++) {
			char *a = (char *)s->addr + (va ? 0 : k * s->page_sz);
			uint64_t iova =
			    va ? (uint64_t)(uintptr_t)a : s->iova[k];
			size_t len = va ? s->len : s->page_sz;

			if (rte_dev_dma_map(d, a, iova, len) != 0 &&
			    rte_errno != EEXIST) {
				LR_LOG(WARNING, PMD,
				       "%s: DMA map of %p (%zu bytes): %s\n",
				       who, a, len, rte_strerror(rte_errno));
				break;
			}
		}
	}
}

/* The DPDK port for dev: found, or probed (*probed = 1); 0 or -errno. */
static int
attach_port(const char *who, const char *dev, uint16_t *pid, int *probed)
{
	int rc;

	*probed = 0;
	if (find_port(dev, pid) == 0)
		return 0;
	if (eal_no_pci && is_pci_addr(dev)) {
		LR_LOG(ERR, PMD,
		       "%s: dev: '%s' is a PCI device but DPDK's EAL was "
		       "started for vdevs only (--no-pci): give the first "
		       "net_dpdk port dpdk-args\n",
		       who, dev);
		return -EINVAL;
	}
	rc = rte_dev_probe(dev);
	if (rc < 0) {
		LR_LOG(ERR, PMD,
		       "%s: dev: DPDK cannot probe '%s' (no such device or "
		       "driver, or arguments its driver refuses): %s\n",
		       who, dev, rte_strerror(-rc));
		return rc;
	}
	if (find_port(dev, pid) != 0) {
		LR_LOG(ERR, PMD,
		       "%s: dev: DPDK probed '%s' but made no ethdev port of "
		       "it\n",
		       who, dev);
		return -ENODEV;
	}
	*probed = 1;
	return 0;
}

/* dev and mbufs of args into *devs and *mbufs; 0 or -EINVAL (logged). */
static int
read_args(const char *name, const struct lr_devargs *args, const char **devs,
	  unsigned *mbufs)
{
	uint64_t v;
	int rc;

	*devs = lr_devargs_get(args, "dev");
	if (*devs == NULL || (*devs)[0] == '\0' ||
	    lr_devargs_count(args, "dev") > 1) {
		LR_LOG(ERR, PMD,
		       "%s: dev: %s (one DPDK device: a PCI address or a "
		       "vdev string, e.g. dev=[net_null0,size=64])\n",
		       name,
		       *devs == NULL ? "missing" : "given empty or twice");
		return -EINVAL;
	}
	rc = lr_devargs_get_uint(args, "mbufs", 0, 0, 1u << 22, &v);
	if (rc != 0)
		return rc;
	if (v != 0 && v < 512) {
		LR_LOG(ERR, PMD,
		       "%s: mbufs: bad value '%llu' (expected 512 or more)\n",
		       name, (unsigned long long)v);
		return -EINVAL;
	}
	*mbufs = (unsigned)v;
	return 0;
}

static int
dpdk_probe(struct lr_eth_dev *dev, const struct lr_devargs *args)
{
	const char *name = dev->data->name, *devs;
	const char *eargs = lr_devargs_get(args, "dpdk-args");
	struct rte_ether_addr mac;
	struct rte_eth_dev_info di;
	struct dpdk_private *p;
	unsigned mbufs;
	uint16_t pid;
	int rc, probed;

	rc = read_args(name, args, &devs, &mbufs);
	if (rc != 0)
		return rc;
	if (hdr_ops_reg == NULL) {
		rc = lr_mempool_register_ops(&hdr_ops);
		if (rc < 0 && rc != -EEXIST)
			return rc;
		hdr_ops_reg = lr_mempool_ops_lookup(HDR_OPS_NAME);
	}
	if (bound_ops_reg == NULL) {
		rc = lr_mempool_register_ops(&bound_ops);
		if (rc < 0 && rc != -EEXIST)
			return rc;
		bound_ops_reg = lr_mempool_ops_lookup(BOUND_OPS_NAME);
	}
	rc = eal_up(name, eargs, devs);
	if (rc != 0)
		return rc;
	rc = attach_port(name, devs, &pid, &probed);
	if (rc != 0)
		return rc;
	if (pid_taken[pid]) {
		LR_LOG(ERR, PMD,
		       "%s: dev: DPDK port %u ('%s') is already another "
		       "net_dpdk port's\n",
		       name, pid, devs);
		return -EBUSY;
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL) {
		rc = -ENOMEM;
		goto remove_dev;
	}
	p->pid = pid;
	p->probed = (uint8_t)probed;
	p->mbufs = mbufs;
	rc = rte_eth_dev_info_get(pid, &di);
	if (rc != 0)
		goto free_priv;
	p->rdev = di.device;
	if (probed && is_pci_addr(devs))
		dma_map_memory(name, di.device);
	if (rte_eth_macaddr_get(pid, &mac) == 0)
		memcpy(dev->data->mac_addr.addr_bytes, mac.addr_bytes,
		       sizeof(mac.addr_bytes));
	dev->data->socket_id = rte_eth_dev_socket_id(pid);
	dev->data->dev_private = p;
	dev->dev_ops = &dpdk_ops;
	pid_taken[pid] = 1;
	LR_LOG(INFO, PMD, "%s: over DPDK port %u (%s, driver %s)\n", name, pid,
	       devs, di.driver_name);
	return 0;

free_priv:
	free(p);
remove_dev:
	if (probed) {
		struct rte_eth_dev_info d2;

		if (rte_eth_dev_info_get(pid, &d2) == 0) {
			rte_eth_dev_close(pid);
			rte_dev_remove(d2.device);
		}
	}
	return rc;
}

static struct lr_eth_driver dpdk_drv = {
    .keys = dpdk_keys,
    .usage = "dev=<PCI address or [DPDK vdev string]> "
	     "dpdk-args=[<DPDK EAL arguments>] mbufs=<n>",
    .probe = dpdk_probe,
};

LR_PMD_REGISTER(net_dpdk, dpdk_drv);

/* ------------------------------------------------------------------ */
/* Driver API.                                                          */

static struct dpdk_private *
priv_of(uint16_t port_id)
{
	struct lr_eth_dev *dev = lr_eth_dev_get(port_id);

	if (dev == NULL || dev->driver != &dpdk_drv)
		return NULL;
	return dev->data->dev_private;
}

int
lr_eth_dpdk_port_id(uint16_t port_id)
{
	struct dpdk_private *p = priv_of(port_id);

	return p ? p->pid : -ENODEV;
}

int
lr_eth_dpdk_mbufs_in_use(uint16_t port_id, unsigned *dpdk_rx,
			 unsigned *dpdk_hdr, unsigned *headers)
{
	struct dpdk_private *p = priv_of(port_id);

	if (p == NULL)
		return -ENODEV;
	*dpdk_rx = p->rx_pool ? rte_mempool_in_use_count(p->rx_pool) : 0;
	*dpdk_hdr = p->ext_pool ? rte_mempool_in_use_count(p->ext_pool) : 0;
	*headers = (p->hdrs ? lr_mempool_in_use_count(p->hdrs) : 0) +
		   (p->bound ? lr_mempool_in_use_count(p->bound) : 0);
	return 0;
}
