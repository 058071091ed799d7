/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * linerate's own telemetry commands (/linerate/...), each asked over the
 * process's real telemetry socket while the test sets the state it
 * expects: blocks allocated and freed (buddyinfo, pagetypeinfo, stats),
 * pages on the main lcore's lists (pcp), recycles through a page pool,
 * growth and give-back of an elastic mempool. Bad parameters get DPDK's
 * error reply ({"cmd": null}) and change nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <libgen.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "lr_test.h"

#include "lr_mempool.h"
#include "lr_page_pool.h"
#include "lr_pagealloc.h"
#include "lr_telemetry.h"

#define BIG_ORDER 6 /* above the lcore lists: straight from the zone */

static int sock = -1;

/* Connect to the telemetry socket at path and read its greeting: the
 * socket, or -1. */
static int
tel_connect(const char *path)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	char greet[1024];
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);

	if (fd < 0)
		return -1;
	if (strlen(path) >= sizeof(sun.sun_path)) {
		close(fd);
		return -1;
	}
	memcpy(sun.sun_path, path, strlen(path) + 1);
	if (connect(fd, (void *)&sun, sizeof(sun)) < 0 ||
	    read(fd, greet, sizeof(greet)) <= 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* EAL with its telemetry server, and one client connected to it. */
static int
setup(void)
{
	static char prefix[64];
	char *argv[] = {"test_telemetry_linerate",
			"--no-huge",
			"-m",
			"64",
			"-l",
			"0",
			prefix,
			NULL};
	const char *path;

	if (sock >= 0)
		return 0;
	snprintf(prefix, sizeof(prefix), "--file-prefix=test_tel_lr_%d",
		 (int)getpid());
	if (lr_eal_init(7, argv) < 0)
		return -1;
	path = lr_telemetry_socket_path();
	if (path == NULL) {
		fprintf(stderr, "no telemetry socket\n");
		return -1;
	}
	sock = tel_connect(path);
	if (sock < 0) {
		perror(path);
		return -1;
	}
	return lr_pagealloc_init();
}

/* Send req, return the value of the reply's only key (a new reference),
 * or NULL after a message; *null set when the value is JSON null. */
static json_t *
ask_fd(int fd, const char *req)
{
	static char buf[LR_TELEMETRY_MAX_OUTPUT_LEN + 1];
	json_error_t err;
	json_t *root, *v;
	ssize_t n;

	if (write(fd, req, strlen(req)) < 0 ||
	    (n = read(fd, buf, sizeof(buf) - 1)) <= 0) {
		perror(req);
		return NULL;
	}
	buf[n] = '\0';
	root = json_loads(buf, 0, &err);
	if (root == NULL || json_object_size(root) != 1) {
		fprintf(stderr, "%s: bad reply %s\n", req, buf);
		json_decref(root);
		return NULL;
	}
	v = json_object_iter_value(json_object_iter(root));
	json_incref(v);
	json_decref(root);
	return v;
}

/* ask_fd() on this process's own socket. */
static json_t *
ask(const char *req)
{
	return ask_fd(sock, req);
}

/* The number under key of object o (-1 when missing). */
static long long
num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? json_integer_value(v) : -1;
}

/* Element i of the array under key (-1 when missing). */
static long long
elt(const json_t *o, const char *key, unsigned i)
{
	const json_t *v = json_array_get(json_object_get(o, key), i);

	return json_is_integer(v) ? json_integer_value(v) : -1;
}

/* Entry "order<i>" of the dict under key of o (-1 when missing): the
 * per-order counts of the pagealloc replies. */
static long long
ord(const json_t *o, const char *key, unsigned i)
{
	char k[16];

	snprintf(k, sizeof(k), "order%u", i);
	return num(json_object_get(o, key), k);
}

/* Each request gets a null value (DPDK's error reply). */
static int
expect_null(const char *const *reqs, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		json_t *v = ask(reqs[i]);

		LR_TEST_ASSERT(v != NULL && json_is_null(v), "%s: not null",
			       reqs[i]);
		json_decref(v);
	}
	return 0;
}

