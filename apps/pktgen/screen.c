/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * screen.c - lr-pktgen's live screen: when stdout is a terminal, the
 * per-second figures are a page redrawn in place (as pktgen-dpdk's),
 * with ANSI sequences every terminal emulator knows (VT100: cursor home
 * ESC[H, erase to the end of the line ESC[K and of the screen ESC[J,
 * cursor hidden and shown ESC[?25l / ESC[?25h); no curses needed.
 *
 * A frame is built in memory a line at a time (each cut at the
 * terminal's width, so that no line wraps and moves the ones below) and
 * written with one write, so the terminal never shows half a frame. The
 * terminal is given back (cursor shown, on a new line below the last
 * frame) by pg_screen_end(), which main() calls on every way out of the
 * run; a stop signal is a stop request (lr_eal.h) that ends the run
 * through that way, and an exit() elsewhere runs it from atexit().
 *
 * Only the control thread calls these.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "pktgen.h"

#define SCR_MAX	 (128 * 1024) /* bytes of a frame */
#define SCR_LINE 512	      /* bytes of a line */

static char frame[SCR_MAX];
static size_t flen;
static unsigned rows, width, height;
static bool active, registered;

bool
pg_screen_wanted(const struct pg_opts *o)
{
	const char *term = getenv("TERM");

	if (o->quiet || o->json || o->stats_period > 0 || o->no_screen)
		return false;
	if (term != NULL && strcmp(term, "dumb") == 0)
		return false;
	return isatty(STDOUT_FILENO) == 1;
}

static void
put(const char *s, size_t n)
{
	if (flen + n > sizeof(frame))
		n = sizeof(frame) - flen;
	memcpy(frame + flen, s, n);
	flen += n;
}

static void
put_str(const char *s)
{
	put(s, strlen(s));
}

static void
flush_frame(void)
{
	fwrite(frame, 1, flen, stdout);
	fflush(stdout);
	flen = 0;
}

static void
restore_at_exit(void)
{
	pg_screen_end();
}

void
pg_screen_begin(void)
{
	fflush(stdout);
	active = true;
	if (!registered) {
		atexit(restore_at_exit);
		registered = true;
	}
	flen = 0;
	put_str("\033[?25l\033[H\033[2J");
	flush_frame();
}

void
pg_screen_clear(void)
{
	struct winsize ws;

	width = 80;
	height = 24;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0) {
		if (ws.ws_col > 0)
			width = ws.ws_col;
		if (ws.ws_row > 0)
			height = ws.ws_row;
	}
	flen = 0;
	rows = 0;
	put_str("\033[H");
}

void
pg_screen_printf(const char *fmt, ...)
{
	char line[SCR_LINE];
	va_list ap;
	size_t n;

	/* The last row stays free: a newline there would scroll. */
	if (rows + 1 >= height)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	n = strlen(line);
	/* One column short of the width: some terminals wrap at once. */
	if (n > width - 1)
		n = width - 1;
	put(line, n);
	put_str("\033[K\n");
	rows++;
}

unsigned
pg_screen_rows_left(void)
{
	return rows + 1 >= height ? 0 : height - 1 - rows;
}

void
pg_screen_show(void)
{
	put_str("\033[J");
	flush_frame();
}

void
pg_screen_end(void)
{
	if (!active)
		return;
	active = false;
	/* The cursor is on the line after the last frame's. */
	fputs("\033[?25h\n", stdout);
	fflush(stdout);
}
