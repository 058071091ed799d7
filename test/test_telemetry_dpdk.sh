#!/usr/bin/env bash
# DPDK's own telemetry client against linerate programs (driver suite):
#
#   test_telemetry_dpdk.sh L2FWD PKTGEN PKTGEN_CTL
#
# DPDK's dpdk-telemetry.py -f PREFIX (Debian's dpdk package) finds a
# running program through the link at DPDK's path and is fed the commands
# on stdin; every reply must parse as JSON (python3's json), be keyed by
# its command and not be null.
# l2fwd: lr-l2fwd forwarding between two net_null ports. Its ports count
#   while it runs, so what can be exact is: within one reply (the queue
#   counters sum to the port's; bytes in whole 64-byte frames: packets and
#   bytes are two counters the lcore adds to in turn, read in turn, not one
#   snapshot), between replies (a later read never less), and against the
#   program's own final per-port counters (printed by --xstats after its
#   loops stopped): never more than them, and those exact (bytes = 64 x
#   packets).
# pktgen: lr-pktgen sending on one net_null port under its control
#   socket (--idle --ctl): started, then stopped; once stopped its port no
#   longer counts, so /ethdev/stats must equal exactly the tx and tx_bytes
#   of its final JSON; /eal/lcore/info shows busy cycles of the sending
#   lcore.
# testpmd: DPDK 22.11's dpdk-testpmd (--in-memory) and lr-l2fwd, each on
#   two net_null ports, get the same requests (telemetry_compare.py): the
#   greeting (but version and pid), /help, unknown, oversized, malformed
#   and failed requests and the link status the same bytes; /info,
#   /ethdev/info, /ethdev/stats and /mempool/info the same keys in the same
#   order. Left out, saying why, without dpdk-testpmd or root, or when
#   testpmd cannot start here.
# Each run has its own --file-prefix (lr-l2fwd: ordinary memory); waits
# are for a line or a condition, never a fixed time. Exit 0 passed, 1
# failed, 77 skipped (no dpdk-telemetry.py or python3).
set -u
l2fwd=${1:?usage: test_telemetry_dpdk.sh L2FWD PKTGEN PKTGEN_CTL}
pktgen=${2:?PKTGEN}
pgctl=${3:?PKTGEN_CTL}
. "$(dirname "$0")/lr_test.sh"

client=/usr/bin/dpdk-telemetry.py
[ -x "$client" ] || skip "$client absent (Debian: apt-get install dpdk)"
command -v python3 >/dev/null || skip "python3 absent"
[ -x "$l2fwd" ] || skip "lr-l2fwd not built"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lr-tel-dpdk.XXXXXX")
BG=
TP=
TP_PREFIX=
cleanup() {
	[ -n "$BG" ] && kill -KILL "$BG" 2>/dev/null && wait "$BG" 2>/dev/null
	[ -n "$TP" ] && kill -KILL "$TP" 2>/dev/null && wait "$TP" 2>/dev/null
	[ -n "$TP_PREFIX" ] && rm -rf "/var/run/dpdk/$TP_PREFIX"
	rm -rf "$tmp"
}
lr_cleanup_traps cleanup

# ask PREFIX OUT CMD...: the commands through dpdk-telemetry.py, one
# reply a line in OUT; then each checked (JSON, keyed by its command, not
# null). 0 or 1 after a message.
ask() {
	local prefix=$1 out=$2
	shift 2
	printf '%s\n' "$@" | python3 "$client" -f "$prefix" >"$out" 2>&1
	python3 - "$out" "$@" <<'EOF'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
cmds = sys.argv[2:]
if len(lines) != len(cmds):
    sys.exit("%d replies to %d commands:\n%s" % (len(lines), len(cmds),
                                                 "\n".join(lines)))
for c, l in zip(cmds, lines):
    try:
        r = json.loads(l)
    except ValueError as e:
        sys.exit("%s: not JSON (%s): %s" % (c, e, l))
    key = c.split(",")[0]
    if list(r) != [key] or r[key] is None:
        sys.exit("%s: bad reply %s" % (c, l))
EOF
}

# The reply to the n-th command (from 0) in OUT, as JSON on one line.
reply() { sed -n "$(($2 + 1))p" "$1"; }

