/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The vhost-user message checker and one message's send and receive over
 * a Unix stream socket (lr_vhost_user.h). The requests are a table of
 * data (name, payload, descriptors, reply), so checking a message is one
 * look-up then the checks of its payload's kind.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lr_errno.h"
#include "lr_unix.h"
#include "lr_vhost_user.h"
#include "lr_virtio.h"

/* What a request's payload is. */
enum payload {
	PL_NONE,     /* nothing: size 0 */
	PL_U64,	     /* a 64-bit value */
	PL_FILE,     /* a 64-bit vring file: index, NOFD */
	PL_STATE,    /* struct lr_vhost_user_vring_state */
	PL_ADDR,     /* struct lr_vhost_user_vring_addr */
	PL_MEM,	     /* struct lr_vhost_user_memory */
	PL_MEMREG,   /* struct lr_vhost_user_mem_reg */
	PL_LOG,	     /* struct lr_vhost_user_log */
	PL_INFLIGHT, /* struct lr_vhost_user_inflight */
	PL_CONFIG,   /* struct lr_vhost_user_config, its region cut */
	PL_IOTLB,    /* struct lr_vhost_user_iotlb */
};

/* How many descriptors a request carries. */
enum fds {
	FD_0,	    /* none */
	FD_1,	    /* exactly one */
	FD_0_OR_1,  /* one or none */
	FD_REGIONS, /* one per memory region */
	FD_FILE,    /* one unless the payload has NOFD */
};

/* State requests whose index is a ring's. */
#define RING 1

struct req_info {
	const char *name;
	uint8_t payload; /* enum payload of the request */
	uint8_t fds;	 /* enum fds of the request */
	uint8_t reply;	 /* enum payload of its reply (PL_NONE: ack only) */
	uint8_t ring;	 /* RING: a state payload names a ring */
};

/* The requests we know; a NULL name is a number no one uses, and the
 * crypto sessions (variable, DPDK's private layout) are left out. */
