/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_eth_tap.h - net_tap: a port on a Linux TAP interface, the exception
 * path to the kernel's network stack (and a peer for tests).
 *
 *   net_tap0[,iface=NAME][,mac=xx:xx:xx:xx:xx:xx][,persist][,qpairs=N]
 *
 * iface: the interface (default `lrtap%d`, the kernel picking the number;
 * the name it took is logged). It is created when absent, as a TAP with
 * IFF_NO_PI, IFF_VNET_HDR and IFF_MULTI_QUEUE, and removed when the port
 * closes, unless `persist` (or persist=1) is given. An interface that
 * existed before must be a multi-queue TAP (`ip tuntap add NAME mode tap
 * multi_queue`) and is left as it was found. mac: the interface's MAC
 * address (default: the kernel's random one); the port's MAC is the
 * interface's. qpairs: queue pairs, 1..16 (default 1), one file descriptor
 * of /dev/net/tun each. The interface may be moved to another network
 * namespace (`ip link set NAME netns NS`) while the port runs: the
 * descriptors keep working, and the control path (link, MTU, up) follows
 * it there (TUNGETDEVNETNS).
 *
 * Design: each queue pair owns one tun descriptor, non-blocking. The
 * kernel spreads the frames it sends through the interface over the
 * attached queues by flow hash; whatever a queue's descriptor is written
 * goes into the kernel's stack as received on the interface.
 *  - receive: one readv() per frame into a virtio-net header and a chain
 *    of mbufs kept ready for the next frame (as many as a 64 KiB
 *    super-frame needs: 33 of 2 KiB), so the kernel copies straight into
 *    the mbufs; the mbufs a frame used are replaced, one bulk allocation
 *    per burst.
 *  - transmit: one writev() per frame: the virtio-net header and each
 *    segment of the mbuf chain, no copy here.
 * Cost: a system call per frame per queue and the kernel's copy of every
 * byte, against af_packet's one copy per frame and one call per burst:
 * a tap port is the kernel's exception path (control traffic, a
 * container's interface, a test peer), not a line-rate port.
 *
 * Offloads: the interface is told (TUNSETOFFLOAD) that the port takes
 * partial checksums and TCP super-frames (IPv4, IPv6, ECN), so the stack
 * sends them as they are, as it does to a virtio NIC: a frame whose
 * checksum is left to offload arrives with LR_MBUF_F_RX_L4_CKSUM_PARTIAL
 * and csum_start/csum_offset, a TCP super-frame of up to 64 KiB as a chain
 * with LR_MBUF_F_RX_GSO_TCP and tso_segsz (lr_net_vnet_rx()). Transmit
 * hands a partial checksum and a super-frame back to the kernel in the
 * header (lr_net_vnet_tx()); checksums asked from the header lengths are
 * computed here, a super-frame without a partial checksum is segmented
 * here (lr_net_tso_segment()).
 *
 * Link: up while the port is started and the interface is up and has a
 * carrier. The port turns the carrier on at start and off at stop (the
 * kernel then sends nothing to a stopped port; frames left in the queues
 * are discarded at the next start) and sets the interface up at start.
 * Queues beyond max(rx, tx queues configured) are detached at start, so
 * the kernel steers nothing to them.
 *
 * Statistics: ipackets/ibytes/opackets/obytes per queue; imissed is what
 * the kernel dropped because a queue was full (the interface's tx_dropped
 * since the port was made, read through rtnetlink); ierrors are
 * frames too long for the receive chain or shorter than an Ethernet header
 * or with a GSO type the port does not take (xstats rx_truncated,
 * rx_runts, rx_gso_unsupported); oerrors are frames the kernel refused or
 * bad offload requests (tx_write_errors, tx_offload_errors); tx_tso_sw
 * counts super-frames segmented here.
 *
 * Threading: one thread polls one queue. Errors name the port, the key and
 * the value: `net_tap0: mac: bad value 'zz' (expected xx:xx:xx:xx:xx:xx,
 * a unicast address)`.
 */
#ifndef LR_ETH_TAP_H
#define LR_ETH_TAP_H

#include <stddef.h>
#include <stdint.h>

#include "lr_common.h"

LR_BEGIN_DECLS

/** Default interface name template (the kernel fills in %d). */
#define LR_ETH_TAP_DEFAULT_IFACE "lrtap%d"

/** The name of net_tap port port_id's interface as it is now (it follows
 *  a rename) into name (len bytes, 16 is enough); 0, -ENODEV (no such
 *  port), -EINVAL (not a net_tap port) or -ENOSPC (len too small). */
int lr_eth_tap_ifname(uint16_t port_id, char *name, size_t len);

LR_END_DECLS

#endif /* LR_ETH_TAP_H */
