/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_memif's control thread and its sockets: one thread for every memif
 * port of the process (started with the first port that starts, joined
 * after the last one is closed), as DPDK runs memif from its interrupt
 * thread. It waits on one epoll set for the servers' listening sockets,
 * the control connections and a wake-up eventfd, hands each connection's
 * messages to memif_control.c (lr_memif_conn_event_()), and after each
 * round ends the connections whose datapath found the peer at fault,
 * retries a client's connect every MIF_RETRY_NS, watches the servers'
 * socket files (one removed is bound again) and frees what was closed.
 * Servers on one socket address share one listener, told apart by id.
 *
 * Everything here runs under lr_memif_lock_ (the control thread holds it
 * while it handles events; lifecycle calls hold it briefly). Sockets are
 * made through lib/net (lr_unix.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lr_log.h"
#include "lr_unix.h"
#include "memif_private.h"

pthread_mutex_t lr_memif_lock_ = PTHREAD_MUTEX_INITIALIZER;

/* The control thread and what it watches: every memif port of the
 * process, the servers' listening sockets and the control connections. */
static struct {
	int running;
	pthread_t thread;
	int epfd;
	int wakefd;
	struct mif_ep wake_ep;
	struct mif_port *ports;
	struct mif_listener *listeners;
	struct mif_conn *conns;
	struct mif_listener *dead_listeners; /* freed after the round */
	unsigned nports;
} ctl = {.epfd = -1, .wakefd = -1};

/* Watch fd for input on the control thread's epoll set, e (the first
 * member of the watched object) handed back; 0 or -errno. */
static int
watch(int fd, struct mif_ep *e)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = e};

	return epoll_ctl(ctl.epfd, EPOLL_CTL_ADD, fd, &ev) == 0 ? 0 : -errno;
}

/* Free the listeners closed since the last round. */
static void
free_dead_listeners(void)
{
	while (ctl.dead_listeners != NULL) {
		struct mif_listener *l = ctl.dead_listeners;

		ctl.dead_listeners = l->next;
		free(l);
	}
}

void
lr_memif_ctl_wake_(void)
{
	uint64_t one = 1;

	if (write(ctl.wakefd, &one, sizeof(one)) < 0) {
		/* counter saturated: a wake-up is pending anyway */
	}
}

