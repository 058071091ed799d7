/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ctl.c - lr-pktgen's control socket (--ctl PATH): a UNIX stream socket
 * the control thread polls between its ticks (never the datapath). One
 * JSON object a line in, one a line out:
 *
 *   {"cmd": "stats"}              -> {"ok": true, "t": 1.2, "ports": [...],
 *                                     "streams": [...], "state": ...,
 *                                     "l3": [...] (--ip: answers, hops)}
 *   {"cmd": "stop"}               -> {"ok": true, "sending": false}
 *   {"cmd": "start"}              -> {"ok": true, "sending": true}
 *   {"cmd": "rate", "pps": 20000} -> {"ok": true, "rate": 20000}
 *   {"cmd": "rate", "stream": "voice", "pps": 500}
 *   {"cmd": "quit"}               -> {"ok": true}   (the run ends)
 *
 * As in pktgen-dpdk and TRex, "stop" stops the sending (the run goes on:
 * it receives, its statistics stay) and "start" starts it again (a run
 * with --idle waits for the first "start"); "quit" ends the run as a stop
 * signal does. "rate" takes "pps", "mbps" or "pct", the unit the run was
 * started with (--rate-*), and sets the rate the streams without one of
 * their own share; with "stream" (its id, from 0 in the order of the
 * profile, or its name) it sets that stream's own rate ("pps" or "mbps",
 * the unit it has). An error is {"ok": false, "error": "..."}.
 *
 * Limits: at most PG_CTL_CONNS (64) clients at once; one more is accepted,
 * answered {"ok":false,"error":"busy: 64 clients connected (limit 64)"}
 * and closed. A client without a complete request line for --ctl-timeout
 * seconds (default 5; since it connected or since its last request) is
 * answered {"ok":false,"error":"timeout: no complete request in 5 s"} and
 * closed, so clients that connect and say nothing never lock others out.
 * A request line is at most PG_CTL_LINE (4096) bytes before its newline: a
 * longer one is answered "request longer than 4096 bytes" and closed.
 *
 * It never holds up the run: the control thread calls pg_ctl_poll() a
 * tick (5 ms), which polls the sockets without waiting (poll(), timeout
 * 0), reads each ready one once, answers up to PG_CTL_BURST requests of a
 * client and returns. Every socket is non-blocking; an answer is sent
 * whole at once or, when the client does not read its answers (EAGAIN),
 * the client is dropped: never a wait for it.
 *
 * Who may use it: the socket file is 0600 (--ctl-group GROUP: 0660 and
 * that group) from the moment it exists, whatever the umask (see
 * bind_private()); so only root, the run's user (and the group's members)
 * can connect. On top of the file's mode, each client's credentials when
 * it connected (SO_PEERCRED) are checked: root, the run's effective uid,
 * or with --ctl-group a member of the group (its gid, its supplementary
 * groups (SO_PEERGROUPS), or those the group database gives its user
 * (getgrouplist)). Anyone else is answered {"ok": false, "error":
 * "permission denied: uid N ..."} and closed, before any request is read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "pktgen.h"

/* Clients served at once; one more is answered busy and closed. */
#define PG_CTL_CONNS 64
/* Bytes of a request line before its newline, at most. */
#define PG_CTL_LINE 4096
/* Connections the kernel queues until a tick accepts them: the 5 ms
 * tick's accept loop takes them all, so this only has to outlast one. */
#define PG_CTL_BACKLOG 256
/* Requests of one client answered a tick, at most: a client that sends
 * many at once waits for the next tick, the others do not wait for it. */
#define PG_CTL_BURST 16
/* The requests, as errors list them. */
#define CMDS "stats, start, stop, rate, quit"

