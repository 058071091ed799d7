/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_vhost's datapath over split virtqueues (virtio 1.1, 2.6) and packed
 * ones (2.7: the same chains, read and used in place in one descriptor
 * ring with wrap counters). The burst functions branch once per burst on
 * the ring's layout: each layout has its own copy of the burst (rx_ring(),
 * tx_ring(), inline with the layout a constant), so the per-frame code
 * tests no layout; what differs is said once, in cur_first(), ring_more(),
 * burst_leave() and tx_chain_next(). rx_burst
 * reads the guest's transmit ring (odd virtqueue): each available chain
 * is a virtio-net header and a frame, copied into mbufs, and returned to
 * the used ring with length 0. tx_burst writes the guest's receive ring
 * (even virtqueue): a header and the frame into one chain, or with
 * MRG_RXBUF into as many chains as it takes (num_buffers in the header).
 * Chains are used in the order they were made available, so IN_ORDER
 * holds as it is.
 *
 * Nothing the guest wrote is trusted: a head or next index outside the
 * ring, a chain longer than the ring (a loop), an indirect descriptor
 * (not offered), a descriptor of the wrong direction, or an address and
 * length not inside one region of the memory table refuse the ring: it
 * goes down, the descriptor is counted (bad_desc), and the control thread
 * ends the connection with a log line (ring_bad()). Every field of a
 * descriptor is read once into a local.
 *
 * Notifications: while the ring is up we set VRING_USED_F_NO_NOTIFY (or,
 * with EVENT_IDX, keep avail_event just behind the entries we took,
 * moving it every LR_VRING_EVENT_STEP entries, where the guest's index
 * cannot reach it), so a polling guest does not kick us; after a burst that
 * moved frames we write the call eventfd only when the guest asks:
 * used_event passed (EVENT_IDX), else no VRING_AVAIL_F_NO_INTERRUPT.
 *
 * Giving lines back (flush=): the guest rewrites the buffers we copied
 * frames out of, and each line we read is still in our CPU's cache: its
 * next write to it must first take that copy away, a round trip to our
 * CPU. When our CPUs are far apart (this host's vCPUs, placed on other
 * dies, pay about 4x a near round trip) that costs the guest more than
 * fetching the line from memory, so rx then writes the line that holds
 * each frame's first bytes (its headers, which every sender rewrites)
 * back to memory (lr_cache_line_flush()) once copied: a guest sending
 * 64-byte frames from testpmd went 35% faster far, and 9% slower near.
 * flush=auto (the default) measures: a read of avail->idx just after the
 * guest moved it fetches a line from the guest's CPU; every 16th poll is
 * timed (struct vh_far), and every 50 ms the ring gives lines back while
 * most such reads took 100 ns or more (here near ones take about 60 ns,
 * far ones 150-170), and then only in bursts that took every chain the
 * guest had made available: while more wait, we are the bound, and a
 * flush is more work on our side for nothing (lr-pktgen's 1518-byte
 * frames far: 13% slower flushing in every burst, 2-5% faster this way).
 * Split rings only: a packed ring has no index to time, and gives lines
 * back only with flush=1 (which gives them back in every burst). Only
 * the first line: a sender that rewrites only its headers (a generator)
 * would fetch the rest from memory for nothing, and the write-backs of
 * whole large frames cost more than they save (1518-byte frames: half
 * the rate with every line given back, 6-10% more with the first one).
 *
 * Cost per burst: one seq_cst store (ring_enter()), one acquire load of
 * avail->idx, one release store of used->idx and a fence before reading
 * the guest's notification wish; per frame one copy, a translation per
 * descriptor (a compare per region), one used entry. rx on a split ring
 * first asks for every chain's descriptor and first bytes of the burst
 * (rx_prefetch()), so that the lines a guest rewrote per burst come from
 * its CPU in parallel.
 */
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lr_cycles.h"
#include "lr_ethdev_driver.h"
#include "lr_log.h"
#include "lr_mbuf.h"
#include "lr_net.h"
#include "vhost_private.h"

/* Enter a burst on r: 1 if its memory may be used until ring_leave().
 * The seq_cst pair with lr_vhost_ring_quiesce_() makes "up seen" and
 * "busy seen" exclusive. */
static inline int
ring_enter(struct vh_ring *r)
{
	atomic_store_explicit(&r->busy, 1, memory_order_seq_cst);
	if (lr_likely(atomic_load_explicit(&r->up, memory_order_seq_cst)))
		return 1;
	atomic_store_explicit(&r->busy, 0, memory_order_release);
	return 0;
}

static inline void
ring_leave(struct vh_ring *r)
{
	atomic_store_explicit(&r->busy, 0, memory_order_release);
}

void
lr_vhost_ring_quiesce_(struct vh_ring *r)
{
	atomic_store_explicit(&r->up, 0, memory_order_seq_cst);
	while (atomic_load_explicit(&r->busy, memory_order_seq_cst))
		sched_yield();
}

/* The guest broke the ring protocol: r goes down, the control thread
 * ends the connection with the reason. */
