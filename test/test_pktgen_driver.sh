#!/usr/bin/env bash
# lr-pktgen over real interfaces (driver suite; root): veth pairs in network
# namespaces made by scripts/netns.sh and removed on exit.
#
#   test_pktgen_driver.sh SOURCE_DIR BUILD_DIR
#
# Cases:
#   count_af_packet  --count N frames sent on g0 reach f0 (kernel counter)
#   rate_veth        10k, 100k, 300k frames/s for a second: f0 receives
#                    the rate within 0.5%, or the run says it missed it
#   loss_l2fwd       g0 -> lr-l2fwd (af_packet, f0<->f1) -> g1 at a modest
#                    rate: every frame back once; on a starved host, every
#                    frame lost counted by a drop counter on its path
#   latency          the figures of that run are present and ordered, and
#                    the JSON histogram holds every sample
#   af_xdp           the same through lr-l2fwd on net_af_xdp, when built
# Exit 0 all passed, 1 a case failed, 77 skipped (with the reason).
set -u

SRC=${1:?usage: test_pktgen_driver.sh SOURCE_DIR BUILD_DIR}
BUILD=${2:?usage: test_pktgen_driver.sh SOURCE_DIR BUILD_DIR}
PKTGEN=$BUILD/apps/pktgen/lr-pktgen
L2FWD=$BUILD/apps/l2fwd/lr-l2fwd
TELEMETRY=$BUILD/apps/telemetry/lr-telemetry
NETNS=$SRC/scripts/netns.sh
# shellcheck source=test/lr_test.sh
. "$(dirname "$0")/lr_test.sh"
# shellcheck source=scripts/l2fwd-bg.sh
. "$SRC/scripts/l2fwd-bg.sh"
RATE=${PKTGEN_TEST_RATE:-20000}

lr_need_netns
[ -x "$PKTGEN" ] || skip "lr-pktgen not built ($PKTGEN)"
[ -x "$L2FWD" ] || skip "lr-l2fwd not built ($L2FWD)"
[ -x "$NETNS" ] || skip "no $NETNS"

# Separate CPUs for generator and forwarder when there are two.
GEN_L=0 FWD_L=0
[ "$(nproc)" -ge 2 ] && FWD_L=1

FWD_PID=
lr_netns_test "$NETNS" pg FWD_PID

# gen DRIVER ARGS...: lr-pktgen in the gen namespace, g0 sends, g1 receives.
gen() {
	local drv=$1
	shift
	ip netns exec "$LR_NS_GEN" "$PKTGEN" --no-huge -m 128 -l $GEN_L \
		--file-prefix "${P}g" \
		--vdev "${drv}0,iface=$LR_IF_G0" --vdev "${drv}1,iface=$LR_IF_G1" \
		-- --tx-ports 0 --rx-ports 1 "$@"
}

# start_fwd DRIVER: lr-l2fwd in the fwd namespace; 0 once it forwards.
start_fwd() {
	local drv=$1
	shift
	fwd_start "$TMP/fwd.out" "Forwarding on" "$L2FWD" --no-huge -m 128 \
		-l $FWD_L --file-prefix "${P}f" \
		--vdev "${drv}0,iface=$LR_IF_F0" --vdev "${drv}1,iface=$LR_IF_F1" \
		-- -p 0x3 -T 0 --duration 300 "$@"
}

stop_fwd() {
	local rc
	fwd_stop
	rc=$?
	if [ $rc -ne 0 ] || ! grep -q "mbufs in use after stop: 0" "$TMP/fwd.out"; then
		echo "lr-l2fwd exit $rc:"
		tail -20 "$TMP/fwd.out"
		return 1
	fi
	return 0
}

have_driver() {
	gen "$1" --count 1 --tx-only --quiet >"$TMP/probe.out" 2>&1
	! grep -q "no driver for this port name" "$TMP/probe.out"
}

have_driver net_af_packet || skip "net_af_packet is not in this build"

# --- count_af_packet: exactly N frames leave g0 and reach f0.
rx_f0() { ip netns exec "$LR_NS_FWD" cat "/sys/class/net/$LR_IF_F0/statistics/rx_packets"; }
before=$(rx_f0)
gen net_af_packet --count 10000 --tx-only --quiet >"$TMP/count.out" 2>&1
rc=$?
after=$(rx_f0)
tx=$(field tx "$TMP/count.out")
if [ $rc -eq 0 ] && [ "$tx" = 10000 ] && [ $((after - before)) -eq 10000 ]; then
	pass "count_af_packet: lr-pktgen sent $tx, $LR_IF_F0 received $((after - before))"
else
	fail "count_af_packet: exit $rc, tx=$tx, $LR_IF_F0 received $((after - before))"
	cat "$TMP/count.out"
fi

