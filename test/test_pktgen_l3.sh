#!/usr/bin/env bash
# lr-pktgen's L3 mode against a kernel stack (driver suite; root): one veth
# pair made by scripts/netns.sh (removed on exit), lr-pktgen on
# net_af_packet at one end, the kernel with an IPv4 and an IPv6 address at
# the other.
#
#   test_pktgen_l3.sh SOURCE_DIR BUILD_DIR
#
# Cases:
#   resolve  lr-pktgen (--ip) resolves the kernel's MAC by ARP and by NDP
#            and sends N UDP frames of each family to a port nobody listens
#            on: the kernel counts every one (NoPorts), which it does only
#            for frames to its own MAC
#   answer   while it runs, the kernel (its neighbour entries flushed)
#            pings it over IPv4 and IPv6: its ARP request and neighbour
#            solicitation are answered, so are the pings; lr-pktgen's
#            counters (--json) say so and its test frames are not mixed in
#   link_local  an IPv6 gateway given by its link-local address
#   no_answer  a gateway nobody answers: the error names the port and the
#            address, exit 1
# Nothing waits a fixed time: lines printed and counters reached, each
# with a bound only a hang reaches.
# Exit 0 all passed, 1 a case failed, 77 skipped (with the reason).
set -u

SRC=${1:?usage: test_pktgen_l3.sh SOURCE_DIR BUILD_DIR}
BUILD=${2:?usage: test_pktgen_l3.sh SOURCE_DIR BUILD_DIR}
PKTGEN=$BUILD/apps/pktgen/lr-pktgen
NETNS=$SRC/scripts/netns.sh
N=200
# shellcheck source=test/lr_test.sh
. "$(dirname "$0")/lr_test.sh"

lr_need_netns
command -v ping >/dev/null || skip "no 'ping' command (iputils-ping)"
[ -x "$PKTGEN" ] || skip "lr-pktgen not built ($PKTGEN)"
[ -x "$NETNS" ] || skip "no $NETNS"

GEN_PID=
lr_netns_test "$NETNS" pl GEN_PID g0:f0

# The kernel's end: IPv6 and multicast on (neighbour discovery needs
# them), an address of each family (no duplicate address detection).
K=$LR_NS_FWD
KIF=$LR_IF_F0
ip netns exec "$K" sysctl -qw net.ipv6.conf.all.disable_ipv6=0 \
	"net.ipv6.conf.$KIF.disable_ipv6=0" >/dev/null
ip -n "$K" link set "$KIF" multicast on
ip -n "$K" addr add 10.77.0.2/24 dev "$KIF"
ip -n "$K" -6 addr add fd77::2/64 dev "$KIF" nodad
ip -n "$K" -6 addr add fe80::77/64 dev "$KIF" nodad
KMAC=$(ip netns exec "$K" cat "/sys/class/net/$KIF/address")

# gen ARGS...: lr-pktgen on g0 in the generator's namespace.
gen() {
	ip netns exec "$LR_NS_GEN" "$PKTGEN" --no-huge -m 128 -l 0 \
		--file-prefix "${P}g" --vdev "net_af_packet0,iface=$LR_IF_G0" \
		-- "$@"
}

gen --count 1 --quiet >"$TMP/probe.out" 2>&1
grep -q "no driver for this port name" "$TMP/probe.out" &&
	skip "net_af_packet is not in this build"

# The kernel's UDP datagrams to no listener, IPv4 and IPv6.
noports4() {
	ip netns exec "$K" awk '$1 == "Udp:" {
		if (!h) { for (i = 2; i <= NF; i++) c[$i] = i; h = 1 }
		else print $(c["NoPorts"]) }' /proc/net/snmp
}
noports6() { ip netns exec "$K" awk '$1 == "Udp6NoPorts" { print $2 }' /proc/net/snmp6; }

# wait_for FILE TEXT: 0 once FILE holds TEXT; 1 if lr-pktgen exited or
# 120 s passed (a hang).
wait_for() { lr_wait_line "$1" "$2" "$GEN_PID"; }

