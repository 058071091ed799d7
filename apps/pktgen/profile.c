/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * profile.c - lr-pktgen's stream profiles (--profile FILE.json), read with
 * jansson. The format (README.md, "lr-pktgen profiles"):
 *
 *   {"streams": [{"name": "a", "proto": "udp", "src_ip": "10.0.0.1-10.0.0.4",
 *                 "size": "imix", "rate_pps": 1000}, ...]}
 *
 * Every key of a stream is optional; an unknown key is an error (a typo
 * must not pass silently). A ranged value is "A-B" (increment) or
 * {"from": A, "to": B, "step": S, "mode": "inc"|"dec"|"random"}.
 *
 * Every error names the file, where in it (line and column) and what:
 *   lr-pktgen: --profile p.json:3:15: streams[1].size (stream 'b'): 63:
 *   below 64, the smallest frame
 * A syntax error has jansson's position. jansson keeps no position for the
 * values it parsed, so an error found after parsing is placed by walking
 * the file's text (which jansson accepted) along the field's JSON path;
 * where the text does not show the key as written in the message (a key
 * spelled with \u escapes of non-ASCII characters) the position is its
 * stream's, and the message says so. A file that cannot be read is named
 * with the reason (`--profile 'x.json': cannot open: No such file or
 * directory`).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "pktgen.h"

/** Largest profile read (a profile is a few kB). */
#define PROFILE_MAX (16u << 20)
/** Room for "--profile PATH:LINE:COLUMN". */
#define POS_MAX 4200

struct ctx {
	const char *path;
	const char *text; /* the file jansson parsed, len bytes */
	size_t len;
	unsigned idx;
	const char *name;
};

/* Positions in the text: the text is JSON that jansson accepted, so the
 * walk below only follows its structure; it stops at len whatever it
 * meets. NOT_FOUND: the path is not in the text as asked. */
#define NOT_FOUND ((size_t)-1)

