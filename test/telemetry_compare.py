#!/usr/bin/env python3
# telemetry_compare.py DPDK_SOCKET LINERATE_SOCKET: the same requests to a
# DPDK 22.11 program's telemetry socket and a linerate program's, both on
# two net_null ports (test_telemetry_dpdk.sh). The greeting (but version
# and pid), /help, unknown, oversized, malformed and failed requests and the
# link status must be the same bytes; /info, /ethdev/info, /ethdev/stats
# and /mempool/info the same keys in the same order, arrays of the same
# length. Exit 0 alike, else the first difference on stderr.
import json
import re
import socket
import sys
import time


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(30)
    s.connect(path)
    return s, s.recv(16384)


def shape(v):
    """Keys in order, arrays by length: what must match across programs."""
    if isinstance(v, dict):
        return [(k, shape(x)) for k, x in v.items()]
    if isinstance(v, list):
        return ["array", len(v)]
    return type(v).__name__


def wait_started(path):
    """Until port 1 answers started (testpmd's output is buffered: no line
    to wait for); a bound only a hang reaches."""
    end = time.monotonic() + 120
    while time.monotonic() < end:
        try:
            s, _ = connect(path)
            s.send(b"/ethdev/info,1")
            r = json.loads(s.recv(16384))["/ethdev/info"]
            s.close()
            if r is not None and r["dev_started"] == 1:
                return
        except (OSError, ValueError):
            pass
        time.sleep(0.1)
    sys.exit("%s: port 1 not started" % path)


wait_started(sys.argv[1])
wait_started(sys.argv[2])
(d, dg), (l, lg) = connect(sys.argv[1]), connect(sys.argv[2])


def norm(g):
    return re.sub(rb'"version":"[^"]*","pid":[0-9]+', b"V", g)


if not norm(dg) == norm(lg) == b'{V,"max_output_len":16384}':
    sys.exit("greetings differ: %r %r" % (dg, lg))


def ask(req, req2=None):
    d.send(req)
    l.send(req2 or req)
    return d.recv(16384), l.recv(16384)


SAME = [b"/help", b"/help,/ethdev/stats", b"/help,/ethdev/info",
        b"/help,/ethdev/xstats", b"/help,/ethdev/link_status",
        b"/help,/ethdev/list", b"/help,/mempool/info",
        b"/help,/mempool/list", b"/help,/info", b"/help,/",
        b"/help,/eal/params", b"/help,/eal/app_params", b"/help,/nope",
        b"/help,", b"/help,/info,x", b"/nope", b"/nope,1", b",,,",
        b"x" * 70, b"/" + b"a" * 2000, b"/ethdev/list", b"/ethdev/stats,x",
        b"/ethdev/info,9", b"/ethdev/xstats,", b"/ethdev/link_status,0",
        b"/ethdev/link_status,1", b"/mempool/info", b"/mempool/info,nope"]
for req in SAME:
    a, b = ask(req)
    if a != b:
        sys.exit("%r: DPDK %r, linerate %r" % (req[:60], a, b))
pools = [json.loads(x)["/mempool/list"][0] for x in ask(b"/mempool/list")]
SHAPE = [(b"/info", None), (b"/ethdev/info,0", None),
         (b"/ethdev/stats,1", None), (b"/ethdev/info,1", None),
         (b"/mempool/info," + pools[0].encode(),
          b"/mempool/info," + pools[1].encode())]
for req, req2 in SHAPE:
    a, b = [json.loads(x) for x in ask(req, req2)]
    if shape(a) != shape(b):
        sys.exit("%r: DPDK %s, linerate %s" % (req, a, b))
print("%d requests the same bytes, %d the same keys in the same order"
      % (len(SAME), len(SHAPE)))
