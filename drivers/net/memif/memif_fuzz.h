/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * memif_fuzz.h - hooks of net_memif (memif_fuzz.c) for the fuzz targets
 * of test/fuzz/ (private to drivers/net/memif and those targets; never
 * installed, hidden in the shared library).
 *
 * A server port on a listener that has no socket, connections to it that
 * have none either, and the port's bursts: a message goes through the
 * very code the control thread runs on one it received (conn_msg(): the
 * checks of memif_proto.c, then the server's state machine; a CONNECTED
 * answer brings the port up as when it is sent), with the fds the caller
 * made (memfds, eventfds) standing for those SCM_RIGHTS would bring. The
 * caller uses one thread, and no real memif port lives in the process
 * (the hooks take the control lock but start no control thread).
 */
#ifndef MEMIF_FUZZ_H
#define MEMIF_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "lr_mbuf.h"
#include "memif_proto.h"

struct mif_port;
struct mif_conn;

/* A started server port (id, secret or NULL, queue counts; rx mbufs from
 * mp; zrx: zero-copy receive) with default bsize and rsize, on a listener
 * of its own; NULL if out of memory. */
struct mif_port *lr_memif_fuzz_port_new_(uint32_t id, const char *secret,
					 uint16_t nb_rxq, uint16_t nb_txq,
					 struct lr_mempool *mp, int zrx);

/* Disconnect p (no message), and free it (a client's zero-copy pool and
 * region 1 too). */
void lr_memif_fuzz_port_free_(struct mif_port *p);

/* A new connection on p's listener, as accept() makes one (the server's
 * HELLO counts as sent); NULL if out of memory. */
struct mif_conn *lr_memif_fuzz_accept_(struct mif_port *p);

/*
 * Message m of len bytes from the client on c, with nfds fds in fds[]
 * (taken over; -1: refused by the receive): 0 when accepted, *reply the
 * answer (ACK or CONNECTED); a negative errno when it ended the
 * connection (the port disconnected, why says why; c is dead: only
 * lr_memif_fuzz_conn_free_() is left).
 */
int lr_memif_fuzz_msg_(struct mif_conn *c, const struct mif_msg *m, size_t len,
		       int *fds, int nfds, struct mif_msg *reply, char *why,
		       size_t whylen);

/* The client closed c: as the control thread sees it; then c is freed. */
void lr_memif_fuzz_conn_free_(struct mif_conn *c);

/* 1 when p's link is up (CONNECTED answered, no fault since). */
int lr_memif_fuzz_up_(struct mif_port *p);

/* The control thread's round for p: a connection the datapath found at
 * fault ends here. */
void lr_memif_fuzz_poll_(struct mif_port *p);

/* p's rx burst on queue q, the one of its role and mode (a server reads
 * C2S ring q, a client S2C ring q). */
uint16_t lr_memif_fuzz_rx_(struct mif_port *p, uint16_t q,
			   struct lr_mbuf **pkts, uint16_t n);

/* p's tx burst on queue q, the one of its role and mode without the
 * software offloads (a server fills S2C ring q, a client C2S ring q). */
uint16_t lr_memif_fuzz_tx_(struct mif_port *p, uint16_t q,
			   struct lr_mbuf **pkts, uint16_t n);

/*
 * The client side (test/fuzz/fuzz_memif_client.c): a client port (not
 * started: it never connects by itself) of nb_rxq/nb_txq queues, rings of
 * 2^log2 slots of bsize bytes, rx mbufs from mp (copy mode) or, zc, its
 * own zero-copy pool and region 1; NULL if out of memory. Freed with
 * lr_memif_fuzz_port_free_().
 */
struct mif_port *lr_memif_fuzz_client_new_(int zc, uint16_t nb_rxq,
					   uint16_t nb_txq, unsigned log2,
					   uint32_t bsize,
					   struct lr_mempool *mp);

/* A connection of client p, as if connect() made it: one end of a
 * socketpair is the client's, the other (*server_fd, the caller's to
 * close) plays the server: what the client sends arrives there, fds
 * included. Freed with lr_memif_fuzz_conn_free_(). */
struct mif_conn *lr_memif_fuzz_client_connect_(struct mif_port *p,
					       int *server_fd);

/* The control thread's handling of what arrived on client connection c
 * (every message queued on its socket; an answer goes out on it). */
void lr_memif_fuzz_client_event_(struct mif_conn *c);

/* Why p's last connection ended ("" if it has not, or came up since). */
const char *lr_memif_fuzz_reason_(struct mif_port *p);

/* The zero-copy pool of client p, or NULL. */
struct lr_mempool *lr_memif_fuzz_zc_pool_(struct mif_port *p);

/* A client's bursts are lr_memif_fuzz_rx_() and lr_memif_fuzz_tx_(). */

#endif /* MEMIF_FUZZ_H */
