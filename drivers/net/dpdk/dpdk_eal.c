/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpdk_eal.c - DPDK's EAL for net_dpdk (dpdk_private.h says which file
 * does what): its arguments built (the calling thread's CPUs, its own file
 * prefix), brought up once beside linerate's at the first port (or by
 * lr_eth_dpdk_eal_init()), and its runtime folder removed at exit.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_pci.h>

#include "dpdk_private.h"
#include "lr_eal.h"
#include "lr_eth_dpdk.h"

static pthread_mutex_t eal_lock = PTHREAD_MUTEX_INITIALIZER;
/* 0 not tried, 1 up, -errno refused (dpdk_private.h). */
int lr_dpdk_eal_state_;
/* The EAL came up with our --no-pci (dpdk_private.h). */
int lr_dpdk_eal_no_pci_;
/* The argument words DPDK's EAL got (it may keep pointers to them), and
 * the vector given to it (its getopt reorders it, and it writes its
 * program name over one slot). */
static char *eal_words[DPDK_MAX_ARGS + 1];
static char *eal_argv[DPDK_MAX_ARGS + 1];
static char eal_runtime_dir[512];

/* Whether dev starts with a PCI address (dpdk_private.h). */
int
lr_dpdk_is_pci_addr_(const char *dev)
{
	struct rte_pci_addr a;
	char name[64];
	const char *comma = strchr(dev, ',');
	size_t n = comma ? (size_t)(comma - dev) : strlen(dev);

	if (n >= sizeof(name))
		return 0;
	memcpy(name, dev, n);
	name[n] = '\0';
	return rte_pci_addr_parse(name, &a) == 0;
}

/* The calling thread's CPUs as ranges, "0-3,8", into buf; 0 or -1. */
static int
cpu_list(char *buf, size_t len)
{
	cpu_set_t set;
	size_t off = 0;

	if (pthread_getaffinity_np(pthread_self(), sizeof(set), &set) != 0)
		return -1;
	buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE; c++) {
		int e = c, k;

		if (!CPU_ISSET(c, &set))
			continue;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, &set))
			e++;
		k = e == c ? snprintf(buf + off, len - off, "%s%d",
				      off ? "," : "", c)
			   : snprintf(buf + off, len - off, "%s%d-%d",
				      off ? "," : "", c, e);
		if (k < 0 || (size_t)k >= len - off)
			return -1;
		off += (size_t)k;
		c = e;
	}
	return off ? 0 : -1;
}

/* Non-zero if one of the words starts with one of the options. */
static int
has_opt(char *const *words, int n, const char *const *opts)
{
	for (int i = 0; i < n; i++)
		for (const char *const *o = opts; *o; o++)
			if (strncmp(words[i], *o, strlen(*o)) == 0)
				return 1;
	return 0;
}

/* Remove DPDK's runtime folder of our prefix (files, then the folder). */
static void
remove_runtime_dir(void)
{
	DIR *d;
	struct dirent *e;
	char p[1024];

	if (eal_runtime_dir[0] == '\0')
		return;
	d = opendir(eal_runtime_dir);
	if (d != NULL) {
		while ((e = readdir(d)) != NULL) {
			if (strcmp(e->d_name, ".") == 0 ||
			    strcmp(e->d_name, "..") == 0)
				continue;
			snprintf(p, sizeof(p), "%s/%s", eal_runtime_dir,
				 e->d_name);
			unlink(p);
		}
		closedir(d);
	}
	rmdir(eal_runtime_dir);
}

static void
free_argv(void)
{
	for (int i = 0; eal_words[i] != NULL; i++) {
		free(eal_words[i]);
		eal_words[i] = NULL;
	}
}

static void
eal_cleanup(void)
{
	pthread_mutex_lock(&eal_lock);
	if (lr_dpdk_eal_state_ == 1) {
		rte_eal_cleanup();
		remove_runtime_dir();
		free_argv();
		lr_dpdk_eal_state_ = -ESHUTDOWN;
	}
	pthread_mutex_unlock(&eal_lock);
}

/* Where DPDK would put its runtime folder for prefix (as it does:
 * /var/run/dpdk for root, else $XDG_RUNTIME_DIR or /tmp). */
static void
guess_runtime_dir(const char *prefix)
{
	const char *base = "/var/run";
	const char *x = getenv("XDG_RUNTIME_DIR");

	if (getuid() != 0)
		base = x ? x : "/tmp";
	snprintf(eal_runtime_dir, sizeof(eal_runtime_dir), "%s/dpdk/%s", base,
		 prefix);
}

/* The argument vector for rte_eal_init() into argv (words point into
 * buf, a copy of args); the count. */
