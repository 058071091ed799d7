/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unix-domain control sockets with descriptor passing (lr_unix.h).
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "lr_errno.h"
#include "lr_unix.h"

_Static_assert(LR_UNIX_PATH_MAX == sizeof(((struct sockaddr_un *)0)->sun_path),
	       "LR_UNIX_PATH_MAX is sun_path's size");

/* Return -err and set lr_errno: every failure leaves through here. */
static int
fail(int err)
{
	LR_ASSERT(err > 0);
	lr_errno = err;
	return -err;
}

size_t
lr_unix_path_max(unsigned flags)
{
	/* the NUL, and the abstract name's leading NUL */
	return LR_UNIX_PATH_MAX - 1 - ((flags & LR_UNIX_ABSTRACT) ? 1 : 0);
}

/* Fill *sa for path in the namespace flags name; its length in *len.
 * 0, or -EINVAL (empty) / -ENAMETOOLONG. An abstract address is the NUL
 * and the name, without a trailing NUL (as DPDK's memif makes it). */
static int
make_addr(struct sockaddr_un *sa, socklen_t *len, const char *path,
	  unsigned flags)
{
	size_t n = path != NULL ? strlen(path) : 0;

	if (n == 0)
		return fail(EINVAL);
	if (n > lr_unix_path_max(flags))
		return fail(ENAMETOOLONG);
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (flags & LR_UNIX_ABSTRACT) {
		memcpy(sa->sun_path + 1, path, n);
		*len =
		    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
		return 0;
	}
	memcpy(sa->sun_path, path, n);
	*len = (socklen_t)sizeof(*sa);
	return 0;
}

/* A new socket of the type flags say; the descriptor or -errno. */
static int
new_socket(unsigned flags, int nonblock)
{
	int type = (flags & LR_UNIX_STREAM) ? SOCK_STREAM : SOCK_SEQPACKET;
	int fd = socket(
	    AF_UNIX, type | SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0), 0);

	return fd >= 0 ? fd : fail(errno);
}

/* A new non-blocking socket of the type flags say, for path's address
 * (into *sa, *len); the descriptor or -errno. */
static int
socket_for(const char *path, unsigned flags, struct sockaddr_un *sa,
	   socklen_t *len)
{
	int ret = make_addr(sa, len, path, flags);

	return ret < 0 ? ret : new_socket(flags, 1);
}

/* The socket file at path (address sa, len) is stale: a socket that no
 * server answers on (connect refused), left by a process gone. */
static int
file_is_stale(const char *path, const struct sockaddr_un *sa, socklen_t len,
	      unsigned flags)
{
	int probe = new_socket(flags, 0);
	struct stat st;
	int stale;

	if (probe < 0)
		return 0;
	stale = connect(probe, (const struct sockaddr *)sa, len) != 0 &&
		errno == ECONNREFUSED && lstat(path, &st) == 0 &&
		S_ISSOCK(st.st_mode);
	close(probe);
	return stale;
}

/* Bind fd to sa; with LR_UNIX_REPLACE_STALE a stale socket file at path
 * is removed and the bind tried again. 0 or -errno. */
static int
bind_path(int fd, const char *path, const struct sockaddr_un *sa, socklen_t len,
	  unsigned flags)
{
	int err;

	if (bind(fd, (const struct sockaddr *)sa, len) == 0)
		return 0;
	err = errno;
	if (err == EADDRINUSE && !(flags & LR_UNIX_ABSTRACT) &&
	    (flags & LR_UNIX_REPLACE_STALE) &&
	    file_is_stale(path, sa, len, flags) && unlink(path) == 0 &&
	    bind(fd, (const struct sockaddr *)sa, len) == 0)
		return 0;
	return fail(err);
}

int
lr_unix_listen(const char *path, unsigned flags, int mode, int backlog)
{
	struct sockaddr_un sa;
	socklen_t len;
	int fd, ret, err;

	if (mode < LR_UNIX_MODE_KEEP || mode > 07777 || backlog < 0)
		return fail(EINVAL);
	fd = socket_for(path, flags, &sa, &len);
	if (fd < 0)
		return fd;
	ret = bind_path(fd, path, &sa, len, flags);
	if (ret < 0) {
		close(fd);
		return ret;
	}
	/* Not connectable before listen(): the mode is set in time. */
	if ((!(flags & LR_UNIX_ABSTRACT) && mode != LR_UNIX_MODE_KEEP &&
	     chmod(path, (mode_t)mode) != 0) ||
	    listen(fd, backlog) != 0) {
		err = errno;
		if (!(flags & LR_UNIX_ABSTRACT))
			unlink(path);
		close(fd);
		return fail(err);
	}
	return fd;
}

