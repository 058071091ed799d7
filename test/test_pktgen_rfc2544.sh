#!/usr/bin/env bash
# lr-pktgen --rfc2544 (its four tests) against ground truth no one here wrote: the
# kernel's token bucket filter (driver suite; root). Network namespaces and
# veth pairs from scripts/netns.sh, a kernel bridge in the middle one:
#
#   ns gen: g0 (lr-pktgen port 0, sends)      ns fwd: f0 -+
#                                                          br0
#   ns gen: g1 (lr-pktgen port 1, receives)   ns fwd: f1 -+  tbf on f1's way out
#
# tbf rate R (10 Mbit/s: at 64 B, twice R is 42 kframes/s, which lr-pktgen on
# af_packet keeps on a busy 2-vCPU machine; at 20 Mbit/s and more it no longer
# always does, and the generator, not the bridge, would set the figures),
# burst B 8 KiB, limit L 24 KiB (the queue). What the bucket lets through in a
# trial of T seconds at r frames/s of len bytes (len: what tbf counts, read
# from `tc -s qdisc`: the frame without FCS) is R*T + B + L bytes, so:
#   - NDR: within 3% of R in frames/s at 64 B and 1518 B (the search's final
#     trials of 2 s let (B + L)/2 s = 1.3% of R more through; its precision
#     is 0.5% of the max rate, 0.7% (64 B) and 1% (1518 B) of R);
#   - PDR at --pdr-loss 10: within 3% of R / 0.9, where 10% is lost;
#     a search in which a trial lost more than tbf's model allows (tbf's
#     CPU taken for longer than its bucket lasts) is void and run again;
#     lr-pktgen's lost frames must be the frames tbf dropped;
#   - an offered load of 2R for 3 s: loss (load - R) / load = 50%, within 2
#     points (the bucket and the queue let 0.4 points more through), and
#     the latency of the full queue L / R (19.7 ms), its median within 20%;
#   - --rfc2544 latency: the p99 at 10/50/100% of the NDR not above L / R
#     (+5 ms), the median below R under a tenth of it (an empty queue);
#   - --rfc2544 frame-loss from 2R down: each valid load's loss
#     (load - R) / load within 3 points, two or more valid above R, ending
#     on two loads without loss;
#   - --rfc2544 back-to-back at 2R (or the rate r lr-pktgen lowered its max
#     to): the longest burst without loss between (B + L) / len (a burst
#     all at once) and (B + L) / (len (1 - R / r)) (spread evenly; 2 (B + L)
#     / len at 2R), within 3%;
#   - where the kernel has netem (this machine's has not: said, skipped):
#     2% loss, 1% duplicates, 5 ms delay counted as such;
#   - a device that drops everything (pfifo limit 0 in place of tbf): NDR 0
#     said, exit 1, on time;
#   - a port that never comes up (its peer down): --link-wait's error,
#     exit 1, on time.
# The generator runs at nice -20, so that the builds beside it do not take
# its CPU: its pacing stays even (frames late beyond the bucket are counted,
# and the trial is then invalid); its af_packet rings hold 4096 and 8192
# frames, so that a moment off the CPU does not fill them (a full receive
# ring makes a trial invalid: its losses would be the generator's). A case
# whose figures miss is run again on a busy host (up to three attempts for
# the searches, two for back-to-back); each attempt printed.
#
#   test_pktgen_rfc2544.sh SOURCE_DIR BUILD_DIR
# Exit 0 all passed, 1 a case failed, 77 skipped (with the reason).
set -u

SRC=${1:?usage: test_pktgen_rfc2544.sh SOURCE_DIR BUILD_DIR}
BUILD=${2:?usage: test_pktgen_rfc2544.sh SOURCE_DIR BUILD_DIR}
PKTGEN=$BUILD/apps/pktgen/lr-pktgen
NETNS=$SRC/scripts/netns.sh
R_BIT=10000000 # tbf rate, bits/s
B=8192 L=24576 # tbf burst and limit, bytes
PDR=10         # --pdr-loss
# shellcheck source=test/lr_test.sh
. "$(dirname "$0")/lr_test.sh"

lr_need_netns
command -v tc >/dev/null || skip "no 'tc' command (iproute2)"
command -v python3 >/dev/null || skip "no python3 (reads the JSON)"
[ -x "$PKTGEN" ] || skip "lr-pktgen not built ($PKTGEN)"
[ -x "$NETNS" ] || skip "no $NETNS"

