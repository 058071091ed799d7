#!/usr/bin/env bash
# lr-telemetry against a real telemetry server and real clients (driver
# suite):
#
#   test_telemetry_client.sh LR_TELEMETRY [l2fwd LR_L2FWD]
#
# The process under test is the peer (start_peer ... stop_peer below):
# DPDK's dpdk-testpmd on two net_null ports, driven on its interactive
# prompt; or, with `l2fwd LR_L2FWD`, lr-l2fwd on two net_null ports with
# linerate's telemetry server, which redefines those functions. lr-l2fwd
# forwards from its start to its exit (no stop in between): its `exact`
# part brackets each counter of lr-telemetry between two of
# dpdk-telemetry.py's (before and after), takes its rate reference from
# its own /linerate/l2fwd/stats counter (port 0's rx), checks the
# /linerate/* families (names, types, labels; promtool), and after its
# clean exit its final totals and no /var/run/dpdk/PREFIX left; `generic`
# and `bad input` run with the testpmd peer only.
#
#   query      one-shot queries (pretty and --json), commands on stdin,
#              null replies (exit 1)
#   exporter   promtool check metrics passes on GET /metrics; 8 scrapers
#              at once all answered; 404, 405, 431 for a request head over
#              8 KiB, 408 for a client that stalls (while others are
#              served)
#   rate       a real Prometheus (scrape interval 1 s, its own storage and
#              port) scrapes the exporter during forwarding; the PromQL
#              rate of linerate_port_rx_packets_total{port="0"} over its
#              last samples lies within what the same counter read by
#              DPDK's own dpdk-telemetry.py every 50 ms allows, and so does
#              every sample: each scrape read the counter between its start
#              and end, each reference read between its request and its
#              reply, so the bounds follow from times, not from a
#              tolerance a busy machine can exceed
#   exact      forwarding stopped: lr-telemetry's replies equal
#              dpdk-telemetry.py's (parsed JSON, several commands), and the
#              port's received packets equal testpmd's `show port stats`
#   gone       the peer ended: the exporter answers linerate_up 0; a
#              one-shot query exits 2 naming the path
#   generic    /linerate/... commands (from a small server of the shapes
#              linerate's may take): nested objects and arrays as names
#              and node/order/index labels, _total and _cycles counters,
#              booleans; ids, strings and null replies left out; a pool
#              name with a quote and a backslash escaped; promtool passes
#   bad input  an unknown prefix and a dead socket (exit 2, the path
#              named), a reply that is not JSON, one longer than the
#              peer's max_output_len and one cut at it (exit 1, each said),
#              bad --prometheus addresses (exit 2, named), a port in use
#              (exit 1), 0.0.0.0 (a note, and it serves)
#
# Nothing waits a fixed time for a program: each step polls for a
# readiness line or a condition, with a generous deadline. Everything
# started is killed and every folder removed, also on failure.
# Exit 0 passed, 1 failed, 77 skipped (with the reason).
set -u
LRT=${1:?usage: test_telemetry_client.sh LR_TELEMETRY [l2fwd LR_L2FWD]}
PEER=${2:-testpmd}
L2FWD=${3:-}
skip() {
	echo "SKIP: $*"
	exit 77
}
case $PEER in
testpmd)
	command -v dpdk-testpmd >/dev/null || skip "no dpdk-testpmd (Debian: dpdk)" ;;
l2fwd)
	[ -x "$L2FWD" ] || skip "no lr-l2fwd at '$L2FWD'" ;;
*)
	echo "FAIL: unknown peer '$PEER' (testpmd or l2fwd)"
	exit 1 ;;
esac
command -v dpdk-telemetry.py >/dev/null ||
	skip "no dpdk-telemetry.py (Debian: dpdk)"
command -v prometheus >/dev/null && command -v promtool >/dev/null ||
	skip "no prometheus or promtool (Debian: prometheus)"
command -v curl >/dev/null || skip "no curl"
[ "$(id -u)" = 0 ] || skip "needs root (DPDK's runtime folder /var/run/dpdk)"
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs (testpmd: main + 1 forwarding lcore)"

T0=$EPOCHREALTIME
TMP=$(mktemp -d "${TMPDIR:-/tmp}/lr-telclient.XXXXXX")
PREFIX=lr_telclient_${PEER}_$$
RUNDIR=/var/run/dpdk/$PREFIX
PIDS=()
failed=0

cleanup() {
	local p
	exec 3>&- 2>/dev/null
	stop_peer
	for p in "${PIDS[@]}"; do
		kill -9 "$p" 2>/dev/null
	done
	wait 2>/dev/null
	rm -rf "$TMP" "$RUNDIR"
}
trap cleanup EXIT

pass() { echo "ok: $*"; }
fail() {
	echo "FAIL: $*"
	failed=1
}
die() {
	echo "FAIL: $*"
	[ -f "$TMP/peer.log" ] && { echo "--- peer log (tail):"; tail -20 "$TMP/peer.log"; }
	exit 1
}
# A pause between polls (0.1 s), without a sleep process.
tick() { read -r -t 0.1 <> <(:) || true; }

# Wait up to 30 s for the peer, told to stop, to exit; then kill it. Its
# exit status.
reap_peer() {
	local end=$((SECONDS + 30))
	while kill -0 "$PEER_PID" 2>/dev/null && [ $SECONDS -lt $end ]; do
		tick
	done
	kill -9 "$PEER_PID" 2>/dev/null
	wait "$PEER_PID" 2>/dev/null
}
# until_ok SECONDS COMMAND...: poll COMMAND until it succeeds: 0, or 1.
until_ok() {
	local end=$((SECONDS + $1))
	shift
	while [ $SECONDS -lt $end ]; do
		"$@" && return 0
		tick
	done
	return 1
}
elapsed() { python3 -c "print(f'{$EPOCHREALTIME - $1:.1f}')"; }

