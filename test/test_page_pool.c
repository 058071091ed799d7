/* SPDX-License-Identifier: BSD-3-Clause */
/* Page pool: bad parameters, direct recycle, the bound, a flood of puts
 * from another thread, map/unmap/sync callbacks, the shrinker (called
 * directly and under real allocator pressure), ownership errors in a
 * checked pool, deferred destroy. LR_TEST_SCALE (0 < s <= 1) shortens the
 * long cases. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lr_eal.h"
#include "lr_page_pool.h"
#include "lr_pagealloc.h"
#include "lr_ring.h"
#include "lr_test.h"
#include "lr_test_pagealloc.h"
#include "pagealloc_test.h"

static double scale = 1.0;
static int fake_nodes;

static int
setup(void)
{
	static int done;
	static char prefix[64];
	char *argv[] = {"test_page_pool", "--no-huge", "-m", "64", "-l", "0",
			prefix,		  NULL};
	const char *s = getenv("LR_TEST_SCALE");

	if (done)
		return 0;
	/* Per process, so that two builds' runs never share a prefix. */
	snprintf(prefix, sizeof(prefix), "--file-prefix=test_page_pool_%d",
		 (int)getpid());
	if (s != NULL && atof(s) > 0 && atof(s) <= 1)
		scale = atof(s);
	/* Two fake NUMA nodes of 32 MiB each, for the foreign-page case. */
	fake_nodes = lr_pagealloc_test_fake_nodes(2) == 0;
	if (lr_eal_init(7, argv) < 0)
		return -1;
	done = 1;
	return 0;
}

static unsigned
scaled(unsigned n)
{
	unsigned v = (unsigned)(n * scale);

	return v ? v : 1;
}

/* ---- log capture ---- */

static struct lr_page_pool_params
params(const char *name, unsigned size)
{
	struct lr_page_pool_params p = {
	    .name = name,
	    .pool_size = size,
	    .nid = LR_SOCKET_ID_ANY,
	    .owner_lcore = LR_LCORE_ID_ANY,
	    .flags = LR_PP_FLAG_DMA_MAP,
	    .dma_dir = LR_DMA_FROM_DEVICE,
	};

	return p;
}

static uint64_t
stat_errors(struct lr_page_pool *pool)
{
	struct lr_page_pool_stats s;

	lr_page_pool_stats_get(pool, &s);
	return s.errors;
}

/* ---- cases ---- */

static int
dummy_map(void *arg, struct lr_page *page, unsigned order, enum lr_dma_dir dir,
	  uint64_t *dma)
{
	*dma = lr_page_iova(page);
	return 0;
}

static void
dummy_unmap(void *arg, struct lr_page *page, unsigned order, uint64_t dma,
	    enum lr_dma_dir dir)
{
}

struct bad_case {
	struct lr_page_pool_params p;
	const char *msg;
};

static void *
create_unregistered(void *arg)
{
	struct lr_page_pool_params p = params("unreg", 16);

	*(struct lr_page_pool **)arg = lr_page_pool_create(&p);
	return NULL;
}

static int
test_bad_params(void)
{
	struct lr_page_pool_params base = params("bad", 64);
	struct bad_case cases[16];
	const char *log;
	unsigned n = 0;

	LR_TEST_ASSERT(setup() == 0, "EAL init failed");
#define CASE(field_change, text)                                               \
	do {                                                                   \
		cases[n].p = base;                                             \
		{                                                              \
			struct lr_page_pool_params *q = &cases[n].p;           \
			field_change;                                          \
		}                                                              \
		cases[n++].msg = text;                                         \
	} while (0)
	CASE(q->order = LR_MAX_ORDER, "order 11 > max 10");
	CASE(q->pool_size = 0, "pool size 0");
	CASE(q->pool_size = 1u << 30, "pool size 1073741824 > max");
	CASE(q->ring_size = 65, "ring size 65 > pool size 64");
	CASE(q->flags |= 0x100, "unknown flags 0x100");
	CASE(q->dma_dir = (enum lr_dma_dir)7, "DMA direction 7 unknown");
	CASE((q->flags = LR_PP_FLAG_DMA_SYNC_DEV, q->max_len = 64),
	     "LR_PP_FLAG_DMA_SYNC_DEV needs LR_PP_FLAG_DMA_MAP");
	CASE(q->flags |= LR_PP_FLAG_DMA_SYNC_DEV, "with max_len 0");
	CASE((q->flags |= LR_PP_FLAG_DMA_SYNC_DEV, q->offset = 256,
	      q->max_len = (unsigned)LR_PAGE_SIZE),
	     "offset 256 + max_len");
	CASE((q->flags = 0, q->map = dummy_map),
	     "callbacks given without LR_PP_FLAG_DMA_MAP");
	CASE(q->unmap = dummy_unmap, "unmap callback without a map callback");
	CASE(q->nid = 57, "NUMA node 57 has no memory zone");
	CASE(q->owner_lcore = LR_MAX_LCORE + 3, "owner lcore");
	CASE(q->name = "a-name-that-is-much-too-long-for-a-pool",
	     "name longer than 31");
#undef CASE
	for (unsigned i = 0; i < n; i++) {
		struct lr_page_pool *pool;

		lr_test_log_begin();
		lr_errno = 0;
		pool = lr_page_pool_create(&cases[i].p);
		log = lr_test_log_end();
		LR_TEST_ASSERT(pool == NULL, "case %u (%s) created a pool", i,
			       cases[i].msg);
		LR_TEST_ASSERT_EQ(lr_errno, EINVAL);
		LR_TEST_ASSERT(strstr(log, cases[i].msg) != NULL,
			       "case %u: log '%s' lacks '%s'", i, log,
			       cases[i].msg);
	}
	/* A thread without an lcore id cannot own a pool by default. */
	struct lr_page_pool *pool = (struct lr_page_pool *)1;
	pthread_t t;

	lr_test_log_begin();
	pthread_create(&t, NULL, create_unregistered, &pool);
	pthread_join(t, NULL);
	log = lr_test_log_end();
	LR_TEST_ASSERT(pool == NULL, "unregistered thread owns a pool");
	LR_TEST_ASSERT(strstr(log, "not an lcore") != NULL, "log: %s", log);
	lr_test_log_begin();
	pool = lr_page_pool_create(NULL);
	log = lr_test_log_end();
	LR_TEST_ASSERT(pool == NULL && strstr(log, "no parameters") != NULL,
		       "NULL params: %s", log);
	return 0;
}

