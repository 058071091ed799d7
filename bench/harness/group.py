# SPDX-License-Identifier: BSD-3-Clause
"""Processes started together for one measurement (a server and its
client, a generator and a forwarder), each a proc.Background: wait for a
condition while the processes live, find a thread, read a thread's CPU
time, stop in a given order.

Readiness is always something a program does (a line it prints, a socket
it creates), polled while it lives: never a fixed sleep.
"""
import glob
import os
import shutil
import signal
import stat
import time

from . import core


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
    """Stop procs (proc.Background) one at a time with SIGINT, SIGKILL
    after grace seconds, those first(p) says first, the others in the
    order given; [(proc, exit status, killed)]."""
    order = [p for p in procs if first(p)] + [p for p in procs
                                              if not first(p)]
    return [(p, p.stop(timeout=grace)[1], p.killed) for p in order]


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
