#!/usr/bin/env bash
# memif benchmark: generator -> receiver pairs over one memif link and a
# generator -> forwarder -> generator loop over two, linerate against DPDK
# 22.11 (Debian's dpdk-testpmd, package dpdk-dev) in the same run:
#
#   scripts/bench-memif.sh [BUILD_DIR] [SECONDS] [RUNS]      (3 s, 3 runs)
#
# About 5 minutes with Debian's DPDK, 6-7 with the native build's rows too
# (DPDK_NATIVE=no leaves them out). Run it alone on the machine.
#
# Rows, each at 64 and 1518-byte frames (sizes with the FCS, as lr-pktgen's
# --size; testpmd gets --txpkts=SIZE-4):
#   lr-pktgen --tx-only      -> lr-pktgen --rx-only
#   testpmd txonly (client)  -> testpmd rxonly (server)   (as issue 14's
#                                                          DPDK reference)
#   the same with the native testpmd of scripts/dpdk-native.sh
#   lr-pktgen --tx-only      -> testpmd rxonly
#   testpmd txonly           -> lr-pktgen --rx-only
#   lr-pktgen (tx port 0, rx port 1) -> lr-l2fwd   -> back to lr-pktgen
#   lr-pktgen (tx port 0, rx port 1) -> testpmd io -> back to lr-pktgen
#   the same with the native testpmd
# The rows alternate within each run; medians and ranges over the runs.
# Every process runs on a CPU of its own (generator CPU 0, receiver or
# forwarder CPU 1): taskset, and lcores on that CPU only (testpmd's main and
# forwarding lcores both map to it: --lcores 0@C,1@C).
#
# Measuring, the same way for every program: each prints its ports'
# cumulative packet counters every second (lr-pktgen --stats-period 1,
# testpmd --stats-period 1: port stats, i.e. ipackets/opackets on both
# sides). A reader stamps every such line as it arrives and reads, at that
# moment, the CPU time of every datapath thread of the run from
# /proc/PID/task/TID/schedstat (ns). The window starts WARM seconds
# (default 1) after the first line showing traffic on the last side to see
# it, and lasts SECONDS; counters and CPU times at its two ends are
# interpolated between the lines around them, so that both sides are
# measured over the very same window. Mpps = packets / seconds over it,
# cycles per packet = datapath CPU time over it x the TSC rate
# (lr-pktgen's, calibrated against CLOCK_MONOTONIC_RAW) / packets over it. "cpu" is the share of a CPU the
# datapath thread got: on a shared machine a thread that runs half the
# time moves half as much, and cycles per packet stays comparable.
#
# DPDK: Debian's dpdk-testpmd (or TESTPMD=PATH), and, for the testpmd pair
# and the testpmd forwarder, also the native build of scripts/dpdk-native.sh
# when it is there (rows "testpmd-native"; DPDK_NATIVE=no leaves them out).
#
# Env: GEN_ROLE (memif role of the generator in the linerate and the
# mixed pairs, the receiver taking the other: client, the default, as in
# the DPDK pair, or server), FWD_ROLE (the forwarders' roles,
# port 0 / port 1: client, the default: both clients; server: both
# servers; mixed: server / client; lr-pktgen's port takes the other role of
# its link), FWD_ZC=yes|no (zero-copy on lr-l2fwd's client ports too; yes
# by default), FWD_STAMP=yes|no (stamped frames from lr-pktgen in the
# forwarder rows; no by default), PAIR_STAMP=yes|no (stamped frames,
# checked on receipt, in the generator -> receiver rows; no by default:
# both receivers then count and free without reading a frame, as testpmd
# rxonly does), LR_ZC=auto|yes|no (zero-copy=yes on
# linerate clients, and on lr-pktgen's server ports, which then receive in
# the client's buffers: auto tries whether net_memif accepts it), KEEP=1 (keep every program's output
# and the samples in the scratch folder, named at exit), WARM (seconds),
# SIZES ("64 1518"), ROWS (a subset of: lr_lr dpdk_dpdk ndpdk_ndpdk
# lr_dpdk dpdk_lr fwd_lr fwd_dpdk fwd_ndpdk).
#
# The forwarder rows: copies, roles, and where the cycles go. On a memif
# link the client owns the buffers: a server copies every frame it sends
# (the protocol gives it no memory of its own) and every frame it receives
# unless it is a linerate server with zero-copy=yes (it then receives in
# the client's buffers); a client copies unless it is zero-copy=yes. So a
# frame costs at least one copy per link it is sent over by a server, and
# the roles decide which CPU pays it (copies per frame, generator /
# forwarder; lr-pktgen's server ports receive with no copy):
#   FWD_ROLE=client (default): lr-pktgen's ports servers: 1 (it sends by
#     copy, receives in lr-l2fwd's buffers) / lr-l2fwd FWD_ZC=yes 0 (port
#     1 sends port 0's mbufs as they are), FWD_ZC=no 2, testpmd 2;
#   FWD_ROLE=server: lr-pktgen's ports zero-copy clients: 0 / 2 for both
#     forwarders (servers);
#   FWD_ROLE=mixed: forwarder port 0 (receives) a server, port 1 (sends) a
#     client: 1 / lr-l2fwd FWD_ZC=yes 1 (port 0 receives into port 1's
#     zero-copy pool, port 1 sends it as it is), testpmd 2.
# The default gives each forwarder its best the same way for both: the
# fewest copies the forwarder can make with a generator that copies once
# (testpmd copies twice in every role).
# testpmd's ports copy in every case: DPDK 22.11's zero-copy=yes (it needs
# --single-file-segments; tried with --in-memory) announces the memfds of
# its EAL memory as regions, unsealed, and linerate's server refuses a
# region not sealed against shrinking ("disconnected: region 1: not sealed
# against shrinking (F_SEAL_SHRINK)", lr-pktgen server against testpmd
# txonly zero-copy client, 2026-12-04): a peer that shrank it would make
# the server fault (SIGBUS) on its next access, and issue 14 wants a port
# that never touches unmapped memory. So testpmd forwards with two copies
# whatever the roles (its server ports copy, and DPDK's server has no
# zero-copy either).
# With server zero-copy receive (97b15d3) and FWD_ROLE=client, a frame
# through lr-l2fwd costs one 64-byte copy in lr-pktgen's send and no read
# of the payload anywhere after it: by hand on an idle machine (2596 MHz
# TSC), 45.6 Mpps forwarded, lr-l2fwd 36 busy cycles a frame. The
# counts below are from before it, with the mixed roles.
# Measured (2026-12-04, machine loaded by other builds, load 8-17, so
# instruction counts instead of time: callgrind, one program under
# valgrind and its peers native, -Dplatform=generic build, rings rsize=14
# so that the native side keeps them full, a 10 s window after 3 s of
# traffic; Ir per forwarded frame, 64 B / 1518 B; lr-pktgen measured with
# lr-l2fwd as the forwarder):
#                       lr-l2fwd    testpmd io   lr-pktgen    lr-pktgen
#                                                 stamped      --no-stamp
#   client, copy        292 / 611   354 / 943        -            -
#   client, FWD_ZC=yes  203 / 200       -          598 / 1085   363 at 64 B
#   server              300 / 628   343 / 925      475 / 659    255 at 64 B
#   mixed, FWD_ZC=yes   198 / 362   349 / 941      490 / 825    261 / 595
# A row goes at the pace of its costlier side: at 64 B unstamped, mixed
# 261 (lr-pktgen) against 349 (testpmd), 1.34x; server 300 against 343,
# 1.14x; client, FWD_ZC=yes 363 against 363, 1.0x (lr-pktgen's two copies
# bind both rows). At 1518 B mixed 595 against 941 instructions, and
# counted in copies 1 (+ the template write) against 2.
# lr-pktgen writes every frame from its template (a full-length memcpy,
# as testpmd txonly does) on top of the copies above, and a stamped
# frame's receive (rx_poll, sequence and jitter accounting) costs about
# 205 instructions at any size: hence FWD_STAMP=no. Since 31f02be an
# unstamped frame that never varies is written once, not per frame, when
# lr-pktgen sends from its own pool (its server ports: the forwarder
# rows), whose buffers hold it prebuilt; a zero-copy client (the pairs'
# generator) does the same since lr_eth_memif_pool_create(): its own
# pool is shared memory that the port announces to the receiver, so the
# frame is sent with no write and no copy (pktgen-dpdk's prebuilt
# transmit pools); txonly writes its headers into every mbuf, and its
# memif port copies every frame into the shared buffers.
# Instructions understate a copy: on the quiet run of ee5e380 (FWD_ROLE=
# client, copy: two copies on each CPU, both CPUs saturated) a 1518-byte
# frame took about 870 cycles on each side against 130-180 at 64 B, i.e.
# about 350 cycles per 1518-byte copy when the copy reads the 24 lines the
# other CPU just wrote (lr_lr at 1518 B, whose zero-copy receiver never
# reads the payload, spends about 250 cycles a frame on its generator's
# one copy). So at 1518 B the row is bound by whichever CPU copies most:
# with the mixed roles lr-l2fwd copies once (an estimate, not yet timed on
# a quiet machine: about 500 cycles a frame, ~4 Mpps), lr-pktgen once
# plus its template write, testpmd twice (about 870 cycles, ~2.4 Mpps on
# that run). At 64 B copies are cheap: lr-pktgen (261 instructions a
# frame unstamped) binds the lr-l2fwd row (198), testpmd (349) its own
# row, so the ratio is at most about what the generator leaves: the
# summary's "where the cycles go" says which side binds each row, from
# the forwarder's busy share.
# Benchmarks only print: nothing here fails on speed.
set -euo pipefail
export LC_ALL=C

