#!/usr/bin/env bash
# The programs behave like Unix tools (issue 39), each run checked for its
# exit status and for what it printed where (fast suite):
#
#   test_apps_cli.sh BUILD_DIR VERSION
#
#   version   every lr-* program: --version and -V exit 0 and print four
#             lines on stdout, nothing on stderr: "lr-<name> VERSION",
#             "git: ...", "DPDK compatibility: ...", "drivers: ..."
#   help      -h exits 0 with the usage on stdout, nothing on stderr
#   unknown   an unknown option, among the EAL's options and among the
#             program's own (after --), exits 2 with an error on stderr
#             naming it, nothing on stdout, and nothing after the error
#             in the merged output (lr-l2fwd: but its line pointing at -h)
#   no_driver lr-l2fwd and lr-pktgen with --vdev net_nosuch0 exit 2, the
#             error names the --vdev and the driver and lists the drivers
#             --version lists, plugins included, and is the last line
#   profile   lr-pktgen: a missing --profile exits 2 naming the file and
#             "No such file or directory" (no line -1); a syntax error
#             exits 2 naming FILE:LINE:COLUMN
#   runtime   a run-time failure exits 1 with the error last: lr-l2fwd with
#             a fixed pool the memory cannot hold, lr-pktgen with a
#             control socket in a folder that does not exist,
#             lr-pktgen-ctl with no lr-pktgen behind the socket
#   telemetry lr-telemetry with no process behind its socket exits 2, the
#             path named last
#   usage_l2fwd  lr-l2fwd's usage errors (an odd port count, a port that
#             does not exist) exit 2 and print nothing after the error: no
#             "MAC updating", no "Bye..."
#   bad_value the benchmark programs' own options with a bad value (out of
#             range, not a number, too large for 32 bits) or an argument
#             left over exit 2 with the option and the value (or the
#             argument) on stderr, nothing on stdout
#   probe_stop lr-ring-bench --line-rtt N --every MS (a probe that runs
#             until stopped) prints a figure every MS ms and exits 0 at
#             SIGINT, nothing on stderr
#
# Every run has its own --file-prefix (with this shell's pid), ordinary
# memory (--no-huge -m 64) and a bound (timeout) only a hang reaches;
# nothing waits a fixed time. Programs run through $LR_EXE_WRAPPER (the
# cross build's emulator) when it is set. Exit 0 passed, 1 failed.
set -u
BUILD=${1:?usage: test_apps_cli.sh BUILD_DIR VERSION}
VERSION=${2:?usage: test_apps_cli.sh BUILD_DIR VERSION [pktgen|no-pktgen]}
# no-pktgen: the build has no lr-pktgen (no jansson: the ppc64le cross
# build); its checks are left out, saying so.
HAVE_PKTGEN=${3:-pktgen}
A=$BUILD/apps
L2FWD=$A/l2fwd/lr-l2fwd
PKTGEN=$A/pktgen/lr-pktgen
CTL=$A/pktgen/lr-pktgen-ctl
PROGS="$A/eal-demo/lr-eal-demo $A/mempool-bench/lr-mempool-bench
	$A/pagealloc-bench/lr-pagealloc-bench
	$A/page-pool-bench/lr-page-pool-bench $A/elastic-bench/lr-elastic-bench
	$A/ring-bench/lr-ring-bench $L2FWD $A/l2fwd/lr-l2fwd-ring-bench
	$CTL"
# lr-pktgen-plot: a python3 script, not run through the cross build's
# emulator.
[ -z "${LR_EXE_WRAPPER:-}" ] && PROGS="$PROGS $A/pktgen/lr-pktgen-plot"
TELEMETRY=$A/telemetry/lr-telemetry
if [ "$HAVE_PKTGEN" = pktgen ]; then
	PROGS="$PROGS $PKTGEN $TELEMETRY"
else
	echo "note: lr-pktgen and lr-telemetry not in this build (no jansson): their checks left out"
