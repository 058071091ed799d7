/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/telemetry: the reply builder's JSON (what DPDK 22.11 writes for the
 * same data, cut the way DPDK cuts a reply too long for its 16 kB), the
 * request parser through lr_telemetry_answer(), and the server over a real
 * socket.
 */
#include <dirent.h>
#include <inttypes.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "lr_telemetry.h"
#include "lr_test.h"

/* How long a test waits for something it expects (never a fixed sleep). */
#define DEADLINE_MS 10000

static char out[LR_TELEMETRY_MAX_OUTPUT_LEN + 1];

/* Fail unless d written as cmd's reply is exactly want. */
#define JSON_IS(d, cmd, want)                                                  \
	do {                                                                   \
		int n_ = lr_tel_data_to_json((d), (cmd), out, sizeof(out));    \
		LR_TEST_ASSERT(n_ == (int)strlen(want) &&                      \
				   strcmp(out, (want)) == 0,                   \
			       "got %d '%s', want '%s'", n_, out, (want));     \
	} while (0)

static int
test_scalars(void)
{
	struct lr_tel_data *d = lr_tel_data_alloc();

	LR_TEST_ASSERT(d != NULL, "alloc");
	JSON_IS(d, "/t", "{\"/t\":null}");
	lr_tel_data_start_dict(d);
	JSON_IS(d, "/t", "{\"/t\":{}}");
	LR_TEST_ASSERT_EQ(lr_tel_data_add_dict_string(d, "name", "x y"), 0);
	LR_TEST_ASSERT_EQ(lr_tel_data_add_dict_int(d, "i", -7), 0);
	LR_TEST_ASSERT_EQ(lr_tel_data_add_dict_uint(d, "u", UINT64_MAX), 0);
	LR_TEST_ASSERT_EQ(lr_tel_data_add_dict_int(d, "a/b_9", 0), 0);
	JSON_IS(d, "/t",
		"{\"/t\":{\"name\":\"x y\",\"i\":-7,"
		"\"u\":18446744073709551615,\"a/b_9\":0}}");
	lr_tel_data_start_array(d, LR_TEL_INT);
	JSON_IS(d, "/t", "{\"/t\":[]}");
	lr_tel_data_add_array_int(d, 1);
	lr_tel_data_add_array_int(d, -2);
	JSON_IS(d, "/t", "{\"/t\":[1,-2]}");
	lr_tel_data_start_array(d, LR_TEL_UINT);
	lr_tel_data_add_array_uint(d, 5);
	JSON_IS(d, "/x/y", "{\"/x/y\":[5]}");
	lr_tel_data_start_array(d, LR_TEL_STRING);
	lr_tel_data_add_array_string(d, "a");
	lr_tel_data_add_array_string(d, "");
	JSON_IS(d, "/t", "{\"/t\":[\"a\",\"\"]}");
	lr_tel_data_string(d, "hello");
	JSON_IS(d, "/t", "{\"/t\":\"hello\"}");
	lr_tel_data_uint(d, 42);
	JSON_IS(d, "/t", "{\"/t\":42}");
	lr_tel_data_int(d, -42);
	JSON_IS(d, "/t", "{\"/t\":-42}");
	lr_tel_data_free(d);
	return 0;
}

/* DPDK's escaping: quote and backslash escaped, \n \r \t kept as escapes,
 * other control bytes dropped; bytes >= 0x80 (UTF-8) pass unchanged. */
static int
test_escaping(void)
{
	struct lr_tel_data *d = lr_tel_data_alloc();

	lr_tel_data_string(d, "a\"b\\c\nd\te\rf\001g\x7f\xc3\xa9");
	JSON_IS(d, "/t", "{\"/t\":\"a\\\"b\\\\c\\nd\\te\\rfg\x7f\xc3\xa9\"}");
	lr_tel_data_start_dict(d);
	lr_tel_data_add_dict_string(d, "k", "q\"");
	JSON_IS(d, "/t", "{\"/t\":{\"k\":\"q\\\"\"}}");
	/* The echoed command is escaped too (DPDK copies it raw). */
	lr_tel_data_start_dict(d);
	JSON_IS(d, "/a\"b", "{\"/a\\\"b\":{}}");
	/* and cut to 56 bytes, as DPDK's "%.*s" cuts it. */
	JSON_IS(
	    d, "/0123456789012345678901234567890123456789012345678901234567",
	    "{\"/"
	    "0123456789012345678901234567890123456789012345678901234\":{}}");
	JSON_IS(d, NULL, "{\"(null)\":{}}");
	lr_tel_data_free(d);
	return 0;
}

