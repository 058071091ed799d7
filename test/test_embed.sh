#!/usr/bin/env bash
# Build examples/mempool-embed against the INSTALLED library the way an
# outside program would (pkg-config linerate, no in-tree paths), run it and
# check what it prints. Usage (from meson):
#   test_embed.sh SOURCE_ROOT BUILD_ROOT IS_CROSS SANITIZE
set -euo pipefail
src=$1 build=$2 cross=$3 sanitize=${4:-none}

if [ "$cross" = true ]; then
	echo "skip: cross build; the example is built with the host compiler"
	exit 77
fi
for tool in pkg-config cc meson; do
	if ! command -v $tool >/dev/null; then
		echo "skip: $tool not found"
		exit 77
	fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lr-embed.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root

meson install -C "$build" --destdir "$root" --no-rebuild >"$tmp/install.log" 2>&1 || {
	cat "$tmp/install.log"
	echo "FAIL: meson install --destdir"
	exit 1
}
pc=$(find "$root" -name linerate.pc | head -n 1)
if [ -z "$pc" ]; then
	echo "FAIL: no linerate.pc installed"
	exit 1
fi
# The installed tree first (the system's .pc files stay visible for the
# packages linerate requires, such as numa); paths land under the sysroot.
export PKG_CONFIG_PATH=$(dirname "$pc")
export PKG_CONFIG_SYSROOT_DIR=$root
flags=$(pkg-config --cflags --libs linerate)
libdir=$(pkg-config --variable=libdir linerate)
case $libdir in
"$root"/*) ;; # pkgconf applies the sysroot to variables too
*) libdir=$root$libdir ;;
esac
echo "pkg-config --cflags --libs linerate: $flags"

extra=()
if [ "$sanitize" != none ] && [ -n "$sanitize" ]; then
	extra=(-fsanitize="$sanitize")
fi
# shellcheck disable=SC2086
cc -O2 -Wall -Wextra -Werror "${extra[@]}" -o "$tmp/mempool-embed" \
	"$src/examples/mempool-embed/main.c" $flags -pthread

# The program must resolve liblinerate from the installed tree.
# (ldd's output is taken whole first: grep -q closing the pipe early would
# fail the pipeline under pipefail.)
deps=$(LD_LIBRARY_PATH=$libdir ldd "$tmp/mempool-embed")
if ! grep -q "$libdir/liblinerate" <<<"$deps"; then
	echo "$deps"
	echo "FAIL: not linked against the installed liblinerate"
	exit 1
fi
out=$(cd "$tmp" && LD_LIBRARY_PATH=$libdir ./mempool-embed 2>&1) || {
	echo "$out"
	echo "FAIL: mempool-embed exited with an error"
	exit 1
}
echo "$out"
grep -q '^thread 0: lcore [0-9]*, [1-9][0-9]* objects, 0 bad$' <<<"$out"
grep -q '^thread 1: lcore [0-9]*, [1-9][0-9]* objects, 0 bad$' <<<"$out"
grep -q '^pool: size 4096, avail 4096, in use 0, validate 0$' <<<"$out"
grep -q '^mempool-embed: OK$' <<<"$out"
echo "PASS"
