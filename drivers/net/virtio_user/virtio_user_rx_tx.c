/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_virtio_user's datapath over split virtqueues (virtio 1.1, 2.6): the
 * layout of the rings in the port's shared region, their reset, and the
 * rx and tx bursts. Rx queue q is virtqueue 2q (the backend writes), tx
 * queue q virtqueue 2q + 1 (the backend reads).
 *
 * Copying: descriptor i always points at buffer i of its ring, inside the
 * memfd region the backend maps; packets are copied between these buffers
 * and mbufs. The caller's mbuf pools live in the page allocator's private
 * mapping, which cannot be handed to another process (it is one mapping
 * of the whole heap, not a file of its own), so the buffers the backend
 * may touch are ours alone; a copy also keeps a hostile backend away from
 * mbuf headers and from packets we still hold. Transmit may instead
 * put a frame's own buffer on the ring (zero copy, virtio_user_private.h);
 * such mbufs are freed once used, and at a link down or ring reset, once
 * the backend has stopped or gone: none is lost.
 *
 * Every used entry the backend wrote is read once into locals and checked
 * (id below the ring size, length within the buffer and above the
 * header, num_buffers within the ring, the used index no further than the
 * ring allows); a bad one takes the port's link down through `bad`.
 *
 * Notifications: calls are suppressed (NO_INTERRUPT, or with EVENT_IDX a
 * used_event kept just behind what we read, on both rings); a kick is
 * sent only when the backend asks for one (no NO_NOTIFY flag, or with
 * EVENT_IDX when the avail index passes its avail_event), so a polling
 * backend gets none.
 *
 * Cost per burst: one seq_cst store (busy), an acquire load of the used
 * index (tx: only when fewer than the burst and a quarter of the ring are
 * free), a release store of the avail index and, when kicks are enabled,
 * a fence and one eventfd write. Per packet: the used entry read, the
 * copy, an mbuf get (rx) or put (tx).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lr_memory.h"
#include "lr_net.h"
#include "virtio_user_private.h"

void
lr_vu_queue_quiesce_(struct vu_queue *q)
{
	atomic_store_explicit(&q->up, 0, memory_order_seq_cst);
	while (atomic_load_explicit(&q->busy, memory_order_seq_cst))
		sched_yield();
}

/* The backend wrote something a ring cannot hold: take the link down. */
void
lr_vu_ring_fault_(struct vu_queue *q, const char *what, unsigned v)
{
	struct vu_port *p = q->p;

	if (atomic_exchange(&p->bad, 1) == 0) {
		snprintf(p->bad_why, sizeof(p->bad_why),
			 "%s queue %u: backend wrote a bad %s (%u)",
			 q == &p->rxq[q->qid] ? "rx" : "tx", q->qid, what, v);
		lr_vu_wake_(p);
	}
	atomic_store_explicit(&q->up, 0, memory_order_relaxed);
}

/* Publish the avail index moved from old to vr->avail_idx, and kick the
 * backend when it asked for it. */
static inline void
publish(struct vu_queue *q, uint16_t old)
{
	struct vu_vring *vr = &q->vr;
	uint16_t now = vr->avail_idx;
	int kick;

	if (now == old)
		return;
	vu_store_rel16(&vr->avail->idx, now);
	/* the backend's flag or event is read after the index is out */
	atomic_thread_fence(memory_order_seq_cst);
	if (q->event_idx)
		kick = lr_vring_need_event(
		    *lr_vring_avail_event(vr->used, vr->num), now, old);
	else
		kick = !(__atomic_load_n(&vr->used->flags, __ATOMIC_RELAXED) &
			 LR_VRING_USED_F_NO_NOTIFY);
	if (lr_unlikely(kick)) {
		uint64_t one = 1;

		if (write(vr->kick_fd, &one, sizeof(one)) == sizeof(one))
			lr_counter_add(&q->kicks, 1);
	}
}

/* With EVENT_IDX, keep the backend's call point just behind us: moved
 * every LR_VRING_EVENT_STEP entries read (a store each burst would cost
 * the backend a miss on that line each burst). */
static inline void
calls_off(struct vu_queue *q)
{
	if (q->event_idx)
		lr_vring_event_follow(
		    lr_vring_used_event(q->vr.avail, q->vr.num),
		    q->vr.last_used, &q->vr.ev_mark);
}

