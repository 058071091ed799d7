/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr-pktgen: a traffic generator over linerate ports.
 *
 *   lr-pktgen [EAL options] -- [options]      (see --help)
 *
 * Setup (this file): ports from --vdev, one (port, queue) pair per lcore
 * spread over the ports, one mbuf pool (a transmit queue of a port that
 * lends its own, a zero-copy memif client, takes its mbufs from that one),
 * one stream (template, sequence space, rate share) per transmit queue. The
 * lcores run pg_lcore_loop() (datapath.c); the control thread (the main lcore
 * when there are workers, else a plain thread beside it) prints a line per port
 * each second (on a terminal: redraws the live screen, screen.c), serves the
 * control socket (ctl.c: stop and start the sending, rates), ends the run
 * (count, duration, signal, "quit"), lets in-flight frames drain, and prints
 * the summary and the final `pktgen total:` line.
 *
 * Exit status (lr_app.h): 0 done; 1 a run-time failure (a pool, a port
 * that does not start or whose link stays down, the control socket or an
 * output file, mbufs not back in the pool at exit); 2 a usage error (an
 * option, --vdev devargs or driver, ports or queues the options name that
 * are not there, a --profile or --pcap file that is missing or invalid).
 * A start-up failure is the last thing printed.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "lr_app.h"
#include "lr_eal.h"
#include "lr_ethdev.h"
#include "lr_mbuf.h"
#ifdef PG_HAVE_MEMIF
#include "lr_eth_memif.h"
#endif
#include "pktgen.h"

struct pg_run pg;

/* Per port: its role, its queues' counters, snapshots for rates. */
struct port_info {
	bool used, tx, rx;
	uint16_t nq;   /* queues (rx = tx) */
	uint16_t ntxq; /* streams on it */
	char name[LR_ETH_NAME_MAX_LEN];
	struct pg_counters *cnt;   /* [nq] */
	struct lr_eth_stats stats; /* at the end, before close */
	uint64_t l_tx, l_txb, l_rx, l_rxb, l_drops; /* last live line */
	uint64_t l_other;			    /* frames not ours */
};

static struct port_info ports[LR_MAX_ETHPORTS];
static struct pg_lcore *lcores[LR_MAX_LCORE];
static unsigned dp_lcores[LR_MAX_LCORE], n_dp;
static struct pg_txq *txqs[PG_MAX_STREAMS];
static unsigned ntxqs;
static struct pg_tmpl *pcap_tmpl;
static unsigned pcap_n;
static uint64_t t_stop;	    /* TSC when the run ended */
static uint64_t last_print; /* TSC of the last live line */
static uint64_t last_stats; /* TSC of the last --stats-period lines */
static uint64_t l_behind, l_all_tx, l_all_txb; /* at the last live line */
/* Sum of the rates of the paced streams without gaps (their targets). */
static double target_pps, target_bps;
/* Each instance's rate (its target), and the share weights of the streams
 * without a rate of their own, over all and per port: a rate set through
 * the control socket is split as --rate-* was. */
static double inst_pps[PG_MAX_STREAMS], inst_bps[PG_MAX_STREAMS];
static double wsum, wport[LR_MAX_ETHPORTS];
static unsigned ctl_quits; /* "quit" requests of the control socket */
static bool any_paced;
static FILE *json_out;	       /* --json: the real stdout (stdout is stderr) */
static FILE *stats_json;       /* --stats-json */
static bool stats_json_failed; /* a write failed (said once) */
static uint64_t last_sjson;    /* TSC of the last --stats-json line */
static void stats_json_line(uint64_t now);
/* The live screen (on a terminal): on, and the last control message. */
static bool screen_on;
static char screen_note[160];
static void __attribute__((format(printf, 1, 2))) note(const char *fmt, ...);

static uint64_t
mac_u64(const struct lr_ether_addr *a)
{
	uint64_t v = 0;

	for (int i = 0; i < LR_ETHER_ADDR_LEN; i++)
		v = v << 8 | a->addr_bytes[i];
	return v;
}

/* Which ports, and which of them send and receive. */
static int
select_ports(const struct pg_opts *o)
{
	uint32_t avail = 0, use, tx, rx;
	uint16_t p;

	LR_ETH_FOREACH_DEV(p)
	avail |= 1u << p;
	if (avail == 0)
		return pg_fail("no ports: create some with --vdev, e.g. "
			       "--vdev net_null0 before the --");
	use = o->ports ? o->ports : avail;
	if (o->ports == 0 && (o->tx_ports | o->rx_ports))
		use = avail;
	for (p = 0; p < LR_MAX_ETHPORTS; p++)
		if ((use >> p & 1) && !(avail >> p & 1))
			return pg_fail("port %u: no such port (%u ports exist; "
				       "create them with --vdev)",
				       p, lr_eth_dev_count_avail());
	tx = o->rx_only ? 0 : o->tx_ports ? o->tx_ports : use;
	rx = o->tx_only ? 0 : o->rx_ports ? o->rx_ports : use;
	if ((tx | rx) & ~use)
		return pg_fail("--tx-ports/--rx-ports name a port outside "
			       "--ports");
	if (tx == 0 && rx == 0)
		return pg_fail("no port sends or receives");
	for (p = 0; p < LR_MAX_ETHPORTS; p++) {
		if (!(use >> p & 1))
			continue;
		ports[p].used = true;
		ports[p].tx = tx >> p & 1;
		ports[p].rx = rx >> p & 1;
		snprintf(ports[p].name, sizeof(ports[p].name), "%s",
			 lr_eth_dev_name(p));
	}
	return 0;
}

/* The datapath lcores (the workers, else the main lcore), each its
 * state: 0, or -1 after a message. */
static int
alloc_lcores(void)
{
	unsigned l;

	if (lr_lcore_count() > 1) {
		LR_LCORE_FOREACH_WORKER(l)
		dp_lcores[n_dp++] = l;
	} else {
		dp_lcores[n_dp++] = lr_get_main_lcore();
	}
	for (unsigned i = 0; i < n_dp; i++) {
		lcores[dp_lcores[i]] = aligned_alloc(
		    LR_CACHE_LINE_SIZE,
		    LR_ALIGN_CEIL(sizeof(struct pg_lcore), LR_CACHE_LINE_SIZE));
		if (lcores[dp_lcores[i]] == NULL)
			return pg_fail("out of memory");
		memset(lcores[dp_lcores[i]], 0, sizeof(struct pg_lcore));
		lcores[dp_lcores[i]]->lcore_id = dp_lcores[i];
		lcores[dp_lcores[i]]->lat.min = UINT64_MAX;
	}
	return 0;
}

/* An instance of every stream port p sends, on its queue q, polled by lc:
 * 0, or the exit status after a message (too many instances: a usage
 * error). */
static int
add_instances(uint16_t p, uint16_t q, struct pg_lcore *lc)
{
	for (unsigned k = 0; k < pg.nsdefs; k++) {
		struct pg_txq *t;

		if (pg.sdefs[k].ports && !(pg.sdefs[k].ports >> p & 1))
			continue;
		if (ntxqs == PG_MAX_STREAMS) {
			pg_fail("more than %d stream instances (streams x "
				"queues)",
				PG_MAX_STREAMS);
			return LR_EXIT_USAGE;
		}
		t = aligned_alloc(
		    LR_CACHE_LINE_SIZE,
		    LR_ALIGN_CEIL(sizeof(*t), LR_CACHE_LINE_SIZE));
		if (t == NULL) {
			pg_fail("out of memory");
			return LR_EXIT_FAILURE;
		}
		memset(t, 0, sizeof(*t));
		t->port = p;
		t->queue = q;
		t->sdef = k;
		t->stream = (uint16_t)ntxqs;
		txqs[ntxqs++] = t;
		lc->tx[lc->ntx++] = t;
		ports[p].ntxq++;
	}
	return 0;
}

/* Every stream sent somewhere, and the instances' streams: 0, or the exit
 * status after a message. */
static int
check_instances(void)
{
	for (unsigned k = 0; k < pg.nsdefs; k++) {
		bool used = false;

		for (unsigned i = 0; i < ntxqs; i++)
			used |= txqs[i]->sdef == k;
		if (!used && ntxqs) {
			pg_fail("stream '%s': none of its ports sends",
				pg.sdefs[k].name);
			return LR_EXIT_USAGE;
		}
	}
	pg.inst_sdef = calloc(LR_MAX(ntxqs, 1u), sizeof(*pg.inst_sdef));
	if (pg.inst_sdef == NULL) {
		pg_fail("out of memory");
		return LR_EXIT_FAILURE;
	}
	pg.txq = txqs;
	pg.nlcs = n_dp;
	for (unsigned i = 0; i < n_dp; i++)
		pg.lcs[i] = lcores[dp_lcores[i]];
	for (unsigned i = 0; i < ntxqs; i++)
		pg.inst_sdef[i] = (uint16_t)txqs[i]->sdef;
	return 0;
}

/* Spread (port, queue) pairs over the datapath lcores: with at least as
 * many lcores as ports each lcore takes one queue of one port (ports get
 * as many queues as lcores land on them); with fewer, an lcore takes
 * queue 0 of several ports. 0, or the exit status after a message (a
 * usage error: more queues or stream instances than there can be; a
 * run-time failure: memory). */
static int
assign_queues(void)
{
	uint16_t plist[LR_MAX_ETHPORTS];
	unsigned np = 0, pairs;
	int ret;

	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++)
		if (ports[p].used)
			plist[np++] = p;
	if (alloc_lcores() != 0)
		return LR_EXIT_FAILURE;
	/* (port, queue, lcore) triples. */
	pairs = pg.o.queues ? np * pg.o.queues : LR_MAX(n_dp, np);
	for (unsigned i = 0; i < pairs; i++) {
		uint16_t p =
		    pg.o.queues ? plist[i / pg.o.queues] : plist[i % np];
		struct pg_lcore *lc = lcores[dp_lcores[i % n_dp]];
		uint16_t q = ports[p].nq++;

		if (q >= LR_MAX_QUEUES_PER_PORT) {
			pg_fail("port %u: %u lcores need more than %d queues",
				p, n_dp, LR_MAX_QUEUES_PER_PORT);
			return LR_EXIT_USAGE;
		}
		if (ports[p].tx && (ret = add_instances(p, q, lc)) != 0)
			return ret;
		if (ports[p].rx) {
			lc->rx[lc->nrx].port = p;
			lc->rx[lc->nrx].queue = q;
			lc->nrx++;
		}
	}
	pg.nstreams = ntxqs;
	return check_instances();
}

/* The rearm word of a fresh mbuf of mp, into *w; 0 or -1 (reported). */
static int
pool_rearm(struct lr_mempool *mp, uint64_t *w)
{
	struct lr_mbuf *m = lr_pktmbuf_alloc(mp);

	if (m == NULL)
		return pg_fail("mbuf pool '%s': empty", mp->name);
	*w = m->rearm_data;
	lr_pktmbuf_free(m);
	return 0;
}

static int
setup_pool(const struct pg_opts *o, unsigned max_len)
{
	unsigned nq = 0, n, room;
	unsigned lo = o->nb_mbufs, hi = o->mbufs_max;

	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++)
		nq += ports[p].nq;
	/* The fixed size the queues need; elastic by default: a quarter to
	 * twice that. */
	n = nq * (o->nb_rxd + o->nb_txd + 3 * o->burst) +
	    n_dp * (384 + o->burst) + 8192;
	if (hi == 0) {
		lo = n / 4;
		hi = 2 * n;
	}
	room = LR_MAX((unsigned)LR_MBUF_DEFAULT_BUF_SIZE,
		      LR_PKTMBUF_HEADROOM + max_len + 64);
	if (room > UINT16_MAX)
		return pg_fail("frames of %u bytes do not fit an mbuf",
			       max_len);
	if (lo == hi)
		pg.pool =
		    lr_pktmbuf_pool_create("pktgen_pool", hi, 256, 0,
					   (uint16_t)room, LR_SOCKET_ID_ANY);
	else
		pg.pool = lr_pktmbuf_pool_create_elastic(
		    "pktgen_pool", lo, hi, LR_MIN(256u, hi), 0, (uint16_t)room,
		    LR_SOCKET_ID_ANY);
	if (pg.pool == NULL)
		return pg_fail("mbuf pool of %u%s%u x %u bytes: %s", lo,
			       lo == hi ? " (fixed) = " : "-", hi, room,
			       lr_strerror(lr_errno));
	if (lo != hi)
		lr_mempool_set_idle_shrink(pg.pool, o->idle_ms);
	/* What a fresh mbuf of this pool holds in its rearm word: the
	 * transmit path writes it instead of a full reset. */
	return pool_rearm(pg.pool, &pg.rearm);
}

/* The receive queues' pool: the transmit path never writes its buffers,
 * so a port that returns a buffer with the contents it had (net_null)
 * cannot return a frame the generator built. Fixed size: what the
 * descriptors hold, a burst in flight and the per-lcore caches. */
