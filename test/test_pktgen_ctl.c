/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr-pktgen's control socket (--ctl, apps/pktgen/ctl.c) against clients of
 * our own, on net_null and net_ring ports, no hugepages: the socket's mode
 * whatever the umask and with --ctl-group; peers refused by their
 * credentials (as root); idle clients that do not lock others out and get a
 * timeout error; 80 clients at once, each answered or told it is busy;
 * every malformed request answered with a JSON error that names the fault;
 * a client that does not read its answers dropped, not waited for; and a
 * run's counters the same with and without a flood of clients.
 *
 * Each case runs the lr-pktgen binary of this build tree with its own
 * --file-prefix (pgctl_<case>_<pid>) and waits for the line that says the
 * socket is there, never for a fixed time; the bounds below are only for a
 * program that hangs.
 */
#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "lr_test.h"
#define LR_TEST_PG_NAME "test_pktgen_ctl"
#include "lr_test_pktgen.h"

/* READY_S (lr_test_pktgen.h) bounds lr-pktgen printing that its socket is
 * ready and an answer; HANG_S a hung client: only a hang hits them. */
#define HANG_S 20
#define ANS    8192
/* The server's limits (ctl.c). */
#define LIMIT 64
#define LINE  4096
/* A uid and gids no one of ours has. */
#define NOBODY	 65534
#define GROUP_ID 4242

static char sock[100]; /* fits sun_path */

/* ---- lr-pktgen ---- */

/* A run on a net_null port sending 1000 frames/s until "quit". */
static int
start_null(struct lr_test_child *c, const char *name, const char *opts)
{
	char o[512];

	snprintf(o, sizeof(o), "--tx-only --quiet --rate-pps 1000 %s", opts);
	return start_ctl(c, sock, sizeof(sock), name, "--vdev net_null0", o,
			 "control socket");
}

/* ---- clients ---- */

/* A client connected to sock: its fd, or -1 with errno. */
static int
cl_connect(void)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), e;

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", sock);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* Read from fd (a socket or a pipe) into buf (cap bytes, NUL-terminated)
 * until a newline or the end, at most timeout_s: the bytes read. */
static size_t
read_line(int fd, char *buf, size_t cap, double timeout_s)
{
	double end = lr_test_now() + timeout_s;
	size_t got = 0;

	buf[0] = '\0';
	while (got + 1 < cap && memchr(buf, '\n', got) == NULL) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int ms = (int)((end - lr_test_now()) * 1000);
		ssize_t r;

		if (ms <= 0 || poll(&p, 1, ms) <= 0)
			break;
		r = read(fd, buf + got, cap - 1 - got); /* a pipe too */
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
		buf[got] = '\0';
	}
	return got;
}

/* Send len bytes of req on fd, the answer line into ans (ANS bytes). */
static void
ask(int fd, const char *req, size_t len, char *ans)
{
	ans[0] = '\0';
	/* A server that refuses a peer answers and closes at once, maybe
	 * before the request goes (EPIPE): its answer is read all the same,
	 * as lr-pktgen-ctl does. */
	if (send(fd, req, len, MSG_NOSIGNAL) == (ssize_t)len ||
	    errno == EPIPE || errno == ECONNRESET)
		read_line(fd, ans, ANS, HANG_S);
}

/* Whether fd's server closed it (end of file or reset) within HANG_S. */
static bool
closed(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	char b[64];
	ssize_t r;

	if (poll(&p, 1, HANG_S * 1000) <= 0)
		return false;
	r = recv(fd, b, sizeof(b), MSG_DONTWAIT);
	return r == 0 || (r < 0 && errno == ECONNRESET);
}

/* ans as one JSON object alone on its line, else NULL after saying why. */
static json_t *
answer(const char *ans)
{
	const char *nl = strchr(ans, '\n');
	json_error_t e;
	json_t *j;

	if (nl == NULL || nl[1] != '\0') {
		fprintf(stderr, "not one line: '%s'\n", ans);
		return NULL;
	}
	j = json_loadb(ans, (size_t)(nl - ans), JSON_REJECT_DUPLICATES, &e);
	if (j == NULL || !json_is_object(j)) {
		fprintf(stderr, "not a JSON object (%s): '%s'\n", e.text, ans);
		json_decref(j);
		return NULL;
	}
	return j;
}

/* Whether ans is {"ok":false,"error":E} alone, E holding want (being want
 * when exact); else false after saying why. */
static bool
is_error(const char *ans, const char *want, bool exact)
{
	json_t *j = answer(ans);
	const char *e = json_string_value(json_object_get(j, "error"));
	bool ok = j != NULL && json_object_size(j) == 2 &&
		  json_is_false(json_object_get(j, "ok")) && e != NULL &&
		  (exact ? strcmp(e, want) == 0 : strstr(e, want) != NULL);

	if (!ok)
		fprintf(stderr, "expected the error '%s', got '%s'\n", want,
			ans);
	json_decref(j);
	return ok;
}

/* Whether ans is a "stats" answer ({"ok":true, "ports": [...], "state"})
 * with state in *state (16 bytes) if not NULL; else false after saying
 * why. */
static bool
is_stats(const char *ans, char *state)
{
	json_t *j = answer(ans);
	const char *s = json_string_value(json_object_get(j, "state"));
	bool ok = j != NULL && json_is_true(json_object_get(j, "ok")) &&
		  json_array_size(json_object_get(j, "ports")) > 0 && s;

	if (ok && state != NULL)
		snprintf(state, 16, "%s", s);
	if (!ok)
		fprintf(stderr, "expected a stats answer, got '%s'\n", ans);
	json_decref(j);
	return ok;
}

