/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Elastic pools (lr_mempool_create_elastic(),
 * lr_pktmbuf_pool_create_elastic()): bad arguments; growth from min and shrink
 * back (explicit shrinker call and idle time), validate after each phase; a
 * 64k-frame backlog in a net_ring port that the pool grows for without one
 * failed allocation; the max bound on a net_null port (rx_nombuf counted,
 * nothing lost); two lcores allocating and freeing across each other; double
 * and foreign puts; the allocator's shrinker under memory pressure; blocks from
 * the requested (fake) NUMA node; mbuf IOVAs from the block's IOVA. Runs on 2
 * fake nodes of 128 MiB each.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lr_eal.h"
#include "lr_ethdev.h"
#include "lr_mbuf.h"
#include "lr_mempool.h"
#include "lr_pagealloc.h"
#include "lr_ring.h"
#include "lr_test.h"
#include "lr_test_pagealloc.h"
#include "lr_test_port.h"
#include "pagealloc_test.h"

static double scale = 1.0;
static int two_lcores;
static int fake_nodes;

static unsigned
scaled(unsigned n)
{
	unsigned v = (unsigned)(n * scale);

	return v ? v : 1;
}

static struct lr_mempool_elastic_stats
estats(const struct lr_mempool *mp)
{
	struct lr_mempool_elastic_stats s;

	memset(&s, 0, sizeof(s));
	lr_mempool_elastic_stats_get(mp, &s);
	return s;
}

/* Objects the pool has when it holds min objects in whole blocks. */
static unsigned
min_rounded(const struct lr_mempool_elastic_stats *s)
{
	unsigned b = s->objs_per_block;

	return (s->min_objs + b - 1) / b * b;
}

/* At least n objects, and so many that taking them all makes the pool grow
 * past what it starts with by extra whole blocks, even after its cache
 * (up to 1.5 times its size) keeps some: the start, the cache and the
 * blocks counted in objects of this pool's blocks, whose number the page
 * size sets (4 KiB pages: a few dozen small objects, 64 KiB: a thousand). */
static unsigned
past_start(const struct lr_mempool *mp, unsigned n, unsigned blocks)
{
	struct lr_mempool_elastic_stats s = estats(mp);
	unsigned need =
	    s.objs + mp->cache_size * 3 / 2 + blocks * s.objs_per_block;

	return LR_MAX(n, need);
}

/* ---- cases ---- */

static int
test_bad_args(void)
{
	struct lr_mempool *mp;
	const char *log;

	lr_test_log_begin();
	mp = lr_mempool_create_elastic("el_bad", 100, 10, 64, 0, 0, NULL, NULL,
				       NULL, LR_SOCKET_ID_ANY, 0);
	log = lr_test_log_end();
	LR_TEST_ASSERT(mp == NULL && lr_errno == EINVAL, "min > max taken");
	LR_TEST_ASSERT(strstr(log, "mempool 'el_bad': min 100 objects > max "
				   "10") != NULL,
		       "log: %s", log);
	lr_test_log_begin();
	mp = lr_mempool_create_elastic("el_bad", 0, 10, 64, 0, 0, NULL, NULL,
				       NULL, LR_SOCKET_ID_ANY,
				       LR_MEMPOOL_F_ELASTIC);
	log = lr_test_log_end();
	LR_TEST_ASSERT(mp == NULL && lr_errno == EINVAL, "flag taken");
	LR_TEST_ASSERT(strstr(log, "unknown flags 0x20") != NULL, "log: %s",
		       log);
	lr_test_log_begin();
	mp = lr_mempool_create_elastic("el_bad", 0, 10, 64, 64, 0, NULL, NULL,
				       NULL, LR_SOCKET_ID_ANY, 0);
	log = lr_test_log_end();
	LR_TEST_ASSERT(mp == NULL && lr_errno == EINVAL, "cache > max taken");
	lr_test_log_begin();
	mp = lr_pktmbuf_pool_create_elastic("el_bad", 0, 64, 0, 3, 256,
					    LR_SOCKET_ID_ANY);
	log = lr_test_log_end();
	LR_TEST_ASSERT(mp == NULL && lr_errno == EINVAL, "priv 3 taken");
	LR_TEST_ASSERT(strstr(log, "private size 3 not a multiple") != NULL,
		       "log: %s", log);
	/* A fixed pool has no elastic calls. */
	mp = lr_mempool_create("el_fixed", 64, 64, 0, 0, NULL, NULL,
			       LR_SOCKET_ID_ANY, 0);
	LR_TEST_ASSERT(mp != NULL, "fixed: %s", lr_strerror(lr_errno));
	struct lr_mempool_elastic_stats s;

	LR_TEST_ASSERT_EQ(lr_mempool_elastic_stats_get(mp, &s), -EINVAL);
	lr_test_log_begin();
	LR_TEST_ASSERT_EQ(lr_mempool_set_idle_shrink(mp, 1), -EINVAL);
	lr_test_log_end();
	LR_TEST_ASSERT_EQ(lr_mempool_shrink(mp, 100), 0);
	LR_TEST_ASSERT_EQ(lr_mempool_objs_count(mp), 64);
	lr_mempool_free(mp);
	return 0;
}

