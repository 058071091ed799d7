# SPDX-License-Identifier: BSD-3-Clause
"""lr-pktgen's generation rate beside DPDK testpmd's txonly generator on
net_null, one datapath lcore, 64-byte frames, with and without hugepages.

lr-pktgen in seven ways (one stream, 16 streams from a profile, without
stamps, a net_ring loop with and without stamps, the field testpmd's
--txonly-multi-flow varies, four ranged fields), then testpmd txonly plain
and with --txonly-multi-flow (Debian's dpdk-testpmd, and the native build
of scripts/dpdk-native.sh when it is there), all in one round; rounds
alternate. A run's rate is taken over the same window for every program:
lr-pktgen's per-second "[ N s] port 0: tx R Mpps" lines WARM+1 .. WARM+SECS
(their mean); testpmd's cumulative "TX-packets: N" lines of --stats-period
1, each timed as it arrives (stdbuf -oL), from the first with traffic
WARM s on, SECS s long (the growth over the time taken). testpmd has no
duration of its own: SIGINT SECS+WARM+5 s after its first stats line."""
import collections
import json
import os
import re
import shutil
import tempfile

from harness import core, peers, proc

WARM, SECS = 2, 4
TX_RATE = r'^\[ *[0-9.]+s\] port 0: tx +([0-9.]+) Mpps'
CYCLES = r'^datapath: .*, ([0-9.]+) cycles of CPU time a frame sent$'
TESTPMD_TX = r'TX-packets: +([0-9]+)'
# Enough free 2 MiB hugepages for the hugepage rows (-m 512).
HUGE_PAGES = 256

NULL = ['--vdev', 'net_null0']
LOOP = ['--vdev', 'net_ring0', '--vdev', 'net_ring1']
LOOP_OPTS = ['--tx-ports', '0', '--rx-ports', '1', '--drain-ms', '0']
# The field testpmd's --txonly-multi-flow varies in DPDK 22.11: the IPv4
# source address (198.18.X.2+lcore), its checksum computed again.
MFLOW = ['--src-ip', '198.18.0.3-198.18.255.3']
F4 = ['--src-ip', '10.0.0.1-10.0.0.4', '--dst-ip', '10.1.0.1-10.1.0.4',
      '--src-port', '1000-1003', '--dst-port', '2000-2003']
PROFILE = '{profile}'

TXONLY, MULTI = 'txonly', 'multi-flow'
# testpmd's generators: which, its options after --forward-mode=txonly.
TESTPMDS = ((TXONLY, []), (MULTI, ['--txonly-multi-flow']))

# lr-pktgen's runs: its rate row (the memory is appended), its short name
# (the cycles row), its ports, its options after --duration, and the
# testpmd generator whose figure goes beside it (None: linerate alone).
Variant = collections.namedtuple('Variant', 'what short ports opts beside')
VARIANTS = tuple(Variant(*v) for v in (
    ('pktgen vs testpmd txonly, net_null', 'one stream', NULL,
     ['--tx-only'], TXONLY),
    ('pktgen 16 streams x 4 ranged fields vs testpmd txonly, net_null',
     '16 streams x 4 ranged fields', NULL,
     ['--tx-only', '--profile', PROFILE], TXONLY),
    ('pktgen without stamps (--no-stamp) vs testpmd txonly, net_null',
     'one stream, --no-stamp', NULL, ['--tx-only', '--no-stamp'], TXONLY),
    ('pktgen loop net_ring0 -> net_ring1 (stamped, received, counted)',
     'ring loop', LOOP, LOOP_OPTS, None),
    ('pktgen loop net_ring0 -> net_ring1 without stamps (--no-stamp)',
     'ring loop, --no-stamp', LOOP, LOOP_OPTS + ['--no-stamp'], None),
    ('pktgen source IP varying vs testpmd --txonly-multi-flow, net_null',
     'source IP varying', NULL, ['--tx-only'] + MFLOW, MULTI),
    ('pktgen 4 ranged fields vs testpmd txonly, net_null',
     '4 ranged fields', NULL, ['--tx-only'] + F4, TXONLY),
))
MEMORIES = (('huge', ['-m', '512']), ('nohuge', ['--no-huge', '-m', '512']))


def profile16():
    """The 16-stream profile: each stream with 4 ranged fields of 4 values
    (source and destination address and port: 256 flows a stream)."""
    return {'streams': [{'name': f's{i}',
                         'src_ip': f'10.0.{i}.1-10.0.{i}.4',
                         'dst_ip': '10.1.0.1-10.1.0.4',
                         'src_port': '1000-1003',
                         'dst_port': '2000-2003'} for i in range(16)]}


