/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lcores: one pinned thread per worker lcore, launched through a mutex and
 * condition variable per lcore (launching is a slow path; the work itself
 * runs free of the EAL). Registered non-EAL threads take ids from the same
 * table.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "eal_private.h"

#ifdef LR_HAVE_LIBNUMA
#include <numa.h>
#endif


__thread unsigned lr_lcore_id_tls = LR_LCORE_ID_ANY;
struct lr_lcore_poll lr_lcore_poll_tab_[LR_MAX_LCORE];

enum lcore_role { ROLE_OFF, ROLE_EAL, ROLE_NON_EAL };
enum lcore_state { ST_WAIT, ST_RUNNING, ST_FINISHED, ST_EXIT };

struct lcore {
	enum lcore_role role;
	int cpu;
	int socket;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	enum lcore_state state;
	lr_lcore_function_t f;
	void *arg;
	int ret;
};

static struct lcore lcores[LR_MAX_LCORE];
static pthread_mutex_t lcore_table_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned eal_lcore_count;
static unsigned main_lcore;

/* The main thread's CPU set before lr_eal_init() pinned it; given back at
 * cleanup so a later init may choose other lcores. */
static cpu_set_t main_cpuset_saved;
static bool main_cpuset_valid;

static int numa_ok = -1;
static unsigned numa_nodes = 1;

#define MAX_RELEASE_CB 16
static struct {
	void (*cb)(unsigned, void *);
	void *arg;
} release_cbs[MAX_RELEASE_CB];
static unsigned nb_release_cbs;

int
lr_numa_available(void)
{
	if (numa_ok < 0)
		lr_eal_numa_init_();
	return numa_ok;
}

int
lr_eal_numa_init_(void)
{
	if (numa_ok >= 0)
		return 0;
#ifdef LR_HAVE_LIBNUMA
	/* numa_available() calls get_mempolicy(), which qemu-user does not
	 * implement: it then reports -1 and we run as one node. */
	if (numa_available() != -1) {
		int max = numa_max_node() + 1;

		numa_nodes = max > LR_MAX_NUMA_NODES ? LR_MAX_NUMA_NODES : max;
		numa_ok = 1;
		return 0;
	}
#endif
	numa_nodes = 1;
	numa_ok = 0;
	return 0;
}

unsigned
lr_numa_node_count(void)
{
	lr_numa_available();
	return numa_nodes;
}

int
lr_numa_distance(int a, int b)
{
	if (a == b)
		return 10;
#ifdef LR_HAVE_LIBNUMA
	if (lr_numa_available()) {
		int d = numa_distance(a, b);

		if (d > 0)
			return d;
	}
#endif
	return 20;
}

static int
cpu_socket(int cpu)
{
#ifdef LR_HAVE_LIBNUMA
	if (cpu >= 0 && lr_numa_available()) {
		int n = numa_node_of_cpu(cpu);

		if (n >= 0 && n < LR_MAX_NUMA_NODES)
			return n;
	}
#endif
	return 0;
}

unsigned
lr_socket_count(void)
{
	return lr_numa_node_count();
}

unsigned
lr_lcore_count(void)
{
	return eal_lcore_count ? eal_lcore_count : 1;
}

unsigned
lr_get_main_lcore(void)
{
	return main_lcore;
}

int
lr_lcore_is_enabled(unsigned id)
{
	return id < LR_MAX_LCORE && lcores[id].role != ROLE_OFF;
}

int
lr_lcore_poll_cycles(unsigned id, uint64_t *busy, uint64_t *total)
{
	const struct lr_lcore_poll *p;

	if (!lr_lcore_is_enabled(id) || busy == NULL || total == NULL)
		return -EINVAL;
	p = &lr_lcore_poll_tab_[id];
	*busy = lr_counter_read(&p->busy);
	*total = *busy + lr_counter_read(&p->idle);
	return 0;
}

const char *
lr_eal_lcore_role_(unsigned id)
{
	if (id >= LR_MAX_LCORE)
		return "UNKNOWN";
	switch (lcores[id].role) {
	case ROLE_EAL:
		return "RTE";
	case ROLE_NON_EAL:
		return "NON_EAL";
	default:
		return "UNKNOWN";
	}
}

