/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DPDK 22.11's /ethdev/ telemetry commands with its reply shapes: list,
 * stats, xstats, link_status and info. A handler reads a port under
 * lr_eth_ctl_lock_ (so a port is not closed under it) and the driver's
 * counters as lr_eth_stats_get() reads them (relaxed loads the polling
 * lcores never wait for); nothing here takes a lock a datapath takes.
 * The port id is parsed as DPDK does: a parameter that does not start
 * with a digit is refused; /ethdev/stats reads it with atoi(), the others
 * with strtoul(, 0), ignoring what follows the number.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "ethdev_private.h"
#include "lr_ethdev.h"
#include "lr_ethdev_driver.h"
#include "lr_mbuf.h"
#include "lr_telemetry.h"

/* DPDK's RTE_ETHDEV_QUEUE_STAT_CNTRS: the length of the q_* arrays. */
#define DPDK_QUEUE_STAT_CNTRS 16
/* DPDK's enum rte_eth_dev_state value of an attached port. */
#define DPDK_DEV_ATTACHED 1

/* The port named by params, parsed as DPDK does; -1 if none. */
static int
port_param(const char *params, bool use_atoi)
{
	unsigned long id;

	if (params == NULL || !isdigit((unsigned char)params[0]))
		return -1;
	id = use_atoi ? (unsigned long)atoi(params) : strtoul(params, NULL, 0);
	if (id >= LR_MAX_ETHPORTS || !lr_eth_dev_is_valid_port((uint16_t)id))
		return -1;
	return (int)id;
}

/* /ethdev/list: every port id. */
static int
port_list(const char *cmd, const char *params, struct lr_tel_data *d)
{
	uint16_t p;

	lr_tel_data_start_array(d, LR_TEL_INT);
	for (p = lr_eth_find_next(0); p < LR_MAX_ETHPORTS;
	     p = lr_eth_find_next((uint16_t)(p + 1)))
		lr_tel_data_add_array_int(d, p);
	return 0;
}

/* name: the first DPDK_QUEUE_STAT_CNTRS per-queue counters (zeros past
 * ours). */
static void
add_queue_stats(struct lr_tel_data *d, const char *name, const uint64_t *q)
{
	struct lr_tel_data *a = lr_tel_data_alloc();

	if (a == NULL)
		return;
	lr_tel_data_start_array(a, LR_TEL_UINT);
	for (unsigned i = 0; i < DPDK_QUEUE_STAT_CNTRS; i++)
		lr_tel_data_add_array_uint(a, i < LR_ETH_QUEUE_STAT_CNTRS ? q[i]
									  : 0);
	if (lr_tel_data_add_dict_container(d, name, a, 0) != 0)
		lr_tel_data_free(a);
}

/* /ethdev/stats,N */
static int
port_stats(const char *cmd, const char *params, struct lr_tel_data *d)
{
	int port = port_param(params, true), rc = -1;
	struct lr_eth_stats s;

	if (port < 0)
		return -1;
	pthread_mutex_lock(&lr_eth_ctl_lock_);
	if (lr_eth_dev_is_valid_port((uint16_t)port))
		rc = lr_eth_stats_get((uint16_t)port, &s);
	pthread_mutex_unlock(&lr_eth_ctl_lock_);
	if (rc < 0)
		return -1;
	lr_tel_data_start_dict(d);
	lr_tel_data_add_dict_uint(d, "ipackets", s.ipackets);
	lr_tel_data_add_dict_uint(d, "opackets", s.opackets);
	lr_tel_data_add_dict_uint(d, "ibytes", s.ibytes);
	lr_tel_data_add_dict_uint(d, "obytes", s.obytes);
	lr_tel_data_add_dict_uint(d, "imissed", s.imissed);
	lr_tel_data_add_dict_uint(d, "ierrors", s.ierrors);
	lr_tel_data_add_dict_uint(d, "oerrors", s.oerrors);
	lr_tel_data_add_dict_uint(d, "rx_nombuf", s.rx_nombuf);
	add_queue_stats(d, "q_ipackets", s.q_ipackets);
	add_queue_stats(d, "q_opackets", s.q_opackets);
	add_queue_stats(d, "q_ibytes", s.q_ibytes);
	add_queue_stats(d, "q_obytes", s.q_obytes);
	add_queue_stats(d, "q_errors", s.q_errors);
	return 0;
}