static const struct req_info reqs[LR_VHOST_USER_REQUEST_MAX] = {
    [LR_VHOST_USER_GET_FEATURES] = {"GET_FEATURES", PL_NONE, FD_0, PL_U64, 0},
    [LR_VHOST_USER_SET_FEATURES] = {"SET_FEATURES", PL_U64, FD_0, PL_NONE, 0},
    [LR_VHOST_USER_SET_OWNER] = {"SET_OWNER", PL_NONE, FD_0, PL_NONE, 0},
    [LR_VHOST_USER_RESET_OWNER] = {"RESET_OWNER", PL_NONE, FD_0, PL_NONE, 0},
    [LR_VHOST_USER_SET_MEM_TABLE] = {"SET_MEM_TABLE", PL_MEM, FD_REGIONS,
				     PL_NONE, 0},
    [LR_VHOST_USER_SET_LOG_BASE] = {"SET_LOG_BASE", PL_LOG, FD_1, PL_U64, 0},
    [LR_VHOST_USER_SET_LOG_FD] = {"SET_LOG_FD", PL_NONE, FD_1, PL_NONE, 0},
    [LR_VHOST_USER_SET_VRING_NUM] = {"SET_VRING_NUM", PL_STATE, FD_0, PL_NONE,
				     RING},
    [LR_VHOST_USER_SET_VRING_ADDR] = {"SET_VRING_ADDR", PL_ADDR, FD_0, PL_NONE,
				      RING},
    [LR_VHOST_USER_SET_VRING_BASE] = {"SET_VRING_BASE", PL_STATE, FD_0, PL_NONE,
				      RING},
    [LR_VHOST_USER_GET_VRING_BASE] = {"GET_VRING_BASE", PL_STATE, FD_0,
				      PL_STATE, RING},
    [LR_VHOST_USER_SET_VRING_KICK] = {"SET_VRING_KICK", PL_FILE, FD_FILE,
				      PL_NONE, RING},
    [LR_VHOST_USER_SET_VRING_CALL] = {"SET_VRING_CALL", PL_FILE, FD_FILE,
				      PL_NONE, RING},
    [LR_VHOST_USER_SET_VRING_ERR] = {"SET_VRING_ERR", PL_FILE, FD_FILE, PL_NONE,
				     RING},
    [LR_VHOST_USER_GET_PROTOCOL_FEATURES] = {"GET_PROTOCOL_FEATURES", PL_NONE,
					     FD_0, PL_U64, 0},
    [LR_VHOST_USER_SET_PROTOCOL_FEATURES] = {"SET_PROTOCOL_FEATURES", PL_U64,
					     FD_0, PL_NONE, 0},
    [LR_VHOST_USER_GET_QUEUE_NUM] = {"GET_QUEUE_NUM", PL_NONE, FD_0, PL_U64, 0},
    [LR_VHOST_USER_SET_VRING_ENABLE] = {"SET_VRING_ENABLE", PL_STATE, FD_0,
					PL_NONE, RING},
    [LR_VHOST_USER_SEND_RARP] = {"SEND_RARP", PL_U64, FD_0, PL_NONE, 0},
    [LR_VHOST_USER_NET_SET_MTU] = {"NET_SET_MTU", PL_U64, FD_0, PL_NONE, 0},
    [LR_VHOST_USER_SET_BACKEND_REQ_FD] = {"SET_BACKEND_REQ_FD", PL_NONE, FD_1,
					  PL_NONE, 0},
    [LR_VHOST_USER_IOTLB_MSG] = {"IOTLB_MSG", PL_IOTLB, FD_0, PL_NONE, 0},
    [LR_VHOST_USER_SET_VRING_ENDIAN] = {"SET_VRING_ENDIAN", PL_STATE, FD_0,
					PL_NONE, RING},
    [LR_VHOST_USER_GET_CONFIG] = {"GET_CONFIG", PL_CONFIG, FD_0, PL_CONFIG, 0},
    [LR_VHOST_USER_SET_CONFIG] = {"SET_CONFIG", PL_CONFIG, FD_0, PL_NONE, 0},
    [LR_VHOST_USER_POSTCOPY_ADVISE] = {"POSTCOPY_ADVISE", PL_NONE, FD_0, PL_U64,
				       0},
    [LR_VHOST_USER_POSTCOPY_LISTEN] = {"POSTCOPY_LISTEN", PL_NONE, FD_0,
				       PL_NONE, 0},
    [LR_VHOST_USER_POSTCOPY_END] = {"POSTCOPY_END", PL_NONE, FD_0, PL_U64, 0},
    [LR_VHOST_USER_GET_INFLIGHT_FD] = {"GET_INFLIGHT_FD", PL_INFLIGHT, FD_0,
				       PL_INFLIGHT, 0},
    [LR_VHOST_USER_SET_INFLIGHT_FD] = {"SET_INFLIGHT_FD", PL_INFLIGHT, FD_1,
				       PL_NONE, 0},
    [LR_VHOST_USER_GPU_SET_SOCKET] = {"GPU_SET_SOCKET", PL_NONE, FD_1, PL_NONE,
				      0},
    [LR_VHOST_USER_RESET_DEVICE] = {"RESET_DEVICE", PL_NONE, FD_0, PL_NONE, 0},
    [LR_VHOST_USER_VRING_KICK] = {"VRING_KICK", PL_STATE, FD_0, PL_NONE, RING},
    [LR_VHOST_USER_GET_MAX_MEM_SLOTS] = {"GET_MAX_MEM_SLOTS", PL_NONE, FD_0,
					 PL_U64, 0},
    [LR_VHOST_USER_ADD_MEM_REG] = {"ADD_MEM_REG", PL_MEMREG, FD_1, PL_NONE, 0},
    [LR_VHOST_USER_REM_MEM_REG] = {"REM_MEM_REG", PL_MEMREG, FD_0_OR_1, PL_NONE,
				   0},
    [LR_VHOST_USER_SET_STATUS] = {"SET_STATUS", PL_U64, FD_0, PL_NONE, 0},
    [LR_VHOST_USER_GET_STATUS] = {"GET_STATUS", PL_NONE, FD_0, PL_U64, 0},
};

