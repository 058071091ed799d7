/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The runtime folder of a file prefix and the lock that keeps two live
 * processes off one prefix.
 *
 * Folder: <parent>/<base>/<prefix>, where parent/base is /var/run +
 * linerate for root, $XDG_RUNTIME_DIR + linerate, else /tmp +
 * linerate-<euid>. The parent is trusted (a system folder or the user's
 * own); base and prefix folders are created 0700 and each is opened with
 * O_NOFOLLOW | O_DIRECTORY relative to the one above it and checked with
 * fstat: owned by the effective user, no group or other write. The lock
 * file `config` is opened with O_NOFOLLOW relative to the checked prefix
 * folder and must be a regular file of ours. Anything else is refused with
 * a message naming the path and what is wrong: another local user cannot
 * make us write through his links or hold our lock.
 *
 * Lock: flock(LOCK_EX) on `config`. The holder unlinks `config` and removes
 * the folders (when empty) while still holding the lock, so a process that
 * opened the old file or folder may get its lock afterwards on an inode
 * nobody else will ever look at; after locking, each acquirer therefore
 * checks that the path still names the very folder and file it locked, and
 * starts over if not. Any folder removed under it (ENOENT) also means start
 * over.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "eal_private.h"

#define LOCK_TRIES 1000

static int runtime_fd = -1;   /* config, locked */
static int prefix_dirfd = -1; /* <base>/<prefix> */
static int base_dirfd = -1;   /* <base> */
static char parent_dir[PATH_MAX];
static char base_name[64];
static char prefix_name[64];
static char runtime_dir[PATH_MAX + 160];

const char *
lr_eal_runtime_dir(void)
{
	return runtime_dir;
}

/* Where the runtime folders go, for this user. */
static void
runtime_location(void)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");

	if (geteuid() == 0) {
		snprintf(parent_dir, sizeof(parent_dir), "/var/run");
		snprintf(base_name, sizeof(base_name), "linerate");
	} else if (xdg && *xdg == '/' && strlen(xdg) < PATH_MAX - 128) {
		snprintf(parent_dir, sizeof(parent_dir), "%s", xdg);
		snprintf(base_name, sizeof(base_name), "linerate");
	} else {
		snprintf(parent_dir, sizeof(parent_dir), "/tmp");
		snprintf(base_name, sizeof(base_name), "linerate-%u",
			 (unsigned)geteuid());
	}
	snprintf(prefix_name, sizeof(prefix_name), "%s",
		 lr_eal_cfg_.file_prefix);
	snprintf(runtime_dir, sizeof(runtime_dir), "%s/%s/%s", parent_dir,
		 base_name, prefix_name);
}

/* What is wrong with an object we are about to trust, or NULL. */
static const char *
check_owner_mode(const struct stat *st, mode_t type)
{
	if ((st->st_mode & S_IFMT) != type)
		return type == S_IFDIR ? "not a directory"
				       : "not a regular file";
	if (st->st_uid != geteuid())
		return "owned by another user";
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return "writable by group or others";
	return NULL;
}

/* Create (0700) and open folder name under dirfd, refusing links and
 * folders that are not ours; path is for messages. The fd, -ENOENT when
 * dirfd's folder went away (start over), or another -errno after a
 * message. */