# wait_count FN WANT: 0 once FN prints WANT (the kernel may still be
# taking frames from its backlog); 1 after 30 s.
wait_count() {
	for _ in $(seq 300); do
		[ "$($1)" = "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

# rget EXPR: EXPR over r, the results of the --json document.
rget() { jget "$TMP/run.json" "$1"; }

# --- resolve and answer: two streams (IPv4, IPv6) of N frames each at a
# modest rate (N frames fit the kernel's backlog however slowly it runs);
# then lr-pktgen keeps receiving (a long drain) until told to stop.
cat >"$TMP/p.json" <<EOF
{"streams": [
  {"name": "v4", "dst_ip": "10.77.0.2", "dst_port": 9, "count": $N,
   "rate_pps": 1000},
  {"name": "v6", "ipv6": true, "dst_ip": "fd77::2", "dst_port": 9,
   "count": $N, "rate_pps": 1000}
]}
EOF
u4=$(noports4)
u6=$(noports6)
# Started without a shell function between, so that $! is lr-pktgen (ip
# netns exec execs it) and the SIGINT below reaches it.
ip netns exec "$LR_NS_GEN" "$PKTGEN" --no-huge -m 128 -l 0 \
	--file-prefix "${P}g" --vdev "net_af_packet0,iface=$LR_IF_G0" -- \
	--ip 0:10.77.0.1/24 --ip 0:fd77::1/64 --profile "$TMP/p.json" \
	--drain-ms 600000 --json >"$TMP/run.json" 2>"$TMP/run.err" </dev/null &
GEN_PID=$!
if ! wait_for "$TMP/run.err" "sending done"; then
	fail "resolve: lr-pktgen did not get to the end of sending"
	cat "$TMP/run.err"
	exit 1
fi
if grep -q "next hop 10.77.0.2 (destination) is at $KMAC (ARP" "$TMP/run.err" &&
	grep -q "next hop fd77::2 (destination) is at $KMAC (NDP" "$TMP/run.err" &&
	wait_count noports4 $((u4 + N)) && wait_count noports6 $((u6 + N)); then
	pass "resolve: the kernel's MAC $KMAC by ARP and NDP; it counted $N UDP datagrams of each family"
else
	fail "resolve: kernel MAC $KMAC; UDP NoPorts +$(($(noports4) - u4)) IPv4 +$(($(noports6) - u6)) IPv6 of $N each"
	cat "$TMP/run.err"
fi

# The kernel forgets lr-pktgen's MAC, then pings it: it asks first.
ip -n "$K" -4 neigh flush dev "$KIF"
ip -n "$K" -6 neigh flush dev "$KIF"
ip netns exec "$K" ping -c 3 -i 0.2 -w 60 10.77.0.1 >"$TMP/ping4" 2>&1
p4=$?
ip netns exec "$K" ping -6 -c 3 -i 0.2 -w 60 fd77::1 >"$TMP/ping6" 2>&1
p6=$?
kill -INT "$GEN_PID"
wait "$GEN_PID"
rc=$?
GEN_PID=
arp=$(rget 'r["l3"][0]["arp_answered"]')
nd=$(rget 'r["l3"][0]["nd_answered"]')
echo_n=$(rget 'r["l3"][0]["echo_answered"]')
dropped=$(rget 'r["l3"][0]["answers_dropped"]')
hops=$(rget '" ".join(sorted(h["mac"] for h in r["l3"][0]["next_hops"]))')
tx=$(rget 'r["tx"]')
own=$(rget 'r["rx_own"]')
if [ $p4 -eq 0 ] && [ $p6 -eq 0 ] && grep -q " 3 received" "$TMP/ping4" &&
	grep -q " 3 received" "$TMP/ping6" && [ $rc -eq 0 ] &&
	[ "${arp:-0}" -ge 1 ] && [ "${nd:-0}" -ge 1 ] &&
	[ "${echo_n:-0}" -ge 6 ] && [ "$dropped" = 0 ] &&
	[ "$hops" = "$KMAC $KMAC" ] && [ "$tx" = $((2 * N)) ] &&
	[ "$own" = 0 ] && [ "$(noports4)" = $((u4 + N)) ] &&
	[ "$(noports6)" = $((u6 + N)) ]; then
	pass "answer: the kernel's pings answered over IPv4 and IPv6 ($arp ARP, $nd NDP, $echo_n echo answered); tx $tx test frames only"
else
	fail "answer: ping exit $p4/$p6, lr-pktgen exit $rc, answered ARP $arp NDP $nd echo $echo_n dropped $dropped, next hops '$hops', tx $tx rx_own $own"
	cat "$TMP/ping4" "$TMP/ping6"
	tail -20 "$TMP/run.err"
	head -c 3000 "$TMP/run.json"
fi

# --- link_local: the kernel's link-local address as the IPv6 gateway of
# a destination off the port's subnet.
gen --ipv6 --ip 0:fd77::1/64 --gateway 0:fe80::77 --dst-ip 2001:db8::1 \
	--count 10 --quiet >"$TMP/ll.out" 2>&1 </dev/null
rc=$?
if [ $rc -eq 0 ] && grep -q "next hop fe80::77 (gateway) is at $KMAC (NDP" "$TMP/ll.out"; then
	pass "link_local: gateway fe80::77 resolved to the kernel's MAC"
else
	fail "link_local: exit $rc"
	cat "$TMP/ll.out"
fi

# --- no_answer: a gateway that is not there.
gen --ip 0:10.77.0.1/24 --gateway 0:10.77.0.254 --dst-ip 10.99.0.1 \
	--count 10 --resolve-tries 2 --resolve-interval 0.2 \
	>"$TMP/gw.out" 2>&1 </dev/null
rc=$?
if [ $rc -eq 1 ] && grep -q "port 0 (net_af_packet0): no answer from 10.77.0.254 (the gateway) to 2 ARP requests" "$TMP/gw.out" &&
	! grep -q "not back in" "$TMP/gw.out"; then
	pass "no_answer: exit 1, $(grep -o 'no answer from .*' "$TMP/gw.out")"
else
	fail "no_answer: exit $rc"
	cat "$TMP/gw.out"
fi

exit "$failed"
