/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The client side of DPDK's telemetry v2 socket (tel.h): where the socket
 * is, the greeting, one request and its reply at a time.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "tel.h"

/* The greeting is read into this much, as dpdk-telemetry.py does. */
#define GREETING_LEN 1024
/* A peer's max_output_len is believed between these. */
#define MIN_OUTPUT_LEN 64
#define MAX_OUTPUT_LEN (64u << 20)

int
tel_socket_path(const char *prefix, unsigned int instance, char *path, size_t n,
		char *err)
{
	const char *run = getenv("RUNTIME_DIRECTORY");
	int len;

	/* DPDK's EAL (and dpdk-telemetry.py): $RUNTIME_DIRECTORY, else
	 * /var/run for root, else $XDG_RUNTIME_DIR, else /tmp. */
	if (run == NULL || run[0] == '\0') {
		run = getuid() == 0 ? "/var/run" : getenv("XDG_RUNTIME_DIR");
		if (run == NULL || run[0] == '\0')
			run = "/tmp";
	}
	if (instance > 0)
		len = snprintf(path, n, "%s/dpdk/%s/" TEL_SOCKET_NAME ":%u",
			       run, prefix, instance);
	else
		len = snprintf(path, n, "%s/dpdk/%s/" TEL_SOCKET_NAME, run,
			       prefix);
	if (len < 0 || (size_t)len >= n) {
		snprintf(err, TEL_ERR_LEN,
			 "prefix '%s': the socket path '%s/dpdk/%s/...' is "
			 "longer than a Unix socket's %zu bytes",
			 prefix, run, prefix, n - 1);
		return -ENAMETOOLONG;
	}
	return 0;
}

void
tel_close(struct tel_conn *c)
{
	if (c->fd > 0)
		close(c->fd);
	c->fd = -1;
	free(c->buf);
	c->buf = NULL;
}

/* Read one message of at most cap bytes into buf (terminated): its length
 * (which may exceed cap: the message was cut), or a negative errno. */
static long
recv_msg(int fd, char *buf, size_t cap)
{
	ssize_t r;

	do
		r = recv(fd, buf, cap, MSG_TRUNC);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? -ETIMEDOUT
							       : -errno;
	if (r == 0)
		return -ECONNRESET;
	buf[(size_t)r < cap ? (size_t)r : cap] = '\0';
	return r;
}

/* The greeting of c's peer: version, pid and max_output_len. */
static int
read_greeting(struct tel_conn *c, char *err)
{
	char g[GREETING_LEN + 1];
	json_error_t je;
	json_t *j, *mol;
	long r;
	int ret = -EPROTO;

	r = recv_msg(c->fd, g, GREETING_LEN);
	if (r < 0) {
		snprintf(err, TEL_ERR_LEN,
			 "'%s': no greeting from the peer: %s", c->path,
			 strerror((int)-r));
		return (int)r;
	}
	j = json_loads(g, JSON_DECODE_ANY, &je);
	mol = json_object_get(j, "max_output_len");
	if (!json_is_object(j) || !json_is_integer(mol) ||
	    json_integer_value(mol) < MIN_OUTPUT_LEN ||
	    json_integer_value(mol) > MAX_OUTPUT_LEN) {
		snprintf(err, TEL_ERR_LEN,
			 "'%s': the greeting is no telemetry v2 greeting "
			 "(want {\"version\", \"pid\", \"max_output_len\" "
			 "%u..%u}): '%.200s'",
			 c->path, MIN_OUTPUT_LEN, MAX_OUTPUT_LEN, g);
		goto free_json;
	}
	c->max_output_len = (size_t)json_integer_value(mol);
	c->pid = json_integer_value(json_object_get(j, "pid"));
	snprintf(c->version, sizeof(c->version), "%s",
		 json_string_value(json_object_get(j, "version")) ?: "");
	ret = 0;
free_json:
	json_decref(j);
	return ret;
}

int
tel_open(struct tel_conn *c, const char *path, char *err)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	struct timeval tv = {.tv_sec = TEL_TIMEOUT_S};
	int ret;

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	if (strlen(path) >= sizeof(a.sun_path)) {
		snprintf(err, TEL_ERR_LEN,
			 "'%s': longer than a Unix socket "
			 "path's %zu bytes",
			 path, sizeof(a.sun_path) - 1);
		return -ENAMETOOLONG;
	}
	strcpy(a.sun_path, path);
	strcpy(c->path, path);
	c->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (c->fd < 0) {
		ret = -errno;
		snprintf(err, TEL_ERR_LEN, "socket: %s", strerror(errno));
		return ret;
	}
	setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(c->fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
		ret = -errno;
		snprintf(err, TEL_ERR_LEN, "'%s': %s%s", path, strerror(errno),
			 errno == ENOENT ? " (no such prefix, or the process "
					   "runs without telemetry)"
			 : errno == ECONNREFUSED ? " (no process answers: it "
						   "has ended)"
						 : "");
		goto close_fd;
	}
	ret = read_greeting(c, err);
	if (ret != 0)
		goto close_fd;
	c->buf = malloc(c->max_output_len + 1);
	if (c->buf == NULL) {
		ret = -ENOMEM;
		snprintf(err, TEL_ERR_LEN,
			 "'%s': no memory for a reply of "
			 "%zu bytes",
			 path, c->max_output_len);
		goto close_fd;
	}
	return 0;