# ---- The peer: dpdk-testpmd (replace these five for another peer) ----
PEER_PID=
PEER_SOCK=$RUNDIR/dpdk_telemetry.v2

# Start the process under test with prefix $PREFIX, its ports not yet
# forwarding; return when its telemetry socket answers.
start_peer() {
	mkfifo "$TMP/peer.in" || die "mkfifo"
	# --no-huge: no hugepage file (--in-memory refuses --no-huge); the
	# runtime folder goes in cleanup.
	stdbuf -oL -eL dpdk-testpmd -l 0,1 --no-huge -m 256 \
		--no-pci --file-prefix="$PREFIX" --vdev net_null0 \
		--vdev net_null1 -- -i --forward-mode=io --nb-cores=1 \
		--total-num-mbufs=8192 <"$TMP/peer.in" >"$TMP/peer.log" 2>&1 &
	PEER_PID=$!
	exec 3>"$TMP/peer.in"
	peer_ready() {
		kill -0 "$PEER_PID" 2>/dev/null || die "testpmd exited"
		grep -q 'testpmd>' "$TMP/peer.log"
	}
	until_ok 60 peer_ready || die "testpmd gave no prompt"
	until_ok 60 "$LRT" -f "$PREFIX" /info >/dev/null 2>&1 ||
		die "no telemetry socket at $PEER_SOCK"
}

# peer_said N PATTERN: the peer's log has more than N lines matching.
peer_said() { [ "$(grep -cE -- "$2" "$TMP/peer.log")" -gt "$1" ]; }

# Start forwarding; return once port 0 has received packets.
peer_traffic_start() {
	echo start >&3
	rx_moving() {
		local n
		n=$("$LRT" --json -f "$PREFIX" /ethdev/stats,0 2>/dev/null |
			sed -n 's/.*"ipackets":\([0-9]*\).*/\1/p')
		[ "${n:-0}" -gt 0 ]
	}
	until_ok 60 rx_moving || die "no packet forwarded after start"
}

# Stop forwarding; return once the peer says its counters are final.
peer_traffic_stop() {
	local n
	n=$(grep -c 'Accumulated forward statistics' "$TMP/peer.log")
	echo stop >&3
	until_ok 60 peer_said "$n" 'Accumulated forward statistics' ||
		die "testpmd did not stop"
}

# The packets port $1 received, as the peer itself reports them.
peer_rx_packets() {
	local n
	n=$(grep -c 'RX-packets:' "$TMP/peer.log")
	echo "show port stats $1" >&3
	until_ok 60 peer_said "$n" 'RX-packets:' || die "no port stats"
	grep 'RX-packets:' "$TMP/peer.log" | tail -1 |
		sed -E 's/.*RX-packets: +([0-9]+).*/\1/'
}

# End the process under test (nothing when it is not running).
stop_peer() {
	[ -n "$PEER_PID" ] || return 0
	echo quit >&3 2>/dev/null
	exec 3>&- 2>/dev/null
	reap_peer
	PEER_PID=
}

# The rate reference: asked by dpdk-telemetry.py every 50 ms, and the
# counter in its reply (a Python function of the parsed reply).
REF_CMD=/ethdev/stats,0
REF_VALUE='lambda r: r["/ethdev/stats"]["ipackets"]'
POOL_OBJS=8192

# ---- The peer: lr-l2fwd ----
if [ "$PEER" = l2fwd ]; then
# lr-l2fwd's own count of what it received on port 0 (its rate reference:
# the app's counter against the port's, read at the same instants).
REF_CMD=/linerate/l2fwd/stats
REF_VALUE='lambda r: r["/linerate/l2fwd/stats"]["port0"]["rx_packets_total"]'

# Its mbuf pool is elastic (a page pool under it): /mempool/info's size is
# its maximum, rounded up to whole blocks; check_families checks it
# against /linerate/mempool/elastic's max_objs.
POOL_SIZE_RE='[1-9][0-9]*'

start_peer() {
	# One lcore (both ports on it): the other CPU stays for the
	# telemetry thread, the exporter and Prometheus.
	"$L2FWD" -l 0 --no-huge -m 256 --file-prefix "$PREFIX" \
		--vdev net_null0 --vdev net_null1 -- -p 3 \
		--mbufs "$POOL_OBJS-$((2 * POOL_OBJS))" >"$TMP/peer.log" 2>&1 &
	PEER_PID=$!
	peer_ready() {
		kill -0 "$PEER_PID" 2>/dev/null || die "lr-l2fwd exited"
		"$LRT" -f "$PREFIX" /info >/dev/null 2>&1
	}
	until_ok 60 peer_ready || die "no telemetry socket at $PEER_SOCK"
}

# It forwards from its start: return once port 0 has received packets.
peer_traffic_start() {
	rx_moving() {
		local n
		n=$("$LRT" --json -f "$PREFIX" /ethdev/stats,0 2>/dev/null |
			sed -n 's/.*"ipackets":\([0-9]*\).*/\1/p')
		[ "${n:-0}" -gt 0 ]
	}
	until_ok 60 rx_moving || die "no packet forwarded"
}

# No stop while it lives: its counters stop at its exit (stop_peer).
peer_traffic_stop() { :; }

# The packets port $1 received, from its final lines (after stop_peer).
peer_rx_packets() {
	awk -v p="$1" '/^Statistics for port / { cur = $4 }
		cur == p && /^Packets received:/ { print $3 }' \
		"$TMP/peer.log" | tail -1
}

