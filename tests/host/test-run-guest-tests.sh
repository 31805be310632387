#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/guest/run-guest-tests turns each test's output into numbered TAP,
# and turns crashes, timeouts and silence into failures.
set -u
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
cat >"$d/t-good" <<'T'
#!/bin/sh
echo "ok - one"; echo "# note"; echo "stray output"; echo "ok - # SKIP nothing to do"
T
cat >"$d/t-bad" <<'T'
#!/bin/sh
echo "ok - first"; echo "not ok - second"; exit 1
T
cat >"$d/t-crash" <<'T'
#!/bin/sh
echo "ok - before the crash"; kill -SEGV $$
T
cat >"$d/t-silent" <<'T'
#!/bin/sh
exit 0
T
cat >"$d/t-hang" <<'T'
#!/bin/sh
echo "ok - started"; exec sleep 60
T
chmod +x "$d"/t-*
printf '# comment\nt-good 5\nt-bad 5\nt-crash 5\n\nt-silent 5\nt-hang 1\n' >"$d/tests.list"
out=$(MNOTIFY_TESTDIR=$d "$top_srcdir/tests/guest/run-guest-tests")
fail=0
check() { # description pattern (grep -E -x)
	if printf '%s\n' "$out" | grep -qxE "$2"; then echo "ok - $1"; else echo "not ok - $1"; fail=1; fi
}
check "pass is numbered" "ok 1 - t-good: one"
check "skip is kept" "ok 2 - t-good: # SKIP nothing to do"
check "stray output becomes a diagnostic" "# t-good: stray output"
check "failure is reported once, not doubled by the exit status" "not ok 4 - t-bad: second"
check "a crash after a pass fails" "not ok 6 - t-crash: exit status [0-9]+"
check "silence fails" "not ok 7 - t-silent: reported no result"
check "a hang is killed at the limit and fails" "not ok 9 - t-hang: killed after the 1s limit"
check "plan" "1\.\.9"
check "end marker" "# mnotify-guest-done"
[ "$(printf '%s\n' "$out" | "$top_srcdir/qemu/tap-summary")" = "4 4 1 complete" ] &&
	echo "ok - tap-summary agrees" || { echo "not ok - tap-summary agrees"; fail=1; }
[ $fail -eq 0 ] || printf '%s\n' "$out" | sed 's/^/# /'
exit $fail
