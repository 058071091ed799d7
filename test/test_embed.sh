#!/usr/bin/env bash
# Programs built against the INSTALLED libraries the way an outside program
# would (meson install into a temporary DESTDIR, pkg-config from there, no
# in-tree paths), each linked dynamically and statically, run and checked:
#   mempool-embed (C, examples/mempool-embed): dynamically with
#     linerate_mempool.pc, which must pull in only liblinerate_eal, _ring,
#     _pagealloc and _mempool (no libpcap, libxdp, libbpf); statically with
#     `pkg-config --static linerate`, which must leave no liblinerate .so;
#   embed-globals (C, test/embed/embed_globals.c): globals of its own named
#     pa, eal_cfg, pa_lock: no link error, not written by the library;
#   embed-cxx (C++17, test/embed/embed.cpp; with LR_CXX set): every header,
#     inline ring/mempool/mbuf paths, and every driver of DRIVERS found
#     registered, linked shared (each driver's library loaded) and static;
#     each plugin driver of PLUGINS neither linked in (nor its outside
#     libraries: no librte_*) nor registered until a port names it, then
#     loaded from the installed plugin folder (LR_PLUGIN_PATH: the folder
#     is under DESTDIR), both ways (the static program exports its lr_
#     symbols for it);
#   embed-dpdk (C, test/embed/embed_dpdk.c; when net_dpdk is a plugin):
#     a program calling lr_eth_dpdk_* links the driver itself, shared
#     (linerate_net_dpdk.pc) and static (its archive after `pkg-config
#     --static linerate`, as lr_eth_dpdk.h says): built in, registered,
#     and with DPDK's libraries among its own.
# Usage (from meson):
#   test_embed.sh SOURCE_ROOT BUILD_ROOT IS_CROSS SANITIZE DRIVERS PLUGINS
# DRIVERS: the drivers linked in, comma-separated (net_null,net_ring,...);
# PLUGINS: the plugin drivers (net_dpdk), comma-separated, maybe empty.
set -euo pipefail
src=$1 build=$2 cross=$3 sanitize=${4:-none} drivers=${5:-} plugins=${6:-}
read -r -a cxx <<<"${LR_CXX:-}"

if [ "$cross" = true ]; then
	echo "skip: cross build; the example is built with the host compiler"
	exit 77
fi
for tool in pkg-config cc meson; do
	if ! command -v $tool >/dev/null; then
		echo "skip: $tool not found"
		exit 77
	fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lr-embed.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root

meson install -C "$build" --destdir "$root" --no-rebuild >"$tmp/install.log" 2>&1 || {
	cat "$tmp/install.log"
	echo "FAIL: meson install --destdir"
	exit 1
}
pc=$(find "$root" -name linerate.pc | head -n 1)
if [ -z "$pc" ]; then
	echo "FAIL: no linerate.pc installed"
	exit 1
