#!/usr/bin/env bash
# lr-pktgen counts duplicates and reordering as such, never as loss (driver
# suite; root). A forwarder of ours with faults (test/fault_fwd.c) sits in
# the middle namespace between two veth pairs (scripts/netns.sh):
#
#   ns gen: g0 (lr-pktgen port 0, sends) --> f0 (lr-test-fault-fwd port 0)
#   ns gen: g1 (lr-pktgen port 1, receives) <-- f1 (lr-test-fault-fwd port 1)
#
# The forwarder sends every 7th UDP frame twice and swaps every 11th with
# the one after it, and says how many it duplicated and swapped. Cases:
#   - a run of 30,000 frames at 10 kframes/s: lr-pktgen's dup equals the
#     forwarder's, its reordered equals the swaps (a swap puts one frame
#     behind one that left after it), lost is 0 (the forwarder dropped
#     nothing), in the summary and in the JSON per stream;
#   - an --rfc2544 throughput search over the same path at most 10
#     kframes/s: an NDR is found, confirmed by a trial that had duplicates
#     and reordered frames and lost none (counted as loss, no trial
#     would pass).
#
#   test_pktgen_faults.sh SOURCE_DIR BUILD_DIR
# Exit 0 all passed, 1 a case failed, 77 skipped (with the reason).
set -u

SRC=${1:?usage: test_pktgen_faults.sh SOURCE_DIR BUILD_DIR}
BUILD=${2:?usage: test_pktgen_faults.sh SOURCE_DIR BUILD_DIR}
PKTGEN=$BUILD/apps/pktgen/lr-pktgen
FWD=$BUILD/test/lr-test-fault-fwd
NETNS=$SRC/scripts/netns.sh
# shellcheck source=test/lr_test.sh
. "$(dirname "$0")/lr_test.sh"

lr_need_netns
command -v python3 >/dev/null || skip "no python3 (reads the JSON)"
[ -x "$PKTGEN" ] || skip "lr-pktgen not built ($PKTGEN)"
[ -x "$FWD" ] || skip "lr-test-fault-fwd not built ($FWD)"

fwd_pid=
lr_netns_test "$NETNS" fa fwd_pid

# The forwarder polls on a CPU of its own where there is one (lr-pktgen
# polls on CPU 0: two pollers on one CPU take turns of a scheduler tick,
# longer than the rings last).
FWD_CPU=0
[ "$(nproc)" -gt 1 ] && FWD_CPU=1

# fwd_start: the forwarder in the fwd namespace, until it says it forwards
# (or exits).
fwd_start() {
	ip netns exec "$LR_NS_FWD" nice -n -20 "$FWD" --no-huge -m 128 -l "$FWD_CPU" \
		--file-prefix "${P}f" \
		--vdev "net_af_packet0,iface=$LR_IF_F0,vnet=0,framecnt=8192" \
		--vdev "net_af_packet1,iface=$LR_IF_F1,vnet=0,framecnt=8192" \
		-- --dup 7 --swap 11 >"$TMP/fwd.out" 2>&1 &
	fwd_pid=$!
	lr_wait_line "$TMP/fwd.out" '^fault_fwd: forwarding' "$fwd_pid" &&
		return 0
	echo "FAIL: lr-test-fault-fwd exited before forwarding:"
	cat "$TMP/fwd.out"
	exit 1
}

# fwd_stop: stop it; its counters into FWD_DUP, FWD_SWAP, FWD_DROP.
fwd_stop() {
	kill -TERM "$fwd_pid"
	wait "$fwd_pid"
	fwd_pid=
	line=$(grep '^fault_fwd: rx=' "$TMP/fwd.out")
	FWD_DUP=$(sed -n 's/.* dup=\([0-9]*\).*/\1/p' <<<"$line")
	FWD_SWAP=$(sed -n 's/.* swapped=\([0-9]*\).*/\1/p' <<<"$line")
	FWD_DROP=$(sed -n 's/.* dropped=\([0-9]*\).*/\1/p' <<<"$line")
	FWD_RX=$(sed -n 's/.* rx=\([0-9]*\).*/\1/p' <<<"$line")
}

