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
 * Cost: lr_lcore_id() is one thread-local load. lr_lcore_poll_account()
 * is one TSC read, one add and one store on the lcore's own cache line;
 * lr_lcore_poll_account_at() the add and the store, for a loop that reads
 * the TSC at the start of each iteration anyway (lr-l2fwd, lr-pktgen).
 *
 * Poll-loop accounting (what telemetry's /eal/lcore/info reports as
 * busy_cycles and total_cycles, as DPDK 23.03 does): a poll loop calls
 * lr_lcore_poll_begin() before its first iteration and
 * lr_lcore_poll_account(did_work) at the end of each; the cycles since
 * the previous call count as busy when the iteration did work (received
 * or sent something), else as idle. Only the lcore itself writes its
 * counters; any thread reads them with lr_lcore_poll_cycles().
 *
 * Error model: queries of an lcore id that is not enabled return -1 (or 0
 * for a NUMA node when NUMA is unavailable); lr_thread_register() returns
 * the id or -ENOSPC; nothing here sets lr_errno.
 */
#ifndef LR_LCORE_H
#define LR_LCORE_H

#include <stdint.h>

#include "lr_common.h"
#include "lr_cycles.h"

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

/** One lcore's poll-loop cycles (see "Poll-loop accounting" above). */
struct lr_lcore_poll {
	uint64_t last; /**< TSC at the previous call; 0: not begun */
	uint64_t busy; /**< cycles of iterations that did work */
	uint64_t idle; /**< cycles of iterations that found nothing */
} __lr_cache_aligned;

/* Indexed by lcore id; written only by that lcore. */
extern struct lr_lcore_poll lr_lcore_poll_tab_[LR_MAX_LCORE];

/** Start accounting the calling lcore's poll loop from now (the time
 *  before is counted as neither busy nor idle). */
static inline void
lr_lcore_poll_begin(void)
{
	unsigned id = lr_lcore_id();

	if (id < LR_MAX_LCORE)
		__atomic_store_n(&lr_lcore_poll_tab_[id].last,
				 lr_get_tsc_cycles(), __ATOMIC_RELAXED);
}

/** lr_lcore_poll_account() for a loop that reads the TSC anyway: at now,
 *  the start of an iteration of lcore lcore_id (the caller's own), the
 *  cycles since the previous call count as busy (did_work: the previous
 *  iteration did work) or idle; the first call only starts the count. */
static inline void
lr_lcore_poll_account_at(unsigned lcore_id, uint64_t now, int did_work)
{
	struct lr_lcore_poll *p;
	uint64_t last;

	if (lcore_id >= LR_MAX_LCORE)
		return;
	p = &lr_lcore_poll_tab_[lcore_id];
	last = p->last;
	__atomic_store_n(&p->last, now, __ATOMIC_RELAXED);
	if (last != 0)
		lr_counter_add(did_work ? &p->busy : &p->idle, now - last);
}

/** End one poll-loop iteration of the calling lcore: the cycles since
 *  the previous call count as busy (did_work non-zero) or idle. */
static inline void
lr_lcore_poll_account(int did_work)
{
	lr_lcore_poll_account_at(lr_lcore_id(), lr_get_tsc_cycles(),
				 did_work);
}

/** An lcore's busy and busy + idle cycles since its poll loop began;
 *  0, or -EINVAL for an lcore that is not enabled. */
int lr_lcore_poll_cycles(unsigned lcore_id, uint64_t *busy, uint64_t *total);

/** Register a callback run when a registered thread unregisters. */
int lr_lcore_on_release(void (*cb)(unsigned lcore_id, void *arg), void *arg);

LR_END_DECLS

#endif /* LR_LCORE_H */
