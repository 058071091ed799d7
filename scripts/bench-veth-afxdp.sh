#!/usr/bin/env bash
# Forwarding over veth (root): lr-pktgen on net_af_xdp in namespace gen
# sends 64-byte frames on g0 and counts what comes back on g1; the
# forwarder in namespace fwd takes f0 -> f1:
#
#   gen: lr-pktgen --tx g0 --rx g1   <-veth->   fwd: FORWARDER f0 <-> f1
#
# Forwarders, alternated run by run: lr-l2fwd on net_af_xdp, lr-l2fwd on
# net_af_packet, and (when dpdk-testpmd is installed) DPDK's testpmd io
# forward on its net_af_xdp. For each: the maximum (frames back per second
# with the generator unthrottled), the forwarder's cost per frame and a
# zero-loss check at a set rate. Medians of RUNS. Never fails on speed.
#
# Cost per frame: both forwarders run with --record-core-cycles (testpmd's
# option, and lr-l2fwd's of the same name and meaning): TSC cycles of the
# polls that received frames, over the frames received, syscalls made in
# those polls included. A polling forwarder uses its whole CPU whatever
# the load, so CPU time says nothing about its cost; these cycles do. They
# are taken over the maximum run alone (a forwarder of its own), where
# bursts are full; paced runs cost more per frame.
#
# Two topologies (NAPI_DEFER):
#  - 0 (default): the kernel runs the forwarder's receive (veth NAPI, the
#    XDP program, the copy into the UMEM) on the CPU that sent the frame,
#    the generator's. The generator's CPU then caps every forwarder alike.
#  - N > 0, busy polling: the forwarder's veths get napi_defer_hard_irqs=N
#    and gro_flush_timeout=$GRO_FLUSH ns (default 200000), the settings
#    DPDK's AF_XDP guide gives for preferred busy polling. A frame then
#    waits in the veth ring until the forwarder's own recvfrom() polls it
#    in (or the timer fires), so the forwarder does its receive work on its
#    own CPU and its cost, not the generator's CPU, sets the maximum. The
#    price: the veth ring holds 256 frames, so a forwarder kept off its CPU
#    for longer than 256 frames' time loses frames.
#    On this kernel veth gives its XDP sockets no NAPI id
#    (SO_INCOMING_NAPI_ID 0), so the recvfrom() cannot poll the veth: the
#    deferral timer does, on the CPU that armed it (the NAPI stays on
#    whichever CPU it ran on last, which makes runs vary). lr-l2fwd's
#    net_af_xdp sees the missing id and stops its busy recvfrom() calls
#    ("busy polling off"); DPDK's keeps making them.
# Both forwarders busy-poll the same way: DPDK's net_af_xdp does by default
# (busy_budget=64: SO_PREFER_BUSY_POLL, and a recvfrom() when rx is empty);
# lr-l2fwd's net_af_xdp is given busy_budget=$LR_BUSY (default 0, the
# driver's default, and 64 with NAPI_DEFER, polling as DPDK does).
#
# Max: frames back over the run's duration (a run whose sends stalled does
# not report the rate of its few active milliseconds). Busy share: the
# forwarder's busy-poll cycles over its TSC run time, so a figure well under
# 100% means the generator, not the forwarder, set the rate.
#
# Zero-loss Mpps: after those two runs, ZL_STEPS (default 5) paced runs of
# ZL_SECS (default 2) s bisect between RATE and the unpaced sending rate for
# the highest rate with every frame back (RFC 2544 throughput).
#
# Env: LR_BUILD (default build), DURATION (s per run, default 5), RUNS
# (default 3), RATE (pps of the zero-loss runs, default 100000), GEN_L /
# FWD_L (lcores / CPUs of generator and forwarder, default 0 and 1),
# NAPI_DEFER, GRO_FLUSH (above), LR_BUSY, LR_SHARED_UMEM (lr-l2fwd's two net_af_xdp ports share one UMEM,
# so forwarded frames go out without a copy: 1 or 0, default 1; Debian's
# DPDK 22.11 refuses shared_umem=1, "Shared UMEM feature not available", so
# testpmd runs without it), KINDS (forwarders to run, default all).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/l2fwd-bg.sh
. scripts/l2fwd-bg.sh
b=${LR_BUILD:-build}
dur=${DURATION:-5}
runs=${RUNS:-3}
rate=${RATE:-100000}
zl_steps=${ZL_STEPS:-5}
zl_secs=${ZL_SECS:-2}
gen_l=${GEN_L:-0}
fwd_l=${FWD_L:-1}
napi_defer=${NAPI_DEFER:-0}
gro_flush=${GRO_FLUSH:-200000}
if [ "$napi_defer" -gt 0 ]; then lr_busy=${LR_BUSY:-64}; else lr_busy=${LR_BUSY:-0}; fi
lr_shared=${LR_SHARED_UMEM:-1}
[ "$(id -u)" = 0 ] || { echo "bench-veth-afxdp: needs root" >&2; exit 77; }
[ "$(nproc)" -ge 2 ] || fwd_l=0

