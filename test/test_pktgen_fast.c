/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr-pktgen on net_null and net_ring ports, no privileges: exact counts,
 * rate accuracy, the frames it builds (sizes, IMIX, field ranges,
 * checksums, pcap replay: captured through a net_ring pair with --capture
 * and read back here), loss/latency over a loop, bad options, SIGINT, JSON.
 *
 * Each case runs the lr-pktgen binary of this build tree
 * (<build>/apps/pktgen/lr-pktgen) and reads its final line.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/ioctl.h>

#include <jansson.h>

#include "lr_test.h"
/* The receive-side accounting, tested directly. */
#include "../apps/pktgen/stats.c"
/* The L3 mode's frame code, tested directly. */
#include "../apps/pktgen/l3_frame.c"

#define EAL	"--no-huge -m 160 --file-prefix=test_pktgen_fast"
#define OUT_MAX (256 * 1024)
/* Bound on waiting for a line that says lr-pktgen is ready: only a hung
 * program reaches it (qemu on a loaded machine takes seconds to start). */
#define READY_S 120

static char pktgen_bin[PATH_MAX];
static char out[OUT_MAX];
static char tmpdir[PATH_MAX];

static int
find_binary(void)
{
	return lr_test_build_path(pktgen_bin, sizeof(pktgen_bin),
				  "apps/pktgen/lr-pktgen");
}

/* Split args at spaces into argv, after argv[0] = bin: at most max - 1
 * entries, then NULL. With prefix, a --file-prefix=NAME gets "_<pid>"
 * added (written there), so that every run of this test has its own. */
static void
split_args(char *args, char *bin, char **argv, int max, char *prefix,
	   size_t plen)
{
	char *save = NULL;
	int argc = 0;

	argv[argc++] = bin;
	for (char *t = strtok_r(args, " ", &save); t && argc < max - 1;
	     t = strtok_r(NULL, " ", &save)) {
		if (prefix != NULL && strncmp(t, "--file-prefix=", 14) == 0)
			t = lr_test_prefix_arg(prefix, plen, t + 14);
		argv[argc++] = t;
	}
	argv[argc] = NULL;
}

/* Wait until child c printed ready (unless NULL), send it SIGINT and
 * reap it: its exit status, -1 if it did not exit normally, -2 if it
 * never printed ready (after READY_S seconds; killed then). */
static int
sigint_when_ready(struct lr_test_child *c, const char *ready)
{
	if (ready != NULL) {
		if (lr_test_child_wait_for(c, ready, READY_S) != 0) {
			kill(c->pid, SIGKILL);
			lr_test_child_finish(c, READY_S);
			fprintf(stderr, "lr-pktgen never printed '%s':\n%s\n",
				ready, out);
			return -2;
		}
		kill(c->pid, SIGINT);
	}
	return lr_test_child_finish(c, 10 * READY_S);
}

/* Run lr-pktgen with the space-separated args (after the binary name);
 * stdout and stderr go to out. A --file-prefix=NAME gets "_<pid>" added, so
 * that every run of this test has its own prefix. If ready is not NULL,
 * wait until lr-pktgen printed it, then send SIGINT. Returns the exit
 * status, -1 if it did not exit normally, -2 if it never printed ready
 * (after READY_S seconds; killed then). */
static int
run_sig(const char *ready, const char *fmt, ...)
{
	char args[4096], *argv[128], prefix[80];
	struct lr_test_child c;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	split_args(args, pktgen_bin, argv, 128, prefix, sizeof(prefix));
	if (lr_test_spawn(&c, pktgen_bin, argv, out, OUT_MAX) != 0)
		return -1;
	return sigint_when_ready(&c, ready);
}

#define run(...) run_sig(NULL, __VA_ARGS__)

/* Run lr-pktgen as run() does, but with its stdout into the file
 * stdout_path and only its stderr into out. The exit status, or -1. */
