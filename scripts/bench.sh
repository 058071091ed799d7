#!/usr/bin/env bash
# Rerun every benchmark and write BENCHMARKS.md (or the file given as $1).
# Each section gives the exact command and what it printed; the programs
# print outside figures (DPDK 22.11 on this kind of machine, the Linux
# kernel's) beside their own. Benchmarks only print: nothing here fails on
# speed. Takes a few minutes; run it on a quiet machine.
#
#   ONLY=REGEX scripts/bench.sh: rerun only the sections whose title matches
#   REGEX (grep -iE), and merge them into the existing file: those sections
#   and their rows of the opening table are replaced (or added), each
#   marked with the commit and date of the rerun; the rest stays as it was.
set -euo pipefail
cd "$(dirname "$0")/.."
outfile=${1:-BENCHMARKS.md}
bdir=build-bench
ONLY=${ONLY:-}
skip=0
if [ -n "$ONLY" ] && [ ! -f "$outfile" ]; then
	echo "bench.sh: ONLY given but no $outfile to merge into" >&2
	exit 1
fi

scripts/setup.sh >/dev/null
[ -f $bdir/build.ninja ] || meson setup $bdir -Dbuildtype=release >/dev/null
ninja -C $bdir >/dev/null

tmp=$(mktemp)
head=$(mktemp)
sums=$(mktemp)
trap 'rm -f "$tmp" "$tmp.run" "$tmp.table" "$head" "$sums"' EXIT

# section TITLE: start a section (skipped, with its runs, when ONLY is
# given and does not match TITLE).
section() {
	skip=0
	if [ -n "$ONLY" ] && ! grep -qiE -- "$ONLY" <<<"$1"; then
		skip=1
		return 0
	fi
	printf '\n## %s\n\n' "$1" >>"$tmp"
}
# run DESCRIPTION CMD...: record the command and its output; the
# "summary|..." lines of side-by-side scripts are kept, with the command,
# for the opening table.
run() {
	local what=$1; shift
	[ "$skip" = 0 ] || return 0
	printf '%s\n\n```\n$ %s\n' "$what" "$*" >>"$tmp"
	"$@" >"$tmp.run" 2>&1 || echo "(exit status $?)" >>"$tmp.run"
	cat "$tmp.run" >>"$tmp"
	awk -v c="$*" '/^summary\|/ {print $0 "|" c}' "$tmp.run" >>"$sums"
	printf '```\n\n' >>"$tmp"
}

# The opening table: one row per "summary|what|unit|better|linerate|DPDK
# Debian|DPDK native|command" line.
summary_table() {
	echo "## linerate beside DPDK 22.11, same run"
	echo
	echo "Each row: medians of runs alternating between the programs in one run, measured"
	echo "the same way for every side (the section below gives the ranges). DPDK (Debian):"
	echo "Debian's package, built -O2 for a baseline CPU (-march=corei7); DPDK (native):"
	echo "built from the same source by \`scripts/dpdk-native.sh\` (-O3 -march=native);"
	echo "\"-\": that side was not there (the native build: run scripts/dpdk-native.sh once,"
	echo "about 17 minutes). Ratio = linerate / DPDK: above 1 is better for"
	echo "Mpps, below 1 for cycles."
	echo
	echo "| comparison | unit | linerate | DPDK (Debian) | DPDK (native) | linerate / Debian | linerate / native | command |"
	echo "|---|---|---|---|---|---|---|---|"
	awk -F'|' 'function ratio(a, b) {
			return (a + 0 > 0 && b + 0 > 0) ? sprintf("%.2f", a / b) : "-"
		}
		{ printf "| %s | %s (%s is better) | %s | %s | %s | %s | %s | `%s` |\n",
			$2, $3, $4, $5, $6, $7, ratio($5, $6), ratio($5, $7), $8 }' "$sums"
	echo
	echo "Where linerate does less work than DPDK 22.11 by design:"
	echo "- mbuf alloc+free: linerate's mbuf reset writes its first cache line only;"
	echo "  22.11's rte_pktmbuf_reset also writes the second (next, tx_offload)."
	echo "- l2fwd and pktgen on net_null: linerate's net_null transmit frees the burst"
	echo "  with one lr_pktmbuf_free_bulk; 22.11's calls rte_pktmbuf_free once a packet."
	echo
}

huge=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages 2>/dev/null || echo 0)
{
	echo "# linerate benchmarks"
	echo
	echo "Produced by \`scripts/bench.sh\` (rerun it to refresh this file)."
	echo
	echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "- commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
	echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) CPUs, $(free -g | awk '/^Mem:/{print $2}') GiB, kernel $(uname -r)"
	echo "- hugepages: $huge free 2 MiB pages at start"
	echo "- build: meson release (-O3), -march=native"
	echo
	echo "The machine is a shared 2-vCPU VM: figures move about ±10% between runs;"
	echo "compare figures taken in the same run. Cycles are TSC cycles."
	echo
} >"$head"

