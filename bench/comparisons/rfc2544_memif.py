# SPDX-License-Identifier: BSD-3-Clause
"""NDR and PDR over memif found by lr-pktgen --rfc2544 throughput, of
lr-l2fwd and of DPDK 22.11 forwarders beside it: testpmd io (Debian's
dpdk-testpmd) and DPDK's l2fwd example (harness/peers.l2fwd_example, when
its source is there).

The same search, generator and trials for every forwarder: lr-pktgen's two
memif ports are servers on CPU 0, the forwarder's two ports clients on CPU
1 (port 0 -> port 1), 64 and 1518-byte frames, trials of 0.5 s, final
trials of 2 s, precision 1% of the max; the max is --line-rate-gbps 40
(59.5 Mframes/s at 64 B), above what the generator sends, so the search
first lowers it to the generator's own limit. A frame the memif ring has no
room for is the forwarder's loss (--tx-full drop, memif's default). A round
runs every forwarder once, in turn; the forwarder starts once lr-pktgen's
sockets are there (DPDK 22.11's client connects once, at start) and gets
SIGINT when the search has ended.
"""
import json
import os
import shutil
import tempfile

from harness import core, peers, group, proc

SIZES = (64, 1518)
SEARCH = ['--rfc2544', 'throughput', '--rfc2544-sizes',
          ','.join(map(str, SIZES)), '--trial-s', '0.5', '--final-trial-s',
          '2', '--precision', '1', '--line-rate-gbps', '40', '--drain-ms',
          '200', '--link-wait', '30', '--quiet']
MEM = ['--no-huge', '-m', '256']
PREFIX = 'bench_rfc_memif'
READY_S = 60
SEARCH_S = 900            # bound on one search: only a hung run reaches it
PEERS = ('testpmd io', 'DPDK l2fwd')


def parse(text):
    """{size: {'NDR': Mframes/s, 'PDR': Mframes/s}} of lr-pktgen's --json
    document (sizes where the search found both)."""
    try:
        doc = json.loads(text)
        sizes = doc['rfc2544']['sizes']
    except (ValueError, KeyError, TypeError):
        return {}
    out = {}
    for s in sizes:
        try:
            out[int(s['size'])] = {'NDR': s['ndr']['pps'] / 1e6,
                                   'PDR': s['pdr']['pps'] / 1e6}
        except (KeyError, TypeError, ValueError):
            continue
    return out


def row(what, size, peer):
    """A row's name: the rate, the size and the peer it is set beside."""
    return f'{what} over memif, {size} B, lr-l2fwd vs {peer}'


def forwarders(ctx, a, b):
    """[(name, label, argv, note)] of the forwarders there are (ports
    memif clients of sockets a and b), and notes on those missing."""
    o = 'socket-abstract=no'
    vdevs = ['--vdev', f'net_memif0,role=client,socket={a},{o}',
             '--vdev', f'net_memif1,role=client,socket={b},{o}']
    ver = ' '.join(peers.pkg_config(['--modversion', 'libdpdk']) or
                   ['22.11'])
    label = f'DPDK {ver} Debian'
    out = [('lr-l2fwd', 'linerate',
            [f'{ctx.build}/apps/l2fwd/lr-l2fwd', '-l', '1'] + MEM +
            ['--file-prefix', f'{PREFIX}_f'] + vdevs +
            ['--', '-p', '0x3', '-T', '0'], None)]
    notes = []
    tp = shutil.which('dpdk-testpmd')
    if tp:
        out.append(('testpmd io', label,
                    [tp, '-l', '0,1'] + MEM +
                    ['--file-prefix', f'{PREFIX}_t', '--no-pci',
                     '--log-level=*:error'] + vdevs +
                    ['--', '--forward-mode=io', '--nb-cores=1',
                     '--total-num-mbufs=16384', '-a', '--stats-period', '0'],
                    f'{label}: {tp} (testpmd io)'))
    else:
        notes.append('testpmd io: no peer (apt install dpdk)')
    ex, why = peers.l2fwd_example(ctx)
    if ex:
        out.append(('DPDK l2fwd', label,
                    [ex, '-l', '1'] + MEM +
                    ['--file-prefix', f'{PREFIX}_d', '--log-level=*:error']
                    + vdevs + ['--', '-p', '0x3', '-q', '2', '-T', '0'],
                    f'{label}: the l2fwd example built by its own Makefile '
                    'against libdpdk-dev'))
    else:
        notes.append(f'DPDK l2fwd: {why}')
    return out, notes


def generator(ctx, a, b, out):
    """lr-pktgen's search, its ports memif servers, its --json into out."""
    o = 'socket-abstract=no'
    return (['taskset', '-c', '0', f'{ctx.build}/apps/pktgen/lr-pktgen',
             '-l', '0'] + MEM + ['--file-prefix', f'{PREFIX}_g',
                                 '--vdev',
                                 f'net_memif0,role=server,socket={a},{o}',
                                 '--vdev',
                                 f'net_memif1,role=server,socket={b},{o}',
                                 '--', '--tx-ports', '0', '--rx-ports', '1']
            + SEARCH + ['--json', out])


