/* SPDX-License-Identifier: BSD-3-Clause */
/* Rings: creation and its errors, full/empty, bulk vs burst, wrap-around of
 * slots and of the 32-bit indices, exact-size capacity, and two threaded
 * tests: SP/SC keeps FIFO order, MP/MC delivers every item exactly once.
 *
 * LR_TEST_SCALE (a number, default 1) scales the item counts of the
 * threaded tests, for sanitizer and qemu-user runs; they also stop early
 * (and check what was sent) after a few seconds. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lr_cycles.h"
#include "lr_errno.h"
#include "lr_lcore.h"
#include "lr_log.h"
#include "lr_ring.h"
#include "lr_test.h"

#define OBJ(v) ((void *)(uintptr_t)(v))
#define VAL(p) ((uintptr_t)(p))

static double
test_scale(void)
{
	const char *s = getenv("LR_TEST_SCALE");
	double v = s ? atof(s) : 1.0;

	return v > 0 ? v : 1.0;
}

/* Run a creation that must fail with err; check that the log message it
 * prints contains each of the strings want1, want2 (when not NULL). */
static int
expect_create_error(const char *name, unsigned count, unsigned flags, int err,
		    const char *want1, const char *want2)
{
	char buf[512] = "";
	FILE *f = tmpfile();
	struct lr_ring *r;

	LR_TEST_ASSERT(f != NULL, "tmpfile failed");
	lr_log_set_stream(f);
	lr_errno = 0;
	r = lr_ring_create(name, count, LR_SOCKET_ID_ANY, flags);
	lr_log_set_stream(NULL);
	rewind(f);
	size_t got = fread(buf, 1, sizeof(buf) - 1, f);

	buf[got] = '\0';
	fclose(f);
	LR_TEST_ASSERT(r == NULL, "ring '%s' count %u created",
		       name ? name : "", count);
	LR_TEST_ASSERT(lr_errno == err, "lr_errno %d (%s), want %d", lr_errno,
		       lr_strerror(lr_errno), err);
	LR_TEST_ASSERT(!want1 || strstr(buf, want1), "log '%s' lacks '%s'", buf,
		       want1);
	LR_TEST_ASSERT(!want2 || strstr(buf, want2), "log '%s' lacks '%s'", buf,
		       want2);
	return 0;
}

static int
test_bad_input(void)
{
	struct lr_ring *r;

	if (expect_create_error(NULL, 64, 0, EINVAL, "NULL", NULL) ||
	    expect_create_error("rb_zero", 0, 0, EINVAL, "'rb_zero'",
				"count 0") ||
	    expect_create_error("rb_npow2", 1000, 0, EINVAL, "'rb_npow2'",
				"1000") ||
	    expect_create_error("rb_one", 1, 0, EINVAL, "'rb_one'",
				"count 1") ||
	    expect_create_error("rb_big", LR_RING_SZ_MAX, LR_RING_F_EXACT_SZ,
				EINVAL, "'rb_big'", "2147483648") ||
	    expect_create_error("rb_flags", 64, 0x100, EINVAL, "'rb_flags'",
				"0x100") ||
	    expect_create_error("a_name_that_is_much_too_long_for_a_ring", 64,
				0, ENAMETOOLONG, "too_long", NULL))
		return -1;

	r = lr_ring_create("rb_dup", 64, LR_SOCKET_ID_ANY, 0);
	LR_TEST_ASSERT(r != NULL, "create: %s", lr_strerror(lr_errno));
	if (expect_create_error("rb_dup", 128, 0, EEXIST, "'rb_dup'", NULL))
		return -1;
	lr_ring_free(r);
	/* The name is free again once the ring is gone. */
	r = lr_ring_create("rb_dup", 64, LR_SOCKET_ID_ANY, 0);
	LR_TEST_ASSERT(r != NULL, "re-create: %s", lr_strerror(lr_errno));
	lr_ring_free(r);
	lr_ring_free(NULL);
	return 0;
}