lr_netns_test "$NETNS" rf ""

fwd() { ip netns exec "$LR_NS_FWD" "$@"; }

# The bridge in the middle: no IPv6, no multicast, no STP, so that it sends
# nothing of its own.
fwd ip link add br0 type bridge stp_state 0 forward_delay 0 2>"$TMP/br.err" ||
	skip "no kernel bridge: $(cat "$TMP/br.err")"
fwd sysctl -qw net.ipv6.conf.br0.disable_ipv6=1 || true
fwd ip link set br0 multicast off
fwd ip link set "$LR_IF_F0" master br0
fwd ip link set "$LR_IF_F1" master br0
fwd ip link set br0 up
# The device's work on its own CPUs: the kernel receives a veth frame on
# the CPU that sent it (the bridge, tbf and the receive into g1 with it)
# unless RPS sends it on. lr-pktgen runs on CPU 0 at nice -20, so that
# work would wait for ksoftirqd, which shares CPU 0 with it at nice 0, and
# take the generator's CPU in bursts when it ran: the generator then left
# its frames up to 100 ms late (trials invalid three times in a row, the
# max lowered). RPS on f0, f1 and g1 takes it to every other CPU, as a
# device under test has CPUs of its own.
if [ "$(nproc)" -ge 2 ] && [ "$(nproc)" -le 32 ]; then
	mask=$(printf %x $(((1 << $(nproc)) - 2)))
	for end in "$LR_NS_FWD $LR_IF_F0" "$LR_NS_FWD $LR_IF_F1" "$LR_NS_GEN $LR_IF_G1"; do
		read -r ns ifc <<<"$end"
		ip netns exec "$ns" sh -c "echo $mask >/sys/class/net/$ifc/queues/rx-0/rps_cpus" ||
			echo "note: no RPS on $ifc (the device's work stays on the generator's CPU)"
	done
fi
tbf() {
	fwd tc qdisc replace dev "$LR_IF_F1" root tbf rate "${R_BIT}bit" \
		burst "$B" limit "$L"
}
tbf 2>"$TMP/tbf.err" || skip "no tbf qdisc in this kernel: $(cat "$TMP/tbf.err")"


# gen ARGS...: lr-pktgen in the gen namespace, g0 sends, g1 receives.
gen() {
	ip netns exec "$LR_NS_GEN" nice -n -20 "$PKTGEN" --no-huge -m 256 -l 0 \
		--file-prefix "${P}g" \
		--vdev "net_af_packet0,iface=$LR_IF_G0,vnet=0,framecnt=4096" \
		--vdev "net_af_packet1,iface=$LR_IF_G1,vnet=0,framecnt=8192" \
		-- --tx-ports 0 --rx-ports 1 "$@"
}

# calc EXPR: a float expression (python3).
calc() { python3 -c "print($1)"; }

# within X WANT PCT: |X - WANT| <= PCT% of WANT; near X WANT D: <= D.
within() { python3 -c "import sys; sys.exit(abs($1 - $2) > $3 / 100 * ($2))"; }
near() { python3 -c "import sys; sys.exit(abs($1 - $2) > $3)"; }

# tbf_sent: "bytes packets dropped" tbf counted so far.
tbf_sent() {
	fwd tc -s qdisc show dev "$LR_IF_F1" |
		sed -n 's/^ *Sent \([0-9]*\) bytes \([0-9]*\) pkt (dropped \([0-9]*\),.*/\1 \2 \3/p'
}

