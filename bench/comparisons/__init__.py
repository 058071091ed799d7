# SPDX-License-Identifier: BSD-3-Clause
"""Every comparison, in the order of BENCHMARKS.md."""
import os

from .legacy import script_entry


def is_root(ctx):
    """None as root, else why not (network namespaces need root)."""
    return None if os.geteuid() == 0 else 'needs root (network namespaces)'


def registry():
    """The comparisons, in BENCHMARKS.md's order."""
    from . import (elastic, l2fwd, memif, mempool, pagealloc, pktgen,
                   rfc2544_memif, ring, suite)
    return [
        ring.COMPARISON,
        pagealloc.COMPARISON,
        pagealloc.BULK,
        mempool.COMPARISON,
        pagealloc.PAGE_POOL,
        l2fwd.COMPARISON,
        l2fwd.RING,
        elastic.COMPARISON,
        pktgen.COMPARISON,
        memif.COMPARISON,
        rfc2544_memif.COMPARISON,
        script_entry(
            'veth', 'Over veth pairs between network namespaces',
            'lr-pktgen -> veth -> lr-l2fwd -> veth -> lr-pktgen: generator '
            'alone, maximum, highest zero-loss rate (af_packet, and af_xdp '
            'when built).',
            ['scripts/bench-veth.sh', '{build}'], needs=is_root),
        script_entry(
            'veth_afxdp', 'Forwarders over veth: af_xdp, af_packet and '
            'DPDK',
            'Forwarders alternated over the same topology: lr-l2fwd on '
            'af_xdp, lr-l2fwd on af_packet, DPDK testpmd io on net_af_xdp '
            '(when installed).',
            ['scripts/bench-veth-afxdp.sh'],
            env={'LR_BUILD': '{build}', 'RUNS': '5', 'DURATION': '4',
                 'RATE': '50000'}, needs=is_root),
        script_entry(
            'stack', 'Linux stacks as peers (veth and tap, default '
            'offloads)',
            'iperf3 TCP and ping RTT between two namespaces through a '
            'kernel bridge, lr-l2fwd on net_af_packet, lr-l2fwd on '
            'net_tap, and DPDK testpmd io on its net_af_packet (when '
            'installed), every interface with its default offloads.',
            ['scripts/bench-stack.sh', '{build}', '10', '20'],
            needs=is_root),
        script_entry(
            'dpdk_bridge', 'NICs through DPDK\'s drivers (drivers/net/dpdk, '
            'the linerate mempool ops)',
            'The bridge\'s cost: lr-l2fwd over net_dpdk ports (DPDK\'s '
            'net_null under linerate ports) beside lr-l2fwd on linerate\'s '
            'net_null, DPDK\'s l2fwd and testpmd io on DPDK\'s net_null, '
            'and the floor of any bridge (drivers/plugins/floor); then '
            'testpmd io with its mbuf pool on the "linerate" mempool ops '
            'against ring_mp_mc. Rounds alternating, the same window for '
            'each.',
            ['scripts/bench-dpdk-bridge.sh'],
            env={'LR_BUILD': '{build}', 'RUNS': '3'}),
        suite.COMPARISON,
    ]
