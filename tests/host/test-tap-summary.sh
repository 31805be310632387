#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# qemu/tap-summary counts results and requires plan + end marker.
sum=$top_srcdir/qemu/tap-summary
fail=0
expect() { # want description tap-text
	got=$(printf '%s\n' "$3" | "$sum")
	if [ "$got" = "$1" ]; then echo "ok - $2"; else echo "not ok - $2 (got '$got')"; fail=1; fi
}
expect "2 1 1 complete" "counts pass, fail, skip" "ok 1 - a: x
not ok 2 - a: y
ok 3 - b: # SKIP no swap
ok 4 - c: z
# c took 1.0 s of guest time
1..4
# mnotify-guest-done"
expect "1 0 0 incomplete" "no end marker is incomplete" "ok 1 - a: x
1..1"
expect "1 0 0 incomplete" "plan mismatch is incomplete" "ok 1 - a: x
1..2
# mnotify-guest-done"
expect "0 0 0 incomplete" "empty log is incomplete" ""
expect "1 1 0 complete" "CR from the serial line is ignored" "$(printf 'ok 1 - a\r\nnot ok 2 - b\r\n1..2\r\n# mnotify-guest-done\r')"
expect "0 0 0 incomplete" "result lines in diagnostics do not count" "# ok 1 - a
1..0
# mnotify-guest-done"
exit $fail
