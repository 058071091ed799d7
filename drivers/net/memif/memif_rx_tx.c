/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_memif's datapath: the rx and tx burst functions of each role and
 * mode (server, client, client zero-copy, server zero-copy receive) and
 * the software offloads on transmit (memif_private.h has the ring roles
 * and the locking; lr_eth_memif.h the design). It never touches the
 * control socket: a queue is used between q_enter() and q_leave() while
 * the control thread keeps it `up`; a peer at fault (an index or a
 * descriptor out of range) takes the queue down and hands the reason to
 * the control thread (q_bad()); a kick is one eventfd write when the peer
 * asks for interrupts.
 *
 * Cost per burst: one seq_cst store (q_enter()), one acquire load of the
 * peer's index, the descriptors' lines prefetched at once, one release
 * store of ours; per packet a copy (or, zero-copy, none) and a descriptor
 * read or written once. No lock, no allocation beyond the mbufs'.
 */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lr_ethdev_driver.h"
#include "lr_mbuf.h"
#include "lr_net.h"
#include "memif_private.h"

/* Enter a burst on q: 1 if its ring may be used until q_leave(). The
 * seq_cst store/load pair with lr_memif_queue_quiesce_()'s makes "up seen" and
 * "busy seen" exclusive (one locked instruction per burst on x86). */
static inline int
q_enter(struct mif_queue *q)
{
	atomic_store_explicit(&q->busy, 1, memory_order_seq_cst);
	if (lr_likely(atomic_load_explicit(&q->up, memory_order_seq_cst)))
		return 1;
	atomic_store_explicit(&q->busy, 0, memory_order_release);
	return 0;
}

static inline void
q_leave(struct mif_queue *q)
{
	atomic_store_explicit(&q->busy, 0, memory_order_release);
}

/* The end of every burst: leave the queue, count what moved; returns n. */
static __lr_always_inline uint16_t
burst_done(struct mif_queue *q, uint16_t n, uint64_t bytes)
{
	q_leave(q);
	lr_counter_add(&q->c.packets, n);
	lr_counter_add(&q->c.bytes, bytes);
	lr_counter_add(&q->bursts, 1);
	return n;
}

/* The peer broke the ring protocol: stop using q and have the control
 * thread disconnect with the reason. */
static __lr_cold void
q_bad(struct mif_queue *q, const char *fmt, ...)
{
	struct mif_port *p = q->p;
	int zero = 0;

	atomic_store_explicit(&q->up, 0, memory_order_relaxed);
	if (atomic_compare_exchange_strong(&p->bad, &zero, 1)) {
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(p->bad_why, sizeof(p->bad_why), fmt, ap);
		va_end(ap);
		/* 1: claimed, being written; 2: the reason is readable */
		atomic_store_explicit(&p->bad, 2, memory_order_release);
		lr_memif_ctl_wake_();
	}
}

static __lr_cold uint16_t
tx_link_down(struct mif_queue *q, struct lr_mbuf **pkts, uint16_t n)
{
	lr_pktmbuf_free_bulk(pkts, n);
	lr_counter_add(&q->c.errors, n);
	lr_counter_add(&q->link_down, n);
	return n;
}

static inline void
kick(struct mif_queue *q)
{
	uint64_t one = 1;

	if (!(q->ring->flags & MIF_RING_FLAG_MASK_INT) && q->kick_fd >= 0) {
		if (write(q->kick_fd, &one, sizeof(one)) < 0) {
			/* the peer polls: nothing lost */
		}
	}
}

/* Copy len bytes from src to dst, a frame of 32 to 64 bytes as two
 * 32-byte moves that overlap (no call, not a byte outside either frame
 * read or written: the peer's buffer holds nothing of ours past it). */
static __lr_always_inline void
copy_frame(uint8_t *dst, const uint8_t *src, uint32_t len)
{
	if (len >= 32 && len <= 64) {
		memcpy(dst, src, 32);
		memcpy(dst + len - 32, src + len - 32, 32);
	} else {
		memcpy(dst, src, len);
	}
}

/* Copy up to len bytes of the segments from *seg at *soff to dst, moving
 * *seg and *soff past them; the bytes copied. */
static __lr_always_inline uint32_t
tx_copy_segs(uint8_t *dst, uint32_t len, struct lr_mbuf **seg, uint32_t *soff)
{
	uint32_t dlen = 0;

	while (*seg != NULL && dlen < len) {
		uint32_t c = LR_MIN((*seg)->data_len - *soff, len - dlen);

		memcpy(dst + dlen, lr_pktmbuf_mtod(*seg, uint8_t *) + *soff, c);
		dlen += c;
		*soff += c;
		if (*soff == (*seg)->data_len) {
			*seg = (*seg)->next;
			*soff = 0;
		}
	}
	return dlen;
}

/* Copy one descriptor's data of len bytes at src to the end of packet m
 * (the first into m itself, more chained from the pool). 0 or -1. */
static inline int
rx_append(struct lr_mbuf *m, struct lr_mempool *mp, const uint8_t *src,
	  uint32_t len)
{
	if (lr_likely(m->pkt_len == 0 && len <= lr_pktmbuf_tailroom(m))) {
		copy_frame(lr_pktmbuf_mtod(m, uint8_t *), src, len);
		m->data_len = (uint16_t)len;
		m->pkt_len = len;
		return 0;
	}
	return lr_pktmbuf_append_copy(m, mp, src, len);
}