/* Fixed payload sizes by kind (0 for the variable ones: MEM, CONFIG). */
static const uint32_t pl_size[] = {
    [PL_NONE] = 0,
    [PL_U64] = 8,
    [PL_FILE] = 8,
    [PL_STATE] = sizeof(struct lr_vhost_user_vring_state),
    [PL_ADDR] = sizeof(struct lr_vhost_user_vring_addr),
    [PL_MEM] = 0,
    [PL_MEMREG] = sizeof(struct lr_vhost_user_mem_reg),
    [PL_LOG] = sizeof(struct lr_vhost_user_log),
    [PL_INFLIGHT] = sizeof(struct lr_vhost_user_inflight),
    [PL_CONFIG] = 0,
    [PL_IOTLB] = sizeof(struct lr_vhost_user_iotlb),
};

_Static_assert(sizeof(struct lr_vhost_user_hdr) == LR_VHOST_USER_HDR_SIZE,
	       "header is 12 bytes on the wire");
_Static_assert(sizeof(struct lr_vhost_user_vring_addr) == 40, "vring addr");
_Static_assert(sizeof(struct lr_vhost_user_memory) == 264, "memory table");
_Static_assert(sizeof(struct lr_vhost_user_inflight) == 24, "inflight");
_Static_assert(sizeof(struct lr_vhost_user_iotlb) == 32, "iotlb");
_Static_assert(sizeof(struct lr_vhost_user_config) == 268, "config");

/* Return -err, set lr_errno, and write the reason into why. */
static int __attribute__((format(printf, 4, 5)))
refuse(int err, char *why, size_t why_len, const char *fmt, ...)
{
	va_list ap;

	LR_ASSERT(err > 0);
	if (why != NULL && why_len > 0) {
		va_start(ap, fmt);
		vsnprintf(why, why_len, fmt, ap);
		va_end(ap);
	}
	lr_errno = err;
	return -err;
}

const char *
lr_vhost_user_request_name(uint32_t request)
{
	if (request >= LR_VHOST_USER_REQUEST_MAX || reqs[request].name == NULL)
		return "UNKNOWN";
	return reqs[request].name;
}

/* The context checks run against (a default for NULL). */
struct check {
	const struct lr_vhost_user_msg *msg;
	const char *name;
	uint32_t qp;
	bool packed;
	char *why;
	size_t why_len;
};

/* [a, a + n) and [b, b + m) overlap (both non-empty, neither wraps). */
static bool
overlap(uint64_t a, uint64_t n, uint64_t b, uint64_t m)
{
	return a < b + m && b < a + n;
}

/* One region: a size, no address range past 2^64. */
static int
check_region(const struct check *c, unsigned i,
	     const struct lr_vhost_user_region *r)
{
	if (r->size == 0)
		return refuse(EINVAL, c->why, c->why_len,
			      "%s: region %u: size 0", c->name, i);
	if (r->guest_addr + r->size < r->guest_addr ||
	    r->user_addr + r->size < r->user_addr ||
	    r->mmap_offset + r->size < r->mmap_offset)
		return refuse(EINVAL, c->why, c->why_len,
			      "%s: region %u: guest 0x%llx user 0x%llx offset "
			      "0x%llx + size 0x%llx overflows",
			      c->name, i, (unsigned long long)r->guest_addr,
			      (unsigned long long)r->user_addr,
			      (unsigned long long)r->mmap_offset,
			      (unsigned long long)r->size);
	return 0;
}

/* SET_MEM_TABLE: 1..8 regions, each valid, none overlapping another in
 * guest-physical or frontend-virtual space; the size says either just
 * the regions used (DPDK's virtio-user) or the whole table (QEMU). */