unsigned
lr_eal_ctrl_cpus_(int *cpus, unsigned max)
{
	unsigned n = 0, all = 0;
	int allowed[CPU_SETSIZE];

	if (!main_cpuset_valid)
		return 0;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &main_cpuset_saved))
			allowed[all++] = c;
	for (unsigned i = 0; i < all && n < max; i++) {
		bool taken = false;

		for (unsigned l = 0; l < LR_MAX_LCORE && !taken; l++)
			taken = lcores[l].role == ROLE_EAL &&
				lcores[l].cpu == allowed[i];
		if (!taken)
			cpus[n++] = allowed[i];
	}
	if (n > 0)
		return n;
	for (unsigned i = 0; i < all && n < max; i++)
		cpus[n++] = allowed[i];
	return n;
}

int
lr_lcore_to_socket_id(unsigned id)
{
	if (id >= LR_MAX_LCORE)
		return 0;
	return lcores[id].role == ROLE_OFF ? 0 : lcores[id].socket;
}

int
lr_lcore_to_cpu_id(unsigned id)
{
	if (id >= LR_MAX_LCORE || lcores[id].role == ROLE_OFF)
		return -1;
	return lcores[id].cpu;
}

int
lr_socket_id(void)
{
	unsigned id = lr_lcore_id();

	if (id < LR_MAX_LCORE && lcores[id].role != ROLE_OFF)
		return lcores[id].socket;
	return cpu_socket(sched_getcpu());
}

unsigned
lr_get_next_lcore(unsigned i, int skip_main, int wrap)
{
	i++;
	if (wrap)
		i %= LR_MAX_LCORE;
	for (; i < LR_MAX_LCORE; i++) {
		if (lcores[i].role != ROLE_EAL)
			continue;
		if (skip_main && i == main_lcore)
			continue;
		return i;
	}
	return LR_MAX_LCORE;
}

int
lr_thread_set_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return -pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *
worker_main(void *p)
{
	struct lcore *lc = p;

	lr_lcore_id_tls = (unsigned)(lc - lcores);
	pthread_mutex_lock(&lc->lock);
	for (;;) {
		while (lc->state != ST_RUNNING && lc->state != ST_EXIT)
			pthread_cond_wait(&lc->cond, &lc->lock);
		if (lc->state == ST_EXIT)
			break;
		lr_lcore_function_t f = lc->f;
		void *arg = lc->arg;

		pthread_mutex_unlock(&lc->lock);
		int ret = f(arg);
		pthread_mutex_lock(&lc->lock);
		lc->ret = ret;
		lc->state = ST_FINISHED;
		pthread_cond_broadcast(&lc->cond);
	}
	pthread_mutex_unlock(&lc->lock);
	return NULL;
}

/* Check the lcore list against the CPUs this process may use and pick
 * the main lcore; 0 or -EINVAL after logging. */
static int
lcores_choose(void)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	cpu_set_t allowed;
	int first = -1;

	if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0)
		CPU_ZERO(&allowed);
	if (!lr_eal_cfg_.lcores_set) {
		/* Default: every CPU this process may run on. */
		for (long c = 0; c < ncpu && c < LR_MAX_LCORE; c++)
			if (CPU_ISSET(c, &allowed))
				lr_eal_cfg_.lcore_cpu_set[c] = 1;
	}
	eal_lcore_count = 0;
	for (unsigned i = 0; i < LR_MAX_LCORE; i++) {
		if (!lr_eal_cfg_.lcore_cpu_set[i])
			continue;
		if (i >= (unsigned)ncpu || !CPU_ISSET(i, &allowed)) {
			LR_LOG(ERR, EAL,
			       "-l: lcore %u: no such CPU on this machine (or "
			       "not allowed for this process)\n",
			       i);
			return -EINVAL;
		}
		if (first < 0)
			first = (int)i;
		eal_lcore_count++;
	}
	if (first < 0) {
		LR_LOG(ERR, EAL, "-l: no lcore given\n");
		return -EINVAL;
	}
	if (lr_eal_cfg_.main_lcore < 0) {
		main_lcore = (unsigned)first;
		return 0;
	}
	if (!lr_eal_cfg_.lcore_cpu_set[lr_eal_cfg_.main_lcore]) {
		LR_LOG(ERR, EAL, "--main-lcore %d: not in the lcore list\n",
		       lr_eal_cfg_.main_lcore);
		return -EINVAL;
	}
	main_lcore = (unsigned)lr_eal_cfg_.main_lcore;
	return 0;
}

