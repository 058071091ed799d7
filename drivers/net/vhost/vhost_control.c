/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_vhost's side of the vhost-user protocol: a received message is
 * checked whole (lr_vhost_user_msg_check()), then handed to the one
 * function of its request (the handler table), which checks it against
 * the connection's state before using it; an answer goes back on the
 * connection (the request's reply, or REPLY_ACK's u64 when the frontend
 * asked). A refused message ends the connection (the caller logs why):
 * the link goes down and a server waits for the next frontend.
 *
 * Memory: each region of SET_MEM_TABLE is mapped once (lr_shm_attach():
 * the file must hold offset + size bytes) and translated through the
 * checked table p->mem; a new table first stops every ring. A ring is
 * mapped when it has its size, its addresses (each part inside one
 * region) and its kick (or NOFD), and is used while it is also enabled
 * (SET_VRING_ENABLE; without PROTOCOL_FEATURES, from its kick on) and
 * the port is started. The link is up when rings 0 and 1 (queue pair 0)
 * are, as DPDK's lib/vhost decides readiness. GET_VRING_BASE stops a ring
 * and returns where it stopped.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lr_errno.h"
#include "lr_log.h"
#include "vhost_private.h"

/* Refuse the message: -err with p->why set. */
static int __attribute__((format(printf, 3, 4)))
refuse(struct vh_port *p, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->why, sizeof(p->why), fmt, ap);
	va_end(ap);
	return -err;
}

/* Stop every ring of p (the datapath leaves them). */
static void
rings_stop(struct vh_port *p)
{
	for (unsigned i = 0; i < 2 * p->qp; i++)
		lr_vhost_ring_quiesce_(&p->ring[i]);
}

/* Where ring r stands, as SET/GET_VRING_BASE carry it: the next avail
 * index (split), or the position and wrap counter (packed: bit 15). */
static uint32_t
ring_base_now(const struct vh_ring *r)
{
	if (!r->mapped)
		return r->base;
	return r->packed
		   ? (uint32_t)r->last_avail | (uint32_t)r->avail_wrap << 15
		   : r->last_avail;
}

/* Forget where ring r was mapped; where it stopped is its base again
 * (every entry we took is used: last_used == last_avail). */
static void
ring_unmap(struct vh_ring *r)
{
	lr_vhost_ring_quiesce_(r);
	r->base = ring_base_now(r);
	r->mapped = 0;
	r->desc = NULL;
	r->avail = NULL;
	r->used = NULL;
}

/* Unmap p's memory table (rings stopped first). */
static void
mem_unmap(struct vh_port *p)
{
	for (unsigned i = 0; i < 2 * p->qp; i++)
		ring_unmap(&p->ring[i]);
	for (unsigned i = 0; i < LR_VHOST_USER_MAX_REGIONS; i++)
		lr_shm_free(&p->shm[i]);
	memset(&p->mem, 0, sizeof(p->mem));
}

/* Translate ring r's parts (its size and layout known) into ours; 0 or
 * -EINVAL with p->why. */
static int
ring_translate(struct vh_port *p, struct vh_ring *r, int ev)
{
	const struct lr_vhost_mem *m = &p->mem;
	const struct lr_vhost_user_vring_addr *a = &r->addr;
	int ok;

	if (r->packed) {
		r->pdesc = lr_vhost_mem_uva(m, a->desc_addr,
					    lr_vring_packed_desc_size(r->num));
		r->drv_ev = lr_vhost_mem_uva(m, a->avail_addr, 4);
		r->dev_ev = lr_vhost_mem_uva(m, a->used_addr, 4);
		ok = r->pdesc != NULL && r->drv_ev != NULL && r->dev_ev != NULL;
	} else {
		r->desc = lr_vhost_mem_uva(m, a->desc_addr,
					   lr_vring_desc_size(r->num));
		r->avail = lr_vhost_mem_uva(m, a->avail_addr,
					    lr_vring_avail_size(r->num) -
						(ev ? 0 : 2));
		r->used = lr_vhost_mem_uva(
		    m, a->used_addr, lr_vring_used_size(r->num) - (ev ? 0 : 2));
		ok = r->desc != NULL && r->avail != NULL && r->used != NULL;
	}
	if (ok)
		return 0;
	r->desc = NULL;
	r->avail = NULL;
	r->used = NULL;
	r->pdesc = NULL;
	r->drv_ev = r->dev_ev = NULL;
	return refuse(p, EINVAL,
		      "ring %u: desc 0x%llx avail 0x%llx used 0x%llx (%u "
		      "entries%s) not inside the memory table",
		      (unsigned)(r - p->ring), (unsigned long long)a->desc_addr,
		      (unsigned long long)a->avail_addr,
		      (unsigned long long)a->used_addr, r->num,
		      r->packed ? ", packed" : "");
}

