/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_pcap - ports over pcap files and live interfaces, through libpcap.
 *
 *   net_pcap0,rx_pcap=in.pcap,tx_pcap=out.pcap
 *   net_pcap0,rx_iface=IF,tx_iface=IF     net_pcap0,iface=IF (both)
 *   net_pcap0,rx_pcap=in.pcap,infinite_rx=1   (replay the file forever)
 *   net_pcap0,tx_pcap=out.pcap,tx_pcap_mode=0640  (file mode, default 0600)
 *
 * Each rx_pcap / rx_iface value is one receive queue and each tx_pcap /
 * tx_iface value one transmit queue, in the order given. A port without a
 * receive source returns nothing; a port without a transmit sink drops what
 * it is given and counts it (opackets and the xstat tx_dropped_no_sink).
 *
 * Reading: microsecond and nanosecond pcap files, Ethernet link type only.
 * Timestamps go to mbuf->timestamp in nanoseconds (LR_MBUF_F_RX_TIMESTAMP).
 * Files are opened again at every start, so a restarted port reads from
 * the beginning. A record cut short at the end of a file (a capture that
 * was killed) is reported once as a WARNING naming its record number and
 * counted in the xstat rx_truncated_records; the packets before it are
 * delivered, then the queue reports end of file (returns 0). A bad record
 * inside the file (the file goes on after it, e.g. an impossible caplen)
 * is corruption: an ERR naming the record, one ierror, and end of file
 * (with infinite_rx=1 the probe fails). A record shorter than an Ethernet
 * header (14 bytes) is a runt: dropped, counted in ierrors and in the xstat
 * rx_runts. With infinite_rx=1 the file is read once at probe into one
 * private buffer (runts dropped and counted then) and every receive copies
 * the next packets from it into fresh mbufs, wrapping around at the end.
 *
 * Writing: nanosecond pcap (tcpdump and tshark read it), snap length
 * LR_PCAP_SNAPLEN, written by the driver itself (not libpcap's dumper, which
 * hides write errors). The file is created at probe (so a bad path fails
 * there) with mode tx_pcap_mode (octal, default 0600; the umask applies, and
 * an existing file loses any permission beyond it). Timestamps come from the
 * mbuf when it carries one (a packet read from a pcap file keeps its time),
 * else from the TSC at the burst. Each burst is written with pwritev() (a
 * record header and the frame's data per record; chained mbufs are copied
 * into a bounce buffer first), so nothing waits in a user-space buffer and
 * a frame counts as sent (opackets) only once its whole record is in the
 * file. A failed write (a full disk: ENOSPC) is logged once as an ERR
 * naming the file and the error; the file is cut back to its last whole
 * record, that frame and every later one on the queue is dropped and
 * counted in oerrors and in the xstat tx_write_errors, and dev_stop and
 * dev_close return -EIO. Stop fsyncs the files, close fsyncs and closes
 * them, checking both.
 *
 * Offloads: neither a file nor pcap_inject() completes a checksum, so
 * the transmit paths do what a frame's offload flags ask in software
 * (lr_net_cksum_offload(): partial checksums from a virtio-net peer, and
 * checksums from the header lengths); on an interface a TCP super-frame is
 * cut into tso_segsz frames (lr_net_tso_segment()), in a file it is one
 * record with complete checksums. A frame whose headers do not allow it
 * goes out as it is (xstat tx_offload_errors). This is done in the driver,
 * not in lr_eth_tx_burst(), because only the driver knows which egress
 * cannot offload and how a frame that becomes several is accounted; ports
 * that hand offloads on (af_packet, ring) pay nothing.
 *
 * Threading: one thread polls one queue (libpcap handles are per queue).
 * Cost: libpcap per packet (one indirect call in pcap_next_ex/pcap_dump)
 * plus one copy; the infinite replay costs a bulk mbuf alloc per burst and
 * one memcpy per packet.
 *
 * Errors name the port, the key and the file or interface:
 *   net_pcap0: rx_pcap: cannot open 'x.pcap': No such file or directory
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <pcap.h>

#include "lr_cycles.h"
#include "lr_errno.h"
#include "lr_ethdev_driver.h"
#include "lr_log.h"
#include "lr_mbuf.h"
#include "lr_net.h"

/** Largest frame read or written. */
#define LR_PCAP_SNAPLEN 262144
/** Largest file infinite_rx loads. */
#define PCAP_REPLAY_MAX_BYTES (1ULL << 30)
/** Records per pwritev() (two iovecs each, within IOV_MAX). */
#define PCAP_TX_BATCH 256
/* Most frames one transmitted super-frame is cut into (iface=). */
#define PCAP_TSO_SEGS_MAX 128
/** Mode of a created capture file unless tx_pcap_mode says otherwise. */
#define PCAP_TX_MODE_DEFAULT 0600
/** Magic of a nanosecond pcap file. */
#define PCAP_MAGIC_NS 0xa1b23c4du
#define NS_PER_S      1000000000ULL

/* A pcap record header as written (host byte order, as the file header). */
struct pcap_rec_hdr {
	uint32_t ts_sec;
	uint32_t ts_nsec;
	uint32_t caplen;
	uint32_t len;
};

enum pcap_kind { KIND_NONE = 0, KIND_FILE, KIND_IFACE };

/* A file loaded for infinite_rx: packet i is len[i] bytes at blob+off[i]. */
struct pcap_replay {
	uint8_t *blob;
	uint64_t *off;
	uint32_t *len;
	uint64_t n;
};

struct pcap_port;

struct pcap_rxq {
	/* Hot: read by every burst. */
	pcap_t *pcap;
	struct lr_mempool *mp;
	const struct pcap_replay *replay;
	uint64_t next;	  /* next replay packet */
	uint32_t ts_mult; /* 1 for ns timestamps, 1000 for us */
	uint16_t port_id;
	uint8_t eof;
	/* Counters, written by the polling thread only, never reset. */
	struct lr_eth_queue_counters c; /* errors: interface read errors */
	uint64_t truncated;
	uint64_t runts;	  /* records shorter than an Ethernet header */
	uint64_t records; /* records read since start */
	struct pcap_port *port;
	uint16_t qid;
} __lr_cache_aligned;

struct pcap_txq {
	struct pcap_txfile *file; /* file sink (owned by the port) */
	pcap_t *pcap;		  /* interface sink, opened at start */
	uint8_t *bounce;	  /* LR_PCAP_SNAPLEN bytes for chains */
	/* TSC to wall clock: ns = ns0 + ((tsc - tsc0) * mult >> 32) */
	uint64_t tsc0;
	uint64_t ns0;
	uint64_t mult;
	/* Counters. */
	struct lr_eth_queue_counters c;
	uint64_t no_sink;
	uint64_t write_errors;	 /* frames lost to a failed write */
	uint64_t offload_errors; /* offload asked of a bad frame */
	struct pcap_port *port;
	uint16_t qid;
	/* The batch being built: nrec records, iov[2 * i] the header of
	 * record i and iov[2 * i + 1] its data; end[i] its end offset from
	 * the batch's start. */
	unsigned nrec;
	uint8_t bounce_used;
	struct pcap_rec_hdr hdr[PCAP_TX_BATCH];
	struct iovec iov[2 * PCAP_TX_BATCH];
	uint64_t end[PCAP_TX_BATCH];
} __lr_cache_aligned;

