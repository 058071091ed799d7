/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_vhost's control thread, one per started port (a plain thread, never
 * an lcore): it listens (server, the default) and takes one frontend at a
 * time, or connects and retries every VH_RETRY_MS (client=1); it reads the
 * frontend's messages one at a time and hands them to vhost_control.c;
 * it ends the connection the datapath found at fault (the port's `bad`
 * flag) and counts the kicks a frontend sends in spite of NO_NOTIFY. It
 * sleeps in poll() between events; the datapath never waits for it.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lr_errno.h"
#include "lr_log.h"
#include "vhost_private.h"

void
lr_vhost_ctl_wake_(struct vh_port *p)
{
	uint64_t one = 1;

	if (write(p->wake_fd, &one, sizeof(one)) < 0)
		return; /* the counter is full: a wake-up is pending */
}

/* Take the next frontend from the listening socket (one at a time). */
static void
ctl_accept(struct vh_port *p)
{
	int fd = accept4(p->lis_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0)
		return;
	if (p->conn_fd >= 0) {
		LR_LOG(WARNING, PMD,
		       "%s: a second frontend on %s refused (one is "
		       "connected)\n",
		       p->name, p->path);
		close(fd);
		return;
	}
	p->conn_fd = fd;
	p->nb_connects++;
	LR_LOG(INFO, PMD, "%s: frontend connected on %s\n", p->name, p->path);
}

/* A client's connect attempt. */
static void
ctl_connect(struct vh_port *p)
{
	int fd = lr_unix_connect(p->path, LR_UNIX_STREAM);

	if (fd < 0) {
		if (p->waiting_logged != -fd)
			LR_LOG(INFO, PMD,
			       "%s: waiting for a vhost-user frontend at %s "
			       "(%s)\n",
			       p->name, p->path, lr_strerror(-fd));
		p->waiting_logged = -fd;
		return;
	}
	p->waiting_logged = 0;
	p->conn_fd = fd;
	p->nb_connects++;
	LR_LOG(INFO, PMD, "%s: connected to frontend at %s\n", p->name,
	       p->path);
}

/* One message from the frontend, handled; the connection ends on a bad
 * one or when the frontend goes. */
static void
ctl_message(struct vh_port *p)
{
	struct lr_vhost_user_msg m;
	int fds[LR_VHOST_USER_MAX_REGIONS];
	unsigned nfds = 0;
	ssize_t n;
	int rc;

	n = lr_vhost_user_recv(p->conn_fd, &m, fds, &nfds, VH_MSG_TIMEOUT_MS);
	if (n == -EAGAIN)
		return;
	if (n == 0) {
		lr_vhost_disconnect_(p, "the frontend closed the connection",
				     0);
		return;
	}
	if (n < 0) {
		p->bad_msgs++;
		snprintf(p->why, sizeof(p->why), "bad message: %s",
			 n == -EBADMSG ? "truncated (the frontend stopped "
					 "inside a message)"
				       : lr_strerror((int)-n));
		lr_vhost_disconnect_(p, p->why, 1);
		return;
	}
	rc = lr_vhost_msg_(p, &m, (size_t)n, fds, nfds);
	lr_unix_close_fds(fds, nfds);
	if (rc < 0) {
		char why[sizeof(p->why) + 16];

		p->bad_msgs++;
		snprintf(why, sizeof(why), "bad message: %s", p->why);
		lr_vhost_disconnect_(p, why, 1);
	}
}

/* Count the kicks that came on the rings of pf[] (from index first). */
static void
ctl_kicks(struct vh_port *p, const struct pollfd *pf, unsigned n,
	  const int *ring_of)
{
	uint64_t v;

	for (unsigned i = 0; i < n; i++) {
		struct vh_ring *r = &p->ring[ring_of[i]];

		if (!(pf[i].revents & POLLIN) || r->kick_fd != pf[i].fd)
			continue;
		if (read(r->kick_fd, &v, sizeof(v)) == sizeof(v))
			lr_counter_add(&r->kicks, v);
	}
}

/* What the control thread waits on: the wake-up, the listener or the
 * connection, the kick descriptors. Their count; *timeout for poll(). */
static unsigned
ctl_fds(struct vh_port *p, struct pollfd *pf, int *ring_of, int *timeout)
{
	unsigned n = 0;

	pf[n++] = (struct pollfd){.fd = p->wake_fd, .events = POLLIN};
	*timeout = -1;
	if (p->conn_fd >= 0)
		pf[n++] = (struct pollfd){.fd = p->conn_fd, .events = POLLIN};
	else if (!p->client)
		pf[n++] = (struct pollfd){.fd = p->lis_fd, .events = POLLIN};
	else
		*timeout = VH_RETRY_MS;
	for (unsigned i = 0; i < 2 * p->qp; i++) {
		if (p->ring[i].kick_fd < 0)
			continue;
		ring_of[n] = (int)i;
		pf[n++] =
		    (struct pollfd){.fd = p->ring[i].kick_fd, .events = POLLIN};
	}
	return n;
}

