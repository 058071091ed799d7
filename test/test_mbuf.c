/* SPDX-License-Identifier: BSD-3-Clause */
/* mbuf: pool creation and bad input, fields after alloc, IOVA, data
 * helpers at their limits, chains, reference counts, bulk alloc/free
 * across pools, free on another lcore, dump. LR_TEST_SCALE (< 1)
 * shortens the cross-lcore case. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lr_eal.h"
#include "lr_mbuf.h"
#include "lr_pagealloc.h"
#include "lr_test.h"

static double scale = 1.0;
static int two_lcores;

/* Fields of an mbuf fresh from alloc. */
static int
check_fresh(struct lr_mbuf *m, struct lr_mempool *mp, uint16_t room,
	    uint16_t priv)
{
	LR_TEST_ASSERT(m != NULL, "no mbuf");
	LR_TEST_ASSERT(m->pool == mp, "pool %p", (void *)m->pool);
	LR_TEST_ASSERT_EQ(m->buf_len, room);
	LR_TEST_ASSERT_EQ(m->priv_size, priv);
	LR_TEST_ASSERT(m->buf_addr == (char *)(m + 1) + priv, "buf_addr");
	LR_TEST_ASSERT_EQ(m->buf_iova, lr_mempool_virt2iova(m->buf_addr));
	LR_TEST_ASSERT_EQ(m->data_off, LR_MIN(LR_PKTMBUF_HEADROOM, room));
	LR_TEST_ASSERT_EQ(m->refcnt, 1);
	LR_TEST_ASSERT_EQ(m->nb_segs, 1);
	LR_TEST_ASSERT_EQ(m->port, LR_MBUF_PORT_INVALID);
	LR_TEST_ASSERT_EQ(m->pkt_len, 0);
	LR_TEST_ASSERT_EQ(m->data_len, 0);
	LR_TEST_ASSERT_EQ(m->ol_flags, 0);
	LR_TEST_ASSERT_EQ(m->packet_type, 0);
	LR_TEST_ASSERT_EQ(m->vlan_tci, 0);
	LR_TEST_ASSERT(m->next == NULL, "next set");
	LR_TEST_ASSERT_EQ(lr_mbuf_validate(m), 0);
	return 0;
}

static int
test_layout(void)
{
	/* rx/tx fields on the first 64 bytes, next opens the second. */
	LR_TEST_ASSERT(offsetof(struct lr_mbuf, pool) + sizeof(void *) <= 64,
		       "pool at %zu", offsetof(struct lr_mbuf, pool));
	LR_TEST_ASSERT(offsetof(struct lr_mbuf, hash_rss) < 64, "hash_rss");
	LR_TEST_ASSERT(offsetof(struct lr_mbuf, buf_len) < 64, "buf_len");
	LR_TEST_ASSERT_EQ(offsetof(struct lr_mbuf, next), 64);
	LR_TEST_ASSERT_EQ(sizeof(struct lr_mbuf), 128);
	/* Offload metadata in the second line, read only when a flag of
	 * the first asks for it. */
	LR_TEST_ASSERT(offsetof(struct lr_mbuf, tx_offload) >= 64 &&
			   offsetof(struct lr_mbuf, csum_start) >= 64 &&
			   offsetof(struct lr_mbuf, csum_offset) >= 64,
		       "offload fields in the first line");
	return 0;
}

