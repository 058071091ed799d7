# SPDX-License-Identifier: BSD-3-Clause
"""What the DPDK bridge costs (drivers/net/dpdk, issue 19), in one run:

1. forwarding on two net_null ports (64-byte frames, copy=0, MAC
   updating, one forwarding lcore): lr-l2fwd over net_dpdk (DPDK's
   net_null under linerate ports), on linerate's own net_null, over
   net_dpdk's benchmark-only floor build (drivers/plugins/floor, which
   hands DPDK's mbufs over as they are); DPDK's l2fwd example and testpmd
   io on DPDK's net_null; and, when scripts/dpdk-native.sh's build is the
   same DPDK version, the bridge and its floor on that build's shared
   libraries against its own l2fwd;
2. testpmd io on net_null with its mbuf pool on the "linerate" mempool ops
   (liblinerate_dpdk_mempool.so) against DPDK's ring_mp_mc.

Rates: lr-l2fwd and l2fwd as harness/core.window_rate (the growth of
"Total packets sent" from line WARM to DUR lines later); testpmd,
interactive: its TX total over the time between its `start` and `stop`
replies, after WARM s forwarding and a `clear port stats all`.
"""
import glob
import os
import re
import shutil
import time

from harness import core, peers, proc
from comparisons.l2fwd import NULLS, SENT

WARM, DUR, ROUNDS = 3, 4, 3
PLUGIN = 'drivers/mempool/dpdk/liblinerate_dpdk_mempool.so'
FLOOR = 'drivers/plugins/floor'
BRIDGE_VDEVS = ['--vdev', 'net_dpdk0,dev=[net_null0,size=64,copy=0]',
                '--vdev', 'net_dpdk1,dev=[net_null1,size=64,copy=0]']
ROW_DEB = 'l2fwd, 2 x net_null, one lcore, Debian\'s DPDK'
ROW_NAT = 'l2fwd, 2 x net_null, one lcore, native DPDK build'
ROW_OPS = 'testpmd io on 2 x net_null, mbuf pool ops'
ACCUMULATED = 'Accumulated forward statistics'
TX_PACKETS = re.compile(r'TX-packets: *([0-9]+)')


def testpmd_tx(out):
    """TX-packets of testpmd's accumulated forward statistics (the first
    after its 'Accumulated forward statistics' line), or None."""
    i = out.find(ACCUMULATED)
    m = TX_PACKETS.search(out, i) if i >= 0 else None
    return int(m.group(1)) if m else None


def window(out):
    """Mpps of an lr-l2fwd or l2fwd run over the WARM/DUR window."""
    return core.window_rate(out, SENT, WARM, DUR)


class Run:
    """One program of the comparison: the row and side label its figure
    goes to, and how it runs (a Side to its end, or testpmd driven)."""

    def __init__(self, row, label, side=None, testpmd_args=None):
        self.row = row
        self.label = label
        self.side = side
        self.testpmd_args = testpmd_args


def testpmd_argv(ctx, extra):
    """Interactive testpmd io on DPDK's net_null, lcores 0,1."""
    return (['stdbuf', '-oL', 'dpdk-testpmd', '-l', '0,1'] +
            ctx.mem_args(256, 192) +
            ['--no-pci', '--file-prefix=bench_bridge_tp'] + list(extra) +
            NULLS + ['--', '-i', '--forward-mode=io', '--nb-cores=1',
                     '--total-num-mbufs=8192'])


def testpmd_rate(ctx, extra, log):
    """(output, Mpps) of one interactive testpmd: start, WARM s, clear the
    stats, DUR s, stop; its TX total over the time from the clear to the
    stop's reply. Mpps None when a step did not come."""
    bg = proc.Background(testpmd_argv(ctx, extra), cwd=ctx.top, stdin=True,
                         log=log)
    try:
        if bg.wait_for(r'testpmd> ', timeout=60) is None:
            return bg.stop()[0], None
        mark = len(bg.text())
        bg.send('start')
        if bg.wait_for(r'io packet forwarding', 60, mark) is None:
            return bg.stop()[0], None
        time.sleep(WARM)   # warm-up, then the measured window
        bg.send('clear port stats all')
        t0 = time.monotonic()
        time.sleep(DUR)
        mark = len(bg.text())
        bg.send('stop')
        got = bg.wait_for(ACCUMULATED, 60, mark)
        t1 = time.monotonic()
        bg.send('quit')
        out, _ = bg.stop(timeout=30)
    finally:
        bg.kill()
    tx = testpmd_tx(out[mark:]) if got else None
    return out, (tx / (t1 - t0) / 1e6 if tx and t1 > t0 else None)


