/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_test_netns.h - the veth topology of scripts/netns.sh for the C driver
 * tests: two network namespaces ${P}gen and ${P}fwd joined by veth pairs
 * ${P}<gen suffix> - ${P}<fwd suffix>. The script is the one place that
 * builds it (this file runs `netns.sh create` and `netns.sh destroy`); the
 * prefix P carries the test's tag and its pid, so parallel runs never
 * collide.
 *
 * A test calls lr_test_netns_check(), lr_test_netns_init(), names its
 * interfaces with lr_test_netns_ifname() and hands its cases to
 * lr_test_netns_run(): the parent creates the topology, runs the cases in a
 * child process living in ${P}fwd, and removes the topology whatever the
 * child did, also on SIGINT or SIGTERM. In the child,
 * lr_test_netns_enter() moves the calling thread between the namespaces
 * and lr_test_netns_raw_socket() opens a socket on a ${P}gen interface.
 *
 * Threading: one topology per process; the namespace calls act on the
 * calling thread. Errors: 0 or -1 (with a message on stderr), fds or -1.
 */
#ifndef LR_TEST_NETNS_H
#define LR_TEST_NETNS_H

#include <net/if.h>

/** One run's topology: its names and, in the child, its namespace files. */
struct lr_test_netns {
	char prefix[11]; /* tag + pid mod 10^5 */
	char ns_gen[16]; /* ${prefix}gen */
	char ns_fwd[16]; /* ${prefix}fwd */
	int fd_gen;	 /* /run/netns/${ns_gen}, open in the child only */
	int fd_fwd;
};

/** 0 if this process can build the topology, else LR_TEST_SKIP after
 *  printing why (not root, no `ip`, no scripts/netns.sh). */
int lr_test_netns_check(void);

/** Name the topology: prefix tag (at most 5 characters) + pid mod 10^5. */
void lr_test_netns_init(struct lr_test_netns *t, const char *tag);

/** Interface name ${prefix}<suffix> into name. */
void lr_test_netns_ifname(const struct lr_test_netns *t, const char *suffix,
			  char name[IFNAMSIZ]);

/** Create the topology with pairs "GEN:FWD[:QUEUES]" (NULL-terminated;
 *  NULL: netns.sh's default g0:f0 g1:f1); 0, or -1 with nothing left. */
int lr_test_netns_create(const struct lr_test_netns *t,
			 const char *const *pairs);

/** Remove the topology (both namespaces, and with them every veth). */
void lr_test_netns_destroy(const struct lr_test_netns *t);

/** Create the topology, run fn(argc, argv) in a child process in ${P}fwd,
 *  destroy the topology; fn's return value, 1 if the child died, or
 *  LR_TEST_SKIP (after saying why) if the topology cannot be made here. */
int lr_test_netns_run(struct lr_test_netns *t, const char *const *pairs,
		      int (*fn)(int argc, char **argv), int argc, char **argv);

/** Move the calling thread into ${P}gen (gen != 0) or ${P}fwd; 0 or -1. */
int lr_test_netns_enter(const struct lr_test_netns *t, int gen);

/** A raw packet socket bound to ifname in ${P}gen for protocol proto
 *  (0: send only), 16 MiB buffers, optionally bypassing the qdisc; the
 *  calling thread is back in ${P}fwd after. fd or -1. */
int lr_test_netns_raw_socket(const struct lr_test_netns *t, const char *ifname,
			     int proto, int qdisc_bypass);

/** Run a shell command built like printf (`ip -n NS ...` on the topology);
 *  0 if it exited 0, else -1 after printing the command. */
int lr_test_netns_sh(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

#endif /* LR_TEST_NETNS_H */