BUILD=
if [ -n "${1:-}" ]; then
	BUILD=$(cd "$1" && pwd)
fi
cd "$(dirname "$0")/.."
BUILD=${BUILD:-$PWD/build}
SECS=${2:-3}
RUNS=${3:-3}
WARM=${WARM:-1}
SIZES=${SIZES:-64 1518}
ROWS=${ROWS:-lr_lr dpdk_dpdk ndpdk_ndpdk lr_dpdk dpdk_lr fwd_lr fwd_dpdk fwd_ndpdk}
DPDK_NATIVE=${DPDK_NATIVE:-auto}
GEN_ROLE=${GEN_ROLE:-client}
FWD_ROLE=${FWD_ROLE:-client}
LR_ZC=${LR_ZC:-auto}
# lr-l2fwd's client ports zero-copy (see "The forwarder rows" above).
FWD_ZC=${FWD_ZC:-yes}
# lr-pktgen's frames in the forwarder rows carry no stamp (--no-stamp)
# unless FWD_STAMP=yes: checking each frame's stamp, sequence and latency
# on receive is about 205 of the generator's 490 instructions a frame at
# 64 B (mixed roles), which would make lr-pktgen bind both rows; the rows
# count frames with the ports' counters either way.
FWD_STAMP=${FWD_STAMP:-no}
# The generator -> receiver pairs: lr-pktgen stamps nothing and its
# receiver reads no frame (--no-stamp on both sides) unless
# PAIR_STAMP=yes, so that both receivers do what testpmd rxonly does
# (count and free, no read of the payload); the generators send one
# frame over and over, which lr-pktgen writes once (above) and txonly
# (with its port's copy) every time. PAIR_STAMP=yes: lr-pktgen writes every frame too
# (its stamp), and its receiver checks each.
PAIR_STAMP=${PAIR_STAMP:-no}
PKTGEN=$BUILD/apps/pktgen/lr-pktgen
L2FWD=$BUILD/apps/l2fwd/lr-l2fwd
REF=bench/reference/dpdk-22.11-memif.tsv
# Bound on waiting for a program to be ready or for traffic: only a hung
# or failed run reaches it.
READY_S=60

die() { echo "bench-memif: $*" >&2; exit 1; }
case $GEN_ROLE in server|client) ;; *) die "GEN_ROLE '$GEN_ROLE': server or client" ;; esac
case $FWD_ROLE in server|client|mixed) ;; *) die "FWD_ROLE '$FWD_ROLE': server, client or mixed" ;; esac
case $LR_ZC in auto|yes|no) ;; *) die "LR_ZC '$LR_ZC': auto, yes or no" ;; esac
case $FWD_ZC in yes|no) ;; *) die "FWD_ZC '$FWD_ZC': yes or no" ;; esac
case $FWD_STAMP in yes) GEN_STAMP= ;; no) GEN_STAMP=" --no-stamp" ;; *) die "FWD_STAMP '$FWD_STAMP': yes or no" ;; esac
case $PAIR_STAMP in yes) PSTAMP= ;; no) PSTAMP=" --no-stamp" ;; *) die "PAIR_STAMP '$PAIR_STAMP': yes or no" ;; esac
[[ $SECS =~ ^[0-9]+$ && $SECS -ge 1 ]] || die "SECONDS '$SECS': a whole number >= 1"
[[ $RUNS =~ ^[0-9]+$ && $RUNS -ge 1 ]] || die "RUNS '$RUNS': a whole number >= 1"
[ -x "$PKTGEN" ] || die "no $PKTGEN (build first)"
[ -x "$L2FWD" ] || die "no $L2FWD (build first)"
help=$("$PKTGEN" -h 2>&1 || true)
[[ $help == *--stats-period* ]] || die "$PKTGEN has no --stats-period (rebuild)"

TMP=$(mktemp -d /tmp/bench-memif.XXXXXX)
: >"$TMP/pids"
: >"$TMP/monpids"
: >"$TMP/tids"
cleanup() {
	local pid
	while read -r _ pid _; do kill -KILL "$pid" 2>/dev/null || true; done <"$TMP/pids"
	while read -r pid; do kill -KILL "$pid" 2>/dev/null || true; done <"$TMP/monpids"
	if [ -n "${KEEP:-}" ]; then
		echo "bench-memif: outputs and samples kept in $TMP" >&2
	else
		rm -rf "$TMP"
	fi
	rm -rf /var/run/dpdk/bm$$_* /var/run/linerate/bm$$_*
}
trap cleanup EXIT
trap 'exit 130' INT TERM

other() { [ "$1" = server ] && echo client || echo server; }

# ---- the machine, the programs ----
ncpu=$(nproc)
CPU_GEN=0 CPU_PEER=1
if [ "$ncpu" -lt 2 ]; then
	CPU_PEER=0
fi
free_huge=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages 2>/dev/null || echo 0)
# Two processes of 128 MiB each, and the client's memif region. On
# hugepages every process is --in-memory (no files left even if killed);
# DPDK refuses that with --no-huge: its runtime folder is removed at exit.
if [ "$free_huge" -ge 160 ]; then
	MEM=(-m 128 --in-memory)
	memtxt="hugepages ($free_huge free 2 MiB pages), every process --in-memory"
