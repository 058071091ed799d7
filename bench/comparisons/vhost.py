# SPDX-License-Identifier: BSD-3-Clause
"""vhost: a generator on a virtio-user port -> a forwarder on a vhost-user
port, linerate beside Debian's DPDK 22.11 testpmd in the same run.

Rows of a round, each at 64 and 1518-byte frames (sizes with the FCS, as
lr-pktgen's --size; testpmd gets --txpkts=SIZE-4), alternating, round r
starting at row r (mod 4), so that no row always runs in the same place
of a round, or after the same row:
  lr-pktgen --tx-only (net_virtio_user) -> lr-l2fwd (net_vhost)  linerate
  testpmd txonly (net_virtio_user)      -> testpmd io (net_vhost) DPDK Debian
  lr-pktgen --tx-only                   -> testpmd io            mixed
  testpmd txonly                        -> lr-l2fwd              mixed
Every process has a CPU of its own (generator CPU 0, forwarder CPU 1):
taskset, and lcores on that CPU only (testpmd's main and forwarding lcores
both map to it: --lcores 0@C,1@C). Each program as a user types it: the
forwarder's vhost port listens (iface=S, the default of both drivers), the
generator's virtio-user port connects (path=S), default queues and ring
sizes, lr-pktgen's stamped frames; lr-l2fwd --no-mac-updating so that it
leaves frames unchanged, as testpmd io does.

Topology, and what "forwarded" counts: testpmd txonly never polls a receive
queue (app/test-pmd/txonly.c only transmits), so nothing sent back to a
testpmd generator can be counted: its virtio receive ring fills and the
backend then drops. Counting what comes back would work for lr-pktgen and
not for testpmd; so every pair is measured at the forwarder instead. Its
port 0 is the vhost-user port the generator sends to, its port 1 a
net_null port with no-rx=1 (both drivers have it), a sink that takes every
frame and hands out none: forwarded frames are the forwarder's transmit
counter of port 1 over the window. (Without no-rx the forwarders, which
forward both ways, would also offer net_null's made-up frames to the
vhost port, whose guest does not read them: work that shaped the first
figures of this entry.) So the vhost backend's receive path (the guest's
transmit ring) and the virtio-user frontend's transmit path are measured;
the backend's transmit path is not.

Measuring, the same way for every program (memif.py's window): each prints
its ports' cumulative counters every second (lr-pktgen --stats-period 1,
lr-l2fwd -T 1, testpmd --stats-period 1); every line is stamped as it
arrives with the CPU time of each datapath thread (/proc schedstat). The
window starts WARM s after the last counter watched shows traffic and lasts
SECS s, counters interpolated at its ends: Mpps forwarded, Mpps sent,
forwarder cycles per forwarded frame (TSC rate from lr-pktgen's
calibration), "busy" cycles from the forwarder's exit report
(--record-core-cycles), the share of a CPU each side got (below 100%: the
machine was busy, the row is not to be trusted), and the share of the
frames sent that were not forwarded.

Where the host put the two vCPUs: on the machines this project measures
on (2-vCPU VMs), one cache line's round trip between CPU 0 and CPU 1 is
either about 110 ns or about 550 ns, and it changes every few seconds as
the host moves the vCPUs; every program here hands each frame from one
CPU to the other, so the same binaries give rates 2-4x apart from one run
to the next. So while each run is measured, lr-ring-bench --line-rtt
5000 --every 200 (SCHED_FIFO when we are root, so that it runs at once
beside the spinning programs) times a round trip every 200 ms: 0.5-3 ms
of each CPU, under 1.5%, the same for every pair. Each second of a run's
first PLACE_SECS s from its window's start (the window and 4 s more) goes
with its forwarded rate in a row of its placement, so that a pair's
figure in a placement is the median over every second it spent there.
The placements are the two groups most of this entry's round trips
fall in (each within 1.4x of its centre, the centres over 2x apart):
"CPUs near" the lower, "CPUs far" the higher; a second (or, in the
notes, a run's window) is in one when every round trip timed in it is
in that group. A second in which the placement changed (a probe that
straddled the move times an average between the two), or spent in a
rarer third placement, is in neither. The rows over every run stay
first: those are the figures; the placement rows compare the pairs in
the same conditions, each pair's median over its own seconds in them.
The last row of a size gives each pair one figure over the same mix of
placements: its median in each, weighted by the share of every pair's
seconds that fell there (a median over a pair's runs is in whichever
placement most of its runs had, which the host chose: in one 15-round
run lr-pktgen -> lr-l2fwd had 6 of 15 runs far, the DPDK pair 4).
"""
import math
import os
import re
import subprocess
import tempfile
import time