# --- The bytes tbf counts per frame, per size: 50 frames, slowly. Taken
# again when a frame of the kernel's own crossed tbf meanwhile (the bridge
# reports its IGMP memberships once or twice after it comes up).
declare -A LEN RFPS
tbf_length() {
	local size=$1 rc b0 p0 d0 b1 p1 d1
	for _ in 1 2 3; do
		read -r b0 p0 d0 <<<"$(tbf_sent)"
		gen --size "$size" --count 50 --rate-pps 200 --tx-only --quiet \
			>"$TMP/len.out" 2>&1
		rc=$?
		grep -q "no driver for this port name" "$TMP/len.out" &&
			skip "net_af_packet is not in this build"
		read -r b1 p1 d1 <<<"$(tbf_sent)"
		[ $rc = 0 ] && [ $((p1 - p0)) = 50 ] && [ "$d1" = "$d0" ] && break
		echo "tbf_length $size B: exit $rc, tbf sent $((p1 - p0)) frames for 50, dropped $((d1 - d0))"
	done
	if [ $rc != 0 ] || [ $((p1 - p0)) != 50 ] || [ "$d1" != "$d0" ]; then
		fail "tbf_length $size B: no clean count in 3 tries"
		cat "$TMP/len.out"
		exit 1
	fi
	LEN[$size]=$(((b1 - b0) / 50))
	RFPS[$size]=$(calc "$R_BIT / 8 / ${LEN[$size]}")
	pass "tbf_length $size B: tbf counts ${LEN[$size]} bytes a frame: R = ${RFPS[$size]} frames/s"
}
tbf_length 64
tbf_length 1518

# --- NDR and PDR against R, both sizes in one search. The bounds hold for
# tbf as modelled: a trial of T s at r frames/s loses no more than
# tx - (R T + (B + L) / len). tbf falls short of its model when its own
# CPU is taken for longer than its bucket lasts (B / R = 6.6 ms: it can
# send no faster than R + B afterwards, so its queue overflows); a search
# run on such a device finds that device's NDR, not R's, and is void: the
# search is run again (three attempts), and said unchecked if every one is
# void. Whatever the device did, what lr-pktgen counts lost must be what
# tbf dropped (its counters, over the whole search).
model_excess() {
	python3 - "$1" "$B" "$L" "${RFPS[64]}" "${LEN[64]}" "${RFPS[1518]}" "${LEN[1518]}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
b, l = float(sys.argv[2]), float(sys.argv[3])
model = {64: (float(sys.argv[4]), float(sys.argv[5])),
         1518: (float(sys.argv[6]), float(sys.argv[7]))}
out = []
for s in d['rfc2544']['sizes']:
    r, ln = model[s['size']]
    for t in s['trials']:
        if t['verdict'] != 'valid':
            continue
        most = max(0.0, t['tx'] - (r * t['duration_s'] + (b + l) / ln))
        if t['lost'] > most + 0.01 * t['tx'] + 10:
            out.append('trial %d (%d B, %.0f frames/s): lost %d, the model at most %.0f'
                       % (t['n'], s['size'], t['rate_pps'], t['lost'], most))
print('; '.join(out))
PY
}
lost_sum() { jget "$1" "sum(t['lost'] for s in d['rfc2544']['sizes'] for t in s['trials'])"; }

search_ok() {
	local rc=$1 js=$2 size ndr pdr ok=0
	[ "$rc" = 0 ] || ok=1
	for size in 64 1518; do
		ndr=$(jget "$js" "[s for s in d['rfc2544']['sizes'] if s['size'] == $size][0]['ndr']['pps']")
		pdr=$(jget "$js" "[s for s in d['rfc2544']['sizes'] if s['size'] == $size][0]['pdr']['pps']")
		echo "  $size B: NDR ${ndr:-none} frames/s for R ${RFPS[$size]}" \
			"($(calc "round(100 * (${ndr:-0} / ${RFPS[$size]} - 1), 2)")%)," \
			"PDR ${pdr:-none} for R / 0.9 = $(calc "round(${RFPS[$size]} / 0.9)")" \
			"($(calc "round(100 * (${pdr:-0} / (${RFPS[$size]} / 0.9) - 1), 2)")%)"
		if [ -z "$ndr" ] || [ -z "$pdr" ] || ! within "$ndr" "${RFPS[$size]}" 3 ||
			! within "$pdr" "${RFPS[$size]} / (1 - $PDR / 100)" 3; then
			ok=1
		fi
	done
	return $ok
}

