/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_test.h - the unit-test harness: cases are functions returning 0
 * (pass), LR_TEST_SKIP or -1 (fail); LR_TEST_MAIN runs them in order, prints
 * one line per case and a closing "N passed, N failed, N skipped" line, and
 * exits non-zero if any failed. Case names given on the command line run
 * only those cases; --part=K/N runs the K-th of N interleaved shares of
 * them (case i when i % N == K - 1), so that meson can run one long test
 * program as N tests side by side.
 */
#ifndef LR_TEST_H
#define LR_TEST_H

#include <dirent.h>
#include <errno.h>
#include <mntent.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lr_eal.h"
#include "lr_errno.h"
#include "lr_log.h"
#include "lr_mbuf.h"

/** Return value of a case that could not run here (say why first). */
#define LR_TEST_SKIP 77

/** Fail the current case with a message if cond is false. */
#define LR_TEST_ASSERT(cond, ...)                                          \
	do {                                                               \
		if (!(cond)) {                                             \
			fprintf(stderr, "%s:%d: assertion '%s' failed: ", \
				__FILE__, __LINE__, #cond);                \
			fprintf(stderr, __VA_ARGS__);                      \
			fputc('\n', stderr);                               \
			return -1;                                         \
		}                                                          \
	} while (0)

/** Fail unless a == b (integers), printing both. */
#define LR_TEST_ASSERT_EQ(a, b)                                             \
	do {                                                                \
		long long a_ = (long long)(a), b_ = (long long)(b);         \
		LR_TEST_ASSERT(a_ == b_, "%s = %lld, %s = %lld", #a, a_, #b, \
			       b_);                                          \
	} while (0)

/**
 * execv() one of our programs from a test's child process; in a cross build
 * (LR_EXE_WRAPPER set, e.g. qemu-ppc64le-static) through that emulator.
 * Returns only on failure, like execv().
 */
static inline int
lr_test_execv(const char *path, char *const argv[])
{
	const char *wrap = getenv("LR_EXE_WRAPPER");
	char *wargv[256];
	int n = 0;

	if (wrap == NULL || *wrap == '\0')
		return execv(path, argv);
	wargv[n++] = (char *)wrap;
	wargv[n++] = (char *)path;
	for (int i = 1; argv[i] != NULL && n < 255; i++)
		wargv[n++] = argv[i];
	wargv[n] = NULL;
	return execvp(wrap, wargv);
}

/**
 * The path of a program of the build tree, rel from the build root (e.g.
 * "apps/l2fwd/lr-l2fwd"), found beside this test binary (<build>/test/)
 * into buf: 0 if it is there and executable, else -1.
 */
static inline int
lr_test_build_path(char *buf, size_t len, const char *rel)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0)
		return -1;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (slash == NULL)
		return -1;
	*slash = '\0';
	if (strlen(self) + strlen(rel) + 5 > len)
		return -1;
	strcpy(buf, self);
	strcat(buf, "/../");
	strcat(buf, rel);
	return access(buf, X_OK);
}

/* The pid of the process that runs the cases (set by lr_test_run()), so
 * that its forked children name the same prefixes; 0 before. */
static inline int *
lr_test_main_pid(void)
{
	static int pid;

	return &pid;
}

/**
 * "--file-prefix=<name>_<pid>" into buf (len bytes) and return buf, pid
 * being that of the process running the cases (its children get the same
 * name): every test run takes its own prefixes, never the default
 * "linerate" another linerate process on the machine may hold, and two
 * builds' runs of one test never share one.
 */
static inline char *
lr_test_prefix_arg(char *buf, size_t len, const char *name)
{
	int pid = *lr_test_main_pid();

	snprintf(buf, len, "--file-prefix=%s_%d", name,
		 pid ? pid : (int)getpid());
	return buf;
}

/** The prefix of lr_test_prefix_arg() without the option, "<name>_<pid>",
 *  into buf (len bytes); returns buf. */
static inline char *
lr_test_prefix_name(char *buf, size_t len, const char *name)
{
	int pid = *lr_test_main_pid();

	snprintf(buf, len, "%s_%d", name, pid ? pid : (int)getpid());
	return buf;
}