/* Offer rx buffer id again. */
static inline void
rx_offer(struct vu_vring *vr, uint16_t id)
{
	vr->avail->ring[vr->avail_idx & vr->mask] = id;
	vr->avail_idx++;
}

/* The checked used entry k of rx ring vr into *id and *len; 0 or -1. */
static inline int
rx_entry(struct vu_queue *q, uint16_t k, uint16_t *id, uint32_t *len,
	 uint32_t min)
{
	struct vu_vring *vr = &q->vr;
	struct lr_vring_used_elem e = vr->used->ring[k & vr->mask];

	if (lr_unlikely(e.id >= vr->num)) {
		lr_vu_ring_fault_(q, "used id", e.id);
		return -1;
	}
	if (lr_unlikely(e.len < min || e.len > VU_BSIZE)) {
		lr_vu_ring_fault_(q, "used length", e.len);
		return -1;
	}
	*id = (uint16_t)e.id;
	*len = e.len;
	return 0;
}

/* Receive the packet at the ring's next used entry, of which avail
 * entries are there, into *out (NULL: dropped for want of mbufs). The
 * used entries it took (0: not all there yet), or -1 at a fault. */
static int
rx_one(struct vu_queue *q, uint16_t avail, struct lr_mbuf **out)
{
	struct vu_vring *vr = &q->vr;
	uint16_t id, nb = 1;
	uint32_t len;
	const struct vu_net_hdr *h;
	struct lr_mbuf *m;

	if (rx_entry(q, vr->last_used, &id, &len, q->hdr_len) != 0)
		return -1;
	h = (const struct vu_net_hdr *)(vr->bufs + (size_t)id * VU_BSIZE);
	if (q->mrg) {
		nb = h->num_buffers;
		if (lr_unlikely(nb == 0 || nb > vr->num)) {
			lr_vu_ring_fault_(q, "num_buffers", nb);
			return -1;
		}
		if (nb > avail)
			return 0;
	}
	m = lr_pktmbuf_alloc(q->mp);
	if (m != NULL &&
	    lr_pktmbuf_append_copy(m, q->mp, (const uint8_t *)h + q->hdr_len,
				   len - q->hdr_len) != 0) {
		lr_pktmbuf_free(m);
		m = NULL;
	}
	rx_offer(vr, id);
	for (uint16_t b = 1; b < nb; b++) {
		if (rx_entry(q, (uint16_t)(vr->last_used + b), &id, &len, 0))
			goto fault;
		if (m != NULL &&
		    lr_pktmbuf_append_copy(
			m, q->mp, vr->bufs + (size_t)id * VU_BSIZE, len) != 0) {
			lr_pktmbuf_free(m);
			m = NULL;
		}
		rx_offer(vr, id);
	}
	if (m != NULL && (h->vh.flags != 0 || h->vh.gso_type != 0) &&
	    lr_net_vnet_rx(m, &h->vh, 0) != 0)
		lr_counter_add(&q->c.errors, 1);
	*out = m;
	return nb;
fault:
	lr_pktmbuf_free(m);
	return -1;
}

uint16_t
lr_vu_rx_burst_(void *queue, struct lr_mbuf **pkts, uint16_t n)
{
	struct vu_queue *q = queue;
	struct vu_vring *vr = &q->vr;
	uint16_t got = 0, old, used;
	uint64_t bytes = 0;

	if (lr_unlikely(vu_q_enter(q) != 0))
		return 0;
	old = vr->avail_idx;
	used = vu_load_acq16(&vr->used->idx);
	if (lr_unlikely((uint16_t)(used - vr->last_used) > vr->num)) {
		lr_vu_ring_fault_(q, "used index", used);
		goto out;
	}
	while (got < n && vr->last_used != used) {
		struct lr_mbuf *m;
		int k = rx_one(q, (uint16_t)(used - vr->last_used), &m);

		if (k <= 0)
			break;
		vr->last_used = (uint16_t)(vr->last_used + k);
		if (lr_unlikely(m == NULL)) {
			lr_counter_add(&q->c.nombuf, 1);
			continue;
		}
		m->port = q->port_id;
		bytes += m->pkt_len;
		pkts[got++] = m;
	}
	calls_off(q);
	publish(q, old);
	lr_counter_add(&q->c.packets, got);
	lr_counter_add(&q->c.bytes, bytes);
out:
	vu_q_leave(q);
	return got;
}

