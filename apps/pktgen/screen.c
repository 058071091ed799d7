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
 * frame) by pg_screen_end(), which pg_screen_final() calls at the end of
 * every run that started; a stop signal is a stop request (lr_eal.h) that
 * ends the run through that way, and an exit() elsewhere runs it from
 * atexit().
 *
 * What the frame shows (the second half of this file): a line per port
 * (rates of the last second, drops, frames behind the schedule), the
 * rate against its target, the mbuf pool, a line per stream (rates,
 * frames received and lost, latency percentiles, jitter) and the last
 * message of the control socket. The lcores copy their statistics when
 * asked (pg_lcore_snap(), datapath.c): the screen never reads what they
 * write meanwhile.
 *
 * Only the control thread calls these.
 */
#include <stdarg.h>
#include <stdatomic.h>
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

/* ---- What the screen shows: the ports, the rate, the streams ---- */

/* The live screen is on, and the last control message. */
static bool screen_on;
static char screen_note[160];

/* A stream definition's figures as the lcores last copied them. */
struct scr_stream {
	uint64_t rx, lost, l_tx;
	double jitter; /* cycles */
	struct pg_lat lat;
};

static struct scr_stream *scr; /* [nsdefs] */
static uint32_t snap_gen;      /* the last copy asked of the lcores */
static bool snap_asked;	       /* asked, not all answered yet */

/* A message of the control thread: a line of its own, or on the screen. */
void
pg_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (screen_on) {
		vsnprintf(screen_note, sizeof(screen_note), fmt, ap);
	} else {
		vprintf(fmt, ap);
		putchar('\n');
		fflush(stdout);
	}
	va_end(ap);
}

/* The lcores' copies for the screen; 0 or -1 (out of memory). */
static int
screen_setup(void)
{
	scr = calloc(pg.nsdefs, sizeof(*scr));
	if (scr == NULL)
		return pg_fail("out of memory");
	for (unsigned i = 0; i < pg_app.n_dp; i++) {
		struct pg_lcore *lc = pg_dp_lcore(i);

		lc->snap = calloc(LR_MAX(pg.nstreams, 1u), sizeof(*lc->snap));
		lc->snap_lat = calloc(pg.nsdefs, sizeof(*lc->snap_lat));
		if (lc->snap == NULL || lc->snap_lat == NULL)
			return pg_fail("out of memory");
	}
	pg_screen_begin();
	return 0;
}

int
pg_screen_start(const struct pg_opts *o)
{
	screen_on = pg_screen_wanted(o);
	if (screen_on && screen_setup() != 0)
		return -1;
	return 0;
}

bool
pg_screen_on(void)
{
	return screen_on;
}

void
pg_screen_free(void)
{
	free(scr);
}

/* Fold the lcores' copies into scr: received, lost (below the highest
 * sequence number received: frames still on their way are not lost),
 * jitter, latency. */
static void
screen_fold(void)
{
	for (unsigned k = 0; k < pg.nsdefs; k++) {
		struct scr_stream *ss = &scr[k];
		uint64_t l_tx = ss->l_tx;

		memset(ss, 0, sizeof(*ss));
		ss->l_tx = l_tx;
		ss->lat.min = UINT64_MAX;
		for (unsigned l = 0; l < pg_app.n_dp; l++)
			pg_lat_merge(&ss->lat, &pg_dp_lcore(l)->snap_lat[k]);
	}
	for (unsigned i = 0; i < pg_app.ntxqs; i++) {
		struct scr_stream *ss = &scr[pg_app.txqs[i]->sdef];
		uint64_t top = 0, unique = 0;
		bool seen = false;

		for (unsigned l = 0; l < pg_app.n_dp; l++) {
			const struct pg_snap *w =
			    &pg_dp_lcore(l)->snap[pg_app.txqs[i]->stream];

			if (w->seen && (!seen || w->top > top))
				top = w->top;
			seen |= w->seen;
			unique += w->unique;
			ss->rx += w->unique + w->dup;
			ss->jitter =
			    LR_MAX(ss->jitter, (double)w->jitter16 / 16);
		}
		if (seen && top + 1 > unique)
			ss->lost += top + 1 - unique;
	}
}

/* Take the lcores' copies once all have answered. */
static void
screen_collect(void)
{
	if (!snap_asked)
		return;
	for (unsigned i = 0; i < pg_app.n_dp; i++)
		if (atomic_load_explicit(&pg_dp_lcore(i)->snap_done,
					 memory_order_acquire) != snap_gen)
			return;
	screen_fold();
	snap_asked = false;
}

