# SPDX-License-Identifier: BSD-3-Clause
"""Over veth pairs between network namespaces (root): lr-pktgen in
namespace gen sends 64-byte frames on g0 and counts what comes back on g1;
a forwarder in namespace fwd takes f0 to f1 (scripts/netns.sh's topology,
unique names a run, removed afterwards):

    gen: lr-pktgen g0 -> g1   <-veth->   fwd: FORWARDER f0 -> f1

- veth: the generator alone (tx only) on each of lr-pktgen's drivers
  beside DPDK's testpmd txonly on its net_af_packet; then each forwarder
  in turn (lr-l2fwd on net_af_packet, its tpacket=v3 ring, net_af_xdp;
  testpmd io on DPDK's net_af_packet and net_af_xdp): maximum, highest
  zero-loss rate (bisection), latency at a low rate.
- veth_afxdp (and veth_afxdp_busy, the forwarder's veths busy-polled):
  forwarders alternated run by run, with their own cost per frame
  (--record-core-cycles) and a zero-loss search.

Every figure goes through core.Rows; a missing one is a note.
"""
import os
import re
import shutil
import subprocess
import time

from harness import core, peers, netns, proc
from comparisons import is_root

# lr-pktgen's closing line, and what an unknown driver makes ethdev say.
TOTAL = re.compile(r'^pktgen total: (.*)$', re.M)
NO_DRIVER = re.compile(r'no driver')
CYCLES = re.compile(r'CPU cycles/packet=([0-9.]+)')
TX_PACKETS = re.compile(r'TX-packets: *([0-9]+)')
TX_TOTAL = re.compile(r'TX-total: *([0-9]+)')
TESTPMD = 'dpdk-testpmd'


def pktgen_total(out):
    """{field: value} of lr-pktgen's last 'pktgen total:' line, {} when
    there is none."""
    found = TOTAL.findall(out)
    figs = {}
    for kv in (found[-1].split() if found else []):
        k, _, v = kv.partition('=')
        try:
            figs[k] = float(v)
        except ValueError:
            pass
    return figs


def last_int(pattern, text):
    """The number pattern's group 1 captures last in text, or None."""
    found = pattern.findall(text)
    return int(found[-1]) if found else None


def forwarder_cycles(out):
    """Cycles per frame a forwarder run with --record-core-cycles prints
    at exit ('CPU cycles/packet=X': lr-l2fwd and testpmd), or None."""
    found = CYCLES.findall(out)
    return float(found[-1]) if found else None


def worker_cpu_seconds(pid):
    """CPU seconds (user + system) of the DPDK worker threads of pid
    (lcore-worker-N, rte-worker-N) from /proc, 0 when none."""
    hz = os.sysconf('SC_CLK_TCK')
    total = 0.0
    tdir = f'/proc/{pid}/task'
    for t in os.listdir(tdir) if os.path.isdir(tdir) else []:
        try:
            with open(f'{tdir}/{t}/comm') as f:
                comm = f.read().strip()
            with open(f'{tdir}/{t}/stat') as f:
                stat = f.read()
        except OSError:
            continue
        if not comm.startswith(('lcore-worker', 'rte-worker')):
            continue
        fields = stat[stat.rindex(')') + 2:].split()
        # utime and stime: fields 14 and 15 of stat, 12 and 13 after comm.
        total += (int(fields[11]) + int(fields[12])) / hz
    return total


def dpdk_label(what):
    """The side label of Debian's dpdk-testpmd doing what."""
    ver = ' '.join(peers.pkg_config(['--modversion', 'libdpdk']) or ['?'])
    return f'DPDK {ver} Debian {what}'.rstrip()


def fwd_lcore():
    """The forwarder's lcore (CPU): 1 when there are two CPUs, else 0."""
    return '1' if (os.cpu_count() or 1) >= 2 else '0'


def display_names(prefix):
    """The names the commands are shown with (the run's own are unique)."""
    names = {k: k for k in ('gen', 'fwd', 'peer', 'g0', 'g1', 'f0', 'f1')}
    names['P'] = prefix
    return names


# ---- veth: generator alone, then each forwarder --------------------------

SECS = 2          # seconds of every lr-pktgen run
LAT_PPS = 10000   # rate of the latency run
BISECT_LO = 20000  # lowest rate of the zero-loss bisection (pps)
BISECT_STEPS = 6