/* Take back the tx chains the backend used; 0 or -1 at a fault. */
static int
tx_reclaim(struct vu_queue *q)
{
	struct vu_vring *vr = &q->vr;
	uint16_t used = vu_load_acq16(&vr->used->idx);
	uint16_t last = vr->last_used, done = vr->done_id;
	const struct lr_vring_used_elem *ue = vr->used->ring;
	struct vu_free_batch d;
	struct vu_give g;
	int rc = 0;

	if (lr_unlikely((uint16_t)(used - last) > vr->num - vr->nfree)) {
		lr_vu_ring_fault_(q, "used index", used);
		return -1;
	}
	d.n = 0;
	lr_vu_give_start_(vr, &g);
	for (; last != used; last++) {
		/* in order: the backend may write one entry for a batch; the
		 * chains are ours, made available in ring order */
		uint32_t head = q->in_order ? (uint32_t)(done & g.mask)
					    : ue[last & g.mask].id;
		int n = lr_vu_tx_chain_free_(q, &g, head);

		if (n < 0) {
			rc = -1;
			break;
		}
		if (q->zc_n != 0)
			lr_vu_zc_take_(vr, head, &d);
		done = (uint16_t)(done + n);
	}
	vr->last_used = last;
	vr->done_id = done;
	lr_vu_give_end_(vr, &g);
	if (d.n != 0)
		lr_pktmbuf_free_bulk(d.m, d.n);
	calls_off(q);
	return rc;
}

void
lr_vu_tx_release_(struct vu_queue *q)
{
	struct vu_vring *vr = &q->vr;
	struct vu_free_batch d = {.n = 0};

	if (vr->tx_mbuf == NULL)
		return;
	for (uint32_t i = 0; i < vr->num; i++)
		lr_vu_zc_take_(vr, i, &d);
	if (d.n != 0)
		lr_pktmbuf_free_bulk(d.m, d.n);
}

void
lr_vu_zc_regions_(struct vu_port *p)
{
	p->zc_n = 0;
	if (!p->zero_copy)
		return;
	for (unsigned i = 0; i < lr_memseg_count() && p->zc_n < VU_ZC_MAX;
	     i++) {
		const struct lr_memseg *s = lr_memseg_get(i);

		if (s == NULL || s->share_fd < 0)
			continue;
		p->zc_lo[p->zc_n] = (uintptr_t)s->addr;
		p->zc_hi[p->zc_n] = (uintptr_t)s->addr + s->len;
		p->zc_fd[p->zc_n] = s->share_fd;
		p->zc_n++;
	}
}

uint16_t
lr_vu_tx_drop_all_(struct vu_queue *q, struct lr_mbuf **pkts, uint16_t n)
{
	lr_pktmbuf_free_bulk(pkts, n);
	lr_counter_add(&q->link_down, n);
	lr_counter_add(&q->c.errors, n);
	return n;
}

/* The free id j places after the FIFO's head (j < nfree). */
static inline uint16_t
tx_id_at(const struct vu_vring *vr, uint32_t j)
{
	return vr->free_ids[(uint16_t)(vr->free_head + j) & vr->mask];
}

/* Take the next free id of the FIFO (there is one). */
static inline uint16_t
tx_id_take(struct vu_vring *vr)
{
	uint16_t id = tx_id_at(vr, 0);

	vr->free_head++;
	vr->nfree--;
	return id;
}

/* Put m (len bytes with the header in h) in a chain of need buffers
 * (cold: frames over one buffer); its head. */
