#!/usr/bin/env bash
# Veth benchmark (root): lr-pktgen in namespace gen sends on g0 and receives
# on g1; lr-l2fwd in namespace fwd forwards f0 <-> f1. 64-byte frames.
# Topology from scripts/netns.sh, removed on exit.
#
#   scripts/bench-veth.sh [BUILD_DIR] [SECONDS]
#
# For each generator/forwarder driver pair (net_af_packet, and net_af_xdp
# when the build has it):
#   - the generator alone (tx only, frames dropped by the kernel at f0),
#   - the maximum rate: lr-pktgen unpaced; what comes back is forwarded,
#   - the highest zero-loss rate: a bisection over paced rates (lost == 0
#     after a drain), reported as the rate achieved,
# printed beside DPDK 22.11's figures on this machine
# (/work/shared/data/dpdk-22.11-this-machine.md). A few minutes at most.
set -euo pipefail

BUILD=${1:-build}
SECS=${2:-2}
HERE=$(cd "$(dirname "$0")" && pwd)
NETNS=$HERE/netns.sh
# shellcheck source=scripts/l2fwd-bg.sh
. "$HERE/l2fwd-bg.sh"
PKTGEN=$BUILD/apps/pktgen/lr-pktgen
L2FWD=$BUILD/apps/l2fwd/lr-l2fwd

die() { echo "bench-veth: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (network namespaces)"
[ -x "$PKTGEN" ] || die "no $PKTGEN (build first)"
[ -x "$L2FWD" ] || die "no $L2FWD (build first)"

GEN_L=0 FWD_L=0
[ "$(nproc)" -ge 2 ] && FWD_L=1
P=bv$(($$ % 100000))
TMP=$(mktemp -d)
FWD_PID=
TP_PID=
cleanup() {
	if [ -n "$FWD_PID" ]; then kill -KILL "$FWD_PID" 2>/dev/null || true; fi
	if [ -n "$TP_PID" ]; then kill -KILL "$TP_PID" 2>/dev/null || true; fi
	"$NETNS" destroy "$P"
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
eval "$("$NETNS" create "$P")"

field() { sed -n "s/^pktgen total:.* $1=\([^ ]*\).*/\1/p" "$2" | tail -1; }

gen() {
	local drv=$1
	shift
	ip netns exec "$LR_NS_GEN" "$PKTGEN" --no-huge -m 256 -l $GEN_L \
		--file-prefix "${P}g" \
		--vdev "${drv}0,iface=$LR_IF_G0" --vdev "${drv}1,iface=$LR_IF_G1" \
		-- --tx-ports 0 --rx-ports 1 --quiet "$@" >"$TMP/gen.out" 2>&1 ||
		echo "(lr-pktgen exit $?)" >>"$TMP/gen.out"
}

have_driver() {
	gen "$1" --count 1 --tx-only
	! grep -q "no driver for this port name" "$TMP/gen.out"
}

start_fwd() {
	local drv=$1
	fwd_start "$TMP/fwd.out" "Forwarding on" "$L2FWD" --no-huge -m 256 \
		-l $FWD_L --file-prefix "${P}f" \
		--vdev "${drv}0,iface=$LR_IF_F0" --vdev "${drv}1,iface=$LR_IF_F1" \
		-- -p 0x3 -T 0 --duration 600 && return 0
	echo "(lr-l2fwd on $drv did not start)"
	return 1
}

stop_fwd() { fwd_stop || true; }

# Paced run at R pps: prints "achieved_mpps lost"
paced() {
	gen "$1" --rate-pps "$2" --duration "$SECS" --drain-ms 500
	echo "$(field tx_mpps "$TMP/gen.out") $(field lost "$TMP/gen.out")"
}

drivers=(net_af_packet)
have_driver net_af_packet || die "net_af_packet is not in this build"
if have_driver net_af_xdp; then
	drivers+=(net_af_xdp)
	xdp_note=""
else
	xdp_note="net_af_xdp: unsupported (no such driver in this build of lr-pktgen/lr-l2fwd)"
fi

# DPDK 22.11 figures on this machine (Mpps, 64-byte frames).
dpdk_alone() { case $1 in net_af_packet) echo 1.84 ;; net_af_xdp) echo 3.23 ;; esac; }
dpdk_fwd() {
	case $1/$2 in
	net_af_packet/net_af_packet) echo 0.94 ;;
	net_af_packet/net_af_xdp) echo 1.10 ;;
	net_af_xdp/net_af_xdp) echo 1.61 ;;
	*) echo - ;;
	esac
}

