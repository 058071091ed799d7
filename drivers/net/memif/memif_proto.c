/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Checks of memif control messages that need no connection state; the
 * driver (memif.c) and the fuzz target call them on every message a peer
 * sends before looking at any field.
 */
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

/* HELLO m is sane: 0, or -1 with why. */
static int
msg_check_hello(const struct mif_msg *m, char *why, size_t whylen)
{
	if (m->hello.min_version > m->hello.max_version) {
		snprintf(why, whylen,
			 "HELLO: min_version 0x%x > max_version 0x%x",
			 m->hello.min_version, m->hello.max_version);
		return -1;
	}
	if (m->hello.max_log2_ring_size == 0) {
		snprintf(why, whylen, "HELLO: max_log2_ring_size 0");
		return -1;
	}
	return 0;
}

/* ADD_REGION m is sane: 0, or -1 with why. */
static int
msg_check_add_region(const struct mif_msg *m, char *why, size_t whylen)
{
	if (m->add_region.index >= MIF_MAX_REGIONS) {
		snprintf(why, whylen,
			 "ADD_REGION: region index %u (at most %d regions)",
			 m->add_region.index, MIF_MAX_REGIONS);
		return -1;
	}
	if (m->add_region.size == 0 ||
	    m->add_region.size > ((uint64_t)1 << 40)) {
		snprintf(why, whylen, "ADD_REGION: region size %llu",
			 (unsigned long long)m->add_region.size);
		return -1;
	}
	return 0;
}

/* ADD_RING m is sane: 0, or -1 with why. */
static int
msg_check_add_ring(const struct mif_msg *m, char *why, size_t whylen)
{
	if (m->add_ring.flags & ~MIF_ADD_RING_FLAG_C2S) {
		snprintf(why, whylen, "ADD_RING: flags 0x%x",
			 m->add_ring.flags);
		return -1;
	}
	if (m->add_ring.log2_ring_size == 0 ||
	    m->add_ring.log2_ring_size > MIF_MAX_LOG2_RING) {
		snprintf(why, whylen,
			 "ADD_RING: log2 ring size %u (expected 1..%d)",
			 m->add_ring.log2_ring_size, MIF_MAX_LOG2_RING);
		return -1;
	}
	if (m->add_ring.region >= MIF_MAX_REGIONS) {
		snprintf(why, whylen, "ADD_RING: region index %u",
			 m->add_ring.region);
		return -1;
	}
	if (m->add_ring.offset % 8 != 0) {
		snprintf(why, whylen,
			 "ADD_RING: ring offset %u not 8-byte aligned",
			 m->add_ring.offset);
		return -1;
	}
	if (m->add_ring.private_hdr_size != 0) {
		snprintf(why, whylen,
			 "ADD_RING: private header size %u (0 supported)",
			 m->add_ring.private_hdr_size);
		return -1;
	}
	return 0;
}

/* m came with nfds descriptors, and wants one iff want_fd: 0, or -1. */
static int
msg_check_fds(const struct mif_msg *m, int want_fd, int nfds, char *why,
	      size_t whylen)
{
	if (want_fd && nfds != 1) {
		snprintf(why, whylen, "%s: %s file descriptor",
			 lr_memif_msg_type_name_(m->type),
			 nfds == 0 ? "missing" : "more than one");
		return -1;
	}
	if (!want_fd && nfds != 0) {
		snprintf(why, whylen, "%s: unexpected file descriptor",
			 lr_memif_msg_type_name_(m->type));
		return -1;
	}
	return 0;
}

/* A fixed-size string field is terminated within its size, or fills it
 * (the protocol allows either). Nothing to check but we never read past
 * it: callers copy with a bound. */

int
lr_memif_msg_check_(const struct mif_msg *m, size_t len, int nfds, char *why,
		    size_t whylen)
{
	int want_fd = 0;

	if (len > MIF_MSG_SZ) {
		snprintf(why, whylen, "message longer than %d bytes",
			 MIF_MSG_SZ);
		return -1;
	}
	if (len != MIF_MSG_SZ) {
		snprintf(why, whylen, "message of %zu bytes (expected %d)", len,
			 MIF_MSG_SZ);
		return -1;
	}
	if (nfds < 0) {
		snprintf(why, whylen,
			 "%s: file descriptors refused (more than %d, or not "
			 "SCM_RIGHTS)",
			 lr_memif_msg_type_name_(m->type), MIF_FDS_MAX);
		return -1;
	}
	switch (m->type) {
	case MIF_MSG_ACK:
	case MIF_MSG_CONNECT:
	case MIF_MSG_CONNECTED:
	case MIF_MSG_DISCONNECT:
		break;
	case MIF_MSG_HELLO:
		if (msg_check_hello(m, why, whylen) != 0)
			return -1;
		break;
	case MIF_MSG_INIT:
		if (m->init.mode != 0) {
			snprintf(why, whylen,
				 "INIT: mode %u (only ethernet, 0, supported)",
				 m->init.mode);
			return -1;
		}
		break;
	case MIF_MSG_ADD_REGION:
		want_fd = 1;
		if (msg_check_add_region(m, why, whylen) != 0)
			return -1;
		break;
	case MIF_MSG_ADD_RING:
		want_fd = 1;
		if (msg_check_add_ring(m, why, whylen) != 0)
			return -1;
		break;
	default:
		snprintf(why, whylen, "unknown message type %u", m->type);
		return -1;
	}
	return msg_check_fds(m, want_fd, nfds, why, whylen);
}