/* Ask every lcore for a copy of its statistics. */
static void
screen_ask(void)
{
	snap_gen++;
	for (unsigned i = 0; i < pg_app.n_dp; i++)
		atomic_store_explicit(&pg_dp_lcore(i)->snap_req, snap_gen,
				      memory_order_release);
	snap_asked = true;
}

/* A count in at most w characters (k, M, G beyond). */
static const char *
fmt_count(char *buf, size_t n, unsigned w, uint64_t v)
{
	static const char sfx[] = "kMGTP";
	double x = (double)v;

	snprintf(buf, n, "%llu", (unsigned long long)v);
	for (unsigned i = 0; strlen(buf) > w && i < sizeof(sfx) - 1; i++) {
		x /= 1000;
		snprintf(buf, n, "%.*f%c",
			 x < 10	   ? 2
			 : x < 100 ? 1
				   : 0,
			 x, sfx[i]);
	}
	return buf;
}

/* A latency in microseconds, "-" without samples. */
static const char *
fmt_us(char *buf, size_t n, double cycles, bool have)
{
	double v = cycles * 1e6 / (double)pg.hz;

	if (!have)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, v < 1000 ? "%.2f" : "%.0f", v);
	return buf;
}

/* The title (state, rate, streams, queues, lcores) and the ports'
 * heading. */
static void
draw_title(uint64_t now, bool final)
{
	static const char *const unit[] = {"", "frames/s", "Mbit/s",
					   "% of line rate"};
	const struct pg_opts *o = &pg.o;
	char rate[64];

	if (o->rate_mode == PG_RATE_MAX)
		snprintf(rate, sizeof(rate), "rate max");
	else
		snprintf(rate, sizeof(rate), "rate %.10g %s", o->rate,
			 unit[o->rate_mode]);
	pg_screen_clear();
	pg_screen_printf("lr-pktgen [%7.1fs] %s, %s, streams %u, queues %u, "
			 "lcores %u",
			 (double)(now - pg.t0) / (double)pg.hz,
			 final ? "done" : pg_send_state(), rate, pg.nsdefs,
			 pg.nstreams, pg_app.n_dp);
	pg_screen_printf("%s", "");
	pg_screen_printf("%-4s %-12s %9s %9s %9s %9s %10s %10s", "port", "name",
			 "tx Mpps", "tx Gb/s", "rx Mpps", "rx Gb/s", "drops",
			 "behind");
}

/* A line a port: its rates over the last dt seconds, drops, frames
 * behind the schedule; the frames and bytes sent over all ports into
 * *all_tx and *all_txb. */
static void
draw_ports(double dt, uint64_t *all_tx, uint64_t *all_txb)
{
	char c[2][24];
	struct pg_sums s;

	for (uint16_t p = 0; pg_port_next(&p, &s); p++) {
		struct pg_port *pi = &pg_app.ports[p];
		uint64_t tx = s.tx, txb = s.txb, rx = s.rx, rxb = s.rxb, pb = 0;

		for (uint16_t q = 0; q < pi->nq; q++)
			pb += atomic_load_explicit(&pi->cnt[q].tx_behind,
						   memory_order_relaxed);
		pg_screen_printf(
		    "%-4u %-12.12s %9.3f %9.3f %9.3f %9.3f %10s %10s", p,
		    pi->name, (double)(tx - pi->l_tx) / dt / 1e6,
		    pg_wire_gbps(tx - pi->l_tx, txb - pi->l_txb, dt),
		    (double)(rx - pi->l_rx) / dt / 1e6,
		    pg_wire_gbps(rx - pi->l_rx, rxb - pi->l_rxb, dt),
		    fmt_count(c[0], sizeof(c[0]), 10, pg_port_drops(p)),
		    fmt_count(c[1], sizeof(c[1]), 10, pb));
		pi->l_tx = tx;
		pi->l_txb = txb;
		pi->l_rx = rx;
		pi->l_rxb = rxb;
		*all_tx += tx;
		*all_txb += txb;
	}
}

/* The rate reached against its target over the last dt seconds (all_tx
 * frames and all_txb bytes sent so far, behind frames behind the
 * schedule), and the mbuf pool. */