static int
run_split(const char *stdout_path, const char *fmt, ...)
{
	char args[4096], *argv[128], prefix[80], err[PATH_MAX];
	int status, fd;
	FILE *f;
	size_t n;
	va_list ap;
	pid_t pid;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	split_args(args, pktgen_bin, argv, 128, prefix, sizeof(prefix));
	snprintf(err, sizeof(err), "%s.stderr", stdout_path);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		cpu_set_t all;

		CPU_ZERO(&all);
		for (int i = 0; i < CPU_SETSIZE; i++)
			CPU_SET(i, &all);
		sched_setaffinity(0, sizeof(all), &all);
		fd = open(stdout_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(126);
		fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || dup2(fd, 2) < 0)
			_exit(126);
		lr_test_execv(pktgen_bin, argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	f = fopen(err, "r");
	n = f ? fread(out, 1, OUT_MAX - 1, f) : 0;
	out[n] = '\0';
	if (f)
		fclose(f);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Value of key=... on the final line; NAN if missing. */
static double
field(const char *key)
{
	const char *line = strstr(out, "pktgen total:");
	char pat[64];
	const char *p;

	if (line == NULL)
		return NAN;
	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(line, pat);
	if (p == NULL)
		return NAN;
	return strtod(p + strlen(pat), NULL);
}

static int
final_line_is_last(void)
{
	const char *line = strstr(out, "pktgen total:");
	const char *nl;

	if (line == NULL)
		return 0;
	nl = strchr(line, '\n');
	return nl != NULL && nl[1] == '\0';
}

#define CHECK_RUN(rc)                                                          \
	do {                                                                   \
		if (strstr(out, "built without libpcap")) {                    \
			printf("lr-pktgen has no libpcap: skipping\n");        \
			return LR_TEST_SKIP;                                   \
		}                                                              \
		LR_TEST_ASSERT((rc) == 0 && final_line_is_last(),              \
			       "lr-pktgen exit %d, output:\n%s", (rc), out);   \
	} while (0)

/* ---- pcap reading (the file format, without libpcap) ---- */

struct frame {
	uint32_t len;
	uint8_t data[9018];
};

static struct frame *frames;
static unsigned nframes;

static int
read_pcap(const char *path, unsigned max)
{
	FILE *f = fopen(path, "rb");
	uint32_t gh[6];

	nframes = 0;
	if (f == NULL)
		return -1;
	if (fread(gh, 4, 6, f) != 6 ||
	    (gh[0] != 0xa1b2c3d4 && gh[0] != 0xa1b23c4d) || gh[5] != 1) {
		fclose(f);
		return -1;
	}
	free(frames);
	frames = calloc(max, sizeof(*frames));
	if (frames == NULL) {
		fclose(f);
		return -1;
	}
	while (nframes < max) {
		uint32_t rh[4];

		if (fread(rh, 4, 4, f) != 4)
			break;
		if (rh[2] > sizeof(frames[0].data) ||
		    fread(frames[nframes].data, 1, rh[2], f) != rh[2]) {
			fclose(f);
			return -1;
		}
		frames[nframes++].len = rh[2];
	}
	fclose(f);
	return (int)nframes;
}

static uint32_t
be16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t
be32(const uint8_t *p)
{
	return be16(p) << 16 | be16(p + 2);
}

static uint32_t
sum16(const uint8_t *p, size_t n)
{
	uint32_t s = 0;
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		s += be16(p + i);
	if (i < n)
		s += (uint32_t)p[i] << 8;
	return s;
}

static uint16_t
fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* Headers of captured frame i are consistent; its size in *size. */
static int
check_frame(unsigned i, int udp_cksum, unsigned *size)
{
	const struct frame *fr = &frames[i];
	const uint8_t *d = fr->data;

	LR_TEST_ASSERT(fr->len >= 60, "frame %u: %u bytes", i, fr->len);
	LR_TEST_ASSERT(be16(d + 12) == 0x0800 && d[14] == 0x45 && d[23] == 17,
		       "frame %u: not IPv4/UDP", i);
	LR_TEST_ASSERT(be16(d + 16) == fr->len - 14,
		       "frame %u: IP length %u for %u bytes", i, be16(d + 16),
		       fr->len);
	LR_TEST_ASSERT(be16(d + 38) == fr->len - 34,
		       "frame %u: UDP length %u for %u bytes", i, be16(d + 38),
		       fr->len);
	LR_TEST_ASSERT(fold(sum16(d + 14, 20)) == 0xffff,
		       "frame %u: bad IPv4 checksum %04x", i, be16(d + 24));
	LR_TEST_ASSERT(
	    be16(d + 42 + PG_ST_CHECK) ==
		pg_stamp_check(be32(d + 42), (uint16_t)be16(d + 46),
			       be32(d + 48),
			       (uint64_t)be16(d + 52) << 32 | be32(d + 54)),
	    "frame %u: stamp check fails", i);
	if (udp_cksum) {
		uint32_t s = sum16(d + 26, 8) + 17 + (fr->len - 34) +
			     sum16(d + 34, fr->len - 34);

		LR_TEST_ASSERT(be16(d + 40) != 0 && fold(s) == 0xffff,
			       "frame %u: bad UDP checksum %04x", i,
			       be16(d + 40));
	} else {
		LR_TEST_ASSERT(be16(d + 40) == 0, "frame %u: UDP checksum set",
			       i);
	}
	*size = fr->len + 4;
	return 0;
}

static const char *
cap_path(const char *name)
{
	static char p[PATH_MAX + 64];

	snprintf(p, sizeof(p), "%s/%s.pcap", tmpdir, name);
	return p;
}

/* Send count frames on net_ring0, capture them on net_ring1. */
#define RING_CAPTURE(name, count, extra)                                       \
	run(EAL " -l 0 --vdev net_ring0 --vdev net_ring1 -- --tx-ports 0 "     \
		"--rx-ports 1 --quiet --count %u --capture %s %s",             \
	    (unsigned)(count), cap_path(name), extra)

/* ---- cases ---- */

static int
test_count_exact(void)
{
	int rc = run(EAL " -l 0 --vdev net_null0 -- --tx-only --quiet "
			 "--count 100001");

	CHECK_RUN(rc);
	LR_TEST_ASSERT_EQ(field("tx"), 100001);
	rc = run(EAL " -l 0-1 --vdev net_null0 --vdev net_null1 -- --quiet "
		     "--tx-only --count 77777 --queues 2");
	CHECK_RUN(rc);
	LR_TEST_ASSERT_EQ(field("tx"), 77777);
	LR_TEST_ASSERT(strstr(out, "not back in") == NULL, "%s", out);
	return 0;
}

static int
test_ring_loop(void)
{
	int rc = run(EAL " -l 0 --vdev net_ring0 --vdev net_ring1 -- --quiet "
			 "--count 200000 --queues 2");

	CHECK_RUN(rc);
	LR_TEST_ASSERT_EQ(field("tx"), 200000);
	LR_TEST_ASSERT_EQ(field("rx"), 200000);
	LR_TEST_ASSERT_EQ(field("rx_own"), 200000);
	LR_TEST_ASSERT_EQ(field("lost"), 0);
	LR_TEST_ASSERT_EQ(field("dup"), 0);
	LR_TEST_ASSERT_EQ(field("reordered"), 0);
	LR_TEST_ASSERT(field("lat_min_us") <= field("lat_p50_us") &&
			   field("lat_p50_us") <= field("lat_p99_us") &&
			   field("lat_p99_us") <= field("lat_p999_us") &&
			   field("lat_p999_us") <= field("lat_max_us") &&
			   field("lat_p50_us") > 0 &&
			   field("lat_max_us") < 10e6,
		       "latency figures out of order: %s", out);
	/* One direction only: everything sent on 0 arrives on 1. */
	rc = run(EAL " -l 0-1 --vdev net_ring0 --vdev net_ring1 -- --quiet "
		     "--count 50000 --tx-ports 0 --rx-ports 1");
	CHECK_RUN(rc);
	LR_TEST_ASSERT_EQ(field("rx_own"), 50000);
	LR_TEST_ASSERT_EQ(field("lost"), 0);
	/* --drain-all: the drain ends once every frame is back, not after
	 * its ten minutes; the pool is whole at the end. */
	rc = run(EAL " -l 0 --vdev net_ring0 --vdev net_ring1 -- --quiet "
		     "--count 1000 --drain-ms 600000 --drain-all");
	CHECK_RUN(rc);
	LR_TEST_ASSERT_EQ(field("rx_own"), 1000);
	LR_TEST_ASSERT_EQ(field("lost"), 0);
	LR_TEST_ASSERT(strstr(out, "mbufs in use after stop: 0\n"), "%s", out);
	return 0;
}

/* Run a paced case until key is within 1% of want, at most 3 times: a
 * host so busy that the generator is off its CPU for longer than the
 * bucket (1 s here) cannot be paced by anyone, so one bad attempt is
 * retried; the figure of every attempt is printed. */
static int
rate_close(const char *args, const char *key, double want, const char *key2,
	   double want2)
{
	for (int attempt = 1; attempt <= 3; attempt++) {
		int rc = run(EAL " -l 0 --vdev net_null0 -- --tx-only --quiet "
				 "--bucket-ms 1000 %s",
			     args);
		double got = field(key), got2 = key2 ? field(key2) : 1;

		if (key2 == NULL)
			want2 = 1;

		CHECK_RUN(rc);
		printf("%s: %s = %.6f (want %.6f)", args, key, got, want);
		if (key2)
			printf(", %s = %.6f (want %.6f)", key2, got2, want2);
		printf(", cpu_s %.3f\n", field("cpu_s"));
		if (fabs(got / want - 1) < 0.01 &&
		    fabs(got2 / want2 - 1) < 0.01)
			return 0;
	}
	LR_TEST_ASSERT(0, "rate off by more than 1%% three times:\n%s", out);
	return -1;
}

static int
test_rate_pps(void)
{
	return rate_close("--rate-pps 200k --duration 2", "tx_mpps", 0.2, "tx",
			  400000);
}

/* Rate accuracy on a net_null port from 10 kframes/s to 90% of what the
 * generator sends unpaced here: over a second, the frames sent are within
 * 0.5% of the rate asked, or the run says it missed the rate (tx_behind:
 * the host kept the generator off its CPU longer than --bucket-ms). A run
 * that misses is tried again (3 times), and a host that never lets it
 * keep up leaves that rate unchecked, said so; a rate off without saying
 * so fails at once. */
static int
test_rate_accuracy(void)
{
	double rates[5] = {10e3, 100e3, 1e6, 10e6, 0}, max;
	int rc = run(EAL " -l 0 --vdev net_null0 -- --tx-only --quiet "
			 "--duration 0.5");

	CHECK_RUN(rc);
	max = field("tx_mpps") * 1e6;
	rates[4] = 0.9 * max;
	printf("unpaced: %.0f frames/s\n", max);
	for (int i = 0; i < 5; i++) {
		bool done = false;

		if (rates[i] > 0.9 * max)
			continue;
		for (int attempt = 1; attempt <= 3 && !done; attempt++) {
			double tx, behind, off;

			rc = run(EAL " -l 0 --vdev net_null0 -- --tx-only "
				     "--quiet --rate-pps %.0f --duration 1",
				 rates[i]);
			CHECK_RUN(rc);
			tx = field("tx");
			behind = field("tx_behind");
			off = tx / rates[i] - 1;
			printf("--rate-pps %.0f attempt %d: tx %.0f (%+.3f%%), "
			       "tx_behind %.0f\n",
			       rates[i], attempt, tx, 100 * off, behind);
			LR_TEST_ASSERT(behind > 0 || fabs(off) <= 0.005,
				       "%.0f frames/s: sent %.0f, off by "
				       "%+.3f%% and no rate missed said:\n%s",
				       rates[i], tx, 100 * off, out);
			done = behind == 0;
		}
		if (!done)
			printf("--rate-pps %.0f: the host never let the generator "
			       "keep up (rate missed said each time): not "
			       "checked\n",
			       rates[i]);
	}
	return 0;
}

static int
test_rate_bits(void)
{
	/* Wire bits of varying sizes: IMIX at 400 Mbit/s. */
	if (rate_close("--imix --rate-mbps 400 --duration 1.5", "tx_gbps", 0.4,
		       NULL, 0))
		return -1;
	/* 2% of 10 Gbit/s with 64-byte frames: 297619 frames/s. */
	return rate_close("--rate-pct 2 --duration 1.5", "tx_gbps", 0.2,
			  "tx_mpps", 0.2e9 / (84 * 8) / 1e6);
}

static int
test_size_range(void)
{
	unsigned size, lo = 2000, hi = 0;
	int rc = RING_CAPTURE("range", 30, "--size 64-100 --size-step 4");

	CHECK_RUN(rc);
	LR_TEST_ASSERT_EQ(read_pcap(cap_path("range"), 100), 30);
	for (unsigned i = 0; i < nframes; i++) {
		if (check_frame(i, 0, &size))
			return -1;
		LR_TEST_ASSERT_EQ(size, 64 + 4 * (i % 10));
		LR_TEST_ASSERT_EQ(be32(frames[i].data + 48), i);
	}
	rc = RING_CAPTURE("rrange", 3000, "--size 64-1518 --random");
	CHECK_RUN(rc);
	LR_TEST_ASSERT_EQ(read_pcap(cap_path("rrange"), 4000), 3000);
	for (unsigned i = 0; i < nframes; i++) {
		if (check_frame(i, 0, &size))
			return -1;
		LR_TEST_ASSERT(size >= 64 && size <= 1518, "size %u", size);
		lo = size < lo ? size : lo;
		hi = size > hi ? size : hi;
	}
	LR_TEST_ASSERT(lo < 120 && hi > 1460, "random sizes %u..%u", lo, hi);
	return 0;
}

static int
test_imix(void)
{
	unsigned n64 = 0, n570 = 0, n1518 = 0, size;
	int rc = RING_CAPTURE("imix", 1200, "--imix");

	CHECK_RUN(rc);
	LR_TEST_ASSERT_EQ(read_pcap(cap_path("imix"), 2000), 1200);
	for (unsigned i = 0; i < nframes; i++) {
		if (check_frame(i, 0, &size))
			return -1;
		n64 += size == 64;
		n570 += size == 570;
		n1518 += size == 1518;
	}
	LR_TEST_ASSERT(n64 == 700 && n570 == 400 && n1518 == 100,
		       "IMIX %u/%u/%u", n64, n570, n1518);
	n64 = n570 = n1518 = 0;
	rc = RING_CAPTURE("rimix", 12000, "--imix --random --seed 7");
	CHECK_RUN(rc);
	LR_TEST_ASSERT_EQ(read_pcap(cap_path("rimix"), 13000), 12000);
	for (unsigned i = 0; i < nframes; i++) {
		if (check_frame(i, 0, &size))
			return -1;
		n64 += size == 64;
		n570 += size == 570;
		n1518 += size == 1518;
	}
	LR_TEST_ASSERT_EQ(n64 + n570 + n1518, 12000);
	LR_TEST_ASSERT(fabs(n64 / 7000.0 - 1) < 0.06 &&
			   fabs(n570 / 4000.0 - 1) < 0.08 &&
			   fabs(n1518 / 1000.0 - 1) < 0.15,
		       "random IMIX %u/%u/%u", n64, n570, n1518);
	return 0;
}

#define FIELDS                                                                 \
	"--src-ip 10.0.0.1-10.0.0.3 --dst-ip 192.168.1.10-192.168.1.11 "       \
	"--src-port 1000-1004 --dst-port 7 "                                   \
	"--dst-mac 02:00:00:00:00:10-02:00:00:00:00:11 "                       \
	"--src-mac 02:00:00:00:00:aa"

static int
test_fields(void)
{
	unsigned size, seen_sip = 0, seen_sport = 0;
	int rc = RING_CAPTURE("fields", 60, FIELDS);

	CHECK_RUN(rc);
	LR_TEST_ASSERT_EQ(read_pcap(cap_path("fields"), 100), 60);
	for (unsigned i = 0; i < nframes; i++) {
		const uint8_t *d = frames[i].data;

		if (check_frame(i, 0, &size))
			return -1;
		LR_TEST_ASSERT_EQ(size, 64);
		/* The cartesian product, the destination MAC fastest, then
		 * source IP, destination IP, source port: 2 x 3 x 2 x 5 = 60
		 * frames, each combination once (before, every field
		 * stepped at once: 30 combinations, each twice). */
		LR_TEST_ASSERT_EQ(d[5], 0x10 + i % 2);
		LR_TEST_ASSERT_EQ(be32(d + 26), 0x0a000001 + i / 2 % 3);
		LR_TEST_ASSERT_EQ(be32(d + 30), 0xc0a8010a + i / 6 % 2);
		LR_TEST_ASSERT_EQ(be16(d + 34), 1000 + i / 12 % 5);
		LR_TEST_ASSERT_EQ(be16(d + 36), 7);
		LR_TEST_ASSERT(d[0] == 2 && d[1] == 0 && d[4] == 0 &&
				   d[11] == 0xaa && d[6] == 2,
			       "frame %u: MACs", i);
	}
	rc = RING_CAPTURE("rfields", 600, FIELDS " --random");
	CHECK_RUN(rc);
	LR_TEST_ASSERT_EQ(read_pcap(cap_path("rfields"), 1000), 600);
	for (unsigned i = 0; i < nframes; i++) {
		const uint8_t *d = frames[i].data;
		uint32_t sip = be32(d + 26), sport = be16(d + 34);

		if (check_frame(i, 0, &size))
			return -1;
		LR_TEST_ASSERT(sip >= 0x0a000001 && sip <= 0x0a000003,
			       "src ip %08x", sip);
		LR_TEST_ASSERT(sport >= 1000 && sport <= 1004, "port %u",
			       sport);
		LR_TEST_ASSERT(d[5] == 0x10 || d[5] == 0x11, "dst mac");
		seen_sip |= 1u << (sip - 0x0a000001);
		seen_sport |= 1u << (sport - 1000);
	}
	LR_TEST_ASSERT(seen_sip == 7 && seen_sport == 31,
		       "random values do not cover the ranges: %x %x", seen_sip,
		       seen_sport);
	/* Addresses over their whole range (every carry of the checksum's
	 * update from the template's, and 0.0.0.0, 255.255.255.255), at 64
	 * and 1000 bytes: the IPv4 checksum of each frame holds. */
	for (int k = 0; k < 2; k++) {
		rc = RING_CAPTURE("wfields", 2000,
				  k ? "--src-ip 0.0.0.0-255.255.255.255 "
				      "--dst-ip 255.255.0.0-255.255.255.255 "
				      "--src-port 0-65535 --random --size 1000"
				    : "--src-ip 0.0.0.0-255.255.255.255 "
				      "--dst-ip 255.255.255.0-255.255.255.255 "
				      "--dst-port 0-65535 --random");
		CHECK_RUN(rc);
		LR_TEST_ASSERT_EQ(read_pcap(cap_path("wfields"), 3000), 2000);
		for (unsigned i = 0; i < nframes; i++) {
			if (check_frame(i, 0, &size))
				return -1;
			LR_TEST_ASSERT_EQ(size, k ? 1000 : 64);
		}
	}
	return 0;
}

static int
test_udp_cksum(void)
{
	unsigned size;
	int rc =
	    RING_CAPTURE("udp", 500,
			 "--udp-cksum --size 64-300 --src-ip "
			 "10.1.0.1-10.1.0.200 --dst-port 1-65535 --random");

	CHECK_RUN(rc);
	LR_TEST_ASSERT_EQ(read_pcap(cap_path("udp"), 600), 500);
	for (unsigned i = 0; i < nframes; i++)
		if (check_frame(i, 1, &size))
			return -1;
	/* The fixed template path checksums too. */
	rc = RING_CAPTURE("udp1", 10, "--udp-cksum --size 200");
	CHECK_RUN(rc);
	LR_TEST_ASSERT_EQ(read_pcap(cap_path("udp1"), 20), 10);
	for (unsigned i = 0; i < nframes; i++)
		if (check_frame(i, 1, &size))
			return -1;
	return 0;
}

static int
write_pcap(const char *path, const uint8_t *const *data, const uint32_t *len,
	   unsigned n)
{
	uint32_t gh[6] = {0xa1b2c3d4, 0x00040002, 0, 0, 65535, 1};
	FILE *f = fopen(path, "wb");

	if (f == NULL)
		return -1;
	fwrite(gh, 4, 6, f);
	for (unsigned i = 0; i < n; i++) {
		uint32_t rh[4] = {1700000000 + i, 0, len[i], len[i]};

		fwrite(rh, 4, 4, f);
		fwrite(data[i], 1, len[i], f);
	}
	return fclose(f);
}

static int
test_pcap_replay(void)
{
	static uint8_t a[60], b[100], c[333];
	const uint8_t *data[3] = {a, b, c};
	const uint32_t len[3] = {sizeof(a), sizeof(b), sizeof(c)};
	char in[PATH_MAX + 64];
	int rc;

	for (unsigned i = 0; i < sizeof(c); i++) {
		if (i < sizeof(a))
			a[i] = (uint8_t)(i * 3);
		if (i < sizeof(b))
			b[i] = (uint8_t)(i * 5 + 1);
		c[i] = (uint8_t)(i * 7 + 2);
	}
	a[12] = 0x88; /* not IPv4: nothing of ours */
	snprintf(in, sizeof(in), "%s/in.pcap", tmpdir);
	LR_TEST_ASSERT(write_pcap(in, data, len, 3) == 0, "writing %s", in);
	rc = run(EAL " -l 0 --vdev net_ring0 --vdev net_ring1 -- --tx-ports 0 "
		     "--rx-ports 1 --quiet --count 7 --pcap %s --capture %s",
		 in, cap_path("replay"));
	CHECK_RUN(rc);
	LR_TEST_ASSERT_EQ(field("rx_own"), 0);
	LR_TEST_ASSERT_EQ(read_pcap(cap_path("replay"), 10), 7);
	for (unsigned i = 0; i < 7; i++) {
		LR_TEST_ASSERT_EQ(frames[i].len, len[i % 3]);
		LR_TEST_ASSERT(
		    memcmp(frames[i].data, data[i % 3], len[i % 3]) == 0,
		    "replayed frame %u differs", i);
	}
	/* A capture of our own frames replays with fresh stamps. */
	rc = RING_CAPTURE("own", 5, "--size 128");
	CHECK_RUN(rc);
	rc = run(EAL " -l 0 --vdev net_ring0 --vdev net_ring1 -- --tx-ports 0 "
		     "--rx-ports 1 --quiet --count 20 --pcap %s",
		 cap_path("own"));
	CHECK_RUN(rc);
	LR_TEST_ASSERT_EQ(field("rx_own"), 20);
	LR_TEST_ASSERT_EQ(field("lost"), 0);
	LR_TEST_ASSERT_EQ(field("dup"), 0);

	/* A link type libpcap has no name for is named by its number. */
	uint32_t gh[6] = {0xa1b2c3d4, 0x00040002, 0, 0, 65535, 4242};
	FILE *f = fopen(in, "wb");

	LR_TEST_ASSERT(f && fwrite(gh, 4, 6, f) == 6 && fclose(f) == 0,
		       "writing %s", in);
	rc = run(EAL " -l 0 --vdev net_ring0 --vdev net_ring1 -- --tx-ports 0 "
		     "--rx-ports 1 --quiet --count 1 --pcap %s",
		 in);
	LR_TEST_ASSERT(rc == 2 && strstr(out, "link type unknown (4242)"),
		       "link type 4242: exit %d:\n%s", rc, out);
	return 0;
}

/* A pcap file cut inside its last record (a capture killed with -9) is
 * replayed from its whole records with a warning; a bad record inside the
 * file (an impossible caplen with more file after it) is refused, naming
 * the record. */
static int
test_pcap_cut_and_corrupt(void)
{
	static uint8_t a[60], b[100], c[333];
	const uint8_t *data[3] = {a, b, c};
	uint32_t len[3] = {sizeof(a), sizeof(b), sizeof(c)};
	char in[PATH_MAX + 64];
	struct stat st;
	int rc;

	for (unsigned i = 0; i < sizeof(c); i++) {
		if (i < sizeof(a))
			a[i] = (uint8_t)(i * 3);
		if (i < sizeof(b))
			b[i] = (uint8_t)(i * 5 + 1);
		c[i] = (uint8_t)(i * 7 + 2);
	}
	a[12] = b[12] = 0x88; /* not IPv4: nothing of ours */
	snprintf(in, sizeof(in), "%s/cut.pcap", tmpdir);
	LR_TEST_ASSERT(write_pcap(in, data, len, 3) == 0, "writing %s", in);
	LR_TEST_ASSERT(stat(in, &st) == 0 &&
			   truncate(in, st.st_size - 100) == 0,
		       "cutting %s", in);
	rc = run(EAL " -l 0 --vdev net_ring0 --vdev net_ring1 -- --tx-ports 0 "
		     "--rx-ports 1 --quiet --count 5 --pcap %s --capture %s",
		 in, cap_path("cut"));
	CHECK_RUN(rc);
	LR_TEST_ASSERT(strstr(out, "cut.pcap': warning: the last record (3) "
				   "is truncated") &&
			   strstr(out, "using the 2 records before it"),
		       "no warning about the cut record:\n%s", out);
	LR_TEST_ASSERT_EQ(read_pcap(cap_path("cut"), 10), 5);
	for (unsigned i = 0; i < 5; i++)
		LR_TEST_ASSERT(
		    frames[i].len == len[i % 2] &&
			memcmp(frames[i].data, data[i % 2], len[i % 2]) == 0,
		    "replayed frame %u differs", i);

	/* The middle record's caplen is impossible. */
	snprintf(in, sizeof(in), "%s/corrupt.pcap", tmpdir);
	LR_TEST_ASSERT(write_pcap(in, data, len, 3) == 0, "writing %s", in);
	FILE *f = fopen(in, "r+b");
	uint32_t bad = 0x7ffffff0;

	LR_TEST_ASSERT(f != NULL, "opening %s", in);
	LR_TEST_ASSERT(fseek(f, 24 + 16 + sizeof(a) + 8, SEEK_SET) == 0 &&
			   fwrite(&bad, 4, 1, f) == 1 && fclose(f) == 0,
		       "corrupting %s", in);
	rc = run(EAL " -l 0 --vdev net_ring0 --vdev net_ring1 -- --tx-ports 0 "
		     "--rx-ports 1 --quiet --count 5 --pcap %s",
		 in);
	LR_TEST_ASSERT(rc == 2 && strstr(out, "corrupt.pcap': record 2 is "
					      "corrupt ("),
		       "corrupt file: exit %d, output:\n%s", rc, out);
	return 0;
}

/* Capture files are created 0600 whatever the umask (000 here) unless
 * --capture-mode says otherwise. */
static int
test_capture_mode(void)
{
	struct stat st1, st2;
	mode_t old = umask(0);
	int rc1, rc2;

	unlink(cap_path("mode1"));
	unlink(cap_path("mode2"));
	rc1 = RING_CAPTURE("mode1", 5, "");
	rc2 = RING_CAPTURE("mode2", 5, "--capture-mode 0640");
	umask(old);
	CHECK_RUN(rc1);
	CHECK_RUN(rc2);
	LR_TEST_ASSERT(stat(cap_path("mode1"), &st1) == 0 &&
			   stat(cap_path("mode2"), &st2) == 0,
		       "no capture files");
	LR_TEST_ASSERT((st1.st_mode & 07777) == 0600,
		       "capture mode %04o under umask 000, want 0600",
		       (unsigned)(st1.st_mode & 07777));
	LR_TEST_ASSERT((st2.st_mode & 07777) == 0640,
		       "--capture-mode 0640 gave %04o",
		       (unsigned)(st2.st_mode & 07777));
	return 0;
}

/* A full file system under --capture (a 256 KiB tmpfs, as root): lr-pktgen
 * stops with an error naming the file and exits 1, and the file ends on
 * a whole record. /dev/full fails at once. */
static int
test_capture_disk_full(void)
{
	char mnt[PATH_MAX + 16], path[PATH_MAX + 32], cmd[PATH_MAX + 96];
	char want[PATH_MAX + 160];
	struct stat st;
	int rc, n;

	if (geteuid() != 0) {
		printf("capture_disk_full: needs root to mount a small tmpfs: "
		       "skipping\n");
		return LR_TEST_SKIP;
	}
	snprintf(mnt, sizeof(mnt), "%s/small", tmpdir);
	LR_TEST_ASSERT(mkdir(mnt, 0700) == 0, "mkdir %s", mnt);
	snprintf(cmd, sizeof(cmd), "mount -t tmpfs -o size=256k lrtest '%s'",
		 mnt);
	if (system(cmd) != 0) {
		rmdir(mnt);
		printf("capture_disk_full: cannot mount a tmpfs: skipping\n");
		return LR_TEST_SKIP;
	}
	snprintf(path, sizeof(path), "%s/full.pcap", mnt);
	rc = run(EAL " -l 0 --vdev net_ring0 --vdev net_ring1 -- --tx-ports 0 "
		     "--rx-ports 1 --quiet --count 2000 --size 1500 "
		     "--capture %s",
		 path);
	n = read_pcap(path, 4000);
	if (stat(path, &st) != 0)
		st.st_size = -1;
	snprintf(cmd, sizeof(cmd), "umount '%s'", mnt);
	if (system(cmd) != 0 || rmdir(mnt) != 0)
		fprintf(stderr, "cannot remove %s\n", mnt);
	snprintf(want, sizeof(want),
		 "--capture '%s': cannot write: No space left on device", path);
	LR_TEST_ASSERT(rc == 1 && strstr(out, want),
		       "full disk: exit %d, output:\n%s", rc, out);
	LR_TEST_ASSERT(n > 0 && n < 2000, "%d whole records", n);
	LR_TEST_ASSERT_EQ(st.st_size, 24 + (long)n * (16 + 1496));

	rc = run(EAL " -l 0 --vdev net_ring0 --vdev net_ring1 -- --tx-ports 0 "
		     "--rx-ports 1 --quiet --count 10 --capture /dev/full");
	LR_TEST_ASSERT(rc == 1 && strstr(out, "--capture '/dev/full': cannot "
					      "write: No space left on device"),
		       "/dev/full: exit %d, output:\n%s", rc, out);
	return 0;
}

static int
test_bad_options(void)
{
	static const struct {
		const char *args;
		int status;
		const char *msg;
	} cases[] = {
	    {"--size 63", 2, "--size '63': below 64"},
	    {"--size 100-64", 2, "high to low"},
	    {"--size 9999", 2, "above 9018"},
	    {"--rate-pps fast", 2, "--rate-pps 'fast': expected a number"},
	    {"--rate-pct 150", 2, "--rate-pct '150': out of range"},
	    {"--rate-pps 1k --rate-mbps 5", 2, "give one"},
	    {"--src-ip 300.1.1.1", 2, "--src-ip '300.1.1.1'"},
	    {"--dst-mac 02:00:00:00:00", 2, "--dst-mac '02:00:00:00:00'"},
	    {"--src-port 70000", 2, "--src-port '70000': out of range"},
	    {"--burst 0", 2, "--burst '0': out of range"},
	    {"--count", 2, "'--count' needs a value"},
	    {"--bogus", 2, "unknown option '--bogus'"},
	    {"--tx-only --rx-only", 2, "give one"},
	    {"--imix --size 64", 2, "--size and --imix"},
	    {"--size-step 4", 2, "--size-step needs a size range"},
	    {"--ports 3", 2, "port 3: no such port"},
	    {"--portmask zz", 2, "--portmask 'zz'"},
	    {"--pcap /nonexistent/x.pcap", 2, "--pcap '/nonexistent/x.pcap'"},
	    {"--capture-mode 0999", 2,
	     "--capture-mode '0999': expected octal permission bits"},
	    {"--capture-mode 1777", 2, "--capture-mode '1777'"},
	    {"--capture-mode 0640", 2, "--capture-mode needs --capture FILE"},
	    {"--rx-only --count 5", 2, "--rx-only sends nothing"},
	    {"--stats-period 0", 2, "--stats-period '0': out of range"},
	    {"stray", 2, "unexpected argument 'stray'"},
	    {"--link-wait -1", 2, "--link-wait '-1': out of range"},
	    {"--link-wait soon", 2, "--link-wait 'soon': expected a number"},
	    {"--mbufs 10", 2,
	     "--mbufs '10': expected N or MIN-MAX with MIN <= MAX, MAX in "
	     "64.."},
	    {"--mbufs 5000-100", 2, "--mbufs '5000-100'"},
	    {"--mbufs 100-", 2, "--mbufs '100-'"},
	    {"--mbufs-idle soon", 2, "--mbufs-idle 'soon': expected a number"},
	    {"--proto sctp", 2, "--proto 'sctp': expected udp, tcp or icmp"},
	    {"--vlan 4096", 2, "--vlan '4096': out of range"},
	    {"--vlan 1 --vlan 2 --vlan 3", 2, "--vlan '3': at most two"},
	    {"--ipv6 --src-ip 10.0.0.1", 2,
	     "--src-ip '10.0.0.1': expected an IPv6 address"},
	    {"--ipv6 --size 64", 2, "at least 84 bytes"},
	    {"--profile x.json --size 100", 2,
	     "--profile defines the streams: --size does not apply"},
	    {"--profile /nonexistent.json", 2,
	     "--profile '/nonexistent.json': cannot open: No such file"},
	    {"--speed 2", 2, "--speed needs --replay FILE"},
	    {"--replay x.pcap --rate-pps 5", 2,
	     "--replay sends at the capture's timing"},
	    {"--replay x.pcap --speed 0", 2, "--speed '0': out of range"},
	    {"--ctl /nonexistent/dir/c.sock --count 1", 1,
	     "--ctl '/nonexistent/dir/c.sock': No such file or directory"},
	    {"--idle --count 1", 2,
	     "--idle waits for a \"start\" request: it needs --ctl PATH"},
	    {"--idle --ctl x.sock --rx-only", 2, "--idle and --rx-only"},
	    {"--rfc2544 jitter", 2,
	     "--rfc2544 'jitter': expected throughput, latency, frame-loss "
	     "or back-to-back"},
	    {"--pdr-loss 1", 2,
	     "--pdr-loss needs --rfc2544 (throughput, latency, frame-loss or "
	     "back-to-back)"},
	    {"--rfc2544 throughput --latency-loads 50", 2,
	     "--latency-loads applies to --rfc2544 latency"},
	    {"--rfc2544 latency --latency-loads 50,101", 2,
	     "--latency-loads '50,101': expected percent of the NDR above 0 "
	     "and at most 100"},
	    {"--rfc2544 back-to-back --loss-step 5", 2,
	     "--loss-step applies to --rfc2544 frame-loss"},
	    {"--rfc2544 frame-loss --tx-full later", 2,
	     "--tx-full 'later': expected drop or wait"},
	    {"--rfc2544 throughput --duration 1", 2,
	     "--duration does not apply"},
	    {"--rfc2544 throughput --rate-pps 1k", 2,
	     "--rate-pps/--rate-mbps/--rate-pct does not apply"},
	    {"--rfc2544 throughput --rfc2544-sizes 63,imix", 2,
	     "--rfc2544-sizes '63,imix': expected frame sizes 64..9018"},
	    {"--rfc2544 throughput --max-rate fast", 2,
	     "--max-rate 'fast': expected a rate above 0"},
	    {"--rfc2544 throughput --min-rate 2k --max-rate 1k", 2,
	     "--min-rate 2000 is above --max-rate 1000: no rate to search"},
	    {"--rfc2544 throughput --max-rate 1k --min-rate 5%", 2,
	     "--min-rate 5% (744048 frames/s at 64 B) is above --max-rate "
	     "1000 (1000 frames/s at 64 B): no rate to search"},
	    {"--rfc2544 throughput --max-rate 20M", 2,
	     "--max-rate 20000000 (20000000 frames/s at 64 B) is above the "
	     "line rate of the sending ports at 64 B: 14880952 frames/s"},
	    {"--rfc2544 throughput --ipv6 --rfc2544-sizes 64", 2,
	     "at least 84 bytes"},
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = run(EAL " -l 0 --vdev net_null0 -- %s", cases[i].args);

		LR_TEST_ASSERT(
		    rc == cases[i].status && strstr(out, cases[i].msg) != NULL,
		    "'%s': exit %d (want %d), want '%s' in:\n%s", cases[i].args,
		    rc, cases[i].status, cases[i].msg, out);
	}
	int rc = run(EAL " -l 0 -- --count 5");

	LR_TEST_ASSERT(rc == 2 && strstr(out, "no ports") != NULL,
		       "no --vdev: exit %d:\n%s", rc, out);
	return 0;
}

static int
test_sigint(void)
{
	/* SIGINT once it has sent for a second: its first per-second
	 * line says so (it has installed its handlers long before). */
	int rc = run_sig("s] port 1: tx",
			 EAL " -l 0 --vdev net_ring0 --vdev net_ring1 "
			     "-- --rate-pps 100k");

	CHECK_RUN(rc);
	LR_TEST_ASSERT(field("tx") > 1000, "%s", out);
	LR_TEST_ASSERT_EQ(field("lost"), 0);
	LR_TEST_ASSERT(strstr(out, "summary") != NULL, "no summary:\n%s", out);
	LR_TEST_ASSERT(strstr(out, "not back in") == NULL, "%s", out);
	/* Full speed, two lcores. */
	rc = run_sig("s] port 0: tx",
		     EAL " -l 0-1 --vdev net_null0 -- --tx-only");
	CHECK_RUN(rc);
	LR_TEST_ASSERT(field("tx") > 1000, "%s", out);
	return 0;
}

/* Start lr-pktgen on a net_ring pair with prefix name and the given
 * program options; wait for ready. 0, or -1 after a message. */
static int
start_pktgen(struct lr_test_child *c, const char *name, const char *opts,
	     const char *ready)
{
	char args[1024], *argv[64], *save = NULL, pfx[128];
	int argc = 0;

	snprintf(pfx, sizeof(pfx), "--file-prefix=%s", name);
	snprintf(
	    args, sizeof(args),
	    "--no-huge -m 160 -l 0 --vdev net_ring0 --vdev net_ring1 -- %s",
	    opts);
	argv[argc++] = pktgen_bin;
	argv[argc++] = pfx;
	for (char *t = strtok_r(args, " ", &save); t && argc < 63;
	     t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	argv[argc] = NULL;
	LR_TEST_ASSERT(lr_test_spawn(c, pktgen_bin, argv, out, OUT_MAX) == 0,
		       "cannot start %s", pktgen_bin);
	if (lr_test_child_wait_for(c, ready, READY_S) != 0) {
		kill(c->pid, SIGKILL);
		lr_test_child_finish(c, READY_S);
		LR_TEST_ASSERT(0, "lr-pktgen never printed '%s':\n%s", ready,
			       out);
	}
	return 0;
}

/* A stop signal during the drain ends it at once, the first one (the run
 * ended by --count) or a second one of any kind (the first ended the
 * sending): --drain-ms 600000 must not keep it for ten minutes. */
static int
test_stop_during_drain(void)
{
	struct lr_test_child c;
	char name[96], what[512];
	int rc;

	lr_test_prefix_arg(name, sizeof(name), "test_pktgen_drain");
	memmove(name, name + 14, strlen(name + 14) + 1);
	if (start_pktgen(&c, name, "--count 100 --drain-ms 600000",
			 "Ctrl-C ends it") != 0)
		return -1;
	kill(c.pid, SIGINT);
	/* Bounded for the old behaviour (600 s), not for speed. */
	rc = lr_test_child_finish(&c, READY_S);
	LR_TEST_ASSERT(rc == 0 && final_line_is_last(),
		       "SIGINT in the drain: exit %d (-3: still draining):\n%s",
		       rc, out);
	LR_TEST_ASSERT(field("tx") == 100 && field("rx_own") == 100,
		       "counts:\n%s", out);
	LR_TEST_ASSERT(!lr_test_leftovers(name, what, sizeof(what)),
		       "%s left behind", what);

	if (start_pktgen(&c, name, "--rate-pps 10k --drain-ms 600000",
			 "s] port 1: tx") != 0)
		return -1;
	kill(c.pid, SIGINT);
	if (lr_test_child_wait_for(&c, "Ctrl-C ends it", READY_S) != 0) {
		kill(c.pid, SIGKILL);
		lr_test_child_finish(&c, READY_S);
		LR_TEST_ASSERT(0, "no drain after SIGINT:\n%s", out);
	}
	kill(c.pid, SIGHUP);
	rc = lr_test_child_finish(&c, READY_S);
	LR_TEST_ASSERT(rc == 0 && final_line_is_last(),
		       "SIGINT, then SIGHUP in the drain: exit %d:\n%s", rc,
		       out);
	LR_TEST_ASSERT(!lr_test_leftovers(name, what, sizeof(what)),
		       "%s left behind", what);
	return 0;
}

/* Every terminating signal ends a run as SIGINT does: the final line,
 * exit 0, nothing left of its prefix; -h exits 0 without an error. */
static int
test_stop_signals(void)
{
	static const int sigs[] = {SIGHUP,  SIGPIPE, SIGQUIT,
				   SIGUSR1, SIGUSR2, SIGTERM};
	struct lr_test_child c;
	char name[96], what[512];
	int rc;

	lr_test_prefix_arg(name, sizeof(name), "test_pktgen_stop");
	memmove(name, name + 14, strlen(name + 14) + 1);
	for (unsigned i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		if (start_pktgen(&c, name, "--rate-pps 10k --drain-ms 50",
				 "s] port 1: tx") != 0)
			return -1;
		kill(c.pid, sigs[i]);
		rc = lr_test_child_finish(&c, READY_S);
		LR_TEST_ASSERT(rc == 0 && final_line_is_last(),
			       "signal %d: exit %d (-1: killed):\n%s", sigs[i],
			       rc, out);
		LR_TEST_ASSERT(field("lost") == 0, "signal %d:\n%s", sigs[i],
			       out);
		LR_TEST_ASSERT(!lr_test_leftovers(name, what, sizeof(what)),
			       "signal %d: %s left behind", sigs[i], what);
	}
	rc = run("-h");
	LR_TEST_ASSERT(rc == 0 && strstr(out, "EAL options:") &&
			   !strstr(out, "failed"),
		       "-h: exit %d:\n%s", rc, out);
	return 0;
}

/* --stats-period: a first line with the period and the TSC rate, then,
 * also under --quiet, one line per port per period with its cumulative
 * counters and a common timestamp; never decreasing, never above the final
 * totals. The run is rate-limited to at least 1 s, so several periods of
 * 0.1 s pass whatever the machine's speed. */
static int
test_stats_period(void)
{
	double last_t = -1, tsc_hz = 0, ip[2] = {0, 0}, op[2] = {0, 0};
	unsigned lines = 0, times = 0;
	const char *p;
	int rc = run(EAL " -l 0 --vdev net_ring0 --vdev net_ring1 -- --quiet "
			 "--stats-period 0.1 --rate-pps 2000 --count 2000");

	CHECK_RUN(rc);
	LR_TEST_ASSERT(strstr(out, "] port 0:") == NULL, "--quiet:\n%s", out);
	p = strstr(out, "stats period_s=0.1 tsc_hz=");
	LR_TEST_ASSERT(p != NULL, "no stats header line:\n%s", out);
	tsc_hz = strtod(p + strlen("stats period_s=0.1 tsc_hz="), NULL);
	LR_TEST_ASSERT(tsc_hz > 1e6, "tsc_hz %.0f:\n%s", tsc_hz, out);
	for (p = strstr(out, "stats t="); p; p = strstr(p + 1, "stats t=")) {
		double t, ipk, opk;
		unsigned port, ln = lines;

		LR_TEST_ASSERT(sscanf(p,
				      "stats t=%lf port=%u ipackets=%lf "
				      "opackets=%lf ibytes=",
				      &t, &port, &ipk, &opk) == 4 &&
				   port < 2,
			       "stats line %u unreadable:\n%s", ln, out);
		LR_TEST_ASSERT(t >= last_t && ipk >= ip[port] &&
				   opk >= op[port],
			       "stats line %u goes backwards:\n%s", ln, out);
		/* Port 0 opens each period, port 1 has port 0's time. */
		LR_TEST_ASSERT(port == (t > last_t ? 0 : 1),
			       "stats line %u: port %u at t=%f:\n%s", ln, port,
			       t, out);
		times += t > last_t;
		last_t = t;
		ip[port] = ipk;
		op[port] = opk;
		lines++;
	}
	LR_TEST_ASSERT(times >= 2 && lines == 2 * times,
		       "%u stats lines at %u times:\n%s", lines, times, out);
	LR_TEST_ASSERT(op[0] + op[1] <= field("tx") &&
			   ip[0] + ip[1] <= field("rx") && op[0] + op[1] > 0,
		       "stats lines above the totals:\n%s", out);
	return 0;
}

static long long jint(json_t *j, const char *path);

/* Seconds since t0. */
static double
since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) +
	       (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Run lr-pktgen on net_ring0 alone (it takes 1,024 frames, then refuses
 * every one: nobody reads its ring) with the options opts; it must end
 * within max_s, exit 1 and name the port that stopped taking frames. */
static int
stall_run(const char *opts, double max_s)
{
	struct timespec t0;
	double secs;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = run(EAL " -l 0 --vdev net_ring0 -- --drain-ms 0 %s", opts);
	secs = since(&t0);
	printf("%s: exit %d after %.2f s\n", opts, rc, secs);
	LR_TEST_ASSERT(secs < max_s, "%s: took %.2f s to end (at most %.1f)",
		       opts, secs, max_s);
	LR_TEST_ASSERT(rc == 1 && final_line_is_last() && field("tx") == 1024,
		       "%s: exit %d (want 1), output:\n%s", opts, rc, out);
	LR_TEST_ASSERT(strstr(out, "port 0 (net_ring0): transmit refused "
				   "every frame for ") &&
			   strstr(out, ": the port stopped taking frames\n"),
		       "%s: the stall is not said:\n%s", opts, out);
	return 0;
}

/* A port that stops taking frames (net_ring0 alone) must not keep the
 * generator from ending: --duration ends on time, paced or not, a --count
 * it cannot reach ends a second (PG_STALL_MS) after the port stopped;
 * the run fails (exit 1) naming the port, since when and for how long it
 * refused; the JSON says so and its counts stay positive. Before: a paced
 * run ignored --duration for ever, its instance count was -1026. */
static int
test_refusing_port(void)
{
	char jpath[PATH_MAX + 64];
	json_error_t e;
	json_t *doc, *inst, *st;
	double refused;
	int rc;

	if (stall_run("--tx-only --duration 0.3", 3) != 0 ||
	    stall_run("--rate-pps 50k --count 1M", 3.5) != 0)
		return -1;
	snprintf(jpath, sizeof(jpath), "%s/stall.json", tmpdir);
	rc = run_split(jpath,
		       EAL " -l 0 --vdev net_ring0 -- --drain-ms 0 --json "
			   "--rate-pps 50k --duration 0.6");
	LR_TEST_ASSERT(rc == 1 && strstr(out, "the port stopped taking frames"),
		       "exit %d:\n%s", rc, out);
	doc = json_load_file(jpath, 0, &e);
	LR_TEST_ASSERT(doc != NULL, "%s: line %d: %s", jpath, e.line, e.text);
	inst = json_object_get(
	    json_array_get(
		json_object_get(json_object_get(doc, "config"), "streams"), 0),
	    "instances");
	st = json_array_get(
	    json_object_get(json_object_get(doc, "results"), "stalls"), 0);
	refused = json_number_value(json_object_get(st, "refused_s"));
	LR_TEST_ASSERT(
	    jint(json_array_get(inst, 0), "count") == 0 &&
		jint(doc, "results.tx") == 1024 && jint(st, "port") == 0 &&
		refused > 0.5 && refused < 0.7 &&
		json_number_value(json_object_get(st, "since_s")) < 0.1 &&
		json_is_true(json_object_get(json_object_get(doc, "results"),
					     "rate_missed")),
	    "JSON: count %lld, tx %lld, stall port %lld for %.3f s",
	    jint(json_array_get(inst, 0), "count"), jint(doc, "results.tx"),
	    jint(st, "port"), refused);
	json_decref(doc);
	return 0;
}

/* --rfc2544 throughput on a net_ring pair (nothing lost): every size's
 * NDR and PDR are the max rate, said to be held back by it; the JSON
 * document holds them, the latency percentiles at the NDR per stream, and
 * every trial with its verdict. */
static int
test_rfc2544(void)
{
	char jpath[PATH_MAX + 64];
	json_error_t e;
	json_t *doc, *sizes;
	int rc;

	snprintf(jpath, sizeof(jpath), "%s/rfc.json", tmpdir);
	rc =
	    run(EAL " -l 0 --vdev net_ring0 --vdev net_ring1 -- --tx-ports 0 "
		    "--rx-ports 1 --rfc2544 throughput --rfc2544-sizes 64,imix "
		    "--max-rate 20k --trial-s 0.05 --final-trial-s 0.1 "
		    "--drain-ms 50 --json %s",
		jpath);
	LR_TEST_ASSERT(rc == 0 && strstr(out, "=== RFC 2544 throughput") &&
			   strstr(out, "\n64 B           20000 ") &&
			   strstr(out, "\nIMIX           20000 ") &&
			   strstr(out,
				  "64 B: NDR 20000 frames/s, within 0 of the "
				  "max rate (--max-rate or the line rate)"),
		       "exit %d:\n%s", rc, out);
	doc = json_load_file(jpath, 0, &e);
	LR_TEST_ASSERT(doc != NULL, "%s: line %d: %s", jpath, e.line, e.text);
	sizes = json_object_get(json_object_get(doc, "rfc2544"), "sizes");
	LR_TEST_ASSERT(json_array_size(sizes) == 2, "sizes");
	for (size_t i = 0; i < 2; i++) {
		json_t *z = json_array_get(sizes, i);
		json_t *tr = json_object_get(z, "trials");
		json_t *lat = json_object_get(
		    json_array_get(json_object_get(z, "latency_at_ndr_us"), 0),
		    "latency_us");
		json_t *t0 = json_array_get(tr, 0);

		LR_TEST_ASSERT(
		    jint(z, "ndr.pps") == 20000 &&
			jint(z, "pdr.pps") == 20000 &&
			jint(z, "line_rate_pps") > 0 &&
			json_is_string(json_object_get(
			    json_object_get(z, "ndr"), "limited_by")) &&
			json_array_size(tr) >= 2 &&
			jint(t0, "rate_pps") == 20000 &&
			jint(t0, "tx") == 1000 && jint(t0, "rx") == 1000 &&
			jint(t0, "lost") == 0 &&
			strcmp(
			    json_string_value(json_object_get(t0, "verdict")),
			    "valid") == 0 &&
			strcmp(json_string_value(json_object_get(t0, "ndr")),
			       "pass") == 0 &&
			jint(lat, "n") > 0 && jint(lat, "p9999") >= 0 &&
			json_number_value(json_object_get(lat, "min")) <=
			    json_number_value(json_object_get(lat, "p50")) &&
			json_number_value(json_object_get(lat, "p50")) <=
			    json_number_value(json_object_get(lat, "max")),
		    "size %zu in the JSON document", i);
	}
	json_decref(doc);
	return 0;
}

/* --rfc2544 against a device that forwards nothing (net_null: what it
 * hands back is not ours): NDR 0, said, exit 1, in few trials; against a
 * port that stops taking frames (net_ring0 alone): the search stops on
 * time, naming the port, exit 1. */
static int
test_rfc2544_fail(void)
{
	struct timespec t0;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = run(EAL " -l 0 --vdev net_null0 -- --rfc2544 throughput "
		     "--rfc2544-sizes 64 --max-rate 10k --trial-s 0.05 "
		     "--final-trial-s 0.1 --drain-ms 10");
	LR_TEST_ASSERT(rc == 1 &&
			   strstr(out,
				  "64 B: NDR 0: every trial lost frames, "
				  "down to the min rate of 200 frames/s") &&
			   strstr(out, "\n64 B               0 "),
		       "drops everything: exit %d:\n%s", rc, out);
	LR_TEST_ASSERT(strstr(out, "trial 3 ") == NULL,
		       "more than 2 trials:\n%s", out);
	rc = run(EAL " -l 0 --vdev net_ring0 -- --rfc2544 throughput "
		     "--rfc2544-sizes 64 --max-rate 50k --trial-s 0.2");
	LR_TEST_ASSERT(rc == 1 &&
			   strstr(out, "port 0 (net_ring0): transmit refused "
				       "every frame for ") &&
			   strstr(out, "the port stopped taking frames"),
		       "stall: exit %d:\n%s", rc, out);
	LR_TEST_ASSERT(since(&t0) < 5, "took %.1f s", since(&t0));
	/* The same port where a frame it refuses is the device's loss
	 * (--tx-full drop): refusing every frame for a second is still a
	 * port that stopped taking frames, not a loss rate. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = run(EAL " -l 0 --vdev net_ring0 -- --rfc2544 throughput "
		     "--rfc2544-sizes 64 --max-rate 50k --trial-s 1.5 "
		     "--tx-full drop");
	LR_TEST_ASSERT(rc == 1 &&
			   strstr(out, "(--tx-full drop)") &&
			   strstr(out, "refused: ring full") &&
			   strstr(out, "the port stopped taking frames"),
		       "stall with --tx-full drop: exit %d:\n%s", rc, out);
	LR_TEST_ASSERT(since(&t0) < 5, "took %.1f s", since(&t0));
	return 0;
}

/* net_null's receive hands back the generator's own buffers with their
 * old contents: none of them counts as received, duplicated or late
 * (before the run id, the check value and the receive pool of its own:
 * rx 264 Mpps, millions of duplicates, a latency of half a second). */
static int
test_stale_frames(void)
{
	int rc = run(EAL " -l 0 --vdev net_null0,size=64 -- --rate-pps 100k "
			 "--duration 2");

	CHECK_RUN(rc);
	LR_TEST_ASSERT(field("tx") > 1000, "%s", out);
	LR_TEST_ASSERT(field("rx") == 0 && field("rx_own") == 0 &&
			   field("dup") == 0 && field("reordered") == 0 &&
			   field("lat_max_us") == 0,
		       "stale frames counted:\n%s", out);
	LR_TEST_ASSERT(field("lost") == field("tx") && field("rx_other") > 0,
		       "%s", out);
	return 0;
}

/* Frames of another run (captured, then fed back by net_pcap) have the
 * right layout and a valid check value but not this run's id: not ours. */
static int
test_other_run(void)
{
	int rc = RING_CAPTURE("other", 100, "");

	CHECK_RUN(rc);
	rc = run(EAL " -l 0 --vdev net_pcap0,rx_pcap=%s,tx_pcap=%s/o.pcap -- "
		     "--quiet --count 10",
		 cap_path("other"), tmpdir);
	if (strstr(out, "no driver 'net_pcap'") != NULL) {
		printf("net_pcap not built: skipping\n");
		return LR_TEST_SKIP;
	}
	CHECK_RUN(rc);
	LR_TEST_ASSERT(field("tx") == 10 && field("rx") == 0 &&
			   field("rx_other") == 100 && field("dup") == 0 &&
			   field("lost") == 10,
		       "frames of another run counted:\n%s", out);
	return 0;
}

/* 50 kpps for 3 s is 150000 frames: every frame of the schedule is sent
 * or counted behind it (tx_behind: the lcore was off its CPU for longer
 * than the bucket); with a bucket of a second, every frame is sent
 * (retried: a host can stall the generator longer than that). Before,
 * 145929 frames left, and nothing said so. */
static int
test_pacing_low_rate(void)
{
	int rc = run(EAL " -l 0 --vdev net_null0 -- --tx-only --quiet "
			 "--rate-pps 50k --duration 3");

	CHECK_RUN(rc);
	LR_TEST_ASSERT(fabs(field("tx") + field("tx_behind") - 150000) <= 1,
		       "tx + tx_behind != 150000:\n%s", out);
	for (int attempt = 1; attempt <= 3; attempt++) {
		rc = run(EAL " -l 0 --vdev net_null0 -- --tx-only --quiet "
			     "--rate-pps 50k --duration 3 --bucket-ms 1000");
		CHECK_RUN(rc);
		printf("attempt %d: tx %.0f tx_behind %.0f\n", attempt,
		       field("tx"), field("tx_behind"));
		if (field("tx_behind") == 0) {
			LR_TEST_ASSERT(fabs(field("tx") - 150000) <= 150, "%s",
				       out);
			return 0;
		}
	}
	LR_TEST_ASSERT(0, "behind the schedule three times:\n%s", out);
	return -1;
}

/* A rate no port or lcore reaches: said in the live lines and the
 * summary, with units. */
static int
test_rate_missed(void)
{
	int rc = run(EAL " -l 0 --vdev net_null0 -- --tx-only "
			 "--rate-pps 10G --duration 1.5");

	CHECK_RUN(rc);
	LR_TEST_ASSERT(field("tx_behind") > 0 &&
			   strstr(out, "s] rate missed: ") &&
			   strstr(out, "\nrate missed: ") &&
			   strstr(out, " of 1e+04 Mpps (") == NULL &&
			   strstr(out, " of 10000 Mpps ("),
		       "missed rate not reported:\n%s", out);
	/* A rate it reaches is on schedule: a sender descheduled for tens of
	 * milliseconds (a loaded machine) falls behind for real, so three
	 * tries, as pacing_low_rate does. */
	for (int attempt = 1; attempt <= 3; attempt++) {
		rc = run(EAL " -l 0 --vdev net_null0 -- --tx-only --quiet "
			     "--rate-pps 1k --count 100");
		CHECK_RUN(rc);
		if (field("tx_behind") == 0) {
			LR_TEST_ASSERT(strstr(out, " of 0.001 Mpps, on schedule"),
				       "%s", out);
			return 0;
		}
		printf("attempt %d: tx_behind %.0f\n", attempt,
		       field("tx_behind"));
	}
	LR_TEST_ASSERT(0, "behind the schedule three times:\n%s", out);
	return -1;
}

/* Integer at a path of dot-separated keys in j; -1 if missing. */
static long long
jint(json_t *j, const char *path)
{
	char buf[128], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, ".", &save); k && j;
	     k = strtok_r(NULL, ".", &save))
		j = json_object_get(j, k);
	return json_is_number(j) ? (long long)json_number_value(j) : -1;
}

/* --json: stdout holds exactly one JSON document (jansson refuses
 * anything after it) with the configuration and the results, every other
 * line is on stderr, which ends with the 'pktgen total:' line;
 * --stats-json: one JSON object a line, a line a second and one at the
 * end, counters never going back. */
static int
test_json_output(void)
{
	char jpath[PATH_MAX + 64], spath[PATH_MAX + 64], line[8192];
	json_error_t e;
	json_t *doc, *st;
	double last_t = -1, last_tx = 0;
	unsigned nlines = 0;
	FILE *f;
	int rc;

	snprintf(jpath, sizeof(jpath), "%s/out.json", tmpdir);
	snprintf(spath, sizeof(spath), "%s/stats.jsonl", tmpdir);
	rc = run_split(jpath,
		       EAL " -l 0 --vdev net_ring0 --vdev net_ring1 -- --json "
			   "--count 1000 --rate-pps 800 --stats-json %s",
		       spath);
	CHECK_RUN(rc);
	LR_TEST_ASSERT(strstr(out, "mbufs in use after stop: 0\n") &&
			   strstr(out, "] port 0: tx"),
		       "stderr:\n%s", out);
	doc = json_load_file(jpath, 0, &e);
	LR_TEST_ASSERT(doc != NULL, "%s: line %d: %s", jpath, e.line, e.text);
	st = json_object_get(json_object_get(doc, "config"), "streams");
	LR_TEST_ASSERT(jint(doc, "config.rate.value") == 800 &&
			   jint(doc, "config.count") == 1000 &&
			   json_array_size(st) == 1 &&
			   jint(json_array_get(st, 0), "size.min") == 64 &&
			   json_array_size(json_object_get(
			       json_array_get(st, 0), "instances")) == 2,
		       "configuration in the JSON document");
	LR_TEST_ASSERT(jint(doc, "results.tx") == 1000 &&
			   jint(doc, "results.rx") == 1000 &&
			   jint(doc, "results.rx_own") == 1000 &&
			   jint(doc, "results.lost") == 0 &&
			   jint(doc, "results.latency_us.n") == 1000 &&
			   jint(doc, "results.latency_us.p99") >= 0 &&
			   json_array_size(json_object_get(
			       json_object_get(json_object_get(doc, "results"),
					       "latency_us"),
			       "histogram")) > 0,
		       "results in the JSON document");
	st = json_object_get(json_object_get(doc, "results"), "streams");
	LR_TEST_ASSERT(json_array_size(st) == 1 &&
			   jint(json_array_get(st, 0), "tx") == 1000 &&
			   jint(json_array_get(st, 0), "rx") == 1000 &&
			   jint(json_array_get(st, 0), "latency_us.n") == 1000,
		       "per-stream results");
	json_decref(doc);
	f = fopen(spath, "r");
	LR_TEST_ASSERT(f != NULL, "no %s", spath);
	while (fgets(line, sizeof(line), f)) {
		json_t *l = json_loads(line, 0, &e);
		json_t *ports;
		double t, tx = 0;

		LR_TEST_ASSERT(l != NULL, "stats line %u: %s", nlines, e.text);
		t = json_number_value(json_object_get(l, "t"));
		ports = json_object_get(l, "ports");
		for (size_t i = 0; i < json_array_size(ports); i++)
			tx += (double)jint(json_array_get(ports, i), "tx");
		LR_TEST_ASSERT(t > last_t && tx >= last_tx,
			       "stats line %u goes back", nlines);
		last_t = t;
		last_tx = tx;
		json_decref(l);
		nlines++;
	}
	fclose(f);
	LR_TEST_ASSERT(nlines >= 2 && last_tx == 1000,
		       "%u stats lines, last tx %.0f", nlines, last_tx);
	/* --json FILE: the document into FILE, the summary on stdout. */
	rc = run(EAL " -l 0 --vdev net_ring0 --vdev net_ring1 -- --json %s "
		     "--count 10 --quiet",
		 jpath);
	CHECK_RUN(rc);
	doc = json_load_file(jpath, 0, &e);
	LR_TEST_ASSERT(doc != NULL && jint(doc, "results.tx") == 10 &&
			   strstr(out, "=== lr-pktgen summary"),
		       "--json FILE:\n%s", out);
	json_decref(doc);
	return 0;
}

static int
test_json_and_live(void)
{
	int rc;

	/* One line per port per second. */
	rc = run(EAL " -l 0 --vdev net_ring0 --vdev net_ring1 -- "
		     "--rate-pps 10k --duration 2.2");
	CHECK_RUN(rc);
	LR_TEST_ASSERT(strstr(out, "] port 0: tx ") &&
			   strstr(out, "] port 1: tx ") &&
			   strstr(out, "| drops 0"),
		       "no live lines:\n%s", out);
	/* The elastic pool's line among them. */
	LR_TEST_ASSERT(strstr(out, "mbuf pool: ") && strstr(out, "(elastic ") &&
			   strstr(out, "growths "),
		       "no pool line:\n%s", out);
	rc = run(EAL " -l 0 --vdev net_null0 -- --quiet --count 10 --tx-only "
		     "--xstats");
	CHECK_RUN(rc);
	LR_TEST_ASSERT(strstr(out, "] port 0:") == NULL, "--quiet:\n%s", out);
	/* --xstats: the port's dump with its non-zero extended stats. */
	LR_TEST_ASSERT(strstr(out, "port 0: net_null0 driver net_null") &&
			   strstr(out, "xstats: tx_good_packets 10,") &&
			   strstr(out, "mbuf pool 'pktgen_pool' xstats:\n"
				       "  mbufs: "),
		       "--xstats:\n%s", out);
	/* --mbufs N: a fixed pool. */
	rc = run(EAL " -l 0 --vdev net_null0 -- --quiet --count 10 --tx-only "
		     "--xstats --mbufs 4096");
	CHECK_RUN(rc);
	LR_TEST_ASSERT(strstr(out, "mbuf pool 'pktgen_pool': 4096 mbufs "
				   "(fixed)"),
		       "--mbufs 4096:\n%s", out);
	return 0;
}

/* ---- streams: header kinds, field engine, sizes, profiles ---- */

/* Write text to tmpdir/name; its path. */
static const char *
write_text(const char *name, const char *text)
{
	static char p[PATH_MAX + 64];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", tmpdir, name);
	f = fopen(p, "w");
	if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0)
		return NULL;
	return p;
}

/* Frame i has ntags VLAN tags (outer TPID tpid0), IPv4 or IPv6, L4
 * protocol proto (17, 6, 1 or 58) with right lengths and checksums and a
 * stamp whose check holds right after the transport header. *l4 gets the
 * transport header's offset. */
static int
check_headers(unsigned i, unsigned ntags, unsigned tpid0, int v6,
	      unsigned proto, unsigned *l4)
{
	const struct frame *fr = &frames[i];
	const uint8_t *d = fr->data, *st;
	unsigned off = 12, l3, hl, len = fr->len;
	uint32_t s;

	for (unsigned t = 0; t < ntags; t++) {
		LR_TEST_ASSERT_EQ(be16(d + off), t == 0 ? tpid0 : 0x8100);
		off += 4;
	}
	LR_TEST_ASSERT_EQ(be16(d + off), v6 ? 0x86dd : 0x0800);
	l3 = off + 2;
	if (v6) {
		LR_TEST_ASSERT_EQ(d[l3] >> 4, 6);
		LR_TEST_ASSERT_EQ(d[l3 + 6], proto);
		LR_TEST_ASSERT_EQ(be16(d + l3 + 4), len - l3 - 40);
		*l4 = l3 + 40;
	} else {
		LR_TEST_ASSERT_EQ(d[l3], 0x45);
		LR_TEST_ASSERT_EQ(d[l3 + 9], proto);
		LR_TEST_ASSERT_EQ(be16(d + l3 + 2), len - l3);
		LR_TEST_ASSERT(fold(sum16(d + l3, 20)) == 0xffff,
			       "frame %u: bad IPv4 checksum", i);
		*l4 = l3 + 20;
	}
	hl = proto == 6 ? 20u : 8u;
	if (proto == 17)
		LR_TEST_ASSERT_EQ(be16(d + *l4 + 4), len - *l4);
	if (proto == 6)
		LR_TEST_ASSERT_EQ(d[*l4 + 12] >> 4, 5);
	/* Transport checksum: over the pseudo header too, but ICMPv4. */
	s = sum16(d + *l4, len - *l4);
	if (v6)
		s += sum16(d + l3 + 8, 32) + proto + (len - *l4);
	else if (proto != 1)
		s += sum16(d + l3 + 12, 8) + proto + (len - *l4);
	if (proto != 17 || v6 || be16(d + *l4 + 6) != 0)
		LR_TEST_ASSERT(fold(s) == 0xffff,
			       "frame %u: bad L4 (%u) checksum", i, proto);
	st = d + *l4 + hl;
	LR_TEST_ASSERT(
	    be16(st + PG_ST_CHECK) ==
		pg_stamp_check(be32(st), (uint16_t)be16(st + 4), be32(st + 6),
			       (uint64_t)be16(st + 10) << 32 | be32(st + 12)),
	    "frame %u: stamp check fails", i);
	LR_TEST_ASSERT_EQ(be32(st + 6), i);
	return 0;
}

/* Each header kind from the command line, on the wire: tags, IPv4 and
 * IPv6, UDP, TCP and ICMP, lengths and checksums, the stamp after them;
 * the receiving port finds every frame (rx_own). */
static int
test_header_kinds(void)
{
	static const struct {
		const char *args;
		unsigned ntags, tpid0, proto;
		int v6;
	} k[] = {
	    {"--proto tcp", 0, 0, 6, 0},
	    {"--proto icmp", 0, 0, 1, 0},
	    {"--vlan 100 --udp-cksum", 1, 0x8100, 17, 0},
	    {"--vlan 100 --vlan 200 --proto tcp", 2, 0x88a8, 6, 0},
	    {"--ipv6", 0, 0, 17, 1},
	    {"--ipv6 --proto tcp --vlan 7", 1, 0x8100, 6, 1},
	    {"--ipv6 --proto icmp --size 200", 0, 0, 58, 1},
	};

	for (unsigned c = 0; c < sizeof(k) / sizeof(k[0]); c++) {
		unsigned l4;
		int rc = RING_CAPTURE("hdr", 20, k[c].args);

		CHECK_RUN(rc);
		LR_TEST_ASSERT(field("rx_own") == 20 && field("lost") == 0,
			       "%s: own frames not found:\n%s", k[c].args, out);
		LR_TEST_ASSERT_EQ(read_pcap(cap_path("hdr"), 40), 20);
		for (unsigned i = 0; i < nframes; i++) {
			const uint8_t *d = frames[i].data;

			if (check_headers(i, k[c].ntags, k[c].tpid0, k[c].v6,
					  k[c].proto, &l4))
				return -1;
			if (k[c].ntags)
				LR_TEST_ASSERT_EQ(be16(d + 14) & 0xfff,
						  k[c].ntags == 2 ? 100u
						  : k[c].v6	  ? 7u
								  : 100u);
			if (k[c].ntags == 2)
				LR_TEST_ASSERT_EQ(be16(d + 18), 200);
			if (k[c].proto == 1)
				LR_TEST_ASSERT(d[l4] == 8 && d[l4 + 1] == 0,
					       "ICMP echo request");
			if (k[c].proto == 58)
				LR_TEST_ASSERT_EQ(d[l4], 128);
			if (k[c].v6) {
				unsigned l3 = 14 + 4 * k[c].ntags;

				LR_TEST_ASSERT(d[l3 + 8] == 0xfd &&
						   d[l3 + 23] == 1 &&
						   d[l3 + 39] == 2,
					       "IPv6 default addresses");
			}
		}
		/* IPv6 + UDP + stamp: 62 + 18 + 4 > 64: the default size
		 * grows to fit. */
		if (k[c].v6 && k[c].proto == 17)
			LR_TEST_ASSERT_EQ(frames[0].len, 80);
	}
	return 0;
}

/* The field engine from a profile: decrementing and incrementing fields
 * make their cartesian product (the first one fastest), a random one
 * stays in its range and covers it, IPv6 ranges over the low bits;
 * weighted sizes come in their proportions, spread. */
static int
test_profile_fields(void)
{
	const char *prof = write_text(
	    "fields.json",
	    "{\"streams\": [{\"name\": \"f\", \"ipv6\": true,"
	    " \"src_ip\": {\"from\": \"2001:db8::10\", \"to\": "
	    "\"2001:db8::12\", \"mode\": \"dec\"},"
	    " \"vlan\": {\"from\": 10, \"to\": 11}, \"vlan_pcp\": 5,"
	    " \"src_port\": {\"from\": 100, \"to\": 106, \"step\": 3},"
	    " \"dst_port\": {\"from\": 1, \"to\": 4, \"mode\": \"random\"},"
	    " \"payload\": \"hex:a5\","
	    " \"size\": [[100, 3], [200, 1]]}]}");
	unsigned sizes[2] = {0, 0}, seen = 0, l4;
	int rc;

	LR_TEST_ASSERT(prof != NULL, "writing the profile");
	rc = run(EAL " -l 0 --vdev net_ring0 --vdev net_ring1 -- --tx-ports 0 "
		     "--rx-ports 1 --quiet --count 72 --profile %s --capture "
		     "%s",
		 prof, cap_path("pf"));
	CHECK_RUN(rc);
	LR_TEST_ASSERT_EQ(field("rx_own"), 72);
	LR_TEST_ASSERT_EQ(read_pcap(cap_path("pf"), 100), 72);
	for (unsigned i = 0; i < nframes; i++) {
		const uint8_t *d = frames[i].data;
		unsigned dport;

		if (check_headers(i, 1, 0x8100, 1, 17, &l4))
			return -1;
		/* vlan (2) x src_ip (3, down) x src_port (3): the random
		 * dst_port is outside the product. */
		LR_TEST_ASSERT_EQ(be16(d + 14), (5u << 13) | (10 + i % 2));
		LR_TEST_ASSERT_EQ(d[18 + 8 + 15], 0x12 - i / 2 % 3);
		LR_TEST_ASSERT_EQ(be32(d + 18 + 8), 0x20010db8);
		LR_TEST_ASSERT_EQ(be16(d + l4), 100 + 3 * (i / 6 % 3));
		dport = be16(d + l4 + 2);
		LR_TEST_ASSERT(dport >= 1 && dport <= 4, "dst port %u", dport);
		seen |= 1u << dport;
		LR_TEST_ASSERT(frames[i].len + 4 == 100 ||
				   frames[i].len + 4 == 200,
			       "size %u", frames[i].len + 4);
		sizes[frames[i].len + 4 == 200]++;
		LR_TEST_ASSERT(d[l4 + 8 + 18] == 0xa5 &&
				   d[frames[i].len - 1] == 0xa5,
			       "payload pattern");
		/* 3:1, spread: never two 200s in a row. */
		if (i > 0)
			LR_TEST_ASSERT(frames[i].len + 4 == 100 ||
					   frames[i - 1].len + 4 == 100,
				       "sizes bunch up at %u", i);
	}
	LR_TEST_ASSERT(sizes[0] == 54 && sizes[1] == 18, "sizes %u/%u",
		       sizes[0], sizes[1]);
	LR_TEST_ASSERT_EQ(seen, 0x1e);
	return 0;
}

/* Three streams: two at rates of their own, one sharing --rate-pps with
 * nothing else; each gets its rate within 1% over 2 s (all of them, or
 * their sum, behind the schedule: retried, as a busy host may stall the
 * generator longer than the bucket); every frame comes back. */
static int
test_profile_rates(void)
{
	const char *prof = write_text(
	    "rates.json",
	    "{\"streams\": ["
	    "{\"name\": \"slow\", \"rate_pps\": 1000, \"proto\": \"tcp\"},"
	    "{\"name\": \"mid\", \"rate_pps\": 3000, \"size\": 128},"
	    "{\"name\": \"shared\", \"share\": 2, \"proto\": \"icmp\","
	    " \"ipv6\": true}]}");
	char jpath[PATH_MAX + 64];
	static const double want[3] = {2000, 6000, 10000};

	LR_TEST_ASSERT(prof != NULL, "writing the profile");
	snprintf(jpath, sizeof(jpath), "%s/rates.json.out", tmpdir);
	for (int attempt = 1; attempt <= 3; attempt++) {
		json_error_t e;
		json_t *doc, *st;
		int ok = 1;
		int rc = run_split(
		    jpath,
		    EAL " -l 0 --vdev net_ring0 --vdev net_ring1 -- "
			"--tx-ports 0 --rx-ports 1 --json --rate-pps 5000 "
			"--duration 2 --bucket-ms 1000 --profile %s",
		    prof);

		CHECK_RUN(rc);
		doc = json_load_file(jpath, 0, &e);
		LR_TEST_ASSERT(doc != NULL, "%s: %s", jpath, e.text);
		st =
		    json_object_get(json_object_get(doc, "results"), "streams");
		LR_TEST_ASSERT_EQ(json_array_size(st), 3);
		for (unsigned k = 0; k < 3; k++) {
			json_t *s = json_array_get(st, k);
			double tx = (double)jint(s, "tx");

			printf(
			    "attempt %d: stream %u tx %.0f (want %.0f), rx "
			    "%lld, jitter %.3f us\n",
			    attempt, k, tx, want[k], jint(s, "rx"),
			    json_number_value(json_object_get(s, "jitter_us")));
			LR_TEST_ASSERT(
			    jint(s, "rx") == (long long)tx &&
				jint(s, "lost") == 0 &&
				jint(s, "latency_us.n") == (long long)tx,
			    "stream %u: rx %lld of %.0f", k, jint(s, "rx"), tx);
			ok &= fabs(tx / want[k] - 1) < 0.01;
		}
		json_decref(doc);
		if (ok)
			return 0;
	}
	LR_TEST_ASSERT(0, "rates off by more than 1%% three times");
	return -1;
}

/* A single burst, and bursts with gaps between them: counts and the
 * capture's times. */
static int
test_profile_bursts(void)
{
	const char *prof = write_text(
	    "bursts.json",
	    "{\"streams\": [{\"name\": \"one\", \"burst\": 25},"
	    " {\"name\": \"three\", \"burst\": 10, \"gap_us\": 50000,"
	    " \"bursts\": 3, \"src_port\": 9}]}");
	uint32_t last_ts = 0;
	unsigned n9 = 0;
	int rc;
	FILE *f;

	LR_TEST_ASSERT(prof != NULL, "writing the profile");
	rc = run(EAL " -l 0 --vdev net_ring0 --vdev net_ring1 -- --tx-ports 0 "
		     "--rx-ports 1 --quiet --profile %s --capture %s",
		 prof, cap_path("bursts"));
	CHECK_RUN(rc);
	LR_TEST_ASSERT(field("tx") == 55 && field("rx_own") == 55,
		       "bursts:\n%s", out);
	LR_TEST_ASSERT_EQ(read_pcap(cap_path("bursts"), 100), 55);
	/* The capture's record times (microseconds): 50 ms between the
	 * bursts of the second stream, never less. */
	f = fopen(cap_path("bursts"), "rb");
	LR_TEST_ASSERT(f != NULL && fseek(f, 24, SEEK_SET) == 0, "reopen");
	for (unsigned i = 0; i < nframes; i++) {
		uint32_t rh[4];
		uint64_t ts;

		LR_TEST_ASSERT(fread(rh, 4, 4, f) == 4 &&
				   fseek(f, (long)rh[2], SEEK_CUR) == 0,
			       "record %u", i);
		ts = (uint64_t)rh[0] * 1000000 + rh[1];
		if (be16(frames[i].data + 34) != 9)
			continue;
		if (n9 == 10 || n9 == 20)
			LR_TEST_ASSERT(ts - last_ts >= 49000,
				       "gap before frame %u: %llu us", n9,
				       (unsigned long long)(ts - last_ts));
		last_ts = (uint32_t)ts;
		n9++;
	}
	fclose(f);
	LR_TEST_ASSERT_EQ(n9, 30);
	return 0;
}

/* Bad profiles: a usage error (exit 2) whose message places it in the
 * file (FILE:LINE:COLUMN of the bad value, or of its stream for what the
 * stream as a whole breaks) and names the field's JSON path, the stream
 * and the value; a syntax error has jansson's position; a file that cannot
 * be read says why, never a position it does not have. */
static int
test_profile_errors(void)
{
	static const struct {
		const char *text, *pos, *msg;
	} cases[] = {
	    {"{\"streams\": [{\"nmae\": \"x\"}]}",
	     ":1:23: ", "streams[0].nmae (stream '0'): unknown key"},
	    {"{\"streams\": [{\"name\": \"a\", \"src_ip\": \"10.0.0.300\"}]}",
	     ":1:38: ",
	     "streams[0].src_ip (stream 'a'): expected an IPv4 "
	     "address"},
	    {"{\"streams\": [{},\n {\"name\": \"b\",\n  \"size\": 63}]}",
	     ":3:11: ", "streams[1].size (stream 'b'): 63: below 64"},
	    {"{\"streams\": [{\"name\": \"c\", \"ipv6\": true, \"size\": 64}]}",
	     ":1:14: ",
	     "streams[0]: stream 'c': frames of 64 bytes cannot hold its "
	     "headers and stamp: at least 84 bytes"},
	    {"{\"streams\": [{\"dst_port\": {\"from\": 1, \"to\": 2, "
	     "\"mode\": \"up\"}}]}",
	     ":1:27: ",
	     "streams[0].dst_port (stream '0'): mode \"up\": expected"},
	    {"{\"streams\": [{\"rate_pps\": 5, \"share\": 2}]}", ":1:27: ",
	     "streams[0] (stream '0'): rate_pps/rate_mbps/share: give one"},
	    {"{\"streams\": [{\"gap_us\": 5}]}", ":1:25: ", "need \"burst\""},
	    {"{\"streams\": []}", ":1:13: ", "with 1 to 64 streams"},
	    {"{\"streamz\": []}", ":1:1: ", "with 1 to 64 streams"},
	    {"{\"streams\": [7]}", ":1:14: ", "streams[0]: expected an object"},
	    /* A key spelled with escapes is found as jansson reads it. */
	    {"{\"streams\": [{\"n\\u0061me\": \"e\", \"s\\u0069ze\": 1}]}",
	     ":1:46: ", "streams[0].size (stream 'e'): 1: below 64"},
	    /* Found by fuzz_profile: a long range cut before its dash. */
	    {"{\"streams\": [{\"name\": \"d\", \"size\": "
	     "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	     "a"
	     "76-1518\"}]}",
	     ":1:36: ", "streams[0].size (stream 'd'): \"aaaa"},
	    /* Syntax: jansson's position. */
	    {"{\"streams\": [", ":1:13: ", "']' expected near end of file"},
	    {"{\"streams\": [{}],\n \"streams\": 1}",
	     ":2:10: ", "duplicate object key"},
	    {"", ":1:1: ", "'[' or '{' expected"},
	};
	char want[PATH_MAX + 96];

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *p = write_text("bad.json", cases[i].text);
		int rc;

		LR_TEST_ASSERT(p != NULL, "writing bad.json");
		snprintf(want, sizeof(want), "lr-pktgen: --profile %s%s", p,
			 cases[i].pos);
		rc = run(EAL " -l 0 --vdev net_null0 -- --count 1 --profile %s",
			 p);
		LR_TEST_ASSERT(rc == 2 && strstr(out, want) &&
				   strstr(out, cases[i].msg),
			       "'%s': exit %d, want '%s' and '%s' in:\n%s",
			       cases[i].text, rc, want, cases[i].msg, out);
	}
	/* No file, or one that is not a file: why, and no position. */
	int rc = run(EAL " -l 0 --vdev net_null0 -- --count 1 --profile "
			 "%s/none.json",
		     tmpdir);

	snprintf(want, sizeof(want),
		 "lr-pktgen: --profile '%s/none.json': cannot open: No such "
		 "file or directory",
		 tmpdir);
	LR_TEST_ASSERT(rc == 2 && strstr(out, want) && !strstr(out, "line"),
		       "missing file: exit %d, want '%s' in:\n%s", rc, want,
		       out);
	rc =
	    run(EAL " -l 0 --vdev net_null0 -- --count 1 --profile %s", tmpdir);
	LR_TEST_ASSERT(rc == 2 && strstr(out, "': cannot read: Is a directory"),
		       "a folder: exit %d:\n%s", rc, out);
	return 0;
}