fi
# The installed tree first (the system's .pc files stay visible for the
# packages linerate requires, such as libxdp); paths land under the sysroot.
export PKG_CONFIG_PATH=$(dirname "$pc")
export PKG_CONFIG_SYSROOT_DIR=$root
libdir=$(pkg-config --variable=libdir linerate)
case $libdir in
"$root"/*) ;; # pkgconf applies the sysroot to variables too
*) libdir=$root$libdir ;;
esac

extra=()
if [ "$sanitize" != none ] && [ -n "$sanitize" ]; then
	extra=(-fsanitize="$sanitize")
fi

fail() {
	echo "FAIL: $*"
	exit 1
}

# build OUT COMPILER SOURCE PKG-CONFIG-ARGS...: compile and link one
# program (COMPILER: one word; "cxx" for the C++ compiler in LR_CXX).
build() {
	local out=$1 source=$3 flags comp=("$2")
	shift 3
	[ "${comp[0]}" = cxx ] && comp=("${cxx[@]}" -std=c++17)
	flags=$(pkg-config --cflags --libs "$@") ||
		fail "pkg-config $*"
	echo "${comp[*]} $(basename "$source"): pkg-config $*: $flags"
	# shellcheck disable=SC2086
	"${comp[@]}" -O2 -Wall -Wextra -Werror "${extra[@]}" -o "$tmp/$out" \
		"$source" $flags -pthread || fail "building $out"
}

# libs OUT: the linerate and packet-library entries of ldd's output. (ldd's
# output is taken whole first: grep -q closing the pipe early would fail
# the pipeline under pipefail.)
libs() {
	local deps
	deps=$(LD_LIBRARY_PATH=$libdir ldd "$tmp/$1")
	grep -oE 'lib(linerate_[a-z_]+|pcap|xdp|bpf|rte_[a-z_]+)\.so[.0-9]*' <<<"$deps" |
		sort -u | tr '\n' ' '
}

# run OUT [ARGS...]: run a program from the temporary directory; its output
# in $out.
run() {
	local p=$1
	shift
	out=$(cd "$tmp" && LD_LIBRARY_PATH=$libdir "./$p" "$@" 2>&1) || {
		echo "$out"
		fail "$p exited with an error"
	}
	echo "$out"
}

check_mempool_embed() {
	grep -q '^thread 0: lcore [0-9]*, [1-9][0-9]* objects, 0 bad$' <<<"$out"
	grep -q '^thread 1: lcore [0-9]*, [1-9][0-9]* objects, 0 bad$' <<<"$out"
	grep -q '^pool: size 4096, avail 4096, in use 0, validate 0$' <<<"$out"
	grep -q '^mempool-embed: OK$' <<<"$out"
}

embed=$src/examples/mempool-embed/main.c
globals=$src/test/embed/embed_globals.c

# Dynamic, mempool only: exactly the five libraries it needs (the EAL
# starts the telemetry server: liblinerate_telemetry below it).
build embed-dyn cc "$embed" linerate_mempool
got=$(libs embed-dyn)
echo "embed-dyn links: $got"
want="liblinerate_eal.so.0 liblinerate_mempool.so.0 liblinerate_pagealloc.so.0 liblinerate_ring.so.0 liblinerate_telemetry.so.0 "
[ "$got" = "$want" ] || fail "embed-dyn: expected '$want'"
run embed-dyn
check_mempool_embed

# Static: linerate's archives in the program, no liblinerate .so.
build embed-static cc "$embed" --static linerate
got=$(libs embed-static)
echo "embed-static links: $got"
grep -q linerate <<<"$got" && fail "embed-static: linked a shared liblinerate"
run embed-static
check_mempool_embed

# A program's own pa, eal_cfg and pa_lock, both ways.
build globals-dyn cc "$globals" linerate
build globals-static cc "$globals" --static linerate
grep -q linerate <<<"$(libs globals-static)" &&
	fail "globals-static: linked a shared liblinerate"
for p in globals-dyn globals-static; do
	run $p
	grep -q '^embed-globals: 0 words changed: OK$' <<<"$out"
done

# A program on net_dpdk's own API links it, shared and static.
if [[ ",$plugins," == *,net_dpdk,* ]]; then
	dsrc=$src/test/embed/embed_dpdk.c
	build embed-dpdk-dyn cc "$dsrc" linerate linerate_net_dpdk
	got=$(libs embed-dpdk-dyn)
	echo "embed-dpdk-dyn links: $got"
	grep -q 'liblinerate_net_dpdk\.so\.0' <<<"$got" && grep -q librte_eal <<<"$got" ||
		fail "embed-dpdk-dyn: liblinerate_net_dpdk.so.0 or librte_eal missing"
	dflags=$(pkg-config --cflags --libs --static linerate)
	dflags+=" -l:liblinerate_net_dpdk.a"
	dflags+=" $(pkg-config --libs --static linerate_net_dpdk)"
	echo "cc $(basename "$dsrc"): static: $dflags"
	# shellcheck disable=SC2086
	cc -O2 -Wall -Wextra -Werror "${extra[@]}" -o "$tmp/embed-dpdk-static" \
		"$dsrc" $dflags -pthread || fail "building embed-dpdk-static"
	got=$(libs embed-dpdk-static)
	echo "embed-dpdk-static links: $got"
	grep -q linerate <<<"$got" &&
		fail "embed-dpdk-static: linked a shared liblinerate"
	grep -q librte_eal <<<"$got" || fail "embed-dpdk-static: no librte_eal"
	for p in embed-dpdk-dyn embed-dpdk-static; do
		run $p
		grep -q '^embed-dpdk: OK$' <<<"$out" || fail "$p"
	done
fi

# C++, shared and static; every driver registered either way.
if [ ${#cxx[@]} -eq 0 ]; then
	echo "C++: skipped, this build has no C++ compiler"
	echo "PASS"
	exit 0
fi
IFS=, read -r -a drv <<<"$drivers"
IFS=, read -r -a plug <<<"$plugins"
build cxx-dyn cxx "$src/test/embed/embed.cpp" linerate
got=$(libs cxx-dyn)
echo "cxx-dyn links: $got"
for d in "${drv[@]}"; do
	grep -q "liblinerate_$d.so" <<<"$got" ||
		fail "cxx-dyn: liblinerate_$d.so not loaded (dropped by --as-needed?)"
done
build cxx-static cxx "$src/test/embed/embed.cpp" --static linerate
grep -q linerate <<<"$(libs cxx-static)" &&
	fail "cxx-static: linked a shared liblinerate"
for p in cxx-dyn cxx-static; do
	[ ${#plug[@]} -gt 0 ] && grep -qE 'librte_|_net_dpdk' <<<"$(libs $p)" &&
		fail "$p: links a plugin driver or DPDK: $(libs $p)"
done
plugdir=$libdir/linerate/plugins
for d in "${plug[@]}"; do
	[ -f "$plugdir/liblinerate_$d.so" ] ||
		fail "plugin $d not installed in $plugdir"
done
for p in cxx-dyn cxx-static; do
	LR_PLUGIN_PATH=$plugdir run "$p" "${drv[@]}" "${plug[@]/#/plugin:}"
	for d in "${drv[@]}"; do
		grep -q "^driver $d: ok$" <<<"$out" || fail "$p: driver $d"
	done
	for d in "${plug[@]}"; do
		grep -q "^plugin $d not linked in: ok$" <<<"$out" &&
			grep -q "^plugin $d loaded: ok$" <<<"$out" ||
			fail "$p: plugin $d"
	done
	grep -q '^embed-cxx: OK$' <<<"$out"
done
echo "PASS"