/* Map ring r when it has all it needs: its parts, each inside one region
 * of the frontend's space. 0 (mapped, or not yet complete), or -EINVAL
 * with p->why. */
static int
ring_map(struct vh_port *p, struct vh_ring *r)
{
	int ev = lr_virtio_has(p->features, LR_VIRTIO_F_RING_EVENT_IDX);
	uint64_t f = p->features;

	if (r->mapped || !r->have_num || !r->have_addr || !r->have_kick ||
	    p->mem.nregions == 0)
		return 0;
	r->packed = lr_virtio_has(f, LR_VIRTIO_F_RING_PACKED);
	if (r->packed && (r->base & 0x7fff) >= r->num)
		return refuse(p, ERANGE, "ring %u: base 0x%x past %u entries",
			      (unsigned)(r - p->ring), r->base, r->num);
	if (ring_translate(p, r, ev) < 0)
		return -EINVAL;
	r->size = (uint16_t)r->num;
	r->mask = (uint16_t)(r->num - 1);
	r->last_avail = r->last_used = (uint16_t)(r->base & 0xffff);
	if (r->packed) {
		r->last_avail = r->last_used = (uint16_t)(r->base & 0x7fff);
		r->avail_wrap = r->used_wrap = (uint8_t)((r->base >> 15) & 1);
	}
	r->mem = &p->mem;
	lr_vhost_flush_reset_(r);
	r->hdr_len = (f & (LR_VIRTIO_BIT(LR_VIRTIO_F_VERSION_1) |
			   LR_VIRTIO_BIT(LR_VIRTIO_NET_F_MRG_RXBUF)))
			 ? LR_VIRTIO_NET_HDR_MRG_LEN
			 : LR_VIRTIO_NET_HDR_LEN;
	r->mrg = lr_virtio_has(f, LR_VIRTIO_NET_F_MRG_RXBUF);
	r->event_idx = (uint8_t)ev;
	r->guest_csum = lr_virtio_has(f, LR_VIRTIO_NET_F_GUEST_CSUM);
	r->guest_tso = lr_virtio_has(f, LR_VIRTIO_NET_F_GUEST_TSO4) &&
		       lr_virtio_has(f, LR_VIRTIO_NET_F_GUEST_TSO6);
	/* we poll: no kicks wanted */
	if (r->packed)
		__atomic_store_n(&r->dev_ev->flags,
				 LR_VRING_PACKED_EVENT_FLAG_DISABLE,
				 __ATOMIC_RELAXED);
	else if (!ev)
		__atomic_store_n(&r->used->flags, LR_VRING_USED_F_NO_NOTIFY,
				 __ATOMIC_RELAXED);
	else
		lr_vring_event_behind(lr_vring_avail_event(r->used, r->size),
				      r->last_avail, &r->ev_mark);
	r->mapped = 1;
	return 0;
}

void
lr_vhost_rings_update_(struct vh_port *p)
{
	int up;

	for (unsigned i = 0; i < 2 * p->qp; i++) {
		struct vh_ring *r = &p->ring[i];

		up = p->started && r->mapped && r->enabled;
		if (!up)
			lr_vhost_ring_quiesce_(r);
		else
			atomic_store_explicit(&r->up, 1, memory_order_seq_cst);
	}
	up = p->started && atomic_load(&p->ring[0].up) &&
	     atomic_load(&p->ring[1].up);
	if (up != p->up)
		LR_LOG(INFO, PMD, "%s: link %s\n", p->name, up ? "up" : "down");
	p->up = up;
}

void
lr_vhost_disconnect_(struct vh_port *p, const char *reason, int error)
{
	mem_unmap(p);
	for (unsigned i = 0; i < VH_NRING; i++) {
		struct vh_ring *r = &p->ring[i];

		lr_unix_close_fds(&r->kick_fd, 1);
		lr_unix_close_fds(&r->call_fd, 1);
		r->have_num = r->have_addr = r->have_kick = 0;
		r->enabled = 0;
		r->base = 0;
		r->num = 0;
	}
	if (p->conn_fd >= 0) {
		close(p->conn_fd);
		p->conn_fd = -1;
		p->nb_disconnects++;
	}
	p->features = 0;
	p->proto = 0;
	p->owner = 0;
	p->status = 0;
	atomic_store(&p->bad, 0);
	lr_vhost_rings_update_(p);
	if (reason == NULL)
		return;
	if (error)
		LR_LOG(ERR, PMD, "%s: frontend disconnected: %s\n", p->name,
		       reason);
	else
		LR_LOG(NOTICE, PMD, "%s: frontend disconnected: %s\n", p->name,
		       reason);
}