/* buddyinfo node0 as the allocator counts it (every type summed). */
static int
check_buddyinfo(const json_t *bi, const struct lr_pagealloc_free_info *fi)
{
	json_t *n0 = json_object_get(bi, "node0");
	json_t *a = json_object_get(n0, "free_blocks");

	LR_TEST_ASSERT(json_object_size(a) == LR_MAX_ORDER, "node0: %zu",
		       json_object_size(a));
	for (unsigned o = 0; o < LR_MAX_ORDER; o++) {
		unsigned long t = 0;

		for (unsigned mt = 0; mt < LR_MT_TYPES; mt++)
			t += fi->nr_free[o][mt];
		LR_TEST_ASSERT_EQ(ord(n0, "free_blocks", o), t);
	}
	return 0;
}

/* node0's free blocks of order o in a buddyinfo reply (-1: missing). */
static long long
node0_free(const json_t *bi, unsigned o)
{
	return ord(json_object_get(bi, "node0"), "free_blocks", o);
}

/* Free pages of node0 in a buddyinfo reply. */
static long long
free_pages(const json_t *bi)
{
	long long p = 0;

	for (unsigned o = 0; o < LR_MAX_ORDER; o++)
		p += node0_free(bi, o) << o;
	return p;
}

/* N blocks of order 6: buddyinfo's free pages drop by N << 6, the
 * allocator's counters by N; freed, buddyinfo is back where it was. */
static int
test_buddyinfo(void)
{
	enum { N = 5 };
	struct lr_page *pg[N];
	struct lr_pagealloc_free_info fi;
	json_t *b0, *b1, *b2;
	int rc = -1;

	LR_TEST_ASSERT(setup() == 0, "setup failed");
	b0 = ask("/linerate/pagealloc/buddyinfo");
	LR_TEST_ASSERT(b0 != NULL && json_is_object(b0), "no reply");
	LR_TEST_ASSERT_EQ(lr_pagealloc_free_info(0, &fi), 0);
	if (check_buddyinfo(b0, &fi) < 0)
		goto out;
	for (unsigned i = 0; i < N; i++) {
		pg[i] = lr_alloc_pages(0, BIG_ORDER, 0);
		LR_TEST_ASSERT(pg[i] != NULL, "alloc: %s",
			       lr_strerror(lr_errno));
	}
	b1 = ask("/linerate/pagealloc/buddyinfo");
	lr_free_pages_bulk(pg, N, BIG_ORDER);
	b2 = ask("/linerate/pagealloc/buddyinfo");
	LR_TEST_ASSERT(b1 != NULL && b2 != NULL, "no reply");
	LR_TEST_ASSERT_EQ(free_pages(b0) - free_pages(b1), N << BIG_ORDER);
	if (node0_free(b0, BIG_ORDER) >= N)
		LR_TEST_ASSERT_EQ(
		    node0_free(b0, BIG_ORDER) - node0_free(b1, BIG_ORDER), N);
	LR_TEST_ASSERT(json_equal(b0, b2), "buddyinfo not back after free");
	rc = 0;
	json_decref(b1);
	json_decref(b2);
out:
	json_decref(b0);
	return rc;
}

/* pagetypeinfo,0 per type equals the allocator's own count; bad nodes
 * and parameters are refused and change nothing. */
static int
test_pagetypeinfo(void)
{
	static const char *const bad[] = {
	    "/linerate/pagealloc/pagetypeinfo",
	    "/linerate/pagealloc/pagetypeinfo,x",
	    "/linerate/pagealloc/pagetypeinfo,0x",
	    "/linerate/pagealloc/pagetypeinfo,-1",
	    "/linerate/pagealloc/pagetypeinfo,7",
	    "/linerate/pagealloc/pagetypeinfo,99999999999999999999",
	    "/linerate/pagealloc/buddyinfo,0",
	};
	struct lr_pagealloc_free_info fi;
	json_t *p, *b0, *b1;
	unsigned long pbs = 0;
	static const char *const keys[LR_MT_TYPES] = {"movable", "pinned",
						      "reserve"};

	LR_TEST_ASSERT(setup() == 0, "setup failed");
	p = ask("/linerate/pagealloc/pagetypeinfo,0");
	LR_TEST_ASSERT_EQ(lr_pagealloc_free_info(0, &fi), 0);
	LR_TEST_ASSERT(p != NULL && json_is_object(p), "no reply");
	LR_TEST_ASSERT_EQ(num(p, "node"), 0);
	LR_TEST_ASSERT_EQ(num(p, "page_size"), LR_PAGE_SIZE);
	LR_TEST_ASSERT_EQ(num(p, "pageblock_order"), LR_PAGEBLOCK_ORDER);
	for (unsigned mt = 0; mt < LR_MT_TYPES; mt++) {
		char k[32];

		for (unsigned o = 0; o < LR_MAX_ORDER; o++)
			LR_TEST_ASSERT_EQ(elt(p, keys[mt], o),
					  fi.nr_free[o][mt]);
		snprintf(k, sizeof(k), "pageblocks_%s", keys[mt]);
		LR_TEST_ASSERT_EQ(num(p, k), fi.pageblocks[mt]);
		pbs += fi.pageblocks[mt];
	}
	LR_TEST_ASSERT(pbs > 0, "no pageblocks");
	json_decref(p);
	b0 = ask("/linerate/pagealloc/buddyinfo");
	if (expect_null(bad, LR_DIM(bad)) < 0)
		return -1;
	b1 = ask("/linerate/pagealloc/buddyinfo");
	LR_TEST_ASSERT(b0 != NULL && json_equal(b0, b1), "state changed");
	json_decref(b0);
	json_decref(b1);
	return 0;
}