static int
test_pool_create(void)
{
	struct lr_mempool *mp, *mp2;
	struct lr_mbuf *m;

	mp = lr_pktmbuf_pool_create("mb_basic", 512, 32, 0,
				    LR_MBUF_DEFAULT_BUF_SIZE, LR_SOCKET_ID_ANY);
	LR_TEST_ASSERT(mp != NULL, "create: %s", lr_strerror(lr_errno));
	LR_TEST_ASSERT_EQ(lr_pktmbuf_data_room_size(mp),
			  LR_MBUF_DEFAULT_BUF_SIZE);
	LR_TEST_ASSERT_EQ(lr_pktmbuf_priv_size(mp), 0);
	m = lr_pktmbuf_alloc(mp);
	if (check_fresh(m, mp, LR_MBUF_DEFAULT_BUF_SIZE, 0))
		return -1;
	LR_TEST_ASSERT_EQ(lr_pktmbuf_headroom(m), LR_PKTMBUF_HEADROOM);
	LR_TEST_ASSERT_EQ(lr_pktmbuf_tailroom(m), LR_MBUF_DEFAULT_DATAROOM);
	LR_TEST_ASSERT((uintptr_t)m % LR_CACHE_LINE_SIZE == 0, "mbuf at %p",
		       (void *)m);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(mp), 1);
	lr_pktmbuf_free(m);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(mp), 0);
	lr_pktmbuf_free(NULL);

	/* Private area, small data room (headroom clipped). */
	mp2 =
	    lr_pktmbuf_pool_create("mb_priv", 64, 0, 16, 64, LR_SOCKET_ID_ANY);
	LR_TEST_ASSERT(mp2 != NULL, "create: %s", lr_strerror(lr_errno));
	m = lr_pktmbuf_alloc(mp2);
	if (check_fresh(m, mp2, 64, 16))
		return -1;
	LR_TEST_ASSERT(lr_mbuf_to_priv(m) == (void *)(m + 1), "priv");
	LR_TEST_ASSERT_EQ(lr_pktmbuf_tailroom(m), 0);
	lr_pktmbuf_free(m);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp2), 0);
	lr_mempool_free(mp2);

	/* Bad input. */
	static const struct {
		const char *name;
		unsigned n, cache;
		uint16_t priv, room;
		int err;
		const char *msg;
	} bad[] = {
	    {"mb_bad1", 64, 0, 7, 2176, EINVAL,
	     "mbuf pool 'mb_bad1': private size 7 not a multiple of 8"},
	    {"mb_bad2", 64, 0, 0, 0, EINVAL,
	     "mbuf pool 'mb_bad2': data room size 0"},
	    {"mb_bad3", 0, 0, 0, 2176, EINVAL,
	     "mempool 'mb_bad3': pool size 0"},
	    {"mb_bad4", 64, 128, 0, 2176, EINVAL,
	     "mempool 'mb_bad4': cache size 128 > pool size 64"},
	    {"mb_basic", 64, 0, 0, 2176, EEXIST,
	     "mempool 'mb_basic': name already in use"},
	};
	for (unsigned i = 0; i < LR_DIM(bad); i++) {
		lr_test_log_begin();
		mp2 = lr_pktmbuf_pool_create(bad[i].name, bad[i].n,
					     bad[i].cache, bad[i].priv,
					     bad[i].room, LR_SOCKET_ID_ANY);
		const char *msg = lr_test_log_end();
		LR_TEST_ASSERT(mp2 == NULL, "case %u accepted", i);
		LR_TEST_ASSERT(lr_errno == bad[i].err, "case %u: errno %d", i,
			       lr_errno);
		LR_TEST_ASSERT(strstr(msg, bad[i].msg), "case %u: message: %s",
			       i, msg);
	}
	lr_mempool_free(mp);
	return 0;
}

static int
test_data_ops(void)
{
	struct lr_mempool *mp;
	struct lr_mbuf *m;
	char *p, *q;

	mp = lr_pktmbuf_pool_create("mb_data", 64, 8, 0,
				    LR_MBUF_DEFAULT_BUF_SIZE, LR_SOCKET_ID_ANY);
	LR_TEST_ASSERT(mp != NULL, "create: %s", lr_strerror(lr_errno));
	m = lr_pktmbuf_alloc(mp);
	LR_TEST_ASSERT(m != NULL, "alloc");

	p = lr_pktmbuf_append(m, 100);
	LR_TEST_ASSERT(p == lr_pktmbuf_mtod(m, char *), "append start");
	for (int i = 0; i < 100; i++)
		p[i] = (char)i;
	LR_TEST_ASSERT_EQ(m->pkt_len, 100);
	LR_TEST_ASSERT_EQ(m->data_len, 100);
	q = lr_pktmbuf_prepend(m, 14);
	LR_TEST_ASSERT(q == p - 14, "prepend start");
	LR_TEST_ASSERT(q == lr_pktmbuf_mtod(m, char *), "mtod");
	LR_TEST_ASSERT_EQ(lr_pktmbuf_headroom(m), LR_PKTMBUF_HEADROOM - 14);
	LR_TEST_ASSERT_EQ(m->pkt_len, 114);
	LR_TEST_ASSERT_EQ(*lr_pktmbuf_mtod_offset(m, char *, 14 + 7), 7);
	LR_TEST_ASSERT_EQ(lr_pktmbuf_iova(m),
			  lr_mempool_virt2iova(lr_pktmbuf_mtod(m, void *)));
	q = lr_pktmbuf_adj(m, 14);
	LR_TEST_ASSERT(q == p, "adj");
	LR_TEST_ASSERT_EQ(m->pkt_len, 100);
	LR_TEST_ASSERT_EQ(lr_pktmbuf_trim(m, 40), 0);
	LR_TEST_ASSERT_EQ(m->pkt_len, 60);
	LR_TEST_ASSERT_EQ(m->data_len, 60);

	/* Limits: nothing changes on failure. */
	uint16_t tail = lr_pktmbuf_tailroom(m), head = lr_pktmbuf_headroom(m);

	LR_TEST_ASSERT(lr_pktmbuf_append(m, tail + 1) == NULL, "append");
	LR_TEST_ASSERT(lr_pktmbuf_prepend(m, head + 1) == NULL, "prepend");
	LR_TEST_ASSERT(lr_pktmbuf_adj(m, 61) == NULL, "adj");
	LR_TEST_ASSERT_EQ(lr_pktmbuf_trim(m, 61), -EINVAL);
	LR_TEST_ASSERT_EQ(m->pkt_len, 60);
	LR_TEST_ASSERT_EQ(m->data_len, 60);
	LR_TEST_ASSERT_EQ(lr_pktmbuf_tailroom(m), tail);
	/* Exactly at the limits works. */
	LR_TEST_ASSERT(lr_pktmbuf_append(m, tail) != NULL, "append all");
	LR_TEST_ASSERT_EQ(lr_pktmbuf_tailroom(m), 0);
	LR_TEST_ASSERT(lr_pktmbuf_prepend(m, head) != NULL, "prepend all");
	LR_TEST_ASSERT_EQ(lr_pktmbuf_headroom(m), 0);
	LR_TEST_ASSERT_EQ(m->data_len, LR_MBUF_DEFAULT_BUF_SIZE);
	LR_TEST_ASSERT(lr_pktmbuf_adj(m, m->data_len) != NULL, "adj all");
	LR_TEST_ASSERT_EQ(m->pkt_len, 0);
	LR_TEST_ASSERT_EQ(lr_mbuf_validate(m), 0);

	/* Dirty fields are reset by the next alloc. */
	m->ol_flags = LR_MBUF_F_RX_VLAN;
	m->port = 3;
	m->vlan_tci = 77;
	m->packet_type = 9;
	m->hash_rss = 0x1234;
	lr_pktmbuf_free(m);
	lr_mempool_cache_flush(mp, LR_LCORE_ID_ANY);
	for (unsigned i = 0; i < mp->size; i++) {
		m = lr_pktmbuf_alloc(mp);
		if (check_fresh(m, mp, LR_MBUF_DEFAULT_BUF_SIZE, 0))
			return -1;
	}
	LR_TEST_ASSERT(lr_pktmbuf_alloc(mp) == NULL, "alloc from empty");
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
	/* lr_mempool_free reports these 64 as still out. */
	lr_test_log_begin();
	lr_mempool_free(mp);
	const char *msg = lr_test_log_end();
	LR_TEST_ASSERT(strstr(msg, "freed with 64 of 64 objects still in use"),
		       "message: %s", msg);
	return 0;
}

