#!/usr/bin/env bash
# Linux stacks as peers (root): two hosts, namespaces ${P}gen and ${P}peer,
# joined through namespace ${P}fwd by
#   - a kernel bridge (ip link add type bridge) over veths g0-f0, g1-f1,
#   - lr-l2fwd on net_af_packet ports f0 <-> f1 (same veths),
#   - lr-l2fwd on net_af_xdp ports f0 <-> f1 (partial checksums found by
#     the port: partial_csum, on by default over veth),
#   - lr-l2fwd on two net_tap ports, each tap moved into a host,
#   - DPDK's testpmd (io) on its net_af_packet ports f0 <-> f1, when
#     dpdk-testpmd is installed (Debian's dpdk package),
# every interface with its default offloads (partial checksums, GSO).
# For each: iperf3 TCP throughput (Gbit/s, host 1 -> host 0, SECONDS) and
# the median and mean RTT of PINGS pings (us); a path where TCP does not get
# through prints "fails" (DPDK's net_af_packet forwards partial checksums
# as they are). Ratios are to the bridge. Topology from scripts/netns.sh,
# removed on exit.
#
#   scripts/bench-stack.sh [BUILD_DIR] [SECONDS] [PINGS] [ROUNDS]
#
# Defaults 10 s, 20 pings, 3 rounds (every path measured once a round,
# medians over the rounds): about eight minutes. Run it on an idle
# machine; its `summary|...` lines (lr-l2fwd beside testpmd on
# af_packet) go to the opening table of BENCHMARKS.md (bench/run).
set -euo pipefail

