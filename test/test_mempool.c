/* SPDX-License-Identifier: BSD-3-Clause */
/* Mempool: creation and bad input, object layout, all-or-nothing bulk,
 * cache refill/flush boundaries and the single-object path (each with
 * the pool counting its calls, out of line, and not, inline), leak
 * report, accounting invariants after random mixes of single and bulk
 * calls on two EAL lcores and on registered pthreads, the debug build's
 * asserts and cookies.
 * LR_TEST_SCALE (< 1) shortens the random workloads. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lr_eal.h"
#include "lr_mempool.h"
#include "lr_pagealloc.h"
#include "lr_test.h"

static double scale = 1.0;
static int two_lcores;

/* ------------------------------------------------------------------ */
/* Helpers.                                                             */

static uint64_t
rnd(uint64_t *s)
{
	/* xorshift64* */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static unsigned
scaled(unsigned n)
{
	unsigned v = (unsigned)(n * scale);

	return v ? v : 1;
}

static struct lr_mempool_cache *
my_cache(struct lr_mempool *mp)
{
	return lr_mempool_default_cache(mp);
}

/* A pool that counts its lcores' calls (LR_MEMPOOL_F_STATS: every call
 * goes out of line), or one that does not, whatever LR_MEMPOOL_STATS
 * (which the test suites set) says: the inline paths serve its calls. */
static struct lr_mempool *
create_counted(const char *name, unsigned n, unsigned cache, const char *ops,
	       int counted)
{
	const char *env = getenv("LR_MEMPOOL_STATS");
	char *saved = env != NULL ? strdup(env) : NULL;
	struct lr_mempool *mp;

	if (!counted)
		unsetenv("LR_MEMPOOL_STATS");
	mp = lr_mempool_create_ops(name, n, 64, cache, 0, NULL, NULL,
				   LR_SOCKET_ID_ANY,
				   counted ? LR_MEMPOOL_F_STATS : 0, ops);
	if (saved != NULL)
		setenv("LR_MEMPOOL_STATS", saved, 1);
	free(saved);
	if (mp != NULL && !!(mp->flags & LR_MEMPOOL_F_STATS) != counted) {
		printf("pool '%s': counting %s\n", name,
		       counted ? "off" : "on");
		lr_mempool_free(mp);
		return NULL;
	}
	return mp;
}

/* ------------------------------------------------------------------ */
/* Creation, lookup and bad input.                                      */

static int
test_create_lookup(void)
{
	struct lr_mempool *mp, *mp2;

	mp = lr_mempool_create("mp_basic", 1000, 64, 32, 0, NULL, NULL,
			       LR_SOCKET_ID_ANY, 0);
	LR_TEST_ASSERT(mp != NULL, "create: %s", lr_strerror(lr_errno));
	LR_TEST_ASSERT(lr_mempool_lookup("mp_basic") == mp, "lookup");
	LR_TEST_ASSERT_EQ(mp->size, 1000);
	LR_TEST_ASSERT_EQ(lr_mempool_avail_count(mp), 1000);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(mp), 0);
	LR_TEST_ASSERT(strcmp(mp->ops->name, "ring_mp_mc") == 0, "ops %s",
		       mp->ops->name);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);

	lr_test_log_begin();
	mp2 = lr_mempool_create("mp_basic", 10, 64, 0, 0, NULL, NULL,
				LR_SOCKET_ID_ANY, 0);
	const char *msg = lr_test_log_end();
	LR_TEST_ASSERT(mp2 == NULL, "duplicate accepted");
	LR_TEST_ASSERT_EQ(lr_errno, EEXIST);
	LR_TEST_ASSERT(strstr(msg, "mempool 'mp_basic': name already in use"),
		       "message: %s", msg);

	lr_mempool_free(mp);
	LR_TEST_ASSERT(lr_mempool_lookup("mp_basic") == NULL, "still listed");
	LR_TEST_ASSERT_EQ(lr_errno, ENOENT);
	/* The name is free again, and flags pick the ring variant. */
	mp = lr_mempool_create("mp_basic", 10, 64, 0, 0, NULL, NULL,
			       LR_SOCKET_ID_ANY,
			       LR_MEMPOOL_F_SP_PUT | LR_MEMPOOL_F_SC_GET);
	LR_TEST_ASSERT(mp != NULL, "recreate: %s", lr_strerror(lr_errno));
	LR_TEST_ASSERT(strcmp(mp->ops->name, "ring_sp_sc") == 0, "ops %s",
		       mp->ops->name);
	lr_mempool_free(mp);
	lr_mempool_free(NULL);
	return 0;
}

