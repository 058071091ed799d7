/* SPDX-License-Identifier: BSD-3-Clause */
/* net_memif's control channel and its socket files, between two ports of
 * this process and against hand-written peers:
 *  - secret: a wrong secret is refused with a clear reason;
 *  - bad_peer: a hand-written peer sending malformed messages (bad size,
 *    a region without its fd, an unknown id, a ring outside its region)
 *    gets a DISCONNECT naming the fault, as does one that connects and
 *    then publishes a descriptor outside its region; the server keeps
 *    serving;
 *  - zc_bad_peer: a hand-written server that fills a zero-copy client's
 *    buffer with a length past bsize, then one that moves the offset:
 *    nothing is received, the client disconnects naming the fault;
 *  - socket_removed: the server's socket file removed while a client
 *    is connected and while none is: a log line, the server listens on
 *    the path again, the link stays up, a new client gets in; another's
 *    file put in its place is left alone (the stop does not remove it);
 *    a client whose socket folder vanished retries until a server is
 *    back;
 *  - socket_mode: socket-mode=0660 creates the socket file 0660 and a
 *    client connects through it; a second server port on that socket
 *    asking for another mode is refused;
 *  - bad_devargs: each bad value is refused with a message naming it;
 * Helpers shared with the other net_memif programs: lr_test_pmd_memif.h. */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>

#include "lr_cycles.h"
#include "lr_eal.h"
#include "lr_errno.h"
#include "lr_eth_memif.h"
#include "lr_ethdev.h"
#include "lr_ethdev_driver.h"
#include "lr_memory.h"
#include "lr_log.h"
#include "lr_mbuf.h"
#include "lr_test.h"
#include "lr_test_memif.h"
#include "lr_test_pmd_memif.h"
#include "lr_unix.h"

/* A SOCK_SEQPACKET Unix socket bound to path (bound 1) or connected to
 * it (0); its fd, or -1 after perror(what). */