/* A file written by a tx queue, owned by the port (it outlives stop). */
struct pcap_txfile {
	int fd;		/* -1 when not open */
	uint64_t size;	/* bytes of whole records (and the header) */
	uint8_t failed; /* a write failed: nothing more is written */
};

struct pcap_port {
	struct pcap_rxq rxq[LR_MAX_QUEUES_PER_PORT];
	struct pcap_txq txq[LR_MAX_QUEUES_PER_PORT];
	const char *name; /* the port's name (dev->data->name) */
	enum pcap_kind rx_kind;
	enum pcap_kind tx_kind;
	const char *rx_key; /* devargs key the sources came from */
	const char *tx_key;
	unsigned nb_rx; /* receive sources */
	unsigned nb_tx; /* transmit sinks */
	int infinite;
	char *rx_src[LR_MAX_QUEUES_PER_PORT];
	char *tx_dst[LR_MAX_QUEUES_PER_PORT];
	unsigned tx_mode; /* mode of created tx files */
	struct pcap_txfile txf[LR_MAX_QUEUES_PER_PORT];
	struct pcap_replay replay[LR_MAX_QUEUES_PER_PORT];
};

static const char *const pcap_keys[] = {
    "rx_pcap", "tx_pcap",     "rx_iface",     "tx_iface",
    "iface",   "infinite_rx", "tx_pcap_mode", NULL,
};

/* ---------------------------------------------------------------------
 * Opening files and interfaces (slow path)
 */

/* Open a pcap file for reading with nanosecond timestamps; NULL with a
 * logged error and lr_errno set. */
static pcap_t *
rx_file_open(const char *port, const char *key, const char *path)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	pcap_t *p;
	FILE *f;
	int lt;

	f = fopen(path, "rb");
	if (f == NULL) {
		lr_errno = errno;
		LR_LOG(ERR, PMD, "%s: %s: cannot open '%s': %s\n", port, key,
		       path, strerror(errno));
		return NULL;
	}
	errbuf[0] = '\0';
	p = pcap_fopen_offline_with_tstamp_precision(
	    f, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (p == NULL) {
		fclose(f);
		lr_errno = EINVAL;
		LR_LOG(ERR, PMD, "%s: %s: cannot read '%s': %s\n", port, key,
		       path, errbuf[0] ? errbuf : "not a pcap file");
		return NULL;
	}
	lt = pcap_datalink(p);
	if (lt != DLT_EN10MB) {
		const char *ltname = pcap_datalink_val_to_name(lt);

		LR_LOG(ERR, PMD,
		       "%s: %s: '%s' has link type %s (%d); only EN10MB "
		       "(Ethernet) is supported\n",
		       port, key, path, ltname ? ltname : "unknown", lt);
		pcap_close(p);
		lr_errno = EPROTONOSUPPORT;
		return NULL;
	}
	return p;
}

/* A BPF program that accepts nothing: a transmit-only handle then makes
 * the kernel queue no received packets for it. */
static int
set_drop_all_filter(pcap_t *p)
{
	static struct bpf_insn ret0 = {BPF_RET | BPF_K, 0, 0, 0};
	struct bpf_program prog = {1, &ret0};

	return pcap_setfilter(p, &prog);
}

/* Open a live interface for receive (for_rx) or transmit; NULL with a
 * logged error and lr_errno set. */
static pcap_t *
iface_open(const char *port, const char *key, const char *ifname, int for_rx)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	pcap_t *p;
	int ret;

	if (strlen(ifname) >= IFNAMSIZ || if_nametoindex(ifname) == 0) {
		lr_errno = ENODEV;
		LR_LOG(ERR, PMD, "%s: %s: no interface '%s' (%s)\n", port, key,
		       ifname, strerror(ENODEV));
		return NULL;
	}
	errbuf[0] = '\0';
	p = pcap_create(ifname, errbuf);
	if (p == NULL) {
		lr_errno = ENODEV;
		LR_LOG(ERR, PMD, "%s: %s: cannot open interface '%s': %s\n",
		       port, key, ifname, errbuf);
		return NULL;
	}
	pcap_set_snaplen(p, LR_PCAP_SNAPLEN);
	pcap_set_promisc(p, 0);
	pcap_set_immediate_mode(p, 1);
	pcap_set_timeout(p, 1);
	pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO);
	ret = pcap_activate(p);
	if (ret < 0) {
		lr_errno = ret == PCAP_ERROR_PERM_DENIED ? EPERM : ENODEV;
		LR_LOG(ERR, PMD,
		       "%s: %s: cannot open interface '%s': %s (%s)\n", port,
		       key, ifname, pcap_statustostr(ret), pcap_geterr(p));
		goto close_pcap;
	}
	if (ret > 0)
		LR_LOG(WARNING, PMD, "%s: %s: interface '%s': %s (%s)\n", port,
		       key, ifname, pcap_statustostr(ret), pcap_geterr(p));
	if (pcap_datalink(p) != DLT_EN10MB) {
		lr_errno = EPROTONOSUPPORT;
		LR_LOG(ERR, PMD,
		       "%s: %s: interface '%s' has link type %d; only EN10MB "
		       "(Ethernet) is supported\n",
		       port, key, ifname, pcap_datalink(p));
		goto close_pcap;
	}
	if (pcap_setnonblock(p, 1, errbuf) < 0) {
		lr_errno = EIO;
		LR_LOG(ERR, PMD,
		       "%s: %s: interface '%s': non-blocking mode: %s\n", port,
		       key, ifname, errbuf);
		goto close_pcap;
	}
	if (for_rx) {
		/* What we transmit ourselves is not received again. */
		if (pcap_setdirection(p, PCAP_D_IN) < 0)
			LR_LOG(WARNING, PMD,
			       "%s: %s: interface '%s': cannot filter outgoing "
			       "packets: %s\n",
			       port, key, ifname, pcap_geterr(p));
	} else if (set_drop_all_filter(p) < 0) {
		LR_LOG(WARNING, PMD, "%s: %s: interface '%s': filter: %s\n",
		       port, key, ifname, pcap_geterr(p));
	}
	return p;

close_pcap:
	pcap_close(p);
	return NULL;
}

/* Write the iovcnt buffers of iov at file offset off in full (retrying
 * short writes); 0, or -errno with *done set to the bytes written. */
