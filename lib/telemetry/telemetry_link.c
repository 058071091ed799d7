/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The link at DPDK's path to our socket, so that DPDK's clients
 * (dpdk-telemetry.py -f PREFIX, Telegraf's dpdk input) find a linerate
 * process: <base>/dpdk/<prefix>/dpdk_telemetry.v2, <base> being /var/run
 * for root, else $XDG_RUNTIME_DIR, else /tmp (where DPDK's EAL and its
 * client look). A socket there that a live process answers on is never
 * replaced; a stale socket or link is, and so is a link to our own socket
 * path, left by a killed process of this prefix (the prefix lock makes
 * that path ours: connecting through it would reach our own server). The
 * link is removed at stop only if it still points at our socket.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "telemetry_private.h"

/* Whether a process answers on the Unix socket at path. */
bool
lr_telemetry_live_(const char *path)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	bool live;
	int fd;

	if (strlen(path) >= sizeof(sun.sun_path))
		return false;
	strcpy(sun.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	live = connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0;
	close(fd);
	return live;
}

/* Whether path is a symbolic link to target. */
static bool
links_to(const char *path, const char *target)
{
	char now[PATH_MAX];
	ssize_t n = readlink(path, now, sizeof(now) - 1);

	if (n < 0)
		return false;
	now[n] = '\0';
	return strcmp(now, target) == 0;
}

/* mkdir path 0700 unless it exists as a folder; 1 if made, 0, -errno. */
static int
make_dir(const char *path)
{
	struct stat st;

	if (mkdir(path, 0700) == 0)
		return 1;
	if (errno != EEXIST)
		return -errno;
	if (lstat(path, &st) != 0)
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

int
lr_telemetry_link_make_(struct tel_link *l, const char *prefix,
			const char *target)
{
	const char *base = "/var/run";
	char dpdk_dir[PATH_MAX];
	struct stat st;
	int rc;

	memset(l, 0, sizeof(*l));
	if (getuid() != 0) {
		base = getenv("XDG_RUNTIME_DIR");
		if (base == NULL || *base == '\0')
			base = "/tmp";
	}
	if (snprintf(dpdk_dir, sizeof(dpdk_dir), "%s/dpdk", base) >=
		(int)sizeof(dpdk_dir) ||
	    snprintf(l->dir, sizeof(l->dir), "%s/%s", dpdk_dir, prefix) >=
		(int)sizeof(l->dir) ||
	    snprintf(l->path, sizeof(l->path), "%s/dpdk_telemetry.v2",
		     l->dir) >= (int)sizeof(l->path))
		return -ENAMETOOLONG;
	if ((rc = make_dir(dpdk_dir)) < 0 || (rc = make_dir(l->dir)) < 0)
		return rc;
	l->made_dir = rc == 1;
	if (lstat(l->path, &st) == 0) {
		if (!links_to(l->path, target) &&
		    lr_telemetry_live_(l->path)) {
			rc = -EADDRINUSE;
			goto remove_dir;
		}
		if (unlink(l->path) != 0) {
			rc = -errno;
			goto remove_dir;
		}
	}
	if (symlink(target, l->path) != 0) {
		rc = -errno;
		goto remove_dir;
	}
	snprintf(l->target, sizeof(l->target), "%s", target);
	l->made = true;
	return 0;

remove_dir:
	if (l->made_dir)
		rmdir(l->dir);
	l->made_dir = false;
	return rc;
}

void
lr_telemetry_link_remove_(struct tel_link *l)
{
	char now[sizeof(l->target)];
	ssize_t n;

	if (!l->made)
		return;
	n = readlink(l->path, now, sizeof(now) - 1);
	if (n >= 0) {
		now[n] = '\0';
		if (strcmp(now, l->target) == 0)
			unlink(l->path);
	}
	if (l->made_dir)
		rmdir(l->dir); /* fails, as it should, if anything is left */
	l->made = false;
	l->made_dir = false;
}
