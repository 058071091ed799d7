/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tel.h - lr-telemetry's parts (private to apps/telemetry): the client of
 * DPDK's telemetry v2 socket (tel_socket.c), the Prometheus metrics built
 * from its replies (prom_metrics.c, prom_walk.c) and the HTTP exporter
 * that serves them (prom_http.c).
 *
 * The protocol (DPDK 22.11 lib/telemetry, and linerate's lib/telemetry,
 * which speaks it byte for byte): a SOCK_SEQPACKET socket; on connect the
 * server sends one message, {"version": S, "pid": N, "max_output_len":
 * N}; each request is one message "/command" or "/command,params" (the
 * server reads at most 1023 bytes of it and looks up at most 55 bytes of
 * command); each reply is one message {"/command": VALUE}, VALUE null for
 * an unknown command or bad parameters, never longer than max_output_len.
 *
 * Error model: functions return 0 (or a count) on success and a negative
 * errno on failure, with a message naming what was wrong (the socket's
 * path, the command) written into the caller's err buffer; nothing is
 * printed here. -ENOENT and -ECONNREFUSED: no process behind the path;
 * -EPROTO: a reply that is not JSON or not a telemetry reply; -EMSGSIZE:
 * a reply cut at (or longer than) the peer's max_output_len; -EINVAL: a
 * request the server would cut or misread.
 *
 * Threads: a struct tel_conn belongs to one thread; the exporter opens
 * one per scrape.
 */
#ifndef TEL_H
#define TEL_H

#include <stddef.h>
#include <stdio.h>
#include <sys/un.h>

#include <jansson.h>

#define TEL_SOCKET_NAME "dpdk_telemetry.v2"
/* The server's request buffer (1024 bytes, one for the terminator) and
 * its command names (56 bytes with the terminator): DPDK's limits. */
#define TEL_MAX_REQUEST 1023
#define TEL_MAX_COMMAND 55
/* Seconds a peer may take to answer before the client gives up. */
#define TEL_TIMEOUT_S 5
#define TEL_ERR_LEN   512

/** An open connection to a telemetry socket. */
struct tel_conn {
	int fd;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	size_t max_output_len; /* from the greeting */
	long long pid;	       /* from the greeting */
	char version[64];      /* from the greeting */
	char *buf;	       /* max_output_len + 1 bytes */
};

/** The socket path of DPDK's runtime folder for prefix and instance (0:
 *  the first), as DPDK's dpdk-telemetry.py finds it: 0, or -ENAMETOOLONG
 *  with err set. */
int tel_socket_path(const char *prefix, unsigned int instance, char *path,
		    size_t n, char *err);

/** Connect to path and read the greeting: 0 or a negative errno, err
 *  naming the path. */
int tel_open(struct tel_conn *c, const char *path, char *err);

/** Close c (a closed or zeroed c is left alone). */
void tel_close(struct tel_conn *c);

/** Check request req as the server would read it: 0, or -EINVAL with err
 *  saying what is wrong. */
int tel_check_request(const char *req, char *err);

/** Send req and read its reply: the whole reply object into *reply (the
 *  caller's reference) and its value (borrowed from it) into *value; 0 or
 *  a negative errno with err set. */
int tel_query(struct tel_conn *c, const char *req, json_t **reply,
	      json_t **value, char *err);

/** The text of a JSON document as lr-telemetry prints it: indented by 2
 *  (compact: one line); malloc'd, NULL when out of memory. */
char *tel_dump(const json_t *j, int compact);

/* ---- The exporter ---- */

/** Where the exporter listens and what it asks. */
struct prom_config {
	char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char addr[64];	   /* numeric IPv4 or IPv6 address */
	unsigned int port; /* 0: one the kernel picks */
	int verbose;	   /* a line on stderr per request */
};

/** Parse "[ADDR:]PORT" (ADDR numeric IPv4, or IPv6 in brackets; default
 *  127.0.0.1) into cfg: 0, or -EINVAL with err naming what was wrong. */
int prom_parse_listen(const char *arg, struct prom_config *cfg, char *err);

/** Serve GET /metrics until SIGINT or SIGTERM: the exit status (lr_app.h),
 *  after a message on stderr when it is not 0. */
int prom_serve(const struct prom_config *cfg);

/** One scrape of the process at sock_path: the metrics text (Prometheus
 *  text format 0.0.4) into a malloc'd *text of *len bytes. 0, or -ENOMEM.
 *  A process that does not answer gives linerate_up 0, not an error. */
int prom_scrape(const char *sock_path, char **text, size_t *len);

/* prom_metrics.c's collection of samples, filled by the scrape. */
struct prom_set;

/** Add one sample of family name (created with type and help on its first
 *  use) with labels (already written as {a="x",...} or "") and value. */
int prom_add(struct prom_set *s, const char *name, const char *type,
	     const char *help, const char *labels, const char *value);

/** Write JSON number or boolean j as a sample value into buf (n bytes):
 *  0, or -1 when j is no number. */
int prom_value(const json_t *j, char *buf, size_t n);

/** Append label name="value" (value escaped) to labels (n bytes). */
void prom_label(char *labels, size_t n, const char *name, const char *value);

/** The numeric leaves of v as metrics named base_<path> with labels:
 *  objects extend the name, arrays add an index label named after their
 *  key (node, order, lcore, port, queue, pool, else index). A number
 *  of a /linerate/ command (cmd) not named ..._total is a gauge. */
void prom_walk(struct prom_set *s, const json_t *v, const char *base,
	       const char *labels, const char *key, const char *cmd);

/** The label name for the elements of an array, or the items of a list,
 *  found at key (a path or key naming orders, nodes, lcores, ports,
 *  queues, pools or streams; else "index"). */
const char *prom_label_for(const char *key);

/** Turn a name part into [a-z0-9_] (lower case, others '_'), in place. */
void prom_sanitize(char *s);

#endif /* TEL_H */
