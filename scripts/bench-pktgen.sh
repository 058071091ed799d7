#!/usr/bin/env bash
# lr-pktgen generation rate on net_null, one datapath lcore, 64-byte frames,
# with and without hugepages, one stream (the default command line) and 16
# streams from a profile, each with 4 ranged fields (source and
# destination address and port, 4 values each: a cartesian product of 256
# flows a stream), every frame stamped and counted per stream as always;
# the cost of building each frame and of the per-stream statistics: the
# one stream with --no-stamp (frames prebuilt once in the queue's own
# pool, no stamp written, nothing counted per stream), and a
# loop net_ring0 -> net_ring1 on the same one lcore (every frame stamped,
# received, checked and counted: sequence window, latency histogram,
# jitter) with and without --no-stamp; one stream with the field testpmd's
# --txonly-multi-flow varies (the IPv4 source address) and one with four
# ranged fields (addresses and ports), each with its cycles of CPU time a
# frame (lr-pktgen's own "datapath:" line: the datapath lcore's CPU time
# over the frames sent, the whole run); beside DPDK 22.11's testpmd txonly
# generator (plain, and with --txonly-multi-flow)
# on net_null run the same way: Debian's dpdk-testpmd (package dpdk-dev)
# and the native build of scripts/dpdk-native.sh when it is there.
#
#   scripts/bench-pktgen.sh [BUILD_DIR] [SECONDS] [RUNS]
#
# Measured the same way for every program: RUNS rounds, each running the
# programs one after the other; the same EAL memory and lcores (-l 0,1: the
# main lcore prints, lcore 1 sends); per-second rates from each program's
# own per-second lines (lr-pktgen's "[ N s] port 0: tx R Mpps", testpmd's
# cumulative TX-packets of --stats-period 1, each line timed as printed,
# from its first line with traffic);
# a run's rate is the mean of seconds WARMUP+1 .. WARMUP+SECONDS (the
# warm-up is left out for every program alike); each program's figure is
# the median of its runs, with the range; the ratios are of the medians.
#
# Env: WARMUP (seconds left out, default 2), LR_DPDK_NATIVE_DIR. Defaults
# SECONDS=4, RUNS=3: about 4 minutes with both DPDK builds.
set -euo pipefail

BUILD=${1:-build}
SECS=${2:-4}
RUNS=${3:-3}
WARM=${WARMUP:-2}
PKTGEN=$BUILD/apps/pktgen/lr-pktgen
[ -x "$PKTGEN" ] || { echo "bench-pktgen: no $PKTGEN (build first)" >&2; exit 1; }
PKTGEN=$(realpath "$PKTGEN")
cd "$(dirname "$0")/.."
TMP=$(mktemp -d)
TP_PID=
cleanup() {
	if [ -n "$TP_PID" ]; then kill -KILL "$TP_PID" 2>/dev/null || true; fi
	rm -rf "$TMP"
}
trap cleanup EXIT

LC="-l 0,1"
[ "$(nproc)" -ge 2 ] || LC="-l 0"

# "median [min-max]" of the numbers on stdin (nan: failed runs).
stats() {
	grep -v nan | sort -g | awk '{a[NR] = $1}
		END {if (NR == 0) print "nan"; else printf "%s [%s-%s]\n", a[int((NR + 1) / 2)], a[1], a[NR]}'
}
# Mean of per-second rates (one a line on stdin) WARM+1 .. WARM+SECS.
window_mean() {
	awk -v w="$WARM" -v d="$SECS" '{r[NR] = $1}
		END {if (NR < w + d) {print "nan"; exit}
		     for (i = w + 1; i <= w + d; i++) s += r[i]
		     printf "%.2f\n", s / d}'
}

# The 16-stream profile.
python3 -c '
import json
print(json.dumps({"streams": [{"name": "s%d" % i,
    "src_ip": "10.0.%d.1-10.0.%d.4" % (i, i), "dst_ip": "10.1.0.1-10.1.0.4",
    "src_port": "1000-1003", "dst_port": "2000-2003"} for i in range(16)]}))
