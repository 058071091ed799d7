#!/usr/bin/env bash
# Linux stacks as peers (root): two hosts, namespaces ${P}gen and ${P}peer,
# joined through namespace ${P}fwd by
#   - a kernel bridge (ip link add type bridge) over veths g0-f0, g1-f1,
#   - lr-l2fwd on net_af_packet ports f0 <-> f1 (same veths),
#   - lr-l2fwd on two net_tap ports, each tap moved into a host,
#   - DPDK's testpmd (io) on its net_af_packet ports f0 <-> f1, when
#     dpdk-testpmd is installed (Debian's dpdk package),
# every interface with its default offloads (partial checksums, GSO).
# For each: iperf3 TCP throughput (Gbit/s, host 1 -> host 0, SECONDS) and
# the average ping RTT of PINGS pings (us); a path where TCP does not get
# through prints "fails" (DPDK's net_af_packet forwards partial checksums
# as they are). Ratios are to the bridge. Topology from scripts/netns.sh,
# removed on exit.
#
#   scripts/bench-stack.sh [BUILD_DIR] [SECONDS] [PINGS]
#
# Defaults 10 s and 20 pings: about two minutes. Run it on an idle
# machine; its `summary|...` lines (lr-l2fwd beside testpmd on
# af_packet) go to the opening table of BENCHMARKS.md (scripts/bench.sh).
set -euo pipefail

BUILD=${1:-build}
SECS=${2:-10}
PINGS=${3:-20}
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

