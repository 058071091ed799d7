# SPDX-License-Identifier: BSD-3-Clause
"""Processes of a comparison that needs more than one program to its end:
a program in the background whose output is watched for a readiness line
(Background), and the network namespaces of scripts/netns.sh (Netns).

Nothing here measures or computes a figure: an entry's measure() starts,
waits and stops with these, and parses the outputs itself.
"""
import os
import re
import shutil
import signal
import subprocess
import threading
import time


class Background:
    """A program running in the background, its stdout and stderr gathered
    by a thread as they come (partial lines too, e.g. a prompt)."""

    def __init__(self, argv, cwd=None, env=None, stdin=False, log=None):
        """Start argv (env: variables added to ours; stdin: a pipe to
        send() to, else /dev/null); log gets the command line."""
        full = dict(os.environ)
        full.update(env or {})
        if log:
            log('$ ' + ' '.join(argv) + ' &')
        self._text = ''
        self._cond = threading.Condition()
        self._done = False
        self.proc = subprocess.Popen(
            [str(a) for a in argv], cwd=cwd, env=full,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        """Append what the program writes to the text, until it closes."""
        fd = self.proc.stdout.fileno()
        while True:
            chunk = os.read(fd, 65536)
            with self._cond:
                if not chunk:
                    self._done = True
                    self._cond.notify_all()
                    return
                self._text += chunk.decode(errors='replace')
                self._cond.notify_all()

    @property
    def pid(self):
        """The program's process id."""
        return self.proc.pid

    def text(self):
        """Everything the program has written so far."""
        with self._cond:
            return self._text

    def wait_for(self, pattern, timeout=120, start=0):
        """The first match of the regular expression pattern in the output
        from offset start, once it is there; None when the program closed
        its output or timeout seconds passed first (a bound for a hang,
        never a wait for readiness)."""
        rx = re.compile(pattern)
        end = time.monotonic() + timeout
        with self._cond:
            while True:
                m = rx.search(self._text, start)
                if m:
                    return m
                left = end - time.monotonic()
                if self._done or left <= 0:
                    return None
                self._cond.wait(min(left, 1.0))

    def send(self, line):
        """Write line and a newline to the program's stdin."""
        self.proc.stdin.write((line + '\n').encode())
        self.proc.stdin.flush()

    def stop(self, sig=signal.SIGINT, timeout=30):
        """Send sig (if it runs), wait up to timeout s (then SIGKILL):
        (output, exit status)."""
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
        self._reader.join(10)
        if self.proc.stdin:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
        return self.text(), self.proc.returncode

    def kill(self):
        """SIGKILL and reap it (cleanup in a finally: never raises)."""
        try:
            self.stop(signal.SIGKILL, 10)
        except OSError:
            pass


def unique_prefix(tag):
    """A name prefix unique to this run: tag (2 letters) and our pid,
    10 characters at most (interface names stay under 15)."""
    return f'{tag[:3]}{os.getpid() % 1000000}'


def in_netns(ns, argv):
    """argv run in network namespace ns."""
    return ['ip', 'netns', 'exec', ns] + list(argv)


class Netns:
    """The topology of scripts/netns.sh (namespaces PREFIXgen and
    PREFIXfwd joined by veth pairs, quiet links), made and removed through
    it. names maps 'gen', 'fwd' and each pair's suffixes ('g0', 'f0', ...)
    to the real names; extra namespaces added by add_ns() are removed with
    the rest."""

    def __init__(self, top, prefix, pairs=()):
        """Create the topology (pairs: 'GEN:FWD[:QUEUES]' as netns.sh
        takes them; its default two pairs when empty); raises
        RuntimeError with netns.sh's message when it fails."""
        self.top = top
        self.prefix = prefix
        self.extra = []
        p = subprocess.run([os.path.join(top, 'scripts', 'netns.sh'),
                            'create', prefix] + list(pairs),
                           capture_output=True, text=True)
        if p.returncode != 0:
            self.destroy()
            raise RuntimeError(f'netns.sh create: {p.stderr.strip()}')
        self.names = {}
        for line in p.stdout.splitlines():
            m = re.match(r'export LR_(NS|IF)_([A-Z0-9]+)=(\S+)$', line)
            if m:
                self.names[m.group(2).lower()] = m.group(3)

    def add_ns(self, suffix):
        """A namespace PREFIX<suffix> with lo up, removed by destroy(); its
        name goes to names[suffix]."""
        ns = self.prefix + suffix
        self.extra.append(ns)
        subprocess.run(['ip', 'netns', 'add', ns], check=True)
        subprocess.run(['ip', '-n', ns, 'link', 'set', 'lo', 'up'],
                       check=True)
        self.names[suffix] = ns
        return ns

    def ip(self, ns_key, *args):
        """Run `ip -n NS ARGS` in the namespace names[ns_key]; raises on
        failure."""
        subprocess.run(['ip', '-n', self.names[ns_key]] + list(args),
                       check=True, capture_output=True)

    def destroy(self):
        """Remove every namespace made (never raises)."""
        for ns in self.extra:
            subprocess.run(['ip', 'netns', 'del', ns], capture_output=True)
        subprocess.run([os.path.join(self.top, 'scripts', 'netns.sh'),
                        'destroy', self.prefix], capture_output=True)


def remove_dpdk_runtime(prefix):
    """Remove the runtime folders DPDK's programs left for file prefixes
    starting with prefix (/var/run/dpdk/PREFIX*; never raises)."""
    base = '/var/run/dpdk'
    if not prefix or not os.path.isdir(base):
        return
    for d in os.listdir(base):
        if d.startswith(prefix):
            shutil.rmtree(os.path.join(base, d), ignore_errors=True)