static __lr_cold __attribute__((format(printf, 2, 3))) void
ring_bad(struct vh_ring *r, const char *fmt, ...)
{
	struct vh_port *p = r->p;
	int zero = 0;

	atomic_store_explicit(&r->up, 0, memory_order_relaxed);
	lr_counter_add(&r->bad_desc, 1);
	if (atomic_compare_exchange_strong(&p->bad, &zero, 1)) {
		va_list ap;
		int n = snprintf(p->bad_why, sizeof(p->bad_why),
				 "ring %u: ", (unsigned)(r - p->ring));

		va_start(ap, fmt);
		vsnprintf(p->bad_why + n, sizeof(p->bad_why) - (size_t)n, fmt,
			  ap);
		va_end(ap);
		atomic_store_explicit(&p->bad, 2, memory_order_release);
		lr_vhost_ctl_wake_(p);
	}
}

/* Tell the guest that used->idx moved from old to r->last_used, if it
 * asks to be told. */
static inline void
ring_publish(struct vh_ring *r, uint16_t old)
{
	uint64_t one = 1;
	int need;

	if (r->event_idx)
		lr_vring_event_follow(lr_vring_avail_event(r->used, r->size),
				      r->last_avail, &r->ev_mark);
	__atomic_store_n(&r->used->idx, r->last_used, __ATOMIC_RELEASE);
	atomic_thread_fence(memory_order_seq_cst);
	if (r->event_idx)
		need = lr_vring_need_event(
		    __atomic_load_n(lr_vring_used_event(r->avail, r->size),
				    __ATOMIC_RELAXED),
		    r->last_used, old);
	else
		need = !(__atomic_load_n(&r->avail->flags, __ATOMIC_RELAXED) &
			 LR_VRING_AVAIL_F_NO_INTERRUPT);
	if (need && r->call_fd >= 0) {
		if (write(r->call_fd, &one, sizeof(one)) == sizeof(one))
			lr_counter_add(&r->calls, 1);
	}
}

/* Where a chain is being read or written. */
struct cur {
	uint8_t *p;	/* the next byte */
	uint32_t room;	/* bytes left in this descriptor */
	uint16_t flags; /* of this descriptor */
	uint16_t next;	/* its next */
	uint16_t head;	/* of the chain */
	uint32_t hops;	/* descriptors of the chain so far */
	uint32_t done;	/* bytes written into the chain */
	uint16_t id;	/* packed: buffer id of this descriptor */
};

/* Copy what of len bytes from src fits the cursor's descriptor; the
 * bytes copied. */
static inline uint32_t
cur_put(struct cur *c, const uint8_t *src, uint32_t len)
{
	uint32_t k = LR_MIN(len, c->room);

	memcpy(c->p, src, k);
	c->p += k;
	c->room -= k;
	c->done += k;
	return k;
}

/* Load descriptor idx of the chain into c (a split ring's table index, or
 * a packed ring's position, whose chain goes on at the next position): in
 * the ring, not past the ring's size in hops, direct, of direction want
 * (WRITE or 0), inside one region. 0, or -1 with the ring refused. */
static inline int
cur_load(struct vh_ring *r, struct cur *c, uint16_t idx, uint16_t want)
{
	const struct lr_vring_desc *d;
	uint64_t addr;
	uint32_t len;
	uint16_t flags;

	if (lr_unlikely(idx >= r->size || ++c->hops > r->size)) {
		ring_bad(r, "descriptor %u: %s", idx,
			 idx >= r->size
			     ? "outside the ring"
			     : "chain longer than the ring (a loop)");
		return -1;
	}
	if (r->packed) {
		const struct lr_vring_packed_desc *pd = &r->pdesc[idx];

		addr = pd->addr;
		len = pd->len;
		flags = pd->flags;
		c->id = pd->id;
		c->next = (uint16_t)(idx + 1 == r->size ? 0 : idx + 1);
	} else {
		d = &r->desc[idx];
		addr = d->addr;
		len = d->len;
		flags = d->flags;
		c->next = d->next;
	}
	if (lr_unlikely((flags & (LR_VRING_DESC_F_INDIRECT |
				  LR_VRING_DESC_F_WRITE)) != want)) {
		ring_bad(r, "descriptor %u: flags 0x%x (%s)", idx, flags,
			 flags & LR_VRING_DESC_F_INDIRECT
			     ? "indirect, not negotiated"
			     : "wrong direction");
		return -1;
	}
	c->p = lr_vhost_mem_gpa(r->mem, addr, len);
	if (lr_unlikely(c->p == NULL)) {
		ring_bad(r,
			 "descriptor %u: 0x%llx + %u is not inside one "
			 "region",
			 idx, (unsigned long long)addr, len);
		return -1;
	}
	c->room = len;
	c->flags = flags;
	return 0;
}

/* Start chain number pos of the available ring into c. */
static inline int
cur_chain(struct vh_ring *r, struct cur *c, uint16_t pos, uint16_t want)
{
	c->head =
	    __atomic_load_n(&r->avail->ring[pos & r->mask], __ATOMIC_RELAXED);
	c->hops = 0;
	c->done = 0;
	return cur_load(r, c, c->head, want);
}