static int
test_chains(void)
{
	struct lr_mempool *mp;
	struct lr_mbuf *seg[3], *m;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	mp = lr_pktmbuf_pool_create("mb_chain", 32, 0, 0,
				    LR_MBUF_DEFAULT_BUF_SIZE, LR_SOCKET_ID_ANY);
	LR_TEST_ASSERT(mp != NULL, "create: %s", lr_strerror(lr_errno));
	LR_TEST_ASSERT_EQ(lr_pktmbuf_alloc_bulk(mp, seg, 3), 0);
	for (int i = 0; i < 3; i++) {
		char *p = lr_pktmbuf_append(seg[i], 1000);

		LR_TEST_ASSERT(p != NULL, "append %d", i);
		memset(p, 'a' + i, 1000);
	}
	m = seg[0];
	LR_TEST_ASSERT_EQ(lr_pktmbuf_chain(m, seg[1]), 0);
	LR_TEST_ASSERT_EQ(lr_pktmbuf_chain(m, seg[2]), 0);
	LR_TEST_ASSERT_EQ(m->nb_segs, 3);
	LR_TEST_ASSERT_EQ(m->pkt_len, 3000);
	LR_TEST_ASSERT(lr_pktmbuf_lastseg(m) == seg[2], "last segment");
	LR_TEST_ASSERT(!lr_pktmbuf_is_contiguous(m), "contiguous");
	LR_TEST_ASSERT_EQ(lr_mbuf_validate(m), 0);
	/* append/trim act on the last segment. */
	LR_TEST_ASSERT(lr_pktmbuf_append(m, 10) != NULL, "append");
	LR_TEST_ASSERT_EQ(seg[2]->data_len, 1010);
	LR_TEST_ASSERT_EQ(m->pkt_len, 3010);
	LR_TEST_ASSERT_EQ(lr_pktmbuf_trim(m, 1010), 0);
	LR_TEST_ASSERT_EQ(seg[2]->data_len, 0);
	LR_TEST_ASSERT_EQ(lr_pktmbuf_trim(m, 1), -EINVAL);
	LR_TEST_ASSERT_EQ(m->pkt_len, 2000);
	LR_TEST_ASSERT_EQ(lr_mbuf_validate(m), 0);
	/* A broken header is caught. */
	m->pkt_len = 5;
	lr_test_log_begin();
	int rc = lr_mbuf_validate(m);
	const char *msg = lr_test_log_end();
	LR_TEST_ASSERT_EQ(rc, -EINVAL);
	LR_TEST_ASSERT(
	    strstr(msg, "3 segments of 2000 bytes, header says 3 of 5"),
	    "message: %s", msg);
	m->pkt_len = 2000;

	f = open_memstream(&buf, &len);
	lr_pktmbuf_dump(f, m, 2000);
	fclose(f);
	LR_TEST_ASSERT(strstr(buf, "pool mb_chain, pkt_len 2000, nb_segs 3") &&
			   strstr(buf, "segment 2 at") &&
			   strstr(buf, "0000: 61 61 61") &&
			   strstr(buf, "03e8: 62 62 62"),
		       "dump: %s", buf);
	free(buf);

	/* Freeing the head frees every segment. */
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(mp), 3);
	lr_pktmbuf_free(m);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(mp), 0);
	/* Segments come back in the pool state. */
	for (int i = 0; i < 3; i++) {
		LR_TEST_ASSERT(seg[i]->next == NULL, "seg %d next", i);
		LR_TEST_ASSERT_EQ(seg[i]->nb_segs, 1);
		LR_TEST_ASSERT_EQ(seg[i]->refcnt, 1);
	}
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
	lr_mempool_free(mp);
	return 0;
}

