#!/usr/bin/env bash
# scripts/setup.sh against an apt that fails (suite fast; no root, no
# network: apt-get, dpkg-query and id are fakes first on PATH, and the
# hugepage step is off):
#
#   test_setup.sh SOURCE_ROOT
#
# 1. apt-get fails its first call (an index "File has unexpected size
#    (... Mirror sync in progress?)"): setup says so, tries again, installs
#    and exits 0.
# 2. apt-get update fails every time (a foreign index), install works:
#    setup warns, goes on, installs, exits 0.
# 3. the ppc64le group cannot be installed ("held broken packages"):
#    tried 3 times, reported by name, "skip ppc64le: <reason>" in the
#    status file, the other groups installed, exit 0.
# 4. the build group cannot be installed: exit 1, naming the step.
# 5. not root: nothing is installed, each missing group is written to the
#    status file with what is missing.
# 6. the VM's kernel is not cached and its download leaves nothing: "skip
#    vm: <reason>" in the status file, exit 0 (the other cases have one
#    cached: LR_VM_DIR).
# Exit 0 passed, 1 failed.
set -u
src=${1:?usage: test_setup.sh SOURCE_ROOT}
setup=$src/scripts/setup.sh
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/bin"
fail=0

# The fakes keep their state in $FAKE: "missing" (one package a line),
# "calls" (one apt-get call a line), "n" (calls so far).
cat >"$dir/bin/dpkg-query" <<'EOF'
#!/bin/sh
# dpkg-query -W -f='${Status}' PKG
for p; do :; done
grep -qx "$p" "$FAKE/missing" || printf 'install ok installed'
EOF
cat >"$dir/bin/id" <<'EOF'
#!/bin/sh
echo "${FAKE_UID:-0}"
EOF
cat >"$dir/bin/apt-get" <<'EOF'
#!/bin/sh
# FAKE_FAIL_FIRST=1: the first call fails; FAKE_UPDATE_FAIL=1: every update
# fails; FAKE_INSTALL_FAIL=PKG: an install that names PKG fails.
n=$(($(cat "$FAKE/n" 2>/dev/null || echo 0) + 1))
echo $n >"$FAKE/n"
echo "$*" >>"$FAKE/calls"
if [ "$n" = 1 ] && [ "${FAKE_FAIL_FIRST:-0}" = 1 ]; then
	echo "E: Failed to fetch http://deb.debian.org/debian/dists/bookworm/main/binary-ppc64el/Packages.xz  File has unexpected size (1234 != 5678). Mirror sync in progress? [IP: 1.2.3.4 80]"
	exit 100
fi
case " $* " in
*" update "*)
	if [ "${FAKE_UPDATE_FAIL:-0}" = 1 ]; then
		echo "E: Failed to fetch https://packages.example/apt/dists/x/InRelease  403  Forbidden"
		exit 100
	fi
	exit 0 ;;
*" install "*)
	if [ -n "${FAKE_INSTALL_FAIL:-}" ] && echo " $* " | grep -q " $FAKE_INSTALL_FAIL "; then
		echo "E: Unable to correct problems, you have held broken packages."
		exit 100
	fi
	for p; do
		grep -vx -- "$p" "$FAKE/missing" >"$FAKE/m2"; mv "$FAKE/m2" "$FAKE/missing"
	done
	exit 0 ;;
esac
exit 0
EOF
chmod +x "$dir/bin/"*

# run NAME MISSING-PACKAGES [ENV=VALUE ...]: setup --tests with the fakes;
# its output in $dir/NAME.out, its status in $rc, the status file in
# $dir/NAME.status.
run() {
	local name=$1 missing=$2
	shift 2
	export FAKE=$dir/$name
	mkdir -p "$FAKE"
	tr ' ' '\n' <<<"$missing" >"$FAKE/missing"
	env LR_VM_DIR="$dir/vm" "$@" PATH="$dir/bin:$PATH" LR_SETUP_RETRY_DELAY=0 \
		"$setup" --tests --no-hugepages --status "$dir/$name.status" \
		>"$dir/$name.out" 2>&1
	rc=$?
}

