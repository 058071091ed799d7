/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr-l2fwd: forward packets between pairs of ports, the way users of
 * DPDK's l2fwd expect.
 *
 *   lr-l2fwd [EAL options] -- -p PORTMASK [-q NQ] [-Q N] [-T PERIOD]
 *            [--no-mac-updating] [--portmap=(a,b)[,(c,d)]] [--duration S]
 *            [--mbufs MIN-MAX|N] [--mbufs-idle MS]
 *
 * Ports come from --vdev. Ports of the mask are paired in order (0-1, 2-3)
 * or by --portmap. Each port gets N rx and N tx queues (--queues, default
 * 1); rx queue q of a port forwards to tx queue q of its pair. Each lcore
 * (main included) polls up to NQ rx queues (default: the (port, queue)
 * pairs spread evenly over the lcores, queue 0 of every port first, then
 * queue 1, ...). Every PERIOD seconds (default
 * 10, 0: never) it prints per-port and aggregate counters with Mpps and
 * the mbuf pool's size. The pool is elastic by default (--mbufs MIN-MAX:
 * it grows under a burst and gives idle blocks back after --mbufs-idle
 * ms, checked by the main lcore every 100 ms); --mbufs N makes it fixed.
 * A stop signal (INT, TERM, HUP, PIPE, QUIT, USR1, USR2) or --duration
 * ends it: final stats, ports stopped and
 * closed, and the check that every mbuf is back in its pool; the last lines
 * are `l2fwd total: ...`, `mbufs in use after stop: N` and `Bye...`.
 *
 * Exit status (lr_app.h): 0 done; 1 a run-time failure (the pool, a port
 * that does not configure or start, an mbuf not back in the pool); 2 a
 * usage error (options, --vdev devargs or driver, a port mask that names
 * no port or an odd number, --portmap, --queues beyond a port, too few
 * lcores). A fatal error is the last thing printed: the ports are closed
 * quietly and nothing follows but lr-l2fwd's line pointing at -h.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "l2fwd.h"
#include "l2fwd_opts.h"
#include "l2fwd_telemetry.h"
#include "lr_app.h"
#include "lr_eal.h"
#include "lr_ethdev.h"
#ifdef L2FWD_HAVE_MEMIF
#include "lr_eth_memif.h"
#endif
#include "lr_mbuf.h"

#define NB_RXD		  1024
#define NB_TXD		  1024
#define POOL_CACHE	  256
#define MIN_POOL_PER_PORT 8192

static struct l2fwd fwd;
static struct lr_mempool *pool;

static struct l2fwd_opts opt;

/* Stats timer state, used by the main lcore only. */
static struct {
	uint64_t hz;
	uint64_t start_tsc;
	uint64_t next_print;
	uint64_t last_print;
	uint64_t last_tx;
	uint64_t end_tsc;     /* 0: none */
	uint64_t next_shrink; /* next idle check of the mbuf pool */
	uint64_t stop_tsc;
} timer;

/* The EAL's stop handler calls this for every stop signal (INT, TERM,
 * HUP, PIPE, QUIT, USR1, USR2): async-signal-safe only. The first one says
 * so; a later one (a SIGPIPE from that very write) says nothing. */
static void
on_stop(int sig)
{
	static const char msg[] = "\nSignal received, preparing to exit...\n";

	(void)sig;
	atomic_store(&fwd.quit, 1);
	if (lr_eal_stop_requested() == 1 &&
	    write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0)
		return; /* stdout gone (SIGPIPE): the stop goes on */
}

/* One line on the mbuf pool: its size now, and for an elastic pool its
 * range, peak, growths and shrinks. Nothing that reads the lcores' caches
 * (they change under us while forwarding). */
static void
print_pool(void)
{
	char phrase[160];

	if (pool == NULL)
		return;
	if (lr_app_pool_phrase(pool, phrase, sizeof(phrase)) == 0)
		printf("\nmbuf pool: %s", phrase);
	else
		printf("\nmbuf pool: %u mbufs (fixed)",
		       lr_mempool_objs_count(pool));
}