static int
open_checked_dir(int dirfd, const char *name, const char *path)
{
	struct stat st;
	const char *why;
	int fd;

	if (mkdirat(dirfd, name, 0700) != 0 && errno != EEXIST) {
		int e = errno;

		if (e != ENOENT)
			LR_LOG(ERR, EAL,
			       "cannot create runtime folder %s: %s\n", path,
			       strerror(e));
		return -e;
	}
	fd = openat(dirfd, name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		if (e == ENOENT)
			return -ENOENT;
		if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISLNK(st.st_mode)) {
			LR_LOG(ERR, EAL,
			       "runtime folder %s is a symbolic link: refusing "
			       "it (remove it)\n",
			       path);
			return -ELOOP;
		}
		LR_LOG(ERR, EAL, "cannot open runtime folder %s: %s\n", path,
		       strerror(e));
		return -e;
	}
	if (fstat(fd, &st) != 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	why = check_owner_mode(&st, S_IFDIR);
	if (why) {
		LR_LOG(ERR, EAL,
		       "runtime folder %s is %s (uid %u, mode %04o): refusing "
		       "it; remove it or use another --file-prefix\n",
		       path, why, (unsigned)st.st_uid,
		       (unsigned)(st.st_mode & 07777));
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* Does name under dirfd still name the object open as fd? */
static bool
same_object(int dirfd, const char *name, int fd)
{
	struct stat a, b;

	return fstatat(dirfd, name, &a, AT_SYMLINK_NOFOLLOW) == 0 &&
	       fstat(fd, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

static void
close_fds(void)
{
	if (runtime_fd >= 0)
		close(runtime_fd);
	if (prefix_dirfd >= 0)
		close(prefix_dirfd);
	if (base_dirfd >= 0)
		close(base_dirfd);
	runtime_fd = prefix_dirfd = base_dirfd = -1;
}

/* The holder's pid from its lock file, for the "in use" message. */
static void
report_in_use(int fd, const char *path)
{
	char pid[32] = "?";
	ssize_t n = pread(fd, pid, sizeof(pid) - 1, 0);

	if (n > 0)
		pid[n] = '\0';
	pid[strcspn(pid, "\n")] = '\0';
	LR_LOG(ERR, EAL,
	       "file prefix '%s' is in use by another linerate process (pid "
	       "%s, lock %s); use another --file-prefix\n",
	       prefix_name, pid, path);
}

/* One attempt: 0 locked, 1 start over, or -errno after a message. */
static int
try_lock(int parentfd)
{
	char base_path[PATH_MAX + 80], path[sizeof(runtime_dir) + 16];
	const char *why;
	struct stat st;
	int rc;

	snprintf(base_path, sizeof(base_path), "%s/%s", parent_dir, base_name);
	snprintf(path, sizeof(path), "%s/config", runtime_dir);
	rc = open_checked_dir(parentfd, base_name, base_path);
	if (rc < 0)
		return rc == -ENOENT ? 1 : rc;
	base_dirfd = rc;
	rc = open_checked_dir(base_dirfd, prefix_name, runtime_dir);
	if (rc < 0)
		return rc == -ENOENT ? 1 : rc;
	prefix_dirfd = rc;
	runtime_fd = openat(prefix_dirfd, "config",
			    O_CREAT | O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (runtime_fd < 0) {
		rc = errno;
		if (rc == ENOENT)
			return 1;
		if (rc == ELOOP)
			LR_LOG(ERR, EAL,
			       "lock file %s is a symbolic link: refusing it "
			       "(remove it)\n",
			       path);
		else
			LR_LOG(ERR, EAL, "cannot open %s: %s\n", path,
			       strerror(rc));
		return -rc;
	}
	if (fstat(runtime_fd, &st) != 0)
		return -errno;
	why = check_owner_mode(&st, S_IFREG);
	if (why) {
		LR_LOG(ERR, EAL,
		       "lock file %s is %s (uid %u, mode %04o): refusing it\n",
		       path, why, (unsigned)st.st_uid,
		       (unsigned)(st.st_mode & 07777));
		return -EPERM;
	}
	if (flock(runtime_fd, LOCK_EX | LOCK_NB) != 0) {
		rc = errno;
		if (rc != EWOULDBLOCK) {
			LR_LOG(ERR, EAL, "cannot lock %s: %s\n", path,
			       strerror(rc));
			return -rc;
		}
		/* A holder that is leaving unlinks first: only a file still
		 * at its path is really held. */
		if (!same_object(prefix_dirfd, "config", runtime_fd))
			return 1;
		report_in_use(runtime_fd, path);
		return -LR_E_SECONDARY;
	}
	/* Locked: still the file and folders the paths name? */
	if (!same_object(prefix_dirfd, "config", runtime_fd) ||
	    !same_object(base_dirfd, prefix_name, prefix_dirfd) ||
	    !same_object(parentfd, base_name, base_dirfd))
		return 1;
	return 0;
}

int
lr_eal_runtime_lock_(void)
{
	int parentfd, rc = 1;

	if (lr_eal_cfg_.in_memory) {
		runtime_dir[0] = '\0';
		return 0;
	}
	runtime_location();
	parentfd = open(parent_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (parentfd < 0) {
		rc = -errno;
		LR_LOG(ERR, EAL, "cannot open %s for the runtime folder: %s\n",
		       parent_dir, strerror(errno));
		runtime_dir[0] = '\0';
		return rc;
	}
	for (int i = 0; i < LOCK_TRIES && rc == 1; i++) {
		close_fds();
		rc = try_lock(parentfd);
	}
	close(parentfd);
	if (rc == 1) {
		LR_LOG(ERR, EAL,
		       "runtime folder %s keeps changing under us: giving up\n",
		       runtime_dir);
		rc = -EAGAIN;
	}
	if (rc < 0) {
		close_fds();
		runtime_dir[0] = '\0';
		return rc;
	}
	if (ftruncate(runtime_fd, 0) == 0)
		dprintf(runtime_fd, "%d\n", (int)getpid());
	return 0;
}

void
lr_eal_runtime_unlock_(void)
{
	int parentfd;

	if (runtime_fd < 0)
		return;
	/* Still holding the lock: acquirers re-check the paths after
	 * locking (see the top of this file). */
	unlinkat(prefix_dirfd, "config", 0);
	unlinkat(base_dirfd, prefix_name, AT_REMOVEDIR);
	parentfd = open(parent_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (parentfd >= 0) {
		/* Fails with ENOTEMPTY while other prefixes are in use. */
		if (same_object(parentfd, base_name, base_dirfd))
			unlinkat(parentfd, base_name, AT_REMOVEDIR);
		close(parentfd);
	}
	close_fds();
	runtime_dir[0] = '\0';
}
