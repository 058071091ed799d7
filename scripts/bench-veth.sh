#!/usr/bin/env bash
# Veth benchmark (root): lr-pktgen in namespace gen sends on g0 and receives
# on g1; a forwarder in namespace fwd forwards f0 <-> f1. 64-byte frames.
# Topology from scripts/netns.sh, removed on exit.
#
#   scripts/bench-veth.sh [BUILD_DIR] [SECONDS]
#
#   - the generator alone (tx only, frames dropped by the kernel at f0), for
#     each of lr-pktgen's drivers, and DPDK's testpmd txonly on its
#     net_af_packet in the same run when dpdk-testpmd is installed;
#   - through a forwarder, one after the other in the same run, the
#     generator being lr-pktgen on net_af_xdp when built (else
#     net_af_packet): lr-l2fwd on net_af_packet (default: TPACKET_V2), on
#     net_af_packet,tpacket=v3, on net_af_xdp, and DPDK's testpmd io on its
#     net_af_packet (and net_af_xdp) when installed. For each: the maximum
#     (lr-pktgen unpaced: sent and back), the highest zero-loss rate (a
#     bisection over paced rates, lost == 0 after a drain) and the latency
#     lr-pktgen measures at LAT_PPS (default 10000) frames a second (p50,
#     p99: what the forwarder adds at a low rate, plus the veths and the
#     generator's own receive path, the same for every row).
# A few minutes. Prints figures; never fails on speed.
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

# start_fwd KIND: KIND is lr:DRIVER[:EXTRA DEVARGS] (lr-l2fwd) or
# tp:DRIVER (DPDK testpmd io), on lcore $FWD_L in the fwd namespace.
start_fwd() {
	local kind=${1%%:*} rest=${1#*:} drv extra
	drv=${rest%%:*}
	extra=
	[ "$rest" = "$drv" ] || extra=${rest#*:}
	if [ "$kind" = lr ]; then
		fwd_start "$TMP/fwd.out" "Forwarding on" "$L2FWD" --no-huge -m 256 \
			-l $FWD_L --file-prefix "${P}f" \
			--vdev "${drv}0,iface=$LR_IF_F0$extra" \
			--vdev "${drv}1,iface=$LR_IF_F1$extra" \
			-- -p 0x3 -T 0 --duration 600 && return 0
	else
		fwd_start "$TMP/fwd.out" "start packet forwarding" \
			dpdk-testpmd --no-huge -m 512 --lcores "0@$FWD_L,1@$FWD_L" \
			--no-pci --file-prefix "${P}t" \
			--vdev "${drv}0,iface=$LR_IF_F0" --vdev "${drv}1,iface=$LR_IF_F1" \
			-- --forward-mode=io --total-num-mbufs=16384 -a --stats-period 1 && return 0
	fi
	echo "(forwarder $1 did not start)"
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

echo "bench-veth: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); generator lcore $GEN_L, forwarder lcore $FWD_L; ${SECS}s per run"
echo
echo "generator alone (tx only on g0):"
printf "  %-14s %10s %12s\n" driver "Mpps" "Mpps/CPU-s"
for d in "${drivers[@]}"; do
	gen "$d" --tx-only --duration "$SECS"
	percpu=$(awk -v n="$(field tx "$TMP/gen.out")" -v c="$(field cpu_s "$TMP/gen.out")" \
		'BEGIN { printf "%.3f", (c > 0 ? n / c / 1e6 : 0) }')
	printf "  %-14s %10s %12s\n" "$d" "$(field tx_mpps "$TMP/gen.out")" \
		"$percpu"
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
	printf "  %-14s %10s %12s  (DPDK testpmd txonly on its net_af_packet: mean of its Tx-pps lines after the first)\n" \
		"testpmd" "$m" \
		"$(awk -v n="${n:-0}" -v c="$cpu" 'BEGIN { printf "%.3f", (c > 0 ? n / c / 1e6 : 0) }')"
fi

echo
gd=net_af_packet
for d in "${drivers[@]}"; do [ "$d" = net_af_xdp ] && gd=net_af_xdp; done
fwds=(lr:net_af_packet lr:net_af_packet:,tpacket=v3)
[[ " ${drivers[*]} " == *" net_af_xdp "* ]] && fwds+=(lr:net_af_xdp)
tp_note=
if command -v dpdk-testpmd >/dev/null; then
	fwds+=(tp:net_af_packet tp:net_af_xdp)
else
	tp_note="DPDK testpmd rows: not run (dpdk-testpmd is not installed)"
fi
LAT_PPS=${LAT_PPS:-10000}

title() {
	case $1 in
	lr:*:*) echo "lr-l2fwd ${1#lr:}" | sed 's/:,/,/' ;;
	lr:*) echo "lr-l2fwd ${1#lr:}" ;;
	tp:*) echo "testpmd io ${1#tp:}" ;;
	esac
}

echo
echo "through a forwarder (g0 -> f0 -> f1 -> g1), generator lr-pktgen on $gd:"
printf "  %-34s %9s %9s %7s %11s %9s %9s\n" forwarder "max sent" "max fwd" \
	"loss%" "0-loss Mpps" "p50 us" "p99 us"
for f in "${fwds[@]}"; do
	if ! start_fwd "$f"; then
		printf "  %-34s did not start: %s\n" "$(title "$f")" \
			"$(grep -m1 -iE "error|fail|cannot|invalid" "$TMP/fwd.out" || tail -1 "$TMP/fwd.out")"
		continue
	fi
	gen "$gd" --duration "$SECS" --drain-ms 500
	sent=$(field tx_mpps "$TMP/gen.out")
	fwd=$(field rx_mpps "$TMP/gen.out")
	tx=$(field tx "$TMP/gen.out")
	lost=$(field lost "$TMP/gen.out")
	loss=$(awk -v t="$tx" -v l="$lost" 'BEGIN { printf "%.1f", (t > 0 ? 100 * l / t : 0) }')
	# Latency at a low rate.
	gen "$gd" --rate-pps "$LAT_PPS" --duration "$SECS" --drain-ms 500
	p50=$(field lat_p50_us "$TMP/gen.out")
	p99=$(field lat_p99_us "$TMP/gen.out")
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
	printf "  %-34s %9s %9s %7s %11s %9s %9s\n" "$(title "$f")" \
		"$sent" "$fwd" "$loss" "$best" "${p50:-NA}" "${p99:-NA}"
	stop_fwd
done
[ -n "$xdp_note" ] && echo "$xdp_note"
[ -n "$tp_note" ] && echo "$tp_note"
echo
echo "max sent/fwd: unpaced lr-pktgen, what left g0 and what came back on g1;"
echo "0-loss: highest paced rate (achieved) with every frame back; p50/p99: the"
echo "latency lr-pktgen measured at $LAT_PPS frames/s (its own send and receive"
echo "paths and the veths included, the same for every row). Every figure is"
echo "bound by the generator's CPU, where the kernel does the forwarder's"
echo "receive work as well (see bench-veth-afxdp.sh)."
echo "Mpps/CPU-s: frames per second of CPU the generator thread got (load-independent)."