static int
test_containers(void)
{
	struct lr_tel_data *d = lr_tel_data_alloc();
	struct lr_tel_data *a = lr_tel_data_alloc(), *b = lr_tel_data_alloc();
	struct lr_tel_data *in = lr_tel_data_alloc();

	LR_TEST_ASSERT(d && a && b && in, "alloc");
	lr_tel_data_start_array(a, LR_TEL_INT);
	lr_tel_data_add_array_int(a, 1);
	lr_tel_data_add_array_int(a, 2);
	lr_tel_data_start_array(b, LR_TEL_STRING);
	lr_tel_data_add_array_string(b, "x");
	lr_tel_data_start_dict(in);
	lr_tel_data_add_dict_int(in, "k", 1);
	lr_tel_data_start_array(d, LR_TEL_CONTAINER);
	/* An array of containers holds arrays only (DPDK 22.11). */
	LR_TEST_ASSERT_EQ(lr_tel_data_add_array_container(d, in, 1), -EINVAL);
	LR_TEST_ASSERT_EQ(lr_tel_data_add_array_container(d, a, 1), 0);
	LR_TEST_ASSERT_EQ(lr_tel_data_add_array_container(d, b, 1), 0);
	JSON_IS(d, "/t", "{\"/t\":[[1,2],[\"x\"]]}");
	lr_tel_data_start_dict(d);
	LR_TEST_ASSERT_EQ(lr_tel_data_add_dict_container(d, "d", in, 1), 0);
	LR_TEST_ASSERT_EQ(lr_tel_data_add_dict_container(d, "a", a, 1), 0);
	LR_TEST_ASSERT_EQ(lr_tel_data_add_dict_string(d, "s", "v"), 0);
	JSON_IS(d, "/t", "{\"/t\":{\"d\":{\"k\":1},\"a\":[1,2],\"s\":\"v\"}}");
	/* Not kept: freeing d frees them (ASan would see a leak or a double
	 * free otherwise). */
	lr_tel_data_start_dict(d);
	lr_tel_data_add_dict_container(d, "a", a, 0);
	lr_tel_data_add_dict_container(d, "b", b, 0);
	lr_tel_data_add_dict_container(d, "in", in, 0);
	JSON_IS(d, "/t",
		"{\"/t\":{\"a\":[1,2],\"b\":[\"x\"],\"in\":{\"k\":1}}}");
	lr_tel_data_free(d);
	return 0;
}

