#!/usr/bin/env bash
# net_dpdk as a plugin (lr_eal.h "Plugins", lr_eth_dpdk.h), through the
# real lr-l2fwd (driver suite):
#
#   test_plugin.sh load   L2FWD PLUGIN [FLOOR]
#   test_plugin.sh absent L2FWD PLUGIN
#
# PLUGIN is the build tree's liblinerate_net_dpdk.so; FLOOR its
# benchmark-only build (drivers/plugins/floor/liblinerate_net_dpdk.so).
# load: where the plugin is looked for and in which order: -d FILE loads
#   it at EAL init; an LR_PLUGIN_PATH folder holding a broken copy is taken
#   before the build tree's folder, and a -d folder before LR_PLUGIN_PATH
#   (each failure names the port, the file and the loader's reason, exits
#   1); a folder without it falls through to the build tree's; a -d path
#   that does not exist and an unknown driver are clear usage errors (exit
#   2; the unknown driver's lists the drivers and plugins there are). The
#   benchmark-only build, taken from its -d folder, forwards and leaves no
#   mbuf behind (bench/run dpdk_bridge runs it).
# absent: DPDK's runtime missing, for real: in a private mount namespace
#   (unshare -m) librte_eal.so.<abi> (every path ldconfig -p gives for the
#   soname the plugin needs) is hidden under /dev/null; lr-l2fwd on
#   net_null still runs there, and on net_dpdk it exits 1, no crash,
#   saying which port, which plugin file, the loader's reason naming the
#   library, and what to install. Needs root and unshare: skips (77)
#   saying why otherwise.
# Each run: its own --file-prefix, ordinary memory, lr-l2fwd --duration 1;
# nothing waits on a fixed sleep. Exit 0 passed, 1 failed, 77 skipped.
set -u
mode=${1:?usage: test_plugin.sh load|absent L2FWD PLUGIN}
l2fwd=${2:?L2FWD}
plugin=${3:?PLUGIN}
floor=${4:-}

skip() {
	echo "SKIP: $*"
	exit 77
}
fail() {
	echo "FAIL: $*"
	[ -n "${out:-}" ] && echo "--- output:" && echo "$out"
	exit 1
}
[ -x "$l2fwd" ] || skip "no lr-l2fwd: $l2fwd"
[ -f "$plugin" ] || skip "plugin not built: $plugin"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lr-plugin.XXXXXX")
trap 'rm -rf "$tmp" /var/run/dpdk/test_plugin_*_$$_dpdk' EXIT
file=$(basename "$plugin")
run_no=0

