/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_eth_ring.h - net_ring: ports whose queues are lib/ring rings, so two
 * ports (or two parts of one process) pass packets in memory.
 *
 * Two ways to get one:
 * - devargs `net_ring<N>`: ports net_ring<2k> and net_ring<2k+1> are joined:
 *   what one transmits on queue q, the other receives on queue q. The rings
 *   are made at queue setup (capacity = nb_desc of whichever side sets the
 *   queue up first) and freed, with any packets left in them, when both
 *   ports are closed. Each ring has one producer and one consumer, so the
 *   single-producer/single-consumer ring paths are used.
 * - lr_eth_from_rings(): a port over rings the application made; rx queue q
 *   dequeues from rx_rings[q], tx queue q enqueues to tx_rings[q], using each
 *   ring's default mode (the application may share the rings). The
 *   application keeps owning the rings and frees them after closing the port.
 *
 * Hot path: one ring burst call plus one load per packet for the byte count.
 * tx takes what fits in the ring and returns how many; the rest stays the
 * caller's (counted in the extended stat tx_ring_full).
 * Error model: as lr_ethdev.h.
 */
#ifndef LR_ETH_RING_H
#define LR_ETH_RING_H

#include "lr_ring.h"

#include "lr_common.h"

LR_BEGIN_DECLS

/** Create a port named name over application rings (nrx, ntx at most
 *  LR_MAX_QUEUES_PER_PORT, not both 0); its port id or a negative errno. */
int lr_eth_from_rings(const char *name, struct lr_ring *const rx_rings[],
		      unsigned nb_rx_queues, struct lr_ring *const tx_rings[],
		      unsigned nb_tx_queues, int socket_id);

LR_END_DECLS

#endif /* LR_ETH_RING_H */
