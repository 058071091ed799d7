/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_memif: net_memif's server as an untrusted client drives it. The
 * input is a port setting byte, then records of 129 bytes: a control byte
 * and 128 bytes. A record whose control byte has bit 7 clear is a control
 * message (the 128 bytes) sent on the connection, with fds the target makes
 * as the control byte says (bits 1-2: none, one, two, or "truncated";
 * bit 3: the wrong kind of fd, an eventfd for a region or a memfd for a
 * ring; bit 4: the region's memfd not sealed against shrinking; bit 5: the
 * memfd one byte shorter than announced, or no ring header written for an
 * ADD_RING; bit 6: a datagram of 64 (bit 0 set) or 129 bytes). It goes
 * through the driver's own handling (lr_memif_fuzz_msg_(): the checks of
 * memif_proto.c, then the server's state machine, without a socket).
 * A record with bit 7 set is an action: (ctl & 3) 0: the client closes and
 * connects again; 1: it posts descriptors on a C2S ring and the server's rx
 * burst reads them; 2: it offers buffers on an S2C ring and the server's tx
 * burst fills them; 3: the control thread's round.
 *
 * Every verdict is checked against a model of the protocol written here
 * from its description: a message is accepted exactly when its size, type,
 * fds and fields are in the protocol's ranges and it fits the handshake
 * (INIT with the right version, id and secret; regions and rings in index
 * order; CONNECT once every region is a sealed memfd at least as long as
 * announced and every ring lies inside its region with its cookie). A burst
 * must deliver exactly the packets of the descriptors that lie inside the
 * announced regions, byte for byte, and take the link down at the first
 * one that does not; a tx burst must write only inside the buffers offered,
 * end every packet's chain on its last descriptor, and publish the right
 * tail. After each input no fd is left open and every mbuf is back.
 */
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_memif_common.h"
#include "lr_eth_memif.h"
#include "lr_ethdev.h"
#include "lr_log.h"
#include "memif_fuzz.h"
#include "memif_proto.h"

#define FZ_ID	      7
#define FZ_REGION_MAX (512u * 1024) /* bytes of a region file at most */
#define FZ_MAXQ	      LR_MAX_QUEUES_PER_PORT
#define FZ_BURST      32
#define FZ_DESCS      9 /* descriptors one action record posts */
#define C2S	      0
#define S2C	      1

/* A region as the client made it. */
struct fz_region {
	uint8_t *map;  /* our mapping of the whole file, or NULL */
	size_t fsize;  /* bytes of the file (0: not a memfd) */
	uint64_t size; /* announced */
	int sealed;
};

struct fz_ring {
	unsigned reg;
	uint32_t off;
	unsigned log2;
};

/* The client's side of the connection, and what the server accepted. */
struct fz {
	struct mif_port *p;
	struct mif_conn *c;
	struct lr_mempool *mp;
	char secret[MIF_SECRET_SZ + 1];
	uint16_t nb_q[2]; /* server rx queues (C2S rings), tx (S2C) */
	int bound, up, disjoint;
	int zrx; /* the server receives with no copy */
	unsigned nreg;
	struct fz_region reg[MIF_MAX_REGIONS];
	struct fz_region pending; /* the region of the message in flight */
	unsigned nring[2];
	struct fz_ring ring[2][FZ_MAXQ];
	unsigned log2;
};

static uint8_t scratch[FZ_REGION_MAX];
static uint8_t *snap[MIF_MAX_REGIONS];
static struct mif_desc orig[1u << MIF_MAX_LOG2_RING];

/* ------------------------------------------------------------------ */
/* The model of the server's verdicts. */

