/* SPDX-License-Identifier: BSD-3-Clause */
/* The per-thread error code and its text. */
#include <string.h>

#include "lr_errno.h"

__thread int lr_errno_tls;

static const char *const lr_errors[] = {
	[LR_E_NOHUGE - LR_E_BASE] = "no usable hugepages",
	[LR_E_SECONDARY - LR_E_BASE] =
		"file prefix in use by another linerate process",
	[LR_E_BADPAGE - LR_E_BASE] = "page failed its sanity check",
};

const char *
lr_strerror(int err)
{
	static __thread char buf[64];

	if (err < 0)
		err = -err;
	if (err >= LR_E_BASE && err < LR_E_LAST)
		return lr_errors[err - LR_E_BASE];
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
	/* The GNU strerror_r returns the text (maybe not in buf). */
	return strerror_r(err, buf, sizeof(buf));
#else
	if (strerror_r(err, buf, sizeof(buf)) != 0)
		return "unknown error";
	return buf;
#endif
}
