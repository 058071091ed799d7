/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * x86-64 primitives: the TSC, the spin-wait hint and a cache line flush.
 * The only x86-specific code in the tree.
 */
#ifndef LR_ARCH_H
#define LR_ARCH_H

#include <stdint.h>

#include "lr_common.h"

LR_BEGIN_DECLS

/** Read the time-stamp counter (about 25-40 cycles; not serializing). */
static inline uint64_t
lr_arch_rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/**
 * Read the TSC in program order: LFENCE before waits for every earlier
 * instruction to complete, LFENCE after keeps later ones from starting
 * before the read (on AMD, LFENCE dispatch-serializes as Linux sets it
 * up). Costs more than lr_arch_rdtsc(); for timing short code.
 */
static inline uint64_t
lr_arch_rdtsc_fenced(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence\n\trdtsc\n\tlfence"
			 : "=a"(lo), "=d"(hi)
			 :
			 : "memory");
	return ((uint64_t)hi << 32) | lo;
}

/** Tell the core we are spinning (PAUSE). */
static inline void
lr_pause(void)
{
	__asm__ volatile("pause");
}

/** Write the cache line holding p back to memory and drop it from every
 *  CPU's cache (CLFLUSH, in every x86-64; ordered with stores to it). */
static inline void
lr_cache_line_flush(const void *p)
{
	__asm__ volatile("clflush %0" : : "m"(*(const volatile char *)p));
}

/** Name of the architecture, for banners. */
#define LR_ARCH_NAME "x86_64"

LR_END_DECLS

#endif /* LR_ARCH_H */
