/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_lcore.h - logical cores. An lcore is a thread pinned to one CPU with
 * a small integer id (0 .. LR_MAX_LCORE-1) that indexes per-lcore state
 * (page lists, mempool caches). lr_eal_init() creates one thread per lcore
 * of -l; the main lcore is the thread that called it. Any other thread may
 * take an id with lr_thread_register() (no EAL init needed), which is how
 * embedders get per-lcore caches; an unregistered thread has id
 * LR_LCORE_ID_ANY and takes the shared, locked paths.
 *
 * Cost: lr_lcore_id() is one thread-local load.
 *
 * Error model: queries of an lcore id that is not enabled return -1 (or 0
 * for a NUMA node when NUMA is unavailable); lr_thread_register() returns
 * the id or -ENOSPC; nothing here sets lr_errno.
 */
#ifndef LR_LCORE_H
#define LR_LCORE_H

#include <stdint.h>

#include "lr_common.h"

LR_BEGIN_DECLS

/** lcore id of a thread that is not an lcore. */
#define LR_LCORE_ID_ANY UINT32_MAX
/** NUMA node of memory or a thread whose node is unknown. */
#define LR_SOCKET_ID_ANY (-1)

extern __thread unsigned lr_lcore_id_tls;

/** The calling thread's lcore id, or LR_LCORE_ID_ANY. */
static inline unsigned
lr_lcore_id(void)
{
	return lr_lcore_id_tls;
}

/** Number of lcores enabled by lr_eal_init() (1 without init). */
unsigned lr_lcore_count(void);

/** Id of the main lcore. */
unsigned lr_get_main_lcore(void);

/** Non-zero if lcore id is enabled (EAL lcore or registered thread). */
int lr_lcore_is_enabled(unsigned lcore_id);

/** NUMA node of an lcore's CPU (0 when NUMA is unavailable). */
int lr_lcore_to_socket_id(unsigned lcore_id);

/** CPU an lcore is pinned to, or -1. */
int lr_lcore_to_cpu_id(unsigned lcore_id);

/** NUMA node of the calling thread (its lcore's, else its current CPU's). */
int lr_socket_id(void);

/** Number of NUMA nodes with memory or CPUs (1 when NUMA is unavailable). */
unsigned lr_socket_count(void);

/** Next enabled EAL lcore after i (skip_main: skip the main lcore); LR_MAX_LCORE at the end. */
unsigned lr_get_next_lcore(unsigned i, int skip_main, int wrap);

/** Iterate over every EAL worker lcore (all but the main one). */
#define LR_LCORE_FOREACH_WORKER(i)                               \
	for ((i) = lr_get_next_lcore(-1, 1, 0); (i) < LR_MAX_LCORE; \
	     (i) = lr_get_next_lcore((i), 1, 0))

/** Iterate over every EAL lcore, main included. */
#define LR_LCORE_FOREACH(i)                                      \
	for ((i) = lr_get_next_lcore(-1, 0, 0); (i) < LR_MAX_LCORE; \
	     (i) = lr_get_next_lcore((i), 0, 0))

/** Function run on an lcore; its return value is kept for the waiter. */
typedef int (*lr_lcore_function_t)(void *arg);

/** Run f(arg) on worker lcore id; 0, or -EBUSY if it is running, -EINVAL. */
int lr_eal_remote_launch(lr_lcore_function_t f, void *arg, unsigned worker_id);

/** Run f(arg) on every worker (and on main if call_main); 0 or -EBUSY. */
int lr_eal_mp_remote_launch(lr_lcore_function_t f, void *arg, int call_main);

/** Wait for a worker to finish; its function's return value (0 if idle). */
int lr_eal_wait_lcore(unsigned worker_id);

/** Wait for every worker to finish. */
void lr_eal_mp_wait_lcore(void);

/** Give the calling thread a free lcore id; the id, or -ENOSPC. */
int lr_thread_register(void);

/** Give back the calling thread's registered lcore id. */
void lr_thread_unregister(void);

/** Pin the calling thread to one CPU; 0 or negative errno. */
int lr_thread_set_cpu(int cpu);

/** Register a callback run when a registered thread unregisters. */
int lr_lcore_on_release(void (*cb)(unsigned lcore_id, void *arg), void *arg);

LR_END_DECLS

#endif /* LR_LCORE_H */
