/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_common.h - macros every linerate module uses: cache-line size and
 * alignment, branch hints, min/max, power-of-two helpers, container_of.
 *
 * Header only; nothing here costs anything at run time.
 */
#ifndef LR_COMMON_H
#define LR_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "lr_build_config.h"

/*
 * Atomics that C and C++ programs both compile: a member declared
 * LR_ATOMIC(uint32_t) is `_Atomic uint32_t` in C and `std::atomic<uint32_t>`
 * in C++ (same size, alignment and lock-free operations with GCC and
 * clang), and the <stdatomic.h> names the inline functions use
 * (atomic_load_explicit, memory_order_acquire, ...) resolve to <atomic>'s.
 */
#ifdef __cplusplus
#include <atomic>
#define LR_ATOMIC(T) std::atomic<T>
using std::atomic_compare_exchange_strong_explicit;
using std::atomic_compare_exchange_weak_explicit;
using std::atomic_exchange_explicit;
using std::atomic_fetch_add_explicit;
using std::atomic_fetch_and_explicit;
using std::atomic_fetch_or_explicit;
using std::atomic_fetch_sub_explicit;
using std::atomic_load_explicit;
using std::atomic_signal_fence;
using std::atomic_store_explicit;
using std::atomic_thread_fence;
using std::memory_order_acq_rel;
using std::memory_order_acquire;
using std::memory_order_relaxed;
using std::memory_order_release;
using std::memory_order_seq_cst;
/** Compile-time assertion with a message (C11 and C++). */
#define LR_STATIC_ASSERT(c, msg) static_assert(c, msg)
#else
#include <stdatomic.h>
#define LR_ATOMIC(T)		 _Atomic T
#define LR_STATIC_ASSERT(c, msg) _Static_assert(c, msg)
#endif

#ifndef LR_CACHE_LINE_SIZE
#error "LR_CACHE_LINE_SIZE must come from the build configuration"
#endif

/*
 * Every installed header puts its declarations between LR_BEGIN_DECLS and
 * LR_END_DECLS (after its #includes): C linkage for C++ programs, and
 * default visibility. The libraries are compiled with -fvisibility=hidden,
 * so what the installed headers declare is exactly what the shared
 * libraries export; a function declared only in a private header
 * (<lib>_private.h) stays inside its library.
 */