static int
test_lookup(void)
{
	struct lr_ring *a = lr_ring_create("lk_a", 16, 0, 0);
	struct lr_ring *b = lr_ring_create("lk_b", 32, 0, LR_RING_F_SP_ENQ);

	LR_TEST_ASSERT(a && b, "create: %s", lr_strerror(lr_errno));
	LR_TEST_ASSERT(lr_ring_lookup("lk_a") == a, "lookup a");
	LR_TEST_ASSERT(lr_ring_lookup("lk_b") == b, "lookup b");
	LR_TEST_ASSERT(strcmp(lr_ring_get_name(b), "lk_b") == 0, "name");
	lr_errno = 0;
	LR_TEST_ASSERT(lr_ring_lookup("lk_c") == NULL, "lookup c");
	LR_TEST_ASSERT_EQ(lr_errno, ENOENT);
	lr_ring_free(a);
	LR_TEST_ASSERT(lr_ring_lookup("lk_a") == NULL, "freed ring found");
	LR_TEST_ASSERT(lr_ring_lookup("lk_b") == b, "lookup b after free a");
	lr_ring_free(b);
	return 0;
}

/* Fill a ring one by one, check full, drain, check empty and order. */
static int
full_empty(unsigned flags)
{
	struct lr_ring *r = lr_ring_create("fe", 8, 0, flags);
	void *o;

	LR_TEST_ASSERT(r != NULL, "create: %s", lr_strerror(lr_errno));
	LR_TEST_ASSERT_EQ(lr_ring_get_capacity(r), 7);
	LR_TEST_ASSERT_EQ(lr_ring_get_size(r), 8);
	LR_TEST_ASSERT(lr_ring_empty(r) && !lr_ring_full(r), "not empty");
	LR_TEST_ASSERT_EQ(lr_ring_dequeue(r, &o), -ENOENT);
	for (unsigned i = 0; i < 7; i++) {
		LR_TEST_ASSERT_EQ(lr_ring_enqueue(r, OBJ(i + 100)), 0);
		LR_TEST_ASSERT_EQ(lr_ring_count(r), i + 1);
		LR_TEST_ASSERT_EQ(lr_ring_free_count(r), 6 - i);
	}
	LR_TEST_ASSERT(lr_ring_full(r) && !lr_ring_empty(r), "not full");
	LR_TEST_ASSERT_EQ(lr_ring_enqueue(r, OBJ(1)), -ENOBUFS);
	LR_TEST_ASSERT_EQ(lr_ring_mp_enqueue(r, OBJ(1)), -ENOBUFS);
	LR_TEST_ASSERT_EQ(lr_ring_sp_enqueue(r, OBJ(1)), -ENOBUFS);
	LR_TEST_ASSERT_EQ(lr_ring_validate(r), 0);
	for (unsigned i = 0; i < 7; i++) {
		o = NULL;
		LR_TEST_ASSERT_EQ(lr_ring_dequeue(r, &o), 0);
		LR_TEST_ASSERT_EQ(VAL(o), i + 100);
	}
	LR_TEST_ASSERT(lr_ring_empty(r), "not empty after drain");
	LR_TEST_ASSERT_EQ(lr_ring_dequeue(r, &o), -ENOENT);
	LR_TEST_ASSERT_EQ(lr_ring_mc_dequeue(r, &o), -ENOENT);
	LR_TEST_ASSERT_EQ(lr_ring_sc_dequeue(r, &o), -ENOENT);
	LR_TEST_ASSERT_EQ(lr_ring_validate(r), 0);
	lr_ring_free(r);
	return 0;
}

static int
test_full_empty(void)
{
	if (full_empty(0) || full_empty(LR_RING_F_SP_ENQ | LR_RING_F_SC_DEQ) ||
	    full_empty(LR_RING_F_SP_ENQ) || full_empty(LR_RING_F_SC_DEQ))
		return -1;
	return 0;
}

