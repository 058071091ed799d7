# SPDX-License-Identifier: BSD-3-Clause
"""Every comparison, in the order of BENCHMARKS.md."""
import os


def is_root(ctx):
    """None as root, else why not (network namespaces need root)."""
    return None if os.geteuid() == 0 else 'needs root (network namespaces)'


def registry():
    """The comparisons, in BENCHMARKS.md's order."""
    from . import (callgrind, dpdk_bridge, elastic, l2fwd, memif, mempool,
                   pagealloc, pktgen, rfc2544_memif, ring, stack, suite,
                   telemetry, veth, vhost)
    return [
        ring.COMPARISON,
        pagealloc.COMPARISON,
        pagealloc.BULK,
        mempool.COMPARISON,
        callgrind.MEMPOOL,
        pagealloc.PAGE_POOL,
        l2fwd.COMPARISON,
        l2fwd.RING,
        telemetry.COMPARISON,
        elastic.COMPARISON,
        callgrind.ELASTIC,
        pktgen.COMPARISON,
        memif.COMPARISON,
        memif.DEFAULT,
        vhost.COMPARISON,
        rfc2544_memif.COMPARISON,
        veth.VETH,
        veth.AFXDP_PLAIN,
        veth.AFXDP_BUSY,
        stack.COMPARISON,
        dpdk_bridge.COMPARISON,
        suite.COMPARISON,
    ]