/* The protocol's ranges for a message alone (len bytes, nfds fds). */
static int
model_msg_sane(const struct mif_msg *m, size_t len, int nfds)
{
	int fd = m->type == MIF_MSG_ADD_REGION || m->type == MIF_MSG_ADD_RING;

	if (len != MIF_MSG_SZ || nfds != fd)
		return 0;
	switch (m->type) {
	case MIF_MSG_ACK:
	case MIF_MSG_CONNECT:
	case MIF_MSG_CONNECTED:
	case MIF_MSG_DISCONNECT:
		return 1;
	case MIF_MSG_HELLO:
		return m->hello.min_version <= m->hello.max_version &&
		       m->hello.max_log2_ring_size != 0;
	case MIF_MSG_INIT:
		return m->init.mode == 0;
	case MIF_MSG_ADD_REGION:
		return m->add_region.index < MIF_MAX_REGIONS &&
		       m->add_region.size >= 1 &&
		       m->add_region.size <= (1ull << 40);
	case MIF_MSG_ADD_RING:
		return (m->add_ring.flags & ~1u) == 0 &&
		       m->add_ring.log2_ring_size >= 1 &&
		       m->add_ring.log2_ring_size <= MIF_MAX_LOG2_RING &&
		       m->add_ring.region < MIF_MAX_REGIONS &&
		       m->add_ring.offset % 8 == 0 &&
		       m->add_ring.private_hdr_size == 0;
	default:
		return 0;
	}
}

/* INIT m names our interface with the right version and secret. */
static int
model_init_ok(const struct fz *z, const struct mif_msg *m)
{
	char s[MIF_SECRET_SZ + 1];

	if (m->type != MIF_MSG_INIT || m->init.version != MIF_VERSION ||
	    m->init.id != FZ_ID)
		return 0;
	memcpy(s, m->init.secret, MIF_SECRET_SZ);
	s[MIF_SECRET_SZ] = '\0';
	return z->secret[0] == '\0' || strcmp(s, z->secret) == 0;
}

/* Ring i of direction d lies inside its region and has its cookie. */
static int
model_ring_ok(const struct fz *z, int d, unsigned i)
{
	const struct fz_ring *r = &z->ring[d][i];
	const struct fz_region *g = &z->reg[r->reg];
	uint32_t cookie;

	if (r->reg >= z->nreg ||
	    (uint64_t)r->off + mif_ring_bytes(r->log2) > g->size)
		return 0;
	memcpy(&cookie, g->map + r->off, sizeof(cookie));
	return cookie == MIF_COOKIE;
}

/* CONNECT now would be accepted. */
static int
model_connect_ok(const struct fz *z)
{
	if (z->nreg == 0 || z->nring[C2S] == 0 || z->nring[S2C] == 0)
		return 0;
	for (unsigned i = 0; i < z->nreg; i++)
		if (z->reg[i].fsize < z->reg[i].size || !z->reg[i].sealed)
			return 0;
	for (int d = 0; d < 2; d++)
		for (unsigned i = 0; i < z->nring[d]; i++)
			if (!model_ring_ok(z, d, i))
				return 0;
	return 1;
}

/* The server accepts m (len bytes, nfds fds) in the state of z. */
static int
model_accepts(const struct fz *z, const struct mif_msg *m, size_t len, int nfds)
{
	const struct mif_msg_add_ring *a = &m->add_ring;
	int d = (a->flags & MIF_ADD_RING_FLAG_C2S) ? C2S : S2C;

	if (!model_msg_sane(m, len, nfds) || m->type == MIF_MSG_DISCONNECT)
		return 0;
	if (!z->bound)
		return model_init_ok(z, m);
	if (z->up)
		return 0;
	switch (m->type) {
	case MIF_MSG_ADD_REGION:
		return m->add_region.index == z->nreg;
	case MIF_MSG_ADD_RING:
		return a->index < z->nb_q[d] && a->index == z->nring[d] &&
		       (z->nring[C2S] + z->nring[S2C] == 0 ||
			a->log2_ring_size == z->log2);
	case MIF_MSG_CONNECT:
		return model_connect_ok(z);
	default:
		return 0;
	}
}

/* ------------------------------------------------------------------ */
/* The client's side. */