static int lfd = -1;
static const char *lpath;
static uid_t euid;	 /* ours: its clients are let in */
static bool have_group;	 /* --ctl-group: */
static gid_t group;	 /* its members are let in too */
static double timeout_s; /* --ctl-timeout */
static unsigned nconn;	 /* clients in conn[] */
static struct conn {
	int fd;	      /* -1: a free slot */
	size_t len;   /* bytes in buf: the start of the next request(s) */
	double since; /* when it connected or its last request came */
	char buf[PG_CTL_LINE + 1]; /* a line of PG_CTL_LINE and its '\n' */
} conn[PG_CTL_CONNS];
static struct pollfd pfd[1 + PG_CTL_CONNS]; /* the listener, conn[] */

/* Bind fd to path with mode (and group gid unless it is -1) from the first
 * moment path names it, whatever the umask: the socket is bound inside a
 * private directory made beside path (mkdtemp: 0700, ours, so no one else
 * reaches it there), given its mode and group, then renamed onto path
 * (atomic; a socket left by an earlier run is replaced). Not umask()
 * around bind(): the umask is the process's, and by now the EAL's lcores
 * and the drivers' threads run; a file one of them created meanwhile would
 * get our umask. 0, or -1 after a message. */
static int
bind_private(int fd, const char *path, mode_t mode, gid_t gid)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	const char *slash = strrchr(path, '/');
	int dlen = slash ? (int)(slash - path) + 1 : 0;
	char dir[sizeof(a.sun_path) - 2]; /* room for "/s" */
	const char *what = NULL;

	/* "<dir of path>/.ctl-XXXXXX/s" */
	if (snprintf(dir, sizeof(dir), "%.*s.ctl-XXXXXX", dlen, path) >=
	    (int)sizeof(dir))
		return pg_fail("--ctl '%s': its directory's name is longer "
			       "than %zu bytes (the socket is made in a "
			       "private directory there first)",
			       path, sizeof(a.sun_path) - 14);
	if (mkdtemp(dir) == NULL)
		return pg_fail("--ctl '%s': %s", path, strerror(errno));
	snprintf(a.sun_path, sizeof(a.sun_path), "%s/s", dir);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0)
		what = "bind";
	else if (chmod(a.sun_path, mode) != 0)
		what = "chmod";
	else if (gid != (gid_t)-1 && chown(a.sun_path, (uid_t)-1, gid) != 0)
		what = "chown";
	else if (rename(a.sun_path, path) != 0)
		what = "rename";
	if (what != NULL) {
		int err = errno;

		unlink(a.sun_path);
		rmdir(dir);
		if (strcmp(what, "chown") == 0)
			return pg_fail("--ctl-group '%s': cannot give the "
				       "socket group %u: %s",
				       pg.o.ctl_group, (unsigned)gid,
				       strerror(err));
		return pg_fail("--ctl '%s': %s: %s", path, what, strerror(err));
	}
	rmdir(dir);
	return 0;
}

int
pg_ctl_open(const struct pg_opts *o)
{
	const char *path = o->ctl_path;
	struct sockaddr_un a;
	struct stat st;

	for (int i = 0; i < PG_CTL_CONNS; i++)
		conn[i].fd = -1;
	nconn = 0;
	timeout_s = o->ctl_timeout;
	euid = geteuid();
	have_group = o->ctl_group != NULL;
	group = o->ctl_gid;
	if (strlen(path) >= sizeof(a.sun_path))
		return pg_fail("--ctl '%s': longer than %zu bytes", path,
			       sizeof(a.sun_path) - 1);
	/* A socket left by an earlier run goes; anything else stays. */
	if (lstat(path, &st) == 0 && !S_ISSOCK(st.st_mode))
		return pg_fail("--ctl '%s': exists and is not a socket", path);
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (lfd < 0)
		return pg_fail("--ctl '%s': %s", path, strerror(errno));
	if (bind_private(lfd, path, have_group ? 0660 : 0600,
			 have_group ? group : (gid_t)-1) != 0)
		goto close_lfd;
	if (listen(lfd, PG_CTL_BACKLOG) != 0) {
		pg_fail("--ctl '%s': listen: %s", path, strerror(errno));
		unlink(path);
		goto close_lfd;
	}
	lpath = path;
	return 0;
close_lfd:
	close(lfd);
	lfd = -1;
	return -1;
}