fi
# shellcheck disable=SC2206
W=(${LR_EXE_WRAPPER:-})
TMP=$(mktemp -d "${TMPDIR:-/tmp}/lr-apps-cli.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
failed=0
runs=0

pass() { echo "ok: $*"; }
fail() {
	echo "FAIL: $*"
	for f in out err all; do
		[ -s "$TMP/$f" ] && { echo "--- $f:"; cat "$TMP/$f"; }
	done
	failed=1
}

# run PROGRAM ARGS...: $TMP/out (stdout), $TMP/err (stderr), $TMP/all
# (both, in the order written: a second run), $rc. EAL runs get their own
# prefix from the caller (eal_args).
run() {
	timeout -s KILL 120 "${W[@]}" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	timeout -s KILL 120 "${W[@]}" "$@" >"$TMP/all" 2>&1
	[ $? -eq "$rc" ] || rc=-1 # not the same twice: a flaky program
}

# EAL options of run N: ordinary memory, a prefix of its own.
eal_args() {
	runs=$((runs + 1))
	echo "--no-huge -m 64 --file-prefix=apps_cli_$$_$runs"
}

# last_line FILE: its last non-empty line.
last_line() { grep -v '^$' "$1" | tail -n 1; }

check_version() {
	local p=$1 name opt
	name=$(basename "$p")
	for opt in --version -V; do
		run "$p" "$opt"
		if [ "$rc" -ne 0 ] || [ -s "$TMP/err" ] ||
			[ "$(wc -l <"$TMP/out")" -ne 4 ] ||
			[ "$(sed -n 1p "$TMP/out")" != "$name $VERSION" ] ||
			! sed -n 2p "$TMP/out" | grep -qE '^git: [^ ]+$' ||
			! sed -n 3p "$TMP/out" | grep -q '^DPDK compatibility: .*EAL options.*devargs.*net_dpdk' ||
			! sed -n 4p "$TMP/out" | grep -qE '^drivers: [^ ]'; then
			fail "version: $name $opt: exit $rc"
			return
		fi
	done
	pass "version: $name: $(sed -n 1p "$TMP/out"), $(sed -n 2p "$TMP/out")"
}

check_help() {
	local p=$1 name opt=-h
	name=$(basename "$p")
	run "$p" $opt
	if [ "$rc" -ne 0 ] || [ -s "$TMP/err" ] ||
		! grep -qE -- '-h, --help|usage' "$TMP/out"; then
		fail "help: $name $opt: exit $rc"
		return
	fi
	pass "help: $name $opt"
}

# unknown_ok NAME OPTION: the run refused OPTION as a usage error, said so
# on stderr, printed nothing on stdout and nothing after the error.
unknown_ok() {
	local name=$1 opt=$2 last
	last=$(last_line "$TMP/all")
	if [ "$rc" -ne 2 ] || [ -s "$TMP/out" ] ||
		! grep -qF -- "'$opt'" "$TMP/err"; then
		fail "unknown: $name $opt: exit $rc (want 2, the option named on stderr, stdout empty)"
		return 1
	fi
	case $last in
	*"'$opt'"* | *"--help lists the options)" | "run 'lr-l2fwd -- -h' for the options") ;;
	*)
		fail "unknown: $name $opt: printed after the error: '$last'"
		return 1
		;;
	esac
	return 0
}

check_unknown() {
	local p=$1 name
	name=$(basename "$p")
	run "$p" --bogus-option
	unknown_ok "$name" --bogus-option || return
	if [ "$name" != lr-pktgen-ctl ] && [ "$name" != lr-pktgen-plot ] &&
		[ "$name" != lr-telemetry ]; then
		# shellcheck disable=SC2046
		run "$p" $(eal_args) -l 0 -- --bogus-option
		unknown_ok "$name" --bogus-option || return
		# shellcheck disable=SC2046
		run "$p" $(eal_args) -l 0 -- -Z
		unknown_ok "$name" -Z || return
	fi
	pass "unknown: $name: exit 2, '$(head -n 1 "$TMP/err")'"
}

# The drivers --version lists ("A B; plugins: C").
drivers_of() { "${W[@]}" "$1" --version | sed -n 's/^drivers: //p'; }

# check_no_driver PROGRAM ITS-OPTIONS...
check_no_driver() {
	local p=$1 name drivers want
	shift
	name=$(basename "$p")
	drivers=$(drivers_of "$p")
	want="--vdev 'net_nosuch0': no driver 'net_nosuch' (drivers: $drivers)"
	# shellcheck disable=SC2046
	run "$p" $(eal_args) -l 0 --vdev net_nosuch0 -- "$@"
	if [ "$rc" -ne 2 ] || ! grep -qF -- "$want" "$TMP/err" ||
		! last_line "$TMP/all" | grep -qF -- "$want"; then
		fail "no_driver: $name: exit $rc, want 2 and the last line '$want'"
		return
	fi
	case $drivers in
	*net_null*net_ring*) ;;
	*)
		fail "no_driver: $name: --version lists '$drivers'"
		return
		;;
	esac
	pass "no_driver: $name: $want"
}

