/* SPDX-License-Identifier: BSD-3-Clause */
/* net_pcap: files the test writes itself (microsecond and nanosecond pcap,
 * frames from 60 to 9000 bytes) read through one net_pcap port and written
 * by another, by a loop in the test and by lr-l2fwd, then compared frame by
 * frame and timestamp by timestamp with a reader of the test's own, and read
 * back by tcpdump when it is installed; infinite replay; every bad file and
 * bad devargs with its message; a truncated last record (the packets before
 * it delivered) and a corrupt one inside the file; runts; the capture
 * file's mode; a full file system under a capture (as root, a 256 KiB
 * tmpfs) and /dev/full; and, as root, a live veth pair in a private
 * network namespace. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lr_cycles.h"
#include "lr_eal.h"
#include "lr_ethdev.h"
#include "lr_ethdev_driver.h"
#include "lr_log.h"
#include "lr_mbuf.h"
#include "lr_test.h"
#include "lr_test_cksum.h"
#include "lr_test_port.h"

#define POOL_SIZE 4096
#define NB_FRAMES 40
#define MAX_FRAME 9000
#define BURST	  32

static struct lr_mempool *pool;
static const char *dir;

/* ------------------------------------------------------------------ */
/* Log capture. */

/* ------------------------------------------------------------------ */
/* Frames and pcap files written and read by the test itself. */

struct frame {
	uint32_t len;
	uint64_t ts_ns;
	uint8_t data[MAX_FRAME];
};

static struct frame frames[NB_FRAMES];

static uint32_t
frame_len(unsigned i)
{
	static const uint32_t sizes[] = {60,   64,   65,   128,	 255,  511,
					 1024, 1514, 2048, 2049, 4000, 9000};

	return sizes[i % LR_DIM(sizes)];
}

/* Frame i: Ethernet/IPv4/UDP-looking header and a payload that depends on
 * i, so a frame swapped, cut or shifted anywhere is noticed. */
static void
make_frames(void)
{
	for (unsigned i = 0; i < NB_FRAMES; i++) {
		struct frame *f = &frames[i];
		uint8_t *d = f->data;

		f->len = frame_len(i);
		/* 2024-05-06 07:08:09 + i ms + some ns. */
		f->ts_ns = 1714979289ULL * 1000000000ULL + i * 1000000ULL +
			   (i * 7919ULL % 1000) * 1000 + i % 1000;
		memcpy(d, "\x02\x00\x00\x00\x00\x01\x02\x00\x00\x00\x00\x02",
		       12);
		d[12] = 0x08;
		d[13] = 0x00;
		for (uint32_t k = 14; k < f->len; k++)
			d[k] = (uint8_t)(i * 31 + k * 7 + (k >> 8));
		d[14] = (uint8_t)i;
	}
}

static void
put32(FILE *f, uint32_t v)
{
	fwrite(&v, 4, 1, f);
}

static void
put_file_header(FILE *f, int nano, uint32_t linktype)
{
	put32(f, nano ? 0xa1b23c4d : 0xa1b2c3d4);
	uint16_t ver[2] = {2, 4};

	fwrite(ver, 2, 2, f);
	put32(f, 0);
	put32(f, 0);
	put32(f, 65535 * 4);
	put32(f, linktype);
}

static uint64_t
ts_in_file(const struct frame *fr, int nano)
{
	/* A microsecond file keeps only microseconds. */
	return nano ? fr->ts_ns : fr->ts_ns / 1000 * 1000;
}

static void
put_record(FILE *f, const struct frame *fr, int nano)
{
	uint64_t ts = ts_in_file(fr, nano);

	put32(f, (uint32_t)(ts / 1000000000ULL));
	put32(f, (uint32_t)(nano ? ts % 1000000000ULL
				 : ts % 1000000000ULL / 1000));
	put32(f, fr->len);
	put32(f, fr->len);
	fwrite(fr->data, 1, fr->len, f);
}

/* Write frames[0..n-1] to path; 0 or -1. */
static int
write_pcap(const char *path, unsigned n, int nano, uint32_t linktype)
{
	FILE *f = fopen(path, "wb");

	if (f == NULL)
		return -1;
	put_file_header(f, nano, linktype);
	for (unsigned i = 0; i < n; i++)
		put_record(f, &frames[i], nano);
	return fclose(f);
}

