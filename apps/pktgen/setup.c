/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * setup.c - lr-pktgen's setup: the ports of --vdev (which send, which
 * receive), one (port, queue) pair per lcore spread over the ports, the
 * mbuf pools (a transmit queue of a port that lends its own, a zero-copy
 * memif client, takes its mbufs from that one; a queue that sends one
 * frame always the same, a pool of its own with the frame prebuilt), one
 * instance of every stream (template, sequence space, rate share) per
 * transmit queue, the links and L3 mode. What it builds is in pg and
 * pg_app (pktgen.h); main.c frees it.
 *
 * Exit status of what it reports: 2 for what the command line names and
 * does not exist (ports, queues, streams, a --pcap file), 1 for what the
 * run lacks (memory, a port that does not start, a link that stays down).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lr_app.h"
#include "lr_eal.h"
#include "lr_ethdev.h"
#include "lr_mbuf.h"
#ifdef PG_HAVE_MEMIF
#include "lr_eth_memif.h"
#endif
#include "pktgen.h"

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
		pg_app.ports[p].used = true;
		pg_app.ports[p].tx = tx >> p & 1;
		pg_app.ports[p].rx = rx >> p & 1;
		snprintf(pg_app.ports[p].name, sizeof(pg_app.ports[p].name),
			 "%s", lr_eth_dev_name(p));
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
		pg_app.dp_lcores[pg_app.n_dp++] = l;
	} else {
		pg_app.dp_lcores[pg_app.n_dp++] = lr_get_main_lcore();
	}
	for (unsigned i = 0; i < pg_app.n_dp; i++) {
		struct pg_lcore *lc = aligned_alloc(
		    LR_CACHE_LINE_SIZE,
		    LR_ALIGN_CEIL(sizeof(struct pg_lcore), LR_CACHE_LINE_SIZE));

		pg_app.lcores[pg_app.dp_lcores[i]] = lc;
		if (lc == NULL)
			return pg_fail("out of memory");
		memset(lc, 0, sizeof(struct pg_lcore));
		lc->lcore_id = pg_app.dp_lcores[i];
		lc->lat.min = UINT64_MAX;
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
		if (pg_app.ntxqs == PG_MAX_STREAMS) {
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
		t->stream = (uint16_t)pg_app.ntxqs;
		pg_app.txqs[pg_app.ntxqs++] = t;
		lc->tx[lc->ntx++] = t;
		pg_app.ports[p].ntxq++;
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

		for (unsigned i = 0; i < pg_app.ntxqs; i++)
			used |= pg_app.txqs[i]->sdef == k;
		if (!used && pg_app.ntxqs) {
			pg_fail("stream '%s': none of its ports sends",
				pg.sdefs[k].name);
			return LR_EXIT_USAGE;
		}
	}
	pg.inst_sdef = calloc(LR_MAX(pg_app.ntxqs, 1u), sizeof(*pg.inst_sdef));
	if (pg.inst_sdef == NULL) {
		pg_fail("out of memory");
		return LR_EXIT_FAILURE;
	}
	pg.txq = pg_app.txqs;
	pg.nlcs = pg_app.n_dp;
	for (unsigned i = 0; i < pg_app.n_dp; i++)
		pg.lcs[i] = pg_dp_lcore(i);
	for (unsigned i = 0; i < pg_app.ntxqs; i++)
		pg.inst_sdef[i] = (uint16_t)pg_app.txqs[i]->sdef;
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
		if (pg_app.ports[p].used)
			plist[np++] = p;
	if (alloc_lcores() != 0)
		return LR_EXIT_FAILURE;
	/* (port, queue, lcore) triples. */
	pairs = pg.o.queues ? np * pg.o.queues : LR_MAX(pg_app.n_dp, np);
	for (unsigned i = 0; i < pairs; i++) {
		uint16_t p =
		    pg.o.queues ? plist[i / pg.o.queues] : plist[i % np];
		struct pg_lcore *lc = pg_dp_lcore(i % pg_app.n_dp);
		uint16_t q = pg_app.ports[p].nq++;

		if (q >= LR_MAX_QUEUES_PER_PORT) {
			pg_fail("port %u: %u lcores need more than %d queues",
				p, pg_app.n_dp, LR_MAX_QUEUES_PER_PORT);
			return LR_EXIT_USAGE;
		}
		if (pg_app.ports[p].tx && (ret = add_instances(p, q, lc)) != 0)
			return ret;
		if (pg_app.ports[p].rx) {
			lc->rx[lc->nrx].port = p;
			lc->rx[lc->nrx].queue = q;
			lc->nrx++;
		}
	}
	pg.nstreams = pg_app.ntxqs;
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
		nq += pg_app.ports[p].nq;
	/* The fixed size the queues need; elastic by default: a quarter to
	 * twice that. */
	n = nq * (o->nb_rxd + o->nb_txd + 3 * o->burst) +
	    pg_app.n_dp * (384 + o->burst) + 8192;
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
		nq += pg_app.ports[p].nq;
	n = nq * (o->nb_rxd + 2 * o->burst) + pg_app.n_dp * (384 + o->burst) +
	    1024;
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
		struct pg_port *pi = &pg_app.ports[p];
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
			    p, pi->name, pg_app.n_dp, pi->nq,
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
	for (unsigned i = 0; i < pg_app.n_dp; i++) {
		struct pg_lcore *lc = pg_dp_lcore(i);

		for (unsigned k = 0; k < lc->ntx; k++)
			lc->tx[k]->cnt = &pg_app.ports[lc->tx[k]->port]
					      .cnt[lc->tx[k]->queue];
		for (unsigned k = 0; k < lc->nrx; k++)
			lc->rx[k].cnt =
			    &pg_app.ports[lc->rx[k].port].cnt[lc->rx[k].queue];
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

		if (!pg_app.ports[p].used)
			continue;
		rc = lr_eth_dev_start(p);
		if (rc < 0)
			return pg_fail("port %u (%s): start: %s", p,
				       pg_app.ports[p].name, lr_strerror(-rc));
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
	for (unsigned i = 0; i < pg_app.ntxqs; i++) {
		struct pg_txq *q = pg_app.txqs[i];
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
			       q->port, pg_app.ports[q->port].name, mp->name);
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
		all[i]->udata64 = t->gen;
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
		if (pg_app.ports[p].used && (o->l3[p].has4 || o->l3[p].has6))
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

/* Whether stamped queue q (PG_K_FAST) would send frames of PG_KEEP_MIN
 * bytes or more: its size, or one of the sizes of the RFC 2544 trials
 * (IMIX frames vary: never kept). */
static bool
keep_useful(const struct pg_opts *o, const struct pg_txq *q)
{
	if (!o->rfc2544)
		return q->tmpl->len >= PG_KEEP_MIN;
	for (unsigned i = 0; i < o->rfc_nsizes; i++)
		if (o->rfc_sizes[i] >= PG_KEEP_MIN)
			return true;
	return false;
}

/* A stamped queue whose frames are long (keep_useful()) gets a pool of
 * its own whose buffers keep their frame (q->keep: build_fast() writes the
 * stamp alone while the template is the one the buffer holds), so that a
 * long frame is not written whole for each send. When memory is short it
 * builds each frame from the shared pool, as it always did.
 *
 * A queue that sends one frame, always the same (--no-stamp, nothing
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
	for (unsigned i = 0; i < pg_app.ntxqs; i++) {
		struct pg_txq *q = pg_app.txqs[i];
		unsigned n = o->nb_txd + 4 * o->burst + 2 * 384 + 1024;
		bool zc = q->pool != pg.pool; /* a zero-copy port's pool */
		bool keep = q->kind == PG_K_FAST;
		char name[32];

		if (keep ? !keep_useful(o, q) : q->kind != PG_K_PLAIN)
			continue;
		/* a zero-copy port's sent mbufs wait on its ring: half its
		 * pool (the rings' slots and more) */
		if (zc)
			n = LR_MAX(n, q->pool->size / 2);
		snprintf(name, sizeof(name), "pktgen_tx%u", i);
		q->own_pool = prebuilt_pool(q, name, n);
		if (q->own_pool == NULL && keep)
			continue; /* each frame built: as ever */
		if (q->own_pool == NULL) {
			/* Not enough memory for it (-m): its pool,
			 * building each frame, as without --no-stamp. */
			if (!o->quiet)
				printf("port %u (%s) queue %u: no pool '%s' of "
				       "%u mbufs (%s): frames built from "
				       "its pool\n",
				       q->port, pg_app.ports[q->port].name,
				       q->queue, name, n,
				       lr_strerror(lr_errno));
			continue;
		}
		if (prebuild(q->own_pool, q->tmpl) != 0 ||
		    pool_rearm(q->own_pool, &q->rearm) != 0)
			return -1;
		q->pool = q->own_pool;
		q->prebuilt = !keep;
		q->keep = keep;
		if (!o->quiet)
			printf("port %u (%s) queue %u: tx frames %s in "
			       "pool '%s' (%u mbufs%s)\n",
			       q->port, pg_app.ports[q->port].name, q->queue,
			       keep ? "kept (stamps written)" : "prebuilt",
			       name, n, zc ? ", zero-copy" : "");
	}
	return 0;
}

