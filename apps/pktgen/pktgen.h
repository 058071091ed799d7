/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktgen.h - lr-pktgen's internal types: options, stream templates, the
 * per-queue transmit state, the per-lcore receive statistics.
 *
 * Frame layout of a generated frame (sizes count the 4-byte FCS, which the
 * port adds: --size 64 puts 60 bytes in the mbuf):
 *
 *   0  Ethernet  dst(6) src(6) type 0x0800
 *   14 IPv4      20 bytes, no options, DF, TTL 64, proto UDP
 *   34 UDP       8 bytes, checksum 0 unless --udp-cksum
 *   42 payload   the stamp, big-endian: run(4) stream(2) seq(4) tsc(6)
 *                check(2), then a byte pattern up to the frame's end
 *
 * The 18-byte stamp fits in the smallest frame (60 + FCS). run is a random
 * number drawn at start, the same for every frame of the run; tsc the low
 * 48 bits of the TSC at transmit; check a 16-bit hash of run, stream, seq
 * and tsc (pg_stamp_check()). A received frame is ours only when its run
 * is this run's, its check holds and its stream exists: frames of another
 * run or generator, and buffers a port hands back with old contents, never
 * count as received, duplicated or late. Every receive queue fills from a
 * pool of its own that the transmit path never writes (net_null's receive
 * returns its buffers as they are), and the receive path wipes the stamp
 * of a frame it has counted before freeing it.
 *
 * Threading: options and templates are written before the lcores start and
 * only read afterwards. Each struct pg_txq and struct pg_lcore belongs to
 * one lcore; the counters the control thread reads live in struct
 * pg_counters, written with relaxed atomic stores once per burst.
 */
#ifndef PKTGEN_H
#define PKTGEN_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "lr_cycles.h"
#include "lr_ethdev.h"

#include "l3.h"

/** Print "lr-pktgen: " and the message on stderr, with a newline; -1.
 *  (Inline: the fuzz targets link some of lr-pktgen's files, not all.) */
