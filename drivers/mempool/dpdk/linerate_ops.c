/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * liblinerate_dpdk_mempool.so: a DPDK mempool ops driver named "linerate",
 * so that an unmodified DPDK program keeps its mempools' objects in
 * linerate's store:
 *
 *   dpdk-testpmd -d liblinerate_dpdk_mempool.so \
 *       --mbuf-pool-ops-name=linerate --vdev net_null0 -- ...
 *
 * (or rte_mempool_set_ops_byname(mp, "linerate", NULL) in a program).
 *
 * The store: one linerate ring (lr_ring, lib/ring) per pool, sized for
 * exactly the pool's objects, its producer and consumer variants chosen
 * once from the pool's flags (RTE_MEMPOOL_F_SP_PUT, _SC_GET); DPDK's
 * per-lcore caches stay in front of it, as with DPDK's own ring_mp_mc,
 * so a cache refill or flush is one linerate bulk ring operation: the
 * same cost per object as DPDK's ring (a CAS on the head for MP/MC, a
 * copy of n pointers), no lock.
 *
 * Memory: the objects stay where DPDK puts them. DPDK 22.11 allocates
 * a pool's memory from its own memzones before any ops callback can offer
 * some (populate receives memory already allocated; a pool that already
 * has memory when populate_default runs is refused), so the page
 * allocator cannot back them from here; a program that wants that calls
 * rte_mempool_populate_virt() with linerate memory itself.
 *
 * Accounting: with LR_DPDK_MEMPOOL_REPORT=1 in the environment, each
 * pool counts its store calls (relaxed atomics, only then) and prints at
 * free, on stderr:
 *   linerate mempool '<name>': size S, store N, caches C, in use U,
 *   enqueued E, dequeued D
 * where U = S - N - C: the objects not back when the program freed the
 * pool (0 for a clean exit). rte_mempool_free() empties the store one
 * object at a time before it calls the ops' free (each object of the
 * pool's list is dequeued once: the store's objects come out, a
 * dequeue fails for each one outside it), so N is what that trailing run
 * of one-object dequeues took, and S - N - C what it missed (the live
 * count when there was no such run).
 *
 * Threading: as DPDK's ring ops (MP/MC unless the pool says SP/SC).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_lcore.h>
#include <rte_mempool.h>

#include "lr_errno.h"
#include "lr_ring.h"

/* A pool's store. */
struct lr_dpdk_store {
	struct lr_ring *ring;
	int sp, sc; /* single producer / consumer */
	int report; /* count and print at free */
	atomic_ullong enq, deq;
	/* the trailing run of one-object dequeues: taken, missed */
	atomic_uint run_ok, run_miss;
};

/* A call other than a one-object dequeue ends the trailing run. */
static void
run_reset(struct lr_dpdk_store *s)
{
	atomic_store_explicit(&s->run_ok, 0, memory_order_relaxed);
	atomic_store_explicit(&s->run_miss, 0, memory_order_relaxed);
}

static int
ops_alloc(struct rte_mempool *mp)
{
	struct lr_dpdk_store *s = calloc(1, sizeof(*s));
	char name[LR_RING_NAMESIZE];
	const char *rep = getenv("LR_DPDK_MEMPOOL_REPORT");

	if (s == NULL)
		return -ENOMEM;
	snprintf(name, sizeof(name), "dpdk_%.*s", LR_RING_NAMESIZE - 6,
		 mp->name);
	s->ring =
	    lr_ring_create(name, mp->size, mp->socket_id, LR_RING_F_EXACT_SZ);
	if (s->ring == NULL) {
		int err = lr_errno;

		fprintf(stderr,
			"linerate mempool '%s': cannot create its store of "
			"%u objects: %s\n",
			mp->name, mp->size, strerror(err));
		free(s);
		return -err;
	}
	s->sp = (mp->flags & RTE_MEMPOOL_F_SP_PUT) != 0;
	s->sc = (mp->flags & RTE_MEMPOOL_F_SC_GET) != 0;
	s->report = rep != NULL && strcmp(rep, "1") == 0;
	mp->pool_data = s;
	return 0;
}

/* Objects in the per-lcore caches of mp. */
static unsigned
cached(const struct rte_mempool *mp)
{
	unsigned n = 0;

	if (mp->cache_size == 0 || mp->local_cache == NULL)
		return 0;
	for (unsigned i = 0; i < RTE_MAX_LCORE; i++)
		n += mp->local_cache[i].len;
	return n;
}

static void
ops_free(struct rte_mempool *mp)
{
	struct lr_dpdk_store *s = mp->pool_data;
	unsigned store, c;

	if (s == NULL)
		return;
	if (s->report) {
		unsigned ok = atomic_load(&s->run_ok);
		unsigned miss = atomic_load(&s->run_miss);

		c = cached(mp);
		store = ok + miss != 0 ? ok : lr_ring_count(s->ring);
		fprintf(stderr,
			"linerate mempool '%s': size %u, store %u, caches %u, "
			"in use %d, enqueued %llu, dequeued %llu\n",
			mp->name, mp->size, store, c,
			ok + miss != 0 ? (int)miss - (int)c
				       : (int)mp->size - (int)store - (int)c,
			(unsigned long long)atomic_load(&s->enq),
			(unsigned long long)atomic_load(&s->deq));
	}
	lr_ring_free(s->ring);
	free(s);
	mp->pool_data = NULL;
}

static int
ops_enqueue(struct rte_mempool *mp, void *const *objs, unsigned n)
{
	struct lr_dpdk_store *s = mp->pool_data;
	unsigned done = s->sp ? lr_ring_sp_enqueue_bulk(s->ring, objs, n, NULL)
			      : lr_ring_mp_enqueue_bulk(s->ring, objs, n, NULL);

	if (done != n)
		return -ENOBUFS;
	if (s->report) {
		atomic_fetch_add_explicit(&s->enq, n, memory_order_relaxed);
		run_reset(s);
	}
	return 0;
}

static int
ops_dequeue(struct rte_mempool *mp, void **objs, unsigned n)
{
	struct lr_dpdk_store *s = mp->pool_data;
	unsigned done = s->sc ? lr_ring_sc_dequeue_bulk(s->ring, objs, n, NULL)
			      : lr_ring_mc_dequeue_bulk(s->ring, objs, n, NULL);

	if (s->report) {
		if (n != 1)
			run_reset(s);
		else
			atomic_fetch_add_explicit(done ? &s->run_ok
						       : &s->run_miss,
						  1, memory_order_relaxed);
		if (done == n)
			atomic_fetch_add_explicit(&s->deq, n,
						  memory_order_relaxed);
	}
	return done == n ? 0 : -ENOENT;
}

static unsigned
ops_count(const struct rte_mempool *mp)
{
	const struct lr_dpdk_store *s = mp->pool_data;

	return lr_ring_count(s->ring);
}

static struct rte_mempool_ops lr_dpdk_ops = {
    .name = "linerate",
    .alloc = ops_alloc,
    .free = ops_free,
    .enqueue = ops_enqueue,
    .dequeue = ops_dequeue,
    .get_count = ops_count,
};

RTE_MEMPOOL_REGISTER_OPS(lr_dpdk_ops);