static long
file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void
path_in_dir(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

/* Read path and check it holds exactly frames[0..n-1] with their
 * timestamps (as nanosecond pcap; want_nano_ts: the frames' ns times, else
 * the microsecond ones); 0 or -1 with a message. */
static int
check_pcap(const char *path, unsigned n, int src_nano)
{
	FILE *f = fopen(path, "rb");
	uint32_t hdr[6], rec[4];
	static uint8_t buf[MAX_FRAME];
	unsigned i;

	LR_TEST_ASSERT(f != NULL, "cannot open %s", path);
	LR_TEST_ASSERT(fread(hdr, 4, 6, f) == 6, "%s: short header", path);
	LR_TEST_ASSERT(hdr[0] == 0xa1b23c4d, "%s: magic %#x, not ns pcap", path,
		       hdr[0]);
	LR_TEST_ASSERT(hdr[5] == 1, "%s: link type %u", path, hdr[5]);
	for (i = 0; fread(rec, 4, 4, f) == 4; i++) {
		LR_TEST_ASSERT(i < n, "%s: more than %u frames", path, n);
		const struct frame *fr = &frames[i];
		uint64_t ts = (uint64_t)rec[0] * 1000000000ULL + rec[1];

		LR_TEST_ASSERT(rec[2] == fr->len && rec[3] == fr->len,
			       "%s: frame %u: caplen %u len %u, want %u", path,
			       i, rec[2], rec[3], fr->len);
		LR_TEST_ASSERT(fread(buf, 1, rec[2], f) == rec[2],
			       "%s: frame %u cut", path, i);
		LR_TEST_ASSERT(memcmp(buf, fr->data, fr->len) == 0,
			       "%s: frame %u differs", path, i);
		LR_TEST_ASSERT(ts == ts_in_file(fr, src_nano),
			       "%s: frame %u: time %llu, want %llu", path, i,
			       (unsigned long long)ts,
			       (unsigned long long)ts_in_file(fr, src_nano));
	}
	fclose(f);
	LR_TEST_ASSERT(i == n, "%s: %u frames, want %u", path, i, n);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Ports. */

static int
eal_up(void)
{
	pool =
	    lr_test_port_eal("test_pmd_pcap", "test_pmd_pcap", POOL_SIZE, 32);
	return pool != NULL ? 0 : -1;
}

#define EAL_UP() LR_TEST_ASSERT(eal_up() == 0, "EAL/pool setup failed")

static int
port_create(const char *fmt, const char *a, const char *b)
{
	char args[512];

	snprintf(args, sizeof(args), fmt, a, b);
	return lr_eth_dev_create(args);
}

/* Configure port with one queue pair of 512 descriptors, start it. */
static int
port_start(uint16_t port)
{
	return lr_test_port_start(port, 1, 512, pool);
}

/* Forward everything port rx receives to port tx until rx has been idle
 * for a while; the number forwarded. */
static unsigned
forward_all(uint16_t rx, uint16_t tx)
{
	struct lr_mbuf *pkts[BURST];
	unsigned total = 0, idle = 0;

	while (idle < 100) {
		uint16_t n = lr_eth_rx_burst(rx, 0, pkts, BURST);

		if (n == 0) {
			idle++;
			continue;
		}
		idle = 0;
		uint16_t s = lr_eth_tx_burst(tx, 0, pkts, n);

		lr_pktmbuf_free_bulk(pkts + s, n - s);
		total += s;
	}
	return total;
}

/* Every mbuf of the pool back, its invariants holding. */
static int
no_mbuf_leak(void)
{
	if (lr_test_pool_back(pool) != 0)
		return -1;
	LR_TEST_ASSERT_EQ(lr_mempool_validate(pool), 0);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Cases. */

/* Read a file through net_pcap0, write it with net_pcap1 from a loop in
 * the test, compare. */
static int
loop_case(const void *arg)
{
	const int nano = LR_TEST_INT(arg);
	char in[128], out[128];
	struct lr_eth_stats st;
	int a, b;

	EAL_UP();
	path_in_dir(in, sizeof(in), nano ? "loop_ns.pcap" : "loop_us.pcap");
	path_in_dir(out, sizeof(out),
		    nano ? "loop_ns_out.pcap" : "loop_us_out.pcap");
	LR_TEST_ASSERT_EQ(write_pcap(in, NB_FRAMES, nano, 1), 0);
	a = port_create("net_pcap0,rx_pcap=%s%s", in, "");
	b = port_create("net_pcap1,tx_pcap=%s%s", out, "");
	LR_TEST_ASSERT(a >= 0 && b >= 0, "create: %d %d", a, b);
	LR_TEST_ASSERT_EQ(port_start((uint16_t)a), 0);
	LR_TEST_ASSERT_EQ(port_start((uint16_t)b), 0);
	LR_TEST_ASSERT_EQ(forward_all((uint16_t)a, (uint16_t)b), NB_FRAMES);

	uint64_t bytes = 0;

	for (unsigned i = 0; i < NB_FRAMES; i++)
		bytes += frames[i].len;
	LR_TEST_ASSERT_EQ(lr_eth_stats_get((uint16_t)a, &st), 0);
	LR_TEST_ASSERT_EQ(st.ipackets, NB_FRAMES);
	LR_TEST_ASSERT_EQ(st.ibytes, bytes);
	LR_TEST_ASSERT_EQ(st.rx_nombuf, 0);
	LR_TEST_ASSERT_EQ(lr_eth_stats_get((uint16_t)b, &st), 0);
	LR_TEST_ASSERT_EQ(st.opackets, NB_FRAMES);
	LR_TEST_ASSERT_EQ(st.obytes, bytes);
	LR_TEST_ASSERT_EQ(st.oerrors, 0);

	/* A restarted port reads its file from the start again. */
	LR_TEST_ASSERT_EQ(lr_eth_dev_stop((uint16_t)a), 0);
	LR_TEST_ASSERT_EQ(lr_eth_dev_start((uint16_t)a), 0);
	struct lr_mbuf *m[BURST];
	uint16_t n = lr_eth_rx_burst((uint16_t)a, 0, m, BURST);

	LR_TEST_ASSERT_EQ(n, BURST);
	LR_TEST_ASSERT_EQ(m[0]->pkt_len, frames[0].len);
	LR_TEST_ASSERT(memcmp(lr_pktmbuf_mtod(m[0], void *), frames[0].data,
			      frames[0].len) == 0,
		       "first frame again");
	LR_TEST_ASSERT_EQ(m[0]->timestamp, ts_in_file(&frames[0], nano));
	LR_TEST_ASSERT(m[0]->ol_flags & LR_MBUF_F_RX_TIMESTAMP, "ts flag");
	/* Frame 10 (4000 bytes) came as a chain of mbufs. */
	LR_TEST_ASSERT(m[10]->nb_segs > 1, "4000 bytes in %u segs",
		       m[10]->nb_segs);
	LR_TEST_ASSERT_EQ(lr_mbuf_validate(m[10]), 0);
	lr_pktmbuf_free_bulk(m, n);

	LR_TEST_ASSERT_EQ(lr_eth_dev_close((uint16_t)a), 0);
	LR_TEST_ASSERT_EQ(lr_eth_dev_close((uint16_t)b), 0);
	if (no_mbuf_leak())
		return -1;
	return check_pcap(out, NB_FRAMES, nano);
}

/* lr-l2fwd, beside this test in the build tree, into buf. */
static int
l2fwd_path(char *buf, size_t len)
{
	return lr_test_build_path(buf, len, "apps/l2fwd/lr-l2fwd");
}

/* Run a program; its exit status, or -1. Output goes to stderr. */
static int
run(char *const argv[])
{
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		dup2(2, 1);
		lr_test_execv(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The same through lr-l2fwd (two net_pcap ports given with --vdev). */
static int
test_l2fwd(void)
{
	char l2fwd[600], in[128], out[128], va[300], vb[300], prefix[64];

	if (l2fwd_path(l2fwd, sizeof(l2fwd)) != 0) {
		printf("skip: lr-l2fwd not built beside the tests\n");
		return LR_TEST_SKIP;
	}
	path_in_dir(in, sizeof(in), "l2fwd_in.pcap");
	path_in_dir(out, sizeof(out), "l2fwd_out.pcap");
	LR_TEST_ASSERT_EQ(write_pcap(in, NB_FRAMES, 1, 1), 0);
	snprintf(va, sizeof(va), "net_pcap0,rx_pcap=%s", in);
	snprintf(vb, sizeof(vb), "net_pcap1,tx_pcap=%s", out);
	snprintf(prefix, sizeof(prefix), "--file-prefix=test_pmd_pcap_fwd%d",
		 (int)getpid());
	char *argv[] = {l2fwd,
			"-l",
			"0",
			"--no-huge",
			"-m",
			"256",
			prefix,
			"--vdev",
			va,
			"--vdev",
			vb,
			"--",
			"-p",
			"0x3",
			"-T",
			"0",
			"--no-mac-updating",
			"--duration",
			"1",
			NULL};

	LR_TEST_ASSERT_EQ(run(argv), 0);
	return check_pcap(out, NB_FRAMES, 1);
}

/* tcpdump reads what net_pcap wrote, every frame. */
static int
test_tcpdump(void)
{
	char out[128], cmd[300], line[512];
	unsigned lines = 0, jumbo = 0;
	FILE *p;

	if (access("/usr/bin/tcpdump", X_OK) != 0 &&
	    access("/usr/sbin/tcpdump", X_OK) != 0) {
		printf("skip: tcpdump is not installed\n");
		return LR_TEST_SKIP;
	}
	path_in_dir(out, sizeof(out), "loop_ns_out.pcap");
	if (file_size(out) <= 0) {
		/* Made by loop_ns; run it first when this case runs alone. */
		if (loop_case(LR_TEST_ARG(1)) != 0)
			return -1;
	}
	snprintf(cmd, sizeof(cmd), "tcpdump -nn -e -r '%s' 2>&1", out);
	p = popen(cmd, "r");
	LR_TEST_ASSERT(p != NULL, "popen tcpdump");
	while (fgets(line, sizeof(line), p)) {
		if (strstr(line, "reading from file"))
			continue;
		if (strstr(line, "02:00:00:00:00:02 > 02:00:00:00:00:01"))
			lines++;
		if (strstr(line, "length 9000"))
			jumbo++;
		fputs(line, stderr);
	}
	LR_TEST_ASSERT_EQ(pclose(p), 0);
	LR_TEST_ASSERT_EQ(lines, NB_FRAMES);
	LR_TEST_ASSERT_EQ(jumbo, NB_FRAMES / 12 + (NB_FRAMES % 12 > 11));
	return 0;
}

static int
test_infinite_rx(void)
{
	struct lr_mbuf *m[BURST];
	struct lr_eth_stats st;
	char in[128];
	unsigned got = 0;
	int a;

	EAL_UP();
	path_in_dir(in, sizeof(in), "replay.pcap");
	/* Frames 0..4: 60, 64, 65, 128, 255 bytes. */
	LR_TEST_ASSERT_EQ(write_pcap(in, 5, 0, 1), 0);
	a = port_create("net_pcap4,rx_pcap=%s,infinite_rx=1%s", in, "");
	LR_TEST_ASSERT(a >= 0, "create: %d", a);
	/* Loaded once: the file may go away. */
	LR_TEST_ASSERT_EQ(unlink(in), 0);
	LR_TEST_ASSERT_EQ(port_start((uint16_t)a), 0);
	for (int round = 0; round < 2; round++) {
		while (got < 1000 * (unsigned)(round + 1)) {
			uint16_t n = lr_eth_rx_burst((uint16_t)a, 0, m, BURST);

			LR_TEST_ASSERT_EQ(n, BURST);
			for (uint16_t i = 0; i < n; i++, got++) {
				const struct frame *f = &frames[got % 5];

				LR_TEST_ASSERT_EQ(m[i]->pkt_len, f->len);
				LR_TEST_ASSERT(
				    memcmp(lr_pktmbuf_mtod(m[i], void *),
					   f->data, f->len) == 0,
				    "replayed packet %u differs", got);
			}
			lr_pktmbuf_free_bulk(m, n);
		}
		/* A restart replays from the first packet again. */
		LR_TEST_ASSERT_EQ(lr_eth_dev_stop((uint16_t)a), 0);
		LR_TEST_ASSERT_EQ(lr_eth_dev_start((uint16_t)a), 0);
		got = (got + 4) / 5 * 5;
	}
	LR_TEST_ASSERT_EQ(lr_eth_stats_get((uint16_t)a, &st), 0);
	LR_TEST_ASSERT(st.ipackets >= 2000, "ipackets %llu",
		       (unsigned long long)st.ipackets);
	LR_TEST_ASSERT_EQ(lr_eth_dev_close((uint16_t)a), 0);
	return no_mbuf_leak();
}

/* A file whose last record is cut: the earlier ones are delivered, the
 * cut one is reported with its number and counted. */
static int
truncated_case(long cut_from_end, int infinite)
{
	struct lr_mbuf *m[BURST];
	char in[128], arg[200];
	uint64_t trunc = 0;
	unsigned got = 0;
	long size;
	int a;

	EAL_UP();
	path_in_dir(in, sizeof(in), "cut.pcap");
	LR_TEST_ASSERT_EQ(write_pcap(in, 5, 1, 1), 0);
	size = file_size(in);
	LR_TEST_ASSERT_EQ(truncate(in, size - cut_from_end), 0);
	snprintf(arg, sizeof(arg), "net_pcap5,rx_pcap=%s%s", in,
		 infinite ? ",infinite_rx=1" : "");
	lr_test_log_begin();
	a = lr_eth_dev_create(arg);
	if (a >= 0 && port_start((uint16_t)a) == 0) {
		/* Read until idle (a file) or two rounds (a replay). */
		for (int idle = 0; idle < 10 && (!infinite || got < 8);) {
			uint16_t n = lr_eth_rx_burst((uint16_t)a, 0, m, 4);

			for (uint16_t i = 0; i < n; i++, got++) {
				const struct frame *f = &frames[got % 4];

				if (m[i]->pkt_len != f->len ||
				    memcmp(lr_pktmbuf_mtod(m[i], void *),
					   f->data, f->len))
					got = 1000;
			}
			lr_pktmbuf_free_bulk(m, n);
			idle = n ? 0 : idle + 1;
		}
	}
	const char *t = lr_test_log_end();

	LR_TEST_ASSERT(a >= 0, "create: %d", a);
	LR_TEST_ASSERT_EQ(got, 4 + 4 * (unsigned)infinite);
	LR_TEST_ASSERT(strstr(t, "net_pcap5: rx_pcap: '") &&
			   strstr(t, "cut.pcap': record 5 is truncated"),
		       "log '%s' lacks the record number", t);
	LR_TEST_ASSERT_EQ(lr_eth_xstats_get_by_name(
			      (uint16_t)a, "rx_truncated_records", &trunc),
			  0);
	LR_TEST_ASSERT_EQ(trunc, 1);
	LR_TEST_ASSERT_EQ(lr_eth_dev_close((uint16_t)a), 0);
	return no_mbuf_leak();
}

static int
test_truncated_last_record(void)
{
	/* Cut in the data of the last record (255 bytes), then in its
	 * 16-byte record header, then with infinite replay. */
	if (truncated_case(100, 0) || truncated_case(255 + 8, 0))
		return -1;
	return truncated_case(100, 1);
}

/* Files that cannot be read: the port is not created and the message
 * names the port, the key and the file. */
static int
test_bad_files(void)
{
	char missing[128], garbage[128], shorthdr[128], empty[128], sll[128];
	char nodir[160];
	FILE *f;

	EAL_UP();
	path_in_dir(missing, sizeof(missing), "missing.pcap");
	path_in_dir(garbage, sizeof(garbage), "garbage.pcap");
	path_in_dir(shorthdr, sizeof(shorthdr), "shorthdr.pcap");
	path_in_dir(empty, sizeof(empty), "empty.pcap");
	path_in_dir(sll, sizeof(sll), "sll.pcap");
	path_in_dir(nodir, sizeof(nodir), "no/such/dir/out.pcap");
	f = fopen(garbage, "w");
	LR_TEST_ASSERT(f != NULL, "garbage");
	for (int i = 0; i < 20; i++)
		fputs("this is no pcap file\n", f);
	fclose(f);
	LR_TEST_ASSERT_EQ(write_pcap(shorthdr, 3, 0, 1), 0);
	LR_TEST_ASSERT_EQ(truncate(shorthdr, 10), 0);
	f = fopen(empty, "w");
	LR_TEST_ASSERT(f != NULL, "empty");
	fclose(f);
	LR_TEST_ASSERT_EQ(write_pcap(sll, 3, 0, 113), 0);

	const struct {
		const char *key;
		const char *path;
		int err;
		const char *msg;
		const char *msg2;
	} bad[] = {
	    {"rx_pcap", missing, -ENOENT, "cannot open '",
	     "missing.pcap': No such file or directory"},
	    {"rx_pcap", garbage, -EINVAL, "cannot read '", "garbage.pcap': "},
	    {"rx_pcap", shorthdr, -EINVAL, "cannot read '",
	     "shorthdr.pcap': truncated"},
	    {"rx_pcap", empty, -EINVAL, "cannot read '", "empty.pcap': "},
	    {"rx_pcap", sll, -EPROTONOSUPPORT, "'",
	     "sll.pcap' has link type LINUX_SLL (113); only EN10MB"},
	    {"tx_pcap", nodir, -ENOENT, "cannot open '",
	     "out.pcap' for writing: No such file or directory"},
	};
	unsigned before = lr_eth_dev_count_avail();

	for (unsigned i = 0; i < LR_DIM(bad); i++) {
		char arg[300], want[300];

		snprintf(arg, sizeof(arg), "net_pcap6,%s=%s", bad[i].key,
			 bad[i].path);
		snprintf(want, sizeof(want), "net_pcap6: %s: %s", bad[i].key,
			 bad[i].msg);
		lr_test_log_begin();
		int r = lr_eth_dev_create(arg);
		const char *t = lr_test_log_end();

		LR_TEST_ASSERT(r == bad[i].err, "'%s' gave %d, want %d", arg, r,
			       bad[i].err);
		LR_TEST_ASSERT(strstr(t, want) && strstr(t, bad[i].msg2),
			       "'%s': log '%s' lacks '%s...%s'", arg, t, want,
			       bad[i].msg2);
		LR_TEST_ASSERT_EQ(lr_eth_dev_count_avail(), before);
	}
	/* The same file given as the infinite replay source. */
	char arg[300];

	snprintf(arg, sizeof(arg), "net_pcap6,rx_pcap=%s,infinite_rx=1",
		 missing);
	lr_test_log_begin();
	LR_TEST_ASSERT_EQ(lr_eth_dev_create(arg), -ENOENT);
	LR_TEST_ASSERT(
	    strstr(lr_test_log_end(), "net_pcap6: rx_pcap: cannot open '"),
	    "infinite missing");
	LR_TEST_ASSERT_EQ(lr_eth_dev_validate(), 0);
	return 0;
}

static int
test_bad_devargs(void)
{
	char in[128];
	const struct lr_test_refused bad[] = {
	    {"net_pcap7", -EINVAL,
	     "net_pcap7: nothing to read or write: give rx_pcap"},
	    {"net_pcap7,iface=lo,rx_pcap=%s", -EINVAL,
	     "net_pcap7: rx_pcap: give only one of rx_pcap, rx_iface and "
	     "iface"},
	    {"net_pcap7,rx_iface=lo,rx_pcap=%s", -EINVAL,
	     "give only one of rx_pcap, rx_iface and iface"},
	    {"net_pcap7,rx_pcap=", -EINVAL,
	     "net_pcap7: rx_pcap: empty value (expected a file name)"},
	    {"net_pcap7,rx_pcap=%s,infinite_rx=2", -EINVAL,
	     "net_pcap7: infinite_rx: bad value '2'"},
	    {"net_pcap7,tx_pcap=%s,infinite_rx=1", -EINVAL,
	     "net_pcap7: infinite_rx: '1' needs rx_pcap=FILE"},
	    {"net_pcap7,rx_iface=lrnosuchif0", -ENODEV,
	     "net_pcap7: rx_iface: no interface 'lrnosuchif0'"},
	    {"net_pcap7,iface=lrnosuchif0", -ENODEV,
	     "net_pcap7: iface: no interface 'lrnosuchif0'"},
	    {"net_pcap7,rx_pcap=%s,speed=1", -EINVAL,
	     "net_pcap7: unknown key 'speed'"},
	    {"net_pcap7,tx_pcap=%s.out,tx_pcap_mode=0999", -EINVAL,
	     "net_pcap7: tx_pcap_mode: bad value '0999' (expected octal"},
	    {"net_pcap7,tx_pcap=%s.out,tx_pcap_mode=-600", -EINVAL,
	     "net_pcap7: tx_pcap_mode: bad value '-600'"},
	    {"net_pcap7,tx_pcap=%s.out,tx_pcap_mode=1777", -EINVAL,
	     "net_pcap7: tx_pcap_mode: bad value '1777'"},
	    {"net_pcap7,rx_pcap=%s,tx_pcap_mode=0600", -EINVAL,
	     "net_pcap7: tx_pcap_mode: '0600' needs tx_pcap=FILE"},
	};

	EAL_UP();
	path_in_dir(in, sizeof(in), "ok.pcap");
	LR_TEST_ASSERT_EQ(write_pcap(in, 2, 0, 1), 0);
	for (unsigned i = 0; i < LR_DIM(bad); i++) {
		char arg[300];

		snprintf(arg, sizeof(arg), bad[i].args, in);
		if (lr_test_port_refused(arg, bad[i].err, bad[i].msg) != 0)
			return -1;
	}
	/* More queues than sources are refused; one per file is fine. */
	char arg[400];

	snprintf(arg, sizeof(arg), "net_pcap7,rx_pcap=%s,rx_pcap=%s", in, in);
	int p = lr_eth_dev_create(arg);

	LR_TEST_ASSERT(p >= 0, "two rx files: %d", p);
	lr_test_log_begin();
	LR_TEST_ASSERT(lr_eth_dev_configure((uint16_t)p, 3, 1, NULL) < 0,
		       "3 rx queues over 2 files accepted");
	lr_test_log_end();
	LR_TEST_ASSERT_EQ(lr_eth_dev_configure((uint16_t)p, 2, 1, NULL), 0);
	LR_TEST_ASSERT_EQ(lr_eth_dev_close((uint16_t)p), 0);
	return 0;
}

/* Run a shell command; 0 if it succeeded. */
static int
sh(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* In a child with a network namespace of its own (gone with the child):
 * a veth pair, net_pcap on each end, frames sent on one end arrive at the
 * other byte for byte. */
static int
iface_child(void)
{
	struct lr_mbuf *m[BURST];
	unsigned got = 0;
	int a, b;

	LR_TEST_ASSERT_EQ(unshare(CLONE_NEWNET), 0);
	LR_TEST_ASSERT_EQ(sh("ip link add lrpa type veth peer name lrpb && "
			     "for d in lrpa lrpb; do "
			     "sysctl -qw net.ipv6.conf.$d.disable_ipv6=1; "
			     "ip link set $d multicast off; "
			     "ip link set $d up; done"),
			  0);
	a = lr_eth_dev_create("net_pcap8,iface=lrpa");
	b = lr_eth_dev_create("net_pcap9,rx_iface=lrpb");
	LR_TEST_ASSERT(a >= 0 && b >= 0, "create %d %d", a, b);
	LR_TEST_ASSERT_EQ(port_start((uint16_t)a), 0);
	LR_TEST_ASSERT_EQ(port_start((uint16_t)b), 0);
	/* veth carries frames up to its MTU: the first 8 (<= 1514). */
	for (unsigned i = 0; i < 8; i++) {
		struct lr_mbuf *x = lr_pktmbuf_alloc(pool);

		LR_TEST_ASSERT(x != NULL, "alloc");
		memcpy(lr_pktmbuf_append(x, (uint16_t)frames[i].len),
		       frames[i].data, frames[i].len);
		LR_TEST_ASSERT_EQ(lr_eth_tx_burst((uint16_t)a, 0, &x, 1), 1);
	}
	uint64_t end = lr_get_tsc_cycles() + 2 * lr_get_tsc_hz();

	while (got < 8 && lr_get_tsc_cycles() < end) {
		uint16_t n = lr_eth_rx_burst((uint16_t)b, 0, m, BURST);

		for (uint16_t i = 0; i < n; i++, got++) {
			LR_TEST_ASSERT_EQ(m[i]->pkt_len, frames[got].len);
			LR_TEST_ASSERT(memcmp(lr_pktmbuf_mtod(m[i], void *),
					      frames[got].data,
					      frames[got].len) == 0,
				       "frame %u differs", got);
		}
		lr_pktmbuf_free_bulk(m, n);
	}
	LR_TEST_ASSERT_EQ(got, 8);
	/* Nothing came back on the sending end (it sees only incoming). */
	LR_TEST_ASSERT_EQ(lr_eth_rx_burst((uint16_t)a, 0, m, BURST), 0);
	LR_TEST_ASSERT_EQ(lr_eth_dev_close((uint16_t)a), 0);
	LR_TEST_ASSERT_EQ(lr_eth_dev_close((uint16_t)b), 0);
	return no_mbuf_leak();
}

static int
test_iface(void)
{
	pid_t pid;
	int st;

	if (geteuid() != 0) {
		printf("skip: live interfaces need root (a network namespace "
		       "and a veth pair)\n");
		return LR_TEST_SKIP;
	}
	if (sh("command -v ip >/dev/null") != 0) {
		printf("skip: the ip command (iproute2) is not installed\n");
		return LR_TEST_SKIP;
	}
	EAL_UP();
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		_exit(iface_child() == 0 ? 0 : 1);
	LR_TEST_ASSERT(pid > 0 && waitpid(pid, &st, 0) == pid, "fork/wait");
	LR_TEST_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		       "child failed (status %#x)", st);
	return 0;
}

/* Runts: records of 0, 2 and 13 bytes (shorter than an Ethernet header)
 * are dropped and counted (rx_runts and ierrors), the 14-byte and 60-byte
 * ones delivered; with infinite_rx the runts are dropped at load, counted
 * once. */
static int
runts_case(int infinite)
{
	static const uint32_t caplen[] = {0, 14, 2, 60, 13};
	static const uint32_t expect[] = {14, 60};
	struct lr_mbuf *m[BURST];
	char in[128], arg[200];
	unsigned got = 0, want = infinite ? 6 : 2;
	struct lr_eth_stats st;
	uint64_t runts = 0;
	FILE *f;
	int a;

	EAL_UP();
	path_in_dir(in, sizeof(in), "runts.pcap");
	f = fopen(in, "wb");
	LR_TEST_ASSERT(f != NULL, "create %s", in);
	put_file_header(f, 0, 1);
	for (unsigned r = 0; r < LR_DIM(caplen); r++) {
		put32(f, 1714979289);
		put32(f, r);
		put32(f, caplen[r]);
		put32(f, 60); /* len on the wire */
		fwrite(frames[0].data, 1, caplen[r], f);
	}
	LR_TEST_ASSERT_EQ(fclose(f), 0);
	snprintf(arg, sizeof(arg), "net_pcap6,rx_pcap=%s%s", in,
		 infinite ? ",infinite_rx=1" : "");
	a = lr_eth_dev_create(arg);
	LR_TEST_ASSERT(a >= 0, "create: %d", a);
	LR_TEST_ASSERT_EQ(port_start((uint16_t)a), 0);
	/* A file: read to its end; a replay: two rounds. */
	for (int idle = 0; idle < 10 && (!infinite || got < want);) {
		uint16_t n = lr_eth_rx_burst((uint16_t)a, 0, m, 2);
		int bad = 0;

		for (uint16_t i = 0; i < n; i++, got++)
			if (m[i]->pkt_len != expect[got % 2] ||
			    memcmp(lr_pktmbuf_mtod(m[i], void *),
				   frames[0].data, m[i]->pkt_len) != 0 ||
			    lr_mbuf_validate(m[i]) != 0)
				bad = (int)got + 1;
		lr_pktmbuf_free_bulk(m, n);
		LR_TEST_ASSERT(bad == 0, "packet %d is not the %u-byte one",
			       bad - 1, expect[(bad - 1) % 2]);
		idle = n ? 0 : idle + 1;
	}
	LR_TEST_ASSERT(infinite ? got >= want : got == want,
		       "received %u packets, want %u", got, want);
	LR_TEST_ASSERT_EQ(
	    lr_eth_xstats_get_by_name((uint16_t)a, "rx_runts", &runts), 0);
	LR_TEST_ASSERT_EQ(runts, 3);
	LR_TEST_ASSERT_EQ(lr_eth_stats_get((uint16_t)a, &st), 0);
	LR_TEST_ASSERT_EQ(st.ierrors, 3);
	LR_TEST_ASSERT_EQ(lr_eth_dev_close((uint16_t)a), 0);
	return no_mbuf_leak();
}

static int
test_runts(void)
{
	if (runts_case(0) != 0)
		return -1;
	return runts_case(1);
}

/* Mode of a file fd-written by a net_pcap port given devargs extra (under
 * umask 000); -1 on error. */
static int
tx_file_mode(const char *path, const char *extra)
{
	char arg[300];
	struct stat st;
	int a;

	snprintf(arg, sizeof(arg), "net_pcap8,tx_pcap=%s%s", path, extra);
	a = lr_eth_dev_create(arg);
	if (a < 0)
		return -1;
	if (lr_eth_dev_close((uint16_t)a) != 0 || stat(path, &st) != 0)
		return -1;
	return (int)(st.st_mode & 07777);
}

/* Capture files are created 0600 whatever the umask, tx_pcap_mode gives
 * another mode, and an existing file loses what was not asked. */
static int
test_tx_mode(void)
{
	char out[128];
	mode_t old;
	int m1, m2, m3, m4;

	EAL_UP();
	path_in_dir(out, sizeof(out), "mode.pcap");
	old = umask(0);
	m1 = tx_file_mode(out, "");
	unlink(out);
	m2 = tx_file_mode(out, ",tx_pcap_mode=0640");
	chmod(out, 0666);
	m3 = tx_file_mode(out, "");
	chmod(out, 0600);
	m4 = tx_file_mode(out, ",tx_pcap_mode=0644");
	umask(old);
	LR_TEST_ASSERT(m1 == 0600, "new file: mode %04o, want 0600", m1);
	LR_TEST_ASSERT(m2 == 0640, "tx_pcap_mode=0640: mode %04o", m2);
	LR_TEST_ASSERT(m3 == 0600, "existing 0666 file: mode %04o, want 0600",
		       m3);
	/* Never widened: an existing 0600 file stays 0600. */
	LR_TEST_ASSERT(m4 == 0600, "existing 0600 file: mode %04o", m4);
	return 0;
}

/* Count the records of a nanosecond pcap file holding copies of fr and
 * check each one whole and intact; the count, or -1 with a message. */
static long
count_whole_records(const char *path, const struct frame *fr)
{
	FILE *f = fopen(path, "rb");
	static uint8_t buf[MAX_FRAME];
	uint32_t hdr[6], rec[4];
	long n = 0;
	size_t got;

	if (f == NULL || fread(hdr, 4, 6, f) != 6 || hdr[0] != 0xa1b23c4d) {
		fprintf(stderr, "%s: no nanosecond pcap header\n", path);
		goto fail;
	}
	while ((got = fread(rec, 1, 16, f)) == 16) {
		if (rec[2] != fr->len || rec[3] != fr->len ||
		    fread(buf, 1, rec[2], f) != rec[2] ||
		    memcmp(buf, fr->data, fr->len) != 0) {
			fprintf(stderr, "%s: record %ld is cut or wrong\n",
				path, n + 1);
			goto fail;
		}
		n++;
	}
	if (got != 0) {
		fprintf(stderr, "%s: %zu bytes after record %ld\n", path, got,
			n);
		goto fail;
	}
	fclose(f);
	return n;
fail:
	if (f)
		fclose(f);
	return -1;
}

/* How many times needle occurs in hay. */
static unsigned
occurrences(const char *hay, const char *needle)
{
	unsigned n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* A full file system under a tx_pcap file (a 256 KiB tmpfs): the port
 * takes every frame, counts as sent only the records that reached the
 * file, the rest in oerrors and tx_write_errors, logs the error once
 * naming the file, cuts the file back to a whole record, and stop and
 * close return -EIO. A file on /dev/full fails at probe. */
static int
test_tx_disk_full(void)
{
	char mnt[128], out[200], arg[300], want[300];
	struct lr_mbuf *m[BURST];
	struct lr_eth_stats st;
	uint64_t werr = 0;
	unsigned offered = 0;
	long whole;
	int a, stop_ret = 0, close_ret = 0;
	const struct frame *fr = &frames[7]; /* 1514 bytes: one mbuf */

	if (geteuid() != 0) {
		fprintf(stderr, "tx_disk_full: needs root to mount a small "
				"tmpfs; skipped\n");
		return LR_TEST_SKIP;
	}
	EAL_UP();
	path_in_dir(mnt, sizeof(mnt), "small");
	LR_TEST_ASSERT(mkdir(mnt, 0700) == 0, "mkdir %s", mnt);
	snprintf(arg, sizeof(arg), "mount -t tmpfs -o size=256k lrtest '%s'",
		 mnt);
	if (system(arg) != 0) {
		rmdir(mnt);
		fprintf(stderr,
			"tx_disk_full: cannot mount a tmpfs (%s); "
			"skipped\n",
			arg);
		return LR_TEST_SKIP;
	}
	snprintf(out, sizeof(out), "%s/full.pcap", mnt);
	a = port_create("net_pcap9,tx_pcap=%s%s", out, "");
	if (a >= 0 && port_start((uint16_t)a) == 0) {
		lr_test_log_begin();
		/* About 1 MiB of frames into 256 KiB. */
		while (offered < 20 * BURST) {
			if (lr_pktmbuf_alloc_bulk(pool, m, BURST) != 0)
				break;
			for (unsigned i = 0; i < BURST; i++) {
				memcpy(
				    lr_pktmbuf_append(m[i], (uint16_t)fr->len),
				    fr->data, fr->len);
			}
			offered += lr_eth_tx_burst((uint16_t)a, 0, m, BURST);
		}
		lr_eth_stats_get((uint16_t)a, &st);
		lr_eth_xstats_get_by_name((uint16_t)a, "tx_write_errors",
					  &werr);
		stop_ret = lr_eth_dev_stop((uint16_t)a);
		close_ret = lr_eth_dev_close((uint16_t)a);
	}
	const char *t = lr_test_log_end();

	whole = a >= 0 ? count_whole_records(out, fr) : -1;
	snprintf(arg, sizeof(arg), "umount '%s'", mnt);
	if (system(arg) != 0 || rmdir(mnt) != 0)
		fprintf(stderr, "cannot remove %s\n", mnt);
	LR_TEST_ASSERT(a >= 0, "create: %d", a);
	LR_TEST_ASSERT_EQ(offered, 20 * BURST);
	LR_TEST_ASSERT(whole > 0 && whole < (long)offered,
		       "%ld whole records of %u", whole, offered);
	LR_TEST_ASSERT_EQ(st.opackets, whole);
	LR_TEST_ASSERT_EQ(st.oerrors, offered - whole);
	LR_TEST_ASSERT_EQ(werr, offered - whole);
	snprintf(want, sizeof(want),
		 "net_pcap9: tx_pcap: cannot write '%s': No space left on "
		 "device",
		 out);
	LR_TEST_ASSERT(occurrences(t, want) == 1,
		       "log '%s' has not exactly one '%s'", t, want);
	LR_TEST_ASSERT_EQ(stop_ret, -EIO);
	LR_TEST_ASSERT_EQ(close_ret, -EIO);

	/* No room even for the file header. */
	lr_test_log_begin();
	a = lr_eth_dev_create("net_pcap9,tx_pcap=/dev/full");
	t = lr_test_log_end();
	LR_TEST_ASSERT_EQ(a, -ENOSPC);
	LR_TEST_ASSERT(strstr(t, "net_pcap9: tx_pcap: cannot write "
				 "'/dev/full': No space left on device"),
		       "log '%s'", t);
	return no_mbuf_leak();
}

/* A bad record inside a file (the file goes on after it) is corruption:
 * the records before it are delivered, an ERR names the record, one
 * ierror; with infinite_rx the probe fails. */
static int
test_corrupt_record(void)
{
	struct lr_mbuf *m[BURST];
	char in[128], arg[200];
	struct lr_eth_stats st;
	uint64_t trunc = 1;
	unsigned got = 0;
	FILE *f;
	int a;

	EAL_UP();
	path_in_dir(in, sizeof(in), "corrupt.pcap");
	f = fopen(in, "wb");
	LR_TEST_ASSERT(f != NULL, "create %s", in);
	put_file_header(f, 1, 1);
	for (unsigned i = 0; i < 6; i++) {
		struct frame fr = frames[i];

		if (i == 3) {
			/* A caplen no pcap file can hold, then the data of
			 * a normal record. */
			put32(f, 1);
			put32(f, 2);
			put32(f, 0x7ffffff0);
			put32(f, fr.len);
			fwrite(fr.data, 1, fr.len, f);
			continue;
		}
		put_record(f, &fr, 1);
	}
	LR_TEST_ASSERT_EQ(fclose(f), 0);
	snprintf(arg, sizeof(arg), "net_pcap5,rx_pcap=%s", in);
	lr_test_log_begin();
	a = lr_eth_dev_create(arg);
	if (a >= 0 && port_start((uint16_t)a) == 0) {
		for (int idle = 0; idle < 10;) {
			uint16_t n = lr_eth_rx_burst((uint16_t)a, 0, m, 4);

			for (uint16_t i = 0; i < n; i++, got++)
				if (m[i]->pkt_len != frames[got].len)
					got = 1000;
			lr_pktmbuf_free_bulk(m, n);
			idle = n ? 0 : idle + 1;
		}
	}
	const char *t = lr_test_log_end();

	LR_TEST_ASSERT(a >= 0, "create: %d", a);
	LR_TEST_ASSERT_EQ(got, 3);
	LR_TEST_ASSERT(strstr(t, "net_pcap5: rx_pcap: '") &&
			   strstr(t, "corrupt.pcap': record 4 is corrupt"),
		       "log '%s' lacks the corrupt record", t);
	LR_TEST_ASSERT_EQ(lr_eth_stats_get((uint16_t)a, &st), 0);
	LR_TEST_ASSERT_EQ(st.ierrors, 1);
	LR_TEST_ASSERT_EQ(lr_eth_xstats_get_by_name(
			      (uint16_t)a, "rx_truncated_records", &trunc),
			  0);
	LR_TEST_ASSERT_EQ(trunc, 0);
	LR_TEST_ASSERT_EQ(lr_eth_dev_close((uint16_t)a), 0);

	snprintf(arg, sizeof(arg), "net_pcap5,rx_pcap=%s,infinite_rx=1", in);
	lr_test_log_begin();
	a = lr_eth_dev_create(arg);
	t = lr_test_log_end();
	LR_TEST_ASSERT_EQ(a, -EINVAL);
	LR_TEST_ASSERT(strstr(t, "corrupt.pcap': record 4 is corrupt"),
		       "infinite_rx: log '%s'", t);
	return no_mbuf_leak();
}

/* ------------------------------------------------------------------ */
/* Offloads: frames asking for checksums are written complete. */

/* Ethernet + IPv4 or IPv6 + TCP or UDP + payload into f; the L4 checksum
 * field holds the pseudo-header sum (partial) or garbage, the IPv4 one
 * garbage unless partial. Returns the length; *l3 the IP header bytes. */
static uint32_t
csum_frame(uint8_t *f, int v6, int udp, int partial, uint32_t payload,
	   uint32_t *l3)
{
	uint32_t l4 = udp ? 8 : 20, len, ps;
	uint8_t *ip = f + 14, *t;

	memset(f, 0, 14 + 40 + 20);
	memset(f, 0x02, 12);
	*l3 = v6 ? 40 : 20;
	t = ip + *l3;
	len = 14 + *l3 + l4 + payload;
	f[12] = v6 ? 0x86 : 0x08;
	f[13] = v6 ? 0xdd : 0x00;
	if (v6) {
		ip[0] = 0x60;
		ip[4] = (uint8_t)((l4 + payload) >> 8);
		ip[5] = (uint8_t)(l4 + payload);
		ip[6] = udp ? 17 : 6;
		ip[7] = 64;
		for (int i = 0; i < 32; i++)
			ip[8 + i] = (uint8_t)(i * 11 + 1);
		ps = lr_test_cksum_ref(ip + 8, 32,
				       (udp ? 17 : 6) + l4 + payload);
	} else {
		ip[0] = 0x45;
		ip[2] = (uint8_t)((20 + l4 + payload) >> 8);
		ip[3] = (uint8_t)(20 + l4 + payload);
		ip[8] = 64;
		ip[9] = udp ? 17 : 6;
		for (int i = 0; i < 8; i++)
			ip[12 + i] = (uint8_t)(10 + i);
		if (partial) {
			uint32_t c = ~lr_test_cksum_ref(ip, 20, 0) & 0xffff;

			ip[10] = (uint8_t)(c >> 8);
			ip[11] = (uint8_t)c;
		} else {
			ip[10] = 0xde;
			ip[11] = 0xad;
		}
		ps = lr_test_cksum_ref(ip + 12, 8,
				       (udp ? 17 : 6) + l4 + payload);
	}
	t[0] = 0x9c;
	t[3] = 80;
	if (udp) {
		t[4] = (uint8_t)((l4 + payload) >> 8);
		t[5] = (uint8_t)(l4 + payload);
	} else {
		t[12] = 0x50;
		t[13] = 0x18;
	}
	for (uint32_t i = 0; i < payload; i++)
		t[l4 + i] = (uint8_t)(i * 13 + 7);
	if (!partial)
		ps = 0xbeef;
	t[udp ? 6 : 16] = (uint8_t)(ps >> 8);
	t[udp ? 7 : 17] = (uint8_t)ps;
	return len;
}

static int
test_offload_cksum(void)
{
	static uint8_t f[4096], rec[4096];
	char out[128];
	uint32_t lens[4], l3;
	struct lr_mbuf *m[4];
	int b;
	FILE *in;

	EAL_UP();
	path_in_dir(out, sizeof(out), "offload.pcap");
	b = port_create("net_pcap1,tx_pcap=%s%s", out, "");
	LR_TEST_ASSERT(b >= 0 && port_start((uint16_t)b) == 0, "port");
	/* Partial (virtio-net) IPv4 TCP, IPv6 UDP, IPv6 TCP of odd length;
	 * then IPv4 UDP asking for both checksums from the header lengths. */
	for (int k = 0; k < 4; k++) {
		int v6 = k == 1 || k == 2, udp = k == 1 || k == 3;

		lens[k] = csum_frame(f, v6, udp, k < 3, 1001 + 400 * k, &l3);
		m[k] = lr_pktmbuf_alloc(pool);
		LR_TEST_ASSERT(m[k] != NULL && lr_pktmbuf_append_copy(
						   m[k], pool, f, lens[k]) == 0,
			       "mbuf");
		if (k < 3) {
			m[k]->ol_flags = LR_MBUF_F_RX_L4_CKSUM_PARTIAL;
			m[k]->csum_start = (uint16_t)(14 + l3);
			m[k]->csum_offset = udp ? 6 : 16;
		} else {
			m[k]->ol_flags =
			    LR_MBUF_F_TX_UDP_CKSUM | LR_MBUF_F_TX_IP_CKSUM;
			m[k]->l2_len = 14;
			m[k]->l3_len = 20;
		}
	}
	LR_TEST_ASSERT_EQ(lr_eth_tx_burst((uint16_t)b, 0, m, 4), 4);
	LR_TEST_ASSERT_EQ(lr_eth_dev_close((uint16_t)b), 0);
	in = fopen(out, "rb");
	LR_TEST_ASSERT(in != NULL && fread(rec, 1, 24, in) == 24, "%s", out);
	for (int k = 0; k < 4; k++) {
		int v6 = k == 1 || k == 2, udp = k == 1 || k == 3;
		uint32_t caplen, n, ip_len = v6 ? 40 : 20;
		const uint8_t *ip = rec + 14;

		LR_TEST_ASSERT(fread(rec, 1, 16, in) == 16, "record %d", k);
		memcpy(&caplen, rec + 8, 4);
		LR_TEST_ASSERT_EQ(caplen, lens[k]);
		LR_TEST_ASSERT(fread(rec, 1, caplen, in) == caplen, "data");
		n = caplen - 14 - ip_len;
		if (!v6)
			LR_TEST_ASSERT_EQ(lr_test_cksum_ref(ip, 20, 0), 0xffff);
		uint32_t s =
		    v6 ? lr_test_cksum_ref(ip + 8, 32, (udp ? 17 : 6) + n)
		       : lr_test_cksum_ref(ip + 12, 8, (udp ? 17 : 6) + n);
		s = lr_test_cksum_ref(ip + ip_len, n, s);
		LR_TEST_ASSERT(s == 0xffff, "frame %d: L4 sum %#x", k, s);
	}
	fclose(in);
	return no_mbuf_leak();
}

static const struct lr_test_case cases[] = {
    {"loop_us", NULL, loop_case, LR_TEST_ARG(0)},
    {"loop_ns", NULL, loop_case, LR_TEST_ARG(1)},
    {"l2fwd", test_l2fwd},
    {"offload_cksum", test_offload_cksum},
    {"tcpdump", test_tcpdump},
    {"infinite_rx", test_infinite_rx},
    {"truncated_last_record", test_truncated_last_record},
    {"bad_files", test_bad_files},
    {"runts", test_runts},
    {"corrupt_record", test_corrupt_record},
    {"tx_mode", test_tx_mode},
    {"tx_disk_full", test_tx_disk_full},
    {"bad_devargs", test_bad_devargs},
    {"iface", test_iface},
};

int
main(int argc, char **argv)
{
	if (lr_eth_driver_find("net_pcap") == NULL) {
		printf("skip: net_pcap is not built in (libpcap missing or "
		       "-Ddisable_drivers)\n");
		return LR_TEST_SKIP;
	}
	dir = lr_test_private_dir("test_pmd_pcap");
	if (dir == NULL)
		return 1;
	make_frames();
	return lr_test_run("pmd_pcap", cases, (int)LR_DIM(cases), argc, argv);
}