static int
check_memory(const struct check *c, uint32_t size, unsigned nfds)
{
	const struct lr_vhost_user_memory *m = &c->msg->payload.memory;
	const struct lr_vhost_user_region *a, *b;
	int rc;

	if (size < 8)
		return refuse(EMSGSIZE, c->why, c->why_len,
			      "%s: size %u is under the table's 8-byte head",
			      c->name, size);
	if (m->nregions == 0 || m->nregions > LR_VHOST_USER_MAX_REGIONS)
		return refuse(ERANGE, c->why, c->why_len,
			      "%s: %u regions (1..%u)", c->name, m->nregions,
			      LR_VHOST_USER_MAX_REGIONS);
	if (size != 8 + 32 * m->nregions && size != sizeof(*m))
		return refuse(EMSGSIZE, c->why, c->why_len,
			      "%s: size %u for %u regions (%u or %zu)", c->name,
			      size, m->nregions, 8 + 32 * m->nregions,
			      sizeof(*m));
	if (nfds != m->nregions)
		return refuse(EBADF, c->why, c->why_len,
			      "%s: %u descriptors for %u regions", c->name,
			      nfds, m->nregions);
	for (unsigned i = 0; i < m->nregions; i++) {
		rc = check_region(c, i, &m->regions[i]);
		if (rc < 0)
			return rc;
	}
	for (unsigned i = 0; i < m->nregions; i++) {
		for (unsigned j = i + 1; j < m->nregions; j++) {
			a = &m->regions[i];
			b = &m->regions[j];
			if (overlap(a->guest_addr, a->size, b->guest_addr,
				    b->size))
				return refuse(EINVAL, c->why, c->why_len,
					      "%s: regions %u and %u overlap "
					      "in guest-physical space",
					      c->name, i, j);
			if (overlap(a->user_addr, a->size, b->user_addr,
				    b->size))
				return refuse(EINVAL, c->why, c->why_len,
					      "%s: regions %u and %u overlap "
					      "in the frontend's space",
					      c->name, i, j);
		}
	}
	return 0;
}

/* A ring index below 2 * queue pairs. */
static int
check_ring(const struct check *c, uint32_t index)
{
	if (index >= 2 * c->qp)
		return refuse(ERANGE, c->why, c->why_len,
			      "%s: ring %u out of range (%u queue pairs: "
			      "rings 0..%u)",
			      c->name, index, c->qp, 2 * c->qp - 1);
	return 0;
}

/* A state payload: ring index, then the value each request takes. */
static int
check_state(const struct check *c)
{
	const struct lr_vhost_user_vring_state *s = &c->msg->payload.state;
	uint32_t req = c->msg->hdr.request;
	int rc = check_ring(c, s->index);

	if (rc < 0)
		return rc;
	if (req == LR_VHOST_USER_SET_VRING_NUM && !c->packed &&
	    !lr_vring_num_valid(s->num))
		return refuse(ERANGE, c->why, c->why_len,
			      "%s: ring %u: num %u is not a power of two in "
			      "1..%u",
			      c->name, s->index, s->num, LR_VIRTQ_MAX_SIZE);
	if (req == LR_VHOST_USER_SET_VRING_NUM && c->packed &&
	    !lr_vring_packed_num_valid(s->num))
		return refuse(ERANGE, c->why, c->why_len,
			      "%s: ring %u: num %u is not in 1..%u", c->name,
			      s->index, s->num, LR_VIRTQ_MAX_SIZE);
	if (req == LR_VHOST_USER_SET_VRING_BASE && !c->packed &&
	    s->num > 0xffff)
		return refuse(ERANGE, c->why, c->why_len,
			      "%s: ring %u: base %u is over 65535", c->name,
			      s->index, s->num);
	if (req == LR_VHOST_USER_SET_VRING_ENABLE && s->num > 1)
		return refuse(ERANGE, c->why, c->why_len,
			      "%s: ring %u: enable %u is not 0 or 1", c->name,
			      s->index, s->num);
	return 0;
}

