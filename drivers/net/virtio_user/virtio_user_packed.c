/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_virtio_user's datapath over packed virtqueues (virtio 1.1, 2.7),
 * packed_vq=1: one array of descriptors that the driver makes available
 * (AVAIL = its wrap counter, USED = the opposite) and the device marks
 * used in place (both equal to the device's wrap counter), slot after
 * slot; a buffer of n descriptors moves the used position by n. Buffers,
 * copies and checks as in virtio_user_rx_tx.c: descriptor ids are buffer
 * ids, each id read once and checked (below the ring size and, on tx,
 * heading a chain of ours), lengths within the buffer.
 *
 * Notifications: our driver event area says DISABLE (we poll, the backend
 * never calls us); a kick goes out when the device event area says ENABLE,
 * or DESC (EVENT_IDX) with the avail position passing its offset.
 *
 * In order (IN_ORDER): the backend may mark one used descriptor for a
 * batch, carrying the id of the batch's last buffer; our ids go out in
 * FIFO order, so every chain up to that one is done.
 *
 * Cost per burst: one seq_cst store (busy), per packet an acquire load of
 * a descriptor's flags, the copy, a release store of the flags of the
 * descriptor made available again (rx) or of the chain's head (tx).
 */
#include <stdatomic.h>
#include <unistd.h>

#include "virtio_user_private.h"

/* The AVAIL and USED bits of a descriptor made available at wrap w. */
static inline uint16_t
avail_bits(uint8_t w)
{
	return w ? LR_VRING_PACKED_DESC_F_AVAIL : LR_VRING_PACKED_DESC_F_USED;
}

/* Move slot *i (wrap counter *w) on by n of num slots. */
static inline void
slot_add(uint16_t *i, uint8_t *w, uint16_t n, uint16_t num)
{
	uint32_t s = (uint32_t)*i + n;

	if (s >= num) {
		s -= num;
		*w ^= 1;
	}
	*i = (uint16_t)s;
}

/* Whether the descriptor k slots past the used position is used; its
 * slot in *slot. */
static inline int
used_at(const struct vu_vring *vr, uint16_t k, uint16_t *slot)
{
	uint16_t i = vr->last_used;
	uint8_t w = vr->used_wrap;

	slot_add(&i, &w, k, vr->num);
	*slot = i;
	return lr_vring_packed_desc_used(vu_load_acq16(&vr->pdesc[i].flags), w);
}

/* Kick the backend if it wants to know that the avail position moved
 * from old (wrap counter old_w) to where it is. */
static inline void
kick_maybe(struct vu_queue *q, uint16_t old, uint8_t old_w)
{
	struct vu_vring *vr = &q->vr;
	uint16_t flags, off, ev;
	uint64_t one = 1;
	int kick;

	if (old == vr->avail_idx && old_w == vr->avail_wrap)
		return;
	atomic_thread_fence(memory_order_seq_cst);
	flags = __atomic_load_n(&vr->dev_event->flags, __ATOMIC_RELAXED);
	if (lr_likely(flags == LR_VRING_PACKED_EVENT_FLAG_DISABLE))
		return;
	if (flags == LR_VRING_PACKED_EVENT_FLAG_DESC && q->event_idx) {
		off =
		    __atomic_load_n(&vr->dev_event->off_wrap, __ATOMIC_RELAXED);
		ev = off & 0x7fff;
		if ((off >> LR_VRING_PACKED_EVENT_WRAP_SHIFT) != vr->avail_wrap)
			ev = (uint16_t)(ev - vr->num);
		kick = lr_vring_need_event(ev, vr->avail_idx, old);
	} else {
		kick = 1;
	}
	if (kick && write(vr->kick_fd, &one, sizeof(one)) == sizeof(one))
		lr_counter_add(&q->kicks, 1);
}

/* Offer rx buffer id again at the avail position. */
static inline void
rx_offer(struct vu_vring *vr, uint16_t id)
{
	struct lr_vring_packed_desc *d = &vr->pdesc[vr->avail_idx];

	d->addr = (uint64_t)(uintptr_t)(vr->bufs + (size_t)id * VU_BSIZE);
	d->len = VU_BSIZE;
	d->id = id;
	vu_store_rel16(&d->flags, LR_VRING_PACKED_DESC_F_WRITE |
				      avail_bits(vr->avail_wrap));
	slot_add(&vr->avail_idx, &vr->avail_wrap, 1, vr->num);
}

/* The checked used descriptor at slot into *id and *len; 0 or -1. */
static inline int
rx_entry(struct vu_queue *q, uint16_t slot, uint16_t *id, uint32_t *len,
	 uint32_t min)
{
	const struct lr_vring_packed_desc *d = &q->vr.pdesc[slot];
	uint16_t i = d->id;
	uint32_t l = d->len;

	if (lr_unlikely(i >= q->vr.num)) {
		lr_vu_ring_fault_(q, "used id", i);
		return -1;
	}
	if (lr_unlikely(l < min || l > VU_BSIZE)) {
		lr_vu_ring_fault_(q, "used length", l);
		return -1;
	}
	*id = i;
	*len = l;
	return 0;
}

/* Copy len bytes at b into *m (NULL: dropped); on failure *m is freed. */
static inline void
rx_copy(struct vu_queue *q, struct lr_mbuf **m, const uint8_t *b, uint32_t len)
{
	if (*m != NULL && lr_pktmbuf_append_copy(*m, q->mp, b, len) != 0) {
		lr_pktmbuf_free(*m);
		*m = NULL;
	}
}

/* Receive the packet at the used position into *out (NULL: no mbuf);
 * the slots it took (0: not all there yet), or -1 at a fault. */
static int
rx_one(struct vu_queue *q, struct lr_mbuf **out)
{
	struct vu_vring *vr = &q->vr;
	uint16_t id, slot, nb = 1;
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
		if (!used_at(vr, (uint16_t)(nb - 1), &slot))
			return 0;
	}
	m = lr_pktmbuf_alloc(q->mp);
	rx_copy(q, &m, (const uint8_t *)h + q->hdr_len, len - q->hdr_len);
	rx_offer(vr, id);
	for (uint16_t b = 1; b < nb; b++) {
		used_at(vr, b, &slot);
		if (rx_entry(q, slot, &id, &len, 0) != 0) {
			lr_pktmbuf_free(m);
			return -1;
		}
		rx_copy(q, &m, vr->bufs + (size_t)id * VU_BSIZE, len);
		rx_offer(vr, id);
	}
	if (m != NULL && (h->vh.flags != 0 || h->vh.gso_type != 0) &&
	    lr_net_vnet_rx(m, &h->vh, 0) != 0)
		lr_counter_add(&q->c.errors, 1);
	*out = m;
	return nb;
}

