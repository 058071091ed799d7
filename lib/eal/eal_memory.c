/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory segments: one per NUMA node asked for, from a hugetlbfs file
 * (preallocated with fallocate, so a shortage is an error, not a SIGBUS),
 * an anonymous hugetlb mapping (--in-memory), or ordinary memory.
 * The runtime folder and the prefix lock are in eal_runtime.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mntent.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include "eal_private.h"

#ifdef LR_HAVE_LIBHUGETLBFS
#include <hugetlbfs.h>
#endif
#ifdef LR_HAVE_LIBNUMA
#include <numa.h>
#include <numaif.h>
#endif


#ifndef HUGETLBFS_MAGIC
#define HUGETLBFS_MAGIC 0x958458f6
#endif
#ifndef MFD_HUGETLB
#define MFD_HUGETLB 0x0004U
#endif

#define DEFAULT_MEM (256UL << 20)

static struct lr_memseg memsegs[LR_MAX_MEMSEG];
static _Atomic unsigned nb_memsegs;
static pthread_mutex_t memseg_lock = PTHREAD_MUTEX_INITIALIZER;
static enum lr_iova_mode iova_mode = LR_IOVA_VA;
/* Each node's hugepage file stays open with an exclusive flock() for the
 * life of its segment (DPDK holds its own with a shared one): a DPDK process (or another
 * linerate one) clearing stale files of a hugetlbfs mount removes only the
 * files it can lock exclusively, so it never removes ours ("*map_*" is
 * DPDK's pattern: it matches "<prefix>map_<node>"). lock_fd + 1, so that
 * the zeroed array means "none". */
static int huge_lock_fd1[LR_MAX_NUMA_NODES];

unsigned
lr_memseg_count(void)
{
	return atomic_load_explicit(&nb_memsegs, memory_order_acquire);
}

const struct lr_memseg *
lr_memseg_get(unsigned i)
{
	return i < lr_memseg_count() ? &memsegs[i] : NULL;
}

const struct lr_memseg *
lr_memseg_find(const void *addr)
{
	unsigned n = lr_memseg_count();

	for (unsigned i = 0; i < n; i++) {
		const struct lr_memseg *s = &memsegs[i];

		if ((uintptr_t)addr - (uintptr_t)s->addr < s->len)
			return s;
	}
	return NULL;
}

uint64_t
lr_mem_virt2iova(const void *addr)
{
	const struct lr_memseg *s = lr_memseg_find(addr);

	return s ? lr_memseg_iova(s, addr) : UINT64_MAX;
}

enum lr_iova_mode
lr_eal_iova_mode(void)
{
	return iova_mode;
}

int
lr_eal_has_hugepages(void)
{
	unsigned n = lr_memseg_count();

	for (unsigned i = 0; i < n; i++)
		if (memsegs[i].flags & LR_MEMSEG_F_HUGE)
			return 1;
	return 0;
}

/* Set by lr_memory_set_default_heap(); 0: not set. */
static _Atomic size_t default_heap_bytes;

int
lr_memory_set_default_heap(size_t bytes)
{
	if (bytes < LR_DEFAULT_HEAP_MIN || (bytes >> 20) >= (1UL << 24)) {
		LR_LOG(ERR, EAL,
		       "default heap of %zu bytes: expected 2 MiB up to 16 "
		       "TiB\n",
		       bytes);
		return -EINVAL;
	}
	if (lr_memseg_count() != 0) {
		LR_LOG(ERR, EAL,
		       "default heap: set it before the first pool (memory "
		       "is already reserved)\n");
		return -EBUSY;
	}
	atomic_store_explicit(&default_heap_bytes, bytes, memory_order_relaxed);
	return 0;
}

size_t
lr_default_heap_size(void)
{
	size_t set =
	    atomic_load_explicit(&default_heap_bytes, memory_order_relaxed);
	const char *s = getenv("LR_HEAP_MB");
	unsigned long mb;

	if (set != 0)
		return set;

	if (s && *s && (mb = strtoul(s, NULL, 10)) > 0 && mb < (1UL << 24))
		return (size_t)mb << 20;
	return DEFAULT_MEM;
}

