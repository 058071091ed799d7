#!/usr/bin/env bash
# Test topology of network namespaces joined by veth pairs, for the driver
# tests (scripts, and the C tests through test/lr_test_netns.c) and the veth
# benchmarks (bench/run veth, veth_afxdp, stack: bench/harness/proc.py). Names carry a per-run prefix so parallel or crashed runs never
# collide; everything is removed on exit, also on failure.
#
#   scripts/netns.sh run [PREFIX] -- CMD ARGS...
#       create, run CMD with the names in its environment, destroy
#   scripts/netns.sh create PREFIX [PAIR...]
#       create and print the names (sh syntax)
#   scripts/netns.sh destroy PREFIX     remove what create made
#
# Topology (two namespaces; by default two veth pairs):
#
#     ns ${P}gen                       ns ${P}fwd
#     ${P}g0  <------ veth ------>  ${P}f0
#     ${P}g1  <------ veth ------>  ${P}f1
#
# A PAIR is GEN:FWD[:QUEUES], the name suffixes of the end in ${P}gen and the
# end in ${P}fwd and the number of rx and tx queues of both ends (default
# 1); given pairs replace the default "g0:f0 g1:f1". Every link is up with
# IPv6 and multicast off, so the kernel sends nothing of its own on it.
#
# The generator sends on g0 and receives on g1; a forwarder in fwd takes f0
# to f1. Environment given to CMD: LR_NS_GEN LR_NS_FWD and LR_IF_<SUFFIX>
# for every end (LR_IF_G0 LR_IF_G1 LR_IF_F0 LR_IF_F1 by default). Interface
# names stay under 15 characters: PREFIX is at most 10 (default lr<pid>,
# reduced modulo 10^6) and a suffix at most 5.
set -euo pipefail

die() { echo "netns.sh: $*" >&2; exit 1; }

DEFAULT_PAIRS="g0:f0 g1:f1"

# names PREFIX PAIR...: export LR_NS_GEN, LR_NS_FWD and LR_IF_<SUFFIX>.
names() {
	local p=$1 pair g f rest
	shift
	export LR_NS_GEN=${p}gen LR_NS_FWD=${p}fwd
	for pair in "$@"; do
		IFS=: read -r g f rest <<<"$pair"
		export "LR_IF_${g^^}=$p$g" "LR_IF_${f^^}=$p$f"
	done
}

quiet_link() {
	# No packets of the kernel's own on these links: no IPv6 (DAD, router
	# solicitations), no multicast.
	local ns=$1 dev=$2
	ip netns exec "$ns" sysctl -qw "net.ipv6.conf.$dev.disable_ipv6=1" || true
	ip -n "$ns" link set "$dev" multicast off
	ip -n "$ns" link set "$dev" up
}

# create PREFIX PAIR...
create() {
	local p=$1 pair g f q qs ns
	shift
	[ "$(id -u)" = 0 ] || die "needs root (ip netns add)"
	[ ${#p} -le 10 ] || die "prefix '$p' longer than 10 characters"
	for pair in "$@"; do
		IFS=: read -r g f q <<<"$pair"
		[[ $g =~ ^[a-z0-9]{1,5}$ && $f =~ ^[a-z0-9]{1,5}$ &&
			$q =~ ^[0-9]*$ ]] ||
			die "pair '$pair': want GEN:FWD[:QUEUES], suffixes of 1-5 of [a-z0-9]"
	done
	names "$p" "$@"
	ip netns add "$LR_NS_GEN"
	ip netns add "$LR_NS_FWD"
	for ns in "$LR_NS_GEN" "$LR_NS_FWD"; do
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 || true
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.disable_ipv6=1 || true
		ip -n "$ns" link set lo up
	done
	for pair in "$@"; do
		IFS=: read -r g f q <<<"$pair"
		qs=()
		[ -n "$q" ] && qs=(numtxqueues "$q" numrxqueues "$q")
		ip link add "$p$g" netns "$LR_NS_GEN" "${qs[@]}" type veth \
			peer name "$p$f" netns "$LR_NS_FWD" "${qs[@]}"
		quiet_link "$LR_NS_GEN" "$p$g"
		quiet_link "$LR_NS_FWD" "$p$f"
	done
}

destroy() {
	local p=$1
	# Deleting a namespace deletes its veth ends, and with them the peers.
	ip netns del "${p}gen" 2>/dev/null || true
	ip netns del "${p}fwd" 2>/dev/null || true
}

cmd=${1:-}
shift || true
case "$cmd" in
create)
	[ $# -ge 1 ] || die "usage: netns.sh create PREFIX [GEN:FWD[:QUEUES]...]"
	prefix=$1
	shift
	[ $# -gt 0 ] || set -- $DEFAULT_PAIRS
	create "$prefix" "$@"
	env | grep -E '^LR_(NS|IF)_' | sed 's/^/export /'
	;;
destroy)
	[ $# -eq 1 ] || die "usage: netns.sh destroy PREFIX"
	destroy "$1"
	;;
run)
	prefix="lr$(( $$ % 1000000 ))"
	if [ $# -gt 0 ] && [ "$1" != -- ]; then prefix=$1; shift; fi
	[ "${1:-}" = -- ] && shift
	[ $# -gt 0 ] || die "usage: netns.sh run [PREFIX] -- CMD ARGS..."
	trap 'destroy "$prefix"' EXIT INT TERM
	create "$prefix" $DEFAULT_PAIRS
	"$@"
	;;
*)
	die "usage: netns.sh run|create|destroy (see the top of this file)"
	;;
esac