static int
test_bulk_burst(void)
{
	struct lr_ring *r = lr_ring_create("bb", 16, 0, 0);
	void *in[32], *out[32];
	unsigned fs = 99, av = 99;

	LR_TEST_ASSERT(r != NULL, "create: %s", lr_strerror(lr_errno));
	for (unsigned i = 0; i < 32; i++)
		in[i] = OBJ(i + 1);
	LR_TEST_ASSERT_EQ(lr_ring_enqueue_bulk(r, in, 10, &fs), 10);
	LR_TEST_ASSERT_EQ(fs, 5);
	/* bulk: all or nothing */
	LR_TEST_ASSERT_EQ(lr_ring_mp_enqueue_bulk(r, in + 10, 10, &fs), 0);
	LR_TEST_ASSERT_EQ(fs, 5);
	LR_TEST_ASSERT_EQ(lr_ring_sp_enqueue_bulk(r, in + 10, 6, &fs), 0);
	LR_TEST_ASSERT_EQ(lr_ring_count(r), 10);
	/* burst: as many as fit */
	LR_TEST_ASSERT_EQ(lr_ring_enqueue_burst(r, in + 10, 10, &fs), 5);
	LR_TEST_ASSERT_EQ(fs, 0);
	LR_TEST_ASSERT_EQ(lr_ring_mp_enqueue_burst(r, in, 3, &fs), 0);
	LR_TEST_ASSERT_EQ(lr_ring_sp_enqueue_burst(r, in, 3, NULL), 0);
	LR_TEST_ASSERT_EQ(lr_ring_count(r), 15);

	LR_TEST_ASSERT_EQ(lr_ring_dequeue_bulk(r, out, 20, &av), 0);
	LR_TEST_ASSERT_EQ(av, 15);
	LR_TEST_ASSERT_EQ(lr_ring_mc_dequeue_bulk(r, out, 16, NULL), 0);
	LR_TEST_ASSERT_EQ(lr_ring_sc_dequeue_bulk(r, out, 4, &av), 4);
	LR_TEST_ASSERT_EQ(av, 11);
	LR_TEST_ASSERT_EQ(lr_ring_mc_dequeue_bulk(r, out + 4, 4, &av), 4);
	LR_TEST_ASSERT_EQ(av, 7);
	LR_TEST_ASSERT_EQ(lr_ring_dequeue_burst(r, out + 8, 20, &av), 7);
	LR_TEST_ASSERT_EQ(av, 0);
	for (unsigned i = 0; i < 15; i++)
		LR_TEST_ASSERT_EQ(VAL(out[i]), i + 1);
	LR_TEST_ASSERT_EQ(lr_ring_mc_dequeue_burst(r, out, 20, &av), 0);
	LR_TEST_ASSERT_EQ(lr_ring_sc_dequeue_burst(r, out, 20, &av), 0);
	LR_TEST_ASSERT_EQ(av, 0);
	/* n == 0 moves nothing and succeeds trivially */
	LR_TEST_ASSERT_EQ(lr_ring_enqueue_bulk(r, in, 0, NULL), 0);
	LR_TEST_ASSERT_EQ(lr_ring_count(r), 0);
	LR_TEST_ASSERT_EQ(lr_ring_validate(r), 0);
	lr_ring_free(r);
	return 0;
}

/* Push and pull batches of varying size through a small ring so the slot
 * index wraps many times; mode picks SP/MP and SC/MC, burst or bulk (-1: a
 * random mix, round by round). */
static int
wrap_run(struct lr_ring *r, unsigned rounds, int mode)
{
	void *in[64], *out[64];
	uint64_t next_in = 1, next_out = 1;
	unsigned cap = lr_ring_get_capacity(r);
	unsigned seed = 12345;

	for (unsigned round = 0; round < rounds; round++) {
		seed = seed * 1103515245 + 12345;
		unsigned n = 1 + (seed >> 16) % (cap < 64 ? cap : 64);
		unsigned before = lr_ring_count(r), got;

		for (unsigned i = 0; i < n; i++)
			in[i] = OBJ(next_in + i);
		int m = mode < 0 ? (int)(seed >> 24) & 7 : mode;

		switch (m & 3) {
		case 0:
			got = lr_ring_sp_enqueue_bulk(r, in, n, NULL);
			break;
		case 1:
			got = lr_ring_mp_enqueue_bulk(r, in, n, NULL);
			break;
		case 2:
			got = lr_ring_sp_enqueue_burst(r, in, n, NULL);
			break;
		default:
			got = lr_ring_mp_enqueue_burst(r, in, n, NULL);
			break;
		}
		if (m & 2)
			LR_TEST_ASSERT_EQ(got, LR_MIN(n, cap - before));
		else
			LR_TEST_ASSERT_EQ(got, n <= cap - before ? n : 0);
		next_in += got;

		/* take a different amount out than went in */
		unsigned k = 1 + (seed >> 8) % (cap < 64 ? cap : 64);

		before = lr_ring_count(r);
		got = (m & 4) ? lr_ring_sc_dequeue_burst(r, out, k, NULL)
			      : lr_ring_mc_dequeue_burst(r, out, k, NULL);
		LR_TEST_ASSERT_EQ(got, LR_MIN(k, before));
		for (unsigned i = 0; i < got; i++)
			LR_TEST_ASSERT_EQ(VAL(out[i]), next_out + i);
		next_out += got;
	}
	/* drain */
	unsigned got;

	while ((got = lr_ring_dequeue_burst(r, out, 64, NULL)) != 0) {
		for (unsigned i = 0; i < got; i++)
			LR_TEST_ASSERT_EQ(VAL(out[i]), next_out + i);
		next_out += got;
	}
	LR_TEST_ASSERT_EQ(next_out, next_in);
	LR_TEST_ASSERT_EQ(lr_ring_validate(r), 0);
	return 0;
}

