/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_memory.h - memory segments reserved by the EAL, their NUMA node and
 * their IOVA, and the NUMA topology.
 *
 * A segment is one virtually contiguous, page-aligned region on one NUMA
 * node, backed by hugepages (hugetlbfs files, locked, bound to the node)
 * or by ordinary memory (--no-huge, no free hugepages, or a program that
 * never called lr_eal_init()). Its IOVA is the physical address (IOVA as
 * PA: root, locked memory, /proc/self/pagemap) or the virtual address
 * (IOVA as VA). Segments live until lr_eal_cleanup(); the list only grows.
 *
 * Threading: lr_memseg_reserve() takes a lock; readers of the list need
 * none (segments are published with release stores and never move).
 *
 * Error model: lookups return NULL when nothing matches; lr_memseg_reserve()
 * returns NULL and sets lr_errno (ENOMEM, EINVAL); setters return 0 or a
 * negative errno (-EINVAL, -EBUSY).
 */
#ifndef LR_MEMORY_H
#define LR_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "lr_common.h"

LR_BEGIN_DECLS

/** How IOVAs are formed. */
enum lr_iova_mode {
	LR_IOVA_VA = 1, /**< IOVA is the virtual address */
	LR_IOVA_PA = 2, /**< IOVA is the physical address */
};

#define LR_MEMSEG_F_HUGE 0x1   /**< backed by hugepages */
#define LR_MEMSEG_F_LOCKED 0x2 /**< mlocked: pages stay resident */
#define LR_MEMSEG_F_FILE 0x4   /**< a hugetlbfs file of ours backs it */

/** Largest number of segments a process may hold. */
#define LR_MAX_MEMSEG 256

/** A memory segment. */
struct lr_memseg {
	void *addr;       /**< start, aligned to page_sz */
	size_t len;       /**< bytes, a multiple of page_sz */
	size_t page_sz;   /**< page size backing it (hugepage or system page) */
	int socket_id;    /**< NUMA node, 0 when NUMA is unavailable */
	unsigned flags;   /**< LR_MEMSEG_F_* */
	uint64_t *iova;   /**< IOVA of each page_sz page; NULL when IOVA == VA */
	char path[128];   /**< backing file, or "" */
	int share_fd;     /**< its hugetlbfs file or memfd, open for the
			       process's life: another process may map it
			       (vhost-user memory tables); -1 when none */
};

/** Number of segments reserved so far. */
unsigned lr_memseg_count(void);

/** Segment i (0 <= i < lr_memseg_count()), or NULL. */
const struct lr_memseg *lr_memseg_get(unsigned i);

/** Segment containing addr, or NULL. */
const struct lr_memseg *lr_memseg_find(const void *addr);

/** IOVA of addr inside seg (addr must lie in seg). */
static inline uint64_t
lr_memseg_iova(const struct lr_memseg *seg, const void *addr)
{
	uintptr_t off = (uintptr_t)addr - (uintptr_t)seg->addr;

	if (seg->iova == NULL)
		return (uint64_t)(uintptr_t)addr;
	return seg->iova[off / seg->page_sz] + (off & (seg->page_sz - 1));
}

/** IOVA of any address in a segment; UINT64_MAX if in none. */
uint64_t lr_mem_virt2iova(const void *addr);

/**
 * Reserve a new segment of len bytes (rounded up to the page size) on a
 * node (LR_SOCKET_ID_ANY: no binding) from ordinary memory. Used for the
 * default heap of programs that never call lr_eal_init(). NULL + lr_errno.
 */
const struct lr_memseg *lr_memseg_reserve(size_t len, int socket_id);

/** IOVA mode in force (LR_IOVA_VA before lr_eal_init()). */
enum lr_iova_mode lr_eal_iova_mode(void);

/** Non-zero if any segment is backed by hugepages. */
int lr_eal_has_hugepages(void);

/** Bytes of the default heap reserved on first use without EAL init:
 *  what lr_memory_set_default_heap() set, else LR_HEAP_MB (MiB) from the
 *  environment, else 256 MiB. */
size_t lr_default_heap_size(void);

/**
 * Size the default heap: the ordinary memory the page allocator reserves on
 * its first use (the first pool) in a program that never calls
 * lr_eal_init(). Call it before that first use; it takes precedence over
 * LR_HEAP_MB. The heap never grows afterwards: a pool that does not fit
 * fails with ENOMEM.
 *
 * @param bytes  heap size, at least 2 MiB (LR_DEFAULT_HEAP_MIN) and below
 *               16 TiB; used in whole 2 MiB chunks
 * @return 0; -EINVAL for a size out of range; -EBUSY once memory segments
 *         exist (the default heap was reserved, or the EAL initialised)
 */
int lr_memory_set_default_heap(size_t bytes);

/** Smallest default heap lr_memory_set_default_heap() accepts (2 MiB). */
#define LR_DEFAULT_HEAP_MIN ((size_t)2 << 20)

/** Number of NUMA nodes (highest node id + 1; 1 without NUMA). */
unsigned lr_numa_node_count(void);

/** NUMA distance between two nodes (10 for the same node, as libnuma). */
int lr_numa_distance(int a, int b);

/** Non-zero if libnuma works here (not under qemu-user, for instance). */
int lr_numa_available(void);

LR_END_DECLS

#endif /* LR_MEMORY_H */
