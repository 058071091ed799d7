/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The elastic mempools' telemetry command (lr_telemetry.h), registered
 * when the library loads (DPDK's mempool commands: mempool_telemetry.c):
 *   /linerate/mempool/elastic        names of the elastic pools
 *   /linerate/mempool/elastic,NAME   that pool's growth and give-back
 * It finds the pool with lr_mempool_walk() (the pool list's lock, which
 * no get or put takes) and reads lr_mempool_elastic_stats_get(), which
 * takes no lock. doc/telemetry.md gives the reply keys.
 */
#include <errno.h>
#include <string.h>

#include "lr_log.h"
#include "lr_mempool.h"
#include "lr_telemetry.h"

/* What the walk looks for and what it found. */
struct ep_query {
	const char *name; /* NULL: list every elastic pool into list */
	struct lr_tel_data *list;
	struct lr_mempool_elastic_stats st;
	int found;
};

static void
visit(struct lr_mempool *mp, void *arg)
{
	struct ep_query *q = arg;
	struct lr_mempool_elastic_stats st;

	if (lr_mempool_elastic_stats_get(mp, &st) < 0)
		return; /* a fixed pool */
	if (q->name == NULL) {
		lr_tel_data_add_array_string(q->list, mp->name);
	} else if (!q->found && strcmp(mp->name, q->name) == 0) {
		q->st = st;
		q->found = 1;
	}
}

static void
add_stats(struct lr_tel_data *d, const struct lr_mempool_elastic_stats *s)
{
	lr_tel_data_add_dict_uint(d, "objs", s->objs);
	lr_tel_data_add_dict_uint(d, "peak_objs", s->peak_objs);
	lr_tel_data_add_dict_uint(d, "min_objs", s->min_objs);
	lr_tel_data_add_dict_uint(d, "max_objs", s->max_objs);
	lr_tel_data_add_dict_uint(d, "blocks", s->blocks);
	lr_tel_data_add_dict_uint(d, "peak_blocks", s->peak_blocks);
	lr_tel_data_add_dict_uint(d, "block_order", s->block_order);
	lr_tel_data_add_dict_uint(d, "objs_per_block", s->objs_per_block);
	lr_tel_data_add_dict_uint(d, "idle_shrink_ms", s->idle_shrink_ms);
	lr_tel_data_add_dict_int(d, "node", s->node);
	lr_tel_data_add_dict_uint(d, "growths_total", s->growths);
	lr_tel_data_add_dict_uint(d, "grown_blocks_total", s->grown_blocks);
	lr_tel_data_add_dict_uint(d, "shrinks_total", s->shrinks);
	lr_tel_data_add_dict_uint(d, "shrunk_blocks_total", s->shrunk_blocks);
	lr_tel_data_add_dict_uint(d, "grow_fail_max_total", s->grow_fail_max);
	lr_tel_data_add_dict_uint(d, "grow_fail_nomem_total",
				  s->grow_fail_nomem);
	lr_tel_data_add_dict_uint(d, "bad_puts_total", s->bad_puts);
}

/* /linerate/mempool/elastic[,NAME]: the names, or one pool's dict (a
 * fixed or unknown pool is an error: {"cmd": null}). */
static int
tel_elastic(const char *cmd, const char *params, struct lr_tel_data *d)
{
	struct ep_query q = {.name = params, .list = d};

	(void)cmd;
	if (params == NULL) {
		lr_tel_data_start_array(d, LR_TEL_STRING);
		lr_mempool_walk(visit, &q);
		return 0;
	}
	lr_mempool_walk(visit, &q);
	if (!q.found)
		return -EINVAL;
	lr_tel_data_start_dict(d);
	lr_tel_data_add_dict_string(d, "name", params);
	add_stats(d, &q.st);
	return 0;
}

static void __attribute__((constructor, used)) mempool_telemetry_register(void)
{
	int rc = lr_telemetry_register(
	    "/linerate/mempool/elastic", tel_elastic,
	    "An elastic mempool's growth and give-back. Parameter: name "
	    "(none: the names)");

	if (rc < 0)
		LR_LOG(ERR, MEMPOOL, "telemetry: cannot register %s: %s\n",
		       "/linerate/mempool/elastic", lr_strerror(-rc));
}