/* The "state" of the run by a stats request, into state (16 bytes). */
static bool
run_state(char *state)
{
	char ans[ANS];
	int fd = cl_connect();

	if (fd < 0)
		return false;
	ask(fd, "{\"cmd\":\"stats\"}\n", 16, ans);
	close(fd);
	return is_stats(ans, state);
}

/* End the run with "quit": 0 when it answered, ended well and removed
 * its socket; -1 after a message. */
static int
quit_run(struct lr_test_child *c)
{
	char ans[ANS];
	int fd = cl_connect(), rc;

	LR_TEST_ASSERT(fd >= 0, "connect %s: %s\n%s", sock, strerror(errno),
		       out);
	ask(fd, "{\"cmd\":\"quit\"}\n", 15, ans);
	close(fd);
	LR_TEST_ASSERT(strcmp(ans, "{\"ok\":true}\n") == 0, "quit: '%s'", ans);
	rc = lr_test_child_finish(c, READY_S);
	LR_TEST_ASSERT(rc == 0 && strstr(out, "pktgen total:"),
		       "lr-pktgen exit %d:\n%s", rc, out);
	LR_TEST_ASSERT(access(sock, F_OK) != 0, "%s left behind", sock);
	return 0;
}

/* End a run a case gave up on: SIGTERM, after which lr-pktgen cleans up
 * (its runtime folder), and SIGKILL if it does not end in HANG_S. */
static int
kill_run(struct lr_test_child *c)
{
	kill(c->pid, SIGTERM);
	lr_test_child_finish(c, HANG_S);
	return -1;
}

/* Fail the case, killing run c, unless cond. */
#define CHECK(c, cond, ...)                                                    \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: '%s' failed: ", __FILE__,      \
				__LINE__, #cond);                              \
			fprintf(stderr, __VA_ARGS__);                          \
			fputc('\n', stderr);                                   \
			return kill_run(c);                                    \
		}                                                              \
	} while (0)

/* ---- cases ---- */

/* Entries of tmpdir other than the sockets of runs: a private directory
 * left by the socket's creation would be one. Its name into what. */
static bool
stray_entry(char *what, size_t n)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	bool found = false;

	while (d && !found && (e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name);

		if (strcmp(e->d_name, ".") == 0 ||
		    strcmp(e->d_name, "..") == 0 ||
		    (l > 5 && strcmp(e->d_name + l - 5, ".sock") == 0))
			continue;
		snprintf(what, n, "%s", e->d_name);
		found = true;
	}
	if (d)
		closedir(d);
	return found;
}

/* Under umask 0 (a socket file would be 0777), the socket is 0600 and
 * ours, no directory of its making is left, and it serves us. */
static int
test_mode_umask0(void)
{
	struct lr_test_child c;
	struct stat st;
	char state[16], what[256];
	mode_t old = umask(0);
	int rc = start_null(&c, "umask0", "");

	umask(old);
	if (rc != 0)
		return -1;
	CHECK(&c, lstat(sock, &st) == 0, "%s: %s", sock, strerror(errno));
	CHECK(&c, S_ISSOCK(st.st_mode) && (st.st_mode & 07777) == 0600,
	      "mode %o, want a socket 0600", (unsigned)st.st_mode);
	CHECK(&c, st.st_uid == geteuid(), "owner %u", (unsigned)st.st_uid);
	CHECK(&c, !stray_entry(what, sizeof(what)), "'%s' left in %s", what,
	      tmpdir);
	CHECK(&c, run_state(state) && strcmp(state, "sending") == 0,
	      "state '%s'", state);
	return quit_run(&c);
}

/* A run with --ctl-group g: the socket 0660 and that group. */
static int
group_run(const char *name, const char *g, gid_t gid)
{
	struct lr_test_child c;
	struct stat st;
	char opts[128], state[16];
	mode_t old = umask(0);
	int rc;

	snprintf(opts, sizeof(opts), "--ctl-group %s", g);
	rc = start_null(&c, name, opts);
	umask(old);
	if (rc != 0)
		return -1;
	CHECK(&c, lstat(sock, &st) == 0, "%s: %s", sock, strerror(errno));
	CHECK(&c, S_ISSOCK(st.st_mode) && (st.st_mode & 07777) == 0660,
	      "--ctl-group %s: mode %o, want a socket 0660", g,
	      (unsigned)st.st_mode);
	CHECK(&c, st.st_gid == gid, "--ctl-group %s: group %u, want %u", g,
	      (unsigned)st.st_gid, (unsigned)gid);
	CHECK(&c, run_state(state), "--ctl-group %s: no stats", g);
	return quit_run(&c);
}

/* Run lr-pktgen with opts until it exits: its exit status. */
static int
run_to_exit(const char *name, const char *opts)
{
	struct lr_test_child c;

	if (start_ctl(&c, sock, sizeof(sock), name, "--vdev net_null0", opts,
		      NULL) != 0)
		return -1;
	return lr_test_child_finish(&c, READY_S);
}

/* --ctl-group by name (our own group's) and by gid (another group's: any
 * for root, else one of ours if we have two); bad --ctl-* options are
 * usage errors that name them. */