else
	MEM=(--no-huge -m 256)
	memtxt="ordinary pages: only $free_huge free 2 MiB hugepages (--no-huge; DPDK is about 2.5x slower without)"
fi
have_dpdk=1
why_no_dpdk=
TESTPMD=${TESTPMD:-}
if [ -n "$TESTPMD" ]; then
	[ -x "$TESTPMD" ] || die "TESTPMD '$TESTPMD': not an executable"
	TESTPMD=$(realpath "$TESTPMD")
elif command -v dpdk-testpmd >/dev/null; then
	TESTPMD=$(command -v dpdk-testpmd)
else
	have_dpdk=0
	why_no_dpdk="dpdk-testpmd is not installed (Debian: apt install dpdk-dev)"
fi
# tp_version BIN: the DPDK version BIN's EAL says with -v (testpmd exits
# after -h), and the Debian package holding BIN, if one does.
tp_version() {
	local v pkg
	v=$(timeout 60 "$1" -v --no-huge -m 64 --no-pci -l $CPU_GEN \
		--file-prefix "bm$$_ver" -- -h 2>&1 |
		sed -n "s/.*RTE Version: '\(.*\)'.*/\1/p" | head -1 || true)
	rm -rf "/var/run/dpdk/bm$$_ver"
	pkg=$(dpkg-query -S "$1" 2>/dev/null | cut -d: -f1 | head -1 || true)
	echo "${v:-version unknown}, $1$([ -z "$pkg" ] || echo " (package $pkg $(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true))")"
}
dpdk_version=
[ $have_dpdk = 0 ] || dpdk_version=$(tp_version "$TESTPMD")
TESTPMD_NATIVE=
native_note="DPDK_NATIVE=no"
if [ "$DPDK_NATIVE" != no ]; then
	if nat=$(scripts/dpdk-native.sh --print 2>/dev/null) &&
		TESTPMD_NATIVE=$(echo "$nat" | sed -n 's/^testpmd: //p') &&
		[ -x "$TESTPMD_NATIVE" ]; then
		native_note="$(tp_version "$TESTPMD_NATIVE"), built $(echo "$nat" | sed -n 's/^cflags: //p') by scripts/dpdk-native.sh"
	else
		TESTPMD_NATIVE=
		native_note="no build from scripts/dpdk-native.sh: its rows skipped"
	fi
fi

# One short lr-pktgen on net_null: the TSC rate it calibrated.
"$PKTGEN" -l $CPU_GEN "${MEM[@]}" --file-prefix "bm$$_tsc" \
	--vdev net_null0 -- --tx-only --quiet --count 1 --stats-period 1 \
	>"$TMP/tsc.out" 2>&1 || die "lr-pktgen on net_null failed: $(cat "$TMP/tsc.out")"
TSC_HZ=$(sed -n 's/^stats period_s=[0-9.]* tsc_hz=\([0-9]*\)$/\1/p' "$TMP/tsc.out")
[ -n "$TSC_HZ" ] || die "lr-pktgen printed no tsc_hz: $(cat "$TMP/tsc.out")"

# Zero-copy on linerate clients: does net_memif take zero-copy=yes? A
# client without a server is a port whose link is down: it starts.
ZC=
zc_note="zero-copy=no (LR_ZC=no)"
if [ "$LR_ZC" != no ]; then
	if "$PKTGEN" -l $CPU_GEN "${MEM[@]}" --file-prefix "bm$$_zc" \
		--vdev "net_memif0,role=client,socket=$TMP/zc.sock,socket-abstract=no,zero-copy=yes" \
		-- --tx-only --quiet --duration 0.1 --link-wait 0 >"$TMP/zc.out" 2>&1; then
		ZC=",zero-copy=yes"
		zc_note="zero-copy=yes: net_memif accepts it, linerate clients use it"
	else
		[ "$LR_ZC" = yes ] && die "LR_ZC=yes but net_memif refuses zero-copy=yes: $(grep -m1 -i zero-copy "$TMP/zc.out" || tail -1 "$TMP/zc.out")"
		zc_note="zero-copy=yes refused by net_memif ($(grep -m1 -i 'zero-copy' "$TMP/zc.out" | sed 's/^ *//' || echo "exit status non-zero")): linerate clients copy"
	fi
fi
FZC=
[ "$FWD_ZC" = yes ] && FZC=$ZC
# mode ROLE KIND [zrx]: how a side moves frames. A linerate client with
# $ZC lends its buffers (zero-copy); a linerate server given zero-copy=yes
# (zrx: lr-pktgen's server ports) receives in the client's buffers with no
# copy and sends by copy (zero-copy rx).
mode() {
	if [ "$2" = lr ] && [ -n "$ZC" ] && [ "$1" = client ]; then
		echo zero-copy
	elif [ "$2" = lr ] && [ -n "$ZC" ] && [ "${3:-}" = zrx ]; then
		echo "zero-copy rx"
	else
		echo copy
	fi
}

echo "bench-memif: memif, linerate against DPDK testpmd, one run of everything"
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (with local changes)')"
echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $ncpu CPUs, $(free -g | awk '/^Mem:/{print $2}') GiB, kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "- TSC: $(awk -v h="$TSC_HZ" 'BEGIN {printf "%.3f GHz", h / 1e9}') as lr-pktgen calibrated it against CLOCK_MONOTONIC_RAW (/proc/cpuinfo says cpu MHz $(grep -m1 'cpu MHz' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))"
echo "- memory: $memtxt"
echo "- DPDK: $([ $have_dpdk = 1 ] && echo "$dpdk_version" || echo "rows skipped: $why_no_dpdk")"
echo "- DPDK native (testpmd-native rows): $native_note"
echo "- CPUs: generator on CPU $CPU_GEN, receiver or forwarder on CPU $CPU_PEER$([ "$ncpu" -lt 2 ] && echo ' (one CPU only: they share it, figures are not comparable with a 2-CPU run)')"
echo "- linerate clients: $zc_note; DPDK ports copy (net_memif's default zero-copy=no; its zero-copy=yes regions are unsealed memfds, which linerate's server refuses: see the script's header)"
echo "- generator -> receiver rows: PAIR_STAMP=$PAIR_STAMP (lr-pktgen$([ "$PAIR_STAMP" = no ] && echo ' --no-stamp on both sides: frames from a template, not read on receipt, as testpmd txonly/rxonly' || echo ' stamps every frame and checks each on receipt'))"
echo "- forwarder rows: FWD_ROLE=$FWD_ROLE, FWD_ZC=$FWD_ZC, FWD_STAMP=$FWD_STAMP (each forwarder row names its ports' roles and modes; copies per frame in the header)"
echo "- window: ${SECS} s after ${WARM} s of traffic on every side; $RUNS run(s), rows alternating"
echo

# ---- one program, its output read as it comes ----

# sample BLK PORT RX TX: one line to fd 4: the arrival time, the counters,
# and the CPU time (ns) of every datapath thread listed in $TMP/tids.
sample() {
	local now=$EPOCHREALTIME cpus="" n tid ns
	while read -r n tid; do
		ns=NA
		{ read -r ns _ <"/proc/$tid/schedstat"; } 2>/dev/null || ns=NA
		cpus+=" $n=$ns"
	done <"$TMP/tids"
	printf '%s %s %s %s %s%s\n' "$1" "$now" "$2" "$3" "$4" "$cpus" >&4
}