static int
test_bad_input(void)
{
	size_t max_block = (size_t)LR_PAGE_SIZE << (LR_MAX_ORDER - 1);
	char big[64];
	static const struct {
		const char *name;
		unsigned n, elt, cache, flags;
		const char *ops;
		int err;
		const char *msg;
	} cases[] = {
	    {"bad_n", 0, 64, 0, 0, NULL, EINVAL, "'bad_n': pool size 0"},
	    {"bad_elt", 100, 0, 0, 0, NULL, EINVAL,
	     "'bad_elt': element size 0"},
	    {"bad_cache", 512, 64, 600, 0, NULL, EINVAL,
	     "'bad_cache': cache size 600 > max 512"},
	    {"bad_cache2", 100, 64, 200, 0, NULL, EINVAL,
	     "'bad_cache2': cache size 200 > pool size 100"},
	    {"bad_ops", 100, 64, 0, 0, "ring_xx", EINVAL,
	     "'bad_ops': unknown ops 'ring_xx'"},
	    {"bad_flags", 100, 64, 0, 0x100, NULL, EINVAL,
	     "'bad_flags': unknown flags 0x100"},
	    {"", 100, 64, 0, 0, NULL, EINVAL, "no name given"},
	    {"a_name_that_is_far_too_long_for_a_pool", 100, 64, 0, 0, NULL,
	     ENAMETOOLONG, "name longer than"},
	};

	for (unsigned i = 0; i < LR_DIM(cases); i++) {
		struct lr_mempool *mp;

		lr_errno = 0;
		lr_test_log_begin();
		mp = lr_mempool_create_ops(
		    cases[i].name, cases[i].n, cases[i].elt, cases[i].cache, 0,
		    NULL, NULL, LR_SOCKET_ID_ANY, cases[i].flags, cases[i].ops);
		const char *msg = lr_test_log_end();
		LR_TEST_ASSERT(mp == NULL, "case %u accepted", i);
		LR_TEST_ASSERT(lr_errno == cases[i].err, "case %u: errno %d", i,
			       lr_errno);
		LR_TEST_ASSERT(strstr(msg, cases[i].msg),
			       "case %u: message: %s", i, msg);
	}
	/* An object larger than the largest block. */
	lr_test_log_begin();
	struct lr_mempool *mp =
	    lr_mempool_create("bad_big", 4, (unsigned)max_block, 0, 0, NULL,
			      NULL, LR_SOCKET_ID_ANY, 0);
	const char *msg = lr_test_log_end();
	snprintf(big, sizeof(big), "element size %zu > largest block",
		 max_block);
	LR_TEST_ASSERT(mp == NULL, "huge object accepted");
	LR_TEST_ASSERT_EQ(lr_errno, EINVAL);
	LR_TEST_ASSERT(strstr(msg, "'bad_big'") && strstr(msg, big),
		       "message: %s", msg);
	LR_TEST_ASSERT(lr_mempool_lookup("bad_big") == NULL, "listed");
	LR_TEST_ASSERT(lr_ring_lookup("MP_bad_cache") == NULL, "ring left");
	return 0;
}

/* ------------------------------------------------------------------ */
/* Layout, iteration, private area.                                     */

struct layout_arg {
	unsigned calls;
	unsigned next_idx;
	int order_ok;
};

static void
count_init(struct lr_mempool *mp, void *opaque, void *obj, unsigned idx)
{
	struct layout_arg *a = opaque;

	if (idx != a->next_idx)
		a->order_ok = 0;
	a->next_idx = idx + 1;
	a->calls++;
	memset(obj, 0x5a, mp->elt_size);
	*(unsigned *)obj = idx;
}

static int
cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

	return x < y ? -1 : x > y;
}

static int
check_layout(unsigned n, unsigned elt, unsigned flags)
{
	struct layout_arg a = {0, 0, 1};
	struct lr_mempool *mp;
	void **objs = malloc(n * sizeof(void *));
	unsigned align =
	    (flags & LR_MEMPOOL_F_NO_CACHE_ALIGN) ? 8 : LR_CACHE_LINE_SIZE;

	LR_TEST_ASSERT(objs != NULL, "malloc");
	mp = lr_mempool_create("mp_layout", n, elt, 0, 100, count_init, &a,
			       LR_SOCKET_ID_ANY, flags);
	LR_TEST_ASSERT(mp != NULL, "create: %s", lr_strerror(lr_errno));
	LR_TEST_ASSERT_EQ(a.calls, n);
	LR_TEST_ASSERT(a.order_ok, "obj_init indices out of order");
	LR_TEST_ASSERT(lr_mempool_get_priv(mp) != NULL, "no private area");
	LR_TEST_ASSERT_EQ(mp->private_data_size, 100);
	for (unsigned i = 0; i < 100; i++)
		LR_TEST_ASSERT_EQ(((char *)lr_mempool_get_priv(mp))[i], 0);

	a.calls = 0;
	a.next_idx = 0;
	LR_TEST_ASSERT_EQ(lr_mempool_obj_iter(mp, count_init, &a), n);
	LR_TEST_ASSERT_EQ(a.calls, n);

	LR_TEST_ASSERT_EQ(lr_mempool_get_bulk(mp, objs, n), 0);
	for (unsigned i = 0; i < n; i++) {
		char *o = objs[i];
		uint64_t iova = lr_mempool_virt2iova(o);

		LR_TEST_ASSERT(lr_mempool_from_obj(o) == mp, "obj %u pool", i);
		LR_TEST_ASSERT((uintptr_t)o % align == 0, "obj %u at %p", i,
			       (void *)o);
		LR_TEST_ASSERT(iova != UINT64_MAX, "obj %u: no IOVA", i);
		/* One IOVA-contiguous range per object. */
		LR_TEST_ASSERT(lr_mempool_virt2iova(o + elt - 1) ==
				   iova + elt - 1,
			       "obj %u crosses an IOVA discontinuity", i);
		if ((flags & LR_MEMPOOL_F_NO_STRADDLE) &&
		    elt + mp->header_size <= LR_PAGE_SIZE)
			LR_TEST_ASSERT((uintptr_t)o / LR_PAGE_SIZE ==
					   (uintptr_t)(o + elt - 1) /
					       LR_PAGE_SIZE,
				       "obj %u straddles a page", i);
		LR_TEST_ASSERT(lr_virt_to_page(o) != NULL, "obj %u: no page",
			       i);
	}
	qsort(objs, n, sizeof(void *), cmp_ptr);
	for (unsigned i = 1; i < n; i++)
		LR_TEST_ASSERT((char *)objs[i] - (char *)objs[i - 1] >=
				   (long)(elt + mp->header_size),
			       "objects %u and %u overlap", i - 1, i);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(mp), n);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
	lr_mempool_put_bulk(mp, objs, n);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
	lr_mempool_free(mp);
	free(objs);
	return 0;
}

static int
test_layout(void)
{
	if (check_layout(300, 200, 0) ||
	    check_layout(300, 200, LR_MEMPOOL_F_NO_CACHE_ALIGN) ||
	    check_layout(1000, 2304, 0) ||
	    check_layout(1000, 2304, LR_MEMPOOL_F_NO_STRADDLE) ||
	    check_layout(40, 3 * LR_PAGE_SIZE, LR_MEMPOOL_F_NO_STRADDLE) ||
	    check_layout(5, 1, 0))
		return -1;
	return 0;
}