/* A vring file: index, NOFD, nothing else; a descriptor unless NOFD. */
static int
check_file(const struct check *c, unsigned nfds)
{
	uint64_t v = c->msg->payload.u64;
	unsigned want = (v & LR_VHOST_USER_VRING_NOFD) ? 0 : 1;
	int rc;

	if (v & ~(uint64_t)(LR_VHOST_USER_VRING_IDX_MASK |
			    LR_VHOST_USER_VRING_NOFD))
		return refuse(ERANGE, c->why, c->why_len,
			      "%s: unknown bits in 0x%llx", c->name,
			      (unsigned long long)v);
	rc = check_ring(c, (uint32_t)(v & LR_VHOST_USER_VRING_IDX_MASK));
	if (rc < 0)
		return rc;
	if (nfds != want)
		return refuse(EBADF, c->why, c->why_len,
			      "%s: ring %u: %u descriptors (%s: %u)", c->name,
			      (unsigned)(v & LR_VHOST_USER_VRING_IDX_MASK),
			      nfds, want ? "no NOFD flag" : "NOFD flag", want);
	return 0;
}

/* Ring addresses: the index, flags, each part aligned as its layout. */
static int
check_addr(const struct check *c)
{
	const struct lr_vhost_user_vring_addr *a = &c->msg->payload.addr;
	uint64_t avail_align =
	    c->packed ? LR_VRING_PACKED_EVENT_ALIGN : LR_VRING_AVAIL_ALIGN;
	uint64_t used_align =
	    c->packed ? LR_VRING_PACKED_EVENT_ALIGN : LR_VRING_USED_ALIGN;
	int rc = check_ring(c, a->index);

	if (rc < 0)
		return rc;
	if (a->flags & ~LR_VHOST_USER_VRING_F_LOG)
		return refuse(ERANGE, c->why, c->why_len,
			      "%s: ring %u: unknown flags 0x%x", c->name,
			      a->index, a->flags);
	if (a->desc_addr % LR_VRING_DESC_ALIGN || a->avail_addr % avail_align ||
	    a->used_addr % used_align)
		return refuse(EINVAL, c->why, c->why_len,
			      "%s: ring %u: misaligned desc 0x%llx avail "
			      "0x%llx used 0x%llx",
			      c->name, a->index,
			      (unsigned long long)a->desc_addr,
			      (unsigned long long)a->avail_addr,
			      (unsigned long long)a->used_addr);
	return 0;
}

/* A config payload: the header, then size bytes inside the space. */
static int
check_config(const struct check *c, uint32_t size)
{
	const struct lr_vhost_user_config *cf = &c->msg->payload.config;

	if (size < LR_VHOST_USER_CONFIG_HDR ||
	    size > sizeof(struct lr_vhost_user_config))
		return refuse(EMSGSIZE, c->why, c->why_len,
			      "%s: size %u (%u..%zu)", c->name, size,
			      LR_VHOST_USER_CONFIG_HDR,
			      sizeof(struct lr_vhost_user_config));
	if (cf->size != size - LR_VHOST_USER_CONFIG_HDR ||
	    cf->offset > LR_VHOST_USER_MAX_CONFIG ||
	    cf->size > LR_VHOST_USER_MAX_CONFIG - cf->offset)
		return refuse(ERANGE, c->why, c->why_len,
			      "%s: config offset %u size %u in a message of "
			      "%u bytes",
			      c->name, cf->offset, cf->size, size);
	return 0;
}