FIGURES = {
    'tx rate': ('Mpps', 'higher'),
    'tx per CPU-second': ('Mpps/CPU-s', 'higher'),
    'max sent': ('Mpps', 'higher'),
    'max forwarded': ('Mpps', 'higher'),
    'loss at max': ('%', 'lower'),
    'zero-loss rate': ('Mpps', 'higher'),
    f'latency p50 at {LAT_PPS} pps': ('us', 'lower'),
    f'latency p99 at {LAT_PPS} pps': ('us', 'lower'),
}
# Forwarders: (kind, driver, extra devargs); kind 'lr' is lr-l2fwd, 'tp'
# DPDK's testpmd io.
FORWARDERS = [('lr', 'net_af_packet', ''),
              ('lr', 'net_af_packet', ',tpacket=v3'),
              ('lr', 'net_af_xdp', ''),
              ('tp', 'net_af_packet', ''),
              ('tp', 'net_af_xdp', '')]


def figure_of(row):
    """The figure a row of veth is ('where: figure')."""
    return row.rpartition(': ')[2]


def veth_gen(ctx, n, drv, args):
    """The lr-pktgen side of veth on driver drv (g0 tx, g1 rx)."""
    return core.Side('linerate', netns.in_netns(n['gen'], [
        f'{ctx.build}/apps/pktgen/lr-pktgen', '--no-huge', '-m', '256',
        '-l', '0', '--file-prefix', n['P'] + 'g',
        '--vdev', f'{drv}0,iface={n["g0"]}',
        '--vdev', f'{drv}1,iface={n["g1"]}', '--', '--tx-ports', '0',
        '--rx-ports', '1', '--quiet'] + [str(a) for a in args]))


def veth_fwd(ctx, n, fwd):
    """(argv, readiness pattern) of a forwarder of FORWARDERS in fwd."""
    kind, drv, extra = fwd
    if kind == 'lr':
        return netns.in_netns(n['fwd'], [
            f'{ctx.build}/apps/l2fwd/lr-l2fwd', '--no-huge', '-m', '256',
            '-l', fwd_lcore(), '--file-prefix', n['P'] + 'f',
            '--vdev', f'{drv}0,iface={n["f0"]}{extra}',
            '--vdev', f'{drv}1,iface={n["f1"]}{extra}', '--', '-p', '0x3',
            '-T', '0', '--duration', '600']), 'Forwarding on'
    c = fwd_lcore()
    return netns.in_netns(n['fwd'], [
        'stdbuf', '-oL', TESTPMD, '--no-huge', '-m', '512', '--lcores',
        f'0@{c},1@{c}', '--no-pci', '--file-prefix', n['P'] + 't',
        '--vdev', f'{drv}0,iface={n["f0"]}',
        '--vdev', f'{drv}1,iface={n["f1"]}', '--', '--forward-mode=io',
        '--total-num-mbufs=16384', '-a', '--stats-period', '1']), \
        'start packet forwarding'


def veth_txonly(n):
    """argv of testpmd txonly on DPDK's net_af_packet on g0."""
    return netns.in_netns(n['gen'], [
        'stdbuf', '-oL', TESTPMD, '--no-huge', '-m', '512', '-l', '0,1',
        '--no-pci', '--file-prefix', n['P'] + 't',
        '--vdev', f'net_af_packet0,iface={n["g0"]}', '--',
        '--forward-mode=txonly', '--total-num-mbufs=16384',
        '--stats-period', '1', '-a'])


def fwd_title(fwd):
    """Where a forwarder's rows go: its driver and devargs."""
    return f'through the forwarder on {fwd[1]}{fwd[2]}'


def txonly_rate(out, start_count, seconds):
    """Mpps of testpmd txonly: its TX total at exit less its TX-packets
    counter at the first stats block, over the seconds between them; None
    without a total."""
    total = last_int(TX_TOTAL, out)
    if total is None or start_count is None or seconds <= 0:
        return None
    return (total - start_count) / seconds / 1e6