static int
unix_socket(const char *path, int bound, const char *what)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	size_t len = strlen(path);

	if (len < sizeof(sa.sun_path))
		memcpy(sa.sun_path, path, len + 1);
	if (fd < 0 || len >= sizeof(sa.sun_path) ||
	    (bound ? bind(fd, (struct sockaddr *)&sa, sizeof(sa))
		   : connect(fd, (struct sockaddr *)&sa, sizeof(sa))) != 0) {
		perror(what);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* A socket file of someone else's at path (bound, not listening: a
 * client's connect is refused), put there by rename() so that no one sees
 * the path empty; its fd or -1. */
static int
foreign_socket(const char *path)
{
	char tmp[108];
	int fd;

	snprintf(tmp, sizeof(tmp), "%.90s.other", path);
	fd = unix_socket(tmp, 1, "foreign socket");
	if (fd >= 0 && rename(tmp, path) != 0) {
		perror("foreign socket");
		close(fd);
		return -1;
	}
	return fd;
}

/* The server's socket file removed while a client is connected, then
 * while none is: the server says so and listens on the path again, the
 * connected link stays up and carries frames, a new client gets in. A
 * file of someone else's in its place is left alone, also when the
 * server stops. A client whose socket path vanished (its folder
 * removed) keeps retrying and reconnects when a server is back. */
static int
test_socket_removed(void)
{
	char sub[96], cmd[160];
	struct memif_pair p;
	int other = -1, ret = -1;
	const char *sock = p.sock;
	struct stat st;

	LR_TEST_ASSERT(pair_init(&p, 90, "rm/s.sock", "", "") == 0, "EAL init");
	snprintf(sub, sizeof(sub), "%s/rm", dir);
	LR_TEST_ASSERT(mkdir(sub, 0700) == 0, "mkdir %s", sub);
	if (pair_up(&p, 1) != 0)
		goto out;
	/* removed while connected: reported, listening again, link up */
	lr_test_log_begin();
	if (unlink(sock) != 0 ||
	    lr_test_log_wait("net_memif90: socket ") != 0 ||
	    lr_test_log_wait("/rm/s.sock removed: listening on it again "
			     "(connected clients stay connected)") != 0)
		goto log_out;
	lr_test_log_end();
	if (!lr_test_memif_link_up(p.sp) || !lr_test_memif_link_up(p.cp) ||
	    stat(sock, &st) != 0 || (st.st_mode & 0777) != 0600 ||
	    xfer(p.cp, 0, p.sp, 0, 90, 300) != 0 ||
	    xfer(p.sp, 0, p.cp, 0, 91, 300) != 0) {
		fprintf(stderr, "after the removal: links %d %d, file %d\n",
			lr_test_memif_link_up(p.sp),
			lr_test_memif_link_up(p.cp), access(sock, F_OK));
		goto out;
	}
	/* removed while no client is connected; a client gets in */
	lr_eth_dev_stop((uint16_t)p.cp);
	if (wait_link(p.sp, -1, 0) != 0)
		goto out;
	lr_test_log_begin();
	if (unlink(sock) != 0 ||
	    lr_test_log_wait("/rm/s.sock removed: listening on it again") != 0)
		goto log_out;
	lr_test_log_end();
	if (lr_eth_dev_start((uint16_t)p.cp) != 0 ||
	    wait_link(p.sp, p.cp, 1) != 0 ||
	    xfer(p.cp, 0, p.sp, 0, 92, 300) != 0)
		goto out;
	/* another's file in its place: left alone, even by the stop */
	lr_test_log_begin();
	other = foreign_socket(sock);
	if (other < 0 ||
	    lr_test_log_wait("/rm/s.sock replaced by another file: "
			     "left alone") != 0)
		goto log_out;
	if (!lr_test_memif_link_up(p.sp) || !lr_test_memif_link_up(p.cp) ||
	    xfer(p.sp, 0, p.cp, 0, 93, 300) != 0)
		goto log_out;
	lr_eth_dev_stop((uint16_t)p.sp);
	if (wait_link(p.cp, -1, 0) != 0)
		goto log_out;
	lr_test_log_end();
	if (access(sock, F_OK) != 0) {
		fprintf(stderr, "the server's stop removed another's file\n");
		goto out;
	}
	/* the client's path vanishes: it goes on retrying */
	lr_test_log_begin();
	close(other);
	other = -1;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", sub);
	if (system(cmd) != 0 ||
	    lr_test_log_wait("net_memif91: waiting for a server on ") != 0 ||
	    lr_test_log_wait("/rm/s.sock (No such file or directory)") != 0)
		goto log_out;
	lr_test_log_end();
	if (mkdir(sub, 0700) != 0 || lr_eth_dev_start((uint16_t)p.sp) != 0 ||
	    wait_link(p.sp, p.cp, 1) != 0 ||
	    xfer(p.cp, 0, p.sp, 0, 94, 300) != 0 ||
	    xfer(p.sp, 0, p.cp, 0, 95, 300) != 0)
		goto out;
	if (xstat(p.cp, "connects") != 3) {
		fprintf(stderr, "client connects %llu, expected 3\n",
			(unsigned long long)xstat(p.cp, "connects"));
		goto out;
	}
	ret = 0;
	goto out;
log_out:
	fprintf(stderr, "log:\n%s\n", lr_test_log_end());
out:
	if (other >= 0)
		close(other);
	pair_shut(&p);
	LR_TEST_ASSERT(ret == 0, "socket removed");
	LR_TEST_ASSERT(access(sock, F_OK) != 0, "socket file %s left behind",
		       sock);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return 0;
}

static int
test_secret(void)
{
	struct memif_pair p;
	int ret;

	LR_TEST_ASSERT(pair_init(&p, 30, "sec", ",secret=open-sesame",
				 ",secret=open-barley") == 0,
		       "EAL init");
	lr_test_log_begin();
	ret = pair_open(&p, 1) == 0 ? lr_test_log_wait("incorrect secret") : -1;
	if (ret == 0)
		ret = lr_test_log_wait(
		    "net_memif31: peer disconnected: incorrect "
		    "secret");
	LR_TEST_ASSERT(!lr_test_memif_link_up(p.sp) &&
			   !lr_test_memif_link_up(p.cp),
		       "link up");
	pair_shut(&p);
	lr_test_log_end();
	LR_TEST_ASSERT(ret == 0, "wrong secret not refused");
	/* the right one */
	ret = pair_init(&p, 30, "sec", ",secret=open-sesame",
			",secret=open-sesame");
	if (ret == 0)
		ret = pair_up(&p, 1);
	pair_shut(&p);
	LR_TEST_ASSERT(ret == 0, "right secret refused");
	return 0;
}

/* ------------------------------------------------------------------ */
/* A hand-written peer. */

struct __attribute__((packed)) raw_msg {
	uint16_t type;
	uint8_t body[126];
};

static int
raw_connect(const char *path)
{
	return unix_socket(path, 0, "connect");
}

/* Send len bytes of m with fd (-1: none); 0 or -1. */
static int
raw_send(int s, const void *m, size_t len, int fd)
{
	return lr_unix_send(s, m, len, &fd, fd >= 0 ? 1 : 0) == 0 ? 0 : -1;
}

/* Receive one message (waiting up to 20 s); its type or -1. */
static int
raw_recv(int s, struct raw_msg *m)
{
	struct pollfd pfd = {.fd = s, .events = POLLIN};

	if (poll(&pfd, 1, 20000) != 1)
		return -1;
	memset(m, 0, sizeof(*m));
	if (recv(s, m, sizeof(*m), 0) != (ssize_t)sizeof(*m))
		return -1;
	return m->type;
}

enum {
	ACK = 1,
	HELLO = 2,
	INIT = 3,
	ADD_REGION = 4,
	ADD_RING = 5,
	CONNECT = 6,
	DISCONNECT = 8
};

static void
raw_init(struct raw_msg *m, uint32_t id)
{
	memset(m, 0, sizeof(*m));
	m->type = INIT;
	uint16_t v = 0x0200;

	memcpy(m->body, &v, 2);
	memcpy(m->body + 2, &id, 4);
}

/* A sealable memfd of 4096 bytes for a region; its fd or -1. */
static int
region_memfd(void)
{
	int mfd = memfd_create("bad", MFD_ALLOW_SEALING);

	if (mfd >= 0 && (ftruncate(mfd, 4096) != 0 ||
			 fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK) != 0)) {
		close(mfd);
		return -1;
	}
	return mfd;
}

