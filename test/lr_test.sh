# shellcheck shell=bash
# lr_test.sh - what the shell tests share, sourced from beside them
# (. "$(dirname "$0")/lr_test.sh"), and by scripts/test-env.sh and
# scripts/l2fwd-bg.sh for its waits. It defines functions only, and
# `failed` (0) when it is not set yet.
#
#   skip MSG...          "SKIP: MSG" and exit 77 (the test could not run here)
#   pass MSG...          "PASS: MSG"
#   fail MSG...          "FAIL: MSG" and failed=1: the script ends with
#                        `exit $failed`
#   lr_need_netns        skip unless root with `ip` (to create network
#                        namespaces)
#   lr_cleanup_traps FN  run FN at exit; SIGINT and SIGTERM exit 1 (so FN
#                        runs then too)
#   lr_netns_create NETNS P [PAIR...]
#                        scripts/netns.sh NETNS creates topology P and its
#                        names (LR_NS_GEN, LR_IF_G0, ...) are set here; a
#                        failure is said and exits 1
#   lr_netns_test NETNS TAG PIDVAR [PAIR...]
#                        the start of a test over network namespaces: P
#                        (TAG and this shell's pid) and TMP (a new folder)
#                        set, topology P made (lr_netns_create); at exit
#                        (lr_cleanup_traps) the process whose pid is in the
#                        variable PIDVAR ("": none) killed, the namespaces
#                        destroyed and TMP removed
#   field KEY FILE       the value of KEY= on lr-pktgen's final line in FILE
#   jget FILE EXPR       the python3 expression EXPR over d, the JSON
#                        document in FILE, and r, its "results" (None
#                        without); empty if FILE is not one JSON document
#                        or EXPR fails
#   lr_wait_line FILE PATTERN PID [TENTHS]
#                        0 once FILE has a line matching PATTERN (grep); 1
#                        once PID is gone or TENTHS tenths of a second (1200:
#                        a bound only a hang reaches) passed
#   bg_start OUT READY CMD ARGS...
#                        CMD in the background (stdin /dev/null, stdout and
#                        stderr to OUT), BG its pid; 0 once OUT has READY, 1
#                        if it ended or hung first (then killed, BG empty)
#   bg_stop SIGNAL       send SIGNAL to BG, wait; its exit status

: "${failed:=0}"

skip() { echo "SKIP: $*"; exit 77; }
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failed=1; }

lr_need_netns() {
	[ "$(id -u)" = 0 ] || skip "needs root (creates network namespaces)"
	command -v ip >/dev/null || skip "no 'ip' command (iproute2)"
}

lr_cleanup_traps() {
	# shellcheck disable=SC2064
	trap "$1" EXIT
	trap 'exit 1' INT TERM
}

lr_netns_create() {
	local netns=$1 p=$2 ns_env
	shift 2
	ns_env=$("$netns" create "$p" "$@") ||
		{ echo "FAIL: netns.sh create $p failed (see above)"; exit 1; }
	eval "$ns_env"
}

lr_netns_test() {
	LR_NETNS_=$1
	P=$2$(($$ % 100000))
	LR_PIDVAR_=$3
	shift 3
	TMP=$(mktemp -d)
	lr_cleanup_traps lr_netns_cleanup_
	lr_netns_create "$LR_NETNS_" "$P" "$@"
}

lr_netns_cleanup_() {
	local pid=
	[ -n "$LR_PIDVAR_" ] && pid=${!LR_PIDVAR_:-}
	if [ -n "$pid" ]; then
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	fi
	"$LR_NETNS_" destroy "$P"
	rm -rf "$TMP"
}

field() { sed -n "s/^pktgen total:.* $1=\([^ ]*\).*/\1/p" "$2" | tail -1; }

jget() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
r = d.get("results") if isinstance(d, dict) else None
print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null
}

lr_wait_line() {
	local _
	for _ in $(seq "${4:-1200}"); do
		grep -q "$2" "$1" && return 0
		kill -0 "$3" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

bg_start() {
	local out=$1 ready=$2
	shift 2
	"$@" >"$out" 2>&1 </dev/null &
	BG=$!
	lr_wait_line "$out" "$ready" "$BG" && return 0
	kill -KILL "$BG" 2>/dev/null
	wait "$BG" 2>/dev/null
	BG=
	return 1
}

bg_stop() {
	local rc
	kill "-$1" "$BG" 2>/dev/null
	wait "$BG"
	rc=$?
	BG=
	return $rc
}