/* Where the data of descriptor d (number cur, len bytes) is: checked
 * against the peer's regions (server) or our buffer size (client); NULL
 * after reporting a bad descriptor. */
static __lr_always_inline const uint8_t *
rx_desc_src(struct mif_queue *q, const volatile struct mif_desc *d,
	    uint16_t cur, uint32_t len, int server)
{
	if (server) {
		uint16_t region = d->region;
		uint32_t off = d->offset;

		if (lr_unlikely(mif_desc_in_bounds(q->reg, q->nreg, region, off,
						   len) != 0)) {
			q_bad(q,
			      "rx queue %u: descriptor %u: region %u offset %u "
			      "length %u outside the regions",
			      q->qid, cur & q->mask, region, off, len);
			return NULL;
		}
		return q->reg[region].addr + off;
	}
	if (lr_unlikely(len > q->bsize)) {
		q_bad(q,
		      "rx queue %u: descriptor %u: length %u > buffer size %u",
		      q->qid, cur & q->mask, len, q->bsize);
		return NULL;
	}
	return q->buf_base + (size_t)(cur & q->mask) * q->bsize;
}

/* Read packets from descriptors [q->last, end) into pkts. server: the
 * descriptors name their buffers (checked against the peer's regions);
 * client: slot s is always our own buffer s. Returns the count; *cur is
 * where reading stopped (at a packet boundary). */
static inline uint16_t
rx_copy(struct mif_queue *q, struct lr_mbuf **pkts, uint16_t n, uint16_t end,
	int server, uint16_t *cur_out, uint64_t *bytes_out)
{
	struct mif_ring *r = q->ring;
	uint16_t cur = q->last, avail = (uint16_t)(end - cur), got = 0;
	uint16_t want = LR_MIN(n, avail);
	uint64_t bytes = 0;

	if (want == 0) {
		*cur_out = cur;
		*bytes_out = 0;
		return 0;
	}
	if (lr_unlikely(lr_pktmbuf_alloc_bulk(q->mp, pkts, want) != 0)) {
		lr_counter_add(&q->c.nombuf, want);
		*cur_out = cur;
		*bytes_out = 0;
		return 0;
	}
	while (got < want && cur != end) {
		struct lr_mbuf *m = pkts[got];
		uint16_t start = cur;

		for (;;) {
			const volatile struct mif_desc *d =
			    &r->desc[cur & q->mask];
			uint16_t flags = d->flags;
			uint32_t len = d->length;
			const uint8_t *src;

			src = rx_desc_src(q, d, cur, len, server);
			if (lr_unlikely(src == NULL)) {
				cur = start; /* stop at a packet boundary */
				goto stop;
			}
			if (lr_unlikely(rx_append(m, q->mp, src, len) != 0)) {
				/* no mbuf for a chained segment: leave the
				 * packet in the ring for the next burst */
				lr_counter_add(&q->c.nombuf, 1);
				cur = start;
				goto stop;
			}
			cur++;
			if (!(flags & MIF_DESC_FLAG_NEXT))
				break;
			if (lr_unlikely(cur == end)) {
				q_bad(q,
				      "rx queue %u: descriptor %u: chain "
				      "runs past the published index",
				      q->qid, (uint16_t)(cur - 1) & q->mask);
				cur = start;
				goto stop;
			}
		}
		m->port = q->port_id;
		bytes += m->pkt_len;
		got++;
	}
stop:
	if (got < want)
		lr_pktmbuf_free_bulk(pkts + got, want - got);
	*cur_out = cur;
	*bytes_out = bytes;
	return got;
}

/* Descriptors per cache line. */
#define MIF_DESC_PER_LINE (LR_CACHE_LINE_SIZE / sizeof(struct mif_desc))

/* Prefetch the descriptor lines of slots [from, from + k), k <= the ring's
 * size, for reading (desc_prefetch) or for writing (desc_prefetchw: the
 * burst writes them): the peer wrote them last, and fetched together at
 * the start of a burst they cross between the CPUs at once instead of one
 * after another as the loop reaches each. */
#define MIF_DESC_PREFETCH(name, rw)                                            \
	static __lr_always_inline void name(const struct mif_queue *q,         \
					    uint16_t from, unsigned k)         \
	{                                                                      \
		for (unsigned i = 0; i < k; i += MIF_DESC_PER_LINE)            \
			__builtin_prefetch(                                    \
			    (const void *)&q->ring                             \
				->desc[(uint16_t)(from + i) & q->mask],        \
			    rw);                                               \
		if (k != 0)                                                    \
			__builtin_prefetch(                                    \
			    (const void *)&q->ring                             \
				->desc[(uint16_t)(from + k - 1) & q->mask],    \
			    rw);                                               \
	}
MIF_DESC_PREFETCH(desc_prefetch, 0)
MIF_DESC_PREFETCH(desc_prefetchw, 1)

static __lr_always_inline struct lr_mbuf *
zc_rx_seg(struct mif_queue *q, uint16_t cur, uint32_t len, uint64_t w);

/* Server zero-copy rx: the header of slot cur made a segment of len bytes
 * over the peer's buffer the descriptor names (checked against its
 * regions); NULL after reporting a bad descriptor. */
