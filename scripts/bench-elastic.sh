#!/usr/bin/env bash
# Elastic mbuf pools against fixed ones (issue 17). Never fails on speed.
#
# 1. Forwarding cost: lr-l2fwd on two net_null ports (64-byte packets,
#    copy=0, one lcore) with its default elastic pool and with a fixed pool
#    of the size lr-l2fwd computes (--mbufs N), alternating, RUNS rounds;
#    a run's rate is the growth of its "Total packets sent" between its
#    stats line at WARMUP seconds and the one DURATION seconds later (as
#    bench/run l2fwd measures). Median [range] of each, and the
#    ratio elastic / fixed.
# 2. Memory and drops under bursts: lr-elastic-bench (bursts of
#    BURST_FRAMES frames every PERIOD_MS ms into a net_ring port drained at
#    DRAIN_PER_MS frames per ms, TAIL_MS ms after the last of BURSTS) with
#    three pools: fixed at DPDK's usual formula (l2fwd's: max(ports x
#    (rxd + txd + burst + lcores x cache), 8192) = 8192 here), fixed at
#    the elastic pool's maximum (sized for the worst burst), and elastic
#    (MIN-MAX, blocks idle for IDLE_MS ms given back). Peak, average and
#    final memory the pool holds, and frames dropped for want of an mbuf.
#    Then DPDK's fixed mempool in the same setup: bench/dpdk/elastic_bench.c
#    runs the same profile with an rte_pktmbuf pool (ring_mp_mc, the same
#    cache) and DPDK's net_ring driver over rte_rings of the same size, at
#    8192 and at the elastic maximum, and prints the same line; it is built
#    against Debian's libdpdk and scripts/dpdk-native.sh's build when
#    present (scripts/dpdk-peers.sh), one row each. For a fixed pool the
#    memory held is its whole populated memory (linerate: its blocks,
#    lr_mempool_mem_bytes(); DPDK: the chunks rte_mempool_mem_iter()
#    lists; without hugepages DPDK puts each 2 KiB mbuf in a 4 KiB page
#    of its own: its objects may not cross a page there).
#
# Env: LR_BUILD (build dir, default build), WARMUP (default 4), DURATION
# (default 4), RUNS (default 3), ELASTIC (MIN-MAX of the burst runs,
# default 1024-65536), BURSTS (default 20), BURST_FRAMES (default 24000),
# PERIOD_MS (default 250), DRAIN_PER_MS (default 1000), IDLE_MS (default
# 100), TAIL_MS (default 2000), LR_DPDK_NATIVE_DIR (see
# scripts/dpdk-native.sh). About 1.5 minutes with the defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
b=${LR_BUILD:-build}
warm=${WARMUP:-4}
dur=${DURATION:-4}
runs=${RUNS:-3}
elastic=${ELASTIC:-1024-65536}
bursts=${BURSTS:-20}
burst_frames=${BURST_FRAMES:-24000}
period=${PERIOD_MS:-250}
drain=${DRAIN_PER_MS:-1000}
idle=${IDLE_MS:-100}
tail_ms=${TAIL_MS:-2000}

[ -f "$b/build.ninja" ] || meson setup "$b" >/dev/null
ninja -C "$b" >/dev/null
l2fwd=$b/apps/l2fwd/lr-l2fwd
ebench=$b/apps/elastic-bench/lr-elastic-bench
# shellcheck source=scripts/dpdk-peers.sh
. scripts/dpdk-peers.sh
peer_names=(); peer_bins=(); peer_notes=()
peer_driver_libs=(-lrte_net_ring)
dpdk_peers bench/dpdk/elastic_bench.c "$b/bench-dpdk/elastic-bench"

free_huge=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages 2>/dev/null || echo 0)
if [ "$free_huge" -ge 448 ]; then
	mem=(-m 512)
	memtxt="hugepages"
	# DPDK: no runtime files and no hugepage files left behind
	# (--no-huge implies --legacy-mem, which --in-memory refuses).
	dpdk_mem=(--in-memory)
else
	mem=(--no-huge -m 512)
	memtxt="no hugepages free: --no-huge"
	dpdk_mem=(--no-shconf)
fi
prefix=bench_elastic_$$
# The runs' outputs, and the (here empty) runtime folder DPDK makes
# whatever the options; on any exit.
trap 'rm -f "/tmp/${prefix}"_*; rmdir "/var/run/dpdk/${prefix}_b" 2>/dev/null || true' EXIT

# "median [min-max]" of the numbers on stdin ("nan" lines are failed runs).
stats() {
	grep -v nan | sort -g | awk '{a[NR] = $1}
		END {if (NR == 0) print "nan"; else printf "%s [%s-%s]\n", a[int((NR + 1) / 2)], a[1], a[NR]}'
}
# Rate in Mpps from lr-l2fwd's stats on stdin (one block a second).
window_rate() {
	sed -n 's/.*Total packets sent: *\([0-9]*\).*/\1/p' |
		awk -v w="$warm" -v d="$dur" '{v[NR] = $1}
			END {if (NR < w + d || w < 1) print "nan"; else printf "%.2f\n", (v[w + d] - v[w]) / d / 1e6}'
}
median() { stats | cut -d' ' -f1; }

