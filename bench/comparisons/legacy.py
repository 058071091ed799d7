# SPDX-License-Identifier: BSD-3-Clause
"""Comparisons still measured by a shell script of scripts/ (until each is
an entry of its own): the harness runs the script once, keeps its output
as the section's text and its "summary|what|unit|better|linerate|DPDK
Debian|DPDK native" lines as rows (medians the script computed)."""
from harness import core

LABELS = ('linerate', 'DPDK Debian', 'DPDK native')


def parse_summary(out):
    """[(what, unit, better, {label: median})] of the summary| lines."""
    rows = []
    for line in out.splitlines():
        f = line.split('|')
        if len(f) < 7 or f[0] != 'summary':
            continue
        cells = {}
        for label, v in zip(LABELS, f[4:7]):
            try:
                cells[label] = float(v)
            except ValueError:
                pass
        rows.append((f[1], f[2], f[3], cells))
    return rows


def script_entry(name, title, text, argv, env=None, needs=None,
                 timeout=3600):
    """A Comparison that runs scripts/bench-X.sh once."""
    def measure(ctx, comp, log):
        a = [x.format(build=ctx.build) for x in argv]
        e = {k: v.format(build=ctx.build) for k, v in (env or {}).items()}
        side = core.Side('linerate', a, env=e, timeout=timeout)
        out, rc = ctx.run(side, log)
        rows = core.Rows()
        units = {}
        for what, unit, better, cells in parse_summary(out):
            units[what] = (unit, better)
            for label, v in cells.items():
                rows.add(what, label, v)
        comp.unit_of = lambda row: units[row][0]
        comp.better_of = lambda row: units[row][1]
        comp.summary = list(units)
        notes = [] if rc == 0 else [f'exit status {rc}: '
                                    f'{core.last_line(out)}']
        return rows, [side], notes, {'linerate': out}
    return core.Comparison(name, title, text, measure=measure, rounds=1,
                           needs=needs, show_output=True)
