#!/usr/bin/env bash
# NDR and PDR over memif found by lr-pktgen --rfc2544 throughput, of
# lr-l2fwd and of DPDK 22.11 forwarders side by side: testpmd io (Debian's
# dpdk-testpmd) and DPDK's l2fwd example (built against Debian's libdpdk
# from the example's source, as bench/run l2fwd does, when that
# source is there). The same search, the same generator, the same window
# for every forwarder: lr-pktgen's two memif ports are servers on CPU 0,
# the forwarder's two ports clients on CPU 1 (port 0 -> port 1), 64 and
# 1518-byte frames, trials of 0.5 s, final trials of 2 s, precision 1% of
# the max; the max is --line-rate-gbps 40 (59.5 Mframes/s at 64 B), above
# what the generator sends, so the search first lowers it to the
# generator's own limit (said in its notes). A frame the memif ring has no
# room for is the forwarder's loss (--tx-full drop, the default on memif).
#
#   scripts/bench-rfc2544-memif.sh [BUILD_DIR] [RUNS]
#
# RUNS (default 3) rounds, each running every forwarder once in turn; each
# figure is the median of its runs with the range. Prints
# "summary|..." lines for bench/run's table (lr-l2fwd against
# testpmd io and DPDK l2fwd).
set -euo pipefail