/* What a handler answers: a reply payload (size) or nothing. */
struct answer {
	struct lr_vhost_user_msg reply;
	int has;
};

/* Answer with a u64. */
static void
answer_u64(const struct lr_vhost_user_msg *m, struct answer *a, uint64_t v)
{
	a->reply.hdr.request = m->hdr.request;
	a->reply.hdr.size = 8;
	a->reply.payload.u64 = v;
	a->has = 1;
}

typedef int (*handler_t)(struct vh_port *p, const struct lr_vhost_user_msg *m,
			 int *fds, unsigned nfds, struct answer *a);

static int
h_get_features(struct vh_port *p, const struct lr_vhost_user_msg *m, int *fds,
	       unsigned nfds, struct answer *a)
{
	answer_u64(m, a, VH_FEATURES);
	return 0;
}

static int
h_set_features(struct vh_port *p, const struct lr_vhost_user_msg *m, int *fds,
	       unsigned nfds, struct answer *a)
{
	uint64_t f = m->payload.u64;

	if (f & ~VH_FEATURES)
		return refuse(p, EINVAL,
			      "SET_FEATURES: 0x%llx has bits not offered "
			      "(0x%llx)",
			      (unsigned long long)f,
			      (unsigned long long)(f & ~VH_FEATURES));
	if (f != p->features) {
		rings_stop(p);
		for (unsigned i = 0; i < 2 * p->qp; i++)
			ring_unmap(&p->ring[i]);
	}
	p->features = f;
	LR_LOG(INFO, PMD,
	       "%s: features 0x%llx: %s ring, mergeable buffers %s, in-order "
	       "%s, event idx %s\n",
	       p->name, (unsigned long long)f,
	       lr_virtio_has(f, LR_VIRTIO_F_RING_PACKED) ? "packed" : "split",
	       lr_virtio_has(f, LR_VIRTIO_NET_F_MRG_RXBUF) ? "on" : "off",
	       lr_virtio_has(f, LR_VIRTIO_F_IN_ORDER) ? "on" : "off",
	       lr_virtio_has(f, LR_VIRTIO_F_RING_EVENT_IDX) ? "on" : "off");
	for (unsigned i = 0; i < 2 * p->qp; i++)
		if (ring_map(p, &p->ring[i]) < 0)
			return -EINVAL;
	return 0;
}

static int
h_set_owner(struct vh_port *p, const struct lr_vhost_user_msg *m, int *fds,
	    unsigned nfds, struct answer *a)
{
	p->owner = 1;
	return 0;
}

static int
h_reset_owner(struct vh_port *p, const struct lr_vhost_user_msg *m, int *fds,
	      unsigned nfds, struct answer *a)
{
	int conn = p->conn_fd;

	p->conn_fd = -1; /* the connection stays */
	lr_vhost_disconnect_(p, NULL, 0);
	p->conn_fd = conn;
	return 0;
}

/* Map the regions of table t from fds (taken) into p->mem. */
static int
mem_map(struct vh_port *p, const struct lr_vhost_user_memory *t, int *fds)
{
	for (uint32_t i = 0; i < t->nregions; i++) {
		const struct lr_vhost_user_region *g = &t->regions[i];
		int rc = lr_shm_attach(&p->shm[i], fds[i], g->mmap_offset,
				       g->size, 0);

		if (rc < 0)
			return refuse(p, -rc,
				      "SET_MEM_TABLE: region %u (0x%llx bytes "
				      "at offset 0x%llx) does not map: %s",
				      i, (unsigned long long)g->size,
				      (unsigned long long)g->mmap_offset,
				      lr_strerror(-rc));
		fds[i] = -1;
		p->mem.r[i].guest_addr = g->guest_addr;
		p->mem.r[i].user_addr = g->user_addr;
		p->mem.r[i].size = g->size;
		p->mem.r[i].host = p->shm[i].addr;
	}
	p->mem.nregions = t->nregions;
	return 0;
}

