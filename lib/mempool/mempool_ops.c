/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Backing stores of mempools and their registry: four ring variants (the
 * ring's default mode is set from the name, and the ring is published in
 * mp->store_ring so that refills and flushes call the ring inline) and a
 * spin-locked LIFO stack, which hands out the most recently freed objects
 * first (warm in cache) at the price of one lock per bulk.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lr_errno.h"
#include "lr_log.h"
#include "lr_mempool.h"
#include "lr_ring.h"

/* ------------------------------------------------------------------ */
/* Ring stores.                                                         */

static int
ring_alloc(struct lr_mempool *mp, unsigned rflags)
{
	char rname[LR_RING_NAMESIZE];
	struct lr_ring *r;

	snprintf(rname, sizeof(rname), "MP_%s", mp->name);
	r = lr_ring_create(rname, mp->size, mp->socket_id,
			   rflags | LR_RING_F_EXACT_SZ);
	if (r == NULL) {
		LR_LOG(ERR, MEMPOOL,
		       "mempool '%s': cannot create ring '%s': %s\n", mp->name,
		       rname, lr_strerror(lr_errno));
		return -lr_errno;
	}
	mp->pool_data = r;
	mp->store_ring = r;
	mp->store_ring_flags = rflags;
	return 0;
}

static int
ring_mp_mc_alloc(struct lr_mempool *mp)
{
	return ring_alloc(mp, 0);
}

static int
ring_sp_sc_alloc(struct lr_mempool *mp)
{
	return ring_alloc(mp, LR_RING_F_SP_ENQ | LR_RING_F_SC_DEQ);
}

static int
ring_sp_mc_alloc(struct lr_mempool *mp)
{
	return ring_alloc(mp, LR_RING_F_SP_ENQ);
}

static int
ring_mp_sc_alloc(struct lr_mempool *mp)
{
	return ring_alloc(mp, LR_RING_F_SC_DEQ);
}

static void
ring_free(struct lr_mempool *mp)
{
	lr_ring_free(mp->pool_data);
	mp->pool_data = NULL;
	mp->store_ring = NULL;
}

static int
ring_enqueue(struct lr_mempool *mp, void *const *objs, unsigned n)
{
	return lr_ring_enqueue_bulk(mp->pool_data, objs, n, NULL) == n
		   ? 0
		   : -ENOBUFS;
}

static int
ring_dequeue(struct lr_mempool *mp, void **objs, unsigned n)
{
	return lr_ring_dequeue_bulk(mp->pool_data, objs, n, NULL) == n
		   ? 0
		   : -ENOENT;
}

static unsigned
ring_get_count(const struct lr_mempool *mp)
{
	return lr_ring_count(mp->pool_data);
}

/* ------------------------------------------------------------------ */
/* Stack store: objs[0 .. len) under a test-and-set spin lock.          */

struct stack_store {
	atomic_flag lock;
	unsigned len;  /* objects held */
	unsigned size; /* slots */
	void *objs[];
};

static inline void
stack_lock(struct stack_store *s)
{
	while (
	    atomic_flag_test_and_set_explicit(&s->lock, memory_order_acquire))
		lr_pause();
}

static inline void
stack_unlock(struct stack_store *s)
{
	atomic_flag_clear_explicit(&s->lock, memory_order_release);
}

static int
stack_alloc(struct lr_mempool *mp)
{
	struct stack_store *s;

	s = calloc(1, sizeof(*s) + (size_t)mp->size * sizeof(void *));
	if (s == NULL) {
		LR_LOG(ERR, MEMPOOL,
		       "mempool '%s': no memory for a stack of %u\n", mp->name,
		       mp->size);
		return -ENOMEM;
	}
	atomic_flag_clear(&s->lock);
	s->size = mp->size;
	mp->pool_data = s;
	return 0;
}

static void
stack_free(struct lr_mempool *mp)
{
	free(mp->pool_data);
	mp->pool_data = NULL;
}

static int
stack_enqueue(struct lr_mempool *mp, void *const *objs, unsigned n)
{
	struct stack_store *s = mp->pool_data;
	int rc = 0;

	stack_lock(s);
	if (lr_unlikely(s->size - s->len < n)) {
		rc = -ENOBUFS;
	} else {
		memcpy(&s->objs[s->len], objs, n * sizeof(void *));
		s->len += n;
	}
	stack_unlock(s);
	return rc;
}