void
pg_ctl_close(void)
{
	for (int i = 0; i < PG_CTL_CONNS; i++)
		if (conn[i].fd >= 0) {
			close(conn[i].fd);
			conn[i].fd = -1;
		}
	nconn = 0;
	if (lfd >= 0) {
		close(lfd);
		unlink(lpath);
		lfd = -1;
	}
}

/* Seconds on the monotonic clock. */
static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#ifdef SO_PEERGROUPS
/* Whether the client on fd had group among its supplementary groups when
 * it connected (SO_PEERGROUPS, Linux 4.13). */
static bool
peer_groups_have(int fd, gid_t g)
{
	gid_t few[64], *gs = few;
	socklen_t len = sizeof(few);
	bool found = false;
	int r = getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, gs, &len);

	if (r != 0 && errno == ERANGE && (gs = malloc(len)) != NULL)
		r = getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, gs, &len);
	for (size_t i = 0; r == 0 && i < len / sizeof(gid_t); i++)
		found |= gs[i] == g;
	if (gs != few)
		free(gs);
	return found;
}
#else
static bool
peer_groups_have(int fd, gid_t g)
{
	(void)fd;
	(void)g;
	return false;
}
#endif

/* Whether the group database makes user uid (primary group gid) a member
 * of group g (getgrouplist). */
static bool
user_groups_have(uid_t uid, gid_t gid, gid_t g)
{
	struct passwd pw, *p = NULL;
	char buf[4096];
	gid_t few[64], *gs = few;
	int n = 64, r;
	bool found = false;

	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &p) != 0 || p == NULL)
		return false;
	r = getgrouplist(p->pw_name, gid, gs, &n);
	if (r < 0 && n > 64 && (gs = malloc((size_t)n * sizeof(*gs))))
		r = getgrouplist(p->pw_name, gid, gs, &n);
	for (int i = 0; r >= 0 && i < n; i++)
		found |= gs[i] == g;
	if (gs != few)
		free(gs);
	return found;
}

/* Whether the client on fd may use the socket, by its credentials when it
 * connected (SO_PEERCRED): root, our uid, or with --ctl-group a member of
 * that group (its gid, its supplementary groups or the group database's
 * for its user). Else false with the answer it gets in err. */
static bool
peer_allowed(int fd, char *err, size_t n)
{
	struct ucred c;
	socklen_t len = sizeof(c);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &c, &len) != 0) {
		snprintf(err, n,
			 "permission denied: the client's credentials are "
			 "unknown (%s)",
			 strerror(errno));
		return false;
	}
	if (c.uid == 0 || c.uid == euid)
		return true;
	if (have_group && (c.gid == group || peer_groups_have(fd, group) ||
			   user_groups_have(c.uid, c.gid, group)))
		return true;
	if (have_group)
		snprintf(err, n,
			 "permission denied: uid %u is not root, the run's "
			 "user (uid %u) or a member of group %.64s (gid %u)",
			 (unsigned)c.uid, (unsigned)euid, pg.o.ctl_group,
			 (unsigned)group);
	else
		snprintf(err, n,
			 "permission denied: uid %u is not root or the run's "
			 "user (uid %u)",
			 (unsigned)c.uid, (unsigned)euid);
	return false;
}

/* The stream definition a request names in "stream" (an id or a name):
 * its index, -1 when there is no "stream", -2 after writing why into
 * err. */