/* Get n objects in bursts of up to 32 into objs; how many it got. */
static unsigned
get_many(struct lr_mempool *mp, void **objs, unsigned n)
{
	unsigned got = 0;

	while (got < n) {
		unsigned k = LR_MIN(32u, n - got);

		if (lr_mempool_get_bulk(mp, objs + got, k) != 0)
			break;
		got += k;
	}
	return got;
}

static void
put_many(struct lr_mempool *mp, void **objs, unsigned n)
{
	for (unsigned i = 0; i < n; i += 32)
		lr_mempool_put_bulk(mp, objs + i, LR_MIN(32u, n - i));
}

/* Count obj_iter's calls and check each object's header. */
static void
count_obj(struct lr_mempool *mp, void *opaque, void *obj, unsigned idx)
{
	unsigned *n = opaque;

	(void)idx;
	if (lr_mempool_from_obj(obj) == mp)
		(*n)++;
}

static int
test_grow_shrink(void)
{
	unsigned n, iter = 0, blocks0;
	struct lr_mempool_elastic_stats s;
	struct lr_mempool *mp;
	void **objs;

	mp = lr_mempool_create_elastic("el_grow", 256, 8192, 200, 32, 0, NULL,
				       NULL, NULL, LR_SOCKET_ID_ANY, 0);
	LR_TEST_ASSERT(mp != NULL, "create: %s", lr_strerror(lr_errno));
	n = past_start(mp, scaled(4000), 1);
	s = estats(mp);
	LR_TEST_ASSERT(n <= mp->size, "burst of %u > bound %u", n, mp->size);
	blocks0 = s.blocks;
	LR_TEST_ASSERT_EQ(s.growths, 0); /* the fill to min is not one */
	LR_TEST_ASSERT(s.objs >= 256 && s.objs < 256 + s.objs_per_block,
		       "starts with %u objects", s.objs);
	LR_TEST_ASSERT(mp->size >= 8192 && mp->size < 8192 + s.objs_per_block,
		       "bound %u", mp->size);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
	objs = malloc(n * sizeof(*objs));
	LR_TEST_ASSERT(objs != NULL, "malloc");
	/* Burst: the pool grows with no failure. */
	LR_TEST_ASSERT_EQ(get_many(mp, objs, n), n);
	s = estats(mp);
	LR_TEST_ASSERT(s.objs >= n && s.growths > 0 && s.peak_objs == s.objs,
		       "objs %u growths %llu", s.objs,
		       (unsigned long long)s.growths);
	LR_TEST_ASSERT_EQ(s.grow_fail_max + s.grow_fail_nomem, 0);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(mp) +
			      lr_mempool_cache_count(mp, lr_lcore_id()),
			  n + lr_mempool_cache_count(mp, lr_lcore_id()));
	/* Blocks of objects that are out stay. */
	lr_mempool_shrink(mp, ~0UL);
	LR_TEST_ASSERT(estats(mp).objs >= n, "objs %u", estats(mp).objs);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
	put_many(mp, objs, n);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(mp), 0);
	/* Explicit shrinker call: everything but min and the cache's
	 * blocks goes; with the cache flushed, down to min. */
	lr_mempool_cache_flush(mp, LR_LCORE_ID_ANY);
	LR_TEST_ASSERT(lr_mempool_shrink(mp, ~0UL) > 0, "nothing shrunk");
	s = estats(mp);
	LR_TEST_ASSERT_EQ(s.objs, min_rounded(&s));
	LR_TEST_ASSERT(s.shrinks > 0 && s.shrunk_blocks ==
					    blocks0 + s.grown_blocks - s.blocks,
		       "shrinks %llu shrunk %llu grown %llu blocks %u",
		       (unsigned long long)s.shrinks,
		       (unsigned long long)s.shrunk_blocks,
		       (unsigned long long)s.grown_blocks, s.blocks);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
	/* Grows again, the same way, and obj_iter sees every object. */
	LR_TEST_ASSERT_EQ(get_many(mp, objs, n), n);
	LR_TEST_ASSERT_EQ(lr_mempool_obj_iter(mp, count_obj, &iter),
			  lr_mempool_objs_count(mp));
	LR_TEST_ASSERT_EQ(iter, lr_mempool_objs_count(mp));
	put_many(mp, objs, n);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
	free(objs);
	lr_mempool_free(mp);
	return 0;
}

