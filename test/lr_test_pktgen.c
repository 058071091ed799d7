/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_test_pktgen.c - what the lr-pktgen test programs share (see
 * lr_test_pktgen.h): runs of the lr-pktgen binary of this build tree with
 * their output read back, pcap files read and written without libpcap, the
 * frames' headers and stamp checked, JSON read with jansson, a scratch
 * folder removed at exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "lr_test.h"
#include "lr_test_pktgen.h"
/* The stamp's check value (pg_stamp_check()), as lr-pktgen computes it. */
#include "../apps/pktgen/pktgen.h"

char pktgen_bin[PATH_MAX];
char out[OUT_MAX];
char tmpdir[PATH_MAX];
struct frame *frames;
unsigned nframes;

static int
find_binary(void)
{
	return lr_test_build_path(pktgen_bin, sizeof(pktgen_bin),
				  "apps/pktgen/lr-pktgen");
}

/* Split args at spaces into argv, after argv[0] = bin: at most max - 1
 * entries, then NULL. With prefix, a --file-prefix=NAME gets "_<pid>"
 * added (written there), so that every run of this test has its own. */
void
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
int
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

int
vrun_sig(int (*spawn)(struct lr_test_child *c, char *const argv[]),
	 const char *ready, const char *fmt, va_list ap)
{
	char args[4096], *argv[128], prefix[80];
	struct lr_test_child c;

	vsnprintf(args, sizeof(args), fmt, ap);
	split_args(args, pktgen_bin, argv, 128, prefix, sizeof(prefix));
	if (spawn(&c, argv) != 0)
		return -1;
	return sigint_when_ready(&c, ready);
}

/* lr-pktgen started with argv, its stdout and stderr into out. */
static int
spawn_out(struct lr_test_child *c, char *const argv[])
{
	return lr_test_spawn(c, pktgen_bin, argv, out, OUT_MAX);
}

/* Run lr-pktgen with the space-separated args (after the binary name);
 * stdout and stderr go to out. A --file-prefix=NAME gets "_<pid>" added, so
 * that every run of this test has its own prefix. If ready is not NULL,
 * wait until lr-pktgen printed it, then send SIGINT. Returns the exit
 * status, -1 if it did not exit normally, -2 if it never printed ready
 * (after READY_S seconds; killed then). */
int
run_sig(const char *ready, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vrun_sig(spawn_out, ready, fmt, ap);
	va_end(ap);
	return ret;
}

/* Run lr-pktgen as run() does, but with its stdout into the file
 * stdout_path and only its stderr into out. The exit status, or -1. */
int
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
double
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

int
final_line_is_last(void)
{
	const char *line = strstr(out, "pktgen total:");
	const char *nl;

	if (line == NULL)
		return 0;
	nl = strchr(line, '\n');
	return nl != NULL && nl[1] == '\0';
}

/* ---- pcap files (the file format, without libpcap) ---- */

int
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

uint32_t
be16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

uint32_t
be32(const uint8_t *p)
{
	return be16(p) << 16 | be16(p + 2);
}

uint32_t
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

uint16_t
fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* Headers of captured frame i are consistent; its size in *size. */
int
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

const char *
cap_path(const char *name)
{
	static char p[PATH_MAX + 64];

	snprintf(p, sizeof(p), "%s/%s.pcap", tmpdir, name);
	return p;
}

int
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

/* ---- runs beside the test, JSON, scratch files ---- */

/* Start lr-pktgen on a net_ring pair with prefix name and the given
 * program options; wait for ready. 0, or -1 after a message. */
int
start_pktgen(struct lr_test_child *c, const char *name, const char *opts,
	     const char *ready)
{
	char args[1024], pfx[128];

	snprintf(pfx, sizeof(pfx), "--file-prefix=%s", name);
	snprintf(args, sizeof(args),
		 "--no-huge -m 160 -l 0 " PG_RING_VDEVS " -- %s", opts);
	return spawn_pktgen(c, pfx, args, ready);
}

int
start_ctl(struct lr_test_child *c, char *sock, size_t size, const char *name,
	  const char *vdevs, const char *opts, const char *ready)
{
	char args[2048], base[64], pfx[96];

	/* tmpdir is /tmp/test_pktgen_<x>.XXXXXX: the bounds never cut */
	snprintf(sock, size, "%.60s/%.32s.sock", tmpdir, name);
	snprintf(base, sizeof(base), "pgctl_%s", name);
	lr_test_prefix_arg(pfx, sizeof(pfx), base);
	snprintf(args, sizeof(args), "--no-huge -m 160 -l 0 %s -- %s --ctl %s",
		 vdevs, opts, sock);
	return spawn_pktgen(c, pfx, args, ready);
}

/* Start lr-pktgen: pfx, then args split at spaces; wait for ready. */
int
spawn_pktgen(struct lr_test_child *c, const char *pfx, char *args,
	     const char *ready)
{
	char *argv[64], *save = NULL;
	int argc = 0;

	argv[argc++] = pktgen_bin;
	argv[argc++] = (char *)pfx;
	for (char *t = strtok_r(args, " ", &save); t && argc < 63;
	     t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	argv[argc] = NULL;
	LR_TEST_ASSERT(lr_test_spawn(c, pktgen_bin, argv, out, OUT_MAX) == 0,
		       "cannot start %s", pktgen_bin);
	if (ready != NULL && lr_test_child_wait_for(c, ready, READY_S) != 0) {
		kill(c->pid, SIGKILL);
		lr_test_child_finish(c, READY_S);
		LR_TEST_ASSERT(0, "lr-pktgen never printed '%s':\n%s", ready,
			       out);
	}
	return 0;
}

/* Seconds since t0. */
double
since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) +
	       (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* The value at a path of dot-separated keys in j (a number indexes an
 * array); NULL if missing. */
json_t *
jpath(json_t *j, const char *path)
{
	char buf[128], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, ".", &save); k && j;
	     k = strtok_r(NULL, ".", &save))
		j = json_is_array(j) ? json_array_get(j, strtoul(k, NULL, 10))
				     : json_object_get(j, k);
	return j;
}

/* Integer at a path of dot-separated keys in j; -1 if missing. */
long long
jint(json_t *j, const char *path)
{
	j = jpath(j, path);
	return json_is_number(j) ? (long long)json_number_value(j) : -1;
}

/* Number at a path of dot-separated keys in j; 0 if missing. */
double
jnum(json_t *j, const char *path)
{
	return json_number_value(jpath(j, path));
}

/* Write text to tmpdir/name; its path. */
const char *
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

/* Run lr-pktgen-ctl with args (space-separated) into buf; its status. */
int
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

static void
remove_tmpdir(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmpdir);
}

/* Find the binary and make a scratch directory, once. */
int
ready(const char *name)
{
	static int state; /* 0 not tried, 1 ready, -1 missing */

	if (state == 0) {
		state = -1;
		if (find_binary() != 0) {
			printf("lr-pktgen not built (-Dapps=false?): "
			       "skipping\n");
		} else {
			/* mkdtemp() fills in the last six characters. */
			snprintf(tmpdir, sizeof(tmpdir), "/tmp/%s.%06d", name,
				 0);
			memset(tmpdir + strlen(tmpdir) - 6, 'X', 6);
			if (mkdtemp(tmpdir) != NULL) {
				atexit(remove_tmpdir);
				state = 1;
			}
		}
	}
	return state == 1;
}
