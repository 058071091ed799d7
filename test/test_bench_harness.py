#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Unit tests of the benchmark harness (bench/harness, bench/comparisons):
its statistics, the parsers of the programs' output, the rounds
alternating and a failing side noted, and BENCHMARKS.md written from
results (summary rows, ratios, no absolute paths).

    test_bench_harness.py SOURCE_ROOT
"""
import json
import os
import shutil
import sys
import tempfile
import unittest

TOP = os.path.abspath(sys.argv.pop(1) if len(sys.argv) > 1 else
                      os.path.join(os.path.dirname(__file__), '..'))
sys.path.insert(0, os.path.join(TOP, 'bench'))

from harness import against, core, report, stats  # noqa: E402
from comparisons import mempool, pagealloc, registry, ring  # noqa: E402
from comparisons import l2fwd, suite  # noqa: E402
from comparisons import elastic, pktgen  # noqa: E402
from comparisons import memif, rfc2544_memif  # noqa: E402
from comparisons import dpdk_bridge, stack, veth  # noqa: E402
from comparisons import callgrind  # noqa: E402
from harness import proc  # noqa: E402
from comparisons import telemetry  # noqa: E402
from comparisons import vhost  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402


class Stats(unittest.TestCase):
    def test_median(self):
        self.assertEqual(stats.median([3, 1, 2]), 2)
        self.assertEqual(stats.median([4, 1, 3, 2]), 2.5)
        self.assertRaises(ValueError, stats.median, [])

    def test_ratio(self):
        self.assertAlmostEqual(stats.ratio(2, 4), 0.5)
        self.assertIsNone(stats.ratio(None, 4))
        self.assertIsNone(stats.ratio(2, 0))

    def test_cell(self):
        s = stats.summarize([5.0, 1.0, 3.0])
        self.assertEqual((s['median'], s['min'], s['max'], s['n']),
                         (3.0, 1.0, 5.0, 3))
        self.assertEqual(stats.cell(s), '3.00 [1.00-5.00]')
        self.assertEqual(stats.cell(None), '-')
        self.assertIsNone(stats.summarize([]))


RING_OUT = '''lr-ring-bench: ring of 1024 slots
(a) one lcore (lcore 0), enqueue then dequeue; 5 samples
mode   n          cycles per call pair     cycles per item
SP/SC  single         8.6 / 9.0            4.30 / 4.50
SP/SC  bulk 8        31.4 / 32.0           1.96 / 2.00

(b) two lcores: producer lcore 0 (CPU 0), consumer lcore 1 (CPU 1)
mode   n      producer cycles/item     consumer cycles/item
MP/MC  bulk 32        6.3 / 6.5            6.26 / 6.40
'''

MEMPOOL_OUT = '''# lr-mempool-bench: cycles per object
# bulk                             |      1 |      8 |     32 |    128
mempool, cache 256, ring_mp_mc     |   3.32 |   1.59 |   0.45 |      -
mbuf alloc_bulk+free_bulk, c512    |   8.93 |   fail |   6.34 |   7.20
'''


class Parsers(unittest.TestCase):
    def test_ring(self):
        f = ring.parse(RING_OUT)
        self.assertEqual(f['(a) one lcore, per item: SP/SC single'], 4.30)
        self.assertEqual(f['(a) one lcore, per item: SP/SC bulk 8'], 1.96)
        self.assertEqual(f['(b) two lcores, producer: MP/MC bulk 32'], 6.3)
        self.assertEqual(f['(b) two lcores, consumer: MP/MC bulk 32'], 6.26)
        self.assertEqual(len(f), 4)
        self.assertEqual(ring.parse('garbage\n(a)\nSP/SC bulk x\n'), {})

    def test_mempool(self):
        f = mempool.parse(MEMPOOL_OUT)
        self.assertEqual(f['mempool, cache 256, ring_mp_mc bulk 1'], 3.32)
        self.assertNotIn('mempool, cache 256, ring_mp_mc bulk 128', f)
        self.assertNotIn('mbuf alloc_bulk+free_bulk, c512 bulk 8', f)
        self.assertEqual(f['mbuf alloc_bulk+free_bulk, c512 bulk 128'], 7.2)
        for row in mempool.summary_rows():
            self.assertTrue(row.startswith('mempool, cache 256') or
                            row.startswith('mbuf alloc_bulk'), row)

    def test_pagealloc(self):
        out = ('test   cycles  [min-max]  kernel-2016  ratio\n'
               'alloc-odr0-1   64.20   [63.98-67.97]   316.00   4.9x\n'
               'free-odr3-8    12.00   [11.00-13.00]        -      -\n')
        f = pagealloc.parse_pagealloc(out)
        self.assertEqual(f['alloc-odr0-1'],
                         {'linerate': 64.2, pagealloc.KERNEL: 316.0})
        self.assertEqual(f['free-odr3-8'], {'linerate': 12.0})

    def test_page_pool(self):
        out = ('lr-page-pool-bench: 2000000 pages\n'
               'path (cycles per alloc+put)        linerate  kernel  target\n'
               'fast: direct recycle                    2.3   19-22   <= 10\n'
               'ring: same lcore, burst 32             22.0   54-60   <= 40\n'
               '  of which put (other thread)          52.5\n')
        f = pagealloc.parse_page_pool(out)
        self.assertEqual(f, {'fast: direct recycle': 2.3,
                             'ring: same lcore, burst 32': 22.0,
                             'of which put (other thread)': 52.5})

    def test_suite(self):
        f = suite.parse('=== native: meson test\n'
                        '139 passed, 0 failed, 4 skipped in 13 min 43 s\n')
        self.assertAlmostEqual(f['wall-clock time'], 13 + 43 / 60)
        self.assertEqual(f['tests passed'], 139)
        self.assertEqual(suite.parse('setup failed\n'), {})

    def test_window_rate(self):
        out = ''.join(f'\x1b[2JTotal packets sent: {n * 10**6}\n'
                      for n in (0, 5, 15, 25, 35, 45, 55))
        # lines 2 and 4 (1-based): (25 - 5) Mpkt over 2 s
        self.assertEqual(core.window_rate(out, l2fwd.SENT, 2, 2), 10.0)
        self.assertIsNone(core.window_rate(out, l2fwd.SENT, 4, 4))
        self.assertIsNone(core.window_rate(out, l2fwd.SENT, 0, 2))

    def test_ring_fwd(self):
        self.assertEqual(l2fwd.parse_ring(
            'x\nring-fwd total: forwarded=8 dropped=0 seconds=1.002 '
            'Mpps=89.31 cpu_seconds=0.4\n'),
            {'forwarded, 2 x net_ring': 89.31})

class Rounds(unittest.TestCase):
    """Rounds alternate between sides; a failing process is a note."""

    def test_alternation_and_failure(self):
        with tempfile.TemporaryDirectory() as tmp:
            order = os.path.join(tmp, 'order')
            prog = ('import sys; open(%r, "a").write(sys.argv[1] + "\\n"); '
                    'print("row a |", sys.argv[2]); '
                    'sys.exit(int(sys.argv[3]))') % order

            def sides(ctx):
                return [core.Side('linerate',
                                  [sys.executable, '-c', prog, 'ours', '2',
                                   '0']),
                        core.Side('DPDK Debian',
                                  [sys.executable, '-c', prog, 'peer', '4',
                                   '1'])]

            def parse(out):
                v = out.split('|')[1].strip()
                return {'a': float(v)}
            comp = core.Comparison('t', 'T', 'text', sides=sides,
                                   parse=parse, rounds=3)
            ctx = core.Context(tmp, 'build')
            rows, s, notes, first = comp.measure(ctx, lambda m: None)
            with open(order) as f:
                self.assertEqual(f.read().split(),
                                 ['ours', 'peer'] * 3)
            table = dict(rows.table())
            self.assertEqual(table['a']['linerate']['n'], 3)
            self.assertNotIn('DPDK Debian', table['a'])
            self.assertEqual(len(notes), 3)
            self.assertIn('DPDK Debian round 1: exit 1', notes[0])


class Report(unittest.TestCase):
    def result(self):
        return {
            'name': 'mempool', 'title': 'Mempool', 'text': 'what',
            'commit': 'abc1234', 'date': '2026-12-06 07:00 UTC',
            'rounds': 3,
            'commands': [core.sanitize(
                '/work/x/build-bench/apps/b -l 0 --file-prefix=/tmp/foo.1',
                '/work/x')],
            'labels': ['linerate', 'DPDK 22.11.11 Debian'],
            'notes': [], 'summary': ['r1'], 'digits': 2,
            'rows': [{'row': 'r1', 'unit': 'cycles', 'better': 'lower',
                      'cells': {'linerate': stats.summarize([1, 2, 3]),
                                'DPDK 22.11.11 Debian':
                                    stats.summarize([4, 4, 5])}}]}

    def test_section_and_summary(self):
        res = self.result()
        self.assertEqual(res['commands'][0],
                         'build-bench/apps/b -l 0 --file-prefix=$TMP')
        text = '\n'.join(report.section(res))
        self.assertIn('| r1 | cycles | 2.00 [1.00-3.00] | '
                      '4.00 [4.00-5.00] (0.50) |', text)
        rows = report.summary_table([res])
        self.assertIn('| mempool: r1 | cycles (lower is better) | '
                      '2.00 [1.00-3.00] | 4.00 [4.00-5.00] | - | 0.50 | - |',
                      rows)

    def test_write_round_trip(self):
        with tempfile.TemporaryDirectory() as tmp:
            res = self.result()
            report.save(tmp, res)
            self.assertEqual(report.load(tmp, 'mempool'), res)
            self.assertIsNone(report.load(tmp, 'nosuch'))
            out = os.path.join(tmp, 'B.md')
            report.write(out, [('machine', 'm')], [res])
            text = open(out).read()
            self.assertTrue(text.startswith('# linerate benchmarks'))
            self.assertNotIn('/work/', text)
            self.assertLess(text.index('## Summary'), text.index('## Mempool'))


def git_repo(path, commits):
    """A repository at path with commits commits (one file changed each):
    [full hashes], oldest first."""
    run = lambda *a: subprocess.run(  # noqa: E731
        ['git', '-C', path] + list(a), check=True, capture_output=True,
        text=True).stdout.strip()
    os.makedirs(path)
    run('init', '-q')
    out = []
    for i in range(commits):
        with open(os.path.join(path, 'f'), 'w') as f:
            f.write(f'{i}\n')
        run('add', 'f')
        run('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q',
            '-m', f'c{i}')
        out.append(run('rev-parse', 'HEAD'))
    return out


def load_run():
    """bench/run as a module (its helpers: check_against, against_chosen)."""
    import importlib.machinery
    import importlib.util
    loader = importlib.machinery.SourceFileLoader(
        'bench_run', os.path.join(TOP, 'bench', 'run'))
    spec = importlib.util.spec_from_loader('bench_run', loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def two_builds():
    """The builds of an --against run: this tree's, an old one's."""
    return [against.Build('linerate (aaa1111)', 'build-bench', 'aaa1111'),
            against.Build('linerate (bbb2222)', '/c/bbb2222/build-bench',
                          'bbb2222')]


class Against(unittest.TestCase):
    """bench/run --against: the worktree of REV, the builds, each entry's
    runs once a build, the result and its section of BENCHMARKS.md."""

    def tearDown(self):
        core.SHOWN.clear()

    def test_context(self):
        ctx = core.Context(TOP, 'build-bench')
        self.assertTrue(ctx.dpdk)
        self.assertEqual([(b.label, b.build) for b in ctx.linerate()],
                         [('linerate', 'build-bench')])
        ctx = core.Context(TOP, 'build-bench', against=two_builds())
        self.assertFalse(ctx.dpdk)
        self.assertEqual([b.label for b in ctx.linerate()],
                         ['linerate (aaa1111)', 'linerate (bbb2222)'])
        old = ctx.at(ctx.linerate()[1])
        self.assertEqual(old.build, '/c/bbb2222/build-bench')
        self.assertEqual(ctx.build, 'build-bench')
        self.assertIs(old._peers, ctx._peers)

    def test_missing(self):
        ctx = core.Context(TOP, 'b', against=two_builds())
        plain = core.Comparison('x', 'X', 't', needs=lambda c: 'no root')
        self.assertIn('no --against mode', plain.missing(ctx))
        why = core.Comparison('x', 'X', 't', against='newer than REV')
        self.assertEqual(why.missing(ctx), '--against: newer than REV')
        ok = core.Comparison('x', 'X', 't', needs=lambda c: 'no root',
                             against=True)
        self.assertEqual(ok.missing(ctx), 'no root')
        self.assertIsNone(why.missing(core.Context(TOP, 'b')))

    def test_sides_alternate_per_build(self):
        """A sides() entry: its linerate side once per build, each run
        from its build's folder, no DPDK side, rounds alternating."""
        with tempfile.TemporaryDirectory() as tmp:
            for b in ('new', 'old'):
                os.makedirs(os.path.join(tmp, b))
                with open(os.path.join(tmp, b, 'prog'), 'w') as f:
                    f.write(f'print("v | {len(b) + (b == "old")}")\n')

            def sides(ctx):
                out = [core.Side('linerate', [sys.executable,
                                              f'{ctx.build}/prog'])]
                if ctx.dpdk:
                    out.append(core.Side('DPDK Debian', ['false']))
                return out
            builds = [against.Build('linerate (n1)', 'new', 'n1'),
                      against.Build('linerate (o1)',
                                    os.path.join(tmp, 'old'), 'o1')]
            comp = core.Comparison(
                't', 'T', 'text', sides=sides, rounds=2, against=True,
                parse=lambda o: {'a': float(o.split('|')[1])})
            ctx = core.Context(tmp, 'new', against=builds)
            rows, s, notes, _ = comp.measure(ctx, lambda m: None)
            self.assertEqual([x.label for x in s],
                             ['linerate (n1)', 'linerate (o1)'])
            self.assertEqual(notes, [])
            self.assertEqual(rows.values['a'], {'linerate (n1)': [3.0, 3.0],
                                                'linerate (o1)': [4.0, 4.0]})

            def two(ctx):
                return [core.Side('linerate, a', ['true']),
                        core.Side('linerate, b', ['true'])]
            comp.sides = two
            self.assertRaisesRegex(ValueError, 'one linerate side',
                                   comp.measure, ctx, lambda m: None)

    def test_resolve_worktree_prepare(self):
        with tempfile.TemporaryDirectory() as tmp:
            repo = os.path.join(tmp, 'repo')
            old, new = git_repo(repo, 2)
            full, short = against.resolve(repo, 'HEAD~1')
            self.assertEqual(full, old)
            self.assertTrue(old.startswith(short))
            self.assertRaisesRegex(against.Error, 'nosuch: no such commit',
                                   against.resolve, repo, 'nosuch')
            self.assertRaisesRegex(against.Error, 'a commit .* is wanted',
                                   against.resolve, repo, '--all')
            self.assertRaisesRegex(against.Error, 'HEAD\'s own commit',
                                   against.check_distinct, new, new, 'x')
            cache = os.path.join(tmp, 'cache')
            seen = []

            def build(tree, bdir):
                seen.append((tree, bdir))
                with open(os.path.join(tree, 'f')) as f:
                    return None if f.read() == '0\n' else 'wrong tree'
            builds = against.prepare(repo, 'build-bench', 'HEAD~1', cache,
                                     build, lambda m: None)
            path = os.path.join(cache, short)
            self.assertEqual(seen, [(path, 'build-bench')])
            self.assertEqual([b.label for b in builds],
                             [against.label(new[:len(short)]),
                              against.label(short)])
            self.assertEqual(builds[0].build, 'build-bench')
            self.assertEqual(builds[1].build,
                             os.path.join(path, 'build-bench'))
            # Reused the second time; a failed build is an error.
            logs = []
            against.prepare(repo, 'b', old, cache, build, logs.append)
            self.assertIn(f'--against: reusing {path} ({short})', logs)
            self.assertRaisesRegex(
                against.Error, 'building .* failed:\nboom', against.prepare,
                repo, 'b', old, cache, lambda t, b: 'boom', lambda m: None)
            # A folder in the way is named, never removed.
            other = os.path.join(tmp, 'other')
            os.makedirs(os.path.join(other, short, 'mine'))
            self.assertRaisesRegex(
                against.Error, f'{other}/{short} is there but is not a '
                'worktree', against.prepare, repo, 'b', old, other,
                build, lambda m: None)
            self.assertTrue(os.path.isdir(os.path.join(other, short,
                                                       'mine')))
            self.assertRaisesRegex(
                against.Error, 'HEAD\'s own commit', against.prepare, repo,
                'b', 'HEAD', cache, build, lambda m: None)

    def test_run_arguments(self):
        run = load_run()
        self.assertIn('no such commit', run.check_against(TOP, 'nosuch~0x'))
        comps = {c.name: c for c in registry()}
        logs = []
        ok, failed = run.against_chosen(
            [comps['pktgen'], comps['vhost'], comps['ring']], True,
            logs.append)
        self.assertEqual([c.name for c in ok], ['pktgen'])
        self.assertEqual(failed, 2)
        self.assertTrue(logs[0].startswith('vhost: not run: --against: '
                                           'net_vhost'), logs)
        self.assertIn('ring: not run: --against: this entry has no',
                      logs[1])
        ok, failed = run.against_chosen(registry(), False, logs.append)
        self.assertEqual([c.name for c in ok],
                         ['l2fwd', 'pktgen', 'memif', 'memif_default',
                          'veth'])
        self.assertEqual(failed, 0)
        for args, why in ((['--against', 'nosuch~0x', 'pktgen'],
                           'no such commit'),
                          (['--render', '--against', 'HEAD'],
                           'no --against with it'),
                          (['--against', 'HEAD', 'nosuch'],
                           'unknown comparison')):
            p = subprocess.run([os.path.join(TOP, 'bench', 'run')] + args,
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn(why, p.stderr)

    def test_entries(self):
        ctx = core.Context(TOP, 'build-bench', against=two_builds())
        todo = pktgen.runs(ctx, 'nohuge', ['--no-huge'], 'p.json', [])
        self.assertEqual(len(todo), 2 * len(pktgen.VARIANTS))
        self.assertEqual([t[1].label for t in todo[:2]],
                         ['linerate (aaa1111)', 'linerate (bbb2222)'])
        self.assertEqual(todo[1][1].argv[0],
                         '/c/bbb2222/build-bench/apps/pktgen/lr-pktgen')
        s = l2fwd.sides(ctx)
        self.assertEqual([x.label for x in s], ['linerate'])

        class FakeBench:
            opts, _ = memif.options({})

            def version(self, exe):
                raise AssertionError('no testpmd with --against')
        notes = []
        cols, side_notes = memif.columns(FakeBench(), ctx, notes)
        self.assertEqual([(c[0], c[1], c[3]) for c in cols], [
            ('lr_lr', 'linerate (aaa1111)', 'build-bench'),
            ('lr_lr', 'linerate (bbb2222)', '/c/bbb2222/build-bench'),
            ('fwd_lr', 'linerate (aaa1111)', 'build-bench'),
            ('fwd_lr', 'linerate (bbb2222)', '/c/bbb2222/build-bench')])
        self.assertEqual(side_notes, {})
        self.assertEqual(sum('not run (DPDK peers are not run with '
                             '--against)' in n for n in notes), 6)
        sides = veth.veth_sides(ctx, veth.display_names('P'),
                                'net_af_packet', veth.FORWARDERS[:1], None,
                                'DPDK')
        self.assertEqual([x.label for x in sides], [
            'linerate (aaa1111)', 'linerate (aaa1111)',
            'linerate (bbb2222)', 'linerate (bbb2222)'])
        self.assertIn('/c/bbb2222/build-bench/apps/l2fwd/lr-l2fwd',
                      sides[3].argv)

    def result(self):
        core.show_as('/var/cache/x/bbb2222', against.SHOWN)
        cmd = core.sanitize('/var/cache/x/bbb2222/build-bench/apps/p -l 0',
                            '/work/x')
        return {
            'name': 'pktgen', 'title': 'Gen: aaa1111 against bbb2222',
            'text': 'what', 'commit': 'aaa1111',
            'date': '2026-12-06 16:00 UTC', 'rounds': 1,
            'against': {'rev': 'bbb2222', 'head': 'aaa1111'},
            'commands': ['build-bench/apps/p -l 0', cmd],
            'labels': ['linerate (aaa1111)', 'linerate (bbb2222)'],
            'notes': against.notes(two_builds(), False),
            'summary': ['r1', 'r2'], 'digits': 2,
            'rows': [{'row': 'r1', 'unit': 'Mpps', 'better': 'higher',
                      'cells': {'linerate (aaa1111)':
                                stats.summarize([9, 10, 11]),
                                'linerate (bbb2222)':
                                stats.summarize([4, 5, 6])}},
                     {'row': 'r2', 'unit': 'Mpps', 'better': 'higher',
                      'cells': {'linerate (bbb2222)':
                                stats.summarize([1])}}]}

    def test_render(self):
        res = self.result()
        self.assertEqual(res['commands'][1],
                         '$AGAINST/build-bench/apps/p -l 0')
        lines = report.moved_section([res])
        self.assertEqual(lines[0], '## Moved paths against the old tree')
        self.assertIn('| pktgen: r1 | Mpps (higher is better) | '
                      '10.00 [9.00-11.00] | 5.00 [4.00-6.00] | 2.00 | '
                      'aaa1111 / bbb2222 |', lines)
        self.assertIn('| pktgen: r2 | Mpps (higher is better) | - | 1.00 | '
                      '- | aaa1111 / bbb2222 |', lines)
        text = '\n'.join(lines)
        self.assertIn('### Gen: aaa1111 against bbb2222', text)
        self.assertIn('`bench/run --against bbb2222 pktgen` at aaa1111, '
                      '2026-12-06 16:00 UTC.', text)
        self.assertIn('| r1 | Mpps | 10.00 [9.00-11.00] | '
                      '5.00 [4.00-6.00] (2.00) |', text)
        self.assertIn('$ $AGAINST/build-bench/apps/p -l 0', text)
        self.assertIn('ratio = this tree / bbb2222', text)
        self.assertEqual(report.moved_section([]), [])

    def test_save_and_write(self):
        with tempfile.TemporaryDirectory() as tmp:
            res = self.result()
            report.save(tmp, res)
            self.assertTrue(os.path.exists(os.path.join(
                tmp, 'bench', 'results', 'against-pktgen.json')))
            self.assertIsNone(report.load(tmp, 'pktgen'))
            self.assertEqual(report.load(tmp, 'pktgen', True), res)
            plain = Report().result()
            out = os.path.join(tmp, 'B.md')
            report.write(out, [('machine', 'm')], [plain], (), [res])
            with open(out) as f:
                text = f.read()
            self.assertNotIn('/var/cache', text)
            self.assertNotIn('/c/', text)
            self.assertLess(text.index('## Mempool'),
                            text.index('## Moved paths against the old'))
            # The summary table keeps to the comparisons' own results.
            head = text[:text.index('## Mempool')]
            self.assertNotIn('aaa1111', head)


class Registry(unittest.TestCase):
    def test_names_unique_and_stored_results_valid(self):
        names = [c.name for c in registry()]
        self.assertEqual(len(names), len(set(names)))
        rdir = os.path.join(TOP, 'bench', 'results')
        for f in sorted(os.listdir(rdir)) if os.path.isdir(rdir) else []:
            with open(os.path.join(rdir, f)) as fp:
                res = json.load(fp)
            self.assertIn(res['name'], names, f)
            self.assertNotIn('/work/', json.dumps(res), f)



# lr-pktgen's per-second lines (its printf) and its closing line.
PKTGEN_OUT = 'lr-pktgen: 1 datapath lcore(s), port 0 (net_null0)\n' + ''.join(
    f'[{t:7.1f}s] port 0: tx {r:8.3f} Mpps {r * 0.672:7.3f} Gb/s | rx '
    '   0.000 Mpps   0.000 Gb/s | drops 0\n' for t, r in
    enumerate((120, 160.29, 163, 165, 161, 163, 10), 1)) + (
    'datapath: 1 lcore(s) ran 7.001 s, on a CPU 6.995 s (100%): 163.210 '
    'Mpps tx per CPU-second, 16.0 cycles of CPU time a frame sent\n')

# testpmd's --stats-period lines as proc.run_timed gives them (seconds
# since the start first), one block a second.
TESTPMD_OUT = '''0.412 EAL: Detected CPU lcores: 2
0.950 Port 0: 00:00:00:00:00:00
1.001   ############ NIC statistics for port 0  ############
1.001   RX-packets: 0          RX-missed: 0          RX-bytes:  0
1.001   TX-packets: 0          TX-errors: 0          TX-bytes:  0
2.003   TX-packets: 60000000   TX-errors: 0          TX-bytes:  3840000000
3.004   TX-packets: 125000000  TX-errors: 0          TX-bytes:  8000000000
4.005   TX-packets: 190000000  TX-errors: 0          TX-bytes:  12160000000
5.006   TX-packets: 255000000  TX-errors: 0          TX-bytes:  16320000000
6.007   TX-packets: 320000000  TX-errors: 0          TX-bytes:  20480000000
7.008   TX-packets: 385000000  TX-errors: 0          TX-bytes:  24640000000
8.009   TX-packets: 450000000  TX-errors: 0          TX-bytes:  28800000000
9.010   TX-packets: 515000000  TX-errors: 0          TX-bytes:  32960000000
14.200   TX-packets: 800000000  TX-dropped: 0  TX-total: 800000000
'''

ELASTIC_OUT = (
    'elastic-bench: 20 bursts of 24000 frames every 250 ms, drained at '
    '1000 frames a ms\n'
    'elastic-bench pool=elastic mbufs=1024-65536 sent=480000 '
    'received=480000 drops_nombuf=0 drops_ring_full=0 held_peak_MiB=56.8 '
    'held_avg_MiB=3.4 held_end_MiB=2.5 growths=14 shrinks=4 '
    'seconds=7.001\n'
    'mbufs in use after stop: 0\n')
DPDK_ELASTIC_OUT = (
    'elastic-bench pool=dpdk-fixed mbufs=8192-8192 sent=464192 '
    'received=464192 drops_nombuf=15008 drops_ring_full=800 '
    'held_peak_MiB=18.5 held_avg_MiB=18.5 held_end_MiB=18.5 growths=0 '
    'shrinks=0 seconds=7.012\n'
    'mbufs in use after stop: 0\n')


class PktgenElastic(unittest.TestCase):
    """The pktgen and elastic entries: their parsers on canned output,
    proc.run_timed and proc.alternate."""

    def test_pktgen(self):
        what, short = pktgen.VARIANTS[0].what, pktgen.VARIANTS[0].short
        f = pktgen.parse_pktgen(PKTGEN_OUT, what, short, 'huge')
        # Seconds 3-6 of the per-second lines (WARM 2, SECS 4).
        self.assertAlmostEqual(
            f['pktgen vs testpmd txonly, net_null, huge'], 163.0)
        self.assertEqual(
            f['lr-pktgen cycles a frame, one stream, huge'], 16.0)
        short_out = '\n'.join(PKTGEN_OUT.splitlines()[:4])
        self.assertEqual(pktgen.parse_pktgen(short_out, what, short, 'huge'),
                         {})
        self.assertEqual(pktgen.unit_of(
            'lr-pktgen cycles a frame, ring loop, huge'), 'cycles/frame')
        self.assertEqual(pktgen.better_of(
            'pktgen vs testpmd txonly, net_null, huge'), 'higher')

    def test_pktgen_summary_and_profile(self):
        self.assertEqual(len(pktgen.COMPARISON.summary), 10)
        self.assertIn('pktgen source IP varying vs testpmd '
                      '--txonly-multi-flow, net_null, nohuge',
                      pktgen.COMPARISON.summary)
        p = pktgen.profile16()['streams']
        self.assertEqual(len(p), 16)
        self.assertEqual(p[3]['src_ip'], '10.0.3.1-10.0.3.4')

    def test_testpmd(self):
        # First traffic at 2.003; window from 4.005 (2 s on) to the last
        # line by 8.505: 8.009; (450 - 190) Mpkt over 4.004 s.
        r = pktgen.testpmd_rate(TESTPMD_OUT)
        self.assertAlmostEqual(r, 260 / 4.004)
        rows = ['a', 'b']
        self.assertEqual(pktgen.parse_testpmd(TESTPMD_OUT, rows),
                         {'a': r, 'b': r})
        idle = '1.0   TX-packets: 0   TX-errors: 0\n' * 3
        self.assertIsNone(pktgen.testpmd_rate(idle))
        self.assertEqual(pktgen.parse_testpmd(idle, rows), {})
        early = '\n'.join(TESTPMD_OUT.splitlines()[:6])
        self.assertIsNone(pktgen.testpmd_rate(early))

    def test_elastic(self):
        f = elastic.parse_burst(ELASTIC_OUT)
        self.assertEqual(f['bursts: peak memory the pool holds'], 56.8)
        self.assertEqual(f['bursts: memory the pool holds at the end'], 2.5)
        self.assertEqual(f['bursts: pool growths'], 14)
        d = elastic.parse_burst(DPDK_ELASTIC_OUT)
        self.assertEqual(d['bursts: frames dropped (no mbuf, ring full)'],
                         15808)
        self.assertEqual(elastic.parse_burst('mbufs in use: 0\n'), {})
        self.assertEqual(elastic.unit_of('bursts: pool shrinks'), 'shrinks')
        self.assertEqual(elastic.better_of(elastic.fwd_row(True)), 'higher')
        self.assertEqual(elastic.parse_need(
            'mbuf pool: the ports need 16384 mbufs (a fixed pool\'s size); '
            'elastic from a quarter to twice that\n'), 16384)
        self.assertIsNone(elastic.parse_need('nothing\n'))
        out = ''.join(f'Total packets sent: {n * 10**6}\n'
                      for n in range(0, 100, 10))
        self.assertEqual(elastic.parse_fwd('r')(out), {'r': 10.0})
        self.assertEqual(elastic.parse_fwd('r')('x\n'), {})

    def test_run_timed(self):
        side = core.Side('linerate', ['sh', '-c', 'echo start; while :; do '
                                      'echo tick; sleep 0.05; done'])
        ctx = core.Context(TOP, 'build')
        out, rc = proc.run_timed(ctx, side, '^start', 0.3, lambda m: None)
        self.assertEqual(rc, 0)
        lines = out.splitlines()
        self.assertRegex(lines[0], r'^[0-9]+\.[0-9]{3} start$')
        self.assertGreater(len(lines), 2)
        self.assertLess(float(lines[-1].split()[0]), 5)
        self.assertEqual(proc.timed_lines('1.5 n=3\n2.5 x\n', r'n=(\d+)'),
                         [(1.5, 3)])

    def test_background(self):
        got = []
        bg = proc.Background(['sh', '-c', 'printf "a\\nb\\n> "; read x; '
                              'echo "x=$x"; printf end'], stdin=True,
                             name='sh', on_line=got.append)
        try:
            self.assertIsNotNone(bg.wait_for(r'> $', timeout=10))
            self.assertEqual(bg.wait_line(r'^b$', timeout=10), 'b')
            bg.send('1')
            self.assertEqual(bg.wait(10), 0)
            out, rc = bg.stop(timeout=10)
        finally:
            bg.kill()
        self.assertEqual(rc, 0)
        self.assertFalse(bg.killed)
        self.assertEqual(out, 'a\nb\n> x=1\nend')
        self.assertEqual(bg.lines, ['a', 'b', '> x=1', 'end'])
        self.assertEqual(got, bg.lines)
        self.assertEqual(bg.output(), 'a\nb\n> x=1\nend')
        self.assertEqual(bg.command(), 'sh -c ' + bg.argv[2].join("''"))

    def test_alternate(self):
        ctx = core.Context(TOP, 'build')
        order = []

        def run(rc):
            def f(ctx, side, log):
                order.append(side.label)
                return f'v {len(order)}\n', rc
            return f
        todo = [('a', core.Side('ours', ['x']),
                 lambda o: {'row': float(o.split()[1])}, run(0)),
                ('b', core.Side('peer', ['y']), lambda o: {'row': 1},
                 run(1))]
        rows, notes, first = core.Rows(), [], {}
        proc.alternate(ctx, todo, 2, rows, notes, first, lambda m: None)
        self.assertEqual(order, ['ours', 'peer'] * 2)
        self.assertEqual(rows.values['row'], {'ours': [1.0, 3.0]})
        self.assertEqual(len(notes), 2)
        self.assertIn('b round 2: exit 1', notes[1])
        self.assertEqual(first['peer'], 'v 2\n')

    def test_registered(self):
        comps = {c.name: c for c in registry()}
        self.assertIs(comps['elastic'], elastic.COMPARISON)
        self.assertIs(comps['pktgen'], pktgen.COMPARISON)
        names = list(comps)
        # elastic, its callgrind count, then pktgen
        self.assertEqual(names.index('pktgen'), names.index('elastic') + 2)
        self.assertEqual(elastic.COMPARISON.rounds, 5)


class Memif(unittest.TestCase):
    """bench/comparisons/memif.py and rfc2544_memif.py: the counter lines,
    the window, roles and copies, the search's JSON."""

    def test_lr_counters(self):
        feed = memif.lr_counters()
        self.assertEqual(feed(
            'stats t=1733461223.512345 port=1 ipackets=1200345 '
            'opackets=0 ibytes=76822080 obytes=0 imissed=0 ierrors=0 '
            'oerrors=0 rx_nombuf=0'), (1, 1200345, 0))
        self.assertIsNone(feed('stats period_s=1 tsc_hz=2596000000'))
        self.assertEqual(memif.tsc_hz(
            'EAL: x\nstats period_s=1 tsc_hz=2596000000\n'), 2596000000)

    def test_testpmd_counters(self):
        feed = memif.testpmd_counters()
        block = [
            '\x1b[2J\x1b[1;1H',
            'Port statistics ====================================',
            '  ######################## NIC statistics for port 0  '
            '########################',
            '  RX-packets: 18762010   RX-missed: 0          RX-bytes:  '
            '1125720600',
            '  RX-errors: 0',
            '  RX-nombuf:  0         ',
            '  TX-packets: 0          TX-errors: 0          TX-bytes:  0',
            '',
            '  Throughput (since last show)',
            '  Rx-pps:     18762010          Rx-bps:   9005764800',
            '  Tx-pps:            0          Tx-bps:            0',
            '  #########################################################'
            '###################']
        got = [r for r in map(feed, block) if r]
        self.assertEqual(got, [(0, 18762010, 0)])
        self.assertIsNone(feed('  TX-packets: 5'))

    def test_busy_cycles(self):
        out = ('l2fwd total: rx=10 tx=10 dropped=0 seconds=1.000 Mpps=0.00\n'
               'CPU cycles/packet=24.68 (busy cycles=100 / rx packets=4) '
               'at 2596 MHz\n')
        self.assertEqual(memif.busy_cycles(out), 24.68)
        self.assertIsNone(memif.busy_cycles('nothing'))

    def test_window(self):
        # (time, counter, cpu_ns): 10 Mpps, the thread on its CPU half
        # the time.
        s = [(t, int(t * 10e6), int(t * 0.5e9)) for t in (0, 1, 2, 3, 4)]
        s[0] = (0, 0, 0)
        self.assertEqual(memif.first_traffic(s), 1)
        dt, n, ns = memif.window(s, 1.5, 3.5)
        self.assertAlmostEqual(dt, 2)
        self.assertAlmostEqual(n, 20e6)
        self.assertAlmostEqual(ns, 1e9)
        self.assertIsNone(memif.window(s, 3.5, 4.5))
        f = memif.figures((2, 20e6, 1e9), (2, 19.8e6, 2e9), 2e9)
        self.assertAlmostEqual(f['gen_mpps'], 10)
        self.assertAlmostEqual(f['peer_mpps'], 9.9)
        self.assertAlmostEqual(f['gen_cyc'], 100)
        self.assertAlmostEqual(f['gen_cpu'], 50)
        self.assertAlmostEqual(f['peer_cpu'], 100)
        self.assertAlmostEqual(f['gap'], 1)
        rows = core.Rows()
        f['peer_busy'], f['gen_busy'] = 100.0, None
        memif.add_figures(rows, 'fwd_lr', 64, 'linerate', f, 2e9)
        t = dict(rows.table())
        self.assertAlmostEqual(
            t['through a forwarder, 64 B: forwarded']['linerate']['median'],
            9.9)
        self.assertAlmostEqual(t['through a forwarder, 64 B: forwarder busy '
                                 'share']['linerate']['median'], 49.5)
        self.assertEqual(memif.unit_of('through a forwarder, 64 B: '
                                       'not back'), '%')
        self.assertEqual(memif.better_of('generator -> receiver, 64 B: '
                                         'received'), 'higher')
        for r in memif.summary_rows(memif.SIZES):
            self.assertIn(memif.unit_of(r), ('Mpps', 'cycles/packet'))

    def test_options_roles_copies(self):
        o, why = memif.options({})
        self.assertIsNone(why)
        self.assertEqual(o['ROWS'], list(memif.KINDS))
        self.assertIsNotNone(memif.options({'MEMIF_FWD_ROLE': 'x'})[1])
        self.assertIsNotNone(memif.options({'MEMIF_ROWS': 'lr_lr x'})[1])
        # Defaults: lr-l2fwd's zero-copy clients forward with no copy,
        # testpmd with two; lr-pktgen copies once (its server's send).
        self.assertEqual(memif.fwd_copies(o, 'lr', True, True), (1, 0))
        self.assertEqual(memif.fwd_copies(o, 'tp', True, True), (1, 2))
        m, _ = memif.options({'MEMIF_FWD_ROLE': 'mixed'})
        self.assertEqual(memif.fwd_copies(m, 'lr', True, True), (0, 1))
        self.assertEqual(memif.vdev(0, 'server', '/s', True, True),
                         'net_memif0,role=server,socket=/s,'
                         'socket-abstract=no,zero-copy=yes')
        self.assertEqual(memif.vdev(1, 'server', '/s', True),
                         'net_memif1,role=server,socket=/s,'
                         'socket-abstract=no')
        self.assertIn('receiver lr-pktgen server (zero-copy rx)',
                      memif.roles_text('lr_lr', o, True, True))

    def test_rfc2544_json(self):
        doc = {'rfc2544': {'mode': 'throughput', 'sizes': [
            {'size': 64, 'ndr': {'pps': 275101.0, 'found': True},
             'pdr': {'pps': 6693807.0, 'found': True}},
            {'size': 1518, 'notes': ['not done']}]}, 'status': 'ok'}
        self.assertEqual(rfc2544_memif.parse(json.dumps(doc)),
                         {64: {'NDR': 0.275101, 'PDR': 6.693807}})
        self.assertEqual(rfc2544_memif.parse('not json'), {})
        self.assertEqual(len(rfc2544_memif.summary_rows()), 8)


PKTGEN_TOTAL = (
    'pktgen: 2 ports\n'
    'pktgen total: tx=2466000 rx=1753000 rx_own=1753000 rx_other=0 '
    'lost=713000 reordered=0 dup=0 tx_behind=0 tx_mpps=1.2337 '
    'rx_mpps=0.8767 tx_gbps=0.8291 rx_gbps=0.5891 lat_min_us=2.100 '
    'lat_avg_us=6.000 lat_p50_us=5.740 lat_p99_us=51.786 '
    'lat_p999_us=80.000 lat_max_us=99.000 elapsed_s=2.0000 cpu_s=1.6700\n')

TESTPMD_STATS = '''
  ######################## NIC statistics for port 0  ########################
  RX-packets: 0          RX-missed: 0          RX-bytes:  0
  TX-packets: 1440000    TX-errors: 0          TX-bytes:  92160000

  Throughput (since last show)
  Rx-pps:            0          Rx-bps:            0
  Tx-pps:      1440000          Tx-bps:    737280000
  ############################################################################
'''

TESTPMD_END = '''Telling cores to stop...
  ---------------------- Forward statistics for port 0  ----------------------
  RX-packets: 0              RX-dropped: 0             RX-total: 0
  TX-packets: 4320000        TX-dropped: 0             TX-total: 4320000
  ----------------------------------------------------------------------------

  +++++++++++++++ Accumulated forward statistics for all ports+++++++++++++++
  RX-packets: 4300000        RX-dropped: 0             RX-total: 4300000
  TX-packets: 4320000        TX-dropped: 0             TX-total: 4320000
  ++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++

CPU cycles/packet=1784.24 (busy cycles=7700000000 / total io packets=4320000)
Done.
'''

PING_OUT = '''PING 10.79.0.1 (10.79.0.1) 56(84) bytes of data.
64 bytes from 10.79.0.1: icmp_seq=1 ttl=64 time=0.108 ms
64 bytes from 10.79.0.1: icmp_seq=2 ttl=64 time=0.085 ms
64 bytes from 10.79.0.1: icmp_seq=3 ttl=64 time=0.160 ms
64 bytes from 10.79.0.1: icmp_seq=4 ttl=64 time=1.900 ms

--- 10.79.0.1 ping statistics ---
4 packets transmitted, 4 received, 0% packet loss, time 601ms
rtt min/avg/max/mdev = 0.085/0.563/1.900/0.772 ms
'''

IPERF3_OUT = '''Connecting to host 10.79.0.1, port 5210
[  5]   0.00-10.00  sec  10.2 GBytes  8.78 Gbits/sec    0             sender
[  5]   0.00-10.04  sec  10.2 GBytes  8.74 Gbits/sec                  receiver

iperf Done.
'''


class NetParsers(unittest.TestCase):
    """The parsers of veth, veth_afxdp, stack and dpdk_bridge."""

    def test_pktgen_total(self):
        f = veth.pktgen_total(PKTGEN_TOTAL)
        self.assertEqual(f['tx_mpps'], 1.2337)
        self.assertEqual(f['rx_own'], 1753000)
        self.assertEqual(f['lost'], 713000)
        self.assertEqual(f['lat_p99_us'], 51.786)
        self.assertEqual(veth.pktgen_total('lr-pktgen: error\n'), {})

    def test_forwarder_cycles(self):
        self.assertEqual(veth.forwarder_cycles(TESTPMD_END), 1784.24)
        self.assertEqual(veth.forwarder_cycles(
            'l2fwd total: rx=1 tx=1\nCPU cycles/packet=82.86 (busy '
            'cycles=1 / rx packets=1) at 2400 MHz\n'), 82.86)
        self.assertIsNone(veth.forwarder_cycles('Forwarding on 1\n'))

    def test_txonly_rate(self):
        n0 = veth.last_int(veth.TX_PACKETS, TESTPMD_STATS)
        self.assertEqual(n0, 1440000)
        # (4320000 - 1440000) frames over 2 s
        self.assertAlmostEqual(veth.txonly_rate(TESTPMD_STATS + TESTPMD_END,
                                                n0, 2.0), 1.44)
        self.assertIsNone(veth.txonly_rate(TESTPMD_STATS, n0, 2.0))

    def test_bisections(self):
        limit = 300000

        def paced(pps):
            return pps / 1e6, 0 if pps <= limit else 5
        best = veth.zero_loss_bisect(paced, 1.0)
        self.assertLessEqual(best, limit / 1e6)
        self.assertGreater(best, 0.25)
        self.assertEqual(veth.zero_loss_bisect(lambda pps: (0.02, 3), 1.0),
                         0.0)
        best = veth.zero_loss_search(paced, 50000, 1.0, 5)
        self.assertLessEqual(best, limit / 1e6)
        self.assertGreater(best, 0.25)
        self.assertEqual(veth.zero_loss_search(paced, 50000, 0.04, 5), 0.0)

    def test_ping_and_iperf3(self):
        f = stack.parse_ping(PING_OUT)
        self.assertAlmostEqual(f[stack.P50], (108 + 160) / 2)
        self.assertAlmostEqual(f[stack.AVG], 563)
        self.assertEqual(stack.parse_ping('connect: Network is '
                                          'unreachable\n'), {})
        self.assertEqual(stack.parse_iperf3(IPERF3_OUT), 8.74)
        self.assertIsNone(stack.parse_iperf3(
            'iperf3: error - unable to connect to server\n'))

    def test_bridge_testpmd(self):
        self.assertEqual(dpdk_bridge.testpmd_tx(
            'testpmd> stop\n' + TESTPMD_END), 4320000)
        self.assertIsNone(dpdk_bridge.testpmd_tx(TESTPMD_STATS))
        out = ''.join(f'Total packets sent: {n * 10**6}\n'
                      for n in range(0, 100, 10))
        # lines 3 and 7: (60 - 20) Mpkt over 4 s
        self.assertEqual(dpdk_bridge.window(out), 10.0)

    def test_units(self):
        self.assertEqual(veth.VETH.unit_of(
            'through the forwarder on net_af_xdp: loss at max'), '%')
        self.assertEqual(veth.VETH.better_of(
            'generator alone on net_af_packet: tx rate'), 'higher')
        self.assertEqual(veth.AFXDP_BUSY.unit_of('zero-loss rate'), 'Mpps')
        self.assertEqual(stack.COMPARISON.unit_of(stack.TCP), 'Gbit/s')


# callgrind_annotate --inclusive=yes of part 1 of a profile of mp_run_1
# (lr-mempool-bench --objs 1024 --reps 1: 2048 objects), cut.
ANNOTATE_MP = '''\
----------------------------------------
Ir
----------------------------------------
43,637 (100.0%)  PROGRAM TOTALS

----------------------------------------
Ir               file:function
----------------------------------------
43,637 (100.0%)  ./csu/../csu/libc-start.c:__libc_start_main@@GLIBC_2.34 \
[/usr/lib/x86_64-linux-gnu/libc.so.6]
43,637 (100.0%)  ???:bench_mempool [/w/build-cg/apps/mempool-bench/\
lr-mempool-bench]
43,637 (100.0%)  ???:mp_run_1 [/w/build-cg/apps/mempool-bench/\
lr-mempool-bench]
   522 ( 1.20%)  ???:lr_mempool_get_slow_ [/w/build-cg/apps/mempool-bench/\
lr-mempool-bench]
'''

# Part of a callgrind out file of lr-l2fwd (--toggle-collect=
# l2fwd_main_loop): names compressed, "(id) name" once, then "(id)".
PROFILE_L2FWD = '''# callgrind format
events: Ir
summary: 279476010

fn=(2592) lr_mempool_get_slow_
0 132
cfn=(2594) ep_dequeue
calls=1 0
0 6395
0 2

fn=(2586) tick
cfn=(1982) lr_eal_stop_requested
calls=7414 0
0 14828

fn=(2600) lr_mempool_put_slow_
cfn=(2594)
calls=2 0
0 900
cfn=(2610) ep_enqueue
calls=3 0
0 700
'''

# A profiled lr-l2fwd run as callgrind.profiled() gives it: the
# program's lines, callgrind_annotate's listing, the call counts.
L2FWD_PROFILED = (
    'mbuf pool: the ports need 16384 mbufs (a fixed pool\'s size); '
    'elastic from a quarter to twice that\n'
    'l2fwd total: rx=3649792 tx=3649792 dropped=0 seconds=2.002 '
    'Mpps=1.82 cpu_seconds=0.769 Mpps_per_cpu=4.75\n'
    'mbuf pool: 4108 mbufs (elastic 4096-32773, peak 4108), growths 0, '
    'shrinks 0, refused 0\n'
    '== callgrind_annotate last\n'
    '279,476,010 (100.0%)  ???:l2fwd_main_loop [/w/build-cg/apps/l2fwd/'
    'lr-l2fwd]\n'
    'callgrind calls lr_mempool_get_slow_ 1\n'
    'callgrind calls lr_mempool_put_slow_ 0\n'
    'callgrind calls ep_dequeue 1\n'
    'callgrind calls ep_enqueue 0\n')


class Callgrind(unittest.TestCase):
    """The callgrind entries' parsers (mempool_instructions,
    elastic_instructions)."""

    def test_inclusive(self):
        self.assertEqual(callgrind.inclusive(ANNOTATE_MP, 'mp_run_1'),
                         43637)
        self.assertEqual(callgrind.inclusive(ANNOTATE_MP,
                                             'lr_mempool_get_slow_'), 522)
        self.assertIsNone(callgrind.inclusive(ANNOTATE_MP, 'mp_run_8'))
        self.assertIsNone(callgrind.inclusive(ANNOTATE_MP, 'TOTALS'))

    def test_mempool_parts(self):
        funcs = {f: (b, p) for f, b, p in callgrind.timed_functions()}
        self.assertEqual(len(funcs), 9)
        bulk, parts = funcs['mp_run_1']
        out = ('lr-mempool-bench output\n== callgrind_annotate 1\n' +
               ANNOTATE_MP + '== callgrind_annotate 2\n' +
               ANNOTATE_MP.replace('43,637', '40,960'))
        figs = callgrind.parse_loop('mp_run_1', bulk, parts, 1024, 1)(out)
        self.assertEqual(sorted(figs), [
            'mempool, cache 256, ring_mp_mc bulk 1',
            'mempool, cache 512, ring_mp_mc bulk 1'])
        self.assertAlmostEqual(
            figs['mempool, cache 256, ring_mp_mc bulk 1'], 43637 / 2048)
        self.assertEqual(figs['mempool, cache 512, ring_mp_mc bulk 1'], 20)
        # bulk 128 of 1000 objects: 7 whole bulks a run, 4 runs
        bulk, parts = funcs['mbuf_run_128']
        out = '== callgrind_annotate last\n' + ANNOTATE_MP.replace(
            'mp_run_1', 'mbuf_run_128')
        figs = callgrind.parse_loop('mbuf_run_128', bulk, parts, 1000,
                                    3)(out)
        self.assertAlmostEqual(
            figs['mbuf alloc_bulk+free_bulk, c512 bulk 128'],
            43637 / (896 * 4))
        self.assertEqual(callgrind.parse_loop('mp_run_8', 8, [('1', 'r')],
                                              1024, 1)(out), {})
        order = callgrind.row_order()
        self.assertEqual(order[:2], ['mempool, cache 256, ring_mp_mc bulk 1',
                                     'mempool, cache 256, ring_mp_mc bulk 8'])
        self.assertEqual(len(order), 25)
        self.assertTrue(set(mempool.summary_rows()) <= set(order))
        self.assertTrue(set(callgrind.mempool_summary()) <= set(order))

    def test_calls(self):
        self.assertEqual(callgrind.calls(PROFILE_L2FWD, 'ep_dequeue'), 3)
        self.assertEqual(callgrind.calls(PROFILE_L2FWD, 'ep_enqueue'), 3)
        self.assertEqual(callgrind.calls(PROFILE_L2FWD,
                                         'lr_eal_stop_requested'), 7414)
        # fn= lines name the caller, never a call
        self.assertEqual(callgrind.calls(PROFILE_L2FWD,
                                         'lr_mempool_get_slow_'), 0)
        self.assertEqual(callgrind.calls('cfn=foo\ncalls=5 0\n', 'foo'), 5)

    def test_forwarding(self):
        figs = callgrind.parse_forwarding(True)(L2FWD_PROFILED)
        self.assertAlmostEqual(figs[callgrind.FWD_ROW],
                               279476010 / 3649792)
        self.assertEqual(figs[callgrind.PACKETS_ROW], 3649792)
        self.assertEqual(figs['elastic store gets: ep_dequeue calls'], 1)
        self.assertEqual(figs['cache flushes: lr_mempool_put_slow_ calls'],
                         0)
        fixed = callgrind.parse_forwarding(False)(L2FWD_PROFILED)
        self.assertNotIn('elastic store gets: ep_dequeue calls', fixed)
        self.assertEqual(callgrind.parse_forwarding(True)(
            'l2fwd total: rx=0 tx=0\n'), {})
        self.assertEqual(callgrind.pool_of(L2FWD_PROFILED),
                         '4108 mbufs (elastic 4096-32773, peak 4108)')
        self.assertEqual(elastic.parse_need(L2FWD_PROFILED), 16384)

    def test_options(self):
        o, why = callgrind.options({})
        self.assertIsNone(why)
        self.assertEqual(o, callgrind.DEFAULTS)
        self.assertIsNone(callgrind.options_note(o, list(o)))
        o, why = callgrind.options({'CG_OBJS': '1024'})
        self.assertEqual(callgrind.options_note(o, ('OBJS', 'REPS')),
                         'sizes changed from the defaults: CG_OBJS=1024')
        self.assertIsNone(callgrind.options_note(o, ('SECONDS',)))
        self.assertIn('at least 128', callgrind.options({'CG_OBJS': '12'})[1])
        self.assertIn('whole number', callgrind.options(
            {'CG_SECONDS': 'x'})[1])

    def test_columns_without_drivers(self):
        class FakeBench:
            def __init__(self, have):
                self.have = have

            def drivers(self):
                return self.have

            def version(self, exe):
                return 'DPDK 22.11.11'
        has_tp = bool(shutil.which('dpdk-testpmd'))
        notes = []
        cols, _ = vhost.columns(FakeBench(['net_null', 'net_vhost']), notes)
        # No net_virtio_user: neither pair with lr-pktgen runs, said so.
        self.assertNotIn('lr_lr', cols)
        self.assertNotIn('lr_dpdk', cols)
        self.assertEqual(sum('no net_virtio_user' in n for n in notes), 2)
        self.assertEqual(set(cols), {'dpdk_dpdk', 'dpdk_lr'} if has_tp
                         else set())
        notes = []
        cols, _ = vhost.columns(FakeBench(['net_virtio_user', 'net_vhost']),
                                notes)
        self.assertEqual(cols['lr_lr'], ('linerate', None))
        self.assertEqual(len(cols), 4 if has_tp else 1)
        if has_tp:
            self.assertEqual(cols['dpdk_dpdk'][0], 'DPDK 22.11.11 Debian')

    def test_registered(self):
        names = [c.name for c in registry()]
        self.assertEqual(names.index('mempool_instructions'),
                         names.index('mempool') + 1)
        self.assertEqual(names.index('elastic_instructions'),
                         names.index('elastic') + 1)
        self.assertEqual(callgrind.MEMPOOL.unit, 'instructions/object')
        self.assertEqual(callgrind.ELASTIC.unit_of(callgrind.FWD_ROW),
                         'instructions/packet')


class Vhost(unittest.TestCase):
    """bench/comparisons/vhost.py: lr-l2fwd's counter blocks, the driver
    list of a build, one run's figures, the targets against the DPDK
    pair, the entry's place."""

    L2FWD_BLOCK = (
        '\nPort statistics ===================================='
        '\nStatistics for port 0 ------------------------------'
        '\nPackets sent:                  1200'
        '\nPackets received:          18762010'
        '\nPackets dropped:           55000000'
        '\nStatistics for port 1 ------------------------------'
        '\nPackets sent:              18761990'
        '\nPackets received:          56000000'
        '\nPackets dropped:                  0'
        '\nmbuf pool l2fwd_pool:\n  mbufs: 8192'
        '\nAggregate statistics ==============================='
        '\nTotal packets sent:        18763190'
        '\nTotal packets received:    74762010'
        '\nTotal packets dropped:     55000000'
        '\nForwarded Mpps (last 1.0 s):    18.76'
        '\n====================================================\n')

    def test_round_order(self):
        cols = {'lr_lr': 1, 'dpdk_dpdk': 2, 'lr_dpdk': 3, 'dpdk_lr': 4}
        rounds = [[k for k, _ in vhost.round_order(cols, r)]
                  for r in range(8)]
        # every row once a round, every place taken by each row alike
        for keys in rounds:
            self.assertEqual(sorted(keys), sorted(cols))
        for place in range(4):
            self.assertEqual(sorted(x[place] for x in rounds),
                             sorted(list(cols) * 2))
        self.assertEqual(rounds[1], ['dpdk_dpdk', 'lr_dpdk', 'dpdk_lr',
                                     'lr_lr'])
        self.assertEqual(vhost.round_order({}, 3), [])

    def test_l2fwd_counters(self):
        feed = vhost.l2fwd_counters()
        got = [r for r in map(feed, self.L2FWD_BLOCK.splitlines()) if r]
        self.assertEqual(got, [(0, 18762010, 1200), (1, 56000000, 18761990)])
        # A received line outside a port's block, or lr-pktgen's lines,
        # are no counters.
        self.assertIsNone(feed('Packets received: 5'))
        self.assertIsNone(feed('Total packets received:    74762010'))
        self.assertIsNone(feed('stats t=1.0 port=0 ipackets=1 opackets=2'))

    def test_drivers_of(self):
        out = ("ethdev: --vdev 'net_nosuch0': no driver 'net_nosuch' "
               '(drivers: net_af_packet net_memif net_null net_vhost; '
               'plugins: net_dpdk)\nlr-pktgen: -h for help\n')
        self.assertEqual(vhost.drivers_of(out),
                         ['net_af_packet', 'net_memif', 'net_null',
                          'net_vhost'])
        self.assertEqual(vhost.drivers_of('(drivers: net_null, net_ring)'),
                         ['net_null', 'net_ring'])
        self.assertIsNone(vhost.drivers_of('EAL: nothing about drivers'))

    def test_figures_and_rows(self):
        # 2 s: 20 M frames sent, 19.8 M forwarded; the forwarder on its
        # CPU all the time at 2 GHz, the generator half of it.
        f = vhost.figures((2, 20e6, 1e9), (2, 19.8e6, 2e9), 2e9)
        self.assertAlmostEqual(f['sent'], 10)
        self.assertAlmostEqual(f['forwarded'], 9.9)
        self.assertAlmostEqual(f['forwarder'], 4e9 / 19.8e6)
        self.assertAlmostEqual(f['generator'], 100)
        self.assertAlmostEqual(f['forwarder CPU'], 100)
        self.assertAlmostEqual(f['generator CPU'], 50)
        self.assertAlmostEqual(f['not forwarded'], 1)
        z = vhost.figures((2, 0, 0), (2, 0, 0), 2e9)
        self.assertEqual((z['forwarded'], z['forwarder'],
                          z['not forwarded']), (0, 0, 0))
        rows = core.Rows()
        f['forwarder busy'] = None
        vhost.add_figures(rows, 64, 'linerate', f)
        t = dict(rows.table())
        self.assertAlmostEqual(t['64 B: forwarded']['linerate']['median'],
                               9.9)
        self.assertNotIn('64 B: forwarder busy', t)
        self.assertEqual(vhost.unit_of('64 B: forwarded'), 'Mpps')
        self.assertEqual(vhost.unit_of('64 B: forwarded, CPUs far'), 'Mpps')
        self.assertEqual(vhost.better_of('1518 B: forwarded, CPUs near'),
                         'higher')
        self.assertEqual(vhost.unit_of('64 B: not forwarded'), '%')
        self.assertEqual(vhost.unit_of('64 B: forwarder CPU'), '%')
        self.assertEqual(vhost.unit_of('64 B: generator CPU'), '%')
        self.assertEqual(vhost.better_of('64 B: generator CPU'), 'higher')
        self.assertEqual(vhost.unit_of('1518 B: forwarder busy'),
                         'cycles/packet')
        self.assertEqual(vhost.better_of('64 B: forwarded'), 'higher')
        self.assertEqual(vhost.better_of('64 B: not forwarded'), 'lower')
        self.assertEqual(vhost.better_of('64 B: forwarder'), 'lower')
        self.assertEqual(vhost.summary_rows(vhost.SIZES),
                         ['64 B: forwarded', '64 B: forwarded, CPUs near',
                          '64 B: forwarded, CPUs far',
                          '64 B: forwarded, placements weighted alike',
                          '1518 B: forwarded',
                          '1518 B: forwarded, CPUs near',
                          '1518 B: forwarded, CPUs far',
                          '1518 B: forwarded, placements weighted alike'])
        self.assertEqual(
            vhost.unit_of('64 B: forwarded, placements weighted alike'),
            'Mpps')
        self.assertEqual(vhost.unit_of('64 B: forwarded, CPUs far'), 'Mpps')

    def test_placement(self):
        # Two placements: the two most populated groups, each within 1.4x
        # of its centre; a probe that straddled a move (300) and a rarer
        # third placement (58) are in neither.
        rtts = [105, 110, 118, 130, 140, 150, 58, 300, 560, 600, 640, 700]
        self.assertEqual([round(c) for c, _ in vhost.modes(rtts)],
                         [130, 640])
        self.assertEqual([n for _, n in vhost.modes(rtts)], [6, 4])
        bands = vhost.split_bands(rtts)
        self.assertAlmostEqual(bands['near'][0], 130 / 1.4)
        self.assertAlmostEqual(bands['near'][1], 130 * 1.4)
        self.assertAlmostEqual(bands['far'][0], 640 / 1.4)
        self.assertAlmostEqual(bands['far'][1], 640 * 1.4)
        # One placement, a second group too small, none probed: no bands.
        self.assertIsNone(vhost.split_bands([100, 120, 150, 190]))
        self.assertIsNone(vhost.split_bands([110] * 10 + [600, 600]))
        self.assertIsNone(vhost.split_bands([None, 0]))
        # Two groups less than 2x apart: one placement.
        self.assertIsNone(vhost.split_bands([100] * 5 + [180] * 5))
        self.assertEqual(vhost.place_of([110, 120, 150], bands), 'near')
        self.assertEqual(vhost.place_of([600, 700], bands), 'far')
        self.assertIsNone(vhost.place_of([110, 600, 120], bands))  # moved
        self.assertIsNone(vhost.place_of([110, 300], bands))  # straddled
        self.assertIsNone(vhost.place_of([58, 60], bands))  # elsewhere
        self.assertIsNone(vhost.place_of([], bands))  # not probed
        self.assertEqual(vhost.place_of([110, 600], None), 'near')
        rows, notes = core.Rows(), []
        # Runs, each with its window's round trips and Mpps, and its
        # one-second slices (round trips, Mpps): the slices fill the
        # placement rows, the windows the notes' count of runs.
        runs = [(64, 'linerate', 'lr_lr', [110, 112], 30.0,
                 [([110], 31.0), ([112], 29.0), ([600], 12.0)]),
                (64, 'DPDK', 'dpdk_dpdk', [108, 115], 20.0,
                 [([108], 20.0), ([115], 21.0)]),
                (64, 'linerate', 'lr_lr', [600, 640], 12.0,
                 [([600], 12.0), ([640], 11.0)]),
                (64, 'DPDK', 'dpdk_dpdk', [620, 610], 6.0, [([620], 6.0)]),
                (64, 'linerate', 'lr_lr', [111, 650], 25.0,
                 [([111, 650], 25.0)]),
                (64, 'DPDK', 'dpdk_dpdk', [600, 109], None, [])]
        vhost.add_places(rows, runs, notes)
        t = dict(rows.table())
        self.assertEqual(t['64 B: forwarded, CPUs near']['DPDK']['median'],
                         20.5)
        self.assertEqual(t['64 B: forwarded, CPUs near']['linerate']['n'],
                         2)
        self.assertEqual(t['64 B: forwarded, CPUs far']['linerate']['n'], 3)
        self.assertEqual(t['64 B: forwarded, CPUs far']['linerate']['median'],
                         12.0)
        self.assertIn('2 runs near, 2 far, 2 moved', notes[0])
        self.assertIn('seconds of the placement rows: 4 near, 4 far, 1 in '
                      'neither', notes[0])
        self.assertIn('placement of lr-pktgen -> lr-l2fwd, 64 B: 1 near, '
                      '1 far, 1 moved', notes)
        self.assertIn('placement of testpmd txonly -> testpmd io, 64 B: 1 '
                      'near, 1 far, 1 moved', notes)
        # The same mix for both: 4 seconds near, 4 far (of both pairs),
        # so each pair's near and far medians weigh half each:
        # linerate (30 + 12) / 2, DPDK (20.5 + 6) / 2.
        mix = t['64 B: forwarded, placements weighted alike']
        self.assertEqual(mix['linerate']['n'], 1)
        self.assertAlmostEqual(mix['linerate']['median'], 21.0)
        self.assertAlmostEqual(mix['DPDK']['median'], 13.25)
        labels = {'lr_lr': 'linerate', 'dpdk_dpdk': 'DPDK'}
        tn = vhost.target_notes(rows, labels, (64,))
        self.assertEqual(len(tn), 3)
        self.assertIn('64 B: forwarded, CPUs near: lr-pktgen -> lr-l2fwd',
                      tn[0])
        self.assertIn('= 1.46 (target >= 1.3: met)', tn[0])
        self.assertIn('CPUs far', tn[1])
        self.assertIn('= 2.00 (target >= 1.3: met)', tn[1])
        self.assertIn('placements weighted alike', tn[2])
        self.assertIn('= 1.58 (target >= 1.3: met)', tn[2])
        # The probe's figure lines, and those of its window only.
        pr = vhost.Probe(None, '.')
        pr.on_line('(c) line round trip: lcore 0 (CPU 0) <-> lcore 1 '
                   '(CPU 1): 290.1 cycles, 111.7 ns (5000 trips)')
        pr.on_line('lr-ring-bench: ring of 4096 slots')
        self.assertEqual([x for _, x in pr.rtts], [111.7])
        t = pr.rtts[0][0]
        self.assertEqual(pr.within((t - 1, t + 1)), [111.7])
        self.assertEqual(pr.within((t + 1, t + 2)), [])
        self.assertEqual(pr.within(None), [])

    def test_mix(self):
        # Runs that fell in the placements in other shares for each pair:
        # each pair's medians weighed by the share of all seconds, 6 near
        # and 2 far; the run a pair spent more of far does not pull its
        # figure down against the other's.
        rows, notes = core.Rows(), []
        for lab, place, v in (('linerate', 'near', 30),
                              ('linerate', 'far', 10),
                              ('linerate', 'far', 10),
                              ('linerate', 'far', 11),
                              ('DPDK', 'near', 20), ('DPDK', 'near', 22),
                              ('DPDK', 'near', 21), ('DPDK', 'far', 8)):
            rows.add(vhost.place_row(64, place), lab, v)
        rows.add(vhost.place_row(1518, 'near'), 'linerate', 14)
        rows.add(vhost.place_row(1518, 'near'), 'DPDK', 10)
        rows.add(vhost.place_row(1518, 'far'), 'DPDK', 5)
        vhost.add_mix(rows, {(64, 'near'): 4, (64, 'far'): 4,
                             (1518, 'near'): 2, (1518, 'far'): 1}, notes)
        mix = rows.values[vhost.mix_row(64)]
        self.assertEqual(mix['linerate'], [20.0])   # 30 / 2 + 10 / 2
        self.assertEqual(mix['DPDK'], [14.5])       # 21 / 2 + 8 / 2
        # A pair with no second in a placement the others had: none.
        self.assertEqual(list(rows.values[vhost.mix_row(1518)]), ['DPDK'])
        self.assertAlmostEqual(rows.values[vhost.mix_row(1518)]['DPDK'][0],
                               10 * 2 / 3 + 5 / 3)
        self.assertEqual(notes, ['1518 B: linerate: no second with the '
                                 'CPUs far, so no figure with the '
                                 'placements weighted alike'])
        # One placement only (bands None put every second near): the
        # figure is the near median.
        rows, notes = core.Rows(), []
        rows.add(vhost.place_row(64, 'near'), 'DPDK', 9)
        vhost.add_mix(rows, {(64, 'near'): 1}, notes)
        self.assertEqual(rows.values[vhost.mix_row(64)], {'DPDK': [9.0]})
        self.assertEqual(notes, [])

    def test_targets(self):
        rows = core.Rows()
        labels = {'lr_lr': 'linerate', 'dpdk_dpdk': 'DPDK Debian',
                  'lr_dpdk': 'lr-pktgen -> testpmd io',
                  'dpdk_lr': 'testpmd txonly -> lr-l2fwd'}
        for lab, vals in (('linerate', (13, 14, 20)),
                          ('DPDK Debian', (9, 10, 11)),
                          ('lr-pktgen -> testpmd io', (9.9, 9.9)),
                          ('testpmd txonly -> lr-l2fwd', (10, 12))):
            for v in vals:
                rows.add('64 B: forwarded', lab, v)
        notes = vhost.target_notes(rows, labels, (64, 1518))
        self.assertEqual(len(notes), 3)
        self.assertIn('lr-pktgen -> lr-l2fwd / testpmd txonly -> testpmd '
                      'io = 1.40 (target >= 1.3: met)', notes[0])
        self.assertIn('= 0.99 (target >= 1.0: not met)', notes[1])
        self.assertIn('= 1.10 (target >= 1.0: met)', notes[2])
        # The CPUs in both placements: the ratio over every run is shown
        # and not judged (a pair's median is in the placement most of its
        # runs had); each placement's row is.
        for lab, near, far in (('linerate', 30, 12), ('DPDK Debian', 20, 7)):
            rows.add(vhost.place_row(64, 'near'), lab, near)
            rows.add(vhost.place_row(64, 'far'), lab, far)
        notes = vhost.target_notes(rows, labels, (64,))
        self.assertEqual(len(notes), 5)
        self.assertIn('= 1.40 (not judged: the CPUs were in both '
                      'placements', notes[0])
        self.assertIn('target >= 1.3 judged in each placement', notes[0])
        self.assertNotIn(': met', notes[0])
        self.assertIn('CPUs near: lr-pktgen -> lr-l2fwd / testpmd txonly '
                      '-> testpmd io = 1.50 (target >= 1.3: met)', notes[3])
        self.assertIn('CPUs far: lr-pktgen -> lr-l2fwd / testpmd txonly '
                      '-> testpmd io = 1.71 (target >= 1.3: met)', notes[4])
        # No DPDK pair measured: no ratio claimed.
        del labels['dpdk_dpdk']
        self.assertEqual(vhost.target_notes(rows, labels, (64,)), [])

    def test_registered(self):
        names = [c.name for c in registry()]
        self.assertEqual(names.index('vhost'),
                         names.index('memif_default') + 1)
        self.assertIs(registry()[names.index('vhost')].measure_fn,
                      vhost.measure)
        for key in vhost.KINDS:
            self.assertIn(key, vhost.TITLE)
            self.assertIn(key, vhost.PAIRS)


def tel_server(path, reply):
    """A one-client SOCK_SEQPACKET server on path: greets, then answers
    every request with reply(request); returns its thread."""
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    srv.bind(path)
    srv.listen(1)

    def serve():
        c, _ = srv.accept()
        c.send(b'{"version": "t", "pid": 1, "max_output_len": 16384}')
        while True:
            req = c.recv(1024)
            if not req:
                break
            c.send(reply(req.decode()).encode())
        c.close()
        srv.close()
    t = threading.Thread(target=serve, daemon=True)
    t.start()
    return t


class TestTelemetryPoller(unittest.TestCase):
    """The telemetry entry's client against a server written here."""

    def poll(self, reply, seconds):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, 'sock')
            tel_server(path, reply)
            p = telemetry.Poller(path, deadline_s=5)
            p.start()
            time.sleep(seconds)
            p.stop.set()
            p.join(5)
            return p

    def test_polls_every_period(self):
        p = self.poll(lambda r: json.dumps({r.split(',')[0]: {'x': 1}}),
                      0.35)
        self.assertIsNone(p.error)
        self.assertGreaterEqual(p.replies, 3)
        self.assertLessEqual(p.replies, 5)

    def test_reply_without_command(self):
        p = self.poll(lambda r: '{"/other": null}', 0.2)
        self.assertIn('reply without the command', p.error)
        self.assertEqual(p.replies, 0)

    def test_no_server(self):
        p = telemetry.Poller('/nonexistent/sock', deadline_s=0.2)
        p.start()
        p.join(5)
        self.assertIn('no telemetry socket', p.error)

    def test_parse(self):
        out = ''.join(f'Total packets sent: {i * 10**8}\n'
                      for i in range(10))
        self.assertAlmostEqual(telemetry.parse(out)[telemetry.ROW], 100.0)


if __name__ == '__main__':
    unittest.main(verbosity=1)