/* Publish a filled-in segment; the caller holds memseg_lock. */
static struct lr_memseg *
memseg_publish(const struct lr_memseg *tmpl)
{
	unsigned n = atomic_load_explicit(&nb_memsegs, memory_order_relaxed);

	if (n == LR_MAX_MEMSEG) {
		LR_LOG(ERR, EAL, "more than %d memory segments\n", LR_MAX_MEMSEG);
		return NULL;
	}
	memsegs[n] = *tmpl;
	atomic_store_explicit(&nb_memsegs, n + 1, memory_order_release);
	return &memsegs[n];
}

/* Bind [addr, addr+len) to node before it is touched; quiet without NUMA. */
static void
bind_to_node(void *addr, size_t len, int node)
{
#ifdef LR_HAVE_LIBNUMA
	if (node >= 0 && lr_numa_available()) {
		unsigned long mask[LR_MAX_NUMA_NODES / 64 + 1] = { 0 };

		mask[node / 64] |= 1UL << (node % 64);
		if (mbind(addr, len, MPOL_BIND, mask, LR_MAX_NUMA_NODES + 1,
			  0) != 0)
			LR_LOG(WARNING, EAL, "node %d: mbind: %s\n", node,
			       strerror(errno));
	}
#else
	(void)addr;
	(void)len;
	(void)node;
#endif
}

/* Physical address of every page of a locked region (IOVA as PA). */
static int
fill_iova_pa(struct lr_memseg *seg)
{
	size_t npages = seg->len / seg->page_sz;
	long sys = sysconf(_SC_PAGESIZE);
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0) {
		LR_LOG(ERR, EAL, "--iova-mode=pa: cannot open /proc/self/pagemap: %s\n",
		       strerror(errno));
		return -errno;
	}
	seg->iova = calloc(npages, sizeof(uint64_t));
	if (seg->iova == NULL) {
		close(fd);
		return -ENOMEM;
	}
	for (size_t i = 0; i < npages; i++) {
		uintptr_t va = (uintptr_t)seg->addr + i * seg->page_sz;
		uint64_t ent;

		if (pread(fd, &ent, sizeof(ent), (off_t)(va / sys) * 8) !=
		    sizeof(ent)) {
			LR_LOG(ERR, EAL, "--iova-mode=pa: reading /proc/self/pagemap: %s\n",
			       strerror(errno));
			goto fail;
		}
		uint64_t pfn = ent & ((1ULL << 55) - 1);

		if (!(ent & (1ULL << 63)) || pfn == 0) {
			LR_LOG(ERR, EAL,
			       "--iova-mode=pa: /proc/self/pagemap hides physical addresses (run as root, or use --iova-mode=va)\n");
			errno = EPERM;
			goto fail;
		}
		seg->iova[i] = pfn * (uint64_t)sys;
	}
	close(fd);
	return 0;
fail:
	close(fd);
	free(seg->iova);
	seg->iova = NULL;
	return -EPERM;
}

/* Ordinary memory, aligned to 2 MiB so pageblocks line up, with
 * transparent hugepages asked for. */