/* Capture times (us) of the records of a pcap file, up to max. */
static int
pcap_times(const char *path, uint64_t *ts, unsigned max)
{
	FILE *f = fopen(path, "rb");
	unsigned n = 0;
	uint32_t rh[4];

	if (f == NULL || fseek(f, 24, SEEK_SET) != 0) {
		if (f)
			fclose(f);
		return -1;
	}
	while (n < max && fread(rh, 4, 4, f) == 4 &&
	       fseek(f, (long)rh[2], SEEK_CUR) == 0)
		ts[n++] = (uint64_t)rh[0] * 1000000 + rh[1];
	fclose(f);
	return (int)n;
}

/* --replay: the capture's own timing (gaps of 100, 50, 200 and 50 ms, a
 * loop of 500 ms), never earlier than the file says; --speed 10 ten times
 * faster (retried: a busy host may stall the generator or the capture). */
static int
test_replay_timing(void)
{
	static const uint32_t at_ms[5] = {0, 100, 150, 350, 400};
	char in[PATH_MAX + 64];
	uint64_t ts[16];
	FILE *f;
	uint32_t gh[6] = {0xa1b2c3d4, 0x00040002, 0, 0, 65535, 1};
	uint8_t fr[60];

	snprintf(in, sizeof(in), "%s/timed.pcap", tmpdir);
	f = fopen(in, "wb");
	LR_TEST_ASSERT(f != NULL, "%s", in);
	fwrite(gh, 4, 6, f);
	for (unsigned i = 0; i < 5; i++) {
		uint32_t rh[4] = {1000 + at_ms[i] / 1000,
				  at_ms[i] % 1000 * 1000, sizeof(fr),
				  sizeof(fr)};

		memset(fr, 0, sizeof(fr));
		fr[12] = 0x88, fr[13] = 0xb5; /* local experimental */
		fr[20] = (uint8_t)i;
		fwrite(rh, 4, 4, f);
		fwrite(fr, 1, sizeof(fr), f);
	}
	LR_TEST_ASSERT(fclose(f) == 0, "writing %s", in);
	for (int speed = 1; speed <= 10; speed += 9) {
		char why[160] = "";
		int attempt;

		for (attempt = 1; attempt <= 3; attempt++) {
			uint64_t span;
			int rc = run(EAL " -l 0 --vdev net_ring0 --vdev "
					 "net_ring1 -- --tx-ports 0 --rx-ports "
					 "1 --quiet --count 10 --replay %s "
					 "--speed %d --capture %s",
				     in, speed, cap_path("timed"));

			CHECK_RUN(rc);
			LR_TEST_ASSERT_EQ(read_pcap(cap_path("timed"), 16), 10);
			LR_TEST_ASSERT_EQ(pcap_times(cap_path("timed"), ts, 16),
					  10);
			for (unsigned i = 0; i < 10; i++) {
				uint64_t want = (i / 5 * 500 + at_ms[i % 5]) *
						1000 / (uint64_t)speed;

				LR_TEST_ASSERT_EQ(frames[i].data[20], i % 5);
				/* Never before its time (2 ms: the clock of
				 * the capture against the TSC's). Times are
				 * from frame 0's capture: a capture of frame
				 * 0 that a stalled host (qemu) delayed makes
				 * the next look early, so an early frame
				 * fails only when every attempt has one. */
				if (why[0] == '\0' &&
				    ts[i] - ts[0] + 2000 < want)
					snprintf(
					    why, sizeof(why),
					    "frame %u after %llu us, due "
					    "at %llu us",
					    i,
					    (unsigned long long)(ts[i] - ts[0]),
					    (unsigned long long)want);
			}
			span = ts[9] - ts[0];
			printf("speed %d attempt %d: 10 frames over %llu us "
			       "(due over %u us)%s%s\n",
			       speed, attempt, (unsigned long long)span,
			       900000 / speed, why[0] ? ": early, " : "", why);
			if (why[0] != '\0') {
				if (attempt < 3)
					why[0] = '\0';
				continue;
			}
			/* Ten times faster: well under the 900 ms of speed 1
			 * (speed 1 has no upper bound: only a lower one). */
			if (speed == 1 || span < 450000)
				break;
		}
		/* Under an emulator (the ppc64le stage: qemu-user) the
		 * generator's clock stalls for whole translations; timing
		 * says nothing there, so only the frames are checked. */
		if (attempt > 3 && getenv("LR_EXE_WRAPPER") != NULL &&
		    getenv("LR_EXE_WRAPPER")[0] != '\0') {
			printf("speed %d: timing not checked under %s (%s)\n",
			       speed, getenv("LR_EXE_WRAPPER"),
			       why[0] ? why : "--speed 10 not faster");
			continue;
		}
		LR_TEST_ASSERT(attempt <= 3, "speed %d: %s", speed,
			       why[0] ? why : "--speed 10 not faster");
	}
	return 0;
}

