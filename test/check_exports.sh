#!/usr/bin/env bash
# Every name a linerate library puts in front of the programs that link it
# must carry the lr_ prefix (LR_ for symbol-version nodes):
#   shared libraries: the dynamic symbol table (nm -D --defined-only);
#   static archives:  every global symbol of every member (nm -g), since a
#                     hidden symbol still clashes in a static link.
# Names the compiler's instrumentation adds (sanitizers, coverage) are not
# ours and are skipped. Usage (from meson): check_exports.sh NM LIBRARY...
set -euo pipefail
nm=$1
shift
[ $# -gt 0 ] || { echo "usage: check_exports.sh NM LIBRARY..."; exit 2; }

bad=0
for lib in "$@"; do
	case $lib in
	*.a) flags=(-g --defined-only) ;;
	*) flags=(-D --defined-only) ;;
	esac
	# "ADDR TYPE NAME[@[@]VERSION]"; archive member headers have no TYPE.
	names=$("$nm" "${flags[@]}" "$lib" | awk 'NF >= 3 { print $3 }' |
		sed 's/@.*//' | sort -u)
	# (A driver's archive may define no global at all: it registers from
	# a static constructor.)
	n=$(grep -c . <<<"$names" || true)
	wrong=$(grep -vE '^(lr_|LR_)' <<<"$names" |
		grep -vE '^(__odr_asan[._]|__asan_|__ubsan_|__sancov_|__llvm_|__gcov_)' ||
		true)
	if [ -n "$wrong" ]; then
		echo "FAIL: $lib exports names without the lr_ prefix:"
		sed 's/^/  /' <<<"$wrong"
		bad=1
	else
		echo "ok: $lib: $n global names, all lr_"
	fi
done
exit $bad