def run_txonly(ctx, n, log):
    """testpmd txonly alone for SECS after its first stats block: (output,
    Mpps, Mpps per CPU-second of its worker), figures None when missing."""
    bg = proc.Background(veth_txonly(n), cwd=ctx.top, log=log)
    try:
        m = bg.wait_for(r'Tx-pps', timeout=20)
        if m is None:
            out, _ = bg.stop()
            return out, None, None
        t0 = time.monotonic()
        n0 = last_int(TX_PACKETS, bg.text()[:m.start()])
        time.sleep(SECS)   # the measured window, not a wait for readiness
        cpu = worker_cpu_seconds(bg.pid)
        t1 = time.monotonic()
        out, _ = bg.stop()
    finally:
        bg.kill()
    total = last_int(TX_TOTAL, out)
    per_cpu = total / cpu / 1e6 if total and cpu > 0 else None
    return out, txonly_rate(out, n0, t1 - t0), per_cpu


def zero_loss_bisect(paced, sent_mpps):
    """The highest paced rate (achieved Mpps) with every frame back:
    paced(pps) -> (achieved Mpps, frames lost); a bisection between
    BISECT_LO and the unpaced sending rate, BISECT_STEPS at most, ended
    when the interval is under 5% of its top; 0 when BISECT_LO loses."""
    lo, hi = BISECT_LO, int(sent_mpps * 1e6)
    got, lost = paced(lo)
    if lost != 0:
        return 0.0
    best = got
    for _ in range(BISECT_STEPS):
        mid = (lo + hi) // 2
        got, lost = paced(mid)
        if lost == 0:
            lo, best = mid, got
        else:
            hi = mid
        if hi - lo < hi // 20:
            break
    return best


def veth_forwarder(ctx, n, fwd, gd, label, rows, notes, log):
    """Start a forwarder, measure it with lr-pktgen on driver gd (max,
    latency, zero-loss bisection), stop it; figures to rows."""
    argv, ready = veth_fwd(ctx, n, fwd)
    where = fwd_title(fwd)
    bg = proc.Background(argv, cwd=ctx.top, log=log)
    try:
        if bg.wait_for(ready) is None:
            out, rc = bg.stop()
            notes.append(f'{label} {where}: did not start: '
                         f'{core.last_line(out)}')
            return

        def gen(args):
            """One lr-pktgen run: its closing figures."""
            out, _ = ctx.run(veth_gen(ctx, n, gd, args), log)
            return pktgen_total(out)
        mx = gen(['--duration', SECS, '--drain-ms', '500'])
        if 'tx_mpps' not in mx:
            notes.append(f'{label} {where}: no figure from lr-pktgen')
            return
        rows.add(f'{where}: max sent', label, mx['tx_mpps'])
        rows.add(f'{where}: max forwarded', label, mx['rx_mpps'])
        if mx['tx'] > 0:
            rows.add(f'{where}: loss at max', label,
                     100 * mx['lost'] / mx['tx'])
        lat = gen(['--rate-pps', LAT_PPS, '--duration', SECS,
                   '--drain-ms', '500'])
        for q in ('p50', 'p99'):
            if f'lat_{q}_us' in lat:
                rows.add(f'{where}: latency {q} at {LAT_PPS} pps', label,
                         lat[f'lat_{q}_us'])

        def paced(pps):
            """A paced run: (achieved Mpps, frames lost; -1 if unknown)."""
            f = gen(['--rate-pps', pps, '--duration', SECS,
                     '--drain-ms', '500'])
            return f.get('tx_mpps', 0.0), f.get('lost', -1)
        rows.add(f'{where}: zero-loss rate', label,
                 zero_loss_bisect(paced, mx['tx_mpps']))
        bg.stop()
    finally:
        bg.kill()


def gen_alone(ctx, n, d, label, rows, notes, log):
    """lr-pktgen of ctx's build alone (tx only) on driver d: its rate and
    its frames per CPU-second into rows under label."""
    out, _ = ctx.run(veth_gen(ctx, n, d, ['--tx-only', '--duration', SECS]),
                     log)
    f = pktgen_total(out)
    if 'tx_mpps' not in f:
        notes.append(f'{label} lr-pktgen alone on {d}: no figure: '
                     f'{core.last_line(out)}')
        return
    rows.add(f'generator alone on {d}: tx rate', label, f['tx_mpps'])
    if f.get('cpu_s', 0) > 0:
        rows.add(f'generator alone on {d}: tx per CPU-second', label,
                 f['tx'] / f['cpu_s'] / 1e6)