static int
setup_rx_pool(const struct pg_opts *o, unsigned max_len)
{
	unsigned nq = 0, n, room;

	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++)
		nq += ports[p].nq;
	n = nq * (o->nb_rxd + 2 * o->burst) + n_dp * (384 + o->burst) + 1024;
	room = LR_MAX((unsigned)LR_MBUF_DEFAULT_BUF_SIZE,
		      LR_PKTMBUF_HEADROOM + max_len + 64);
	pg.rx_pool = lr_pktmbuf_pool_create("pktgen_rx_pool", n, 256, 0,
					    (uint16_t)room, LR_SOCKET_ID_ANY);
	if (pg.rx_pool == NULL)
		return pg_fail("receive mbuf pool of %u x %u bytes: %s", n,
			       room, lr_strerror(lr_errno));
	return 0;
}

/* Configure the used ports and their queues (start_ports() starts
 * them). */
static int
setup_ports(const struct pg_opts *o)
{
	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++) {
		struct port_info *pi = &ports[p];
		struct lr_eth_dev_info info;
		struct lr_eth_conf conf = {.promiscuous = 1};
		unsigned rxd = o->nb_rxd, txd = o->nb_txd;
		int rc;

		if (!pi->used)
			continue;
		rc = lr_eth_dev_info_get(p, &info);
		if (rc < 0)
			return pg_fail("port %u: %s", p, lr_strerror(-rc));
		if (pi->nq > info.max_rx_queues || pi->nq > info.max_tx_queues)
			return pg_fail(
			    "port %u (%s): %u lcores need %u queues, "
			    "it has at most %u: use fewer lcores or "
			    "--queues",
			    p, pi->name, n_dp, pi->nq,
			    LR_MIN(info.max_rx_queues, info.max_tx_queues));
		if (info.max_rx_desc)
			rxd = LR_MIN(LR_MAX(rxd, info.min_rx_desc),
				     info.max_rx_desc);
		if (info.max_tx_desc)
			txd = LR_MIN(LR_MAX(txd, info.min_tx_desc),
				     info.max_tx_desc);
		pi->cnt = aligned_alloc(LR_CACHE_LINE_SIZE,
					pi->nq * sizeof(*pi->cnt));
		if (pi->cnt == NULL)
			return pg_fail("out of memory");
		memset(pi->cnt, 0, pi->nq * sizeof(*pi->cnt));
		rc = lr_eth_dev_configure(p, pi->nq, pi->nq, &conf);
		if (rc < 0)
			return pg_fail("port %u (%s): configure %u queues: %s",
				       p, pi->name, pi->nq, lr_strerror(-rc));
		for (uint16_t q = 0; q < pi->nq; q++) {
			rc = lr_eth_rx_queue_setup(p, q, (uint16_t)rxd,
						   info.socket_id, NULL,
						   pg.rx_pool);
			if (rc == 0)
				rc = lr_eth_tx_queue_setup(
				    p, q, (uint16_t)txd, info.socket_id, NULL);
			if (rc < 0)
				return pg_fail("port %u (%s): queue %u: %s", p,
					       pi->name, q, lr_strerror(-rc));
		}
	}
	/* Point every queue at its counters. */
	for (unsigned i = 0; i < n_dp; i++) {
		struct pg_lcore *lc = lcores[dp_lcores[i]];

		for (unsigned k = 0; k < lc->ntx; k++)
			lc->tx[k]->cnt =
			    &ports[lc->tx[k]->port].cnt[lc->tx[k]->queue];
		for (unsigned k = 0; k < lc->nrx; k++)
			lc->rx[k].cnt =
			    &ports[lc->rx[k].port].cnt[lc->rx[k].queue];
	}
	return 0;
}

/* Start the configured ports (after the transmit pools are made: a
 * zero-copy memif client announces the pools it may send from when it
 * connects). */
static int
start_ports(void)
{
	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++) {
		int rc;

		if (!ports[p].used)
			continue;
		rc = lr_eth_dev_start(p);
		if (rc < 0)
			return pg_fail("port %u (%s): start: %s", p,
				       ports[p].name, lr_strerror(-rc));
		lr_eth_promiscuous_enable(p);
		lr_eth_stats_reset(p);
	}
	return 0;
}

/* The pool each transmit queue takes its mbufs from: the port's own when
 * it offers one whose buffers hold the longest frame (a zero-copy memif
 * client: its frames then go out with no copy), else pg.pool. */
static int
setup_tx_pools(const struct pg_opts *o, unsigned max_len)
{
	for (unsigned i = 0; i < ntxqs; i++) {
		struct pg_txq *q = txqs[i];
		struct lr_mempool *mp = NULL;

		q->pool = pg.pool;
		q->rearm = pg.rearm;
#ifdef PG_HAVE_MEMIF
		mp = lr_eth_memif_pool(q->port);
#endif
		if (mp == NULL || lr_pktmbuf_data_room_size(mp) <
				      LR_PKTMBUF_HEADROOM + max_len)
			continue;
		if (pool_rearm(mp, &q->rearm) != 0)
			return -1;
		q->pool = mp;
		if (!o->quiet && q->queue == 0)
			printf("port %u (%s): tx mbufs from its pool '%s' "
			       "(zero-copy)\n",
			       q->port, ports[q->port].name, mp->name);
	}
	return 0;
}

/* Write t's frame into every mbuf of mp, and leave them all in its common
 * store (none in this lcore's cache, which a datapath lcore could not
 * reach); 0 or -1 (reported). */
static int
prebuild(struct lr_mempool *mp, const struct pg_tmpl *t)
{
	unsigned n = lr_mempool_avail_count(mp);
	struct lr_mbuf **all = calloc(n, sizeof(*all));

	if (all == NULL || lr_mempool_get_bulk(mp, (void **)all, n) != 0) {
		free(all);
		return pg_fail("mbuf pool '%s': cannot take its %u mbufs",
			       mp->name, n);
	}
	for (unsigned i = 0; i < n; i++) {
		lr_pktmbuf_reset(all[i]);
		memcpy(lr_pktmbuf_mtod(all[i], void *), t->data, t->len);
	}
	lr_mempool_put_bulk(mp, (void *const *)all, n);
	lr_mempool_cache_flush(mp, lr_lcore_id());
	free(all);
	return 0;
}

/* Whether a port has an address (--ip): L3 mode answers in received
 * buffers and patches the templates once the next hops are known. */
static bool
l3_wanted(const struct pg_opts *o)
{
	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++)
		if (ports[p].used && (o->l3[p].has4 || o->l3[p].has6))
			return true;
	return false;
}

/* The pool of n mbufs for queue q's prebuilt frames: linerate memory, or,
 * when q sends from a zero-copy memif port's pool, shared memory the
 * port announces to its peer (the port must not have connected yet), so
 * that the frames still go out with no copy; NULL when there is no
 * memory for it. */
static struct lr_mempool *
prebuilt_pool(struct pg_txq *q, const char *name, unsigned n)
{
#ifdef PG_HAVE_MEMIF
	if (q->pool != pg.pool)
		return lr_eth_memif_pool_create(
		    name, n, 256, lr_pktmbuf_data_room_size(q->pool),
		    LR_SOCKET_ID_ANY);
#endif
	return lr_pktmbuf_pool_create(name, n, 256, 0,
				      lr_pktmbuf_data_room_size(pg.pool),
				      LR_SOCKET_ID_ANY);
}

/* A queue that sends one frame, always the same (--no-stamp, nothing
 * varies) gets a pool of its own whose buffers all hold the frame,
 * written once here, before the ports start (when the memory allows it,
 * else it keeps its pool and builds each frame); its datapath writes the
 * lengths only, as pktgen-dpdk's per-port transmit pools of prebuilt
 * frames. Nothing else writes those buffers: a port does not rewrite the
 * frames it sends (software offloads act only on frames whose flags ask
 * for them), the receive queues have their own pool (a zero-copy memif
 * port its own), and L3 mode, which answers in received buffers, keeps
 * the shared pool. */
static int
setup_prebuilt(const struct pg_opts *o)
{
	if (l3_wanted(o))
		return 0;
	for (unsigned i = 0; i < ntxqs; i++) {
		struct pg_txq *q = txqs[i];
		unsigned n = o->nb_txd + 4 * o->burst + 2 * 384 + 1024;
		bool zc = q->pool != pg.pool; /* a zero-copy port's pool */
		char name[32];

		if (q->kind != PG_K_PLAIN)
			continue;
		/* a zero-copy port's sent mbufs wait on its ring: half its
		 * pool (the rings' slots and more) */
		if (zc)
			n = LR_MAX(n, q->pool->size / 2);
		snprintf(name, sizeof(name), "pktgen_tx%u", i);
		q->own_pool = prebuilt_pool(q, name, n);
		if (q->own_pool == NULL) {
			/* Not enough memory for it (-m): its pool,
			 * building each frame, as without --no-stamp. */
			if (!o->quiet)
				printf("port %u (%s) queue %u: no pool '%s' of "
				       "%u mbufs (%s): frames built from "
				       "its pool\n",
				       q->port, ports[q->port].name, q->queue,
				       name, n, lr_strerror(lr_errno));
			continue;
		}
		if (prebuild(q->own_pool, q->tmpl) != 0 ||
		    pool_rearm(q->own_pool, &q->rearm) != 0)
			return -1;
		q->pool = q->own_pool;
		q->prebuilt = true;
		if (!o->quiet)
			printf("port %u (%s) queue %u: tx frames prebuilt in "
			       "pool '%s' (%u mbufs%s)\n",
			       q->port, ports[q->port].name, q->queue, name, n,
			       zc ? ", zero-copy" : "");
	}
	return 0;
}

/* Check the queues' own pools at exit: their mbufs not back are added
 * to *leaked and reported, a pool fully back and valid is freed; 0, or
 * -1 when one is not. */
static int
tx_pools_fini(unsigned *leaked)
{
	int ret = 0;

	for (unsigned i = 0; i < ntxqs; i++) {
		struct lr_mempool *mp = txqs[i]->own_pool;
		unsigned n;

		if (mp == NULL)
			continue;
		txqs[i]->own_pool = NULL;
		n = lr_mempool_in_use_count(mp);
		if (n) {
			*leaked += n;
			ret = pg_fail("%u mbufs not back in pool '%s' at exit",
				      n, mp->name);
		} else if (lr_mempool_validate(mp) != 0) {
			ret = pg_fail("pool '%s' fails validation at exit",
				      mp->name);
		} else {
#ifdef PG_HAVE_MEMIF
			/* -EINVAL: not a memif pool */
			if (lr_eth_memif_pool_free(mp) == 0)
				continue;
#endif
			lr_mempool_free(mp);
		}
	}
	return ret;
}

/* Number of used ports whose link is down (reported down or unknown). */
static unsigned
links_down(uint16_t *first)
{
	unsigned n = 0;

	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++) {
		struct lr_eth_link l;

		if (!ports[p].used)
			continue;
		if (lr_eth_link_get_nowait(p, &l) != 0 || !l.link_status) {
			if (n++ == 0)
				*first = p;
		}
	}
	return n;
}

/* Before a run that sends (frames sent into a port whose link is down
 * are dropped: a memif port whose peer has not connected yet), wait up
 * to --link-wait seconds for every used port's link, as pktgen-dpdk
 * does; a stop signal ends the wait (and then the run, the usual clean
 * way). 0, or -1 after saying which port stayed down. */
static int
wait_links(const struct pg_opts *o)
{
	const struct timespec tick = {0, 10 * 1000 * 1000};
	uint64_t t0 = lr_get_tsc_cycles(), end;
	uint16_t p = 0;
	unsigned n;

	if (o->link_wait <= 0 || ntxqs == 0 || links_down(&p) == 0)
		return 0;
	end = t0 + (uint64_t)(o->link_wait * (double)pg.hz);
	if (!o->quiet) {
		printf("lr-pktgen: waiting up to %g s for the link of port %u "
		       "(%s)\n",
		       o->link_wait, p, ports[p].name);
		fflush(stdout);
	}
	while ((n = links_down(&p)) != 0) {
		if (lr_eal_stop_requested()) {
			/* nothing sent; the run ends at once, cleanly */
			atomic_store(&pg.state, PG_TX_STOP);
			return 0;
		}
		if (lr_get_tsc_cycles() >= end)
			return pg_fail("port %u (%s): link still down after "
				       "--link-wait %g s (%u port(s) down; is "
				       "the peer there?)",
				       p, ports[p].name, o->link_wait, n);
		nanosleep(&tick, NULL);
	}
	if (!o->quiet) {
		printf("lr-pktgen: links up after %.3f s\n",
		       (double)(lr_get_tsc_cycles() - t0) / (double)pg.hz);
		fflush(stdout);
	}
	return 0;
}

/* --no-stamp: every template goes out as it is (a capture's frames of
 * ours keep their old stamps: another run's, never counted). */
static void
unstamp_all(void)
{
	for (unsigned i = 0; i < pcap_n; i++)
		pcap_tmpl[i].stamped = false;
	for (unsigned i = 0; i < ntxqs; i++)
		if (txqs[i]->own_tmpl != NULL)
			pg_stream_unstamp(txqs[i], &pg.sdefs[txqs[i]->sdef]);
}

/* L3 mode (l3.c): the ports with addresses, the streams' next hops
 * resolved and written into their templates. */
