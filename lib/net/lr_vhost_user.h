/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_vhost_user.h - the vhost-user protocol as DPDK 22.11's lib/vhost and
 * virtio-user and QEMU speak it: the message (a 12-byte header, then a
 * payload of the size the header gives, the descriptors riding with the
 * header over a SOCK_STREAM Unix socket), the request numbers, the
 * payloads, the protocol feature bits; one checker,
 * lr_vhost_user_msg_check(), that every received message passes before
 * any field of it is used; send and receive of one message over lr_unix.h;
 * and the checked table of the frontend's memory regions that turns the
 * addresses a peer sends (guest-physical, or the frontend's own virtual
 * ones) into ours, with bounds, so a hostile peer cannot make us read or
 * write outside what it shared. net_vhost (backend) and net_virtio_user
 * (frontend) are built on these.
 *
 * The checker is structural: the request is one we know, the payload size
 * is the one that request carries, the descriptor count is what it needs,
 * and the values are in range (ring index < 2 * queues, ring size, enable
 * 0/1, memory table regions 1..8 with no size 0, no overflow and no
 * overlap in either address space, ring address alignment). What a
 * request means in the state the connection is in (features offered,
 * rings mapped) is the driver's to check.
 *
 * Threading contract: none needed. A message buffer and a region table
 * belong to their caller; a table is changed by the control thread only
 * while no datapath thread translates through it (the driver's rings are
 * stopped first), and read by any number of threads otherwise.
 *
 * Cost: messages are slow path (connection set-up). Translation,
 * lr_vhost_mem_gpa() and lr_vhost_mem_uva(), runs per descriptor: a loop
 * over at most LR_VHOST_USER_MAX_REGIONS regions, compares only, the hit
 * region usually the first.
 *
 * Error model: functions return 0, a byte count, or a negative errno, and
 * set lr_errno to the positive errno on failure (as lib/eal does). The
 * checker says why in the caller's buffer (a line naming the request and
 * the field, e.g. "SET_VRING_NUM: ring 3: num 1000 is not a power of
 * two"): -ENOSYS for a request we do not know, -EPROTO for a bad header
 * (version, reply bit), -EMSGSIZE for a size that is not what the request
 * carries, -EBADF for a descriptor count the request does not take,
 * -ERANGE for a value out of range, -EINVAL for a memory table or address
 * that is wrong in itself. Translation returns NULL for an address range
 * not inside one region (no errno: it is the datapath).
 */
#ifndef LR_VHOST_USER_H
#define LR_VHOST_USER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lr_common.h"

LR_BEGIN_DECLS

/* --- requests (frontend to backend) ----------------------------------- */
/** Requests of the vhost-user protocol (the "master" messages). */
enum lr_vhost_user_request {
	LR_VHOST_USER_NONE = 0,
	LR_VHOST_USER_GET_FEATURES = 1,
	LR_VHOST_USER_SET_FEATURES = 2,
	LR_VHOST_USER_SET_OWNER = 3,
	LR_VHOST_USER_RESET_OWNER = 4,
	LR_VHOST_USER_SET_MEM_TABLE = 5,
	LR_VHOST_USER_SET_LOG_BASE = 6,
	LR_VHOST_USER_SET_LOG_FD = 7,
	LR_VHOST_USER_SET_VRING_NUM = 8,
	LR_VHOST_USER_SET_VRING_ADDR = 9,
	LR_VHOST_USER_SET_VRING_BASE = 10,
	LR_VHOST_USER_GET_VRING_BASE = 11,
	LR_VHOST_USER_SET_VRING_KICK = 12,
	LR_VHOST_USER_SET_VRING_CALL = 13,
	LR_VHOST_USER_SET_VRING_ERR = 14,
	LR_VHOST_USER_GET_PROTOCOL_FEATURES = 15,
	LR_VHOST_USER_SET_PROTOCOL_FEATURES = 16,
	LR_VHOST_USER_GET_QUEUE_NUM = 17,
	LR_VHOST_USER_SET_VRING_ENABLE = 18,
	LR_VHOST_USER_SEND_RARP = 19,
	LR_VHOST_USER_NET_SET_MTU = 20,
	LR_VHOST_USER_SET_BACKEND_REQ_FD = 21,
	LR_VHOST_USER_IOTLB_MSG = 22,
	LR_VHOST_USER_SET_VRING_ENDIAN = 23,
	LR_VHOST_USER_GET_CONFIG = 24,
	LR_VHOST_USER_SET_CONFIG = 25,
	LR_VHOST_USER_CREATE_CRYPTO_SESSION = 26,
	LR_VHOST_USER_CLOSE_CRYPTO_SESSION = 27,
	LR_VHOST_USER_POSTCOPY_ADVISE = 28,
	LR_VHOST_USER_POSTCOPY_LISTEN = 29,
	LR_VHOST_USER_POSTCOPY_END = 30,
	LR_VHOST_USER_GET_INFLIGHT_FD = 31,
	LR_VHOST_USER_SET_INFLIGHT_FD = 32,
	LR_VHOST_USER_GPU_SET_SOCKET = 33,
	LR_VHOST_USER_RESET_DEVICE = 34,
	LR_VHOST_USER_VRING_KICK = 35,
	LR_VHOST_USER_GET_MAX_MEM_SLOTS = 36,
	LR_VHOST_USER_ADD_MEM_REG = 37,
	LR_VHOST_USER_REM_MEM_REG = 38,
	LR_VHOST_USER_SET_STATUS = 39,
	LR_VHOST_USER_GET_STATUS = 40,
	LR_VHOST_USER_REQUEST_MAX = 41 /**< one past the last */
};