/* Check the queues' own pools at exit: their mbufs not back are added
 * to *leaked and reported, a pool fully back and valid is freed; 0, or
 * -1 when one is not. */
int
pg_tx_pools_fini(unsigned *leaked)
{
	int ret = 0;

	for (unsigned i = 0; i < pg_app.ntxqs; i++) {
		struct lr_mempool *mp = pg_app.txqs[i]->own_pool;
		unsigned n;

		if (mp == NULL)
			continue;
		pg_app.txqs[i]->own_pool = NULL;
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

		if (!pg_app.ports[p].used)
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

	if (o->link_wait <= 0 || pg_app.ntxqs == 0 || links_down(&p) == 0)
		return 0;
	end = t0 + (uint64_t)(o->link_wait * (double)pg.hz);
	if (!o->quiet) {
		printf("lr-pktgen: waiting up to %g s for the link of port %u "
		       "(%s)\n",
		       o->link_wait, p, pg_app.ports[p].name);
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
				       p, pg_app.ports[p].name, o->link_wait,
				       n);
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
	for (unsigned i = 0; i < pg_app.pcap_n; i++)
		pg_app.pcap_tmpl[i].stamped = false;
	for (unsigned i = 0; i < pg_app.ntxqs; i++)
		if (pg_app.txqs[i]->own_tmpl != NULL)
			pg_stream_unstamp(pg_app.txqs[i],
					  &pg.sdefs[pg_app.txqs[i]->sdef]);
}

/* L3 mode (l3.c): the ports with addresses, the streams' next hops
 * resolved and written into their templates. */
static int
setup_l3(void)
{
	uint16_t nq[LR_MAX_ETHPORTS];
	uint32_t rx = 0;

	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++) {
		nq[p] = pg_app.ports[p].used ? pg_app.ports[p].nq : 0;
		rx |= (uint32_t)(pg_app.ports[p].used && pg_app.ports[p].rx)
		      << p;
	}
	return pg_l3_setup(nq, rx, pg_app.txqs, pg_app.ntxqs);
}

