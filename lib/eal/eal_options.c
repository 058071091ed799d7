/* SPDX-License-Identifier: BSD-3-Clause */
/* EAL command-line options. Every error names the option and the value. */
#include <ctype.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "eal_private.h"

struct eal_config lr_eal_cfg_;

enum {
	OPT_MAIN_LCORE = 256,
	OPT_NUMA_MEM,
	OPT_NO_HUGE,
	OPT_HUGE_DIR,
	OPT_FILE_PREFIX,
	OPT_IN_MEMORY,
	OPT_IOVA_MODE,
	OPT_VDEV,
	OPT_LOG_LEVEL,
	OPT_NO_TELEMETRY,
};

static const struct option long_opts[] = {
	{ "lcores", required_argument, NULL, 'l' },
	{ "main-lcore", required_argument, NULL, OPT_MAIN_LCORE },
	{ "numa-mem", required_argument, NULL, OPT_NUMA_MEM },
	{ "socket-mem", required_argument, NULL, OPT_NUMA_MEM },
	{ "no-huge", no_argument, NULL, OPT_NO_HUGE },
	{ "huge-dir", required_argument, NULL, OPT_HUGE_DIR },
	{ "file-prefix", required_argument, NULL, OPT_FILE_PREFIX },
	{ "in-memory", no_argument, NULL, OPT_IN_MEMORY },
	{ "iova-mode", required_argument, NULL, OPT_IOVA_MODE },
	{ "vdev", required_argument, NULL, OPT_VDEV },
	{ "log-level", required_argument, NULL, OPT_LOG_LEVEL },
	{ "no-telemetry", no_argument, NULL, OPT_NO_TELEMETRY },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

void
lr_eal_usage(FILE *f)
{
	fprintf(f,
		"EAL options:\n"
		"  -l, --lcores LIST      lcores to run on: ids and ranges, e.g. 0-1 or 0,2\n"
		"      --main-lcore ID    lcore that runs main() (default: lowest of -l)\n"
		"  -m MB                  memory to reserve, in MiB (default 256)\n"
		"      --numa-mem MB,MB   memory per NUMA node (alias --socket-mem)\n"
		"      --no-huge          use ordinary memory, not hugepages\n"
		"      --huge-dir DIR     hugetlbfs mount to use\n"
		"      --file-prefix NAME prefix of hugepage files and runtime dir (default linerate)\n"
		"      --in-memory        keep no files: anonymous hugepages, no runtime dir\n"
		"      --iova-mode pa|va  IOVA as physical (root) or virtual address (default va)\n"
		"      --vdev DEVARGS     add a virtual port, e.g. net_null0,size=64\n"
		"  -d PATH                a driver plugin: a file, loaded now, or a folder,\n"
		"                         searched first for drivers not built in\n"
		"      --log-level LEVEL  level for all logs, or TYPE:LEVEL (pagealloc:debug)\n"
		"      --no-telemetry     no telemetry socket (DPDK's dpdk_telemetry.v2)\n"
		"  -h, --help             this text\n"
		"  -V, --version          the program's version, its build and drivers\n");
}

void
lr_eal_options_reset_(void)
{
	for (unsigned i = 0; i < lr_eal_cfg_.nb_vdev; i++)
		free(lr_eal_cfg_.vdev[i]);
	for (unsigned i = 0; i < lr_eal_cfg_.nb_plugin_path; i++)
		free(lr_eal_cfg_.plugin_path[i]);
	memset(&lr_eal_cfg_, 0, sizeof(lr_eal_cfg_));
	lr_eal_cfg_.main_lcore = -1;
	lr_eal_cfg_.iova_mode = LR_IOVA_VA;
	strcpy(lr_eal_cfg_.file_prefix, "linerate");
}

/* "0-3,5,7-8" -> lcore set. */
static int
parse_lcores(const char *s)
{
	const char *p = s;

	memset(lr_eal_cfg_.lcore_cpu_set, 0, sizeof(lr_eal_cfg_.lcore_cpu_set));
	while (*p) {
		char *end;
		long a, b;

		if (!isdigit((unsigned char)*p))
			goto bad;
		a = strtol(p, &end, 10);
		b = a;
		p = end;
		if (*p == '-') {
			p++;
			if (!isdigit((unsigned char)*p))
				goto bad;
			b = strtol(p, &end, 10);
			p = end;
		}
		if (a > b || b >= LR_MAX_LCORE) {
			LR_LOG(ERR, EAL,
			       "-l '%s': lcore ids must be ascending ranges below %d\n",
			       s, LR_MAX_LCORE);
			return -EINVAL;
		}
		for (long i = a; i <= b; i++)
			lr_eal_cfg_.lcore_cpu_set[i] = 1;
		if (*p == ',')
			p++;
		else if (*p != '\0')
			goto bad;
	}
	if (p == s)
		goto bad;
	lr_eal_cfg_.lcores_set = true;
	return 0;
bad:
	LR_LOG(ERR, EAL, "-l '%s': expected lcore ids and ranges, e.g. 0-1 or 0,2\n",
	       s);
	return -EINVAL;
}

static int
parse_uint(const char *opt, const char *s, unsigned long max,
	   unsigned long *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	if (!isdigit((unsigned char)*s))
		goto bad;
	v = strtoul(s, &end, 10);
	if (errno || *end != '\0' || v > max)
		goto bad;
	*out = v;
	return 0;
bad:
	LR_LOG(ERR, EAL, "%s '%s': expected a number up to %lu\n", opt, s, max);
	return -EINVAL;
}

static int
parse_numa_mem(const char *s)
{
	char buf[256];
	unsigned node = 0;

	if (strlen(s) >= sizeof(buf))
		goto bad;
	strcpy(buf, s);
	for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
		unsigned long mb;

		if (node >= LR_MAX_NUMA_NODES) {
			LR_LOG(ERR, EAL,
			       "--numa-mem '%s': more than %d nodes\n", s,
			       LR_MAX_NUMA_NODES);
			return -EINVAL;
		}
		if (parse_uint("--numa-mem", tok, 1UL << 24, &mb) < 0)
			return -EINVAL;
		lr_eal_cfg_.numa_mem[node++] = (size_t)mb << 20;
	}
	if (node == 0)
		goto bad;
	lr_eal_cfg_.numa_mem_set = true;
	return 0;
bad:
	LR_LOG(ERR, EAL, "--numa-mem '%s': expected MB per node, e.g. 512,512\n",
	       s);
	return -EINVAL;
}

