/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/net's vhost-user messages (lr_vhost_user.h) and virtio ring helpers
 * (lr_virtio.h): the messages DPDK's virtio-user and QEMU send when they
 * set up a device, each accepted; and each way a message can be wrong
 * (truncated header, unknown request, version, reply bit, size that is not
 * what the request carries, descriptor counts, memory tables with 0 or 9
 * regions, a region of size 0, overflowing or overlapping regions, ring
 * indexes, sizes, bases, enables and addresses out of range) refused with
 * its errno and a line naming the request and the field. Then one message
 * each way over a socketpair with its descriptors, and the receiver's
 * failures (truncated header or payload, oversized payload, nothing
 * there, peer gone) with every descriptor closed (counted in
 * /proc/self/fd); and the address translation at and past the edges of
 * its regions, wrap-around included; and vring_need_event().
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lr_errno.h"
#include "lr_test.h"
#include "lr_unix.h"
#include "lr_vhost_user.h"
#include "lr_virtio.h"

static char why[256];

/* A request with payload size size. */
static struct lr_vhost_user_msg
req(uint32_t request, uint32_t size)
{
	struct lr_vhost_user_msg m;

	memset(&m, 0, sizeof(m));
	m.hdr.request = request;
	m.hdr.flags = LR_VHOST_USER_VERSION;
	m.hdr.size = size;
	return m;
}

/* A ring state request. */
static struct lr_vhost_user_msg
state(uint32_t request, uint32_t index, uint32_t num)
{
	struct lr_vhost_user_msg m = req(request, 8);

	m.payload.state.index = index;
	m.payload.state.num = num;
	return m;
}

/* Check m as it would arrive whole, with nfds descriptors. */
static int
check(const struct lr_vhost_user_msg *m, unsigned nfds,
      const struct lr_vhost_user_check_ctx *ctx)
{
	why[0] = '\0';
	return lr_vhost_user_msg_check(m, LR_VHOST_USER_HDR_SIZE + m->hdr.size,
				       nfds, ctx, why, sizeof(why));
}

/* The failure rc, with why naming what: a macro so the line is the
 * case's. */
