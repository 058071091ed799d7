#!/usr/bin/env bash
# lr-mempool-bench in N separate processes (default 7), then per row and bulk
# size the median and the range of linerate's figure over the processes,
# beside DPDK's. One process is not enough: on this machine the figures of
# a process depend on where address-space randomisation put its memory
# (with ASLR off every process gives the same figures), and about one
# process in five is 50-70% slower at bulk 1. Never fails on speed.
#
#   scripts/bench-mempool.sh BUILD_DIR [N] [EAL options...]
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:-build}
n=${2:-7}
shift $(($# > 2 ? 2 : $#))
eal=("$@")
[ ${#eal[@]} -gt 0 ] || eal=(-l 0-1 -m 512 --file-prefix=bench_mempool)
bin=$b/apps/mempool-bench/lr-mempool-bench
[ -x "$bin" ] || { echo "bench-mempool: $bin not built" >&2; exit 77; }

tmp=$(mktemp -d /tmp/bench-mempool.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

echo "\$ $bin ${eal[*]}   ($n processes; the first one's table:)"
for i in $(seq "$n"); do
	"$bin" "${eal[@]}" >"$tmp/$i.out" 2>&1 || echo "(process $i: exit $?)"
done
cat "$tmp/1.out"
echo
echo "linerate over $n processes, cycles per object: median [min-max] (DPDK 22.11)"
# Rows look like: "name | a / d | a / d | a / d | a / d" (bulk 1 8 32 128).
cat "$tmp"/*.out | awk -F'|' -v n="$n" '
	NF >= 2 && $2 ~ /\// {
		name = $1; sub(/ +$/, "", name)
		if (!(name in seen)) { seen[name] = 1; order[++rows] = name }
		for (c = 2; c <= NF; c++) {
			split($c, f, "/")
			v = f[1] + 0; d = f[2]; gsub(/ /, "", d)
			k = name SUBSEP c
			vals[k] = vals[k] " " v; dpdk[k] = d; ncol[name] = NF
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
		printf "%-34s", "row"
		for (c = 1; c <= 4; c++) printf " | bulk %-17s", bulk[c]
		printf "\n"
		for (r = 1; r <= rows; r++) {
			name = order[r]
			printf "%-34s", name
			for (c = 2; c <= ncol[name]; c++) {
				k = name SUBSEP c
				m = med(vals[k])
				printf " | %5.2f [%.2f-%.2f] (%s)", m, lo, hi, dpdk[k]
			}
			printf "\n"
		}
	}'