static int
h_set_mem_table(struct vh_port *p, const struct lr_vhost_user_msg *m, int *fds,
		unsigned nfds, struct answer *a)
{
	int rc;

	mem_unmap(p);
	rc = mem_map(p, &m->payload.memory, fds);
	if (rc < 0) {
		mem_unmap(p);
		return rc;
	}
	for (unsigned i = 0; i < 2 * p->qp; i++)
		if (ring_map(p, &p->ring[i]) < 0)
			return -EINVAL;
	return 0;
}

static int
h_set_vring_num(struct vh_port *p, const struct lr_vhost_user_msg *m, int *fds,
		unsigned nfds, struct answer *a)
{
	struct vh_ring *r = &p->ring[m->payload.state.index];

	ring_unmap(r);
	r->num = m->payload.state.num;
	r->have_num = 1;
	return ring_map(p, r);
}

static int
h_set_vring_addr(struct vh_port *p, const struct lr_vhost_user_msg *m, int *fds,
		 unsigned nfds, struct answer *a)
{
	struct vh_ring *r = &p->ring[m->payload.addr.index];

	ring_unmap(r);
	r->addr = m->payload.addr;
	r->have_addr = 1;
	return ring_map(p, r);
}

static int
h_set_vring_base(struct vh_port *p, const struct lr_vhost_user_msg *m, int *fds,
		 unsigned nfds, struct answer *a)
{
	struct vh_ring *r = &p->ring[m->payload.state.index];

	ring_unmap(r);
	r->base = m->payload.state.num;
	return ring_map(p, r);
}

static int
h_get_vring_base(struct vh_port *p, const struct lr_vhost_user_msg *m, int *fds,
		 unsigned nfds, struct answer *a)
{
	uint32_t idx = m->payload.state.index;
	struct vh_ring *r = &p->ring[idx];
	uint32_t base = ring_base_now(r);

	ring_unmap(r);
	lr_unix_close_fds(&r->kick_fd, 1);
	r->have_kick = 0;
	r->base = base;
	a->reply.hdr.request = m->hdr.request;
	a->reply.hdr.size = sizeof(a->reply.payload.state);
	a->reply.payload.state.index = idx;
	a->reply.payload.state.num = base;
	a->has = 1;
	return 0;
}

static int
h_set_vring_kick(struct vh_port *p, const struct lr_vhost_user_msg *m, int *fds,
		 unsigned nfds, struct answer *a)
{
	struct vh_ring *r = &p->ring[m->payload.u64 & 0xff];

	ring_unmap(r);
	lr_unix_close_fds(&r->kick_fd, 1);
	if (nfds == 1) {
		r->kick_fd = fds[0];
		fds[0] = -1;
	}
	r->have_kick = 1;
	if (!lr_virtio_has(p->features, LR_VHOST_USER_F_PROTOCOL_FEATURES))
		r->enabled = 1;
	return ring_map(p, r);
}

static int
h_set_vring_call(struct vh_port *p, const struct lr_vhost_user_msg *m, int *fds,
		 unsigned nfds, struct answer *a)
{
	struct vh_ring *r = &p->ring[m->payload.u64 & 0xff];

	lr_vhost_ring_quiesce_(r); /* the datapath writes call_fd */
	lr_unix_close_fds(&r->call_fd, 1);
	if (nfds == 1) {
		r->call_fd = fds[0];
		fds[0] = -1;
	}
	return 0;
}

static int
h_set_vring_err(struct vh_port *p, const struct lr_vhost_user_msg *m, int *fds,
		unsigned nfds, struct answer *a)
{
	return 0; /* we report no ring errors; the descriptor is closed */
}

static int
h_get_protocol_features(struct vh_port *p, const struct lr_vhost_user_msg *m,
			int *fds, unsigned nfds, struct answer *a)
{
	answer_u64(m, a, VH_PROTOCOL_FEATURES);
	return 0;
}

static int
h_set_protocol_features(struct vh_port *p, const struct lr_vhost_user_msg *m,
			int *fds, unsigned nfds, struct answer *a)
{
	uint64_t f = m->payload.u64;

	if (f & ~VH_PROTOCOL_FEATURES)
		return refuse(p, EINVAL,
			      "SET_PROTOCOL_FEATURES: 0x%llx has bits not "
			      "offered (0x%llx)",
			      (unsigned long long)f,
			      (unsigned long long)VH_PROTOCOL_FEATURES);
	p->proto = f;
	return 0;
}

static int
h_get_queue_num(struct vh_port *p, const struct lr_vhost_user_msg *m, int *fds,
		unsigned nfds, struct answer *a)
{
	answer_u64(m, a, p->qp);
	return 0;
}