static int
test_bad_input(void)
{
	struct lr_tel_data *d = lr_tel_data_alloc(), *n = lr_tel_data_alloc();
	char big[300];

	LR_TEST_ASSERT_EQ(lr_tel_data_add_dict_int(d, "x", 1), -EINVAL);
	lr_tel_data_start_dict(d);
	LR_TEST_ASSERT_EQ(lr_tel_data_add_array_int(d, 1), -EINVAL);
	LR_TEST_ASSERT_EQ(lr_tel_data_add_dict_int(d, "a-b", 1), -EINVAL);
	LR_TEST_ASSERT_EQ(lr_tel_data_add_dict_int(d, "a b", 1), -EINVAL);
	LR_TEST_ASSERT_EQ(lr_tel_data_add_dict_int(d, NULL, 1), -EINVAL);
	LR_TEST_ASSERT_EQ(lr_tel_data_add_dict_string(d, "s", NULL), -EINVAL);
	/* a null reply cannot be nested; nor a dict in itself */
	LR_TEST_ASSERT_EQ(lr_tel_data_add_dict_container(d, "n", n, 1),
			  -EINVAL);
	LR_TEST_ASSERT_EQ(lr_tel_data_add_dict_container(d, "n", d, 1),
			  -EINVAL);
	LR_TEST_ASSERT_EQ(lr_tel_data_start_array(d, (enum lr_tel_type)9),
			  -EINVAL);
	JSON_IS(d, "/t", "{\"/t\":{}}");
	for (int i = 0; i < LR_TEL_MAX_DICT_ENTRIES; i++)
		LR_TEST_ASSERT_EQ(lr_tel_data_add_dict_int(d, "k", i), 0);
	LR_TEST_ASSERT_EQ(lr_tel_data_add_dict_int(d, "k", 1), -ENOSPC);
	lr_tel_data_start_array(d, LR_TEL_UINT);
	LR_TEST_ASSERT_EQ(lr_tel_data_add_array_string(d, "s"), -EINVAL);
	for (int i = 0; i < LR_TEL_MAX_ARRAY_ENTRIES; i++)
		LR_TEST_ASSERT_EQ(lr_tel_data_add_array_uint(d, 1), 0);
	LR_TEST_ASSERT_EQ(lr_tel_data_add_array_uint(d, 1), -ENOSPC);
	/* A string too long is cut to 127 bytes and says so (E2BIG). */
	memset(big, 'z', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	lr_tel_data_start_array(d, LR_TEL_STRING);
	LR_TEST_ASSERT_EQ(lr_tel_data_add_array_string(d, big), E2BIG);
	lr_tel_data_to_json(d, "/t", out, sizeof(out));
	LR_TEST_ASSERT_EQ(strlen(out), 6 + 2 + 127 + 2 + 1);
	LR_TEST_ASSERT(lr_tel_data_to_json(d, "/t", out, 100) == -EINVAL,
		       "a short output buffer is refused");
	lr_tel_data_free(d);
	lr_tel_data_free(n);
	return 0;
}

/* A reply larger than 16 kB: entries that do not fit are left out, a
 * smaller one after them still goes in (DPDK's rules: the space for the
 * value is 16384 - strlen("{\"/t\":") - 1 = 16377 bytes, an entry goes in
 * when the text then in use stays under it). */
static int
test_overflow(void)
{
	struct lr_tel_data *d = lr_tel_data_alloc(), *c;
	char s127[128], s122[123];

	memset(s127, 's', 127);
	s127[127] = '\0';
	memset(s122, 't', 122);
	s122[122] = '\0';
	lr_tel_data_start_array(d, LR_TEL_STRING);
	for (int i = 0; i < 200; i++)
		lr_tel_data_add_array_string(d, s127);
	lr_tel_data_add_array_string(d, "ab");
	/* 125 strings: [ + 125 * 130 - 1 + ], then ,"ab" */
	LR_TEST_ASSERT_EQ(lr_tel_data_to_json(d, "/t", out, sizeof(out)),
			  6 + 1 + 125 * 130 + 5 + 1);
	LR_TEST_ASSERT(strcmp(out + strlen(out) - 9, "s\",\"ab\"]}") == 0,
		       "tail '%s'", out + strlen(out) - 9);
	/* The same plus one of 122 bytes fills the space to 16376 bytes:
	 * as the first entry of an array of containers it does not fit,
	 * the length in use falls to 0 and DPDK sends what is left. */
	c = lr_tel_data_alloc();
	lr_tel_data_start_array(c, LR_TEL_STRING);
	for (int i = 0; i < 125; i++)
		lr_tel_data_add_array_string(c, s127);
	lr_tel_data_add_array_string(c, s122);
	lr_tel_data_start_array(d, LR_TEL_CONTAINER);
	lr_tel_data_add_array_container(d, c, 1);
	JSON_IS(d, "/t", "{\"/t\":[]}");
	lr_tel_data_free(c);
	/* A single string that escapes to more than the space: nothing of
	 * the value, {"/t":} (what DPDK sends). */
	memset(out, '"', 8191);
	out[8191] = '\0';
	lr_tel_data_string(d, out);
	JSON_IS(d, "/t", "{\"/t\":}");
	lr_tel_data_free(d);
	return 0;
}

static int
echo(const char *cmd, const char *params, struct lr_tel_data *d)
{
	lr_tel_data_start_dict(d);
	lr_tel_data_add_dict_string(d, "cmd", cmd);
	if (params != NULL)
		lr_tel_data_add_dict_string(d, "params", params);
	return 0;
}

static int
fail(const char *cmd, const char *params, struct lr_tel_data *d)
{
	lr_tel_data_start_dict(d);
	return -ENODEV;
}

/* Fail unless the request's reply is exactly want. */
#define ANSWER_IS(req, len, want)                                              \
	do {                                                                   \
		int n_ = lr_telemetry_answer((req), (len), out, sizeof(out));  \
		LR_TEST_ASSERT(n_ == (int)strlen(want) &&                      \
				   strcmp(out, (want)) == 0,                   \
			       "request '%s': got %d '%s', want '%s'", (req),  \
			       n_, out, (want));                               \
	} while (0)
#define ASK(req, want) ANSWER_IS(req, strlen(req), want)

static int
test_register(void)
{
	char cmd56[57];

	LR_TEST_ASSERT_EQ(lr_telemetry_register("/test/echo", echo, "Echo"), 0);
	LR_TEST_ASSERT_EQ(lr_telemetry_register("/test/echo", echo, "Echo"), 0);
	LR_TEST_ASSERT_EQ(lr_telemetry_register("/test/echo", fail, "x"),
			  -EEXIST);
	LR_TEST_ASSERT_EQ(lr_telemetry_register("/test/fail", fail, "Fails"),
			  0);
	LR_TEST_ASSERT_EQ(lr_telemetry_register("noslash", echo, "h"), -EINVAL);
	LR_TEST_ASSERT_EQ(lr_telemetry_register("/a-b", echo, "h"), -EINVAL);
	LR_TEST_ASSERT_EQ(lr_telemetry_register("/a,b", echo, "h"), -EINVAL);
	LR_TEST_ASSERT_EQ(lr_telemetry_register("/x", NULL, "h"), -EINVAL);
	LR_TEST_ASSERT_EQ(lr_telemetry_register(NULL, echo, "h"), -EINVAL);
	memset(cmd56, 'c', 56);
	cmd56[0] = '/';
	cmd56[56] = '\0';
	LR_TEST_ASSERT_EQ(lr_telemetry_register(cmd56, echo, "h"), -EINVAL);
	cmd56[55] = '\0';
	LR_TEST_ASSERT_EQ(lr_telemetry_register(cmd56, echo, "h"), 0);
	memset(out, 'h', 200);
	out[200] = '\0';
	LR_TEST_ASSERT_EQ(lr_telemetry_register("/x", echo, out), -EINVAL);
	return 0;
}

/* Requests as DPDK's client_handler() splits and answers them. */
static int
test_requests(void)
{
	char req[2000];
	int n;

	if (test_register() != 0)
		return -1;
	ASK("/test/echo", "{\"/test/echo\":{\"cmd\":\"/test/echo\"}}");
	ASK("/test/echo,1", "{\"/test/echo\":{\"cmd\":\"/test/echo\","
			    "\"params\":\"1\"}}");
	ASK("/test/echo,a,b", "{\"/test/echo\":{\"cmd\":\"/test/echo\","
			      "\"params\":\"a,b\"}}");
	ASK("/test/echo,", "{\"/test/echo\":{\"cmd\":\"/test/echo\"}}");
	ASK("/test/echo,,x", "{\"/test/echo\":{\"cmd\":\"/test/echo\","
			     "\"params\":\",x\"}}");
	ASK(",,/test/echo", "{\"/test/echo\":{\"cmd\":\"/test/echo\"}}");
	ASK("/test/fail", "{\"/test/fail\":null}");
	ASK("/nope", "{\"/nope\":null}");
	ASK("/nope,1", "{\"/nope\":null}");
	ASK("nope", "{\"nope\":null}");
	ASK(",,,", "{\"(null)\":null}");
	ASK("/test/echo\n", "{\"/test/echo\\n\":null}");
	ANSWER_IS("/test/echo\0junk", 15,
		  "{\"/test/echo\":{\"cmd\":\"/test/echo\"}}");
	/* A command of 56 bytes or more is unknown, echoed cut to 56. */
	ASK("/ccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc",
	    "{\"/ccccccccccccccccccccccccccccccccccccccccccccccccccccccc\":"
	    "null}");
	ASK("/help", "{\"/help\":\"Returns help text for a command. "
		     "Parameters: string command\"}");
	ASK("/help,/info", "{\"/help\":{\"/info\":\"Returns DPDK Telemetry "
			   "information. Takes no parameters\"}}");
	ASK("/help,/test/echo", "{\"/help\":{\"/test/echo\":\"Echo\"}}");
	ASK("/help,/nope", "{\"/help\":null}");
	ASK("/help,bad key", "{\"/help\":null}");
	/* Past 1023 bytes a request is cut (DPDK reads 1023). */
	memset(req, 'p', sizeof(req));
	memcpy(req, "/test/echo,", 11);
	n = lr_telemetry_answer(req, sizeof(req), out, sizeof(out));
	LR_TEST_ASSERT_EQ(n, strlen("{\"/test/echo\":{\"cmd\":\"/test/echo\","
				    "\"params\":\"\"}}") +
				 127);
	/* (params cut at 127 by the dict string) */
	LR_TEST_ASSERT_EQ(lr_telemetry_answer("", 0, out, sizeof(out)), 0);
	LR_TEST_ASSERT_EQ(lr_telemetry_answer(NULL, 1, out, sizeof(out)),
			  -EINVAL);
	LR_TEST_ASSERT_EQ(lr_telemetry_answer("/", 1, out, 10), -EINVAL);
	n = lr_telemetry_answer("/info", 5, out, sizeof(out));
	LR_TEST_ASSERT(n > 0 && strstr(out, "\"max_output_len\":16384}}"), "%s",
		       out);
	ASK("/help,/", "{\"/help\":{\"/\":\"Returns list of available "
		       "commands, Takes no parameters\"}}");
	n = lr_telemetry_answer("/", 1, out, sizeof(out));
	/* sorted by strcmp(), as DPDK keeps them */
	LR_TEST_ASSERT(strncmp(out, "{\"/\":[\"/\",\"/cc", 12) == 0 &&
			   strstr(out, "\"/help\",\"/info\",") &&
			   strstr(out, ",\"/test/echo\",\"/test/fail\"]}"),
		       "%s", out);
	return 0;
}

/* lr_eal_init() on ordinary memory, lcores 0-1 (0 on one CPU), prefix
 * "test_telemetry_<pid>", and extra (NULL: none). */
static int
eal_up(const char *extra)
{
	char prefix[96], lcores[8] = "0-1";
	char *argv[] = {"test_telemetry", "-l",		 lcores,
			"--no-huge",	  "-m",		 "32",
			prefix,		  (char *)extra, NULL};
	int argc = extra != NULL ? 8 : 7;

	lr_test_prefix_arg(prefix, sizeof(prefix), "test_telemetry");
	if (lr_eal_init(argc, argv) >= 0)
		return 0;
	strcpy(lcores, "0");
	if (lr_eal_init(argc, argv) >= 0)
		return 0;
	fprintf(stderr, "lr_eal_init failed\n");
	return -1;
}

/* A client connected to the socket at path, or -1. */
static int
tel_connect(const char *path)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	int fd;

	if (strlen(path) >= sizeof(sun.sun_path))
		return -1;
	memcpy(sun.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* One message into buf (NUL-terminated): its length, 0 at end of
 * stream, -1 if none came within the deadline. */
static int
tel_recv(int fd, char *buf, size_t len)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	ssize_t n;

	if (poll(&p, 1, DEADLINE_MS) != 1)
		return -1;
	n = recv(fd, buf, len - 1, MSG_DONTWAIT);
	if (n < 0)
		return errno == ECONNRESET ? 0 : -1;
	buf[n] = '\0';
	return (int)n;
}

static char got[LR_TELEMETRY_MAX_OUTPUT_LEN + 1];

/* Fail unless req of len bytes over fd gets exactly what
 * lr_telemetry_answer() gives (and want, if not NULL). */
static int
check_ask(int fd, const char *req, size_t len, const char *want)
{
	int n = lr_telemetry_answer(req, len, out, sizeof(out));

	LR_TEST_ASSERT(send(fd, req, len, 0) == (ssize_t)len, "send: %s",
		       strerror(errno));
	LR_TEST_ASSERT(tel_recv(fd, got, sizeof(got)) == n &&
			   strcmp(got, out) == 0,
		       "'%.60s': socket '%s', answer '%s'", req, got, out);
	LR_TEST_ASSERT(want == NULL || strcmp(got, want) == 0,
		       "'%.60s': got '%s', want '%s'", req, got, want);
	return 0;
}

/* DPDK's link path for prefix, as dpdk-telemetry.py looks for it. */
static void
dpdk_link_path(char *buf, size_t len, const char *prefix)
{
	const char *base = "/var/run";

	if (getuid() != 0) {
		base = getenv("XDG_RUNTIME_DIR");
		if (base == NULL || *base == '\0')
			base = "/tmp";
	}
	snprintf(buf, len, "%s/dpdk/%s/dpdk_telemetry.v2", base, prefix);
}

/* The socket, its folder and the link: modes, paths, target. */
static int
check_files(void)
{
	const char *path = lr_telemetry_socket_path();
	char want[PATH_MAX], link[PATH_MAX];
	struct stat st;
	ssize_t n;

	LR_TEST_ASSERT(path != NULL, "no telemetry socket");
	snprintf(want, sizeof(want), "%s/dpdk_telemetry.v2",
		 lr_eal_runtime_dir());
	LR_TEST_ASSERT(strcmp(path, want) == 0, "socket at %s", path);
	LR_TEST_ASSERT(lstat(path, &st) == 0 && S_ISSOCK(st.st_mode) &&
			   (st.st_mode & 07777) == 0600,
		       "%s: mode %o", path, (unsigned)st.st_mode);
	LR_TEST_ASSERT(lstat(lr_eal_runtime_dir(), &st) == 0 &&
			   (st.st_mode & 07777) == 0700,
		       "runtime folder mode %o", (unsigned)st.st_mode);
	dpdk_link_path(link, sizeof(link), lr_eal_file_prefix());
	LR_TEST_ASSERT(lr_telemetry_dpdk_link() != NULL &&
			   strcmp(lr_telemetry_dpdk_link(), link) == 0,
		       "link %s, want %s", lr_telemetry_dpdk_link(), link);
	n = readlink(link, want, sizeof(want) - 1);
	LR_TEST_ASSERT(n > 0, "readlink %s: %s", link, strerror(errno));
	want[n] = '\0';
	LR_TEST_ASSERT(strcmp(want, path) == 0, "%s -> %s", link, want);
	return 0;
}

/* The protocol over the socket: greeting, commands, unknown, oversized,
 * malformed, /help; an empty message closes. */
static int
run_protocol(int fd)
{
	char req[2000], want[160];

	snprintf(want, sizeof(want),
		 "{\"version\":\"linerate %s\",\"pid\":%d,"
		 "\"max_output_len\":16384}",
		 LR_VERSION, (int)getpid());
	LR_TEST_ASSERT(tel_recv(fd, got, sizeof(got)) > 0, "no greeting");
	LR_TEST_ASSERT(strcmp(got, want) == 0, "greeting '%s'", got);
	if (check_ask(fd, "/info", 5, NULL) || check_ask(fd, "/", 1, NULL) ||
	    check_ask(fd, "/nope", 5, "{\"/nope\":null}") ||
	    check_ask(fd, ",,,", 3, "{\"(null)\":null}") ||
	    check_ask(fd, "/eal/lcore/info,x", 17,
		      "{\"/eal/lcore/info\":null}") ||
	    check_ask(fd, "/eal/lcore/list", 15, NULL) ||
	    check_ask(fd, "/ethdev/list", 12, "{\"/ethdev/list\":[]}") ||
	    check_ask(fd, "/help,/info", 11,
		      "{\"/help\":{\"/info\":\"Returns DPDK Telemetry "
		      "information. Takes no parameters\"}}"))
		return -1;
	memset(req, 'a', sizeof(req));
	req[0] = '/';
	snprintf(want, sizeof(want), "{\"/%.55s\":null}", req + 1);
	if (check_ask(fd, req, sizeof(req), want))
		return -1;
	LR_TEST_ASSERT(send(fd, "", 0, 0) == 0, "empty send");
	LR_TEST_ASSERT(tel_recv(fd, got, sizeof(got)) == 0,
		       "an empty request must close");
	return 0;
}

/* The thread named lr-telemetry's CPUs (tid from /proc/self/task): 0, or
 * -1 if there is no such thread. */
static int
telemetry_cpus(cpu_set_t *set)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int rc = -1;

	while (d != NULL && rc != 0 && (e = readdir(d)) != NULL) {
		char path[300], comm[32] = "";
		FILE *f;

		snprintf(path, sizeof(path), "/proc/self/task/%s/comm",
			 e->d_name);
		f = fopen(path, "r");
		if (f == NULL)
			continue;
		if (fgets(comm, sizeof(comm), f) != NULL &&
		    strcmp(comm, "lr-telemetry\n") == 0)
			rc = sched_getaffinity(atoi(e->d_name), sizeof(*set),
					       set);
		fclose(f);
	}
	if (d != NULL)
		closedir(d);
	return rc;
}

