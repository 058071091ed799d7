/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_test_pagealloc.h - memory pressure for the tests of what gives pages
 * back to the page allocator under it (test_elastic.c, test_page_pool.c):
 * a node's pages taken until the allocator runs short, so that it calls
 * its shrinkers on the way down, then given back.
 *
 * Test code only, header-only: lr_test_hog_node() reports what failed on
 * stderr and returns -1 (0 when all is well). One case at a time, on the
 * main thread.
 */
#ifndef LR_TEST_PAGEALLOC_H
#define LR_TEST_PAGEALLOC_H

#include <stdlib.h>

#include "lr_common.h"
#include "lr_pagealloc.h"
#include "lr_test.h"

/** The pages lr_test_hog_node() took: n of them in pages. */
struct lr_test_hog {
	struct lr_page **pages;
	unsigned n;
};

/** Take order-0 pages of node nid only, 64 a call, until the allocator
 *  gives none or cap are taken, the log captured meanwhile (a shrinker's
 *  lines and the allocator's refusals are expected): into h. 0, or -1
 *  after a message (nothing taken). */
static inline int
lr_test_hog_node(struct lr_test_hog *h, int nid, unsigned cap)
{
	h->n = 0;
	h->pages = malloc(cap * sizeof(*h->pages));
	LR_TEST_ASSERT(h->pages != NULL, "malloc of %u page pointers", cap);
	lr_test_log_begin();
	while (h->n < cap) {
		unsigned got = lr_alloc_pages_bulk(nid, 0, LR_ALLOC_THISNODE,
						   LR_MIN(64u, cap - h->n),
						   h->pages + h->n);
		if (got == 0)
			break;
		h->n += got;
	}
	lr_test_log_end();
	return 0;
}

/** Give back the pages of h (lr_test_hog_node()); h->n still says how
 *  many there were. */
static inline void
lr_test_hog_free(struct lr_test_hog *h)
{
	if (h->n != 0)
		lr_free_pages_bulk(h->pages, h->n, 0);
	free(h->pages);
	h->pages = NULL;
}

#endif /* LR_TEST_PAGEALLOC_H */