/* The descriptor count of a request whose count is fixed. */
static int
check_fds(const struct check *c, const struct req_info *ri, unsigned nfds)
{
	bool ok;

	switch (ri->fds) {
	case FD_0:
		ok = nfds == 0;
		break;
	case FD_1:
		ok = nfds == 1;
		break;
	case FD_0_OR_1:
		ok = nfds <= 1;
		break;
	default:
		return 0; /* checked with the payload */
	}
	if (!ok)
		return refuse(EBADF, c->why, c->why_len,
			      "%s: %u descriptors (takes %s)", c->name, nfds,
			      ri->fds == FD_0	? "none"
			      : ri->fds == FD_1 ? "one"
						: "at most one");
	return 0;
}

/* The payload of a request, by kind; its size was checked. */
static int
check_payload(const struct check *c, unsigned kind, unsigned nfds)
{
	const struct lr_vhost_user_msg *m = c->msg;
	int rc;

	switch (kind) {
	case PL_FILE:
		return check_file(c, nfds);
	case PL_STATE:
		return check_state(c);
	case PL_ADDR:
		return check_addr(c);
	case PL_MEMREG:
		rc = check_region(c, 0, &m->payload.mem_reg.region);
		return rc;
	case PL_LOG:
		if (m->payload.log.mmap_size == 0 ||
		    m->payload.log.mmap_offset + m->payload.log.mmap_size <
			m->payload.log.mmap_offset)
			return refuse(
			    EINVAL, c->why, c->why_len,
			    "%s: log size 0x%llx at 0x%llx", c->name,
			    (unsigned long long)m->payload.log.mmap_size,
			    (unsigned long long)m->payload.log.mmap_offset);
		return 0;
	case PL_U64:
		if (m->hdr.request == LR_VHOST_USER_SET_STATUS &&
		    m->payload.u64 > 0xff)
			return refuse(ERANGE, c->why, c->why_len,
				      "%s: status 0x%llx is over 0xff", c->name,
				      (unsigned long long)m->payload.u64);
		return 0;
	default:
		return 0;
	}
}

/* A reply: the REPLY bit, then its payload or a u64 acknowledgement. */
static int
check_reply(const struct check *c, const struct req_info *ri, uint32_t size,
	    unsigned nfds)
{
	uint32_t want = pl_size[ri->reply];

	if (ri->reply == PL_NONE)
		want = 8; /* REPLY_ACK */
	if (ri->reply == PL_CONFIG)
		return check_config(c, size);
	if (size != want)
		return refuse(EMSGSIZE, c->why, c->why_len,
			      "%s reply: size %u (takes %u)", c->name, size,
			      want);
	if (nfds > 1 || (nfds == 1 &&
			 c->msg->hdr.request != LR_VHOST_USER_POSTCOPY_ADVISE &&
			 c->msg->hdr.request != LR_VHOST_USER_GET_INFLIGHT_FD))
		return refuse(EBADF, c->why, c->why_len,
			      "%s reply: %u descriptors", c->name, nfds);
	return 0;
}

/* The header: complete, a request we know, version 1, the reply bit as
 * the direction wants, the payload all there. */
static int
check_header(struct check *c, size_t len, bool reply)
{
	const struct lr_vhost_user_hdr *h = &c->msg->hdr;

	if (len < LR_VHOST_USER_HDR_SIZE)
		return refuse(EBADMSG, c->why, c->why_len,
			      "truncated header: %zu of %u bytes", len,
			      LR_VHOST_USER_HDR_SIZE);
	if (h->request >= LR_VHOST_USER_REQUEST_MAX ||
	    reqs[h->request].name == NULL)
		return refuse(ENOSYS, c->why, c->why_len, "unknown request %u",
			      h->request);
	c->name = reqs[h->request].name;
	if ((h->flags & LR_VHOST_USER_VERSION_MASK) != LR_VHOST_USER_VERSION)
		return refuse(EPROTO, c->why, c->why_len,
			      "%s: version %u (only %u)", c->name,
			      h->flags & LR_VHOST_USER_VERSION_MASK,
			      LR_VHOST_USER_VERSION);
	if (!!(h->flags & LR_VHOST_USER_REPLY) != reply)
		return refuse(EPROTO, c->why, c->why_len, "%s: flags 0x%x: %s",
			      c->name, h->flags,
			      reply ? "a request where a reply was due"
				    : "a reply where a request was due");
	if (h->size > LR_VHOST_USER_PAYLOAD_MAX ||
	    len != LR_VHOST_USER_HDR_SIZE + (size_t)h->size)
		return refuse(EMSGSIZE, c->why, c->why_len,
			      "%s: size %u but %zu payload bytes came (at "
			      "most %zu)",
			      c->name, h->size, len - LR_VHOST_USER_HDR_SIZE,
			      LR_VHOST_USER_PAYLOAD_MAX);
	return 0;
}