static int
h_set_vring_enable(struct vh_port *p, const struct lr_vhost_user_msg *m,
		   int *fds, unsigned nfds, struct answer *a)
{
	p->ring[m->payload.state.index].enabled = (int)m->payload.state.num;
	return 0;
}

static int
h_set_status(struct vh_port *p, const struct lr_vhost_user_msg *m, int *fds,
	     unsigned nfds, struct answer *a)
{
	p->status = (uint8_t)m->payload.u64;
	return 0;
}

static int
h_get_status(struct vh_port *p, const struct lr_vhost_user_msg *m, int *fds,
	     unsigned nfds, struct answer *a)
{
	answer_u64(m, a, p->status);
	return 0;
}

/* The requests we serve; the others are refused by name. */
static const handler_t handlers[LR_VHOST_USER_REQUEST_MAX] = {
    [LR_VHOST_USER_GET_FEATURES] = h_get_features,
    [LR_VHOST_USER_SET_FEATURES] = h_set_features,
    [LR_VHOST_USER_SET_OWNER] = h_set_owner,
    [LR_VHOST_USER_RESET_OWNER] = h_reset_owner,
    [LR_VHOST_USER_SET_MEM_TABLE] = h_set_mem_table,
    [LR_VHOST_USER_SET_VRING_NUM] = h_set_vring_num,
    [LR_VHOST_USER_SET_VRING_ADDR] = h_set_vring_addr,
    [LR_VHOST_USER_SET_VRING_BASE] = h_set_vring_base,
    [LR_VHOST_USER_GET_VRING_BASE] = h_get_vring_base,
    [LR_VHOST_USER_SET_VRING_KICK] = h_set_vring_kick,
    [LR_VHOST_USER_SET_VRING_CALL] = h_set_vring_call,
    [LR_VHOST_USER_SET_VRING_ERR] = h_set_vring_err,
    [LR_VHOST_USER_GET_PROTOCOL_FEATURES] = h_get_protocol_features,
    [LR_VHOST_USER_SET_PROTOCOL_FEATURES] = h_set_protocol_features,
    [LR_VHOST_USER_GET_QUEUE_NUM] = h_get_queue_num,
    [LR_VHOST_USER_SET_VRING_ENABLE] = h_set_vring_enable,
    [LR_VHOST_USER_SET_STATUS] = h_set_status,
    [LR_VHOST_USER_GET_STATUS] = h_get_status,
};

/* Send answer a (or the REPLY_ACK of m when it asked for one: rc). */
static int
answer_send(struct vh_port *p, const struct lr_vhost_user_msg *m,
	    struct answer *a, int rc)
{
	int err;

	if (!a->has &&
	    !(m->hdr.flags & LR_VHOST_USER_NEED_REPLY &&
	      p->proto & LR_VIRTIO_BIT(LR_VHOST_USER_PROTOCOL_F_REPLY_ACK)))
		return rc;
	if (!a->has)
		answer_u64(m, a, rc < 0 ? 1 : 0);
	a->reply.hdr.flags = LR_VHOST_USER_VERSION | LR_VHOST_USER_REPLY;
	err = lr_vhost_user_send(p->conn_fd, &a->reply, NULL, 0,
				 VH_MSG_TIMEOUT_MS);
	if (err < 0 && rc == 0)
		return refuse(p, -err, "%s: reply not sent: %s",
			      lr_vhost_user_request_name(m->hdr.request),
			      lr_strerror(-err));
	return rc;
}

int
lr_vhost_msg_(struct vh_port *p, const struct lr_vhost_user_msg *m, size_t len,
	      int *fds, unsigned nfds)
{
	struct lr_vhost_user_check_ctx ctx = {
	    p->qp, lr_virtio_has(p->features, LR_VIRTIO_F_RING_PACKED), false};
	struct answer a;
	int rc;

	rc =
	    lr_vhost_user_msg_check(m, len, nfds, &ctx, p->why, sizeof(p->why));
	if (rc < 0)
		return rc;
	LR_LOG(DEBUG, PMD, "%s: %s 0x%llx\n", p->name,
	       lr_vhost_user_request_name(m->hdr.request),
	       (unsigned long long)m->payload.u64);
	if (handlers[m->hdr.request] == NULL)
		return refuse(p, ENOTSUP, "%s: not supported",
			      lr_vhost_user_request_name(m->hdr.request));
	memset(&a, 0, sizeof(a));
	rc = handlers[m->hdr.request](p, m, fds, nfds, &a);
	rc = answer_send(p, m, &a, rc);
	lr_vhost_rings_update_(p);
	return rc;
}
