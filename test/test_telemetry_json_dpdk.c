/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reply builder and JSON writer against DPDK's own: one process
 * builds each reply twice from one seed, through DPDK 22.11's
 * rte_tel_data_* (served by DPDK's telemetry and read back over its
 * socket) and through lr_tel_data_* (written by lr_telemetry_answer()):
 * the bytes must be equal, and so must every builder call's return value.
 * The replies: each value type, escaping, nesting, the entry and string
 * limits and replies cut at 16 kB, from random seeds (strings of quote,
 * backslash, newline, tab, return, other control bytes and letters;
 * lengths around the string, entry and output limits; arrays of arrays,
 * dicts of dicts and arrays; bad keys).
 * Built only when meson finds libdpdk; DPDK's EAL runs with --no-huge
 * --no-shconf and its own --file-prefix: nothing is left behind.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <rte_eal.h>
#include <rte_telemetry.h>

#include "lr_telemetry.h"
#include "lr_test.h"

#define NB_CASES  2000
#define MAX_CALLS 8192

/* Under LeakSanitizer (the ASan stage): what DPDK 22.11's telemetry does
 * not free of a reply built on its side (dpdk_t) is DPDK's own leak, e.g.
 * the containers it never reaches when it cuts a reply at its output
 * limit; our side's allocations stay checked. */
const char *__lsan_default_suppressions(void);
const char *
__lsan_default_suppressions(void)
{
	return "leak:dpdk_t\n";
}

/* One run of the generator into one side's builder, and what its calls
 * returned. */
struct side {
	bool dpdk;
	unsigned long long seed;
	int rc[MAX_CALLS];
	unsigned n;
};

/* xorshift: one sequence per seed, the same for both sides. */
static unsigned
rnd(struct side *s, unsigned n)
{
	s->seed ^= s->seed << 13;
	s->seed ^= s->seed >> 7;
	s->seed ^= s->seed << 17;
	return n ? (unsigned)(s->seed % n) : 0;
}

static void
note(struct side *s, int rc)
{
	if (s->n < MAX_CALLS)
		s->rc[s->n++] = rc;
}

/* A random string of 0..max bytes with every byte DPDK escapes or drops
 * (never 0x80 and up: DPDK's table lookup is undefined for them). */
static void
rnd_string(struct side *s, char *str, unsigned max)
{
	static const char abc[] = "\"\\\n\t\r\001\037 azAZ09_/,{}";
	unsigned n = rnd(s, max + 1);

	for (unsigned i = 0; i < n; i++)
		str[i] = rnd(s, 3) ? (char)('a' + rnd(s, 26))
				   : abc[rnd(s, sizeof(abc) - 1)];
	str[n] = '\0';
}

/* A dict key: mostly valid, sometimes longer than 127 bytes, sometimes
 * with a byte both builders refuse. */
static void
rnd_name(struct side *s, char *name)
{
	unsigned n = rnd(s, 10) == 0 ? 120 + rnd(s, 20) : 1 + rnd(s, 12);

	for (unsigned i = 0; i < n; i++)
		name[i] = (char)('a' + rnd(s, 26));
	if (rnd(s, 20) == 0)
		name[rnd(s, n)] = '-';
	name[n] = '\0';
}

static void *
d_alloc(struct side *s)
{
	return s->dpdk ? (void *)rte_tel_data_alloc()
		       : (void *)lr_tel_data_alloc();
}

static void
d_free(struct side *s, void *d)
{
	if (s->dpdk)
		rte_tel_data_free(d);
	else
		lr_tel_data_free(d);
}

/* t: 0 int, 1 uint, 2 string, 3 container. */
static void
d_start_array(struct side *s, void *d, unsigned t)
{
	static const enum rte_tel_value_type rt[] = {
	    RTE_TEL_INT_VAL, RTE_TEL_U64_VAL, RTE_TEL_STRING_VAL,
	    RTE_TEL_CONTAINER};
	static const enum lr_tel_type lt[] = {LR_TEL_INT, LR_TEL_UINT,
					      LR_TEL_STRING, LR_TEL_CONTAINER};

	note(s, s->dpdk ? rte_tel_data_start_array(d, rt[t])
			: lr_tel_data_start_array(d, lt[t]));
}

static void
d_start_dict(struct side *s, void *d)
{
	note(s,
	     s->dpdk ? rte_tel_data_start_dict(d) : lr_tel_data_start_dict(d));
}

