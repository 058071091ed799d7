/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_memif's control channel: the messages of the memif protocol
 * (memif_proto.h), one function for each message a side sends and one
 * handler for each message a side receives (found through a table by
 * type), and what they change: a client's region and rings made at HELLO,
 * a server's regions mapped and rings checked at CONNECT, the queues
 * attached and the link brought up, and torn down again at a disconnect.
 *
 * A handler runs after lr_memif_msg_check_() has checked the message's
 * size, fds and the fields that need no state; it checks the rest against
 * the connection's state before using any of it, and returns 0 or a
 * negative errno with the reason in the connection's struct mif_why,
 * which names the message and the field (and the value); the connection
 * then ends with a DISCONNECT carrying that reason and a log line that
 * adds the port's name. Everything here runs under lr_memif_lock_, on the
 * control thread (or the fuzz hooks' thread).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>

#include "lr_log.h"
#include "lr_memory.h"
#include "lr_shm.h"
#include "lr_unix.h"
#include "memif_private.h"
#include "memif_proto.h"

/* ------------------------------------------------------------------ */
/* Control plane (under lr_memif_lock_). */

/* Send m with an optional fd (-1: none); 0 or -errno. */
static int
msg_send(int sock, const struct mif_msg *m, int fd)
{
	return lr_unix_send(sock, m, sizeof(*m), &fd, fd >= 0 ? 1 : 0);
}

static void
send_disconnect(int sock, const char *reason)
{
	struct mif_msg m;

	memset(&m, 0, sizeof(m));
	m.type = MIF_MSG_DISCONNECT;
	/* the reason string, cut to fit with its NUL */
	memcpy(m.disconnect.string, reason,
	       strnlen(reason, sizeof(m.disconnect.string) - 1));
	(void)msg_send(sock, &m, -1);
}

/* Tear down the connection state of p: queues stopped, memory unmapped,
 * fds closed. Sends DISCONNECT with reason when a connection is open and
 * the peer did not end it (by != BY_PEER); logs why: an error when we
 * found the peer at fault (BY_US), a notice otherwise. */
void
lr_memif_port_disconnect_(struct mif_port *p, const char *reason, int by)
{
	int peer_said = by == BY_PEER;
	int was_up = p->up;
	int keep;

	/* logged first: a peer that got our DISCONNECT finds the line */
	/* a client refused again for the same reason says it once */
	int again =
	    !was_up && reason != NULL &&
	    strncmp(p->last_reason, reason, sizeof(p->last_reason) - 1) == 0;

	if (reason != NULL)
		snprintf(p->last_reason, sizeof(p->last_reason), "%s", reason);
	if (reason != NULL && !again)
		lr_log(by != BY_US ? LR_LOG_NOTICE : LR_LOG_ERR, LR_LOGTYPE_PMD,
		       "%s: %s%s%s\n", p->name,
		       peer_said ? "peer disconnected: " : "disconnected: ",
		       reason, was_up ? " (link down)" : "");
	if (p->conn != NULL) {
		if (reason != NULL && !peer_said)
			send_disconnect(p->conn->fd, reason);
		lr_memif_conn_close_(p->conn);
	}
	for (unsigned q = 0; q < MIF_MAXQ; q++) {
		lr_memif_queue_quiesce_(&p->rxq[q]);
		lr_memif_queue_quiesce_(&p->txq[q]);
		lr_memif_zc_release_(&p->rxq[q], 1);
		lr_memif_zc_release_(&p->txq[q], 0);
		p->rxq[q].ring = p->txq[q].ring = NULL;
		p->rxq[q].nreg = p->txq[q].nreg = 0;
		p->rxq[q].nxzc = p->txq[q].nxzc = 0;
		p->rxq[q].kick_fd = p->txq[q].kick_fd = -1;
	}
	keep = p->server && lr_memif_zrx_keep_regions_(p);
	for (unsigned i = 0; i < MIF_MAX_REGIONS; i++) {
		if (keep) /* kept mapped for the headers still out */
			p->shm[i].map = p->shm[i].addr = NULL;
		lr_shm_free(&p->shm[i]);
		p->reg[i].addr = NULL;
		p->reg[i].size = 0;
	}
	p->nreg = 0;
	/* the rings gave their mbufs back: the other pools can go */
	for (unsigned i = 0; i < p->nxzc; i++)
		lr_memif_zc_put_(p->xzc_hold[i], p->name);
	p->nxzc = 0;
	for (unsigned d = 0; d < 2; d++) {
		for (unsigned i = 0; i < MIF_MAXQ; i++)
			lr_unix_close_fds(&p->ring_fd[d][i], 1);
		p->n_ring[d] = 0;
	}
	p->sent = 0;
	p->up = 0;
	atomic_store(&p->bad, 0);
	if (was_up)
		p->nb_disconnects++;
	if (!p->server)
		p->retry_at = lr_memif_now_ns_() + MIF_RETRY_NS;
}

/* Mark the queues whose rings exist up: the link is up. */
void
lr_memif_port_up_(struct mif_port *p)
{
	struct mif_queue *rx = p->rxq, *tx = p->txq;
	/* client: tx = C2S, rx = S2C; server: rx = C2S, tx = S2C */
	unsigned nrx = p->n_ring[p->server ? C2S : S2C];
	unsigned ntx = p->n_ring[p->server ? S2C : C2S];

	/* A DPDK server zeroes every ring's head and tail when CONNECT
	 * arrives: the client offers its rx buffers again now. */
	for (unsigned q = 0; !p->server && q < nrx && q < p->nb_rxq; q++)
		atomic_store_explicit(&rx[q].ring->head, rx[q].head,
				      memory_order_release);
	for (unsigned q = 0; q < nrx && q < p->nb_rxq; q++)
		atomic_store_explicit(&rx[q].up, 1, memory_order_seq_cst);
	for (unsigned q = 0; q < ntx && q < p->nb_txq; q++)
		atomic_store_explicit(&tx[q].up, 1, memory_order_seq_cst);
	p->up = 1;
	p->nb_connects++;
	p->last_reason[0] = '\0';
	LR_LOG(INFO, PMD,
	       "%s: connected to '%s' (%s, id %u): %u rx, %u tx rings of %u "
	       "slots (link up)\n",
	       p->name, p->peer_name, p->server ? "server" : "client", p->id,
	       LR_MIN(nrx, p->nb_rxq), LR_MIN(ntx, p->nb_txq),
	       1u << p->run_log2);
}

/* Attach queue q to ring r (C2S or S2C index i) for its role. */
static void
queue_attach(struct mif_port *p, struct mif_queue *q, int dir, unsigned i,
	     struct mif_ring *r, unsigned log2)
{
	q->ring = r;
	q->size = (uint16_t)(1u << log2);
	q->mask = (uint16_t)(q->size - 1);
	q->reg = p->reg;
	q->nreg = p->nreg;
	q->kick_fd = p->ring_fd[dir][i];
	q->bsize = p->bsize;
	q->p = p;
	if (p->server) {
		q->last = atomic_load_explicit(&r->tail, memory_order_acquire);
		q->rel = q->last;
		if (dir == C2S && q->zrx != NULL)
			lr_memif_zrx_attach_(p, q);
	} else if (p->zc) {
		q->zc_mp = p->zc_mp;
		q->zc_base = p->zcp->shm.addr;
		q->xzc = p->xzc;
		q->nxzc = p->nxzc;
		q->last = q->head = q->done = 0;
		if (dir == S2C) /* offer every slot a buffer of the pool */
			q->head = lr_memif_zc_rx_fill_(q, q->size);
	} else {
		unsigned global = dir == C2S ? i : p->n_ring[C2S] + i;
		size_t rings = (size_t)(p->n_ring[C2S] + p->n_ring[S2C]) *
			       mif_ring_bytes(log2);

		q->buf_off =
		    (uint32_t)(rings + (size_t)global * q->size * p->bsize);
		q->buf_base = p->reg[0].addr + q->buf_off;
		q->last = 0;
		q->head = dir == S2C ? q->size : 0;
	}
}

/* Client: make ring k of the nr in region 0 at a (rings of rbytes first,
 * then the buffers), with its eventfd; attach it to its queue. 0 or
 * -errno with w's reason. */
static int
client_make_ring(struct mif_port *p, unsigned k, unsigned nr, size_t rbytes,
		 void *a, struct mif_why *w)
{
	int dir = k < p->n_ring[C2S] ? C2S : S2C;
	unsigned i = dir == C2S ? k : k - p->n_ring[C2S];
	struct mif_ring *r =
	    (struct mif_ring *)((uint8_t *)a + (size_t)k * rbytes);
	unsigned rs = 1u << p->run_log2;
	uint32_t boff =
	    (uint32_t)((size_t)nr * rbytes + (size_t)k * rs * p->bsize);

	p->ring_fd[dir][i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (p->ring_fd[dir][i] < 0)
		return mif_refuse(w, -errno, "eventfd: %s", strerror(errno));
	p->ring_off[dir][i] = (uint32_t)(k * rbytes);
	p->ring_reg[dir][i] = 0;
	p->ring_log2[dir][i] = (uint8_t)p->run_log2;
	r->cookie = MIF_COOKIE;
	/* we poll our rx rings: no interrupts please */
	r->flags = dir == S2C ? MIF_RING_FLAG_MASK_INT : 0;
	/* zero-copy: the slots get their buffers from queue_attach() */
	for (unsigned s = 0; s < rs; s++) {
		r->desc[s].flags = 0;
		r->desc[s].region = p->zc ? ZC_REGION : 0;
		r->desc[s].offset = p->zc ? 0 : boff + s * p->bsize;
		r->desc[s].length = p->zc ? 0 : p->bsize;
		r->desc[s].metadata = 0;
	}
	atomic_store_explicit(&r->tail, 0, memory_order_relaxed);
	if (dir == C2S && i < p->nb_txq)
		queue_attach(p, &p->txq[i], dir, i, r, p->run_log2);
	if (dir == S2C && i < p->nb_rxq)
		queue_attach(p, &p->rxq[i], dir, i, r, p->run_log2);
	atomic_store_explicit(&r->head,
			      (uint16_t)(dir == C2S ? 0
					 : p->zc    ? p->rxq[i].head
						    : rs),
			      memory_order_release);
	return 0;
}

/* A memfd region r of at least size bytes named name for the peer,
 * sealed against shrinking as the protocol asks (its size rounded up to
 * whole hugepages when the EAL has hugepages and free ones remain, else
 * ordinary pages); 0 or -errno with w's reason. */
int
lr_memif_region_create_(const char *name, uint64_t size, struct lr_shm *r,
			struct mif_why *w)
{
	int ret;

	if (size > UINT32_MAX)
		return mif_refuse(w, -EFBIG,
				  "%s of %llu bytes: offsets are 32-bit "
				  "(lower bsize or rsize)",
				  name, (unsigned long long)size);
	ret = lr_shm_create(r, name, size,
			    lr_eal_has_hugepages() ? LR_SHM_HUGETLB : 0,
			    LR_SHM_SEAL_SHRINK);
	if (ret != 0)
		return mif_refuse(w, ret, "%s of %llu bytes: %s", name,
				  (unsigned long long)size, strerror(-ret));
	return 0;
}

/* Client: create region 0 (rings, then buffers; zero-copy: the rings
 * alone), the ring eventfds and the rings; 0 or -errno with w's reason. */
static int
client_make_region(struct mif_port *p, struct mif_why *w)
{
	unsigned nr = p->n_ring[C2S] + p->n_ring[S2C];
	size_t rbytes = mif_ring_bytes(p->run_log2);
	uint64_t size = (uint64_t)nr * rbytes;
	int ret;

	if (!p->zc)
		size += (uint64_t)nr * (1u << p->run_log2) * p->bsize;
	ret = lr_memif_region_create_("memif_region_0", size, &p->shm[0], w);
	if (ret != 0)
		return ret;
	p->reg[0].addr = p->shm[0].addr;
	p->reg[0].size = p->shm[0].size;
	p->nreg = 1;
	for (unsigned k = 0; k < nr; k++) {
		ret = client_make_ring(p, k, nr, rbytes, p->reg[0].addr, w);
		if (ret != 0)
			return ret;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Control messages: what each side sends, then one handler for each
 * message each side receives. A handler runs after lr_memif_msg_check_()
 * has checked the message's size, fds and the fields that need no state;
 * it checks the rest against the connection's state before using any of
 * it, and returns 0 or a negative errno with the reason in c->why (which
 * ends the connection: lr_memif_conn_fail_()). */

/* The client's INIT into m. */
static void
client_msg_init(const struct mif_port *p, struct mif_msg *m)
{
	m->type = MIF_MSG_INIT;
	m->init.version = MIF_VERSION;
	m->init.id = p->id;
	m->init.mode = 0;
	memcpy(m->init.secret, p->secret, strlen(p->secret));
	snprintf((char *)m->init.name, sizeof(m->init.name), "%s",
		 MIF_APP_NAME);
}

/* The client's ADD_REGION of region i into m, its memfd in *fd: 0 the
 * rings (and copy mode's buffers), 1 our zero-copy pool's buffers, 2..
 * other zero-copy ports' pools. */
static void
client_msg_add_region(const struct mif_port *p, unsigned i, struct mif_msg *m,
		      int *fd)
{
	const struct lr_shm *r = i == 0	  ? &p->shm[0]
				 : i == 1 ? &p->zcp->shm
					  : &p->xzc_hold[i - 2]->shm;

	m->type = MIF_MSG_ADD_REGION;
	m->add_region.index = (uint16_t)i;
	m->add_region.size = r->size;
	*fd = r->fd;
}

/* The client's ADD_RING of ring k (C2S rings first) into m, its eventfd
 * in *fd. */
static void
client_msg_add_ring(const struct mif_port *p, unsigned k, struct mif_msg *m,
		    int *fd)
{
	int dir = k < p->n_ring[C2S] ? C2S : S2C;
	unsigned i = dir == C2S ? k : k - p->n_ring[C2S];

	m->type = MIF_MSG_ADD_RING;
	m->add_ring.flags = dir == C2S ? MIF_ADD_RING_FLAG_C2S : 0;
	m->add_ring.index = (uint16_t)i;
	m->add_ring.region = p->ring_reg[dir][i];
	m->add_ring.offset = p->ring_off[dir][i];
	m->add_ring.log2_ring_size = p->ring_log2[dir][i];
	*fd = p->ring_fd[dir][i];
}

/* Handshake messages the client sends: INIT, the ADD_REGIONs (zero-copy:
 * our buffers in region 1, other ports' in 2..), the ADD_RINGs, CONNECT. */
static unsigned
client_msgs(const struct mif_port *p)
{
	unsigned nreg = p->zc ? 2 + p->nxzc : 1;

	return 2 + nreg + p->n_ring[C2S] + p->n_ring[S2C];
}

/* Client: send handshake message number p->sent on c; 0 or -errno with
 * c's reason. */
static int
client_send_next(struct mif_conn *c)
{
	struct mif_port *p = c->port;
	unsigned k = p->sent, nreg = p->zc ? 2 + p->nxzc : 1;
	struct mif_msg m;
	int fd = -1, ret;

	memset(&m, 0, sizeof(m));
	if (k == 0) {
		client_msg_init(p, &m);
	} else if (k < 1 + nreg) {
		client_msg_add_region(p, k - 1, &m, &fd);
	} else if (k < client_msgs(p) - 1) {
		client_msg_add_ring(p, k - 1 - nreg, &m, &fd);
	} else {
		m.type = MIF_MSG_CONNECT;
		snprintf((char *)m.connect.if_name, sizeof(m.connect.if_name),
			 "%s", p->name);
	}
	ret = msg_send(c->fd, &m, fd);
	if (ret < 0)
		return mif_refuse(&c->why, ret, "sending %s: %s",
				  lr_memif_msg_type_name_(m.type),
				  strerror(-ret));
	p->sent++;
	return 0;
}

/* Client: m does not fit the handshake where it stands. */
static int
client_unexpected(struct mif_conn *c, const struct mif_msg *m)
{
	return mif_refuse(&c->why, -EPROTO,
			  "unexpected %s (after %u handshake messages)",
			  lr_memif_msg_type_name_(m->type), c->port->sent);
}

/* Client, HELLO: the server's limits (name, versions, the highest region,
 * ring indexes and ring size it takes) size our rings and region; then
 * INIT goes out. */
static int
client_on_hello(struct mif_conn *c, const struct mif_msg *m, int *fd,
		struct mif_msg *reply)
{
	const struct mif_msg_hello *h = &m->hello;
	struct mif_port *p = c->port;
	int ret;

	if (p->sent != 0 || p->nreg != 0)
		return client_unexpected(c, m);
	if (p->zc && h->max_region < ZC_REGION)
		return mif_refuse(&c->why, -EPROTO,
				  "zero-copy needs 2 regions, the server "
				  "takes %u",
				  h->max_region + 1);
	if (h->min_version > MIF_VERSION || h->max_version < MIF_VERSION)
		return mif_refuse(&c->why, -EPROTONOSUPPORT,
				  "incompatible memif version: server speaks "
				  "0x%x..0x%x, we 0x%x",
				  h->min_version, h->max_version, MIF_VERSION);
	memcpy(p->peer_name, h->name, MIF_NAME_SZ);
	p->peer_name[MIF_NAME_SZ] = '\0';
	p->n_ring[C2S] = LR_MIN((unsigned)h->max_c2s_ring + 1, p->nb_txq);
	p->n_ring[S2C] = LR_MIN((unsigned)h->max_s2c_ring + 1, p->nb_rxq);
	p->run_log2 = LR_MIN(h->max_log2_ring_size, p->log2);
	if (p->zc)
		lr_memif_zc_hold_others_(
		    p, LR_MIN(MIF_MAX_REGIONS - 2u, h->max_region - 1u));
	ret = client_make_region(p, &c->why);
	return ret != 0 ? ret : client_send_next(c);
}

/* Client, ACK: the server took our last message; the next goes out. */
static int
client_on_ack(struct mif_conn *c, const struct mif_msg *m, int *fd,
	      struct mif_msg *reply)
{
	struct mif_port *p = c->port;

	if (p->sent == 0 || p->sent >= client_msgs(p))
		return client_unexpected(c, m);
	return client_send_next(c);
}

/* Client, CONNECTED (after our CONNECT, once): the link is up. */
static int
client_on_connected(struct mif_conn *c, const struct mif_msg *m, int *fd,
		    struct mif_msg *reply)
{
	struct mif_port *p = c->port;

	if (p->sent != client_msgs(p) || p->up)
		return client_unexpected(c, m);
	if (p->peer_name[0] == '\0') {
		memcpy(p->peer_name, m->connected.if_name, MIF_NAME_SZ);
		p->peer_name[MIF_NAME_SZ] = '\0';
	}
	lr_memif_port_up_(p);
	return 0;
}

/* Server: map region i the client sent to p, checking its file against
 * the size announced and its seal. 0 or -errno with w's reason. */
static int
server_map_region(struct mif_port *p, unsigned i, struct mif_why *w)
{
	struct lr_shm *r = &p->shm[i];
	unsigned long long size = p->reg[i].size;
	int ret = lr_shm_attach(r, r->fd, 0, size, LR_SHM_SEAL_SHRINK);

	if (ret == -ENODEV || ret == -ERANGE)
		return mif_refuse(
		    w, ret, "region %u: %s the %llu bytes announced", i,
		    ret == -ENODEV ? "not a file of" : "file shorter than",
		    size);
	if (ret == -EPERM)
		return mif_refuse(w, ret,
				  "region %u: not sealed against shrinking "
				  "(F_SEAL_SHRINK)",
				  i);
	if (ret != 0)
		return mif_refuse(w, ret, "region %u: mmap: %s", i,
				  strerror(-ret));
	p->reg[i].addr = r->addr;
	return 0;
}

/* Server: check ring i of direction dir of p (its eventfd came, it lies
 * inside its region, its cookie) and attach it to its queue. 0 or -errno
 * with w's reason. */
static int
server_attach_ring(struct mif_port *p, int dir, unsigned i, struct mif_why *w)
{
	const char *dname = dir == C2S ? "C2S" : "S2C";
	unsigned reg = p->ring_reg[dir][i];
	unsigned log2 = p->ring_log2[dir][i];
	uint64_t off = p->ring_off[dir][i];
	struct mif_ring *r;

	if (p->ring_fd[dir][i] < 0)
		return mif_refuse(w, -EPROTO,
				  "%s ring %u missing (rings %u..%u announced)",
				  dname, i, 0, p->n_ring[dir] - 1);
	if (reg >= p->nreg || off + mif_ring_bytes(log2) > p->reg[reg].size)
		return mif_refuse(w, -ERANGE,
				  "%s ring %u: region %u offset %llu size %zu "
				  "outside the regions",
				  dname, i, reg, (unsigned long long)off,
				  mif_ring_bytes(log2));
	r = (struct mif_ring *)(p->reg[reg].addr + off);
	if (r->cookie != MIF_COOKIE)
		return mif_refuse(w, -EINVAL,
				  "%s ring %u: cookie 0x%x (expected 0x%x)",
				  dname, i, r->cookie, MIF_COOKIE);
	p->run_log2 = log2;
	if (dir == C2S) {
		r->flags = MIF_RING_FLAG_MASK_INT; /* we poll */
		queue_attach(p, &p->rxq[i], dir, i, r, log2);
	} else {
		queue_attach(p, &p->txq[i], dir, i, r, log2);
	}
	return 0;
}

/* Server, INIT on a new connection: its version, the id of the port it
 * wants (started on this socket, not connected) and that port's secret;
 * then c is bound to the port. */
static int
server_on_init(struct mif_conn *c, const struct mif_msg *m, int *fd,
	       struct mif_msg *reply)
{
	const struct mif_msg_init *in = &m->init;
	char secret[MIF_SECRET_SZ + 1];
	struct mif_port *p;

	if (in->version != MIF_VERSION)
		return mif_refuse(&c->why, -EPROTONOSUPPORT,
				  "incompatible memif version 0x%x (we speak "
				  "0x%x)",
				  in->version, MIF_VERSION);
	p = lr_memif_server_find_(c->lis, in->id);
	if (p == NULL)
		return mif_refuse(&c->why, -ENODEV, "no interface with id %u",
				  in->id);
	if (p->conn != NULL)
		return mif_refuse(&c->why, -EBUSY, "id %u already connected",
				  in->id);
	memcpy(secret, in->secret, MIF_SECRET_SZ);
	secret[MIF_SECRET_SZ] = '\0';
	/* DPDK ignores a secret it does not require */
	if (p->secret[0] != '\0' && strcmp(secret, p->secret) != 0)
		return mif_refuse(&c->why, -EACCES,
				  secret[0] == '\0' ? "secret required"
						    : "incorrect secret");
	memcpy(p->peer_name, in->name, MIF_NAME_SZ);
	p->peer_name[MIF_NAME_SZ] = '\0';
	c->port = p;
	p->conn = c;
	return 0;
}

/* Server, ADD_REGION: the next region in index order, its memfd taken
 * over (mapped and checked at CONNECT). */
static int
server_on_add_region(struct mif_conn *c, const struct mif_msg *m, int *fd,
		     struct mif_msg *reply)
{
	struct mif_port *p = c->port;
	unsigned i = m->add_region.index;

	if (i != p->nreg)
		return mif_refuse(&c->why, -EINVAL,
				  "ADD_REGION: index %u (expected %u)", i,
				  p->nreg);
	p->shm[i].fd = *fd;
	*fd = -1;
	p->reg[i].size = m->add_region.size;
	p->nreg++;
	return 0;
}

/* Server, ADD_RING: the next ring of its direction in index order, one of
 * our queues, of the size of the rings before it; its eventfd taken over
 * (region and offset checked at CONNECT). */
static int
server_on_add_ring(struct mif_conn *c, const struct mif_msg *m, int *fd,
		   struct mif_msg *reply)
{
	const struct mif_msg_add_ring *a = &m->add_ring;
	struct mif_port *p = c->port;
	int dir = (a->flags & MIF_ADD_RING_FLAG_C2S) ? C2S : S2C;
	/* C2S rings feed our rx queues, S2C rings our tx queues */
	unsigned nq = dir == C2S ? p->nb_rxq : p->nb_txq;

	if (a->index >= nq || a->index != p->n_ring[dir])
		return mif_refuse(&c->why, -EINVAL,
				  "ADD_RING: %s ring index %u (expected %u, "
				  "we have %u %s queues)",
				  dir == C2S ? "C2S" : "S2C", a->index,
				  p->n_ring[dir], nq, dir == C2S ? "rx" : "tx");
	if (p->n_ring[C2S] + p->n_ring[S2C] > 0 &&
	    a->log2_ring_size != p->run_log2)
		return mif_refuse(&c->why, -EINVAL,
				  "ADD_RING: log2 ring size %u (earlier rings "
				  "%u)",
				  a->log2_ring_size, p->run_log2);
	p->run_log2 = a->log2_ring_size;
	p->ring_fd[dir][a->index] = *fd;
	*fd = -1;
	p->ring_reg[dir][a->index] = a->region;
	p->ring_off[dir][a->index] = a->offset;
	p->ring_log2[dir][a->index] = a->log2_ring_size;
	p->n_ring[dir]++;
	return 0;
}

/* Server, CONNECT: a region and a ring each way announced; every region
 * mapped and every ring checked and attached; *reply is CONNECTED (the
 * port comes up just before it is sent: conn_answer()). */
static int
server_on_connect(struct mif_conn *c, const struct mif_msg *m, int *fd,
		  struct mif_msg *reply)
{
	struct mif_port *p = c->port;
	int ret;

	if (p->nreg == 0 || p->n_ring[C2S] == 0 || p->n_ring[S2C] == 0)
		return mif_refuse(&c->why, -EPROTO,
				  "CONNECT before regions and rings (%u "
				  "regions, %u C2S, %u S2C rings)",
				  p->nreg, p->n_ring[C2S], p->n_ring[S2C]);
	for (unsigned i = 0; i < p->nreg; i++)
		if ((ret = server_map_region(p, i, &c->why)) != 0)
			return ret;
	for (int dir = 0; dir < 2; dir++)
		for (unsigned i = 0; i < p->n_ring[dir]; i++)
			if ((ret = server_attach_ring(p, dir, i, &c->why)) != 0)
				return ret;
	if (p->peer_name[0] == '\0') {
		memcpy(p->peer_name, m->connect.if_name, MIF_NAME_SZ);
		p->peer_name[MIF_NAME_SZ] = '\0';
	}
	reply->type = MIF_MSG_CONNECTED;
	snprintf((char *)reply->connected.if_name,
		 sizeof(reply->connected.if_name), "%s", p->name);
	return 0;
}

/* Server: HELLO, our limits, on connection fd just accepted; 0 or
 * -errno. */
int
lr_memif_send_hello_(int fd)
{
	struct mif_msg m;

	memset(&m, 0, sizeof(m));
	m.type = MIF_MSG_HELLO;
	snprintf((char *)m.hello.name, sizeof(m.hello.name), "%s",
		 MIF_APP_NAME);
	m.hello.min_version = MIF_VERSION;
	m.hello.max_version = MIF_VERSION;
	m.hello.max_region = MIF_MAX_REGIONS - 1;
	m.hello.max_c2s_ring = MIF_MAXQ - 1;
	m.hello.max_s2c_ring = MIF_MAXQ - 1;
	m.hello.max_log2_ring_size = MIF_MAX_LOG2_RING;
	return msg_send(fd, &m, -1);
}

/* Either side, DISCONNECT: the peer ends the connection with its code and
 * reason (a string that need not be terminated). */
static int
on_disconnect(struct mif_conn *c, const struct mif_msg *m, int *fd,
	      struct mif_msg *reply)
{
	char reason[MIF_REASON_SZ + 1];

	memcpy(reason, m->disconnect.string, MIF_REASON_SZ);
	reason[MIF_REASON_SZ] = '\0';
	mif_refuse(&c->why, -ECONNRESET, "%s (code %u)", reason,
		   m->disconnect.code);
	c->why.peer = 1;
	return -ECONNRESET;
}

typedef int (*mif_msg_fn)(struct mif_conn *c, const struct mif_msg *m, int *fd,
			  struct mif_msg *reply);

/* What each side does with each message it may receive once a connection
 * is bound to its port (a server's INIT binds it: server_dispatch()). */
static const mif_msg_fn client_msgs_in[MIF_MSG_NB_TYPES] = {
    [MIF_MSG_HELLO] = client_on_hello,
    [MIF_MSG_ACK] = client_on_ack,
    [MIF_MSG_CONNECTED] = client_on_connected,
    [MIF_MSG_DISCONNECT] = on_disconnect,
};
static const mif_msg_fn server_msgs_in[MIF_MSG_NB_TYPES] = {
    [MIF_MSG_ADD_REGION] = server_on_add_region,
    [MIF_MSG_ADD_RING] = server_on_add_ring,
    [MIF_MSG_CONNECT] = server_on_connect,
    [MIF_MSG_DISCONNECT] = on_disconnect,
};

/* Server: the handler of m on c, by where the handshake stands: INIT
 * first, nothing while connected but DISCONNECT. */
static int
server_dispatch(struct mif_conn *c, const struct mif_msg *m, int *fd,
		struct mif_msg *reply)
{
	const char *name = lr_memif_msg_type_name_(m->type);
	struct mif_port *p = c->port;

	reply->type = MIF_MSG_ACK;
	if (m->type == MIF_MSG_DISCONNECT)
		return on_disconnect(c, m, fd, reply);
	if (p == NULL && m->type == MIF_MSG_INIT)
		return server_on_init(c, m, fd, reply);
	if (p == NULL)
		return mif_refuse(&c->why, -EPROTO, "%s before INIT", name);
	if (p->up)
		return mif_refuse(&c->why, -EPROTO, "%s while connected", name);
	if (server_msgs_in[m->type] == NULL)
		return mif_refuse(&c->why, -EPROTO,
				  "unexpected %s during the handshake", name);
	return server_msgs_in[m->type](c, m, fd, reply);
}

/* Receive one message from sock: its length (0: peer closed, <0: error;
 * MIF_MSG_SZ + 1: longer than a message), the fds that came with it in
 * fds[] (*nfds; -1: refused by lr_unix_recv(), closed: more than
 * MIF_FDS_MAX, or a control message other than SCM_RIGHTS). */
static ssize_t
msg_recv(int sock, struct mif_msg *m, int *fds, int *nfds)
{
	unsigned n;
	ssize_t r;

	memset(m, 0, sizeof(*m));
	r = lr_unix_recv(sock, m, sizeof(*m), fds, MIF_FDS_MAX, &n);
	*nfds = (int)n;
	if (r == -EMSGSIZE)
		return MIF_MSG_SZ + 1;
	if (r == -ETOOMANYREFS || r == -EBADMSG) {
		*nfds = -1;
		return MIF_MSG_SZ;
	}
	return r;
}

/* End connection c (and its port's connection, if bound) for the reason
 * in c->why: by us (a DISCONNECT tells the peer why) or by the peer. */
void
lr_memif_conn_fail_(struct mif_conn *c)
{
	if (c->port != NULL) {
		lr_memif_port_disconnect_(c->port, c->why.text,
					  c->why.peer ? BY_PEER : BY_US);
		return;
	}
	LR_LOG(ERR, PMD, "net_memif: socket %s%s: connection refused: %s\n",
	       c->lis != NULL && c->lis->abstract ? "@" : "",
	       c->lis != NULL ? c->lis->path : "?", c->why.text);
	if (!c->why.peer)
		send_disconnect(c->fd, c->why.text);
	lr_memif_conn_close_(c);
}

/*
 * Act on message m (len bytes, nfds fds in fds[]; nfds -1: refused by the
 * receive) that arrived on c: checked (memif_proto.c), then handled by
 * the role's handler. 0 with *reply the answer to send (type NONE: none;
 * a client sends its own), or -errno with c->why. The fds are taken over
 * or closed either way. No socket call: the fuzz target
 * (test/fuzz/fuzz_memif.c) drives a connection with it.
 */
int
lr_memif_conn_msg_(struct mif_conn *c, const struct mif_msg *m, size_t len,
		   int *fds, int nfds, struct mif_msg *reply)
{
	int fd, ret;

	memset(reply, 0, sizeof(*reply));
	ret = lr_memif_msg_check_(m, len, nfds, &c->why);
	if (ret != 0) {
		lr_unix_close_fds(fds, nfds > 0 ? (unsigned)nfds : 0);
		return ret;
	}
	fd = nfds == 1 ? fds[0] : -1;
	if (c->lis != NULL)
		ret = server_dispatch(c, m, &fd, reply);
	else if (client_msgs_in[m->type] != NULL)
		ret = client_msgs_in[m->type](c, m, &fd, reply);
	else
		ret = client_unexpected(c, m);
	lr_unix_close_fds(&fd, 1);
	return ret;
}

/* Send reply (lr_memif_conn_msg_()) on c; a CONNECTED brings the port up. 0 or
 * -errno with c->why. */
static int
conn_answer(struct mif_conn *c, const struct mif_msg *reply)
{
	int ret;

	if (reply->type == MIF_MSG_NONE)
		return 0;
	/* Up before the peer hears CONNECTED: a client whose link is up
	 * knows the server's is too, so a peer that sends as soon as its
	 * link is up never meets a server that is not (and a failed send
	 * takes the port down again with the connection). */
	if (reply->type == MIF_MSG_CONNECTED)
		lr_memif_port_up_(c->port);
	ret = msg_send(c->fd, reply, -1);
	if (ret != 0)
		return mif_refuse(&c->why, ret, "sending %s: %s",
				  lr_memif_msg_type_name_(reply->type),
				  strerror(-ret));
	return 0;
}

/* Handle what arrived on connection c. */
void
lr_memif_conn_event_(struct mif_conn *c)
{
	struct mif_msg m, reply;
	int fds[MIF_FDS_MAX], nfds;
	ssize_t r;

	while (!c->dead) {
		r = msg_recv(c->fd, &m, fds, &nfds);
		if (r == -EAGAIN || r == -EINTR)
			return;
		if (r <= 0) {
			mif_refuse(&c->why, r == 0 ? -ECONNRESET : (int)r, "%s",
				   r == 0 ? "peer closed the connection"
					  : strerror((int)-r));
			c->why.peer = 1;
			lr_memif_conn_fail_(c);
			return;
		}
		if (lr_memif_conn_msg_(c, &m, (size_t)r, fds, nfds, &reply) !=
			0 ||
		    conn_answer(c, &reply) != 0) {
			lr_memif_conn_fail_(c);
			return;
		}
	}
}
