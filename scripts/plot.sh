#!/usr/bin/env bash
# Draws the opening table of BENCHMARKS.md (linerate beside DPDK 22.11
# Debian and native, see scripts/bench.sh) as two PNG bar charts with
# gnuplot: OUTDIR/throughput.png (the Mpps rows: higher is better) and
# OUTDIR/cycles.png (the cycles rows: lower is better). A side that was not
# there has no bar.
#
#   scripts/plot.sh [TABLE_FILE] [OUTDIR]
#
# TABLE_FILE: a markdown file holding that table (default BENCHMARKS.md);
# OUTDIR default bench/plots. Installs gnuplot-nox when gnuplot is missing
# and we are root; exits 77 when it cannot draw (no table rows, or no
# gnuplot), 0 after writing the files it names.
set -euo pipefail
cd "$(dirname "$0")/.."
in=${1:-BENCHMARKS.md}
out=${2:-bench/plots}
[ -f "$in" ] || { echo "plot: no $in" >&2; exit 77; }

if ! command -v gnuplot >/dev/null; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends gnuplot-nox >/dev/null ||
			{ echo "plot: installing gnuplot-nox failed" >&2; exit 77; }
	else
		echo "plot: no gnuplot (apt-get install gnuplot-nox)" >&2
		exit 77
	fi
fi

tmp=$(mktemp -d /tmp/plot.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# Table rows: | comparison | unit (x is better) | linerate | Debian | native | ...
# -> one tab-separated data file per kind: label, linerate, Debian, native.
awk -F'|' -v dir="$tmp" '
	NF >= 7 && $3 ~ /is better\)/ {
		for (i = 2; i <= 6; i++) gsub(/^ +| +$/, "", $i)
		kind = ($3 ~ /^Mpps/) ? "throughput" : "cycles"
		printf "%s\t%s\t%s\t%s\n", $2, $4, $5, $6 >> (dir "/" kind ".dat")
	}' "$in"
[ -n "$(ls "$tmp")" ] || { echo "plot: no comparison table in $in" >&2; exit 77; }

mkdir -p "$out"
rm -f "$out/throughput.png" "$out/cycles.png"
for kind in throughput cycles; do
	dat=$tmp/$kind.dat
	[ -f "$dat" ] || continue
	if [ $kind = throughput ]; then
		title="Mpps, higher is better"
	else
		title="cycles per object or item, lower is better"
	fi
	rows=$(wc -l <"$dat")
	gnuplot 2> >(grep -v "difficulty making room" >&2) <<EOF
set terminal pngcairo size $((400 + 110 * rows)),560 font "sans,10"
set output "$out/$kind.png"
set title "linerate beside DPDK 22.11, same run: $title"
set datafile separator "\t"
set datafile missing "-"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set key tmargin center horizontal
set grid ytics
set yrange [0:*]
set xtics rotate by 30 right noenhanced
set bmargin 11
set lmargin 34
plot "$dat" using 2:xtic(1) title "linerate" lc rgb "#1b7837", \
     "" using 3 title "DPDK (Debian)" lc rgb "#762a83", \
     "" using 4 title "DPDK (native)" lc rgb "#e08214"
EOF
	echo "plot: wrote $out/$kind.png ($rows comparisons)"
done