/* An array of n scalars of type t, strings of up to slen bytes. */
static void
fill_array(struct side *s, void *d, unsigned t, unsigned n, unsigned slen)
{
	char str[300];

	d_start_array(s, d, t);
	for (unsigned i = 0; i < n; i++) {
		int v = (int)rnd(s, 2000000) - 1000000;
		uint64_t u = ((uint64_t)rnd(s, ~0u) << 32) | rnd(s, ~0u);

		rnd_string(s, str, slen);
		if (t == 0)
			note(s, s->dpdk ? rte_tel_data_add_array_int(d, v)
					: lr_tel_data_add_array_int(d, v));
		else if (t == 1)
			note(s, s->dpdk ? rte_tel_data_add_array_u64(d, u)
					: lr_tel_data_add_array_uint(d, u));
		else
			note(s, s->dpdk ? rte_tel_data_add_array_string(d, str)
					: lr_tel_data_add_array_string(d, str));
	}
}

static void fill_nested(struct side *s, void *parent, bool in_dict,
			unsigned depth);

/* A dict of n entries, nesting down to depth more levels. */
static void
fill_dict(struct side *s, void *d, unsigned n, unsigned depth)
{
	char name[160], str[300];

	d_start_dict(s, d);
	for (unsigned i = 0; i < n; i++) {
		unsigned kind = rnd(s, depth > 0 ? 5 : 4);
		int v = (int)rnd(s, 2000000) - 1000000;
		uint64_t u = ((uint64_t)rnd(s, ~0u) << 32) | rnd(s, ~0u);

		rnd_name(s, name);
		rnd_string(s, str, rnd(s, 8) == 0 ? 200 : 20);
		if (kind == 0)
			note(s, s->dpdk ? rte_tel_data_add_dict_int(d, name, v)
					: lr_tel_data_add_dict_int(d, name, v));
		else if (kind == 1)
			note(s, s->dpdk
				    ? rte_tel_data_add_dict_u64(d, name, u)
				    : lr_tel_data_add_dict_uint(d, name, u));
		else if (kind <= 3)
			note(s,
			     s->dpdk
				 ? rte_tel_data_add_dict_string(d, name, str)
				 : lr_tel_data_add_dict_string(d, name, str));
		else
			fill_nested(s, d, true, depth - 1);
	}
}

/* A container (an array of scalars; in a dict, sometimes a dict) added
 * to parent; freed here if the parent refuses it. */
static void
fill_nested(struct side *s, void *parent, bool in_dict, unsigned depth)
{
	void *c = d_alloc(s);
	char name[160];
	int rc;

	if (c == NULL) {
		note(s, -12345);
		return;
	}
	if (rnd(s, 3) == 0)
		fill_dict(s, c, rnd(s, 30), depth);
	else
		fill_array(s, c, rnd(s, 3), rnd(s, rnd(s, 4) ? 20 : 300),
			   rnd(s, 4) ? 10 : 127);
	rnd_name(s, name);
	if (in_dict)
		rc = s->dpdk
			 ? rte_tel_data_add_dict_container(parent, name, c, 0)
			 : lr_tel_data_add_dict_container(parent, name, c, 0);
	else
		rc = s->dpdk ? rte_tel_data_add_array_container(parent, c, 0)
			     : lr_tel_data_add_array_container(parent, c, 0);
	note(s, rc);
	if (rc < 0)
		d_free(s, c);
}

/* The reply of s->seed into d. */
static void
build(struct side *s, void *d)
{
	static char str[LR_TEL_MAX_SINGLE_STRING_LEN + 100];
	unsigned kind = rnd(s, 6);

	if (kind == 0) {
		fill_dict(s, d, rnd(s, 4) ? rnd(s, 40) : rnd(s, 300), 2);
	} else if (kind <= 3) {
		fill_array(s, d, kind - 1, rnd(s, 4) ? rnd(s, 50) : rnd(s, 600),
			   rnd(s, 3) ? 12 : 127);
	} else if (kind == 4) {
		d_start_array(s, d, 3);
		for (unsigned i = 0, n = rnd(s, rnd(s, 3) ? 10 : 80); i < n;
		     i++)
			fill_nested(s, d, false, 0);
	} else {
		rnd_string(s, str,
			   rnd(s, 3) ? 100 : LR_TEL_MAX_SINGLE_STRING_LEN + 50);
		note(s, s->dpdk ? rte_tel_data_string(d, str)
				: lr_tel_data_string(d, str));
	}
}

static unsigned long long case_seed;
static struct side dpdk_side, lr_side;