uint16_t
lr_vu_rx_burst_packed_(void *queue, struct lr_mbuf **pkts, uint16_t n)
{
	struct vu_queue *q = queue;
	struct vu_vring *vr = &q->vr;
	uint16_t got = 0, old, slot;
	uint8_t old_w;
	uint64_t bytes = 0;

	if (lr_unlikely(vu_q_enter(q) != 0))
		return 0;
	old = vr->avail_idx;
	old_w = vr->avail_wrap;
	while (got < n && used_at(vr, 0, &slot)) {
		struct lr_mbuf *m;
		int k = rx_one(q, &m);

		if (k <= 0)
			break;
		slot_add(&vr->last_used, &vr->used_wrap, (uint16_t)k, vr->num);
		if (lr_unlikely(m == NULL)) {
			lr_counter_add(&q->c.nombuf, 1);
			continue;
		}
		m->port = q->port_id;
		bytes += m->pkt_len;
		pkts[got++] = m;
	}
	kick_maybe(q, old, old_w);
	lr_counter_add(&q->c.packets, got);
	lr_counter_add(&q->c.bytes, bytes);
	vu_q_leave(q);
	return got;
}

/* Take back the tx chains the backend used (and the mbufs sent with no
 * copy, freed in bulk); 0 or -1 at a fault. */
