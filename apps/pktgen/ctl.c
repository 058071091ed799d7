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
 * the unit it has). Answers come in the order of the requests, and the
 * connection stays open for more; a last request without its newline is
 * answered too when the client shuts its sending side.
 *
 * Errors: {"ok": false, "error": "..."}, a text that names what is wrong,
 * and the connection goes on: a NUL byte in the line ("request has a NUL
 * byte at offset N"), not JSON (jansson's text, "(line L, column C)"), a
 * key twice ("duplicate key \"cmd\" ..."; at any depth), not an object
 * ("request is an array, not a JSON object"), no "cmd" or one not known,
 * a key the command does not take ("stats: unknown key 'x' ..."), a bad
 * value (rate: "pps", "mbps" or "pct", one, a number, in the run's unit;
 * "stream" an id or a name that exists). The answers below end the
 * connection after them.
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
 * the client is dropped: never a wait for it. Answers go with
 * MSG_NOSIGNAL: a client gone never raises SIGPIPE (a stop signal here).
 *
 * Who may use it: the socket file is 0600 (--ctl-group GROUP: 0660 and
 * that group) from the moment it exists, whatever the umask (see
 * bind_private()); so only root, the run's user (and the group's members)
 * can connect. On top of the file's mode, each client's credentials when
 * it connected (SO_PEERCRED) are checked: root, the run's effective uid,
 * or with --ctl-group a member of the group (its gid, its supplementary
 * groups (SO_PEERGROUPS), or its user's primary group and the groups that
 * list it in the databases (getpwuid, getgrouplist)). Anyone else is
 * answered {"ok": false, "error": "permission denied: uid N ..."} and
 * closed, before any request is read. (systemd's and Docker's sockets
 * rely on the file's mode alone; the check also holds when the mode was
 * loosened by hand.)
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <stdarg.h>
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
/* Connections the kernel queues until a tick (5 ms) accepts them, and the
 * most a tick accepts: a burst of clients this large waits one tick. */
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
 * around bind(): the umask is the process's, and by now the EAL has
 * started its lcores' threads and drivers may have their own; a file one
 * of them created meanwhile would get our umask. 0, or -1 after a
 * message. */
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

/* Whether the user database makes user uid a member of group g: its
 * primary group (passwd) or one that lists it (getgrouplist). */
static bool
user_groups_have(uid_t uid, gid_t g)
{
	struct passwd pw, *p = NULL;
	char buf[4096];
	gid_t few[64], *gs = few;
	int n = 64, r;
	bool found = false;

	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &p) != 0 || p == NULL)
		return false;
	r = getgrouplist(p->pw_name, p->pw_gid, gs, &n);
	if (r < 0 && n > 64 && (gs = malloc((size_t)n * sizeof(*gs))))
		r = getgrouplist(p->pw_name, p->pw_gid, gs, &n);
	for (int i = 0; r >= 0 && i < n; i++)
		found |= gs[i] == g;
	if (gs != few)
		free(gs);
	return found;
}

/* Whether the client on fd may use the socket, by its credentials when it
 * connected (SO_PEERCRED): root, our uid, or with --ctl-group a member of
 * that group (its gid, its supplementary groups, its user's groups in the
 * databases). Else false with the answer it gets in err. */
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
			   user_groups_have(c.uid, group)))
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

/* {"ok": false, "error": err}. A message that is not UTF-8 (bytes of a
 * request quoted, a name cut inside a character) has every byte above
 * 0x7f made '?' first: jansson takes only UTF-8, and an error must go. */
static json_t *
error_json(char *err)
{
	json_t *s = json_string(err);

	if (s == NULL) {
		for (char *p = err; *p != '\0'; p++)
			if ((unsigned char)*p > 0x7f)
				*p = '?';
		s = json_string(err);
	}
	return json_pack("{s:b, s:o}", "ok", 0, "error", s);
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
	send_line(conn[i].fd, error_json(err));
	drop(i);
}