# verdict: pass, fail (a search on a device that kept its model missed,
# or lr-pktgen's losses are not tbf's drops), void (tbf fell short of its
# model: its CPU was taken).
verdict=void
for attempt in 1 2 3; do
	read -r _ _ d0 <<<"$(tbf_sent)"
	start=$SECONDS
	gen --rfc2544 throughput --rfc2544-sizes 64,1518 --pdr-loss "$PDR" \
		--trial-s 0.5 --final-trial-s 2 --max-rate 20Mbps --drain-ms 300 \
		--json "$TMP/rfc.json" >"$TMP/rfc.out" 2>&1
	rc=$?
	read -r _ _ d1 <<<"$(tbf_sent)"
	lost=$(lost_sum "$TMP/rfc.json")
	excess=$(model_excess "$TMP/rfc.json")
	echo "search attempt $attempt: exit $rc after $((SECONDS - start)) s," \
		"$(grep -c '^trial ' "$TMP/rfc.out") trials; lr-pktgen counted ${lost:-?} lost, tbf dropped $((d1 - d0))"
	if [ -z "$lost" ] || ! near "$lost" "$((d1 - d0))" 5; then
		verdict=fail
		echo "  lr-pktgen's lost frames are not tbf's drops"
		tail -30 "$TMP/rfc.out"
		break
	fi
	if search_ok $rc "$TMP/rfc.json"; then
		verdict=pass
		break
	fi
	if [ -n "$excess" ]; then
		echo "  void: tbf fell short of its model (its CPU taken): $excess"
		continue
	fi
	verdict=fail
	tail -30 "$TMP/rfc.out"
done
if [ "$verdict" = pass ]; then
	pass "ndr_pdr: NDR within 3% of R, PDR ($PDR% loss) within 3% of R / 0.9, at 64 B and 1518 B"
	grep -E '^(trial|=== RFC|size|64 B|1518 B|\(Mbit)' "$TMP/rfc.out"
elif [ "$verdict" = void ]; then
	echo "ndr_pdr: tbf fell short of its model in each of 3 searches (the host took its CPU): not checked"
else
	fail "ndr_pdr: NDR or PDR off R on a device that kept its model, or losses miscounted (see above)"
fi

# --- Loss and queueing delay at twice R (64 B): tx_behind must be 0 (the
# load offered for real); up to three tries on a busy host.
load=$(calc "round(2 * ${RFPS[64]})")
want=$(calc "round(100 * ($load - ${RFPS[64]}) / $load, 2)")
qdelay=$(calc "round($L * 8 / $R_BIT * 1e6)")
for attempt in 1 2 3; do
	gen --rate-pps "$load" --duration 3 --drain-ms 500 --quiet >"$TMP/load.out" 2>&1
	rc=$?
	tx=$(field tx "$TMP/load.out")
	lost=$(field lost "$TMP/load.out")
	behind=$(field tx_behind "$TMP/load.out")
	p50=$(field lat_p50_us "$TMP/load.out")
	[ "$rc" = 0 ] && [ "${behind:-1}" = 0 ] && break
	echo "load attempt $attempt: exit $rc, tx_behind ${behind:-?}: the load was not offered"
done
if [ "$rc" = 0 ] && [ -n "$behind" ] && [ "$behind" != 0 ]; then
	echo "loss_2r: the host never let the generator offer the load (rate missed said each time): not checked"
elif [ "$rc" = 0 ] && [ "${behind:-1}" = 0 ] && [ -n "$tx" ]; then
	got=$(calc "round(100 * $lost / $tx, 2)")
	if near "$got" "$want" 2 && within "$p50" "$qdelay" 20; then
		pass "loss_2r: $load frames/s for 3 s (2R): loss $got% for (load - R) / load = $want%; latency p50 $p50 us for L / R = $qdelay us"
	else
		fail "loss_2r: loss $got% (want $want% +- 2), latency p50 $p50 us (want $qdelay +- 20%)"
		tail -5 "$TMP/load.out"
	fi
else
	fail "loss_2r: exit $rc, tx_behind ${behind:-?}"
	tail -5 "$TMP/load.out"
fi

