# SPDX-License-Identifier: BSD-3-Clause
"""Instruction counts by valgrind's callgrind: the measure that does not
depend on what else the machine runs (cycle figures here move by 10-50%
between runs and processes).

1. mempool_instructions: lr-mempool-bench's timed loops beside the same
   loops against DPDK's rte_mempool (bench/dpdk/mempool_perf.c), each
   timed function (mp_run_N, mbuf_run_N, mbuf_run_single) counted
   inclusively (its out-of-line refill and flush paths included) over its
   warm-up run and CG_REPS runs of CG_OBJS objects, divided by the
   objects: instructions per get+put (alloc+free) pair. One process per
   timed function: callgrind's toggles lose count when several functions
   toggle in one run (seen: mp_run_32 counted 0). --dump-after=bench_mempool
   gives one profile part per mempool row; the last part holds the mbuf
   rows.
2. elastic_instructions: lr-l2fwd on two net_null ports with its elastic
   pool and with a fixed pool of the size it computes (--mbufs N),
   CG_SECONDS of forwarding each, l2fwd_main_loop counted inclusively,
   divided by the packets received; and how often the run reached the
   pool's store (the calls of the cache's slow paths and, for the
   elastic pool, of its store).

valgrind 3.19 knows no AVX-512, which -march=native enables on this
machine: both build and run their own tree, build-cg/ (meson setup
build-cg -Dbuildtype=release -Dc_args=-mno-avx512f, everything else as
build-bench/), and DPDK's side is compiled with peers.CFLAGS plus
-mno-avx512f against Debian's libdpdk (the native DPDK build is all
-march=native: not run).

CG_OBJS, CG_REPS and CG_SECONDS in the environment change the sizes (a
quick check: CG_OBJS=1024); a run with other values than the defaults
says so in a note.
"""
import os
import re
import shutil
import subprocess
import tempfile

from harness import core, group, peers, proc
from . import elastic, l2fwd

TREE = 'build-cg'
NO_AVX512 = '-mno-avx512f'
TREE_OPTIONS = ['-Dbuildtype=release', f'-Dc_args={NO_AVX512}']
ANNOTATE = ['callgrind_annotate', '--inclusive=yes', '--threshold=100']
# The sizes, from CG_<NAME> in the environment, and their least values.
DEFAULTS = {'OBJS': 102400, 'REPS': 3, 'SECONDS': 3}
LEAST = {'OBJS': 128, 'REPS': 1, 'SECONDS': 1}

# lr-mempool-bench's and mempool_perf.c's rows, in the order they run.
MEMPOOL_ROWS = ('mempool, cache 256, ring_mp_mc',
                'mempool, cache 512, ring_mp_mc',
                'mempool, no cache, ring_mp_mc',
                'mempool, no cache, ring_sp_sc',
                'mempool, no cache, stack')
MBUF_BULK = 'mbuf alloc_bulk+free_bulk, c512'
MBUF_SINGLE = 'mbuf alloc+free (single calls)'
BULKS = (1, 8, 32, 128)
# Seconds a profiled lr-mempool-bench or mempool_perf.c run may take.
MEMPOOL_TIMEOUT = 1800
LAST = 'last'


def row_order():
    """The mempool rows as lr-mempool-bench prints them: each row at bulk
    1, 8, 32, 128, then the mbuf rows."""
    return ([f'{row} bulk {n}' for row in MEMPOOL_ROWS + (MBUF_BULK,)
             for n in BULKS] + [f'{MBUF_SINGLE} bulk 1'])


def timed_functions():
    """[(function, bulk, [(profile part, row)])] of the mempool loops: an
    mp_run_N gives a row in each of the five parts (one per mempool row),
    the mbuf loops in the last part."""
    out = [(f'mp_run_{n}', n, [(str(k), f'{row} bulk {n}') for k, row in
                               enumerate(MEMPOOL_ROWS, 1)]) for n in BULKS]
    out += [(f'mbuf_run_{n}', n, [(LAST, f'{MBUF_BULK} bulk {n}')])
            for n in BULKS]
    out.append(('mbuf_run_single', 1, [(LAST, f'{MBUF_SINGLE} bulk 1')]))
    return out