/* --xstats: the mbuf pool's counters, one per line (an elastic pool's). */
static void
print_pool_xstats(void)
{
	if (pool != NULL)
		lr_app_pool_xstats(pool);
}

static void
print_stats(uint64_t now)
{
	struct l2fwd_port_stats t, sum = {0};
	double secs = (double)(now - timer.last_print) / (double)timer.hz;

	printf("\nPort statistics ====================================");
	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++) {
		if (fwd.dst_port[p] == LR_ETH_PORT_INVALID)
			continue;
		l2fwd_port_totals(&fwd, p, &t);
		printf("\nStatistics for port %u ------------------------------"
		       "\nPackets sent: %24" PRIu64
		       "\nPackets received: %20" PRIu64
		       "\nPackets dropped: %21" PRIu64,
		       p, t.tx, t.rx, t.dropped);
		sum.tx += t.tx;
		sum.rx += t.rx;
		sum.dropped += t.dropped;
	}
	print_pool();
	printf("\nAggregate statistics ==============================="
	       "\nTotal packets sent: %18" PRIu64
	       "\nTotal packets received: %14" PRIu64
	       "\nTotal packets dropped: %15" PRIu64
	       "\nForwarded Mpps (last %.1f s): %8.2f"
	       "\n====================================================\n",
	       sum.tx, sum.rx, sum.dropped, secs,
	       secs > 0 ? (double)(sum.tx - timer.last_tx) / secs / 1e6 : 0.0);
	fflush(stdout);
	timer.last_tx = sum.tx;
	timer.last_print = now;
}

/* Main lcore, about every 100 us: periodic stats, duration. */
static void
tick(struct l2fwd *f, uint64_t now)
{
	if ((timer.end_tsc && now >= timer.end_tsc) || lr_eal_stop_requested())
		atomic_store(&f->quit, 1);
	if (opt.period && now >= timer.next_print) {
		print_stats(now);
		timer.next_print = now + opt.period * timer.hz;
	}
	if (now >= timer.next_shrink) {
		lr_mempool_shrink_idle(pool);
		timer.next_shrink = now + timer.hz / 10;
	}
}

/* Pair the ports of the mask; 0 or -1 after a message. */
static int
pair_ports(uint16_t *ports, unsigned *nb)
{
	unsigned n = 0;

	for (uint16_t p = 0; p < 32; p++) {
		if (!(opt.portmask & (1u << p)))
			continue;
		if (!lr_eth_dev_is_valid_port(p)) {
			fprintf(stderr,
				"-p 0x%x: port %u does not exist (%u ports; "
				"give them with --vdev)\n",
				opt.portmask, p, lr_eth_dev_count_avail());
			return -1;
		}
		ports[n++] = p;
	}
	if (opt.n_map) {
		for (unsigned i = 0; i < opt.n_map; i++) {
			for (int k = 0; k < 2; k++) {
				uint16_t p = opt.map[i][k];

				if (!(opt.portmask & (1u << p))) {
					fprintf(stderr,
						"--portmap: port %u is not in "
						"the mask 0x%x\n",
						p, opt.portmask);
					return -1;
				}
				if (fwd.dst_port[p] != LR_ETH_PORT_INVALID) {
					fprintf(stderr,
						"--portmap: port %u is paired "
						"twice\n",
						p);
					return -1;
				}
			}
			if (l2fwd_pair(&fwd, opt.map[i][0], opt.map[i][1]) < 0)
				return -1;
		}
		for (unsigned i = 0; i < n; i++) {
			if (fwd.dst_port[ports[i]] == LR_ETH_PORT_INVALID) {
				fprintf(stderr,
					"--portmap: port %u of the mask has no "
					"pair\n",
					ports[i]);
				return -1;
			}
		}
	} else {
		if (n % 2) {
			fprintf(stderr,
				"-p 0x%x: an odd number of ports (%u); ports "
				"forward in pairs\n",
				opt.portmask, n);
			return -1;
		}
		for (unsigned i = 0; i < n; i += 2)
			if (l2fwd_pair(&fwd, ports[i], ports[i + 1]) < 0)
				return -1;
	}
	*nb = n;
	return 0;
}