BUILD=${1:-build}
RUNS=${2:-3}
cd "$(dirname "$0")/.."
PKTGEN=$(realpath "$BUILD/apps/pktgen/lr-pktgen")
L2FWD=$(realpath "$BUILD/apps/l2fwd/lr-l2fwd")
[ -x "$PKTGEN" ] && [ -x "$L2FWD" ] || {
	echo "bench-rfc2544-memif: build $BUILD first" >&2
	exit 1
}
[ "$(nproc)" -ge 2 ] || { echo "bench-rfc2544-memif: needs 2 CPUs"; exit 0; }
TMP=$(mktemp -d)
FWD=
cleanup() {
	[ -n "$FWD" ] && kill -KILL "$FWD" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
O="socket-abstract=no"
SEARCH="--rfc2544 throughput --rfc2544-sizes 64,1518 --trial-s 0.5 --final-trial-s 2 --precision 1 --line-rate-gbps 40 --drain-ms 200 --link-wait 30 --quiet"

# The forwarders: name, command (ports as memif clients of a.sock, b.sock).
names=(lr-l2fwd)
fwds=("$L2FWD -l 1 --no-huge -m 256 --file-prefix brm_f \
--vdev net_memif0,role=client,socket=$TMP/a.sock,$O \
--vdev net_memif1,role=client,socket=$TMP/b.sock,$O -- -p 0x3 -T 0")
notes=()
if tp=$(command -v dpdk-testpmd); then
	names+=("testpmd-io")
	fwds+=("$tp -l 0,1 --no-huge -m 256 --file-prefix brm_t --no-pci \
--log-level=*:error \
--vdev net_memif0,role=client,socket=$TMP/a.sock,$O \
--vdev net_memif1,role=client,socket=$TMP/b.sock,$O -- \
--forward-mode=io --nb-cores=1 --total-num-mbufs=16384 -a --stats-period 0")
else
	notes+=("testpmd io: no peer (apt install dpdk)")
fi
# shellcheck source=scripts/dpdk-l2fwd-example.sh
. scripts/dpdk-l2fwd-example.sh
if ex=$(dpdk_l2fwd_example "$BUILD"); then
	names+=("dpdk-l2fwd")
	fwds+=("$ex -l 1 --no-huge -m 256 --file-prefix brm_d --log-level=*:error \
--vdev net_memif0,role=client,socket=$TMP/a.sock,$O \
--vdev net_memif1,role=client,socket=$TMP/b.sock,$O -- -p 0x3 -T 0")
else
	notes+=("DPDK l2fwd: $ex")
fi

# A forwarder's standard input stays open for the run: testpmd without -i
# ends at the first line or end of file it reads ("Press enter to exit").
mkfifo "$TMP/in"
exec 3<>"$TMP/in"

# run_one I R: forwarder I under lr-pktgen's search; its figures appended
# to $TMP/f.I.SIZE ("NDR PDR" in Mframes/s, "nan nan" when it failed).
run_one() {
	local i=$1 r=$2 rc
	rm -f "$TMP/a.sock" "$TMP/b.sock"
	# lr-pktgen first (its servers), the forwarder connects.
	# shellcheck disable=SC2086
	taskset -c 0 "$PKTGEN" -l 0 --no-huge -m 256 --file-prefix brm_g \
		--vdev "net_memif0,role=server,socket=$TMP/a.sock,$O" \
		--vdev "net_memif1,role=server,socket=$TMP/b.sock,$O" \
		-- --tx-ports 0 --rx-ports 1 $SEARCH --json "$TMP/r.json" \
		>"$TMP/pg.out" 2>&1 &
	local pg=$!
	# shellcheck disable=SC2086
	taskset -c 1 ${fwds[$i]} >"$TMP/fwd.out" 2>&1 <&3 &
	FWD=$!
	wait "$pg" && rc=0 || rc=$?
	kill -INT "$FWD" 2>/dev/null || true
	for _ in $(seq 50); do
		kill -0 "$FWD" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$FWD" 2>/dev/null || true
	wait "$FWD" 2>/dev/null || true
	FWD=
	rm -rf /var/run/dpdk/brm_t /var/run/dpdk/brm_d 2>/dev/null || true
	python3 - "$TMP/r.json" "$TMP" "$i" "$rc" <<'EOF'
import json, sys
path, tmp, i, rc = sys.argv[1:]
try:
    d = json.load(open(path))
    sizes = {s["size"]: s for s in d["rfc2544"]["sizes"]}
except Exception:
    sizes = {}
for size in (64, 1518):
    s = sizes.get(size, {})
    ndr = s.get("ndr", {}).get("pps")
    pdr = s.get("pdr", {}).get("pps")
    with open("%s/f.%s.%d" % (tmp, i, size), "a") as f:
        if ndr is None or pdr is None:
            f.write("nan nan\n")
        else:
            f.write("%.3f %.3f\n" % (ndr / 1e6, pdr / 1e6))
EOF
	printf 'run %d %-11s exit %s: %s\n' "$r" "${names[$i]}" "$rc" \
		"$(grep -E '^(64 B|1518 B) ' "$TMP/pg.out" | tr -s ' ' | tr '\n' ';')"
}

# "median [min-max]" of column C of file F (nan: failed runs).
med() {
	awk -v c="$2" '$c != "nan" {print $c}' "$1" | sort -g |
		awk '{a[NR] = $1} END {if (NR == 0) print "nan"; else printf "%s [%s-%s]\n", a[int((NR + 1) / 2)], a[1], a[NR]}'
}

echo "bench-rfc2544-memif: $(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "generator: taskset -c 0 $PKTGEN -l 0 --no-huge -m 256 --vdev net_memif0,role=server,... --vdev net_memif1,role=server,... -- --tx-ports 0 --rx-ports 1 $SEARCH --json FILE"
for i in "${!names[@]}"; do echo "${names[$i]}: taskset -c 1 ${fwds[$i]}"; done
for n in "${notes[@]}"; do echo "$n"; done
for r in $(seq "$RUNS"); do
	for i in "${!names[@]}"; do run_one "$i" "$r"; done
done
echo "NDR and PDR (0.5% loss), Mframes/s: median [range] of $RUNS runs"
for size in 64 1518; do
	for i in "${!names[@]}"; do
		printf '%-6s %-11s NDR %-26s PDR %s\n' "$size B" "${names[$i]}" \
			"$(med "$TMP/f.$i.$size" 1)" "$(med "$TMP/f.$i.$size" 2)"
	done
done
# For bench/run's table (linerate | DPDK Debian | DPDK native):
# lr-l2fwd against testpmd io, and against DPDK's l2fwd example, both
# Debian's DPDK.
col() {
	local n=$1 size=$2 c=$3 i
	for i in "${!names[@]}"; do
		[ "${names[$i]}" = "$n" ] && { med "$TMP/f.$i.$size" "$c" | cut -d' ' -f1; return; }
	done
	echo -
}
for size in 64 1518; do
	for peer in testpmd-io dpdk-l2fwd; do
		echo "summary|NDR over memif (lr-pktgen --rfc2544), $size B, lr-l2fwd vs $peer|Mframes/s|higher|$(col lr-l2fwd $size 1)|$(col $peer $size 1)|-"
		echo "summary|PDR over memif (lr-pktgen --rfc2544), $size B, lr-l2fwd vs $peer|Mframes/s|higher|$(col lr-l2fwd $size 2)|$(col $peer $size 2)|-"
	done
done
