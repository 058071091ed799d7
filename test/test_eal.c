/* SPDX-License-Identifier: BSD-3-Clause */
/* EAL: option parsing, memory with and without hugepages, lcores, prefix
 * locking, TSC. */
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lr_eal.h"
#include "lr_log.h"
#include "lr_test.h"

#define PREFIX "--file-prefix=test_eal"

/* lr_eal_init() on "test_eal" + args; an argument "--file-prefix=test_eal*"
 * gets "_<pid>" added, so that no two runs of this test share a prefix. */
static int
eal_init_args(int n, const char *const *args)
{
	char *argv[16], prefix[96];

	argv[0] = "test_eal";
	for (int i = 0; i < n; i++) {
		argv[i + 1] = (char *)args[i];
		if (strncmp(args[i], PREFIX, strlen(PREFIX)) == 0)
			argv[i + 1] = lr_test_prefix_arg(prefix, sizeof(prefix),
							 args[i] + 14);
	}
	argv[n + 1] = NULL;
	return lr_eal_init(n + 1, argv);
}

/* Run init with args in a child whose stderr goes to a pipe; return its
 * return value and copy what it printed into out. */
static int
init_in_child(int n, const char *const *args, char *out, size_t outlen)
{
	int pfd[2];
	pid_t pid;

	if (pipe(pfd) != 0)
		return -9999;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		/* The caller has not initialised the EAL: the child starts
		 * from the same clean state. */
		close(pfd[0]);
		dup2(pfd[1], 2);
		int r = eal_init_args(n, args);

		_exit(r < 0 ? (-r & 0xff) : 0);
	}
	close(pfd[1]);
	size_t got = 0;
	ssize_t k;

	while ((k = read(pfd[0], out + got, outlen - 1 - got)) > 0)
		got += (size_t)k;
	out[got] = '\0';
	close(pfd[0]);
	int st;

	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int
test_bad_options(void)
{
	static const struct {
		const char *args[3];
		const char *msg;
	} cases[] = {
		{ { "--bogus" }, "unknown EAL option '--bogus'" },
		{ { "-l", "1-0" }, "-l '1-0'" },
		{ { "-l", "x" }, "-l 'x'" },
		{ { "-m", "lots" }, "-m 'lots'" },
		{ { "--iova-mode=xy" }, "--iova-mode 'xy'" },
		{ { "--log-level=eal:loud" }, "--log-level 'eal:loud'" },
		{ { "--file-prefix=a/b" }, "--file-prefix 'a/b'" },
		{ { "--numa-mem=1,x" }, "--numa-mem 'x'" },
		{ { "-l" }, "needs a value" },
		{ { "--no-huge", "--huge-dir=/tmp" }, "give one or the other" },
	};
	char out[2048];

	for (size_t i = 0; i < LR_DIM(cases); i++) {
		int n = 0;

		while (n < 3 && cases[i].args[n])
			n++;
		int rc = init_in_child(n, cases[i].args, out, sizeof(out));
		LR_TEST_ASSERT(rc != 0, "case %zu (%s) was accepted", i,
			       cases[i].args[0]);
		LR_TEST_ASSERT(strstr(out, cases[i].msg) != NULL,
			       "case %zu: expected '%s' in '%s'", i,
			       cases[i].msg, out);
	}
	return 0;
}

static int
test_missing_huge_dir(void)
{
	char out[2048];
	const char *a1[] = { "-l", "0", "--huge-dir=/nonexistent-hugedir",
			     PREFIX "_h1" };
	const char *a2[] = { "-l", "0", "--huge-dir=/tmp", PREFIX "_h2" };

	LR_TEST_ASSERT(init_in_child(4, a1, out, sizeof(out)) != 0, "accepted");
	LR_TEST_ASSERT(strstr(out, "--huge-dir '/nonexistent-hugedir'"),
		       "message: %s", out);
	LR_TEST_ASSERT(init_in_child(4, a2, out, sizeof(out)) != 0, "accepted");
	LR_TEST_ASSERT(strstr(out, "not a hugetlbfs mount"), "message: %s", out);
	return 0;
}

static atomic_int ran;

static int
count_lcore(void *arg)
{
	(void)arg;
	atomic_fetch_add(&ran, 1);
	return (int)lr_lcore_id() + 100;
}

