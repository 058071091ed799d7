#!/usr/bin/env bash
# The DPDK bridge's cost (issue 19), in one run:
#  1. forwarding on two net_null ports, 64-byte frames, mac updating, one
#     forwarding lcore: lr-l2fwd over net_dpdk (DPDK's net_null under
#     linerate ports), lr-l2fwd on linerate's own net_null, DPDK's l2fwd
#     example on DPDK's net_null (when bench/run l2fwd built it, or
#     it can be built here) and dpdk-testpmd io on net_null; then, when
#     scripts/dpdk-native.sh's build is there (the same DPDK version),
#     lr-l2fwd over net_dpdk on that build's shared libraries and drivers
#     against its own l2fwd: both sides -O3 -march=native, the comparison
#     issue 19 sets its goal on; on both DPDK builds, the floor of any
#     bridge: lr-l2fwd over net_dpdk's benchmark-only build
#     (drivers/plugins/floor), which hands DPDK's mbufs over as they are;
#  2. dpdk-testpmd io on net_null with its mbuf pool on the "linerate"
#     mempool ops (liblinerate_dpdk_mempool.so) against DPDK's ring_mp_mc.
# Never fails on speed; the DPDK parts need dpdk/dpdk-dev.
#
# Rates: lr-l2fwd and DPDK l2fwd: the growth of "Total packets sent"
# between their stats line at WARMUP seconds and the one DURATION seconds
# later (as bench/run l2fwd). testpmd (interactive, on lcores 0,1:
# main + one forwarding lcore): its TX total over the time between its
# `start` and `stop` replies, after WARMUP seconds forwarding before a
# `clear port stats all` (testpmd's own Tx-pps lines skip periods under
# load). RUNS alternating rounds, median [range].
#
# Env: LR_BUILD (default build), WARMUP (default 3), DURATION (default 4),
# RUNS (default 3). About 4 minutes with the defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
b=${LR_BUILD:-build}
warm=${WARMUP:-3}
dur=${DURATION:-4}
runs=${RUNS:-3}

[ -f "$b/build.ninja" ] || meson setup "$b" >/dev/null
ninja -C "$b" >/dev/null
l2fwd=$b/apps/l2fwd/lr-l2fwd
plugin=$b/drivers/mempool/dpdk/liblinerate_dpdk_mempool.so
floor=$b/drivers/plugins/floor
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" /var/run/dpdk/bench_bridge_*' EXIT

free_huge=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages 2>/dev/null || echo 0)
if [ "$free_huge" -ge 192 ]; then
	mem=(-m 256)
	memtxt="hugepages"
else
	mem=(--no-huge -m 256)
	memtxt="no hugepages free: --no-huge"
fi
# shellcheck disable=SC2054
null_vdevs=(--vdev net_null0,size=64,copy=0 --vdev net_null1,size=64,copy=0)
# shellcheck disable=SC2054
bridge_vdevs=(--vdev 'net_dpdk0,dev=[net_null0,size=64,copy=0]'
	--vdev 'net_dpdk1,dev=[net_null1,size=64,copy=0]')

stats() {
	grep -v nan | sort -g | awk '{a[NR] = $1}
		END {if (NR == 0) print "nan"; else printf "%s [%s-%s]\n", a[int((NR + 1) / 2)], a[1], a[NR]}'
}
window_rate() {
	tr -d '\033' | sed -n 's/.*Total packets sent: *\([0-9]*\).*/\1/p' |
		awk -v w="$warm" -v d="$dur" '{v[NR] = $1}
			END {if (NR < w + d || w < 1) print "nan"; else printf "%.2f\n", (v[w + d] - v[w]) / d / 1e6}'
}

# lr-l2fwd with these vdevs: its window rate.
lr_rate() {
	"$l2fwd" -l 0 "${mem[@]}" --file-prefix=bench_bridge_lr "$@" \
		-- -p 0x3 -T 1 --duration $((warm + dur + 1)) 2>&1 | window_rate
}

# DPDK's l2fwd example (bench/run l2fwd builds it in $b/dpdk-l2fwd).
dl2fwd=$b/dpdk-l2fwd/build/l2fwd
if [ ! -x "$dl2fwd" ] && pkg-config --exists libdpdk 2>/dev/null; then
	for d in /usr/share/dpdk/examples/l2fwd \
		"${LR_DPDK_NATIVE_DIR:-/var/cache/linerate/dpdk-native}"/src/dpdk-22.11*/examples/l2fwd; do
		[ -f "$d/main.c" ] || continue
		rm -rf "$b/dpdk-l2fwd"
		cp -r "$d" "$b/dpdk-l2fwd"
		make -s -C "$b/dpdk-l2fwd" >"$b/dpdk-l2fwd.log" 2>&1 || true
		break
	done
