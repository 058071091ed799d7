/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_test_pktgen.h - what the lr-pktgen test programs (test_pktgen_send.c,
 * test_pktgen_output.c, test_pktgen_config.c, test_pktgen_ctl.c) share, in
 * lr_test_pktgen.c: each case runs the lr-pktgen binary of this build tree
 * (<build>/apps/pktgen/lr-pktgen) on net_null and net_ring ports, no
 * privileges, with its stdout and stderr in out[], and reads its final
 * line; frames captured with --capture are read back from pcap files
 * (without libpcap) and their headers and stamp checked; JSON is read
 * with jansson.
 *
 * The names are short because every case uses them many times; they
 * belong to these test programs only. A program defines LR_TEST_PG_NAME
 * (its name, e.g. "test_pktgen_send") before it includes this header: the
 * base of its EAL file prefix (EAL) and of its scratch folder (CASE).
 * One case at a time: the output buffer and the frames read are shared.
 */
#ifndef LR_TEST_PKTGEN_H
#define LR_TEST_PKTGEN_H

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <time.h>

#include <jansson.h>

#include "lr_test.h"

/** The EAL options of every run (a prefix of the program and its pid). */
#define EAL "--no-huge -m 160 --file-prefix=" LR_TEST_PG_NAME
/** Size of out[]. */
#define OUT_MAX (256 * 1024)
/* Bound on waiting for a line that says lr-pktgen is ready: only a hung
 * program reaches it (qemu on a loaded machine takes seconds to start). */
#define READY_S 120

/** The lr-pktgen binary, found by ready(). */
extern char pktgen_bin[PATH_MAX];
/** What the last run printed (see run_sig()). */
extern char out[OUT_MAX];
/** This program's scratch folder, made by ready(), removed at exit. */
extern char tmpdir[PATH_MAX];

/** A frame read from a pcap file. */
struct frame {
	uint32_t len;
	uint8_t data[9018];
};

/** The frames read by the last read_pcap(), and how many. */
extern struct frame *frames;
extern unsigned nframes;

/** Split args at spaces into argv after bin (prefix: see lr_test_pktgen.c). */
void split_args(char *args, char *bin, char **argv, int max, char *prefix,
		size_t plen);
/** SIGINT to c once it printed ready (unless NULL); its exit status. */
int sigint_when_ready(struct lr_test_child *c, const char *ready);
/** run_sig() with the args' va_list, lr-pktgen started by spawn(c, argv)
 *  (0, or -1 when it cannot start). */
int vrun_sig(int (*spawn)(struct lr_test_child *c, char *const argv[]),
	     const char *ready, const char *fmt, va_list ap);
