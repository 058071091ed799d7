/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr-pktgen-ctl: one request to a running lr-pktgen's control socket
 * (--ctl PATH), its answer on stdout.
 *
 *   lr-pktgen-ctl PATH stats
 *   lr-pktgen-ctl PATH start | stop            (the sending)
 *   lr-pktgen-ctl PATH rate pps|mbps|pct N [stream ID|NAME]
 *   lr-pktgen-ctl PATH quit                    (ends the run)
 *   lr-pktgen-ctl PATH '{"cmd": "stats"}'      (a request as it is)
 *   lr-pktgen-ctl -h | --help | -V | --version
 *
 * The answer, one JSON line, is printed as it came, errors too: the
 * server answers {"ok": false, "error": "..."} to a request it refuses (a
 * bad value, a malformed request) and before it closes a connection it
 * does not serve ("permission denied: uid N ...", "busy: 64 clients
 * connected (limit 64)", "timeout: ..."). A raw request is one line of at
 * most 4096 bytes (the server's limit), else refused here.
 *
 * Exit status (lr_app.h): 0 when the answer says "ok": true, 1 when it
 * does not (its "error" says why) or no answer came (stderr says why), 2
 * for bad arguments.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "lr_app.h"

#define PROG "lr-pktgen-ctl"

static void
usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: " PROG " SOCKET stats | start | stop | quit |\n"
	    "                     rate pps|mbps|pct N [stream ID|NAME] |\n"
	    "                     '{\"cmd\": ...}'\n"
	    "       " PROG " -h | --help | -V | --version\n"
	    "One request to the control socket of a running lr-pktgen (its\n"
	    "--ctl SOCKET); the answer, one JSON line, on stdout.\n"
	    "  stats          the run's counters and rates\n"
	    "  start, stop    resume, stop the sending\n"
	    "  quit           end the run\n"
	    "  rate U N       the rate, in pps, mbps or pct (the unit of the\n"
	    "                 run's --rate-*); with stream ID|NAME that\n"
	    "                 stream's own rate\n"
	    "  '{...}'        a request written out (lr-pktgen(1), CONTROL\n"
	    "                 SOCKET)\n"
	    "  -h, --help     this text\n"
	    "  -V, --version  the version, its build and drivers\n");
}

/* A bad command line: what was wrong (NULL: the usage line), on stderr. */
static int
bad_args(const char *what, const char *arg)
{
	if (what != NULL)
		fprintf(stderr, PROG ": %s '%s'\n", what, arg);
	fprintf(stderr, "usage: " PROG " SOCKET stats | start | stop | quit "
			"| rate pps|mbps|pct N [stream ID|NAME] | "
			"'{\"cmd\": ...}' (" PROG " --help)\n");
	return LR_EXIT_USAGE;
}
/* A stream id (digits) as a number, else a name as a JSON string (no
 * quote, backslash or control character in it); into buf. 0 or -1. */
static int
stream_json(const char *s, char *buf, size_t n)
{
	size_t i = 0;

	while (s[i] >= '0' && s[i] <= '9')
		i++;
	if (i > 0 && s[i] == '\0' && i < 10) {
		snprintf(buf, n, "%s", s);
		return 0;
	}
	for (i = 0; s[i]; i++)
		if (s[i] == '"' || s[i] == '\\' || (unsigned char)s[i] < 0x20)
			return -1;
	if (i == 0 || i > 64)
		return -1;
	snprintf(buf, n, "\"%s\"", s);
	return 0;
}

/* The rate request of argv (PATH rate UNIT N [stream S]) into req: 0, or
 * the exit status after a message. */
static int
rate_request(int argc, char **argv, char *req, size_t n)
{
	char *end, stream[96] = "";
	double v;

	if (!(argc == 5 || (argc == 7 && strcmp(argv[5], "stream") == 0)) ||
	    (strcmp(argv[3], "pps") != 0 && strcmp(argv[3], "mbps") != 0 &&
	     strcmp(argv[3], "pct") != 0))
		return bad_args(NULL, NULL);
	v = strtod(argv[4], &end);
	if (end == argv[4] || *end)
		return bad_args("rate: expected a number, not", argv[4]);
	if (argc == 7) {
		char s[72];

		if (stream_json(argv[6], s, sizeof(s)) != 0)
			return bad_args("stream: expected an id or a name "
					"(1..64 characters, no quote or "
					"backslash), not",
					argv[6]);
		snprintf(stream, sizeof(stream), ", \"stream\": %s", s);
	}
	snprintf(req, n, "{\"cmd\": \"rate\", \"%s\": %.17g%s}\n", argv[3], v,
		 stream);
	return 0;
}

