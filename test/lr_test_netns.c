/* SPDX-License-Identifier: BSD-3-Clause */
/* The veth topology of the C driver tests, built by scripts/netns.sh (see
 * lr_test_netns.h). LR_TEST_SOURCE_ROOT comes from test/meson.build. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_packet.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lr_eal.h"
#include "lr_test.h"
#include "lr_test_netns.h"

#ifndef PACKET_QDISC_BYPASS
#define PACKET_QDISC_BYPASS 20
#endif

#define NETNS_SH   LR_TEST_SOURCE_ROOT "/scripts/netns.sh"
#define MAX_PAIRS  8
#define SOCKET_BUF (16 << 20)

/* What the signal handler removes: the running topology and its child. */
static const struct lr_test_netns *running;
static volatile sig_atomic_t child_pid;

/* Run netns.sh with argv[1..] (stdout, the exported names, discarded);
 * 0 if it exited 0. Only async-signal-safe calls: the handler uses it. */
static int
netns_sh(char *const argv[])
{
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0)
			dup2(null, STDOUT_FILENO);
		execv(NETNS_SH, argv);
		_exit(127);
	}
	if (pid < 0)
		return -1;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

int
lr_test_netns_check(void)
{
	if (geteuid() != 0) {
		printf("skip: needs root (creates network namespaces and veth "
		       "pairs)\n");
		return LR_TEST_SKIP;
	}
	if (system("command -v ip >/dev/null") != 0) {
		printf("skip: the ip command (iproute2) is not installed\n");
		return LR_TEST_SKIP;
	}
	if (access(NETNS_SH, X_OK) != 0) {
		printf("skip: no executable %s\n", NETNS_SH);
		return LR_TEST_SKIP;
	}
	return 0;
}

void
lr_test_netns_init(struct lr_test_netns *t, const char *tag)
{
	snprintf(t->prefix, sizeof(t->prefix), "%.5s%u", tag,
		 (unsigned)getpid() % 100000u);
	snprintf(t->ns_gen, sizeof(t->ns_gen), "%sgen", t->prefix);
	snprintf(t->ns_fwd, sizeof(t->ns_fwd), "%sfwd", t->prefix);
	t->fd_gen = -1;
	t->fd_fwd = -1;
}

void
lr_test_netns_ifname(const struct lr_test_netns *t, const char *suffix,
		     char name[IFNAMSIZ])
{
	snprintf(name, IFNAMSIZ, "%s%s", t->prefix, suffix);
}

void
lr_test_netns_destroy(const struct lr_test_netns *t)
{
	char *argv[] = {NETNS_SH, "destroy", (char *)t->prefix, NULL};

	netns_sh(argv);
}

int
lr_test_netns_create(const struct lr_test_netns *t, const char *const *pairs)
{
	char *argv[3 + MAX_PAIRS + 1] = {NETNS_SH, "create", (char *)t->prefix};
	int n = 3;

	for (; pairs != NULL && *pairs != NULL; pairs++) {
		if (n == 3 + MAX_PAIRS) {
			fprintf(stderr, "netns %s: more than %d veth pairs\n",
				t->prefix, MAX_PAIRS);
			return -1;
		}
		argv[n++] = (char *)*pairs;
	}
	argv[n] = NULL;
	if (netns_sh(argv) != 0) {
		fprintf(stderr, "netns %s: %s create failed\n", t->prefix,
			NETNS_SH);
		lr_test_netns_destroy(t);
		return -1;
	}
	return 0;
}

static void
on_signal(int sig)
{
	if (child_pid > 0)
		kill(child_pid, SIGKILL);
	if (running != NULL)
		lr_test_netns_destroy(running);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* The child: open both namespaces, live in ${P}fwd, run fn. */
static int
child_main(struct lr_test_netns *t, int (*fn)(int, char **), int argc,
	   char **argv)
{
	char path[64];

	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	snprintf(path, sizeof(path), "/run/netns/%s", t->ns_gen);
	t->fd_gen = open(path, O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof(path), "/run/netns/%s", t->ns_fwd);
	t->fd_fwd = open(path, O_RDONLY | O_CLOEXEC);
	if (t->fd_gen < 0 || t->fd_fwd < 0 || lr_test_netns_enter(t, 0) != 0) {
		fprintf(stderr, "netns %s: cannot enter the namespaces: %s\n",
			t->prefix, strerror(errno));
		return 1;
	}
	return fn(argc, argv);
}

int
lr_test_netns_run(struct lr_test_netns *t, const char *const *pairs,
		  int (*fn)(int argc, char **argv), int argc, char **argv)
{
	int st;
	pid_t pid;

	running = t;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (lr_test_netns_create(t, pairs) != 0) {
		printf("skip: cannot create network namespaces and veth pairs "
		       "here\n");
		return LR_TEST_SKIP;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int r = child_main(t, fn, argc, argv);

		/* The cases' EAL lives in this child: release its runtime
		 * folder and hugepage files here, as _exit() runs no atexit
		 * handler (without this every run left
		 * /var/run/linerate/<prefix>/config behind). */
		if (lr_eal_initialized() && lr_eal_cleanup() != 0)
			r = r ? r : 1;
		fflush(NULL);
		_exit(r);
	}
	child_pid = pid;
	if (pid < 0)
		st = 1 << 8;
	else
		while (waitpid(pid, &st, 0) < 0)
			if (errno != EINTR) {
				st = 1 << 8;
				break;
			}
	child_pid = 0;
	lr_test_netns_destroy(t);
	running = NULL;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	fprintf(stderr, "test child killed by signal %d\n", WTERMSIG(st));
	return 1;
}

int
lr_test_netns_enter(const struct lr_test_netns *t, int gen)
{
	return setns(gen ? t->fd_gen : t->fd_fwd, CLONE_NEWNET) == 0 ? 0 : -1;
}

int
lr_test_netns_raw_socket(const struct lr_test_netns *t, const char *ifname,
			 int proto, int qdisc_bypass)
{
	struct sockaddr_ll sll;
	int fd, big = SOCKET_BUF, one = 1;

	if (lr_test_netns_enter(t, 1) != 0)
		return -1;
	fd = socket(AF_PACKET, SOCK_RAW, htons((uint16_t)proto));
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons((uint16_t)proto);
	sll.sll_ifindex = (int)if_nametoindex(ifname);
	if (fd >= 0 && (sll.sll_ifindex == 0 ||
			bind(fd, (struct sockaddr *)&sll, sizeof(sll)) != 0)) {
		close(fd);
		fd = -1;
	}
	if (fd >= 0) {
		setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big));
		setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big));
		if (qdisc_bypass)
			setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one,
				   sizeof(one));
	}
	if (lr_test_netns_enter(t, 0) != 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

int
lr_test_netns_sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	if (st != 0)
		fprintf(stderr, "command failed (%d): %s\n", st, cmd);
	return st == 0 ? 0 : -1;
}
