/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr-pktgen: a traffic generator over linerate ports.
 *
 *   lr-pktgen [EAL options] -- [options]      (see --help)
 *
 * This file wires the run together; each concern has its file:
 *
 *   options.c       the command line; profile.c --profile's streams
 *   setup.c         ports, lcores, queues, mbuf pools, stream instances,
 *                   links, L3 mode (l3.c)
 *   stream.c        a stream's template and field engine, pcap files
 *   datapath.c      the lcores' loop: build, pace, send, receive, count
 *   live.c          the control thread while the run goes on: the lines
 *                   of each second, the end of the sending, the drain
 *   screen.c        the live screen on a terminal, the control messages
 *   ctl.c           the control socket; ctl_handlers.c what its commands
 *                   do to the run
 *   report.c        the summary, the --json document, the final line
 *   rfc2544*.c      the RFC 2544 tests, trial.c one trial of them
 *
 * main(): the EAL and the options, then the setup (what the command line
 * names, then the pools, ports, streams and links, then the outputs:
 * control socket, --stats-json, --capture), the run (or the RFC 2544
 * search), the ports closed and the pools checked, the report, and
 * everything freed.
 *
 * Exit status (lr_app.h): 0 done; 1 a run-time failure (a pool, a port
 * that does not start or whose link stays down, the control socket or an
 * output file, mbufs not back in the pool at exit); 2 a usage error (an
 * option, --vdev devargs or driver, ports or queues the options name that
 * are not there, a --profile or --pcap file that is missing or invalid).
 * A start-up failure is the last thing printed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <unistd.h>

#include "lr_app.h"
#include "lr_eal.h"
#include "lr_ethdev.h"
#include "lr_mbuf.h"
#include "pktgen.h"

struct pg_run pg;
struct pg_app pg_app;

/* --ctl, --stats-json, --capture: 0 or -1 after a message. */
static int
setup_outputs(const struct pg_opts *o)
{
	if (o->ctl_path) {
		if (pg_ctl_open(o) != 0)
			return -1;
		printf("lr-pktgen: control socket %s\n", o->ctl_path);
		fflush(stdout);
	}
	if (o->stats_json_file && pg_stats_json_open(o) != 0)
		return -1;
	if (o->capture_file) {
		if (pg_capture_open(o->capture_file, o->capture_mode) != 0)
			return -1;
		pg.capture = true;
	}
	return 0;
}

/* Say what runs (unless --quiet) and set the screen up: 0 or -1 after a
 * message. */
static int
announce(const struct pg_opts *o)
{
	if (!o->quiet && !o->rfc2544)
		pg_describe_run(o);
	if (o->stats_period > 0) {
		printf("stats period_s=%g tsc_hz=%llu\n", o->stats_period,
		       (unsigned long long)pg.hz);
		fflush(stdout);
	}
	if (o->idle) {
		atomic_store(&pg.paused, 1);
		if (!o->quiet) {
			printf("lr-pktgen: idle: sending starts with a "
			       "\"start\" request on %s\n",
			       o->ctl_path);
			fflush(stdout);
		}
	}
	return pg_screen_start(o);
}

/* Send and receive until the run ends (count, duration, signal, "quit"),
 * then drain: every mbuf back, the ports' own counters read. */
static void
run(const struct pg_opts *o)
{
	pg_run_lcores();
	if (pg_screen_on())
		pg_screen_final();
	else if (!o->quiet && pg_app.t_stop - pg_app.last_print > pg.hz / 4)
		pg_print_live(pg_app.t_stop);
	/* The ports' own view of the run, before draining adds to it. */
	if (o->xstats) {
		for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++)
			if (pg_app.ports[p].used)
				lr_eth_dev_dump(stdout, p);
		pg_print_pool_xstats();
	}
	/* Stop: every mbuf back, ports closed, then the figures. */
	pg_drain_ports();
	for (unsigned i = 0; i < pg_app.ntxqs; i++)
		pg_txq_release(pg_app.txqs[i]);
	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++)
		if (pg_app.ports[p].used)
			lr_eth_stats_get(p, &pg_app.ports[p].stats);
}

/* Mbufs not back at exit: in the shared pool, the queues' own pools, the
 * receive pool. */
static unsigned pool_leaked, tx_leaked, rx_leaked;

/* Pool mp (NULL: none) at exit, named name: *n its mbufs not back; 0 when
 * they all are and its accounting holds, else -1 after a message. */
static int
pool_check(struct lr_mempool *mp, const char *name, unsigned *n)
{
	*n = mp != NULL ? lr_mempool_in_use_count(mp) : 0;
	if (mp == NULL)
		return 0;
	if (*n != 0)
		return pg_fail("%u mbufs not back in pool '%s' at exit", *n,
			       name);
	if (lr_mempool_validate(mp) != 0)
		return pg_fail("pool '%s' fails validation at exit", name);
	return 0;
}