static __attribute__((noinline)) uint16_t
tx_chain(struct vu_vring *vr, const struct lr_mbuf *m,
	 const struct vu_net_hdr *h, uint32_t hdr_len, uint32_t need)
{
	uint16_t head = tx_id_take(vr), id = head;
	uint32_t off = 0;

	for (uint32_t k = 0; k < need; k++) {
		uint8_t *b = vr->bufs + (size_t)id * VU_BSIZE;
		uint32_t room = VU_BSIZE - (k == 0 ? hdr_len : 0);
		uint32_t n = LR_MIN(room, m->pkt_len - off);
		const void *src;

		if (k == 0) {
			memcpy(b, h, hdr_len);
			b += hdr_len;
		}
		src = lr_pktmbuf_read(m, off, n, b);
		if (src != b)
			memcpy(b, src, n);
		off += n;
		/* the id's buffer, whatever its last frame used */
		vr->desc[id].addr =
		    (uint64_t)(uintptr_t)(vr->bufs + (size_t)id * VU_BSIZE);
		vr->desc[id].len = n + (k == 0 ? hdr_len : 0);
		if (k + 1 < need) {
			uint16_t nx = tx_id_take(vr);

			vr->desc[id].flags = LR_VRING_DESC_F_NEXT;
			vr->desc[id].next = nx;
			vr->chain_next[id] = nx;
			id = nx;
		} else {
			vr->desc[id].flags = 0;
		}
	}
	vr->chain_len[head] = (uint16_t)need;
	return head;
}

/* Point descriptor d at len bytes at b, the chain's last: stored only
 * where it changes. The backend only reads a transmit descriptor, so one
 * left as it was stays in the backend's cache too; an id that takes the
 * same slot and length again (fixed-size traffic, in order) moves no
 * descriptor line between the CPUs. */
static inline void
desc_set(struct lr_vring_desc *d, const void *b, uint32_t len)
{
	uint64_t a = (uint64_t)(uintptr_t)b;

	if (d->addr != a || d->len != len || d->flags != 0) {
		d->addr = a;
		d->len = len;
		d->flags = 0;
	}
}

/* Where a copied frame of len bytes (header included) goes for id: its
 * short slot, or its buffer. */
static inline uint8_t *
tx_buf(const struct vu_vring *vr, uint16_t id, uint32_t len)
{
	return len <= VU_SSIZE ? vr->sbufs + (size_t)id * VU_SSIZE
			       : vr->bufs + (size_t)id * VU_BSIZE;
}

/* Put m on tx ring vr as one descriptor of len bytes, header h first, in
 * id's short slot or buffer; its id. */
static inline uint16_t
tx_one(struct vu_vring *vr, const struct lr_mbuf *m, const struct vu_net_hdr *h,
       uint32_t hdr_len, uint32_t len)
{
	uint16_t id = tx_id_take(vr);
	uint8_t *b = tx_buf(vr, id, len);

	/* No offload: a zero header, stored without reading h back (its
	 * bytes would wait for every store before them, the previous
	 * frames' included; the frame overwrites what is past hdr_len). */
	if (lr_likely((m->ol_flags & LR_MBUF_F_OFFLOAD_MASK) == 0))
		memset(b, 0, sizeof(*h));
	else
		memcpy(b, h, hdr_len);
	if (lr_likely(m->nb_segs == 1 && m->data_len >= 16))
		lr_copy_16(b + hdr_len, lr_pktmbuf_mtod(m, const uint8_t *),
			   m->data_len);
	else
		lr_pktmbuf_copy_out(m, b + hdr_len);
	desc_set(&vr->desc[id], b, len);
	vr->chain_len[id] = 1;
	return id;
}

/* Put m on tx ring vr as it is: a zero virtio-net header written into
 * its headroom, one descriptor of len bytes from there; m is held until
 * the backend has used it. Its id. */
static inline uint16_t
tx_zc(struct vu_vring *vr, struct lr_mbuf *m, uint32_t hdr_len, uint32_t len)
{
	uint16_t id = tx_id_take(vr);
	uint8_t *h = lr_vu_zc_header_(m, hdr_len);

	desc_set(&vr->desc[id], h, len);
	vr->chain_len[id] = 1;
	vr->tx_mbuf[id] = m;
	return id;
}

void
lr_vu_tx_bad_(struct vu_queue *q, struct lr_mbuf *m, int too_long)
{
	if (too_long)
		lr_counter_add(&q->too_long, 1);
	lr_counter_add(&q->c.errors, 1);
	lr_pktmbuf_free(m);
}