static int
test_refcnt(void)
{
	struct lr_mempool *mp;
	struct lr_mbuf *m, *s[2];

	mp = lr_pktmbuf_pool_create("mb_ref", 16, 0, 0, 512, LR_SOCKET_ID_ANY);
	LR_TEST_ASSERT(mp != NULL, "create: %s", lr_strerror(lr_errno));
	m = lr_pktmbuf_alloc(mp);
	LR_TEST_ASSERT(m != NULL, "alloc");
	lr_mbuf_refcnt_update(m, 2);
	LR_TEST_ASSERT_EQ(lr_mbuf_refcnt_read(m), 3);
	lr_pktmbuf_free(m);
	lr_pktmbuf_free(m);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(mp), 1);
	LR_TEST_ASSERT_EQ(lr_mbuf_refcnt_read(m), 1);
	lr_pktmbuf_free(m);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(mp), 0);
	LR_TEST_ASSERT_EQ(m->refcnt, 1);

	/* A shared chain: each segment lives until its last reference. */
	LR_TEST_ASSERT_EQ(lr_pktmbuf_alloc_bulk(mp, s, 2), 0);
	LR_TEST_ASSERT_EQ(lr_pktmbuf_chain(s[0], s[1]), 0);
	lr_pktmbuf_refcnt_update(s[0], 1);
	LR_TEST_ASSERT_EQ(lr_mbuf_refcnt_read(s[1]), 2);
	lr_pktmbuf_free_bulk(s, 1);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(mp), 2);
	LR_TEST_ASSERT_EQ(s[0]->nb_segs, 2);
	LR_TEST_ASSERT(s[0]->next == s[1], "chain cut by a shared free");
	lr_pktmbuf_free(s[0]);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(mp), 0);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
	lr_mempool_free(mp);
	return 0;
}

static int
test_bulk(void)
{
	enum { N = 256 };
	struct lr_mempool *a, *b;
	struct lr_mbuf *ma[N], *mb[N], *mix[2 * N + 8];
	unsigned k = 0;

	a = lr_pktmbuf_pool_create("mb_bulk_a", N, 32, 0, 256,
				   LR_SOCKET_ID_ANY);
	b = lr_pktmbuf_pool_create("mb_bulk_b", N, 0, 8, 256, LR_SOCKET_ID_ANY);
	LR_TEST_ASSERT(a != NULL && b != NULL, "create: %s",
		       lr_strerror(lr_errno));
	LR_TEST_ASSERT_EQ(lr_pktmbuf_alloc_bulk(a, ma, N - 10), 0);
	/* Short: all or nothing. */
	for (unsigned i = 0; i < N; i++)
		mb[i] = NULL;
	LR_TEST_ASSERT_EQ(lr_pktmbuf_alloc_bulk(a, mb, 11), -ENOENT);
	for (unsigned i = 0; i < 11; i++)
		LR_TEST_ASSERT(mb[i] == NULL, "failed alloc wrote slot %u", i);
	LR_TEST_ASSERT_EQ(lr_pktmbuf_alloc_bulk(a, &ma[N - 10], 10), 0);
	LR_TEST_ASSERT_EQ(lr_pktmbuf_alloc_bulk(b, mb, N), 0);
	for (unsigned i = 0; i < N; i++) {
		if (check_fresh(ma[i], a, 256, 0) ||
		    check_fresh(mb[i], b, 256, 8))
			return -1;
	}
	/* Interleave the pools, NULLs, and a chain across both pools. */
	LR_TEST_ASSERT_EQ(lr_pktmbuf_chain(ma[0], mb[0]), 0);
	for (unsigned i = 1; i < N; i++) {
		mix[k++] = (i % 3) ? ma[i] : mb[i];
		if (i % 50 == 0)
			mix[k++] = NULL;
	}
	for (unsigned i = 1; i < N; i++)
		mix[k++] = (i % 3) ? mb[i] : ma[i];
	mix[k++] = ma[0];
	lr_pktmbuf_free_bulk(mix, k);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(a), 0);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(b), 0);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(a), 0);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(b), 0);
	lr_mempool_free(a);
	lr_mempool_free(b);
	return 0;
}

