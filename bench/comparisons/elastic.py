# SPDX-License-Identifier: BSD-3-Clause
"""Elastic mbuf pools against fixed ones (issue 17).

1. Forwarding cost: lr-l2fwd on two net_null ports (64-byte packets,
   copy=0, one lcore) with its default elastic pool and with a fixed pool
   of the size lr-l2fwd computes (--mbufs N, from its own "mbuf pool: the
   ports need N mbufs" line), alternating, ROUNDS rounds (5: the spread of
   each is asked for); a run's rate as the l2fwd entry takes it.
2. Memory and drops under bursts: lr-elastic-bench (BURST's profile into a
   net_ring port drained by a slow consumer) with a fixed pool at DPDK's
   usual formula (l2fwd's: max(ports x (rxd + txd + burst + lcores x
   cache), 8192) = 8192 here), a fixed pool at the elastic pool's maximum
   (sized for the worst burst) and the elastic pool; then DPDK's fixed
   rte_mempool in the same setup (bench/dpdk/elastic_bench.c: an
   rte_pktmbuf pool, ring_mp_mc, the same cache, DPDK's net_ring driver
   over rte_rings of the same size) at both fixed sizes, against every
   DPDK there is. One run each (BURST_RUNS): the figures are counts of a
   fixed profile."""
import re

from harness import core, proc
from . import l2fwd

ROUNDS = 5
BURST_RUNS = 1
WARM, DUR = l2fwd.WARM, l2fwd.DUR
# lr-elastic-bench's and dpdk-elastic-bench's options after --mbufs.
BURST = {'bursts': 20, 'burst-frames': 24000, 'period-ms': 250,
         'drain-per-ms': 1000, 'idle-ms': 100, 'tail-ms': 2000}
ELASTIC = (1024, 65536)
DPDK_FORMULA = 8192
# Free 2 MiB hugepages to run on hugepages (-m 512), else --no-huge.
HUGE_PAGES = 448
NEED = re.compile(r'^mbuf pool: the ports need ([0-9]+) mbufs')
# The burst rows: the fields of the "elastic-bench pool=..." line summed,
# the row, its unit.
BURST_ROWS = ((('held_peak_MiB',), 'bursts: peak memory the pool holds',
               'MiB'),
              (('held_avg_MiB',), 'bursts: average memory the pool holds',
               'MiB'),
              (('held_end_MiB',), 'bursts: memory the pool holds at the end',
               'MiB'),
              (('drops_nombuf', 'drops_ring_full'),
               'bursts: frames dropped (no mbuf, ring full)', 'frames'),
              (('growths',), 'bursts: pool growths', 'growths'),
              (('shrinks',), 'bursts: pool shrinks', 'shrinks'))
UNITS = {row: unit for _, row, unit in BURST_ROWS}


def fwd_row(huge):
    """The forwarding row's name: the memory it ran on is part of it."""
    return ('lr-l2fwd, 2 x net_null, one lcore (' +
            ('hugepages' if huge else 'no hugepages') + ')')


def unit_of(row):
    """MiB, frames or counts for the burst rows, Mpps for forwarding."""
    return UNITS.get(row, 'Mpps')


def better_of(row):
    """Higher forwarding rates, less memory and fewer drops."""
    return 'lower' if row in UNITS else 'higher'


def parse_fwd(row):
    """The parser of one lr-l2fwd run: its window rate in row."""
    def parse(out):
        """{row: Mpps} of one run (l2fwd's window), {} without one."""
        r = core.window_rate(out, l2fwd.SENT, WARM, DUR)
        return {} if r is None else {row: r}
    return parse


def parse_need(out):
    """The mbufs lr-l2fwd says its ports need (a fixed pool's size), or
    None."""
    for line in out.splitlines():
        m = NEED.match(line)
        if m:
            return int(m.group(1))
    return None


def parse_burst(out):
    """{row: value} of the "elastic-bench pool=..." line of one
    lr-elastic-bench or dpdk-elastic-bench run."""
    for line in out.splitlines():
        if not line.startswith('elastic-bench pool='):
            continue
        f = dict(kv.split('=', 1) for kv in line.split()[1:] if '=' in kv)
        try:
            return {row: sum(float(f[k]) for k in keys)
                    for keys, row, _ in BURST_ROWS}
        except (KeyError, ValueError):
            return {}
    return {}


def burst_side(label, prog, mbufs, mem, extra=()):
    """A burst run of prog (lr-elastic-bench or a DPDK peer) with a pool
    of mbufs ('N' fixed, 'MIN-MAX' elastic), extra EAL options."""
    argv = [prog, '-l', '0'] + mem + list(extra) + ['--', '--mbufs',
                                                    str(mbufs)]
    for k, v in BURST.items():
        argv += [f'--{k}', str(v)]
    return core.Side(label, argv, timeout=BURST['bursts'] *
                     BURST['period-ms'] // 1000 + BURST['tail-ms'] // 1000 +
                     60)


def fwd_side(ctx, label, mem, extra=(), prefix='bench_elastic_fwd',
             seconds=WARM + DUR + 1, stats=1):
    """An lr-l2fwd run on the two net_null ports, extra options after
    --."""
    return core.Side(label, [f'{ctx.build}/apps/l2fwd/lr-l2fwd', '-l', '0']
                     + mem + [f'--file-prefix={prefix}'] + l2fwd.NULLS +
                     ['--', '-p', '0x3', '-T', str(stats), '--duration',
                      str(seconds)] + list(extra),
                     timeout=WARM + DUR + 30)