# --- --rfc2544 latency (64 B): the search, then final trials at 10, 50 and
# 100% of the NDR. Ground truth: tbf delays a frame by at most its queue,
# L / R, so the p99 may not exceed that (plus 5 ms of the host's
# scheduling; the max is one frame's, that a busy host's scheduling
# decides); below R the queue stays empty, so the median at 10% and 50%
# of the NDR is under a tenth of L / R.
for attempt in 1 2 3; do
	gen --rfc2544 latency --rfc2544-sizes 64 --latency-loads 10,50,100 \
		--trial-s 0.5 --final-trial-s 1 --max-rate 20Mbps --drain-ms 300 \
		--json "$TMP/lat.json" >"$TMP/lat.out" 2>&1
	rc=$?
	check=$(jget "$TMP/lat.json" "'ok' if all(l['valid'] and l['streams'][0]['latency_us']['p99'] <= $qdelay + 5000 and (l['pct_of_ndr'] == 100 or l['streams'][0]['latency_us']['p50'] < $qdelay / 10) for l in d['rfc2544']['sizes'][0]['latency_at_loads']) and len(d['rfc2544']['sizes'][0]['latency_at_loads']) == 3 else 'bad'")
	detail=$(jget "$TMP/lat.json" "' '.join('%g%%:%s p50 %.0f p99 %.0f max %.0f us' % (l['pct_of_ndr'], 'valid' if l['valid'] else 'invalid', l['streams'][0]['latency_us'].get('p50', -1), l['streams'][0]['latency_us'].get('p99', -1), l['streams'][0]['latency_us'].get('max', -1)) for l in d['rfc2544']['sizes'][0]['latency_at_loads'])")
	echo "latency attempt $attempt: exit $rc, $check: $detail"
	[ "$rc" = 0 ] && [ "$check" = ok ] && break
done
if [ "$rc" = 0 ] && [ "$check" = ok ]; then
	pass "latency: the p99 at 10/50/100% of the NDR within L / R = $qdelay us (+5 ms), the median below R under $((qdelay / 10)) us: $detail"
	sed -n '/=== RFC 2544 latency/,/resolution/p' "$TMP/lat.out"
else
	fail "latency: exit $rc, $check"
	tail -15 "$TMP/lat.out"
fi

# --- --rfc2544 frame-loss (64 B) from 2R down by 20%: the loss of each load
# is (load - R) / load (0 at and below R) within 3 points (the bucket and
# the queue let (B + L) / 2 s more through in a 2 s trial); it ends after
# two loads in a row that lose nothing. A load lr-pktgen calls invalid (it
# fell behind its schedule three times: a busy host) says nothing of the
# device and is not judged, but at least two loads above R must be valid,
# so that the losses are checked where there are any.
for attempt in 1 2 3; do
	gen --rfc2544 frame-loss --rfc2544-sizes 64 --loss-step 20 \
		--trial-s 0.5 --final-trial-s 2 --max-rate "$(calc "round(2 * ${RFPS[64]})")" \
		--drain-ms 300 --json "$TMP/loss.json" >"$TMP/loss.out" 2>&1
	rc=$?
	loads="d['rfc2544']['sizes'][0]['loads']"
	want_loss="max(0, 100 * (l['rate_pps'] - ${RFPS[64]}) / l['rate_pps'])"
	check=$(jget "$TMP/loss.json" "' '.join(('%g%%:%.1f/%.1f' % (l['pct_of_max'], l['loss_pct'], $want_loss)) if l['measured'] and l['valid'] else '%g%%:invalid' % l['pct_of_max'] for l in $loads)")
	verdict=$(jget "$TMP/loss.json" "'ok' if all(abs(l['loss_pct'] - $want_loss) <= 3 for l in $loads if l['measured'] and l['valid']) and sum(1 for l in $loads if l['measured'] and l['valid'] and l['rate_pps'] > 1.1 * ${RFPS[64]}) >= 2 and [(l['measured'] and l['valid'], l['lost']) for l in $loads][-2:] == [(True, 0), (True, 0)] else 'bad'")
	echo "frame-loss attempt $attempt: exit $rc, measured/want: $check"
	[ "$rc" = 0 ] && [ "$verdict" = ok ] && break
done
if [ "$rc" = 0 ] && [ "$verdict" = ok ]; then
	pass "frame_loss: each valid load's loss within 3 points of (load - R) / load, two or more above R, ending on two loads without loss: $check"
else
	fail "frame_loss: exit $rc, $verdict"
	tail -15 "$TMP/loss.out"
fi