/* --- protocol features (GET/SET_PROTOCOL_FEATURES) -------------------- */
/** Several queue pairs (GET_QUEUE_NUM). */
#define LR_VHOST_USER_PROTOCOL_F_MQ 0
/** Dirty log in shared memory (SET_LOG_BASE). */
#define LR_VHOST_USER_PROTOCOL_F_LOG_SHMFD 1
/** SEND_RARP after migration. */
#define LR_VHOST_USER_PROTOCOL_F_RARP 2
/** The frontend may set NEED_REPLY; the backend answers with a u64. */
#define LR_VHOST_USER_PROTOCOL_F_REPLY_ACK 3
/** NET_SET_MTU. */
#define LR_VHOST_USER_PROTOCOL_F_NET_MTU 4
/** A socket for backend-initiated requests (SET_BACKEND_REQ_FD). */
#define LR_VHOST_USER_PROTOCOL_F_BACKEND_REQ 5
/** SET_VRING_ENDIAN (legacy devices). */
#define LR_VHOST_USER_PROTOCOL_F_CROSS_ENDIAN 6
/** Crypto sessions. */
#define LR_VHOST_USER_PROTOCOL_F_CRYPTO_SESSION 7
/** Postcopy migration (userfaultfd). */
#define LR_VHOST_USER_PROTOCOL_F_PAGEFAULT 8
/** GET_CONFIG / SET_CONFIG. */
#define LR_VHOST_USER_PROTOCOL_F_CONFIG 9
/** The backend channel may carry descriptors. */
#define LR_VHOST_USER_PROTOCOL_F_BACKEND_SEND_FD 10
/** Host notifier areas. */
#define LR_VHOST_USER_PROTOCOL_F_HOST_NOTIFIER 11
/** Inflight descriptor tracking in shared memory. */
#define LR_VHOST_USER_PROTOCOL_F_INFLIGHT_SHMFD 12
/** RESET_DEVICE. */
#define LR_VHOST_USER_PROTOCOL_F_RESET_DEVICE 13
/** Kicks and calls as messages instead of eventfds. */
#define LR_VHOST_USER_PROTOCOL_F_INBAND_NOTIFICATIONS 14
/** ADD_MEM_REG / REM_MEM_REG / GET_MAX_MEM_SLOTS. */
#define LR_VHOST_USER_PROTOCOL_F_CONFIGURE_MEM_SLOTS 15
/** SET_STATUS / GET_STATUS (the virtio device status byte). */
#define LR_VHOST_USER_PROTOCOL_F_STATUS 16

/* --- header ----------------------------------------------------------- */
/** Header flags: the protocol version (bits 0-1). */
#define LR_VHOST_USER_VERSION_MASK 0x3u
/** The only version there is. */
#define LR_VHOST_USER_VERSION 0x1u
/** Header flag: this message is a reply. */
#define LR_VHOST_USER_REPLY 0x4u
/** Header flag: the sender wants a REPLY_ACK (u64, 0 = success). */
#define LR_VHOST_USER_NEED_REPLY 0x8u

/** Vring file payload (KICK/CALL/ERR): bits 0-7 the ring index. */
#define LR_VHOST_USER_VRING_IDX_MASK 0xffu
/** Vring file payload: no descriptor comes (polling / no interrupt). */
#define LR_VHOST_USER_VRING_NOFD (1u << 8)

/** Vring address flag: log writes to the used ring. */
#define LR_VHOST_USER_VRING_F_LOG 1u

/** Most regions a memory table holds. */
#define LR_VHOST_USER_MAX_REGIONS 8
/** Most bytes of a device configuration space (GET/SET_CONFIG). */
#define LR_VHOST_USER_MAX_CONFIG 256
/** Most queue pairs the checker accepts a ring index for. */
#define LR_VHOST_USER_MAX_QUEUE_PAIRS 128

