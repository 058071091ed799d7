/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr-elastic-bench: a bursty producer and a slow consumer on two joined
 * net_ring ports, to compare what mbuf pools hold and drop: an elastic
 * pool against fixed ones.
 *
 *   lr-elastic-bench -l 0 [EAL options] -- --mbufs MIN-MAX|N
 *       [--bursts K] [--burst-frames B] [--period-ms P] [--drain-per-ms R]
 *       [--idle-ms MS] [--tail-ms T]
 *
 * Every P ms (K times) the producer allocates B 64-byte frames from the
 * pool as fast as it can and sends them into net_ring0 (one queue of 32768
 * descriptors: the backlog); all the while the consumer receives R frames
 * per ms from net_ring1 and frees them. After the last burst the run goes
 * on for T ms (drain, then idle: an elastic pool gives back its blocks
 * after --idle-ms). One lcore does both, interleaved, so that a busy host
 * delays both sides alike. Every millisecond the memory the pool holds is
 * sampled (lr_mempool_mem_bytes()): an elastic pool's blocks now, a fixed
 * pool's blocks from creation, each whole (in a block whose pages are not
 * IOVA-contiguous a 2 KiB mbuf takes a 4 KiB page of its own).
 *
 * The last lines: `elastic-bench pool=... sent=N received=N
 * drops_nombuf=N drops_ring_full=N held_peak_MiB=X held_avg_MiB=X
 * held_end_MiB=X growths=N shrinks=N seconds=X` and `mbufs in use after
 * stop: N`. Exit status (lr_app.h): 0 done; 1 a run-time failure (the
 * pool or the ports, an mbuf not back, frames lost); 2 a usage error.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lr_app.h"
#include "lr_eal.h"
#include "lr_ethdev.h"
#include "lr_mbuf.h"

#define BURST	   32
#define RING_DESC  32768
#define POOL_CACHE 256
#define FRAME	   64
#define PROG	   "lr-elastic-bench"

struct opts {
	unsigned long lo, hi; /* --mbufs: lo == hi: a fixed pool */
	unsigned long bursts, burst_frames, period_ms, drain_per_ms, idle_ms;
	unsigned long tail_ms;
};

struct run {
	uint64_t sent, received, nombuf, ring_full;
	double held_peak, held_sum; /* bytes */
	uint64_t samples;
};

static void
usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [EAL options] -- --mbufs MIN-MAX|N [--bursts K] "
		"[--burst-frames B]\n"
		"    [--period-ms P] [--drain-per-ms R] [--idle-ms MS] "
		"[--tail-ms T]\n"
		"  --mbufs MIN-MAX   elastic pool; N: fixed pool of N\n"
		"  --bursts K        bursts sent (default 10)\n"
		"  --burst-frames B  frames per burst, 1..%u (default 20000)\n"
		"  --period-ms P     one burst every P ms (default 200)\n"
		"  --drain-per-ms R  frames the consumer takes per ms (default "
		"1000)\n"
		"  --idle-ms MS      elastic pool's idle time before blocks go "
		"(default 100)\n"
		"  --tail-ms T       run on after the last burst (default "
		"1000)\n"
		"  -h, --help        this text\n",
		prog, RING_DESC);
}

/* The options after the EAL's into opts, a struct opts
 * (lr_app_start()): 0, 1 after --help, -1 after a message. */
static int
parse_args(int argc, char **argv, void *opts)
{
	struct opts *o = opts;
	const struct lr_app_num_opt opt[] = {
	    {"mbufs", 'm', 512, 1u << 24, &o->lo, &o->hi},
	    {"bursts", 'k', 0, 100000, &o->bursts, NULL},
	    {"burst-frames", 'b', 1, RING_DESC, &o->burst_frames, NULL},
	    {"period-ms", 'p', 1, 3600000, &o->period_ms, NULL},
	    {"drain-per-ms", 'r', 0, 1000000, &o->drain_per_ms, NULL},
	    {"idle-ms", 'i', 0, 3600000, &o->idle_ms, NULL},
	    {"tail-ms", 't', 0, 3600000, &o->tail_ms, NULL},
	    {NULL, 0, 0, 0, NULL, NULL},
	};
	struct lr_app_nums nums = {usage, 0, opt};
	int rc;

	*o = (struct opts){.bursts = 10,
			   .burst_frames = 20000,
			   .period_ms = 200,
			   .drain_per_ms = 1000,
			   .idle_ms = 100,
			   .tail_ms = 1000};
	rc = lr_app_parse_nums(argc, argv, &nums);
	if (rc == 0 && o->hi == 0) {
		fprintf(stderr, PROG ": --mbufs is required\n");
		return -1;
	}
	return rc;
}

