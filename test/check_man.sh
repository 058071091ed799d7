#!/usr/bin/env bash
# The man pages (doc/man, written in mdoc) and the programs' usage texts
# agree, and the pages render cleanly (fast suite):
#
#   check_man.sh MAN_DIR [PAGE=PROGRAM ...]
#
# drift   for each PAGE=PROGRAM: every long option (--name) that
#         `PROGRAM -h` prints (the EAL's options and the program's own) is
#         a flag of PAGE (".Fl -name"), so neither can gain an option the
#         other lacks unnoticed
# render  every *.1 of MAN_DIR through groff -mandoc -ww (all warnings):
#         any message on stderr fails it
# Programs run through $LR_EXE_WRAPPER (the cross build's emulator) when it
# is set. Exit 0 passed, 1 failed, 77 skipped (no groff: the drift was
# checked, the rendering not).
set -u
MAN=${1:?usage: check_man.sh MAN_DIR [PAGE=PROGRAM ...]}
shift
# shellcheck disable=SC2206
W=(${LR_EXE_WRAPPER:-})
failed=0

for pair in "$@"; do
	page=$MAN/${pair%%=*}
	prog=${pair#*=}
	name=$(basename "$prog")
	if ! usage=$("${W[@]}" "$prog" -h 2>&1); then
		echo "FAIL: $name -h exited non-zero:"
		echo "$usage"
		failed=1
		continue
	fi
	# --name, but not the stems of patterns (--rate-*).
	opts=$(grep -oE -- '--[a-z0-9][a-z0-9-]*[*]?' <<<"$usage" |
		grep -v '[*]$' | sed 's/-*$//' | sort -u)
	missing=
	for o in $opts; do
		grep -qE -- "Fl -${o#--}([^a-z0-9-]|$)" "$page" ||
			missing="$missing $o"
	done
	if [ -n "$missing" ]; then
		echo "FAIL: $(basename "$page") lacks what $name -h lists:$missing"
		failed=1
	else
		echo "ok: $(basename "$page") has the $(wc -w <<<"$opts") long options of $name -h"
	fi
done
[ $failed -eq 0 ] || exit 1

if ! command -v groff >/dev/null; then
	echo "SKIP: no groff (Debian: groff): the pages' rendering is not checked"
	exit 77
fi
for page in "$MAN"/*.1; do
	# Without -z: some of mdoc's warnings come only while it writes.
	warn=$(groff -mandoc -ww -Tutf8 "$page" 2>&1 >/dev/null)
	if [ -n "$warn" ]; then
		echo "FAIL: $(basename "$page") renders with warnings:"
		echo "$warn"
		failed=1
	else
		echo "ok: $(basename "$page") renders without a warning"
	fi
done
exit $failed