static __lr_always_inline struct lr_mbuf *
zrx_seg(struct mif_queue *q, uint16_t cur, uint32_t len, uint64_t w)
{
	const volatile struct mif_desc *d = &q->ring->desc[cur & q->mask];
	struct lr_mbuf *m;
	const uint8_t *src;

	if (lr_unlikely(len > UINT16_MAX)) {
		q_bad(q, "rx queue %u: descriptor %u: length %u > 65535",
		      q->qid, cur & q->mask, len);
		return NULL;
	}
	src = rx_desc_src(q, d, cur, len, 1);
	if (lr_unlikely(src == NULL))
		return NULL;
	m = q->zrx->hdr[cur & q->mask];
#if LR_MEMPOOL_DEBUG
	/* handed out: what lr_mempool_get() would mark */
	((struct lr_mempool_objhdr *)m - 1)->cookie = LR_MEMPOOL_COOKIE_INUSE;
#endif
	m->buf_addr = (void *)(uintptr_t)src;
	m->buf_iova = (uint64_t)(uintptr_t)src;
	m->buf_len = (uint16_t)len;
	lr_pktmbuf_rearm(m, w, len);
	return m;
}

/* Zero-copy rx, client (zrx 0: the pool mbuf each slot holds) or server
 * (zrx 1: the header bound to each slot): hand the mbufs of slots
 * [q->last, end) up as packets, a descriptor chain as an mbuf chain, at
 * most n; moves q->last. slots[]: each slot's mbuf; w: the rearm word;
 * the server's headers handed up are counted out. */
static __lr_always_inline uint16_t
zc_take(struct mif_queue *q, struct lr_mbuf **slots, struct lr_mbuf **pkts,
	uint16_t n, uint16_t end, uint64_t w, int zrx, uint64_t *bytes_out)
{
	uint16_t cur = q->last, got = 0;
	uint32_t segs = 0;
	uint64_t bytes = 0;

	while (got < n && cur != end) {
		const volatile struct mif_desc *d0 =
		    &q->ring->desc[cur & q->mask];
		struct lr_mbuf *first = NULL, *prev = NULL, *m;
		uint16_t start = cur, nseg = 0, flags = d0->flags;
		uint32_t plen = 0;

		/* One descriptor, one packet: the segment is a whole packet
		 * already (nb_segs 1, pkt_len set by the rearm). */
		if (lr_likely(!(flags & MIF_DESC_FLAG_NEXT))) {
			uint32_t len = d0->length;

			m = zrx ? zrx_seg(q, cur, len, w)
				: zc_rx_seg(q, cur, len, w);
			if (lr_unlikely(m == NULL))
				break;
			pkts[got++] = m;
			bytes += len;
			segs++;
			cur++;
			continue;
		}
		do {
			const volatile struct mif_desc *d =
			    &q->ring->desc[cur & q->mask];

			if (lr_unlikely(cur == end)) {
				q_bad(q,
				      "rx queue %u: descriptor %u: chain "
				      "runs past the published index",
				      q->qid, (uint16_t)(cur - 1) & q->mask);
				goto bad;
			}
			flags = d->flags;
			m = zrx ? zrx_seg(q, cur, d->length, w)
				: zc_rx_seg(q, cur, d->length, w);
			if (lr_unlikely(m == NULL))
				goto bad;
			if (prev != NULL)
				prev->next = m;
			else
				first = m;
			prev = m;
			nseg++;
			plen += m->data_len;
			cur++;
		} while (flags & MIF_DESC_FLAG_NEXT);
		first->nb_segs = nseg;
		first->pkt_len = plen;
		pkts[got++] = first;
		bytes += plen;
		segs += nseg;
		continue;
	bad:
		/* the slots keep their mbufs, unlinked; the queue is down */
		for (uint16_t s = start; s != cur; s++)
			slots[s & q->mask]->next = NULL;
		cur = start;
		break;
	}
	if (zrx && segs != 0)
		atomic_fetch_add_explicit(&q->zrx->out, segs,
					  memory_order_relaxed);
	q->last = cur;
	*bytes_out = bytes;
	return got;
}

/* Server rx, zero-copy (q entered): give back the slots whose headers
 * came back, in ring order up to the first still held, then hand up what
 * the client published. */
static __lr_always_inline uint16_t
rx_server_zc(struct mif_queue *q, struct lr_mbuf **pkts, uint16_t n)
{
	struct mif_zrx *z = q->zrx;
	uint16_t rel = q->rel, head, got;
	uint64_t bytes;

	/* ours: given back (rel) <= handed up (last), at most a ring apart */
	LR_ASSERT((uint16_t)(q->last - rel) <= q->size);
	while (rel != q->last && atomic_load_explicit(&z->freed[rel & q->mask],
						      memory_order_acquire)) {
		atomic_store_explicit(&z->freed[rel & q->mask], 0,
				      memory_order_relaxed);
		rel++;
	}
	if (rel != q->rel) {
		atomic_store_explicit(&q->ring->tail, rel,
				      memory_order_release);
		q->rel = rel;
	}
	head = atomic_load_explicit(&q->ring->head, memory_order_acquire);
	if (lr_unlikely((uint16_t)(head - rel) > q->size ||
			(uint16_t)(head - q->last) > q->size)) {
		q_bad(q, "rx queue %u: head %u more than %u slots past tail %u",
		      q->qid, head, q->size, rel);
		q_leave(q);
		return 0;
	}
	desc_prefetch(q, q->last, LR_MIN((uint16_t)(head - q->last), n));
	got = zc_take(q, z->hdr, pkts, n, head,
		      lr_mbuf_rearm_word(0, q->port_id), 1, &bytes);
	LR_ASSERT(got <= n && (uint16_t)(q->last - q->rel) <= q->size);
	return burst_done(q, got, bytes);
}