def rate_row(what, mem):
    """The name of a rate row for memory mem ('huge' or 'nohuge')."""
    return f'{what}, {mem}'


def cycles_row(short, mem):
    """The name of a cycles-a-frame row for memory mem."""
    return f'lr-pktgen cycles a frame, {short}, {mem}'


def unit_of(row):
    """Mpps for the rate rows, cycles/frame for the others."""
    return 'cycles/frame' if row.startswith('lr-pktgen cycles') else 'Mpps'


def better_of(row):
    """Higher rates, fewer cycles."""
    return 'lower' if unit_of(row) == 'cycles/frame' else 'higher'


def parse_pktgen(out, what, short, mem):
    """{rate row: Mpps, cycles row: cycles a frame} of one lr-pktgen run:
    the mean of its per-second tx rates WARM+1 .. WARM+SECS, and the
    cycles of its "datapath:" line (the whole run)."""
    figs = {}
    r = core.window_mean(out, TX_RATE, WARM, SECS)
    if r is not None:
        figs[rate_row(what, mem)] = r
    for line in out.splitlines():
        m = re.match(CYCLES, line)
        if m:
            figs[cycles_row(short, mem)] = float(m.group(1))
    return figs


def parse_testpmd(out, rows):
    """{row: Mpps} of one testpmd run: its rate (testpmd_rate) in each of
    rows (the rows of the lr-pktgen runs set against this generator)."""
    r = testpmd_rate(out)
    return {} if r is None else dict.fromkeys(rows, r)


def testpmd_rate(out, warm=WARM, dur=SECS):
    """Mpps of one testpmd run from its timed cumulative TX-packets lines
    (proc.run_timed's output): from the first line WARM s after the first
    one with traffic, to the last line at most SECS+0.5 s after that, the
    growth of the count over the time between them; None when there is no
    such window."""
    pts = proc.timed_lines(out, TESTPMD_TX)
    t0 = next((t for t, n in pts if n > 0), None)
    if t0 is None:
        return None
    start = next(((t, n) for t, n in pts if t >= t0 + warm), None)
    if start is None:
        return None
    ta, na = start
    after = [(t, n) for t, n in pts if ta < t <= ta + dur + 0.5]
    if not after:
        return None
    tb, nb = after[-1]
    return (nb - na) / (tb - ta) / 1e6


def testpmd_peers(ctx):
    """[(label, binary, note)] of the testpmd programs there are, and the
    notes of those missing."""
    found, missing = [], []
    ver = ' '.join(peers.pkg_config(['--modversion', 'libdpdk']) or ['?'])
    if shutil.which('dpdk-testpmd'):
        found.append((f'DPDK {ver} Debian', 'dpdk-testpmd',
                      f'DPDK {ver} Debian: dpdk-testpmd of the package '
                      'dpdk'))
    else:
        missing.append('testpmd (Debian): no peer (apt install dpdk-dev)')
    nexe, cflags = peers.native_program(ctx, 'testpmd')
    if nexe:
        found.append(('DPDK native', nexe, f'DPDK native: testpmd built '
                      f'{cflags} by scripts/dpdk-native.sh'))
    else:
        missing.append('testpmd (native): no peer (no build from '
                       'scripts/dpdk-native.sh)')
    return found, missing


def run_testpmd(ctx, side, log):
    """One testpmd run, its lines timed, SIGINT WARM+SECS+5 s after its
    first stats line: (output, exit status)."""
    return proc.run_timed(ctx, side, TESTPMD_TX, WARM + SECS + 5, log)