static int
test_mode_group(void)
{
	struct group *g = getgrgid(getegid());
	gid_t gs[64], other = (gid_t)-1;
	char num[32];
	int n = getgroups(64, gs), rc;

	LR_TEST_ASSERT(g != NULL, "no name for our gid %u", getegid());
	if (group_run("group_name", g->gr_name, getegid()) != 0)
		return -1;
	for (int i = 0; i < n; i++)
		if (gs[i] != getegid())
			other = gs[i];
	if (geteuid() == 0)
		other = GROUP_ID;
	snprintf(num, sizeof(num), "%u", (unsigned)other);
	if (other == (gid_t)-1)
		printf("no second group to give the socket: --ctl-group by gid "
		       "not tried\n");
	else if (group_run("group_gid", num, other) != 0)
		return -1;
	rc = run_to_exit("group_bad", "--ctl-group lr_no_such_group_x");
	LR_TEST_ASSERT(rc == 2 && strstr(out, "--ctl-group "
					      "'lr_no_such_group_x': no such "
					      "group"),
		       "unknown group: exit %d:\n%s", rc, out);
	rc = run_to_exit("timeout_bad", "--ctl-timeout 0");
	LR_TEST_ASSERT(rc == 2 &&
			   strstr(out, "--ctl-timeout '0': out of range"),
		       "--ctl-timeout 0: exit %d:\n%s", rc, out);
	return 0;
}

/* In a forked child become uid NOBODY with primary group gid and the ng
 * supplementary groups gs, connect to sock and send req: into ans what came
 * back (the answer line, or "connect: <error>"). */
static void
ask_as(gid_t gid, const gid_t *gs, int ng, const char *req, char *ans)
{
	int p[2], st;
	pid_t pid;

	ans[0] = '\0';
	if (pipe(p) != 0)
		return;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		char a[ANS];
		int fd;

		close(p[0]);
		if (setgroups((size_t)ng, gs) != 0 || setgid(gid) != 0 ||
		    setuid(NOBODY) != 0)
			snprintf(a, sizeof(a), "set ids: %s", strerror(errno));
		else if ((fd = cl_connect()) < 0)
			snprintf(a, sizeof(a), "connect: %s", strerror(errno));
		else
			ask(fd, req, strlen(req), a);
		_exit(write(p[1], a, strlen(a)) < 0);
	}
	close(p[1]);
	if (pid > 0) {
		read_line(p[0], ans, ANS, HANG_S);
		waitpid(pid, &st, 0);
	}
	close(p[0]);
}

/* As root: with the socket loosened to 0666 by hand, a client of uid
 * 65534 is refused by its credentials, with the JSON error, and its "stop"
 * is not done. */
static int
test_peer_refused(void)
{
	struct lr_test_child c;
	char ans[ANS], state[16];

	if (geteuid() != 0) {
		printf("not root: cannot connect as another uid: skipping\n");
		return LR_TEST_SKIP;
	}
	if (start_null(&c, "refused", "") != 0)
		return -1;
	ask_as(NOBODY, NULL, 0, "{\"cmd\":\"stop\"}\n", ans);
	CHECK(&c, strstr(ans, "connect: Permission denied"),
	      "uid %u through mode 0600: '%s'", NOBODY, ans);
	CHECK(&c, chmod(sock, 0666) == 0, "chmod %s: %s", sock,
	      strerror(errno));
	ask_as(NOBODY, NULL, 0, "{\"cmd\":\"stop\"}\n", ans);
	CHECK(&c,
	      is_error(ans,
		       "permission denied: uid 65534 is not root or the run's "
		       "user (uid 0)",
		       true),
	      "uid %u", NOBODY);
	CHECK(&c, run_state(state) && strcmp(state, "sending") == 0,
	      "after a refused \"stop\": state '%s'", state);
	return quit_run(&c);
}

/* As root, --ctl-group GROUP_ID: uid 65534 is let in with that gid, with
 * it as a supplementary group, and (mode loosened) as a member by the
 * user database (GROUP nogroup, the passwd group of nobody); without it,
 * the file's mode keeps it out, and loosened, the credentials. */
static int
test_group_members(void)
{
	const gid_t g = GROUP_ID, ng = NOBODY;
	struct passwd *pw = getpwuid(NOBODY);
	struct lr_test_child c;
	char ans[ANS], opts[64];

	if (geteuid() != 0 || pw == NULL || pw->pw_gid != NOBODY) {
		printf("not root, or no user %u of group %u: skipping\n",
		       NOBODY, NOBODY);
		return LR_TEST_SKIP;
	}
	snprintf(opts, sizeof(opts), "--ctl-group %u", GROUP_ID);
	if (start_null(&c, "members", opts) != 0)
		return -1;
	ask_as(g, NULL, 0, "{\"cmd\":\"stats\"}\n", ans);
	CHECK(&c, is_stats(ans, NULL), "gid %u", GROUP_ID);
	ask_as(ng, &g, 1, "{\"cmd\":\"stats\"}\n", ans);
	CHECK(&c, is_stats(ans, NULL), "supplementary group %u", GROUP_ID);
	ask_as(ng, NULL, 0, "{\"cmd\":\"stats\"}\n", ans);
	CHECK(&c, strstr(ans, "connect: Permission denied"), "'%s'", ans);
	CHECK(&c, chmod(sock, 0666) == 0, "chmod: %s", strerror(errno));
	ask_as(ng, NULL, 0, "{\"cmd\":\"stats\"}\n", ans);
	CHECK(&c, is_error(ans, "permission denied: uid 65534 is not root", 0),
	      "not a member");
	if (quit_run(&c) != 0)
		return -1;
	snprintf(opts, sizeof(opts), "--ctl-group %u", NOBODY);
	if (start_null(&c, "members_db", opts) != 0)
		return -1;
	CHECK(&c, chmod(sock, 0666) == 0, "chmod: %s", strerror(errno));
	ask_as(g, NULL, 0, "{\"cmd\":\"stats\"}\n", ans);
	CHECK(&c, is_stats(ans, NULL), "member by the user database");
	return quit_run(&c);
}