/* Two rings of 16 slots in region 0 (C2S at offset 0, S2C at s2c_off),
 * each with its event fd and acknowledged, then CONNECT; 0 or -1. */
static int
raw_rings_connect(int s, uint32_t s2c_off)
{
	struct raw_msg m;

	for (int d = 0; d < 2; d++) {
		uint16_t flags = d == 0 ? 1 : 0;
		uint32_t off = d == 0 ? 0 : s2c_off;
		int efd = memfd_create("ev", 0);

		memset(&m, 0, sizeof(m));
		m.type = ADD_RING;
		memcpy(m.body, &flags, 2);
		memcpy(m.body + 6, &off, 4);
		m.body[10] = 4;
		raw_send(s, &m, sizeof(m), efd);
		close(efd);
		if (raw_recv(s, &m) != ACK)
			return -1;
	}
	memset(&m, 0, sizeof(m));
	m.type = CONNECT;
	raw_send(s, &m, sizeof(m), -1);
	return 0;
}

/* Run one bad exchange against the server at path; 0 if the server
 * answered with DISCONNECT whose reason holds `reason`. */
static int
bad_exchange(const char *path, int what, const char *reason)
{
	struct raw_msg m;
	int s = raw_connect(path), ret = -1, mfd = -1;

	if (s < 0)
		return -1;
	if (raw_recv(s, &m) != HELLO)
		goto out;
	if (what == 0) { /* a short message */
		raw_init(&m, 0);
		raw_send(s, &m, 64, -1);
		goto answer;
	}
	raw_init(&m, what == 2 ? 77 : 0);
	raw_send(s, &m, sizeof(m), -1);
	if (what == 2)
		goto answer;
	if (raw_recv(s, &m) != ACK)
		goto out;
	memset(&m, 0, sizeof(m));
	m.type = ADD_REGION;
	uint64_t size = 4096;

	memcpy(m.body + 2, &size, 8);
	if (what == 1) { /* region without its memfd */
		raw_send(s, &m, sizeof(m), -1);
		goto answer;
	}
	mfd = region_memfd();
	if (mfd < 0)
		goto out;
	uint32_t cookie = 0x3E31F20; /* the C2S ring at 0 looks right */

	if (pwrite(mfd, &cookie, 4, 0) != 4)
		goto out;
	raw_send(s, &m, sizeof(m), mfd);
	if (raw_recv(s, &m) != ACK)
		goto out;
	/* two rings; the S2C one past the region's end */
	if (raw_rings_connect(s, 4096 - 64) != 0)
		goto out;
answer:
	if (raw_recv(s, &m) != DISCONNECT) {
		fprintf(stderr, "bad peer %d: no DISCONNECT (type %u)\n", what,
			m.type);
		goto out;
	}
	m.body[125] = '\0';
	if (strstr((char *)m.body + 4, reason) == NULL) {
		fprintf(stderr, "bad peer %d: reason '%s', expected '%s'\n",
			what, (char *)m.body + 4, reason);
		goto out;
	}
	ret = 0;
out:
	if (mfd >= 0)
		close(mfd);
	close(s);
	return ret;
}