/* Run lr-pktgen-ctl with args (space-separated) into buf; its status. */
static int
run_ctl(char *buf, size_t cap, const char *fmt, ...)
{
	char args[1024], *argv[16], bin[PATH_MAX + 8];
	struct lr_test_child c;
	va_list ap;

	snprintf(bin, sizeof(bin), "%s-ctl", pktgen_bin);
	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	split_args(args, bin, argv, 16, NULL, 0);
	if (lr_test_spawn(&c, bin, argv, buf, cap) != 0)
		return -1;
	return lr_test_child_finish(&c, READY_S);
}

/* The control socket changes the rate of a running test: 20000 frames at
 * 1 kpps would take 20 s; raised to 100 kpps they are out long before
 * (15 s allowed). Stats and a wrong unit answered; "quit" ends a run. */
static int
test_ctl(void)
{
	char sock[PATH_MAX + 64], name[96], args[PATH_MAX + 256], ans[4096];
	struct lr_test_child c;
	int rc;

	snprintf(sock, sizeof(sock), "%s/ctl.sock", tmpdir);
	lr_test_prefix_arg(name, sizeof(name), "test_pktgen_ctl");
	memmove(name, name + 14, strlen(name + 14) + 1);
	snprintf(args, sizeof(args),
		 "--tx-only --quiet --rate-pps 1000 --count 20000 --ctl %s",
		 sock);
	{
		char a[PATH_MAX + 512], *argv[64], *save = NULL, pfx[128];
		int argc = 0;

		snprintf(pfx, sizeof(pfx), "--file-prefix=%s", name);
		snprintf(a, sizeof(a),
			 "--no-huge -m 160 -l 0 --vdev net_null0 -- %s", args);
		argv[argc++] = pktgen_bin;
		argv[argc++] = pfx;
		for (char *t = strtok_r(a, " ", &save); t && argc < 63;
		     t = strtok_r(NULL, " ", &save))
			argv[argc++] = t;
		argv[argc] = NULL;
		LR_TEST_ASSERT(
		    lr_test_spawn(&c, pktgen_bin, argv, out, OUT_MAX) == 0,
		    "cannot start %s", pktgen_bin);
	}
	if (lr_test_child_wait_for(&c, "control socket", READY_S) != 0) {
		kill(c.pid, SIGKILL);
		lr_test_child_finish(&c, READY_S);
		LR_TEST_ASSERT(0, "no control socket:\n%s", out);
	}
	rc = run_ctl(ans, sizeof(ans), "%s stats", sock);
	LR_TEST_ASSERT(rc == 0 && strstr(ans, "\"ok\":true") &&
			   strstr(ans, "\"rate\":1000"),
		       "stats: exit %d: %s", rc, ans);
	rc = run_ctl(ans, sizeof(ans), "%s rate mbps 5", sock);
	LR_TEST_ASSERT(rc == 1 && strstr(ans, "the run's rate is in pps"),
		       "rate mbps: exit %d: %s", rc, ans);
	rc = run_ctl(ans, sizeof(ans), "%s rate pps 100000", sock);
	LR_TEST_ASSERT(rc == 0 && strstr(ans, "\"ok\":true"),
		       "rate pps: exit %d: %s", rc, ans);
	rc = lr_test_child_finish(&c, 15);
	LR_TEST_ASSERT(rc == 0 && final_line_is_last(),
		       "after the rate change: exit %d (-3: still at 1 kpps):"
		       "\n%s",
		       rc, out);
	LR_TEST_ASSERT(field("tx") == 20000 &&
			   strstr(out, "control: rate 100000 frames/s (was "
				       "1000)"),
		       "%s", out);
	LR_TEST_ASSERT(access(sock, F_OK) != 0, "%s left behind", sock);

	/* "quit" ends a run without an end. */
	snprintf(args, sizeof(args),
		 "--rate-pps 1000 --drain-ms 50 --quiet --ctl %s", sock);
	if (start_pktgen(&c, name, args, "control socket") != 0)
		return -1;
	rc = run_ctl(ans, sizeof(ans), "%s quit", sock);
	LR_TEST_ASSERT(rc == 0, "quit: exit %d: %s", rc, ans);
	rc = lr_test_child_finish(&c, READY_S);
	LR_TEST_ASSERT(rc == 0 && final_line_is_last() && field("lost") == 0,
		       "quit: exit %d:\n%s", rc, out);
	return 0;
}

