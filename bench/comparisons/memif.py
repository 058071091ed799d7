# SPDX-License-Identifier: BSD-3-Clause
"""memif: generator -> receiver pairs over one memif link, and lr-pktgen ->
forwarder -> lr-pktgen over two, linerate beside DPDK 22.11's testpmd in
the same run (Debian's dpdk-testpmd, and the native build of
scripts/dpdk-native.sh when it is there).

Rows of a round, each at 64 and 1518-byte frames (sizes with the FCS, as
lr-pktgen's --size; testpmd gets --txpkts=SIZE-4), alternating:
  lr-pktgen --tx-only      -> lr-pktgen --rx-only           column linerate
  testpmd txonly (client)  -> testpmd rxonly (server)       DPDK Debian
  the same with the native testpmd                          DPDK native
  lr-pktgen --tx-only      -> testpmd rxonly                a column each
  testpmd txonly           -> lr-pktgen --rx-only
  lr-pktgen (tx port 0, rx port 1) -> lr-l2fwd   -> lr-pktgen   linerate
  lr-pktgen (tx port 0, rx port 1) -> testpmd io -> lr-pktgen   DPDK ...
  the same with the native testpmd
Every process has a CPU of its own (generator CPU 0, receiver or
forwarder CPU 1): taskset, and lcores on that CPU only (testpmd's main and
forwarding lcores both map to it: --lcores 0@C,1@C).

Measuring, the same way for every program: each prints its ports'
cumulative counters every second (lr-pktgen --stats-period 1, testpmd
--stats-period 1). The harness stamps every such line as it arrives and
reads, at that moment, the CPU time of every datapath thread of the run
(/proc/PID/task/TID/schedstat). The window starts WARM s after the first
line showing traffic on the last side to see it and lasts SECS s; counters
and CPU times at its ends are interpolated between the lines around them,
so both sides are measured over the very same window. Mpps = packets /
seconds; cycles per packet = datapath CPU time x the TSC rate (lr-pktgen's,
calibrated against CLOCK_MONOTONIC_RAW) / packets; "CPU" the share of a
CPU the datapath thread got. "busy" cycles: each program's exit report
with --record-core-cycles (the polls that moved frames, over those frames:
a side's own cost whoever is the bottleneck; testpmd txonly counts every
pass); busy share = busy cycles x rate / TSC: the side near 100% sets the
pace.

Roles and copies (the defaults; MEMIF_* in the environment change them,
see options()): on a memif link the client owns the buffers; a server
copies every frame it sends and every frame it receives unless it is a
linerate server with zero-copy=yes (it then receives in the client's
buffers); a client copies unless it is zero-copy=yes. A pair's generator
is the client (as DPDK's reference pair: bench/reference/), the receiver
the server; each forwarder's two ports are clients and lr-pktgen's the
servers: lr-l2fwd then forwards with no copy (its zero-copy client ports),
testpmd io with two (DPDK 22.11's zero-copy=yes announces unsealed memfds,
which linerate's server refuses: a peer that shrank one would make the
server fault), lr-pktgen sends by copy. Frames are unstamped (--no-stamp)
on both lr-pktgen sides, so a receiver counts and frees unread, as testpmd
rxonly does.

A testpmd always stops first: DPDK 22.11's rxonly server whose client
left before it sometimes died of SIGSEGV in its receive (it tears the
client's memory down under its own datapath); linerate's ports take a
peer leaving at any time.
"""
import os
import re
import subprocess
import tempfile
import threading
import time

from harness import core, peers, group, proc

WARM, SECS = 1, 2          # seconds of traffic skipped, seconds measured
SIZES = (64, 1518)
READY_S = 60               # bound on readiness and traffic: a hung run
PREFIX = 'bench_memif'
REF = 'bench/reference/dpdk-22.11-memif.tsv'
PKTGEN = 'apps/pktgen/lr-pktgen'
L2FWD = 'apps/l2fwd/lr-l2fwd'

KINDS = ('lr_lr', 'dpdk_dpdk', 'ndpdk_ndpdk', 'lr_dpdk', 'dpdk_lr',
         'fwd_lr', 'fwd_dpdk', 'fwd_ndpdk')
TITLE = {
    'lr_lr': 'lr-pktgen -> lr-pktgen',
    'dpdk_dpdk': 'testpmd txonly -> testpmd rxonly',
    'ndpdk_ndpdk': 'testpmd-native txonly -> rxonly',
    'lr_dpdk': 'lr-pktgen -> testpmd rxonly',
    'dpdk_lr': 'testpmd txonly -> lr-pktgen',
    'fwd_lr': 'lr-pktgen -> lr-l2fwd -> lr-pktgen',
    'fwd_dpdk': 'lr-pktgen -> testpmd io -> lr-pktgen',
    'fwd_ndpdk': 'lr-pktgen -> testpmd-native io -> lr-pktgen',
}
# (generator kind, receiver kind) of the pairs: 'lr' lr-pktgen, 'tp'
# testpmd; the forwarder's kind of the forwarder rows.
PAIRS = {'lr_lr': ('lr', 'lr'), 'dpdk_dpdk': ('tp', 'tp'),
         'ndpdk_ndpdk': ('tp', 'tp'), 'lr_dpdk': ('lr', 'tp'),
         'dpdk_lr': ('tp', 'lr')}
