/* SPDX-License-Identifier: BSD-3-Clause */
/* The reply's layout and what the telemetry files share; never installed. */
#ifndef TELEMETRY_PRIVATE_H
#define TELEMETRY_PRIVATE_H

#include <limits.h>
#include <stdbool.h>

#include "lr_telemetry.h"

/* What a reply is; the array kinds follow enum lr_tel_type. */
enum tel_kind {
	TEL_NULL,
	TEL_STRING,
	TEL_DICT,
	TEL_ARRAY_INT,
	TEL_ARRAY_UINT,
	TEL_ARRAY_STRING,
	TEL_ARRAY_CONTAINER,
	TEL_INT,
	TEL_UINT,
};

struct tel_container {
	struct lr_tel_data *data;
	bool keep;
};

union tel_value {
	char str[LR_TEL_MAX_STRING_LEN];
	int64_t i;
	uint64_t u;
	struct tel_container c;
};

/* The kind of one dict entry's value. */
enum tel_entry_kind { TEL_E_STRING, TEL_E_INT, TEL_E_UINT, TEL_E_CONTAINER };

struct tel_dict_entry {
	char name[LR_TEL_MAX_STRING_LEN];
	enum tel_entry_kind kind;
	union tel_value v;
};

/* Invariant: n <= LR_TEL_MAX_DICT_ENTRIES for a dict,
 * n <= LR_TEL_MAX_ARRAY_ENTRIES for an array. */
struct lr_tel_data {
	enum tel_kind kind;
	unsigned n;
	union {
		char str[LR_TEL_MAX_SINGLE_STRING_LEN];
		int64_t i;
		uint64_t u;
		struct tel_dict_entry dict[LR_TEL_MAX_DICT_ENTRIES];
		union tel_value array[LR_TEL_MAX_ARRAY_ENTRIES];
	} u;
};

/* telemetry_data.c: free the containers d owns (not d itself). */
void lr_tel_data_release_(struct lr_tel_data *d);

/* telemetry_cmd.c: the handler of cmd, or NULL. */
lr_telemetry_cb lr_telemetry_lookup_(const char *cmd);
/* Register the built-in commands /, /info and /help (once). */
void lr_telemetry_builtins_(void);

/* What the greeting and /info give as "version". */
#define LR_TELEMETRY_VERSION "linerate " LR_VERSION

/* telemetry_link.c: the link at DPDK's path to our socket. */
struct tel_link {
	char dir[PATH_MAX];    /* <base>/dpdk/<prefix> */
	char path[PATH_MAX];   /* dir/dpdk_telemetry.v2 */
	char target[PATH_MAX]; /* our socket */
	bool made;	       /* path is our link */
	bool made_dir;	       /* we created dir */
};

/* Whether a process answers on the Unix socket at path. */
bool lr_telemetry_live_(const char *path);
/* Make the link for prefix to target: 0, -EADDRINUSE (a live socket is
 * there), or -errno. */
int lr_telemetry_link_make_(struct tel_link *l, const char *prefix,
			    const char *target);
/* Remove the link if it is still ours, and the folder if we made it. */
void lr_telemetry_link_remove_(struct tel_link *l);

#endif /* TELEMETRY_PRIVATE_H */
