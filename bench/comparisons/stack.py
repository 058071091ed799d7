# SPDX-License-Identifier: BSD-3-Clause
"""Linux stacks as peers (root): two hosts, namespaces gen (host 0) and
peer (host 1), joined through namespace fwd by a kernel bridge, lr-l2fwd
on net_af_packet, net_af_xdp and net_tap, and DPDK's testpmd io on its
net_af_packet, every interface with its default offloads. For each path
in turn, a round at a time: iperf3 TCP host 1 -> host 0 and pings.
Topology of scripts/netns.sh plus the peer namespace, unique names a run,
removed afterwards."""
import re
import shutil
import subprocess

from harness import core, netns, proc, stats
from comparisons import is_root
from comparisons.veth import TESTPMD, dpdk_label, display_names, fwd_lcore

SECS, PINGS, ROUNDS = 10, 20, 3
PORT = '5210'
NET0, NET1 = '10.79.0', '10.79.1'
TCP = 'iperf3 TCP, host 1 -> host 0'
P50 = 'ping RTT p50'
AVG = 'ping RTT average (ping\'s own)'
UNITS = {TCP: ('Gbit/s', 'higher'), P50: ('us', 'lower'),
         AVG: ('us', 'lower')}
RTT = re.compile(r' time=([0-9.]+) ms')
AVG_LINE = re.compile(r'rtt min/avg/max/mdev = [0-9.]+/([0-9.]+)/')
RECEIVER = re.compile(r'([0-9.]+) Gbits/sec.*receiver')

# Paths, in the order a round runs them: (key, label); DPDK's label is
# filled in at run time.
PATHS = [('bridge', 'Linux bridge'),
         ('lr_af_packet', 'linerate lr-l2fwd net_af_packet'),
         ('lr_af_xdp', 'linerate lr-l2fwd net_af_xdp'),
         ('lr_tap', 'linerate lr-l2fwd net_tap'),
         ('tp_af_packet', 'testpmd io net_af_packet')]


def parse_ping(out):
    """{row: us} of one `ping -c N` run: the median of its replies' RTTs
    (stats.median) and the average ping prints; {} without a reply."""
    rtts = [float(x) * 1000 for x in RTT.findall(out)]
    if not rtts:
        return {}
    figs = {P50: stats.median(rtts)}
    m = AVG_LINE.search(out)
    if m:
        figs[AVG] = float(m.group(1)) * 1000
    return figs


def parse_iperf3(out):
    """Gbit/s of the iperf3 client's receiver line, or None."""
    found = RECEIVER.findall(out)
    return float(found[-1]) if found else None


def label_of(key):
    """The side label of a path."""
    lab = dict(PATHS)[key]
    return dpdk_label(lab) if key.startswith('tp_') else lab


def lr_argv(ctx, n, drv, p0, p1, prefix):
    """lr-l2fwd on two ports of driver drv (ifaces p0, p1) in fwd."""
    return netns.in_netns(n['fwd'], [
        f'{ctx.build}/apps/l2fwd/lr-l2fwd', '--no-huge', '-m', '256', '-l',
        fwd_lcore(), '--file-prefix', n['P'] + prefix,
        '--vdev', f'{drv}0,iface={p0}', '--vdev', f'{drv}1,iface={p1}',
        '--', '-p', '0x3', '--no-mac-updating', '-T', '0'])


def tp_argv(n):
    """testpmd io on DPDK's net_af_packet f0, f1 in fwd, both its lcores on
    lr-l2fwd's CPU; line-buffered so its ready line comes when printed."""
    c = fwd_lcore()
    return netns.in_netns(n['fwd'], [
        'stdbuf', '-oL', TESTPMD, '--file-prefix', n['P'] + 'd',
        '--lcores', f'0@{c},1@{c}', '--no-huge', '-m', '512', '--no-pci',
        '--vdev', f'net_af_packet0,iface={n["f0"]}',
        '--vdev', f'net_af_packet1,iface={n["f1"]}', '--',
        '--forward-mode=io', '-a', '--stats-period', '100',
        '--total-num-mbufs=16384'])


