/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ctl.c - lr-pktgen's control socket (--ctl PATH): a UNIX stream socket
 * the control thread polls between its ticks (never the datapath). One
 * JSON object a line in, one a line out:
 *
 *   {"cmd": "stats"}              -> {"ok": true, "t": 1.2, "ports": [...],
 *                                     "streams": [...], "state": ...,
 *                                     "l3": [...] (--ip: answers, hops)}
 *   {"cmd": "stop"}               -> {"ok": true, "sending": false}
 *   {"cmd": "start"}              -> {"ok": true, "sending": true}
 *   {"cmd": "rate", "pps": 20000} -> {"ok": true, "rate": 20000}
 *   {"cmd": "rate", "stream": "voice", "pps": 500}
 *   {"cmd": "quit"}               -> {"ok": true}   (the run ends)
 *
 * As in pktgen-dpdk and TRex, "stop" stops the sending (the run goes on:
 * it receives, its statistics stay) and "start" starts it again (a run
 * with --idle waits for the first "start"); "quit" ends the run as a stop
 * signal does. "rate" takes "pps", "mbps" or "pct", the unit the run was
 * started with (--rate-*), and sets the rate the streams without one of
 * their own share; with "stream" (its id, from 0 in the order of the
 * profile, or its name) it sets that stream's own rate ("pps" or "mbps",
 * the unit it has). An error is {"ok": false, "error": "..."}. At most
 * PG_CTL_CONNS clients at once; a request line longer than PG_CTL_LINE
 * bytes closes its connection.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <jansson.h>

#include "pktgen.h"

#define PG_CTL_CONNS 8
#define PG_CTL_LINE  4096
/* The requests, as errors list them. */
#define CMDS "stats, start, stop, rate, quit"

static int lfd = -1;
static const char *lpath;
static struct {
	int fd;
	size_t len;
	char buf[PG_CTL_LINE];
} conn[PG_CTL_CONNS];

int
pg_ctl_open(const char *path)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	struct stat st;

	for (int i = 0; i < PG_CTL_CONNS; i++)
		conn[i].fd = -1;
	if (strlen(path) >= sizeof(a.sun_path)) {
		fprintf(stderr,
			"lr-pktgen: --ctl '%s': longer than %zu bytes\n", path,
			sizeof(a.sun_path) - 1);
		return -1;
	}
	/* A socket left by an earlier run goes; anything else stays. */
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			fprintf(stderr,
				"lr-pktgen: --ctl '%s': exists and is not a "
				"socket\n",
				path);
			return -1;
		}
		unlink(path);
	}
	strcpy(a.sun_path, path);
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    listen(lfd, PG_CTL_CONNS) != 0) {
		fprintf(stderr, "lr-pktgen: --ctl '%s': %s\n", path,
			strerror(errno));
		if (lfd >= 0)
			close(lfd);
		lfd = -1;
		return -1;
	}
	lpath = path;
	return 0;
}

void
pg_ctl_close(void)
{
	for (int i = 0; i < PG_CTL_CONNS; i++)
		if (conn[i].fd >= 0) {
			close(conn[i].fd);
			conn[i].fd = -1;
		}
	if (lfd >= 0) {
		close(lfd);
		unlink(lpath);
		lfd = -1;
	}
}

/* The stream definition a request names in "stream" (an id or a name):
 * its index, -1 when there is no "stream", -2 after writing why into
 * err. */
static int
req_stream(const json_t *req, char *err, size_t n)
{
	const json_t *v = json_object_get(req, "stream");

	if (v == NULL)
		return -1;
	if (json_is_integer(v)) {
		json_int_t k = json_integer_value(v);

		if (k >= 0 && k < (json_int_t)pg.nsdefs)
			return (int)k;
		snprintf(err, n, "rate: no stream %lld (%u streams: 0..%u)",
			 (long long)k, pg.nsdefs, pg.nsdefs - 1);
		return -2;
	}
	if (json_is_string(v)) {
		for (unsigned k = 0; k < pg.nsdefs; k++)
			if (strcmp(pg.sdefs[k].name, json_string_value(v)) == 0)
				return (int)k;
		snprintf(err, n, "rate: no stream named '%.64s'",
			 json_string_value(v));
		return -2;
	}
	snprintf(err, n, "rate: \"stream\" is an id or a name");
	return -2;
}

