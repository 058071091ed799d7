/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_telemetry.h - DPDK's telemetry v2 protocol: a SOCK_SEQPACKET socket
 * `dpdk_telemetry.v2` in the runtime folder, served by one control thread,
 * where a client sends `/command,params` and reads `{"/command": value}`.
 * Every layer registers the commands it answers with
 * lr_telemetry_register(); a command's handler fills a reply through the
 * lr_tel_data_* builder below, never by writing JSON itself. The JSON the
 * server writes is what DPDK 22.11 writes for the same data: keys in the
 * order added, strings escaped as DPDK does, an array of containers as a
 * JSON array of arrays, and a reply that does not fit in
 * LR_TELEMETRY_MAX_OUTPUT_LEN bytes cut the way DPDK cuts it (an entry
 * that does not fit is left out; later smaller ones may still go in).
 *
 * This library sits below the EAL (lr_eal_init() starts the server unless
 * --no-telemetry, lr_eal_cleanup() stops it), so it depends on nothing but
 * libc and pthreads.
 *
 * Threading: lr_telemetry_register() may be called from any thread at any
 * time; handlers run on the telemetry thread, one at a time, and must not
 * take a lock a datapath lcore takes. lr_tel_data_* calls act on the reply
 * they are given and are not thread-safe on one reply.
 *
 * Cost: nothing on any datapath; the server thread sleeps in poll().
 *
 * Error model: functions return 0 or a negative errno (-EINVAL: a bad
 * argument or a reply of another type, -ENOSPC: the reply is full,
 * -EEXIST, -ENOMEM); as in DPDK, a builder call that had to cut a string
 * to fit adds the cut entry and returns E2BIG (positive).
 * lr_tel_data_alloc() returns NULL with errno (ENOMEM) set: this library
 * lies below the EAL, whose lr_errno it cannot use.
 */
#ifndef LR_TELEMETRY_H
#define LR_TELEMETRY_H

#include <stddef.h>
#include <stdint.h>

#include "lr_common.h"

LR_BEGIN_DECLS

/** Longest string value or dict key, with its NUL (DPDK's 128). */
#define LR_TEL_MAX_STRING_LEN 128
/** Longest reply that is a single string, with its NUL (DPDK's 8192). */
#define LR_TEL_MAX_SINGLE_STRING_LEN 8192
/** Most entries of a dict (DPDK's 256). */
#define LR_TEL_MAX_DICT_ENTRIES 256
/** Most entries of an array (DPDK's 512). */
#define LR_TEL_MAX_ARRAY_ENTRIES 512
/** A command is shorter than this, its NUL included (DPDK's 56). */
#define LR_TELEMETRY_MAX_CMD_LEN 56
/** Largest reply in bytes (DPDK's 16384), told to clients on connect. */
#define LR_TELEMETRY_MAX_OUTPUT_LEN (16 * 1024)
/** Bytes of a request read; the rest of a longer one is dropped (DPDK). */
#define LR_TELEMETRY_MAX_REQUEST_LEN 1023
/** Clients served at once; further ones are closed at once (DPDK's 10). */
#define LR_TELEMETRY_MAX_CLIENTS 10
/** A client that sends nothing for this long is closed (milliseconds). */
#define LR_TELEMETRY_IDLE_TIMEOUT_MS 60000

/** A reply under construction: a dict, an array of one type, a string, a
 *  number or null (what it is before any start call). Opaque. */
struct lr_tel_data;

/** Types of array entries. */
enum lr_tel_type {
	LR_TEL_INT,	  /**< int */
	LR_TEL_UINT,	  /**< uint64_t */
	LR_TEL_STRING,	  /**< string of up to LR_TEL_MAX_STRING_LEN - 1 */
	LR_TEL_CONTAINER, /**< an array (of one scalar type) per entry */
};

/** Make d an empty dict; 0 or -EINVAL. */
int lr_tel_data_start_dict(struct lr_tel_data *d);

/** Make d an empty array of entries of type; 0 or -EINVAL. */
int lr_tel_data_start_array(struct lr_tel_data *d, enum lr_tel_type type);

/** Make d the string str; 0, E2BIG (cut to fit) or -EINVAL. */
int lr_tel_data_string(struct lr_tel_data *d, const char *str);

/** Make d the signed number v; 0 or -EINVAL. */
int lr_tel_data_int(struct lr_tel_data *d, int64_t v);

/** Make d the unsigned number v; 0 or -EINVAL. */
int lr_tel_data_uint(struct lr_tel_data *d, uint64_t v);

/** Add name: v to dict d (name of [A-Za-z0-9_/]); 0, E2BIG, -EINVAL,
 *  -ENOSPC. */