static int
map_ordinary(struct lr_memseg *seg, size_t len, int node, bool lock)
{
	const size_t align = 2UL << 20;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *raw, *addr;

	len = LR_ALIGN_CEIL(len, align);
	raw = mmap(NULL, len + align, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (raw == MAP_FAILED) {
		LR_LOG(ERR, EAL, "cannot map %zu MB of ordinary memory: %s\n",
		       len >> 20, strerror(errno));
		return -ENOMEM;
	}
	addr = (void *)LR_ALIGN_CEIL((uintptr_t)raw, align);
	if (addr != raw)
		munmap(raw, (uintptr_t)addr - (uintptr_t)raw);
	if ((uintptr_t)addr + len < (uintptr_t)raw + len + align)
		munmap(LR_PTR_ADD(addr, len),
		       (uintptr_t)raw + len + align - ((uintptr_t)addr + len));
	madvise(addr, len, MADV_HUGEPAGE);
	bind_to_node(addr, len, node);
	memset(seg, 0, sizeof(*seg));
	seg->share_fd = -1;
	seg->addr = addr;
	seg->len = len;
	seg->page_sz = page;
	seg->socket_id = node < 0 ? 0 : node;
	if (lock) {
		if (mlock(addr, len) != 0) {
			LR_LOG(ERR, EAL, "cannot lock %zu MB: %s (raise RLIMIT_MEMLOCK)\n",
			       len >> 20, strerror(errno));
			munmap(addr, len);
			return -errno;
		}
		seg->flags |= LR_MEMSEG_F_LOCKED;
	}
	return 0;
}

const struct lr_memseg *
lr_memseg_reserve(size_t len, int socket_id)
{
	struct lr_memseg seg, *s;

	if (len == 0) {
		lr_errno = EINVAL;
		return NULL;
	}
	pthread_mutex_lock(&memseg_lock);
	int rc = map_ordinary(&seg, len, socket_id, false);

	if (rc < 0) {
		pthread_mutex_unlock(&memseg_lock);
		lr_errno = -rc;
		return NULL;
	}
	s = memseg_publish(&seg);
	if (s == NULL) {
		munmap(seg.addr, seg.len);
		lr_errno = ENOSPC;
	}
	pthread_mutex_unlock(&memseg_lock);
	return s;
}

/* Find a hugetlbfs mount for the default hugepage size. */
static int
find_huge_dir(char *out, size_t outlen, size_t *hugesz)
{
	struct statfs st;

	if (lr_eal_cfg_.huge_dir[0]) {
		if (statfs(lr_eal_cfg_.huge_dir, &st) != 0) {
			LR_LOG(ERR, EAL, "--huge-dir '%s': %s\n",
			       lr_eal_cfg_.huge_dir, strerror(errno));
			return -LR_E_NOHUGE;
		}
		if ((unsigned long)st.f_type != HUGETLBFS_MAGIC) {
			LR_LOG(ERR, EAL,
			       "--huge-dir '%s': not a hugetlbfs mount (mount "
			       "-t hugetlbfs nodev DIR)\n",
			       lr_eal_cfg_.huge_dir);
			return -LR_E_NOHUGE;
		}
		snprintf(out, outlen, "%s", lr_eal_cfg_.huge_dir);
		*hugesz = (size_t)st.f_bsize;
		return 0;
	}
#ifdef LR_HAVE_LIBHUGETLBFS
	/* libhugetlbfs knows the default size and its writable mount. */
	long sz = gethugepagesize();
	const char *p = sz > 0 ? hugetlbfs_find_path_for_size(sz) : NULL;

	if (p != NULL && access(p, W_OK) == 0) {
		snprintf(out, outlen, "%s", p);
		*hugesz = (size_t)sz;
		return 0;
	}
#endif
	/* Without libhugetlbfs, or when it found nothing: /proc/mounts. */
	FILE *m = setmntent("/proc/mounts", "r");
	struct mntent *e;
	int rc = -LR_E_NOHUGE;

	if (m == NULL)
		return rc;
	while ((e = getmntent(m)) != NULL) {
		if (strcmp(e->mnt_type, "hugetlbfs") != 0)
			continue;
		if (statfs(e->mnt_dir, &st) != 0 || access(e->mnt_dir, W_OK))
			continue;
		snprintf(out, outlen, "%s", e->mnt_dir);
		*hugesz = (size_t)st.f_bsize;
		rc = 0;
		if (*hugesz == (2UL << 20))
			break;
	}
	endmntent(m);
	return rc;
}

static long
read_long(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* Free hugepages of size hugesz on node (or in total without NUMA). */
static long
free_hugepages(size_t hugesz, int node)
{
	char path[256];
	long v = -1;

	if (lr_numa_available()) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/node/node%d/hugepages/hugepages-%zukB/free_hugepages",
			 node, hugesz >> 10);
		v = read_long(path);
	}
	if (v < 0) {
		snprintf(path, sizeof(path),
			 "/sys/kernel/mm/hugepages/hugepages-%zukB/free_hugepages",
			 hugesz >> 10);
		v = read_long(path);
	}
	return v;
}