static int
test_wrap_around(void)
{
	for (int mode = -1; mode < 8; mode++) {
		struct lr_ring *r = lr_ring_create("wrap", 32, 0, 0);

		LR_TEST_ASSERT(r != NULL, "create: %s", lr_strerror(lr_errno));
		if (wrap_run(r, 5000, mode))
			return -1;
		lr_ring_free(r);
	}
	return 0;
}

/* Indices run freely over uint32_t: start them just below the wrap. */
static int
test_index_wrap(void)
{
	static const uint32_t starts[] = {UINT32_MAX - 100, UINT32_MAX,
					  0x7fffffffu - 3};

	for (unsigned s = 0; s < LR_DIM(starts); s++) {
		for (int mode = 0; mode < 8; mode += 3) {
			struct lr_ring *r =
			    lr_ring_create("iwrap", 64, 0, LR_RING_F_EXACT_SZ);

			LR_TEST_ASSERT(r != NULL, "create");
			atomic_store(&r->prod.head, starts[s]);
			atomic_store(&r->prod.tail, starts[s]);
			atomic_store(&r->cons.head, starts[s]);
			atomic_store(&r->cons.tail, starts[s]);
			LR_TEST_ASSERT_EQ(lr_ring_count(r), 0);
			LR_TEST_ASSERT_EQ(lr_ring_free_count(r), 64);
			if (wrap_run(r, 2000, mode))
				return -1;
			lr_ring_free(r);
		}
	}
	return 0;
}

/* SP/SC work from a cached copy of the opposite tail: one far out of date
 * (as a delayed MP store could leave it) must be noticed, not trusted. */
static int
test_stale_cache(void)
{
	struct lr_ring *r = lr_ring_create("stale", 16, 0, 0);
	void *in[16], *out[16];

	LR_TEST_ASSERT(r != NULL, "create");
	for (unsigned i = 0; i < 16; i++)
		in[i] = OBJ(i + 1);
	/* move the indices far on, then fill to 14 of 15 */
	for (unsigned k = 0; k < 1000; k++) {
		LR_TEST_ASSERT_EQ(lr_ring_mp_enqueue_bulk(r, in, 13, NULL), 13);
		LR_TEST_ASSERT_EQ(lr_ring_mc_dequeue_bulk(r, out, 13, NULL),
				  13);
	}
	LR_TEST_ASSERT_EQ(lr_ring_mp_enqueue_bulk(r, in, 14, NULL), 14);
	uint32_t head = atomic_load(&r->prod.head);
	static const uint32_t stale[] = {0, 16, 100, 0x80000000u};

	for (unsigned i = 0; i < LR_DIM(stale); i++) {
		unsigned fs;

		atomic_store(&r->prod.opp_tail, head - stale[i] - 15);
		LR_TEST_ASSERT_EQ(lr_ring_sp_enqueue_bulk(r, in, 2, &fs), 0);
		LR_TEST_ASSERT_EQ(fs, 1);
		atomic_store(&r->prod.opp_tail, head - stale[i] - 15);
		LR_TEST_ASSERT_EQ(lr_ring_sp_enqueue_burst(r, in, 5, NULL), 1);
		LR_TEST_ASSERT_EQ(lr_ring_sc_dequeue_bulk(r, out, 1, NULL), 1);
		LR_TEST_ASSERT_EQ(lr_ring_count(r), 14);
		head = atomic_load(&r->prod.head);
	}
	/* the consumer side: a cached prod.tail far behind or ahead */
	uint32_t ch = atomic_load(&r->cons.head);

	atomic_store(&r->cons.opp_tail, ch - 100);
	LR_TEST_ASSERT_EQ(lr_ring_sc_dequeue_burst(r, out, 16, NULL), 14);
	LR_TEST_ASSERT_EQ(lr_ring_sc_dequeue_burst(r, out, 16, NULL), 0);
	LR_TEST_ASSERT_EQ(lr_ring_validate(r), 0);
	lr_ring_free(r);
	return 0;
}

