#!/usr/bin/env bash
# Instructions per object of lr-mempool-bench's loops beside the same loops
# against DPDK's rte_mempool (bench/dpdk/mempool_perf.c), counted by
# callgrind: the measure that does not depend on what else the machine
# runs (cycle figures here move by 10-50% between runs and processes).
#
#   scripts/callgrind-mempool.sh BUILD_DIR
#
# BUILD_DIR must be a build valgrind can run: valgrind 3.19 knows no
# AVX-512, which -march=native enables on this machine, so configure it
# with  meson setup build-cg -Dc_args=-mno-avx512f  (everything else as the
# default build). DPDK's side is compiled here with the same flags as
# bench/harness/peers.py plus -mno-avx512f, against Debian's libdpdk.
#
# Each timed function (mp_run_N, mbuf_run_N, mbuf_run_single) is counted
# inclusively (the out-of-line refill and flush paths included) over its
# warm-up run and --reps runs of --objs objects, and divided by the
# objects: one get+put (alloc+free) pair per object. The loop's own
# increment, compare and the two fenced TSC reads per run are included on
# both sides alike.
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:?usage: $0 BUILD_DIR}
objs=${CG_OBJS:-102400}
reps=${CG_REPS:-3}
bin=$b/apps/mempool-bench/lr-mempool-bench
[ -x "$bin" ] || { echo "callgrind-mempool: $bin not built" >&2; exit 77; }
command -v valgrind >/dev/null || { echo "callgrind-mempool: no valgrind" >&2; exit 77; }
tmp=$(mktemp -d /tmp/callgrind-mempool.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

bins=("$bin"); names=(linerate)
if pkg-config --exists libdpdk 2>/dev/null; then
	peer=$b/bench-dpdk/mempool-perf-debian-cg
	mkdir -p "$(dirname "$peer")"
	if ! [ -x "$peer" ] || ! [ "$peer" -nt bench/dpdk/mempool_perf.c ]; then
		# shellcheck disable=SC2046
		cc -O3 -march=native -mno-avx512f -std=gnu11 -Wall \
			$(pkg-config --cflags libdpdk) bench/dpdk/mempool_perf.c \
			-o "$peer" $(pkg-config --libs libdpdk)
	fi
	bins+=("$peer"); names+=("DPDK $(pkg-config --modversion libdpdk) Debian")
else
	echo "callgrind-mempool: no libdpdk: linerate only" >&2
fi

# One run per timed function: callgrind's toggles lose count when several
# functions toggle in one run (seen: mp_run_32 counted 0). One profile
# part per mempool row (dumped as bench_mempool returns); the last part
# holds the mbuf rows.
funcs=(mp_run_1 mp_run_8 mp_run_32 mp_run_128 mbuf_run_1 mbuf_run_8
	mbuf_run_32 mbuf_run_128 mbuf_run_single)
for i in "${!bins[@]}"; do
	extra=()
	[ "$i" -gt 0 ] && extra=(--no-pci --log-level='*:error')
	for f in "${funcs[@]}"; do
		valgrind --tool=callgrind --callgrind-out-file="$tmp/$i.$f.out" \
			--toggle-collect="$f" --dump-after=bench_mempool \
			"${bins[$i]}" -l 0 --no-huge -m 512 \
			--file-prefix=cg_mempool_$i "${extra[@]}" \
			-- --objs "$objs" --reps "$reps" >"$tmp/$i.log" 2>&1 || {
			echo "callgrind-mempool: ${names[$i]} failed:" >&2
			tail -5 "$tmp/$i.log" >&2
			exit 1
		}
	done
done

# Rows in the order the programs run them: five mempool parts, then mbufs.
rows=("mempool, cache 256, ring_mp_mc" "mempool, cache 512, ring_mp_mc"
	"mempool, no cache, ring_mp_mc" "mempool, no cache, ring_sp_sc"
	"mempool, no cache, stack")
# ir FILE FUNCTION: inclusive instructions of FUNCTION in FILE (0 if none).
ir() {
	callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null |
		awk -v f="???:$2" '$3 == f { gsub(/,/, "", $1); print $1; found = 1; exit }
			END { if (!found) print 0 }'
}
per() { awk -v i="$1" -v n="$2" 'BEGIN { printf "%.2f", i / n }'; }
runs=$((reps + 1))
printf "# instructions per object (get+put or alloc+free), callgrind, %d runs of %d objects\n" "$runs" "$objs"
printf "%-34s %-6s" "# row" "bulk"
for n in "${names[@]}"; do printf " | %-22s" "$n"; done
printf " | ratio\n"
line() { # line ROW BULK FUNC PART
	local vals=() i f
	for i in "${!bins[@]}"; do
		f=$tmp/$i.$3.out${4:+.$4}
		vals+=("$(per "$(ir "$f" "$3")" $((objs * runs)))")
	done
	printf "%-34s %-6s" "$1" "$2"
	for v in "${vals[@]}"; do printf " | %-22s" "$v"; done
	if [ "${#vals[@]}" -gt 1 ]; then
		awk -v a="${vals[0]}" -v b="${vals[1]}" 'BEGIN { printf " | %.2f\n", (b > 0 ? a / b : 0) }'
	else
		printf "\n"
	fi
}
for k in 1 2 3 4 5; do
	for n in 1 8 32 128; do
		line "${rows[$((k - 1))]}" "$n" "mp_run_$n" "$k"
	done
done
for n in 1 8 32 128; do
	line "mbuf alloc_bulk+free_bulk, c512" "$n" "mbuf_run_$n" ""
done
line "mbuf alloc+free (single calls)" 1 mbuf_run_single ""