static void
draw_rate(double dt, uint64_t all_tx, uint64_t all_txb, uint64_t behind)
{
	struct lr_mempool_elastic_stats ps;

	if (pg_app.any_paced) {
		char r[96];

		pg_rate_vs_target(r, sizeof(r), all_tx - pg_app.l_all_tx,
				  all_txb - pg_app.l_all_txb, dt);
		if (behind != pg_app.l_behind)
			pg_screen_printf(
			    "rate missed: %s (%llu frames behind "
			    "the schedule in %.1f s)",
			    r, (unsigned long long)(behind - pg_app.l_behind),
			    dt);
		else
			pg_screen_printf("rate: %s, on schedule", r);
	}
	pg_app.l_behind = behind;
	pg_app.l_all_tx = all_tx;
	pg_app.l_all_txb = all_txb;
	if (pg.pool && lr_mempool_elastic_stats_get(pg.pool, &ps) == 0)
		pg_screen_printf("mbuf pool: %u mbufs (elastic %u-%u, peak %u)",
				 ps.objs, ps.min_objs, ps.max_objs,
				 ps.peak_objs);
}

/* A line a stream, as many as the screen holds: its rate over the last dt
 * seconds, frames sent, received and lost, latency, jitter. */
static void
draw_streams(double dt)
{
	char c[3][24];
	unsigned shown = 0;

	pg_screen_printf("%s", "");
	pg_screen_printf("%-12s %8s %10s %10s %8s %8s %8s %7s", "stream",
			 "tx Mpps", "tx", "rx", "lost", "p50 us", "p99 us",
			 "jit us");
	for (unsigned k = 0; k < pg.nsdefs; k++) {
		struct scr_stream *ss = &scr[k];
		bool have = ss->lat.n > 0;
		uint64_t tx = 0;
		char name[PG_NAME_MAX + 12], l[3][16];

		for (unsigned i = 0; i < pg_app.ntxqs; i++)
			if (pg_app.txqs[i]->sdef == k)
				tx += atomic_load_explicit(
				    &pg_app.txqs[i]->scnt.tx_pkts,
				    memory_order_relaxed);
		if (pg_screen_rows_left() > 3) {
			snprintf(name, sizeof(name), "%u %s", k,
				 pg.sdefs[k].name);
			pg_screen_printf(
			    "%-12.12s %8.3f %10s %10s %8s %8s %8s %7s", name,
			    (double)(tx - ss->l_tx) / dt / 1e6,
			    fmt_count(c[0], sizeof(c[0]), 10, tx),
			    fmt_count(c[1], sizeof(c[1]), 10, ss->rx),
			    fmt_count(c[2], sizeof(c[2]), 8, ss->lost),
			    fmt_us(l[0], sizeof(l[0]),
				   pg_lat_quantile(&ss->lat, 0.5), have),
			    fmt_us(l[1], sizeof(l[1]),
				   pg_lat_quantile(&ss->lat, 0.99), have),
			    fmt_us(l[2], sizeof(l[2]), ss->jitter, ss->rx > 0));
			shown++;
		}
		ss->l_tx = tx;
	}
	if (shown < pg.nsdefs)
		pg_screen_printf("... %u more stream(s): all of them in the "
				 "summary at the end",
				 pg.nsdefs - shown);
}

/* A frame of the screen at now (final: the run's last). */
static void
screen_draw(uint64_t now, bool final)
{
	const struct pg_opts *o = &pg.o;
	double dt = (double)(now - pg_app.last_print) / (double)pg.hz;
	uint64_t all_tx = 0, all_txb = 0, behind = pg_behind_sum();

	if (dt <= 0)
		dt = 1e-9;
	draw_title(now, final);
	draw_ports(dt, &all_tx, &all_txb);
	draw_rate(dt, all_tx, all_txb, behind);
	draw_streams(dt);
	pg_screen_printf("%s", "");
	if (screen_note[0])
		pg_screen_printf("%s", screen_note);
	if (!final)
		pg_screen_printf("%s%s%s", o->ctl_path ? "control socket " : "",
				 o->ctl_path ? o->ctl_path : "",
				 o->ctl_path ? " (start, stop, rate, quit); "
					       "Ctrl-C ends the run"
					     : "Ctrl-C ends the run");
	pg_screen_show();
	pg_app.last_print = now;
}

/* Each tick of the control loop: ask the lcores for their statistics a
 * moment before a second is over, take them when they came, draw. */
void
pg_screen_tick(uint64_t now)
{
	screen_collect();
	if (!snap_asked && now - pg_app.last_print >= pg.hz - pg.hz / 50)
		screen_ask();
	if (now - pg_app.last_print >= pg.hz)
		screen_draw(now, false);
}

/* The last frame, from the lcores' own statistics (they have returned),
 * and the terminal given back. */
void
pg_screen_final(void)
{
	for (unsigned i = 0; i < pg_app.n_dp; i++)
		pg_lcore_snap(pg_dp_lcore(i));
	screen_fold();
	screen_draw(pg_app.t_stop, true);
	pg_screen_end();
}