# monitor NAME KIND: read a program's output (KIND lr: lr-pktgen's stats
# lines; tp: testpmd's port statistics; other: nothing to sample), keep it
# in NAME.log, sample every counter line into NAME.smp.
monitor() {
	local name=$1 kind=$2 line blk=0 port=0 rx=0 inblk=0
	exec 3>"$TMP/$name.log" 4>"$TMP/$name.smp"
	while IFS= read -r line; do
		printf '%s\n' "$line" >&3
		case $kind in
		lr)
			[[ $line =~ ^stats\ t=([0-9.]+)\ port=([0-9]+)\ ipackets=([0-9]+)\ opackets=([0-9]+) ]] || continue
			sample "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" "${BASH_REMATCH[3]}" "${BASH_REMATCH[4]}"
			;;
		tp)
			if [[ $line == "Port statistics ="* ]]; then
				blk=$((blk + 1))
			elif [[ $line =~ NIC\ statistics\ for\ port\ ([0-9]+) ]]; then
				port=${BASH_REMATCH[1]}
				inblk=1
			elif [ $inblk = 1 ] && [[ $line =~ RX-packets:\ *([0-9]+) ]]; then
				rx=${BASH_REMATCH[1]}
			elif [ $inblk = 1 ] && [[ $line =~ TX-packets:\ *([0-9]+) ]]; then
				inblk=0
				sample "$blk" "$port" "$rx" "${BASH_REMATCH[1]}"
			fi
			;;
		esac
	done
}

CMDS=()
# launch NAME KIND CPU CMD...: start CMD pinned on CPU, its output read by
# monitor.
launch() {
	local name=$1 kind=$2 cpu=$3 pid
	shift 3
	mkfifo "$TMP/$name.fifo"
	CMDS+=("taskset -c $cpu $*")
	taskset -c "$cpu" "$@" >"$TMP/$name.fifo" 2>&1 </dev/null &
	pid=$!
	echo "$name $pid $kind" >>"$TMP/pids"
	monitor "$name" "$kind" <"$TMP/$name.fifo" &
	echo $! >>"$TMP/monpids"
}

pid_of() { awk -v n="$1" '$1 == n {print $2}' "$TMP/pids"; }
alive() { kill -0 "$(pid_of "$1")" 2>/dev/null; }

# datapath NAME KIND: put NAME's datapath thread in $TMP/tids. linerate's
# runs on the main thread (one lcore); testpmd's is its forwarding lcore,
# thread rte-worker-1 (lcore-worker-1 in older DPDK).
datapath() {
	local pid tid c
	pid=$(pid_of "$1")
	if [ "$2" = lr ]; then
		echo "$1 $pid" >>"$TMP/tids"
		return 0
	fi
	for _ in $(seq $((READY_S * 20))); do
		for tid in /proc/"$pid"/task/*; do
			c=$(cat "$tid/comm" 2>/dev/null || true)
			case $c in rte-worker-*|lcore-worker-*)
				echo "$1 ${tid##*/}" >>"$TMP/tids"
				return 0 ;;
			esac
		done
		alive "$1" || return 1
		sleep 0.05
	done
	return 1
}

# wait_socket NAME PATH: until the server NAME has created PATH.
wait_socket() {
	for _ in $(seq $((READY_S * 20))); do
		[ -S "$2" ] && return 0
		alive "$1" || return 1
		sleep 0.05
	done
	return 1
}

# side_flow FILE PORT COL TID: arrival time of the port's first sample with
# traffic (COL 4 rx, 5 tx, non-zero) and TID's CPU time, if any.
side_flow() {
	awk -v port="$2" -v col="$3" -v tid="$4" '$3 == port && $col > 0 {
		for (i = 6; i <= NF; i++)
			if (index($i, tid "=") == 1 && $i != tid "=NA") {print $2; exit}
	}' "$1"
}

# side_window FILE PORT COL TID FROM TO: "seconds packets cpu_ns" between
# the times FROM and TO: the port's counter and TID's CPU time at each,
# interpolated linearly between the samples around it, so that every side
# of a run is measured over the very same window. Nothing yet while no
# sample at or after TO has come.
side_window() {
	awk -v port="$2" -v col="$3" -v tid="$4" -v from="$5" -v to="$6" '
	# at(x): counter and CPU at time x into C and U; 0 if not bracketed.
	function at(x,   i) {
		for (i = 2; i <= n; i++)
			if (t[i - 1] <= x && x <= t[i]) {
				f = t[i] > t[i - 1] ? (x - t[i - 1]) / (t[i] - t[i - 1]) : 1
				C = c[i - 1] + f * (c[i] - c[i - 1])
				U = u[i - 1] + f * (u[i] - u[i - 1])
				return 1
			}
		return 0
	}
	$3 == port {
		cpu = "NA"
		for (i = 6; i <= NF; i++)
			if (index($i, tid "=") == 1) cpu = substr($i, length(tid) + 2)
		if (cpu == "NA") next
		n++; t[n] = $2; c[n] = $col; u[n] = cpu
	}
	END {
		if (!at(from)) exit
		c0 = C; u0 = U
		if (!at(to)) exit
		printf "%.6f %.0f %.0f\n", to - from, C - c0, U - u0
	}' "$1"
}

# measure SPEC...: each SPEC "file:port:col:tid" is one side. Waits for
# traffic on every side, then for the window; prints one "dt packets
# cpu_ns" line per side. Non-zero when a program died or time ran out.
measure() {
	local s f p c t pid deadline start end t0 out res
	deadline=$((SECONDS + READY_S + WARM + SECS + 5))
	start=
	while [ $SECONDS -lt $deadline ]; do
		sleep 0.25
		while read -r _ pid _; do kill -0 "$pid" 2>/dev/null || return 1; done <"$TMP/pids"
		if [ -z "$start" ]; then
			t0=0
			for s in "$@"; do
				IFS=: read -r f p c t <<<"$s"
				out=$(side_flow "$TMP/$f.smp" "$p" "$c" "$t")
				[ -n "$out" ] || { t0=; break; }
				t0=$(awk -v a="$t0" -v b="$out" 'BEGIN {print (b + 0 > a + 0 ? b : a)}')
			done
			[ -n "$t0" ] || continue
			start=$(awk -v a="$t0" -v w="$WARM" 'BEGIN {printf "%.6f", a + w}')
			end=$(awk -v a="$start" -v s="$SECS" 'BEGIN {printf "%.6f", a + s}')
			# Nothing to look at before the window is over: keep the
			# machine to the programs meanwhile.
			sleep "$(awk -v e="$end" -v n="$EPOCHREALTIME" 'BEGIN {d = e - n; printf "%.3f", (d > 0 ? d : 0)}')"
		fi
		res=
		for s in "$@"; do
			IFS=: read -r f p c t <<<"$s"
			out=$(side_window "$TMP/$f.smp" "$p" "$c" "$t" "$start" "$end")
			[ -n "$out" ] || { res=; break; }
			res+="$out"$'\n'
		done
		if [ -n "$res" ]; then
			printf '%s' "$res"
			return 0
		fi
	done
	return 1
}