/* Start the chain at r->last_avail into c: a split ring's available
 * chain of that number, or the packed ring's chain at that position (its
 * head: the position). */
static __lr_always_inline int
cur_first(struct vh_ring *r, struct cur *c, uint16_t want, const int packed)
{
	if (!packed)
		return cur_chain(r, c, r->last_avail, want);
	*c = (struct cur){.head = r->last_avail};
	return cur_load(r, c, r->last_avail, want);
}

/* The descriptor after c's, skipping empty ones: 1 moved, 0 the chain
 * ended, -1 refused. */
static inline int
cur_next(struct vh_ring *r, struct cur *c, uint16_t want)
{
	do {
		if (!(c->flags & LR_VRING_DESC_F_NEXT))
			return 0;
		if (cur_load(r, c, c->next, want) < 0)
			return -1;
	} while (c->room == 0);
	return 1;
}

/* Put a used entry for chain head with len bytes (not yet published). */
static inline void
used_put(struct vh_ring *r, uint16_t head, uint32_t len)
{
	struct lr_vring_used_elem *e = &r->used->ring[r->last_used & r->mask];

	e->id = head;
	e->len = len;
	r->last_used++;
}

/* ---- packed rings (2.7): positions, used descriptors, notification -- */

/* Move packed position *pos (and its wrap counter) on by k. */
static inline void
pk_advance(const struct vh_ring *r, uint16_t *pos, uint8_t *wrap, uint32_t k)
{
	uint32_t p = *pos + k;

	if (p >= r->size) {
		p -= r->size;
		*wrap ^= 1;
	}
	*pos = (uint16_t)p;
}

/* The descriptor at r->last_avail is available to us. */
static inline int
pk_avail(const struct vh_ring *r)
{
	uint16_t f =
	    __atomic_load_n(&r->pdesc[r->last_avail].flags, __ATOMIC_ACQUIRE);

	return lr_vring_packed_desc_avail(f, r->avail_wrap);
}

/* Write a used descriptor for buffer id (len bytes written, ndesc
 * descriptors) at r->last_used; its flags last, with release. */
static inline void
pk_used(struct vh_ring *r, uint16_t id, uint32_t len, uint32_t ndesc)
{
	struct lr_vring_packed_desc *d = &r->pdesc[r->last_used];
	uint16_t f =
	    r->used_wrap
		? (LR_VRING_PACKED_DESC_F_AVAIL | LR_VRING_PACKED_DESC_F_USED)
		: 0;

	d->id = id;
	d->len = len;
	if (len > 0)
		f |= LR_VRING_PACKED_DESC_F_WRITE;
	__atomic_store_n(&d->flags, f, __ATOMIC_RELEASE);
	pk_advance(r, &r->last_used, &r->used_wrap, ndesc);
}

/* Tell the guest that used descriptors from old on are there, if its
 * event suppression area asks for it. */
static inline void
pk_publish(struct vh_ring *r, uint16_t old)
{
	uint16_t flags, off_wrap, off, nw = r->last_used;
	uint64_t one = 1;
	int need;

	atomic_thread_fence(memory_order_seq_cst);
	flags = __atomic_load_n(&r->drv_ev->flags, __ATOMIC_RELAXED);
	if (flags == LR_VRING_PACKED_EVENT_FLAG_DISABLE)
		return;
	need = 1;
	if (flags == LR_VRING_PACKED_EVENT_FLAG_DESC && r->event_idx) {
		off_wrap =
		    __atomic_load_n(&r->drv_ev->off_wrap, __ATOMIC_RELAXED);
		off = off_wrap & 0x7fff;
		if (nw <= old)
			old = (uint16_t)(old - r->size);
		if ((off_wrap >> LR_VRING_PACKED_EVENT_WRAP_SHIFT) !=
		    r->used_wrap)
			off = (uint16_t)(off - r->size);
		need = lr_vring_need_event(off, nw, old);
	}
	if (need && r->call_fd >= 0 &&
	    write(r->call_fd, &one, sizeof(one)) == sizeof(one))
		lr_counter_add(&r->calls, 1);
}

/* ---- giving lines back (flush=) ------------------------------------- */

void
lr_vhost_flush_reset_(struct vh_ring *r)
{
	r->flush_mode = (uint8_t)r->p->flush;
	r->flush = r->flush_mode == VH_FLUSH_ON;
	memset(&r->far, 0, sizeof(r->far));
	r->far.bound = LR_MAX(lr_get_tsc_hz() * VH_FAR_NS / 1000000000, 1);
}

/* rx, split, flush=auto: read avail->idx timed (every VH_FAR_EVERY
 * polls); a read that found it moved counts far or near; every
 * VH_FAR_PERIOD_MS the majority decides r->flush. */