static int
test_idle_shrink(void)
{
	unsigned n;
	struct lr_mempool_elastic_stats s;
	struct lr_mempool *mp;
	double deadline;
	void **objs;

	mp = lr_mempool_create_elastic("el_idle", 100, 4096, 128, 0, 0, NULL,
				       NULL, NULL, LR_SOCKET_ID_ANY, 0);
	LR_TEST_ASSERT(mp != NULL, "create: %s", lr_strerror(lr_errno));
	n = past_start(mp, scaled(3000), 1);
	LR_TEST_ASSERT(n <= mp->size, "burst of %u > bound %u", n, mp->size);
	LR_TEST_ASSERT_EQ(lr_mempool_set_idle_shrink(mp, 20), 0);
	objs = malloc(n * sizeof(*objs));
	LR_TEST_ASSERT(objs != NULL, "malloc");
	LR_TEST_ASSERT_EQ(get_many(mp, objs, n), n);
	put_many(mp, objs, n);
	s = estats(mp);
	LR_TEST_ASSERT(s.objs >= n, "objs %u", s.objs);
	/* Just freed: not idle yet (20 ms; a slow machine may make it). */
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
	/* The housekeeping call gives back what has been idle 20 ms, down
	 * to min; wait for the counter, not for a fixed time. */
	deadline = lr_test_now() + 30;
	while (estats(mp).objs > min_rounded(&s) && lr_test_now() < deadline)
		lr_mempool_shrink_idle(mp);
	s = estats(mp);
	LR_TEST_ASSERT_EQ(s.objs, min_rounded(&s));
	LR_TEST_ASSERT(s.shrinks > 0, "no shrink counted");
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
	/* Store calls check idleness too: grow again, free, and let gets
	 * and puts of a few objects (no cache: each one is a store call)
	 * run until the pool is back at min. */
	LR_TEST_ASSERT_EQ(get_many(mp, objs, n), n);
	put_many(mp, objs, n);
	deadline = lr_test_now() + 30;
	while (estats(mp).objs > min_rounded(&s) && lr_test_now() < deadline) {
		LR_TEST_ASSERT_EQ(lr_mempool_get(mp, &objs[0]), 0);
		lr_mempool_put(mp, objs[0]);
	}
	LR_TEST_ASSERT_EQ(estats(mp).objs, min_rounded(&s));
	/* Idle shrink off: nothing goes by age. */
	LR_TEST_ASSERT_EQ(lr_mempool_set_idle_shrink(mp, 0), 0);
	LR_TEST_ASSERT_EQ(get_many(mp, objs, n), n);
	put_many(mp, objs, n);
	LR_TEST_ASSERT_EQ(lr_mempool_shrink_idle(mp), 0);
	LR_TEST_ASSERT(estats(mp).objs >= n, "shrunk while off");
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
	free(objs);
	lr_mempool_free(mp);
	return 0;
}

static int
port_create(const char *devargs, const char *name, uint16_t *port)
{
	if (lr_eth_dev_create(devargs) < 0)
		return -1;
	return lr_eth_dev_get_port_by_name(name, port);
}

static void
port_down(uint16_t port)
{
	lr_eth_dev_stop(port);
	lr_eth_dev_close(port);
}

/* 64k frames sent into a net_ring port that nobody reads (two queues of
 * 32k, the most a queue has): the pool grows to hold them all without one
 * failed allocation; read back in order, freed, then the pool shrinks
 * back to min. */
