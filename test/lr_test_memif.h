/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_test_memif.h - what the net_memif tests (test_pmd_memif*.c,
 * test_memif_apps.c) share: a private folder for their socket files,
 * removed at exit; the EAL and an mbuf pool; ports created, configured and
 * started in one call; link state, link waits and xstats (the net_vhost
 * and net_virtio_user tests use these too).
 */
#ifndef LR_TEST_MEMIF_H
#define LR_TEST_MEMIF_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lr_eal.h"
#include "lr_ethdev.h"
#include "lr_ethdev_driver.h"
#include "lr_mbuf.h"
#include "lr_test.h"

/** Mbufs of the tests' pool. */
#define LR_TEST_MEMIF_POOL_SIZE 8192

/** Before the cases: LR_TEST_SKIP when net_memif is not built in, else
 *  make the private folder /tmp/<name>.XXXXXX (removed at exit) and return
 *  its path in *dir: 0, or 1 after a message. */
static inline int
lr_test_memif_setup(const char *name, const char **dir)
{
	if (lr_eth_driver_find("net_memif") == NULL) {
		printf("skip: net_memif is not built in\n");
		return LR_TEST_SKIP;
	}
	*dir = lr_test_private_dir(name);
	return *dir != NULL ? 0 : 1;
}

/** The EAL (ordinary memory, a prefix of name and the pid) and the
 *  tests' mbuf pool, named name, made once; the pool or NULL. */
static inline struct lr_mempool *
lr_test_memif_eal(const char *name)
{
	return lr_test_eal_pool(name, 128, LR_TEST_MEMIF_POOL_SIZE, 32);
}

/** Create, configure (nq rx and tx queues, rx mbufs from pool) and start
 *  the port of devargs; its id, or -1 after a message. */
static inline int
lr_test_memif_open(const char *devargs, uint16_t nq, struct lr_mempool *pool)
{
	int port = lr_eth_dev_create(devargs);
	uint16_t p = (uint16_t)port;

	if (port < 0) {
		fprintf(stderr, "cannot create %s\n", devargs);
		return -1;
	}
	if (lr_eth_dev_configure(p, nq, nq, NULL) != 0)
		goto close;
	for (uint16_t q = 0; q < nq; q++)
		if (lr_eth_rx_queue_setup(p, q, 1024, LR_SOCKET_ID_ANY, NULL,
					  pool) != 0 ||
		    lr_eth_tx_queue_setup(p, q, 1024, LR_SOCKET_ID_ANY, NULL) !=
			0)
			goto close;
	if (lr_eth_dev_start(p) != 0)
		goto close;
	return port;
close:
	fprintf(stderr, "cannot set up %s\n", devargs);
	lr_eth_dev_close(p);
	return -1;
}

/** Stop and close port (none when < 0). */
static inline void
lr_test_memif_shut(int port)
{
	if (port >= 0) {
		lr_eth_dev_stop((uint16_t)port);
		lr_eth_dev_close((uint16_t)port);
	}
}

/** 1 when the link of port is up. */
static inline int
lr_test_memif_link_up(int port)
{
	struct lr_eth_link l;

	return lr_eth_link_get_nowait((uint16_t)port, &l) == 0 && l.link_status;
}

/** Wait (polling, up to 30 s: only a failure waits that long) until
 *  port's link is up (1) or down (0): 0, or -1 after a message. */
static inline int
lr_test_memif_wait_link(int port, int up)
{
	uint64_t end = lr_get_tsc_cycles() + 30 * lr_get_tsc_hz();

	while (lr_get_tsc_cycles() < end) {
		if (lr_test_memif_link_up(port) == up)
			return 0;
		lr_delay_us(1000);
	}
	fprintf(stderr, "link of port %d not %s after 30 s\n", port,
		up ? "up" : "down");
	return -1;
}

/** The port's xstat name (0 when it has none). */
static inline uint64_t
lr_test_memif_xstat(int port, const char *name)
{
	uint64_t v = 0;

	if (lr_eth_xstats_get_by_name((uint16_t)port, name, &v) != 0)
		return 0;
	return v;
}

/** Port's xstats say it connected c times and was disconnected d times:
 *  0, or -1 after a message. */
static inline int
lr_test_memif_connects(int port, uint64_t c, uint64_t d)
{
	uint64_t gc = lr_test_memif_xstat(port, "connects");
	uint64_t gd = lr_test_memif_xstat(port, "disconnects");

	if (gc == c && gd == d)
		return 0;
	fprintf(stderr,
		"port %d: connects %llu disconnects %llu, expected %llu and "
		"%llu\n",
		port, (unsigned long long)gc, (unsigned long long)gd,
		(unsigned long long)c, (unsigned long long)d);
	return -1;
}

#endif /* LR_TEST_MEMIF_H */