BUILD=${1:-build}
SECS=${2:-10}
PINGS=${3:-20}
ROUNDS=${4:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
NETNS=$HERE/netns.sh
# shellcheck source=scripts/l2fwd-bg.sh
. "$HERE/l2fwd-bg.sh"
L2FWD=$BUILD/apps/l2fwd/lr-l2fwd
TESTPMD=${TESTPMD:-dpdk-testpmd}

die() { echo "bench-stack: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (network namespaces)"
[ -x "$L2FWD" ] || die "no $L2FWD (build first)"
command -v iperf3 >/dev/null || die "needs iperf3 (apt-get install iperf3)"
command -v ss >/dev/null || die "needs ss (iproute2)"
command -v ping >/dev/null || die "needs ping (apt-get install iputils-ping)"

FWD_L=0
[ "$(nproc)" -ge 2 ] && FWD_L=1
P=bs$(($$ % 100000))
PEER=${P}peer
TMP=$(mktemp -d)
FWD_PID=
SRV_PID=
cleanup() {
	if [ -n "$FWD_PID" ]; then kill -KILL "$FWD_PID" 2>/dev/null || true; fi
	if [ -n "$SRV_PID" ]; then kill -KILL "$SRV_PID" 2>/dev/null || true; fi
	ip netns del "$PEER" 2>/dev/null || true
	"$NETNS" destroy "$P"
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
eval "$("$NETNS" create "$P")"
ip netns add "$PEER"
ip -n "$PEER" link set lo up
ip -n "$LR_NS_GEN" link set "$LR_IF_G1" netns "$PEER"

# host NS IF ADDR: an address on IF, up (netns.sh turned IPv6 off).
host() {
	ip -n "$1" addr add "$3/24" dev "$2"
	ip -n "$1" link set "$2" up
}
host "$LR_NS_GEN" "$LR_IF_G0" 10.79.0.1
host "$PEER" "$LR_IF_G1" 10.79.0.2

# measure DST: "GBITS P50_US MEAN_US" from host 1 to DST on host 0;
# GBITS is "fails" when no TCP connection got through, the RTTs "fails"
# when no reply. The median of the pings' RTTs is the figure compared
# (a VM's vCPU wake-ups put a few pings at 0.5-2 ms, which move a mean of
# 20 by tens of us); the mean is printed beside it.
measure() {
	local dst=$1 gbits rtt
	# The first reply (ARP resolved, path up) within 20 s.
	for _ in $(seq 20); do
		ip netns exec "$PEER" ping -c 1 -W 1 "$dst" >/dev/null 2>&1 &&
			break
	done
	rtt=$(ip netns exec "$PEER" ping -c "$PINGS" -i 0.2 "$dst" 2>/dev/null |
		sed -n 's|.* time=\([0-9.]*\) ms.*|\1|p' | sort -g |
		awk '{ v[NR] = $1 * 1000; s += $1 * 1000 }
		END { if (NR == 0) { print "fails fails"; exit }
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%.0f %.0f\n", m, s / NR }')
	ip netns exec "$LR_NS_GEN" iperf3 -s -1 -B "$dst" -p 5210 \
		>"$TMP/srv.out" 2>&1 &
	SRV_PID=$!
	for _ in $(seq 200); do
		ip netns exec "$LR_NS_GEN" ss -ltnH 'sport = :5210' | grep -q . &&
			break
		sleep 0.1
	done
	gbits=$(timeout $((SECS + 30)) ip netns exec "$PEER" iperf3 -c "$dst" \
		-p 5210 -t "$SECS" -f g --connect-timeout 5000 2>&1 |
		tee "$TMP/cli.out" |
		awk '/receiver/ { for (i = 1; i < NF; i++)
			if ($(i + 1) == "Gbits/sec") v = $i } END { print v }')
	[ -n "$gbits" ] || gbits=fails
	# A server whose client never connected is waiting still.
	kill -KILL "$SRV_PID" 2>/dev/null || true
	wait "$SRV_PID" 2>/dev/null || true
	SRV_PID=
	echo "$gbits $rtt"
}

# One function a path: each prints "GBITS P50 MEAN" (measure's line).
path_bridge() {
	ip -n "$LR_NS_FWD" link add "${P}br" type bridge
	ip -n "$LR_NS_FWD" link set "$LR_IF_F0" master "${P}br"
	ip -n "$LR_NS_FWD" link set "$LR_IF_F1" master "${P}br"
	ip -n "$LR_NS_FWD" link set "${P}br" up
	measure 10.79.0.1
	ip -n "$LR_NS_FWD" link del "${P}br"
}

# fwd OUT READY DST CMD...: start a forwarder in fwd, measure, stop it.
fwd() {
	local out=$1 ready=$2 dst=$3
	shift 3
	if fwd_start "$out" "$ready" "$@" >&2; then
		measure "$dst"
	else
		echo "fails fails fails"
	fi
	fwd_stop >/dev/null 2>&1 || true
}

# lr-l2fwd on two ports of driver $1 over the veths f0, f1.
fwd_veths() {
	fwd "$TMP/fwd.out" "Forwarding on" 10.79.0.1 \
		"$L2FWD" --no-huge -m 256 -l $FWD_L --file-prefix "${P}f" \
		--vdev "${1}0,iface=$LR_IF_F0" --vdev "${1}1,iface=$LR_IF_F1" \
		-- -p 0x3 --no-mac-updating -T 0
}
path_lr_af_packet() { fwd_veths net_af_packet; }
path_lr_af_xdp() { fwd_veths net_af_xdp; }

# lr-l2fwd on net_tap: the taps are made in fwd, then moved to the hosts
# (and die with the forwarder).
path_lr_tap() {
	local t0=${P}t0 t1=${P}t1
	if fwd_start "$TMP/tap.out" "Forwarding on" "$L2FWD" --no-huge \
		-m 256 -l $FWD_L --file-prefix "${P}t" \
		--vdev "net_tap0,iface=$t0" --vdev "net_tap1,iface=$t1" \
		-- -p 0x3 --no-mac-updating -T 0 >&2; then
		ip -n "$LR_NS_FWD" link set "$t0" netns "$LR_NS_GEN"
		ip -n "$LR_NS_FWD" link set "$t1" netns "$PEER"
		host "$LR_NS_GEN" "$t0" 10.79.1.1
		host "$PEER" "$t1" 10.79.1.2
		measure 10.79.1.1
	else
		echo "fails fails fails"
	fi
	fwd_stop >/dev/null 2>&1 || true
}

# DPDK testpmd io on its net_af_packet, both its lcores on lr-l2fwd's
# CPU (as scripts/bench-veth.sh runs it). Line-buffered (stdbuf): its
# ready line reaches the file when printed.
TP_ARGS=(--lcores "0@$FWD_L,1@$FWD_L" --no-huge -m 512 --no-pci
	--vdev "net_af_packet0,iface=$LR_IF_F0"
	--vdev "net_af_packet1,iface=$LR_IF_F1"
	-- --forward-mode=io -a --stats-period 100 --total-num-mbufs=16384)
path_testpmd_af_packet() {
	fwd "$TMP/tp.out" "start packet forwarding" 10.79.0.1 \
		stdbuf -oL "$TESTPMD" --file-prefix "${P}d" "${TP_ARGS[@]}"
}

ROWS=(bridge lr-af_packet lr-af_xdp lr-tap)
declare -A CMD=(
	[bridge]="ip link add br type bridge; f0, f1 master br"
	[lr-af_packet]="lr-l2fwd -l $FWD_L --vdev net_af_packet0,iface=f0 --vdev net_af_packet1,iface=f1 -- -p 0x3 --no-mac-updating"
	[lr-af_xdp]="lr-l2fwd -l $FWD_L --vdev net_af_xdp0,iface=f0 --vdev net_af_xdp1,iface=f1 -- -p 0x3 --no-mac-updating"
	[lr-tap]="lr-l2fwd -l $FWD_L --vdev net_tap0,iface=t0 --vdev net_tap1,iface=t1 -- -p 0x3 --no-mac-updating; t0, t1 moved to the hosts"
)
if command -v "$TESTPMD" >/dev/null; then
	ROWS+=(testpmd-af_packet)
	CMD[testpmd-af_packet]="$TESTPMD ${TP_ARGS[*]}"
	CMD[testpmd-af_packet]=${CMD[testpmd-af_packet]//$LR_IF_F0/f0}
	CMD[testpmd-af_packet]=${CMD[testpmd-af_packet]//$LR_IF_F1/f1}
else
	echo "testpmd-af_packet: skipped ($TESTPMD not installed)" >&2
fi

# ROUNDS rounds, each measuring every path in turn; a path's figures are
# the medians over the rounds (a round where it failed counts as 0).
: >"$TMP/results"
for r in $(seq "$ROUNDS"); do
	for p in "${ROWS[@]}"; do
		res=$("path_${p//-/_}")
		echo "round $r $p: TCP Gbit/s, ping p50 us, ping mean us: $res"
		echo "$p $res" >>"$TMP/results"
	done
done

# med PATH FIELD: the median of FIELD (2 TCP, 3 p50, 4 mean) over the
# rounds, "fails" when every round failed.
med() {
	awk -v p="$1" -v f="$2" '$1 == p { n++; v[n] = ($f == "fails") ? -1 : $f + 0 }
		END {
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
				if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
			m = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
			if (n == 0 || m < 0) print "fails"; else print m
		}' "$TMP/results"
}
declare -A TCP RTT MEAN
for p in "${ROWS[@]}"; do
	TCP[$p]=$(med "$p" 2)
	RTT[$p]=$(med "$p" 3)
	MEAN[$p]=$(med "$p" 4)
done

# ratio A B: A / B with 2 decimals, or - when either is not a number.
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a + 0 > 0 && b + 0 > 0) printf "%.2f", a / b; else print "-" }'
}

echo
echo "Linux stacks through the forwarder (medians of $ROUNDS rounds; each round: $SECS s iperf3 TCP and $PINGS pings 0.2 s apart per path; veth defaults)"
echo
echo "| path | TCP Gbit/s | of bridge | ping RTT p50 us | x bridge | ping RTT mean us | x bridge | command |"
echo "|---|---|---|---|---|---|---|---|"
for r in "${ROWS[@]}"; do
	echo "| $r | ${TCP[$r]} | $(ratio "${TCP[$r]}" "${TCP[bridge]}") | ${RTT[$r]} | $(ratio "${RTT[$r]}" "${RTT[bridge]}") | ${MEAN[$r]} | $(ratio "${MEAN[$r]}" "${MEAN[bridge]}") | \`${CMD[$r]}\` |"
done
echo
echo "goals (issue 16): TCP through lr-l2fwd (af_packet, tap) >= 50% of the bridge's; ping RTT within 2x of the bridge's"
# For the opening table of BENCHMARKS.md (bench/run): linerate's
# af_packet forwarder beside testpmd's, the bridge in the table above.
tp() { if [ -n "${TCP[testpmd-af_packet]:-}" ]; then echo "$1"; else echo -; fi; }
echo "summary|iperf3 TCP through the forwarder, af_packet, veth defaults|Gbit/s|higher|${TCP[lr-af_packet]}|$(tp "${TCP[testpmd-af_packet]:-}")|-"
echo "summary|ping RTT through the forwarder, af_packet (p50)|us|lower|${RTT[lr-af_packet]}|$(tp "${RTT[testpmd-af_packet]:-}")|-"