int
lr_unix_connect(const char *path, unsigned flags)
{
	struct sockaddr_un sa;
	socklen_t len;
	int fd, err;

	fd = socket_for(path, flags, &sa, &len);
	if (fd < 0)
		return fd;
	if (connect(fd, (struct sockaddr *)&sa, len) != 0) {
		err = errno;
		close(fd);
		return fail(err);
	}
	return fd;
}

/* Room for the control message of LR_UNIX_FDS_MAX descriptors, aligned
 * as a cmsghdr. */
union fd_cmsg {
	char buf[CMSG_SPACE(LR_UNIX_FDS_MAX * sizeof(int))];
	struct cmsghdr align;
};

int
lr_unix_send(int sock, const void *buf, size_t len, const int *fds,
	     unsigned nfds)
{
	union fd_cmsg u;
	struct iovec iov = {.iov_base = (void *)buf, .iov_len = len};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	ssize_t r;

	if (nfds > LR_UNIX_FDS_MAX || (nfds > 0 && fds == NULL))
		return fail(EINVAL);
	if (nfds > 0) {
		struct cmsghdr *c;

		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	}
	r = sendmsg(sock, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (r < 0)
		return fail(errno);
	return (size_t)r == len ? 0 : fail(EMSGSIZE);
}

/* Close the descriptors of every SCM_RIGHTS control message of mh. */
static void
close_all(struct msghdr *mh)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c != NULL;
	     c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
		    c->cmsg_len < CMSG_LEN(0))
			continue;
		size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

		for (size_t i = 0; i < n; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(fd));
			close(fd);
		}
	}
}

/* Take the descriptors of mh's control messages into fds[] (at most max);
 * 0, or -EBADMSG / -ETOOMANYREFS with nothing taken (the caller closes
 * them all). */
static int
take_fds(struct msghdr *mh, int *fds, unsigned max, unsigned *nfds)
{
	unsigned n = 0;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c != NULL;
	     c = CMSG_NXTHDR(mh, c)) {
		size_t k;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
		    c->cmsg_len < CMSG_LEN(0) ||
		    (c->cmsg_len - CMSG_LEN(0)) % sizeof(int) != 0)
			return -EBADMSG;
		k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		if (k > max - n)
			return -ETOOMANYREFS;
		memcpy(fds + n, CMSG_DATA(c), k * sizeof(int));
		n += (unsigned)k;
	}
	*nfds = n;
	return 0;
}

ssize_t
lr_unix_recv(int sock, void *buf, size_t len, int *fds, unsigned max_fds,
	     unsigned *nfds)
{
	union fd_cmsg u;
	struct iovec iov = {.iov_base = buf, .iov_len = len};
	struct msghdr mh = {.msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf)};
	ssize_t r;
	int ret;

	*nfds = 0;
	if (max_fds > LR_UNIX_FDS_MAX || (max_fds > 0 && fds == NULL))
		return fail(EINVAL);
	r = recvmsg(sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (r < 0)
		return fail(errno);
	if (mh.msg_flags & MSG_TRUNC)
		ret = -EMSGSIZE;
	else if (mh.msg_flags & MSG_CTRUNC)
		ret = -ETOOMANYREFS;
	else
		ret = take_fds(&mh, fds, max_fds, nfds);
	if (ret == 0 && r == 0 && *nfds != 0)
		ret = -EBADMSG; /* an empty datagram with descriptors */
	if (ret < 0) {
		close_all(&mh);
		*nfds = 0;
		return fail(-ret);
	}
	return r;
}

int
lr_unix_peer_cred(int sock, struct lr_unix_cred *cred)
{
	struct ucred uc;
	socklen_t len = sizeof(uc);

	if (cred == NULL)
		return fail(EINVAL);
	if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &uc, &len) != 0)
		return fail(errno);
	if (len != sizeof(uc))
		return fail(EPROTO);
	cred->pid = (int32_t)uc.pid;
	cred->uid = (uint32_t)uc.uid;
	cred->gid = (uint32_t)uc.gid;
	return 0;
}

void
lr_unix_close_fds(int *fds, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
}