/* Blocks are pinned pages tagged with the pool, untagged when it goes. */
static int
test_page_owner(void)
{
	struct lr_mempool *mp;
	struct lr_page *pg;
	void *o;

	mp = lr_mempool_create("mp_owner", 1, 100, 0, 0, NULL, NULL,
			       LR_SOCKET_ID_ANY, 0);
	LR_TEST_ASSERT(mp != NULL, "create: %s", lr_strerror(lr_errno));
	LR_TEST_ASSERT_EQ(lr_mempool_get(mp, &o), 0);
	pg = lr_virt_to_page(o);
	LR_TEST_ASSERT(pg != NULL, "no page");
	/* Object 0 lies in the first page of the first block. */
	LR_TEST_ASSERT(pg->owner == mp, "owner %p", pg->owner);
	LR_TEST_ASSERT(strcmp(pg->owner_name, "mp_owner") == 0, "name %s",
		       pg->owner_name);
	LR_TEST_ASSERT_EQ(lr_page_migratetype(pg), LR_MT_PINNED);
	lr_test_log_begin();
	lr_free_pages(pg, mp->block_order);
	const char *msg = lr_test_log_end();
	LR_TEST_ASSERT(strstr(msg, "page owned by pool mp_owner"),
		       "message: %s", msg);
	lr_mempool_put(mp, o);
	lr_mempool_free(mp);
	LR_TEST_ASSERT(pg->owner == NULL, "owner left set");
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	return 0;
}

/* ------------------------------------------------------------------ */
/* All-or-nothing bulk.                                                 */

static int
bulk_short(const char *ops, unsigned cache)
{
	enum { N = 100 };
	void *a[N], *b[N];
	struct lr_mempool *mp;

	mp = lr_mempool_create_ops("mp_short", N, 32, cache, 0, NULL, NULL,
				   LR_SOCKET_ID_ANY, LR_MEMPOOL_F_STATS, ops);
	LR_TEST_ASSERT(mp != NULL, "%s: %s", ops, lr_strerror(lr_errno));
	LR_TEST_ASSERT_EQ(lr_mempool_get_bulk(mp, a, 60), 0);
	for (unsigned i = 0; i < N; i++)
		b[i] = NULL;
	LR_TEST_ASSERT_EQ(lr_mempool_get_bulk(mp, b, 41), -ENOENT);
	for (unsigned i = 0; i < N; i++)
		LR_TEST_ASSERT(b[i] == NULL, "%s: failed get wrote slot %u",
			       ops, i);
	LR_TEST_ASSERT_EQ(lr_mempool_avail_count(mp), 40);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
	LR_TEST_ASSERT_EQ(lr_mempool_get_bulk(mp, b, 40), 0);
	LR_TEST_ASSERT_EQ(lr_mempool_get(mp, &b[40]), -ENOENT);
	LR_TEST_ASSERT_EQ(lr_mempool_avail_count(mp), 0);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(mp), N);
	/* Every object handed out once. */
	memcpy(&a[60], b, 40 * sizeof(void *));
	qsort(a, N, sizeof(void *), cmp_ptr);
	for (unsigned i = 1; i < N; i++)
		LR_TEST_ASSERT(a[i] != a[i - 1], "%s: object twice", ops);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
	lr_mempool_put_bulk(mp, a, N);
	LR_TEST_ASSERT_EQ(lr_mempool_avail_count(mp), N);
	/* Zero objects is a no-op that succeeds. */
	LR_TEST_ASSERT_EQ(lr_mempool_get_bulk(mp, a, 0), 0);
	lr_mempool_put_bulk(mp, a, 0);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);

	struct lr_mempool_stats st;

	lr_mempool_stats_get(mp, &st);
	LR_TEST_ASSERT_EQ(st.get_fail_bulk, 2);
	LR_TEST_ASSERT_EQ(st.get_fail_objs, 42);
	LR_TEST_ASSERT_EQ(st.get_success_objs, 100);
	LR_TEST_ASSERT_EQ(st.put_objs, 100);
	lr_mempool_free(mp);

	/* Without LR_MEMPOOL_F_STATS (and without LR_MEMPOOL_STATS=1, which
	 * the test suites set) an lcore counts failures and store calls,
	 * not its gets and puts; validate still checks what it can. */
	const char *env = getenv("LR_MEMPOOL_STATS");

	unsetenv("LR_MEMPOOL_STATS");
	mp = lr_mempool_create_ops("mp_short", N, 32, cache, 0, NULL, NULL,
				   LR_SOCKET_ID_ANY, 0, ops);
	if (env != NULL)
		setenv("LR_MEMPOOL_STATS", env, 1);
	LR_TEST_ASSERT(mp != NULL, "%s: %s", ops, lr_strerror(lr_errno));
	LR_TEST_ASSERT(!(mp->flags & LR_MEMPOOL_F_STATS), "%s: stats on", ops);
	LR_TEST_ASSERT_EQ(lr_mempool_get_bulk(mp, a, 60), 0);
	LR_TEST_ASSERT_EQ(lr_mempool_get_bulk(mp, b, 41), -ENOENT);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(mp), 60);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
	lr_mempool_put_bulk(mp, a, 60);
	lr_mempool_stats_get(mp, &st);
	LR_TEST_ASSERT_EQ(st.get_fail_bulk, 1);
	LR_TEST_ASSERT_EQ(st.get_fail_objs, 41);
	LR_TEST_ASSERT(st.put_objs == 0 && st.get_success_objs == 0 &&
			   st.put_bulk == 0 && st.get_success_bulk == 0,
		       "%s: lcore calls counted without LR_MEMPOOL_F_STATS",
		       ops);
	LR_TEST_ASSERT(st.store_get_bulk > 0, "%s: store gets not counted",
		       ops);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(mp), 0);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
	lr_mempool_free(mp);
	return 0;
}

