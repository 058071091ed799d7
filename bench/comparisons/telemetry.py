# SPDX-License-Identifier: BSD-3-Clause
"""What telemetry costs the datapath (issue 38): lr-l2fwd on two net_null
ports (64-byte packets, copy=0, one lcore) with the telemetry server off
(--no-telemetry) and on while a client asks it /ethdev/stats,0 every
100 ms, alternating, ROUNDS rounds; a run's rate as the l2fwd entry takes
it (the window of its per-second lines).

The client is this module's own (a SOCK_SEQPACKET socket, as DPDK's
dpdk-telemetry.py opens one): it finds the socket where DPDK's clients
look for the prefix, reads the greeting, then sends one request every
100 ms for as long as lr-l2fwd runs, checking that every reply is JSON
holding the command; the replies it got are counted in a note."""
import json
import os
import socket
import threading
import time

from harness import core, proc
from . import l2fwd

ROUNDS = 5
WARM, DUR = l2fwd.WARM, l2fwd.DUR
PREFIX = 'bench_telemetry'
PERIOD_S = 0.1
REQUEST = '/ethdev/stats,0'
ROW = 'lr-l2fwd, 2 x net_null, one lcore'


def socket_path(prefix):
    """Where DPDK's clients look for the telemetry socket of prefix."""
    if os.geteuid() == 0:
        base = '/var/run/dpdk'
    else:
        base = os.path.join(os.environ.get('XDG_RUNTIME_DIR', '/tmp'),
                            'dpdk')
    return os.path.join(base, prefix, 'dpdk_telemetry.v2')


class Poller(threading.Thread):
    """Asks REQUEST every PERIOD_S until stopped; counts good replies and
    keeps the first error."""

    def __init__(self, path, deadline_s=30):
        super().__init__(daemon=True)
        self.path = path
        self.deadline = time.monotonic() + deadline_s
        self.stop = threading.Event()
        self.replies = 0
        self.error = None

    def connect(self):
        """A connected socket once the server answers, or None."""
        while not self.stop.is_set() and time.monotonic() < self.deadline:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            try:
                s.connect(self.path)
                return s
            except OSError:
                s.close()
                time.sleep(0.05)
        self.error = f'no telemetry socket answered at {self.path}'
        return None

    def run(self):
        """The polling loop."""
        s = self.connect()
        if s is None:
            return
        try:
            s.settimeout(5)
            json.loads(s.recv(65536))
            tick = time.monotonic()
            while not self.stop.is_set():
                s.send(REQUEST.encode())
                reply = s.recv(65536)
                if not reply:
                    break
                if REQUEST.split(',')[0] not in json.loads(reply):
                    self.error = f'reply without the command: {reply[:80]}'
                    break
                self.replies += 1
                tick += PERIOD_S
                self.stop.wait(max(0.0, tick - time.monotonic()))
        except (OSError, ValueError) as e:
            if not self.stop.is_set():
                self.error = f'telemetry client: {e}'
        finally:
            s.close()


def side(ctx, label, extra_eal=()):
    """An lr-l2fwd run on the two net_null ports."""
    return core.Side(label, [f'{ctx.build}/apps/l2fwd/lr-l2fwd', '-l', '0']
                     + ctx.mem_args(256, 192) + [f'--file-prefix={PREFIX}']
                     + list(extra_eal) + l2fwd.NULLS +
                     ['--', '-p', '0x3', '-T', '1', '--duration',
                      str(WARM + DUR + 1)], timeout=WARM + DUR + 30)


def parse(out):
    """{ROW: Mpps} of one run (the l2fwd entry's window)."""
    r = core.window_rate(out, l2fwd.SENT, WARM, DUR)
    return {} if r is None else {ROW: r}


def measure(ctx, comp, log):
    """Both sides in alternating rounds; the polled side runs a Poller."""
    notes, polled = [], []

    def run_polled(ctx, s, log):
        """lr-l2fwd to its end with a Poller beside it."""
        p = Poller(socket_path(PREFIX))
        p.start()
        try:
            out, rc = ctx.run(s, log)
        finally:
            p.stop.set()
            p.join(10)
        if p.error:
            notes.append(p.error)
            rc = rc or 1
        polled.append(p.replies)
        return out, rc

    # The reference is not a peer: its label keeps it out of the summary's
    # linerate column, which shows the polled run.
    off = side(ctx, 'reference: lr-l2fwd --no-telemetry', ['--no-telemetry'])
    on = side(ctx, 'linerate, telemetry polled every 100 ms')
    # The polled run first: its column is the one measured, the ratio
    # polled/off the cost (1.00: none).
    todo = [('on', on, parse, run_polled),
            ('off', off, parse, core.Context.run)]
    rows, first = core.Rows(), {}
    proc.alternate(ctx, todo, ctx.rounds or comp.rounds, rows, notes, first,
                   log)
    if polled:
        notes.append('replies to the client a run: ' +
                     ', '.join(map(str, polled)))
    return rows, [on, off], notes, first


COMPARISON = core.Comparison(
    'telemetry', 'Telemetry cost (lr-l2fwd)',
    'lr-l2fwd on two net_null ports (size=64, copy=0), one forwarding '
    'lcore, with telemetry off (--no-telemetry) and on while a client asks '
    f'{REQUEST} every 100 ms over the DPDK telemetry socket, {ROUNDS} '
    'rounds alternating; a run\'s rate: Mpps forwarded from its per-second '
    f'line {WARM} to line {WARM + DUR}. Target: the polled run within 1% '
    'of the run without telemetry (ratio at least 0.99).',
    measure=measure, rounds=ROUNDS, unit='Mpps', better='higher',
    summary=[ROW])