#define EXPECT_REFUSED(call, err, what)                                        \
	do {                                                                   \
		int rc_ = (call);                                              \
		LR_TEST_ASSERT(rc_ == -(err), "%s: %d, not -%s (%s)", #call,   \
			       rc_, #err, why);                                \
		LR_TEST_ASSERT(lr_errno == (err), "lr_errno %d", lr_errno);    \
		LR_TEST_ASSERT(strstr(why, what) != NULL,                      \
			       "'%s' does not say '%s'", why, what);           \
	} while (0)

/* A two-region memory table as virtio-user sends it. */
static struct lr_vhost_user_msg
mem2(void)
{
	struct lr_vhost_user_msg m = req(LR_VHOST_USER_SET_MEM_TABLE, 8 + 64);

	m.payload.memory.nregions = 2;
	m.payload.memory.regions[0] =
	    (struct lr_vhost_user_region){0x0, 0x100000, 0x7f0000000000ull, 0};
	m.payload.memory.regions[1] = (struct lr_vhost_user_region){
	    0x100000, 0x200000, 0x7f0000200000ull, 0x1000};
	return m;
}

/* The set-up a frontend sends, each message accepted. */
static int
test_good(void)
{
	struct lr_vhost_user_check_ctx two = {2, false, false};
	struct lr_vhost_user_check_ctx packed = {1, true, false};
	struct lr_vhost_user_msg m;

	m = req(LR_VHOST_USER_GET_FEATURES, 0);
	LR_TEST_ASSERT_EQ(check(&m, 0, NULL), 0);
	m = req(LR_VHOST_USER_SET_OWNER, 0);
	LR_TEST_ASSERT_EQ(check(&m, 0, NULL), 0);
	m = req(LR_VHOST_USER_SET_FEATURES, 8);
	m.payload.u64 = LR_VIRTIO_BIT(LR_VIRTIO_F_VERSION_1);
	LR_TEST_ASSERT_EQ(check(&m, 0, NULL), 0);
	m = mem2();
	LR_TEST_ASSERT_EQ(check(&m, 2, NULL), 0);
	m.hdr.size = sizeof(m.payload.memory); /* QEMU: the whole table */
	LR_TEST_ASSERT_EQ(check(&m, 2, NULL), 0);
	m = state(LR_VHOST_USER_SET_VRING_NUM, 1, 256);
	LR_TEST_ASSERT_EQ(check(&m, 0, NULL), 0);
	m = state(LR_VHOST_USER_SET_VRING_NUM, 3, 32768);
	LR_TEST_ASSERT_EQ(check(&m, 0, &two), 0);
	m = state(LR_VHOST_USER_SET_VRING_NUM, 0, 1000);
	LR_TEST_ASSERT_EQ(check(&m, 0, &packed), 0);
	m = state(LR_VHOST_USER_SET_VRING_BASE, 0, 1u << 15);
	LR_TEST_ASSERT_EQ(check(&m, 0, &packed), 0);
	m = state(LR_VHOST_USER_SET_VRING_ENABLE, 1, 1);
	LR_TEST_ASSERT_EQ(check(&m, 0, NULL), 0);
	m = state(LR_VHOST_USER_GET_VRING_BASE, 0, 0);
	LR_TEST_ASSERT_EQ(check(&m, 0, NULL), 0);
	m = req(LR_VHOST_USER_SET_VRING_ADDR, 40);
	m.payload.addr = (struct lr_vhost_user_vring_addr){
	    1, 0, 0x7f0000001000ull, 0x7f0000003000ull, 0x7f0000002000ull, 0};
	LR_TEST_ASSERT_EQ(check(&m, 0, NULL), 0);
	m = req(LR_VHOST_USER_SET_VRING_KICK, 8);
	m.payload.u64 = 1;
	LR_TEST_ASSERT_EQ(check(&m, 1, NULL), 0);
	m.payload.u64 = 1 | LR_VHOST_USER_VRING_NOFD;
	LR_TEST_ASSERT_EQ(check(&m, 0, NULL), 0);
	m = req(LR_VHOST_USER_SET_STATUS, 8);
	m.payload.u64 = 0xf;
	LR_TEST_ASSERT_EQ(check(&m, 0, NULL), 0);
	m = req(LR_VHOST_USER_GET_CONFIG, LR_VHOST_USER_CONFIG_HDR + 6);
	m.payload.config.size = 6;
	LR_TEST_ASSERT_EQ(check(&m, 0, NULL), 0);
	LR_TEST_ASSERT(strcmp(lr_vhost_user_request_name(5), "SET_MEM_TABLE") ==
			   0,
		       "name of 5");
	LR_TEST_ASSERT(strcmp(lr_vhost_user_request_name(26), "UNKNOWN") == 0,
		       "name of 26");
	return 0;
}

/* Headers that are wrong, and sizes that are not the request's. */
static int
test_bad_header(void)
{
	struct lr_vhost_user_msg m = req(LR_VHOST_USER_SET_FEATURES, 8);

	EXPECT_REFUSED(
	    lr_vhost_user_msg_check(&m, 5, 0, NULL, why, sizeof(why)), EBADMSG,
	    "truncated header: 5 of 12");
	m.hdr.request = 99;
	EXPECT_REFUSED(check(&m, 0, NULL), ENOSYS, "unknown request 99");
	m.hdr.request = LR_VHOST_USER_CREATE_CRYPTO_SESSION;
	EXPECT_REFUSED(check(&m, 0, NULL), ENOSYS, "unknown request 26");
	m = req(LR_VHOST_USER_SET_FEATURES, 8);
	m.hdr.flags = 2;
	EXPECT_REFUSED(check(&m, 0, NULL), EPROTO, "SET_FEATURES: version 2");
	m.hdr.flags = LR_VHOST_USER_VERSION | LR_VHOST_USER_REPLY;
	EXPECT_REFUSED(check(&m, 0, NULL), EPROTO, "a reply where");
	m = req(LR_VHOST_USER_SET_FEATURES, 4);
	EXPECT_REFUSED(check(&m, 0, NULL), EMSGSIZE,
		       "SET_FEATURES: size 4 (takes 8)");
	m = req(LR_VHOST_USER_GET_FEATURES, 8);
	EXPECT_REFUSED(check(&m, 0, NULL), EMSGSIZE, "GET_FEATURES: size 8");
	m = req(LR_VHOST_USER_SET_FEATURES, 8);
	EXPECT_REFUSED(
	    lr_vhost_user_msg_check(&m, 16, 0, NULL, why, sizeof(why)),
	    EMSGSIZE, "size 8 but 4 payload bytes came");
	m = req(LR_VHOST_USER_SET_FEATURES, 4000);
	EXPECT_REFUSED(
	    lr_vhost_user_msg_check(&m, 4012, 0, NULL, why, sizeof(why)),
	    EMSGSIZE, "size 4000");
	m = req(LR_VHOST_USER_SET_OWNER, 0);
	EXPECT_REFUSED(check(&m, 1, NULL), EBADF, "SET_OWNER: 1 descriptors");
	m = req(LR_VHOST_USER_SET_LOG_FD, 0);
	EXPECT_REFUSED(check(&m, 0, NULL), EBADF, "takes one");
	m = req(LR_VHOST_USER_SET_STATUS, 8);
	m.payload.u64 = 0x100;
	EXPECT_REFUSED(check(&m, 0, NULL), ERANGE, "status 0x100");
	m = req(LR_VHOST_USER_SET_CONFIG, LR_VHOST_USER_CONFIG_HDR + 6);
	m.payload.config.size = 7;
	EXPECT_REFUSED(check(&m, 0, NULL), ERANGE, "config offset 0 size 7");
	m.payload.config.size = 6;
	m.payload.config.offset = 252;
	EXPECT_REFUSED(check(&m, 0, NULL), ERANGE, "offset 252");
	return 0;
}

/* Memory tables that are wrong. */
static int
test_bad_memory(void)
{
	struct lr_vhost_user_msg m = mem2();

	m.payload.memory.nregions = 0;
	m.hdr.size = 8;
	EXPECT_REFUSED(check(&m, 0, NULL), ERANGE, "SET_MEM_TABLE: 0 regions");
	m.payload.memory.nregions = 9;
	m.hdr.size = sizeof(m.payload.memory);
	EXPECT_REFUSED(check(&m, 9, NULL), ERANGE, "9 regions (1..8)");
	m = mem2();
	m.hdr.size = 8 + 32;
	EXPECT_REFUSED(check(&m, 2, NULL), EMSGSIZE, "size 40 for 2 regions");
	m = mem2();
	m.hdr.size = 4;
	EXPECT_REFUSED(check(&m, 2, NULL), EMSGSIZE, "size 4 is under");
	m = mem2();
	EXPECT_REFUSED(check(&m, 1, NULL), EBADF,
		       "1 descriptors for 2 regions");
	m = mem2();
	m.payload.memory.regions[1].size = 0;
	EXPECT_REFUSED(check(&m, 2, NULL), EINVAL, "region 1: size 0");
	m = mem2();
	m.payload.memory.regions[1].guest_addr = UINT64_MAX - 0x1000;
	EXPECT_REFUSED(check(&m, 2, NULL), EINVAL, "region 1: guest");
	m = mem2();
	m.payload.memory.regions[0].user_addr = UINT64_MAX - 0x10;
	EXPECT_REFUSED(check(&m, 2, NULL), EINVAL, "overflows");
	m = mem2();
	m.payload.memory.regions[0].mmap_offset = UINT64_MAX;
	EXPECT_REFUSED(check(&m, 2, NULL), EINVAL, "overflows");
	m = mem2();
	m.payload.memory.regions[1].guest_addr = 0xfffff;
	EXPECT_REFUSED(check(&m, 2, NULL), EINVAL,
		       "regions 0 and 1 overlap in guest-physical space");
	m = mem2();
	m.payload.memory.regions[1].user_addr = 0x7f00000ff000ull;
	EXPECT_REFUSED(check(&m, 2, NULL), EINVAL,
		       "regions 0 and 1 overlap in the frontend's space");
	/* touching is not overlapping */
	m = mem2();
	m.payload.memory.regions[1].user_addr = 0x7f0000100000ull;
	LR_TEST_ASSERT_EQ(check(&m, 2, NULL), 0);
	return 0;
}

/* Ring requests out of range. */
static int
test_bad_ring(void)
{
	struct lr_vhost_user_check_ctx two = {2, false, false};
	struct lr_vhost_user_check_ctx zero = {0, false, false};
	struct lr_vhost_user_msg m;

	m = state(LR_VHOST_USER_SET_VRING_NUM, 2, 256);
	EXPECT_REFUSED(check(&m, 0, NULL), ERANGE,
		       "SET_VRING_NUM: ring 2 out of range (1 queue pairs");
	m = state(LR_VHOST_USER_SET_VRING_NUM, 4, 256);
	EXPECT_REFUSED(check(&m, 0, &two), ERANGE, "rings 0..3");
	EXPECT_REFUSED(check(&m, 0, &zero), EINVAL, "0 queue pairs");
	m = state(LR_VHOST_USER_SET_VRING_NUM, 0, 1000);
	EXPECT_REFUSED(check(&m, 0, NULL), ERANGE,
		       "ring 0: num 1000 is not a power of two");
	m = state(LR_VHOST_USER_SET_VRING_NUM, 0, 65536);
	EXPECT_REFUSED(check(&m, 0, NULL), ERANGE, "num 65536");
	m = state(LR_VHOST_USER_SET_VRING_NUM, 0, 0);
	EXPECT_REFUSED(check(&m, 0, NULL), ERANGE, "num 0");
	m = state(LR_VHOST_USER_SET_VRING_BASE, 1, 70000);
	EXPECT_REFUSED(check(&m, 0, NULL), ERANGE, "base 70000");
	m = state(LR_VHOST_USER_SET_VRING_ENABLE, 1, 2);
	EXPECT_REFUSED(check(&m, 0, NULL), ERANGE, "enable 2");
	m = state(LR_VHOST_USER_GET_VRING_BASE, 7, 0);
	EXPECT_REFUSED(check(&m, 0, NULL), ERANGE, "GET_VRING_BASE: ring 7");
	m = req(LR_VHOST_USER_SET_VRING_CALL, 8);
	m.payload.u64 = 0x10000;
	EXPECT_REFUSED(check(&m, 1, NULL), ERANGE, "unknown bits in 0x10000");
	m.payload.u64 = 1;
	EXPECT_REFUSED(check(&m, 0, NULL), EBADF, "0 descriptors");
	m.payload.u64 = 1 | LR_VHOST_USER_VRING_NOFD;
	EXPECT_REFUSED(check(&m, 1, NULL), EBADF, "NOFD flag");
	m.payload.u64 = 5;
	EXPECT_REFUSED(check(&m, 1, NULL), ERANGE, "SET_VRING_CALL: ring 5");
	m = req(LR_VHOST_USER_SET_VRING_ADDR, 40);
	m.payload.addr =
	    (struct lr_vhost_user_vring_addr){0, 0, 0x1008, 0x3000, 0x2000, 0};
	EXPECT_REFUSED(check(&m, 0, NULL), EINVAL, "misaligned desc 0x1008");
	m.payload.addr.desc_addr = 0x1000;
	m.payload.addr.used_addr = 0x3002;
	EXPECT_REFUSED(check(&m, 0, NULL), EINVAL, "used 0x3002");
	m.payload.addr.used_addr = 0x3000;
	m.payload.addr.flags = 2;
	EXPECT_REFUSED(check(&m, 0, NULL), ERANGE, "unknown flags 0x2");
	return 0;
}

/* Replies, as a frontend checks them. */
static int
test_replies(void)
{
	struct lr_vhost_user_check_ctx rep = {1, false, true};
	struct lr_vhost_user_msg m = req(LR_VHOST_USER_GET_FEATURES, 8);

	m.hdr.flags |= LR_VHOST_USER_REPLY;
	LR_TEST_ASSERT_EQ(check(&m, 0, &rep), 0);
	m = req(LR_VHOST_USER_SET_MEM_TABLE, 8); /* REPLY_ACK */
	m.hdr.flags |= LR_VHOST_USER_REPLY;
	LR_TEST_ASSERT_EQ(check(&m, 0, &rep), 0);
	m = state(LR_VHOST_USER_GET_VRING_BASE, 0, 17);
	m.hdr.flags |= LR_VHOST_USER_REPLY;
	LR_TEST_ASSERT_EQ(check(&m, 0, &rep), 0);
	EXPECT_REFUSED(check(&m, 1, &rep), EBADF, "1 descriptors");
	m = req(LR_VHOST_USER_GET_FEATURES, 0);
	m.hdr.flags |= LR_VHOST_USER_REPLY;
	EXPECT_REFUSED(check(&m, 0, &rep), EMSGSIZE,
		       "GET_FEATURES reply: size 0");
	m = req(LR_VHOST_USER_GET_FEATURES, 8);
	EXPECT_REFUSED(check(&m, 0, &rep), EPROTO, "a request where");
	return 0;
}

/* One message each way over a socketpair, its descriptors with it. */
static int
test_send_recv(void)
{
	struct lr_vhost_user_msg m = mem2(), r;
	int sv[2], fds[2], got[LR_VHOST_USER_MAX_REGIONS];
	int before = lr_test_fd_count();
	unsigned nfds = 9;
	ssize_t n;

	LR_TEST_ASSERT(
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) == 0,
	    "socketpair: %s", strerror(errno));
	fds[0] = eventfd(7, 0);
	fds[1] = eventfd(9, 0);
	LR_TEST_ASSERT_EQ(lr_vhost_user_send(sv[0], &m, fds, 2, 1000), 0);
	n = lr_vhost_user_recv(sv[1], &r, got, &nfds, 1000);
	LR_TEST_ASSERT_EQ(n, 12 + 72);
	LR_TEST_ASSERT_EQ(nfds, 2);
	LR_TEST_ASSERT(memcmp(&r.hdr, &m.hdr, 12) == 0, "header");
	LR_TEST_ASSERT(memcmp(&r.payload, &m.payload, 72) == 0, "payload");
	LR_TEST_ASSERT_EQ(lr_vhost_user_msg_check(&r, (size_t)n, nfds, NULL,
						  why, sizeof(why)),
			  0);
	for (int i = 0; i < 2; i++) {
		uint64_t v = 0;

		LR_TEST_ASSERT_EQ(read(got[i], &v, 8), 8);
		LR_TEST_ASSERT_EQ(v, i == 0 ? 7 : 9);
		LR_TEST_ASSERT(fcntl(got[i], F_GETFD) & FD_CLOEXEC, "cloexec");
	}
	lr_unix_close_fds(got, nfds);
	lr_unix_close_fds(fds, 2);
	/* nothing there */
	LR_TEST_ASSERT_EQ(lr_vhost_user_recv(sv[1], &r, got, &nfds, 0),
			  -EAGAIN);
	/* an empty payload */
	m = req(LR_VHOST_USER_SET_OWNER, 0);
	LR_TEST_ASSERT_EQ(lr_vhost_user_send(sv[0], &m, NULL, 0, 1000), 0);
	LR_TEST_ASSERT_EQ(lr_vhost_user_recv(sv[1], &r, got, &nfds, 1000), 12);
	m.hdr.size = LR_VHOST_USER_PAYLOAD_MAX + 1;
	LR_TEST_ASSERT_EQ(lr_vhost_user_send(sv[0], &m, NULL, 0, 1000),
			  -EMSGSIZE);
	close(sv[0]);
	close(sv[1]);
	LR_TEST_ASSERT_EQ(lr_test_fd_count(), before);
	return 0;
}

