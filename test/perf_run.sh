#!/usr/bin/env bash
# perf_run.sh EXPECT PROGRAM ARGS...: one benchmark of the perf suite. Runs
# PROGRAM (through $LR_EXE_WRAPPER in a cross build) and prints what it
# printed. Fails only if it crashed or exited non-zero, or if its output
# lacks EXPECT (an extended regex for the figure line that a complete,
# correct run prints); never on the figures themselves.
set -uo pipefail
expect=$1
shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT
${LR_EXE_WRAPPER:+$LR_EXE_WRAPPER} "$@" >"$out" 2>&1
rc=$?
cat "$out"
if [ $rc -ne 0 ]; then
	echo "FAIL: $(basename "$1") exited with status $rc"
	exit 1
fi
if ! grep -qE -- "$expect" "$out"; then
	echo "FAIL: $(basename "$1") printed no line matching '$expect'"
	exit 1
fi
exit 0
