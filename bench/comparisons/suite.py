# SPDX-License-Identifier: BSD-3-Clause
"""The README's test command as CI runs it (packages already installed):
its wall-clock time and counts, one run."""
import re

from harness import core

LINE = re.compile(r'^(\d+) passed, (\d+) failed, (\d+) skipped in (\d+) min '
                  r'(\d+) s')


def parse(out):
    """{'minutes': m, 'passed': n, 'failed': n, 'skipped': n} of the closing
    line of scripts/test.sh."""
    for line in out.splitlines():
        m = LINE.match(line)
        if m:
            return {'wall-clock time': int(m.group(4)) + int(m.group(5)) / 60,
                    'tests passed': int(m.group(1)),
                    'tests failed': int(m.group(2)),
                    'tests skipped': int(m.group(3))}
    return {}


def sides(ctx):
    """scripts/test.sh."""
    return [core.Side('linerate', ['scripts/test.sh'], timeout=3600)]


def needs(ctx):
    """scripts/test.sh sets up as root (packages, hugepages, namespaces)."""
    import os
    return None if os.geteuid() == 0 else 'needs root'


COMPARISON = core.Comparison(
    'suite', 'Test suite (scripts/test.sh)',
    'The README\'s test command as CI runs it, packages already installed: '
    'every stage from a fresh build-test/, and its closing line.',
    sides=sides, parse=parse, rounds=1, needs=needs,
    unit_of=lambda row: 'minutes' if row == 'wall-clock time' else 'tests',
    better_of=lambda row: 'lower' if row != 'tests passed' else 'higher')
