# shellcheck shell=bash
# Sourced by the benchmarks that run DPDK's l2fwd example beside linerate
# (bench/run l2fwd, scripts/bench-rfc2544-memif.sh).
#
#   dpdk_l2fwd_example BUILD_DIR
#       DPDK's l2fwd example as Debian ships it: the example's source
#       (dpdk-doc's copy, else the one in the source package
#       scripts/dpdk-native.sh fetched) built once into BUILD_DIR/dpdk-l2fwd
#       against Debian's libdpdk with the example's own Makefile (-O3 and
#       libdpdk.pc's flags). Prints the binary's path and returns 0; else
#       prints why there is none and returns 1.
dpdk_l2fwd_example() {
	local b=$1 d exdir="" ddir
	for d in /usr/share/dpdk/examples/l2fwd \
		"${LR_DPDK_NATIVE_DIR:-/var/cache/linerate/dpdk-native}"/src/dpdk-22.11*/examples/l2fwd; do
		[ -f "$d/main.c" ] && { exdir=$d; break; }
	done
	if ! pkg-config --exists libdpdk 2>/dev/null || [ -z "$exdir" ]; then
		echo "no peer (needs libdpdk-dev and the l2fwd example source: dpdk-doc or scripts/dpdk-native.sh's source)"
		return 1
	fi
	ddir=$b/dpdk-l2fwd
	if [ ! -x "$ddir/build/l2fwd" ]; then
		rm -rf "$ddir"
		cp -r "$exdir" "$ddir"
		make -s -C "$ddir" >"$b/dpdk-l2fwd.log" 2>&1 || true
	fi
	if [ ! -x "$ddir/build/l2fwd" ]; then
		echo "build failed, see $b/dpdk-l2fwd.log"
		return 1
	fi
	realpath "$ddir/build/l2fwd"
}