eal=(-l 0-1 -m 512 --file-prefix=bench)
[ "$(nproc)" -lt 2 ] && eal=(-l 0 -m 512 --file-prefix=bench)

b=$bdir/apps
if [ -x $b/ring-bench/lr-ring-bench ]; then
	section "Lock-free ring (lib/ring)"
	run "Cycles per item and per enqueue+dequeue call pair; DPDK's rte_ring running the same loops in the same run (Debian's package, and scripts/dpdk-native.sh's build when present). Five processes per side." \
		scripts/bench-ring.sh $bdir 5
fi
if [ -x $b/pagealloc-bench/lr-pagealloc-bench ]; then
	section "Page allocator (lib/pagealloc)"
	run "One call per block, the Linux kernel's 2016 microbenchmark rows (kernel figures: 4.6.0-rc3 with the fast-path series)." \
		$b/pagealloc-bench/lr-pagealloc-bench -l 0 -m 1024 --file-prefix=bench
	run "The bulk API: one call per batch, cycles per block." \
		$b/pagealloc-bench/lr-pagealloc-bench -l 0 -m 1024 --file-prefix=bench -- --bulk
fi
if [ -x $b/mempool-bench/lr-mempool-bench ]; then
	section "Mempool and mbuf (lib/mempool, lib/mbuf)"
	run "Cycles per object, get+put, one lcore; DPDK's rte_mempool running the same loops in the same run (Debian's package, and scripts/dpdk-native.sh's build when present). Seven processes per side: a process's figures depend on its address-space layout. DPDK's bulk-1 figure (about 11.4 cycles, the same built -O2 -march=corei7) is its inline get+put in a plain loop: the compiled loop (objdump of mp_run_1 in bench/dpdk/mempool_perf.c) keeps the cache's length in memory, stored by the get and reloaded by the put and again by the next get, so each pair waits twice on store-to-load forwarding; this loop does not reproduce the 5.1-8.3 cycles of shared/data's notes." \
		scripts/bench-mempool.sh $bdir 7
fi
if [ -x $b/page-pool-bench/lr-page-pool-bench ]; then
	section "Page pool (lib/pagealloc, lr_page_pool.h)"
	run "Cycles per alloc+put: fast (direct recycle), ring (put from another thread), slow (from the allocator)." \
		$b/page-pool-bench/lr-page-pool-bench "${eal[@]}"
fi
if [ -x scripts/bench-l2fwd.sh ] && [ -x $b/l2fwd/lr-l2fwd ]; then
	section "Forwarding (lr-l2fwd)"
	run "lr-l2fwd on net_null and net_ring ports, one forwarding lcore, 64-byte packets; DPDK's l2fwd (Debian's package, and scripts/dpdk-native.sh's build when present) alternating in the same run, the same steady-state window for every program." \
		env LR_BUILD=$bdir scripts/bench-l2fwd.sh
fi
if [ -x scripts/bench-elastic.sh ] && [ -x $b/elastic-bench/lr-elastic-bench ]; then
	section "Elastic mbuf pools (lib/mbuf over the page allocator)"
	run "lr-l2fwd on net_null with its default elastic pool against a fixed pool of the size it computes, alternating; then bursts into a net_ring port behind a slow consumer (lr-elastic-bench): memory held and frames dropped for a fixed pool at DPDK's usual formula, a fixed pool sized for the worst burst, and the elastic pool; and DPDK's fixed rte_mempool at both sizes in the same setup (its net_ring driver over rte_rings; Debian's package, and scripts/dpdk-native.sh's build when present)." \
		env LR_BUILD=$bdir scripts/bench-elastic.sh
fi
if [ -x scripts/bench-pktgen.sh ] && [ -x $b/pktgen/lr-pktgen ]; then
	section "Traffic generation (lr-pktgen on net_null)"
	run "lr-pktgen, one datapath lcore, 64-byte frames, with and without hugepages; DPDK testpmd txonly (Debian's package, and scripts/dpdk-native.sh's build when present) alternating in the same run, the same steady-state window for every program." \
		scripts/bench-pktgen.sh $bdir 4 3
fi
if [ -x scripts/bench-memif.sh ] && [ -x $b/pktgen/lr-pktgen ] && [ -x $b/l2fwd/lr-l2fwd ]; then
	section "Over memif (drivers/net/memif): linerate and DPDK testpmd"
	run "64 and 1518-byte frames over one memif link (generator -> receiver: lr-pktgen and testpmd txonly/rxonly, and the mixed pairs) and through a forwarder (lr-pktgen -> lr-l2fwd or testpmd io -> lr-pktgen), each process on its own CPU, rows alternating; Mpps and cycles per packet on each side over the same window." \
		scripts/bench-memif.sh $bdir 2 9