/* The server thread runs on the CPUs of the process that no lcore takes,
 * or on all of them when the lcores take every one (orig: the process's
 * CPUs before init). */
static int
check_thread_cpus(const cpu_set_t *orig)
{
	cpu_set_t want, got;
	unsigned l;

	CPU_ZERO(&want);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, orig))
			CPU_SET(c, &want);
	LR_LCORE_FOREACH(l)
	CPU_CLR(lr_lcore_to_cpu_id(l), &want);
	if (CPU_COUNT(&want) == 0)
		CPU_OR(&want, &want, orig);
	LR_TEST_ASSERT(telemetry_cpus(&got) == 0, "no lr-telemetry thread");
	LR_TEST_ASSERT(CPU_EQUAL(&got, &want),
		       "lr-telemetry on %d CPUs, want %d (first %d)",
		       CPU_COUNT(&got), CPU_COUNT(&want),
		       CPU_ISSET(0, &want) ? 0 : 1);
	return 0;
}

static int
test_socket(void)
{
	char link[PATH_MAX], path[PATH_MAX];
	int fd, rc = -1;
	cpu_set_t orig;

	LR_TEST_ASSERT(sched_getaffinity(0, sizeof(orig), &orig) == 0,
		       "sched_getaffinity");
	if (eal_up(NULL) != 0)
		return -1;
	if (check_thread_cpus(&orig) != 0)
		goto cleanup;
	snprintf(path, sizeof(path), "%s", lr_telemetry_socket_path());
	dpdk_link_path(link, sizeof(link), lr_eal_file_prefix());
	if (check_files() != 0)
		goto cleanup;
	fd = tel_connect(path);
	if (fd < 0) {
		fprintf(stderr, "connect %s: %s\n", path, strerror(errno));
		goto cleanup;
	}
	rc = run_protocol(fd);
	close(fd);
	/* dpdk-telemetry.py's way in: through the link */
	fd = tel_connect(link);
	if (rc == 0 && (fd < 0 || tel_recv(fd, got, sizeof(got)) <= 0)) {
		fprintf(stderr, "no greeting through %s\n", link);
		rc = -1;
	}
	if (fd >= 0)
		close(fd);
cleanup:
	lr_eal_cleanup();
	LR_TEST_ASSERT(access(path, F_OK) != 0, "%s left behind", path);
	LR_TEST_ASSERT(access(link, F_OK) != 0 && errno == ENOENT,
		       "%s left behind", link);
	return rc;
}

