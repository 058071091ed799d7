/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Checks of memif control messages that need no connection state; the
 * driver (memif_control.c) and the fuzz target call them on every message
 * a peer sends before looking at any field.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "memif_proto.h"

static const char *const type_names[MIF_MSG_NB_TYPES] = {
    "NONE",	"ACK",	   "HELLO",	"INIT",	      "ADD_REGION",
    "ADD_RING", "CONNECT", "CONNECTED", "DISCONNECT",
};

const char *
lr_memif_msg_type_name_(unsigned type)
{
	return type < MIF_MSG_NB_TYPES ? type_names[type] : "unknown";
}

/* HELLO m is sane: its version range and ring size. */
static int
msg_check_hello(const struct mif_msg *m, struct mif_why *w)
{
	if (m->hello.min_version > m->hello.max_version)
		return mif_refuse(w, -EINVAL,
				  "HELLO: min_version 0x%x > max_version 0x%x",
				  m->hello.min_version, m->hello.max_version);
	if (m->hello.max_log2_ring_size == 0)
		return mif_refuse(w, -EINVAL, "HELLO: max_log2_ring_size 0");
	return 0;
}

/* ADD_REGION m is sane: its index and size. */
static int
msg_check_add_region(const struct mif_msg *m, struct mif_why *w)
{
	if (m->add_region.index >= MIF_MAX_REGIONS)
		return mif_refuse(w, -EINVAL,
				  "ADD_REGION: region index %u (at most %d "
				  "regions)",
				  m->add_region.index, MIF_MAX_REGIONS);
	if (m->add_region.size == 0 || m->add_region.size > ((uint64_t)1 << 40))
		return mif_refuse(w, -EINVAL, "ADD_REGION: region size %llu",
				  (unsigned long long)m->add_region.size);
	return 0;
}

/* ADD_RING m is sane: flags, ring size, region index, offset alignment,
 * private header size. */
static int
msg_check_add_ring(const struct mif_msg *m, struct mif_why *w)
{
	const struct mif_msg_add_ring *a = &m->add_ring;

	if (a->flags & ~MIF_ADD_RING_FLAG_C2S)
		return mif_refuse(w, -EINVAL, "ADD_RING: flags 0x%x", a->flags);
	if (a->log2_ring_size == 0 || a->log2_ring_size > MIF_MAX_LOG2_RING)
		return mif_refuse(w, -EINVAL,
				  "ADD_RING: log2 ring size %u (expected "
				  "1..%d)",
				  a->log2_ring_size, MIF_MAX_LOG2_RING);
	if (a->region >= MIF_MAX_REGIONS)
		return mif_refuse(w, -EINVAL, "ADD_RING: region index %u",
				  a->region);
	if (a->offset % 8 != 0)
		return mif_refuse(w, -EINVAL,
				  "ADD_RING: ring offset %u not 8-byte aligned",
				  a->offset);
	if (a->private_hdr_size != 0)
		return mif_refuse(w, -EINVAL,
				  "ADD_RING: private header size %u (0 "
				  "supported)",
				  a->private_hdr_size);
	return 0;
}

/* m came with nfds descriptors, and wants one iff want_fd. */
static int
msg_check_fds(const struct mif_msg *m, int want_fd, int nfds, struct mif_why *w)
{
	if (want_fd && nfds != 1)
		return mif_refuse(w, -EBADMSG, "%s: %s file descriptor",
				  lr_memif_msg_type_name_(m->type),
				  nfds == 0 ? "missing" : "more than one");
	if (!want_fd && nfds != 0)
		return mif_refuse(w, -EBADMSG, "%s: unexpected file descriptor",
				  lr_memif_msg_type_name_(m->type));
	return 0;
}

/* The fields of m that need no state, by its type (the fixed-size
 * strings need nothing: terminated within their size or filling it, as
 * the protocol allows; readers copy them with a bound). *want_fd: 1 when
 * its type brings a descriptor. */
static int
msg_check_fields(const struct mif_msg *m, int *want_fd, struct mif_why *w)
{
	*want_fd = 0;
	switch (m->type) {
	case MIF_MSG_ACK:
	case MIF_MSG_CONNECT:
	case MIF_MSG_CONNECTED:
	case MIF_MSG_DISCONNECT:
		return 0;
	case MIF_MSG_HELLO:
		return msg_check_hello(m, w);
	case MIF_MSG_INIT:
		if (m->init.mode != 0)
			return mif_refuse(w, -EINVAL,
					  "INIT: mode %u (only ethernet, 0, "
					  "supported)",
					  m->init.mode);
		return 0;
	case MIF_MSG_ADD_REGION:
		*want_fd = 1;
		return msg_check_add_region(m, w);
	case MIF_MSG_ADD_RING:
		*want_fd = 1;
		return msg_check_add_ring(m, w);
	default:
		return mif_refuse(w, -EBADMSG, "unknown message type %u",
				  m->type);
	}
}

int
lr_memif_msg_check_(const struct mif_msg *m, size_t len, int nfds,
		    struct mif_why *w)
{
	int want_fd, ret;

	if (len > MIF_MSG_SZ)
		return mif_refuse(w, -EMSGSIZE, "message longer than %d bytes",
				  MIF_MSG_SZ);
	if (len != MIF_MSG_SZ)
		return mif_refuse(w, -EMSGSIZE,
				  "message of %zu bytes (expected %d)", len,
				  MIF_MSG_SZ);
	if (nfds < 0)
		return mif_refuse(w, -EBADMSG,
				  "%s: file descriptors refused (more than %d, "
				  "or not SCM_RIGHTS)",
				  lr_memif_msg_type_name_(m->type),
				  MIF_FDS_MAX);
	ret = msg_check_fields(m, &want_fd, w);
	if (ret != 0)
		return ret;
	return msg_check_fds(m, want_fd, nfds, w);
}
