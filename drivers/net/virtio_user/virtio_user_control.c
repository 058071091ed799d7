/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_virtio_user's control messages: what the frontend sends a vhost-user
 * backend to set up its rings and to stop them, in the order DPDK's
 * virtio-user and QEMU send them:
 *   GET_FEATURES; GET/SET_PROTOCOL_FEATURES (when the backend offers
 *   PROTOCOL_FEATURES: MQ and REPLY_ACK taken when offered);
 *   GET_QUEUE_NUM (MQ); SET_OWNER; SET_FEATURES; SET_MEM_TABLE (our
 *   region, its memfd, and the hugepage segments shared for zero-copy
 *   transmit); per ring SET_VRING_CALL, SET_VRING_NUM,
 *   SET_VRING_BASE, SET_VRING_ADDR, SET_VRING_KICK; SET_VRING_ENABLE 1 per
 *   ring (PROTOCOL_FEATURES).
 * With REPLY_ACK negotiated every request that has no reply of its own
 * carries NEED_REPLY and waits for the backend's acknowledgement: a
 * non-zero one (a NAK) fails the set-up naming the request. Every reply
 * passes lr_vhost_user_msg_check() and must answer the request sent.
 * Stop: SET_VRING_ENABLE 0 and GET_VRING_BASE per ring.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "lr_log.h"
#include "virtio_user_private.h"

/* The features we take when the backend offers them (VERSION_1 must be
 * offered); mrg_rxbuf, in_order and MQ as the devargs say. */
#define VU_FEATURES                                                            \
	(LR_VIRTIO_BIT(LR_VIRTIO_F_VERSION_1) |                                \
	 LR_VIRTIO_BIT(LR_VIRTIO_F_RING_EVENT_IDX) |                           \
	 LR_VIRTIO_BIT(LR_VHOST_USER_F_PROTOCOL_FEATURES) |                    \
	 LR_VIRTIO_BIT(LR_VIRTIO_NET_F_CSUM) |                                 \
	 LR_VIRTIO_BIT(LR_VIRTIO_NET_F_GUEST_CSUM) |                           \
	 LR_VIRTIO_BIT(LR_VIRTIO_NET_F_HOST_TSO4) |                            \
	 LR_VIRTIO_BIT(LR_VIRTIO_NET_F_HOST_TSO6))

/* SET_VRING_BASE of a new packed ring: slot 0, wrap counter 1 (bit 15). */
#define VU_PACKED_BASE (1u << 15)

/* The protocol features we take. */
#define VU_PROTOCOL                                                            \
	(LR_VIRTIO_BIT(LR_VHOST_USER_PROTOCOL_F_MQ) |                          \
	 LR_VIRTIO_BIT(LR_VHOST_USER_PROTOCOL_F_REPLY_ACK))

/* Say why in p->why; returns ret. */
static int __attribute__((format(printf, 3, 4)))
fail(struct vu_port *p, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->why, sizeof(p->why), fmt, ap);
	va_end(ap);
	return ret;
}

/* A message of request req with payload size bytes. */
static void
msg_init(struct lr_vhost_user_msg *m, uint32_t req, uint32_t size)
{
	memset(m, 0, sizeof(*m));
	m->hdr.request = req;
	m->hdr.flags = LR_VHOST_USER_VERSION;
	m->hdr.size = size;
}

/* Receive the reply to request req into r and check it; 0 or -errno. */
static int
reply_get(struct vu_port *p, uint32_t req, struct lr_vhost_user_msg *r)
{
	struct lr_vhost_user_check_ctx ctx = {
	    .queue_pairs = p->queues, .packed = p->packed, .reply = true};
	const char *name = lr_vhost_user_request_name(req);
	char why[128];
	int fds[LR_VHOST_USER_MAX_REGIONS];
	unsigned nfds = 0;
	ssize_t n = -EAGAIN;
	int rc;

	/* in slices, so that a stop does not wait for a stalled backend */
	for (int t = 0; t < VU_MSG_TIMEOUT; t += VU_RETRY_MS) {
		n = lr_vhost_user_recv(p->sock, r, fds, &nfds, VU_RETRY_MS);
		if (n != -EAGAIN || atomic_load(&p->stopping))
			break;
	}
	if (n == 0)
		return fail(p, -ECONNRESET,
			    "backend closed the connection before the reply "
			    "to %s",
			    name);
	if (n < 0)
		return fail(p, (int)n, "no reply to %s: %s", name,
			    lr_strerror((int)-n));
	lr_unix_close_fds(fds, nfds); /* a reply we take has none */
	rc =
	    lr_vhost_user_msg_check(r, (size_t)n, nfds, &ctx, why, sizeof(why));
	if (rc < 0)
		return fail(p, rc, "bad reply to %s: %s", name, why);
	if (r->hdr.request != req)
		return fail(p, -EPROTO, "reply to %s came for %s", name,
			    lr_vhost_user_request_name(r->hdr.request));
	return 0;
}

/* Send m with nfds of fds; when reply is set, its reply into *reply;
 * else, with REPLY_ACK, wait for the acknowledgement. 0 or -errno. */
