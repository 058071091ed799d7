# SPDX-License-Identifier: BSD-3-Clause
"""Process helpers for comparisons whose runs need more than "one process
to its end" (Context.run): a program whose output lines are timed as they
arrive and which is stopped a while after a line it prints, the
leftovers a DPDK program may leave behind, and a meson tree of its own
(a build with other options than build-bench's)."""
import glob
import os
import re
import shutil
import signal
import subprocess
import threading
import time

from . import core


def run_timed(ctx, side, ready, stop_after, log, ready_timeout=30):
    """Run side, each output line prefixed with the seconds since its start
    ("12.345 line") as it arrives; SIGINT it stop_after seconds after its
    first line matching the regex ready (at once when none comes within
    ready_timeout s). Returns (output, exit status); a status of SIGINT is
    0, a program that had to be killed gives -1."""
    env = dict(os.environ)
    env.update(side.env)
    log(f'$ {side.command()}')
    pat = re.compile(ready)
    lines = []
    seen = threading.Event()
    t0 = time.monotonic()
    p = subprocess.Popen(side.argv, cwd=ctx.top, env=env,
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT)

    def reader():
        """Time and keep every line; flag the first ready one."""
        for raw in p.stdout:
            line = raw.decode(errors='replace').rstrip('\n')
            lines.append(f'{time.monotonic() - t0:.3f} {line}')
            if pat.search(line):
                seen.set()
        seen.set()

    th = threading.Thread(target=reader, daemon=True)
    th.start()
    rc = None
    try:
        if seen.wait(ready_timeout) and p.poll() is None:
            try:
                rc = p.wait(stop_after)
            except subprocess.TimeoutExpired:
                pass
        if rc is None:
            p.send_signal(signal.SIGINT)
            try:
                rc = p.wait(30)
            except subprocess.TimeoutExpired:
                rc = -1
            if rc in (-signal.SIGINT, 128 + signal.SIGINT):
                rc = 0
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        th.join(10)
        p.stdout.close()
    log(f'  ({time.monotonic() - t0:.1f} s, exit {rc})')
    return '\n'.join(lines) + '\n', rc


def timed_lines(out, pattern):
    """[(seconds, int)] of run_timed's output: the time of each line whose
    text matches pattern, with the number its group 1 captures."""
    res = []
    for line in out.splitlines():
        t, _, text = line.partition(' ')
        m = re.search(pattern, text)
        if m:
            try:
                res.append((float(t), int(m.group(1))))
            except ValueError:
                continue
    return res


def hugetlbfs_mounts():
    """The mount points of hugetlbfs file systems (where DPDK keeps its
    hugepage files)."""
    try:
        with open('/proc/mounts') as f:
            return [x.split()[1] for x in f if x.split()[2:3] ==
                    ['hugetlbfs']]
    except OSError:
        return []


def remove_dpdk_leftovers(prefixes):
    """What DPDK programs run with --file-prefix PREFIX leave behind once
    they have ended: their runtime folder /var/run/dpdk/PREFIX (made
    whatever the options, with its config and fbarray files) and their
    hugepage files PREFIXmap_N. Call it only when no process of those
    prefixes runs."""
    for prefix in prefixes:
        shutil.rmtree(os.path.join('/var/run/dpdk', prefix),
                      ignore_errors=True)
        for mnt in hugetlbfs_mounts():
            for f in glob.glob(os.path.join(glob.escape(mnt),
                                            glob.escape(prefix) + 'map_*')):
                try:
                    os.unlink(f)
                except OSError:
                    pass


def alternate(ctx, todo, rounds, rows, notes, first, log):
    """Run todo, a list of (name, Side, parse, run), in rounds alternating
    runs (each run once a round, in order): run(ctx, side, log) gives
    (output, exit status) (Context.run, or a function of its own as
    run_timed with its arguments bound), parse(output) the figures {row:
    value} going into rows (a core.Rows) under the side's label. A run
    that fails or gives no figure adds a note; first[label] keeps the
    first output of each label."""
    for r in range(rounds):
        for name, side, parse, run in todo:
            out, rc = run(ctx, side, log)
            first.setdefault(side.label, out)
            figs = parse(out) if rc == 0 else {}
            if not figs:
                notes.append(f'{name} round {r + 1}: exit {rc}, no figure: '
                             f'{core.last_line(out)}')
            for row, v in figs.items():
                rows.add(row, side.label, v)


def meson_tree(top, bdir, options, log):
    """Set up the meson tree bdir under top with options (meson setup, once:
    an existing tree keeps its own) and build it (ninja); None when built,
    else the end of what meson or ninja printed."""
    if not os.path.exists(os.path.join(top, bdir, 'build.ninja')):
        log('meson setup ' + ' '.join([bdir] + list(options)))
        p = subprocess.run(['meson', 'setup', bdir] + list(options),
                           cwd=top, capture_output=True, text=True)
        if p.returncode != 0:
            return (p.stdout + p.stderr)[-3000:]
    p = subprocess.run(['ninja', '-C', bdir], cwd=top, capture_output=True,
                       text=True)
    if p.returncode != 0:
        return (p.stdout + p.stderr)[-3000:]
    return None