/* Every port of the list can have opt.queues rx and tx queues; 0 or -1
 * after a message naming the port and what it allows. */
static int
check_queues(const uint16_t *ports, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		struct lr_eth_dev_info info;
		int ret = lr_eth_dev_info_get(ports[i], &info);

		if (ret < 0) {
			fprintf(stderr, "port %u (%s): no device info: %s\n",
				ports[i], lr_eth_dev_name(ports[i]),
				lr_strerror(-ret));
			return -1;
		}
		if (opt.queues > info.max_rx_queues ||
		    opt.queues > info.max_tx_queues) {
			fprintf(stderr,
				"--queues %u: port %u (%s) has at most %u rx "
				"and %u tx queues\n",
				opt.queues, ports[i], lr_eth_dev_name(ports[i]),
				info.max_rx_queues, info.max_tx_queues);
			return -1;
		}
	}
	return 0;
}

/* Spread the (port, queue) pairs over the lcores, nq at most per lcore:
 * queue 0 of every port, then queue 1, ... */
static int
assign_lcores(const uint16_t *ports, unsigned n)
{
	unsigned nl = lr_lcore_count(), total = n * opt.queues;
	unsigned nq = opt.nq ? opt.nq : (total + nl - 1) / nl;
	unsigned lcore = lr_get_next_lcore(-1, 0, 0);

	for (unsigned i = 0; i < total; i++) {
		uint16_t p = ports[i % n], q = (uint16_t)(i / n);

		while (lcore < LR_MAX_LCORE && fwd.lcore[lcore].n_rxq == nq)
			lcore = lr_get_next_lcore(lcore, 0, 0);
		if (lcore >= LR_MAX_LCORE) {
			fprintf(stderr,
				"not enough lcores: %u ports x %u queues, %u "
				"per lcore, %u lcores\n",
				n, opt.queues, nq, nl);
			return -1;
		}
		if (l2fwd_assign_queue(&fwd, lcore, p, q) < 0) {
			fprintf(stderr,
				"lcore %u: more than %d rx queues (-q %u): use "
				"more lcores or fewer --queues\n",
				lcore, L2FWD_MAX_RXQ_PER_LCORE, nq);
			return -1;
		}
		if (opt.queues == 1)
			printf("Lcore %u: RX port %u -> TX port %u\n", lcore, p,
			       fwd.dst_port[p]);
		else
			printf("Lcore %u: RX port %u queue %u -> TX port %u "
			       "queue %u\n",
			       lcore, p, q, fwd.dst_port[p], q);
	}
	return 0;
}

/* Configure port p (its queue counts; not started yet: setup_port()
 * starts it once every port is configured, so that a port that connects
 * at start sees the others, as memif's zero-copy clients announce each
 * other's pools at connect); 0 or -errno. */
static int
configure_port(uint16_t p)
{
	uint16_t nq = (uint16_t)opt.queues;
	int ret;

	ret = lr_eth_dev_configure(p, nq, nq, NULL);
	if (ret < 0)
		fprintf(stderr, "port %u (%s): configure failed: %s\n", p,
			lr_eth_dev_name(p), lr_strerror(-ret));
	return ret;
}

/* The pool port p receives into: the pool of its pair when the pair is a
 * zero-copy memif client (configured: every port is, before the queues),
 * so that a frame p copies in on receive leaves the pair with no second
 * copy (one copy per frame where two ports would make two); else the
 * shared pool. Only if that pool's buffers are as large as the shared
 * pool's, or p is a memif port too (its receive chains buffers when a
 * frame is longer than one). */
