# SPDX-License-Identifier: BSD-3-Clause
"""The network namespaces of scripts/netns.sh (Netns) for a comparison
whose programs run in them (each started as a proc.Background, watched
for its readiness line), and the names of those programs' runs.

Nothing here measures or computes a figure: an entry's measure() starts,
waits and stops with these, and parses the outputs itself.
"""
import os
import re
import shutil
import subprocess


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
