/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reply builder: handlers fill a struct lr_tel_data through these
 * calls; telemetry_json.c writes it. Limits and return values follow
 * DPDK 22.11's telemetry data API (lr_telemetry.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "telemetry_private.h"

/* Copy src into dst of size bytes, cut to fit; true if it was cut. */
static bool
copy_cut(char *dst, const char *src, size_t size)
{
	size_t n = strlen(src);
	bool cut = n >= size;

	if (cut)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
	return cut;
}

/* Dict keys are [A-Za-z0-9_/], as DPDK's: they are written unescaped. */
static bool
valid_name(const char *name)
{
	for (; *name != '\0'; name++) {
		char c = *name;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '/'))
			return false;
	}
	return true;
}

int
lr_tel_data_start_dict(struct lr_tel_data *d)
{
	if (d == NULL)
		return -EINVAL;
	d->kind = TEL_DICT;
	d->n = 0;
	return 0;
}

int
lr_tel_data_start_array(struct lr_tel_data *d, enum lr_tel_type type)
{
	static const enum tel_kind kinds[] = {
	    [LR_TEL_INT] = TEL_ARRAY_INT,
	    [LR_TEL_UINT] = TEL_ARRAY_UINT,
	    [LR_TEL_STRING] = TEL_ARRAY_STRING,
	    [LR_TEL_CONTAINER] = TEL_ARRAY_CONTAINER,
	};

	if (d == NULL || (unsigned)type > LR_TEL_CONTAINER)
		return -EINVAL;
	d->kind = kinds[type];
	d->n = 0;
	return 0;
}

int
lr_tel_data_string(struct lr_tel_data *d, const char *str)
{
	if (d == NULL || str == NULL)
		return -EINVAL;
	d->kind = TEL_STRING;
	d->n = 0;
	return copy_cut(d->u.str, str, sizeof(d->u.str)) ? E2BIG : 0;
}

int
lr_tel_data_int(struct lr_tel_data *d, int64_t v)
{
	if (d == NULL)
		return -EINVAL;
	d->kind = TEL_INT;
	d->u.i = v;
	return 0;
}

int
lr_tel_data_uint(struct lr_tel_data *d, uint64_t v)
{
	if (d == NULL)
		return -EINVAL;
	d->kind = TEL_UINT;
	d->u.u = v;
	return 0;
}

/* The next free entry of dict d for name, or NULL after setting *rc. */
static struct tel_dict_entry *
dict_entry(struct lr_tel_data *d, const char *name, int *rc)
{
	/* In DPDK's order: a full dict says so before a bad name does. */
	if (d == NULL || name == NULL || d->kind != TEL_DICT) {
		*rc = -EINVAL;
		return NULL;
	}
	if (d->n >= LR_TEL_MAX_DICT_ENTRIES) {
		*rc = -ENOSPC;
		return NULL;
	}
	if (!valid_name(name)) {
		*rc = -EINVAL;
		return NULL;
	}
	*rc = copy_cut(d->u.dict[d->n].name, name, LR_TEL_MAX_STRING_LEN)
		  ? E2BIG
		  : 0;
	return &d->u.dict[d->n++];
}

int
lr_tel_data_add_dict_int(struct lr_tel_data *d, const char *name, int v)
{
	int rc;
	struct tel_dict_entry *e = dict_entry(d, name, &rc);

	if (e != NULL) {
		e->kind = TEL_E_INT;
		e->v.i = v;
	}
	return rc;
}

int
lr_tel_data_add_dict_uint(struct lr_tel_data *d, const char *name, uint64_t v)
{
	int rc;
	struct tel_dict_entry *e = dict_entry(d, name, &rc);

	if (e != NULL) {
		e->kind = TEL_E_UINT;
		e->v.u = v;
	}
	return rc;
}

int
lr_tel_data_add_dict_string(struct lr_tel_data *d, const char *name,
			    const char *s)
{
	int rc;
	struct tel_dict_entry *e;

	if (s == NULL)
		return -EINVAL;
	e = dict_entry(d, name, &rc);
	if (e != NULL) {
		e->kind = TEL_E_STRING;
		if (copy_cut(e->v.str, s, sizeof(e->v.str)))
			rc = E2BIG;
	}
	return rc;
}

