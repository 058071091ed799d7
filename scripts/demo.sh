#!/usr/bin/env bash
# The main job (README command 1): set up, build in build/, and run the
# demo: start the EAL on two lcores with hugepages when there are some, show
# what it reserved, then run the benchmarks of the layers built so far.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
if [ ! -f build/build.ninja ]; then
	meson setup build >/dev/null
fi
ninja -C build >/dev/null

lcores=0-1
[ "$(nproc)" -lt 2 ] && lcores=0
eal=(-l "$lcores" -m 256 --file-prefix=demo)

echo "== EAL: lcores and memory"
build/apps/eal-demo/lr-eal-demo "${eal[@]}"
if [ -x build/apps/ring-bench/lr-ring-bench ]; then
	echo
	echo "== lock-free ring: cycles per item"
	build/apps/ring-bench/lr-ring-bench "${eal[@]}"
fi
if [ -x build/apps/l2fwd/lr-l2fwd ]; then
	echo
	echo "== the forwarder: lr-l2fwd on net_null and net_ring ports (Mpps)"
	echo "   (beside DPDK's l2fwd example when dpdk-dev and dpdk-doc are there)"
	bench/run --build build --no-setup --rounds "${RUNS:-1}" l2fwd l2fwd_ring
fi
