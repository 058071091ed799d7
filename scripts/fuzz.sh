#!/usr/bin/env bash
# scripts/fuzz.sh [SECONDS]: build the libFuzzer targets of test/fuzz/ with
# clang (AddressSanitizer + UBSan, -Dfuzz=true) in build-fuzz/ (or
# $LR_TEST_BUILD_ROOT/fuzz), then run each for SECONDS (default 30) on a
# copy of its seed corpus test/fuzz/corpus/<target>/. Prints one line per
# target (executions, result) and exits non-zero if any target crashed,
# leaked, hung or failed one of its checks; the input that did it is kept
# in <build>/fuzz-run/<target>/ and replayed once with its messages shown.
# Targets run side by side, one per CPU (LR_FUZZ_JOBS).
# A longer run: scripts/fuzz.sh 3600. Extra libFuzzer flags: LR_FUZZ_FLAGS.
# scripts/fuzz.sh --build-only: set up and build, run nothing.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
top=$PWD
build_only=''
if [ "${1:-}" = --build-only ]; then
	build_only=yes
	shift
fi
secs=${1:-30}
if ! [[ $secs =~ ^[1-9][0-9]*$ ]]; then
	echo "usage: scripts/fuzz.sh [--build-only] [SECONDS]  (whole seconds per target)" >&2
	exit 2
fi
if [ -n "${LR_TEST_BUILD_ROOT:-}" ]; then
	dir=$LR_TEST_BUILD_ROOT/fuzz
else
	dir=$top/build-fuzz
fi
cc=${LR_FUZZ_CC:-clang}
if ! command -v "$cc" >/dev/null; then
	echo "fuzz: $cc not found (scripts/setup.sh --tests installs clang)" >&2
	exit 2
fi

mkdir -p "$dir"
if [ ! -f "$dir/build.ninja" ]; then
	echo "fuzz: meson setup $dir (CC=$cc)"
	log=$(mktemp)
	# The drivers no target fuzzes are not built (over a quarter of the
	# build's CPU time: 187 s against 134 s).
	if ! CC=$cc meson setup "$dir" -Dfuzz=true \
		-Db_sanitize=address,undefined -Db_lundef=false \
		-Dbuildtype=debugoptimized -Dtests=false -Dapps=false \
		-Ddisable_drivers=net/tap,net/af_packet,net/af_xdp,net/dpdk,net/null \
		>"$log" 2>&1; then
		tail -n 30 "$log"
		rm -f "$log"
		echo "fuzz: SETUP FAILED"
		exit 1
	fi
	mv "$log" "$dir/fuzz-setup.log"
fi
if ! ninja -C "$dir" >"$dir/fuzz-build.log" 2>&1; then
	tail -n 40 "$dir/fuzz-build.log"
	echo "fuzz: BUILD FAILED"
	exit 1
fi
[ -n "$build_only" ] && exit 0

# fuzz_one EXE: run one target; its lines go to <run>/result, whose first
# word is "ok" or "FAILED".
fuzz_one() {
	local exe=$1 name run seeds rc execs art
	name=$(basename "$exe")
	seeds=$top/test/fuzz/corpus/${name#fuzz_}
	run=$dir/fuzz-run/$name
	rm -rf "$run"
	mkdir -p "$run/corpus"
	[ -d "$seeds" ] && cp "$seeds"/* "$run/corpus/" 2>/dev/null
	# -close_fd_mask=3: the targets' own messages (bad input is their
	# normal case) go to /dev/null; sanitizer reports still show.
	# shellcheck disable=SC2086
	"$exe" -max_total_time="$secs" -timeout=10 -rss_limit_mb=4096 \
		-close_fd_mask=3 -print_final_stats=1 \
		-artifact_prefix="$run/" ${LR_FUZZ_FLAGS:-} "$run/corpus" \
		>"$run/log" 2>&1
	rc=$?
	execs=$(awk '/^stat::number_of_executed_units:/{print $2}' "$run/log")
	art=$(ls "$run"/crash-* "$run"/leak-* "$run"/timeout-* \
		"$run"/oom-* 2>/dev/null | head -n 1)
	if [ $rc -eq 0 ] && [ -z "$art" ]; then
		echo "ok $name: ${execs:-?} execs in ${secs} s: ok" >"$run/result"
		return
	fi
	{
		echo "FAILED $name: ${execs:-?} execs in ${secs} s: FAILED" \
			"(exit $rc)" "${art:+input $art}"
		grep -E 'ERROR|SUMMARY|check failed|runtime error' "$run/log" |
			head -n 5 | sed 's/^/    /'
		if [ -n "$art" ]; then
			echo "    replay: $exe $art"
			"$exe" "$art" 2>&1 | grep -vE '^(INFO|MS:|Running)' |
				head -n 30 | sed 's/^/    /'
		fi
	} >"$run/result"
}

# The targets run LR_FUZZ_JOBS at a time (default: one per CPU), each for
# the whole SECONDS; results print in the targets' order.
jobs=${LR_FUZZ_JOBS:-$(nproc)}
targets=()
for exe in "$dir"/test/fuzz/fuzz_*; do
	[ -x "$exe" ] && [ -f "$exe" ] && targets+=("$exe")
done
for exe in "${targets[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
		wait -n
	done
	fuzz_one "$exe" &
done
wait
passed=0 failed=0
for exe in "${targets[@]}"; do
	res=$dir/fuzz-run/$(basename "$exe")/result
	if [ -f "$res" ] && [ "$(head -c 3 "$res")" = "ok " ]; then
		cut -d' ' -f2- "$res"
		passed=$((passed + 1))
	else
		[ -f "$res" ] && sed '1s/^FAILED //' "$res" ||
			echo "$(basename "$exe"): FAILED (no result)"
		failed=$((failed + 1))
	fi
done

if [ $((passed + failed)) -eq 0 ]; then
	echo "fuzz: no fuzz target was built in $dir"
	exit 1
fi
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
