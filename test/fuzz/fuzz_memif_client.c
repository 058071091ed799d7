/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_memif_client: net_memif's client as an untrusted server drives it,
 * through the control thread's own code on a real socket (a socketpair:
 * lr_memif_fuzz_client_connect_()), so the client's receive path
 * (datagram sizes, SCM_RIGHTS, truncated fds) is exercised as well as its
 * state machine and bursts. The input is a setting byte (bit 0: zero-copy;
 * bit 1: two rx queues; bit 2: two tx queues; bits 3-5: log2 of the ring
 * size, 1..6), then records of 129 bytes: a control byte and 128 bytes.
 *
 * A record whose control byte has bit 7 clear is a message from the
 * server (the 128 bytes), sent with (ctl >> 1) & 3 eventfds (3: five, more
 * than the client takes: truncated) in a datagram of 128 bytes, or (bit 6)
 * of 64 (bit 0 set) or 129. A record with bit 7 set is an action: (ctl & 3)
 * 0: the server closes the connection (and a new one is made); 1: the
 * server fills S2C buffers and moves the tail, then the client's rx burst;
 * 2: the server takes C2S slots by moving the tail, then the client's tx
 * burst; 3: the control thread's round.
 *
 * Invariants, against a model of the protocol written here:
 *  - a message is accepted exactly when it fits the handshake (HELLO
 *    first with a version range holding 2.0, a ring size, no fds, and a
 *    second region for zero-copy; an ACK for each message the client sent
 *    before CONNECT; CONNECTED after CONNECT, once); the client's answers
 *    are INIT, its regions (sealed memfds at least as long as announced),
 *    its rings (inside region 0, with their cookie, in index order), then
 *    CONNECT; anything else ends the connection with a DISCONNECT whose
 *    reason is a non-empty string (none answers the server's own
 *    DISCONNECT, whose reason, NUL or not, becomes the port's);
 *  - every buffer the client offers or fills lies inside its regions, off
 *    its rings; an rx burst delivers exactly the packets of the valid
 *    descriptors, each byte as the server wrote it in the buffer the
 *    client offered (never where the descriptor points), and a bad
 *    descriptor or index takes the link down with a named reason; a tx
 *    burst places exactly the packets that fit, byte for byte, each chain
 *    ending on its last descriptor;
 *  - after each input no fd is left open, every mbuf is back in its pool
 *    (the zero-copy pool too).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_memif_common.h"
#include "lr_log.h"
#include "lr_unix.h"
#include "memif_fuzz.h"
#include "memif_proto.h"

#define FC_BSIZE 128
#define FC_BURST 32
#define FC_DESCS 9
#define C2S	 0
#define S2C	 1

/* The server's view of one connection, and the client's settings. */
struct fc {
	struct mif_port *p;
	struct mif_conn *c;
	int sfd; /* the server's end */
	struct lr_mempool *mp, *zmp;
	int zc;
	unsigned nq[2]; /* the client's tx (C2S) and rx (S2C) queues */
	unsigned log2;
	/* handshake */
	int hello, up;
	unsigned sent; /* messages the client sent on this connection */
	unsigned nreg, nring[2], run_log2;
	uint8_t *reg[2];
	uint64_t reg_size[2];
	uint32_t ring_off[2][2];
	/* datapath: the server's cursors and what the client offered */
	uint16_t s2c_tail[2], c2s_tail[2];
	struct mif_desc offered[2][1u << 6];
};

static uint8_t scratch[1 << 16];

static unsigned
nreg_of(const struct fc *z)
{
	return z->zc ? 2 : 1;
}

/* Messages the client sends up to CONNECT: INIT, regions, rings, CONNECT. */
static unsigned
last_of(const struct fc *z)
{
	return 2 + nreg_of(z) + z->nring[C2S] + z->nring[S2C];
}

static struct mif_ring *
ring_of(const struct fc *z, int d, unsigned i)
{
	return (struct mif_ring *)(z->reg[0] + z->ring_off[d][i]);
}

/* [off, off + len) of region r lies inside it and clear of every ring. */
static int
buf_ok(const struct fc *z, unsigned r, uint64_t off, uint64_t len)
{
	if (r >= z->nreg || off + len > z->reg_size[r])
		return 0;
	for (int d = 0; r == 0 && d < 2; d++)
		for (unsigned i = 0; i < z->nring[d]; i++)
			if (off < z->ring_off[d][i] +
				      mif_ring_bytes(z->run_log2) &&
			    z->ring_off[d][i] < off + len)
				return 0;
	return 1;
}

/* Receive one message the client sent, if any: 1 with m and its fd (-1:
 * none; more than one is a failure), or 0. */
static int
srv_recv(struct fc *z, struct mif_msg *m, int *fd)
{
	unsigned n;
	ssize_t r = lr_unix_recv(z->sfd, m, sizeof(*m), fd, 1, &n);

	/* longer than a message, more than one fd, or not SCM_RIGHTS */
	FUZZ_CHECK(r != -EMSGSIZE && r != -ETOOMANYREFS && r != -EBADMSG);
	if (n == 0)
		*fd = -1;
	if (r <= 0)
		return 0;
	FUZZ_CHECK(r == MIF_MSG_SZ);
	z->sent++;
	return 1;
}

/* Nothing more from the client. */
static void
srv_none(struct fc *z)
{
	struct mif_msg m;
	int fd;

	FUZZ_CHECK(srv_recv(z, &m, &fd) == 0);
}

static void
fc_drop_conn(struct fc *z)
{
	if (z->c != NULL)
		lr_memif_fuzz_conn_free_(z->c);
	z->c = NULL;
	if (z->sfd >= 0)
		close(z->sfd);
	z->sfd = -1;
	for (int i = 0; i < 2; i++) {
		if (z->reg[i] != NULL)
			munmap(z->reg[i], z->reg_size[i]);
		z->reg[i] = NULL;
	}
	FUZZ_CHECK(!lr_memif_fuzz_up_(z->p));
	/* the rings' mbufs are back with the link */
	FUZZ_CHECK(z->zmp == NULL || lr_mempool_in_use_count(z->zmp) == 0);
}

/* A new connection; the client waits for HELLO. */
static void
fc_connect(struct fc *z)
{
	fc_drop_conn(z);
	memset(&z->hello, 0,
	       sizeof(*z) - offsetof(struct fc, hello)); /* handshake on */
	z->c = lr_memif_fuzz_client_connect_(z->p, &z->sfd);
	FUZZ_CHECK(z->c != NULL);
}

/* The client ended the connection (a DISCONNECT unless the server sent
 * its own, peer_said): its reason is named; a new connection follows. */
static void
fc_refused(struct fc *z, int peer_said)
{
	struct mif_msg m;
	int fd;

	if (!peer_said) {
		FUZZ_CHECK(srv_recv(z, &m, &fd) == 1 && fd < 0);
		FUZZ_CHECK(m.type == MIF_MSG_DISCONNECT);
		FUZZ_CHECK(m.disconnect.string[0] != '\0');
		FUZZ_CHECK(memchr(m.disconnect.string, 0,
				  sizeof(m.disconnect.string)) != NULL);
		FUZZ_CHECK(strncmp((char *)m.disconnect.string,
				   lr_memif_fuzz_reason_(z->p),
				   strlen((char *)m.disconnect.string)) == 0);
	}
	srv_none(z);
	FUZZ_CHECK(lr_memif_fuzz_reason_(z->p)[0] != '\0');
	FUZZ_CHECK(!lr_memif_fuzz_up_(z->p));
	fc_connect(z);
}

/* The model: the client accepts m (len bytes, nfds fds) now. */
static int
model_accepts(const struct fc *z, const struct mif_msg *m, size_t len, int nfds)
{
	const struct mif_msg_hello *h = &m->hello;

	if (len != MIF_MSG_SZ || nfds != 0)
		return 0;
	switch (m->type) {
	case MIF_MSG_HELLO:
		return !z->hello && h->min_version <= h->max_version &&
		       h->max_log2_ring_size != 0 &&
		       h->min_version <= MIF_VERSION &&
		       h->max_version >= MIF_VERSION &&
		       (!z->zc || h->max_region >= 1);
	case MIF_MSG_ACK:
		return z->hello && z->sent < last_of(z);
	case MIF_MSG_CONNECTED:
		return z->hello && z->sent == last_of(z) && !z->up;
	default:
		return 0;
	}
}

/* The INIT the client sends on HELLO h. */
static void
check_init(struct fc *z, const struct mif_msg_hello *h)
{
	struct mif_msg m;
	int fd;

	FUZZ_CHECK(srv_recv(z, &m, &fd) == 1 && fd < 0);
	FUZZ_CHECK(m.type == MIF_MSG_INIT && m.init.version == MIF_VERSION &&
		   m.init.mode == 0 && m.init.id == 0);
	z->hello = 1;
	z->nring[C2S] = LR_MIN((unsigned)h->max_c2s_ring + 1, z->nq[C2S]);
	z->nring[S2C] = LR_MIN((unsigned)h->max_s2c_ring + 1, z->nq[S2C]);
	z->run_log2 = LR_MIN(h->max_log2_ring_size, z->log2);
}

/* Region message m with its fd: a sealed memfd as long as announced. */
static void
check_region(struct fc *z, const struct mif_msg *m, int fd)
{
	struct stat st;
	unsigned i = z->nreg;

	FUZZ_CHECK(m->type == MIF_MSG_ADD_REGION && fd >= 0);
	FUZZ_CHECK(m->add_region.index == i);
	FUZZ_CHECK(fstat(fd, &st) == 0 &&
		   (uint64_t)st.st_size >= m->add_region.size);
	FUZZ_CHECK(fcntl(fd, F_GET_SEALS) & F_SEAL_SHRINK);
	z->reg_size[i] = m->add_region.size;
	z->reg[i] = mmap(NULL, z->reg_size[i], PROT_READ | PROT_WRITE,
			 MAP_SHARED, fd, 0);
	FUZZ_CHECK(z->reg[i] != MAP_FAILED);
	close(fd);
	z->nreg++;
}

/* Ring message m (number k of the rings) with its eventfd. */
static void
check_ring(struct fc *z, const struct mif_msg *m, unsigned k, int fd)
{
	const struct mif_msg_add_ring *a = &m->add_ring;
	int d = k < z->nring[C2S] ? C2S : S2C;
	unsigned i = d == C2S ? k : k - z->nring[C2S];

	FUZZ_CHECK(m->type == MIF_MSG_ADD_RING && fd >= 0);
	close(fd);
	FUZZ_CHECK(a->flags == (d == C2S ? MIF_ADD_RING_FLAG_C2S : 0));
	FUZZ_CHECK(a->index == i && a->region == 0 &&
		   a->log2_ring_size == z->run_log2 &&
		   a->private_hdr_size == 0);
	FUZZ_CHECK((uint64_t)a->offset + mif_ring_bytes(z->run_log2) <=
		   z->reg_size[0]);
	z->ring_off[d][i] = a->offset;
	FUZZ_CHECK(ring_of(z, d, i)->cookie == MIF_COOKIE);
}

/* The message the client sends on an ACK. */
static void
check_next(struct fc *z)
{
	unsigned k = z->sent; /* its number: INIT was 0 */
	struct mif_msg m;
	int fd;

	FUZZ_CHECK(srv_recv(z, &m, &fd) == 1);
	if (k <= nreg_of(z)) {
		check_region(z, &m, fd);
	} else if (k <= nreg_of(z) + z->nring[C2S] + z->nring[S2C]) {
		check_ring(z, &m, k - 1 - nreg_of(z), fd);
	} else {
		FUZZ_CHECK(m.type == MIF_MSG_CONNECT && fd < 0);
	}
}

/* The buffers the client offers on S2C ring i from slot `from` up to its
 * head: inside its regions (zero-copy: region 1), off the rings;
 * remembered. */
static void
note_offers(struct fc *z, unsigned i, uint16_t from)
{
	struct mif_ring *r = ring_of(z, S2C, i);
	uint16_t size = (uint16_t)(1u << z->run_log2);
	uint16_t head = atomic_load_explicit(&r->head, memory_order_acquire);

	FUZZ_CHECK((uint16_t)(head - z->s2c_tail[i]) <= size &&
		   (uint16_t)(head - from) <= size);
	for (uint16_t s = from; s != head; s++) {
		struct mif_desc d = r->desc[s & (size - 1)];

		FUZZ_CHECK(d.region == (z->zc ? 1 : 0) &&
			   d.length == FC_BSIZE &&
			   buf_ok(z, d.region, d.offset, d.length));
		z->offered[i][s & (size - 1)] = d;
	}
}

/* A message record. */
static void
fc_msg(void *arg, uint8_t ctl, const uint8_t *rec)
{
	struct fc *z = arg;
	struct mif_msg m;
	size_t len =
	    (ctl & 0x40) ? ((ctl & 1) ? 64 : MIF_MSG_SZ + 1) : MIF_MSG_SZ;
	int n = (ctl >> 1) & 3, fds[5], nfds = n == 3 ? 5 : n;
	int expect, peer_said;

	memcpy(&m, rec, sizeof(m));
	memset(scratch, 0, len);
	memcpy(scratch, rec, LR_MIN(len, sizeof(m)));
	for (int i = 0; i < nfds; i++) {
		fds[i] = eventfd(0, EFD_CLOEXEC);
		FUZZ_CHECK(fds[i] >= 0);
	}
	FUZZ_CHECK(lr_unix_send(z->sfd, scratch, len, fds, (unsigned)nfds) ==
		   0);
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
	expect = model_accepts(z, &m, len, nfds);
	peer_said =
	    len == MIF_MSG_SZ && nfds == 0 && m.type == MIF_MSG_DISCONNECT;
	lr_memif_fuzz_client_event_(z->c);
	if (!expect) {
		if (peer_said) {
			char want[MIF_REASON_SZ + 1];

			memcpy(want, m.disconnect.string, MIF_REASON_SZ);
			want[MIF_REASON_SZ] = '\0';
			FUZZ_CHECK(strncmp(lr_memif_fuzz_reason_(z->p), want,
					   strlen(want)) == 0);
		}
		fc_refused(z, peer_said);
		return;
	}
	if (m.type == MIF_MSG_HELLO) {
		check_init(z, &m.hello);
	} else if (m.type == MIF_MSG_ACK) {
		check_next(z);
	} else {
		z->up = 1;
		for (unsigned i = 0; i < z->nring[S2C]; i++)
			note_offers(z, i, z->s2c_tail[i]);
	}
	srv_none(z);
	FUZZ_CHECK(lr_memif_fuzz_up_(z->p) == z->up);
}

/* ------------------------------------------------------------------ */
/* Bursts. */

/* The control round after a burst: down exactly when it found a fault,
 * with the DISCONNECT naming it. */
static void
after_burst(struct fc *z, int bad)
{
	lr_memif_fuzz_poll_(z->p);
	FUZZ_CHECK(lr_memif_fuzz_up_(z->p) == !bad);
	if (bad)
		fc_refused(z, 0);
}

static uint8_t
pat(uint8_t salt, unsigned s, uint32_t j)
{
	return (uint8_t)(salt + s * 29 + j * 7 + (j >> 8));
}

/* The descriptors of action record b written on S2C ring q from its tail
 * as the server fills them (x[0] bit 0: NEXT; bit 1: the region of x[2],
 * bit 2: the offset of x[8..11], bit 3: the length of x[4..7], instead of
 * those offered and a length up to bsize), the data in the buffers
 * offered; the new tail (b[2] != 0: further than the head allows). */
static uint16_t
fill_s2c(struct fc *z, unsigned q, const uint8_t *b, uint8_t salt,
	 struct mif_desc *wrote)
{
	struct mif_ring *r = ring_of(z, S2C, q);
	uint16_t size = (uint16_t)(1u << z->run_log2), mask = size - 1;
	uint16_t tail = z->s2c_tail[q];
	unsigned k = b[1] % (FC_DESCS + 1);

	for (unsigned j = 0; j < k; j++) {
		const uint8_t *x = b + 4 + 12 * j;
		uint16_t s = (uint16_t)(tail + j);
		const struct mif_desc *o = &z->offered[q][s & mask];
		struct mif_desc d = *o;
		uint32_t v;

		d.flags = x[0] & 1 ? MIF_DESC_FLAG_NEXT : 0;
		if (x[0] & 2)
			memcpy(&d.region, x + 2, 2);
		memcpy(&v, x + 4, 4);
		d.length = x[0] & 8 ? v : v % (FC_BSIZE + 1);
		if (x[0] & 4)
			memcpy(&d.offset, x + 8, 4);
		for (uint32_t t = 0; t < LR_MIN(d.length, o->length); t++)
			z->reg[o->region][o->offset + t] = pat(salt, s, t);
		r->desc[s & mask] = wrote[j] = d;
	}
	return b[2] ? (uint16_t)(tail + size + b[2]) : (uint16_t)(tail + k);
}

/* Action: the server fills S2C buffers; the client's rx burst. */
static void
fc_rx(void *arg, const uint8_t *b)
{
	struct fc *z = arg;
	struct lr_mbuf *pkts[FC_BURST];
	struct mif_desc wrote[FC_DESCS]; /* the client offers slots again */
	unsigned q = b[0] % z->nq[S2C], n = b[3] % (FC_BURST + 1), got, np = 0;
	uint16_t size, mask, tail, end, cur, head;
	uint8_t salt = b[0] ^ b[1];
	struct mif_ring *r;
	int bad = 0;

	if (!z->up || q >= z->nring[S2C]) {
		FUZZ_CHECK(
		    lr_memif_fuzz_rx_(z->p, (uint16_t)q, pkts, FC_BURST) == 0);
		return;
	}
	size = (uint16_t)(1u << z->run_log2);
	mask = size - 1;
	r = ring_of(z, S2C, q);
	tail = z->s2c_tail[q];
	head = atomic_load(&r->head);
	end = fill_s2c(z, q, b, salt, wrote);
	atomic_store_explicit(&r->tail, end, memory_order_release);
	got = lr_memif_fuzz_rx_(z->p, (uint16_t)q, pkts, (uint16_t)n);
	/* the model: packets from tail while descriptors are good */
	cur = tail;
	if ((uint16_t)(end - tail) > (uint16_t)(head - tail))
		bad = 1;
	while (!bad && np < n && cur != end) {
		uint16_t start = cur;
		uint32_t pos = 0;
		struct mif_desc d;

		do {
			const struct mif_desc *o = &z->offered[q][cur & mask];

			if (cur == end)
				bad = 1;
			else
				d = wrote[(uint16_t)(cur - tail)];
			if (bad || d.length > FC_BSIZE ||
			    (z->zc && (d.region != o->region ||
				       d.offset != o->offset))) {
				bad = 1;
				break;
			}
			if (np < got) {
				const struct lr_mbuf *m = pkts[np];
				const uint8_t *data;

				FUZZ_CHECK(pos + d.length <= m->pkt_len);
				data =
				    lr_pktmbuf_read(m, pos, d.length, scratch);
				for (uint32_t t = 0; t < d.length; t++)
					FUZZ_CHECK(data[t] ==
						   pat(salt, cur, t));
			}
			pos += d.length;
			cur++;
		} while (d.flags & MIF_DESC_FLAG_NEXT);
		if (bad) {
			cur = start;
			break;
		}
		FUZZ_CHECK(np < got && pkts[np]->pkt_len == pos);
		for (const struct lr_mbuf *s = pkts[np]; z->zc && s;
		     s = s->next)
			FUZZ_CHECK(s->pool == z->zmp);
		np++;
	}
	FUZZ_CHECK(got == np);
	lr_pktmbuf_free_bulk(pkts, got);
	z->s2c_tail[q] = cur;
	if (!bad)
		note_offers(z, q, head);
	after_burst(z, bad);
}

/* Tx packet i of len bytes (shape bit 0: two segments; bit 1: of the
 * zero-copy pool, one segment). */
static struct lr_mbuf *
make_pkt(struct fc *z, uint8_t salt, unsigned i, uint32_t len, unsigned shape)
{
	struct lr_mempool *mp = (shape & 2) && z->zc ? z->zmp : z->mp;
	uint32_t first = (shape & 1) && !((shape & 2) && z->zc) ? len / 2 : len;
	struct lr_mbuf *m = lr_pktmbuf_alloc(mp), *t;

	if ((shape & 2) && z->zc)
		len = LR_MIN(len, FC_BSIZE);
	for (uint32_t j = 0; j < len; j++)
		scratch[j] = pat(salt, i, j);
	FUZZ_CHECK(m != NULL);
	first = LR_MIN(first, len);
	FUZZ_CHECK(lr_pktmbuf_append_copy(m, mp, scratch, first) == 0);
	if (first < len) {
		t = lr_pktmbuf_alloc(mp);
		FUZZ_CHECK(t != NULL);
		FUZZ_CHECK(lr_pktmbuf_append_copy(t, mp, scratch + first,
						  len - first) == 0);
		FUZZ_CHECK(lr_pktmbuf_chain(m, t) == 0);
	}
	return m;
}

/* Action: the server takes C2S slots (moves the tail by b[1], or b[2]:
 * past what the client sent); the client's tx burst. */
static void
fc_tx(void *arg, const uint8_t *b)
{
	struct fc *z = arg;
	struct lr_mbuf *pkts[8];
	uint32_t lens[8];
	unsigned q = b[0] % z->nq[C2S], npk = b[3] % 9, sent, np = 0;
	uint8_t salt = b[1] ^ b[3];
	uint16_t size, mask, tail, head, nfree, slot;
	struct mif_ring *r;
	int bad;

	for (unsigned i = 0; i < npk; i++) {
		uint16_t v;

		memcpy(&v, b + 4 + 12 * FC_DESCS + 2 * i, 2);
		pkts[i] = make_pkt(z, salt, i, v & 0x3ff, v >> 14);
		lens[i] = pkts[i]->pkt_len;
	}
	if (!z->up || q >= z->nring[C2S]) {
		/* down: dropped */
		FUZZ_CHECK(lr_memif_fuzz_tx_(z->p, (uint16_t)q, pkts,
					     (uint16_t)npk) == npk);
		return;
	}
	size = (uint16_t)(1u << z->run_log2);
	mask = size - 1;
	r = ring_of(z, C2S, q);
	head = atomic_load(&r->head);
	tail = z->c2s_tail[q];
	tail = b[2] ? (uint16_t)(head + b[2])
		    : (uint16_t)(tail + LR_MIN(b[1], (uint16_t)(head - tail)));
	atomic_store_explicit(&r->tail, tail, memory_order_release);
	/* zero-copy: the client frees what it sent up to the tail it saw
	 * last, so the tail may not go back past that */
	bad = (uint16_t)(head - tail) >
	      (uint16_t)(head - (z->zc ? z->c2s_tail[q] : head - size));
	sent = lr_memif_fuzz_tx_(z->p, (uint16_t)q, pkts, (uint16_t)npk);
	if (bad) {
		FUZZ_CHECK(sent == npk);
		after_burst(z, 1);
		return;
	}
	z->c2s_tail[q] = tail;
	nfree = (uint16_t)(size - (uint16_t)(head - tail));
	slot = head;
	for (; np < npk; np++) {
		unsigned need = lens[np] > FC_BSIZE
				    ? (lens[np] + FC_BSIZE - 1) / FC_BSIZE
				    : 1;
		uint32_t pos = 0;

		if (need > nfree)
			break;
		nfree = (uint16_t)(nfree - need);
		for (unsigned j = 0; j < need; j++, slot++) {
			struct mif_desc d = r->desc[slot & mask];

			FUZZ_CHECK(d.region == (z->zc ? 1 : 0));
			FUZZ_CHECK(d.length <= FC_BSIZE &&
				   buf_ok(z, d.region, d.offset, d.length));
			FUZZ_CHECK(d.flags ==
				   (j + 1 < need ? MIF_DESC_FLAG_NEXT : 0));
			for (uint32_t t = 0; t < d.length; t++)
				FUZZ_CHECK(z->reg[d.region][d.offset + t] ==
					   pat(salt, np, pos + t));
			pos += d.length;
		}
		FUZZ_CHECK(pos == lens[np]);
	}
	FUZZ_CHECK(sent == np);
	FUZZ_CHECK(atomic_load(&r->head) == slot);
	lr_pktmbuf_free_bulk(pkts + sent, npk - sent);
	after_burst(z, 0);
}

/* Action: the server goes away (a new connection is made). */
static void
fc_server_gone(void *arg)
{
	struct fc *z = arg;

	close(z->sfd);
	z->sfd = -1;
	lr_memif_fuzz_client_event_(z->c);
	FUZZ_CHECK(!lr_memif_fuzz_up_(z->p));
	FUZZ_CHECK(strstr(lr_memif_fuzz_reason_(z->p),
			  "peer closed the connection") != NULL);
	fc_connect(z);
}

static const struct fuzz_memif_acts fc_acts = {fc_msg, fc_server_gone, fc_rx,
					       fc_tx};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct lr_mempool *mp;
	static struct fc z;
	int nfd;

	if (mp == NULL) {
		mp = fuzz_memif_up("fuzz_memif_client");
	}
	if (size < 1)
		return 0;
	nfd = fuzz_count_fds();
	memset(&z, 0, sizeof(z));
	z.sfd = -1;
	z.mp = mp;
	z.zc = data[0] & 1;
	z.nq[S2C] = 1 + ((data[0] >> 1) & 1);
	z.nq[C2S] = 1 + ((data[0] >> 2) & 1);
	z.log2 = 1 + ((data[0] >> 3) & 7) % 6;
	z.p = lr_memif_fuzz_client_new_(z.zc, (uint16_t)z.nq[S2C],
					(uint16_t)z.nq[C2S], z.log2, FC_BSIZE,
					mp);
	FUZZ_CHECK(z.p != NULL);
	z.zmp = lr_memif_fuzz_zc_pool_(z.p);
	fc_connect(&z);
	fuzz_memif_records(&fc_acts, &z, z.p, &z.up, data, size);
	fc_drop_conn(&z);
	lr_memif_fuzz_port_free_(z.p);
	fuzz_memif_end(mp, nfd);
	return 0;
}