/* Free on another lcore than the one that allocated. */
struct xfer {
	struct lr_mbuf *m[64];
	_Atomic unsigned seq; /* odd: batch ready, even: consumed */
	unsigned rounds;
};

static int
xfer_free(void *arg)
{
	struct xfer *x = arg;

	for (unsigned r = 0; r < x->rounds; r++) {
		while (atomic_load_explicit(&x->seq, memory_order_acquire) !=
		       2 * r + 1)
			lr_pause();
		lr_pktmbuf_free_bulk(x->m, 64);
		atomic_store_explicit(&x->seq, 2 * r + 2, memory_order_release);
	}
	return 0;
}

/* A pool laid over caller memory (an AF_XDP UMEM's shape): one mbuf per
 * frame at a fixed offset, every frame handed out once, bad layouts
 * refused, the memory left to its owner. */
static int
test_xmem(void)
{
	enum { ORDER = 4, FRAME = 2048 };
	size_t len = (size_t)LR_PAGE_SIZE << ORDER;
	unsigned nframes = (unsigned)(len / FRAME);
	unsigned mb_off = lr_mempool_obj_offset(0);
	unsigned buf_off = lr_pktmbuf_xmem_buf_offset(0);
	struct lr_mbuf **all;
	struct lr_mempool *mp;
	struct lr_page *pg;
	unsigned char *seen;
	char *base;
	int rc = -1;

	pg = lr_alloc_pages(LR_SOCKET_ID_ANY, ORDER, LR_ALLOC_PINNED);
	LR_TEST_ASSERT(pg != NULL, "no pages: %s", lr_strerror(lr_errno));
	base = lr_page_address(pg);
	all = calloc(nframes + 1, sizeof(*all));
	seen = calloc(nframes, 1);
	if (all == NULL || seen == NULL)
		goto free_pages;

	/* Bad layouts: the error names the pool and the reason. */
	lr_test_log_begin();
	mp = lr_pktmbuf_pool_create_xmem("xm_bad", base, len, 256, 0, 0,
					 LR_SOCKET_ID_ANY);
	LR_TEST_ASSERT(mp == NULL && lr_errno == EINVAL, "frame 256 taken");
	mp = lr_mempool_create_xmem("xm_bad", base + 8, len - 64, FRAME, 64, 0,
				    0, NULL, NULL, LR_SOCKET_ID_ANY, 0);
	LR_TEST_ASSERT(mp == NULL && lr_errno == EINVAL, "unaligned taken");
	mp = lr_mempool_create_xmem("xm_bad", base, FRAME - 1, FRAME, 64, 0, 0,
				    NULL, NULL, LR_SOCKET_ID_ANY, 0);
	LR_TEST_ASSERT(mp == NULL && lr_errno == EINVAL, "empty taken");
	const char *log = lr_test_log_end();

	LR_TEST_ASSERT(strstr(log, "mempool 'xm_bad'") != NULL, "log: %s", log);

	mp = lr_pktmbuf_pool_create_xmem("xm_umem", base, len, FRAME, 8, 0,
					 LR_SOCKET_ID_ANY);
	LR_TEST_ASSERT(mp != NULL, "create: %s", lr_strerror(lr_errno));
	LR_TEST_ASSERT_EQ(mp->size, nframes);
	LR_TEST_ASSERT_EQ(lr_pktmbuf_data_room_size(mp), FRAME - buf_off);
	for (unsigned i = 0; i < nframes; i++) {
		struct lr_mbuf *m = lr_pktmbuf_alloc(mp);
		size_t off;

		LR_TEST_ASSERT(m != NULL, "frame %u of %u missing", i, nframes);
		if (check_fresh(m, mp, (uint16_t)(FRAME - buf_off), 0) != 0)
			goto free_pool;
		off = (size_t)((char *)m - base);
		LR_TEST_ASSERT(off % FRAME == mb_off, "mbuf at offset %zu",
			       off);
		LR_TEST_ASSERT((char *)m->buf_addr ==
				   base + off - mb_off + buf_off,
			       "buffer of frame %zu", off / FRAME);
		LR_TEST_ASSERT(!seen[off / FRAME]++, "frame %zu twice",
			       off / FRAME);
		all[i] = m;
	}
	LR_TEST_ASSERT(lr_pktmbuf_alloc(mp) == NULL, "more frames than memory");
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(mp), nframes);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
	lr_pktmbuf_free_bulk(all, nframes);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(mp), 0);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
	rc = 0;
