#!/usr/bin/env bash
# Install what linerate needs on Debian 12 and reserve hugepages.
#   scripts/setup.sh [--tests] [--bench] [--status FILE] [--no-hugepages]
#     (none)        build and run dependencies
#     --tests       also what the test command needs, in groups: test
#                   tools (tcpdump, tshark, g++, prometheus, ...), DPDK (the peer of
#                   the interop tests), clang (fuzz targets), the ppc64le
#                   cross toolchain with qemu-user, and a VM (qemu-system,
#                   busybox-static and Debian's kernel with its virtio
#                   modules, taken from its package into
#                   /var/cache/linerate/vm: the guest of test vhost_vm)
#     --bench       what bench/run's comparisons need: the test tools,
#                   DPDK, DPDK's example sources (dpdk-doc: its l2fwd) and
#                   valgrind (callgrind: the *_instructions comparisons)
#     --status FILE one line per step that could not be done,
#                   "skip GROUP: REASON", for scripts/test.sh to skip
#                   that group's tests with the reason
#     --no-hugepages  leave the hugepage reservation as it is
#
# Every step is named in what it prints. apt steps are tried 3 times (a
# mirror in sync, a lock held by another apt), with `apt-get update` again
# between tries; a failed `apt-get update` is not fatal by itself (an index
# of a foreign source may be broken while the packages needed are still
# installable): only a package that cannot be installed is. The build
# group failing ends setup with status 1; a test group failing is reported
# and written to the status file, and setup goes on (status 0). The ppc64le
# build needs no multiarch (:ppc64el) packages: the cross compiler and its
# libc are ordinary amd64 packages (config/ppc/ppc64le-linux-gcc).
# Idempotent; needs root for apt and hugepages (without root it only
# checks, and reports what is missing).
set -uo pipefail

want_tests=0 want_bench=0 status_file=/dev/null hugepages=1
while [ $# -gt 0 ]; do
	case $1 in
	--tests) want_tests=1 ;;
	--bench) want_bench=1 ;;
	--status) status_file=$2; shift ;;
	--no-hugepages) hugepages=0 ;;
	*) echo "setup: unknown argument '$1' (--tests, --bench, --status FILE, --no-hugepages)" >&2
	   exit 2 ;;
	esac
	shift
done
: >"$status_file" || exit 1
# Seconds before try n+1 is n times this (LR_SETUP_RETRY_DELAY=0 in tests).
delay=${LR_SETUP_RETRY_DELAY:-5}
tries=3

# group: packages (the build group first; the others only with --tests,
# or --bench for tools, dpdk and bench)
groups=(build tools dpdk fuzz ppc64le vm bench)
declare -A group_pkgs=(
	[build]="meson ninja-build pkg-config gcc libc6-dev libnuma-dev libpcap-dev libhugetlbfs-dev libxdp-dev libbpf-dev libjansson-dev iproute2"
	[tools]="tcpdump tshark iperf3 iputils-ping g++ groff-base gnuplot-nox prometheus curl"
	[dpdk]="dpdk dpdk-dev"
	[fuzz]="clang libclang-rt-14-dev"
	[ppc64le]="gcc-powerpc64le-linux-gnu libc6-dev-ppc64el-cross qemu-user-static"
	[vm]="qemu-system-x86 busybox-static"
	[bench]="dpdk-doc valgrind"
)
# The groups bench/run needs.
declare -A bench_groups=([build]=1 [tools]=1 [dpdk]=1 [bench]=1)

missing() {
	local p out=()
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			out+=("$p")
	done
	echo "${out[@]}"
}

log=$(mktemp) || exit 1
trap 'rm -f "$log"' EXIT

# The last error lines apt printed (E: and W: lines), on one line.
apt_why() {
	grep -E '^(E|W|Err):' "$log" | tail -n 2 | tr '\n' ' ' | cut -c1-300
}

export DEBIAN_FRONTEND=noninteractive
apt_opts=(-q -o DPkg::Lock::Timeout=120 -o Acquire::Retries=3)

updated=0
# apt-get update, 3 tries; its failure is a warning, never the end.
apt_update() {
	local i
	for i in $(seq $tries); do
		if apt-get "${apt_opts[@]}" update >"$log" 2>&1; then
			updated=1
			return 0
		fi
		echo "setup: apt-get update failed (try $i of $tries): $(apt_why)"
		[ "$i" -lt $tries ] && sleep $((i * delay))
	done
	echo "setup: apt-get update: going on with the package lists there are"
	return 1
}

# Install group NAME's missing packages: 0, or 1 after writing why.
install_group() {
	local name=$1 need i
	# shellcheck disable=SC2086
	need=$(missing ${group_pkgs[$name]})
	[ -z "$need" ] && return 0
	if [ "$(id -u)" != 0 ]; then
		reason="missing $need (run setup as root to install)"
		echo "setup: packages ($name): $reason" >&2
		echo "skip $name: $reason" >>"$status_file"
		return 1
	fi
	[ $updated = 0 ] && apt_update
	for i in $(seq $tries); do
		echo "setup: packages ($name): installing $need"
		# shellcheck disable=SC2086
		if apt-get "${apt_opts[@]}" install -y --no-install-recommends \
			$need >"$log" 2>&1; then
			return 0
		fi
		echo "setup: packages ($name): apt-get install failed (try $i of $tries): $(apt_why)"
		if [ "$i" -lt $tries ]; then
			sleep $((i * delay))
			apt_update
		fi
	done
	# shellcheck disable=SC2086
	need=$(missing ${group_pkgs[$name]})
	reason="cannot install $need: $(apt_why)"
	echo "setup: packages ($name): FAILED: $reason" >&2
	echo "skip $name: $reason" >>"$status_file"
	return 1
}

