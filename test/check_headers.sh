#!/usr/bin/env bash
# Every installed header compiles alone, first thing in a file, as C11,
# gnu11 and C++17 (-Wall -Wextra -Werror, no _GNU_SOURCE): installs the
# build into a temporary DESTDIR and compiles against that, as an outside
# program would. LR_CC and LR_CXX hold the compilers (from meson; LR_CXX
# empty when the build has no C++ compiler: the C++ pass is then skipped).
# Usage (from meson): check_headers.sh BUILD_ROOT
set -euo pipefail
build=$1
read -r -a cc <<<"${LR_CC:?LR_CC not set}"
read -r -a cxx <<<"${LR_CXX:-}"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lr-headers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
meson install -C "$build" --destdir "$tmp/root" --no-rebuild \
	>"$tmp/install.log" 2>&1 || {
	cat "$tmp/install.log"
	echo "FAIL: meson install --destdir"
	exit 1
}
inc=$(dirname "$(find "$tmp/root" -name lr_common.h | head -n 1)")
[ -d "$inc" ] || { echo "FAIL: no lr_common.h installed"; exit 1; }
headers=$(cd "$inc" && ls lr_*.h)
n=$(wc -w <<<"$headers")
[ "$n" -gt 10 ] || { echo "FAIL: only $n headers installed in $inc"; exit 1; }

bad=0
# What a header declares is exported (and has C linkage in C++) only
# between LR_BEGIN_DECLS and LR_END_DECLS (lr_common.h): every installed
# header but the generated build configuration has them.
for h in $headers; do
	[ "$h" = lr_build_config.h ] && continue
	if ! grep -q '^LR_BEGIN_DECLS' "$inc/$h" ||
		! grep -q '^LR_END_DECLS' "$inc/$h"; then
		echo "FAIL: $h lacks LR_BEGIN_DECLS/LR_END_DECLS"
		bad=1
	fi
done

# one LABEL COMPILER... -- FLAGS...: compile each header alone.
one() {
	local label=$1 failed=0 h
	shift
	for h in $headers; do
		printf '#include <%s>\n' "$h" >"$tmp/one.$label"
		if ! "$@" -I"$inc" -fsyntax-only -Wall -Wextra -Werror \
			"$tmp/one.$label" >"$tmp/err" 2>&1; then
			echo "FAIL: $h as $label:"
			head -n 20 "$tmp/err"
			failed=1
		fi
	done
	if [ $failed -eq 0 ]; then
		echo "ok: $n headers as $label"
	fi
	bad=$((bad | failed))
}
one c11 "${cc[@]}" -x c -std=c11
one gnu11 "${cc[@]}" -x c -std=gnu11
if [ ${#cxx[@]} -gt 0 ]; then
	one c++17 "${cxx[@]}" -x c++ -std=c++17
else
	echo "C++17: skipped, this build has no C++ compiler"
fi
exit $bad