int
lr_vhost_user_msg_check(const struct lr_vhost_user_msg *msg, size_t len,
			unsigned nfds,
			const struct lr_vhost_user_check_ctx *ctx, char *why,
			size_t why_len)
{
	struct check c = {msg, "?", 1, false, why, why_len};
	const struct req_info *ri;
	uint32_t size;
	int rc;

	if (msg == NULL)
		return refuse(EINVAL, why, why_len, "no message");
	if (ctx != NULL) {
		if (ctx->queue_pairs == 0 ||
		    ctx->queue_pairs > LR_VHOST_USER_MAX_QUEUE_PAIRS)
			return refuse(EINVAL, why, why_len,
				      "check context: %u queue pairs",
				      ctx->queue_pairs);
		c.qp = ctx->queue_pairs;
		c.packed = ctx->packed;
	}
	rc = check_header(&c, len, ctx != NULL && ctx->reply);
	if (rc < 0)
		return rc;
	ri = &reqs[msg->hdr.request];
	size = msg->hdr.size;
	if (ctx != NULL && ctx->reply)
		return check_reply(&c, ri, size, nfds);
	if (ri->payload == PL_MEM)
		return check_memory(&c, size, nfds);
	if (ri->payload == PL_CONFIG)
		rc = check_config(&c, size);
	else if (size != pl_size[ri->payload])
		rc = refuse(EMSGSIZE, why, why_len, "%s: size %u (takes %u)",
			    c.name, size, pl_size[ri->payload]);
	if (rc == 0)
		rc = check_fds(&c, ri, nfds);
	if (rc == 0)
		rc = check_payload(&c, ri->payload, nfds);
	return rc;
}

/* Milliseconds left until deadline (CLOCK_MONOTONIC), 0 when past. */
static int
ms_left(const struct timespec *deadline)
{
	struct timespec now;
	int64_t ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (deadline->tv_sec - now.tv_sec) * 1000 +
	     (deadline->tv_nsec - now.tv_nsec) / 1000000;
	return ms > 0 ? (int)(ms > 60000 ? 60000 : ms) : 0;
}

/* The time timeout_ms from now. */
static struct timespec
deadline_in(int timeout_ms)
{
	struct timespec d;

	clock_gettime(CLOCK_MONOTONIC, &d);
	d.tv_sec += timeout_ms / 1000;
	d.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
	if (d.tv_nsec >= 1000000000) {
		d.tv_sec++;
		d.tv_nsec -= 1000000000;
	}
	return d;
}

/* Wait for events on sock until deadline: 0, or -ETIMEDOUT. */
static int
wait_for(int sock, short events, const struct timespec *deadline)
{
	struct pollfd p = {.fd = sock, .events = events};
	int ms = ms_left(deadline);
	int rc;

	if (ms == 0)
		return -ETIMEDOUT;
	rc = poll(&p, 1, ms);
	if (rc < 0 && errno != EINTR)
		return -errno;
	return 0;
}

