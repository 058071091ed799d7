/* SPDX-License-Identifier: BSD-3-Clause */
/* net_memif between processes, with the real programs (driver suite; the
 * sockets are files in a private temporary directory, every process has
 * its own --file-prefix with this test's pid):
 *  - link_wait: a client port with no server: lr-pktgen names the port
 *    still down after --link-wait and exits 1, having sent nothing; a stop
 *    signal during the wait ends it the usual clean way, nothing sent;
 *  - pipeline: lr-pktgen -> memif -> lr-l2fwd -> memif -> lr-pktgen, two
 *    queues per port: one lr-pktgen with two client ports (port 0 sends,
 *    port 1 receives), one lr-l2fwd with two server ports, --queues 2, on
 *    two lcores when there are two CPUs. A fixed --count of frames: every
 *    frame arrives once (lost 0, dup 0), generator tx == lr-l2fwd rx ==
 *    lr-l2fwd tx == generator rx, both queues carry their half, and both
 *    programs end with every mbuf back in its pool. The rings hold every
 *    frame of a queue (rsize=14, --count 20000 over 2 queues) and
 *    lr-pktgen waits for its links (--link-wait) and for its frames
 *    (--drain-all), so nothing depends on speed;
 *  - pipeline_zc: the same with lr-l2fwd's ports zero-copy clients of
 *    lr-pktgen's servers: lr-l2fwd sends every frame it received with no
 *    copy (port 1's tx_zc_sent, none in tx_zc_copies);
 *  - pipeline_mixed: lr-l2fwd's port 0 a server, port 1 a zero-copy
 *    client (lr-pktgen's the other way round): port 0 receives into port
 *    1's pool, which sends every frame with no second copy (tx_zc_sent,
 *    no tx_zc_copies);
 *  - kill_client, kill_server: a port of this process echoes what an
 *    lr-pktgen process sends at full speed; SIGKILL of that process
 *    mid-burst (its frames still arriving) takes the port's link down
 *    with a log line, this process goes on polling (never touching
 *    unmapped memory: a killed client owned the shared memory), and a new
 *    lr-pktgen on the same socket brings the link up again and gets back
 *    every one of its frames once;
 *  - prebuilt_zc: lr-pktgen --no-stamp on a zero-copy client writes its
 *    frame once into a pool its port announces, and sends every frame
 *    with no copy; all arrive the same while lr-pktgen's port receives
 *    other frames into its own pool. */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lr_eal.h"
#include "lr_ethdev.h"
#include "lr_ethdev_driver.h"
#include "lr_mbuf.h"
#include "lr_test.h"
#include "lr_test_memif.h"

#define OUT_MAX (1 << 17)
#define BOUND_S 300 /* only for a hang: never a measure of speed */
#define BURST	32

static const char *dir;
static char l2fwd_bin[4096], pktgen_bin[4096];
static char fwd_out[OUT_MAX], gen_out[OUT_MAX];
static struct lr_mempool *pool;

/* The programs, beside this test in the build tree; 0 if both exist. */
static int
find_apps(void)
{
	return lr_test_build_path(l2fwd_bin, sizeof(l2fwd_bin),
				  "apps/l2fwd/lr-l2fwd") == 0 &&
		       lr_test_build_path(pktgen_bin, sizeof(pktgen_bin),
					  "apps/pktgen/lr-pktgen") == 0
		   ? 0
		   : -1;
}

/* Start prog with the EAL prefix "<name>_<pid>" and the blank-separated
 * arguments of fmt; its output into out. 0, or -1 after a message. */