static int
setup_l3(void)
{
	uint16_t nq[LR_MAX_ETHPORTS];
	uint32_t rx = 0;

	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++) {
		nq[p] = ports[p].used ? ports[p].nq : 0;
		rx |= (uint32_t)(ports[p].used && ports[p].rx) << p;
	}
	return pg_l3_setup(nq, rx, txqs, ntxqs);
}

/* Instances of definition k, and the index of instance q among them. */
static unsigned
sdef_instances(unsigned k, const struct pg_txq *q, unsigned *idx)
{
	unsigned n = 0;

	for (unsigned i = 0; i < ntxqs; i++) {
		if (txqs[i] == q)
			*idx = n;
		n += txqs[i]->sdef == k;
	}
	return n;
}

/* Templates, quotas, rates and burst patterns of every instance. A
 * stream's count, own rate and burst length are split over its instances;
 * --rate-* over the instances of the streams without a rate of their own,
 * by their shares (per port for --rate-pct). */
static int
setup_streams(const struct pg_opts *o)
{
	double hz = (double)pg.hz;

	for (unsigned i = 0; i < ntxqs; i++) {
		const struct pg_sdef *d = &pg.sdefs[txqs[i]->sdef];
		unsigned idx = 0,
			 n = sdef_instances(txqs[i]->sdef, txqs[i], &idx);

		if (d->rate_mode == PG_RATE_MAX) {
			wsum += d->share / n;
			wport[txqs[i]->port] += d->share / n;
		}
	}
	for (unsigned i = 0; i < ntxqs; i++) {
		struct pg_txq *q = txqs[i];
		const struct pg_sdef *d = &pg.sdefs[q->sdef];
		unsigned idx = 0, n = sdef_instances(q->sdef, q, &idx);
		double pps = 0, bps = 0, c1, w = d->share / n;
		unsigned len0;

		if (o->pcap_file) {
			q->tmpl = pcap_tmpl;
			q->ntmpl = pcap_n;
			q->kind = PG_K_PCAP;
		} else {
			struct lr_ether_addr mac;

			lr_eth_macaddr_get(q->port, &mac);
			if (pg_stream_init(q, d, mac_u64(&mac), o->seed,
					   pg.run_id) != 0)
				return pg_fail("stream %u: out of memory", i);
		}
		q->quota = UINT64_MAX;
		if (d->count)
			q->quota = d->count / n + (idx < d->count % n);
		else if (o->count)
			q->quota = o->count / ntxqs + (i < o->count % ntxqs);
		if (d->burst) {
			q->burst_len = d->burst / n + (idx < d->burst % n);
			q->burst_left = q->burst_len;
			q->gap_fp = (uint64_t)(d->gap_us * 1e-6 * hz *
					       (1 << PG_FP_SHIFT));
			if (d->bursts)
				q->quota =
				    LR_MIN(q->quota, q->burst_len * d->bursts);
			if (q->burst_len == 0)
				q->quota = 0;
		}
		/* What it is to send (the quota counts down as it sends). */
		q->count = q->quota == UINT64_MAX ? 0 : q->quota;
		if (d->rate_mode == PG_RATE_PPS)
			pps = d->rate / n;
		else if (d->rate_mode == PG_RATE_MBPS)
			bps = d->rate * 1e6 / n;
		else if (o->rate_mode == PG_RATE_PPS)
			pps = o->rate * w / wsum;
		else if (o->rate_mode == PG_RATE_MBPS)
			bps = o->rate * 1e6 * w / wsum;
		else if (o->rate_mode == PG_RATE_PCT)
			bps = o->line_rate_gbps * 1e9 * o->rate / 100 * w /
			      wport[q->port];
		q->paced = pps > 0 || bps > 0 || (d->burst && d->gap_us > 0);
		if (o->replay) {
			/* The file's own timing, scaled by --speed; a loop
			 * of it lasts up to its last frame and one mean gap
			 * more. */
			uint64_t last = pcap_tmpl[pcap_n - 1].t_fp;

			q->paced = q->timed = true;
			q->loop_fp = last + (pcap_n > 1 ? last / (pcap_n - 1)
							: (uint64_t)(hz / 1000)
							      << PG_FP_SHIFT);
			if (q->loop_fp == 0)
				q->loop_fp = 1;
		}
		any_paced |= q->paced;
		if (!(d->burst && d->gap_us > 0)) {
			target_pps += pps;
			target_bps += bps;
		}
		inst_pps[i] = pps;
		inst_bps[i] = bps;
		q->pkt_cost_fp =
		    pps > 0 ? (uint64_t)(hz * (1 << PG_FP_SHIFT) / pps + 0.5)
			    : 0;
		q->byte_cost_fp =
		    bps > 0
			? (uint64_t)(hz * 8 * (1 << PG_FP_SHIFT) / bps + 0.5)
			: 0;
		len0 = q->tmpl[0].len;
		c1 = (double)q->pkt_cost_fp +
		     (double)(len0 + PG_FCS + PG_WIRE_GAP) *
			 (double)q->byte_cost_fp;
		q->depth_fp =
		    (uint64_t)LR_MAX(c1 * o->burst, o->bucket_ms / 1000 * hz *
							(1 << PG_FP_SHIFT));
		q->frame_cost_fp = (uint64_t)c1;
	}
	for (unsigned i = 0; i < n_dp; i++) {
		struct pg_lcore *lc = lcores[dp_lcores[i]];

		lc->win = calloc(LR_MAX(pg.nstreams, 1u), sizeof(*lc->win));
		lc->slat = calloc(pg.nsdefs, sizeof(*lc->slat));
		if (lc->win == NULL || lc->slat == NULL)
			return pg_fail("out of memory");
		for (unsigned k = 0; k < pg.nsdefs; k++)
			lc->slat[k].min = UINT64_MAX;
	}
	return 0;
}

static double
wire_gbps(uint64_t pkts, uint64_t bytes, double secs)
{
	return secs > 0 ? (double)(bytes + pkts * (PG_FCS + PG_WIRE_GAP)) * 8 /
			      secs / 1e9
			: 0;
}

/* Sums of a port's queue counters: rx and rxb count the frames of ours,
 * other the rest. */
static void
port_sums(uint16_t p, uint64_t *tx, uint64_t *txb, uint64_t *rx, uint64_t *rxb,
	  uint64_t *other)
{
	uint64_t all = 0;

	*tx = *txb = *rx = *rxb = 0;
	for (uint16_t q = 0; q < ports[p].nq; q++) {
		const struct pg_counters *c = &ports[p].cnt[q];

		*tx += atomic_load_explicit(&c->tx_pkts, memory_order_relaxed);
		*txb +=
		    atomic_load_explicit(&c->tx_bytes, memory_order_relaxed);
		*rx += atomic_load_explicit(&c->rx_own, memory_order_relaxed);
		*rxb += atomic_load_explicit(&c->rx_own_bytes,
					     memory_order_relaxed);
		all += atomic_load_explicit(&c->rx_pkts, memory_order_relaxed);
	}
	*other = all > *rx ? all - *rx : 0;
}

static uint64_t
port_drops(uint16_t p)
{
	struct lr_eth_stats st;

	if (lr_eth_stats_get(p, &st) != 0)
		return 0;
	return st.imissed + st.ierrors + st.oerrors + st.rx_nombuf;
}

/* Frames behind the rate's schedule, over every queue. */
static uint64_t
behind_sum(void)
{
	uint64_t n = 0;

	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++)
		for (uint16_t q = 0; ports[p].used && q < ports[p].nq; q++)
			n += atomic_load_explicit(&ports[p].cnt[q].tx_behind,
						  memory_order_relaxed);
	return n;
}

/* "X of Y UNIT": the rate reached over pkts frames and bytes in secs
 * against the one asked for, in the unit it was asked in. */
/* "X of Y UNIT": the rate reached over pkts frames and bytes in secs
 * against the sum of the continuous streams' targets, in frames/s or, when
 * every target is a bit rate, in bits/s. */
static void
rate_vs_target(char *buf, size_t len, uint64_t pkts, uint64_t bytes,
	       double secs)
{
	if (target_pps > 0 || target_bps == 0)
		snprintf(buf, len, "%.4g of %.6g Mpps%s",
			 secs > 0 ? (double)pkts / secs / 1e6 : 0,
			 target_pps / 1e6,
			 target_bps > 0 ? " (and targets in bits/s)" : "");
	else if (pg.o.rate_mode == PG_RATE_PCT)
		snprintf(buf, len, "%.4g of %.6g Gbit/s",
			 wire_gbps(pkts, bytes, secs), target_bps / 1e9);
	else
		snprintf(buf, len, "%.4g of %.6g Mbit/s",
			 wire_gbps(pkts, bytes, secs) * 1e3, target_bps / 1e6);
}

/* The mbuf pool's size now, and for an elastic pool its range, peak,
 * growths and shrinks (a live line). */
static void
print_pool(void)
{
	struct lr_mempool_elastic_stats s;

	if (pg.pool == NULL || lr_mempool_elastic_stats_get(pg.pool, &s) != 0)
		return;
	printf("          mbuf pool: %u mbufs (elastic %u-%u, peak %u), "
	       "growths %llu, shrinks %llu, refused %llu\n",
	       s.objs, s.min_objs, s.max_objs, s.peak_objs,
	       (unsigned long long)s.growths, (unsigned long long)s.shrinks,
	       (unsigned long long)(s.grow_fail_max + s.grow_fail_nomem));
}

/* --xstats: the mbuf pool's counters. */
static void
print_pool_xstats(void)
{
	struct lr_mempool_elastic_stats s;

	if (pg.pool == NULL)
		return;
	if (lr_mempool_elastic_stats_get(pg.pool, &s) != 0) {
		printf("mbuf pool '%s': %u mbufs (fixed)\n", pg.pool->name,
		       lr_mempool_objs_count(pg.pool));
		return;
	}
	printf("mbuf pool '%s' xstats:\n  mbufs: %u\n  mbufs_min: %u\n"
	       "  mbufs_max: %u\n  mbufs_peak: %u\n  blocks: %u\n"
	       "  block_order: %u\n  growths: %llu\n  grown_blocks: %llu\n"
	       "  shrinks: %llu\n  shrunk_blocks: %llu\n"
	       "  refused_at_max: %llu\n  refused_no_memory: %llu\n",
	       pg.pool->name, s.objs, s.min_objs, s.max_objs, s.peak_objs,
	       s.blocks, s.block_order, (unsigned long long)s.growths,
	       (unsigned long long)s.grown_blocks,
	       (unsigned long long)s.shrinks,
	       (unsigned long long)s.shrunk_blocks,
	       (unsigned long long)s.grow_fail_max,
	       (unsigned long long)s.grow_fail_nomem);
}

static void
print_live(uint64_t now)
{
	double dt = (double)(now - last_print) / (double)pg.hz;
	uint64_t all_tx = 0, all_txb = 0, behind;

	if (dt <= 0)
		return;
	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++) {
		struct port_info *pi = &ports[p];
		uint64_t tx, txb, rx, rxb, other, drops;

		if (!pi->used)
			continue;
		drops = port_drops(p);
		port_sums(p, &tx, &txb, &rx, &rxb, &other);
		printf("[%7.1fs] port %u: tx %8.3f Mpps %7.3f Gb/s | rx %8.3f "
		       "Mpps %7.3f Gb/s | drops %llu",
		       (double)(now - pg.t0) / (double)pg.hz, p,
		       (double)(tx - pi->l_tx) / dt / 1e6,
		       wire_gbps(tx - pi->l_tx, txb - pi->l_txb, dt),
		       (double)(rx - pi->l_rx) / dt / 1e6,
		       wire_gbps(rx - pi->l_rx, rxb - pi->l_rxb, dt),
		       (unsigned long long)(drops - pi->l_drops));
		if (other != pi->l_other)
			printf(" | not ours %.3f Mpps",
			       (double)(other - pi->l_other) / dt / 1e6);
		putchar('\n');
		pi->l_tx = tx;
		pi->l_txb = txb;
		pi->l_rx = rx;
		pi->l_rxb = rxb;
		pi->l_other = other;
		pi->l_drops = drops;
		all_tx += tx;
		all_txb += txb;
	}
	behind = behind_sum();
	if (behind != l_behind) {
		char r[96];

		rate_vs_target(r, sizeof(r), all_tx - l_all_tx,
			       all_txb - l_all_txb, dt);
		printf("[%7.1fs] rate missed: %s (%llu frames behind the "
		       "schedule in %.1f s)\n",
		       (double)(now - pg.t0) / (double)pg.hz, r,
		       (unsigned long long)(behind - l_behind), dt);
	}
	l_behind = behind;
	l_all_tx = all_tx;
	l_all_txb = all_txb;
	print_pool();
	fflush(stdout);
	last_print = now;
}

/* --stats-period: every used port's cumulative counters, one line each,
 * all with the same CLOCK_MONOTONIC_RAW time, so that a script can take
 * rates between any two of them. */
