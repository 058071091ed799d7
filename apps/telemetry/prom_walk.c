/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A reply's numeric leaves as metrics, for replies no table of
 * prom_scrape.c knows (tel.h's prom_walk): the path of object keys is the
 * name, array indices are labels.
 *
 *   {"nodes": [{"node": 0, "free": [5, 3]}]}  under linerate_heap gives
 *   linerate_heap_nodes_free{node="0",order="0"} 5 ... when "free" is an
 *   array of orders: an array's label is named after its key (a key
 *   naming orders, nodes, lcores, ports, queues, pools or streams; else
 *   "index"); an element object with a member of that label's name takes
 *   its value as the label instead of its index. An object whose keys are
 *   all numbers ({"0": ..., "1": ...}) is treated as an array.
 *
 * A key that is a label word and a number ("port0", "lcore3", "node1":
 * one of the words above, singular) is that label ({port="0"}), not a part
 * of the name, as linerate's own replies key their ports and lcores.
 *
 * Types: a name ending in _total is a counter; a key ending in _cycles is
 * a counter named ..._cycles_total; any other number of a /linerate/
 * command a gauge (linerate's servers name every counter ..._total,
 * doc/telemetry.md), of another command untyped (a DPDK reply does not
 * say whether a number is a gauge). Units: a key ending in _ms, _us or
 * _ns is exported in seconds, named ..._seconds, as Prometheus wants base
 * units. Booleans are 1 and 0; strings are left out.
 */
#include <stdlib.h>
#include <string.h>

#include "prom_set.h"

#define NAME_LEN   160
#define LABELS_LEN 1024

const char *
prom_label_for(const char *key)
{
	static const char *const words[][2] = {
	    {"order", "order"}, {"node", "node"},     {"socket", "node"},
	    {"lcore", "lcore"}, {"port", "port"},     {"queue", "queue"},
	    {"pool", "pool"},	{"stream", "stream"},
	};
	size_t i;

	for (i = 0; key != NULL && i < sizeof(words) / sizeof(words[0]); i++)
		if (strstr(key, words[i][0]) != NULL)
			return words[i][1];
	return "index";
}

/* Whether labels already has a label called name. */
static int
has_label(const char *labels, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = labels; (p = strstr(p, name)) != NULL; p++)
		if (p > labels && (p[-1] == '{' || p[-1] == ',') && p[n] == '=')
			return 1;
	return 0;
}

/* Whether every key of object o is a decimal number. */
static int
numeric_keys(json_t *o)
{
	const char *k;
	json_t *x;

	if (json_object_size(o) == 0)
		return 0;
	json_object_foreach(o, k,
			    x) if (k[0] == '\0' || strspn(k, "0123456789") !=
						       strlen(k)) return 0;
	return 1;
}

/* base_key into name, sanitized. */
static void
join(char *name, const char *base, const char *key)
{
	char k[NAME_LEN];

	snprintf(k, sizeof(k), "%s", key);
	prom_sanitize(k);
	snprintf(name, NAME_LEN, "%.80s_%.78s", base, k);
}

/* Whether key is a label word and a decimal number ("port0"): the word's
 * label name in *label and the number's offset in key, or 0. */
static size_t
label_key(const char *key, const char **label)
{
	static const char *const words[] = {"port", "queue",  "lcore", "node",
					    "pool", "stream", "order"};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		size_t n = strlen(words[i]);

		if (strncmp(key, words[i], n) == 0 && key[n] != '\0' &&
		    strspn(key + n, "0123456789") == strlen(key + n)) {
			*label = words[i];
			return n;
		}
	}
	return 0;
}

/* The divisor from the unit of time name ends in to seconds (1 when it
 * ends in none) and that suffix's length in *len. */
static double
time_unit(const char *name, size_t n, size_t *len)
{
	static const struct {
		const char *suffix;
		double div;
	} units[] = {{"_ms", 1e3}, {"_us", 1e6}, {"_ns", 1e9}};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (n >= 3 && strcmp(name + n - 3, units[i].suffix) == 0) {
			*len = 3;
			return units[i].div;
		}
	return 1;
}