/* The "stats" answer of the control socket at sock: 0 with the frames
 * sent over every port in *tx and the sending state in state, or -1. */
static int
ctl_stats(const char *sock, long long *tx, char *state, size_t n)
{
	char ans[8192];
	json_t *j, *ports;
	int rc = run_ctl(ans, sizeof(ans), "%s stats", sock);
	size_t i;
	json_t *p;

	if (rc != 0 || (j = json_loads(ans, 0, NULL)) == NULL) {
		fprintf(stderr, "stats: exit %d: %s\n", rc, ans);
		return -1;
	}
	ports = json_object_get(j, "ports");
	*tx = 0;
	json_array_foreach(ports, i, p) *tx += jint(p, "tx");
	snprintf(state, n, "%s",
		 json_string_value(json_object_get(j, "state"))
		     ? json_string_value(json_object_get(j, "state"))
		     : "?");
	json_decref(j);
	return 0;
}

/* Ask for "stats" until the state is want (or READY_S seconds pass: only
 * a hung program); 0 with the frames sent so far in *tx, or -1. */
static int
ctl_wait_state(const char *sock, const char *want, long long *tx)
{
	double end = lr_test_now() + READY_S;
	char state[32];

	while (lr_test_now() < end) {
		if (ctl_stats(sock, tx, state, sizeof(state)) != 0)
			return -1;
		if (strcmp(state, want) == 0)
			return 0;
		poll(NULL, 0, 20);
	}
	fprintf(stderr, "state '%s', never '%s'\n", state, want);
	return -1;
}

/* Ask for "stats" until more than after frames were sent; 0 with them in
 * *tx, or -1 (READY_S seconds: only a hung program). */
static int
ctl_wait_tx(const char *sock, long long after, long long *tx)
{
	double end = lr_test_now() + READY_S;
	char state[32];

	while (lr_test_now() < end) {
		if (ctl_stats(sock, tx, state, sizeof(state)) != 0)
			return -1;
		if (*tx > after)
			return 0;
		poll(NULL, 0, 20);
	}
	fprintf(stderr, "no frame sent after %lld (state %s)\n", after, state);
	return -1;
}

/* --idle: nothing is sent until "start", not even after a live line
 * (a second) has passed; "stop" stops the sending while the run goes on
 * ("stopped" once every queue stands still: the count stays), "start"
 * resumes it, "quit" ends the run. Every wait is for a state the program
 * reports, none for a time. Before "start" and "stop" existed (as
 * requests that stop the sending), this run sent at once. */
