/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_mbuf.h - packet buffers.
 *
 * An mbuf is a metadata structure followed by an optional private area and
 * a data buffer of buf_len bytes: headroom (LR_PKTMBUF_HEADROOM) then the
 * data room. A packet is one mbuf or a chain of them linked by next; the
 * first segment carries pkt_len (sum of data_len over the segments) and
 * nb_segs (the number of segments).
 *
 * Layout: everything receive and transmit touch for a one-segment packet
 * sits in the first cache line (buffer address and IOVA, data offset,
 * refcount, segment count, port, offload flags, packet type, lengths,
 * VLAN, RSS hash, buffer length, pool). `next` opens the second line: a
 * first segment with nb_segs == 1 has next == NULL, so freeing a
 * one-segment packet never reads the second line. The offload metadata
 * (l2/l3/l4 lengths, TSO segment size, partial-checksum start and offset)
 * is in the second line too: only a path that acts on an offload flag of
 * the first line reads it.
 *
 * Pools: lr_pktmbuf_pool_create() makes a mempool whose objects are mbufs
 * in pinned pages from the page allocator, held for the pool's lifetime
 * (lr_pktmbuf_pool_create_elastic(): from min to max mbufs in blocks of a
 * page pool, taken when a burst needs them and given back when idle or
 * under memory pressure; see below)
 * (lr_pktmbuf_pool_create_xmem(): in frames of memory the caller gives;
 * lr_pktmbuf_pool_create_extbuf(): headers in the pool, each buffer fixed
 * in an array the caller gives); each mbuf's buf_addr and buf_iova are
 * set once at pool creation and never derived from the mbuf's address. An mbuf
 * in its pool always has refcnt 1, nb_segs 1 and next NULL; alloc relies on it
 * and free restores it.
 *
 * Threading contract: an mbuf belongs to one thread at a time, except its
 * refcnt, which lr_mbuf_refcnt_update() changes atomically when it may be
 * shared. Alloc and free follow the mempool's contract (per-lcore cache).
 *
 * Cost: alloc is a mempool get plus four 8-byte stores to the first line;
 * free of an unshared one-segment mbuf is a few loads of the first line
 * and a mempool put; the bulk forms batch the puts per pool.
 *
 * Error model: lr_pktmbuf_pool_create() returns NULL and sets lr_errno;
 * alloc returns NULL / -ENOENT when the pool is empty; the length helpers
 * return NULL / -EINVAL when there is no room or not enough data.
 */
#ifndef LR_MBUF_H
#define LR_MBUF_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lr_common.h"
#include "lr_mempool.h"

LR_BEGIN_DECLS

/** Bytes kept in front of the data at alloc / reset. */
#define LR_PKTMBUF_HEADROOM 128
/** Default data room after the headroom. */
#define LR_MBUF_DEFAULT_DATAROOM 2048
/** Default buffer size: headroom + data room. */
#define LR_MBUF_DEFAULT_BUF_SIZE                                               \
	(LR_MBUF_DEFAULT_DATAROOM + LR_PKTMBUF_HEADROOM)
/** Port of an mbuf that came from no port. */
#define LR_MBUF_PORT_INVALID UINT16_MAX
/** The private area after the mbuf is a multiple of this. */
#define LR_MBUF_PRIV_ALIGN 8
/** Most pointers lr_pktmbuf_free_bulk() gathers before one put. */
#define LR_PKTMBUF_FREE_BATCH 64

/* Offload flags (ol_flags). */
#define LR_MBUF_F_RX_VLAN	  (1ULL << 0) /**< vlan_tci is valid */
#define LR_MBUF_F_RX_RSS_HASH	  (1ULL << 1) /**< hash_rss is valid */
#define LR_MBUF_F_RX_IP_CKSUM_BAD (1ULL << 4) /**< IPv4 checksum wrong */
#define LR_MBUF_F_RX_L4_CKSUM_BAD (1ULL << 5) /**< L4 checksum wrong */
#define LR_MBUF_F_RX_TIMESTAMP	  (1ULL << 6) /**< timestamp is valid */
/** The L4 checksum field holds only the pseudo-header sum (virtio-net
 *  NEEDS_CSUM: the sender relied on checksum offload): the sum from
 *  csum_start to the end, folded and inverted, belongs at csum_start +
 *  csum_offset. The data itself is intact. A transmit path treats it as
 *  LR_MBUF_F_TX_L4_CKSUM, so a forwarder passes it on untouched. */
