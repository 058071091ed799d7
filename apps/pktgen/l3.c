/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * l3.c - lr-pktgen's L3 mode (l3.h): the ports' addresses and counters,
 * the resolution of the streams' next hops before the run, and the receive
 * hook that answers ARP, neighbour solicitations and echo requests while
 * it lasts.
 *
 * Threading: pg_l3_setup() runs on the control thread before the lcores
 * start (it polls the L3 ports' receive queues itself, answering what comes
 * meanwhile on transmit queue 0); afterwards the state is only read, except
 * the counters: each (port, queue) pair's belong to the lcore that polls
 * that queue, written with relaxed stores and read by the control thread.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "lr_eal.h"
#include "lr_mbuf.h"
#include "pktgen.h"

/* Answers of one queue. */
struct l3_cnt {
	_Atomic uint64_t arp;  /* ARP requests answered */
	_Atomic uint64_t nd;   /* neighbour solicitations answered */
	_Atomic uint64_t echo; /* ICMP and ICMPv6 echo requests answered */
	_Atomic uint64_t drop; /* answers not sent (no mbuf, queue full) */
} __lr_cache_aligned;

struct l3_port {
	bool on;
	uint16_t nq;
	struct pg_l3_if ifc;
	struct l3_cnt *cnt; /* [nq] */
};

/* A next hop of some stream: resolved before the run. */
struct l3_hop {
	uint16_t port;
	bool v6;
	bool gateway; /* the port's gateway, not the destination itself */
	bool resolved;
	unsigned requests;
	uint8_t ip[16];
	uint8_t mac[6];
	double secs; /* from the first request to the answer */
};

static struct l3_port l3p[LR_MAX_ETHPORTS];
static struct l3_hop *hops;
static unsigned nhops;

