# SPDX-License-Identifier: BSD-3-Clause
"""lr-l2fwd beside DPDK's l2fwd example on two net_null ports (64-byte
packets, copy=0, MAC updating, one lcore), and the same forwarding loop on
net_ring ports fed by a generator (lr-l2fwd-ring-bench, linerate alone).

Every program prints a stats line a second (-T 1); a run's rate is the
growth of its "Total packets sent" between its line WARM and the one DUR
lines later: DPDK's l2fwd climbs over its first 3-4 s, so the warm-up is
left out for every program alike."""
import re

from harness import core, peers

WARM, DUR = 4, 4
SENT = r'Total packets sent: *([0-9]+)'
NULLS = ['--vdev', 'net_null0,size=64,copy=0',
         '--vdev', 'net_null1,size=64,copy=0']


def row(ctx):
    """The row's name: the memory it ran on is part of it."""
    huge = '--no-huge' not in ctx.mem_args(256, 192)
    return ('l2fwd, 2 x net_null, one lcore (' +
            ('hugepages' if huge else 'no hugepages') + ')')


def sides(ctx):
    """lr-l2fwd, DPDK's l2fwd example (Debian), the native build's l2fwd
    (lr-l2fwd alone when ctx.dpdk is False: --against)."""
    mem = ctx.mem_args(256, 192)
    t = WARM + DUR + 1
    out = [core.Side('linerate', [f'{ctx.build}/apps/l2fwd/lr-l2fwd', '-l',
                                  '0'] + mem + ['--file-prefix=bench_l2fwd']
                     + NULLS + ['--', '-p', '0x3', '-T', '1', '--duration',
                                str(t)])]
    if not ctx.dpdk:
        return out
    dpdk = mem + ['--no-pci', '--file-prefix=bench_dpdk_l2fwd',
                  '--log-level=*:error'] + NULLS + ['--', '-p', '0x3', '-q',
                                                    '2', '-T', '1']
    ver = ' '.join(peers.pkg_config(['--modversion', 'libdpdk']) or ['?'])
    exe, why = peers.l2fwd_example(ctx)
    if exe:
        out.append(core.Side(f'DPDK {ver} Debian', [exe, '-l', '0'] + dpdk,
                             stop_after=t + 1,
                             note=f'DPDK {ver} Debian: the l2fwd example '
                                  'built by its own Makefile against '
                                  'libdpdk-dev; SIGINT after its window'))
    else:
        out[0].note = f'DPDK l2fwd (Debian): {why}'
    nexe, cflags = peers.native_program(ctx, 'l2fwd')
    if nexe:
        out.append(core.Side('DPDK native', [nexe, '-l', '0'] + dpdk,
                             stop_after=t + 1,
                             note=f'DPDK native: l2fwd built {cflags}'))
    return out


def parse_for(ctx):
    """The parser of one run: its window rate in the row of this memory."""
    name = row(ctx)

    def parse(out):
        r = core.window_rate(out, SENT, WARM, DUR)
        return {} if r is None else {name: r}
    return parse


def measure(ctx, comp, log):
    """Rounds as any entry, the row named after the memory used."""
    comp.parse = parse_for(ctx)
    comp.summary = [row(ctx)]
    comp.measure_fn = None
    try:
        return comp.measure(ctx, log)
    finally:
        comp.measure_fn = measure


COMPARISON = core.Comparison(
    'l2fwd', 'Forwarding (lr-l2fwd)',
    'lr-l2fwd on two net_null ports (size=64, copy=0), one forwarding '
    'lcore, MAC updating, beside DPDK\'s l2fwd example in the same '
    'configuration (Debian\'s, and scripts/dpdk-native.sh\'s build when '
    f'present), rounds alternating. A run\'s rate: Mpps forwarded from its '
    f'per-second line {WARM} to line {WARM + DUR} (warm-up left out alike). '
    'Target: 14.88 Mpps (64-byte line rate of 10 GbE) on one core.',
    sides=sides, measure=measure, rounds=3, unit='Mpps', better='higher',
    against=True)

RING_TOTAL = re.compile(r'^ring-fwd total: .*\bMpps=([0-9.]+)')


def parse_ring(out):
    """{'forwarded': Mpps} of lr-l2fwd-ring-bench's closing line."""
    for line in out.splitlines():
        m = RING_TOTAL.match(line)
        if m:
            return {'forwarded, 2 x net_ring': float(m.group(1))}
    return {}


def ring_sides(ctx):
    """lr-l2fwd-ring-bench with the generator on its own lcore (two CPUs)
    and sharing the forwarder's."""
    b = f'{ctx.build}/apps/l2fwd/lr-l2fwd-ring-bench'
    mem = ctx.mem_args(256, 192)
    args = ['--file-prefix=bench_ringfwd', '--', '--duration', str(DUR)]
    out = []
    if ctx.lcores() == '0-1':
        out.append(core.Side('linerate, generator on lcore 1',
                             [b, '-l', '0-1'] + mem + args))
    out.append(core.Side('linerate, one lcore',
                         [b, '-l', '0'] + mem + args + ['--one-lcore']))
    return out


RING = core.Comparison(
    'l2fwd_ring', 'Forwarding on net_ring ports (lr-l2fwd-ring-bench)',
    'The forwarding loop of lr-l2fwd on two net_ring ports fed by a '
    'generator, MAC updating, '
    'with the generator on its own lcore and sharing the forwarder\'s '
    '(--one-lcore); linerate alone (DPDK\'s l2fwd has no such mode).',
    sides=ring_sides, parse=parse_ring, rounds=3, unit='Mpps',
    better='higher')