def veth_drivers(ctx, n, notes, log):
    """The drivers of ('net_af_packet', 'net_af_xdp') every linerate build's
    lr-pktgen has (a note for each one some build lacks)."""
    drivers = []
    for d in ('net_af_packet', 'net_af_xdp'):
        lacking = []
        for b in ctx.linerate():
            out, _ = ctx.run(veth_gen(ctx.at(b), n, d, ['--count', '1',
                                                         '--tx-only']), log)
            if NO_DRIVER.search(out):
                lacking.append(b.label)
        if lacking and not ctx.against:
            notes.append(f'{d}: not in this build of lr-pktgen')
        elif lacking:
            notes.append(f'{d}: not in the lr-pktgen of '
                         f'{", ".join(lacking)}: its rows not run')
        else:
            drivers.append(d)
    return drivers


def measure_veth(ctx, comp, log):
    """The generator alone on each driver and testpmd txonly, then each
    forwarder, a round at a time; the topology removed in the end. With
    --against each linerate run once per build, this tree's first."""
    rows, notes = core.Rows(), []
    net = netns.Netns(ctx.top, netns.unique_prefix('bv'))
    n = dict(net.names, P=net.prefix)
    shown = display_names('bench_veth_')
    testpmd = shutil.which(TESTPMD) if ctx.dpdk else None
    dlabel = dpdk_label('testpmd')
    builds = ctx.linerate()
    try:
        drivers = veth_drivers(ctx, n, notes, log)
        gd = 'net_af_xdp' if 'net_af_xdp' in drivers else 'net_af_packet'
        fwds = [f for f in FORWARDERS if f[1] in drivers or f[0] == 'tp']
        if not testpmd:
            notes.append('DPDK testpmd rows: not run (' +
                         ('dpdk-testpmd is not installed)' if ctx.dpdk else
                          'DPDK peers are not run with --against)'))
            fwds = [f for f in fwds if f[0] == 'lr']
        for _ in range(ctx.rounds or comp.rounds):
            for d in drivers:
                for b in builds:
                    gen_alone(ctx.at(b), n, d, b.label, rows, notes, log)
            if testpmd:
                out, rate, per_cpu = run_txonly(ctx, n, log)
                where = 'generator alone on net_af_packet'
                if rate is None:
                    notes.append(f'testpmd txonly: no figure: '
                                 f'{core.last_line(out)}')
                else:
                    rows.add(f'{where}: tx rate', dlabel, rate)
                if per_cpu is not None:
                    rows.add(f'{where}: tx per CPU-second', dlabel, per_cpu)
            for fwd in fwds:
                for b in (builds if fwd[0] == 'lr' else [None]):
                    c, label = (ctx.at(b), b.label) if b else (ctx, dlabel)
                    veth_forwarder(c, n, fwd, gd, label, rows, notes, log)
    finally:
        net.destroy()
        netns.remove_dpdk_runtime(net.prefix)
    return rows, veth_sides(ctx, shown, gd, fwds, testpmd, dlabel), notes, {}


def veth_sides(ctx, shown, gd, fwds, testpmd, dlabel):
    """The commands the section shows: each build's generator and
    forwarders (with the names of scripts/netns.sh's topology), testpmd's
    forwarders and txonly."""
    sides = []
    for b in ctx.linerate():
        sides.append(core.Side(b.label, veth_gen(
            ctx.at(b), shown, gd, ['--duration', SECS, '--drain-ms',
                                   '500']).argv))
        sides += [core.Side(b.label, veth_fwd(ctx.at(b), shown, f)[0])
                  for f in fwds if f[0] == 'lr']
    sides[0].note = (f'generator lr-pktgen on {gd}, lcore 0; forwarders '
                     f'on lcore {fwd_lcore()}; commands shown with the '
                     'names of scripts/netns.sh\'s topology')
    sides += [core.Side(dlabel, veth_fwd(ctx, shown, f)[0])
              for f in fwds if f[0] == 'tp']
    if testpmd:
        sides.append(core.Side(dlabel, veth_txonly(shown)))
    return sides


