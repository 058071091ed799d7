#!/usr/bin/env bash
# lr-mempool-bench beside DPDK's rte_mempool in the same run: the same loops
# written against DPDK (bench/dpdk/mempool_perf.c) are built against
# Debian's libdpdk (pkg-config libdpdk, package libdpdk-dev) and against
# the native build of scripts/dpdk-native.sh when it is there, and the
# programs run in N rounds of separate processes, alternating (linerate,
# DPDK Debian, DPDK native, linerate, ...), with the same EAL memory and
# lcore, the same parameters and the same statistic: each process prints
# per row and bulk size the minimum over its runs of cycles per object, and
# the table gives the median and the range over the N processes of each
# side, and the ratio of the medians (linerate / DPDK: below 1, linerate
# spends fewer cycles). A side that is not there says so.
#
# Several processes, because on this machine the figures of a process
# depend on where address-space randomisation put its memory (with ASLR
# off every process gives the same figures), and about one process in five
# is 50-70% slower at bulk 1. Never fails on speed.
#
#   scripts/bench-mempool.sh BUILD_DIR [N] [EAL options...]
#
# EAL options without --file-prefix (each side gets its own). Default N:
# 7; default EAL options: -l 0 and -m 512 on hugepages (or
# --no-huge -m 512 when fewer than 256 are free), each side its own
# --file-prefix. Env: LR_DPDK_NATIVE_DIR (see scripts/dpdk-native.sh),
# BENCH_ARGS (given to every program after --, e.g. "--objs 1024 --reps 3"
# for a quick check). A process that runs over 300 s is stopped and counted
# as failed.
# About a minute on an idle 2-vCPU machine.
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:-build}
n=${2:-7}
shift $(($# > 2 ? 2 : $#))
eal=("$@")
for a in "${eal[@]}"; do
	case $a in
	--file-prefix*)
		echo "bench-mempool: EAL option '$a': give none, each side gets its own --file-prefix" >&2
		exit 2 ;;
	esac
done
if [ ${#eal[@]} -eq 0 ]; then
	free_huge=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages 2>/dev/null || echo 0)
	if [ "$free_huge" -ge 256 ]; then
		eal=(-l 0 -m 512)
	else
		eal=(-l 0 --no-huge -m 512)
	fi
fi
bin=$b/apps/mempool-bench/lr-mempool-bench
[ -x "$bin" ] || { echo "bench-mempool: $bin not built" >&2; exit 77; }
# shellcheck source=scripts/dpdk-peers.sh
. scripts/dpdk-peers.sh
tmp=$(mktemp -d /tmp/bench-mempool.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

peer_names=(); peer_bins=(); peer_notes=()
dpdk_peers bench/dpdk/mempool_perf.c "$b/bench-dpdk/mempool-perf"
names=(linerate "${peer_names[@]}"); bins=("$bin" "${peer_bins[@]}")
notes=("${peer_notes[@]}")

echo "\$ $bin ${eal[*]} --file-prefix=bench_mempool_0"
for i in "${!bins[@]}"; do
	[ "$i" -gt 0 ] && echo "\$ ${bins[$i]} ${eal[*]} --file-prefix=bench_mempool_$i --no-pci --log-level=*:error   (${names[$i]}; the same loops, cc ${peer_cflags[*]})"
done
echo "($n rounds of one process each, alternating)"
for r in $(seq "$n"); do
	for i in "${!bins[@]}"; do
		extra=()
		[ "$i" -gt 0 ] && extra=(--no-pci --log-level='*:error')
		# shellcheck disable=SC2086
		timeout 300 "${bins[$i]}" "${eal[@]}" --file-prefix=bench_mempool_$i "${extra[@]}" \
			-- ${BENCH_ARGS:-} >"$tmp/$i.$r.out" 2>&1 || echo "(${names[$i]} round $r: exit $?: $(tail -1 "$tmp/$i.$r.out"))"
	done
done
echo "first round, linerate:"
cat "$tmp/0.1.out"
for note in "${notes[@]}"; do echo "$note"; done
grep -h '^# .*not run' "$tmp"/*.1.out 2>/dev/null | sort -u || true
echo
echo "cycles per object: median [min-max] over $n processes; ratio = linerate / DPDK (median)"
# Rows look like: "name | v | v | v | v" (bulk 1 8 32 128, "-" where not run).
for i in "${!bins[@]}"; do
	cat "$tmp/$i".*.out | sed "s/^/$i|/"
done | awk -F'|' -v sides="${#bins[@]}" -v names="$(IFS=';'; echo "${names[*]}")" '
	BEGIN { split(names, nm, ";") }
	NF >= 3 && $2 !~ /^#/ {
		s = $1; name = $2; sub(/ +$/, "", name)
		if (!(name in seen)) { seen[name] = 1; order[++rows] = name }
		for (c = 3; c <= NF; c++) {
			v = $c; gsub(/ /, "", v)
			if (v == "-" || v == "") continue
			k = name SUBSEP c SUBSEP s
			vals[k] = vals[k] " " (v == "fail" ? -1 : v + 0)
			has[name SUBSEP c] = 1
		}
	}
	function med(s,   a, m, i, j, t) {
		m = split(s, a, " ")
		for (i = 2; i <= m; i++)
			for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		lo = a[1]; hi = a[m]
		return a[int((m + 1) / 2)]
	}
	END {
		split("1 8 32 128", bulk, " ")
		printf "%-32s %-5s", "row", "bulk"
		for (s = 0; s < sides; s++)
			printf " | %-26s", nm[s + 1] (s ? " (ratio)" : "")
		printf "\n"
		for (r = 1; r <= rows; r++) {
			name = order[r]
			for (c = 3; c <= 6; c++) {
				if (!((name SUBSEP c) in has)) continue
				printf "%-32s %-5s", name, bulk[c - 2]
				for (s = 0; s < sides; s++) {
					k = name SUBSEP c SUBSEP s
					if (!(k in vals)) {
						m[s] = "-"
						printf " | %-26s", "no peer figure"
						continue
					}
					m[s] = med(vals[k])
					cell = sprintf("%.2f [%.2f-%.2f]", m[s], lo, hi)
					if (s && m[0] > 0 && m[s] > 0 && ((name SUBSEP c SUBSEP 0) in vals))
						cell = cell sprintf(" %.2f", m[0] / m[s])
					printf " | %-26s", cell
				}
				printf "\n"
				if ((name ~ /cache 256/ && c <= 5) || (name ~ /alloc_bulk/ && (c == 3 || c == 5)))
					summary(name " bulk " bulk[c - 2], "cycles/object", "lower")
			}
		}
		printf "%s", sums
	}
	# "summary|what|unit|better|linerate|DPDK Debian|DPDK native" for
	# the opening table of scripts/bench.sh.
	function summary(what, unit, better,   s, v, d, n) {
		d = n = "-"
		for (s = 1; s < sides; s++) {
			v = m[s] == "-" ? "-" : sprintf("%.2f", m[s])
			if (nm[s + 1] ~ /Debian/) d = v
			if (nm[s + 1] ~ /native/) n = v
		}
		sums = sums sprintf("summary|%s|%s|%s|%.2f|%s|%s\n", what, unit,
				    better, m[0], d, n)
	}'