/**
 * Start the EAL for a test program on ordinary memory: lcores 0-1 (only 0
 * when the machine has one CPU), mem_mb MiB, prefix "<name>_<pid>". Every
 * test that runs on the EAL starts it this way. 0, or -1 after a message.
 */
static inline int
lr_test_eal_init(const char *name, unsigned mem_mb)
{
	char prefix[96], mem[16], lcores[8] = "0-1";
	char *argv[] = {(char *)name, "-l", lcores, "--no-huge", "-m",
			mem, prefix, NULL};

	snprintf(mem, sizeof(mem), "%u", mem_mb);
	lr_test_prefix_arg(prefix, sizeof(prefix), name);
	if (lr_eal_init(7, argv) >= 0)
		return 0;
	snprintf(lcores, sizeof(lcores), "0");
	lr_test_prefix_arg(prefix, sizeof(prefix), name);
	if (lr_eal_init(7, argv) >= 0)
		return 0;
	fprintf(stderr, "%s: lr_eal_init failed\n", name);
	return -1;
}

/**
 * The mbuf pool of a test program (the EAL up), named name: n mbufs of
 * the default size, cache cache. Made at the first call; later calls
 * return the same pool. The pool, or NULL after a message.
 */
static inline struct lr_mempool *
lr_test_pool(const char *name, unsigned n, unsigned cache)
{
	static struct lr_mempool *pool;

	if (pool != NULL)
		return pool;
	pool = lr_pktmbuf_pool_create(
	    name, n, cache, 0, LR_MBUF_DEFAULT_BUF_SIZE, LR_SOCKET_ID_ANY);
	if (pool == NULL)
		fprintf(stderr, "%s: mbuf pool: %s\n", name,
			lr_strerror(lr_errno));
	return pool;
}

/** The EAL of test program name (lr_test_eal_init() with mem_mb MiB, when
 *  it is not up), then lr_test_pool(name, n, cache). */
static inline struct lr_mempool *
lr_test_eal_pool(const char *name, unsigned mem_mb, unsigned n, unsigned cache)
{
	if (!lr_eal_initialized() && lr_test_eal_init(name, mem_mb) < 0)
		return NULL;
	return lr_test_pool(name, n, cache);
}

/* The folder of lr_test_private_dir(). */
static inline char *
lr_test_private_dir_(void)
{
	static char dir[64];

	return dir;
}

/* At exit: remove lr_test_private_dir()'s folder (LR_TEST_KEEP: keep). */
static inline void
lr_test_private_dir_rm_(void)
{
	const char *dir = lr_test_private_dir_();
	char cmd[128];

	if (dir[0] == '\0' || getenv("LR_TEST_KEEP") != NULL)
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}

/** Make the private folder /tmp/<name>.XXXXXX of a test program (name at
 *  most 40 bytes), removed with what it holds when the program exits,
 *  kept when LR_TEST_KEEP is set: its path, or NULL after a message. */
static inline const char *
lr_test_private_dir(const char *name)
{
	char *dir = lr_test_private_dir_();

	snprintf(dir, 64, "/tmp/%.40s.XXXXXX", name);
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		dir[0] = '\0';
		return NULL;
	}
	atexit(lr_test_private_dir_rm_);
	return dir;
}

/** Free 2 MiB hugepages of the machine (0 when it has none or says
 *  nothing): cases that need hugepages skip or fall back below a count. */