/* Instances of definition k, and the index of instance q among them. */
unsigned
pg_sdef_instances(unsigned k, const struct pg_txq *q, unsigned *idx)
{
	unsigned n = 0;

	for (unsigned i = 0; i < pg_app.ntxqs; i++) {
		if (pg_app.txqs[i] == q)
			*idx = n;
		n += pg_app.txqs[i]->sdef == k;
	}
	return n;
}

/* The share weights of the streams without a rate of their own (--rate-*
 * is split by them), over all instances and per port. */
static void
share_weights(void)
{
	for (unsigned i = 0; i < pg_app.ntxqs; i++) {
		const struct pg_sdef *d = &pg.sdefs[pg_app.txqs[i]->sdef];
		unsigned idx = 0, n = pg_sdef_instances(pg_app.txqs[i]->sdef,
							pg_app.txqs[i], &idx);

		if (d->rate_mode == PG_RATE_MAX) {
			pg_app.wsum += d->share / n;
			pg_app.wport[pg_app.txqs[i]->port] += d->share / n;
		}
	}
}

/* Instance i, the idx-th of the n of its stream: its template (the
 * capture's frames, or its own), and the frames it sends (its part of
 * the stream's count or of --count, of the stream's bursts). 0, or -1
 * after a message. */
static int
instance_frames(const struct pg_opts *o, unsigned i, unsigned idx, unsigned n)
{
	struct pg_txq *q = pg_app.txqs[i];
	const struct pg_sdef *d = &pg.sdefs[q->sdef];
	double hz = (double)pg.hz;

	if (o->pcap_file) {
		q->tmpl = pg_app.pcap_tmpl;
		q->ntmpl = pg_app.pcap_n;
		q->kind = PG_K_PCAP;
	} else {
		struct lr_ether_addr mac;

		lr_eth_macaddr_get(q->port, &mac);
		if (pg_stream_init(q, d, mac_u64(&mac), o->seed, pg.run_id) !=
		    0)
			return pg_fail("stream %u: out of memory", i);
	}
	q->quota = UINT64_MAX;
	if (d->count)
		q->quota = d->count / n + (idx < d->count % n);
	else if (o->count)
		q->quota =
		    o->count / pg_app.ntxqs + (i < o->count % pg_app.ntxqs);
	if (d->burst) {
		q->burst_len = d->burst / n + (idx < d->burst % n);
		q->burst_left = q->burst_len;
		q->gap_fp =
		    (uint64_t)(d->gap_us * 1e-6 * hz * (1 << PG_FP_SHIFT));
		if (d->bursts)
			q->quota = LR_MIN(q->quota, q->burst_len * d->bursts);
		if (q->burst_len == 0)
			q->quota = 0;
	}
	/* What it is to send (the quota counts down as it sends). */
	q->count = q->quota == UINT64_MAX ? 0 : q->quota;
	return 0;
}