static int
req_stream(const json_t *req, char *err, size_t n)
{
	const json_t *v = json_object_get(req, "stream");

	if (v == NULL)
		return -1;
	if (json_is_integer(v)) {
		json_int_t k = json_integer_value(v);

		if (k >= 0 && k < (json_int_t)pg.nsdefs)
			return (int)k;
		snprintf(err, n, "rate: no stream %lld (%u streams: 0..%u)",
			 (long long)k, pg.nsdefs, pg.nsdefs - 1);
		return -2;
	}
	if (json_is_string(v)) {
		for (unsigned k = 0; k < pg.nsdefs; k++)
			if (strcmp(pg.sdefs[k].name, json_string_value(v)) == 0)
				return (int)k;
		snprintf(err, n, "rate: no stream named '%.64s'",
			 json_string_value(v));
		return -2;
	}
	snprintf(err, n, "rate: \"stream\" is an id or a name");
	return -2;
}

/* Send resp (taken) and a newline on fd, never waiting and never raising
 * SIGPIPE (a stop signal for lr-pktgen): 0 when all of it went, else -1. */
static int
send_line(int fd, json_t *resp)
{
	char *text =
	    resp ? json_dumps(resp, JSON_COMPACT | JSON_REAL_PRECISION(10))
		 : NULL;
	size_t n;
	ssize_t r;

	json_decref(resp);
	if (text == NULL)
		return -1;
	n = strlen(text);
	text[n] = '\n'; /* over the NUL: the line is sent by its length */
	r = send(fd, text, n + 1, MSG_NOSIGNAL | MSG_DONTWAIT);
	free(text);
	return r == (ssize_t)(n + 1) ? 0 : -1;
}

/* Close client i's connection. */
static void
drop(unsigned i)
{
	LR_ASSERT(i < PG_CTL_CONNS && conn[i].fd >= 0 && nconn > 0);
	close(conn[i].fd);
	conn[i].fd = -1;
	nconn--;
}

/* Answer client i {"ok": false, "error": the message} and close it. */
static void __attribute__((format(printf, 2, 3)))
drop_with(unsigned i, const char *fmt, ...)
{
	char err[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, sizeof(err), fmt, ap);
	va_end(ap);
	send_line(conn[i].fd, json_pack("{s:b, s:s}", "ok", 0, "error", err));
	drop(i);
}

/* Answer client i's request line (len bytes, its '\n' after them); *quit
 * set by "quit". 0, or -1 when the answer could not be sent whole: the
 * client is dropped then. */
static int
handle(unsigned i, char *line, size_t len, bool *quit)
{
	json_error_t e;
	json_t *req, *resp = NULL;
	const char *cmd;
	char err[256] = "";

	line[len] = '\0'; /* over its '\n' */
	req = json_loads(line, 0, &e);
	cmd = json_string_value(json_object_get(req, "cmd"));
	if (req == NULL) {
		snprintf(err, sizeof(err), "not JSON: %s", e.text);
	} else if (cmd == NULL) {
		snprintf(err, sizeof(err), "no \"cmd\" (" CMDS ")");
	} else if (strcmp(cmd, "stats") == 0) {
		resp = pg_ctl_stats();
	} else if (strcmp(cmd, "start") == 0 || strcmp(cmd, "stop") == 0) {
		pg_ctl_set_sending(strcmp(cmd, "start") == 0);
		resp = json_pack("{s:b}", "sending", pg_sending());
	} else if (strcmp(cmd, "quit") == 0) {
		*quit = true;
		resp = json_object();
	} else if (strcmp(cmd, "rate") == 0) {
		static const char *const units[] = {"pps", "mbps", "pct"};
		json_t *v = NULL;
		int u, k = req_stream(req, err, sizeof(err));

		for (u = 0; u < 3; u++)
			if ((v = json_object_get(req, units[u])) != NULL)
				break;
		if (k == -2) {
			/* err says why */
		} else if (v == NULL || !json_is_number(v)) {
			snprintf(err, sizeof(err),
				 "rate: give \"pps\", \"mbps\" or \"pct\" "
				 "with a number");
		} else if (pg_ctl_set_rate(u + 1, json_number_value(v), k, err,
					   sizeof(err)) == 0) {
			resp = json_pack("{s:f}", "rate", json_number_value(v));
		}
	} else {
		snprintf(err, sizeof(err), "unknown cmd '%.64s' (" CMDS ")",
			 cmd);
	}
	if (resp == NULL)
		resp = json_pack("{s:b, s:s}", "ok", 0, "error", err);
	else
		json_object_set_new(resp, "ok", json_true());
	json_decref(req);
	if (send_line(conn[i].fd, resp) != 0) {
		drop(i);
		return -1;
	}
	return 0;
}