def options(env=None):
    """({'OBJS', 'REPS', 'SECONDS'}, None) from CG_<NAME> in the
    environment, else the defaults; (None, why) when one is not valid."""
    env = os.environ if env is None else env
    o = {}
    for k, v in DEFAULTS.items():
        text = env.get('CG_' + k, str(v))
        try:
            o[k] = int(text)
        except ValueError:
            return None, f'CG_{k}={text!r}: a whole number'
        if o[k] < LEAST[k]:
            return None, f'CG_{k}={text!r}: at least {LEAST[k]}'
    return o, None


def options_note(o, keys):
    """A note naming the sizes of keys (those an entry uses) that are not
    the defaults, or None."""
    changed = [f'CG_{k}={o[k]}' for k in keys if o[k] != DEFAULTS[k]]
    return ('sizes changed from the defaults: ' + ' '.join(changed)
            if changed else None)


def needs(ctx):
    """Why the callgrind comparisons cannot run here, or None."""
    for tool in ('valgrind', 'callgrind_annotate'):
        if shutil.which(tool) is None:
            return (f'needs {tool} (Debian\'s valgrind: scripts/setup.sh '
                    '--bench installs it)')
    return options()[1]


# ---- what callgrind and callgrind_annotate write ----

ANNOTATED = re.compile(r'^== callgrind_annotate (\S+)$')
# "43,637 (100.0%)  ???:mp_run_1 [/path/to/binary]"
INCLUSIVE = re.compile(r'^\s*([0-9,]+)\s+\(\s*[0-9.]+%\)\s+(\S+)')
# "fn=(12) name", "cfn=(12)" (a name compressed to its id), "cfn=name"
PROFILE_FN = re.compile(r'^(c?fn)=(?:\(([0-9]+)\))?\s*(.*)$')


def annotations(out):
    """{part: text} of the callgrind_annotate listings in a run's output,
    each after its line '== callgrind_annotate PART'."""
    parts, cur = {}, None
    for line in out.splitlines():
        m = ANNOTATED.match(line)
        if m:
            cur = m.group(1)
            parts[cur] = []
        elif cur is not None:
            parts[cur].append(line)
    return {k: '\n'.join(v) for k, v in parts.items()}


def inclusive(listing, func):
    """The inclusive instructions of func in a callgrind_annotate
    --inclusive=yes listing ("N (P%)  FILE:FUNC [OBJECT]"), or None when
    it is not there."""
    for line in listing.splitlines():
        m = INCLUSIVE.match(line)
        if m and m.group(2).rpartition(':')[2] == func:
            return int(m.group(1).replace(',', ''))
    return None


def calls(profile, func):
    """How many times func was called in a callgrind profile (the text of
    its out file): the calls= lines after each cfn= naming it (callgrind
    names a function once, "(id) name", then by its id alone)."""
    names, counting, total = {}, False, 0
    for line in profile.splitlines():
        m = PROFILE_FN.match(line)
        if m:
            kind, fid, name = m.groups()
            if fid and name:
                names[fid] = name
            counting = kind == 'cfn' and (names.get(fid) if fid else
                                          name) == func
        elif line.startswith('calls=') and counting:
            total += int(line[len('calls='):].split()[0])
            counting = False
    return total


def profiled(out_file, parts, counted=()):
    """A run function for proc.alternate: the side (a program under
    callgrind writing out_file), then callgrind_annotate of each of its
    profile parts (LAST: out_file itself, else out_file.PART), each
    listing after a line '== callgrind_annotate PART' following the
    program's output, and a line 'callgrind calls FUNC N' for each
    function of counted (in the last part)."""
    def run(ctx, side, log):
        """(output, exit status) of one profiled run."""
        group.remove([out_file, out_file + '.*'])
        out, rc = ctx.run(side, log)
        if rc != 0:
            return out, rc
        text = [out]
        for part in parts:
            path = out_file if part == LAST else f'{out_file}.{part}'
            p = subprocess.run(ANNOTATE + [path], capture_output=True,
                               text=True)
            if p.returncode != 0:
                return out + f'\ncallgrind_annotate {part}: ' + p.stderr, 1
            text += [f'== callgrind_annotate {part}', p.stdout]
        if counted:
            try:
                with open(out_file) as f:
                    profile = f.read()
            except OSError as e:
                return out + f'\nno profile: {e}', 1
            text += [f'callgrind calls {fn} {calls(profile, fn)}'
                     for fn in counted]
        return '\n'.join(text) + '\n', 0
    return run