from harness import core, group, proc, stats
from comparisons import memif

WARM, SECS = 1, 2          # seconds of traffic skipped, seconds measured
PLACE_SECS = 6             # 1-s slices from the window's start, each in
                           # the row of its placement
ROUNDS = 7                 # enough runs in each placement, most often
SIZES = (64, 1518)
# The forwarders' second port: takes every frame, hands out none.
SINK = 'net_null0,no-rx=1'
READY_S = 60               # bound on readiness and traffic: a hung run
PREFIX = 'bench_vhost'
PKTGEN = 'apps/pktgen/lr-pktgen'
L2FWD = 'apps/l2fwd/lr-l2fwd'
RING_BENCH = 'apps/ring-bench/lr-ring-bench'
RTT_TRIPS = 5000           # lr-ring-bench --line-rtt: 0.3-3 ms a probe
RTT_EVERY_MS = 200         # a probe every 200 ms during each run
RTT = re.compile(r'^\(c\) line round trip: .*: [0-9.]+ cycles, ([0-9.]+) ns',
                 re.M)
GAP = 2.0                  # group centres this far apart: two placements
BAND = 1.4                 # a placement's round trips: within this of its
                           # centre
MODE_MIN, MODE_SHARE = 3, 0.05   # a group: this many round trips at least
PLACES = ('near', 'far')

KINDS = ('lr_lr', 'dpdk_dpdk', 'lr_dpdk', 'dpdk_lr')
TITLE = {
    'lr_lr': 'lr-pktgen -> lr-l2fwd',
    'dpdk_dpdk': 'testpmd txonly -> testpmd io',
    'lr_dpdk': 'lr-pktgen -> testpmd io',
    'dpdk_lr': 'testpmd txonly -> lr-l2fwd',
}
# (generator kind, forwarder kind): 'lr' linerate's program, 'tp' testpmd.
PAIRS = {'lr_lr': ('lr', 'lr'), 'dpdk_dpdk': ('tp', 'tp'),
         'lr_dpdk': ('lr', 'tp'), 'dpdk_lr': ('tp', 'lr')}
TARGETS = {'lr_lr': 1.3, 'lr_dpdk': 1.0, 'dpdk_lr': 1.0}

L2_PORT = re.compile(r'^Statistics for port (\d+) ')
L2_SENT = re.compile(r'^Packets sent:\s*(\d+)')
L2_RECV = re.compile(r'^Packets received:\s*(\d+)')
DRIVERS = re.compile(r'\(drivers: ([^);]*)')


def l2fwd_counters():
    """A reader of lr-l2fwd's -T blocks: line -> (port, received, sent) at
    a port's "Packets received" line, else None."""
    st = {'port': None, 'tx': 0}

    def feed(line):
        m = L2_PORT.match(line)
        if m:
            st['port'] = int(m.group(1))
            return None
        if st['port'] is None:
            return None
        m = L2_SENT.match(line)
        if m:
            st['tx'] = int(m.group(1))
            return None
        m = L2_RECV.match(line)
        if m:
            port, st['port'] = st['port'], None
            return port, int(m.group(1)), st['tx']
        return None
    return feed


def drivers_of(text):
    """The driver names an EAL error about an unknown driver lists
    ("(drivers: a, b)"), or None when the text has no such list."""
    m = DRIVERS.search(text)
    if not m:
        return None
    return [d.strip() for d in m.group(1).replace(',', ' ').split()]


