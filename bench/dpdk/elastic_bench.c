/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpdk-elastic-bench: lr-elastic-bench's burst profile (apps/elastic-bench)
 * run with DPDK's own pieces, so that bench/run elastic can show what
 * DPDK's fixed mempool holds and drops in the same setup. Built by the
 * harness against libdpdk (pkg-config, bench/harness/peers.py, with
 * -lrte_net_ring for the shared link), once for Debian's package and once
 * for scripts/dpdk-native.sh's build; not part of the meson build.
 *
 *   dpdk-elastic-bench -l 0 [EAL options] -- --mbufs N [--bursts K]
 *       [--burst-frames B] [--period-ms P] [--drain-per-ms R]
 *       [--idle-ms MS] [--tail-ms T]
 *
 * The same profile as lr-elastic-bench, step for step: every P ms (K
 * times) the producer allocates B 64-byte frames (bulks of 32) from an
 * rte_pktmbuf pool of N mbufs (ring_mp_mc, per-lcore cache of 256, the
 * default data room) and sends them into port net_ring_0, whose tx ring
 * (an rte_ring of exactly 32768 slots, single producer and consumer, as
 * linerate's net_ring pair) is port net_ring_1's rx ring (DPDK's net_ring
 * driver over application rings, rte_eth_from_rings()); all the while the
 * consumer receives R frames per ms from net_ring_1 and frees them. After
 * the last burst the run goes on for T ms. One lcore does both,
 * interleaved. Every millisecond the memory the pool holds is sampled:
 * for DPDK's fixed pool, its whole populated memory (the chunks
 * rte_mempool_mem_iter() lists, page padding included), as linerate's
 * pools count their whole blocks (lr_mempool_mem_bytes()); neither side
 * counts the pool's header, its per-lcore caches' arrays or its store's
 * ring. DPDK's pool never
 * grows or shrinks: --idle-ms is taken for the same command line and has
 * nothing to act on, and there is no shrink call in the loop.
 *
 * The last lines, in lr-elastic-bench's format: `elastic-bench
 * pool=dpdk-fixed mbufs=N-N sent=N received=N drops_nombuf=N
 * drops_ring_full=N held_peak_MiB=X held_avg_MiB=X held_end_MiB=X
 * growths=0 shrinks=0 seconds=X` and `mbufs in use after stop: N` (exit 1
 * if not 0). Bad options: a message naming the option, exit 2.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>
#include <rte_version.h>

#define BURST	   32
#define RING_DESC  32768
#define POOL_CACHE 256
#define FRAME	   64

struct opts {
	unsigned n; /* --mbufs */
	unsigned bursts, burst_frames, period_ms, drain_per_ms, idle_ms;
	unsigned tail_ms;
};

struct run {
	uint64_t sent, received, nombuf, ring_full;
	double held_peak, held_sum; /* bytes */
	uint64_t samples;
};

static void
usage(const char *prog)
{
	printf("%s [EAL options] -- --mbufs N [--bursts K] "
	       "[--burst-frames B]\n"
	       "    [--period-ms P] [--drain-per-ms R] [--idle-ms MS] "
	       "[--tail-ms T]\n"
	       "  --mbufs N         DPDK's fixed pool of N mbufs (N-N too)\n"
	       "  --bursts K        bursts sent (default 10)\n"
	       "  --burst-frames B  frames per burst, 1..%u (default 20000)\n"
	       "  --period-ms P     one burst every P ms (default 200)\n"
	       "  --drain-per-ms R  frames the consumer takes per ms (default "
	       "1000)\n"
	       "  --idle-ms MS      taken, no effect: a fixed pool never "
	       "shrinks\n"
	       "  --tail-ms T       run on after the last burst (default "
	       "1000)\n",
	       prog, RING_DESC);
}

/* An unsigned of 0..max for option name; 0, or -1 after a message. */
static int
parse_num(const char *name, const char *s, unsigned long max, unsigned *v)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = strtoul(s, &end, 10);
	if (*s < '0' || *s > '9' || *end != '\0' || errno != 0 || x > max) {
		fprintf(stderr, "%s '%s': expected a number in 0..%lu\n", name,
			s, max);
		return -1;
	}
	*v = (unsigned)x;
	return 0;
}

/* N, or N-N (what lr-elastic-bench takes for a fixed pool). */
static int
parse_mbufs(struct opts *o, const char *s)
{
	unsigned long lo, hi;
	char *end;

	errno = 0;
	lo = strtoul(s, &end, 10);
	hi = lo;
	if (end != s && *end == '-' && end[1] >= '0' && end[1] <= '9')
		hi = strtoul(end + 1, &end, 10);
	if (*s < '0' || *s > '9' || *end != '\0' || errno != 0 || lo != hi ||
	    hi < 512 || hi > (1u << 24)) {
		fprintf(stderr,
			"--mbufs '%s': expected N in 512..%u (DPDK's mempool "
			"is fixed: no MIN-MAX)\n",
			s, 1u << 24);
		return -1;
	}
	o->n = (unsigned)hi;
	return 0;
}

/* 0, 1 after --help, -1 after a message. */
static int
parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
	    {"mbufs", required_argument, NULL, 'm'},
	    {"bursts", required_argument, NULL, 'k'},
	    {"burst-frames", required_argument, NULL, 'b'},
	    {"period-ms", required_argument, NULL, 'p'},
	    {"drain-per-ms", required_argument, NULL, 'r'},
	    {"idle-ms", required_argument, NULL, 'i'},
	    {"tail-ms", required_argument, NULL, 't'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c, rc = 0;

	*o = (struct opts){.bursts = 10,
			   .burst_frames = 20000,
			   .period_ms = 200,
			   .drain_per_ms = 1000,
			   .idle_ms = 100,
			   .tail_ms = 1000};
	optind = 0;
	opterr = 0;
	while (rc == 0 &&
	       (c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			rc = parse_mbufs(o, optarg);
			break;
		case 'k':
			rc = parse_num("--bursts", optarg, 100000, &o->bursts);
			break;
		case 'b':
			rc = parse_num("--burst-frames", optarg, RING_DESC,
				       &o->burst_frames);
			break;
		case 'p':
			rc = parse_num("--period-ms", optarg, 3600000,
				       &o->period_ms);
			break;
		case 'r':
			rc = parse_num("--drain-per-ms", optarg, 1000000,
				       &o->drain_per_ms);
			break;
		case 'i':
			rc = parse_num("--idle-ms", optarg, 3600000,
				       &o->idle_ms);
			break;
		case 't':
			rc = parse_num("--tail-ms", optarg, 3600000,
				       &o->tail_ms);
			break;
		case 'h':
			usage(argv[0]);
			return 1;
		default:
			fprintf(stderr,
				"unknown option or missing value: '%s'\n",
				argv[optind - 1]);
			return -1;
		}
	}
	if (rc == 0 && optind < argc) {
		fprintf(stderr, "unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (rc == 0 && o->n == 0) {
		fprintf(stderr, "--mbufs is required\n");
		return -1;
	}
	if (rc == 0 && (o->burst_frames == 0 || o->period_ms == 0)) {
		fprintf(stderr, "--burst-frames and --period-ms must be > 0\n");
		return -1;
	}
	return rc;
}

static void
add_chunk(struct rte_mempool *mp, void *opaque,
	  struct rte_mempool_memhdr *memhdr, unsigned idx)
{
	(void)mp;
	(void)idx;
	*(double *)opaque += (double)memhdr->len;
}

/* Bytes of memory the pool holds now: its populated chunks. */
static double
held_bytes(struct rte_mempool *mp)
{
	double bytes = 0;

	rte_mempool_mem_iter(mp, add_chunk, &bytes);
	return bytes;
}

static int
port_up(uint16_t port, struct rte_mempool *mp)
{
	struct rte_eth_conf conf;
	int ret;

	memset(&conf, 0, sizeof(conf));
	ret = rte_eth_dev_configure(port, 1, 1, &conf);
	if (ret == 0)
		ret = rte_eth_rx_queue_setup(port, 0, RING_DESC,
					     rte_socket_id(), NULL, mp);
	if (ret == 0)
		ret = rte_eth_tx_queue_setup(port, 0, RING_DESC,
					     rte_socket_id(), NULL);
	if (ret == 0)
		ret = rte_eth_dev_start(port);
	if (ret < 0)
		fprintf(stderr, "port %u: setup failed: %s\n", port,
			rte_strerror(-ret));
	return ret;
}

/* Send up to n frames of a burst; how many the burst is done with (sent
 * or dropped). */
static unsigned
produce(struct rte_mempool *mp, uint16_t port, unsigned n, struct run *r)
{
	struct rte_mbuf *pkts[BURST];
	unsigned k = RTE_MIN(n, (unsigned)BURST), t;

	if (rte_pktmbuf_alloc_bulk(mp, pkts, k) != 0) {
		r->nombuf += k;
		return k;
	}
	for (unsigned i = 0; i < k; i++) {
		char *d = rte_pktmbuf_append(pkts[i], FRAME);

		memset(d, 0, 14);
		memcpy(d + 14, &r->sent, sizeof(r->sent));
	}
	t = rte_eth_tx_burst(port, 0, pkts, (uint16_t)k);
	if (t < k) {
		rte_pktmbuf_free_bulk(pkts + t, k - t);
		r->ring_full += k - t;
	}
	r->sent += t;
	return k;
}

/* The bursts, the slow drain, the tail; samples of what the pool holds. */
static void
run_profile(const struct opts *o, struct rte_mempool *mp, uint16_t tx,
	    uint16_t rx, struct run *r)
{
	uint64_t hz = rte_get_tsc_hz(), ms = hz / 1000,
		 t0 = rte_get_tsc_cycles();
	uint64_t end =
	    t0 + ((uint64_t)o->bursts * o->period_ms + o->tail_ms) * ms;
	uint64_t next_burst = t0, next_sample = t0;
	unsigned bursts = 0, pending = 0;
	struct rte_mbuf *pkts[BURST];

	for (uint64_t now = t0; now < end; now = rte_get_tsc_cycles()) {
		uint64_t allowed;

		if (bursts < o->bursts && now >= next_burst) {
			pending += o->burst_frames;
			next_burst += o->period_ms * ms;
			bursts++;
		}
		if (pending != 0)
			pending -= produce(mp, tx, pending, r);
		allowed = (now - t0) / ms * o->drain_per_ms;
		if (allowed > r->received) {
			uint16_t n = rte_eth_rx_burst(
			    rx, 0, pkts,
			    (uint16_t)RTE_MIN(allowed - r->received,
					      (uint64_t)BURST));

			rte_pktmbuf_free_bulk(pkts, n);
			r->received += n;
		}
		if (now >= next_sample) {
			double h = held_bytes(mp);

			r->held_peak = RTE_MAX(r->held_peak, h);
			r->held_sum += h;
			r->samples++;
			next_sample += ms;
		}
		/* lr-elastic-bench calls its pool's idle shrink here every
		 * 10 ms; a DPDK mempool has none. */
	}
}

static struct rte_mempool *
make_pool(const struct opts *o)
{
	struct rte_mempool *mp;

	mp = rte_pktmbuf_pool_create_by_ops("bench_pool", o->n, POOL_CACHE, 0,
					    RTE_MBUF_DEFAULT_BUF_SIZE,
					    (int)rte_socket_id(), "ring_mp_mc");
	if (mp == NULL)
		fprintf(stderr, "mbuf pool %u: %s\n", o->n,
			rte_strerror(rte_errno));
	return mp;
}

/* Take back every frame still queued; then the pool's figures. */
static int
finish(const struct opts *o, struct rte_mempool *mp, uint16_t rx, struct run *r,
       double secs)
{
	struct rte_mbuf *pkts[BURST];
	double mib = 1024.0 * 1024.0, held_end = held_bytes(mp);
	uint16_t n;
	unsigned in_use;

	while ((n = rte_eth_rx_burst(rx, 0, pkts, BURST)) != 0) {
		rte_pktmbuf_free_bulk(pkts, n);
		r->received += n;
	}
	printf("elastic-bench pool=dpdk-fixed mbufs=%u-%u sent=%" PRIu64
	       " received=%" PRIu64 " drops_nombuf=%" PRIu64
	       " drops_ring_full=%" PRIu64
	       " held_peak_MiB=%.1f held_avg_MiB=%.1f held_end_MiB=%.1f "
	       "growths=0 shrinks=0 seconds=%.3f\n",
	       o->n, o->n, r->sent, r->received, r->nombuf, r->ring_full,
	       r->held_peak / mib,
	       r->samples ? r->held_sum / (double)r->samples / mib : 0.0,
	       held_end / mib, secs);
	in_use = rte_mempool_in_use_count(mp);
	printf("mbufs in use after stop: %u\n", in_use);
	return in_use == 0 && r->received == r->sent ? 0 : -1;
}

/* Rings r[s] carry side s's frames to side s ^ 1; ports net_ring_0 and
 * net_ring_1 over them. 0, or -1 after a message. */
static int
make_ports(struct rte_ring *r[2], uint16_t port[2])
{
	static const char *const names[2] = {"0", "1"};
	char name[RTE_RING_NAMESIZE];

	for (unsigned s = 0; s < 2; s++) {
		snprintf(name, sizeof(name), "ebench_s%u", s);
		r[s] = rte_ring_create(name, RING_DESC, (int)rte_socket_id(),
				       RING_F_SP_ENQ | RING_F_SC_DEQ |
					   RING_F_EXACT_SZ);
		if (r[s] == NULL) {
			fprintf(stderr, "ring %s: %s\n", name,
				rte_strerror(rte_errno));
			return -1;
		}
	}
	for (unsigned s = 0; s < 2; s++) {
		int p = rte_eth_from_rings(names[s], &r[s ^ 1], 1, &r[s], 1,
					   rte_socket_id());

		if (p < 0) {
			fprintf(stderr, "port net_ring_%s: %s\n", names[s],
				rte_strerror(rte_errno));
			return -1;
		}
		port[s] = (uint16_t)p;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct rte_mempool *mp = NULL;
	struct rte_ring *rings[2] = {NULL, NULL};
	uint16_t port[2] = {UINT16_MAX, UINT16_MAX};
	struct run r = {0};
	struct opts o;
	uint64_t t0;
	int ret, rc = 1;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "dpdk-elastic-bench: EAL init: %s\n",
			rte_strerror(rte_errno));
		return 1;
	}
	argc -= ret;
	argv += ret;
	argv[0] = "dpdk-elastic-bench";
	ret = parse_args(argc, argv, &o);
	if (ret != 0) {
		rte_eal_cleanup();
		return ret > 0 ? 0 : 2;
	}
	mp = make_pool(&o);
	if (mp == NULL || make_ports(rings, port) < 0 ||
	    port_up(port[0], mp) < 0 || port_up(port[1], mp) < 0)
		goto close;
	printf("elastic-bench: %u bursts of %u frames every %u ms, drained "
	       "at %u per ms, %u ms tail; pool dpdk-fixed %u-%u (%s)\n",
	       o.bursts, o.burst_frames, o.period_ms, o.drain_per_ms, o.tail_ms,
	       o.n, o.n, rte_version());
	fflush(stdout);
	t0 = rte_get_tsc_cycles();
	run_profile(&o, mp, port[0], port[1], &r);
	if (finish(&o, mp, port[1], &r,
		   (double)(rte_get_tsc_cycles() - t0) / rte_get_tsc_hz()) == 0)
		rc = 0;
close:
	for (unsigned s = 0; s < 2; s++) {
		if (port[s] != UINT16_MAX) {
			rte_eth_dev_stop(port[s]);
			rte_eth_dev_close(port[s]);
		}
	}
	/* The ports were attached to the rings: they stay the program's. */
	for (unsigned s = 0; s < 2; s++)
		rte_ring_free(rings[s]);
	rte_mempool_free(mp);
	rte_eal_cleanup();
	return rc;
}