/* A hand-written client that connects properly, then publishes a C2S
 * descriptor pointing past its region: the server's rx must refuse it and
 * disconnect naming it. 0 or -1. */
static int
bad_descriptor(const char *path, int sp)
{
	struct raw_msg m;
	int s = raw_connect(path), ret = -1, mfd = -1;
	const uint32_t rb = 2 * LR_CACHE_LINE_SIZE + 16 * 16; /* log2 4 */
	uint8_t *reg = MAP_FAILED;

	if (s < 0)
		return -1;
	if (raw_recv(s, &m) != HELLO)
		goto out;
	raw_init(&m, 0);
	raw_send(s, &m, sizeof(m), -1);
	if (raw_recv(s, &m) != ACK)
		goto out;
	mfd = region_memfd();
	if (mfd < 0)
		goto out;
	reg = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	if (reg == MAP_FAILED)
		goto out;
	uint32_t cookie = 0x3E31F20;

	memcpy(reg, &cookie, 4);
	memcpy(reg + rb, &cookie, 4);
	memset(&m, 0, sizeof(m));
	m.type = ADD_REGION;
	uint64_t size = 4096;

	memcpy(m.body + 2, &size, 8);
	raw_send(s, &m, sizeof(m), mfd);
	if (raw_recv(s, &m) != ACK)
		goto out;
	if (raw_rings_connect(s, rb) != 0 ||
	    raw_recv(s, &m) != 7 /* CONNECTED */)
		goto out;
	/* desc 0 of the C2S ring: {flags, region, length, offset, meta} */
	uint16_t z = 0;
	uint32_t len = 500, off = 4000;
	uint8_t *d0 = reg + 2 * LR_CACHE_LINE_SIZE;

	memcpy(d0, &z, 2);
	memcpy(d0 + 2, &z, 2);
	memcpy(d0 + 4, &len, 4);
	memcpy(d0 + 8, &off, 4);
	__atomic_store_n((uint16_t *)(reg + 6), (uint16_t)1, __ATOMIC_RELEASE);
	/* the server polls and finds it */
	struct lr_mbuf *mb[BURST];
	struct pollfd pfd = {.fd = s, .events = POLLIN};
	uint64_t end = lr_get_tsc_cycles() + 20 * lr_get_tsc_hz();

	while (poll(&pfd, 1, 0) == 0 && lr_get_tsc_cycles() < end) {
		uint16_t n = lr_eth_rx_burst((uint16_t)sp, 0, mb, BURST);

		lr_pktmbuf_free_bulk(mb, n);
		if (n != 0) {
			fprintf(stderr, "bad descriptor received\n");
			goto out;
		}
		lr_delay_us(100);
	}
	if (raw_recv(s, &m) != DISCONNECT)
		goto out;
	m.body[125] = '\0';
	if (strstr((char *)m.body + 4,
		   "rx queue 0: descriptor 0: region 0 offset 4000 length 500 "
		   "outside the regions") == NULL) {
		fprintf(stderr, "bad descriptor: reason '%s'\n",
			(char *)m.body + 4);
		goto out;
	}
	ret = 0;
out:
	if (reg != MAP_FAILED)
		munmap(reg, 4096);
	if (mfd >= 0)
		close(mfd);
	close(s);
	return ret;
}

