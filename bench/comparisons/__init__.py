# SPDX-License-Identifier: BSD-3-Clause
"""Every comparison, in the order of BENCHMARKS.md."""
import os

from .legacy import script_entry


def is_root(ctx):
    """None as root, else why not (network namespaces need root)."""
    return None if os.geteuid() == 0 else 'needs root (network namespaces)'


def registry():
    """The comparisons, in BENCHMARKS.md's order."""
    from . import (dpdk_bridge, l2fwd, mempool, pagealloc, ring, stack,
                   suite, veth)
    return [
        ring.COMPARISON,
        pagealloc.COMPARISON,
        pagealloc.BULK,
        mempool.COMPARISON,
        pagealloc.PAGE_POOL,
        l2fwd.COMPARISON,
        l2fwd.RING,
        script_entry(
            'elastic', 'Elastic mbuf pools (lib/mbuf over the page '
            'allocator)',
            'lr-l2fwd on net_null with its default elastic pool against a '
            'fixed pool of the size it computes, alternating; then bursts '
            'into a net_ring port behind a slow consumer '
            '(lr-elastic-bench): memory held and frames dropped for a '
            'fixed pool at DPDK\'s usual formula, a fixed pool sized for '
            'the worst burst, and the elastic pool; and DPDK\'s fixed '
            'rte_mempool at both sizes in the same setup.',
            ['scripts/bench-elastic.sh'], env={'LR_BUILD': '{build}'}),
        script_entry(
            'pktgen', 'Traffic generation (lr-pktgen on net_null)',
            'lr-pktgen, one datapath lcore, 64-byte frames, with and '
            'without hugepages; DPDK testpmd txonly alternating in the '
            'same run, the same steady-state window for every program.',
            ['scripts/bench-pktgen.sh', '{build}', '4', '3']),
        script_entry(
            'memif', 'Over memif: linerate and DPDK testpmd',
            '64 and 1518-byte frames over one memif link (generator -> '
            'receiver: lr-pktgen and testpmd txonly/rxonly, and the mixed '
            'pairs) and through a forwarder (lr-pktgen -> lr-l2fwd or '
            'testpmd io -> lr-pktgen), each process on its own CPU, rows '
            'alternating; Mpps and cycles per packet on each side over the '
            'same window.',
            ['scripts/bench-memif.sh', '{build}', '2', '9']),
        script_entry(
            'rfc2544_memif', 'RFC 2544 over memif: NDR and PDR of '
            'lr-l2fwd and DPDK\'s forwarders found by lr-pktgen',
            'lr-pktgen --rfc2544 throughput (servers on CPU 0) against each '
            'forwarder in turn (clients on CPU 1): lr-l2fwd, testpmd io, '
            'DPDK\'s l2fwd example when its source is there; 64 and 1518 '
            'B, 3 rounds, medians with the range.',
            ['scripts/bench-rfc2544-memif.sh', '{build}', '3']),
        veth.VETH,
        veth.AFXDP_PLAIN,
        veth.AFXDP_BUSY,
        stack.COMPARISON,
        dpdk_bridge.COMPARISON,
        suite.COMPARISON,
    ]