# end_some NAME...: SIGINT to each, wait for them (SIGKILL after READY_S),
# report an exit that was not clean: it is a bug to look at.
end_some() {
	local n pid rc killed
	for n in "$@"; do kill -INT "$(pid_of "$n")" 2>/dev/null || true; done
	for n in "$@"; do
		pid=$(pid_of "$n") rc=0 killed=
		for _ in $(seq $((READY_S * 10))); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		if kill -KILL "$pid" 2>/dev/null; then
			killed=1
		fi
		wait "$pid" 2>/dev/null || rc=$?
		if [ -n "$killed" ]; then
			echo "   !! $n did not end ${READY_S} s after SIGINT: killed"
		elif [ $rc -gt 128 ]; then
			echo "   !! $n died of signal $((rc - 128)) ($(kill -l $((rc - 128)) 2>/dev/null || echo '?')) after SIGINT; its last lines:"
			tail -3 "$TMP/$n.log" 2>/dev/null | sed 's/\x1b\[[0-9;]*[A-Za-z]//g; s/^/        /'
		elif [ $rc -ne 0 ]; then
			echo "   !! $n exited with status $rc; its last lines:"
			tail -3 "$TMP/$n.log" 2>/dev/null | sed 's/\x1b\[[0-9;]*[A-Za-z]//g; s/^/        /'
		fi
	done
}

# stop NAME...: end the programs one at a time: every testpmd first,
# otherwise in the order given (the callers give the servers first), then
# wait for their readers. Why: a testpmd rxonly server whose client ended
# before it sometimes died of SIGSEGV (a linerate or a testpmd client,
# both frame sizes): a core showed the fault in its forwarding lcore inside
# librte_net_memif's receive while its main thread had not yet seen
# SIGINT, i.e. DPDK 22.11's server tears the client's memory down under its
# own datapath when the client disconnects. A testpmd that stops first
# ends its datapath before its ports, and linerate's ports take a peer
# leaving at any time.
stop() {
	local n pid
	for n in "$@"; do
		[ "$(awk -v n="$n" '$1 == n {print $3}' "$TMP/pids")" != tp ] || end_some "$n"
	done
	for n in "$@"; do
		[ "$(awk -v n="$n" '$1 == n {print $3}' "$TMP/pids")" = tp ] || end_some "$n"
	done
	while read -r pid; do wait "$pid" 2>/dev/null || true; done <"$TMP/monpids"
	rm -f "$TMP"/*.fifo
	: >"$TMP/pids"
	: >"$TMP/monpids"
	: >"$TMP/tids"
}

# ---- the programs' command lines ----
RUN=0
# vdev N ROLE SOCKET EXTRA: a net_memif devargs string (EXTRA: clients only).
# vdev N ROLE SOCK ZC [zrx]: the devargs of memif port N; ZC (",zero-copy=yes"
# or empty) on a client, and on a server with zrx (zero-copy receive).
vdev() {
	local v="net_memif$1,role=$2,socket=$3,socket-abstract=no"
	if [ "$2" = client ] || [ "${5:-}" = zrx ]; then v+=$4; fi
	echo "$v"
}
# lr_pktgen NAME CPU OPTS VDEV...
lr_pktgen() {
	local name=$1 cpu=$2 opts=$3 v vd=()
	shift 3
	for v in "$@"; do vd+=(--vdev "$v"); done
	# shellcheck disable=SC2086
	launch "$name" lr "$cpu" "$PKTGEN" -l "$cpu" "${MEM[@]}" \
		--file-prefix "bm$$_${RUN}_$name" "${vd[@]}" -- $opts --quiet --stats-period 1 \
		--link-wait "$READY_S"
}
# testpmd NAME CPU MODE EXTRA VDEV...: $TP_BIN, forwarding mode MODE.
testpmd() {
	local name=$1 cpu=$2 fwd=$3 extra=$4 v vd=()
	shift 4
	for v in "$@"; do vd+=(--vdev "$v"); done
	# shellcheck disable=SC2086
	launch "$name" tp "$cpu" "$TP_BIN" --lcores "0@$cpu,1@$cpu" \
		"${MEM[@]}" --file-prefix "bm$$_${RUN}_$name" --no-pci \
		"${vd[@]}" -- --forward-mode="$fwd" $extra --total-num-mbufs=16384 \
		--stats-period 1 -a
}

# ---- rows ----
# Each row function starts the programs (servers first, then clients),
# measures, stops them, and prints one result line:
#   "gen_mpps peer_mpps gen_cyc peer_cyc gen_cpu peer_cpu gap"
# (peer: the receiver, or for the forwarder rows the forwarded rate and
# the forwarder's cycles per forwarded frame; gap: the percentage of the
# frames the generator counted in the window that the peer did not: for a
# pair only the timing noise of the window, as memif loses nothing; for a
# forwarder its drops as well); "NA ..." when it failed.

# result GEN_WINDOW PEER_WINDOW: the line above from two "dt packets
# cpu_ns" lines.
result() {
	awk -v hz="$TSC_HZ" 'NF == 3 {
		dt[NR] = $1; n[NR] = $2; c[NR] = $3 }
	END {
		for (i = 1; i <= 2; i++) {
			m[i] = dt[i] > 0 ? n[i] / dt[i] / 1e6 : 0
			y[i] = n[i] > 0 ? c[i] / 1e9 * hz / n[i] : 0
			u[i] = dt[i] > 0 ? 100 * c[i] / 1e9 / dt[i] : 0
		}
		printf "%.3f %.3f %.1f %.1f %.0f %.0f %.1f\n", m[1], m[2], y[1], y[2], u[1], u[2],
			(n[1] > 0 ? 100 * (n[1] - n[2]) / n[1] : 0)
	}'
}

# failed ROW NAME...: say why, with the end of each program's output.
failed() {
	local row=$1 n
	shift
	echo "   $row: no measurement (a program failed or no traffic in ${READY_S} s):"
	for n in "$@"; do
		echo "     -- $n:"
		tail -5 "$TMP/$n.log" 2>/dev/null | sed 's/\x1b\[[0-9;]*[A-Za-z]//g; s/^/        /'
	done
	echo "NA NA NA NA NA NA NA" >"$TMP/row.out"
}

# pair ROW SIZE GEN_KIND GEN_ROLE RECV_KIND RECV_ROLE
pair() {
	local row=$1 size=$2 gk=$3 gr=$4 rk=$5 rr=$6 sock=$TMP/s.sock n k r c w z
	for n in gen recv; do
		if [ $n = gen ]; then k=$gk r=$gr c=$CPU_GEN; else k=$rk r=$rr c=$CPU_PEER; fi
		[ "$r" = server ] || continue
		z=
		if [ "$k" = lr ]; then z=$ZC; fi
		start_side $n "$k" "$c" "$r" "$size" "$(vdev 0 "$r" "$sock" "$z" zrx)"
		wait_socket $n "$sock" || { failed "$row" $n; stop $n; return; }
	done
	for n in gen recv; do
		if [ $n = gen ]; then k=$gk r=$gr c=$CPU_GEN; else k=$rk r=$rr c=$CPU_PEER; fi
		[ "$r" = client ] || continue
		z=
		if [ "$k" = lr ]; then z=$ZC; fi
		start_side $n "$k" "$c" "$r" "$size" "$(vdev 0 "$r" "$sock" "$z")"
	done
	if datapath gen "$gk" && datapath recv "$rk" &&
		w=$(measure gen:0:5:gen recv:0:4:recv); then
		echo "$w" | result >"$TMP/row.out"
	else
		failed "$row" gen recv
	fi
	if [ "$gr" = server ]; then stop gen recv; else stop recv gen; fi
	rm -f "$sock"
	busy_cycles recv >>"$TMP/row.out"
	busy_cycles gen >>"$TMP/row.out"
}

# start_side NAME KIND CPU ROLE SIZE VDEV: a generator (NAME gen) or a
# receiver.
start_side() {
	local name=$1 kind=$2 cpu=$3 size=$5 dev=$6
	if [ "$kind" = lr ]; then
		if [ "$name" = gen ]; then
			lr_pktgen "$name" "$cpu" "--tx-only --size $size$PSTAMP --record-core-cycles" "$dev"
		else
			lr_pktgen "$name" "$cpu" "--rx-only$PSTAMP --record-core-cycles" "$dev"
		fi
	elif [ "$name" = gen ]; then
		testpmd "$name" "$cpu" txonly "--txpkts=$((size - 4)) --record-core-cycles" "$dev"
	else
		testpmd "$name" "$cpu" rxonly "--record-core-cycles" "$dev"
	fi
}

# fwd ROW SIZE FWD_KIND: lr-pktgen sends on port 0, the forwarder sends it
# back on its other port, lr-pktgen receives on port 1. FWD_ROLE gives the
# forwarder's roles (port 0, port 1): client (client, client), server
# (server, server) or mixed (server, client); lr-pktgen's port is always
# the other role of its link.
fwd() {
	local row=$1 size=$2 fk=$3 a=$TMP/a.sock b=$TMP/b.sock w
	local f0 f1 g0 g1 z0 z1
	case $FWD_ROLE in
	mixed) f0=server f1=client ;;
	*) f0=$FWD_ROLE f1=$FWD_ROLE ;;
	esac
	g0=$(other "$f0") g1=$(other "$f1")
	z0=$FZC z1=$FZC
	if [ "$fk" != lr ]; then z0='' z1=''; fi
	start_fwd() {
		if [ "$fk" = lr ]; then
			launch fwd other "$CPU_PEER" "$L2FWD" -l "$CPU_PEER" "${MEM[@]}" \
				--file-prefix "bm$$_${RUN}_fwd" \
				--vdev "$(vdev 0 "$f0" "$a" "$z0")" \
				--vdev "$(vdev 1 "$f1" "$b" "$z1")" \
				-- -p 0x3 -T 0 --no-mac-updating --record-core-cycles
		else
			testpmd fwd "$CPU_PEER" io "--record-core-cycles" "$(vdev 0 "$f0" "$a" "")" \
				"$(vdev 1 "$f1" "$b" "")"
		fi
	}
	start_gen() {
		lr_pktgen gen "$CPU_GEN" "--tx-ports 0 --rx-ports 1 --size $size$GEN_STAMP" \
			"$(vdev 0 "$g0" "$a" "$ZC" zrx)" "$(vdev 1 "$g1" "$b" "$ZC" zrx)"
	}
	# The forwarder's server sockets before lr-pktgen starts, and
	# lr-pktgen's before the forwarder starts when it has a client port:
	# DPDK 22.11's client tries to connect once, at start (a linerate
	# client retries every 100 ms, so lr-pktgen's client port of the
	# mixed roles may start before its server).
	if [ "$f0" = server ] && [ "$f1" = server ]; then
		start_fwd
		{ wait_socket fwd "$a" && wait_socket fwd "$b"; } || { failed "$row" fwd; stop fwd; return; }
		start_gen
	else
		start_gen
		if [ "$f0" = client ]; then
			wait_socket gen "$a" || { failed "$row" gen; stop gen; return; }
		fi
		wait_socket gen "$b" || { failed "$row" gen; stop gen; return; }
		start_fwd
		if [ "$f0" = server ]; then
			wait_socket fwd "$a" || { failed "$row" gen fwd; stop gen fwd; return; }
		fi
	fi
	if datapath gen lr && datapath fwd "$([ "$fk" = lr ] && echo lr || echo tp)" &&
		w=$(measure gen:0:5:gen gen:1:4:fwd); then
		echo "$w" | result >"$TMP/row.out"
	else
		failed "$row" gen fwd
	fi
	# the servers' side first (stop() ends any testpmd first anyway)
	if [ "$f1" = server ]; then stop fwd gen; else stop gen fwd; fi
	rm -f "$a" "$b"
	busy_cycles fwd >>"$TMP/row.out"
}

# busy_cycles NAME: the "CPU cycles/packet=X" of program NAME's exit
# report (fwd, gen or recv), or NA. Every program counts the same way
# (--record-core-cycles): TSC cycles of the polls or loop passes that moved
# frames, over those frames, for the whole run. Unlike the window's cycles
# per packet (CPU time over frames), this leaves out the empty polls of a
# side waiting for the other (one process per CPU here): it is the side's
# own cost per frame, whoever is the bottleneck. The exception is testpmd
# txonly, which builds a burst, frees what the full ring refused and counts
# every pass: its busy cycles are all its cycles.
busy_cycles() {
	local v
	v=$(sed -n 's/.*CPU cycles\/packet=\([0-9.]*\).*/\1/p' "$TMP/$1.log" 2>/dev/null | tail -1)
	echo "${v:-NA}"
}