def host(net, ns, dev, addr):
    """An address (/24) on dev in namespace ns, up."""
    net.ip(ns, 'addr', 'add', addr + '/24', 'dev', dev)
    net.ip(ns, 'link', 'set', dev, 'up')


def measure_path(ctx, n, dst, log):
    """iperf3 TCP and pings from host 1 to dst on host 0: {row: figure};
    a figure missing when it did not get through."""
    for _ in range(20):
        # The first reply (ARP resolved, path up), 20 s at most.
        if subprocess.run(netns.in_netns(n['peer'], [
                'ping', '-c', '1', '-W', '1', dst]),
                capture_output=True).returncode == 0:
            break
    p = subprocess.run(netns.in_netns(n['peer'], [
        'ping', '-c', str(PINGS), '-i', '0.2', dst]),
        capture_output=True, text=True)
    figs = parse_ping(p.stdout)
    srv = proc.Background(netns.in_netns(n['gen'], [
        'stdbuf', '-oL', 'iperf3', '-s', '-1', '-B', dst, '-p', PORT]),
        log=log)
    try:
        if srv.wait_for(r'Server listening', timeout=20) is None:
            return figs
        try:
            c = subprocess.run(netns.in_netns(n['peer'], [
                'iperf3', '-c', dst, '-p', PORT, '-t', str(SECS), '-f', 'g',
                '--connect-timeout', '5000']), capture_output=True,
                text=True, timeout=SECS + 30)
            gbits = parse_iperf3(c.stdout)
        except subprocess.TimeoutExpired:
            gbits = None
        if gbits is not None:
            figs[TCP] = gbits
    finally:
        # A server whose client never connected is waiting still.
        srv.kill()
    return figs


def run_path(ctx, net, n, key, log):
    """One path: set it up, measure, take it down: ({row: figure}, why
    not when it could not run)."""
    if key == 'bridge':
        br = n['P'] + 'br'
        net.ip('fwd', 'link', 'add', br, 'type', 'bridge')
        try:
            net.ip('fwd', 'link', 'set', n['f0'], 'master', br)
            net.ip('fwd', 'link', 'set', n['f1'], 'master', br)
            net.ip('fwd', 'link', 'set', br, 'up')
            return measure_path(ctx, n, NET0 + '.1', log), None
        finally:
            net.ip('fwd', 'link', 'del', br)
    if key == 'tp_af_packet':
        argv, ready = tp_argv(n), 'start packet forwarding'
    elif key == 'lr_tap':
        argv, ready = lr_argv(ctx, n, 'net_tap', n['P'] + 't0',
                              n['P'] + 't1', 't'), 'Forwarding on'
    else:
        argv, ready = lr_argv(ctx, n, 'net_' + key[3:], n['f0'], n['f1'],
                              'f'), 'Forwarding on'
    bg = proc.Background(argv, cwd=ctx.top, log=log)
    try:
        if bg.wait_for(ready) is None:
            return {}, f'did not start: {core.last_line(bg.stop()[0])}'
        dst = NET0 + '.1'
        if key == 'lr_tap':
            # The taps, made in fwd, go to the hosts (and die with it).
            t0, t1 = n['P'] + 't0', n['P'] + 't1'
            net.ip('fwd', 'link', 'set', t0, 'netns', n['gen'])
            net.ip('fwd', 'link', 'set', t1, 'netns', n['peer'])
            host(net, 'gen', t0, NET1 + '.1')
            host(net, 'peer', t1, NET1 + '.2')
            dst = NET1 + '.1'
        figs = measure_path(ctx, n, dst, log)
        bg.stop()
        return figs, None
    finally:
        bg.kill()