int
lr_vhost_user_send(int sock, const struct lr_vhost_user_msg *msg,
		   const int *fds, unsigned nfds, int timeout_ms)
{
	uint8_t buf[LR_VHOST_USER_HDR_SIZE + LR_VHOST_USER_PAYLOAD_MAX];
	struct timespec deadline = deadline_in(timeout_ms);
	size_t len;
	int rc;

	if (msg == NULL || nfds > LR_VHOST_USER_MAX_REGIONS ||
	    (nfds > 0 && fds == NULL) || timeout_ms < 0) {
		lr_errno = EINVAL;
		return -EINVAL;
	}
	if (msg->hdr.size > LR_VHOST_USER_PAYLOAD_MAX) {
		lr_errno = EMSGSIZE;
		return -EMSGSIZE;
	}
	len = LR_VHOST_USER_HDR_SIZE + msg->hdr.size;
	memcpy(buf, &msg->hdr, LR_VHOST_USER_HDR_SIZE);
	memcpy(buf + LR_VHOST_USER_HDR_SIZE, &msg->payload, msg->hdr.size);
	for (;;) {
		rc = lr_unix_send(sock, buf, len, fds, nfds);
		if (rc != -EAGAIN)
			break;
		rc = wait_for(sock, POLLOUT, &deadline);
		if (rc < 0)
			break;
	}
	if (rc < 0)
		lr_errno = -rc;
	return rc;
}

/* Read exactly len bytes into buf (descriptors only with the first part:
 * fds NULL takes none), waiting until deadline for the rest. 0: the peer
 * closed before any byte; len; or a negative errno (-EBADMSG: the peer
 * closed or stalled after some bytes; *got says how many). */
static ssize_t
read_full(int sock, uint8_t *buf, size_t len, int *fds, unsigned *nfds,
	  const struct timespec *deadline, size_t *got)
{
	unsigned n = 0;
	ssize_t r;
	int rc;

	*got = 0;
	while (*got < len) {
		r = lr_unix_recv(
		    sock, buf + *got, len - *got, *got == 0 ? fds : NULL,
		    *got == 0 && fds != NULL ? LR_VHOST_USER_MAX_REGIONS : 0,
		    &n);
		if (r == -EAGAIN) {
			rc = wait_for(sock, POLLIN, deadline);
			if (rc == -ETIMEDOUT && *got == 0)
				return -EAGAIN;
			if (rc < 0)
				return *got > 0 ? -EBADMSG : rc;
			continue;
		}
		if (r < 0)
			return r;
		if (*got == 0 && nfds != NULL)
			*nfds = n;
		if (r == 0)
			return *got > 0 ? -EBADMSG : 0;
		*got += (size_t)r;
	}
	return (ssize_t)len;
}

ssize_t
lr_vhost_user_recv(int sock, struct lr_vhost_user_msg *msg, int *fds,
		   unsigned *nfds, int timeout_ms)
{
	struct timespec deadline = deadline_in(timeout_ms < 0 ? 0 : timeout_ms);
	size_t got = 0;
	ssize_t r;

	if (msg == NULL || fds == NULL || nfds == NULL || timeout_ms < 0) {
		lr_errno = EINVAL;
		return -EINVAL;
	}
	*nfds = 0;
	r = read_full(sock, (uint8_t *)&msg->hdr, LR_VHOST_USER_HDR_SIZE, fds,
		      nfds, &deadline, &got);
	if (r <= 0)
		goto fail;
	if (msg->hdr.size > LR_VHOST_USER_PAYLOAD_MAX) {
		r = -EMSGSIZE;
		goto fail;
	}
	r = read_full(sock, (uint8_t *)&msg->payload, msg->hdr.size, NULL, NULL,
		      &deadline, &got);
	if (r == 0 && msg->hdr.size > 0)
		r = -EBADMSG; /* closed before the payload */
	if (r < 0)
		goto fail;
	return (ssize_t)(LR_VHOST_USER_HDR_SIZE + msg->hdr.size);
fail:
	lr_unix_close_fds(fds, *nfds);
	*nfds = 0;
	if (r < 0)
		lr_errno = (int)-r;
	return r;
}