static int __attribute__((format(printf, 5, 6)))
spawn(struct lr_test_child *c, const char *prog, char *out, const char *name,
      const char *fmt, ...)
{
	char args[2048], pfx[128], *argv[64], *save = NULL;
	int argc = 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	argv[argc++] = (char *)prog;
	argv[argc++] = lr_test_prefix_arg(pfx, sizeof(pfx), name);
	for (char *t = strtok_r(args, " ", &save); t && argc < 63;
	     t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	argv[argc] = NULL;
	if (lr_test_spawn(c, prog, argv, out, OUT_MAX) != 0) {
		fprintf(stderr, "cannot start %s\n", prog);
		return -1;
	}
	return 0;
}

/* Wait for line in c's output; on failure kill it and print its output. */
static int
wait_line(struct lr_test_child *c, const char *line)
{
	if (lr_test_child_wait_for(c, line, BOUND_S) == 0)
		return 0;
	kill(c->pid, SIGKILL);
	lr_test_child_finish(c, BOUND_S);
	fprintf(stderr, "%s never printed '%s':\n%s\n", c->path, line, c->out);
	return -1;
}

/* Value of key= on the line of out that starts with head; -1 if none. */
static long long
field(const char *out, const char *head, const char *key)
{
	const char *line = strstr(out, head), *p;
	char pat[64];

	if (line == NULL)
		return -1;
	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(line, pat);
	return p ? strtoll(p + strlen(pat), NULL, 10) : -1;
}

/* xstat name of port in lr-l2fwd's --xstats output (the lines from
 * "port N: " to the next port's); -1 if it is not there. */
static long long
xstat(const char *out, unsigned port, const char *name)
{
	char head[32], pat[64];
	const char *p, *end, *x;

	snprintf(head, sizeof(head), "\nport %u: ", port);
	snprintf(pat, sizeof(pat), " %s ", name);
	p = strstr(out, head);
	if (p == NULL)
		return -1;
	end = strstr(p + 1, "\nport ");
	x = strstr(p, pat);
	if (x == NULL || (end != NULL && x > end))
		return -1;
	return strtoll(x + strlen(pat), NULL, 10);
}

/* How the pipeline's ports are set: lr-l2fwd's two servers and
 * lr-pktgen's two clients; lr-l2fwd's ports zero-copy clients of
 * lr-pktgen's servers; or mixed: lr-l2fwd's port 0 a server (it copies
 * what it receives) and port 1 a zero-copy client, lr-pktgen's the
 * other way round. */
enum pipe_mode { PIPE_COPY, PIPE_ZC, PIPE_MIXED };

/* The two programs of the pipeline in mode m, the one with the server
 * of link a first. */
static int
pipeline_start(struct lr_test_child *fwd, struct lr_test_child *gen,
	       unsigned count, enum pipe_mode m)
{
	static const char *const fr[][2] = {
	    [PIPE_COPY] = {"server", "server"},
	    [PIPE_ZC] = {"client,zero-copy=yes", "client,zero-copy=yes"},
	    [PIPE_MIXED] = {"server", "client,zero-copy=yes"}};
	static const char *const gr[][2] = {
	    [PIPE_COPY] = {"client", "client"},
	    [PIPE_ZC] = {"server", "server"},
	    [PIPE_MIXED] = {"client", "server"}};
	static const char *const tag[] = {"", "z", "m"};
	const char *fl = sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? "0-1" : "0";
	const char *o = "socket-abstract=no,rsize=14,bsize=128";
	int gen_first = m == PIPE_ZC;

	struct lr_test_child *started = NULL;

	/* The server of link a first (a client retries until its server is
	 * there); lr-pktgen waits for its links, sends, and receives until
	 * every frame is back. */
	for (int k = 0; k < 2; k++) {
		if (k == gen_first) {
			if (spawn(fwd, l2fwd_bin, fwd_out, "tma_fwd",
				  "-l %s --no-huge -m 256 "
				  "--vdev "
				  "net_memif0,role=%s,socket=%s/%sa.sock,%s "
				  "--vdev "
				  "net_memif1,role=%s,socket=%s/%sb.sock,%s "
				  "-- -p 0x3 --queues 2 -T 0 --xstats",
				  fl, fr[m][0], dir, tag[m], o, fr[m][1], dir,
				  tag[m], o) != 0)
				goto fail;
			if (wait_line(fwd, "Forwarding on") != 0)
				goto fail; /* fwd killed and reaped */
			started = fwd;
		} else {
			if (spawn(gen, pktgen_bin, gen_out, "tma_gen",
				  "-l 0 --no-huge -m 256 "
				  "--vdev "
				  "net_memif0,role=%s,socket=%s/%sa.sock,%s "
				  "--vdev "
				  "net_memif1,role=%s,socket=%s/%sb.sock,%s "
				  "-- --tx-ports 0 --rx-ports 1 --queues 2 "
				  "--count %u --link-wait %d --drain-ms 600000 "
				  "--drain-all --quiet",
				  gr[m][0], dir, tag[m], o, gr[m][1], dir,
				  tag[m], o, count, BOUND_S) != 0)
				goto fail;
			started = gen;
		}
	}
	return 0;
fail:
	if (started != NULL) {
		kill(started->pid, SIGKILL);
		lr_test_child_finish(started, BOUND_S);
	}
	return -1;
}

/* The pipeline in mode m (PIPE_ZC: lr-l2fwd forwards with no copy at
 * all; PIPE_MIXED: with one, on receive into port 1's pool). */
static int
pipeline_run(enum pipe_mode m)
{
	enum { COUNT = 20000 };
	struct lr_test_child fwd, gen;
	int rg, rf;

	LR_TEST_ASSERT(pipeline_start(&fwd, &gen, COUNT, m) == 0, "start");
	rg = lr_test_child_finish(&gen, BOUND_S);
	kill(fwd.pid, SIGINT);
	rf = lr_test_child_finish(&fwd, BOUND_S);
	LR_TEST_ASSERT(rg == 0, "lr-pktgen exit %d:\n%s", rg, gen_out);
	LR_TEST_ASSERT(rf == 0, "lr-l2fwd exit %d:\n%s", rf, fwd_out);
	const char *g = "pktgen total:", *f = "l2fwd total:";

	LR_TEST_ASSERT(field(gen_out, g, "tx") == COUNT &&
			   field(gen_out, g, "rx") == COUNT &&
			   field(gen_out, g, "rx_own") == COUNT &&
			   field(gen_out, g, "lost") == 0 &&
			   field(gen_out, g, "dup") == 0 &&
			   field(gen_out, g, "reordered") == 0,
		       "lr-pktgen:\n%s", gen_out);
	LR_TEST_ASSERT(field(fwd_out, f, "rx") == COUNT &&
			   field(fwd_out, f, "tx") == COUNT &&
			   field(fwd_out, f, "dropped") == 0,
		       "lr-l2fwd:\n%s", fwd_out);
	/* Each queue of lr-l2fwd carried its stream: half of the frames. */
	for (unsigned q = 0; q < 2; q++) {
		char rx[32], tx[32];

		snprintf(rx, sizeof(rx), "rx_q%u_packets", q);
		snprintf(tx, sizeof(tx), "tx_q%u_packets", q);
		LR_TEST_ASSERT(xstat(fwd_out, 0, rx) == COUNT / 2 &&
				   xstat(fwd_out, 1, tx) == COUNT / 2,
			       "queue %u of lr-l2fwd:\n%s", q, fwd_out);
	}
	LR_TEST_ASSERT(strstr(gen_out, "mbufs in use after stop: 0\n") &&
			   strstr(fwd_out, "mbufs in use after stop: 0\n"),
		       "mbufs not back:\n%s\n%s", gen_out, fwd_out);
	/* zero-copy port 1 sent what port 0 received as it was: port 0's
	 * mbufs (PIPE_ZC), or mbufs of port 1's own pool that port 0 copied
	 * the frames into (PIPE_MIXED) */
	LR_TEST_ASSERT(m == PIPE_COPY ||
			   (xstat(fwd_out, 1, "tx_zc_sent") == COUNT &&
			    xstat(fwd_out, 1, "tx_zc_copies") <= 0),
		       "zero-copy port 1 copied:\n%s", fwd_out);
	LR_TEST_ASSERT(m != PIPE_MIXED ||
			   strstr(fwd_out, "port 0 (net_memif0): rx into the "
					   "pool of port 1 (net_memif1)"),
		       "lr-l2fwd did not say where port 0 receives:\n%s",
		       fwd_out);
	return 0;
}

static int
test_pipeline(void)
{
	return pipeline_run(PIPE_COPY);
}

static int
test_pipeline_zc(void)
{
	return pipeline_run(PIPE_ZC);
}

static int
test_pipeline_mixed(void)
{
	return pipeline_run(PIPE_MIXED);
}

/* A port whose link stays down (a client with no server): lr-pktgen
 * says so after --link-wait and sends nothing. */
static int
test_link_wait(void)
{
	struct lr_test_child c;
	int r;

	LR_TEST_ASSERT(spawn(&c, pktgen_bin, gen_out, "tma_lw",
			     "-l 0 --no-huge -m 128 --vdev "
			     "net_memif0,role=client,socket=%s/nobody.sock,"
			     "socket-abstract=no -- --count 10 --link-wait 0.5",
			     dir) == 0,
		       "spawn");
	r = lr_test_child_finish(&c, BOUND_S);
	LR_TEST_ASSERT(r == 1 && strstr(gen_out, "port 0 (net_memif0): link "
						 "still down after "
						 "--link-wait 0.5 s"),
		       "exit %d:\n%s", r, gen_out);
	/* A stop signal while it waits: the usual clean end, nothing sent. */
	LR_TEST_ASSERT(spawn(&c, pktgen_bin, gen_out, "tma_lw",
			     "-l 0 --no-huge -m 128 --vdev "
			     "net_memif0,role=client,socket=%s/nobody.sock,"
			     "socket-abstract=no -- --count 10 --link-wait %d",
			     dir, BOUND_S) == 0,
		       "spawn");
	if (wait_line(&c, "waiting up to") != 0)
		return -1;
	kill(c.pid, SIGINT);
	r = lr_test_child_finish(&c, BOUND_S);
	LR_TEST_ASSERT(r == 0 && field(gen_out, "pktgen total:", "tx") == 0,
		       "SIGINT in the wait: exit %d:\n%s", r, gen_out);
	return 0;
}

/* --- lr-pktgen's prebuilt frames over a zero-copy client --- */

static int eal_up(void);

/* Receive on port until count frames came or child c exited: each the
 * same len bytes as the first (*first filled then); every burst answered
 * with as many frames of 0xab bytes, which c receives into its port's
 * own pool. The frames received, or -1 after a message. */
static long
rx_same(uint16_t port, struct lr_test_child *c, unsigned count, uint32_t len,
	uint8_t *first)
{
	static uint8_t got[2048];
	double end = lr_test_now() + BOUND_S;
	struct lr_mbuf *m[BURST];
	unsigned n = 0;

	while (n < count && lr_test_now() < end) {
		uint16_t r = lr_eth_rx_burst(port, 0, m, BURST), k;
		siginfo_t si = {0};

		for (uint16_t j = 0; j < r; j++, n++) {
			if (m[j]->pkt_len != len) {
				fprintf(stderr, "frame %u: %u bytes, not %u\n",
					n, m[j]->pkt_len, len);
				lr_pktmbuf_free_bulk(m, r);
				return -1;
			}
			lr_pktmbuf_copy_out(m[j], n == 0 ? first : got);
			if (n != 0 && memcmp(got, first, len) != 0) {
				fprintf(stderr, "frame %u differs from the "
						"first\n", n);
				lr_pktmbuf_free_bulk(m, r);
				return -1;
			}
		}
		/* the same mbufs back, overwritten: another frame */
		for (uint16_t j = 0; j < r; j++)
			memset(lr_pktmbuf_mtod(m[j], uint8_t *), 0xab,
			       m[j]->data_len);
		k = lr_eth_tx_burst(port, 0, m, r);
		lr_pktmbuf_free_bulk(m + k, r - k);
		if (r == 0 &&
		    (waitid(P_PID, (id_t)c->pid, &si,
			    WEXITED | WNOHANG | WNOWAIT) != 0 ||
		     si.si_pid != 0))
			break;
		lr_test_child_read(c, 0);
	}
	return n;
}

/* lr-pktgen --no-stamp on a zero-copy client: its frames are written
 * once, into a pool its port announces to the server (it says so), and
 * go out with no copy (tx_zc_sent, no tx_zc_copies); every frame we get
 * is the same, although we answer each with frames that lr-pktgen's
 * port receives into its own pool meanwhile (a frame overwritten there
 * would show). */
static int
test_prebuilt_zc(void)
{
	enum { COUNT = 20000, LEN = 1514 };
	static uint8_t first[2048];
	char devargs[256];
	struct lr_test_child c;
	long got;
	int port, r;

	LR_TEST_ASSERT(eal_up() == 0, "EAL");
	snprintf(devargs, sizeof(devargs),
		 "net_memif82,role=server,socket=%s/pre.sock,"
		 "socket-abstract=no",
		 dir);
	port = lr_test_memif_open(devargs, 1, pool);
	LR_TEST_ASSERT(port >= 0, "cannot open %s", devargs);
	if (spawn(&c, pktgen_bin, gen_out, "tma_pre",
		  "-l 0 --no-huge -m 256 --vdev "
		  "net_memif0,role=client,socket=%s/pre.sock,"
		  "socket-abstract=no,zero-copy=yes -- --no-stamp --size %u "
		  "--count %u --link-wait %d --drain-ms 600000 --xstats",
		  dir, LEN + 4, COUNT, BOUND_S) != 0) {
		lr_test_memif_shut(port);
		return -1;
	}
	got = rx_same((uint16_t)port, &c, COUNT, LEN, first);
	/* A stop signal before its drain started would start the drain
	 * (the first one ends the sending); one during it ends it. */
	if (got == COUNT)
		lr_test_child_wait_for(&c, "sending done", BOUND_S);
	kill(c.pid, SIGINT);
	r = lr_test_child_finish(&c, BOUND_S);
	lr_test_memif_shut(port);
	LR_TEST_ASSERT(got == COUNT, "%ld frames of %u:\n%s", got, COUNT,
		       gen_out);
	LR_TEST_ASSERT(r == 0, "lr-pktgen exit %d:\n%s", r, gen_out);
	LR_TEST_ASSERT(first[0] != 0xab && first[LEN - 1] != 0xab,
		       "the first frame is one of ours");
	LR_TEST_ASSERT(strstr(gen_out, "tx frames prebuilt in pool "
				       "'pktgen_tx0'") &&
			   strstr(gen_out, ", zero-copy)"),
		       "no prebuilt zero-copy pool:\n%s", gen_out);
	LR_TEST_ASSERT(field(gen_out, "pktgen total:", "tx") == COUNT &&
			   xstat(gen_out, 0, "tx_zc_sent") == COUNT &&
			   xstat(gen_out, 0, "tx_zc_copies") <= 0,
		       "lr-pktgen:\n%s", gen_out);
	LR_TEST_ASSERT(strstr(gen_out, "mbufs in use after stop: 0\n"),
		       "lr-pktgen's mbufs:\n%s", gen_out);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return 0;
}

/* --- SIGKILL of a peer process --- */

static int
eal_up(void)
{
	pool = lr_test_memif_eal("test_memif_apps");
	return pool != NULL ? 0 : -1;
}

/* Frames received and not yet sent back. */
struct echo {
	struct lr_mbuf *held[BURST];
	unsigned n;
	uint64_t rx;
};

/* One round: send back what is held, receive a burst if there is room. */
static void
echo_once(uint16_t port, struct echo *e)
{
	uint16_t k;

	if (e->n == 0) {
		e->n = lr_eth_rx_burst(port, 0, e->held, BURST);
		e->rx += e->n;
	}
	k = lr_eth_tx_burst(port, 0, e->held, (uint16_t)e->n);
	memmove(e->held, e->held + k, (e->n - k) * sizeof(e->held[0]));
	e->n -= k;
}

/* Echo on port until cond(port, e) holds (0) or BOUND_S passed (-1). */
static int
echo_until(uint16_t port, struct echo *e,
	   int (*cond)(uint16_t, const struct echo *))
{
	double end = lr_test_now() + BOUND_S;

	while (!cond(port, e)) {
		if (lr_test_now() > end)
			return -1;
		echo_once(port, e);
	}
	return 0;
}

static int
got_many(uint16_t port, const struct echo *e)
{
	(void)port;
	return e->rx >= 20000;
}

static int
is_down(uint16_t port, const struct echo *e)
{
	(void)e;
	return !lr_test_memif_link_up(port);
}

/* The peer: lr-pktgen with one memif port in role on sock, sending at
 * full speed (count 0: until killed) and receiving what comes back;
 * without telemetry, whose link in /var/run/dpdk a SIGKILL would leave. */
static int
peer_start(struct lr_test_child *c, const char *role, const char *sock,
	   unsigned count)
{
	char cnt[32] = "";

	if (count)
		snprintf(cnt, sizeof(cnt), "--count %u", count);
	return spawn(c, pktgen_bin, gen_out, "tma_peer",
		     "-l 0 --no-huge -m 128 --no-telemetry --vdev "
		     "net_memif0,role=%s,socket=%s,socket-abstract=no -- "
		     "%s --link-wait %d --drain-ms 600000 --drain-all --quiet",
		     role, sock, cnt, BOUND_S);
}

/* SIGKILL the peer while its frames arrive: our link goes down with a
 * log line naming it, and we keep polling. 0 or -1 after a message. */
static int
kill_mid_burst(struct lr_test_child *peer, uint16_t port, const char *name)
{
	struct echo e = {0};
	const char *log;
	int r;

	LR_TEST_ASSERT(echo_until(port, &e, got_many) == 0,
		       "%s: only %llu frames from the peer:\n%s", name,
		       (unsigned long long)e.rx, gen_out);
	lr_test_log_begin();
	kill(peer->pid, SIGKILL);
	r = echo_until(port, &e, is_down);
	log = lr_test_log_end();
	lr_pktmbuf_free_bulk(e.held, e.n);
	LR_TEST_ASSERT(lr_test_child_finish(peer, BOUND_S) == -1,
		       "the peer was not killed");
	LR_TEST_ASSERT(r == 0, "%s: link still up after SIGKILL", name);
	LR_TEST_ASSERT(strstr(log, name) && strstr(log, "(link down)"),
		       "no link-down line for %s in:\n%s", name, log);
	/* Still down, still polled: nothing received from a dead peer. */
	for (int i = 0; i < 1000; i++)
		echo_once(port, &e);
	lr_pktmbuf_free_bulk(e.held, e.n);
	LR_TEST_ASSERT(!lr_test_memif_link_up(port), "%s: link up with no peer",
		       name);
	return 0;
}

/* A new peer on the same socket: the link comes back, every frame of
 * its --count returns to it once. */
static int
reconnect(uint16_t port, const char *peer_role, const char *sock)
{
	enum { COUNT = 3000 };
	struct lr_test_child c;
	struct echo e = {0};
	double end = lr_test_now() + BOUND_S;
	int r;

	LR_TEST_ASSERT(peer_start(&c, peer_role, sock, COUNT) == 0, "spawn");
	/* Echo until the peer has all its frames back and exits. */
	for (;;) {
		siginfo_t si = {0};

		if (waitid(P_PID, (id_t)c.pid, &si,
			   WEXITED | WNOHANG | WNOWAIT) != 0 ||
		    si.si_pid != 0 || lr_test_now() > end)
			break;
		echo_once(port, &e);
		lr_test_child_read(&c, 0);
	}
	r = lr_test_child_finish(&c, BOUND_S);
	lr_pktmbuf_free_bulk(e.held, e.n);
	LR_TEST_ASSERT(r == 0, "new peer: exit %d:\n%s", r, gen_out);
	LR_TEST_ASSERT(field(gen_out, "pktgen total:", "tx") == COUNT &&
			   field(gen_out, "pktgen total:", "rx_own") == COUNT &&
			   field(gen_out, "pktgen total:", "lost") == 0 &&
			   field(gen_out, "pktgen total:", "dup") == 0 &&
			   e.rx == COUNT,
		       "new peer (we received %llu):\n%s",
		       (unsigned long long)e.rx, gen_out);
	LR_TEST_ASSERT(strstr(gen_out, "mbufs in use after stop: 0\n"),
		       "peer's mbufs:\n%s", gen_out);
	return 0;
}

/* Our port in role ours (the peer in the other), the peer killed, then a
 * new peer. */
static int
kill_peer(const char *ours, const char *peer_role, unsigned id)
{
	char devargs[256], sock[128], name[32];
	struct lr_test_child c;
	int port, ret = -1;

	LR_TEST_ASSERT(eal_up() == 0, "EAL");
	snprintf(sock, sizeof(sock), "%s/kill-%s.sock", dir, peer_role);
	snprintf(name, sizeof(name), "net_memif%u", id);
	snprintf(devargs, sizeof(devargs),
		 "%s,role=%s,socket=%s,socket-abstract=no", name, ours, sock);
	port = lr_test_memif_open(devargs, 1, pool);
	LR_TEST_ASSERT(port >= 0, "cannot open %s", devargs);
	if (peer_start(&c, peer_role, sock, 0) == 0) {
		ret = kill_mid_burst(&c, (uint16_t)port, name);
		if (ret != 0 && c.fd >= 0) {
			kill(c.pid, SIGKILL);
			lr_test_child_finish(&c, BOUND_S);
		}
	}
	if (ret == 0)
		ret = reconnect((uint16_t)port, peer_role, sock);
	lr_eth_dev_stop((uint16_t)port);
	lr_eth_dev_close((uint16_t)port);
	LR_TEST_ASSERT(ret == 0, "%s as %s", name, ours);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return 0;
}

/* The killed peer is the client: it owned the shared memory. */
static int
test_kill_client(void)
{
	return kill_peer("server", "client", 80);
}

static int
test_kill_server(void)
{
	return kill_peer("client", "server", 81);
}

static const struct lr_test_case cases[] = {
    {"link_wait", test_link_wait},     {"pipeline", test_pipeline},
    {"pipeline_zc", test_pipeline_zc}, {"pipeline_mixed", test_pipeline_mixed},
    {"kill_client", test_kill_client}, {"kill_server", test_kill_server},
    {"prebuilt_zc", test_prebuilt_zc},
};

int
main(int argc, char **argv)
{
	int ret = lr_test_memif_setup("test_memif_apps", &dir);

	if (ret != 0)
		return ret;
	if (find_apps() != 0) {
		printf(
		    "skip: lr-l2fwd or lr-pktgen not built (-Dapps=false)\n");
		return LR_TEST_SKIP;
	}
	return lr_test_run("memif_apps", cases, (int)LR_DIM(cases), argc, argv);
}
