# SPDX-License-Identifier: BSD-3-Clause
"""What a comparison is, and how one runs.

A comparison is a small declarative entry (bench/comparisons/*.py): its
sides (our program and each DPDK peer there is, as command lines), how many
rounds, the parser that turns one process's output into figures
({row: value}), the unit and which way is better, and the rows that go to
the opening table of BENCHMARKS.md. Rounds alternate between the sides
(ours, Debian's DPDK, the native DPDK, ours, ...), each process measured
the same way; a row's figure per side is the median over the rounds, with
the range (harness/stats.py).

A comparison whose runs need more than processes in a row (namespaces,
servers and clients started together) gives its own measure(ctx) that
returns the same rows; it never computes statistics itself.

With bench/run --against REV (harness/against.py) the run has two linerate
builds, ctx.linerate(): an entry that says it supports the mode (against
True) runs each of its linerate runs once per build, alternating, each
labelled after its build's commit, and no DPDK peer (ctx.dpdk is False).
"""
import copy
import os
import re
import shlex
import signal
import subprocess
import sys
import time

from . import stats
from .against import Build


class Side:
    """One program of a comparison: a label, its argv and environment."""

    def __init__(self, label, argv, env=None, note=None, timeout=300,
                 stop_after=None):
        self.label = label
        self.argv = [str(a) for a in argv]
        self.env = env or {}
        self.note = note
        self.timeout = timeout
        # A program without a duration of its own (DPDK's l2fwd, testpmd)
        # gets SIGINT after stop_after seconds, as a user's ^C.
        self.stop_after = stop_after

    def command(self):
        """The command line as a user types it (relative paths)."""
        env = ' '.join(f'{k}={shlex.quote(v)}' for k, v in self.env.items())
        cmd = ' '.join(shlex.quote(a) for a in self.argv)
        return f'{env} {cmd}' if env else cmd


class Rows:
    """Figures gathered over rounds: rows[row][side label] = [values]."""

    def __init__(self):
        self.order = []
        self.values = {}

    def add(self, row, label, value):
        """Record one process's figure of row for the side label."""
        if row not in self.values:
            self.values[row] = {}
            self.order.append(row)
        self.values[row].setdefault(label, []).append(float(value))

    def sort(self, key):
        """Put the rows in the order key(row) gives (for an entry whose
        runs give its rows in another order than its table's)."""
        self.order.sort(key=key)

    def labels(self):
        """Every side label seen, in first-seen order."""
        out = []
        for r in self.order:
            for lab in self.values[r]:
                if lab not in out:
                    out.append(lab)
        return out

    def table(self):
        """[(row, {label: summarize()})] in first-seen order."""
        return [(r, {lab: stats.summarize(v)
                     for lab, v in self.values[r].items()})
                for r in self.order]


class Comparison:
    """A benchmark entry: sides run in alternating rounds, figures parsed.

    name: short id (bench/run NAME); title: section title; text: what it
    measures, in one paragraph; sides(ctx): the Side list (ours first);
    parse(output) -> {row: value} of one process (a value may be {label:
    value} for a column the program quotes, e.g. a reference); rounds; unit/better:
    defaults for every row ('lower' or 'higher'); summary: the rows of the
    opening table; unit_of(row), better_of(row): a row's own unit and
    direction when rows differ; show_output: keep the first round's output
    of ours in the section; against: True when the entry runs with
    bench/run --against (its measure() runs ctx.linerate()'s builds, or
    its sides() give one linerate side and DPDK's only when ctx.dpdk),
    else why it cannot (None: a general reason).
    """

    def __init__(self, name, title, text, sides=None, parse=None,
                 rounds=5, unit='', better='lower', summary=(),
                 measure=None, needs=None, unit_of=None, better_of=None,
                 digits=2, show_output=False, against=None):
        self.name = name
        self.title = title
        self.text = text
        self.sides = sides
        self.parse = parse
        self.rounds = rounds
        self.unit = unit
        self.better = better
        self.summary = list(summary)
        self.measure_fn = measure
        self.needs = needs
        self.unit_of = unit_of
        self.better_of = better_of
        self.digits = digits
        self.show_output = show_output
        self.against = against

    def missing(self, ctx):
        """Why this comparison cannot run here, or None."""
        if ctx.against and self.against is not True:
            return '--against: ' + (self.against or NO_AGAINST)
        return self.needs(ctx) if self.needs else None

    def linerate_sides(self, ctx):
        """sides() with --against: the one linerate side of each build,
        labelled after it, in ctx.linerate()'s order."""
        out = []
        for b in ctx.linerate():
            ours = [s for s in self.sides(ctx.at(b))
                    if s.label.startswith('linerate')]
            if len(ours) != 1:
                raise ValueError(f'{self.name}: --against wants one '
                                 f'linerate side, sides() gave {len(ours)}')
            ours[0].label = b.label
            out.append(ours[0])
        return out

    def measure(self, ctx, log):
        """Run every round; returns (Rows, sides, notes, first outputs)."""
        if self.measure_fn:
            return self.measure_fn(ctx, self, log)
        sides = self.linerate_sides(ctx) if ctx.against else self.sides(ctx)
        rows = Rows()
        first = {}
        notes = []
        rounds = ctx.rounds or self.rounds
        for r in range(rounds):
            for s in sides:
                out, rc = ctx.run(s, log)
                if r == 0:
                    first[s.label] = out
                if rc != 0:
                    notes.append(f'{s.label} round {r + 1}: exit {rc}: '
                                 f'{last_line(out)}')
                    continue
                figs = self.parse(out)
                if not figs:
                    notes.append(f'{s.label} round {r + 1}: no figure in '
                                 f'its output: {last_line(out)}')
                for row, v in figs.items():
                    # A figure of another column the program prints (a
                    # reference it quotes): {label: value}.
                    for lab, x in (v.items() if isinstance(v, dict)
                                   else ((s.label, v),)):
                        rows.add(row, lab, x)
        return rows, sides, notes, first