# --- lr-l2fwd on two net_null ports ---------------------------------------
p=tel_dpdk_l2fwd_$$
bg_start "$tmp/l2fwd.out" "^Forwarding on" "$l2fwd" -l 0,1 --no-huge -m 64 \
	--file-prefix "$p" --vdev net_null0 --vdev net_null1 -- -p 3 -T 0 \
	--xstats || { cat "$tmp/l2fwd.out"; fail "lr-l2fwd did not start"; exit 1; }
mp=$(printf '/mempool/list\n' | python3 "$client" -f "$p" |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["/mempool/list"][0])')
cmds=(/ /info /help /help,/ethdev/stats /eal/params /eal/app_params
	/eal/lcore/list /eal/lcore/info,0 /ethdev/list /ethdev/info,0
	/ethdev/info,1 /ethdev/stats,0 /ethdev/stats,1 /ethdev/xstats,0
	/ethdev/xstats,1 /ethdev/link_status,0 /ethdev/link_status,1
	/mempool/list "/mempool/info,$mp" /ethdev/stats,0 /ethdev/stats,1)
if ask "$p" "$tmp/l2fwd.replies" "${cmds[@]}"; then
	pass "lr-l2fwd: ${#cmds[@]} commands answered, all JSON"
else
	fail "lr-l2fwd: the replies (above)"
fi
bg_stop INT || fail "lr-l2fwd exited non-zero"
python3 - "$tmp/l2fwd.replies" "$tmp/l2fwd.out" <<'EOF' && pass "lr-l2fwd: /ethdev/stats agrees with its own counters" || fail "lr-l2fwd: stats (above)"
import json, re, sys
rep = [json.loads(l) for l in open(sys.argv[1])]
out = open(sys.argv[2]).read()
final = {}
for m in re.finditer(r"^port (\d+): .*\n  rx (\d+) pkts (\d+) bytes.*\n"
                     r"  tx (\d+) pkts (\d+) bytes", out, re.M):
    final[int(m.group(1))] = [int(x) for x in m.groups()[1:]]
assert set(final) == {0, 1}, "no final port counters in the output"
first = {0: rep[11]["/ethdev/stats"], 1: rep[12]["/ethdev/stats"]}
last = {0: rep[19]["/ethdev/stats"], 1: rep[20]["/ethdev/stats"]}
for port in (0, 1):
    a, b = first[port], last[port]
    fin = dict(zip(["ipackets", "ibytes", "opackets", "obytes"],
                   final[port]))
    # Stopped, the port's counters are exact: 64 bytes a frame.
    assert fin["ibytes"] == 64 * fin["ipackets"], (port, fin)
    assert fin["obytes"] == 64 * fin["opackets"], (port, fin)
    for s in (a, b):
        # Running, a reply's packets and bytes are two reads of counters
        # the lcore adds to one after the other: each is whole frames, not
        # one snapshot (once 32 frames apart under ASan).
        assert s["ibytes"] % 64 == 0 and s["obytes"] % 64 == 0, s
        assert s["q_ipackets"][0] == s["ipackets"] and \
            sum(s["q_ipackets"][1:]) == 0 and len(s["q_ipackets"]) == 16, s
        assert s["q_opackets"][0] == s["opackets"], s
        for k in fin:
            assert s[k] <= fin[k], (port, k, s[k], fin[k])
    for k in fin:
        assert a[k] <= b[k], (port, k, a[k], b[k])
    assert b["ipackets"] > 0, "port %d received nothing" % port
print("final", final)
EOF

