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
 *
 * The answer, one JSON line, is printed as it came, errors too: the
 * server answers {"ok": false, "error": "..."} to a request it refuses (a
 * bad value, a malformed request) and before it closes a connection it
 * does not serve ("permission denied: uid N ...", "busy: 64 clients
 * connected (limit 64)", "timeout: ..."). A raw request is one line of at
 * most 4096 bytes (the server's limit), else refused here.
 *
 * Exit status: 0 when the answer says "ok": true, 1 when it does not (its
 * "error" says why) or no answer came (stderr says why), 2 for bad
 * arguments.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* sun_path, for its size (sizeof does not evaluate it). */
#define SUN_PATH (((struct sockaddr_un *)0)->sun_path)

static int
usage(void)
{
	fprintf(stderr, "usage: lr-pktgen-ctl SOCKET stats | start | stop | "
			"quit | rate pps|mbps|pct N [stream ID|NAME] | "
			"'{\"cmd\": ...}'\n");
	return 2;
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

/* Send req to the socket at path and print the answer: the exit status. */
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
		fprintf(stderr, "lr-pktgen-ctl: '%s': %s\n", path,
			strerror(errno));
		return 1;
	}
	/* A server that refused us may have answered why and closed: the
	 * answer is read even when the request could not go. */
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
		fprintf(stderr, "lr-pktgen-ctl: '%s': cannot send: %s\n", path,
			strerror(send_errno));
		return 1;
	}
	if (got == 0) {
		fprintf(stderr, "lr-pktgen-ctl: '%s': no answer\n", path);
		return 1;
	}
	fputs(resp, stdout);
	return strstr(resp, "\"ok\":true") != NULL ? 0 : 1;
}

int
main(int argc, char **argv)
{
	char req[4096 + 2];

	if (argc < 3 || strlen(argv[1]) >= sizeof(SUN_PATH))
		return usage();
	if (argv[2][0] == '{' && argc == 3) {
		if (strlen(argv[2]) > sizeof(req) - 2 ||
		    strchr(argv[2], '\n') != NULL) {
			fprintf(stderr,
				"lr-pktgen-ctl: a request is one line of at "
				"most %zu bytes\n",
				sizeof(req) - 2);
			return 2;
		}
		snprintf(req, sizeof(req), "%s\n", argv[2]);
	} else if (strcmp(argv[2], "stats") == 0 && argc == 3) {
		snprintf(req, sizeof(req), "{\"cmd\": \"stats\"}\n");
	} else if ((strcmp(argv[2], "stop") == 0 ||
		    strcmp(argv[2], "start") == 0 ||
		    strcmp(argv[2], "quit") == 0) &&
		   argc == 3) {
		snprintf(req, sizeof(req), "{\"cmd\": \"%s\"}\n", argv[2]);
	} else if (strcmp(argv[2], "rate") == 0 &&
		   (argc == 5 ||
		    (argc == 7 && strcmp(argv[5], "stream") == 0)) &&
		   (strcmp(argv[3], "pps") == 0 ||
		    strcmp(argv[3], "mbps") == 0 ||
		    strcmp(argv[3], "pct") == 0)) {
		char *end, stream[96] = "";
		double v = strtod(argv[4], &end);

		if (end == argv[4] || *end) {
			fprintf(stderr,
				"lr-pktgen-ctl: rate '%s': expected a "
				"number\n",
				argv[4]);
			return 2;
		}
		if (argc == 7) {
			char s[72];

			if (stream_json(argv[6], s, sizeof(s)) != 0) {
				fprintf(stderr,
					"lr-pktgen-ctl: stream '%s': expected "
					"an id or a name (1..64 characters, "
					"no quote or backslash)\n",
					argv[6]);
				return 2;
			}
			snprintf(stream, sizeof(stream), ", \"stream\": %s", s);
		}
		snprintf(req, sizeof(req),
			 "{\"cmd\": \"rate\", \"%s\": %.17g%s}\n", argv[3], v,
			 stream);
	} else {
		return usage();
	}
	return ask(argv[1], req);
}