' >"$TMP/p16.json"

# pktgen_run MEMOPTS PORTS OPTS CYCLES_FILE: prints the window rate in
# Mpps; appends the run's cycles a frame to CYCLES_FILE (nan if none).
pktgen_run() {
	local c
	# shellcheck disable=SC2086
	"$PKTGEN" $1 $LC --file-prefix "bpg$$" $2 -- \
		--duration $((WARM + SECS + 1)) $3 >"$TMP/pg.out" 2>&1 || true
	c=$(sed -n 's/^datapath: .*, \([0-9.]*\) cycles of CPU time a frame sent$/\1/p' "$TMP/pg.out")
	echo "${c:-nan}" >>"$4"
	sed -n 's/^\[ *[0-9.]*s\] port 0: tx *\([0-9.]*\) Mpps.*/\1/p' "$TMP/pg.out" | window_mean
}

# ts_lines: testpmd's cumulative "TX-packets: N" lines, each prefixed with
# the time it arrived (testpmd prints its stats about every second, but a
# period can be skipped: its own Tx-pps lines are not one a second).
ts_lines() {
	local l
	while IFS= read -r l; do
		case $l in *TX-packets:*) echo "$EPOCHREALTIME $l" ;; esac
	done
}
# testpmd_run BIN MEMOPTS [TXONLY_OPTS]: prints the window rate in Mpps.
testpmd_run() {
	# Line-buffered, so that each stats line is timed when it is printed.
	# shellcheck disable=SC2086
	stdbuf -oL "$1" $2 $LC --no-pci --vdev net_null0 --file-prefix "btp$$" \
		--log-level='*:error' -- --forward-mode=txonly ${3:-} \
		--total-num-mbufs=16384 --stats-period 1 -a \
		> >(ts_lines >"$TMP/tp.out") 2>&1 </dev/null &
	TP_PID=$!
	# Wait for the first stats line, then for the window's seconds.
	for _ in $(seq 300); do
		grep -q "TX-packets" "$TMP/tp.out" 2>/dev/null && break
		kill -0 "$TP_PID" 2>/dev/null || break
		sleep 0.1
	done
	sleep $((WARM + SECS + 5))
	kill -INT "$TP_PID" 2>/dev/null || true
	wait "$TP_PID" || true
	TP_PID=
	# The window: from the first sample WARM seconds after the first one
	# with traffic, SECS seconds on (to the last sample inside it); the
	# rate is the difference of the cumulative counts over the time taken.
	awk -v w="$WARM" -v d="$SECS" '$3 > 0 && !t0 {t0 = $1}
		t0 && !ta && $1 >= t0 + w {ta = $1; na = $3; next}
		ta && $1 <= ta + d + 0.5 {tb = $1; nb = $3}
		END {if (tb > ta && ta) printf "%.2f\n", (nb - na) / (tb - ta) / 1e6
		     else print "nan"}' "$TMP/tp.out"
}

# The lr-pktgen rows: name, ports, options (the first NPG rows).
NULL="--vdev net_null0"
LOOP="--vdev net_ring0 --vdev net_ring1"
# Varying fields, one stream: the field testpmd's --txonly-multi-flow
# varies in DPDK 22.11 (the IPv4 source address, its checksum computed
# again: 198.18.X.2+lcore), and four ranged fields (source and
# destination address and port) against plain txonly.
MFLOW="--src-ip 198.18.0.3-198.18.255.3"
F4="--src-ip 10.0.0.1-10.0.0.4 --dst-ip 10.1.0.1-10.1.0.4 --src-port 1000-1003 --dst-port 2000-2003"
names=(lr-pktgen lr-pktgen-16x4 lr-pktgen-nostamp lr-pktgen-loop lr-pktgen-loop-nostamp
	lr-pktgen-mflow lr-pktgen-4f)