static int
request(struct vu_port *p, struct lr_vhost_user_msg *m, const int *fds,
	unsigned nfds, struct lr_vhost_user_msg *reply)
{
	uint32_t req = m->hdr.request;
	int ack =
	    reply == NULL &&
	    lr_virtio_has(p->protocol, LR_VHOST_USER_PROTOCOL_F_REPLY_ACK);
	struct lr_vhost_user_msg r;
	int rc;

	if (ack)
		m->hdr.flags |= LR_VHOST_USER_NEED_REPLY;
	rc = lr_vhost_user_send(p->sock, m, fds, nfds, VU_MSG_TIMEOUT);
	if (rc < 0)
		return fail(p, rc, "cannot send %s: %s",
			    lr_vhost_user_request_name(req), lr_strerror(-rc));
	if (reply != NULL)
		return reply_get(p, req, reply);
	if (!ack)
		return 0;
	rc = reply_get(p, req, &r);
	if (rc < 0)
		return rc;
	if (r.hdr.size != sizeof(uint64_t) || r.payload.u64 != 0)
		return fail(p, -EPROTO, "backend refused %s (NAK %llu)",
			    lr_vhost_user_request_name(req),
			    (unsigned long long)r.payload.u64);
	return 0;
}

/* A request carrying a u64 value; its reply's u64 into *out if out. */
static int
req_u64(struct vu_port *p, uint32_t req, uint64_t v, int has_payload,
	uint64_t *out)
{
	struct lr_vhost_user_msg m, r;
	int rc;

	msg_init(&m, req, has_payload ? sizeof(uint64_t) : 0);
	m.payload.u64 = v;
	rc = request(p, &m, NULL, 0, out != NULL ? &r : NULL);
	if (rc == 0 && out != NULL)
		*out = r.payload.u64;
	return rc;
}

/* A ring-state request (index, num). */
static int
req_state(struct vu_port *p, uint32_t req, uint32_t index, uint32_t num)
{
	struct lr_vhost_user_msg m;

	msg_init(&m, req, sizeof(m.payload.state));
	m.payload.state.index = index;
	m.payload.state.num = num;
	return request(p, &m, NULL, 0, NULL);
}

/* Features and protocol features; 0 or -errno (p->why). */
static int
negotiate(struct vu_port *p)
{
	uint64_t want = VU_FEATURES, offer, proto = 0;
	int rc;

	if (p->want_mrg)
		want |= LR_VIRTIO_BIT(LR_VIRTIO_NET_F_MRG_RXBUF);
	if (p->want_in_order)
		want |= LR_VIRTIO_BIT(LR_VIRTIO_F_IN_ORDER);
	if (p->queues > 1)
		want |= LR_VIRTIO_BIT(LR_VIRTIO_NET_F_MQ);
	if (p->packed)
		want |= LR_VIRTIO_BIT(LR_VIRTIO_F_RING_PACKED);
	p->protocol = 0;
	rc = req_u64(p, LR_VHOST_USER_GET_FEATURES, 0, 0, &offer);
	if (rc < 0)
		return rc;
	if (!lr_virtio_has(offer, LR_VIRTIO_F_VERSION_1))
		return fail(p, -ENOTSUP,
			    "backend does not offer VERSION_1 (features "
			    "0x%llx)",
			    (unsigned long long)offer);
	if (p->packed && !lr_virtio_has(offer, LR_VIRTIO_F_RING_PACKED))
		return fail(p, -ENOTSUP,
			    "backend does not offer RING_PACKED (packed_vq=1; "
			    "features 0x%llx)",
			    (unsigned long long)offer);
	p->features = offer & want;
	if (lr_virtio_has(offer, LR_VHOST_USER_F_PROTOCOL_FEATURES)) {
		rc = req_u64(p, LR_VHOST_USER_GET_PROTOCOL_FEATURES, 0, 0,
			     &proto);
		if (rc < 0)
			return rc;
		proto &= VU_PROTOCOL;
		rc = req_u64(p, LR_VHOST_USER_SET_PROTOCOL_FEATURES, proto, 1,
			     NULL);
		if (rc < 0)
			return rc;
		p->protocol = proto; /* acks from now on */
	}
	return 0;
}

/* The backend takes our queue pairs; 0 or -errno. */
static int
queues_check(struct vu_port *p)
{
	uint64_t n = 1;
	int rc;

	if (p->nq > 1 && !lr_virtio_has(p->features, LR_VIRTIO_NET_F_MQ))
		return fail(p, -ENOTSUP,
			    "backend does not offer MQ for %u queue pairs",
			    p->nq);
	if (!lr_virtio_has(p->protocol, LR_VHOST_USER_PROTOCOL_F_MQ))
		return 0;
	rc = req_u64(p, LR_VHOST_USER_GET_QUEUE_NUM, 0, 0, &n);
	if (rc < 0)
		return rc;
	if (n < p->nq)
		return fail(p, -ENOTSUP,
			    "backend takes %llu queue pairs, we have %u",
			    (unsigned long long)n, p->nq);
	return 0;
}

/* Region r of a memory table: [addr, addr + size), guest-physical = our
 * virtual. */
