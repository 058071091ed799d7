/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_packet: the code that reads headers of received frames, on frames
 * made from the input. The input is a list of frames, each a 2-byte
 * big-endian length then that many bytes (the last one cut short by the
 * end of the input); at most FRAMES_MAX of them. A frame longer than an
 * mbuf's room continues in chained mbufs, as a port delivers it.
 *
 *   - lr_ether.h: the addresses of the Ethernet header (valid, equal,
 *     copy, formatted);
 *   - lr-pktgen's receive side, rx_poll() of apps/pktgen/datapath.c: which
 *     frames are its own, their stream, sequence number and timestamp,
 *     accounted in the sequence windows and the latency histogram; checked:
 *     every own frame counted once as unique or duplicate, the histogram
 *     holding every latency sample;
 *   - lr-pktgen's L3 mode (apps/pktgen/l3_frame.c, l3.c) on the same
 *     port: pg_l3_classify() on every frame (an answer is whole: its
 *     checksums hold), and the answers rx_poll() sends, each taken back;
 *   - lr-l2fwd's forwarding with MAC rewriting (apps/l2fwd/l2fwd.c): every
 *     frame arrives on the paired port with its length, the new addresses
 *     in front and the rest unchanged.
 * Frames reach both programs through net_ring ports over rings of this
 * target. Every mbuf must be back in the pool after each input.
 */
#include <string.h>

#include "../../apps/pktgen/datapath.c"
#include "fuzz_common.h"
#include "l2fwd.h"
#include "lr_eth_ring.h"
#include "lr_ether.h"
#include "lr_log.h"
#include "lr_ring.h"

#define FRAMES_MAX L2FWD_BURST
#define NSTREAMS   4
#define RING_SIZE  128

/* lr-pktgen's shared state (main.c's, which is not linked here). */
struct pg_run pg;

static struct lr_mempool *pool;
/* Port pg_port feeds rx_poll(); l2fwd forwards l2_port[0] to l2_port[1]. */
static struct lr_ring *pg_in, *l2_in[2], *l2_out[2];
static uint16_t pg_port, l2_port[2];
static struct l2fwd fwd;
static struct lr_ether_addr l2_mac[2];
static struct pg_lcore lc;
static struct pg_seqwin win[NSTREAMS];
static struct pg_lat slat[1];	     /* one stream definition */
static uint16_t inst_sdef[NSTREAMS]; /* every instance of it */
static struct pg_counters cnt;
static struct lr_ring *pg_out; /* the L3 answers of pg_port */
static struct pg_l3_if l3if;   /* pg_port's addresses and MAC */

struct frame {
	const uint8_t *data;
	uint32_t len;
};

static uint16_t
ring_port(const char *name, struct lr_ring **in, struct lr_ring **out)
{
	char rname[32];
	int p;

	snprintf(rname, sizeof(rname), "%s_in", name);
	*in = lr_ring_create(rname, RING_SIZE, LR_SOCKET_ID_ANY, 0);
	snprintf(rname, sizeof(rname), "%s_out", name);
	*out = lr_ring_create(rname, RING_SIZE, LR_SOCKET_ID_ANY, 0);
	FUZZ_CHECK(*in != NULL && *out != NULL);
	p = lr_eth_from_rings(name, in, 1, out, 1, LR_SOCKET_ID_ANY);
	FUZZ_CHECK(p >= 0);
	FUZZ_CHECK(lr_eth_dev_configure((uint16_t)p, 1, 1, NULL) == 0);
	FUZZ_CHECK(lr_eth_rx_queue_setup((uint16_t)p, 0, RING_SIZE,
					 LR_SOCKET_ID_ANY, NULL, pool) == 0);
	FUZZ_CHECK(lr_eth_tx_queue_setup((uint16_t)p, 0, RING_SIZE,
					 LR_SOCKET_ID_ANY, NULL) == 0);
	FUZZ_CHECK(lr_eth_dev_start((uint16_t)p) == 0);
	return (uint16_t)p;
}

