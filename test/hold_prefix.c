/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr-test-hold-prefix [EAL options]: start the EAL (file prefix "linerate",
 * the default, unless --file-prefix says otherwise), print
 * "holding file prefix 'P' (pid N)" once it holds the prefix, and keep it,
 * using no CPU, until SIGTERM, SIGINT or SIGHUP; then clean up, print
 * "released file prefix 'P'" and exit 0.
 *
 * scripts/test.sh runs it with the default prefix for the whole test run,
 * as another linerate instance on the machine would: a test that takes the
 * default prefix fails on its lock, and one that sweeps or removes the
 * default prefix's files is caught when this one finds them gone at the end.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lr_eal.h"
#include "lr_memory.h"

int
main(int argc, char **argv)
{
	char prefix[256];
	sigset_t set;
	int sig = 0, ret;

	/* Blocked before the EAL starts its lcore threads, so that they
	 * inherit the mask and sigwait() below takes every one. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	ret = lr_eal_init(argc, argv);
	if (ret == -EALREADY)
		return 0;
	if (ret < 0) {
		fprintf(stderr, "lr-test-hold-prefix: EAL init failed: %s\n",
			lr_strerror(-ret));
		return 1;
	}
	snprintf(prefix, sizeof(prefix), "%s", lr_eal_file_prefix());
	printf("holding file prefix '%s' (pid %d)\n", prefix, (int)getpid());
	fflush(stdout);
	while (sigwait(&set, &sig) != 0)
		;
	/* What the run must not have touched: this instance's files. */
	for (unsigned i = 0; i < lr_memseg_count(); i++) {
		const struct lr_memseg *s = lr_memseg_get(i);

		if (s->path[0] && access(s->path, F_OK) != 0) {
			fprintf(stderr,
				"lr-test-hold-prefix: hugepage file %s of "
				"prefix '%s' was removed under it\n",
				s->path, prefix);
			ret = -1;
		}
	}
	if (lr_eal_cleanup() != 0)
		ret = -1;
	printf("released file prefix '%s' on signal %d\n", prefix, sig);
	return ret < 0 ? 1 : 0;
}
