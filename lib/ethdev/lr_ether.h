/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_ether.h - Ethernet addresses and the Ethernet header, as ports and
 * programs that rewrite frames (lr-l2fwd) use them.
 *
 * Header only. Copying an address is one 6-byte move; formatting is for
 * slow paths only.
 *
 * Error model: none of these can fail; predicates return 0 or 1, and
 * formatting truncates to the size given, always NUL-terminated.
 */
#ifndef LR_ETHER_H
#define LR_ETHER_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lr_common.h"

LR_BEGIN_DECLS

/** Bytes in an Ethernet address. */
#define LR_ETHER_ADDR_LEN 6
/** Bytes in an Ethernet header without VLAN tag. */
#define LR_ETHER_HDR_LEN 14
/** Smallest frame on the wire without the FCS. */
#define LR_ETHER_MIN_LEN 60
/** Default MTU of a port. */
#define LR_ETHER_MTU 1500
/** Length of "xx:xx:xx:xx:xx:xx" plus the terminating NUL. */
#define LR_ETHER_ADDR_FMT_SIZE 18

/** An Ethernet (MAC) address, network byte order. */
struct lr_ether_addr {
	uint8_t addr_bytes[LR_ETHER_ADDR_LEN];
} __attribute__((aligned(2)));

/** Ethernet header: destination, source, EtherType (network order). */
struct lr_ether_hdr {
	struct lr_ether_addr dst_addr;
	struct lr_ether_addr src_addr;
	uint16_t ether_type;
} __attribute__((aligned(2)));

/** EtherType of IPv4, host order. */
#define LR_ETHER_TYPE_IPV4 0x0800

/** Copy one address to another. */
static inline void
lr_ether_addr_copy(const struct lr_ether_addr *from, struct lr_ether_addr *to)
{
	memcpy(to, from, sizeof(*to));
}

/** Non-zero if two addresses are equal. */
static inline int
lr_ether_addr_equal(const struct lr_ether_addr *a,
		    const struct lr_ether_addr *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

/** Non-zero for a unicast address that is not all zeros. */
static inline int
lr_ether_addr_is_valid_assigned(const struct lr_ether_addr *a)
{
	static const struct lr_ether_addr zero = {{0}};

	return !(a->addr_bytes[0] & 1) && !lr_ether_addr_equal(a, &zero);
}

/** Write "xx:xx:xx:xx:xx:xx" into buf (LR_ETHER_ADDR_FMT_SIZE bytes). */
static inline void
lr_ether_format_addr(char *buf, size_t size, const struct lr_ether_addr *a)
{
	snprintf(buf, size, "%02x:%02x:%02x:%02x:%02x:%02x", a->addr_bytes[0],
		 a->addr_bytes[1], a->addr_bytes[2], a->addr_bytes[3],
		 a->addr_bytes[4], a->addr_bytes[5]);
}

LR_END_DECLS

#endif /* LR_ETHER_H */