free_pool:
	lr_mempool_free(mp);
free_pages:
	/* The pool never owned the pages: they free without complaint. */
	lr_free_pages(pg, ORDER);
	free(all);
	free(seen);
	return rc;
}

/* A pool whose buffers are an external array (a memif zero-copy region):
 * mbuf i keeps buffer i for life, headers stay out of the array, data
 * written through the mbuf lands in the array, validate checks where the
 * buffer is, bad arguments are refused. */
static int
test_extbuf(void)
{
	enum { N = 96, BUF = 2176 };
	struct lr_mbuf *all[N + 1], *m;
	unsigned char seen[N] = {0};
	struct lr_mempool *mp;
	char *arr = aligned_alloc(LR_CACHE_LINE_SIZE, (size_t)N * BUF);
	void *keep;
	int rc = -1;

	LR_TEST_ASSERT(arr != NULL, "no memory");
	memset(arr, 0, (size_t)N * BUF);
	lr_test_log_begin();
	mp = lr_pktmbuf_pool_create_extbuf("eb_bad", N, 0, 0, arr + 8, BUF,
					   LR_SOCKET_ID_ANY);
	LR_TEST_ASSERT(mp == NULL && lr_errno == EINVAL, "unaligned taken");
	mp = lr_pktmbuf_pool_create_extbuf("eb_bad", N, 0, 0, arr, 0,
					   LR_SOCKET_ID_ANY);
	LR_TEST_ASSERT(mp == NULL && lr_errno == EINVAL, "size 0 taken");
	mp = lr_pktmbuf_pool_create_extbuf("eb_bad", N, 0, 4, arr, BUF,
					   LR_SOCKET_ID_ANY);
	LR_TEST_ASSERT(mp == NULL && lr_errno == EINVAL, "priv 4 taken");
	const char *log = lr_test_log_end();

	LR_TEST_ASSERT(strstr(log, "mbuf pool 'eb_bad'") != NULL, "log: %s",
		       log);
	mp = lr_pktmbuf_pool_create_extbuf("eb_pool", N, 8, 16, arr, BUF,
					   LR_SOCKET_ID_ANY);
	if (mp == NULL) {
		free(arr);
		LR_TEST_ASSERT(0, "create: %s", lr_strerror(lr_errno));
	}
	LR_TEST_ASSERT_EQ(lr_pktmbuf_data_room_size(mp), BUF);
	LR_TEST_ASSERT_EQ(lr_pktmbuf_priv_size(mp), 16);
	for (unsigned i = 0; i < N; i++) {
		size_t off;

		m = all[i] = lr_pktmbuf_alloc(mp);
		if (m == NULL || m->buf_len != BUF || m->priv_size != 16 ||
		    m->data_off != LR_PKTMBUF_HEADROOM || m->pkt_len != 0 ||
		    m->buf_iova != (uint64_t)(uintptr_t)m->buf_addr ||
		    lr_mbuf_validate(m) != 0) {
			fprintf(stderr, "mbuf %u of %u missing or not fresh\n",
				i, N);
			goto free_pool;
		}
		off = (size_t)((char *)m->buf_addr - arr);
		/* the header is not in the array, the buffer is, once */
		if ((char *)m + sizeof(*m) > arr &&
		    (char *)m < arr + (size_t)N * BUF) {
			fprintf(stderr, "mbuf %u header inside the buffers\n",
				i);
			goto free_pool;
		}
		if ((char *)m->buf_addr < arr || off % BUF != 0 ||
		    off / BUF >= N || seen[off / BUF]++) {
			fprintf(stderr, "mbuf %u: buffer at offset %zu\n", i,
				off);
			goto free_pool;
		}
		/* data written through the mbuf lands in buffer off / BUF */
		char *d = lr_pktmbuf_append(m, 100);

		if (d != arr + off + LR_PKTMBUF_HEADROOM) {
			fprintf(stderr, "mbuf %u: data not in its buffer\n", i);
			goto free_pool;
		}
		memset(d, (int)(i + 1), 100);
	}
	if (lr_pktmbuf_alloc(mp) != NULL) {
		fprintf(stderr, "more mbufs than buffers\n");
		goto free_pool;
	}
	for (unsigned i = 0; i < N; i++) {
		size_t off = (size_t)((char *)all[i]->buf_addr - arr);

		if (arr[off + LR_PKTMBUF_HEADROOM + 99] != (char)(i + 1)) {
			fprintf(stderr, "buffer of mbuf %u: wrong byte\n", i);
			goto free_pool;
		}
	}
	/* a buffer moved (between two of the array's) is caught */
	keep = all[3]->buf_addr;
	all[3]->buf_addr = (char *)keep + 64;
	lr_test_log_begin();
	int bad = lr_mbuf_validate(all[3]);

	log = lr_test_log_end();
	all[3]->buf_addr = keep;
	if (bad != -EINVAL ||
	    strstr(log, "outside its pool's buffers") == NULL) {
		fprintf(stderr, "moved buffer not caught: %d '%s'\n", bad, log);
		goto free_pool;
	}
	lr_pktmbuf_free_bulk(all, N);
	/* freed and taken again: the same buffer for the same mbuf */
	m = lr_pktmbuf_alloc(mp);
	keep = m ? m->buf_addr : NULL;
	lr_pktmbuf_free(m);
	if (m == NULL || lr_pktmbuf_alloc(mp) != m || m->buf_addr != keep ||
	    m->data_len != 0) {
		fprintf(stderr, "mbuf lost its buffer across free/alloc\n");
		goto free_pool;
	}
	lr_pktmbuf_free(m);
	if (lr_mempool_in_use_count(mp) != 0 || lr_mempool_validate(mp) != 0)
		goto free_pool;
	rc = 0;
free_pool:
	lr_mempool_free(mp);
	free(arr);
	return rc;
}

