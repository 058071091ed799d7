# shellcheck shell=bash
# Sourced by scripts/test.sh and scripts/probe.sh: what a test run must
# leave as it found it, and another linerate instance to share the machine
# with.
#
#   lr_leftovers
#       print one line per runtime folder no live instance holds (a live
#       one has its config file flock()ed: looked up in /proc/locks, never
#       by taking the lock), telemetry link at DPDK's path whose socket is
#       gone, hugepage file no process maps, and network namespace no
#       process lives in; compare the lines before and after
#       a run.
#   lr_hold_start EXE LOG
#       run EXE (test/lr-test-hold-prefix of a build) on the default prefix
#       "linerate" in the background, output to LOG; LR_HOLD_PID is its pid.
#       0 once it holds the prefix; 2 if another process holds it already
#       (LR_HOLD_PID empty: the same situation for the tests); 1 if it could
#       not start (LOG says why).
#   lr_hold_stop
#       SIGTERM and wait; 0 if it was still running and ended cleanly (its
#       hugepage files were still there, it released the prefix).

# The wait for a line of a program in the background: lr_wait_line.
# shellcheck source=test/lr_test.sh
. "$(dirname "${BASH_SOURCE[0]}")/../test/lr_test.sh"

lr_leftovers() {
	local d f ino mapped
	for d in /var/run/linerate/* /tmp/linerate-*/* \
		"${XDG_RUNTIME_DIR:-/nonexistent}"/linerate/*; do
		[ -e "$d" ] || continue
		if [ -f "$d/config" ]; then
			ino=$(stat -c %i "$d/config" 2>/dev/null)
			[ -n "$ino" ] && grep -qE "FLOCK .*:$ino " /proc/locks && continue
		fi
		echo "runtime folder $d"
	done
	# The links to our telemetry sockets at DPDK's path (lib/telemetry).
	for f in /var/run/dpdk/*/dpdk_telemetry.v2 /tmp/dpdk/*/dpdk_telemetry.v2; do
		[ -L "$f" ] && [ ! -e "$f" ] && echo "telemetry link $f"
	done
	mapped=$(cat /proc/[0-9]*/maps 2>/dev/null | awk '$6 ~ /^\// {print $6}' | sort -u)
	for d in $(awk '$3 == "hugetlbfs" {print $2}' /proc/mounts); do
		for f in "$d"/*; do
			[ -f "$f" ] || continue
			grep -qxF "$f" <<<"$mapped" && continue
			echo "hugepage file $f"
		done
	done
	# A namespace a process still lives in belongs to a running test.
	for d in $(ip netns list 2>/dev/null | awk '{print $1}'); do
		[ -z "$(ip netns pids "$d" 2>/dev/null)" ] &&
			echo "network namespace $d"
	done
}

LR_HOLD_PID='' LR_HOLD_LOG=''
lr_hold_start() {
	local exe=$1
	LR_HOLD_LOG=$2
	LR_HOLD_PID=''
	[ -x "$exe" ] || { echo "$exe: not built" >"$LR_HOLD_LOG"; return 1; }
	"$exe" -l 0 -m 2 >"$LR_HOLD_LOG" 2>&1 </dev/null &
	LR_HOLD_PID=$!
	# Ready once it says so; a bound only for a hang.
	lr_wait_line "$LR_HOLD_LOG" '^holding file prefix' "$LR_HOLD_PID" 600 &&
		return 0
	grep -q '^holding file prefix' "$LR_HOLD_LOG" && return 0
	kill -KILL "$LR_HOLD_PID" 2>/dev/null
	wait "$LR_HOLD_PID" 2>/dev/null
	LR_HOLD_PID=''
	grep -q "is in use by another linerate process" "$LR_HOLD_LOG" && return 2
	return 1
}

lr_hold_stop() {
	local pid=$LR_HOLD_PID
	LR_HOLD_PID=''
	[ -n "$pid" ] || return 0
	kill -TERM "$pid" 2>/dev/null || return 1
	wait "$pid" && grep -q '^released file prefix' "$LR_HOLD_LOG"
}