/* Bytes of memory the pool holds now: its blocks, whole. */
static double
held_bytes(struct lr_mempool *mp)
{
	return (double)lr_mempool_mem_bytes(mp);
}

static int
port_up(uint16_t port, struct lr_mempool *mp)
{
	int ret = lr_eth_dev_configure(port, 1, 1, NULL);

	if (ret == 0)
		ret = lr_eth_rx_queue_setup(port, 0, RING_DESC, lr_socket_id(),
					    NULL, mp);
	if (ret == 0)
		ret = lr_eth_tx_queue_setup(port, 0, RING_DESC, lr_socket_id(),
					    NULL);
	if (ret == 0)
		ret = lr_eth_dev_start(port);
	if (ret < 0)
		fprintf(stderr, "port %u: setup failed: %s\n", port,
			lr_strerror(-ret));
	return ret;
}

/* Send up to n frames of a burst; how many the burst is done with (sent
 * or dropped). */
static unsigned
produce(struct lr_mempool *mp, uint16_t port, unsigned n, struct run *r)
{
	struct lr_mbuf *pkts[BURST];
	unsigned k = LR_MIN(n, (unsigned)BURST), t;

	if (lr_pktmbuf_alloc_bulk(mp, pkts, k) != 0) {
		r->nombuf += k;
		return k;
	}
	for (unsigned i = 0; i < k; i++) {
		char *d = lr_pktmbuf_append(pkts[i], FRAME);

		memset(d, 0, 14);
		memcpy(d + 14, &r->sent, sizeof(r->sent));
	}
	t = lr_eth_tx_burst(port, 0, pkts, (uint16_t)k);
	if (t < k) {
		lr_pktmbuf_free_bulk(pkts + t, k - t);
		r->ring_full += k - t;
	}
	r->sent += t;
	return k;
}

/* The bursts, the slow drain, the tail; samples of what the pool holds. */
static void
run_profile(const struct opts *o, struct lr_mempool *mp, uint16_t tx,
	    uint16_t rx, struct run *r)
{
	uint64_t hz = lr_get_tsc_hz(), ms = hz / 1000, t0 = lr_get_tsc_cycles();
	uint64_t end =
	    t0 + ((uint64_t)o->bursts * o->period_ms + o->tail_ms) * ms;
	uint64_t next_burst = t0, next_sample = t0, next_shrink = t0;
	unsigned bursts = 0, pending = 0;
	struct lr_mbuf *pkts[BURST];

	for (uint64_t now = t0; now < end; now = lr_get_tsc_cycles()) {
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
			uint16_t n = lr_eth_rx_burst(
			    rx, 0, pkts,
			    (uint16_t)LR_MIN(allowed - r->received,
					     (uint64_t)BURST));

			lr_pktmbuf_free_bulk(pkts, n);
			r->received += n;
		}
		if (now >= next_sample) {
			double h = held_bytes(mp);

			r->held_peak = LR_MAX(r->held_peak, h);
			r->held_sum += h;
			r->samples++;
			next_sample += ms;
		}
		if (now >= next_shrink) {
			lr_mempool_shrink_idle(mp);
			next_shrink += 10 * ms;
		}
	}
}

