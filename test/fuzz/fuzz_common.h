/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_common.h - what the libFuzzer targets under test/fuzz/ share: the
 * EAL started once per process (ordinary memory, no files), one mbuf pool,
 * and the pool check that turns a leaked or twice-freed mbuf into a crash.
 *
 * Every target defines LLVMFuzzerTestOneInput(); the state it sets up once
 * lives for the whole process and is left as found after each input.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lr_eal.h"
#include "lr_mbuf.h"
#include "lr_mempool.h"

/** Mbufs in the pool of a target: more than any input can hold at once. */
#define FUZZ_POOL_SIZE 2048

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/** Abort (a crash libFuzzer reports with the input) unless c holds. */
#define FUZZ_CHECK(c)                                                          \
	do {                                                                   \
		if (!(c)) {                                                    \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, \
				__LINE__, #c);                                 \
			abort();                                               \
		}                                                              \
	} while (0)

/* Start the EAL on lcore 0 with ordinary memory and make the pool; abort
 * on failure (nothing can be fuzzed without them). */
static inline struct lr_mempool *
fuzz_eal_up(const char *name)
{
	char prefix[64];
	char *argv[] = {(char *)name, "-l",	     "0",    "--no-huge", "-m",
			"96",	      "--in-memory", prefix, NULL};
	struct lr_mempool *mp;

	snprintf(prefix, sizeof(prefix), "--file-prefix=%s%d", name,
		 (int)getpid());
	if (lr_eal_init(8, argv) < 0) {
		fprintf(stderr, "%s: EAL init failed: %s\n", name,
			lr_strerror(lr_errno));
		abort();
	}
	mp = lr_pktmbuf_pool_create(name, FUZZ_POOL_SIZE, 0, 0,
				    LR_MBUF_DEFAULT_BUF_SIZE, LR_SOCKET_ID_ANY);
	if (mp == NULL) {
		fprintf(stderr, "%s: mbuf pool: %s\n", name,
			lr_strerror(lr_errno));
		abort();
	}
	return mp;
}

/* Every mbuf back in the pool and the pool's invariants hold; abort
 * otherwise, so a leak or a double free is reported as a crash with the
 * input that caused it. */
static inline void
fuzz_check_pool(const struct lr_mempool *mp)
{
	unsigned in_use = lr_mempool_in_use_count(mp);

	if (in_use != 0) {
		fprintf(stderr, "fuzz: %u mbufs not back in the pool\n",
			in_use);
		abort();
	}
	if (lr_mempool_validate(mp) != 0) {
		fprintf(stderr, "fuzz: mempool invariants broken\n");
		abort();
	}
}

/* Open fds of the process (compared before and after an input: a target
 * that takes fds from its input must give each back). */
static inline int
fuzz_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	FUZZ_CHECK(d != NULL);
	while (readdir(d) != NULL)
		n++;
	closedir(d);
	return n;
}

#endif /* FUZZ_COMMON_H */
