/* SPDX-License-Identifier: BSD-3-Clause */
/* State shared by the EAL's source files; never installed. */
#ifndef EAL_PRIVATE_H
#define EAL_PRIVATE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "lr_eal.h"

/** What the options asked for. */
struct eal_config {
	bool lcores_set;
	unsigned char lcore_cpu_set[LR_MAX_LCORE]; /* lcore id -> in -l */
	int main_lcore;                            /* -1: lowest of -l */
	size_t mem_total;                          /* -m, bytes; 0: default */
	size_t numa_mem[LR_MAX_NUMA_NODES];        /* --numa-mem, bytes */
	bool numa_mem_set;
	bool no_huge;
	bool in_memory;
	bool no_telemetry; /* --no-telemetry */
	char huge_dir[256];
	char file_prefix[64];
	enum lr_iova_mode iova_mode;
	unsigned nb_vdev;
	char *vdev[LR_EAL_MAX_VDEV];
	unsigned nb_plugin_path;
	char *plugin_path[LR_EAL_MAX_PLUGIN_PATH]; /* -d, in order */
	bool version;				   /* -V, --version */
};

extern struct eal_config lr_eal_cfg_;

/* eal_options.c; returns optind, 0 after printing the usage (-h) or on
 * -V (lr_eal_cfg_.version set), or -errno after a message. */
int lr_eal_parse_args_(int argc, char **argv);
void lr_eal_options_reset_(void);

/* eal_plugin.c: -d PATH kept (0 or -errno after a message); the -d
 * files loaded (lr_eal_init), 0 or -errno after a message naming it. */
int lr_eal_plugin_add_path_(const char *arg);
int lr_eal_plugins_load_(void);

/* eal_lcore.c */
/* "RTE" (an EAL lcore), "NON_EAL" (a registered thread) or "UNKNOWN", as
 * DPDK names lcore roles. */
const char *lr_eal_lcore_role_(unsigned id);
/* CPUs for control threads: the process's CPUs before init that no EAL
 * lcore runs on, or all of them if lcores take every one; how many. */
unsigned lr_eal_ctrl_cpus_(int *cpus, unsigned max);
int lr_eal_lcores_start_(void);
void lr_eal_lcores_stop_(void);
int lr_eal_numa_init_(void);

/* eal_telemetry.c: the server started (unless --no-telemetry or
 * --in-memory: no runtime folder) with the EAL's commands, 0 or -errno
 * after a message; stopped. */
int lr_eal_telemetry_start_(void);
void lr_eal_telemetry_stop_(void);
/* Keep argv for /eal/params (up to "--") and /eal/app_params. */
void lr_eal_telemetry_save_args_(int argc, char **argv);

/* eal_memory.c */
int lr_eal_memory_init_(void);
void lr_eal_memory_cleanup_(void);
int lr_eal_runtime_lock_(void);
void lr_eal_runtime_unlock_(void);

#endif /* EAL_PRIVATE_H */