static struct lr_mempool *
rx_pool_of(uint16_t p, struct lr_mempool *shared)
{
#ifdef L2FWD_HAVE_MEMIF
	struct lr_eth_dev_info info;
	uint16_t d = fwd.dst_port[p];
	struct lr_mempool *mp;

	if (d == LR_ETH_PORT_INVALID || d == p)
		return shared;
	mp = lr_eth_memif_pool(d);
	if (mp == NULL)
		return shared;
	if (lr_pktmbuf_data_room_size(mp) < lr_pktmbuf_data_room_size(shared) &&
	    (lr_eth_dev_info_get(p, &info) != 0 || info.driver_name == NULL ||
	     strcmp(info.driver_name, "net_memif") != 0))
		return shared;
	printf("port %u (%s): rx into the pool of port %u (%s), a zero-copy "
	       "memif client: forwarded with one copy\n",
	       p, lr_eth_dev_name(p), d, lr_eth_dev_name(d));
	return mp;
#else
	(void)p;
	return shared;
#endif
}

/* Set up the queues of configured port p, rx from pool; 0 or -errno. */
static int
setup_queues(uint16_t p, struct lr_mempool *pool)
{
	uint16_t nq = (uint16_t)opt.queues;
	int ret = 0;

	for (uint16_t q = 0; ret == 0 && q < nq; q++) {
		ret = lr_eth_rx_queue_setup(p, q, NB_RXD, lr_socket_id(), NULL,
					    pool);
		if (ret == 0)
			ret = lr_eth_tx_queue_setup(p, q, NB_TXD,
						    lr_socket_id(), NULL);
	}
	if (ret < 0)
		fprintf(stderr, "port %u (%s): setup failed: %s\n", p,
			lr_eth_dev_name(p), lr_strerror(-ret));
	return ret;
}

/* Start configured port p; 0 or -errno after a message. */
static int
setup_port(uint16_t p)
{
	struct lr_ether_addr mac;
	char buf[LR_ETHER_ADDR_FMT_SIZE];
	int ret;

	ret = lr_eth_dev_start(p);
	if (ret == 0)
		ret = lr_eth_promiscuous_enable(p);
	if (ret < 0) {
		fprintf(stderr, "port %u (%s): setup failed: %s\n", p,
			lr_eth_dev_name(p), lr_strerror(-ret));
		return ret;
	}
	lr_eth_macaddr_get(p, &mac);
	lr_ether_format_addr(buf, sizeof(buf), &mac);
	printf("Port %u (%s), MAC address: %s\n", p, lr_eth_dev_name(p), buf);
	return 0;
}

/* The mbuf pool of n ports. The fixed size (DPDK's formula): every
 * queue's descriptors and a burst, the lcores' caches. By default an
 * elastic pool of a quarter to twice that; --mbufs says otherwise. NULL
 * after a message. */
static struct lr_mempool *
create_pool(unsigned n)
{
	unsigned nb = n * opt.queues * (NB_RXD + NB_TXD + L2FWD_BURST) +
		      n * lr_lcore_count() * POOL_CACHE;
	unsigned lo = opt.mbufs_min, hi = opt.mbufs_max;
	struct lr_mempool *mp;

	nb = LR_MAX(nb, MIN_POOL_PER_PORT * n);
	if (hi == 0) {
		lo = nb / 4;
		hi = 2 * nb;
		printf("mbuf pool: the ports need %u mbufs (a fixed pool's "
		       "size); elastic from a quarter to twice that\n",
		       nb);
	}
	if (lo == hi)
		mp = lr_pktmbuf_pool_create("mbuf_pool", hi, POOL_CACHE, 0,
					    LR_MBUF_DEFAULT_BUF_SIZE,
					    lr_socket_id());
	else
		mp = lr_pktmbuf_pool_create_elastic(
		    "mbuf_pool", lo, hi, POOL_CACHE, 0,
		    LR_MBUF_DEFAULT_BUF_SIZE, lr_socket_id());
	if (mp == NULL) {
		fprintf(stderr, "cannot create mbuf pool of %u%s%u: %s\n", lo,
			lo == hi ? " (fixed) = " : "-", hi,
			lr_strerror(lr_errno));
		return NULL;
	}
	if (lo != hi)
		lr_mempool_set_idle_shrink(mp, opt.idle_ms);
	if (lo == hi)
		printf("mbuf pool: fixed, %u mbufs\n", hi);
	else
		printf("mbuf pool: elastic, %u mbufs at start, grows up to %u, "
		       "gives back blocks idle for %u ms\n",
		       lr_mempool_objs_count(mp), mp->size, opt.idle_ms);
	return mp;
}