/* Server rx: a C2S ring; read up to head, give back by moving tail
 * (copying), or hand the buffers up (zero-copy, rx_server_zc). */
static uint16_t
memif_rx_server(void *rxq, struct lr_mbuf **pkts, uint16_t n)
{
	struct mif_queue *q = rxq;
	uint16_t head, cur, got;
	uint64_t bytes;

	if (lr_unlikely(!q_enter(q)))
		return 0;
	if (q->zr_on)
		return rx_server_zc(q, pkts, n);
	head = atomic_load_explicit(&q->ring->head, memory_order_acquire);
	if (lr_unlikely((uint16_t)(head - q->last) > q->size)) {
		q_bad(q, "rx queue %u: head %u more than %u slots past tail %u",
		      q->qid, head, q->size, q->last);
		q_leave(q);
		return 0;
	}
	desc_prefetch(q, q->last, LR_MIN((uint16_t)(head - q->last), n));
	got = rx_copy(q, pkts, n, head, 1, &cur, &bytes);
	if (cur != q->last) {
		atomic_store_explicit(&q->ring->tail, cur,
				      memory_order_release);
		q->last = cur;
	}
	return burst_done(q, got, bytes);
}

/* Client rx: an S2C ring; read up to tail, offer the slots again. */
static uint16_t
memif_rx_client(void *rxq, struct lr_mbuf **pkts, uint16_t n)
{
	struct mif_queue *q = rxq;
	struct mif_ring *r;
	uint16_t tail, cur, got, head;
	uint64_t bytes;

	if (lr_unlikely(!q_enter(q)))
		return 0;
	r = q->ring;
	tail = atomic_load_explicit(&r->tail, memory_order_acquire);
	if (lr_unlikely((uint16_t)(tail - q->last) >
			(uint16_t)(q->head - q->last))) {
		q_bad(q, "rx queue %u: tail %u beyond the head %u offered",
		      q->qid, tail, q->head);
		q_leave(q);
		return 0;
	}
	desc_prefetchw(q, q->last, LR_MIN((uint16_t)(tail - q->last), n));
	got = rx_copy(q, pkts, n, tail, 0, &cur, &bytes);
	q->last = cur;
	/* Offer every slot read back, with its own buffer. */
	head = q->head;
	if (head != (uint16_t)(cur + q->size)) {
		for (; head != (uint16_t)(cur + q->size); head++) {
			struct mif_desc *d = &r->desc[head & q->mask];

			d->flags = 0;
			d->region = 0;
			d->length = q->bsize;
			d->offset = q->buf_off + (head & q->mask) * q->bsize;
		}
		atomic_store_explicit(&r->head, head, memory_order_release);
		q->head = head;
	}
	return burst_done(q, got, bytes);
}

/* Client tx: describe our slot's buffer (at bytes into the buffers),
 * holding len bytes. */
static __lr_always_inline void
tx_client_desc(struct mif_queue *q, uint16_t slot, uint32_t at, uint32_t len,
	       uint16_t flags)
{
	struct mif_desc *d = &q->ring->desc[slot & q->mask];

	d->region = 0;
	d->offset = q->buf_off + at;
	d->length = len;
	d->flags = flags;
}

/* Client tx of one-segment packet m that fits a buffer into our slot:
 * one copy (copy_frame), one descriptor. */
static __lr_always_inline void
tx_client_one(struct mif_queue *q, uint16_t slot, struct lr_mbuf *m)
{
	uint32_t at = (uint32_t)(slot & q->mask) * q->bsize;

	copy_frame(q->buf_base + at, lr_pktmbuf_mtod(m, const uint8_t *),
		   m->data_len);
	tx_client_desc(q, slot, at, m->data_len, 0);
}

/* Client tx: a C2S ring; fill our buffers from head, publish head. */
static uint16_t
memif_tx_client(void *txq, struct lr_mbuf **pkts, uint16_t n)
{
	struct mif_queue *q = txq;
	struct mif_ring *r;
	uint16_t tail, slot, nfree, i;
	uint64_t bytes = 0;

	if (lr_unlikely(!q_enter(q)))
		return tx_link_down(q, pkts, n);
	r = q->ring;
	tail = atomic_load_explicit(&r->tail, memory_order_acquire);
	if (lr_unlikely((uint16_t)(q->last - tail) > q->size)) {
		q_bad(q, "tx queue %u: tail %u more than %u slots behind %u",
		      q->qid, tail, q->size, q->last);
		q_leave(q);
		return tx_link_down(q, pkts, n);
	}
	nfree = q->size - (uint16_t)(q->last - tail);
	slot = q->last;
	desc_prefetchw(q, slot, LR_MIN(nfree, n));
	for (i = 0; i < n; i++) {
		struct lr_mbuf *m = pkts[i], *seg = m;
		uint32_t soff = 0, done = 0;
		unsigned need = 1;

		if (lr_likely(m->nb_segs == 1 && m->data_len <= q->bsize)) {
			if (nfree == 0)
				break;
			tx_client_one(q, slot++, m);
			nfree--;
			bytes += m->data_len;
			continue;
		}
		if (lr_unlikely(m->pkt_len > q->bsize))
			need = (m->pkt_len + q->bsize - 1) / q->bsize;
		if (need > nfree)
			break;
		nfree -= need;
		do {
			uint32_t at = (uint32_t)(slot & q->mask) * q->bsize;
			uint32_t dlen = tx_copy_segs(q->buf_base + at, q->bsize,
						     &seg, &soff);

			/* the bytes left say whether more follow: a chain
			 * may end in empty segments */
			done += dlen;
			tx_client_desc(q, slot, at, dlen,
				       done < m->pkt_len ? MIF_DESC_FLAG_NEXT
							 : 0);
			slot++;
		} while (done < m->pkt_len && seg != NULL);
		bytes += m->pkt_len;
	}
	if (i > 0) {
		atomic_store_explicit(&r->head, slot, memory_order_release);
		q->last = slot;
		kick(q);
	}
	lr_pktmbuf_free_bulk(pkts, i);
	if (i < n)
		lr_counter_add(&q->ring_full, 1);
	return burst_done(q, i, bytes);
}