pktgen=$b/apps/pktgen/lr-pktgen
l2fwd=$b/apps/l2fwd/lr-l2fwd
for x in "$pktgen" "$l2fwd"; do
	[ -x "$x" ] || { echo "bench-veth-afxdp: $x not built" >&2; exit 77; }
done
testpmd=$(command -v dpdk-testpmd || true)
# DPDK's net_af_xdp wants its mbuf pool in hugepages.
if [ "$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)" -ge 100 ]; then
	dmem=(-m 160)
else
	dmem=(--no-huge -m 256)
fi

P=bx$(($$ % 100000))
TMP=$(mktemp -d /tmp/bench-veth-afxdp.XXXXXX)
FWD_PID=
cleanup() {
	[ -n "$FWD_PID" ] && kill -KILL "$FWD_PID" 2>/dev/null
	scripts/netns.sh destroy "$P"
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
eval "$(scripts/netns.sh create "$P")"
for dev in "$LR_IF_F0" "$LR_IF_F1"; do
	ip netns exec "$LR_NS_FWD" sh -c "echo $napi_defer >/sys/class/net/$dev/napi_defer_hard_irqs &&
		echo $gro_flush >/sys/class/net/$dev/gro_flush_timeout"
done

median() { sort -g | awk '{a[NR]=$1} END {if (NR==0) print "nan"; else print a[int((NR+1)/2)]}'; }
pg_field() { sed -n "s/^pktgen total:.* $1=\([^ ]*\).*/\1/p" "$2" | tail -1; }

# start_fwd KIND: the forwarder in fwd, returns once it forwards.
start_fwd() {
	case $1 in
	lr_af_xdp | lr_af_packet)
		local drv=net_${1#lr_} extra=
		[ "$1" = lr_af_xdp ] && extra=",busy_budget=$lr_busy,shared_umem=$lr_shared"
		fwd_start "$TMP/fwd.out" "Forwarding on" "$l2fwd" --no-huge -m 128 \
			-l "$fwd_l" --file-prefix "${P}f" \
			--vdev "${drv}0,iface=$LR_IF_F0$extra" \
			--vdev "${drv}1,iface=$LR_IF_F1$extra" -- -p 0x3 -T 0 \
			--no-mac-updating --record-core-cycles
		;;
	dpdk_af_xdp)
		fwd_start "$TMP/fwd.out" "forwards packets on" "$testpmd" \
			-l "0,$fwd_l" "${dmem[@]}" --file-prefix "${P}d" \
			--log-level='*:error' --no-pci \
			--vdev "net_af_xdp0,iface=$LR_IF_F0" \
			--vdev "net_af_xdp1,iface=$LR_IF_F1" -- \
			--forward-mode=io --auto-start --stats-period 1 \
			--record-core-cycles --nb-cores 1
		;;
	esac
}

stop_fwd() { fwd_stop || true; }

gen() {
	ip netns exec "$LR_NS_GEN" "$pktgen" --no-huge -m 128 -l "$gen_l" \
		--file-prefix "${P}g" --vdev "net_af_xdp0,iface=$LR_IF_G0" \
		--vdev "net_af_xdp1,iface=$LR_IF_G1" -- --tx-ports 0 \
		--rx-ports 1 --quiet "$@"
}