static int
build_args(const char *args, const char *first_dev, char *buf, size_t len,
	   char **argv, char *prefix, size_t plen, char *lcores, size_t llen)
{
	static const char *const prefix_opts[] = {"--file-prefix", NULL};
	static const char *const lcore_opts[] = {"-l", "-c", "--lcores", NULL};
	static const char *const tele_opts[] = {"--no-telemetry", "--telemetry",
						NULL};
	char *words[DPDK_MAX_ARGS], cpus[512];
	int nw = 0, argc = 0;
	const char *lp = lr_eal_file_prefix();

	snprintf(buf, len, "%s", args ? args : "");
	for (char *w = strtok(buf, " \t\n"); w && nw < DPDK_MAX_ARGS - 12;
	     w = strtok(NULL, " \t\n"))
		words[nw++] = w;
	argv[argc++] = "linerate-net_dpdk";
	if (!has_opt(words, nw, prefix_opts)) {
		if (lp != NULL)
			snprintf(prefix, plen, "--file-prefix=%s_dpdk", lp);
		else
			snprintf(prefix, plen, "--file-prefix=linerate_dpdk_%d",
				 (int)getpid());
		argv[argc++] = prefix;
	}
	if (!has_opt(words, nw, lcore_opts) &&
	    cpu_list(cpus, sizeof(cpus)) == 0) {
		snprintf(lcores, llen, "--lcores=0@(%s)", cpus);
		argv[argc++] = lcores;
	}
	if (!has_opt(words, nw, tele_opts))
		argv[argc++] = "--no-telemetry";
	if (args == NULL) {
		if (first_dev != NULL && lr_dpdk_is_pci_addr_(first_dev)) {
			argv[argc++] = "--in-memory";
			argv[argc++] = "-a";
			argv[argc++] = (char *)first_dev;
		} else {
			/* --in-memory is refused beside --no-huge */
			argv[argc++] = "--no-shconf";
			argv[argc++] = "--no-huge";
			argv[argc++] = "-m";
			argv[argc++] = "256";
			argv[argc++] = "--no-pci";
		}
	}
	for (int i = 0; i < nw; i++)
		argv[argc++] = words[i];
	argv[argc] = NULL;
	return argc;
}

/* Bring the EAL up for a first device first_dev (may be NULL); 0 or a
 * negative errno after logging (who names the caller in messages). */
int
lr_dpdk_eal_up_(const char *who, const char *args, const char *first_dev)
{
	char buf[LR_DEVARGS_MAX_LEN], prefix[128], lcores[600], line[1024];
	char *argv[DPDK_MAX_ARGS + 1];
	int argc, rc, sv_optind = optind, sv_opterr = opterr;
	char *sv_optarg = optarg;
	size_t off = 0;

	pthread_mutex_lock(&eal_lock);
	if (lr_dpdk_eal_state_ != 0) {
		rc = lr_dpdk_eal_state_ == 1 ? 0 : lr_dpdk_eal_state_;
		pthread_mutex_unlock(&eal_lock);
		if (rc == 0 && args != NULL)
			LR_LOG(WARNING, PMD,
			       "%s: dpdk-args '%s' ignored: DPDK's EAL is up "
			       "already\n",
			       who, args);
		if (rc != 0)
			LR_LOG(ERR, PMD,
			       "%s: DPDK's EAL refused its arguments earlier "
			       "in this process (%s)\n",
			       who, strerror(-rc));
		return rc;
	}
	argc = build_args(args, first_dev, buf, sizeof(buf), argv, prefix,
			  sizeof(prefix), lcores, sizeof(lcores));
	line[0] = '\0';
	for (int i = 1; i < argc; i++) {
		int k = snprintf(line + off, sizeof(line) - off, "%s%s",
				 i > 1 ? " " : "", argv[i]);

		if (k > 0 && (size_t)k < sizeof(line) - off)
			off += (size_t)k;
	}
	guess_runtime_dir(strchr(prefix, '=') ? strchr(prefix, '=') + 1
					      : "rte");
	/* rte_eal_init() may keep pointers into argv: give it copies that
	 * live until its cleanup. */
	for (int i = 0; i < argc; i++)
		eal_argv[i] = eal_words[i] = strdup(argv[i]);
	eal_argv[argc] = eal_words[argc] = NULL;
	rte_openlog_stream(stderr);
	rc = rte_eal_init(argc, eal_argv);
	optind = sv_optind;
	opterr = sv_opterr;
	optarg = sv_optarg;
	if (rc < 0) {
		int err = rte_errno ? rte_errno : EINVAL;

		LR_LOG(ERR, PMD,
		       "%s: dpdk-args: DPDK's EAL refused its arguments '%s': "
		       "%s\n",
		       who, line, rte_strerror(err));
		lr_dpdk_eal_state_ = -err;
		remove_runtime_dir();
		free_argv();
		pthread_mutex_unlock(&eal_lock);
		return -err;
	}
	snprintf(eal_runtime_dir, sizeof(eal_runtime_dir), "%s",
		 rte_eal_get_runtime_dir());
	lr_dpdk_eal_no_pci_ =
	    args == NULL && !(first_dev && lr_dpdk_is_pci_addr_(first_dev));
	lr_dpdk_eal_state_ = 1;
	if (lr_eal_initialized())
		lr_eal_on_cleanup(eal_cleanup);
	LR_LOG(INFO, PMD, "%s: DPDK's EAL up: %s\n", who, line);
	pthread_mutex_unlock(&eal_lock);
	return 0;
}

int
lr_eth_dpdk_eal_init(const char *args)
{
	return lr_dpdk_eal_up_("net_dpdk", args, NULL);
}
