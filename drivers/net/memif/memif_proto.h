/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * memif_proto.h - the memif protocol, version 2.0, as spoken by DPDK 22.11's
 * net_memif, VPP and libmemif (written here from the protocol's description;
 * private to drivers/net/memif, never installed).
 *
 * Control messages are 128-byte records on a SOCK_SEQPACKET Unix socket,
 * one per datagram, a 16-bit type first, fields packed, little-endian as
 * the host (both ends share the host). File descriptors (a region's memfd,
 * a ring's eventfd) ride along with SCM_RIGHTS. Each side sends one message
 * for each one it receives (lock step):
 *   server: HELLO                       client: INIT
 *   server: ACK                         client: ADD_REGION (fd)   ...
 *   server: ACK                         client: ADD_RING (fd)     ...
 *   server: ACK                         client: CONNECT
 *   server: CONNECTED
 * DISCONNECT (a code and a reason string) ends the connection either way.
 *
 * The client owns all shared memory: region 0 holds the rings (C2S rings
 * first, then S2C), then the packet buffers. A ring is a header of two cache
 * lines (cookie, flags, head in the first; tail alone in the second) and
 * 2^log2 descriptors {flags, region, length, offset, metadata}.
 */
#ifndef MEMIF_PROTO_H
#define MEMIF_PROTO_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lr_common.h"

#define MIF_COOKIE	  0x3E31F20u
#define MIF_VERSION	  0x0200 /* 2.0: major << 8 | minor */
#define MIF_NAME_SZ	  32
#define MIF_SECRET_SZ	  24
#define MIF_REASON_SZ	  96
#define MIF_MSG_SZ	  128
#define MIF_MAX_LOG2_RING 14
#define MIF_MAX_REGIONS	  16 /* regions we accept from a peer */
#define MIF_FDS_MAX	  4  /* fds a message may bring (one is used) */

enum mif_msg_type {
	MIF_MSG_NONE,
	MIF_MSG_ACK,
	MIF_MSG_HELLO,
	MIF_MSG_INIT,
	MIF_MSG_ADD_REGION,
	MIF_MSG_ADD_RING,
	MIF_MSG_CONNECT,
	MIF_MSG_CONNECTED,
	MIF_MSG_DISCONNECT,
	MIF_MSG_NB_TYPES,
};

#define MIF_ADD_RING_FLAG_C2S  1
#define MIF_DESC_FLAG_NEXT     1
#define MIF_RING_FLAG_MASK_INT 1

struct __attribute__((packed)) mif_msg_hello {
	uint8_t name[MIF_NAME_SZ];
	uint16_t min_version;
	uint16_t max_version;
	uint16_t max_region;   /* highest region index */
	uint16_t max_s2c_ring; /* highest S2C ring index */
	uint16_t max_c2s_ring; /* highest C2S ring index */
	uint8_t max_log2_ring_size;
};

struct __attribute__((packed)) mif_msg_init {
	uint16_t version;
	uint32_t id;
	uint8_t mode; /* 0: ethernet */
	uint8_t secret[MIF_SECRET_SZ];
	uint8_t name[MIF_NAME_SZ];
};

struct __attribute__((packed)) mif_msg_add_region {
	uint16_t index;
	uint64_t size;
};

struct __attribute__((packed)) mif_msg_add_ring {
	uint16_t flags;
	uint16_t index;
	uint16_t region;
	uint32_t offset;
	uint8_t log2_ring_size;
	uint16_t private_hdr_size;
};

struct __attribute__((packed)) mif_msg_connect {
	uint8_t if_name[MIF_NAME_SZ];
};

struct __attribute__((packed)) mif_msg_disconnect {
	uint32_t code;
	uint8_t string[MIF_REASON_SZ];
};

/* One control message: exactly MIF_MSG_SZ bytes on the wire. */
struct __attribute__((packed)) mif_msg {
	uint16_t type;
	union __attribute__((packed)) {
		struct mif_msg_hello hello;
		struct mif_msg_init init;
		struct mif_msg_add_region add_region;
		struct mif_msg_add_ring add_ring;
		struct mif_msg_connect connect;
		struct mif_msg_connect connected;
		struct mif_msg_disconnect disconnect;
		uint8_t raw[MIF_MSG_SZ - 2];
	};
};
_Static_assert(sizeof(struct mif_msg) == MIF_MSG_SZ, "memif message size");

/* A descriptor: 16 bytes. */
struct __attribute__((packed)) mif_desc {
	uint16_t flags;
	uint16_t region;
	uint32_t length;
	uint32_t offset;
	uint32_t metadata;
};
_Static_assert(sizeof(struct mif_desc) == 16, "memif descriptor size");

/* A ring header: head written by the ring's producer of descriptors, tail
 * by its consumer (memif_private.h says who is which), each on its own
 * line. */
struct mif_ring {
	uint32_t cookie;
	uint16_t flags;
	_Atomic uint16_t head;
	uint8_t pad0[LR_CACHE_LINE_SIZE - 8];
	_Atomic uint16_t tail;
	uint8_t pad1[LR_CACHE_LINE_SIZE - 2];
	struct mif_desc desc[];
};
_Static_assert(sizeof(struct mif_ring) == 2 * LR_CACHE_LINE_SIZE,
	       "memif ring header: two cache lines");
_Static_assert(offsetof(struct mif_ring, tail) == LR_CACHE_LINE_SIZE,
	       "memif ring tail on the second cache line");

/* Bytes of a ring of 2^log2 descriptors. */
static inline size_t
mif_ring_bytes(unsigned log2)
{
	return sizeof(struct mif_ring) + sizeof(struct mif_desc) * (1u << log2);
}

/* Name of a message type for logs ("unknown" for others). */
const char *lr_memif_msg_type_name_(unsigned type);

/*
 * Why a connection is refused or ended: the reason its DISCONNECT carries
 * (cut to fit MIF_REASON_SZ) and the port's log line shows in full. It
 * names the message and the field at fault, and the value when it is one
 * ("ADD_RING: log2 ring size 15 (expected 1..14)"); the log line adds the
 * port's name.
 */
struct mif_why {
	char text[192];
	int peer; /* 1: the peer ended it (its DISCONNECT, or it closed) */
};

/* Write the reason fmt says into w (by us) and return err, a negative
 * errno: a check reads `return mif_refuse(w, -EINVAL, "...", ...)`. */
static inline int __attribute__((format(printf, 3, 4)))
mif_refuse(struct mif_why *w, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->text, sizeof(w->text), fmt, ap);
	va_end(ap);
	w->peer = 0;
	return err;
}

/*
 * Check one received control message in isolation: its datagram length
 * (len; above MIF_MSG_SZ: longer than a message), its type, the fds that
 * came with it (nfds; negative: refused by the receive, more than
 * MIF_FDS_MAX or not SCM_RIGHTS) and the fields that need no connection
 * state (sizes and indexes in the protocol's ranges). 0, or -EMSGSIZE
 * (length), -EBADMSG (type, fds) or -EINVAL (a field) with w's reason.
 */
int lr_memif_msg_check_(const struct mif_msg *m, size_t len, int nfds,
			struct mif_why *w);

/* A region as mapped: where and how big. */
struct mif_region_map {
	uint8_t *addr;
	uint64_t size;
};

/*
 * Check that the descriptor {region, offset, length} lies inside one of the
 * nreg mapped regions. 0 or -1.
 */
static inline int
mif_desc_in_bounds(const struct mif_region_map *reg, unsigned nreg,
		   uint16_t region, uint32_t offset, uint32_t length)
{
	if (lr_unlikely(region >= nreg))
		return -1;
	return (uint64_t)offset + length <= reg[region].size ? 0 : -1;
}

#endif /* MEMIF_PROTO_H */
