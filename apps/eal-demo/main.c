/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr-eal-demo: start the EAL with the given options, print what it reserved
 * and run a function on every lcore.
 */
#include <stdio.h>
#include <stdlib.h>

#include "lr_eal.h"

static int
hello(void *arg)
{
	(void)arg;
	printf("hello from lcore %u on node %d\n", lr_lcore_id(), lr_socket_id());
	return 0;
}

int
main(int argc, char **argv)
{
	int ret = lr_eal_init(argc, argv);

	if (ret == 0 && lr_eal_help_shown())
		return 0;
	if (ret < 0) {
		fprintf(stderr, "lr-eal-demo: EAL init failed: %s\n",
			lr_strerror(-ret));
		lr_eal_usage(stderr);
		return 1;
	}
	lr_eal_dump(stdout);
	lr_eal_mp_remote_launch(hello, NULL, 1);
	lr_eal_mp_wait_lcore();
	lr_eal_cleanup();
	return 0;
}
