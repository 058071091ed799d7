/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The samples of one scrape (tel.h's struct prom_set) and their text in
 * Prometheus' exposition format 0.0.4: each family's # HELP and # TYPE
 * once, its samples together after them, a sample given twice (the same
 * name and labels) kept once.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "prom_set.h"

/* Grow array *p of *cap elements of size sz to hold n: 0 or -ENOMEM. */
static int
grow(void **p, size_t *cap, size_t n, size_t sz)
{
	size_t c = *cap ? *cap : 64;
	void *q;

	if (n <= *cap)
		return 0;
	while (c < n)
		c *= 2;
	q = realloc(*p, c * sz);
	if (q == NULL)
		return -ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

/* The family named name, or -1. */
static long
find_family(const struct prom_set *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->n_fam; i++)
		if (strcmp(s->fam[i].name, name) == 0)
			return (long)i;
	return -1;
}

/* Whether family f already has a sample with labels. */
static int
has_sample(const struct prom_set *s, size_t f, const char *labels)
{
	size_t i;

	for (i = 0; i < s->n_smp; i++)
		if (s->smp[i].fam == f && strcmp(s->smp[i].labels, labels) == 0)
			return 1;
	return 0;
}

/* prom_add() without the note of a failure. */
static int
add_sample(struct prom_set *s, const char *name, const char *type,
	   const char *help, const char *labels, const char *value)
{
	struct prom_sample *sm;
	long f = find_family(s, name);

	if (f < 0) {
		if (grow((void **)&s->fam, &s->cap_fam, s->n_fam + 1,
			 sizeof(*s->fam)) != 0)
			return -ENOMEM;
		f = (long)s->n_fam;
		snprintf(s->fam[f].name, sizeof(s->fam[f].name), "%s", name);
		snprintf(s->fam[f].type, sizeof(s->fam[f].type), "%s", type);
		snprintf(s->fam[f].help, sizeof(s->fam[f].help), "%s", help);
		s->n_fam++;
	}
	if (has_sample(s, (size_t)f, labels))
		return 0;
	if (grow((void **)&s->smp, &s->cap_smp, s->n_smp + 1,
		 sizeof(*s->smp)) != 0)
		return -ENOMEM;
	sm = &s->smp[s->n_smp];
	sm->labels = strdup(labels);
	if (sm->labels == NULL)
		return -ENOMEM;
	sm->fam = (size_t)f;
	snprintf(sm->value, sizeof(sm->value), "%s", value);
	s->n_smp++;
	return 0;
}

int
prom_add(struct prom_set *s, const char *name, const char *type,
	 const char *help, const char *labels, const char *value)
{
	int ret = add_sample(s, name, type, help, labels, value);

	if (ret != 0)
		s->nomem = 1;
	return ret;
}

void
prom_set_free(struct prom_set *s)
{
	size_t i;

	for (i = 0; i < s->n_smp; i++)
		free(s->smp[i].labels);
	free(s->smp);
	free(s->fam);
	memset(s, 0, sizeof(*s));
}

/* Write help text t to f, escaped as # HELP wants (\\ and \n). */
static void
put_help(FILE *f, const char *t)
{
	for (; *t; t++)
		if (*t == '\\')
			fputs("\\\\", f);
		else if (*t == '\n')
			fputs("\\n", f);
		else
			fputc(*t, f);
}

int
prom_set_text(const struct prom_set *s, char **text, size_t *len)
{
	FILE *f;
	size_t i, j;

	*text = NULL;
	if (s->nomem)
		return -ENOMEM;
	f = open_memstream(text, len);
	if (f == NULL)
		return -ENOMEM;
	for (i = 0; i < s->n_fam; i++) {
		fprintf(f, "# HELP %s ", s->fam[i].name);
		put_help(f, s->fam[i].help);
		fprintf(f, "\n# TYPE %s %s\n", s->fam[i].name, s->fam[i].type);
		for (j = 0; j < s->n_smp; j++)
			if (s->smp[j].fam == i)
				fprintf(f, "%s%s %s\n", s->fam[i].name,
					s->smp[j].labels, s->smp[j].value);
	}
	if (fclose(f) != 0)
		return -ENOMEM;
	return 0;
}

int
prom_value(const json_t *j, char *buf, size_t n)
{
	double d;

	if (json_is_integer(j)) {
		snprintf(buf, n, "%" JSON_INTEGER_FORMAT,
			 json_integer_value(j));
		return 0;
	}
	if (json_is_boolean(j)) {
		snprintf(buf, n, "%d", json_is_true(j) ? 1 : 0);
		return 0;
	}
	if (!json_is_real(j))
		return -1;
	d = json_real_value(j);
	if (isnan(d))
		snprintf(buf, n, "NaN");
	else if (isinf(d))
		snprintf(buf, n, d > 0 ? "+Inf" : "-Inf");
	else
		snprintf(buf, n, "%.17g", d);
	return 0;
}

void
prom_label(char *labels, size_t n, const char *name, const char *value)
{
	size_t used = strlen(labels);
	char *p;

	/* {a="x"} becomes {a="x",name="value"}. */
	if (used >= 2 && labels[used - 1] == '}')
		labels[used - 1] = ',';
	else if (used + 1 < n)
		labels[used++] = '{';
	p = labels + used;
	used += (size_t)snprintf(p, used < n ? n - used : 0, "%s=\"", name);
	for (; *value && used + 3 < n; value++) {
		if (*value == '\\' || *value == '"' || *value == '\n') {
			labels[used++] = '\\';
			labels[used++] = *value == '\n' ? 'n' : *value;
		} else
			labels[used++] = *value;
	}
	if (used + 2 < n) {
		labels[used++] = '"';
		labels[used++] = '}';
	}
	labels[used < n ? used : n - 1] = '\0';
}

void
prom_sanitize(char *s)
{
	for (; *s; s++)
		if (*s >= 'A' && *s <= 'Z')
			*s = (char)(*s - 'A' + 'a');
		else if (!((*s >= 'a' && *s <= 'z') ||
			   (*s >= '0' && *s <= '9')))
			*s = '_';
}
