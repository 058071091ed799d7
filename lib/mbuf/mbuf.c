/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mbuf pools (a mempool whose object initializer lays out each mbuf and
 * records its buffer's IOVA once), chains, validation and dumps.
 */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "lr_errno.h"
#include "lr_log.h"
#include "lr_mbuf.h"

/* Lay out one mbuf: buffer right after the private area, IOVA from the
 * page allocator, fields in their in-pool state. */
static void
mbuf_init(struct lr_mempool *mp, void *opaque, void *obj, unsigned idx)
{
	const struct lr_pktmbuf_pool_private *pp = opaque;
	struct lr_mbuf *m = obj;
	size_t off = sizeof(struct lr_mbuf) + pp->mbuf_priv_size;

	(void)idx;
	memset(m, 0, off);
	m->priv_size = pp->mbuf_priv_size;
	m->buf_len = pp->mbuf_data_room_size;
	m->buf_addr = (char *)m + off;
	m->buf_iova = lr_mempool_obj_iova(mp, m) + off;
	m->pool = mp;
	m->next = NULL;
	lr_pktmbuf_reset(m);
}

/* Lay out one mbuf of an elastic pool, whose private area the pool
 * filled before carving its first object. */
static void
mbuf_init_elastic(struct lr_mempool *mp, void *opaque, void *obj, unsigned idx)
{
	(void)opaque;
	mbuf_init(mp, lr_mempool_get_priv(mp), obj, idx);
}

/* 0 if the sizes make a pool, else -1 with lr_errno = EINVAL after a log. */
static int
check_sizes(const char *name, uint16_t priv_size, uint16_t data_room_size)
{
	if (priv_size % LR_MBUF_PRIV_ALIGN != 0) {
		LR_LOG(ERR, MBUF,
		       "mbuf pool '%s': private size %u not a multiple of %d\n",
		       name ? name : "(null)", priv_size, LR_MBUF_PRIV_ALIGN);
		lr_errno = EINVAL;
		return -1;
	}
	if (data_room_size == 0) {
		LR_LOG(ERR, MBUF, "mbuf pool '%s': data room size 0\n",
		       name ? name : "(null)");
		lr_errno = EINVAL;
		return -1;
	}
	return 0;
}

struct lr_mempool *
lr_pktmbuf_pool_create_elastic(const char *name, unsigned min, unsigned max,
			       unsigned cache_size, uint16_t priv_size,
			       uint16_t data_room_size, int socket_id)
{
	struct lr_pktmbuf_pool_private pp = {
	    .mbuf_data_room_size = data_room_size,
	    .mbuf_priv_size = priv_size,
	};

	if (check_sizes(name, priv_size, data_room_size) != 0)
		return NULL;
	return lr_mempool_create_elastic(
	    name, min, max,
	    (unsigned)sizeof(struct lr_mbuf) + priv_size + data_room_size,
	    cache_size, sizeof(pp), &pp, mbuf_init_elastic, NULL, socket_id,
	    0);
}

struct lr_mempool *
lr_pktmbuf_pool_create(const char *name, unsigned n, unsigned cache_size,
		       uint16_t priv_size, uint16_t data_room_size,
		       int socket_id)
{
	struct lr_pktmbuf_pool_private pp = {
	    .mbuf_data_room_size = data_room_size,
	    .mbuf_priv_size = priv_size,
	};
	struct lr_mempool *mp;
	unsigned elt;

	if (check_sizes(name, priv_size, data_room_size) != 0)
		return NULL;
	elt = (unsigned)sizeof(struct lr_mbuf) + priv_size + data_room_size;
	/* mbuf_init gets the layout through its argument: the pool's
	 * private area is filled in only once the pool exists. */
	mp = lr_mempool_create(name, n, elt, cache_size, sizeof(pp), mbuf_init,
			       &pp, socket_id, 0);
	if (mp == NULL)
		return NULL;
	memcpy(lr_mempool_get_priv(mp), &pp, sizeof(pp));
	return mp;
}

/* Lay out one mbuf of an external-buffer pool: buffer idx of the array. */
static void
mbuf_init_extbuf(struct lr_mempool *mp, void *opaque, void *obj, unsigned idx)
{
	const struct lr_pktmbuf_pool_private *pp = opaque;
	struct lr_mbuf *m = obj;

	memset(m, 0, sizeof(*m) + pp->mbuf_priv_size);
	m->priv_size = pp->mbuf_priv_size;
	m->buf_len = pp->mbuf_data_room_size;
	m->buf_addr =
	    (char *)pp->ext_buf_base + (size_t)idx * pp->mbuf_data_room_size;
	m->buf_iova = (uint64_t)(uintptr_t)m->buf_addr;
	m->pool = mp;
	lr_pktmbuf_reset(m);
}

struct lr_mempool *
lr_pktmbuf_pool_create_extbuf(const char *name, unsigned n, unsigned cache_size,
			      uint16_t priv_size, void *buf_base,
			      uint16_t buf_size, int socket_id)
{
	struct lr_pktmbuf_pool_private pp = {
	    .mbuf_data_room_size = buf_size,
	    .mbuf_priv_size = priv_size,
	    .flags = LR_PKTMBUF_POOL_F_EXTBUF,
	    .ext_buf_base = buf_base,
	};
	struct lr_mempool *mp;

	if (priv_size % LR_MBUF_PRIV_ALIGN != 0 || buf_size == 0 ||
	    buf_base == NULL || (uintptr_t)buf_base % LR_CACHE_LINE_SIZE != 0) {
		LR_LOG(ERR, MBUF,
		       "mbuf pool '%s': buffers at %p of %u bytes, private "
		       "size %u (expected a cache-line aligned array of "
		       "buffers of at least 1 byte, a private size multiple "
		       "of %d)\n",
		       name ? name : "(null)", buf_base, buf_size, priv_size,
		       LR_MBUF_PRIV_ALIGN);
		lr_errno = EINVAL;
		return NULL;
	}
	mp = lr_mempool_create(
	    name, n, (unsigned)sizeof(struct lr_mbuf) + priv_size, cache_size,
	    sizeof(pp), mbuf_init_extbuf, &pp, socket_id, 0);
	if (mp == NULL)
		return NULL;
	memcpy(lr_mempool_get_priv(mp), &pp, sizeof(pp));
	return mp;
}

/* Where segment s's buffer must be: NULL if it is where it belongs. */
static const char *
mbuf_buf_misplaced(const struct lr_mbuf *s)
{
	const struct lr_pktmbuf_pool_private *pp = lr_mempool_get_priv(s->pool);
	uintptr_t a = (uintptr_t)s->buf_addr, base;

	if (pp != NULL && (pp->flags & LR_PKTMBUF_POOL_F_ATTACHED))
		return NULL;
	if (pp == NULL || !(pp->flags & LR_PKTMBUF_POOL_F_EXTBUF))
		return s->buf_addr != (const char *)(s + 1) + s->priv_size
			   ? "buffer address moved"
			   : NULL;
	base = (uintptr_t)pp->ext_buf_base;
	if (a < base || a - base >= (uintptr_t)s->pool->size * s->buf_len ||
	    (a - base) % s->buf_len != 0 ||
	    s->buf_len != pp->mbuf_data_room_size)
		return "buffer address outside its pool's buffers";
	return NULL;
}

struct lr_mempool *
lr_pktmbuf_pool_create_xmem(const char *name, void *addr, size_t len,
			    unsigned frame_size, unsigned cache_size,
			    uint16_t priv_size, int socket_id)
{
	struct lr_pktmbuf_pool_private pp = {.mbuf_priv_size = priv_size};
	unsigned lead = lr_mempool_obj_offset(0);
	size_t meta = lead + sizeof(struct lr_mbuf) + priv_size;
	struct lr_mempool *mp;

	if (priv_size % LR_MBUF_PRIV_ALIGN != 0 ||
	    frame_size < meta + LR_PKTMBUF_HEADROOM ||
	    frame_size - meta > UINT16_MAX) {
		LR_LOG(ERR, MBUF,
		       "mbuf pool '%s': frame size %u cannot hold the %zu "
		       "bytes of header, mbuf and private area plus %d of "
		       "headroom (private size %u must be a multiple of %d)\n",
		       name ? name : "(null)", frame_size, meta,
		       LR_PKTMBUF_HEADROOM, priv_size, LR_MBUF_PRIV_ALIGN);
		lr_errno = EINVAL;
		return NULL;
	}
	pp.mbuf_data_room_size = (uint16_t)(frame_size - meta);
	mp = lr_mempool_create_xmem(name, addr, len, frame_size,
				    frame_size - lead, cache_size, sizeof(pp),
				    mbuf_init, &pp, socket_id, 0);
	if (mp == NULL)
		return NULL;
	memcpy(lr_mempool_get_priv(mp), &pp, sizeof(pp));
	return mp;
}

int
lr_pktmbuf_chain(struct lr_mbuf *head, struct lr_mbuf *tail)
{
	struct lr_mbuf *last;

	if ((unsigned)head->nb_segs + tail->nb_segs > UINT16_MAX ||
	    (uint64_t)head->pkt_len + tail->pkt_len > UINT32_MAX)
		return -EOVERFLOW;
	last = lr_pktmbuf_lastseg(head);
	last->next = tail;
	head->nb_segs = (uint16_t)(head->nb_segs + tail->nb_segs);
	head->pkt_len += tail->pkt_len;
	/* tail is no longer a first segment. */
	tail->pkt_len = tail->data_len;
	tail->nb_segs = 1;
	return 0;
}

int
lr_pktmbuf_append_copy(struct lr_mbuf *m, struct lr_mempool *mp,
		       const void *data, uint32_t len)
{
	struct lr_mbuf *last = lr_pktmbuf_lastseg(m), *seg = last;
	uint16_t last_len = last->data_len, segs = m->nb_segs;
	const char *src = data;

	if ((uint64_t)m->pkt_len + len > UINT32_MAX)
		return -ENOBUFS;
	while (len > 0) {
		uint16_t room = lr_pktmbuf_tailroom(seg);

		if (room == 0) {
			struct lr_mbuf *n;

			if (segs == UINT16_MAX ||
			    (n = lr_pktmbuf_alloc(mp)) == NULL)
				goto undo;
			seg->next = n;
			seg = n;
			segs++;
			continue;
		}
		uint16_t k = (uint16_t)LR_MIN(len, (uint32_t)room);

		memcpy(lr_pktmbuf_mtod_offset(seg, char *, seg->data_len), src,
		       k);
		seg->data_len = (uint16_t)(seg->data_len + k);
		m->pkt_len += k;
		src += k;
		len -= k;
	}
	m->nb_segs = segs;
	return 0;

undo:
	/* Back to what m was: the new segments go, the last one shrinks. */
	lr_pktmbuf_free(last->next);
	last->next = NULL;
	m->pkt_len -= (uint32_t)(src - (const char *)data);
	last->data_len = last_len;
	return -ENOBUFS;
}

const void *
lr_pktmbuf_read_chain_(const struct lr_mbuf *m, uint32_t off, uint32_t len,
		       void *buf)
{
	char *dst = buf;

	if ((uint64_t)off + len > m->pkt_len)
		return NULL;
	if (len == 0)
		return buf;
	while (off >= m->data_len) {
		off -= m->data_len;
		m = m->next;
	}
	if (off + len <= m->data_len)
		return lr_pktmbuf_mtod_offset(m, const char *, off);
	while (len > 0) {
		uint32_t k = LR_MIN(len, (uint32_t)m->data_len - off);

		memcpy(dst, lr_pktmbuf_mtod_offset(m, const char *, off), k);
		dst += k;
		len -= k;
		off = 0;
		m = m->next;
	}
	return buf;
}

uint32_t
lr_pktmbuf_copy_out(const struct lr_mbuf *m, void *dst)
{
	char *d = dst;

	for (const struct lr_mbuf *s = m; s != NULL; s = s->next) {
		memcpy(d, lr_pktmbuf_mtod(s, const char *), s->data_len);
		d += s->data_len;
	}
	return m->pkt_len;
}

int
lr_mbuf_validate(const struct lr_mbuf *m)
{
	const struct lr_mbuf *s;
	uint64_t len = 0;
	unsigned segs = 0;

	if (m == NULL) {
		LR_LOG(ERR, MBUF, "mbuf: NULL\n");
		return -EINVAL;
	}
	for (s = m; s != NULL; s = s->next) {
		const char *why = NULL;

		if (s->pool == NULL)
			why = "no pool";
		else if (lr_mempool_from_obj(s) != s->pool)
			why = "not an object of its pool";
		else if ((unsigned)s->data_off + s->data_len > s->buf_len)
			why = "data past the buffer end";
		else if (lr_mbuf_refcnt_read(s) == 0)
			why = "reference count 0";
		else
			why = mbuf_buf_misplaced(s);
		if (why != NULL) {
			LR_LOG(ERR, MBUF, "mbuf %p segment %u (%p): %s\n",
			       (const void *)m, segs, (const void *)s, why);
			return -EINVAL;
		}
		len += s->data_len;
		if (++segs > UINT16_MAX)
			break;
	}
	if (segs != m->nb_segs || len != m->pkt_len) {
		LR_LOG(ERR, MBUF,
		       "mbuf %p: %u segments of %llu bytes, header says %u "
		       "of %u\n",
		       (const void *)m, segs, (unsigned long long)len,
		       m->nb_segs, m->pkt_len);
		return -EINVAL;
	}
	return 0;
}

static void
hexdump(FILE *f, const unsigned char *p, unsigned len, unsigned base)
{
	for (unsigned i = 0; i < len; i += 16) {
		unsigned k, n = LR_MIN(16u, len - i);

		fprintf(f, "    %04x:", base + i);
		for (k = 0; k < 16; k++) {
			if (k < n)
				fprintf(f, " %02x", p[i + k]);
			else
				fputs("   ", f);
		}
		fputs("  |", f);
		for (k = 0; k < n; k++)
			fputc(isprint(p[i + k]) ? p[i + k] : '.', f);
		fputs("|\n", f);
	}
}

void
lr_pktmbuf_dump(FILE *f, const struct lr_mbuf *m, unsigned dump_len)
{
	unsigned seg = 0, done = 0;

	fprintf(f,
		"mbuf %p: pool %s, pkt_len %u, nb_segs %u, port %u, "
		"ol_flags %#llx, packet_type %#x, hash_rss %#x, vlan %u\n",
		(const void *)m, m->pool ? m->pool->name : "(none)", m->pkt_len,
		m->nb_segs, m->port, (unsigned long long)m->ol_flags,
		m->packet_type, m->hash_rss, m->vlan_tci);
	for (const struct lr_mbuf *s = m; s != NULL; s = s->next, seg++) {
		unsigned n = LR_MIN((unsigned)s->data_len, dump_len - done);

		fprintf(f,
			"  segment %u at %p: buf_addr %p, buf_iova %#llx, "
			"buf_len %u, data_off %u, data_len %u, refcnt %u\n",
			seg, (const void *)s, s->buf_addr,
			(unsigned long long)s->buf_iova, s->buf_len,
			s->data_off, s->data_len, lr_mbuf_refcnt_read(s));
		if (n == 0)
			continue;
		hexdump(f, (const unsigned char *)s->buf_addr + s->data_off, n,
			done);
		done += n;
	}
}
