/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr-l2fwd-ring-bench: the lr-l2fwd forwarding loop (l2fwd.c, unchanged)
 * on two net_ring ports, fed by a generator on another lcore.
 *
 *   lr-l2fwd-ring-bench -l 0-1 [EAL options] -- [--duration S]
 *                       [--no-mac-updating] [--inflight N] [--one-lcore]
 *
 * Ports A and B are made with lr_eth_from_rings() over four
 * single-producer/single-consumer rings: gen->A, A->gen, gen->B, B->gen.
 * The first worker lcore runs l2fwd_main_loop() on both ports (A to B, B
 * to A, mac updating on). The main lcore is the generator: it builds N
 * 64-byte frames per port once, then plays the wire and the peer: whatever
 * a port transmits it hands back to the same port's receive ring, so the
 * forwarder always has packets waiting and every mbuf is reused. The rings
 * hold more than all the packets together, so nothing is ever dropped.
 * What is measured is the forwarder: packets it forwarded per second of wall
 * clock and per second of its own CPU time.
 *
 * --one-lcore (the default with a single lcore): the generator's step runs
 * between the forwarder's polls on one lcore. No cache line crosses cores
 * and a busy host cannot starve one side while the other spins; the CPU
 * figure then includes the generator's own (small) work.
 *
 * Last lines: `ring-fwd total: forwarded=... seconds=... Mpps=...
 * cpu_seconds=... Mpps_per_cpu=...` and `mbufs in use after stop: N`.
 * Exit status (lr_app.h): 0 done; 1 a run-time failure (the pool, the
 * rings or ports, an mbuf not back); 2 a usage error.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "l2fwd.h"
#include "lr_app.h"
#include "lr_eal.h"
#include "lr_eth_ring.h"
#include "lr_ethdev.h"
#include "lr_mbuf.h"
#include "lr_ring.h"

#define RING_SLOTS 4096
#define PROG	   "lr-l2fwd-ring-bench"

static struct l2fwd fwd;

/* The command line (after the EAL's). */
static struct {
	double duration;
	unsigned inflight;
	int mac_updating, one_lcore;
} opt = {5, 512, 1, 0};

/* The rings each port is made of, the ports, their pool. */
static struct lr_ring *to_port[2], *from_port[2];
static int ports[2] = {-1, -1};
static struct lr_mempool *pool;

static int
build_frames(struct lr_mempool *pool, struct lr_ring *r, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		struct lr_mbuf *m = lr_pktmbuf_alloc(pool);
		uint8_t *d;

		if (m == NULL)
			return -ENOMEM;
		d = (uint8_t *)lr_pktmbuf_append(m, 64);
		if (d == NULL) {
			lr_pktmbuf_free(m);
			return -ENOSPC;
		}
		memset(d, 0xff, 6);			      /* broadcast */
		memcpy(d + 6, "\x02\x67\x65\x6e\x00\x01", 6); /* 02:gen... */
		d[12] = 0x08;				      /* IPv4 */
		d[13] = 0x00;
		memset(d + 14, 0, 64 - 14);
		if (lr_ring_enqueue(r, m) != 0) {
			lr_pktmbuf_free(m);
			return -ENOBUFS;
		}
	}
	return 0;
}

/* Hand what each port sent back to that port's receive ring; the ring
 * always has room (it holds every packet). */
static inline void
generator_step(struct lr_ring *const from_port[2],
	       struct lr_ring *const to_port[2])
{
	for (int i = 0; i < 2; i++) {
		void *objs[L2FWD_BURST];
		unsigned n = lr_ring_sc_dequeue_burst(from_port[i], objs,
						      L2FWD_BURST, NULL);

		if (n)
			lr_ring_sp_enqueue_burst(to_port[i], objs, n, NULL);
	}
}

static double
thread_cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
drain_ring(struct lr_ring *r)
{
	void *objs[64];
	unsigned n;

	while ((n = lr_ring_dequeue_burst(r, objs, 64, NULL)) > 0)
		lr_pktmbuf_free_bulk((struct lr_mbuf **)objs, n);
}