FWDS = {'fwd_lr': 'lr', 'fwd_dpdk': 'tp', 'fwd_ndpdk': 'tp'}

DEFAULTS = {'GEN_ROLE': 'client', 'FWD_ROLE': 'client', 'FWD_ZC': 'yes',
            'FWD_STAMP': 'no', 'PAIR_STAMP': 'no', 'LR_ZC': 'auto',
            'ROWS': ' '.join(KINDS), 'SIZES': ' '.join(map(str, SIZES))}
CHOICES = {'GEN_ROLE': ('client', 'server'),
           'FWD_ROLE': ('client', 'server', 'mixed'),
           'FWD_ZC': ('yes', 'no'), 'FWD_STAMP': ('yes', 'no'),
           'PAIR_STAMP': ('yes', 'no'), 'LR_ZC': ('auto', 'yes', 'no')}


def options(env=None):
    """(options, None) from MEMIF_<NAME> in the environment, else the
    defaults; (None, why) when one is not valid.
    GEN_ROLE: the generator's memif role in the linerate and the mixed
    pairs (the receiver takes the other); FWD_ROLE: the forwarders' port
    roles (client: both, server: both, mixed: port 0 server, port 1
    client; lr-pktgen takes the other role of each link); FWD_ZC: zero-copy
    on lr-l2fwd's client ports; FWD_STAMP, PAIR_STAMP: stamped frames
    (checked on receipt) in the forwarder rows, in the pairs; LR_ZC:
    zero-copy=yes on linerate clients and lr-pktgen's servers (auto: when
    net_memif takes it); ROWS: a subset of KINDS; SIZES: frame sizes."""
    env = os.environ if env is None else env
    o = {k: env.get('MEMIF_' + k, v) for k, v in DEFAULTS.items()}
    for k, allowed in CHOICES.items():
        if o[k] not in allowed:
            return None, f'MEMIF_{k}={o[k]!r}: one of {", ".join(allowed)}'
    o['ROWS'] = o['ROWS'].split()
    bad = [r for r in o['ROWS'] if r not in KINDS]
    if bad:
        return None, f'MEMIF_ROWS: unknown {" ".join(bad)} ({" ".join(KINDS)})'
    try:
        o['SIZES'] = [int(s) for s in o['SIZES'].split()]
    except ValueError:
        return None, f'MEMIF_SIZES={o["SIZES"]!r}: frame sizes'
    return o, None


# ---- the programs' output ----

LR_STATS = re.compile(r'^stats t=[0-9.]+ port=(\d+) ipackets=(\d+) '
                      r'opackets=(\d+)')
BUSY = re.compile(r'CPU cycles/packet=([0-9.]+)')
TSC = re.compile(r'^stats period_s=[0-9.]+ tsc_hz=(\d+)$')
RTE_VERSION = re.compile(r"RTE Version: '([^']+)'")