static __attribute__((noinline)) uint16_t
far_sample(struct vh_ring *r)
{
	uint64_t t0, t1;
	uint16_t v;

	r->far.polls = 0;
	t0 = lr_get_tsc_cycles_fenced();
	v = __atomic_load_n(&r->avail->idx, __ATOMIC_ACQUIRE);
	t1 = lr_get_tsc_cycles_fenced();
	if (v != r->far.seen) {
		if (t1 - t0 >= r->far.bound)
			r->far.far++;
		else
			r->far.near++;
	}
	if (t1 >= r->far.decide_at) {
		if (r->far.far + r->far.near >= VH_FAR_MIN) {
			r->flush = r->far.far > r->far.near;
			r->far.far = r->far.near = 0;
		}
		r->far.decide_at =
		    t1 + lr_get_tsc_hz() / (1000 / VH_FAR_PERIOD_MS);
	}
	return v;
}

/* rx: the line holding a frame's first byte, copied out, back to memory
 * (when r gives lines back in this burst). */
static inline void
give_back(const struct vh_ring *r, const uint8_t *frame)
{
	if (r->give)
		lr_cache_line_flush(frame);
}

/* ---- what both layouts' bursts ask of the ring ---------------------- */

/* The split ring's available chains end at *avail: 0, or -1 with the ring
 * refused (an index too far ahead) and left. */
static __lr_always_inline int
split_avail(struct vh_ring *r, uint16_t *avail, const int tx)
{
	if (!tx && r->flush_mode == VH_FLUSH_AUTO) {
		if (lr_unlikely(++r->far.polls == VH_FAR_EVERY))
			*avail = far_sample(r);
		else
			*avail =
			    __atomic_load_n(&r->avail->idx, __ATOMIC_ACQUIRE);
		r->far.seen = *avail;
	} else {
		*avail = __atomic_load_n(&r->avail->idx, __ATOMIC_ACQUIRE);
	}
	if (lr_likely((uint16_t)(*avail - r->last_avail) <= r->size))
		return 0;
	ring_bad(r, "avail idx %u is more than %u ahead of %u", *avail, r->size,
		 r->last_avail);
	ring_leave(r);
	return -1;
}

/* A chain is available at r->last_avail (split: end not reached). */
static __lr_always_inline int
ring_more(const struct vh_ring *r, uint16_t end, const int packed)
{
	return packed ? pk_avail(r) : r->last_avail != end;
}

/* End a burst on r: what it used from old on told to the guest as its
 * layout asks (not when the ring was refused: bad), r left, the packets
 * and bytes it moved counted. */
static __lr_always_inline void
burst_leave(struct vh_ring *r, uint16_t old, int bad, uint16_t packets,
	    uint64_t bytes, const int packed)
{
	if (r->last_used != old && !bad) {
		if (packed)
			pk_publish(r, old);
		else
			ring_publish(r, old);
	}
	ring_leave(r);
	lr_counter_add(&r->c.packets, packets);
	lr_counter_add(&r->c.bytes, bytes);
}

/* ---- rx: the guest's transmit ring ---------------------------------- */

/* Append len bytes at src to packet m (segments from mp); 0 or -1 (the
 * pool ran dry). */
static inline int
pkt_append(struct lr_mbuf *m, struct lr_mempool *mp, const uint8_t *src,
	   uint32_t len)
{
	struct lr_mbuf *last = lr_pktmbuf_lastseg(m), *s;
	uint32_t n;

	while (len > 0) {
		if (lr_pktmbuf_tailroom(last) == 0) {
			s = lr_pktmbuf_alloc(mp);
			if (lr_unlikely(s == NULL))
				return -1;
			last->next = s;
			last = s;
			m->nb_segs++;
		}
		n = LR_MIN(len, (uint32_t)lr_pktmbuf_tailroom(last));
		memcpy(lr_pktmbuf_mtod(last, uint8_t *) + last->data_len, src,
		       n);
		last->data_len = (uint16_t)(last->data_len + n);
		m->pkt_len += n;
		src += n;
		len -= n;
	}
	return 0;
}

/* Why rx_chain() gave no packet. */
enum { RX_OK, RX_NOMBUF, RX_BAD, RX_DROP };

/* Copy the chain of c (loaded) into m: the header into vh, the frame
 * after it. RX_OK, RX_NOMBUF, RX_BAD (the ring refused). */
static int
rx_copy(struct vh_ring *r, struct cur *c, struct lr_mbuf *m, uint8_t *vh)
{
	uint32_t hdr = 0, total = 0, n;
	int rc;

	do {
		total += c->room;
		if (lr_unlikely(total > VH_FRAME_MAX)) {
			ring_bad(r, "chain %u: over %u bytes", c->head,
				 VH_FRAME_MAX);
			return RX_BAD;
		}
		if (hdr < r->hdr_len) {
			n = LR_MIN(c->room, (uint32_t)r->hdr_len - hdr);
			memcpy(vh + hdr, c->p, n);
			hdr += n;
			c->p += n;
			c->room -= n;
		}
		if (c->room > 0) {
			int first = m->pkt_len == 0;

			if (pkt_append(m, r->mp, c->p, c->room) < 0)
				return RX_NOMBUF;
			if (first)
				give_back(r, c->p);
		}
		rc = cur_next(r, c, 0);
	} while (rc > 0);
	if (rc < 0)
		return RX_BAD;
	if (lr_unlikely(hdr < r->hdr_len)) {
		ring_bad(r,
			 "chain %u: %u bytes, shorter than the %u-byte "
			 "header",
			 c->head, hdr, r->hdr_len);
		return RX_BAD;
	}
	return RX_OK;
}

