#!/usr/bin/env bash
# Forwarding benchmark: lr-l2fwd on two net_null ports (64-byte packets,
# copy=0, mac updating, one lcore) beside DPDK 22.11's l2fwd example in the
# same configuration, as Debian ships it (built against libdpdk-dev) and
# built natively by scripts/dpdk-native.sh when that build is there; then
# the same forwarding loop on two net_ring ports fed by a generator
# (lr-l2fwd-ring-bench: on its own lcore, and sharing the forwarder's
# lcore). Never fails on speed; DPDK is optional.
#
# Measured the same way for every program: RUNS rounds, each running the
# programs one after the other (lr-l2fwd, DPDK Debian, DPDK native), each
# with stats every second (-T 1), the same EAL memory and lcore (-l 0); a
# run's rate is the growth of its "Total packets sent" between its stats
# line at WARMUP seconds and the one DURATION seconds later (DPDK l2fwd's
# rate climbs over its first 3-4 s: the warm-up is left out for every
# program alike). Each program's figure is the median of its runs, with the
# range; the ratios are of the medians.
#
# Env: LR_BUILD (build dir, default build), WARMUP (seconds left out,
# default 4), DURATION (seconds measured, default 4), RUNS (default 3),
# LR_DPDK_NATIVE_DIR (see scripts/dpdk-native.sh). About 1.5 minutes with
# the defaults and both DPDK builds.
set -euo pipefail
cd "$(dirname "$0")/.."
b=${LR_BUILD:-build}
warm=${WARMUP:-4}
dur=${DURATION:-4}
runs=${RUNS:-3}

[ -f "$b/build.ninja" ] || meson setup "$b" >/dev/null
ninja -C "$b" >/dev/null
l2fwd=$b/apps/l2fwd/lr-l2fwd
ringb=$b/apps/l2fwd/lr-l2fwd-ring-bench

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

# "median [min-max]" of the numbers on stdin ("nan" lines are failed runs).
stats() {
	grep -v nan | sort -g | awk '{a[NR] = $1}
		END {if (NR == 0) print "nan"; else printf "%s [%s-%s]\n", a[int((NR + 1) / 2)], a[1], a[NR]}'
}
# Rate in Mpps from stats output on stdin: Total packets sent at line
# WARMUP and at line WARMUP + DURATION (one line a second).
window_rate() {
	tr -d '\033' | sed -n 's/.*Total packets sent: *\([0-9]*\).*/\1/p' |
		awk -v w="$warm" -v d="$dur" '{v[NR] = $1}
			END {if (NR < w + d || w < 1) print "nan"; else printf "%.2f\n", (v[w + d] - v[w]) / d / 1e6}'
}

# DPDK's l2fwd example as Debian ships it (scripts/dpdk-l2fwd-example.sh).
# shellcheck source=scripts/dpdk-l2fwd-example.sh
. scripts/dpdk-l2fwd-example.sh
names=(lr-l2fwd); labels=(lr-l2fwd); cmds=("$l2fwd"); notes=()
if ex=$(dpdk_l2fwd_example "$b"); then
	names+=("DPDK $(pkg-config --modversion libdpdk) l2fwd (Debian)")
	cmds+=("$ex")
	labels+=(dpdk-debian)
else
	notes+=("DPDK l2fwd (Debian): $ex")
fi
if nat=$(scripts/dpdk-native.sh --print 2>/dev/null); then
	names+=("DPDK l2fwd (native: $(echo "$nat" | sed -n 's/^cflags: //p'))")
	cmds+=("$(echo "$nat" | sed -n 's/^l2fwd: //p')")
	labels+=(dpdk-native)
else
	notes+=("DPDK l2fwd (native): no peer (no build from scripts/dpdk-native.sh)")
fi

# One run of program i: prints its window rate.
run_one() {
	local i=$1 t=$((warm + dur + 1))
	if [ "$i" -eq 0 ]; then
		"${cmds[0]}" -l 0 "${mem[@]}" --file-prefix=bench_l2fwd "${null_vdevs[@]}" \
			-- -p 0x3 -T 1 --duration "$t" 2>&1 | window_rate
	else
		{ timeout -s INT $((t + 1)) "${cmds[$i]}" -l 0 "${mem[@]}" --no-pci \
			--file-prefix=bench_dpdk_l2fwd --log-level='*:error' \
			"${null_vdevs[@]}" -- -p 0x3 -q 2 -T 1 2>&1 || true; } | window_rate
	fi
}

echo "== l2fwd: 2 x net_null (size=64, copy=0), one lcore, mac updating, $memtxt"
echo "\$ $l2fwd -l 0 ${mem[*]} --file-prefix=bench_l2fwd ${null_vdevs[*]} -- -p 0x3 -T 1 --duration $((warm + dur + 1))"
for i in "${!cmds[@]}"; do
	[ "$i" -gt 0 ] && echo "\$ ${cmds[$i]} -l 0 ${mem[*]} --no-pci --file-prefix=bench_dpdk_l2fwd ${null_vdevs[*]} -- -p 0x3 -q 2 -T 1   (${names[$i]}; SIGINT after $((warm + dur + 2)) s)"
done
for note in "${notes[@]}"; do echo "$note"; done
echo "rate: Total packets sent from second $warm to second $((warm + dur)) of each run (warm-up left out), $runs alternating rounds"
declare -A rates
for r in $(seq "$runs"); do
	line="  round $r:"
	for i in "${!cmds[@]}"; do
		v=$(run_one "$i")
		rates[$i]+="$v "
		line+=" ${labels[$i]}=$v"
	done
	echo "$line"
done
declare -A med
for i in "${!cmds[@]}"; do
	s=$(echo "${rates[$i]}" | tr ' ' '\n' | grep . | stats)
	med[$i]=${s%% *}
	echo "${names[$i]}: median [range] ${s} Mpps forwarded"
done
for i in "${!cmds[@]}"; do
	[ "$i" -gt 0 ] || continue
	awk -v a="${med[0]}" -v d="${med[$i]}" -v n="${names[$i]}" \
		'BEGIN { if (a > 0 && d > 0) printf "ratio lr-l2fwd / %s: %.2f\n", n, a / d }'
done
# For the opening table of bench/run:
# "summary|what|unit|better|linerate|DPDK Debian|DPDK native".
sd=-; sn=-
for i in "${!cmds[@]}"; do
	case ${labels[$i]} in
	dpdk-debian) sd=${med[$i]} ;;
	dpdk-native) sn=${med[$i]} ;;
	esac
done
echo "summary|l2fwd, 2 x net_null, one lcore ($memtxt)|Mpps|higher|${med[0]}|$sd|$sn"
echo
echo "== net_ring ports fed by a generator (lr-l2fwd-ring-bench), mac updating, ${dur} s"
if [ "$(nproc)" -ge 2 ]; then
	cmd=("$ringb" -l 0-1 "${mem[@]}" --file-prefix=bench_ringfwd -- --duration "$dur")
	echo "\$ ${cmd[*]}"
	"${cmd[@]}" 2>&1 | grep -E '^(forwarder|ring-fwd total|mbufs in use)' || true
else
	echo "one CPU only: generator on its own lcore skipped"
fi
cmd=("$ringb" -l 0 "${mem[@]}" --file-prefix=bench_ringfwd -- --duration "$dur" --one-lcore)
echo "\$ ${cmd[*]}"
"${cmd[@]}" 2>&1 | grep -E '^(forwarder|ring-fwd total|mbufs in use)' || true
echo "target: 14.88 Mpps (64-byte line rate of 10 GbE) on one forwarding core"