# Row names, what runs, and with which roles and modes.
declare -A TITLE ROLES
gr=$GEN_ROLE
TITLE[lr_lr]="lr-pktgen -> lr-pktgen"
TITLE[dpdk_dpdk]="testpmd txonly -> testpmd rxonly"
TITLE[ndpdk_ndpdk]="testpmd-native txonly -> rxonly"
TITLE[lr_dpdk]="lr-pktgen -> testpmd rxonly"
TITLE[dpdk_lr]="testpmd txonly -> lr-pktgen"
TITLE[fwd_lr]="lr-pktgen -> lr-l2fwd -> lr-pktgen"
TITLE[fwd_dpdk]="lr-pktgen -> testpmd io -> lr-pktgen"
TITLE[fwd_ndpdk]="lr-pktgen -> testpmd-native io -> back"
ROLES[lr_lr]="generator $gr ($(mode "$gr" lr | sed 's/zero-copy rx/copy/')), receiver $(other "$gr") ($(mode "$(other "$gr")" lr zrx))"
ROLES[dpdk_dpdk]="txonly client (copy), rxonly server (copy), as issue 14's reference"
ROLES[ndpdk_ndpdk]=${ROLES[dpdk_dpdk]}
ROLES[lr_dpdk]="lr-pktgen $gr ($(mode "$gr" lr | sed 's/zero-copy rx/copy/')), testpmd $(other "$gr") (copy)"
ROLES[dpdk_lr]="testpmd $gr (copy), lr-pktgen $(other "$gr") ($(mode "$(other "$gr")" lr zrx))"
# fwd_roles KIND: the forwarder's ports and lr-pktgen's, role and mode.
fwd_roles() {
	local f0 f1 z=
	case $FWD_ROLE in
	mixed) f0=server f1=client ;;
	*) f0=$FWD_ROLE f1=$FWD_ROLE ;;
	esac
	[ "$1" = lr ] && z=$FZC
	echo "$([ "$1" = lr ] && echo lr-l2fwd || echo 'testpmd io') port 0 $f0 ($(ZC=$z mode "$f0" "$1")), port 1 $f1 ($(ZC=$z mode "$f1" "$1")); lr-pktgen port 0 $(other "$f0") ($(mode "$(other "$f0")" lr | sed 's/zero-copy rx/copy/')), port 1 $(other "$f1") ($(mode "$(other "$f1")" lr zrx))"
}
# fwd_copies KIND: "G F", the copies of each frame in lr-pktgen and in the
# forwarder: one per port that is not a zero-copy client (lr-l2fwd's
# port 0 receives into port 1's pool when port 1 is a zero-copy client,
# so port 1 sends it with no second copy; testpmd's ports copy).
fwd_copies() {
	local f0 f1 g=0 f=0 z=
	case $FWD_ROLE in
	mixed) f0=server f1=client ;;
	*) f0=$FWD_ROLE f1=$FWD_ROLE ;;
	esac
	[ "$1" = lr ] && z=$FZC
	# lr-pktgen sends on port 0 (a server copies), receives on port 1
	[ "$(mode "$(other "$f0")" lr)" = zero-copy ] || g=$((g + 1))
	[ "$(mode "$(other "$f1")" lr zrx)" != copy ] || g=$((g + 1))
	[ "$(ZC=$z mode "$f0" "$1")" = zero-copy ] || f=$((f + 1))
	[ "$(ZC=$z mode "$f1" "$1")" = zero-copy ] || f=$((f + 1))
	echo "$g $f"
}
ROLES[fwd_lr]="$(fwd_roles lr), --no-mac-updating (frames unchanged, as testpmd io)"
ROLES[fwd_dpdk]=$(fwd_roles tp)
ROLES[fwd_ndpdk]=${ROLES[fwd_dpdk]}

