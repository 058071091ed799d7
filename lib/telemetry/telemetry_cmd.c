/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The command table, the built-in commands (/, /info, /help) and one
 * request answered as DPDK 22.11's telemetry answers it: the request
 * parser lives here, apart from the socket, so that the fuzz target and
 * the unit tests drive exactly what the server runs.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "telemetry_private.h"

struct command {
	char name[LR_TELEMETRY_MAX_CMD_LEN];
	lr_telemetry_cb fn;
	char help[LR_TEL_MAX_STRING_LEN];
};

/* Sorted by name (strcmp), as DPDK keeps them: "/" lists them so. */
static struct command *commands;
static pthread_once_t builtins_once = PTHREAD_ONCE_INIT;
static unsigned nb_commands;
static pthread_mutex_t commands_lock = PTHREAD_MUTEX_INITIALIZER;

/* A command is '/' then [A-Za-z0-9_/], shorter than the maximum. */
static bool
valid_command(const char *cmd)
{
	if (cmd == NULL || cmd[0] != '/' ||
	    strlen(cmd) >= LR_TELEMETRY_MAX_CMD_LEN)
		return false;
	for (; *cmd != '\0'; cmd++) {
		char c = *cmd;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '/'))
			return false;
	}
	return true;
}

/* Where cmd is or would go in the table; *found when it is there. */
static unsigned
find(const char *cmd, bool *found)
{
	unsigned lo = 0, hi = nb_commands;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;
		int c = strcmp(cmd, commands[mid].name);

		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	*found = false;
	return lo;
}

/* Insert at i (commands_lock held); 0 or -ENOMEM. */
static int
insert(unsigned i, const char *cmd, lr_telemetry_cb fn, const char *help)
{
	struct command *t;

	t = realloc(commands, sizeof(*t) * (nb_commands + 1));
	if (t == NULL)
		return -ENOMEM;
	commands = t;
	memmove(&t[i + 1], &t[i], sizeof(*t) * (nb_commands - i));
	strcpy(t[i].name, cmd);
	t[i].fn = fn;
	strcpy(t[i].help, help);
	nb_commands++;
	return 0;
}

int
lr_telemetry_register(const char *cmd, lr_telemetry_cb fn, const char *help)
{
	bool found;
	unsigned i;
	int rc = 0;

	if (!valid_command(cmd) || fn == NULL || help == NULL ||
	    strlen(help) >= LR_TEL_MAX_STRING_LEN)
		return -EINVAL;
	pthread_mutex_lock(&commands_lock);
	i = find(cmd, &found);
	if (found)
		rc = commands[i].fn == fn ? 0 : -EEXIST;
	else
		rc = insert(i, cmd, fn, help);
	pthread_mutex_unlock(&commands_lock);
	return rc;
}

lr_telemetry_cb
lr_telemetry_lookup_(const char *cmd)
{
	lr_telemetry_cb fn = NULL;
	bool found;
	unsigned i;

	pthread_mutex_lock(&commands_lock);
	i = find(cmd, &found);
	if (found)
		fn = commands[i].fn;
	pthread_mutex_unlock(&commands_lock);
	return fn;
}

/* "/": every command, sorted. */
static int
list_commands(const char *cmd, const char *params, struct lr_tel_data *d)
{
	lr_tel_data_start_array(d, LR_TEL_STRING);
	pthread_mutex_lock(&commands_lock);
	for (unsigned i = 0; i < nb_commands; i++)
		lr_tel_data_add_array_string(d, commands[i].name);
	pthread_mutex_unlock(&commands_lock);
	return 0;
}

/* "/info": what the greeting says. */
static int
info(const char *cmd, const char *params, struct lr_tel_data *d)
{
	lr_tel_data_start_dict(d);
	lr_tel_data_add_dict_string(d, "version", LR_TELEMETRY_VERSION);
	lr_tel_data_add_dict_int(d, "pid", getpid());
	lr_tel_data_add_dict_int(d, "max_output_len",
				 LR_TELEMETRY_MAX_OUTPUT_LEN);
	return 0;
}