def run_one(ctx, tmp, name, argv, log):
    """One search against forwarder argv: ({size: {NDR, PDR}}, notes,
    commands)."""
    a, b = os.path.join(tmp, 'a.sock'), os.path.join(tmp, 'b.sock')
    out = os.path.join(tmp, 'r.json')
    group.remove([a, b, out])
    procs, notes = [], []
    try:
        gen = proc.Background(generator(ctx, a, b, out), cwd=ctx.top,
                              name='lr-pktgen')
        procs.append(gen)
        log(f'$ {gen.command()}')
        if not (group.wait_until(group.is_socket(a), [gen], READY_S) and
                group.wait_until(group.is_socket(b), [gen], READY_S)):
            notes.append('lr-pktgen: no sockets: ' +
                         core.last_line(gen.output()))
            return {}, notes, [p.command() for p in procs]
        # A forwarder's standard input stays open for the run: testpmd
        # without -i ends at the first line or end of file it reads.
        fwd = proc.Background(['taskset', '-c', '1'] + argv, cwd=ctx.top,
                              stdin=True, name=name)
        procs.append(fwd)
        log(f'$ {fwd.command()}')
        if gen.wait(SEARCH_S) is None:
            notes.append(f'lr-pktgen: no result in {SEARCH_S} s')
        _, rc = gen.stop(timeout=5)
        if rc != 0:
            said = [x for x in gen.lines if x.startswith('lr-pktgen:')]
            notes.append(f'lr-pktgen exit {rc}: ' +
                         (said[-1] if said else core.last_line(gen.output())))
        _, rc = fwd.stop(timeout=5)
        n = group.exit_note(fwd, rc, fwd.killed)
        if n:
            notes.append(n)
        try:
            with open(out) as f:
                figs = parse(f.read())
        except OSError:
            figs = {}
        return figs, notes, [p.command() for p in procs]
    finally:
        for p in procs:
            p.kill()
        group.remove([a, b, out, f'/var/run/dpdk/{PREFIX}_*',
                     f'/var/run/linerate/{PREFIX}_*'])


def measure(ctx, comp, log):
    """Every round: each forwarder under the same search, in turn."""
    rows = core.Rows()
    tmp = tempfile.mkdtemp(prefix='bench-rfc2544-memif.')
    a, b = os.path.join(tmp, 'a.sock'), os.path.join(tmp, 'b.sock')
    fwds, notes = forwarders(ctx, a, b)
    there = [n for n, _, _, _ in fwds]
    lines, first = {}, {}
    try:
        for r in range(ctx.rounds or comp.rounds):
            for name, label, argv, _ in fwds:
                figs, nts, cmds = run_one(ctx, tmp, name, argv, log)
                notes += [f'{name}, round {r + 1}: {n}' for n in nts]
                if r == 0:
                    cmds = [core.sanitize(c, ctx.top) for c in cmds]
                    if label == 'linerate':
                        lines[label] = [cmds[0] + ' &'] + cmds[1:]
                    else:
                        lines.setdefault(label, []).extend(
                            [f'# {name}, with the same lr-pktgen'] +
                            cmds[1:])
                    first.setdefault(label, '\n'.join(cmds))
                if not figs:
                    notes.append(f'{name}, round {r + 1}: no figure')
                for size in SIZES:
                    for what, v in figs.get(size, {}).items():
                        for peer in PEERS:
                            if peer not in there:
                                continue
                            if name == 'lr-l2fwd' or name == peer:
                                rows.add(row(what, size, peer), label, v)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    order = []
    for _, lab, _, _ in fwds:
        if lab in lines and lab not in order:
            order.append(lab)
    sides = [group.Together(lab, lines[lab], '; '.join(
        n for _, x, _, n in fwds if x == lab and n) or None)
        for lab in order]
    return rows, sides, notes, first


def needs(ctx):
    """Two CPUs: the generator on one, the forwarder on the other."""
    return None if os.cpu_count() >= 2 else 'needs 2 CPUs'


def summary_rows():
    """The rows of the opening table: NDR and PDR of each size, beside
    each peer."""
    return [row(w, s, p) for s in SIZES for p in PEERS for w in ('NDR',
                                                                 'PDR')]


COMPARISON = core.Comparison(
    'rfc2544_memif', 'RFC 2544 over memif: NDR and PDR of lr-l2fwd and '
    'DPDK\'s forwarders found by lr-pktgen',
    'lr-pktgen --rfc2544 throughput (its two memif ports servers, on CPU 0) '
    'against each forwarder in turn (ports clients, on CPU 1): lr-l2fwd, '
    'Debian\'s testpmd io, DPDK\'s l2fwd example when its source is there '
    '(built against libdpdk-dev). 64 and 1518-byte frames, trials of 0.5 '
    's, final trials of 2 s, precision 1%, PDR at 0.5% loss; a round runs '
    'every forwarder once; 3 rounds, medians with the range. lr-l2fwd\'s '
    'figures appear in a row beside each peer.',
    measure=measure, needs=needs, rounds=3, unit='Mframes/s',
    better='higher', summary=summary_rows(), digits=3,
    against='its search is lr-pktgen --rfc2544, which older trees (057e1de, '
            'before issue 35) lack; the memif entry measures the same path')