static int
test_direct_recycle(void)
{
	struct lr_page_pool_params p = params("direct", 512);
	struct lr_page *pages[200], *again[200];
	struct lr_page_pool_stats s;
	struct lr_page_pool *pool;
	const unsigned n = 200;

	LR_TEST_ASSERT(setup() == 0, "EAL init failed");
	pool = lr_page_pool_create(&p);
	LR_TEST_ASSERT(pool != NULL, "create: %s", lr_strerror(lr_errno));
	LR_TEST_ASSERT_EQ(lr_page_pool_validate(pool), 0);
	for (unsigned i = 0; i < n; i++) {
		pages[i] = lr_page_pool_alloc(pool);
		LR_TEST_ASSERT(pages[i] != NULL, "alloc %u: %s", i,
			       lr_strerror(lr_errno));
		LR_TEST_ASSERT_EQ(lr_page_pool_get_dma_addr(pool, pages[i]),
				  lr_page_iova(pages[i]));
		LR_TEST_ASSERT_EQ(lr_page_node(pages[i]), pool->nid);
		for (unsigned j = 0; j < i; j++)
			LR_TEST_ASSERT(pages[j] != pages[i],
				       "page %u handed out twice", i);
		memset(lr_page_address(pages[i]), (int)i, LR_PAGE_SIZE);
	}
	lr_page_pool_stats_get(pool, &s);
	LR_TEST_ASSERT_EQ(s.alloc.slow, 4); /* 4 bulk refills of 64 */
	LR_TEST_ASSERT_EQ(s.alloc.fast, n - 4);
	LR_TEST_ASSERT_EQ(s.held, 256);
	LR_TEST_ASSERT_EQ(s.in_flight, n);
	LR_TEST_ASSERT_EQ(s.cached, 56);
	LR_TEST_ASSERT_EQ(lr_page_pool_validate(pool), 0);

	/* Direct puts fill the cache to 128; the rest spill into the ring. */
	for (unsigned i = 0; i < n; i++)
		lr_page_pool_put(pool, pages[i], LR_PAGE_SIZE, 1);
	lr_page_pool_stats_get(pool, &s);
	LR_TEST_ASSERT_EQ(s.recycle.cached, 128 - 56);
	LR_TEST_ASSERT_EQ(s.recycle.cache_full, n - (128 - 56));
	LR_TEST_ASSERT_EQ(s.recycle.ring, n - (128 - 56));
	LR_TEST_ASSERT_EQ(s.in_flight, 0);
	LR_TEST_ASSERT_EQ(s.held, 256);
	LR_TEST_ASSERT_EQ(lr_page_pool_validate(pool), 0);

	/* Everything comes back from the cache and the ring: no allocator. */
	for (unsigned i = 0; i < n; i++) {
		again[i] = lr_page_pool_alloc(pool);
		LR_TEST_ASSERT(again[i] != NULL, "realloc %u", i);
	}
	lr_page_pool_stats_get(pool, &s);
	LR_TEST_ASSERT_EQ(s.alloc.slow, 4);
	LR_TEST_ASSERT(s.alloc.refill >= 1, "no refill from the ring");
	LR_TEST_ASSERT_EQ(s.held, 256);
	for (unsigned i = 0; i < n; i++)
		lr_page_pool_put(pool, again[i], 0, 1);
	LR_TEST_ASSERT_EQ(lr_page_pool_validate(pool), 0);

	/* A pool page may not be freed behind the pool's back. */
	struct lr_page *pg = lr_page_pool_alloc(pool);
	const char *log;

	lr_test_log_begin();
	lr_free_pages(pg, 0);
	log = lr_test_log_end();
	LR_TEST_ASSERT(strstr(log, "direct") != NULL,
		       "plain free of a pool page not refused: '%s'", log);
	lr_page_pool_put(pool, pg, 0, 1);
	LR_TEST_ASSERT_EQ(lr_page_pool_validate(pool), 0);

	char *dump = NULL;
	size_t dlen;
	FILE *f = open_memstream(&dump, &dlen);

	lr_page_pool_dump(f, pool);
	fclose(f);
	LR_TEST_ASSERT(strstr(dump, "alloc: fast") != NULL &&
			   strstr(dump, "in flight 0") != NULL,
		       "dump: %s", dump);
	free(dump);
	lr_page_pool_free(pool);
	LR_TEST_ASSERT_EQ(lr_page_pool_pending_count(), 0);
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	return 0;
}

/* Allocate from a thread that is not the owner until the bound, put all
 * back through the ring; a[1] gets the count. */
static void *
remote_alloc(void *arg)
{
	void **a = arg;
	struct lr_page_pool *pool = a[0];
	struct lr_page *pages[128];
	unsigned n = 0;

	while (n < 128 && (pages[n] = lr_page_pool_alloc(pool)) != NULL)
		n++;
	for (unsigned i = 0; i < n; i++)
		lr_page_pool_put(pool, pages[i], 0, 1);
	a[1] = (void *)(uintptr_t)n;
	return NULL;
}

