/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The stop handler: every terminating signal a program does not use for
 * something else becomes a stop request that the program polls, so that
 * all of them end in the same clean exit (see lr_eal.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include "eal_private.h"

static const int stop_signals[] = {
	SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGUSR1, SIGUSR2,
};

/* Lock-free atomics: safe to touch from a signal handler. */
static atomic_uint stop_count;
static atomic_int stop_sig;
static void (*_Atomic stop_fn)(int sig);

static void
on_stop_signal(int sig)
{
	int saved = errno;
	void (*fn)(int) = atomic_load(&stop_fn);

	atomic_store(&stop_sig, sig);
	atomic_fetch_add(&stop_count, 1);
	if (fn)
		fn(sig);
	errno = saved;
}

int
lr_eal_stop_handler_install(void (*on_stop)(int sig))
{
	struct sigaction sa = { 0 };

	atomic_store(&stop_fn, on_stop);
	sa.sa_handler = on_stop_signal;
	/* Restart interrupted calls: the program polls the request. */
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < LR_DIM(stop_signals); i++)
		sigaddset(&sa.sa_mask, stop_signals[i]);
	for (size_t i = 0; i < LR_DIM(stop_signals); i++) {
		if (sigaction(stop_signals[i], &sa, NULL) != 0) {
			int rc = -errno;

			LR_LOG(ERR, EAL, "sigaction(%d): %s\n", stop_signals[i],
			       strerror(errno));
			return rc;
		}
	}
	return 0;
}

unsigned
lr_eal_stop_requested(void)
{
	return atomic_load(&stop_count);
}

int
lr_eal_stop_signal(void)
{
	return atomic_load(&stop_sig);
}