static int
test_ring_backlog(void)
{
	const unsigned nframes = 65536;
	struct lr_mempool_elastic_stats s;
	struct lr_mbuf *pkts[32];
	struct lr_mempool *mp;
	uint16_t p0, p1;
	unsigned sent = 0, got = 0, fails = 0;
	double deadline;

	mp = lr_pktmbuf_pool_create_elastic("el_ring", 1024, 2 * nframes, 64, 0,
					    LR_PKTMBUF_HEADROOM + 64,
					    LR_SOCKET_ID_ANY);
	LR_TEST_ASSERT(mp != NULL, "create: %s", lr_strerror(lr_errno));
	LR_TEST_ASSERT_EQ(lr_mempool_set_idle_shrink(mp, 10), 0);
	LR_TEST_ASSERT(port_create("net_ring0", "net_ring0", &p0) == 0 &&
			   port_create("net_ring1", "net_ring1", &p1) == 0,
		       "net_ring ports: %s", lr_strerror(lr_errno));
	LR_TEST_ASSERT_EQ(lr_test_port_start(p0, 2, nframes / 2, mp), 0);
	LR_TEST_ASSERT_EQ(lr_test_port_start(p1, 2, nframes / 2, mp), 0);
	while (sent < nframes) {
		unsigned k = LR_MIN(32u, nframes - sent), t;
		uint16_t q = sent >= nframes / 2;

		if (lr_pktmbuf_alloc_bulk(mp, pkts, k) != 0) {
			fails++;
			break;
		}
		for (unsigned i = 0; i < k; i++) {
			uint32_t *d =
			    (uint32_t *)lr_pktmbuf_append(pkts[i], 64);

			d[0] = sent + i;
		}
		t = lr_eth_tx_burst(p0, q, pkts, (uint16_t)k);
		if (t < k) {
			lr_pktmbuf_free_bulk(pkts + t, k - t);
			break;
		}
		sent += k;
	}
	s = estats(mp);
	printf("  %u frames queued: pool %u objects in %u blocks of order "
	       "%u, %llu growths\n",
	       sent, s.objs, s.blocks, s.block_order,
	       (unsigned long long)s.growths);
	LR_TEST_ASSERT_EQ(fails, 0);
	LR_TEST_ASSERT_EQ(sent, nframes);
	LR_TEST_ASSERT(s.objs >= nframes && s.growths > 0, "objs %u", s.objs);
	LR_TEST_ASSERT_EQ(s.grow_fail_max + s.grow_fail_nomem, 0);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
	while (got < nframes) {
		uint16_t k = lr_eth_rx_burst(p1, got >= nframes / 2, pkts, 32);

		if (k == 0)
			break;
		for (unsigned i = 0; i < k; i++) {
			LR_TEST_ASSERT_EQ(*lr_pktmbuf_mtod(pkts[i], uint32_t *),
					  got + i);
			LR_TEST_ASSERT_EQ(lr_mbuf_validate(pkts[i]), 0);
		}
		lr_pktmbuf_free_bulk(pkts, k);
		got += k;
	}
	LR_TEST_ASSERT_EQ(got, nframes);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(mp), 0);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
	/* After the burst: idle blocks go back, down to min. */
	lr_mempool_cache_flush(mp, LR_LCORE_ID_ANY);
	deadline = lr_test_now() + 30;
	while (estats(mp).objs > min_rounded(&s) && lr_test_now() < deadline)
		lr_mempool_shrink_idle(mp);
	s = estats(mp);
	LR_TEST_ASSERT_EQ(s.objs, min_rounded(&s));
	LR_TEST_ASSERT(s.peak_objs >= nframes, "peak %u", s.peak_objs);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
	port_down(p0);
	port_down(p1);
	lr_mempool_free(mp);
	return 0;
}

/* A net_null port's receive hits the pool's max: rx_nombuf is counted,
 * nothing breaks, everything comes back. */
static int
test_max_bound(void)
{
	enum { HOLD = 4096 };
	static struct lr_mbuf *held[HOLD];
	struct lr_mempool_elastic_stats s;
	struct lr_eth_stats es;
	struct lr_mempool *mp;
	unsigned n = 0, empty = 0;
	uint16_t port;

	mp = lr_pktmbuf_pool_create_elastic("el_max", 64, 1000, 32, 0,
					    LR_MBUF_DEFAULT_BUF_SIZE,
					    LR_SOCKET_ID_ANY);
	LR_TEST_ASSERT(mp != NULL, "create: %s", lr_strerror(lr_errno));
	LR_TEST_ASSERT(port_create("net_null5,size=64", "net_null5", &port) ==
			   0,
		       "net_null5: %s", lr_strerror(lr_errno));
	LR_TEST_ASSERT_EQ(lr_test_port_start(port, 1, 256, mp), 0);
	/* Hold every packet until receives come back empty a few times. */
	while (n + 32 <= HOLD && empty < 4) {
		uint16_t k = lr_eth_rx_burst(port, 0, held + n, 32);

		empty += k == 0;
		n += k;
	}
	s = estats(mp);
	LR_TEST_ASSERT_EQ(lr_eth_stats_get(port, &es), 0);
	printf("  held %u mbufs (bound %u, %u objects): rx_nombuf %llu, "
	       "refused at max %llu\n",
	       n, mp->size, s.objs, (unsigned long long)es.rx_nombuf,
	       (unsigned long long)s.grow_fail_max);
	LR_TEST_ASSERT(empty == 4, "receives never failed (%u held)", n);
	LR_TEST_ASSERT(n <= mp->size && s.objs == mp->size, "held %u objs %u",
		       n, s.objs);
	LR_TEST_ASSERT(es.rx_nombuf > 0, "rx_nombuf not counted");
	LR_TEST_ASSERT(s.grow_fail_max > 0, "refusals at max not counted");
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
	for (unsigned i = 0; i < n; i++)
		LR_TEST_ASSERT_EQ(lr_mbuf_validate(held[i]), 0);
	lr_pktmbuf_free_bulk(held, n);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(mp), 0);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
	/* Receives work again once mbufs are back. */
	LR_TEST_ASSERT(lr_eth_rx_burst(port, 0, held, 32) == 32, "rx after");
	lr_pktmbuf_free_bulk(held, 32);
	port_down(port);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(mp), 0);
	lr_mempool_free(mp);
	return 0;
}