echo "== bench-elastic: $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(nproc) CPUs, $memtxt"
echo
echo "-- 1. lr-l2fwd on net_null ports: elastic pool vs fixed ($runs rounds, ${dur} s after ${warm} s)"
fwd() { # fwd LABEL [--mbufs N]: one run's rate
	timeout $((warm + dur + 30)) "$l2fwd" -l 0 "${mem[@]}" \
		--file-prefix="${prefix}_fwd" \
		--vdev net_null0,size=64,copy=0 --vdev net_null1,size=64,copy=0 \
		-- -p 0x3 -T 1 --duration $((warm + dur + 1)) "$@" 2>&1 |
		tee "/tmp/${prefix}_fwd.out" | window_rate
}
fixed_n=$(timeout 60 "$l2fwd" -l 0 "${mem[@]}" --file-prefix="${prefix}_n" \
	--vdev net_null0,size=64,copy=0 --vdev net_null1,size=64,copy=0 \
	-- -p 0x3 -T 0 --duration 0.1 2>&1 |
	sed -n 's/^mbuf pool: the ports need \([0-9]*\) mbufs.*/\1/p')
: >"/tmp/${prefix}_el" && : >"/tmp/${prefix}_fx"
for ((i = 0; i < runs; i++)); do
	fwd >>"/tmp/${prefix}_el"
	fwd --mbufs "$fixed_n" >>"/tmp/${prefix}_fx"
done
el=$(stats <"/tmp/${prefix}_el")
fx=$(stats <"/tmp/${prefix}_fx")
printf "  %-34s %s Mpps\n" "elastic (default)" "$el"
printf "  %-34s %s Mpps\n" "fixed (--mbufs $fixed_n)" "$fx"
ratio=$(awk -v a="$(median <"/tmp/${prefix}_el")" -v b="$(median <"/tmp/${prefix}_fx")" \
	'BEGIN {if (b > 0 && a > 0) printf "%.3f", a / b; else print "nan"}')
echo "  elastic / fixed: $ratio"

echo
echo "-- 2. bursts into net_ring behind a slow consumer: $bursts x $burst_frames frames every $period ms, drained at $drain per ms"
printf "  %-26s %10s %10s %10s %10s %8s %8s\n" pool peak_MiB avg_MiB end_MiB dropped growths shrinks
burst() { # burst LABEL MBUFS [PROGRAM EXTRA-EAL-OPTIONS...]
	local out label=$1 mbufs=$2 prog=${3:-$ebench}
	shift $(($# > 3 ? 3 : $#))
	out=$(timeout $((bursts * period / 1000 + tail_ms / 1000 + 60)) "$prog" -l 0 "${mem[@]}" \
		--file-prefix="${prefix}_b" "$@" -- --mbufs "$mbufs" --bursts "$bursts" \
		--burst-frames "$burst_frames" --period-ms "$period" \
		--drain-per-ms "$drain" --idle-ms "$idle" --tail-ms "$tail_ms" 2>&1) || {
		echo "  $label: $(basename "$prog") failed:"
		echo "$out" | tail -5
		return 0
	}
	echo "$out" | grep '^elastic-bench pool=' | awk -v l="$label" '{
		for (i = 2; i <= NF; i++) {split($i, kv, "="); f[kv[1]] = kv[2]}
		printf "  %-26s %10s %10s %10s %10d %8s %8s\n", l, f["held_peak_MiB"],
			f["held_avg_MiB"], f["held_end_MiB"],
			f["drops_nombuf"] + f["drops_ring_full"], f["growths"], f["shrinks"]
	}'
}
burst "fixed 8192 (DPDK formula)" 8192
burst "fixed ${elastic#*-} (worst burst)" "${elastic#*-}"
burst "elastic $elastic" "$elastic"
# DPDK's own pool, port and ring.
for i in "${!peer_bins[@]}"; do
	kind=${peer_names[$i]##* }
	burst "DPDK fixed 8192 ($kind)" 8192 "${peer_bins[$i]}" \
		--no-pci "${dpdk_mem[@]}" --no-telemetry --log-level='*:error'
	burst "DPDK fixed ${elastic#*-} ($kind)" "${elastic#*-}" \
		"${peer_bins[$i]}" --no-pci "${dpdk_mem[@]}" --no-telemetry \
		--log-level='*:error'
done
echo "  DPDK rows: bench/dpdk/elastic_bench.c (rte_pktmbuf pool ring_mp_mc, cache 256; net_ring over rte_rings of 32768), cc ${peer_cflags[*]}"
for i in "${!peer_names[@]}"; do echo "  ${peer_names[$i]}: ${peer_bins[$i]}"; done
for note in "${peer_notes[@]}"; do echo "  $note"; done
