/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The default heap of a program that never calls lr_eal_init():
 * lr_memory_set_default_heap() sizes it before the first pool, takes
 * precedence over LR_HEAP_MB, refuses bad sizes and a call after the
 * first pool, and a pool that does not fit fails with ENOMEM and a message
 * naming both ways to raise it. The heap is per process and reserved
 * once, so each case runs in a child of its own.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lr_eal.h"
#include "lr_mbuf.h"
#include "lr_mempool.h"
#include "lr_test.h"
#include "lr_test_port.h"

#define MIB ((size_t)1 << 20)

static int
bad_sizes_body(void)
{
	LR_TEST_ASSERT_EQ(lr_memory_set_default_heap(0), -EINVAL);
	LR_TEST_ASSERT_EQ(lr_memory_set_default_heap(LR_DEFAULT_HEAP_MIN - 1),
			  -EINVAL);
	LR_TEST_ASSERT_EQ(lr_memory_set_default_heap((size_t)1 << 44), -EINVAL);
	/* Nothing was set: the environment or 256 MiB still rules. */
	unsetenv("LR_HEAP_MB");
	LR_TEST_ASSERT_EQ(lr_default_heap_size(), 256 * MIB);
	return 0;
}

static int
test_bad_sizes(void)
{
	return lr_test_in_child(bad_sizes_body);
}

/* A 32 MiB heap over LR_HEAP_MB=16: 4096 mbufs of 2 KiB fit, 16384 (about
 * 36 MiB) fail with ENOMEM and the message names the API and LR_HEAP_MB;
 * setting the size after the first pool is refused. */
static int
small_heap_body(void)
{
	struct lr_mempool *fits, *big;
	const char *log;

	setenv("LR_HEAP_MB", "16", 1);
	LR_TEST_ASSERT_EQ(lr_memory_set_default_heap(32 * MIB), 0);
	LR_TEST_ASSERT_EQ(lr_default_heap_size(), 32 * MIB);
	fits = lr_pktmbuf_pool_create("heap_fits", 4096, 0, 0, 2048,
				      LR_SOCKET_ID_ANY);
	LR_TEST_ASSERT(fits != NULL, "4096 mbufs in 32 MiB: %s",
		       lr_strerror(lr_errno));
	lr_test_log_begin();
	big = lr_pktmbuf_pool_create("heap_big", 16384, 0, 0, 2048,
				     LR_SOCKET_ID_ANY);
	int err = lr_errno;
	log = lr_test_log_end();
	LR_TEST_ASSERT(big == NULL && err == ENOMEM, "16384 mbufs in 32 MiB");
	LR_TEST_ASSERT(strstr(log, "lr_memory_set_default_heap()") &&
			   strstr(log, "LR_HEAP_MB") &&
			   strstr(log, "default heap is 32 MiB"),
		       "message: %s", log);
	LR_TEST_ASSERT_EQ(lr_memory_set_default_heap(64 * MIB), -EBUSY);
	LR_TEST_ASSERT_EQ(lr_mempool_validate(fits), 0);
	lr_mempool_free(fits);
	return 0;
}

static int
test_small_heap(void)
{
	return lr_test_in_child(small_heap_body);
}

/* The case: 131071 mbufs of 2 KiB do not fit the 256 MiB default;
 * with the heap sized first they do. */
static int
large_pool_body(void)
{
	struct lr_mempool *mp;

	unsetenv("LR_HEAP_MB");
	LR_TEST_ASSERT_EQ(lr_memory_set_default_heap(512 * MIB), 0);
	mp = lr_pktmbuf_pool_create("heap_large", 131071, 256, 0, 2048,
				    LR_SOCKET_ID_ANY);
	LR_TEST_ASSERT(mp != NULL, "131071 mbufs in 512 MiB: %s",
		       lr_strerror(lr_errno));
	LR_TEST_ASSERT_EQ(lr_mempool_avail_count(mp), 131071u);
	lr_mempool_free(mp);
	return 0;
}

static int
test_large_pool(void)
{
	return lr_test_in_child(large_pool_body);
}

static const struct lr_test_case cases[] = {
    {"bad_sizes", test_bad_sizes},
    {"small_heap", test_small_heap},
    {"large_pool", test_large_pool},
};

LR_TEST_MAIN("heap", cases)
