/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpdk_private.h - what the files of net_dpdk share (never installed): a
 * port over a DPDK port (lr_eth_dpdk.h says what it does and what it
 * costs). The files, one concern each (as drivers/net/memif):
 *   dpdk_eal.c          DPDK's EAL brought up beside linerate's, and
 *                       cleaned up at exit;
 *   dpdk_mempool_ops.c  the stores of the header pools: one whose put
 *                       frees the DPDK mbuf a header carried, one whose
 *                       headers are bound to the receive pool's mbufs;
 *   dpdk_rx_tx.c        the burst functions (and the benchmark-only
 *                       floor of -DLR_DPDK_BENCH_FLOOR);
 *   dpdk_ops.c          the port's pools and the ethdev operations mapped
 *                       to DPDK's ethdev calls;
 *   dpdk_probe.c        devargs, the DPDK port found or probed, the
 *                       driver and the driver API of lr_eth_dpdk.h.
 *
 * Functions and variables shared between the files are hidden (the
 * library is built with -fvisibility=hidden and they are declared outside
 * LR_BEGIN_DECLS) and named lr_dpdk_*_ (a static archive's globals all
 * carry lr_: see test/check_exports.sh); everything else is static to its
 * file. Errors: 0 or a negative errno.
 */
#ifndef DPDK_PRIVATE_H
#define DPDK_PRIVATE_H

#include <stdint.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "lr_ethdev_driver.h"
#include "lr_mbuf.h"
#include "lr_mempool.h"

/* Most packets one burst call moves (larger requests move this many). */
#define DPDK_BURST 64
/* Most words of EAL arguments. */
#define DPDK_MAX_ARGS 64
/* Name of the store of the header pools for DPDK mbufs of other pools. */
#define HDR_OPS_NAME "net_dpdk_hdr"
/* Name of the store of the headers bound to the receive pool's mbufs. */
#define BOUND_OPS_NAME "net_dpdk_bound"

/* The DPDK mbuf a linerate header carries (its private area), or NULL. */
#define HDR_RTE(m) (*(struct rte_mbuf **)lr_mbuf_to_priv(m))
/* Where mbuf x of a net_dpdk receive pool keeps its bound header: its
 * private area (one cache line, so that buffers stay line-aligned), which
 * no DPDK function copies into another mbuf (rte_pktmbuf_attach() and
 * rte_pktmbuf_copy() copy the dynamic fields, not the private area). */
#define RX_PRIV_SIZE RTE_CACHE_LINE_SIZE
#define RTE_HDR(x)   (*(struct lr_mbuf **)rte_mbuf_to_priv(x))
/* The DPDK mbuf of bound header h, from its buffer (lr_dpdk_bind_headers_()
 * checks that the buffer follows the mbuf and its private area): the transmit
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

/* ------------------------------------------------------------------ */
/* dpdk_eal.c: DPDK's EAL. */

/* 0 not tried, 1 up, -errno refused (written under the EAL's lock). */
extern int lr_dpdk_eal_state_;
/* DPDK's EAL came up with the --no-pci we add when no dpdk-args and no
 * PCI device came with the first port. */
extern int lr_dpdk_eal_no_pci_;

/* Whether device string dev starts with a PCI address. */
int lr_dpdk_is_pci_addr_(const char *dev);

/* Bring the EAL up for a first device first_dev (may be NULL); 0 or a
 * negative errno after logging (who: the port, for the log). */
int lr_dpdk_eal_up_(const char *who, const char *args, const char *first_dev);

/* ------------------------------------------------------------------ */
/* dpdk_mempool_ops.c: the header pools' stores. */

/* The registered copies of the two stores: a header's pool has the
 * first, a bound header's pool the second (NULL before the first probe). */
extern const struct lr_mempool_ops *lr_dpdk_hdr_ops_reg_;
extern const struct lr_mempool_ops *lr_dpdk_bound_ops_reg_;

/* Register both stores (once); 0 or a negative errno. */
int lr_dpdk_mempool_ops_register_(void);

/* Object initializer of a header pool (lr_mempool_obj_cb). */
void lr_dpdk_hdr_init_(struct lr_mempool *mp, void *opaque, void *obj,
		       unsigned idx);

/* Bind each header of bound to one mbuf of DPDK pool rx (both of n
 * objects); 0 or -ENOMEM. */
int lr_dpdk_bind_headers_(struct lr_mempool *bound, struct rte_mempool *rx,
			  unsigned n);

/* ------------------------------------------------------------------ */
/* dpdk_rx_tx.c: the burst functions. */

/* Receive burst of a queue (struct dpdk_rxq). */
uint16_t lr_dpdk_rx_(void *rxq, struct lr_mbuf **pkts, uint16_t n);

/* Transmit burst of a queue (struct dpdk_txq). */
uint16_t lr_dpdk_tx_(void *txq, struct lr_mbuf **pkts, uint16_t n);

/* ------------------------------------------------------------------ */
/* dpdk_ops.c: the ethdev operations. */

/* The ethdev operations of a net_dpdk port. */
extern const struct lr_eth_dev_ops lr_dpdk_ops_;

/* ------------------------------------------------------------------ */
/* dpdk_probe.c: probe, the driver. */

/* DPDK ports net_dpdk uses (one net_dpdk port each). */
extern uint8_t lr_dpdk_pid_taken_[RTE_MAX_ETHPORTS];

#endif /* DPDK_PRIVATE_H */
