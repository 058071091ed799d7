/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The exporter's HTTP/1.1 server (tel.h's prom_serve): GET (and HEAD)
 * /metrics answers a fresh scrape (prom_scrape); another path 404, another
 * method 405, a malformed request 400, a request head over REQ_MAX bytes
 * 431, one not complete within CONN_TIMEOUT_S seconds 408. Each connection
 * is served by a thread of its own, at most MAX_CONNS at once (one more
 * is answered 503 at once); each answer closes its connection.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "lr_app.h"
#include "tel.h"

#define PROG	       "lr-telemetry"
#define REQ_MAX	       8192
#define CONN_TIMEOUT_S 10
#define MAX_CONNS      16

static volatile sig_atomic_t stop;
static atomic_int active;

/* One connection: its socket and what serves it. */
struct conn {
	int fd;
	const struct prom_config *cfg;
};

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* Parse the port of "[ADDR:]PORT" at p into cfg. */
static int
parse_port(const char *p, struct prom_config *cfg, char *err)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(p, &end, 10);
	if (*p == '\0' || end == p || *end || v < 0 || v > 65535 || errno ||
	    *p == '-' || *p == '+') {
		snprintf(err, TEL_ERR_LEN,
			 "--prometheus: want a port 0..65535 "
			 "(0: any free), not '%s', in",
			 p);
		return -EINVAL;
	}
	cfg->port = (unsigned int)v;
	return 0;
}

int
prom_parse_listen(const char *arg, struct prom_config *cfg, char *err)
{
	const char *colon = strrchr(arg, ':');
	unsigned char b[sizeof(struct in6_addr)];
	size_t n;

	snprintf(cfg->addr, sizeof(cfg->addr), "127.0.0.1");
	if (colon == NULL)
		return parse_port(arg, cfg, err);
	n = (size_t)(colon - arg);
	if (n > 0 && arg[0] == '[' && arg[n - 1] == ']') {
		snprintf(cfg->addr, sizeof(cfg->addr), "%.*s", (int)(n - 2),
			 arg + 1);
		if (n - 2 >= sizeof(cfg->addr) ||
		    inet_pton(AF_INET6, cfg->addr, b) != 1) {
			snprintf(err, TEL_ERR_LEN,
				 "--prometheus: '%.*s' is no "
				 "IPv6 address, in",
				 (int)n, arg);
			return -EINVAL;
		}
	} else if (n > 0) {
		snprintf(cfg->addr, sizeof(cfg->addr), "%.*s", (int)n, arg);
		if (n >= sizeof(cfg->addr) ||
		    inet_pton(AF_INET, cfg->addr, b) != 1) {
			snprintf(err, TEL_ERR_LEN,
				 "--prometheus: '%.*s' is no "
				 "IPv4 address (IPv6 goes in brackets: "
				 "[::1]:PORT), in",
				 (int)n, arg);
			return -EINVAL;
		}
	}
	return parse_port(colon + 1, cfg, err);
}

