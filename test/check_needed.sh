#!/usr/bin/env bash
# A plugin driver's outside libraries are no program's dependency
# (drivers/plugins/meson.build): no file of FILE... has a DT_NEEDED entry
# matching PATTERN (an extended regex, e.g. ^librte_), while each PLUGIN
# does (so the check reads what it thinks it reads).
# Usage (from meson):
#   check_needed.sh READELF PATTERN PLUGIN... -- FILE...
# Exit 0 passed, 1 failed.
set -euo pipefail
readelf=$1 pattern=$2
shift 2
plugins=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	plugins+=("$1")
	shift
done
[ $# -gt 1 ] || {
	echo "usage: check_needed.sh READELF PATTERN PLUGIN... -- FILE..."
	exit 2
}
shift

# needed FILE: its DT_NEEDED entries, one a line.
needed() {
	local out
	out=$(LC_ALL=C "$readelf" -d "$1") || {
		echo "FAIL: $readelf -d $1"
		exit 1
	}
	sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p' <<<"$out"
}

bad=0
for p in "${plugins[@]}"; do
	n=$(needed "$p" | grep -cE "$pattern" || true)
	if [ "$n" -eq 0 ]; then
		echo "FAIL: plugin $p needs nothing matching '$pattern'"
		bad=1
	else
		echo "ok: plugin $p: $n libraries matching '$pattern'"
	fi
done
for f in "$@"; do
	hits=$(needed "$f" | grep -E "$pattern" || true)
	if [ -n "$hits" ]; then
		echo "FAIL: $f needs $(tr '\n' ' ' <<<"$hits")(DT_NEEDED): a" \
			"plugin driver's libraries"
		bad=1
	else
		echo "ok: $f: nothing matching '$pattern'"
	fi
done
exit $bad
