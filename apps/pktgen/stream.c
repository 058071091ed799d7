/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stream.c - frame templates (built once per stream), the per-field
 * generators that vary them, checksums, and pcap files: replay input
 * (--pcap) and capture output (--capture), both through libpcap.
 */
#include <arpa/inet.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#ifdef PG_HAVE_PCAP
#include <pcap/pcap.h>
#endif

#include "pktgen.h"

/* 7 x 64, 4 x 570, 1 x 1518, spread so that no size bunches up. */
const uint16_t pg_imix_sizes[PG_IMIX_SLOTS] = {
    64, 570, 64, 64, 570, 64, 1518, 64, 570, 64, 64, 570,
};

uint32_t
pg_csum_add(uint32_t sum, const void *buf, size_t n)
{
	const uint8_t *p = buf;
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (i < n)
		sum += (uint32_t)p[i] << 8;
	/* Fold early so long buffers never overflow 32 bits. */
	return (sum & 0xffff) + (sum >> 16);
}

unsigned
pg_max_len(const struct pg_opts *o)
{
	if (o->size_mode == PG_SIZE_IMIX)
		return 1518 - PG_FCS;
	return (unsigned)o->f[PG_F_SIZE].hi - PG_FCS;
}

static void
put_be(uint8_t *p, uint64_t v, unsigned width)
{
	for (unsigned i = 0; i < width; i++)
		p[i] = (uint8_t)(v >> (8 * (width - 1 - i)));
}

/* Where each header field sits and how wide it is. */
static const struct {
	uint8_t off, width;
} field_pos[PG_F_COUNT] = {
    [PG_F_SIZE] = {0, 0},      [PG_F_SRC_MAC] = {6, 6},
    [PG_F_DST_MAC] = {0, 6},   [PG_F_SRC_IP] = {26, 4},
    [PG_F_DST_IP] = {30, 4},   [PG_F_SRC_PORT] = {34, 2},
    [PG_F_DST_PORT] = {36, 2},
};