uint64_t
lr_memif_now_ns_(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void
lr_memif_conn_close_(struct mif_conn *c)
{
	if (c->dead)
		return;
	epoll_ctl(ctl.epfd, EPOLL_CTL_DEL, c->fd, NULL);
	lr_unix_close_fds(&c->fd, 1);
	c->dead = 1;
	if (c->port != NULL && c->port->conn == c)
		c->port->conn = NULL;
	c->port = NULL;
}

/* Server: find the started server port with this id on listener l. */
struct mif_port *
lr_memif_server_find_(struct mif_listener *l, uint32_t id)
{
	for (struct mif_port *p = ctl.ports; p != NULL; p = p->next)
		if (p->server && p->started && p->lis == l && p->id == id)
			return p;
	return NULL;
}

static struct mif_conn *
conn_new(int fd, struct mif_listener *l, struct mif_port *p)
{
	struct mif_conn *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->ep.kind = EP_CONN;
	c->fd = fd;
	c->lis = l;
	c->port = p;
	if (watch(fd, &c->ep) != 0) {
		free(c);
		return NULL;
	}
	c->next = ctl.conns;
	ctl.conns = c;
	return c;
}

/* A client connects to its server: HELLO tells the rest. */
static void
client_try(struct mif_port *p)
{
	int fd = lr_unix_connect(p->path, p->abstract ? LR_UNIX_ABSTRACT : 0);

	p->retry_at = lr_memif_now_ns_() + MIF_RETRY_NS;
	if (fd < 0) {
		/* said again when the reason changes (the path vanished) */
		if (p->waiting_logged != -fd)
			LR_LOG(NOTICE, PMD,
			       "%s: waiting for a server on %s%s (%s)\n",
			       p->name, p->abstract ? "@" : "", p->path,
			       strerror(-fd));
		p->waiting_logged = -fd;
		return;
	}
	p->waiting_logged = 0;
	p->conn = conn_new(fd, NULL, p);
	if (p->conn == NULL)
		close(fd);
}

static void
listener_event(struct mif_listener *l)
{
	struct mif_conn *c;
	int fd;

	while (!l->dead && (fd = accept4(l->fd, NULL, NULL,
					 SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0) {
		c = conn_new(fd, l, NULL);
		if (c == NULL) {
			close(fd);
			continue;
		}
		if (lr_memif_send_hello_(fd) != 0)
			lr_memif_conn_close_(c);
	}
}

/* What the control thread does for port p after each round of events: end
 * the connection the datapath found at fault, retry a client's connect. */
void
lr_memif_port_poll_(struct mif_port *p, uint64_t now)
{
	if (atomic_load_explicit(&p->bad, memory_order_acquire) == 2)
		lr_memif_port_disconnect_(p, p->bad_why, BY_US);
	if (!p->server && p->started && p->conn == NULL && now >= p->retry_at)
		client_try(p);
}

static void listener_check(struct mif_listener *l, uint64_t now);

static void *
ctl_thread(void *arg)
{
	struct epoll_event ev[16];

	(void)arg;
	pthread_mutex_lock(&lr_memif_lock_);
	while (ctl.running) {
		int n;

		pthread_mutex_unlock(&lr_memif_lock_);
		n = epoll_wait(ctl.epfd, ev, LR_DIM(ev), 50);
		pthread_mutex_lock(&lr_memif_lock_);
		if (!ctl.running)
			break;
		for (int i = 0; i < n; i++) {
			struct mif_ep *e = ev[i].data.ptr;

			if (e->kind == EP_WAKE) {
				uint64_t v;

				if (read(ctl.wakefd, &v, sizeof(v)) < 0) {
					/* nothing pending */
				}
			} else if (e->kind == EP_LISTEN) {
				listener_event((struct mif_listener *)e);
			} else {
				lr_memif_conn_event_((struct mif_conn *)e);
			}
		}
		uint64_t now = lr_memif_now_ns_();

		for (struct mif_port *p = ctl.ports; p != NULL; p = p->next)
			lr_memif_port_poll_(p, now);
		lr_memif_kept_reap_();
		for (struct mif_listener *l = ctl.listeners; l != NULL;
		     l = l->next)
			listener_check(l, now);
		free_dead_listeners();
		/* free the connections closed in this round */
		for (struct mif_conn **pc = &ctl.conns; *pc != NULL;) {
			struct mif_conn *c = *pc;

			if (c->dead) {
				*pc = c->next;
				free(c);
			} else {
				pc = &c->next;
			}
		}
	}
	pthread_mutex_unlock(&lr_memif_lock_);
	return NULL;
}

/* Start the control thread with the first port (lr_memif_lock_ held). */
int
lr_memif_ctl_start_(void)
{
	if (ctl.running)
		return 0;
	ctl.epfd = epoll_create1(EPOLL_CLOEXEC);
	ctl.wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (ctl.epfd < 0 || ctl.wakefd < 0)
		goto fail;
	ctl.wake_ep.kind = EP_WAKE;
	if (watch(ctl.wakefd, &ctl.wake_ep) != 0)
		goto fail;
	ctl.running = 1;
	if (pthread_create(&ctl.thread, NULL, ctl_thread, NULL) != 0) {
		ctl.running = 0;
		goto fail;
	}
	return 0;
fail:
	lr_unix_close_fds(&ctl.epfd, 1);
	lr_unix_close_fds(&ctl.wakefd, 1);
	return -ENOMEM;
}

/* Stop the control thread after the last port (lr_memif_lock_ held; dropped
 * and taken again around the join). */
static void
ctl_stop(void)
{
	if (!ctl.running)
		return;
	ctl.running = 0;
	lr_memif_ctl_wake_();
	pthread_mutex_unlock(&lr_memif_lock_);
	pthread_join(ctl.thread, NULL);
	pthread_mutex_lock(&lr_memif_lock_);
	for (struct mif_conn *c = ctl.conns, *n; c != NULL; c = n) {
		n = c->next;
		lr_memif_conn_close_(c);
		free(c);
	}
	ctl.conns = NULL;
	free_dead_listeners();
	lr_unix_close_fds(&ctl.epfd, 1);
	lr_unix_close_fds(&ctl.wakefd, 1);
}

/* Share the existing listener l with p, unless p's id is taken on it. */
static int
listener_share(struct mif_port *p, struct mif_listener *l)
{
	if (!l->abstract && l->mode != p->sock_mode) {
		LR_LOG(ERR, PMD,
		       "%s: socket-mode: %04o, but socket %s was created %04o "
		       "by another port\n",
		       p->name, p->sock_mode, p->path, l->mode);
		return -EINVAL;
	}
	for (struct mif_port *o = ctl.ports; o != NULL; o = o->next) {
		if (o != p && o->lis == l && o->id == p->id) {
			LR_LOG(ERR, PMD,
			       "%s: id %u: already used by %s on socket %s\n",
			       p->name, p->id, o->name, p->path);
			return -EEXIST;
		}
	}
	l->refs++;
	p->lis = l;
	return 0;
}

/* A socket listening at p's address (a socket file made with p's mode,
 * replacing a stale one: a process gone left it), or -errno (logged). */
static int
listener_open(struct mif_port *p)
{
	int fd = lr_unix_listen(
	    p->path, p->abstract ? LR_UNIX_ABSTRACT : LR_UNIX_REPLACE_STALE,
	    (int)p->sock_mode, 16);

	if (fd < 0)
		LR_LOG(ERR, PMD, "%s: socket %s%s: cannot listen: %s%s\n",
		       p->name, p->abstract ? "@" : "", p->path, strerror(-fd),
		       fd == -EADDRINUSE ? " (another server uses it)" : "");
	return fd;
}

/* Remember which file l's socket is (just bound at l->path). */
static void
listener_note_file(struct mif_listener *l)
{
	struct stat st;

	if (lstat(l->path, &st) == 0) {
		l->dev = st.st_dev;
		l->ino = st.st_ino;
	}
}

/* The file at l's path is l's own socket: 1, else 0 (removed, or another
 * file in its place). */
static int
listener_file_ours(const struct mif_listener *l)
{
	struct stat st;

	return lstat(l->path, &st) == 0 && S_ISSOCK(st.st_mode) &&
	       st.st_dev == l->dev && st.st_ino == l->ino;
}

/* Log what happened to l's socket file, once for each port on it. */
static void __attribute__((format(printf, 2, 3)))
listener_log(const struct mif_listener *l, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	for (const struct mif_port *p = ctl.ports; p != NULL; p = p->next)
		if (p->lis == l)
			LR_LOG(WARNING, PMD, "%s: socket %s %s\n", p->name,
			       l->path, what);
}

/* l's socket file was removed: take the clients already waiting on the
 * old socket, then listen on a new one bound at the path. 0 or -errno. */
static int
listener_rebind(struct mif_listener *l)
{
	int fd, ret;

	fd = lr_unix_listen(l->path, 0, (int)l->mode, 16);
	if (fd < 0)
		return fd;
	ret = watch(fd, &l->ep);
	if (ret != 0) {
		unlink(l->path);
		close(fd);
		return ret;
	}
	listener_event(l);
	epoll_ctl(ctl.epfd, EPOLL_CTL_DEL, l->fd, NULL);
	close(l->fd);
	l->fd = fd;
	listener_note_file(l);
	return 0;
}

/* The control thread's check of a socket file, every MIF_RETRY_NS: one
 * removed is bound again (connections made through it are not affected);
 * another file in its place is left alone. Each change is logged once. */
static void
listener_check(struct mif_listener *l, uint64_t now)
{
	int ret;

	if (l->abstract || l->dead || l->fd < 0 || now < l->check_at)
		return;
	l->check_at = now + MIF_RETRY_NS;
	if (listener_file_ours(l))
		return;
	if (access(l->path, F_OK) == 0 || errno != ENOENT) {
		if (l->gone != 2)
			listener_log(l, "replaced by another file: left alone, "
					"no new client reaches this port "
					"(connected ones stay connected)");
		l->gone = 2;
		return;
	}
	ret = listener_rebind(l);
	if (ret == 0)
		listener_log(l, "removed: listening on it again (connected "
				"clients stay connected)");
	else if (l->gone != 1)
		listener_log(l,
			     "removed: cannot listen on it again: %s (retrying "
			     "every %llu ms; connected clients stay connected)",
			     strerror(-ret),
			     (unsigned long long)(MIF_RETRY_NS / 1000000));
	l->gone = ret == 0 ? 0 : 1;
}

/* Get (or create) the listener for p's address; 0 or -errno (logged). */
int
lr_memif_listener_get_(struct mif_port *p)
{
	struct mif_listener *l;
	int fd, ret;

	for (l = ctl.listeners; l != NULL; l = l->next) {
		if (l->abstract == p->abstract && strcmp(l->path, p->path) == 0)
			break;
	}
	if (l != NULL)
		return listener_share(p, l);
	fd = listener_open(p);
	if (fd < 0)
		return fd;
	l = calloc(1, sizeof(*l));
	if (l == NULL) {
		ret = -ENOMEM;
		goto unlink_close;
	}
	l->ep.kind = EP_LISTEN;
	l->fd = fd;
	l->abstract = p->abstract;
	l->refs = 1;
	l->mode = p->sock_mode;
	snprintf(l->path, sizeof(l->path), "%s", p->path);
	if (!l->abstract)
		listener_note_file(l);
	ret = watch(fd, &l->ep);
	if (ret != 0) {
		free(l);
		goto unlink_close;
	}
	l->next = ctl.listeners;
	ctl.listeners = l;
	p->lis = l;
	return 0;
unlink_close:
	LR_LOG(ERR, PMD, "%s: socket %s: %s\n", p->name, p->path,
	       strerror(-ret));
	if (!p->abstract)
		unlink(p->path);
	close(fd);
	return ret;
}

void
lr_memif_listener_put_(struct mif_port *p)
{
	struct mif_listener *l = p->lis;

	p->lis = NULL;
	if (l == NULL || --l->refs > 0)
		return;
	/* refuse the connections still waiting on it */
	for (struct mif_conn *c = ctl.conns; c != NULL; c = c->next)
		if (c->lis == l && !c->dead)
			lr_memif_conn_close_(c);
	for (struct mif_listener **pl = &ctl.listeners; *pl != NULL;
	     pl = &(*pl)->next) {
		if (*pl == l) {
			*pl = l->next;
			break;
		}
	}
	epoll_ctl(ctl.epfd, EPOLL_CTL_DEL, l->fd, NULL);
	/* only our own socket file: another's may stand at the path now */
	if (!l->abstract && listener_file_ours(l))
		unlink(l->path);
	lr_unix_close_fds(&l->fd, 1);
	/* an event of it may be in the control thread's hands: freed there */
	l->dead = 1;
	l->next = ctl.dead_listeners;
	ctl.dead_listeners = l;
}

void
lr_memif_port_add_(struct mif_port *p)
{
	p->next = ctl.ports;
	ctl.ports = p;
	ctl.nports++;
}

void
lr_memif_port_remove_(struct mif_port *p)
{
	for (struct mif_port **pp = &ctl.ports; *pp != NULL;
	     pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	}
	if (--ctl.nports == 0)
		ctl_stop();
}
