#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The library's copy of include/uapi/linux/mem_notify.h must be the one
# the kernel series leaves: every patch in patches/series applied, in
# order, to that one file.
set -eu
top=$(cd "${top_srcdir:-$(dirname "$0")/../..}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
f=include/uapi/linux/mem_notify.h
n=0
while read -r p; do
	case "$p" in ''|'#'*) continue ;; esac
	grep -q "^+++ b/$f" "$top/patches/$p" || continue
	(cd "$tmp" && git apply --include="$f" "$top/patches/$p") ||
		{ echo "not ok 1 - $p does not apply to $f"; echo "1..1"; exit 1; }
	n=$((n + 1))
done <"$top/patches/series"
[ "$n" -gt 0 ] || { echo "not ok 1 - no patch touches $f"; echo "1..1"; exit 1; }
if cmp -s "$tmp/$f" "$top/libmnotify-nl/uapi/linux/mem_notify.h"; then
	echo "ok 1 - libmnotify-nl/uapi/linux/mem_notify.h matches the series ($n patches touch it)"
	echo "1..1"
else
	diff -u "$tmp/$f" "$top/libmnotify-nl/uapi/linux/mem_notify.h" || true
	echo "not ok 1 - uapi header copy differs from the series"
	echo "1..1"
	exit 1
fi