/* stats: N allocations and N frees of order 6 counted exactly. */
static int
test_stats(void)
{
	enum { N = 3 };
	struct lr_page *pg[N];
	struct lr_pagealloc_stats s;
	json_t *s0, *s1, *s2;

	LR_TEST_ASSERT(setup() == 0, "setup failed");
	s0 = ask("/linerate/pagealloc/stats");
	LR_TEST_ASSERT(s0 != NULL && json_is_object(s0), "no reply");
	LR_TEST_ASSERT_EQ(lr_alloc_pages_bulk(0, BIG_ORDER, 0, N, pg), N);
	s1 = ask("/linerate/pagealloc/stats");
	lr_free_pages_bulk(pg, N, BIG_ORDER);
	s2 = ask("/linerate/pagealloc/stats");
	lr_pagealloc_stats_get(&s);
	LR_TEST_ASSERT(s1 != NULL && s2 != NULL, "no reply");
	LR_TEST_ASSERT_EQ(ord(s1, "alloc_blocks_total", BIG_ORDER) -
			      ord(s0, "alloc_blocks_total", BIG_ORDER),
			  N);
	LR_TEST_ASSERT_EQ(ord(s2, "free_blocks_total", BIG_ORDER) -
			      ord(s1, "free_blocks_total", BIG_ORDER),
			  N);
	LR_TEST_ASSERT_EQ(
	    json_object_size(json_object_get(s2, "alloc_blocks_total")),
	    LR_MAX_ORDER);
	LR_TEST_ASSERT_EQ(num(s2, "refills_total"), s.refill);
	LR_TEST_ASSERT_EQ(num(s2, "drains_total"), s.drain);
	LR_TEST_ASSERT_EQ(num(s2, "fallback_blocks_total"), s.fallback);
	LR_TEST_ASSERT_EQ(num(s2, "stolen_pageblocks_total"), s.steal);
	LR_TEST_ASSERT_EQ(num(s2, "alloc_failures_total"), s.fail);
	LR_TEST_ASSERT_EQ(num(s2, "shrink_rounds_total"), s.shrink);
	LR_TEST_ASSERT_EQ(num(s2, "bad_pages_total"), s.bad);
	LR_TEST_ASSERT_EQ(ord(s2, "alloc_blocks_total", 0), s.alloc[0]);
	json_decref(s0);
	json_decref(s1);
	json_decref(s2);
	return 0;
}

/* Compare the reply for lcore 0 with lr_pagealloc_pcp_info(). */
static int
check_pcp(const json_t *l)
{
	struct lr_pagealloc_pcp_info pi;

	LR_TEST_ASSERT_EQ(lr_pagealloc_pcp_info(0, 0, &pi), 0);
	LR_TEST_ASSERT_EQ(num(l, "pages"), pi.pages);
	LR_TEST_ASSERT_EQ(ord(l, "movable_blocks", 0), pi.count[0][0]);
	LR_TEST_ASSERT_EQ(ord(l, "pinned_blocks", 0), pi.count[1][0]);
	LR_TEST_ASSERT_EQ(ord(l, "high_blocks", 0), pi.high[0]);
	LR_TEST_ASSERT_EQ(ord(l, "batch_blocks", 0), pi.batch[0]);
	LR_TEST_ASSERT_EQ(ord(l, "high_blocks", 4), pi.high[4]);
	LR_TEST_ASSERT(pi.batch[0] > 0 && pi.high[0] >= pi.batch[0],
		       "batch %u high %u", pi.batch[0], pi.high[0]);
	return 0;
}