int lr_tel_data_add_dict_int(struct lr_tel_data *d, const char *name, int v);

/** Add name: v (unsigned 64-bit) to dict d; as lr_tel_data_add_dict_int(). */
int lr_tel_data_add_dict_uint(struct lr_tel_data *d, const char *name,
			      uint64_t v);

/** Add name: "s" to dict d (s cut to 127 bytes); as above. */
int lr_tel_data_add_dict_string(struct lr_tel_data *d, const char *name,
				const char *s);

/** Add name: val to dict d, val a dict or an array of scalars from
 *  lr_tel_data_alloc(); the reply frees val once written unless keep. */
int lr_tel_data_add_dict_container(struct lr_tel_data *d, const char *name,
				   struct lr_tel_data *val, int keep);

/** Append v to an LR_TEL_INT array; 0, -EINVAL, -ENOSPC. */
int lr_tel_data_add_array_int(struct lr_tel_data *d, int v);

/** Append v to an LR_TEL_UINT array; 0, -EINVAL, -ENOSPC. */
int lr_tel_data_add_array_uint(struct lr_tel_data *d, uint64_t v);

/** Append s to an LR_TEL_STRING array; 0, E2BIG, -EINVAL, -ENOSPC. */
int lr_tel_data_add_array_string(struct lr_tel_data *d, const char *s);

/** Append val, an array of scalars (as DPDK 22.11: not a dict), to an
 *  LR_TEL_CONTAINER array; freed once written unless keep. */
int lr_tel_data_add_array_container(struct lr_tel_data *d,
				    struct lr_tel_data *val, int keep);

/** A new empty (null) reply for nesting, or NULL with errno = ENOMEM. */
struct lr_tel_data *lr_tel_data_alloc(void);

/** Free a reply from lr_tel_data_alloc() and the containers it owns. */
void lr_tel_data_free(struct lr_tel_data *d);

/** Write d as the reply to cmd, `{"cmd":...}` (a NULL cmd is "(null)", as
 *  DPDK prints it), into out (len >= LR_TELEMETRY_MAX_OUTPUT_LEN bytes,
 *  NUL-terminated) exactly as the server sends it; its length, or
 *  -EINVAL. Does not free d's containers. */
int lr_tel_data_to_json(const struct lr_tel_data *d, const char *cmd, char *out,
			size_t len);

/** A command's handler: fill d for cmd with params (NULL: none); 0 or a
 *  negative value, which makes the reply {"cmd":null}. */
typedef int (*lr_telemetry_cb)(const char *cmd, const char *params,
			       struct lr_tel_data *d);

/** Register fn for cmd ('/' then [A-Za-z0-9_/], under 56 bytes) with a
 *  help text under 128 bytes; 0, -EINVAL, -EEXIST (another handler has
 *  cmd; the same one again is 0), -ENOMEM. */
int lr_telemetry_register(const char *cmd, lr_telemetry_cb fn,
			  const char *help);

/** Answer one request of len bytes (it need not be NUL-terminated) as the
 *  server does: the reply in out (len LR_TELEMETRY_MAX_OUTPUT_LEN + 1 is
 *  always enough), its length, or 0 when the server would send nothing
 *  and close (an empty request), or -EINVAL, -ENOMEM. */
int lr_telemetry_answer(const char *req, size_t len, char *out, size_t out_len);

/** How lr_telemetry_start() sets up the server. */
struct lr_telemetry_conf {
	const char *runtime_dir; /**< folder of the socket (must exist) */
	/** File prefix for the link at DPDK's path (NULL: no link). */
	const char *dpdk_prefix;
	const int *cpus;	  /**< CPUs the thread may run on */
	unsigned nb_cpus;	  /**< 0: the thread keeps the caller's */
	unsigned idle_timeout_ms; /**< 0: LR_TELEMETRY_IDLE_TIMEOUT_MS */
	/** Where messages go (NULL: stderr); err is non-zero for errors. */
	void (*log)(int err, const char *msg);
};

/** Bind the socket and start the server thread; 0 or -errno (-EALREADY,
 *  -EADDRINUSE: a live process answers on the socket). */
int lr_telemetry_start(const struct lr_telemetry_conf *conf);

/** Stop the thread, close every client, remove the socket and our link. */
void lr_telemetry_stop(void);

/** The socket's path, or NULL when the server is not running. */
const char *lr_telemetry_socket_path(void);

/** The link at DPDK's path to our socket, or NULL if none was made. */
const char *lr_telemetry_dpdk_link(void);

/** Clients being served now. */
unsigned lr_telemetry_client_count(void);

LR_END_DECLS

#endif /* LR_TELEMETRY_H */