def figures(gen, fwd, hz):
    """One run's figures from the windows (seconds, frames, cpu_ns) of the
    generator's sent and the forwarder's forwarded frames."""
    (gdt, gn, gns), (fdt, fn, fns) = gen, fwd
    return {
        'forwarded': fn / fdt / 1e6 if fdt > 0 else 0.0,
        'sent': gn / gdt / 1e6 if gdt > 0 else 0.0,
        'forwarder': fns / 1e9 * hz / fn if fn > 0 else 0.0,
        'generator': gns / 1e9 * hz / gn if gn > 0 else 0.0,
        'forwarder CPU': 100 * fns / 1e9 / fdt if fdt > 0 else 0.0,
        'generator CPU': 100 * gns / 1e9 / gdt if gdt > 0 else 0.0,
        'not forwarded': 100 * (gn - fn) / gn if gn > 0 else 0.0,
    }


def add_figures(rows, size, label, figs):
    """One run's figures into rows ("SIZE B: what")."""
    for what in ('forwarded', 'sent', 'forwarder', 'forwarder busy',
                 'generator', 'forwarder CPU', 'generator CPU',
                 'not forwarded'):
        if figs.get(what) is not None:
            rows.add(f'{size} B: {what}', label, figs[what])


def unit_of(row):
    """A row's unit, from its last words."""
    what = row.rsplit(': ', 1)[-1].split(', ')[0]
    if what in ('forwarded', 'sent'):
        return 'Mpps'
    if what in ('forwarder CPU', 'generator CPU', 'not forwarded'):
        return '%'
    return 'cycles/packet'


def better_of(row):
    """Rates and the CPU the forwarder got: higher is better; cycles and
    frames not forwarded: lower."""
    if unit_of(row) == 'Mpps' or row.endswith('CPU'):
        return 'higher'
    return 'lower'


def place_row(size, place):
    """The row of forwarded Mpps of the runs in one placement."""
    return f'{size} B: forwarded, CPUs {place}'


def mix_row(size):
    """The row of each pair's forwarded Mpps over the same mix of
    placements (add_places())."""
    return f'{size} B: forwarded, placements weighted alike'


def summary_rows(sizes):
    """The rows of the opening table."""
    return [r for s in sizes
            for r in [f'{s} B: forwarded'] +
            [place_row(s, p) for p in PLACES] + [mix_row(s)]]


