/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The --version text of every program (lr_app.h). Linked by programs that
 * have no linerate library too (lr-pktgen-ctl, lr-telemetry): nothing here
 * calls one.
 */
#include <stdio.h>

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