static int
test_bulk_all_or_nothing(void)
{
	static const char *ops[] = {"ring_mp_mc", "ring_sp_sc", "stack"};

	for (unsigned i = 0; i < LR_DIM(ops); i++)
		for (unsigned c = 0; c <= 16; c += 16)
			if (bulk_short(ops[i], c) != 0)
				return -1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Cache boundaries.                                                    */

/* Alternate one put and one get (or get then put) k times; return how
 * many times the store count changed. */
static unsigned
alternate(struct lr_mempool *mp, void **held, int put_first, unsigned k)
{
	unsigned changes = 0, before = lr_mempool_store_count(mp);

	for (unsigned i = 0; i < k; i++) {
		if (put_first) {
			lr_mempool_put(mp, *held);
			if (lr_mempool_get(mp, held) != 0)
				return 1000;
		} else {
			void *o;

			if (lr_mempool_get(mp, &o) != 0)
				return 1000;
			lr_mempool_put(mp, o);
		}
		unsigned now = lr_mempool_store_count(mp);

		changes += now != before;
		before = now;
	}
	return changes;
}

/* The boundaries, counted (every call out of line) or not (inline). */
static int
cache_boundaries(int counted)
{
	enum { N = 1024, C = 32, T = C * 3 / 2 };
	void *held[N], *o;
	struct lr_mempool *mp;
	struct lr_mempool_cache *c;
	unsigned store;

	mp = create_counted("mp_edges", N, C, NULL, counted);
	LR_TEST_ASSERT(mp != NULL, "create: %s", lr_strerror(lr_errno));
	c = my_cache(mp);
	LR_TEST_ASSERT(c != NULL, "main thread has no cache");
	LR_TEST_ASSERT_EQ(c->flushthresh, T);

	/* Empty cache: the first get refills to size + 1 and keeps size. */
	LR_TEST_ASSERT_EQ(lr_mempool_get(mp, &o), 0);
	LR_TEST_ASSERT_EQ(c->len, C);
	LR_TEST_ASSERT_EQ(lr_mempool_store_count(mp), N - C - 1);
	lr_mempool_put(mp, o);
	/* Around size: no store traffic at all. */
	LR_TEST_ASSERT_EQ(alternate(mp, &o, 0, 100), 0);

	/* Fill exactly to the threshold from a held set: no flush. */
	lr_mempool_cache_flush(mp, lr_lcore_id());
	LR_TEST_ASSERT_EQ(c->len, 0);
	LR_TEST_ASSERT_EQ(lr_mempool_get_bulk(mp, held, T + 1), 0);
	lr_mempool_cache_flush(mp, lr_lcore_id());
	store = lr_mempool_store_count(mp);
	for (unsigned i = 0; i < T; i++) {
		lr_mempool_put(mp, held[i]);
		LR_TEST_ASSERT_EQ(c->len, i + 1);
		LR_TEST_ASSERT_EQ(lr_mempool_store_count(mp), store);
	}
	/* One more: the coldest T + 1 - C go down, the hot C stay. */
	lr_mempool_put(mp, held[T]);
	LR_TEST_ASSERT_EQ(c->len, C);
	LR_TEST_ASSERT_EQ(lr_mempool_store_count(mp), store + T + 1 - C);
	for (unsigned i = 0; i < C; i++)
		LR_TEST_ASSERT(c->objs[i] == held[T + 1 - C + i],
			       "slot %u holds a cold object", i);
	/* At size after a flush: alternate both ways, no store traffic. */
	LR_TEST_ASSERT_EQ(lr_mempool_get(mp, &o), 0);
	LR_TEST_ASSERT_EQ(alternate(mp, &o, 1, 100), 0);
	LR_TEST_ASSERT_EQ(alternate(mp, &o, 0, 100), 0);
	lr_mempool_put(mp, o);

	/* At the threshold: the first put flushes, then nothing. */
	lr_mempool_cache_flush(mp, lr_lcore_id());
	LR_TEST_ASSERT_EQ(lr_mempool_get_bulk(mp, held, T + 1), 0);
	lr_mempool_cache_flush(mp, lr_lcore_id());
	lr_mempool_put_bulk(mp, held, T);
	LR_TEST_ASSERT_EQ(c->len, T);
	o = held[T];
	LR_TEST_ASSERT(alternate(mp, &o, 1, 100) <= 1, "ping-pong at %u", T);
	LR_TEST_ASSERT(c->len <= T, "cache above threshold: %u", c->len);

	/* Empty: the first get refills, then nothing. */
	lr_mempool_put(mp, o);
	lr_mempool_cache_flush(mp, lr_lcore_id());
	LR_TEST_ASSERT(alternate(mp, NULL, 0, 100) <= 1, "ping-pong at 0");

	/* A short cache gives its hot objects first, then refills. */
	lr_mempool_cache_flush(mp, lr_lcore_id());
	LR_TEST_ASSERT_EQ(lr_mempool_get_bulk(mp, held, 5), 0);
	lr_mempool_cache_flush(mp, lr_lcore_id());
	lr_mempool_put_bulk(mp, held, 5);
	void *got[8];

	LR_TEST_ASSERT_EQ(lr_mempool_get_bulk(mp, got, 8), 0);
	for (unsigned i = 0; i < 5; i++)
		LR_TEST_ASSERT(got[i] == held[i], "hot object %u not first", i);
	LR_TEST_ASSERT_EQ(c->len, C);
	lr_mempool_put_bulk(mp, got, 8);

	/* Larger than the cache: what the cache holds, the rest from the
	 * store; the put goes straight to the store. */
	unsigned len = c->len;

	store = lr_mempool_store_count(mp);
	LR_TEST_ASSERT_EQ(lr_mempool_get_bulk(mp, held, T + 10), 0);
	LR_TEST_ASSERT_EQ(lr_mempool_store_count(mp) + T + 10, store + len);
	LR_TEST_ASSERT_EQ(c->len, 0);
	lr_mempool_put_bulk(mp, held, T + 10);
	LR_TEST_ASSERT_EQ(c->len, 0);
	LR_TEST_ASSERT_EQ(lr_mempool_store_count(mp), N);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
	lr_mempool_free(mp);
	return 0;
}

static int
test_cache_boundaries(void)
{
	if (cache_boundaries(0) != 0 || cache_boundaries(1) != 0)
		return -1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The single-object path.                                              */

/* lr_mempool_get()/put() one object at a time, counted (out of line) or
 * not (inline): an empty pool refuses with nothing changed, puts stay in
 * the cache up to the threshold, the one past it flushes the coldest,
 * gets take the hottest. */
static int
single_path(int counted)
{
	enum { N = 64, C = 16, T = C * 3 / 2 };
	void *held[N], *o, *const sentinel = (void *)&o;
	struct lr_mempool_stats st;
	struct lr_mempool_cache *c;
	struct lr_mempool *mp;

	mp = create_counted("mp_single", N, C, NULL, counted);
	LR_TEST_ASSERT(mp != NULL, "create: %s", lr_strerror(lr_errno));
	c = my_cache(mp);
	LR_TEST_ASSERT_EQ(lr_mempool_get_bulk(mp, held, N), 0);
	LR_TEST_ASSERT_EQ(c->len, 0);

	/* Empty: -ENOENT, *obj untouched, no count moves but the failure. */
	o = sentinel;
	LR_TEST_ASSERT_EQ(lr_mempool_get(mp, &o), -ENOENT);
	LR_TEST_ASSERT(o == sentinel, "failed get wrote %p", o);
	LR_TEST_ASSERT_EQ(c->len, 0);
	LR_TEST_ASSERT_EQ(lr_mempool_store_count(mp), 0);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(mp), N);
	lr_mempool_stats_get(mp, &st);
	LR_TEST_ASSERT(st.get_fail_bulk == 1 && st.get_fail_objs == 1,
		       "failures %llu/%llu",
		       (unsigned long long)st.get_fail_bulk,
		       (unsigned long long)st.get_fail_objs);
	LR_TEST_ASSERT_EQ(st.get_success_objs, counted ? N : 0);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);

	/* Up to the threshold: the cache keeps them, the store sees none. */
	for (unsigned i = 0; i < T; i++) {
		lr_mempool_put(mp, held[i]);
		LR_TEST_ASSERT_EQ(c->len, i + 1);
		LR_TEST_ASSERT_EQ(lr_mempool_store_count(mp), 0);
	}
	/* Past it: the T + 1 - C coldest go down, the C hottest stay. */
	lr_mempool_put(mp, held[T]);
	LR_TEST_ASSERT_EQ(c->len, C);
	LR_TEST_ASSERT_EQ(lr_mempool_store_count(mp), T + 1 - C);
	LR_TEST_ASSERT(c->objs[C - 1] == held[T], "hottest not on top");
	LR_TEST_ASSERT(c->objs[0] == held[T + 1 - C], "coldest kept");
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);

	/* Gets take the hottest first, without the store. */
	for (unsigned i = 0; i < 3; i++) {
		LR_TEST_ASSERT_EQ(lr_mempool_get(mp, &o), 0);
		LR_TEST_ASSERT(o == held[T - i], "get %u: %p", i, o);
		LR_TEST_ASSERT_EQ(c->len, C - 1 - i);
	}
	LR_TEST_ASSERT_EQ(lr_mempool_store_count(mp), T + 1 - C);
	for (unsigned i = 0; i < 3; i++)
		lr_mempool_put(mp, held[T - 2 + i]);
	lr_mempool_put_bulk(mp, &held[T + 1], N - T - 1);
	LR_TEST_ASSERT_EQ(lr_mempool_avail_count(mp), N);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
	lr_mempool_stats_get(mp, &st);
	LR_TEST_ASSERT_EQ(st.put_objs, counted ? N + 3 : 0);
	LR_TEST_ASSERT_EQ(st.put_bulk, counted ? T + 1 + 3 + 1 : 0);
	LR_TEST_ASSERT_EQ(st.get_success_bulk, counted ? 1 + 3 : 0);
	LR_TEST_ASSERT(st.store_put_bulk >= 1, "flush not counted");
	lr_mempool_free(mp);
	return 0;
}