/* ---- two lcores ---- */

#define XMAGIC 0x6e6c2d65u

struct xworker {
	struct lr_mempool *mp;
	struct lr_ring *out, *in; /* objects to the other lcore, from it */
	unsigned iters;
	uint64_t seed;
	unsigned errors;
	unsigned fails;
	atomic_int *done; /* lcores finished sending */
};

static uint64_t
xrand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Free objects that came from the other lcore; how many. */
static unsigned
xdrain(struct xworker *w)
{
	void *objs[32];
	unsigned n = lr_ring_sc_dequeue_burst(w->in, objs, 32, NULL);

	for (unsigned i = 0; i < n; i++) {
		uint32_t *o = objs[i];

		if (o[0] != XMAGIC)
			w->errors++;
		o[0] = 0;
	}
	if (n != 0)
		lr_mempool_put_bulk(w->mp, objs, n);
	return n;
}

static int
xworkload(void *arg)
{
	struct xworker *w = arg;
	void *objs[32];

	for (unsigned it = 0; it < w->iters; it++) {
		unsigned k = 1 + (unsigned)(xrand(&w->seed) % 32), sent;

		if (lr_mempool_get_bulk(w->mp, objs, k) != 0) {
			w->fails++;
		} else {
			for (unsigned i = 0; i < k; i++) {
				uint32_t *o = objs[i];

				if (o[0] == XMAGIC)
					w->errors++; /* handed out twice */
				o[0] = XMAGIC;
			}
			sent = lr_ring_sp_enqueue_burst(w->out, objs, k, NULL);
			for (unsigned i = sent; i < k; i++)
				((uint32_t *)objs[i])[0] = 0;
			if (sent < k)
				lr_mempool_put_bulk(w->mp, objs + sent,
						    k - sent);
		}
		/* Let a backlog build now and then: the pool grows. */
		if (xrand(&w->seed) % 8 != 0)
			xdrain(w);
	}
	atomic_fetch_add(w->done, 1);
	while (atomic_load(w->done) < 2 || lr_ring_count(w->in) != 0)
		xdrain(w);
	return 0;
}

static int
test_two_lcores(void)
{
	static struct xworker w[2];
	struct lr_mempool_elastic_stats s;
	struct lr_ring *r[2];
	struct lr_mempool *mp;
	unsigned worker = lr_get_next_lcore(-1, 1, 0);
	atomic_int done;

	if (!two_lcores) {
		printf("  needs two lcores (one CPU here)\n");
		return LR_TEST_SKIP;
	}
	mp = lr_mempool_create_elastic("el_x", 128, 16384, 64, 32, 0, NULL,
				       NULL, NULL, LR_SOCKET_ID_ANY, 0);
	LR_TEST_ASSERT(mp != NULL, "create: %s", lr_strerror(lr_errno));
	r[0] = lr_ring_create("el_x0", 4096, LR_SOCKET_ID_ANY,
			      LR_RING_F_SP_ENQ | LR_RING_F_SC_DEQ);
	r[1] = lr_ring_create("el_x1", 4096, LR_SOCKET_ID_ANY,
			      LR_RING_F_SP_ENQ | LR_RING_F_SC_DEQ);
	LR_TEST_ASSERT(r[0] != NULL && r[1] != NULL, "rings");
	for (int round = 0; round < 3; round++) {
		atomic_init(&done, 0);
		for (int i = 0; i < 2; i++) {
			w[i] = (struct xworker){
			    .mp = mp,
			    .out = r[i],
			    .in = r[i ^ 1],
			    .iters = scaled(40000),
			    .seed = 0x9e3779b97f4a7c15ULL * (round * 2 + i + 1),
			    .done = &done,
			};
		}
		LR_TEST_ASSERT_EQ(
		    lr_eal_remote_launch(xworkload, &w[1], worker), 0);
		xworkload(&w[0]);
		LR_TEST_ASSERT_EQ(lr_eal_wait_lcore(worker), 0);
		LR_TEST_ASSERT_EQ(w[0].errors + w[1].errors, 0);
		LR_TEST_ASSERT_EQ(w[0].fails + w[1].fails, 0);
		LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
		LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(mp), 0);
		/* Between rounds: the shrinker takes what is free. */
		lr_mempool_shrink(mp, ~0UL);
		LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
	}
	s = estats(mp);
	printf("  peak %u objects, %llu growths, %llu shrinks\n", s.peak_objs,
	       (unsigned long long)s.growths, (unsigned long long)s.shrinks);
	LR_TEST_ASSERT(s.growths > 0, "never grew");
	lr_ring_free(r[0]);
	lr_ring_free(r[1]);
	lr_mempool_free(mp);
	return 0;
}