/* The lines the next k copied frames go to (short slot or buffer) asked
 * for writing at once: the backend's CPU read them last, and each write
 * would otherwise wait for its line to come back, one after the other.
 * Their descriptors are asked for reading (most stay as they are). When
 * the last of them is short, the short slots of up to k free ids after
 * them are asked for too, for the next burst: on CPUs far apart a line
 * takes longer to come than a burst takes to copy, and asked for only
 * now each burst would wait for its own (lr-pktgen's 64-byte frames far:
 * 17-18 Mpps without, 20-22 with). */
static inline void
tx_prefetch(const struct vu_vring *vr, struct lr_mbuf *const *pkts,
	    uint32_t k, uint32_t hdr_len)
{
	uint32_t next;

	for (uint32_t j = 0; j < k; j++) {
		uint16_t id = tx_id_at(vr, j);
		uint32_t len = pkts[j]->pkt_len + hdr_len;
		const uint8_t *b = tx_buf(vr, id, len);

		if (pkts[j]->pkt_len >= VU_ZC_MIN)
			continue;
		for (uint32_t off = 0; off < len; off += 64)
			lr_prefetch_w(b + off);
		lr_prefetch_w(b + len - 1);
		/* read: desc_set() stores only where it changes */
		__builtin_prefetch(&vr->desc[id]);
	}
	if (k == 0 || pkts[k - 1]->pkt_len + hdr_len > VU_SSIZE)
		return;
	next = LR_MIN(2 * k, (uint32_t)vr->nfree);
	for (uint32_t j = k; j < next; j++) {
		uint16_t id = tx_id_at(vr, j);
		const uint8_t *b = vr->sbufs + (size_t)id * VU_SSIZE;

		lr_prefetch_w(b);
		lr_prefetch_w(b + VU_SSIZE - 1);
	}
}

static uint16_t
tx_split(void *queue, struct lr_mbuf **pkts, uint16_t n)
{
	struct vu_queue *q = queue;
	struct vu_vring *vr = &q->vr;
	struct vu_free_batch done; /* copied: freed in bulk */
	uint16_t i, old;
	uint64_t bytes = 0, sent = 0, zc = 0;

	done.n = 0; /* not = {0}: that clears the whole array each burst */

	if (lr_unlikely(vu_q_enter(q) != 0))
		return lr_vu_tx_drop_all_(q, pkts, n);
	old = vr->avail_idx;
	/* The used index is read only when fewer than the burst and a
	 * quarter of the ring are free: it is a line the backend's CPU
	 * wrote, and a read of it per burst took a burst's first 1300
	 * cycles on CPUs far apart. */
	if (vr->nfree < n + (vr->num >> 2) && lr_unlikely(tx_reclaim(q) != 0)) {
		vu_q_leave(q);
		return lr_vu_tx_drop_all_(q, pkts, n);
	}
	tx_prefetch(vr, pkts, LR_MIN((uint32_t)n, vr->nfree), q->hdr_len);
	for (i = 0; i < n; i++) {
		struct lr_mbuf *m = pkts[i];
		uint32_t len = m->pkt_len + q->hdr_len;
		uint32_t need = (len + VU_BSIZE - 1) / VU_BSIZE;
		struct vu_net_hdr h;
		uint16_t head;

		if (lr_unlikely(need > vr->nfree)) {
			if (need > vr->num) {
				lr_vu_tx_bad_(q, m, 1);
				continue;
			}
			/* chains: more than the room made before the loop;
			 * fewer than need are free, so read what was used */
			if (tx_reclaim(q) != 0)
				break;
			if (need > vr->nfree) {
				lr_counter_add(&q->ring_full, 1);
				break;
			}
		}
		/* The header built only where it is copied: a frame with an
		 * offload, or a chain (tx_one stores a zero header itself). */
		if (lr_unlikely((m->ol_flags & LR_MBUF_F_OFFLOAD_MASK) != 0 ||
				need > 1) &&
		    vu_tx_hdr(q, m, &h) != 0) {
			lr_vu_tx_bad_(q, m, 0);
			continue;
		}
		if (q->zc_n != 0 && lr_vu_zc_ok_(q, m)) {
			head = tx_zc(vr, m, q->hdr_len, len);
			m = NULL; /* held until used */
			zc++;
		} else if (lr_likely(need == 1)) {
			head = tx_one(vr, m, &h, q->hdr_len, len);
		} else {
			head = tx_chain(vr, m, &h, q->hdr_len, need);
		}
		/* in order, the entry holds this head from the last lap
		 * already: left alone, its line is not moved */
		if (vr->avail->ring[vr->avail_idx & vr->mask] != head)
			vr->avail->ring[vr->avail_idx & vr->mask] = head;
		vr->avail_idx++;
		bytes += len - q->hdr_len;
		sent++;
		if (m != NULL)
			lr_vu_done_add_(&done, m);
	}
	if (done.n != 0)
		lr_pktmbuf_free_bulk(done.m, done.n);
	publish(q, old);
	lr_counter_add(&q->c.packets, sent);
	lr_counter_add(&q->c.bytes, bytes);
	if (zc != 0)
		lr_counter_add(&q->zero_copy, zc);
	vu_q_leave(q);
	return i;
}