/** The header of every message: 12 bytes. */
struct lr_vhost_user_hdr {
	uint32_t request; /**< enum lr_vhost_user_request */
	uint32_t flags;	  /**< version, REPLY, NEED_REPLY */
	uint32_t size;	  /**< bytes of payload after the header */
};

/** A ring's state: SET_VRING_NUM/BASE/ENABLE, GET_VRING_BASE. */
struct lr_vhost_user_vring_state {
	uint32_t index; /**< ring (virtqueue) index */
	uint32_t num;	/**< size, base index, or enable */
};

/** SET_VRING_ADDR: where a ring's parts are, in the frontend's virtual
 *  space (or guest-physical with the log's guest address). */
struct lr_vhost_user_vring_addr {
	uint32_t index;		 /**< ring index */
	uint32_t flags;		 /**< LR_VHOST_USER_VRING_F_LOG */
	uint64_t desc_addr;	 /**< descriptor table (packed: descriptors) */
	uint64_t used_addr;	 /**< used ring (packed: device event area) */
	uint64_t avail_addr;	 /**< avail ring (packed: driver event area) */
	uint64_t log_guest_addr; /**< used ring's guest address, for logs */
};

/** One region of the frontend's memory. */
struct lr_vhost_user_region {
	uint64_t guest_addr;  /**< guest-physical address of its first byte */
	uint64_t size;	      /**< its bytes */
	uint64_t user_addr;   /**< its address in the frontend's space */
	uint64_t mmap_offset; /**< where it starts in the file sent */
};

/** SET_MEM_TABLE: regions, one descriptor each. */
struct lr_vhost_user_memory {
	uint32_t nregions; /**< 1..LR_VHOST_USER_MAX_REGIONS */
	uint32_t padding;  /**< 0 */
	struct lr_vhost_user_region regions[LR_VHOST_USER_MAX_REGIONS];
};

/** ADD_MEM_REG / REM_MEM_REG: one region. */
struct lr_vhost_user_mem_reg {
	uint64_t padding;		    /**< 0 */
	struct lr_vhost_user_region region; /**< the region */
};

/** SET_LOG_BASE: the dirty log's size and offset in the file sent. */
struct lr_vhost_user_log {
	uint64_t mmap_size;   /**< bytes */
	uint64_t mmap_offset; /**< offset in the file */
};

/** GET/SET_INFLIGHT_FD: the inflight area. */
struct lr_vhost_user_inflight {
	uint64_t mmap_size;   /**< bytes */
	uint64_t mmap_offset; /**< offset in the file */
	uint16_t num_queues;  /**< queues tracked */
	uint16_t queue_size;  /**< their size */
	uint32_t padding;     /**< to 8 bytes (the C layout DPDK sends) */
};

/** GET/SET_CONFIG: part of the device's configuration space. */
struct lr_vhost_user_config {
	uint32_t offset; /**< first byte */
	uint32_t size;	 /**< bytes, <= LR_VHOST_USER_MAX_CONFIG */
	uint32_t flags;	 /**< 0 writable, 1 migration */
	uint8_t region[LR_VHOST_USER_MAX_CONFIG]; /**< the bytes */
};

/** IOTLB_MSG (Linux's struct vhost_iotlb_msg). */
struct lr_vhost_user_iotlb {
	uint64_t iova;	/**< I/O virtual address */
	uint64_t size;	/**< bytes */
	uint64_t uaddr; /**< frontend virtual address */
	uint8_t perm;	/**< access */
	uint8_t type;	/**< miss, update, invalidate, ... */
	uint8_t pad[6]; /**< to 8 bytes */
};

/** Bytes of the configuration header before its region. */
#define LR_VHOST_USER_CONFIG_HDR 12u

/**
 * A whole message: header, then the payload its request carries. On the
 * wire the payload follows the header's 12 bytes directly; here it sits
 * at offset 16, aligned for its 64-bit fields (send and receive move the
 * two parts apart).
 */
struct lr_vhost_user_msg {
	struct lr_vhost_user_hdr hdr; /**< request, flags, size */
	union {
		uint64_t u64; /**< features, status, vring file, ack */
		struct lr_vhost_user_vring_state state; /**< ring state */
		struct lr_vhost_user_vring_addr addr;	/**< ring addresses */
		struct lr_vhost_user_memory memory;	/**< memory table */
		struct lr_vhost_user_mem_reg mem_reg;	/**< one region */
		struct lr_vhost_user_log log;		/**< dirty log */
		struct lr_vhost_user_inflight inflight; /**< inflight area */
		struct lr_vhost_user_config config;	/**< config space */
		struct lr_vhost_user_iotlb iotlb;	/**< IOTLB entry */
	} payload; /**< hdr.size bytes of it are meaningful */
};