/* pcp: the main lcore's lists after it took a page, and one page less on
 * them after it took another; other lcores and bad parameters refused. */
static int
test_pcp(void)
{
	static const char *const bad[] = {
	    "/linerate/pagealloc/pcp,x",
	    "/linerate/pagealloc/pcp,5",
	    "/linerate/pagealloc/pcp,100000",
	    "/linerate/pagealloc/pcp,-0",
	};
	struct lr_page *a, *b;
	json_t *all, *l0, *l1;
	int rc = -1;

	LR_TEST_ASSERT(setup() == 0, "setup failed");
	a = lr_alloc_page(0, 0);
	LR_TEST_ASSERT(a != NULL, "alloc: %s", lr_strerror(lr_errno));
	all = ask("/linerate/pagealloc/pcp");
	LR_TEST_ASSERT(all != NULL && json_is_object(all), "no reply");
	l0 = json_object_get(all, "lcore0");
	LR_TEST_ASSERT(l0 != NULL, "no lcore0");
	if (check_pcp(l0) < 0)
		goto out;
	b = lr_alloc_page(0, 0);
	LR_TEST_ASSERT(b != NULL, "alloc: %s", lr_strerror(lr_errno));
	l1 = ask("/linerate/pagealloc/pcp,0");
	lr_free_page(a);
	lr_free_page(b);
	LR_TEST_ASSERT(l1 != NULL, "no reply");
	/* b came off the list unless it was empty and got refilled. */
	if (ord(l0, "movable_blocks", 0) > 0)
		LR_TEST_ASSERT_EQ(ord(l0, "movable_blocks", 0) -
				      ord(l1, "movable_blocks", 0),
				  1);
	json_decref(l1);
	if (expect_null(bad, LR_DIM(bad)) < 0)
		goto out;
	rc = 0;
out:
	json_decref(all);
	return rc;
}

/* A page pool after M direct recycles and K through its ring shows them,
 * asked by name and by id; unknown ones are refused. */
static int
test_page_pool(void)
{
	enum { M = 40, K = 7 };
	static const char *const bad[] = {
	    "/linerate/page_pool/info",
	    "/linerate/page_pool/info,nosuch",
	    "/linerate/page_pool/info,4000000000",
	    "/linerate/page_pool/list,1",
	};
	struct lr_page_pool_params p = {.name = "tel_pp",
					.pool_size = 256,
					.nid = LR_SOCKET_ID_ANY,
					.flags = LR_PP_FLAG_DMA_MAP};
	struct lr_page_pool_stats st;
	struct lr_page_pool_info info;
	struct lr_page_pool *pool;
	struct lr_page *pg[M];
	char req[64];
	json_t *l, *a, *b;
	int found = 0;

	LR_TEST_ASSERT(setup() == 0, "setup failed");
	pool = lr_page_pool_create(&p);
	LR_TEST_ASSERT(pool != NULL, "create: %s", lr_strerror(lr_errno));
	for (unsigned i = 0; i < M; i++)
		pg[i] = lr_page_pool_alloc(pool);
	for (unsigned i = 0; i < M; i++)
		if (i < K)
			lr_page_pool_recycle(pool, pg[i]);
		else
			lr_page_pool_put(pool, pg[i], ~0u, 1);
	lr_page_pool_stats_get(pool, &st);
	lr_page_pool_info_get(pool, &info);
	l = ask("/linerate/page_pool/list");
	for (size_t i = 0; i < json_array_size(l); i++)
		found |= strcmp(json_string_value(json_array_get(l, i)),
				"tel_pp") == 0;
	a = ask("/linerate/page_pool/info,tel_pp");
	snprintf(req, sizeof(req), "/linerate/page_pool/info,%u", info.id);
	b = ask(req);
	lr_page_pool_free(pool);
	LR_TEST_ASSERT(found, "tel_pp not listed");
	LR_TEST_ASSERT(a != NULL && json_is_object(a), "no reply");
	LR_TEST_ASSERT(json_equal(a, b), "by name and by id differ");
	LR_TEST_ASSERT_EQ(num(a, "recycle_cached_total"), M - K);
	LR_TEST_ASSERT_EQ(num(a, "recycle_ring_total"), K);
	LR_TEST_ASSERT_EQ(num(a, "held_pages"), st.held);
	LR_TEST_ASSERT_EQ(num(a, "dma_mapped_pages"), st.held);
	LR_TEST_ASSERT_EQ(num(a, "cached_pages"), st.cached);
	LR_TEST_ASSERT_EQ(num(a, "ringed_pages"), K);
	LR_TEST_ASSERT_EQ(num(a, "in_flight_pages"), 0);
	LR_TEST_ASSERT_EQ(
	    num(a, "alloc_fast_total") + num(a, "alloc_slow_total"), M);
	LR_TEST_ASSERT_EQ(num(a, "pool_size_pages"), 256);
	LR_TEST_ASSERT_EQ(num(a, "id"), info.id);
	json_decref(l);
	json_decref(a);
	json_decref(b);
	return expect_null(bad, LR_DIM(bad));
}

