/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * l2fwd_telemetry.h - lr-l2fwd's /linerate/l2fwd/stats command (see
 * l2fwd_telemetry.c and doc/telemetry.md). Errors: negative errno.
 */
#ifndef L2FWD_TELEMETRY_H
#define L2FWD_TELEMETRY_H

#include <stdint.h>

#include "l2fwd.h"

/** Answer /linerate/l2fwd/stats from fwd's counters, forwarding having
 *  begun at start_tsc; 0 or a negative errno (lr_telemetry_register()). */
int l2fwd_telemetry_register(const struct l2fwd *fwd, uint64_t start_tsc);

/** Forwarding stopped at stop_tsc: the rates stop there. */
void l2fwd_telemetry_stopped(uint64_t stop_tsc);

#endif /* L2FWD_TELEMETRY_H */