/* A raw header (and part of a payload), with one descriptor. */
static int
send_raw(int sock, uint32_t request, uint32_t size, size_t len)
{
	uint8_t buf[64] = {0};
	uint32_t h[3] = {request, LR_VHOST_USER_VERSION, size};
	int efd = eventfd(0, 0), rc;

	memcpy(buf, h, sizeof(h));
	rc = lr_unix_send(sock, buf, len, &efd, 1);
	close(efd);
	return rc;
}

/* The receiver's failures: nothing leaks, the peer's loss is told. */
static int
test_recv_refused(void)
{
	struct lr_vhost_user_msg r;
	int sv[2], got[LR_VHOST_USER_MAX_REGIONS];
	int before = lr_test_fd_count();
	unsigned nfds = 0;

	/* truncated header, then the peer is gone */
	LR_TEST_ASSERT(
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) == 0,
	    "socketpair");
	LR_TEST_ASSERT_EQ(send_raw(sv[0], 5, 8, 5), 0);
	close(sv[0]);
	LR_TEST_ASSERT_EQ(lr_vhost_user_recv(sv[1], &r, got, &nfds, 1000),
			  -EBADMSG);
	LR_TEST_ASSERT_EQ(nfds, 0);
	LR_TEST_ASSERT_EQ(lr_vhost_user_recv(sv[1], &r, got, &nfds, 1000), 0);
	close(sv[1]);
	/* a payload cut short */
	LR_TEST_ASSERT(
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) == 0,
	    "socketpair");
	LR_TEST_ASSERT_EQ(send_raw(sv[0], 2, 8, 16), 0);
	close(sv[0]);
	LR_TEST_ASSERT_EQ(lr_vhost_user_recv(sv[1], &r, got, &nfds, 1000),
			  -EBADMSG);
	close(sv[1]);
	/* a payload too long for any request */
	LR_TEST_ASSERT(
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) == 0,
	    "socketpair");
	LR_TEST_ASSERT_EQ(send_raw(sv[0], 2, 100000, 12), 0);
	LR_TEST_ASSERT_EQ(lr_vhost_user_recv(sv[1], &r, got, &nfds, 1000),
			  -EMSGSIZE);
	LR_TEST_ASSERT_EQ(lr_errno, EMSGSIZE);
	/* a header stalled halfway: the deadline, not a hang */
	LR_TEST_ASSERT_EQ(send_raw(sv[0], 2, 8, 6), 0);
	LR_TEST_ASSERT_EQ(lr_vhost_user_recv(sv[1], &r, got, &nfds, 50),
			  -EBADMSG);
	close(sv[0]);
	close(sv[1]);
	LR_TEST_ASSERT_EQ(lr_test_fd_count(), before);
	return 0;
}