static int
test_exact_size(void)
{
	static const unsigned counts[] = {1, 3, 1000, 1024, 4095};

	for (unsigned c = 0; c < LR_DIM(counts); c++) {
		unsigned n = counts[c];
		struct lr_ring *r =
		    lr_ring_create("exact", n, 0, LR_RING_F_EXACT_SZ);

		LR_TEST_ASSERT(r != NULL, "create %u: %s", n,
			       lr_strerror(lr_errno));
		LR_TEST_ASSERT_EQ(lr_ring_get_capacity(r), n);
		LR_TEST_ASSERT(lr_ring_get_size(r) > n &&
				   lr_is_power_of_2(lr_ring_get_size(r)),
			       "size %u for %u", lr_ring_get_size(r), n);
		for (unsigned i = 0; i < n; i++)
			LR_TEST_ASSERT_EQ(lr_ring_enqueue(r, OBJ(i)), 0);
		LR_TEST_ASSERT(lr_ring_full(r), "not full at %u", n);
		LR_TEST_ASSERT_EQ(lr_ring_free_count(r), 0);
		LR_TEST_ASSERT_EQ(lr_ring_enqueue(r, OBJ(0)), -ENOBUFS);
		LR_TEST_ASSERT_EQ(lr_ring_validate(r), 0);
		for (unsigned i = 0; i < n; i++) {
			void *o;

			LR_TEST_ASSERT_EQ(lr_ring_dequeue(r, &o), 0);
			LR_TEST_ASSERT_EQ(VAL(o), i);
		}
		LR_TEST_ASSERT(lr_ring_empty(r), "not empty");
		lr_ring_free(r);
	}
	return 0;
}

static int
test_dump(void)
{
	struct lr_ring *r = lr_ring_create("dumpme", 64, 0, LR_RING_F_SC_DEQ);
	char buf[1024];
	FILE *f = tmpfile();

	LR_TEST_ASSERT(r && f, "create");
	lr_ring_enqueue(r, OBJ(1));
	lr_ring_enqueue(r, OBJ(2));
	lr_ring_dump(f, r);
	rewind(f);
	size_t got = fread(buf, 1, sizeof(buf) - 1, f);

	buf[got] = '\0';
	fclose(f);
	LR_TEST_ASSERT(strstr(buf, "'dumpme'") && strstr(buf, "MP/SC") &&
			   strstr(buf, "capacity=63") &&
			   strstr(buf, "used=2 avail=61"),
		       "dump: %s", buf);
	lr_ring_free(r);
	return 0;
}

/* ---- threaded tests ---- */

/* Producers stop early once past MIN_ITEMS when this many seconds have
 * gone (slow sanitizer or qemu-user runs without LR_TEST_SCALE); whatever
 * they produced is then checked in full. */
#define TIME_BUDGET_S 4
#define MIN_ITEMS     20000

static uint64_t
deadline_tsc(void)
{
	return lr_get_tsc_cycles() + TIME_BUDGET_S * lr_get_tsc_hz();
}

struct spsc_arg {
	struct lr_ring *r;
	uint64_t n;		   /* items to send at most */
	uint64_t deadline;	   /* TSC after which to stop early */
	_Atomic uint64_t produced; /* final count, valid once done is set */
	_Atomic int done;
	int failed;
};

static void *
spsc_producer(void *p)
{
	struct spsc_arg *a = p;
	void *objs[48];
	uint64_t next = 0;
	unsigned sz = 1;

	while (next < a->n) {
		unsigned k = (unsigned)LR_MIN((uint64_t)sz, a->n - next);

		for (unsigned i = 0; i < k; i++)
			objs[i] = OBJ(next + i);
		unsigned got = lr_ring_sp_enqueue_burst(a->r, objs, k, NULL);

		if (got == 0)
			sched_yield();
		next += got;
		sz = sz % 47 + 1;
		if (sz == 1 && next >= MIN_ITEMS &&
		    lr_get_tsc_cycles() > a->deadline)
			break;
	}
	atomic_store_explicit(&a->produced, next, memory_order_relaxed);
	atomic_store_explicit(&a->done, 1, memory_order_release);
	return NULL;
}