/** Run lr-pktgen with printf-formatted args, output in out; its status. */
int run_sig(const char *ready, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/** run_sig() without a signal: lr-pktgen runs to its end. */
#define run(...) run_sig(NULL, __VA_ARGS__)
/** Run lr-pktgen with its stdout into stdout_path, stderr in out. */
int run_split(const char *stdout_path, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/** Value of key=... on the final line of out; NAN if missing. */
double field(const char *key);
/** Whether the final line ("pktgen total:") is the last of out. */
int final_line_is_last(void);

/** Skip without libpcap, else fail unless the run exited 0 with its final
 *  line last. */
#define CHECK_RUN(rc)                                                          \
	do {                                                                   \
		if (strstr(out, "built without libpcap")) {                    \
			printf("lr-pktgen has no libpcap: skipping\n");        \
			return LR_TEST_SKIP;                                   \
		}                                                              \
		LR_TEST_ASSERT((rc) == 0 && final_line_is_last(),              \
			       "lr-pktgen exit %d, output:\n%s", (rc), out);   \
	} while (0)

/** Read at most max frames of pcap file path into frames; how many, or -1. */
int read_pcap(const char *path, unsigned max);
/** Big-endian 16 and 32 bits at p. */
uint32_t be16(const uint8_t *p);
uint32_t be32(const uint8_t *p);
/** Sum of the 16-bit big-endian words of n bytes (odd: last one padded). */
uint32_t sum16(const uint8_t *p, size_t n);
/** The one's complement fold of s. */
uint16_t fold(uint32_t s);
/** Frame i is a consistent IPv4/UDP frame of ours; its size in *size. */
int check_frame(unsigned i, int udp_cksum, unsigned *size);
/** tmpdir/name.pcap (a static buffer). */
const char *cap_path(const char *name);
/** Write n frames into pcap file path; 0 or -1. */
int write_pcap(const char *path, const uint8_t *const *data,
	       const uint32_t *len, unsigned n);

/* Send count frames on net_ring0, capture them on net_ring1. */
#define RING_CAPTURE(name, count, extra)                                       \
	run(EAL " -l 0 --vdev net_ring0 --vdev net_ring1 -- --tx-ports 0 "     \
		"--rx-ports 1 --quiet --count %u --capture %s %s",             \
	    (unsigned)(count), cap_path(name), extra)

/** RING_CAPTURE(name, count, extra) run to its end (CHECK_RUN()), its
 *  count frames read back into frames, each consistent (check_frame());
 *  0, LR_TEST_SKIP without libpcap, or -1 after a message. Inline in
 *  the programs: the run's EAL options name the program. */
#ifdef LR_TEST_PG_NAME
static inline int
ring_frames(const char *name, unsigned count, const char *extra, int udp_cksum)
{
	unsigned size;
	int rc = RING_CAPTURE(name, count, extra);

	CHECK_RUN(rc);
	LR_TEST_ASSERT_EQ(read_pcap(cap_path(name), 2 * count + 10), count);
	for (unsigned i = 0; i < nframes; i++)
		if (check_frame(i, udp_cksum, &size))
			return -1;
	return 0;
}
#endif
/** The size of captured frame i with its FCS (as check_frame() gives). */
#define FRAME_SIZE(i) (frames[i].len + 4)
/** Start lr-pktgen on a net_ring pair beside the test; wait for ready. */
int start_pktgen(struct lr_test_child *c, const char *name, const char *opts,
		 const char *ready);
/** Start lr-pktgen with the EAL option pfx (its --file-prefix), then args
 *  (changed: split at spaces), output in out; with ready, wait until it
 *  printed that. 0, or -1 after a message (the program killed). */
int spawn_pktgen(struct lr_test_child *c, const char *pfx, char *args,
		 const char *ready);
/** The EAL options of start_pktgen()'s ports: a net_ring pair. */
#define PG_RING_VDEVS "--vdev net_ring0 --vdev net_ring1"
/** Start lr-pktgen with a control socket <tmpdir>/<name>.sock (into sock,
 *  size bytes; tmpdir and name short enough for sun_path), file prefix
 *  pgctl_<name>_<pid>: the EAL options vdevs, then the program's opts and
 *  --ctl. With ready, wait until it printed that. 0, or -1 after a
 *  message (the program killed). */
int start_ctl(struct lr_test_child *c, char *sock, size_t size,
	      const char *name, const char *vdevs, const char *opts,
	      const char *ready);
/** Seconds since t0 (CLOCK_MONOTONIC). */
double since(const struct timespec *t0);
/** The value at a path of dot-separated keys in j (a number indexes an
 *  array: "sizes.0.trials"); NULL if missing. */
json_t *jpath(json_t *j, const char *path);
/** Integer at a path of dot-separated keys in j; -1 if missing. */
long long jint(json_t *j, const char *path);
/** Number at a path of dot-separated keys in j; 0 if missing. */
double jnum(json_t *j, const char *path);
/** Write text to tmpdir/name; its path (a static buffer) or NULL. */
const char *write_text(const char *name, const char *text);
/** Run lr-pktgen-ctl with printf-formatted args into buf; its status. */
int run_ctl(char *buf, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/** Find the binary and make the scratch folder /tmp/name.XXXXXX, once:
 *  1 if ready, 0 (said) if lr-pktgen is not built. */
int ready(const char *name);

/* Every case that runs lr-pktgen first finds the binary (or skips). */
#define CASE(n)                                                                \
	static int case_##n(void)                                              \
	{                                                                      \
		return ready(LR_TEST_PG_NAME) ? test_##n() : LR_TEST_SKIP;     \
	}

#endif /* LR_TEST_PKTGEN_H */
