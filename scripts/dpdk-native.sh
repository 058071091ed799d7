#!/usr/bin/env bash
# Builds DPDK 22.11 from Debian's source package for this CPU
# (-Dplatform=native, meson's release build: -O3 -march=native), the peer
# the benchmarks compare against beside Debian's own package (built -O2 for
# a baseline CPU). Only what the comparisons use is built: the net_null,
# net_ring and net_memif drivers, the ring mempool driver (with the bus
# drivers DPDK always builds), dpdk-testpmd, dpdk-test and the l2fwd
# example, linked statically so they never pick up Debian's shared
# librte_* of the same soname.
#
#   scripts/dpdk-native.sh [--print]
#
# Env: LR_DPDK_NATIVE_DIR (cache folder, default
# /var/cache/linerate/dpdk-native), JOBS (ninja -j, default 2), NICE
# (nice level of the build, default 19).
#
# Idempotent: when the folder already holds an install made from the same
# source version and options, nothing is rebuilt. --print only prints where
# things are (exit 1 when there is no build). The last lines are
# "key: value" pairs other scripts read:
#   testpmd: /path  test: /path  l2fwd: /path  pkgconfig: /dir  cflags: ...
# On a 2-vCPU machine shared with other work (load about 13), the build
# took 17 minutes under nice -n 19 -j2 (608 ninja steps, 4 minutes of CPU).
set -euo pipefail

dir=${LR_DPDK_NATIVE_DIR:-/var/cache/linerate/dpdk-native}
jobs=${JOBS:-2}
nicelvl=${NICE:-19}
series=22.11
drivers=net/null,net/ring,net/memif,mempool/ring,bus/vdev,bus/pci
# Optional libraries of 22.11 (lib/meson.build optional_libs) none of the
# comparisons uses; the mandatory ones cannot be disabled.
nolibs=bitratestats,cfgfile,flow_classify,gpudev,gro,gso,kni,jobstats
nolibs=$nolibs,latencystats,metrics,node,pdump,pipeline,port,power,table
nolibs=$nolibs,vhost
opts=(-Dplatform=native -Dbuildtype=release -Ddefault_library=static
	"-Denable_drivers=$drivers" "-Ddisable_libs=$nolibs"
	-Denable_apps=test-pmd -Dtests=true -Dexamples=l2fwd
	-Denable_docs=false -Denable_kmods=false)

die() {
	echo "dpdk-native: $*" >&2
	exit 1
}

report() {
	local inst=$dir/install pc
	pc=$inst/lib/pkgconfig
	echo "DPDK $(head -1 "$dir/stamp" 2>/dev/null) built -Dplatform=native in $dir"
	echo "testpmd: $inst/bin/dpdk-testpmd"
	echo "test: $inst/bin/dpdk-test"
	echo "l2fwd: $inst/bin/dpdk-l2fwd"
	echo "pkgconfig: $pc"
	echo "cflags: $(sed -n 2p "$dir/stamp")"
	echo "pkg-config cflags: $(PKG_CONFIG_PATH=$pc pkg-config --cflags libdpdk)"
}

built() {
	[ -f "$dir/stamp" ] && [ -x "$dir/install/bin/dpdk-testpmd" ] &&
		[ -x "$dir/install/bin/dpdk-test" ] &&
		[ -x "$dir/install/bin/dpdk-l2fwd" ] &&
		[ -f "$dir/install/lib/pkgconfig/libdpdk.pc" ]
}

if [ "${1:-}" = "--print" ]; then
	built || die "no native build in $dir (run scripts/dpdk-native.sh)"
	report
	exit 0
fi

# Debian's source package: the version apt would give, needs a deb-src entry.
# (No grep -q on a pipe: with pipefail its early exit fails apt-cache.)
has_src() {
	local v
	v=$(apt-cache showsrc dpdk 2>/dev/null || true)
	[[ $v == *"Version: $series"* ]]
}
if ! has_src; then
	# shellcheck source=/dev/null
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
	echo "dpdk-native: adding a deb-src entry for $codename"
	cat >/etc/apt/sources.list.d/linerate-deb-src.sources <<EOF
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $codename
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
	apt-get update -qq
	has_src || die "no dpdk $series source package from apt (apt-cache showsrc dpdk)"
fi
ver=$(apt-cache showsrc dpdk | sed -n "s/^Version: \(${series}[^ ]*\)/\1/p" | sort -V | tail -1)
want="$ver ${opts[*]}"

if built && [ "$(sed -n 3p "$dir/stamp")" = "$want" ]; then
	echo "dpdk-native: reusing the build of $ver in $dir"
	report
	exit 0
fi

# Tools to build with; the library headers DPDK needs are few
# (libnuma-dev for EAL, python3-pyelftools for the driver info tool).
arch=$(dpkg --print-architecture)
need=()
for p in meson ninja-build pkgconf python3-pyelftools libnuma-dev \
	dpkg-dev gcc; do
	dpkg -s "$p:$arch" >/dev/null 2>&1 || dpkg -s "$p" >/dev/null 2>&1 ||
		need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	echo "dpdk-native: installing ${need[*]}"
	apt-get install -y -qq "${need[@]}" >/dev/null
fi

mkdir -p "$dir/src"
upver=${ver%%-*}
src=$dir/src/dpdk-$upver
if [ ! -f "$src/VERSION" ] || [ ! -f "$dir/src/dpdk_$ver.dsc" ]; then
	rm -rf "$dir/src"
	mkdir -p "$dir/src"
	(cd "$dir/src" && apt-get source -qq "dpdk=$ver") ||
		die "apt-get source dpdk=$ver failed"
fi
[ -f "$src/meson_options.txt" ] || die "no DPDK source tree in $src"
grep -q "option('platform'" "$src/meson_options.txt" ||
	die "$src has no 'platform' meson option: not DPDK $series?"

start=$(date +%s)
rm -rf "$dir/build" "$dir/install" "$dir/stamp"
(cd "$src" && meson setup "$dir/build" --prefix="$dir/install" \
	--libdir=lib "${opts[@]}") >"$dir/configure.log" 2>&1 ||
	die "meson setup failed, see $dir/configure.log"
nice -n "$nicelvl" ninja -C "$dir/build" -j "$jobs" >"$dir/build.log" 2>&1 ||
	die "build failed, see $dir/build.log"
ninja -C "$dir/build" install >"$dir/install.log" 2>&1 ||
	die "install failed, see $dir/install.log"
# Examples are built, not installed.
install -m 755 "$dir/build/examples/dpdk-l2fwd" "$dir/install/bin/dpdk-l2fwd"

# The flags one library file was compiled with (machine flags included).
cflags=$(python3 - "$dir/build/compile_commands.json" <<'EOF'
import json, sys
for e in json.load(open(sys.argv[1])):
    if e["file"].endswith("lib/mempool/rte_mempool.c"):
        a = e["command"].split()
        print(" ".join(x for x in a if x.startswith(("-O", "-m", "-g"))))
        break
EOF
)
printf '%s\n%s\n%s\n' "$ver" "$cflags" "$want" >"$dir/stamp"
echo "dpdk-native: built in $(($(date +%s) - start)) s"
report