static void *
spsc_consumer(void *p)
{
	struct spsc_arg *a = p;
	void *objs[40];
	uint64_t next = 0;
	unsigned sz = 40;

	for (;;) {
		int done = atomic_load_explicit(&a->done, memory_order_acquire);
		unsigned got =
		    (sz & 1) ? lr_ring_sc_dequeue_burst(a->r, objs, sz, NULL)
			     : lr_ring_sc_dequeue_bulk(a->r, objs, sz, NULL);

		for (unsigned i = 0; i < got; i++) {
			if (VAL(objs[i]) != next + i) {
				fprintf(stderr, "spsc: got %lu want %lu\n",
					(unsigned long)VAL(objs[i]),
					(unsigned long)(next + i));
				a->failed = 1;
				return NULL;
			}
		}
		next += got;
		sz = sz == 1 ? 40 : sz - 1;
		if (got == 0) {
			/* done was read before the ring: all is in it */
			if (done && next == atomic_load(&a->produced))
				break;
			sched_yield();
		}
	}
	return NULL;
}

static int
test_spsc_threads(void)
{
	struct spsc_arg a = {0};
	pthread_t pt, ct;
	uint64_t t0 = lr_get_tsc_cycles();

	a.r =
	    lr_ring_create("spsc", 256, 0, LR_RING_F_SP_ENQ | LR_RING_F_SC_DEQ);
	LR_TEST_ASSERT(a.r != NULL, "create");
	a.n = LR_MAX((uint64_t)(2000000 * test_scale()), (uint64_t)MIN_ITEMS);
	a.deadline = deadline_tsc();
	LR_TEST_ASSERT(pthread_create(&ct, NULL, spsc_consumer, &a) == 0, "ct");
	LR_TEST_ASSERT(pthread_create(&pt, NULL, spsc_producer, &a) == 0, "pt");
	pthread_join(pt, NULL);
	pthread_join(ct, NULL);
	LR_TEST_ASSERT(!a.failed, "consumer saw items out of order");
	LR_TEST_ASSERT(lr_ring_empty(a.r), "ring not empty");
	LR_TEST_ASSERT_EQ(lr_ring_validate(a.r), 0);
	uint64_t n = atomic_load(&a.produced);

	printf("spsc: %lu items%s in order, %.1f cycles/item\n",
	       (unsigned long)n, n < a.n ? " (time budget hit)" : "",
	       (double)(lr_get_tsc_cycles() - t0) / (double)n);
	lr_ring_free(a.r);
	return 0;
}

#define NB_PROD 2
#define NB_CONS 2

struct mpmc_state {
	struct lr_ring *r;
	uint64_t per_prod;	    /* items each producer sends at most */
	uint64_t deadline;	    /* TSC after which producers stop early */
	_Atomic uint64_t consumed;  /* items taken so far, all consumers */
	_Atomic uint64_t produced;  /* items sent by finished producers */
	_Atomic unsigned prod_done; /* producers that finished */
	_Atomic uint64_t *seen[NB_PROD]; /* one bit per item */
	_Atomic int failed;
	_Atomic int stop; /* set when items are lost: give up */
};

struct mpmc_thread {
	struct mpmc_state *s;
	unsigned id;
	uint64_t count, sum, xor;
};

static void *
mpmc_producer(void *p)
{
	struct mpmc_thread *t = p;
	struct mpmc_state *s = t->s;
	void *objs[32];
	uint64_t seq = 0;
	unsigned sz = t->id + 1;

	while (seq < s->per_prod) {
		unsigned k = (unsigned)LR_MIN((uint64_t)sz, s->per_prod - seq);

		for (unsigned i = 0; i < k; i++) {
			uint64_t v = ((uint64_t)(t->id + 1) << 32) | (seq + i);

			objs[i] = OBJ(v);
		}
		unsigned got =
		    (sz & 1) ? lr_ring_mp_enqueue_bulk(s->r, objs, k, NULL)
			     : lr_ring_mp_enqueue_burst(s->r, objs, k, NULL);

		for (unsigned i = 0; i < got; i++) {
			t->sum += VAL(objs[i]);
			t->xor ^= VAL(objs[i]);
		}
		t->count += got;
		seq += got;
		if (got == 0)
			sched_yield();
		sz = sz % 32 + 1;
		if (sz == 1 && seq >= MIN_ITEMS &&
		    lr_get_tsc_cycles() > s->deadline)
			break;
	}
	atomic_fetch_add(&s->produced, seq);
	atomic_fetch_add(&s->prod_done, 1);
	return NULL;
}

