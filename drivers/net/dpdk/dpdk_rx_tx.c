/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpdk_rx_tx.c - net_dpdk's burst functions (dpdk_private.h says which
 * file does what; lr_eth_dpdk.h, "What a forwarded packet costs"): DPDK
 * mbufs received handed over under linerate headers (bound ones for the
 * port's own pool, the fast way), linerate packets sent as DPDK mbufs
 * (their own, or data-less ones attached to linerate buffers).
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_mempool.h>

#include "dpdk_private.h"
#include "lr_ethdev_driver.h"
#include "lr_mbuf.h"

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

/* The rearm word and the flags too (lr_dpdk_rx_ moves them as one). */
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

/* lr_dpdk_rx_() from x[i] on, the general way (segments of other pools or
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
	uint16_t nb = rte_eth_rx_burst(q->pid, q->qid, (struct rte_mbuf **)pkts,
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

/* Receive burst (dpdk_private.h). */
uint16_t
lr_dpdk_rx_(void *rxq, struct lr_mbuf **pkts, uint16_t n)
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
	 * (lr_dpdk_bind_headers_): rearm word and flags (data_off and the flags
	 * kept, the rest ours) as one 16-byte move, the descriptor fields as
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

/* What a packet to send is (lr_dpdk_tx_). */
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
	if (lr_likely(ops == lr_dpdk_bound_ops_reg_))
		return TX_BOUND;
	return ops == lr_dpdk_hdr_ops_reg_ ? TX_OWN : TX_ATTACHED;
}

/* What lr_dpdk_tx_() writes back into a packet's own DPDK mbuf: data_off,
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

/* lr_dpdk_tx_() from packet k on, once a packet that is not a plain bound
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

/* Transmit burst (dpdk_private.h). */
uint16_t
lr_dpdk_tx_(void *txq, struct lr_mbuf **pkts, uint16_t n)
{
	struct dpdk_txq *q = txq;
	struct rte_mbuf *x[DPDK_BURST];
	/* Kept in a register: the stores to the DPDK mbufs may alias it. */
	const struct lr_mempool_ops *bound = lr_dpdk_bound_ops_reg_;
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