int
pg_stream_init(struct pg_txq *q, const struct pg_opts *o, uint64_t port_mac)
{
	unsigned max_len = pg_max_len(o), len;
	struct pg_tmpl *t;
	uint8_t *d;
	uint64_t v[PG_F_COUNT];

	t = calloc(1, sizeof(*t));
	if (t == NULL)
		return -1;
	/* 64 bytes of slack: the fast path copies 64 bytes at least. */
	d = calloc(1, max_len + 64);
	if (d == NULL) {
		free(t);
		return -1;
	}
	for (int f = 0; f < PG_F_COUNT; f++)
		v[f] = o->f[f].lo;
	if (!o->f[PG_F_SRC_MAC].set)
		v[PG_F_SRC_MAC] = port_mac;
	len = o->size_mode == PG_SIZE_IMIX ? (unsigned)pg_imix_sizes[0] - PG_FCS
					   : (unsigned)v[PG_F_SIZE] - PG_FCS;

	/* Ethernet. */
	put_be(d + 0, v[PG_F_DST_MAC], 6);
	put_be(d + 6, v[PG_F_SRC_MAC], 6);
	put_be(d + 12, 0x0800, 2);
	/* IPv4: no options, DF, TTL 64, UDP. */
	d[14] = 0x45;
	d[15] = 0;
	put_be(d + 16, len - 14, 2);
	put_be(d + 18, 0, 2);
	put_be(d + 20, 0x4000, 2);
	d[22] = 64;
	d[23] = 17;
	put_be(d + 26, v[PG_F_SRC_IP], 4);
	put_be(d + 30, v[PG_F_DST_IP], 4);
	put_be(d + 24, (uint16_t)~pg_csum_fold(pg_csum_add(0, d + 14, 20)), 2);
	/* UDP. */
	put_be(d + 34, v[PG_F_SRC_PORT], 2);
	put_be(d + 36, v[PG_F_DST_PORT], 2);
	put_be(d + 38, len - 34, 2);
	put_be(d + 40, 0, 2);
	/* Payload header, then a byte pattern. */
	put_be(d + PG_PAYLOAD_OFF, PG_MAGIC, 4);
	put_be(d + PG_PAYLOAD_OFF + 4, q->stream, 2);
	for (unsigned i = PG_PAYLOAD_OFF + PG_PAYLOAD_LEN; i < max_len; i++)
		d[i] = (uint8_t)i;

	t->data = d;
	t->len = len;
	t->stamped = true;
	q->tmpl = t;
	q->own_tmpl = t;
	q->ntmpl = 1;
	q->tmpl_idx = 0;

	/* The IPv4 header's sum without lengths and addresses: what the
	 * per-packet update starts from. */
	{
		uint8_t ip[20];

		memcpy(ip, d + 14, 20);
		memset(ip + 2, 0, 2);
		memset(ip + 10, 0, 10);
		q->ip_sum_base = pg_csum_add(0, ip, 20);
	}

	/* Generators of what varies. */
	q->nfgen = 0;
	q->imix = NULL;
	q->vary_ip_cksum = false;
	for (int f = 0; f < PG_F_COUNT; f++) {
		const struct pg_range *r = &o->f[f];
		struct pg_fgen *g;
		uint64_t span;

		if (f == PG_F_SIZE && o->size_mode == PG_SIZE_IMIX)
			span = PG_IMIX_SLOTS;
		else if (r->lo == r->hi)
			continue;
		else
			span = (r->hi - r->lo) / r->step + 1;
		g = &q->fgen[q->nfgen++];
		g->field = (uint8_t)f;
		g->off = field_pos[f].off;
		g->width = field_pos[f].width;
		g->lo = r->lo;
		g->step = r->step;
		g->span = span;
		g->cur = 0;
		if (f == PG_F_SIZE && o->size_mode == PG_SIZE_IMIX)
			q->imix = pg_imix_sizes;
		if (f == PG_F_SIZE || f == PG_F_SRC_IP || f == PG_F_DST_IP)
			q->vary_ip_cksum = true;
	}
	q->kind = q->nfgen == 0 && !o->udp_cksum ? PG_K_FAST : PG_K_GENERAL;
	q->random = o->random;
	q->rnd = (o->seed * 0x9e3779b97f4a7c15ULL + q->stream) | 1;

	q->pay_cum = NULL;
	if (o->udp_cksum) {
		unsigned n = max_len - (PG_PAYLOAD_OFF + PG_PAYLOAD_LEN);
		uint32_t *cum = malloc((n + 1) * sizeof(*cum));
		const uint8_t *p = d + PG_PAYLOAD_OFF + PG_PAYLOAD_LEN;

		if (cum == NULL) {
			pg_stream_fini(q);
			return -1;
		}
		cum[0] = 0;
		for (unsigned k = 1; k <= n; k++) {
			uint32_t s =
			    cum[k - 1] +
			    ((k & 1) ? (uint32_t)p[k - 1] << 8 : p[k - 1]);

			cum[k] = (s & 0xffff) + (s >> 16);
		}
		q->pay_cum = cum;
		q->udp_sum_base = 17;
		/* The template itself gets a correct checksum too. */
		uint32_t s = q->udp_sum_base + pg_csum_add(0, d + 26, 8) +
			     (len - 34) + pg_csum_add(0, d + 34, len - 34);
		uint16_t ck = (uint16_t)~pg_csum_fold(s);

		put_be(d + 40, ck ? ck : 0xffff, 2);
	}
	return 0;
}

void
pg_stream_fini(struct pg_txq *q)
{
	if (q->own_tmpl != NULL) {
		free(q->own_tmpl->data);
		free(q->own_tmpl);
		q->own_tmpl = NULL;
	}
	free((void *)q->pay_cum);
	q->pay_cum = NULL;
}

#ifdef PG_HAVE_PCAP

int
pg_have_pcap(void)
{
	return 1;
}

/* A frame of ours captured earlier: replay it with fresh stamps. */
static bool
is_stamped(const uint8_t *d, unsigned len)
{
	return len >= PG_HDR_LEN + PG_PAYLOAD_LEN && d[12] == 0x08 &&
	       d[13] == 0x00 && d[14] == 0x45 && d[23] == 17 &&
	       d[42] == (uint8_t)(PG_MAGIC >> 24) &&
	       d[43] == (uint8_t)(PG_MAGIC >> 16) &&
	       d[44] == (uint8_t)(PG_MAGIC >> 8) && d[45] == (uint8_t)PG_MAGIC;
}