vdevs=("$NULL" "$NULL" "$NULL" "$LOOP" "$LOOP" "$NULL" "$NULL")
extra=("--tx-only" "--tx-only --profile $TMP/p16.json" "--tx-only --no-stamp"
	"--tx-ports 0 --rx-ports 1 --drain-ms 0" "--tx-ports 0 --rx-ports 1 --drain-ms 0 --no-stamp"
	"--tx-only $MFLOW" "--tx-only $F4")
NPG=${#names[@]}
bins=(); tpx=(); for _ in "${names[@]}"; do bins+=("$PKTGEN"); tpx+=(""); done
notes=()
if command -v dpdk-testpmd >/dev/null; then
	names+=("testpmd-debian" "testpmd-debian-mflow")
	bins+=("$(command -v dpdk-testpmd)" "$(command -v dpdk-testpmd)")
	tpx+=("" "--txonly-multi-flow")
else
	notes+=("testpmd (Debian): no peer (apt install dpdk-dev)")
fi
if nat=$(scripts/dpdk-native.sh --print 2>/dev/null); then
	tp=$(echo "$nat" | sed -n 's/^testpmd: //p')
	names+=("testpmd-native" "testpmd-native-mflow"); bins+=("$tp" "$tp")
	tpx+=("" "--txonly-multi-flow")
	notes+=("testpmd-native: DPDK 22.11 built $(echo "$nat" | sed -n 's/^cflags: //p') by scripts/dpdk-native.sh")
else
	notes+=("testpmd (native): no peer (no build from scripts/dpdk-native.sh)")
fi
have_huge=0
[ "$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)" -ge 256 ] && have_huge=1

echo "bench-pktgen: $(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in "${!bins[@]}"; do
	if [ "$i" -lt "$NPG" ]; then
		echo "${names[$i]}: $PKTGEN $LC MEM ${vdevs[$i]} -- --duration $((WARM + SECS + 1)) ${extra[$i]}"
	else
		echo "${names[$i]}: ${bins[$i]} $LC MEM --no-pci --vdev net_null0 -- --forward-mode=txonly ${tpx[$i]} --total-num-mbufs=16384 --stats-period 1 -a"
	fi
done
echo "P16: 16 streams, 4 ranged fields each: $(head -c 120 "$TMP/p16.json")..."
echo "cycles/frame: lr-pktgen's 'datapath:' line, CPU time of its datapath lcore x TSC rate / frames sent, over the whole run"
for note in "${notes[@]}"; do echo "$note"; done
echo "rate: mean of seconds $((WARM + 1))-$((WARM + SECS)) of sending (warm-up left out), median [range] of $RUNS alternating rounds, Mpps"
for mem in huge nohuge; do
	if [ $mem = huge ]; then
		[ $have_huge = 1 ] || { echo "hugepages: fewer than 256 free 2 MiB pages, skipped"; continue; }
		MEM="-m 512"
	else
		MEM="--no-huge -m 512"
	fi
	echo "-- $mem (MEM: $MEM)"
	for i in "${!bins[@]}"; do : >"$TMP/r.$mem.$i"; : >"$TMP/c.$mem.$i"; done
	for _ in $(seq "$RUNS"); do
		for i in "${!bins[@]}"; do
			if [ "$i" -lt "$NPG" ]; then
				pktgen_run "$MEM" "${vdevs[$i]}" "${extra[$i]}" \
					"$TMP/c.$mem.$i" >>"$TMP/r.$mem.$i"
			else
				testpmd_run "${bins[$i]}" "$MEM" "${tpx[$i]}" >>"$TMP/r.$mem.$i"
			fi
		done
	done
	for i in "${!bins[@]}"; do
		s=$(stats <"$TMP/r.$mem.$i")
		cyc=
		if [ "$i" -lt "$NPG" ]; then
			cs=$(stats <"$TMP/c.$mem.$i")
			echo "${cs%% *}" >"$TMP/cm.$mem.$i"
			cyc="cycles/frame $cs "
		fi
		printf "%-10s %-22s %-24s %s(runs: %s)\n" $mem "${names[$i]}" "$s" \
			"$cyc" "$(tr '\n' ' ' <"$TMP/r.$mem.$i")"
		echo "${s%% *}" >"$TMP/m.$mem.$i"
	done
	for l in 0 1 2 5 6; do
		for i in "${!bins[@]}"; do
			[ "$i" -ge "$NPG" ] || continue
			awk -v a="$(cat "$TMP/m.$mem.$l")" -v b="$(cat "$TMP/m.$mem.$i")" \
				-v n="${names[$i]}" -v m=$mem -v l="${names[$l]}" 'BEGIN {
				if (a > 0 && b > 0) printf "%-10s ratio %s / %s: %.2f\n", m, l, n, a / b }'
		done
	done
	awk -v a="$(cat "$TMP/m.$mem.0")" -v b="$(cat "$TMP/m.$mem.1")" -v m=$mem 'BEGIN {
		if (a > 0 && b > 0) printf "%-10s 16 streams x 4 fields / 1 stream: %.2f\n", m, b / a }'
	# The cost of building each frame (the template copy and the stamp:
	# --no-stamp sends frames prebuilt in the queue's pool), tx only and
	# with the per-stream statistics (the loop): the differences of the
	# medians.
	for pair in "0 2 frame build (copy and stamp), net_null tx" "3 4 frame build and per-stream statistics, ring loop"; do
		read -r a b what <<<"$pair"
		awk -v ma="$(cat "$TMP/m.$mem.$a")" -v mb="$(cat "$TMP/m.$mem.$b")" \
			-v ca="$(cat "$TMP/cm.$mem.$a")" -v cb="$(cat "$TMP/cm.$mem.$b")" \
			-v m=$mem -v w="$what" 'BEGIN {
			if (ca > 0 && cb > 0 && ma > 0 && mb > 0)
				printf "%-10s cost of the %s: %.1f cycles a frame (%.1f with, %.1f without; %.2f Mpps with, %.2f without)\n",
					m, w, ca - cb, ca, cb, ma, mb }'
	done

	# For the opening table of bench/run:
	# "summary|what|unit|better|linerate|DPDK Debian|DPDK native".
	sd=-; sn=-; sdm=-; snm=-
	for i in "${!bins[@]}"; do
		case ${names[$i]} in
		testpmd-debian) sd=$(cat "$TMP/m.$mem.$i") ;;
		testpmd-native) sn=$(cat "$TMP/m.$mem.$i") ;;
		testpmd-debian-mflow) sdm=$(cat "$TMP/m.$mem.$i") ;;
		testpmd-native-mflow) snm=$(cat "$TMP/m.$mem.$i") ;;
		esac
	done
	echo "summary|pktgen vs testpmd txonly, net_null, $mem|Mpps|higher|$(cat "$TMP/m.$mem.0")|$sd|$sn"
	echo "summary|pktgen 16 streams x 4 ranged fields vs testpmd txonly, net_null, $mem|Mpps|higher|$(cat "$TMP/m.$mem.1")|$sd|$sn"
	echo "summary|pktgen without stamps (--no-stamp) vs testpmd txonly, net_null, $mem|Mpps|higher|$(cat "$TMP/m.$mem.2")|$sd|$sn"
	echo "summary|pktgen source IP varying vs testpmd --txonly-multi-flow, net_null, $mem|Mpps|higher|$(cat "$TMP/m.$mem.5")|$sdm|$snm"
	echo "summary|pktgen 4 ranged fields vs testpmd txonly, net_null, $mem|Mpps|higher|$(cat "$TMP/m.$mem.6")|$sd|$sn"
done
