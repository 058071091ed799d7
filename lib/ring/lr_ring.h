/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_ring.h - fixed-size lock-free rings of pointers.
 *
 * A ring holds up to `capacity` object pointers in `size` slots (size a
 * power of two). Producers move prod.head forward to reserve slots, copy the
 * pointers in, then move prod.tail to publish them; consumers do the same
 * with cons.head and cons.tail. All four indices run freely over uint32_t and
 * are masked (& mask) only to address a slot.
 *
 * Modes. Enqueue is single-producer (SP) or multi-producer (MP); dequeue is
 * single-consumer (SC) or multi-consumer (MC). The ring's flags choose the
 * default used by lr_ring_enqueue*() / lr_ring_dequeue*(); the explicit
 * lr_ring_{sp,mp}_enqueue_* and lr_ring_{sc,mc}_dequeue_* ignore the flags.
 *
 * Threading contract: any number of threads may call MP enqueue and MC
 * dequeue at the same time. SP enqueue must never run at the same time as
 * any other enqueue on the ring, SC dequeue never at the same time as any
 * other dequeue; a ring may change hands between threads when the hand-over
 * itself synchronizes (a lock, a join, a release/acquire pair). No call
 * blocks except MP/MC waiting, after its copy, for earlier producers /
 * consumers on the same side to publish theirs (so a thread preempted
 * between reserve and publish stalls its side of the ring, not the other).
 *
 * Bulk and burst. *_bulk moves all n objects or none and returns n or 0;
 * *_burst moves as many as it can (0..n) and returns how many. The optional
 * free_space / available out-parameter gets what is left after the call (a
 * lower bound in SP/SC mode, which may count from its cached view).
 *
 * Cost on the hot path (x86-64, one lcore, no contention): SP/SC is three
 * loads, a compare and three plain stores per call plus the copy; MP/MC
 * adds one compare-and-swap per call (BENCHMARKS.md has the measured
 * cycles per pair). The copy moves four
 * pointers per step and vectorises. No locks, no division, no allocation, no
 * call through a pointer; everything here is inline.
 *
 * Memory ordering (C11, the weakest that is correct):
 *  - own head: relaxed load. Only this side moves it; in MP/MC mode the CAS
 *    that claims the range re-checks it, so a stale value costs a retry.
 *  - opposite tail: acquire load. It pairs with the release store of that
 *    tail: a producer's acquire of cons.tail orders its slot writes after the
 *    consumers' reads of those slots; a consumer's acquire of prod.tail makes
 *    the slot contents visible before it reads them.
 *  - MP/MC head move: compare-and-swap, relaxed on success and failure. The
 *    CAS only hands out disjoint index ranges; slot visibility is carried by
 *    the tails, not by the head.
 *  - staleness check (MP/MC): the own head and the opposite tail are loaded
 *    without an order between them, so on a weakly ordered CPU (POWER) the
 *    tail may be older than the head. The true values always satisfy
 *    0 <= prod.head - cons.tail <= capacity (and 0 <= prod.tail - cons.head
 *    <= capacity); a pair outside that range is stale and is re-read instead
 *    of ordering the loads with a fence.
 *  - cached opposite tail (SP/SC): each side keeps, in its own cache line,
 *    the last opposite tail it read (opp_tail, relaxed: only this side's
 *    thread reads it, and that thread did the acquire). SP/SC work from it
 *    and re-read the other side's tail (acquire, as above) only when the
 *    cached view shows too little room, so a producer and a consumer on two
 *    cores stop pulling each other's line on every call. Bulk and burst
 *    give up or shorten only after a fresh read. MP/MC store the tail they
 *    acquired into it, so mixed SP/MP use keeps it recent; a cached value
 *    that is out of range (head - opp_tail beyond the capacity, e.g. from a
 *    delayed MP store) is detected like a stale pair and re-read.
 *  - SP/SC own head: relaxed store (only read by this side and by count).
 *  - publish: MP/MC first wait until the tail equals their old head with an
 *    acquire load (which also acquires the earlier producer's or consumer's
 *    work, so that our release passes it on: a plain store does not extend
 *    another thread's release sequence), then store the tail with release.
 *    SP/SC store the tail with release directly.
 * On x86-64 all of these compile to plain loads and stores except the CAS.
 *
 * Invariants (at quiescence; u32 arithmetic):
 *   cons.tail == cons.head,  prod.tail == prod.head,
 *   0 <= prod.tail - cons.tail <= capacity <= mask == size - 1,
 *   count + free_count == capacity.
 * lr_ring_validate() checks them.
 *
 * Error model: lr_ring_create() returns NULL and sets lr_errno (EINVAL,
 * EEXIST, ENAMETOOLONG, ENOMEM); burst and bulk return counts;
 * lr_ring_enqueue() / lr_ring_dequeue() return 0 or -ENOBUFS / -ENOENT.
 */
#ifndef LR_RING_H
#define LR_RING_H

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>

#include "lr_arch.h"
#include "lr_common.h"

LR_BEGIN_DECLS

#define LR_RING_F_SP_ENQ   0x1 /**< default enqueue is single-producer */
#define LR_RING_F_SC_DEQ   0x2 /**< default dequeue is single-consumer */
#define LR_RING_F_EXACT_SZ 0x4 /**< capacity is exactly count */
#define LR_RING_NAMESIZE   32  /**< name length limit, NUL included */
/** Largest slot count of a ring (count limit without EXACT_SZ). */
#define LR_RING_SZ_MAX (1u << 31)
/** Pauses a multi-producer or -consumer waits for an earlier thread to
 *  publish before it yields the CPU at each further look. */
#define LR_RING_SPINS 1024

/** One side of a ring: where reservations start (head) and end (tail). */
struct lr_ring_headtail {
	LR_ATOMIC(uint32_t) head; /**< next index to reserve */
	LR_ATOMIC(uint32_t) tail; /**< indices below are published */
	uint32_t single;       /**< default mode is single producer/consumer */
	/** Last value of the opposite side's tail read by this side: the
	 *  SP/SC paths work from it and re-read the other side's cache line
	 *  only when it shows too little room. */
	LR_ATOMIC(uint32_t) opp_tail;
};

/** A ring; the slots follow the structure in the same allocation. */
struct lr_ring {
	char name[LR_RING_NAMESIZE]; /**< unique name */
	unsigned flags;		     /**< LR_RING_F_* given at creation */
	int socket_id;		     /**< node asked for at creation */
	uint32_t size;		     /**< slots, a power of two */
	uint32_t mask;		     /**< size - 1 */
	uint32_t capacity;	     /**< usable slots (<= mask) */
	struct lr_ring *next;	     /**< named-ring list link (private) */

	/* Producer and consumer each own a cache line, with an empty line
	 * between them so adjacent-line prefetch does not pull one side's
	 * line into the other side's core. */
	char pad0[LR_CACHE_LINE_SIZE] __lr_cache_aligned;
	struct lr_ring_headtail prod __lr_cache_aligned;
	char pad1[LR_CACHE_LINE_SIZE] __lr_cache_aligned;
	struct lr_ring_headtail cons __lr_cache_aligned;
	char pad2[LR_CACHE_LINE_SIZE] __lr_cache_aligned;
};

/** The slot array of r (right after the structure). */
static __lr_always_inline void **
lr_ring_slots(const struct lr_ring *r)
{
	return (void **)(uintptr_t)(r + 1);
}

/** Create a ring named name with count slots; NULL and lr_errno on error. */
struct lr_ring *lr_ring_create(const char *name, unsigned count, int socket_id,
			       unsigned flags);

/** Free a ring created by lr_ring_create() (NULL is ignored). */
void lr_ring_free(struct lr_ring *r);

/** The ring of that name, or NULL with lr_errno = ENOENT. */
struct lr_ring *lr_ring_lookup(const char *name);

/** Objects in the ring now (a snapshot under concurrent use). */
unsigned lr_ring_count(const struct lr_ring *r);

/** Free slots in the ring now (a snapshot under concurrent use). */
unsigned lr_ring_free_count(const struct lr_ring *r);

/** How many objects the ring can hold. */
unsigned lr_ring_get_capacity(const struct lr_ring *r);

/** Number of slots (a power of two, > capacity). */
unsigned lr_ring_get_size(const struct lr_ring *r);

/** The ring's name. */
const char *lr_ring_get_name(const struct lr_ring *r);

/** Non-zero if the ring holds no object. */
int lr_ring_empty(const struct lr_ring *r);

/** Non-zero if the ring has no free slot. */
int lr_ring_full(const struct lr_ring *r);

/** Print the ring's geometry and indices to f. */
void lr_ring_dump(FILE *f, const struct lr_ring *r);

/** Check the invariants at a quiescent point; 0 or -EINVAL after logging. */
int lr_ring_validate(const struct lr_ring *r);

/* ------------------------------------------------------------------ */
/* Hot path internals.                                                  */

/* Copy n pointers from src to dst, four at a time (the slot side may be
 * written by plain stores: the head/tail protocol makes them race-free). */
static __lr_always_inline void
lr_ring_copy_ptrs_(void **__restrict dst, void *const *__restrict src,
		   unsigned n)
{
	for (; n >= 4; n -= 4, dst += 4, src += 4) {
		dst[0] = src[0];
		dst[1] = src[1];
		dst[2] = src[2];
		dst[3] = src[3];
	}
	switch (n) {
	case 3:
		dst[2] = src[2];
		/* fall through */
	case 2:
		dst[1] = src[1];
		/* fall through */
	case 1:
		dst[0] = src[0];
	}
}

/* Copy n pointers from objs into the slots starting at index idx, wrapping
 * at the end of the slot array. */
static __lr_always_inline void
lr_ring_copy_in_(struct lr_ring *r, uint32_t idx, void *const *objs, unsigned n)
{
	void **slots = lr_ring_slots(r);
	const uint32_t mask = r->mask, size = mask + 1;

	idx &= mask;
	if (__builtin_constant_p(n) && n == 1) {
		slots[idx] = objs[0];
		return;
	}
	if (lr_likely(idx + n <= size)) {
		lr_ring_copy_ptrs_(slots + idx, objs, n);
	} else {
		unsigned first = size - idx;

		lr_ring_copy_ptrs_(slots + idx, objs, first);
		lr_ring_copy_ptrs_(slots, objs + first, n - first);
	}
}

/* Copy n pointers out of the slots starting at index idx into objs. */
static __lr_always_inline void
lr_ring_copy_out_(const struct lr_ring *r, uint32_t idx, void **objs,
		  unsigned n)
{
	void *const *slots = lr_ring_slots(r);
	const uint32_t mask = r->mask, size = mask + 1;

	idx &= mask;
	if (__builtin_constant_p(n) && n == 1) {
		objs[0] = slots[idx];
		return;
	}
	if (lr_likely(idx + n <= size)) {
		lr_ring_copy_ptrs_(objs, slots + idx, n);
	} else {
		unsigned first = size - idx;

		lr_ring_copy_ptrs_(objs, slots + idx, first);
		lr_ring_copy_ptrs_(objs + first, slots, n - first);
	}
}

/* Reserve up to n slots for enqueue (all n if bulk). Returns how many were
 * reserved and sets *old_head to the first reserved index and *free_space
 * to the free slots left after them. */
static __lr_always_inline unsigned
lr_ring_prod_reserve_(struct lr_ring *r, unsigned n, int bulk, int single,
		      uint32_t *old_head, unsigned *free_space)
{
	const uint32_t cap = r->capacity;
	uint32_t head, ct, free;

	head = atomic_load_explicit(&r->prod.head, memory_order_relaxed);
	if (single) {
		/* Our own line only, unless the cached view of cons.tail
		 * is short (or stale beyond the capacity): re-read it. */
		ct = atomic_load_explicit(&r->prod.opp_tail,
					  memory_order_relaxed);
		free = cap + ct - head;
		if (lr_unlikely(n > free || free > cap)) {
			ct = atomic_load_explicit(&r->cons.tail,
						  memory_order_acquire);
			atomic_store_explicit(&r->prod.opp_tail, ct,
					      memory_order_relaxed);
			free = cap + ct - head;
			if (lr_unlikely(n > free)) {
				if (bulk || free == 0) {
					*free_space = free;
					return 0;
				}
				n = free;
			}
		}
		atomic_store_explicit(&r->prod.head, head + n,
				      memory_order_relaxed);
	} else {
		for (;;) {
			ct = atomic_load_explicit(&r->cons.tail,
						  memory_order_acquire);
			free = cap + ct - head;
			if (lr_unlikely(free > cap)) {
				/* stale pair: head or tail moved meanwhile */
				head = atomic_load_explicit(
				    &r->prod.head, memory_order_relaxed);
				continue;
			}
			if (lr_unlikely(n > free)) {
				if (bulk || free == 0) {
					*free_space = free;
					return 0;
				}
				n = free;
			}
			if (lr_likely(atomic_compare_exchange_weak_explicit(
				&r->prod.head, &head, head + n,
				memory_order_relaxed, memory_order_relaxed)))
				break;
		}
		/* keep the SP path's cached view recent for mixed use */
		atomic_store_explicit(&r->prod.opp_tail, ct,
				      memory_order_relaxed);
	}
	/* invariant: 0 <= prod.head - cons.tail <= capacity */
	LR_ASSERT(free <= cap && n <= free);
	*old_head = head;
	*free_space = free - n;
	return n;
}

/* Reserve up to n filled slots for dequeue (all n if bulk). */
static __lr_always_inline unsigned
lr_ring_cons_reserve_(struct lr_ring *r, unsigned n, int bulk, int single,
		      uint32_t *old_head, unsigned *available)
{
	const uint32_t cap = r->capacity;
	uint32_t head, pt, avail;

	head = atomic_load_explicit(&r->cons.head, memory_order_relaxed);
	if (single) {
		pt = atomic_load_explicit(&r->cons.opp_tail,
					  memory_order_relaxed);
		avail = pt - head;
		if (lr_unlikely(n > avail || avail > cap)) {
			pt = atomic_load_explicit(&r->prod.tail,
						  memory_order_acquire);
			atomic_store_explicit(&r->cons.opp_tail, pt,
					      memory_order_relaxed);
			avail = pt - head;
			if (lr_unlikely(n > avail)) {
				if (bulk || avail == 0) {
					*available = avail;
					return 0;
				}
				n = avail;
			}
		}
		atomic_store_explicit(&r->cons.head, head + n,
				      memory_order_relaxed);
	} else {
		for (;;) {
			pt = atomic_load_explicit(&r->prod.tail,
						  memory_order_acquire);
			avail = pt - head;
			if (lr_unlikely(avail > cap)) {
				head = atomic_load_explicit(
				    &r->cons.head, memory_order_relaxed);
				continue;
			}
			if (lr_unlikely(n > avail)) {
				if (bulk || avail == 0) {
					*available = avail;
					return 0;
				}
				n = avail;
			}
			if (lr_likely(atomic_compare_exchange_weak_explicit(
				&r->cons.head, &head, head + n,
				memory_order_relaxed, memory_order_relaxed)))
				break;
		}
		atomic_store_explicit(&r->cons.opp_tail, pt,
				      memory_order_relaxed);
	}
	/* invariant: 0 <= prod.tail - cons.head <= capacity */
	LR_ASSERT(avail <= cap && n <= avail);
	*old_head = head;
	*available = avail - n;
	return n;
}

/* Wait until ht->tail reaches old: a thread that reserved before us has
 * not published yet. It may have been preempted (more threads than CPUs):
 * after LR_RING_SPINS pauses, yield the CPU at each look rather than spin
 * away the time slice that thread needs. */
static __attribute__((noinline, cold)) void
lr_ring_tail_wait_(struct lr_ring_headtail *ht, uint32_t old)
{
	for (unsigned spins = 0; atomic_load_explicit(&ht->tail,
						      memory_order_acquire) != old;
	     spins++) {
		if (spins < LR_RING_SPINS)
			lr_pause();
		else
			sched_yield();
	}
}

/* Publish [old, old + n) on one side: in multi mode wait for the earlier
 * reservations of this side to be published first. */
static __lr_always_inline void
lr_ring_publish_(struct lr_ring_headtail *ht, uint32_t old, uint32_t n,
		 int single)
{
	if (!single && lr_unlikely(atomic_load_explicit(
				       &ht->tail, memory_order_acquire) != old))
		lr_ring_tail_wait_(ht, old);
	atomic_store_explicit(&ht->tail, old + n, memory_order_release);
}

static __lr_always_inline unsigned
lr_ring_do_enqueue_(struct lr_ring *r, void *const *objs, unsigned n, int bulk,
		    int single, unsigned *free_space)
{
	uint32_t head;
	unsigned fs;

	unsigned want = n;

	n = lr_ring_prod_reserve_(r, n, bulk, single, &head, &fs);
	LR_ASSERT(n <= want && (!bulk || n == 0 || n == want));
	if (n != 0) {
		lr_ring_copy_in_(r, head, objs, n);
		lr_ring_publish_(&r->prod, head, n, single);
	}
	if (free_space != NULL)
		*free_space = fs;
	return n;
}

static __lr_always_inline unsigned
lr_ring_do_dequeue_(struct lr_ring *r, void **objs, unsigned n, int bulk,
		    int single, unsigned *available)
{
	uint32_t head;
	unsigned av;

	unsigned want = n;

	n = lr_ring_cons_reserve_(r, n, bulk, single, &head, &av);
	LR_ASSERT(n <= want && (!bulk || n == 0 || n == want));
	if (n != 0) {
		lr_ring_copy_out_(r, head, objs, n);
		lr_ring_publish_(&r->cons, head, n, single);
	}
	if (available != NULL)
		*available = av;
	return n;
}

/* ------------------------------------------------------------------ */
/* Enqueue.                                                             */

/** Enqueue all n objects or none, multi-producer safe; n or 0. */
static __lr_always_inline unsigned
lr_ring_mp_enqueue_bulk(struct lr_ring *r, void *const *objs, unsigned n,
			unsigned *free_space)
{
	return lr_ring_do_enqueue_(r, objs, n, 1, 0, free_space);
}

/** Enqueue all n objects or none, single producer only; n or 0. */
static __lr_always_inline unsigned
lr_ring_sp_enqueue_bulk(struct lr_ring *r, void *const *objs, unsigned n,
			unsigned *free_space)
{
	return lr_ring_do_enqueue_(r, objs, n, 1, 1, free_space);
}

/** Enqueue up to n objects, multi-producer safe; how many were enqueued. */
static __lr_always_inline unsigned
lr_ring_mp_enqueue_burst(struct lr_ring *r, void *const *objs, unsigned n,
			 unsigned *free_space)
{
	return lr_ring_do_enqueue_(r, objs, n, 0, 0, free_space);
}

/** Enqueue up to n objects, single producer only; how many were enqueued. */
static __lr_always_inline unsigned
lr_ring_sp_enqueue_burst(struct lr_ring *r, void *const *objs, unsigned n,
			 unsigned *free_space)
{
	return lr_ring_do_enqueue_(r, objs, n, 0, 1, free_space);
}

/** Enqueue all n objects or none in the ring's default mode; n or 0. */
static __lr_always_inline unsigned
lr_ring_enqueue_bulk(struct lr_ring *r, void *const *objs, unsigned n,
		     unsigned *free_space)
{
	if (r->prod.single)
		return lr_ring_do_enqueue_(r, objs, n, 1, 1, free_space);
	return lr_ring_do_enqueue_(r, objs, n, 1, 0, free_space);
}

/** Enqueue up to n objects in the ring's default mode; how many. */
static __lr_always_inline unsigned
lr_ring_enqueue_burst(struct lr_ring *r, void *const *objs, unsigned n,
		      unsigned *free_space)
{
	if (r->prod.single)
		return lr_ring_do_enqueue_(r, objs, n, 0, 1, free_space);
	return lr_ring_do_enqueue_(r, objs, n, 0, 0, free_space);
}

/** Enqueue one object, multi-producer safe; 0 or -ENOBUFS. */
static __lr_always_inline int
lr_ring_mp_enqueue(struct lr_ring *r, void *obj)
{
	return lr_ring_mp_enqueue_bulk(r, &obj, 1, NULL) ? 0 : -ENOBUFS;
}

/** Enqueue one object, single producer only; 0 or -ENOBUFS. */
static __lr_always_inline int
lr_ring_sp_enqueue(struct lr_ring *r, void *obj)
{
	return lr_ring_sp_enqueue_bulk(r, &obj, 1, NULL) ? 0 : -ENOBUFS;
}

/** Enqueue one object in the ring's default mode; 0 or -ENOBUFS. */
static __lr_always_inline int
lr_ring_enqueue(struct lr_ring *r, void *obj)
{
	return lr_ring_enqueue_bulk(r, &obj, 1, NULL) ? 0 : -ENOBUFS;
}

/* ------------------------------------------------------------------ */
/* Dequeue.                                                             */

/** Dequeue exactly n objects or none, multi-consumer safe; n or 0. */
static __lr_always_inline unsigned
lr_ring_mc_dequeue_bulk(struct lr_ring *r, void **objs, unsigned n,
			unsigned *available)
{
	return lr_ring_do_dequeue_(r, objs, n, 1, 0, available);
}

/** Dequeue exactly n objects or none, single consumer only; n or 0. */
static __lr_always_inline unsigned
lr_ring_sc_dequeue_bulk(struct lr_ring *r, void **objs, unsigned n,
			unsigned *available)
{
	return lr_ring_do_dequeue_(r, objs, n, 1, 1, available);
}

/** Dequeue up to n objects, multi-consumer safe; how many were dequeued. */
static __lr_always_inline unsigned
lr_ring_mc_dequeue_burst(struct lr_ring *r, void **objs, unsigned n,
			 unsigned *available)
{
	return lr_ring_do_dequeue_(r, objs, n, 0, 0, available);
}

/** Dequeue up to n objects, single consumer only; how many. */
static __lr_always_inline unsigned
lr_ring_sc_dequeue_burst(struct lr_ring *r, void **objs, unsigned n,
			 unsigned *available)
{
	return lr_ring_do_dequeue_(r, objs, n, 0, 1, available);
}

/** Dequeue exactly n objects or none in the default mode; n or 0. */
static __lr_always_inline unsigned
lr_ring_dequeue_bulk(struct lr_ring *r, void **objs, unsigned n,
		     unsigned *available)
{
	if (r->cons.single)
		return lr_ring_do_dequeue_(r, objs, n, 1, 1, available);
	return lr_ring_do_dequeue_(r, objs, n, 1, 0, available);
}

/** Dequeue up to n objects in the ring's default mode; how many. */
static __lr_always_inline unsigned
lr_ring_dequeue_burst(struct lr_ring *r, void **objs, unsigned n,
		      unsigned *available)
{
	if (r->cons.single)
		return lr_ring_do_dequeue_(r, objs, n, 0, 1, available);
	return lr_ring_do_dequeue_(r, objs, n, 0, 0, available);
}

/** Dequeue one object, multi-consumer safe; 0 or -ENOENT. */
static __lr_always_inline int
lr_ring_mc_dequeue(struct lr_ring *r, void **obj)
{
	return lr_ring_mc_dequeue_bulk(r, obj, 1, NULL) ? 0 : -ENOENT;
}

/** Dequeue one object, single consumer only; 0 or -ENOENT. */
static __lr_always_inline int
lr_ring_sc_dequeue(struct lr_ring *r, void **obj)
{
	return lr_ring_sc_dequeue_bulk(r, obj, 1, NULL) ? 0 : -ENOENT;
}

/** Dequeue one object in the ring's default mode; 0 or -ENOENT. */
static __lr_always_inline int
lr_ring_dequeue(struct lr_ring *r, void **obj)
{
	return lr_ring_dequeue_bulk(r, obj, 1, NULL) ? 0 : -ENOENT;
}

LR_END_DECLS

#endif /* LR_RING_H */