# SIGINT: lr-l2fwd prints its totals and exits cleanly; its status in
# PEER_STATUS.
stop_peer() {
	[ -n "$PEER_PID" ] || return 0
	kill -INT "$PEER_PID" 2>/dev/null
	reap_peer
	PEER_STATUS=$?
	PEER_PID=
}
fi

# ---- Helpers ----
# A free TCP port on 127.0.0.1 (the kernel's pick, released at once).
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# run ARGS...: lr-telemetry's stdout, stderr and exit status in out, err, rc.
run() {
	timeout -s KILL 60 "$LRT" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
}

# expect RC TEXT WHAT: the last run exited RC and said TEXT on stderr.
expect() {
	if [ "$rc" -eq "$1" ] && grep -qF -- "$2" "$TMP/err"; then
		pass "$3: exit $rc, '$(head -n 1 "$TMP/err")'"
	else
		fail "$3: exit $rc (want $1 and '$2'): $(cat "$TMP/err")"
	fi
}

# start_exporter NAME ARGS...: lr-telemetry --prometheus in the
# background; its URL in EXP_URL once it says it serves.
start_exporter() {
	local name=$1
	shift
	"$LRT" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
	PIDS+=($!)
	EXP_PID=$!
	until_ok 30 grep -q '^serving http' "$TMP/$name.out" ||
		die "$name: the exporter did not start: $(cat "$TMP/$name.err")"
	EXP_URL=$(sed -n 's/^serving \(http:[^ ]*\) .*/\1/p' "$TMP/$name.out")
	EXP_HOSTPORT=${EXP_URL#http://}
	EXP_HOSTPORT=${EXP_HOSTPORT%/metrics}
}

# The HTTP status of curl ARGS....
http_status() { curl -s -o /dev/null -w '%{http_code}' --max-time 30 "$@"; }

# ---- query ----
# On a terminal (script(1) gives it one): the greeting, a prompt before
# each command, a reply, a line not a command refused, 'quit'.
check_prompt() {
	if ! command -v script >/dev/null; then
		echo "note: no script(1) (Debian: bsdutils): the prompt is not checked"
		return
	fi
	printf '/ethdev/list\nbogus\nquit\n' | timeout -s KILL 60 \
		script -qec "$LRT -f $PREFIX" /dev/null | tr -d '\r' >"$TMP/tty"
	# The terminal echoes the lines piped in whenever they arrive, which
	# may be between a prompt and its reply: match the pieces, not whole
	# lines.
	local prompts
	prompts=$(grep -o -- '--> ' "$TMP/tty" | wc -l)
	if grep -q "Connected to '$PEER_SOCK': .*, pid [0-9]* ('quit' ends)" "$TMP/tty" &&
		grep -q '^  "/ethdev/list": \[$' "$TMP/tty" &&
		grep -q "lr-telemetry: 'bogus': a command begins with '/'" "$TMP/tty" &&
		[ "$prompts" -eq 3 ]; then
		pass "query: a prompt on a terminal: $prompts prompts, a reply, 'bogus' refused"
	else
		fail "query: prompt: $(cat "$TMP/tty")"
	fi
}

check_query() {
	run -f "$PREFIX" /ethdev/list /ethdev/link_status,0
	if [ "$rc" -eq 0 ] && [ ! -s "$TMP/err" ] &&
		python3 -c 'import json,sys
d=sys.stdin.read().replace("}\n{", "}\n\x00{").split("\x00")
assert json.loads(d[0]) == {"/ethdev/list": [0, 1]}, d[0]
assert json.loads(d[1])["/ethdev/link_status"]["status"] == "UP"' <"$TMP/out"; then
		pass "query: /ethdev/list, /ethdev/link_status,0 (pretty)"
	else
		fail "query: pretty: exit $rc: $(cat "$TMP/out" "$TMP/err")"
	fi
	printf '/info\n\n/mempool/list\nquit\n/never\n' |
		timeout -s KILL 60 "$LRT" --json -f "$PREFIX" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ "$rc" -eq 0 ] && [ "$(wc -l <"$TMP/out")" -eq 2 ] &&
		grep -q '^{"/info":{"version":"[^"]*","pid":[0-9]*,"max_output_len":[0-9]*}}$' "$TMP/out" &&
		grep -q '^{"/mempool/list":\["' "$TMP/out"; then
		pass "query: stdin, --json: $(head -n 1 "$TMP/out")"
	else
		fail "query: stdin: exit $rc: $(cat "$TMP/out" "$TMP/err")"
	fi
	check_prompt
	run --json -f "$PREFIX" /nosuch /ethdev/stats,99
	if [ "$rc" -eq 1 ] && [ "$(cat "$TMP/out")" = '{"/nosuch":null}
{"/ethdev/stats":null}' ]; then
		pass "query: null replies printed, exit 1: $(head -n 1 "$TMP/err")"
	else
		fail "query: null replies: exit $rc: $(cat "$TMP/out" "$TMP/err")"
	fi
	run -f "$PREFIX" "/$(head -c 60 /dev/zero | tr '\0' x)"
	expect 2 "longer than the server reads" "query: a command over 55 bytes"
}

# ---- exporter ----
# A client that sends half a request head and waits: 408 after 10 s,
# while others are served. Writes its status line and seconds to $1.
stalled_client() {
	python3 - "$1" "$2" <<'EOF' &
import socket, sys, time
host, port = sys.argv[2].split("//")[1].split("/")[0].rsplit(":", 1)
s = socket.create_connection((host, int(port)))
t = time.monotonic()
s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
s.settimeout(60)
data = s.recv(4096)
open(sys.argv[1], "w").write("%s %.1f\n" % (
	data.split(b"\r\n")[0].decode(), time.monotonic() - t))
EOF
	PIDS+=($!)
	STALL_PID=$!
}

check_exporter() {
	local i ok=0 st big curls=()
	stalled_client "$TMP/stall" "$EXP_URL"
	curl -s --max-time 30 "$EXP_URL" >"$TMP/metrics.txt"
	if promtool check metrics <"$TMP/metrics.txt" >"$TMP/promtool.out" 2>&1 &&
		grep -q '^linerate_up 1$' "$TMP/metrics.txt" &&
		grep -qE '^linerate_port_rx_packets_total\{port="0"\} [1-9]' "$TMP/metrics.txt" &&
		grep -qE '^linerate_port_xstats_total\{port="1",stat="rx_good_packets"\} [0-9]' "$TMP/metrics.txt" &&
		grep -qE "^linerate_mempool_objects\\{pool=\"[^\"]+\"\\} ${POOL_SIZE_RE:-$POOL_OBJS}\$" "$TMP/metrics.txt"; then
		pass "exporter: promtool check metrics passes on $(grep -vc '^#' "$TMP/metrics.txt") samples"
	else
		fail "exporter: promtool or samples: $(cat "$TMP/promtool.out"; head -30 "$TMP/metrics.txt")"
	fi
	for i in $(seq 8); do
		curl -s -o "$TMP/par.$i" -w '%{http_code}\n' --max-time 30 \
			"$EXP_URL" >"$TMP/par.$i.code" &
		curls+=($!)
	done
	wait "${curls[@]}"
	for i in $(seq 8); do
		[ "$(cat "$TMP/par.$i.code")" = 200 ] &&
			grep -q '^linerate_up 1$' "$TMP/par.$i" && ok=$((ok + 1))
	done
	[ $ok -eq 8 ] && pass "exporter: 8 scrapes at once, all 200 with linerate_up 1" ||
		fail "exporter: $ok of 8 parallel scrapes answered"
	st=$(http_status "${EXP_URL%/metrics}/other")
	[ "$st" = 404 ] && pass "exporter: GET /other: 404" || fail "exporter: GET /other: $st"
	st=$(http_status -X POST -d x "$EXP_URL")
	[ "$st" = 405 ] && pass "exporter: POST /metrics: 405" || fail "exporter: POST: $st"
	big=$(head -c 9000 /dev/zero | tr '\0' a)
	st=$(http_status -H "X-Big: $big" "$EXP_URL")
	[ "$st" = 431 ] && pass "exporter: a 9000-byte header: 431" || fail "exporter: a big request: $st"
}

check_stalled() {
	until_ok 40 test -s "$TMP/stall" || true
	if grep -qE '^HTTP/1.1 408 [A-Za-z ]+ (9|1[0-9])\.[0-9]$' "$TMP/stall"; then
		pass "exporter: a stalled client: $(cat "$TMP/stall") s (others served meanwhile)"
	else
		fail "exporter: a stalled client: '$(cat "$TMP/stall" 2>/dev/null)'"
	fi
}

# ---- rate ----
# dpdk-telemetry.py asked for /ethdev/stats,0 every 50 ms: each request's
# time (epoch seconds) into $TMP/ref.sent before it is written, each reply
# line stamped with the time it came into $TMP/ref.
start_reference() {
	# The loop ends at $TMP/ref.stop: dpdk-telemetry.py reads the end of
	# its input and exits, and the stamping loop after it.
	(while [ ! -e "$TMP/ref.stop" ]; do
		echo "$EPOCHREALTIME" >>"$TMP/ref.sent"
		echo "$REF_CMD"
		read -r -t 0.05 <> <(:)
	done | PYTHONUNBUFFERED=1 dpdk-telemetry.py -f "$PREFIX" |
		while read -r l; do echo "$EPOCHREALTIME $l"; done \
			>"$TMP/ref") 2>"$TMP/ref.err" &
	PIDS+=($!)
	REF_PID=$!
}

check_rate() {
	local pport cfg q
	pport=$(free_port)
	cfg=$TMP/prometheus.yml
	cat >"$cfg" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: linerate
    static_configs:
      - targets: ['$EXP_HOSTPORT']
EOF
	promtool check config "$cfg" >/dev/null 2>&1 || die "prometheus config: $(promtool check config "$cfg" 2>&1)"
	prometheus --config.file="$cfg" --storage.tsdb.path="$TMP/prom" \
		--web.listen-address="127.0.0.1:$pport" >"$TMP/prom.log" 2>&1 &
	PIDS+=($!)
	PROM=http://127.0.0.1:$pport
	start_reference
	q='count_over_time(linerate_port_rx_packets_total{port="0"}[6s])'
	six_samples() {
		curl -s --max-time 5 "$PROM/api/v1/query" --data-urlencode "query=$q" |
			grep -qE '"value":\[[0-9.]+,"([6-9]|[1-9][0-9])"\]'
	}
	until_ok 45 six_samples ||
		die "rate: Prometheus has no 6 samples: $(tail -5 "$TMP/prom.log")"
	python3 - "$PROM" "$TMP/ref" "$REF_VALUE" <<'EOF' >"$TMP/rate.out" 2>&1
import json, sys, time, urllib.parse, urllib.request
prom, ref, REF = sys.argv[1], sys.argv[2], sys.argv[3]
t = time.time() - 0.5
def query(q, at):
	u = prom + "/api/v1/query?" + urllib.parse.urlencode({"query": q, "time": "%.3f" % at})
	return json.load(urllib.request.urlopen(u, timeout=10))["data"]["result"]
sel = 'linerate_port_rx_packets_total{port="0"}'
samples = [(float(a), float(b)) for a, b in query(sel + "[5s]", t)[0]["values"]]
durs = {float(a): float(b) for a, b in
	query('scrape_duration_seconds{job="linerate"}[5s]', t)[0]["values"]}
(ta, va), (tb, vb) = samples[0], samples[-1]
# The rate over exactly the samples' span (a range 1 ms longer, ending at
# the last one): PromQL extrapolates 1 ms over a range 1 ms longer, which
# leaves the samples' own slope.
span = tb - ta
rate = float(query("rate(%s[%dms])" % (sel, round(span * 1000) + 1), tb)[0]["value"][1])
# Prometheus stamps a sample with its scrape's start (in ms, aligned by up
# to 2 ms); the exporter read the counter before the scrape ended.
SLACK = 0.003
def read_in(x):
	return x - SLACK, x + durs[x] + SLACK
def load():
	# Reference read j: its request was written at sent[j] or later and
	# its reply stamped on arrival, so the counter was read in between.
	sent = [float(l) for l in open(ref + ".sent") if l.endswith("\n")]
	pts = []
	for j, line in enumerate(open(ref)):
		if not line.endswith("\n") or j >= len(sent):
			break
		got, js = line.split(" ", 1)
		pts.append((sent[j], float(got), eval(REF)(json.loads(js))))
	return pts
# Wait (a condition, not a time) for a reference read after the last scrape.
deadline = time.time() + 60
pts = load()
while not any(a >= read_in(tb)[1] for a, _, _ in pts) and time.time() < deadline:
	time.sleep(0.05)
	pts = load()
def low(x):
	# The counter was at least this at time x: reads that ended by x.
	v = [c for _, b, c in pts if b <= x]
	if not v:
		raise SystemExit("no reference read ended by %.3f (%d reads)" % (x, len(pts)))
	return max(v)
def high(x):
	# ... and at most this: reads that began at x or later.
	v = [c for a, _, c in pts if a >= x]
	if not v:
		raise SystemExit("no reference read began after %.3f (%d reads)" % (x, len(pts)))
	return min(v)
bad = []
for x, v in samples:
	lo, hi = low(read_in(x)[0]), high(read_in(x)[1])
	if not lo <= v <= hi:
		bad.append("the sample at %.3f is %d, not in [%d, %d]" % (x, v, lo, hi))
rlo = (low(read_in(tb)[0]) - high(read_in(ta)[1])) / span
rhi = (high(read_in(tb)[1]) - low(read_in(ta)[0])) / span
mid = (rlo + rhi) / 2
print("PromQL rate %.0f pps over %.3f s (%d samples%s); the reference "
      "%.0f..%.0f pps (%d reads): %.2f%% from its middle, bounds +-%.2f%%%s"
      % (rate, span, len(samples), "" if bad else ", each within the reference's reads around it",
         rlo, rhi, len(pts), abs(rate - mid) / mid * 100,
         (rhi - rlo) / 2 / mid * 100, "; " + "; ".join(bad) if bad else ""))
sys.exit(0 if not bad and len(samples) >= 4 and rlo <= rate <= rhi else 1)
EOF
	if [ $? -eq 0 ]; then
		pass "rate: $(cat "$TMP/rate.out")"
	else
		fail "rate: $(cat "$TMP/rate.out")"
	fi
	touch "$TMP/ref.stop"
	wait "$REF_PID"
}

# ---- exact (forwarding stopped) ----
check_exact() {
	local c a b same=0 n=0 cmds want
	cmds="/ethdev/stats,0 /ethdev/stats,1 /ethdev/xstats,0 /ethdev/info,1 /ethdev/link_status,0 /mempool/list /"
	for c in $cmds; do
		n=$((n + 1))
		a=$("$LRT" --json -f "$PREFIX" "$c" 2>&1)
		b=$(echo "$c" | dpdk-telemetry.py -f "$PREFIX" 2>&1)
		python3 -c 'import json,sys; sys.exit(json.loads(sys.argv[1]) != json.loads(sys.argv[2]))' \
			"$a" "$b" 2>/dev/null && same=$((same + 1)) ||
			fail "exact: $c: lr-telemetry '$a', dpdk-telemetry.py '$b'"
	done
	[ $same -eq $n ] && pass "exact: $n replies equal dpdk-telemetry.py's"
	want=$(peer_rx_packets 0)
	a=$("$LRT" --json -f "$PREFIX" /ethdev/stats,0 |
		sed -n 's/.*"ipackets":\([0-9]*\).*/\1/p')
	b=$(curl -s --max-time 30 "$EXP_URL" |
		sed -n 's/^linerate_port_rx_packets_total{port="0"} //p')
	if [ -n "$want" ] && [ "$want" -gt 0 ] && [ "$a" = "$want" ] && [ "$b" = "$want" ]; then
		pass "exact: port 0 received $want packets: testpmd, lr-telemetry and the exporter agree"
	else
		fail "exact: testpmd '$want', lr-telemetry '$a', exporter '$b'"
	fi
}

# ---- lr-l2fwd: agreement while forwarding, families, its exit ----
# Replies that do not move equal dpdk-telemetry.py's; each counter of
# lr-telemetry's /ethdev/stats lies between dpdk-telemetry.py's before and
# after it.
check_agree() {
	local c a b z same=0 n=0
	for c in /ethdev/info,1 /ethdev/link_status,0 /mempool/list / \
		/ethdev/stats,0 /ethdev/stats,1; do
		n=$((n + 1))
		a=$(echo "$c" | dpdk-telemetry.py -f "$PREFIX" 2>&1)
		b=$("$LRT" --json -f "$PREFIX" "$c" 2>&1)
		z=$(echo "$c" | dpdk-telemetry.py -f "$PREFIX" 2>&1)
		python3 - "$a" "$b" "$z" <<'EOF' && same=$((same + 1)) ||
import json, sys
a, b, z = (json.loads(x) for x in sys.argv[1:4])
def between(x, y, w):
	if isinstance(y, dict):
		return x.keys() == y.keys() == w.keys() and \
			all(between(x[k], y[k], w[k]) for k in y)
	if isinstance(y, list):
		return len(x) == len(y) == len(w) and \
			all(between(*t) for t in zip(x, y, w))
	if isinstance(y, int) and not isinstance(y, bool):
		return x <= y <= w
	return x == y == w
sys.exit(0 if between(a, b, z) else 1)
EOF
			fail "agree: $c: dpdk-telemetry.py '$a' then '$z', lr-telemetry '$b'"
	done
	[ $same -eq $n ] && pass "agree: $n replies of lr-telemetry equal dpdk-telemetry.py's (counters between two of its)"
}

# The /linerate/* families in the exporter's output: named and typed as
# Prometheus wants (counters _total, units in names, port/node/order/
# lcore/pool labels), the page-pool and elastic-pool ones included (the
# mbuf pool is elastic, on a page pool of its own).
check_families() {
	local line missing=
	while read -r line; do
		grep -qE -- "$line" "$TMP/metrics.txt" || missing="$missing
  $line"
	done <<'EOF'
^# TYPE linerate_l2fwd_stats_rx_packets_total counter$
^linerate_l2fwd_stats_rx_packets_total\{port="0"\} [1-9][0-9]*$
^linerate_l2fwd_stats_tx_packets_total\{port="1"\} [1-9][0-9]*$
^linerate_l2fwd_stats_dropped_packets_total\{port="0"\} [0-9]+$
^linerate_l2fwd_stats_rx_packets_all_ports_total [1-9][0-9]*$
^linerate_l2fwd_stats_elapsed_seconds [0-9.e+-]+$
^# TYPE linerate_l2fwd_stats_tx_packets_per_second gauge$
^linerate_pagealloc_buddyinfo_free_blocks\{node="0",order="10"\} [0-9]+$
^# TYPE linerate_pagealloc_stats_alloc_blocks_total counter$
^linerate_pagealloc_stats_alloc_blocks_total\{order="[0-9]+"\} [1-9][0-9]*$
^# TYPE linerate_pagealloc_stats_refills_total counter$
^linerate_pagealloc_pcp_high_blocks\{lcore="0",order="4"\} [0-9]+$
^# TYPE linerate_page_pool_info_allocated_pages_total counter$
^linerate_page_pool_info_held_pages\{pool="mbuf_pool"\} [1-9][0-9]*$
^# TYPE linerate_mempool_elastic_growths_total counter$
^linerate_mempool_elastic_objs\{pool="mbuf_pool"\} [1-9][0-9]*$
^linerate_mempool_elastic_idle_shrink_seconds\{pool="mbuf_pool"\} [0-9.e+-]+$
EOF
	if [ -n "$missing" ]; then
		fail "families: lines missing:$missing
--- got:
$(grep -E '^linerate_(l2fwd|page|mempool_elastic)' "$TMP/metrics.txt" | head -60)"
	elif grep -qE '^linerate_[a-z_]*(port|lcore|node)[0-9]|_ms[{ ]' "$TMP/metrics.txt"; then
		fail "families: an id or a unit abbreviated in a name: $(grep -E '^linerate_[a-z_]*(port|lcore|node)[0-9]|_ms[{ ]' "$TMP/metrics.txt" | head)"
	elif ! python3 - "$TMP/metrics.txt" >"$TMP/families.out" 2>&1 <<'EOF'
# Every family of linerate's own commands: a TYPE of counter or gauge,
# counters (and only they) named _total, no family with both labelled
# and unlabelled samples, no label but the per-what ones.
import re, sys
ours = re.compile(r"linerate_(pagealloc|page_pool|mempool_elastic|l2fwd|pktgen)_")
allowed = {"order", "node", "lcore", "port", "pool", "stream", "queue"}
types, labelled, bad, val = {}, {}, [], {}
for line in open(sys.argv[1]):
    m = re.match(r"# TYPE (\S+) (\S+)$", line)
    if m:
        types[m[1]] = m[2]
        continue
    m = re.match(r"([a-z_0-9]+)(\{[^}]*\})? ", line)
    if not m:
        continue
    val[m[1] + (m[2] or "")] = line.split()[-1]
    if not ours.match(m[1]):
        continue
    names = set(re.findall(r'([a-z_0-9]+)="', m[2] or ""))
    if names - allowed:
        bad.append(f"{m[1]}: label {sorted(names - allowed)}")
    labelled.setdefault(m[1], set()).add(bool(names))
for f, kinds in labelled.items():
    t = types.get(f)
    if t not in ("counter", "gauge"):
        bad.append(f"{f}: TYPE {t}")
    elif (t == "counter") != f.endswith("_total"):
        bad.append(f"{f}: a {t} named {f}")
    if len(kinds) > 1:
        bad.append(f"{f}: labelled and unlabelled samples")
# The elastic pool seen by /mempool/info and /linerate/mempool/elastic.
for a, b in (("objects", "max_objs"), ("populated_objects", "objs")):
    x = val.get(f'linerate_mempool_{a}{{pool="mbuf_pool"}}')
    y = val.get(f'linerate_mempool_elastic_{b}{{pool="mbuf_pool"}}')
    if x is None or x != y:
        bad.append(f"mbuf_pool: mempool {a} {x}, elastic {b} {y}")
print("\n".join(bad) if bad else f"{len(labelled)} families")
sys.exit(1 if bad else 0)
EOF
	then
		fail "families: $(cat "$TMP/families.out")"
	else
		pass "families: $(cat "$TMP/families.out") of /linerate/ ($(grep -cE '^linerate_(l2fwd|page|mempool_elastic)' "$TMP/metrics.txt") samples) typed, counters _total, labels per port/node/order/lcore/pool"
	fi
}

# After the clean exit: exit 0, the final totals at least the last counts
# read, and no /var/run/dpdk/PREFIX (the folder it made for its link).
check_exit() {
	local want=$1 last=$2
	[ "${PEER_STATUS:-1}" -eq 0 ] && pass "exit: lr-l2fwd exited 0 on SIGINT" ||
		fail "exit: lr-l2fwd exited ${PEER_STATUS:-?}: $(tail -5 "$TMP/peer.log")"
	if [ -n "$want" ] && [ -n "$last" ] && [ "$last" -gt 0 ] && [ "$last" -le "$want" ]; then
		pass "exit: port 0 received $want packets in all, lr-telemetry last read $last"
	else
		fail "exit: final '$want', lr-telemetry's last '$last'"
	fi
	[ ! -e "$RUNDIR" ] && pass "exit: no $RUNDIR left" ||
		fail "exit: $RUNDIR left: $(ls -la "$RUNDIR")"
}

# ---- bad input ----
# fake_server MODE PATH: a telemetry server that misbehaves (MODE notjson,
# long, cut) on one connection, in the background; returns once it
# listens.
fake_server() {
	python3 - "$1" "$2" <<'EOF' &
import os, socket, sys
mode, path = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.bind(path + ".new")
s.listen(1)
os.rename(path + ".new", path)
c, _ = s.accept()
c.send(b'{"version":"fake","pid":1,"max_output_len":100}')
c.recv(1024)
if mode == "notjson":
	c.send(b"this is not json")
elif mode == "long":
	c.send(b'{"/x":"' + b"a" * 150 + b'"}')
else:
	c.send((b'{"/x":"' + b"a" * 100)[:99])
c.recv(1024)
EOF
	PIDS+=($!)
	until_ok 30 test -S "$2" || die "fake server did not start"
}

check_bad_input() {
	local d=$TMP/fake m
	run -f "nosuch_$PREFIX" /info
	expect 2 "'/var/run/dpdk/nosuch_$PREFIX/dpdk_telemetry.v2': No such file or directory" "bad: unknown prefix"
	mkdir -p "$d"
	python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET); s.bind(sys.argv[1])' "$d/dead.sock"
	run -s "$d/dead.sock" /info
	expect 2 "'$d/dead.sock': Connection refused (no process answers" "bad: a dead socket"
	for m in notjson long cut; do
		fake_server $m "$d/$m.sock"
		run -s "$d/$m.sock" /x
		case $m in
		notjson) expect 1 "the reply to '/x' is not JSON" "bad: a reply not JSON" ;;
		long) expect 1 "is 159 bytes, longer than the peer's max_output_len (100): cut" "bad: a reply over max_output_len" ;;
		cut) expect 1 "the reply to '/x' is cut at the peer's max_output_len (100 bytes)" "bad: a reply cut at max_output_len" ;;
		esac
	done
	run -f "$PREFIX" --prometheus 1.2.3:9100
	expect 2 "'1.2.3' is no IPv4 address" "bad: --prometheus 1.2.3:9100"
	run -f "$PREFIX" --prometheus 127.0.0.1:99999
	expect 2 "want a port 0..65535 (0: any free), not '99999'" "bad: --prometheus 127.0.0.1:99999"
	run -f "$PREFIX" --prometheus '[::1:9100'
	expect 2 "no IPv4 address" "bad: --prometheus [::1:9100"
	run -f "$PREFIX" --prometheus "$EXP_HOSTPORT"
	expect 1 "Address already in use" "bad: --prometheus on a port in use"
	start_exporter any -f "$PREFIX" --prometheus 0.0.0.0:0
	if grep -q 'note: listening on every address (0.0.0.0)' "$TMP/any.err" &&
		[ "$(http_status "$EXP_URL")" = 200 ]; then
		pass "bad: --prometheus 0.0.0.0:0: serves, with '$(cat "$TMP/any.err")'"
	else
		fail "bad: --prometheus 0.0.0.0:0: '$(cat "$TMP/any.err")'"
	fi
	kill "$EXP_PID"
}

