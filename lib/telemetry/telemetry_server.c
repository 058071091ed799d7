/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The server: one control thread polls the listening socket, a wake-up
 * eventfd and up to LR_TELEMETRY_MAX_CLIENTS clients. Every socket is
 * non-blocking, so no client can stall the thread:
 * - a client beyond the bound is accepted and closed at once, as DPDK
 *   does; those served are unaffected. The bound is DPDK's 10, so that a
 *   client sees the same limit on either; it caps the fds and the time
 *   one poll round can take (10 replies of at most 16 kB);
 * - a client that sends nothing for the idle timeout is closed;
 * - a reply is sent with MSG_DONTWAIT: a client whose socket buffer is
 *   full (it stopped reading) is closed instead of waited for.
 * On connect a client gets DPDK's greeting
 * {"version":"...","pid":N,"max_output_len":16384}; each request (one
 * message, at most 1023 bytes read) gets one reply from
 * lr_telemetry_answer(); an empty message closes the connection, as it
 * does in DPDK (its read() returns 0).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "telemetry_private.h"

struct client {
	int fd;		  /* -1: free slot */
	uint64_t last_ms; /* when it last sent a request (or connected) */
};

static struct {
	bool running;
	pid_t pid; /* the process that started it (not a forked child) */
	pthread_t thread;
	int listen_fd;
	int wake_fd;
	unsigned idle_ms;
	void (*log)(int err, const char *msg);
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct tel_link link;
	struct client clients[LR_TELEMETRY_MAX_CLIENTS];
	atomic_uint nb_clients;
	char reply[LR_TELEMETRY_MAX_OUTPUT_LEN + 1];
} srv = {.listen_fd = -1, .wake_fd = -1};

