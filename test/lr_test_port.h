/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_test_port.h - what the driver and ethdev test programs
 * (test_pmd_af_packet.c, test_pmd_pcap.c, test_pmd_af_xdp_setup.c,
 * test_pmd_tap.c, test_l2fwd.c, test_ethdev.c, test_elastic.c) share, in
 * lr_test_port.c: the EAL up and leftover ports closed at a case's start,
 * a port configured and started in one call, devargs that must be refused with
 * a clear message, a case body run in a child process (one that drops
 * capabilities or enters a namespace), pools checked to have every mbuf
 * back.
 *
 * Test code only: every function reports what failed on stderr, and
 * returns 0 when all is well. One case at a time, on the main thread.
 */
#ifndef LR_TEST_PORT_H
#define LR_TEST_PORT_H

#include <stdint.h>

#include "lr_mempool.h"

/** Start the EAL of program name once (lcore 0, 128 MiB of ordinary
 *  memory, file prefix <prefix><pid>), then lr_test_pool(name, n, cache):
 *  the program's mbuf pool, or NULL after a message. */
struct lr_mempool *lr_test_port_eal(const char *name, const char *prefix,
				    unsigned n, unsigned cache);

/** In a case: the EAL and pools set up by up() (0 when they are, at the
 *  first call or before), else the case fails; then every port closed
 *  (what a failed case left behind). */
#define LR_TEST_PORT_UP(up)                                                    \
	do {                                                                   \
		LR_TEST_ASSERT(up() == 0, "EAL/pool setup failed");            \
		lr_test_ports_close();                                         \
	} while (0)

/** Close every port there is. */
void lr_test_ports_close(void);

/** Configure port with nq receive and transmit queues of nb_desc
 *  descriptors each (receive mbufs from mp, any socket) and start it; 0,
 *  or the negative errno of the step that failed (port itself when it is
 *  negative: a failed create). */
int lr_test_port_start(int port, uint16_t nq, uint16_t nb_desc,
		       struct lr_mempool *mp);

/** Create the port of devargs and start it as lr_test_port_start() does;
 *  its id, or a negative errno (the port closed again) after a message. */
int lr_test_port_open(const char *devargs, uint16_t nq, uint16_t nb_desc,
		      struct lr_mempool *mp);

/** A row of a table of devargs that must be refused: lr_eth_dev_create()
 *  (or the parser) returns err and logs msg. */
struct lr_test_refused {
	const char *args; /* a format in some tables: "%s" an interface */
	int err;
	const char *msg;
};

/** Devargs args must be refused: lr_eth_dev_create() returns err and the
 *  log it writes holds msg. 0, or -1 after a message. */
int lr_test_port_refused(const char *args, int err, const char *msg);

/** Run fn in a child process (stdio flushed first) and wait for it: its
 *  return value is the child's exit status. 0 when that is 0,
 *  LR_TEST_SKIP when it is LR_TEST_SKIP, else -1 after a message. */
int lr_test_in_child(int (*fn)(void));

/** Every mbuf of mp is back (none in use); 0, or -1 after a message. */
int lr_test_pool_back(struct lr_mempool *mp);

#endif /* LR_TEST_PORT_H */