/* The chain at r->last_avail into a new packet in *out, m (NULL: one
 * taken here; consumed either way); the chain used and the position
 * moved on unless RX_NOMBUF or RX_BAD. Inline in rx_ring(): one copy per
 * layout, no call per frame. */
static __lr_always_inline int
rx_chain(struct vh_ring *r, struct lr_mbuf **out, struct lr_mbuf *m,
	 const int packed)
{
	uint8_t vh[LR_VIRTIO_NET_HDR_MRG_LEN];
	struct lr_net_vnet_hdr h;
	struct cur c;
	int rc;

	if (cur_first(r, &c, 0, packed) < 0) {
		lr_pktmbuf_free(m);
		return RX_BAD;
	}
	if (m == NULL)
		m = lr_pktmbuf_alloc(r->mp);
	if (lr_unlikely(m == NULL))
		return RX_NOMBUF;
	m->port = r->port_id;
	/* A frame in one descriptor that fits one mbuf (what senders that
	 * put the header in the frame's headroom give): header and bytes
	 * copied here; anything else through rx_copy(). */
	if (lr_likely(!(c.flags & LR_VRING_DESC_F_NEXT) &&
		      c.room >= LR_VIRTIO_NET_HDR_MRG_LEN + 16 &&
		      c.room - r->hdr_len <= lr_pktmbuf_tailroom(m))) {
		uint32_t len = c.room - r->hdr_len;

		memcpy(vh, c.p, LR_VIRTIO_NET_HDR_MRG_LEN);
		lr_copy_16(lr_pktmbuf_mtod(m, uint8_t *), c.p + r->hdr_len,
			   len);
		m->data_len = (uint16_t)len;
		m->pkt_len = len;
		give_back(r, c.p + r->hdr_len);
		rc = RX_OK;
	} else {
		rc = rx_copy(r, &c, m, vh);
	}
	if (lr_unlikely(rc != RX_OK)) {
		lr_pktmbuf_free(m);
		return rc;
	}
	if (packed) { /* used with nothing written; the position past it */
		pk_used(r, c.id, 0, c.hops);
		pk_advance(r, &r->last_avail, &r->avail_wrap, c.hops);
	} else {
		used_put(r, c.head, 0);
		r->last_avail++;
	}
	memcpy(&h, vh, sizeof(h));
	if (lr_unlikely(m->pkt_len == 0 || ((h.flags | h.gso_type) != 0 &&
					    lr_net_vnet_rx(m, &h, 0) != 0))) {
		lr_pktmbuf_free(m);
		return RX_DROP;
	}
	*out = m;
	return RX_OK;
}

/* What rx_prefetch() found of a chain's first descriptor: its buffer
 * (NULL: not inside a region) and length, at most VH_RX_PF_MAX. */
struct vh_pf {
	const uint8_t *b;
	uint32_t len;
};
#define VH_RX_PF_MAX 2048u

/* rx, split: ask at once for what chains [last_avail, last_avail + k)
 * will read first, their descriptors (heads from the available ring)
 * and then each first descriptor's header and first frame bytes. A
 * guest that rewrites descriptors and frames for every burst has them
 * in its CPU's cache: asked for together, those lines come in parallel
 * rather than two after one another per chain. Hints only: heads are
 * masked and addresses translated here, everything is read and checked
 * again by cur_load(). */
static inline void
rx_prefetch(const struct vh_ring *r, uint16_t k, struct vh_pf *pf)
{
	const struct lr_vring_desc *d[VH_RX_BULK];
	uint16_t i;

	for (i = 0; i < k; i++) {
		uint16_t h = __atomic_load_n(
		    &r->avail->ring[(uint16_t)(r->last_avail + i) & r->mask],
		    __ATOMIC_RELAXED);

		d[i] = &r->desc[h & r->mask];
		__builtin_prefetch(d[i]);
	}
	for (i = 0; i < k; i++) {
		uint32_t len = __atomic_load_n(&d[i]->len, __ATOMIC_RELAXED);
		const uint8_t *b;

		len = LR_MIN(len, (uint32_t)VH_RX_PF_MAX);
		b = lr_vhost_mem_gpa(
		    r->mem, __atomic_load_n(&d[i]->addr, __ATOMIC_RELAXED),
		    LR_MAX(len, (uint32_t)r->hdr_len + 1));
		pf[i].b = b;
		pf[i].len = b != NULL ? len : 0;
		if (b != NULL) {
			__builtin_prefetch(b);
			__builtin_prefetch(b + r->hdr_len);
		}
	}
}

/* rx, split: the rest of chain k's first descriptor (after the two lines
 * rx_prefetch() asked for), asked for while the chain before it is
 * copied. */
static inline void
rx_prefetch_rest(const struct vh_pf *pf)
{
	for (uint32_t off = 128; off < pf->len; off += 64)
		__builtin_prefetch(pf->b + off);
}

