/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr-eal-demo: start the EAL with the given options, print what it reserved
 * and run a function on every lcore.
 *
 *   lr-eal-demo [EAL options]
 *
 * Exit status (lr_app.h): 0 done, 1 run-time failure, 2 usage error.
 */
#include <stdio.h>
#include <stdlib.h>

#include "lr_app.h"
#include "lr_eal.h"

static int
hello(void *arg)
{
	(void)arg;
	printf("hello from lcore %u on node %d\n", lr_lcore_id(),
	       lr_socket_id());
	return 0;
}

static void
usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [EAL options]\n"
		"  (no options of its own: it prints what the EAL reserved "
		"and says hello\n  from every lcore)\n",
		prog);
}

int
main(int argc, char **argv)
{
	static const struct lr_app app = {"lr-eal-demo", usage};
	int status, ret = lr_app_eal_init(&app, argc, argv, &status);

	if (ret < 0)
		return status;
	if (ret + 1 < argc) {
		fprintf(stderr,
			"lr-eal-demo: unexpected argument '%s' (EAL options "
			"only)\n",
			argv[ret + 1]);
		lr_eal_cleanup();
		return LR_EXIT_USAGE;
	}
	lr_eal_dump(stdout);
	lr_eal_mp_remote_launch(hello, NULL, 1);
	lr_eal_mp_wait_lcore();
	lr_eal_cleanup();
	return LR_EXIT_OK;
}