/* Names and values of port's xstats into d (lr_eth_ctl_lock_ held). */
static int
fill_xstats(uint16_t port, struct lr_tel_data *d)
{
	struct lr_eth_xstat_name *names;
	struct lr_eth_xstat *vals;
	int n = lr_eth_xstats_get(port, NULL, 0), rc = -1;

	if (n < 0)
		return -1;
	names = calloc((size_t)n + 1, sizeof(*names));
	vals = calloc((size_t)n + 1, sizeof(*vals));
	if (names == NULL || vals == NULL)
		goto free_arrays;
	if (lr_eth_xstats_get_names(port, names, (unsigned)n) != n ||
	    lr_eth_xstats_get(port, vals, (unsigned)n) != n)
		goto free_arrays;
	lr_tel_data_start_dict(d);
	for (int i = 0; i < n; i++)
		lr_tel_data_add_dict_uint(d, names[i].name, vals[i].value);
	rc = 0;
free_arrays:
	free(names);
	free(vals);
	return rc;
}

/* /ethdev/xstats,N: name: value, in the port's order. */
static int
port_xstats(const char *cmd, const char *params, struct lr_tel_data *d)
{
	int port = port_param(params, false), rc = -1;

	if (port < 0)
		return -1;
	pthread_mutex_lock(&lr_eth_ctl_lock_);
	if (lr_eth_dev_is_valid_port((uint16_t)port))
		rc = fill_xstats((uint16_t)port, d);
	pthread_mutex_unlock(&lr_eth_ctl_lock_);
	return rc;
}

/* /ethdev/link_status,N: {"status":"DOWN"} or UP with speed and duplex. */
static int
port_link(const char *cmd, const char *params, struct lr_tel_data *d)
{
	int port = port_param(params, false), rc = -1;
	struct lr_eth_link link;

	if (port < 0)
		return -1;
	pthread_mutex_lock(&lr_eth_ctl_lock_);
	if (lr_eth_dev_is_valid_port((uint16_t)port))
		rc = lr_eth_link_get_nowait((uint16_t)port, &link);
	pthread_mutex_unlock(&lr_eth_ctl_lock_);
	if (rc < 0)
		return -1;
	lr_tel_data_start_dict(d);
	if (!link.link_status) {
		lr_tel_data_add_dict_string(d, "status", "DOWN");
		return 0;
	}
	lr_tel_data_add_dict_string(d, "status", "UP");
	lr_tel_data_add_dict_uint(d, "speed", link.link_speed);
	lr_tel_data_add_dict_string(
	    d, "duplex", link.link_duplex ? "full-duplex" : "half-duplex");
	return 0;
}

/* DPDK's min_rx_buf_size: the smallest data room of the rx queues'
 * pools (UINT32_MAX with no queue, as DPDK starts it). */
static uint32_t
rx_buf_size_min(const struct lr_eth_dev_data *data)
{
	uint32_t min = UINT32_MAX;

	for (unsigned q = 0; q < data->nb_rx_queues; q++) {
		struct lr_mempool *mp = data->rx_mempool[q];

		if (mp != NULL && lr_pktmbuf_data_room_size(mp) < min)
			min = lr_pktmbuf_data_room_size(mp);
	}
	return min;
}

/* n queues, each 1 (started) or 0 (stopped), as DPDK's queue states. */
static struct lr_tel_data *
queue_states(unsigned n, int started)
{
	struct lr_tel_data *a = lr_tel_data_alloc();

	if (a == NULL)
		return NULL;
	lr_tel_data_start_array(a, LR_TEL_INT);
	for (unsigned q = 0; q < n; q++)
		lr_tel_data_add_array_int(a, started);
	return a;
}