static int
tx_reclaim(struct vu_queue *q)
{
	struct vu_vring *vr = &q->vr;
	struct vu_free_batch d;
	struct vu_give g;
	uint16_t slot;
	int rc = 0;

	d.n = 0;
	lr_vu_give_start_(vr, &g);
	while (rc == 0 && used_at(vr, 0, &slot)) {
		uint16_t last = vr->pdesc[slot].id, head;
		int n, total = 0;

		do { /* in order: every chain up to last's is done */
			head = q->in_order ? (uint16_t)(vr->done_id & vr->mask)
					   : last;
			n = lr_vu_tx_chain_free_(q, &g, head);
			if (n < 0)
				break;
			if (q->zc_n != 0)
				lr_vu_zc_take_(vr, head, &d);
			vr->done_id = (uint16_t)(vr->done_id + n);
			total += n;
		} while (head != last && total < vr->num);
		if (lr_unlikely(n < 0)) {
			rc = -1;
		} else if (lr_unlikely(head != last)) {
			lr_vu_ring_fault_(q, "used id", last);
			rc = -1;
		} else {
			slot_add(&vr->last_used, &vr->used_wrap,
				 (uint16_t)total, vr->num);
		}
	}
	lr_vu_give_end_(vr, &g);
	if (d.n != 0)
		lr_pktmbuf_free_bulk(d.m, d.n);
	return rc;
}

/* Put m on the ring as it is (zero copy, lr_vu_zc_ok_()): one descriptor
 * from the zero virtio-net header in its headroom; m is held until the
 * backend has used it. */
static void
tx_place_zc(struct vu_queue *q, struct lr_mbuf *m)
{
	struct vu_vring *vr = &q->vr;
	struct lr_vring_packed_desc *d = &vr->pdesc[vr->avail_idx];
	uint16_t id = vr->free_ids[vr->free_head & vr->mask];
	uint16_t fl = avail_bits(vr->avail_wrap);

	vr->free_head++;
	vr->nfree--;
	d->addr = (uint64_t)(uintptr_t)lr_vu_zc_header_(m, q->hdr_len);
	d->len = m->pkt_len + q->hdr_len;
	d->id = id;
	vr->chain_len[id] = 1;
	vr->tx_mbuf[id] = m;
	slot_add(&vr->avail_idx, &vr->avail_wrap, 1, vr->num);
	vu_store_rel16(&d->flags, fl);
}

/* Put m (len bytes after header h) in need descriptors at the avail
 * position, the head's flags stored last. */
static void
tx_place(struct vu_queue *q, const struct lr_mbuf *m,
	 const struct vu_net_hdr *h, uint32_t need)
{
	struct vu_vring *vr = &q->vr;
	struct lr_vring_packed_desc *hd = &vr->pdesc[vr->avail_idx];
	uint16_t head = vr->free_ids[vr->free_head & vr->mask], id = head;
	uint16_t hflags = 0, hl = q->hdr_len;
	uint32_t off = 0;

	for (uint32_t k = 0; k < need; k++) {
		struct lr_vring_packed_desc *d = &vr->pdesc[vr->avail_idx];
		uint8_t *b = vr->bufs + (size_t)id * VU_BSIZE;
		uint32_t n =
		    LR_MIN(VU_BSIZE - (k == 0 ? hl : 0u), m->pkt_len - off);
		uint16_t fl = avail_bits(vr->avail_wrap);
		const void *src;

		vr->free_head++;
		vr->nfree--;
		if (k == 0) {
			memcpy(b, h, hl);
			b += hl;
		}
		src = lr_pktmbuf_read(m, off, n, b);
		if (src != b)
			memcpy(b, src, n);
		off += n;
		d->addr =
		    (uint64_t)(uintptr_t)(vr->bufs + (size_t)id * VU_BSIZE);
		d->len = n + (k == 0 ? hl : 0u);
		d->id = head;
		if (k + 1 < need) {
			uint16_t nx = vr->free_ids[vr->free_head & vr->mask];

			fl |= LR_VRING_PACKED_DESC_F_NEXT;
			vr->chain_next[id] = nx;
			id = nx;
		}
		if (k == 0)
			hflags = fl;
		else
			vu_store_rel16(&d->flags, fl);
		slot_add(&vr->avail_idx, &vr->avail_wrap, 1, vr->num);
	}
	vr->chain_len[head] = (uint16_t)need;
	vu_store_rel16(&hd->flags, hflags);
}