static int
test_cross_lcore(void)
{
	static struct xfer x;
	struct lr_mempool *mp;
	unsigned worker = lr_get_next_lcore(-1, 1, 0);

	if (!two_lcores) {
		printf("needs two lcores (one CPU here)\n");
		return LR_TEST_SKIP;
	}
	mp = lr_pktmbuf_pool_create("mb_xfer", 1024, 64, 0, 256,
				    LR_SOCKET_ID_ANY);
	LR_TEST_ASSERT(mp != NULL, "create: %s", lr_strerror(lr_errno));
	x.rounds = (unsigned)(2000 * scale) + 1;
	atomic_store(&x.seq, 0);
	LR_TEST_ASSERT_EQ(lr_eal_remote_launch(xfer_free, &x, worker), 0);
	for (unsigned r = 0; r < x.rounds; r++) {
		while (atomic_load_explicit(&x.seq, memory_order_acquire) !=
		       2 * r)
			lr_pause();
		LR_TEST_ASSERT_EQ(lr_pktmbuf_alloc_bulk(mp, x.m, 64), 0);
		for (int i = 0; i < 64; i++)
			lr_pktmbuf_append(x.m[i], 60)[0] = (char)i;
		atomic_store_explicit(&x.seq, 2 * r + 1, memory_order_release);
	}
	LR_TEST_ASSERT_EQ(lr_eal_wait_lcore(worker), 0);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(mp), 0);
	/* The worker's cache holds at most its threshold. */
	LR_TEST_ASSERT(lr_mempool_cache_count(mp, worker) <=
			   lr_mempool_lcore_cache(mp, worker)->flushthresh,
		       "worker cache %u", lr_mempool_cache_count(mp, worker));
	lr_mempool_free(mp);
	return 0;
}

/* append_copy builds chains from flat data and undoes itself when the
 * pool runs out; read and copy_out give the bytes back across segments;
 * rearm sets the first line as the receive paths need. */