static int
test_single(void)
{
	if (single_path(0) != 0 || single_path(1) != 0)
		return -1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Leak report.                                                         */

static int
test_leak_report(void)
{
	struct lr_mempool *mp;
	void *objs[5];

	mp = lr_mempool_create("mp_leaky", 64, 128, 8, 0, NULL, NULL,
			       LR_SOCKET_ID_ANY, 0);
	LR_TEST_ASSERT(mp != NULL, "create: %s", lr_strerror(lr_errno));
	LR_TEST_ASSERT_EQ(lr_mempool_get_bulk(mp, objs, 5), 0);
	lr_test_log_begin();
	lr_mempool_free(mp);
	const char *msg = lr_test_log_end();
	LR_TEST_ASSERT(strstr(msg, "mempool 'mp_leaky': freed with 5 of 64 "
				   "objects still in use"),
		       "message: %s", msg);

	/* All back: no report. */
	mp = lr_mempool_create("mp_leaky", 64, 128, 8, 0, NULL, NULL,
			       LR_SOCKET_ID_ANY, 0);
	LR_TEST_ASSERT(mp != NULL, "create: %s", lr_strerror(lr_errno));
	LR_TEST_ASSERT_EQ(lr_mempool_get_bulk(mp, objs, 5), 0);
	lr_mempool_put_bulk(mp, objs, 5);
	lr_test_log_begin();
	lr_mempool_free(mp);
	msg = lr_test_log_end();
	LR_TEST_ASSERT(strstr(msg, "still in use") == NULL, "message: %s", msg);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Random workloads.                                                    */

#define HOLD_MAX 512

struct worker {
	struct lr_mempool *mp;
	unsigned iters;
	uint64_t seed;
	unsigned tag; /* written into held objects */
	unsigned held;
	void *objs[HOLD_MAX];
	int register_thread; /* pthread mode: 1 register, 0 stay unregistered */
	int lcore_seen;
	unsigned errors;
	unsigned fails;
	pthread_barrier_t *registered; /* met once both threads hold an id */
};

static int
workload(void *arg)
{
	struct worker *w = arg;
	void *tmp[HOLD_MAX];

	for (unsigned it = 0; it < w->iters; it++) {
		uint64_t r = rnd(&w->seed);
		unsigned k = 1 + (unsigned)(r >> 32) % ((r & 0x300) ? 8 : 100);

		if ((r & 1) && w->held + k <= HOLD_MAX) {
			int rc = k == 1 ? lr_mempool_get(w->mp, tmp)
					: lr_mempool_get_bulk(w->mp, tmp, k);

			if (rc != 0) {
				w->fails++;
				continue;
			}
			for (unsigned i = 0; i < k; i++) {
				unsigned *p = tmp[i];

				/* Stamp it: two holders would collide. */
				p[0] = w->tag;
				p[1] = w->held;
				w->objs[w->held++] = tmp[i];
			}
		} else if (w->held > 0) {
			k = LR_MIN(k, w->held);
			for (unsigned i = 0; i < k; i++) {
				unsigned *p = w->objs[w->held - k + i];

				if (p[0] != w->tag || p[1] != w->held - k + i)
					w->errors++;
				p[0] = 0;
			}
			if (k == 1)
				lr_mempool_put(w->mp, w->objs[w->held - 1]);
			else
				lr_mempool_put_bulk(w->mp,
						    &w->objs[w->held - k], k);
			w->held -= k;
		}
	}
	return 0;
}

static void
release_all(struct worker *w)
{
	lr_mempool_put_bulk(w->mp, w->objs, w->held);
	w->held = 0;
}

static int
run_lcores(const char *ops, int counted)
{
	struct lr_mempool *mp;
	static struct worker w[2];
	unsigned worker_id = lr_get_next_lcore(-1, 1, 0);

	/* Counted, validate checks the equation; not, the inline paths
	 * serve the calls and validate checks what it can. */
	mp = create_counted("mp_rand2", 2048, 64, ops, counted);
	LR_TEST_ASSERT(mp != NULL, "%s: %s", ops, lr_strerror(lr_errno));
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 2; i++) {
			w[i].mp = mp;
			w[i].iters = scaled(100000);
			w[i].seed = 0x9e3779b97f4a7c15ULL * (round * 2 + i + 1);
			w[i].tag = 0xabc00 + i;
			w[i].errors = 0;
		}
		LR_TEST_ASSERT_EQ(
		    lr_eal_remote_launch(workload, &w[1], worker_id), 0);
		workload(&w[0]);
		LR_TEST_ASSERT_EQ(lr_eal_wait_lcore(worker_id), 0);
		/* Quiescent: the equation holds with objects out. */
		LR_TEST_ASSERT_EQ(w[0].errors + w[1].errors, 0);
		LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
		LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(mp),
				  w[0].held + w[1].held);
	}
	release_all(&w[0]);
	release_all(&w[1]);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
	LR_TEST_ASSERT_EQ(lr_mempool_avail_count(mp), mp->size);
	LR_TEST_ASSERT(lr_mempool_cache_count(mp, worker_id) <=
			   lr_mempool_lcore_cache(mp, worker_id)->flushthresh,
		       "worker cache %u",
		       lr_mempool_cache_count(mp, worker_id));
	lr_mempool_cache_flush(mp, LR_LCORE_ID_ANY);
	LR_TEST_ASSERT_EQ(lr_mempool_store_count(mp), mp->size);
	lr_mempool_free(mp);
	return 0;
}