/* Wait until each of the n clients fds got a line or closed (HANG_S in
 * all): the line into ans[i] ("" if none), when it came into at[i]. */
static void
collect(const int *fds, unsigned n, char (*ans)[ANS], double *at)
{
	static struct pollfd p[128];
	double end = lr_test_now() + HANG_S;
	unsigned left = n;

	for (unsigned i = 0; i < n; i++) {
		p[i] = (struct pollfd){.fd = fds[i], .events = POLLIN};
		ans[i][0] = '\0';
	}
	while (left > 0 && lr_test_now() < end && poll(p, n, 100) >= 0) {
		for (unsigned i = 0; i < n; i++) {
			if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP)))
				continue;
			read_line(fds[i], ans[i], ANS, 1);
			at[i] = lr_test_now();
			p[i].fd = -1;
			left--;
		}
	}
}

/* --ctl-timeout 1: 16 clients that connect and say nothing (the last four
 * half a request) do not lock out a 17th, answered within the timeout and
 * a second; each idle one is answered the timeout error about a second
 * after it came (not before), then closed. */
static int
test_idle_clients(void)
{
	static char ans[16][ANS];
	struct lr_test_child c;
	int idle[16], fd;
	double t0[16], at[16], t;
	char one[ANS];

	if (start_null(&c, "idle", "--ctl-timeout 1") != 0)
		return -1;
	for (int i = 0; i < 16; i++) {
		idle[i] = cl_connect();
		t0[i] = lr_test_now();
		CHECK(&c, idle[i] >= 0, "connect: %s", strerror(errno));
		if (i >= 12)
			send(idle[i], "{\"cmd\": \"sta", 12, MSG_NOSIGNAL);
	}
	t = lr_test_now();
	fd = cl_connect();
	ask(fd, "{\"cmd\":\"stats\"}\n", 16, one);
	t = lr_test_now() - t;
	close(fd);
	CHECK(&c, is_stats(one, NULL) && t < 2, "17th: %.3f s: '%s'", t, one);
	collect(idle, 16, ans, at);
	for (int i = 0; i < 16; i++) {
		CHECK(&c,
		      is_error(ans[i], "timeout: no complete request in 1 s",
			       true),
		      "idle client %d", i);
		CHECK(&c, at[i] - t0[i] >= 0.99 && at[i] - t0[i] < 4,
		      "idle client %d answered after %.3f s", i, at[i] - t0[i]);
		CHECK(&c, closed(idle[i]), "idle client %d not closed", i);
		close(idle[i]);
	}
	return quit_run(&c);
}

/* 80 clients at once, each connected before any asks, with the default
 * limit: the first 64 get their stats, the last 16 the busy error; none
 * gets nothing. */
static int
test_many_clients(void)
{
	static char ans[80][ANS];
	static const char busy[] =
	    "{\"ok\":false,\"error\":\"busy: 64 clients connected "
	    "(limit 64)\"}\n";
	struct lr_test_child c;
	int fds[80];
	double at[80];
	unsigned nbusy = 0, nstats = 0;

	if (start_null(&c, "many", "") != 0)
		return -1;
	for (int i = 0; i < 80; i++) {
		fds[i] = cl_connect();
		CHECK(&c, fds[i] >= 0, "client %d: connect: %s", i,
		      strerror(errno));
	}
	for (int i = 0; i < 80; i++) /* a busy one may be closed by now */
		send(fds[i], "{\"cmd\":\"stats\"}\n", 16, MSG_NOSIGNAL);
	collect(fds, 80, ans, at);
	for (int i = 0; i < 80; i++) {
		bool b = strcmp(ans[i], busy) == 0;

		CHECK(&c, b || is_stats(ans[i], NULL),
		      "client %d: neither an answer nor busy: '%s'", i, ans[i]);
		CHECK(&c, b == (i >= LIMIT), "client %d of 80: '%s'", i,
		      ans[i]);
		nbusy += b;
		nstats += !b;
		close(fds[i]);
	}
	CHECK(&c, nstats == LIMIT && nbusy == 80 - LIMIT, "%u stats, %u busy",
	      nstats, nbusy);
	return quit_run(&c);
}

#define REQ(s) s, sizeof(s) - 1

/* Each malformed request is answered a JSON error naming the fault, and
 * the connection goes on: a "stop" in a request with a duplicate key is
 * not done, a stats request after them all is answered. */
