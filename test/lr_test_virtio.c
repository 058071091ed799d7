/* SPDX-License-Identifier: BSD-3-Clause */
/* lr_test_virtio - dpdk-testpmd as the peer of the vhost and virtio-user
 * tests (see lr_test_virtio.h). */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lr_common.h"
#include "lr_cycles.h"
#include "lr_ethdev.h"
#include "lr_mempool.h"
#include "lr_test.h"
#include "lr_test_virtio.h"

int
lr_test_testpmd_find(struct lr_test_testpmd *tp, const char *dir,
		     const char *name)
{
	const char *path = getenv("PATH");
	char buf[4096];

	tp->pid = -1;
	tp->in = -1;
	snprintf(tp->log, sizeof(tp->log), "%s/testpmd.log", dir);
	snprintf(tp->prefix, sizeof(tp->prefix), "%s%d", name, (int)getpid());
	snprintf(buf, sizeof(buf), "%s", path ? path : "/usr/bin:/bin");
	for (char *d = strtok(buf, ":"); d != NULL; d = strtok(NULL, ":")) {
		snprintf(tp->bin, sizeof(tp->bin), "%s/dpdk-testpmd", d);
		if (access(tp->bin, X_OK) == 0)
			return 0;
	}
	return -1;
}

int
lr_test_testpmd_start(struct lr_test_testpmd *tp, const char *vdev, unsigned nq,
		      unsigned mem_mb, unsigned mbufs, const char *eal_extra)
{
	char prefix[96], mem[16], rxq[32], txq[32], nb[48];
	int pfd[2];

	snprintf(prefix, sizeof(prefix), "--file-prefix=%s", tp->prefix);
	snprintf(mem, sizeof(mem), "%u", mem_mb);
	snprintf(rxq, sizeof(rxq), "--rxq=%u", nq);
	snprintf(txq, sizeof(txq), "--txq=%u", nq);
	snprintf(nb, sizeof(nb), "--total-num-mbufs=%u", mbufs);
	unlink(tp->log); /* wait_line() reads this run's lines only */
	if (pipe(pfd) != 0)
		return -1;
	fflush(NULL);
	tp->pid = fork();
	if (tp->pid < 0)
		return -1;
	if (tp->pid == 0) {
		int fd = open(tp->log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		const char *head[] = {"stdbuf", "-oL",	    tp->bin,	 "-l",
				      "0,1",	"--no-pci", "--no-huge", "-m",
				      mem,	prefix,	    "--vdev",	 vdev};
		const char *tail[] = {"--", "--forward-mode=io",
				      "-a", "--nb-cores=1",
				      rxq,  txq,
				      nb,   NULL};
		char *argv[LR_DIM(head) + 1 + LR_DIM(tail)];
		unsigned n = 0;

		for (unsigned k = 0; k < LR_DIM(head); k++)
			argv[n++] = (char *)head[k];
		if (eal_extra != NULL)
			argv[n++] = (char *)eal_extra;
		for (unsigned k = 0; k < LR_DIM(tail); k++)
			argv[n++] = (char *)tail[k];
		dup2(pfd[0], 0);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		close(pfd[1]);
		execvp("stdbuf", argv);
		execv(tp->bin, argv + 2);
		_exit(127);
	}
	close(pfd[0]);
	tp->in = pfd[1]; /* testpmd runs until a line comes here */
	return 0;
}

int
lr_test_testpmd_wait_line(struct lr_test_testpmd *tp, const char *line)
{
	static char buf[1 << 16];
	uint64_t end = lr_get_tsc_cycles() + 30 * lr_get_tsc_hz();

	while (lr_get_tsc_cycles() < end) {
		FILE *f = fopen(tp->log, "r");
		size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

		if (f != NULL)
			fclose(f);
		buf[n] = '\0';
		if (strstr(buf, line) != NULL)
			return 0;
		if (waitpid(tp->pid, NULL, WNOHANG) != 0) {
			fprintf(stderr, "testpmd exited before '%s'\n", line);
			return -1;
		}
		lr_delay_us(1000);
	}
	fprintf(stderr, "no '%s' from testpmd after 30 s\n", line);
	return -1;
}

int
lr_test_testpmd_stop(struct lr_test_testpmd *tp, int kill_now)
{
	char cmd[160];
	int st = -1;

	if (tp->pid < 0)
		return -1;
	if (kill_now || tp->in < 0 || write(tp->in, "\n", 1) != 1)
		kill(tp->pid, SIGKILL);
	if (tp->in >= 0)
		close(tp->in);
	tp->in = -1;
	for (int i = 0; i < 20000; i++) {
		if (waitpid(tp->pid, &st, WNOHANG) == tp->pid)
			goto done;
		lr_delay_us(1000);
	}
	kill(tp->pid, SIGKILL);
	waitpid(tp->pid, &st, 0);
done:
	tp->pid = -1;
	snprintf(cmd, sizeof(cmd), "rm -rf /var/run/dpdk/%s", tp->prefix);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove DPDK's runtime folder\n");
	return st;
}

void
lr_test_testpmd_log(const struct lr_test_testpmd *tp, unsigned lines)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "tail -%u '%s' >&2", lines, tp->log);
	if (system(cmd) != 0)
		fprintf(stderr, "(no testpmd log)\n");
}

int
lr_test_bad_devargs(const char *const bad[][2], unsigned n,
		    struct lr_mempool *pool)
{
	unsigned used = lr_mempool_in_use_count(pool);
	int fds0 = lr_test_fd_count();

	for (unsigned i = 0; i < n; i++) {
		const char *log;
		int port;

		lr_test_log_begin();
		port = lr_eth_dev_create(bad[i][0]);
		log = lr_test_log_end();
		LR_TEST_ASSERT(port < 0, "'%s' was taken", bad[i][0]);
		LR_TEST_ASSERT(strstr(log, bad[i][1]) != NULL,
			       "'%s': no '%s' in the log", bad[i][0],
			       bad[i][1]);
	}
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), used);
	LR_TEST_ASSERT_EQ(lr_test_fd_count(), fds0);
	return 0;
}

int
lr_test_matrix_skip(const char *what, int representative)
{
	const char *v = getenv("LR_TEST_MATRIX");

	if (representative || v == NULL || strcmp(v, "short") != 0)
		return 0;
	printf("skip: %s: LR_TEST_MATRIX=short runs the representative cases "
	       "of the testpmd matrix only\n",
	       what);
	return 1;
}
