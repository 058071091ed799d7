/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The --version text of every program (lr_app.h) and the message for an
 * option getopt refused. Linked by programs that have no linerate library
 * too (lr-pktgen-ctl, lr-telemetry): nothing here calls one.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "lr_app.h"
#include "lr_app_build.h" /* LR_APP_VERSION, LR_APP_DPDK (meson) */
#include "lr_app_git.h"	  /* LR_APP_GIT (meson's vcs_tag) */

void
lr_app_version_print(const char *prog, const char *drivers)
{
	printf("%s %s\n"
	       "git: %s\n"
	       "DPDK compatibility: EAL options of DPDK's (a subset, the same "
	       "syntax), devargs in DPDK's form (NAME,KEY=VALUE,...); %s\n"
	       "drivers: %s\n",
	       prog, LR_APP_VERSION, LR_APP_GIT, LR_APP_DPDK, drivers);
	fflush(stdout);
}

int
lr_app_bad_option(const char *prog, int c, char *const *argv)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	char name[64];

	/* An unknown long option leaves optopt 0; a long one missing its
	 * value is the last argument getopt took. */
	if ((c == '?' && optopt == 0) ||
	    (c == ':' && strncmp(arg, "--", 2) == 0))
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(arg, "="),
			 arg);
	else
		snprintf(name, sizeof(name), "-%c", optopt);
	if (c == ':')
		fprintf(stderr, "%s: option '%s' needs a value\n", prog, name);
	else
		fprintf(stderr,
			"%s: unknown option '%s' (%s --help lists "
			"them)\n",
			prog, name, prog);
	return LR_EXIT_USAGE;
}