close_fd:
	tel_close(c);
	return ret;
}

int
tel_check_request(const char *req, char *err)
{
	size_t n = strlen(req), cmd = strcspn(req, ",");

	if (req[0] != '/') {
		snprintf(err, TEL_ERR_LEN,
			 "'%.100s': a command begins with "
			 "'/' ('/' lists them)",
			 req);
		return -EINVAL;
	}
	if (n > TEL_MAX_REQUEST || cmd > TEL_MAX_COMMAND) {
		snprintf(err, TEL_ERR_LEN,
			 "'%.60s...': longer than the server reads (%u bytes "
			 "of request, %u of command)",
			 req, TEL_MAX_REQUEST, TEL_MAX_COMMAND);
		return -EINVAL;
	}
	if (strpbrk(req, "\n\r") != NULL) {
		snprintf(err, TEL_ERR_LEN, "'%.100s': a command is one line",
			 req);
		return -EINVAL;
	}
	return 0;
}

/* Parse c's reply of len bytes to request req into *reply and *value. */
static int
parse_reply(struct tel_conn *c, const char *req, size_t len, json_t **reply,
	    json_t **value, char *err)
{
	size_t cmd = strcspn(req, ",");
	json_error_t je;
	char key[TEL_MAX_COMMAND + 1];

	*reply = json_loadb(c->buf, len, JSON_DECODE_ANY, &je);
	/* A counter past 2^63 (a u64 of DPDK's): read as a double. */
	if (*reply == NULL &&
	    json_error_code(&je) == json_error_numeric_overflow)
		*reply =
		    json_loadb(c->buf, len,
			       JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL, &je);
	if (*reply == NULL && len + 1 >= c->max_output_len) {
		snprintf(err, TEL_ERR_LEN,
			 "'%s': the reply to '%.60s' is cut at the peer's "
			 "max_output_len (%zu bytes)",
			 c->path, req, c->max_output_len);
		return -EMSGSIZE;
	}
	if (*reply == NULL) {
		snprintf(err, TEL_ERR_LEN,
			 "'%s': the reply to '%.60s' is not JSON (%s at byte "
			 "%d): '%.80s'",
			 c->path, req, je.text, je.position, c->buf);
		return -EPROTO;
	}
	snprintf(key, sizeof(key), "%.*s", (int)cmd, req);
	*value = json_object_get(*reply, key);
	if (json_object_size(*reply) != 1 || *value == NULL) {
		snprintf(err, TEL_ERR_LEN,
			 "'%s': the reply to '%.60s' is no telemetry reply "
			 "(want {\"%s\": ...}): '%.80s'",
			 c->path, req, key, c->buf);
		json_decref(*reply);
		*reply = NULL;
		return -EPROTO;
	}
	return 0;
}

int
tel_query(struct tel_conn *c, const char *req, json_t **reply, json_t **value,
	  char *err)
{
	ssize_t w;
	long r;
	int ret;

	*reply = *value = NULL;
	ret = tel_check_request(req, err);
	if (ret != 0)
		return ret;
	do
		w = send(c->fd, req, strlen(req), MSG_NOSIGNAL);
	while (w < 0 && errno == EINTR);
	if (w < 0) {
		ret = -errno;
		snprintf(err, TEL_ERR_LEN, "'%s': cannot send '%.60s': %s",
			 c->path, req, strerror(errno));
		return ret;
	}
	r = recv_msg(c->fd, c->buf, c->max_output_len);
	if (r < 0) {
		snprintf(err, TEL_ERR_LEN, "'%s': no reply to '%.60s': %s",
			 c->path, req,
			 r == -ECONNRESET ? "the peer closed the connection"
					  : strerror((int)-r));
		return (int)r;
	}
	if ((size_t)r > c->max_output_len) {
		snprintf(err, TEL_ERR_LEN,
			 "'%s': the reply to '%.60s' is %ld bytes, longer than "
			 "the peer's max_output_len (%zu): cut",
			 c->path, req, r, c->max_output_len);
		return -EMSGSIZE;
	}
	return parse_reply(c, req, (size_t)r, reply, value, err);
}

char *
tel_dump(const json_t *j, int compact)
{
	return json_dumps(j, JSON_ENCODE_ANY |
				 (compact ? JSON_COMPACT : JSON_INDENT(2)));
}