static int
test_bound(void)
{
	struct lr_page_pool_params p = params("bound", 100);
	struct lr_page *pages[100];
	struct lr_page_pool_stats s;
	struct lr_page_pool *pool;

	LR_TEST_ASSERT(setup() == 0, "EAL init failed");
	pool = lr_page_pool_create(&p);
	LR_TEST_ASSERT(pool != NULL, "create");
	for (unsigned i = 0; i < 100; i++) {
		pages[i] = lr_page_pool_alloc(pool);
		LR_TEST_ASSERT(pages[i] != NULL, "alloc %u", i);
	}
	lr_errno = 0;
	LR_TEST_ASSERT(lr_page_pool_alloc(pool) == NULL, "101st page");
	LR_TEST_ASSERT_EQ(lr_errno, ENOBUFS);
	lr_page_pool_stats_get(pool, &s);
	LR_TEST_ASSERT_EQ(s.held, 100);
	LR_TEST_ASSERT_EQ(s.alloc.exhausted, 1);
	LR_TEST_ASSERT_EQ(lr_page_pool_validate(pool), 0);
	/* Half back through the ring, half directly; then all out again. */
	for (unsigned i = 0; i < 100; i++)
		lr_page_pool_put(pool, pages[i], 0, i & 1);
	for (unsigned i = 0; i < 100; i++)
		LR_TEST_ASSERT((pages[i] = lr_page_pool_alloc(pool)) != NULL,
			       "realloc %u", i);
	LR_TEST_ASSERT(lr_page_pool_alloc(pool) == NULL, "bound passed");
	for (unsigned i = 0; i < 100; i++)
		lr_page_pool_release_page(pool, pages[i]);
	lr_page_pool_stats_get(pool, &s);
	LR_TEST_ASSERT_EQ(s.held, 0);
	LR_TEST_ASSERT_EQ(s.recycle.released_refcnt, 100);
	/* Another thread may allocate too (slow, shared path); bound holds. */
	void *ra[2] = {pool, NULL};
	pthread_t t;

	pthread_create(&t, NULL, remote_alloc, ra);
	pthread_join(t, NULL);
	LR_TEST_ASSERT(ra[1] == (void *)100, "remote thread got %lu pages",
		       (unsigned long)(uintptr_t)ra[1]);
	lr_page_pool_stats_get(pool, &s);
	LR_TEST_ASSERT_EQ(s.alloc.remote, 100);
	LR_TEST_ASSERT_EQ(s.held, 100);
	LR_TEST_ASSERT_EQ(s.in_flight, 0);
	LR_TEST_ASSERT_EQ(s.ringed, 100);
	LR_TEST_ASSERT_EQ(lr_page_pool_validate(pool), 0);
	lr_page_pool_free(pool);
	return 0;
}

/* ---- another lcore's stash ---- */

/* A registered thread (an lcore id, not the owner) puts a[2] pages of
 * a[1] singly, so that they go through its stash. */
static void *
stash_putter(void *arg)
{
	void **a = arg;
	struct lr_page_pool *pool = a[0];
	struct lr_page **pages = a[1];
	unsigned n = (unsigned)(uintptr_t)a[2];

	if (lr_thread_register() < 0)
		return NULL;
	for (unsigned i = 0; i < n; i++)
		lr_page_pool_put(pool, pages[i], 0, 0);
	lr_thread_unregister();
	a[0] = NULL;
	return NULL;
}

static int
stash_put(struct lr_page_pool *pool, struct lr_page **pages, unsigned n)
{
	void *a[3] = {pool, pages, (void *)(uintptr_t)n};
	pthread_t t;

	pthread_create(&t, NULL, stash_putter, a);
	pthread_join(t, NULL);
	return a[0] == NULL ? 0 : -1;
}

/* Single puts from another lcore wait in its stash, LR_PP_STASH at a time
 * into the ring; they count as returned; an alloc at the bound, the
 * shrinker and destroy take them over. */
static int
test_stash(void)
{
	struct lr_page_pool_params p = params("stash", 100);
	struct lr_page *pages[100];
	struct lr_page_pool_stats s;
	struct lr_page_pool *pool;
	unsigned left = 100 % LR_PP_STASH;

	LR_TEST_ASSERT(setup() == 0, "EAL init failed");
	pool = lr_page_pool_create(&p);
	LR_TEST_ASSERT(pool != NULL, "create");
	for (unsigned round = 0; round < 2; round++) {
		for (unsigned i = 0; i < 100; i++)
			LR_TEST_ASSERT((pages[i] = lr_page_pool_alloc(pool)) !=
					   NULL,
				       "round %u: alloc %u: %s", round, i,
				       lr_strerror(lr_errno));
		LR_TEST_ASSERT(lr_page_pool_alloc(pool) == NULL,
			       "bound passed");
		LR_TEST_ASSERT_EQ(lr_errno, ENOBUFS);
		LR_TEST_ASSERT_EQ(stash_put(pool, pages, 100), 0);
		lr_page_pool_stats_get(pool, &s);
		LR_TEST_ASSERT_EQ(s.stashed, left);
		LR_TEST_ASSERT_EQ(s.ringed, 100 - left);
		LR_TEST_ASSERT_EQ(s.recycle.ring, (round + 1) * 100 - left);
		LR_TEST_ASSERT_EQ(s.in_flight, 0);
		LR_TEST_ASSERT_EQ(lr_page_pool_validate(pool), 0);
		/* The next round's allocs need the stashed pages too: the
		 * one that finds the pool at its bound takes them. */
	}
	/* The shrinker empties the stash with the ring. */
	LR_TEST_ASSERT_EQ(lr_page_pool_shrink(pool, LR_SOCKET_ID_ANY, 1000),
			  100u);
	lr_page_pool_stats_get(pool, &s);
	LR_TEST_ASSERT_EQ(s.stashed, 0);
	LR_TEST_ASSERT_EQ(s.held, 0);
	LR_TEST_ASSERT_EQ(lr_page_pool_validate(pool), 0);
	/* Destroy with pages in a stash: they are given back at once. */
	for (unsigned i = 0; i < 10; i++)
		LR_TEST_ASSERT((pages[i] = lr_page_pool_alloc(pool)) != NULL,
			       "alloc %u", i);
	LR_TEST_ASSERT_EQ(stash_put(pool, pages, 10), 0);
	lr_page_pool_stats_get(pool, &s);
	LR_TEST_ASSERT_EQ(s.stashed, 10);
	lr_page_pool_free(pool);
	LR_TEST_ASSERT_EQ(lr_page_pool_pending_count(), 0);
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	return 0;
}

