/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ring creation, naming and inspection. The hot paths are inline in
 * lr_ring.h; everything here is a slow path. Named rings sit on one list
 * protected by a mutex.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lr_errno.h"
#include "lr_log.h"
#include "lr_ring.h"

LR_BUILD_BUG_ON(sizeof(struct lr_ring) % LR_CACHE_LINE_SIZE != 0);
LR_BUILD_BUG_ON(offsetof(struct lr_ring, cons) -
		    offsetof(struct lr_ring, prod) <
		2 * LR_CACHE_LINE_SIZE);

static pthread_mutex_t ring_list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct lr_ring *ring_list;

/* Caller holds ring_list_lock. */
static struct lr_ring *
find_locked(const char *name)
{
	struct lr_ring *r;

	for (r = ring_list; r != NULL; r = r->next)
		if (strncmp(r->name, name, LR_RING_NAMESIZE) == 0)
			return r;
	return NULL;
}

/* Slot count for count and flags, or 0 when count is not acceptable
 * (after logging why). */
static __lr_cold uint32_t
ring_size_for(const char *name, unsigned count, unsigned flags)
{
	if (count == 0) {
		LR_LOG(ERR, RING, "ring '%s': count 0 is not allowed\n", name);
		return 0;
	}
	if (flags & LR_RING_F_EXACT_SZ) {
		if (count >= LR_RING_SZ_MAX) {
			LR_LOG(
			    ERR, RING,
			    "ring '%s': count %u too big (exact size max %u)\n",
			    name, count, LR_RING_SZ_MAX - 1);
			return 0;
		}
		return (uint32_t)lr_align64pow2((uint64_t)count + 1);
	}
	if (!lr_is_power_of_2(count)) {
		LR_LOG(ERR, RING,
		       "ring '%s': count %u is not a power of two "
		       "(use LR_RING_F_EXACT_SZ for any count)\n",
		       name, count);
		return 0;
	}
	if (count > LR_RING_SZ_MAX) {
		LR_LOG(ERR, RING, "ring '%s': count %u too big (max %u)\n",
		       name, count, LR_RING_SZ_MAX);
		return 0;
	}
	if (count == 1) {
		LR_LOG(ERR, RING,
		       "ring '%s': count 1 gives capacity 0 (use count 2 or "
		       "LR_RING_F_EXACT_SZ)\n",
		       name);
		return 0;
	}
	return count;
}

struct lr_ring *
lr_ring_create(const char *name, unsigned count, int socket_id, unsigned flags)
{
	struct lr_ring *r;
	uint32_t size;
	size_t bytes;

	if (name == NULL) {
		LR_LOG(ERR, RING, "ring create: name is NULL\n");
		lr_errno = EINVAL;
		return NULL;
	}
	if (strnlen(name, LR_RING_NAMESIZE) >= LR_RING_NAMESIZE) {
		LR_LOG(ERR, RING, "ring '%s': name longer than %d characters\n",
		       name, LR_RING_NAMESIZE - 1);
		lr_errno = ENAMETOOLONG;
		return NULL;
	}
	if (flags & ~(unsigned)(LR_RING_F_SP_ENQ | LR_RING_F_SC_DEQ |
				LR_RING_F_EXACT_SZ)) {
		LR_LOG(ERR, RING, "ring '%s': unknown flags 0x%x\n", name,
		       flags);
		lr_errno = EINVAL;
		return NULL;
	}
	size = ring_size_for(name, count, flags);
	if (size == 0) {
		lr_errno = EINVAL;
		return NULL;
	}

	bytes = sizeof(*r) + (size_t)size * sizeof(void *);
	bytes = LR_ALIGN_CEIL(bytes, (size_t)LR_CACHE_LINE_SIZE);
	r = aligned_alloc(LR_CACHE_LINE_SIZE, bytes);
	if (r == NULL) {
		LR_LOG(ERR, RING, "ring '%s': cannot allocate %zu bytes\n",
		       name, bytes);
		lr_errno = ENOMEM;
		return NULL;
	}
	memset(r, 0, sizeof(*r));
	strcpy(r->name, name);
	r->flags = flags;
	r->socket_id = socket_id;
	r->size = size;
	r->mask = size - 1;
	r->capacity = (flags & LR_RING_F_EXACT_SZ) ? count : size - 1;
	r->prod.single = !!(flags & LR_RING_F_SP_ENQ);
	r->cons.single = !!(flags & LR_RING_F_SC_DEQ);
	atomic_init(&r->prod.head, 0);
	atomic_init(&r->prod.tail, 0);
	atomic_init(&r->cons.head, 0);
	atomic_init(&r->cons.tail, 0);
	atomic_init(&r->prod.opp_tail, 0);
	atomic_init(&r->cons.opp_tail, 0);

	pthread_mutex_lock(&ring_list_lock);
	if (find_locked(name) != NULL) {
		pthread_mutex_unlock(&ring_list_lock);
		LR_LOG(ERR, RING, "ring '%s': a ring of that name exists\n",
		       name);
		lr_errno = EEXIST;
		goto free_ring;
	}
	r->next = ring_list;
	ring_list = r;
	pthread_mutex_unlock(&ring_list_lock);
	LR_LOG(DEBUG, RING, "ring '%s': %u slots, capacity %u, flags 0x%x\n",
	       name, r->size, r->capacity, flags);
	return r;

free_ring:
	free(r);
	return NULL;
}