static int
set_preferred_node(int node)
{
#ifdef LR_HAVE_LIBNUMA
	if (node >= 0 && lr_numa_available()) {
		unsigned long mask[LR_MAX_NUMA_NODES / 64 + 1] = { 0 };

		mask[node / 64] |= 1UL << (node % 64);
		return set_mempolicy(MPOL_BIND, mask, LR_MAX_NUMA_NODES + 1);
	}
#endif
	(void)node;
	return 0;
}

static void
reset_mempolicy(void)
{
#ifdef LR_HAVE_LIBNUMA
	if (lr_numa_available())
		set_mempolicy(MPOL_DEFAULT, NULL, 0);
#endif
}

/* Open (creating) the hugepage file path and lock it exclusively for the
 * life of its segment (huge_lock_fd1), before it is truncated: a file
 * another process holds is the same prefix in another runtime folder
 * (another container, another XDG_RUNTIME_DIR) over the same hugetlbfs
 * mount, and truncating it would take that process's memory away: -EBUSY,
 * said. The fd, or -1 with errno. */
static int
open_huge_file(const char *path, int node)
{
	int fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0600);

	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		LR_LOG(ERR, EAL,
		       "node %d: hugepage file %s is in use by another "
		       "linerate process (the same --file-prefix under another "
		       "runtime folder: another container or user over the "
		       "same hugetlbfs mount); give another --file-prefix\n",
		       node, path);
		close(fd);
		return -EBUSY;
	}
	if (ftruncate(fd, 0) != 0) { /* what a dead process left */
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* One hugepage segment of len bytes on node: a file under dir (or a memfd
 * with --in-memory), preallocated, mapped, locked. */
static int
map_huge(struct lr_memseg *seg, const char *dir, size_t hugesz, size_t len,
	 int node)
{
	char path[PATH_MAX] = "";
	void *addr;
	int fd;

	len = LR_ALIGN_CEIL(len, hugesz);
	if (lr_eal_cfg_.in_memory) {
		char name[96];

		snprintf(name, sizeof(name), "%s_map_%d",
			 lr_eal_cfg_.file_prefix, node);
		fd = memfd_create(name, MFD_HUGETLB | MFD_CLOEXEC);
	} else {
		snprintf(path, sizeof(path), "%s/%smap_%d", dir,
			 lr_eal_cfg_.file_prefix, node);
		fd = open_huge_file(path, node);
		if (fd == -EBUSY)
			return -EBUSY;
	}
	if (fd < 0) {
		LR_LOG(ERR, EAL, "node %d: cannot create hugepage file %s: %s\n",
		       node, path[0] ? path : "(memfd)", strerror(errno));
		return -errno;
	}
	set_preferred_node(node);
	int rc = fallocate(fd, 0, 0, (off_t)len);

	reset_mempolicy();
	if (rc != 0) {
		rc = -errno;
		LR_LOG(WARNING, EAL, "node %d: cannot allocate %zu hugepages of %zu kB: %s\n",
		       node, len / hugesz, hugesz >> 10, strerror(errno));
		goto close_file;
	}
	addr = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		    fd, 0);
	if (addr == MAP_FAILED) {
		rc = -errno;
		LR_LOG(ERR, EAL, "node %d: cannot map hugepage file: %s\n", node,
		       strerror(errno));
		goto close_file;
	}
	if (mlock(addr, len) != 0)
		LR_LOG(WARNING, EAL, "node %d: mlock: %s\n", node,
		       strerror(errno));
	else
		seg->flags |= LR_MEMSEG_F_LOCKED;
	/* Kept open: the lock (a file) and the descriptor another process
	 * maps to share this memory (share_fd). */
	if (path[0] && huge_lock_fd1[node] == 0)
		huge_lock_fd1[node] = fd + 1;
	seg->share_fd = fd;
	seg->addr = addr;
	seg->len = len;
	seg->page_sz = hugesz;
	seg->socket_id = node;
	seg->flags |= LR_MEMSEG_F_HUGE | (path[0] ? LR_MEMSEG_F_FILE : 0);
	snprintf(seg->path, sizeof(seg->path), "%s", path);
	return 0;
close_file:
	close(fd);
	if (path[0])
		unlink(path);
	return rc;
}

