/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_ethdev.h - ports: devices with receive and transmit queues, polled in
 * bursts of mbuf pointers by poll-mode drivers (PMDs).
 *
 * A port is created from a devargs string (`net_null0,size=64`, see
 * lr_devargs.h) by the driver whose name prefixes the port name, then
 * configured (queue counts), given queues, started, polled, stopped and
 * closed:
 *
 *   port = lr_eth_dev_create("net_null0");      (or --vdev + probe_eal_vdevs)
 *   lr_eth_dev_configure(port, 1, 1, NULL);
 *   lr_eth_rx_queue_setup(port, 0, 1024, socket, NULL, pool);
 *   lr_eth_tx_queue_setup(port, 0, 1024, socket, NULL);
 *   lr_eth_dev_start(port);
 *   n = lr_eth_rx_burst(port, 0, pkts, 32); ... lr_eth_tx_burst(...);
 *   lr_eth_dev_stop(port); lr_eth_dev_close(port);
 *
 * Port ids are small integers handed out lowest-free first, so ports created
 * in order are numbered 0, 1, 2, ...; closing a port frees its id.
 *
 * Threading: control functions (everything except the burst functions) for
 * one port are called from one thread at a time; creation and close are
 * serialised internally. A queue is polled by one thread at a time (one
 * writer per queue: drivers keep their counters in the queue, without
 * atomics). Stats may be read from any thread while queues are polled.
 *
 * Hot path: lr_eth_rx_burst()/lr_eth_tx_burst() are inline: two bounds
 * checks, one load of {function, queue} from lr_eth_fp_ops (one cache line
 * per 4 queues) and one indirect call per burst, never per packet. The
 * function is chosen when the port starts; a port that is not started has
 * functions that return 0.
 *
 * Error model: creators return a port id or a negative errno; burst
 * functions return a count; everything else returns 0 or a negative errno
 * after logging what was wrong. Any function given a port that does not
 * exist returns -ENODEV and logs `port 7: no such port`.
 *
 * Invariants (checked by lr_eth_dev_validate()):
 *   lr_eth_dev_count_avail() == number of ports whose state != UNUSED
 *   a started port: every queue below nb_rx_queues/nb_tx_queues is set up
 *     and lr_eth_fp_ops[port] holds the driver's functions for them
 *   a port that is not started: lr_eth_fp_ops[port] holds only the
 *     do-nothing functions
 */
#ifndef LR_ETHDEV_H
#define LR_ETHDEV_H

#include <stdint.h>
#include <stdio.h>

#include "lr_common.h"
#include "lr_ether.h"
#include "lr_mbuf.h"
#include "lr_mempool.h"

LR_BEGIN_DECLS

/** Most ports at once. */
#define LR_MAX_ETHPORTS 32
/** Most rx (and most tx) queues per port. */
#define LR_MAX_QUEUES_PER_PORT 16
/** Per-queue counters kept in struct lr_eth_stats. */
#define LR_ETH_QUEUE_STAT_CNTRS LR_MAX_QUEUES_PER_PORT
/** Longest port name plus its NUL. */
#define LR_ETH_NAME_MAX_LEN 64
/** Longest extended statistic name plus its NUL. */
#define LR_ETH_XSTATS_NAME_SIZE 64
/** Port id meaning "no port". */
#define LR_ETH_PORT_INVALID UINT16_MAX

/** Burst receive function of a driver: fills pkts, returns how many. */
typedef uint16_t (*lr_eth_rx_burst_t)(void *rxq, struct lr_mbuf **pkts,
				      uint16_t nb_pkts);
/** Burst transmit function of a driver: takes pkts, returns how many. */
typedef uint16_t (*lr_eth_tx_burst_t)(void *txq, struct lr_mbuf **pkts,
				      uint16_t nb_pkts);

/** One queue's entry on the fast path: the function and its argument. */
struct lr_eth_fp_rxq {
	lr_eth_rx_burst_t fn;
	void *q;
};

/** One tx queue's entry on the fast path. */
struct lr_eth_fp_txq {
	lr_eth_tx_burst_t fn;
	void *q;
};

/** Fast-path table of one port, written at start and stop only. */
struct lr_eth_fp_ops {
	struct lr_eth_fp_rxq rx[LR_MAX_QUEUES_PER_PORT];
	struct lr_eth_fp_txq tx[LR_MAX_QUEUES_PER_PORT];
} __lr_cache_aligned;

/** Fast-path tables, indexed by port id (internal to the burst inlines). */
extern struct lr_eth_fp_ops lr_eth_fp_ops[LR_MAX_ETHPORTS];