VETH = core.Comparison(
    'veth', 'Over veth pairs between network namespaces',
    'lr-pktgen (namespace gen, 64-byte frames) sends on veth g0 and '
    'receives on g1; forwarders in namespace fwd take f0 to f1 '
    '(scripts/netns.sh\'s topology). First the generator alone (tx only, '
    f'{SECS} s) on each of lr-pktgen\'s drivers, beside DPDK testpmd '
    'txonly on its net_af_packet (its TX total over the time after its '
    'first stats block) and the frames per second of CPU the generating '
    'thread got. Then each forwarder in turn (lr-l2fwd on net_af_packet, '
    'on net_af_packet,tpacket=v3 and on net_af_xdp; testpmd io on DPDK\'s '
    'net_af_packet and net_af_xdp) with lr-pktgen on net_af_xdp: the '
    'maximum (unpaced: sent, and back on g1), the highest paced rate with '
    f'every frame back (bisection from {BISECT_LO} pps, {SECS} s runs) '
    f'and the latency at {LAT_PPS} frames/s (p50, p99: the generator\'s '
    'own paths and the veths included, the same for every row). Every '
    'figure is bound by the generator\'s CPU, where the kernel does the '
    'forwarder\'s receive work too (see veth_afxdp_busy). linerate: '
    'lr-pktgen or lr-l2fwd; DPDK: Debian\'s testpmd on the same driver; '
    'medians over the rounds.',
    measure=measure_veth, rounds=1, unit='Mpps', better='higher',
    unit_of=lambda row: FIGURES[figure_of(row)][0],
    better_of=lambda row: FIGURES[figure_of(row)][1], digits=3,
    needs=is_root, against=True)


# ---- veth_afxdp: forwarders alternated, their cost per frame -------------

AFXDP = {'runs': 5, 'dur': 4, 'rate': 50000, 'zl_steps': 5, 'zl_secs': 2,
         'gro_flush': 200000, 'lr_shared': 1}
# Forwarder kinds: label (DPDK's filled in at run time), and whether it is
# lr-l2fwd.
KINDS = {'lr_af_xdp': 'linerate lr-l2fwd net_af_xdp',
         'lr_af_packet': 'linerate lr-l2fwd net_af_packet',
         'dpdk_af_xdp': 'testpmd io net_af_xdp'}


def afxdp_rows(rate):
    """{row: (unit, better)} of a veth_afxdp entry."""
    return {'frames back, unpaced': ('Mpps', 'higher'),
            'generator sending, unpaced': ('Mpps', 'higher'),
            'forwarder cycles per frame (busy polls, unpaced run)':
                ('cycles', 'lower'),
            f'frames lost, paced at {rate} pps': ('frames', 'lower'),
            'zero-loss rate': ('Mpps', 'higher')}


def afxdp_label(kind):
    """The side label of a forwarder kind."""
    return dpdk_label(KINDS[kind]) if kind.startswith('dpdk') \
        else KINDS[kind]


def afxdp_gen(ctx, n, args):
    """The lr-pktgen side on net_af_xdp (g0 tx, g1 rx), lcore 0."""
    return core.Side('linerate', netns.in_netns(n['gen'], [
        f'{ctx.build}/apps/pktgen/lr-pktgen', '--no-huge', '-m', '128',
        '-l', '0', '--file-prefix', n['P'] + 'g',
        '--vdev', f'net_af_xdp0,iface={n["g0"]}',
        '--vdev', f'net_af_xdp1,iface={n["g1"]}', '--', '--tx-ports', '0',
        '--rx-ports', '1', '--quiet'] + [str(a) for a in args]))


def dpdk_mem(ctx):
    """EAL memory of DPDK's net_af_xdp (its mbuf pool wants hugepages)."""
    if ctx.free_hugepages() >= 100:
        return ['-m', '160']
    return ['--no-huge', '-m', '256']


def afxdp_fwd(ctx, n, kind, lr_busy):
    """(argv, readiness pattern) of forwarder kind in namespace fwd."""
    c = fwd_lcore()
    if kind.startswith('lr_'):
        drv = 'net_' + kind[3:]
        extra = (f',busy_budget={lr_busy},shared_umem={AFXDP["lr_shared"]}'
                 if kind == 'lr_af_xdp' else '')
        return netns.in_netns(n['fwd'], [
            f'{ctx.build}/apps/l2fwd/lr-l2fwd', '--no-huge', '-m', '128',
            '-l', c, '--file-prefix', n['P'] + 'f',
            '--vdev', f'{drv}0,iface={n["f0"]}{extra}',
            '--vdev', f'{drv}1,iface={n["f1"]}{extra}', '--', '-p', '0x3',
            '-T', '0', '--no-mac-updating', '--record-core-cycles']), \
            'Forwarding on'
    return netns.in_netns(n['fwd'], [
        'stdbuf', '-oL', TESTPMD, '-l', f'0,{c}'] + dpdk_mem(ctx) + [
        '--file-prefix', n['P'] + 'd', '--log-level=*:error', '--no-pci',
        '--vdev', f'net_af_xdp0,iface={n["f0"]}',
        '--vdev', f'net_af_xdp1,iface={n["f1"]}', '--',
        '--forward-mode=io', '--auto-start', '--stats-period', '1',
        '--record-core-cycles', '--nb-cores', '1']), 'forwards packets on'