static void __attribute__((format(printf, 2, 3)))
tel_log(int err, const char *fmt, ...)
{
	char msg[PATH_MAX + 256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (srv.log != NULL)
		srv.log(err, msg);
	else
		fprintf(stderr, "TELEMETRY: %s\n", msg);
}

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Send one message without waiting; false if the client must go. */
static bool
send_reply(int fd, const char *buf, size_t len)
{
	ssize_t n = send(fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);

	return n == (ssize_t)len;
}

static void
client_close(struct client *c)
{
	close(c->fd);
	c->fd = -1;
	atomic_fetch_sub(&srv.nb_clients, 1);
}

/* Take every pending connection: greet it, or close it when full. */
static void
accept_clients(void)
{
	for (;;) {
		int fd = accept4(srv.listen_fd, NULL, NULL,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct client *c = NULL;
		int n;

		if (fd < 0)
			return;
		for (unsigned i = 0; i < LR_TELEMETRY_MAX_CLIENTS; i++)
			if (srv.clients[i].fd < 0) {
				c = &srv.clients[i];
				break;
			}
		if (c == NULL) {
			close(fd);
			continue;
		}
		n = snprintf(srv.reply, sizeof(srv.reply),
			     "{\"version\":\"%s\",\"pid\":%d,"
			     "\"max_output_len\":%d}",
			     LR_TELEMETRY_VERSION, (int)getpid(),
			     LR_TELEMETRY_MAX_OUTPUT_LEN);
		if (!send_reply(fd, srv.reply, (size_t)n)) {
			close(fd);
			continue;
		}
		c->fd = fd;
		c->last_ms = now_ms();
		atomic_fetch_add(&srv.nb_clients, 1);
	}
}

/* Read and answer one request of c; false if c must be closed. */
static bool
serve(struct client *c)
{
	char req[LR_TELEMETRY_MAX_REQUEST_LEN];
	ssize_t n = recv(c->fd, req, sizeof(req), MSG_DONTWAIT);
	int len;

	if (n < 0)
		return errno == EAGAIN || errno == EINTR;
	if (n == 0)
		return false; /* end of stream, or an empty message */
	c->last_ms = now_ms();
	len = lr_telemetry_answer(req, (size_t)n, srv.reply, sizeof(srv.reply));
	return len > 0 && send_reply(c->fd, srv.reply, (size_t)len);
}

/* The poll timeout: until the first client goes idle, or -1. */
static int
next_timeout(uint64_t now)
{
	int64_t t = -1;

	for (unsigned i = 0; i < LR_TELEMETRY_MAX_CLIENTS; i++) {
		const struct client *c = &srv.clients[i];
		int64_t left;

		if (c->fd < 0)
			continue;
		left = (int64_t)(c->last_ms + srv.idle_ms) - (int64_t)now;
		if (left < 0)
			left = 0;
		if (t < 0 || left < t)
			t = left;
	}
	return (int)t;
}

/* One round over the clients poll() reported on in pfd[2..]. */
static void
clients_round(const struct pollfd *pfd, const int *slot, unsigned n)
{
	uint64_t now = now_ms();

	for (unsigned i = 0; i < n; i++) {
		struct client *c = &srv.clients[slot[i]];
		short ev = pfd[i].revents;

		if ((ev & POLLIN) && serve(c))
			continue;
		if (ev & (POLLIN | POLLHUP | POLLERR | POLLNVAL))
			client_close(c);
	}
	for (unsigned i = 0; i < LR_TELEMETRY_MAX_CLIENTS; i++) {
		struct client *c = &srv.clients[i];

		if (c->fd >= 0 && now >= c->last_ms + srv.idle_ms)
			client_close(c);
	}
}

static void *
server_thread(void *arg)
{
	struct pollfd pfd[2 + LR_TELEMETRY_MAX_CLIENTS];
	int slot[LR_TELEMETRY_MAX_CLIENTS];
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (;;) {
		unsigned n = 0;

		pfd[0] = (struct pollfd){.fd = srv.wake_fd, .events = POLLIN};
		pfd[1] = (struct pollfd){.fd = srv.listen_fd, .events = POLLIN};
		for (unsigned i = 0; i < LR_TELEMETRY_MAX_CLIENTS; i++) {
			if (srv.clients[i].fd < 0)
				continue;
			pfd[2 + n] = (struct pollfd){.fd = srv.clients[i].fd,
						     .events = POLLIN};
			slot[n++] = (int)i;
		}
		if (poll(pfd, 2 + n, next_timeout(now_ms())) < 0 &&
		    errno != EINTR) {
			tel_log(1, "poll: %s; telemetry thread quits",
				strerror(errno));
			break;
		}
		if (pfd[0].revents)
			break;
		clients_round(pfd + 2, slot, n);
		if (pfd[1].revents & POLLIN)
			accept_clients();
	}
	return NULL;
}

/* Bind and listen at srv.path (0600): the fd or -errno. A socket file
 * left there by a dead process is replaced; a live one is not. */
static int
listen_at(void)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	int fd, rc;

	strcpy(sun.sun_path, srv.path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0) {
		rc = -errno;
		if (rc != -EADDRINUSE || lr_telemetry_live_(srv.path))
			goto close_fd;
		unlink(srv.path);
		if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0) {
			rc = -errno;
			goto close_fd;
		}
	}
	/* The folder is 0700: nobody else reaches the socket before this. */
	if (chmod(srv.path, 0600) != 0 || listen(fd, 64) != 0) {
		rc = -errno;
		goto unlink_path;
	}
	return fd;

unlink_path:
	unlink(srv.path);
close_fd:
	close(fd);
	return rc;
}

/* Start the thread on conf's CPUs; 0 or -errno. */
static int
start_thread(const struct lr_telemetry_conf *conf)
{
	pthread_attr_t attr;
	cpu_set_t set;
	int rc;

	pthread_attr_init(&attr);
	if (conf->nb_cpus > 0) {
		CPU_ZERO(&set);
		for (unsigned i = 0; i < conf->nb_cpus; i++)
			if (conf->cpus[i] >= 0 && conf->cpus[i] < CPU_SETSIZE)
				CPU_SET(conf->cpus[i], &set);
		pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	}
	rc = pthread_create(&srv.thread, &attr, server_thread, NULL);
	pthread_attr_destroy(&attr);
	if (rc != 0)
		return -rc;
	pthread_setname_np(srv.thread, "lr-telemetry");
	return 0;
}