static int
test_bad_peer(void)
{
	struct memif_pair p;
	const char *sock = p.sock;
	int sp, cp;

	LR_TEST_ASSERT(pair_init(&p, 40, "bad.sock", "", "") == 0, "EAL init");
	sp = port_open(p.s, 1);
	LR_TEST_ASSERT(sp >= 0, "server");
	lr_test_log_begin();
	int r0 = bad_exchange(sock, 0, "message of 64 bytes");
	int r1 = bad_exchange(sock, 1, "ADD_REGION: missing file descriptor");
	int r2 = bad_exchange(sock, 2, "no interface with id 77");
	int r3 = bad_exchange(sock, 3, "S2C ring 0: region 0 offset 4032");
	int r4 = bad_descriptor(sock, sp);
	const char *log = lr_test_log_end();

	LR_TEST_ASSERT(r0 == 0 && r1 == 0 && r2 == 0 && r3 == 0 && r4 == 0,
		       "bad peers: %d %d %d %d %d", r0, r1, r2, r3, r4);
	LR_TEST_ASSERT(strstr(log, "outside the regions") != NULL,
		       "no log line for the bad ring");
	LR_TEST_ASSERT(!lr_test_memif_link_up(sp), "link up after a bad peer");
	/* and a real client still gets in */
	cp = port_open(p.c, 1);
	int ret = cp >= 0 ? wait_link(sp, cp, 1) : -1;

	if (ret == 0)
		ret = xfer(cp, 0, sp, 0, 40, 100);
	lr_test_memif_shut(cp);
	lr_test_memif_shut(sp);
	LR_TEST_ASSERT(ret == 0, "client after bad peers");
	return 0;
}

/* Receive one message and up to one fd with it (waiting up to 20 s);
 * its type or -1. */
static int
raw_recv_fd(int s, struct raw_msg *m, int *fd)
{
	struct pollfd pfd = {.fd = s, .events = POLLIN};
	unsigned n;

	*fd = -1;
	if (poll(&pfd, 1, 20000) != 1)
		return -1;
	memset(m, 0, sizeof(*m));
	if (lr_unix_recv(s, m, sizeof(*m), fd, 1, &n) != (ssize_t)sizeof(*m))
		return -1;
	if (n == 0)
		*fd = -1;
	return m->type;
}

/* What a hand-written server learnt from a client's handshake. */
struct raw_peer {
	int s;	       /* the connection */
	int reg_fd[2]; /* regions 0 and 1 */
	uint64_t reg_size[2];
	uint32_t s2c_off; /* S2C ring 0 in region 0 */
	uint8_t *reg0;	  /* region 0, mapped */
};

/* Accept a client on listener lis and take it through the handshake
 * (HELLO, then ACK to everything up to CONNECT, answered CONNECTED);
 * 0 or -1. The client's control thread does its part meanwhile. */