/* A value a container may hold: an array of scalars, or (in a dict) a
 * dict; as DPDK 22.11. */
static bool
nestable(const struct lr_tel_data *val, bool dict_ok)
{
	if (val == NULL)
		return false;
	switch (val->kind) {
	case TEL_ARRAY_INT:
	case TEL_ARRAY_UINT:
	case TEL_ARRAY_STRING:
		return true;
	case TEL_DICT:
		return dict_ok;
	default:
		return false;
	}
}

int
lr_tel_data_add_dict_container(struct lr_tel_data *d, const char *name,
			       struct lr_tel_data *val, int keep)
{
	int rc;
	struct tel_dict_entry *e;

	if (!nestable(val, true) || val == d)
		return -EINVAL;
	e = dict_entry(d, name, &rc);
	if (e != NULL) {
		e->kind = TEL_E_CONTAINER;
		e->v.c.data = val;
		e->v.c.keep = keep != 0;
	}
	return rc;
}

/* The next free entry of array d of kind, or NULL after setting *rc. */
static union tel_value *
array_entry(struct lr_tel_data *d, enum tel_kind kind, int *rc)
{
	if (d == NULL || d->kind != kind) {
		*rc = -EINVAL;
		return NULL;
	}
	if (d->n >= LR_TEL_MAX_ARRAY_ENTRIES) {
		*rc = -ENOSPC;
		return NULL;
	}
	*rc = 0;
	return &d->u.array[d->n++];
}

int
lr_tel_data_add_array_int(struct lr_tel_data *d, int v)
{
	int rc;
	union tel_value *e = array_entry(d, TEL_ARRAY_INT, &rc);

	if (e != NULL)
		e->i = v;
	return rc;
}

int
lr_tel_data_add_array_uint(struct lr_tel_data *d, uint64_t v)
{
	int rc;
	union tel_value *e = array_entry(d, TEL_ARRAY_UINT, &rc);

	if (e != NULL)
		e->u = v;
	return rc;
}

int
lr_tel_data_add_array_string(struct lr_tel_data *d, const char *s)
{
	int rc;
	union tel_value *e;

	if (s == NULL)
		return -EINVAL;
	e = array_entry(d, TEL_ARRAY_STRING, &rc);
	if (e != NULL && copy_cut(e->str, s, sizeof(e->str)))
		rc = E2BIG;
	return rc;
}

int
lr_tel_data_add_array_container(struct lr_tel_data *d, struct lr_tel_data *val,
				int keep)
{
	int rc;
	union tel_value *e;

	if (!nestable(val, false))
		return -EINVAL;
	e = array_entry(d, TEL_ARRAY_CONTAINER, &rc);
	if (e != NULL) {
		e->c.data = val;
		e->c.keep = keep != 0;
	}
	return rc;
}

struct lr_tel_data *
lr_tel_data_alloc(void)
{
	struct lr_tel_data *d = malloc(sizeof(*d));

	if (d == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	d->kind = TEL_NULL;
	d->n = 0;
	return d;
}

/* Free c's data unless it is kept. */
static void
container_put(const struct tel_container *c)
{
	if (!c->keep)
		lr_tel_data_free(c->data);
}

void
lr_tel_data_release_(struct lr_tel_data *d)
{
	if (d->kind == TEL_DICT) {
		for (unsigned i = 0; i < d->n; i++)
			if (d->u.dict[i].kind == TEL_E_CONTAINER)
				container_put(&d->u.dict[i].v.c);
	} else if (d->kind == TEL_ARRAY_CONTAINER) {
		for (unsigned i = 0; i < d->n; i++)
			container_put(&d->u.array[i].c);
	}
	d->kind = TEL_NULL;
	d->n = 0;
}

void
lr_tel_data_free(struct lr_tel_data *d)
{
	if (d == NULL)
		return;
	lr_tel_data_release_(d);
	free(d);
}
