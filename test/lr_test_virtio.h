/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_test_virtio - what the vhost, virtio-user and memif driver tests
 * share: DPDK's dpdk-testpmd as the peer across the socket, and a check
 * of bad devargs. It is found
 * on PATH, runs with io forwarding (each frame back on the queue it came
 * in) and its own --file-prefix, writes its output to a log file that the
 * test reads, and stops when a line comes on its stdin.
 *
 * Threading: one testpmd per struct, driven from the test's main thread.
 * Errors: functions return 0 or -1 (printed on stderr), stop returns the
 * wait status.
 */
#ifndef LR_TEST_VIRTIO_H
#define LR_TEST_VIRTIO_H

#include <sys/types.h>

/** One dpdk-testpmd run. */
struct lr_test_testpmd {
	char bin[256];	 /* dpdk-testpmd's path */
	char log[192];	 /* its output */
	char prefix[64]; /* its --file-prefix (and runtime folder name) */
	pid_t pid;	 /* -1: not running */
	int in;		 /* its stdin: a line here stops it */
};

/** Find dpdk-testpmd on PATH; its log is dir/testpmd.log and its file
 *  prefix name followed by our pid; 0 or -1 (not installed). */
int lr_test_testpmd_find(struct lr_test_testpmd *tp, const char *dir,
			 const char *name);

/** Start testpmd with the one port vdev, nq queues, mem_mb of memory
 *  without hugepages, mbufs buffers, and eal_extra (one EAL option, or
 *  NULL); 0 or -1. */
int lr_test_testpmd_start(struct lr_test_testpmd *tp, const char *vdev,
			  unsigned nq, unsigned mem_mb, unsigned mbufs,
			  const char *eal_extra);

/** Wait (up to 30 s) until testpmd's output holds line; 0 or -1. */
int lr_test_testpmd_wait_line(struct lr_test_testpmd *tp, const char *line);

/** Stop testpmd (a line on its stdin, SIGKILL after 20 s; kill_now:
 *  SIGKILL at once) and remove its runtime folder; its wait status (-1
 *  when it was not running). */
int lr_test_testpmd_stop(struct lr_test_testpmd *tp, int kill_now);

/** The last lines of testpmd's output, on stderr. */
void lr_test_testpmd_log(const struct lr_test_testpmd *tp, unsigned lines);

struct lr_mempool;

/** 1 (said on stdout) when the testpmd matrix case what is not run here:
 *  with LR_TEST_MATRIX=short (the sanitizer stage) only the cases marked
 *  representative run; 0 otherwise. */
int lr_test_matrix_skip(const char *what, int representative);

/** Each of the n device strings bad[i][0] refused by lr_eth_dev_create()
 *  with bad[i][1] in the log, and pool's mbufs and our descriptors as they
 *  were; 0 or -1 (printed). */
int lr_test_bad_devargs(const char *const bad[][2], unsigned n,
			struct lr_mempool *pool);

#endif /* LR_TEST_VIRTIO_H */