static struct lr_mempool *
make_pool(const struct opts *o)
{
	struct lr_mempool *mp;

	if (o->lo == o->hi)
		mp = lr_pktmbuf_pool_create(
		    "bench_pool", (unsigned)o->hi, POOL_CACHE, 0,
		    LR_MBUF_DEFAULT_BUF_SIZE, lr_socket_id());
	else
		mp = lr_pktmbuf_pool_create_elastic(
		    "bench_pool", (unsigned)o->lo, (unsigned)o->hi, POOL_CACHE,
		    0, LR_MBUF_DEFAULT_BUF_SIZE, lr_socket_id());
	if (mp == NULL)
		fprintf(stderr, "mbuf pool %lu-%lu: %s\n", o->lo, o->hi,
			lr_strerror(lr_errno));
	else if (o->lo != o->hi)
		lr_mempool_set_idle_shrink(mp, (unsigned)o->idle_ms);
	return mp;
}

/* Take back every frame still queued; then the pool's figures. */
static int
finish(const struct opts *o, struct lr_mempool *mp, uint16_t rx, struct run *r,
       double secs)
{
	struct lr_mempool_elastic_stats s = {0};
	struct lr_mbuf *pkts[BURST];
	double mib = 1024.0 * 1024.0, held_end = held_bytes(mp);
	uint16_t n;
	unsigned in_use;

	while ((n = lr_eth_rx_burst(rx, 0, pkts, BURST)) != 0) {
		lr_pktmbuf_free_bulk(pkts, n);
		r->received += n;
	}
	lr_mempool_elastic_stats_get(mp, &s);
	printf("elastic-bench pool=%s mbufs=%lu-%lu sent=%" PRIu64
	       " received=%" PRIu64 " drops_nombuf=%" PRIu64
	       " drops_ring_full=%" PRIu64
	       " held_peak_MiB=%.1f held_avg_MiB=%.1f held_end_MiB=%.1f "
	       "growths=%" PRIu64 " shrinks=%" PRIu64 " seconds=%.3f\n",
	       o->lo == o->hi ? "fixed" : "elastic", o->lo, o->hi, r->sent,
	       r->received, r->nombuf, r->ring_full, r->held_peak / mib,
	       r->samples ? r->held_sum / (double)r->samples / mib : 0.0,
	       held_end / mib, s.growths, s.shrinks, secs);
	in_use = lr_mempool_in_use_count(mp);
	printf("mbufs in use after stop: %u\n", in_use);
	return in_use == 0 && r->received == r->sent ? 0 : -1;
}

int
main(int argc, char **argv)
{
	static const struct lr_app app = {PROG, usage};
	struct lr_mempool *mp = NULL;
	struct run r = {0};
	struct opts o;
	uint16_t p0 = UINT16_MAX, p1 = UINT16_MAX;
	uint64_t t0;
	int rc = 1;

	if (lr_app_start(&app, argc, argv, parse_args, &o, &rc) < 0)
		return rc;
	rc = LR_EXIT_FAILURE;
	mp = make_pool(&o);
	if (mp == NULL || lr_eth_dev_create("net_ring0") < 0 ||
	    lr_eth_dev_create("net_ring1") < 0 ||
	    lr_eth_dev_get_port_by_name("net_ring0", &p0) != 0 ||
	    lr_eth_dev_get_port_by_name("net_ring1", &p1) != 0 ||
	    port_up(p0, mp) < 0 || port_up(p1, mp) < 0)
		goto close;
	printf("elastic-bench: %lu bursts of %lu frames every %lu ms, drained "
	       "at %lu per ms, %lu ms tail; pool %s %lu-%lu\n",
	       o.bursts, o.burst_frames, o.period_ms, o.drain_per_ms, o.tail_ms,
	       o.lo == o.hi ? "fixed" : "elastic", o.lo, o.hi);
	fflush(stdout);
	t0 = lr_get_tsc_cycles();
	run_profile(&o, mp, p0, p1, &r);
	if (finish(&o, mp, p1, &r,
		   (double)(lr_get_tsc_cycles() - t0) / lr_get_tsc_hz()) == 0)
		rc = LR_EXIT_OK;
close:
	for (uint16_t p = 0; p < 2; p++) {
		uint16_t port = p ? p1 : p0;

		if (port != UINT16_MAX) {
			lr_eth_dev_stop(port);
			lr_eth_dev_close(port);
		}
	}
	lr_mempool_free(mp);
	lr_eal_cleanup();
	return rc;
}
