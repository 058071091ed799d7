# SPDX-License-Identifier: BSD-3-Clause
"""The statistics every comparison uses: median, spread, ratio.

A figure of a row is the median over the processes (rounds) of one side,
with its range [min-max] as the spread; a ratio is ours / peer of the two
medians. Nothing else is computed anywhere in the harness.
"""


def median(values):
    """The median of a non-empty list of numbers (mean of the middle two)."""
    v = sorted(values)
    n = len(v)
    if n == 0:
        raise ValueError('median of no values')
    mid = n // 2
    return v[mid] if n % 2 else (v[mid - 1] + v[mid]) / 2


def spread(values):
    """(min, max) of a non-empty list."""
    return min(values), max(values)


def ratio(ours, peer):
    """ours / peer, or None when either is missing or not positive."""
    if ours is None or peer is None or ours <= 0 or peer <= 0:
        return None
    return ours / peer


def summarize(values):
    """{'median', 'min', 'max', 'n', 'values'} of a list, or None if empty."""
    if not values:
        return None
    lo, hi = spread(values)
    return {'median': median(values), 'min': lo, 'max': hi,
            'n': len(values), 'values': list(values)}


def fmt(x, digits=2):
    """A figure as text: '-' for None."""
    if x is None:
        return '-'
    return f'{x:.{digits}f}'


def cell(s, digits=2):
    """'median [min-max]' of a summarize() result, '-' for None."""
    if s is None:
        return '-'
    if s['n'] == 1:
        return fmt(s['median'], digits)
    return (f"{fmt(s['median'], digits)} "
            f"[{fmt(s['min'], digits)}-{fmt(s['max'], digits)}]")