/* ---- a flood of puts from another thread ---- */

struct flood {
	struct lr_page_pool *pool;
	struct lr_ring *hand; /* owner -> putter */
	_Atomic int stop;
	_Atomic unsigned long put;
	int registered;
};

static void *
flood_putter(void *arg)
{
	struct flood *fl = arg;
	void *objs[32];

	/* pthread_create() copied the owner's pinning to CPU 0: run
	 * anywhere, so that the flood really runs beside the owner. */
	cpu_set_t all;

	CPU_ZERO(&all);
	for (long c = 0; c < sysconf(_SC_NPROCESSORS_ONLN) && c < CPU_SETSIZE;
	     c++)
		CPU_SET(c, &all);
	pthread_setaffinity_np(pthread_self(), sizeof(all), &all);
	if (fl->registered)
		lr_thread_register();
	for (;;) {
		unsigned n = lr_ring_sc_dequeue_burst(fl->hand, objs, 32, NULL);

		if (n == 0) {
			if (atomic_load(&fl->stop) &&
			    lr_ring_count(fl->hand) == 0)
				break;
			sched_yield(); /* the owner may share our CPU */
			continue;
		}
		/* allow_direct is ignored off the owner lcore. */
		if (n & 1)
			for (unsigned i = 0; i < n; i++)
				lr_page_pool_put(fl->pool, objs[i], 0, i & 1);
		else
			lr_page_pool_put_bulk(fl->pool, (struct lr_page **)objs,
					      n, 0, 1);
		atomic_fetch_add(&fl->put, n);
	}
	if (fl->registered)
		lr_thread_unregister();
	return NULL;
}

static int
flood_run(int registered, unsigned ring_size)
{
	struct lr_page_pool_params p = params(NULL, 512);
	struct lr_page_pool_stats s;
	struct flood fl = {.registered = registered};
	unsigned long sent = 0, target = scaled(400000);
	uint64_t max_held = 0;
	pthread_t t;

	p.ring_size = ring_size;
	fl.pool = lr_page_pool_create(&p);
	LR_TEST_ASSERT(fl.pool != NULL, "create");
	fl.hand = lr_ring_create(registered ? "pp_flood_r" : "pp_flood_u", 1024,
				 0, LR_RING_F_SP_ENQ | LR_RING_F_SC_DEQ);
	LR_TEST_ASSERT(fl.hand != NULL, "hand ring");
	pthread_create(&t, NULL, flood_putter, &fl);
	while (sent < target) {
		struct lr_page *pg = lr_page_pool_alloc(fl.pool);

		if (pg == NULL) {
			LR_TEST_ASSERT(lr_errno == ENOBUFS, "alloc: %s",
				       lr_strerror(lr_errno));
			sched_yield(); /* all pages are with the putter */
			continue;
		}
		/* Some go straight back (owner, direct), most to the
		 * other thread. */
		if ((sent & 7) == 0) {
			lr_page_pool_put(fl.pool, pg, 0, 1);
		} else {
			while (lr_ring_sp_enqueue_burst(fl.hand, (void **)&pg,
							1, NULL) == 0)
				sched_yield();
		}
		sent++;
		if ((sent & 255) == 0) {
			lr_page_pool_stats_get(fl.pool, &s);
			max_held = LR_MAX(max_held, s.held);
			LR_TEST_ASSERT(s.held <= 512, "held %lu > 512",
				       (unsigned long)s.held);
		}
	}
	atomic_store(&fl.stop, 1);
	pthread_join(t, NULL);
	lr_page_pool_stats_get(fl.pool, &s);
	LR_TEST_ASSERT(s.held <= 512, "held %lu", (unsigned long)s.held);
	LR_TEST_ASSERT_EQ(s.in_flight, 0);
	LR_TEST_ASSERT_EQ(s.allocated, sent);
	LR_TEST_ASSERT(s.recycle.ring > 0, "nothing went through the ring");
	LR_TEST_ASSERT(s.alloc.refill > 0, "no refill from the ring");
	if (ring_size != 0 && ring_size < 128)
		LR_TEST_ASSERT(s.recycle.ring_full > 0, "ring never full");
	LR_TEST_ASSERT_EQ(lr_page_pool_validate(fl.pool), 0);
	printf("  flood (%s putter, ring %u): %lu pages, max held %lu, "
	       "ring %lu, ring_full %lu, slow %lu\n",
	       registered ? "lcore" : "non-lcore", ring_size, sent,
	       (unsigned long)max_held, (unsigned long)s.recycle.ring,
	       (unsigned long)s.recycle.ring_full, (unsigned long)s.alloc.slow);
	lr_page_pool_free(fl.pool);
	lr_ring_free(fl.hand);
	return 0;
}

