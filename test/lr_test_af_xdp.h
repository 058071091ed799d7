/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_test_af_xdp.h - what the net_af_xdp tests (test_pmd_af_xdp.c: the
 * datapath; test_pmd_af_xdp_setup.c: setup, errors and what a port leaves
 * behind) share, in lr_test_af_xdp.c: scripts/netns.sh's topology
 * (${P}g0-${P}f0 and ${P}g1-${P}f1, plus ${P}m0-${P}n0 with two queues;
 * ports in ${P}fwd, raw sockets in ${P}gen), numbered frames, ports with
 * their UMEM pools checked, and the program's frame (LR_TEST_AF_XDP_MAIN):
 * main() calls lr_test_af_xdp_main() with the program's run_cases(), which
 * starts the EAL (lr_test_af_xdp_eal()), runs the cases with
 * lr_test_run() and ends with lr_test_af_xdp_end().
 *
 * A program's cases stand inside #ifdef LR_TEST_HAVE_AF_XDP; after them,
 * LR_TEST_AF_XDP_MAIN() gives its main(), which without the driver says
 * so and skips. The short names
 * belong to these test programs only. Needs root (lr_test_netns.h).
 */
#ifndef LR_TEST_AF_XDP_H
#define LR_TEST_AF_XDP_H

#include <net/if.h>
#include <stdint.h>

#include "lr_test.h"
#include "lr_test_netns.h"

/** Say that net_af_xdp is not built; LR_TEST_SKIP. */
int lr_test_af_xdp_absent(void);

#if __has_include("lr_eth_af_xdp.h")
#define LR_TEST_HAVE_AF_XDP 1
#include "lr_eth_af_xdp.h"
#include "lr_mbuf.h"

#ifndef PACKET_QDISC_BYPASS
#define PACKET_QDISC_BYPASS 20
#endif

/** Frames a burst; the longest frame. */
#define BURST 32
#define MAXF  1514

/** The topology (prefix: the program's tag and pid) and its interfaces. */
extern struct lr_test_netns net;
extern char if_g0[IFNAMSIZ], if_g1[IFNAMSIZ], if_f0[IFNAMSIZ], if_f1[IFNAMSIZ];
extern char if_m0[IFNAMSIZ], if_n0[IFNAMSIZ];
/** The tests' mbuf pool (lr_test_af_xdp_eal()). */
extern struct lr_mempool *pool;
/** The folder of this test binary (<build>/test). */
extern char self_dir[512];
/** Whether the EAL got two lcores. */
extern int two_lcores;

/** A raw socket on ifname in ${P}gen; fd or -1. proto 0: send only. */
int gen_socket(const char *ifname, int proto);
/** Frame i of len bytes, flow flow (UDP source port), into d. */
void make_frame(uint8_t *d, unsigned i, uint32_t len, unsigned flow);
/** Size of frame i. */
uint32_t size_of(unsigned i);
/** Send frames first.. first + n - 1 on raw socket fd; 0 or -1. */
int send_frames(int fd, unsigned first, unsigned n, unsigned nflows);
/** Create, configure with nq queues and start; port id or negative. */
int port_up(const char *args, uint16_t nq);
/** After stop: every UMEM frame of the port free, invariants hold. */
int check_umem(uint16_t port, uint16_t nq);
/** Stop (checking the UMEM pools) and close the port; 0 or -1. */
int port_down(uint16_t port, uint16_t nq);
/** A started port name on f0 and a raw socket on g0; port or -errno. */
int f0_port_g0_socket(const char *name, struct lr_mempool **umem, int *fd);
/** Poll queue q of port until want frames came or 2 s passed; how many. */
unsigned poll_rx(uint16_t port, uint16_t q, struct lr_mbuf **out,
		 unsigned want);

/** The EAL (lcores 0-1, or 0; prefix name) and the tests' pool; 0 or 1. */
int lr_test_af_xdp_eal(char *argv0, const char *name);
/** After the cases (status rc): the tests' pool whole, freed, the EAL
 *  cleaned up; rc, or 1 if mbufs were left in use. */
int lr_test_af_xdp_end(int rc);
/** main(): check root and the driver, name the topology with tag, build
 *  it, run run_cases(argc, argv) in it, remove it; the cases' status. */
int lr_test_af_xdp_main(const char *tag, int (*run_cases)(int, char **),
			int argc, char **argv);

/** run_cases() and main() of a net_af_xdp program test_<suite>: the
 *  topology named tag, the EAL, the array cases (lr_test_run()). */
#define LR_TEST_AF_XDP_MAIN(suite, tag, cases)                                 \
	static int run_cases(int argc, char **argv)                            \
	{                                                                      \
		int rc = lr_test_af_xdp_eal(argv[0], "test_" suite);           \
                                                                               \
		if (rc != 0)                                                   \
			return rc;                                             \
		rc =                                                           \
		    lr_test_run(suite, cases, (int)LR_DIM(cases), argc, argv); \
		return lr_test_af_xdp_end(rc);                                 \
	}                                                                      \
                                                                               \
	int main(int argc, char **argv)                                        \
	{                                                                      \
		return lr_test_af_xdp_main(tag, run_cases, argc, argv);        \
	}
#else
/* Without the driver: main() says so and skips; the cases are not built. */
#define LR_TEST_AF_XDP_MAIN(suite, tag, cases)                                 \
	int main(void)                                                         \
	{                                                                      \
		return lr_test_af_xdp_absent();                                \
	}
#endif /* lr_eth_af_xdp.h */

#endif /* LR_TEST_AF_XDP_H */