/* The DPDK link, if asked for; its failure costs only the link. */
static void
make_link(const char *prefix)
{
	int rc = lr_telemetry_link_make_(&srv.link, prefix, srv.path);

	if (rc == -EADDRINUSE)
		tel_log(0,
			"a live process answers on %s: no link to %s made "
			"there",
			srv.link.path, srv.path);
	else if (rc < 0)
		tel_log(0, "no link to %s at DPDK's path for prefix '%s': %s",
			srv.path, prefix, strerror(-rc));
}

int
lr_telemetry_start(const struct lr_telemetry_conf *conf)
{
	int rc;

	if (conf == NULL || conf->runtime_dir == NULL ||
	    conf->runtime_dir[0] == '\0' || (conf->nb_cpus && !conf->cpus))
		return -EINVAL;
	if (srv.running)
		return -EALREADY;
	srv.log = conf->log;
	srv.idle_ms = conf->idle_timeout_ms ? conf->idle_timeout_ms
					    : LR_TELEMETRY_IDLE_TIMEOUT_MS;
	if (snprintf(srv.path, sizeof(srv.path), "%s/dpdk_telemetry.v2",
		     conf->runtime_dir) >= (int)sizeof(srv.path)) {
		tel_log(1, "socket path %s/dpdk_telemetry.v2 is too long",
			conf->runtime_dir);
		return -ENAMETOOLONG;
	}
	lr_telemetry_builtins_();
	for (unsigned i = 0; i < LR_TELEMETRY_MAX_CLIENTS; i++)
		srv.clients[i].fd = -1;
	atomic_store(&srv.nb_clients, 0);
	srv.wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (srv.wake_fd < 0) {
		rc = -errno;
		tel_log(1, "eventfd: %s", strerror(errno));
		return rc;
	}
	srv.listen_fd = listen_at();
	if (srv.listen_fd < 0) {
		rc = srv.listen_fd;
		tel_log(1, "cannot listen on %s: %s%s", srv.path, strerror(-rc),
			rc == -EADDRINUSE ? " (a live process answers there)"
					  : "");
		goto close_wake;
	}
	if (conf->dpdk_prefix != NULL)
		make_link(conf->dpdk_prefix);
	rc = start_thread(conf);
	if (rc < 0) {
		tel_log(1, "cannot start the telemetry thread: %s",
			strerror(-rc));
		goto close_listen;
	}
	srv.pid = getpid();
	srv.running = true;
	return 0;

close_listen:
	lr_telemetry_link_remove_(&srv.link);
	close(srv.listen_fd);
	srv.listen_fd = -1;
	unlink(srv.path);
close_wake:
	close(srv.wake_fd);
	srv.wake_fd = -1;
	srv.path[0] = '\0';
	return rc;
}

void
lr_telemetry_stop(void)
{
	uint64_t one = 1;

	/* A forked child shares the eventfd but not the thread. */
	if (!srv.running || srv.pid != getpid())
		return;
	if (write(srv.wake_fd, &one, sizeof(one)) != sizeof(one))
		tel_log(1, "cannot wake the telemetry thread: %s",
			strerror(errno));
	pthread_join(srv.thread, NULL);
	for (unsigned i = 0; i < LR_TELEMETRY_MAX_CLIENTS; i++)
		if (srv.clients[i].fd >= 0)
			client_close(&srv.clients[i]);
	close(srv.listen_fd);
	srv.listen_fd = -1;
	close(srv.wake_fd);
	srv.wake_fd = -1;
	unlink(srv.path);
	srv.path[0] = '\0';
	lr_telemetry_link_remove_(&srv.link);
	srv.running = false;
}

const char *
lr_telemetry_socket_path(void)
{
	return srv.running ? srv.path : NULL;
}

const char *
lr_telemetry_dpdk_link(void)
{
	return srv.running && srv.link.made ? srv.link.path : NULL;
}

unsigned
lr_telemetry_client_count(void)
{
	return atomic_load(&srv.nb_clients);
}
