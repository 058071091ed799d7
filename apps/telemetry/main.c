/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr-telemetry: a client of the telemetry v2 socket of a running linerate
 * or DPDK process (tel.h), and a Prometheus exporter of its counters.
 *
 *   lr-telemetry [-f PREFIX] [-i N] [-s PATH] [--json] COMMAND...
 *   lr-telemetry [-f PREFIX] [-i N] [-s PATH] [--json]   (commands on stdin;
 *                                             a prompt on a terminal)
 *   lr-telemetry [-f PREFIX] [-i N] [-s PATH] --prometheus [ADDR:]PORT
 *
 * Exit status (lr_app.h): 0 every reply came and none was null; 1 a reply
 * was null (an unknown command or bad parameters), not JSON, cut, or did
 * not come; 2 a usage error, or no process behind the socket (no such
 * prefix, or its process has ended).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lr_app.h"
#include "tel.h"

#define PROG	       "lr-telemetry"
#define DEFAULT_PREFIX "linerate"

struct opts {
	const char *prefix;
	unsigned int instance;
	const char *socket;
	const char *listen; /* --prometheus */
	int json;
	int verbose;
};

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [-f PREFIX] [-i N] [-s PATH] [--json] "
		"[COMMAND...]\n"
		"       " PROG " [-f PREFIX] [-i N] [-s PATH] --prometheus "
		"[ADDR:]PORT\n"
		"       " PROG " -h | --help | -V | --version\n"
		"Queries a running linerate or DPDK process over its telemetry "
		"socket\n"
		"(DPDK's telemetry v2 protocol). Each COMMAND (/ethdev/stats,0)"
		" is sent\n"
		"and its reply printed; without one, commands are read from "
		"stdin, one a\n"
		"line, with a prompt on a terminal ('quit' or end of file ends"
		" it).\n"
		"  -f, --file-prefix PREFIX  the process's --file-prefix "
		"(default " DEFAULT_PREFIX ")\n"
		"  -i, --instance N          its telemetry socket N (a second "
		"socket of the\n"
		"                            prefix: dpdk_telemetry.v2:N)\n"
		"  -s, --socket PATH         the socket at PATH instead\n"
		"  -j, --json                each reply as one compact line "
		"(default:\n"
		"                            indented)\n"
		"  -p, --prometheus [ADDR:]PORT\n"
		"                            serve the process's counters at "
		"GET /metrics\n"
		"                            (Prometheus text format; ADDR "
		"default\n"
		"                            127.0.0.1, [::1] for IPv6, PORT 0:"
		" any free)\n"
		"  -v, --verbose             with --prometheus: a line per "
		"request on stderr\n"
		"  -h, --help                this text\n"
		"  -V, --version             the version and build\n"
		"Exit status: 0 ok, 1 a reply null, not JSON, cut or missing, 2"
		" a usage\n"
		"error or no process behind the socket.\n");
}

/* A usage error: the message, then the pointer to --help. */
static int
bad_usage(const char *what, const char *arg)
{
	fprintf(stderr, PROG ": %s '%s' (" PROG " --help lists the options)\n",
		what, arg);
	return LR_EXIT_USAGE;
}

/* Parse argv into o: -1 to go on at argv[optind], else the exit status. */
static int
parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
	    {"file-prefix", required_argument, NULL, 'f'},
	    {"instance", required_argument, NULL, 'i'},
	    {"socket", required_argument, NULL, 's'},
	    {"json", no_argument, NULL, 'j'},
	    {"prometheus", required_argument, NULL, 'p'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0},
	};
	char *end;
	long v;
	int c;

	/* '+': options stop at the first command. */
	while ((c = getopt_long(argc, argv, "+:f:i:s:jp:vhV", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'f':
			if (optarg[0] == '\0' || strchr(optarg, '/') != NULL)
				return bad_usage("--file-prefix: want a name "
						 "without '/', not",
						 optarg);
			o->prefix = optarg;
			break;
		case 'i':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (end == optarg || *end || v < 0 || v > 65535 ||
			    errno)
				return bad_usage("--instance: want 0..65535, "
						 "not",
						 optarg);
			o->instance = (unsigned int)v;
			break;
		case 's':
			o->socket = optarg;
			break;
		case 'j':
			o->json = 1;
			break;
		case 'p':
			o->listen = optarg;
			break;
		case 'v':
			o->verbose = 1;
			break;
		case 'h':
			usage(stdout);
			return LR_EXIT_OK;
		case 'V':
			lr_app_version_print(PROG, "none (" PROG " opens no "
						   "port: it talks to a "
						   "process's telemetry "
						   "socket)");
			return LR_EXIT_OK;
		default:
			return lr_app_bad_option(PROG, c, argv);
		}
	}
	return -1;
}