static void
print_stats_lines(void)
{
	double t = (double)lr_time_ns() / 1e9;

	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++) {
		struct lr_eth_stats st;

		if (!ports[p].used || lr_eth_stats_get(p, &st) != 0)
			continue;
		printf("stats t=%.6f port=%u ipackets=%llu opackets=%llu "
		       "ibytes=%llu obytes=%llu imissed=%llu ierrors=%llu "
		       "oerrors=%llu rx_nombuf=%llu\n",
		       t, p, (unsigned long long)st.ipackets,
		       (unsigned long long)st.opackets,
		       (unsigned long long)st.ibytes,
		       (unsigned long long)st.obytes,
		       (unsigned long long)st.imissed,
		       (unsigned long long)st.ierrors,
		       (unsigned long long)st.oerrors,
		       (unsigned long long)st.rx_nombuf);
	}
	fflush(stdout);
}

static bool
all_tx_done(void)
{
	for (unsigned i = 0; i < n_dp; i++)
		if (!atomic_load_explicit(&lcores[dp_lcores[i]]->tx_done,
					  memory_order_acquire))
			return false;
	return true;
}

/* Every frame of ours sent came back (--drain-all): own frames received
 * over every port reach the own frames sent. */
static bool
all_back(void)
{
	uint64_t sent = 0, back = 0;

	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++) {
		for (uint16_t q = 0; ports[p].used && q < ports[p].nq; q++) {
			const struct pg_counters *c = &ports[p].cnt[q];

			sent += atomic_load_explicit(&c->tx_own,
						     memory_order_relaxed);
			back += atomic_load_explicit(&c->rx_own,
						     memory_order_relaxed);
		}
	}
	return back >= sent;
}

/* ---- Sending stopped and started (the control socket, --idle) ---- */

/* Every lcore's queues stand still (or are done). */
static bool
all_still(void)
{
	for (unsigned i = 0; i < n_dp; i++) {
		const struct pg_lcore *lc = lcores[dp_lcores[i]];

		if (!atomic_load_explicit(&lc->tx_done, memory_order_acquire) &&
		    !atomic_load_explicit(&lc->tx_still, memory_order_acquire))
			return false;
	}
	return true;
}

/* "sending"; "stopping" until every queue stands still, then "stopped";
 * "done" once the run's sending is over. */
static const char *
send_state(void)
{
	if (atomic_load(&pg.state) != PG_RUN)
		return "done";
	if (pg_sending())
		return "sending";
	return all_still() ? "stopped" : "stopping";
}

/* A message of the control thread: a line of its own, or on the screen. */
static void
note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (screen_on) {
		vsnprintf(screen_note, sizeof(screen_note), fmt, ap);
	} else {
		vprintf(fmt, ap);
		putchar('\n');
		fflush(stdout);
	}
	va_end(ap);
}

/* ---- The live screen: screen.c draws it, this fills it ---- */

/* A stream definition's figures as the lcores last copied them. */
struct scr_stream {
	uint64_t rx, lost, l_tx;
	double jitter; /* cycles */
	struct pg_lat lat;
};

static struct scr_stream *scr; /* [nsdefs] */
static uint32_t snap_gen;      /* the last copy asked of the lcores */
static bool snap_asked;	       /* asked, not all answered yet */

/* The lcores' copies for the screen; 0 or -1 (out of memory). */
static int
screen_setup(void)
{
	scr = calloc(pg.nsdefs, sizeof(*scr));
	if (scr == NULL)
		return pg_fail("out of memory");
	for (unsigned i = 0; i < n_dp; i++) {
		struct pg_lcore *lc = lcores[dp_lcores[i]];

		lc->snap = calloc(LR_MAX(pg.nstreams, 1u), sizeof(*lc->snap));
		lc->snap_lat = calloc(pg.nsdefs, sizeof(*lc->snap_lat));
		if (lc->snap == NULL || lc->snap_lat == NULL)
			return pg_fail("out of memory");
	}
	pg_screen_begin();
	return 0;
}

/* Fold the lcores' copies into scr: received, lost (below the highest
 * sequence number received: frames still on their way are not lost),
 * jitter, latency. */
static void
screen_fold(void)
{
	for (unsigned k = 0; k < pg.nsdefs; k++) {
		struct scr_stream *ss = &scr[k];
		uint64_t l_tx = ss->l_tx;

		memset(ss, 0, sizeof(*ss));
		ss->l_tx = l_tx;
		ss->lat.min = UINT64_MAX;
		for (unsigned l = 0; l < n_dp; l++)
			pg_lat_merge(&ss->lat,
				     &lcores[dp_lcores[l]]->snap_lat[k]);
	}
	for (unsigned i = 0; i < ntxqs; i++) {
		struct scr_stream *ss = &scr[txqs[i]->sdef];
		uint64_t top = 0, unique = 0;
		bool seen = false;

		for (unsigned l = 0; l < n_dp; l++) {
			const struct pg_snap *w =
			    &lcores[dp_lcores[l]]->snap[txqs[i]->stream];

			if (w->seen && (!seen || w->top > top))
				top = w->top;
			seen |= w->seen;
			unique += w->unique;
			ss->rx += w->unique + w->dup;
			ss->jitter =
			    LR_MAX(ss->jitter, (double)w->jitter16 / 16);
		}
		if (seen && top + 1 > unique)
			ss->lost += top + 1 - unique;
	}
}

/* Take the lcores' copies once all have answered. */
static void
screen_collect(void)
{
	if (!snap_asked)
		return;
	for (unsigned i = 0; i < n_dp; i++)
		if (atomic_load_explicit(&lcores[dp_lcores[i]]->snap_done,
					 memory_order_acquire) != snap_gen)
			return;
	screen_fold();
	snap_asked = false;
}

/* Ask every lcore for a copy of its statistics. */
static void
screen_ask(void)
{
	snap_gen++;
	for (unsigned i = 0; i < n_dp; i++)
		atomic_store_explicit(&lcores[dp_lcores[i]]->snap_req, snap_gen,
				      memory_order_release);
	snap_asked = true;
}

/* A count in at most w characters (k, M, G beyond). */
static const char *
fmt_count(char *buf, size_t n, unsigned w, uint64_t v)
{
	static const char sfx[] = "kMGTP";
	double x = (double)v;

	snprintf(buf, n, "%llu", (unsigned long long)v);
	for (unsigned i = 0; strlen(buf) > w && i < sizeof(sfx) - 1; i++) {
		x /= 1000;
		snprintf(buf, n, "%.*f%c",
			 x < 10	   ? 2
			 : x < 100 ? 1
				   : 0,
			 x, sfx[i]);
	}
	return buf;
}

/* A latency in microseconds, "-" without samples. */
static const char *
fmt_us(char *buf, size_t n, double cycles, bool have)
{
	double v = cycles * 1e6 / (double)pg.hz;

	if (!have)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, v < 1000 ? "%.2f" : "%.0f", v);
	return buf;
}

static void
screen_draw(uint64_t now, bool final)
{
	static const char *const unit[] = {"", "frames/s", "Mbit/s",
					   "% of line rate"};
	const struct pg_opts *o = &pg.o;
	double dt = (double)(now - last_print) / (double)pg.hz;
	uint64_t all_tx = 0, all_txb = 0, behind = behind_sum();
	struct lr_mempool_elastic_stats ps;
	char rate[64], c[4][24];
	unsigned shown = 0;

	if (dt <= 0)
		dt = 1e-9;
	if (o->rate_mode == PG_RATE_MAX)
		snprintf(rate, sizeof(rate), "rate max");
	else
		snprintf(rate, sizeof(rate), "rate %.10g %s", o->rate,
			 unit[o->rate_mode]);
	pg_screen_clear();
	pg_screen_printf("lr-pktgen [%7.1fs] %s, %s, streams %u, queues %u, "
			 "lcores %u",
			 (double)(now - pg.t0) / (double)pg.hz,
			 final ? "done" : send_state(), rate, pg.nsdefs,
			 pg.nstreams, n_dp);
	pg_screen_printf("%s", "");
	pg_screen_printf("%-4s %-12s %9s %9s %9s %9s %10s %10s", "port", "name",
			 "tx Mpps", "tx Gb/s", "rx Mpps", "rx Gb/s", "drops",
			 "behind");
	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++) {
		struct port_info *pi = &ports[p];
		uint64_t tx, txb, rx, rxb, other, pb = 0;

		if (!pi->used)
			continue;
		port_sums(p, &tx, &txb, &rx, &rxb, &other);
		for (uint16_t q = 0; q < pi->nq; q++)
			pb += atomic_load_explicit(&pi->cnt[q].tx_behind,
						   memory_order_relaxed);
		pg_screen_printf(
		    "%-4u %-12.12s %9.3f %9.3f %9.3f %9.3f %10s %10s", p,
		    pi->name, (double)(tx - pi->l_tx) / dt / 1e6,
		    wire_gbps(tx - pi->l_tx, txb - pi->l_txb, dt),
		    (double)(rx - pi->l_rx) / dt / 1e6,
		    wire_gbps(rx - pi->l_rx, rxb - pi->l_rxb, dt),
		    fmt_count(c[0], sizeof(c[0]), 10, port_drops(p)),
		    fmt_count(c[1], sizeof(c[1]), 10, pb));
		pi->l_tx = tx;
		pi->l_txb = txb;
		pi->l_rx = rx;
		pi->l_rxb = rxb;
		all_tx += tx;
		all_txb += txb;
	}
	if (any_paced) {
		char r[96];

		rate_vs_target(r, sizeof(r), all_tx - l_all_tx,
			       all_txb - l_all_txb, dt);
		if (behind != l_behind)
			pg_screen_printf(
			    "rate missed: %s (%llu frames behind "
			    "the schedule in %.1f s)",
			    r, (unsigned long long)(behind - l_behind), dt);
		else
			pg_screen_printf("rate: %s, on schedule", r);
	}
	l_behind = behind;
	l_all_tx = all_tx;
	l_all_txb = all_txb;
	if (pg.pool && lr_mempool_elastic_stats_get(pg.pool, &ps) == 0)
		pg_screen_printf("mbuf pool: %u mbufs (elastic %u-%u, peak %u)",
				 ps.objs, ps.min_objs, ps.max_objs,
				 ps.peak_objs);
	pg_screen_printf("%s", "");
	pg_screen_printf("%-12s %8s %10s %10s %8s %8s %8s %7s", "stream",
			 "tx Mpps", "tx", "rx", "lost", "p50 us", "p99 us",
			 "jit us");
	for (unsigned k = 0; k < pg.nsdefs; k++) {
		struct scr_stream *ss = &scr[k];
		bool have = ss->lat.n > 0;
		uint64_t tx = 0;
		char name[PG_NAME_MAX + 12], l[3][16];

		for (unsigned i = 0; i < ntxqs; i++)
			if (txqs[i]->sdef == k)
				tx +=
				    atomic_load_explicit(&txqs[i]->scnt.tx_pkts,
							 memory_order_relaxed);
		if (pg_screen_rows_left() > 3) {
			snprintf(name, sizeof(name), "%u %s", k,
				 pg.sdefs[k].name);
			pg_screen_printf(
			    "%-12.12s %8.3f %10s %10s %8s %8s %8s %7s", name,
			    (double)(tx - ss->l_tx) / dt / 1e6,
			    fmt_count(c[0], sizeof(c[0]), 10, tx),
			    fmt_count(c[1], sizeof(c[1]), 10, ss->rx),
			    fmt_count(c[2], sizeof(c[2]), 8, ss->lost),
			    fmt_us(l[0], sizeof(l[0]),
				   pg_lat_quantile(&ss->lat, 0.5), have),
			    fmt_us(l[1], sizeof(l[1]),
				   pg_lat_quantile(&ss->lat, 0.99), have),
			    fmt_us(l[2], sizeof(l[2]), ss->jitter, ss->rx > 0));
			shown++;
		}
		ss->l_tx = tx;
	}
	if (shown < pg.nsdefs)
		pg_screen_printf("... %u more stream(s): all of them in the "
				 "summary at the end",
				 pg.nsdefs - shown);
	pg_screen_printf("%s", "");
	if (screen_note[0])
		pg_screen_printf("%s", screen_note);
	if (!final)
		pg_screen_printf("%s%s%s", o->ctl_path ? "control socket " : "",
				 o->ctl_path ? o->ctl_path : "",
				 o->ctl_path ? " (start, stop, rate, quit); "
					       "Ctrl-C ends the run"
					     : "Ctrl-C ends the run");
	pg_screen_show();
	last_print = now;
}

/* Each tick of the control loop: ask the lcores for their statistics a
 * moment before a second is over, take them when they came, draw. */
static void
screen_tick(uint64_t now)
{
	screen_collect();
	if (!snap_asked && now - last_print >= pg.hz - pg.hz / 50)
		screen_ask();
	if (now - last_print >= pg.hz)
		screen_draw(now, false);
}

/* The last frame, from the lcores' own statistics (they have returned),
 * and the terminal given back. */
static void
screen_final(void)
{
	for (unsigned i = 0; i < n_dp; i++)
		pg_lcore_snap(lcores[dp_lcores[i]]);
	screen_fold();
	screen_draw(t_stop, true);
	pg_screen_end();
}

