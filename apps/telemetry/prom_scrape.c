/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One scrape (tel.h's prom_scrape): the commands asked, in order, and the
 * metrics made of their replies.
 *
 *   /info, /                the process (linerate_up, linerate_process_info)
 *   /ethdev/list            then per port N: /ethdev/info,N (queue counts),
 *                           /ethdev/stats,N, /ethdev/xstats,N,
 *                           /ethdev/link_status,N
 *   /mempool/list           then /mempool/info,NAME per pool
 *   /eal/lcore/list         then /eal/lcore/info,N (when '/' lists them)
 *   /linerate/...           each command '/' lists, without parameters,
 *                           read generically (prom_walk); a list of names
 *                           asked name by name (scrape_named)
 *
 * Every name begins with linerate_, whoever the peer is (a DPDK process
 * too): the names stay the same when a linerate process replaces a DPDK
 * one, and linerate_process_info says which it is.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "prom_set.h"

/* A reply key and the family it becomes. */
struct map {
	const char *key;
	const char *name;
	const char *type;
	const char *help;
};

/* /ethdev/stats: the port's totals. */
static const struct map port_stats[] = {
    {"ipackets", "linerate_port_rx_packets_total", "counter",
     "Packets the port received (ethdev ipackets)"},
    {"opackets", "linerate_port_tx_packets_total", "counter",
     "Packets the port sent (ethdev opackets)"},
    {"ibytes", "linerate_port_rx_bytes_total", "counter",
     "Bytes the port received (ethdev ibytes)"},
    {"obytes", "linerate_port_tx_bytes_total", "counter",
     "Bytes the port sent (ethdev obytes)"},
    {"imissed", "linerate_port_rx_missed_packets_total", "counter",
     "Packets dropped on receive with the receive queues full (imissed)"},
    {"ierrors", "linerate_port_rx_errors_total", "counter",
     "Erroneous packets received (ethdev ierrors)"},
    {"oerrors", "linerate_port_tx_errors_total", "counter",
     "Packets the port failed to send (ethdev oerrors)"},
    {"rx_nombuf", "linerate_port_rx_nombuf_total", "counter",
     "Receive buffer allocations that failed (ethdev rx_nombuf)"},
    {NULL, NULL, NULL, NULL},
};

/* /ethdev/stats: per-queue arrays ('r': receive queues, 't': transmit). */
static const struct map queue_stats[] = {
    {"q_ipackets", "linerate_port_queue_rx_packets_total", "r",
     "Packets received on the queue (ethdev q_ipackets)"},
    {"q_opackets", "linerate_port_queue_tx_packets_total", "t",
     "Packets sent on the queue (ethdev q_opackets)"},
    {"q_ibytes", "linerate_port_queue_rx_bytes_total", "r",
     "Bytes received on the queue (ethdev q_ibytes)"},
    {"q_obytes", "linerate_port_queue_tx_bytes_total", "t",
     "Bytes sent on the queue (ethdev q_obytes)"},
    {"q_errors", "linerate_port_queue_rx_errors_total", "r",
     "Packets dropped on the receive queue (ethdev q_errors)"},
    {NULL, NULL, NULL, NULL},
};

/* /ethdev/info: what a port is configured with. */
static const struct map port_info[] = {
    {"nb_rx_queues", "linerate_port_rx_queues", "gauge",
     "Receive queues of the port"},
    {"nb_tx_queues", "linerate_port_tx_queues", "gauge",
     "Transmit queues of the port"},
    {"mtu", "linerate_port_mtu_bytes", "gauge", "MTU of the port"},
    {"dev_started", "linerate_port_started", "gauge",
     "1 when the port is started"},
    {"promiscuous", "linerate_port_promiscuous", "gauge",
     "1 when the port is promiscuous"},
    {NULL, NULL, NULL, NULL},
};

/* /mempool/info: a pool's sizes (ids and flags are left out). */
static const struct map pool_info[] = {
    {"size", "linerate_mempool_objects", "gauge",
     "Objects of the pool, in all"},
    {"populated_size", "linerate_mempool_populated_objects", "gauge",
     "Objects of the pool backed by memory"},
    {"cache_size", "linerate_mempool_cache_objects", "gauge",
     "Size of each lcore's cache of the pool"},
    {"avail_count", "linerate_mempool_available_objects", "gauge",
     "Objects free in the pool (its store and caches)"},
    {"in_use_count", "linerate_mempool_in_use_objects", "gauge",
     "Objects of the pool in use"},
    {"elt_size", "linerate_mempool_object_size_bytes", "gauge",
     "Size of an object of the pool"},
    {"header_size", "linerate_mempool_object_header_bytes", "gauge",
     "Size of an object's header"},
    {"trailer_size", "linerate_mempool_object_trailer_bytes", "gauge",
     "Size of an object's trailer"},
    {"private_data_size", "linerate_mempool_private_bytes", "gauge",
     "Size of the pool's private data"},
    {"mz_len", "linerate_mempool_memzone_bytes", "gauge",
     "Size of the pool's memory zone"},
    {NULL, NULL, NULL, NULL},
};

/* Keys of /mempool/info and /eal/lcore/info that are ids, not values. */
static const char *const id_keys[] = {
    "id",	 "pool_id",  "flags",	     "socket_id",
    "ops_index", "mz_flags", "mz_socket_id", "mz_hugepage_sz",
    "lcore_id",	 "socket",   "cpuset",	     NULL,
};

/* No key mapped: add_mapped() walks every key but the ids. */
static const struct map no_map[] = {{NULL, NULL, NULL, NULL}};

/* One scrape in progress. */
struct scrape {
	struct tel_conn c;
	struct prom_set set;
	json_t *cmds; /* the reply of '/' */
	int lost;     /* the connection is of no more use */
	int errors;   /* commands whose reply did not come right */
};

/* Ask req: its value (owned by *reply, which the caller frees), or NULL
 * for a null reply or a failure (counted; a lost connection marked). */
static json_t *
ask(struct scrape *sc, const char *req, json_t **reply)
{
	char err[TEL_ERR_LEN];
	json_t *v;
	int ret;

	*reply = NULL;
	if (sc->lost)
		return NULL;
	ret = tel_query(&sc->c, req, reply, &v, err);
	if (ret != 0) {
		sc->errors++;
		sc->lost = ret != -EMSGSIZE && ret != -EPROTO;
		return NULL;
	}
	if (json_is_null(v))
		return NULL;
	return v;
}

/* Whether '/' lists cmd. */
static int
listed(const struct scrape *sc, const char *cmd)
{
	const json_t *x;
	size_t i;

	json_array_foreach(sc->cmds, i, x) if (json_is_string(x) &&
					       strcmp(json_string_value(x),
						      cmd) == 0) return 1;
	return 0;
}

static int
is_id_key(const char *k)
{
	size_t i;

	for (i = 0; id_keys[i] != NULL; i++)
		if (strcmp(id_keys[i], k) == 0)
			return 1;
	return 0;
}

/* Add the sample of j (when it is a number) to family name. */
static void
add(struct scrape *sc, const char *name, const char *type, const char *help,
    const char *labels, const json_t *j)
{
	char v[40];

	if (prom_value(j, v, sizeof(v)) == 0)
		prom_add(&sc->set, name, type, help, labels, v);
}

/* The mapped keys of object o; the others through prom_walk under base
 * (ids left out) when base is not NULL. */
static void
add_mapped(struct scrape *sc, const json_t *o, const struct map *m,
	   const char *labels, const char *base, const char *cmd)
{
	const char *k;
	json_t *x;
	size_t i;

	json_object_foreach((json_t *)o, k, x)
	{
		for (i = 0; m[i].key != NULL; i++)
			if (strcmp(m[i].key, k) == 0)
				break;
		if (m[i].key != NULL)
			add(sc, m[i].name, m[i].type, m[i].help, labels, x);
		else if (base != NULL && !is_id_key(k))
			prom_walk(&sc->set, x, base, labels, k, cmd);
	}
}

/* The per-queue arrays of stats, up to the port's queue counts (from
 * info; all entries without it). */
static void
add_queues(struct scrape *sc, const json_t *stats, const json_t *info,
	   const char *port_labels)
{
	long long nrx = -1, ntx = -1, lim;
	char labels[256], q[24];
	const json_t *a;
	size_t i, j;

	if (json_is_integer(json_object_get(info, "nb_rx_queues")))
		nrx = json_integer_value(json_object_get(info, "nb_rx_queues"));
	if (json_is_integer(json_object_get(info, "nb_tx_queues")))
		ntx = json_integer_value(json_object_get(info, "nb_tx_queues"));
	for (i = 0; queue_stats[i].key != NULL; i++) {
		a = json_object_get(stats, queue_stats[i].key);
		lim = queue_stats[i].type[0] == 'r' ? nrx : ntx;
		for (j = 0; j < json_array_size(a); j++) {
			if (lim >= 0 && (long long)j >= lim)
				break;
			snprintf(labels, sizeof(labels), "%s", port_labels);
			snprintf(q, sizeof(q), "%zu", j);
			prom_label(labels, sizeof(labels), "queue", q);
			add(sc, queue_stats[i].name, "counter",
			    queue_stats[i].help, labels, json_array_get(a, j));
		}
	}
}

/* /ethdev/link_status of a port: up, speed, duplex. */
static void
add_link(struct scrape *sc, const json_t *l, const char *labels)
{
	const char *st = json_string_value(json_object_get(l, "status"));
	const char *dx = json_string_value(json_object_get(l, "duplex"));
	const json_t *sp = json_object_get(l, "speed");
	char v[40];

	if (st != NULL)
		prom_add(&sc->set, "linerate_port_link_up", "gauge",
			 "1 when the port's link is up", labels,
			 strcmp(st, "UP") == 0 ? "1" : "0");
	if (json_is_integer(sp) && json_integer_value(sp) >= 0) {
		/* Mb/s into bytes per second, as node_exporter's
		 * node_network_speed_bytes. */
		snprintf(v, sizeof(v), "%lld",
			 (long long)json_integer_value(sp) * 125000);
		prom_add(&sc->set, "linerate_port_link_speed_bytes", "gauge",
			 "Speed of the port's link, in bytes per second",
			 labels, v);
	}
	if (dx != NULL)
		prom_add(&sc->set, "linerate_port_link_full_duplex", "gauge",
			 "1 when the port's link is full duplex", labels,
			 strcmp(dx, "full-duplex") == 0 ? "1" : "0");
}

/* Every metric of port p. */
static void
scrape_port(struct scrape *sc, long long p)
{
	json_t *r_info, *r_stats, *r_x, *r_link, *info, *stats, *x, *link;
	char req[64], labels[256] = "", pn[24], l2[512];
	const char *k;
	json_t *v;

	snprintf(pn, sizeof(pn), "%lld", p);
	prom_label(labels, sizeof(labels), "port", pn);
	snprintf(req, sizeof(req), "/ethdev/info,%lld", p);
	info = ask(sc, req, &r_info);
	if (json_is_string(json_object_get(info, "name"))) {
		snprintf(l2, sizeof(l2), "%s", labels);
		prom_label(l2, sizeof(l2), "name",
			   json_string_value(json_object_get(info, "name")));
		prom_add(&sc->set, "linerate_port_info", "gauge",
			 "The port's name (always 1)", l2, "1");
	}
	add_mapped(sc, info, port_info, labels, NULL, req);
	snprintf(req, sizeof(req), "/ethdev/stats,%lld", p);
	stats = ask(sc, req, &r_stats);
	add_mapped(sc, stats, port_stats, labels, NULL, req);
	add_queues(sc, stats, info, labels);
	snprintf(req, sizeof(req), "/ethdev/xstats,%lld", p);
	x = ask(sc, req, &r_x);
	json_object_foreach(x, k, v)
	{
		snprintf(l2, sizeof(l2), "%s", labels);
		prom_label(l2, sizeof(l2), "stat", k);
		add(sc, "linerate_port_xstats_total", "counter",
		    "The port's extended statistics (ethdev xstats), by "
		    "name",
		    l2, v);
	}
	snprintf(req, sizeof(req), "/ethdev/link_status,%lld", p);
	link = ask(sc, req, &r_link);
	if (link != NULL)
		add_link(sc, link, labels);
	json_decref(r_info);
	json_decref(r_stats);
	json_decref(r_x);
	json_decref(r_link);
}

/* Every port, pool and lcore /ethdev/list, /mempool/list and
 * /eal/lcore/list name. */
static void
scrape_lists(struct scrape *sc)
{
	char req[TEL_MAX_REQUEST + 1], labels[512];
	json_t *r_list, *list, *r, *v, *x;
	size_t i;

	list = ask(sc, "/ethdev/list", &r_list);
	json_array_foreach(list, i, x) if (json_is_integer(x))
	    scrape_port(sc, json_integer_value(x));
	json_decref(r_list);
	list = ask(sc, "/mempool/list", &r_list);
	json_array_foreach(list, i, x)
	{
		if (!json_is_string(x))
			continue;
		snprintf(req, sizeof(req), "/mempool/info,%s",
			 json_string_value(x));
		labels[0] = '\0';
		prom_label(labels, sizeof(labels), "pool",
			   json_string_value(x));
		v = ask(sc, req, &r);
		add_mapped(sc, v, pool_info, labels, "linerate_mempool", req);
		json_decref(r);
	}
	json_decref(r_list);
	if (!listed(sc, "/eal/lcore/list") || !listed(sc, "/eal/lcore/info"))
		return;
	list = ask(sc, "/eal/lcore/list", &r_list);
	json_array_foreach(list, i, x)
	{
		if (!json_is_integer(x))
			continue;
		snprintf(req, sizeof(req), "/eal/lcore/info,%lld",
			 (long long)json_integer_value(x));
		labels[0] = '\0';
		prom_label(labels, sizeof(labels), "lcore", req + 15);
		v = ask(sc, req, &r);
		add_mapped(sc, v,
			   (const struct map[]){{NULL, NULL, NULL, NULL}},
			   labels, "linerate_lcore", req);
		json_decref(r);
	}
	json_decref(r_list);
}

/* Whether v is a non-empty array of strings only (a list of names). */
static int
name_list(const json_t *v)
{
	const json_t *x;
	size_t i;

	if (!json_is_array(v) || json_array_size(v) == 0)
		return 0;
	json_array_foreach(v, i, x) if (!json_is_string(x)) return 0;
	return 1;
}

/* A /linerate/ command that answers a list of names: each name asked of
 * the command that describes one (cmd's own, or .../info for .../list, as
 * /ethdev/list and /ethdev/info go), its reply walked under a label named
 * after that command's path (pool for /linerate/page_pool/info and
 * /linerate/mempool/elastic). A name gone meanwhile answers null: left
 * out. */
static void
scrape_named(struct scrape *sc, const char *cmd, const json_t *names)
{
	char info[128], base[160], req[256], labels[256];
	size_t n = strlen(cmd), i;
	const json_t *x;
	json_t *r, *v;

	snprintf(info, sizeof(info), "%s", cmd);
	if (n > 5 && n < sizeof(info) && strcmp(cmd + n - 5, "/list") == 0) {
		snprintf(info + n - 5, sizeof(info) - (n - 5), "/info");
		if (!listed(sc, info))
			return;
	}
	snprintf(base, sizeof(base), "linerate_%s", info + 10);
	prom_sanitize(base);
	json_array_foreach(names, i, x)
	{
		snprintf(req, sizeof(req), "%s,%s", info, json_string_value(x));
		v = ask(sc, req, &r);
		if (json_is_object(v)) {
			labels[0] = '\0';
			prom_label(labels, sizeof(labels),
				   prom_label_for(info + 10),
				   json_string_value(x));
			add_mapped(sc, v, no_map, labels, base, info);
		}
		json_decref(r);
	}
}

/* Each /linerate/... command '/' lists, asked without parameters; one
 * that answers a list of names through scrape_named(). */
static void
scrape_linerate(struct scrape *sc)
{
	char base[160];
	const json_t *x;
	json_t *r, *v;
	size_t i;

	json_array_foreach(sc->cmds, i, x)
	{
		const char *cmd = json_string_value(x);

		if (cmd == NULL || strncmp(cmd, "/linerate/", 10) != 0)
			continue;
		snprintf(base, sizeof(base), "linerate_%s", cmd + 10);
		prom_sanitize(base);
		v = ask(sc, cmd, &r);
		if (name_list(v))
			scrape_named(sc, cmd, v);
		else if (v != NULL)
			prom_walk(&sc->set, v, base, "", NULL, cmd);
		json_decref(r);
	}
}

/* The metrics of the process behind sc->c (open) into sc->set. */
static void
scrape_process(struct scrape *sc)
{
	char labels[256] = "", pid[24];
	json_t *r_cmds;

	snprintf(pid, sizeof(pid), "%lld", sc->c.pid);
	prom_label(labels, sizeof(labels), "version", sc->c.version);
	prom_label(labels, sizeof(labels), "pid", pid);
	prom_add(&sc->set, "linerate_process_info", "gauge",
		 "The process answering: its version and pid (always 1)",
		 labels, "1");
	sc->cmds = ask(sc, "/", &r_cmds);
	scrape_lists(sc);
	scrape_linerate(sc);
	json_decref(r_cmds);
	sc->cmds = NULL;
}

int
prom_scrape(const char *sock_path, char **text, size_t *len)
{
	struct scrape sc = {0};
	char err[TEL_ERR_LEN], v[40];
	struct timespec t0, t1;
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (tel_open(&sc.c, sock_path, err) == 0) {
		scrape_process(&sc);
		tel_close(&sc.c);
	} else
		sc.lost = 1;
	/* A process gone during the scrape: what was read is dropped (a
	 * partial scrape would show counters missing, not a process
	 * gone). */
	if (sc.lost)
		prom_set_free(&sc.set);
	prom_add(&sc.set, "linerate_up", "gauge",
		 "1 when the process answered the scrape, else 0", "",
		 sc.lost ? "0" : "1");
	snprintf(v, sizeof(v), "%d", sc.errors);
	prom_add(&sc.set, "linerate_scrape_errors", "gauge",
		 "Commands of the scrape whose reply was cut, not JSON or "
		 "missing",
		 "", v);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	snprintf(v, sizeof(v), "%.6f",
		 (double)(t1.tv_sec - t0.tv_sec) +
		     (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	prom_add(&sc.set, "linerate_scrape_duration_seconds", "gauge",
		 "Time the scrape took", "", v);
	ret = prom_set_text(&sc.set, text, len);
	prom_set_free(&sc.set);
	return ret;
}