/* Poll until lr_telemetry_client_count() == n, within the deadline. */
static int
wait_clients(unsigned n)
{
	double end = lr_test_now() + DEADLINE_MS / 1000.0;

	while (lr_telemetry_client_count() != n && lr_test_now() < end)
		poll(NULL, 0, 5);
	LR_TEST_ASSERT_EQ(lr_telemetry_client_count(), n);
	return 0;
}

#define NB_CLIENTS 50

/* 50 clients at once: the first 10 greeted and answered, the other 40
 * closed at once; the served ones unaffected by those. */
static int
run_clients(const char *path, int *fds)
{
	unsigned served = 0, closed = 0;

	for (int i = 0; i < NB_CLIENTS; i++) {
		fds[i] = tel_connect(path);
		LR_TEST_ASSERT(fds[i] >= 0, "client %d: connect: %s", i,
			       strerror(errno));
	}
	for (int i = 0; i < NB_CLIENTS; i++) {
		int n = tel_recv(fds[i], got, sizeof(got));

		LR_TEST_ASSERT(n >= 0, "client %d: neither greeted nor closed",
			       i);
		if (n > 0) {
			served++;
			continue;
		}
		closed++;
		close(fds[i]);
		fds[i] = -1;
	}
	LR_TEST_ASSERT_EQ(served, LR_TELEMETRY_MAX_CLIENTS);
	LR_TEST_ASSERT_EQ(closed, NB_CLIENTS - LR_TELEMETRY_MAX_CLIENTS);
	for (int i = 0; i < NB_CLIENTS; i++)
		if (fds[i] >= 0 && check_ask(fds[i], "/info", 5, NULL) != 0)
			return -1;
	return wait_clients(LR_TELEMETRY_MAX_CLIENTS);
}