static int
write_full(int fd, const struct iovec *iov, int iovcnt, uint64_t off,
	   uint64_t *done)
{
	struct iovec v[2 * PCAP_TX_BATCH];
	int n = iovcnt;

	if (iovcnt > (int)LR_DIM(v))
		return -EINVAL;
	memcpy(v, iov, sizeof(*iov) * (size_t)iovcnt);
	*done = 0;
	struct iovec *cur = v;

	while (n > 0) {
		ssize_t w = pwritev(fd, cur, n, (off_t)(off + *done));

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (w == 0)
			return -EIO;
		*done += (uint64_t)w;
		while (n > 0 && (size_t)w >= cur->iov_len) {
			w -= (ssize_t)cur->iov_len;
			cur++;
			n--;
		}
		if (n > 0) {
			cur->iov_base = (uint8_t *)cur->iov_base + w;
			cur->iov_len -= (size_t)w;
		}
	}
	return 0;
}

/* A write to tx file i failed with err after the first `whole` bytes of
 * whole records: cut the file back to them, log once, stop writing. */
static __lr_cold void
tx_file_failed(struct pcap_port *pp, unsigned i, int err, uint64_t whole)
{
	struct pcap_txfile *tf = &pp->txf[i];

	tf->size += whole;
	if (ftruncate(tf->fd, (off_t)tf->size) < 0)
		LR_LOG(ERR, PMD,
		       "%s: tx_pcap: cannot cut '%s' back to its last whole "
		       "record (%llu bytes): %s\n",
		       pp->name, pp->tx_dst[i], (unsigned long long)tf->size,
		       strerror(errno));
	if (!tf->failed)
		LR_LOG(ERR, PMD,
		       "%s: tx_pcap: cannot write '%s': %s; the file ends "
		       "after its last whole record (%llu bytes), later "
		       "frames are dropped and counted in oerrors\n",
		       pp->name, pp->tx_dst[i], strerror(-err),
		       (unsigned long long)tf->size);
	tf->failed = 1;
}

/* Create output file i and write the file header; 0 or -errno after
 * logging. */
static int
tx_file_open(struct pcap_port *pp, unsigned i)
{
	struct pcap_txfile *tf = &pp->txf[i];
	const char *path = pp->tx_dst[i];
	struct {
		uint32_t magic;
		uint16_t major, minor;
		int32_t thiszone;
		uint32_t sigfigs, snaplen, linktype;
	} fh = {PCAP_MAGIC_NS, 2, 4, 0, 0, LR_PCAP_SNAPLEN, DLT_EN10MB};
	struct iovec iov;
	struct stat st;
	uint64_t done;
	int err;

	tf->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		      (mode_t)pp->tx_mode);
	if (tf->fd < 0) {
		err = errno;
		LR_LOG(ERR, PMD,
		       "%s: tx_pcap: cannot open '%s' for writing: %s\n",
		       pp->name, path, strerror(err));
		return -err;
	}
	/* An existing file keeps its mode: take away what was not asked
	 * (a regular file only: never change a device's mode). */
	if (fstat(tf->fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (st.st_mode & 07777 & ~pp->tx_mode) &&
	    fchmod(tf->fd, st.st_mode & 07777 & pp->tx_mode) < 0)
		LR_LOG(WARNING, PMD,
		       "%s: tx_pcap: '%s' has mode %04o, cannot set %04o: "
		       "%s\n",
		       pp->name, path, (unsigned)(st.st_mode & 07777),
		       (unsigned)(st.st_mode & 07777 & pp->tx_mode),
		       strerror(errno));
	iov.iov_base = &fh;
	iov.iov_len = sizeof(fh);
	err = write_full(tf->fd, &iov, 1, 0, &done);
	if (err < 0) {
		LR_LOG(ERR, PMD, "%s: tx_pcap: cannot write '%s': %s\n",
		       pp->name, path, strerror(-err));
		close(tf->fd);
		tf->fd = -1;
		return err;
	}
	tf->size = sizeof(fh);
	return 0;
}

/* fsync tx file i (and close it when closing); 0 or -EIO after logging.
 * A file whose write failed earlier gives -EIO too. */
static int
tx_file_sync(struct pcap_port *pp, unsigned i, int closing)
{
	struct pcap_txfile *tf = &pp->txf[i];
	int ret = tf->failed ? -EIO : 0;

	if (tf->fd < 0)
		return ret;
	if (fsync(tf->fd) < 0 && errno != EINVAL) {
		LR_LOG(ERR, PMD, "%s: tx_pcap: cannot sync '%s': %s\n",
		       pp->name, pp->tx_dst[i], strerror(errno));
		ret = -EIO;
	}
	if (closing) {
		if (close(tf->fd) < 0) {
			LR_LOG(ERR, PMD, "%s: tx_pcap: cannot close '%s': %s\n",
			       pp->name, pp->tx_dst[i], strerror(errno));
			ret = -EIO;
		}
		tf->fd = -1;
	}
	return ret;
}

/* Report a record libpcap could not read: cut short by the end of the
 * file (a killed capture: a WARNING, counted in *truncated; returns 0), or
 * bad with more of the file after it (corruption: an ERR; returns -1). The
 * queue then behaves as at end of file. */
static __lr_cold int
rx_bad_record(struct pcap_port *pp, const char *key, const char *path,
	      pcap_t *p, uint64_t record, uint64_t *truncated)
{
	FILE *f = pcap_file(p);

	if (f != NULL && feof(f) && !ferror(f)) {
		LR_LOG(WARNING, PMD,
		       "%s: %s: '%s': record %llu is truncated (%s); the "
		       "%llu records before it are read\n",
		       pp->name, key, path, (unsigned long long)record,
		       pcap_geterr(p), (unsigned long long)(record - 1));
		(*truncated)++;
		return 0;
	}
	LR_LOG(ERR, PMD,
	       "%s: %s: '%s': record %llu is corrupt (%s); the file is not "
	       "read beyond it (%llu records read)\n",
	       pp->name, key, path, (unsigned long long)record, pcap_geterr(p),
	       (unsigned long long)(record - 1));
	return -1;
}

/* Grow the replay index of r (offsets and lengths) to hold twice as many
 * packets; 0 or -ENOMEM. */
static int
replay_grow_index(struct pcap_replay *r, uint64_t *cap)
{
	uint64_t ncap = *cap ? *cap * 2 : 1024;
	uint64_t *noff = realloc(r->off, ncap * sizeof(*noff));
	uint32_t *nlen;

	if (noff == NULL)
		return -ENOMEM;
	r->off = noff;
	nlen = realloc(r->len, ncap * sizeof(*nlen));
	if (nlen == NULL)
		return -ENOMEM;
	r->len = nlen;
	*cap = ncap;
	return 0;
}

/* Grow the replay blob of queue i to hold need bytes; 0, -ENOMEM, or
 * -EFBIG after logging (past PCAP_REPLAY_MAX_BYTES). */