/* Where tx descriptor number slot (region, off, len) points: checked
 * against the peer's regions; NULL after reporting a bad descriptor. */
static __lr_always_inline uint8_t *
tx_desc_dst(struct mif_queue *q, uint16_t slot, uint16_t region, uint32_t off,
	    uint32_t len)
{
	if (lr_unlikely(mif_desc_in_bounds(q->reg, q->nreg, region, off, len) !=
			0)) {
		q_bad(q,
		      "tx queue %u: descriptor %u: region %u offset %u length "
		      "%u outside the regions",
		      q->qid, slot & q->mask, region, off, len);
		return NULL;
	}
	return q->reg[region].addr + off;
}

/* ------------------------------------------------------------------ */
/* Client zero-copy datapath: every buffer of region 1 is the buffer of
 * one mbuf of the port's pool (zc_mp); slot_mb[] says which mbuf each
 * slot holds. The peer sees only the buffers, never the mbufs. */

/* Offset in region 1 of the data of an mbuf whose data starts at data. */
static __lr_always_inline uint32_t
zc_off(const struct mif_queue *q, const void *data)
{
	return (uint32_t)((const uint8_t *)data - q->zc_base);
}

/* Client zc rx: give slots [q->head, upto) fresh mbufs of the pool and
 * offer their buffers (bsize bytes after the headroom). The new head:
 * short of upto when the pool ran dry (counted as rx_nombuf). */
static inline uint16_t
zc_rx_fill(struct mif_queue *q, uint16_t upto)
{
	struct lr_mbuf *mb[ZC_FILL];
	const struct mif_desc t = {.region = ZC_REGION, .length = q->bsize};
	uint16_t head = q->head;

	while (head != upto) {
		unsigned k = LR_MIN((unsigned)(uint16_t)(upto - head), ZC_FILL);

		if (lr_unlikely(lr_mempool_get_bulk(q->zc_mp, (void **)mb, k) !=
				0)) {
			lr_counter_add(&q->c.nombuf, k);
			break;
		}
		for (unsigned j = 0; j < k; j++, head++) {
			struct mif_desc *d = &q->ring->desc[head & q->mask];

			q->slot_mb[head & q->mask] = mb[j];
			/* flags, region and length as one 8-byte store */
			memcpy(d, &t, 8);
			d->offset = zc_off(q, (uint8_t *)mb[j]->buf_addr +
						  LR_PKTMBUF_HEADROOM);
		}
	}
	return head;
}

/* The mbuf of rx slot cur, made a segment of len bytes, after checking
 * the descriptor the peer wrote: length within our buffer, region and
 * offset those we offered (the buffer is taken from our own slot, never
 * from the descriptor). NULL after reporting a bad descriptor. */
static __lr_always_inline struct lr_mbuf *
zc_rx_seg(struct mif_queue *q, uint16_t cur, uint32_t len, uint64_t w)
{
	const volatile struct mif_desc *d = &q->ring->desc[cur & q->mask];
	struct lr_mbuf *m = q->slot_mb[cur & q->mask];
	uint16_t region = d->region;
	uint32_t off = d->offset;
	uint32_t want = zc_off(q, (uint8_t *)m->buf_addr + LR_PKTMBUF_HEADROOM);

	if (lr_unlikely(len > q->bsize)) {
		q_bad(q,
		      "rx queue %u: descriptor %u: length %u > buffer size %u",
		      q->qid, cur & q->mask, len, q->bsize);
		return NULL;
	}
	if (lr_unlikely(region != ZC_REGION || off != want)) {
		q_bad(q,
		      "rx queue %u: descriptor %u: region %u offset %u, not "
		      "the buffer offered (region %u offset %u)",
		      q->qid, cur & q->mask, region, off, ZC_REGION, want);
		return NULL;
	}
	lr_pktmbuf_rearm(m, w, len);
	return m;
}

/* Client rx, zero-copy: an S2C ring; the mbufs of the slots the server
 * filled go up as they are, fresh ones take their slots. */
static uint16_t
memif_rx_client_zc(void *rxq, struct lr_mbuf **pkts, uint16_t n)
{
	struct mif_queue *q = rxq;
	uint16_t tail, got, head;
	uint64_t bytes;

	if (lr_unlikely(!q_enter(q)))
		return 0;
	tail = atomic_load_explicit(&q->ring->tail, memory_order_acquire);
	if (lr_unlikely((uint16_t)(tail - q->last) >
			(uint16_t)(q->head - q->last))) {
		q_bad(q, "rx queue %u: tail %u beyond the head %u offered",
		      q->qid, tail, q->head);
		q_leave(q);
		return 0;
	}
	desc_prefetchw(q, q->last, LR_MIN((uint16_t)(tail - q->last), n));
	got = zc_take(q, q->slot_mb, pkts, n, tail,
		      lr_mbuf_rearm_word(LR_PKTMBUF_HEADROOM, q->port_id), 0,
		      &bytes);
	head = zc_rx_fill(q, (uint16_t)(q->last + q->size));
	if (head != q->head) {
		atomic_store_explicit(&q->ring->head, head,
				      memory_order_release);
		q->head = head;
	}
	return burst_done(q, got, bytes);
}

