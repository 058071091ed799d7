#!/usr/bin/env bash
# The test command (README command 2, and what CI runs): sets up, builds from
# scratch in build-test/, and runs in order
#   1. native x86-64 build: suites fast and driver
#   2. AddressSanitizer + UBSan build: suites fast and driver, three tests
#      at a time, the testpmd matrices' representative cases only
#   3. page allocator debug build (-Dpagealloc_debug=true): suite fast
#      but for lr-pktgen's own tests (suite pktgen: its sending, output and
#      options, 80 s of CPU that exercise the allocator no differently from
#      l2fwd and the library tests)
#   4. ThreadSanitizer build (-Db_sanitize=thread): the tests that run
#      several lcores or start lr-l2fwd and lr-pktgen (2 lcores, net_null
#      and net_ring ports), the telemetry server's thread and net_vhost's
#      control thread, at LR_TEST_SCALE 0.1 (about 2 minutes); the
#      first race report ends its process with status 66 (halt_on_error),
#      a child's report fails its test, and any report in the log fails
#      the stage; test/tsan.supp holds the reviewed exceptions (none)
#   5. ppc64le cross build under qemu-user, 64 KiB allocator pages as ppc64
#      runs them (-Dpage_shift=16): suite fast
#   6. clang libFuzzer build: each fuzz target of test/fuzz/ for
#      LR_TEST_FUZZ_SECONDS (default 6) seconds (scripts/fuzz.sh), one
#      test per target
# Stages 2-6 are built one after the other at idle priority (SCHED_IDLE,
# nice 19) while stage 1 and the next stages test, each stage's tests
# starting once its own build is done.
# and prints one closing line "N passed, N failed, N skipped in M min S s"
# (the stages skipped named above it with their reason), whatever happens:
# a setup that fails is a failure counted there too.
#
# Setup (scripts/setup.sh --tests) installs in groups; a group it cannot
# install is written to build-test/setup-status and the stages that need
# it skip, saying why (ppc64le without the cross toolchain or qemu-user,
# fuzz without clang): a stage is never failed by a compiler not found.
#
# For the whole run another linerate instance holds the default file prefix
# "linerate" (test/hold_prefix.c, started from the first native build), as
# on a machine where linerate already runs: a test that takes the default
# prefix fails. At the end the run fails if a test left runtime folders
# (/var/run/linerate/*, /tmp/linerate-*), hugepage files no process maps or
# network namespaces behind that were not there before. Two runs may share
# the machine (two checkouts at once): each holds a shared lock on
# /tmp/lr-test-run.lock for its whole run, and the leftovers check waits, while another
# run holds it, for what it finds to go (another run's test between two
# steps) before it counts anything as left behind.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
top=$PWD
out=${LR_TEST_BUILD_ROOT:-$top/build-test}
start=$(date +%s)

passed=0 failed=0 skipped=0 broken=() skips=()