/* The rate of instance i, one of the n of its stream, into *pps or *bps
 * (both 0: as fast as it can): its part of its stream's own rate, else
 * its share of --rate-* (per port for --rate-pct). */
static void
instance_rate(const struct pg_opts *o, unsigned i, unsigned n, double *pps,
	      double *bps)
{
	const struct pg_txq *q = pg_app.txqs[i];
	const struct pg_sdef *d = &pg.sdefs[q->sdef];
	double w = d->share / n;

	*pps = *bps = 0;
	if (d->rate_mode == PG_RATE_PPS)
		*pps = d->rate / n;
	else if (d->rate_mode == PG_RATE_MBPS)
		*bps = d->rate * 1e6 / n;
	else if (o->rate_mode == PG_RATE_PPS)
		*pps = o->rate * w / pg_app.wsum;
	else if (o->rate_mode == PG_RATE_MBPS)
		*bps = o->rate * 1e6 * w / pg_app.wsum;
	else if (o->rate_mode == PG_RATE_PCT)
		*bps = o->line_rate_gbps * 1e9 * o->rate / 100 * w /
		       pg_app.wport[q->port];
}

/* Pace instance i at pps frames/s or bps bits/s (0: not by that), by its
 * bursts' gaps or by the capture's own timing (--replay): its costs in
 * cycles of a frame and of a byte, its credit, the run's targets. */
