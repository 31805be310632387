#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The YNL spec the series adds (Documentation/netlink/specs/mem_notify.yaml)
# and the uapi header it leaves agree (check-ynl-spec.py), and the check
# can fail: a spec with two attributes swapped does not pass.
set -eu
top=$(cd "${top_srcdir:-$(dirname "$0")/../..}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=
for p in /usr/bin/python3 python3; do
	if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import yaml' 2>/dev/null; then
		py=$p
		break
	fi
done
[ -n "$py" ] || { echo "not ok 1 - no python3 with yaml (apt-get install python3-yaml)"; echo "1..1"; exit 1; }
spec=Documentation/netlink/specs/mem_notify.yaml
hdr=include/uapi/linux/mem_notify.h
while read -r p; do
	case "$p" in ''|'#'*) continue ;; esac
	for f in $spec $hdr; do
		grep -q "^+++ b/$f" "$top/patches/$p" || continue
		(cd "$tmp" && git apply --include="$f" "$top/patches/$p") ||
			{ echo "not ok 1 - $p does not apply to $f"; echo "1..1"; exit 1; }
	done
done <"$top/patches/series"
for f in $spec $hdr; do
	[ -f "$tmp/$f" ] || { echo "not ok 1 - no patch in the series creates $f"; echo "1..1"; exit 1; }
done
"$py" "$top/tests/host/check-ynl-spec.py" "$tmp/$spec" "$tmp/$hdr"
# the check must be able to fail: swap the attributes seq and timestamp
sed -e 's/name: seq$/name: seqX/' -e 's/name: timestamp$/name: seq/' -e 's/name: seqX$/name: timestamp/' \
	"$tmp/$spec" >"$tmp/swapped.yaml"
if "$py" "$top/tests/host/check-ynl-spec.py" "$tmp/swapped.yaml" "$tmp/$hdr" >/dev/null; then
	echo "not ok - a spec with seq and timestamp swapped passed the check"
	exit 1
fi
echo "# a spec with seq and timestamp swapped fails the check, as it must"
