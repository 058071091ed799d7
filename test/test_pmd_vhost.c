/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_vhost (the vhost-user backend) against DPDK 22.11's virtio-user as
 * the frontend, and against a fake frontend written here:
 *  - dpdk_*: dpdk-testpmd with a net_virtio_user port on our socket, io
 *    forwarding (each frame goes back out of the port it came in on): we
 *    send frames of 64 and 1518 bytes whose bytes we know (a sequence
 *    number and the queue in the payload) and every one must come back
 *    once, in order, byte for byte; split and packed rings, mergeable
 *    buffers on and off, in-order on and off, 1 and 2 queues (each case
 *    checks in our log that these are the features negotiated); then the
 *    roles reversed (our port client=1, testpmd's virtio-user server=1);
 *    then testpmd restarted (the link goes down and comes back, frames
 *    round again). The pool holds as many mbufs after the port closed as
 *    before. testpmd runs on ordinary memory (--no-huge: memfd segments).
 *    Skipped when dpdk-testpmd is not installed (Debian's dpdk-dev).
 *  - event_idx: a fake frontend that reads its rings itself: EVENT_IDX
 *    calls only when used_event is passed, a frame over two mergeable
 *    buffers with num_buffers 2; vnet_offload: a NEEDS_CSUM frame from
 *    the guest arrives marked partial, and goes back to a guest without
 *    GUEST_CSUM with its checksum done.
 *  - bad_*: a fake frontend on a raw socket sends a truncated header, an
 *    unknown request, a size that is not its request's, a memory table
 *    with overlapping regions, one whose region does not fit its file, a
 *    ring outside every region, a descriptor loop (split and packed),
 *    and closes in the
 *    middle of our bursts: each time a log line says what was wrong, the
 *    link goes down (or never comes up), nothing crashes, and every mbuf
 *    is back in the pool; the port then takes the next frontend.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lr_cycles.h"
#include "lr_eal.h"
#include "lr_ethdev.h"
#include "lr_ethdev_driver.h"
#include "lr_log.h"
#include "lr_mbuf.h"
#include "lr_test.h"
#include "lr_test_cksum.h"
#include "lr_test_memif.h"
#include "lr_test_stream.h"
#include "lr_test_virtio.h"
#include "lr_unix.h"
#include "lr_vhost_user.h"
#include "lr_virtio.h"

#define BURST	32
#define NFRAMES 2000
#define WINDOW	96 /* frames in flight: under the 256-entry rings */

static const char *dir;
static struct lr_mempool *pool;

/* ---- frames ---------------------------------------------------------- */

/* Size of frame i: 64 and 1518 bytes in turn. */
static uint32_t
size_of(unsigned i)
{
	return (i & 1) ? 1518 : 64;
}

/* The cases' streams (lr_test_stream.h; the pool set by main()): up to
 * WINDOW frames in flight, 30 s for a transfer. */
static struct lr_test_stream streams = {NULL, size_of, NULL, WINDOW, 30};

/* An mbuf holding frame i of stream tag, or NULL. */
static struct lr_mbuf *
frame_mbuf(unsigned tag, unsigned i)
{
	return lr_test_stream_mbuf(&streams, tag, i);
}

/* Packet m is frame i of stream tag, byte for byte: 0, or -1 (printed). */
static int
check_frame(const struct lr_mbuf *m, unsigned tag, unsigned i)
{
	return lr_test_stream_check(&streams, m, tag, i);
}

/* Send n frames on queue q of port and receive each back on queue q, in
 * order, byte for byte (stream q); 0 or -1. */
static int
xfer(int port, uint16_t q, unsigned n)
{
	return lr_test_stream_xfer(&streams, port, q, port, q, q, n);
}

/* ---- the log ---------------------------------------------------------- */

/* End the log capture: shown on stderr when show, else dropped. */
static void
log_stop(int show)
{
	struct lr_test_log_state *st = lr_test_log_state();

	if (show) {
		lr_test_log_end();
		return;
	}
	lr_log_set_stream(NULL);
	if (st->f != NULL)
		fclose(st->f);
	st->f = NULL;
}

/* ---- DPDK's testpmd ---------------------------------------------------- */

static struct lr_test_testpmd tp = {.pid = -1, .in = -1};

/* Start testpmd with one virtio-user port (vdev args after the name) and
 * nq queues, io forwarding; its output in dir/testpmd.log. */
static int
testpmd_start(const char *vargs, unsigned nq)
{
	char vdev[512];

	snprintf(vdev, sizeof(vdev), "net_virtio_user0,%s", vargs);
	return lr_test_testpmd_start(&tp, vdev, nq, 128, 4096,
				     "--single-file-segments");
}

/* Kill a testpmd left running (exit handler). */
static void
testpmd_reap(void)
{
	if (tp.pid > 0 && *lr_test_main_pid() == (int)getpid()) {
		kill(tp.pid, SIGKILL);
		waitpid(tp.pid, NULL, 0);
		tp.pid = -1;
	}
}

/* Nothing of a case left behind: as many descriptors open as fds (fds
 * < 0: not counted), the pool back to before mbufs; 0, or -1 said. */
static int
case_clean(int fds, unsigned before)
{
	int ret = 0;

	if (fds >= 0 && lr_test_fd_count() != fds) {
		fprintf(stderr, "descriptors: %d open, %d before\n",
			lr_test_fd_count(), fds);
		ret = -1;
	}
	if (lr_mempool_avail_count(pool) != before) {
		fprintf(stderr, "pool: %u mbufs back of %u\n",
			lr_mempool_avail_count(pool), before);
		ret = -1;
	}
	return ret;
}

/* Each rx queue of port gave back the first line of as many frames as
 * it received with flush=1 (ours), none with flush=0; 0 or -1. */
static int
check_flushed(int port, unsigned nq, const char *ours)
{
	struct lr_eth_stats st;
	int on = strstr(ours, "flush=1") != NULL;

	if (strstr(ours, "flush=") == NULL)
		return 0;
	if (lr_eth_stats_get((uint16_t)port, &st) != 0)
		return -1;
	for (unsigned q = 0; q < nq; q++) {
		char name[32];
		uint64_t n = UINT64_MAX;

		snprintf(name, sizeof(name), "rx_q%u_flushed", q);
		lr_eth_xstats_get_by_name((uint16_t)port, name, &n);
		if (n != (on ? st.q_ipackets[q] : 0) || (on && n == 0)) {
			fprintf(stderr, "%s: %llu, %llu received (%s)\n", name,
				(unsigned long long)n,
				(unsigned long long)st.q_ipackets[q], ours);
			return -1;
		}
	}
	return 0;
}

/* net_vhost (client: client=1; ours: more devargs) and testpmd's
 * virtio-user with vargs on one socket, nq queues: frames round each
 * queue; 0, -1 or SKIP. */
static int
dpdk_run(const char *name, const char *vargs, unsigned nq, int client,
	 const char *ours)
{
	char sock[128], dev[256], v[256], want[128];
	unsigned before;
	int port = -1, ret = -1, pmd_level, fds;

	if (lr_test_testpmd_find(&tp, dir, "test_pmd_vhost_dpdk") != 0) {
		printf("skip: dpdk-testpmd not installed (Debian dpdk-dev)\n");
		return LR_TEST_SKIP;
	}
	before = lr_mempool_avail_count(pool);
	fds = lr_test_fd_count();
	lr_test_log_begin();
	pmd_level = lr_log_levels[LR_LOGTYPE_PMD];
	lr_log_set_level(LR_LOGTYPE_PMD, LR_LOG_INFO);
	snprintf(sock, sizeof(sock), "%s/%s.sock", dir, name);
	snprintf(dev, sizeof(dev), "net_vhost0,iface=%s,queues=%u,client=%d%s",
		 sock, nq, client, ours);
	snprintf(v, sizeof(v), "path=%s,queues=%u,%s%s", sock, nq, vargs,
		 client ? ",server=1" : "");
	if (client && testpmd_start(v, nq) != 0)
		goto out;
	port = lr_test_memif_open(dev, (uint16_t)nq, pool);
	if (port < 0 || (!client && testpmd_start(v, nq) != 0))
		goto out;
	/* testpmd drains its queues before it forwards: send after that */
	if (lr_test_memif_wait_link(port, 1) != 0 ||
	    lr_test_testpmd_wait_line(&tp, "Press enter to exit") != 0)
		goto out;
	/* what was negotiated is what the frontend was asked for */
	snprintf(want, sizeof(want),
		 "%s ring, mergeable buffers %s, in-order %s",
		 strstr(vargs, "packed_vq=1") ? "packed" : "split",
		 strstr(vargs, "mrg_rxbuf=1") ? "on" : "off",
		 strstr(vargs, "in_order=1") ? "on" : "off");
	if (!lr_test_log_has(want)) {
		fprintf(stderr, "no '%s' in the log\n", want);
		goto out;
	}
	for (unsigned q = 0; q < nq; q++)
		if (xfer(port, (uint16_t)q, NFRAMES) != 0)
			goto out;
	if (check_flushed(port, nq, ours) != 0)
		goto out;
	ret = 0;
out:
	lr_test_testpmd_stop(&tp, 0);
	if (ret != 0) {
		lr_test_testpmd_log(&tp, 80);
		if (port >= 0)
			lr_eth_dev_dump(stderr, (uint16_t)port);
	}
	lr_test_memif_shut(port);
	lr_log_set_level(LR_LOGTYPE_PMD, pmd_level);
	log_stop(ret != 0);
	return case_clean(fds, before) < 0 ? -1 : ret;
}

/* One case against testpmd: its socket's name, testpmd's devargs, queue
 * pairs, net_vhost the client, net_vhost's other devargs, whether it runs
 * in a short matrix (lr_test_matrix_skip()). */
struct dpdk_case {
	const char *sock;
	const char *vargs;
	unsigned nq;
	int client;
	const char *ours;
	int representative;
};

/* dpdk_run() with the numbers of row arg (a struct dpdk_case). */
static int
dpdk_case(const void *arg)
{
	const struct dpdk_case *c = arg;

	if (lr_test_matrix_skip(c->sock, c->representative))
		return LR_TEST_SKIP;
	return dpdk_run(c->sock, c->vargs, c->nq, c->client,
			c->ours != NULL ? c->ours : "");
}

static const struct dpdk_case dpdk_split = {
    "split", "mrg_rxbuf=0,in_order=0,packed_vq=0", 1, 0, NULL, 1};
static const struct dpdk_case dpdk_mrg = {
    "mrg", "mrg_rxbuf=1,in_order=0,packed_vq=0", 1, 0};
static const struct dpdk_case dpdk_in_order = {
    "inorder", "mrg_rxbuf=0,in_order=1,packed_vq=0", 1, 0};
static const struct dpdk_case dpdk_mrg_in_order = {
    "mrgio", "mrg_rxbuf=1,in_order=1,packed_vq=0", 1, 0, NULL, 1};
static const struct dpdk_case dpdk_2q = {
    "twoq", "mrg_rxbuf=1,in_order=0,packed_vq=0", 2, 0};
static const struct dpdk_case dpdk_2q_split = {
    "twoqs", "mrg_rxbuf=0,in_order=1,packed_vq=0", 2, 0};
static const struct dpdk_case dpdk_client = {
    "client", "mrg_rxbuf=1,in_order=1,packed_vq=0", 1, 1, NULL, 1};
static const struct dpdk_case dpdk_client_split = {
    "clients", "mrg_rxbuf=0,in_order=0,packed_vq=0", 2, 1};
/* flush=1: every frame's first line given back, the bytes unchanged
 * (64 and 1518-byte frames, one descriptor or mergeable chains); flush=0:
 * none */
static const struct dpdk_case dpdk_flush = {
    "flush", "mrg_rxbuf=1,in_order=1,packed_vq=0", 2, 0, ",flush=1", 1};
static const struct dpdk_case dpdk_flush_split = {
    "flushs", "mrg_rxbuf=0,in_order=0,packed_vq=0", 1, 0, ",flush=1"};
static const struct dpdk_case dpdk_packed_flush = {
    "flushp", "mrg_rxbuf=0,in_order=1,packed_vq=1", 1, 0, ",flush=1"};
static const struct dpdk_case dpdk_noflush = {
    "noflush", "mrg_rxbuf=1,in_order=1,packed_vq=0", 1, 0, ",flush=0"};
static const struct dpdk_case dpdk_packed = {
    "packed", "mrg_rxbuf=0,in_order=0,packed_vq=1", 1, 0, NULL, 1};
static const struct dpdk_case dpdk_packed_mrg = {
    "packedm", "mrg_rxbuf=1,in_order=0,packed_vq=1", 1, 0};
static const struct dpdk_case dpdk_packed_in_order = {
    "packedi", "mrg_rxbuf=0,in_order=1,packed_vq=1", 1, 0};
static const struct dpdk_case dpdk_packed_mrg_in_order = {
    "packedmi", "mrg_rxbuf=1,in_order=1,packed_vq=1", 1, 0};
static const struct dpdk_case dpdk_packed_2q = {
    "packed2q", "mrg_rxbuf=1,in_order=1,packed_vq=1", 2, 0, NULL, 1};
static const struct dpdk_case dpdk_packed_client = {
    "packedc", "mrg_rxbuf=0,in_order=1,packed_vq=1", 2, 1};

/* testpmd started once, frames round; then testpmd restarted (a
 * frontend that goes and comes back): our link goes down, comes back up
 * with the new frontend, and frames round again. The interval from the
 * new testpmd's start to our link up is printed. */
static int
test_dpdk_reconnect(void)
{
	const char *v = "mrg_rxbuf=1,in_order=0,packed_vq=0";
	char sock[128], dev[256], args[256];
	unsigned before;
	uint64_t t0;
	int port = -1, ret = -1;

	if (lr_test_testpmd_find(&tp, dir, "test_pmd_vhost_dpdk") != 0) {
		printf("skip: dpdk-testpmd not installed (Debian dpdk-dev)\n");
		return LR_TEST_SKIP;
	}
	before = lr_mempool_avail_count(pool);
	snprintf(sock, sizeof(sock), "%s/recon.sock", dir);
	snprintf(dev, sizeof(dev), "net_vhost0,iface=%s", sock);
	snprintf(args, sizeof(args), "path=%s,queues=1,%s", sock, v);
	port = lr_test_memif_open(dev, 1, pool);
	for (int round = 0; round < 2; round++) {
		t0 = lr_get_tsc_cycles();
		if (port < 0 || testpmd_start(args, 1) != 0 ||
		    lr_test_memif_wait_link(port, 1) != 0)
			goto out;
		printf("round %d: link up %.0f ms after testpmd started\n",
		       round,
		       (double)(lr_get_tsc_cycles() - t0) * 1e3 /
			   (double)lr_get_tsc_hz());
		if (lr_test_testpmd_wait_line(&tp, "Press enter to exit") !=
			0 ||
		    xfer(port, 0, NFRAMES) != 0)
			goto out;
		lr_test_testpmd_stop(&tp, 0);
		if (lr_test_memif_wait_link(port, 0) != 0)
			goto out;
	}
	if (lr_test_memif_connects(port, 2, 2) != 0)
		goto out;
	ret = 0;
out:
	lr_test_testpmd_stop(&tp, 0);
	if (ret != 0)
		lr_test_testpmd_log(&tp, 80);
	lr_test_memif_shut(port);
	return case_clean(-1, before) < 0 ? -1 : ret;
}

/* ---- a fake frontend ---------------------------------------------------- */

#define MEM_SIZE   (1u << 20) /* the fake guest's memory */
#define RING_NUM   256
#define RING_AT(i) ((uint64_t)(i)*65536) /* ring i's offset in it */
#define BUF_AT	   (512u * 1024)

/* The fake frontend: its socket and its memory (a memfd we map too; its
 * guest-physical and virtual addresses are where we mapped it). */
struct fe {
	int sock;
	int memfd;
	uint8_t *mem;
};

/* Send request req with size bytes of payload pl and nfds descriptors. */
static int
fe_send(struct fe *f, uint32_t req, const void *pl, uint32_t size,
	const int *fds, unsigned nfds)
{
	struct lr_vhost_user_msg m;

	memset(&m, 0, sizeof(m));
	m.hdr.request = req;
	m.hdr.flags = LR_VHOST_USER_VERSION;
	m.hdr.size = size;
	memcpy(&m.payload, pl, size);
	return lr_vhost_user_send(f->sock, &m, fds, nfds, 5000);
}

/* A ring state request. */
static int
fe_state(struct fe *f, uint32_t req, uint32_t idx, uint32_t num)
{
	struct lr_vhost_user_vring_state s = {idx, num};

	return fe_send(f, req, &s, sizeof(s), NULL, 0);
}

/* Connect to sock (up to 30 s: the port's listener is up when started). */
static int
fe_open(struct fe *f, const char *sock)
{
	uint64_t end = lr_get_tsc_cycles() + 30 * lr_get_tsc_hz();

	memset(f, 0, sizeof(*f));
	f->memfd = -1;
	f->mem = MAP_FAILED;
	do {
		f->sock = lr_unix_connect(sock, LR_UNIX_STREAM);
		if (f->sock >= 0)
			break;
		lr_delay_us(1000);
	} while (lr_get_tsc_cycles() < end);
	if (f->sock < 0) {
		fprintf(stderr, "cannot connect to %s\n", sock);
		return -1;
	}
	f->memfd = memfd_create("fake_guest", MFD_CLOEXEC);
	if (f->memfd < 0 || ftruncate(f->memfd, MEM_SIZE) != 0)
		return -1;
	f->mem = mmap(NULL, MEM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		      f->memfd, 0);
	return f->mem == MAP_FAILED ? -1 : 0;
}

static void
fe_close(struct fe *f)
{
	if (f->sock >= 0)
		close(f->sock);
	if (f->memfd >= 0)
		close(f->memfd);
	if (f->mem != MAP_FAILED)
		munmap(f->mem, MEM_SIZE);
	f->sock = f->memfd = -1;
	f->mem = MAP_FAILED;
}

/* Our address of offset off in the fake guest's memory (its guest
 * address and its virtual address both). */
static uint64_t
fe_addr(const struct fe *f, uint64_t off)
{
	return (uint64_t)(uintptr_t)f->mem + off;
}

/* Owner, features feat (without PROTOCOL_FEATURES: rings enabled by
 * their kick), the memory table of one region over the whole memfd. */
static int
fe_mem_feat(struct fe *f, uint64_t feat)
{
	struct lr_vhost_user_memory t;

	memset(&t, 0, sizeof(t));
	t.nregions = 1;
	t.regions[0] = (struct lr_vhost_user_region){fe_addr(f, 0), MEM_SIZE,
						     fe_addr(f, 0), 0};
	if (fe_send(f, LR_VHOST_USER_SET_OWNER, NULL, 0, NULL, 0) != 0 ||
	    fe_send(f, LR_VHOST_USER_SET_FEATURES, &feat, 8, NULL, 0) != 0)
		return -1;
	return fe_send(f, LR_VHOST_USER_SET_MEM_TABLE, &t, 8 + 32, &f->memfd,
		       1);
}

/* fe_mem_feat() with VERSION_1 only. */
static int
fe_mem(struct fe *f)
{
	return fe_mem_feat(f, LR_VIRTIO_BIT(LR_VIRTIO_F_VERSION_1));
}

/* Ring i: size, base, addresses at RING_AT(i) (desc_off: the descriptor
 * table's offset instead), the call eventfd call (-1: none), no kick
 * descriptor (we poll). */
static int
fe_ring_call(struct fe *f, uint32_t i, uint64_t desc_off, int call)
{
	struct lr_vhost_user_vring_addr a = {i,
					     0,
					     fe_addr(f, desc_off),
					     fe_addr(f, RING_AT(i) + 8192),
					     fe_addr(f, RING_AT(i) + 4096),
					     0};
	uint64_t nofd = i | LR_VHOST_USER_VRING_NOFD, file = i;

	if (fe_state(f, LR_VHOST_USER_SET_VRING_NUM, i, RING_NUM) != 0 ||
	    fe_state(f, LR_VHOST_USER_SET_VRING_BASE, i, 0) != 0 ||
	    fe_send(f, LR_VHOST_USER_SET_VRING_ADDR, &a, sizeof(a), NULL, 0) !=
		0 ||
	    fe_send(f, LR_VHOST_USER_SET_VRING_CALL, call < 0 ? &nofd : &file,
		    8, &call, call < 0 ? 0 : 1) != 0)
		return -1;
	return fe_send(f, LR_VHOST_USER_SET_VRING_KICK, &nofd, 8, NULL, 0);
}

/* fe_ring_call() without a call descriptor. */
static int
fe_ring(struct fe *f, uint32_t i, uint64_t desc_off)
{
	return fe_ring_call(f, i, desc_off, -1);
}

/* A fully set-up fake frontend on sock with features feat and rings 0
 * and 1. */
static int
fe_setup_feat(struct fe *f, const char *sock, uint64_t feat)
{
	if (fe_open(f, sock) != 0 || fe_mem_feat(f, feat) != 0 ||
	    fe_ring(f, 0, RING_AT(0)) != 0 || fe_ring(f, 1, RING_AT(1)) != 0)
		return -1;
	return 0;
}

/* fe_setup_feat() with VERSION_1 alone. */
static int
fe_setup(struct fe *f, const char *sock)
{
	return fe_setup_feat(f, sock, LR_VIRTIO_BIT(LR_VIRTIO_F_VERSION_1));
}

/* The rings of the fake guest's ring i. */
static struct lr_vring_desc *
fe_desc(struct fe *f, unsigned i)
{
	return (struct lr_vring_desc *)(void *)(f->mem + RING_AT(i));
}

static struct lr_vring_avail *
fe_avail(struct fe *f, unsigned i)
{
	return (struct lr_vring_avail *)(void *)(f->mem + RING_AT(i) + 4096);
}

/* Descriptors open and mbufs in the pool before a bad_* case's port. */
static int fds_before;
static unsigned pool_before;

/* Our server port for a bad_* case on dir/name.sock, the log captured. */
static int
bad_port(const char *name, char *sock, size_t len)
{
	char dev[256];

	pool_before = lr_mempool_avail_count(pool);
	fds_before = lr_test_fd_count();
	snprintf(sock, len, "%s/%s.sock", dir, name);
	snprintf(dev, sizeof(dev), "net_vhost0,iface=%s", sock);
	lr_test_log_begin();
	return lr_test_memif_open(dev, 1, pool);
}

/* The end of a bad_* case: the port closed, the log shown, the pool
 * whole; ret, or -1 when an mbuf is missing. */
static int
bad_end(int port, struct fe *f, int ret)
{
	fe_close(f);
	lr_test_memif_shut(port);
	lr_test_log_end();
	return case_clean(fds_before, pool_before) < 0 ? -1 : ret;
}

static struct lr_vring_used *
fe_used(struct fe *f, unsigned i)
{
	return (struct lr_vring_used *)(void *)(f->mem + RING_AT(i) + 8192);
}

/* Calls counted on eventfd fd since the last look (0: none). */
static uint64_t
calls(int fd)
{
	uint64_t v = 0;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return 0;
	return v;
}

/* The guest sends frames [from, to) on its transmit ring (ring 1): each a
 * chain of a 12-byte header and the frame (frame_mbuf()'s bytes, queue
 * 9), descriptors 2i and 2i + 1; then the avail index moves. */
static void
fe_send_frames(struct fe *f, unsigned from, unsigned to)
{
	struct lr_vring_desc *d = fe_desc(f, 1);

	for (unsigned i = from; i < to; i++) {
		uint64_t hoff = BUF_AT + 4096u * i;

		memset(f->mem + hoff, 0, 12);
		lr_test_frame_make(f->mem + hoff + 64, 9, i, size_of(i));
		d[2 * i] = (struct lr_vring_desc){fe_addr(f, hoff), 12,
						  LR_VRING_DESC_F_NEXT,
						  (uint16_t)(2 * i + 1)};
		d[2 * i + 1] = (struct lr_vring_desc){fe_addr(f, hoff + 64),
						      size_of(i), 0, 0};
		fe_avail(f, 1)->ring[i] = (uint16_t)(2 * i);
	}
	__atomic_store_n(&fe_avail(f, 1)->idx, (uint16_t)to, __ATOMIC_RELEASE);
}

/* Receive and check frames [from, to) of queue 9 (deadline 30 s). */
static int
rx_frames(int port, unsigned from, unsigned to)
{
	struct lr_mbuf *m[BURST];
	uint64_t end = lr_get_tsc_cycles() + 30 * lr_get_tsc_hz();
	unsigned got = from;

	while (got < to && lr_get_tsc_cycles() < end) {
		uint16_t n = lr_eth_rx_burst((uint16_t)port, 0, m, BURST);

		for (uint16_t j = 0; j < n; j++) {
			int bad = got >= to || check_frame(m[j], 9, got) != 0;

			got++;
			lr_pktmbuf_free(m[j]);
			if (bad) {
				lr_pktmbuf_free_bulk(m + j + 1, n - j - 1);
				return -1;
			}
		}
	}
	if (got != to)
		fprintf(stderr, "%u of frames %u..%u\n", got - from, from, to);
	return got == to ? 0 : -1;
}

/* EVENT_IDX and mergeable buffers with a fake frontend that reads its
 * ring itself: frames it sends arrive byte for byte; the call eventfd is
 * written only when the used index passes used_event; a 1518-byte frame
 * we send into 1 KiB buffers takes two of them, num_buffers 2. */
static int
test_event_idx(void)
{
	uint64_t feat = LR_VIRTIO_BIT(LR_VIRTIO_F_VERSION_1) |
			LR_VIRTIO_BIT(LR_VIRTIO_F_RING_EVENT_IDX) |
			LR_VIRTIO_BIT(LR_VIRTIO_NET_F_MRG_RXBUF);
	struct fe f = {-1, -1, MAP_FAILED};
	int cfd[2] = {eventfd(0, EFD_NONBLOCK), eventfd(0, EFD_NONBLOCK)};
	uint8_t want[2048], got[2048];
	char sock[128];
	struct lr_mbuf *m;
	uint16_t nb;
	int port = bad_port("evidx", sock, sizeof(sock)), ret = -1;

	if (port < 0 || cfd[0] < 0 || cfd[1] < 0 || fe_open(&f, sock) != 0 ||
	    fe_mem_feat(&f, feat) != 0 ||
	    fe_ring_call(&f, 0, RING_AT(0), cfd[0]) != 0 ||
	    fe_ring_call(&f, 1, RING_AT(1), cfd[1]) != 0 ||
	    lr_test_memif_wait_link(port, 1) != 0)
		goto out;
	/* used_event 5: two frames (used 0 -> 2) ask for no call */
	*lr_vring_used_event(fe_avail(&f, 1), RING_NUM) = 5;
	fe_send_frames(&f, 0, 2);
	if (rx_frames(port, 0, 2) != 0 || calls(cfd[1]) != 0)
		goto out;
	/* four more (used 2 -> 6) pass it: one call */
	fe_send_frames(&f, 2, 6);
	if (rx_frames(port, 2, 6) != 0 || calls(cfd[1]) != 1 ||
	    lr_test_memif_xstat(port, "rx_q0_calls") != 1 ||
	    fe_used(&f, 1)->idx != 6)
		goto out;
	/* four 1 KiB receive buffers; a 1518-byte frame takes two */
	for (uint16_t i = 0; i < 4; i++) {
		fe_desc(&f, 0)[i] = (struct lr_vring_desc){
		    fe_addr(&f, BUF_AT + 65536 + 1024u * i), 1024,
		    LR_VRING_DESC_F_WRITE, 0};
		fe_avail(&f, 0)->ring[i] = i;
	}
	__atomic_store_n(&fe_avail(&f, 0)->idx, 4, __ATOMIC_RELEASE);
	m = frame_mbuf(0, 1);
	if (m == NULL || lr_eth_tx_burst((uint16_t)port, 0, &m, 1) != 1)
		goto out;
	memcpy(&nb, f.mem + BUF_AT + 65536 + 10, 2);
	memcpy(got, f.mem + BUF_AT + 65536 + 12, 1012);
	memcpy(got + 1012, f.mem + BUF_AT + 65536 + 1024, 506);
	lr_test_frame_make(want, 0, 1, 1518);
	if (fe_used(&f, 0)->idx != 2 || fe_used(&f, 0)->ring[0].len != 1024 ||
	    fe_used(&f, 0)->ring[1].id != 1 ||
	    fe_used(&f, 0)->ring[1].len != 506 || nb != 2 ||
	    memcmp(got, want, 1518) != 0 || calls(cfd[0]) != 1) {
		fprintf(stderr,
			"mergeable: used idx %u lens %u/%u "
			"num_buffers %u\n",
			fe_used(&f, 0)->idx, fe_used(&f, 0)->ring[0].len,
			fe_used(&f, 0)->ring[1].len, nb);
		goto out;
	}
	ret = 0;
out:
	ret = bad_end(port, &f, ret); /* cfd[] counted in both */
	for (int i = 0; i < 2; i++)
		if (cfd[i] >= 0)
			close(cfd[i]);
	return ret;
}

/* The first n bytes at d zeroed, then an Ethernet header (broadcast, from
 * 02:00:00:00:00:07, IPv4), the IPv4 header ip and the ports 12345 to
 * dport of its UDP or TCP header. */
static void
ip_head(uint8_t *d, uint32_t n, const uint8_t ip[20], uint8_t dport)
{
	memset(d, 0, n);
	memset(d, 0xff, 6);
	memcpy(d + 6, "\x02\0\0\0\0\x07", 6);
	d[12] = 0x08;
	memcpy(d + 14, ip, 20);
	d[34] = 0x30; /* 12345 */
	d[35] = 0x39;
	d[37] = dport;
}

/* A UDP/IPv4 frame of 74 bytes at d whose UDP checksum field holds the
 * pseudo-header sum (a sender relying on checksum offload). */
static void
udp_partial(uint8_t *d)
{
	static const uint8_t ip[20] = {0x45, 0, 0,  60, 0, 1, 0,  0, 64, 17,
				       0,    0, 10, 0,	0, 1, 10, 0, 0,	 2};
	uint32_t ps;

	ip_head(d, 74, ip, 53);
	d[39] = 40; /* UDP length */
	for (int i = 42; i < 74; i++)
		d[i] = (uint8_t)(i * 5);
	ps = lr_test_cksum_ref(d + 26, 8, 17 + 40);
	d[40] = (uint8_t)(ps >> 8);
	d[41] = (uint8_t)ps;
}

/* Virtio-net headers: a frame the guest sends with NEEDS_CSUM (CSUM
 * negotiated) arrives marked partial; sent back to the guest, which did
 * not negotiate GUEST_CSUM, it goes out with its checksum done here and
 * a header that asks for nothing. */
static int
test_vnet_offload(void)
{
	uint64_t feat = LR_VIRTIO_BIT(LR_VIRTIO_F_VERSION_1) |
			LR_VIRTIO_BIT(LR_VIRTIO_NET_F_CSUM);
	struct fe f = {-1, -1, MAP_FAILED};
	uint64_t end = lr_get_tsc_cycles() + 30 * lr_get_tsc_hz();
	uint8_t *h, *g;
	struct lr_mbuf *m = NULL;
	char sock[128];
	int port = bad_port("vnet", sock, sizeof(sock)), ret = -1;

	if (port < 0 || fe_setup_feat(&f, sock, feat) != 0 ||
	    lr_test_memif_wait_link(port, 1) != 0)
		goto out;
	h = f.mem + BUF_AT; /* header then frame, one descriptor */
	memset(h, 0, 12);
	h[0] = 1;  /* NEEDS_CSUM */
	h[6] = 34; /* csum_start */
	h[8] = 6;  /* csum_offset */
	udp_partial(h + 12);
	fe_desc(&f, 1)[0] =
	    (struct lr_vring_desc){fe_addr(&f, BUF_AT), 12 + 74, 0, 0};
	fe_avail(&f, 1)->ring[0] = 0;
	__atomic_store_n(&fe_avail(&f, 1)->idx, 1, __ATOMIC_RELEASE);
	while (lr_eth_rx_burst((uint16_t)port, 0, &m, 1) == 0 &&
	       lr_get_tsc_cycles() < end)
		;
	if (m == NULL || !(m->ol_flags & LR_MBUF_F_RX_L4_CKSUM_PARTIAL) ||
	    m->pkt_len != 74) {
		fprintf(stderr, "received %p flags 0x%llx\n", (void *)m,
			m ? (unsigned long long)m->ol_flags : 0ull);
		goto out;
	}
	fe_desc(&f, 0)[0] = (struct lr_vring_desc){
	    fe_addr(&f, BUF_AT + 4096), 2048, LR_VRING_DESC_F_WRITE, 0};
	fe_avail(&f, 0)->ring[0] = 0;
	__atomic_store_n(&fe_avail(&f, 0)->idx, 1, __ATOMIC_RELEASE);
	if (lr_eth_tx_burst((uint16_t)port, 0, &m, 1) != 1) {
		lr_pktmbuf_free(m);
		goto out;
	}
	g = f.mem + BUF_AT + 4096;
	if (fe_used(&f, 0)->idx != 1 || fe_used(&f, 0)->ring[0].len != 86 ||
	    g[0] != 0 || g[1] != 0 ||
	    lr_test_cksum_ref(g + 12 + 34, 40,
			      lr_test_cksum_ref(g + 12 + 26, 8, 17 + 40)) !=
		0xffff ||
	    memcmp(g + 12 + 42, h + 12 + 42, 32) != 0) {
		fprintf(stderr,
			"sent: used %u len %u header %u, checksum "
			"0x%04x\n",
			fe_used(&f, 0)->idx, fe_used(&f, 0)->ring[0].len, g[0],
			lr_test_cksum_ref(
			    g + 12 + 34, 40,
			    lr_test_cksum_ref(g + 12 + 26, 8, 17 + 40)));
		goto out;
	}
	ret = 0;
out:
	return bad_end(port, &f, ret);
}

/* A TCP/IPv4 super-frame of 54 + 1800 bytes at d (checksum fields 0,
 * sequence 0x01020304), to be cut into segments of 600. */
static uint32_t
tcp_super(uint8_t *d)
{
	static const uint8_t ip[20] = {0x45, 0,	 0x07, 0x30, 0, 1,  0x40,
				       0,    64, 6,    0,    0, 10, 0,
				       0,    1,	 10,   0,    0, 2};
	uint32_t len = 54 + 1800;

	ip_head(d, 54, ip, 80);
	memcpy(d + 38, "\x01\x02\x03\x04", 4);
	d[46] = 0x50; /* data offset 5 */
	d[47] = 0x18; /* PSH ACK */
	d[48] = 0xff;
	for (uint32_t i = 54; i < len; i++)
		d[i] = (uint8_t)(i * 7 + 3);
	return len;
}

/* A super-frame (TSO) for a guest without GUEST_TSO4/6 or GUEST_CSUM:
 * cut here into 3 frames of 600 bytes of payload, each with its own IP
 * length, sequence number and both checksums done (xstat tso_sw). */
static int
test_tso_soft(void)
{
	uint64_t feat = LR_VIRTIO_BIT(LR_VIRTIO_F_VERSION_1);
	struct fe f = {-1, -1, MAP_FAILED};
	static uint8_t sup[2048];
	uint32_t len = tcp_super(sup);
	struct lr_mbuf *m = NULL;
	uint64_t tso = 0;
	char sock[128];
	int port = bad_port("tso", sock, sizeof(sock)), ret = -1;

	if (port < 0 || fe_setup_feat(&f, sock, feat) != 0 ||
	    lr_test_memif_wait_link(port, 1) != 0)
		goto out;
	for (uint16_t i = 0; i < 4; i++) {
		fe_desc(&f, 0)[i] =
		    (struct lr_vring_desc){fe_addr(&f, BUF_AT + 4096 * (1 + i)),
					   2048, LR_VRING_DESC_F_WRITE, 0};
		fe_avail(&f, 0)->ring[i] = i;
	}
	__atomic_store_n(&fe_avail(&f, 0)->idx, 4, __ATOMIC_RELEASE);
	m = lr_test_tso_mbuf(pool, sup, len, 600);
	if (m == NULL)
		goto out;
	if (lr_eth_tx_burst((uint16_t)port, 0, &m, 1) != 1) {
		lr_pktmbuf_free(m);
		goto out;
	}
	if (fe_used(&f, 0)->idx != 3) {
		uint64_t oe = 0, er = 0;

		lr_eth_xstats_get_by_name((uint16_t)port, "tx_q0_tso_sw", &tso);
		lr_eth_xstats_get_by_name((uint16_t)port,
					  "tx_q0_offload_errors", &oe);
		lr_eth_xstats_get_by_name((uint16_t)port, "tx_errors", &er);
		fprintf(stderr,
			"used %u of 3 segments: tso_sw %llu offload_errors "
			"%llu tx_errors %llu\n",
			fe_used(&f, 0)->idx, (unsigned long long)tso,
			(unsigned long long)oe, (unsigned long long)er);
		goto out;
	}
	for (unsigned k = 0; k < 3; k++) {
		const uint8_t *g = f.mem + BUF_AT + 4096 * (1 + k) + 12;
		uint32_t seq = 0x01020304u + 600 * k;
		uint32_t ps = lr_test_cksum_ref(g + 26, 8, 6 + 20 + 600);

		if (fe_used(&f, 0)->ring[k].len != 12 + 54 + 600 ||
		    g[16] != 0x02 || g[17] != 0x80 || /* IP length 640 */
		    lr_test_cksum_ref(g + 14, 20, 0) != 0xffff ||
		    lr_test_cksum_ref(g + 34, 620, ps) != 0xffff ||
		    memcmp(g + 38,
			   (uint8_t[]){(uint8_t)(seq >> 24),
				       (uint8_t)(seq >> 16),
				       (uint8_t)(seq >> 8), (uint8_t)seq},
			   4) != 0 ||
		    memcmp(g + 54, sup + 54 + 600 * k, 600) != 0) {
			fprintf(
			    stderr,
			    "segment %u: len %u, IP length %u, IP sum "
			    "0x%04x, TCP sum 0x%04x, seq %02x%02x%02x%02x\n",
			    k, fe_used(&f, 0)->ring[k].len,
			    (unsigned)g[16] << 8 | g[17],
			    lr_test_cksum_ref(g + 14, 20, 0),
			    lr_test_cksum_ref(g + 34, 620, ps), g[38], g[39],
			    g[40], g[41]);
			goto out;
		}
	}
	if (lr_eth_xstats_get_by_name((uint16_t)port, "tx_q0_tso_sw", &tso) !=
		0 ||
	    tso != 1) {
		fprintf(stderr, "tx_q0_tso_sw %llu\n", (unsigned long long)tso);
		goto out;
	}
	ret = 0;
out:
	return bad_end(port, &f, ret);
}

/* One raw message (len bytes of it: a header and payload as given, the
 * rest cut) from a fresh frontend; then the log must say text, the link
 * must be down, and a good frontend must still get the link up. */
static int
bad_raw(const char *name, uint32_t req, uint32_t size, const void *pl,
	size_t len, const int *fds, unsigned nfds, const char *text)
{
	uint8_t buf[512];
	char sock[128];
	int port = bad_port(name, sock, sizeof(sock)), ret = -1;
	uint32_t h[3] = {req, LR_VHOST_USER_VERSION, size};
	struct fe f = {-1, -1, MAP_FAILED}, g = {-1, -1, MAP_FAILED};

	if (port < 0 || fe_open(&f, sock) != 0)
		goto out;
	memcpy(buf, h, 12);
	if (pl != NULL)
		memcpy(buf + 12, pl, len - 12);
	if (lr_unix_send(f.sock, buf, len, fds, nfds) != 0)
		goto out;
	if (len < 12)
		close(f.sock), f.sock = -1; /* the rest never comes */
	if (lr_test_log_wait(text) != 0 || lr_test_memif_link_up(port))
		goto out;
	/* the port listens on: a good frontend gets the link up */
	fe_close(&f);
	if (fe_setup(&g, sock) != 0 || lr_test_memif_wait_link(port, 1) != 0)
		goto out;
	ret = 0;
out:
	fe_close(&g);
	return bad_end(port, &f, ret);
}

static int
test_bad_truncated(void)
{
	return bad_raw("trunc", LR_VHOST_USER_SET_FEATURES, 8, NULL, 5, NULL, 0,
		       "bad message: truncated");
}

static int
test_bad_unknown(void)
{
	return bad_raw("unknown", 99, 0, NULL, 12, NULL, 0,
		       "bad message: unknown request 99");
}

static int
test_bad_size(void)
{
	uint32_t v = 1;

	return bad_raw("size", LR_VHOST_USER_SET_FEATURES, 4, &v, 16, NULL, 0,
		       "bad message: SET_FEATURES: size 4 (takes 8)");
}

/* A memory table of two regions over two memfds of 64 KiB (sizes and
 * addresses as given): overlapping, or larger than their files. */
static int
bad_table(const char *name, uint64_t g1, uint64_t size, const char *text)
{
	struct lr_vhost_user_memory t;
	int fds[2];
	int ret;

	memset(&t, 0, sizeof(t));
	t.nregions = 2;
	t.regions[0] =
	    (struct lr_vhost_user_region){0x100000, size, 0x7f0000000000ull, 0};
	t.regions[1] =
	    (struct lr_vhost_user_region){g1, size, 0x7f0000100000ull, 0};
	for (int i = 0; i < 2; i++) {
		fds[i] = memfd_create("bad_table", MFD_CLOEXEC);
		if (fds[i] < 0 || ftruncate(fds[i], 65536) != 0)
			return -1;
	}
	ret = bad_raw(name, LR_VHOST_USER_SET_MEM_TABLE, 8 + 64, &t, 12 + 72,
		      fds, 2, text);
	close(fds[0]);
	close(fds[1]);
	return ret;
}

static int
test_bad_overlap(void)
{
	return bad_table("overlap", 0x108000, 65536,
			 "regions 0 and 1 overlap in guest-physical space");
}

static int
test_bad_unmapped(void)
{
	return bad_table("unmapped", 0x200000, 1 << 20,
			 "region 0 (0x100000 bytes at offset 0x0) does not "
			 "map");
}

/* A ring whose descriptor table lies past the end of the memory. */
static int
test_bad_ring_addr(void)
{
	char sock[128];
	int port = bad_port("ringaddr", sock, sizeof(sock)), ret = -1;
	struct fe f = {-1, -1, MAP_FAILED};

	if (port < 0 || fe_open(&f, sock) != 0 || fe_mem(&f) != 0 ||
	    fe_ring(&f, 0, MEM_SIZE - 2048) != 0)
		goto out;
	if (lr_test_log_wait("ring 0: desc") != 0 ||
	    lr_test_log_wait("not inside the memory table") != 0 ||
	    lr_test_memif_link_up(port))
		goto out;
	ret = 0;
out:
	return bad_end(port, &f, ret);
}

/* The guest's transmit ring of port holds a chain that loops: no frame
 * comes from it, the ring is refused (said in the log, the link down, one
 * bad descriptor counted); 0 or -1. */
static int
loop_refused(int port)
{
	struct lr_mbuf *m[BURST];
	uint64_t end = lr_get_tsc_cycles() + 30 * lr_get_tsc_hz();

	while (lr_test_memif_link_up(port) && lr_get_tsc_cycles() < end) {
		uint16_t n = lr_eth_rx_burst((uint16_t)port, 0, m, BURST);

		lr_pktmbuf_free_bulk(m, n);
		if (n != 0) {
			fprintf(stderr, "%u frames from a loop\n", n);
			return -1;
		}
	}
	if (lr_test_log_wait("chain longer than the ring (a loop)") != 0 ||
	    lr_test_memif_wait_link(port, 0) != 0 ||
	    lr_test_memif_xstat(port, "rx_q0_bad_desc") != 1)
		return -1;
	return 0;
}

/* A descriptor chain that loops on the guest's transmit ring. */
static int
test_bad_loop(void)
{
	char sock[128];
	int port = bad_port("loop", sock, sizeof(sock)), ret = -1;
	struct fe f = {-1, -1, MAP_FAILED};

	if (port < 0 || fe_setup(&f, sock) != 0 ||
	    lr_test_memif_wait_link(port, 1) != 0)
		goto out;
	fe_desc(&f, 1)[0] = (struct lr_vring_desc){fe_addr(&f, BUF_AT), 100,
						   LR_VRING_DESC_F_NEXT, 1};
	fe_desc(&f, 1)[1] = (struct lr_vring_desc){fe_addr(&f, BUF_AT), 100,
						   LR_VRING_DESC_F_NEXT, 0};
	fe_avail(&f, 1)->ring[0] = 0;
	__atomic_store_n(&fe_avail(&f, 1)->idx, 1, __ATOMIC_RELEASE);
	ret = loop_refused(port);
out:
	return bad_end(port, &f, ret);
}

/* A packed ring whose every descriptor says NEXT: a chain longer than
 * the ring, refused. */
static int
test_bad_packed_loop(void)
{
	uint64_t feat = LR_VIRTIO_BIT(LR_VIRTIO_F_VERSION_1) |
			LR_VIRTIO_BIT(LR_VIRTIO_F_RING_PACKED);
	struct lr_vring_packed_desc *d;
	char sock[128];
	int port = bad_port("ploop", sock, sizeof(sock)), ret = -1;
	struct fe f = {-1, -1, MAP_FAILED};

	if (port < 0 || fe_open(&f, sock) != 0 || fe_mem_feat(&f, feat) != 0 ||
	    fe_ring(&f, 0, RING_AT(0)) != 0 ||
	    fe_ring(&f, 1, RING_AT(1)) != 0 ||
	    fe_state(&f, LR_VHOST_USER_SET_VRING_BASE, 1, 1u << 15) != 0 ||
	    lr_test_memif_wait_link(port, 1) != 0)
		goto out;
	d = (struct lr_vring_packed_desc *)(void *)(f.mem + RING_AT(1));
	for (unsigned i = 0; i < RING_NUM; i++)
		d[i] = (struct lr_vring_packed_desc){fe_addr(&f, BUF_AT), 100,
						     0, LR_VRING_DESC_F_NEXT};
	__atomic_store_n(&d[0].flags,
			 LR_VRING_DESC_F_NEXT | LR_VRING_PACKED_DESC_F_AVAIL,
			 __ATOMIC_RELEASE);
	ret = loop_refused(port);
out:
	return bad_end(port, &f, ret);
}

/* The frontend goes while we send into its receive ring. */
static int
test_bad_peer_gone(void)
{
	struct lr_mbuf *m[BURST];
	char sock[128];
	unsigned sent = 0;
	int port = bad_port("gone", sock, sizeof(sock)), ret = -1;
	uint64_t end;
	struct fe f = {-1, -1, MAP_FAILED};

	if (port < 0 || fe_setup(&f, sock) != 0 ||
	    lr_test_memif_wait_link(port, 1) != 0)
		goto out;
	/* 64 receive buffers of 2 KiB, then the peer closes */
	for (uint16_t i = 0; i < 64; i++) {
		fe_desc(&f, 0)[i] =
		    (struct lr_vring_desc){fe_addr(&f, BUF_AT + 2048u * i),
					   2048, LR_VRING_DESC_F_WRITE, 0};
		fe_avail(&f, 0)->ring[i] = i;
	}
	__atomic_store_n(&fe_avail(&f, 0)->idx, 64, __ATOMIC_RELEASE);
	end = lr_get_tsc_cycles() + 30 * lr_get_tsc_hz();
	while (lr_get_tsc_cycles() < end) {
		for (unsigned j = 0; j < BURST; j++)
			if ((m[j] = frame_mbuf(0, j)) == NULL)
				goto out;
		uint16_t s = lr_eth_tx_burst((uint16_t)port, 0, m, BURST);

		lr_pktmbuf_free_bulk(m + s, BURST - s);
		sent += s;
		if (sent >= 32 && f.sock >= 0) {
			close(f.sock); /* mid-burst: we go on sending */
			f.sock = -1;
		}
		if (!lr_test_memif_link_up(port))
			break;
	}
	if (sent < 32 || sent > 64 ||
	    lr_test_log_wait("frontend disconnected: the frontend closed the "
			     "connection") != 0 ||
	    lr_test_memif_wait_link(port, 0) != 0)
		goto out;
	ret = 0;
out:
	return bad_end(port, &f, ret);
}

/* Bad devargs: no port, an error naming the key and the value, nothing
 * left open. */
static int
test_bad_devargs(void)
{
	static const char *const bad[][2] = {
	    {"net_vhost0,iface=/x.sock,flush=2",
	     "flush: bad value '2' (auto, 0 or 1)"},
	    {"net_vhost0,iface=/x.sock,flush=", "flush: bad value ''"},
	    {"net_vhost0,iface=/x.sock,queues=9", "queues"},
	    {"net_vhost0,iface=/x.sock,client=2", "client"},
	    {"net_vhost0,queues=1", "iface: missing"},
	    {"net_vhost0,iface=/x.sock,bogus=1", "bogus"},
	};

	return lr_test_bad_devargs(bad, LR_DIM(bad), pool);
}

static const struct lr_test_case cases[] = {
    {"bad_devargs", test_bad_devargs},
    {"dpdk_split", NULL, dpdk_case, &dpdk_split},
    {"dpdk_mrg", NULL, dpdk_case, &dpdk_mrg},
    {"dpdk_in_order", NULL, dpdk_case, &dpdk_in_order},
    {"dpdk_mrg_in_order", NULL, dpdk_case, &dpdk_mrg_in_order},
    {"dpdk_2q", NULL, dpdk_case, &dpdk_2q},
    {"dpdk_2q_split", NULL, dpdk_case, &dpdk_2q_split},
    {"dpdk_client", NULL, dpdk_case, &dpdk_client},
    {"dpdk_client_split", NULL, dpdk_case, &dpdk_client_split},
    {"dpdk_packed", NULL, dpdk_case, &dpdk_packed},
    {"dpdk_packed_mrg", NULL, dpdk_case, &dpdk_packed_mrg},
    {"dpdk_packed_in_order", NULL, dpdk_case, &dpdk_packed_in_order},
    {"dpdk_packed_mrg_in_order", NULL, dpdk_case, &dpdk_packed_mrg_in_order},
    {"dpdk_packed_2q", NULL, dpdk_case, &dpdk_packed_2q},
    {"dpdk_packed_client", NULL, dpdk_case, &dpdk_packed_client},
    {"dpdk_flush", NULL, dpdk_case, &dpdk_flush},
    {"dpdk_flush_split", NULL, dpdk_case, &dpdk_flush_split},
    {"dpdk_packed_flush", NULL, dpdk_case, &dpdk_packed_flush},
    {"dpdk_noflush", NULL, dpdk_case, &dpdk_noflush},
    {"dpdk_reconnect", test_dpdk_reconnect},
    {"event_idx", test_event_idx},
    {"vnet_offload", test_vnet_offload},
    {"tso_soft", test_tso_soft},
    {"bad_truncated", test_bad_truncated},
    {"bad_unknown", test_bad_unknown},
    {"bad_size", test_bad_size},
    {"bad_overlap", test_bad_overlap},
    {"bad_unmapped", test_bad_unmapped},
    {"bad_ring_addr", test_bad_ring_addr},
    {"bad_loop", test_bad_loop},
    {"bad_packed_loop", test_bad_packed_loop},
    {"bad_peer_gone", test_bad_peer_gone},
};

int
main(int argc, char **argv)
{
	int rc = lr_test_memif_setup("test_pmd_vhost", &dir);

	if (rc != 0)
		return rc;
	if (lr_eth_driver_find("net_vhost") == NULL) {
		printf("skip: net_vhost is not built in\n");
		return LR_TEST_SKIP;
	}
	pool = lr_test_memif_eal("test_pmd_vhost");
	streams.pool = pool;
	if (pool == NULL)
		return 1;
	atexit(testpmd_reap);
	return lr_test_run("pmd_vhost", cases, (int)LR_DIM(cases), argc, argv);
}