# zl_search MAX_MPPS: the highest paced rate (achieved Mpps) with every
# frame back, by bisection between RATE and the unpaced run's sending rate
# (RFC 2544 throughput, zero loss); 0 if RATE itself loses.
zl_search() {
	local lo=$rate hi got l best=0 mid
	hi=$(awk -v s="$1" 'BEGIN { printf "%d", (s == "" ? 0 : s * 1e6) }')
	[ "$hi" -gt "$lo" ] || { echo 0; return; }
	for i in $(seq 0 "$zl_steps"); do
		if [ "$i" = 0 ]; then mid=$lo; else mid=$(((lo + hi) / 2)); fi
		gen --duration "$zl_secs" --rate-pps "$mid" --drain-ms 300 \
			>"$TMP/zs.out" 2>&1 || true
		l=$(pg_field lost "$TMP/zs.out")
		got=$(awk -v n="$(pg_field rx_own "$TMP/zs.out")" -v d="$zl_secs" \
			'BEGIN {printf "%.4f", n / d / 1e6}')
		if [ "$l" = 0 ]; then
			lo=$mid
			best=$got
		elif [ "$i" = 0 ]; then
			break
		else
			hi=$mid
		fi
	done
	echo "$best"
}

kinds=(lr_af_xdp lr_af_packet)
[ -n "$testpmd" ] && kinds+=(dpdk_af_xdp)
[ -n "${KINDS:-}" ] && read -r -a kinds <<<"$KINDS"
for r in $(seq "$runs"); do
	for k in "${kinds[@]}"; do
		if ! start_fwd "$k"; then
			echo "$k: forwarder did not start (its last lines above)"
			continue
		fi
		gen --duration "$dur" >"$TMP/max.out" 2>&1 || true
		stop_fwd
		# Cycles of the maximum run alone; a fresh forwarder for the
		# paced runs.
		cp "$TMP/fwd.out" "$TMP/fwd-max.out"
		if ! start_fwd "$k"; then
			echo "$k: forwarder did not start again (its last lines above)"
			continue
		fi
		gen --duration "$dur" --rate-pps "$rate" --drain-ms 500 \
			>"$TMP/zl.out" 2>&1 || true
		best=$(zl_search "$(pg_field tx_mpps "$TMP/max.out")")
		stop_fwd
		# Frames back per second of the run (see Max above).
		rx=$(awk -v n="$(pg_field rx_own "$TMP/max.out")" -v d="$dur" \
			'BEGIN {if (n == "") print "nan"; else printf "%.4f", n / d / 1e6}')
		tx=$(pg_field tx_mpps "$TMP/max.out")
		# Both print "CPU cycles/packet=X" at exit.
		cpp=$(sed -n 's/.*CPU cycles\/packet=\([0-9.]*\).*/\1/p' "$TMP/fwd-max.out" | tail -1)
		cpp=${cpp:-nan}
		lost=$(pg_field lost "$TMP/zl.out")
		zrx=$(pg_field rx_own "$TMP/zl.out")
		echo "$r $k max_back_mpps=$rx gen_tx_mpps=$tx fwd_cycles_per_frame=$cpp zero_loss_at_${rate}pps: rx=$zrx lost=$lost zero_loss_mpps=$best"
		echo "$k $rx $cpp $lost $best" >>"$TMP/all"
	done
done
topo="kernel receives on the sender's CPU"
[ "$napi_defer" -gt 0 ] && topo="busy polling: napi_defer_hard_irqs $napi_defer, gro_flush_timeout $gro_flush ns on f0 f1"
echo "medians over $runs runs (64-byte frames, generator lr-pktgen on net_af_xdp, lcores gen $gen_l / fwd $fwd_l, lr busy_budget $lr_busy, lr shared_umem $lr_shared; $topo):"
for k in "${kinds[@]}"; do
	m=$(awk -v k="$k" '$1 == k {print $2}' "$TMP/all" | median)
	c=$(awk -v k="$k" '$1 == k {print $3}' "$TMP/all" | median)
	z=$(awk -v k="$k" '$1 == k && $4 == 0 {n++} END {print n + 0}' "$TMP/all")
	t=$(awk -v k="$k" '$1 == k {print $5}' "$TMP/all" | median)
	printf "  %-13s max %s Mpps back, zero-loss %s Mpps, forwarder %s cycles per frame (busy polls), zero loss at %s pps in %s of %s runs\n" \
		"$k" "$m" "$t" "$c" "$rate" "$z" "$runs"
done
