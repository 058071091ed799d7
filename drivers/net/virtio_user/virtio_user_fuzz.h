/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * virtio_user_fuzz.h - hooks of net_virtio_user (virtio_user_fuzz.c) for
 * test/fuzz/fuzz_virtio_user.c (private to the driver and that target;
 * never installed, hidden in the shared library).
 *
 * A port with one queue pair whose rings are set up in its shared region
 * as after a set-up, but with no socket and no thread: the target writes
 * what a hostile backend could write anywhere in the region (it maps all
 * of it read-write) and runs the bursts; a fault takes the queues down as
 * the datapath does (the link would go down). One thread.
 */
#ifndef VIRTIO_USER_FUZZ_H
#define VIRTIO_USER_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "lr_mbuf.h"

struct vu_port;

/* A port over rings of qsize (a power of two) descriptors, split or
 * packed, with MRG_RXBUF, IN_ORDER and EVENT_IDX as asked, its queues up;
 * rx copies into mp. NULL when out of memory. */
struct vu_port *lr_vu_fuzz_port_new_(struct lr_mempool *mp, uint32_t qsize,
				     int packed, int mrg, int in_order,
				     int event_idx);

/* The shared region of p (every ring and buffer) and its bytes. */
uint8_t *lr_vu_fuzz_region_(struct vu_port *p, size_t *len);

/* Where ring tx (0: rx queue 0's, 1: tx queue 0's) starts in the region
 * and its bytes (descriptors, rings, buffers). */
size_t lr_vu_fuzz_ring_(struct vu_port *p, int tx, size_t *len);

/* The rx and tx bursts of queue 0. */
uint16_t lr_vu_fuzz_rx_(struct vu_port *p, struct lr_mbuf **pkts, uint16_t n);
uint16_t lr_vu_fuzz_tx_(struct vu_port *p, struct lr_mbuf **pkts, uint16_t n);

/* 1 once the datapath found a fault (the port's link would go down). */
int lr_vu_fuzz_bad_(struct vu_port *p);

/* 1 while queue 0 (tx: the tx queue, else the rx queue) is up: a fault
 * on its ring takes it down. */
int lr_vu_fuzz_up_(struct vu_port *p, int tx);

/* Free p: region unmapped, descriptors closed. */
void lr_vu_fuzz_port_free_(struct vu_port *p);

#endif /* VIRTIO_USER_FUZZ_H */