void
lr_ring_free(struct lr_ring *r)
{
	struct lr_ring **pp;

	if (r == NULL)
		return;
	pthread_mutex_lock(&ring_list_lock);
	for (pp = &ring_list; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == r) {
			*pp = r->next;
			break;
		}
	}
	pthread_mutex_unlock(&ring_list_lock);
	free(r);
}

struct lr_ring *
lr_ring_lookup(const char *name)
{
	struct lr_ring *r;

	if (name == NULL) {
		lr_errno = EINVAL;
		return NULL;
	}
	pthread_mutex_lock(&ring_list_lock);
	r = find_locked(name);
	pthread_mutex_unlock(&ring_list_lock);
	if (r == NULL)
		lr_errno = ENOENT;
	return r;
}

unsigned
lr_ring_count(const struct lr_ring *r)
{
	/* cons.tail first, with acquire, so prod.tail read after it is no
	 * older: prod.tail >= cons.tail. Concurrent moves may still make the
	 * difference exceed the capacity for an instant; clamp. */
	uint32_t ct = atomic_load_explicit(&r->cons.tail, memory_order_acquire);
	uint32_t pt = atomic_load_explicit(&r->prod.tail, memory_order_relaxed);
	uint32_t n = pt - ct;

	return n > r->capacity ? r->capacity : n;
}

unsigned
lr_ring_free_count(const struct lr_ring *r)
{
	return r->capacity - lr_ring_count(r);
}

unsigned
lr_ring_get_capacity(const struct lr_ring *r)
{
	return r->capacity;
}

unsigned
lr_ring_get_size(const struct lr_ring *r)
{
	return r->size;
}

const char *
lr_ring_get_name(const struct lr_ring *r)
{
	return r->name;
}

int
lr_ring_empty(const struct lr_ring *r)
{
	return lr_ring_count(r) == 0;
}

int
lr_ring_full(const struct lr_ring *r)
{
	return lr_ring_count(r) == r->capacity;
}

void
lr_ring_dump(FILE *f, const struct lr_ring *r)
{
	if (r == NULL) {
		fprintf(f, "ring <NULL>\n");
		return;
	}
	fprintf(f, "ring '%s' @%p\n", r->name, (const void *)r);
	fprintf(f, "  flags=0x%x (%s/%s%s) socket=%d\n", r->flags,
		r->prod.single ? "SP" : "MP", r->cons.single ? "SC" : "MC",
		(r->flags & LR_RING_F_EXACT_SZ) ? ", exact size" : "",
		r->socket_id);
	fprintf(f, "  size=%u capacity=%u\n", r->size, r->capacity);
	fprintf(f, "  prod: head=%u tail=%u\n",
		atomic_load_explicit(&r->prod.head, memory_order_relaxed),
		atomic_load_explicit(&r->prod.tail, memory_order_relaxed));
	fprintf(f, "  cons: head=%u tail=%u\n",
		atomic_load_explicit(&r->cons.head, memory_order_relaxed),
		atomic_load_explicit(&r->cons.tail, memory_order_relaxed));
	fprintf(f, "  used=%u avail=%u\n", lr_ring_count(r),
		lr_ring_free_count(r));
}

int
lr_ring_validate(const struct lr_ring *r)
{
	uint32_t ph, pt, ch, ct;

	if (r == NULL) {
		LR_LOG(ERR, RING, "ring validate: ring is NULL\n");
		return -EINVAL;
	}
	if (!lr_is_power_of_2(r->size) || r->mask != r->size - 1 ||
	    r->capacity == 0 || r->capacity > r->mask) {
		LR_LOG(ERR, RING,
		       "ring '%s': bad geometry size=%u mask=%u capacity=%u\n",
		       r->name, r->size, r->mask, r->capacity);
		return -EINVAL;
	}
	ph = atomic_load_explicit(&r->prod.head, memory_order_acquire);
	pt = atomic_load_explicit(&r->prod.tail, memory_order_acquire);
	ch = atomic_load_explicit(&r->cons.head, memory_order_acquire);
	ct = atomic_load_explicit(&r->cons.tail, memory_order_acquire);
	if (ph != pt || ch != ct) {
		LR_LOG(ERR, RING,
		       "ring '%s': not quiescent: prod head %u tail %u, "
		       "cons head %u tail %u\n",
		       r->name, ph, pt, ch, ct);
		return -EINVAL;
	}
	if (pt - ct > r->capacity) {
		LR_LOG(ERR, RING,
		       "ring '%s': prod.tail %u - cons.tail %u = %u > "
		       "capacity %u\n",
		       r->name, pt, ct, pt - ct, r->capacity);
		return -EINVAL;
	}
	if (lr_ring_count(r) + lr_ring_free_count(r) != r->capacity) {
		LR_LOG(ERR, RING, "ring '%s': count + free != capacity\n",
		       r->name);
		return -EINVAL;
	}
	return 0;
}
