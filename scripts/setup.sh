#!/usr/bin/env bash
# Install what linerate needs on Debian 12 and reserve hugepages.
#   scripts/setup.sh           build and run dependencies
#   scripts/setup.sh --tests   also what the test command needs (ppc64le
#                              cross toolchain, qemu-user, tcpdump, clang
#                              for the fuzz targets, g++ for the headers'
#                              and the embedding test's C++, ...)
# Idempotent; needs root for apt and hugepages (without root it only checks).
set -euo pipefail

want_tests=0
[ "${1:-}" = "--tests" ] && want_tests=1

pkgs=(meson ninja-build pkg-config gcc libc6-dev libnuma-dev libpcap-dev
      libhugetlbfs-dev libxdp-dev libbpf-dev libjansson-dev iproute2)
test_pkgs=(gcc-powerpc64le-linux-gnu libc6-dev-ppc64el-cross qemu-user-static
           tcpdump tshark iperf3 iputils-ping clang g++ dpdk dpdk-dev)
cross_pkgs=(libnuma-dev:ppc64el libpcap-dev:ppc64el libjansson-dev:ppc64el)

missing() {
	local p out=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			out+=("$p")
	done
	echo "${out[@]}"
}

list=("${pkgs[@]}")
[ $want_tests = 1 ] && list+=("${test_pkgs[@]}")
need=$(missing "${list[@]}")
need_cross=""
[ $want_tests = 1 ] && need_cross=$(missing "${cross_pkgs[@]}")

if [ -n "$need$need_cross" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "setup: missing packages: $need $need_cross (run as root to install)" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	if [ -n "$need_cross" ] && ! dpkg --print-foreign-architectures | grep -qx ppc64el; then
		dpkg --add-architecture ppc64el
	fi
	echo "setup: installing $need $need_cross"
	apt-get update -q >/dev/null
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $need $need_cross >/dev/null
fi

# Hugepages: 2 MiB pages, 1 GiB in all, mounted at /dev/hugepages. Without
# root (or if the kernel refuses) linerate runs on ordinary memory.
if [ "$(id -u)" = 0 ]; then
	nr=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
	if [ -w $nr ] && [ "$(cat $nr)" -lt 512 ]; then
		echo 512 > $nr || true
	fi
	if ! grep -q '^[^ ]* [^ ]* hugetlbfs ' /proc/mounts; then
		mkdir -p /dev/hugepages
		mount -t hugetlbfs -o pagesize=2M nodev /dev/hugepages || true
	fi
	echo "setup: $(cat $nr 2>/dev/null || echo 0) hugepages of 2 MiB reserved"
fi