static void
region_unmap(struct fz_region *g)
{
	if (g->map != NULL)
		munmap(g->map, g->fsize);
	memset(g, 0, sizeof(*g));
}

/* The connection ended: the port must be down; start a new one. */
static void
fz_reconnect(void *arg)
{
	struct fz *z = arg;

	if (z->c != NULL)
		lr_memif_fuzz_conn_free_(z->c);
	FUZZ_CHECK(!lr_memif_fuzz_up_(z->p));
	for (unsigned i = 0; i < MIF_MAX_REGIONS; i++)
		region_unmap(&z->reg[i]);
	region_unmap(&z->pending);
	z->bound = z->up = z->disjoint = 0;
	z->nreg = z->nring[C2S] = z->nring[S2C] = 0;
	z->c = lr_memif_fuzz_accept_(z->p);
	FUZZ_CHECK(z->c != NULL);
}

/* A memfd of size bytes for region messages (mapped into z->pending),
 * sealed unless told; -1 if the system refuses. */
static int
make_region_fd(struct fz *z, uint64_t size, uint8_t ctl)
{
	int fd = memfd_create("fuzz_memif", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	size_t fsize = size > FZ_REGION_MAX ? FZ_REGION_MAX : (size_t)size;

	if (fd < 0)
		return -1;
	if ((ctl & 0x20) && fsize > 0)
		fsize--;
	if (ftruncate(fd, (off_t)fsize) != 0) {
		close(fd);
		return -1;
	}
	if (fsize > 0) {
		z->pending.map = mmap(NULL, fsize, PROT_READ | PROT_WRITE,
				      MAP_SHARED, fd, 0);
		FUZZ_CHECK(z->pending.map != MAP_FAILED);
	}
	z->pending.fsize = fsize;
	z->pending.size = size;
	z->pending.sealed =
	    !(ctl & 0x10) && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK) == 0;
	return fd;
}

/* An ADD_RING about to be sent: write the ring's header where it says,
 * if that lies inside a region we made (the server checks it). */
static void
write_ring_header(struct fz *z, const struct mif_msg *m)
{
	const struct mif_msg_add_ring *a = &m->add_ring;
	struct mif_ring *r;

	if (a->region >= z->nreg || z->reg[a->region].map == NULL ||
	    a->offset % 8 != 0 || a->log2_ring_size > MIF_MAX_LOG2_RING ||
	    (uint64_t)a->offset + mif_ring_bytes(a->log2_ring_size) >
		z->reg[a->region].fsize)
		return;
	r = (struct mif_ring *)(z->reg[a->region].map + a->offset);
	r->cookie = MIF_COOKIE;
	r->flags = 0;
	atomic_store(&r->head, 0);
	atomic_store(&r->tail, 0);
}