/* Watch the run: live lines, the end of sending, the drain, the stop. */
static void
control_loop(void)
{
	const struct pg_opts *o = &pg.o;
	bool have_rx = false, draining = false;
	uint64_t drain_start = 0, drain = (uint64_t)o->drain_ms * pg.hz / 1000;
	unsigned stops_at_drain = 0;
	uint64_t last_shrink = pg.t0;
	const struct timespec tick = {0, 5 * 1000 * 1000};
	const uint64_t stats_every =
	    (uint64_t)(o->stats_period * (double)pg.hz);

	for (unsigned i = 0; i < n_dp; i++)
		have_rx |= lcores[dp_lcores[i]]->nrx > 0;
	last_print = last_stats = last_sjson = pg.t0;
	for (;;) {
		uint64_t now;

		nanosleep(&tick, NULL);
		now = lr_get_tsc_cycles();
		if (atomic_load(&pg.state) == PG_STOP)
			break;
		if (o->ctl_path && pg_ctl_poll())
			ctl_quits++;
		/* A stop signal while sending ends the sending and starts the
		 * drain; one during the drain (the first or a second one)
		 * ends the drain at once: the user asked to stop. */
		if (draining &&
		    lr_eal_stop_requested() + ctl_quits > stops_at_drain) {
			atomic_store(&pg.state, PG_STOP);
			break;
		}
		if (!draining &&
		    (lr_eal_stop_requested() + ctl_quits > 0 ||
		     (ntxqs > 0 && all_tx_done()) ||
		     (ntxqs == 0 && pg.end_tsc && now >= pg.end_tsc))) {
			draining = true;
			drain_start = now;
			stops_at_drain = lr_eal_stop_requested() + ctl_quits;
			atomic_store(&pg.state, PG_TX_STOP);
			if (!o->quiet && have_rx && o->drain_ms >= 1000)
				note("sending done: receiving for up to %u ms "
				     "(Ctrl-C ends it)",
				     o->drain_ms);
		}
		if (draining &&
		    (!have_rx || now - drain_start >= drain ||
		     (o->drain_all && all_tx_done() && all_back())) &&
		    all_tx_done()) {
			atomic_store(&pg.state, PG_STOP);
			break;
		}
		/* Frames the port keeps refusing must not hold us forever. */
		if (draining && now - drain_start >= drain + pg.hz) {
			atomic_store(&pg.state, PG_STOP);
			break;
		}
		if (screen_on)
			screen_tick(now);
		else if (!o->quiet && !o->rfc2544 && now - last_print >= pg.hz)
			print_live(now);
		if (stats_json && now - last_sjson >= pg.hz) {
			stats_json_line(now);
			last_sjson = now;
		}
		if (stats_every && now - last_stats >= stats_every) {
			print_stats_lines();
			last_stats = now;
		}
		if (now - last_shrink >= pg.hz / 10) {
			lr_mempool_shrink_idle(pg.pool);
			last_shrink = now;
		}
	}
	t_stop = lr_get_tsc_cycles();
}

static void *
control_thread(void *arg)
{
	(void)arg;
	control_loop();
	return NULL;
}

void
pg_run_lcores(void)
{
	const struct pg_opts *o = &pg.o;
	bool ctl_thread = false;
	pthread_t ctl;

	pg.t0 = lr_get_tsc_cycles();
	pg.end_tsc = o->duration > 0
			 ? pg.t0 + (uint64_t)(o->duration * (double)pg.hz)
			 : 0;
	atomic_store(&pg.go, 1);
	if (dp_lcores[0] != lr_get_main_lcore()) {
		for (unsigned i = 0; i < n_dp; i++)
			lr_eal_remote_launch(
			    pg_lcore_loop, lcores[dp_lcores[i]], dp_lcores[i]);
		control_loop();
		lr_eal_mp_wait_lcore();
		return;
	}
	if (pthread_create(&ctl, NULL, control_thread, NULL) != 0) {
		pg_fail("cannot start the control thread");
		atomic_store(&pg.state, PG_STOP);
	} else {
		ctl_thread = true;
	}
	pg_lcore_loop(lcores[dp_lcores[0]]);
	if (ctl_thread)
		pthread_join(ctl, NULL);
}

void
pg_drain_ports(void)
{
	struct lr_mbuf *pkts[PG_MAX_BURST];

	for (int round = 0; round < 1000; round++) {
		unsigned got = 0;

		for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++)
			for (uint16_t q = 0; ports[p].used && q < ports[p].nq;
			     q++) {
				uint16_t n =
				    lr_eth_rx_burst(p, q, pkts, PG_MAX_BURST);

				lr_pktmbuf_free_bulk(pkts, n);
				got += n;
			}
		if (got == 0)
			break;
	}
}

/* Totals over everything, for the summary and the final line. */
struct totals {
	uint64_t tx, txb, rx, rxb, rx_own, tx_own, tx_drop, tx_nombuf;
	uint64_t rx_all, rx_other, behind;
	uint64_t unique, reordered, dup, late, foreign;
	uint64_t lost;
	unsigned stalled; /* queues whose port stopped taking frames */
	double secs;
	double cpu_s, wall_s; /* datapath lcores, summed */
	uint64_t busy_tsc, busy_frames; /* --record-core-cycles, summed */
	struct pg_lat lat;
};

static void
compute_totals(struct totals *t)
{
	uint64_t first = 0, last = 0;
	bool have_rx = false;

	memset(t, 0, sizeof(*t));
	t->lat.min = UINT64_MAX;
	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++) {
		have_rx |= ports[p].used && ports[p].rx;
		for (uint16_t q = 0; ports[p].used && q < ports[p].nq; q++) {
			const struct pg_counters *c = &ports[p].cnt[q];

			t->tx += c->tx_pkts;
			t->txb += c->tx_bytes;
			t->rx += c->rx_own;
			t->rxb += c->rx_own_bytes;
			t->rx_all += c->rx_pkts;
			t->behind += c->tx_behind;
			t->rx_own += c->rx_own;
			t->tx_own += c->tx_own;
			t->tx_drop += c->tx_drop;
			t->tx_nombuf += c->tx_nombuf;
		}
	}
	for (unsigned i = 0; i < ntxqs; i++) {
		t->stalled += txqs[i]->stall_tsc != 0;
		if (txqs[i]->first_tsc == 0)
			continue;
		if (first == 0 || txqs[i]->first_tsc < first)
			first = txqs[i]->first_tsc;
		if (txqs[i]->last_tsc > last)
			last = txqs[i]->last_tsc;
	}
	for (unsigned i = 0; i < n_dp; i++) {
		struct pg_lcore *lc = lcores[dp_lcores[i]];

		for (unsigned s = 0; s < pg.nstreams; s++) {
			t->unique += lc->win[s].unique;
			t->reordered += lc->win[s].reordered;
			t->dup += lc->win[s].dup;
			t->late += lc->win[s].late;
		}
		t->foreign += lc->rx_foreign_stream;
		t->cpu_s += (double)lc->cpu_ns / 1e9;
		t->wall_s += (double)lc->wall_ns / 1e9;
		t->busy_tsc += lc->busy_tsc;
		t->busy_frames += lc->busy_frames;
		pg_lat_merge(&t->lat, &lc->lat);
	}
	/* Sending time: from the first burst that left to the last one (a
	 * paced queue's schedule starts at its lcore's first poll, which a
	 * busy host delays), else from the start. */
	if (first != 0 && last > first)
		t->secs = (double)(last - first) / (double)pg.hz;
	else if (last > pg.t0)
		t->secs = (double)(last - pg.t0) / (double)pg.hz;
	else
		t->secs = (double)(t_stop - pg.t0) / (double)pg.hz;
	if (t->tx > 0 && last <= pg.t0)
		t->secs = 1e-9;
	t->lost = have_rx && t->tx_own > t->unique ? t->tx_own - t->unique : 0;
	t->rx_other = t->rx_all - t->rx;
}

static double
us(double cycles)
{
	return cycles * 1e6 / (double)pg.hz;
}

/* A stream definition's figures, over its instances and the lcores. */
struct sstats {
	uint64_t tx, txb, unique, dup, reordered, late, lost;
	double jitter; /* cycles: the largest of its instances' */
	struct pg_lat lat;
};

static const struct sstats *
sdef_stats(unsigned k)
{
	static struct sstats ss;
	bool have_rx = false;

	memset(&ss, 0, sizeof(ss));
	ss.lat.min = UINT64_MAX;
	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++)
		have_rx |= ports[p].used && ports[p].rx;
	for (unsigned i = 0; i < ntxqs; i++) {
		const struct pg_txq *q = txqs[i];

		if (q->sdef != k)
			continue;
		ss.tx += q->scnt.tx_own;
		ss.txb += q->scnt.tx_bytes;
		for (unsigned l = 0; l < n_dp; l++) {
			const struct pg_seqwin *w =
			    &lcores[dp_lcores[l]]->win[q->stream];

			ss.unique += w->unique;
			ss.dup += w->dup;
			ss.reordered += w->reordered;
			ss.late += w->late;
			ss.jitter = LR_MAX(ss.jitter, (double)w->jitter16 / 16);
		}
	}
	for (unsigned l = 0; l < n_dp; l++)
		pg_lat_merge(&ss.lat, &lcores[dp_lcores[l]]->slat[k]);
	ss.lost = have_rx && ss.tx > ss.unique ? ss.tx - ss.unique : 0;
	return &ss;
}

/* Whether a queue of port p gave up on it (the port stopped taking
 * frames); the earliest time into the run its refusal began and the
 * longest it lasted, in seconds. */
static bool
port_stall(uint16_t p, double *since, double *secs)
{
	bool any = false;

	*since = *secs = 0;
	for (unsigned i = 0; i < ntxqs; i++) {
		const struct pg_txq *q = txqs[i];
		double s, d;

		if (q->port != p || q->stall_tsc == 0)
			continue;
		s = (double)(q->stall_since - pg.t0) / (double)pg.hz;
		d = (double)q->stall_tsc / (double)pg.hz;
		if (!any || s < *since)
			*since = s;
		*secs = LR_MAX(*secs, d);
		any = true;
	}
	return any;
}

/* A line for every port that stopped taking frames; how many. */
static unsigned
print_stalls(void)
{
	unsigned n = 0;
	double since, secs;

	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++) {
		if (!ports[p].used || !port_stall(p, &since, &secs))
			continue;
		printf("port %u (%s): transmit refused every frame for %.2f s "
		       "(from %.3f s into the run): the port stopped taking "
		       "frames\n",
		       p, ports[p].name, secs, since);
		n++;
	}
	fflush(stdout);
	return n;
}

/* The ports that stopped taking frames, for the JSON results. */
static json_t *
json_stalls(void)
{
	json_t *a = json_array();
	double since, secs;

	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++)
		if (ports[p].used && port_stall(p, &since, &secs))
			json_array_append_new(
			    a, json_pack("{s:i, s:s, s:f, s:f}", "port", p,
					 "name", ports[p].name, "since_s",
					 since, "refused_s", secs));
	return a;
}