def burst_runs(ctx, mem, huge):
    """The burst runs: [(name, Side, parse, run)], and the peers' notes."""
    lo, hi = ELASTIC
    ebench = f'{ctx.build}/apps/elastic-bench/lr-elastic-bench'
    eal = ['--file-prefix=bench_elastic_b']
    sides = [burst_side('linerate elastic pool', ebench, f'{lo}-{hi}', mem,
                        eal),
             burst_side(f'linerate fixed {DPDK_FORMULA} (DPDK formula)',
                        ebench, DPDK_FORMULA, mem, eal),
             burst_side(f'linerate fixed {hi} (worst burst)', ebench, hi,
                        mem, eal)]
    notes = []
    # DPDK: no runtime files and no hugepage files left behind
    # (--no-huge implies --legacy-mem, which --in-memory refuses).
    dpdk = (['--no-pci', '--in-memory' if huge else '--no-shconf',
             '--no-telemetry', '--log-level=*:error',
             '--file-prefix=bench_elastic_dpdk'])
    for label, exe, note in ctx.peers('bench/dpdk/elastic_bench.c',
                                      f'{ctx.build}/bench-dpdk/elastic-bench',
                                      ['-lrte_net_ring']):
        if not exe:
            notes.append(note)
            continue
        for n in (DPDK_FORMULA, hi):
            sides.append(burst_side(f'{label} fixed {n}', exe, n, mem, dpdk))
        sides[-2].note = note
    return [(s.label, s, parse_burst, core.Context.run) for s in sides], notes


def measure(ctx, comp, log):
    """Forwarding with both pools in alternating rounds, then each burst
    run once."""
    mem = ctx.mem_args(512, HUGE_PAGES)
    huge = '--no-huge' not in mem
    row = fwd_row(huge)
    notes = ['memory: ' + ('hugepages (-m 512; DPDK --in-memory)' if huge
                           else f'fewer than {HUGE_PAGES} free hugepages: '
                           '--no-huge -m 512 (DPDK --no-shconf)')]
    rows, first, shown = core.Rows(), {}, []
    try:
        probe = fwd_side(ctx, 'probe', mem, prefix='bench_elastic_n',
                         seconds=0.1, stats=0)
        out, _ = ctx.run(probe, log)
        need = parse_need(out)
        todo = [('lr-l2fwd elastic', fwd_side(ctx, 'linerate elastic pool',
                                              mem), parse_fwd(row),
                 core.Context.run)]
        if need:
            todo.append(('lr-l2fwd fixed', fwd_side(
                ctx, f'linerate fixed pool, lr-l2fwd\'s size ({need})', mem,
                ['--mbufs', str(need)]), parse_fwd(row), core.Context.run))
        else:
            notes.append('lr-l2fwd printed no pool size: fixed pool not '
                         f'run: {core.last_line(out)}')
        shown += [t[1] for t in todo]
        proc.alternate(ctx, todo, ctx.rounds or comp.rounds, rows, notes,
                       first, log)
        todo, peer_notes = burst_runs(ctx, mem, huge)
        notes += peer_notes
        shown += [t[1] for t in todo]
        proc.alternate(ctx, todo, BURST_RUNS, rows, notes, first, log)
    finally:
        proc.remove_dpdk_leftovers(['bench_elastic_dpdk'])
    return rows, shown, notes, first


COMPARISON = core.Comparison(
    'elastic', 'Elastic mbuf pools (lib/mbuf over the page allocator)',
    'Elastic against fixed pools. 1. Forwarding: lr-l2fwd on two net_null '
    'ports (size=64, copy=0), one lcore, with its default elastic pool and '
    'with a fixed pool of the size lr-l2fwd computes for its ports '
    f'(--mbufs N), alternating, {ROUNDS} rounds; a run\'s rate is the '
    'growth of its "Total packets sent" from its per-second line '
    f'{WARM} to line {WARM + DUR}, the median of the rounds with the '
    'range; the ratio is elastic / fixed. 2. Bursts into a net_ring port '
    'behind a slow consumer (lr-elastic-bench: '
    f'{BURST["bursts"]} bursts of {BURST["burst-frames"]} '
    f'frames every {BURST["period-ms"]} ms, drained at '
    f'{BURST["drain-per-ms"]} frames a ms, '
    f'{BURST["tail-ms"]} ms after the last; blocks idle for '
    f'{BURST["idle-ms"]} ms given back): the memory the pool holds '
    '(peak, average, at the end) and the frames dropped, for a fixed pool '
    f'at DPDK\'s usual formula ({DPDK_FORMULA}: l2fwd\'s max(ports x (rxd '
    '+ txd + burst + lcores x cache), 8192)), a fixed pool sized for the '
    f'worst burst ({ELASTIC[1]}) and the elastic pool ({ELASTIC[0]}-'
    f'{ELASTIC[1]}), one run each; beside them DPDK\'s fixed rte_mempool '
    'in the same setup at both fixed sizes (bench/dpdk/elastic_bench.c: '
    'an rte_pktmbuf pool, ring_mp_mc, cache 256, DPDK\'s net_ring driver '
    'over rte_rings of 32768; Debian\'s libdpdk and scripts/dpdk-native.sh\'s '
    'build when present). A fixed pool holds its whole populated memory '
    '(linerate: its blocks; DPDK: the chunks rte_mempool_mem_iter() lists; '
    'without hugepages DPDK puts each 2 KiB mbuf in a 4 KiB page of its '
    'own). Ratios are elastic / each other column.',
    measure=measure, rounds=ROUNDS, unit='Mpps', better='higher',
    unit_of=unit_of, better_of=better_of, digits=2)