# ---- generic (/linerate/... commands, label escaping) ----
# A server in Python with replies of the shapes linerate's own commands
# may take (no DPDK peer has /linerate/ commands), on every connection.
generic_server() {
	python3 - "$1" <<'EOF' &
import json, os, socket, sys, threading
path = sys.argv[1]
R = {
	"/": ["/", "/info", "/mempool/list", "/mempool/info", "/linerate/heap",
	      "/linerate/l2fwd/stats", "/linerate/needs_param",
	      "/linerate/page_pool/list", "/linerate/page_pool/info"],
	"/linerate/page_pool/list": ["p1", "gone"],
	"/linerate/page_pool/info,p1": {"name": "p1", "id": 4,
					"held_pages": 9, "wait_ns": 1500},
	"/mempool/list": ['we"ird\\pool'],
	'/mempool/info,we"ird\\pool': {"name": 'we"ird\\pool', "size": 5,
				       "pool_id": 9},
	"/linerate/heap": {
		"nodes": [{"node": 0, "free_per_order": [5, 3, 1],
			   "free_pages": 12},
			  {"node": 1, "free_per_order": [0, 1, 0],
			   "free_pages": 2}],
		"pcp": {"0": {"blocks": 31}, "3": {"blocks": 7}}},
	"/linerate/l2fwd/stats": {"rx_packets_total": 100, "dropped_total": 2,
				  "running": True, "name": "x",
				  "busy_cycles": 1000, "ratio": 0.5},
}
def serve(c):
	c.send(b'{"version":"generic","pid":7,"max_output_len":16384}')
	while True:
		req = c.recv(1024).decode()
		if not req:
			return
		c.send(json.dumps({req.split(",")[0]: R.get(req)}).encode())
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.bind(path + ".new")
s.listen(8)
os.rename(path + ".new", path)
while True:
	c, _ = s.accept()
	threading.Thread(target=serve, args=(c,), daemon=True).start()
EOF
	PIDS+=($!)
	until_ok 30 test -S "$1" || die "generic server did not start"
}