/* A request's command: its name, what runs it (the answer without "ok",
 * or NULL with the reason in err) and the keys it takes besides "cmd". */
struct ctl_cmd {
	const char *name;
	json_t *(*fn)(const char *cmd, json_t *req, char *err, size_t n,
		      bool *quit);
	const char *keys[5];
};

static json_t *
cmd_stats(const char *cmd, json_t *req, char *err, size_t n, bool *quit)
{
	json_t *r = pg_ctl_stats();

	(void)cmd, (void)req, (void)quit;
	if (r == NULL)
		snprintf(err, n, "stats: out of memory");
	return r;
}

static json_t *
cmd_sending(const char *cmd, json_t *req, char *err, size_t n, bool *quit)
{
	(void)req, (void)err, (void)n, (void)quit;
	pg_ctl_set_sending(strcmp(cmd, "start") == 0);
	return json_pack("{s:b}", "sending", pg_sending());
}

static json_t *
cmd_quit(const char *cmd, json_t *req, char *err, size_t n, bool *quit)
{
	(void)cmd, (void)req, (void)err, (void)n;
	*quit = true;
	return json_object();
}

static json_t *
cmd_rate(const char *cmd, json_t *req, char *err, size_t n, bool *quit)
{
	static const char *const units[] = {"pps", "mbps", "pct"};
	json_t *v = NULL;
	int u = 0, nu = 0, k = req_stream(req, err, n);

	(void)cmd, (void)quit;
	for (int j = 2; j >= 0; j--)
		if (json_object_get(req, units[j]) != NULL) {
			v = json_object_get(req, units[j]);
			u = j;
			nu++;
		}
	if (k == -2)
		return NULL; /* err says why */
	if (nu > 1) {
		snprintf(err, n,
			 "rate: give one of \"pps\", \"mbps\" or \"pct\", not "
			 "%d",
			 nu);
		return NULL;
	}
	if (v == NULL || !json_is_number(v)) {
		snprintf(err, n,
			 "rate: give \"pps\", \"mbps\" or \"pct\" with a "
			 "number");
		return NULL;
	}
	if (pg_ctl_set_rate(u + 1, json_number_value(v), k, err, n) != 0)
		return NULL;
	return json_pack("{s:f}", "rate", json_number_value(v));
}

/* The commands, in the order of CMDS. */
static const struct ctl_cmd cmds[] = {
    {"stats", cmd_stats, {NULL}},
    {"start", cmd_sending, {NULL}},
    {"stop", cmd_sending, {NULL}},
    {"rate", cmd_rate, {"pps", "mbps", "pct", "stream", NULL}},
    {"quit", cmd_quit, {NULL}},
};

/* 0 when every key of req is "cmd" or one that c takes; else -1 with the
 * first other one named in err. */
static int
check_keys(const struct ctl_cmd *c, json_t *req, char *err, size_t n)
{
	const char *key;
	json_t *v;

	json_object_foreach(req, key, v)
	{
		char takes[64] = "\"cmd\"";
		bool ok = strcmp(key, "cmd") == 0;

		for (unsigned k = 0; !ok && c->keys[k] != NULL; k++)
			ok = strcmp(key, c->keys[k]) == 0;
		if (ok)
			continue;
		for (unsigned k = 0; c->keys[k] != NULL; k++)
			snprintf(takes + strlen(takes),
				 sizeof(takes) - strlen(takes), ", \"%s\"",
				 c->keys[k]);
		snprintf(err, n, "%s: unknown key '%.64s' (it takes %s%s)",
			 c->name, key, takes, c->keys[0] ? "" : " only");
		return -1;
	}
	return 0;
}

/* Run the command req names: its answer (without "ok"), or NULL with the
 * reason in err. */
