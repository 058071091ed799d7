/* SPDX-License-Identifier: BSD-3-Clause */
/* EAL: option parsing, memory with and without hugepages, lcores, prefix
 * locking, TSC. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <mntent.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <sys/file.h>
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

/* Run init with args in a child whose stderr goes to a pipe, as user uid
 * (-1: ours; then without XDG_RUNTIME_DIR, so /tmp/linerate-<uid>);
 * return its exit code (init's -errno & 0xff, 0 on success after cleanup)
 * and copy what it printed into out. */
static int
init_in_child_as(int uid, int n, const char *const *args, char *out,
		 size_t outlen)
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
		if (uid >= 0) {
			unsetenv("XDG_RUNTIME_DIR");
			if (setgroups(0, NULL) != 0 || setgid((gid_t)uid) ||
			    setuid((uid_t)uid)) {
				perror("setuid");
				_exit(99);
			}
		}
		int r = eal_init_args(n, args);

		if (r >= 0)
			r = lr_eal_cleanup();
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
init_in_child(int n, const char *const *args, char *out, size_t outlen)
{
	return init_in_child_as(-1, n, args, out, outlen);
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
		{ { "--file-prefix=.." }, "--file-prefix '..': starts with '.'" },
		{ { "--file-prefix=." }, "--file-prefix '.': starts with '.'" },
		{ { "--file-prefix=.hidden" }, "--file-prefix '.hidden'" },
		{ { "--file-prefix=" }, "--file-prefix '': empty" },
		{ { "--file-prefix=a b" }, "--file-prefix 'a b'" },
		{ { "--file-prefix="
		    "0123456789012345678901234567890123456789012345678901234567890123" },
		  "too long" },
		{ { "--numa-mem=1,x" }, "--numa-mem 'x'" },
		{ { "-l" }, "needs a value" },
		{ { "--no-huge", "--huge-dir=/tmp" }, "give one or the other" },
		{ { "-d", "" }, "-d '': expected a plugin file or folder" },
		{ { "-d", "/nonexistent/p.so" },
		  "-d '/nonexistent/p.so': No such file or directory" },
		{ { "-d", "/proc/self/status" },
		  "-d '/proc/self/status': cannot load the plugin: " },
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

/* A file dir/name (mode 0644, empty); 0 or -1. */
static int
touch(const char *dir, const char *name)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/* The plugin search path: -d folders, then LR_PLUGIN_PATH's in order,
 * then the build tree's plugin folder (this test runs from the build
 * tree). */
static int
test_plugin_path(void)
{
	char base[] = "/tmp/lr-test-plugin.XXXXXX", a[64], b[64], d[64];
	char want[128], path[PATH_MAX], env[256];
	const char *def = lr_eal_plugin_default_dir();
	size_t dl = strlen(def), sl = strlen("/drivers/plugins");

	LR_TEST_ASSERT(dl > sl &&
			   strcmp(def + dl - sl, "/drivers/plugins") == 0,
		       "default plugin folder '%s': not the build tree's", def);
	LR_TEST_ASSERT(mkdtemp(base) != NULL, "mkdtemp: %s", strerror(errno));
	snprintf(a, sizeof(a), "%s/a", base);
	snprintf(b, sizeof(b), "%s/b", base);
	snprintf(d, sizeof(d), "%s/d", base);
	LR_TEST_ASSERT(mkdir(a, 0755) == 0 && mkdir(b, 0755) == 0 &&
			   mkdir(d, 0755) == 0,
		       "mkdir");
	LR_TEST_ASSERT(touch(a, "p.so") == 0 && touch(b, "p.so") == 0 &&
			   touch(b, "q.so") == 0 && touch(d, "p.so") == 0,
		       "files");
	snprintf(env, sizeof(env), "%s/none::%s:%s", base, a, b);
	setenv("LR_PLUGIN_PATH", env, 1);
	LR_TEST_ASSERT_EQ(lr_eal_plugin_find("p.so", path, sizeof(path)), 0);
	snprintf(want, sizeof(want), "%s/p.so", a);
	LR_TEST_ASSERT(strcmp(path, want) == 0, "p.so: '%s'", path);
	LR_TEST_ASSERT_EQ(lr_eal_plugin_find("q.so", path, sizeof(path)), 0);
	snprintf(want, sizeof(want), "%s/q.so", b);
	LR_TEST_ASSERT(strcmp(path, want) == 0, "q.so: '%s'", path);
	LR_TEST_ASSERT_EQ(lr_eal_plugin_find("r.so", path, sizeof(path)),
			  -ENOENT);
	LR_TEST_ASSERT_EQ(lr_eal_plugin_find("a/p.so", path, sizeof(path)),
			  -EINVAL);
	LR_TEST_ASSERT_EQ(lr_eal_plugin_find("", path, sizeof(path)), -EINVAL);
	LR_TEST_ASSERT_EQ(lr_eal_plugin_find("p.so", path, 8), -ENAMETOOLONG);

	/* A -d folder comes first, for as long as the EAL is up. */
	const char *args[] = {
	    "-l", "0", "-m", "16", "--no-huge", PREFIX "_plugin", "-d", d};

	LR_TEST_ASSERT_EQ(eal_init_args(8, args), 8);
	LR_TEST_ASSERT_EQ(lr_eal_plugin_find("p.so", path, sizeof(path)), 0);
	snprintf(want, sizeof(want), "%s/p.so", d);
	LR_TEST_ASSERT(strcmp(path, want) == 0, "-d: '%s'", path);
	LR_TEST_ASSERT_EQ(lr_eal_cleanup(), 0);
	LR_TEST_ASSERT_EQ(lr_eal_plugin_find("p.so", path, sizeof(path)), 0);
	snprintf(want, sizeof(want), "%s/p.so", a);
	LR_TEST_ASSERT(strcmp(path, want) == 0, "after cleanup: '%s'", path);
	unsetenv("LR_PLUGIN_PATH");

	for (const char *const *f =
		 (const char *const[]){"a/p.so", "b/p.so", "b/q.so", "d/p.so",
				       "a", "b", "d", "", NULL};
	     *f != NULL; f++) {
		snprintf(path, sizeof(path), "%s/%s", base, *f);
		if (remove(path) != 0)
			LR_TEST_ASSERT(0, "remove %s: %s", path,
				       strerror(errno));
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

/* A hugetlbfs mount we can write to, or NULL. */
static const char *
hugetlbfs_mount(void)
{
	static char dir[256];
	FILE *m = setmntent("/proc/mounts", "r");
	struct mntent *e;
	const char *found = NULL;

	while (m && found == NULL && (e = getmntent(m)) != NULL) {
		if (strcmp(e->mnt_type, "hugetlbfs") == 0 &&
		    access(e->mnt_dir, W_OK) == 0) {
			snprintf(dir, sizeof(dir), "%s", e->mnt_dir);
			found = dir;
		}
	}
	if (m)
		endmntent(m);
	return found;
}

/* -m beyond what the machine can back is refused, naming -m, its value and
 * what is available, with or without hugepages (they fall short, and
 * ordinary memory does too); --huge-dir without enough free hugepages is
 * an error, not a fallback to ordinary memory. */
static int
test_memory_limits(void)
{
	const char *a1[] = { "-l", "0", "-m", "16777216", "--no-huge",
			     PREFIX "_mlim" };
	const char *a2[] = { "-l", "0", "-m", "16777216", PREFIX "_mlim" };
	char hd[300], out[4096];
	const char *a3[] = { "-l", "0", "-m", "16777216", hd, PREFIX "_mlim" };
	const char *mnt = hugetlbfs_mount();
	int rc;

	rc = init_in_child(6, a1, out, sizeof(out));
	LR_TEST_ASSERT(rc != 0, "-m 16777216 --no-huge accepted");
	LR_TEST_ASSERT(strstr(out, "-m 16777216: ") &&
			   strstr(out, "MB is available"),
		       "message: %s", out);
	rc = init_in_child(5, a2, out, sizeof(out));
	LR_TEST_ASSERT(rc != 0, "-m 16777216 accepted");
	LR_TEST_ASSERT(strstr(out, "-m 16777216: ") &&
			   strstr(out, "MB is available"),
		       "message: %s", out);
	if (mnt == NULL) {
		printf("skip: --huge-dir part: no writable hugetlbfs mount\n");
		return 0;
	}
	snprintf(hd, sizeof(hd), "--huge-dir=%s", mnt);
	rc = init_in_child(6, a3, out, sizeof(out));
	LR_TEST_ASSERT(rc != 0, "%s -m 16777216 accepted", hd);
	LR_TEST_ASSERT(strstr(out, "--huge-dir '") &&
			   strstr(out, "free hugepages") &&
			   strstr(out, "-m 16777216 needs"),
		       "message: %s", out);
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
test_hugepages(void)
{
	const char *args[] = { "-l", "0", "-m", "16", PREFIX "_huge" };

	if (lr_test_free_hugepages_2m() < 8 || !lr_numa_available()) {
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
	/* What DPDK's EAL (and any sweeper of stale "*map_*" files) does
	 * before removing a file: an exclusive lock must be refused while
	 * the segment lives. */
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	LR_TEST_ASSERT(fd >= 0, "open %s: %s", path, strerror(errno));
	int locked = flock(fd, LOCK_EX | LOCK_NB);

	close(fd);
	LR_TEST_ASSERT(locked != 0 && errno == EWOULDBLOCK,
		       "%s: a sweeper could lock (and remove) the live file",
		       path);
	LR_TEST_ASSERT_EQ(lr_eal_cleanup(), 0);
	LR_TEST_ASSERT(access(path, F_OK) != 0, "file %s left behind", path);
	return 0;
}

/* The same prefix under another runtime folder (another container over
 * the same hugetlbfs mount): its live hugepage file, locked by its holder,
 * is refused with a clear error, never truncated or taken. */
static int
test_hugefile_in_use(void)
{
	const char *args[] = { "-l", "0", "-m", "2", PREFIX "_busy" };
	const char *mnt = hugetlbfs_mount();
	char name[96], path[PATH_MAX], out[4096];
	struct stat st;

	if (mnt == NULL || lr_test_free_hugepages_2m() < 2 ||
	    !lr_numa_available()) {
		printf("skip: no writable hugetlbfs mount with free hugepages\n");
		return LR_TEST_SKIP;
	}
	lr_test_prefix_arg(name, sizeof(name), "test_eal_busy");
	snprintf(path, sizeof(path), "%s/%smap_0", mnt, name + 14);
	int fd = open(path, O_CREAT | O_EXCL | O_RDWR, 0600);

	LR_TEST_ASSERT(fd >= 0, "create %s: %s", path, strerror(errno));
	int ok = flock(fd, LOCK_EX | LOCK_NB) == 0 &&
		 fallocate(fd, 0, 0, 2UL << 20) == 0;
	int rc = ok ? init_in_child(5, args, out, sizeof(out)) : -1;
	int kept = fstat(fd, &st) == 0 && st.st_size == (2L << 20) &&
		   access(path, F_OK) == 0;

	unlink(path);
	close(fd);
	LR_TEST_ASSERT(ok, "lock and fill %s: %s", path, strerror(errno));
	LR_TEST_ASSERT(rc != 0, "init took a prefix whose file is in use");
	LR_TEST_ASSERT(strstr(out, "is in use by another linerate process") &&
			   strstr(out, path),
		       "message: %s", out);
	LR_TEST_ASSERT(kept, "%s was truncated or removed", path);
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

/* The prefix eal_init_args() makes of PREFIX + suffix ("test_eal<suffix>_<pid>"). */
static const char *
prefix_name(char *buf, size_t len, const char *suffix)
{
	char name[64];

	snprintf(name, sizeof(name), "test_eal%s", suffix);
	lr_test_prefix_arg(buf, len, name);
	return buf + strlen("--file-prefix=");
}

/* A uid of nobody we know, different for each case and each run. */
static int
spare_uid(int which)
{
	return 47000 + (int)(getpid() % 1000) * 8 + which;
}

static int
rm_rf(const char *path)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	return system(cmd);
}

/* Another local user pre-creates a non-root user's runtime folders: the
 * prefix folder 0777 and his own, with `config` a link to a file of the
 * victim; or the base folder itself. The victim refuses them, naming the
 * path and what is wrong, and writes nothing through the link. */
static int
runtime_dir_foreign(void)
{
	const char *args[] = { "-l", "0", "-m", "8", "--no-huge",
			       PREFIX "_foreign" };
	int victim = spare_uid(0), attacker = spare_uid(1);
	char base[64], dir[192], cfg[224], target[64], out[4096], pfx[96];
	struct stat st;

	if (geteuid() != 0) {
		printf("skip: needs root to act as two users\n");
		return LR_TEST_SKIP;
	}
	snprintf(base, sizeof(base), "/tmp/linerate-%d", victim);
	snprintf(dir, sizeof(dir), "%s/%s", base,
		 prefix_name(pfx, sizeof(pfx), "_foreign"));
	snprintf(cfg, sizeof(cfg), "%s/config", dir);
	snprintf(target, sizeof(target), "/tmp/test_eal_victim.%d",
		 (int)getpid());
	rm_rf(base);
	/* The victim's own file, which the link points at. */
	int fd = open(target, O_CREAT | O_TRUNC | O_WRONLY, 0600);

	LR_TEST_ASSERT(fd >= 0 && write(fd, "precious\n", 9) == 9, "target");
	close(fd);
	LR_TEST_ASSERT(chown(target, (uid_t)victim, (gid_t)victim) == 0,
		       "chown");
	/* Base folder the victim's (as if left by an earlier run), prefix
	 * folder the attacker's, 0777, with a link at config. */
	LR_TEST_ASSERT(mkdir(base, 0700) == 0 &&
			   chown(base, (uid_t)victim, (gid_t)victim) == 0,
		       "mkdir %s", base);
	LR_TEST_ASSERT(mkdir(dir, 0777) == 0 && chmod(dir, 0777) == 0 &&
			   chown(dir, (uid_t)attacker, (gid_t)attacker) == 0,
		       "mkdir %s", dir);
	LR_TEST_ASSERT(symlink(target, cfg) == 0, "symlink");
	int rc = init_in_child_as(victim, 6, args, out, sizeof(out));

	LR_TEST_ASSERT(rc != 0, "foreign prefix folder accepted");
	LR_TEST_ASSERT(strstr(out, dir) && strstr(out, "owned by another user"),
		       "message: %s", out);
	LR_TEST_ASSERT(stat(target, &st) == 0 && st.st_size == 9,
		       "the victim's file was written through the link");
	/* The attacker's folder is the victim's now, but world-writable. */
	LR_TEST_ASSERT(chown(dir, (uid_t)victim, (gid_t)victim) == 0, "chown");
	rc = init_in_child_as(victim, 6, args, out, sizeof(out));
	LR_TEST_ASSERT(rc != 0 && strstr(out, "writable by group or others"),
		       "world-writable folder: exit %d: %s", rc, out);
	/* Its own 0700 folder, but a link at config. */
	LR_TEST_ASSERT(chmod(dir, 0700) == 0, "chmod");
	rc = init_in_child_as(victim, 6, args, out, sizeof(out));
	LR_TEST_ASSERT(rc != 0 && strstr(out, cfg) &&
			   strstr(out, "symbolic link"),
		       "link at config: exit %d: %s", rc, out);
	LR_TEST_ASSERT(stat(target, &st) == 0 && st.st_size == 9,
		       "the victim's file was written through the link");
	/* The base folder itself the attacker's. */
	rm_rf(base);
	LR_TEST_ASSERT(mkdir(base, 0777) == 0 && chmod(base, 0777) == 0 &&
			   chown(base, (uid_t)attacker, (gid_t)attacker) == 0,
		       "mkdir %s", base);
	rc = init_in_child_as(victim, 6, args, out, sizeof(out));
	LR_TEST_ASSERT(rc != 0 && strstr(out, base) &&
			   strstr(out, "owned by another user"),
		       "foreign base folder: exit %d: %s", rc, out);
	rm_rf(base);
	unlink(target);
	/* Nothing in the way: it starts. */
	rc = init_in_child_as(victim, 6, args, out, sizeof(out));
	LR_TEST_ASSERT(rc == 0, "clean start failed: exit %d: %s", rc, out);
	rm_rf(base);
	return 0;
}

/* A non-root clean exit removes its prefix folder and /tmp/linerate-<uid>
 * when that is empty, and keeps it while another prefix of the same user
 * lives there. */
static int
runtime_dir_removed(void)
{
	const char *args[] = { "-l", "0", "-m", "8", "--no-huge",
			       PREFIX "_rmdir" };
	int uid = spare_uid(2);
	char base[64], other[160], out[4096];

	if (geteuid() != 0) {
		printf("skip: needs root to act as another user\n");
		return LR_TEST_SKIP;
	}
	snprintf(base, sizeof(base), "/tmp/linerate-%d", uid);
	rm_rf(base);
	int rc = init_in_child_as(uid, 6, args, out, sizeof(out));

	LR_TEST_ASSERT(rc == 0, "start failed: exit %d: %s", rc, out);
	LR_TEST_ASSERT(access(base, F_OK) != 0, "%s left behind", base);
	/* Another prefix's folder of the same user: the base stays. */
	snprintf(other, sizeof(other), "%s/another", base);
	LR_TEST_ASSERT(mkdir(base, 0700) == 0 && mkdir(other, 0700) == 0 &&
			   chown(base, (uid_t)uid, (gid_t)uid) == 0 &&
			   chown(other, (uid_t)uid, (gid_t)uid) == 0,
		       "mkdir %s", other);
	rc = init_in_child_as(uid, 6, args, out, sizeof(out));
	LR_TEST_ASSERT(rc == 0, "start failed: exit %d: %s", rc, out);
	LR_TEST_ASSERT(access(other, F_OK) == 0, "%s removed", other);
	rm_rf(base);
	return 0;
}

/* As root, a link at the lock file or at the prefix folder is refused. */
static int
runtime_dir_links(void)
{
	const char *a1[] = { "-l", "0", "-m", "8", "--no-huge",
			     PREFIX "_lnkcfg" };
	const char *a2[] = { "-l", "0", "-m", "8", "--no-huge",
			     PREFIX "_lnkdir" };
	char d1[160], d2[160], cfg[192], pfx[96];
	char target[64], tdir[64], out[4096];
	struct stat st;

	if (geteuid() != 0) {
		printf("skip: root's runtime folder is /var/run/linerate\n");
		return LR_TEST_SKIP;
	}
	snprintf(d1, sizeof(d1), "/var/run/linerate/%s",
		 prefix_name(pfx, sizeof(pfx), "_lnkcfg"));
	snprintf(d2, sizeof(d2), "/var/run/linerate/%s",
		 prefix_name(pfx, sizeof(pfx), "_lnkdir"));
	snprintf(cfg, sizeof(cfg), "%s/config", d1);
	snprintf(target, sizeof(target), "/tmp/test_eal_lnk.%d", (int)getpid());
	snprintf(tdir, sizeof(tdir), "/tmp/test_eal_lnkd.%d", (int)getpid());
	int fd = open(target, O_CREAT | O_TRUNC | O_WRONLY, 0600);

	LR_TEST_ASSERT(fd >= 0 && write(fd, "precious\n", 9) == 9, "target");
	close(fd);
	mkdir("/var/run/linerate", 0700);
	rm_rf(d1);
	rm_rf(d2);
	rm_rf(tdir);
	LR_TEST_ASSERT(mkdir(d1, 0700) == 0, "mkdir %s", d1);
	LR_TEST_ASSERT(symlink(target, cfg) == 0,
		       "symlink");
	int rc = init_in_child(6, a1, out, sizeof(out));

	LR_TEST_ASSERT(rc != 0 && strstr(out, "symbolic link"),
		       "link at config accepted: exit %d: %s", rc, out);
	LR_TEST_ASSERT(stat(target, &st) == 0 && st.st_size == 9,
		       "written through the link");
	LR_TEST_ASSERT(mkdir(tdir, 0700) == 0 && symlink(tdir, d2) == 0,
		       "symlink %s", d2);
	rc = init_in_child(6, a2, out, sizeof(out));
	LR_TEST_ASSERT(rc != 0 && strstr(out, d2) &&
			   strstr(out, "symbolic link"),
		       "link at the prefix folder accepted: exit %d: %s", rc,
		       out);
	snprintf(out, sizeof(out), "%s/config", tdir);
	LR_TEST_ASSERT(access(out, F_OK) != 0, "lock file made through link");
	rm_rf(d1);
	unlink(d2);
	rm_rf(tdir);
	unlink(target);
	return 0;
}

/* The three cases above, and what they make removed whether they pass
 * or fail. */
static void
runtime_dir_cleanup(void)
{
	char path[160], pfx[96];

	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "/tmp/linerate-%d", spare_uid(i));
		rm_rf(path);
	}
	snprintf(path, sizeof(path), "/tmp/test_eal_victim.%d", (int)getpid());
	unlink(path);
	snprintf(path, sizeof(path), "/tmp/test_eal_lnk.%d", (int)getpid());
	unlink(path);
	snprintf(path, sizeof(path), "/tmp/test_eal_lnkd.%d", (int)getpid());
	rm_rf(path);
	snprintf(path, sizeof(path), "/var/run/linerate/%s",
		 prefix_name(pfx, sizeof(pfx), "_lnkcfg"));
	rm_rf(path);
	snprintf(path, sizeof(path), "/var/run/linerate/%s",
		 prefix_name(pfx, sizeof(pfx), "_lnkdir"));
	unlink(path);
}

static int
test_runtime_dir_foreign(void)
{
	int rc = runtime_dir_foreign();

	if (geteuid() == 0)
		runtime_dir_cleanup();
	return rc;
}

static int
test_runtime_dir_links(void)
{
	int rc = runtime_dir_links();

	if (geteuid() == 0)
		runtime_dir_cleanup();
	return rc;
}

static int
test_runtime_dir_removed(void)
{
	int rc = runtime_dir_removed();

	if (geteuid() == 0)
		runtime_dir_cleanup();
	return rc;
}

/* Several processes take and give back one prefix in a loop: never two
 * at once (each holder creates a marker with O_EXCL), and a start fails
 * only because the prefix is in use. */
#define EXCL_PROCS 4
#define EXCL_HOLDS 100
#define EXCL_SECONDS 8

static int
excl_child(const char *marker)
{
	const char *args[] = { "-l", "0", "-m", "4", "--no-huge",
			       PREFIX "_excl" };
	FILE *null = fopen("/dev/null", "w");
	time_t end = time(NULL) + EXCL_SECONDS;
	int held = 0;

	srand((unsigned)getpid());
	lr_log_set_stream(null);
	while (held < EXCL_HOLDS && time(NULL) < end) {
		int r = eal_init_args(6, args);

		if (r == -LR_E_SECONDARY) {
			usleep((useconds_t)(rand() % 500));
			continue;
		}
		if (r < 0) {
			fprintf(stderr, "start failed: %s\n", lr_strerror(-r));
			return 2;
		}
		int fd = open(marker, O_CREAT | O_EXCL | O_WRONLY, 0600);

		if (fd < 0) {
			fprintf(stderr, "prefix held twice\n");
			return 1;
		}
		close(fd);
		held++;
		usleep((useconds_t)(rand() % 200));
		unlink(marker);
		if (lr_eal_cleanup() != 0)
			return 3;
		usleep((useconds_t)(rand() % 500));
	}
	return held > 0 ? 0 : 10; /* 10: never got it, not a failure */
}

static int
test_prefix_lock_exclusive(void)
{
	char marker[64];
	pid_t pids[EXCL_PROCS];
	int fails = 0, holders = 0;

	snprintf(marker, sizeof(marker), "/tmp/test_eal_excl.%d",
		 (int)getpid());
	unlink(marker);
	fflush(NULL);
	for (int i = 0; i < EXCL_PROCS; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			_exit(excl_child(marker));
	}
	for (int i = 0; i < EXCL_PROCS; i++) {
		int st;

		waitpid(pids[i], &st, 0);
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
			holders++;
		else if (!WIFEXITED(st) || WEXITSTATUS(st) != 10) {
			fprintf(stderr, "process %d: status 0x%x\n", i, st);
			fails++;
		}
	}
	unlink(marker);
	LR_TEST_ASSERT(fails == 0, "%d of %d processes failed", fails,
		       EXCL_PROCS);
	LR_TEST_ASSERT(holders > 0, "nobody got the prefix");
	return 0;
}

/* The stale-file sweep of prefix P removes P's leftovers only: not the
 * live hugepage file of a prefix that begins with P + "map_". */
static int
test_stale_sweep_own_prefix(void)
{
	char vpfx[128], mpfx[64], path[256] = "", stale[300], out[4096], c;
	const char *victim[] = { "-l", "0", "-m", "2", vpfx };
	const char *mine[] = { "-l", "0", "-m", "2", mpfx };
	int pid = *lr_test_main_pid() ? *lr_test_main_pid() : (int)getpid();

	/* Not PREFIX...: eal_init_args() would add another "_<pid>". */
	snprintf(mpfx, sizeof(mpfx), "--file-prefix=t_eal_sw%d", pid);
	snprintf(vpfx, sizeof(vpfx), "%smap_victim", mpfx);
	int go[2], ready[2], st;

	if (lr_test_free_hugepages_2m() < 2 || !lr_numa_available()) {
		printf("skip: no free 2 MiB hugepages (or no NUMA syscalls)\n");
		return LR_TEST_SKIP;
	}
	LR_TEST_ASSERT(pipe(go) == 0 && pipe(ready) == 0, "pipe");
	fflush(NULL);
	pid_t holder = fork();

	if (holder == 0) {
		int r = eal_init_args(5, victim);
		const struct lr_memseg *m = r == 5 ? lr_memseg_get(0) : NULL;
		char p[256] = "";

		if (m && (m->flags & LR_MEMSEG_F_FILE))
			snprintf(p, sizeof(p), "%s", m->path);
		if (write(ready[1], p, sizeof(p)) != sizeof(p) ||
		    read(go[0], &c, 1) < 0)
			_exit(2);
		_exit(r == 5 && lr_eal_cleanup() == 0 ? 0 : 1);
	}
	LR_TEST_ASSERT(read(ready[0], path, sizeof(path)) == sizeof(path),
		       "victim did not start");
	if (path[0] == '\0') {
		LR_TEST_ASSERT(write(go[1], "x", 1) == 1, "pipe");
		waitpid(holder, &st, 0);
		printf("skip: the victim got no hugepage file\n");
		return LR_TEST_SKIP;
	}
	/* A stale file of our own prefix, beside the victim's. */
	snprintf(stale, sizeof(stale), "%.*s/%smap_7",
		 (int)(strrchr(path, '/') - path), path, mpfx + 14);
	int fd = open(stale, O_CREAT | O_WRONLY, 0600);

	LR_TEST_ASSERT(fd >= 0, "create %s", stale);
	close(fd);
	int rc = init_in_child(5, mine, out, sizeof(out));
	int live = access(path, F_OK) == 0, kept = access(stale, F_OK) == 0;

	/* Let the victim go before any verdict. */
	if (write(go[1], "x", 1) != 1)
		kill(holder, SIGKILL);
	waitpid(holder, &st, 0);
	unlink(stale);
	LR_TEST_ASSERT(rc == 0, "%s: exit %d: %s", mpfx, rc, out);
	LR_TEST_ASSERT(live, "the live file %s of another prefix was removed",
		       path);
	LR_TEST_ASSERT(!kept, "stale %s kept", stale);
	LR_TEST_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0, "victim failed");
	LR_TEST_ASSERT(access(path, F_OK) != 0, "%s left behind", path);
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

/* Fenced reads go forward and bracket what runs between them: a 2 ms
 * delay between two of them spans at least 2 ms of counts. */
static int
test_tsc_fenced(void)
{
	uint64_t hz = lr_get_tsc_hz();
	uint64_t prev = lr_get_tsc_cycles_fenced();

	for (int i = 0; i < 100000; i++) {
		uint64_t now = lr_get_tsc_cycles_fenced();

		LR_TEST_ASSERT(now >= prev, "read %d went back: %llu < %llu",
			       i, (unsigned long long)now,
			       (unsigned long long)prev);
		prev = now;
	}
	uint64_t t0 = lr_get_tsc_cycles_fenced();

	lr_delay_us(2000);
	uint64_t dt = lr_get_tsc_cycles_fenced() - t0;

	LR_TEST_ASSERT(dt >= hz / 500,
		       "2 ms delay spans %llu counts at %llu Hz",
		       (unsigned long long)dt, (unsigned long long)hz);
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
	/* Help is not an error: 0, nothing set up, lr_eal_help_shown(). */
	LR_TEST_ASSERT_EQ(eal_init_args(1, help), 0);
	LR_TEST_ASSERT(lr_eal_help_shown() && !lr_eal_version_asked() &&
			   !lr_eal_initialized(),
		       "help");
	LR_TEST_ASSERT_EQ(eal_init_args(6, good), 6);
	LR_TEST_ASSERT(!lr_eal_help_shown() && !lr_eal_version_asked(),
		       "flags left from the last init");
	LR_TEST_ASSERT_EQ(lr_eal_cleanup(), 0);
	return 0;
}

/* -V and --version are not errors either: 0, nothing set up, nothing
 * printed (the program prints its version), lr_eal_version_asked(); the
 * options before them are still checked. */
static int
test_version(void)
{
	const char *v_short[] = { "-V" };
	const char *v_long[] = { "--no-huge", "--version" };
	const char *bad[] = { "--bogus", "--version" };
	const char *good[] = { "-l", "0", "-m", "8", "--no-huge",
			       PREFIX "_version" };
	const char *t;

	lr_test_log_begin();
	LR_TEST_ASSERT_EQ(eal_init_args(1, v_short), 0);
	LR_TEST_ASSERT(lr_eal_version_asked() && !lr_eal_help_shown() &&
			   !lr_eal_initialized(),
		       "-V");
	LR_TEST_ASSERT_EQ(eal_init_args(2, v_long), 0);
	LR_TEST_ASSERT(lr_eal_version_asked() && !lr_eal_initialized(),
		       "--version");
	t = lr_test_log_end();
	LR_TEST_ASSERT(t[0] == '\0', "log '%s'", t);
	lr_test_log_begin();
	LR_TEST_ASSERT_EQ(eal_init_args(2, bad), -EINVAL);
	lr_test_log_end();
	LR_TEST_ASSERT(!lr_eal_version_asked(), "version after a bad option");
	LR_TEST_ASSERT_EQ(eal_init_args(6, good), 6);
	LR_TEST_ASSERT(!lr_eal_version_asked(), "version left");
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

/* A thread logging while the main thread changes the log stream and
 * closes the old one: every message lands whole in one stream or
 * another, none in a closed one (ThreadSanitizer and ASan builds see the
 * race and the use after close that an unlocked stream had). */
static atomic_int log_swap_stop;
static atomic_ulong log_swap_written;

static void *
log_swap_writer(void *arg)
{
	(void)arg;
	while (!atomic_load(&log_swap_stop)) {
		LR_LOG(ERR, EAL, "log_swap message %lu\n",
		       atomic_load(&log_swap_written));
		atomic_fetch_add(&log_swap_written, 1);
	}
	return NULL;
}

static int
test_log_stream_swap(void)
{
	unsigned long written = 0, seen = 0;
	FILE *base = tmpfile(); /* between swaps (not stderr: no noise) */
	pthread_t t;
	char line[128];

	LR_TEST_ASSERT(base != NULL, "tmpfile");
	lr_log_set_stream(base);
	atomic_store(&log_swap_stop, 0);
	atomic_store(&log_swap_written, 0);
	LR_TEST_ASSERT_EQ(pthread_create(&t, NULL, log_swap_writer, NULL), 0);
	/* The swaps begin once the writer runs: on a loaded machine the
	 * thread may not be scheduled before 200 swaps are over. */
	while (atomic_load(&log_swap_written) == 0)
		sched_yield();
	for (int i = 0; i < 200; i++) {
		FILE *f = tmpfile();

		LR_TEST_ASSERT(f != NULL, "tmpfile");
		lr_log_set_stream(f);
		sched_yield();
		lr_log_set_stream(base);
		rewind(f);
		while (fgets(line, sizeof(line), f) != NULL) {
			LR_TEST_ASSERT(strncmp(line, "eal: log_swap message ",
					       22) == 0 &&
					   line[strlen(line) - 1] == '\n',
				       "torn line '%s'", line);
			seen++;
		}
		fclose(f);
	}
	atomic_store(&log_swap_stop, 1);
	pthread_join(t, NULL);
	written = atomic_load(&log_swap_written);
	lr_log_set_stream(NULL);
	fclose(base);
	LR_TEST_ASSERT(written > 0, "the writer wrote nothing");
	printf("log_stream_swap: %lu messages written, %lu in the swapped "
	       "streams\n",
	       written, seen);
	return 0;
}

/* One copy of n bytes from src + so to dst + 32 + dof by lr_copy_16
 * (full) or lr_copy_16_64: exactly those bytes, nothing before or after
 * them; lr_prefetch_w changes nothing. */
static int
copy_check(int full, uint32_t n, const uint8_t *src, unsigned so, unsigned dof)
{
	uint8_t dst[320], *d = dst + 32 + dof;

	memset(dst, 0xee, sizeof(dst));
	lr_prefetch_w(d);
	if (full)
		lr_copy_16(d, src + so, n);
	else
		lr_copy_16_64(d, src + so, n);
	for (unsigned i = 0; i < sizeof(dst); i++) {
		int in = i >= 32 + dof && i < 32 + dof + n;
		uint8_t want = in ? src[so + i - 32 - dof] : 0xee;

		LR_TEST_ASSERT(dst[i] == want,
			       "%s n %u src +%u dst +%u: byte %u is %u, not %u",
			       full ? "lr_copy_16" : "lr_copy_16_64", n, so,
			       dof, i, dst[i], want);
	}
	return 0;
}

/* lr_copy_16_64 (n from 16 to 64) and lr_copy_16 (n from 16 to 200,
 * either side of its switch to memcpy at 64) copy exactly n bytes at
 * every source and destination alignment within a line (copy_check). */
static int
test_copy_16_64(void)
{
	uint8_t src[256];

	for (unsigned i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 7 + 1);
	for (int full = 0; full < 2; full++)
		for (uint32_t n = 16; n <= (full ? 200u : 64u); n++)
			for (unsigned so = 0; so < 16; so++)
				for (unsigned dof = 0; dof < 16; dof++)
					if (copy_check(full, n, src, so, dof))
						return -1;
	return 0;
}

static const struct lr_test_case cases[] = {
	{ "copy_16_64", test_copy_16_64 },
	{ "reinit_other_lcores", test_reinit_other_lcores },
	{ "log_stream_swap", test_log_stream_swap },
	{ "register_and_tsc", test_register_and_tsc },
	{ "tsc_fenced", test_tsc_fenced },
	{ "standalone_memseg", test_standalone_memseg },
	{ "bad_options", test_bad_options },
	{ "plugin_path", test_plugin_path },
	{ "init_after_stopped_group", test_init_after_stopped_group },
	{ "version", test_version },
	{ "missing_huge_dir", test_missing_huge_dir },
	{ "memory_limits", test_memory_limits },
	{ "no_huge", test_no_huge },
	{ "hugepages", test_hugepages },
	{ "hugefile_in_use", test_hugefile_in_use },
	{ "prefix_lock", test_prefix_lock },
	{ "assert", test_assert },
	{ "runtime_dir_foreign", test_runtime_dir_foreign },
	{ "runtime_dir_links", test_runtime_dir_links },
	{ "runtime_dir_removed", test_runtime_dir_removed },
	{ "prefix_lock_exclusive", test_prefix_lock_exclusive },
	{ "stale_sweep_own_prefix", test_stale_sweep_own_prefix },
};

LR_TEST_MAIN("eal", cases)