static int
stack_dequeue(struct lr_mempool *mp, void **objs, unsigned n)
{
	struct stack_store *s = mp->pool_data;
	int rc = 0;

	stack_lock(s);
	if (lr_unlikely(s->len < n)) {
		rc = -ENOENT;
	} else {
		s->len -= n;
		memcpy(objs, &s->objs[s->len], n * sizeof(void *));
	}
	stack_unlock(s);
	return rc;
}

static unsigned
stack_get_count(const struct lr_mempool *mp)
{
	const struct stack_store *s = mp->pool_data;

	return __atomic_load_n(&s->len, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------------ */
/* Registry.                                                            */

static const struct lr_mempool_ops builtin_ops[] = {
    {"ring_mp_mc", ring_mp_mc_alloc, ring_free, ring_enqueue, ring_dequeue,
     ring_get_count},
    {"ring_sp_sc", ring_sp_sc_alloc, ring_free, ring_enqueue, ring_dequeue,
     ring_get_count},
    {"ring_sp_mc", ring_sp_mc_alloc, ring_free, ring_enqueue, ring_dequeue,
     ring_get_count},
    {"ring_mp_sc", ring_mp_sc_alloc, ring_free, ring_enqueue, ring_dequeue,
     ring_get_count},
    {"stack", stack_alloc, stack_free, stack_enqueue, stack_dequeue,
     stack_get_count},
};

static pthread_mutex_t ops_lock = PTHREAD_MUTEX_INITIALIZER;
static struct lr_mempool_ops user_ops[LR_MEMPOOL_MAX_OPS];
static unsigned nb_user_ops;

int
lr_mempool_ops_index_(const struct lr_mempool_ops *ops)
{
	int idx = -1;

	for (unsigned i = 0; i < LR_DIM(builtin_ops); i++)
		if (ops == &builtin_ops[i])
			return (int)i;
	pthread_mutex_lock(&ops_lock);
	for (unsigned i = 0; i < nb_user_ops; i++)
		if (ops == &user_ops[i])
			idx = (int)(LR_DIM(builtin_ops) + i);
	pthread_mutex_unlock(&ops_lock);
	return idx;
}

const struct lr_mempool_ops *
lr_mempool_ops_lookup(const char *name)
{
	const struct lr_mempool_ops *found = NULL;

	if (name == NULL)
		return NULL;
	for (unsigned i = 0; i < LR_DIM(builtin_ops); i++)
		if (strcmp(builtin_ops[i].name, name) == 0)
			return &builtin_ops[i];
	pthread_mutex_lock(&ops_lock);
	for (unsigned i = 0; i < nb_user_ops; i++)
		if (strcmp(user_ops[i].name, name) == 0)
			found = &user_ops[i];
	pthread_mutex_unlock(&ops_lock);
	return found;
}

int
lr_mempool_register_ops(const struct lr_mempool_ops *ops)
{
	int rc;

	if (ops == NULL || ops->alloc == NULL || ops->free == NULL ||
	    ops->enqueue == NULL || ops->dequeue == NULL ||
	    ops->get_count == NULL ||
	    strnlen(ops->name, LR_MEMPOOL_OPS_NAMESIZE) == 0 ||
	    strnlen(ops->name, LR_MEMPOOL_OPS_NAMESIZE) ==
		LR_MEMPOOL_OPS_NAMESIZE) {
		LR_LOG(ERR, MEMPOOL,
		       "mempool ops: incomplete ops or bad name\n");
		return -EINVAL;
	}
	if (lr_mempool_ops_lookup(ops->name) != NULL) {
		LR_LOG(ERR, MEMPOOL, "mempool ops '%s': already registered\n",
		       ops->name);
		return -EEXIST;
	}
	pthread_mutex_lock(&ops_lock);
	if (nb_user_ops == LR_MEMPOOL_MAX_OPS) {
		rc = -ENOSPC;
	} else {
		user_ops[nb_user_ops] = *ops;
		rc = (int)(LR_DIM(builtin_ops) + nb_user_ops++);
	}
	pthread_mutex_unlock(&ops_lock);
	if (rc < 0)
		LR_LOG(ERR, MEMPOOL, "mempool ops '%s': all %d slots in use\n",
		       ops->name, LR_MEMPOOL_MAX_OPS);
	return rc;
}