static int
test_flat_copies(void)
{
	static char src[5000], back[5000], tmp[5000];
	struct lr_mempool *mp;
	struct lr_mbuf *m, *rest[8];
	const char *p;
	unsigned got = 0;

	for (unsigned i = 0; i < sizeof(src); i++)
		src[i] = (char)(i * 7 + i / 251);
	/* 2048-byte rooms: 5000 bytes need three segments. */
	mp = lr_pktmbuf_pool_create(
	    "mb_flat", 6, 0, 0, 2048 + LR_PKTMBUF_HEADROOM, LR_SOCKET_ID_ANY);
	LR_TEST_ASSERT(mp != NULL, "create: %s", lr_strerror(lr_errno));
	m = lr_pktmbuf_alloc(mp);
	LR_TEST_ASSERT(m != NULL, "alloc");
	LR_TEST_ASSERT_EQ(lr_pktmbuf_append_copy(m, mp, src, 100), 0);
	LR_TEST_ASSERT_EQ(lr_pktmbuf_append_copy(m, mp, src + 100, 4900), 0);
	LR_TEST_ASSERT_EQ(m->nb_segs, 3);
	LR_TEST_ASSERT_EQ(m->pkt_len, 5000);
	LR_TEST_ASSERT_EQ(lr_mbuf_validate(m), 0);
	LR_TEST_ASSERT_EQ(lr_pktmbuf_copy_out(m, back), 5000);
	LR_TEST_ASSERT(memcmp(back, src, 5000) == 0, "copy_out differs");
	/* Within the first segment: a pointer into it, buf untouched. */
	p = lr_pktmbuf_read(m, 10, 20, tmp);
	LR_TEST_ASSERT(p == lr_pktmbuf_mtod_offset(m, char *, 10), "in place");
	/* Within a later segment: in place too; across two: copied. */
	p = lr_pktmbuf_read(m, 2100, 50, tmp);
	LR_TEST_ASSERT(p != tmp && memcmp(p, src + 2100, 50) == 0, "seg 1");
	p = lr_pktmbuf_read(m, 2000, 3000, tmp);
	LR_TEST_ASSERT(p == tmp && memcmp(tmp, src + 2000, 3000) == 0,
		       "across segments");
	LR_TEST_ASSERT(lr_pktmbuf_read(m, 4990, 11, tmp) == NULL, "past end");
	LR_TEST_ASSERT(lr_pktmbuf_read(m, 5000, 0, tmp) != NULL, "empty");

	/* Three mbufs left; take them all but one: 5000 more bytes need
	 * three, so the append fails and m is as it was. */
	while (got < 2 && (rest[got] = lr_pktmbuf_alloc(mp)) != NULL)
		got++;
	LR_TEST_ASSERT_EQ(got, 2);
	LR_TEST_ASSERT_EQ(lr_pktmbuf_append_copy(m, mp, src, 5000), -ENOBUFS);
	LR_TEST_ASSERT_EQ(m->nb_segs, 3);
	LR_TEST_ASSERT_EQ(m->pkt_len, 5000);
	LR_TEST_ASSERT_EQ(lr_pktmbuf_lastseg(m)->data_len, 5000 - 2 * 2048);
	LR_TEST_ASSERT_EQ(lr_mbuf_validate(m), 0);
	LR_TEST_ASSERT_EQ(lr_mempool_avail_count(mp), 1);
	LR_TEST_ASSERT_EQ(lr_pktmbuf_copy_out(m, back), 5000);
	LR_TEST_ASSERT(memcmp(back, src, 5000) == 0, "after failed append");

	/* rearm: one word for data_off/refcnt/nb_segs/port, lengths set,
	 * flags, type, VLAN and hash cleared. */
	struct lr_mbuf *r = rest[0];

	uint16_t buf_len = r->buf_len;
	struct lr_mempool *rpool = r->pool;

	r->ol_flags = 1;
	r->packet_type = 2;
	r->vlan_tci = 3;
	r->hash_rss = 4;
	r->vlan_tci_outer = 5;
	lr_pktmbuf_rearm(r, lr_mbuf_rearm_word(64, 7), 60);
	/* rx_words overlays packet_type..hash_rss; the fields after them
	 * are left alone */
	uint64_t w[2];

	memcpy(w, &r->packet_type, 16);
	LR_TEST_ASSERT(r->rx_words[0] == w[0] && r->rx_words[1] == w[1] &&
			   offsetof(struct lr_mbuf, rx_words) ==
			       offsetof(struct lr_mbuf, packet_type),
		       "rx_words does not overlay packet_type..hash_rss");
	LR_TEST_ASSERT(r->buf_len == buf_len && r->vlan_tci_outer == 5 &&
			   r->pool == rpool && r->next == NULL,
		       "rearm wrote past hash_rss");
	r->vlan_tci_outer = 0;
	LR_TEST_ASSERT(r->data_off == 64 && r->port == 7 && r->nb_segs == 1 &&
			   lr_mbuf_refcnt_read(r) == 1 && r->pkt_len == 60 &&
			   r->data_len == 60 && r->ol_flags == 0 &&
			   r->packet_type == 0 && r->vlan_tci == 0 &&
			   r->hash_rss == 0,
		       "rearm");
	LR_TEST_ASSERT_EQ(lr_mbuf_validate(r), 0);
	lr_pktmbuf_free(rest[0]);
	lr_pktmbuf_free(rest[1]);
	lr_pktmbuf_free(m);
	LR_TEST_ASSERT_EQ(lr_mempool_avail_count(mp), 6);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
	lr_mempool_free(mp);
	return 0;
}

static const struct lr_test_case cases[] = {
    {"layout", test_layout},
    {"pool_create", test_pool_create},
    {"data_ops", test_data_ops},
    {"chains", test_chains},
    {"flat_copies", test_flat_copies},
    {"refcnt", test_refcnt},
    {"bulk", test_bulk},
    {"cross_lcore", test_cross_lcore},
    {"xmem", test_xmem},
    {"extbuf", test_extbuf},
};

int
main(int argc, char **argv)
{
	scale = lr_test_scale();
	if (lr_test_eal_init("test_mbuf", 256) < 0)
		return 1;
	two_lcores = lr_lcore_count() >= 2;
	int rc = lr_test_run("mbuf", cases, (int)LR_DIM(cases), argc, argv);

	lr_eal_cleanup();
	return rc;
}