/* Add to a counter only this thread writes. */
static void
cnt_inc(_Atomic uint64_t *c)
{
	atomic_store_explicit(c,
			      atomic_load_explicit(c, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

/* Worth an mbuf: ARP, ICMP to our address, ICMPv6. */
static bool
may_answer(const struct pg_l3_if *ifc, const uint8_t *d, unsigned len)
{
	unsigned type;

	if (len < 42)
		return false;
	type = (unsigned)(d[12] << 8 | d[13]);
	if (type == 0x0806)
		return true;
	if (type == 0x0800)
		return ifc->c.has4 && d[23] == 1 &&
		       memcmp(d + 30, ifc->c.ip4, 4) == 0;
	return type == 0x86dd && ifc->c.has6 && len >= 62 && d[20] == 58;
}

/* Answer m (received on port) on transmit queue queue if it asks for an
 * answer; what it tells of a neighbour into *l. */
static void
handle(uint16_t port, uint16_t queue, const struct lr_mbuf *m,
       struct pg_l3_learned *l)
{
	struct l3_port *lp = &l3p[port];
	struct l3_cnt *c = &lp->cnt[queue];
	const uint8_t *d = lr_pktmbuf_mtod(m, const uint8_t *);
	struct lr_mbuf *r;
	enum pg_l3_kind k;
	unsigned n;

	l->valid = false;
	if (m->nb_segs != 1 || !may_answer(&lp->ifc, d, m->data_len))
		return;
	r = lr_pktmbuf_alloc(pg.pool);
	if (r == NULL) {
		cnt_inc(&c->drop);
		return;
	}
	k = pg_l3_classify(&lp->ifc, d, m->data_len,
			   lr_pktmbuf_mtod(r, uint8_t *),
			   lr_pktmbuf_tailroom(r), &n, l);
	if (k == PG_L3_OTHER || k == PG_L3_LEARN) {
		lr_pktmbuf_free(r);
		return;
	}
	r->data_len = (uint16_t)n;
	r->pkt_len = n;
	if (lr_eth_tx_burst(port, queue, &r, 1) != 1) {
		lr_pktmbuf_free(r);
		cnt_inc(&c->drop);
		return;
	}
	cnt_inc(k == PG_L3_ARP ? &c->arp : k == PG_L3_NS ? &c->nd : &c->echo);
}

void
pg_l3_input(uint16_t port, uint16_t queue, const struct lr_mbuf *m)
{
	struct pg_l3_learned l;

	if (l3p[port].on)
		handle(port, queue, m, &l);
}

/* The destination of stream d: lo and hi addresses (IPv4: 4 bytes). */
static void
sdef_dst(const struct pg_sdef *d, uint8_t *lo, uint8_t *hi)
{
	const struct pg_val *v = &d->v[PG_FV_DST_IP];
	unsigned w = d->ipv6 ? 8 : 4;

	for (unsigned i = 0; i < 8; i++) {
		lo[i] = hi[i] = (uint8_t)(d->hi6[1] >> (56 - 8 * i));
		lo[8 + i] = hi[8 + i] = 0;
	}
	for (unsigned i = 0; i < w; i++) {
		lo[(d->ipv6 ? 8 : 0) + i] =
		    (uint8_t)(v->lo >> (8 * (w - 1 - i)));
		hi[(d->ipv6 ? 8 : 0) + i] =
		    (uint8_t)(v->hi >> (8 * (w - 1 - i)));
	}
}

/* The hop of (port, family, address), added if new; its index. */
static unsigned
hop_add(uint16_t port, bool v6, const uint8_t *ip, bool gateway)
{
	for (unsigned i = 0; i < nhops; i++)
		if (hops[i].port == port && hops[i].v6 == v6 &&
		    memcmp(hops[i].ip, ip, v6 ? 16 : 4) == 0)
			return i;
	memset(&hops[nhops], 0, sizeof(hops[0]));
	hops[nhops].port = port;
	hops[nhops].v6 = v6;
	hops[nhops].gateway = gateway;
	memcpy(hops[nhops].ip, ip, v6 ? 16 : 4);
	return nhops++;
}

/* The next hop of transmit queue q into *hop (-1: the stream has a
 * destination MAC of its own); 0, or -1 after saying why there is none. */
static int
plan(const struct pg_txq *q, int *hop)
{
	const struct pg_sdef *d = &pg.sdefs[q->sdef];
	const struct pg_l3_conf *c = &l3p[q->port].ifc.c;
	const char *pn = lr_eth_dev_name(q->port);
	bool v6 = d->ipv6, on;
	const uint8_t *own = v6 ? c->ip6 : c->ip4, *gw = v6 ? c->gw6 : c->gw4;
	unsigned plen = v6 ? c->plen6 : c->plen4, w = v6 ? 16 : 4;
	uint8_t lo[16], hi[16];
	char a[64], b[64], o[64], dst[140];

	if (d->ntags)
		return pg_fail(
		    "port %u (%s): stream '%s' has VLAN tags: the L3 "
		    "mode (--ip) resolves and answers untagged frames "
		    "only",
		    q->port, pn, d->name);
	if (!(v6 ? c->has6 : c->has4))
		return pg_fail(
		    "port %u (%s): stream '%s' is %s but the port has "
		    "no %s address: give --ip %u:ADDRESS/PREFIX",
		    q->port, pn, d->name, v6 ? "IPv6" : "IPv4",
		    v6 ? "IPv6" : "IPv4", q->port);
	*hop = -1;
	if (d->v[PG_FV_DST_MAC].set)
		return 0;
	sdef_dst(d, lo, hi);
	pg_l3_ntop(lo, v6, a, sizeof(a));
	pg_l3_ntop(hi, v6, b, sizeof(b));
	pg_l3_ntop(own, v6, o, sizeof(o));
	if (memcmp(lo, hi, w) == 0)
		snprintf(dst, sizeof(dst), "%s", a);
	else
		snprintf(dst, sizeof(dst), "%s-%s", a, b);
	on = pg_l3_on_link(own, plen, lo, v6) &&
	     pg_l3_on_link(own, plen, hi, v6);
	if (on && memcmp(lo, hi, w) == 0) {
		if (memcmp(lo, own, w) == 0)
			return pg_fail("port %u (%s): stream '%s': destination "
				       "%s is the port's own address",
				       q->port, pn, d->name, dst);
		*hop = (int)hop_add(q->port, v6, lo, false);
	} else if (v6 ? c->gw6_set : c->gw4_set) {
		*hop = (int)hop_add(q->port, v6, gw, true);
	} else if (on) {
		return pg_fail(
		    "port %u (%s): stream '%s': destinations %s on the "
		    "port's subnet cannot share one destination MAC: "
		    "give --gateway %u:ADDRESS, one destination or "
		    "the stream's destination MAC",
		    q->port, pn, d->name, dst, q->port);
	} else {
		return pg_fail(
		    "port %u (%s): stream '%s': destination %s is not "
		    "on the port's subnet %s/%u: give --gateway "
		    "%u:ADDRESS",
		    q->port, pn, d->name, dst, o, plen, q->port);
	}
	return 0;
}

/* Send the request of hop h on queue 0 of its port (a refused one is sent
 * again at the next try). */
static void
request(struct l3_hop *h)
{
	struct lr_mbuf *m = lr_pktmbuf_alloc(pg.pool);
	const struct pg_l3_if *ifc = &l3p[h->port].ifc;
	uint8_t *d;
	unsigned n;

	h->requests++;
	if (m == NULL)
		return;
	d = lr_pktmbuf_mtod(m, uint8_t *);
	n = h->v6 ? pg_l3_ns_request(d, ifc, h->ip)
		  : pg_l3_arp_request(d, ifc, h->ip);
	m->data_len = (uint16_t)n;
	m->pkt_len = n;
	if (lr_eth_tx_burst(h->port, 0, &m, 1) != 1)
		lr_pktmbuf_free(m);
}

/* Poll every L3 port once: answer what asks, take the MACs of the hops
 * the frames tell. Frames received. */
static unsigned
poll_ports(unsigned *left, uint64_t t0)
{
	struct lr_mbuf *pkts[32];
	unsigned got = 0;

	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++) {
		for (uint16_t q = 0; l3p[p].on && q < l3p[p].nq; q++) {
			uint16_t n = lr_eth_rx_burst(p, q, pkts, 32);

			for (uint16_t i = 0; i < n; i++) {
				struct pg_l3_learned l;

				handle(p, 0, pkts[i], &l);
				for (unsigned k = 0; l.valid && k < nhops;
				     k++) {
					struct l3_hop *h = &hops[k];

					if (h->resolved || h->port != p ||
					    h->v6 != l.v6 ||
					    memcmp(h->ip, l.ip,
						   h->v6 ? 16 : 4) != 0)
						continue;
					memcpy(h->mac, l.mac, 6);
					h->resolved = true;
					h->secs =
					    (double)(lr_get_tsc_cycles() - t0) /
					    (double)pg.hz;
					(*left)--;
				}
			}
			lr_pktmbuf_free_bulk(pkts, n);
			got += n;
		}
		if (l3p[p].on)
			lr_eth_tx_burst(p, 0, NULL, 0);
	}
	return got;
}

static const char *
mac_str(const uint8_t *m, char *buf, size_t n)
{
	snprintf(buf, n, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2],
		 m[3], m[4], m[5]);
	return buf;
}

/* Resolve every hop: a request each --resolve-interval, --resolve-tries
 * times. 0 (also when a stop signal ended it: nothing is sent then), or
 * -1 after naming the port and the address that did not answer. */
static int
resolve(void)
{
	const struct timespec tick = {0, 1000 * 1000};
	const struct pg_opts *o = &pg.o;
	uint64_t t0 = lr_get_tsc_cycles(),
		 gap = (uint64_t)(o->resolve_interval * (double)pg.hz);
	unsigned left = nhops;
	char a[64], own[64], m[24];

	for (unsigned t = 0; t < o->resolve_tries && left; t++) {
		uint64_t until;

		for (unsigned k = 0; k < nhops; k++)
			if (!hops[k].resolved)
				request(&hops[k]);
		until = lr_get_tsc_cycles() + gap;
		while (left && lr_get_tsc_cycles() < until) {
			if (lr_eal_stop_requested()) {
				atomic_store(&pg.state, PG_TX_STOP);
				return 0;
			}
			if (poll_ports(&left, t0) == 0)
				nanosleep(&tick, NULL);
		}
	}
	for (unsigned k = 0; k < nhops; k++) {
		const struct l3_hop *h = &hops[k];
		const struct pg_l3_conf *c = &l3p[h->port].ifc.c;

		pg_l3_ntop(h->ip, h->v6, a, sizeof(a));
		if (!h->resolved)
			return pg_fail(
			    "port %u (%s): no answer from %s (%s) to "
			    "%u %s in %.3g s: is it there, up and on "
			    "the port's subnet (%s/%u)?",
			    h->port, lr_eth_dev_name(h->port), a,
			    h->gateway ? "the gateway" : "the destination",
			    h->requests,
			    h->v6 ? "neighbour solicitations" : "ARP requests",
			    (double)(lr_get_tsc_cycles() - t0) / (double)pg.hz,
			    pg_l3_ntop(h->v6 ? c->ip6 : c->ip4, h->v6, own,
				       sizeof(own)),
			    h->v6 ? c->plen6 : c->plen4);
		printf("lr-pktgen: port %u: next hop %s (%s) is at %s (%s, %u "
		       "request%s, %.3f s)\n",
		       h->port, a, h->gateway ? "gateway" : "destination",
		       mac_str(h->mac, m, sizeof(m)), h->v6 ? "NDP" : "ARP",
		       h->requests, h->requests == 1 ? "" : "s", h->secs);
	}
	fflush(stdout);
	return 0;
}

/* Write the next hop's MAC and the port's address into the template of
 * q (hop -1: its own destination MAC), where the stream sets neither. */
static void
patch(struct pg_txq *q, int hop)
{
	const struct pg_sdef *d = &pg.sdefs[q->sdef];
	const struct pg_l3_conf *c = &l3p[q->port].ifc.c;
	uint8_t *t = q->own_tmpl->data;

	if (hop >= 0)
		memcpy(t, hops[hop].mac, 6);
	if (!d->v[PG_FV_SRC_IP].set) {
		if (d->ipv6)
			memcpy(t + q->l3_off + 8, c->ip6, 16);
		else
			memcpy(t + q->l3_off + 12, c->ip4, 4);
	}
	pg_stream_tmpl_fix(q);
}

/* The ports of --ip: their MACs and counters. 0, 1 when there are none,
 * or -1 after saying what is wrong. */
static int
setup_ports(const uint16_t *nq, uint32_t rx_ports)
{
	const struct pg_opts *o = &pg.o;
	char a[64];
	bool any = false;

	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++) {
		const struct pg_l3_conf *c = &o->l3[p];
		struct l3_port *lp = &l3p[p];
		struct lr_ether_addr mac;

		if (!c->has4 && !c->has6)
			continue;
		if (nq[p] == 0)
			return pg_fail(
			    "--ip %u:%s: port %u is not used (no such "
			    "port, or outside --ports)",
			    p,
			    pg_l3_ntop(c->has4 ? c->ip4 : c->ip6, !c->has4, a,
				       sizeof(a)),
			    p);
		lp->cnt =
		    aligned_alloc(LR_CACHE_LINE_SIZE, nq[p] * sizeof(*lp->cnt));
		if (lp->cnt == NULL)
			return pg_fail("out of memory");
		memset(lp->cnt, 0, nq[p] * sizeof(*lp->cnt));
		lr_eth_macaddr_get(p, &mac);
		memcpy(lp->ifc.mac, mac.addr_bytes, 6);
		lp->ifc.c = *c;
		lp->nq = nq[p];
		lp->on = true;
		any = true;
		if (!(rx_ports >> p & 1))
			printf("lr-pktgen: port %u receives nothing "
			       "(--tx-ports/--rx-ports): it answers ARP, NDP "
			       "and ping only while resolving\n",
			       p);
	}
	return any ? 0 : 1;
}

