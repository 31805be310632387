#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# qemu/scan-console passes clean logs (OOM kills included) and fails splats.
scan=$top_srcdir/qemu/scan-console
fail=0
expect() { # want-exit description log-text
	printf '%s\n' "$3" | "$scan" >/dev/null
	got=$?
	if [ "$got" -eq "$1" ]; then echo "ok - $2"; else echo "not ok - $2 (exit $got)"; fail=1; fi
}
oom='[    3.1] mnotify-hog invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=1000
[    3.1] Call Trace:
[    3.1]  <TASK>
[    3.1] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),task=mnotify-hog,pid=60,uid=0
[    3.1] Out of memory: Killed process 60 (mnotify-hog) total-vm:2000kB'
expect 0 "an OOM kill is not a splat" "$oom"
expect 0 "a clean boot passes" "[    0.0] Linux version 6.1.0 (mnotify@lab)
mnotify: guest done"
expect 1 "WARNING fails" "[    2.0] WARNING: CPU: 0 PID: 1 at mm/mem_notify.c:10 f+0x1/0x2"
expect 1 "BUG fails" "[    2.0] BUG: unable to handle page fault for address: 0000000000000008"
expect 1 "Oops fails" "[    2.0] Oops: 0000 [#1] PREEMPT SMP"
expect 1 "panic fails" "[    2.0] Kernel panic - not syncing: Fatal exception"
expect 1 "lockdep fails" "[    2.0] WARNING: possible circular locking dependency detected"
expect 1 "atomic sleep fails" "[    2.0] BUG: sleeping function called from invalid context at mm/slab.h:1"
expect 1 "KASAN fails" "[    2.0] ==================================================================
[    2.0] BUG: KASAN: use-after-free in f+0x1/0x2"
expect 1 "kmemleak fails" "kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)
unreferenced object 0xffff888003 (size 64):"
expect 1 "hung task fails" "[  120.0] INFO: task t-churn:77 blocked for more than 120 seconds."
expect 1 "CRLF lines are scanned too" "$(printf '[ 1.0] WARNING: CPU: 1\r')"
exit $fail