# --- rate_veth: over a second at 10k, 100k and 300k frames/s, the frames
# f0 received (the kernel's count) are within 0.5% of the rate, or the run
# said it missed the rate (tx_behind: the host kept the generator off its
# CPU); tried 3 times, a rate never kept on this host is said, not failed;
# one off without saying so fails.
for rate in 10000 100000 300000; do
	ok=
	for attempt in 1 2 3; do
		before=$(rx_f0)
		gen net_af_packet --tx-only --quiet --rate-pps "$rate" --duration 1 \
			>"$TMP/rate.out" 2>&1
		rc=$?
		got=$(($(rx_f0) - before))
		behind=$(field tx_behind "$TMP/rate.out")
		off=$(python3 -c "print(round(100 * ($got / $rate - 1), 3))")
		echo "rate_veth $rate attempt $attempt: exit $rc, $LR_IF_F0 received $got ($off%), tx_behind ${behind:-?}"
		if [ $rc -ne 0 ] || [ -z "$behind" ]; then
			ok=fail
			break
		fi
		if [ "$behind" = 0 ]; then
			python3 -c "import sys; sys.exit(abs($off) > 0.5)" && ok=yes || ok=fail
			break
		fi
	done
	case $ok in
	yes) pass "rate_veth: $rate frames/s over a second: $got received ($off%)" ;;
	fail) fail "rate_veth: $rate frames/s: exit $rc, $got received ($off%), tx_behind ${behind:-?}"
		cat "$TMP/rate.out" ;;
	*) echo "rate_veth $rate: the host never let the generator keep up (rate missed said each time): not checked" ;;
	esac
done

# --- loss_l2fwd and latency: up to three attempts, each with a fresh
# lr-l2fwd. A busy host (CI runs other tests beside this one) can starve
# the forwarder or the kernel's softirq past a ring: an attempt with no
# frame lost passes at once; one whose lost frames are not all counted
# fails at once. When every attempt lost some, it passes if each lost
# frame was counted by a drop counter on its path (the
# veth senders' tx_dropped: backlog or XDP ring full; lr-l2fwd's ports'
# missed and its own tx drops; the generator's receive port's missed):
# a frame never disappears silently. Frames still on their way when the
# generator ends (a starved softirq or forwarder can hold them past its
# drain time) are not lost: the forwarder is stopped only once it has
# received or counted every frame that left g0, and frames it sent back
# after the generator stopped listening are counted as late if g1's kernel
# counter saw them arrive. Each attempt is printed.

# vdrops: tx_dropped of the two veth ends that send towards a receiver
# this test owns (g0 -> f0 and f1 -> g1): frames veth dropped because the
# receiver's backlog or XDP ring was full.
vdrops() {
	local a b
	a=$(ip netns exec "$LR_NS_GEN" cat "/sys/class/net/$LR_IF_G0/statistics/tx_dropped")
	b=$(ip netns exec "$LR_NS_FWD" cat "/sys/class/net/$LR_IF_F1/statistics/tx_dropped")
	echo $((a + b))
}

# kcount NS IF COUNTER: a kernel counter of interface IF in namespace NS.
kcount() { ip netns exec "$1" cat "/sys/class/net/$2/statistics/$3"; }

# fwd_port0 N: what lr-l2fwd's port 0 received plus what it counted missed,
# over its telemetry socket; empty when lr-telemetry is not built.
fwd_port0() {
	[ -x "$TELEMETRY" ] || return 0
	"$TELEMETRY" -f "${P}f" --json /ethdev/stats,0 2>/dev/null |
		python3 -c 'import json, sys
s = json.load(sys.stdin)["/ethdev/stats"]
print(s["ipackets"] + s["imissed"])' 2>/dev/null
}

# fwd_settle WANT: wait, up to 30 s, until lr-l2fwd's port 0 has received
# or counted missed WANT frames (every frame that left g0), so that none
# is still in its ring or the kernel's backlog when it is stopped. Returns
# at once in the usual case; says so when the bound passes.
fwd_settle() {
	local want=$1 got= i
	for i in $(seq 300); do
		got=$(fwd_port0)
		[ -z "$got" ] && return 0
		[ "$got" -ge "$want" ] && return 0
		sleep 0.1
	done
	echo "lr-l2fwd's port 0 took $got of the $want frames that left g0 in 30 s"
}

# fwd_drops: frames lr-l2fwd's last run counted as not forwarded: its
# ports' missed (from --xstats) and its own dropped total.
fwd_drops() {
	local missed dropped
	missed=$(sed -n 's/^  rx .* missed \([0-9]*\) .*/\1/p' "$TMP/fwd.out" |
		awk '{s += $1} END {print s + 0}')
	dropped=$(sed -n 's/^l2fwd total:.* dropped=\([0-9]*\) .*/\1/p' "$TMP/fwd.out")
	echo $((missed + ${dropped:-0}))
}

