/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The EAL's side of telemetry: the server started at lr_eal_init() in the
 * runtime folder (unless --no-telemetry, or --in-memory, which keeps no
 * runtime folder) on the control CPUs, stopped at cleanup, and the EAL's
 * commands with DPDK's reply shapes: /eal/params and /eal/app_params
 * (DPDK 22.11), /eal/lcore/list and /eal/lcore/info,N (DPDK 23.03, with
 * busy_cycles and total_cycles from the poll loops' accounting). Handlers
 * read lcore state without a lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "eal_private.h"
#include "lr_telemetry.h"

/* argv up to "--" (the program's name first), and after it. */
static char **eal_args;
static char **app_args;

static void
free_args(char **args)
{
	if (args == NULL)
		return;
	for (char **a = args; *a != NULL; a++)
		free(*a);
	free(args);
}

/* A NULL-terminated copy of argv[from, to), or NULL. */
static char **
copy_args(char **argv, int from, int to)
{
	char **c = calloc((size_t)(to - from + 1), sizeof(*c));

	if (c == NULL)
		return NULL;
	for (int i = from; i < to; i++) {
		c[i - from] = strdup(argv[i]);
		if (c[i - from] == NULL) {
			free_args(c);
			return NULL;
		}
	}
	return c;
}

void
lr_eal_telemetry_save_args_(int argc, char **argv)
{
	int i = 0;

	free_args(eal_args);
	free_args(app_args);
	app_args = NULL;
	while (i < argc && strcmp(argv[i], "--") != 0)
		i++;
	eal_args = copy_args(argv, 0, i);
	if (i + 1 < argc)
		app_args = copy_args(argv, i + 1, argc);
}

/* /eal/params, /eal/app_params: the arguments as an array of strings. */
static int
params(const char *cmd, const char *p, struct lr_tel_data *d)
{
	char **args = strcmp(cmd, "/eal/params") == 0 ? eal_args : app_args;
	int rc = 0;

	lr_tel_data_start_array(d, LR_TEL_STRING);
	for (; args != NULL && *args != NULL; args++)
		rc = lr_tel_data_add_array_string(d, *args);
	return rc;
}

/* /eal/lcore/list: every enabled lcore id (EAL and registered). */
static int
lcore_list(const char *cmd, const char *p, struct lr_tel_data *d)
{
	lr_tel_data_start_array(d, LR_TEL_INT);
	for (unsigned i = 0; i < LR_MAX_LCORE; i++)
		if (lr_lcore_is_enabled(i))
			lr_tel_data_add_array_int(d, (int)i);
	return 0;
}

/* /eal/lcore/info,N: as DPDK 23.03 (lcore_id, socket, role, cpuset,
 * total_cycles, busy_cycles); -EINVAL for a bad or disabled N. */
static int
lcore_info(const char *cmd, const char *p, struct lr_tel_data *d)
{
	struct lr_tel_data *cpuset;
	uint64_t busy, total;
	unsigned long id;
	char *end;
	int cpu;

	if (p == NULL || *p < '0' || *p > '9')
		return -EINVAL;
	errno = 0;
	id = strtoul(p, &end, 10);
	if (errno != 0 || *end != '\0' || id >= LR_MAX_LCORE ||
	    !lr_lcore_is_enabled((unsigned)id))
		return -EINVAL;
	cpuset = lr_tel_data_alloc();
	if (cpuset == NULL)
		return -ENOMEM;
	lr_tel_data_start_dict(d);
	lr_tel_data_add_dict_int(d, "lcore_id", (int)id);
	lr_tel_data_add_dict_int(d, "socket",
				 lr_lcore_to_socket_id((unsigned)id));
	lr_tel_data_add_dict_string(d, "role",
				    lr_eal_lcore_role_((unsigned)id));
	lr_tel_data_start_array(cpuset, LR_TEL_INT);
	cpu = lr_lcore_to_cpu_id((unsigned)id);
	if (cpu >= 0)
		lr_tel_data_add_array_int(cpuset, cpu);
	lr_tel_data_add_dict_container(d, "cpuset", cpuset, 0);
	if (lr_lcore_poll_cycles((unsigned)id, &busy, &total) == 0) {
		lr_tel_data_add_dict_uint(d, "total_cycles", total);
		lr_tel_data_add_dict_uint(d, "busy_cycles", busy);
	}
	return 0;
}

static void
tel_log(int err, const char *msg)
{
	if (err)
		LR_LOG(ERR, EAL, "telemetry: %s\n", msg);
	else
		LR_LOG(NOTICE, EAL, "telemetry: %s\n", msg);
}

/* Register the EAL's commands (again after a cleanup: same handlers). */
static int
register_commands(void)
{
	static const struct {
		const char *cmd;
		lr_telemetry_cb fn;
		const char *help;
	} cmds[] = {
	    {"/eal/params", params,
	     "Returns EAL commandline parameters used. Takes no parameters"},
	    {"/eal/app_params", params,
	     "Returns app commandline parameters used. Takes no parameters"},
	    {"/eal/lcore/list", lcore_list,
	     "List of lcore ids. Takes no parameters"},
	    {"/eal/lcore/info", lcore_info,
	     "Returns lcore info. Parameters: int lcore_id"},
	};

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		int rc = lr_telemetry_register(cmds[i].cmd, cmds[i].fn,
					       cmds[i].help);

		if (rc < 0)
			return rc;
	}
	return 0;
}

int
lr_eal_telemetry_start_(void)
{
	int cpus[CPU_SETSIZE];
	struct lr_telemetry_conf conf = {
	    .runtime_dir = lr_eal_runtime_dir(),
	    .dpdk_prefix = lr_eal_file_prefix(),
	    .cpus = cpus,
	    .log = tel_log,
	};
	int rc = register_commands();

	if (rc < 0) {
		LR_LOG(ERR, EAL,
		       "telemetry: cannot register /eal commands: %s\n",
		       strerror(-rc));
		return rc;
	}
	if (lr_eal_cfg_.no_telemetry || conf.runtime_dir[0] == '\0')
		return 0;
	conf.nb_cpus = lr_eal_ctrl_cpus_(cpus, CPU_SETSIZE);
	return lr_telemetry_start(&conf);
}

void
lr_eal_telemetry_stop_(void)
{
	lr_telemetry_stop();
}