/* Is name a hugepage file of this prefix: exactly <prefix>map_<node>? Not
 * one of a longer prefix that starts with ours ("rl" vs "rlmap_victim":
 * its files are "rlmap_victimmap_0"). */
static bool
is_own_hugepage_file(const char *name)
{
	size_t n = strlen(lr_eal_cfg_.file_prefix);
	const char *p;

	if (strncmp(name, lr_eal_cfg_.file_prefix, n) != 0 ||
	    strncmp(name + n, "map_", 4) != 0)
		return false;
	p = name + n + 4;
	if (*p == '\0')
		return false;
	for (; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

/* Remove hugepage files of this prefix left by a dead process. We hold
 * the prefix lock, so any such file is stale. */
static void
clean_stale_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (!is_own_hugepage_file(e->d_name))
			continue;
		char path[PATH_MAX];
		int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_CLOEXEC);

		/* Still locked: some process maps it (a prefix is ours alone,
		 * but a file is removed only when nobody holds it). */
		if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		int rc = unlinkat(dirfd(d), e->d_name, 0);

		close(fd);
		if (rc == 0)
			LR_LOG(INFO, EAL, "removed stale hugepage file %s\n",
			       path);
	}
	closedir(d);
}

/* Bytes asked for on each node. */
static void
mem_per_node(size_t *want)
{
	unsigned nodes = lr_numa_node_count();

	memset(want, 0, sizeof(size_t) * LR_MAX_NUMA_NODES);
	if (lr_eal_cfg_.numa_mem_set) {
		memcpy(want, lr_eal_cfg_.numa_mem,
		       sizeof(lr_eal_cfg_.numa_mem));
		return;
	}
	size_t total =
	    lr_eal_cfg_.mem_total ? lr_eal_cfg_.mem_total : DEFAULT_MEM;
	int node = lr_lcore_to_socket_id(lr_get_main_lcore());

	(void)nodes;
	want[node] = total;
}

/* The option that set the amount of memory, for messages. */
static void
mem_option(char *buf, size_t len)
{
	if (lr_eal_cfg_.numa_mem_set)
		snprintf(buf, len, "--numa-mem");
	else if (lr_eal_cfg_.mem_total)
		snprintf(buf, len, "-m %zu", lr_eal_cfg_.mem_total >> 20);
	else
		snprintf(buf, len, "-m (default %lu)", DEFAULT_MEM >> 20);
}

/* Value of "key: N kB" in /proc/meminfo, in bytes; SIZE_MAX if unknown. */
static size_t
meminfo_bytes(const char *key)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	size_t v = SIZE_MAX, klen = strlen(key);
	unsigned long long kb;

	if (f == NULL)
		return v;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, klen) == 0 && line[klen] == ':' &&
		    sscanf(line + klen + 1, "%llu", &kb) == 1) {
			v = (size_t)kb << 10;
			break;
		}
	}
	fclose(f);
	return v;
}

/* Room left under this process's cgroup (v2) memory.max; SIZE_MAX if
 * unlimited or unknown. */
