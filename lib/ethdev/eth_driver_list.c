/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The drivers a program can name, as text: the registered ones (built in,
 * or plugins already loaded) and the plugin files on the EAL's plugin
 * search path (liblinerate_<driver>.so, lr_eal.h "Plugins") that are not
 * loaded yet. For messages and --version; never on a fast path.
 */
#include <dirent.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lr_eal.h"
#include "lr_ethdev.h"
#include "lr_ethdev_driver.h"

#define MAX_NAMES     64
#define PLUGIN_PREFIX "liblinerate_"
#define PLUGIN_SUFFIX ".so"

struct plugins {
	char name[MAX_NAMES][LR_ETH_NAME_MAX_LEN];
	unsigned n;
};

/* The driver a plugin file is of (liblinerate_net_dpdk.so: net_dpdk) into
 * drv: true if the file is named as a plugin is, with letters, digits and
 * '_' between prefix and suffix. */
static bool
plugin_file_driver(const char *file, char *drv, size_t len)
{
	size_t pl = strlen(PLUGIN_PREFIX), sl = strlen(PLUGIN_SUFFIX);
	size_t n = strlen(file);

	if (n <= pl + sl || n - pl - sl >= len ||
	    strncmp(file, PLUGIN_PREFIX, pl) != 0 ||
	    strcmp(file + n - sl, PLUGIN_SUFFIX) != 0)
		return false;
	n -= pl + sl;
	for (size_t i = 0; i < n; i++) {
		char c = file[pl + i];

		if (!(c >= 'a' && c <= 'z') && !(c >= '0' && c <= '9') &&
		    c != '_')
			return false;
	}
	memcpy(drv, file + pl, n);
	drv[n] = '\0';
	return true;
}

/* lr_eal_plugin_dir_foreach() callback: the plugin drivers of folder dir
 * that are not registered and not seen yet, into arg's list. */
static int
scan_dir(const char *dir, void *arg)
{
	struct plugins *p = arg;
	struct dirent *e;
	DIR *d = opendir(dir);
	char drv[LR_ETH_NAME_MAX_LEN];

	if (d == NULL)
		return 0; /* a folder that is not there has no plugin */
	while (p->n < MAX_NAMES && (e = readdir(d)) != NULL) {
		unsigned i = 0;

		if (!plugin_file_driver(e->d_name, drv, sizeof(drv)) ||
		    lr_eth_driver_find(drv) != NULL)
			continue;
		while (i < p->n && strcmp(p->name[i], drv) != 0)
			i++;
		if (i == p->n)
			memcpy(p->name[p->n++], drv, sizeof(drv));
	}
	closedir(d);
	return 0;
}

static int
cmp_plugin(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Append to buf (len bytes, *at written so far, as snprintf counts). */
static void __attribute__((format(printf, 4, 5)))
append(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(*at < len ? buf + *at : NULL, *at < len ? len - *at : 0,
		      fmt, ap);
	va_end(ap);
	if (n > 0)
		*at += (size_t)n;
}

int
lr_eth_driver_list(char *buf, size_t len)
{
	const char *names[MAX_NAMES];
	struct plugins *p = calloc(1, sizeof(*p));
	unsigned n =
	    LR_MIN(lr_eth_driver_names(names, MAX_NAMES), (unsigned)MAX_NAMES);
	size_t at = 0;

	if (buf != NULL && len > 0)
		buf[0] = '\0';
	else
		len = 0;
	for (unsigned i = 0; i < n; i++)
		append(buf, len, &at, "%s%s", i ? " " : "", names[i]);
	if (n == 0)
		append(buf, len, &at, "none built in");
	if (p == NULL)
		return (int)at;
	lr_eal_plugin_dir_foreach(scan_dir, p);
	qsort(p->name, p->n, sizeof(p->name[0]), cmp_plugin);
	for (unsigned i = 0; i < p->n; i++)
		append(buf, len, &at, "%s%s",
		       i ? " " : "; plugins: ", p->name[i]);
	free(p);
	return (int)at;
}