static void
print_summary(const struct totals *t, unsigned leaked)
{
	const struct pg_lat *l = &t->lat;

	printf("\n=== lr-pktgen summary (%.3f s sending) ===\n", t->secs);
	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++) {
		const struct port_info *pi = &ports[p];
		uint64_t tx, txb, rx, rxb, other;

		if (!pi->used)
			continue;
		port_sums(p, &tx, &txb, &rx, &rxb, &other);
		printf("port %u (%s): tx %llu frames %llu bytes, rx %llu "
		       "frames %llu bytes of ours and %llu frames not ours; "
		       "port counters: imissed %llu ierrors %llu oerrors %llu "
		       "rx_nombuf %llu\n",
		       p, pi->name, (unsigned long long)tx,
		       (unsigned long long)txb, (unsigned long long)rx,
		       (unsigned long long)rxb, (unsigned long long)other,
		       (unsigned long long)pi->stats.imissed,
		       (unsigned long long)pi->stats.ierrors,
		       (unsigned long long)pi->stats.oerrors,
		       (unsigned long long)pi->stats.rx_nombuf);
	}
	printf("rate: tx %.3f Mpps %.3f Gb/s, rx %.3f Mpps %.3f Gb/s of ours "
	       "(wire bits: frame + 4 FCS + 20 preamble/gap)\n",
	       (double)t->tx / t->secs / 1e6, wire_gbps(t->tx, t->txb, t->secs),
	       (double)t->rx / t->secs / 1e6,
	       wire_gbps(t->rx, t->rxb, t->secs));
	if (any_paced) {
		char r[96];

		rate_vs_target(r, sizeof(r), t->tx, t->txb, t->secs);
		if (t->behind)
			printf("rate missed: %s (%llu frames behind the "
			       "schedule)\n",
			       r, (unsigned long long)t->behind);
		else if (t->stalled)
			printf("rate missed: %s until a port stopped taking "
			       "frames\n",
			       r);
		else
			printf("rate: %s, on schedule\n", r);
	}
	if (t->rx_other)
		printf("frames not ours: %llu (another run or generator, or "
		       "a port's own frames)\n",
		       (unsigned long long)t->rx_other);
	printf("streams: %u; own frames sent %llu, received %llu (unique "
	       "%llu), lost %llu, reordered %llu (of which below the window "
	       "%llu), duplicates %llu\n",
	       pg.nstreams, (unsigned long long)t->tx_own,
	       (unsigned long long)t->rx_own, (unsigned long long)t->unique,
	       (unsigned long long)t->lost, (unsigned long long)t->reordered,
	       (unsigned long long)t->late, (unsigned long long)t->dup);
	for (unsigned k = 0; k < pg.nsdefs; k++) {
		const struct sstats *ss = sdef_stats(k);
		const struct pg_lat *sl = &ss->lat;

		printf("stream %u '%s': tx %llu frames, rx %llu frames, lost "
		       "%llu, reordered %llu, duplicates %llu; ",
		       k, pg.sdefs[k].name, (unsigned long long)ss->tx,
		       (unsigned long long)(ss->unique + ss->dup),
		       (unsigned long long)ss->lost,
		       (unsigned long long)ss->reordered,
		       (unsigned long long)ss->dup);
		if (sl->n == 0)
			printf("no latency (nothing came back)\n");
		else
			printf("latency (us) min %.3f avg %.3f p50 %.3f p99 "
			       "%.3f p99.9 %.3f max %.3f, jitter %.3f us\n",
			       us((double)sl->min),
			       us((double)sl->sum / (double)sl->n),
			       us(pg_lat_quantile(sl, 0.5)),
			       us(pg_lat_quantile(sl, 0.99)),
			       us(pg_lat_quantile(sl, 0.999)),
			       us((double)sl->max), us(ss->jitter));
	}
	printf("datapath: %u lcore(s) ran %.3f s, on a CPU %.3f s (%.0f%%): "
	       "%.3f Mpps tx per CPU-second, %.1f cycles of CPU time a frame "
	       "sent\n",
	       n_dp, t->wall_s, t->cpu_s,
	       t->wall_s > 0 ? 100 * t->cpu_s / t->wall_s : 0,
	       t->cpu_s > 0 ? (double)t->tx / t->cpu_s / 1e6 : 0,
	       t->tx > 0 ? t->cpu_s * (double)pg.hz / (double)t->tx : 0);
	/* testpmd's words, so that one parser reads both. */
	if (pg.o.record_cycles)
		printf("CPU cycles/packet=%.2f (busy cycles=%llu / frames sent "
		       "or received=%llu) at %llu MHz\n",
		       t->busy_frames ? (double)t->busy_tsc /
					    (double)t->busy_frames
				      : 0.0,
		       (unsigned long long)t->busy_tsc,
		       (unsigned long long)t->busy_frames,
		       (unsigned long long)(pg.hz / 1000000));
	if (t->tx_drop || t->tx_nombuf || t->foreign)
		printf("frames refused by ports at exit %llu, bursts without "
		       "mbufs %llu, frames of unknown streams %llu\n",
		       (unsigned long long)t->tx_drop,
		       (unsigned long long)t->tx_nombuf,
		       (unsigned long long)t->foreign);
	if (l->n == 0) {
		printf("latency: no frames of ours came back\n");
	} else {
		uint64_t coarse[65] = {0};

		printf("latency (us) over %llu frames: min %.3f avg %.3f max "
		       "%.3f p50 %.3f p99 %.3f p99.9 %.3f\n",
		       (unsigned long long)l->n, us((double)l->min),
		       us((double)l->sum / (double)l->n), us((double)l->max),
		       us(pg_lat_quantile(l, 0.5)),
		       us(pg_lat_quantile(l, 0.99)),
		       us(pg_lat_quantile(l, 0.999)));
		for (unsigned b = 0; b < PG_LAT_BUCKETS; b++) {
			uint64_t lo = pg_lat_bucket_lo(b);

			coarse[lo ? 64 - __builtin_clzll(lo) : 0] += l->hist[b];
		}
		printf("latency histogram (us):\n");
		for (unsigned e = 0; e < 65; e++) {
			double lo = e ? (double)(1ULL << (e - 1)) : 0;
			double hi = (double)(1ULL << (e < 64 ? e : 63)) *
				    (e < 64 ? 1 : 2);
			double pct = 100.0 * (double)coarse[e] / (double)l->n;

			if (coarse[e] == 0)
				continue;
			printf("  %11.3f .. %11.3f  %12llu  %5.1f%% ", us(lo),
			       us(hi), (unsigned long long)coarse[e], pct);
			for (int k = 0; k < (int)(pct / 2); k++)
				putchar('#');
			putchar('\n');
		}
	}
	pg_l3_print(stdout);
	printf("mbufs in use after stop: %u\n", leaked);
}

/* jansson: objects built with json_pack, one call a level. */
static const char *const rate_mode_name[] = {"max", "pps", "mbps", "pct"};
static const char *const rate_mode_unit[] = {"", "frames/s", "Mbit/s",
					     "% of line rate"};

static const char *const vmode_name[] = {"inc", "dec", "random"};
static const char *const l4_name[] = {"udp", "tcp", "icmp"};

/* A stream definition as the run uses it. */
static json_t *
json_sdef(unsigned k)
{
	const struct pg_sdef *d = &pg.sdefs[k];
	json_t *j, *inst = json_array(), *vars = json_array(), *size;
	static const char *const fname[PG_FV_COUNT] = {
	    "src_mac", "dst_mac",  "vlan",    "src_ip",
	    "dst_ip",  "src_port", "dst_port"};

	for (unsigned i = 0; i < ntxqs; i++)
		if (txqs[i]->sdef == k)
			json_array_append_new(
			    inst,
			    json_pack("{s:i, s:i, s:i, s:I}", "id",
				      txqs[i]->stream, "port", txqs[i]->port,
				      "queue", txqs[i]->queue, "count",
				      (json_int_t)txqs[i]->count));
	for (int f = 0; f < PG_FV_COUNT; f++)
		if (d->v[f].lo != d->v[f].hi)
			json_array_append_new(
			    vars,
			    json_pack("{s:s, s:I, s:I, s:I, s:s}", "field",
				      fname[f], "from", (json_int_t)d->v[f].lo,
				      "to", (json_int_t)d->v[f].hi, "step",
				      (json_int_t)d->v[f].step, "mode",
				      vmode_name[d->v[f].mode]));
	if (pg.o.pcap_file) {
		size = json_pack("{s:s, s:s, s:i}", "mode", "pcap", "file",
				 pg.o.pcap_file, "frames", pcap_n);
	} else if (d->slots) {
		json_t *sl = json_array();

		for (unsigned i = 0; i < d->nslots; i++)
			json_array_append_new(sl, json_integer(d->slots[i]));
		size = json_pack("{s:s, s:o, s:s}", "mode", "table", "slots",
				 sl, "order", vmode_name[d->size.mode]);
	} else {
		size = json_pack("{s:s, s:I, s:I, s:I, s:s}", "mode",
				 d->size.lo == d->size.hi ? "fixed" : "range",
				 "min", (json_int_t)d->size.lo, "max",
				 (json_int_t)d->size.hi, "step",
				 (json_int_t)d->size.step, "order",
				 vmode_name[d->size.mode]);
	}
	j = json_pack("{s:i, s:s, s:s, s:s, s:i, s:o, s:o, s:o}", "id", k,
		      "name", d->name, "l3", d->ipv6 ? "ipv6" : "ipv4", "l4",
		      l4_name[d->l4], "vlan_tags", d->ntags, "size", size,
		      "fields", vars, "instances", inst);
	if (d->rate_mode == PG_RATE_PPS)
		json_object_set_new(j, "rate_pps", json_real(d->rate));
	else if (d->rate_mode == PG_RATE_MBPS)
		json_object_set_new(j, "rate_mbps", json_real(d->rate));
	else
		json_object_set_new(j, "share", json_real(d->share));
	if (d->count)
		json_object_set_new(j, "count",
				    json_integer((json_int_t)d->count));
	if (d->burst)
		json_object_set_new(j, "burst",
				    json_pack("{s:I, s:I, s:f}", "frames",
					      (json_int_t)d->burst, "bursts",
					      (json_int_t)d->bursts, "gap_us",
					      d->gap_us));
	return j;
}

/* The run as asked: ports, rate, sizes, limits, streams. */
static json_t *
json_config(void)
{
	const struct pg_opts *o = &pg.o;
	json_t *jp = json_array(), *js = json_array();

	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++) {
		const struct port_info *pi = &ports[p];

		if (pi->used)
			json_array_append_new(
			    jp, json_pack("{s:i, s:s, s:b, s:b, s:i}", "port",
					  p, "name", pi->name, "tx", pi->tx,
					  "rx", pi->rx, "queues", pi->nq));
	}
	for (unsigned k = 0; k < pg.nsdefs; k++)
		json_array_append_new(js, json_sdef(k));
	return json_pack(
	    "{s:I, s:i, s:o, s:{s:s, s:f, s:s, s:f}, s:I, s:f, s:i, "
	    "s:i, s:f, s:o}",
	    "run_id", (json_int_t)pg.run_id, "lcores", n_dp, "ports", jp,
	    "rate", "mode", rate_mode_name[o->rate_mode], "value",
	    o->rate_mode == PG_RATE_MAX ? 0.0 : o->rate, "unit",
	    rate_mode_unit[o->rate_mode], "line_rate_gbps", o->line_rate_gbps,
	    "count", (json_int_t)o->count, "duration_s", o->duration, "burst",
	    o->burst, "drain_ms", o->drain_ms, "bucket_ms", o->bucket_ms,
	    "streams", js);
}

static json_t *
json_latency(const struct pg_lat *l)
{
	json_t *j = json_pack("{s:I}", "n", (json_int_t)l->n), *h;

	if (l->n == 0)
		return j;
	json_object_set_new(j, "min", json_real(us((double)l->min)));
	json_object_set_new(j, "avg",
			    json_real(us((double)l->sum / (double)l->n)));
	json_object_set_new(j, "max", json_real(us((double)l->max)));
	json_object_set_new(j, "p50", json_real(us(pg_lat_quantile(l, 0.5))));
	json_object_set_new(j, "p99", json_real(us(pg_lat_quantile(l, 0.99))));
	json_object_set_new(j, "p999",
			    json_real(us(pg_lat_quantile(l, 0.999))));
	h = json_array();
	for (unsigned b = 0; b < PG_LAT_BUCKETS; b++) {
		if (l->hist[b] == 0)
			continue;
		json_array_append_new(
		    h, json_pack("{s:f, s:f, s:I}", "lo",
				 us((double)pg_lat_bucket_lo(b)), "hi",
				 us((double)(b + 1 < PG_LAT_BUCKETS
						 ? pg_lat_bucket_lo(b + 1)
						 : UINT64_MAX)),
				 "count", (json_int_t)l->hist[b]));
	}
	json_object_set_new(j, "histogram", h);
	return j;
}

/* Per stream definition: sent, back, lost, reordered, duplicates,
 * latency, jitter. */
static json_t *
json_streams(void)
{
	json_t *a = json_array();

	for (unsigned k = 0; k < pg.nsdefs; k++) {
		const struct sstats *ss = sdef_stats(k);
		json_t *j = json_pack(
		    "{s:i, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f}", "id",
		    k, "name", pg.sdefs[k].name, "tx", (json_int_t)ss->tx,
		    "tx_bytes", (json_int_t)ss->txb, "rx",
		    (json_int_t)(ss->unique + ss->dup), "lost",
		    (json_int_t)ss->lost, "reordered",
		    (json_int_t)ss->reordered, "late", (json_int_t)ss->late,
		    "dup", (json_int_t)ss->dup, "jitter_us", us(ss->jitter));

		json_object_set_new(j, "latency_us", json_latency(&ss->lat));
		json_array_append_new(a, j);
	}
	return a;
}