static void
region_set(struct lr_vhost_user_region *r, const void *addr, uint64_t size)
{
	r->guest_addr = (uint64_t)(uintptr_t)addr;
	r->user_addr = r->guest_addr;
	r->size = size;
	r->mmap_offset = 0;
}

/* SET_MEM_TABLE: the port's region, then the hugepage segments shared
 * for zero-copy transmit (p->zc_*). */
static int
mem_table(struct vu_port *p)
{
	struct lr_vhost_user_msg m;
	struct lr_vhost_user_region *r = m.payload.memory.regions;
	int fds[LR_VHOST_USER_MAX_REGIONS];
	unsigned n = 1 + p->zc_n;

	msg_init(&m, LR_VHOST_USER_SET_MEM_TABLE,
		 (uint32_t)(offsetof(struct lr_vhost_user_memory, regions) +
			    n * sizeof(*r)));
	m.payload.memory.nregions = n;
	region_set(&r[0], p->shm.addr, p->shm.size);
	fds[0] = p->shm.fd;
	for (unsigned i = 0; i < p->zc_n; i++) {
		region_set(&r[1 + i], (void *)p->zc_lo[i],
			   p->zc_hi[i] - p->zc_lo[i]);
		fds[1 + i] = p->zc_fd[i];
	}
	return request(p, &m, fds, n, NULL);
}

/* A ring's eventfd request (KICK or CALL). */
static int
ring_fd(struct vu_port *p, uint32_t req, uint32_t index, int fd)
{
	struct lr_vhost_user_msg m;

	msg_init(&m, req, sizeof(uint64_t));
	m.payload.u64 = index;
	return request(p, &m, &fd, 1, NULL);
}

/* Set up ring index (virtqueue number) vr; 0 or -errno. */
static int
ring_setup(struct vu_port *p, uint32_t index, const struct vu_vring *vr)
{
	uint64_t base = (uint64_t)(uintptr_t)p->shm.addr;
	struct lr_vhost_user_msg m;
	int rc;

	if ((rc = ring_fd(p, LR_VHOST_USER_SET_VRING_CALL, index,
			  vr->call_fd)) < 0 ||
	    (rc = req_state(p, LR_VHOST_USER_SET_VRING_NUM, index, vr->num)) <
		0 ||
	    (rc = req_state(p, LR_VHOST_USER_SET_VRING_BASE, index,
			    p->packed ? VU_PACKED_BASE : 0)) < 0)
		return rc;
	/* packed: avail is the driver event area, used the device's */
	msg_init(&m, LR_VHOST_USER_SET_VRING_ADDR, sizeof(m.payload.addr));
	m.payload.addr.index = index;
	m.payload.addr.desc_addr = base + vr->desc_off;
	m.payload.addr.avail_addr = base + vr->avail_off;
	m.payload.addr.used_addr = base + vr->used_off;
	m.payload.addr.log_guest_addr = m.payload.addr.used_addr;
	rc = request(p, &m, NULL, 0, NULL);
	if (rc < 0)
		return rc;
	return ring_fd(p, LR_VHOST_USER_SET_VRING_KICK, index, vr->kick_fd);
}

int
lr_vu_setup_(struct vu_port *p)
{
	int rc;

	p->why[0] = '\0';
	if ((rc = negotiate(p)) < 0 || (rc = queues_check(p)) < 0 ||
	    (rc = req_u64(p, LR_VHOST_USER_SET_OWNER, 0, 0, NULL)) < 0 ||
	    (rc = req_u64(p, LR_VHOST_USER_SET_FEATURES, p->features, 1,
			  NULL)) < 0)
		return rc;
	lr_vu_rings_reset_(p);
	if ((rc = mem_table(p)) < 0)
		return rc;
	for (unsigned q = 0; q < p->nq; q++) {
		if ((rc = ring_setup(p, 2 * q, &p->rxq[q].vr)) < 0 ||
		    (rc = ring_setup(p, 2 * q + 1, &p->txq[q].vr)) < 0)
			return rc;
	}
	if (!lr_virtio_has(p->features, LR_VHOST_USER_F_PROTOCOL_FEATURES))
		return 0;
	for (unsigned r = 0; r < 2u * p->nq; r++)
		if ((rc = req_state(p, LR_VHOST_USER_SET_VRING_ENABLE, r, 1)) <
		    0)
			return rc;
	return 0;
}

void
lr_vu_teardown_msgs_(struct vu_port *p)
{
	struct lr_vhost_user_msg m, r;

	if (p->sock < 0)
		return;
	for (unsigned i = 0; i < 2u * p->nq; i++) {
		if (lr_virtio_has(p->features,
				  LR_VHOST_USER_F_PROTOCOL_FEATURES) &&
		    req_state(p, LR_VHOST_USER_SET_VRING_ENABLE, i, 0) < 0)
			return;
		msg_init(&m, LR_VHOST_USER_GET_VRING_BASE,
			 sizeof(m.payload.state));
		m.payload.state.index = i;
		if (request(p, &m, NULL, 0, &r) < 0)
			return;
	}
}