check() { # NAME CONDITION-DESCRIPTION COMMAND...
	local name=$1 what=$2
	shift 2
	if "$@"; then
		echo "ok: $name: $what"
	else
		echo "FAILED: $name: $what; setup printed:"
		sed 's/^/  | /' "$dir/$name.out"
		[ -f "$dir/$name/calls" ] && sed 's/^/  apt-get /' "$dir/$name/calls"
		fail=1
	fi
}

# a guest kernel already cached (setup fetches it once)
mkdir -p "$dir/vm/kernel"
echo k >"$dir/vm/kernel/vmlinuz"
echo m >"$dir/vm/kernel/virtio_net.ko"

run first_fails "clang" FAKE_FAIL_FIRST=1
check first_fails "exit 0" [ $rc = 0 ]
check first_fails "the failure said, with apt's reason" \
	grep -q "apt-get update failed (try 1 of 3): E: Failed to fetch.*Mirror sync" "$dir/first_fails.out"
check first_fails "update tried again, then install" \
	[ "$(cut -d" " -f6- "$dir/first_fails/calls" | tr '\n' '|')" = "update|update|install -y --no-install-recommends clang|" ]
check first_fails "clang installed" [ ! -s "$dir/first_fails/missing" ]
check first_fails "nothing skipped" [ ! -s "$dir/first_fails.status" ]

run foreign_index "meson tcpdump" FAKE_UPDATE_FAIL=1
check foreign_index "exit 0" [ $rc = 0 ]
check foreign_index "update failed 3 times, setup goes on" \
	grep -q "going on with the package lists" "$dir/foreign_index.out"
check foreign_index "both groups installed" [ ! -s "$dir/foreign_index/missing" ]
check foreign_index "nothing skipped" [ ! -s "$dir/foreign_index.status" ]

run cross_broken "gcc-powerpc64le-linux-gnu qemu-user-static tshark" \
	FAKE_INSTALL_FAIL=gcc-powerpc64le-linux-gnu
check cross_broken "exit 0" [ $rc = 0 ]
check cross_broken "install of the group tried 3 times" \
	[ "$(grep -c 'install.*gcc-powerpc64le-linux-gnu' "$dir/cross_broken/calls")" = 3 ]
check cross_broken "reported by name with apt's reason" \
	grep -q "packages (ppc64le): FAILED: cannot install gcc-powerpc64le-linux-gnu qemu-user-static: E: Unable to correct problems, you have held broken packages" "$dir/cross_broken.out"
check cross_broken "status file: skip ppc64le with the reason" \
	grep -qx "skip ppc64le: cannot install gcc-powerpc64le-linux-gnu qemu-user-static: E: Unable .*held broken packages. " "$dir/cross_broken.status"
check cross_broken "only that group skipped" [ "$(wc -l <"$dir/cross_broken.status")" = 1 ]
check cross_broken "the other group installed" \
	[ "$(cat "$dir/cross_broken/missing")" = "$(printf 'gcc-powerpc64le-linux-gnu\nqemu-user-static')" ]

run build_broken "libnuma-dev clang" FAKE_INSTALL_FAIL=libnuma-dev
check build_broken "exit 1" [ $rc = 1 ]
check build_broken "says the build group failed and stops" \
	grep -q "packages (build): FAILED: cannot install libnuma-dev" "$dir/build_broken.out"
check build_broken "no other group tried" \
	[ "$(grep -c clang "$dir/build_broken/calls")" = 0 ]

run not_root "clang tcpdump" FAKE_UID=1000
check not_root "exit 0" [ $rc = 0 ]
check not_root "apt-get never called" [ ! -f "$dir/not_root/calls" ]
check not_root "each missing group in the status file" \
	[ "$(cat "$dir/not_root.status")" = "$(printf 'skip tools: missing tcpdump (run setup as root to install)\nskip fuzz: missing clang (run setup as root to install)')" ]

# no kernel cached: the fake apt-get download leaves no .deb
run vm_missing "" LR_VM_DIR="$dir/vm-empty"
check vm_missing "exit 0" [ $rc = 0 ]
check vm_missing "download tried 3 times" \
	[ "$(grep -c '^.*download linux-image-' "$dir/vm_missing/calls")" = 3 ]
check vm_missing "status file: skip vm with the reason" \
	grep -qx "skip vm: cannot download linux-image-.*: apt-get download left no .deb" "$dir/vm_missing.status"
check vm_missing "nothing cached" [ ! -e "$dir/vm-empty/kernel" ]

exit $fail
