/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stream.c - frame templates (built once per stream), the per-field
 * generators that vary them, checksums, and pcap files: replay input
 * (--pcap, through libpcap) and capture output (--capture, written here).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <unistd.h>

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
	put_be(d + PG_PAYLOAD_OFF + PG_ST_RUN, pg.run_id, 4);
	put_be(d + PG_PAYLOAD_OFF + PG_ST_STREAM, q->stream, 2);
	for (unsigned i = PG_PAYLOAD_OFF + PG_PAYLOAD_LEN; i < max_len; i++)
		d[i] = (uint8_t)i;

	t->data = d;
	t->len = len;
	t->stamped = true;
	t->stamp_off = PG_PAYLOAD_OFF;
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

static uint64_t
get_be(const uint8_t *p, unsigned width)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < width; i++)
		v = v << 8 | p[i];
	return v;
}

/* The IP protocol (next header) of frame d, which pg_stamp_offset()
 * accepted. */
static unsigned
l4_proto(const uint8_t *d)
{
	unsigned off = 12;

	while (get_be(d + off, 2) == 0x8100 || get_be(d + off, 2) == 0x88a8)
		off += 4;
	return get_be(d + off, 2) == 0x0800 ? d[off + 2 + 9] : d[off + 2 + 6];
}

/* A UDP frame of ours captured earlier (of any run: its stamp's check
 * value holds): replay it with fresh stamps and no UDP checksum. The
 * stamp's offset, or 0 (other frames, TCP and ICMP ones of ours too,
 * are replayed as they are). */