/* A put of an object that is already free, and of another pool's
 * object, is dropped with a log at the store (release builds; debug
 * builds abort first: on the object's cookie with pagealloc_debug, on
 * the put path's assert for a foreign object with asserts on;
 * test_mempool covers both). */
static int
test_bad_puts(void)
{
	struct lr_mempool *mp, *other;
	void *o, *f;
	const char *log;

	if (LR_MEMPOOL_DEBUG) {
		printf("  debug build: the cookie check aborts first\n");
		return LR_TEST_SKIP;
	}
	mp = lr_mempool_create_elastic("el_bad_put", 16, 64, 64, 0, 0, NULL,
				       NULL, NULL, LR_SOCKET_ID_ANY, 0);
	other = lr_mempool_create("el_other", 16, 64, 0, 0, NULL, NULL,
				  LR_SOCKET_ID_ANY, 0);
	LR_TEST_ASSERT(mp != NULL && other != NULL, "create");
	LR_TEST_ASSERT_EQ(lr_mempool_get(mp, &o), 0);
	LR_TEST_ASSERT_EQ(lr_mempool_get(other, &f), 0);
	lr_mempool_put(mp, o);
	lr_test_log_begin();
	lr_mempool_put(mp, o);
	log = lr_test_log_end();
	LR_TEST_ASSERT(strstr(log, "mempool 'el_bad_put': put of") &&
			   strstr(log, "already in the pool (double put)"),
		       "log: %s", log);
	if (LR_ENABLE_ASSERT) {
		/* The put path's assert aborts on a foreign object first
		 * (test_mempool's assert_foreign_put). */
		printf("  asserts on: the foreign put is not tried\n");
		LR_TEST_ASSERT_EQ(estats(mp).bad_puts, 1);
		LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
		lr_mempool_put(other, f);
		lr_mempool_free(other);
		lr_mempool_free(mp);
		return 0;
	}
	lr_test_log_begin();
	lr_mempool_put(mp, f);
	log = lr_test_log_end();
	LR_TEST_ASSERT(strstr(log, "not an object of this pool"), "log: %s",
		       log);
	LR_TEST_ASSERT_EQ(estats(mp).bad_puts, 2);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
	LR_TEST_ASSERT_EQ(lr_mempool_store_count(mp),
			  lr_mempool_objs_count(mp));
	lr_mempool_put(other, f);
	lr_mempool_free(other);
	lr_mempool_free(mp);
	return 0;
}

/* The page allocator runs short on the pool's node: its shrinker makes
 * the pool give back its free blocks (never below min). */
static int
test_pressure(void)
{
	unsigned n;
	struct lr_mempool_elastic_stats s, s0;
	struct lr_pagealloc_zone_info zi;
	struct lr_test_hog hog;
	struct lr_mempool *mp;
	void **objs;

	mp = lr_mempool_create_elastic("el_press", 512, 16384, 256, 0, 0, NULL,
				       NULL, NULL, LR_SOCKET_ID_ANY, 0);
	LR_TEST_ASSERT(mp != NULL, "create: %s", lr_strerror(lr_errno));
	/* Free blocks beyond min even with the cache's objects pinning
	 * some: two whole blocks more than min and a full cache. */
	n = past_start(mp, scaled(6000), 2);
	LR_TEST_ASSERT(n <= mp->size, "burst of %u > bound %u", n, mp->size);
	objs = malloc(n * sizeof(*objs));
	LR_TEST_ASSERT(objs != NULL, "malloc");
	LR_TEST_ASSERT_EQ(get_many(mp, objs, n), n);
	put_many(mp, objs, n);
	free(objs);
	s0 = estats(mp);
	LR_TEST_ASSERT(s0.objs >= n, "objs %u", s0.objs);
	LR_TEST_ASSERT_EQ(lr_pagealloc_zone_info(s0.node, &zi), 0);
	if (lr_test_hog_node(&hog, s0.node, (unsigned)zi.pages) != 0)
		return -1;
	s = estats(mp);
	lr_test_hog_free(&hog);
	printf("  took %u of %lu pages of node %d; the pool went from %u to "
	       "%u objects\n",
	       hog.n, zi.pages, s0.node, s0.objs, s.objs);
	LR_TEST_ASSERT(s.shrunk_blocks > 0, "shrinker never gave a block");
	LR_TEST_ASSERT(s.objs >= s.min_objs && s.objs < s0.objs,
		       "objs %u -> %u", s0.objs, s.objs);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
	LR_TEST_ASSERT_EQ(lr_pagealloc_validate(), 0);
	lr_mempool_free(mp);
	return 0;
}

