/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_eth_iface.h - questions drivers over kernel interfaces (net_af_packet,
 * net_af_xdp) ask about the interface they sit on, answered once here so
 * every driver answers them the same way: flags, link (running state,
 * speed), and promiscuous mode held for the life of a file descriptor.
 *
 * Each call acts on the calling thread's network namespace and costs a
 * system call or two (control path only). Errors: 0 or a negative errno;
 * -ENODEV when the namespace has no interface of that name (or index).
 */
#ifndef LR_ETH_IFACE_H
#define LR_ETH_IFACE_H

#include "lr_ethdev.h"

LR_BEGIN_DECLS

/** Flags of interface ifname (IFF_UP, IFF_RUNNING, IFF_PROMISC as set by
 *  hand, ...) into *flags; 0 or -errno. */
int lr_eth_iface_flags(const char *ifname, unsigned *flags);

/** Link of interface ifname into *link: link_status 1 when it is up and
 *  running (IFF_UP and IFF_RUNNING); speed (Mbit/s), duplex and autoneg
 *  from ethtool when the device answers, else speed 0 (unknown) and full
 *  duplex. 0 or -errno. */
int lr_eth_iface_link(const char *ifname, struct lr_eth_link *link);

/** Put interface ifindex into promiscuous mode for as long as the returned
 *  descriptor is open: a PACKET_MR_PROMISC membership of a packet socket
 *  that receives nothing. The kernel counts it apart from the IFF_PROMISC
 *  an administrator sets, and drops it when the descriptor is closed or
 *  the process dies, so the interface's own state always comes back.
 *  Returns the descriptor (close it to let go), or -errno (-EPERM without
 *  CAP_NET_RAW). */
int lr_eth_iface_promisc_hold(int ifindex);

LR_END_DECLS

#endif /* LR_ETH_IFACE_H */