/* Client zc tx: free the mbufs of slots [q->done, upto), which the peer
 * has consumed (or, at disconnect, never will). */
static inline void
zc_tx_reclaim(struct mif_queue *q, uint16_t upto)
{
	while (q->done != upto) {
		unsigned s = q->done & q->mask;
		unsigned k = LR_MIN((unsigned)(uint16_t)(upto - q->done),
				    (unsigned)q->size - s);

		lr_pktmbuf_free_bulk(&q->slot_mb[s], k);
		q->done = (uint16_t)(q->done + k);
	}
}

/* Client zc tx: describe in slot the len bytes at offset off of region
 * (the buffer of mbuf m, held until the peer has read it). */
static __lr_always_inline void
zc_tx_desc(struct mif_queue *q, uint16_t slot, struct lr_mbuf *m,
	   uint16_t region, uint32_t off, uint32_t len, uint16_t flags)
{
	struct mif_desc *d = &q->ring->desc[slot & q->mask];

	q->slot_mb[slot & q->mask] = m;
	d->region = region;
	d->offset = off;
	d->length = len;
	d->flags = flags;
}

/* The region our peer maps m's pool as (ZC_REGION: ours; 2..: another
 * zero-copy port's, announced at connect), its start in *base; 0 when
 * the peer does not map it (m is copied). One compare for our own pool,
 * a scan of the few others for the rest. */
static __lr_always_inline uint16_t
zc_region_of(const struct mif_queue *q, const struct lr_mbuf *m,
	     const uint8_t **base)
{
	if (lr_likely(m->pool == q->zc_mp)) {
		*base = q->zc_base;
		return ZC_REGION;
	}
	for (unsigned i = 0; i < q->nxzc; i++) {
		if (m->pool == q->xzc[i].mp) {
			*base = q->xzc[i].base;
			return q->xzc[i].region;
		}
	}
	return 0;
}

/* The last pool zc_region_of() found, for a burst (a forwarder's burst
 * is all another port's mbufs: one compare per packet instead of the
 * scan). */
struct zc_hit {
	const struct lr_mempool *mp;
	const uint8_t *base;
	uint16_t region;
};

/* zc_region_of() through the burst's entry c; the base in c->base. */
static __lr_always_inline uint16_t
zc_region_hit(const struct mif_queue *q, const struct lr_mbuf *m,
	      struct zc_hit *c)
{
	const uint8_t *base;
	uint16_t r;

	if (lr_likely(m->pool == c->mp))
		return c->region;
	r = zc_region_of(q, m, &base);
	if (r != 0)
		*c = (struct zc_hit){m->pool, base, r};
	return r;
}

/* Client zc tx of a packet m that is not one segment of our pool: copy
 * it into pool mbufs (bsize bytes each) from slot on, at most nfree
 * slots. The slots used, 0 when they or the pool's mbufs are lacking. */
static __lr_cold uint16_t
zc_tx_copy(struct mif_queue *q, struct lr_mbuf *m, uint16_t slot,
	   uint16_t nfree)
{
	struct lr_mbuf *seg = m, *b;
	uint32_t soff = 0, need = 1;
	uint16_t k;

	if (m->pkt_len > q->bsize)
		need = (m->pkt_len + q->bsize - 1) / q->bsize;
	if (need > nfree)
		return 0;
	for (k = 0; k < need; k++) {
		if (lr_mempool_get(q->zc_mp, (void **)&b) != 0) {
			/* give back what this packet took */
			while (k-- > 0)
				lr_mempool_put(
				    q->zc_mp,
				    q->slot_mb[(uint16_t)(slot + k) & q->mask]);
			return 0;
		}
		uint8_t *dst = (uint8_t *)b->buf_addr + LR_PKTMBUF_HEADROOM;
		uint32_t dlen = tx_copy_segs(dst, q->bsize, &seg, &soff);

		zc_tx_desc(q, (uint16_t)(slot + k), b, ZC_REGION,
			   zc_off(q, dst), dlen,
			   (uint32_t)k + 1 < need ? MIF_DESC_FLAG_NEXT : 0);
	}
	lr_counter_add(&q->zc_copies, 1);
	return (uint16_t)need;
}

/* Client tx, zero-copy: a C2S ring. A one-segment mbuf of a pool the
 * peer maps (the port's own, or another zero-copy port's announced at
 * connect) goes on the ring as it is and is freed once the server moved
 * the tail past it; any other packet is copied into pool mbufs and freed
 * at once. */