/* Claim the chosen lcores' table entries for the EAL; 0 or -EBUSY when a
 * registered thread holds one. */
static int
lcores_claim(void)
{
	pthread_mutex_lock(&lcore_table_lock);
	for (unsigned i = 0; i < LR_MAX_LCORE; i++) {
		if (!lr_eal_cfg_.lcore_cpu_set[i])
			continue;
		struct lcore *lc = &lcores[i];

		if (lc->role == ROLE_NON_EAL) {
			pthread_mutex_unlock(&lcore_table_lock);
			LR_LOG(ERR, EAL,
			       "lcore %u is held by a registered thread; call "
			       "lr_eal_init() first\n",
			       i);
			return -EBUSY;
		}
		lc->role = ROLE_EAL;
		lc->cpu = (int)i;
		lc->socket = cpu_socket((int)i);
		lc->state = ST_WAIT;
		pthread_mutex_init(&lc->lock, NULL);
		pthread_cond_init(&lc->cond, NULL);
	}
	pthread_mutex_unlock(&lcore_table_lock);
	return 0;
}

/* A worker lcore's thread, pinned to its CPU; 0 or a negative errno. */
static int
worker_start(unsigned w)
{
	struct lcore *lc = &lcores[w];
	pthread_attr_t attr;
	char name[16];
	cpu_set_t set;
	int rc;

	pthread_attr_init(&attr);
	CPU_ZERO(&set);
	CPU_SET(lc->cpu, &set);
	pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	rc = pthread_create(&lc->thread, &attr, worker_main, lc);
	pthread_attr_destroy(&attr);
	if (rc != 0) {
		LR_LOG(ERR, EAL, "lcore %u: cannot create thread: %s\n", w,
		       strerror(rc));
		lc->role = ROLE_OFF;
		return -rc;
	}
	snprintf(name, sizeof(name), "lcore-%u", w);
	pthread_setname_np(lc->thread, name);
	return 0;
}

int
lr_eal_lcores_start_(void)
{
	unsigned w;
	int rc;

	lr_eal_numa_init_();
	memset(lr_lcore_poll_tab_, 0, sizeof(lr_lcore_poll_tab_));
	rc = lcores_choose();
	if (rc == 0)
		rc = lcores_claim();
	if (rc != 0)
		return rc;
	lr_lcore_id_tls = main_lcore;
	main_cpuset_valid = pthread_getaffinity_np(pthread_self(),
						   sizeof(main_cpuset_saved),
						   &main_cpuset_saved) == 0;
	lr_thread_set_cpu(lcores[main_lcore].cpu);
	LR_LCORE_FOREACH_WORKER(w) {
		rc = worker_start(w);
		if (rc != 0) {
			lr_eal_lcores_stop_();
			return rc;
		}
	}
	return 0;
}

void
lr_eal_lcores_stop_(void)
{
	unsigned w;

	LR_LCORE_FOREACH_WORKER(w) {
		struct lcore *lc = &lcores[w];

		lr_eal_wait_lcore(w);
		pthread_mutex_lock(&lc->lock);
		lc->state = ST_EXIT;
		pthread_cond_broadcast(&lc->cond);
		pthread_mutex_unlock(&lc->lock);
		pthread_join(lc->thread, NULL);
	}
	pthread_mutex_lock(&lcore_table_lock);
	for (unsigned i = 0; i < LR_MAX_LCORE; i++)
		if (lcores[i].role == ROLE_EAL)
			lcores[i].role = ROLE_OFF;
	pthread_mutex_unlock(&lcore_table_lock);
	eal_lcore_count = 0;
	main_lcore = 0;
	lr_lcore_id_tls = LR_LCORE_ID_ANY;
	if (main_cpuset_valid)
		pthread_setaffinity_np(pthread_self(), sizeof(main_cpuset_saved),
				       &main_cpuset_saved);
	main_cpuset_valid = false;
}