def modes(rtts):
    """The groups the round trips (ns) fall in, most populated first, at
    most two: (centre ns, count), each group the values within BAND of
    its centre, the centre the median of the densest span 2 BANDs wide;
    a group needs MODE_MIN values and MODE_SHARE of them all."""
    v = sorted(math.log(x) for x in rtts if x and x > 0)
    w, total, out = math.log(BAND), len(v), []
    while v and len(out) < 2:
        best, n, j = 0, 0, 0
        for i in range(len(v)):
            while j < len(v) and v[j] - v[i] <= 2 * w:
                j += 1
            if j - i > n:
                best, n = i, j - i
        c = v[best + n // 2]
        group = [x for x in v if abs(x - c) <= w]
        if len(group) < max(MODE_MIN, MODE_SHARE * total):
            break
        out.append((math.exp(c), len(group)))
        v = [x for x in v if abs(x - c) > w]
    return out


def split_bands(rtts):
    """{'near': (lo, hi), 'far': (lo, hi)}: the round trips (ns) of each
    placement, BAND either side of the centres of the two groups of
    modes(rtts), when those are over GAP apart; None when the round trips
    look like one placement."""
    m = modes(rtts)
    if len(m) < 2:
        return None
    a, b = sorted(c for c, _ in m)
    if b / a <= GAP:
        return None
    return {'near': (a / BAND, a * BAND), 'far': (b / BAND, b * BAND)}


def place_of(rtts, bands):
    """'near', 'far' or None (none probed, moved during the run, or
    elsewhere) from the round trips of a run's window."""
    if not rtts:
        return None
    if bands is None:
        return 'near'
    for place in PLACES:
        lo, hi = bands[place]
        if all(lo <= x <= hi for x in rtts):
            return place
    return None


def add_places(rows, runs, notes):
    """Each run (size, label, key, round trips in its window, Mpps, its
    slices [(round trips, Mpps)]): each slice's Mpps into its placement's
    row; a note of the placements and the count of runs (by their
    windows) and seconds in each."""
    # A run's slices hold its window's round trips: its window counts
    # only when it has no slices.
    bands = split_bands([x for r in runs
                         for x in ([y for sl in r[5] for y in sl[0]]
                                   if r[5] else r[3])])
    count = {'near': 0, 'far': 0, None: 0}
    secs = {'near': 0, 'far': 0, None: 0}
    each = {}   # (size, key) -> {place: runs}
    at = {}     # (size, place) -> seconds of every pair there
    for size, label, key, rtts, fwd, slices in runs:
        place = place_of(rtts, bands)
        count[place] += 1
        c = each.setdefault((size, key), {'near': 0, 'far': 0, None: 0})
        c[place] += 1
        for srtt, mpps in slices:
            sp = place_of(srtt, bands)
            secs[sp] += 1
            if sp is not None and mpps is not None:
                at[(size, sp)] = at.get((size, sp), 0) + 1
                rows.add(place_row(size, sp), label, mpps)
    add_mix(rows, at, notes)
    if bands is None:
        notes.append('placement: the line round trips make one group '
                     f'(no two groups over {GAP:g}x apart): one placement '
                     '("near")')
        return
    (nlo, nhi), (flo, fhi) = bands['near'], bands['far']
    notes.append(f'placement: line round trips of CPUs near '
                 f'{nlo:.0f}-{nhi:.0f} ns, far {flo:.0f}-{fhi:.0f} ns: '
                 f'{count["near"]} runs near, {count["far"]} far, '
                 f'{count[None]} moved, elsewhere or not probed; seconds '
                 f'of the placement rows: {secs["near"]} near, '
                 f'{secs["far"]} far, {secs[None]} in neither')
    # Where each pair's runs fell: a median over every run is in the
    # placement most of them had, which the host chose, not the code.
    for (size, key), c in each.items():
        notes.append(f'placement of {TITLE[key]}, {size} B: {c["near"]} '
                     f'near, {c["far"]} far, {c[None]} moved')


def add_mix(rows, at, notes):
    """Each pair's forwarded Mpps as if its seconds had fallen in the
    placements as every pair's of that size did: its median in each
    placement, weighted by the share of all pairs' seconds there (at:
    (size, place) -> seconds). A median over a pair's runs is in the
    placement most of its runs had, which the host chose; this figure
    weighs the same conditions alike for every pair. A pair with no
    second in a placement the others had gets none, with a note."""
    for size in sorted({sz for sz, _ in at}):
        n = {p: at.get((size, p), 0) for p in PLACES}
        total = sum(n.values())
        cells = {p: rows.values.get(place_row(size, p), {}) for p in PLACES}
        labels = list(dict.fromkeys(lab for p in PLACES for lab in cells[p]))
        for lab in labels:
            lack = [p for p in PLACES if n[p] and lab not in cells[p]]
            if lack:
                notes.append(f'{size} B: {lab}: no second with the CPUs '
                             f'{" or ".join(lack)}, so no figure with the '
                             'placements weighted alike')
                continue
            rows.add(mix_row(size), lab,
                     sum(n[p] / total * stats.median(cells[p][lab])
                         for p in PLACES if n[p]))


def target_notes(rows, labels, sizes):
    """The issue's targets against this run's medians (stats.ratio of
    stats.median): each pair's forwarded Mpps over the DPDK pair's, over
    every run, in each placement, then with the placements weighted
    alike. When the host put the CPUs in two placements, the ratio over
    every run is given but not judged: each pair's median is in the
    placement most of its runs had, which the host chose (a pair near
    against one far compares the placements, not the programs); the
    rows of each placement and the weighted row compare like with
    like."""
    dpdk = labels.get('dpdk_dpdk')
    out = []
    for s in sizes:
        every = f'{s} B: forwarded'
        both = all(rows.values.get(place_row(s, p)) for p in PLACES)
        for row in ([every] + [place_row(s, p) for p in PLACES] +
                    [mix_row(s)]):
            cells = rows.values.get(row, {})
            if dpdk not in cells:
                continue
            base = stats.median(cells[dpdk])
            for key, goal in TARGETS.items():
                lab = labels.get(key)
                if lab not in cells:
                    continue
                r = stats.ratio(stats.median(cells[lab]), base)
                if both and row == every:
                    verdict = ('not judged: the CPUs were in both '
                               'placements, in each pair\'s own share of '
                               f'its runs; target >= {goal} judged in each '
                               'placement and weighted alike')
                else:
                    verdict = (f'target >= {goal}: ' +
                               ('met' if r is not None and r >= goal
                                else 'not met'))
                out.append(f'{row}: {TITLE[key]} / {TITLE["dpdk_dpdk"]} '
                           f'= {stats.fmt(r)} ({verdict})')
    return out


class Bench:
    """What every row of a run shares: the tree, the programs, memory,
    CPUs, the TSC rate and a scratch folder."""

    def __init__(self, ctx, log):
        self.top = ctx.top
        self.log = log
        self.pktgen = os.path.join(ctx.build, PKTGEN)
        self.l2fwd = os.path.join(ctx.build, L2FWD)
        self.ring_bench = os.path.join(ctx.build, RING_BENCH)
        self.tmp = tempfile.mkdtemp(prefix='bench-vhost.')
        self.cpu_gen = 0
        self.cpu_peer = 1 if os.cpu_count() >= 2 else 0
        free = ctx.free_hugepages()
        # Two processes of 128 MiB and the virtio-user regions; on
        # hugepages every process --in-memory (nothing left if killed).
        if free >= 160:
            self.mem = ['-m', '128', '--in-memory']
            self.memtxt = (f'hugepages ({free} free 2 MiB pages), every '
                           'process --in-memory')
        else:
            self.mem = ['--no-huge', '-m', '256']
            self.memtxt = (f'ordinary pages (--no-huge): only {free} free '
                           '2 MiB hugepages')
        self.hz = None

    def run_once(self, argv, timeout=60):
        """Output of a short program run to its end, and its status."""
        try:
            p = subprocess.run(argv, cwd=self.top, capture_output=True,
                               text=True, timeout=timeout)
            return p.stdout + p.stderr, p.returncode
        except (OSError, subprocess.TimeoutExpired) as e:
            return str(e), -1

    def calibrate(self):
        """The TSC rate of one short lr-pktgen on net_null (None when it
        printed none)."""
        out, _ = self.run_once(
            [self.pktgen, '-l', str(self.cpu_gen)] + self.mem +
            ['--file-prefix', f'{PREFIX}_tsc', '--vdev', 'net_null0', '--',
             '--tx-only', '--quiet', '--count', '1', '--stats-period', '1'])
        self.hz = memif.tsc_hz(out)
        return self.hz

    def probe_argv(self):
        """lr-ring-bench timing a line's round trip between the
        generator's CPU and the forwarder's every RTT_EVERY_MS ms (None
        on one CPU); SCHED_FIFO when we are root."""
        if self.cpu_peer == self.cpu_gen:
            return None
        rt = ['chrt', '-f', '1'] if os.geteuid() == 0 else []
        return rt + [self.ring_bench, '-l', f'{self.cpu_gen},{self.cpu_peer}',
                     '--no-huge', '-m', '16', '--in-memory', '--',
                     '--line-rtt', str(RTT_TRIPS),
                     '--every', str(RTT_EVERY_MS)]

    def drivers(self):
        """The port drivers this build of lr-pktgen has (from the error a
        driver name it does not know gives), or None."""
        out, _ = self.run_once(
            [self.pktgen, '-l', str(self.cpu_gen), '--no-huge', '-m', '64',
             '--file-prefix', f'{PREFIX}_drv', '--vdev', 'net_nosuch0',
             '--', '--tx-only', '--duration', '0.1', '--link-wait', '0'])
        return drivers_of(out)

    def version(self, exe):
        """The DPDK version testpmd exe's EAL says with -v, or None."""
        out, _ = self.run_once(
            [exe, '-v', '--no-huge', '-m', '64', '--no-pci', '-l',
             str(self.cpu_gen), '--file-prefix', f'{PREFIX}_ver', '--',
             '-h'])
        m = memif.RTE_VERSION.search(out)
        return m.group(1) if m else None

    def pktgen_argv(self, cpu, size, dev):
        """lr-pktgen sending SIZE-byte frames on the port dev, on cpu."""
        return ([self.pktgen, '-l', str(cpu)] + self.mem +
                ['--file-prefix', f'{PREFIX}_gen', '--vdev', dev, '--',
                 '--tx-only', '--size', str(size), '--quiet',
                 '--stats-period', '1', '--link-wait', str(READY_S)])

    def l2fwd_argv(self, cpu, devs):
        """lr-l2fwd forwarding between the ports devs, on cpu."""
        return ([self.l2fwd, '-l', str(cpu)] + self.mem +
                ['--file-prefix', f'{PREFIX}_fwd'] +
                [x for d in devs for x in ('--vdev', d)] +
                ['--', '-p', '0x3', '-T', '1', '--no-mac-updating',
                 '--record-core-cycles'])

    def testpmd_argv(self, exe, name, cpu, fwd, extra, devs, eal=()):
        """testpmd exe in forwarding mode fwd, both lcores on cpu."""
        return ([exe, '--lcores', f'0@{cpu},1@{cpu}'] + self.mem +
                list(eal) + ['--file-prefix', f'{PREFIX}_{name}',
                             '--no-pci'] +
                [x for d in devs for x in ('--vdev', d)] +
                ['--', f'--forward-mode={fwd}'] + list(extra) +
                ['--stats-period', '1', '-a'])

    def cleanup(self):
        """Remove the scratch folder and every runtime file left."""
        group.remove([self.tmp, f'/var/run/dpdk/{PREFIX}_*',
                      f'/var/run/linerate/{PREFIX}_*'])


class Probe:
    """The round-trip probe beside a run: its figures (ns), each with the
    time it came."""

    def __init__(self, argv, top):
        self.rtts = []
        self.p = None
        if argv:
            self.p = proc.Background(argv, cwd=top, name='probe',
                                     on_line=self.on_line)

    def on_line(self, line):
        """Keep a figure line's ns, stamped."""
        m = RTT.match(line)
        if m:
            self.rtts.append((time.monotonic(), float(m.group(1))))

    def within(self, span):
        """The round trips timed inside span (start, end), or []."""
        if span is None:
            return []
        return [ns for t, ns in self.rtts if span[0] <= t <= span[1]]

    def stop(self):
        """SIGINT, and SIGKILL if it does not end."""
        if self.p is not None:
            self.p.stop(timeout=10)


class RowRun(memif.RowRun):
    """memif's row of processes, reading lr-l2fwd's counters too."""

    def slices(self, spec, start, n):
        """[((t, t + 1), Mpps)] of spec's counter over each of the n
        seconds from start, once the last has been sampled; fewer when a
        program ended or its samples did not come."""
        deadline = start + n + 5
        series = []
        while True:
            series = self.sampler.series(*spec)
            if memif.window(series, start + n - 1, start + n) is not None:
                break
            if time.monotonic() > deadline or \
                    not all(p.alive() for p in self.procs):
                break
            time.sleep(0.25)
        out = []
        for i in range(n):
            w = memif.window(series, start + i, start + i + 1)
            if w is None:
                break
            dt, pk, _ = w
            out.append(((start + i, start + i + 1), pk / dt / 1e6))
        return out

    def start(self, name, kind, cpu, argv):
        """Start argv pinned on cpu; kind 'lr' (lr-pktgen), 'l2'
        (lr-l2fwd) or 'tp' (testpmd) says how its counter lines read."""
        feed = {'lr': memif.lr_counters, 'l2': l2fwd_counters,
                'tp': memif.testpmd_counters}[kind]()

        def on_line(line):
            r = feed(line)
            if r:
                self.sampler.sample(name, *r)
        p = proc.Background(['taskset', '-c', str(cpu)] + argv,
                            cwd=self.b.top, name=name, on_line=on_line)
        p.kind = kind
        self.procs.append(p)
        return p


def run_row(b, key, size, exe):
    """One generator -> forwarder row: (figures or None, RowRun, the line
    round trips (ns) timed in its window, its slices [(round trips, Mpps)]
    from the window's start)."""
    gk, fk = PAIRS[key]
    sock = os.path.join(b.tmp, 'vhost.sock')
    run = RowRun(b)
    if fk == 'lr':
        fargv = b.l2fwd_argv(b.cpu_peer, [f'net_vhost0,iface={sock}',
                                          SINK])
    else:
        fargv = b.testpmd_argv(exe, 'fwd', b.cpu_peer, 'io',
                               ['--record-core-cycles'],
                               [f'net_vhost0,iface={sock}', SINK])
    dev = f'net_virtio_user0,path={sock}'
    if gk == 'lr':
        gargv = b.pktgen_argv(b.cpu_gen, size, dev)
    else:
        # DPDK's virtio-user shares its memory as one file a segment list.
        gargv = b.testpmd_argv(exe, 'gen', b.cpu_gen, 'txonly',
                               [f'--txpkts={size - 4}'], [dev],
                               ['--single-file-segments'])
    probe = None
    try:
        figs = None
        run.start('fwd', 'l2' if fk == 'lr' else 'tp', b.cpu_peer, fargv)
        ok = run.wait_socket('fwd', sock)
        if ok:
            run.start('gen', gk, b.cpu_gen, gargv)
        w, slices = None, []
        if ok and run.datapath('gen') and run.datapath('fwd'):
            probe = Probe(b.probe_argv(), b.top)
            w = run.measure([('gen', 0, 'tx', 'gen'),
                             ('fwd', 1, 'tx', 'fwd')])
            if w is not None and probe.p is not None:
                slices = [(probe.within(span), mpps) for span, mpps in
                          run.slices(('fwd', 1, 'tx', 'fwd'), run.span[0],
                                     PLACE_SECS)]
            probe.stop()
        if w is None:
            run.failed()
        else:
            figs = figures(w[0], w[1], b.hz)
        run.stop(['gen', 'fwd'])
        if figs is not None:
            figs['forwarder busy'] = memif.busy_cycles(
                run.proc('fwd').output())
        return (figs, run, probe.within(run.span) if probe else [],
                slices)
    finally:
        if probe is not None and probe.p is not None:
            probe.p.kill()
        run.kill()
        group.remove([sock])


def columns(b, notes):
    """{row key: (column label, testpmd binary)} of the rows that can run
    with this build and what is installed, and the columns' notes; a note
    for each row left out."""
    exe = subprocess.run(['sh', '-c', 'command -v dpdk-testpmd'],
                         capture_output=True, text=True).stdout.strip()
    deb = None
    if exe:
        ver = b.version(exe) or 'DPDK ?'
        deb = (f'{ver} Debian', exe)
    have = b.drivers() or []
    cols, side_notes = {}, {}
    for key in KINDS:
        gk, fk = PAIRS[key]
        need = (['net_virtio_user'] if gk == 'lr' else []) + \
            (['net_vhost'] if fk == 'lr' else [])
        miss = [d for d in need if d not in have]
        if miss:
            notes.append(f'{TITLE[key]}: not run: this build has no '
                         f'{" or ".join(miss)} (drivers: '
                         f'{", ".join(have) or "?"})')
            continue
        if 'tp' in (gk, fk) and deb is None:
            notes.append(f'{TITLE[key]}: not run (dpdk-testpmd is not '
                         'installed: apt install dpdk)')
            continue
        if key == 'lr_lr':
            cols[key] = ('linerate', None)
        elif key == 'dpdk_dpdk':
            cols[key] = (deb[0], deb[1])
            side_notes[deb[0]] = f'{deb[0]}: {exe}'
        else:
            cols[key] = (TITLE[key], deb[1])
            side_notes[TITLE[key]] = (f'{TITLE[key]}: a mixed pair, '
                                      f'testpmd of {deb[0]}')
    return cols, side_notes


def round_order(cols, r):
    """The rows of round r, (key, value) of cols from row r (mod rows) on,
    then the first ones: over len(cols) rounds each row runs once in every
    place of a round, and no row always runs after the same one."""
    items = list(cols.items())
    k = r % len(items) if items else 0
    return items[k:] + items[:k]


def measure(ctx, comp, log):
    """Every round: each size, the rows alternating, a row's two processes
    started together and measured over one window."""
    rows = core.Rows()
    notes, lines, first = [], {}, {}
    b = Bench(ctx, log)
    cols = {}
    try:
        if not b.calibrate():
            notes.append('lr-pktgen on net_null printed no tsc_hz: nothing '
                         'measured')
            return rows, [], notes, first
        cols, side_notes = columns(b, notes)
        notes.append(
            f'memory: {b.memtxt}; generator on CPU {b.cpu_gen}, forwarder '
            f'on CPU {b.cpu_peer}; TSC {b.hz / 1e9:.3f} GHz (lr-pktgen\'s '
            'calibration)')
        if b.cpu_peer == b.cpu_gen:
            notes.append('one CPU: every row\'s two processes share CPU 0')
        rounds = ctx.rounds or comp.rounds
        runs = []   # (size, label, key, window round trips, Mpps, slices)
        for size in SIZES:
            for r in range(rounds):
                for key, (label, exe) in round_order(cols, r):
                    figs, run, rtts, slices = run_row(b, key, size, exe)
                    log(f'  {size} B, round {r + 1}: {TITLE[key]}: '
                        f'{figs["forwarded"] if figs else 0:.2f} Mpps, '
                        'line round trips (ns) '
                        f'{" ".join(f"{x:.0f}" for x in rtts)}')
                    runs.append((size, label, key, rtts,
                                 figs['forwarded'] if figs else None,
                                 slices))
                    seen = first.setdefault(label, {})
                    if key not in seen:
                        seen[key] = '\n'.join(x for p in run.procs
                                              for x in p.lines)
                        lines.setdefault(label, []).extend(
                            [f'# {TITLE[key]}, {size} B'] + run.commands())
                    notes += [f'{TITLE[key]}, {size} B, round {r + 1}: {n}'
                              for n in run.notes]
                    if figs is not None:
                        add_figures(rows, size, label, figs)
        add_places(rows, runs, notes)
    finally:
        b.cleanup()
    notes += target_notes(rows, {k: v[0] for k, v in cols.items()}, SIZES)
    order = list(dict.fromkeys(label for label, _ in cols.values()))
    sides = [group.Together(lab, lines.get(lab, []), side_notes.get(lab))
             for lab in order]
    outs = {lab: '\n'.join(v.values()) for lab, v in first.items()}
    return rows, sides, notes, outs


COMPARISON = core.Comparison(
    'vhost', 'Over vhost-user: linerate and DPDK testpmd',
    f'{" and ".join(map(str, SIZES))}-byte frames from a generator on a '
    'virtio-user port to a forwarder on the vhost-user port it connects '
    'to, which sends them on to a net_null sink (no-rx=1): lr-pktgen -> lr-l2fwd '
    '(linerate), Debian\'s testpmd txonly -> testpmd io (DPDK), and the '
    'two mixed pairs; each process pinned on a CPU of its own (generator '
    'CPU 0), default devargs, rows alternating in each round, round r '
    'starting at row r (mod 4). '
    'Forwarded: the forwarder\'s transmit counter of its sink port over a '
    f'window of {SECS} s after {WARM} s of traffic, read from the '
    'programs\' per-second counters and interpolated at its ends, the '
    'same for every pair (testpmd txonly never reads its receive queue, so '
    'what came back to the generator could not be counted). During each '
    'window a cache line\'s round trip between the two CPUs is timed every '
    f'{RTT_EVERY_MS} ms (lr-ring-bench --line-rtt {RTT_TRIPS} --every '
    f'{RTT_EVERY_MS}, SCHED_FIFO, under 1.5% of each CPU): this VM\'s host '
    'moves its vCPUs every few seconds between placements whose round trips '
    f'differ about 5x, so each second of a run\'s first {PLACE_SECS} s from '
    'its window\'s start also goes, with its forwarded rate, in a row of its '
    'placement ("CPUs near", "CPUs far": the two most populated groups of '
    'round trips; a second in which it moved is in neither), where the '
    'pairs are compared in the same conditions, each over the seconds it '
    'spent there, and with the placements weighted alike (each pair\'s '
    'medians in the two placements weighted by the share of all pairs\' '
    'seconds in each). '
    'Targets (issue 37): linerate >= 1.3x the DPDK pair, each mixed pair '
    '>= 1.0x, judged in each placement and with the placements weighted '
    'alike; the ratio over every run is shown, not judged, when the CPUs '
    'were in both placements (a pair\'s median over its runs is in the '
    'placement most of them had).',
    measure=measure, rounds=ROUNDS, unit_of=unit_of, better_of=better_of,
    summary=summary_rows(SIZES),
    against='net_vhost and net_virtio_user are newer than the old tree '
            '(057e1de has neither): nothing moved to compare')