# l2fwd VDEV... [-- EAL-ARGS...]: lr-l2fwd forwarding one second between
# two ports; its output in $out, its exit status in $rc.
l2fwd() {
	local vdevs=() eal=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		vdevs+=(--vdev "$1")
		shift
	done
	[ $# -gt 0 ] && shift
	eal=("$@")
	run_no=$((run_no + 1))
	out=$(timeout -s KILL 120 "$l2fwd" -l 0 --no-huge -m 128 \
		--file-prefix="test_plugin_${mode}${run_no}_$$" \
		--log-level eal:info --log-level ethdev:info \
		"${eal[@]}" "${vdevs[@]}" -- -p 3 -T 0 --duration 1 2>&1)
	rc=$?
}

# forwarded: the run exited 0 with packets forwarded and none left.
forwarded() {
	[ "$rc" -eq 0 ] || fail "$1: lr-l2fwd exit $rc"
	grep -qE '^l2fwd total: rx=[1-9][0-9]* tx=[1-9]' <<<"$out" ||
		fail "$1: nothing forwarded"
	grep -q 'mbufs in use after stop: 0' <<<"$out" ||
		fail "$1: mbufs left"
}

# refused WHAT TEXT...: the run exited $refused (default 1: a run-time
# failure; 2: a usage error), not a crash, saying each TEXT.
refused() {
	local what=$1 want=${refused:-1} t
	shift
	[ "$rc" -eq "$want" ] || fail "$what: lr-l2fwd exit $rc (expected $want)"
	for t in "$@"; do
		grep -qF -- "$t" <<<"$out" || fail "$what: no '$t' in the output"
	done
	echo "ok: $what: $(grep -m1 -F -- "$1" <<<"$out")"
}

dpdk_ports=(net_dpdk0,dev=net_null0 'net_dpdk1,dev=[net_null1,size=64]')

load() {
	mkdir -p "$tmp/broken" "$tmp/empty"
	: >"$tmp/broken/$file"

	l2fwd "${dpdk_ports[@]}" -- -d "$plugin"
	forwarded "-d FILE"
	grep -qF -- "-d '$plugin': plugin loaded" <<<"$out" ||
		fail "-d FILE: not loaded at EAL init"
	grep -q 'driver net_dpdk loaded from' <<<"$out" &&
		fail "-d FILE: loaded again on demand"
	echo "ok: -d FILE loads it at EAL init"

	LR_PLUGIN_PATH=$tmp/empty l2fwd "${dpdk_ports[@]}"
	forwarded "LR_PLUGIN_PATH without it"
	grep -qF "net_dpdk0: driver net_dpdk loaded from" <<<"$out" ||
		fail "LR_PLUGIN_PATH without it: not loaded on demand"
	grep -qF "$tmp/empty" <<<"$out" &&
		fail "LR_PLUGIN_PATH without it: loaded from $tmp/empty"
	echo "ok: on demand from the build tree's folder"

	LR_PLUGIN_PATH=/nonexistent:$tmp/broken l2fwd "${dpdk_ports[@]}"
	refused "LR_PLUGIN_PATH first" \
		"net_dpdk0: driver net_dpdk is a plugin that cannot be loaded: $tmp/broken/$file:"

	LR_PLUGIN_PATH=$(dirname "$plugin") l2fwd "${dpdk_ports[@]}" \
		-- -d "$tmp/broken"
	refused "-d FOLDER before LR_PLUGIN_PATH" \
		"net_dpdk0: driver net_dpdk is a plugin that cannot be loaded: $tmp/broken/$file:"

	if [ -n "$floor" ]; then
		l2fwd "${dpdk_ports[@]}" -- -d "$(dirname "$floor")"
		forwarded "benchmark-only build"
		grep -qF "net_dpdk0: driver net_dpdk loaded from $floor" <<<"$out" ||
			fail "benchmark-only build: not loaded from $floor"
		echo "ok: the benchmark-only build forwards from its -d folder"
	fi

	l2fwd net_null0 net_null1 -- -d "$tmp/none"
	refused=2 refused "-d missing" "-d '$tmp/none': No such file or directory"

	l2fwd net_bogus0 net_null1
	refused=2 refused "unknown driver" \
		"--vdev 'net_bogus0': no driver 'net_bogus' (drivers: " \
		" net_null " "; plugins: net_dpdk)"
}

absent() {
	local readelf soname paths p
	[ "$(id -u)" -eq 0 ] || skip "needs root (unshare -m, mount --bind)"
	command -v unshare >/dev/null || skip "no unshare (util-linux)"
	unshare -m true 2>/dev/null ||
		skip "unshare -m refused here (no mount namespaces)"
	readelf=$(command -v readelf) || skip "no readelf (binutils)"
	soname=$(LC_ALL=C "$readelf" -d "$plugin" |
		sed -n 's/.*(NEEDED).*\[\(librte_eal\.so[.0-9]*\)\]$/\1/p')
	[ -n "$soname" ] || fail "$plugin needs no librte_eal"
	paths=$(ldconfig -p | awk -v s="$soname" '$1 == s { print $NF }')
	[ -n "$paths" ] || fail "ldconfig -p has no $soname"
	echo "hiding $soname: $(tr '\n' ' ' <<<"$paths")"

	# In the namespace: hide the library, run net_null, then net_dpdk;
	# the exit status of each run on its own line.
	cat >"$tmp/ns.sh" <<-'EOF'
		set -u
		l2fwd=$1 prefix=$2
		shift 2
		for p in "$@"; do
			mount --bind /dev/null "$p" || exit 90
		done
		common=(-l 0 --no-huge -m 128 --log-level ethdev:info)
		timeout -s KILL 120 "$l2fwd" "${common[@]}" \
			--file-prefix="${prefix}a" --vdev net_null0 \
			--vdev net_null1 -- -p 3 -T 0 --duration 1 2>&1
		echo "null-exit=$?"
		timeout -s KILL 120 "$l2fwd" "${common[@]}" \
			--file-prefix="${prefix}b" --vdev net_dpdk0,dev=net_null0 \
			--vdev net_dpdk1,dev=net_null1 -- -p 3 -T 0 \
			--duration 1 2>&1
		echo "dpdk-exit=$?"
	EOF
	# shellcheck disable=SC2086
	out=$(unshare -m --propagation private bash "$tmp/ns.sh" "$l2fwd" \
		"test_plugin_absent_$$" $paths 2>&1)
	rc=$?
	[ "$rc" -ne 90 ] || fail "mount --bind /dev/null over $soname"
	grep -q '^null-exit=0$' <<<"$out" ||
		fail "net_null without DPDK's runtime: lr-l2fwd did not run"
	grep -qE '^l2fwd total: rx=[1-9][0-9]* tx=[1-9]' <<<"$out" ||
		fail "net_null without DPDK's runtime: nothing forwarded"
	echo "ok: net_null runs without DPDK's runtime"
	grep -q '^dpdk-exit=1$' <<<"$out" ||
		fail "net_dpdk without DPDK's runtime: exit not 1 ($(grep dpdk-exit <<<"$out"))"
	for t in "net_dpdk0: driver net_dpdk is a plugin that cannot be loaded: " \
		"/$file: " "$soname" "net_dpdk needs DPDK " \
		"librte-*${soname##*.so.} packages"; do
		grep -qF -- "$t" <<<"$out" ||
			fail "net_dpdk without DPDK's runtime: no '$t'"
	done
	echo "ok: $(grep -m1 -F 'cannot be loaded' <<<"$out")"
	for p in a b; do
		[ ! -e "/var/run/linerate/test_plugin_absent_$$$p" ] ||
			fail "runtime folder of prefix $p left behind"
	done
	[ ! -e "/var/run/dpdk/test_plugin_absent_$$b_dpdk" ] ||
		fail "DPDK runtime folder left behind"
}

case $mode in
load) load ;;
absent) absent ;;
*)
	echo "usage: test_plugin.sh load|absent L2FWD PLUGIN"
	exit 2
	;;
esac
echo PASS
