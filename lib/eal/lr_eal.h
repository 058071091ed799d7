/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_eal.h - the environment abstraction layer: parses EAL options, reserves
 * memory per NUMA node, starts one pinned thread per lcore, and owns the
 * runtime directory and file prefix.
 *
 * Programs take the form `prog [EAL options] -- [program options]`.
 * lr_eal_init() returns how many arguments it consumed (so the program
 * continues at argv[ret]), or a negative errno after printing one message
 * naming the bad option. Call it once, from the main thread. Help is not
 * an error: with -h/--help it prints the EAL options, sets nothing up and
 * returns 0 with lr_eal_help_shown() true (print the program's own usage
 * and exit 0). Nor is -V/--version: it prints nothing, sets nothing up and
 * returns 0 with lr_eal_version_asked() true (print the program's version
 * and exit 0).
 *
 * What a failure of lr_eal_init() means for a program's exit status:
 * -EINVAL is a command line that is wrong (an unknown option, a missing or
 * bad value, options that exclude each other, an lcore or node that does
 * not exist), as is -ENOENT (a -d path that does not exist): a usage
 * error. Any other errno is the environment refusing (-ENOMEM: memory,
 * -LR_E_SECONDARY: the prefix in use by another process, -ELIBACC: a
 * plugin that cannot be loaded, -EINTR: a stop signal during init): a
 * run-time failure.
 *
 * Signals (the stop contract): a program calls
 * lr_eal_stop_handler_install() first thing, before lr_eal_init(), so that
 * SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGUSR1 and SIGUSR2 all become
 * a stop request instead of killing it with hugepage files and the runtime
 * folder left behind (a program that uses one of them for something else
 * installs its own handler for it afterwards). The handler only counts
 * the request (and calls the program's async-signal-safe callback); the
 * program polls lr_eal_stop_requested() and leaves through its normal
 * cleanup path. A request that comes during lr_eal_init() makes it undo
 * what it took and return -EINTR. SIGPIPE is a stop request too: the write
 * that raised it fails with EPIPE and the process goes on to its cleanup.
 * Without the handler the default actions apply; lr_eal_cleanup(), or
 * exit() through the EAL's atexit hook, still removes everything.
 *
 * Error model: 0 / count on success, negative errno on failure; lr_errno is
 * also set. lr_eal_cleanup() gives back memory, threads and files.
 *
 * Memory: -m/--numa-mem comes from hugepages when enough are free on the
 * node, else from ordinary memory, and is refused (-ENOMEM, a message
 * naming the option, its value and what is available) beyond what the
 * machine can back: MemAvailable, lowered to the room under the cgroup's
 * memory.max. With --huge-dir hugepages are required: too few free is an
 * error, never a fallback to ordinary memory.
 *
 * Runtime folder and file prefix: --file-prefix is 1-63 letters, digits,
 * '_', '-' or '.', not starting with '.'. It names the hugepage files
 * (<hugetlbfs>/<prefix>map_<node>) and the runtime folder
 * /var/run/linerate/<prefix> (root), $XDG_RUNTIME_DIR/linerate/<prefix> or
 * /tmp/linerate-<euid>/<prefix>, which holds the lock file `config` (the
 * holder's pid; flock) that keeps a second process off the prefix. The
 * folders are created 0700; an existing one is used only if it is a real
 * folder (not a symbolic link) owned by the effective user and not
 * writable by group or others, and `config` only if it is a regular file
 * of ours; anything else is refused with a message naming the path. A
 * clean exit removes `config`, the prefix folder, and the folder above it
 * when that is empty. Starting a prefix removes its own stale hugepage
 * files (exactly <prefix>map_<node>) left by a killed process.
 *
 * Plugins: drivers whose outside libraries a program must not need unless
 * it uses them (net_dpdk and DPDK's librte_*) are shared objects loaded
 * with dlopen() when a port names them (lib/ethdev), as DPDK loads its
 * PMDs. A plugin file is looked for in: each folder given with -d, in
 * order; each folder of $LR_PLUGIN_PATH (colon-separated); then the
 * plugin folder of this linerate: the build tree's (<build>/drivers/
 * plugins) when the linerate code running (the program, or
 * liblinerate_eal.so) lies inside the build tree it was built in, else the
 * installed one ($libdir/linerate/plugins). A -d FILE is loaded at
 * lr_eal_init(), which fails naming it and dlerror()'s reason when it
 * cannot be. A plugin is never unloaded. Plugins resolve linerate's
 * functions from the program: a program linked with the static archives
 * exports its lr_ symbols (-Wl,--export-dynamic, which `pkg-config
 * --static linerate` gives; in-tree programs
 * -Wl,--export-dynamic-symbol=lr_*).
 */
#ifndef LR_EAL_H
#define LR_EAL_H

#include <stdio.h>

#include "lr_common.h"
#include "lr_cycles.h"
#include "lr_errno.h"
#include "lr_lcore.h"
#include "lr_log.h"
#include "lr_memory.h"

LR_BEGIN_DECLS

/** Largest number of --vdev arguments kept for the ports layer. */
#define LR_EAL_MAX_VDEV 32

/** Largest number of -d arguments (plugin files and folders). */
#define LR_EAL_MAX_PLUGIN_PATH 16

/** Parse EAL options, reserve memory, start lcores; args consumed or -errno. */
int lr_eal_init(int argc, char **argv);

/** Non-zero if the last lr_eal_init() printed the usage (-h) and set
 *  nothing up. */
int lr_eal_help_shown(void);

/** Non-zero if the last lr_eal_init() met -V/--version and set nothing
 *  up (the program prints its version). */
int lr_eal_version_asked(void);

/** Make SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGUSR1 and SIGUSR2 stop
 *  requests (see above); on_stop (NULL: none) runs in the handler with the
 *  signal number and must be async-signal-safe. 0 or -errno. */
int lr_eal_stop_handler_install(void (*on_stop)(int sig));

/** How many stop signals arrived since the handler was installed
 *  (0: no stop requested). Async-signal-safe. */
unsigned lr_eal_stop_requested(void);

/** The last stop signal's number, 0 if none. */
int lr_eal_stop_signal(void);

/** Stop workers, release memory, hugepage files and the prefix lock. */
int lr_eal_cleanup(void);

/** Run fn at lr_eal_cleanup() before memory goes (upper layers reset their
 *  state on it; last registered runs first); 0 or -ENOSPC. */
int lr_eal_on_cleanup(void (*fn)(void));

/** Non-zero once lr_eal_init() has succeeded (until cleanup). */
int lr_eal_initialized(void);

/** Print the EAL options to f. */
void lr_eal_usage(FILE *f);

/** Number of --vdev arguments given. */
unsigned lr_eal_vdev_count(void);

/** The i-th --vdev argument, or NULL. */
const char *lr_eal_vdev(unsigned i);

/** Find the plugin file named file (no '/') on the plugin search path
 *  (see "Plugins" above): 0 with its path in path (len bytes), -ENOENT
 *  if no folder has it, -EINVAL, -ENAMETOOLONG. */
int lr_eal_plugin_find(const char *file, char *path, size_t len);

/** Call fn(dir, arg) for each folder of the plugin search path, in the
 *  order searched (see "Plugins" above), until fn returns non-zero: that
 *  value, or 0 (-EINVAL without fn). */
int lr_eal_plugin_dir_foreach(int (*fn)(const char *dir, void *arg), void *arg);

/** The plugin folder searched last: the build tree's or the installed
 *  one (see "Plugins" above). */
const char *lr_eal_plugin_default_dir(void);

/** File prefix in use ("linerate" by default). */
const char *lr_eal_file_prefix(void);

/** Runtime directory of this prefix (/var/run/linerate/<prefix> for root). */
const char *lr_eal_runtime_dir(void);

/** Print what the EAL reserved (segments, lcores, IOVA mode) to f. */
void lr_eal_dump(FILE *f);

LR_END_DECLS

#endif /* LR_EAL_H */