static void
instance_pace(const struct pg_opts *o, unsigned i, double pps, double bps)
{
	struct pg_txq *q = pg_app.txqs[i];
	const struct pg_sdef *d = &pg.sdefs[q->sdef];
	double hz = (double)pg.hz, c1;
	unsigned len0;

	q->paced = pps > 0 || bps > 0 || (d->burst && d->gap_us > 0);
	if (o->replay) {
		/* The file's own timing, scaled by --speed; a loop of it
		 * lasts up to its last frame and one mean gap more. */
		uint64_t last = pg_app.pcap_tmpl[pg_app.pcap_n - 1].t_fp;

		q->paced = q->timed = true;
		q->loop_fp =
		    last + (pg_app.pcap_n > 1
				? last / (pg_app.pcap_n - 1)
				: (uint64_t)(hz / 1000) << PG_FP_SHIFT);
		if (q->loop_fp == 0)
			q->loop_fp = 1;
	}
	pg_app.any_paced |= q->paced;
	if (!(d->burst && d->gap_us > 0)) {
		pg_app.target_pps += pps;
		pg_app.target_bps += bps;
	}
	pg_app.inst_pps[i] = pps;
	pg_app.inst_bps[i] = bps;
	q->pkt_cost_fp =
	    pps > 0 ? (uint64_t)(hz * (1 << PG_FP_SHIFT) / pps + 0.5) : 0;
	q->byte_cost_fp =
	    bps > 0 ? (uint64_t)(hz * 8 * (1 << PG_FP_SHIFT) / bps + 0.5) : 0;
	len0 = q->tmpl[0].len;
	c1 = (double)q->pkt_cost_fp +
	     (double)(len0 + PG_FCS + PG_WIRE_GAP) * (double)q->byte_cost_fp;
	q->depth_fp = (uint64_t)LR_MAX(c1 * o->burst, o->bucket_ms / 1000 * hz *
							  (1 << PG_FP_SHIFT));
	q->frame_cost_fp = (uint64_t)c1;
}

/* Each datapath lcore's receive statistics: a sequence window a stream
 * instance, latency a stream. 0, or -1 after a message. */
static int
lcore_stats_alloc(void)
{
	for (unsigned i = 0; i < pg_app.n_dp; i++) {
		struct pg_lcore *lc = pg_dp_lcore(i);

		lc->win = calloc(LR_MAX(pg.nstreams, 1u), sizeof(*lc->win));
		lc->slat = calloc(pg.nsdefs, sizeof(*lc->slat));
		if (lc->win == NULL || lc->slat == NULL)
			return pg_fail("out of memory");
		for (unsigned k = 0; k < pg.nsdefs; k++)
			lc->slat[k].min = UINT64_MAX;
	}
	return 0;
}

/* Templates, quotas, rates and burst patterns of every instance. A
 * stream's count, own rate and burst length are split over its instances;
 * --rate-* over the instances of the streams without a rate of their own,
 * by their shares (per port for --rate-pct). */
static int
setup_streams(const struct pg_opts *o)
{
	share_weights();
	for (unsigned i = 0; i < pg_app.ntxqs; i++) {
		struct pg_txq *q = pg_app.txqs[i];
		unsigned idx = 0, n = pg_sdef_instances(q->sdef, q, &idx);
		double pps, bps;

		if (instance_frames(o, i, idx, n) != 0)
			return -1;
		instance_rate(o, i, n, &pps, &bps);
		instance_pace(o, i, pps, bps);
	}
	return lcore_stats_alloc();
}

/* --pcap/--replay: the frames of the file and their send times; the
 * longest into *max_len. 0 or -1 after a message. */
static int
load_pcap(const struct pg_opts *o, unsigned *max_len)
{
	int ret =
	    pg_pcap_load(o->pcap_file, &pg_app.pcap_tmpl, PG_MAX_SIZE - PG_FCS);

	if (ret < 0)
		return -1;
	pg_app.pcap_n = (unsigned)ret;
	*max_len = 0;
	for (unsigned i = 0; i < pg_app.pcap_n; i++) {
		pg_app.pcap_tmpl[i].t_fp =
		    (uint64_t)((double)pg_app.pcap_tmpl[i].t_us * 1e-6 /
			       o->speed * (double)pg.hz *
			       (double)(1u << PG_FP_SHIFT));
		*max_len = LR_MAX(*max_len, pg_app.pcap_tmpl[i].len);
	}
	return 0;
}

/* What the command line names: the ports of --vdev, the streams
 * (--profile or the frame options), the ports and queues they use,
 * --pcap's frames; the longest frame into *max_len. 0, or the exit status
 * after a message: a usage error, but where the EAL, a driver or memory
 * says otherwise. */
int
pg_setup_inputs(struct pg_opts *o, unsigned *max_len)
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

/* The pools, the ports and their queues, the streams and their frames,
 * the links and L3 mode: 0, or -1 after a message (a run-time
 * failure). */
int
pg_setup_run(const struct pg_opts *o, unsigned max_len)
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
	return 0;
}