static int
test_flood_from_other_thread(void)
{
	LR_TEST_ASSERT(setup() == 0, "EAL init failed");
	if (flood_run(1, 0) != 0)
		return -1;
	if (flood_run(0, 32) != 0)
		return -1;
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	return 0;
}

/* ---- callbacks ---- */

struct cb_count {
	unsigned maps, unmaps, syncs_dev, syncs_cpu;
	unsigned last_len;
	uint64_t last_dma;
};

static int
count_map(void *arg, struct lr_page *page, unsigned order, enum lr_dma_dir dir,
	  uint64_t *dma)
{
	struct cb_count *c = arg;

	c->maps++;
	*dma = lr_page_iova(page) | (1ULL << 62);
	return 0;
}

static void
count_unmap(void *arg, struct lr_page *page, unsigned order, uint64_t dma,
	    enum lr_dma_dir dir)
{
	struct cb_count *c = arg;

	if (dma == (lr_page_iova(page) | (1ULL << 62)))
		c->unmaps++;
}

static void
count_sync_dev(void *arg, uint64_t dma, unsigned len, enum lr_dma_dir dir)
{
	struct cb_count *c = arg;

	c->syncs_dev++;
	c->last_dma = dma;
	c->last_len = len;
}

static void
count_sync_cpu(void *arg, uint64_t dma, unsigned len, enum lr_dma_dir dir)
{
	struct cb_count *c = arg;

	c->syncs_cpu++;
	c->last_dma = dma;
	c->last_len = len;
}

static int
test_callbacks(void)
{
	struct lr_page_pool_params p = params("cb", 128);
	struct cb_count c = {0};
	struct lr_page_pool *pool;
	struct lr_page *pg;

	LR_TEST_ASSERT(setup() == 0, "EAL init failed");
	p.flags = LR_PP_FLAG_DMA_MAP | LR_PP_FLAG_DMA_SYNC_DEV;
	p.offset = 128;
	p.max_len = 1500;
	p.map = count_map;
	p.unmap = count_unmap;
	p.sync_for_device = count_sync_dev;
	p.sync_for_cpu = count_sync_cpu;
	p.cb_arg = &c;
	pool = lr_page_pool_create(&p);
	LR_TEST_ASSERT(pool != NULL, "create");
	pg = lr_page_pool_alloc(pool);
	LR_TEST_ASSERT(pg != NULL, "alloc");
	LR_TEST_ASSERT_EQ(c.maps, 64);	    /* one bulk, mapped once each */
	LR_TEST_ASSERT_EQ(c.syncs_dev, 64); /* synced for the device on entry */
	LR_TEST_ASSERT_EQ(lr_page_pool_get_dma_addr(pool, pg),
			  lr_page_iova(pg) | (1ULL << 62));
	LR_TEST_ASSERT_EQ(lr_page_pool_sync_for_cpu(pool, pg, 128, 60), 0);
	LR_TEST_ASSERT_EQ(c.syncs_cpu, 1);
	LR_TEST_ASSERT_EQ(c.last_dma,
			  lr_page_pool_get_dma_addr(pool, pg) + 128);
	/* Recycling syncs min(len, max_len) from offset, maps nothing. */
	lr_page_pool_put(pool, pg, 9000, 1);
	LR_TEST_ASSERT_EQ(c.syncs_dev, 65);
	LR_TEST_ASSERT_EQ(c.last_len, 1500);
	pg = lr_page_pool_alloc(pool);
	lr_page_pool_put(pool, pg, 60, 0);
	LR_TEST_ASSERT_EQ(c.last_len, 60);
	LR_TEST_ASSERT_EQ(c.maps, 64);
	LR_TEST_ASSERT_EQ(lr_page_pool_validate(pool), 0);
	lr_page_pool_free(pool);
	LR_TEST_ASSERT_EQ(c.unmaps, 64);
	return 0;
}

/* ---- shrinker ---- */

static int
fill_cache_and_ring(struct lr_page_pool *pool, unsigned n_direct,
		    unsigned n_ring)
{
	struct lr_page *pages[512];

	for (unsigned i = 0; i < n_direct + n_ring; i++)
		LR_TEST_ASSERT((pages[i] = lr_page_pool_alloc(pool)) != NULL,
			       "alloc %u", i);
	for (unsigned i = 0; i < n_direct; i++)
		lr_page_pool_put(pool, pages[i], 0, 1);
	for (unsigned i = n_direct; i < n_direct + n_ring; i++)
		lr_page_pool_recycle(pool, pages[i]);
	return 0;
}