check_profile() {
	local f=$TMP/none.json bad=$TMP/bad.json
	# shellcheck disable=SC2046
	run "$PKTGEN" $(eal_args) -l 0 --vdev net_null0 -- --count 1 \
		--profile "$f"
	if [ "$rc" -ne 2 ] ||
		! grep -qF -- "--profile '$f': cannot open: No such file or directory" "$TMP/err" ||
		grep -q 'line -1' "$TMP/all" || [ -s "$TMP/out" ]; then
		fail "profile: missing file: exit $rc"
		return
	fi
	printf '{"streams": [\n  {"size": 64,}\n]}\n' >"$bad"
	# shellcheck disable=SC2046
	run "$PKTGEN" $(eal_args) -l 0 --vdev net_null0 -- --count 1 \
		--profile "$bad"
	if [ "$rc" -ne 2 ] ||
		! grep -qE -- "--profile $bad:2:[0-9]+: " "$TMP/err" ||
		! last_line "$TMP/all" | grep -qF -- "$bad:2:"; then
		fail "profile: syntax error: exit $rc, want 2 and $bad:2:COLUMN"
		return
	fi
	pass "profile: $(head -n 1 "$TMP/err")"
}

# runtime_ok NAME WHAT TEXT: exit 1, TEXT on stderr and the last line.
runtime_ok() {
	if [ "$rc" -ne 1 ] || ! grep -qF -- "$3" "$TMP/err" ||
		! last_line "$TMP/all" | grep -qF -- "$3"; then
		fail "runtime: $1 ($2): exit $rc, want 1 and '$3' last"
		return
	fi
	pass "runtime: $1 ($2): exit 1, '$(last_line "$TMP/all")'"
}

check_runtime() {
	# shellcheck disable=SC2046
	run "$L2FWD" $(eal_args) -l 0 --vdev net_null0 --vdev net_null1 -- \
		-p 0x3 --mbufs 16777216
	runtime_ok lr-l2fwd "a pool the memory cannot hold" \
		"cannot create mbuf pool"
	if [ "$HAVE_PKTGEN" = pktgen ]; then
		# shellcheck disable=SC2046
		run "$PKTGEN" $(eal_args) -l 0 --vdev net_null0 -- --count 1 \
			--quiet --ctl "$TMP/none/pg.sock"
		runtime_ok lr-pktgen "a control socket in no folder" \
			"--ctl '$TMP/none/pg.sock': No such file or directory"
	fi
	run "$CTL" "$TMP/nobody.sock" stats
	runtime_ok lr-pktgen-ctl "no lr-pktgen" \
		"'$TMP/nobody.sock': No such file or directory"
}

# lr-telemetry with no process behind the prefix: exit 2 (lr-telemetry(1)),
# the socket's path named, the error last.
check_telemetry() {
	local want="'$TMP/nobody.sock': No such file or directory"
	run "$TELEMETRY" -s "$TMP/nobody.sock" /info
	if [ "$rc" -ne 2 ] || [ -s "$TMP/out" ] ||
		! last_line "$TMP/all" | grep -qF -- "$want"; then
		fail "telemetry: no process: exit $rc, want 2 and '$want' last"
		return
	fi
	pass "telemetry: no process: exit 2, '$(last_line "$TMP/all")'"
}

check_usage_l2fwd() {
	local args what
	for args in "-p 0x1" "-p 0x4"; do
		# shellcheck disable=SC2046,SC2086
		run "$L2FWD" $(eal_args) -l 0 --vdev net_null0 --vdev net_null1 \
			-- $args
		what=$(last_line "$TMP/all")
		if [ "$rc" -ne 2 ] || grep -qE 'MAC updating|Bye|Closing port' "$TMP/all" ||
			! grep -qF -- "$what" "$TMP/err"; then
			fail "usage_l2fwd: $args: exit $rc, or something after the error"
			return
		fi
	done
	pass "usage_l2fwd: exit 2, the error last: '$what'"
}

# check_bad_value PROGRAM WANT ARGS...: the program's own ARGS (after the
# EAL's) refused as a usage error: exit 2, WANT on stderr, stdout empty.
check_bad_value() {
	local p=$1 want=$2 name
	shift 2
	name=$(basename "$p")
	# shellcheck disable=SC2046
	run "$p" $(eal_args) -l 0 -- "$@"
	if [ "$rc" -ne 2 ] || [ -s "$TMP/out" ] ||
		! grep -qF -- "$want" "$TMP/err"; then
		fail "bad_value: $name $*: exit $rc (want 2, '$want' on stderr, stdout empty)"
		return
	fi
	pass "bad_value: $name $*: exit 2, '$(head -n 1 "$TMP/err")'"
}

