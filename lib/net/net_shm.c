/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared-memory regions: memfds we create and peers' files we map
 * (lr_shm.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lr_errno.h"
#include "lr_shm.h"

_Static_assert(LR_SHM_SEAL_SHRINK == F_SEAL_SHRINK, "F_SEAL_SHRINK");
_Static_assert(LR_SHM_SEAL_GROW == F_SEAL_GROW, "F_SEAL_GROW");

#define SEALS (LR_SHM_SEAL_SHRINK | LR_SHM_SEAL_GROW)

/* Return -err and set lr_errno: every failure leaves through here. */
static int
fail(int err)
{
	LR_ASSERT(err > 0);
	lr_errno = err;
	return -err;
}

void
lr_shm_init(struct lr_shm *r)
{
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

/* The default hugepage size from /proc/meminfo, or 0. */
static size_t
huge_page_size(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	size_t kb = 0;

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "Hugepagesize: %zu kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
}

/* A memfd named name of size bytes mapped into r (huge: on hugepages,
 * size a whole number of them, populated now so that a lack of free ones
 * shows here rather than as a SIGBUS later). 0 or -errno, r untouched. */
static int
memfd_map(struct lr_shm *r, const char *name, uint64_t size, int huge)
{
	int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING |
					(huge ? MFD_HUGETLB : 0));
	void *a;
	int err;

	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)size) != 0) {
		err = errno;
		goto close_fd;
	}
	a = mmap(NULL, size, PROT_READ | PROT_WRITE,
		 MAP_SHARED | (huge ? MAP_POPULATE : 0), fd, 0);
	if (a == MAP_FAILED) {
		err = errno;
		goto close_fd;
	}
	r->addr = r->map = a;
	r->size = size;
	r->map_len = size;
	r->fd = fd;
	r->huge = huge;
	return 0;
close_fd:
	close(fd);
	return -err;
}

int
lr_shm_create(struct lr_shm *r, const char *name, uint64_t size, unsigned flags,
	      unsigned seals)
{
	size_t hp = (flags & LR_SHM_HUGETLB) ? huge_page_size() : 0;
	struct lr_shm n;
	int ret = -ENOMEM;

	if (name == NULL || size == 0 || size > SIZE_MAX / 2 ||
	    (flags & ~LR_SHM_HUGETLB) || (seals & ~SEALS))
		return fail(EINVAL);
	lr_shm_init(&n);
	/* no free hugepages (or none at all): ordinary memory */
	if (hp != 0)
		ret = memfd_map(&n, name, LR_ALIGN_CEIL(size, hp), 1);
	if (ret != 0)
		ret = memfd_map(&n, name, size, 0);
	if (ret != 0)
		return fail(-ret);
	if (seals != 0 && fcntl(n.fd, F_ADD_SEALS, (int)seals) != 0) {
		ret = errno;
		lr_shm_free(&n);
		return fail(ret);
	}
	*r = n;
	return 0;
}

/* fd is a regular file of at least need bytes carrying seals; 0 or
 * -ENODEV / -ERANGE / -EPERM / -errno. Its block size in *blk. */
static int
check_file(int fd, uint64_t need, unsigned seals, size_t *blk)
{
	struct stat st;
	int have;

	if (fstat(fd, &st) != 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -ENODEV;
	if (st.st_size < 0 || (uint64_t)st.st_size < need)
		return -ERANGE;
	if (seals != 0) {
		have = fcntl(fd, F_GET_SEALS);
		if (have < 0 || ((unsigned)have & seals) != seals)
			return -EPERM;
	}
	*blk = st.st_blksize > 0 ? (size_t)st.st_blksize : 1;
	return 0;
}

int
lr_shm_attach(struct lr_shm *r, int fd, uint64_t offset, uint64_t size,
	      unsigned seals)
{
	size_t blk = 1, len;
	void *a;
	int ret;

	if (fd < 0 || size == 0 || (seals & ~SEALS) || offset > SIZE_MAX / 2 ||
	    size > SIZE_MAX / 2 - offset)
		return fail(EINVAL);
	ret = check_file(fd, offset + size, seals, &blk);
	if (ret < 0)
		return fail(-ret);
	/* whole pages of the file (a hugetlbfs file maps in hugepages) */
	len = (size_t)(offset + size);
	if (len % blk != 0)
		len += blk - len % blk;
	a = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (a == MAP_FAILED)
		return fail(errno);
	r->map = a;
	r->map_len = len;
	r->addr = (uint8_t *)a + offset;
	r->size = size;
	r->fd = fd;
	r->huge = 0;
	return 0;
}

void
lr_shm_unmap(struct lr_shm *r)
{
	if (r->map != NULL)
		munmap(r->map, r->map_len);
	r->map = r->addr = NULL;
	r->map_len = 0;
	r->size = 0;
}

void
lr_shm_close(struct lr_shm *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}

void
lr_shm_free(struct lr_shm *r)
{
	lr_shm_unmap(r);
	lr_shm_close(r);
	r->huge = 0;
}