/* Translation: inside one region only, at and past its edges. */
static int
test_translate(void)
{
	static uint8_t a[4096], b[4096];
	struct lr_vhost_mem m = {2,
				 {{0x1000, 0x7f0000000000ull, 4096, a},
				  {0x3000, 0x7f0000010000ull, 4096, b}}};

	LR_TEST_ASSERT(lr_vhost_mem_gpa(&m, 0x1000, 4096) == a, "a whole");
	LR_TEST_ASSERT(lr_vhost_mem_gpa(&m, 0x1ff0, 16) == a + 0xff0, "a end");
	LR_TEST_ASSERT(lr_vhost_mem_gpa(&m, 0x1ff0, 17) == NULL, "past a");
	LR_TEST_ASSERT(lr_vhost_mem_gpa(&m, 0x2000, 1) == NULL, "between");
	LR_TEST_ASSERT(lr_vhost_mem_gpa(&m, 0x0fff, 2) == NULL, "before a");
	LR_TEST_ASSERT(lr_vhost_mem_gpa(&m, 0x3800, 0) == b + 0x800, "in b");
	LR_TEST_ASSERT(lr_vhost_mem_gpa(&m, 0x1800, UINT64_MAX) == NULL,
		       "huge length");
	LR_TEST_ASSERT(lr_vhost_mem_gpa(&m, UINT64_MAX, 2) == NULL, "wraps");
	LR_TEST_ASSERT(lr_vhost_mem_uva(&m, 0x7f0000010010ull, 16) == b + 16,
		       "uva in b");
	LR_TEST_ASSERT(lr_vhost_mem_uva(&m, 0x7f0000000ff8ull, 16) == NULL,
		       "uva straddles the end of a");
	LR_TEST_ASSERT(lr_vhost_mem_uva(&m, 0x1000, 1) == NULL, "gpa as uva");
	m.nregions = 0;
	LR_TEST_ASSERT(lr_vhost_mem_gpa(&m, 0x1000, 1) == NULL, "empty");
	return 0;
}

