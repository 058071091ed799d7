/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_test_port.c - ports, refused devargs, child processes and pools for
 * the driver and ethdev test programs (see lr_test_port.h).
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lr_eal.h"
#include "lr_errno.h"
#include "lr_ethdev.h"
#include "lr_lcore.h"
#include "lr_test.h"
#include "lr_test_port.h"

struct lr_mempool *
lr_test_port_eal(const char *name, const char *prefix, unsigned n,
		 unsigned cache)
{
	char pfx[64];
	char *argv[] = {(char *)name, "-l",  "0", "--no-huge",
			"-m",	      "128", pfx, NULL};

	snprintf(pfx, sizeof(pfx), "--file-prefix=%s%d", prefix, (int)getpid());
	if (!lr_eal_initialized() && lr_eal_init(7, argv) < 0) {
		fprintf(stderr, "%s: lr_eal_init failed\n", name);
		return NULL;
	}
	return lr_test_pool(name, n, cache);
}

void
lr_test_ports_close(void)
{
	uint16_t p;

	LR_ETH_FOREACH_DEV(p)
	lr_eth_dev_close(p);
}

int
lr_test_port_start(int port, uint16_t nq, uint16_t nb_desc,
		   struct lr_mempool *mp)
{
	uint16_t p = (uint16_t)port;
	int ret;

	if (port < 0)
		return port;
	ret = lr_eth_dev_configure(p, nq, nq, NULL);
	for (uint16_t q = 0; ret == 0 && q < nq; q++) {
		ret = lr_eth_rx_queue_setup(p, q, nb_desc, LR_SOCKET_ID_ANY,
					    NULL, mp);
		if (ret == 0)
			ret = lr_eth_tx_queue_setup(p, q, nb_desc,
						    LR_SOCKET_ID_ANY, NULL);
	}
	return ret ? ret : lr_eth_dev_start(p);
}

int
lr_test_port_open(const char *devargs, uint16_t nq, uint16_t nb_desc,
		  struct lr_mempool *mp)
{
	int port = lr_eth_dev_create(devargs);
	int ret = lr_test_port_start(port, nq, nb_desc, mp);

	if (ret == 0)
		return port;
	fprintf(stderr, "%s: cannot %s: %s\n", devargs,
		port < 0 ? "create" : "start", lr_strerror(-ret));
	if (port >= 0)
		lr_eth_dev_close((uint16_t)port);
	return ret;
}

/* The log is captured here, begun and ended in this file (lr_test.h's
 * capture is a state of each file). */
int
lr_test_port_refused(const char *args, int err, const char *msg)
{
	const char *t;
	int r;

	lr_test_log_begin();
	r = lr_eth_dev_create(args);
	t = lr_test_log_end();
	LR_TEST_ASSERT(r == err, "'%s': got %d (%s), want %d", args, r,
		       r < 0 ? lr_strerror(-r) : "created", err);
	LR_TEST_ASSERT(strstr(t, msg) != NULL, "'%s': log '%s' lacks '%s'",
		       args, t, msg);
	return 0;
}

int
lr_test_in_child(int (*fn)(void))
{
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	if (pid == 0)
		_exit(fn());
	LR_TEST_ASSERT(pid > 0 && waitpid(pid, &st, 0) == pid, "fork");
	if (WIFEXITED(st) && WEXITSTATUS(st) == LR_TEST_SKIP)
		return LR_TEST_SKIP;
	LR_TEST_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		       "child status %#x", st);
	return 0;
}

int
lr_test_pool_back(struct lr_mempool *mp)
{
	LR_TEST_ASSERT(lr_mempool_in_use_count(mp) == 0,
		       "pool '%s': %u mbufs not back", mp->name,
		       lr_mempool_in_use_count(mp));
	return 0;
}