static int
test_random_two_lcores(void)
{
	if (!two_lcores) {
		printf("needs two lcores (one CPU here); the pthread case "
		       "covers concurrency\n");
		return LR_TEST_SKIP;
	}
	/* Single and bulk calls mixed at random on both lcores. */
	for (int counted = 0; counted <= 1; counted++)
		if (run_lcores("ring_mp_mc", counted) ||
		    run_lcores("stack", counted))
			return -1;
	return 0;
}

static void *
pthread_body(void *arg)
{
	struct worker *w = arg;

	if (w->register_thread && lr_thread_register() < 0)
		return NULL;
	w->lcore_seen = (int)lr_lcore_id();
	if (w->registered != NULL)
		pthread_barrier_wait(w->registered);
	workload(w);
	if (w->register_thread) {
		/* Leave objects in the cache: unregistering flushes it. */
		release_all(w);
		lr_thread_unregister();
	}
	return NULL;
}

/* Two registered pthreads at once, then a registered one beside one
 * without an lcore id (the shared path). Never more threads than two:
 * a thread preempted inside a multi-producer ring operation stalls the
 * others on that ring for a time slice. */
static int
test_random_pthreads(void)
{
	static struct worker w[4];
	pthread_barrier_t both_registered;
	pthread_t t[4];
	struct lr_mempool *mp;

	mp = lr_mempool_create("mp_randpt", 4096, 64, 128, 0, NULL, NULL,
			       LR_SOCKET_ID_ANY, LR_MEMPOOL_F_STATS);
	LR_TEST_ASSERT(mp != NULL, "create: %s", lr_strerror(lr_errno));
	for (int i = 0; i < 4; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].mp = mp;
		w[i].iters = scaled(i == 2 ? 2000 : 100000);
		w[i].seed = 0x51ed2701ULL * (i + 7);
		w[i].tag = 0xdef00 + i;
		w[i].register_thread = i != 2; /* 2 takes the shared path */
		/* The first two hold their ids at the same time. */
		w[i].registered = i < 2 ? &both_registered : NULL;
	}
	pthread_barrier_init(&both_registered, NULL, 2);
	for (int phase = 0; phase < 2; phase++) {
		for (int i = 2 * phase; i < 2 * phase + 2; i++)
			LR_TEST_ASSERT_EQ(
			    pthread_create(&t[i], NULL, pthread_body, &w[i]),
			    0);
		for (int i = 2 * phase; i < 2 * phase + 2; i++)
			pthread_join(t[i], NULL);
	}
	pthread_barrier_destroy(&both_registered);
	for (int i = 0; i < 4; i++)
		LR_TEST_ASSERT_EQ(w[i].errors, 0);
	LR_TEST_ASSERT(w[0].lcore_seen >= 0 && w[0].lcore_seen < LR_MAX_LCORE,
		       "thread 0 had no lcore id");
	LR_TEST_ASSERT(w[0].lcore_seen != w[1].lcore_seen,
		       "two threads with lcore %d", w[0].lcore_seen);
	LR_TEST_ASSERT_EQ(w[2].lcore_seen, (int)LR_LCORE_ID_ANY);
	/* The registered threads' caches went back on unregistration. */
	for (int i = 0; i < 4; i++)
		if (i != 2)
			LR_TEST_ASSERT_EQ(
			    lr_mempool_cache_count(mp, w[i].lcore_seen), 0);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(mp), w[2].held);
	release_all(&w[2]);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
	LR_TEST_ASSERT_EQ(lr_mempool_avail_count(mp), mp->size);

	struct lr_mempool_stats st;

	lr_mempool_stats_get(mp, &st);
	LR_TEST_ASSERT_EQ(st.get_success_objs, st.put_objs);
	LR_TEST_ASSERT(mp->shared_stats.put_bulk > 0, "shared path unused");
	lr_mempool_free(mp);
	return 0;
}

