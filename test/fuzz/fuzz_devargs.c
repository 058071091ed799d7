/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_devargs: lr_devargs_parse() on any text (a NUL-terminated copy of
 * the input, cut at its first NUL), then every getter on every key the
 * text holds and on the keys drivers ask for, with the results checked
 * against each other: a pair found by lr_devargs_get_nth() for n below
 * lr_devargs_count() and none at the count, lr_devargs_get() the first of
 * them, a parsed name and keys made of the characters the grammar allows.
 * A text naming a net_null port (a driver with no side effect outside the
 * process) also goes whole through lr_eth_dev_create(): driver lookup, key
 * check, the driver's own reading of its values; a port made is closed
 * and the port table must be as before.
 */
#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "lr_devargs.h"
#include "lr_ethdev.h"
#include "lr_log.h"

/* The keys of the drivers in the tree. */
static const char *const driver_keys[] = {
    "size",	   "copy",     "rx_pcap",     "tx_pcap",     "rx_iface",
    "tx_iface",	   "iface",    "infinite_rx", "qpairs",	     "blocksz",
    "framesz",	   "framecnt", "start_queue", "queue_count", "mode",
    "busy_budget", "xdp_prog", "vnet",	      NULL,
};

static void
check_key(const struct lr_devargs *da, const char *key)
{
	unsigned n = lr_devargs_count(da, key);
	uint64_t u;
	int b, ret;

	for (unsigned i = 0; i < n; i++)
		FUZZ_CHECK(lr_devargs_get_nth(da, key, i) != NULL);
	FUZZ_CHECK(lr_devargs_get_nth(da, key, n) == NULL);
	FUZZ_CHECK(lr_devargs_get(da, key) == lr_devargs_get_nth(da, key, 0));

	ret = lr_devargs_get_uint(da, key, 7, 0, UINT64_MAX, &u);
	FUZZ_CHECK(ret == 0 || ret == -EINVAL);
	FUZZ_CHECK(ret != 0 || n != 0 || u == 7);
	FUZZ_CHECK(ret == 0 || n != 0);
	ret = lr_devargs_get_uint(da, key, 64, 1, 9600, &u);
	FUZZ_CHECK(ret == 0 || ret == -EINVAL);
	FUZZ_CHECK(ret != 0 || (u >= 1 && u <= 9600));
	ret = lr_devargs_get_bool(da, key, 1, &b);
	FUZZ_CHECK(ret == 0 || ret == -EINVAL);
	FUZZ_CHECK(ret != 0 || b == 0 || b == 1);
	FUZZ_CHECK(ret != 0 || n != 0 || b == 1);
}

/* lr_eth_dev_create() on a net_null devargs text that parsed. */
static void
create_null_port(const char *str, const struct lr_devargs *da)
{
	unsigned before = lr_eth_dev_count_avail();
	int port;

	if (strncmp(da->name, "net_null", 8) != 0)
		return;
	port = lr_eth_dev_create(str);
	if (port >= 0) {
		FUZZ_CHECK(strcmp(lr_eth_dev_name((uint16_t)port), da->name) ==
			   0);
		FUZZ_CHECK(lr_eth_dev_close((uint16_t)port) == 0);
	}
	FUZZ_CHECK(lr_eth_dev_count_avail() == before);
	FUZZ_CHECK(lr_eth_dev_validate() == 0);
}

/* Does str hold "=[" value "]"? */
static bool
in_brackets(const char *str, const char *value)
{
	size_t n = strlen(value);

	for (const char *p = strstr(str, "=["); p; p = strstr(p + 1, "=["))
		if (strncmp(p + 2, value, n) == 0 && p[2 + n] == ']')
			return true;
	return false;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int init;
	struct lr_devargs *da;
	char *str;
	int ret;

	if (!init) {
		fuzz_eal_up("fuzz_devargs");
		/* Errors are the expected outcome: keep them unprinted but
		 * formatted, so a bad format argument still shows. */
		lr_log_set_stream(fopen("/dev/null", "w"));
		init = 1;
	}
	str = malloc(size + 1);
	da = malloc(sizeof(*da));
	if (str == NULL || da == NULL)
		abort();
	memcpy(str, data, size);
	str[size] = '\0';

	ret = lr_devargs_parse(da, str);
	FUZZ_CHECK(ret == 0 || ret == -EINVAL || ret == -ENOSPC ||
		   ret == -ENAMETOOLONG);
	if (ret == 0) {
		size_t nlen = strlen(da->name);

		FUZZ_CHECK(nlen > 0 && nlen < LR_DEVARGS_NAME_MAX);
		FUZZ_CHECK(strncmp(str, da->name, nlen) == 0);
		FUZZ_CHECK(da->count <= LR_DEVARGS_MAX_PAIRS);
		for (unsigned i = 0; i < da->count; i++) {
			const char *k = da->pairs[i].key;

			FUZZ_CHECK(k[0] != '\0');
			for (const char *c = k; *c; c++)
				FUZZ_CHECK(isalnum((unsigned char)*c) ||
					   *c == '_' || *c == '-');
			/* A comma only in a bracketed value (key=[a,b]): the
			 * input holds the value between "=[" and "]". */
			if (strchr(da->pairs[i].value, ',') != NULL)
				FUZZ_CHECK(in_brackets(str, da->pairs[i].value));
			check_key(da, k);
		}
		for (const char *const *k = driver_keys; *k; k++)
			check_key(da, *k);
		ret = lr_devargs_check_keys(da, driver_keys);
		FUZZ_CHECK(ret == 0 || ret == -EINVAL);
		ret = lr_devargs_check_keys(da, NULL);
		FUZZ_CHECK(ret == (da->count ? -EINVAL : 0));
		create_null_port(str, da);
	} else {
		FUZZ_CHECK(da->count == 0);
	}
	free(da);
	free(str);
	return 0;
}
