/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_telemetry: any bytes as one telemetry request, through
 * lr_telemetry_answer() exactly as the server answers a client's message:
 * the request parser (DPDK's split on ','), the command lookup, the
 * handlers of /, /info, /help and of two commands registered here (one
 * that echoes its parameters into a reply of every shape, one that
 * fails), and the JSON writer with its 16 kB cut. Checked: the reply is
 * never longer than the maximum output, is NUL-terminated at its length,
 * opens with {" and ends with }, and an empty request gets none.
 */
#include <errno.h>
#include <string.h>

#include "fuzz_common.h"
#include "lr_telemetry.h"

static char reply[LR_TELEMETRY_MAX_OUTPUT_LEN + 1];

/* Echo params in a dict, an array of strings, nested containers, and as
 * a single string, by their first byte. */
static int
echo(const char *cmd, const char *params, struct lr_tel_data *d)
{
	struct lr_tel_data *a;

	if (params == NULL)
		return lr_tel_data_start_dict(d);
	switch (params[0] % 4) {
	case 0:
		lr_tel_data_start_dict(d);
		lr_tel_data_add_dict_string(d, "params", params);
		lr_tel_data_add_dict_uint(d, "len", strlen(params));
		return 0;
	case 1:
		lr_tel_data_start_array(d, LR_TEL_STRING);
		for (int i = 0; i < 200; i++)
			lr_tel_data_add_array_string(d, params + i % 8);
		return 0;
	case 2:
		lr_tel_data_start_array(d, LR_TEL_CONTAINER);
		for (int i = 0; i < 4; i++) {
			a = lr_tel_data_alloc();
			if (a == NULL)
				return -ENOMEM;
			lr_tel_data_start_array(a, LR_TEL_STRING);
			for (int j = 0; j < 100; j++)
				lr_tel_data_add_array_string(a, params);
			if (lr_tel_data_add_array_container(d, a, 0) != 0)
				lr_tel_data_free(a);
		}
		return 0;
	default:
		return lr_tel_data_string(d, params) < 0 ? -1 : 0;
	}
}

static int
fail(const char *cmd, const char *params, struct lr_tel_data *d)
{
	return -EINVAL;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int once;
	int n;

	if (!once) {
		FUZZ_CHECK(lr_telemetry_register("/fuzz/echo", echo, "e") == 0);
		FUZZ_CHECK(lr_telemetry_register("/fuzz/fail", fail, "f") == 0);
		once = 1;
	}
	n = lr_telemetry_answer((const char *)data, size, reply, sizeof(reply));
	if (size == 0) {
		FUZZ_CHECK(n == 0);
		return 0;
	}
	FUZZ_CHECK(n > 0 && n < LR_TELEMETRY_MAX_OUTPUT_LEN);
	FUZZ_CHECK(strlen(reply) == (size_t)n);
	FUZZ_CHECK(reply[0] == '{' && reply[1] == '"' && reply[n - 1] == '}');
	return 0;
}