static uint16_t
tx_packed(void *queue, struct lr_mbuf **pkts, uint16_t n)
{
	struct vu_queue *q = queue;
	struct vu_vring *vr = &q->vr;
	uint16_t i, old;
	uint8_t old_w;
	uint64_t bytes = 0, sent = 0, zc = 0;

	if (lr_unlikely(vu_q_enter(q) != 0))
		return lr_vu_tx_drop_all_(q, pkts, n);
	old = vr->avail_idx;
	old_w = vr->avail_wrap;
	if (lr_unlikely(tx_reclaim(q) != 0)) {
		vu_q_leave(q);
		return lr_vu_tx_drop_all_(q, pkts, n);
	}
	for (i = 0; i < n; i++) {
		struct lr_mbuf *m = pkts[i];
		uint32_t need =
		    (m->pkt_len + q->hdr_len + VU_BSIZE - 1) / VU_BSIZE;
		struct vu_net_hdr h;

		if (lr_unlikely(need > vr->nfree)) {
			if (need <= vr->num) {
				lr_counter_add(&q->ring_full, 1);
				break;
			}
			lr_vu_tx_bad_(q, m, 1);
			continue;
		}
		if (q->zc_n != 0 && lr_vu_zc_ok_(q, m)) {
			bytes += m->pkt_len;
			sent++;
			zc++;
			tx_place_zc(q, m); /* m held until used */
			continue;
		}
		if (lr_unlikely(vu_tx_hdr(q, m, &h) != 0)) {
			lr_vu_tx_bad_(q, m, 0);
			continue;
		}
		tx_place(q, m, &h, need);
		bytes += m->pkt_len;
		sent++;
		lr_pktmbuf_free(m);
	}
	kick_maybe(q, old, old_w);
	lr_counter_add(&q->c.packets, sent);
	lr_counter_add(&q->c.bytes, bytes);
	if (zc != 0)
		lr_counter_add(&q->zero_copy, zc);
	vu_q_leave(q);
	return i;
}

uint16_t
lr_vu_tx_burst_packed_(void *queue, struct lr_mbuf **pkts, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++)
		if (lr_unlikely(pkts[i]->ol_flags & LR_MBUF_F_OFFLOAD_MASK))
			return lr_vu_tx_soft_(queue, pkts, n, tx_packed);
	return tx_packed(queue, pkts, n);
}

void
lr_vu_packed_reset_(struct vu_vring *vr, uint8_t *base, int rx)
{
	LR_ASSERT(vr->num != 0 && (vr->num & vr->mask) == 0);
	vr->desc = NULL;
	vr->pdesc = (struct lr_vring_packed_desc *)(base + vr->desc_off);
	vr->drv_event = (struct lr_vring_packed_event *)(base + vr->avail_off);
	vr->dev_event = (struct lr_vring_packed_event *)(base + vr->used_off);
	vr->bufs = base + vr->bufs_off;
	memset(vr->pdesc, 0, vr->bufs_off - vr->desc_off);
	vr->drv_event->flags = LR_VRING_PACKED_EVENT_FLAG_DISABLE;
	vr->avail_idx = 0;
	vr->avail_wrap = 1;
	vr->last_used = 0;
	vr->used_wrap = 1;
	vr->free_head = 0;
	vr->done_id = 0;
	vr->nfree = rx ? 0 : vr->num;
	for (uint16_t i = 0; i < vr->num; i++) {
		if (rx) {
			rx_offer(vr, i);
		} else {
			vr->free_ids[i] = i;
			vr->chain_len[i] = 0;
		}
	}
}
