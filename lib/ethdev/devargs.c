/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Devargs parser: splits `name,key=value,...` once into a private buffer;
 * lookups are linear scans (a port has a handful of keys).
 */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lr_devargs.h"
#include "lr_log.h"

static int
name_char_ok(int c)
{
	return isalnum(c) || c == '_' || c == '.' || c == ':' || c == '-';
}

/* Keys as DPDK's kvargs take them: net_memif's are `socket-abstract` and
 * `zero-copy`; a '-' never starts a key. */
static int
key_char_ok(int c, unsigned pos)
{
	return isalnum(c) || c == '_' || (c == '-' && pos > 0);
}

/* A value in brackets, `key=[a,b=c]`: it runs to the matching ']' (inner
 * brackets nest) and may hold commas; the brackets are not part of it. Cut
 * the pair out in place; where the next pair starts (or NULL) in *next;
 * 0, or -EINVAL after logging. */
static int
split_bracketed(struct lr_devargs *da, char *key, char *eq, char **next)
{
	char *p = eq + 2;
	unsigned depth = 1;

	for (; *p != '\0'; p++) {
		if (*p == '[')
			depth++;
		else if (*p == ']' && --depth == 0)
			break;
	}
	if (*p == '\0') {
		*eq = '\0';
		LR_LOG(ERR, ETHDEV, "%s: %s: '[' without its ']' in '%s'\n",
		       da->name, key, eq + 1);
		return -EINVAL;
	}
	if (p[1] != ',' && p[1] != '\0') {
		*eq = '\0';
		LR_LOG(ERR, ETHDEV,
		       "%s: %s: text after ']' (expected ',' or the end): "
		       "'%s'\n",
		       da->name, key, p + 1);
		return -EINVAL;
	}
	*next = p[1] == ',' ? p + 2 : NULL;
	*p = '\0';
	/* Shift the value over the '[' so that it starts right after '='. */
	memmove(eq + 1, eq + 2, (size_t)(p - (eq + 2)) + 1);
	return 0;
}

int
lr_devargs_parse(struct lr_devargs *da, const char *str)
{
	return lr_devargs_parse_flags(da, str, NULL);
}

/* Whether key is in the NULL-terminated list flags (may be NULL). */
static int
is_flag(const char *key, const char *const *flags)
{
	for (; flags != NULL && *flags != NULL; flags++)
		if (strcmp(*flags, key) == 0)
			return 1;
	return 0;
}

/* Add the pair `key=value` (or a bare flag key) at key, split in place;
 * 0, -EINVAL or -ENOSPC after logging. */
static int
add_pair(struct lr_devargs *da, char *key, const char *const *flags)
{
	char *eq = strchr(key, '=');
	const char *val;

	if (eq == NULL && is_flag(key, flags)) {
		val = "1"; /* a bare flag key reads as key=1 */
	} else if (eq == NULL || eq == key) {
		LR_LOG(ERR, ETHDEV, "%s: '%s': expected key=value\n", da->name,
		       key);
		return -EINVAL;
	} else {
		*eq = '\0';
		val = eq + 1;
	}
	for (size_t i = 0; key[i]; i++) {
		if (!key_char_ok((unsigned char)key[i], i)) {
			LR_LOG(ERR, ETHDEV,
			       "%s: bad character '%c' in key '%s' (value "
			       "'%s')\n",
			       da->name, key[i], key, val);
			return -EINVAL;
		}
	}
	if (da->count == LR_DEVARGS_MAX_PAIRS) {
		LR_LOG(ERR, ETHDEV, "%s: more than %d key=value pairs\n",
		       da->name, LR_DEVARGS_MAX_PAIRS);
		return -ENOSPC;
	}
	da->pairs[da->count].key = key;
	da->pairs[da->count].value = val;
	da->count++;
	return 0;
}

int
lr_devargs_parse_flags(struct lr_devargs *da, const char *str,
		       const char *const *flags)
{
	size_t len, i;
	char *p, *next;

	memset(da, 0, offsetof(struct lr_devargs, buf));
	da->buf[0] = '\0';
	if (str == NULL || str[0] == '\0' || str[0] == ',') {
		LR_LOG(ERR, ETHDEV, "devargs '%s': no port name\n",
		       str ? str : "(null)");
		return -EINVAL;
	}
	len = strlen(str);
	if (len >= sizeof(da->buf)) {
		LR_LOG(ERR, ETHDEV,
		       "devargs '%.32s...': longer than %d bytes\n", str,
		       LR_DEVARGS_MAX_LEN - 1);
		return -ENAMETOOLONG;
	}
	memcpy(da->buf, str, len + 1);

	/* The name runs to the first comma. */
	p = da->buf;
	next = strchr(p, ',');
	if (next)
		*next++ = '\0';
	if (strlen(p) >= sizeof(da->name)) {
		LR_LOG(ERR, ETHDEV, "devargs '%s': port name longer than %d\n",
		       str, LR_DEVARGS_NAME_MAX - 1);
		return -ENAMETOOLONG;
	}
	for (i = 0; p[i]; i++) {
		if (!name_char_ok((unsigned char)p[i])) {
			LR_LOG(ERR, ETHDEV,
			       "devargs '%s': bad character '%c' in port name "
			       "'%s'\n",
			       str, p[i], p);
			return -EINVAL;
		}
	}
	strcpy(da->name, p);

	while (next) {
		char *key = next;
		int ret;

		char *eq = strpbrk(key, "=,");

		if (eq != NULL && eq[0] == '=' && eq[1] == '[') {
			if (split_bracketed(da, key, eq, &next) != 0) {
				da->count = 0;
				return -EINVAL;
			}
		} else {
			next = strchr(key, ',');
			if (next)
				*next++ = '\0';
		}
		ret = add_pair(da, key, flags);
		if (ret < 0) {
			da->count = 0;
			return ret;
		}
	}
	return 0;
}

