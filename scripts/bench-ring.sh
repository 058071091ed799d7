#!/usr/bin/env bash
# lr-ring-bench beside DPDK's rte_ring in the same run: the same loops
# written against rte_ring (bench/dpdk/ring_perf.c, same ring size, bulk
# sizes, samples, statistic and output) built against Debian's libdpdk and
# against scripts/dpdk-native.sh's build when present (see
# scripts/dpdk-peers.sh), run in N rounds of separate processes,
# alternating, with the same EAL memory and lcores. Per row: the median
# and range over the N processes of each process's minimum, cycles per
# item, and the ratio of the medians (linerate / DPDK: below 1, linerate
# spends fewer cycles). (a) one lcore, enqueue n then dequeue n; (b) a
# producer and a consumer on two lcores. A side that is not there says so.
# Never fails on speed.
#
#   scripts/bench-ring.sh BUILD_DIR [N] [EAL options...]
#
# EAL options without --file-prefix (each side gets its own). Default N:
# 5; default EAL options: -l 0-1 (-l 0 on one CPU) and -m 512 on
# hugepages (or --no-huge), each side its own --file-prefix. Env:
# BENCH_ARGS (given to every program after --, e.g. "--iterations 65536
# --runs 3" for a quick check), LR_DPDK_NATIVE_DIR. About a minute on an
# idle 2-vCPU machine.
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:-build}
n=${2:-5}
shift $(($# > 2 ? 2 : $#))
eal=("$@")
for a in "${eal[@]}"; do
	case $a in
	--file-prefix*)
		echo "bench-ring: EAL option '$a': give none, each side gets its own --file-prefix" >&2
		exit 2 ;;
	esac
done
if [ ${#eal[@]} -eq 0 ]; then
	lc=0-1
	[ "$(nproc)" -ge 2 ] || lc=0
	free_huge=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages 2>/dev/null || echo 0)
	if [ "$free_huge" -ge 256 ]; then
		eal=(-l "$lc" -m 512)
	else
		eal=(-l "$lc" --no-huge -m 512)
	fi
fi
bin=$b/apps/ring-bench/lr-ring-bench
[ -x "$bin" ] || { echo "bench-ring: $bin not built" >&2; exit 77; }
# shellcheck source=scripts/dpdk-peers.sh
. scripts/dpdk-peers.sh
tmp=$(mktemp -d /tmp/bench-ring.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

peer_names=(); peer_bins=(); peer_notes=()
dpdk_peers bench/dpdk/ring_perf.c "$b/bench-dpdk/ring-perf"
names=(linerate "${peer_names[@]}"); bins=("$bin" "${peer_bins[@]}")

echo "\$ $bin ${eal[*]} --file-prefix=bench_ring_0"
for i in "${!bins[@]}"; do
	[ "$i" -gt 0 ] && echo "\$ ${bins[$i]} ${eal[*]} --file-prefix=bench_ring_$i --no-pci --log-level=*:error   (${names[$i]}; the same loops, cc ${peer_cflags[*]})"
done
for note in "${peer_notes[@]}"; do echo "$note"; done
echo "($n rounds of one process each, alternating)"
for r in $(seq "$n"); do
	for i in "${!bins[@]}"; do
		extra=()
		[ "$i" -gt 0 ] && extra=(--no-pci --log-level='*:error')
		# shellcheck disable=SC2086
		timeout 300 "${bins[$i]}" "${eal[@]}" --file-prefix=bench_ring_$i "${extra[@]}" \
			-- ${BENCH_ARGS:-} >"$tmp/$i.$r.out" 2>&1 || echo "(${names[$i]} round $r: exit $?: $(tail -1 "$tmp/$i.$r.out"))"
	done
done
echo "first round, linerate:"
cat "$tmp/0.1.out"
echo
echo "cycles per item, each process's minimum: median [min-max] over $n processes; ratio = linerate / DPDK (medians)"
# Rows: "MODE single|bulk N  pair-min / pair-med  item-min / item-med" in
# (a), "MODE bulk N  prod-min / prod-med  cons-min / cons-med" in (b).
for i in "${!bins[@]}"; do
	cat "$tmp/$i".*.out | sed "s/^/$i /"
done | awk -v sides="${#bins[@]}" -v names="$(IFS=';'; echo "${names[*]}")" '
	BEGIN { split(names, nm, ";") }
	$2 ~ /^\([ab]\)$/ { sec[$1] = $2 }
	$2 ~ /^(SP\/SC|MP\/MC)$/ && ($1 in sec) {
		s = $1
		key = $2 " " ($3 == "single" ? "single" : $3 " " $4)
		f = ($3 == "single") ? 4 : 5
		if (sec[s] == "(a)") {
			add(sec[s] " one lcore, per item", key, s, $(f + 3))
		} else {
			add(sec[s] " two lcores, producer", key, s, $f)
			add(sec[s] " two lcores, consumer", key, s, $(f + 3))
		}
	}
	function add(g, key, s, v,   k) {
		k = g SUBSEP key
		if (!(k in seen)) { seen[k] = 1; order[++rows] = k }
		vals[k SUBSEP s] = vals[k SUBSEP s] " " v
	}
	function med(str,   a, m, i, j, t) {
		m = split(str, a, " ")
		for (i = 2; i <= m; i++)
			for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		lo = a[1]; hi = a[m]
		return a[int((m + 1) / 2)]
	}
	END {
		printf "%-28s %-14s", "", "row"
		for (s = 0; s < sides; s++)
			printf " | %-26s", nm[s + 1] (s ? " (ratio)" : "")
		printf "\n"
		for (r = 1; r <= rows; r++) {
			split(order[r], gk, SUBSEP)
			printf "%-28s %-14s", gk[1], gk[2]
			for (s = 0; s < sides; s++) {
				k = order[r] SUBSEP s
				if (!(k in vals)) { m[s] = "-"; printf " | %-26s", "no peer figure"; continue }
				m[s] = med(vals[k])
				cell = sprintf("%.2f [%.2f-%.2f]", m[s], lo, hi)
				if (s && m[0] != "-" && m[0] > 0 && m[s] > 0)
					cell = cell sprintf(" %.2f", m[0] / m[s])
				printf " | %-26s", cell
			}
			printf "\n"
			if (gk[1] ~ /one lcore/ && gk[2] ~ /bulk (8|32)$/)
				summary("ring " gk[2] ", one lcore", "cycles/item")
		}
		printf "%s", sums
	}
	# "summary|what|unit|better|linerate|DPDK Debian|DPDK native" for
	# the opening table of scripts/bench.sh.
	function summary(what, unit,   s, v, d, n) {
		d = n = "-"
		for (s = 1; s < sides; s++) {
			v = m[s] == "-" ? "-" : sprintf("%.2f", m[s])
			if (nm[s + 1] ~ /Debian/) d = v
			if (nm[s + 1] ~ /native/) n = v
		}
		sums = sums sprintf("summary|%s|%s|lower|%s|%s|%s\n", what, unit,
				    m[0] == "-" ? "-" : sprintf("%.2f", m[0]), d, n)
	}'