static int
replay_grow_blob(struct pcap_port *pp, unsigned i, uint64_t need,
		 uint64_t *bcap)
{
	struct pcap_replay *r = &pp->replay[i];
	uint64_t nb = *bcap ? *bcap * 2 : 1 << 20;
	uint8_t *nblob;

	while (nb < need)
		nb *= 2;
	if (nb > PCAP_REPLAY_MAX_BYTES) {
		LR_LOG(ERR, PMD,
		       "%s: rx_pcap: '%s' is larger than %llu bytes of "
		       "packets, too large for infinite_rx\n",
		       pp->name, pp->rx_src[i],
		       (unsigned long long)PCAP_REPLAY_MAX_BYTES);
		return -EFBIG;
	}
	nblob = realloc(r->blob, nb);
	if (nblob == NULL)
		return -ENOMEM;
	r->blob = nblob;
	*bcap = nb;
	return 0;
}

/* Append one record to the replay of queue i (runts are counted, not
 * kept); 0, -ENOMEM or -EFBIG (logged). */
static int
replay_append(struct pcap_port *pp, unsigned i, const struct pcap_pkthdr *h,
	      const u_char *data, uint64_t *cap, uint64_t *bytes,
	      uint64_t *bcap)
{
	struct pcap_replay *r = &pp->replay[i];
	int ret;

	if (h->caplen < LR_ETHER_HDR_LEN) {
		pp->rxq[i].runts++;
		lr_counter_add(&pp->rxq[i].c.errors, 1);
		return 0;
	}
	if (r->n == *cap) {
		ret = replay_grow_index(r, cap);
		if (ret < 0)
			return ret;
	}
	/* Allocated at the first record, even an empty one: no
	 * arithmetic or memcpy on a NULL blob. */
	if (r->blob == NULL || *bytes + h->caplen > *bcap) {
		ret = replay_grow_blob(pp, i, *bytes + h->caplen, bcap);
		if (ret < 0)
			return ret;
	}
	memcpy(r->blob + *bytes, data, h->caplen);
	r->off[r->n] = *bytes;
	r->len[r->n] = h->caplen;
	*bytes += h->caplen;
	r->n++;
	return 0;
}

/* Load a whole file for infinite_rx; 0 or -errno after logging. */
static int
replay_load(struct pcap_port *pp, unsigned i)
{
	struct pcap_replay *r = &pp->replay[i];
	const char *path = pp->rx_src[i];
	uint64_t cap = 0, bytes = 0, bcap = 0, records = 0;
	struct pcap_pkthdr *h;
	const u_char *data;
	pcap_t *p;
	int ret;

	p = rx_file_open(pp->name, "rx_pcap", path);
	if (p == NULL)
		return -lr_errno;
	for (;;) {
		ret = pcap_next_ex(p, &h, &data);
		if (ret != 1)
			break;
		records++;
		ret = replay_append(pp, i, h, data, &cap, &bytes, &bcap);
		if (ret == -ENOMEM)
			goto no_memory;
		if (ret < 0)
			goto close_pcap;
	}
	if (ret == PCAP_ERROR &&
	    rx_bad_record(pp, "rx_pcap", path, p, records + 1,
			  &pp->rxq[i].truncated) < 0) {
		ret = -EINVAL;
		goto close_pcap;
	}
	pcap_close(p);
	if (r->n == 0) {
		LR_LOG(ERR, PMD,
		       "%s: rx_pcap: '%s' holds no packet to replay "
		       "(infinite_rx=1)\n",
		       pp->name, path);
		return -EINVAL;
	}
	LR_LOG(
	    INFO, PMD,
	    "%s: rx_pcap: '%s': %llu packets (%llu bytes) loaded for replay\n",
	    pp->name, path, (unsigned long long)r->n,
	    (unsigned long long)bytes);
	return 0;

no_memory:
	LR_LOG(ERR, PMD, "%s: rx_pcap: '%s': no memory to load %llu packets\n",
	       pp->name, path, (unsigned long long)r->n);
	ret = -ENOMEM;
close_pcap:
	pcap_close(p);
	return ret;
}

/* ---------------------------------------------------------------------
 * Receive
 */

/* Put one packet of len bytes into m; 0 or -1 (no mbuf for a chain). */
static __lr_always_inline int
fill_mbuf(struct lr_mempool *mp, struct lr_mbuf *m, const uint8_t *data,
	  uint32_t len)
{
	if (lr_likely(len <= lr_pktmbuf_tailroom(m))) {
		memcpy(lr_pktmbuf_mtod(m, uint8_t *), data, len);
		m->data_len = (uint16_t)len;
		m->pkt_len = len;
		return 0;
	}
	/* Larger than one mbuf: a chain (m is empty and alone). */
	return lr_pktmbuf_append_copy(m, mp, data, len) == 0 ? 0 : -1;
}

/* pcap_next_ex returned r != 1 on a queue: end of file, truncated record
 * or read error. */
static __lr_cold void
rx_end(struct pcap_rxq *rxq, int r)
{
	struct pcap_port *pp = rxq->port;
	const char *src = pp->rx_src[rxq->qid];

	if (r == PCAP_ERROR_BREAK) {
		rxq->eof = 1;
		return;
	}
	if (pp->rx_kind == KIND_FILE) {
		if (rx_bad_record(pp, pp->rx_key, src, rxq->pcap,
				  rxq->records + 1, &rxq->truncated) < 0)
			lr_counter_add(&rxq->c.errors, 1);
	} else {
		LR_LOG(ERR, PMD, "%s: %s: interface '%s': read error: %s\n",
		       pp->name, pp->rx_key, src, pcap_geterr(rxq->pcap));
		lr_counter_add(&rxq->c.errors, 1);
	}
	rxq->eof = 1;
}

/* Receive from a file or an interface: one mbuf and one pcap_next_ex per
 * packet. The mbuf is taken first so a packet is never read and lost. */
static uint16_t
rx_pcap_burst(void *q, struct lr_mbuf **pkts, uint16_t nb_pkts)
{
	struct pcap_rxq *rxq = q;
	uint64_t bytes = 0;
	uint16_t n = 0;

	if (lr_unlikely(rxq->eof))
		return 0;
	while (n < nb_pkts) {
		struct pcap_pkthdr *h;
		const u_char *data;
		struct lr_mbuf *m;
		int r;

		m = lr_pktmbuf_alloc(rxq->mp);
		if (lr_unlikely(m == NULL)) {
			lr_counter_add(&rxq->c.nombuf, 1);
			break;
		}
		r = pcap_next_ex(rxq->pcap, &h, &data);
		if (r != 1) {
			lr_pktmbuf_free(m);
			if (r != 0)
				rx_end(rxq, r);
			break;
		}
		rxq->records++;
		if (lr_unlikely(h->caplen < LR_ETHER_HDR_LEN)) {
			/* A runt: no Ethernet header to forward. */
			lr_pktmbuf_free(m);
			rxq->runts++;
			lr_counter_add(&rxq->c.errors, 1);
			continue;
		}
		if (lr_unlikely(fill_mbuf(rxq->mp, m, data, h->caplen) != 0)) {
			lr_pktmbuf_free(m);
			lr_counter_add(&rxq->c.nombuf, 1);
			continue;
		}
		m->port = rxq->port_id;
		m->timestamp = (uint64_t)h->ts.tv_sec * NS_PER_S +
			       (uint64_t)h->ts.tv_usec * rxq->ts_mult;
		m->ol_flags |= LR_MBUF_F_RX_TIMESTAMP;
		bytes += h->caplen;
		pkts[n++] = m;
	}
	lr_counter_add(&rxq->c.packets, n);
	lr_counter_add(&rxq->c.bytes, bytes);
	return n;
}