#define LR_MBUF_F_RX_L4_CKSUM_PARTIAL (1ULL << 7)
/** A TCP super-frame (GSO/LRO) of segments of tso_segsz payload bytes;
 *  l2_len, l3_len, l4_len are set. A transmit path treats it as
 *  LR_MBUF_F_TX_TCP_SEG. */
#define LR_MBUF_F_RX_GSO_TCP (1ULL << 8)
#define LR_MBUF_F_TX_VLAN    (1ULL << 32) /**< insert vlan_tci */
/** Compute the IPv4 header checksum (l2_len, l3_len). */
#define LR_MBUF_F_TX_IP_CKSUM (1ULL << 33)
/** Complete the L4 checksum at csum_start/csum_offset (virtio-net style:
 *  the field holds the pseudo-header sum). */
#define LR_MBUF_F_TX_L4_CKSUM (1ULL << 34)
/** Compute the TCP checksum from scratch (l2_len, l3_len). */
#define LR_MBUF_F_TX_TCP_CKSUM (1ULL << 35)
/** Compute the UDP checksum from scratch (l2_len, l3_len). */
#define LR_MBUF_F_TX_UDP_CKSUM (1ULL << 36)
/** Segment the TCP frame into tso_segsz payload bytes per frame
 *  (l2_len, l3_len, l4_len), each with its checksums (TSO/GSO). */
#define LR_MBUF_F_TX_TCP_SEG (1ULL << 37)
/** Flags that ask a transmit path for an L4 checksum. */
#define LR_MBUF_F_L4_CKSUM_MASK                                                \
	(LR_MBUF_F_RX_L4_CKSUM_PARTIAL | LR_MBUF_F_TX_L4_CKSUM |               \
	 LR_MBUF_F_TX_TCP_CKSUM | LR_MBUF_F_TX_UDP_CKSUM)
/** Flags that ask a transmit path for TCP segmentation. */
#define LR_MBUF_F_TCP_SEG_MASK (LR_MBUF_F_RX_GSO_TCP | LR_MBUF_F_TX_TCP_SEG)
/** Every flag that asks a transmit path for some offload. */
#define LR_MBUF_F_OFFLOAD_MASK                                                 \
	(LR_MBUF_F_L4_CKSUM_MASK | LR_MBUF_F_TCP_SEG_MASK |                    \
	 LR_MBUF_F_TX_IP_CKSUM)

/** A packet buffer (one segment). */
struct lr_mbuf {
	/* First cache line: what receive and transmit touch. */
	void *buf_addr;	   /**< start of the buffer (headroom included) */
	uint64_t buf_iova; /**< IOVA of buf_addr */
	union {
		uint64_t rearm_data; /**< the four fields below as one word */
		struct {
			uint16_t data_off; /**< data start in the buffer */
			uint16_t refcnt;   /**< references; 1 when unshared */
			uint16_t nb_segs;  /**< segments (first segment) */
			uint16_t port;	   /**< input port */
		};
	};
	uint64_t ol_flags;	 /**< LR_MBUF_F_* */
	union {
		uint64_t rx_words[2]; /**< the five fields below as two words */
		struct {
			uint32_t packet_type; /**< L2/L3/L4 type, driver-defined */
			uint32_t pkt_len;     /**< bytes in all segments */
			uint16_t data_len;    /**< bytes in this segment */
			uint16_t vlan_tci; /**< VLAN tag (LR_MBUF_F_RX_VLAN) */
			uint32_t hash_rss; /**< RSS hash (LR_MBUF_F_RX_RSS_HASH) */
		};
	};
	uint16_t buf_len;	 /**< buffer bytes */
	uint16_t vlan_tci_outer; /**< outer VLAN tag */
	uint16_t priv_size;	 /**< private area after the mbuf */
	uint16_t reserved0;
	struct lr_mempool *pool; /**< the pool it returns to */