int
lr_eal_remote_launch(lr_lcore_function_t f, void *arg, unsigned id)
{
	if (id >= LR_MAX_LCORE || lcores[id].role != ROLE_EAL ||
	    id == main_lcore || f == NULL)
		return -EINVAL;
	struct lcore *lc = &lcores[id];
	int rc = 0;

	pthread_mutex_lock(&lc->lock);
	if (lc->state != ST_WAIT) {
		rc = -EBUSY;
	} else {
		lc->f = f;
		lc->arg = arg;
		lc->state = ST_RUNNING;
		pthread_cond_broadcast(&lc->cond);
	}
	pthread_mutex_unlock(&lc->lock);
	return rc;
}

int
lr_eal_mp_remote_launch(lr_lcore_function_t f, void *arg, int call_main)
{
	unsigned w;

	LR_LCORE_FOREACH_WORKER(w) {
		if (lcores[w].state != ST_WAIT)
			return -EBUSY;
	}
	LR_LCORE_FOREACH_WORKER(w) {
		lr_eal_remote_launch(f, arg, w);
	}
	if (call_main)
		f(arg);
	return 0;
}

int
lr_eal_wait_lcore(unsigned id)
{
	if (id >= LR_MAX_LCORE || lcores[id].role != ROLE_EAL ||
	    id == main_lcore)
		return 0;
	struct lcore *lc = &lcores[id];
	int ret = 0;

	pthread_mutex_lock(&lc->lock);
	while (lc->state == ST_RUNNING)
		pthread_cond_wait(&lc->cond, &lc->lock);
	if (lc->state == ST_FINISHED) {
		ret = lc->ret;
		lc->state = ST_WAIT;
	}
	pthread_mutex_unlock(&lc->lock);
	return ret;
}

void
lr_eal_mp_wait_lcore(void)
{
	unsigned w;

	LR_LCORE_FOREACH_WORKER(w) {
		lr_eal_wait_lcore(w);
	}
}

int
lr_thread_register(void)
{
	unsigned cur = lr_lcore_id();

	if (cur != LR_LCORE_ID_ANY)
		return (int)cur;
	int cpu = sched_getcpu();

	pthread_mutex_lock(&lcore_table_lock);
	for (unsigned i = 0; i < LR_MAX_LCORE; i++) {
		if (lcores[i].role != ROLE_OFF)
			continue;
		lcores[i].role = ROLE_NON_EAL;
		lcores[i].cpu = -1;
		lcores[i].socket = cpu_socket(cpu);
		pthread_mutex_unlock(&lcore_table_lock);
		lr_lcore_id_tls = i;
		return (int)i;
	}
	pthread_mutex_unlock(&lcore_table_lock);
	LR_LOG(ERR, EAL, "lr_thread_register: all %d lcore ids are in use\n",
	       LR_MAX_LCORE);
	return -ENOSPC;
}

void
lr_thread_unregister(void)
{
	unsigned id = lr_lcore_id();

	if (id >= LR_MAX_LCORE || lcores[id].role != ROLE_NON_EAL)
		return;
	for (unsigned i = 0; i < nb_release_cbs; i++)
		release_cbs[i].cb(id, release_cbs[i].arg);
	pthread_mutex_lock(&lcore_table_lock);
	lcores[id].role = ROLE_OFF;
	pthread_mutex_unlock(&lcore_table_lock);
	lr_lcore_id_tls = LR_LCORE_ID_ANY;
}

int
lr_lcore_on_release(void (*cb)(unsigned, void *), void *arg)
{
	int rc = 0;

	pthread_mutex_lock(&lcore_table_lock);
	if (nb_release_cbs == MAX_RELEASE_CB) {
		rc = -ENOSPC;
	} else {
		release_cbs[nb_release_cbs].cb = cb;
		release_cbs[nb_release_cbs].arg = arg;
		nb_release_cbs++;
	}
	pthread_mutex_unlock(&lcore_table_lock);
	return rc;
}