static void
setup(void)
{
	uint16_t nq[LR_MAX_ETHPORTS] = {0};
	struct lr_ether_addr mac;

	pool = fuzz_eal_up("fuzz_packet");
	pg_port = ring_port("fz_pg", &pg_in, &pg_out);
	for (int i = 0; i < 2; i++) {
		char name[16];

		snprintf(name, sizeof(name), "fz_l2_%d", i);
		l2_port[i] = ring_port(name, &l2_in[i], &l2_out[i]);
		FUZZ_CHECK(lr_eth_macaddr_get(l2_port[i], &l2_mac[i]) == 0);
	}
	l2fwd_init(&fwd, 1);
	FUZZ_CHECK(l2fwd_pair(&fwd, l2_port[0], l2_port[1]) == 0);
	FUZZ_CHECK(l2fwd_assign(&fwd, lr_lcore_id(), l2_port[0]) == 0);
	pg.nstreams = NSTREAMS;
	pg.nsdefs = 1;
	pg.inst_sdef = inst_sdef;
	/* Frames of this run carry this id (a seed's frames can). */
	pg.run_id = 0x4c525047;
	/* L3 mode on pg_port: 10.0.0.2/24 and fd00::2/64. */
	l3if.c = (struct pg_l3_conf){.has4 = true,
				     .has6 = true,
				     .plen4 = 24,
				     .plen6 = 64,
				     .ip4 = {10, 0, 0, 2},
				     .ip6 = {0xfd, [15] = 2}};
	FUZZ_CHECK(lr_eth_macaddr_get(pg_port, &mac) == 0);
	memcpy(l3if.mac, mac.addr_bytes, 6);
	pg.o.l3[pg_port] = l3if.c;
	pg.pool = pool;
	nq[pg_port] = 1;
	FUZZ_CHECK(pg_l3_setup(nq, 1u << pg_port, NULL, 0) == 0 && pg.l3);
}

/* Split the input into frames; their number. */
static unsigned
split(const uint8_t *data, size_t size, struct frame *f)
{
	unsigned n = 0;

	while (size >= 2 && n < FRAMES_MAX) {
		uint32_t len = (uint32_t)data[0] << 8 | data[1];

		data += 2;
		size -= 2;
		if (len > size)
			len = (uint32_t)size;
		f[n].data = data;
		f[n].len = len;
		n++;
		data += len;
		size -= len;
	}
	return n;
}

/* One frame in mbufs: each segment filled to its room, then the next one
 * chained (lr_pktmbuf_append() on the head writes into the last). */
static struct lr_mbuf *
to_mbuf(const struct frame *f)
{
	struct lr_mbuf *head = lr_pktmbuf_alloc(pool), *seg = head;
	uint32_t off = 0;

	FUZZ_CHECK(head != NULL);
	for (;;) {
		uint16_t k = (uint16_t)LR_MIN(
		    f->len - off, (uint32_t)lr_pktmbuf_tailroom(seg));

		memcpy(lr_pktmbuf_append(head, k), f->data + off, k);
		off += k;
		if (off == f->len)
			return head;
		seg = lr_pktmbuf_alloc(pool);
		FUZZ_CHECK(seg != NULL);
		FUZZ_CHECK(lr_pktmbuf_chain(head, seg) == 0);
	}
}

static void
enqueue(struct lr_ring *r, const struct frame *f, unsigned n)
{
	struct lr_mbuf *m[FRAMES_MAX];

	for (unsigned i = 0; i < n; i++)
		m[i] = to_mbuf(&f[i]);
	FUZZ_CHECK(lr_ring_enqueue_burst(r, (void **)m, n, NULL) == n);
}