fi
# DPDK's l2fwd binary $1 on DPDK's net_null: its window rate.
dpdk_l2fwd_rate() {
	{ timeout -s INT $((warm + dur + 2)) "$1" -l 0 "${mem[@]}" --no-pci \
		--file-prefix=bench_bridge_dl2fwd --log-level='*:error' \
		"${null_vdevs[@]}" -- -p 0x3 -q 2 -T 1 2>&1 || true; } | window_rate
}

# Wait (up to 60 s) until file $1 has more than $2 lines matching $3.
wait_count() {
	for _ in $(seq 600); do
		[ "$(grep -c -- "$3" "$1")" -gt "$2" ] && return 0
		read -r -t 0.1 <> <(:) || true
	done
	return 1
}

# testpmd io on two net_null ports with extra EAL args "$@": Mpps.
testpmd_rate() {
	local out=$tmp/tp.log fifo=$tmp/in pid t0 t1 tx
	rm -f "$fifo"
	mkfifo "$fifo"
	stdbuf -oL dpdk-testpmd -l 0,1 "${mem[@]}" --no-pci \
		--file-prefix=bench_bridge_tp "$@" "${null_vdevs[@]}" -- -i \
		--forward-mode=io --nb-cores=1 --total-num-mbufs=8192 \
		<"$fifo" >"$out" 2>&1 &
	pid=$!
	exec 4>"$fifo"
	if ! wait_count "$out" 0 'testpmd>'; then
		exec 4>&-; kill "$pid" 2>/dev/null; wait "$pid" || true
		echo nan; return
	fi
	echo start >&4
	wait_count "$out" 0 'io packet forwarding' || true
	read -r -t "$warm" <> <(:) || true
	echo "clear port stats all" >&4
	t0=$(date +%s.%N)
	read -r -t "$dur" <> <(:) || true
	echo stop >&4
	wait_count "$out" 0 'Accumulated forward statistics' || true
	t1=$(date +%s.%N)
	echo quit >&4
	exec 4>&-
	wait "$pid" || true
	tx=$(sed -n '/Accumulated forward/,$p' "$out" | sed -n 's/.*TX-packets: *\([0-9]*\).*/\1/p' | head -1)
	awk -v n="${tx:-0}" -v a="$t0" -v z="$t1" \
		'BEGIN { if (n > 0 && z > a) printf "%.2f\n", n / (z - a) / 1e6; else print "nan" }'
}

# One run of the program of kind $1: its rate.
run_one() {
	case $1 in
	bridge) lr_rate "${bridge_vdevs[@]}" ;;
	null) lr_rate "${null_vdevs[@]}" ;;
	bridge_nat) LD_LIBRARY_PATH=$nat_lib lr_rate "${bridge_vdevs[@]}" ;;
	floor) lr_rate -d "$floor" "${bridge_vdevs[@]}" ;;
	floor_nat) LD_LIBRARY_PATH=$nat_lib lr_rate -d "$floor" "${bridge_vdevs[@]}" ;;
	dl2fwd) dpdk_l2fwd_rate "$dl2fwd" ;;
	dl2fwd_nat) dpdk_l2fwd_rate "$nat_l2fwd" ;;
	testpmd) testpmd_rate ;;
	esac
}

names=("lr-l2fwd over net_dpdk(net_null)" "lr-l2fwd on linerate's net_null")
fns=(bridge null)
if [ -x "$dl2fwd" ]; then
	names+=("DPDK $(pkg-config --modversion libdpdk) l2fwd on DPDK's net_null")
	fns+=(dl2fwd)
fi
if command -v dpdk-testpmd >/dev/null && [ "$(nproc)" -ge 2 ]; then
	names+=("dpdk-testpmd io on DPDK's net_null (lcores 0,1)")
	fns+=(testpmd)
fi
# The floor of any bridge: net_dpdk's benchmark-only build
# (drivers/plugins/floor, -d), which hands DPDK's mbufs over as they are.
if [ -f "$floor/liblinerate_net_dpdk.so" ]; then
	names+=("lr-l2fwd over net_dpdk's floor build (no per-packet work)")
	fns+=(floor)
fi
# The same on scripts/dpdk-native.sh's build (-O3 -march=native, as
# build-bench): the bridge runs on its shared librte_* and drivers
# (LD_LIBRARY_PATH; same DPDK version, so the same ABI the plugin was
# built for), DPDK's l2fwd is its static one.
nat_lib="" nat_l2fwd=""
if nat=$(scripts/dpdk-native.sh --print 2>/dev/null); then
	nat_pc=$(echo "$nat" | sed -n 's/^pkgconfig: //p')
	nat_l2fwd=$(echo "$nat" | sed -n 's/^l2fwd: //p')
	nat_ver=$(PKG_CONFIG_PATH=$nat_pc pkg-config --modversion libdpdk 2>/dev/null || true)
	deb_ver=$(pkg-config --modversion libdpdk 2>/dev/null || true)
	if [ -x "$nat_l2fwd" ] && [ -n "$nat_ver" ] && [ "$nat_ver" = "$deb_ver" ]; then
		nat_lib=$(dirname "$nat_pc")
		names+=("lr-l2fwd over net_dpdk(net_null), native DPDK $nat_ver")
		fns+=(bridge_nat)
		if [ -f "$floor/liblinerate_net_dpdk.so" ]; then
			names+=("lr-l2fwd over net_dpdk's floor build, native DPDK $nat_ver")
			fns+=(floor_nat)
		fi
		names+=("DPDK $nat_ver l2fwd on DPDK's net_null, native build")
		fns+=(dl2fwd_nat)
	else
		echo "native rows skipped: DPDK native '$nat_ver' and Debian '$deb_ver' differ, or no native l2fwd"
	fi