	/* Second cache line: chains and the rest. */
	struct lr_mbuf *next; /**< next segment or NULL */
	union {
		uint64_t tx_offload; /**< the lengths below as one word */
		struct {
			uint64_t l2_len : 7;
			uint64_t l3_len : 9;
			uint64_t l4_len : 8;
			uint64_t tso_segsz : 16;
			uint64_t outer_l3_len : 9;
			uint64_t outer_l2_len : 7;
			uint64_t tx_reserved : 8;
		};
	};
	uint64_t timestamp; /**< rx time (LR_MBUF_F_RX_TIMESTAMP) */
	uint64_t udata64;   /**< application data */
	/* Partial checksum (LR_MBUF_F_RX_L4_CKSUM_PARTIAL, _TX_L4_CKSUM):
	 * in the second line beside tx_offload, read only on the paths
	 * that complete a checksum, never on a plain forward. */
	uint16_t csum_start;  /**< sum from here (frame offset) to the end */
	uint16_t csum_offset; /**< checksum at csum_start + csum_offset */
	uint32_t dynfield[7]; /**< free for libraries and applications */
} __lr_cache_aligned;

/* The receive/transmit fields fill the first 64 bytes (the first cache
 * line on x86-64, half of it on POWER); next opens the second 64. */
LR_BUILD_BUG_ON(offsetof(struct lr_mbuf, pool) + sizeof(void *) > 64);
LR_BUILD_BUG_ON(offsetof(struct lr_mbuf, pool) + sizeof(void *) >
		LR_CACHE_LINE_SIZE);
LR_BUILD_BUG_ON(offsetof(struct lr_mbuf, rearm_data) % 8 != 0);
LR_BUILD_BUG_ON(offsetof(struct lr_mbuf, next) != 64);
LR_BUILD_BUG_ON(sizeof(struct lr_mbuf) != 128);
/* lr_pktmbuf_rearm() writes packet_type..hash_rss as two 8-byte words. */
LR_BUILD_BUG_ON(offsetof(struct lr_mbuf, pkt_len) !=
		offsetof(struct lr_mbuf, packet_type) + 4);
LR_BUILD_BUG_ON(offsetof(struct lr_mbuf, data_len) !=
		offsetof(struct lr_mbuf, packet_type) + 8);
LR_BUILD_BUG_ON(offsetof(struct lr_mbuf, vlan_tci) !=
		offsetof(struct lr_mbuf, data_len) + 2);
LR_BUILD_BUG_ON(offsetof(struct lr_mbuf, hash_rss) !=
		offsetof(struct lr_mbuf, data_len) + 4);

/** The pool's buffers lie outside it (lr_pktmbuf_pool_create_extbuf()). */
#define LR_PKTMBUF_POOL_F_EXTBUF 0x1
/** The pool's mbufs carry buffers their driver attaches at run time (another
 *  framework's, e.g. net_dpdk's received DPDK mbufs): validate does not
 *  ask where a buffer lies. */
#define LR_PKTMBUF_POOL_F_ATTACHED 0x2

/** What an mbuf pool keeps in its private area. */
struct lr_pktmbuf_pool_private {
	uint16_t mbuf_data_room_size; /**< buf_len of every mbuf */
	uint16_t mbuf_priv_size;      /**< private bytes after each mbuf */
	uint32_t flags;		      /**< LR_PKTMBUF_POOL_F_* */
	void *ext_buf_base; /**< F_EXTBUF: buffer of mbuf 0, else NULL */
};

/** Pointer to the data of m, as type t. */
#define lr_pktmbuf_mtod(m, t) ((t)((char *)(m)->buf_addr + (m)->data_off))
/** Pointer to the data of m plus o bytes, as type t. */
#define lr_pktmbuf_mtod_offset(m, t, o)                                        \
	((t)((char *)(m)->buf_addr + (m)->data_off + (o)))
/** IOVA of the data of m. */
#define lr_pktmbuf_iova(m) ((m)->buf_iova + (m)->data_off)
/** Bytes in this segment. */
#define lr_pktmbuf_data_len(m) ((m)->data_len)
/** Bytes in the packet. */
#define lr_pktmbuf_pkt_len(m) ((m)->pkt_len)

/**
 * Create a pool of n mbufs with a per-lcore cache of cache_size,
 * priv_size private bytes after each mbuf (a multiple of
 * LR_MBUF_PRIV_ALIGN) and data_room_size buffer bytes (headroom
 * included) on socket_id. NULL and lr_errno on error.
 */
struct lr_mempool *lr_pktmbuf_pool_create(const char *name, unsigned n,
					  unsigned cache_size,
					  uint16_t priv_size,
					  uint16_t data_room_size,
					  int socket_id);