# --- --rfc2544 back-to-back (64 B) at 2R: tbf passes its bucket B and
# fills its queue L while it drains at R, so a burst spread evenly at a
# rate r > R loses nothing up to (B + L) / (len * (1 - R / r)) frames
# (2 (B + L) / len at 2R), and a burst sent all at once up to (B + L) / len:
# a generator's burst lies between the two, by how evenly its frames leave
# at the scale of tens of microseconds (a busy host clumps them). r is the
# rate the bursts were sent at: 2R, or lower where lr-pktgen fell behind
# its schedule at 2R and lowered its max (said in its output; below 1.5R
# the range says little: not checked, said). Within 3% of that range (the
# bisection stops at 0.1% of the first burst).
lo=$(calc "round(($B + $L) / ${LEN[64]})")
inrange() { python3 -c "import sys; sys.exit(not ($lo * 0.97 <= $1 <= $2 * 1.03))"; }
for attempt in 1 2; do
	gen --rfc2544 back-to-back --rfc2544-sizes 64 --trial-s 0.5 \
		--precision 0.1 --max-rate "$(calc "round(2 * ${RFPS[64]})")" \
		--drain-ms 300 --json "$TMP/b2b.json" >"$TMP/b2b.out" 2>&1
	rc=$?
	got=$(jget "$TMP/b2b.json" "d['rfc2544']['sizes'][0]['burst']['frames_mean']")
	rate=$(jget "$TMP/b2b.json" "d['rfc2544']['sizes'][0]['burst']['rate_pps']")
	hi=$(calc "round(($B + $L) / (${LEN[64]} * (1 - ${RFPS[64]} / max(${rate:-0}, 1.02 * ${RFPS[64]}))))")
	echo "back-to-back attempt $attempt: exit $rc, burst ${got:-none} frames at ${rate:-?} frames/s ($(calc "round(${rate:-0} / ${RFPS[64]}, 3)") R): (B + L) / len = $lo to (B + L) / (len (1 - R / r)) = $hi"
	fast=$(calc "${rate:-0} >= 1.5 * ${RFPS[64]}")
	[ "$rc" = 0 ] && [ -n "$got" ] && [ -n "$rate" ] && inrange "$got" "$hi" &&
		[ "$fast" = True ] && break
done
if [ "$rc" = 0 ] && [ -n "$got" ] && [ -n "$rate" ] && inrange "$got" "$hi" &&
	[ "$fast" != True ]; then
	# (B + L) / len to (B + L) / (len (1 - R / r)) widens without bound
	# as r comes down to R: below 1.5R it says little.
	echo "back_to_back: the host never let the generator send its bursts at 1.5R or more (its max lowered each time): not checked"
elif [ "$rc" = 0 ] && [ -n "$got" ] && [ -n "$rate" ] && inrange "$got" "$hi"; then
	pass "back_to_back: the longest burst without loss $got frames at $rate frames/s, between (B + L) / len = $lo and (B + L) / (len (1 - R / r)) = $hi"
else
	fail "back_to_back: exit $rc, burst ${got:-none} frames at ${rate:-?} frames/s, not within $lo to ${hi:-?} (+-3%)"
	tail -15 "$TMP/b2b.out"
fi

