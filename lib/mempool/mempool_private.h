/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mempool_private.h - what mempool.c and the elastic store
 * (mempool_elastic.c) share; not installed, hidden symbols.
 */
#ifndef MEMPOOL_PRIVATE_H
#define MEMPOOL_PRIVATE_H

#include <stdio.h>

#include "lr_mempool.h"

/** The elastic store's ops (never in the registry: chosen by
 *  lr_mempool_create_elastic() alone). */
extern const struct lr_mempool_ops lr_mp_elastic_ops_;

/**
 * Lay the elastic pool out (block order, objects per block; mp->size
 * becomes max rounded up to whole blocks, mp->total_elt_size its slot
 * size), make its store and page pool and grow it to min objects,
 * calling obj_init on each. 0, or a positive errno after a log; on
 * success mp->pool_data is the store, freed by lr_mp_elastic_ops_.free.
 */
int lr_mp_elastic_setup_(struct lr_mempool *mp, unsigned min, unsigned max,
			 lr_mempool_obj_cb_t *obj_init, void *obj_init_arg);

/** Objects the elastic pool has now. */
unsigned lr_mp_elastic_objs_(const struct lr_mempool *mp);

/** Check the store's invariants and that the n cached objects are
 *  distinct, handed out by the store and of a live block; 0 or -EINVAL
 *  after a log (-ENOMEM). */
int lr_mp_elastic_validate_(const struct lr_mempool *mp, void *const *cached,
			    unsigned n);

/** Call cb on each object of every block; the object count. */
unsigned lr_mp_elastic_obj_iter_(struct lr_mempool *mp, lr_mempool_obj_cb_t *cb,
				 void *opaque);

/** Print the store's figures. */
void lr_mp_elastic_dump_(FILE *f, const struct lr_mempool *mp);

/** Non-zero if the IOVAs of the 2^order base pages at addr follow each
 *  other (mempool.c; the fixed and the elastic stores' blocks). */
int lr_mp_block_iova_contig_(const char *addr, unsigned order);

/** The EAL is going: the allocator has forgotten its shrinkers. */
void lr_mp_elastic_forget_shrinker_(void);

/** The index of ops in the registry (the built-in ones first, then those
 *  registered, in order), or -1 (the elastic store's). */
int lr_mempool_ops_index_(const struct lr_mempool_ops *ops);

#endif /* MEMPOOL_PRIVATE_H */