static void
node_of_obj(struct lr_mempool *mp, void *opaque, void *obj, unsigned idx)
{
	unsigned *wrong = opaque;

	(void)mp;
	(void)idx;
	if (lr_page_node(lr_virt_to_page(obj)) != 1)
		(*wrong)++;
}

/* Blocks come from the node asked for, at creation and when growing. */
static int
test_numa(void)
{
	unsigned n = scaled(2000), wrong = 0;
	struct lr_mempool *mp;
	void **objs;

	if (!fake_nodes || lr_pagealloc_zone_count() < 2) {
		printf("  needs two (fake) nodes\n");
		return LR_TEST_SKIP;
	}
	mp = lr_pktmbuf_pool_create_elastic("el_numa", 64, 4096, 32, 0,
					    LR_MBUF_DEFAULT_BUF_SIZE, 1);
	LR_TEST_ASSERT(mp != NULL, "create: %s", lr_strerror(lr_errno));
	LR_TEST_ASSERT_EQ(estats(mp).node, 1);
	objs = malloc(n * sizeof(*objs));
	LR_TEST_ASSERT(objs != NULL, "malloc");
	LR_TEST_ASSERT_EQ(get_many(mp, objs, n), n);
	LR_TEST_ASSERT(estats(mp).growths > 0, "never grew");
	LR_TEST_ASSERT_EQ(lr_mempool_obj_iter(mp, node_of_obj, &wrong),
			  lr_mempool_objs_count(mp));
	LR_TEST_ASSERT_EQ(wrong, 0);
	put_many(mp, objs, n);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
	free(objs);
	lr_mempool_free(mp);
	return 0;
}

/* Every mbuf's buf_iova is its buffer's IOVA, from its block's. */
static void
check_iova(struct lr_mempool *mp, void *opaque, void *obj, unsigned idx)
{
	struct lr_mbuf *m = obj;
	unsigned *wrong = opaque;

	(void)mp;
	(void)idx;
	if (m->buf_iova != lr_mempool_virt2iova(m->buf_addr) ||
	    m->buf_addr != (char *)(m + 1) || m->pool != mp ||
	    m->buf_len != LR_MBUF_DEFAULT_BUF_SIZE)
		(*wrong)++;
}

/* Which cache-line offsets within their 2^order-page block the objects
 * start at (slab coloring spreads them). */
struct offsets {
	size_t block;
	unsigned char seen[(LR_PAGE_SIZE << 4) / 64];
};

static void
mark_offset(struct lr_mempool *mp, void *opaque, void *obj, unsigned idx)
{
	struct offsets *o = opaque;

	(void)mp;
	(void)idx;
	o->seen[((uintptr_t)obj & (o->block - 1)) / 64] = 1;
}

static int
test_mbuf_layout(void)
{
	static struct offsets off;
	unsigned distinct = 0;
	struct lr_mempool_elastic_stats s;
	struct lr_mbuf *m[64];
	struct lr_mempool *mp;
	unsigned wrong = 0;

	mp = lr_pktmbuf_pool_create_elastic("el_mbuf", 13, 1300, 0, 0,
					    LR_MBUF_DEFAULT_BUF_SIZE,
					    LR_SOCKET_ID_ANY);
	LR_TEST_ASSERT(mp != NULL, "create: %s", lr_strerror(lr_errno));
	s = estats(mp);
	printf("  2 KiB mbufs: blocks of order %u, %u mbufs each\n",
	       s.block_order, s.objs_per_block);
	LR_TEST_ASSERT(s.objs_per_block * mp->total_elt_size * 8 >=
			   (LR_PAGE_SIZE << s.block_order) * 7,
		       "more than 1/8 wasted: %u x %u in %lu", s.objs_per_block,
		       mp->total_elt_size, LR_PAGE_SIZE << s.block_order);
	LR_TEST_ASSERT_EQ(lr_pktmbuf_alloc_bulk(mp, m, 64), 0);
	for (unsigned i = 0; i < 64; i++) {
		LR_TEST_ASSERT_EQ(lr_mbuf_validate(m[i]), 0);
		LR_TEST_ASSERT_EQ(m[i]->refcnt, 1);
		LR_TEST_ASSERT_EQ(lr_pktmbuf_data_room_size(mp),
				  LR_MBUF_DEFAULT_BUF_SIZE);
	}
	LR_TEST_ASSERT_EQ(lr_mempool_obj_iter(mp, check_iova, &wrong),
			  lr_mempool_objs_count(mp));
	LR_TEST_ASSERT_EQ(wrong, 0);
	/* 100 blocks: their objects do not all start at the same offsets. */
	off.block = LR_PAGE_SIZE << s.block_order;
	lr_mempool_obj_iter(mp, mark_offset, &off);
	for (size_t i = 0; i < off.block / 64; i++)
		distinct += off.seen[i];
	LR_TEST_ASSERT(distinct > s.objs_per_block,
		       "objects at %u offsets in their blocks (%u per block): "
		       "no coloring",
		       distinct, s.objs_per_block);
	lr_pktmbuf_free_bulk(m, 64);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
	lr_mempool_free(mp);
	return 0;
}