# --- lr-pktgen-plot over the four documents: an SVG each, with the titles
# and series of its mode (needs gnuplot: said and skipped without).
PLOT=$BUILD/apps/pktgen/lr-pktgen-plot
if command -v gnuplot >/dev/null && [ -x "$PLOT" ]; then
	plot_ok=1
	for m in rfc:'RFC 2544 throughput|NDR|PDR|latency at the NDR|p99.9' \
		lat:'latency against the load|64 B p50|64 B max' \
		loss:'RFC 2544 frame loss rate|64 B|loss %' \
		b2b:'RFC 2544 back-to-back frames|min-max'; do
		f=${m%%:*} want=${m#*:}
		if ! "$PLOT" "$TMP/$f.json" "$TMP/$f.svg" 2>"$TMP/plot.err"; then
			echo "plot $f.json: $(cat "$TMP/plot.err")"
			plot_ok=0
			continue
		fi
		IFS='|' read -ra words <<<"$want"
		for w in "${words[@]}"; do
			grep -qF -- "$w" "$TMP/$f.svg" || { echo "plot $f.svg: no '$w'"; plot_ok=0; }
		done
		grep -q '<path' "$TMP/$f.svg" || { echo "plot $f.svg: no curve"; plot_ok=0; }
	done
	"$PLOT" "$TMP/rfc.out" "$TMP/x.svg" 2>"$TMP/plot.err"
	prc=$?
	grep -q "not JSON" "$TMP/plot.err" && [ $prc = 2 ] || { echo "plot of a text file: exit $prc, $(cat "$TMP/plot.err")"; plot_ok=0; }
	if [ $plot_ok = 1 ]; then
		pass "plot: an SVG of each mode's document with its titles and series; a file that is no JSON refused (exit 2)"
	else
		fail "plot (see above)"
	fi
else
	echo "SKIP plot: no gnuplot (Debian: gnuplot-nox) or no $PLOT"
fi

# --- netem, where the kernel has it (this one's may not: said, and the
# case skipped): 2% loss, 1% duplicates and 5 ms of delay on the bridge's
# way out, 20,000 frames at 5 kframes/s (below R): the loss within 0.6
# points of 2%, the duplicates within 0.4 of 1% (four standard deviations
# of 20,000 draws), the median latency within 20% of 5 ms.
if fwd tc qdisc replace dev "$LR_IF_F1" root netem delay 5ms loss 2% \
	duplicate 1% limit 10000 2>"$TMP/netem.err"; then
	for attempt in 1 2; do
		gen --count 20000 --rate-pps 5k --drain-ms 500 --quiet \
			--json "$TMP/netem.json" >"$TMP/netem.out" 2>&1
		rc=$?
		got=$(jget "$TMP/netem.json" "'%.3f %.3f %.1f' % (100 * d['results']['streams'][0]['lost'] / 20000, 100 * d['results']['streams'][0]['dup'] / 20000, d['results']['latency_us']['p50'])")
		read -r loss dupp p50 <<<"${got:-x x x}"
		echo "netem attempt $attempt: exit $rc, loss ${loss}%, duplicates ${dupp}%, latency p50 ${p50} us"
		[ "$rc" = 0 ] && near "$loss" 2 0.6 && near "$dupp" 1 0.4 &&
			within "$p50" 5000 20 && break
	done
	if [ "$rc" = 0 ] && near "$loss" 2 0.6 && near "$dupp" 1 0.4 && within "$p50" 5000 20; then
		pass "netem: loss ${loss}% for 2%, duplicates ${dupp}% for 1%, latency p50 ${p50} us for 5 ms"
	else
		fail "netem: exit $rc, loss ${loss}% (2 +- 0.6), duplicates ${dupp}% (1 +- 0.4), p50 ${p50} us (5000 +- 20%)"
		tail -5 "$TMP/netem.out"
	fi
	tbf
else
	echo "SKIP netem: no netem qdisc in this kernel ($(head -1 "$TMP/netem.err"))"
fi

# --- A device that drops everything: NDR 0, exit 1, on time.
fwd tc qdisc replace dev "$LR_IF_F1" root pfifo limit 0
start=$SECONDS
gen --rfc2544 throughput --rfc2544-sizes 64 --trial-s 0.2 --final-trial-s 0.5 \
	--max-rate 20Mbps --drain-ms 100 --json "$TMP/drop.json" >"$TMP/drop.out" 2>&1
rc=$?
secs=$((SECONDS - start))
found=$(jget "$TMP/drop.json" "d['rfc2544']['sizes'][0]['ndr']['found']")
if [ $rc = 1 ] && [ "$found" = False ] && [ $secs -lt 20 ] &&
	grep -q "64 B: NDR 0: every trial lost frames" "$TMP/drop.out"; then
	pass "drop_all: NDR 0 said, exit 1 after $secs s ($(grep -c '^trial ' "$TMP/drop.out") trials)"
else
	fail "drop_all: exit $rc after $secs s, ndr found '$found'"
	tail -10 "$TMP/drop.out"
fi
tbf

# --- A port that never comes up: its peer is down.
fwd ip link set "$LR_IF_F1" down
# The kernel tells g1 that its carrier is gone through its linkwatch work,
# which it may put off (a second, more on a busy host): wait for it.
for _ in $(seq 100); do
	state=$(ip netns exec "$LR_NS_GEN" cat "/sys/class/net/$LR_IF_G1/operstate")
	[ "$state" != up ] && break
	sleep 0.1
done
start=$SECONDS
gen --rfc2544 throughput --rfc2544-sizes 64 --link-wait 1 >"$TMP/link.out" 2>&1
rc=$?
secs=$((SECONDS - start))
if [ $rc = 1 ] && [ $secs -lt 10 ] &&
	grep -q "link still down after --link-wait 1 s" "$TMP/link.out"; then
	pass "link_down: $(grep -o 'port 1 ([^)]*): link still down after --link-wait 1 s' "$TMP/link.out"), exit 1 after $secs s"
else
	fail "link_down: exit $rc after $secs s"
	tail -5 "$TMP/link.out"
fi
fwd ip link set "$LR_IF_F1" up

exit "$failed"