def measure(ctx, comp, log):
    """ROUNDS rounds, each path in turn; the topology removed in the end."""
    rows, notes = core.Rows(), []
    keys = [k for k, _ in PATHS]
    if not shutil.which(TESTPMD):
        keys.remove('tp_af_packet')
        notes.append('testpmd io: not run (dpdk-testpmd is not installed)')
    net = netns.Netns(ctx.top, netns.unique_prefix('bs'))
    try:
        net.add_ns('peer')
        n = dict(net.names, P=net.prefix)
        net.ip('gen', 'link', 'set', n['g1'], 'netns', n['peer'])
        host(net, 'gen', n['g0'], NET0 + '.1')
        host(net, 'peer', n['g1'], NET0 + '.2')
        for r in range(ctx.rounds or comp.rounds):
            for k in keys:
                figs, why = run_path(ctx, net, n, k, log)
                label = label_of(k)
                if why:
                    notes.append(f'{label} round {r + 1}: {why}')
                    continue
                for row in (TCP, P50):
                    if row not in figs:
                        notes.append(f'{label} round {r + 1}: {row}: did '
                                     'not get through')
                for row in (TCP, P50, AVG):
                    if row in figs:
                        rows.add(row, label, figs[row])
    finally:
        net.destroy()
        netns.remove_dpdk_runtime(net.prefix)
    shown = display_names('bench_stack_')
    sides = [core.Side(label_of('lr_af_packet'),
                       lr_argv(ctx, shown, 'net_af_packet', 'f0', 'f1',
                               'f')),
             core.Side(label_of('lr_af_xdp'),
                       lr_argv(ctx, shown, 'net_af_xdp', 'f0', 'f1', 'f')),
             core.Side(label_of('lr_tap'),
                       lr_argv(ctx, shown, 'net_tap', 't0', 't1', 't'),
                       note='net_tap: t0 and t1 moved to the hosts once '
                            'lr-l2fwd runs'),
             core.Side('Linux bridge', ['ip', '-n', 'fwd', 'link', 'add',
                                        'br', 'type', 'bridge'],
                       note='Linux bridge: f0 and f1 its ports'),
             core.Side(label_of('lr_af_packet'), netns.in_netns('peer', [
                 'iperf3', '-c', NET0 + '.1', '-p', PORT, '-t', str(SECS),
                 '-f', 'g'])),
             core.Side(label_of('lr_af_packet'), netns.in_netns('peer', [
                 'ping', '-c', str(PINGS), '-i', '0.2', NET0 + '.1']))]
    if 'tp_af_packet' in keys:
        sides.insert(3, core.Side(label_of('tp_af_packet'), tp_argv(shown)))
    return rows, sides, notes, {}


COMPARISON = core.Comparison(
    'stack', 'Linux stacks as peers (veth and tap, default offloads)',
    'Two hosts (namespaces gen and peer) joined through namespace fwd by '
    'each path in turn: lr-l2fwd on net_af_packet, on net_af_xdp and on '
    'net_tap (the taps moved to the hosts), DPDK\'s testpmd io on its '
    'net_af_packet (Debian\'s), and a kernel bridge over the same veths, '
    f'every interface with its default offloads (partial checksums, GSO). '
    f'Each round measures every path once: iperf3 TCP host 1 -> host 0 '
    f'for {SECS} s (its receiver line; nothing when TCP does not get '
    'through: DPDK\'s net_af_packet forwards partial checksums as they '
    f'are) and {PINGS} pings 0.2 s apart (the median of their RTTs, and '
    'ping\'s own average beside it); medians over the rounds. Ratios are '
    'to lr-l2fwd on net_af_packet; the summary puts it beside testpmd io '
    'on the same driver. Goals (issue 16): TCP through lr-l2fwd '
    '(af_packet, tap) at least half the bridge\'s, ping RTT within 2x of '
    'the bridge\'s.',
    measure=measure, rounds=ROUNDS,
    unit_of=lambda row: UNITS[row][0], better_of=lambda row: UNITS[row][1],
    summary=[TCP, P50], digits=2, needs=is_root)
