/* SPDX-License-Identifier: BSD-3-Clause */
/* lr_eal_init() and lr_eal_cleanup(): the order things are set up in. */
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eal_private.h"

static atomic_int eal_state; /* 0: not initialised, 1: running, 2: in init */
static bool atexit_done;
static bool help_shown;
static bool version_asked;

#define MAX_CLEANUP_FN 16
static void (*cleanup_fns[MAX_CLEANUP_FN])(void);
static unsigned nb_cleanup_fns;

int
lr_eal_initialized(void)
{
	return atomic_load(&eal_state) == 1;
}

int
lr_eal_on_cleanup(void (*fn)(void))
{
	if (nb_cleanup_fns == MAX_CLEANUP_FN)
		return -ENOSPC;
	cleanup_fns[nb_cleanup_fns++] = fn;
	return 0;
}

unsigned
lr_eal_vdev_count(void)
{
	return lr_eal_cfg_.nb_vdev;
}

const char *
lr_eal_vdev(unsigned i)
{
	return i < lr_eal_cfg_.nb_vdev ? lr_eal_cfg_.vdev[i] : NULL;
}

const char *
lr_eal_file_prefix(void)
{
	return lr_eal_cfg_.file_prefix[0] ? lr_eal_cfg_.file_prefix
					  : "linerate";
}

/* A program that exits without lr_eal_cleanup() still leaves no hugepage
 * files or lock behind. */
static void
eal_atexit(void)
{
	if (lr_eal_initialized()) {
		unsigned n = lr_memseg_count();

		for (unsigned i = 0; i < n; i++) {
			const struct lr_memseg *s = lr_memseg_get(i);

			if (s->path[0])
				unlink(s->path);
		}
		lr_eal_telemetry_stop_();
		lr_eal_runtime_unlock_();
	}
}

int
lr_eal_help_shown(void)
{
	return help_shown;
}

int
lr_eal_version_asked(void)
{
	return version_asked;
}

/* -EINTR after a message once a stop signal came (lr_eal.h), else 0. */
static int
stop_check(void)
{
	int sig = lr_eal_stop_signal();

	if (lr_eal_stop_requested() == 0)
		return 0;
	LR_LOG(ERR, EAL, "lr_eal_init: stopped by signal %d (%s)\n", sig,
	       strsignal(sig));
	return -EINTR;
}

/* Test hook, not API: LR_EAL_TEST_RAISE=SIG raises SIG inside
 * lr_eal_init() once the runtime folder, lcores and memory are taken;
 * LR_EAL_TEST_RAISE=SIG,late just before it returns success. */
static void
test_raise(bool late)
{
	const char *s = getenv("LR_EAL_TEST_RAISE");
	char *end;
	long sig;

	if (s == NULL || *s == '\0')
		return;
	sig = strtol(s, &end, 10);
	if (sig > 0 && sig < NSIG && (strcmp(end, ",late") == 0) == late)
		raise((int)sig);
}

int
lr_eal_init(int argc, char **argv)
{
	int expected = 0, consumed, rc;

	if (!atomic_compare_exchange_strong(&eal_state, &expected, 2)) {
		LR_LOG(ERR, EAL, "lr_eal_init: already initialised\n");
		lr_errno = EALREADY;
		return -EALREADY;
	}
	help_shown = false;
	version_asked = false;
	/* Before getopt permutes argv: /eal/params reports it as given. */
	lr_eal_telemetry_save_args_(argc, argv);
	rc = lr_eal_parse_args_(argc, argv);
	/* -h: the usage printed; -V: the program prints its version; nothing
	 * set up either way. */
	if (rc == 0) {
		version_asked = lr_eal_cfg_.version;
		help_shown = !version_asked;
		atomic_store(&eal_state, 0);
		return 0;
	}
	if (rc < 0)
		goto fail;
	consumed = rc - 1;
	if ((rc = stop_check()) < 0)
		goto fail;
	if ((rc = lr_eal_plugins_load_()) < 0)
		goto fail;
	rc = lr_eal_runtime_lock_();
	if (rc < 0 || (rc = stop_check()) < 0)
		goto unlock;
	rc = lr_eal_lcores_start_();
	if (rc < 0)
		goto unlock;
	if ((rc = stop_check()) < 0)
		goto stop_lcores;
	rc = lr_eal_memory_init_();
	if (rc < 0)
		goto stop_lcores;
	test_raise(false);
	lr_get_tsc_hz();
	rc = stop_check();
	if (rc < 0)
		goto free_memory;
	rc = lr_eal_telemetry_start_();
	if (rc < 0)
		goto free_memory;
	if (!atexit_done) {
		atexit(eal_atexit);
		atexit_done = true;
	}
	atomic_store(&eal_state, 1);
	/* The program continues at argv[consumed] with its own name. */
	if (consumed > 0)
		argv[consumed] = argv[0];
	test_raise(true);
	return consumed;

free_memory:
	lr_eal_memory_cleanup_();
stop_lcores:
	lr_eal_lcores_stop_();
unlock:
	lr_eal_runtime_unlock_();
fail:
	atomic_store(&eal_state, 0);
	lr_errno = -rc;
	return rc;
}

int
lr_eal_cleanup(void)
{
	if (!lr_eal_initialized())
		return -EINVAL;
	lr_eal_mp_wait_lcore();
	/* First: no handler may run while the layers below go. */
	lr_eal_telemetry_stop_();
	for (unsigned i = nb_cleanup_fns; i-- > 0;)
		cleanup_fns[i]();
	lr_eal_memory_cleanup_();
	lr_eal_lcores_stop_();
	lr_eal_runtime_unlock_();
	lr_eal_options_reset_();
	atomic_store(&eal_state, 0);
	return 0;
}

void
lr_eal_dump(FILE *f)
{
	unsigned n = lr_memseg_count(), l;

	fprintf(f, "linerate %s on %s, %u lcore%s (main %u), %u NUMA node%s%s\n",
		LR_VERSION, LR_ARCH_NAME, lr_lcore_count(),
		lr_lcore_count() > 1 ? "s" : "", lr_get_main_lcore(),
		lr_numa_node_count(), lr_numa_node_count() > 1 ? "s" : "",
		lr_numa_available() ? "" : " (NUMA unavailable)");
	fprintf(f, "  IOVA as %s, TSC %.3f GHz, file prefix '%s'\n",
		lr_eal_iova_mode() == LR_IOVA_PA ? "PA" : "VA",
		lr_get_tsc_hz() / 1e9, lr_eal_file_prefix());
	LR_LCORE_FOREACH(l) {
		fprintf(f, "  lcore %u: cpu %d, node %d%s\n", l,
			lr_lcore_to_cpu_id(l), lr_lcore_to_socket_id(l),
			l == lr_get_main_lcore() ? " (main)" : "");
	}
	for (unsigned i = 0; i < n; i++) {
		const struct lr_memseg *s = lr_memseg_get(i);

		fprintf(f, "  memseg %u: %zu MB at %p, node %d, %s pages of %zu kB%s%s%s\n",
			i, s->len >> 20, s->addr, s->socket_id,
			(s->flags & LR_MEMSEG_F_HUGE) ? "hugepage" : "ordinary",
			s->page_sz >> 10,
			(s->flags & LR_MEMSEG_F_LOCKED) ? ", locked" : "",
			s->path[0] ? ", file " : "", s->path);
	}
}
