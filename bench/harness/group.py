# SPDX-License-Identifier: BSD-3-Clause
"""Processes started together for one measurement (a server and its
client, a generator and a forwarder): start one with its output read line
by line as it comes, wait for a condition while the processes live, find
a thread, read a thread's CPU time, stop in a given order.

Readiness is always something a program does (a line it prints, a socket
it creates), polled while it lives: never a fixed sleep.
"""
import glob
import os
import shlex
import shutil
import signal
import stat
import subprocess
import threading
import time

from . import core


class Proc:
    """A program started in the background, its output (stdout and stderr
    together) kept and passed line by line to on_line(line) as it comes."""

    def __init__(self, name, argv, cwd, on_line=None, stdin=None, env=None):
        self.name = name
        self.argv = [str(a) for a in argv]
        full = dict(os.environ)
        full.update(env or {})
        self.lines = []
        self.on_line = on_line
        self.p = subprocess.Popen(
            self.argv, cwd=cwd, env=full,
            stdin=subprocess.PIPE if stdin == 'pipe' else subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.pid = self.p.pid
        self.rc = None
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        """Keep every line, and hand each to on_line."""
        for raw in iter(self.p.stdout.readline, b''):
            line = raw.decode(errors='replace').rstrip('\n')
            self.lines.append(line)
            if self.on_line:
                self.on_line(line)

    def command(self):
        """The command line as a user types it."""
        return ' '.join(shlex.quote(a) for a in self.argv)

    def alive(self):
        """True while the process runs."""
        return self.p.poll() is None

    def output(self):
        """Everything it printed so far, as text."""
        return '\n'.join(self.lines)

    def stop(self, grace=60):
        """SIGINT (a user's ^C), SIGKILL after grace seconds; returns
        (exit status, killed). The reader has read everything after it."""
        killed = False
        if self.alive():
            self.p.send_signal(signal.SIGINT)
            try:
                self.p.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
                killed = True
        self.reader.join(timeout=10)
        if self.p.stdin:
            self.p.stdin.close()
        self.rc = self.p.returncode
        return self.rc, killed

    def kill(self):
        """SIGKILL if it still runs (cleanup)."""
        if self.alive():
            self.p.kill()
            self.p.wait()
        if self.p.stdin:
            self.p.stdin.close()


def wait_until(cond, procs, timeout, step=0.05):
    """Poll cond() until it is true (True) while every process of procs
    lives; False when one ended or timeout seconds passed."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        if not all(p.alive() for p in procs):
            return False
        time.sleep(step)
    return cond()


def is_socket(path):
    """A predicate: path exists and is a socket (a server is listening)."""
    def cond():
        try:
            return stat.S_ISSOCK(os.stat(path).st_mode)
        except OSError:
            return False
    return cond


def thread_named(pid, prefixes):
    """The id of pid's first thread whose name starts with one of
    prefixes, or None."""
    for task in sorted(glob.glob(f'/proc/{pid}/task/*')):
        try:
            with open(os.path.join(task, 'comm')) as f:
                comm = f.read().strip()
        except OSError:
            continue
        if comm.startswith(tuple(prefixes)):
            return int(os.path.basename(task))
    return None


def thread_cpu_ns(pid, tid):
    """CPU time (ns) thread tid of pid has run so far
    (/proc/PID/task/TID/schedstat), or None when it is gone."""
    try:
        with open(f'/proc/{pid}/task/{tid}/schedstat') as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def stop_all(procs, first=lambda p: False, grace=60):
    """Stop procs one at a time, those first(p) says first, the others in
    the order given; [(proc, exit status, killed)]."""
    order = [p for p in procs if first(p)] + [p for p in procs
                                              if not first(p)]
    return [(p,) + p.stop(grace) for p in order]


def exit_note(proc, rc, killed, lines=3):
    """A note on an exit after SIGINT that was not clean (None if clean),
    with the last lines of its output."""
    if killed:
        why = 'did not end after SIGINT: killed'
    elif rc is not None and rc < 0 and rc != -signal.SIGINT:
        why = f'died of signal {-rc} after SIGINT'
    elif rc not in (0, None, -signal.SIGINT, 128 + signal.SIGINT):
        why = f'exited with status {rc}'
    else:
        return None
    tail = ' / '.join(x.strip() for x in proc.lines[-lines:] if x.strip())
    return f'{proc.name} {why}: {tail}'


def remove(paths):
    """Remove files and folders (glob patterns), ignoring what is gone."""
    for pat in paths:
        for p in glob.glob(pat):
            if os.path.isdir(p) and not os.path.islink(p):
                shutil.rmtree(p, ignore_errors=True)
            else:
                try:
                    os.unlink(p)
                except OSError:
                    pass


class Together(core.Side):
    """A side of a comparison made of several processes started together
    (a server, then its client): command() gives each command line on a
    line of its own, as a shell session (a process that runs in the
    background while the next starts ends with ' &'; '#' lines say what
    follows), for the section's command block."""

    def __init__(self, label, lines, note=None):
        super().__init__(label, [], note=note)
        self.lines = list(lines)

    def command(self):
        """The lines, each shown after the report's '$ '."""
        return '\n$ '.join(self.lines)
