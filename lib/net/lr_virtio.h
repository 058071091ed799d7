/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_virtio.h - virtio 1.1 virtqueue layouts and feature bits, as the
 * virtio-net devices of vhost-user (net_vhost, the device side) and
 * virtio-user (net_virtio_user, the driver side) share them: the split ring
 * (descriptor table, available ring, used ring), the packed ring
 * (descriptors with AVAIL/USED wrap bits, event suppression areas), the
 * sizes and alignments of their parts, the notification rule of
 * VIRTIO_F_RING_EVENT_IDX (lr_vring_need_event()), and the feature bit
 * numbers of virtio-net, the transport-independent ring features and
 * vhost-user's PROTOCOL_FEATURES bit. Facts from the virtio 1.1
 * specification (OASIS, sections 2.6, 2.7 and 5.1); every field is
 * little-endian (VERSION_1), which is the host order on the targets we
 * build for.
 *
 * Threading contract: none; these are layouts and pure functions. A ring
 * itself is shared by two processes: the driver writes descriptors and the
 * available ring (or packed descriptors' AVAIL), the device writes the used
 * ring (or USED); each side orders its stores before the index or flag
 * that publishes them (release) and reads that index before the entries
 * (acquire).
 *
 * Cost: the helpers are inline arithmetic (a shift and an add); nothing
 * here calls out.
 *
 * Error model: no function here fails: the size helpers take a ring size
 * the caller has checked with lr_vring_num_valid() (a power of two in
 * 1..LR_VIRTQ_MAX_SIZE for split rings, 1..LR_VIRTQ_MAX_SIZE for packed
 * ones); callers that take a size from a peer report a bad one as -EINVAL
 * and set lr_errno (lr_vhost_user.h does).
 */
#ifndef LR_VIRTIO_H
#define LR_VIRTIO_H

#include <stdbool.h>
#include <stdint.h>

#include "lr_common.h"

LR_BEGIN_DECLS

/** Largest virtqueue (descriptors) a device may have. */
#define LR_VIRTQ_MAX_SIZE 32768u

/* --- virtio-net feature bits (5.1.3) ---------------------------------- */
/** Device handles frames with a partial checksum (driver to device). */
#define LR_VIRTIO_NET_F_CSUM 0
/** Driver handles frames with a partial checksum (device to driver). */
#define LR_VIRTIO_NET_F_GUEST_CSUM 1
/** Control channel offload reconfiguration. */
#define LR_VIRTIO_NET_F_CTRL_GUEST_OFFLOADS 2
/** Device reports its MTU. */
#define LR_VIRTIO_NET_F_MTU 3
/** Device has a MAC address in its config space. */
#define LR_VIRTIO_NET_F_MAC 5
/** Driver takes TSO over IPv4 frames. */
#define LR_VIRTIO_NET_F_GUEST_TSO4 7
/** Driver takes TSO over IPv6 frames. */
#define LR_VIRTIO_NET_F_GUEST_TSO6 8
/** Driver takes TSO frames with ECN. */
#define LR_VIRTIO_NET_F_GUEST_ECN 9
/** Driver takes UFO frames. */
#define LR_VIRTIO_NET_F_GUEST_UFO 10
/** Device takes TSO over IPv4 frames. */
#define LR_VIRTIO_NET_F_HOST_TSO4 11
/** Device takes TSO over IPv6 frames. */
#define LR_VIRTIO_NET_F_HOST_TSO6 12
/** Device takes TSO frames with ECN. */
#define LR_VIRTIO_NET_F_HOST_ECN 13
/** Device takes UFO frames. */
#define LR_VIRTIO_NET_F_HOST_UFO 14
/** Driver can merge receive buffers (num_buffers in the header). */
#define LR_VIRTIO_NET_F_MRG_RXBUF 15
/** Config space has a link status field. */
#define LR_VIRTIO_NET_F_STATUS 16
/** There is a control virtqueue. */
#define LR_VIRTIO_NET_F_CTRL_VQ 17
/** Control channel RX mode support. */
#define LR_VIRTIO_NET_F_CTRL_RX 18
/** Control channel VLAN filtering. */
#define LR_VIRTIO_NET_F_CTRL_VLAN 19
/** Driver can send gratuitous packets. */
#define LR_VIRTIO_NET_F_GUEST_ANNOUNCE 21
/** Several receive/transmit queue pairs. */
#define LR_VIRTIO_NET_F_MQ 22
/** MAC address set through the control channel. */
#define LR_VIRTIO_NET_F_CTRL_MAC_ADDR 23

/* --- transport-independent features (6) ------------------------------- */
/** Notify even with interrupts suppressed when the avail ring empties. */
#define LR_VIRTIO_F_NOTIFY_ON_EMPTY 24
/** Header and frame need not be in separate descriptors (legacy). */
#define LR_VIRTIO_F_ANY_LAYOUT 27
/** Descriptors may point at indirect tables. */
#define LR_VIRTIO_F_RING_INDIRECT_DESC 28
/** used_event / avail_event fields rule notifications. */
#define LR_VIRTIO_F_RING_EVENT_IDX 29
/** vhost-user: the backend has protocol features (GET_PROTOCOL_FEATURES).
 *  The same bit is BAD_FEATURE in legacy virtio. */
#define LR_VHOST_USER_F_PROTOCOL_FEATURES 30
/** The device complies with virtio 1.0 or later (little-endian). */
#define LR_VIRTIO_F_VERSION_1 32
/** The device is behind an IOMMU (addresses are IOVAs). */
#define LR_VIRTIO_F_ACCESS_PLATFORM 33
/** The packed ring layout. */
#define LR_VIRTIO_F_RING_PACKED 34
/** Buffers are used in the order they were made available. */
#define LR_VIRTIO_F_IN_ORDER 35
/** Memory accesses are ordered as the platform orders them. */
#define LR_VIRTIO_F_ORDER_PLATFORM 36
/** SR-IOV virtual functions. */
#define LR_VIRTIO_F_SR_IOV 37
/** The driver sends extra data in notifications. */
#define LR_VIRTIO_F_NOTIFICATION_DATA 38

/** The mask of feature bit b. */
#define LR_VIRTIO_BIT(b) (1ull << (b))

/** True when feature bit b is set in features. */
static inline bool
lr_virtio_has(uint64_t features, unsigned b)
{
	return (features >> b) & 1;
}

/* --- virtio-net header (5.1.6) ---------------------------------------- */
/** The header before each frame: lr_net_vnet_hdr (lr_net.h), 10 bytes;
 *  12 with num_buffers when MRG_RXBUF or VERSION_1 is negotiated. */
#define LR_VIRTIO_NET_HDR_LEN 10
/** The header with num_buffers (MRG_RXBUF or VERSION_1). */
#define LR_VIRTIO_NET_HDR_MRG_LEN 12

/* --- split virtqueue (2.6) -------------------------------------------- */
/** Descriptor flag: the buffer continues in desc[next]. */
#define LR_VRING_DESC_F_NEXT 1
/** Descriptor flag: the device writes the buffer (else reads it). */
#define LR_VRING_DESC_F_WRITE 2
/** Descriptor flag: the buffer is a table of descriptors. */
#define LR_VRING_DESC_F_INDIRECT 4

/** Available ring flag: the device need not interrupt the driver. */
#define LR_VRING_AVAIL_F_NO_INTERRUPT 1
/** Used ring flag: the driver need not notify the device. */
#define LR_VRING_USED_F_NO_NOTIFY 1

/** Alignment of the descriptor table (bytes). */
#define LR_VRING_DESC_ALIGN 16
/** Alignment of the available ring (bytes). */
#define LR_VRING_AVAIL_ALIGN 2
/** Alignment of the used ring (bytes). */
#define LR_VRING_USED_ALIGN 4

/** One split-ring descriptor: 16 bytes. */
struct lr_vring_desc {
	uint64_t addr;	/**< guest-physical address of the buffer */
	uint32_t len;	/**< its bytes */
	uint16_t flags; /**< LR_VRING_DESC_F_* */
	uint16_t next;	/**< the next descriptor when F_NEXT */
};

/** The available ring (driver to device): 4 + 2 * num bytes, then
 *  used_event (EVENT_IDX). */
struct lr_vring_avail {
	uint16_t flags;	 /**< LR_VRING_AVAIL_F_* */
	uint16_t idx;	 /**< where the driver puts the next entry (mod 2^16) */
	uint16_t ring[]; /**< heads of descriptor chains; then used_event */
};

/** One used-ring entry: 8 bytes. */
struct lr_vring_used_elem {
	uint32_t id;  /**< head of the chain used */
	uint32_t len; /**< bytes written into the chain */
};

/** The used ring (device to driver): 4 + 8 * num bytes, then
 *  avail_event (EVENT_IDX). */
struct lr_vring_used {
	uint16_t flags; /**< LR_VRING_USED_F_* */
	uint16_t idx;	/**< where the device puts the next entry */
	struct lr_vring_used_elem ring[]; /**< then avail_event */
};

/** True when num is a valid split ring size: a power of two in
 *  1..LR_VIRTQ_MAX_SIZE. */
static inline bool
lr_vring_num_valid(uint32_t num)
{
	return num != 0 && num <= LR_VIRTQ_MAX_SIZE && (num & (num - 1)) == 0;
}

/** Bytes of a split ring's descriptor table of num entries. */
static inline uint64_t
lr_vring_desc_size(uint32_t num)
{
	return 16ull * num;
}

/** Bytes of a split ring's available ring, used_event included. */
static inline uint64_t
lr_vring_avail_size(uint32_t num)
{
	return 6ull + 2ull * num;
}

/** Bytes of a split ring's used ring, avail_event included. */
static inline uint64_t
lr_vring_used_size(uint32_t num)
{
	return 6ull + 8ull * num;
}

/** The used_event field (EVENT_IDX) after the available ring of num. */
static inline uint16_t *
lr_vring_used_event(struct lr_vring_avail *avail, uint32_t num)
{
	return &avail->ring[num];
}

/** The avail_event field (EVENT_IDX) after the used ring of num. */
static inline uint16_t *
lr_vring_avail_event(struct lr_vring_used *used, uint32_t num)
{
	return (uint16_t *)(void *)&used->ring[num];
}

/**
 * The EVENT_IDX rule (2.6.7.2, 2.6.10.2): the other side asked to be
 * notified when the index passes event_idx; having moved the index from
 * old_idx to new_idx, notify when event_idx lies in [old_idx, new_idx)
 * (mod 2^16): true when (new - event - 1) < (new - old), as 16-bit sums.
 */
static inline bool
lr_vring_need_event(uint16_t event_idx, uint16_t new_idx, uint16_t old_idx)
{
	return (uint16_t)(new_idx - event_idx - 1) <
	       (uint16_t)(new_idx - old_idx);
}

/**
 * EVENT_IDX while polling: every this many entries a side moves the other
 * side's event index (avail_event, used_event) to just behind its own.
 * The other side's index, never more than a ring (<= 32768) ahead of
 * ours, then never reaches it; left in place, the index would pass it
 * once every 2^16 entries, and the other side would notify.
 */
#define LR_VRING_EVENT_STEP 4096u

/** Ask for no notification: *event just behind our index idx, which
 *  *mark keeps (for lr_vring_event_follow()). */
static inline void
lr_vring_event_behind(uint16_t *event, uint16_t idx, uint16_t *mark)
{
	__atomic_store_n(event, (uint16_t)(idx - 1), __ATOMIC_RELAXED);
	*mark = idx;
}

/** lr_vring_event_behind() once idx has gone LR_VRING_EVENT_STEP past
 *  *mark: one compare per burst, a store every 4096 entries. */
static inline void
lr_vring_event_follow(uint16_t *event, uint16_t idx, uint16_t *mark)
{
	if (lr_unlikely((uint16_t)(idx - *mark) >= LR_VRING_EVENT_STEP))
		lr_vring_event_behind(event, idx, mark);
}

/* --- packed virtqueue (2.7) ------------------------------------------- */
/** Packed descriptor flag: the driver's wrap counter when it made it
 *  available. */
#define LR_VRING_PACKED_DESC_F_AVAIL (1u << 7)
/** Packed descriptor flag: the device's wrap counter when it used it. */
#define LR_VRING_PACKED_DESC_F_USED (1u << 15)
/** Packed descriptor flag: the chain continues in the next descriptor. */
#define LR_VRING_PACKED_DESC_F_NEXT LR_VRING_DESC_F_NEXT
/** Packed descriptor flag: the device writes the buffer. */
#define LR_VRING_PACKED_DESC_F_WRITE LR_VRING_DESC_F_WRITE
/** Packed descriptor flag: the buffer is a table of descriptors. */
#define LR_VRING_PACKED_DESC_F_INDIRECT LR_VRING_DESC_F_INDIRECT

/** Event suppression flags: notify on every event. */
#define LR_VRING_PACKED_EVENT_FLAG_ENABLE 0
/** Event suppression flags: never notify. */
#define LR_VRING_PACKED_EVENT_FLAG_DISABLE 1
/** Event suppression flags: notify at off_wrap (EVENT_IDX only). */
#define LR_VRING_PACKED_EVENT_FLAG_DESC 2
/** off_wrap: bit 15 is the wrap counter, bits 0-14 the offset. */
#define LR_VRING_PACKED_EVENT_WRAP_SHIFT 15

/** Alignment of a packed ring's descriptors (bytes). */
#define LR_VRING_PACKED_DESC_ALIGN 16
/** Alignment of a packed ring's event suppression areas (bytes). */
#define LR_VRING_PACKED_EVENT_ALIGN 4

/** One packed-ring descriptor: 16 bytes. */
struct lr_vring_packed_desc {
	uint64_t addr;	/**< guest-physical address of the buffer */
	uint32_t len;	/**< its bytes (written back by the device) */
	uint16_t id;	/**< buffer id, returned in the used descriptor */
	uint16_t flags; /**< LR_VRING_PACKED_DESC_F_*, AVAIL, USED */
};

/** An event suppression area (driver's or device's): 4 bytes. */
struct lr_vring_packed_event {
	uint16_t off_wrap; /**< descriptor offset and wrap counter */
	uint16_t flags;	   /**< LR_VRING_PACKED_EVENT_FLAG_* */
};

/** True when num is a valid packed ring size: 1..LR_VIRTQ_MAX_SIZE (no
 *  power of two needed). */
static inline bool
lr_vring_packed_num_valid(uint32_t num)
{
	return num != 0 && num <= LR_VIRTQ_MAX_SIZE;
}

/** Bytes of a packed ring's descriptor array of num entries. */
static inline uint64_t
lr_vring_packed_desc_size(uint32_t num)
{
	return 16ull * num;
}

/** True when packed descriptor flags say "available" to a device whose
 *  wrap counter is wrap: AVAIL equals wrap and USED differs. */
static inline bool
lr_vring_packed_desc_avail(uint16_t flags, bool wrap)
{
	return !!(flags & LR_VRING_PACKED_DESC_F_AVAIL) == wrap &&
	       !!(flags & LR_VRING_PACKED_DESC_F_USED) != wrap;
}

/** True when packed descriptor flags say "used" to a driver whose used
 *  wrap counter is wrap: AVAIL and USED both equal wrap. */
static inline bool
lr_vring_packed_desc_used(uint16_t flags, bool wrap)
{
	return !!(flags & LR_VRING_PACKED_DESC_F_AVAIL) == wrap &&
	       !!(flags & LR_VRING_PACKED_DESC_F_USED) == wrap;
}

LR_STATIC_ASSERT(sizeof(struct lr_vring_desc) == 16, "split descriptor");
LR_STATIC_ASSERT(sizeof(struct lr_vring_used_elem) == 8, "used element");
LR_STATIC_ASSERT(sizeof(struct lr_vring_packed_desc) == 16,
		 "packed descriptor");
LR_STATIC_ASSERT(sizeof(struct lr_vring_packed_event) == 4,
		 "event suppression area");

LR_END_DECLS

#endif /* LR_VIRTIO_H */