/* One round after poll(): what each descriptor said. */
static void
ctl_round(struct vh_port *p, const struct pollfd *pf, unsigned n,
	  const int *ring_of)
{
	uint64_t v;
	int conn = p->conn_fd;

	if (pf[0].revents & POLLIN)
		(void)!read(p->wake_fd, &v, sizeof(v));
	if (atomic_load_explicit(&p->bad, memory_order_acquire) == 2)
		lr_vhost_disconnect_(p, p->bad_why, 1);
	if (conn >= 0 && p->conn_fd == conn && pf[1].revents)
		ctl_message(p);
	else if (conn < 0 && !p->client && pf[1].revents)
		ctl_accept(p);
	if (conn < 0 && p->client && p->conn_fd < 0)
		ctl_connect(p);
	if (p->conn_fd == conn && n > 2)
		ctl_kicks(p, pf + 2, n - 2, ring_of + 2);
}

static void *
ctl_main(void *arg)
{
	struct vh_port *p = arg;
	struct pollfd pf[2 + VH_NRING];
	int ring_of[2 + VH_NRING];
	unsigned n;
	int timeout;

	pthread_mutex_lock(&p->lk);
	if (p->client)
		ctl_connect(p);
	while (!atomic_load(&p->stop)) {
		n = ctl_fds(p, pf, ring_of, &timeout);
		pthread_mutex_unlock(&p->lk);
		if (poll(pf, n, timeout) < 0 && errno != EINTR)
			LR_LOG(ERR, PMD, "%s: control thread: poll: %s\n",
			       p->name, strerror(errno));
		pthread_mutex_lock(&p->lk);
		if (atomic_load(&p->stop))
			break;
		ctl_round(p, pf, n, ring_of);
	}
	pthread_mutex_unlock(&p->lk);
	return NULL;
}

/* A server's listening socket at p->path (a stale file replaced). */
static int
ctl_listen(struct vh_port *p)
{
	struct stat st;
	int fd = lr_unix_listen(p->path, LR_UNIX_STREAM | LR_UNIX_REPLACE_STALE,
				LR_UNIX_MODE_KEEP, 4);

	if (fd < 0) {
		LR_LOG(ERR, PMD, "%s: iface: cannot listen on '%s': %s\n",
		       p->name, p->path, lr_strerror(-fd));
		return fd;
	}
	if (fstat(fd, &st) == 0 && stat(p->path, &st) == 0) {
		p->lis_dev = st.st_dev;
		p->lis_ino = st.st_ino;
	}
	p->lis_fd = fd;
	LR_LOG(INFO, PMD, "%s: listening for a vhost-user frontend on %s\n",
	       p->name, p->path);
	return 0;
}

int
lr_vhost_ctl_start_(struct vh_port *p)
{
	int rc;

	if (p->thr_on)
		return 0;
	if (!p->client && p->lis_fd < 0) {
		rc = ctl_listen(p);
		if (rc < 0)
			return rc;
	}
	atomic_store(&p->stop, 0);
	rc = pthread_create(&p->thr, NULL, ctl_main, p);
	if (rc != 0) {
		LR_LOG(ERR, PMD, "%s: cannot start the control thread: %s\n",
		       p->name, strerror(rc));
		return -rc;
	}
	p->thr_on = 1;
	return 0;
}

void
lr_vhost_ctl_stop_(struct vh_port *p)
{
	struct stat st;

	pthread_mutex_lock(&p->lk);
	if (p->thr_on) {
		atomic_store(&p->stop, 1);
		lr_vhost_ctl_wake_(p);
		pthread_mutex_unlock(&p->lk);
		pthread_join(p->thr, NULL);
		pthread_mutex_lock(&p->lk);
		p->thr_on = 0;
	}
	lr_vhost_disconnect_(p, p->conn_fd >= 0 ? "port stopped" : NULL, 0);
	if (p->lis_fd >= 0) {
		close(p->lis_fd);
		p->lis_fd = -1;
		if (stat(p->path, &st) == 0 && st.st_dev == p->lis_dev &&
		    st.st_ino == p->lis_ino)
			unlink(p->path);
	}
	pthread_mutex_unlock(&p->lk);
}