fi

echo "== forwarding, 2 x net_null (size=64, copy=0), one forwarding lcore, $memtxt"
echo "\$ $l2fwd -l 0 ${mem[*]} ${bridge_vdevs[*]} -- -p 0x3 -T 1 --duration $((warm + dur + 1))"
declare -A rates
for r in $(seq "$runs"); do
	line="  round $r:"
	for i in "${!fns[@]}"; do
		v=$(run_one "${fns[$i]}")
		rates[$i]+="$v "
		line+=" [$i]=$v"
	done
	echo "$line"
done
declare -A med idx
for i in "${!fns[@]}"; do
	s=$(echo "${rates[$i]}" | tr ' ' '\n' | grep . | stats)
	med[$i]=${s%% *}
	idx[${fns[$i]}]=$i
	echo "[$i] ${names[$i]}: median [range] $s Mpps"
done
# ratio A B: the median of kind A over the median of kind B, when both ran.
ratio() {
	[ -n "${idx[$1]:-}" ] && [ -n "${idx[$2]:-}" ] || return 0
	awk -v a="${med[${idx[$1]}]}" -v d="${med[${idx[$2]}]}" \
		-v n="[${idx[$1]}] / [${idx[$2]}] ${names[${idx[$1]}]} / ${names[${idx[$2]}]}" \
		'BEGIN { if (a > 0 && d > 0) printf "ratio %s: %.2f\n", n, a / d }'
}
ratio bridge null
ratio bridge dl2fwd
ratio bridge testpmd
ratio floor dl2fwd
ratio bridge_nat dl2fwd_nat
ratio floor_nat dl2fwd_nat
# For BENCHMARKS.md's opening table (bench/run):
# "summary|what|unit|better|linerate|DPDK Debian|DPDK native", the bridge
# against DPDK's l2fwd on the same DPDK build, one row per build.
kmed() { [ -n "${idx[$1]:-}" ] && echo "${med[${idx[$1]}]}" || echo -; }
echo "summary|l2fwd over net_dpdk(net_null), Debian's DPDK under both|Mpps|higher|$(kmed bridge)|$(kmed dl2fwd)|-"
if [ -n "${idx[bridge_nat]:-}" ]; then
	echo "summary|l2fwd over net_dpdk(net_null), native DPDK under both|Mpps|higher|$(kmed bridge_nat)|-|$(kmed dl2fwd_nat)"
fi

echo
echo "== dpdk-testpmd io on 2 x net_null, mbuf pool ops: linerate vs ring_mp_mc"
if ! command -v dpdk-testpmd >/dev/null || [ ! -f "$plugin" ] || [ "$(nproc)" -lt 2 ]; then
	echo "skipped: needs dpdk-testpmd, $plugin and 2 CPUs"
	exit 0
fi
declare -A ops
# Which goes first alternates from round to round.
for r in $(seq "$runs"); do
	if [ $((r % 2)) -eq 1 ]; then
		a=$(testpmd_rate -d "$plugin" --mbuf-pool-ops-name=linerate)
		c=$(testpmd_rate --mbuf-pool-ops-name=ring_mp_mc)
	else
		c=$(testpmd_rate --mbuf-pool-ops-name=ring_mp_mc)
		a=$(testpmd_rate -d "$plugin" --mbuf-pool-ops-name=linerate)
	fi
	ops[linerate]+="$a "
	ops[ring]+="$c "
	echo "  round $r: linerate=$a ring_mp_mc=$c"
done
la=$(echo "${ops[linerate]}" | tr ' ' '\n' | grep . | stats)
ra=$(echo "${ops[ring]}" | tr ' ' '\n' | grep . | stats)
echo "linerate ops: median [range] $la Mpps"
echo "ring_mp_mc:   median [range] $ra Mpps"
awk -v a="${la%% *}" -v d="${ra%% *}" \
	'BEGIN { if (a > 0 && d > 0) printf "ratio linerate / ring_mp_mc: %.2f\n", a / d }'
echo "summary|testpmd io on net_null, mempool ops \"linerate\" (DPDK: ring_mp_mc)|Mpps|higher|${la%% *}|${ra%% *}|-"