static int
test_ctl_start_stop(void)
{
	char sock[PATH_MAX + 64], name[96], args[PATH_MAX + 256], ans[4096];
	struct lr_test_child c;
	long long tx, tx2;
	int rc;

	snprintf(sock, sizeof(sock), "%s/ctl2.sock", tmpdir);
	lr_test_prefix_arg(name, sizeof(name), "test_pktgen_ctl2");
	memmove(name, name + 14, strlen(name + 14) + 1);
	snprintf(args, sizeof(args),
		 "--idle --rate-pps 10k --drain-ms 50 --ctl %s", sock);
	if (start_pktgen(&c, name, args, "idle: sending starts with") != 0)
		return -1;
	LR_TEST_ASSERT(ctl_wait_state(sock, "stopped", &tx) == 0 && tx == 0,
		       "idle: %lld frames sent:\n%s", tx, out);
	if (lr_test_child_wait_for(&c, "s] port 1: tx", READY_S) != 0) {
		kill(c.pid, SIGKILL);
		lr_test_child_finish(&c, READY_S);
		LR_TEST_ASSERT(0, "no live line:\n%s", out);
	}
	LR_TEST_ASSERT(ctl_stats(sock, &tx, ans, sizeof(ans)) == 0 && tx == 0,
		       "idle after a second: %lld frames sent (%s)", tx, ans);
	rc = run_ctl(ans, sizeof(ans), "%s start", sock);
	LR_TEST_ASSERT(rc == 0 && strstr(ans, "\"sending\":true"),
		       "start: exit %d: %s", rc, ans);
	LR_TEST_ASSERT(ctl_wait_tx(sock, 0, &tx) == 0, "start:\n%s", out);
	rc = run_ctl(ans, sizeof(ans), "%s stop", sock);
	LR_TEST_ASSERT(rc == 0 && strstr(ans, "\"sending\":false"),
		       "stop: exit %d: %s", rc, ans);
	LR_TEST_ASSERT(ctl_wait_state(sock, "stopped", &tx) == 0, "stop:\n%s",
		       out);
	/* Stopped: the count stays (the live lines go on). */
	poll(NULL, 0, 300);
	LR_TEST_ASSERT(ctl_stats(sock, &tx2, ans, sizeof(ans)) == 0 &&
			   tx2 == tx && strcmp(ans, "stopped") == 0,
		       "stopped at %lld frames, then %lld (%s)", tx, tx2, ans);
	rc = run_ctl(ans, sizeof(ans), "%s start", sock);
	LR_TEST_ASSERT(rc == 0, "start again: exit %d: %s", rc, ans);
	LR_TEST_ASSERT(ctl_wait_tx(sock, tx, &tx2) == 0, "start again:\n%s",
		       out);
	rc = run_ctl(ans, sizeof(ans), "%s quit", sock);
	LR_TEST_ASSERT(rc == 0, "quit: exit %d: %s", rc, ans);
	rc = lr_test_child_finish(&c, READY_S);
	LR_TEST_ASSERT(rc == 0 && final_line_is_last() && field("lost") == 0 &&
			   field("tx") >= (double)tx2,
		       "quit: exit %d:\n%s", rc, out);
	LR_TEST_ASSERT(strstr(out, "control: sending stopped") &&
			   strstr(out, "control: sending started"),
		       "%s", out);
	return 0;
}

/* "rate" with "stream" (an id or a name) sets the own rate of one stream
 * of a profile; the shared rate still goes to the streams without one.
 * 20000 frames a stream at 1 kpps would take 20 s; all three raised to
 * 100 kpps, they are out long before (15 s allowed). A stream without a
 * rate of its own, a unit it does not have and a stream that does not
 * exist are refused, naming them. */
static int
test_ctl_stream_rate(void)
{
	char sock[PATH_MAX + 64], name[96], args[2 * PATH_MAX + 256], ans[4096];
	const char *prof = write_text(
	    "ctl3.json",
	    "{\"streams\": [{\"name\": \"a\", \"rate_pps\": 1000, "
	    "\"count\": 20000}, {\"name\": \"b\", \"rate_pps\": 1000, "
	    "\"count\": 20000}, {\"name\": \"c\", \"count\": 20000}]}");
	struct lr_test_child c;
	int rc;

	LR_TEST_ASSERT(prof != NULL, "cannot write the profile");
	snprintf(sock, sizeof(sock), "%s/ctl3.sock", tmpdir);
	lr_test_prefix_arg(name, sizeof(name), "test_pktgen_ctl3");
	memmove(name, name + 14, strlen(name + 14) + 1);
	snprintf(args, sizeof(args),
		 "--quiet --rate-pps 1000 --profile %s --ctl %s", prof, sock);
	if (start_pktgen(&c, name, args, "control socket") != 0)
		return -1;
	rc = run_ctl(ans, sizeof(ans), "%s rate pps 100000 stream 2", sock);
	LR_TEST_ASSERT(rc == 1 && strstr(ans, "stream 2 'c' has no rate of "
					      "its own"),
		       "stream c: exit %d: %s", rc, ans);
	rc = run_ctl(ans, sizeof(ans), "%s rate mbps 5 stream a", sock);
	LR_TEST_ASSERT(rc == 1 && strstr(ans, "has its rate in pps"),
		       "mbps for a: exit %d: %s", rc, ans);
	rc = run_ctl(ans, sizeof(ans), "%s rate pps 5 stream 7", sock);
	LR_TEST_ASSERT(rc == 1 && strstr(ans, "no stream 7"),
		       "stream 7: exit %d: %s", rc, ans);
	rc = run_ctl(ans, sizeof(ans), "%s rate pps 5 stream zz", sock);
	LR_TEST_ASSERT(rc == 1 && strstr(ans, "no stream named 'zz'"),
		       "stream zz: exit %d: %s", rc, ans);
	rc = run_ctl(ans, sizeof(ans), "%s stats", sock);
	LR_TEST_ASSERT(rc == 0 &&
			   strstr(ans, "{\"id\":0,\"name\":\"a\",\"tx\":") &&
			   strstr(ans, "\"rate_pps\":1000") &&
			   strstr(ans, "{\"id\":2,\"name\":\"c\",\"tx\":"),
		       "stats: no streams: %s", ans);
	rc = run_ctl(ans, sizeof(ans), "%s rate pps 100000 stream 0", sock);
	LR_TEST_ASSERT(rc == 0, "stream 0: exit %d: %s", rc, ans);
	rc = run_ctl(ans, sizeof(ans), "%s rate pps 100000 stream b", sock);
	LR_TEST_ASSERT(rc == 0, "stream b: exit %d: %s", rc, ans);
	rc = run_ctl(ans, sizeof(ans), "%s rate pps 100000", sock);
	LR_TEST_ASSERT(rc == 0, "shared: exit %d: %s", rc, ans);
	rc = lr_test_child_finish(&c, 15);
	LR_TEST_ASSERT(rc == 0 && final_line_is_last(),
		       "after the rate changes: exit %d (-3: a stream still "
		       "at 1 kpps):\n%s",
		       rc, out);
	LR_TEST_ASSERT(field("tx") == 60000 &&
			   strstr(out, "control: rate 100000 frames/s (was "
				       "1000) for stream 0 'a'") &&
			   strstr(out, "control: rate 100000 frames/s (was "
				       "1000) for stream 1 'b'") &&
			   strstr(out, "stream 2 'c': tx 20000 frames"),
		       "%s", out);
	return 0;
}

/* ---- the live screen ---- */

/* Start lr-pktgen as lr_test_spawn() does, but with its stdout and stderr
 * on a pseudo-terminal of 100 x 40 (TERM=xterm), whose output goes to
 * out. 0, or -1. */
static int
spawn_pty(struct lr_test_child *c, char *const argv[])
{
	struct winsize ws = {.ws_row = 40, .ws_col = 100};
	int m = posix_openpt(O_RDWR | O_NOCTTY);
	const char *slave;

	if (m < 0 || grantpt(m) != 0 || unlockpt(m) != 0 ||
	    (slave = ptsname(m)) == NULL) {
		if (m >= 0)
			close(m);
		return -1;
	}
	c->path = pktgen_bin;
	c->out = out;
	c->cap = OUT_MAX;
	c->len = 0;
	out[0] = '\0';
	fflush(NULL);
	c->pid = fork();
	if (c->pid == 0) {
		int s;

		setsid();
		s = open(slave, O_RDWR); /* the controlling terminal */
		if (s < 0)
			_exit(126);
		ioctl(s, TIOCSWINSZ, &ws);
		dup2(s, 0);
		dup2(s, 1);
		dup2(s, 2);
		close(m);
		setenv("TERM", "xterm", 1);
		lr_test_execv(pktgen_bin, argv);
		_exit(127);
	}
	c->fd = m;
	return c->pid < 0 ? -1 : 0;
}

/* Run lr-pktgen with args on a pseudo-terminal; if ready is not NULL,
 * send SIGINT once it printed that. Its exit status (as run_sig()). */
static int
run_pty(const char *ready, const char *fmt, ...)
{
	char args[4096], *argv[128], prefix[80];
	struct lr_test_child c;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	split_args(args, pktgen_bin, argv, 128, prefix, sizeof(prefix));
	if (spawn_pty(&c, argv) != 0)
		return -1;
	return sigint_when_ready(&c, ready);
}

/* On a terminal the live output is a screen redrawn in place (cursor
 * home, a line per port and per stream), the cursor hidden meanwhile and
 * shown again when SIGINT ends the run, before the summary; --no-screen
 * and --quiet keep lines. (Off a terminal every other case checks the
 * lines as they were.) */
static int
test_live_screen(void)
{
	const char *home, *shown;
	int rc = run_pty("Ctrl-C ends the run",
			 EAL " -l 0 --vdev net_ring0 --vdev net_ring1 "
			     "-- --rate-pps 10k --profile %s",
			 write_text("screen.json",
				    "{\"streams\": [{\"name\": \"a\"}, "
				    "{\"name\": \"b\"}]}"));

	LR_TEST_ASSERT(rc == 0 && strstr(out, "pktgen total:"), "exit %d:\n%s",
		       rc, out);
	home = strstr(out, "\033[H");
	LR_TEST_ASSERT(home && strstr(out, "\033[?25l") &&
			   strstr(home, "p50 us") && strstr(home, "0 a ") &&
			   strstr(home, "1 b ") && strstr(home, "net_ring1"),
		       "no screen:\n%s", out);
	LR_TEST_ASSERT(strstr(out, "] port 0: tx ") == NULL,
		       "live lines on the screen:\n%s", out);
	/* The cursor comes back after the last frame, before the summary. */
	shown = strstr(out, "\033[?25h");
	LR_TEST_ASSERT(shown && strstr(shown, "\033[H") == NULL &&
			   strstr(shown, "=== lr-pktgen summary"),
		       "cursor not shown again after the screen:\n%s", out);
	rc = run_pty("s] port 1: tx",
		     EAL " -l 0 --vdev net_ring0 --vdev net_ring1 -- "
			 "--rate-pps 10k --no-screen");
	LR_TEST_ASSERT(rc == 0 && strstr(out, "\033[") == NULL,
		       "--no-screen: exit %d:\n%s", rc, out);
	rc = run_pty(NULL, EAL " -l 0 --vdev net_null0 -- --tx-only --quiet "
			       "--count 1000");
	LR_TEST_ASSERT(rc == 0 && strstr(out, "\033[") == NULL &&
			   strstr(out, "pktgen total: tx=1000 "),
		       "--quiet: exit %d:\n%s", rc, out);
	return 0;
}

/* --no-stamp: frames without a stamp (a fixed template, and one whose
 * ports vary), so nothing that comes back is counted as ours: no loss, no
 * latency, all of it in rx_other. */
static int
test_no_stamp(void)
{
	static const char *const extra[] = {"", "--src-port 1-4 --udp-cksum"};

	for (unsigned i = 0; i < 2; i++) {
		int rc = run(EAL " -l 0 --vdev net_ring0 --vdev net_ring1 -- "
				 "--tx-ports 0 --rx-ports 1 --quiet --count "
				 "1000 --drain-ms 2000 --no-stamp %s",
			     extra[i]);

		CHECK_RUN(rc);
		LR_TEST_ASSERT(field("tx") == 1000 && field("rx_own") == 0 &&
				   field("rx_other") == 1000 &&
				   field("lost") == 0 &&
				   field("lat_max_us") == 0,
			       "'%s':\n%s", extra[i], out);
	}
	return 0;
}

/* --no-stamp, nothing varies: the queue sends from a pool of its own
 * whose buffers hold the frame (written once). 6000 frames over a ring
 * pair come back through the receive path and its capture, every mbuf of
 * that pool used more than once: each frame the same, consistent, with
 * the payload pattern. */
static int
test_prebuilt(void)
{
	const uint8_t *d;
	int rc = run(EAL " -l 0 --vdev net_ring0 --vdev net_ring1 -- "
			 "--tx-ports 0 --rx-ports 1 --count 6000 --size 200 "
			 "--no-stamp --drain-ms 2000 --capture %s",
		     cap_path("plain"));

	CHECK_RUN(rc);
	LR_TEST_ASSERT(strstr(out, "tx frames prebuilt in pool 'pktgen_tx0'"),
		       "no prebuilt pool:\n%s", out);
	LR_TEST_ASSERT_EQ(read_pcap(cap_path("plain"), 7000), 6000);
	d = frames[0].data;
	LR_TEST_ASSERT(frames[0].len == 196 && be16(d + 12) == 0x0800 &&
			   d[14] == 0x45 && d[23] == 17 &&
			   be16(d + 16) == 196 - 14 &&
			   be16(d + 38) == 196 - 34 &&
			   fold(sum16(d + 14, 20)) == 0xffff,
		       "frame 0: bad headers");
	for (unsigned k = 42; k < 42 + PG_PAYLOAD_LEN; k++)
		LR_TEST_ASSERT(d[k] == (uint8_t)k, "frame 0: payload byte %u",
			       k);
	for (unsigned i = 1; i < nframes; i++)
		LR_TEST_ASSERT(frames[i].len == frames[0].len &&
				   memcmp(frames[i].data, d, frames[0].len) ==
				       0,
			       "frame %u differs from frame 0", i);
	return 0;
}

/* --record-core-cycles: the busy cycles of the passes that moved frames,
 * a frame, over every frame sent or received (1000 each way); a run
 * without the option prints no such line. */
static int
test_record_cycles(void)
{
	const char *l;
	double c, busy, frames;
	int rc = run(EAL " -l 0 --vdev net_ring0 --vdev net_ring1 -- "
			 "--tx-ports 0 --rx-ports 1 --quiet --count 1000 "
			 "--drain-ms 2000 --record-core-cycles");

	CHECK_RUN(rc);
	l = strstr(out, "CPU cycles/packet=");
	LR_TEST_ASSERT(l != NULL &&
			   sscanf(l,
				  "CPU cycles/packet=%lf (busy cycles=%lf / "
				  "frames sent or received=%lf)",
				  &c, &busy, &frames) == 3,
		       "no busy cycles line:\n%s", out);
	LR_TEST_ASSERT(frames == 2000 && busy > 0 && c > 0 &&
			   fabs(c - busy / frames) < 0.01,
		       "busy cycles %g over %g frames, %g a frame:\n%s",
		       busy, frames, c, out);
	rc = run(EAL " -l 0 --vdev net_ring0 --vdev net_ring1 -- "
		     "--tx-ports 0 --rx-ports 1 --quiet --count 1000 "
		     "--drain-ms 2000");
	CHECK_RUN(rc);
	LR_TEST_ASSERT(strstr(out, "CPU cycles/packet=") == NULL,
		       "busy cycles without the option:\n%s", out);
	return 0;
}

static void
remove_tmpdir(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmpdir);
}

/* Find the binary and make a scratch directory, once. */
static int
ready(void)
{
	static int state; /* 0 not tried, 1 ready, -1 missing */

	if (state == 0) {
		state = -1;
		if (find_binary() != 0) {
			printf("lr-pktgen not built (-Dapps=false?): "
			       "skipping\n");
		} else {
			/* mkdtemp() fills in the last six characters. */
			snprintf(tmpdir, sizeof(tmpdir),
				 "/tmp/test_pktgen_fast.%06d", 0);
			memset(tmpdir + strlen(tmpdir) - 6, 'X', 6);
			if (mkdtemp(tmpdir) != NULL) {
				atexit(remove_tmpdir);
				state = 1;
			}
		}
	}
	return state == 1;
}

/* Sequence window: in order, duplicates, reordering inside and below the
 * window, 32-bit wrap. */
static int
test_seq_window(void)
{
	struct pg_seqwin *w = calloc(1, sizeof(*w));

	LR_TEST_ASSERT(w != NULL, "calloc");
	for (uint32_t s = 0; s < 100; s++)
		pg_seq_account(w, s);
	LR_TEST_ASSERT(w->unique == 100 && w->dup == 0 && w->reordered == 0,
		       "in order: unique %llu dup %llu reordered %llu",
		       (unsigned long long)w->unique,
		       (unsigned long long)w->dup,
		       (unsigned long long)w->reordered);
	pg_seq_account(w, 50); /* seen: duplicate */
	LR_TEST_ASSERT_EQ(w->dup, 1);
	pg_seq_account(w, 105); /* 100..104 skipped */
	pg_seq_account(w, 102); /* arrives late, inside the window */
	LR_TEST_ASSERT_EQ(w->reordered, 1);
	LR_TEST_ASSERT_EQ(w->unique, 102);
	pg_seq_account(w, 102);
	pg_seq_account(w, 105);
	LR_TEST_ASSERT_EQ(w->dup, 3);
	/* 100, 101, 103, 104 are still missing: not duplicates. */
	pg_seq_account(w, 104);
	LR_TEST_ASSERT_EQ(w->dup, 3);
	LR_TEST_ASSERT_EQ(w->reordered, 2);
	/* A jump beyond the window forgets everything before it. */
	pg_seq_account(w, 100000);
	pg_seq_account(w, 100);
	LR_TEST_ASSERT_EQ(w->late, 1);
	LR_TEST_ASSERT_EQ(w->reordered, 3);
	LR_TEST_ASSERT_EQ(w->unique, 105);
	/* Just inside the window: its bit was cleared by the jump. */
	pg_seq_account(w, 100000 - PG_SEQ_WINDOW + 1);
	LR_TEST_ASSERT_EQ(w->dup, 3);
	LR_TEST_ASSERT_EQ(w->late, 1);
	/* Wrap of the 32-bit number on the wire. */
	memset(w, 0, sizeof(*w));
	for (uint32_t s = UINT32_MAX - 9; s != 10; s++)
		pg_seq_account(w, s);
	LR_TEST_ASSERT(w->unique == 20 && w->reordered == 0 && w->dup == 0,
		       "across the wrap: unique %llu reordered %llu dup %llu",
		       (unsigned long long)w->unique,
		       (unsigned long long)w->reordered,
		       (unsigned long long)w->dup);
	pg_seq_account(w, UINT32_MAX);
	LR_TEST_ASSERT_EQ(w->dup, 1);
	free(w);
	return 0;
}

/* Histogram buckets bracket their values; quantiles land within a
 * bucket's width. */
static int
test_latency_histogram(void)
{
	static struct pg_lat l;
	const uint64_t vals[] = {
	    0,	 1,    15,    16,    17,	31,	    32,
	    100, 1000, 65535, 65536, 123456789, 1ULL << 40, UINT64_MAX >> 1};

	for (unsigned i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		unsigned b = pg_lat_bucket(vals[i]);

		LR_TEST_ASSERT(b < PG_LAT_BUCKETS &&
				   pg_lat_bucket_lo(b) <= vals[i] &&
				   vals[i] < pg_lat_bucket_lo(b + 1),
			       "value %llu in bucket %u [%llu, %llu)",
			       (unsigned long long)vals[i], b,
			       (unsigned long long)pg_lat_bucket_lo(b),
			       (unsigned long long)pg_lat_bucket_lo(b + 1));
	}
	memset(&l, 0, sizeof(l));
	l.min = UINT64_MAX;
	for (uint64_t v = 1; v <= 100000; v++) {
		l.n++;
		l.sum += v;
		l.min = v < l.min ? v : l.min;
		l.max = v > l.max ? v : l.max;
		l.hist[pg_lat_bucket(v)]++;
	}
	LR_TEST_ASSERT(fabs(pg_lat_quantile(&l, 0.5) / 50000 - 1) < 0.04 &&
			   fabs(pg_lat_quantile(&l, 0.99) / 99000 - 1) < 0.04 &&
			   fabs(pg_lat_quantile(&l, 0.999) / 99900 - 1) < 0.04,
		       "quantiles %.0f %.0f %.0f", pg_lat_quantile(&l, 0.5),
		       pg_lat_quantile(&l, 0.99), pg_lat_quantile(&l, 0.999));
	LR_TEST_ASSERT(pg_lat_quantile(&l, 0) >= 1 &&
			   pg_lat_quantile(&l, 1) <= 100000,
		       "quantiles outside min..max");
	return 0;
}

/* ---- L3 mode (l3.h): the frame code directly, then lr-pktgen ---- */