def lr_side(ctx, label, vdevs, pre=(), env=None):
    """lr-l2fwd on lcore 0 with these vdevs, -T 1 for the window."""
    return core.Side(label, [f'{ctx.build}/apps/l2fwd/lr-l2fwd', '-l', '0']
                     + ctx.mem_args(256, 192) + list(pre) +
                     ['--file-prefix=bench_bridge_lr'] + vdevs +
                     ['--', '-p', '0x3', '-T', '1', '--duration',
                      str(WARM + DUR + 1)], env=env)


def l2fwd_side(ctx, label, exe):
    """DPDK's l2fwd binary exe on DPDK's net_null, SIGINT after the
    window."""
    return core.Side(label, [exe, '-l', '0'] + ctx.mem_args(256, 192) +
                     ['--no-pci', '--file-prefix=bench_bridge_dl2fwd',
                      '--log-level=*:error'] + NULLS +
                     ['--', '-p', '0x3', '-q', '2', '-T', '1'],
                     stop_after=WARM + DUR + 2)


def native_lib(ctx, notes):
    """(libdir, l2fwd, version) of scripts/dpdk-native.sh's build when it
    is there and the same DPDK version as Debian's, else None."""
    nat = peers.native_build(ctx)
    if not nat:
        notes.append('native rows: not run (no build from '
                     'scripts/dpdk-native.sh)')
        return None
    exe = nat.get('l2fwd', '')
    nver = ' '.join(peers.pkg_config(['--modversion', 'libdpdk'],
                                     nat['pkgconfig']) or [])
    dver = ' '.join(peers.pkg_config(['--modversion', 'libdpdk']) or [])
    if not (exe and os.access(exe, os.X_OK) and nver and nver == dver):
        notes.append(f'native rows skipped: DPDK native \'{nver}\' and '
                     f'Debian \'{dver}\' differ, or no native l2fwd')
        return None
    return os.path.dirname(nat['pkgconfig']), exe, nver


def runs(ctx, notes):
    """The forwarding runs of part 1, in the order of a round."""
    ver = ' '.join(peers.pkg_config(['--modversion', 'libdpdk']) or ['?'])
    floor = os.path.join(ctx.build, FLOOR)
    has_floor = os.path.isfile(os.path.join(ctx.top, floor,
                                            'liblinerate_net_dpdk.so'))
    out = [Run(ROW_DEB, 'linerate over net_dpdk',
               lr_side(ctx, 'linerate over net_dpdk', BRIDGE_VDEVS)),
           Run(ROW_DEB, 'linerate on its net_null',
               lr_side(ctx, 'linerate on its net_null', NULLS))]
    exe, why = peers.l2fwd_example(ctx)
    if exe:
        lab = f'DPDK {ver} Debian l2fwd'
        out.append(Run(ROW_DEB, lab, l2fwd_side(ctx, lab, exe)))
    else:
        notes.append(f'DPDK l2fwd (Debian): {why}')
    if shutil.which('dpdk-testpmd') and ctx.lcores() == '0-1':
        out.append(Run(ROW_DEB, f'DPDK {ver} Debian testpmd io (lcores '
                       '0,1)', testpmd_args=[]))
    else:
        notes.append('testpmd io: not run (needs dpdk-testpmd and 2 CPUs)')
    if has_floor:
        lab = 'linerate over net_dpdk\'s floor build'
        out.append(Run(ROW_DEB, lab, lr_side(ctx, lab, BRIDGE_VDEVS,
                                             ['-d', floor])))
    nat = native_lib(ctx, notes)
    if nat:
        lib, nexe, nver = nat
        env = {'LD_LIBRARY_PATH': lib}
        out.append(Run(ROW_NAT, 'linerate over net_dpdk',
                       lr_side(ctx, 'linerate over net_dpdk', BRIDGE_VDEVS,
                               env=env)))
        if has_floor:
            lab = 'linerate over net_dpdk\'s floor build'
            out.append(Run(ROW_NAT, lab, lr_side(
                ctx, lab, BRIDGE_VDEVS, ['-d', floor], env=env)))
        lab = f'DPDK {nver} native l2fwd'
        out.append(Run(ROW_NAT, lab, l2fwd_side(ctx, lab, nexe)))
    return out


