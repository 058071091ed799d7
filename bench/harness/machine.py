# SPDX-License-Identifier: BSD-3-Clause
"""The machine and build header of BENCHMARKS.md: CPU, memory, kernel,
hugepages, compilers, linerate's build and each DPDK build there is."""
import os
import platform
import subprocess

from . import peers


def first_line(cmd):
    """First line a command prints, or '?'."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True)
        out = (p.stdout or p.stderr).strip().splitlines()
        return out[0] if out else '?'
    except OSError:
        return '?'


def cpu_model():
    """The CPU's model name from /proc/cpuinfo."""
    try:
        with open('/proc/cpuinfo') as f:
            for line in f:
                if line.startswith('model name') or line.startswith('cpu\t'):
                    return line.split(':', 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or '?'


def mem_gib():
    """Total memory in GiB."""
    try:
        with open('/proc/meminfo') as f:
            kb = int(f.readline().split()[1])
        return f'{kb / 1048576:.0f}'
    except (OSError, ValueError, IndexError):
        return '?'


def describe(ctx):
    """[(key, value)] lines of the header."""
    deb = ' '.join(peers.pkg_config(['--modversion', 'libdpdk']) or [])
    nat = peers.native_build(ctx)
    rows = [
        ('machine', f'{cpu_model()}, {os.cpu_count()} CPUs, {mem_gib()} GiB, '
                    f'kernel {platform.release()} ({platform.machine()})'),
        ('hugepages', f'{ctx.free_hugepages()} free 2 MiB pages when the '
                      'file was written'),
        ('compiler', first_line(['cc', '--version'])),
        ('linerate', f'meson release build (-O3 -march=native) in '
                     f'{ctx.build}/'),
        ('DPDK (Debian)', f'{deb} from libdpdk-dev (shared, -O2, baseline '
                          'CPU); peers\' own loops built cc '
                          f'{" ".join(peers.CFLAGS)}' if deb else
         'not installed (libdpdk-dev)'),
        ('DPDK (native)', f'{nat.get("version", "22.11")} built '
                          f'{nat.get("cflags", "?")} by scripts/dpdk-native.sh'
         if nat else 'not built here (scripts/dpdk-native.sh)'),
    ]
    return rows