static int
bad_requests(struct lr_test_child *c, int fd)
{
	static const struct {
		const char *req;
		size_t len;
		const char *want;
		bool exact;
	} bad[] = {
	    {REQ("{\"cmd\":\"st\0ats\"}\n"),
	     "request has a NUL byte at offset 10", true},
	    {REQ("{\"cmd\":\"stats\",\"cmd\":\"stop\"}\n"),
	     "duplicate key \"cmd\" (line 1, column", false},
	    {REQ("{\"cmd\":\"stop\",\"x\":{\"a\":1,\"a\":2}}\n"),
	     "duplicate key \"a\"", false},
	    {REQ("\xff\xfe\x01\x02\x80garbage\x90\n"), "not JSON: ", false},
	    {REQ("{\"cmd\": stats}\n"), "(line 1, column", false},
	    {REQ("[\"stats\"]\n"), "request is an array, not a JSON object",
	     true},
	    {REQ("\"stats\"\n"), "request is a string, not a JSON object",
	     true},
	    {REQ("42\n"), "request is a number, not a JSON object", true},
	    {REQ("{\"cmd\":\"stats\",\"x\":1}\n"),
	     "stats: unknown key 'x' (it takes \"cmd\" only)", true},
	    {REQ("{\"cmd\":\"stop\",\"now\":true}\n"),
	     "stop: unknown key 'now'", false},
	    {REQ("{\"cmd\":\"rate\",\"pps\":5,\"burst\":1}\n"),
	     "rate: unknown key 'burst'", false},
	    {REQ("{}\n"), "no \"cmd\"", false},
	    {REQ("{\"cmd\":\"x\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		 "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3"
		 "\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		 "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3"
		 "\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\"}\n"),
	     "unknown cmd 'x", false},
	};
	char ans[ANS], state[16];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ask(fd, bad[i].req, bad[i].len, ans);
		CHECK(c, is_error(ans, bad[i].want, bad[i].exact),
		      "request %zu", i);
	}
	ask(fd, "{\"cmd\":\"stats\"}\n", 16, ans);
	CHECK(c, is_stats(ans, state) && strcmp(state, "sending") == 0,
	      "after the bad requests: state '%s'", state);
	return 0;
}

/* Send a request of n bytes ('{', spaces, '}', a newline) on fd without
 * waiting and read the answer: for a request over the limit the server
 * stops reading, answers and closes while we still send. */
static void
ask_long(int fd, size_t n, char *ans)
{
	char *req = malloc(n);
	size_t sent = 0, got = 0;
	double end = lr_test_now() + HANG_S;

	ans[0] = '\0';
	if (req == NULL)
		return;
	memset(req, ' ', n);
	req[0] = '{';
	req[n - 2] = '}';
	req[n - 1] = '\n';
	while (memchr(ans, '\n', got) == NULL && lr_test_now() < end) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		ssize_t r;

		if (sent < n)
			p.events |= POLLOUT;
		if (poll(&p, 1, 100) <= 0)
			continue;
		if ((p.revents & POLLOUT) && sent < n &&
		    (r = send(fd, req + sent, n - sent,
			      MSG_NOSIGNAL | MSG_DONTWAIT)) > 0)
			sent += (size_t)r;
		if (!(p.revents & (POLLIN | POLLHUP)))
			continue;
		r = recv(fd, ans + got, ANS - 1 - got, MSG_DONTWAIT);
		if (r <= 0)
			break;
		got += (size_t)r;
		ans[got] = '\0';
	}
	free(req);
}

/* Malformed requests on one connection; a request of exactly 4096 bytes
 * is answered, one of 4097 and one of 1 MiB are answered "request longer
 * than 4096 bytes" and closed (not reset before the answer). */
static int
test_malformed(void)
{
	static const char longer[] =
	    "{\"ok\":false,\"error\":\"request longer than 4096 bytes\"}\n";
	const size_t sizes[] = {LINE + 2, 1 << 20};
	struct lr_test_child c;
	char ans[ANS];
	int fd;

	if (start_null(&c, "malformed", "") != 0)
		return -1;
	fd = cl_connect();
	CHECK(&c, fd >= 0, "connect: %s", strerror(errno));
	if (bad_requests(&c, fd) != 0)
		return -1;
	/* 4096 bytes and the newline: not JSON, but not too long. */
	ask_long(fd, LINE + 1, ans);
	CHECK(&c, is_error(ans, "no \"cmd\"", false), "4096 bytes");
	close(fd);
	for (int i = 0; i < 2; i++) {
		fd = cl_connect();
		CHECK(&c, fd >= 0, "connect: %s", strerror(errno));
		ask_long(fd, sizes[i], ans);
		CHECK(&c, strcmp(ans, longer) == 0, "%zu bytes: '%s'",
		      sizes[i] - 1, ans);
		CHECK(&c, closed(fd), "not closed after %zu bytes",
		      sizes[i] - 1);
		close(fd);
	}
	return quit_run(&c);
}

/* Send n stats requests on fd as fast as it takes them, reading nothing:
 * how many went before the server closed it (or all n). */
static unsigned
send_unread(int fd, unsigned n)
{
	static const char req[] = "{\"cmd\":\"stats\"}\n";
	double end = lr_test_now() + HANG_S;
	unsigned sent = 0;
	size_t off = 0;

	while (sent < n && lr_test_now() < end) {
		struct pollfd p = {.fd = fd, .events = POLLOUT};
		ssize_t r;

		if (poll(&p, 1, 100) <= 0)
			continue;
		r = send(fd, req + off, sizeof(req) - 1 - off,
			 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (r < 0 && errno != EAGAIN && errno != EINTR)
			break; /* closed by the server */
		off += r > 0 ? (size_t)r : 0;
		if (off == sizeof(req) - 1) {
			sent++;
			off = 0;
		}
	}
	return sent;
}

/* Read fd into buf (cap bytes, NUL-terminated) until its end (0 or a
 * reset), waiting at most gap_s for more each time: the bytes read, and in
 * *end whether it ended. */
static size_t
read_to_end(int fd, char *buf, size_t cap, double gap_s, bool *end)
{
	size_t got = 0;

	*end = false;
	while (got + 1 < cap) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		ssize_t r;

		if (poll(&p, 1, (int)(gap_s * 1000)) <= 0)
			break;
		r = read(fd, buf + got, cap - 1 - got);
		if (r == 0 || (r < 0 && errno == ECONNRESET)) {
			*end = true;
			break;
		}
		if (r < 0 && errno != EINTR && errno != EAGAIN)
			break;
		got += r > 0 ? (size_t)r : 0;
	}
	buf[got] = '\0';
	return got;
}

