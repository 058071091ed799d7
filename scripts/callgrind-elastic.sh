#!/usr/bin/env bash
# Instructions per forwarded packet of lr-l2fwd on two net_null ports
# (64-byte frames, copy=0, one lcore) with its default elastic mbuf pool
# and with a fixed pool of the size the ports need (--mbufs N), counted by
# callgrind over l2fwd_main_loop (receive, forward, transmit, mbuf alloc
# and free, the lcore loop), and how often each run reached the pool's
# store (the refill and flush calls behind the per-lcore cache).
#
#   scripts/callgrind-elastic.sh BUILD_DIR [SECONDS]
#
# BUILD_DIR must be a build valgrind can run (valgrind 3.19 knows no
# AVX-512): meson setup build-cg -Dc_args=-mno-avx512f. SECONDS of
# forwarding per run (default 3; under valgrind about 4-5 Mpps).
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:?usage: $0 BUILD_DIR [SECONDS]}
secs=${2:-3}
l2fwd=$b/apps/l2fwd/lr-l2fwd
[ -x "$l2fwd" ] || { echo "callgrind-elastic: $l2fwd not built" >&2; exit 77; }
command -v valgrind >/dev/null || { echo "callgrind-elastic: no valgrind" >&2; exit 77; }
tmp=$(mktemp -d /tmp/callgrind-elastic.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
eal=(-l 0 --no-huge -m 512 --vdev net_null0,size=64,copy=0
	--vdev net_null1,size=64,copy=0)

run() { # run NAME [--mbufs N]
	local name=$1
	shift
	valgrind --tool=callgrind --callgrind-out-file="$tmp/$name.out" \
		--toggle-collect=l2fwd_main_loop "$l2fwd" "${eal[@]}" \
		--file-prefix=cg_elastic_$name -- -p 0x3 -T 0 \
		--duration "$secs" "$@" >"$tmp/$name.log" 2>&1 || {
		echo "callgrind-elastic: $name run failed:" >&2
		tail -5 "$tmp/$name.log" >&2
		exit 1
	}
}
run elastic
n=$(sed -n 's/^mbuf pool: the ports need \([0-9]*\) mbufs.*/\1/p' "$tmp/elastic.log")
[ -n "$n" ] || { echo "callgrind-elastic: no pool size in the output" >&2; exit 1; }
run fixed --mbufs "$n"

# calls NAME FUNCTION: how many times FUNCTION was called in the profile
# (callgrind names a function once, "(id) name", then by its id alone).
calls() {
	awk -v f="$2" '
		match($0, /^c?fn=\([0-9]+\)/) {
			id = substr($0, index($0, "("), index($0, ")") - index($0, "(") + 1)
			if ($0 ~ "\\) " f "$") want[id] = 1
			c = ($0 ~ /^cfn=/) && (id in want)
		}
		/^calls=/ && c { split($1, a, "="); s += a[2]; c = 0 }
		END { print s + 0 }' "$tmp/$1.out"
}
printf "# lr-l2fwd, 2 x net_null (64 B, copy=0), one lcore, %s s under callgrind\n" "$secs"
printf "%-8s | %-20s | %-12s | %-13s | %s\n" pool "pool" packets "instr/packet" "store calls (get/put)"
for name in elastic fixed; do
	total=$(callgrind_annotate --inclusive=yes --threshold=100 "$tmp/$name.out" 2>/dev/null |
		awk '$3 == "???:l2fwd_main_loop" { gsub(/,/, "", $1); print $1; exit }')
	pkts=$(sed -n 's/^l2fwd total: rx=\([0-9]*\).*/\1/p' "$tmp/$name.log")
	pool=$(sed -n 's/^mbuf pool: \([0-9]* mbufs ([a-z]*\).*/\1)/p' "$tmp/$name.log" | tail -1)
	if [ "$name" = elastic ]; then
		st="$(calls "$name" ep_dequeue)/$(calls "$name" ep_enqueue)"
	else
		st="$(calls "$name" lr_mempool_get_slow_)/$(calls "$name" lr_mempool_put_slow_) (slow paths)"
	fi
	awk -v n="$name" -v p="$pool" -v t="$total" -v k="$pkts" -v s="$st" \
		'BEGIN { printf "%-8s | %-20s | %-12d | %-13.2f | %s\n", n, p, k, t / k, s }'
done
