/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_log.h - logging with a level per log type (one type per library or
 * driver). Messages below a type's level cost one compare.
 *
 * Threading: logging is thread-safe (one fprintf per message). Levels may
 * be changed at any time; readers see the change eventually.
 *
 * Error model: setters and parsers return 0 (or a count or id) or a
 * negative errno (-EINVAL for an unknown level or type, -ENOSPC when the
 * type table is full); logging itself never fails (a message that cannot
 * be written is dropped).
 */
#ifndef LR_LOG_H
#define LR_LOG_H

#include <stdarg.h>
#include <stdio.h>

#include "lr_common.h"

LR_BEGIN_DECLS

enum lr_log_level {
	LR_LOG_EMERG = 1,
	LR_LOG_ALERT,
	LR_LOG_CRIT,
	LR_LOG_ERR,
	LR_LOG_WARNING,
	LR_LOG_NOTICE,
	LR_LOG_INFO,
	LR_LOG_DEBUG,
};

/** Built-in log types; drivers and programs register more by name. */
enum lr_log_type {
	LR_LOGTYPE_EAL,
	LR_LOGTYPE_RING,
	LR_LOGTYPE_PAGEALLOC,
	LR_LOGTYPE_MEMPOOL,
	LR_LOGTYPE_MBUF,
	LR_LOGTYPE_ETHDEV,
	LR_LOGTYPE_PMD,
	LR_LOGTYPE_USER1,
	LR_LOGTYPE_FIRST_DYNAMIC,
};

#define LR_LOGTYPE_MAX 64

extern int lr_log_levels[LR_LOGTYPE_MAX];

/** Register (or look up) a log type by name; returns its id or -ENOSPC. */
int lr_log_register_type(const char *name, int default_level);

/** Set the level of one log type; 0 or -EINVAL. */
int lr_log_set_level(int type, int level);

/** Set the level of every type whose name matches a glob; count or -EINVAL. */
int lr_log_set_level_pattern(const char *pattern, int level);

/** Parse a level name ("err", "debug", ...) or number; the level or -EINVAL. */
int lr_log_parse_level(const char *s);

/** Apply one --log-level argument ("debug", "pagealloc:debug", "*:info"). */
int lr_log_parse_arg(const char *arg);

/** Redirect log output (default stderr; NULL restores it); once this
 * returns no thread writes to the previous stream, which may be closed. */
void lr_log_set_stream(FILE *f);

/** Write one message of the given level and type, printf-style. */
void lr_log(int level, int type, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/** va_list form of lr_log(). */
void lr_vlog(int level, int type, const char *fmt, va_list ap);

/** Log if type's level allows: LR_LOG(ERR, EAL, "bad %s\n", x). */
#define LR_LOG(l, t, ...)                                               \
	do {                                                            \
		if (LR_LOG_##l <= lr_log_levels[LR_LOGTYPE_##t])        \
			lr_log(LR_LOG_##l, LR_LOGTYPE_##t, __VA_ARGS__); \
	} while (0)

/** Same with a numeric log type (drivers' dynamic types). */
#define LR_LOG_DYN(l, t, ...)                                   \
	do {                                                    \
		if (LR_LOG_##l <= lr_log_levels[(t)])           \
			lr_log(LR_LOG_##l, (t), __VA_ARGS__);   \
	} while (0)

LR_END_DECLS

#endif /* LR_LOG_H */