/* rx_burst over r (entered; split: its chains end at end); r left. */
static __lr_always_inline uint16_t
rx_ring(struct vh_ring *r, struct lr_mbuf **pkts, uint16_t n, uint16_t end,
	const int packed)
{
	uint16_t old = r->last_used, got = 0, k = 0, nb = 0;
	struct lr_mbuf *pre[VH_RX_BULK];
	struct vh_pf pf[VH_RX_BULK];
	uint64_t bytes = 0;
	int rc = RX_OK;

	/* lines given back in this burst: always with flush=1 (the only way
	 * a packed ring has r->flush); with auto, not while chains wait
	 * beyond it (we are the bound then, and a flush is our work for
	 * nothing) */
	r->give = r->flush && (r->flush_mode == VH_FLUSH_ON ||
			       (uint16_t)(end - r->last_avail) <= n);
	/* split: the mbufs of the chains there, in one get from the pool
	 * (a chain has one at least); when it has too few, one at a time */
	if (!packed) {
		nb = LR_MIN(LR_MIN(n, (uint16_t)(end - r->last_avail)),
			    (uint16_t)VH_RX_BULK);
		if (nb != 0 && lr_pktmbuf_alloc_bulk(r->mp, pre, nb) != 0)
			nb = 0;
		rx_prefetch(r, nb, pf);
		if (nb != 0)
			rx_prefetch_rest(&pf[0]);
	}
	while (got < n && ring_more(r, end, packed)) {
		if (k + 1 < nb)
			rx_prefetch_rest(&pf[k + 1]);
		rc = rx_chain(r, &pkts[got], k < nb ? pre[k] : NULL, packed);
		k++;
		if (rc == RX_NOMBUF || rc == RX_BAD)
			break;
		if (rc == RX_DROP) {
			lr_counter_add(&r->c.errors, 1);
			continue;
		}
		bytes += pkts[got]->pkt_len;
		got++;
	}
	if (k < nb)
		lr_pktmbuf_free_bulk(pre + k, nb - k);
	if (rc == RX_NOMBUF)
		lr_counter_add(&r->c.nombuf, 1);
	if (r->give)
		lr_counter_add(&r->flushed, got);
	burst_leave(r, old, rc == RX_BAD, got, bytes, packed);
	return got;
}

/* ---- tx: the guest's receive ring ----------------------------------- */

/* The offloads m asks for, as the guest negotiated them, into h: without
 * GUEST_CSUM the checksums are done here (the header asks for nothing);
 * a super-frame reaches here only with GUEST_TSO4/6 (else tx_soft() cut
 * it first). 0, or -1 (drop m, counted). */
static __lr_cold int
tx_offloads(struct vh_ring *r, struct lr_mbuf *m, struct lr_net_vnet_hdr *h)
{
	int seg = (m->ol_flags & LR_MBUF_F_TCP_SEG_MASK) != 0;

	memset(h, 0, sizeof(*h));
	if (!r->guest_csum && !seg) {
		if (lr_net_cksum_offload(m) == 0)
			return 0;
	} else if (lr_net_vnet_tx(m, h) == 0 &&
		   (!(h->flags & LR_NET_VNET_F_NEEDS_CSUM) || r->guest_csum) &&
		   (h->gso_type == LR_NET_VNET_GSO_NONE || r->guest_tso)) {
		return 0;
	}
	lr_counter_add(&r->offload_errors, 1);
	return -1;
}

/* The header for m into hdr (hdr_len bytes, num_buffers 1): offloads
 * asked by m as the guest negotiated them. 0, or -1 (drop m). */
static inline int
tx_header(struct vh_ring *r, struct lr_mbuf *m, uint8_t *hdr)
{
	struct lr_net_vnet_hdr h;
	uint16_t one = 1;

	memset(hdr, 0, LR_VIRTIO_NET_HDR_MRG_LEN);
	if (r->hdr_len == LR_VIRTIO_NET_HDR_MRG_LEN)
		memcpy(hdr + LR_VIRTIO_NET_HDR_LEN, &one, sizeof(one));
	if (lr_likely(!(m->ol_flags & LR_MBUF_F_OFFLOAD_MASK)))
		return 0;
	if (tx_offloads(r, m, &h) < 0)
		return -1;
	memcpy(hdr, &h, sizeof(h));
	return 0;
}

/* What tx_copy() and tx_frame() say. */
enum { TX_OK = 0, TX_FULL = 1, TX_SMALL = 2, TX_BAD = -1 };

/* The chains one frame takes in a packed receive ring (MRG_RXBUF: up to
 * PK_CHAINS), used only when the whole frame is written. */
#define PK_CHAINS 64
struct pk_frame {
	uint16_t id[PK_CHAINS];
	uint16_t ndesc[PK_CHAINS];
	uint32_t len[PK_CHAINS];
	unsigned n;
};

/* Keep the chain of c (written) in f, to be used with the frame's other
 * chains; the position moved past it. */
static inline void
pk_keep(struct vh_ring *r, struct pk_frame *f, const struct cur *c)
{
	f->id[f->n] = c->id;
	f->ndesc[f->n] = (uint16_t)c->hops;
	f->len[f->n++] = c->done;
	pk_advance(r, &r->last_avail, &r->avail_wrap, c->hops);
}

