/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_shm.h - shared-memory regions passed between processes as file
 * descriptors: one we create (a memfd, optionally on hugepages, sealed
 * against shrinking and growing as the peer requires) and one a peer sent
 * us, mapped only after checking that its file holds what the peer claims
 * (fstat) and carries the seals we require (F_GET_SEALS), so a peer cannot
 * make us map past its file's end nor truncate the file under our mapping
 * (a SIGBUS in our process). memif's regions and vhost-user's memory table
 * are built on these; lr_unix.h carries the descriptors.
 *
 * A region is a struct lr_shm the caller owns (embedded where it is used);
 * its fields say where it is mapped and which file backs it, and stay valid
 * until lr_shm_unmap() / lr_shm_close(). The mapping and the descriptor
 * have separate lives: a region may be mapped with its descriptor already
 * closed (nothing more to send), or hold a descriptor it has not mapped
 * yet (received, to be checked and mapped later).
 *
 * Threading contract: a region is used by one thread at a time (its
 * owner's lock); the memory it maps may be read and written by any thread
 * while mapped, with whatever ordering the protocol on top of it uses.
 *
 * Cost: slow path only (connection set-up and tear-down): a few system
 * calls per region; nothing here runs per packet.
 *
 * Error model: functions return 0 or a negative errno and set lr_errno to
 * the positive errno on failure (as lib/eal does); a failed call leaves
 * the region as it was. -EINVAL for arguments out of range (a size of 0,
 * an unknown flag or seal, an offset and size that overflow), -ERANGE for a
 * peer's file shorter than the region it claims, -EPERM for a peer's file
 * without a required seal, -ENODEV for a descriptor that is not a file,
 * else what the system call returned (-ENOMEM, -EMFILE, ...).
 */
#ifndef LR_SHM_H
#define LR_SHM_H

#include <stddef.h>
#include <stdint.h>

#include "lr_common.h"

LR_BEGIN_DECLS

/** lr_shm_create(): hugepages of the default size (the region rounded up
 *  to whole ones) while free ones remain, else ordinary pages. */
#define LR_SHM_HUGETLB 0x1

/** Seal: the file cannot shrink (F_SEAL_SHRINK). */
#define LR_SHM_SEAL_SHRINK 0x2
/** Seal: the file cannot grow (F_SEAL_GROW). */
#define LR_SHM_SEAL_GROW 0x4

/** A shared-memory region and the file behind it. */
struct lr_shm {
	void *addr;	/**< its first byte, NULL when not mapped */
	uint64_t size;	/**< its bytes (created: rounded to its pages) */
	void *map;	/**< the mapping holding it, from the file's start */
	size_t map_len; /**< the mapping's bytes */
	int fd;		/**< the file, -1 when none (or closed) */
	int huge;	/**< 1 when hugepages back it */
};

/** An empty region: nothing mapped, no descriptor. */
void lr_shm_init(struct lr_shm *r);

/**
 * Create region r: a memfd named name (close-on-exec, sealable) of at
 * least size bytes (flags: LR_SHM_HUGETLB), mapped read-write and shared,
 * then sealed with seals (LR_SHM_SEAL_*) for the peer to check. 0 or a
 * negative errno; r's descriptor is for the peer (lr_unix_send()).
 */
int lr_shm_create(struct lr_shm *r, const char *name, uint64_t size,
		  unsigned flags, unsigned seals);

/**
 * Map bytes [offset, offset + size) of a peer's file fd as region r,
 * after checking that fd is a regular file at least offset + size bytes
 * long (fstat) carrying every seal of seals. On success r owns fd; on
 * failure fd stays the caller's and r is as it was.
 */
int lr_shm_attach(struct lr_shm *r, int fd, uint64_t offset, uint64_t size,
		  unsigned seals);

/** Unmap r (its descriptor, if any, stays open). */
void lr_shm_unmap(struct lr_shm *r);

/** Close r's descriptor (its mapping, if any, stays). */
void lr_shm_close(struct lr_shm *r);

/** Unmap r and close its descriptor: r is empty again. */
void lr_shm_free(struct lr_shm *r);

LR_END_DECLS

#endif /* LR_SHM_H */
