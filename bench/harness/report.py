# SPDX-License-Identifier: BSD-3-Clause
"""Results on disk (bench/results/NAME.json) and BENCHMARKS.md from them.

A result holds what one comparison measured: its commands, its rows (per
side: median, range, every value), its notes, the machine and the commit
and date of the run. BENCHMARKS.md is written whole from the results, in
the registry's order: the machine header, the summary table (one row a
summary row of a comparison: ours, each peer, ratios, with spreads), then
one section a comparison, then the section of the bench/run --against
results (bench/results/against-NAME.json: linerate's sides against an
older tree's, moved_section), in the same order. Plots are drawn from the
comparisons' results.
"""
import json
import os
import subprocess

from . import stats


# The file name prefix of an --against result.
AGAINST = 'against-'


def result_path(top, name, against=False):
    """Where the result of comparison name is kept (its --against result:
    against-NAME.json)."""
    return os.path.join(top, 'bench', 'results',
                        (AGAINST if against else '') + name + '.json')


def save(top, res):
    """Write a result (a dict) as bench/results/<name>.json, or
    against-<name>.json for an --against result."""
    p = result_path(top, res['name'], 'against' in res)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, 'w') as f:
        json.dump(res, f, indent=1, sort_keys=True)
        f.write('\n')


def load(top, name, against=False):
    """The stored result of name (its --against result), or None."""
    try:
        with open(result_path(top, name, against)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def peer_kind(label):
    """'ours', 'debian', 'native' or 'other' for a side label."""
    if label == 'linerate' or label.startswith('linerate'):
        return 'ours'
    if 'Debian' in label:
        return 'debian'
    if 'native' in label:
        return 'native'
    return 'other'


def by_kind(cells):
    """{kind: summary} from {label: summary} (first label of each kind)."""
    out = {}
    for label, s in cells.items():
        out.setdefault(peer_kind(label), s)
    return out


def summary_rows(res):
    """[(what, unit, better, ours, debian, native)] of one result, each
    figure a stats.summarize() dict or None."""
    out = []
    rows = {r['row']: r for r in res.get('rows', [])}
    for what in res.get('summary', []):
        r = rows.get(what)
        if r is None:
            continue
        k = by_kind(r['cells'])
        out.append((f"{res['name']}: {what}", r['unit'], r['better'],
                    k.get('ours'), k.get('debian'), k.get('native')))
    return out


def ratio_text(ours, peer):
    """The ratio of two medians as text, '-' when one is missing."""
    if ours is None or peer is None:
        return '-'
    return stats.fmt(stats.ratio(ours['median'], peer['median']))


def summary_table(results):
    """The opening table of BENCHMARKS.md, as lines."""
    lines = [
        '## Summary: linerate beside DPDK 22.11, same run',
        '',
        'One row a figure: the median over the rounds of each side, with its '
        'range [min-max]; the',
        'rounds alternate between the programs in one run, measured the same '
        'way. Ratio = linerate /',
        'DPDK (above 1 is better for rates, below 1 for cycles). "-": that '
        'side was not there.',
        '',
        '| comparison | unit | linerate | DPDK (Debian) | DPDK (native) '
        '| / Debian | / native |',
        '|---|---|---|---|---|---|---|',
    ]
    for res in results:
        for what, unit, better, o, d, n in summary_rows(res):
            lines.append(
                f'| {what} | {unit} ({better} is better) | {stats.cell(o)} '
                f'| {stats.cell(d)} | {stats.cell(n)} | {ratio_text(o, d)} '
                f'| {ratio_text(o, n)} |')
    lines.append('')
    return lines


def run_command(res):
    """The bench/run command that made a result."""
    if 'against' in res:
        return f"bench/run --against {res['against']['rev']} {res['name']}"
    return f"bench/run {res['name']}"


def section(res, level=2):
    """One comparison's section of BENCHMARKS.md, as lines (its title a
    heading of level)."""
    lines = [f"{'#' * level} {res['title']}", '',
             f"`{run_command(res)}` at {res['commit']}, {res['date']}.",
             '', res['text'], '']
    lines += ['Commands (one process a round, rounds alternating, '
              f"{res['rounds']} rounds):", '', '```']
    lines += [f'$ {c}' for c in res['commands']]
    lines += ['```', '']
    for n in res.get('notes', []):
        lines.append(f'- {n}')
    if res.get('notes'):
        lines.append('')
    lines += table(res)
    if res.get('output'):
        lines += ['Output of the first round, ours:', '', '```']
        lines += res['output'].rstrip('\n').split('\n')
        lines += ['```', '']
    return lines


def table(res):
    """A result's table, as lines: a row a figure, a column a side (median
    [min-max]), each after the first with the ratio first / it."""
    lines = []
    if res.get('rows'):
        labels = res['labels']
        ours = labels[0]
        head = '| row | unit | ' + ' | '.join(
            lab + (' (ratio)' if i else '') for i, lab in
            enumerate(labels)) + ' |'
        lines += [head, '|' + '---|' * (len(labels) + 2)]
        for r in res['rows']:
            o = r['cells'].get(ours)
            cells = []
            for i, lab in enumerate(labels):
                s = r['cells'].get(lab)
                c = stats.cell(s, res.get('digits', 2))
                if i and s is not None and o is not None:
                    c += f' ({ratio_text(o, s)})'
                cells.append(c)
            lines.append(f"| {r['row']} | {r['unit']} | " +
                         ' | '.join(cells) + ' |')
        lines.append('')
    return lines


def moved_rows(res):
    """[(what, unit, better, this tree, REV)] of an --against result's
    summary rows, each figure a stats.summarize() dict or None."""
    labels = list(res.get('labels', [])) + [None, None]
    head, rev = labels[0], labels[1]
    rows = {r['row']: r for r in res.get('rows', [])}
    out = []
    for what in res.get('summary', []):
        r = rows.get(what)
        if r is not None:
            out.append((f"{res['name']}: {what}", r['unit'], r['better'],
                        r['cells'].get(head), r['cells'].get(rev)))
    return out


def moved_section(results):
    """The section of the --against results, as lines: what they are, a
    table of their summary rows (this tree, the old one, the ratio), then
    each result's own section; [] when there are none."""
    if not results:
        return []
    lines = ['## Moved paths against the old tree', '',
             'Where code moved (issue 35: memif a folder of concerns, '
             'lib/net\'s Unix sockets and',
             'shared memory, lr-pktgen split by concern, af_packet and pcap '
             'sharing their ring setup),',
             '`bench/run --against REV NAME` builds the tree of REV (a '
             'detached git worktree, the',
             'same meson release build) and runs the linerate sides of NAME '
             'from both builds in one',
             'run, alternating in each round, measured the same way; no DPDK '
             'peer. Ratio = this tree /',
             'REV (above 1 is better for rates, below 1 for cycles).', '',
             '| comparison | unit | this tree | old tree | ratio | commits |',
             '|---|---|---|---|---|---|']
    for res in results:
        commits = f"{res['commit']} / {res['against']['rev']}"
        for what, unit, better, h, o in moved_rows(res):
            lines.append(
                f'| {what} | {unit} ({better} is better) | {stats.cell(h)} '
                f'| {stats.cell(o)} | {ratio_text(h, o)} | {commits} |')
    lines.append('')
    for res in results:
        lines += section(res, 3)
    return lines


def header(machine):
    """The opening block: what produced the file, on what machine."""
    lines = ['# linerate benchmarks', '',
             'Written whole by `bench/run --write` from the results in '
             '`bench/results/` (one file a',
             'comparison, rerun with `bench/run --write NAME`); each section '
             'gives the commit and date',
             'of its run. Benchmarks print figures; nothing here fails on '
             'speed.', '']
    for k, v in machine:
        lines.append(f'- {k}: {v}')
    lines += ['',
              'The machine is a shared 2-vCPU VM: figures move about ±10% '
              'between runs; compare',
              'figures taken in the same run (one section). Cycles are TSC '
              'cycles.', '']
    return lines


def write(path, machine, results, plots=(), against=()):
    """Write BENCHMARKS.md whole (against: the --against results)."""
    lines = header(machine) + summary_table(results)
    for p in plots:
        lines += [f'![{os.path.basename(p)}]({p})', '']
    for res in results:
        lines += section(res)
    lines += moved_section(list(against))
    with open(path, 'w') as f:
        f.write('\n'.join(lines).rstrip('\n') + '\n')


def git(top, *args):
    """Output of a git command in the tree, '' when it fails."""
    try:
        return subprocess.run(['git'] + list(args), cwd=top,
                              capture_output=True,
                              text=True).stdout.strip()
    except OSError:
        return ''