/**
 * Create an elastic pool of mbufs (lr_mempool_create_elastic(): see
 * "Elastic pools" in lr_mempool.h): min mbufs now, more when the store
 * runs dry, in blocks of 2^order pages taken in one bulk call from a page
 * pool on socket_id (a 2 KiB data room: 32 KiB blocks of 13 mbufs), up to
 * max (rounded up to whole blocks); blocks whose mbufs are all back go to
 * the page allocator after lr_mempool_set_idle_shrink()'s idle time, when
 * its shrinker asks (pressure) or on lr_mempool_shrink(), never below min.
 * Each block's IOVA is read once when it joins and each mbuf's buf_iova
 * set from it then. A get refused at max (or with no pages) fails as an
 * empty fixed pool does: drivers count it in rx_nombuf.
 *
 * Cost: alloc and free are the fixed pool's (the same per-lcore cache,
 * inline, unaware of elasticity: lr-l2fwd on two net_null ports runs the
 * same instructions per forwarded packet with either pool and reaches
 * the store once in millions of packets, bench/run elastic_instructions);
 * a cache refill or flush that reaches
 * the store costs a mutex round trip and a link and counter update per
 * object instead of a ring copy; a growth costs one bulk page allocation
 * and the carving of its mbufs. Other arguments as
 * lr_pktmbuf_pool_create(); NULL and lr_errno on error.
 */
struct lr_mempool *
lr_pktmbuf_pool_create_elastic(const char *name, unsigned min, unsigned max,
			       unsigned cache_size, uint16_t priv_size,
			       uint16_t data_room_size, int socket_id);

/**
 * Create a pool of mbufs over caller-owned memory addr..addr+len cut into
 * frames of frame_size bytes (an AF_XDP UMEM): each frame holds the pool's
 * object header, the mbuf, priv_size private bytes, then the buffer
 * (headroom + data) to the frame's end, so the mbuf of a frame starting at
 * f is at f + lr_mempool_obj_offset(0) and its buffer at
 * f + lr_pktmbuf_xmem_buf_offset(priv_size). addr must be cache-line
 * aligned, frame_size a multiple of the cache line. The memory must
 * outlive the pool. NULL and lr_errno on error.
 */
struct lr_mempool *lr_pktmbuf_pool_create_xmem(const char *name, void *addr,
					       size_t len, unsigned frame_size,
					       unsigned cache_size,
					       uint16_t priv_size,
					       int socket_id);

/**
 * Create a pool of n mbufs whose buffers lie outside the pool, in memory
 * the caller owns (for example a region shared with another process):
 * mbuf i, in the pool's index order, has buf_addr = buf_base + i *
 * buf_size for its whole life and buf_len = buf_size (headroom included).
 * The mbufs themselves (and priv_size private bytes after each) live in
 * the pool's own pages, apart from the buffers, so whoever can write the
 * buffers cannot touch the metadata (pool pointer, refcnt, chain). The
 * buffers are not the page allocator's: buf_iova is their virtual
 * address. buf_base must be cache-line aligned and stay mapped until the
 * pool is freed. NULL and lr_errno on error.
 */
struct lr_mempool *
lr_pktmbuf_pool_create_extbuf(const char *name, unsigned n, unsigned cache_size,
			      uint16_t priv_size, void *buf_base,
			      uint16_t buf_size, int socket_id);

/** Offset of the buffer (buf_addr) from the start of its frame in a pool
 *  made by lr_pktmbuf_pool_create_xmem() with this private size. */
static inline unsigned
lr_pktmbuf_xmem_buf_offset(uint16_t priv_size)
{
	return lr_mempool_obj_offset(0) + (unsigned)sizeof(struct lr_mbuf) +
	       priv_size;
}

/** Print the mbuf chain's metadata and up to dump_len data bytes to f. */
void lr_pktmbuf_dump(FILE *f, const struct lr_mbuf *m, unsigned dump_len);

/** Append tail's segments to head's; 0, or -EOVERFLOW if the segment
 *  count or packet length would overflow (nothing changed). */
int lr_pktmbuf_chain(struct lr_mbuf *head, struct lr_mbuf *tail);

/** Append len bytes of data at the end of packet m, chaining mbufs from
 *  mp when the last segment is full; 0, or -ENOBUFS when mp ran out or
 *  the chain would pass UINT16_MAX segments (m is then as before). */
int lr_pktmbuf_append_copy(struct lr_mbuf *m, struct lr_mempool *mp,
			   const void *data, uint32_t len);