def one(ctx, run, rows, notes, r, log):
    """Run one program, its figure to rows (or a note)."""
    if run.side is None:
        out, v = testpmd_rate(ctx, run.testpmd_args, log)
    else:
        out, rc = ctx.run(run.side, log)
        v = window(out) if rc == 0 else None
    if v is None:
        notes.append(f'{run.label} ({run.row}) round {r + 1}: no figure: '
                     f'{core.last_line(out)}')
    else:
        rows.add(run.row, run.label, v)


def measure(ctx, comp, log):
    """Part 1's runs alternating, then part 2's two testpmd pools (which
    goes first alternating by round); runtime folders removed."""
    rows, notes = core.Rows(), []
    todo = runs(ctx, notes)
    plugin = os.path.join(ctx.build, PLUGIN)
    ver = ' '.join(peers.pkg_config(['--modversion', 'libdpdk']) or ['?'])
    ops = []
    if (shutil.which('dpdk-testpmd') and ctx.lcores() == '0-1' and
            os.path.isfile(os.path.join(ctx.top, plugin))):
        ops = [Run(ROW_OPS, 'linerate mempool ops', testpmd_args=[
                   '-d', plugin, '--mbuf-pool-ops-name=linerate']),
               Run(ROW_OPS, f'DPDK {ver} Debian ring_mp_mc', testpmd_args=[
                   '--mbuf-pool-ops-name=ring_mp_mc'])]
    else:
        notes.append(f'mempool ops: not run (needs dpdk-testpmd, {plugin} '
                     'and 2 CPUs)')
    try:
        for r in range(ctx.rounds or comp.rounds):
            for run in todo:
                one(ctx, run, rows, notes, r, log)
        for r in range(ctx.rounds or comp.rounds):
            for run in (ops if r % 2 == 0 else ops[::-1]):
                one(ctx, run, rows, notes, r, log)
    finally:
        for d in glob.glob('/var/run/dpdk/bench_bridge_*'):
            shutil.rmtree(d, ignore_errors=True)
    sides = [run.side or core.Side(run.label,
                                   testpmd_argv(ctx, run.testpmd_args))
             for run in todo + ops]
    for s in sides:
        if s.env.get('LD_LIBRARY_PATH'):
            s.note = (f'{s.label} on the native build: its shared '
                      'libraries by LD_LIBRARY_PATH')
    return rows, sides, notes, {}


COMPARISON = core.Comparison(
    'dpdk_bridge', 'NICs through DPDK\'s drivers (drivers/net/dpdk, the '
    'linerate mempool ops)',
    'The bridge\'s cost: lr-l2fwd over net_dpdk ports (DPDK\'s net_null '
    'under linerate ports) beside lr-l2fwd on linerate\'s net_null, '
    'DPDK\'s l2fwd example and testpmd io on DPDK\'s net_null, and the '
    'floor of any bridge (lr-l2fwd over net_dpdk\'s benchmark-only build, '
    'drivers/plugins/floor, which hands DPDK\'s mbufs over as they are); '
    'the bridge and its floor again on scripts/dpdk-native.sh\'s build '
    '(its shared libraries, when it is the same DPDK version) against '
    'that build\'s l2fwd, the comparison issue 19 sets its goal on; then '
    'testpmd io with its mbuf pool on the "linerate" mempool ops against '
    'ring_mp_mc. 64-byte frames, one forwarding lcore, rounds '
    'alternating. lr-l2fwd and l2fwd: Mpps from their per-second line '
    f'{WARM} to line {WARM + DUR}; testpmd (interactive, lcores 0,1): its '
    f'TX total over {DUR} s after {WARM} s forwarding and a stats clear.',
    measure=measure, rounds=ROUNDS, unit='Mpps', better='higher',
    summary=[ROW_DEB, ROW_NAT, ROW_OPS])
