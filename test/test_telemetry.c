/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/telemetry: the reply builder's JSON (what DPDK 22.11 writes for the
 * same data, cut the way DPDK cuts a reply too long for its 16 kB), the
 * request parser through lr_telemetry_answer(), and the server over a real
 * socket.
 */
#include <stdint.h>
#include <string.h>

#include "lr_telemetry.h"
#include "lr_test.h"

static char out[LR_TELEMETRY_MAX_OUTPUT_LEN + 1];

/* Fail unless d written as cmd's reply is exactly want. */
#define JSON_IS(d, cmd, want)                                               \
	do {                                                                \
		int n_ = lr_tel_data_to_json((d), (cmd), out, sizeof(out)); \
		LR_TEST_ASSERT(n_ == (int)strlen(want) &&                  \
				       strcmp(out, (want)) == 0,           \
			       "got %d '%s', want '%s'", n_, out, (want));  \
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
	JSON_IS(d, "/0123456789012345678901234567890123456789012345678901234567",
		"{\"/0123456789012345678901234567890123456789012345678901234\":{}}");
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
	JSON_IS(d, "/t", "{\"/t\":{\"a\":[1,2],\"b\":[\"x\"],\"in\":{\"k\":1}}}");
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
#define ANSWER_IS(req, len, want)                                          \
	do {                                                               \
		int n_ = lr_telemetry_answer((req), (len), out, sizeof(out)); \
		LR_TEST_ASSERT(n_ == (int)strlen(want) &&                 \
				       strcmp(out, (want)) == 0,          \
			       "request '%s': got %d '%s', want '%s'",     \
			       (req), n_, out, (want));                    \
	} while (0)
#define ASK(req, want) ANSWER_IS(req, strlen(req), want)

static int
test_register(void)
{
	char cmd56[57];

	LR_TEST_ASSERT_EQ(lr_telemetry_register("/test/echo", echo, "Echo"),
			  0);
	LR_TEST_ASSERT_EQ(lr_telemetry_register("/test/echo", echo, "Echo"),
			  0);
	LR_TEST_ASSERT_EQ(lr_telemetry_register("/test/echo", fail, "x"),
			  -EEXIST);
	LR_TEST_ASSERT_EQ(lr_telemetry_register("/test/fail", fail, "Fails"),
			  0);
	LR_TEST_ASSERT_EQ(lr_telemetry_register("noslash", echo, "h"),
			  -EINVAL);
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
				    "\"params\":\"\"}}") + 127);
	/* (params cut at 127 by the dict string) */
	LR_TEST_ASSERT_EQ(lr_telemetry_answer("", 0, out, sizeof(out)), 0);
	LR_TEST_ASSERT_EQ(lr_telemetry_answer(NULL, 1, out, sizeof(out)),
			  -EINVAL);
	LR_TEST_ASSERT_EQ(lr_telemetry_answer("/", 1, out, 10), -EINVAL);
	n = lr_telemetry_answer("/info", 5, out, sizeof(out));
	LR_TEST_ASSERT(n > 0 && strstr(out, "\"max_output_len\":16384}}"),
		       "%s", out);
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

/* clang-format off */
static const struct lr_test_case cases[] = {
	{ "scalars", test_scalars },
	{ "escaping", test_escaping },
	{ "containers", test_containers },
	{ "bad_input", test_bad_input },
	{ "overflow", test_overflow },
	{ "requests", test_requests },
};
/* clang-format on */

LR_TEST_MAIN("telemetry", cases)