/* Take every connection waiting: a client that may not use the socket is
 * answered why, one over PG_CTL_CONNS that it is busy; both are closed. */
static void
accept_all(double now)
{
	char err[256];
	int fd;

	while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >=
	       0) {
		unsigned i = 0;

		if (!peer_allowed(fd, err, sizeof(err))) {
		} else if (nconn == PG_CTL_CONNS) {
			snprintf(err, sizeof(err),
				 "busy: %u clients connected (limit %u)", nconn,
				 PG_CTL_CONNS);
		} else {
			while (conn[i].fd >= 0)
				i++;
			conn[i].fd = fd;
			conn[i].len = 0;
			conn[i].since = now;
			nconn++;
			continue;
		}
		send_line(fd, json_pack("{s:b, s:s}", "ok", 0, "error", err));
		close(fd);
	}
}

/* Serve client i: read what poll() says is there (revents), answer up to
 * PG_CTL_BURST complete lines (every one after its end of file), drop it
 * at its end, on an error, after a line too long or when it has been idle
 * for --ctl-timeout. */
static void
serve(unsigned i, short revents, double now, bool *quit)
{
	struct conn *c = &conn[i];
	bool eof = false;
	char *nl;

	if ((revents & (POLLIN | POLLHUP | POLLERR)) &&
	    c->len < sizeof(c->buf)) {
		ssize_t r = recv(c->fd, c->buf + c->len,
				 sizeof(c->buf) - c->len, MSG_DONTWAIT);

		if (r > 0)
			c->len += (size_t)r;
		else if (r == 0)
			eof = true;
		else if (errno != EAGAIN && errno != EWOULDBLOCK &&
			 errno != EINTR) {
			drop(i);
			return;
		}
	}
	for (unsigned k = 0; (eof || k < PG_CTL_BURST) &&
			     (nl = memchr(c->buf, '\n', c->len)) != NULL;
	     k++) {
		size_t n = (size_t)(nl - c->buf);

		if (handle(i, c->buf, n, quit) != 0)
			return; /* dropped */
		c->since = now;
		c->len -= n + 1;
		memmove(c->buf, nl + 1, c->len);
	}
	if (eof)
		drop(i);
	else if (c->len == sizeof(c->buf) &&
		 memchr(c->buf, '\n', c->len) == NULL)
		drop_with(i, "request longer than %u bytes", PG_CTL_LINE);
	else if (now - c->since >= timeout_s)
		drop_with(i, "timeout: no complete request in %g s", timeout_s);
}

/* Never waits: poll() with no timeout says which sockets have something;
 * every reply is sent whole at once or its client is dropped. */
bool
pg_ctl_poll(void)
{
	bool quit = false;
	double now;

	if (lfd < 0)
		return false;
	pfd[0] = (struct pollfd){.fd = lfd, .events = POLLIN};
	for (unsigned i = 0; i < PG_CTL_CONNS; i++)
		pfd[1 + i] =
		    (struct pollfd){.fd = conn[i].fd, .events = POLLIN};
	if (poll(pfd, 1 + PG_CTL_CONNS, 0) < 0)
		return false;
	now = now_s();
	for (unsigned i = 0; i < PG_CTL_CONNS; i++)
		if (conn[i].fd >= 0)
			serve(i, pfd[1 + i].revents, now, &quit);
	/* After the clients: the new ones' slots had no fd in pfd[]. */
	if (pfd[0].revents & POLLIN)
		accept_all(now);
	return quit;
}