/** Port configuration given to lr_eth_dev_configure(); NULL = defaults. */
struct lr_eth_conf {
	uint16_t mtu;	     /**< 0: LR_ETHER_MTU */
	uint8_t promiscuous; /**< start in promiscuous mode */
};

/** Per-queue settings; NULL = defaults. */
struct lr_eth_rxconf {
	uint16_t rx_free_thresh; /**< driver hint, 0 = driver default */
};

/** Per-queue settings; NULL = defaults. */
struct lr_eth_txconf {
	uint16_t tx_free_thresh; /**< driver hint, 0 = driver default */
};

/** What a port can do (lr_eth_dev_info_get()). */
struct lr_eth_dev_info {
	const char *driver_name; /**< "net_null" */
	uint16_t max_rx_queues;
	uint16_t max_tx_queues;
	uint16_t min_mtu;
	uint16_t max_mtu;
	uint16_t min_rx_desc;
	uint16_t max_rx_desc;
	uint16_t min_tx_desc;
	uint16_t max_tx_desc;
	int socket_id;		  /**< NUMA node of the device */
	uint64_t rx_offload_capa; /**< LR_ETH_RX_OFFLOAD_* it delivers */
	uint64_t tx_offload_capa; /**< LR_ETH_TX_OFFLOAD_* it honours */
};

/* Offload capabilities (lr_eth_dev_info). A port without a transmit
 * capability may get mbufs asking for it only after lr_net_cksum_offload()
 * or lr_net_tso_segment() has done it in software. */
/** Receive: partial checksums flagged LR_MBUF_F_RX_L4_CKSUM_PARTIAL. */
#define LR_ETH_RX_OFFLOAD_CKSUM_PARTIAL (1ULL << 0)
/** Receive: TCP super-frames flagged LR_MBUF_F_RX_GSO_TCP. */
#define LR_ETH_RX_OFFLOAD_TCP_LRO (1ULL << 1)
/** Transmit: LR_MBUF_F_TX_IP_CKSUM. */
#define LR_ETH_TX_OFFLOAD_IPV4_CKSUM (1ULL << 0)
/** Transmit: LR_MBUF_F_TX_TCP_CKSUM. */
#define LR_ETH_TX_OFFLOAD_TCP_CKSUM (1ULL << 1)
/** Transmit: LR_MBUF_F_TX_UDP_CKSUM. */
#define LR_ETH_TX_OFFLOAD_UDP_CKSUM (1ULL << 2)
/** Transmit: LR_MBUF_F_RX_L4_CKSUM_PARTIAL and LR_MBUF_F_TX_L4_CKSUM. */
#define LR_ETH_TX_OFFLOAD_CKSUM_PARTIAL (1ULL << 3)
/** Transmit: LR_MBUF_F_TX_TCP_SEG and LR_MBUF_F_RX_GSO_TCP. */
#define LR_ETH_TX_OFFLOAD_TCP_TSO (1ULL << 4)
/** Every transmit offload. */
#define LR_ETH_TX_OFFLOAD_ALL                                                  \
	(LR_ETH_TX_OFFLOAD_IPV4_CKSUM | LR_ETH_TX_OFFLOAD_TCP_CKSUM |          \
	 LR_ETH_TX_OFFLOAD_UDP_CKSUM | LR_ETH_TX_OFFLOAD_CKSUM_PARTIAL |       \
	 LR_ETH_TX_OFFLOAD_TCP_TSO)

/** Link status. */
struct lr_eth_link {
	uint32_t link_speed;  /**< Mbit/s; 0 if unknown */
	uint8_t link_duplex;  /**< 1 full, 0 half */
	uint8_t link_autoneg; /**< 1 autonegotiated */
	uint8_t link_status;  /**< 1 up, 0 down */
};

/** Basic counters of a port since creation or the last reset. */
struct lr_eth_stats {
	uint64_t ipackets;  /**< packets received */
	uint64_t opackets;  /**< packets transmitted */
	uint64_t ibytes;    /**< bytes received */
	uint64_t obytes;    /**< bytes transmitted */
	uint64_t imissed;   /**< dropped by the device: rx queue full */
	uint64_t ierrors;   /**< receive errors */
	uint64_t oerrors;   /**< transmit errors */
	uint64_t rx_nombuf; /**< receives that found no mbuf in the pool */
	uint64_t q_ipackets[LR_ETH_QUEUE_STAT_CNTRS];
	uint64_t q_opackets[LR_ETH_QUEUE_STAT_CNTRS];
	uint64_t q_ibytes[LR_ETH_QUEUE_STAT_CNTRS];
	uint64_t q_obytes[LR_ETH_QUEUE_STAT_CNTRS];
	uint64_t q_errors[LR_ETH_QUEUE_STAT_CNTRS];
};