/* Single-threaded random workload on each store and cache size. */
static int
test_random_single(void)
{
	static const char *ops[] = {"ring_mp_mc", "ring_sp_sc", "ring_sp_mc",
				    "ring_mp_sc", "stack"};
	static const unsigned caches[] = {0, 1, 32, 512};
	static struct worker w;

	for (unsigned i = 0; i < LR_DIM(ops); i++) {
		for (unsigned j = 0; j < LR_DIM(caches); j++) {
			struct lr_mempool *mp = lr_mempool_create_ops(
			    "mp_rand1", 1024, 16, caches[j], 0, NULL, NULL,
			    LR_SOCKET_ID_ANY, 0, ops[i]);

			LR_TEST_ASSERT(mp != NULL, "%s: %s", ops[i],
				       lr_strerror(lr_errno));
			memset(&w, 0, sizeof(w));
			w.mp = mp;
			w.iters = scaled(20000);
			w.seed = 1234567 + i * 10 + j;
			w.tag = 0x77;
			workload(&w);
			LR_TEST_ASSERT_EQ(w.errors, 0);
			LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
			LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(mp), w.held);
			release_all(&w);
			LR_TEST_ASSERT_EQ(lr_mempool_avail_count(mp), 1024);
			LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
			lr_mempool_free(mp);
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Validate catches a broken pool; dump; ops registry.                  */

static int
test_validate_and_dump(void)
{
	struct lr_mempool *mp;
	struct lr_mempool_cache *c;
	void *o;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	mp = lr_mempool_create("mp_check", 128, 32, 16, 0, NULL, NULL,
			       LR_SOCKET_ID_ANY, LR_MEMPOOL_F_STATS);
	LR_TEST_ASSERT(mp != NULL, "create: %s", lr_strerror(lr_errno));
	c = my_cache(mp);
	LR_TEST_ASSERT_EQ(lr_mempool_get(mp, &o), 0);
	lr_mempool_put(mp, o);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);

	/* A duplicate in the cache. */
	c->objs[c->len] = c->objs[0];
	c->len++;
	lr_test_log_begin();
	int rc = lr_mempool_validate(mp);
	const char *msg = lr_test_log_end();
	LR_TEST_ASSERT_EQ(rc, -EINVAL);
	LR_TEST_ASSERT(strstr(msg, "cached twice"), "message: %s", msg);
	c->len--;
	/* A foreign pointer in the cache. */
	c->objs[c->len++] = (char *)lr_mempool_lcore_cache(mp, 0)->objs[0] + 8;
	lr_test_log_begin();
	rc = lr_mempool_validate(mp);
	msg = lr_test_log_end();
	LR_TEST_ASSERT_EQ(rc, -EINVAL);
	LR_TEST_ASSERT(strstr(msg, "is not an object of the pool"),
		       "message: %s", msg);
	c->len--;
	/* A lost object breaks the equation. */
	c->len--;
	lr_test_log_begin();
	rc = lr_mempool_validate(mp);
	msg = lr_test_log_end();
	LR_TEST_ASSERT_EQ(rc, -EINVAL);
	LR_TEST_ASSERT(strstr(msg, "!= size 128"), "message: %s", msg);
	c->len++;
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);

	f = open_memstream(&buf, &len);
	lr_mempool_dump(f, mp);
	fclose(f);
	LR_TEST_ASSERT(strstr(buf, "mempool 'mp_check'") &&
			   strstr(buf, "ops ring_mp_mc") &&
			   strstr(buf, "avail 128"),
		       "dump: %s", buf);
	free(buf);

	LR_TEST_ASSERT_EQ(lr_mempool_register_ops(mp->ops), -EEXIST);
	lr_mempool_free(mp);
	return 0;
}

