#!/usr/bin/env bash
# Rerun every benchmark and write BENCHMARKS.md (or the file given as $1).
# Each section gives the exact command and what it printed; the programs
# print outside figures (DPDK 22.11 on this kind of machine, the Linux
# kernel's) beside their own. Benchmarks only print: nothing here fails on
# speed. Takes a few minutes; run it on a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."
outfile=${1:-BENCHMARKS.md}
bdir=build-bench

scripts/setup.sh >/dev/null
[ -f $bdir/build.ninja ] || meson setup $bdir -Dbuildtype=release >/dev/null
ninja -C $bdir >/dev/null

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

section() { printf '\n## %s\n\n' "$1" >>"$tmp"; }
# run DESCRIPTION CMD...: record the command and its output.
run() {
	local what=$1; shift
	printf '%s\n\n```\n$ %s\n' "$what" "$*" >>"$tmp"
	"$@" >>"$tmp" 2>&1 || echo "(exit status $?)" >>"$tmp"
	printf '```\n\n' >>"$tmp"
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
} >"$tmp"

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
	run "Cycles per object, get+put, one lcore; DPDK's rte_mempool running the same loops in the same run (Debian's package, and scripts/dpdk-native.sh's build when present). Seven processes per side: a process's figures depend on its address-space layout." \
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
if [ -x scripts/bench-pktgen.sh ] && [ -x $b/pktgen/lr-pktgen ]; then
	section "Traffic generation (lr-pktgen on net_null)"
	run "lr-pktgen, one datapath lcore, 64-byte frames, with and without hugepages; DPDK testpmd txonly (Debian's package, and scripts/dpdk-native.sh's build when present) alternating in the same run, the same steady-state window for every program." \
		scripts/bench-pktgen.sh $bdir 4 3
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

mv "$tmp" "$outfile"
trap - EXIT
echo "wrote $outfile"