summary() {
	local t=$(($(date +%s) - start))
	echo
	[ ${#skips[@]} -gt 0 ] && printf 'skipped: %s\n' "${skips[@]}"
	[ ${#broken[@]} -gt 0 ] && echo "failing: ${broken[*]}"
	echo "$passed passed, $failed failed, $skipped skipped in $((t / 60)) min $((t % 60)) s"
}

mkdir -p "$out"
if ! scripts/setup.sh --tests --status "$out/setup-status"; then
	broken+=("setup")
	failed=$((failed + 1))
	summary
	exit 1
fi
# Why group G (ppc64le, fuzz, ...) could not be set up, or "".
setup_skip() {
	sed -n "s/^skip $1: //p" "$out/setup-status" | head -n 1
}
# skip_stage NAME REASON
skip_stage() {
	echo "=== $1: SKIPPED: $2"
	skips+=("$1 ($2)")
	skipped=$((skipped + 1))
}

lock=/tmp/lr-test-run.lock
exec 9>>"$lock"
flock -s 9

. scripts/test-env.sh

# Another linerate instance on the default prefix, for the whole run.
holder_started=''
hold_default_prefix() {
	holder_started=yes
	lr_hold_start "$1/test/lr-test-hold-prefix" "$out/hold-prefix.log"
	case $? in
	0) echo "=== $(cat "$out/hold-prefix.log")" ;;
	2) echo "=== the default prefix is held by another process already" ;;
	*)
		echo "=== cannot hold the default prefix:"
		cat "$out/hold-prefix.log"
		broken+=("hold-prefix")
		failed=$((failed + 1))
		;;
	esac
}

release_default_prefix() {
	[ -n "$LR_HOLD_PID" ] || return
	if ! lr_hold_stop; then
		echo "=== the default-prefix instance died or did not end cleanly:"
		cat "$out/hold-prefix.log"
		broken+=("hold-prefix")
		failed=$((failed + 1))
	fi
}
prebuild_pid=''
stop_children() {
	[ -n "$LR_HOLD_PID" ] && kill -TERM "$LR_HOLD_PID" 2>/dev/null
	if [ -n "$prebuild_pid" ]; then
		pkill -TERM -P "$prebuild_pid" 2>/dev/null
		kill -TERM "$prebuild_pid" 2>/dev/null
	fi
}
trap stop_children EXIT

lr_leftovers | sort >"$out/leftovers-before.txt"

# The stages' meson options.
A_NATIVE=()
A_DEBUG=(-Dpagealloc_debug=true -Dbuildtype=debugoptimized)
A_ASAN=(-Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug)
A_TSAN=(-Db_sanitize=thread -Dbuildtype=debug)
A_PPC=(--cross-file "$top/config/ppc/ppc64le-linux-gcc" -Dpage_shift=16)

# Why the ppc64le and fuzz stages cannot run here, or "".
ppc_why=$(setup_skip ppc64le)
if [ -z "$ppc_why" ] && ! command -v powerpc64le-linux-gnu-gcc >/dev/null; then
	ppc_why="powerpc64le-linux-gnu-gcc not installed (Debian gcc-powerpc64le-linux-gnu)"
fi
if [ -z "$ppc_why" ] && ! command -v qemu-ppc64le-static >/dev/null; then
	ppc_why="qemu-ppc64le-static not installed (Debian qemu-user-static)"
fi
fuzz_why=$(setup_skip fuzz)
if [ -z "$fuzz_why" ] && ! command -v clang >/dev/null; then
	fuzz_why="clang not installed (Debian clang)"
fi

# build NAME SETUP-ARGS...: a fresh meson setup and ninja build of stage
# NAME in $out/NAME; its status (0 or 1) is written to $out/NAME.built.
build() {
	local name=$1 rc=0; shift
	rm -rf "${out:?}/$name" "$out/$name.built"
	meson setup "$out/$name" "$@" >"$out/$name-setup.log" 2>&1 &&
		ninja -C "$out/$name" >"$out/$name-build.log" 2>&1 || rc=1
	echo "$rc" >"$out/$name.built"
}

# The later stages build while the earlier ones test, at idle priority
# (SCHED_IDLE, nice 19): a compiler gets only the CPU time no test wants,
# so the tests run as they would alone and the builds (5 of the run's 15
# minutes when done in turn) mostly disappear into the tests' waits.
prebuild() {
	(
		chrt --idle -p 0 "$BASHPID" >/dev/null 2>&1
		renice -n 19 -p "$BASHPID" >/dev/null 2>&1
		# In the order the stages test: the ASan build, the longest,
		# is ready when the native tests end.
		build asan "${A_ASAN[@]}"
		build pagealloc-debug "${A_DEBUG[@]}"
		build tsan "${A_TSAN[@]}"
		[ -z "$ppc_why" ] && build ppc64le "${A_PPC[@]}"
		if [ -z "$fuzz_why" ]; then
			rm -rf "$out/fuzz"
			LR_TEST_BUILD_ROOT=$out scripts/fuzz.sh --build-only \
				>"$out/fuzz-build.log" 2>&1
			echo $? >"$out/fuzz.built"
		fi
	) &
	prebuild_pid=$!
}

# wait_built NAME: wait for the idle-priority build of stage NAME; fails if
# it failed or its builder ended without a word.
wait_built() {
	while [ ! -f "$out/$1.built" ] && kill -0 "$prebuild_pid" 2>/dev/null; do
		sleep 1
	done
	[ "$(cat "$out/$1.built" 2>/dev/null)" = 0 ]
}

# run NAME -- TEST-ARGS: test stage NAME, built by prebuild (native: built
# here first, then the other builds start).
run() {
	local name=$1; shift
	[ "${1:-}" = -- ] && shift
	local targs=("$@") dir=$out/$name built=yes
	if [ "$name" = native ]; then
		echo "=== native: meson setup ${A_NATIVE[*]}"
		build native "${A_NATIVE[@]}"
		[ "$(cat "$out/native.built")" = 0 ] || built=''
		prebuild
	else
		echo "=== $name: built at idle priority beside the earlier stages"
		wait_built "$name" || built=''
	fi
	if [ -z "$built" ]; then
		echo "=== $name: BUILD FAILED"
		tail -n 40 "$out/$name-setup.log" "$out/$name-build.log"
		broken+=("$name (build)")
		failed=$((failed + 1))
		return
	fi
	# The first native build starts the default-prefix instance.
	if [ -z "$holder_started" ] && [ "$name" = native ]; then
		hold_default_prefix "$dir"
	fi
	echo "=== $name: meson test ${targs[*]}"
	meson test -C "$dir" --no-rebuild --print-errorlogs "${targs[@]}" 2>&1 |
		tee "$out/$name-test.log" |
		grep -vE '^ *[0-9]+/[0-9]+ .* OK +[0-9.]+s$'
	local ok fail skip to
	ok=$(awk '/^Ok:/{print $2}' "$out/$name-test.log")
	fail=$(awk '/^Fail:/{print $2}' "$out/$name-test.log")
	skip=$(awk '/^Skipped:/{print $2}' "$out/$name-test.log")
	to=$(awk '/^Timeout:/{print $2}' "$out/$name-test.log")
	passed=$((passed + ${ok:-0}))
	skipped=$((skipped + ${skip:-0}))
	fail=$(( ${fail:-0} + ${to:-0} ))
	if [ -z "$ok" ]; then fail=$((fail + 1)); fi
	failed=$((failed + fail))
	[ "$fail" -gt 0 ] && broken+=("$name")
}

# Three tests at a time: most tests wait more than they compute (the
# native stage's two CPUs were under one busy with two at a time, once the
# tests that keep both busy ran alone: 165 s, 117 s with three; the ASan
# stage 4 min 20 s, then 3 min 19 s with three). The tests that keep both
# CPUs busy (RFC 2544 against tbf, af_xdp, vhost and virtio-user, lr-pktgen
# over veth, the VM) run alone in every stage (test/meson.build's
# alone_tests), first.
run native -- --suite fast --suite driver --num-processes 3
# The RFC 2544 searches against the kernel's tbf and over memif (suite
# 'search', minutes of trials) and lr-telemetry against testpmd (suite
# 'interop') run in the native stage only.
# The testpmd matrices of pmd_vhost and pmd_virtio_user run their
# representative cases only (LR_TEST_MATRIX=short: split and packed, 1 and
# 2 queues, client, jumbo, reconnect; 14 of 33): every path of the matrix
# is driven under ASan by ours_matrix, our two drivers against each other,
# and testpmd, not sanitized, spends two lcores a case.
LR_TEST_MATRIX=short LR_TEST_SCALE=0.25 run asan -- --suite fast --suite driver --no-suite search \
	--no-suite interop --num-processes 3
run pagealloc-debug -- --suite fast --no-suite pktgen
# TSan: the programs with threads that share state (lr-pktgen's lcores,
# its control socket and telemetry through pktgen_send and pktgen_ctl;
# pktgen_config and pktgen_output run the same threads on other options).
LR_TEST_SCALE=0.1 TSAN_OPTIONS="halt_on_error=1 exitcode=66 suppressions=$top/test/tsan.supp" \
	run tsan -- eal pagealloc ring \
	page_pool mempool mbuf elastic ethdev l2fwd pktgen_send \
	pktgen_ctl pmd_memif pmd_memif_zc pmd_memif_ctl \
	telemetry telemetry_linerate pmd_vhost \
	--timeout-multiplier 3
# A report that reached the log without failing a test fails the stage.
if [ -f "$out/tsan/meson-logs/testlog.txt" ] &&
	grep -q "WARNING: ThreadSanitizer" "$out/tsan/meson-logs/testlog.txt"; then
	echo "=== tsan: ThreadSanitizer reported (see $out/tsan/meson-logs/testlog.txt):"
	grep -A3 "WARNING: ThreadSanitizer" "$out/tsan/meson-logs/testlog.txt" | head -n 40
	broken+=("tsan (report)")
	failed=$((failed + 1))
fi
if [ -n "$ppc_why" ]; then
	skip_stage ppc64le "$ppc_why"
else
	LR_TEST_SCALE=0.1 run ppc64le -- --suite fast --timeout-multiplier 10
fi

# 6. Fuzzing: scripts/fuzz.sh prints "fuzz_<target>: N execs in S s: ok"
# or "...: FAILED ..." per target; anything else that fails is the build.
fuzz() {
	local secs=${LR_TEST_FUZZ_SECONDS:-6} ok fail
	echo "=== fuzz: built at idle priority beside the earlier stages"
	if ! wait_built fuzz; then
		tail -n 40 "$out/fuzz-build.log"
		broken+=("fuzz (build)")
		failed=$((failed + 1))
		return
	fi
	echo "=== fuzz: scripts/fuzz.sh $secs"
	LR_TEST_BUILD_ROOT=$out scripts/fuzz.sh "$secs" 2>&1 | tee "$out/fuzz.log"
	ok=$(grep -cE '^fuzz_[a-z_]+: .*: ok$' "$out/fuzz.log")
	fail=$(grep -cE '^fuzz_[a-z_]+: .*: FAILED' "$out/fuzz.log")
	if [ "$ok" -eq 0 ] && [ "$fail" -eq 0 ]; then
		broken+=("fuzz (build)")
		failed=$((failed + 1))
		return
	fi
	passed=$((passed + ok))
	failed=$((failed + fail))
	[ "$fail" -gt 0 ] && broken+=("fuzz")
}
if [ -n "$fuzz_why" ]; then
	skip_stage fuzz "$fuzz_why"
else
	fuzz
fi

release_default_prefix

# What the tests left behind. While another run holds the lock, what is
# new may be its own (a namespace between two steps of its test): wait
# until it goes or that run ends, polling, before counting it.
left_now() {
	lr_leftovers | sort >"$out/leftovers-after.txt"
	comm -13 "$out/leftovers-before.txt" "$out/leftovers-after.txt"
}
exec 9>&-
left=$(left_now)
while [ -n "$left" ] && ! flock -x -n "$lock" true; do
	sleep 2
	left=$(left_now)
done
if [ -n "$left" ]; then
	echo "=== left behind by the run:"
	echo "$left"
	broken+=("leftovers")
	failed=$((failed + 1))
fi

summary
[ "$failed" -eq 0 ]
