/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_unix.h - Unix-domain control sockets that carry file descriptors:
 * listening and connecting on a socket file or an abstract name, one
 * message sent or received with its descriptors (SCM_RIGHTS), and the
 * credentials of the process at the other end (SO_PEERCRED). The control
 * channels of memif (SOCK_SEQPACKET: one message a datagram, a region's
 * memfd or a ring's eventfd with it) and vhost-user (SOCK_STREAM: a header
 * with the memory table's fds, then the payload) are built on these, so a
 * peer's descriptors are taken in, checked and closed in one place.
 *
 * Receiving is the part that must not leak: lr_unix_recv() takes what the
 * kernel hands over (close-on-exec, MSG_CMSG_CLOEXEC), checks every control
 * message (SOL_SOCKET/SCM_RIGHTS and a length that is a whole number of
 * descriptors), and on any failure (a message or its descriptors cut short,
 * MSG_TRUNC or MSG_CTRUNC; more descriptors than the caller takes; a control
 * message of another kind) closes every descriptor that came and returns
 * an error: the caller owns exactly *nfds descriptors after a success and
 * none after a failure.
 *
 * Threading contract: none needed; each call works on the socket and
 * buffers it is given. A socket is received from by one thread at a time
 * (two receivers would split a stream's messages between them).
 *
 * Cost: slow path only (control messages): one system call per message,
 * plus one close() per descriptor refused. Nothing here runs per packet.
 *
 * Error model: functions return 0, a byte count or a descriptor, or a
 * negative errno, and set lr_errno to the positive errno on failure (as
 * lib/eal does): -EINVAL for arguments out of range, -ENAMETOOLONG for a
 * path that does not fit a socket address, -EMSGSIZE for a message longer
 * than the buffer (or sent in part), -ETOOMANYREFS for more descriptors
 * than the caller takes, -EBADMSG for a control message that is not
 * SCM_RIGHTS or whose length is not whole descriptors, else what the
 * system call returned (-EAGAIN, -ECONNREFUSED, -EADDRINUSE, ...).
 */
#ifndef LR_UNIX_H
#define LR_UNIX_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lr_common.h"

LR_BEGIN_DECLS

/** Most descriptors one message carries (vhost-user's memory table: 8). */
#define LR_UNIX_FDS_MAX 16

/** Bytes of a socket address's path, its NUL included (sun_path). */
#define LR_UNIX_PATH_MAX 108

/** The path is a name in the abstract namespace (no file). */
#define LR_UNIX_ABSTRACT 0x1
/** SOCK_STREAM (vhost-user) instead of SOCK_SEQPACKET (memif). */
#define LR_UNIX_STREAM 0x2
/** lr_unix_listen(): a socket file no server answers on is replaced. */
#define LR_UNIX_REPLACE_STALE 0x4

/** lr_unix_listen() mode that leaves a socket file as the umask made it. */
#define LR_UNIX_MODE_KEEP (-1)

/** Who is at the other end of a connected socket (as of connect()). */
struct lr_unix_cred {
	int32_t pid;  /**< the peer's process id */
	uint32_t uid; /**< its effective user id */
	uint32_t gid; /**< its effective group id */
};

/**
 * Longest path (flags 0) or abstract name (LR_UNIX_ABSTRACT) a socket
 * address holds, in characters without the NUL: 107 or 106.
 */
size_t lr_unix_path_max(unsigned flags);

/**
 * A socket (close-on-exec, non-blocking) bound to path (flags: its
 * namespace, its type, and LR_UNIX_REPLACE_STALE) and listening with
 * backlog; a socket file gets the permission bits mode before listen(),
 * so no client connects earlier (LR_UNIX_MODE_KEEP: as created). If
 * anything after bind() fails, the file made is removed. The descriptor,
 * or a negative errno (-EADDRINUSE: another server has the path).
 */
int lr_unix_listen(const char *path, unsigned flags, int mode, int backlog);

/**
 * A socket (close-on-exec, non-blocking) connected to path (flags: its
 * namespace and type). The descriptor, or a negative errno
 * (-ENOENT no such file, -ECONNREFUSED no server, -EAGAIN backlog full).
 */
int lr_unix_connect(const char *path, unsigned flags);

/**
 * Send len bytes of buf as one message with nfds (0..LR_UNIX_FDS_MAX)
 * descriptors of fds[] (duplicated into the peer; still the caller's).
 * Never blocks, never raises SIGPIPE. 0 when all of it went; -EMSGSIZE
 * when a stream socket took part of it (the stream is out of step: end
 * the connection); -EAGAIN, -EPIPE, ... as sendmsg() says.
 */
int lr_unix_send(int sock, const void *buf, size_t len, const int *fds,
		 unsigned nfds);

/**
 * Receive one message into buf (len bytes) and the descriptors that came
 * with it (close-on-exec) into fds[], at most max_fds
 * (0..LR_UNIX_FDS_MAX), their count in *nfds. Never blocks. The bytes
 * received (0: the peer closed the connection, no descriptor kept), or a
 * negative errno with *nfds 0 and every descriptor that came closed:
 * -EMSGSIZE (the message was longer than len), -ETOOMANYREFS (more than
 * max_fds descriptors, or more than could be received), -EBADMSG (a
 * control message of another kind or length), -EAGAIN (nothing there).
 * On -EMSGSIZE, -ETOOMANYREFS and -EBADMSG buf holds the first bytes of
 * the message, for the caller's log.
 */
ssize_t lr_unix_recv(int sock, void *buf, size_t len, int *fds,
		     unsigned max_fds, unsigned *nfds);

/** The credentials of the peer of connected socket sock; 0 or -errno. */
int lr_unix_peer_cred(int sock, struct lr_unix_cred *cred);

/** Close each of the n descriptors of fds[] that is not negative, and set
 *  it to -1. */
void lr_unix_close_fds(int *fds, unsigned n);

LR_END_DECLS

#endif /* LR_UNIX_H */