for g in "${groups[@]}"; do
	case $g in
	build) ;;
	bench) [ $want_bench = 1 ] || continue ;;
	*) [ $want_tests = 1 ] || { [ $want_bench = 1 ] &&
		[ -n "${bench_groups[$g]:-}" ]; } || continue ;;
	esac
	if ! install_group "$g" && [ "$g" = build ]; then
		echo "setup: the build group is needed by everything: stopping" >&2
		exit 1
	fi
done

# The VM's kernel: Debian's (the package linux-image-amd64 names), its
# vmlinuz and the modules of a virtio-net guest taken from the package
# (downloaded, not installed: nothing of this machine's boot changes) into
# $vm_dir, once. 0, or 1 after writing why.
vm_dir=${LR_VM_DIR:-/var/cache/linerate/vm}
vm_modules="virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci failover net_failover virtio_net"
# The kernel package linux-image-amd64 depends on, or nothing.
kernel_pkg() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		awk '/Depends: linux-image-[0-9]/ {print $2; exit}'
}
fetch_vm_kernel() {
	local pkg tmp i deb m reason why=
	[ -s "$vm_dir/kernel/vmlinuz" ] && [ -s "$vm_dir/kernel/virtio_net.ko" ] &&
		return 0
	pkg=$(kernel_pkg)
	if [ -z "$pkg" ] && [ $updated = 0 ]; then
		apt_update # no package lists yet (nothing else was installed)
		pkg=$(kernel_pkg)
	fi
	if [ -z "$pkg" ]; then
		reason="no kernel package named by linux-image-amd64"
	else
		tmp=$(mktemp -d) || return 1
		chmod 755 "$tmp" # apt's _apt user writes there
		deb=
		for i in $(seq $tries); do
			echo "setup: vm: downloading $pkg (the guest's kernel)"
			(cd "$tmp" && apt-get "${apt_opts[@]}" download "$pkg") \
				>"$log" 2>&1
			deb=$(find "$tmp" -maxdepth 1 -name "*.deb" | head -n 1)
			[ -n "$deb" ] && break
			why=$(apt_why)
			why=${why:-apt-get download left no .deb}
			echo "setup: vm: download failed (try $i of $tries): $why"
			[ "$i" -lt $tries ] && sleep $((i * delay))
		done
		reason="cannot download $pkg: ${why:-}"
		if [ -n "$deb" ] && mkdir -p "$tmp/x" &&
			dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp/x" \
				--wildcards './boot/vmlinuz-*' '*/virtio*.ko' \
				'*/failover.ko' '*/net_failover.ko'; then
			rm -rf "$vm_dir/kernel.new"
			mkdir -p "$vm_dir/kernel.new"
			cp "$tmp"/x/boot/vmlinuz-* "$vm_dir/kernel.new/vmlinuz"
			reason=
			for m in $vm_modules; do
				find "$tmp/x" -name "$m.ko" -exec cp {} \
					"$vm_dir/kernel.new/" \; -quit
				[ -s "$vm_dir/kernel.new/$m.ko" ] ||
					reason="$pkg has no $m.ko"
			done
			echo "$pkg" >"$vm_dir/kernel.new/package"
			if [ -z "$reason" ]; then
				rm -rf "$vm_dir/kernel"
				mv "$vm_dir/kernel.new" "$vm_dir/kernel"
			fi
		fi
		rm -rf "$tmp"
		if [ -z "$reason" ]; then
			echo "setup: vm: $pkg's kernel and virtio modules in $vm_dir/kernel"
			return 0
		fi
	fi
	echo "setup: vm: FAILED: $reason" >&2
	echo "skip vm: $reason" >>"$status_file"
	return 1
}
if [ $want_tests = 1 ] && [ "$(id -u)" = 0 ]; then
	fetch_vm_kernel
fi

# Hugepages: 2 MiB pages, 1 GiB in all, mounted at /dev/hugepages. Without
# root (or if the kernel refuses) linerate runs on ordinary memory.
if [ $hugepages = 1 ] && [ "$(id -u)" = 0 ]; then
	nr=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
	if [ -w $nr ] && [ "$(cat $nr)" -lt 512 ]; then
		echo 512 >$nr 2>/dev/null ||
			echo "setup: hugepages: the kernel refused 512 pages"
	fi
	if ! grep -q '^[^ ]* [^ ]* hugetlbfs ' /proc/mounts; then
		mkdir -p /dev/hugepages
		mount -t hugetlbfs -o pagesize=2M nodev /dev/hugepages ||
			echo "setup: hugepages: cannot mount hugetlbfs on /dev/hugepages"
	fi
	echo "setup: hugepages: $(cat $nr 2>/dev/null || echo 0) of 2 MiB reserved"
fi
exit 0
