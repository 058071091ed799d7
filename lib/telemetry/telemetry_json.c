/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A reply as JSON, byte for byte what DPDK 22.11's telemetry writes for the
 * same data. Its rules, which the code below follows:
 * - a container opens as "{}" or "[]"; each entry is appended by
 *   rewriting the closing bracket, and only whole: an entry whose text
 *   would not leave room for the NUL in the space left is skipped (a
 *   smaller one after it may still go in);
 * - the first entry replaces the "[]"/"{}" and is written from the start
 *   of the buffer; if it does not fit, the length in use falls to 0 (what
 *   DPDK does), so the next entry starts again from the start;
 * - a nested container is written into a scratch buffer as large as the
 *   whole reply's space, then appended as one entry;
 * - strings: '"' and '\' get a backslash, newline, return and tab become
 *   \n, \r, \t, every other byte below 0x20 is dropped; keys are never
 *   escaped (the builder allows only [A-Za-z0-9_/]);
 * - the reply is {"cmd":value}, cmd cut to 55 bytes, value in the 16 kB
 *   less the prefix and the closing brace; the brace goes after the
 *   NUL-terminated text the value left (so a value that did not fit at
 *   all leaves {"cmd":}).
 * Differences, each where DPDK's output is not JSON or is undefined: the
 * command echoed as the key is escaped as a string is (DPDK copies it
 * raw, so `/a"b` gives broken JSON); bytes 0x80 and up pass unchanged
 * (DPDK indexes a table with them as negative numbers).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "telemetry_private.h"

/* Length of s as a JSON string body, up to max bytes of s. */
static size_t
escaped_len(const char *s, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < max && s[i] != '\0'; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\' || c == '\n' || c == '\r' ||
		    c == '\t')
			n += 2;
		else if (c >= 0x20)
			n++;
	}
	return n;
}

/* Write s escaped (up to max bytes of s) at out; the end of what was
 * written. */
static char *
escape(char *out, const char *s, size_t max)
{
	for (size_t i = 0; i < max && s[i] != '\0'; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\n' || c == '\r' || c == '\t') {
			*out++ = '\\';
			*out++ = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
		} else if (c == '"' || c == '\\') {
			*out++ = '\\';
			*out++ = (char)c;
		} else if (c >= 0x20) {
			*out++ = (char)c;
		}
	}
	return out;
}

/* One entry's text: lead ('[', '{' or ','), then "key": when key, then
 * raw when raw, then "str" (escaped) when str, then close. */
struct piece {
	char lead;
	const char *key;
	const char *raw;
	const char *str;
	char close;
};

static size_t
piece_len(const struct piece *p)
{
	size_t n = 2;

	if (p->key != NULL)
		n += strlen(p->key) + 3;
	if (p->raw != NULL)
		n += strlen(p->raw);
	if (p->str != NULL)
		n += escaped_len(p->str, SIZE_MAX) + 2;
	return n;
}

/* Write p at out with a NUL if it leaves room for it in room bytes: its
 * length, else 0 and out untouched. */
static int
piece_put(char *out, int room, const struct piece *p)
{
	size_t n = piece_len(p);

	if (room <= 0 || n >= (size_t)room)
		return 0;
	*out++ = p->lead;
	if (p->key != NULL)
		out += sprintf(out, "\"%s\":", p->key);
	if (p->raw != NULL)
		out = stpcpy(out, p->raw);
	if (p->str != NULL) {
		*out++ = '"';
		out = escape(out, p->str, SIZE_MAX);
		*out++ = '"';
	}
	*out++ = p->close;
	*out = '\0';
	return (int)n;
}

/* Append an entry to the container whose text is buf[0, used): the new
 * length in use (see the rules above). */
static int
append(char *buf, int len, int used, char open, char close, const char *key,
       const char *raw, const char *str)
{
	struct piece p = {open, key, raw, str, close};
	int end = used - 1, ret;

	if (used <= 2)
		return piece_put(buf, len, &p);
	p.lead = ',';
	ret = piece_put(buf + end, len - end, &p);
	return ret == 0 ? used : end + ret;
}

/* "[]" or "{}" at buf + used if it fits: the new length in use. */
static int
open_empty(char *buf, int len, int used, const char *empty)
{
	if (len - used <= 2)
		return used;
	memcpy(buf + used, empty, 3);
	return used + 2;
}

static int render(const struct lr_tel_data *d, char *buf, int len);

