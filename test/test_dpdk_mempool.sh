#!/usr/bin/env bash
# DPDK's testpmd on linerate's mempool ops (driver suite):
#
#   test_dpdk_mempool.sh PLUGIN [SANITIZE]
#
# PLUGIN is liblinerate_dpdk_mempool.so, SANITIZE the build's b_sanitize
# (a sanitized plugin cannot load into Debian's uninstrumented testpmd).
#
# dpdk-testpmd loads the plugin (-d), takes "linerate" for its mbuf pool
# (--mbuf-pool-ops-name), forwards in io mode between two net_null ports
# (interactive: start, stats until packets moved, stop, quit, fed on
# stdin, each step waiting for testpmd's output, never a fixed sleep)
# and exits 0; the ops' own report at free (LR_DPDK_MEMPOOL_REPORT=1)
# says every mbuf came back: caches + store = size, in use 0, and the
# store saw traffic.
# Exit 0 passed, 1 failed, 77 skipped (with the reason).
set -u

PLUGIN=${1:?usage: test_dpdk_mempool.sh PLUGIN}
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; [ -f "$OUT" ] && tail -30 "$OUT"; exit 1; }
command -v dpdk-testpmd >/dev/null ||
	skip "no dpdk-testpmd (Debian: dpdk)"
[ -f "$PLUGIN" ] || skip "plugin not built: $PLUGIN"
[ "${2:-none}" = none ] ||
	skip "plugin built with -Db_sanitize=$2: testpmd is not instrumented"
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs (testpmd: main + 1 forwarding lcore)"

TMP=$(mktemp -d)
OUT=$TMP/testpmd.log
PREFIX=test_dpdk_mempool_$$
TP_PID=
SAFE=
cleanup() {
	exec 3>&- 2>/dev/null
	[ -n "$TP_PID" ] && kill -9 "$TP_PID" 2>/dev/null
	rm -rf "$TMP" "/var/run/dpdk/$PREFIX"
	[ -z "$SAFE" ] || rm -rf "$SAFE"
}
trap cleanup EXIT

# DPDK's -d refuses a file in a world-writable folder or below one ("EAL:
# Error, directory path /tmp is world-writable and insecure": a tree
# cloned under /tmp). Such a plugin is copied to a private folder in /run.
world_writable_above() {
	local d
	d=$(dirname "$(readlink -f "$1")")
	while :; do
		[ -n "$(find "$d" -maxdepth 0 -perm -o+w 2>/dev/null)" ] &&
			return 0
		[ "$d" = / ] && return 1
		d=$(dirname "$d")
	done
}
if world_writable_above "$PLUGIN"; then
	SAFE=$(mktemp -d /run/lr_dpdk_mempool.XXXXXX 2>/dev/null) ||
		skip "$PLUGIN is below a world-writable folder, which DPDK's -d refuses, and /run takes no private folder to copy it to"
	cp "$PLUGIN" "$SAFE/" || fail "cannot copy $PLUGIN to $SAFE"
	PLUGIN=$SAFE/$(basename "$PLUGIN")
fi

# Wait (up to 60 s) until the log matches the extended regex $1.
wait_for() {
	for _ in $(seq 600); do
		grep -Eq "$1" "$OUT" && return 0
		kill -0 "$TP_PID" 2>/dev/null || return 1
		read -r -t 0.1 <> <(:) || true
	done
	return 1
}

mkfifo "$TMP/in"
LR_DPDK_MEMPOOL_REPORT=1 stdbuf -oL -eL dpdk-testpmd -l 0,1 --no-huge -m 256 \
	--file-prefix="$PREFIX" --no-pci -d "$PLUGIN" \
	--mbuf-pool-ops-name=linerate --vdev net_null0 --vdev net_null1 \
	-- -i --forward-mode=io --nb-cores=1 --total-num-mbufs=8192 \
	<"$TMP/in" >"$OUT" 2>&1 &
TP_PID=$!
exec 3>"$TMP/in"

wait_for 'testpmd>' || fail "no prompt from testpmd"
grep -q 'preferred mempool ops selected: linerate' "$OUT" ||
	fail "testpmd did not take the linerate ops"
echo start >&3
wait_for 'io packet forwarding' || fail "forwarding did not start"
# Port statistics until one shows packets received.
moved=
for _ in $(seq 300); do
	seen=$(grep -c 'RX-packets:' "$OUT")
	echo "show port stats 0" >&3
	for _ in $(seq 600); do
		[ "$(grep -c 'RX-packets:' "$OUT")" -gt "$seen" ] && break
		kill -0 "$TP_PID" 2>/dev/null || fail "testpmd exited"
		read -r -t 0.1 <> <(:) || true
	done
	if grep 'RX-packets:' "$OUT" | tail -1 | grep -Eq 'RX-packets: +[1-9]'
	then
		moved=1
		break
	fi
done
[ -n "$moved" ] || fail "no packet forwarded"
echo stop >&3
wait_for 'Accumulated forward statistics' || fail "stop: no statistics"
echo quit >&3
exec 3>&-
st=0
wait "$TP_PID" || st=$?
TP_PID=
[ "$st" = 0 ] || fail "testpmd exit status $st"
grep -q '^Bye' "$OUT" || fail "testpmd did not say Bye"
line=$(grep -E "^linerate mempool 'mb_pool_0'" "$OUT") ||
	fail "no report from the linerate ops at free"
echo "$line"
read -r size store caches inuse enq <<<"$(echo "$line" | sed -E \
	's/.*size ([0-9]+), store ([0-9]+), caches ([0-9]+), in use (-?[0-9]+), enqueued ([0-9]+).*/\1 \2 \3 \4 \5/')"
[ "$inuse" = 0 ] || fail "$inuse mbufs not back"
[ $((store + caches)) = "$size" ] || fail "store + caches != size"
[ "$size" = 8192 ] || fail "pool size $size, expected 8192"
# more than the first fill: the forwarding went through the store
[ "$enq" -gt "$size" ] || fail "store enqueues $enq: no traffic through it"
echo "PASS"