/* An elastic pool grown past min and shrunk back: growths, shrinks,
 * current and peak size as the pool reports them; a fixed pool and an
 * unknown name refused. */
static int
test_elastic(void)
{
	enum { MIN = 64, MAX = 4096, GET = 1500 };
	static const char *const bad[] = {
	    "/linerate/mempool/elastic,nosuch",
	    "/linerate/mempool/elastic,tel_fixed",
	};
	static void *objs[GET];
	struct lr_mempool_elastic_stats s;
	struct lr_mempool *ep, *fp;
	json_t *a, *b, *l;
	int listed = 0;

	LR_TEST_ASSERT(setup() == 0, "setup failed");
	ep = lr_mempool_create_elastic("tel_ep", MIN, MAX, 256, 0, 0, NULL,
				       NULL, NULL, LR_SOCKET_ID_ANY, 0);
	fp = lr_mempool_create("tel_fixed", 64, 64, 0, 0, NULL, NULL,
			       LR_SOCKET_ID_ANY, 0);
	LR_TEST_ASSERT(ep != NULL && fp != NULL, "create: %s",
		       lr_strerror(lr_errno));
	LR_TEST_ASSERT_EQ(lr_mempool_get_bulk(ep, objs, GET), 0);
	a = ask("/linerate/mempool/elastic,tel_ep");
	lr_mempool_put_bulk(ep, objs, GET);
	lr_mempool_shrink(ep, ~0ul);
	b = ask("/linerate/mempool/elastic,tel_ep");
	l = ask("/linerate/mempool/elastic");
	lr_mempool_elastic_stats_get(ep, &s);
	for (size_t i = 0; i < json_array_size(l); i++) {
		const char *n = json_string_value(json_array_get(l, i));

		listed |= strcmp(n, "tel_ep") == 0;
		LR_TEST_ASSERT(strcmp(n, "tel_fixed") != 0, "fixed listed");
	}
	LR_TEST_ASSERT(listed, "tel_ep not listed");
	LR_TEST_ASSERT(a != NULL && b != NULL, "no reply");
	LR_TEST_ASSERT(num(a, "objs") >= GET && num(a, "growths_total") >= 1,
		       "objs %lld growths %lld", num(a, "objs"),
		       num(a, "growths_total"));
	LR_TEST_ASSERT_EQ(num(b, "growths_total"), s.growths);
	LR_TEST_ASSERT_EQ(num(b, "grown_blocks_total"), s.grown_blocks);
	LR_TEST_ASSERT_EQ(num(b, "shrinks_total"), s.shrinks);
	LR_TEST_ASSERT(s.shrinks >= 1, "no shrink");
	LR_TEST_ASSERT_EQ(num(b, "objs"), s.objs);
	LR_TEST_ASSERT_EQ(num(b, "peak_objs"), num(a, "objs"));
	LR_TEST_ASSERT_EQ(num(b, "min_objs"), MIN);
	LR_TEST_ASSERT_EQ(num(b, "max_objs"), s.max_objs);
	LR_TEST_ASSERT(s.max_objs >= MAX, "max %u", s.max_objs);
	json_decref(a);
	json_decref(b);
	json_decref(l);
	if (expect_null(bad, LR_DIM(bad)) < 0)
		return -1;
	lr_mempool_free(ep);
	lr_mempool_free(fp);
	return 0;
}

/* --- lr-l2fwd ---------------------------------------------------------- */

#define L2_FRAMES 1000

