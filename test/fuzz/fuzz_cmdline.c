/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_cmdline: the command-line parsers, on an argv made of the input
 * split at its NUL bytes (argv[0] is "fuzz"): the EAL's options
 * (lr_eal_parse_args_(), what lr_eal_init() runs first), then, as the programs
 * do, lr-pktgen's pg_parse_args() and lr-l2fwd's l2fwd_parse_args() on
 * what the EAL left (everything after its `--`, or the whole argv when the
 * EAL refused it). Each parser gets its own copy of argv (getopt permutes
 * it). What a parse accepted is checked against the limits it promises.
 * The EAL's option state and the log levels --log-level changed are put
 * back after every input.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "eal_private.h"
#include "fuzz_common.h"
#include "l2fwd_opts.h"
#include "lr_log.h"
#include "pktgen.h"

#define MAX_ARGS 64

static void
check_eal(int argc, int rc)
{
	FUZZ_CHECK(rc == -EINVAL || rc == -ENOMEM || rc == 0 ||
		   (rc >= 1 && rc <= argc));
	if (rc <= 0) /* 0: -h, usage printed */
		return;
	FUZZ_CHECK(lr_eal_cfg_.main_lcore >= -1 &&
		   lr_eal_cfg_.main_lcore < LR_MAX_LCORE);
	FUZZ_CHECK(lr_eal_cfg_.nb_vdev <= LR_EAL_MAX_VDEV);
	FUZZ_CHECK(strlen(lr_eal_cfg_.file_prefix) <
		   sizeof(lr_eal_cfg_.file_prefix));
	FUZZ_CHECK(strlen(lr_eal_cfg_.huge_dir) < sizeof(lr_eal_cfg_.huge_dir));
	FUZZ_CHECK(!(lr_eal_cfg_.mem_total && lr_eal_cfg_.numa_mem_set));
}

static void
check_pktgen(const struct pg_opts *o)
{
	FUZZ_CHECK(o->burst >= 1 && o->burst <= PG_MAX_BURST);
	FUZZ_CHECK(o->nb_rxd >= 16 && o->nb_rxd <= 16384);
	FUZZ_CHECK(o->nb_txd >= 16 && o->nb_txd <= 16384);
	FUZZ_CHECK(o->queues <= LR_MAX_QUEUES_PER_PORT);
	FUZZ_CHECK(!(o->tx_only && o->rx_only));
	for (int f = 0; f < PG_F_COUNT; f++)
		FUZZ_CHECK(o->f[f].lo <= o->f[f].hi && o->f[f].step >= 1);
	FUZZ_CHECK(o->f[PG_F_SIZE].lo >= PG_MIN_SIZE &&
		   o->f[PG_F_SIZE].hi <= PG_MAX_SIZE);
	FUZZ_CHECK(o->f[PG_F_SRC_PORT].hi <= 65535 &&
		   o->f[PG_F_DST_PORT].hi <= 65535);
	FUZZ_CHECK(o->f[PG_F_SRC_MAC].hi < (1ULL << 48) &&
		   o->f[PG_F_DST_MAC].hi < (1ULL << 48));
	FUZZ_CHECK(o->ipv6 || (o->f[PG_F_SRC_IP].hi <= UINT32_MAX &&
			       o->f[PG_F_DST_IP].hi <= UINT32_MAX));
	FUZZ_CHECK(o->cli.ntags <= PG_MAX_TAGS && o->cli.l4 <= PG_L4_ICMP);
	FUZZ_CHECK(pg_sdef_max_len(&o->cli) <= PG_MAX_SIZE - PG_FCS);
	FUZZ_CHECK(o->profile ||
		   pg_sdef_max_len(&o->cli) + PG_FCS >=
		       pg_sdef_hdr_len(&o->cli) + PG_PAYLOAD_LEN + PG_FCS);
	FUZZ_CHECK(o->ctl_timeout >= 0.01 && o->ctl_timeout <= 86400);
	FUZZ_CHECK(o->ctl_path || (!o->ctl_group && o->ctl_timeout == 5));
}

static void
check_l2fwd(const struct l2fwd_opts *o)
{
	FUZZ_CHECK(o->portmask != 0);
	FUZZ_CHECK(o->nq <= LR_MAX_ETHPORTS && o->period <= 86400);
	FUZZ_CHECK(o->duration >= 0 && o->duration <= 1e6);
	FUZZ_CHECK(o->n_map <= LR_MAX_ETHPORTS);
	for (unsigned i = 0; i < o->n_map; i++)
		FUZZ_CHECK(o->map[i][0] < LR_MAX_ETHPORTS &&
			   o->map[i][1] < LR_MAX_ETHPORTS &&
			   o->map[i][0] != o->map[i][1]);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int saved_levels[LR_LOGTYPE_MAX];
	static int init;
	char *argv[MAX_ARGS + 1], *copy[MAX_ARGS + 1];
	struct l2fwd_opts lo;
	struct pg_opts po;
	char *text, *p;
	int argc = 0, rc, app_first, app_argc, ret;

	if (!init) {
		memcpy(saved_levels, lr_log_levels, sizeof(saved_levels));
		init = 1;
	}
	text = malloc(size + 1);
	if (text == NULL)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	argv[argc++] = "fuzz";
	for (p = text; argc < MAX_ARGS && p <= text + size;
	     p += strlen(p) + 1) {
		if (p == text + size && size > 0 && text[size - 1] == '\0')
			break; /* a trailing NUL ends the last argument */
		if (size == 0)
			break;
		argv[argc++] = p;
	}
	argv[argc] = NULL;

	/* The EAL, as lr_eal_init() calls it. */
	memcpy(copy, argv, sizeof(copy));
	rc = lr_eal_parse_args_(argc, copy);
	check_eal(argc, rc);
	lr_eal_options_reset_();
	memcpy(lr_log_levels, saved_levels, sizeof(saved_levels));

	/* The program's options: what lr_eal_init() leaves, argv[0] moved up
	 * to it, or the whole line. */
	app_first = rc > 0 ? rc - 1 : 0;
	app_argc = argc - app_first;

	memcpy(copy, argv + app_first, (size_t)(app_argc + 1) * sizeof(*copy));
	copy[0] = argv[0];
	ret = pg_parse_args(app_argc, copy, &po);
	FUZZ_CHECK(ret == -1 || ret == 0 || ret == 1);
	if (ret == 0) {
		check_pktgen(&po);
		pg_sdef_fini(&po.cli);
	}

	memcpy(copy, argv + app_first, (size_t)(app_argc + 1) * sizeof(*copy));
	copy[0] = argv[0];
	ret = l2fwd_parse_args(app_argc, copy, &lo);
	FUZZ_CHECK(ret == -1 || ret == 0 || ret == 1);
	if (ret == 0)
		check_l2fwd(&lo);

	free(text);
	return 0;
}
