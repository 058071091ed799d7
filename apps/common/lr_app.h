/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_app.h - what every linerate program (apps/, installed as lr-<name>)
 * shares: its exit status, its --version and its start (the EAL's
 * options, -h and -V). Internal to apps/: never installed.
 *
 * Exit status, the same in every program and in every man page's EXIT
 * STATUS:
 *   0  LR_EXIT_OK       done (also after --help and --version)
 *   1  LR_EXIT_FAILURE  a run-time failure: the command line was right but
 *                       the run failed (memory, a port that does not
 *                       start or whose link stays down, an mbuf not back
 *                       in its pool, a control socket that does not
 *                       answer, an output file that cannot be written, a
 *                       stop signal during start-up)
 *   2  LR_EXIT_USAGE    a usage error: an unknown option, a missing or bad
 *                       value, options that exclude each other, bad
 *                       devargs, an unknown driver, a port or lcore that
 *                       does not exist, a missing or invalid input file
 *                       (lr-pktgen's --profile and --pcap)
 * A program prints the error on stderr, naming what was wrong, and
 * nothing after it (lr-l2fwd adds the line pointing at its usage).
 *
 * --version (and -V) prints four lines on stdout and exits 0:
 *   lr-<name> <project version>
 *   git: <git describe --always --dirty of the build, or "unknown">
 *   DPDK compatibility: <EAL options, devargs, the DPDK of net_dpdk>
 *   drivers: <registered drivers>[; plugins: <loadable plugin drivers>]
 *
 * For main() only, before it starts threads: not thread-safe.
 */
#ifndef LR_APP_H
#define LR_APP_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

#define LR_EXIT_OK	0
#define LR_EXIT_FAILURE 1
#define LR_EXIT_USAGE	2

/** A program: its installed name, and its own options' usage (printed
 *  after the EAL's for -h; NULL: none). */
struct lr_app {
	const char *name;
	void (*usage)(FILE *f, const char *prog);
};

/** Print the four --version lines of program prog to stdout, the last
 *  one "drivers: " and the text drivers. */
void lr_app_version_print(const char *prog, const char *drivers);

/** lr_app_version_print() with the drivers this program can name: the
 *  built-in ones and the plugins on the plugin search path. */
void lr_app_version(const char *prog);

/** The exit status for a negative errno of a step that reads the command
 *  line (lr_eal_init(), lr_eth_dev_probe_eal_vdevs()): LR_EXIT_USAGE for
 *  -EINVAL (a bad option or value), -ENOENT (no such driver or file) and
 *  -EEXIST (a port name given twice), else LR_EXIT_FAILURE. */
int lr_app_cmdline_status(int err);

/** lr_eal_init() for program app, stdout made line-buffered first (what
 *  was printed before an error comes before it in a merged stream): the
 *  arguments it consumed (the program goes on at argv[ret], called
 *  app->name), or -1 with *status set: to
 *  LR_EXIT_OK after -h (the EAL's usage and app->usage printed) or -V
 *  (the version printed), else to lr_app_cmdline_status() after the
 *  message. */
int lr_app_eal_init(const struct lr_app *app, int argc, char **argv,
		    int *status);

/** A program's start: lr_app_eal_init(), then its own options, the
 *  arguments after the EAL's (argv[0] made app->name), read by
 *  parse(argc, argv, opts): 0, above 0 after its --help, below 0 after
 *  a message. Returns 0 to go on, or -1 with the EAL cleaned up (when it
 *  was started) and *status the exit status: LR_EXIT_OK after -h, -V or
 *  the program's --help, LR_EXIT_USAGE after parse's message, else
 *  lr_app_eal_init()'s. */
int lr_app_start(const struct lr_app *app, int argc, char **argv,
		 int (*parse)(int argc, char **argv, void *opts), void *opts,
		 int *status);

/** The getopt_long() loop over a program's own options (in lr_app_start()'s
 *  parse; argv[0] the program's name): optstring, beginning with ':', and
 *  longopts as getopt_long() takes them. -h (or --help, 'h') prints
 *  usage(stdout, argv[0]); an option getopt refuses is said by
 *  lr_app_bad_option(); every other one goes to take(c, optarg, ctx): 0,
 *  or -1 after a message. Returns 0, 1 after -h, or -1 after a message
 *  (also for an argument left after the options). */
int lr_app_getopt(int argc, char **argv, const char *optstring,
		  const struct option *longopts,
		  void (*usage)(FILE *f, const char *prog),
		  int (*take)(int c, const char *arg, void *ctx), void *ctx);

/** One whole-number option of a program's own (lr_app_parse_nums()):
 *  --name (and -c when the table allows short options) read by
 *  lr_app_parse_num() from min to max into *v; with hi, a range read by
 *  lr_app_parse_range() (max at most UINT_MAX) into *v and *hi. */
struct lr_app_num_opt {
	const char *name;
	int c;
	unsigned long min, max;
	unsigned long *v;
	unsigned long *hi;
};

/** The own options of a program that takes whole numbers only: usage,
 *  whether -c is taken beside --name, and the options, ending with a name
 *  NULL (at most LR_APP_NUMS_MAX). */
struct lr_app_nums {
	void (*usage)(FILE *f, const char *prog);
	int short_too;
	const struct lr_app_num_opt *opt;
};

#define LR_APP_NUMS_MAX 8

/** A parse for lr_app_start() with opts a struct lr_app_nums: the options
 *  through lr_app_getopt(), each value into its variable, a bad one named
 *  as it was typed ("prog: --runs '0': expected a number from 1 to 31").
 *  Returns as lr_app_getopt(). */
int lr_app_parse_nums(int argc, char **argv, void *opts);

/** Read s, the value of option opt, as a whole number from min to max
 *  (at most UINT32_MAX; decimal, 0x hex or 0 octal) into *v: 0, or -1
 *  after saying "prog: opt 's': expected a number from min to max" on
 *  stderr. */
int lr_app_parse_num(const char *prog, const char *opt, const char *s,
		     unsigned long min, unsigned long max, unsigned long *v);

/** Read s, the value of option opt, as "N" (*lo = *hi = N) or "MIN-MAX"
 *  (decimal, MIN <= MAX, MAX from low to high) into *lo and *hi: 0, or -1
 *  after saying "prog: opt 's': expected N or MIN-MAX ..." on stderr. */
int lr_app_parse_range(const char *prog, const char *opt, const char *s,
		       unsigned low, unsigned high, unsigned *lo, unsigned *hi);

struct lr_mempool;

/** An elastic mbuf pool mp in one phrase, "N mbufs (elastic MIN-MAX, peak
 *  P), growths G, shrinks S, refused R", into buf (n bytes): 0, or -1 when
 *  mp is not elastic (buf untouched). Reads no lcore cache. */
int lr_app_pool_phrase(const struct lr_mempool *mp, char *buf, size_t n);

/** --xstats of an elastic mbuf pool mp on stdout: "mbuf pool 'NAME'
 *  xstats:", then one "  name: value" line a counter: 0, or -1 when mp is
 *  not elastic (nothing printed). */
int lr_app_pool_xstats(const struct lr_mempool *mp);

/** Say on stderr which option getopt refused: c is what getopt returned
 *  ('?': unknown, ':': its value missing; the optstring begins with ':'),
 *  argv what it was given. Returns LR_EXIT_USAGE. */
int lr_app_bad_option(const char *prog, int c, char *const *argv);

#endif /* LR_APP_H */