/* "/help,CMD": {"CMD": help} ; "/help" alone: its own help as a string;
 * a command that is not registered: null. */
static int
help(const char *cmd, const char *params, struct lr_tel_data *d)
{
	const char *key = params != NULL ? params : cmd;
	char text[LR_TEL_MAX_STRING_LEN];
	bool found;
	unsigned i;

	lr_tel_data_start_dict(d);
	pthread_mutex_lock(&commands_lock);
	i = find(key, &found);
	if (found)
		strcpy(text, commands[i].help);
	pthread_mutex_unlock(&commands_lock);
	if (!found)
		return -1;
	if (params == NULL)
		lr_tel_data_string(d, text);
	else
		lr_tel_data_add_dict_string(d, params, text);
	return 0;
}

static void
register_builtins(void)
{
	lr_telemetry_register(
	    "/", list_commands,
	    "Returns list of available commands, Takes no parameters");
	lr_telemetry_register(
	    "/info", info,
	    "Returns DPDK Telemetry information. Takes no parameters");
	lr_telemetry_register(
	    "/help", help,
	    "Returns help text for a command. Parameters: string command");
}

void
lr_telemetry_builtins_(void)
{
	pthread_once(&builtins_once, register_builtins);
}

/* A command nobody registered: its reply is {"cmd":null}. */
static int
unknown(const char *cmd, const char *params, struct lr_tel_data *d)
{
	return 0;
}

/*
 * Split a NUL-terminated request in place as DPDK does with strtok():
 * commas before the command are skipped; the command ends at the next
 * comma (or the end); the parameters are everything after that comma, or
 * NULL when nothing follows it. *cmd is NULL when only commas were sent.
 */
static void
parse_request(char *req, const char **cmd, const char **params)
{
	char *comma;

	*cmd = NULL;
	*params = NULL;
	req += strspn(req, ",");
	if (*req == '\0')
		return;
	*cmd = req;
	comma = strchr(req, ',');
	if (comma == NULL)
		return;
	*comma = '\0';
	if (comma[1] != '\0')
		*params = comma + 1;
}

/* {"cmd":null} for a handler that failed, cmd cut as DPDK cuts it. */
static int
null_reply(const char *cmd, char *out, size_t out_len)
{
	struct lr_tel_data d = {.kind = TEL_NULL};

	return lr_tel_data_to_json(&d, cmd, out, out_len);
}

int
lr_telemetry_answer(const char *req, size_t len, char *out, size_t out_len)
{
	char buf[LR_TELEMETRY_MAX_REQUEST_LEN + 1];
	const char *cmd, *params;
	lr_telemetry_cb fn = unknown;
	struct lr_tel_data *d;
	int rc;

	if ((req == NULL && len > 0) || out == NULL ||
	    out_len < LR_TELEMETRY_MAX_OUTPUT_LEN)
		return -EINVAL;
	if (len == 0)
		return 0;
	if (len > LR_TELEMETRY_MAX_REQUEST_LEN)
		len = LR_TELEMETRY_MAX_REQUEST_LEN;
	memcpy(buf, req, len);
	buf[len] = '\0';
	lr_telemetry_builtins_();
	parse_request(buf, &cmd, &params);
	if (cmd != NULL && strlen(cmd) < LR_TELEMETRY_MAX_CMD_LEN) {
		lr_telemetry_cb f = lr_telemetry_lookup_(cmd);

		if (f != NULL)
			fn = f;
	}
	d = lr_tel_data_alloc();
	if (d == NULL)
		return -ENOMEM;
	if (fn(cmd, params, d) < 0)
		rc = null_reply(cmd != NULL ? cmd : "none", out, out_len);
	else
		rc = lr_tel_data_to_json(d, cmd, out, out_len);
	lr_tel_data_free(d);
	return rc;
}
