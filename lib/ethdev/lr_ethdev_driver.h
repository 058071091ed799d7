/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_ethdev_driver.h - the interface between lib/ethdev and poll-mode
 * drivers. Applications use lr_ethdev.h; only drivers include this.
 *
 * A driver is a struct lr_eth_driver registered by name from a constructor
 * (LR_PMD_REGISTER); there is no central list. A port name no registered
 * driver prefixes (net_dpdk0) makes lib/ethdev load the plugin of the
 * driver it names, liblinerate_<name without its trailing digits>.so
 * (lr_eal.h, "Plugins"), whose constructor registers it, and look again.
 * lr_eth_dev_create() picks the driver whose name is the longest prefix
 * of the port name (`net_null` for `net_null0`), checks the devargs keys
 * against drv->keys (an unknown key fails before the driver sees it),
 * reserves a port and calls drv->probe(). Probe reads its settings with
 * the lr_devargs getters, allocates its private state into
 * dev->data->dev_private, sets dev->dev_ops, the MAC address and the burst
 * functions for start to install, and returns 0; on error it frees what it
 * allocated and returns a negative errno, and the port is released.
 *
 * Lifecycle calls into the driver (never concurrently for one port):
 *   probe -> dev_configure -> {rx,tx}_queue_setup... -> dev_start
 *   -> dev_stop -> (setup again / start again) -> dev_close
 * dev_close frees the driver's queues and private data.
 *
 * Burst functions: dev_start() (the driver's) may change dev->rx_pkt_burst /
 * dev->tx_pkt_burst to a variant for the settings in force (for example
 * net_null's copy mode); then lib/ethdev copies them with each queue pointer
 * into lr_eth_fp_ops[port]. One function serves every queue of a port.
 *
 * Counters: keep them in the queue structs, written only by the thread
 * polling that queue, with lr_counter_add() (a relaxed atomic load and
 * store: plain instructions on x86-64 and ppc64le, no locked add, but no
 * torn value or data race for a reader); stats_get sums them with
 * relaxed loads (lr_eth_stats_add_queue(), lr_counter_read()).
 * lib/ethdev implements reset by snapshot, so drivers never write counters
 * from another thread. For the snapshot to hold, a driver's counters never
 * go down while the port exists: keep them in storage per queue index that
 * outlives a queue being set up again (net_null and net_ring embed their
 * queue structs in the port's private data). A struct lr_eth_queue_counters
 * per queue and direction, summed by lr_eth_stats_add_queue(), makes
 * stats_get a loop over the queues. Extended stats: a table of names in
 * the ops (lib/ethdev answers for the names) and xstats_get summing the
 * values in that order, returned through lr_eth_xstats_values_fill().
 */
#ifndef LR_ETHDEV_DRIVER_H
#define LR_ETHDEV_DRIVER_H

#include "lr_devargs.h"
#include "lr_errno.h"
#include "lr_ethdev.h"
#include "lr_lcore.h"
#include "lr_log.h"

#include "lr_common.h"

LR_BEGIN_DECLS

struct lr_eth_dev;

/** Operations of a driver; NULL entries mean "not supported" unless said. */
struct lr_eth_dev_ops {
	/** Accept the queue counts in dev->data (NULL: accept). */
	int (*dev_configure)(struct lr_eth_dev *dev);
	/** Prepare the queues for polling; may pick burst variants. */
	int (*dev_start)(struct lr_eth_dev *dev);
	/** Stop the device (no burst call runs any more). */
	int (*dev_stop)(struct lr_eth_dev *dev);
	/** Release queues and private data. */
	int (*dev_close)(struct lr_eth_dev *dev);
	/** Fill limits (lib/ethdev prefilled defaults and driver_name). */
	int (*dev_infos_get)(struct lr_eth_dev *dev,
			     struct lr_eth_dev_info *info);
	/** Create rx queue q; store it in dev->data->rx_queues[q]. */
	int (*rx_queue_setup)(struct lr_eth_dev *dev, uint16_t q,
			      uint16_t nb_desc, int socket_id,
			      const struct lr_eth_rxconf *conf,
			      struct lr_mempool *mp);
	/** Create tx queue q; store it in dev->data->tx_queues[q]. */
	int (*tx_queue_setup)(struct lr_eth_dev *dev, uint16_t q,
			      uint16_t nb_desc, int socket_id,
			      const struct lr_eth_txconf *conf);
	/** Free rx queue q (called before a new setup of q and at close). */
	void (*rx_queue_release)(struct lr_eth_dev *dev, uint16_t q);
	/** Free tx queue q. */
	void (*tx_queue_release)(struct lr_eth_dev *dev, uint16_t q);
	/** Refresh dev->data->link (NULL: link follows started state). */
	int (*link_update)(struct lr_eth_dev *dev, int wait);
	/** Promiscuous on/off (NULL: lib/ethdev just records the flag). */
	int (*promiscuous_enable)(struct lr_eth_dev *dev);
	int (*promiscuous_disable)(struct lr_eth_dev *dev);
	/** Set the MAC address (NULL: lib/ethdev just records it). */
	int (*mac_addr_set)(struct lr_eth_dev *dev,
			    const struct lr_ether_addr *mac);
	/** Set the MTU (NULL: lib/ethdev just records it within limits). */
	int (*mtu_set)(struct lr_eth_dev *dev, uint16_t mtu);
	/** Sum the queues' counters into *stats (zeroed by the caller). */
	int (*stats_get)(struct lr_eth_dev *dev, struct lr_eth_stats *stats);
	/** Names of the driver's extended stats when they are known only at
	 *  run time; returns the total count (fill at most n). NULL: the
	 *  table xstat_names below. */
	int (*xstats_get_names)(struct lr_eth_dev *dev,
				struct lr_eth_xstat_name *names, unsigned n);
	/** Values in the order of the names; returns the total count (NULL:
	 *  no extended stats). */
	int (*xstats_get)(struct lr_eth_dev *dev, uint64_t *values, unsigned n);
	/** The names of the extended stats, nb_xstat_names of them. */
	const char *const *xstat_names;
	unsigned nb_xstat_names;
};

/** Software counters of one queue in one direction, written with
 *  lr_counter_add() by the thread polling it. Rx: packets, bytes, errors
 *  (ierrors), nombuf (rx_nombuf), missed (imissed); tx: packets, bytes,
 *  errors (oerrors). */
struct lr_eth_queue_counters {
	uint64_t packets;
	uint64_t bytes;
	uint64_t errors;
	uint64_t nombuf; /**< rx: packets not received for want of mbufs */
	uint64_t missed; /**< rx: dropped before the driver saw them */
};

/** Add queue q's rx and tx counters to *s: the totals, and for
 *  q < LR_ETH_QUEUE_STAT_CNTRS the per-queue fields (q_errors = rx errors
 *  + tx errors). Each counter is read once. */
void lr_eth_stats_add_queue(struct lr_eth_stats *s, unsigned q,
			    const struct lr_eth_queue_counters *rx,
			    const struct lr_eth_queue_counters *tx);

/** xstats_get from count summed values v: copy at most n of them into
 *  values (may be NULL); returns count. */
int lr_eth_xstats_values_fill(uint64_t *values, unsigned n, const uint64_t *v,
			      unsigned count);

/** Port states. */
enum lr_eth_dev_state {
	LR_ETH_DEV_UNUSED = 0, /**< free port id */
	LR_ETH_DEV_PROBING,    /**< reserved, driver probing */
	LR_ETH_DEV_ATTACHED,   /**< exists (configured or not) */
};

/** State of a port shared between lib/ethdev and its driver. */
struct lr_eth_dev_data {
	char name[LR_ETH_NAME_MAX_LEN];
	uint16_t port_id;
	uint16_t nb_rx_queues;
	uint16_t nb_tx_queues;
	uint16_t mtu;
	int socket_id;
	uint8_t configured;
	uint8_t started;
	uint8_t promiscuous;
	struct lr_ether_addr mac_addr;
	struct lr_eth_link link;
	struct lr_eth_conf conf;
	void *rx_queues[LR_MAX_QUEUES_PER_PORT];
	void *tx_queues[LR_MAX_QUEUES_PER_PORT];
	struct lr_mempool *rx_mempool[LR_MAX_QUEUES_PER_PORT];
	void *dev_private;
};

/** A port as lib/ethdev and drivers see it. */
struct lr_eth_dev {
	lr_eth_rx_burst_t rx_pkt_burst; /**< installed at start */
	lr_eth_tx_burst_t tx_pkt_burst; /**< installed at start */
	const struct lr_eth_dev_ops *dev_ops;
	const struct lr_eth_driver *driver;
	enum lr_eth_dev_state state;
	struct lr_eth_dev_data data_store;
	struct lr_eth_dev_data *data;	/**< == &data_store */
	struct lr_eth_stats stats_base; /**< snapshot of the last reset */
	uint64_t *xstats_base;		/**< driver xstats at the last reset */
	unsigned nb_xstats_base;
};

/** A driver: its name, the devargs keys it accepts, its probe. */
struct lr_eth_driver {
	const char *name;	 /**< "net_null"; set by LR_PMD_REGISTER */
	const char *const *keys; /**< NULL-terminated valid keys, or NULL */
	const char *usage;	 /**< one line, e.g. "size=<n> copy=<0|1>" */
	/** NULL-terminated keys that may be given bare (`persist` reads as
	 *  `persist=1`), or NULL. */
	const char *const *flag_keys;
	/** Create the port's private state from args (keys already checked). */
	int (*probe)(struct lr_eth_dev *dev, const struct lr_devargs *args);
	struct lr_eth_driver *next; /**< registry link (lib/ethdev's) */
};

/** Add a driver to the registry (from a constructor); one with the name
 *  of a registered driver is left out, with a warning. */
void lr_eth_driver_register(struct lr_eth_driver *drv);

/** Find a registered driver by exact name, or NULL. */
const struct lr_eth_driver *lr_eth_driver_find(const char *name);

/** Register driver variable drv under the name nm (an identifier). */
#define LR_PMD_REGISTER(nm, drv)                                               \
	static void __attribute__((constructor, used))                         \
	lr_pmd_register_##nm(void)                                             \
	{                                                                      \
		(drv).name = LR_STR(nm);                                       \
		lr_eth_driver_register(&(drv));                                \
	}

/** Reserve a port named name for driver drv without devargs (for driver
 *  APIs such as lr_eth_from_rings()); the port, or NULL with lr_errno
 *  (EEXIST, ENOSPC). Finish with lr_eth_dev_probing_finish() or give it
 *  back with lr_eth_dev_release_port(). */
struct lr_eth_dev *lr_eth_dev_allocate(const char *name,
				       const struct lr_eth_driver *drv);

/** Make a reserved port visible (state ATTACHED). */
void lr_eth_dev_probing_finish(struct lr_eth_dev *dev);

/** Give back a reserved port whose probe failed (private data already freed).
 */
void lr_eth_dev_release_port(struct lr_eth_dev *dev);

/** The port with this id if it exists, else NULL. */
struct lr_eth_dev *lr_eth_dev_get(uint16_t port_id);

/** A locally administered MAC address derived from a port id and a seed. */
void lr_eth_random_mac(struct lr_ether_addr *mac, uint16_t port_id,
		       uint32_t seed);

LR_END_DECLS

#endif /* LR_ETHDEV_DRIVER_H */