/* A client that asks and never reads its answers is dropped once an
 * answer no longer fits in its socket, never waited for: what it can read
 * then is whole stats answers, fewer than it asked for, and the end (well
 * before --ctl-timeout 5 would end it); another client is answered
 * meanwhile. */
static int
test_slow_reader(void)
{
	static char buf[1 << 20];
	struct lr_test_child c;
	char state[16], *p, *nl;
	unsigned sent, lines = 0;
	bool end;
	int fd;

	if (start_null(&c, "slow", "") != 0)
		return -1;
	fd = cl_connect();
	CHECK(&c, fd >= 0, "connect: %s", strerror(errno));
	sent = send_unread(fd, 20000);
	CHECK(&c, run_state(state) && strcmp(state, "sending") == 0,
	      "another client: state '%s'", state);
	read_to_end(fd, buf, sizeof(buf), 3, &end);
	close(fd);
	for (p = buf; (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
		char one[ANS];

		snprintf(one, sizeof(one), "%.*s", (int)(nl + 1 - p), p);
		CHECK(&c, is_stats(one, NULL), "answer %u", lines);
		lines++;
	}
	printf("%u requests sent, %u answers read, then %s\n", sent, lines,
	       end ? "the end" : "nothing more");
	CHECK(&c, end && *p == '\0', "not closed, or a partial answer: '%s'",
	      p);
	CHECK(&c, lines > 0 && lines < sent, "%u answers to %u requests", lines,
	      sent);
	return quit_run(&c);
}

/* The flood: FLOOD clients that ask for stats again as soon as answered,
 * and RUDE clients a round that send a request (or garbage) and close at
 * once without reading. Every answer must be a stats answer. */
#define FLOOD 56
#define RUDE  8

struct flood {
	int fd[FLOOD];
	size_t len[FLOOD];
	char buf[FLOOD][ANS];
	unsigned got[FLOOD]; /* answers of each */
	unsigned answers, bad, sending, rude;
};

/* One round: read the answers that came, ask again; the rude ones. */
static void
flood_round(struct flood *f)
{
	static const char *const rude[] = {
	    "{\"cmd\":\"stats\"}\n", "\xff\xfe garbage\n", "{\"cmd\": \"st"};
	struct pollfd p[FLOOD];

	for (int i = 0; i < FLOOD; i++)
		p[i] = (struct pollfd){.fd = f->fd[i], .events = POLLIN};
	poll(p, FLOOD, 5);
	for (int i = 0; i < FLOOD; i++) {
		char *nl, state[16] = "";
		ssize_t r;

		if (f->fd[i] < 0 || !(p[i].revents & (POLLIN | POLLHUP)))
			continue;
		r = recv(f->fd[i], f->buf[i] + f->len[i], ANS - 1 - f->len[i],
			 MSG_DONTWAIT);
		if (r <= 0) { /* the run ended */
			close(f->fd[i]);
			f->fd[i] = -1;
			continue;
		}
		f->len[i] += (size_t)r;
		f->buf[i][f->len[i]] = '\0';
		if ((nl = strchr(f->buf[i], '\n')) == NULL)
			continue;
		nl[1] = '\0';
		if (is_stats(f->buf[i], state)) {
			f->answers++;
			f->got[i]++;
		} else
			f->bad++;
		f->sending += strcmp(state, "sending") == 0;
		f->len[i] = 0;
		send(f->fd[i], "{\"cmd\":\"stats\"}\n", 16, MSG_NOSIGNAL);
	}
	for (int k = 0; k < RUDE; k++) {
		int fd = cl_connect();
		const char *r = rude[f->rude++ % 3];

		if (fd >= 0) {
			send(fd, r, strlen(r), MSG_NOSIGNAL | MSG_DONTWAIT);
			close(fd);
		}
	}
}

/* Run 60000 frames at 40 kpps over a net_ring pair, with the flood or
 * without: the final line's counters into v[] (tx, rx_own, lost, dup). */
static int
counted_run(bool flood, double *v)
{
	static struct flood f;
	struct lr_test_child c;
	double end = lr_test_now() + READY_S;
	int rc;

	if (start_ctl(&c, sock, sizeof(sock), flood ? "flood" : "calm",
		      "--vdev net_ring0 --vdev net_ring1",
		      "--quiet --rate-pps 40000 --count 60000",
		      "control socket"))
		return -1;
	memset(&f, 0, sizeof(f));
	for (int i = 0; flood && i < FLOOD; i++) {
		f.fd[i] = cl_connect();
		CHECK(&c, f.fd[i] >= 0, "connect: %s", strerror(errno));
		send(f.fd[i], "{\"cmd\":\"stats\"}\n", 16, MSG_NOSIGNAL);
	}
	while (flood && c.fd >= 0 && lr_test_now() < end) {
		flood_round(&f);
		lr_test_child_read(&c, 0);
	}
	for (int i = 0; flood && i < FLOOD; i++)
		if (f.fd[i] >= 0)
			close(f.fd[i]);
	rc = lr_test_child_finish(&c, READY_S);
	LR_TEST_ASSERT(rc == 0 && strstr(out, "pktgen total:"),
		       "lr-pktgen exit %d:\n%s", rc, out);
	LR_TEST_ASSERT(f.bad == 0, "%u bad answers in the flood", f.bad);
	for (int i = 0; flood && i < FLOOD; i++)
		LR_TEST_ASSERT(f.got[i] > 0, "flood client %d: no answer", i);
	LR_TEST_ASSERT(!flood || (f.answers >= FLOOD && f.sending > 0),
		       "flood: %u answers, %u while sending", f.answers,
		       f.sending);
	if (flood)
		printf("flood: %u stats answers (%u while sending), %u rude "
		       "clients\n",
		       f.answers, f.sending, f.rude);
	v[0] = field("tx");
	v[1] = field("rx_own");
	v[2] = field("lost");
	v[3] = field("dup");
	return 0;
}

/* A run's counters are the same with and without a flood of clients on
 * its socket: it sent and got back every frame either way. */
static int
test_flood_counts(void)
{
	double calm[4], flood[4];

	if (counted_run(false, calm) != 0 || counted_run(true, flood) != 0)
		return -1;
	printf("calm: tx=%.0f rx_own=%.0f; flood: tx=%.0f rx_own=%.0f\n",
	       calm[0], calm[1], flood[0], flood[1]);
	LR_TEST_ASSERT(calm[0] == 60000 && calm[1] == 60000 && calm[2] == 0,
		       "calm run: tx %.0f rx_own %.0f lost %.0f", calm[0],
		       calm[1], calm[2]);
	for (int i = 0; i < 4; i++)
		LR_TEST_ASSERT(flood[i] == calm[i],
			       "counter %d: %.0f with the flood, %.0f without",
			       i, flood[i], calm[i]);
	return 0;
}

/* ---- /linerate/pktgen/stats over the telemetry socket ---- */

/* lr-pktgen's telemetry socket for the prefix argument pfx
 * ("--file-prefix=NAME"), into path (len bytes). */
static void
tel_path(char *path, size_t len, const char *pfx)
{
	const char *name = strchr(pfx, '=') + 1,
		   *xdg = getenv("XDG_RUNTIME_DIR");

	if (geteuid() == 0)
		snprintf(path, len, "/var/run/linerate/%s/dpdk_telemetry.v2",
			 name);
	else if (xdg && *xdg == '/')
		snprintf(path, len, "%s/linerate/%s/dpdk_telemetry.v2", xdg,
			 name);
	else
		snprintf(path, len, "/tmp/linerate-%u/%s/dpdk_telemetry.v2",
			 (unsigned)geteuid(), name);
}

/* Ask req on the telemetry socket at path: the reply's value (a new
 * reference; JSON null for a refused request), or NULL after a message.
 * A client of our own, as DPDK's dpdk-telemetry.py: the greeting, then one
 * request and its reply. */
static json_t *
tel_ask(const char *path, const char *req)
{
	static char buf[16 * 1024 + 1];
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	json_t *root = NULL, *v = NULL;
	ssize_t n = -1;

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    read(fd, buf, sizeof(buf) - 1) > 0 &&
	    write(fd, req, strlen(req)) == (ssize_t)strlen(req))
		n = read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0) {
		fprintf(stderr, "%s on %s: %s\n", req, path, strerror(errno));
		return NULL;
	}
	buf[n] = '\0';
	root = json_loads(buf, 0, NULL);
	if (root != NULL && json_object_size(root) == 1)
		v = json_incref(json_object_iter_value(json_object_iter(root)));
	else
		fprintf(stderr, "%s: not one key: '%s'\n", req, buf);
	json_decref(root);
	return v;
}

