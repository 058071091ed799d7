# SPDX-License-Identifier: BSD-3-Clause
"""Bar charts of the summary rows (bench/plots/*.png) with gnuplot, from
the same results as BENCHMARKS.md: one chart of rates (higher is better)
and one of cycles (lower is better), linerate beside each DPDK build, the
bars at the medians and the ranges as error bars."""
import os
import shutil
import subprocess
import tempfile

from . import report

KINDS = (('throughput', 'higher', 'rates, higher is better'),
         ('cycles', 'lower', 'cycles per object or item, lower is better'))


def value(s, key):
    """A summary's field as text for gnuplot, '-' when missing."""
    return '-' if s is None else f'{s[key]:.4g}'


def data_lines(results, better):
    """Tab-separated lines: label, then median/min/max of each side."""
    out = []
    for res in results:
        for what, unit, b, o, d, n in report.summary_rows(res):
            if b != better:
                continue
            cols = [f'{what} ({unit})']
            for s in (o, d, n):
                cols += [value(s, 'median'), value(s, 'min'),
                         value(s, 'max')]
            out.append('\t'.join(cols))
    return out


SCRIPT = '''set terminal pngcairo size {w},560 font "sans,10"
set output "{out}"
set title "linerate beside DPDK 22.11, same run: {title}"
set datafile separator "\\t"
set datafile missing "-"
set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set key tmargin center horizontal
set grid ytics
set yrange [0:*]
set xtics rotate by 30 right noenhanced
set bmargin 12
set lmargin 12
plot "{dat}" using 2:3:4:xtic(1) title "linerate" lc rgb "#1b7837", \\
     "" using 5:6:7 title "DPDK (Debian)" lc rgb "#762a83", \\
     "" using 8:9:10 title "DPDK (native)" lc rgb "#e08214"
'''


def draw(top, results, outdir='bench/plots'):
    """Draw the charts; returns their paths relative to the tree (none when
    gnuplot is missing or there is nothing to draw)."""
    if not shutil.which('gnuplot'):
        return []
    drawn = []
    os.makedirs(os.path.join(top, outdir), exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for kind, better, title in KINDS:
            lines = data_lines(results, better)
            rel = os.path.join(outdir, kind + '.png')
            path = os.path.join(top, rel)
            if not lines:
                if os.path.exists(path):
                    os.unlink(path)
                continue
            dat = os.path.join(tmp, kind + '.dat')
            with open(dat, 'w') as f:
                f.write('\n'.join(lines) + '\n')
            script = SCRIPT.format(w=400 + 110 * len(lines), out=path,
                                   title=title, dat=dat)
            p = subprocess.run(['gnuplot'], input=script, text=True,
                               capture_output=True)
            if p.returncode == 0:
                drawn.append(rel)
    return drawn
