# shellcheck shell=bash
# Sourced by the side-by-side benchmark scripts (bash): builds one of the
# DPDK programs under bench/dpdk/ against every DPDK 22.11 there is, and
# names them.
#
#   dpdk_peers SRC OUT   (SRC: bench/dpdk/x.c, OUT: path prefix of the
#                         binaries, e.g. build/bench-dpdk/x)
#
# Appends to the arrays peer_names, peer_bins and peer_notes: Debian's
# package (pkg-config libdpdk, package libdpdk-dev; shared libraries built
# -O2 for a baseline CPU) as "DPDK <version> Debian", and the build of
# scripts/dpdk-native.sh when present (static, -O3 -march=native) as
# "DPDK <version> native"; a missing one adds a note saying so instead.
# Both are compiled with peer_cflags, the flags of linerate's own build.
# A program that calls a driver's own API (rte_eth_from_rings() of
# net_ring) sets peer_driver_libs (e.g. (-lrte_net_ring)) before calling
# dpdk_peers: Debian's pkg-config --libs lists only the core libraries
# for a shared link, while the static native link has every driver.
peer_cflags=(-O3 -march=native -std=gnu11 -Wall)
peer_driver_libs=()

# dpdk_peer_build SRC OUT [PKG_CONFIG_PATH [--static]]: rebuilt when SRC is
# newer than OUT.
dpdk_peer_build() {
	local src=$1 out=$2 pcp=${3:-} static=${4:-} cf lf
	if [ -x "$out" ] && [ "$out" -nt "$src" ]; then
		return 0
	fi
	mkdir -p "$(dirname "$out")"
	cf=$(PKG_CONFIG_PATH=$pcp pkg-config --cflags libdpdk) || return 1
	lf=$(PKG_CONFIG_PATH=$pcp pkg-config ${static:+"$static"} --libs libdpdk) || return 1
	if [ -n "$static" ]; then
		# DPDK's libraries are linked statically, libpcap (which the
		# bpf library needs) is not: its own private dependencies
		# (-ldbus-1 -lsystemd, whose dev links may be missing) are not
		# needed.
		local f drop
		drop=" $(pkg-config --static --libs libpcap 2>/dev/null) "
		for f in $(pkg-config --libs libpcap 2>/dev/null); do
			drop=${drop// $f / }
		done
		for f in $drop; do
			lf=$(echo " $lf " | sed "s| $f | |g")
		done
	fi
	[ -n "$static" ] || lf="$lf ${peer_driver_libs[*]}"
	# shellcheck disable=SC2086
	cc "${peer_cflags[@]}" $cf "$src" -o "$out" $lf 2>"$out.log" || {
		echo "building $out failed (see $out.log)" >&2
		return 1
	}
}

dpdk_peers() {
	local src=$1 out=$2 nat pcdir
	if pkg-config --exists libdpdk 2>/dev/null &&
		dpdk_peer_build "$src" "$out-debian"; then
		peer_names+=("DPDK $(pkg-config --modversion libdpdk) Debian")
		peer_bins+=("$out-debian")
	else
		peer_notes+=("DPDK Debian: no peer (needs libdpdk-dev: pkg-config libdpdk)")
	fi
	if nat=$(scripts/dpdk-native.sh --print 2>/dev/null) &&
		pcdir=$(echo "$nat" | sed -n 's/^pkgconfig: //p') &&
		dpdk_peer_build "$src" "$out-native" "$pcdir" --static; then
		peer_names+=("DPDK $(PKG_CONFIG_PATH=$pcdir pkg-config --modversion libdpdk) native")
		peer_bins+=("$out-native")
		peer_notes+=("DPDK native: libraries built $(echo "$nat" | sed -n 's/^cflags: //p') ($pcdir)")
	else
		peer_notes+=("DPDK native: no peer (no build from scripts/dpdk-native.sh)")
	fi
}
