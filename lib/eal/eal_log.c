/* SPDX-License-Identifier: BSD-3-Clause */
/* Log types, levels and output. */
#include <fnmatch.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lr_errno.h"
#include "lr_log.h"

int lr_log_levels[LR_LOGTYPE_MAX] = {
	[0 ... LR_LOGTYPE_MAX - 1] = LR_LOG_NOTICE,
};

static const char *type_names[LR_LOGTYPE_MAX] = {
	[LR_LOGTYPE_EAL] = "eal",
	[LR_LOGTYPE_RING] = "ring",
	[LR_LOGTYPE_PAGEALLOC] = "pagealloc",
	[LR_LOGTYPE_MEMPOOL] = "mempool",
	[LR_LOGTYPE_MBUF] = "mbuf",
	[LR_LOGTYPE_ETHDEV] = "ethdev",
	[LR_LOGTYPE_PMD] = "pmd",
	[LR_LOGTYPE_USER1] = "user1",
};
static int type_count = LR_LOGTYPE_FIRST_DYNAMIC;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
/* The stream messages go to (NULL: stderr). stream_lock is held while a
 * message is written and while the stream is changed, so that once
 * lr_log_set_stream() returns no thread still writes to the old stream
 * (its owner may close it). */
static pthread_mutex_t stream_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *_Atomic log_stream;

static const char *const level_names[] = {
	[LR_LOG_EMERG] = "emerg",    [LR_LOG_ALERT] = "alert",
	[LR_LOG_CRIT] = "crit",      [LR_LOG_ERR] = "err",
	[LR_LOG_WARNING] = "warning", [LR_LOG_NOTICE] = "notice",
	[LR_LOG_INFO] = "info",      [LR_LOG_DEBUG] = "debug",
};

int
lr_log_register_type(const char *name, int default_level)
{
	int id = -ENOSPC;

	pthread_mutex_lock(&log_lock);
	for (int i = 0; i < type_count; i++) {
		if (type_names[i] && strcmp(type_names[i], name) == 0) {
			id = i;
			goto out;
		}
	}
	if (type_count < LR_LOGTYPE_MAX) {
		char *copy = strdup(name);

		if (copy == NULL) {
			id = -ENOMEM;
			goto out;
		}
		id = type_count++;
		type_names[id] = copy;
		lr_log_levels[id] = default_level;
	}
out:
	pthread_mutex_unlock(&log_lock);
	return id;
}

int
lr_log_set_level(int type, int level)
{
	if (type < 0 || type >= LR_LOGTYPE_MAX || level < LR_LOG_EMERG ||
	    level > LR_LOG_DEBUG)
		return -EINVAL;
	__atomic_store_n(&lr_log_levels[type], level, __ATOMIC_RELAXED);
	return 0;
}

int
lr_log_set_level_pattern(const char *pattern, int level)
{
	int n = 0;

	if (level < LR_LOG_EMERG || level > LR_LOG_DEBUG)
		return -EINVAL;
	pthread_mutex_lock(&log_lock);
	for (int i = 0; i < type_count; i++) {
		if (type_names[i] && fnmatch(pattern, type_names[i], 0) == 0) {
			lr_log_levels[i] = level;
			n++;
		}
	}
	pthread_mutex_unlock(&log_lock);
	return n;
}

int
lr_log_parse_level(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s != '\0' && *end == '\0')
		return (v >= LR_LOG_EMERG && v <= LR_LOG_DEBUG) ? (int)v : -EINVAL;
	for (int l = LR_LOG_EMERG; l <= LR_LOG_DEBUG; l++)
		if (strcasecmp(s, level_names[l]) == 0)
			return l;
	if (strcasecmp(s, "error") == 0)
		return LR_LOG_ERR;
	if (strcasecmp(s, "warn") == 0)
		return LR_LOG_WARNING;
	return -EINVAL;
}

int
lr_log_parse_arg(const char *arg)
{
	const char *colon = strrchr(arg, ':');
	char pattern[64];
	int level;

	if (colon == NULL) {
		level = lr_log_parse_level(arg);
		return level < 0 ? level : lr_log_set_level_pattern("*", level) < 0;
	}
	if ((size_t)(colon - arg) >= sizeof(pattern) || colon == arg)
		return -EINVAL;
	memcpy(pattern, arg, colon - arg);
	pattern[colon - arg] = '\0';
	level = lr_log_parse_level(colon + 1);
	if (level < 0)
		return level;
	/* A type that is registered later keeps its own default: a pattern
	 * names the types that exist now (all built-in ones do). */
	return lr_log_set_level_pattern(pattern, level) < 0 ? -EINVAL : 0;
}

void
lr_log_set_stream(FILE *f)
{
	pthread_mutex_lock(&stream_lock);
	atomic_store_explicit(&log_stream, f, memory_order_relaxed);
	pthread_mutex_unlock(&stream_lock);
}

void
lr_vlog(int level, int type, const char *fmt, va_list ap)
{
	FILE *f;
	const char *name = (type >= 0 && type < LR_LOGTYPE_MAX &&
			    type_names[type]) ? type_names[type] : "?";
	char buf[1024];
	int n;

	(void)level;
	n = snprintf(buf, sizeof(buf), "%s: ", name);
	if (n < 0 || (size_t)n >= sizeof(buf))
		n = 0;
	vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	pthread_mutex_lock(&stream_lock);
	f = atomic_load_explicit(&log_stream, memory_order_relaxed);
	if (f == NULL)
		f = stderr;
	fputs(buf, f);
	fflush(f);
	pthread_mutex_unlock(&stream_lock);
}

void
lr_log(int level, int type, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lr_vlog(level, type, fmt, ap);
	va_end(ap);
}

void
lr_assert_fail_(const char *expr, const char *file, int line, const char *func)
{
	/* No lock: an assertion may fail while a message is written. */
	FILE *f = atomic_load_explicit(&log_stream, memory_order_relaxed);

	if (f == NULL)
		f = stderr;
	fprintf(f, "linerate: assertion '%s' failed at %s:%d in %s()\n", expr,
		file, line, func);
	fflush(f);
	abort();
}