static int
raw_serve(int lis, struct raw_peer *rp)
{
	struct pollfd pfd = {.fd = lis, .events = POLLIN};
	struct raw_msg m;
	int type, fd;

	memset(rp, 0, sizeof(*rp));
	rp->s = -1;
	rp->reg_fd[0] = rp->reg_fd[1] = -1;
	rp->reg0 = MAP_FAILED;
	if (poll(&pfd, 1, 20000) != 1 || (rp->s = accept(lis, NULL, 0)) < 0)
		return -1;
	memset(&m, 0, sizeof(m));
	m.type = HELLO;
	uint16_t v = 0x0200, maxreg = 1, maxq = 0;

	memcpy(m.body + 32, &v, 2);
	memcpy(m.body + 34, &v, 2);
	memcpy(m.body + 36, &maxreg, 2);
	memcpy(m.body + 38, &maxq, 2);
	memcpy(m.body + 40, &maxq, 2);
	m.body[42] = 10;
	raw_send(rp->s, &m, sizeof(m), -1);
	while ((type = raw_recv_fd(rp->s, &m, &fd)) != CONNECT) {
		uint16_t idx, flags;

		memcpy(&idx, m.body, 2);
		if (type == ADD_REGION && idx < 2) {
			rp->reg_fd[idx] = fd;
			memcpy(&rp->reg_size[idx], m.body + 2, 8);
		} else if (type == ADD_RING) {
			memcpy(&flags, m.body, 2);
			if (!(flags & 1))
				memcpy(&rp->s2c_off, m.body + 6, 4);
			close(fd);
		} else if (type != INIT) {
			return -1;
		}
		memset(&m, 0, sizeof(m));
		m.type = ACK;
		raw_send(rp->s, &m, sizeof(m), -1);
	}
	if (rp->reg_fd[0] < 0 || rp->reg_fd[1] < 0)
		return -1;
	rp->reg0 = mmap(NULL, rp->reg_size[0], PROT_READ | PROT_WRITE,
			MAP_SHARED, rp->reg_fd[0], 0);
	memset(&m, 0, sizeof(m));
	m.type = 7; /* CONNECTED */
	raw_send(rp->s, &m, sizeof(m), -1);
	return rp->reg0 == MAP_FAILED ? -1 : 0;
}

static void
raw_peer_close(struct raw_peer *rp)
{
	if (rp->reg0 != MAP_FAILED)
		munmap(rp->reg0, rp->reg_size[0]);
	for (int i = 0; i < 2; i++)
		if (rp->reg_fd[i] >= 0)
			close(rp->reg_fd[i]);
	if (rp->s >= 0)
		close(rp->s);
}

/* A hand-written server fills S2C slot 0 of the zero-copy client cp
 * wrongly (what 0: a length past bsize; 1: another offset than the one
 * offered) and publishes it: the client's rx must hand nothing up and
 * disconnect with a DISCONNECT whose reason holds `reason`. 0 or -1. */
static int
bad_zc_server(int lis, int cp, int what, const char *reason)
{
	struct raw_peer rp;
	struct raw_msg m;
	int ret = -1;

	if (raw_serve(lis, &rp) != 0)
		goto out;
	uint8_t *ring = rp.reg0 + rp.s2c_off;
	uint8_t *d0 = ring + 2 * LR_CACHE_LINE_SIZE;
	uint32_t len = what == 0 ? 5000 : 100, off;
	struct lr_mbuf *mb[BURST];
	struct pollfd pfd = {.fd = rp.s, .events = POLLIN};
	uint64_t end = lr_get_tsc_cycles() + 20 * lr_get_tsc_hz();

	/* the client offers region 1 buffers from CONNECTED on */
	memcpy(&off, d0 + 8, 4);
	off += what == 1 ? 64 : 0;
	memcpy(d0 + 4, &len, 4);
	memcpy(d0 + 8, &off, 4);
	__atomic_store_n((uint16_t *)(ring + LR_CACHE_LINE_SIZE), (uint16_t)1,
			 __ATOMIC_RELEASE);
	while (poll(&pfd, 1, 0) == 0 && lr_get_tsc_cycles() < end) {
		uint16_t n = lr_eth_rx_burst((uint16_t)cp, 0, mb, BURST);

		lr_pktmbuf_free_bulk(mb, n);
		if (n != 0) {
			fprintf(stderr, "bad zc descriptor %d received\n",
				what);
			goto out;
		}
		lr_delay_us(100);
	}
	if (raw_recv(rp.s, &m) != DISCONNECT)
		goto out;
	m.body[125] = '\0';
	if (strstr((char *)m.body + 4, reason) == NULL) {
		fprintf(stderr, "bad zc descriptor %d: reason '%s'\n", what,
			(char *)m.body + 4);
		goto out;
	}
	ret = 0;
out:
	raw_peer_close(&rp);
	return ret;
}