uint16_t
lr_vu_tx_burst_(void *queue, struct lr_mbuf **pkts, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++)
		if (lr_unlikely(pkts[i]->ol_flags & LR_MBUF_F_OFFLOAD_MASK))
			return lr_vu_tx_soft_(queue, pkts, n, tx_split);
	return tx_split(queue, pkts, n);
}

/* Send super-frame m cut into frames of tso_segsz payload through fn; m
 * is consumed. Segments the ring has no room for are dropped and counted
 * (what was sent of the frame cannot be taken back). */
static __attribute__((noinline, cold)) void
tx_tso(struct vu_queue *q, struct lr_mbuf *m, lr_eth_tx_burst_t fn)
{
	struct lr_mbuf *segs[VU_TSO_SEGS_MAX];
	int k = lr_net_tso_segment(m, m->pool, segs, VU_TSO_SEGS_MAX);
	uint16_t sent;

	if (k < 0) {
		lr_counter_add(&q->offload_errors, 1);
		lr_counter_add(&q->c.errors, 1);
		lr_pktmbuf_free(m);
		return;
	}
	sent = fn(q, segs, (uint16_t)k);
	if (sent < k) {
		lr_pktmbuf_free_bulk(segs + sent, (unsigned)k - sent);
		lr_counter_add(&q->c.errors, (uint64_t)k - sent);
	}
	lr_pktmbuf_free(m);
}

/* What of m's offloads the backend does not take: 2 segmentation, 1
 * checksums, 0 none (the virtio-net header carries them). */
static inline int
tx_soft_need(const struct vu_queue *q, const struct lr_mbuf *m)
{
	const uint64_t part =
	    LR_MBUF_F_RX_L4_CKSUM_PARTIAL | LR_MBUF_F_TX_L4_CKSUM;

	if (m->ol_flags & LR_MBUF_F_TCP_SEG_MASK)
		return q->host_tso && q->host_csum && (m->ol_flags & part) ? 0
									   : 2;
	if ((m->ol_flags & part) && !q->host_csum)
		return 1;
	return 0;
}

uint16_t
lr_vu_tx_soft_(struct vu_queue *q, struct lr_mbuf **pkts, uint16_t n,
	       lr_eth_tx_burst_t fn)
{
	uint16_t done = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct lr_mbuf *m = pkts[i];
		int need = tx_soft_need(q, m);

		if (need == 2) {
			if (i > done) {
				done += fn(q, pkts + done, i - done);
				if (done < i)
					return done;
			}
			tx_tso(q, m, fn);
			done++;
		} else if (need == 1 && lr_net_cksum_offload(m) != 0) {
			lr_counter_add(&q->offload_errors, 1);
		}
	}
	if (done < n)
		done += fn(q, pkts + done, n - done);
	return done;
}

/* Place one ring of num descriptors at offset *off of the region. */
static void
ring_layout(struct vu_vring *vr, uint32_t num, uint64_t *off)
{
	vr->num = (uint16_t)num;
	vr->mask = (uint16_t)(num - 1);
	vr->desc_off = LR_ALIGN_CEIL(*off, 64);
	vr->avail_off = vr->desc_off + lr_vring_desc_size(num);
	vr->used_off =
	    LR_ALIGN_CEIL(vr->avail_off + lr_vring_avail_size(num), 64);
	vr->bufs_off =
	    LR_ALIGN_CEIL(vr->used_off + lr_vring_used_size(num), 64);
	vr->sbufs_off = vr->bufs_off + (uint64_t)num * VU_BSIZE;
	*off = vr->sbufs_off + (uint64_t)num * VU_SSIZE;
}

