/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pagealloc_test.h - hooks for linerate's own tests; not installed, not
 * part of the API.
 */
#ifndef PAGEALLOC_TEST_H
#define PAGEALLOC_TEST_H

/**
 * Carve the memory into nr fake NUMA nodes (distance 10 + 10 * |a - b|)
 * when the allocator is next built. Call before first use or after
 * lr_eal_cleanup(); 0, -EBUSY once built, -EINVAL.
 */
int lr_pagealloc_test_fake_nodes(unsigned nr);

#endif /* PAGEALLOC_TEST_H */