/* A prefix names a folder and begins hugepage file names: 1-63 letters,
 * digits, '_', '-' or '.', not starting with '.' (no ".", "..", hidden
 * names) and never a '/'. */
static int
parse_prefix(const char *s)
{
	size_t n = strlen(s);
	const char *why = NULL;

	if (n == 0)
		why = "empty";
	else if (n >= sizeof(lr_eal_cfg_.file_prefix))
		why = "too long";
	else if (s[0] == '.')
		why = "starts with '.'";
	for (size_t i = 0; why == NULL && i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' &&
		    s[i] != '-' && s[i] != '.')
			why = "has a character other than letters, digits, "
			      "'_', '-' and '.'";
	if (why) {
		LR_LOG(ERR, EAL,
		       "--file-prefix '%s': %s; expected 1-%zu letters, "
		       "digits, '_', '-' or '.', not starting with '.'\n",
		       s, why, sizeof(lr_eal_cfg_.file_prefix) - 1);
		return -EINVAL;
	}
	strcpy(lr_eal_cfg_.file_prefix, s);
	return 0;
}

/* -m: MB of memory in all. */
static int
parse_mem(const char *arg)
{
	unsigned long v;

	if (parse_uint("-m", arg, 1UL << 24, &v) < 0)
		return -EINVAL;
	if (v == 0) {
		LR_LOG(ERR, EAL, "-m '0': at least 1 MB\n");
		return -EINVAL;
	}
	lr_eal_cfg_.mem_total = (size_t)v << 20;
	return 0;
}

/* --iova-mode pa|va. */
static int
parse_iova_mode(const char *arg)
{
	if (strcmp(arg, "pa") == 0) {
		lr_eal_cfg_.iova_mode = LR_IOVA_PA;
	} else if (strcmp(arg, "va") == 0) {
		lr_eal_cfg_.iova_mode = LR_IOVA_VA;
	} else {
		LR_LOG(ERR, EAL, "--iova-mode '%s': expected pa or va\n", arg);
		return -EINVAL;
	}
	return 0;
}

