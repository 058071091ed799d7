/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * l3.h - lr-pktgen's L3 mode: a port with addresses of its own (--ip
 * PORT:ADDR/PREFIX, IPv4 and/or IPv6) and next hops (--gateway PORT:ADDR).
 *
 * Before sending, the destination MAC of every stream leaving such a port
 * is resolved by ARP (IPv4) or NDP neighbour solicitation (IPv6): to the
 * destination itself when it is a single address on the port's subnet,
 * else to the gateway. A request goes out every --resolve-interval seconds,
 * --resolve-tries times; no answer is an error naming the port and the
 * address. While the run lasts, the port answers ARP requests and
 * neighbour solicitations for its addresses and ICMP/ICMPv6 echo requests
 * to them, so that a kernel stack or a router in front of it can reach it
 * and keep its neighbour entry.
 *
 * l3_frame.c holds the pure part (address parsing, frame builders and the
 * classifier of received frames; no state, tested directly); l3.c the
 * state, the resolution and the receive hook.
 *
 * Cost: the receive path calls pg_l3_input() only for frames that are not
 * this run's stamped frames, and only when a port is in L3 mode (one
 * predictable branch otherwise). Answers are built in fresh mbufs and sent
 * on the transmit queue of the same number as the receive queue, which the
 * same lcore owns; they are counted apart from the test frames.
 */
#ifndef PKTGEN_L3_H
#define PKTGEN_L3_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/** The L3 configuration of one port (addresses in network byte order). */
struct pg_l3_conf {
	bool has4, has6;       /**< an address of the family was given */
	bool gw4_set, gw6_set; /**< a gateway of the family was given */
	uint8_t plen4, plen6;  /**< prefix lengths */
	uint8_t ip4[4], gw4[4];
	uint8_t ip6[16], gw6[16];
};

/** A port as the frame code sees it: its configuration and MAC. */
struct pg_l3_if {
	struct pg_l3_conf c;
	uint8_t mac[6];
};

/** What a received frame was (pg_l3_classify()). */
enum pg_l3_kind {
	PG_L3_OTHER, /**< nothing for the L3 mode */
	PG_L3_ARP,   /**< an ARP request for our address: reply built */
	PG_L3_NS,    /**< a solicitation for our address: advert built */
	PG_L3_ECHO,  /**< an ICMP echo request to us: reply built */
	PG_L3_ECHO6, /**< an ICMPv6 echo request to us: reply built */
	PG_L3_LEARN, /**< an ARP reply or neighbour advert: learned only */
};

/** A neighbour's address and MAC a received frame told. */
struct pg_l3_learned {
	bool valid;
	bool v6;
	uint8_t ip[16]; /**< IPv4: the first 4 bytes */
	uint8_t mac[6];
};

/** Smallest buffer pg_l3_classify() may build a reply in. */
#define PG_L3_MIN_ROOM 128

/* l3_frame.c (pure) */
/** Parse --ip "PORT:ADDR/PREFIX" into conf[PORT]; 0, or -1 after printing
 *  what is wrong (option, text, reason). */
int pg_l3_parse_ip(const char *s, struct pg_l3_conf *conf, unsigned nports);
/** Parse --gateway "PORT:ADDR" into conf[PORT]; 0, or -1 after printing. */
int pg_l3_parse_gateway(const char *s, struct pg_l3_conf *conf,
			unsigned nports);
/** Check a port's configuration once every option is read (a gateway
 *  needs an address of its family on the port and must be on its
 *  subnet); 0, or -1 after printing. */
int pg_l3_check(const struct pg_l3_conf *c, unsigned port);
/** Non-zero if addr (4 or 16 bytes) is on the subnet own/plen, or is an
 *  IPv6 link-local address (on every link). */
int pg_l3_on_link(const uint8_t *own, unsigned plen, const uint8_t *addr,
		  bool v6);
/** Build an ARP request from ifc for target ip into f (60 bytes, with
 *  padding); the length. */
unsigned pg_l3_arp_request(uint8_t *f, const struct pg_l3_if *ifc,
			   const uint8_t target[4]);
/** Build a neighbour solicitation from ifc for target into f (to its
 *  solicited-node multicast address, with our link-layer address); the
 *  length. */
unsigned pg_l3_ns_request(uint8_t *f, const struct pg_l3_if *ifc,
			  const uint8_t target[16]);
/** Classify frame in of len bytes received on ifc: an answer (ARP reply,
 *  neighbour advert, echo reply) is built in out (room bytes, at least
 *  PG_L3_MIN_ROOM) with its length in *out_len; *learned says the MAC of
 *  a neighbour the frame tells (ARP request or reply, solicitation with a
 *  source link-layer address, advert). */
enum pg_l3_kind pg_l3_classify(const struct pg_l3_if *ifc, const uint8_t *in,
			       unsigned len, uint8_t *out, unsigned room,
			       unsigned *out_len,
			       struct pg_l3_learned *learned);
/** Write addr (4 or 16 bytes) as text into buf; buf. */
const char *pg_l3_ntop(const uint8_t *addr, bool v6, char *buf, size_t n);

/* l3.c (the ports' state; setup.c, report.c, main.c and datapath.c call
 * it) */
struct pg_txq;
struct lr_mbuf;
struct json_t;
/** Set up the L3 ports (nq[p]: queues of port p, 0 when unused; rx_ports:
 *  a bit per receiving port), resolve the next hops of the streams of the
 *  n transmit queues q (templates built) and write the MACs and source
 *  addresses into their templates; 0 (nothing to do without --ip), or -1
 *  after printing what failed. */
int pg_l3_setup(const uint16_t *nq, uint32_t rx_ports, struct pg_txq *const *q,
		unsigned n);
/** A frame that is not one of ours arrived on queue queue of port: answer
 *  it if it asks the L3 mode for something (cold: not the test frames). */
void pg_l3_input(uint16_t port, uint16_t queue, const struct lr_mbuf *m);
/** Print the L3 ports' counters (summary); nothing without --ip. */
void pg_l3_print(FILE *f);
/** The L3 ports, their next hops and counters as a JSON array (NULL
 *  without --ip). */
struct json_t *pg_l3_json(void);
/** Free what pg_l3_setup() allocated. */
void pg_l3_fini(void);

#endif /* PKTGEN_L3_H */