#ifdef __cplusplus
#define LR_BEGIN_DECLS \
	extern "C" {   \
	_Pragma("GCC visibility push(default)")
#define LR_END_DECLS _Pragma("GCC visibility pop") }
#else
#define LR_BEGIN_DECLS _Pragma("GCC visibility push(default)")
#define LR_END_DECLS   _Pragma("GCC visibility pop")
#endif

/** Align a type or variable to a cache line. */
#define __lr_cache_aligned __attribute__((aligned(LR_CACHE_LINE_SIZE)))
/** Force inlining of a hot-path helper: in optimised builds only. At -O0
 * (the sanitizer builds, a debugger's build) nothing else is inlined, and
 * forcing these into every caller made GCC's ASan+UBSan compile of one test
 * file take 19 s instead of 0.7 s, for no gain in what runs. */
#ifdef __OPTIMIZE__
#define __lr_always_inline inline __attribute__((always_inline))
#else
#define __lr_always_inline inline
#endif
/** Keep a slow path out of line and out of the hot code's cache lines. */
#define __lr_cold __attribute__((noinline, cold))
/** Mark a symbol unused on purpose. */
#define __lr_unused __attribute__((unused))
/** Warn when the caller drops the result. */
#define __lr_must_check __attribute__((warn_unused_result))

/** Branch hint: the condition is almost always true. */
#define lr_likely(x) __builtin_expect(!!(x), 1)
/** Branch hint: the condition is almost always false. */
#define lr_unlikely(x) __builtin_expect(!!(x), 0)

/** Ask for the cache line at p for writing (a hint; kept even in a loop
 *  that does nothing else, which the compiler drops __builtin_prefetch
 *  from). */
static inline void
lr_prefetch_w(const volatile void *p)
{
#if defined(__x86_64__)
	__asm__ volatile("prefetchw %0" : : "m"(*(const volatile char *)p));
#else
	__builtin_prefetch((const void *)(uintptr_t)p, 1);
#endif
}

/** Copy n bytes, 16 <= n <= 64, inline: two overlapping moves of 32 or
 *  16 bytes (a short frame copied with no call). */
static inline void
lr_copy_16_64(void *dst, const void *src, uint32_t n)
{
	uint8_t *d = (uint8_t *)dst;
	const uint8_t *s = (const uint8_t *)src;

	if (n >= 32) {
		__builtin_memcpy(d, s, 32);
		__builtin_memcpy(d + n - 32, s + n - 32, 32);
	} else {
		__builtin_memcpy(d, s, 16);
		__builtin_memcpy(d + n - 16, s + n - 16, 16);
	}
}

/** Copy n bytes, n >= 16: inline up to 64 (lr_copy_16_64()), memcpy()
 *  beyond (a frame of any length, short ones with no call). */
static inline void
lr_copy_16(void *dst, const void *src, uint32_t n)
{
	if (n <= 64)
		lr_copy_16_64(dst, src, n);
	else
		__builtin_memcpy(dst, src, n);
}

#define LR_MIN(a, b) ((a) < (b) ? (a) : (b))
#define LR_MAX(a, b) ((a) > (b) ? (a) : (b))
#define LR_DIM(a) (sizeof(a) / sizeof((a)[0]))

/** Round v up to a multiple of align (a power of two). */
#define LR_ALIGN_CEIL(v, align) \
	(((v) + ((__typeof__(v))(align) - 1)) & ~((__typeof__(v))(align) - 1))
/** Round v down to a multiple of align (a power of two). */
#define LR_ALIGN_FLOOR(v, align) ((v) & ~((__typeof__(v))(align) - 1))
/** Pointer arithmetic in bytes. */
#define LR_PTR_ADD(p, off) ((void *)((uintptr_t)(p) + (off)))
/** Distance in bytes between two pointers. */
#define LR_PTR_DIFF(a, b) ((uintptr_t)(a) - (uintptr_t)(b))

/** The structure that contains member at address ptr. */
#define lr_container_of(ptr, type, member) \
	((type *)((uintptr_t)(ptr) - offsetof(type, member)))

/** Stringify after expansion. */
#define LR_STR(x) LR_STR_(x)
#define LR_STR_(x) #x

/** Compile-time assertion. */
#define LR_BUILD_BUG_ON(c) LR_STATIC_ASSERT(!(c), #c)

LR_BEGIN_DECLS

/** True if x is a power of two (0 is not). */
static inline int
lr_is_power_of_2(uint64_t x)
{
	return x && !(x & (x - 1));
}

/** Smallest power of two >= x (x <= 2^63); 1 for 0. */
static inline uint64_t
lr_align64pow2(uint64_t x)
{
	return x <= 1 ? 1 : 1ULL << (64 - __builtin_clzll(x - 1));
}

/** Index of the highest set bit of x (x != 0). */
static inline unsigned
lr_log2_u64(uint64_t x)
{
	return 63 - __builtin_clzll(x);
}

/* LR_ASSERT's failure path: logs and aborts. */
__attribute__((noreturn, cold)) void
lr_assert_fail_(const char *expr, const char *file, int line,
		const char *func);

/** Check an internal invariant. Compiled into debug and sanitizer builds
 *  (LR_ENABLE_ASSERT): a false cond prints the expression, file, line and
 *  function and aborts. Elsewhere cond is not evaluated and costs nothing,
 *  so it must have no side effects. */
#if LR_ENABLE_ASSERT
#define LR_ASSERT(cond)                                                        \
	do {                                                                   \
		if (lr_unlikely(!(cond)))                                      \
			lr_assert_fail_(#cond, __FILE__, __LINE__, __func__);  \
	} while (0)
#else
#define LR_ASSERT(cond)                                                        \
	do {                                                                   \
		(void)sizeof(!(cond));                                         \
	} while (0)
#endif

/** Add v to a counter that only the calling thread writes while other
 *  threads may read it (lr_counter_read()): a relaxed load and store,
 *  plain moves on x86-64 and ppc64le (no locked add), yet no torn value
 *  and no data race for the compiler or ThreadSanitizer. */
static __lr_always_inline void
lr_counter_add(uint64_t *c, uint64_t v)
{
	__atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + v,
			 __ATOMIC_RELAXED);
}

/** Read a counter another thread may be adding to (lr_counter_add()). */
static __lr_always_inline uint64_t
lr_counter_read(const uint64_t *c)
{
	return __atomic_load_n(c, __ATOMIC_RELAXED);
}

/** Compiler barrier: no memory access moves across it. */
#define lr_compiler_barrier() __asm__ volatile("" ::: "memory")

LR_END_DECLS

#endif /* LR_COMMON_H */