/* The chain of c is full and so is its last descriptor: take the next
 * available chain (MRG_RXBUF) into c, the full one put used (split) or
 * kept in f (packed: used once the whole frame is written). TX_OK;
 * TX_FULL (the ring has no more chains: split, at end); TX_SMALL (no
 * MRG_RXBUF, or the frame over PK_CHAINS chains); TX_BAD (refused). */
static __lr_always_inline int
tx_chain_next(struct vh_ring *r, struct cur *c, uint16_t end, uint16_t *nbuf,
	      struct pk_frame *f, const int packed)
{
	if (!r->mrg || (packed && f->n + 1 >= PK_CHAINS))
		return TX_SMALL;
	if (packed) {
		pk_keep(r, f, c);
		if (!pk_avail(r))
			return TX_FULL;
	} else {
		if (r->last_avail == end)
			return TX_FULL;
		used_put(r, c->head, c->done);
	}
	if (cur_first(r, c, LR_VRING_DESC_F_WRITE, packed) < 0)
		return TX_BAD;
	if (!packed) {
		r->last_avail++;
		(*nbuf)++;
	}
	return TX_OK;
}

/* Copy len bytes at src into the chains from c on, taking the next
 * available chain (MRG_RXBUF) when one is full: TX_OK, or as
 * tx_chain_next() says. */
static __lr_always_inline int
tx_copy_in(struct vh_ring *r, struct cur *c, const uint8_t *src, uint32_t len,
	   uint16_t end, uint16_t *nbuf, struct pk_frame *f, const int packed)
{
	uint32_t k;
	int rc;

	while (len > 0) {
		if (c->room == 0) {
			rc = cur_next(r, c, LR_VRING_DESC_F_WRITE);
			if (rc < 0)
				return TX_BAD;
			if (rc == 0) {
				rc = tx_chain_next(r, c, end, nbuf, f, packed);
				if (rc != TX_OK)
					return rc;
				continue;
			}
		}
		k = cur_put(c, src, len);
		src += k;
		len -= k;
	}
	return TX_OK;
}

/* tx_copy_in() for a split ring (out of line: per segment). */
static int
tx_copy(struct vh_ring *r, struct cur *c, const uint8_t *src, uint32_t len,
	uint16_t end, uint16_t *nbuf)
{
	return tx_copy_in(r, c, src, len, end, nbuf, NULL, 0);
}

/* tx_copy_in() for a packed ring (out of line: per segment). */
static int
pk_copy(struct vh_ring *r, struct cur *c, const uint8_t *src, uint32_t len,
	struct pk_frame *f)
{
	return tx_copy_in(r, c, src, len, 0, NULL, f, 1);
}

/* Write m into the ring at r->last_avail (available; split: before end):
 * TX_OK, or as tx_copy_in() says with nothing published and the
 * positions as they were. */
static __lr_always_inline int
tx_frame(struct vh_ring *r, struct lr_mbuf *m, uint16_t end, const uint8_t *hdr,
	 const int packed)
{
	uint16_t avail0 = r->last_avail, used0 = r->last_used, nbuf = 1;
	uint8_t wrap0 = packed ? r->avail_wrap : 0, *hp;
	struct pk_frame f;
	struct cur c;
	int rc;

	f.n = 0;
	if (cur_first(r, &c, LR_VRING_DESC_F_WRITE, packed) < 0)
		return TX_BAD;
	if (!packed)
		r->last_avail++;
	/* the header in the first descriptor (every driver gives room) */
	if (lr_unlikely(c.room < r->hdr_len)) {
		ring_bad(r,
			 "chain %u: first descriptor of %u bytes, under the "
			 "%u-byte header",
			 c.head, c.room, r->hdr_len);
		return TX_BAD;
	}
	hp = c.p;
	rc = packed ? pk_copy(r, &c, hdr, r->hdr_len, &f)
		    : tx_copy(r, &c, hdr, r->hdr_len, end, &nbuf);
	for (const struct lr_mbuf *s = m; rc == TX_OK && s != NULL; s = s->next)
		rc = packed
			 ? pk_copy(r, &c, lr_pktmbuf_mtod(s, const uint8_t *),
				   s->data_len, &f)
			 : tx_copy(r, &c, lr_pktmbuf_mtod(s, const uint8_t *),
				   s->data_len, end, &nbuf);
	if (rc != TX_OK) {
		r->last_avail = avail0;
		if (packed) /* used only once the frame is written */
			r->avail_wrap = wrap0;
		else
			r->last_used = used0;
		return rc;
	}
	if (packed) {
		pk_keep(r, &f, &c);
		nbuf = (uint16_t)f.n;
	} else {
		used_put(r, c.head, c.done);
	}
	if (r->mrg)
		memcpy(hp + LR_VIRTIO_NET_HDR_LEN, &nbuf, sizeof(nbuf));
	for (unsigned i = 0; packed && i < f.n; i++)
		pk_used(r, f.id[i], f.len[i], f.ndesc[i]);
	return TX_OK;
}