/* lr_pktmbuf_read()'s path for data that crosses segments. */
const void *lr_pktmbuf_read_chain_(const struct lr_mbuf *m, uint32_t off,
				   uint32_t len, void *buf);

/** The len bytes at offset off of packet m: a pointer into the mbuf when
 *  they lie in its first segment, else copied into buf (len bytes of
 *  room) from the segments they span; NULL when off + len passes the
 *  packet's end. */
static inline const void *
lr_pktmbuf_read(const struct lr_mbuf *m, uint32_t off, uint32_t len, void *buf)
{
	if (lr_likely((uint64_t)off + len <= m->data_len))
		return (const char *)m->buf_addr + m->data_off + off;
	return lr_pktmbuf_read_chain_(m, off, len, buf);
}

/** Copy the whole packet m, every segment, into dst (pkt_len bytes of
 *  room); returns pkt_len. */
uint32_t lr_pktmbuf_copy_out(const struct lr_mbuf *m, void *dst);

/** Check one packet's invariants (lengths, segment count, pool, room);
 *  0 or -EINVAL after logging what is wrong. */
int lr_mbuf_validate(const struct lr_mbuf *m);

/** Buffer bytes of the mbufs of pool mp. */
static inline uint16_t
lr_pktmbuf_data_room_size(struct lr_mempool *mp)
{
	return ((struct lr_pktmbuf_pool_private *)lr_mempool_get_priv(mp))
	    ->mbuf_data_room_size;
}

/** Private bytes after each mbuf of pool mp. */
static inline uint16_t
lr_pktmbuf_priv_size(struct lr_mempool *mp)
{
	return ((struct lr_pktmbuf_pool_private *)lr_mempool_get_priv(mp))
	    ->mbuf_priv_size;
}

/** The private area after m. */
static inline void *
lr_mbuf_to_priv(struct lr_mbuf *m)
{
	return m + 1;
}

/** Bytes in front of the data of m. */
static inline uint16_t
lr_pktmbuf_headroom(const struct lr_mbuf *m)
{
	return m->data_off;
}

/** Bytes after the data of m in its buffer. */
static inline uint16_t
lr_pktmbuf_tailroom(const struct lr_mbuf *m)
{
	return (uint16_t)(m->buf_len - m->data_off - m->data_len);
}

/** Last segment of the chain starting at m. */
static inline struct lr_mbuf *
lr_pktmbuf_lastseg(struct lr_mbuf *m)
{
	while (m->next != NULL)
		m = m->next;
	return m;
}

/** The rearm word (data_off, refcnt 1, nb_segs 1, port) that
 *  lr_pktmbuf_rearm() stores in one 8-byte write. */
static __lr_always_inline uint64_t
lr_mbuf_rearm_word(uint16_t data_off, uint16_t port)
{
	union {
		uint64_t w;
		struct {
			uint16_t data_off, refcnt, nb_segs, port;
		} f;
	} u;

	u.f.data_off = data_off;
	u.f.refcnt = 1;
	u.f.nb_segs = 1;
	u.f.port = port;
	return u.w;
}

/** Make m, which satisfies the pool invariant (next NULL, refcnt 1), a
 *  one-segment packet of len bytes with the rearm word w (data_off, port)
 *  and no offload flags, type, VLAN or hash: the receive paths' reset,
 *  first cache line only. */
static __lr_always_inline void
lr_pktmbuf_rearm(struct lr_mbuf *m, uint64_t w, uint32_t len)
{
	/* packet_type 0 and pkt_len, then data_len, vlan_tci 0 and
	 * hash_rss 0, as the two words of rx_words: four stores instead of
	 * seven, typed (a memcpy would make the compiler reload what the
	 * caller keeps in registers) */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t a = (uint64_t)len << 32, b = (uint16_t)len;
#else
	uint64_t a = len, b = (uint64_t)(uint16_t)len << 48;
#endif

	m->rearm_data = w;
	m->ol_flags = 0;
	m->rx_words[0] = a;
	m->rx_words[1] = b;
}

/* Reset the first-line fields of an mbuf fresh from its pool: default
 * headroom, no port, empty. */
static __lr_always_inline void
lr_pktmbuf_reset_line0_(struct lr_mbuf *m)
{
	lr_pktmbuf_rearm(
	    m,
	    lr_mbuf_rearm_word(
		(uint16_t)LR_MIN((uint16_t)LR_PKTMBUF_HEADROOM, m->buf_len),
		LR_MBUF_PORT_INVALID),
	    0);
}