static int
test_shrinker_direct(void)
{
	struct lr_page_pool_params p = params("shrink", 512);
	struct lr_page_pool_stats s;
	struct lr_page_pool *pool;
	struct lr_page *pg;

	LR_TEST_ASSERT(setup() == 0, "EAL init failed");
	pool = lr_page_pool_create(&p);
	LR_TEST_ASSERT(pool != NULL, "create");
	if (fill_cache_and_ring(pool, 100, 200) != 0)
		return -1;
	lr_page_pool_stats_get(pool, &s);
	LR_TEST_ASSERT_EQ(s.ringed, 200);
	LR_TEST_ASSERT(s.cached >= 100, "cached %lu", (unsigned long)s.cached);
	uint64_t held0 = s.held, cached0 = s.cached;

	/* Another node's pressure is not ours. */
	LR_TEST_ASSERT_EQ(lr_page_pool_shrink(pool, pool->nid + 1, 1000), 0);
	/* The shrinker frees ring pages at once and asks for the cache. */
	LR_TEST_ASSERT_EQ(lr_page_pool_shrink(pool, LR_SOCKET_ID_ANY, 50), 50);
	LR_TEST_ASSERT_EQ(lr_page_pool_shrink(pool, LR_SOCKET_ID_ANY, 1000),
			  150);
	lr_page_pool_stats_get(pool, &s);
	LR_TEST_ASSERT_EQ(s.ringed, 0);
	LR_TEST_ASSERT_EQ(s.held, held0 - 200);
	LR_TEST_ASSERT_EQ(s.recycle.shrunk, 200);
	LR_TEST_ASSERT_EQ(s.cached, cached0); /* not touched by the shrinker */
	/* The owner's next call gives its cache back. */
	pg = lr_page_pool_alloc(pool);
	LR_TEST_ASSERT(pg != NULL, "alloc");
	lr_page_pool_stats_get(pool, &s);
	LR_TEST_ASSERT_EQ(s.cached, LR_PP_SHRINK_KEEP - 1);
	LR_TEST_ASSERT_EQ(s.alloc.shrunk, cached0 - LR_PP_SHRINK_KEEP);
	LR_TEST_ASSERT_EQ(s.held, LR_PP_SHRINK_KEEP);
	/* And the fast path is open again (checked pools never open it). */
	if (!pool->checked)
		LR_TEST_ASSERT_EQ(atomic_load(&pool->alloc_lcore),
				  lr_lcore_id());
	lr_page_pool_put(pool, pg, 0, 1);
	LR_TEST_ASSERT_EQ(lr_page_pool_validate(pool), 0);
	lr_page_pool_free(pool);
	return 0;
}

static int
test_shrinker_under_pressure(void)
{
	struct lr_page_pool_params p = params("pressure", 1024);
	struct lr_pagealloc_zone_info zi;
	struct lr_page_pool_stats s;
	struct lr_page_pool *pool;
	struct lr_test_hog hog;
	unsigned n_ring;

	LR_TEST_ASSERT(setup() == 0, "EAL init failed");
	pool = lr_page_pool_create(&p);
	LR_TEST_ASSERT(pool != NULL, "create");
	LR_TEST_ASSERT_EQ(lr_pagealloc_zone_info(pool->nid, &zi), 0);
	/* 128 cached and up to 384 in the ring, all from this node: at most
	 * half of what it has free (64 KiB pages leave fewer), a multiple of
	 * the refill batch so that no refilled page is left over. */
	n_ring = (unsigned)LR_MIN(384UL, zi.free / 2 - 128);
	n_ring -= n_ring % LR_PP_REFILL;
	LR_TEST_ASSERT(zi.free / 2 >= 128 + 64, "node %d: %lu pages free",
		       pool->nid, zi.free);
	if (fill_cache_and_ring(pool, 128, n_ring) != 0)
		return -1;
	lr_page_pool_stats_get(pool, &s);
	LR_TEST_ASSERT_EQ(s.ringed, n_ring);
	/* Eat the pool's zone (this node only) until the allocator runs
	 * short: it must call the pool's shrinker on the way down. */
	if (lr_test_hog_node(&hog, pool->nid, (unsigned)zi.pages) != 0)
		return -1;
	lr_page_pool_stats_get(pool, &s);
	lr_test_hog_free(&hog);
	printf("  took %u of %lu pages; shrinker freed %lu ring pages\n", hog.n,
	       zi.pages, (unsigned long)s.recycle.shrunk);
	LR_TEST_ASSERT(s.recycle.shrunk > 0, "shrinker never ran");
	LR_TEST_ASSERT(s.ringed < n_ring, "ring not drained");
	/* With the ring emptied the shrinker asked for the cache: the owner
	 * hands it back at its next call. */
	if (s.ringed == 0) {
		lr_page_pool_put(pool, lr_page_pool_alloc(pool), 0, 1);
		lr_page_pool_stats_get(pool, &s);
		LR_TEST_ASSERT(s.cached <= LR_PP_SHRINK_KEEP, "cache %lu kept",
			       (unsigned long)s.cached);
	}
	LR_TEST_ASSERT_EQ(lr_page_pool_validate(pool), 0);
	lr_page_pool_free(pool);
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	return 0;
}

/* ---- bulk allocation from any thread ---- */

static int
test_alloc_bulk(void)
{
	struct lr_page_pool_params p = params("bulk", 100);
	struct lr_page_pool_stats s;
	struct lr_page_pool *pool;
	struct lr_page *pages[128];
	unsigned got;

	LR_TEST_ASSERT(setup() == 0, "EAL init failed");
	pool = lr_page_pool_create(&p);
	LR_TEST_ASSERT(pool != NULL, "create");
	LR_TEST_ASSERT_EQ(lr_page_pool_alloc_bulk(pool, pages, 64), 64);
	/* The bound: 36 more, then none (ENOBUFS). */
	got = lr_page_pool_alloc_bulk(pool, pages + 64, 64);
	LR_TEST_ASSERT_EQ(got, 36);
	LR_TEST_ASSERT_EQ(lr_page_pool_alloc_bulk(pool, pages + 100, 8), 0);
	LR_TEST_ASSERT_EQ(lr_errno, ENOBUFS);
	for (unsigned i = 0; i < 100; i++) {
		LR_TEST_ASSERT_EQ(lr_page_pool_get_dma_addr(pool, pages[i]),
				  lr_page_iova(pages[i]));
		LR_TEST_ASSERT_EQ(lr_page_node(pages[i]), pool->nid);
	}
	lr_page_pool_stats_get(pool, &s);
	LR_TEST_ASSERT_EQ(s.alloc.remote, 100);
	LR_TEST_ASSERT_EQ(s.in_flight, 100);
	LR_TEST_ASSERT_EQ(s.cached, 0); /* never the owner's cache */
	/* Pages put into the ring come back from it first. */
	lr_page_pool_put_bulk(pool, pages, 10, 0, 0);
	LR_TEST_ASSERT_EQ(lr_page_pool_alloc_bulk(pool, pages, 10), 10);
	for (unsigned i = 0; i < 100; i++)
		lr_page_pool_release_page(pool, pages[i]);
	lr_page_pool_stats_get(pool, &s);
	LR_TEST_ASSERT_EQ(s.held, 0);
	LR_TEST_ASSERT_EQ(lr_page_pool_validate(pool), 0);
	lr_page_pool_free(pool);
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	return 0;
}