static size_t
cgroup_room(void)
{
	FILE *f = fopen("/proc/self/cgroup", "r");
	char line[PATH_MAX], path[PATH_MAX + 64];
	unsigned long long max, cur = 0;
	size_t room = SIZE_MAX;

	if (f == NULL)
		return room;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3) != 0)
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(path, sizeof(path), "/sys/fs/cgroup%s/memory.max",
			 line + 3);
		FILE *m = fopen(path, "r");

		if (m == NULL)
			break;
		if (fscanf(m, "%llu", &max) == 1) {
			snprintf(path, sizeof(path),
				 "/sys/fs/cgroup%s/memory.current", line + 3);
			FILE *c = fopen(path, "r");

			if (c) {
				if (fscanf(c, "%llu", &cur) != 1)
					cur = 0;
				fclose(c);
			}
			room = max > cur ? (size_t)(max - cur) : 0;
		}
		fclose(m);
		break;
	}
	fclose(f);
	return room;
}

/* Ordinary memory len bytes on node n, if the machine can back it with
 * what is taken so far (*ordinary): MemAvailable, and the room under the
 * cgroup's memory.max. Without this check an -m far beyond the machine
 * was mapped (MAP_NORESERVE) and the page allocator's descriptors for all
 * of it grew until the OOM killer came. */
static int
map_node_ordinary(struct lr_memseg *seg, unsigned n, size_t want, size_t hugesz,
		  long nfree, size_t *ordinary)
{
	size_t len = LR_ALIGN_CEIL(want, 2UL << 20);
	size_t avail = meminfo_bytes("MemAvailable"), room = cgroup_room();
	char opt[48], huge[96] = "";
	int rc;

	if (avail == SIZE_MAX || avail > room)
		avail = room;
	if (*ordinary + len > avail) {
		mem_option(opt, sizeof(opt));
		if (hugesz && nfree >= 0)
			snprintf(huge, sizeof(huge),
				 "; %ld free hugepages of %zu kB", nfree,
				 hugesz >> 10);
		LR_LOG(ERR, EAL,
		       "%s: node %u needs %zu MB of ordinary memory, but only "
		       "%zu MB is available (MemAvailable in "
		       "/proc/meminfo%s)%s; give a smaller -m\n",
		       opt, n, (*ordinary + len) >> 20, avail >> 20,
		       room != SIZE_MAX ? ", cgroup memory.max" : "", huge);
		return -ENOMEM;
	}
	rc = map_ordinary(seg, want, (int)n, iova_mode == LR_IOVA_PA);
	if (rc < 0)
		return rc;
	*ordinary += seg->len;
	if (iova_mode == LR_IOVA_PA) {
		/* Fault every page in so pagemap knows it. */
		memset(seg->addr, 0, seg->len);
	}
	return 0;
}

/* Node n's segment: hugepages (hugesz != 0) when there are enough free,
 * else ordinary memory; with --huge-dir a shortage is an error, never a
 * fallback. */
static int
map_node(struct lr_memseg *seg, unsigned n, size_t want, const char *dir,
	 size_t hugesz, size_t *ordinary)
{
	const char *hd = lr_eal_cfg_.huge_dir;
	char opt[48];
	long nfree = -1;
	int rc;

	if (hugesz) {
		size_t need = LR_ALIGN_CEIL(want, hugesz) / hugesz;

		mem_option(opt, sizeof(opt));
		nfree = free_hugepages(hugesz, (int)n);
		if (nfree >= 0 && (size_t)nfree < need) {
			if (hd[0]) {
				LR_LOG(ERR, EAL,
				       "--huge-dir '%s': node %u has %ld free "
				       "hugepages of %zu kB, %s needs %zu\n",
				       hd, n, nfree, hugesz >> 10, opt, need);
				return -ENOMEM;
			}
			LR_LOG(NOTICE, EAL,
			       "node %u: %ld free hugepages of %zu kB, %zu "
			       "needed: using ordinary memory\n",
			       n, nfree, hugesz >> 10, need);
		} else if ((rc = map_huge(seg, dir, hugesz, want, (int)n)) ==
			   0) {
			return 0;
		} else if (rc == -EBUSY) {
			return rc; /* a clash of prefixes: said, never hidden */
		} else if (hd[0]) {
			LR_LOG(ERR, EAL,
			       "--huge-dir '%s': node %u: cannot get %zu "
			       "hugepages of %zu kB for %s\n",
			       hd, n, need, hugesz >> 10, opt);
			return -ENOMEM;
		} else {
			LR_LOG(NOTICE, EAL,
			       "node %u: hugepages unavailable: using ordinary "
			       "memory\n",
			       n);
		}
	}
	return map_node_ordinary(seg, n, want, hugesz, nfree, ordinary);
}