static void
ether_helpers(const struct frame *f)
{
	const struct lr_ether_hdr *h = (const void *)f->data;
	struct lr_ether_addr a;
	char buf[LR_ETHER_ADDR_FMT_SIZE];
	struct lr_ether_hdr copy;

	if (f->len < LR_ETHER_HDR_LEN)
		return;
	memcpy(&copy, h, sizeof(copy)); /* aligned, as in an mbuf */
	lr_ether_addr_copy(&copy.src_addr, &a);
	FUZZ_CHECK(lr_ether_addr_equal(&a, &copy.src_addr));
	FUZZ_CHECK(lr_ether_addr_is_valid_assigned(&copy.dst_addr) ==
		   (!(f->data[0] & 1) &&
		    memcmp(f->data, "\0\0\0\0\0\0", LR_ETHER_ADDR_LEN) != 0));
	FUZZ_CHECK(lr_ether_addr_equal(&copy.dst_addr, &copy.src_addr) ==
		   (memcmp(f->data, f->data + 6, LR_ETHER_ADDR_LEN) == 0));
	lr_ether_format_addr(buf, sizeof(buf), &copy.src_addr);
	FUZZ_CHECK(strlen(buf) == LR_ETHER_ADDR_FMT_SIZE - 1);
}

/* The reference checksum: a ones'-complement sum of n bytes as big-endian
 * 16-bit words, byte by byte (lr-pktgen's checksums are lib/net's). */
static uint32_t
pg_csum_add(uint32_t sum, const void *buf, size_t n)
{
	const uint8_t *p = buf;
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (i < n)
		sum += (uint32_t)p[i] << 8;
	return (sum & 0xffff) + (sum >> 16);
}

