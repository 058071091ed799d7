/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The page pools' telemetry commands (lr_telemetry.h), registered when the
 * library loads:
 *   /linerate/page_pool/list            every pool's name
 *   /linerate/page_pool/info,NAME-or-ID one pool's parameters and counters
 * Both walk the pools with lr_page_pool_walk() (the list lock, which the
 * alloc and put paths never take) and read counters with
 * lr_page_pool_stats_get() (relaxed loads). doc/telemetry.md gives the
 * reply keys.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lr_log.h"
#include "lr_page_pool.h"
#include "lr_telemetry.h"

/* What /linerate/page_pool/info looks for, and what it found. */
struct pp_query {
	const char *name;
	long id; /* -1: the parameter is not a number */
	struct lr_page_pool_info info;
	struct lr_page_pool_stats st;
	int found;
};

static void
list_one(const struct lr_page_pool *pool, void *arg)
{
	struct lr_page_pool_info info;

	if (lr_page_pool_info_get(pool, &info) == 0)
		lr_tel_data_add_array_string(arg, info.name);
}

/* /linerate/page_pool/list: ["name", ...], newest first. */
static int
tel_list(const char *cmd, const char *params, struct lr_tel_data *d)
{
	(void)cmd;
	if (params != NULL)
		return -EINVAL;
	lr_tel_data_start_array(d, LR_TEL_STRING);
	lr_page_pool_walk(list_one, d);
	return 0;
}

/* The pool named q->name, else the one whose id is q->id; a name match
 * wins over an id match (the stats are read while the walk holds it). */
static void
find_one(const struct lr_page_pool *pool, void *arg)
{
	struct pp_query *q = arg;
	struct lr_page_pool_info info;
	int by_name;

	if (q->found == 2 || lr_page_pool_info_get(pool, &info) < 0)
		return;
	by_name = strcmp(info.name, q->name) == 0;
	if (!by_name && (q->found || q->id < 0 || info.id != q->id))
		return;
	q->info = info;
	lr_page_pool_stats_get(pool, &q->st);
	q->found = by_name ? 2 : 1;
}

/* Add the pool's counters to d (pages, since its creation). */
static void
add_counters(struct lr_tel_data *d, const struct lr_page_pool_stats *s)
{
	lr_tel_data_add_dict_uint(d, "alloc_fast_total", s->alloc.fast);
	lr_tel_data_add_dict_uint(d, "alloc_slow_total", s->alloc.slow);
	lr_tel_data_add_dict_uint(d, "alloc_slow_high_order_total",
				  s->alloc.slow_high_order);
	lr_tel_data_add_dict_uint(d, "alloc_empty_total", s->alloc.empty);
	lr_tel_data_add_dict_uint(d, "alloc_refill_total", s->alloc.refill);
	lr_tel_data_add_dict_uint(d, "alloc_remote_total", s->alloc.remote);
	lr_tel_data_add_dict_uint(d, "alloc_exhausted_total",
				  s->alloc.exhausted);
	lr_tel_data_add_dict_uint(d, "alloc_shrunk_total", s->alloc.shrunk);
	lr_tel_data_add_dict_uint(d, "recycle_cached_total", s->recycle.cached);
	lr_tel_data_add_dict_uint(d, "recycle_cache_full_total",
				  s->recycle.cache_full);
	lr_tel_data_add_dict_uint(d, "recycle_ring_total", s->recycle.ring);
	lr_tel_data_add_dict_uint(d, "recycle_ring_full_total",
				  s->recycle.ring_full);
	lr_tel_data_add_dict_uint(d, "recycle_released_refcnt_total",
				  s->recycle.released_refcnt);
	lr_tel_data_add_dict_uint(d, "recycle_waive_total", s->recycle.waive);
	lr_tel_data_add_dict_uint(d, "recycle_shrunk_total", s->recycle.shrunk);
	lr_tel_data_add_dict_uint(d, "allocated_pages_total", s->allocated);
	lr_tel_data_add_dict_uint(d, "returned_pages_total", s->returned);
	lr_tel_data_add_dict_uint(d, "errors_total", s->errors);
}

/* /linerate/page_pool/info,NAME-or-ID: a dict of the pool's parameters,
 * the pages it holds and where, and its counters. */
static int
tel_info(const char *cmd, const char *params, struct lr_tel_data *d)
{
	struct pp_query q = {.name = params, .id = -1};
	const struct lr_page_pool_info *i = &q.info;
	const struct lr_page_pool_stats *s = &q.st;
	char *end;

	(void)cmd;
	if (params == NULL || *params == '\0')
		return -EINVAL;
	if (*params >= '0' && *params <= '9') {
		unsigned long v = strtoul(params, &end, 10);

		if (*end == '\0' && v <= UINT32_MAX)
			q.id = (long)v;
	}
	lr_page_pool_walk(find_one, &q);
	if (!q.found)
		return -EINVAL;
	lr_tel_data_start_dict(d);
	lr_tel_data_add_dict_string(d, "name", i->name);
	lr_tel_data_add_dict_uint(d, "id", i->id);
	lr_tel_data_add_dict_uint(d, "order", i->order);
	lr_tel_data_add_dict_uint(d, "page_bytes", LR_PAGE_SIZE << i->order);
	lr_tel_data_add_dict_uint(d, "pool_size_pages", i->pool_size);
	lr_tel_data_add_dict_uint(d, "ring_size_pages", i->ring_size);
	lr_tel_data_add_dict_int(d, "node", i->node);
	lr_tel_data_add_dict_uint(d, "owner_lcore", i->owner_lcore);
	lr_tel_data_add_dict_uint(d, "flags", i->flags);
	lr_tel_data_add_dict_uint(d, "checked", (uint64_t)i->checked);
	lr_tel_data_add_dict_uint(d, "destroyed", (uint64_t)i->destroyed);
	lr_tel_data_add_dict_uint(d, "held_pages", s->held);
	lr_tel_data_add_dict_uint(d, "dma_mapped_pages",
				  i->flags & LR_PP_FLAG_DMA_MAP ? s->held : 0);
	lr_tel_data_add_dict_uint(d, "cached_pages", s->cached);
	lr_tel_data_add_dict_uint(d, "ringed_pages", s->ringed);
	lr_tel_data_add_dict_uint(d, "stashed_pages", s->stashed);
	lr_tel_data_add_dict_uint(d, "in_flight_pages", s->in_flight);
	add_counters(d, s);
	return 0;
}

static void __attribute__((constructor, used))
page_pool_telemetry_register(void)
{
	int rc = lr_telemetry_register("/linerate/page_pool/list", tel_list,
				       "Names of the page pools. No "
				       "parameters.");

	if (rc == 0)
		rc = lr_telemetry_register(
		    "/linerate/page_pool/info", tel_info,
		    "A page pool's recycling counters. Parameter: name or id");
	if (rc < 0)
		LR_LOG(ERR, PAGEALLOC,
		       "telemetry: cannot register /linerate/page_pool: %s\n",
		       lr_strerror(-rc));
}