int
lr_eal_memory_init_(void)
{
	size_t want[LR_MAX_NUMA_NODES];
	char dir[PATH_MAX] = "";
	size_t hugesz = 0, ordinary = 0;
	bool huge = !lr_eal_cfg_.no_huge;
	int rc;

	iova_mode = lr_eal_cfg_.iova_mode;
	mem_per_node(want);
	for (unsigned n = 0; n < LR_MAX_NUMA_NODES; n++) {
		if (want[n] && n >= lr_numa_node_count()) {
			LR_LOG(ERR, EAL, "--numa-mem: node %u does not exist (%u node%s)\n",
			       n, lr_numa_node_count(),
			       lr_numa_node_count() > 1 ? "s" : "");
			return -EINVAL;
		}
	}
	if (huge) {
		rc = find_huge_dir(dir, sizeof(dir), &hugesz);
		if (rc < 0 && lr_eal_cfg_.huge_dir[0])
			return rc; /* asked for explicitly: an error */
		if (rc < 0) {
			LR_LOG(NOTICE, EAL,
			       "no hugetlbfs mount found: using ordinary memory\n");
			huge = false;
		} else if (!lr_eal_cfg_.in_memory) {
			clean_stale_files(dir);
		}
	}
	if (!huge)
		hugesz = 0;
	pthread_mutex_lock(&memseg_lock);
	for (unsigned n = 0; n < LR_MAX_NUMA_NODES; n++) {
		struct lr_memseg seg;

		if (want[n] == 0)
			continue;
		memset(&seg, 0, sizeof(seg));
		rc = map_node(&seg, n, want[n], dir, hugesz, &ordinary);
		if (rc < 0)
			goto fail;
		if (iova_mode == LR_IOVA_PA) {
			rc = fill_iova_pa(&seg);
			if (rc < 0) {
				munmap(seg.addr, seg.len);
				if (seg.path[0])
					unlink(seg.path);
				if (seg.share_fd >= 0 &&
				    huge_lock_fd1[n] != seg.share_fd + 1)
					close(seg.share_fd);
				goto fail;
			}
		}
		if (memseg_publish(&seg) == NULL) {
			rc = -ENOSPC;
			goto fail;
		}
	}
	pthread_mutex_unlock(&memseg_lock);
	return 0;
fail:
	pthread_mutex_unlock(&memseg_lock);
	lr_eal_memory_cleanup_();
	return rc;
}

void
lr_eal_memory_cleanup_(void)
{
	pthread_mutex_lock(&memseg_lock);
	unsigned n = atomic_load_explicit(&nb_memsegs, memory_order_relaxed);

	for (unsigned i = 0; i < n; i++) {
		struct lr_memseg *s = &memsegs[i];

		munmap(s->addr, s->len);
		if (s->path[0])
			unlink(s->path);
		if (s->share_fd >= 0) {
			for (unsigned k = 0; k < LR_MAX_NUMA_NODES; k++)
				if (huge_lock_fd1[k] == s->share_fd + 1)
					huge_lock_fd1[k] = 0;
			close(s->share_fd);
		}
		free(s->iova);
		memset(s, 0, sizeof(*s));
	}
	for (unsigned n = 0; n < LR_MAX_NUMA_NODES; n++)
		if (huge_lock_fd1[n] != 0) {
			close(huge_lock_fd1[n] - 1);
			huge_lock_fd1[n] = 0;
		}
	atomic_store_explicit(&nb_memsegs, 0, memory_order_release);
	iova_mode = LR_IOVA_VA;
	pthread_mutex_unlock(&memseg_lock);
}