static size_t
skip_ws(const char *t, size_t len, size_t i)
{
	while (i < len &&
	       (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r'))
		i++;
	return i;
}

/* t[i] is a '"': the index after the string. */
static size_t
skip_string(const char *t, size_t len, size_t i)
{
	for (i++; i < len; i++) {
		if (t[i] == '\\')
			i++;
		else if (t[i] == '"')
			return i + 1;
	}
	return len;
}

/* The index after the value that begins at t[i]. */
static size_t
skip_value(const char *t, size_t len, size_t i)
{
	unsigned depth = 0;

	if (i < len && t[i] == '"')
		return skip_string(t, len, i);
	if (i < len && t[i] != '{' && t[i] != '[') {
		while (i < len && t[i] != '\0' && !strchr(",}] \t\r\n", t[i]))
			i++;
		return i;
	}
	for (; i < len; i++) {
		if (t[i] == '"')
			i = skip_string(t, len, i) - 1;
		else if (t[i] == '{' || t[i] == '[')
			depth++;
		else if ((t[i] == '}' || t[i] == ']') && --depth == 0)
			return i + 1;
	}
	return len;
}

/* The string at t[i] (a '"') holds exactly key (ASCII): its escapes
 * decoded, \uXXXX only below 0x80. */
static bool
key_is(const char *t, size_t len, size_t i, const char *key)
{
	static const char esc[] = "\"\"\\\\//b\bf\fn\nr\rt\t";

	for (i++; i < len && t[i] != '"'; i++, key++) {
		char c = t[i];

		if (c == '\\' && i + 1 < len && t[i + 1] == 'u') {
			unsigned v;

			if (i + 5 >= len || sscanf(t + i + 2, "%4x", &v) != 1 ||
			    v >= 0x80)
				return false;
			c = (char)v;
			i += 5;
		} else if (c == '\\' && i + 1 < len) {
			const char *e = strchr(esc, t[++i]);

			if (e == NULL || (e - esc) % 2 != 0)
				return false;
			c = e[1];
		}
		if (*key != c)
			return false;
	}
	return i < len && *key == '\0';
}

/* t[i] begins a value of an object or array: where the item after it
 * begins (past the ','), or NOT_FOUND when none follows. */
static size_t
next_item(const char *t, size_t len, size_t i)
{
	i = skip_ws(t, len, skip_value(t, len, i));
	if (i >= len || t[i] != ',')
		return NOT_FOUND;
	return skip_ws(t, len, i + 1);
}

/* t[i] is a '{': where the value of its member key begins. */
static size_t
member(const char *t, size_t len, size_t i, const char *key)
{
	if (i >= len || t[i] != '{')
		return NOT_FOUND;
	for (i = skip_ws(t, len, i + 1); i < len && t[i] == '"';) {
		bool hit = key_is(t, len, i, key);

		i = skip_ws(t, len, skip_string(t, len, i));
		if (i >= len || t[i] != ':')
			return NOT_FOUND;
		i = skip_ws(t, len, i + 1);
		if (hit)
			return i;
		i = next_item(t, len, i);
	}
	return NOT_FOUND;
}

/* t[i] is a '[': where its element n begins. */
static size_t
element(const char *t, size_t len, size_t i, unsigned n)
{
	if (i >= len || t[i] != '[')
		return NOT_FOUND;
	i = skip_ws(t, len, i + 1);
	for (unsigned k = 0; i < len && t[i] != ']'; k++) {
		if (k == n)
			return i;
		i = next_item(t, len, i);
	}
	return NOT_FOUND;
}

/* The offset of the value at streams[idx] (idx < 0: of "streams"
 * itself), then of its member key (NULL: the stream). NOT_FOUND when the
 * text does not show it. */
static size_t
locate(const char *t, size_t len, int idx, const char *key)
{
	size_t i = member(t, len, skip_ws(t, len, 0), "streams");

	if (i == NOT_FOUND || idx < 0)
		return i;
	i = element(t, len, i, (unsigned)idx);
	if (i == NOT_FOUND || key == NULL)
		return i;
	return member(t, len, i, key);
}

/* "--profile FILE:LINE:COLUMN" of offset at in the text (the column in
 * characters, as jansson counts them), or "--profile 'FILE'" when at is
 * NOT_FOUND; into buf. */
static const char *
where(const struct ctx *c, size_t at, char *buf, size_t n)
{
	unsigned line = 1, col = 1;

	if (at == NOT_FOUND) {
		snprintf(buf, n, "--profile '%s'", c->path);
		return buf;
	}
	for (size_t i = 0; i < at && i < c->len; i++) {
		if (c->text[i] == '\n') {
			line++;
			col = 1;
		} else if (((unsigned char)c->text[i] & 0xc0) != 0x80) {
			col++;
		}
	}
	snprintf(buf, n, "--profile %s:%u:%u", c->path, line, col);
	return buf;
}

/* Where the value of one of keys ("a" or "a/b/c": the first the stream
 * has) of the current stream begins, NOT_FOUND if the text shows none. */
static size_t
locate_key(const struct ctx *c, const char *keys)
{
	char one[64];
	size_t at = NOT_FOUND;

	while (at == NOT_FOUND && *keys != '\0') {
		size_t n = strcspn(keys, "/");

		snprintf(one, sizeof(one), "%.*s", (int)n, keys);
		at = locate(c->text, c->len, (int)c->idx, one);
		keys += n + (keys[n] == '/');
	}
	return at;
}

/* An error about key (or keys "a/b": their combination) of the current
 * stream: the file and position of the key's value (of the first of keys
 * the stream has; the stream's when the text does not show the key
 * plainly, said so), the field's JSON path, the stream's name, then the
 * message. */
static int __attribute__((format(printf, 3, 4)))
perr(const struct ctx *c, const char *key, const char *fmt, ...)
{
	bool one = strchr(key, '/') == NULL;
	size_t at = locate_key(c, key);
	bool plain = at != NOT_FOUND || !one;
	char pos[POS_MAX];
	va_list ap;

	if (at == NOT_FOUND)
		at = locate(c->text, c->len, (int)c->idx, NULL);
	fprintf(stderr, "lr-pktgen: %s: streams[%u]%s%s (stream '%s'%s): ",
		where(c, at, pos, sizeof(pos)), c->idx, one ? "." : "",
		one ? key : "", c->name,
		plain ? ""
		      : "; the position is the stream's: its key is not "
			"written plainly");
	if (!one)
		fprintf(stderr, "%s: ", key);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

/* The text of a JSON value, for messages. */
static const char *
jtext(json_t *j, char *buf, size_t n)
{
	char *t = json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT);

	snprintf(buf, n, "%s", t ? t : "?");
	free(t);
	return buf;
}

enum vkind { K_MAC, K_IP, K_U16, K_VLAN, K_SIZE, K_U8 };

/* One end of a range: a number, or text in the field's notation. */
static int
one_value(json_t *j, enum vkind k, bool v6, uint64_t *v, uint64_t *hi6)
{
	char buf[64];

	*hi6 = 0;
	if (json_is_integer(j) && k != K_MAC && k != K_IP) {
		if (json_integer_value(j) < 0)
			return -1;
		*v = (uint64_t)json_integer_value(j);
		return 0;
	}
	if (!json_is_string(j) || json_string_length(j) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", json_string_value(j));
	if (k == K_MAC)
		return pg_parse_mac(buf, v);
	if (k == K_IP) {
		uint64_t hi;

		return pg_parse_ip_range(buf, v6, v, &hi, hi6) != 0 || hi != *v
			   ? -1
			   : 0;
	}
	{
		char *end;

		errno = 0;
		*v = strtoull(buf, &end, 0);
		return errno || end == buf || *end ? -1 : 0;
	}
}

static uint64_t
kind_max(enum vkind k)
{
	switch (k) {
	case K_MAC:
		return 0xffffffffffffULL;
	case K_U16:
		return 65535;
	case K_VLAN:
		return 4095;
	case K_SIZE:
		return PG_MAX_SIZE;
	case K_U8:
		return 255;
	default:
		return UINT64_MAX;
	}
}

/* j (the value at key) is one of the three words w: its index into *k;
 * else -1 after "what<j>: expected "w0", "w1" or "w2"". */
static int
get_word(const struct ctx *c, const char *key, const char *what, json_t *j,
	 const char *const w[3], unsigned *k)
{
	const char *s = json_is_string(j) ? json_string_value(j) : "";
	char buf[160];

	for (*k = 0; *k < 3; (*k)++)
		if (strcmp(s, w[*k]) == 0)
			return 0;
	return perr(c, key, "%s%s: expected \"%s\", \"%s\" or \"%s\"", what,
		    jtext(j, buf, sizeof(buf)), w[0], w[1], w[2]);
}

/* "mode" of a ranged value at key: "inc", "dec" or "random" into v. */
static int
val_mode(const struct ctx *c, const char *key, json_t *m, struct pg_val *v)
{
	/* in the order of enum pg_vmode */
	static const char *const modes[] = {"inc", "dec", "random"};
	unsigned k;

	if (get_word(c, key, "mode ", m, modes, &k) != 0)
		return -1;
	v->mode = (enum pg_vmode)k;
	return 0;
}

/* A value at key as an object {"from", "to", "step", "mode"} of kind k
 * (what: what its ends must be) into v, the ends' IPv6 high bits into
 * *h0 and *h1. */
static int
val_object(const struct ctx *c, const char *key, json_t *j, enum vkind k,
	   bool v6, const char *what, struct pg_val *v, uint64_t *h0,
	   uint64_t *h1)
{
	json_t *m = json_object_get(j, "mode");
	json_t *st = json_object_get(j, "step");
	const char *k2;
	char buf[160];
	json_t *x;

	json_object_foreach(j, k2, x)
	{
		if (strcmp(k2, "from") && strcmp(k2, "to") &&
		    strcmp(k2, "step") && strcmp(k2, "mode"))
			return perr(c, key,
				    "unknown key '%s' (from, to, step, "
				    "mode)",
				    k2);
	}
	if (one_value(json_object_get(j, "from"), k, v6, &v->lo, h0) ||
	    one_value(json_object_get(j, "to"), k, v6, &v->hi, h1))
		return perr(c, key, "'from' and 'to' must be %s, in %s", what,
			    jtext(j, buf, sizeof(buf)));
	if (st && (!json_is_integer(st) || json_integer_value(st) < 1))
		return perr(c, key, "'step' must be a number >= 1");
	if (st)
		v->step = (uint64_t)json_integer_value(st);
	if (m)
		return val_mode(c, key, m, v);
	return 0;
}

/* A value at key as text "A-B" of kind k (not an IP address: those have
 * their own notation of ranges) into v, the ends' IPv6 high bits into *h0
 * and *h1. */
static int
val_range_text(const struct ctx *c, const char *key, json_t *j, enum vkind k,
	       bool v6, const char *what, struct pg_val *v, uint64_t *h0,
	       uint64_t *h1)
{
	char a[64], *dash, buf[160];

	if (json_string_length(j) >= sizeof(a))
		return perr(c, key, "%s: longer than %zu characters",
			    jtext(j, buf, sizeof(buf)), sizeof(a) - 1);
	snprintf(a, sizeof(a), "%s", json_string_value(j));
	dash = strchr(a, '-');
	*dash = '\0';
	json_t *ja = json_string(a), *jb = json_string(dash + 1);
	int bad = one_value(ja, k, v6, &v->lo, h0) ||
		  one_value(jb, k, v6, &v->hi, h1);

	json_decref(ja);
	json_decref(jb);
	if (bad)
		return perr(c, key, "expected %s or a range A-B, not %s", what,
			    jtext(j, buf, sizeof(buf)));
	return 0;
}

/* A fixed or ranged value of kind k at key into v (IPv6: high bits into
 * *hi6). */
static int
get_val(const struct ctx *c, const char *key, json_t *j, enum vkind k, bool v6,
	struct pg_val *v, uint64_t *hi6)
{
	char buf[160];
	uint64_t h0 = 0, h1 = 0;
	const char *what = k == K_MAC  ? "a MAC like 02:00:00:00:00:01"
			   : k == K_IP ? (v6 ? "an IPv6 address like fd00::1"
					     : "an IPv4 address like 10.0.0.1")
				       : "a number";

	v->step = 1;
	v->mode = PG_V_INC;
	if (json_is_object(j)) {
		if (val_object(c, key, j, k, v6, what, v, &h0, &h1) != 0)
			return -1;
	} else if (json_is_string(j) && k != K_IP &&
		   strchr(json_string_value(j), '-') != NULL) {
		if (val_range_text(c, key, j, k, v6, what, v, &h0, &h1) != 0)
			return -1;
	} else if (json_is_string(j) && k == K_IP) {
		if (pg_parse_ip_range(json_string_value(j), v6, &v->lo, &v->hi,
				      &h0) != 0)
			return perr(
			    c, key, "expected %s or a range A-B%s, not %s",
			    what, v6 ? " (differing in the low 64 bits)" : "",
			    jtext(j, buf, sizeof(buf)));
		h1 = h0;
	} else if (one_value(j, k, v6, &v->lo, &h0) == 0) {
		v->hi = v->lo;
		h1 = h0;
	} else {
		return perr(c, key, "expected %s, not %s", what,
			    jtext(j, buf, sizeof(buf)));
	}
	if (v->lo > v->hi || v->hi > kind_max(k) || h0 != h1)
		return perr(c, key,
			    "%s: out of range or from high to low (at most "
			    "%llu)",
			    jtext(j, buf, sizeof(buf)),
			    (unsigned long long)kind_max(k));
	if (k == K_SIZE && v->lo < PG_MIN_SIZE)
		return perr(c, key, "%s: below %d, the smallest frame",
			    jtext(j, buf, sizeof(buf)), PG_MIN_SIZE);
	if (hi6)
		*hi6 = h0;
	v->set = true;
	return 0;
}

/* [[size, weight], ...]: the slots, spread by smooth weighted round
 * robin so that no size bunches up. */
static int
weighted_sizes(const struct ctx *c, json_t *j, struct pg_sdef *d)
{
	unsigned n = (unsigned)json_array_size(j), total = 0;
	uint64_t size[64], w[64];
	int64_t cur[64] = {0};
	char buf[160];

	if (n == 0 || n > 64)
		return perr(c, "size", "a weighted list has 1 to 64 entries");
	for (unsigned i = 0; i < n; i++) {
		json_t *e = json_array_get(j, i);
		struct pg_val v;

		if (!json_is_array(e) || json_array_size(e) != 2 ||
		    !json_is_integer(json_array_get(e, 1)) ||
		    json_integer_value(json_array_get(e, 1)) < 1 ||
		    get_val(c, "size", json_array_get(e, 0), K_SIZE, false, &v,
			    NULL) != 0 ||
		    v.lo != v.hi)
			return perr(c, "size",
				    "entry %s: expected [size, weight >= 1]",
				    jtext(e, buf, sizeof(buf)));
		size[i] = v.lo;
		w[i] = (uint64_t)json_integer_value(json_array_get(e, 1));
		total += (unsigned)w[i];
		if (total > PG_MAX_SLOTS)
			return perr(c, "size", "weights add up to more than %d",
				    PG_MAX_SLOTS);
	}
	d->slots = malloc(total * sizeof(*d->slots));
	if (d->slots == NULL)
		return perr(c, "size", "out of memory");
	for (unsigned s = 0; s < total; s++) {
		unsigned best = 0;

		for (unsigned i = 0; i < n; i++) {
			cur[i] += (int64_t)w[i];
			if (cur[i] > cur[best])
				best = i;
		}
		cur[best] -= total;
		d->slots[s] = (uint16_t)size[best];
	}
	d->nslots = total;
	d->size_mode = PG_SIZE_IMIX;
	d->size.set = true;
	return 0;
}

static int
get_size(const struct ctx *c, json_t *j, struct pg_sdef *d)
{
	if (json_is_string(j) && strcmp(json_string_value(j), "imix") == 0) {
		d->slots = malloc(sizeof(pg_imix_sizes));
		if (d->slots == NULL)
			return perr(c, "size", "out of memory");
		memcpy(d->slots, pg_imix_sizes, sizeof(pg_imix_sizes));
		d->nslots = PG_IMIX_SLOTS;
		d->size_mode = PG_SIZE_IMIX;
		d->size.set = true;
		return 0;
	}
	if (json_is_array(j))
		return weighted_sizes(c, j, d);
	if (get_val(c, "size", j, K_SIZE, false, &d->size, NULL) != 0)
		return -1;
	d->size_mode = d->size.lo == d->size.hi ? PG_SIZE_FIXED : PG_SIZE_RANGE;
	return 0;
}

static int
get_num(const struct ctx *c, const char *key, json_t *j, double lo, double hi,
	double *v)
{
	char buf[160];

	if (!json_is_number(j) || json_number_value(j) < lo ||
	    json_number_value(j) > hi)
		return perr(c, key, "%s: expected a number in %g..%g",
			    jtext(j, buf, sizeof(buf)), lo, hi);
	*v = json_number_value(j);
	return 0;
}

/* "SA" (letters of FSRPAUEC) or a number. */
static int
get_tcp_flags(const struct ctx *c, json_t *j, uint8_t *f)
{
	static const char letters[] = "FSRPAUEC";
	char buf[160];

	if (json_is_integer(j) && json_integer_value(j) >= 0 &&
	    json_integer_value(j) <= 255) {
		*f = (uint8_t)json_integer_value(j);
		return 0;
	}
	if (!json_is_string(j))
		return perr(c, "tcp_flags",
			    "%s: expected letters of FSRPAUEC "
			    "or a number",
			    jtext(j, buf, sizeof(buf)));
	*f = 0;
	for (const char *p = json_string_value(j); *p; p++) {
		const char *l = strchr(letters, *p);

		if (l == NULL)
			return perr(c, "tcp_flags",
				    "'%c' in %s: expected letters of FSRPAUEC",
				    *p, jtext(j, buf, sizeof(buf)));
		*f |= (uint8_t)(1u << (l - letters));
	}
	return 0;
}

/* "inc", "zero", "hex:00ff..." or "text:..." */
static int
get_payload(const struct ctx *c, json_t *j, struct pg_sdef *d)
{
	const char *s = json_is_string(j) ? json_string_value(j) : "";
	char buf[160];

	if (strcmp(s, "inc") == 0) {
		d->patlen = 0;
	} else if (strcmp(s, "zero") == 0) {
		d->pat[0] = 0;
		d->patlen = 1;
	} else if (strncmp(s, "hex:", 4) == 0 && strlen(s + 4) % 2 == 0 &&
		   strlen(s + 4) / 2 >= 1 && strlen(s + 4) / 2 <= PG_PAT_MAX) {
		d->patlen = (unsigned)strlen(s + 4) / 2;
		for (unsigned i = 0; i < d->patlen; i++) {
			unsigned x;

			if (sscanf(s + 4 + 2 * i, "%2x", &x) != 1)
				return perr(c, "payload", "%s: bad hex digits",
					    jtext(j, buf, sizeof(buf)));
			d->pat[i] = (uint8_t)x;
		}
	} else if (strncmp(s, "text:", 5) == 0 && strlen(s + 5) >= 1 &&
		   strlen(s + 5) <= PG_PAT_MAX) {
		d->patlen = (unsigned)strlen(s + 5);
		memcpy(d->pat, s + 5, d->patlen);
	} else {
		return perr(c, "payload",
			    "%s: expected \"inc\", \"zero\", \"hex:HEX\" or "
			    "\"text:TEXT\" (a pattern of 1 to %d bytes)",
			    jtext(j, buf, sizeof(buf)), PG_PAT_MAX);
	}
	return 0;
}

static int
get_vlan(const struct ctx *c, json_t *j, struct pg_sdef *d)
{
	json_t *tags[PG_MAX_TAGS];
	unsigned n = 1;
	char buf[160];

	if (json_is_array(j)) {
		n = (unsigned)json_array_size(j);
		if (n < 1 || n > PG_MAX_TAGS)
			return perr(c, "vlan", "%s: one or two tags (QinQ)",
				    jtext(j, buf, sizeof(buf)));
		for (unsigned i = 0; i < n; i++)
			tags[i] = json_array_get(j, i);
	} else {
		tags[0] = j;
	}
	if (get_val(c, "vlan", tags[0], K_VLAN, false, &d->v[PG_FV_VLAN],
		    NULL) != 0)
		return -1;
	if (n == 2) {
		struct pg_val v;

		if (get_val(c, "vlan", tags[1], K_VLAN, false, &v, NULL) != 0)
			return -1;
		if (v.lo != v.hi)
			return perr(c, "vlan", "only the outer tag varies");
		d->tci[1] = (uint16_t)v.lo;
	}
	d->ntags = n;
	d->tpid[0] = n == 2 ? 0x88a8 : 0x8100;
	d->tpid[1] = 0x8100;
	return 0;
}

/* Every key of stream js is one that a stream has. */
static int
stream_keys(const struct ctx *c, json_t *js)
{
	static const char *const known[] = {
	    "name",	 "ports",	 "ipv6",      "dst_mac",
	    "src_mac",	 "vlan",	 "vlan_pcp",  "src_ip",
	    "dst_ip",	 "ttl",		 "tos",	      "proto",
	    "src_port",	 "dst_port",	 "tcp_flags", "icmp_type",
	    "icmp_code", "udp_checksum", "payload",   "size",
	    "rate_pps",	 "rate_mbps",	 "share",     "count",
	    "burst",	 "gap_us",	 "bursts",    NULL};
	const char *key;
	json_t *v;

	json_object_foreach(js, key, v)
	{
		unsigned i = 0;

		while (known[i] && strcmp(known[i], key))
			i++;
		if (known[i] == NULL)
			return perr(c, key,
				    "unknown key (see README.md, "
				    "\"lr-pktgen profiles\")");
	}
	return 0;
}

/* "ipv6", "proto" and "ports" of stream js into d. */
static int
stream_kind(const struct ctx *c, json_t *js, struct pg_sdef *d)
{
	char buf[160];
	json_t *v;

	if ((v = json_object_get(js, "ipv6")) != NULL) {
		if (!json_is_boolean(v))
			return perr(c, "ipv6", "expected true or false");
		d->ipv6 = json_is_true(v);
	}
	if ((v = json_object_get(js, "proto")) != NULL) {
		/* in the order of enum pg_l4 */
		static const char *const protos[] = {"udp", "tcp", "icmp"};
		unsigned k;

		if (get_word(c, "proto", "", v, protos, &k) != 0)
			return -1;
		d->l4 = (enum pg_l4)k;
	}
	if ((v = json_object_get(js, "ports")) != NULL) {
		if (!json_is_array(v) || json_array_size(v) == 0)
			return perr(c, "ports", "expected a list of port ids");
		for (size_t i = 0; i < json_array_size(v); i++) {
			json_t *e = json_array_get(v, i);

			if (!json_is_integer(e) || json_integer_value(e) < 0 ||
			    json_integer_value(e) >= LR_MAX_ETHPORTS)
				return perr(c, "ports",
					    "%s: port ids are "
					    "0..%d",
					    jtext(e, buf, sizeof(buf)),
					    LR_MAX_ETHPORTS - 1);
			d->ports |= 1u << json_integer_value(e);
		}
	}
	return 0;
}

/* The VLAN tags and the fields that may vary (addresses, ports) of
 * stream js into d: after "ipv6", which says what the addresses are. */
static int
stream_fields(const struct ctx *c, json_t *js, struct pg_sdef *d)
{
	static const char *const fkey[PG_FV_COUNT] = {
	    "src_mac", "dst_mac",  "vlan",    "src_ip",
	    "dst_ip",  "src_port", "dst_port"};
	json_t *v;
	double x = 0;

	if ((v = json_object_get(js, "vlan")) != NULL && get_vlan(c, v, d) != 0)
		return -1;
	if ((v = json_object_get(js, "vlan_pcp")) != NULL) {
		if (get_num(c, "vlan_pcp", v, 0, 7, &x) != 0)
			return -1;
		d->tci[0] = (uint16_t)((unsigned)x << 13);
	}
	for (int f = 0; f < PG_FV_COUNT; f++) {
		enum vkind k = f <= PG_FV_DST_MAC  ? K_MAC
			       : f == PG_FV_VLAN   ? K_VLAN
			       : f <= PG_FV_DST_IP ? K_IP
						   : K_U16;

		if (f == PG_FV_VLAN ||
		    (v = json_object_get(js, fkey[f])) == NULL)
			continue;
		if (get_val(c, fkey[f], v, k, d->ipv6, &d->v[f],
			    f == PG_FV_SRC_IP	? &d->hi6[0]
			    : f == PG_FV_DST_IP ? &d->hi6[1]
						: NULL) != 0)
			return -1;
	}
	return 0;
}

/* Key of stream js, when it is there, into *x: a number from lo to hi. 1
 * (there), 0 (not there), or -1 after a message. */
static int
opt_num(const struct ctx *c, json_t *js, const char *key, double lo, double hi,
	double *x)
{
	json_t *v = json_object_get(js, key);

	if (v == NULL)
		return 0;
	return get_num(c, key, v, lo, hi, x) != 0 ? -1 : 1;
}

/* Key of stream js, when it is there, into the byte *b: 0, or -1 after a
 * message. */
static int
opt_byte(const struct ctx *c, json_t *js, const char *key, uint8_t *b)
{
	double x = 0;
	int rc = opt_num(c, js, key, 0, 255, &x);

	if (rc > 0)
		*b = (uint8_t)x;
	return rc < 0 ? -1 : 0;
}

/* Key of stream js, when it is there, into the count *n (lo..9e18): 1
 * (there), 0 (not there), or -1 after a message. */
static int
opt_count(const struct ctx *c, json_t *js, const char *key, double lo,
	  uint64_t *n)
{
	double x = 0;
	int rc = opt_num(c, js, key, lo, 9e18, &x);

	if (rc > 0)
		*n = (uint64_t)x;
	return rc;
}

/* The other header bytes (TTL, TOS, TCP flags, ICMP type and code, the
 * UDP checksum) and the payload of stream js into d. */
static int
stream_bytes(const struct ctx *c, json_t *js, struct pg_sdef *d)
{
	json_t *v;

	if (opt_byte(c, js, "ttl", &d->ttl) != 0 ||
	    opt_byte(c, js, "tos", &d->tos) != 0)
		return -1;
	if ((v = json_object_get(js, "tcp_flags")) != NULL &&
	    get_tcp_flags(c, v, &d->tcp_flags) != 0)
		return -1;
	if (opt_byte(c, js, "icmp_type", &d->icmp_type) != 0 ||
	    opt_byte(c, js, "icmp_code", &d->icmp_code) != 0)
		return -1;
	if ((v = json_object_get(js, "udp_checksum")) != NULL) {
		if (!json_is_boolean(v))
			return perr(c, "udp_checksum",
				    "expected true or false");
		d->udp_cksum = json_is_true(v);
	}
	if ((v = json_object_get(js, "payload")) != NULL &&
	    get_payload(c, v, d) != 0)
		return -1;
	return 0;
}

/* The sizes and the rate (its own, or its share of --rate-*) of stream
 * js into d. */
static int
stream_rate(const struct ctx *c, json_t *js, struct pg_sdef *d)
{
	static const struct {
		const char *key;
		double lo, hi;
		enum pg_rate_mode mode; /* PG_RATE_MAX: a share */
	} rates[] = {
	    {"rate_pps", 1e-3, 1e10, PG_RATE_PPS},
	    {"rate_mbps", 1e-6, 1e7, PG_RATE_MBPS},
	    {"share", 1e-6, 1e9, PG_RATE_MAX},
	};
	json_t *v;
	int nrate = 0;

	if ((v = json_object_get(js, "size")) != NULL && get_size(c, v, d) != 0)
		return -1;
	for (unsigned i = 0; i < LR_DIM(rates); i++) {
		int rc = opt_num(c, js, rates[i].key, rates[i].lo, rates[i].hi,
				 rates[i].mode == PG_RATE_MAX ? &d->share
							      : &d->rate);

		if (rc < 0)
			return -1;
		if (rc > 0 && rates[i].mode != PG_RATE_MAX)
			d->rate_mode = rates[i].mode;
		nrate += rc;
	}
	if (nrate > 1)
		return perr(c, "rate_pps/rate_mbps/share", "give one");
	return 0;
}

/* The count and the burst pattern of stream js into d. */
static int
stream_bursts(const struct ctx *c, json_t *js, struct pg_sdef *d)
{
	int rc;

	if (opt_count(c, js, "count", 1, &d->count) < 0)
		return -1;
	rc = opt_count(c, js, "burst", 1, &d->burst);
	if (rc < 0)
		return -1;
	if (rc > 0)
		d->bursts = 1;
	if (opt_count(c, js, "bursts", 0, &d->bursts) < 0 ||
	    opt_num(c, js, "gap_us", 0, 3.6e9, &d->gap_us) < 0)
		return -1;
	if ((json_object_get(js, "bursts") || json_object_get(js, "gap_us")) &&
	    d->burst == 0)
		return perr(c, "bursts/gap_us",
			    "need \"burst\" (frames a burst)");
	return 0;
}

/* A stream's keys, applied in this order (ipv6 before the addresses). */
static int
parse_stream(const struct ctx *c, json_t *js, struct pg_sdef *d)
{
	if (stream_keys(c, js) != 0 || stream_kind(c, js, d) != 0 ||
	    stream_fields(c, js, d) != 0 || stream_bytes(c, js, d) != 0 ||
	    stream_rate(c, js, d) != 0 || stream_bursts(c, js, d) != 0)
		return -1;
	return 0;
}

/* The file at path, whole, into *text (NUL-terminated, *len bytes): 0,
 * -EINVAL after a message saying why it cannot be read, -ENOMEM. */
static int
read_file(const char *path, char **text, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 0, n = 0;
	char *buf = NULL, *more;
	int ret = 0;

	if (f == NULL) {
		pg_fail("--profile '%s': cannot open: %s", path,
			strerror(errno));
		return -EINVAL;
	}
	for (;;) {
		if (n + 1 >= cap) {
			cap = cap ? 2 * cap : 4096;
			more =
			    cap <= PROFILE_MAX + 1 ? realloc(buf, cap) : NULL;
			if (more == NULL) {
				ret = cap <= PROFILE_MAX + 1 ? -ENOMEM : -EFBIG;
				break;
			}
			buf = more;
		}
		size_t got = fread(buf + n, 1, cap - 1 - n, f);

		n += got;
		if (got == 0)
			break;
	}
	if (ret == 0 && ferror(f))
		ret = -EIO;
	if (ret == -EIO)
		pg_fail("--profile '%s': cannot read: %s", path,
			strerror(errno));
	else if (ret == -EFBIG)
		pg_fail("--profile '%s': larger than %u MiB", path,
			PROFILE_MAX >> 20);
	else if (ret == -ENOMEM)
		pg_fail("--profile '%s': out of memory", path);
	fclose(f);
	if (ret != 0) {
		free(buf);
		return ret == -ENOMEM ? -ENOMEM : -EINVAL;
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

/* The "streams" array of root, checked: its size, or -EINVAL after a
 * message placing what is wrong. */
static int
streams_of(const struct ctx *c, json_t *root, json_t **streams)
{
	char pos[POS_MAX];
	size_t at;

	*streams = json_object_get(root, "streams");
	if (json_is_object(root) && json_is_array(*streams) &&
	    json_array_size(*streams) > 0 &&
	    json_array_size(*streams) <= PG_MAX_SDEFS)
		return (int)json_array_size(*streams);
	at = locate(c->text, c->len, -1, NULL);
	if (at == NOT_FOUND) /* no "streams": the document itself */
		at = skip_ws(c->text, c->len, 0);
	pg_fail("%s: expected {\"streams\": [...]} with 1 to %d streams",
		where(c, at, pos, sizeof(pos)), PG_MAX_SDEFS);
	return -EINVAL;
}

/* Stream c->idx of the profile, js, into d: 0 or -1 after a message. */
static int
load_stream(struct ctx *c, json_t *js, struct pg_sdef *d)
{
	char pos[POS_MAX], what[POS_MAX + 32];
	json_t *jn;

	pg_sdef_defaults(d);
	snprintf(d->name, sizeof(d->name), "%u", c->idx);
	c->name = d->name;
	if (!json_is_object(js))
		return pg_fail("%s: streams[%u]: expected an object",
			       where(c,
				     locate(c->text, c->len, (int)c->idx, NULL),
				     pos, sizeof(pos)),
			       c->idx);
	jn = json_object_get(js, "name");
	if (jn && (!json_is_string(jn) || json_string_length(jn) == 0 ||
		   json_string_length(jn) >= PG_NAME_MAX))
		return perr(c, "name", "a string of 1 to %d characters",
			    PG_NAME_MAX - 1);
	if (jn)
		snprintf(d->name, sizeof(d->name), "%s", json_string_value(jn));
	if (parse_stream(c, js, d) != 0)
		return -1;
	/* What the stream as a whole must satisfy: placed at the stream. */
	snprintf(what, sizeof(what), "%s: streams[%u]",
		 where(c, locate(c->text, c->len, (int)c->idx, NULL), pos,
		       sizeof(pos)),
		 c->idx);
	return pg_sdef_check(d, what);
}

int
pg_profile_load(const char *path, struct pg_sdef **out)
{
	struct ctx c = {.path = path};
	struct pg_sdef *d = NULL;
	json_t *root, *streams;
	json_error_t e;
	char *text;
	int n, ret;

	ret = read_file(path, &text, &c.len);
	if (ret < 0)
		return ret;
	c.text = text;
	root = json_loadb(text, c.len, JSON_REJECT_DUPLICATES, &e);
	if (root == NULL) {
		/* (At the end of an empty file jansson says column 0.) */
		if (e.line > 0)
			pg_fail("--profile %s:%d:%d: %s", path, e.line,
				e.column > 0 ? e.column : 1, e.text);
		else /* jansson gave no position */
			pg_fail("--profile '%s': %s", path, e.text);
		free(text);
		return -EINVAL;
	}
	n = streams_of(&c, root, &streams);
	if (n > 0 && (d = calloc((size_t)n, sizeof(*d))) == NULL) {
		pg_fail("--profile '%s': out of memory", path);
		n = -ENOMEM;
	}
	for (int i = 0; d != NULL && i < n; i++) {
		c.idx = (unsigned)i;
		if (load_stream(&c, json_array_get(streams, (size_t)i),
				&d[i]) != 0) {
			for (int k = 0; k <= i; k++)
				pg_sdef_fini(&d[k]);
			free(d);
			d = NULL;
			n = -EINVAL;
		}
	}
	json_decref(root);
	free(text);
	if (n > 0)
		*out = d;
	return n;
}