/* A frame not sent: dropped and counted (the caller gave it to us). */
static __lr_cold void
tx_drop(struct vh_ring *r, struct lr_mbuf *m)
{
	lr_counter_add(&r->c.errors, 1);
	lr_pktmbuf_free(m);
}

/* tx_burst over r (entered; split: its chains end at end); r left. */
static __lr_always_inline uint16_t
tx_ring(struct vh_ring *r, struct lr_mbuf **pkts, uint16_t n, uint16_t end,
	const int packed)
{
	uint8_t hdr[LR_VIRTIO_NET_HDR_MRG_LEN];
	uint16_t old = r->last_used, sent = 0, ok = 0;
	uint64_t bytes = 0;
	int rc = TX_OK;

	for (; sent < n; sent++) {
		struct lr_mbuf *m = pkts[sent];

		if (!ring_more(r, end, packed)) {
			rc = TX_FULL;
			break;
		}
		if (lr_unlikely(tx_header(r, m, hdr) < 0)) {
			tx_drop(r, m);
			continue;
		}
		rc = tx_frame(r, m, end, hdr, packed);
		if (lr_unlikely(rc == TX_SMALL)) {
			tx_drop(r, m);
			continue;
		}
		if (rc != TX_OK)
			break;
		bytes += m->pkt_len;
		ok++;
		lr_pktmbuf_free(m);
	}
	if (rc == TX_FULL)
		lr_counter_add(&r->ring_full, 1);
	burst_leave(r, old, rc == TX_BAD, ok, bytes, packed);
	return sent;
}

/* ---- the bursts ----------------------------------------------------- */

/* rx_burst (tx 0) or tx_burst (tx 1) on queue: its ring entered, and
 * gone through as its layout says. Inline in each: the direction and
 * the layout constants, tested once a burst. */
static __lr_always_inline uint16_t
burst(void *queue, struct lr_mbuf **pkts, uint16_t n, const int tx)
{
	struct vh_ring *r = queue;
	uint16_t end;

	if (lr_unlikely(!ring_enter(r)))
		return 0;
	if (r->packed)
		return tx ? tx_ring(r, pkts, n, 0, 1)
			  : rx_ring(r, pkts, n, 0, 1);
	if (split_avail(r, &end, tx) < 0)
		return 0;
	return tx ? tx_ring(r, pkts, n, end, 0) : rx_ring(r, pkts, n, end, 0);
}

uint16_t
lr_vhost_rx_burst_(void *queue, struct lr_mbuf **pkts, uint16_t n)
{
	return burst(queue, pkts, n, 0);
}

static uint16_t
tx_burst(void *queue, struct lr_mbuf **pkts, uint16_t n)
{
	return burst(queue, pkts, n, 1);
}

/* Super-frame m cut here into frames of tso_segsz payload (the guest
 * did not negotiate GUEST_TSO4/6), sent in order; m is consumed. The
 * frames the ring has no room for are dropped and counted: what was sent
 * of the super-frame cannot be taken back. */
static __attribute__((noinline, cold)) void
tx_tso_soft(struct vh_ring *r, struct lr_mbuf *m)
{
	struct lr_mbuf *segs[VH_TSO_SEGS_MAX];
	int k = lr_net_tso_segment(m, m->pool, segs, VH_TSO_SEGS_MAX);
	uint16_t sent;

	if (k < 0) {
		lr_counter_add(&r->offload_errors, 1);
		lr_counter_add(&r->c.errors, 1);
		lr_pktmbuf_free(m);
		return;
	}
	lr_counter_add(&r->tso_sw, 1);
	sent = tx_burst(r, segs, (uint16_t)k);
	if (sent < k) {
		lr_pktmbuf_free_bulk(segs + sent, (unsigned)k - sent);
		lr_counter_add(&r->c.errors, (uint64_t)k - sent);
	}
	lr_pktmbuf_free(m);
}

/* A burst with a super-frame for a guest without GUEST_TSO4/6: runs of
 * other frames as they are, each super-frame cut here; the frames
 * consumed (cold). */
static __attribute__((noinline, cold)) uint16_t
tx_soft(struct vh_ring *r, struct lr_mbuf **pkts, uint16_t n)
{
	uint16_t done = 0;

	while (done < n) {
		uint16_t run = 0, sent;

		while (done + run < n && !(pkts[done + run]->ol_flags &
					   LR_MBUF_F_TCP_SEG_MASK))
			run++;
		if (run != 0) {
			sent = tx_burst(r, pkts + done, run);
			done += sent;
			if (sent < run)
				return done;
			continue;
		}
		tx_tso_soft(r, pkts[done++]);
	}
	return done;
}

uint16_t
lr_vhost_tx_burst_(void *queue, struct lr_mbuf **pkts, uint16_t n)
{
	struct vh_ring *r = queue;

	if (!r->guest_tso)
		for (uint16_t i = 0; i < n; i++)
			if (lr_unlikely(pkts[i]->ol_flags &
					LR_MBUF_F_TCP_SEG_MASK))
				return tx_soft(r, pkts, n);
	return tx_burst(queue, pkts, n);
}