/** Make m an empty one-segment packet with the default headroom. */
static inline void
lr_pktmbuf_reset(struct lr_mbuf *m)
{
	m->next = NULL;
	m->tx_offload = 0;
	m->vlan_tci_outer = 0;
	lr_pktmbuf_reset_line0_(m);
}

/** Allocate one empty mbuf from mp; NULL when the pool is empty. */
static __lr_always_inline struct lr_mbuf *
lr_pktmbuf_alloc(struct lr_mempool *mp)
{
	void *obj;

	if (lr_unlikely(lr_mempool_get(mp, &obj) != 0))
		return NULL;
	/* the pool invariant: its own, one unshared segment, no next */
	LR_ASSERT(((struct lr_mbuf *)obj)->pool == mp &&
		  ((struct lr_mbuf *)obj)->next == NULL &&
		  ((struct lr_mbuf *)obj)->refcnt == 1);
	lr_pktmbuf_reset_line0_((struct lr_mbuf *)obj);
	return (struct lr_mbuf *)obj;
}

/** Allocate n empty mbufs, all or none; 0 or -ENOENT. */
static __lr_always_inline int
lr_pktmbuf_alloc_bulk(struct lr_mempool *mp, struct lr_mbuf **mbufs, unsigned n)
{
	if (lr_unlikely(lr_mempool_get_bulk(mp, (void **)mbufs, n) != 0))
		return -ENOENT;
	for (unsigned i = 0; i < n; i++) {
		LR_ASSERT(mbufs[i]->pool == mp && mbufs[i]->next == NULL);
		lr_pktmbuf_reset_line0_(mbufs[i]);
	}
	return 0;
}

/** Read the reference count of m. */
static inline uint16_t
lr_mbuf_refcnt_read(const struct lr_mbuf *m)
{
	return __atomic_load_n(&m->refcnt, __ATOMIC_RELAXED);
}

/** Set the reference count of m (m unshared). */
static inline void
lr_mbuf_refcnt_set(struct lr_mbuf *m, uint16_t v)
{
	__atomic_store_n(&m->refcnt, v, __ATOMIC_RELAXED);
}

/** Add v (may be negative) to the reference count of one segment m. */
static inline void
lr_mbuf_refcnt_update(struct lr_mbuf *m, int16_t v)
{
	__atomic_add_fetch(&m->refcnt, (uint16_t)v, __ATOMIC_ACQ_REL);
}

/** Add v to the reference count of every segment of the packet m. */
static inline void
lr_pktmbuf_refcnt_update(struct lr_mbuf *m, int16_t v)
{
	for (; m != NULL; m = m->next)
		lr_mbuf_refcnt_update(m, v);
}

/* Drop one reference to segment m; m if it must go back to its pool
 * (restored to the pool invariant), else NULL. */
static __lr_always_inline struct lr_mbuf *
lr_pktmbuf_prefree_seg_(struct lr_mbuf *m)
{
	LR_ASSERT(m->pool != NULL && lr_mbuf_refcnt_read(m) >= 1);
	if (lr_likely(lr_mbuf_refcnt_read(m) == 1)) {
		/* Sole owner: nobody else can see the count change. */
	} else if (__atomic_sub_fetch(&m->refcnt, 1, __ATOMIC_ACQ_REL) != 0) {
		return NULL;
	} else {
		lr_mbuf_refcnt_set(m, 1);
	}
	if (m->next != NULL)
		m->next = NULL;
	if (m->nb_segs != 1)
		m->nb_segs = 1;
	return m;
}

/** Free the packet m (every segment whose count drops to 0); NULL ok. */
static __lr_always_inline void
lr_pktmbuf_free(struct lr_mbuf *m)
{
	unsigned segs, walked = 0;

	if (m == NULL)
		return;
	if (lr_likely(m->nb_segs == 1 && lr_mbuf_refcnt_read(m) == 1)) {
		/* One unshared segment: next is NULL already. */
		LR_ASSERT(m->next == NULL && m->pool != NULL);
		lr_mempool_put(m->pool, m);
		return;
	}
	segs = m->nb_segs;
	while (m != NULL) {
		struct lr_mbuf *next = m->next, *seg;

		seg = lr_pktmbuf_prefree_seg_(m);
		if (seg != NULL)
			lr_mempool_put(seg->pool, seg);
		m = next;
		walked++;
	}
	/* the chain is as long as its head says */
	LR_ASSERT(walked == segs);
}

