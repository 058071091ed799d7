#!/bin/sh
# mkplot.sh SCRIPT GIT_H BUILD_H OUT: lr-pktgen-plot with its version
# strings (those of lr_app_git.h and lr_app_build.h) and VERSION, made
# executable (apps/pktgen/meson.build).
set -eu
version=$1 in=$2 git_h=$3 build_h=$4 out=$5
str() { sed -n "s/^#define $1 \"\\(.*\\)\"\$/\\1/p" "$2"; }
git=$(str LR_APP_GIT "$git_h")
dpdk=$(str LR_APP_DPDK "$build_h")
sed -e "s|@VERSION@|$version|" -e "s|@GIT@|$git|" -e "s|@DPDK@|$dpdk|" \
	"$in" >"$out.tmp"
chmod 755 "$out.tmp"
mv "$out.tmp" "$out"