/* Start the stats timer and the --duration clock; say what runs. */
static void
start_timer(unsigned n)
{
	timer.hz = lr_get_tsc_hz();
	timer.start_tsc = lr_get_tsc_cycles();
	timer.last_print = timer.start_tsc;
	timer.next_print = timer.start_tsc + opt.period * timer.hz;
	if (opt.duration > 0)
		timer.end_tsc = timer.start_tsc +
				(uint64_t)(opt.duration * (double)timer.hz);
	fwd.tick = tick;
	printf("MAC updating %s\n", opt.mac_updating ? "enabled" : "disabled");
	printf("Forwarding on %u lcore(s), %u port(s), %u queue(s) each%s\n",
	       lr_lcore_count(), n, opt.queues,
	       opt.duration > 0 ? "" : "; Ctrl-C to stop");
	fflush(stdout);
}

/* The final statistics: per port, the `l2fwd total:` line, cycles per
 * packet and every port's counters when asked for. */
static void
print_totals(const uint16_t *ports, unsigned n)
{
	struct l2fwd_port_stats t, sum = {0};

	print_stats(timer.stop_tsc);
	for (unsigned i = 0; i < n; i++) {
		l2fwd_port_totals(&fwd, ports[i], &t);
		sum.tx += t.tx;
		sum.rx += t.rx;
		sum.dropped += t.dropped;
	}
	double secs =
	    (double)(timer.stop_tsc - timer.start_tsc) / (double)timer.hz;
	double cpu = l2fwd_cpu_seconds(&fwd);

	/* Mpps: forwarded per wall-clock second; Mpps_per_cpu: per second
	 * of CPU the forwarding lcores were given (robust to a busy host). */
	printf("l2fwd total: rx=%" PRIu64 " tx=%" PRIu64 " dropped=%" PRIu64
	       " seconds=%.3f Mpps=%.2f cpu_seconds=%.3f Mpps_per_cpu=%.2f\n",
	       sum.rx, sum.tx, sum.dropped, secs,
	       secs > 0 ? (double)sum.tx / secs / 1e6 : 0.0, cpu,
	       cpu > 0 ? (double)sum.tx / cpu / 1e6 : 0.0);
	if (fwd.record_cycles) {
		uint64_t busy = l2fwd_busy_cycles(&fwd);

		printf("CPU cycles/packet=%.2f (busy cycles=%" PRIu64
		       " / rx packets=%" PRIu64 ") at %" PRIu64 " MHz\n",
		       sum.rx ? (double)busy / (double)sum.rx : 0.0, busy,
		       sum.rx, timer.hz / 1000000);
	}
	if (opt.xstats) {
		for (unsigned i = 0; i < n; i++)
			lr_eth_dev_dump(stdout, ports[i]);
		print_pool_xstats();
	}
}

/* Stop and close every port, then check that every mbuf is back in pool
 * (NULL: none made) and free it: 0, or -1 when some are missing. After a
 * fatal error (quiet) it says nothing unless mbufs are missing (stderr). */