/* Send all of buf (n bytes): 0 or -1. */
static int
send_all(int fd, const char *buf, size_t n)
{
	ssize_t w;

	while (n > 0) {
		w = send(fd, buf, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Answer status (e.g. "404 Not Found") with body (type: its content
 * type), the body left out for HEAD. */
static void
answer(int fd, const char *status, const char *type, const char *body,
       size_t len, int head, const char *extra)
{
	char h[512];
	int n;

	n = snprintf(h, sizeof(h),
		     "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: "
		     "%zu\r\n%sConnection: close\r\n\r\n",
		     status, type, len, extra);
	if (send_all(fd, h, (size_t)n) == 0 && !head)
		send_all(fd, body, len);
}

/* A short plain-text answer. */
static void
answer_text(int fd, const char *status, const char *text, const char *extra)
{
	answer(fd, status, "text/plain; charset=utf-8", text, strlen(text), 0,
	       extra);
}

/* Read the request head (up to the blank line) into buf: its length, or
 * -413 (too long), -408 (timed out), -1 (closed or failed). */
static long
read_head(int fd, char *buf)
{
	struct timespec t0, t;
	size_t got = 0;
	struct pollfd p = {.fd = fd, .events = POLLIN};
	long left;
	ssize_t r;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		buf[got] = '\0';
		if (strstr(buf, "\r\n\r\n") != NULL ||
		    strstr(buf, "\n\n") != NULL)
			return (long)got;
		if (got == REQ_MAX)
			return -413;
		clock_gettime(CLOCK_MONOTONIC, &t);
		left = CONN_TIMEOUT_S * 1000L - (t.tv_sec - t0.tv_sec) * 1000L -
		       (t.tv_nsec - t0.tv_nsec) / 1000000L;
		if (left <= 0)
			return -408;
		if (poll(&p, 1, (int)left) < 0 && errno != EINTR)
			return -1;
		if (!(p.revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		r = recv(fd, buf + got, REQ_MAX - got, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
}

/* Serve GET or HEAD /metrics (head: HEAD). */
static void
serve_metrics(int fd, const struct prom_config *cfg, int head)
{
	char *text = NULL;
	size_t len = 0;

	if (prom_scrape(cfg->sock_path, &text, &len) != 0) {
		answer_text(fd, "500 Internal Server Error",
			    "out of memory building the metrics\n", "");
		free(text);
		return;
	}
	answer(fd, "200 OK", "text/plain; version=0.0.4; charset=utf-8", text,
	       len, head, "");
	free(text);
}

/* Answer the request head in buf. */
static void
serve_request(int fd, const struct prom_config *cfg, char *buf)
{
	char method[16], target[256], version[16], *q;

	if (sscanf(buf, "%15[A-Z] %255[^ \r\n] %15[^ \r\n]", method, target,
		   version) != 3 ||
	    strncmp(version, "HTTP/1.", 7) != 0) {
		answer_text(fd, "400 Bad Request",
			    "a request line is METHOD PATH HTTP/1.x\n", "");
		return;
	}
	if (cfg->verbose)
		fprintf(stderr, PROG ": %s %s\n", method, target);
	q = strchr(target, '?');
	if (q != NULL)
		*q = '\0';
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		answer_text(fd, "405 Method Not Allowed",
			    "only GET and HEAD are served\n",
			    "Allow: GET, HEAD\r\n");
	else if (strcmp(target, "/metrics") != 0)
		answer_text(fd, "404 Not Found",
			    "not found: the metrics are at /metrics\n", "");
	else
		serve_metrics(fd, cfg, strcmp(method, "HEAD") == 0);
}

/* Half-close fd, then read what the peer still sends (up to 1 MiB, 1 s
 * at most between reads) before closing: the peer reads the answer
 * rather than a reset for what it sent beyond the head we read. */
static void
drain_close(int fd)
{
	struct timeval tv = {.tv_sec = 1};
	char sink[4096];
	size_t total = 0;
	ssize_t r;

	shutdown(fd, SHUT_WR);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	do
		r = recv(fd, sink, sizeof(sink), 0);
	while ((r > 0 && (total += (size_t)r) < (1u << 20)) ||
	       (r < 0 && errno == EINTR));
	close(fd);
}

/* A connection's thread. */
static void *
serve_conn(void *arg)
{
	struct conn *c = arg;
	struct timeval tv = {.tv_sec = CONN_TIMEOUT_S};
	char *buf = malloc(REQ_MAX + 1);
	long n;

	setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	n = buf != NULL ? read_head(c->fd, buf) : -1;
	if (n == -413)
		answer_text(c->fd, "431 Request Header Fields Too Large",
			    "the request head is over 8192 bytes\n", "");
	else if (n == -408)
		answer_text(c->fd, "408 Request Timeout",
			    "the request did not come within 10 s\n", "");
	else if (n > 0)
		serve_request(c->fd, c->cfg, buf);
	drain_close(c->fd);
	free(buf);
	free(c);
	atomic_fetch_sub(&active, 1);
	return NULL;
}

/* Hand connection fd to a thread of its own (or answer 503). */
static void
dispatch(int fd, const struct prom_config *cfg)
{
	struct conn *c;
	pthread_attr_t attr;
	pthread_t t;

	if (atomic_fetch_add(&active, 1) >= MAX_CONNS ||
	    (c = malloc(sizeof(*c))) == NULL) {
		answer_text(fd, "503 Service Unavailable",
			    "too many connections at once\n", "");
		close(fd);
		atomic_fetch_sub(&active, 1);
		return;
	}
	c->fd = fd;
	c->cfg = cfg;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &attr, serve_conn, c) != 0) {
		answer_text(fd, "503 Service Unavailable",
			    "cannot start a thread for the connection\n", "");
		close(fd);
		free(c);
		atomic_fetch_sub(&active, 1);
	}
	pthread_attr_destroy(&attr);
}

/* The listening socket for cfg: its fd, or -1 after a message. */
static int
listen_on(const struct prom_config *cfg, char *shown, size_t n)
{
	struct sockaddr_storage ss = {0};
	struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
	int v6 = strchr(cfg->addr, ':') != NULL, one = 1, fd;
	socklen_t len = v6 ? sizeof(*a6) : sizeof(*a4);

	ss.ss_family = v6 ? AF_INET6 : AF_INET;
	if (v6) {
		inet_pton(AF_INET6, cfg->addr, &a6->sin6_addr);
		a6->sin6_port = htons((uint16_t)cfg->port);
	} else {
		inet_pton(AF_INET, cfg->addr, &a4->sin_addr);
		a4->sin_port = htons((uint16_t)cfg->port);
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(fd, (struct sockaddr *)&ss, len) != 0 || listen(fd, 64) != 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &len) != 0) {
		fprintf(stderr, PROG ": --prometheus %s%s%s:%u: %s\n",
			v6 ? "[" : "", cfg->addr, v6 ? "]" : "", cfg->port,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	snprintf(shown, n, "%s%s%s:%u", v6 ? "[" : "", cfg->addr, v6 ? "]" : "",
		 ntohs(v6 ? a6->sin6_port : a4->sin_port));
	return fd;
}

int
prom_serve(const struct prom_config *cfg)
{
	struct sigaction sa = {.sa_handler = on_signal};
	char shown[96], err[TEL_ERR_LEN];
	struct tel_conn c;
	int fd, cfd;

	fd = listen_on(cfg, shown, sizeof(shown));
	if (fd < 0)
		return LR_EXIT_FAILURE;
	if (strcmp(cfg->addr, "0.0.0.0") == 0 || strcmp(cfg->addr, "::") == 0)
		fprintf(stderr,
			PROG ": note: listening on every address (%s): any "
			     "host that reaches this one can read the "
			     "metrics\n",
			cfg->addr);
	if (tel_open(&c, cfg->sock_path, err) != 0)
		fprintf(stderr,
			PROG ": note: %s: linerate_up is 0 until a "
			     "process answers there\n",
			err);
	tel_close(&c);
	/* No SA_RESTART: a signal ends accept() and the loop. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	printf("serving http://%s/metrics for '%s'\n", shown, cfg->sock_path);
	fflush(stdout);
	while (!stop) {
		cfd = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
		if (cfd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			/* Out of descriptors: wait for a connection to end
			 * rather than spin. */
			if (errno == EMFILE || errno == ENFILE) {
				poll(NULL, 0, 100);
				continue;
			}
			fprintf(stderr, PROG ": accept: %s\n", strerror(errno));
			close(fd);
			return LR_EXIT_FAILURE;
		}
		dispatch(cfd, cfg);
	}
	close(fd);
	return LR_EXIT_OK;
}
