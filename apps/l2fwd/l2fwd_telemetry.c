/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr-l2fwd's telemetry command, /linerate/l2fwd/stats: per port the
 * packets sent, received and dropped, their sums over the ports (keys
 * ..._all_ports_total), and the forwarding
 * rates lr-l2fwd prints (packets sent per second since forwarding began,
 * as its `l2fwd total:` line, and since the previous query, as its
 * periodic `Forwarded Mpps (last N s)` line, but in packets per second:
 * telemetry numbers are integers). The counters are read as the app's
 * own printing reads them, l2fwd_port_totals(): relaxed loads of what each
 * lcore adds to its own counters, no lock, no store on the datapath.
 * The previous query's figures belong to the telemetry thread, which runs
 * one handler at a time.
 */
#include <errno.h>
#include <stdio.h>

#include "l2fwd_telemetry.h"
#include "lr_telemetry.h"

static const struct l2fwd *tel_fwd;
static uint64_t tel_hz, tel_start;
static _Atomic uint64_t tel_stop;  /* 0 while forwarding */
static uint64_t prev_tsc, prev_tx; /* previous query (telemetry thread) */

/* Add "port<N>": {"tx_packets_total", "rx_packets_total",
 * "dropped_packets_total"} for every forwarding port (names as Prometheus
 * wants them: lr-telemetry's exporter types _total as counters), and
 * their sums in *sum. */
static int
add_ports(struct lr_tel_data *d, struct l2fwd_port_stats *sum)
{
	struct l2fwd_port_stats t;
	char key[16];

	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++) {
		struct lr_tel_data *pd;

		if (tel_fwd->dst_port[p] == LR_ETH_PORT_INVALID)
			continue;
		l2fwd_port_totals(tel_fwd, p, &t);
		sum->tx += t.tx;
		sum->rx += t.rx;
		sum->dropped += t.dropped;
		pd = lr_tel_data_alloc();
		if (pd == NULL)
			return -ENOMEM;
		lr_tel_data_start_dict(pd);
		lr_tel_data_add_dict_uint(pd, "tx_packets_total", t.tx);
		lr_tel_data_add_dict_uint(pd, "rx_packets_total", t.rx);
		lr_tel_data_add_dict_uint(pd, "dropped_packets_total",
					  t.dropped);
		snprintf(key, sizeof(key), "port%u", p);
		if (lr_tel_data_add_dict_container(d, key, pd, 0) < 0) {
			lr_tel_data_free(pd);
			return -ENOMEM;
		}
	}
	return 0;
}

/* Packets per second of n packets in cycles TSC cycles (0 for none). */
static uint64_t
rate(uint64_t n, uint64_t cycles)
{
	return cycles ? (uint64_t)((double)n * (double)tel_hz / (double)cycles)
		      : 0;
}

static int
tel_stats(const char *cmd, const char *params, struct lr_tel_data *d)
{
	struct l2fwd_port_stats sum = {0};
	uint64_t stop = atomic_load(&tel_stop);
	uint64_t now = stop ? stop : lr_get_tsc_cycles();

	(void)cmd;
	if (params != NULL || tel_fwd == NULL)
		return -EINVAL;
	lr_tel_data_start_dict(d);
	if (add_ports(d, &sum) < 0)
		return -ENOMEM;
	/* The sums under names of their own: beside the per-port samples
	 * of one family they would count twice in a PromQL sum(). */
	lr_tel_data_add_dict_uint(d, "tx_packets_all_ports_total", sum.tx);
	lr_tel_data_add_dict_uint(d, "rx_packets_all_ports_total", sum.rx);
	lr_tel_data_add_dict_uint(d, "dropped_packets_all_ports_total",
				  sum.dropped);
	lr_tel_data_add_dict_uint(d, "running", stop == 0);
	lr_tel_data_add_dict_uint(d, "elapsed_ms",
				  (now - tel_start) * 1000 / tel_hz);
	lr_tel_data_add_dict_uint(d, "tx_packets_per_second",
				  rate(sum.tx, now - tel_start));
	if (prev_tsc == 0 || prev_tsc > now) {
		prev_tsc = tel_start;
		prev_tx = 0;
	}
	lr_tel_data_add_dict_uint(d, "tx_packets_per_second_last",
				  rate(sum.tx - prev_tx, now - prev_tsc));
	lr_tel_data_add_dict_uint(d, "last_ms",
				  (now - prev_tsc) * 1000 / tel_hz);
	prev_tsc = now;
	prev_tx = sum.tx;
	return 0;
}

int
l2fwd_telemetry_register(const struct l2fwd *fwd, uint64_t start_tsc)
{
	tel_hz = lr_get_tsc_hz();
	tel_start = start_tsc;
	tel_fwd = fwd;
	return lr_telemetry_register(
	    "/linerate/l2fwd/stats", tel_stats,
	    "lr-l2fwd's per-port and total packets and rates. No parameters.");
}

void
l2fwd_telemetry_stopped(uint64_t stop_tsc)
{
	atomic_store(&tel_stop, stop_tsc ? stop_tsc : 1);
}