def lr_counters():
    """A reader of lr-pktgen's lines: line -> (port, ipackets, opackets)
    of a "stats t=... port=P ipackets=N opackets=N" line, else None."""
    def feed(line):
        m = LR_STATS.match(line)
        return (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m \
            else None
    return feed


def testpmd_counters():
    """A reader of testpmd's --stats-period blocks: line -> (port,
    RX-packets, TX-packets) at a port's TX-packets line, else None."""
    st = {'port': 0, 'rx': 0, 'in': False}

    def feed(line):
        m = re.search(r'NIC statistics for port (\d+)', line)
        if m:
            st['port'], st['in'] = int(m.group(1)), True
            return None
        if not st['in']:
            return None
        m = re.search(r'RX-packets:\s*(\d+)', line)
        if m:
            st['rx'] = int(m.group(1))
            return None
        m = re.search(r'TX-packets:\s*(\d+)', line)
        if m:
            st['in'] = False
            return st['port'], st['rx'], int(m.group(1))
        return None
    return feed


def busy_cycles(text):
    """The last "CPU cycles/packet=X" of a program's exit report (lr-pktgen,
    lr-l2fwd and testpmd with --record-core-cycles), or None."""
    v = BUSY.findall(text)
    return float(v[-1]) if v else None


def tsc_hz(text):
    """The TSC rate lr-pktgen --stats-period printed, or None."""
    for line in text.splitlines():
        m = TSC.match(line)
        if m:
            return int(m.group(1))
    return None


# ---- the window ----

class Sampler:
    """Counter lines of every process of a run, each stamped with its
    arrival time and the CPU time of every datapath thread watched."""

    def __init__(self):
        self.threads = {}
        self.samples = {}
        self.lock = threading.Lock()

    def watch(self, name, pid, tid):
        """Read thread tid of pid's CPU time at every sample, as name."""
        self.threads[name] = (pid, tid)

    def sample(self, name, port, rx, tx):
        """Record one counter line of process name, now."""
        now = time.monotonic()
        cpus = {n: group.thread_cpu_ns(pid, tid)
                for n, (pid, tid) in list(self.threads.items())}
        with self.lock:
            self.samples.setdefault(name, []).append(
                (now, port, rx, tx, cpus))

    def series(self, name, port, col, who):
        """[(time, counter, cpu_ns)]: process name's port's counter col
        ('rx' or 'tx') with thread who's CPU time, where known."""
        i = 2 if col == 'rx' else 3
        with self.lock:
            s = list(self.samples.get(name, []))
        return [(x[0], x[i], x[4][who]) for x in s
                if x[1] == port and x[4].get(who) is not None]


def first_traffic(series):
    """Time of the first sample with a non-zero counter, or None."""
    return next((t for t, c, _ in series if c > 0), None)


def at(series, x):
    """(counter, cpu_ns) at time x, interpolated linearly between the
    samples around it; None when no two samples bracket x."""
    for (t0, c0, u0), (t1, c1, u1) in zip(series, series[1:]):
        if t0 <= x <= t1:
            f = (x - t0) / (t1 - t0) if t1 > t0 else 1
            return c0 + f * (c1 - c0), u0 + f * (u1 - u0)
    return None


def window(series, start, end):
    """(seconds, packets, cpu_ns) between the times start and end, or
    None while no sample at or after end has come."""
    a, b = at(series, start), at(series, end)
    if a is None or b is None:
        return None
    return end - start, b[0] - a[0], b[1] - a[1]


def figures(gen, peer, hz):
    """One run's figures from the two sides' windows (seconds, packets,
    cpu_ns): Mpps, TSC cycles per packet and CPU share of each side, and
    the gap: the share of the generator's frames the peer did not count
    (timing noise for a pair; with a forwarder its drops too)."""
    out = {}
    for k, (dt, n, ns) in (('gen', gen), ('peer', peer)):
        out[k + '_mpps'] = n / dt / 1e6 if dt > 0 else 0.0
        out[k + '_cyc'] = ns / 1e9 * hz / n if n > 0 else 0.0
        out[k + '_cpu'] = 100 * ns / 1e9 / dt if dt > 0 else 0.0
    out['gap'] = 100 * (gen[1] - peer[1]) / gen[1] if gen[1] > 0 else 0.0
    return out


# ---- roles, modes and command lines ----

def other(role):
    """The other memif role."""
    return 'client' if role == 'server' else 'server'


def mode(role, kind, zc, zrx=False):
    """How a side moves frames: a linerate client with zero-copy lends its
    buffers; a linerate server given zero-copy=yes (zrx: lr-pktgen's
    server ports) receives in the client's buffers; else it copies."""
    if kind == 'lr' and zc and role == 'client':
        return 'zero-copy'
    if kind == 'lr' and zc and zrx:
        return 'zero-copy rx'
    return 'copy'


def vdev(n, role, sock, zc, zrx=False):
    """The devargs of memif port n; zero-copy=yes on a client with zc, and
    on a server with zc and zrx."""
    v = f'net_memif{n},role={role},socket={sock},socket-abstract=no'
    return v + (',zero-copy=yes' if zc and (role == 'client' or zrx) else '')


def fwd_roles(opts):
    """The forwarder's port roles (port 0, port 1)."""
    r = opts['FWD_ROLE']
    return ('server', 'client') if r == 'mixed' else (r, r)


def fwd_copies(opts, kind, zc, fzc):
    """(lr-pktgen's, the forwarder's) copies of each frame: lr-pktgen sends
    on port 0 (a copy unless a zero-copy client) and receives on port 1 (a
    copy unless zero-copy); each forwarder port copies unless it is a
    zero-copy client (lr-l2fwd's port 0 then receives into port 1's
    pool)."""
    f0, f1 = fwd_roles(opts)
    z = fzc if kind == 'lr' else False
    g = (mode(other(f0), 'lr', zc) != 'zero-copy') + \
        (mode(other(f1), 'lr', zc, True) == 'copy')
    f = (mode(f0, kind, z) != 'zero-copy') + (mode(f1, kind, z) != 'zero-copy')
    return g, f


def pair_roles(key, opts):
    """(generator role, receiver role) of a pair: DPDK's pair as its
    reference, txonly client; the others after MEMIF_GEN_ROLE."""
    if key in ('dpdk_dpdk', 'ndpdk_ndpdk'):
        return 'client', 'server'
    return opts['GEN_ROLE'], other(opts['GEN_ROLE'])


def roles_text(key, opts, zc, fzc):
    """What runs in row key, with which roles and copy modes."""
    if key in PAIRS:
        gk, rk = PAIRS[key]
        gr, rr = pair_roles(key, opts)
        name = {'lr': 'lr-pktgen', 'tp': 'testpmd'}
        gm = mode(gr, gk, zc)
        return (f'{TITLE[key]}: generator {name[gk]} {gr} ({gm}), receiver '
                f'{name[rk]} {rr} ({mode(rr, rk, zc, True)})')
    kind = FWDS[key]
    f0, f1 = fwd_roles(opts)
    z = fzc if kind == 'lr' else False
    g, f = fwd_copies(opts, kind, zc, fzc)
    fname = 'lr-l2fwd' if kind == 'lr' else 'testpmd io'
    extra = (', --no-mac-updating (frames unchanged, as testpmd io)'
             if kind == 'lr' else '')
    return (f'{TITLE[key]}: {fname} port 0 {f0} ({mode(f0, kind, z)}), '
            f'port 1 {f1} ({mode(f1, kind, z)}); lr-pktgen port 0 '
            f'{other(f0)} ({mode(other(f0), "lr", zc)}), port 1 {other(f1)} '
            f'({mode(other(f1), "lr", zc, True)}){extra}; copies a frame: '
            f'lr-pktgen {g}, forwarder {f}')


class Bench:
    """What every row of a run shares: the tree, the programs, memory,
    CPUs, the TSC rate, zero-copy, the options and a scratch folder."""

    def __init__(self, ctx, opts, log):
        self.top = ctx.top
        self.opts = opts
        self.log = log
        self.builds = [lr.build for lr in ctx.linerate()]
        self.use(ctx.build)
        self.tmp = tempfile.mkdtemp(prefix='bench-memif.')
        self.cpu_gen = 0
        self.cpu_peer = 1 if os.cpu_count() >= 2 else 0
        free = ctx.free_hugepages()
        # Two processes of 128 MiB and the client's region; on hugepages
        # every process --in-memory (nothing left even if killed).
        if free >= 160:
            self.mem = ['-m', '128', '--in-memory']
            self.memtxt = (f'hugepages ({free} free 2 MiB pages), every '
                           'process --in-memory')
        else:
            self.mem = ['--no-huge', '-m', '256']
            self.memtxt = (f'ordinary pages (--no-huge): only {free} free '
                           '2 MiB hugepages')
        self.hz = None
        self.zc = False
        self.testpmd = {}

    def use(self, build):
        """Run lr-pktgen and lr-l2fwd from the build folder build from now
        on (the linerate build of the next row)."""
        self.pktgen = os.path.join(build, PKTGEN)
        self.l2fwd = os.path.join(build, L2FWD)

    def run_once(self, argv, timeout=60):
        """Output of a short program run to its end, and its status."""
        try:
            p = subprocess.run(argv, cwd=self.top, capture_output=True,
                               text=True, timeout=timeout)
            return p.stdout + p.stderr, p.returncode
        except (OSError, subprocess.TimeoutExpired) as e:
            return str(e), -1

    def calibrate(self):
        """The TSC rate of one short lr-pktgen on net_null; None after
        nothing printed."""
        out, _ = self.run_once(
            [self.pktgen, '-l', str(self.cpu_gen)] + self.mem +
            ['--file-prefix', f'{PREFIX}_tsc', '--vdev', 'net_null0', '--',
             '--tx-only', '--quiet', '--count', '1', '--stats-period', '1'])
        self.hz = tsc_hz(out)
        return self.hz

    def probe_zc(self):
        """Whether net_memif takes zero-copy=yes on a client (a client
        with no server is a port whose link is down: it starts), in every
        linerate build of the run (with --against both use it or none)."""
        if self.opts['LR_ZC'] == 'no':
            return 'zero-copy=no (MEMIF_LR_ZC=no)'
        sock = os.path.join(self.tmp, 'zc.sock')
        for build in self.builds:
            out, rc = self.run_once(
                [os.path.join(build, PKTGEN), '-l', str(self.cpu_gen)] +
                self.mem + ['--file-prefix', f'{PREFIX}_zc', '--vdev',
                            vdev(0, 'client', sock, True), '--',
                            '--tx-only', '--quiet', '--duration', '0.1',
                            '--link-wait', '0'])
            if rc != 0:
                self.zc = False
                shown = core.sanitize(build, self.top)
                return (f'zero-copy=yes refused by {shown} '
                        f'({core.last_line(out)}): linerate copies')
        self.zc = True
        return ('zero-copy=yes: net_memif accepts it, linerate clients '
                'use it')

    @property
    def fzc(self):
        """Zero-copy on lr-l2fwd's client ports."""
        return self.zc and self.opts['FWD_ZC'] == 'yes'

    def version(self, exe):
        """The DPDK version testpmd exe's EAL says with -v, or None."""
        out, _ = self.run_once(
            [exe, '-v', '--no-huge', '-m', '64', '--no-pci', '-l',
             str(self.cpu_gen), '--file-prefix', f'{PREFIX}_ver', '--',
             '-h'])
        group.remove([f'/var/run/dpdk/{PREFIX}_ver'])
        m = RTE_VERSION.search(out)
        return m.group(1) if m else None

    def pktgen_argv(self, name, cpu, opts, devs):
        """lr-pktgen on cpu with the memif ports devs."""
        return ([self.pktgen, '-l', str(cpu)] + self.mem +
                ['--file-prefix', f'{PREFIX}_{name}'] +
                [x for d in devs for x in ('--vdev', d)] + ['--'] + opts +
                ['--quiet', '--stats-period', '1', '--link-wait',
                 str(READY_S)])

    def testpmd_argv(self, exe, name, cpu, fwd, extra, devs):
        """testpmd exe in forwarding mode fwd, both lcores on cpu."""
        return ([exe, '--lcores', f'0@{cpu},1@{cpu}'] + self.mem +
                ['--file-prefix', f'{PREFIX}_{name}', '--no-pci'] +
                [x for d in devs for x in ('--vdev', d)] +
                ['--', f'--forward-mode={fwd}'] + extra +
                ['--total-num-mbufs=16384', '--stats-period', '1', '-a'])

    def cleanup(self):
        """Remove the scratch folder and any runtime files left."""
        if os.environ.get('MEMIF_KEEP'):
            self.log(f'memif: outputs kept in {self.tmp}')
        else:
            group.remove([self.tmp])
        group.remove([f'/var/run/dpdk/{PREFIX}_*',
                     f'/var/run/linerate/{PREFIX}_*'])


class RowRun:
    """The processes of one row of one round, and what they measured."""

    def __init__(self, bench):
        self.b = bench
        self.sampler = Sampler()
        self.procs = []
        self.notes = []
        self.span = None  # the window measure() chose: (start, end)

    def start(self, name, kind, cpu, argv):
        """Start argv pinned on cpu; kind 'lr' or 'tp' says how its
        counter lines read ('other': none are sampled)."""
        feed = {'lr': lr_counters, 'tp': testpmd_counters}.get(kind)
        feed = feed() if feed else None

        def on_line(line):
            r = feed(line) if feed else None
            if r:
                self.sampler.sample(name, *r)
        p = proc.Background(['taskset', '-c', str(cpu)] + argv,
                            cwd=self.b.top, name=name, on_line=on_line)
        p.kind = kind
        self.procs.append(p)
        return p

    def proc(self, name):
        """The process called name."""
        return next(p for p in self.procs if p.name == name)

    def wait_socket(self, name, path):
        """Until process name has created the socket path."""
        return group.wait_until(group.is_socket(path), [self.proc(name)],
                               READY_S)

    def datapath(self, name):
        """Watch name's datapath thread: linerate's main thread (one
        lcore), testpmd's forwarding lcore (rte-worker-N)."""
        p = self.proc(name)
        if p.kind != 'tp':
            self.sampler.watch(name, p.pid, p.pid)
            return True
        found = {}

        def cond():
            found['tid'] = group.thread_named(
                p.pid, ('rte-worker-', 'lcore-worker-'))
            return found['tid'] is not None
        if not group.wait_until(cond, [p], READY_S):
            return False
        self.sampler.watch(name, p.pid, found['tid'])
        return True

    def measure(self, specs):
        """[(seconds, packets, cpu_ns)] of each spec (process, port,
        'rx'|'tx', thread) over the same window: WARM s after the last side
        showed traffic, SECS s long; None when a program ended or time ran
        out."""
        deadline = time.monotonic() + READY_S + WARM + SECS + 5
        start = end = None
        while time.monotonic() < deadline:
            time.sleep(0.25)
            if not all(p.alive() for p in self.procs):
                return None
            series = [self.sampler.series(*s) for s in specs]
            if start is None:
                t0 = [first_traffic(s) for s in series]
                if None in t0:
                    continue
                start = max(t0) + WARM
                end = start + SECS
                self.span = (start, end)
                # Nothing to read before the window ends: the machine is
                # the programs' meanwhile.
                time.sleep(max(0.0, end - time.monotonic()))
                series = [self.sampler.series(*s) for s in specs]
            w = [window(s, start, end) for s in series]
            if None not in w:
                return w
        return None

    def stop(self, order):
        """Stop the processes: every testpmd first, the rest in order (the
        servers first); a note for each exit that was not clean."""
        procs = [self.proc(n) for n in order if
                 any(p.name == n for p in self.procs)]
        for p, rc, killed in group.stop_all(procs, lambda p: p.kind == 'tp',
                                           READY_S):
            n = group.exit_note(p, rc, killed)
            if n:
                self.notes.append(n)

    def failed(self, why='a program failed or no traffic in '
                         f'{READY_S} s'):
        """A note saying why there is no measurement, with the end of each
        program's output."""
        tails = '; '.join(f'{p.name}: ' + ' / '.join(
            x.strip() for x in p.lines[-3:] if x.strip())
            for p in self.procs)
        self.notes.append(f'no measurement ({why}): {tails}')
        return None

    def commands(self):
        """The command lines as started, every one but the last in the
        background."""
        cmds = [core.sanitize(p.command(), self.b.top) for p in self.procs]
        return [c + ' &' for c in cmds[:-1]] + cmds[-1:]

    def kill(self):
        """SIGKILL whatever still runs (cleanup)."""
        for p in self.procs:
            p.kill()


def run_pair(b, key, size, exe):
    """One generator -> receiver row: its figures {name: value} (None when
    it failed) and its RowRun."""
    gk, rk = PAIRS[key]
    gr, rr = pair_roles(key, b.opts)
    stamp = [] if b.opts['PAIR_STAMP'] == 'yes' else ['--no-stamp']
    sock = os.path.join(b.tmp, 's.sock')
    run = RowRun(b)
    sides = {'gen': (gk, gr, b.cpu_gen), 'recv': (rk, rr, b.cpu_peer)}

    def argv(name, kind, cpu, dev):
        """The generator's or the receiver's command line."""
        if kind == 'lr' and name == 'gen':
            return b.pktgen_argv(name, cpu, ['--tx-only', '--size', str(size)]
                                 + stamp + ['--record-core-cycles'], [dev])
        if kind == 'lr':
            return b.pktgen_argv(name, cpu, ['--rx-only'] + stamp +
                                 ['--record-core-cycles'], [dev])
        if name == 'gen':
            return b.testpmd_argv(exe, name, cpu, 'txonly',
                                  [f'--txpkts={size - 4}',
                                   '--record-core-cycles'], [dev])
        return b.testpmd_argv(exe, name, cpu, 'rxonly',
                              ['--record-core-cycles'], [dev])
    try:
        figs = None
        ok = True
        for want in ('server', 'client'):
            for name in ('gen', 'recv'):
                kind, role, cpu = sides[name]
                if role != want or not ok:
                    continue
                zc = b.zc if kind == 'lr' else False
                run.start(name, kind, cpu,
                          argv(name, kind, cpu,
                               vdev(0, role, sock, zc, role == 'server')))
                if role == 'server' and not run.wait_socket(name, sock):
                    ok = False
        w = None
        if ok and run.datapath('gen') and run.datapath('recv'):
            w = run.measure([('gen', 0, 'tx', 'gen'),
                             ('recv', 0, 'rx', 'recv')])
        if w is None:
            run.failed()
        else:
            figs = figures(w[0], w[1], b.hz)
        run.stop(['gen', 'recv'] if gr == 'server' else ['recv', 'gen'])
        if figs is not None:
            figs['peer_busy'] = busy_cycles(run.proc('recv').output())
            figs['gen_busy'] = busy_cycles(run.proc('gen').output())
        return figs, run
    finally:
        run.kill()
        group.remove([sock])


def run_fwd(b, key, size, exe):
    """One lr-pktgen -> forwarder -> lr-pktgen row: lr-pktgen sends on
    port 0, the forwarder sends it back on its other port, lr-pktgen
    receives on port 1; (figures or None, RowRun)."""
    kind = FWDS[key]
    a, c = os.path.join(b.tmp, 'a.sock'), os.path.join(b.tmp, 'b.sock')
    f0, f1 = fwd_roles(b.opts)
    z = b.fzc if kind == 'lr' else False
    run = RowRun(b)
    stamp = [] if b.opts['FWD_STAMP'] == 'yes' else ['--no-stamp']

    def start_fwd():
        """The forwarder on the peer CPU."""
        devs = [vdev(0, f0, a, z), vdev(1, f1, c, z)]
        if kind == 'lr':
            argv = ([b.l2fwd, '-l', str(b.cpu_peer)] + b.mem +
                    ['--file-prefix', f'{PREFIX}_fwd'] +
                    [x for d in devs for x in ('--vdev', d)] +
                    ['--', '-p', '0x3', '-T', '0', '--no-mac-updating',
                     '--record-core-cycles'])
        else:
            argv = b.testpmd_argv(exe, 'fwd', b.cpu_peer, 'io',
                                  ['--record-core-cycles'], devs)
        run.start('fwd', kind if kind == 'tp' else 'other', b.cpu_peer,
                  argv)

    def start_gen():
        """lr-pktgen on the generator's CPU."""
        run.start('gen', 'lr', b.cpu_gen, b.pktgen_argv(
            'gen', b.cpu_gen, ['--tx-ports', '0', '--rx-ports', '1',
                               '--size', str(size)] + stamp,
            [vdev(0, other(f0), a, b.zc, True),
             vdev(1, other(f1), c, b.zc, True)]))
    try:
        figs = None
        # The forwarder's servers before lr-pktgen starts, lr-pktgen's
        # before the forwarder starts when it has a client port: DPDK
        # 22.11's client tries to connect once, at start.
        if f0 == 'server' and f1 == 'server':
            start_fwd()
            ok = run.wait_socket('fwd', a) and run.wait_socket('fwd', c)
            if ok:
                start_gen()
        else:
            start_gen()
            ok = ((f0 != 'client' or run.wait_socket('gen', a)) and
                  run.wait_socket('gen', c))
            if ok:
                start_fwd()
                ok = f0 != 'server' or run.wait_socket('fwd', a)
        w = None
        if ok and run.datapath('gen') and run.datapath('fwd'):
            w = run.measure([('gen', 0, 'tx', 'gen'),
                             ('gen', 1, 'rx', 'fwd')])
        if w is None:
            run.failed()
        else:
            figs = figures(w[0], w[1], b.hz)
        run.stop(['fwd', 'gen'] if f1 == 'server' else ['gen', 'fwd'])
        if figs is not None:
            figs['peer_busy'] = busy_cycles(run.proc('fwd').output())
        return figs, run
    finally:
        run.kill()
        group.remove([a, c])


def add_figures(rows, key, size, label, f, hz):
    """One run's figures into rows, named after the kind of row."""
    if key in PAIRS:
        p, peer = f'generator -> receiver, {size} B', 'receiver'
        vals = [('received', f['peer_mpps']), (peer, f['peer_cyc']),
                ('sent', f['gen_mpps']), ('generator', f['gen_cyc'])]
    else:
        p, peer = f'through a forwarder, {size} B', 'forwarder'
        vals = [('forwarded', f['peer_mpps']), (peer, f['peer_cyc'])]
    if f.get('peer_busy') is not None:
        vals += [(f'{peer} busy', f['peer_busy']),
                 (f'{peer} busy share',
                  100 * f['peer_busy'] * f['peer_mpps'] * 1e6 / hz)]
    if key in FWDS:
        vals += [('sent', f['gen_mpps']), ('generator', f['gen_cyc'])]
    if f.get('gen_busy') is not None:
        vals += [('generator busy', f['gen_busy']),
                 ('generator busy share',
                  100 * f['gen_busy'] * f['gen_mpps'] * 1e6 / hz)]
    vals += [(f'{peer} CPU', f['peer_cpu']), ('generator CPU', f['gen_cpu']),
             ('gap' if key in PAIRS else 'not back', f['gap'])]
    for what, v in vals:
        rows.add(f'{p}: {what}', label, v)


def unit_of(row):
    """A row's unit, from its last words."""
    what = row.rsplit(': ', 1)[-1]
    if what in ('received', 'sent', 'forwarded'):
        return 'Mpps'
    if what.endswith(('share', 'CPU', 'gap', 'back')):
        return '%'
    return 'cycles/packet'


def better_of(row):
    """Rates: higher is better; cycles, busy shares, losses: lower; a
    CPU share: higher (the side got its CPU)."""
    if unit_of(row) == 'Mpps' or row.endswith('CPU'):
        return 'higher'
    return 'lower'


def summary_rows(sizes):
    """The rows of the opening table, as the script's summary lines."""
    out = []
    for s in sizes:
        out += [f'generator -> receiver, {s} B: received',
                f'generator -> receiver, {s} B: receiver',
                f'through a forwarder, {s} B: forwarded',
                f'through a forwarder, {s} B: forwarder',
                f'through a forwarder, {s} B: forwarder busy']
    return out


def testpmds(b, ctx):
    """(Debian's, the native) testpmd as (label, binary, note), each None
    when it is not there."""
    deb = None
    exe = subprocess.run(['sh', '-c', 'command -v dpdk-testpmd'],
                         capture_output=True, text=True).stdout.strip()
    if exe:
        ver = b.version(exe) or 'DPDK ?'
        pkg = subprocess.run(['dpkg-query', '-S', exe], capture_output=True,
                             text=True).stdout.split(':')[0].strip()
        deb = (f'{ver} Debian', exe,
               f'{ver} Debian: {exe}' + (f' (package {pkg})' if pkg else ''))
    nexe, cflags = peers.native_program(ctx, 'testpmd')
    nat = None
    if nexe and os.access(nexe, os.X_OK):
        ver = b.version(nexe) or 'DPDK ?'
        nat = (f'{ver} native', nexe,
               f'{ver} native: testpmd built {cflags} by '
               'scripts/dpdk-native.sh')
    return deb, nat


def columns(b, ctx, notes):
    """[(row key, column label, testpmd binary, linerate build)] of the
    runs of a round, in order (a linerate row once per build of
    ctx.linerate(), alternating: two with --against), and the columns'
    notes; a note for each row left out (every DPDK one with --against)."""
    cols = []
    deb, nat = testpmds(b, ctx) if ctx.dpdk else (None, None)
    side_notes = {}
    for key in b.opts['ROWS']:
        if key in ('lr_lr', 'fwd_lr'):
            cols += [(key, lr.label, None, lr.build)
                     for lr in ctx.linerate()]
        elif not ctx.dpdk:
            notes.append(f'{TITLE[key]}: not run (DPDK peers are not run '
                         'with --against)')
        elif 'ndpdk' in key:
            if nat is None:
                notes.append(f'{TITLE[key]}: not run (no testpmd from '
                             'scripts/dpdk-native.sh)')
                continue
            cols.append((key, nat[0], nat[1], ctx.build))
            side_notes[nat[0]] = nat[2]
        elif deb is None:
            notes.append(f'{TITLE[key]}: not run (dpdk-testpmd is not '
                         'installed: apt install dpdk)')
        else:
            label = TITLE[key] if key in ('lr_dpdk', 'dpdk_lr') else deb[0]
            cols.append((key, label, deb[1], ctx.build))
            side_notes[label] = (deb[2] if label == deb[0] else
                                 f'{TITLE[key]}: a mixed pair, testpmd of '
                                 f'{deb[0]}')
    return cols, side_notes


def reference_notes(top):
    """The reference of bench/reference/ (an earlier quiet run, not this
    one) as notes."""
    try:
        with open(os.path.join(top, REF)) as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    figs = [x.split('\t') for x in lines[2:] if x and not x.startswith('#')]
    return [f'Reference, not this run ({REF}: DPDK testpmd txonly -> '
            'rxonly on a quiet machine of this kind, 2026-12-03): ' +
            ', '.join(f'{f[0]} {f[1]} B {f[2]} Mpps' for f in figs
                      if len(f) >= 3)]


def measure(ctx, comp, log):
    """Every round: each size, the rows alternating, a row's processes
    started together and measured over one window."""
    opts, _ = options()
    comp.summary = summary_rows(opts['SIZES'])
    rows = core.Rows()
    notes, lines, first = [], {}, {}
    b = Bench(ctx, opts, log)
    try:
        if not b.calibrate():
            notes.append('lr-pktgen on net_null printed no tsc_hz: nothing '
                         'measured')
            return rows, [], notes, first
        zc_note = b.probe_zc()
        cols, side_notes = columns(b, ctx, notes)
        notes += [
            f'memory: {b.memtxt}; generator on CPU {b.cpu_gen}, receiver or '
            f'forwarder on CPU {b.cpu_peer}; TSC {b.hz / 1e9:.3f} GHz '
            '(lr-pktgen\'s calibration)',
            f'linerate clients: {zc_note}; DPDK ports copy',
            f'MEMIF_GEN_ROLE={opts["GEN_ROLE"]}, FWD_ROLE={opts["FWD_ROLE"]}, '
            f'FWD_ZC={opts["FWD_ZC"]}, FWD_STAMP={opts["FWD_STAMP"]}, '
            f'PAIR_STAMP={opts["PAIR_STAMP"]}']
        notes += [roles_text(k, opts, b.zc, b.fzc)
                  for k in dict.fromkeys(c[0] for c in cols)]
        if b.cpu_peer == b.cpu_gen:
            notes.append('one CPU: every row\'s two processes share CPU 0')
        rounds = ctx.rounds or comp.rounds
        for size in opts['SIZES']:
            for r in range(rounds):
                for key, label, exe, build in cols:
                    log(f'  {size} B, round {r + 1}: {TITLE[key]} '
                        f'({label})')
                    fn = run_pair if key in PAIRS else run_fwd
                    b.use(build)
                    figs, run = fn(b, key, size, exe)
                    seen = first.setdefault(label, {})
                    if key not in seen:
                        seen[key] = '\n'.join(x for p in run.procs
                                              for x in p.lines)
                        lines.setdefault(label, []).extend(
                            [f'# {TITLE[key]}, {size} B'] + run.commands())
                    notes += [f'{TITLE[key]}, {size} B, round {r + 1}: {n}'
                              for n in run.notes]
                    if figs is not None:
                        add_figures(rows, key, size, label, figs, b.hz)
    finally:
        b.cleanup()
    if ctx.dpdk:
        notes += reference_notes(ctx.top)
        notes.append('goals (issue 14): every linerate row >= 1.3x the DPDK '
                     'row of the same run; 14.88 Mpps of 64-byte frames '
                     'between two linerate processes')
    order = []
    for _, label, _, _ in cols:
        if label not in order:
            order.append(label)
    sides = [group.Together(lab, lines.get(lab, []), side_notes.get(lab))
             for lab in order]
    outs = {lab: '\n'.join(v.values()) for lab, v in first.items()}
    return rows, sides, notes, outs


def needs(ctx):
    """Why the comparison cannot run (bad MEMIF_* options), or None."""
    return options()[1]


COMPARISON = core.Comparison(
    'memif', 'Over memif: linerate and DPDK testpmd',
    f'{" and ".join(map(str, SIZES))}-byte frames over one memif link '
    '(generator -> receiver: lr-pktgen, testpmd txonly -> rxonly, and the '
    'mixed pairs) and through a forwarder (lr-pktgen -> lr-l2fwd or '
    'testpmd io -> lr-pktgen), each process pinned on a CPU of its own '
    '(generator CPU 0), rows alternating in each round, 9 rounds. Both '
    'sides of a row over the same window: its programs\' per-second '
    f'counters, {SECS} s after {WARM} s of traffic, interpolated at its '
    'ends; Mpps, and TSC cycles per packet from the datapath thread\'s CPU '
    'time (/proc schedstat). "busy": the cycles of the polls that moved '
    'frames (--record-core-cycles; testpmd txonly counts every pass), busy '
    'share = busy cycles x rate / TSC: the side near 100% sets the pace. '
    'Columns: linerate (lr-pktgen pair, lr-l2fwd), Debian\'s dpdk-testpmd, '
    'the native testpmd of scripts/dpdk-native.sh when built, and the '
    'two mixed pairs. Default roles: a pair\'s generator is the memif '
    'client (zero-copy for linerate), the receiver the server; forwarder '
    'ports are clients (lr-l2fwd zero-copy: no copy; testpmd two copies), '
    'lr-pktgen\'s the servers; unstamped frames (notes: roles and copies).',
    measure=measure, needs=needs, rounds=9, unit_of=unit_of,
    better_of=better_of, summary=summary_rows(SIZES), against=True)


# The mixed pair as a new user types it: lr-pktgen's defaults (stamped
# frames, no zero-copy devarg) into testpmd rxonly, beside testpmd txonly
# into the same receiver; the tuned pair (unstamped, zero-copy) is the
# memif entry's.
DEFAULT_INVOCATION = {'MEMIF_PAIR_STAMP': 'yes', 'MEMIF_LR_ZC': 'no',
                      'MEMIF_ROWS': 'lr_lr dpdk_dpdk ndpdk_ndpdk lr_dpdk'}


def measure_default(ctx, comp, log):
    """The memif measure with DEFAULT_INVOCATION's options (an option the
    user set in the environment is not overridden)."""
    saved = {k: os.environ.get(k) for k in DEFAULT_INVOCATION}
    for k, v in DEFAULT_INVOCATION.items():
        os.environ.setdefault(k, v)
    try:
        return measure(ctx, comp, log)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


DEFAULT = core.Comparison(
    'memif_default', 'Over memif, lr-pktgen as a new user runs it',
    'The generator -> receiver pairs of the memif entry with lr-pktgen as a '
    'user types it by default: stamped frames (no --no-stamp) and no '
    'zero-copy devarg (MEMIF_PAIR_STAMP=yes MEMIF_LR_ZC=no): lr-pktgen '
    '--tx-only into testpmd rxonly (the mixed column) beside testpmd '
    'txonly into the same receiver (the DPDK columns), and two linerate '
    'processes; measured as the memif entry measures, rows alternating, '
    '5 rounds. The tuned invocation is the memif entry\'s.',
    measure=measure_default, needs=needs, rounds=5, unit_of=unit_of,
    better_of=better_of, against=True,
    summary=[f'generator -> receiver, {s} B: received' for s in SIZES])