/* Replay a loaded file: one bulk alloc per burst, one copy per packet. */
static uint16_t
rx_replay_burst(void *q, struct lr_mbuf **pkts, uint16_t nb_pkts)
{
	struct pcap_rxq *rxq = q;
	const struct pcap_replay *r = rxq->replay;
	uint64_t next = rxq->next, bytes = 0;
	uint16_t n = 0;

	if (lr_unlikely(lr_pktmbuf_alloc_bulk(rxq->mp, pkts, nb_pkts) != 0)) {
		lr_counter_add(&rxq->c.nombuf, 1);
		return 0;
	}
	for (uint16_t i = 0; i < nb_pkts; i++) {
		struct lr_mbuf *m = pkts[i];
		uint32_t len = r->len[next];

		if (lr_unlikely(fill_mbuf(rxq->mp, m, r->blob + r->off[next],
					  len) != 0)) {
			lr_pktmbuf_free(m);
			lr_counter_add(&rxq->c.nombuf, 1);
		} else {
			m->port = rxq->port_id;
			bytes += len;
			pkts[n++] = m;
		}
		if (++next == r->n)
			next = 0;
	}
	rxq->next = next;
	lr_counter_add(&rxq->c.packets, n);
	lr_counter_add(&rxq->c.bytes, bytes);
	return n;
}

/* A port without a receive source. */
static uint16_t
rx_none_burst(void *q, struct lr_mbuf **pkts, uint16_t nb_pkts)
{
	return 0;
}

/* ---------------------------------------------------------------------
 * Transmit
 */

/* The data of m in one piece: m's own buffer, or the bounce buffer for a
 * chain; NULL if the packet is larger than the bounce buffer. */
static __lr_always_inline const uint8_t *
tx_linear(uint8_t *bounce, const struct lr_mbuf *m)
{
	if (lr_unlikely(m->pkt_len > LR_PCAP_SNAPLEN))
		return NULL;
	return lr_pktmbuf_read(m, 0, m->pkt_len, bounce);
}

/* Write the batch of records built in txq to its file and count them: the
 * whole records written as sent, the rest as errors. */
static void
tx_batch_write(struct pcap_txq *txq)
{
	struct pcap_port *pp = txq->port;
	struct pcap_txfile *tf = txq->file;
	unsigned n = txq->nrec, whole = n;
	uint64_t done = 0, bytes = 0;
	int err = 0;

	if (n == 0)
		return;
	if (lr_unlikely(tf->failed))
		whole = 0;
	else
		err =
		    write_full(tf->fd, txq->iov, (int)(2 * n), tf->size, &done);
	if (lr_unlikely(err != 0)) {
		whole = 0;
		while (whole < n && txq->end[whole] <= done)
			whole++;
		tx_file_failed(pp, txq->qid, err,
			       whole ? txq->end[whole - 1] : 0);
	} else if (whole) {
		tf->size += txq->end[n - 1];
	}
	for (unsigned i = 0; i < whole; i++)
		bytes += txq->hdr[i].len;
	lr_counter_add(&txq->c.packets, whole);
	lr_counter_add(&txq->c.bytes, bytes);
	lr_counter_add(&txq->c.errors, n - whole);
	txq->write_errors += n - whole;
	txq->nrec = 0;
	txq->bounce_used = 0;
}

/* The checksums m's offload flags ask for, done here: neither a file nor
 * pcap_inject() completes them. A frame they cannot be done for (bad
 * headers) goes out as it is, counted in the xstat tx_offload_errors. */
static __lr_cold void
tx_cksum_sw(struct pcap_txq *txq, struct lr_mbuf *m)
{
	if (lr_net_cksum_offload(m) != 0)
		txq->offload_errors++;
}

/* Flags that make the transmit paths call tx_cksum_sw(). */
#define TX_CKSUM_FLAGS (LR_MBUF_F_L4_CKSUM_MASK | LR_MBUF_F_TX_IP_CKSUM)

/* Write to a file: the records of a burst in one pwritev() (more for more
 * than PCAP_TX_BATCH packets or several chains); a packet counts as sent
 * once its whole record is in the file. */
static uint16_t
tx_dump_burst(void *q, struct lr_mbuf **pkts, uint16_t nb_pkts)
{
	struct pcap_txq *txq = q;
	uint64_t tsc = lr_get_tsc_cycles(), now_ns;

	now_ns =
	    txq->ns0 +
	    (uint64_t)(((unsigned __int128)(tsc - txq->tsc0) * txq->mult) >>
		       32);
	for (uint16_t i = 0; i < nb_pkts; i++) {
		const struct lr_mbuf *m = pkts[i];
		struct pcap_rec_hdr *h;
		const uint8_t *data;
		unsigned r;
		uint64_t ts;

		if (lr_unlikely(m->ol_flags & TX_CKSUM_FLAGS))
			tx_cksum_sw(txq, pkts[i]);
		/* The bounce buffer holds one chain per batch. */
		if (txq->nrec == PCAP_TX_BATCH ||
		    (m->nb_segs > 1 && txq->bounce_used))
			tx_batch_write(txq);
		data = tx_linear(txq->bounce, m);
		if (lr_unlikely(data == NULL)) {
			lr_counter_add(&txq->c.errors, 1);
			continue;
		}
		txq->bounce_used |= m->nb_segs > 1;
		ts = (m->ol_flags & LR_MBUF_F_RX_TIMESTAMP) ? m->timestamp
							    : now_ns;
		r = txq->nrec++;
		h = &txq->hdr[r];
		h->ts_sec = (uint32_t)(ts / NS_PER_S);
		h->ts_nsec = (uint32_t)(ts % NS_PER_S);
		h->caplen = h->len = m->pkt_len;
		txq->iov[2 * r].iov_base = h;
		txq->iov[2 * r].iov_len = sizeof(*h);
		txq->iov[2 * r + 1].iov_base = (void *)(uintptr_t)data;
		txq->iov[2 * r + 1].iov_len = m->pkt_len;
		txq->end[r] =
		    (r ? txq->end[r - 1] : 0) + sizeof(*h) + m->pkt_len;
	}
	tx_batch_write(txq);
	lr_pktmbuf_free_bulk(pkts, nb_pkts);
	return nb_pkts;
}