check_bad_values() {
	check_bad_value "$A/ring-bench/lr-ring-bench" \
		"--runs '0': expected a number from 1 to 31" --runs 0
	check_bad_value "$A/ring-bench/lr-ring-bench" \
		"--iterations '12x'" --iterations 12x
	check_bad_value "$A/ring-bench/lr-ring-bench" \
		"lr-ring-bench: unexpected argument 'stray'" stray
	check_bad_value "$A/ring-bench/lr-ring-bench" \
		"--line-rtt '0': expected a number from 1" --line-rtt 0
	check_bad_value "$A/ring-bench/lr-ring-bench" \
		"lr-ring-bench: --every needs --line-rtt" --every 100
	check_bad_value "$A/ring-bench/lr-ring-bench" \
		"--every '60001': expected a number from 1 to 60000" \
		--line-rtt 10 --every 60001
	check_bad_value "$A/mempool-bench/lr-mempool-bench" \
		"--objs '5': expected a number from 128" --objs 5
	check_bad_value "$A/page-pool-bench/lr-page-pool-bench" "-r '0'" -r 0
	check_bad_value "$A/page-pool-bench/lr-page-pool-bench" \
		"--repeats '0': expected a number from 1" --repeats=0
	check_bad_value "$A/mempool-bench/lr-mempool-bench" \
		"lr-mempool-bench: option '--reps' needs a value" --reps
	check_bad_value "$A/pagealloc-bench/lr-pagealloc-bench" \
		"--window-ms '0': expected a number from 1 to 60000" \
		--window-ms 0
	check_bad_value "$A/pagealloc-bench/lr-pagealloc-bench" \
		"--max-batch '99999'" --max-batch 99999
	check_bad_value "$A/pagealloc-bench/lr-pagealloc-bench" \
		"--orders '7'" --orders 7
	check_bad_value "$A/elastic-bench/lr-elastic-bench" \
		"--mbufs '100': expected N or MIN-MAX with MIN <= MAX" \
		--mbufs 100
	check_bad_value "$A/elastic-bench/lr-elastic-bench" \
		"--bursts '100001'" --mbufs 1024 --bursts 100001
	check_bad_value "$A/elastic-bench/lr-elastic-bench" \
		"--period-ms '0': expected a number from 1" --mbufs 1024 \
		--period-ms 0
	check_bad_value "$A/elastic-bench/lr-elastic-bench" \
		"lr-elastic-bench: --mbufs is required" --bursts 3
	# 2^32 + 512 is not 512
	check_bad_value "$A/l2fwd/lr-l2fwd-ring-bench" \
		"--inflight '4294967808'" --inflight 4294967808
	check_bad_value "$A/l2fwd/lr-l2fwd-ring-bench" \
		"--duration 'soon'" --duration soon
}

check_probe_stop() {
	local p=$A/ring-bench/lr-ring-bench pid n=0
	"${W[@]}" "$p" -l 0-1 $(eal_args) -- --line-rtt 1000 --every 20 \
		>"$TMP/out" 2>"$TMP/err" &
	pid=$!
	# until two figures are out (or it ended), at most 60 s
	while [ "$n" -lt 2 ] && kill -0 "$pid" 2>/dev/null; do
		n=$(grep -c '^(c) line round trip: ' "$TMP/out")
		[ "$SECONDS" -gt $((t0 + 60)) ] && break
		sleep 0.05
	done
	kill -INT "$pid" 2>/dev/null
	wait "$pid"
	rc=$?
	if [ "$n" -lt 2 ] || [ "$rc" -ne 0 ] || [ -s "$TMP/err" ]; then
		fail "probe_stop: $n figures, exit $rc (want 2 or more, 0)"
		return
	fi
	pass "probe_stop: $(grep -c '^(c) ' "$TMP/out") figures, exit 0 at SIGINT"
}

for p in $PROGS; do
	[ -x "$p" ] || {
		echo "FAIL: $p not built"
		exit 1
	}
done
for p in $PROGS; do
	check_version "$p"
	check_help "$p"
	check_unknown "$p"
done
check_no_driver "$L2FWD" -p 0x1
if [ "$HAVE_PKTGEN" = pktgen ]; then
	check_no_driver "$PKTGEN" --count 1
	check_profile
	check_telemetry
fi
check_runtime
check_usage_l2fwd
check_bad_values
t0=$SECONDS
check_probe_stop
exit $failed