/* Close the ports, the control socket and the capture file; check the
 * pools: 0, or -1 after a message. */
static int
close_all(void)
{
	int ret = 0;

	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++)
		if (lr_eth_dev_is_valid_port(p))
			lr_eth_dev_close(p);
	pg_ctl_close();
	if (pg_capture_close() != 0)
		ret = -1;
	if (pool_check(pg.pool, "pktgen_pool", &pool_leaked) != 0)
		ret = -1;
	if (pg_tx_pools_fini(&tx_leaked) != 0)
		ret = -1;
	if (pool_check(pg.rx_pool, "pktgen_rx_pool", &rx_leaked) != 0)
		ret = -1;
	return ret;
}

/* Free what the run held: 0, or -1 after a message when --stats-json's
 * file cannot be closed. */
static int
free_all(const struct pg_opts *o)
{
	int ret = 0;

	pg_telemetry_fini();
	for (unsigned i = 0; i < pg_app.ntxqs; i++) {
		pg_stream_fini(pg_app.txqs[i]);
		free(pg_app.txqs[i]);
	}
	for (unsigned i = 0; i < pg_app.n_dp; i++) {
		free(pg_dp_lcore(i)->slat);
		free(pg_dp_lcore(i)->win);
		free(pg_dp_lcore(i)->snap);
		free(pg_dp_lcore(i)->snap_lat);
		free(pg_dp_lcore(i));
	}
	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++)
		free(pg_app.ports[p].cnt);
	pg_pcap_free(pg_app.pcap_tmpl, pg_app.pcap_n);
	for (unsigned k = 0; k < pg.nsdefs; k++)
		pg_sdef_fini(&pg.sdefs[k]);
	if (pg.sdefs != &o->cli)
		free(pg.sdefs);
	free(pg.inst_sdef);
	pg_screen_free();
	pg_l3_fini();
	if (pg_stats_json_close(o) != 0)
		ret = -1;
	if (pg_json_close(o) != 0)
		ret = -1;
	if (pg.pool && !pool_leaked)
		lr_mempool_free(pg.pool);
	if (pg.rx_pool && !rx_leaked)
		lr_mempool_free(pg.rx_pool);
	return ret;
}

int
main(int argc, char **argv)
{
	static const struct lr_app app = {"lr-pktgen", pg_usage};
	struct pg_opts *o = &pg.o;
	unsigned max_len = 0;
	int ret, status;

	/* Before anything is taken: every stop signal (INT, TERM, HUP, PIPE,
	 * QUIT, USR1, USR2) ends in the clean exit below, during EAL init and
	 * setup too; control_loop() polls it (lr_eal.h). */
	ret = lr_eal_stop_handler_install(NULL);
	if (ret < 0) {
		pg_fail("cannot handle stop signals: %s", lr_strerror(-ret));
		return LR_EXIT_FAILURE;
	}
	ret = lr_app_eal_init(&app, argc, argv, &status);
	if (ret < 0)
		return status;
	ret = pg_parse_args(argc - ret, argv + ret, o);
	if (ret != 0) { /* 1: --help, usage printed */
		lr_eal_cleanup();
		return ret > 0 ? LR_EXIT_OK : LR_EXIT_USAGE;
	}
	if (o->json && pg_json_open(o) != 0) {
		lr_eal_cleanup();
		return LR_EXIT_FAILURE;
	}
	pg.hz = lr_get_tsc_hz();
	/* The run's identity in every stamp. */
	if (getrandom(&pg.run_id, sizeof(pg.run_id), 0) !=
	    (ssize_t)sizeof(pg.run_id))
		pg.run_id =
		    (uint32_t)(lr_get_tsc_cycles() ^ (uint64_t)getpid() << 16);
	status = pg_setup_inputs(o, &max_len);
	if (status == 0 && (pg_setup_run(o, max_len) != 0 ||
			    setup_outputs(o) != 0 || announce(o) != 0))
		status = LR_EXIT_FAILURE;
	/* A failed registration costs the command only (said here). */
	if (status == 0 && !o->rfc2544 && (ret = pg_telemetry_init()) < 0)
		pg_fail("/linerate/pktgen/stats: cannot register: %s",
			lr_strerror(-ret));
	if (status == 0 && o->rfc2544)
		status = pg_rfc2544_run();
	else if (status == 0)
		run(o);
	if (close_all() != 0 && status == 0)
		status = LR_EXIT_FAILURE;
	if (pg.go && !o->rfc2544) {
		if (pg_report(o, pool_leaked + tx_leaked + rx_leaked) != 0 &&
		    status == 0)
			status = LR_EXIT_FAILURE;
	} else if (!pg.go && status == 0) {
		status = LR_EXIT_FAILURE;
	}
	if (free_all(o) != 0 && status == 0)
		status = LR_EXIT_FAILURE;
	lr_eal_cleanup();
	return status;
}