/* Inject one frame: 1 sent, 0 dropped (counted), -1 the socket is full. */
static int
tx_inject(struct pcap_txq *txq, const struct lr_mbuf *m)
{
	const uint8_t *data = tx_linear(txq->bounce, m);

	if (lr_unlikely(data == NULL)) {
		lr_counter_add(&txq->c.errors, 1);
		return 0;
	}
	if (lr_unlikely(pcap_inject(txq->pcap, data, m->pkt_len) < 0)) {
		if (errno == EAGAIN || errno == ENOBUFS)
			return -1;
		lr_counter_add(&txq->c.errors, 1);
		return 0;
	}
	lr_counter_add(&txq->c.packets, 1);
	lr_counter_add(&txq->c.bytes, m->pkt_len);
	return 1;
}

/* A TCP super-frame onto the wire: cut here into frames of tso_segsz
 * payload (what the interface would get from the kernel's GSO); a frame
 * the socket has no room for is counted in oerrors. */
static __lr_cold void
tx_inject_tso(struct pcap_txq *txq, struct lr_mbuf *m)
{
	struct lr_mbuf *segs[PCAP_TSO_SEGS_MAX];
	int n = lr_net_tso_segment(m, m->pool, segs, PCAP_TSO_SEGS_MAX);

	if (n < 0) {
		txq->offload_errors++;
		lr_counter_add(&txq->c.errors, 1);
		return;
	}
	for (int k = 0; k < n; k++) {
		if (tx_inject(txq, segs[k]) < 0)
			lr_counter_add(&txq->c.errors, 1);
		lr_pktmbuf_free(segs[k]);
	}
}

/* Send on an interface: one pcap_inject (send()) per packet, checksums
 * and segmentation asked by offload flags done here first. A full socket
 * buffer ends the burst; the caller keeps the rest. */
static uint16_t
tx_iface_burst(void *q, struct lr_mbuf **pkts, uint16_t nb_pkts)
{
	struct pcap_txq *txq = q;
	uint16_t i;

	for (i = 0; i < nb_pkts; i++) {
		struct lr_mbuf *m = pkts[i];

		if (lr_unlikely(m->ol_flags & LR_MBUF_F_TCP_SEG_MASK)) {
			tx_inject_tso(txq, m);
		} else {
			if (lr_unlikely(m->ol_flags & TX_CKSUM_FLAGS))
				tx_cksum_sw(txq, m);
			if (tx_inject(txq, m) < 0)
				break;
		}
		lr_pktmbuf_free(m);
	}
	return i;
}

/* A port without a transmit sink: drop and count. */
static uint16_t
tx_drop_burst(void *q, struct lr_mbuf **pkts, uint16_t nb_pkts)
{
	struct pcap_txq *txq = q;
	uint64_t bytes = 0;

	for (uint16_t i = 0; i < nb_pkts; i++)
		bytes += pkts[i]->pkt_len;
	lr_pktmbuf_free_bulk(pkts, nb_pkts);
	lr_counter_add(&txq->c.packets, nb_pkts);
	lr_counter_add(&txq->c.bytes, bytes);
	txq->no_sink += nb_pkts;
	return nb_pkts;
}

/* ---------------------------------------------------------------------
 * Control path
 */

static int
pcap_infos_get(struct lr_eth_dev *dev, struct lr_eth_dev_info *info)
{
	struct pcap_port *pp = dev->data->dev_private;

	info->max_rx_queues = (uint16_t)LR_MAX(pp->nb_rx, 1u);
	info->max_tx_queues = (uint16_t)LR_MAX(pp->nb_tx, 1u);
	info->max_mtu = UINT16_MAX - LR_ETHER_HDR_LEN - 4;
	/* Done in software on transmit: a file records a super-frame whole
	 * with its checksums complete, an interface gets it segmented. */
	info->tx_offload_capa = LR_ETH_TX_OFFLOAD_ALL;
	return 0;
}

static int
pcap_rx_queue_setup(struct lr_eth_dev *dev, uint16_t q, uint16_t nb_desc,
		    int socket_id, const struct lr_eth_rxconf *conf,
		    struct lr_mempool *mp)
{
	struct pcap_port *pp = dev->data->dev_private;
	struct pcap_rxq *rxq = &pp->rxq[q];

	rxq->mp = mp;
	rxq->port_id = dev->data->port_id;
	dev->data->rx_queues[q] = rxq;
	return 0;
}

static int
pcap_tx_queue_setup(struct lr_eth_dev *dev, uint16_t q, uint16_t nb_desc,
		    int socket_id, const struct lr_eth_txconf *conf)
{
	struct pcap_port *pp = dev->data->dev_private;
	struct pcap_txq *txq = &pp->txq[q];

	if (txq->bounce == NULL) {
		txq->bounce = malloc(LR_PCAP_SNAPLEN);
		if (txq->bounce == NULL) {
			LR_LOG(ERR, PMD,
			       "%s: tx queue %u: no memory for a %u-byte "
			       "bounce buffer\n",
			       pp->name, q, LR_PCAP_SNAPLEN);
			return -ENOMEM;
		}
	}
	dev->data->tx_queues[q] = txq;
	return 0;
}

/* Close what start opened for the queues (rx handles, tx interfaces). */
static void
pcap_queues_close(struct pcap_port *pp)
{
	for (unsigned q = 0; q < LR_MAX_QUEUES_PER_PORT; q++) {
		struct pcap_rxq *rxq = &pp->rxq[q];
		struct pcap_txq *txq = &pp->txq[q];

		if (rxq->pcap != NULL) {
			pcap_close(rxq->pcap);
			rxq->pcap = NULL;
		}
		if (txq->pcap != NULL) {
			pcap_close(txq->pcap);
			txq->pcap = NULL;
		}
		txq->file = NULL;
	}
}