/* ---- ownership (checked pool) ---- */

static int
test_ownership_errors(void)
{
	struct lr_page_pool_params p = params("own", 64);
	struct lr_page_pool_params q = params("own-tx", 64);
	struct lr_page_pool *pool, *other, *tx;
	struct lr_page *pg, *pg2, *foreign;
	const char *log;
	uint64_t e;

	LR_TEST_ASSERT(setup() == 0, "EAL init failed");
	p.flags |= LR_PP_FLAG_CHECK;
	pool = lr_page_pool_create(&p);
	other = lr_page_pool_create(&p);
	LR_TEST_ASSERT(pool != NULL && other != NULL, "create");

	/* Normal life: device-owned at alloc, CPU after sync, put. */
	pg = lr_page_pool_alloc(pool);
	LR_TEST_ASSERT(pg != NULL, "alloc");
	LR_TEST_ASSERT_EQ(lr_page_pool_page_state(pool, pg),
			  LR_PP_STATE_DEVICE);
	LR_TEST_ASSERT_EQ(lr_page_pool_sync_for_cpu(pool, pg, 0, 64), 0);
	LR_TEST_ASSERT_EQ(lr_page_pool_page_state(pool, pg), LR_PP_STATE_CPU);
	memset(lr_page_address(pg), 1, 64);
	lr_page_pool_put(pool, pg, 64, 1);
	LR_TEST_ASSERT_EQ(lr_page_pool_page_state(pool, pg), LR_PP_STATE_POOL);
	LR_TEST_ASSERT_EQ(stat_errors(pool), 0);

	/* Double put: reported and refused. */
	lr_test_log_begin();
	lr_page_pool_put(pool, pg, 0, 1);
	log = lr_test_log_end();
	LR_TEST_ASSERT(strstr(log, "already in the pool") != NULL, "log: %s",
		       log);
	LR_TEST_ASSERT_EQ(stat_errors(pool), 1);
	LR_TEST_ASSERT_EQ(lr_page_pool_validate(pool), 0);

	/* A page of another pool: refused. */
	foreign = lr_page_pool_alloc(other);
	lr_test_log_begin();
	lr_page_pool_put(pool, foreign, 0, 0);
	log = lr_test_log_end();
	LR_TEST_ASSERT(strstr(log, "not one of this pool's") != NULL, "log: %s",
		       log);
	LR_TEST_ASSERT_EQ(stat_errors(pool), 2);
	lr_page_pool_put(other, foreign, 0, 1);

	/* Sync in the wrong state. */
	pg = lr_page_pool_alloc(pool);
	LR_TEST_ASSERT_EQ(lr_page_pool_sync_for_cpu(pool, pg, 0, 64), 0);
	lr_test_log_begin();
	LR_TEST_ASSERT_EQ(lr_page_pool_sync_for_cpu(pool, pg, 0, 64), -EINVAL);
	log = lr_test_log_end();
	LR_TEST_ASSERT(strstr(log, "owned by the CPU") != NULL, "log: %s", log);
	LR_TEST_ASSERT_EQ(stat_errors(pool), 3);

	/* A CPU write after the put, caught when the page is handed out
	 * again (the cache is LIFO: the next alloc returns it). */
	lr_page_pool_put(pool, pg, 0, 1);
	((volatile char *)lr_page_address(pg))[100] = 7;
	lr_test_log_begin();
	pg2 = lr_page_pool_alloc(pool);
	log = lr_test_log_end();
	LR_TEST_ASSERT(pg2 == pg, "cache is not LIFO");
	LR_TEST_ASSERT(strstr(log, "written at +96 while in the pool") != NULL,
		       "log: %s", log);
	LR_TEST_ASSERT_EQ(stat_errors(pool), 4);
	lr_page_pool_put(pool, pg2, 0, 1);

	/* Transmit pool: a CPU write to a page the device owns. */
	q.flags |= LR_PP_FLAG_CHECK;
	q.dma_dir = LR_DMA_TO_DEVICE;
	tx = lr_page_pool_create(&q);
	LR_TEST_ASSERT(tx != NULL, "create tx");
	pg = lr_page_pool_alloc(tx);
	LR_TEST_ASSERT_EQ(lr_page_pool_page_state(tx, pg), LR_PP_STATE_CPU);
	memset(lr_page_address(pg), 0x11, 128); /* build a packet: fine */
	LR_TEST_ASSERT_EQ(lr_page_pool_sync_for_device(tx, pg, 0, 128), 0);
	((volatile char *)lr_page_address(pg))[5] = 0x22; /* wrong */
	lr_test_log_begin();
	e = stat_errors(tx);
	lr_page_pool_sync_for_cpu(tx, pg, 0, 128);
	log = lr_test_log_end();
	LR_TEST_ASSERT(strstr(log, "written by the CPU while the device") !=
			   NULL,
		       "log: %s", log);
	LR_TEST_ASSERT_EQ(stat_errors(tx), e + 1);
	lr_page_pool_put(tx, pg, 0, 1);
	LR_TEST_ASSERT_EQ(lr_page_pool_validate(tx), 0);
	LR_TEST_ASSERT_EQ(lr_page_pool_validate(pool), 0);
	lr_page_pool_free(tx);
	lr_page_pool_free(other);
	lr_page_pool_free(pool);
	return 0;
}

