#!/bin/sh
# The library's copy of include/uapi/linux/mem_notify.h must be the one
# the kernel series adds (patches/*: the new file, all '+' lines).
set -eu
top=${top_srcdir:-$(dirname "$0")/../..}
patch=$(grep -l '^+++ b/include/uapi/linux/mem_notify.h' "$top"/patches/*.patch | head -n 1)
[ -n "$patch" ] || { echo "FAIL: no patch adds include/uapi/linux/mem_notify.h"; exit 1; }
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
awk '/^\+\+\+ b\/include\/uapi\/linux\/mem_notify.h/ { on = 1; next }
     on && /^@@/ { next }
     on && /^\+/ { print substr($0, 2); next }
     on { exit }' "$patch" >"$tmp"
if cmp -s "$tmp" "$top/libmnotify-nl/uapi/linux/mem_notify.h"; then
	echo "ok 1 - libmnotify-nl/uapi/linux/mem_notify.h matches $(basename "$patch")"
	echo "1..1"
else
	diff -u "$tmp" "$top/libmnotify-nl/uapi/linux/mem_notify.h" || true
	echo "not ok 1 - uapi header copy differs from the series"
	echo "1..1"
	exit 1
fi