static int
pcap_dev_start(struct lr_eth_dev *dev)
{
	struct pcap_port *pp = dev->data->dev_private;
	struct lr_eth_dev_data *d = dev->data;
	uint64_t hz = lr_get_tsc_hz();
	struct timespec ts;

	for (uint16_t q = 0; q < d->nb_rx_queues; q++) {
		struct pcap_rxq *rxq = &pp->rxq[q];

		rxq->eof = 0;
		rxq->records = 0;
		rxq->next = 0;
		rxq->ts_mult = 1;
		if (pp->rx_kind == KIND_FILE && pp->infinite) {
			rxq->replay = &pp->replay[q];
		} else if (pp->rx_kind == KIND_FILE) {
			rxq->pcap =
			    rx_file_open(pp->name, pp->rx_key, pp->rx_src[q]);
		} else if (pp->rx_kind == KIND_IFACE) {
			rxq->pcap =
			    iface_open(pp->name, pp->rx_key, pp->rx_src[q], 1);
			if (rxq->pcap != NULL &&
			    pcap_get_tstamp_precision(rxq->pcap) !=
				PCAP_TSTAMP_PRECISION_NANO)
				rxq->ts_mult = 1000;
		}
		if (pp->rx_kind != KIND_NONE && !pp->infinite &&
		    rxq->pcap == NULL)
			goto close_queues;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	for (uint16_t q = 0; q < d->nb_tx_queues; q++) {
		struct pcap_txq *txq = &pp->txq[q];

		txq->tsc0 = lr_get_tsc_cycles();
		txq->ns0 =
		    (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
		txq->mult =
		    (uint64_t)(((unsigned __int128)NS_PER_S << 32) / hz);
		txq->nrec = 0;
		txq->bounce_used = 0;
		if (pp->tx_kind == KIND_FILE) {
			txq->file = &pp->txf[q];
		} else if (pp->tx_kind == KIND_IFACE) {
			txq->pcap =
			    iface_open(pp->name, pp->tx_key, pp->tx_dst[q], 0);
			if (txq->pcap == NULL)
				goto close_queues;
		}
	}
	if (pp->rx_kind == KIND_NONE)
		dev->rx_pkt_burst = rx_none_burst;
	else if (pp->infinite)
		dev->rx_pkt_burst = rx_replay_burst;
	else
		dev->rx_pkt_burst = rx_pcap_burst;
	if (pp->tx_kind == KIND_FILE)
		dev->tx_pkt_burst = tx_dump_burst;
	else if (pp->tx_kind == KIND_IFACE)
		dev->tx_pkt_burst = tx_iface_burst;
	else
		dev->tx_pkt_burst = tx_drop_burst;
	return 0;

close_queues:
	pcap_queues_close(pp);
	return -lr_errno;
}

/* Stop: close the queues' handles and fsync the files; -EIO when a file
 * could not be written (now or earlier). */
static int
pcap_dev_stop(struct lr_eth_dev *dev)
{
	struct pcap_port *pp = dev->data->dev_private;
	int ret = 0;

	pcap_queues_close(pp);
	for (unsigned i = 0; i < pp->nb_tx && pp->tx_kind == KIND_FILE; i++)
		if (tx_file_sync(pp, i, 0) < 0)
			ret = -EIO;
	return ret;
}

/* Free the port; -EIO when a tx file could not be written, synced or
 * closed. */
static int
pcap_port_free(struct pcap_port *pp)
{
	int ret = 0;

	pcap_queues_close(pp);
	for (unsigned i = 0; i < LR_MAX_QUEUES_PER_PORT; i++) {
		if (pp->txf[i].fd >= 0 && tx_file_sync(pp, i, 1) < 0)
			ret = -EIO;
		free(pp->replay[i].blob);
		free(pp->replay[i].off);
		free(pp->replay[i].len);
		free(pp->rx_src[i]);
		free(pp->tx_dst[i]);
		free(pp->txq[i].bounce);
	}
	free(pp);
	return ret;
}

static int
pcap_dev_close(struct lr_eth_dev *dev)
{
	int ret = pcap_port_free(dev->data->dev_private);

	dev->data->dev_private = NULL;
	return ret;
}

static int
pcap_stats_get(struct lr_eth_dev *dev, struct lr_eth_stats *s)
{
	struct pcap_port *pp = dev->data->dev_private;

	for (unsigned q = 0; q < LR_MAX_QUEUES_PER_PORT; q++)
		lr_eth_stats_add_queue(s, q, &pp->rxq[q].c, &pp->txq[q].c);
	return 0;
}

static const char *const pcap_xstat_names[] = {
    "rx_truncated_records", "rx_runts",		 "tx_dropped_no_sink",
    "tx_write_errors",	    "tx_offload_errors",
};

static int
pcap_xstats_get(struct lr_eth_dev *dev, uint64_t *values, unsigned n)
{
	struct pcap_port *pp = dev->data->dev_private;
	uint64_t v[LR_DIM(pcap_xstat_names)] = {0};

	for (unsigned q = 0; q < LR_MAX_QUEUES_PER_PORT; q++) {
		v[0] += pp->rxq[q].truncated;
		v[1] += pp->rxq[q].runts;
		v[2] += pp->txq[q].no_sink;
		v[3] += pp->txq[q].write_errors;
		v[4] += pp->txq[q].offload_errors;
	}
	return lr_eth_xstats_values_fill(values, n, v, LR_DIM(v));
}

static const struct lr_eth_dev_ops pcap_ops = {
    .dev_start = pcap_dev_start,
    .dev_stop = pcap_dev_stop,
    .dev_close = pcap_dev_close,
    .dev_infos_get = pcap_infos_get,
    .rx_queue_setup = pcap_rx_queue_setup,
    .tx_queue_setup = pcap_tx_queue_setup,
    .stats_get = pcap_stats_get,
    .xstats_get = pcap_xstats_get,
    .xstat_names = pcap_xstat_names,
    .nb_xstat_names = LR_DIM(pcap_xstat_names),
};

/* Copy every value of key into names[]; the count, or -errno. */
static int
collect(struct pcap_port *pp, const struct lr_devargs *args, const char *key,
	char **names)
{
	unsigned n = lr_devargs_count(args, key);

	if (n > LR_MAX_QUEUES_PER_PORT) {
		LR_LOG(ERR, PMD, "%s: %s: given %u times, at most %u queues\n",
		       pp->name, key, n, LR_MAX_QUEUES_PER_PORT);
		return -EINVAL;
	}
	for (unsigned i = 0; i < n; i++) {
		const char *v = lr_devargs_get_nth(args, key, i);

		if (v == NULL || v[0] == '\0') {
			LR_LOG(ERR, PMD,
			       "%s: %s: empty value (expected a %s)\n",
			       pp->name, key,
			       strstr(key, "iface") ? "interface name"
						    : "file name");
			return -EINVAL;
		}
		names[i] = strdup(v);
		if (names[i] == NULL)
			return -ENOMEM;
	}
	return (int)n;
}

/* Read tx_pcap_mode (octal permission bits) into pp->tx_mode; 0 or
 * -EINVAL after logging. */
static int
tx_mode_get(struct pcap_port *pp, const struct lr_devargs *args)
{
	const char *v = lr_devargs_get(args, "tx_pcap_mode");
	int ret = lr_devargs_get_mode(args, "tx_pcap_mode",
				      PCAP_TX_MODE_DEFAULT, &pp->tx_mode);

	if (ret != 0 || v == NULL)
		return ret;
	if (pp->tx_kind != KIND_FILE) {
		LR_LOG(ERR, PMD, "%s: tx_pcap_mode: '%s' needs tx_pcap=FILE\n",
		       pp->name, v);
		return -EINVAL;
	}
	return 0;
}

/* Choose the receive (or transmit) side from the keys; 0 or -errno. */
static int
pick_side(struct pcap_port *pp, const struct lr_devargs *args,
	  const char *file_key, const char *iface_key, char **names,
	  enum pcap_kind *kind, const char **key, unsigned *nb)
{
	unsigned nf = lr_devargs_count(args, file_key);
	unsigned ni = lr_devargs_count(args, iface_key);
	unsigned nboth = lr_devargs_count(args, "iface");
	int n;

	if ((nf != 0) + (ni != 0) + (nboth != 0) > 1) {
		LR_LOG(ERR, PMD, "%s: %s: give only one of %s, %s and iface\n",
		       pp->name, nf ? file_key : iface_key, file_key,
		       iface_key);
		return -EINVAL;
	}
	*kind = KIND_NONE;
	*nb = 0;
	if (nf) {
		*kind = KIND_FILE;
		*key = file_key;
	} else if (ni) {
		*kind = KIND_IFACE;
		*key = iface_key;
	} else if (nboth) {
		*kind = KIND_IFACE;
		*key = "iface";
	} else {
		return 0;
	}
	n = collect(pp, args, *key, names);
	if (n < 0)
		return n;
	*nb = (unsigned)n;
	return 0;
}

/* Allocate a zeroed, cache-line aligned port named after dev with its
 * queues linked to it; NULL after logging. */
static struct pcap_port *
pcap_port_alloc(struct lr_eth_dev *dev)
{
	struct pcap_port *pp;

	/* The queues are cache-line aligned: so must the port be. */
	pp = aligned_alloc(LR_CACHE_LINE_SIZE,
			   LR_ALIGN_CEIL(sizeof(*pp), LR_CACHE_LINE_SIZE));
	if (pp != NULL)
		memset(pp, 0, sizeof(*pp));
	if (pp == NULL) {
		LR_LOG(ERR, PMD, "%s: no memory for the port\n",
		       dev->data->name);
		return NULL;
	}
	pp->name = dev->data->name;
	for (unsigned i = 0; i < LR_MAX_QUEUES_PER_PORT; i++) {
		pp->rxq[i].port = pp;
		pp->rxq[i].qid = (uint16_t)i;
		pp->txq[i].port = pp;
		pp->txq[i].qid = (uint16_t)i;
		pp->txf[i].fd = -1;
	}
	return pp;
}

/* Read the devargs into pp (sides, infinite_rx, tx_pcap_mode); 0 or
 * -errno after logging. */
static int
pcap_parse_args(struct pcap_port *pp, const struct lr_devargs *args)
{
	int ret, infinite;

	ret = pick_side(pp, args, "rx_pcap", "rx_iface", pp->rx_src,
			&pp->rx_kind, &pp->rx_key, &pp->nb_rx);
	if (ret < 0)
		return ret;
	ret = pick_side(pp, args, "tx_pcap", "tx_iface", pp->tx_dst,
			&pp->tx_kind, &pp->tx_key, &pp->nb_tx);
	if (ret < 0)
		return ret;
	if (pp->nb_rx == 0 && pp->nb_tx == 0) {
		LR_LOG(ERR, PMD,
		       "%s: nothing to read or write: give rx_pcap, tx_pcap, "
		       "rx_iface, tx_iface or iface\n",
		       pp->name);
		return -EINVAL;
	}
	ret = lr_devargs_get_bool(args, "infinite_rx", 0, &infinite);
	if (ret < 0)
		return ret;
	if (infinite && pp->rx_kind != KIND_FILE) {
		LR_LOG(ERR, PMD, "%s: infinite_rx: '%s' needs rx_pcap=FILE\n",
		       pp->name, lr_devargs_get(args, "infinite_rx"));
		return -EINVAL;
	}
	pp->infinite = infinite;
	return tx_mode_get(pp, args);
}

/* Open (and close again) every receive source, or load it for replay, so
 * a bad one fails at probe; 0 or -errno after logging. */
static int
pcap_check_sources(struct pcap_port *pp)
{
	for (unsigned i = 0; i < pp->nb_rx; i++) {
		pcap_t *p;
		int ret;

		if (pp->infinite) {
			ret = replay_load(pp, i);
			if (ret < 0)
				return ret;
			continue;
		}
		p = pp->rx_kind == KIND_FILE
			? rx_file_open(pp->name, pp->rx_key, pp->rx_src[i])
			: iface_open(pp->name, pp->rx_key, pp->rx_src[i], 1);
		if (p == NULL)
			return -lr_errno;
		pcap_close(p);
	}
	return 0;
}

/* Open every transmit file (kept open) and check every transmit
 * interface; 0 or -errno after logging. */
static int
pcap_check_sinks(struct pcap_port *pp)
{
	for (unsigned i = 0; i < pp->nb_tx; i++) {
		if (pp->tx_kind == KIND_FILE) {
			int ret = tx_file_open(pp, i);

			if (ret < 0)
				return ret;
		} else {
			pcap_t *p =
			    iface_open(pp->name, pp->tx_key, pp->tx_dst[i], 0);

			if (p == NULL)
				return -lr_errno;
			pcap_close(p);
		}
	}
	return 0;
}

/* Attach pp to dev: ops, idle burst functions, a MAC; log the port. */
static void
pcap_port_register(struct lr_eth_dev *dev, struct pcap_port *pp)
{
	dev->data->dev_private = pp;
	dev->dev_ops = &pcap_ops;
	dev->rx_pkt_burst = rx_none_burst;
	dev->tx_pkt_burst = tx_drop_burst;
	lr_eth_random_mac(&dev->data->mac_addr, dev->data->port_id,
			  0x70636170u);
	LR_LOG(INFO, PMD, "%s: %u rx %s, %u tx %s%s\n", pp->name, pp->nb_rx,
	       pp->rx_kind == KIND_IFACE ? "interfaces" : "files", pp->nb_tx,
	       pp->tx_kind == KIND_IFACE ? "interfaces" : "files",
	       pp->infinite ? ", infinite replay" : "");
}

/* Create a port from devargs: parse, check every source and sink, then
 * register; 0 or -errno after logging. */
static int
pcap_probe(struct lr_eth_dev *dev, const struct lr_devargs *args)
{
	struct pcap_port *pp;
	int ret;

	pp = pcap_port_alloc(dev);
	if (pp == NULL)
		return -ENOMEM;
	ret = pcap_parse_args(pp, args);
	if (ret < 0)
		goto free_port;
	/* Check every source and sink now, so a bad one fails here. */
	ret = pcap_check_sources(pp);
	if (ret < 0)
		goto free_port;
	ret = pcap_check_sinks(pp);
	if (ret < 0)
		goto free_port;
	pcap_port_register(dev, pp);
	return 0;

free_port:
	pcap_port_free(pp);
	return ret;
}

static struct lr_eth_driver pcap_driver = {
    .keys = pcap_keys,
    .usage = "rx_pcap=<file> tx_pcap=<file> rx_iface=<if> tx_iface=<if> "
	     "iface=<if> infinite_rx=<0|1> tx_pcap_mode=<octal, 0600>",
    .probe = pcap_probe,
};

LR_PMD_REGISTER(net_pcap, pcap_driver);