/* lr_mempool_mem_bytes(): whole blocks, for fixed and elastic pools. */
static int
test_mem_bytes(void)
{
	/* Objects of over half a page that may not straddle pages: one a
	 * page, whatever the block order, so 40 take 40 pages at least
	 * (their bytes alone would be about 20). */
	unsigned elt = (unsigned)(LR_PAGE_SIZE / 2 + 64), n = 40, per;
	struct lr_mempool_elastic_stats s;
	struct lr_mempool *mp;
	size_t bytes, block;
	void **objs;

	LR_TEST_ASSERT_EQ(lr_mempool_mem_bytes(NULL), 0);
	mp = lr_mempool_create("el_memfix", n, elt, 0, 0, NULL, NULL,
			       LR_SOCKET_ID_ANY, LR_MEMPOOL_F_NO_STRADDLE);
	LR_TEST_ASSERT(mp != NULL, "fixed: %s", lr_strerror(lr_errno));
	bytes = lr_mempool_mem_bytes(mp);
	block = LR_PAGE_SIZE << mp->block_order;
	LR_TEST_ASSERT(bytes >= n * LR_PAGE_SIZE &&
			   bytes < n * LR_PAGE_SIZE + block &&
			   bytes == mp->nb_blocks * block,
		       "fixed pool of %u objects of %u bytes: %zu bytes, %u "
		       "blocks of %zu",
		       n, elt, bytes, mp->nb_blocks, block);
	lr_mempool_free(mp);
	/* Elastic: its blocks now, through growth and shrink. */
	mp = lr_mempool_create_elastic("el_memel", 64, 8192, 64, 0, 0, NULL,
				       NULL, NULL, LR_SOCKET_ID_ANY, 0);
	LR_TEST_ASSERT(mp != NULL, "elastic: %s", lr_strerror(lr_errno));
	s = estats(mp);
	block = LR_PAGE_SIZE << s.block_order;
	per = s.objs_per_block;
	LR_TEST_ASSERT_EQ(lr_mempool_mem_bytes(mp), s.blocks * block);
	n = s.objs + 3 * per;
	objs = malloc(n * sizeof(*objs));
	LR_TEST_ASSERT(objs != NULL, "malloc");
	LR_TEST_ASSERT_EQ(get_many(mp, objs, n), n);
	s = estats(mp);
	LR_TEST_ASSERT(s.blocks >= (n + per - 1) / per, "blocks %u", s.blocks);
	LR_TEST_ASSERT_EQ(lr_mempool_mem_bytes(mp), s.blocks * block);
	put_many(mp, objs, n);
	free(objs);
	LR_TEST_ASSERT(lr_mempool_shrink(mp, ~0UL) > 0, "nothing shrunk");
	s = estats(mp);
	LR_TEST_ASSERT_EQ(lr_mempool_mem_bytes(mp), s.blocks * block);
	LR_TEST_ASSERT_EQ(s.objs, min_rounded(&s));
	lr_mempool_free(mp);
	return 0;
}

static const struct lr_test_case cases[] = {
    {"bad_args", test_bad_args},
    {"grow_shrink", test_grow_shrink},
    {"idle_shrink", test_idle_shrink},
    {"ring_backlog", test_ring_backlog},
    {"max_bound", test_max_bound},
    {"two_lcores", test_two_lcores},
    {"bad_puts", test_bad_puts},
    {"pressure", test_pressure},
    {"numa", test_numa},
    {"mbuf_layout", test_mbuf_layout},
    {"mem_bytes", test_mem_bytes},
};

int
main(int argc, char **argv)
{
	int rc;

	scale = lr_test_scale();
	/* Two fake NUMA nodes of 128 MiB each. */
	fake_nodes = lr_pagealloc_test_fake_nodes(2) == 0;
	if (lr_test_eal_init("test_elastic", 256) < 0)
		return 1;
	two_lcores = lr_lcore_count() >= 2;
	rc = lr_test_run("elastic", cases, (int)LR_DIM(cases), argc, argv);
	lr_eal_cleanup();
	return rc;
}
