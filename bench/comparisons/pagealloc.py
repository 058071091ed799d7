# SPDX-License-Identifier: BSD-3-Clause
"""lib/pagealloc alone: the rows of the Linux kernel's 2016 page allocator
microbenchmark (one call per block, and the bulk API), and the page pool's
paths. The kernel figures the programs quote are from another CPU and
method (bench/reference/): an order of magnitude, not a same-run peer."""
import re

from harness import core

KERNEL = 'Linux 4.6.0-rc3 2016 (another CPU, quoted)'
ROW = re.compile(r'^([a-z]+-odr\d+-\d+)\s+([0-9.]+)\s+\[[^]]*\]\s+([0-9.]+|-)')
POOL_ROW = re.compile(r'^(\s*\S.*?)\s{2,}([0-9]+\.[0-9]+)(?:\s+(\S+))?')


def parse_pagealloc(out):
    """{test: {ours, kernel}} cycles per call of one process."""
    figs = {}
    for line in out.splitlines():
        m = ROW.match(line)
        if not m:
            continue
        v = {'linerate': float(m.group(2))}
        if m.group(3) != '-':
            v[KERNEL] = float(m.group(3))
        figs[m.group(1)] = v
    return figs


def parse_page_pool(out):
    """{path: cycles per alloc+put} of one lr-page-pool-bench process."""
    figs = {}
    started = False
    for line in out.splitlines():
        if line.startswith('path '):
            started = True
            continue
        m = POOL_ROW.match(line) if started else None
        if m:
            figs[m.group(1).strip()] = float(m.group(2))
    return figs


def pagealloc_sides(extra):
    """The lr-pagealloc-bench side, with extra arguments after --."""
    def sides(ctx):
        return [core.Side('linerate', [
            f'{ctx.build}/apps/pagealloc-bench/lr-pagealloc-bench', '-l',
            '0'] + ctx.mem_args(1024, 512) +
            ['--file-prefix=bench_pagealloc'] + extra)]
    return sides


def page_pool_sides(ctx):
    """The lr-page-pool-bench side."""
    return [core.Side('linerate', [
        f'{ctx.build}/apps/page-pool-bench/lr-page-pool-bench', '-l',
        ctx.lcores()] + ctx.mem_args(512, 256) +
        ['--file-prefix=bench_page_pool'])]


COMPARISON = core.Comparison(
    'pagealloc', 'Page allocator (lib/pagealloc), one call per block',
    'The rows of the Linux page allocator microbenchmark (2016 series): '
    'alloc, free and the whole cycle of batches of 1 to 16384 blocks of '
    'order 0 to 4, one call per block, cycles per call (each process: '
    'the median of 5 windows of at least 10 ms). Beside them, the figures '
    'the kernel\'s series published (bench/reference/'
    'kernel-page-alloc-2016.tsv): another CPU and method, an order of '
    'magnitude, not a same-run peer.',
    sides=pagealloc_sides([]), parse=parse_pagealloc, rounds=3,
    unit='cycles/call', better='lower')

BULK = core.Comparison(
    'pagealloc_bulk', 'Page allocator (lib/pagealloc), the bulk API',
    'The same rows with one call per batch (lr_pagealloc bulk API), '
    'cycles per block; the kernel figures quoted are its one-call-per-'
    'block ones.',
    sides=pagealloc_sides(['--', '--bulk']), parse=parse_pagealloc,
    rounds=3, unit='cycles/block', better='lower')

PAGE_POOL = core.Comparison(
    'page_pool', 'Page pool (lib/pagealloc, lr_page_pool.h)',
    'Cycles per alloc+put: fast (direct recycle), ring (put from another '
    'thread, and its two halves), slow (from the allocator). One-lcore '
    'rows: minimum over windows of 1024 pages; two-thread rows: median '
    'burst of 32. (The kernel\'s page_pool figures the program prints, '
    '19-22, 54-60 and 238 cycles, are from its own benchmark module on '
    'another machine.)',
    sides=page_pool_sides, parse=parse_page_pool, rounds=3,
    unit='cycles', better='lower')
