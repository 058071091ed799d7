/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * af_xdp_rx_tx.c - net_af_xdp's datapath (af_xdp_private.h says which file
 * does what): the burst functions and what they need.
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
#include <sys/socket.h>

#include <xdp/xsk.h>

#include "af_xdp_private.h"
#include "lr_ethdev_driver.h"
#include "lr_mbuf.h"
#include "lr_net.h"

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

			/* a frame from the pool is in none of the kernel's
			 * rings: pool avail + held + the application's ==
			 * frames */
			LR_ASSERT(!(q->rx_held[f >> 6] & (1ULL << (f & 63))));
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

/* Receive burst (af_xdp_private.h). */
uint16_t
lr_af_xdp_rx_(void *rxq, struct lr_mbuf **pkts, uint16_t n)
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

/* Transmit burst (af_xdp_private.h). */
uint16_t
lr_af_xdp_tx_(void *txq, struct lr_mbuf **pkts, uint16_t n)
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
		/* a frame goes to the tx ring once until it completes */
		LR_ASSERT(!(q->tx_held[f >> 6] & (1ULL << (f & 63))));
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
/* For the control path (af_xdp_socket.c): the helpers above, out of line,
 * so that the burst functions keep their inlined copies. */

unsigned
lr_af_xdp_refill_(struct axq *q, unsigned n)
{
	return refill(q, n);
}

void
lr_af_xdp_tx_drain_(struct axq *q)
{
	kick(q);
	reclaim(q);
}