int
pg_l3_setup(const uint16_t *nq, uint32_t rx_ports, struct pg_txq *const *q,
	    unsigned n)
{
	int *hop, rc;

	rc = setup_ports(nq, rx_ports);
	if (rc != 0)
		return rc < 0 ? -1 : 0;
	pg.l3 = true;
	hops = calloc(LR_MAX(n, 1u), sizeof(*hops));
	hop = calloc(LR_MAX(n, 1u), sizeof(*hop));
	if (hops == NULL || hop == NULL) {
		free(hop);
		return pg_fail("out of memory");
	}
	rc = 0;
	for (unsigned i = 0; i < n && rc == 0; i++) {
		hop[i] = -1;
		/* A replay sends the file's frames as they are. */
		if (l3p[q[i]->port].on && q[i]->own_tmpl != NULL)
			rc = plan(q[i], &hop[i]);
	}
	if (rc == 0)
		rc = resolve();
	if (rc == 0 && atomic_load(&pg.state) == PG_RUN)
		for (unsigned i = 0; i < n; i++)
			if (l3p[q[i]->port].on && q[i]->own_tmpl != NULL)
				patch(q[i], hop[i]);
	free(hop);
	return rc;
}

/* Sums of port p's counters. */
static void
sums(uint16_t p, uint64_t *arp, uint64_t *nd, uint64_t *echo, uint64_t *drop)
{
	*arp = *nd = *echo = *drop = 0;
	for (uint16_t q = 0; q < l3p[p].nq; q++) {
		const struct l3_cnt *c = &l3p[p].cnt[q];

		*arp += atomic_load_explicit(&c->arp, memory_order_relaxed);
		*nd += atomic_load_explicit(&c->nd, memory_order_relaxed);
		*echo += atomic_load_explicit(&c->echo, memory_order_relaxed);
		*drop += atomic_load_explicit(&c->drop, memory_order_relaxed);
	}
}

