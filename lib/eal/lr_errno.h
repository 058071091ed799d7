/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_errno.h - the per-thread error code set by functions that return a
 * pointer (NULL on failure), and its text.
 *
 * Error model of linerate: creators return a pointer or NULL and set
 * lr_errno; burst functions return a count; everything else returns 0 or a
 * negative errno value. lr_errno holds positive errno values or the
 * LR_E* codes below.
 */
#ifndef LR_ERRNO_H
#define LR_ERRNO_H

#include <errno.h>

#include "lr_common.h"

LR_BEGIN_DECLS

extern __thread int lr_errno_tls;

/** The calling thread's last linerate error (an lvalue). */
#define lr_errno (lr_errno_tls)

/** First linerate-specific error code, above all system errno values. */
#define LR_E_BASE 1000
enum {
	LR_E_NOHUGE = LR_E_BASE, /**< no usable hugepages / hugetlbfs mount */
	LR_E_SECONDARY,          /**< another process holds the file prefix */
	LR_E_BADPAGE,            /**< a page failed its sanity check */
	LR_E_LAST,
};

/** Text for a positive errno or LR_E* code; never NULL. */
const char *lr_strerror(int err);

LR_END_DECLS

#endif /* LR_ERRNO_H */