/** Bytes of the header. */
#define LR_VHOST_USER_HDR_SIZE 12u
/** Most bytes of payload a message we take carries. */
#define LR_VHOST_USER_PAYLOAD_MAX                                              \
	(sizeof(((struct lr_vhost_user_msg *)0)->payload))

/** What the checker needs to know of the connection. */
struct lr_vhost_user_check_ctx {
	uint32_t queue_pairs; /**< rings are 0 .. 2 * queue_pairs - 1 */
	bool packed;	      /**< RING_PACKED negotiated (ring sizes, bases) */
	bool reply;	      /**< the messages checked are replies */
};

/** The request's name ("SET_MEM_TABLE"), or "UNKNOWN". */
const char *lr_vhost_user_request_name(uint32_t request);

/**
 * Check message msg, of which len bytes arrived (header and payload), that
 * came with nfds descriptors, against ctx (NULL: one queue pair, split
 * ring, requests). 0 when every field may be used; else a negative errno
 * (see the error model) with a line saying what is wrong in why (why_len
 * bytes; why may be NULL).
 */
int lr_vhost_user_msg_check(const struct lr_vhost_user_msg *msg, size_t len,
			    unsigned nfds,
			    const struct lr_vhost_user_check_ctx *ctx,
			    char *why, size_t why_len);

/**
 * Send msg (header and hdr.size bytes of payload) with nfds descriptors of
 * fds[] (0..LR_VHOST_USER_MAX_REGIONS) over stream socket sock; on a
 * socket that is full, waits up to timeout_ms for room. 0, or a negative
 * errno (-EMSGSIZE: hdr.size is over LR_VHOST_USER_PAYLOAD_MAX, or the
 * stream took part of it; -ETIMEDOUT; -EPIPE ...).
 */
int lr_vhost_user_send(int sock, const struct lr_vhost_user_msg *msg,
		       const int *fds, unsigned nfds, int timeout_ms);

/**
 * Receive one message from stream socket sock into msg: the header with up
 * to LR_VHOST_USER_MAX_REGIONS descriptors (close-on-exec, into fds[],
 * their count in *nfds), then hdr.size bytes of payload, waiting up to
 * timeout_ms for a part that has not arrived yet. The bytes received
 * (header and payload; then check it with lr_vhost_user_msg_check()), 0
 * when the peer closed before a message began (no descriptor kept), or a
 * negative errno with every descriptor closed and *nfds 0: -EAGAIN
 * (nothing there), -EBADMSG (the peer closed or stalled inside the
 * message: a truncated header or payload), -EMSGSIZE (hdr.size over
 * LR_VHOST_USER_PAYLOAD_MAX; the payload is not read: the stream is out
 * of step, end the connection), -ETOOMANYREFS, ...
 */
ssize_t lr_vhost_user_recv(int sock, struct lr_vhost_user_msg *msg, int *fds,
			   unsigned *nfds, int timeout_ms);

/* --- the frontend's memory, translated -------------------------------- */
/** One mapped region of a memory table. */
struct lr_vhost_mem_region {
	uint64_t guest_addr; /**< guest-physical start */
	uint64_t user_addr;  /**< frontend-virtual start */
	uint64_t size;	     /**< bytes */
	uint8_t *host;	     /**< where we mapped its first byte */
};

/** The regions of a memory table, as the datapath translates through. */
struct lr_vhost_mem {
	uint32_t nregions; /**< regions in use */
	struct lr_vhost_mem_region r[LR_VHOST_USER_MAX_REGIONS]; /**< them */
};

/**
 * Our address of guest-physical range [gpa, gpa + len), or NULL unless the
 * whole range lies inside one region (len 0 counts as one byte: the
 * address itself must be inside).
 */
static inline void *
lr_vhost_mem_gpa(const struct lr_vhost_mem *m, uint64_t gpa, uint64_t len)
{
	for (uint32_t i = 0; i < m->nregions; i++) {
		const struct lr_vhost_mem_region *r = &m->r[i];
		uint64_t off = gpa - r->guest_addr;

		/* off wraps for gpa below the region: then off >= size */
		if (off < r->size && len <= r->size - off)
			return r->host + off;
	}
	return NULL;
}

/** Our address of frontend-virtual range [uva, uva + len), or NULL unless
 *  the whole range lies inside one region. */
static inline void *
lr_vhost_mem_uva(const struct lr_vhost_mem *m, uint64_t uva, uint64_t len)
{
	for (uint32_t i = 0; i < m->nregions; i++) {
		const struct lr_vhost_mem_region *r = &m->r[i];
		uint64_t off = uva - r->user_addr;

		if (off < r->size && len <= r->size - off)
			return r->host + off;
	}
	return NULL;
}

LR_END_DECLS

#endif /* LR_VHOST_USER_H */