static int
close_ports(bool quiet)
{
	uint16_t p;

	LR_ETH_FOREACH_DEV(p)
	{
		if (!quiet)
			printf("Closing port %u...", p);
		lr_eth_dev_stop(p);
		lr_eth_dev_close(p);
		if (!quiet)
			printf(" Done\n");
	}
	if (l2fwd_pool_free(pool, quiet) != 0)
		return -1;
	pool = NULL;
	return 0;
}

/* The ports of --vdev, paired, their queues checked and spread over the
 * lcores: 0, or the exit status after a message (a usage error but where
 * the EAL or a driver says otherwise). */
static int
setup_ports(uint16_t *ports, unsigned *n)
{
	int ret = lr_eth_dev_probe_eal_vdevs();

	if (ret < 0)
		return lr_app_cmdline_status(ret);
	if (lr_eth_dev_count_avail() == 0) {
		fprintf(stderr, "no ports: give some with --vdev (e.g. --vdev "
				"net_null0)\n");
		return LR_EXIT_USAGE;
	}
	if (pair_ports(ports, n) < 0 || check_queues(ports, *n) < 0 ||
	    assign_lcores(ports, *n) < 0)
		return LR_EXIT_USAGE;
	return 0;
}

/* The mbuf pool, then the n ports configured, given their queues and
 * started: 0, or -1 after a message. */
static int
start_ports(const uint16_t *ports, unsigned n)
{
	pool = create_pool(n);
	if (pool == NULL)
		return -1;
	for (unsigned i = 0; i < n; i++)
		if (configure_port(ports[i]) < 0)
			return -1;
	for (unsigned i = 0; i < n; i++)
		if (setup_queues(ports[i], rx_pool_of(ports[i], pool)) < 0)
			return -1;
	for (unsigned i = 0; i < n; i++)
		if (setup_port(ports[i]) < 0)
			return -1;
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct lr_app app = {"lr-l2fwd", l2fwd_usage};
	uint16_t ports[LR_MAX_ETHPORTS];
	unsigned n = 0;
	int ret, status;

	/* Before anything is taken: every stop signal ends in the clean exit
	 * below, during EAL init and setup too (lr_eal.h). */
	ret = lr_eal_stop_handler_install(on_stop);
	if (ret < 0) {
		fprintf(stderr, "lr-l2fwd: cannot handle stop signals: %s\n",
			lr_strerror(-ret));
		return LR_EXIT_FAILURE;
	}
	ret = lr_app_eal_init(&app, argc, argv, &status);
	if (ret < 0)
		return status;
	argc -= ret;
	argv += ret;
	argv[0] = "lr-l2fwd";
	l2fwd_init(&fwd, 1);
	ret = l2fwd_parse_args(argc, argv, &opt);
	if (ret != 0) { /* > 0: --help, usage printed */
		lr_eal_cleanup();
		return ret > 0 ? LR_EXIT_OK : LR_EXIT_USAGE;
	}
	fwd.mac_updating = opt.mac_updating;
	fwd.record_cycles = opt.record_cycles;
	status = setup_ports(ports, &n);
	if (status == 0 && start_ports(ports, n) < 0)
		status = LR_EXIT_FAILURE;
	if (status != 0) {
		close_ports(true);
		lr_eal_cleanup();
		return status;
	}

	start_timer(n);
	ret = l2fwd_telemetry_register(&fwd, timer.start_tsc);
	if (ret < 0)
		fprintf(stderr, "lr-l2fwd: no /linerate/l2fwd/stats: %s\n",
			lr_strerror(-ret));
	lr_eal_mp_remote_launch(l2fwd_main_loop, &fwd, 1);
	lr_eal_mp_wait_lcore();
	timer.stop_tsc = lr_get_tsc_cycles();
	l2fwd_telemetry_stopped(timer.stop_tsc);
	print_totals(ports, n);
	status = close_ports(false) == 0 ? LR_EXIT_OK : LR_EXIT_FAILURE;
	lr_eal_cleanup();
	if (status == LR_EXIT_OK)
		printf("Bye...\n");
	return status;
}