check_generic() {
	local sock=$TMP/generic.sock line missing=
	generic_server "$sock"
	start_exporter gen -s "$sock" --prometheus 127.0.0.1:0
	curl -s --max-time 30 "$EXP_URL" >"$TMP/gen.txt"
	kill "$EXP_PID"
	while read -r line; do
		grep -qxF -- "$line" "$TMP/gen.txt" || missing="$missing
  $line"
	done <<'EOF'
linerate_mempool_objects{pool="we\"ird\\pool"} 5
# TYPE linerate_heap_nodes_free_per_order gauge
linerate_heap_nodes_free_per_order{node="0",order="0"} 5
linerate_heap_nodes_free_per_order{node="1",order="1"} 1
linerate_heap_nodes_free_pages{node="1"} 2
linerate_heap_pcp_blocks{index="3"} 7
# TYPE linerate_l2fwd_stats_rx_packets_total counter
linerate_l2fwd_stats_rx_packets_total 100
linerate_l2fwd_stats_running 1
# TYPE linerate_l2fwd_stats_busy_cycles_total counter
linerate_l2fwd_stats_busy_cycles_total 1000
linerate_l2fwd_stats_ratio 0.5
# TYPE linerate_page_pool_info_held_pages gauge
linerate_page_pool_info_held_pages{pool="p1"} 9
linerate_page_pool_info_wait_seconds{pool="p1"} 1.5e-06
linerate_up 1
linerate_scrape_errors 0
EOF
	if [ -n "$missing" ]; then
		fail "generic: lines missing:$missing
--- got:
$(grep -v '^#' "$TMP/gen.txt")"
	elif grep -qE 'pool_id|_name|needs_param|linerate_heap_nodes_node|info_id|gone|page_pool_list' "$TMP/gen.txt"; then
		fail "generic: ids, strings or null replies exported: $(grep -E 'pool_id|_name|needs_param|nodes_node|info_id|gone|page_pool_list' "$TMP/gen.txt")"
	elif ! promtool check metrics <"$TMP/gen.txt" >"$TMP/promtool.out" 2>&1; then
		fail "generic: promtool: $(cat "$TMP/promtool.out")"
	else
		pass "generic: /linerate/ replies as $(grep -c '^linerate_heap\|^linerate_l2fwd' "$TMP/gen.txt") samples, labels escaped, promtool passes"
	fi
}