def window_rate(out, pattern, warm, dur):
    """Mpps over a steady-state window of a program's per-second lines:
    the growth of the counter pattern captures (group 1) between its
    line number warm and the one dur lines later, / dur / 1e6; None when
    the output has fewer lines."""
    vals = [int(m.group(1)) for m in
            (re.search(pattern, line) for line in
             out.replace('\x1b', '').splitlines()) if m]
    if warm < 1 or len(vals) < warm + dur:
        return None
    return (vals[warm + dur - 1] - vals[warm - 1]) / dur / 1e6


def window_mean(out, pattern, warm, dur):
    """A rate over a steady-state window of a program's per-second rate
    lines (each the rate of its own second): the mean of the values
    pattern captures (group 1) on lines warm+1 .. warm+dur (about the
    frames of those seconds over their time); None when the output has
    fewer lines."""
    vals = [float(m.group(1)) for m in
            (re.search(pattern, line) for line in out.splitlines()) if m]
    if len(vals) < warm + dur or dur < 1:
        return None
    return sum(vals[warm:warm + dur]) / dur


def last_line(text):
    """The last non-empty line of text (for a failure note)."""
    lines = [x for x in text.splitlines() if x.strip()]
    return lines[-1][:200] if lines else '(no output)'


# Why an entry without against=True does not run with --against.
NO_AGAINST = ('this entry has no --against mode (its runs are not made '
              'once per linerate build)')


class Context:
    """Where and how this run measures: the tree, the build, EAL memory;
    with --against, the two linerate builds (against: [this tree's,
    REV's], each with .label and .build)."""

    def __init__(self, top, build, rounds=None, quick=False, against=None):
        self.top = top
        self.build = build
        self.rounds = rounds
        self.quick = quick
        self.against = against
        self._peers = {}

    @property
    def dpdk(self):
        """Whether DPDK peers run (not with --against)."""
        return not self.against

    def linerate(self):
        """The linerate builds to run, each with .label and .build, in the
        order a round runs them: this run's alone ('linerate'), or with
        --against this tree's then REV's."""
        if self.against:
            return list(self.against)
        return [Build('linerate', self.build, None)]

    def at(self, b):
        """This context with the build folder of b (a linerate() entry);
        the DPDK peers found so far shared."""
        c = copy.copy(self)
        c.build = b.build
        return c

    def path(self, *parts):
        """A path under the tree, relative (the commands shown stay so)."""
        return os.path.join(*parts)

    def free_hugepages(self):
        """Free 2 MiB hugepages now (0 when none are reserved)."""
        try:
            with open('/sys/kernel/mm/hugepages/hugepages-2048kB/'
                      'free_hugepages') as f:
                return int(f.read())
        except OSError:
            return 0

    def mem_args(self, mb, min_pages=None):
        """['-m', mb] on hugepages when enough are free, else --no-huge."""
        need = min_pages if min_pages is not None else mb // 2
        if self.free_hugepages() >= need:
            return ['-m', str(mb)]
        return ['--no-huge', '-m', str(mb)]

    def lcores(self, two=True):
        """'0-1' when there are two CPUs and two are asked for, else '0'."""
        return '0-1' if two and os.cpu_count() >= 2 else '0'

    def run(self, side, log, stdin=None):
        """Run a side to its end: (output, exit status); -1 on timeout."""
        env = dict(os.environ)
        env.update(side.env)
        log(f'$ {side.command()}')
        t0 = time.monotonic()
        p = subprocess.Popen(side.argv, cwd=self.top, env=env,
                             stdin=stdin or subprocess.DEVNULL,
                             stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT)
        limit = side.stop_after or side.timeout
        try:
            out, _ = p.communicate(timeout=limit)
            rc = p.returncode
        except subprocess.TimeoutExpired:
            p.send_signal(signal.SIGINT)
            try:
                out, _ = p.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                out, _ = p.communicate()
            rc = p.returncode
            if side.stop_after is None:
                out += f'\n(stopped after {side.timeout} s)'.encode()
                rc = -1
            elif rc in (0, -signal.SIGINT, 128 + signal.SIGINT):
                rc = 0
        out = out.decode(errors='replace')
        log(f'  ({time.monotonic() - t0:.1f} s, exit {rc})')
        return out, rc

    def peers(self, src, out, driver_libs=()):
        """DPDK peers of bench/dpdk/SRC: [(label, binary, note)]."""
        from . import peers
        key = (src, out)
        if key not in self._peers:
            self._peers[key] = peers.build(self, src, out, driver_libs)
        return self._peers[key]


# Paths shown under another name (show_as): [(path, shown)].
SHOWN = []


def show_as(path, shown):
    """From now on sanitize() writes path (absolute, e.g. the tree of
    --against REV) as shown."""
    path = path.rstrip('/')
    if (path, shown) not in SHOWN:
        SHOWN.append((path, shown))
        SHOWN.sort(key=lambda x: -len(x[0]))


def sanitize(text, top):
    """text without this machine's absolute paths: a path given to
    show_as() becomes its name, the tree '.', temporary folders $TMP."""
    for path, shown in SHOWN:
        text = text.replace(path, shown)
    text = text.replace(top.rstrip('/') + '/', '')
    text = text.replace(top.rstrip('/'), '.')
    text = re.sub(r'/tmp/[A-Za-z0-9_.-]+', '$TMP', text)
    return text


def logger(quiet=False):
    """A log function printing to stderr unless quiet."""
    def log(msg):
        if not quiet:
            print(msg, file=sys.stderr, flush=True)
    return log