static int
check_running(int expect_huge)
{
	LR_TEST_ASSERT(lr_eal_initialized(), "not initialised");
	LR_TEST_ASSERT(lr_memseg_count() >= 1, "no memory segment");
	const struct lr_memseg *s = lr_memseg_get(0);
	size_t total = 0;

	for (unsigned i = 0; i < lr_memseg_count(); i++)
		total += lr_memseg_get(i)->len;
	LR_TEST_ASSERT(total >= (16UL << 20), "only %zu bytes", total);
	/* Memory is usable and its IOVA is sane. */
	memset(s->addr, 0xa5, s->len);
	LR_TEST_ASSERT(lr_mem_virt2iova(s->addr) != UINT64_MAX, "no IOVA");
	LR_TEST_ASSERT(lr_memseg_find(LR_PTR_ADD(s->addr, s->len - 1)) == s,
		       "find");
	if (expect_huge == 0)
		LR_TEST_ASSERT(!lr_eal_has_hugepages(), "hugepages with --no-huge");
	if (expect_huge == 1)
		LR_TEST_ASSERT(lr_eal_has_hugepages(), "no hugepages");
	LR_TEST_ASSERT_EQ(lr_lcore_id(), lr_get_main_lcore());
	atomic_store(&ran, 0);
	LR_TEST_ASSERT_EQ(lr_eal_mp_remote_launch(count_lcore, NULL, 0), 0);
	unsigned w;

	LR_LCORE_FOREACH_WORKER(w) {
		LR_TEST_ASSERT_EQ(lr_eal_wait_lcore(w), (int)w + 100);
	}
	LR_TEST_ASSERT_EQ(atomic_load(&ran), (int)lr_lcore_count() - 1);
	return 0;
}

static int
test_no_huge(void)
{
	const char *args[] = { "-l", "0-1", "-m", "32", "--no-huge",
			       PREFIX "_nohuge", "--", "prog-arg" };
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	if (ncpu < 2)
		args[1] = "0";
	int rc = eal_init_args(8, args);

	LR_TEST_ASSERT_EQ(rc, 7); /* up to and including "--" */
	LR_TEST_ASSERT_EQ(lr_lcore_count(), ncpu < 2 ? 1 : 2);
	if (check_running(0) != 0)
		return -1;
	/* A second init is refused. */
	LR_TEST_ASSERT(eal_init_args(6, args) == -EALREADY, "second init");
	LR_TEST_ASSERT_EQ(lr_eal_cleanup(), 0);
	LR_TEST_ASSERT_EQ(lr_memseg_count(), 0);
	return 0;
}

static int
have_free_hugepages(unsigned n)
{
	FILE *f = fopen("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages",
			"r");
	long v = 0;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v >= (long)n;
}

static int
test_hugepages(void)
{
	const char *args[] = { "-l", "0", "-m", "16", PREFIX "_huge" };

	if (!have_free_hugepages(8) || !lr_numa_available()) {
		printf("skip: no free 2 MiB hugepages (or no NUMA syscalls, as under qemu-user)\n");
		return LR_TEST_SKIP;
	}
	LR_TEST_ASSERT_EQ(eal_init_args(5, args), 5);
	if (check_running(1) != 0)
		return -1;
	const struct lr_memseg *s = lr_memseg_get(0);
	char path[sizeof(s->path)];

	snprintf(path, sizeof(path), "%s", s->path);
	LR_TEST_ASSERT(path[0] && access(path, F_OK) == 0, "no file %s", path);
	LR_TEST_ASSERT_EQ(lr_eal_cleanup(), 0);
	LR_TEST_ASSERT(access(path, F_OK) != 0, "file %s left behind", path);
	return 0;
}

static int
test_prefix_lock(void)
{
	const char *args[] = { "-l", "0", "-m", "8", "--no-huge",
			       PREFIX "_lock" };
	char out[2048];
	int go[2], ready[2];
	char c;

	/* A first process takes the prefix and holds it until told. */
	LR_TEST_ASSERT(pipe(go) == 0 && pipe(ready) == 0, "pipe");
	pid_t holder = fork();

	if (holder == 0) {
		int r = eal_init_args(6, args);

		c = r == 6 ? 'y' : 'n';
		if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) < 0)
			_exit(2);
		_exit(r == 6 && lr_eal_cleanup() == 0 ? 0 : 1);
	}
	LR_TEST_ASSERT(read(ready[0], &c, 1) == 1 && c == 'y',
		       "first process failed to start");
	/* A second process with the same prefix is refused. */
	int rc = init_in_child(6, args, out, sizeof(out));

	LR_TEST_ASSERT(rc != 0, "second process accepted");
	LR_TEST_ASSERT(strstr(out, "file prefix 'test_eal_lock_") &&
			   strstr(out, "' is in use"),
		       "message: %s", out);
	LR_TEST_ASSERT(write(go[1], "x", 1) == 1, "pipe");
	int st;

	waitpid(holder, &st, 0);
	LR_TEST_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0, "holder failed");
	/* Once released, the prefix can be taken again. */
	LR_TEST_ASSERT_EQ(eal_init_args(6, args), 6);
	LR_TEST_ASSERT_EQ(lr_eal_cleanup(), 0);
	return 0;
}