static int
test_clients(void)
{
	int fds[NB_CLIENTS], rc;

	for (int i = 0; i < NB_CLIENTS; i++)
		fds[i] = -1;
	if (eal_up(NULL) != 0)
		return -1;
	rc = run_clients(lr_telemetry_socket_path(), fds);
	for (int i = 0; i < NB_CLIENTS; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	if (rc == 0)
		rc = wait_clients(0);
	lr_eal_cleanup();
	return rc;
}

/* Flood the server with requests from fd without reading a reply: the
 * server must drop fd (its send would block) within the deadline. */
static int
flood_until_dropped(int fd)
{
	double end = lr_test_now() + DEADLINE_MS / 1000.0;

	while (lr_test_now() < end) {
		ssize_t n = send(fd, "/", 1, MSG_DONTWAIT | MSG_NOSIGNAL);
		struct pollfd p = {.fd = fd, .events = POLLOUT};

		if (n < 0 && (errno == EPIPE || errno == ECONNRESET))
			return 0;
		if (n < 0 && errno == EAGAIN)
			poll(&p, 1, 10);
		else
			LR_TEST_ASSERT(n == 1, "send: %s", strerror(errno));
	}
	LR_TEST_ASSERT(0, "a client that never reads was not dropped");
	return -1;
}

#define IDLE_MS 1500

/* A client that never sends (A) and one that never reads (B): another
 * (C) is still answered; B is dropped, A closed once idle. */
static int
run_stalled(const char *path)
{
	int a = tel_connect(path), b = tel_connect(path), c = -1, rc = -1;
	double t0 = lr_test_now(), idle;

	if (a < 0 || b < 0 || tel_recv(a, got, sizeof(got)) <= 0 ||
	    tel_recv(b, got, sizeof(got)) <= 0) {
		fprintf(stderr, "clients A and B not greeted\n");
		goto close_fds;
	}
	if (flood_until_dropped(b) != 0)
		goto close_fds;
	c = tel_connect(path);
	if (c < 0 || tel_recv(c, got, sizeof(got)) <= 0 ||
	    check_ask(c, "/help", 5, NULL) != 0)
		goto close_fds;
	/* A: closed by the server once idle, not before. */
	if (tel_recv(a, got, sizeof(got)) != 0) {
		fprintf(stderr, "idle client A not closed\n");
		goto close_fds;
	}
	idle = lr_test_now() - t0;
	if (idle < IDLE_MS / 2000.0) {
		fprintf(stderr, "client A closed after %.3f s\n", idle);
		goto close_fds;
	}
	rc = 0;
close_fds:
	close(a);
	close(b);
	if (c >= 0)
		close(c);
	return rc;
}

static int
test_stalled(void)
{
	char dir[] = "/tmp/lr_test_telemetry.XXXXXX";
	struct lr_telemetry_conf conf = {.runtime_dir = dir,
					 .idle_timeout_ms = IDLE_MS};
	int rc;

	LR_TEST_ASSERT(mkdtemp(dir) != NULL, "mkdtemp: %s", strerror(errno));
	rc = lr_telemetry_start(&conf);
	if (rc == 0) {
		LR_TEST_ASSERT_EQ(lr_telemetry_start(&conf), -EALREADY);
		rc = run_stalled(lr_telemetry_socket_path());
		lr_telemetry_stop();
	} else {
		fprintf(stderr, "lr_telemetry_start: %s\n", strerror(-rc));
	}
	LR_TEST_ASSERT(rmdir(dir) == 0, "%s not left empty: %s", dir,
		       strerror(errno));
	return rc;
}

/* Entries of a /proc/self folder. */
static int
count_entries(const char *path)
{
	DIR *d = opendir(path);
	int n = 0;

	if (d == NULL)
		return -1;
	while (readdir(d) != NULL)
		n++;
	closedir(d);
	return n;
}

/* No fd and no thread left after lr_eal_cleanup(), even with a client
 * connected at the time; --no-telemetry makes no socket. */
static int
test_cleanup(void)
{
	int fds0 = count_entries("/proc/self/fd");
	int tasks0 = count_entries("/proc/self/task");
	int fd;

	if (eal_up(NULL) != 0)
		return -1;
	fd = tel_connect(lr_telemetry_socket_path());
	LR_TEST_ASSERT(fd >= 0 && tel_recv(fd, got, sizeof(got)) > 0,
		       "client not greeted");
	lr_eal_cleanup();
	LR_TEST_ASSERT(tel_recv(fd, got, sizeof(got)) == 0,
		       "client not closed at cleanup");
	close(fd);
	LR_TEST_ASSERT_EQ(count_entries("/proc/self/fd"), fds0);
	LR_TEST_ASSERT_EQ(count_entries("/proc/self/task"), tasks0);
	if (eal_up("--no-telemetry") != 0)
		return -1;
	LR_TEST_ASSERT(lr_telemetry_socket_path() == NULL &&
			   lr_telemetry_dpdk_link() == NULL,
		       "a socket with --no-telemetry");
	snprintf(got, sizeof(got), "%s/dpdk_telemetry.v2",
		 lr_eal_runtime_dir());
	LR_TEST_ASSERT(access(got, F_OK) != 0, "%s exists", got);
	lr_eal_cleanup();
	return 0;
}

/* A listening socket at path (a live DPDK process's, for the test), or
 * -1; its folders made 0700 first. */
static int
fake_dpdk_socket(const char *path)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	char dir[PATH_MAX];
	int fd;

	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0'; /* <base>/dpdk/<prefix> */
	*strrchr(dir, '/') = '\0'; /* <base>/dpdk */
	mkdir(dir, 0700);
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	mkdir(dir, 0700);
	if (strlen(path) >= sizeof(sun.sun_path))
		return -1;
	memcpy(sun.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd >= 0 && (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0 ||
			listen(fd, 4) != 0)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* The link never replaces a socket a live process answers on; a stale
 * one (nobody listening) it does. */
static int
test_live_link(void)
{
	char path[PATH_MAX], prefix[96];
	struct stat st;
	int fd, rc = -1;

	lr_test_prefix_arg(prefix, sizeof(prefix), "test_telemetry");
	dpdk_link_path(path, sizeof(path), prefix + strlen("--file-prefix="));
	fd = fake_dpdk_socket(path);
	LR_TEST_ASSERT(fd >= 0, "cannot listen at %s: %s", path,
		       strerror(errno));
	if (eal_up(NULL) != 0)
		goto remove_socket;
	if (lr_telemetry_dpdk_link() != NULL || lstat(path, &st) != 0 ||
	    !S_ISSOCK(st.st_mode)) {
		fprintf(stderr, "the live socket at %s was replaced\n", path);
		goto cleanup;
	}
	lr_eal_cleanup();
	close(fd); /* now stale: the next start replaces it */
	fd = -1;
	if (lstat(path, &st) != 0 || !S_ISSOCK(st.st_mode) || eal_up(NULL))
		goto remove_socket;
	if (lr_telemetry_dpdk_link() == NULL || lstat(path, &st) != 0 ||
	    !S_ISLNK(st.st_mode)) {
		fprintf(stderr, "the stale socket at %s was kept\n", path);
		goto cleanup;
	}
	rc = 0;
cleanup:
	lr_eal_cleanup();
remove_socket:
	if (fd >= 0)
		close(fd);
	unlink(path);
	*strrchr(path, '/') = '\0';
	rmdir(path);
	return rc;
}

/* A link to our own socket path left by a killed process of the same
 * prefix is replaced, not taken for a live peer (through it, the check
 * would reach our own server). */
static int
test_own_stale_link(void)
{
	char path[PATH_MAX], target[PATH_MAX];
	struct stat st;
	int rc = -1;

	if (eal_up(NULL) != 0)
		return -1;
	snprintf(path, sizeof(path), "%s", lr_telemetry_dpdk_link());
	snprintf(target, sizeof(target), "%s", lr_telemetry_socket_path());
	lr_eal_cleanup();
	LR_TEST_ASSERT(lstat(path, &st) != 0, "%s left after cleanup", path);
	/* What a SIGKILLed process leaves: the folder and the link. */
	*strrchr(path, '/') = '\0';
	LR_TEST_ASSERT(mkdir(path, 0700) == 0, "mkdir %s: %s", path,
		       strerror(errno));
	strcat(path, "/dpdk_telemetry.v2");
	LR_TEST_ASSERT(symlink(target, path) == 0, "symlink %s: %s", path,
		       strerror(errno));
	if (eal_up(NULL) != 0)
		goto remove;
	if (lr_telemetry_dpdk_link() == NULL || lstat(path, &st) != 0 ||
	    !S_ISLNK(st.st_mode)) {
		fprintf(stderr, "no link made over the stale one at %s\n",
			path);
		goto cleanup;
	}
	rc = 0;
cleanup:
	lr_eal_cleanup();
	LR_TEST_ASSERT(rc != 0 || lstat(path, &st) != 0,
		       "%s left after cleanup", path);
remove:
	unlink(path);
	*strrchr(path, '/') = '\0';
	rmdir(path);
	return rc;
}

/* Spin for about n TSC cycles. */
static void
spin(uint64_t n)
{
	uint64_t t0 = lr_get_tsc_cycles();

	while (lr_get_tsc_cycles() - t0 < n)
		;
}

/* Poll-loop accounting: busy and idle passes of the main lcore, read by
 * lr_lcore_poll_cycles() and by /eal/lcore/info exactly. */
static int
test_lcore_cycles(void)
{
	unsigned me;
	uint64_t busy, total, b2, t2;
	char want[128];
	int rc = -1;

	if (eal_up(NULL) != 0)
		return -1;
	me = lr_lcore_id();
	if (lr_lcore_poll_cycles(me, &busy, &total) != 0 || busy || total ||
	    lr_lcore_poll_cycles(LR_MAX_LCORE - 1, &busy, &total) != -EINVAL) {
		fprintf(stderr,
			"counters before any loop: %" PRIu64 " %" PRIu64 "\n",
			busy, total);
		goto cleanup;
	}
	lr_lcore_poll_begin();
	spin(100000);
	lr_lcore_poll_account(1);
	lr_lcore_poll_cycles(me, &busy, &total);
	spin(200000);
	lr_lcore_poll_account(0);
	lr_lcore_poll_cycles(me, &b2, &t2);
	if (busy < 100000 || total != busy || b2 != busy ||
	    t2 < busy + 200000) {
		fprintf(stderr,
			"busy %" PRIu64 " total %" PRIu64 ", then %" PRIu64
			" %" PRIu64 "\n",
			busy, total, b2, t2);
		goto cleanup;
	}
	snprintf(want, sizeof(want),
		 "\"total_cycles\":%" PRIu64 ",\"busy_cycles\":%" PRIu64 "}}",
		 t2, b2);
	snprintf(got, sizeof(got), "/eal/lcore/info,%u", me);
	lr_telemetry_answer(got, strlen(got), out, sizeof(out));
	if (strstr(out, want) == NULL) {
		fprintf(stderr, "'%s' lacks '%s'\n", out, want);
		goto cleanup;
	}
	rc = 0;
cleanup:
	lr_eal_cleanup();
	return rc;
}

/* clang-format off */
static const struct lr_test_case cases[] = {
	{ "scalars", test_scalars },
	{ "escaping", test_escaping },
	{ "containers", test_containers },
	{ "bad_input", test_bad_input },
	{ "overflow", test_overflow },
	{ "requests", test_requests },
	{ "socket", test_socket },
	{ "clients", test_clients },
	{ "stalled", test_stalled },
	{ "cleanup", test_cleanup },
	{ "live_link", test_live_link },
	{ "own_stale_link", test_own_stale_link },
	{ "lcore_cycles", test_lcore_cycles },
};
/* clang-format on */

LR_TEST_MAIN("telemetry", cases)