run_row() {
	local row=$1 size=$2
	TP_BIN=$TESTPMD
	case $row in *ndpdk*) TP_BIN=$TESTPMD_NATIVE ;; esac
	case $row in
	lr_lr) pair "$row" "$size" lr "$gr" lr "$(other "$gr")" ;;
	dpdk_dpdk|ndpdk_ndpdk) pair "$row" "$size" tp client tp server ;;
	lr_dpdk) pair "$row" "$size" lr "$gr" tp "$(other "$gr")" ;;
	dpdk_lr) pair "$row" "$size" tp "$gr" lr "$(other "$gr")" ;;
	fwd_lr) fwd "$row" "$size" lr ;;
	fwd_dpdk|fwd_ndpdk) fwd "$row" "$size" tp ;;
	esac
}

rows=()
for row in $ROWS; do
	[ -n "${TITLE[$row]:-}" ] || die "unknown row '$row' (ROWS: ${!TITLE[*]})"
	if [[ $row == *ndpdk* ]]; then
		if [ -z "$TESTPMD_NATIVE" ]; then
			echo "row '${TITLE[$row]}' skipped: $native_note"
			continue
		fi
	elif [[ $row == *dpdk* ]] && [ $have_dpdk = 0 ]; then
		echo "row '${TITLE[$row]}' skipped: $why_no_dpdk"
		continue
	fi
	rows+=("$row")
done
[ "$ncpu" -ge 2 ] || echo "note: one CPU: every row's two processes share CPU 0"

: >"$TMP/results"
for size in $SIZES; do
	echo "== ${size}-byte frames"
	for r in $(seq "$RUNS"); do
		for row in "${rows[@]}"; do
			RUN=$((RUN + 1))
			CMDS=()
			run_row "$row" "$size"
			read -r gm pm gc pc gu pu gap <"$TMP/row.out"
			busy=$(sed -n 2p "$TMP/row.out")
			busy=${busy:-NA}
			gbusy=NA
			[[ $row == fwd_* ]] || gbusy=$(sed -n 3p "$TMP/row.out")
			gbusy=${gbusy:-NA}
			if [ "$r" = 1 ]; then
				echo "-- ${TITLE[$row]}: ${ROLES[$row]}"
				for c in "${CMDS[@]}"; do echo "   \$ $c"; done
			fi
			case $row in
			fwd_*) printf '   run %d %-38s sent %7s Mpps %6s cyc/pkt (cpu %s%%) | forwarded %7s Mpps, forwarder %6s cyc/pkt (cpu %s%%), busy %s cyc/pkt | not back %s%%\n' \
				"$r" "${TITLE[$row]}" "$gm" "$gc" "$gu" "$pm" "$pc" "$pu" "$busy" "$gap" ;;
			*) printf '   run %d %-38s gen %7s Mpps %6s cyc/pkt (cpu %s%%) | recv %7s Mpps %6s cyc/pkt (cpu %s%%) | gap %s%% | busy gen %s, recv %s cyc/pkt\n' \
				"$r" "${TITLE[$row]}" "$gm" "$gc" "$gu" "$pm" "$pc" "$pu" "$gap" "$gbusy" "$busy" ;;
			esac
			echo "$size $row $gm $pm $gc $pc $busy $gu $pu $r $gbusy" >>"$TMP/results"
		done
	done
	echo
done

# ---- summary ----
# midrange: of the numbers on stdin, one a line, "median min max count",
# or nothing when there are none.
midrange() {
	sort -g | awk '{a[NR] = $1} END {
		if (NR == 0) exit
		print ((NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2), a[1], a[NR], NR }'
}
# summ SIZE ROW COL: "median (min-max)" over the runs, or NA.
summ() {
	awk -v s="$1" -v r="$2" -v c="$3" '$1 == s && $2 == r && $c != "NA" {print $c}' "$TMP/results" |
		midrange | awk 'END { if (NR == 0) print "NA"
			else if ($4 == 1) printf "%g\n", $1; else printf "%g (%g-%g)\n", $1, $2, $3 }'
}
med() { summ "$@" | cut -d' ' -f1; }
# pratio SIZE ROW REF COL INV: the median over the runs that measured
# both rows of ROW's column COL over REF's (INV 1: REF's over ROW's), each
# run's two rows taken close in time: a phase of the machine that slows
# every row alike (this VM's vCPUs run two- to fourfold slower for
# minutes at a time) weighs on both sides of each ratio, where a ratio of
# medians would compare whichever runs fell in which phase.
pratio() {
	awk -v s="$1" -v r="$2" -v f="$3" -v c="$4" -v inv="$5" '
		$1 == s && $c != "NA" && $c + 0 > 0 {
			if ($2 == r) a[$10] = $c
			else if ($2 == f) b[$10] = $c
		}
		END { for (k in a) if (k in b) print (inv ? b[k] / a[k] : a[k] / b[k]) }' \
		"$TMP/results" | midrange | awk 'END { if (NR == 0) print "-"; else printf "%.2f\n", $1 }'
}