/* Poll /linerate/pktgen/stats until stream 0 sent more than min frames
 * and, with still, two replies in a row are the same; the last one (a
 * new reference), or NULL once the deadline passed. */
static json_t *
tel_settled(const char *path, uint64_t min, bool still)
{
	double end = lr_test_now() + READY_S;
	json_t *prev = NULL, *cur;

	while (lr_test_now() < end) {
		cur = tel_ask(path, "/linerate/pktgen/stats");
		if (cur == NULL)
			break;
		if (json_integer_value(json_object_get(
			json_object_get(json_object_get(cur, "streams"), "0"),
			"sent_total")) > (json_int_t)min &&
		    (!still || json_equal(prev, cur))) {
			json_decref(prev);
			return cur;
		}
		json_decref(prev);
		prev = cur;
		poll(NULL, 0, 20);
	}
	json_decref(prev);
	return NULL;
}

/* Whether the telemetry figure t (ns) is the --json figure j (us): the
 * same value, rounded to the nanosecond. */
static bool
same_ns(const json_t *t, const json_t *j)
{
	return fabs((double)json_integer_value(t) - json_real_value(j) * 1e3) <=
	       0.5 + 1e-6;
}

/* Stream s of the telemetry reply against stream j of --json: every
 * count exactly, the latency figures to the nanosecond. */
static int
tel_vs_json(const json_t *s, const json_t *j)
{
	static const char *const pair[][2] = {
	    {"sent_total", "tx"},   {"received_total", "rx"},
	    {"lost", "lost"},	    {"reordered_total", "reordered"},
	    {"late_total", "late"}, {"duplicates_total", "dup"}};
	static const char *const lat[][2] = {
	    {"latency_min_ns", "min"}, {"latency_p50_ns", "p50"},
	    {"latency_p99_ns", "p99"}, {"latency_p999_ns", "p999"},
	    {"latency_max_ns", "max"}, {"latency_avg_ns", "avg"}};
	const json_t *jl = json_object_get(j, "latency_us");

	for (unsigned i = 0; i < 6; i++)
		LR_TEST_ASSERT(
		    json_integer_value(json_object_get(s, pair[i][0])) ==
			json_integer_value(json_object_get(j, pair[i][1])),
		    "%s %lld, --json %s %lld", pair[i][0],
		    json_integer_value(json_object_get(s, pair[i][0])),
		    pair[i][1],
		    json_integer_value(json_object_get(j, pair[i][1])));
	LR_TEST_ASSERT(
	    json_integer_value(json_object_get(s, "latency_samples_total")) ==
		json_integer_value(json_object_get(jl, "n")),
	    "latency samples differ");
	for (unsigned i = 0; i < 6; i++)
		LR_TEST_ASSERT(
		    same_ns(json_object_get(s, lat[i][0]),
			    json_object_get(jl, lat[i][1])),
		    "%s %lld, --json %s %.4f us", lat[i][0],
		    json_integer_value(json_object_get(s, lat[i][0])),
		    lat[i][1], json_real_value(json_object_get(jl, lat[i][1])));
	return 0;
}