static char tmpdir[] = "/tmp/test_tel_lr_XXXXXX";

/* A pcap file of n 64-byte frames at path; 0 or -1. */
static int
write_pcap(const char *path, unsigned n)
{
	const uint32_t hdr[6] = {0xa1b2c3d4, 0x00040002, 0, 0, 65535, 1};
	uint8_t frame[64] = {0x02, 0, 0, 0, 0, 1,    0x02,
			     0,	   0, 0, 0, 2, 0x88, 0xb5};
	FILE *f = fopen(path, "w");
	int rc = 0;

	if (f == NULL)
		return -1;
	fwrite(hdr, sizeof(hdr), 1, f);
	for (unsigned i = 0; i < n; i++) {
		const uint32_t rec[4] = {i, 0, sizeof(frame), sizeof(frame)};

		frame[20] = (uint8_t)i;
		fwrite(rec, sizeof(rec), 1, f);
		fwrite(frame, sizeof(frame), 1, f);
	}
	if (ferror(f))
		rc = -1;
	return fclose(f) == 0 ? rc : -1;
}

/* Start lr-l2fwd on two pcap ports reading in.pcap, its output in
 * out.txt, prefix tel_l2fwd_<pid>: its pid, or -1. */
static pid_t
start_l2fwd(const char *prefix)
{
	static char exe[4096], v0[512], v1[512], out[512], fp[128];
	char *argv[] = {exe, "--no-huge",  "-m",     "64", "-l",
			"0", fp,	   "--vdev", v0,   "--vdev",
			v1,  "--",	   "-p",     "3",  "-T",
			"0", "--duration", "25",     NULL};
	pid_t pid;

	if (lr_test_build_path(exe, sizeof(exe), "apps/l2fwd/lr-l2fwd") < 0)
		return -1;
	snprintf(fp, sizeof(fp), "--file-prefix=%s", prefix);
	snprintf(v0, sizeof(v0),
		 "net_pcap0,rx_pcap=%s/in.pcap,tx_pcap=%s/o0"
		 ".pcap",
		 tmpdir, tmpdir);
	snprintf(v1, sizeof(v1),
		 "net_pcap1,rx_pcap=%s/in.pcap,tx_pcap=%s/o1"
		 ".pcap",
		 tmpdir, tmpdir);
	snprintf(out, sizeof(out), "%s/out.txt", tmpdir);
	pid = fork();
	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(127);
		lr_test_execv(exe, argv);
		_exit(127);
	}
	return pid;
}

/* Ask path's process for /linerate/l2fwd/stats until both ports have
 * forwarded every frame (20 s deadline): the reply, or NULL. */
static json_t *
l2fwd_settled(const char *path)
{
	json_t *r = NULL;
	int fd = -1;

	for (int i = 0; i < 2000; i++) {
		if (fd < 0)
			fd = tel_connect(path);
		if (fd >= 0) {
			json_decref(r);
			r = ask_fd(fd, "/linerate/l2fwd/stats");
			if (r != NULL && num(r, "tx_packets_all_ports_total") ==
					     2 * L2_FRAMES)
				break;
		}
		usleep(10000);
	}
	if (fd >= 0) {
		json_t *b = ask_fd(fd, "/linerate/l2fwd/stats,1");

		if (b == NULL || !json_is_null(b)) {
			fprintf(stderr, "stats,1 answered\n");
			json_decref(r);
			r = NULL;
		}
		json_decref(b);
		close(fd);
	}
	return r;
}

/* The `l2fwd total:` line of out.txt into rx, tx, dropped; 0 or -1. */
static int
l2fwd_final(long long v[3])
{
	char path[512], line[512];
	FILE *f;
	int rc = -1;

	snprintf(path, sizeof(path), "%s/out.txt", tmpdir);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "l2fwd total: rx=%lld tx=%lld dropped=%lld",
			   &v[0], &v[1], &v[2]) == 3)
			rc = 0;
	fclose(f);
	return rc;
}

/* DPDK's runtime folder for prefix (where our link goes: /var/run/dpdk
 * for root, else $XDG_RUNTIME_DIR/dpdk or /tmp/dpdk), into buf. */
static void
dpdk_dir(char *buf, size_t len, const char *prefix)
{
	const char *base = getenv("XDG_RUNTIME_DIR");

	if (getuid() == 0)
		base = "/var/run";
	else if (base == NULL || *base == '\0')
		base = "/tmp";
	snprintf(buf, len, "%s/dpdk/%s", base, prefix);
}