echo "== summary: medians (min-max) of $RUNS run(s) of ${SECS} s windows; Mpps and TSC cycles per packet on each side over the same window"
echo "   lr/DPDK Mpps: received (forwarded) Mpps of the row / of the DPDK row, the median over the runs of each run's ratio (the two rows a few seconds apart): testpmd txonly -> rxonly (for lr-l2fwd: testpmd io), Debian's build, and the native one when measured"
echo "   DPDK/lr cycles: cycles per packet of that DPDK row / of this row (median of each run's ratio), on the generator and receiver (forwarder) side: above 1, linerate spends fewer"
# ratios ROW SIZE REF: the two ratios against row REF.
ratios() {
	local row=$1 size=$2 ref=$3
	RT=$(pratio "$size" "$row" "$ref" 4 0)
	if [ "$row" = fwd_lr ]; then
		RC="forwarder $(pratio "$size" "$row" "$ref" 6 1), busy $(pratio "$size" "$row" "$ref" 7 1)"
	else
		RC="gen $(pratio "$size" "$row" "$ref" 5 1), rx $(pratio "$size" "$row" "$ref" 6 1)"
	fi
}
for size in $SIZES; do
	echo
	echo "${size}-byte frames"
	printf '  %-38s | %-24s %-24s | %-24s %-24s | %-26s %s\n' row "generator Mpps" \
		"generator cyc/pkt" "received Mpps" "receiver cyc/pkt" "lr/DPDK Mpps" "DPDK/lr cycles"
	for row in "${rows[@]}"; do
		rt='' rc=''
		case $row in
		*dpdk*) ;;
		*)
			ref=dpdk_dpdk nref=ndpdk_ndpdk
			if [[ $row == fwd_* ]]; then ref=fwd_dpdk nref=fwd_ndpdk; fi
			for x in "$ref" "$nref"; do
				[[ " ${rows[*]} " == *" $x "* ]] || continue
				ratios "$row" "$size" "$x"
				tag=debian
				[[ $x != *ndpdk* ]] || tag=native
				rt+="${rt:+, }$RT $tag"
				rc+="${rc:+; }$RC $tag"
			done
			;;
		esac
		case $row in
		lr_dpdk|dpdk_lr) ratios "$row" "$size" dpdk_dpdk
			rt="$RT debian" rc="$RC debian" ;;
		esac
		[ -n "$rt" ] || rt=-
		printf '  %-38s | %-24s %-24s | %-24s %-24s | %-26s %s\n' "${TITLE[$row]}" \
			"$(summ "$size" "$row" 3)" "$(summ "$size" "$row" 5)" \
			"$(summ "$size" "$row" 4)" "$(summ "$size" "$row" 6)" "$rt" "$rc"
	done
done
# Where the cycles go, for the forwarder rows: copies per frame on each
# CPU (from the roles and modes), the share of its CPU each side got, and
# the forwarder's busy share at the forwarded rate (busy cycles x
# packets / TSC cycles): near 100% the forwarder is the bottleneck, well
# below it waits for a generator that cannot feed it faster.
# The same for the pairs: each side's busy share (its busy cycles x the
# rate / TSC): the side near 100% sets the pace; the other waits on it.
pair_rows=()
for row in "${rows[@]}"; do [[ $row == fwd_* ]] || pair_rows+=("$row"); done
if [ ${#pair_rows[@]} -gt 0 ]; then
	echo
	echo "where the cycles go (generator -> receiver rows, medians): each side's busy cycles a frame (--record-core-cycles: the passes that moved frames; testpmd txonly counts all of its) and busy share = busy cycles x rate / TSC"
	for size in $SIZES; do
		for row in "${pair_rows[@]}"; do
			awk -v t="${TITLE[$row]}" -v s="$size" -v hz="$TSC_HZ" \
				-v gm="$(med "$size" "$row" 3)" -v pm="$(med "$size" "$row" 4)" \
				-v gb="$(med "$size" "$row" 11)" -v rb="$(med "$size" "$row" 7)" 'BEGIN {
				gs = (gm != "NA" && gb != "NA") ? 100 * gb * gm * 1e6 / hz : -1
				rs = (pm != "NA" && rb != "NA") ? 100 * rb * pm * 1e6 / hz : -1
				who = "-"
				if (gs >= 0 && rs >= 0)
					who = (gs >= rs) ? "the generator" : "the receiver"
				printf "  %4s B %-38s | generator busy %s cyc/pkt = %s | receiver busy %s cyc/pkt = %s | paced by %s\n",
					s, t, gb, (gs >= 0 ? sprintf("%.0f%%", gs) : "NA"),
					rb, (rs >= 0 ? sprintf("%.0f%%", rs) : "NA"), who
			}'
		done
	done
fi
fwd_rows=()
for row in "${rows[@]}"; do [[ $row != fwd_* ]] || fwd_rows+=("$row"); done
if [ ${#fwd_rows[@]} -gt 0 ]; then
	echo
	echo "where the cycles go (forwarder rows, medians): copies of each frame on each CPU (with FWD_STAMP=yes lr-pktgen also writes each frame from its template; unstamped, its frames are prebuilt); CPU share each side got; forwarder busy share = busy cycles x forwarded rate / TSC"
	for size in $SIZES; do
		for row in "${fwd_rows[@]}"; do
			fk=lr
			[ "$row" = fwd_lr ] || fk=tp
			read -r gcp fcp <<<"$(fwd_copies "$fk")"
			awk -v t="${TITLE[$row]}" -v s="$size" -v gc="$gcp" -v fc="$fcp" -v hz="$TSC_HZ" \
				-v pm="$(med "$size" "$row" 4)" -v b="$(med "$size" "$row" 7)" \
				-v gu="$(med "$size" "$row" 8)" -v fu="$(med "$size" "$row" 9)" 'BEGIN {
				share = (pm != "NA" && b != "NA") ? sprintf("%.0f%%", 100 * b * pm * 1e6 / hz) : "NA"
				who = "-"
				if (gu == "NA" || fu == "NA" || gu + 0 < 90 || fu + 0 < 90)
					who = "- (a side got less than 90% of its CPU: not a quiet machine, nothing to conclude)"
				else if (share != "NA")
					who = (100 * b * pm * 1e6 / hz >= 85) ? "the forwarder" : "the generator (the forwarder waits)"
				printf "  %4s B %-38s | lr-pktgen %d copies/frame, CPU %s%% | forwarder %d copies/frame, CPU %s%%, busy %s cyc/pkt = %s busy | bound by %s\n",
					s, t, gc, gu, fc, fu, b, share, who
			}'
		done
	done
fi
echo
if [ -f "$REF" ]; then
	echo "reference measured earlier on a quiet machine of this kind, not in this run ($REF):"
	sed -n 's/^# */  source: /p' "$REF"
	awk -F'\t' '!/^#/ && NR > 1 && $1 != "build" {printf "  %s, %s-byte frames: %s Mpps\n", $1, $2, $3}' "$REF"
fi
# For the opening table of bench/run:
# "summary|what|unit|better|linerate|DPDK Debian|DPDK native".
# sv SIZE ROW COL: the median, "-" when that row did not run or failed.
sv() {
	local v
	[[ " ${rows[*]} " == *" $2 "* ]] || { echo -; return; }
	v=$(med "$@")
	[ "$v" != NA ] && echo "$v" || echo -
}
for size in $SIZES; do
	echo "summary|memif, generator -> receiver, $size B (received)|Mpps|higher|$(sv "$size" lr_lr 4)|$(sv "$size" dpdk_dpdk 4)|$(sv "$size" ndpdk_ndpdk 4)"
	echo "summary|memif, receiver, $size B|cycles/packet|lower|$(sv "$size" lr_lr 6)|$(sv "$size" dpdk_dpdk 6)|$(sv "$size" ndpdk_ndpdk 6)"
	echo "summary|memif, through a forwarder, $size B (forwarded)|Mpps|higher|$(sv "$size" fwd_lr 4)|$(sv "$size" fwd_dpdk 4)|$(sv "$size" fwd_ndpdk 4)"
	echo "summary|memif, forwarder, $size B|cycles/packet|lower|$(sv "$size" fwd_lr 6)|$(sv "$size" fwd_dpdk 6)|$(sv "$size" fwd_ndpdk 6)"
	echo "summary|memif, forwarder busy, $size B|cycles/packet|lower|$(sv "$size" fwd_lr 7)|$(sv "$size" fwd_dpdk 7)|$(sv "$size" fwd_ndpdk 7)"
done
echo "goals (issue 14): every linerate row >= 1.3x the DPDK row of this run; 14.88 Mpps of 64-byte frames (10 GbE line rate) between two linerate processes"
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