/* ---- deferred destroy ---- */

static void *
put_half(void *arg)
{
	void **a = arg;
	struct lr_page_pool *pool = a[0];
	struct lr_page **pages = a[1];

	for (unsigned i = 0; i < 5; i++)
		lr_page_pool_put(pool, pages[i], 0, 0);
	return NULL;
}

static int
test_deferred_destroy(void)
{
	struct lr_page_pool_params p = params("deferred", 64);
	struct lr_page *pages[10];
	struct lr_page_pool *pool;
	char *rep = NULL;
	size_t rlen;
	FILE *f;
	pthread_t t;

	LR_TEST_ASSERT(setup() == 0, "EAL init failed");
	pool = lr_page_pool_create(&p);
	LR_TEST_ASSERT(pool != NULL, "create");
	for (unsigned i = 0; i < 10; i++)
		pages[i] = lr_page_pool_alloc(pool);
	lr_page_pool_free(pool);
	LR_TEST_ASSERT_EQ(lr_page_pool_pending_count(), 1);
	f = open_memstream(&rep, &rlen);
	LR_TEST_ASSERT_EQ(lr_page_pool_report_pending(f), 1);
	fclose(f);
	LR_TEST_ASSERT(strstr(rep, "'deferred'") != NULL &&
			   strstr(rep, "waiting for 10 pages") != NULL,
		       "report: %s", rep);
	free(rep);
	/* Half from another thread, four from the owner, then the last. */
	void *arg[2] = {pool, pages};

	pthread_create(&t, NULL, put_half, arg);
	pthread_join(t, NULL);
	for (unsigned i = 5; i < 9; i++)
		lr_page_pool_put(pool, pages[i], 0, 1);
	LR_TEST_ASSERT_EQ(lr_page_pool_pending_count(), 1);
	lr_page_pool_put(pool, pages[9], 0, 1);
	LR_TEST_ASSERT_EQ(lr_page_pool_pending_count(), 0);
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	return 0;
}

/* ---- pages of another NUMA node ---- */

static int
test_foreign_node(void)
{
	struct lr_page_pool_params p = params("numa", 256);
	struct lr_pagealloc_zone_info zi;
	struct lr_page_pool_stats s;
	struct lr_page_pool *pool;
	struct lr_page *pages[64];
	struct lr_page **all;
	unsigned nall = 0, cap, nforeign = 0, n = 0;

	LR_TEST_ASSERT(setup() == 0, "EAL init failed");
	if (!fake_nodes || lr_pagealloc_zone_count() < 2) {
		printf("  foreign_node skipped: needs two zones\n");
		return LR_TEST_SKIP;
	}
	p.nid = 1;
	pool = lr_page_pool_create(&p);
	LR_TEST_ASSERT(pool != NULL, "create");
	LR_TEST_ASSERT_EQ(pool->nid, 1);
	/* Empty node 1 so that the pool's refill falls back to node 0. */
	LR_TEST_ASSERT_EQ(lr_pagealloc_zone_info(1, &zi), 0);
	cap = (unsigned)zi.pages;
	all = malloc(cap * sizeof(*all));
	LR_TEST_ASSERT(all != NULL, "malloc");
	lr_test_log_begin();
	for (;;) {
		unsigned got = lr_alloc_pages_bulk(
		    1, 0, LR_ALLOC_THISNODE | LR_ALLOC_PINNED,
		    LR_MIN(64u, cap - nall), all + nall);

		if (got == 0 || (nall += got) == cap)
			break;
	}
	for (; n < 64; n++) {
		pages[n] = lr_page_pool_alloc(pool);
		if (pages[n] == NULL)
			break;
		nforeign += lr_page_node(pages[n]) != 1;
	}
	lr_test_log_end();
	LR_TEST_ASSERT(nforeign > 0, "no page came from node 0 (%u taken)",
		       nall);
	/* Foreign pages are not cached: a direct put gives them back. */
	for (unsigned i = 0; i < n; i++)
		lr_page_pool_put(pool, pages[i], 0, 1);
	lr_page_pool_stats_get(pool, &s);
	LR_TEST_ASSERT_EQ(s.recycle.waive, nforeign);
	LR_TEST_ASSERT_EQ(s.recycle.cached, n - nforeign);
	LR_TEST_ASSERT_EQ(lr_page_pool_validate(pool), 0);
	lr_free_pages_bulk(all, nall, 0);
	free(all);
	/* With no foreign page left, the owner's next call reopens the
	 * direct put path. */
	lr_page_pool_put(pool, lr_page_pool_alloc(pool), 0, 1);
	if (!pool->checked)
		LR_TEST_ASSERT_EQ(atomic_load(&pool->put_lcore), lr_lcore_id());
	lr_page_pool_free(pool);
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	return 0;
}

static const struct lr_test_case cases[] = {
    {"bad_params", test_bad_params},
    {"direct_recycle", test_direct_recycle},
    {"bound", test_bound},
    {"stash", test_stash},
    {"flood_from_other_thread", test_flood_from_other_thread},
    {"callbacks", test_callbacks},
    {"shrinker_direct", test_shrinker_direct},
    {"shrinker_under_pressure", test_shrinker_under_pressure},
    {"alloc_bulk", test_alloc_bulk},
    {"ownership_errors", test_ownership_errors},
    {"foreign_node", test_foreign_node},
    {"deferred_destroy", test_deferred_destroy},
};

LR_TEST_MAIN("page_pool", cases)