/** Name of one extended statistic. */
struct lr_eth_xstat_name {
	char name[LR_ETH_XSTATS_NAME_SIZE];
};

/** Value of one extended statistic; id indexes the names array. */
struct lr_eth_xstat {
	uint64_t id;
	uint64_t value;
};

/** Do-nothing receive (port not started); returns 0. */
uint16_t lr_eth_rx_burst_dummy(void *rxq, struct lr_mbuf **pkts, uint16_t n);
/** Do-nothing transmit (port not started); returns 0, takes nothing. */
uint16_t lr_eth_tx_burst_dummy(void *txq, struct lr_mbuf **pkts, uint16_t n);

/**
 * Receive up to nb_pkts packets from queue queue_id of port port_id into
 * rx_pkts; returns how many (0 if the port is not started or does not exist).
 * The caller owns the mbufs returned.
 */
static inline uint16_t
lr_eth_rx_burst(uint16_t port_id, uint16_t queue_id, struct lr_mbuf **rx_pkts,
		uint16_t nb_pkts)
{
	const struct lr_eth_fp_rxq *e;
	uint16_t n;

	if (lr_unlikely(port_id >= LR_MAX_ETHPORTS ||
			queue_id >= LR_MAX_QUEUES_PER_PORT))
		return 0;
	e = &lr_eth_fp_ops[port_id].rx[queue_id];
	LR_ASSERT(e->fn != NULL);
	n = e->fn(e->q, rx_pkts, nb_pkts);
	/* a driver never hands over more than it was asked for */
	LR_ASSERT(n <= nb_pkts);
	return n;
}

/**
 * Transmit up to nb_pkts packets on queue queue_id of port port_id; returns
 * how many the port took (from the front of tx_pkts). The caller still owns
 * tx_pkts[ret..nb_pkts-1] (free them or try again).
 */
static inline uint16_t
lr_eth_tx_burst(uint16_t port_id, uint16_t queue_id, struct lr_mbuf **tx_pkts,
		uint16_t nb_pkts)
{
	const struct lr_eth_fp_txq *e;
	uint16_t n;

	if (lr_unlikely(port_id >= LR_MAX_ETHPORTS ||
			queue_id >= LR_MAX_QUEUES_PER_PORT))
		return 0;
	e = &lr_eth_fp_ops[port_id].tx[queue_id];
	LR_ASSERT(e->fn != NULL);
	n = e->fn(e->q, tx_pkts, nb_pkts);
	/* a driver never takes more than it was given */
	LR_ASSERT(n <= nb_pkts);
	return n;
}

/** Create a port from a devargs string; its port id or a negative errno
 *  (-ENOENT unknown driver, -EINVAL bad key/value, -EEXIST name in use,
 *  -ENOSPC no free port id). Nothing is left behind on failure. */
int lr_eth_dev_create(const char *devargs);

/** Create a port for every --vdev given to lr_eal_init(), in order; the
 *  number created, or the first negative errno (ports created by this call
 *  before the failure are closed again; the last message begins with
 *  "--vdev 'DEVARGS'"). */
int lr_eth_dev_probe_eal_vdevs(void);

/** The names of the registered drivers (built in, or plugins loaded),
 *  sorted, into names (up to n of them; NULL with n 0 to count); returns
 *  how many drivers there are. */
unsigned lr_eth_driver_names(const char **names, unsigned n);

/** The drivers a port may name, as text into buf (len bytes): the
 *  registered ones, space separated, then "; plugins: " and the drivers
 *  of the plugin files on the plugin search path not loaded yet, if any
 *  ("net_null net_ring; plugins: net_dpdk"). Returns the text's length,
 *  as snprintf() (buf holds all of it if that is below len). */
int lr_eth_driver_list(char *buf, size_t len);

/** Number of ports that exist. */
unsigned lr_eth_dev_count_avail(void);

/** Non-zero if port_id names a port that exists. */
int lr_eth_dev_is_valid_port(uint16_t port_id);

/** Next existing port id >= port_id, or LR_MAX_ETHPORTS. */
uint16_t lr_eth_find_next(uint16_t port_id);

/** Iterate over the ids of every existing port. */
#define LR_ETH_FOREACH_DEV(p)                                                  \
	for ((p) = lr_eth_find_next(0); (p) < LR_MAX_ETHPORTS;                 \
	     (p) = lr_eth_find_next((uint16_t)((p) + 1)))

/** Port id of the port with this name, into *port_id; 0 or -ENODEV. */
int lr_eth_dev_get_port_by_name(const char *name, uint16_t *port_id);