/* --vdev: one more device's devargs. */
static int
add_vdev(const char *arg)
{
	if (lr_eal_cfg_.nb_vdev == LR_EAL_MAX_VDEV) {
		LR_LOG(ERR, EAL, "--vdev '%s': more than %d\n", arg,
		       LR_EAL_MAX_VDEV);
		return -EINVAL;
	}
	lr_eal_cfg_.vdev[lr_eal_cfg_.nb_vdev] = strdup(arg);
	if (lr_eal_cfg_.vdev[lr_eal_cfg_.nb_vdev] == NULL)
		return -ENOMEM;
	lr_eal_cfg_.nb_vdev++;
	return 0;
}

/* One option getopt returned (argv for the name of a bad one): 0, 1 after
 * printing the help or on -V (parsing stops there), or a negative errno
 * after logging. */
static int
apply_option(int opt, char **argv)
{
	unsigned long v;

	switch (opt) {
	case 'l':
		return parse_lcores(optarg) < 0 ? -EINVAL : 0;
	case OPT_MAIN_LCORE:
		if (parse_uint("--main-lcore", optarg, LR_MAX_LCORE - 1, &v) <
		    0)
			return -EINVAL;
		lr_eal_cfg_.main_lcore = (int)v;
		return 0;
	case 'm':
		return parse_mem(optarg);
	case OPT_NUMA_MEM:
		return parse_numa_mem(optarg) < 0 ? -EINVAL : 0;
	case OPT_NO_HUGE:
		lr_eal_cfg_.no_huge = true;
		return 0;
	case OPT_HUGE_DIR:
		if (strlen(optarg) >= sizeof(lr_eal_cfg_.huge_dir)) {
			LR_LOG(ERR, EAL, "--huge-dir: path too long\n");
			return -EINVAL;
		}
		strcpy(lr_eal_cfg_.huge_dir, optarg);
		return 0;
	case OPT_FILE_PREFIX:
		return parse_prefix(optarg) < 0 ? -EINVAL : 0;
	case OPT_IN_MEMORY:
		lr_eal_cfg_.in_memory = true;
		return 0;
	case OPT_NO_TELEMETRY:
		lr_eal_cfg_.no_telemetry = true;
		return 0;
	case OPT_IOVA_MODE:
		return parse_iova_mode(optarg);
	case OPT_VDEV:
		return add_vdev(optarg);
	case 'd':
		return lr_eal_plugin_add_path_(optarg);
	case OPT_LOG_LEVEL:
		if (lr_log_parse_arg(optarg) < 0) {
			LR_LOG(ERR, EAL,
			       "--log-level '%s': expected LEVEL or TYPE:LEVEL "
			       "(levels emerg..debug or 1..8)\n",
			       optarg);
			return -EINVAL;
		}
		return 0;
	case 'h':
		lr_eal_usage(stdout);
		return 1;
	case 'V':
		lr_eal_cfg_.version = true;
		return 1;
	case ':':
		LR_LOG(ERR, EAL, "option '%s' needs a value\n",
		       argv[optind - 1]);
		return -EINVAL;
	default:
		LR_LOG(ERR, EAL, "unknown EAL option '%s'\n",
		       argv[optind - 1]);
		return -EINVAL;
	}
}

int
lr_eal_parse_args_(int argc, char **argv)
{
	int opt, idx, rc;

	lr_eal_options_reset_();
	/* 0, not 1: glibc then also forgets where it was inside a group of
	 * short options of an earlier parse (a failed init's argv). */
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:l:m:d:hV", long_opts, &idx)) !=
	       -1) {
		rc = apply_option(opt, argv);
		if (rc < 0)
			return rc;
		if (rc > 0)
			return 0; /* help or version: see lr_eal_init() */
	}
	if (lr_eal_cfg_.mem_total && lr_eal_cfg_.numa_mem_set) {
		LR_LOG(ERR, EAL, "-m and --numa-mem: give one or the other\n");
		return -EINVAL;
	}
	if (lr_eal_cfg_.no_huge && lr_eal_cfg_.huge_dir[0]) {
		LR_LOG(ERR, EAL,
		       "--no-huge and --huge-dir: give one or the other\n");
		return -EINVAL;
	}
	return optind;
}
