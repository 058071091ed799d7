/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What lr-pktgen measures, reports and records, on net_null and net_ring
 * ports, no privileges: the receive side's accounting (sequence window,
 * latency histogram, loss and latency over a loop, frames that are not
 * ours), capture files and pcap replay (cut and corrupt files, the
 * capture's timing), the per-second and --stats-period lines, JSON, the
 * busy cycles, the live screen on a terminal and the RFC 2544 search.
 *
 * Each case runs the lr-pktgen binary of this build tree and reads its
 * final line (lr_test_pktgen.h).
 */
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LR_TEST_PG_NAME "test_pktgen_output"
#include "lr_test_pktgen.h"
/* The receive-side accounting, tested directly. */
#include "../apps/pktgen/stats.c"

/* ---- the receive side's accounting ---- */

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

/* ---- capture and replay ---- */

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

/* ---- figures: live lines, JSON, RFC 2544 ---- */

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
			jnum(lat, "min") <= jnum(lat, "p50") &&
			jnum(lat, "p50") <= jnum(lat, "max"),
		    "size %zu in the JSON document", i);
	}
	json_decref(doc);
	return 0;
}

/* The trial lines of out that are not invalid (those are run again). */
static unsigned
judged_trials(const char *out)
{
	unsigned n = 0;

	for (const char *p = out; (p = strstr(p, "trial ")) != NULL; p++) {
		const char *eol = strchr(p, '\n');
		const char *bad = strstr(p, ": invalid: ");

		if ((p == out || p[-1] == '\n') &&
		    (bad == NULL || (eol != NULL && bad > eol)))
			n++;
	}
	return n;
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
	LR_TEST_ASSERT(judged_trials(out) == 2,
		       "not 2 trials judged (a trial the generator fell "
		       "behind in is run again):\n%s",
		       out);
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
	LR_TEST_ASSERT(rc == 1 && strstr(out, "(--tx-full drop)") &&
			   strstr(out, "refused: ring full") &&
			   strstr(out, "the port stopped taking frames"),
		       "stall with --tx-full drop: exit %d:\n%s", rc, out);
	LR_TEST_ASSERT(since(&t0) < 5, "took %.1f s", since(&t0));
	return 0;
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
		t = jnum(l, "t");
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
		       "busy cycles %g over %g frames, %g a frame:\n%s", busy,
		       frames, c, out);
	rc = run(EAL " -l 0 --vdev net_ring0 --vdev net_ring1 -- "
		     "--tx-ports 0 --rx-ports 1 --quiet --count 1000 "
		     "--drain-ms 2000");
	CHECK_RUN(rc);
	LR_TEST_ASSERT(strstr(out, "CPU cycles/packet=") == NULL,
		       "busy cycles without the option:\n%s", out);
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
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vrun_sig(spawn_pty, ready, fmt, ap);
	va_end(ap);
	return ret;
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

/* --rfc2544 asking for more than the generator sends (100 Mframes/s on a
 * net_ring pair) with a bucket of 5 s: it never falls further behind than
 * its bucket, and sends every frame of a trial, late. Such a trial is
 * invalid for it ("sent late", not "rate missed"), its achieved rate is
 * its frames over the time the sending took, and after three the max
 * comes down below the last one's achieved rate in one step. */
static int
test_rfc2544_late(void)
{
	char jfile[PATH_MAX + 64];
	const char *low;
	json_error_t e;
	json_t *doc, *trials;
	double lowered, ach = 0;

	snprintf(jfile, sizeof(jfile), "%s/late.json", tmpdir);
	run(EAL " -l 0 --vdev net_ring0 --vdev net_ring1 -- --tx-ports 0 "
		"--rx-ports 1 --rfc2544 throughput --rfc2544-sizes 64 "
		"--line-rate-gbps 100 --max-rate 100M --bucket-ms 5000 "
		"--trial-s 0.02 --final-trial-s 0.05 --drain-ms 20 --json %s",
	    jfile);
	LR_TEST_ASSERT(strstr(out, "trial 1 (64 B, max): 100000000 frames/s") &&
			   strstr(out, "invalid: sent late: the last frame "
				       "left ") &&
			   !strstr(out, "rate missed"),
		       "the first trial not invalid for being late alone:\n%s",
		       out);
	low = strstr(out, "the max rate is lowered to ");
	LR_TEST_ASSERT(
	    low && sscanf(low, "the max rate is lowered to %lf", &lowered) == 1,
	    "no max lowered:\n%s", out);
	doc = json_load_file(jfile, 0, &e);
	LR_TEST_ASSERT(doc != NULL, "%s: line %d: %s", jfile, e.line, e.text);
	trials = jpath(doc, "rfc2544.sizes.0.trials");
	for (size_t i = 0; i < 3; i++) {
		json_t *t = json_array_get(trials, i);
		double late = jnum(t, "late_ms");
		double secs = jnum(t, "duration_s");
		double tx = (double)jint(t, "tx");
		const char *v =
		    json_string_value(json_object_get(t, "verdict"));

		ach = jnum(t, "achieved_pps");
		/* Every frame sent (2 M at 100 M/s for 0.02 s), more than
		 * 20 ms late, at the rate of the time it took. */
		LR_TEST_ASSERT(v && strcmp(v, "invalid") == 0 &&
				   tx >= 1990000 && late > 20 &&
				   fabs(ach - tx / (secs + late / 1e3)) <=
				       0.01 * ach &&
				   ach < 0.5e8,
			       "trial %zu: %s, tx %.0f in %g s, late %.3f ms, "
			       "achieved %.0f frames/s",
			       i + 1, v ? v : "?", tx, secs, late, ach);
	}
	json_decref(doc);
	LR_TEST_ASSERT(lowered < ach && lowered > 0.9 * ach,
		       "max lowered to %.0f for an achieved %.0f frames/s",
		       lowered, ach);
	return 0;
}

CASE(ring_loop)
CASE(pcap_replay)
CASE(pcap_cut_and_corrupt)
CASE(capture_mode)
CASE(capture_disk_full)
CASE(rfc2544)
CASE(rfc2544_fail)
CASE(rfc2544_late)
CASE(json_and_live)
CASE(stats_period)
CASE(stale_frames)
CASE(other_run)
CASE(json_output)
CASE(replay_timing)
CASE(live_screen)
CASE(no_stamp)
CASE(record_cycles)

static const struct lr_test_case cases[] = {
    {"seq_window", test_seq_window},
    {"latency_histogram", test_latency_histogram},
    {"ring_loop", case_ring_loop},
    {"pcap_replay", case_pcap_replay},
    {"pcap_cut_and_corrupt", case_pcap_cut_and_corrupt},
    {"capture_mode", case_capture_mode},
    {"capture_disk_full", case_capture_disk_full},
    {"rfc2544", case_rfc2544},
    {"rfc2544_fail", case_rfc2544_fail},
    {"rfc2544_late", case_rfc2544_late},
    {"json_and_live", case_json_and_live},
    {"stats_period", case_stats_period},
    {"stale_frames", case_stale_frames},
    {"other_run", case_other_run},
    {"json_output", case_json_output},
    {"replay_timing", case_replay_timing},
    {"live_screen", case_live_screen},
    {"no_stamp", case_no_stamp},
    {"record_cycles", case_record_cycles},
};

LR_TEST_MAIN("pktgen_output", cases)