/** Name of a port, or NULL if it does not exist. */
const char *lr_eth_dev_name(uint16_t port_id);

/** Fill *info; 0 or -ENODEV. */
int lr_eth_dev_info_get(uint16_t port_id, struct lr_eth_dev_info *info);

/** Set the number of rx and tx queues (stopped port); 0 or -errno. */
int lr_eth_dev_configure(uint16_t port_id, uint16_t nb_rx_queue,
			 uint16_t nb_tx_queue, const struct lr_eth_conf *conf);

/** Set up rx queue q with nb_desc descriptors on NUMA node socket_id,
 *  receiving into mbufs from mp (stopped, configured port); 0 or -errno. */
int lr_eth_rx_queue_setup(uint16_t port_id, uint16_t rx_queue_id,
			  uint16_t nb_rx_desc, int socket_id,
			  const struct lr_eth_rxconf *rx_conf,
			  struct lr_mempool *mp);

/** Set up tx queue q (stopped, configured port); 0 or -errno. */
int lr_eth_tx_queue_setup(uint16_t port_id, uint16_t tx_queue_id,
			  uint16_t nb_tx_desc, int socket_id,
			  const struct lr_eth_txconf *tx_conf);

/** Start a configured port whose queues are all set up; 0 or -errno. */
int lr_eth_dev_start(uint16_t port_id);

/** Stop a port: after return no burst call reaches the driver again
 *  (callers must have stopped polling it first); 0 or -errno. */
int lr_eth_dev_stop(uint16_t port_id);

/** Stop if needed, release the queues and the port; its id becomes free. */
int lr_eth_dev_close(uint16_t port_id);

/** Non-zero if the port is started (0 if it does not exist). */
int lr_eth_dev_is_started(uint16_t port_id);

/** Copy the port's MAC address into *mac; 0 or -ENODEV. */
int lr_eth_macaddr_get(uint16_t port_id, struct lr_ether_addr *mac);

/** Set the port's MAC address (unicast, not zero); 0 or -errno. */
int lr_eth_dev_default_mac_addr_set(uint16_t port_id,
				    const struct lr_ether_addr *mac);

/** Turn promiscuous mode on; 0 or -errno. */
int lr_eth_promiscuous_enable(uint16_t port_id);

/** Turn promiscuous mode off; 0 or -errno. */
int lr_eth_promiscuous_disable(uint16_t port_id);

/** 1 if promiscuous, 0 if not, -ENODEV. */
int lr_eth_promiscuous_get(uint16_t port_id);

/** Read link status into *link without waiting; 0 or -errno. */
int lr_eth_link_get_nowait(uint16_t port_id, struct lr_eth_link *link);

/** Read link status into *link; 0 or -errno. */
int lr_eth_link_get(uint16_t port_id, struct lr_eth_link *link);

/** Set the MTU (within dev_info min_mtu..max_mtu); 0 or -errno. */
int lr_eth_dev_set_mtu(uint16_t port_id, uint16_t mtu);

/** Current MTU into *mtu; 0 or -ENODEV. */
int lr_eth_dev_get_mtu(uint16_t port_id, uint16_t *mtu);

/** Counters since creation or the last reset into *stats; 0 or -ENODEV. */
int lr_eth_stats_get(uint16_t port_id, struct lr_eth_stats *stats);

/** Start counting from zero (basic and extended stats); 0 or -ENODEV. The
 *  driver's counters are not written: a reset takes a snapshot that later
 *  reads subtract, so it is safe while queues are polled. */
int lr_eth_stats_reset(uint16_t port_id);

/** Names of the extended stats into names[0..n-1]; returns the total count
 *  (call with n = 0 to size the array), or -ENODEV. */
int lr_eth_xstats_get_names(uint16_t port_id, struct lr_eth_xstat_name *names,
			    unsigned n);

/** Values of the extended stats into xstats[0..n-1]; returns the total
 *  count, or -ENODEV. The basic stats come first, then the driver's. */
int lr_eth_xstats_get(uint16_t port_id, struct lr_eth_xstat *xstats,
		      unsigned n);

/** Value of one extended stat by name into *value; 0, -ENOENT, -ENODEV. */
int lr_eth_xstats_get_by_name(uint16_t port_id, const char *name,
			      uint64_t *value);

/** Print the port's state, counters and non-zero extended stats to f; 0,
 *  -ENODEV or -ENOMEM. */
int lr_eth_dev_dump(FILE *f, uint16_t port_id);

/** Check the invariants above for every port; 0 or -EINVAL (logged). */
int lr_eth_dev_validate(void);

LR_END_DECLS

#endif /* LR_ETHDEV_H */