/* A run over a net_ring pair, sending started and stopped through the
 * control socket: once its counts stop moving, /linerate/pktgen/stats
 * gives per stream what --json gives at the end, exactly; while it sends,
 * the counts move; a bad stream id gets DPDK's null reply. */
static int
test_telemetry_stats(void)
{
	struct lr_test_child c;
	char pfx[96], path[PATH_MAX], json[256], opts[400], ans[ANS];
	char state[16] = "";
	json_t *live, *last, *doc, *s, *j, *bad;
	char *txt;
	double end;
	int fd;

	snprintf(json, sizeof(json), "%.200s/tel.json", tmpdir);
	lr_test_prefix_arg(pfx, sizeof(pfx), "pgctl_tel");
	tel_path(path, sizeof(path), pfx);
	snprintf(opts, sizeof(opts),
		 "--quiet --idle --rate-pps 20000 --json %s", json);
	if (start_ctl(&c, sock, sizeof(sock), "tel",
		      "--vdev net_ring0 --vdev net_ring1", opts,
		      "control socket"))
		return -1;
	fd = cl_connect();
	CHECK(&c, fd >= 0, "connect: %s", strerror(errno));
	ask(fd, "{\"cmd\":\"start\"}\n", 16, ans);
	live = tel_settled(path, 1000, false);
	ask(fd, "{\"cmd\":\"stop\"}\n", 15, ans);
	close(fd);
	CHECK(&c, live != NULL, "no moving stats:\n%s", out);
	json_decref(live);
	end = lr_test_now() + READY_S;
	while (run_state(state) && strcmp(state, "stopped") != 0 &&
	       lr_test_now() < end)
		poll(NULL, 0, 10);
	CHECK(&c, strcmp(state, "stopped") == 0, "state '%s'", state);
	last = tel_settled(path, 1000, true);
	bad = tel_ask(path, "/linerate/pktgen/stats,7");
	CHECK(&c, last != NULL && bad != NULL && json_is_null(bad),
	      "no settled reply, or stream 7 answered");
	json_decref(bad);
	bad = tel_ask(path, "/linerate/pktgen/stats,x");
	CHECK(&c, bad != NULL && json_is_null(bad), "stream 'x' answered");
	json_decref(bad);
	if (quit_run(&c) != 0) {
		json_decref(last);
		return -1;
	}
	doc = json_load_file(json, 0, NULL);
	j = json_array_get(
	    json_object_get(json_object_get(doc, "results"), "streams"), 0);
	s = json_object_get(json_object_get(last, "streams"), "0");
	txt = json_dumps(s, JSON_COMPACT);
	printf("telemetry: %s\n", txt ? txt : "(none)");
	free(txt);
	fd = j && s && json_integer_value(json_object_get(s, "lost")) == 0 &&
		     json_integer_value(json_object_get(s, "received_total")) ==
			 json_integer_value(json_object_get(s, "sent_total"))
		 ? tel_vs_json(s, j)
		 : -1;
	json_decref(last);
	json_decref(doc);
	LR_TEST_ASSERT(fd == 0, "telemetry and --json differ (above)");
	return 0;
}

/* Find the binary and make the scratch folder (ready()), which others may
 * pass through (the cases as uid 65534 connect in it), once. */
static int
ctl_ready(void)
{
	static int state; /* 0 not tried, 1 ready, -1 missing */

	if (state == 0) {
		signal(SIGPIPE, SIG_IGN);
		state =
		    ready(LR_TEST_PG_NAME) && chmod(tmpdir, 0711) == 0 ? 1 : -1;
	}
	return state == 1;
}

/* lr_test_pktgen.h's CASE(), with ctl_ready(). */
#define CTL_CASE(n)                                                            \
	static int case_##n(void)                                              \
	{                                                                      \
		return ctl_ready() ? test_##n() : LR_TEST_SKIP;                \
	}
CTL_CASE(mode_umask0)
CTL_CASE(mode_group)
CTL_CASE(peer_refused)
CTL_CASE(group_members)
CTL_CASE(idle_clients)
CTL_CASE(many_clients)
CTL_CASE(malformed)
CTL_CASE(slow_reader)
CTL_CASE(flood_counts)
CTL_CASE(telemetry_stats)

/* One case a line, in the order they run. */
/* clang-format off */
static const struct lr_test_case cases[] = {
    {"mode_umask0", case_mode_umask0},
    {"mode_group", case_mode_group},
    {"peer_refused", case_peer_refused},
    {"group_members", case_group_members},
    {"idle_clients", case_idle_clients},
    {"many_clients", case_many_clients},
    {"malformed", case_malformed},
    {"slow_reader", case_slow_reader},
    {"flood_counts", case_flood_counts},
    {"telemetry_stats", case_telemetry_stats},
};
/* clang-format on */

LR_TEST_MAIN("pktgen_ctl", cases)