static void
wr16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Two ports: a (10.0.0.1/24, fd00::1/64) and b (10.0.0.2, fd00::2). */
static void
l3_ifs(struct pg_l3_if *a, struct pg_l3_if *b)
{
	memset(a, 0, sizeof(*a));
	memset(b, 0, sizeof(*b));
	a->c.has4 = a->c.has6 = b->c.has4 = b->c.has6 = true;
	a->c.plen4 = b->c.plen4 = 24;
	a->c.plen6 = b->c.plen6 = 64;
	a->c.ip4[0] = b->c.ip4[0] = 10;
	a->c.ip4[3] = 1;
	b->c.ip4[3] = 2;
	a->c.ip6[0] = b->c.ip6[0] = 0xfd;
	a->c.ip6[15] = 1;
	b->c.ip6[15] = 2;
	a->mac[0] = b->mac[0] = 2;
	a->mac[5] = 0xa;
	b->mac[5] = 0xb;
}

/* The ICMPv6 checksum of IPv6 frame f holds. */
static int
icmp6_ok(const uint8_t *f)
{
	unsigned pl = be16(f + 18);

	return fold(sum16(f + 22, 32) + pl + 58 + sum16(f + 54, pl)) == 0xffff;
}

/* Set the ICMPv6 checksum of IPv6 frame f. */
static void
icmp6_fix(uint8_t *f)
{
	unsigned pl = be16(f + 18);

	wr16(f + 56, 0);
	wr16(f + 56,
	     (uint16_t)~fold(sum16(f + 22, 32) + pl + 58 + sum16(f + 54, pl)));
}

/* An ICMP echo request from a to b with dlen payload bytes; its length. */
static unsigned
l3_echo4(uint8_t *f, const struct pg_l3_if *a, const struct pg_l3_if *b,
	 unsigned dlen)
{
	memset(f, 0, 42 + dlen);
	memcpy(f, b->mac, 6);
	memcpy(f + 6, a->mac, 6);
	wr16(f + 12, 0x0800);
	f[14] = 0x45;
	wr16(f + 16, 28 + dlen);
	f[22] = 64;
	f[23] = 1;
	memcpy(f + 26, a->c.ip4, 4);
	memcpy(f + 30, b->c.ip4, 4);
	wr16(f + 24, (uint16_t)~fold(sum16(f + 14, 20)));
	f[34] = 8;
	wr16(f + 38, 0x1234);
	wr16(f + 40, 7);
	for (unsigned i = 0; i < dlen; i++)
		f[42 + i] = (uint8_t)(i * 7);
	wr16(f + 36, (uint16_t)~fold(sum16(f + 34, 8 + dlen)));
	return 42 + dlen;
}

/* An ICMPv6 echo request from a to b; its length. */
static unsigned
l3_echo6(uint8_t *f, const struct pg_l3_if *a, const struct pg_l3_if *b,
	 unsigned dlen)
{
	memset(f, 0, 62 + dlen);
	memcpy(f, b->mac, 6);
	memcpy(f + 6, a->mac, 6);
	wr16(f + 12, 0x86dd);
	f[14] = 0x60;
	wr16(f + 18, 8 + dlen);
	f[20] = 58;
	f[21] = 64;
	memcpy(f + 22, a->c.ip6, 16);
	memcpy(f + 38, b->c.ip6, 16);
	f[54] = 128;
	wr16(f + 58, 0x4321);
	wr16(f + 60, 3);
	for (unsigned i = 0; i < dlen; i++)
		f[62 + i] = (uint8_t)(i * 3);
	icmp6_fix(f);
	return 62 + dlen;
}

/* --ip and --gateway: good and bad text, and the checks between them. */
static int
test_l3_parse(void)
{
	static const char *const bad_ip[] = {
	    "10.0.0.1/24",
	    "0:10.0.0.1",
	    "0:10.0.0.300/24",
	    "0:10.0.0.1/33",
	    "0:fd00::1/129",
	    "0:224.0.0.1/4",
	    "0:10.0.0.1/24x",
	    "32:10.0.0.1/24",
	    "0:0.0.0.0/8",
	    "0:ff02::1/64",
	    "0:/24",
	    "x:10.0.0.1/24",
	    "0:10.0.0.1/0",
	    "0:127.0.0.1/8",
	    "0:::1/128",
	    "0:255.255.255.255/32",
	    "",
	    "0:10.0.0.1/-1",
	};
	static const char *const bad_gw[] = {
	    "0:foo", "0:10.0.0.1/24", "9", "0:224.1.1.1", "33:10.0.0.1",
	    "0:",    ":10.0.0.1"};
	static const uint8_t zero[sizeof(struct pg_l3_conf)];
	struct pg_l3_conf c[LR_MAX_ETHPORTS];
	uint8_t x[16] = {10, 0, 0, 200}, y[16] = {10, 0, 1, 1};

	memset(c, 0, sizeof(c));
	for (unsigned i = 0; i < sizeof(bad_ip) / sizeof(bad_ip[0]); i++)
		LR_TEST_ASSERT(pg_l3_parse_ip(bad_ip[i], c, LR_MAX_ETHPORTS) !=
				   0,
			       "--ip '%s' accepted", bad_ip[i]);
	for (unsigned i = 0; i < sizeof(bad_gw) / sizeof(bad_gw[0]); i++)
		LR_TEST_ASSERT(
		    pg_l3_parse_gateway(bad_gw[i], c, LR_MAX_ETHPORTS) != 0,
		    "--gateway '%s' accepted", bad_gw[i]);
	for (unsigned p = 0; p < LR_MAX_ETHPORTS; p++)
		LR_TEST_ASSERT(memcmp(&c[p], zero, sizeof(zero)) == 0,
			       "port %u: a refused option left something", p);
	LR_TEST_ASSERT(pg_l3_parse_ip("0:10.0.0.1/24", c, 32) == 0 &&
			   pg_l3_parse_ip("0:fd00::1/64", c, 32) == 0 &&
			   pg_l3_parse_ip("3:192.168.7.9/20", c, 32) == 0,
		       "good --ip refused");
	LR_TEST_ASSERT(c[0].has4 && c[0].plen4 == 24 && c[0].ip4[0] == 10 &&
			   c[0].ip4[3] == 1 && c[0].has6 && c[0].plen6 == 64 &&
			   c[0].ip6[0] == 0xfd && c[0].ip6[15] == 1 &&
			   c[3].has4 && !c[3].has6 && c[3].plen4 == 20,
		       "--ip stored wrong");
	/* One address of a family a port. */
	LR_TEST_ASSERT(pg_l3_parse_ip("0:10.0.0.5/24", c, 32) != 0 &&
			   c[0].ip4[3] == 1,
		       "second IPv4 address taken");
	LR_TEST_ASSERT(pg_l3_parse_gateway("0:10.0.0.254", c, 32) == 0 &&
			   pg_l3_parse_gateway("0:fd00::fe", c, 32) == 0 &&
			   pg_l3_check(&c[0], 0) == 0,
		       "good gateways refused");
	LR_TEST_ASSERT(pg_l3_parse_gateway("0:10.0.0.9", c, 32) != 0,
		       "second IPv4 gateway taken");
	/* A gateway without an address, off the subnet, the own address. */
	LR_TEST_ASSERT(pg_l3_parse_gateway("1:10.0.0.254", c, 32) == 0 &&
			   pg_l3_check(&c[1], 1) != 0,
		       "gateway without an address passed");
	LR_TEST_ASSERT(pg_l3_parse_gateway("3:192.168.16.1", c, 32) == 0 &&
			   pg_l3_check(&c[3], 3) != 0,
		       "gateway off the /20 passed");
	LR_TEST_ASSERT(pg_l3_parse_ip("5:10.5.0.1/24", c, 32) == 0 &&
			   pg_l3_parse_gateway("5:10.5.0.1", c, 32) == 0 &&
			   pg_l3_check(&c[5], 5) != 0,
		       "gateway = own address passed");
	LR_TEST_ASSERT(pg_l3_parse_ip("6:fd06::1/64", c, 32) == 0 &&
			   pg_l3_parse_gateway("6:fd07::1", c, 32) == 0 &&
			   pg_l3_check(&c[6], 6) != 0,
		       "IPv6 gateway off the /64 passed");
	/* An IPv6 link-local gateway is on every link. */
	LR_TEST_ASSERT(pg_l3_parse_ip("7:fd08::1/64", c, 32) == 0 &&
			   pg_l3_parse_gateway("7:fe80::1", c, 32) == 0 &&
			   pg_l3_check(&c[7], 7) == 0,
		       "link-local gateway refused");
	/* On the subnet: whole bytes and a partial one. */
	LR_TEST_ASSERT(pg_l3_on_link(c[0].ip4, 24, x, false) &&
			   !pg_l3_on_link(c[0].ip4, 24, y, false) &&
			   pg_l3_on_link(c[0].ip4, 23, y, false) &&
			   !pg_l3_on_link(c[0].ip4, 32, x, false),
		       "pg_l3_on_link wrong for IPv4");
	memcpy(x, c[0].ip6, 16);
	x[15] = 0x77;
	x[8] = 0x80;
	LR_TEST_ASSERT(pg_l3_on_link(c[0].ip6, 64, x, true) &&
			   !pg_l3_on_link(c[0].ip6, 65, x, true),
		       "pg_l3_on_link wrong for IPv6");
	memset(x, 0, 16);
	x[0] = 0xfe;
	x[1] = 0x80;
	x[15] = 5;
	LR_TEST_ASSERT(pg_l3_on_link(c[0].ip6, 64, x, true),
		       "fe80::5 not on the link");
	x[1] = 0xc0;
	LR_TEST_ASSERT(!pg_l3_on_link(c[0].ip6, 64, x, true),
		       "fec0::5 on the link");
	return 0;
}

/* ARP, NDP and echo frames: what is built, what is answered, what is
 * learned; truncated and corrupt frames get nothing. */
static int
test_l3_frames(void)
{
	struct pg_l3_if a, b;
	struct pg_l3_learned l;
	uint8_t f[256], o[2048], o2[2048], g[256];
	unsigned n, m, m2;

	l3_ifs(&a, &b);
	/* ARP request a -> b, b's reply, a learns b. */
	n = pg_l3_arp_request(f, &a, b.c.ip4);
	LR_TEST_ASSERT(n == 60 && f[0] == 0xff && f[5] == 0xff &&
			   be16(f + 12) == 0x0806 && be16(f + 20) == 1 &&
			   memcmp(f + 22, a.mac, 6) == 0 &&
			   memcmp(f + 28, a.c.ip4, 4) == 0 &&
			   memcmp(f + 38, b.c.ip4, 4) == 0,
		       "ARP request built wrong");
	LR_TEST_ASSERT_EQ(pg_l3_classify(&b, f, n, o, sizeof(o), &m, &l),
			  PG_L3_ARP);
	LR_TEST_ASSERT(l.valid && !l.v6 && memcmp(l.ip, a.c.ip4, 4) == 0 &&
			   memcmp(l.mac, a.mac, 6) == 0,
		       "ARP request: sender not learned");
	LR_TEST_ASSERT(m == 60 && memcmp(o, a.mac, 6) == 0 &&
			   memcmp(o + 6, b.mac, 6) == 0 &&
			   be16(o + 12) == 0x0806 && be16(o + 20) == 2 &&
			   memcmp(o + 22, b.mac, 6) == 0 &&
			   memcmp(o + 28, b.c.ip4, 4) == 0 &&
			   memcmp(o + 32, a.mac, 6) == 0 &&
			   memcmp(o + 38, a.c.ip4, 4) == 0,
		       "ARP reply built wrong");
	LR_TEST_ASSERT_EQ(pg_l3_classify(&a, o, m, o2, sizeof(o2), &m2, &l),
			  PG_L3_LEARN);
	LR_TEST_ASSERT(m2 == 0 && l.valid && memcmp(l.ip, b.c.ip4, 4) == 0 &&
			   memcmp(l.mac, b.mac, 6) == 0,
		       "ARP reply: b not learned");
	/* A request for another address is not answered. */
	LR_TEST_ASSERT_EQ(pg_l3_classify(&a, f, n, o2, sizeof(o2), &m2, &l),
			  PG_L3_LEARN);
	LR_TEST_ASSERT_EQ(m2, 0);
	for (unsigned k = 0; k < n; k++) {
		enum pg_l3_kind want = k >= 42 ? PG_L3_ARP : PG_L3_OTHER;

		LR_TEST_ASSERT_EQ(
		    pg_l3_classify(&b, f, k, o2, sizeof(o2), &m2, &l), want);
	}

	/* Neighbour solicitation a -> b, b's advert, a learns b. */
	n = pg_l3_ns_request(f, &a, b.c.ip6);
	LR_TEST_ASSERT(n == 86 && f[0] == 0x33 && f[1] == 0x33 &&
			   f[2] == 0xff && f[5] == 2 && f[38] == 0xff &&
			   f[39] == 2 && f[49] == 1 && f[50] == 0xff &&
			   f[53] == 2 && f[21] == 255 && f[54] == 135 &&
			   memcmp(f + 62, b.c.ip6, 16) == 0 && f[78] == 1 &&
			   memcmp(f + 80, a.mac, 6) == 0 && icmp6_ok(f),
		       "neighbour solicitation built wrong");
	LR_TEST_ASSERT_EQ(pg_l3_classify(&b, f, n, o, sizeof(o), &m, &l),
			  PG_L3_NS);
	LR_TEST_ASSERT(l.valid && l.v6 && memcmp(l.ip, a.c.ip6, 16) == 0 &&
			   memcmp(l.mac, a.mac, 6) == 0,
		       "solicitation: sender not learned");
	LR_TEST_ASSERT(m == 86 && memcmp(o, a.mac, 6) == 0 &&
			   memcmp(o + 6, b.mac, 6) == 0 &&
			   memcmp(o + 22, b.c.ip6, 16) == 0 &&
			   memcmp(o + 38, a.c.ip6, 16) == 0 && o[21] == 255 &&
			   o[54] == 136 && o[58] == 0x60 &&
			   memcmp(o + 62, b.c.ip6, 16) == 0 && o[78] == 2 &&
			   o[79] == 1 && memcmp(o + 80, b.mac, 6) == 0 &&
			   icmp6_ok(o),
		       "neighbour advert built wrong");
	LR_TEST_ASSERT_EQ(pg_l3_classify(&a, o, m, o2, sizeof(o2), &m2, &l),
			  PG_L3_LEARN);
	LR_TEST_ASSERT(m2 == 0 && l.valid && memcmp(l.ip, b.c.ip6, 16) == 0 &&
			   memcmp(l.mac, b.mac, 6) == 0,
		       "advert: b not learned");
	for (unsigned k = 0; k < n; k++)
		LR_TEST_ASSERT_EQ(
		    pg_l3_classify(&b, f, k, o2, sizeof(o2), &m2, &l),
		    PG_L3_OTHER);
	/* A bad checksum, a hop limit below 255: nothing. */
	memcpy(g, f, n);
	g[70] ^= 1;
	LR_TEST_ASSERT_EQ(pg_l3_classify(&b, g, n, o2, sizeof(o2), &m2, &l),
			  PG_L3_OTHER);
	memcpy(g, f, n);
	g[21] = 254;
	LR_TEST_ASSERT_EQ(pg_l3_classify(&b, g, n, o2, sizeof(o2), &m2, &l),
			  PG_L3_OTHER);
	/* Duplicate address detection (source ::, no option): the advert
	 * goes to all nodes, not solicited. */
	memcpy(g, f, 78);
	memset(g + 22, 0, 16);
	wr16(g + 18, 24);
	icmp6_fix(g);
	LR_TEST_ASSERT_EQ(pg_l3_classify(&b, g, 78, o, sizeof(o), &m, &l),
			  PG_L3_NS);
	LR_TEST_ASSERT(!l.valid && o[0] == 0x33 && o[5] == 1 && o[38] == 0xff &&
			   o[39] == 2 && o[53] == 1 && o[58] == 0x20 &&
			   icmp6_ok(o),
		       "advert to a DAD probe wrong");

	/* ICMP echo a -> b: b answers; not a's address, a bad checksum, a
	 * fragment: nothing. */
	n = l3_echo4(f, &a, &b, 12);
	LR_TEST_ASSERT_EQ(pg_l3_classify(&b, f, n, o, sizeof(o), &m, &l),
			  PG_L3_ECHO);
	LR_TEST_ASSERT(m == 60 && memcmp(o, a.mac, 6) == 0 &&
			   memcmp(o + 6, b.mac, 6) == 0 &&
			   memcmp(o + 26, b.c.ip4, 4) == 0 &&
			   memcmp(o + 30, a.c.ip4, 4) == 0 &&
			   fold(sum16(o + 14, 20)) == 0xffff && o[34] == 0 &&
			   fold(sum16(o + 34, 20)) == 0xffff &&
			   memcmp(o + 38, f + 38, 16) == 0,
		       "echo reply built wrong");
	LR_TEST_ASSERT_EQ(pg_l3_classify(&a, f, n, o2, sizeof(o2), &m2, &l),
			  PG_L3_OTHER);
	memcpy(g, f, n);
	g[45] ^= 1;
	LR_TEST_ASSERT_EQ(pg_l3_classify(&b, g, n, o2, sizeof(o2), &m2, &l),
			  PG_L3_OTHER);
	memcpy(g, f, n);
	g[20] = 0x20; /* more fragments */
	wr16(g + 24, 0);
	wr16(g + 24, (uint16_t)~fold(sum16(g + 14, 20)));
	LR_TEST_ASSERT_EQ(pg_l3_classify(&b, g, n, o2, sizeof(o2), &m2, &l),
			  PG_L3_OTHER);
	for (unsigned k = 0; k < n; k++)
		LR_TEST_ASSERT_EQ(
		    pg_l3_classify(&b, f, k, o2, sizeof(o2), &m2, &l),
		    PG_L3_OTHER);
	/* A reply that does not fit the buffer is not built. */
	n = l3_echo4(f, &a, &b, 200);
	LR_TEST_ASSERT_EQ(pg_l3_classify(&b, f, n, o2, 200, &m2, &l),
			  PG_L3_OTHER);

	/* ICMPv6 echo a -> b. */
	n = l3_echo6(f, &a, &b, 20);
	LR_TEST_ASSERT_EQ(pg_l3_classify(&b, f, n, o, sizeof(o), &m, &l),
			  PG_L3_ECHO6);
	LR_TEST_ASSERT(m == n && memcmp(o, a.mac, 6) == 0 &&
			   memcmp(o + 6, b.mac, 6) == 0 &&
			   memcmp(o + 22, b.c.ip6, 16) == 0 &&
			   memcmp(o + 38, a.c.ip6, 16) == 0 && o[54] == 129 &&
			   icmp6_ok(o) && memcmp(o + 58, f + 58, 24) == 0,
		       "ICMPv6 echo reply built wrong");
	LR_TEST_ASSERT_EQ(pg_l3_classify(&a, f, n, o2, sizeof(o2), &m2, &l),
			  PG_L3_OTHER);
	for (unsigned k = 0; k < n; k++)
		LR_TEST_ASSERT_EQ(
		    pg_l3_classify(&b, f, k, o2, sizeof(o2), &m2, &l),
		    PG_L3_OTHER);
	/* Without an address of the family: nothing. */
	b.c.has6 = false;
	LR_TEST_ASSERT_EQ(pg_l3_classify(&b, f, n, o2, sizeof(o2), &m2, &l),
			  PG_L3_OTHER);
	b.c.has4 = false;
	n = pg_l3_arp_request(f, &a, b.c.ip4);
	LR_TEST_ASSERT_EQ(pg_l3_classify(&b, f, n, o2, sizeof(o2), &m2, &l),
			  PG_L3_OTHER);
	return 0;
}