def zero_loss_search(paced, rate, sent_mpps, steps):
    """The highest paced rate (Mpps back) with every frame back, RFC 2544
    throughput: paced(pps) -> (Mpps back, frames lost); step 0 at rate,
    then steps halvings towards the unpaced sending rate; 0 if rate
    itself loses."""
    lo, hi, best = rate, int(sent_mpps * 1e6), 0.0
    if hi <= lo:
        return 0.0
    for i in range(steps + 1):
        mid = lo if i == 0 else (lo + hi) // 2
        got, lost = paced(mid)
        if lost == 0:
            lo, best = mid, got
        elif i == 0:
            break
        else:
            hi = mid
    return best


def set_busy_polling(net, napi_defer):
    """napi_defer_hard_irqs and gro_flush_timeout on the forwarder's
    veths (f0, f1), written in its namespace."""
    for dev in ('f0', 'f1'):
        d = f'/sys/class/net/{net.names[dev]}'
        sh = (f'echo {napi_defer} >{d}/napi_defer_hard_irqs && '
              f'echo {AFXDP["gro_flush"]} >{d}/gro_flush_timeout')
        subprocess.run(netns.in_netns(net.names['fwd'], ['sh', '-c', sh]),
                       check=True)


def afxdp_one(ctx, n, kind, lr_busy, rows, notes, log):
    """One run of forwarder kind: a forwarder for the unpaced run (its
    cycles), a fresh one for the paced runs; figures to rows."""
    a = AFXDP
    label = afxdp_label(kind)
    rate = a['rate']

    def gen(args):
        """One lr-pktgen run: its closing figures."""
        out, _ = ctx.run(afxdp_gen(ctx, n, args), log)
        return pktgen_total(out)

    def with_fwd(work):
        """Start the forwarder, run work(), stop it: (work's result,
        forwarder output), (None, output) when it did not start."""
        argv, ready = afxdp_fwd(ctx, n, kind, lr_busy)
        bg = proc.Background(argv, cwd=ctx.top, log=log)
        try:
            if bg.wait_for(ready) is None:
                out, _ = bg.stop()
                notes.append(f'{label}: forwarder did not start: '
                             f'{core.last_line(out)}')
                return None, out
            res = work()
            return res, bg.stop()[0]
        finally:
            bg.kill()

    mx, fout = with_fwd(lambda: gen(['--duration', a['dur']]))
    if mx is None:
        return
    if 'rx_own' not in mx:
        notes.append(f'{label}: no figure from lr-pktgen (unpaced run)')
        return
    rows.add('frames back, unpaced', label, mx['rx_own'] / a['dur'] / 1e6)
    rows.add('generator sending, unpaced', label, mx['tx_mpps'])
    cyc = forwarder_cycles(fout)
    if cyc is None:
        notes.append(f'{label}: no CPU cycles/packet line at its exit')
    else:
        rows.add('forwarder cycles per frame (busy polls, unpaced run)',
                 label, cyc)

    def paced(pps):
        """A paced run of zl_secs: (Mpps back, frames lost; -1 unknown)."""
        f = gen(['--duration', a['zl_secs'], '--rate-pps', pps,
                 '--drain-ms', '300'])
        return (f.get('rx_own', 0.0) / a['zl_secs'] / 1e6,
                f.get('lost', -1))

    def paced_runs():
        """The check at rate, then the zero-loss search."""
        zl = gen(['--duration', a['dur'], '--rate-pps', rate,
                  '--drain-ms', '500'])
        return zl, zero_loss_search(paced, rate, mx['tx_mpps'],
                                    a['zl_steps'])
    res, _ = with_fwd(paced_runs)
    if res is None:
        return
    zl, best = res
    if 'lost' in zl:
        rows.add(f'frames lost, paced at {rate} pps', label, zl['lost'])
    rows.add('zero-loss rate', label, best)


