/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ppc64le primitives: the timebase register, the spin-wait hint and a
 * cache line flush. The only POWER-specific code in the tree.
 */
#ifndef LR_ARCH_H
#define LR_ARCH_H

#include <stdint.h>

#include "lr_common.h"

LR_BEGIN_DECLS

/** Read the timebase (mftb; 512 MHz on POWER8/9). */
static inline uint64_t
lr_arch_rdtsc(void)
{
	uint64_t tb;

	__asm__ volatile("mfspr %0, 268" : "=r"(tb));
	return tb;
}

/**
 * Read the timebase in program order: isync before waits for every
 * earlier instruction to complete, isync after keeps later ones from
 * starting before the read. For timing short code.
 */
static inline uint64_t
lr_arch_rdtsc_fenced(void)
{
	uint64_t tb;

	__asm__ volatile("isync\n\tmfspr %0, 268\n\tisync"
			 : "=r"(tb)
			 :
			 : "memory");
	return tb;
}

/** Lower SMT thread priority while spinning, then restore it. */
static inline void
lr_pause(void)
{
	__asm__ volatile("or 1,1,1\n\tor 2,2,2" ::: "memory");
}

/** Write the cache line holding p back to memory and drop it from every
 *  CPU's cache (dcbf). */
static inline void
lr_cache_line_flush(const void *p)
{
	__asm__ volatile("dcbf 0,%0" : : "r"(p) : "memory");
}

/** Name of the architecture, for banners. */
#define LR_ARCH_NAME "ppc64le"

LR_END_DECLS

#endif /* LR_ARCH_H */