/* Append container c (as key when key) to buf: the new length in use. */
static int
append_container(char *buf, int len, int used, char open, char close,
		 const char *key, const struct lr_tel_data *c)
{
	char *tmp = malloc((size_t)len);

	if (tmp == NULL)
		return used;
	tmp[0] = '\0';
	if (render(c, tmp, len) != 0)
		used = append(buf, len, used, open, close, key, tmp, NULL);
	free(tmp);
	return used;
}

static int
render_dict(const struct lr_tel_data *d, char *buf, int len)
{
	int used = open_empty(buf, len, 0, "{}");
	char num[24];

	for (unsigned i = 0; i < d->n; i++) {
		const struct tel_dict_entry *e = &d->u.dict[i];

		switch (e->kind) {
		case TEL_E_STRING:
			used = append(buf, len, used, '{', '}', e->name, NULL,
				      e->v.str);
			break;
		case TEL_E_INT:
			snprintf(num, sizeof(num), "%d", (int)e->v.i);
			used = append(buf, len, used, '{', '}', e->name, num,
				      NULL);
			break;
		case TEL_E_UINT:
			snprintf(num, sizeof(num), "%" PRIu64, e->v.u);
			used = append(buf, len, used, '{', '}', e->name, num,
				      NULL);
			break;
		case TEL_E_CONTAINER:
			used = append_container(buf, len, used, '{', '}',
						e->name, e->v.c.data);
			break;
		}
	}
	return used;
}

static int
render_array(const struct lr_tel_data *d, char *buf, int len)
{
	int used = open_empty(buf, len, 0, "[]");
	char num[24];

	for (unsigned i = 0; i < d->n; i++) {
		const union tel_value *v = &d->u.array[i];

		switch (d->kind) {
		case TEL_ARRAY_STRING:
			used = append(buf, len, used, '[', ']', NULL, NULL,
				      v->str);
			break;
		case TEL_ARRAY_INT:
			snprintf(num, sizeof(num), "%d", (int)v->i);
			used =
			    append(buf, len, used, '[', ']', NULL, num, NULL);
			break;
		case TEL_ARRAY_UINT:
			snprintf(num, sizeof(num), "%" PRIu64, v->u);
			used =
			    append(buf, len, used, '[', ']', NULL, num, NULL);
			break;
		default:
			used = append_container(buf, len, used, '[', ']', NULL,
						v->c.data);
			break;
		}
	}
	return used;
}

/* d's value into buf (len bytes, NUL-terminated): the length in use. */
static int
render(const struct lr_tel_data *d, char *buf, int len)
{
	char num[24];
	int n;

	switch (d->kind) {
	case TEL_DICT:
		return render_dict(d, buf, len);
	case TEL_ARRAY_INT:
	case TEL_ARRAY_UINT:
	case TEL_ARRAY_STRING:
	case TEL_ARRAY_CONTAINER:
		return render_array(d, buf, len);
	case TEL_STRING: {
		size_t m = escaped_len(d->u.str, SIZE_MAX) + 2;

		if (m >= (size_t)len)
			return 0;
		buf[0] = '"';
		*escape(buf + 1, d->u.str, SIZE_MAX) = '"';
		buf[m] = '\0';
		return (int)m;
	}
	case TEL_INT:
	case TEL_UINT:
		if (d->kind == TEL_INT)
			n = snprintf(num, sizeof(num), "%" PRId64, d->u.i);
		else
			n = snprintf(num, sizeof(num), "%" PRIu64, d->u.u);
		if (n >= len)
			return 0;
		memcpy(buf, num, (size_t)n + 1);
		return n;
	default:
		if (len > 4)
			memcpy(buf, "null", 5);
		return 4;
	}
}

int
lr_tel_data_to_json(const struct lr_tel_data *d, const char *cmd, char *out,
		    size_t len)
{
	const size_t max = LR_TELEMETRY_MAX_CMD_LEN;
	size_t prefix, used, room;
	char *p;

	if (d == NULL || out == NULL || len < LR_TELEMETRY_MAX_OUTPUT_LEN)
		return -EINVAL;
	if (cmd == NULL)
		cmd = "(null)"; /* what glibc's printf makes of DPDK's NULL */
	p = out;
	*p++ = '{';
	*p++ = '"';
	p = escape(p, cmd, max);
	*p++ = '"';
	*p++ = ':';
	*p = '\0';
	prefix = (size_t)(p - out);
	room = LR_TELEMETRY_MAX_OUTPUT_LEN - prefix - 1;
	used = (size_t)render(d, p, (int)room);
	used += strlen(p + used);
	p[used] = '}';
	p[used + 1] = '\0';
	return (int)(prefix + used + 1);
}
