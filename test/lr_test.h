/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_test.h - the unit-test harness: cases are functions returning 0
 * (pass), LR_TEST_SKIP or -1 (fail); LR_TEST_MAIN runs them in order, prints
 * one line per case and a closing "N passed, N failed, N skipped" line, and
 * exits non-zero if any failed. A case name given on the command line runs
 * only that case.
 */
#ifndef LR_TEST_H
#define LR_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lr_log.h"

/** Return value of a case that could not run here (say why first). */
#define LR_TEST_SKIP 77

/** Fail the current case with a message if cond is false. */
#define LR_TEST_ASSERT(cond, ...)                                          \
	do {                                                               \
		if (!(cond)) {                                             \
			fprintf(stderr, "%s:%d: assertion '%s' failed: ", \
				__FILE__, __LINE__, #cond);                \
			fprintf(stderr, __VA_ARGS__);                      \
			fputc('\n', stderr);                               \
			return -1;                                         \
		}                                                          \
	} while (0)

/** Fail unless a == b (integers), printing both. */
#define LR_TEST_ASSERT_EQ(a, b)                                             \
	do {                                                                \
		long long a_ = (long long)(a), b_ = (long long)(b);         \
		LR_TEST_ASSERT(a_ == b_, "%s = %lld, %s = %lld", #a, a_, #b, \
			       b_);                                          \
	} while (0)

/**
 * execv() one of our programs from a test's child process; in a cross build
 * (LR_EXE_WRAPPER set, e.g. qemu-ppc64le-static) through that emulator.
 * Returns only on failure, like execv().
 */
static inline int
lr_test_execv(const char *path, char *const argv[])
{
	const char *wrap = getenv("LR_EXE_WRAPPER");
	char *wargv[256];
	int n = 0;

	if (wrap == NULL || *wrap == '\0')
		return execv(path, argv);
	wargv[n++] = (char *)wrap;
	wargv[n++] = (char *)path;
	for (int i = 1; argv[i] != NULL && n < 255; i++)
		wargv[n++] = argv[i];
	wargv[n] = NULL;
	return execvp(wrap, wargv);
}

/* State of the log capture below (one per test program). */
struct lr_test_log_state {
	FILE *f;
	char text[16384];
};

static inline struct lr_test_log_state *
lr_test_log_state(void)
{
	static struct lr_test_log_state st;

	return &st;
}

/** Send lr_log() output to a temporary file until lr_test_log_end(). */
static inline void
lr_test_log_begin(void)
{
	struct lr_test_log_state *st = lr_test_log_state();

	st->f = tmpfile();
	lr_log_set_stream(st->f);
}

/** Stop capturing: echo what was logged to stderr and return it (the text
 *  stays valid until the next lr_test_log_begin()). */
static inline const char *
lr_test_log_end(void)
{
	struct lr_test_log_state *st = lr_test_log_state();
	size_t n = 0;

	lr_log_set_stream(NULL);
	if (st->f == NULL)
		return "";
	rewind(st->f);
	n = fread(st->text, 1, sizeof(st->text) - 1, st->f);
	st->text[n] = '\0';
	fclose(st->f);
	st->f = NULL;
	fputs(st->text, stderr);
	return st->text;
}

/** One test case. */
struct lr_test_case {
	const char *name;
	int (*fn)(void);
};

/** Run cases (see the header comment); returns the process exit code. */
static inline int
lr_test_run(const char *suite, const struct lr_test_case *cases, int n,
	    int argc, char **argv)
{
	int passed = 0, failed = 0, skipped = 0;
	const char *only = argc > 1 ? argv[argc - 1] : NULL;

	for (int i = 0; i < n; i++) {
		if (only && only[0] != '-' && strcmp(only, cases[i].name))
			continue;
		fprintf(stderr, "[ RUN  ] %s.%s\n", suite, cases[i].name);
		int r = cases[i].fn();
		const char *what = r == 0 ? "  OK  " :
				   r == LR_TEST_SKIP ? " SKIP " : " FAIL ";
		if (r == 0)
			passed++;
		else if (r == LR_TEST_SKIP)
			skipped++;
		else
			failed++;
		fprintf(stderr, "[%s] %s.%s\n", what, suite, cases[i].name);
	}
	printf("%s: %d passed, %d failed, %d skipped\n", suite, passed, failed,
	       skipped);
	return failed ? 1 : (passed == 0 && skipped ? LR_TEST_SKIP : 0);
}

/** main() running the array cases[] of this file. */
#define LR_TEST_MAIN(suite, cases)                                      \
	int main(int argc, char **argv)                                 \
	{                                                               \
		return lr_test_run(suite, cases,                        \
				   (int)(sizeof(cases) / sizeof(cases[0])), \
				   argc, argv);                         \
	}

#endif /* LR_TEST_H */