# measure DST: "GBITS RTT_US" from host 1 to DST on host 0; GBITS is
# "fails" when no TCP connection got through, RTT "fails" when no reply.
measure() {
	local dst=$1 gbits rtt
	# The first reply (ARP resolved, path up) within 20 s.
	for _ in $(seq 20); do
		ip netns exec "$PEER" ping -c 1 -W 1 "$dst" >/dev/null 2>&1 &&
			break
	done
	rtt=$(ip netns exec "$PEER" ping -c "$PINGS" -i 0.2 -q "$dst" 2>/dev/null |
		sed -n 's|^rtt min/avg/max/mdev = [^/]*/\([^/]*\)/.*|\1|p')
	if [ -n "$rtt" ]; then
		rtt=$(awk -v ms="$rtt" 'BEGIN { printf "%.0f", ms * 1000 }')
	else
		rtt=fails
	fi
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

declare -A TCP RTT CMD
ROWS=()
row() { # NAME "GBITS RTT" COMMAND
	ROWS+=("$1")
	read -r "TCP[$1]" "RTT[$1]" <<<"$2"
	CMD[$1]=$3
	echo "$1: TCP ${TCP[$1]} Gbit/s, ping ${RTT[$1]} us" >&2
}

# Kernel bridge over the same veths.
ip -n "$LR_NS_FWD" link add "${P}br" type bridge
ip -n "$LR_NS_FWD" link set "$LR_IF_F0" master "${P}br"
ip -n "$LR_NS_FWD" link set "$LR_IF_F1" master "${P}br"
ip -n "$LR_NS_FWD" link set "${P}br" up
row bridge "$(measure 10.79.0.1)" "ip link add br type bridge; f0, f1 master br"
ip -n "$LR_NS_FWD" link del "${P}br"

# lr-l2fwd on net_af_packet.
fwd() { # OUT CMD...: start a forwarder in fwd, measure, stop it
	local out=$1 ready=$2 dst=$3
	shift 3
	if fwd_start "$out" "$ready" "$@" >&2; then
		measure "$dst"
	else
		echo "fails fails"
	fi
	fwd_stop >/dev/null 2>&1 || true
}
AFP_CMD="lr-l2fwd -l $FWD_L --vdev net_af_packet0,iface=f0 --vdev net_af_packet1,iface=f1 -- -p 0x3 --no-mac-updating"
row lr-af_packet "$(fwd "$TMP/fwd.out" "Forwarding on" 10.79.0.1 \
	"$L2FWD" --no-huge -m 256 -l $FWD_L --file-prefix "${P}f" \
	--vdev "net_af_packet0,iface=$LR_IF_F0" \
	--vdev "net_af_packet1,iface=$LR_IF_F1" \
	-- -p 0x3 --no-mac-updating -T 0)" "$AFP_CMD"

# lr-l2fwd on net_tap: the taps are made in fwd, then moved to the hosts.
T0=${P}t0 T1=${P}t1
if fwd_start "$TMP/tap.out" "Forwarding on" "$L2FWD" --no-huge -m 256 \
	-l $FWD_L --file-prefix "${P}t" \
	--vdev "net_tap0,iface=$T0" --vdev "net_tap1,iface=$T1" \
	-- -p 0x3 --no-mac-updating -T 0; then
	ip -n "$LR_NS_FWD" link set "$T0" netns "$LR_NS_GEN"
	ip -n "$LR_NS_FWD" link set "$T1" netns "$PEER"
	host "$LR_NS_GEN" "$T0" 10.79.1.1
	host "$PEER" "$T1" 10.79.1.2
	TAP_RES=$(measure 10.79.1.1)
else
	TAP_RES="fails fails"
fi
fwd_stop >/dev/null 2>&1 || true
row lr-tap "$TAP_RES" "lr-l2fwd -l $FWD_L --vdev net_tap0,iface=t0 --vdev net_tap1,iface=t1 -- -p 0x3 --no-mac-updating; t0, t1 moved to the hosts"

# DPDK testpmd io on its net_af_packet, both its lcores on lr-l2fwd's
# CPU (as scripts/bench-veth.sh runs it).
if command -v "$TESTPMD" >/dev/null; then
	TP_CMD="$TESTPMD --lcores 0@$FWD_L,1@$FWD_L --no-huge -m 512 --no-pci --vdev net_af_packet0,iface=f0 --vdev net_af_packet1,iface=f1 -- --forward-mode=io -a --stats-period 100"
	# Line-buffered (stdbuf): its ready line reaches the file when printed.
	row testpmd-af_packet "$(fwd "$TMP/tp.out" \
		"start packet forwarding" 10.79.0.1 \
		stdbuf -oL "$TESTPMD" --lcores "0@$FWD_L,1@$FWD_L" --no-huge \
		-m 512 --no-pci \
		--file-prefix "${P}d" \
		--vdev "net_af_packet0,iface=$LR_IF_F0" \
		--vdev "net_af_packet1,iface=$LR_IF_F1" \
		-- --forward-mode=io -a --stats-period 100 \
		--total-num-mbufs=16384)" "$TP_CMD"
else
	echo "testpmd-af_packet: skipped ($TESTPMD not installed)" >&2
fi

# ratio A B: A / B with 2 decimals, or - when either is not a number.
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a + 0 > 0 && b + 0 > 0) printf "%.2f", a / b; else print "-" }'
}

echo
echo "Linux stacks through the forwarder ($SECS s iperf3 TCP, $PINGS pings; veth defaults)"
echo
echo "| path | TCP Gbit/s | of bridge | ping RTT us | x bridge | command |"
echo "|---|---|---|---|---|---|"
for r in "${ROWS[@]}"; do
	echo "| $r | ${TCP[$r]} | $(ratio "${TCP[$r]}" "${TCP[bridge]}") | ${RTT[$r]} | $(ratio "${RTT[$r]}" "${RTT[bridge]}") | \`${CMD[$r]}\` |"
done
echo
# For the opening table of BENCHMARKS.md (scripts/bench.sh): linerate's
# af_packet forwarder beside testpmd's, the bridge in the table above.
tp() { if [ -n "${TCP[testpmd-af_packet]:-}" ]; then echo "$1"; else echo -; fi; }
echo "summary|iperf3 TCP through the forwarder, af_packet, veth defaults|Gbit/s|higher|${TCP[lr-af_packet]}|$(tp "${TCP[testpmd-af_packet]:-}")|-"
echo "summary|ping RTT through the forwarder, af_packet|us|lower|${RTT[lr-af_packet]}|$(tp "${RTT[testpmd-af_packet]:-}")|-"
