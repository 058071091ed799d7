#!/usr/bin/env bash
# lr-pktgen generation rate on net_null, one datapath lcore, 64-byte frames,
# with and without hugepages; beside it, when Debian's dpdk-testpmd is
# installed (package dpdk-dev), DPDK's txonly generator on net_null run the
# same way, and the ratio.
#
#   scripts/bench-pktgen.sh [BUILD_DIR] [SECONDS] [RUNS]
#
# Each run prints Mpps (wall clock) and Mpps per CPU-second of the datapath
# thread: on a shared machine the second is the comparable one (a thread
# that gets half a CPU sends half as much). Runs alternate between the two
# programs; medians are printed.
set -euo pipefail

BUILD=${1:-build}
SECS=${2:-4}
RUNS=${3:-3}
PKTGEN=$BUILD/apps/pktgen/lr-pktgen
[ -x "$PKTGEN" ] || { echo "bench-pktgen: no $PKTGEN (build first)" >&2; exit 1; }
TMP=$(mktemp -d)
TP_PID=
cleanup() {
	if [ -n "$TP_PID" ]; then kill -KILL "$TP_PID" 2>/dev/null || true; fi
	rm -rf "$TMP"
}
trap cleanup EXIT

HZ=$(getconf CLK_TCK)
LC="-l 0"
TP_LC="-l 0,1"
[ "$(nproc)" -ge 2 ] || TP_LC="-l 0"

median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

# pktgen_run MEMOPTS: prints "mpps mpps_per_cpu"
pktgen_run() {
	"$PKTGEN" $1 $LC --file-prefix "bpg$$" --vdev net_null0 -- \
		--tx-only --quiet --duration "$SECS" >"$TMP/pg.out" 2>&1
	local line
	line=$(grep '^pktgen total:' "$TMP/pg.out")
	awk -v l="$line" 'BEGIN {
		n = split(l, f, " "); for (i = 1; i <= n; i++) {
			split(f[i], kv, "="); v[kv[1]] = kv[2] }
		printf "%.2f %.2f\n", v["tx_mpps"], \
			(v["cpu_s"] > 0 ? v["tx"] / v["cpu_s"] / 1e6 : 0) }'
}

# testpmd_run MEMOPTS: prints "mpps mpps_per_cpu" (CPU time of the
# forwarding thread, from /proc, sampled just before the stop).
testpmd_run() {
	dpdk-testpmd $1 $TP_LC --no-pci --vdev net_null0 --file-prefix "btp$$" \
		-- --forward-mode=txonly --total-num-mbufs=16384 \
		--stats-period 1 -a >"$TMP/tp.out" 2>&1 </dev/null &
	TP_PID=$!
	local t1 cpu=0 tid
	# Wait for forwarding to start, then measure SECS seconds of it.
	for _ in $(seq 200); do
		grep -q "Tx-pps" "$TMP/tp.out" 2>/dev/null && break
		kill -0 "$TP_PID" 2>/dev/null || break
		sleep 0.1
	done
	sleep "$SECS"
	for tid in /proc/$TP_PID/task/*; do
		case $(cat "$tid/comm" 2>/dev/null) in
		lcore-worker*|rte-worker*)
			cpu=$(awk -v hz="$HZ" '{print ($14 + $15) / hz}' "$tid/stat") ;;
		esac
	done
	kill -INT "$TP_PID"
	wait "$TP_PID" || true
	TP_PID=
	t1=$(grep -E "TX-total" "$TMP/tp.out" | tail -1 | awk '{print $NF}')
	# Rate: median of the per-second lines after the first.
	local mpps
	mpps=$(grep "Tx-pps" "$TMP/tp.out" | awk 'NR > 1 {print $2 / 1e6}' | median)
	awk -v m="$mpps" -v n="$t1" -v c="$cpu" 'BEGIN {
		printf "%.2f %.2f\n", m + 0, (c > 0 ? n / c / 1e6 : 0) }'
}

have_testpmd=0
command -v dpdk-testpmd >/dev/null && have_testpmd=1
have_huge=0
[ "$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)" -ge 256 ] && have_huge=1

echo "bench-pktgen: $(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "lr-pktgen: $PKTGEN --vdev net_null0 $LC -- --tx-only --duration $SECS"
[ $have_testpmd = 1 ] && echo "testpmd:   dpdk-testpmd $TP_LC --no-pci --vdev net_null0 -- --forward-mode=txonly --total-num-mbufs=16384 -a"
[ $have_testpmd = 1 ] || echo "testpmd:   not installed (apt install dpdk-dev): lr-pktgen alone"
printf "%-10s %-10s %10s %14s\n" memory program "Mpps" "Mpps/CPU-s"
for mem in huge nohuge; do
	if [ $mem = huge ]; then
		[ $have_huge = 1 ] || { echo "hugepages: fewer than 256 free 2 MiB pages, skipped"; continue; }
		PG_MEM="-m 256" TP_MEM="-m 256"
	else
		PG_MEM="--no-huge -m 256" TP_MEM="--no-huge -m 512"
	fi
	: >"$TMP/pg.$mem"
	: >"$TMP/tp.$mem"
	for r in $(seq "$RUNS"); do
		pktgen_run "$PG_MEM" >>"$TMP/pg.$mem"
		[ $have_testpmd = 1 ] && testpmd_run "$TP_MEM" >>"$TMP/tp.$mem"
		: "$r"
	done
	pg_m=$(cut -d' ' -f1 "$TMP/pg.$mem" | median)
	pg_c=$(cut -d' ' -f2 "$TMP/pg.$mem" | median)
	printf "%-10s %-10s %10s %14s   (runs: %s)\n" $mem lr-pktgen "$pg_m" "$pg_c" \
		"$(cut -d' ' -f1 "$TMP/pg.$mem" | tr '\n' ' ')"
	if [ $have_testpmd = 1 ]; then
		tp_m=$(cut -d' ' -f1 "$TMP/tp.$mem" | median)
		tp_c=$(cut -d' ' -f2 "$TMP/tp.$mem" | median)
		printf "%-10s %-10s %10s %14s   (runs: %s)\n" $mem testpmd "$tp_m" "$tp_c" \
			"$(cut -d' ' -f1 "$TMP/tp.$mem" | tr '\n' ' ')"
		awk -v a="$pg_m" -v b="$tp_m" -v c="$pg_c" -v d="$tp_c" -v m=$mem 'BEGIN {
			printf "%-10s ratio lr-pktgen/testpmd: %.2f (wall), %.2f (per CPU-second)\n",
				m, (b > 0 ? a / b : 0), (d > 0 ? c / d : 0) }'
	fi
done
echo "reference (DPDK 22.11 testpmd txonly on net_null, quiet machine): 91 Mpps hugepages, 84 --no-huge"
