#!/usr/bin/env bash
# Test topology of network namespaces joined by veth pairs, for the driver
# tests and the veth benchmarks. Names carry a per-run prefix so parallel or
# crashed runs never collide; everything is removed on exit, also on failure.
#
#   scripts/netns.sh run [PREFIX] -- CMD ARGS...
#       create, run CMD with the names in its environment, destroy
#   scripts/netns.sh create PREFIX      create and print the names (sh syntax)
#   scripts/netns.sh destroy PREFIX     remove what create made
#
# Topology (two namespaces, two veth pairs):
#
#     ns ${P}gen                       ns ${P}fwd
#     ${P}g0  <------ veth ------>  ${P}f0
#     ${P}g1  <------ veth ------>  ${P}f1
#
# The generator sends on g0 and receives on g1; a forwarder in fwd takes f0
# to f1. Environment given to CMD: LR_NS_GEN LR_NS_FWD LR_IF_G0 LR_IF_G1
# LR_IF_F0 LR_IF_F1. Interface names stay under 15 characters: PREFIX is at
# most 10 (default lr<pid>, reduced modulo 10^6).
set -euo pipefail

die() { echo "netns.sh: $*" >&2; exit 1; }

names() {
	local p=$1
	LR_NS_GEN=${p}gen LR_NS_FWD=${p}fwd
	LR_IF_G0=${p}g0 LR_IF_G1=${p}g1 LR_IF_F0=${p}f0 LR_IF_F1=${p}f1
	export LR_NS_GEN LR_NS_FWD LR_IF_G0 LR_IF_G1 LR_IF_F0 LR_IF_F1
}

quiet_link() {
	# No packets of the kernel's own on these links: no IPv6 (DAD, router
	# solicitations), no multicast.
	local ns=$1 dev=$2
	ip netns exec "$ns" sysctl -qw "net.ipv6.conf.$dev.disable_ipv6=1" || true
	ip -n "$ns" link set "$dev" multicast off
	ip -n "$ns" link set "$dev" up
}

create() {
	local p=$1
	[ "$(id -u)" = 0 ] || die "needs root (ip netns add)"
	[ ${#p} -le 10 ] || die "prefix '$p' longer than 10 characters"
	names "$p"
	ip netns add "$LR_NS_GEN"
	ip netns add "$LR_NS_FWD"
	ip link add "$LR_IF_G0" netns "$LR_NS_GEN" type veth peer name "$LR_IF_F0" netns "$LR_NS_FWD"
	ip link add "$LR_IF_G1" netns "$LR_NS_GEN" type veth peer name "$LR_IF_F1" netns "$LR_NS_FWD"
	for ns in "$LR_NS_GEN" "$LR_NS_FWD"; do
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 || true
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.disable_ipv6=1 || true
		ip -n "$ns" link set lo up
	done
	quiet_link "$LR_NS_GEN" "$LR_IF_G0"
	quiet_link "$LR_NS_GEN" "$LR_IF_G1"
	quiet_link "$LR_NS_FWD" "$LR_IF_F0"
	quiet_link "$LR_NS_FWD" "$LR_IF_F1"
}

destroy() {
	local p=$1
	names "$p"
	# Deleting a namespace deletes its veth ends, and with them the peers.
	ip netns del "$LR_NS_GEN" 2>/dev/null || true
	ip netns del "$LR_NS_FWD" 2>/dev/null || true
}

cmd=${1:-}
shift || true
case "$cmd" in
create)
	[ $# -eq 1 ] || die "usage: netns.sh create PREFIX"
	create "$1"
	names "$1"
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
	create "$prefix"
	names "$prefix"
	"$@"
	;;
*)
	die "usage: netns.sh run|create|destroy (see the top of this file)"
	;;
esac
