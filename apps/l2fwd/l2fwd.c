/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The forwarding loop of lr-l2fwd (see l2fwd.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "l2fwd.h"

void
l2fwd_init(struct l2fwd *fwd, int mac_updating)
{
	memset(fwd, 0, sizeof(*fwd));
	for (unsigned p = 0; p < LR_MAX_ETHPORTS; p++)
		fwd->dst_port[p] = LR_ETH_PORT_INVALID;
	fwd->mac_updating = mac_updating;
	fwd->drain_tsc =
	    (lr_get_tsc_hz() + 1000000 - 1) / 1000000 * L2FWD_DRAIN_US;
	atomic_init(&fwd->quit, 0);
}

/* The 12 bytes written at the start of a frame sent out of port dst. */
static int
prepare_hdr(struct l2fwd *fwd, uint16_t dst)
{
	struct lr_ether_addr own;
	int ret = lr_eth_macaddr_get(dst, &own);

	if (ret < 0)
		return ret;
	memset(fwd->hdr[dst], 0, LR_ETHER_ADDR_LEN);
	fwd->hdr[dst][0] = 0x02;
	fwd->hdr[dst][5] = (uint8_t)dst;
	memcpy(fwd->hdr[dst] + LR_ETHER_ADDR_LEN, own.addr_bytes,
	       LR_ETHER_ADDR_LEN);
	return 0;
}

int
l2fwd_pair(struct l2fwd *fwd, uint16_t a, uint16_t b)
{
	int ret;

	if (a >= LR_MAX_ETHPORTS || b >= LR_MAX_ETHPORTS || a == b)
		return -EINVAL;
	ret = prepare_hdr(fwd, a);
	if (ret == 0)
		ret = prepare_hdr(fwd, b);
	if (ret < 0)
		return ret;
	fwd->dst_port[a] = b;
	fwd->dst_port[b] = a;
	return 0;
}

int
l2fwd_assign_queue(struct l2fwd *fwd, unsigned lcore_id, uint16_t port,
		   uint16_t queue)
{
	struct l2fwd_lcore *lc;
	struct l2fwd_rxq *r;

	if (lcore_id >= LR_MAX_LCORE || port >= LR_MAX_ETHPORTS ||
	    queue >= LR_MAX_QUEUES_PER_PORT)
		return -EINVAL;
	lc = &fwd->lcore[lcore_id];
	if (lc->n_rxq == L2FWD_MAX_RXQ_PER_LCORE)
		return -ENOSPC;
	r = &lc->rxq[lc->n_rxq++];
	r->port = port;
	r->queue = queue;
	r->txb.len = 0;
	return 0;
}

int
l2fwd_assign(struct l2fwd *fwd, unsigned lcore_id, uint16_t port)
{
	return l2fwd_assign_queue(fwd, lcore_id, port, 0);
}

/* Send the buffer b to queue q of port dst; free and count what tx
 * refuses. */
static inline void
send_buffer(struct l2fwd_lcore *lc, struct l2fwd_tx_buffer *b, uint16_t dst,
	    uint16_t q)
{
	uint16_t sent;

	sent = lr_eth_tx_burst(dst, q, b->pkts, b->len);
	lc->buffered -= b->len;
	lr_counter_add(&lc->stats[dst].tx, sent);
	if (lr_unlikely(sent < b->len)) {
		lr_pktmbuf_free_bulk(b->pkts + sent, b->len - sent);
		lr_counter_add(&lc->stats[dst].dropped, b->len - sent);
	}
	b->len = 0;
}

void
l2fwd_flush(struct l2fwd *fwd, unsigned lcore_id)
{
	struct l2fwd_lcore *lc = &fwd->lcore[lcore_id];

	for (unsigned i = 0; i < lc->n_rxq; i++) {
		struct l2fwd_rxq *r = &lc->rxq[i];
		uint16_t dst = fwd->dst_port[r->port];

		if (r->txb.len)
			send_buffer(lc, &r->txb, dst, r->queue);
		else
			/* Nothing buffered: an empty burst lets a driver
			 * that batches its kernel kicks (net_af_xdp) push
			 * out frames still waiting in its ring, else they
			 * wait for the next packet, forever once traffic
			 * stops (frames lost on a loaded machine). */
			lr_eth_tx_burst(dst, r->queue, NULL, 0);
	}
}

/* Send what the tx buffers hold (a round that received nothing). */
static __attribute__((noinline)) void
flush_held(struct l2fwd *fwd, struct l2fwd_lcore *lc)
{
	for (unsigned i = 0; i < lc->n_rxq; i++) {
		struct l2fwd_rxq *r = &lc->rxq[i];

		if (r->txb.len)
			send_buffer(lc, &r->txb, fwd->dst_port[r->port],
				    r->queue);
	}
}

/* A packet too short for its MACs (a runt a driver let through): freed
 * and counted as dropped, never written past its data_len. */
static __attribute__((noinline, cold)) void
drop_runt(struct l2fwd_port_stats *st, struct lr_mbuf *m)
{
	lr_pktmbuf_free(m);
	lr_counter_add(&st->dropped, 1);
}

/* The 12 MAC bytes of a header, held in registers. */
struct macs {
	uint64_t a;
	uint32_t b;
};

/* Write MACs h at the start of m; 0 (nothing written) when m is a runt. */
static __lr_always_inline int
rewrite_macs(struct macs h, struct lr_mbuf *m)
{
	uint8_t *d = lr_pktmbuf_mtod(m, uint8_t *);

	if (m->data_len < 2 * LR_ETHER_ADDR_LEN)
		return 0;
	memcpy(d, &h.a, 8);
	memcpy(d + 8, &h.b, 4);
	return 1;
}

/* update_macs() from pkts[i], a runt, on: runts dropped and counted in
 * *st, the others rewritten and moved down over them; the packets left. */
static __attribute__((noinline, cold)) unsigned
update_macs_runts(struct macs h, struct lr_mbuf **pkts, unsigned i, unsigned n,
		  struct l2fwd_port_stats *st)
{
	unsigned k = i;

	for (; i < n; i++) {
		if (!rewrite_macs(h, pkts[i])) {
			drop_runt(st, pkts[i]);
			continue;
		}
		pkts[k++] = pkts[i];
	}
	return k;
}

/* Rewrite the MACs of n packets going out of the port whose header is hdr;
 * runts are dropped and counted in *st, the others kept in order. Returns
 * the packets left. The data lines are prefetched a few packets ahead;
 * the header's bytes stay in registers (a store to a packet could
 * otherwise be the header's, for all the compiler knows), and nothing
 * moves in pkts until a runt comes. */
static inline unsigned
update_macs(const uint8_t *hdr, struct lr_mbuf **pkts, unsigned n,
	    struct l2fwd_port_stats *st)
{
	enum { AHEAD = 4 };
	struct macs h;
	unsigned i;

	memcpy(&h.a, hdr, 8);
	memcpy(&h.b, hdr + 8, 4);
	for (i = 0; i < n && i < AHEAD; i++)
		__builtin_prefetch(lr_pktmbuf_mtod(pkts[i], void *), 1);
	/* Two loops: with and without a packet AHEAD left to prefetch. */
	for (i = 0; i + AHEAD < n; i++) {
		__builtin_prefetch(lr_pktmbuf_mtod(pkts[i + AHEAD], void *), 1);
		if (lr_unlikely(!rewrite_macs(h, pkts[i])))
			return update_macs_runts(h, pkts, i, n, st);
	}
	for (; i < n; i++)
		if (lr_unlikely(!rewrite_macs(h, pkts[i])))
			return update_macs_runts(h, pkts, i, n, st);
	return n;
}

/* Send n packets to queue r->queue of port dst through r's buffer: a full
 * burst meeting an empty buffer goes out directly; otherwise the packets
 * are appended and the buffer goes out when full. */
static inline void
buffer_packets(struct l2fwd_lcore *lc, struct l2fwd_rxq *r, uint16_t dst,
	       struct lr_mbuf **pkts, unsigned n)
{
	struct l2fwd_tx_buffer *b = &r->txb;
	unsigned len = b->len, room = L2FWD_BURST - len;

	if (len == 0 && n == L2FWD_BURST) {
		uint16_t sent =
		    lr_eth_tx_burst(dst, r->queue, pkts, (uint16_t)n);

		lr_counter_add(&lc->stats[dst].tx, sent);
		if (lr_unlikely(sent < n)) {
			lr_pktmbuf_free_bulk(pkts + sent, n - sent);
			lr_counter_add(&lc->stats[dst].dropped, n - sent);
		}
		return;
	}
	lc->buffered += n;
	if (n < room) {
		memcpy(&b->pkts[len], pkts, n * sizeof(pkts[0]));
		b->len = (uint16_t)(len + n);
		return;
	}
	memcpy(&b->pkts[len], pkts, room * sizeof(pkts[0]));
	b->len = L2FWD_BURST;
	send_buffer(lc, b, dst, r->queue);
	memcpy(b->pkts, pkts + room, (n - room) * sizeof(pkts[0]));
	b->len = (uint16_t)(n - room);
}

/* Forward one burst received on r to the same queue of port dst. */
static inline void
forward_burst(struct l2fwd *fwd, struct l2fwd_lcore *lc, struct l2fwd_rxq *r,
	      uint16_t dst, struct lr_mbuf **pkts, unsigned n)
{
	if (fwd->mac_updating)
		n = update_macs(fwd->hdr[dst], pkts, n, &lc->stats[dst]);
	if (n)
		buffer_packets(lc, r, dst, pkts, n);
}

unsigned
l2fwd_poll_once(struct l2fwd *fwd, unsigned lcore_id)
{
	struct l2fwd_lcore *lc = &fwd->lcore[lcore_id];
	struct lr_mbuf *pkts[L2FWD_BURST];
	uint64_t now = lr_get_tsc_cycles();
	unsigned total = 0;

	/* Busy and idle cycles for telemetry's /eal/lcore/info, on this
	 * poll's own TSC read: the previous poll ends here (lr_lcore.h). */
	lr_lcore_poll_account_at(lcore_id, now, lc->worked);
	if (lr_unlikely(now - lc->prev_tsc > fwd->drain_tsc)) {
		l2fwd_flush(fwd, lcore_id);
		lc->prev_tsc = now;
		if (fwd->tick && lcore_id == lr_get_main_lcore())
			fwd->tick(fwd, now);
	}
	for (unsigned i = 0; i < lc->n_rxq; i++) {
		struct l2fwd_rxq *r = &lc->rxq[i];
		unsigned n =
		    lr_eth_rx_burst(r->port, r->queue, pkts, L2FWD_BURST);

		if (n == 0)
			continue;
		lr_counter_add(&lc->stats[r->port].rx, n);
		total += n;
		forward_burst(fwd, lc, r, fwd->dst_port[r->port], pkts, n);
	}
	if (total == 0 && lc->buffered)
		flush_held(fwd, lc);
	lc->worked = total != 0;
	return total;
}

static uint64_t
thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int
l2fwd_main_loop(void *arg)
{
	struct l2fwd *fwd = arg;
	unsigned lcore_id = lr_lcore_id();

	if (lcore_id >= LR_MAX_LCORE)
		return -EINVAL;
	/* A worker with no port has nothing to do; main keeps the timer. */
	if (fwd->lcore[lcore_id].n_rxq == 0 && lcore_id != lr_get_main_lcore())
		return 0;
	uint64_t t0 = thread_cpu_ns();

	fwd->lcore[lcore_id].prev_tsc = lr_get_tsc_cycles();
	/* The telemetry count of busy and idle cycles starts at this loop. */
	lr_lcore_poll_begin();
	if (fwd->record_cycles) {
		struct l2fwd_lcore *lc = &fwd->lcore[lcore_id];

		while (
		    !atomic_load_explicit(&fwd->quit, memory_order_relaxed)) {
			uint64_t s = lr_get_tsc_cycles();

			if (l2fwd_poll_once(fwd, lcore_id) != 0)
				lc->busy_cycles += lr_get_tsc_cycles() - s;
		}
	} else {
		while (!atomic_load_explicit(&fwd->quit, memory_order_relaxed))
			l2fwd_poll_once(fwd, lcore_id);
	}
	l2fwd_flush(fwd, lcore_id);
	fwd->lcore[lcore_id].cpu_ns = thread_cpu_ns() - t0;
	return 0;
}

void
l2fwd_port_totals(const struct l2fwd *fwd, uint16_t port,
		  struct l2fwd_port_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned l = 0; l < LR_MAX_LCORE; l++) {
		const struct l2fwd_port_stats *s = &fwd->lcore[l].stats[port];

		/* The lcores keep counting (see lr_counter_add()). */
		out->tx += lr_counter_read(&s->tx);
		out->rx += lr_counter_read(&s->rx);
		out->dropped += lr_counter_read(&s->dropped);
	}
}

uint64_t
l2fwd_busy_cycles(const struct l2fwd *fwd)
{
	uint64_t c = 0;

	for (unsigned l = 0; l < LR_MAX_LCORE; l++)
		c += fwd->lcore[l].busy_cycles;
	return c;
}

double
l2fwd_cpu_seconds(const struct l2fwd *fwd)
{
	uint64_t ns = 0;

	for (unsigned l = 0; l < LR_MAX_LCORE; l++)
		ns += fwd->lcore[l].cpu_ns;
	return (double)ns / 1e9;
}

int
l2fwd_pool_free(struct lr_mempool *mp, bool quiet)
{
	unsigned in_use;

	if (mp == NULL)
		return 0;
	in_use = lr_mempool_in_use_count(mp);
	if (!quiet || in_use != 0)
		fprintf(quiet ? stderr : stdout,
			"mbufs in use after stop: %u\n", in_use);
	if (in_use != 0)
		return -1;
	lr_mempool_free(mp);
	return 0;
}