/* Add container c as name, or free it if it cannot be added. */
static void
add_container(struct lr_tel_data *d, const char *name, struct lr_tel_data *c)
{
	if (c != NULL && lr_tel_data_add_dict_container(d, name, c, 0) != 0)
		lr_tel_data_free(c);
}

/* The fields of /ethdev/info, in DPDK's order (lr_eth_ctl_lock_ held). */
static void
fill_info(const struct lr_eth_dev *dev, struct lr_tel_data *d)
{
	const struct lr_eth_dev_data *x = dev->data;
	const uint8_t *m = x->mac_addr.addr_bytes;
	char mac[18];

	snprintf(mac, sizeof(mac), "%02X:%02X:%02X:%02X:%02X:%02X", m[0], m[1],
		 m[2], m[3], m[4], m[5]);
	lr_tel_data_start_dict(d);
	lr_tel_data_add_dict_string(d, "name", x->name);
	lr_tel_data_add_dict_int(d, "state", DPDK_DEV_ATTACHED);
	lr_tel_data_add_dict_int(d, "nb_rx_queues", x->nb_rx_queues);
	lr_tel_data_add_dict_int(d, "nb_tx_queues", x->nb_tx_queues);
	lr_tel_data_add_dict_int(d, "port_id", x->port_id);
	lr_tel_data_add_dict_int(d, "mtu", x->mtu);
	lr_tel_data_add_dict_uint(d, "rx_mbuf_size_min", rx_buf_size_min(x));
	lr_tel_data_add_dict_string(d, "mac_addr", mac);
	lr_tel_data_add_dict_int(d, "promiscuous", x->promiscuous);
	lr_tel_data_add_dict_int(d, "scattered_rx", 0);
	lr_tel_data_add_dict_int(d, "all_multicast", 0);
	lr_tel_data_add_dict_int(d, "dev_started", x->started);
	lr_tel_data_add_dict_int(d, "lro", 0);
	lr_tel_data_add_dict_int(d, "dev_configured", x->configured);
	add_container(d, "rxq_state",
		      queue_states(x->nb_rx_queues, x->started));
	add_container(d, "txq_state",
		      queue_states(x->nb_tx_queues, x->started));
	lr_tel_data_add_dict_int(d, "numa_node", x->socket_id);
	lr_tel_data_add_dict_uint(d, "dev_flags", 0);
	lr_tel_data_add_dict_uint(d, "rx_offloads", 0);
	lr_tel_data_add_dict_uint(d, "tx_offloads", 0);
	lr_tel_data_add_dict_uint(d, "ethdev_rss_hf", 0);
}

/* /ethdev/info,N */
static int
port_info(const char *cmd, const char *params, struct lr_tel_data *d)
{
	int port = port_param(params, false), rc = -EINVAL;
	const struct lr_eth_dev *dev;

	if (port < 0)
		return -EINVAL;
	pthread_mutex_lock(&lr_eth_ctl_lock_);
	dev = lr_eth_dev_get((uint16_t)port);
	if (dev != NULL) {
		fill_info(dev, d);
		rc = 0;
	}
	pthread_mutex_unlock(&lr_eth_ctl_lock_);
	return rc;
}

static void __attribute__((constructor, used)) ethdev_telemetry_register(void)
{
	lr_telemetry_register(
	    "/ethdev/list", port_list,
	    "Returns list of available ethdev ports. Takes no parameters");
	lr_telemetry_register(
	    "/ethdev/stats", port_stats,
	    "Returns the common stats for a port. Parameters: int port_id");
	lr_telemetry_register(
	    "/ethdev/xstats", port_xstats,
	    "Returns the extended stats for a port. Parameters: int port_id");
	lr_telemetry_register(
	    "/ethdev/link_status", port_link,
	    "Returns the link status for a port. Parameters: int port_id");
	lr_telemetry_register(
	    "/ethdev/info", port_info,
	    "Returns the device info for a port. Parameters: int port_id");
}