static void
usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s -l 0-1 [EAL options] -- [--duration S] "
		"[--no-mac-updating]\n"
		"       [--inflight N] [--one-lcore]\n"
		"  --duration S       forward for S seconds (default 5)\n"
		"  --no-mac-updating  forward frames unchanged (default: MACs "
		"rewritten)\n"
		"  --inflight N       frames in flight per port, 32..%d "
		"(default 512)\n"
		"  --one-lcore        generator and forwarder on one lcore "
		"(the default\n"
		"                     with a single lcore)\n"
		"  -h, --help         this text\n",
		prog, RING_SLOTS / 2 - 1);
}

/* One option c (lr_app_getopt()) with its value arg: 0, or -1 after a
 * message. */
static int
apply_option(int c, const char *arg, void *ctx)
{
	unsigned long v;
	char *end;

	switch (c) {
	case 'D':
		opt.duration = strtod(arg, &end);
		if (*end || !(opt.duration > 0)) {
			fprintf(stderr,
				PROG
				": --duration '%s': expected seconds > 0\n",
				arg);
			return -1;
		}
		return 0;
	case 'N':
		opt.mac_updating = 0;
		return 0;
	case 'O':
		opt.one_lcore = 1;
		return 0;
	case 'I':
		if (lr_app_parse_num(PROG, "--inflight", arg, 32,
				     RING_SLOTS / 2 - 1, &v) < 0)
			return -1;
		opt.inflight = (unsigned)v;
		return 0;
	}
	return -1;
}

/* The options after the EAL's (lr_app_start()): 0, 1 after --help, -1
 * after a message. */