/* Put the pending mbufs of one pool back. */
static __lr_always_inline void
lr_pktmbuf_put_pending_(struct lr_mempool *mp, void **pending, unsigned *np)
{
	if (*np != 0)
		lr_mempool_put_bulk(mp, pending, *np);
	*np = 0;
}

/** Free n packets (NULL entries skipped); puts are batched per pool. */
static inline void
lr_pktmbuf_free_bulk(struct lr_mbuf **mbufs, unsigned n)
{
	void *pending[LR_PKTMBUF_FREE_BATCH];
	struct lr_mempool *mp = NULL;
	unsigned np = 0;

	if (__builtin_constant_p(n) && n == 1) {
		/* One packet: the single free, no batching to set up. */
		lr_pktmbuf_free(mbufs[0]);
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		struct lr_mbuf *m = mbufs[i];

		if (lr_unlikely(m == NULL))
			continue;
		if (lr_likely(m->nb_segs == 1 && lr_mbuf_refcnt_read(m) == 1)) {
			if (lr_unlikely(m->pool != mp ||
					np == LR_PKTMBUF_FREE_BATCH)) {
				lr_pktmbuf_put_pending_(mp, pending, &np);
				mp = m->pool;
			}
			pending[np++] = m;
			continue;
		}
		while (m != NULL) {
			struct lr_mbuf *next = m->next, *seg;

			seg = lr_pktmbuf_prefree_seg_(m);
			if (seg != NULL) {
				if (seg->pool != mp ||
				    np == LR_PKTMBUF_FREE_BATCH) {
					lr_pktmbuf_put_pending_(mp, pending,
								&np);
					mp = seg->pool;
				}
				pending[np++] = seg;
			}
			m = next;
		}
	}
	lr_pktmbuf_put_pending_(mp, pending, &np);
}

/** Extend the packet by len bytes at the end of its last segment; the
 *  start of the new bytes, or NULL if that segment lacks the room. */
static inline char *
lr_pktmbuf_append(struct lr_mbuf *m, uint16_t len)
{
	struct lr_mbuf *last = m->nb_segs == 1 ? m : lr_pktmbuf_lastseg(m);
	char *tail;

	if (lr_unlikely(len > lr_pktmbuf_tailroom(last)))
		return NULL;
	tail = (char *)last->buf_addr + last->data_off + last->data_len;
	last->data_len = (uint16_t)(last->data_len + len);
	m->pkt_len += len;
	return tail;
}

/** Extend the packet by len bytes in front; the new start, or NULL if
 *  the headroom is too small. */
static inline char *
lr_pktmbuf_prepend(struct lr_mbuf *m, uint16_t len)
{
	if (lr_unlikely(len > lr_pktmbuf_headroom(m)))
		return NULL;
	m->data_off = (uint16_t)(m->data_off - len);
	m->data_len = (uint16_t)(m->data_len + len);
	m->pkt_len += len;
	return (char *)m->buf_addr + m->data_off;
}

/** Remove len bytes from the start of the first segment; the new start,
 *  or NULL if that segment holds fewer bytes. */
static inline char *
lr_pktmbuf_adj(struct lr_mbuf *m, uint16_t len)
{
	if (lr_unlikely(len > m->data_len))
		return NULL;
	m->data_off = (uint16_t)(m->data_off + len);
	m->data_len = (uint16_t)(m->data_len - len);
	m->pkt_len -= len;
	return (char *)m->buf_addr + m->data_off;
}

/** Remove len bytes from the end of the last segment; 0, or -EINVAL if
 *  that segment holds fewer bytes (the packet is then unchanged). */
static inline int
lr_pktmbuf_trim(struct lr_mbuf *m, uint16_t len)
{
	struct lr_mbuf *last = m->nb_segs == 1 ? m : lr_pktmbuf_lastseg(m);

	if (lr_unlikely(len > last->data_len))
		return -EINVAL;
	last->data_len = (uint16_t)(last->data_len - len);
	m->pkt_len -= len;
	return 0;
}

/** Non-zero if the packet's data is in one segment. */
static inline int
lr_pktmbuf_is_contiguous(const struct lr_mbuf *m)
{
	return m->nb_segs == 1;
}

LR_END_DECLS

#endif /* LR_MBUF_H */