/* The ring helpers: sizes, validity, the EVENT_IDX rule, packed flags. */
static int
test_rings(void)
{
	LR_TEST_ASSERT(lr_vring_num_valid(1) && lr_vring_num_valid(32768) &&
			   !lr_vring_num_valid(0) &&
			   !lr_vring_num_valid(65536) &&
			   !lr_vring_num_valid(384),
		       "split sizes");
	LR_TEST_ASSERT(lr_vring_packed_num_valid(384) &&
			   !lr_vring_packed_num_valid(32769),
		       "packed sizes");
	LR_TEST_ASSERT_EQ(lr_vring_desc_size(256), 4096);
	LR_TEST_ASSERT_EQ(lr_vring_avail_size(256), 518);
	LR_TEST_ASSERT_EQ(lr_vring_used_size(256), 2054);
	/* event 5: moving 3 -> 6 passes it, 6 -> 9 does not; wrap too */
	LR_TEST_ASSERT(lr_vring_need_event(5, 6, 3), "passes");
	LR_TEST_ASSERT(!lr_vring_need_event(5, 9, 6), "already past");
	LR_TEST_ASSERT(!lr_vring_need_event(5, 5, 3), "not yet");
	LR_TEST_ASSERT(lr_vring_need_event(65535, 2, 65534), "wraps");
	LR_TEST_ASSERT(
	    lr_vring_packed_desc_avail(LR_VRING_PACKED_DESC_F_AVAIL, true) &&
		!lr_vring_packed_desc_avail(LR_VRING_PACKED_DESC_F_AVAIL |
						LR_VRING_PACKED_DESC_F_USED,
					    true) &&
		lr_vring_packed_desc_avail(LR_VRING_PACKED_DESC_F_USED,
					   false) &&
		lr_vring_packed_desc_used(LR_VRING_PACKED_DESC_F_AVAIL |
					      LR_VRING_PACKED_DESC_F_USED,
					  true),
	    "packed wrap flags");
	return 0;
}

