/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_eth_dpdk.h - net_dpdk: a linerate port over a DPDK port, so that
 * linerate programs run on every NIC DPDK drives (ixgbe, i40e, ice, mlx5,
 * ... on x86-64 and ppc64le) and on DPDK's virtual devices.
 *
 *   net_dpdk<N>,dev=<DPDK device>[,dpdk-args=[<EAL arguments>]][,mbufs=<n>]
 *
 * dev is a PCI address (0000:01:00.0, or 01:00.0) or a DPDK vdev string
 * (net_null0, net_ring0, net_memif0,role=server,...), or the name of a
 * DPDK port the program made itself (rte_eth_from_rings()). A DPDK string
 * holds commas, so put it in brackets: dev=[net_null0,size=128] (see
 * lr_devargs.h: a value that starts with '[' runs to its ']').
 *
 * A plugin (lr_eal.h, "Plugins"): DPDK is an optional dependency, so no
 * program and no other linerate library needs DPDK's libraries. The driver
 * is liblinerate_net_dpdk.so in the plugin folder ($libdir/linerate/
 * plugins; <build>/drivers/plugins in the build tree), the only file with
 * librte_*.so.<abi> among its DT_NEEDED entries; lib/ethdev loads it with
 * dlopen() when a port names net_dpdk<N> and no net_dpdk driver is
 * registered (-d PATH and LR_PLUGIN_PATH are searched first). When DPDK's
 * runtime is missing, creating the port fails with -ELIBACC and one
 * message naming the port, the plugin file, the loader's reason (e.g.
 * "librte_eal.so.23: cannot open shared object file") and what to install
 * (Debian: the librte-*23 packages); ports of other drivers are not
 * concerned. The plugin resolves linerate's functions in the program:
 * from its liblinerate_*.so.0, or, linked statically, from the program
 * itself, which exports its lr_ symbols (-Wl,--export-dynamic: `pkg-config
 * --static linerate` gives it; in-tree programs do it too).
 * A program that calls the functions below links the driver itself,
 * shared (`pkg-config --libs linerate linerate_net_dpdk`:
 * liblinerate_net_dpdk.so.0) or static (`pkg-config --libs --static
 * linerate` -l:liblinerate_net_dpdk.a `pkg-config --libs --static
 * linerate_net_dpdk`: the archive's objects come in with the first call,
 * the driver's constructor with them); the driver is then built into the
 * program, registered before main(), the plugin is never loaded, and the
 * program needs DPDK's runtime to start, as any program linked with DPDK
 * (test embed). linerate.pc alone links neither: `pkg-config --static
 * linerate` is every driver but net_dpdk, which stays a plugin.
 *
 * DPDK's EAL is brought up once per process, by the first net_dpdk port
 * (or lr_eth_dpdk_eal_init()), beside linerate's: its own file prefix
 * (<linerate prefix>_dpdk), no telemetry socket, DPDK's logs on stderr,
 * and lcore 0 floating over the CPUs the calling thread may already run
 * on (--lcores=0@(<its CPUs>)), so DPDK changes no thread's affinity and
 * starts no worker. Memory: for a vdev, --no-huge -m 256 --no-pci
 * --no-shconf (DPDK claims no hugepage; the port's mbuf pools come from
 * linerate's page allocator, see the costs below); for a PCI device,
 * --in-memory -a <dev> (hugepages taken on demand by DPDK through
 * memfds, no files, nothing of linerate's prefix). dpdk-args (brackets,
 * words split on blanks) replaces those memory and bus defaults; the
 * prefix, lcores and telemetry ones stay unless it names its own. A
 * linerate thread that polls a net_dpdk queue is registered with DPDK
 * (rte_thread_register()) at its first burst, so DPDK's mempool caches
 * work on it. The EAL is cleaned up at lr_eal_cleanup().
 *
 * Queues: the port's rx and tx queue counts (lr_eth_dev_configure) are
 * the DPDK port's; more than one rx queue turns RSS on. The rx mempool
 * given to lr_eth_rx_queue_setup() is not used: DPDK receives into its own
 * pool of mbufs (mbufs=, default 4096 per rx queue + 1024).
 *
 * Zero copy both ways (the choice, and its cost per packet):
 *  - memory: when DPDK's EAL has no hugepages (the vdev default), the
 *    port's DPDK pools (receive and attach) are populated from linerate's
 *    page allocator in 2 MiB blocks (hugepages when linerate has them,
 *    returned at close), objects packed: DPDK's own --no-huge pools put
 *    each 2.4 KiB mbuf alone on a 4 KiB page, a TLB miss per packet or
 *    two (DPDK's l2fwd on net_null: 22 TSC cycles a packet on hugepages,
 *    50 with --no-huge). When linerate's memory runs short, or DPDK has
 *    hugepages (dpdk-args, PCI), DPDK's rte_pktmbuf_pool_create().
 *  - receive: each mbuf of the port's DPDK receive pool has a linerate
 *    mbuf header bound to it for the pool's life (the DPDK mbuf's
 *    private area, one cache line, points to it: no DPDK function copies
 *    a private area into another mbuf, as rte_pktmbuf_attach() and
 *    _copy() do dynamic fields; the header's private area points back),
 *    which holds the mbuf's buffer address, IOVA and length from binding
 *    on, so the header comes with the DPDK mbuf: a direct one-segment
 *    mbuf of that pool (the forwarding case) costs its header two 16-byte
 *    stores, rearm word and flags (loaded, masked, merged: data_off and
 *    the VLAN/RSS flags kept, refcnt, segments and port ours; checksum
 *    flags translated when there are some) and the descriptor fields
 *    (packet_type, lengths, VLAN, RSS hash: the fields lie at the same
 *    offsets on both sides); the DPDK mbuf's first two lines read, which
 *    the DPDK driver just wrote, and its private area's, one line of the
 *    header written; no pool taken from, and header and DPDK mbuf stay as
 *    hot as DPDK's per-lcore cache keeps its mbufs. Freeing the linerate
 *    mbuf frees its DPDK mbuf (the store of the bound headers:
 *    rte_pktmbuf_free_bulk per freed batch), which takes its header
 *    along. A DPDK mbuf of another pool (a net_ring peer's, say), or of
 *    the pool but over another buffer (a driver that attaches its receive
 *    mbufs), gets a header from a second pool (a ring, no cache) whose
 *    store frees that DPDK mbuf when the header goes back; chains take
 *    the general path too.
 *  - transmit of a packet received on a net_dpdk port (the forwarding
 *    case): its own DPDK mbuf (found from the header's buffer address,
 *    which lies a fixed distance after it: the header's first line is the
 *    only one read) goes out, with data_off and lengths (one 2-byte and
 *    one 8-byte store; offload fields when asked) written back; a bound
 *    header goes with it and nothing returns to any pool on our side.
 *  - transmit of any other linerate mbuf: a DPDK header mbuf (pool of
 *    data-less mbufs) per segment, attached to the linerate buffer as an
 *    external buffer (rte_pktmbuf_attach_extbuf, IOVA from linerate's
 *    buf_iova, or the address when DPDK runs in IOVA-as-VA mode) whose
 *    free callback frees the linerate segment when DPDK is done with it:
 *    one DPDK mbuf get and put and about ten stores per segment.
 * What a forwarded packet costs (lr-l2fwd over two net_dpdk(net_null,
 * size=64,copy=0) ports, 64-byte frames, one lcore, hugepages; runs
 * alternated with DPDK 22.11's l2fwd on the same DPDK ports,
 * bench/run dpdk_bridge, figures in BENCHMARKS.md): about 26 TSC
 * cycles at 2.6 GHz (95-110 Mpps), on Debian's DPDK and on a native
 * build alike; DPDK's l2fwd: 23 on Debian's (110-120 Mpps), 18 on the
 * native build (136-150 Mpps); lr-l2fwd on linerate's own net_null: 11.
 * In instructions (callgrind, -Dplatform=generic): 191 a packet, of
 * which DPDK's net_null receive and transmit with its mempool (the same
 * in both) are 123, lr-l2fwd's own loop 18, the bridge's receive 22.5
 * and transmit 24, the burst calls 4; DPDK's l2fwd: 157.5 (123 + its own
 * loop, 35). Level with DPDK's l2fwd is out of reach by design on this
 * device, measured: a benchmark-only build of this driver
 * (drivers/plugins/floor, -DLR_DPDK_BENCH_FLOOR, never installed) that
 * does no per-packet work at all, DPDK's mbufs handed to lr-l2fwd and
 * back as they are, runs at 1.09-1.18 times Debian's l2fwd and
 * 0.95-1.05 times the native one (four runs of 1-5 rounds): level leaves
 * a bridge about two TSC cycles a packet against Debian's build and
 * about none against the native one. Every correct bridge does more:
 * each received mbuf's pool, chain and attach kind checked and its port
 * and flags made linerate's, each packet to send checked for being a
 * DPDK mbuf, whole and unshared, its lengths written back: about 30
 * instructions however the two mbufs are laid out, where level leaves
 * about 16 against Debian's DPDK and almost none against the native
 * build. On a NIC, whose driver costs more than net_null, the bridge's 46
 * instructions are a smaller share.
 * Chains, RSS hash, VLAN tags, checksum flags (good/bad on receive; IPv4,
 * TCP and UDP checksum and TSO on transmit, when the DPDK port offers them,
 * through rte_eth_tx_prepare()) carry across both ways.
 *
 * PCI devices: linerate's memory segments are registered with DPDK
 * (rte_extmem_register) and mapped for the device's DMA (rte_dev_dma_map)
 * at probe, so a NIC can read linerate mbufs; segments linerate reserves
 * later are not mapped.
 *
 * Stats: packets and bytes counted by the bridge per queue; imissed,
 * ierrors, oerrors and rx_nombuf from DPDK's counters; xstats: the
 * bridge's (rx_header_nombuf, tx_attached, tx_no_header,
 * tx_prepare_rejected) then DPDK's, named "dpdk_<name>". Link state, MAC,
 * MTU and promiscuous mode are DPDK's.
 *
 * Threading: as every port: one thread per queue. Cost: see above.
 * Error model: probe fails with a message naming the port, the key and
 * the value (an unknown device, DPDK's EAL refusing its arguments).
 */
#ifndef LR_ETH_DPDK_H
#define LR_ETH_DPDK_H

#include <stdint.h>

#include "lr_common.h"

LR_BEGIN_DECLS

/** Bring DPDK's EAL up in this process with the extra arguments args
 *  (blank-separated; NULL: the vdev defaults, see above); 0 if it is up
 *  (also when it already was: args are then ignored), or a negative errno
 *  after logging DPDK's refusal (a refusal is final for the process). */
int lr_eth_dpdk_eal_init(const char *args);

/** The DPDK port id behind net_dpdk port port_id, or -ENODEV. */
int lr_eth_dpdk_port_id(uint16_t port_id);

/** DPDK mbufs of the port's receive pool and header pool, and its
 *  linerate headers, that are not in their pools now (a snapshot;
 *  all 0 once every packet is back); 0 or -ENODEV. */
int lr_eth_dpdk_mbufs_in_use(uint16_t port_id, unsigned *dpdk_rx,
			     unsigned *dpdk_hdr, unsigned *headers);

LR_END_DECLS

#endif /* LR_ETH_DPDK_H */
