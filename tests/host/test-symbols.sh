#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The shared library exports exactly the symbols of its version script,
# each at the version node the script puts it in (MNOTIFY_NL_1.0, 1.1),
# under the soname libmnotify-nl.so.1; nothing internal (mnotify__*, the
# parsers) is visible.
set -eu
lib=$builddir/../../libmnotify-nl/.libs/libmnotify-nl.so
map=$top_srcdir/libmnotify-nl/libmnotify-nl.map
[ -e "$lib" ] || { echo "1..0 # SKIP no shared library (--disable-shared)"; exit 77; }
echo "1..3"
want=$(sed -n 's/^\t\(mnotify_[a-z_]*\);$/\1/p' "$map" | sort)
have=$(nm -D --defined-only "$lib" | awk '$2 == "T" { print $3 }' | sort)
if [ "$want" = "$(printf '%s\n' "$have" | sed 's/@.*//' | sort)" ]; then
	echo "ok 1 - exported functions are the version script's ($(echo "$want" | wc -l))"
else
	echo "not ok 1 - exports differ from the map:"
	printf '%s\n' "$want" >/tmp/want.$$; printf '%s\n' "$have" | sed 's/@.*//' | sort >/tmp/have.$$
	diff /tmp/want.$$ /tmp/have.$$ | sed 's/^/# /'; rm -f /tmp/want.$$ /tmp/have.$$
fi
# the version each symbol should have: the node the map lists it under
wantv=$(awk '/^MNOTIFY_NL_[0-9.]* *\{/ { v = $1 } /^\tmnotify_[a-z_]*;$/ { sub(/^\t/, ""); sub(/;$/, ""); print $0 "@@" v }' "$map" | sort)
if [ "$wantv" = "$(printf '%s\n' "$have" | sort)" ]; then
	echo "ok 2 - every symbol at its map version ($(echo "$wantv" | sed 's/.*@@//' | sort -u | tr '\n' ' '))"
else
	echo "not ok 2 - symbol versions differ from the map:"
	printf '%s\n' "$wantv" >/tmp/want.$$; printf '%s\n' "$have" | sort >/tmp/have.$$
	diff /tmp/want.$$ /tmp/have.$$ | sed 's/^/# /'; rm -f /tmp/want.$$ /tmp/have.$$
fi
soname=$(objdump -p "$lib" | awk '$1 == "SONAME" { print $2 }')
if [ "$soname" = libmnotify-nl.so.1 ]; then
	echo "ok 3 - soname $soname"
else
	echo "not ok 3 - soname '$soname', want libmnotify-nl.so.1"
fi