void
pg_l3_print(FILE *f)
{
	char a[64], b[64];

	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++) {
		const struct pg_l3_conf *c = &l3p[p].ifc.c;
		uint64_t arp, nd, echo, drop;

		if (!l3p[p].on)
			continue;
		sums(p, &arp, &nd, &echo, &drop);
		fprintf(f, "L3 port %u:", p);
		if (c->has4)
			fprintf(f, " %s/%u", pg_l3_ntop(c->ip4, false, a, 64),
				c->plen4);
		if (c->has6)
			fprintf(f, " %s/%u", pg_l3_ntop(c->ip6, true, a, 64),
				c->plen6);
		fprintf(f,
			"; answered %llu ARP requests, %llu neighbour "
			"solicitations, %llu echo requests; %llu answers "
			"dropped\n",
			(unsigned long long)arp, (unsigned long long)nd,
			(unsigned long long)echo, (unsigned long long)drop);
		for (unsigned k = 0; k < nhops; k++)
			if (hops[k].port == p && hops[k].resolved)
				fprintf(
				    f, "  next hop %s (%s) at %s\n",
				    pg_l3_ntop(hops[k].ip, hops[k].v6, a, 64),
				    hops[k].gateway ? "gateway" : "destination",
				    mac_str(hops[k].mac, b, sizeof(b)));
	}
}