/* A zero-copy client facing a server that fills its buffers wrongly. */
static int
test_zc_bad_peer(void)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char c[256];
	int lis, cp, r0 = -1, r1 = -1;

	LR_TEST_ASSERT(init_eal() == 0, "EAL init");
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/zcbad.sock", dir);
	lis = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	LR_TEST_ASSERT(lis >= 0 &&
			   bind(lis, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
			   listen(lis, 4) == 0,
		       "listener: %s", strerror(errno));
	snprintf(c, sizeof(c),
		 "net_memif72,role=client,socket=%s,socket-abstract=no,"
		 "zero-copy=yes",
		 sa.sun_path);
	lr_test_log_begin();
	cp = port_open(c, 1);
	if (cp >= 0) {
		r0 = bad_zc_server(lis, cp, 0,
				   "rx queue 0: descriptor 0: length 5000 > "
				   "buffer size 2048");
		/* the client reconnects; the next peer moves the offset */
		r1 = bad_zc_server(lis, cp, 1, "not the buffer offered");
	}
	const char *log = lr_test_log_end();
	int back =
	    cp >= 0 ? wait_link(cp, -1, 0) == 0 && zc_pool_back(cp) == 0 : 0;

	lr_test_memif_shut(cp);
	close(lis);
	unlink(sa.sun_path);
	LR_TEST_ASSERT(cp >= 0, "client");
	LR_TEST_ASSERT(r0 == 0 && r1 == 0, "bad zc peers: %d %d", r0, r1);
	LR_TEST_ASSERT(strstr(log, "net_memif72: disconnected: rx queue 0: "
				   "descriptor 0: length 5000 > buffer size "
				   "2048") != NULL,
		       "no log line for the long descriptor");
	LR_TEST_ASSERT(back, "zero-copy pool not back after the bad peers");
	return 0;
}

static int
test_socket_mode(void)
{
	char s[256], s2[256], c[256], sock[128];
	struct stat st;
	int sp, sp2, cp, ret = -1;
	const char *log;

	LR_TEST_ASSERT(init_eal() == 0, "EAL init");
	snprintf(sock, sizeof(sock), "%s/mode.sock", dir);
	snprintf(s, sizeof(s),
		 "net_memif80,role=server,socket=%s,socket-abstract=no,"
		 "socket-mode=0660",
		 sock);
	snprintf(s2, sizeof(s2),
		 "net_memif81,role=server,id=1,socket=%s,socket-abstract=no",
		 sock);
	snprintf(c, sizeof(c),
		 "net_memif82,role=client,socket=%s,socket-abstract=no", sock);
	sp = port_open(s, 1);
	LR_TEST_ASSERT(sp >= 0, "server with socket-mode=0660");
	LR_TEST_ASSERT(stat(sock, &st) == 0, "stat %s: %s", sock,
		       strerror(errno));
	if ((st.st_mode & 07777) != 0660)
		fprintf(stderr, "socket mode %o, expected 660\n",
			st.st_mode & 07777);
	/* a second server port on it wants the default 0600 */
	lr_test_log_begin();
	sp2 = port_open(s2, 1);
	log = lr_test_log_end();
	lr_test_memif_shut(sp2);
	cp = port_open(c, 1);
	if (cp >= 0 && wait_link(sp, cp, 1) == 0)
		ret = xfer(cp, 0, sp, 0, 3, 100);
	lr_test_memif_shut(cp);
	lr_test_memif_shut(sp);
	LR_TEST_ASSERT((st.st_mode & 07777) == 0660, "socket file mode");
	LR_TEST_ASSERT(sp2 < 0, "a second mode for one socket accepted");
	LR_TEST_ASSERT(strstr(log, "net_memif81: socket-mode: 0600, but "
				   "socket") != NULL,
		       "no clear error for two modes on one socket");
	LR_TEST_ASSERT(ret == 0, "client through a 0660 socket");
	return 0;
}