uint64_t
lr_vu_layout_(struct vu_port *p)
{
	uint64_t off = 0;

	for (unsigned q = 0; q < p->nq; q++) {
		ring_layout(&p->rxq[q].vr, p->qsize, &off);
		ring_layout(&p->txq[q].vr, p->qsize, &off);
	}
	return off;
}

/* Make ring vr of the region at base new; rx: every buffer offered. */
static void
ring_reset(struct vu_vring *vr, uint8_t *base, int rx)
{
	LR_ASSERT(vr->num != 0 && (vr->num & vr->mask) == 0);
	vr->desc = (struct lr_vring_desc *)(base + vr->desc_off);
	vr->avail = (struct lr_vring_avail *)(base + vr->avail_off);
	vr->used = (struct lr_vring_used *)(base + vr->used_off);
	vr->bufs = base + vr->bufs_off;
	vr->sbufs = base + vr->sbufs_off;
	memset(vr->desc, 0, vr->bufs_off - vr->desc_off);
	for (uint32_t i = 0; i < vr->num; i++) {
		vr->desc[i].addr =
		    (uint64_t)(uintptr_t)(vr->bufs + (size_t)i * VU_BSIZE);
		vr->desc[i].len = rx ? VU_BSIZE : 0;
		vr->desc[i].flags = rx ? LR_VRING_DESC_F_WRITE : 0;
		if (rx)
			vr->avail->ring[i] = (uint16_t)i;
		else
			vr->free_ids[i] = (uint16_t)i;
	}
	vr->avail_idx = rx ? vr->num : 0;
	vr->avail->idx = vr->avail_idx;
	vr->last_used = 0;
	vr->free_head = 0;
	vr->done_id = 0;
	vr->nfree = rx ? 0 : vr->num;
	if (!rx)
		memset(vr->chain_len, 0, vr->num * sizeof(uint16_t));
}

void
lr_vu_rings_reset_(struct vu_port *p)
{
	uint8_t *base = p->shm.addr;
	int ev = lr_virtio_has(p->features, LR_VIRTIO_F_RING_EVENT_IDX);

	for (unsigned i = 0; i < p->nq; i++) {
		struct vu_queue *qs[2] = {&p->rxq[i], &p->txq[i]};

		for (unsigned d = 0; d < 2; d++) {
			struct vu_queue *q = qs[d];

			LR_ASSERT(!atomic_load(&q->up) &&
				  !atomic_load(&q->busy));
			q->packed = (uint8_t)p->packed;
			if (d == 1) {
				lr_vu_tx_release_(q);
				q->zc_n = q->vr.tx_mbuf != NULL
					      ? (uint8_t)p->zc_n
					      : 0;
				memcpy(q->zc_lo, p->zc_lo, sizeof(q->zc_lo));
				memcpy(q->zc_hi, p->zc_hi, sizeof(q->zc_hi));
			}
			if (p->packed) {
				lr_vu_packed_reset_(&q->vr, base, d == 0);
			} else {
				ring_reset(&q->vr, base, d == 0);
				q->vr.avail->flags =
				    ev ? 0 : LR_VRING_AVAIL_F_NO_INTERRUPT;
			}
			q->event_idx = (uint8_t)ev;
			q->mrg = (uint8_t)lr_virtio_has(
			    p->features, LR_VIRTIO_NET_F_MRG_RXBUF);
			q->in_order = (uint8_t)lr_virtio_has(
			    p->features, LR_VIRTIO_F_IN_ORDER);
			q->host_csum = (uint8_t)lr_virtio_has(
			    p->features, LR_VIRTIO_NET_F_CSUM);
			q->host_tso =
			    lr_virtio_has(p->features,
					  LR_VIRTIO_NET_F_HOST_TSO4) &&
			    lr_virtio_has(p->features,
					  LR_VIRTIO_NET_F_HOST_TSO6);
			q->hdr_len = LR_VIRTIO_NET_HDR_MRG_LEN;
			if (!p->packed && ev)
				lr_vring_event_behind(
				    lr_vring_used_event(q->vr.avail, q->vr.num),
				    q->vr.last_used, &q->vr.ev_mark);
		}
	}
}