static uint16_t
memif_tx_client_zc(void *txq, struct lr_mbuf **pkts, uint16_t n)
{
	struct mif_queue *q = txq;
	struct zc_hit hit = {q->zc_mp, q->zc_base, ZC_REGION};
	uint16_t tail, slot, nfree, i, k, region, nzc = 0;
	uint64_t bytes = 0;

	if (lr_unlikely(!q_enter(q)))
		return tx_link_down(q, pkts, n);
	tail = atomic_load_explicit(&q->ring->tail, memory_order_acquire);
	if (lr_unlikely((uint16_t)(q->last - tail) >
			(uint16_t)(q->last - q->done))) {
		q_bad(q, "tx queue %u: tail %u outside the slots %u..%u sent",
		      q->qid, tail, q->done, q->last);
		q_leave(q);
		return tx_link_down(q, pkts, n);
	}
	zc_tx_reclaim(q, tail);
	nfree = q->size - (uint16_t)(q->last - tail);
	slot = q->last;
	desc_prefetchw(q, slot, LR_MIN(nfree, n));
	for (i = 0; i < n; i++) {
		struct lr_mbuf *m = pkts[i];
		uint32_t len = m->pkt_len;

		if (lr_likely(m->nb_segs == 1 &&
			      (region = zc_region_hit(q, m, &hit)) != 0)) {
			if (nfree == 0)
				break;
			zc_tx_desc(q, slot, m, region,
				   (uint32_t)(lr_pktmbuf_mtod(m, uint8_t *) -
					      hit.base),
				   m->data_len, 0);
			k = 1;
			nzc++;
		} else {
			k = zc_tx_copy(q, m, slot, nfree);
			if (k == 0)
				break;
			lr_pktmbuf_free(m);
		}
		slot = (uint16_t)(slot + k);
		nfree = (uint16_t)(nfree - k);
		bytes += len;
	}
	if (i > 0) {
		atomic_store_explicit(&q->ring->head, slot,
				      memory_order_release);
		q->last = slot;
		kick(q);
	}
	if (i < n)
		lr_counter_add(&q->ring_full, 1);
	lr_counter_add(&q->zc_sent, nzc);
	return burst_done(q, i, bytes);
}

/* Server tx of one-segment packet m into slot (offered by the client):
 * 1 when copied and described, 0 when it does not fit the slot's buffer
 * (the general path then takes it), -1 after reporting a bad descriptor.
 * The descriptor is read once (copy_frame: the copy). */
static __lr_always_inline int
tx_server_one(struct mif_queue *q, uint16_t slot, struct lr_mbuf *m)
{
	volatile struct mif_desc *d = &q->ring->desc[slot & q->mask];
	uint16_t region = d->region;
	uint32_t off = d->offset, len = d->length, dlen = m->data_len;
	const uint8_t *src = lr_pktmbuf_mtod(m, const uint8_t *);
	uint8_t *dst;

	if (lr_unlikely(dlen > len || dlen == 0))
		return 0;
	dst = tx_desc_dst(q, slot, region, off, len);
	if (lr_unlikely(dst == NULL))
		return -1;
	copy_frame(dst, src, dlen);
	d->length = dlen;
	d->flags = 0;
	return 1;
}

/* Server tx: an S2C ring; fill the buffers the client offered from tail
 * up to head, publish tail. A packet longer than its first buffer is
 * placed only if the offered buffers hold it (checked before writing). */
static uint16_t
memif_tx_server(void *txq, struct lr_mbuf **pkts, uint16_t n)
{
	struct mif_queue *q = txq;
	struct mif_ring *r;
	uint16_t head, slot, nfree, i;
	uint64_t bytes = 0;

	if (lr_unlikely(!q_enter(q)))
		return tx_link_down(q, pkts, n);
	r = q->ring;
	head = atomic_load_explicit(&r->head, memory_order_acquire);
	nfree = (uint16_t)(head - q->last);
	if (lr_unlikely(nfree > q->size)) {
		q_bad(q, "tx queue %u: head %u more than %u slots past %u",
		      q->qid, head, q->size, q->last);
		q_leave(q);
		return tx_link_down(q, pkts, n);
	}
	slot = q->last;
	desc_prefetchw(q, slot, LR_MIN(nfree, n));
	for (i = 0; i < n; i++) {
		struct lr_mbuf *m = pkts[i], *seg = m;
		uint32_t soff = 0, cap = 0, done = 0;
		uint16_t k, pstart = slot;

		if (lr_likely(m->nb_segs == 1 && nfree != 0)) {
			int r1 = tx_server_one(q, slot, m);

			if (lr_likely(r1 > 0)) {
				slot++;
				nfree--;
				bytes += m->data_len;
				continue;
			}
			if (r1 < 0)
				goto out;
		}
		/* The buffers this packet takes, before writing any. */
		for (k = 0; k < nfree && cap < m->pkt_len; k++)
			cap += ((volatile struct mif_desc *)&r
				    ->desc[(uint16_t)(slot + k) & q->mask])
				   ->length;
		if (k == 0 && nfree > 0)
			k = 1; /* an empty packet takes one slot */
		if (cap < m->pkt_len || k == 0)
			break;
		nfree -= k;
		do {
			volatile struct mif_desc *d = &r->desc[slot & q->mask];
			uint16_t region = d->region;
			uint32_t off = d->offset, len = d->length, dlen = 0;
			uint8_t *dst;

			dst = tx_desc_dst(q, slot, region, off, len);
			if (lr_unlikely(dst == NULL)) {
				slot = pstart;
				goto out;
			}
			/* the bytes left say whether more follow: a chain
			 * may end in empty segments, a buffer be empty */
			dlen = tx_copy_segs(dst, len, &seg, &soff);
			done += dlen;
			d->length = dlen;
			d->flags = done < m->pkt_len ? MIF_DESC_FLAG_NEXT : 0;
			slot++;
		} while (done < m->pkt_len && --k > 0);
		bytes += m->pkt_len;
	}
out:
	if (slot != q->last) {
		atomic_store_explicit(&r->tail, slot, memory_order_release);
		q->last = slot;
		kick(q);
	}
	lr_pktmbuf_free_bulk(pkts, i);
	if (i < n)
		lr_counter_add(&q->ring_full, 1);
	return burst_done(q, i, bytes);
}