gen() {
	ip netns exec "$LR_NS_GEN" nice -n -20 "$PKTGEN" --no-huge -m 256 -l 0 \
		--file-prefix "${P}g" \
		--vdev "net_af_packet0,iface=$LR_IF_G0,vnet=0,framecnt=4096" \
		--vdev "net_af_packet1,iface=$LR_IF_G1,vnet=0,framecnt=8192" \
		-- --tx-ports 0 --rx-ports 1 "$@"
}

# --- A run: dup and reordered as the forwarder made them, no loss.
for attempt in 1 2 3; do
	fwd_start
	gen --count 30000 --rate-pps 10k --drain-ms 500 --quiet \
		--json "$TMP/run.json" >"$TMP/run.out" 2>&1
	rc=$?
	fwd_stop
	grep -q "no driver for this port name" "$TMP/run.out" &&
		skip "net_af_packet is not in this build"
	dup=$(jget "$TMP/run.json" "d['results']['streams'][0]['dup']")
	reo=$(jget "$TMP/run.json" "d['results']['streams'][0]['reordered']")
	lost=$(jget "$TMP/run.json" "d['results']['streams'][0]['lost']")
	echo "attempt $attempt: exit $rc; lr-pktgen dup ${dup:-?} reordered ${reo:-?} lost ${lost:-?};" \
		"the forwarder received $FWD_RX, duplicated $FWD_DUP, swapped $FWD_SWAP, dropped $FWD_DROP"
	# A frame the forwarder or a ring dropped (a busy host) is a loss
	# of the path, not a fault of the count: run again.
	[ "$FWD_DROP" = 0 ] && [ "${lost:-x}" = 0 ] && break
done
if [ "$rc" = 0 ] && [ "$dup" = "$FWD_DUP" ] && [ "$reo" = "$FWD_SWAP" ] &&
	[ "$lost" = 0 ] && [ "$FWD_DUP" -gt 3000 ] && [ "$FWD_SWAP" -gt 2000 ]; then
	pass "run: $dup duplicates and $reo reordered frames counted as the forwarder made them, none lost"
	grep -E '^(stream|pktgen total)' "$TMP/run.out" | head -5
else
	fail "run: exit $rc, dup ${dup:-?} for $FWD_DUP, reordered ${reo:-?} for $FWD_SWAP, lost ${lost:-?}"
	tail -20 "$TMP/run.out"
fi

# --- A search: duplicates and reordering are no loss. The NDR is found
# (above 0) and the trial that confirmed it had duplicates and reordered
# frames and lost none: were they counted as loss, no trial would pass.
# (Frames the path loses on a busy host, in the kernel's rings, lower the
# NDR: its value is the host's; that it exists is the count's.)
for attempt in 1 2; do
	fwd_start
	gen --rfc2544 throughput --rfc2544-sizes 64 --trial-s 0.5 \
		--final-trial-s 1 --max-rate 10k --drain-ms 300 \
		--json "$TMP/rfc.json" >"$TMP/rfc.out" 2>&1
	rc=$?
	fwd_stop
	ndr=$(jget "$TMP/rfc.json" "d['rfc2544']['sizes'][0]['ndr']['pps']")
	conf=$(jget "$TMP/rfc.json" "' '.join('%d/%d/%d' % (t['dup'], t['reordered'], t['lost']) for t in d['rfc2544']['sizes'][0]['trials'] if t['final'] and t['ndr'] == 'pass' and t['rate_pps'] == d['rfc2544']['sizes'][0]['ndr']['pps'])")
	ok=$(jget "$TMP/rfc.json" "any(t['final'] and t['ndr'] == 'pass' and t['dup'] > 0 and t['reordered'] > 0 and t['lost'] == 0 and t['rate_pps'] == d['rfc2544']['sizes'][0]['ndr']['pps'] for t in d['rfc2544']['sizes'][0]['trials'])")
	echo "search attempt $attempt: exit $rc, NDR ${ndr:-none}, confirmed by a trial with dup/reordered/lost ${conf:-none}"
	[ "$rc" = 0 ] && [ "$ok" = True ] && break
done
if [ "$rc" = 0 ] && [ "$ok" = True ]; then
	pass "search: NDR $ndr frames/s, confirmed by a trial with duplicates and reordering and no loss ($conf)"
else
	fail "search: exit $rc, NDR ${ndr:-none}, confirming trial ${conf:-none}"
	tail -20 "$TMP/rfc.out"
fi

exit "$failed"