/* The one JSON document of --json, on the saved stdout. */
static void
print_json(const struct totals *t, unsigned leaked)
{
	json_t *res, *jp = json_array(), *doc;

	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++) {
		const struct port_info *pi = &ports[p];
		uint64_t tx, txb, rx, rxb, other;

		if (!pi->used)
			continue;
		port_sums(p, &tx, &txb, &rx, &rxb, &other);
		json_array_append_new(
		    jp,
		    json_pack("{s:i, s:s, s:I, s:I, s:I, s:I, s:I, s:I, "
			      "s:I, s:I, s:I}",
			      "port", p, "name", pi->name, "tx", (json_int_t)tx,
			      "tx_bytes", (json_int_t)txb, "rx", (json_int_t)rx,
			      "rx_bytes", (json_int_t)rxb, "rx_other",
			      (json_int_t)other, "imissed",
			      (json_int_t)pi->stats.imissed, "ierrors",
			      (json_int_t)pi->stats.ierrors, "oerrors",
			      (json_int_t)pi->stats.oerrors, "rx_nombuf",
			      (json_int_t)pi->stats.rx_nombuf));
	}
	res = json_pack(
	    "{s:f, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, "
	    "s:I, s:I, s:f, s:f, s:f, s:f, s:b, s:i, s:f, s:f}",
	    "elapsed_s", t->secs, "tx", (json_int_t)t->tx, "tx_bytes",
	    (json_int_t)t->txb, "rx", (json_int_t)t->rx, "rx_bytes",
	    (json_int_t)t->rxb, "rx_own", (json_int_t)t->rx_own, "rx_other",
	    (json_int_t)t->rx_other, "tx_own", (json_int_t)t->tx_own, "lost",
	    (json_int_t)t->lost, "reordered", (json_int_t)t->reordered, "late",
	    (json_int_t)t->late, "dup", (json_int_t)t->dup, "tx_dropped",
	    (json_int_t)t->tx_drop, "tx_behind", (json_int_t)t->behind,
	    "tx_mpps", (double)t->tx / t->secs / 1e6, "rx_mpps",
	    (double)t->rx / t->secs / 1e6, "tx_gbps",
	    wire_gbps(t->tx, t->txb, t->secs), "rx_gbps",
	    wire_gbps(t->rx, t->rxb, t->secs), "rate_missed",
	    t->behind != 0 || t->stalled, "mbufs_leaked", leaked, "cpu_s",
	    t->cpu_s, "lcore_wall_s", t->wall_s);
	json_object_set_new(res, "ports", jp);
	json_object_set_new(res, "latency_us", json_latency(&t->lat));
	json_object_set_new(res, "streams", json_streams());
	json_object_set_new(res, "stalls", json_stalls());
	if (pg.l3)
		json_object_set_new(res, "l3", pg_l3_json());
	doc = json_pack("{s:o, s:o}", "config", json_config(), "results", res);
	if (doc == NULL ||
	    json_dumpf(doc, json_out,
		       JSON_INDENT(1) | JSON_REAL_PRECISION(10)) != 0 ||
	    fputc('\n', json_out) == EOF || fflush(json_out) != 0)
		pg_fail("--json: cannot write the JSON document to %s",
			pg.o.json_file ? pg.o.json_file : "stdout");
	json_decref(doc);
}

json_t *
pg_ctl_stats(void)
{
	json_t *jp = json_array(), *js = json_array(), *r;
	uint64_t now = lr_get_tsc_cycles();

	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++) {
		uint64_t tx, txb, rx, rxb, other;

		if (!ports[p].used)
			continue;
		port_sums(p, &tx, &txb, &rx, &rxb, &other);
		json_array_append_new(
		    jp,
		    json_pack("{s:i, s:I, s:I, s:I, s:I, s:I}", "port", p, "tx",
			      (json_int_t)tx, "tx_bytes", (json_int_t)txb, "rx",
			      (json_int_t)rx, "rx_bytes", (json_int_t)rxb,
			      "rx_other", (json_int_t)other));
	}
	/* Per stream: the frames sent so far and its own rate, if any. */
	for (unsigned k = 0; k < pg.nsdefs; k++) {
		const struct pg_sdef *d = &pg.sdefs[k];
		uint64_t tx = 0;
		json_t *j;

		for (unsigned i = 0; i < ntxqs; i++)
			if (txqs[i]->sdef == k)
				tx +=
				    atomic_load_explicit(&txqs[i]->scnt.tx_pkts,
							 memory_order_relaxed);
		j = json_pack("{s:i, s:s, s:I}", "id", k, "name", d->name, "tx",
			      (json_int_t)tx);
		if (d->rate_mode != PG_RATE_MAX)
			json_object_set_new(j,
					    d->rate_mode == PG_RATE_PPS
						? "rate_pps"
						: "rate_mbps",
					    json_real(d->rate));
		json_array_append_new(js, j);
	}
	r = json_pack("{s:f, s:o, s:o, s:I, s:s, s:f, s:s}", "t",
		      (double)(now - pg.t0) / (double)pg.hz, "ports", jp,
		      "streams", js, "tx_behind", (json_int_t)behind_sum(),
		      "rate_mode", rate_mode_name[pg.o.rate_mode], "rate",
		      pg.o.rate_mode == PG_RATE_MAX ? 0.0 : pg.o.rate, "state",
		      send_state());
	if (r != NULL && pg.l3)
		json_object_set_new(r, "l3", pg_l3_json());
	return r;
}

/* Give instance i the rate pps or bps: its costs, then its rate_gen
 * moved on (release) for its lcore to take them. */
static void
inst_set_rate(unsigned i, double pps, double bps)
{
	struct pg_txq *q = txqs[i];
	const struct pg_sdef *d = &pg.sdefs[q->sdef];
	double hz = (double)pg.hz;

	if (!(d->burst && d->gap_us > 0)) {
		target_pps += pps - inst_pps[i];
		target_bps += bps - inst_bps[i];
	}
	inst_pps[i] = pps;
	inst_bps[i] = bps;
	atomic_store_explicit(
	    &q->new_pkt_cost,
	    pps > 0 ? (uint64_t)(hz * (1 << PG_FP_SHIFT) / pps + 0.5) : 0,
	    memory_order_relaxed);
	atomic_store_explicit(
	    &q->new_byte_cost,
	    bps > 0 ? (uint64_t)(hz * 8 * (1 << PG_FP_SHIFT) / bps + 0.5) : 0,
	    memory_order_relaxed);
	atomic_fetch_add_explicit(&q->rate_gen, 1, memory_order_release);
}

int
pg_ctl_set_rate(int mode, double v, int stream, char *err, size_t n)
{
	static const double lo[] = {0, 1, 0.001, 0.0001};
	static const double hi[] = {0, 1e10, 1e7, 100};
	struct pg_opts *o = &pg.o;
	struct pg_sdef *sd = stream >= 0 ? &pg.sdefs[stream] : NULL;
	char which[PG_NAME_MAX + 32] = "";
	double was;

	if (sd != NULL && sd->rate_mode == PG_RATE_MAX) {
		snprintf(err, n,
			 "rate: stream %d '%s' has no rate of its own (it "
			 "takes a share of --rate-*: set that without "
			 "\"stream\")",
			 stream, sd->name);
		return -1;
	}
	if (sd != NULL && mode != (int)sd->rate_mode) {
		snprintf(err, n, "rate: stream %d '%s' has its rate in %s",
			 stream, sd->name, rate_mode_name[sd->rate_mode]);
		return -1;
	}
	if (sd == NULL && (o->rate_mode == PG_RATE_MAX || wsum == 0)) {
		snprintf(err, n,
			 "rate: the run was started without --rate-* "
			 "(or every stream has a rate of its own): "
			 "nothing to change");
		return -1;
	}
	if (sd == NULL && mode != (int)o->rate_mode) {
		snprintf(err, n, "rate: the run's rate is in %s",
			 rate_mode_name[o->rate_mode]);
		return -1;
	}
	if (!(v >= lo[mode] && v <= hi[mode])) {
		snprintf(err, n, "rate: %g out of range %g..%g", v, lo[mode],
			 hi[mode]);
		return -1;
	}
	if (sd != NULL) {
		was = sd->rate;
		sd->rate = v;
		snprintf(which, sizeof(which), " for stream %d '%s'", stream,
			 sd->name);
	} else {
		was = o->rate;
		o->rate = v;
	}
	for (unsigned i = 0; i < ntxqs; i++) {
		struct pg_txq *q = txqs[i];
		const struct pg_sdef *d = &pg.sdefs[q->sdef];
		unsigned idx = 0, ni = sdef_instances(q->sdef, q, &idx);
		double w = d->share / ni, pps = 0, bps = 0;

		if (!q->paced || q->timed)
			continue;
		if (sd != NULL) {
			if ((int)q->sdef != stream)
				continue;
			if (mode == PG_RATE_PPS)
				pps = v / ni;
			else
				bps = v * 1e6 / ni;
		} else {
			if (d->rate_mode != PG_RATE_MAX)
				continue;
			if (mode == PG_RATE_PPS)
				pps = v * w / wsum;
			else if (mode == PG_RATE_MBPS)
				bps = v * 1e6 * w / wsum;
			else
				bps = o->line_rate_gbps * 1e9 * v / 100 * w /
				      wport[q->port];
		}
		inst_set_rate(i, pps, bps);
	}
	note("[%7.1fs] control: rate %.10g %s (was %.10g)%s",
	     (double)(lr_get_tsc_cycles() - pg.t0) / (double)pg.hz, v,
	     rate_mode_unit[mode], was, which);
	return 0;
}

void
pg_ctl_set_sending(bool on)
{
	if (on == pg_sending())
		return;
	atomic_store_explicit(&pg.paused, !on, memory_order_relaxed);
	note("[%7.1fs] control: sending %s",
	     (double)(lr_get_tsc_cycles() - pg.t0) / (double)pg.hz,
	     on ? "started" : "stopped");
}

/* --stats-json: one line a second, every port's counters so far and the
 * rates since the last line. */
static void
stats_json_line(uint64_t now)
{
	static uint64_t last_t, l_tx[LR_MAX_ETHPORTS], l_rx[LR_MAX_ETHPORTS];
	double dt = (double)(now - (last_t ? last_t : pg.t0)) / (double)pg.hz;
	json_t *jp = json_array(), *line;

	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++) {
		uint64_t tx, txb, rx, rxb, other;

		if (!ports[p].used)
			continue;
		port_sums(p, &tx, &txb, &rx, &rxb, &other);
		json_array_append_new(
		    jp,
		    json_pack(
			"{s:i, s:I, s:I, s:I, s:I, s:I, s:f, s:f}", "port", p,
			"tx", (json_int_t)tx, "tx_bytes", (json_int_t)txb, "rx",
			(json_int_t)rx, "rx_bytes", (json_int_t)rxb, "rx_other",
			(json_int_t)other, "tx_mpps",
			dt > 0 ? (double)(tx - l_tx[p]) / dt / 1e6 : 0.0,
			"rx_mpps",
			dt > 0 ? (double)(rx - l_rx[p]) / dt / 1e6 : 0.0));
		l_tx[p] = tx;
		l_rx[p] = rx;
	}
	line = json_pack("{s:f, s:o, s:I}", "t",
			 (double)(now - pg.t0) / (double)pg.hz, "ports", jp,
			 "tx_behind", (json_int_t)behind_sum());
	last_t = now;
	if (line == NULL ||
	    json_dumpf(line, stats_json,
		       JSON_COMPACT | JSON_REAL_PRECISION(10)) != 0 ||
	    fputc('\n', stats_json) == EOF || fflush(stats_json) != 0) {
		if (!stats_json_failed)
			pg_fail("--stats-json '%s': cannot write: %s",
				pg.o.stats_json_file, strerror(errno));
		stats_json_failed = true;
	}
	json_decref(line);
}

static void
print_final(const struct totals *t)
{
	const struct pg_lat *l = &t->lat;
	bool have = l->n > 0;

	printf("pktgen total: tx=%llu rx=%llu rx_own=%llu rx_other=%llu "
	       "lost=%llu reordered=%llu dup=%llu tx_behind=%llu "
	       "tx_mpps=%.4f rx_mpps=%.4f "
	       "tx_gbps=%.4f rx_gbps=%.4f lat_min_us=%.3f lat_avg_us=%.3f "
	       "lat_p50_us=%.3f lat_p99_us=%.3f lat_p999_us=%.3f "
	       "lat_max_us=%.3f elapsed_s=%.4f cpu_s=%.4f\n",
	       (unsigned long long)t->tx, (unsigned long long)t->rx,
	       (unsigned long long)t->rx_own, (unsigned long long)t->rx_other,
	       (unsigned long long)t->lost, (unsigned long long)t->reordered,
	       (unsigned long long)t->dup, (unsigned long long)t->behind,
	       (double)t->tx / t->secs / 1e6, (double)t->rx / t->secs / 1e6,
	       wire_gbps(t->tx, t->txb, t->secs),
	       wire_gbps(t->rx, t->rxb, t->secs), have ? us((double)l->min) : 0,
	       have ? us((double)l->sum / (double)l->n) : 0,
	       have ? us(pg_lat_quantile(l, 0.5)) : 0,
	       have ? us(pg_lat_quantile(l, 0.99)) : 0,
	       have ? us(pg_lat_quantile(l, 0.999)) : 0,
	       have ? us((double)l->max) : 0, t->secs, t->cpu_s);
	fflush(stdout);
}

static void
describe_run(const struct pg_opts *o)
{
	static const char *const rate_unit[] = {"max", "frames/s", "Mbit/s",
						"% of line rate"};
	unsigned np = 0;

	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++)
		np += ports[p].used;
	printf("lr-pktgen: %u port(s), %u lcore(s), %u stream(s) on %u "
	       "queue(s), ",
	       np, n_dp, pg.nsdefs, pg.nstreams);
	if (o->profile)
		printf("profile %s", o->profile);
	else if (o->replay)
		printf("replaying %u frames of %s at %g times their capture's "
		       "speed (a loop: %.6f s)",
		       pcap_n, o->pcap_file, o->speed,
		       (double)txqs[0]->loop_fp / (double)(1u << PG_FP_SHIFT) /
			   (double)pg.hz);
	else if (o->pcap_file)
		printf("replaying %u frames of %s", pcap_n, o->pcap_file);
	else if (o->size_mode == PG_SIZE_IMIX)
		printf("IMIX 64/570/1518 7:4:1");
	else if (o->size_mode == PG_SIZE_RANGE)
		printf("sizes %llu-%llu step %llu%s",
		       (unsigned long long)o->f[PG_F_SIZE].lo,
		       (unsigned long long)o->f[PG_F_SIZE].hi,
		       (unsigned long long)o->f[PG_F_SIZE].step,
		       o->random ? " random" : "");
	else
		printf("%llu-byte frames",
		       (unsigned long long)o->f[PG_F_SIZE].lo);
	if (o->rate_mode == PG_RATE_MAX)
		printf(", rate max");
	else
		printf(", rate %.10g %s", o->rate, rate_unit[o->rate_mode]);
	if (o->count)
		printf(", count %llu", (unsigned long long)o->count);
	if (o->duration > 0)
		printf(", duration %g s", o->duration);
	printf("\n");
	fflush(stdout);
}