int
pg_pcap_load(const char *path, struct pg_tmpl **out, unsigned max_len)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	struct pg_tmpl *t = NULL;
	unsigned n = 0, cap = 0, skipped = 0;
	pcap_t *p;
	int rc;

	p = pcap_open_offline(path, err);
	if (p == NULL) {
		fprintf(stderr, "lr-pktgen: --pcap '%s': %s\n", path, err);
		return -1;
	}
	if (pcap_datalink(p) != DLT_EN10MB) {
		int lt = pcap_datalink(p);
		const char *name = pcap_datalink_val_to_name(lt);

		fprintf(stderr,
			"lr-pktgen: --pcap '%s': link type %s (%d), not "
			"Ethernet (EN10MB)\n",
			path, name ? name : "unknown", lt);
		goto close_file;
	}
	while ((rc = pcap_next_ex(p, &h, &data)) == 1) {
		unsigned len = h->caplen;

		if (len < LR_ETHER_HDR_LEN) {
			skipped++;
			continue;
		}
		if (len > max_len) {
			fprintf(stderr,
				"lr-pktgen: --pcap '%s': frame %u has %u "
				"bytes, more than the %u an mbuf holds\n",
				path, n + skipped + 1, len, max_len);
			goto free_frames;
		}
		if (n == cap) {
			struct pg_tmpl *nt;

			cap = cap ? cap * 2 : 64;
			nt = realloc(t, cap * sizeof(*t));
			if (nt == NULL)
				goto no_memory;
			t = nt;
		}
		/* Short frames are padded as a port pads them on the wire. */
		t[n].len = LR_MAX(len, (unsigned)LR_ETHER_MIN_LEN);
		t[n].data = calloc(1, t[n].len + 64);
		if (t[n].data == NULL)
			goto no_memory;
		memcpy(t[n].data, data, len);
		t[n].stamped = is_stamped(t[n].data, t[n].len);
		if (t[n].stamped) {
			/* Its old UDP checksum would be wrong after new
			 * stamps: send without one. */
			t[n].data[40] = 0;
			t[n].data[41] = 0;
		}
		n++;
	}
	if (rc == -1) {
		fprintf(stderr,
			"lr-pktgen: --pcap '%s': bad record after %u frames: "
			"%s\n",
			path, n + skipped, pcap_geterr(p));
		goto free_frames;
	}
	if (n == 0) {
		fprintf(stderr, "lr-pktgen: --pcap '%s': no Ethernet frames\n",
			path);
		goto free_frames;
	}
	if (skipped)
		fprintf(stderr,
			"lr-pktgen: --pcap '%s': skipped %u frames shorter "
			"than an Ethernet header\n",
			path, skipped);
	pcap_close(p);
	*out = t;
	return (int)n;

no_memory:
	fprintf(stderr, "lr-pktgen: --pcap '%s': out of memory\n", path);
free_frames:
	pg_pcap_free(t, n);
close_file:
	pcap_close(p);
	return -1;
}

void
pg_pcap_free(struct pg_tmpl *t, unsigned n)
{
	if (t == NULL)
		return;
	for (unsigned i = 0; i < n; i++)
		free(t[i].data);
	free(t);
}

static pcap_t *cap_dead;
static pcap_dumper_t *cap_dump;
static pthread_mutex_t cap_lock = PTHREAD_MUTEX_INITIALIZER;

int
pg_capture_open(const char *path)
{
	cap_dead = pcap_open_dead(DLT_EN10MB, 65535);
	if (cap_dead == NULL) {
		fprintf(stderr,
			"lr-pktgen: --capture '%s': pcap_open_dead "
			"failed\n",
			path);
		return -1;
	}
	cap_dump = pcap_dump_open(cap_dead, path);
	if (cap_dump == NULL) {
		fprintf(stderr, "lr-pktgen: --capture '%s': %s\n", path,
			pcap_geterr(cap_dead));
		pcap_close(cap_dead);
		cap_dead = NULL;
		return -1;
	}
	return 0;
}

void
pg_capture_write(struct lr_mbuf **pkts, unsigned n)
{
	struct pcap_pkthdr h;
	struct timeval tv;

	gettimeofday(&tv, NULL);
	pthread_mutex_lock(&cap_lock);
	for (unsigned i = 0; i < n; i++) {
		h.ts = tv;
		h.caplen = pkts[i]->data_len;
		h.len = pkts[i]->pkt_len;
		pcap_dump((u_char *)cap_dump, &h,
			  lr_pktmbuf_mtod(pkts[i], const u_char *));
	}
	pthread_mutex_unlock(&cap_lock);
}

void
pg_capture_close(void)
{
	if (cap_dump != NULL) {
		pcap_dump_close(cap_dump);
		cap_dump = NULL;
	}
	if (cap_dead != NULL) {
		pcap_close(cap_dead);
		cap_dead = NULL;
	}
}

#else /* !PG_HAVE_PCAP */

int
pg_have_pcap(void)
{
	return 0;
}

int
pg_pcap_load(const char *path, struct pg_tmpl **out, unsigned max_len)
{
	fprintf(stderr, "lr-pktgen: --pcap '%s': built without libpcap\n",
		path);
	return -1;
}

void
pg_pcap_free(struct pg_tmpl *t, unsigned n)
{
}

int
pg_capture_open(const char *path)
{
	fprintf(stderr, "lr-pktgen: --capture '%s': built without libpcap\n",
		path);
	return -1;
}

void
pg_capture_write(struct lr_mbuf **pkts, unsigned n)
{
}

void
pg_capture_close(void)
{
}

#endif /* PG_HAVE_PCAP */
