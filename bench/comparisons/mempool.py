# SPDX-License-Identifier: BSD-3-Clause
"""lib/mempool and lib/mbuf beside rte_mempool and rte_mbuf: the same loops
(bench/dpdk/mempool_perf.c) in separate processes, alternating. Several
processes a side: a process's figures depend on where address-space
randomisation put its memory."""
from harness import core

BULKS = ('1', '8', '32', '128')


def parse(out):
    """{'ROW bulk N': cycles per object} of one process ("name | v | v |
    v | v" rows for bulk 1, 8, 32, 128; '-' where not run)."""
    figs = {}
    for line in out.splitlines():
        f = [x.strip() for x in line.split('|')]
        if len(f) < 2 or f[0].startswith('#') or not f[0]:
            continue
        for bulk, v in zip(BULKS, f[1:]):
            try:
                figs[f'{f[0]} bulk {bulk}'] = float(v)
            except ValueError:
                pass
    return figs


def sides(ctx):
    """lr-mempool-bench, then mempool_perf.c against each DPDK there is."""
    eal = ['-l', '0'] + ctx.mem_args(512, 256)
    out = [core.Side('linerate',
                     [f'{ctx.build}/apps/mempool-bench/lr-mempool-bench'] +
                     eal + ['--file-prefix=bench_mempool_0'])]
    for i, (label, exe, note) in enumerate(
            ctx.peers('bench/dpdk/mempool_perf.c',
                      f'{ctx.build}/bench-dpdk/mempool-perf'), 1):
        if exe:
            out.append(core.Side(label, [exe] + eal + [
                f'--file-prefix=bench_mempool_{i}', '--no-pci',
                '--log-level=*:error'], note=note))
        else:
            out[0].note = ((out[0].note + '; ') if out[0].note else '') + note
    return out


def summary_rows():
    """The rows of the opening table."""
    return ['mempool, cache 256, ring_mp_mc bulk 1',
            'mempool, cache 256, ring_mp_mc bulk 8',
            'mempool, cache 256, ring_mp_mc bulk 32',
            'mbuf alloc_bulk+free_bulk, c512 bulk 1',
            'mbuf alloc_bulk+free_bulk, c512 bulk 32']


COMPARISON = core.Comparison(
    'mempool', 'Mempool and mbuf (lib/mempool, lib/mbuf)',
    'Cycles per object, get+put (or alloc+free for mbufs), one lcore, each '
    'process\'s minimum over its repetitions; DPDK\'s rte_mempool running '
    'the same loops. Seven processes a side: a process\'s figures depend '
    'on its address-space layout (about one in five is 50-70% slower at '
    'bulk 1).',
    sides=sides, parse=parse, rounds=7, unit='cycles/object',
    better='lower', summary=summary_rows())