fi
if [ -x scripts/bench-rfc2544-memif.sh ] && [ -x $b/pktgen/lr-pktgen ] && [ -x $b/l2fwd/lr-l2fwd ]; then
	section "RFC 2544 over memif: NDR and PDR of lr-l2fwd and DPDK's forwarders found by lr-pktgen"
	run "lr-pktgen --rfc2544 throughput (servers on CPU 0) against each forwarder in turn (clients on CPU 1): lr-l2fwd, testpmd io, DPDK's l2fwd example when its source is there; 64 and 1518 B, 3 rounds, medians with the range." \
		scripts/bench-rfc2544-memif.sh $bdir 3
fi
if [ "$(id -u)" = 0 ] && [ -x scripts/bench-veth.sh ]; then
	section "Over veth pairs between network namespaces"
	run "lr-pktgen -> veth -> lr-l2fwd -> veth -> lr-pktgen: generator alone, maximum, highest zero-loss rate (af_packet, and af_xdp when built)." \
		scripts/bench-veth.sh $bdir
fi
if [ "$(id -u)" = 0 ] && [ -x scripts/bench-veth-afxdp.sh ]; then
	run "Forwarders alternated over the same topology: lr-l2fwd on af_xdp, lr-l2fwd on af_packet, DPDK testpmd io on net_af_xdp (when installed)." \
		env LR_BUILD=$bdir RUNS=5 DURATION=4 RATE=50000 scripts/bench-veth-afxdp.sh
	run "The same with the forwarder's veths set for busy polling (napi_defer_hard_irqs 2, gro_flush_timeout 200 us), so its receive work leaves the generator's CPU." \
		env LR_BUILD=$bdir RUNS=5 DURATION=4 RATE=50000 NAPI_DEFER=2 KINDS="lr_af_xdp dpdk_af_xdp" scripts/bench-veth-afxdp.sh
fi
if [ "$(id -u)" = 0 ] && [ -x scripts/bench-stack.sh ] && command -v iperf3 >/dev/null; then
	section "Linux stacks as peers (veth and tap, default offloads)"
	run "iperf3 TCP and ping RTT between two namespaces through a kernel bridge, lr-l2fwd on net_af_packet, lr-l2fwd on net_tap, and DPDK testpmd io on its net_af_packet (when installed), every interface with its default offloads." \
		scripts/bench-stack.sh $bdir 10 20
fi
if [ -x scripts/bench-dpdk-bridge.sh ] && [ -x $b/l2fwd/lr-l2fwd ]; then
	section "NICs through DPDK's drivers (drivers/net/dpdk, the linerate mempool ops)"
	run "The bridge's cost: lr-l2fwd over net_dpdk ports (DPDK's net_null under linerate ports) beside lr-l2fwd on linerate's net_null, DPDK's l2fwd and testpmd io on DPDK's net_null, and the floor of any bridge (lr-l2fwd over net_dpdk's benchmark-only build, drivers/plugins/floor, which hands DPDK's mbufs over as they are); the bridge and its floor again on scripts/dpdk-native.sh's build (its shared libraries) against that build's l2fwd, the comparison issue 19 sets its goal on; then testpmd io with its mbuf pool on the \"linerate\" mempool ops against ring_mp_mc. Rounds alternating, the same window for each." \
		env LR_BUILD=$bdir RUNS=3 scripts/bench-dpdk-bridge.sh
fi
if [ "$(id -u)" = 0 ]; then
	section "Test suite (scripts/test.sh)"
	run "The README's test command as CI runs it, packages already installed: its stages, what it skipped and why, and its closing line with the wall-clock time." \
		bash -c 'scripts/test.sh 2>&1 | grep -E "^(=== [a-z0-9-]+: (meson test|SKIPPED)|skipped:|failing:|[0-9]+ passed)"'
fi

# The table, and its charts when scripts/plot.sh can draw them (gnuplot).
summary_table >"$tmp.table"
if [ -n "$ONLY" ]; then
	python3 scripts/bench-merge.py "$outfile" "$tmp" "$tmp.table" \
		"rerun alone with ONLY='$ONLY' at commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown), $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "merged the rerun sections into $outfile"
	exit 0
fi
plots=""
if scripts/plot.sh "$tmp.table" bench/plots >/dev/null; then
	for k in throughput cycles; do
		if [ -f bench/plots/$k.png ]; then
			plots+="![$k](bench/plots/$k.png)"$'\n\n'
		fi
	done
fi
{
	cat "$head"
	cat "$tmp.table"
	printf '%s' "$plots"
	cat "$tmp"
} >"$outfile"
echo "wrote $outfile"