/* "/t" in DPDK's telemetry (its thread) and in ours (lr_telemetry_answer,
 * this thread): the case of case_seed. */
static int
dpdk_t(const char *cmd, const char *params, struct rte_tel_data *d)
{
	dpdk_side = (struct side){.dpdk = true, .seed = case_seed};
	build(&dpdk_side, d);
	return 0;
}

static int
lr_t(const char *cmd, const char *params, struct lr_tel_data *d)
{
	lr_side = (struct side){.dpdk = false, .seed = case_seed};
	build(&lr_side, d);
	return 0;
}

static char dpdk_out[LR_TELEMETRY_MAX_OUTPUT_LEN + 1];
static char lr_out[LR_TELEMETRY_MAX_OUTPUT_LEN + 1];

/* DPDK's EAL on its own prefix, no files; its telemetry socket's fd
 * (after the greeting), or -1. */
static int
dpdk_up(void)
{
	char prefix[64], *argv[] = {"test_telemetry_json_dpdk",
				    "--no-pci",
				    "--no-huge",
				    "--no-shconf",
				    "-m",
				    "64",
				    "-l",
				    "0",
				    prefix,
				    "--log-level",
				    "1",
				    NULL};
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	int fd;

	snprintf(prefix, sizeof(prefix), "--file-prefix=tel_json_%d",
		 (int)getpid());
	if (rte_telemetry_register_cmd("/t", dpdk_t, "test") != 0 ||
	    rte_eal_init(11, argv) < 0)
		return -1;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/dpdk_telemetry.v2",
		 rte_eal_get_runtime_dir());
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0 ||
	    recv(fd, dpdk_out, sizeof(dpdk_out) - 1, 0) <= 0) {
		fprintf(stderr, "DPDK's telemetry socket %s: %s\n",
			sun.sun_path, strerror(errno));
		return -1;
	}
	return fd;
}

/* One case: DPDK's bytes and ours, and every call's return value. */
static int
run_case(int fd, unsigned long long s)
{
	ssize_t n;
	int m;

	case_seed = s;
	LR_TEST_ASSERT(send(fd, "/t", 2, 0) == 2, "send");
	n = recv(fd, dpdk_out, sizeof(dpdk_out) - 1, 0);
	LR_TEST_ASSERT(n > 0, "no reply from DPDK");
	dpdk_out[n] = '\0';
	m = lr_telemetry_answer("/t", 2, lr_out, sizeof(lr_out));
	LR_TEST_ASSERT(m == n && memcmp(lr_out, dpdk_out, (size_t)n) == 0,
		       "seed %llu: DPDK %zd bytes, ours %d\nDPDK: %.300s\n"
		       "ours: %.300s",
		       s, n, m, dpdk_out, lr_out);
	LR_TEST_ASSERT_EQ(dpdk_side.n, lr_side.n);
	for (unsigned i = 0; i < lr_side.n; i++)
		LR_TEST_ASSERT(
		    dpdk_side.rc[i] == lr_side.rc[i],
		    "seed %llu: call %u returned %d by DPDK, %d here", s, i,
		    dpdk_side.rc[i], lr_side.rc[i]);
	return 0;
}

static int
test_same_bytes(void)
{
	unsigned long long cut = 0;
	char dir[PATH_MAX], path[PATH_MAX + 32];
	int fd = dpdk_up(), rc = 0;

	if (fd < 0) {
		printf("DPDK's EAL cannot start here: skipped\n");
		return LR_TEST_SKIP;
	}
	LR_TEST_ASSERT_EQ(lr_telemetry_register("/t", lr_t, "test"), 0);
	for (unsigned long long s = 1; s <= NB_CASES && rc == 0; s++) {
		rc = run_case(fd, s * 0x9e3779b97f4a7c15ull);
		cut += strlen(lr_out) > LR_TELEMETRY_MAX_OUTPUT_LEN - 400;
	}
	if (rc == 0)
		printf("%d cases the same bytes, %llu of them near or at the "
		       "cut\n",
		       NB_CASES, cut);
	close(fd);
	snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	/* DPDK leaves its runtime folder (its socket goes at exit) */
	if (strlen(dir) + 20 < sizeof(path)) {
		snprintf(path, sizeof(path), "%s/dpdk_telemetry.v2", dir);
		unlink(path);
	}
	rmdir(dir);
	return rc;
}

/* clang-format off */
static const struct lr_test_case cases[] = {
	{ "same_bytes", test_same_bytes },
};
/* clang-format on */

LR_TEST_MAIN("telemetry_json_dpdk", cases)
