#!/usr/bin/env bash
# Forwarding benchmark: lr-l2fwd on two net_null ports (64-byte packets,
# copy=0, mac updating, one lcore), then the same forwarding loop on two
# net_ring ports fed by a generator (lr-l2fwd-ring-bench: on its own lcore,
# and sharing the forwarder's lcore), and, when DPDK's packages are there,
# DPDK's l2fwd example in the same configuration, alternating runs, with the
# ratio of the medians. Never fails on speed; DPDK is optional.
#
# Env: LR_BUILD (build dir, default build), DURATION (seconds per run,
# default 5), RUNS (alternating runs per program, default 3).
#
# Two figures per run: Mpps forwarded per wall-clock second, and per second
# of CPU the forwarding thread was actually given (thread CPU time), which
# stays meaningful on a shared, busy host.
set -euo pipefail
cd "$(dirname "$0")/.."
b=${LR_BUILD:-build}
dur=${DURATION:-5}
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
null_vdevs=(--vdev net_null0,size=64,copy=0 --vdev net_null1,size=64,copy=0)

median() { sort -g | awk '{a[NR]=$1} END {if (NR==0) print "nan"; else print a[int((NR+1)/2)]}'; }
field() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p"; }

# DPDK's l2fwd example, built once into the build dir when possible.
dpdk=""
if pkg-config --exists libdpdk 2>/dev/null &&
   [ -f /usr/share/dpdk/examples/l2fwd/main.c ]; then
	ddir=$b/dpdk-l2fwd
	if [ ! -x "$ddir/build/l2fwd" ]; then
		rm -rf "$ddir"
		cp -r /usr/share/dpdk/examples/l2fwd "$ddir"
		make -s -C "$ddir" >/dev/null 2>&1 || true
	fi
	[ -x "$ddir/build/l2fwd" ] && dpdk=$ddir/build/l2fwd
fi

# One DPDK l2fwd run: stats every second, SIGINT after the duration; the
# rate is taken between the first and last non-zero aggregate.
dpdk_run() {
	{ timeout -s INT $((dur + 2)) "$dpdk" -l 0 "${mem[@]}" --file-prefix=bench_dpdk_l2fwd \
		--log-level='*:error' "${null_vdevs[@]}" -- -p 0x3 -q 2 -T 1 2>&1 || true; } |
		tr -d '\033' | sed -n 's/.*Total packets sent: *\([0-9]*\).*/\1/p' |
		awk '$1 > 0 {v[n++] = $1} END {if (n < 2) print "nan"; else printf "%.2f\n", (v[n-1] - v[0]) / (n - 1) / 1e6}'
}

echo "== lr-l2fwd: 2 x net_null (size=64, copy=0), one lcore, mac updating, ${dur} s, $memtxt"
cmd=("$l2fwd" -l 0 "${mem[@]}" --file-prefix=bench_l2fwd "${null_vdevs[@]}" -- -p 0x3 -T 0 --duration "$dur")
echo "\$ ${cmd[*]}"
[ -n "$dpdk" ] && echo "\$ $dpdk -l 0 ${mem[*]} --file-prefix=bench_dpdk_l2fwd ${null_vdevs[*]} -- -p 0x3 -q 2 -T 1   (SIGINT after $((dur + 2)) s, rate between first and last stats)"
lr_wall=(); lr_cpu=(); dp_wall=()
for i in $(seq "$runs"); do
	out=$("${cmd[@]}" 2>&1 | grep -E '^l2fwd total|mbufs in use') || true
	line=$(echo "$out" | grep '^l2fwd total' || true)
	echo "  run $i lr-l2fwd: ${line#l2fwd total: } ($(echo "$out" | grep 'in use' || echo 'no in-use line'))"
	lr_wall+=("$(echo "$line" | field Mpps)")
	lr_cpu+=("$(echo "$line" | field Mpps_per_cpu)")
	if [ -n "$dpdk" ]; then
		d=$(dpdk_run)
		echo "  run $i DPDK l2fwd: Mpps=$d"
		dp_wall+=("$d")
	fi
done
lw=$(printf '%s\n' "${lr_wall[@]}" | median)
lc=$(printf '%s\n' "${lr_cpu[@]}" | median)
echo "lr-l2fwd null x2: median ${lw} Mpps forwarded (wall), ${lc} Mpps per CPU-second of the forwarding lcore"
if [ -n "$dpdk" ]; then
	dw=$(printf '%s\n' "${dp_wall[@]}" | median)
	echo "DPDK 22.11 l2fwd null x2: median ${dw} Mpps forwarded (wall)"
	awk -v a="$lw" -v d="$dw" 'BEGIN { if (d > 0) printf "ratio lr-l2fwd / DPDK l2fwd (wall, same run): %.2f\n", a / d }'
else
	echo "DPDK l2fwd: not available (needs pkg-config libdpdk and /usr/share/dpdk/examples/l2fwd); skipped"
fi
echo "reference: DPDK 22.11 l2fwd on an idle machine of this kind: about 123.6 Mpps (bench notes)"

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