/* --json: the document alone on stdout (everything else, the EAL's and
 * the drivers' lines too, goes to stderr), or --json FILE into FILE; 0, or
 * -1 after saying why not. */
static int
json_open(const struct pg_opts *o)
{
	int fd;

	if (o->json_file) {
		json_out = fopen(o->json_file, "w");
		if (json_out == NULL)
			return pg_fail("--json '%s': cannot create: %s",
				       o->json_file, strerror(errno));
		return 0;
	}
	fd = dup(STDOUT_FILENO);
	fflush(stdout);
	json_out = fd < 0 ? NULL : fdopen(fd, "w");
	if (json_out == NULL || dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
		return pg_fail("--json: cannot set stdout aside: %s",
			       strerror(errno));
	return 0;
}

FILE *
pg_json_stream(void)
{
	return json_out;
}

json_t *
pg_json_config(void)
{
	return json_config();
}

/* --pcap/--replay: the frames of the file and their send times; the
 * longest into *max_len. 0 or -1 after a message. */
static int
load_pcap(const struct pg_opts *o, unsigned *max_len)
{
	int ret = pg_pcap_load(o->pcap_file, &pcap_tmpl, PG_MAX_SIZE - PG_FCS);

	if (ret < 0)
		return -1;
	pcap_n = (unsigned)ret;
	*max_len = 0;
	for (unsigned i = 0; i < pcap_n; i++) {
		pcap_tmpl[i].t_fp =
		    (uint64_t)((double)pcap_tmpl[i].t_us * 1e-6 / o->speed *
			       (double)pg.hz * (double)(1u << PG_FP_SHIFT));
		*max_len = LR_MAX(*max_len, pcap_tmpl[i].len);
	}
	return 0;
}

/* What the command line names: the ports of --vdev, the streams
 * (--profile or the frame options), the ports and queues they use,
 * --pcap's frames; the longest frame into *max_len. 0, or the exit status
 * after a message: a usage error, but where the EAL, a driver or memory
 * says otherwise. */
static int
setup_inputs(struct pg_opts *o, unsigned *max_len)
{
	int ret = lr_eth_dev_probe_eal_vdevs();

	if (ret < 0)
		return lr_app_cmdline_status(ret);
	if (o->profile) {
		ret = pg_profile_load(o->profile, &pg.sdefs);
		if (ret < 0)
			return ret == -ENOMEM ? LR_EXIT_FAILURE : LR_EXIT_USAGE;
		pg.nsdefs = (unsigned)ret;
	} else {
		pg.sdefs = &o->cli;
		pg.nsdefs = 1;
	}
	if (select_ports(o) != 0)
		return LR_EXIT_USAGE;
	ret = assign_queues();
	if (ret != 0)
		return ret;
	*max_len = 0;
	for (unsigned k = 0; k < pg.nsdefs; k++)
		*max_len = LR_MAX(*max_len, pg_sdef_max_len(&pg.sdefs[k]));
	if (o->pcap_file && load_pcap(o, max_len) != 0)
		return LR_EXIT_USAGE;
	if (o->rfc2544)
		*max_len = LR_MAX(*max_len, pg_rfc2544_max_len());
	return 0;
}

/* --ctl, --stats-json, --capture: 0 or -1 after a message. */
static int
setup_outputs(const struct pg_opts *o)
{
	if (o->ctl_path) {
		if (pg_ctl_open(o) != 0)
			return -1;
		printf("lr-pktgen: control socket %s\n", o->ctl_path);
		fflush(stdout);
	}
	if (o->stats_json_file) {
		stats_json = fopen(o->stats_json_file, "w");
		if (stats_json == NULL)
			return pg_fail("--stats-json '%s': cannot create: %s",
				       o->stats_json_file, strerror(errno));
	}
	if (o->capture_file) {
		if (pg_capture_open(o->capture_file, o->capture_mode) != 0)
			return -1;
		pg.capture = true;
	}
	return 0;
}

/* The pools, the ports and their queues, the streams and their frames,
 * the links, L3 mode and the outputs: 0, or -1 after a message (a
 * run-time failure). */
static int
setup_run(const struct pg_opts *o, unsigned max_len)
{
	if (setup_pool(o, max_len) != 0 || setup_rx_pool(o, max_len) != 0 ||
	    setup_ports(o) != 0 || setup_tx_pools(o, max_len) != 0 ||
	    setup_streams(o) != 0)
		return -1;
	/* L3 mode patches the templates once the links are up (setup_l3),
	 * the stamps go after that; else the frames are final here, and
	 * prebuilt before the ports start. */
	if (!l3_wanted(o)) {
		if (o->no_stamp)
			unstamp_all();
		if (setup_prebuilt(o) != 0)
			return -1;
	}
	if (start_ports() != 0 || wait_links(o) != 0 || setup_l3() != 0)
		return -1;
	if (l3_wanted(o) && o->no_stamp)
		unstamp_all();
	return setup_outputs(o);
}

/* Say what runs (unless --quiet) and set the screen up: 0 or -1 after a
 * message. */
static int
announce(const struct pg_opts *o)
{
	if (!o->quiet && !o->rfc2544)
		describe_run(o);
	if (o->stats_period > 0) {
		printf("stats period_s=%g tsc_hz=%llu\n", o->stats_period,
		       (unsigned long long)pg.hz);
		fflush(stdout);
	}
	if (o->idle) {
		atomic_store(&pg.paused, 1);
		if (!o->quiet) {
			printf("lr-pktgen: idle: sending starts with a "
			       "\"start\" request on %s\n",
			       o->ctl_path);
			fflush(stdout);
		}
	}
	screen_on = pg_screen_wanted(o);
	if (screen_on && screen_setup() != 0)
		return -1;
	return 0;
}

/* Send and receive until the run ends (count, duration, signal, "quit"),
 * then drain: every mbuf back, the ports' own counters read. */
static void
run(const struct pg_opts *o)
{
	pg_run_lcores();
	if (screen_on)
		screen_final();
	else if (!o->quiet && t_stop - last_print > pg.hz / 4)
		print_live(t_stop);
	/* The ports' own view of the run, before draining adds to it. */
	if (o->xstats) {
		for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++)
			if (ports[p].used)
				lr_eth_dev_dump(stdout, p);
		print_pool_xstats();
	}
	/* Stop: every mbuf back, ports closed, then the figures. */
	pg_drain_ports();
	for (unsigned i = 0; i < ntxqs; i++)
		pg_txq_release(txqs[i]);
	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++)
		if (ports[p].used)
			lr_eth_stats_get(p, &ports[p].stats);
}

/* Mbufs not back at exit: in the shared pool, the queues' own pools, the
 * receive pool. */
static unsigned pool_leaked, tx_leaked, rx_leaked;

/* Pool mp (NULL: none) at exit, named name: *n its mbufs not back; 0 when
 * they all are and its accounting holds, else -1 after a message. */
static int
pool_check(struct lr_mempool *mp, const char *name, unsigned *n)
{
	*n = mp != NULL ? lr_mempool_in_use_count(mp) : 0;
	if (mp == NULL)
		return 0;
	if (*n != 0)
		return pg_fail("%u mbufs not back in pool '%s' at exit", *n,
			       name);
	if (lr_mempool_validate(mp) != 0)
		return pg_fail("pool '%s' fails validation at exit", name);
	return 0;
}

/* Close the ports, the control socket and the capture file; check the
 * pools: 0, or -1 after a message. */
static int
close_all(void)
{
	int ret = 0;

	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++)
		if (lr_eth_dev_is_valid_port(p))
			lr_eth_dev_close(p);
	pg_ctl_close();
	if (pg_capture_close() != 0)
		ret = -1;
	if (pool_check(pg.pool, "pktgen_pool", &pool_leaked) != 0)
		ret = -1;
	if (tx_pools_fini(&tx_leaked) != 0)
		ret = -1;
	if (pool_check(pg.rx_pool, "pktgen_rx_pool", &rx_leaked) != 0)
		ret = -1;
	return ret;
}

/* The figures of a run that started: the summary (or the --json
 * document), the ports that stopped taking frames and the final `pktgen
 * total:` line. 0, or -1 when a port stopped taking frames. */
static int
report(const struct pg_opts *o)
{
	unsigned leaked = pool_leaked + tx_leaked + rx_leaked;
	struct totals tot;
	bool stalled;

	compute_totals(&tot);
	if (stats_json && !stats_json_failed)
		stats_json_line(t_stop);
	if (o->json)
		print_json(&tot, leaked);
	if (o->json && !o->json_file)
		printf("mbufs in use after stop: %u\n", leaked);
	else
		print_summary(&tot, leaked);
	stalled = print_stalls() != 0;
	print_final(&tot);
	return stalled ? -1 : 0;
}

/* Free what the run held: 0, or -1 after a message when --stats-json's
 * file cannot be closed. */
static int
free_all(const struct pg_opts *o)
{
	int ret = 0;

	for (unsigned i = 0; i < ntxqs; i++) {
		pg_stream_fini(txqs[i]);
		free(txqs[i]);
	}
	for (unsigned i = 0; i < n_dp; i++) {
		free(lcores[dp_lcores[i]]->slat);
		free(lcores[dp_lcores[i]]->win);
		free(lcores[dp_lcores[i]]->snap);
		free(lcores[dp_lcores[i]]->snap_lat);
		free(lcores[dp_lcores[i]]);
	}
	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++)
		free(ports[p].cnt);
	pg_pcap_free(pcap_tmpl, pcap_n);
	for (unsigned k = 0; k < pg.nsdefs; k++)
		pg_sdef_fini(&pg.sdefs[k]);
	if (pg.sdefs != &o->cli)
		free(pg.sdefs);
	free(pg.inst_sdef);
	free(scr);
	pg_l3_fini();
	if (stats_json && (fclose(stats_json) != 0 || stats_json_failed)) {
		if (!stats_json_failed)
			pg_fail("--stats-json '%s': cannot close: %s",
				o->stats_json_file, strerror(errno));
		ret = -1;
	}
	if (json_out && fclose(json_out) != 0 && o->json_file) {
		pg_fail("--json '%s': cannot write: %s", o->json_file,
			strerror(errno));
		ret = -1;
	}
	if (pg.pool && !pool_leaked)
		lr_mempool_free(pg.pool);
	if (pg.rx_pool && !rx_leaked)
		lr_mempool_free(pg.rx_pool);
	return ret;
}

int
main(int argc, char **argv)
{
	static const struct lr_app app = {"lr-pktgen", pg_usage};
	struct pg_opts *o = &pg.o;
	unsigned max_len = 0;
	int ret, status;

	/* Before anything is taken: every stop signal (INT, TERM, HUP, PIPE,
	 * QUIT, USR1, USR2) ends in the clean exit below, during EAL init and
	 * setup too; control_loop() polls it (lr_eal.h). */
	ret = lr_eal_stop_handler_install(NULL);
	if (ret < 0) {
		pg_fail("cannot handle stop signals: %s", lr_strerror(-ret));
		return LR_EXIT_FAILURE;
	}
	ret = lr_app_eal_init(&app, argc, argv, &status);
	if (ret < 0)
		return status;
	ret = pg_parse_args(argc - ret, argv + ret, o);
	if (ret != 0) { /* 1: --help, usage printed */
		lr_eal_cleanup();
		return ret > 0 ? LR_EXIT_OK : LR_EXIT_USAGE;
	}
	if (o->json && json_open(o) != 0) {
		lr_eal_cleanup();
		return LR_EXIT_FAILURE;
	}
	pg.hz = lr_get_tsc_hz();
	/* The run's identity in every stamp. */
	if (getrandom(&pg.run_id, sizeof(pg.run_id), 0) !=
	    (ssize_t)sizeof(pg.run_id))
		pg.run_id =
		    (uint32_t)(lr_get_tsc_cycles() ^ (uint64_t)getpid() << 16);
	status = setup_inputs(o, &max_len);
	if (status == 0 && (setup_run(o, max_len) != 0 || announce(o) != 0))
		status = LR_EXIT_FAILURE;
	if (status == 0 && o->rfc2544)
		status = pg_rfc2544_run();
	else if (status == 0)
		run(o);
	if (close_all() != 0 && status == 0)
		status = LR_EXIT_FAILURE;
	if (pg.go && !o->rfc2544) {
		if (report(o) != 0 && status == 0)
			status = LR_EXIT_FAILURE;
	} else if (!pg.go && status == 0) {
		status = LR_EXIT_FAILURE;
	}
	if (free_all(o) != 0 && status == 0)
		status = LR_EXIT_FAILURE;
	lr_eal_cleanup();
	return status;
}