/* Offloads on transmit. A memif frame crosses with no metadata, so the
 * peer can neither complete a checksum nor segment: what a frame's offload
 * flags ask for (a partial checksum from a virtio-net or veth peer,
 * checksums from the header lengths, TCP segmentation of a super-frame) is
 * done here, in software, before the frame is queued. A frame whose
 * headers do not allow it goes out as it is (checksums) or is dropped
 * (segmentation), counted in the xstat tx_offload_errors. The check is one
 * load of ol_flags per packet, in a loop over the burst's mbufs that the
 * copy touches next anyway. */
typedef uint16_t (*mif_tx_fn)(void *txq, struct lr_mbuf **pkts, uint16_t n);

/* Segments a super-frame may become here (64 KiB over an MSS of 536). */
#define MIF_TSO_SEGS_MAX 128

/* Send super-frame m cut into frames of tso_segsz payload through fn;
 * m is consumed. Segments the ring has no room for are dropped and
 * counted (what was sent of the frame cannot be taken back). */
static __lr_cold void
tx_tso(struct mif_queue *q, struct lr_mbuf *m, mif_tx_fn fn)
{
	struct lr_mbuf *segs[MIF_TSO_SEGS_MAX];
	int k = lr_net_tso_segment(m, m->pool, segs, MIF_TSO_SEGS_MAX);
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

/* The burst pkts[0..n) through fn, the offloads its frames ask for done
 * first; the number of pkts consumed. */
static __lr_cold uint16_t
tx_soft_offload(struct mif_queue *q, struct lr_mbuf **pkts, uint16_t n,
		mif_tx_fn fn)
{
	uint16_t done = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct lr_mbuf *m = pkts[i];

		if (!(m->ol_flags & LR_MBUF_F_OFFLOAD_MASK))
			continue;
		if (m->ol_flags & LR_MBUF_F_TCP_SEG_MASK) {
			if (i > done) {
				done += fn(q, pkts + done, i - done);
				if (done < i)
					return done;
			}
			tx_tso(q, m, fn);
			done++;
		} else if (lr_net_cksum_offload(m) != 0) {
			lr_counter_add(&q->offload_errors, 1);
		}
	}
	if (done < n)
		done += fn(q, pkts + done, n - done);
	return done;
}

/* Transmit burst fn##_o: fn, through tx_soft_offload() when a frame of
 * the burst asks for an offload. */
#define MIF_TX_WITH_OFFLOADS(fn)                                               \
	static uint16_t fn##_o(void *txq, struct lr_mbuf **pkts, uint16_t n)   \
	{                                                                      \
		for (uint16_t i = 0; i < n; i++)                               \
			if (lr_unlikely(pkts[i]->ol_flags &                    \
					LR_MBUF_F_OFFLOAD_MASK))               \
				return tx_soft_offload(txq, pkts, n, fn);      \
		return fn(txq, pkts, n);                                       \
	}
MIF_TX_WITH_OFFLOADS(memif_tx_server)
MIF_TX_WITH_OFFLOADS(memif_tx_client)
MIF_TX_WITH_OFFLOADS(memif_tx_client_zc)

/* ------------------------------------------------------------------ */
/* What the control plane calls. */

void
lr_memif_bursts_(const struct mif_port *p, int offloads, lr_eth_rx_burst_t *rx,
		 lr_eth_tx_burst_t *tx)
{
	*rx = p->server ? memif_rx_server
	      : p->zc	? memif_rx_client_zc
			: memif_rx_client;
	if (offloads)
		*tx = p->server ? memif_tx_server_o
		      : p->zc	? memif_tx_client_zc_o
				: memif_tx_client_o;
	else
		*tx = p->server ? memif_tx_server
		      : p->zc	? memif_tx_client_zc
				: memif_tx_client;
}

uint16_t
lr_memif_zc_rx_fill_(struct mif_queue *q, uint16_t upto)
{
	return zc_rx_fill(q, upto);
}

/* Wait until no burst uses q, with q marked down: the other half of
 * q_enter()'s seq_cst pair. */
void
lr_memif_queue_quiesce_(struct mif_queue *q)
{
	atomic_store_explicit(&q->up, 0, memory_order_seq_cst);
	while (atomic_load_explicit(&q->busy, memory_order_seq_cst))
		sched_yield();
}

/* Client zero-copy: give back the mbufs the slots of q's ring hold, q
 * quiesced: rx slots offered and not read, tx slots not yet freed. */
void
lr_memif_zc_release_(struct mif_queue *q, int rx)
{
	if (q->ring == NULL || q->zc_mp == NULL)
		return;
	if (!rx) {
		zc_tx_reclaim(q, q->last);
		return;
	}
	for (uint16_t s = q->last; s != q->head; s++) {
		struct lr_mbuf *m = q->slot_mb[s & q->mask];

		m->next = NULL; /* a chain cut short by a bad descriptor */
		m->nb_segs = 1;
		lr_mempool_put(q->zc_mp, m);
	}
	q->head = q->last;
}
