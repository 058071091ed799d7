# SPDX-License-Identifier: BSD-3-Clause
"""lib/ring beside DPDK's rte_ring: the same loops (bench/dpdk/ring_perf.c)
in separate processes, alternating."""
from harness import core


def parse(out):
    """{row: cycles} of one lr-ring-bench (or ring_perf) process: each
    process's minimum per item; (a) one lcore, (b) producer/consumer."""
    figs = {}
    sec = None
    for line in out.splitlines():
        t = line.split()
        if not t:
            continue
        if t[0] in ('(a)', '(b)'):
            sec = t[0]
            continue
        if sec is None or t[0] not in ('SP/SC', 'MP/MC'):
            continue
        if t[1] == 'single':
            key, v = f'{t[0]} single', t[2:]
        elif t[1] == 'bulk' and len(t) > 2:
            key, v = f'{t[0]} bulk {t[2]}', t[3:]
        else:
            continue
        try:
            first, second = float(v[0]), float(v[3])
        except (IndexError, ValueError):
            continue
        if sec == '(a)':
            figs[f'(a) one lcore, per item: {key}'] = second
        else:
            figs[f'(b) two lcores, producer: {key}'] = first
            figs[f'(b) two lcores, consumer: {key}'] = second
    return figs


def sides(ctx):
    """lr-ring-bench, then ring_perf.c against each DPDK there is."""
    eal = ['-l', ctx.lcores()] + ctx.mem_args(512, 256)
    out = [core.Side('linerate',
                     [f'{ctx.build}/apps/ring-bench/lr-ring-bench'] + eal +
                     ['--file-prefix=bench_ring_0'])]
    for i, (label, exe, note) in enumerate(
            ctx.peers('bench/dpdk/ring_perf.c',
                      f'{ctx.build}/bench-dpdk/ring-perf'), 1):
        if exe:
            out.append(core.Side(label, [exe] + eal + [
                f'--file-prefix=bench_ring_{i}', '--no-pci',
                '--log-level=*:error'], note=note))
        else:
            out[0].note = ((out[0].note + '; ') if out[0].note else '') + note
    return out


COMPARISON = core.Comparison(
    'ring', 'Lock-free ring (lib/ring)',
    'Cycles per item and per enqueue+dequeue call pair, each process\'s '
    'minimum over its samples; DPDK\'s rte_ring running the same loops '
    '(same ring size, bulk sizes, samples and statistic). (a) one lcore, '
    'enqueue n then dequeue n; (b) a producer and a consumer on two '
    'lcores.',
    sides=sides, parse=parse, rounds=5, unit='cycles/item', better='lower',
    summary=['(a) one lcore, per item: SP/SC bulk 8',
             '(a) one lcore, per item: SP/SC bulk 32',
             '(a) one lcore, per item: MP/MC bulk 8',
             '(a) one lcore, per item: MP/MC bulk 32'])