def runs(ctx, mem, margs, profile, testpmds):
    """One round's runs for memory mem, in order: [(name, Side, parse of
    its output into {row: value}, run)] (proc.alternate)."""
    lc = ['-l', ctx.lcores()]
    out = []
    for what, short, ports, opts, _ in VARIANTS:
        # Each linerate build once (two with --against: this tree, REV).
        for b in ctx.linerate():
            argv = ([f'{b.build}/apps/pktgen/lr-pktgen'] + margs + lc +
                    ['--file-prefix=bench_pktgen'] + ports +
                    ['--', '--duration', str(WARM + SECS + 1)] +
                    [profile if o == PROFILE else o for o in opts])
            out.append((f'lr-pktgen ({short}, {mem})',
                        core.Side(b.label, argv, timeout=120),
                        lambda o, w=what, s=short: parse_pktgen(o, w, s,
                                                                mem),
                        core.Context.run))
    for label, exe, note in testpmds:
        for gen, extra in TESTPMDS:
            argv = (['stdbuf', '-oL', exe] + margs + lc +
                    ['--no-pci', '--vdev', 'net_null0',
                     '--file-prefix=bench_testpmd', '--log-level=*:error',
                     '--', '--forward-mode=txonly'] + extra +
                    ['--total-num-mbufs=16384', '--stats-period', '1', '-a'])
            rows = [rate_row(v.what, mem) for v in VARIANTS if v.beside == gen]
            out.append((f'testpmd {gen} ({label}, {mem})',
                        core.Side(label, argv, note=note),
                        lambda o, rows=rows: parse_testpmd(o, rows),
                        run_testpmd))
    return out


def measure(ctx, comp, log):
    """Every memory the machine has (hugepages when HUGE_PAGES are free),
    each its own alternating rounds of every run."""
    rows, notes, first, shown = core.Rows(), [], {}, []
    testpmds, missing = testpmd_peers(ctx) if ctx.dpdk else ([], [])
    notes += missing
    tmp = tempfile.mkdtemp(prefix='bench_pktgen_')
    try:
        profile = os.path.join(tmp, 'p16.json')
        with open(profile, 'w') as f:
            json.dump(profile16(), f)
        for mem, margs in MEMORIES:
            if mem == 'huge' and ctx.free_hugepages() < HUGE_PAGES:
                notes.append(f'hugepages: fewer than {HUGE_PAGES} free 2 '
                             'MiB pages, the huge rows skipped')
                continue
            todo = runs(ctx, mem, margs, profile, testpmds)
            shown += [side for _, side, _, _ in todo]
            proc.alternate(ctx, todo, ctx.rounds or comp.rounds, rows,
                           notes, first, log)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        proc.remove_dpdk_leftovers(['bench_testpmd'])
    # Each peer's note once, on its first side.
    seen = set()
    for side in shown:
        if side.note in seen:
            side.note = None
        seen.add(side.note)
    return rows, shown, notes, first


COMPARISON = core.Comparison(
    'pktgen', 'Traffic generation (lr-pktgen on net_null)',
    'lr-pktgen on net_null, one datapath lcore (-l 0-1: the main lcore '
    'prints), 64-byte frames, every frame stamped and counted per stream: '
    'one stream; 16 streams from a profile, each with 4 ranged fields '
    '(source and destination address and port, 4 values each: 256 flows a '
    'stream); one stream with --no-stamp (frames prebuilt once in the '
    'queue\'s pool, nothing counted per stream); a loop net_ring0 -> '
    'net_ring1 on the same lcore (every frame stamped, received, checked '
    'and counted: sequence window, latency histogram, jitter) with and '
    'without --no-stamp; the IPv4 source address varying (the field '
    'testpmd\'s --txonly-multi-flow varies); and 4 ranged fields. Beside '
    'them DPDK 22.11\'s testpmd txonly generator, plain and with '
    '--txonly-multi-flow (Debian\'s dpdk-testpmd, and the native build of '
    'scripts/dpdk-native.sh when present), on net_null the same way; with '
    'hugepages and without (-m 512), all in one round, rounds '
    'alternating, the median of the rounds with the range; ratios '
    'lr-pktgen / testpmd. A run\'s rate: the mean of lr-pktgen\'s '
    'per-second tx '
    f'rates of seconds {WARM + 1}-{WARM + SECS}; for testpmd the growth of '
    'its cumulative TX-packets (--stats-period 1, each line timed as '
    f'printed) from {WARM} s after its first line with traffic, over '
    f'{SECS} s (the warm-up left out alike; SIGINT after the window). '
    'lr-pktgen\'s cycles a frame: its own "datapath:" line, the datapath '
    'lcore\'s CPU time x TSC rate / frames sent, the whole run; the rows '
    'with and without --no-stamp give the cost of building each frame '
    '(copy and stamp) and, in the loop, of the per-stream statistics.',
    measure=measure, rounds=3, unit='Mpps', better='higher',
    unit_of=unit_of, better_of=better_of, against=True,
    summary=[rate_row(v.what, mem) for mem, _ in MEMORIES
             for v in VARIANTS if v.beside])