int
lr_devargs_check_keys(const struct lr_devargs *da, const char *const *valid)
{
	for (unsigned i = 0; i < da->count; i++) {
		const char *const *v;
		char list[256];
		size_t off = 0;

		for (v = valid; v && *v; v++)
			if (strcmp(*v, da->pairs[i].key) == 0)
				break;
		if (v && *v)
			continue;
		list[0] = '\0';
		for (v = valid; v && *v; v++) {
			int n = snprintf(list + off, sizeof(list) - off, "%s%s",
					 off ? ", " : "", *v);

			if (n < 0 || (size_t)n >= sizeof(list) - off)
				break;
			off += (size_t)n;
		}
		LR_LOG(ERR, ETHDEV,
		       "%s: unknown key '%s' (value '%s'); valid keys: %s\n",
		       da->name, da->pairs[i].key, da->pairs[i].value,
		       off ? list : "none");
		return -EINVAL;
	}
	return 0;
}

unsigned
lr_devargs_count(const struct lr_devargs *da, const char *key)
{
	unsigned n = 0;

	for (unsigned i = 0; i < da->count; i++)
		n += strcmp(da->pairs[i].key, key) == 0;
	return n;
}

const char *
lr_devargs_get_nth(const struct lr_devargs *da, const char *key, unsigned n)
{
	for (unsigned i = 0; i < da->count; i++)
		if (strcmp(da->pairs[i].key, key) == 0 && n-- == 0)
			return da->pairs[i].value;
	return NULL;
}

const char *
lr_devargs_get(const struct lr_devargs *da, const char *key)
{
	return lr_devargs_get_nth(da, key, 0);
}

/* The single value of key, NULL if absent; -EINVAL in *err if repeated. */
static const char *
get_single(const struct lr_devargs *da, const char *key, int *err)
{
	*err = 0;
	if (lr_devargs_count(da, key) > 1) {
		LR_LOG(ERR, ETHDEV,
		       "%s: %s: given more than once ('%s', '%s')\n", da->name,
		       key, lr_devargs_get_nth(da, key, 0),
		       lr_devargs_get_nth(da, key, 1));
		*err = -EINVAL;
		return NULL;
	}
	return lr_devargs_get(da, key);
}

/* Read key as an unsigned number in base (0: with C's 0x and 0 prefixes)
 * in min..max into *out; *out = def when absent. 0 or -EINVAL, logged
 * with what was expected: expected, or when NULL an integer in min..max.
 * The value is digits alone: no sign, no space. */
static int
get_unsigned(const struct lr_devargs *da, const char *key, uint64_t def,
	     uint64_t min, uint64_t max, int base, const char *expected,
	     uint64_t *out)
{
	const char *s;
	char *end;
	unsigned long long v;
	int err;

	s = get_single(da, key, &err);
	if (err)
		return err;
	if (s == NULL) {
		*out = def;
		return 0;
	}
	errno = 0;
	v = strtoull(s, &end, base);
	if (!isdigit((unsigned char)s[0]) || *end != '\0' || errno != 0 ||
	    v < min || v > max) {
		if (expected != NULL)
			LR_LOG(ERR, ETHDEV,
			       "%s: %s: bad value '%s' (expected %s)\n",
			       da->name, key, s, expected);
		else
			LR_LOG(ERR, ETHDEV,
			       "%s: %s: bad value '%s' (expected an integer "
			       "in %llu..%llu)\n",
			       da->name, key, s, (unsigned long long)min,
			       (unsigned long long)max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int
lr_devargs_get_uint(const struct lr_devargs *da, const char *key, uint64_t def,
		    uint64_t min, uint64_t max, uint64_t *out)
{
	return get_unsigned(da, key, def, min, max, 0, NULL, out);
}

int
lr_devargs_get_mode(const struct lr_devargs *da, const char *key, unsigned def,
		    unsigned *out)
{
	uint64_t v;
	int err;

	err = get_unsigned(da, key, def, 0, 0777, 8,
			   "octal permission bits 0..0777, such as 0600 or "
			   "0660",
			   &v);
	if (err == 0)
		*out = (unsigned)v;
	return err;
}

int
lr_devargs_get_bool(const struct lr_devargs *da, const char *key, int def,
		    int *out)
{
	static const char *const yes[] = {"1", "yes", "true", "on"};
	static const char *const no[] = {"0", "no", "false", "off"};
	const char *s;
	int err;

	s = get_single(da, key, &err);
	if (err)
		return err;
	if (s == NULL) {
		*out = def;
		return 0;
	}
	for (unsigned i = 0; i < 4; i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*out = 1;
			return 0;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*out = 0;
			return 0;
		}
	}
	LR_LOG(ERR, ETHDEV, "%s: %s: bad value '%s' (expected 0 or 1)\n",
	       da->name, key, s);
	return -EINVAL;
}