/* The request argv asks for into req: 0, or the exit status after a
 * message. */
static int
request(int argc, char **argv, char *req, size_t n)
{
	const char *cmd = argv[2];

	if (argv[2][0] == '{' && argc == 3) {
		/* One line of at most the server's limit, else refused here. */
		if (strlen(argv[2]) > n - 2 || strchr(argv[2], '\n') != NULL) {
			fprintf(stderr,
				PROG ": a request is one line of at most %zu "
				     "bytes\n",
				n - 2);
			return LR_EXIT_USAGE;
		}
		snprintf(req, n, "%s\n", argv[2]);
	} else if (argc == 3 && strcmp(cmd, "stats") == 0)
		snprintf(req, n, "{\"cmd\": \"stats\"}\n");
	else if (argc == 3 &&
		 (strcmp(cmd, "stop") == 0 || strcmp(cmd, "start") == 0 ||
		  strcmp(cmd, "quit") == 0))
		snprintf(req, n, "{\"cmd\": \"%s\"}\n", cmd);
	else if (strcmp(cmd, "rate") == 0 && argc >= 4)
		return rate_request(argc, argv, req, n);
	else if (argc == 3)
		return bad_args("unknown request", cmd);
	else
		return bad_args(NULL, NULL);
	return 0;
}

/* Send req to the socket at path, print the answer: the exit status. */
static int
ask(const char *path, const char *req)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	char resp[65536];
	size_t got = 0;
	int fd, send_errno = 0;

	strcpy(a.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
		fprintf(stderr, PROG ": '%s': %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return LR_EXIT_FAILURE;
	}
	/* A server that refused us may have answered why and closed: the
	 * answer is read even when the request could not go (and a closed
	 * socket is no SIGPIPE). */
	if (send(fd, req, strlen(req), MSG_NOSIGNAL) != (ssize_t)strlen(req))
		send_errno = errno;
	while (got < sizeof(resp) - 1 && memchr(resp, '\n', got) == NULL) {
		ssize_t r = read(fd, resp + got, sizeof(resp) - 1 - got);

		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	resp[got] = '\0';
	if (got == 0 && send_errno != 0) {
		fprintf(stderr, PROG ": '%s': cannot send: %s\n", path,
			strerror(send_errno));
		return LR_EXIT_FAILURE;
	}
	if (got == 0) {
		fprintf(stderr, PROG ": '%s': no answer\n", path);
		return LR_EXIT_FAILURE;
	}
	fputs(resp, stdout);
	return strstr(resp, "\"ok\":true") != NULL ? LR_EXIT_OK
						   : LR_EXIT_FAILURE;
}

int
main(int argc, char **argv)
{
	const char *a1 = argc > 1 ? argv[1] : "";
	char req[4096 + 2];
	int ret;

	if (strcmp(a1, "-h") == 0 || strcmp(a1, "--help") == 0) {
		usage(stdout);
		return LR_EXIT_OK;
	}
	if (strcmp(a1, "-V") == 0 || strcmp(a1, "--version") == 0) {
		lr_app_version_print(PROG, "none (" PROG " opens no port: it "
					   "talks to lr-pktgen's control "
					   "socket)");
		return LR_EXIT_OK;
	}
	/* A socket path beginning with '-' is written ./-x. */
	if (a1[0] == '-') {
		fprintf(stderr,
			PROG ": unknown option '%s' (" PROG
			     " --help lists them)\n",
			a1);
		return LR_EXIT_USAGE;
	}
	if (argc < 3)
		return bad_args(NULL, NULL);
	if (strlen(argv[1]) >= sizeof(((struct sockaddr_un *)0)->sun_path))
		return bad_args("socket path too long:", argv[1]);
	ret = request(argc, argv, req, sizeof(req));
	if (ret != 0)
		return ret;
	return ask(argv[1], req);
}