static inline int __attribute__((format(printf, 1, 2)))
pg_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("lr-pktgen: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

/** Bytes of Ethernet + IPv4 + UDP headers. */
#define PG_HDR_LEN 42
/** Offset of the payload header (the stamp) in an untagged IPv4 frame. */
#define PG_PAYLOAD_OFF PG_HDR_LEN
/** Bytes of the stamp. */
#define PG_PAYLOAD_LEN 18
/** Offsets of the stamp's fields. */
#define PG_ST_RUN    0
#define PG_ST_STREAM 4
#define PG_ST_SEQ    6
#define PG_ST_TSC    10
#define PG_ST_CHECK  16
/** The stamp keeps the low 48 bits of the TSC. */
#define PG_TSC_MASK ((1ULL << 48) - 1)
/** FCS bytes a port appends. */
#define PG_FCS 4
/** Preamble, start delimiter and inter-frame gap: bytes on the wire. */
#define PG_WIRE_GAP 20
/** Smallest and largest --size (frame with FCS). */
#define PG_MIN_SIZE 64
#define PG_MAX_SIZE 9018
/** Largest --burst. */
#define PG_MAX_BURST 512
/** Most streams (transmit queues over all ports). */
#define PG_MAX_STREAMS 256
/** Sequence window of the duplicate/reorder detector, in frames. */
#define PG_SEQ_WINDOW 4096
/** Latency histogram: sub-buckets per power of two (2^PG_LAT_SUB_BITS). */
#define PG_LAT_SUB_BITS 4
#define PG_LAT_BUCKETS	(64 << PG_LAT_SUB_BITS)
/** A port that refuses every frame of a queue this long has stopped
 *  taking frames: while the queue has frames to send, and once its
 *  sending time is over (a port that works takes a full ring in
 *  milliseconds). The queue then gives up, and the run fails. */
#define PG_STALL_MS	1000
#define PG_STALL_END_MS 250
/** Fixed-point shift of the rate limiter's cycle arithmetic. */
#define PG_FP_SHIFT 16

/** A field that may vary per packet. */
enum pg_field {
	PG_F_SIZE,
	PG_F_SRC_MAC,
	PG_F_DST_MAC,
	PG_F_SRC_IP,
	PG_F_DST_IP,
	PG_F_SRC_PORT,
	PG_F_DST_PORT,
	PG_F_COUNT,
};

/** A value range lo..hi stepping by step (step 1 except for sizes). */
struct pg_range {
	uint64_t lo;
	uint64_t hi;
	uint64_t step;
	bool set; /**< given on the command line */
};

enum pg_size_mode { PG_SIZE_FIXED, PG_SIZE_RANGE, PG_SIZE_IMIX };
enum pg_rate_mode { PG_RATE_MAX, PG_RATE_PPS, PG_RATE_MBPS, PG_RATE_PCT };
/** How a ranged value moves from frame to frame. */
enum pg_vmode { PG_V_INC, PG_V_DEC, PG_V_RANDOM };
/** Transport header of a stream. */
enum pg_l4 { PG_L4_UDP, PG_L4_TCP, PG_L4_ICMP };
/** Header fields a stream may vary (the field engine), in the order of
 *  the cartesian product: the first varies fastest. */
enum pg_fid {
	PG_FV_SRC_MAC,
	PG_FV_DST_MAC,
	PG_FV_VLAN, /**< outer VLAN id */
	PG_FV_SRC_IP,
	PG_FV_DST_IP,
	PG_FV_SRC_PORT, /**< UDP/TCP source port, ICMP echo id */
	PG_FV_DST_PORT, /**< UDP/TCP destination port */
	PG_FV_COUNT,
};
/** Most streams in a profile, VLAN tags, size table slots. */
#define PG_MAX_SDEFS 64
#define PG_MAX_TAGS  2
#define PG_MAX_SLOTS 1024
#define PG_NAME_MAX  32
#define PG_PAT_MAX   64

/** A header value, fixed (lo == hi) or ranged. IPv6 addresses: the low
 *  64 bits (the high ones in hi6). */
struct pg_val {
	uint64_t lo, hi, step;
	uint8_t mode; /**< enum pg_vmode */
	bool set;     /**< given (else the default) */
};

/** A stream as defined (command line or profile): headers, field engine,
 *  sizes, rate, burst pattern. */
struct pg_sdef {
	char name[PG_NAME_MAX];
	uint32_t ports; /**< ports it is sent on; 0 = every sending port */
	struct pg_val v[PG_FV_COUNT];
	uint64_t hi6[2]; /**< IPv6: high 64 bits of source, destination */
	unsigned ntags;	 /**< VLAN tags: 0, 1 or 2 (QinQ, outer first) */
	uint16_t tpid[PG_MAX_TAGS], tci[PG_MAX_TAGS]; /**< inner tag's id in
							 tci; outer's in v */
	bool ipv6;
	uint8_t l4; /**< enum pg_l4 */
	uint8_t ttl, tos, tcp_flags, icmp_type, icmp_code;
	bool udp_cksum;
	uint8_t pat[PG_PAT_MAX]; /**< payload pattern, repeated */
	unsigned patlen;	 /**< 0: bytes counting up */
	/* Sizes (with FCS): fixed, a range, or a table of slots (IMIX or a
	 * weighted list spread out). */
	enum pg_size_mode size_mode; /**< PG_SIZE_IMIX: the table */
	struct pg_val size;
	uint16_t *slots; /**< table sizes (malloc'd), or NULL */
	unsigned nslots;
	/* Rate: a share of --rate-* (default 1), or its own. */
	double share;
	enum pg_rate_mode rate_mode; /**< PG_RATE_MAX: a share */
	double rate;		     /**< pps or Mbit/s */
	/* Bursts: burst frames, then a gap; bursts of them (0: no end). */
	uint64_t burst, bursts;
	double gap_us;
	uint64_t count; /**< 0: --count's share, or no limit */
};

/** Most frame sizes of an RFC 2544 search. */
#define PG_RFC_MAX_SIZES 32
/** Most loads of --latency-loads. */
#define PG_RFC_MAX_LOADS 16
/** The RFC 2544 test of --rfc2544 (its section 26.x). */
enum pg_rfc_mode {
	PG_RFC_THROUGHPUT,   /**< 26.1: NDR and PDR searched */
	PG_RFC_LATENCY,	     /**< 26.2: latency at loads of the NDR */
	PG_RFC_FRAME_LOSS,   /**< 26.3: loss at falling loads */
	PG_RFC_BACK_TO_BACK, /**< 26.4: the longest burst with no loss */
};
/** A rate bound of the search: frames/s, wire Mbit/s or percent of the
 *  line rate (enum pg_rate_mode; PG_RATE_MAX: not given). */
struct pg_rate_bound {
	double v;
	uint8_t unit;
};

/** Everything the command line sets. */
struct pg_opts {
	uint32_t ports;	   /**< bit per port id; 0 = every port */
	uint32_t tx_ports; /**< subset transmitting; 0 = all of ports */
	uint32_t rx_ports; /**< subset receiving; 0 = all of ports */
	bool tx_only, rx_only;
	enum pg_size_mode size_mode;
	struct pg_range f[PG_F_COUNT]; /**< field ranges (size included) */
	bool random; /**< random values in ranges, not steps */
	bool udp_cksum;
	uint8_t l4;	     /**< --proto */
	bool ipv6;	     /**< --ipv6 */
	unsigned nvlan;	     /**< --vlan given, once or twice */
	uint16_t vlan[2];    /**< outer first */
	const char *ip[2];   /**< --src-ip, --dst-ip as given */
	const char *profile; /**< --profile FILE.json */
	struct pg_sdef cli;  /**< the one stream of the command line */
	const char *pcap_file;
	bool replay;  /**< --replay: the file's own timing */
	double speed; /**< --speed: of the replay */
	const char *capture_file;
	unsigned capture_mode; /**< permission bits of a created capture */
	enum pg_rate_mode rate_mode;
	double rate; /**< pps, Mbit/s or percent */
	double line_rate_gbps;
	bool line_rate_set; /**< --line-rate-gbps given: over the ports' */
	unsigned burst;
	uint64_t count;	     /**< 0 = no limit */
	double duration;     /**< seconds; 0 = no limit */
	double stats_period; /**< seconds between 'stats' lines; 0 = none */
	unsigned drain_ms;
	bool drain_all;	  /**< end the drain once every own frame is back */
	double link_wait; /**< seconds to wait for links up; 0 = none */
	double bucket_ms; /**< rate limiter credit kept, ms */
	unsigned nb_rxd, nb_txd;
	unsigned nb_mbufs;  /**< --mbufs MIN (N: fixed); 0 = computed */
	unsigned mbufs_max; /**< --mbufs MAX; == nb_mbufs: a fixed pool */
	unsigned idle_ms;   /**< --mbufs-idle: elastic pool's idle shrink */
	unsigned queues;    /**< per port; 0 = one per lcore on it */
	uint64_t seed;
	bool quiet, json, xstats;
	const char *stats_json_file; /**< --stats-json: a line a second */
	const char *ctl_path;	     /**< --ctl: the control socket */
	const char *ctl_group; /**< --ctl-group as given; NULL: none (0600) */
	gid_t ctl_gid;	       /**< that group's id */
	double ctl_timeout;    /**< --ctl-timeout: seconds a client may idle */
	bool idle;	    /**< --idle: nothing sent until a "start" request */
	bool no_stamp;	    /**< --no-stamp: frames without a stamp, no
				 per-stream statistics */
	bool no_screen;	    /**< --no-screen: live lines on a terminal too */
	bool record_cycles; /**< --record-core-cycles: count busy_tsc */
	/* L3 mode (l3.h): addresses and gateways per port, resolution. */
	struct pg_l3_conf l3[LR_MAX_ETHPORTS]; /**< --ip, --gateway */
	unsigned resolve_tries;		       /**< --resolve-tries */
	double resolve_interval; /**< --resolve-interval, seconds */
	const char *json_file;	 /**< --json FILE; NULL: stdout */
	/* --rfc2544 throughput (rfc2544.c). */
	bool rfc2544;
	uint8_t rfc_mode; /**< enum pg_rfc_mode */
	unsigned rfc_nloads;
	double rfc_loads[PG_RFC_MAX_LOADS]; /**< --latency-loads, % of NDR */
	double loss_step; /**< --loss-step, percent of the max rate */
	int8_t tx_full;	  /**< --tx-full: 1 drop, 0 wait, -1 by driver */
	unsigned rfc_nsizes;
	uint16_t rfc_sizes[PG_RFC_MAX_SIZES]; /**< with FCS; 0: IMIX */
	double pdr_loss;		      /**< --pdr-loss, percent */
	double trial_s, final_s;	      /**< --trial-s, --final-trial-s */
	unsigned repeat;		      /**< --repeat */
	struct pg_rate_bound min_rate, max_rate;
	double precision; /**< --precision, percent of the max rate */
};

/** One frame to send: bytes, length without FCS, payload-header flag. */
struct pg_tmpl {
	uint8_t *data;
	uint32_t len;
	bool stamped;	    /**< carries the payload header: write seq/tsc */
	uint64_t t_us;	    /**< pcap: capture time after the first frame */
	uint64_t t_fp;	    /**< --replay: when it leaves in the file's loop */
	uint16_t stamp_off; /**< where the stamp is, when stamped */
	uint64_t gen;	    /**< changes whenever data does (never 0): an
			     *   mbuf of a kept pool holds this frame if its
			     *   udata64 says this number */
};

/** How a stream builds frames (chosen once, at setup); PG_K_PLAIN: the
 *  template as it is (--no-stamp, nothing varies); PG_K_FIELDS: fields
 *  vary over a fixed size, IPv4 with no L4 checksum (the IPv4 checksum
 *  updated from the template's). */
enum { PG_K_FAST, PG_K_GENERAL, PG_K_PCAP, PG_K_PLAIN, PG_K_FIELDS };

/** Counters of one queue, read by the control thread. */
struct pg_counters {
	_Atomic uint64_t tx_pkts;
	_Atomic uint64_t tx_bytes;  /**< without FCS */
	_Atomic uint64_t tx_drop;   /**< built but not taken at exit */
	_Atomic uint64_t tx_own;    /**< sent frames carrying a stamp */
	_Atomic uint64_t tx_nombuf; /**< bursts skipped: pool empty */
	_Atomic uint64_t tx_behind; /**< frames behind the rate's schedule */
	_Atomic uint64_t tx_full;   /**< refused (ring full) and dropped */
	_Atomic uint64_t tx_full_own; /**< of them, stamped */
	_Atomic uint64_t rx_pkts;   /**< every frame the port delivered */
	_Atomic uint64_t rx_own;    /**< frames of this run's streams */
	_Atomic uint64_t rx_own_bytes;
} __lr_cache_aligned;

/** Generator of one varying field (or of the size). */
struct pg_fgen {
	uint16_t off;  /**< byte offset in the frame (not for size) */
	uint8_t width; /**< bytes, 2 to 8, big-endian */
	uint8_t mode;  /**< enum pg_vmode */
	bool in_ip;    /**< an IPv4 address: in the header's checksum */
	uint64_t lo;
	uint64_t step;
	uint64_t span; /**< number of values */
	uint64_t cur;  /**< index of the value of the next frame */
	uint64_t keep; /**< bits of the field outside the value (VLAN) */
	/* PG_K_FIELDS, sequential modes: the field of the next frame
	 * (keep included), the first one, and what moves it on. */
	uint64_t val, first, dstep;
};

/** Transmit state of one queue (one stream). Owned by one lcore. */
struct pg_txq {
	uint16_t port, queue, stream;
	bool done;
	uint32_t seq;
	uint64_t quota; /**< frames still to send */
	/* Templates: one stamped frame, or the pcap file's frames. */
	const struct pg_tmpl *tmpl;
	struct pg_tmpl *own_tmpl; /**< tmpl when built here, else NULL */
	uint32_t ntmpl, tmpl_idx;
	/* Variation (PG_K_GENERAL): the field engine, sizes, lengths and
	 * checksums written per frame. */
	uint8_t kind; /**< PG_K_*: how frames are built */
	uint8_t l4;   /**< enum pg_l4 */
	bool ipv6;
	bool l4_cksum; /**< the L4 checksum is computed per frame */
	uint16_t l3_off, l4_off;
	/* PG_K_FIELDS: ~(the template's IPv4 checksum) + ~(each word of the
	 * template's addresses that vary), in ones' complement (RFC 1624):
	 * a frame's checksum is ~fold(ck_base + its address words). */
	uint64_t ck_base;
	unsigned nfgen;
	struct pg_fgen fgen[PG_FV_COUNT];
	bool vary_size;
	struct pg_fgen sgen;   /**< size index generator */
	const uint16_t *slots; /**< sizes of a table, or NULL */
	uint64_t rnd;	       /**< xorshift state */
	/* The stream it is an instance of, its burst pattern. */
	unsigned sdef;
	bool paced;
	/* A frame the port refuses is dropped and counted (tx_full: the
	 * device's loss, --tx-full drop), not kept for later. */
	bool drop_full;
	uint64_t burst_len, burst_left; /**< frames of a burst, still to go */
	uint64_t gap_fp;		/**< gap after a burst */
	struct pg_counters scnt;	/**< this instance's tx counters */
	/* Rate limiter (cycles since start, << PG_FP_SHIFT). The schedule
	 * starts at the queue's first poll; with --duration it ends at
	 * end_fp (a frame scheduled before it is sent, even late). */
	bool started;
	/* "stop" of the control socket (and --idle): since when the queue
	 * stands still (TSC, 0: it does not); the time it stood still in
	 * all, which moves the end of --duration on. */
	uint64_t paused_at;
	uint64_t paused_tsc;
	uint64_t end_fp;
	uint64_t next_fp;
	uint64_t pkt_cost_fp;	/**< per frame */
	uint64_t byte_cost_fp;	/**< per wire byte */
	uint64_t depth_fp;	/**< most credit kept */
	uint64_t frame_cost_fp; /**< of the first template's frame */
	uint64_t behind_fp;	/**< schedule time given up, in all */
	uint64_t behind_n;	/**< frames counted for it so far */
	/* --replay: frame i leaves at base_fp + tmpl[i].t_fp; a loop of
	 * the file lasts loop_fp. */
	bool timed;
	uint64_t base_fp, loop_fp;
	/* A new rate from the control socket: costs stored, then rate_gen
	 * moved on (release); the lcore takes them when it sees rate_gen
	 * change (rate_seen: the one it has). */
	_Atomic uint32_t rate_gen;
	uint32_t rate_seen;
	_Atomic uint64_t new_pkt_cost, new_byte_cost;
	/* Frames built but not yet taken by the port; mbufs allocated but
	 * not yet built (rate-limited mode). */
	unsigned npending, nstash;
	struct lr_mbuf *pending[PG_MAX_BURST];
	struct lr_mbuf *stash[PG_MAX_BURST];
	uint64_t first_tsc, last_tsc;
	uint64_t refused_tsc; /* since when the port refuses every frame */
	/* The port stopped taking frames (tx_stalled()): since when (TSC)
	 * and for how long (cycles) it refused every frame; 0: it did not. */
	uint64_t stall_since, stall_tsc;
	uint64_t count; /**< frames it was to send; 0: no limit */
	struct pg_counters *cnt;
	/* Where its mbufs come from: pg.pool, or the port's own pool (a
	 * zero-copy memif port: sent with no copy); the rearm word of a
	 * fresh mbuf of it. */
	struct lr_mempool *pool;
	uint64_t rearm;
	/* PG_K_PLAIN from a pool of its own (own_pool, else NULL) whose every
	 * buffer holds the frame: only the lengths are written per frame
	 * (on a zero-copy memif port, shared memory that the port's peer
	 * maps: lr_eth_memif_pool_create()). */
	bool prebuilt;
	/* PG_K_FAST from a pool of its own whose buffers keep the frame
	 * last written in them (udata64: the template's gen): a frame of
	 * PG_KEEP_MIN bytes or more gets its stamp alone written, unless
	 * the template changed since (a trial of another size). */
	bool keep;
	struct lr_mempool *own_pool;
};

/** Shortest frame a kept pool's buffers are reused for: below it, one
 *  copy of the template costs less than checking the buffer. */
#define PG_KEEP_MIN 256

/** Sequence state of one stream as seen by one receiving lcore, with its
 *  RFC 3550 interarrival jitter (16 times the estimate, in cycles). */
struct pg_seqwin {
	uint64_t top; /**< highest sequence number seen (extended) */
	bool seen;
	bool have_transit;
	int64_t transit; /**< receive minus send time of the last frame */
	uint64_t jitter16;
	uint64_t unique;
	uint64_t reordered;
	uint64_t dup;
	uint64_t late; /**< below the window: counted reordered */
	uint64_t bits[PG_SEQ_WINDOW / 64];
};

/** What the live screen shows of one stream instance as seen by one
 *  lcore (a copy of its struct pg_seqwin's figures). */
struct pg_snap {
	uint64_t top; /**< highest sequence number seen */
	uint64_t unique, dup;
	uint64_t jitter16;
	bool seen;
};

/** Latency statistics in TSC cycles. */
struct pg_lat {
	uint64_t n, sum, min, max;
	uint64_t hist[PG_LAT_BUCKETS];
};

/** One receive queue polled by an lcore. */
struct pg_rxq {
	uint16_t port, queue;
	struct pg_counters *cnt;
};

/** Per-lcore state: its queues and receive statistics. */
struct pg_lcore {
	unsigned lcore_id;
	unsigned ntx, nrx;
	struct pg_txq *tx[PG_MAX_STREAMS];
	struct pg_rxq rx[PG_MAX_STREAMS];
	struct pg_seqwin *win; /**< [nstreams] */
	struct pg_lat lat;
	struct pg_lat *slat;	    /**< [nsdefs]: per stream definition */
	uint64_t rx_foreign_stream; /**< this run's id, no such stream */
	uint64_t cpu_ns;	    /**< CPU time the loop used */
	uint64_t wall_ns;	    /**< wall time it ran */
	uint64_t busy_tsc;    /**< TSC cycles of loop passes that moved frames
			       (--record-core-cycles) */
	uint64_t busy_frames; /**< frames sent or received in those passes */
	_Atomic int tx_done;
	/* Set (release) while sending is stopped and this lcore's queues
	 * stand still, no frame of theirs still to go: "stopped". */
	_Atomic int tx_still;
	bool still; /**< what it last stored in tx_still */
	/* The live screen's copy of the statistics: the control thread asks
	 * for one by moving snap_req on (release, after it has read the last
	 * copy); the lcore copies into snap and snap_lat and answers with
	 * snap_done (release). Nobody else touches snap and snap_lat. */
	_Atomic uint32_t snap_req, snap_done;
	uint32_t snap_seen;
	struct pg_snap *snap;	 /**< [nstreams], NULL: no screen */
	struct pg_lat *snap_lat; /**< [nsdefs] */
};

/** State shared by the control thread and the lcores. */
struct pg_run {
	struct pg_opts o;
	struct lr_mempool *pool;
	uint64_t hz;		    /**< TSC frequency */
	uint64_t t0;		    /**< TSC at start */
	uint64_t end_tsc;	    /**< TSC at which sending ends; 0 = never */
	uint64_t rearm;		    /**< rearm_data of a fresh mbuf of pool */
	struct lr_mempool *rx_pool; /**< receive queues fill from it */
	uint32_t run_id;	    /**< random, in every stamp of the run */
	struct pg_sdef *sdefs;	    /**< the streams as defined */
	unsigned nsdefs;
	uint16_t *inst_sdef; /**< [nstreams]: definition of an instance */
	unsigned nstreams;   /**< instances: a definition on a queue */
	bool capture;
	bool l3;	     /**< a port answers ARP, NDP and ping (l3.c) */
	_Atomic int go;	     /**< lcores start when set */
	_Atomic int state;   /**< PG_RUN, PG_TX_STOP, PG_STOP */
	_Atomic int paused;  /**< sending stopped ("stop", --idle) */
	struct pg_txq **txq; /**< [nstreams]: every instance */
	struct pg_lcore *lcs[LR_MAX_LCORE]; /**< the datapath lcores */
	unsigned nlcs;
};

enum { PG_RUN, PG_TX_STOP, PG_STOP };

extern struct pg_run pg;

/** The 16-bit check value of a stamp (run, stream, seq, 48-bit tsc). */
static inline uint16_t
pg_stamp_check(uint32_t run, uint16_t stream, uint32_t seq, uint64_t tsc48)
{
	uint64_t h = ((uint64_t)seq << 16 | stream) ^
		     (tsc48 * 0x9e3779b97f4a7c15ULL) ^
		     ((uint64_t)run * 0xc2b2ae3d27d4eb4fULL);

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 32;
	return (uint16_t)(h ^ h >> 16);
}

/** Offset of the stamp in frame d of len bytes (after Ethernet, VLAN
 *  tags, IPv4 or IPv6, UDP, TCP or ICMP headers), or 0 if it has none. */
static inline uint32_t
pg_stamp_offset(const uint8_t *d, uint32_t len)
{
	uint32_t off = 12, l4;
	uint16_t type;
	uint8_t proto;

	if (lr_unlikely(len < PG_HDR_LEN + PG_PAYLOAD_LEN))
		return 0;
	type = (uint16_t)(d[off] << 8 | d[off + 1]);
	/* At most two tags (QinQ); the length check above covers them. */
	for (int i = 0; i < 2 && (type == 0x8100 || type == 0x88a8); i++) {
		off += 4;
		type = (uint16_t)(d[off] << 8 | d[off + 1]);
	}
	off += 2;
	if (lr_likely(type == 0x0800)) {
		if (off + 20 > len || (d[off] >> 4) != 4)
			return 0;
		proto = d[off + 9];
		l4 = off + (d[off] & 15u) * 4;
	} else if (type == 0x86dd) {
		if (off + 40 > len || (d[off] >> 4) != 6)
			return 0;
		proto = d[off + 6];
		l4 = off + 40;
	} else {
		return 0;
	}
	if (l4 + 20 > len)
		return 0;
	if (lr_likely(proto == 17 || proto == 1 || proto == 58))
		l4 += 8;
	else if (proto == 6)
		l4 += (d[l4 + 12] >> 4) * 4u;
	else
		return 0;
	return l4 + PG_PAYLOAD_LEN <= len ? l4 : 0;
}

/* datapath.c */
/** An lcore's transmit/receive loop; arg is its struct pg_lcore. */
int pg_lcore_loop(void *arg);
/** Copy lcore lc's statistics for the live screen (into lc->snap and
 *  lc->snap_lat) and answer its snap_req: the lcore itself, when the
 *  control thread asked, or anyone once the lcore has returned. */
void pg_lcore_snap(struct pg_lcore *lc);
/** Free the frames a queue still holds (pending ones count as tx_drop). */
void pg_txq_release(struct pg_txq *q);

/* The control thread's side of the run (main.c wires it: setup.c builds
 * it, live.c watches it, screen.c and report.c show it, ctl_handlers.c
 * changes it). Written at setup and then by the control thread only; the
 * lcores never read pg_app itself, only the lcore and queue states it
 * points to (theirs). */

/** A port the run uses: its role, its queues' counters, snapshots for
 *  rates. */
struct pg_port {
	bool used, tx, rx;
	uint16_t nq;   /**< queues (rx = tx) */
	uint16_t ntxq; /**< streams on it */
	char name[LR_ETH_NAME_MAX_LEN];
	struct pg_counters *cnt;   /**< [nq] */
	struct lr_eth_stats stats; /**< at the end, before close */
	uint64_t l_tx, l_txb, l_rx, l_rxb, l_drops; /**< last live line */
	uint64_t l_other;			    /**< frames not ours */
};

/** What setup builds beside pg, and the live output's last figures. */
struct pg_app {
	struct pg_port ports[LR_MAX_ETHPORTS];
	struct pg_lcore *lcores[LR_MAX_LCORE]; /**< by lcore id */
	unsigned dp_lcores[LR_MAX_LCORE];      /**< the datapath lcores' ids */
	unsigned n_dp;
	struct pg_txq *txqs[PG_MAX_STREAMS]; /**< every stream instance */
	unsigned ntxqs;
	struct pg_tmpl *pcap_tmpl; /**< --pcap's frames */
	unsigned pcap_n;
	uint64_t t_stop;     /**< TSC when the run ended */
	uint64_t last_print; /**< TSC of the last live line or screen */
	uint64_t l_behind, l_all_tx, l_all_txb; /**< at the last of them */
	/** Sum of the rates of the paced streams without gaps (their
	 *  targets). */
	double target_pps, target_bps;
	/** Each instance's rate (its target), and the share weights of the
	 *  streams without a rate of their own, over all and per port: a rate
	 *  set through the control socket is split as --rate-* was. */
	double inst_pps[PG_MAX_STREAMS], inst_bps[PG_MAX_STREAMS];
	double wsum, wport[LR_MAX_ETHPORTS];
	bool any_paced;
};

extern struct pg_app pg_app;

/** The i-th datapath lcore's state. */
static inline struct pg_lcore *
pg_dp_lcore(unsigned i)
{
	return pg_app.lcores[pg_app.dp_lcores[i]];
}

/* setup.c: ports, lcores, queues, pools, streams */
/** What the command line names: the ports of --vdev, the streams, the
 *  ports and queues they use, --pcap's frames; the longest frame into
 *  *max_len. 0, or the exit status after a message. */
int pg_setup_inputs(struct pg_opts *o, unsigned *max_len);
/** The pools, the ports and their queues, the streams and their frames,
 *  the links and L3 mode: 0, or -1 after a message. */
int pg_setup_run(const struct pg_opts *o, unsigned max_len);
/** Instances of stream definition k, and the index of instance q among
 *  them into *idx. */
unsigned pg_sdef_instances(unsigned k, const struct pg_txq *q, unsigned *idx);
/** Check and free the queues' own pools at exit (their mbufs not back
 *  added to *leaked); 0, or -1 after a message. */
int pg_tx_pools_fini(unsigned *leaked);

/* live.c: the control thread while the run goes on */
/** Start the datapath lcores and the control loop (which ends the sending
 *  at --duration, --count or a stop, drains --drain-ms, stops them); back
 *  once every lcore has returned. */
void pg_run_lcores(void);
/** Give every mbuf a port still holds back to its pool. */
void pg_drain_ports(void);
/** Gbit/s on the wire of pkts frames of bytes in all over secs. */
double pg_wire_gbps(uint64_t pkts, uint64_t bytes, double secs);
/** A port's queue counters summed: frames and bytes sent, of ours
 *  received, and the frames received not ours. */
struct pg_sums {
	uint64_t tx, txb, rx, rxb, other;
};
/** From port *p on, the first one in use: 1 with *p its id and its
 *  counters' sums in *s, or 0 when none is left (a loop over the ports:
 *  for (p = 0; pg_port_next(&p, &s); p++)). */
int pg_port_next(uint16_t *p, struct pg_sums *s);
/** Port p's sums s as JSON: {port, tx, tx_bytes, rx, rx_bytes,
 *  rx_other}; NULL when out of memory. */
struct json_t *pg_port_json(uint16_t p, const struct pg_sums *s);
/** Frames port p dropped or could not take (its own counters). */
uint64_t pg_port_drops(uint16_t p);
/** Frames behind the rate's schedule, over every queue. */
uint64_t pg_behind_sum(void);
/** "X of Y UNIT": the rate reached against the continuous streams'
 *  targets, into buf. */
void pg_rate_vs_target(char *buf, size_t len, uint64_t pkts, uint64_t bytes,
		       double secs);
/** "sending", "stopping", "stopped" or "done". */
const char *pg_send_state(void);
/** A line a port of the last second (and the mbuf pool's). */
void pg_print_live(uint64_t now);
/** --xstats: the mbuf pool's counters. */
void pg_print_pool_xstats(void);
/** --stats-json: create the file; 0 or -1 after a message. */
int pg_stats_json_open(const struct pg_opts *o);
/** --stats-json: its last line, at the end of the run (unless a write
 *  failed). */
void pg_stats_json_last(void);
/** --stats-json: close the file; 0, or -1 when a write or the close
 *  failed (said). */
int pg_stats_json_close(const struct pg_opts *o);

/* report.c: what is printed about the run */
/** Names and units of enum pg_rate_mode, as the JSON output and the
 *  control socket write them. */
extern const char *const pg_rate_mode_name[];
extern const char *const pg_rate_mode_unit[];
/** The line that says what runs. */
void pg_describe_run(const struct pg_opts *o);
/** --json: set stdout aside for the document (or create --json FILE); 0,
 *  or -1 after a message. */
int pg_json_open(const struct pg_opts *o);
/** Where --json writes its document (stdout set aside, or FILE). */
FILE *pg_json_stream(void);
/** The run's configuration as a JSON object (ports, rate, streams). */
struct json_t *pg_json_config(void);
/** Close --json's stream; 0, or -1 after a message when --json FILE
 *  cannot be written. */
int pg_json_close(const struct pg_opts *o);
/** The figures of a run that started (leaked: mbufs not back): the
 *  summary or the --json document, the ports that stopped taking frames,
 *  the final `pktgen total:` line. 0, or -1 when a port stopped taking
 *  frames. */
int pg_report(const struct pg_opts *o, unsigned leaked);

/* trial.c: one trial of a search */
/** Latency figures of a trial, in microseconds (see PG_TQ_*). */
enum {
	PG_TQ_MIN,
	PG_TQ_P50,
	PG_TQ_P90,
	PG_TQ_P99,
	PG_TQ_P999,
	PG_TQ_P9999,
	PG_TQ_MAX,
	PG_TQ_COUNT,
};
/** What one stream definition sent and got back in a trial (frames of
 *  ours: stamped with this trial's run id). */
struct pg_trial_stream {
	uint64_t tx, rx, lost, reordered, dup;
	uint64_t lat_n;
	double lat_us[PG_TQ_COUNT];
};
/** A trial: pps frames/s over every stream for secs seconds, then the
 *  drain; its figures and its verdict. */
struct pg_trial {
	double pps, secs;  /**< asked */
	uint64_t expected; /**< frames the schedule holds */
	uint64_t tx, tx_own, rx, lost, reordered, dup;
	uint64_t behind, tx_nombuf, rx_nombuf, imissed;
	uint64_t refused; /**< dropped for a full ring (--tx-full drop) */
	double tx_pps;	  /**< achieved: tx / (secs + late_s) */
	double late_s;	  /**< the sending took this much longer than its
			       schedule (the queue that took longest) */
	double loss;		    /**< lost / tx_own */
	bool valid;		    /**< the generator sent what it was asked */
	bool stalled;		    /**< a port stopped taking frames */
	bool burst; /**< a back-to-back burst: lateness judged strictly */
	char reason[256];	    /**< why it is invalid */
	struct pg_trial_stream all; /**< every stream together */
	struct pg_trial_stream *st; /**< [pg.nsdefs], the caller's */
};
/** Run trial t (t->pps, t->secs and t->st set): templates rebuilt with a
 *  fresh run id, counters cleared, the lcores run, the figures and the
 *  verdict filled in. 0, or -1 when it could not run (out of memory,
 *  said) or a stop signal ended it. */
int pg_trial_run(struct pg_trial *t);
/** Set the size of every stream definition: size bytes with FCS, or 0
 *  for IMIX; 0, or -1 after saying which stream cannot hold it. */
int pg_trial_set_size(unsigned size);

/* rfc2544.c */
/** Largest frame (without FCS) of the search's sizes. */
unsigned pg_rfc2544_max_len(void);
/** The search of --rfc2544 throughput over the started ports: its table
 *  and document printed; the exit status (0, 1 run-time failure or NDR 0,
 *  2 impossible bounds). */
int pg_rfc2544_run(void);

/* options.c */
/** Parse program options into o: 0; 1 after printing the usage for
 *  -h/--help; -1 after printing the error. */
int pg_parse_args(int argc, char **argv, struct pg_opts *o);
/** Parse a MAC "aa:bb:cc:dd:ee:ff" into a 48-bit value; 0 or -1. */
int pg_parse_mac(const char *s, uint64_t *v);
/** Parse an IPv4 or IPv6 address or range "A-B" into lo..hi (IPv6: the
 *  low 64 bits; the high ones, equal at both ends, in *hi6); 0 or -1. */
int pg_parse_ip_range(const char *s, bool v6, uint64_t *lo, uint64_t *hi,
		      uint64_t *hi6);

/* usage.c */
/** Print the program's usage to f. */
void pg_usage(FILE *f, const char *prog);

/* stream.c */
/** IMIX slot sizes, PG_IMIX_SLOTS of them (7:4:1 of 64/570/1518). */
#define PG_IMIX_SLOTS 12
extern const uint16_t pg_imix_sizes[PG_IMIX_SLOTS];
/** Largest frame length (without FCS) a stream definition produces. */
unsigned pg_sdef_max_len(const struct pg_sdef *d);
/** Bytes of a definition's headers (the stamp comes after them). */
unsigned pg_sdef_hdr_len(const struct pg_sdef *d);
/** Fill the defaults of a stream definition. */
void pg_sdef_defaults(struct pg_sdef *d);
/** Check a definition (sizes against its headers); 0 or -1 after
 *  printing what is wrong, naming the stream (what: where it came from). */
int pg_sdef_check(struct pg_sdef *d, const char *what);
/** Free what a definition holds. */
void pg_sdef_fini(struct pg_sdef *d);
/** Build txq's template and generators from its definition d for port
 *  mac port_mac, with seed and the run's id; 0 or -1 (out of memory). */
int pg_stream_init(struct pg_txq *q, const struct pg_sdef *d, uint64_t port_mac,
		   uint64_t seed, uint32_t run_id);
/** Write the lengths and checksums of frame d of len bytes of txq (after
 *  its fields, size and stamp were written). */
void pg_stream_fix(struct pg_txq *q, uint8_t *d, unsigned len);
/** pg_stream_fix() of q's own template after it was written (set up,
 *  patched by L3 mode, unstamped), and what PG_K_FIELDS derives from it
 *  (the IPv4 checksum base). */
void pg_stream_tmpl_fix(struct pg_txq *q);
/** --no-stamp: the pattern in place of the stamp of txq's template
 *  (built from d), which then goes out as it is. */
void pg_stream_unstamp(struct pg_txq *q, const struct pg_sdef *d);
/** Free what pg_stream_init() allocated. */
void pg_stream_fini(struct pg_txq *q);
/** Load a pcap file into templates; count, or -1 after printing why. */
int pg_pcap_load(const char *path, struct pg_tmpl **out, unsigned max_len);
/** Free templates from pg_pcap_load(). */
void pg_pcap_free(struct pg_tmpl *t, unsigned n);
/** Non-zero if this build reads and writes pcap files. */
int pg_have_pcap(void);
/** Create a capture file with permission bits mode (umask applies); 0 or
 *  -1 after printing why. */
int pg_capture_open(const char *path, unsigned mode);
/** Append n received frames to the capture file (thread-safe); 0, or -1
 *  once a write failed (printed once; the file cut back to its last whole
 *  record, later frames dropped): the caller stops the run. */
int pg_capture_write(struct lr_mbuf **pkts, unsigned n);
/** fsync and close the capture file; 0, or -1 when a write, the fsync or
 *  the close failed (printed). */
int pg_capture_close(void);

/* ctl.c (and ctl_handlers.c for what it reports and changes) */
struct json_t;
/** Open the control socket o->ctl_path (mode, group and timeout from o);
 *  0 or -1 after printing why. */
int pg_ctl_open(const struct pg_opts *o);
/** Serve the control socket's clients (control thread); true if one
 *  asked to end the run ("quit"). */
bool pg_ctl_poll(void);
/** Close the control socket and remove its file. */
void pg_ctl_close(void);
/** The counters so far as a JSON object (ctl_handlers.c). */
struct json_t *pg_ctl_stats(void);
/** Set the rate to v in mode (enum pg_rate_mode): stream -1, the rate the
 *  streams without one of their own share; else stream definition
 *  stream's own rate. 0, or -1 with the reason in err
 *  (ctl_handlers.c). */
int pg_ctl_set_rate(int mode, double v, int stream, char *err, size_t n);
/** Start (on) or stop the sending of every stream; the run goes on
 *  (ctl_handlers.c). */
void pg_ctl_set_sending(bool on);
/** Whether the streams are sending (not stopped by "stop" or --idle). */
static inline bool
pg_sending(void)
{
	return !atomic_load_explicit(&pg.paused, memory_order_relaxed);
}

/* screen.c: the live screen (a terminal refreshed in place with ANSI
 * sequences), and the control thread's messages on it. */
/** A message of the control thread: a line of its own, or on the
 *  screen. */
void pg_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** The live screen when pg_screen_wanted(o): the lcores' copies of their
 *  statistics made, the terminal taken; 0 or -1 (out of memory). */
int pg_screen_start(const struct pg_opts *o);
/** Whether the live output is the screen (pg_screen_start()). */
bool pg_screen_on(void);
/** Each tick of the control loop: ask the lcores for their statistics,
 *  take them, draw once a second. */
void pg_screen_tick(uint64_t now);
/** The last frame, from the lcores' own statistics, and the terminal
 *  given back. */
void pg_screen_final(void);
/** Free what pg_screen_start() took. */
void pg_screen_free(void);
/** Whether the live output is a screen: stdout a terminal that is not
 *  "dumb", and no --quiet, --json, --stats-period or --no-screen. */
bool pg_screen_wanted(const struct pg_opts *o);
/** Take the terminal: cursor hidden, screen cleared; given back at exit
 *  (atexit) if pg_screen_end() did not run. */
void pg_screen_begin(void);
/** Start a frame of the screen. */
void pg_screen_clear(void);
/** Add a line to the frame, cut at the terminal's width; beyond its
 *  height lines are dropped. */
void pg_screen_printf(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
/** Lines the frame still has room for. */
unsigned pg_screen_rows_left(void);
/** Show the frame: cursor home, its lines, the rest of the screen
 *  cleared. */
void pg_screen_show(void);
/** Give the terminal back (cursor shown, on a new line); once. */
void pg_screen_end(void);

/* profile.c */
/** Load the streams of a JSON profile: count, or after printing what is
 *  wrong (file, line and column, the field's JSON path, the stream, the
 *  value) -EINVAL (the file is missing, unreadable or invalid) or
 *  -ENOMEM. */
int pg_profile_load(const char *path, struct pg_sdef **out);

/* telemetry.c */
/** Register /linerate/pktgen/stats (the run's state set up); 0 or a
 *  negative errno (lr_telemetry_register()). */
int pg_telemetry_init(void);
/** Make /linerate/pktgen/stats refuse, once no reply reads the run. */
void pg_telemetry_fini(void);

/* stats.c */
/** Account one received frame of ours in window w. */
void pg_seq_account(struct pg_seqwin *w, uint32_t seq32);
/** Account the transit time (cycles) of a frame of w's stream in its RFC
 *  3550 interarrival jitter. */
void pg_jitter_account(struct pg_seqwin *w, uint64_t transit);
/** Histogram bucket of a latency in cycles. */
static inline unsigned
pg_lat_bucket(uint64_t c)
{
	unsigned msb, sub;

	if (c < (1u << PG_LAT_SUB_BITS))
		return (unsigned)c;
	msb = 63 - (unsigned)__builtin_clzll(c);
	sub = (unsigned)(c >> (msb - PG_LAT_SUB_BITS)) &
	      ((1u << PG_LAT_SUB_BITS) - 1);
	return ((msb - PG_LAT_SUB_BITS + 1) << PG_LAT_SUB_BITS) + sub;
}
/** Lowest latency (cycles) that falls into bucket b. */
uint64_t pg_lat_bucket_lo(unsigned b);
/** Merge src into dst. */
void pg_lat_merge(struct pg_lat *dst, const struct pg_lat *src);
/** Latency (cycles) below which a fraction q of the samples lie. */
double pg_lat_quantile(const struct pg_lat *l, double q);

#endif /* PKTGEN_H */