/* "ADDR/PREFIX" or "ADDR" as a JSON string, or JSON null. */
static json_t *
json_addr(bool set, const uint8_t *ip, bool v6, int plen)
{
	char a[64], b[80];

	if (!set)
		return json_null();
	pg_l3_ntop(ip, v6, a, sizeof(a));
	if (plen < 0)
		return json_string(a);
	snprintf(b, sizeof(b), "%s/%d", a, plen);
	return json_string(b);
}

json_t *
pg_l3_json(void)
{
	json_t *arr;
	char m[24];

	if (!pg.l3)
		return NULL;
	arr = json_array();
	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++) {
		const struct pg_l3_conf *c = &l3p[p].ifc.c;
		uint64_t arp, nd, echo, drop;
		json_t *jh;

		if (!l3p[p].on)
			continue;
		jh = json_array();
		sums(p, &arp, &nd, &echo, &drop);
		for (unsigned k = 0; k < nhops; k++)
			if (hops[k].port == p)
				json_array_append_new(
				    jh, json_pack(
					    "{s:o, s:s, s:b, s:i, s:f}", "ip",
					    json_addr(true, hops[k].ip,
						      hops[k].v6, -1),
					    "mac",
					    mac_str(hops[k].mac, m, sizeof(m)),
					    "gateway", hops[k].gateway,
					    "requests", hops[k].requests,
					    "resolve_s", hops[k].secs));
		json_array_append_new(
		    arr,
		    json_pack(
			"{s:i, s:o, s:o, s:o, s:o, s:o, s:I, s:I, s:I, s:I}",
			"port", p, "ipv4",
			json_addr(c->has4, c->ip4, false, c->plen4), "ipv6",
			json_addr(c->has6, c->ip6, true, c->plen6), "gateway4",
			json_addr(c->gw4_set, c->gw4, false, -1), "gateway6",
			json_addr(c->gw6_set, c->gw6, true, -1), "next_hops",
			jh, "arp_answered", (json_int_t)arp, "nd_answered",
			(json_int_t)nd, "echo_answered", (json_int_t)echo,
			"answers_dropped", (json_int_t)drop));
	}
	return arr;
}

void
pg_l3_fini(void)
{
	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++) {
		free(l3p[p].cnt);
		l3p[p].cnt = NULL;
		l3p[p].on = false;
	}
	free(hops);
	hops = NULL;
	nhops = 0;
}
