/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Plugins: shared objects loaded with dlopen(), as DPDK loads its PMDs
 * (lr_eal.h, "Plugins"). This file: the search path (-d folders,
 * LR_PLUGIN_PATH, the build tree's or the installed plugin folder) and the
 * loading of -d files at lr_eal_init().
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "eal_private.h"
#include "lr_plugin_config.h"

/* Where the code of this library runs from, and whether that is inside
 * the build tree (then the build tree's plugins are the ones that match
 * it): found once. */
static pthread_once_t default_dir_once = PTHREAD_ONCE_INIT;
static const char *default_dir;

struct find_self {
	uintptr_t addr;
	char path[PATH_MAX];
	int found;
};

/* dl_iterate_phdr() callback: the object whose loaded segments hold
 * f->addr; the main program has no name there: /proc/self/exe. */
static int
find_self_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct find_self *f = arg;

	for (unsigned i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD || f->addr < lo ||
		    f->addr >= lo + ph->p_memsz)
			continue;
		if (info->dlpi_name != NULL && info->dlpi_name[0] != '\0') {
			snprintf(f->path, sizeof(f->path), "%s",
				 info->dlpi_name);
		} else {
			ssize_t n = readlink("/proc/self/exe", f->path,
					     sizeof(f->path) - 1);

			if (n < 0)
				return 1;
			f->path[n] = '\0';
		}
		f->found = 1;
		return 1;
	}
	return 0;
}

static void
default_dir_find(void)
{
	struct find_self f = {.addr = (uintptr_t)(void *)default_dir_find};
	char self[PATH_MAX], root[PATH_MAX];
	size_t n;

	default_dir = LR_PLUGIN_INSTALL_DIR;
	dl_iterate_phdr(find_self_cb, &f);
	if (!f.found || realpath(f.path, self) == NULL ||
	    realpath(LR_PLUGIN_BUILD_ROOT, root) == NULL)
		return;
	n = strlen(root);
	if (strncmp(self, root, n) == 0 && self[n] == '/')
		default_dir = LR_PLUGIN_BUILD_DIR;
}

const char *
lr_eal_plugin_default_dir(void)
{
	pthread_once(&default_dir_once, default_dir_find);
	return default_dir;
}

static bool
is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int
lr_eal_plugin_dir_foreach(int (*fn)(const char *dir, void *arg), void *arg)
{
	const char *env = getenv("LR_PLUGIN_PATH");
	char dir[PATH_MAX];
	int rc;

	if (fn == NULL)
		return -EINVAL;
	for (unsigned i = 0; i < lr_eal_cfg_.nb_plugin_path; i++) {
		const char *d = lr_eal_cfg_.plugin_path[i];

		if (is_dir(d) && (rc = fn(d, arg)) != 0)
			return rc;
	}
	while (env != NULL && *env != '\0') {
		const char *end = strchrnul(env, ':');
		size_t n = (size_t)(end - env);

		/* An empty entry names no folder; one too long none either. */
		if (n > 0 && n < sizeof(dir)) {
			memcpy(dir, env, n);
			dir[n] = '\0';
			if ((rc = fn(dir, arg)) != 0)
				return rc;
		}
		env = *end == ':' ? end + 1 : NULL;
	}
	return fn(lr_eal_plugin_default_dir(), arg);
}

struct find_arg {
	const char *file;
	char *path;
	size_t len;
	bool too_long; /* a folder whose dir/file did not fit path */
};

/* lr_eal_plugin_dir_foreach() callback: 1 once dir/file exists (its path
 * in f->path), else 0 to go on. */
static int
find_in(const char *dir, void *arg)
{
	struct find_arg *f = arg;
	int n = snprintf(f->path, f->len, "%s/%s", dir, f->file);

	if (n < 0 || (size_t)n >= f->len) {
		f->too_long = true;
		return 0;
	}
	return access(f->path, F_OK) == 0 ? 1 : 0;
}

int
lr_eal_plugin_find(const char *file, char *path, size_t len)
{
	struct find_arg f = {file, path, len, false};
	int rc;

	if (file == NULL || file[0] == '\0' || strchr(file, '/') != NULL ||
	    path == NULL || len == 0)
		return -EINVAL;
	rc = lr_eal_plugin_dir_foreach(find_in, &f);
	if (rc > 0)
		return 0;
	return f.too_long ? -ENAMETOOLONG : -ENOENT;
}

int
lr_eal_plugin_add_path_(const char *arg)
{
	if (arg[0] == '\0') {
		LR_LOG(ERR, EAL, "-d '': expected a plugin file or folder\n");
		return -EINVAL;
	}
	if (lr_eal_cfg_.nb_plugin_path == LR_EAL_MAX_PLUGIN_PATH) {
		LR_LOG(ERR, EAL, "-d '%s': more than %d\n", arg,
		       LR_EAL_MAX_PLUGIN_PATH);
		return -EINVAL;
	}
	lr_eal_cfg_.plugin_path[lr_eal_cfg_.nb_plugin_path] = strdup(arg);
	if (lr_eal_cfg_.plugin_path[lr_eal_cfg_.nb_plugin_path] == NULL)
		return -ENOMEM;
	lr_eal_cfg_.nb_plugin_path++;
	return 0;
}

int
lr_eal_plugins_load_(void)
{
	for (unsigned i = 0; i < lr_eal_cfg_.nb_plugin_path; i++) {
		const char *p = lr_eal_cfg_.plugin_path[i];
		struct stat st;

		if (stat(p, &st) != 0) {
			LR_LOG(ERR, EAL, "-d '%s': %s\n", p, strerror(errno));
			return -ENOENT;
		}
		if (S_ISDIR(st.st_mode))
			continue; /* searched on demand */
		/* Never closed: its constructors registered what it has. */
		if (dlopen(p, RTLD_NOW | RTLD_LOCAL) == NULL) {
			LR_LOG(ERR, EAL,
			       "-d '%s': cannot load the plugin: %s\n", p,
			       dlerror());
			return -ELIBACC;
		}
		LR_LOG(INFO, EAL, "-d '%s': plugin loaded\n", p);
	}
	return 0;
}