/* "next hop ADDR (KIND) is at MAC" in out: the MAC's 6 bytes. */
static int
l3_hop_mac(const char *addr, uint8_t *mac)
{
	char pat[128];
	const char *p;
	unsigned b[6];

	snprintf(pat, sizeof(pat), "next hop %s (destination) is at ", addr);
	p = strstr(out, pat);
	if (p == NULL || sscanf(p + strlen(pat), "%2x:%2x:%2x:%2x:%2x:%2x",
				&b[0], &b[1], &b[2], &b[3], &b[4], &b[5]) != 6)
		return -1;
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
	return 0;
}

/* Two ports of one lr-pktgen on a net_ring pair, each with an address:
 * port 0 resolves port 1's MAC (ARP, then NDP) and its frames carry it,
 * with port 0's address as their source (checksums right). */
static int
test_l3_ring(void)
{
	static const uint8_t dflt[6] = {2, 0, 0, 0, 0, 2};
	uint8_t mac[6];
	int rc;

	rc = run(EAL " -l 0 --vdev net_ring0 --vdev net_ring1 -- --tx-ports 0 "
		     "--rx-ports 1 --quiet --count 100 --drain-ms 600000 "
		     "--drain-all --ip 0:10.7.0.1/16 "
		     "--ip 1:10.7.3.4/16 --dst-ip 10.7.3.4 --capture %s",
		 cap_path("l3v4"));
	CHECK_RUN(rc);
	LR_TEST_ASSERT(l3_hop_mac("10.7.3.4", mac) == 0 &&
			   memcmp(mac, dflt, 6) != 0 &&
			   strstr(out, "(ARP, ") != NULL,
		       "no next hop resolved:\n%s", out);
	LR_TEST_ASSERT_EQ(field("rx_own"), 100);
	LR_TEST_ASSERT_EQ(read_pcap(cap_path("l3v4"), 200), 100);
	for (unsigned i = 0; i < nframes; i++) {
		const uint8_t *d = frames[i].data;
		unsigned size;

		if (check_frame(i, 0, &size))
			return -1;
		LR_TEST_ASSERT(
		    memcmp(d, mac, 6) == 0 && memcmp(d + 6, mac, 6) != 0,
		    "frame %u: destination MAC not the next hop's", i);
		LR_TEST_ASSERT(be32(d + 26) == 0x0a070001 &&
				   be32(d + 30) == 0x0a070304,
			       "frame %u: addresses %08x -> %08x", i,
			       be32(d + 26), be32(d + 30));
	}
	rc = run(EAL " -l 0 --vdev net_ring0 --vdev net_ring1 -- --tx-ports 0 "
		     "--rx-ports 1 --quiet --count 50 --drain-ms 600000 "
		     "--drain-all --ipv6 --ip "
		     "0:fd07::1/64 --ip 1:fd07::3:4/64 --dst-ip fd07::3:4 "
		     "--capture %s",
		 cap_path("l3v6"));
	CHECK_RUN(rc);
	LR_TEST_ASSERT(l3_hop_mac("fd07::3:4", mac) == 0 &&
			   memcmp(mac, dflt, 6) != 0 &&
			   strstr(out, "(NDP, ") != NULL,
		       "no IPv6 next hop resolved:\n%s", out);
	LR_TEST_ASSERT_EQ(field("rx_own"), 50);
	LR_TEST_ASSERT_EQ(read_pcap(cap_path("l3v6"), 100), 50);
	for (unsigned i = 0; i < nframes; i++) {
		const uint8_t *d = frames[i].data;
		unsigned pl = be16(d + 18);

		LR_TEST_ASSERT(be16(d + 12) == 0x86dd && memcmp(d, mac, 6) == 0,
			       "frame %u: not IPv6 to the next hop", i);
		LR_TEST_ASSERT(be32(d + 22) == 0xfd070000 &&
				   be32(d + 34) == 1 &&
				   be32(d + 50) == 0x00030004,
			       "frame %u: addresses", i);
		LR_TEST_ASSERT(fold(sum16(d + 22, 32) + pl + 17 +
				    sum16(d + 54, pl)) == 0xffff,
			       "frame %u: bad UDP checksum", i);
	}
	return 0;
}

/* Bad L3 options and setups: each a clear error and its exit status. */
static int
test_l3_errors(void)
{
#define RING2 "--vdev net_ring0 --vdev net_ring1 -- --tx-ports 0 "
	static const struct {
		const char *args;
		int status;
		const char *msg;
	} cases[] = {
	    {"--vdev net_null0 -- --gateway 0:10.0.0.254", 2,
	     "--gateway 0:10.0.0.254: port 0 has no IPv4 address"},
	    {"--vdev net_null0 -- --ip 0:10.0.0.1", 2,
	     "--ip '0:10.0.0.1': expected PORT:ADDRESS/PREFIX"},
	    {"--vdev net_null0 -- --ip 0:10.0.0.1/24 --ip 0:10.0.0.2/24", 2,
	     "port 0 already has the IPv4 address 10.0.0.1"},
	    {"--vdev net_null0 -- --ip 0:10.0.0.1/24 --gateway 0:10.1.0.1", 2,
	     "--gateway 0:10.1.0.1: not on port 0's subnet"},
	    {"--vdev net_null0 -- --resolve-tries 3", 2,
	     "--resolve-tries needs --ip"},
	    {"--vdev net_null0 -- --ip 0:10.0.0.1/24 --resolve-interval 0", 2,
	     "--resolve-interval '0': out of range"},
	    {"--vdev net_null0 -- --ip 0:10.0.0.1/24 --gateway 0:10.0.0.2 "
	     "--pcap x.pcap",
	     2, "--gateway does not apply"},
	    {"--vdev net_null0 -- --ip 3:10.0.0.1/24", 1,
	     "--ip 3:10.0.0.1: port 3 is not used"},
	    {RING2 "--ip 0:10.0.0.1/24 --dst-ip 10.1.0.1", 1,
	     "port 0 (net_ring0): stream 'cli': destination 10.1.0.1 is not "
	     "on the port's subnet 10.0.0.1/24: give --gateway 0:ADDRESS"},
	    {RING2 "--ip 0:10.0.0.1/24 --dst-ip 10.0.0.5-10.0.0.9", 1,
	     "destinations 10.0.0.5-10.0.0.9 on the port's subnet"},
	    {RING2 "--ip 0:10.0.0.1/24 --ipv6", 1,
	     "stream 'cli' is IPv6 but the port has no IPv6 address"},
	    {RING2 "--ip 0:10.0.0.1/24 --vlan 5", 1, "has VLAN tags"},
	    {RING2 "--ip 0:10.0.0.1/24 --dst-ip 10.0.0.1", 1,
	     "destination 10.0.0.1 is the port's own address"},
	    /* Nobody answers: port 1 has no address. */
	    {RING2 "--ip 0:10.0.0.1/24 --gateway 0:10.0.0.254 --dst-ip "
		   "10.9.9.9 --count 10 --resolve-tries 2 --resolve-interval "
		   "0.05",
	     1,
	     "port 0 (net_ring0): no answer from 10.0.0.254 (the gateway) "
	     "to 2 ARP requests"},
	    {RING2 "--ipv6 --ip 0:fd00::1/64 --dst-ip fd00::7 --count 10 "
		   "--resolve-tries 1 --resolve-interval 0.05",
	     1,
	     "no answer from fd00::7 (the destination) to 1 neighbour "
	     "solicitations"},
	};
#undef RING2

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = run(EAL " -l 0 %s", cases[i].args);

		LR_TEST_ASSERT(rc == cases[i].status &&
				   strstr(out, cases[i].msg) != NULL &&
				   strstr(out, "not back in") == NULL,
			       "'%s': exit %d (want %d), want '%s' in:\n%s",
			       cases[i].args, rc, cases[i].status, cases[i].msg,
			       out);
	}
	return 0;
}

/* The control socket's "stats" carries the L3 ports: port 1 answered
 * port 0's ARP request before the run, port 0 learned its MAC. */
static int
test_l3_ctl(void)
{
	char sock[PATH_MAX + 64], name[96], args[PATH_MAX + 256], ans[4096];
	struct lr_test_child c;
	int rc;

	snprintf(sock, sizeof(sock), "%s/l3ctl.sock", tmpdir);
	lr_test_prefix_arg(name, sizeof(name), "test_pktgen_l3ctl");
	memmove(name, name + 14, strlen(name + 14) + 1);
	snprintf(args, sizeof(args),
		 "--tx-ports 0 --rate-pps 1000 --quiet --ip 0:10.0.0.1/24 "
		 "--ip 1:10.0.0.2/24 --ctl %s",
		 sock);
	if (start_pktgen(&c, name, args, "control socket") != 0)
		return -1;
	rc = run_ctl(ans, sizeof(ans), "%s stats", sock);
	kill(c.pid, SIGINT);
	LR_TEST_ASSERT(lr_test_child_finish(&c, READY_S) == 0 &&
			   final_line_is_last(),
		       "lr-pktgen after SIGINT:\n%s", out);
	LR_TEST_ASSERT(rc == 0 && strstr(ans, "\"l3\":[{\"port\":0,") &&
			   strstr(ans, "\"next_hops\":[{\"ip\":\"10.0.0.2\"") &&
			   strstr(ans, "\"port\":1,\"ipv4\":\"10.0.0.2/24\"") &&
			   strstr(ans, "\"arp_answered\":1"),
		       "stats: exit %d: %s", rc, ans);
	return 0;
}

/* A port with addresses answers while the run lasts: port 0 replays an
 * ARP request, an ICMP echo request, a neighbour solicitation, an ICMPv6
 * echo request and a stamped frame of ours to port 1 (--ip); port 1
 * answers each once (counted apart from the test frames) and the answers
 * reach port 0 right. One lcore polls both ports in turn, so the answers
 * of one burst are received in the next while sending lasts. */
static int
test_l3_answers(void)
{
	struct pg_l3_if x, b;
	uint8_t f[5][256];
	const uint8_t *fp[5] = {f[0], f[1], f[2], f[3], f[4]};
	uint32_t len[5];
	unsigned seen[4] = {0};
	char req[PATH_MAX + 64];
	const char *p;
	int rc;

	l3_ifs(&x, &b);
	x.c.ip4[3] = 9;
	x.c.ip6[15] = 9;
	x.mac[5] = 0xc;
	rc = RING_CAPTURE("l3stamp", 1, "");
	CHECK_RUN(rc);
	LR_TEST_ASSERT_EQ(read_pcap(cap_path("l3stamp"), 2), 1);
	len[0] = pg_l3_arp_request(f[0], &x, b.c.ip4);
	len[1] = l3_echo4(f[1], &x, &b, 16);
	len[2] = pg_l3_ns_request(f[2], &x, b.c.ip6);
	len[3] = l3_echo6(f[3], &x, &b, 16);
	memcpy(f[4], frames[0].data, frames[0].len);
	len[4] = frames[0].len;
	LR_TEST_ASSERT(write_pcap(cap_path("l3req"), fp, len, 5) == 0,
		       "cannot write %s", cap_path("l3req"));
	snprintf(req, sizeof(req), "%s", cap_path("l3req"));
	rc = run(EAL " -l 0 --vdev net_ring0 --vdev net_ring1 -- --quiet "
		     "--tx-ports 0 --ip 1:10.0.0.2/24 --ip 1:fd00::2/64 "
		     "--pcap %s --count 1000 --drain-ms 600000 --drain-all "
		     "--capture %s",
		 req, cap_path("l3ans"));
	CHECK_RUN(rc);
	LR_TEST_ASSERT(strstr(out, "L3 port 1: 10.0.0.2/24 fd00::2/64; "
				   "answered 200 ARP requests, 200 neighbour "
				   "solicitations, 400 echo requests; 0 "
				   "answers dropped") != NULL,
		       "answers not counted right:\n%s", out);
	LR_TEST_ASSERT_EQ(field("rx_own"), 200);
	LR_TEST_ASSERT(read_pcap(cap_path("l3ans"), 4000) > 0,
		       "capture %s unreadable:\n%s", cap_path("l3ans"), out);
	for (unsigned i = 0; i < nframes; i++) {
		const uint8_t *d = frames[i].data;

		if (memcmp(d, x.mac, 6) != 0)
			continue; /* a request, or a frame of ours */
		if (be16(d + 12) == 0x0806) {
			LR_TEST_ASSERT(be16(d + 20) == 2 &&
					   memcmp(d + 28, b.c.ip4, 4) == 0 &&
					   memcmp(d + 32, x.mac, 6) == 0 &&
					   memcmp(d + 38, x.c.ip4, 4) == 0,
				       "frame %u: bad ARP reply", i);
			seen[0]++;
		} else if (be16(d + 12) == 0x0800) {
			LR_TEST_ASSERT(d[34] == 0 &&
					   be32(d + 26) == 0x0a000002 &&
					   fold(sum16(d + 34, 24)) == 0xffff,
				       "frame %u: bad echo reply", i);
			seen[1]++;
		} else if (d[54] == 136) {
			LR_TEST_ASSERT(icmp6_ok(d) &&
					   memcmp(d + 62, b.c.ip6, 16) == 0,
				       "frame %u: bad advert", i);
			seen[2]++;
		} else {
			LR_TEST_ASSERT(d[54] == 129 && icmp6_ok(d) &&
					   memcmp(d + 38, x.c.ip6, 16) == 0,
				       "frame %u: bad ICMPv6 echo reply", i);
			seen[3]++;
		}
	}
	LR_TEST_ASSERT(seen[0] && seen[1] && seen[2] && seen[3],
		       "answers missing from the capture: ARP %u echo %u NA %u "
		       "echo6 %u",
		       seen[0], seen[1], seen[2], seen[3]);
	/* --no-stamp: no frame is a test frame, the requests are still
	 * answered (those of the bursts before the last, at least). */
	rc = run(EAL " -l 0 --vdev net_ring0 --vdev net_ring1 -- --quiet "
		     "--tx-ports 0 --ip 1:10.0.0.2/24 --ip 1:fd00::2/64 "
		     "--pcap %s --count 1000 --no-stamp",
		 req);
	CHECK_RUN(rc);
	p = strstr(out, "L3 port 1: 10.0.0.2/24 fd00::2/64; answered ");
	LR_TEST_ASSERT(p != NULL &&
			   sscanf(p,
				  "L3 port 1: 10.0.0.2/24 fd00::2/64; "
				  "answered %u ARP requests, %u neighbour "
				  "solicitations, %u echo requests",
				  &seen[0], &seen[1], &seen[2]) == 3 &&
			   seen[0] > 0 && seen[1] > 0 && seen[2] > 0,
		       "--no-stamp: requests not answered:\n%s", out);
	return 0;
}

/* Every case first finds the binary (or skips). */
/* A zero-copy memif client lends lr-pktgen its pool: frames are built in
 * its mbufs (said at setup), all back at exit (no warning from the port's
 * close); a pool whose buffers are too short for the frames is not used.
 * No server: the link stays down (--link-wait 0: send all the same) and
 * the frames are dropped, so nothing depends on a peer's timing. */
static int
test_memif_zc_pool(void)
{
	int rc = run(EAL " -l 0 --vdev net_memif0,role=client,zero-copy=yes,"
			 "socket=%s/none.sock,socket-abstract=no -- "
			 "--tx-only --count 20000 --size 1518 --link-wait 0",
		     tmpdir);

	if (strstr(out, "no driver 'net_pcap'") != NULL) {
		printf("net_memif not built: skipping\n");
		return LR_TEST_SKIP;
	}
	CHECK_RUN(rc);
	LR_TEST_ASSERT_EQ(field("tx"), 20000);
	LR_TEST_ASSERT(strstr(out, "port 0 (net_memif0): tx mbufs from its "
				   "pool 'memif_zc_p0_") != NULL &&
			   strstr(out, "still holds") == NULL &&
			   strstr(out, "not back in") == NULL,
		       "zero-copy pool not used or not given back:\n%s", out);
	rc = run(EAL " -l 0 --vdev net_memif0,role=client,zero-copy=yes,"
		     "bsize=1024,socket=%s/none.sock,socket-abstract=no -- "
		     "--tx-only --count 2000 --size 1518 --link-wait 0",
		 tmpdir);
	CHECK_RUN(rc);
	LR_TEST_ASSERT(strstr(out, "tx mbufs from its pool") == NULL,
		       "1518-byte frames built in 1024-byte buffers:\n%s", out);
	return 0;
}

#define CASE(n)                                                                \
	static int case_##n(void)                                              \
	{                                                                      \
		return ready() ? test_##n() : LR_TEST_SKIP;                    \
	}
CASE(count_exact)
CASE(ring_loop)
CASE(rate_pps)
CASE(rate_bits)
CASE(rate_accuracy)
CASE(size_range)
CASE(imix)
CASE(fields)
CASE(udp_cksum)
CASE(pcap_replay)
CASE(pcap_cut_and_corrupt)
CASE(capture_mode)
CASE(capture_disk_full)
CASE(bad_options)
CASE(sigint)
CASE(refusing_port)
CASE(rfc2544)
CASE(rfc2544_fail)
CASE(stop_during_drain)
CASE(stop_signals)
CASE(json_and_live)
CASE(stats_period)
CASE(memif_zc_pool)
CASE(stale_frames)
CASE(other_run)
CASE(pacing_low_rate)
CASE(rate_missed)
CASE(json_output)
CASE(header_kinds)
CASE(profile_fields)
CASE(profile_rates)
CASE(profile_bursts)
CASE(profile_errors)
CASE(replay_timing)
CASE(ctl)
CASE(ctl_start_stop)
CASE(ctl_stream_rate)
CASE(live_screen)
CASE(no_stamp)
CASE(prebuilt)
CASE(record_cycles)
CASE(l3_ring)
CASE(l3_errors)
CASE(l3_answers)
CASE(l3_ctl)

static const struct lr_test_case cases[] = {
    {"seq_window", test_seq_window},
    {"latency_histogram", test_latency_histogram},
    {"count_exact", case_count_exact},
    {"ring_loop", case_ring_loop},
    {"rate_pps", case_rate_pps},
    {"rate_bits", case_rate_bits},
    {"rate_accuracy", case_rate_accuracy},
    {"size_range", case_size_range},
    {"imix", case_imix},
    {"fields", case_fields},
    {"udp_cksum", case_udp_cksum},
    {"pcap_replay", case_pcap_replay},
    {"pcap_cut_and_corrupt", case_pcap_cut_and_corrupt},
    {"capture_mode", case_capture_mode},
    {"capture_disk_full", case_capture_disk_full},
    {"bad_options", case_bad_options},
    {"sigint", case_sigint},
    {"refusing_port", case_refusing_port},
    {"rfc2544", case_rfc2544},
    {"rfc2544_fail", case_rfc2544_fail},
    {"stop_during_drain", case_stop_during_drain},
    {"stop_signals", case_stop_signals},
    {"json_and_live", case_json_and_live},
    {"stats_period", case_stats_period},
    {"memif_zc_pool", case_memif_zc_pool},
    {"stale_frames", case_stale_frames},
    {"other_run", case_other_run},
    {"pacing_low_rate", case_pacing_low_rate},
    {"rate_missed", case_rate_missed},
    {"json_output", case_json_output},
    {"header_kinds", case_header_kinds},
    {"profile_fields", case_profile_fields},
    {"profile_rates", case_profile_rates},
    {"profile_bursts", case_profile_bursts},
    {"profile_errors", case_profile_errors},
    {"replay_timing", case_replay_timing},
    {"ctl", case_ctl},
    {"ctl_start_stop", case_ctl_start_stop},
    {"ctl_stream_rate", case_ctl_stream_rate},
    {"live_screen", case_live_screen},
    {"no_stamp", case_no_stamp},
    {"prebuilt", case_prebuilt},
    {"record_cycles", case_record_cycles},
    {"l3_parse", test_l3_parse},
    {"l3_frames", test_l3_frames},
    {"l3_ring", case_l3_ring},
    {"l3_errors", case_l3_errors},
    {"l3_answers", case_l3_answers},
    {"l3_ctl", case_l3_ctl},
};

LR_TEST_MAIN("pktgen_fast", cases)