static uint32_t
stamped_at(const uint8_t *d, unsigned len)
{
	uint32_t off = pg_stamp_offset(d, len);
	const uint8_t *s = d + off;

	if (off == 0 || l4_proto(d) != 17 ||
	    get_be(s + PG_ST_CHECK, 2) !=
		pg_stamp_check((uint32_t)get_be(s + PG_ST_RUN, 4),
			       (uint16_t)get_be(s + PG_ST_STREAM, 2),
			       (uint32_t)get_be(s + PG_ST_SEQ, 4),
			       get_be(s + PG_ST_TSC, 6)))
		return 0;
	return off;
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
		t[n].stamp_off = (uint16_t)stamped_at(t[n].data, t[n].len);
		t[n].stamped = t[n].stamp_off != 0;
		if (t[n].stamped)
			/* Its old UDP checksum would be wrong after new
			 * stamps: send without one. */
			memset(t[n].data + t[n].stamp_off - 2, 0, 2);
		n++;
	}
	if (rc == -1) {
		FILE *f = pcap_file(p);

		/* Cut short by the end of the file (a killed capture): keep
		 * the whole records; anything else is corruption. */
		if (f == NULL || !feof(f) || ferror(f)) {
			fprintf(stderr,
				"lr-pktgen: --pcap '%s': record %u is corrupt "
				"(%s)\n",
				path, n + skipped + 1, pcap_geterr(p));
			goto free_frames;
		}
		fprintf(stderr,
			"lr-pktgen: --pcap '%s': warning: the last record "
			"(%u) is truncated (%s); using the %u records before "
			"it\n",
			path, n + skipped + 1, pcap_geterr(p), n + skipped);
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

#endif /* PG_HAVE_PCAP */

/* ---- capture (--capture): our own writer, so every write is checked ----
 *
 * Microsecond pcap, snap length 65535. Each call writes its records with
 * one pwritev() at the end of the last whole record; a failed or short
 * write cuts the file back to the last whole record, prints the file and
 * the error once and drops every later frame; the caller stops the run
 * and the exit status is 1. */

#define CAP_SNAPLEN 65535u
#define CAP_BATCH   256 /* records per pwritev (two iovecs each) */

static struct {
	pthread_mutex_t lock;
	const char *path;
	int fd;
	uint64_t size; /* bytes of the header and whole records */
	uint64_t lost; /* frames not written after a failure */
	bool failed;
} cap = {PTHREAD_MUTEX_INITIALIZER, NULL, -1, 0, 0, false};

/* Write iov[0..cnt-1] at off in full; 0, or -errno with *done bytes
 * written. */
static int
cap_pwritev(struct iovec *iov, int cnt, uint64_t off, uint64_t *done)
{
	*done = 0;
	while (cnt > 0) {
		ssize_t w = pwritev(cap.fd, iov, cnt, (off_t)(off + *done));

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		*done += (uint64_t)w;
		while (cnt > 0 && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			cnt--;
		}
		if (cnt > 0) {
			iov->iov_base = (uint8_t *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

/* A write failed with err after `whole` bytes of whole records. */
static void
cap_failed(int err, uint64_t whole)
{
	cap.size += whole;
	if (ftruncate(cap.fd, (off_t)cap.size) < 0)
		fprintf(stderr,
			"lr-pktgen: --capture '%s': cannot cut the file back "
			"to its last whole record (%llu bytes): %s\n",
			cap.path, (unsigned long long)cap.size,
			strerror(errno));
	fprintf(stderr,
		"lr-pktgen: --capture '%s': cannot write: %s; the file ends "
		"after its last whole record (%llu bytes); stopping\n",
		cap.path, strerror(-err), (unsigned long long)cap.size);
	cap.failed = true;
}

int
pg_capture_open(const char *path, unsigned mode)
{
	struct {
		uint32_t magic;
		uint16_t major, minor;
		int32_t thiszone;
		uint32_t sigfigs, snaplen, linktype;
	} fh = {0xa1b2c3d4u, 2, 4, 0, 0, CAP_SNAPLEN, 1 /* EN10MB */};
	struct iovec iov = {&fh, sizeof(fh)};
	struct stat st;
	uint64_t done;
	int err;

	cap.path = path;
	cap.size = 0;
	cap.lost = 0;
	cap.failed = false;
	cap.fd =
	    open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, (mode_t)mode);
	if (cap.fd < 0) {
		fprintf(stderr,
			"lr-pktgen: --capture '%s': cannot create: %s\n", path,
			strerror(errno));
		return -1;
	}
	/* An existing file keeps its mode: take away what was not asked
	 * (a regular file only). */
	if (fstat(cap.fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (st.st_mode & 07777 & ~mode) &&
	    fchmod(cap.fd, st.st_mode & 07777 & mode) < 0)
		fprintf(stderr,
			"lr-pktgen: --capture '%s': warning: mode %04o, "
			"cannot set %04o: %s\n",
			path, (unsigned)(st.st_mode & 07777),
			(unsigned)(st.st_mode & 07777 & mode), strerror(errno));
	err = cap_pwritev(&iov, 1, 0, &done);
	if (err < 0) {
		fprintf(stderr, "lr-pktgen: --capture '%s': cannot write: %s\n",
			path, strerror(-err));
		close(cap.fd);
		cap.fd = -1;
		return -1;
	}
	cap.size = sizeof(fh);
	return 0;
}

int
pg_capture_write(struct lr_mbuf **pkts, unsigned n)
{
	static struct iovec iov[2 * CAP_BATCH];
	static uint32_t hdr[CAP_BATCH][4];
	static uint64_t end[CAP_BATCH];
	struct timeval tv;

	gettimeofday(&tv, NULL);
	pthread_mutex_lock(&cap.lock);
	for (unsigned i = 0; i < n;) {
		unsigned k = LR_MIN(n - i, (unsigned)CAP_BATCH), whole = k;
		uint64_t done = 0;
		int err;

		if (cap.failed) {
			cap.lost += n - i;
			break;
		}
		for (unsigned r = 0; r < k; r++) {
			const struct lr_mbuf *m = pkts[i + r];
			uint32_t caplen =
			    LR_MIN((uint32_t)m->data_len, CAP_SNAPLEN);

			hdr[r][0] = (uint32_t)tv.tv_sec;
			hdr[r][1] = (uint32_t)tv.tv_usec;
			hdr[r][2] = caplen;
			hdr[r][3] = m->pkt_len;
			iov[2 * r].iov_base = hdr[r];
			iov[2 * r].iov_len = sizeof(hdr[r]);
			iov[2 * r + 1].iov_base = lr_pktmbuf_mtod(m, void *);
			iov[2 * r + 1].iov_len = caplen;
			end[r] = (r ? end[r - 1] : 0) + sizeof(hdr[r]) + caplen;
		}
		err = cap_pwritev(iov, (int)(2 * k), cap.size, &done);
		if (err < 0) {
			whole = 0;
			while (whole < k && end[whole] <= done)
				whole++;
			cap_failed(err, whole ? end[whole - 1] : 0);
			cap.lost += n - i - whole;
			break;
		}
		cap.size += end[k - 1];
		i += k;
	}
	pthread_mutex_unlock(&cap.lock);
	return cap.failed ? -1 : 0;
}

int
pg_capture_close(void)
{
	int ret = cap.failed ? -1 : 0;

	if (cap.fd < 0)
		return ret;
	if (cap.failed)
		fprintf(stderr,
			"lr-pktgen: --capture '%s': %llu received frames not "
			"written\n",
			cap.path, (unsigned long long)cap.lost);
	if (fsync(cap.fd) < 0 && errno != EINVAL) {
		fprintf(stderr, "lr-pktgen: --capture '%s': cannot sync: %s\n",
			cap.path, strerror(errno));
		ret = -1;
	}
	if (close(cap.fd) < 0) {
		fprintf(stderr, "lr-pktgen: --capture '%s': cannot close: %s\n",
			cap.path, strerror(errno));
		ret = -1;
	}
	cap.fd = -1;
	return ret;
}
