#!/usr/bin/env bash
# lr-pktgen --rfc2544 throughput over memif against two forwarders no test
# here can tune: lr-l2fwd (another linerate process) and, when installed,
# DPDK's testpmd in io mode (driver suite). Each search must end on time,
# hold the precision it states, and mark invalid the trials in which the
# generator was asked for more than it could send: the max is the line
# rate of --line-rate-gbps 40 (59.5 Mframes/s at 64 B), more than these
# two CPUs carry through two processes, so the first trials are invalid
# and the max comes down to what the generator did send, said so. A frame
# the memif ring has no room for is the device's loss (--tx-full drop, the
# default on memif).
#
#   lr-pktgen (port 0 sends, port 1 receives; memif servers)
#     <-> lr-l2fwd (ports 0 and 1: memif clients, -p 0x3)
#   lr-pktgen (port 0 sends and receives; memif client)
#     <-> testpmd --forward-mode=io (its memif server, one port)
#
# Cases: l2fwd (two repetitions: both end and state their precision) and
# testpmd (skipped, saying why, without dpdk-testpmd).
#
#   test_pktgen_memif_rfc.sh SOURCE_DIR BUILD_DIR
# Exit 0 all passed, 1 a case failed, 77 skipped (with the reason).
set -u

SRC=${1:?usage: test_pktgen_memif_rfc.sh SOURCE_DIR BUILD_DIR}
BUILD=${2:?usage: test_pktgen_memif_rfc.sh SOURCE_DIR BUILD_DIR}
PKTGEN=$BUILD/apps/pktgen/lr-pktgen
L2FWD=$BUILD/apps/l2fwd/lr-l2fwd
: "$SRC"
# shellcheck source=test/lr_test.sh
. "$(dirname "$0")/lr_test.sh"

command -v python3 >/dev/null || skip "no python3 (reads the JSON)"
[ -x "$PKTGEN" ] || skip "lr-pktgen not built ($PKTGEN)"
[ -x "$L2FWD" ] || skip "lr-l2fwd not built ($L2FWD)"
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs (a forwarder and a generator)"

P=mr$$
TMP=$(mktemp -d)
BG=
cleanup() {
	[ -n "$BG" ] && kill -KILL "$BG" 2>/dev/null && wait "$BG" 2>/dev/null
	rm -rf "$TMP" "/var/run/dpdk/${P}t" 2>/dev/null
}
lr_cleanup_traps cleanup
O="socket-abstract=no"


# check NAME JSON OUT RC SECS: the search ended (exit 0, or exit 1 with
# NDR 0 said), every repetition's precision at most --precision of its
# max, invalid trials marked with the reason and the max lowered, said.
check() {
	local name=$1 js=$2 out=$3 rc=$4 secs=$5 v
	v=$(jget "$js" "'ok' if all(r['ndr_pps'] == 0 or r['ndr_precision_pps'] <= d['rfc2544']['precision_pct'] / 100 * r['max_rate_pps'] * 1.0001 for s in d['rfc2544']['sizes'] for r in s['repetitions']) else 'bad'")
	zero=$(jget "$js" "any(r['ndr_pps'] == 0 for s in d['rfc2544']['sizes'] for r in s['repetitions'])")
	inv=$(jget "$js" "sum(1 for s in d['rfc2544']['sizes'] for t in s['trials'] if t['verdict'] == 'invalid' and t['reason'])")
	reps=$(jget "$js" "' '.join('%.0f (within %.0f, max %.0f)' % (r['ndr_pps'], r['ndr_precision_pps'], r['max_rate_pps']) for s in d['rfc2544']['sizes'] for r in s['repetitions'])")
	echo "$name: exit $rc after $secs s; NDR per repetition: ${reps:-none}; ${inv:-?} invalid trials"
	# A forwarder that lost frames at every rate (its CPU taken by the
	# tests beside it) has NDR 0: said, exit 1; an honest end too.
	if [ "$v" = ok ] && [ "${inv:-0}" -gt 0 ] &&
		grep -q "the generator cannot keep up with" "$out" &&
		{ { [ "$rc" = 0 ] && [ "$zero" = False ]; } ||
			{ [ "$rc" = 1 ] && [ "$zero" = True ] &&
				grep -q "NDR 0: every trial lost frames" "$out"; }; }; then
		pass "$name: the search ended in $secs s, NDR $reps, $inv trials the generator fell short in marked invalid and the max lowered"
	else
		fail "$name: exit $rc, precision '$v', invalid trials ${inv:-?}"
		grep -E "cannot keep up|invalid|^lr-pktgen|speed varies" "$out" | tail -10
	fi
}

