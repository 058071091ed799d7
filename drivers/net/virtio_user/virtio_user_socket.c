/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_virtio_user's connection thread, one per started port. A client
 * (server=0, the default) connects to the backend's socket; its first
 * connection and set-up are made by start itself, so that a socket that
 * does not exist, a backend that refuses or closes fails the start with
 * an error naming it. A server (server=1) listens on the path and sets up
 * each backend that connects. Once set up the queues are up and the link
 * is up; the thread then watches the socket: the backend closing it (it
 * exited or was killed), anything unexpected from it, or a fault the
 * datapath found takes the queues down (waiting until no burst uses
 * them) and the link down; then a client retries connecting every 100 ms
 * and a server accepts the next backend, and the rings are made new for
 * the next set-up (base 0). No mbuf is on a ring (the datapath copies), so
 * none is lost. Stop sends SET_VRING_ENABLE 0 and GET_VRING_BASE per ring,
 * closes the connection (and a server's socket file) and ends the thread.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lr_log.h"
#include "virtio_user_private.h"

void
lr_vu_wake_(struct vu_port *p)
{
	uint64_t one = 1;

	if (write(p->wake_fd, &one, sizeof(one)) != sizeof(one))
		LR_LOG(DEBUG, PMD, "%s: wake: %s\n", p->name, strerror(errno));
}

void
lr_vu_calls_collect_(struct vu_port *p)
{
	uint64_t v;

	for (unsigned i = 0; i < p->nq; i++) {
		struct vu_queue *qs[2] = {&p->rxq[i], &p->txq[i]};

		for (unsigned d = 0; d < 2; d++)
			if (qs[d]->vr.call_fd >= 0 &&
			    read(qs[d]->vr.call_fd, &v, sizeof(v)) == sizeof(v))
				lr_counter_add(&qs[d]->calls, v);
	}
}

/* Take every queue of p down and wait until no burst uses them. */
static void
queues_down(struct vu_port *p)
{
	for (unsigned i = 0; i < p->nq; i++) {
		lr_vu_queue_quiesce_(&p->rxq[i]);
		lr_vu_queue_quiesce_(&p->txq[i]);
	}
}

static void
queues_up(struct vu_port *p)
{
	for (unsigned i = 0; i < p->nq; i++) {
		atomic_store(&p->rxq[i].up, 1);
		atomic_store(&p->txq[i].up, 1);
	}
}

/* Set up the backend on the new connection p->sock; on success the link
 * is up. 0 or -errno (logged, the connection closed). */
static int
connection_setup(struct vu_port *p)
{
	int rc;

	queues_down(p);
	atomic_store(&p->bad, 0);
	rc = lr_vu_setup_(p);
	if (rc < 0) {
		LR_LOG(ERR, PMD,
		       "%s: set-up with the backend on %s failed: %s\n",
		       p->name, p->path, p->why);
		close(p->sock);
		p->sock = -1;
		return rc;
	}
	queues_up(p);
	pthread_mutex_lock(&p->lock);
	p->connects++;
	pthread_mutex_unlock(&p->lock);
	atomic_store(&p->link, 1);
	LR_LOG(INFO, PMD,
	       "%s: link up: backend on %s set up (%u queue pairs of %u, "
	       "features 0x%llx, protocol 0x%llx)\n",
	       p->name, p->path, p->nq, p->qsize,
	       (unsigned long long)p->features,
	       (unsigned long long)p->protocol);
	return 0;
}

/* End the connection for reason why; the link goes down (after the log
 * line, so that who sees it down finds the line). */
static void
connection_end(struct vu_port *p, const char *why, int tell)
{
	queues_down(p);
	if (tell)
		lr_vu_teardown_msgs_(p);
	close(p->sock);
	p->sock = -1;
	/* the backend has stopped its rings, or is gone: the frames it
	 * had not used yet are dropped */
	for (unsigned i = 0; i < p->nq; i++)
		lr_vu_tx_release_(&p->txq[i]);
	pthread_mutex_lock(&p->lock);
	p->disconnects++;
	snprintf(p->why, sizeof(p->why), "%s", why);
	pthread_mutex_unlock(&p->lock);
	if (tell)
		LR_LOG(INFO, PMD, "%s: link down: %s\n", p->name, why);
	else
		LR_LOG(WARNING, PMD, "%s: link down: %s\n", p->name, why);
	atomic_store(&p->link, 0);
}

/* Connect to the backend; 0, or -errno (logged when it changed). */
static int
client_connect(struct vu_port *p)
{
	int fd = lr_unix_connect(p->path, LR_UNIX_STREAM);

	if (fd < 0) {
		if (p->last_errno != -fd)
			LR_LOG(WARNING, PMD,
			       "%s: path: cannot connect to '%s': %s "
			       "(retrying every %d ms)\n",
			       p->name, p->path, strerror(-fd), VU_RETRY_MS);
		p->last_errno = -fd;
		return fd;
	}
	p->last_errno = 0;
	p->sock = fd;
	return 0;
}

/* Wait up to ms for the wake eventfd or fd (-1: none) to have events ev;
 * the revents of fd (0: none). */
static short
wait_fd(struct vu_port *p, int fd, short ev, int ms)
{
	struct pollfd pfd[2] = {{.fd = p->wake_fd, .events = POLLIN},
				{.fd = fd, .events = ev}};
	uint64_t v;

	if (poll(pfd, fd >= 0 ? 2 : 1, ms) <= 0)
		return 0;
	if (pfd[0].revents & POLLIN)
		if (read(p->wake_fd, &v, sizeof(v)) < 0)
			v = 0;
	return fd >= 0 ? pfd[1].revents : 0;
}

/* Something arrived on the connection or it ended: the reason to end it,
 * or NULL (keep it). */
static const char *
connection_event(struct vu_port *p, short rev, char *buf, size_t len)
{
	char b;
	ssize_t n;

	if (!(rev & (POLLIN | POLLHUP | POLLERR | POLLRDHUP)))
		return NULL;
	n = recv(p->sock, &b, 1, MSG_PEEK | MSG_DONTWAIT);
	if (n == 0 || (n < 0 && errno != EAGAIN))
		return "backend closed the connection";
	if (n < 0)
		return NULL;
	snprintf(buf, len, "backend sent a message we do not take");
	return buf;
}

/* One round while connected: watch the socket and the datapath. */
static void
connected_round(struct vu_port *p)
{
	char buf[160];
	const char *why;
	short rev = wait_fd(p, p->sock, POLLIN | POLLRDHUP, 100);

	if (atomic_load(&p->stopping))
		return;
	if (atomic_load(&p->bad)) {
		snprintf(buf, sizeof(buf), "%s", p->bad_why);
		connection_end(p, buf, 0);
		return;
	}
	why = connection_event(p, rev, buf, sizeof(buf));
	if (why != NULL)
		connection_end(p, why, 0);
}

/* One round while not connected: connect or accept, then set up. */
static void
unconnected_round(struct vu_port *p)
{
	if (p->server) {
		short rev = wait_fd(p, p->lis, POLLIN, 100);
		int fd;

		if (!(rev & POLLIN) || atomic_load(&p->stopping))
			return;
		fd = accept4(p->lis, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0)
			return;
		p->sock = fd;
	} else if (client_connect(p) < 0) {
		wait_fd(p, -1, 0, VU_RETRY_MS);
		return;
	}
	if (connection_setup(p) < 0 && !p->server)
		wait_fd(p, -1, 0, VU_RETRY_MS);
}

static void *
vu_thread(void *arg)
{
	struct vu_port *p = arg;

	while (!atomic_load(&p->stopping)) {
		if (p->sock >= 0)
			connected_round(p);
		else
			unconnected_round(p);
	}
	if (p->sock >= 0)
		connection_end(p, "port stopped", 1);
	return NULL;
}

int
lr_vu_start_(struct vu_port *p)
{
	int rc;

	atomic_store(&p->stopping, 0);
	p->last_errno = 0;
	if (p->server) {
		p->lis = lr_unix_listen(p->path,
					LR_UNIX_STREAM | LR_UNIX_REPLACE_STALE,
					LR_UNIX_MODE_KEEP, 4);
		if (p->lis < 0) {
			LR_LOG(ERR, PMD,
			       "%s: path: cannot listen on '%s': %s\n", p->name,
			       p->path, strerror(-p->lis));
			return p->lis;
		}
	} else {
		rc = lr_unix_connect(p->path, LR_UNIX_STREAM);
		if (rc < 0) {
			LR_LOG(ERR, PMD,
			       "%s: path: cannot connect to '%s': %s\n",
			       p->name, p->path, strerror(-rc));
			return rc;
		}
		p->sock = rc;
		rc = connection_setup(p);
		if (rc < 0)
			return rc;
	}
	rc = pthread_create(&p->thr, NULL, vu_thread, p);
	if (rc != 0) {
		LR_LOG(ERR, PMD, "%s: cannot start its thread: %s\n", p->name,
		       strerror(rc));
		lr_vu_stop_(p);
		return -rc;
	}
	p->thr_on = 1;
	return 0;
}

void
lr_vu_stop_(struct vu_port *p)
{
	atomic_store(&p->stopping, 1);
	if (p->thr_on) {
		lr_vu_wake_(p);
		pthread_join(p->thr, NULL);
		p->thr_on = 0;
	} else if (p->sock >= 0) {
		connection_end(p, "port stopped", 1);
	}
	if (p->lis >= 0) {
		close(p->lis);
		p->lis = -1;
		if (unlink(p->path) != 0 && errno != ENOENT)
			LR_LOG(WARNING, PMD, "%s: cannot remove '%s': %s\n",
			       p->name, p->path, strerror(errno));
	}
}
