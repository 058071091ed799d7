/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The start of every program that runs the EAL (lr_app.h): lr_eal_init()
 * with -h and -V handled, the exit status of command-line errors.
 */
#include <errno.h>
#include <stdio.h>

#include "lr_app.h"
#include "lr_eal.h"
#include "lr_ethdev.h"
#include "lr_mempool.h"

void
lr_app_version(const char *prog)
{
	char drivers[1024];

	lr_eth_driver_list(drivers, sizeof(drivers));
	lr_app_version_print(prog, drivers);
}

int
lr_app_cmdline_status(int err)
{
	switch (-err) {
	case EINVAL:
	case ENOENT:
	case EEXIST:
		return LR_EXIT_USAGE;
	default:
		return LR_EXIT_FAILURE;
	}
}

int
lr_app_eal_init(const struct lr_app *app, int argc, char **argv, int *status)
{
	int ret;

	/* What was printed before an error comes before it where stdout and
	 * stderr are one stream (2>&1 into a pipe or file). */
	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = lr_eal_init(argc, argv);
	*status = LR_EXIT_OK;
	if (ret == 0 && lr_eal_version_asked()) {
		lr_app_version(app->name);
		return -1;
	}
	if (ret == 0 && lr_eal_help_shown()) {
		if (app->usage != NULL) {
			printf("\n");
			app->usage(stdout, app->name);
		}
		return -1;
	}
	if (ret < 0) {
		*status = lr_app_cmdline_status(ret);
		if (*status == LR_EXIT_USAGE)
			fprintf(stderr,
				"%s: EAL init failed: %s (%s --help lists the "
				"options)\n",
				app->name, lr_strerror(-ret), app->name);
		else
			fprintf(stderr, "%s: EAL init failed: %s\n", app->name,
				lr_strerror(-ret));
		return -1;
	}
	return ret;
}

int
lr_app_start(const struct lr_app *app, int argc, char **argv,
	     int (*parse)(int argc, char **argv, void *opts), void *opts,
	     int *status)
{
	int ret = lr_app_eal_init(app, argc, argv, status);

	if (ret < 0)
		return -1;
	argc -= ret;
	argv += ret;
	argv[0] = (char *)app->name;
	ret = parse(argc, argv, opts);
	if (ret != 0) {
		lr_eal_cleanup();
		*status = ret > 0 ? LR_EXIT_OK : LR_EXIT_USAGE;
		return -1;
	}
	return 0;
}

int
lr_app_pool_phrase(const struct lr_mempool *mp, char *buf, size_t n)
{
	struct lr_mempool_elastic_stats s;

	if (lr_mempool_elastic_stats_get(mp, &s) != 0)
		return -1;
	snprintf(buf, n,
		 "%u mbufs (elastic %u-%u, peak %u), growths %llu, shrinks "
		 "%llu, refused %llu",
		 s.objs, s.min_objs, s.max_objs, s.peak_objs,
		 (unsigned long long)s.growths, (unsigned long long)s.shrinks,
		 (unsigned long long)(s.grow_fail_max + s.grow_fail_nomem));
	return 0;
}

int
lr_app_pool_xstats(const struct lr_mempool *mp)
{
	struct lr_mempool_elastic_stats s;

	if (lr_mempool_elastic_stats_get(mp, &s) != 0)
		return -1;
	printf("mbuf pool '%s' xstats:\n  mbufs: %u\n  mbufs_min: %u\n"
	       "  mbufs_max: %u\n  mbufs_peak: %u\n  blocks: %u\n"
	       "  block_order: %u\n  growths: %llu\n  grown_blocks: %llu\n"
	       "  shrinks: %llu\n  shrunk_blocks: %llu\n"
	       "  refused_at_max: %llu\n  refused_no_memory: %llu\n",
	       mp->name, s.objs, s.min_objs, s.max_objs, s.peak_objs, s.blocks,
	       s.block_order, (unsigned long long)s.growths,
	       (unsigned long long)s.grown_blocks,
	       (unsigned long long)s.shrinks,
	       (unsigned long long)s.shrunk_blocks,
	       (unsigned long long)s.grow_fail_max,
	       (unsigned long long)s.grow_fail_nomem);
	return 0;
}