SEARCH="--rfc2544 throughput --rfc2544-sizes 64 --trial-s 0.1 --final-trial-s 0.3 --link-wait 30 --drain-ms 200 --line-rate-gbps 40 --precision 2"

# --- lr-l2fwd on memif (its ports clients of lr-pktgen's servers).
bg_start "$TMP/fwd.out" "Forwarding on" "$L2FWD" -l 1 --no-huge -m 256 \
	--file-prefix "${P}f" \
	--vdev "net_memif0,role=client,socket=$TMP/a.sock,$O" \
	--vdev "net_memif1,role=client,socket=$TMP/b.sock,$O" \
	-- -p 0x3 -T 0 ||
	{ echo "FAIL: $L2FWD did not start:"; tail -20 "$TMP/fwd.out"; exit 1; }
start=$SECONDS
# shellcheck disable=SC2086
timeout 300 "$PKTGEN" -l 0 --no-huge -m 256 --file-prefix "${P}g" \
	--vdev "net_memif0,role=server,socket=$TMP/a.sock,$O" \
	--vdev "net_memif1,role=server,socket=$TMP/b.sock,$O" \
	-- --tx-ports 0 --rx-ports 1 $SEARCH --repeat 2 \
	--json "$TMP/l2fwd.json" >"$TMP/l2fwd.out" 2>&1
rc=$?
secs=$((SECONDS - start))
bg_stop INT || echo "lr-l2fwd exit $? (see below)"
check l2fwd "$TMP/l2fwd.json" "$TMP/l2fwd.out" $rc $secs

# --- DPDK testpmd in io mode, its memif server port sending back what it
# receives.
TP=$(command -v dpdk-testpmd)
if [ -z "$TP" ]; then
	echo "SKIP testpmd: no dpdk-testpmd (Debian: dpdk)"
else
	# testpmd runs until a line comes on its stdin: a fifo held open.
	mkfifo "$TMP/tp.in"
	exec 3<>"$TMP/tp.in"
	# Line-buffered: its "Press enter to exit" reaches the file at once.
	stdbuf -oL "$TP" -l 0,1 --no-huge -m 256 --file-prefix "${P}t" --no-pci \
		--vdev "net_memif0,role=server,socket=$TMP/t.sock,$O" \
		-- --forward-mode=io -a --nb-cores=1 --total-num-mbufs=8192 \
		<"$TMP/tp.in" >"$TMP/tp.out" 2>&1 &
	BG=$!
	lr_wait_line "$TMP/tp.out" "Press enter to exit" "$BG" || true
	start=$SECONDS
	# shellcheck disable=SC2086
	timeout 300 "$PKTGEN" -l 0 --no-huge -m 256 --file-prefix "${P}g" \
		--vdev "net_memif0,role=client,socket=$TMP/t.sock,$O" \
		-- --tx-ports 0 --rx-ports 0 $SEARCH \
		--json "$TMP/tp.json" >"$TMP/tpg.out" 2>&1
	rc=$?
	secs=$((SECONDS - start))
	echo >&3
	for _ in $(seq 300); do
		kill -0 "$BG" 2>/dev/null || break
		sleep 0.1
	done
	bg_stop KILL
	exec 3>&-
	check testpmd "$TMP/tp.json" "$TMP/tpg.out" $rc $secs
fi

exit "$failed"
