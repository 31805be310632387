#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The installed tools on a kernel without mem_notify (the host's): one
# line that names what is missing, usage errors, --version.
set -u
b=${builddir:-.}/../../utils
n=0 bad=0
t() { # t DESCRIPTION WANT-STATUS WANT-SUBSTRING CMD...
	d=$1 want=$2 sub=$3
	shift 3
	out=$("$@" 2>&1 </dev/null)
	rc=$?
	n=$((n + 1))
	if [ "$rc" -eq "$want" ] && case "$out" in *"$sub"*) true ;; *) false ;; esac; then
		echo "ok $n - $d"
	else
		echo "not ok $n - $d: status $rc: $out"
		bad=1
	fi
}
t "mnotify-listen --version" 0 "mnotify-listen (mnotify) " "$b/mnotify-listen" --version
t "mnotify-ctl --version" 0 "mnotify-ctl (mnotify) " "$b/mnotify-ctl" --version
t "-t with --json is a usage error" 2 "JSON lines carry ts_ns and rx_ns" "$b/mnotify-listen" -j -t
t "-T with --json is a usage error" 2 "JSON lines carry ts_ns and rx_ns" "$b/mnotify-listen" -j -T
t "a --timeout past 115 days is refused" 2 "bad --timeout" "$b/mnotify-listen" -w 1e8
t "bad --level" 2 "bad --level" "$b/mnotify-listen" --level none
t "--chardev follows one --cgroup" 2 "--chardev follows one --cgroup at most" "$b/mnotify-listen" --chardev -C /a -C /b
t "set oom-priority: not a number" 2 "'abc' is not a number from 0 to 1000" "$b/mnotify-ctl" set oom-priority /x abc
t "set oom-priority: out of range" 2 "'1001' is not a number from 0 to 1000" "$b/mnotify-ctl" set oom-priority /x 1001
t "set oom-priority: missing value" 2 "expected: set oom-priority CGROUP N" "$b/mnotify-ctl" set oom-priority /x
t "get oom-priority: missing cgroup" 2 "expected: get oom-priority CGROUP" "$b/mnotify-ctl" get oom-priority
t "get oom-priority: no such cgroup" 1 "get oom-priority /mnotify-no-such-cgroup: No such file or directory (no such cgroup" "$b/mnotify-ctl" get oom-priority /mnotify-no-such-cgroup
if [ -e /sys/kernel/mm/mem_notify ]; then
	echo "# the host kernel has mem_notify: missing-family messages not checked"
else
	t "mnotify-listen without the family" 1 "the running kernel has no mem_notify family: CONFIG_MEM_NOTIFY_NETLINK" "$b/mnotify-listen"
	t "mnotify-ctl without the family" 1 "the running kernel has no mem_notify family: CONFIG_MEM_NOTIFY_NETLINK" "$b/mnotify-ctl" stats
	t "mnotify-listen --chardev without the device" 1 "no /dev/mem_notify: CONFIG_MEM_NOTIFY" "$b/mnotify-listen" --chardev
fi
echo "1..$n"
exit $bad