static int
test_bad_devargs(void)
{
	static const struct {
		const char *args, *msg;
	} bad[] = {
	    {"net_memif50,role=master", "role: bad value 'master'"},
	    {"net_memif50,rsize=15", "rsize"},
	    {"net_memif50,bsize=10", "bsize"},
	    {"net_memif50,mac=02:00:00:00:zz:01", "mac: bad value"},
	    {"net_memif50,secret=0123456789012345678901234",
	     "secret: bad value"},
	    {"net_memif50,role=server,zero-copy=maybe",
	     "zero-copy: bad value 'maybe'"},
	    {"net_memif50,role=client,zero-copy=maybe",
	     "zero-copy: bad value 'maybe'"},
	    {"net_memif50,role=client,zero-copy=yes,bsize=65400",
	     "bsize: bad value '65400' with zero-copy=yes"},
	    {"net_memif50,socket-abstract=maybe", "socket-abstract"},
	    {"net_memif50,id=-1", "id"},
	    {"net_memif50,queues=2", "queues"},
	    {"net_memif50,socket-abstract=no,socket-mode=0999",
	     "socket-mode: bad value '0999' (expected octal permission bits"},
	    {"net_memif50,socket-abstract=no,socket-mode=1777",
	     "socket-mode: bad value '1777'"},
	    {"net_memif50,socket-abstract=no,socket-mode=rw",
	     "socket-mode: bad value 'rw'"},
	    {"net_memif50,socket-abstract=no,socket-mode=", "socket-mode"},
	    {"net_memif50,socket-mode=0660",
	     "socket-mode: '0660' needs a server's socket file"},
	    {"net_memif50,role=client,socket-abstract=no,socket-mode=0660",
	     "socket-mode: '0660' needs a server's socket file"},
	    {"net_memif50,socket=/tmp/"
	     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	     "socket: bad value"},
	};

	LR_TEST_ASSERT(init_eal() == 0, "EAL init");
	for (unsigned i = 0; i < LR_DIM(bad); i++) {
		lr_test_log_begin();
		int r = lr_eth_dev_create(bad[i].args);
		const char *log = lr_test_log_end();

		LR_TEST_ASSERT(r < 0, "'%s' accepted", bad[i].args);
		LR_TEST_ASSERT(strstr(log, bad[i].msg) != NULL,
			       "'%s': no '%s' in the log", bad[i].args,
			       bad[i].msg);
	}
	/* a socket path another server holds */
	char a[256], b[256];
	int p1, p2;

	snprintf(a, sizeof(a), "net_memif51,socket=%s/busy", dir);
	snprintf(b, sizeof(b), "net_memif52,socket=%s/busy", dir);
	p1 = port_open(a, 1);
	LR_TEST_ASSERT(p1 >= 0, "first server");
	lr_test_log_begin();
	p2 = port_open(b, 1); /* same id 0 on the same socket */
	const char *log = lr_test_log_end();

	lr_test_memif_shut(p2);
	lr_test_memif_shut(p1);
	LR_TEST_ASSERT(p2 < 0, "two servers with id 0 on one socket");
	LR_TEST_ASSERT(strstr(log, "id 0: already used by net_memif51") != NULL,
		       "no clear error for a busy id");

	/* a socket file another process listens on */
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int other = socket(AF_UNIX, SOCK_SEQPACKET, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/taken", dir);
	LR_TEST_ASSERT(other >= 0 &&
			   bind(other, (struct sockaddr *)&sa, sizeof(sa)) ==
			       0 &&
			   listen(other, 1) == 0,
		       "other listener: %s", strerror(errno));
	snprintf(a, sizeof(a), "net_memif53,socket=%s,socket-abstract=no",
		 sa.sun_path);
	lr_test_log_begin();
	p1 = port_open(a, 1);
	log = lr_test_log_end();
	close(other);
	lr_test_memif_shut(p1);
	LR_TEST_ASSERT(p1 < 0, "a socket path in use was taken over");
	LR_TEST_ASSERT(strstr(log, "cannot listen: Address already in use "
				   "(another server uses it)") != NULL,
		       "no clear error for a socket in use");
	return 0;
}

static const struct lr_test_case cases[] = {
    {"secret", test_secret},
    {"bad_peer", test_bad_peer},
    {"zc_bad_peer", test_zc_bad_peer},
    {"socket_mode", test_socket_mode},
    {"socket_removed", test_socket_removed},
    {"bad_devargs", test_bad_devargs},
};

LR_TEST_PMD_MEMIF_MAIN("pmd_memif_ctl", cases)