/* The fds ctl says go with m, into fds[]; their count (-1: truncated). */
static int
make_fds(struct fz *z, const struct mif_msg *m, uint8_t ctl, int *fds)
{
	int n = (ctl >> 1) & 3, region = m->type == MIF_MSG_ADD_REGION;

	if (ctl & 0x08)
		region = !region;
	if (n == 3)
		return -1;
	for (int i = 0; i < n; i++) {
		if (i == 0 && region)
			fds[i] = make_region_fd(z, m->add_region.size, ctl);
		else
			fds[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		FUZZ_CHECK(fds[i] >= 0);
	}
	if (n > 0 && m->type == MIF_MSG_ADD_RING && !(ctl & 0x08) &&
	    !(ctl & 0x20))
		write_ring_header(z, m);
	return n;
}

/* The rings of z overlap none of each other. */
static int
rings_disjoint(const struct fz *z)
{
	for (int d = 0; d < 2; d++) {
		for (unsigned i = 0; i < z->nring[d]; i++) {
			const struct fz_ring *a = &z->ring[d][i];

			for (int e = 0; e < 2; e++) {
				for (unsigned j = 0; j < z->nring[e]; j++) {
					const struct fz_ring *b =
					    &z->ring[e][j];

					if ((d != e || i != j) &&
					    a->reg == b->reg &&
					    a->off < b->off + mif_ring_bytes(
								  b->log2) &&
					    b->off < a->off + mif_ring_bytes(
								  a->log2))
						return 0;
				}
			}
		}
	}
	return 1;
}

/* The server accepted m: the client's view follows. */
static void
model_apply(struct fz *z, const struct mif_msg *m)
{
	const struct mif_msg_add_ring *a = &m->add_ring;
	int d = (a->flags & MIF_ADD_RING_FLAG_C2S) ? C2S : S2C;

	switch (m->type) {
	case MIF_MSG_INIT:
		z->bound = 1;
		break;
	case MIF_MSG_ADD_REGION:
		z->reg[z->nreg] = z->pending;
		z->reg[z->nreg++].size = m->add_region.size; /* any fd */
		memset(&z->pending, 0, sizeof(z->pending));
		break;
	case MIF_MSG_ADD_RING:
		z->ring[d][a->index] =
		    (struct fz_ring){.reg = a->region,
				     .off = a->offset,
				     .log2 = a->log2_ring_size};
		z->nring[d]++;
		z->log2 = a->log2_ring_size;
		break;
	case MIF_MSG_CONNECT:
		z->up = 1;
		z->disjoint = rings_disjoint(z);
		break;
	}
}

/* A control message record. */
static void
fz_msg(void *arg, uint8_t ctl, const uint8_t *rec)
{
	struct fz *z = arg;
	struct mif_msg m, reply;
	int fds[3], nfds, expect, ret;
	size_t len =
	    (ctl & 0x40) ? ((ctl & 1) ? 64 : MIF_MSG_SZ + 1) : MIF_MSG_SZ;
	char why[192];

	memcpy(&m, rec, sizeof(m));
	nfds = make_fds(z, &m, ctl, fds);
	expect = model_accepts(z, &m, len, nfds);
	ret = lr_memif_fuzz_msg_(z->c, &m, len, fds, nfds, &reply, why,
				 sizeof(why));
	if (ret != 0 && expect)
		fprintf(stderr, "fuzz_memif: refused: %s\n", why);
	FUZZ_CHECK((ret == 0) == expect);
	if (ret != 0) {
		fz_reconnect(z);
		return;
	}
	FUZZ_CHECK(reply.type == (m.type == MIF_MSG_CONNECT ? MIF_MSG_CONNECTED
							    : MIF_MSG_ACK));
	model_apply(z, &m);
	region_unmap(&z->pending); /* a memfd that came with a ring */
	FUZZ_CHECK(lr_memif_fuzz_up_(z->p) == z->up);
}

/* ------------------------------------------------------------------ */
/* Bursts on the rings. */

/* {region, offset, length} lies inside a region the server accepted. */
static int
desc_in(const struct fz *z, uint16_t region, uint32_t off, uint32_t len)
{
	return region < z->nreg && (uint64_t)off + len <= z->reg[region].size;
}

/* Buffer [off, off + len) of region reg overlaps no ring. */
static int
clear_of_rings(const struct fz *z, unsigned reg, uint32_t off, uint32_t len)
{
	for (int d = 0; d < 2; d++) {
		for (unsigned i = 0; i < z->nring[d]; i++) {
			const struct fz_ring *r = &z->ring[d][i];

			if (len != 0 && r->reg == reg &&
			    off < r->off + mif_ring_bytes(r->log2) &&
			    r->off < (uint64_t)off + len)
				return 0;
		}
	}
	return 1;
}

static struct mif_ring *
fz_ring(const struct fz *z, int d, unsigned q)
{
	const struct fz_ring *r = &z->ring[d][q];

	return (struct mif_ring *)(z->reg[r->reg].map + r->off);
}

/* Post the descriptors of action record b on ring r (size slots) from
 * its head; the new head: past them, or (b[2] != 0) further from tail
 * than the ring allows. */
static uint16_t
post_descs(struct mif_ring *r, uint16_t size, const uint8_t *b)
{
	uint16_t head = atomic_load(&r->head), tail = atomic_load(&r->tail);
	unsigned k = b[1] % (FZ_DESCS + 1);

	for (unsigned j = 0; j < k; j++) {
		const uint8_t *x = b + 4 + 12 * j;
		struct mif_desc d = {0};

		memcpy(&d.region, x, 2);
		memcpy(&d.flags, x + 2, 2);
		memcpy(&d.length, x + 4, 4);
		memcpy(&d.offset, x + 8, 4);
		r->desc[(uint16_t)(head + j) & (size - 1)] = d;
	}
	head = b[2] ? (uint16_t)(tail + size + b[2]) : (uint16_t)(head + k);
	atomic_store_explicit(&r->head, head, memory_order_release);
	return head;
}

/* The control thread's round after a burst: the link is down exactly
 * when the burst found a fault, and the client connects again. */
static void
after_burst(struct fz *z, int bad)
{
	lr_memif_fuzz_poll_(z->p);
	FUZZ_CHECK(lr_memif_fuzz_up_(z->p) == !bad);
	if (bad)
		fz_reconnect(z);
}

/* What an rx burst of n reading C2S ring r from tail to end must do. */
struct rx_res {
	unsigned got;	/* packets */
	uint16_t tail;	/* published after */
	int bad;	/* the link goes down */
	uint64_t bytes; /* copied */
};

/* Whether the server receives this connection's frames with no copy: its
 * headers cover rings up to the default rsize. */
static int
zrx_on(const struct fz *z)
{
	return z->zrx && z->log2 <= LR_ETH_MEMIF_DEFAULT_LOG2_RING;
}

/* The model of an rx burst; with pkts (got of them), also checks every
 * packet's bytes against the region bytes its descriptors name. */
static struct rx_res
rx_model(const struct fz *z, struct mif_ring *r, uint16_t size, uint16_t tail,
	 uint16_t end, unsigned n, struct lr_mbuf **pkts, unsigned got)
{
	struct rx_res x = {.tail = tail};
	uint16_t cur = tail, mask = size - 1;
	unsigned want = LR_MIN(n, (uint16_t)(end - tail));

	if ((uint16_t)(end - tail) > size) {
		x.bad = 1;
		return x;
	}
	while (x.got < want && cur != end) {
		uint16_t start = cur;
		uint32_t pos = 0;

		for (;;) {
			struct mif_desc d = r->desc[cur & mask];

			if (!desc_in(z, d.region, d.offset, d.length) ||
			    (zrx_on(z) && d.length > UINT16_MAX)) {
				x.bad = 1;
				cur = start;
				goto stop;
			}
			/* bytes of a ring may change under the burst (the
			 * tail it publishes): only their count is checked */
			if (pkts != NULL && x.got < got &&
			    clear_of_rings(z, d.region, d.offset, d.length)) {
				const struct lr_mbuf *m = pkts[x.got];
				const void *data;

				FUZZ_CHECK((uint64_t)pos + d.length <=
					   m->pkt_len);
				data =
				    lr_pktmbuf_read(m, pos, d.length, scratch);
				FUZZ_CHECK(
				    memcmp(data,
					   z->reg[d.region].map + d.offset,
					   d.length) == 0);
			}
			pos += d.length;
			x.bytes += d.length;
			cur++;
			if (!(d.flags & MIF_DESC_FLAG_NEXT))
				break;
			if (cur == end) {
				x.bad = 1;
				cur = start;
				goto stop;
			}
		}
		if (pkts != NULL)
			FUZZ_CHECK(x.got < got && pkts[x.got]->pkt_len == pos);
		x.got++;
	}
stop:
	x.tail = cur;
	return x;
}

/* Action: descriptors on a C2S ring, the server's rx burst. */
static void
fz_rx(void *arg, const uint8_t *b)
{
	struct fz *z = arg;
	struct lr_mbuf *pkts[FZ_BURST];
	unsigned q = b[0] % z->nb_q[C2S], n = b[3] % (FZ_BURST + 1), got;
	uint16_t size = (uint16_t)(1u << z->log2), tail, head;
	struct rx_res x;
	struct mif_ring *r;

	if (!z->up || q >= z->nring[C2S]) {
		FUZZ_CHECK(lr_memif_fuzz_rx_(z->p, q, pkts, FZ_BURST) == 0);
		return;
	}
	if (!z->disjoint)
		return;
	r = fz_ring(z, C2S, q);
	tail = atomic_load_explicit(&r->tail, memory_order_acquire);
	head = post_descs(r, size, b);
	x = rx_model(z, r, size, tail, head, n, NULL, 0);
	if (x.bytes > (2u << 20))
		return; /* more than the pool holds: not read */
	got = lr_memif_fuzz_rx_(z->p, q, pkts, (uint16_t)n);
	FUZZ_CHECK(got == x.got);
	rx_model(z, r, size, tail, head, n, pkts, got);
	if (!zrx_on(z)) {
		FUZZ_CHECK(atomic_load(&r->tail) == x.tail);
	} else {
		/* zero copy: each segment a header over the client's buffer;
		 * the slots go back at the next burst once freed */
		FUZZ_CHECK(atomic_load(&r->tail) == tail);
		for (unsigned i = 0; i < got; i++)
			FUZZ_CHECK(pkts[i]->pool != z->mp &&
				   lr_mbuf_validate(pkts[i]) == 0);
	}
	lr_pktmbuf_free_bulk(pkts, got);
	if (zrx_on(z) && !x.bad) {
		FUZZ_CHECK(lr_memif_fuzz_rx_(z->p, q, pkts, 0) == 0);
		FUZZ_CHECK(atomic_load(&r->tail) == x.tail);
	}
	after_burst(z, x.bad);
}

/* Byte j of tx packet i of a burst salted salt. */
static uint8_t
pkt_byte(uint8_t salt, unsigned i, uint32_t j)
{
	return (uint8_t)(salt + i * 37 + j * 11 + (j >> 8));
}

/* Tx packet i of len bytes shaped as shape says (bit 0: in two parts,
 * bit 1: an empty segment after them, bit 2: an empty one before). */
static struct lr_mbuf *
make_pkt(struct lr_mempool *mp, uint8_t salt, unsigned i, uint32_t len,
	 unsigned shape)
{
	uint32_t seg[4], nseg = 0, k = 0;
	struct lr_mbuf *m = NULL;

	for (uint32_t j = 0; j < len; j++)
		scratch[j] = pkt_byte(salt, i, j);
	if (shape & 4)
		seg[nseg++] = 0;
	if (shape & 1)
		seg[nseg++] = len / 2;
	seg[nseg++] = (shape & 1) ? len - len / 2 : len;
	if (shape & 2)
		seg[nseg++] = 0;
	for (uint32_t n = 0; n < nseg; n++) {
		struct lr_mbuf *s = lr_pktmbuf_alloc(mp);

		FUZZ_CHECK(s != NULL);
		FUZZ_CHECK(lr_pktmbuf_append_copy(s, mp, scratch + k, seg[n]) ==
			   0);
		k += seg[n];
		if (m == NULL)
			m = s;
		else
			FUZZ_CHECK(lr_pktmbuf_chain(m, s) == 0);
	}
	FUZZ_CHECK(m->pkt_len == len);
	return m;
}

/* What a tx burst filling S2C ring buffers from tail to head must do. */
struct tx_res {
	unsigned sent; /* packets */
	uint16_t tail; /* published after */
	int bad;       /* the link goes down */
};

/* Copy the nfree descriptors from tail into orig[]; 1 when the buffers
 * inside the regions overlap no ring (the model can tell the outcome),
 * *exact when also no two overlap (it can tell every byte). */
static int
offered_clear(const struct fz *z, const struct mif_ring *r, uint16_t size,
	      uint16_t tail, uint16_t nfree, int *exact)
{
	*exact = nfree <= 64;
	for (uint16_t k = 0; k < nfree; k++) {
		const struct mif_desc *d = &orig[k];

		orig[k] = r->desc[(uint16_t)(tail + k) & (size - 1)];
		if (!desc_in(z, d->region, d->offset, d->length))
			continue;
		if (!clear_of_rings(z, d->region, d->offset, d->length))
			return 0;
		for (uint16_t j = 0; *exact && j < k; j++) {
			const struct mif_desc *e = &orig[j];

			if (desc_in(z, e->region, e->offset, e->length) &&
			    e->region == d->region && d->length && e->length &&
			    d->offset < (uint64_t)e->offset + e->length &&
			    e->offset < (uint64_t)d->offset + d->length)
				*exact = 0;
		}
	}
	return 1;
}

/* The model of a server tx burst of npk packets of lens[] bytes (byte j
 * of packet i: pkt_byte(salt, i, j)) into the buffers orig[] offered from
 * tail to head; with mem (copies of the regions, the ring at rs in them),
 * also writes there what the server must write. */
static struct tx_res
tx_model(const struct fz *z, uint16_t size, uint16_t tail, uint16_t head,
	 const uint32_t *lens, unsigned npk, uint8_t salt, uint8_t **mem,
	 struct mif_ring *rs)
{
	struct tx_res x = {.tail = tail};
	uint16_t nfree = (uint16_t)(head - tail), slot = tail, k;

	if (nfree > size) {
		/* the link goes down: every packet dropped, as on a down link
		 */
		x.sent = npk;
		x.bad = 1;
		return x;
	}
	for (; x.sent < npk; x.sent++) {
		uint32_t len = lens[x.sent], cap = 0, pos = 0;
		uint16_t pstart = slot;

		for (k = 0; k < nfree && cap < len; k++)
			cap += orig[(uint16_t)(slot + k - tail)].length;
		if (k == 0 && nfree > 0)
			k = 1; /* an empty packet takes one buffer */
		if (cap < len || k == 0)
			break;
		nfree = (uint16_t)(nfree - k);
		for (uint16_t j = 0; j < k; j++, slot++) {
			const struct mif_desc *d =
			    &orig[(uint16_t)(slot - tail)];
			uint32_t w = LR_MIN(len - pos, d->length);

			if (!desc_in(z, d->region, d->offset, d->length)) {
				x.bad = 1; /* the packets before it are sent */
				slot = pstart;
				goto out;
			}
			for (uint32_t t = 0; mem != NULL && t < w; t++)
				mem[d->region][d->offset + t] =
				    pkt_byte(salt, x.sent, pos + t);
			if (mem != NULL) {
				rs->desc[slot & (size - 1)].length = w;
				rs->desc[slot & (size - 1)].flags =
				    j + 1 < k ? MIF_DESC_FLAG_NEXT : 0;
			}
			pos += w;
		}
		FUZZ_CHECK(pos == len); /* the model's own sanity */
	}
out:
	x.tail = slot;
	if (mem != NULL)
		atomic_store(&rs->tail, slot);
	return x;
}

/* Action: buffers offered on an S2C ring, the server's tx burst. */
static void
fz_tx(void *arg, const uint8_t *b)
{
	struct fz *z = arg;
	struct lr_mbuf *pkts[8];
	uint32_t lens[8];
	unsigned q = b[0] % z->nb_q[S2C], npk = b[3] % 9, sent;
	uint16_t size = (uint16_t)(1u << z->log2), tail, head, nfree;
	uint8_t salt = b[2] ^ b[3];
	const struct fz_ring *zr = &z->ring[S2C][q];
	int clear, exact = 0;
	struct mif_ring *r;
	struct tx_res x;

	for (unsigned i = 0; i < npk; i++) {
		uint16_t v;

		memcpy(&v, b + 4 + 12 * FZ_DESCS + 2 * i, 2);
		lens[i] = v & 0x1fff;
		pkts[i] = make_pkt(z->mp, salt, i, lens[i], v >> 13);
	}
	if (!z->up || q >= z->nring[S2C]) {
		/* link down: dropped */
		FUZZ_CHECK(lr_memif_fuzz_tx_(z->p, q, pkts, npk) == npk);
		return;
	}
	if (!z->disjoint) {
		lr_pktmbuf_free_bulk(pkts, npk);
		return;
	}
	r = fz_ring(z, S2C, q);
	tail = atomic_load(&r->tail);
	head = post_descs(r, size, b);
	nfree = (uint16_t)(head - tail);
	clear = nfree > size || offered_clear(z, r, size, tail, nfree, &exact);
	for (unsigned i = 0; exact && i < z->nreg; i++)
		memcpy(snap[i], z->reg[i].map, z->reg[i].fsize);
	sent = lr_memif_fuzz_tx_(z->p, q, pkts, npk);
	FUZZ_CHECK(sent <= npk);
	lr_pktmbuf_free_bulk(pkts + sent, npk - sent);
	if (!clear) {
		/* the server may have written into a ring: no more bursts
		 * the model could tell on this connection */
		z->disjoint = 0;
		lr_memif_fuzz_poll_(z->p);
		if (!lr_memif_fuzz_up_(z->p))
			fz_reconnect(z);
		return;
	}
	x = tx_model(z, size, tail, head, lens, npk, salt, exact ? snap : NULL,
		     exact ? (struct mif_ring *)(snap[zr->reg] + zr->off)
			   : NULL);
	FUZZ_CHECK(sent == x.sent);
	FUZZ_CHECK(atomic_load(&r->tail) == x.tail);
	for (unsigned i = 0; exact && i < z->nreg; i++)
		FUZZ_CHECK(memcmp(snap[i], z->reg[i].map, z->reg[i].fsize) ==
			   0);
	after_burst(z, x.bad);
}

/* ------------------------------------------------------------------ */

static const struct fuzz_memif_acts fz_acts = {fz_msg, fz_reconnect, fz_rx,
					       fz_tx};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct lr_mempool *mp;
	static struct fz z;
	int nfd;

	if (mp == NULL) {
		mp = fuzz_memif_up("fuzz_memif");
		for (unsigned i = 0; i < MIF_MAX_REGIONS; i++) {
			snap[i] = malloc(FZ_REGION_MAX);
			FUZZ_CHECK(snap[i] != NULL);
		}
	}
	if (size < 1)
		return 0;
	nfd = fuzz_count_fds();
	memset(&z, 0, sizeof(z));
	z.mp = mp;
	if (data[0] & 1)
		snprintf(z.secret, sizeof(z.secret), "%s", "fuzz-secret");
	z.nb_q[C2S] = (uint16_t)(1 + ((data[0] >> 1) & 1));
	z.nb_q[S2C] = (uint16_t)(1 + ((data[0] >> 2) & 1));
	z.zrx = (data[0] >> 3) & 1;
	z.p = lr_memif_fuzz_port_new_(FZ_ID, z.secret, z.nb_q[C2S], z.nb_q[S2C],
				      mp, z.zrx);
	FUZZ_CHECK(z.p != NULL);
	z.c = lr_memif_fuzz_accept_(z.p);
	FUZZ_CHECK(z.c != NULL);
	fuzz_memif_records(&fz_acts, &z, z.p, &z.up, data, size);
	lr_memif_fuzz_conn_free_(z.c);
	z.c = NULL;
	for (unsigned i = 0; i < MIF_MAX_REGIONS; i++)
		region_unmap(&z.reg[i]);
	lr_memif_fuzz_port_free_(z.p);
	fuzz_memif_end(mp, nfd);
	return 0;
}
