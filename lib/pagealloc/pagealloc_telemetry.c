/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The page allocator's telemetry commands (lr_telemetry.h), registered
 * when the library loads:
 *   /linerate/pagealloc/buddyinfo        free blocks per order per node
 *   /linerate/pagealloc/pagetypeinfo,N   node N's free blocks per order and
 *                                        migratetype, pageblocks per type
 *   /linerate/pagealloc/stats            the allocator's counters
 *   /linerate/pagealloc/pcp[,LCORE]      per-lcore lists: blocks, high, batch
 * Every handler reads through lr_pagealloc_free_info(),
 * lr_pagealloc_pcp_info() and lr_pagealloc_stats_get(): relaxed loads, no
 * zone lock, so a query never stalls an lcore refilling its lists. None
 * builds the allocator: before it is built the replies are empty.
 * doc/telemetry.md ("linerate's own commands") gives every reply's keys and units.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "lr_log.h"
#include "lr_pagealloc.h"
#include "lr_telemetry.h"

static const char *const mt_keys[LR_MT_TYPES] = {
    [LR_MT_MOVABLE] = "movable",
    [LR_MT_PINNED] = "pinned",
    [LR_MT_RESERVE] = "reserve",
};

/* A parameter that is a whole decimal number below lim: 0 or -EINVAL. */
static int
param_uint(const char *params, unsigned long lim, unsigned long *v)
{
	char *end;

	if (params == NULL || *params < '0' || *params > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoul(params, &end, 10);
	if (errno != 0 || *end != '\0' || *v >= lim)
		return -EINVAL;
	return 0;
}

/* A new array of the n numbers v[i * stride], or NULL. */
static struct lr_tel_data *
uint_array(const unsigned long *v, unsigned n, unsigned stride)
{
	struct lr_tel_data *a = lr_tel_data_alloc();

	if (a == NULL)
		return NULL;
	lr_tel_data_start_array(a, LR_TEL_UINT);
	for (unsigned i = 0; i < n; i++)
		lr_tel_data_add_array_uint(a, v[i * stride]);
	return a;
}

/* Add name: [v[0], v[stride], ...] to dict d; 0 or -ENOMEM. */
static int
add_uint_array(struct lr_tel_data *d, const char *name, const unsigned long *v,
	       unsigned n, unsigned stride)
{
	struct lr_tel_data *a = uint_array(v, n, stride);

	if (a == NULL)
		return -ENOMEM;
	if (lr_tel_data_add_dict_container(d, name, a, 0) < 0) {
		lr_tel_data_free(a);
		return -ENOMEM;
	}
	return 0;
}

/* Add name: {"order0": v[0], "order1": v[stride], ...} to dict d, n
 * orders (keyed so that lr-telemetry's exporter gives each an order
 * label); 0 or -ENOMEM. */
static int
add_order_dict(struct lr_tel_data *d, const char *name, const unsigned long *v,
	       unsigned n, unsigned stride)
{
	struct lr_tel_data *o = lr_tel_data_alloc();
	char key[16];

	if (o == NULL)
		return -ENOMEM;
	lr_tel_data_start_dict(o);
	for (unsigned i = 0; i < n; i++) {
		snprintf(key, sizeof(key), "order%u", i);
		lr_tel_data_add_dict_uint(o, key, v[i * stride]);
	}
	if (lr_tel_data_add_dict_container(d, name, o, 0) < 0) {
		lr_tel_data_free(o);
		return -ENOMEM;
	}
	return 0;
}

/* /linerate/pagealloc/buddyinfo: {"node<N>": {"free_blocks": {"order<O>":
 * free blocks}}}, every migratetype summed, as /proc/buddyinfo. */
static int
tel_buddyinfo(const char *cmd, const char *params, struct lr_tel_data *d)
{
	struct lr_pagealloc_free_info fi;
	unsigned long tot[LR_MAX_ORDER];
	struct lr_tel_data *nd;
	char key[16];

	(void)cmd;
	if (params != NULL)
		return -EINVAL;
	lr_tel_data_start_dict(d);
	for (int n = 0; n < LR_MAX_NUMA_NODES; n++) {
		if (lr_pagealloc_free_info(n, &fi) < 0)
			continue;
		for (unsigned o = 0; o < LR_MAX_ORDER; o++) {
			tot[o] = 0;
			for (unsigned mt = 0; mt < LR_MT_TYPES; mt++)
				tot[o] += fi.nr_free[o][mt];
		}
		nd = lr_tel_data_alloc();
		if (nd == NULL)
			return -ENOMEM;
		lr_tel_data_start_dict(nd);
		snprintf(key, sizeof(key), "node%d", n);
		if (add_order_dict(nd, "free_blocks", tot, LR_MAX_ORDER, 1) <
			0 ||
		    lr_tel_data_add_dict_container(d, key, nd, 0) < 0) {
			lr_tel_data_free(nd);
			return -ENOMEM;
		}
	}
	return 0;
}

/* /linerate/pagealloc/pagetypeinfo,NODE: node N's free blocks per order
 * of each migratetype and its pageblocks per type, as /proc/pagetypeinfo. */
static int
tel_pagetypeinfo(const char *cmd, const char *params, struct lr_tel_data *d)
{
	struct lr_pagealloc_free_info fi;
	unsigned long node;
	char key[32];

	(void)cmd;
	if (param_uint(params, LR_MAX_NUMA_NODES, &node) < 0 ||
	    lr_pagealloc_free_info((int)node, &fi) < 0)
		return -EINVAL;
	lr_tel_data_start_dict(d);
	lr_tel_data_add_dict_uint(d, "node", node);
	lr_tel_data_add_dict_uint(d, "page_size", LR_PAGE_SIZE);
	lr_tel_data_add_dict_uint(d, "pageblock_order", LR_PAGEBLOCK_ORDER);
	for (unsigned mt = 0; mt < LR_MT_TYPES; mt++)
		if (add_uint_array(d, mt_keys[mt], &fi.nr_free[0][mt],
				   LR_MAX_ORDER, LR_MT_TYPES) < 0)
			return -ENOMEM;
	for (unsigned mt = 0; mt < LR_MT_TYPES; mt++) {
		snprintf(key, sizeof(key), "pageblocks_%s", mt_keys[mt]);
		lr_tel_data_add_dict_uint(d, key, fi.pageblocks[mt]);
	}
	return 0;
}

/* /linerate/pagealloc/stats: the counters lr_pagealloc_stats_get() sums,
 * allocations and frees per order; every key a counter (..._total). */
static int
tel_stats(const char *cmd, const char *params, struct lr_tel_data *d)
{
	struct lr_pagealloc_stats s;
	unsigned long a[LR_MAX_ORDER], f[LR_MAX_ORDER];

	(void)cmd;
	if (params != NULL)
		return -EINVAL;
	lr_pagealloc_stats_get(&s);
	for (unsigned o = 0; o < LR_MAX_ORDER; o++) {
		a[o] = s.alloc[o];
		f[o] = s.free[o];
	}
	lr_tel_data_start_dict(d);
	if (add_order_dict(d, "alloc_blocks_total", a, LR_MAX_ORDER, 1) < 0 ||
	    add_order_dict(d, "free_blocks_total", f, LR_MAX_ORDER, 1) < 0)
		return -ENOMEM;
	lr_tel_data_add_dict_uint(d, "refills_total", s.refill);
	lr_tel_data_add_dict_uint(d, "drains_total", s.drain);
	lr_tel_data_add_dict_uint(d, "fallback_blocks_total", s.fallback);
	lr_tel_data_add_dict_uint(d, "stolen_pageblocks_total", s.steal);
	lr_tel_data_add_dict_uint(d, "alloc_failures_total", s.fail);
	lr_tel_data_add_dict_uint(d, "shrink_rounds_total", s.shrink);
	lr_tel_data_add_dict_uint(d, "bad_pages_total", s.bad);
	return 0;
}

/* Fill dict l with lcore's lists, every zone summed, high and batch of its
 * local zone's, per order; -ENOENT when it has not used its lists. */
static int
pcp_lcore(unsigned lcore, struct lr_tel_data *l)
{
	struct lr_pagealloc_pcp_info pi, loc;
	unsigned long blocks[LR_PCP_TYPES][LR_PCP_ORDERS] = {{0}};
	unsigned long high[LR_PCP_ORDERS], batch[LR_PCP_ORDERS];
	unsigned long pages = 0;
	int found = 0;
	char key[32];

	for (int n = 0; n < LR_MAX_NUMA_NODES; n++) {
		if (lr_pagealloc_pcp_info(lcore, n, &pi) < 0)
			continue;
		if (!found || n == pi.local_node)
			loc = pi;
		found = 1;
		pages += pi.pages;
		for (unsigned t = 0; t < LR_PCP_TYPES; t++)
			for (unsigned o = 0; o < LR_PCP_ORDERS; o++)
				blocks[t][o] += pi.count[t][o];
	}
	if (!found)
		return -ENOENT;
	for (unsigned o = 0; o < LR_PCP_ORDERS; o++) {
		high[o] = loc.high[o];
		batch[o] = loc.batch[o];
	}
	lr_tel_data_start_dict(l);
	lr_tel_data_add_dict_int(l, "node", loc.local_node);
	lr_tel_data_add_dict_uint(l, "pages", pages);
	for (unsigned t = 0; t < LR_PCP_TYPES; t++) {
		snprintf(key, sizeof(key), "%s_blocks", mt_keys[t]);
		if (add_order_dict(l, key, blocks[t], LR_PCP_ORDERS, 1) < 0)
			return -ENOMEM;
	}
	if (add_order_dict(l, "high_blocks", high, LR_PCP_ORDERS, 1) < 0 ||
	    add_order_dict(l, "batch_blocks", batch, LR_PCP_ORDERS, 1) < 0)
		return -ENOMEM;
	return 0;
}

/* /linerate/pagealloc/pcp: {"lcore<N>": {...}} for every lcore that has
 * used its lists; /linerate/pagealloc/pcp,N: that lcore's dict alone. */
static int
tel_pcp(const char *cmd, const char *params, struct lr_tel_data *d)
{
	unsigned long lc;
	char key[32];

	(void)cmd;
	if (params != NULL) {
		if (param_uint(params, LR_MAX_LCORE, &lc) < 0)
			return -EINVAL;
		return pcp_lcore((unsigned)lc, d) < 0 ? -EINVAL : 0;
	}
	lr_tel_data_start_dict(d);
	for (unsigned i = 0; i < LR_MAX_LCORE; i++) {
		struct lr_tel_data *l = lr_tel_data_alloc();

		if (l == NULL)
			return -ENOMEM;
		snprintf(key, sizeof(key), "lcore%u", i);
		if (pcp_lcore(i, l) < 0 ||
		    lr_tel_data_add_dict_container(d, key, l, 0) < 0)
			lr_tel_data_free(l);
	}
	return 0;
}

static void __attribute__((constructor, used))
pagealloc_telemetry_register(void)
{
	static const struct {
		const char *cmd;
		lr_telemetry_cb fn;
		const char *help;
	} cmds[] = {
	    {"/linerate/pagealloc/buddyinfo", tel_buddyinfo,
	     "Free blocks per order of each node. No parameters."},
	    {"/linerate/pagealloc/pagetypeinfo", tel_pagetypeinfo,
	     "Free blocks per order and migratetype of a node. Parameter: "
	     "node"},
	    {"/linerate/pagealloc/stats", tel_stats,
	     "Page allocator counters. No parameters."},
	    {"/linerate/pagealloc/pcp", tel_pcp,
	     "Per-lcore page lists: blocks, high, batch. Parameter: lcore "
	     "(optional)"},
	};

	for (unsigned i = 0; i < LR_DIM(cmds); i++) {
		int rc = lr_telemetry_register(cmds[i].cmd, cmds[i].fn,
					       cmds[i].help);

		if (rc < 0)
			LR_LOG(ERR, PAGEALLOC,
			       "telemetry: cannot register %s: "
			       "%s\n",
			       cmds[i].cmd, lr_strerror(-rc));
	}
}
