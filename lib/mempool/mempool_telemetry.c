/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DPDK 22.11's /mempool/list and /mempool/info,NAME telemetry commands,
 * with its reply shapes. They walk the named-pool list under its lock
 * (lr_mempool_walk(); never taken by get or put) and read each pool's
 * fixed fields. Where a DPDK field has no linerate counterpart: pool_id
 * is 0 (DPDK's external store handle), ops_index -1 for an elastic pool
 * (its store is not in the ops registry), and the mz_* fields describe
 * the pool's memory as DPDK describes the memzone of its pool: "MP_" and
 * the name, the bytes the pool holds, the page size and node of the
 * memory segment the pool lies in, flags 0. flags are linerate's
 * LR_MEMPOOL_F_* bits.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lr_memory.h"
#include "lr_telemetry.h"
#include "mempool_private.h"

/* The page size of the segment holding addr (the system's if none). */
static uint64_t
page_size_of(const void *addr)
{
	unsigned n = lr_memseg_count();

	for (unsigned i = 0; i < n; i++) {
		const struct lr_memseg *s = lr_memseg_get(i);
		const char *a = addr, *b = s->addr;

		if (a >= b && a < b + s->len)
			return s->page_sz;
	}
	return (uint64_t)sysconf(_SC_PAGESIZE);
}

static void
list_cb(struct lr_mempool *mp, void *arg)
{
	lr_tel_data_add_array_string(arg, mp->name);
}

/* /mempool/list: every named pool. */
static int
pool_list(const char *cmd, const char *params, struct lr_tel_data *d)
{
	lr_tel_data_start_array(d, LR_TEL_STRING);
	lr_mempool_walk(list_cb, d);
	return 0;
}

struct info_arg {
	const char *name;
	struct lr_tel_data *d;
};

static void
info_cb(struct lr_mempool *mp, void *arg)
{
	struct info_arg *a = arg;
	struct lr_tel_data *d = a->d;
	char mz[LR_MEMPOOL_NAMESIZE + 3];

	if (strcmp(mp->name, a->name) != 0)
		return;
	snprintf(mz, sizeof(mz), "MP_%s", mp->name);
	lr_tel_data_add_dict_string(d, "name", mp->name);
	lr_tel_data_add_dict_uint(d, "pool_id", 0);
	lr_tel_data_add_dict_uint(d, "flags", mp->flags);
	lr_tel_data_add_dict_int(d, "socket_id", mp->socket_id);
	lr_tel_data_add_dict_uint(d, "size", mp->size);
	lr_tel_data_add_dict_uint(d, "cache_size", mp->cache_size);
	lr_tel_data_add_dict_uint(d, "elt_size", mp->elt_size);
	lr_tel_data_add_dict_uint(d, "header_size", mp->header_size);
	lr_tel_data_add_dict_uint(d, "trailer_size",
				  mp->total_elt_size - mp->header_size -
				      mp->elt_size);
	lr_tel_data_add_dict_uint(d, "private_data_size",
				  mp->private_data_size);
	lr_tel_data_add_dict_int(d, "ops_index",
				 lr_mempool_ops_index_(mp->ops));
	lr_tel_data_add_dict_uint(d, "populated_size",
				  lr_mempool_objs_count(mp));
	lr_tel_data_add_dict_string(d, "mz_name", mz);
	lr_tel_data_add_dict_uint(d, "mz_len", lr_mempool_mem_bytes(mp));
	lr_tel_data_add_dict_uint(d, "mz_hugepage_sz", page_size_of(mp));
	lr_tel_data_add_dict_int(d, "mz_socket_id", mp->socket_id);
	lr_tel_data_add_dict_uint(d, "mz_flags", 0);
}

/* /mempool/info,NAME: the pool's fields; {} when no pool has the name
 * (DPDK's answer too); null without a name. */
static int
pool_info(const char *cmd, const char *params, struct lr_tel_data *d)
{
	char name[LR_MEMPOOL_NAMESIZE];
	struct info_arg a = {name, d};

	if (params == NULL || params[0] == '\0')
		return -EINVAL;
	snprintf(name, sizeof(name), "%s", params);
	lr_tel_data_start_dict(d);
	lr_mempool_walk(info_cb, &a);
	return 0;
}

static void __attribute__((constructor, used)) mempool_telemetry_register(void)
{
	lr_telemetry_register(
	    "/mempool/list", pool_list,
	    "Returns list of available mempool. Takes no parameters");
	lr_telemetry_register("/mempool/info", pool_info,
			      "Returns mempool info. Parameters: pool_name");
}
