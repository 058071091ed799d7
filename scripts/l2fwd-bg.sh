# shellcheck shell=bash
# Sourced by test/test_pktgen_driver.sh (bench/run's veth entries do the
# same in Python, bench/harness/proc.py):
# lr-l2fwd (or any forwarder that prints a start line) in the background in
# namespace $LR_NS_FWD of scripts/netns.sh.
#
#   fwd_start OUT READY CMD ARGS...
#       run CMD ARGS in $LR_NS_FWD with stdout and stderr to OUT; FWD_PID is
#       its pid. 0 once OUT has a line matching READY; 1 if it exited or
#       did not get there in 120 s, a bound only for a hang (it is killed,
#       its last lines go to stdout, FWD_PID is empty).
#   fwd_stop
#       SIGINT, wait; its exit status (0 if none runs).

fwd_start() {
	local out=$1 ready=$2
	shift 2
	ip netns exec "$LR_NS_FWD" "$@" >"$out" 2>&1 </dev/null &
	FWD_PID=$!
	for _ in $(seq 1200); do
		grep -q "$ready" "$out" && return 0
		kill -0 "$FWD_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$FWD_PID" 2>/dev/null
	wait "$FWD_PID" 2>/dev/null
	FWD_PID=
	tail -20 "$out"
	return 1
}

fwd_stop() {
	local rc=0
	if [ -n "${FWD_PID:-}" ]; then
		kill -INT "$FWD_PID" 2>/dev/null
		wait "$FWD_PID"
		rc=$?
	fi
	FWD_PID=
	return $rc
}