/* The sample of number v called name (typed by its name and cmd). */
static void
leaf(struct prom_set *s, const json_t *v, const char *name, const char *labels,
     const char *cmd)
{
	size_t n = strlen(name), ul = 0;
	char val[40], help[200], full[NAME_LEN + 8];
	const char *type = "untyped";
	double div = time_unit(name, n, &ul);

	if (prom_value(v, val, sizeof(val)) != 0)
		return;
	snprintf(full, sizeof(full), "%s", name);
	if (n >= 7 && strcmp(name + n - 7, "_cycles") == 0)
		strcat(full, "_total");
	if (ul != 0 && json_is_number(v)) {
		snprintf(full + n - ul, sizeof(full) - (n - ul), "_seconds");
		snprintf(val, sizeof(val), "%.15g", json_number_value(v) / div);
	}
	n = strlen(full);
	if (n >= 6 && strcmp(full + n - 6, "_total") == 0)
		type = "counter";
	else if (strncmp(cmd, "/linerate/", 10) == 0)
		type = "gauge";
	snprintf(help, sizeof(help), "%s of the reply to %s", full, cmd);
	prom_add(s, full, type, help, labels, val);
}

static void walk(struct prom_set *s, const json_t *v, const char *name,
		 const char *labels, const char *key, const char *skip,
		 const char *cmd);

/* The elements of array (or numeric-keyed object) v found at key. */
static void
walk_elements(struct prom_set *s, const json_t *v, const char *name,
	      const char *labels, const char *key, const char *cmd)
{
	char lab[LABELS_LEN], lname[32], idx[48];
	const char *ln = prom_label_for(key), *k;
	json_t *x;
	size_t i = 0;
	void *it;

	snprintf(lname, sizeof(lname), "%s", ln);
	for (i = 2; has_label(labels, lname) && i < 10; i++)
		snprintf(lname, sizeof(lname), "%s%zu", ln, i);
	it = json_is_object(v) ? json_object_iter((json_t *)v) : NULL;
	for (i = 0;; i++) {
		if (json_is_array(v)) {
			if (i >= json_array_size(v))
				break;
			x = json_array_get(v, i);
			snprintf(idx, sizeof(idx), "%zu", i);
		} else {
			if (it == NULL)
				break;
			k = json_object_iter_key(it);
			x = json_object_iter_value(it);
			it = json_object_iter_next((json_t *)v, it);
			snprintf(idx, sizeof(idx), "%s", k);
		}
		/* An element that names itself ({"node": 1, ...}). */
		if (json_is_integer(json_object_get(x, lname)))
			snprintf(idx, sizeof(idx), "%" JSON_INTEGER_FORMAT,
				 json_integer_value(json_object_get(x, lname)));
		snprintf(lab, sizeof(lab), "%s", labels);
		prom_label(lab, sizeof(lab), lname, idx);
		walk(s, x, name, lab, key, lname, cmd);
	}
}

/* v found at key (NULL at the top) under name with labels; an object's
 * member skip is left out (its label already). */
static void
walk(struct prom_set *s, const json_t *v, const char *name, const char *labels,
     const char *key, const char *skip, const char *cmd)
{
	char sub[NAME_LEN];
	const char *k;
	json_t *x;

	if (json_is_number(v) || json_is_boolean(v)) {
		leaf(s, v, name, labels, cmd);
		return;
	}
	if (json_is_array(v) ||
	    (json_is_object(v) && numeric_keys((json_t *)v))) {
		walk_elements(s, v, name, labels, key, cmd);
		return;
	}
	json_object_foreach((json_t *)v, k, x)
	{
		const char *ln;
		size_t at;

		if (skip != NULL && strcmp(k, skip) == 0)
			continue;
		at = label_key(k, &ln);
		if (at != 0 && !has_label(labels, ln)) {
			char lab[LABELS_LEN];

			snprintf(lab, sizeof(lab), "%s", labels);
			prom_label(lab, sizeof(lab), ln, k + at);
			walk(s, x, name, lab, NULL, NULL, cmd);
			continue;
		}
		join(sub, name, k);
		walk(s, x, sub, labels, k, NULL, cmd);
	}
}

void
prom_walk(struct prom_set *s, const json_t *v, const char *base,
	  const char *labels, const char *key, const char *cmd)
{
	char name[NAME_LEN];

	if (key != NULL)
		join(name, base, key);
	else
		snprintf(name, sizeof(name), "%s", base);
	walk(s, v, name, labels, key, NULL, cmd);
}
