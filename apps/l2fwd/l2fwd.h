/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * l2fwd.h - the forwarding core of lr-l2fwd, kept apart from option
 * parsing so tests and the ring benchmark run the very same loop.
 *
 * Each lcore polls its rx queues, (port, queue) pairs, in bursts of
 * L2FWD_BURST, and sends every packet received on queue q of port p to
 * queue q of dst_port[p]: with mac updating it
 * rewrites the destination MAC to 02:00:00:00:00:<dst> and the source MAC
 * to dst's own address (one 12-byte copy of a header prepared per port),
 * then appends it to the tx buffer of that rx queue (one per rx queue: it
 * feeds exactly one tx queue, (dst_port[p], q)). A full buffer is sent
 * at once. The rest go out at the end of the first poll round that
 * receives nothing (the queues are not saturated, so waiting for a full
 * burst would only add latency: up to L2FWD_DRAIN_US per hop, 200 us on
 * a ping's round trip through two ports), or when L2FWD_DRAIN_US have
 * passed on the TSC while every round received something (a trickle that
 * never fills a burst). Under load every round receives a burst and the
 * buffers fill as before; the idle flush costs one branch a round.
 * What tx does not take is freed and counted as dropped.
 *
 * Threading: one struct l2fwd_lcore per lcore, written by that lcore only
 * (its counters are read by the stats printer without locks: the lcore
 * adds with a relaxed atomic store, lr_counter_add(), and the printer reads
 * with relaxed atomic loads, so neither tears a 64-bit value and the
 * compiler may not split or cache them; on x86-64 and ppc64le both are
 * plain loads and stores, no locked instruction). Each (port, queue) is
 * polled by one lcore, and tx queue q of a port is fed only from rx queue q
 * of its pair, so every rx and tx queue has one user.
 *
 * Cost per packet: one rx and 1/32 tx burst call, one 12-byte store into
 * the packet (mac updating), one pointer store into the tx buffer.
 */
#ifndef L2FWD_H
#define L2FWD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "lr_eal.h"
#include "lr_ethdev.h"

#define L2FWD_BURST    32
#define L2FWD_DRAIN_US 100
/** Most rx queues ((port, queue) pairs) one lcore polls. */
#define L2FWD_MAX_RXQ_PER_LCORE 64

/** Packets sent into, received from and dropped for one port by one lcore. */
struct l2fwd_port_stats {
	uint64_t tx;
	uint64_t rx;
	uint64_t dropped;
};

struct l2fwd_tx_buffer {
	uint16_t len;
	struct lr_mbuf *pkts[L2FWD_BURST];
};

/** One rx queue an lcore polls, and the buffer of the tx queue it feeds
 *  (the same queue number on the paired port). */
struct l2fwd_rxq {
	uint16_t port;
	uint16_t queue;
	struct l2fwd_tx_buffer txb;
};

/** What one lcore does, and its counters. */
struct l2fwd_lcore {
	unsigned n_rxq;
	unsigned worked; /* the previous poll moved frames (telemetry) */
	uint64_t prev_tsc;
	uint64_t cpu_ns;      /* thread CPU time spent in the loop */
	uint64_t busy_cycles; /* TSC cycles of polls that received frames */
	unsigned buffered;    /* packets held in the rx queues' tx buffers */
	struct l2fwd_rxq rxq[L2FWD_MAX_RXQ_PER_LCORE];
	struct l2fwd_port_stats stats[LR_MAX_ETHPORTS];
} __lr_cache_aligned;

struct l2fwd;

/** Called by the main lcore about every drain interval (stats, duration). */
typedef void (*l2fwd_tick_t)(struct l2fwd *fwd, uint64_t now_tsc);

/** The forwarder. */
struct l2fwd {
	uint16_t dst_port[LR_MAX_ETHPORTS]; /* LR_ETH_PORT_INVALID: off */
	/* dst MAC then src MAC written into packets sent to a port */
	uint8_t hdr[LR_MAX_ETHPORTS][2 * LR_ETHER_ADDR_LEN];
	int mac_updating;
	int record_cycles; /* count busy_cycles (one more TSC read a poll) */
	uint64_t drain_tsc;
	atomic_int quit;   /* set to stop every lcore */
	l2fwd_tick_t tick; /* NULL: none */
	void *tick_arg;
	struct l2fwd_lcore lcore[LR_MAX_LCORE];
};

/** Zero fwd, set drain interval and mac updating; no port forwards yet. */
void l2fwd_init(struct l2fwd *fwd, int mac_updating);

/** Forward port a to b and b to a (their MACs are read now); 0 or -errno. */
int l2fwd_pair(struct l2fwd *fwd, uint16_t a, uint16_t b);

/** Give lcore lcore_id the polling of queue 0 of port; 0 or -errno
 *  (-ENOSPC: the lcore polls L2FWD_MAX_RXQ_PER_LCORE queues already). */
int l2fwd_assign(struct l2fwd *fwd, unsigned lcore_id, uint16_t port);

/** Give lcore lcore_id the polling of rx queue queue of port, whose frames
 *  go out of tx queue queue of its pair; 0 or -errno (-ENOSPC as above). */
int l2fwd_assign_queue(struct l2fwd *fwd, unsigned lcore_id, uint16_t port,
		       uint16_t queue);

/** One pass on lcore lc: drain buffers if the interval passed, then poll
 *  each rx queue once. Returns the packets received. */
unsigned l2fwd_poll_once(struct l2fwd *fwd, unsigned lcore_id);

/** Send whatever lcore lc holds in its tx buffers (drop what is refused). */
void l2fwd_flush(struct l2fwd *fwd, unsigned lcore_id);

/** Poll until fwd->quit, then flush; calls tick on the main lcore. An
 *  lr_lcore_function_t whose arg is the struct l2fwd. */
int l2fwd_main_loop(void *arg);

/** CPU seconds spent in l2fwd_main_loop by every lcore (thread CPU time,
 *  so time the OS gave to other programs is not counted). */
double l2fwd_cpu_seconds(const struct l2fwd *fwd);

/** TSC cycles of the polls that received frames, summed over lcores
 *  (counted only with fwd->record_cycles set). */
uint64_t l2fwd_busy_cycles(const struct l2fwd *fwd);

/** Sum the counters of every lcore for one port. */
void l2fwd_port_totals(const struct l2fwd *fwd, uint16_t port,
		       struct l2fwd_port_stats *out);

/** The mbuf pool mp (NULL: none) freed once the ports are closed, when
 *  every mbuf came back: 0; else -1, mp kept. "mbufs in use after stop:
 *  N" said on stdout (only when N is not 0, and then on stderr: quiet). */
int l2fwd_pool_free(struct lr_mempool *mp, bool quiet);

#endif /* L2FWD_H */