static int
parse_args(int argc, char **argv, void *arg)
{
	static const struct option longopts[] = {
	    {"duration", required_argument, NULL, 'D'},
	    {"no-mac-updating", no_argument, NULL, 'N'},
	    {"inflight", required_argument, NULL, 'I'},
	    {"one-lcore", no_argument, NULL, 'O'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};

	return lr_app_getopt(argc, argv, ":h", longopts, usage, apply_option,
			     arg);
}

/* The pool, port i's two rings, the port over them, started, and its
 * frames: 0, or -1 after a message. */
static int
setup_port(int i)
{
	char name[32];
	uint16_t p;

	snprintf(name, sizeof(name), "rb_to_port%d", i);
	to_port[i] = lr_ring_create(name, RING_SLOTS, lr_socket_id(),
				    LR_RING_F_SP_ENQ | LR_RING_F_SC_DEQ);
	snprintf(name, sizeof(name), "rb_from_port%d", i);
	from_port[i] = lr_ring_create(name, RING_SLOTS, lr_socket_id(),
				      LR_RING_F_SP_ENQ | LR_RING_F_SC_DEQ);
	if (!to_port[i] || !from_port[i]) {
		fprintf(stderr, "ring: %s\n", lr_strerror(lr_errno));
		return -1;
	}
	snprintf(name, sizeof(name), "ring_port%d", i);
	ports[i] = lr_eth_from_rings(name, &to_port[i], 1, &from_port[i], 1,
				     lr_socket_id());
	if (ports[i] < 0)
		return -1;
	p = (uint16_t)ports[i];
	if (lr_eth_dev_configure(p, 1, 1, NULL) ||
	    lr_eth_rx_queue_setup(p, 0, 1024, -1, NULL, pool) ||
	    lr_eth_tx_queue_setup(p, 0, 1024, -1, NULL) || lr_eth_dev_start(p))
		return -1;
	if (build_frames(pool, to_port[i], opt.inflight) < 0) {
		fprintf(stderr, "cannot build %u frames\n", opt.inflight);
		return -1;
	}
	return 0;
}

/* The pool, both ports, the forwarder on lcore worker: 0, or -1 after a
 * message. */
static int
setup(unsigned worker)
{
	pool = lr_pktmbuf_pool_create("ringbench_pool", 8192, 256, 0,
				      LR_MBUF_DEFAULT_BUF_SIZE, lr_socket_id());
	if (pool == NULL) {
		fprintf(stderr, "mbuf pool: %s\n", lr_strerror(lr_errno));
		return -1;
	}
	for (int i = 0; i < 2; i++)
		if (setup_port(i) != 0)
			return -1;
	l2fwd_init(&fwd, opt.mac_updating);
	if (l2fwd_pair(&fwd, (uint16_t)ports[0], (uint16_t)ports[1]) ||
	    l2fwd_assign(&fwd, worker, (uint16_t)ports[0]) ||
	    l2fwd_assign(&fwd, worker, (uint16_t)ports[1]))
		return -1;
	if (opt.one_lcore)
		printf("forwarder and generator both on lcore %u; %u packets "
		       "in flight per port; mac updating %s\n",
		       worker, opt.inflight, opt.mac_updating ? "on" : "off");
	else
		printf("forwarder on lcore %u, generator on lcore %u; %u "
		       "packets in flight per port; mac updating %s\n",
		       worker, lr_lcore_id(), opt.inflight,
		       opt.mac_updating ? "on" : "off");
	fflush(stdout);
	return 0;
}

/* Forward for the duration, the generator beside; print the figures. */
static void
run(unsigned worker)
{
	uint64_t hz = lr_get_tsc_hz(), t0 = lr_get_tsc_cycles();
	uint64_t end = t0 + (uint64_t)(opt.duration * (double)hz), now = 0;
	double cpu0 = thread_cpu_seconds(), cpu;
	unsigned iter = 0;

	if (opt.one_lcore) {
		while (now < end) {
			l2fwd_poll_once(&fwd, worker);
			generator_step(from_port, to_port);
			if ((++iter & 255) == 0)
				now = lr_get_tsc_cycles();
		}
		l2fwd_flush(&fwd, worker);
		cpu = thread_cpu_seconds() - cpu0;
	} else {
		lr_eal_remote_launch(l2fwd_main_loop, &fwd, worker);
		while (now < end) {
			generator_step(from_port, to_port);
			/* The TSC costs up to ~90 cycles in a VM: read it
			 * rarely. */
			if ((++iter & 255) == 0)
				now = lr_get_tsc_cycles();
		}
		atomic_store(&fwd.quit, 1);
		lr_eal_wait_lcore(worker);
		cpu = l2fwd_cpu_seconds(&fwd);
	}
	now = lr_get_tsc_cycles();

	struct l2fwd_port_stats a, b;
	double secs = (double)(now - t0) / (double)hz;

	l2fwd_port_totals(&fwd, (uint16_t)ports[0], &a);
	l2fwd_port_totals(&fwd, (uint16_t)ports[1], &b);
	printf("ring-fwd total: forwarded=%" PRIu64 " dropped=%" PRIu64
	       " seconds=%.3f Mpps=%.2f cpu_seconds=%.3f Mpps_per_cpu=%.2f\n",
	       a.tx + b.tx, a.dropped + b.dropped, secs,
	       (double)(a.tx + b.tx) / secs / 1e6, cpu,
	       cpu > 0 ? (double)(a.tx + b.tx) / cpu / 1e6 : 0.0);
}

/* Close the ports, free the rings and check the pool: 0, or -1 when
 * mbufs are missing (said on stdout after a run, on stderr after a
 * failure: quiet). */
static int
teardown(bool quiet)
{
	for (int i = 0; i < 2; i++) {
		if (ports[i] >= 0)
			lr_eth_dev_close((uint16_t)ports[i]);
		if (to_port[i]) {
			drain_ring(to_port[i]);
			lr_ring_free(to_port[i]);
		}
		if (from_port[i]) {
			drain_ring(from_port[i]);
			lr_ring_free(from_port[i]);
		}
	}
	return l2fwd_pool_free(pool, quiet);
}

int
main(int argc, char **argv)
{
	static const struct lr_app app = {PROG, usage};
	unsigned worker;
	int status;

	if (lr_app_start(&app, argc, argv, parse_args, NULL, &status) < 0)
		return status;
	worker = lr_get_next_lcore(-1, 1, 0);
	if (worker >= LR_MAX_LCORE)
		opt.one_lcore = 1;
	if (opt.one_lcore)
		worker = lr_lcore_id();
	if (setup(worker) != 0) {
		teardown(true);
		lr_eal_cleanup();
		return LR_EXIT_FAILURE;
	}
	run(worker);
	status = teardown(false) == 0 ? LR_EXIT_OK : LR_EXIT_FAILURE;
	lr_eal_cleanup();
	return status;
}