/* Print reply as o asks: indented, or one line with --json. */
static void
print_reply(const struct opts *o, const json_t *reply)
{
	char *text = tel_dump(reply, o->json);

	if (text == NULL) {
		fprintf(stderr, PROG ": out of memory printing a reply\n");
		return;
	}
	printf("%s\n", text);
	fflush(stdout);
	free(text);
}

/* Send cmd over c and print its reply: 0, 1 (a null reply, or a reply
 * that did not come right: stderr says why; *lost set when the
 * connection is of no more use). */
static int
run_command(const struct opts *o, struct tel_conn *c, const char *cmd,
	    int *lost)
{
	char err[TEL_ERR_LEN];
	json_t *reply, *value;
	int ret;

	ret = tel_query(c, cmd, &reply, &value, err);
	if (ret != 0) {
		fprintf(stderr, PROG ": %s\n", err);
		*lost = ret != -EINVAL;
		return 1;
	}
	print_reply(o, reply);
	ret = json_is_null(value);
	if (ret)
		fprintf(stderr,
			PROG ": '%s': the reply is null (an unknown command "
			     "or bad parameters: '/' lists the commands, "
			     "'/help,COMMAND' their parameters)\n",
			cmd);
	json_decref(reply);
	return ret;
}

/* Commands from stdin, one a line, with a prompt on a terminal: 0 or 1
 * as run_command() (1 when any failed). */
static int
run_stdin(const struct opts *o, struct tel_conn *c)
{
	int tty = isatty(STDIN_FILENO), failed = 0, lost = 0;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (tty)
		printf("Connected to '%s': %s, pid %lld ('quit' ends)\n",
		       c->path, c->version, c->pid);
	for (;;) {
		if (tty) {
			printf("--> ");
			fflush(stdout);
		}
		n = getline(&line, &cap, stdin);
		if (n < 0)
			break;
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r' ||
				 line[n - 1] == ' '))
			line[--n] = '\0';
		if (n == 0)
			continue;
		if (strcmp(line, "quit") == 0)
			break;
		failed |= run_command(o, c, line, &lost);
		if (lost)
			break;
	}
	if (tty && n < 0)
		printf("\n");
	free(line);
	return failed;
}

int
main(int argc, char **argv)
{
	struct opts o = {.prefix = DEFAULT_PREFIX};
	struct prom_config pc = {0};
	char path[sizeof(pc.sock_path)], err[TEL_ERR_LEN];
	struct tel_conn c;
	int ret, i, failed = 0, lost = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = parse_args(argc, argv, &o);
	if (ret >= 0)
		return ret;
	if (o.socket != NULL)
		ret = snprintf(path, sizeof(path), "%s", o.socket) >=
			      (int)sizeof(path)
			  ? -ENAMETOOLONG
			  : 0;
	else
		ret = tel_socket_path(o.prefix, o.instance, path, sizeof(path),
				      err);
	if (ret != 0)
		return bad_usage("socket path too long:",
				 o.socket ? o.socket : o.prefix);
	if (o.listen != NULL) {
		if (optind < argc)
			return bad_usage("--prometheus takes no command:",
					 argv[optind]);
		if (prom_parse_listen(o.listen, &pc, err) != 0)
			return bad_usage(err, o.listen);
		strcpy(pc.sock_path, path);
		pc.verbose = o.verbose;
		return prom_serve(&pc);
	}
	for (i = optind; i < argc; i++)
		if (tel_check_request(argv[i], err) != 0) {
			fprintf(stderr, PROG ": %s\n", err);
			return LR_EXIT_USAGE;
		}
	ret = tel_open(&c, path, err);
	if (ret != 0) {
		fprintf(stderr, PROG ": %s\n", err);
		return ret == -ENOENT || ret == -ECONNREFUSED ? LR_EXIT_USAGE
							      : LR_EXIT_FAILURE;
	}
	if (optind == argc)
		failed = run_stdin(&o, &c);
	for (i = optind; i < argc && !lost; i++)
		failed |= run_command(&o, &c, argv[i], &lost);
	tel_close(&c);
	return failed ? LR_EXIT_FAILURE : LR_EXIT_OK;
}