/* Non-zero once every producer finished and everything sent was taken. */
static int
mpmc_all_taken(struct mpmc_state *s)
{
	if (atomic_load(&s->prod_done) < NB_PROD)
		return 0;
	return atomic_load(&s->consumed) >= atomic_load(&s->produced);
}

static void *
mpmc_consumer(void *p)
{
	struct mpmc_thread *t = p;
	struct mpmc_state *s = t->s;
	uint64_t last[NB_PROD];
	void *objs[32];
	unsigned sz = 32 - t->id;

	for (unsigned i = 0; i < NB_PROD; i++)
		last[i] = UINT64_MAX;
	while (!mpmc_all_taken(s) &&
	       !atomic_load_explicit(&s->stop, memory_order_relaxed)) {
		unsigned got =
		    (sz & 1) ? lr_ring_mc_dequeue_bulk(s->r, objs, sz, NULL)
			     : lr_ring_mc_dequeue_burst(s->r, objs, sz, NULL);

		sz = sz == 1 ? 32 : sz - 1;
		if (got == 0) {
			sched_yield();
			continue;
		}
		for (unsigned i = 0; i < got; i++) {
			uint64_t v = VAL(objs[i]);
			uint64_t pid = (v >> 32) - 1, seq = v & 0xffffffffu;

			if (pid >= NB_PROD || seq >= s->per_prod) {
				fprintf(stderr, "mpmc: bad item %#lx\n",
					(unsigned long)v);
				atomic_store(&s->failed, 1);
				return NULL;
			}
			uint64_t bit = 1ull << (seq & 63);
			uint64_t old = atomic_fetch_or_explicit(
			    &s->seen[pid][seq >> 6], bit, memory_order_relaxed);

			if (old & bit) {
				fprintf(stderr, "mpmc: item %#lx seen twice\n",
					(unsigned long)v);
				atomic_store(&s->failed, 1);
			}
			/* one producer's items reach one consumer in order */
			if (last[pid] != UINT64_MAX && seq <= last[pid]) {
				fprintf(
				    stderr,
				    "mpmc: producer %lu seq %lu after %lu\n",
				    (unsigned long)pid, (unsigned long)seq,
				    (unsigned long)last[pid]);
				atomic_store(&s->failed, 1);
			}
			last[pid] = seq;
			t->sum += v;
			t->xor ^= v;
		}
		t->count += got;
		atomic_fetch_add_explicit(&s->consumed, got,
					  memory_order_relaxed);
	}
	return NULL;
}