static int
test_register_and_tsc(void)
{
	LR_TEST_ASSERT_EQ(lr_lcore_id(), LR_LCORE_ID_ANY);
	int id = lr_thread_register();

	LR_TEST_ASSERT(id >= 0 && id < LR_MAX_LCORE, "id %d", id);
	LR_TEST_ASSERT_EQ(lr_lcore_id(), id);
	LR_TEST_ASSERT(lr_lcore_is_enabled((unsigned)id), "not enabled");
	lr_thread_unregister();
	LR_TEST_ASSERT_EQ(lr_lcore_id(), LR_LCORE_ID_ANY);

	uint64_t hz = lr_get_tsc_hz();
	uint64_t t0 = lr_time_ns();

	LR_TEST_ASSERT(hz > 1000000, "hz %llu", (unsigned long long)hz);
	lr_delay_us(20000);
	uint64_t dt = lr_time_ns() - t0;
	LR_TEST_ASSERT(dt >= 19000000 && dt < 2000000000ULL,
		       "20 ms delay took %llu ns", (unsigned long long)dt);
	return 0;
}

static int
test_standalone_memseg(void)
{
	const struct lr_memseg *s = lr_memseg_reserve(4UL << 20, LR_SOCKET_ID_ANY);

	LR_TEST_ASSERT(s != NULL, "reserve: %s", lr_strerror(lr_errno));
	LR_TEST_ASSERT(((uintptr_t)s->addr & ((2UL << 20) - 1)) == 0,
		       "not 2 MiB aligned");
	memset(s->addr, 1, s->len);
	LR_TEST_ASSERT_EQ(lr_mem_virt2iova(s->addr), (uintptr_t)s->addr);
	return 0;
}

/* Cleanup gives the main thread its CPU set back: a second init may take
 * other lcores than the first. */
static int
test_reinit_other_lcores(void)
{
	const char *one[] = { "-l", "0", "-m", "8", "--no-huge",
			      PREFIX "_reinit" };
	const char *two[] = { "-l", "0-1", "-m", "8", "--no-huge",
			      PREFIX "_reinit" };

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		printf("skip: needs 2 CPUs\n");
		return LR_TEST_SKIP;
	}
	LR_TEST_ASSERT_EQ(eal_init_args(6, one), 6);
	LR_TEST_ASSERT_EQ(lr_eal_cleanup(), 0);
	LR_TEST_ASSERT_EQ(eal_init_args(6, two), 6);
	LR_TEST_ASSERT_EQ(lr_lcore_count(), 2);
	LR_TEST_ASSERT_EQ(lr_eal_cleanup(), 0);
	return 0;
}

/* A failed init that stopped inside a group of short options ("-x0": 'x'
 * unknown, '0' not yet read) leaves nothing behind for the next init: it
 * parses its own argv from the start (found by fuzz_cmdline). */
static int
test_init_after_stopped_group(void)
{
	const char *bad[] = { "-x0" };
	const char *help[] = { "-hl" };
	const char *good[] = { "-l", "0", "-m", "8", "--no-huge",
			       PREFIX "_again" };

	lr_test_log_begin();
	LR_TEST_ASSERT_EQ(eal_init_args(1, bad), -EINVAL);
	lr_test_log_end();
	LR_TEST_ASSERT_EQ(eal_init_args(6, good), 6);
	LR_TEST_ASSERT_EQ(lr_eal_cleanup(), 0);

	fflush(stdout);
	LR_TEST_ASSERT_EQ(eal_init_args(1, help), -EALREADY);
	LR_TEST_ASSERT_EQ(eal_init_args(6, good), 6);
	LR_TEST_ASSERT_EQ(lr_eal_cleanup(), 0);
	return 0;
}

/* LR_ASSERT: in builds with LR_ENABLE_ASSERT a false invariant aborts
 * with the expression and place; elsewhere it is compiled out. */
static int
test_assert(void)
{
	int fds[2], st;
	char out[512] = "";
	ssize_t n;
	pid_t pid;

	LR_ASSERT(1 + 1 == 2);
	if (!LR_ENABLE_ASSERT) {
		printf("skip: LR_ASSERT is compiled out in this build\n");
		return LR_TEST_SKIP;
	}
	LR_TEST_ASSERT(pipe(fds) == 0, "pipe");
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], 2);
		lr_log_set_stream(stderr);
		LR_ASSERT(pid == 1);
		_exit(0);
	}
	close(fds[1]);
	n = read(fds[0], out, sizeof(out) - 1);
	close(fds[0]);
	LR_TEST_ASSERT(pid > 0 && waitpid(pid, &st, 0) == pid, "fork");
	LR_TEST_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT,
		       "status %#x", st);
	LR_TEST_ASSERT(n > 0 && strstr(out, "assertion 'pid == 1' failed at") &&
			   strstr(out, "in test_assert()"),
		       "message: %s", out);
	return 0;
}

static const struct lr_test_case cases[] = {
	{ "reinit_other_lcores", test_reinit_other_lcores },
	{ "register_and_tsc", test_register_and_tsc },
	{ "standalone_memseg", test_standalone_memseg },
	{ "bad_options", test_bad_options },
	{ "init_after_stopped_group", test_init_after_stopped_group },
	{ "missing_huge_dir", test_missing_huge_dir },
	{ "no_huge", test_no_huge },
	{ "hugepages", test_hugepages },
	{ "prefix_lock", test_prefix_lock },
	{ "assert", test_assert },
};

LR_TEST_MAIN("eal", cases)