/* Debug builds: a double put and a put into the wrong pool abort with a
 * message naming the pool; run in a child. */
static int
expect_abort(int wrong_pool, const char *want, const char *why)
{
	struct lr_mempool *a, *b;
	int pfd[2], st;
	char out[2048];
	size_t got = 0;
	ssize_t k;
	pid_t pid;

	a = lr_mempool_create("mp_dbg_a", 16, 64, 4, 0, NULL, NULL,
			      LR_SOCKET_ID_ANY, 0);
	b = lr_mempool_create("mp_dbg_b", 16, 64, 4, 0, NULL, NULL,
			      LR_SOCKET_ID_ANY, 0);
	LR_TEST_ASSERT(a != NULL && b != NULL, "create: %s",
		       lr_strerror(lr_errno));
	LR_TEST_ASSERT_EQ(pipe(pfd), 0);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		void *o;

		close(pfd[0]);
		lr_log_set_stream(fdopen(pfd[1], "w"));
		if (lr_mempool_get(a, &o) != 0)
			_exit(3);
		if (wrong_pool) {
			lr_mempool_put(b, o);
		} else {
			lr_mempool_put(a, o);
			lr_mempool_put(a, o);
		}
		_exit(0);
	}
	close(pfd[1]);
	while ((k = read(pfd[0], out + got, sizeof(out) - 1 - got)) > 0)
		got += (size_t)k;
	out[got] = '\0';
	close(pfd[0]);
	waitpid(pid, &st, 0);
	lr_mempool_free(a);
	lr_mempool_free(b);
	LR_TEST_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT,
		       "child status %#x, said: %s", st, out);
	LR_TEST_ASSERT(strstr(out, want) && strstr(out, why), "message: %s",
		       out);
	return 0;
}

/* Debug and sanitizer builds: the put path's assert catches an object
 * of another pool (pagealloc-debug builds: the cookie check, first). */
static int
test_assert_foreign_put(void)
{
	if (!LR_ENABLE_ASSERT) {
		printf("asserts exist in debug and sanitizer builds only\n");
		return LR_TEST_SKIP;
	}
	if (LR_MEMPOOL_DEBUG)
		return expect_abort(1, "mempool 'mp_dbg_b': put of object",
				    "object of another pool");
	return expect_abort(1, "assertion 'lr_mempool_from_obj(objs[i]) == mp'",
			    "lr_mempool.h");
}

static int
test_debug_cookies(void)
{
	if (!LR_MEMPOOL_DEBUG) {
		printf("object cookies exist in debug builds only "
		       "(-Dpagealloc_debug=true)\n");
		return LR_TEST_SKIP;
	}
	if (expect_abort(0, "mempool 'mp_dbg_a': put of object",
			 "(double put)") ||
	    expect_abort(1, "mempool 'mp_dbg_b': put of object",
			 "object of another pool"))
		return -1;
	return 0;
}

/* Pools left at lr_eal_cleanup() go before the page allocator's memory;
 * the EAL comes back up after. */
static int
test_eal_cleanup(void)
{
	struct lr_mempool *mp;
	void *o;

	mp = lr_mempool_create("mp_left", 64, 64, 8, 0, NULL, NULL,
			       LR_SOCKET_ID_ANY, 0);
	LR_TEST_ASSERT(mp != NULL, "create: %s", lr_strerror(lr_errno));
	LR_TEST_ASSERT_EQ(lr_mempool_get(mp, &o), 0);
	lr_test_log_begin();
	int rc = lr_eal_cleanup();
	const char *msg = lr_test_log_end();
	LR_TEST_ASSERT_EQ(rc, 0);
	LR_TEST_ASSERT(strstr(msg, "mempool 'mp_left': freed with 1 of 64 "
				   "objects still in use") &&
			   strstr(msg, "mempool 'mp_left' still exists at EAL "
				       "cleanup: freed"),
		       "message: %s", msg);
	LR_TEST_ASSERT(lr_mempool_lookup("mp_left") == NULL, "still listed");
	/* The same init as the program's first, own prefix included. */
	LR_TEST_ASSERT(lr_test_eal_init("test_mempool", 256) == 0, "re-init");
	LR_TEST_ASSERT(strncmp(lr_eal_file_prefix(), "test_mempool_", 13) == 0,
		       "prefix '%s'", lr_eal_file_prefix());
	mp = lr_mempool_create("mp_left", 64, 64, 8, 0, NULL, NULL,
			       LR_SOCKET_ID_ANY, 0);
	LR_TEST_ASSERT(mp != NULL, "create again: %s", lr_strerror(lr_errno));
	LR_TEST_ASSERT_EQ(lr_mempool_get(mp, &o), 0);
	lr_mempool_put(mp, o);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
	lr_mempool_free(mp);
	return 0;
}

static const struct lr_test_case cases[] = {
    {"create_lookup", test_create_lookup},
    {"bad_input", test_bad_input},
    {"layout", test_layout},
    {"page_owner", test_page_owner},
    {"bulk_all_or_nothing", test_bulk_all_or_nothing},
    {"cache_boundaries", test_cache_boundaries},
    {"single", test_single},
    {"leak_report", test_leak_report},
    {"random_single", test_random_single},
    {"random_two_lcores", test_random_two_lcores},
    {"random_pthreads", test_random_pthreads},
    {"validate_and_dump", test_validate_and_dump},
    {"debug_cookies", test_debug_cookies},
    {"assert_foreign_put", test_assert_foreign_put},
    {"eal_cleanup", test_eal_cleanup},
};

int
main(int argc, char **argv)
{
	scale = lr_test_scale();
	if (lr_test_eal_init("test_mempool", 256) < 0)
		return 1;
	two_lcores = lr_lcore_count() >= 2;
	int rc = lr_test_run("mempool", cases, (int)LR_DIM(cases), argc, argv);

	lr_eal_cleanup();
	return rc;
}