/* Keeping the other side's event index behind ours: a 32768-entry ring
 * whose other side stays a whole ring ahead publishes 2^17 entries in
 * bursts of 32 and never passes the event index; left in place, it does. */
static int
test_event_follow(void)
{
	uint16_t ev = 0, mark = 0, fixed = 0xffff, ours = 0, nfollow = 0,
		 nfixed = 0;

	lr_vring_event_behind(&ev, ours, &mark);
	LR_TEST_ASSERT(ev == 0xffff && mark == 0, "behind: %u %u", ev, mark);
	for (unsigned i = 0; i < (1u << 17) / 32; i++) {
		uint16_t old = (uint16_t)(ours + 32768), now;

		ours = (uint16_t)(ours + 32);
		now = (uint16_t)(ours + 32768);
		nfollow += lr_vring_need_event(ev, now, old);
		nfixed += lr_vring_need_event(fixed, now, old);
		lr_vring_event_follow(&ev, ours, &mark);
	}
	LR_TEST_ASSERT(nfollow == 0, "%u notifications", nfollow);
	LR_TEST_ASSERT(nfixed == 2, "a fixed index passed %u times", nfixed);
	LR_TEST_ASSERT((uint16_t)(ours - mark) < LR_VRING_EVENT_STEP &&
			   ev == (uint16_t)(mark - 1),
		       "ours %u mark %u event %u", ours, mark, ev);
	return 0;
}

static const struct lr_test_case cases[] = {
    {"good", test_good},
    {"bad_header", test_bad_header},
    {"bad_memory", test_bad_memory},
    {"bad_ring", test_bad_ring},
    {"replies", test_replies},
    {"send_recv", test_send_recv},
    {"recv_refused", test_recv_refused},
    {"translate", test_translate},
    {"rings", test_rings},
    {"event_follow", test_event_follow},
};

LR_TEST_MAIN("vhost_user", cases)
