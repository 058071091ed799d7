/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_cycles.h - the cycle counter: the TSC on x86-64, the timebase on
 * ppc64. lr_get_tsc_cycles() is inline and costs one instruction plus its
 * latency (about 25-40 cycles on x86); lr_get_tsc_hz() is calibrated once.
 * lr_get_tsc_cycles_fenced() is the read to put around timed code: it is
 * not overlapped with the code before or after it.
 *
 * Error model: none of these can fail; lr_get_tsc_hz() is calibrated once
 * (on first use when the EAL did not) and is never 0.
 */
#ifndef LR_CYCLES_H
#define LR_CYCLES_H

#include <stdint.h>

#include "lr_arch.h"

#include "lr_common.h"

LR_BEGIN_DECLS

/** Current value of the cycle counter. */
static inline uint64_t
lr_get_tsc_cycles(void)
{
	return lr_arch_rdtsc();
}

/**
 * Current value of the cycle counter, read in program order: every
 * instruction before it has completed and none after it has started
 * (lfence;rdtsc;lfence on x86-64, isync;mftb;isync on ppc64). Use it at
 * both ends of a timed region; unlike lr_get_tsc_cycles(), the region's
 * own work cannot overlap the reads, so nothing has to be subtracted.
 */
static inline uint64_t
lr_get_tsc_cycles_fenced(void)
{
	return lr_arch_rdtsc_fenced();
}

/** Counter frequency in Hz, calibrated on first call (then cached). */
uint64_t lr_get_tsc_hz(void);

/** Busy-wait for us microseconds on the cycle counter. */
void lr_delay_us(unsigned us);

/** Monotonic wall-clock time in nanoseconds (clock_gettime). */
uint64_t lr_time_ns(void);

/** Measured cost of one lr_get_tsc_cycles() call, in cycles (cached). */
uint64_t lr_tsc_read_overhead(void);

LR_END_DECLS

#endif /* LR_CYCLES_H */