def afxdp_measure(napi_defer, kinds):
    """measure() of a veth_afxdp entry: runs of every kind alternating."""
    def measure(ctx, comp, log):
        """Topology, busy-polling settings, runs; removed in the end."""
        lr_busy = 64 if napi_defer > 0 else 0
        rows, notes = core.Rows(), []
        ks = [k for k in kinds
              if not k.startswith('dpdk') or shutil.which(TESTPMD)]
        if len(ks) < len(kinds):
            notes.append('DPDK testpmd: not run (dpdk-testpmd is not '
                         'installed)')
        net = netns.Netns(ctx.top, netns.unique_prefix('bx'))
        n = dict(net.names, P=net.prefix)
        try:
            set_busy_polling(net, napi_defer)
            for _ in range(ctx.rounds or comp.rounds):
                for k in ks:
                    afxdp_one(ctx, n, k, lr_busy, rows, notes, log)
        finally:
            net.destroy()
            netns.remove_dpdk_runtime(net.prefix)
        shown = display_names('bench_vx_')
        sides = [core.Side(afxdp_label(k), afxdp_fwd(ctx, shown, k,
                                                     lr_busy)[0])
                 for k in ks]
        gen = afxdp_gen(ctx, shown, ['--duration', AFXDP['dur']])
        gen.label = sides[0].label
        gen.note = (f'generator lr-pktgen on net_af_xdp, lcore 0; '
                    f'forwarder on lcore {fwd_lcore()}; lr-l2fwd '
                    f'busy_budget {lr_busy}, shared_umem '
                    f'{AFXDP["lr_shared"]}; commands shown with the names '
                    'of scripts/netns.sh\'s topology')
        return rows, [gen] + sides, notes, {}
    return measure


def afxdp_text(napi_defer, kinds):
    """The text of a veth_afxdp entry."""
    a = AFXDP
    names = ', '.join(KINDS[k].replace('linerate ', '') for k in kinds)
    topo = ('The kernel runs the forwarder\'s receive (veth NAPI, XDP, the '
            'copy into the UMEM) on the sender\'s CPU, the generator\'s: '
            'that CPU caps every forwarder alike.' if not napi_defer else
            f'The forwarder\'s veths are set for busy polling '
            f'(napi_defer_hard_irqs {napi_defer}, gro_flush_timeout '
            f'{a["gro_flush"] // 1000} us, as DPDK\'s AF_XDP guide gives), '
            'so its receive work leaves the generator\'s CPU; lr-l2fwd '
            'busy_budget=64 as DPDK\'s default.')
    return (f'Forwarders over the same veth topology, alternated run by '
            f'run ({names}; DPDK: Debian\'s testpmd), lr-pktgen on '
            f'net_af_xdp sending 64-byte frames on g0 and counting them back '
            f'on g1. A run: frames back per second over an unpaced '
            f'{a["dur"]} s run; the forwarder\'s TSC cycles per frame of its '
            'polls that received (--record-core-cycles, the same option '
            'for both, over the unpaced run alone); then a fresh forwarder '
            f'for a {a["dur"]} s run paced at {a["rate"]} pps (frames lost) '
            f'and a zero-loss search ({a["zl_steps"]} paced {a["zl_secs"]} s '
            f'runs bisecting from {a["rate"]} pps up to the unpaced sending '
            'rate). ' + topo + ' Medians over the runs.')


def afxdp_entry(name, title, napi_defer, kinds):
    """A veth_afxdp Comparison."""
    units = afxdp_rows(AFXDP['rate'])
    return core.Comparison(
        name, title, afxdp_text(napi_defer, kinds),
        measure=afxdp_measure(napi_defer, kinds), rounds=AFXDP['runs'],
        unit_of=lambda row: units[row][0],
        better_of=lambda row: units[row][1], needs=is_root)


AFXDP_PLAIN = afxdp_entry(
    'veth_afxdp', 'Forwarders over veth: af_xdp, af_packet and DPDK', 0,
    ['lr_af_xdp', 'lr_af_packet', 'dpdk_af_xdp'])
AFXDP_BUSY = afxdp_entry(
    'veth_afxdp_busy', 'Forwarders over veth, busy polling: af_xdp and DPDK',
    2, ['lr_af_xdp', 'dpdk_af_xdp'])