echo "bench-veth: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); generator lcore $GEN_L, forwarder lcore $FWD_L; ${SECS}s per run"
echo
echo "generator alone (tx only on g0):"
printf "  %-14s %10s %12s %10s\n" driver "Mpps" "Mpps/CPU-s" "DPDK"
for d in "${drivers[@]}"; do
	gen "$d" --tx-only --duration "$SECS"
	percpu=$(awk -v n="$(field tx "$TMP/gen.out")" -v c="$(field cpu_s "$TMP/gen.out")" \
		'BEGIN { printf "%.3f", (c > 0 ? n / c / 1e6 : 0) }')
	printf "  %-14s %10s %12s %10s\n" "$d" "$(field tx_mpps "$TMP/gen.out")" \
		"$percpu" "$(dpdk_alone "$d")"
done

# DPDK's own generator on this machine now, when installed: testpmd txonly
# on DPDK's net_af_packet, CPU time of its forwarding thread from /proc.
if command -v dpdk-testpmd >/dev/null; then
	ip netns exec "$LR_NS_GEN" dpdk-testpmd --no-huge -m 512 -l 0,1 --no-pci \
		--file-prefix "${P}t" --vdev "net_af_packet0,iface=$LR_IF_G0" -- \
		--forward-mode=txonly --total-num-mbufs=16384 --stats-period 1 -a \
		>"$TMP/tp.out" 2>&1 </dev/null &
	TP_PID=$!
	for _ in $(seq 200); do
		grep -q "Tx-pps" "$TMP/tp.out" && break
		kill -0 "$TP_PID" 2>/dev/null || break
		sleep 0.1
	done
	sleep "$SECS"
	cpu=0
	for t in /proc/$TP_PID/task/*; do
		case $(cat "$t/comm" 2>/dev/null) in
		lcore-worker*|rte-worker*)
			cpu=$(awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "$t/stat") ;;
		esac
	done
	kill -INT "$TP_PID" 2>/dev/null || true
	wait "$TP_PID" || true
	TP_PID=
	n=$(grep "TX-total" "$TMP/tp.out" | tail -1 | awk '{print $NF}')
	m=$(grep "Tx-pps" "$TMP/tp.out" | awk 'NR > 1 {s += $2; k++} END {printf "%.4f", (k ? s / k / 1e6 : 0)}')
	printf "  %-14s %10s %12s %10s\n" "testpmd now" "$m" \
		"$(awk -v n="${n:-0}" -v c="$cpu" 'BEGIN { printf "%.3f", (c > 0 ? n / c / 1e6 : 0) }')" \
		"(DPDK's net_af_packet)"
fi

echo
echo "through lr-l2fwd (g0 -> f0 -> f1 -> g1):"
printf "  %-14s %-14s %10s %10s %10s %12s %10s\n" generator forwarder \
	"max sent" "max fwd" "max loss%" "0-loss Mpps" "DPDK fwd"
for fd in "${drivers[@]}"; do
	for gd in "${drivers[@]}"; do
		# DPDK's table has no af_xdp generator into an af_packet forwarder.
		[ "$gd" = net_af_xdp ] && [ "$fd" = net_af_packet ] && continue
		start_fwd "$fd" || continue
		gen "$gd" --duration "$SECS" --drain-ms 500
		sent=$(field tx_mpps "$TMP/gen.out")
		fwd=$(field rx_mpps "$TMP/gen.out")
		tx=$(field tx "$TMP/gen.out")
		lost=$(field lost "$TMP/gen.out")
		loss=$(awk -v t="$tx" -v l="$lost" 'BEGIN { printf "%.1f", (t > 0 ? 100 * l / t : 0) }')
		# Bisection between 20 kpps and what the unpaced run sent.
		lo=20000
		hi=$(awk -v s="$sent" 'BEGIN { printf "%d", s * 1e6 }')
		best=0
		read -r got l < <(paced "$gd" $lo)
		if [ "$l" = 0 ]; then
			best=$got
			for _ in 1 2 3 4 5 6; do
				mid=$(((lo + hi) / 2))
				read -r got l < <(paced "$gd" $mid)
				if [ "$l" = 0 ]; then
					lo=$mid
					best=$got
				else
					hi=$mid
				fi
				[ $((hi - lo)) -lt $((hi / 20)) ] && break
			done
		fi
		printf "  %-14s %-14s %10s %10s %10s %12s %10s\n" "$gd" "$fd" \
			"$sent" "$fwd" "$loss" "$best" "$(dpdk_fwd "$gd" "$fd")"
		stop_fwd
	done
done
[ -n "$xdp_note" ] && echo "$xdp_note"
echo
echo "max sent/fwd: unpaced lr-pktgen, what left g0 and what came back on g1;"
echo "0-loss: highest paced rate (achieved) with every frame back; DPDK: testpmd"
echo "io forward (or txonly alone) on this machine, generator-bound as noted there."
echo "Mpps/CPU-s: frames per second of CPU the generator thread got (load-independent)."