/* Answer one request line; *quit set by "quit". */
static void
handle(int fd, const char *line, bool *quit)
{
	json_error_t e;
	json_t *req = json_loads(line, 0, &e), *resp = NULL;
	const char *cmd;
	char err[256] = "";
	char *text;

	cmd = json_string_value(json_object_get(req, "cmd"));
	if (req == NULL) {
		snprintf(err, sizeof(err), "not JSON: %s", e.text);
	} else if (cmd == NULL) {
		snprintf(err, sizeof(err), "no \"cmd\" (" CMDS ")");
	} else if (strcmp(cmd, "stats") == 0) {
		resp = pg_ctl_stats();
	} else if (strcmp(cmd, "start") == 0 || strcmp(cmd, "stop") == 0) {
		pg_ctl_set_sending(strcmp(cmd, "start") == 0);
		resp = json_pack("{s:b}", "sending", pg_sending());
	} else if (strcmp(cmd, "quit") == 0) {
		*quit = true;
		resp = json_object();
	} else if (strcmp(cmd, "rate") == 0) {
		static const char *const units[] = {"pps", "mbps", "pct"};
		json_t *v = NULL;
		int u, k = req_stream(req, err, sizeof(err));

		for (u = 0; u < 3; u++)
			if ((v = json_object_get(req, units[u])) != NULL)
				break;
		if (k == -2) {
			/* err says why */
		} else if (v == NULL || !json_is_number(v)) {
			snprintf(err, sizeof(err),
				 "rate: give \"pps\", \"mbps\" or \"pct\" "
				 "with a number");
		} else if (pg_ctl_set_rate(u + 1, json_number_value(v), k, err,
					   sizeof(err)) == 0) {
			resp = json_pack("{s:f}", "rate", json_number_value(v));
		}
	} else {
		snprintf(err, sizeof(err), "unknown cmd '%.64s' (" CMDS ")",
			 cmd);
	}
	if (resp == NULL)
		resp = json_pack("{s:b, s:s}", "ok", 0, "error", err);
	else
		json_object_set_new(resp, "ok", json_true());
	text = json_dumps(resp, JSON_COMPACT | JSON_REAL_PRECISION(10));
	if (text != NULL) {
		size_t n = strlen(text);

		text[n] = '\n';
		if (write(fd, text, n + 1) < 0) {
			/* the client went: its connection closes on read */
		}
		free(text);
	}
	json_decref(resp);
	json_decref(req);
}

bool
pg_ctl_poll(void)
{
	bool quit = false;
	int fd;

	if (lfd < 0)
		return false;
	while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >=
	       0) {
		int i = 0;

		while (i < PG_CTL_CONNS && conn[i].fd >= 0)
			i++;
		if (i == PG_CTL_CONNS) {
			close(fd); /* too many at once */
			continue;
		}
		conn[i].fd = fd;
		conn[i].len = 0;
	}
	for (int i = 0; i < PG_CTL_CONNS; i++) {
		ssize_t r;
		char *nl;

		if (conn[i].fd < 0)
			continue;
		r = read(conn[i].fd, conn[i].buf + conn[i].len,
			 sizeof(conn[i].buf) - 1 - conn[i].len);
		if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
			close(conn[i].fd);
			conn[i].fd = -1;
			continue;
		}
		if (r > 0)
			conn[i].len += (size_t)r;
		conn[i].buf[conn[i].len] = '\0';
		while ((nl = strchr(conn[i].buf, '\n')) != NULL) {
			*nl = '\0';
			handle(conn[i].fd, conn[i].buf, &quit);
			conn[i].len -= (size_t)(nl + 1 - conn[i].buf);
			memmove(conn[i].buf, nl + 1, conn[i].len + 1);
		}
		if (conn[i].len == sizeof(conn[i].buf) - 1) {
			close(conn[i].fd); /* a line too long */
			conn[i].fd = -1;
		}
	}
	return quit;
}