# --- lr-pktgen on one net_null port, stopped before the check ---------------
pktgen_part() {
p=tel_dpdk_pktgen_$$
ctl=$tmp/ctl.sock
bg_start "$tmp/pktgen.out" "control socket" "$pktgen" -l 0,1 --no-huge \
	-m 64 --file-prefix "$p" --vdev net_null0 -- --tx-only --idle \
	--ctl "$ctl" --quiet --json "$tmp/pktgen.json" ||
	{ cat "$tmp/pktgen.out"; fail "lr-pktgen did not start"; exit 1; }
"$pgctl" "$ctl" start >/dev/null || fail "lr-pktgen-ctl start"
# sending until its counter moves (a condition, not a time)
for _ in $(seq 600); do
	tx=$("$pgctl" "$ctl" stats | python3 -c \
		'import json,sys; print(json.load(sys.stdin)["ports"][0]["tx"])')
	[ "${tx:-0}" -gt 0 ] && break
	sleep 0.05
done
"$pgctl" "$ctl" stop >/dev/null || fail "lr-pktgen-ctl stop"
cmds=(/eal/lcore/list /eal/lcore/info,0 /eal/lcore/info,1 /ethdev/list
	/ethdev/stats,0 /ethdev/xstats,0 /ethdev/info,0 /eal/params)
ask "$p" "$tmp/pg.replies" "${cmds[@]}" &&
	pass "lr-pktgen: ${#cmds[@]} commands answered, all JSON" ||
	fail "lr-pktgen: the replies (above)"
"$pgctl" "$ctl" quit >/dev/null || fail "lr-pktgen-ctl quit"
wait "$BG" || fail "lr-pktgen exited non-zero"
BG=
python3 - "$tmp/pg.replies" "$tmp/pktgen.json" <<'EOF' && pass "lr-pktgen: /ethdev/stats equals its final counters" || fail "lr-pktgen: stats (above)"
import json, sys
rep = [json.loads(l) for l in open(sys.argv[1])]
res = json.load(open(sys.argv[2]))["results"]["ports"][0]
s = rep[4]["/ethdev/stats"]
assert res["tx"] > 0, res
assert (s["opackets"], s["obytes"]) == (res["tx"], res["tx_bytes"]), (s, res)
x = rep[5]["/ethdev/xstats"]
assert x["tx_good_packets"] == res["tx"], (x, res)
busy = 0
for r in rep[1:3]:
    i = r["/eal/lcore/info"]
    assert i["total_cycles"] >= i["busy_cycles"], i
    busy += i["busy_cycles"]
assert busy > 0, "no busy cycles on any lcore"
print("opackets", s["opackets"], "busy_cycles", busy)
EOF
}
if [ -x "$pktgen" ] && [ -x "$pgctl" ]; then
	pktgen_part
else
	echo "lr-pktgen not built: its part left out"
fi

# --- the same requests to dpdk-testpmd and lr-l2fwd --------------------------
testpmd_part() {
	local testpmd=/usr/bin/dpdk-testpmd dsock lsock _ l=tel_dpdk_cmp_$$
	[ -x "$testpmd" ] || { echo "dpdk-testpmd absent: comparison left out"; return; }
	[ "$(id -u)" = 0 ] || { echo "not root: comparison left out"; return; }
	TP_PREFIX=tel_dpdk_tpmd_$$
	dsock=/var/run/dpdk/$TP_PREFIX/dpdk_telemetry.v2
	lsock=/var/run/dpdk/$l/dpdk_telemetry.v2
	mkfifo "$tmp/tp.in"
	# testpmd runs until a line (or the end) on its stdin: the fifo, held
	# open on fd 7 until the comparison is done.
	"$testpmd" --no-pci --in-memory --file-prefix "$TP_PREFIX" -l 0,1 \
		--vdev net_null0 --vdev net_null1 -- --total-num-mbufs=2048 \
		<"$tmp/tp.in" >"$tmp/tp.out" 2>&1 &
	TP=$!
	exec 7>"$tmp/tp.in"
	# its socket, once it is there (testpmd's own output is buffered)
	for _ in $(seq 1200); do
		[ -S "$dsock" ] || ! kill -0 "$TP" 2>/dev/null && break
		sleep 0.1
	done
	if ! [ -S "$dsock" ]; then
		echo "dpdk-testpmd could not start here: comparison left out"
		tail -3 "$tmp/tp.out"
	elif ! bg_start "$tmp/cmp.out" "^Forwarding on" "$l2fwd" -l 0,1 \
		--no-huge -m 64 --file-prefix "$l" --vdev net_null0 \
		--vdev net_null1 -- -p 3 -T 0; then
		fail "lr-l2fwd did not start"
	else
		if python3 "$(dirname "$0")/telemetry_compare.py" "$dsock" "$lsock"
		then
			pass "dpdk-testpmd and lr-l2fwd answer alike"
		else
			fail "dpdk-testpmd and lr-l2fwd differ (above)"
		fi
		bg_stop INT || fail "lr-l2fwd exited non-zero"
	fi
	exec 7>&-
	for _ in $(seq 600); do
		kill -0 "$TP" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$TP" 2>/dev/null
	wait "$TP" 2>/dev/null
	TP=
}
testpmd_part
exit "$failed"