def called(out, func):
    """The count of a 'callgrind calls FUNC N' line of a run's output, or
    None."""
    m = re.search(rf'^callgrind calls {re.escape(func)} ([0-9]+)$', out,
                  re.M)
    return int(m.group(1)) if m else None


def valgrind(out_file, toggle, extra=()):
    """valgrind's argv counting the function toggle into out_file."""
    return ['valgrind', '--tool=callgrind',
            f'--callgrind-out-file={out_file}', f'--toggle-collect={toggle}'
            ] + list(extra)


def build_tree(ctx, log):
    """Set up and build build-cg/; None when built, else a note."""
    why = proc.meson_tree(ctx.top, TREE, TREE_OPTIONS, log)
    return None if why is None else (f'building {TREE} failed: ' +
                                     core.last_line(why))


# ---- 1. mempool_instructions ----

def parse_loop(func, bulk, parts, objs, reps):
    """The parser of one profiled lr-mempool-bench (or mempool_perf.c) run
    of timed function func: {row: instructions per object} from func's
    inclusive count in each profile part, over its reps + 1 runs of the
    whole bulks that fit in objs."""
    objects = (objs // bulk) * bulk * (reps + 1)

    def parse(out):
        """{row: instructions per object}; a part without func gives no
        figure."""
        listings = annotations(out)
        figs = {}
        for part, row in parts:
            ir = inclusive(listings.get(part, ''), func)
            if ir:
                figs[row] = ir / objects
        return figs
    return parse


def mempool_argv(exe, func, out_file, i, o, dpdk):
    """The argv of one profiled run of exe (lr-mempool-bench, or
    mempool_perf.c's peer when dpdk) for timed function func."""
    extra = ['--no-pci', '--log-level=*:error'] if dpdk else []
    return (valgrind(out_file, func, ['--dump-after=bench_mempool']) +
            [exe, '-l', '0', '--no-huge', '-m', '512',
             f'--file-prefix=cg_mempool_{i}'] + extra +
            ['--', '--objs', str(o['OBJS']), '--reps', str(o['REPS'])])


def mempool_programs(ctx):
    """[(label, binary, note)]: lr-mempool-bench of build-cg/, then
    mempool_perf.c built without AVX-512 against Debian's DPDK (or a
    note why not)."""
    out = [('linerate', f'{TREE}/apps/mempool-bench/lr-mempool-bench',
            None)]
    label, exe, note = peers.debian(
        ctx, 'bench/dpdk/mempool_perf.c',
        f'{TREE}/bench-dpdk/mempool-perf-cg-debian',
        cflags=peers.CFLAGS + [NO_AVX512])
    out.append((label, exe, note))
    return out


def measure_mempool(ctx, comp, log):
    """Every timed function of each program in a process of its own under
    callgrind, the programs alternating, rounds times."""
    o, _ = options()
    rows, first, notes, shown = core.Rows(), {}, [], []
    why = build_tree(ctx, log)
    if why:
        return rows, shown, [why], first
    tmp = tempfile.mkdtemp(prefix='callgrind-mempool.')
    try:
        todo = []
        for i, (label, exe, note) in enumerate(mempool_programs(ctx)):
            if not exe:
                notes.append(note)
                continue
            for func, bulk, parts in timed_functions():
                out_file = os.path.join(tmp, f'{i}.{func}.out')
                side = core.Side(label, mempool_argv(exe, func, out_file, i,
                                                     o, i > 0),
                                 timeout=MEMPOOL_TIMEOUT)
                todo.append((f'{label} {func}', side,
                             parse_loop(func, bulk, parts, o['OBJS'],
                                        o['REPS']),
                             profiled(out_file, [p for p, _ in parts])))
            shape = os.path.join(tmp, f'{i}.F.out')
            shown.append(group.Together(label, [
                '# one process per timed function F: ' +
                ' '.join(f for f, _, _ in timed_functions()),
                core.Side(label, mempool_argv(exe, 'F', shape, i, o,
                                              i > 0)).command(),
                '# F\'s inclusive Ir in each profile part: ' + shape +
                '.1 to .5 (the mempool rows), ' + shape + ' (the mbufs)',
                ' '.join(ANNOTATE + [shape + '.1'])], note))
        notes.append('DPDK native: not run (scripts/dpdk-native.sh builds '
                     'its static libraries -march=native, AVX-512 '
                     'included, which valgrind 3.19 cannot run)')
        extra = options_note(o, ('OBJS', 'REPS'))
        if extra:
            notes.append(extra)
        proc.alternate(ctx, todo, ctx.rounds or comp.rounds, rows, notes,
                       first, log)
        order = row_order()
        rows.sort(lambda r: order.index(r) if r in order else len(order))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        proc.remove_dpdk_leftovers(['cg_mempool_0', 'cg_mempool_1'])
    return rows, shown, notes, first


def mempool_summary():
    """The rows of the opening table."""
    return [f'{MEMPOOL_ROWS[0]} bulk 1', f'{MEMPOOL_ROWS[0]} bulk 32',
            f'{MBUF_BULK} bulk 1', f'{MBUF_BULK} bulk 32',
            f'{MBUF_SINGLE} bulk 1']


MEMPOOL = core.Comparison(
    'mempool_instructions',
    'Mempool and mbuf in instructions (callgrind)',
    'Instructions per object, get+put (or alloc+free for mbufs), of '
    'lr-mempool-bench\'s timed loops beside the same loops against DPDK\'s '
    'rte_mempool (bench/dpdk/mempool_perf.c), counted by valgrind\'s '
    'callgrind: the measure that does not depend on what else the machine '
    'runs. Each timed function (mp_run_N, mbuf_run_N, mbuf_run_single) is '
    'counted inclusively (its out-of-line refill and flush paths included) '
    f'in a process of its own over its warm-up run and {DEFAULTS["REPS"]} '
    f'runs of {DEFAULTS["OBJS"]} objects, and divided by the objects; the '
    'loop\'s own increment and compare and the two fenced TSC reads of a '
    'run are counted on both sides alike. One round (a count, not a '
    'timing). valgrind 3.19 knows no '
    f'AVX-512: the entry builds its own tree, {TREE}/ (-Dc_args='
    f'{NO_AVX512}, release), and DPDK\'s side is Debian\'s libdpdk with '
    f'mempool_perf.c built with linerate\'s flags plus {NO_AVX512}. Ratio: '
    'linerate / DPDK.',
    measure=measure_mempool, needs=needs, rounds=1,
    unit='instructions/object', better='lower', summary=mempool_summary())


# ---- 2. elastic_instructions ----

FWD_ROW = 'instructions per forwarded packet (l2fwd_main_loop)'
PACKETS_ROW = 'packets forwarded under callgrind'
# Rows of call counts: (function, row, only for the elastic pool).
CALL_ROWS = (('lr_mempool_get_slow_',
              'cache refills: lr_mempool_get_slow_ calls', False),
             ('lr_mempool_put_slow_',
              'cache flushes: lr_mempool_put_slow_ calls', False),
             ('ep_dequeue', 'elastic store gets: ep_dequeue calls', True),
             ('ep_enqueue', 'elastic store puts: ep_enqueue calls', True))
TOTAL = re.compile(r'^l2fwd total: rx=([0-9]+)', re.M)
POOL = re.compile(r'^mbuf pool: ([0-9]+ mbufs \([a-z]+[^)]*\))', re.M)


def parse_forwarding(is_elastic):
    """The parser of one profiled lr-l2fwd run (the elastic pool's when
    is_elastic): {row: value}, {} without a packet count or a count of
    l2fwd_main_loop."""
    def parse(out):
        """Instructions per packet, packets, calls of the store paths."""
        m = TOTAL.search(out)
        ir = inclusive(annotations(out).get(LAST, ''), 'l2fwd_main_loop')
        if not m or not ir or int(m.group(1)) == 0:
            return {}
        pkts = int(m.group(1))
        figs = {FWD_ROW: ir / pkts, PACKETS_ROW: pkts}
        for func, row, elastic_only in CALL_ROWS:
            n = called(out, func)
            if n is not None and (is_elastic or not elastic_only):
                figs[row] = n
        return figs
    return parse


def pool_of(out):
    """lr-l2fwd's last "mbuf pool: N mbufs (...)" line, shortened, or
    None."""
    found = POOL.findall(out)
    return found[-1] if found else None


def l2fwd_argv(out_file, name, seconds, extra=()):
    """The argv of a profiled lr-l2fwd run (pool name: 'elastic' or
    'fixed'; extra options after --)."""
    return (valgrind(out_file, 'l2fwd_main_loop') +
            [f'{TREE}/apps/l2fwd/lr-l2fwd', '-l', '0', '--no-huge', '-m',
             '512'] + l2fwd.NULLS +
            [f'--file-prefix=cg_elastic_{name}', '--', '-p', '0x3', '-T', '0',
             '--duration', str(seconds)] + list(extra))


def measure_elastic(ctx, comp, log):
    """The pool size lr-l2fwd computes (a short run outside valgrind),
    then the elastic and the fixed pool under callgrind, alternating."""
    o, _ = options()
    rows, first, notes, shown = core.Rows(), {}, [], []
    why = build_tree(ctx, log)
    if why:
        return rows, shown, [why], first
    tmp = tempfile.mkdtemp(prefix='callgrind-elastic.')
    try:
        probe = core.Side('probe', [f'{TREE}/apps/l2fwd/lr-l2fwd', '-l', '0',
                                    '--no-huge', '-m', '512'] +
                          l2fwd.NULLS +
                          ['--file-prefix=cg_elastic_n', '--', '-p', '0x3',
                           '-T', '0', '--duration', '0.1'])
        out, _ = ctx.run(probe, log)
        need = elastic.parse_need(out)
        runs = [('elastic', 'linerate elastic pool', [])]
        if need:
            runs.append(('fixed', f'linerate fixed pool, lr-l2fwd\'s size '
                         f'({need})', ['--mbufs', str(need)]))
        else:
            notes.append('lr-l2fwd printed no pool size: fixed pool not '
                         f'run: {core.last_line(out)}')
        counted = [f for f, _, _ in CALL_ROWS]
        todo = []
        for name, label, extra in runs:
            out_file = os.path.join(tmp, f'{name}.out')
            side = core.Side(label, l2fwd_argv(out_file, name, o['SECONDS'],
                                               extra),
                             timeout=o['SECONDS'] * 20 + 120)
            todo.append((name, side, parse_forwarding(name == 'elastic'),
                         profiled(out_file, [LAST], counted)))
            shown.append(group.Together(label, [
                side.command(),
                ' '.join(ANNOTATE + [out_file]) + '   # l2fwd_main_loop',
                f'# and the calls of {", ".join(counted)} in {out_file}']))
        extra = options_note(o, ('SECONDS',))
        if extra:
            notes.append(extra)
        proc.alternate(ctx, todo, ctx.rounds or comp.rounds, rows, notes,
                       first, log)
        for name, side, _, _ in todo:
            pool = pool_of(first.get(side.label, ''))
            if pool:
                notes.append(f'{side.label}: lr-l2fwd\'s pool at the end of '
                             f'the first round: {pool}')
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return rows, shown, notes, first


def elastic_unit(row):
    """instructions/packet, packets or calls."""
    if row == FWD_ROW:
        return 'instructions/packet'
    return 'packets' if row == PACKETS_ROW else 'calls'


def elastic_better(row):
    """More packets forwarded, fewer instructions and store calls."""
    return 'higher' if row == PACKETS_ROW else 'lower'


ELASTIC = core.Comparison(
    'elastic_instructions',
    'Elastic mbuf pools in instructions (callgrind)',
    'Instructions per forwarded packet of lr-l2fwd on two net_null ports '
    '(size=64, copy=0), one lcore, with its default elastic mbuf pool and '
    'with a fixed pool of the size lr-l2fwd computes for its ports (--mbufs '
    'N, from its "mbuf pool: the ports need N mbufs" line in a short run '
    'outside valgrind), counted by valgrind\'s callgrind over '
    'l2fwd_main_loop (receive, forward, transmit, mbuf alloc and free, the '
    f'lcore loop) in {DEFAULTS["SECONDS"]} s of forwarding a run, divided '
    'by the packets received; and how '
    'often each run reached the pool\'s store in that loop: the calls of '
    'the per-lcore cache\'s slow paths (refill, flush) and, for the '
    'elastic pool, of its store (ep_dequeue, ep_enqueue). The pools '
    'alternate, one round (a count, not a timing). valgrind 3.19 knows no '
    'AVX-512: the entry builds '
    f'its own tree, {TREE}/ (-Dc_args={NO_AVX512}, release). No DPDK '
    'peer: DPDK has no elastic pool. Ratio: elastic / fixed.',
    measure=measure_elastic, needs=needs, rounds=1, unit='calls',
    better='lower', unit_of=elastic_unit, better_of=elastic_better)
