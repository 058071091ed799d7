# SPDX-License-Identifier: BSD-3-Clause
"""Process helpers for comparisons whose runs need more than "one process
to its end" (Context.run): a program in the background whose output is
watched as it comes (Background, the one class group.py, netns.py and the
entries use), a program whose output lines are timed as they arrive and
which is stopped a while after a line it prints, the leftovers a DPDK
program may leave behind, and a meson tree of its own (a build with other
options than build-bench's)."""
import codecs
import glob
import os
import re
import shlex
import shutil
import signal
import subprocess
import threading
import time

from . import core


class Background:
    """A program started in the background, its stdout and stderr gathered
    together by a thread as they come: the whole text (partial lines too,
    e.g. a prompt) and its lines, each handed to on_line(line) once it is
    complete (the last one, unterminated, when the output closes)."""

    def __init__(self, argv, cwd=None, env=None, stdin=False, log=None,
                 name=None, on_line=None):
        """Start argv (env: variables added to ours; stdin: a pipe to
        send() to, else /dev/null); log gets the command line; name is
        what exit notes call it (the program's path when None)."""
        self.argv = [str(a) for a in argv]
        self.name = name if name is not None else self.argv[0]
        full = dict(os.environ)
        full.update(env or {})
        if log:
            log('$ ' + ' '.join(self.argv) + ' &')
        self.lines = []
        self.on_line = on_line
        self.rc = None
        self.killed = False
        self._text = ''
        self._partial = ''
        self._cond = threading.Condition()
        self._done = False
        self.proc = subprocess.Popen(
            self.argv, cwd=cwd, env=full,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        """Append what the program writes to the text and its lines, until
        it closes its output."""
        fd = self.proc.stdout.fileno()
        dec = codecs.getincrementaldecoder('utf-8')(errors='replace')
        while True:
            chunk = os.read(fd, 65536)
            text = dec.decode(chunk, final=not chunk)
            with self._cond:
                self._text += text
                done = (self._partial + text).split('\n')
                self._partial = done.pop()
                if not chunk and self._partial:
                    done.append(self._partial)
                    self._partial = ''
                self.lines.extend(done)
            for line in done:
                if self.on_line:
                    self.on_line(line)
            with self._cond:
                if not chunk:
                    self._done = True
                self._cond.notify_all()
            if not chunk:
                return

    @property
    def pid(self):
        """The program's process id."""
        return self.proc.pid

    def command(self):
        """The command line as a user types it."""
        return ' '.join(shlex.quote(a) for a in self.argv)

    def alive(self):
        """True while the process runs."""
        return self.proc.poll() is None

    def closed(self):
        """True once the program has closed its output (and all of it has
        been read)."""
        with self._cond:
            return self._done

    def text(self):
        """Everything the program has written so far."""
        with self._cond:
            return self._text

    def output(self):
        """Its lines so far, joined by newlines."""
        with self._cond:
            return '\n'.join(self.lines)

    def _wait_cond(self, found, timeout):
        """found() (called with the lock held) once it is not None; None
        when the output closed or timeout seconds passed first."""
        end = time.monotonic() + timeout
        with self._cond:
            while True:
                m = found()
                if m is not None:
                    return m
                left = end - time.monotonic()
                if self._done or left <= 0:
                    return None
                self._cond.wait(min(left, 1.0))

    def wait_for(self, pattern, timeout=120, start=0):
        """The first match of the regular expression pattern in the output
        from offset start, once it is there; None when the program closed
        its output or timeout seconds passed first (a bound for a hang,
        never a wait for readiness)."""
        rx = re.compile(pattern)
        return self._wait_cond(lambda: rx.search(self._text, start),
                               timeout)

    def wait_line(self, pattern, timeout=120):
        """The first whole line in which the regular expression pattern
        matches, once it is there; None as wait_for()."""
        rx = re.compile(pattern)
        return self._wait_cond(
            lambda: next((x for x in self.lines if rx.search(x)), None),
            timeout)

    def wait(self, timeout):
        """Its exit status once it has ended, None when it still runs after
        timeout seconds."""
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def send(self, line):
        """Write line and a newline to the program's stdin."""
        self.proc.stdin.write((line + '\n').encode())
        self.proc.stdin.flush()

    def stop(self, sig=signal.SIGINT, timeout=30):
        """Send sig (if it runs; SIGINT is a user's ^C), wait up to timeout
        s, then SIGKILL (killed says so): (output, exit status). The
        reader has read everything after it."""
        if self.proc.poll() is None:
            try:
                self.proc.send_signal(sig)
            except ProcessLookupError:
                pass
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            self.killed = True
        self._reader.join(10)
        if not self._reader.is_alive():
            self.proc.stdout.close()
        if self.proc.stdin:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
        self.rc = self.proc.returncode
        return self.text(), self.rc

    def kill(self):
        """SIGKILL and reap it (cleanup in a finally: never raises)."""
        try:
            self.stop(signal.SIGKILL, 10)
        except OSError:
            pass


def run_timed(ctx, side, ready, stop_after, log, ready_timeout=30):
    """Run side, each output line prefixed with the seconds since its start
    ("12.345 line") as it arrives; SIGINT it stop_after seconds after its
    first line matching the regex ready (at once when none comes within
    ready_timeout s). Returns (output, exit status); a status of SIGINT is
    0, a program that had to be killed gives -1."""
    log(f'$ {side.command()}')
    lines = []
    t0 = time.monotonic()

    def on_line(line):
        """Time and keep every line."""
        lines.append(f'{time.monotonic() - t0:.3f} {line}')

    bg = Background(side.argv, cwd=ctx.top, env=side.env, on_line=on_line)
    rc = None
    try:
        seen = bg.wait_line(ready, ready_timeout) is not None or bg.closed()
        if seen and bg.alive():
            rc = bg.wait(stop_after)
        if rc is None:
            _, rc = bg.stop(signal.SIGINT, 30)
            if bg.killed:
                rc = -1
            elif rc in (-signal.SIGINT, 128 + signal.SIGINT):
                rc = 0
    finally:
        bg.kill()
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
