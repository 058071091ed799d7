/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_test_pmd_memif.h - what the net_memif driver tests (test_pmd_memif.c:
 * copying datapath, links and DPDK interop; test_pmd_memif_zc.c: zero-copy;
 * test_pmd_memif_ctl.c: control channel, socket files, devargs) share, in
 * lr_test_pmd_memif.c: the EAL and the tests' pool, ports, links, frames
 * numbered by stream and checked byte for byte, xstats, zero-copy pools
 * given back.
 *
 * The names are short because every case uses them; they belong to these
 * test programs only. One case at a time, on the main thread.
 */
#ifndef LR_TEST_PMD_MEMIF_H
#define LR_TEST_PMD_MEMIF_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lr_cycles.h"
#include "lr_mbuf.h"
#include "lr_test.h"

/** Frames a burst; the longest frame sent. */
#define BURST 32
#define MAXF  3000

/** The private folder of the socket files (lr_test_memif_setup()). */
extern const char *dir;
/** Longest frame sent (MAXF; less for peers that cannot chain). */
extern uint32_t size_cap;
/** The tests' mbuf pool (init_eal()). */
extern struct lr_mempool *pool;
/** Zero-copy cases: the pool frames are built in (NULL: pool), and the
 *  one every received segment must be of (NULL: any). */
extern struct lr_mempool *tx_pool, *rx_expect;

/** The EAL and the tests' pool, once; 0 or -1. */
int init_eal(void);
/** Create, configure with nq queue pairs and start the port; id or -1. */
int port_open(const char *devargs, uint16_t nq);
/** Wait (up to 20 s) until the links of a and b (b < 0: a only) are up. */
int wait_link(int a, int b, int up);
/** Size of frame i (capped at size_cap). */
uint32_t size_of(unsigned i);
/** An mbuf of tx_pool (or pool) holding frame i of tag, or NULL. */
struct lr_mbuf *frame_mbuf(unsigned tag, unsigned i);
/** Check packet m against frame i of tag (lr_test_stream_check()); 0 or
 *  -1 (printed). */
int check_frame(struct lr_mbuf *m, unsigned tag, unsigned i);
/** Send n frames of tag from (tx, txq), receive them on (rx, rxq). */
int xfer(int tx, uint16_t txq, int rx, uint16_t rxq, unsigned tag, unsigned n);
/** The port's xstat name (0 if it has none). */
uint64_t xstat(int port, const char *name);
/** Zero-copy client cp: every mbuf of its pool back; 0 or -1. */
int zc_pool_back(int cp);
/** Counters of server sp and client cp after the server received srx
 *  frames and the client crx: packets and bytes agree, no errors; 0 or
 *  -1 (printed). */
int counters_agree(int sp, int cp, uint64_t srx, uint64_t crx);
/** Receive on (p, queue 0) until n packets are held in m[] (up to 20 s);
 *  how many are held. */
unsigned rx_hold(int p, struct lr_mbuf **m, unsigned n);
/** Frames 0..k-1 (k <= BURST) of tag, in m[], sent in one burst from
 *  tx (the unsent freed; how many went into *sent) and, when all went,
 *  received on rx (queues 0, up to 20 s); how many arrived intact and in
 *  order, or -1 at the first that did not. */
int burst_back(int tx, int rx, struct lr_mbuf **m, unsigned k, unsigned tag,
	       uint16_t *sent);
/** The end of a case: ret 0 and every mbuf of the tests' pool back; 0, or
 *  -1 after a message with what. */
int case_end(int ret, const char *what);

/** A server port and a client port on one socket (pair_init()). */
struct memif_pair {
	char sock[128];	     /* the socket: dir/name */
	char s[256], c[256]; /* the server's and the client's devargs */
	int sp, cp;	     /* their ids; -1 when not open */
};

/** The EAL (init_eal()), and the devargs of server net_memif<id> and
 *  client net_memif<id + 1> on socket dir/name (a file, socket-abstract=no,
 *  when name ends in ".sock"; else abstract), then sx and cx (each "" or
 *  ",key=value..."); none open. 0, or -1 without the EAL. */
int pair_init(struct memif_pair *p, unsigned id, const char *name,
	      const char *sx, const char *cx);
/** Open p's server, then its client, with nq queue pairs; 0 when both
 *  opened, -1 when either failed. */
int pair_open(struct memif_pair *p, uint16_t nq);
/** pair_open() and both links up (wait_link()); 0 or -1. */
int pair_up(struct memif_pair *p, uint16_t nq);
/** Shut p's client, then its server (those open); both -1 after. */
void pair_shut(struct memif_pair *p);
/** pair_shut(), then case_end(ret, what). */
int pair_end(struct memif_pair *p, int ret, const char *what);

/** main() of a net_memif program test_<suite>: its private folder
 *  (lr_test_memif_setup(): skips without net_memif), then the array cases
 *  (lr_test_run()). */
#define LR_TEST_PMD_MEMIF_MAIN(suite, cases)                                   \
	int main(int argc, char **argv)                                        \
	{                                                                      \
		int ret = lr_test_memif_setup("test_" suite, &dir);            \
                                                                               \
		if (ret != 0)                                                  \
			return ret;                                            \
		return lr_test_run(suite, cases, (int)LR_DIM(cases), argc,     \
				   argv);                                      \
	}

#endif /* LR_TEST_PMD_MEMIF_H */