loss_case() {
	local drv=$1 name=$2 ok=0 attempt tx own lost dup rc v0 v1 gmiss counted
	local g0d f1d fwd_tx late g1_0 g1_rx
	for attempt in 1 2 3; do
		if ! start_fwd "$drv" --xstats; then
			fail "$name: lr-l2fwd on $drv did not start"
			return
		fi
		v0=$(vdrops)
		g0d=$(kcount "$LR_NS_GEN" "$LR_IF_G0" tx_dropped)
		g1_0=$(kcount "$LR_NS_GEN" "$LR_IF_G1" rx_packets)
		f1d=$(kcount "$LR_NS_FWD" "$LR_IF_F1" tx_dropped)
		gen net_af_packet --rate-pps "$RATE" --duration 2 --drain-ms 1000 \
			--bucket-ms 1000 --json >"$TMP/loss.json" 2>"$TMP/loss.out"
		rc=$?
		tx=$(field tx "$TMP/loss.out")
		g0d=$(($(kcount "$LR_NS_GEN" "$LR_IF_G0" tx_dropped) - g0d))
		fwd_settle $((${tx:-0} - g0d))
		if ! stop_fwd; then
			fail "$name: lr-l2fwd did not stop cleanly"
			return
		fi
		v1=$(vdrops)
		f1d=$(($(kcount "$LR_NS_FWD" "$LR_IF_F1" tx_dropped) - f1d))
		g1_rx=$(($(kcount "$LR_NS_GEN" "$LR_IF_G1" rx_packets) - g1_0))
		own=$(field rx_own "$TMP/loss.out")
		lost=$(field lost "$TMP/loss.out")
		dup=$(field dup "$TMP/loss.out")
		gmiss=$(jget "$TMP/loss.json" \
			'sum(p["imissed"] for p in r["ports"])')
		# late: sent back by lr-l2fwd after the generator's port
		# closed, seen arriving by g1's kernel counter.
		fwd_tx=$(sed -n 's/^l2fwd total:.* tx=\([0-9]*\) .*/\1/p' \
			"$TMP/fwd.out")
		late=$((${fwd_tx:-0} - f1d - ${own:-0} - ${gmiss:-0}))
		[ "$late" -lt 0 ] || [ $((${own:-0} + ${gmiss:-0} + late)) -gt "$g1_rx" ] &&
			late=0
		counted=$((v1 - v0 + $(fwd_drops) + gmiss + late))
		echo "$name attempt $attempt: exit $rc tx=$tx rx_own=$own lost=$lost dup=$dup" \
			"counted drops: veth $((v1 - v0)) lr-l2fwd $(fwd_drops) generator $gmiss;" \
			"late $late"
		if [ $rc -ne 0 ] || [ -z "$tx" ] || [ "$tx" -le $((RATE * 3 / 2)) ] ||
			[ "$dup" != 0 ] || [ $((own + lost)) -ne "$tx" ]; then
			ok=0
			break
		fi
		if [ "$lost" = 0 ]; then
			ok=1
			break
		fi
		# A frame lost with no counter saying so is a bug: no retry.
		if [ "$counted" -ne "$lost" ]; then
			ok=0
			break
		fi
		ok=2
	done
	if [ $ok = 1 ]; then
		pass "$name: $tx frames at $RATE/s through lr-l2fwd ($drv), none lost"
	elif [ $ok = 2 ]; then
		pass "$name: $tx frames at $RATE/s through lr-l2fwd ($drv): every attempt lost some on this busy host (the last $lost), each counted by a drop counter"
	else
		fail "$name: frames lost (not all counted), duplicated or not sent through lr-l2fwd ($drv)"
		tail -15 "$TMP/loss.out"
		# the forwarder's ports' counters and any drop it reported
		grep -E '^  (rx|tx) |dropped|did not take' "$TMP/fwd.out"
		tail -12 "$TMP/fwd.out"
	fi
	[ $ok = 0 ] && return

	# Latency figures of the passing run.
	local f=$TMP/loss.out mn av p50 p99 p999 mx n hsum
	mn=$(field lat_min_us "$f") av=$(field lat_avg_us "$f")
	p50=$(field lat_p50_us "$f") p99=$(field lat_p99_us "$f")
	p999=$(field lat_p999_us "$f") mx=$(field lat_max_us "$f")
	n=$(jget "$TMP/loss.json" 'r["latency_us"]["n"]')
	hsum=$(jget "$TMP/loss.json" \
		'sum(b["count"] for b in r["latency_us"]["histogram"])')
	if awk -v a="$mn" -v b="$p50" -v c="$p99" -v d="$p999" -v e="$mx" \
		-v avg="$av" 'BEGIN { exit !(a > 0 && a <= b && b <= c && c <= d &&
			d <= e && e < 1e6 && avg >= a && avg <= e) }' &&
		[ "$n" = "$own" ] && [ "$hsum" = "$n" ]; then
		pass "$name latency (us): min $mn avg $av p50 $p50 p99 $p99 p99.9 $p999 max $mx; histogram holds $hsum of $n"
	else
		fail "$name latency: min $mn avg $av p50 $p50 p99 $p99 p99.9 $p999 max $mx, n=$n histogram=$hsum rx_own=$own"
	fi
}

loss_case net_af_packet loss_l2fwd

if have_driver net_af_xdp; then
	loss_case net_af_xdp af_xdp
else
	echo "af_xdp: no net_af_xdp driver in this build: not tested"
fi

exit "$failed"