static int
test_mpmc_stress(void)
{
	struct mpmc_state s = {0};
	struct mpmc_thread prod[NB_PROD], cons[NB_CONS];
	pthread_t tid[NB_PROD + NB_CONS];
	uint64_t want_sum = 0, want_xor = 0;
	uint64_t psum = 0, pxor = 0, pcount = 0;
	uint64_t csum = 0, cxor = 0, ccount = 0;
	uint64_t t0 = lr_get_tsc_cycles();

	s.per_prod =
	    LR_MAX((uint64_t)(2000000 * test_scale()), (uint64_t)MIN_ITEMS);
	s.deadline = deadline_tsc();
	s.r = lr_ring_create("mpmc", 1024, 0, 0);
	LR_TEST_ASSERT(s.r != NULL, "create");
	for (unsigned p = 0; p < NB_PROD; p++) {
		s.seen[p] = calloc(s.per_prod / 64 + 1, sizeof(uint64_t));
		LR_TEST_ASSERT(s.seen[p] != NULL, "calloc");
	}
	for (unsigned i = 0; i < NB_CONS; i++) {
		cons[i] = (struct mpmc_thread){.s = &s, .id = i};
		LR_TEST_ASSERT(pthread_create(&tid[NB_PROD + i], NULL,
					      mpmc_consumer, &cons[i]) == 0,
			       "consumer %u", i);
	}
	for (unsigned i = 0; i < NB_PROD; i++) {
		prod[i] = (struct mpmc_thread){.s = &s, .id = i};
		LR_TEST_ASSERT(
		    pthread_create(&tid[i], NULL, mpmc_producer, &prod[i]) == 0,
		    "producer %u", i);
	}
	/* A broken ring loses items (consumers would wait forever) or
	 * stalls a producer in its publish wait: after 60 s without progress
	 * (a loaded machine or an emulator may stop a thread for seconds)
	 * stop the consumers and report, leaving stuck producers behind. */
	uint64_t hz = lr_get_tsc_hz(), last = 0, since = lr_get_tsc_cycles();

	while (!mpmc_all_taken(&s)) {
		uint64_t c = atomic_load(&s.consumed);

		if (c != last) {
			last = c;
			since = lr_get_tsc_cycles();
		} else if (lr_get_tsc_cycles() - since > 60 * hz) {
			fprintf(stderr,
				"mpmc: stuck at %lu items taken, %u producers "
				"done\n",
				(unsigned long)c, atomic_load(&s.prod_done));
			atomic_store(&s.stop, 1);
			break;
		}
		usleep(1000);
	}
	for (unsigned i = NB_PROD; i < NB_PROD + NB_CONS; i++)
		pthread_join(tid[i], NULL);
	LR_TEST_ASSERT(!atomic_load(&s.stop), "ring lost items or stalled");
	for (unsigned i = 0; i < NB_PROD; i++)
		pthread_join(tid[i], NULL);

	for (unsigned p = 0; p < NB_PROD; p++) {
		for (uint64_t q = 0; q < prod[p].count; q++) {
			uint64_t v = ((uint64_t)(p + 1) << 32) | q;

			want_sum += v;
			want_xor ^= v;
		}
		psum += prod[p].sum;
		pxor ^= prod[p].xor ;
		pcount += prod[p].count;
	}
	for (unsigned c = 0; c < NB_CONS; c++) {
		csum += cons[c].sum;
		cxor ^= cons[c].xor ;
		ccount += cons[c].count;
	}
	LR_TEST_ASSERT(!atomic_load(&s.failed), "consumers saw bad items");
	LR_TEST_ASSERT(pcount >= NB_PROD * (uint64_t)MIN_ITEMS,
		       "only %lu items produced", (unsigned long)pcount);
	LR_TEST_ASSERT_EQ(pcount, atomic_load(&s.produced));
	LR_TEST_ASSERT_EQ(ccount, pcount);
	LR_TEST_ASSERT(psum == want_sum && csum == want_sum,
		       "sums: produced %#lx consumed %#lx want %#lx",
		       (unsigned long)psum, (unsigned long)csum,
		       (unsigned long)want_sum);
	LR_TEST_ASSERT(pxor == want_xor && cxor == want_xor, "xor differs");
	for (unsigned p = 0; p < NB_PROD; p++) {
		for (uint64_t q = 0; q < s.per_prod; q++) {
			uint64_t w = atomic_load_explicit(&s.seen[p][q >> 6],
							  memory_order_relaxed);
			int want = q < prod[p].count;

			LR_TEST_ASSERT(!!(w & (1ull << (q & 63))) == want,
				       "item %u/%lu %s", p, (unsigned long)q,
				       want ? "never seen"
					    : "seen, never sent");
		}
		free(s.seen[p]);
	}
	LR_TEST_ASSERT(lr_ring_empty(s.r), "ring not empty");
	LR_TEST_ASSERT_EQ(lr_ring_validate(s.r), 0);
	printf("mpmc: %d producers, %d consumers, %lu items%s each seen once, "
	       "%.1f cycles/item\n",
	       NB_PROD, NB_CONS, (unsigned long)ccount,
	       ccount < NB_PROD * s.per_prod ? " (time budget hit)" : "",
	       (double)(lr_get_tsc_cycles() - t0) / (double)ccount);
	lr_ring_free(s.r);
	return 0;
}

/* clang-format off */
static const struct lr_test_case cases[] = {
	{ "bad_input", test_bad_input },
	{ "lookup", test_lookup },
	{ "full_empty", test_full_empty },
	{ "bulk_burst", test_bulk_burst },
	{ "wrap_around", test_wrap_around },
	{ "index_wrap", test_index_wrap },
	{ "stale_cache", test_stale_cache },
	{ "exact_size", test_exact_size },
	{ "dump", test_dump },
	{ "spsc_threads", test_spsc_threads },
	{ "mpmc_stress", test_mpmc_stress },
};
/* clang-format on */

LR_TEST_MAIN("ring", cases)