if [ "$PEER" = l2fwd ]; then
	start_peer
	pass "peer: lr-l2fwd answers at $PEER_SOCK ($(elapsed "$T0") s)"
	check_query
	peer_traffic_start
	start_exporter exp -f "$PREFIX" --prometheus 127.0.0.1:0
	MAIN_URL=$EXP_URL
	check_exporter
	check_families
	check_rate
	check_agree
	check_stalled
	last=$("$LRT" --json -f "$PREFIX" /ethdev/stats,0 |
		sed -n 's/.*"ipackets":\([0-9]*\).*/\1/p')
	stop_peer
	check_exit "$(peer_rx_packets 0)" "$last"
	st=$(curl -s --max-time 30 "$MAIN_URL" | grep -c '^linerate_up 0$')
	[ "$st" = 1 ] && pass "gone: the peer ended: linerate_up 0" ||
		fail "gone: no linerate_up 0 after the peer ended"
	run -f "$PREFIX" /info
	expect 2 "$PEER_SOCK" "gone: a query after the peer ended"
	echo "wall time $(elapsed "$T0") s"
	[ $failed -eq 0 ] && echo PASS
	exit $failed
fi
start_peer
pass "peer: testpmd answers at $PEER_SOCK ($(elapsed "$T0") s)"
check_query
peer_traffic_start
start_exporter exp -f "$PREFIX" --prometheus 127.0.0.1:0
MAIN_URL=$EXP_URL
check_exporter
check_rate
peer_traffic_stop
check_exact
check_stalled
stop_peer
st=$(curl -s --max-time 30 "$MAIN_URL" | grep -c '^linerate_up 0$')
[ "$st" = 1 ] && pass "gone: the peer ended: linerate_up 0" ||
	fail "gone: no linerate_up 0 after the peer ended"
run -f "$PREFIX" /info
expect 2 "$PEER_SOCK" "gone: a query after the peer ended"
check_bad_input
check_generic
echo "wall time $(elapsed "$T0") s"
[ $failed -eq 0 ] && echo PASS
exit $failed