static inline long
lr_test_free_hugepages_2m(void)
{
	FILE *f = fopen("/sys/kernel/mm/hugepages/hugepages-2048kB/"
			"free_hugepages",
			"r");
	long v = 0;

	if (f != NULL) {
		if (fscanf(f, "%ld", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/** LR_TEST_SCALE (0 < scale <= 1) from the environment, else 1: how much
 *  of their full work the tests do (sanitizer and emulated builds do less). */
static inline double
lr_test_scale(void)
{
	const char *s = getenv("LR_TEST_SCALE");

	return s != NULL && atof(s) > 0 && atof(s) <= 1 ? atof(s) : 1;
}

/** Seconds on the monotonic clock. */
static inline double
lr_test_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/**
 * A program run by a test with its stdout and stderr in one pipe, read into
 * out[] as it comes, so that the test can wait for a line that says the
 * program is ready (never for a fixed time) before it acts on it.
 */
struct lr_test_child {
	pid_t pid;
	const char *path; /* the program */
	int fd;	   /* read end of the output pipe, -1 once at EOF */
	char *out; /* what the program printed, NUL-terminated */
	size_t len, cap;
};

/** Start path with argv (through LR_EXE_WRAPPER, see lr_test_execv());
 *  its output goes to out (cap bytes). 0, or -1 if it cannot be started. */
static inline int
lr_test_spawn(struct lr_test_child *c, const char *path, char *const argv[],
	      char *out, size_t cap)
{
	int pfd[2];

	c->path = path;
	c->out = out;
	c->cap = cap;
	c->len = 0;
	out[0] = '\0';
	if (pipe(pfd) != 0)
		return -1;
	fflush(NULL);
	c->pid = fork();
	if (c->pid == 0) {
		cpu_set_t all;

		close(pfd[0]);
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		/* The program gets every CPU the process may use, not the
		 * one CPU an earlier case's EAL pinned this thread to (the
		 * kernel keeps only the allowed ones of the mask). */
		CPU_ZERO(&all);
		for (int i = 0; i < CPU_SETSIZE; i++)
			CPU_SET(i, &all);
		sched_setaffinity(0, sizeof(all), &all);
		lr_test_execv(path, argv);
		_exit(127);
	}
	close(pfd[1]);
	c->fd = pfd[0];
	if (c->pid < 0) {
		close(c->fd);
		c->fd = -1;
		return -1;
	}
	return 0;
}

/* Read what is there, waiting at most ms; 0 at EOF, 1 otherwise. */
static inline int
lr_test_child_read(struct lr_test_child *c, int ms)
{
	struct pollfd p = {.fd = c->fd, .events = POLLIN};
	char drop[4096];
	ssize_t k;

	if (c->fd < 0)
		return 0;
	if (poll(&p, 1, ms) <= 0)
		return 1;
	/* Past cap the output is read and dropped, so the child never
	 * blocks on a full pipe. */
	if (c->len + 1 < c->cap)
		k = read(c->fd, c->out + c->len, c->cap - 1 - c->len);
	else
		k = read(c->fd, drop, sizeof(drop));
	if (k < 0 && errno == EINTR)
		return 1;
	if (k <= 0) {
		close(c->fd);
		c->fd = -1;
		return 0;
	}
	if (c->len + 1 < c->cap) {
		c->len += (size_t)k;
		c->out[c->len] = '\0';
	}
	return 1;
}

/**
 * Wait until the program's output contains needle: 0 once it does, -1 if
 * the program closed its output first or timeout_s passed (a bound for a
 * program that truly hangs; make it generous: tests run on loaded machines
 * and under emulators).
 */
static inline int
lr_test_child_wait_for(struct lr_test_child *c, const char *needle,
		       double timeout_s)
{
	double end = lr_test_now() + timeout_s;

	while (strstr(c->out, needle) == NULL) {
		if (lr_test_now() > end || !lr_test_child_read(c, 100))
			return strstr(c->out, needle) ? 0 : -1;
	}
	return 0;
}

/** Exit status a ThreadSanitizer build exits with after a report. */
#define LR_TEST_TSAN_EXIT 66

/**
 * Read the rest of the output and reap the program: its exit status, -1
 * if a signal ended it, -3 if it did not end within timeout_s (it is
 * then killed), or -6 if ThreadSanitizer reported a race in its output
 * (printed then), whatever its status: a test that expects a failing exit
 * must not pass on a race report. A TSan report the build sends to files
 * (TSAN_OPTIONS log_path, as the test command's TSan stage does) still
 * shows as exit status LR_TEST_TSAN_EXIT, which no test expects.
 */
static inline int
lr_test_child_finish(struct lr_test_child *c, double timeout_s)
{
	double end = lr_test_now() + timeout_s;
	int st;

	while (lr_test_child_read(c, 100))
		if (lr_test_now() > end)
			break;
	while (waitpid(c->pid, &st, WNOHANG) == 0) {
		if (lr_test_now() > end) {
			kill(c->pid, SIGKILL);
			waitpid(c->pid, &st, 0);
			if (c->fd >= 0)
				close(c->fd);
			c->fd = -1;
			return -3;
		}
		poll(NULL, 0, 10);
	}
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	if (strstr(c->out, "WARNING: ThreadSanitizer") != NULL) {
		fprintf(stderr, "%s: ThreadSanitizer reported:\n%s\n", c->path,
			c->out);
		return -6;
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/**
 * What a program with file prefix name left behind: its runtime folder
 * (/var/run/linerate/<name> for root, $XDG_RUNTIME_DIR/linerate/<name> or
 * /tmp/linerate-<euid>/<name>) or a hugepage file <hugetlbfs>/<name>map_*.
 * 0 if nothing, else 1 with the path in what.
 */
static inline int
lr_test_leftovers(const char *name, char *what, size_t len)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	char map[300];
	struct mntent *e;
	FILE *m;
	int found = 0;

	if (geteuid() == 0)
		snprintf(what, len, "/var/run/linerate/%s", name);
	else if (xdg && *xdg == '/')
		snprintf(what, len, "%s/linerate/%s", xdg, name);
	else
		snprintf(what, len, "/tmp/linerate-%u/%s", (unsigned)geteuid(),
			 name);
	if (access(what, F_OK) == 0)
		return 1;
	snprintf(map, sizeof(map), "%smap_", name);
	m = setmntent("/proc/mounts", "r");
	while (m && !found && (e = getmntent(m)) != NULL) {
		DIR *d;
		struct dirent *f;

		if (strcmp(e->mnt_type, "hugetlbfs") != 0 ||
		    (d = opendir(e->mnt_dir)) == NULL)
			continue;
		while (!found && (f = readdir(d)) != NULL) {
			if (strncmp(f->d_name, map, strlen(map)) == 0) {
				snprintf(what, len, "%s/%s", e->mnt_dir,
					 f->d_name);
				found = 1;
			}
		}
		closedir(d);
	}
	if (m)
		endmntent(m);
	return found;
}

/* State of the log capture below (one per test program). */
struct lr_test_log_state {
	FILE *f;
	char text[16384];
};

static inline struct lr_test_log_state *
lr_test_log_state(void)
{
	static struct lr_test_log_state st;

	return &st;
}

/** Send lr_log() output to a temporary file until lr_test_log_end(). */
static inline void
lr_test_log_begin(void)
{
	struct lr_test_log_state *st = lr_test_log_state();

	st->f = tmpfile();
	lr_log_set_stream(st->f);
}

/** Stop capturing: echo what was logged to stderr and return it (the text
 *  stays valid until the next lr_test_log_begin()). */
static inline const char *
lr_test_log_end(void)
{
	struct lr_test_log_state *st = lr_test_log_state();
	size_t n = 0;

	lr_log_set_stream(NULL);
	if (st->f == NULL)
		return "";
	rewind(st->f);
	n = fread(st->text, 1, sizeof(st->text) - 1, st->f);
	st->text[n] = '\0';
	fclose(st->f);
	st->f = NULL;
	fputs(st->text, stderr);
	return st->text;
}

/** The log captured since lr_test_log_begin() holds text: 1, else 0.
 *  Read with pread() beside the stream, never through it: a driver's
 *  control thread writes to that stream at any time (under the log's lock,
 *  which we do not hold), and moving its position (rewind, fread, fseek
 *  back) would make such a write land over earlier lines, or be
 *  overwritten by the next; a line looked for could vanish that way, more
 *  likely the busier the machine. */
static inline int
lr_test_log_has(const char *text)
{
	struct lr_test_log_state *st = lr_test_log_state();
	struct stat sb;
	char *buf;
	ssize_t n;
	int fd, found;

	if (st->f == NULL)
		return 0;
	fd = fileno(st->f);
	fflush(st->f); /* takes the stream's own lock */
	if (fstat(fd, &sb) != 0)
		return 0;
	buf = malloc((size_t)sb.st_size + 1);
	if (buf == NULL)
		return 0;
	n = pread(fd, buf, (size_t)sb.st_size, 0);
	buf[n > 0 ? n : 0] = '\0';
	found = strstr(buf, text) != NULL;
	free(buf);
	return found;
}

/** Wait (polling, up to 30 s: only a failure waits that long) until the
 *  captured log holds text: 0, or -1 after a message. */
static inline int
lr_test_log_wait(const char *text)
{
	const unsigned secs = 30;
	uint64_t end = lr_get_tsc_cycles() + secs * lr_get_tsc_hz();

	while (lr_get_tsc_cycles() < end) {
		if (lr_test_log_has(text))
			return 0;
		lr_delay_us(1000);
	}
	fprintf(stderr, "no log line with '%s' after %u s\n", text, secs);
	return -1;
}

/** Descriptors open in this process (-1 if /proc/self/fd cannot be
 *  read); a case compares it before and after to find a leak. */
static inline int
lr_test_fd_count(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/** An int argument of a case in a static table of cases: {"name", NULL,
 *  fn_arg, LR_TEST_ARG(1)}; fn_arg reads it with LR_TEST_INT(arg). */
#define LR_TEST_ARG(v) ((const void *)&(const int){v})
/** The int of LR_TEST_ARG() in fn_arg's arg. */
#define LR_TEST_INT(arg) (*(const int *)(arg))

/** One test case: fn(), or (fn NULL) fn_arg(arg), for cases that are
 *  one body run with the numbers of a table row. */

struct lr_test_case {
	const char *name;
	int (*fn)(void);
	int (*fn_arg)(const void *arg);
	const void *arg;
};

/* Whether name is one of the arguments argv[1..argc-1]. */
static inline int
lr_test_named(const char *name, int argc, char **argv)
{
	for (int a = 1; a < argc; a++)
		if (strcmp(argv[a], name) == 0)
			return 1;
	return 0;
}

/** Run cases (see the header comment); returns the process exit code. */
static inline int
lr_test_run(const char *suite, const struct lr_test_case *cases, int n,
	    int argc, char **argv)
{
	int passed = 0, failed = 0, skipped = 0, named = 0;
	unsigned part = 1, parts = 1;

	*lr_test_main_pid() = (int)getpid();
	for (int a = 1; a < argc; a++) {
		if (strncmp(argv[a], "--part=", 7) == 0) {
			if (sscanf(argv[a] + 7, "%u/%u", &part, &parts) != 2 ||
			    parts == 0 || part == 0 || part > parts) {
				fprintf(stderr, "%s: bad %s (want --part=K/N, "
					"1 <= K <= N)\n", suite, argv[a]);
				return 2;
			}
		} else if (argv[a][0] != '-') {
			named++;
		}
	}

	for (int i = 0; i < n; i++) {
		if (named && !lr_test_named(cases[i].name, argc, argv))
			continue;
		if ((unsigned)i % parts != part - 1)
			continue;
		struct timespec t0, t1;

		fprintf(stderr, "[ RUN  ] %s.%s\n", suite, cases[i].name);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		int r = cases[i].fn != NULL ? cases[i].fn()
					    : cases[i].fn_arg(cases[i].arg);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		const char *what = r == 0 ? "  OK  " :
				   r == LR_TEST_SKIP ? " SKIP " : " FAIL ";
		if (r == 0)
			passed++;
		else if (r == LR_TEST_SKIP)
			skipped++;
		else
			failed++;
		fprintf(stderr, "[%s] %s.%s (%.2f s)\n", what, suite,
			cases[i].name, (double)(t1.tv_sec - t0.tv_sec) +
			(t1.tv_nsec - t0.tv_nsec) / 1e9);
	}
	printf("%s: %d passed, %d failed, %d skipped\n", suite, passed, failed,
	       skipped);
	return failed ? 1 : (passed == 0 && skipped ? LR_TEST_SKIP : 0);
}

/** main() running the array cases[] of this file. */
#define LR_TEST_MAIN(suite, cases)                                      \
	int main(int argc, char **argv)                                 \
	{                                                               \
		return lr_test_run(suite, cases,                        \
				   (int)(sizeof(cases) / sizeof(cases[0])), \
				   argc, argv);                         \
	}

#endif /* LR_TEST_H */