/* That sum folded to 16 bits. */
static uint16_t
pg_csum_fold(uint32_t sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* The ICMPv6 checksum of IPv6 frame d holds. */
static bool
icmp6_ok(const uint8_t *d)
{
	unsigned pl = (unsigned)(d[18] << 8 | d[19]);

	return pg_csum_fold(
		   pg_csum_add(pg_csum_add(0, d + 22, 32), d + 54, pl) + pl +
		   58) == 0xffff;
}

/* The L3 classifier on one frame: an answer exactly when it asks for
 * one, whole, within its buffer; a learned MAC is a unicast one. */
static void
l3_classify(const struct frame *f)
{
	static uint8_t out[4096];
	struct pg_l3_learned l;
	unsigned n, hl, tl;
	enum pg_l3_kind k =
	    pg_l3_classify(&l3if, f->data, f->len, out, sizeof(out), &n, &l);

	FUZZ_CHECK((k == PG_L3_OTHER || k == PG_L3_LEARN) == (n == 0));
	FUZZ_CHECK(n == 0 || (n >= 60 && n <= sizeof(out)));
	FUZZ_CHECK(!l.valid || !(l.mac[0] & 1));
	FUZZ_CHECK(k != PG_L3_LEARN || l.valid);
	if (n)
		FUZZ_CHECK(memcmp(out + 6, l3if.mac, 6) == 0);
	switch (k) {
	case PG_L3_ARP:
		FUZZ_CHECK(n == 60 && out[12] == 8 && out[13] == 6 &&
			   out[21] == 2 &&
			   memcmp(out + 28, l3if.c.ip4, 4) == 0);
		break;
	case PG_L3_ECHO:
		hl = (out[14] & 15u) * 4;
		tl = (unsigned)(out[16] << 8 | out[17]);
		FUZZ_CHECK(14 + tl <= n && out[14 + hl] == 0);
		FUZZ_CHECK(pg_csum_fold(pg_csum_add(0, out + 14, hl)) ==
			   0xffff);
		FUZZ_CHECK(pg_csum_fold(pg_csum_add(0, out + 14 + hl,
						    tl - hl)) == 0xffff);
		break;
	case PG_L3_NS:
		FUZZ_CHECK(n == 86 && out[54] == 136 && icmp6_ok(out));
		break;
	case PG_L3_ECHO6:
		FUZZ_CHECK(out[54] == 129 && icmp6_ok(out) &&
			   memcmp(out + 22, l3if.c.ip6, 16) == 0);
		break;
	default:
		break;
	}
}

/* lr-pktgen's receive side on n frames. */
static void
pktgen_rx(const struct frame *f, unsigned n)
{
	struct pg_rxq r = {.port = pg_port, .queue = 0, .cnt = &cnt};
	uint64_t own, accounted = 0, hist = 0;

	memset(&lc, 0, sizeof(lc));
	memset(win, 0, sizeof(win));
	memset(&cnt, 0, sizeof(cnt));
	lc.win = win;
	lc.lat.min = UINT64_MAX;
	memset(slat, 0, sizeof(slat));
	slat[0].min = UINT64_MAX;
	lc.slat = slat;
	enqueue(pg_in, f, n);
	rx_poll(&lc, &r, FRAMES_MAX);

	FUZZ_CHECK(atomic_load(&cnt.rx_pkts) == n);
	own = atomic_load(&cnt.rx_own);
	FUZZ_CHECK(own + lc.rx_foreign_stream <= n);
	for (unsigned s = 0; s < NSTREAMS; s++)
		accounted += win[s].unique + win[s].dup;
	FUZZ_CHECK(accounted == own);
	for (unsigned b = 0; b < PG_LAT_BUCKETS; b++)
		hist += lc.lat.hist[b];
	FUZZ_CHECK(lc.lat.n == own && hist == own && slat[0].n == own);
	FUZZ_CHECK(own == 0 || lc.lat.min <= lc.lat.max);
	/* The L3 answers it sent: at most one a frame not of ours. */
	for (;;) {
		struct lr_mbuf *m[FRAMES_MAX];
		unsigned got =
		    lr_ring_dequeue_burst(pg_out, (void **)m, FRAMES_MAX, NULL);

		if (got == 0)
			break;
		FUZZ_CHECK(got <= n - own);
		lr_pktmbuf_free_bulk(m, got);
	}
}

/* lr-l2fwd on n frames: all but the runts (too short for their MACs,
 * dropped) come out of the paired port in order, rewritten. */
static void
l2fwd_rx(const struct frame *f, unsigned n)
{
	struct lr_mbuf *m[FRAMES_MAX];
	unsigned got, kept[FRAMES_MAX], nkept = 0;

	for (unsigned i = 0; i < n; i++)
		if (f[i].len >= 2 * LR_ETHER_ADDR_LEN)
			kept[nkept++] = i;
	enqueue(l2_in[0], f, n);
	FUZZ_CHECK(l2fwd_poll_once(&fwd, lr_lcore_id()) == n);
	l2fwd_flush(&fwd, lr_lcore_id());
	got = lr_ring_dequeue_burst(l2_out[1], (void **)m, FRAMES_MAX, NULL);
	FUZZ_CHECK(got == nkept);
	for (unsigned j = 0; j < got; j++) {
		const struct frame *fi = &f[kept[j]];
		const uint8_t *d = lr_pktmbuf_mtod(m[j], const uint8_t *);
		uint32_t head = LR_MIN(fi->len, (uint32_t)m[j]->data_len);

		FUZZ_CHECK(m[j]->pkt_len == fi->len);
		FUZZ_CHECK(lr_mbuf_validate(m[j]) == 0);
		FUZZ_CHECK(head >= 2 * LR_ETHER_ADDR_LEN);
		FUZZ_CHECK(d[0] == 0x02 && d[5] == (uint8_t)l2_port[1]);
		FUZZ_CHECK(memcmp(d + 6, l2_mac[1].addr_bytes,
				  LR_ETHER_ADDR_LEN) == 0);
		FUZZ_CHECK(memcmp(d + 12, fi->data + 12, head - 12) == 0);
	}
	lr_pktmbuf_free_bulk(m, got);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct frame f[FRAMES_MAX];
	unsigned n;

	if (pool == NULL)
		setup();
	n = split(data, size, f);
	for (unsigned i = 0; i < n; i++) {
		ether_helpers(&f[i]);
		l3_classify(&f[i]);
	}
	if (n == 0)
		return 0;
	pktgen_rx(f, n);
	fuzz_check_pool(pool);
	l2fwd_rx(f, n);
	fuzz_check_pool(pool);
	return 0;
}