static json_t *
dispatch(json_t *req, char *err, size_t n, bool *quit)
{
	const json_t *jc = json_object_get(req, "cmd");
	const char *cmd = json_string_value(jc);

	if (jc == NULL) {
		snprintf(err, n, "no \"cmd\" (" CMDS ")");
		return NULL;
	}
	if (cmd == NULL) {
		snprintf(err, n, "\"cmd\" is not a string (" CMDS ")");
		return NULL;
	}
	for (size_t k = 0; k < sizeof(cmds) / sizeof(cmds[0]); k++) {
		if (strcmp(cmd, cmds[k].name) != 0)
			continue;
		if (check_keys(&cmds[k], req, err, n) != 0)
			return NULL;
		return cmds[k].fn(cmd, req, err, n, quit);
	}
	snprintf(err, n, "unknown cmd '%.64s' (" CMDS ")", cmd);
	return NULL;
}

/* The request in line (len bytes, no newline) as a JSON object, or NULL
 * with what is wrong with it in err: a NUL byte, not JSON (jansson's
 * words, line and column), a duplicate key, not an object. */
static json_t *
parse_request(const char *line, size_t len, char *err, size_t n)
{
	static const char *const kind[] = {
	    [JSON_OBJECT] = "an object", [JSON_ARRAY] = "an array",
	    [JSON_STRING] = "a string",	 [JSON_INTEGER] = "a number",
	    [JSON_REAL] = "a number",	 [JSON_TRUE] = "true",
	    [JSON_FALSE] = "false",	 [JSON_NULL] = "null",
	};
	const char *nul = memchr(line, '\0', len), *near;
	json_error_t e;
	json_t *req;

	if (nul != NULL) {
		snprintf(err, n, "request has a NUL byte at offset %zu",
			 (size_t)(nul - line));
		return NULL;
	}
	req =
	    json_loadb(line, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &e);
	if (req == NULL) {
		near = strstr(e.text, "near '"); /* near '"key"' */
		if (json_error_code(&e) == json_error_duplicate_key && near)
			snprintf(err, n,
				 "duplicate key %.*s (line %d, column %d)",
				 (int)strlen(near + 6) - 1, near + 6, e.line,
				 e.column);
		else
			snprintf(err, n, "not JSON: %s (line %d, column %d)",
				 e.text, e.line, e.column);
		return NULL;
	}
	if (!json_is_object(req)) {
		snprintf(err, n, "request is %s, not a JSON object",
			 kind[json_typeof(req)]);
		json_decref(req);
		return NULL;
	}
	return req;
}

/* Answer client i's request line (len bytes, without its '\n'); *quit
 * set by "quit". 0, or -1 when the answer could not be sent whole: the
 * client is dropped then. */
static int
handle(unsigned i, const char *line, size_t len, bool *quit)
{
	char err[256] = "out of memory";
	json_t *req = parse_request(line, len, err, sizeof(err));
	json_t *resp = req ? dispatch(req, err, sizeof(err), quit) : NULL;

	json_decref(req);
	if (resp != NULL)
		json_object_set_new(resp, "ok", json_true());
	else
		resp = error_json(err);
	if (send_line(conn[i].fd, resp) != 0) {
		drop(i);
		return -1;
	}
	return 0;
}

/* Take the connections waiting: a client that may not use the socket is
 * answered why, one over PG_CTL_CONNS that it is busy; both are closed. */
static void
accept_all(double now)
{
	char err[256];
	int fd;

	/* At most a backlog's worth a tick: clients that keep connecting
	 * cannot hold the control thread here. */
	for (unsigned k = 0;
	     k < PG_CTL_BACKLOG &&
	     (fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0;
	     k++) {
		unsigned i = 0;

		if (!peer_allowed(fd, err, sizeof(err))) {
			/* err says why */
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
		send_line(fd, error_json(err));
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
	if (c->len == sizeof(c->buf) && memchr(c->buf, '\n', c->len) == NULL)
		drop_with(i, "request longer than %u bytes", PG_CTL_LINE);
	else if (eof && c->len > 0 && handle(i, c->buf, c->len, quit) != 0)
		return; /* dropped */
	else if (eof)
		drop(i);
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