/* Remove the pcap files, the output and the folder. */
static void
l2fwd_clean(void)
{
	static const char *const files[] = {"in.pcap", "o0.pcap", "o1.pcap",
					    "out.txt"};
	char path[512];

	for (unsigned i = 0; i < LR_DIM(files); i++) {
		snprintf(path, sizeof(path), "%s/%s", tmpdir, files[i]);
		unlink(path);
	}
	rmdir(tmpdir);
}

/* lr-l2fwd on two pcap ports of L2_FRAMES frames each: once they are all
 * forwarded, /linerate/l2fwd/stats gives what the final `l2fwd total:`
 * line says after the stop; the stop (SIGINT, a clean exit) leaves no
 * folder at DPDK's path for its prefix. */
static int
test_l2fwd(void)
{
	char prefix[64], rdir[4096], path[4200];
	long long fin[3] = {-1, -1, -1};
	json_t *r = NULL;
	pid_t pid;
	int st = -1, rc = -1;

	LR_TEST_ASSERT(setup() == 0, "setup failed");
	LR_TEST_ASSERT(mkdtemp(tmpdir) != NULL, "mkdtemp: %s", strerror(errno));
	snprintf(prefix, sizeof(prefix), "tel_l2fwd_%d", (int)getpid());
	snprintf(rdir, sizeof(rdir), "%s", lr_eal_runtime_dir());
	snprintf(path, sizeof(path), "%s/%s/%s", dirname(rdir), prefix,
		 strrchr(lr_telemetry_socket_path(), '/') + 1);
	if (write_pcap(strcat(strcpy(rdir, tmpdir), "/in.pcap"), L2_FRAMES) < 0)
		goto clean;
	pid = start_l2fwd(prefix);
	if (pid > 0) {
		r = l2fwd_settled(path);
		kill(pid, SIGINT);
		waitpid(pid, &st, 0);
	}
	if (r != NULL && l2fwd_final(fin) == 0 && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0)
		rc = 0;
clean:
	l2fwd_clean();
	LR_TEST_ASSERT(rc == 0, "no settled reply or final line (status %d)",
		       st);
	/* The folder of its link at DPDK's path, which it made, went with
	 * its clean exit (it was empty). */
	dpdk_dir(rdir, sizeof(rdir), prefix);
	LR_TEST_ASSERT(access(rdir, F_OK) != 0 && errno == ENOENT,
		       "%s left behind by a clean exit", rdir);
	LR_TEST_ASSERT_EQ(num(r, "rx_packets_all_ports_total"), fin[0]);
	LR_TEST_ASSERT_EQ(num(r, "tx_packets_all_ports_total"), fin[1]);
	LR_TEST_ASSERT_EQ(num(r, "dropped_packets_all_ports_total"), fin[2]);
	LR_TEST_ASSERT_EQ(num(json_object_get(r, "port0"), "rx_packets_total"),
			  L2_FRAMES);
	LR_TEST_ASSERT_EQ(num(json_object_get(r, "port1"), "tx_packets_total"),
			  L2_FRAMES);
	LR_TEST_ASSERT_EQ(num(r, "running"), 1);
	LR_TEST_ASSERT(num(r, "tx_packets_per_second") > 0 &&
			   num(r, "elapsed_ms") >= 0,
		       "rates");
	json_decref(r);
	return 0;
}

/* Last: the EAL goes, and with it the socket. */
static int
test_cleanup(void)
{
	char path[108];

	LR_TEST_ASSERT(setup() == 0, "setup failed");
	snprintf(path, sizeof(path), "%s", lr_telemetry_socket_path());
	close(sock);
	LR_TEST_ASSERT_EQ(lr_eal_cleanup(), 0);
	LR_TEST_ASSERT(access(path, F_OK) < 0, "%s left", path);
	return 0;
}

static const struct lr_test_case cases[] = {
    {"buddyinfo", test_buddyinfo}, {"pagetypeinfo", test_pagetypeinfo},
    {"stats", test_stats},	   {"pcp", test_pcp},
    {"page_pool", test_page_pool}, {"elastic", test_elastic},
    {"l2fwd", test_l2fwd},	   {"cleanup", test_cleanup},
};

LR_TEST_MAIN("telemetry_linerate", cases)
