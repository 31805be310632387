#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# mnotifyd on a private system bus (dbus-daemon with Debian's system-bus
# defaults and our policy, data/mnotifyd.conf), levels from --fake, heard
# by gmm-client: stock GLib GMemoryMonitor code, as in any application.
# Checks the interface against low-memory-monitor 2.1's, the order and
# values of the warnings, the extension interface and properties, the
# way back to none, session levels (WatchSession, SessionLevelChanged to
# the watcher only), a second instance, SIGTERM, a bus that goes away,
# and a kernel without the family.
set -u
top=${builddir:-.}/../..
src=${top_srcdir:-../..}
d=$(mktemp -d /tmp/test-mnotifyd.XXXXXX)
n=0 bad=0
bus_pid= d_pid= c_pid= s_pid= feed_pid=

cleanup() {
	for p in $s_pid $c_pid $d_pid $feed_pid $bus_pid; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$d"
}
trap cleanup EXIT

ok() { # ok COND-STATUS DESCRIPTION [DETAIL]
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2${3:+: $3}"
		bad=1
	fi
}
# wait_for FILE REGEX [SECONDS]: until a line of FILE matches (10 s at most)
wait_for() {
	i=0
	while ! grep -Eq "$2" "$1" 2>/dev/null; do
		[ $i -ge $((${3:-10} * 10)) ] && return 1
		sleep 0.1
		i=$((i + 1))
	done
}
# wait_count FILE REGEX N SECONDS: until N lines of FILE match
wait_count() {
	i=0
	while [ "$(grep -Ec "$2" "$1" 2>/dev/null)" -lt "$3" ]; do
		[ $i -ge $(($4 * 10)) ] && return 1
		sleep 0.1
		i=$((i + 1))
	done
}
# exit_within PID SECONDS: wait for PID (a child) to end; its status in $rc
exit_within() {
	i=0
	while kill -0 "$1" 2>/dev/null; do
		if [ $i -ge $(($2 * 10)) ]; then rc=timeout; return 1; fi
		sleep 0.1
		i=$((i + 1))
	done
	wait "$1"
	rc=$?
}

mnotifyd=$top/utils/mnotifyd
client=$top/tests/guest/gmm-client
command -v dbus-daemon >/dev/null || { echo "not ok 1 - dbus-daemon is not installed"; echo "1..1"; exit 1; }
command -v gdbus >/dev/null || { echo "not ok 1 - gdbus (libglib2.0-bin) is not installed"; echo "1..1"; exit 1; }

# --- the command line
out=$("$mnotifyd" --help 2>&1); rc=$?
[ $rc -eq 0 ] && case "$out" in *"Usage: mnotifyd"*"--reannounce"*"--no-session"*"Exit status"*) true ;; *) false ;; esac
ok $? "--help prints the usage and exits 0"
out=$("$mnotifyd" --version 2>&1); rc=$?
[ $rc -eq 0 ] && case "$out" in "mnotifyd (mnotify) "*) true ;; *) false ;; esac
ok $? "--version" "$out"
out=$("$mnotifyd" --reannounce -1 2>&1); rc=$?
[ $rc -eq 2 ] && case "$out" in *"--reannounce takes 0 to 86400 seconds"*) true ;; *) false ;; esac
ok $? "a bad --reannounce is a usage error (2)" "status $rc: $out"
out=$("$mnotifyd" extra 2>&1); rc=$?
[ $rc -eq 2 ]
ok $? "an extra argument is a usage error (2)" "status $rc: $out"

# --- the systemd unit as built (data/), if systemd-analyze is here
if command -v systemd-analyze >/dev/null && [ -f "$top/data/mnotifyd.service" ]; then
	sed "s|^ExecStart=.*|ExecStart=$(command -v true)|" "$top/data/mnotifyd.service" \
		>"$d/mnotifyd.service"
	out=$(systemd-analyze verify --man=no "$d/mnotifyd.service" 2>&1)
	[ -z "$out" ]
	ok $? "systemd-analyze verify accepts mnotifyd.service" "$out"
fi

# --- a private bus: Debian's system-bus defaults (deny own and method
# calls by default) plus our policy; a policy dbus-daemon cannot parse
# stops it here
cat >"$d/bus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$d/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Properties"/>
  </policy>
  <include>$(cd "$src" && pwd)/data/mnotifyd.conf</include>
</busconfig>
EOF
dbus-daemon --config-file="$d/bus.conf" --nofork --print-address=3 3>"$d/addr" 2>"$d/bus.err" &
bus_pid=$!
wait_for "$d/addr" "^unix:"
ok $? "dbus-daemon runs with data/mnotifyd.conf included" "$(cat "$d/bus.err")"
DBUS_SYSTEM_BUS_ADDRESS=unix:path=$d/bus
GIO_USE_MEMORY_MONITOR=dbus
GIO_USE_VFS=local
export DBUS_SYSTEM_BUS_ADDRESS GIO_USE_MEMORY_MONITOR GIO_USE_VFS

# --- a kernel without the family (the host's): 69, not restarted by systemd
if [ -e /sys/kernel/mm/mem_notify ]; then
	echo "# the host kernel has mem_notify: the missing-family exit is not checked"
else
	out=$("$mnotifyd" --address "$DBUS_SYSTEM_BUS_ADDRESS" 2>&1 </dev/null); rc=$?
	[ $rc -eq 69 ] && case "$out" in *"no mem_notify family: CONFIG_MEM_NOTIFY_NETLINK"*) true ;; *) false ;; esac
	ok $? "without the mem_notify family: exit 69 and one line" "status $rc: $out"
fi

# --- the daemon and a GLib client
mkfifo "$d/levels"
"$client" --ext >"$d/client" 2>"$d/client.err" &
c_pid=$!
wait_for "$d/client" "^ready"
"$mnotifyd" --fake --reannounce 1 --address "$DBUS_SYSTEM_BUS_ADDRESS" \
	<"$d/levels" >"$d/daemon" 2>&1 &
d_pid=$!
exec 4>"$d/levels"
wait_for "$d/client" "^owner yes"
ok $? "mnotifyd owns org.freedesktop.LowMemoryMonitor" "$(cat "$d/daemon")"

# the interfaces: low-memory-monitor 2.1's unchanged, and the extension
gdbus introspect --system --xml --dest org.freedesktop.LowMemoryMonitor \
	--object-path /org/freedesktop/LowMemoryMonitor >"$d/intro.xml" 2>&1
python3 - "$d/intro.xml" >"$d/intro.txt" 2>&1 <<'EOF'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
for i in root.findall('interface'):
    if i.get('name').startswith('org.freedesktop.DBus.'):
        continue
    items = []
    for e in i:
        args = ','.join('%s:%s' % (a.get('name'), a.get('type')) for a in e.findall('arg'))
        items.append('%s %s(%s)%s' % (e.tag, e.get('name'), args,
                     ' ' + e.get('type') + ' ' + e.get('access') if e.tag == 'property' else ''))
    print(i.get('name') + ': ' + '; '.join(sorted(items)))
EOF
grep -qx "org.freedesktop.LowMemoryMonitor: signal LowMemoryWarning(level:y)" "$d/intro.txt"
ok $? "org.freedesktop.LowMemoryMonitor is low-memory-monitor 2.1's: one signal, LowMemoryWarning(y level)" "$(cat "$d/intro.txt")"
grep -qx "org.mnotify.Pressure1: method WatchSession(cgroup:s,level:s,warning_level:y); property Headroom() t read; property Level() s read; property WarningLevel() y read; signal LevelChanged(level:s,warning_level:y); signal SessionLevelChanged(cgroup:s,level:s,warning_level:y)" "$d/intro.txt"
ok $? "org.mnotify.Pressure1: Level, WarningLevel, Headroom, LevelChanged, WatchSession, SessionLevelChanged" "$(cat "$d/intro.txt")"

# the levels in order; GLib's proxy may still be connecting when the first
# warning goes out, --reannounce 1 repeats it
echo low >&4
wait_for "$d/client" "^warning 50 " && wait_for "$d/client" "^level low 50 "
ok $? "low: GMemoryMonitor says 50, LevelChanged says low" "$(tr '\n' '|' <"$d/client")"
wait_count "$d/client" "^warning 50 " 2 5
ok $? "low is said again while it lasts (--reannounce 1)" "$(tr '\n' '|' <"$d/client")"
echo medium >&4
wait_for "$d/client" "^warning 100 "
ok $? "medium: 100" "$(tr '\n' '|' <"$d/client")"
echo critical >&4
wait_for "$d/client" "^warning 255 " && wait_for "$d/client" "^level critical 255 "
ok $? "critical: 255" "$(tr '\n' '|' <"$d/client")"
! { sed -n '/^warning 100 /,$p' "$d/client" | grep -q '^warning 50 ' ||
	sed -n '/^warning 255 /,$p' "$d/client" | grep -Eq '^warning (50|100) '; }
ok $? "no lower warning after a higher one: 50, 100, 255 in order" "$(tr '\n' '|' <"$d/client")"
out=$(gdbus call --system --dest org.freedesktop.LowMemoryMonitor \
	--object-path /org/freedesktop/LowMemoryMonitor \
	--method org.freedesktop.DBus.Properties.GetAll org.mnotify.Pressure1 2>&1)
case "$out" in *"'Level': <'critical'>"*"'WarningLevel': <byte 0xff>"*"'Headroom': <uint64 1000>"*) true ;; *) false ;; esac
ok $? "GetAll org.mnotify.Pressure1 at critical" "$out"

# lost events: mnotifyd reads the levels again and says the current one
# again, to both interfaces (--fake's "lost" stands for the resync)
n255=$(grep -c '^warning 255 ' "$d/client")
nlc=$(grep -c '^level critical 255 ' "$d/client")
echo lost >&4
wait_count "$d/client" "^level critical 255 " $((nlc + 1)) 10 &&
	wait_count "$d/client" "^warning 255 " $((n255 + 1)) 10
ok $? "after lost events the current level is announced again (LevelChanged and 255)" "$(tr '\n' '|' <"$d/client")"

echo none >&4
wait_for "$d/client" "^level none 0 "
ok $? "back to none: LevelChanged none 0 (GMemoryMonitor has no word for it)" "$(tr '\n' '|' <"$d/client")"
out=$(gdbus call --system --dest org.freedesktop.LowMemoryMonitor \
	--object-path /org/freedesktop/LowMemoryMonitor \
	--method org.freedesktop.DBus.Properties.Get org.mnotify.Pressure1 Level 2>&1)
[ "$out" = "(<'none'>,)" ]
ok $? "Level is none" "$out"
# at none the repeats stop: nothing for longer than a repeat period
before=$(grep -c '^warning ' "$d/client")
sleep 2.5
after=$(grep -c '^warning ' "$d/client")
[ "$before" -eq "$after" ]
ok $? "no warning repeated at none" "$before then $after"

# session levels: a client that calls WatchSession hears its own cgroup's
# level (--fake's "cgroup LEVEL" sets every watched one), nobody else does
"$client" --session >"$d/sclient" 2>"$d/sclient.err" &
s_pid=$!
wait_for "$d/sclient" "^watch(-error)? "
cg=$(sed -n 's/^0:://p' "/proc/$s_pid/cgroup")
if [ "$cg" = / ]; then
	grep -q "^watch-error org.mnotify.Pressure1.Error.NotSupported the caller is in the root cgroup" "$d/sclient"
	ok $? "WatchSession from the root cgroup: NotSupported, and why" "$(tr '\n' '|' <"$d/sclient")"
else
	grep -qx "watch $cg none 0" "$d/sclient"
	ok $? "WatchSession: the caller's own cgroup, none" "$cg: $(tr '\n' '|' <"$d/sclient")"
	echo "cgroup medium" >&4
	wait_for "$d/sclient" "^session $cg medium 100 "
	ok $? "its cgroup at medium: SessionLevelChanged medium 100" "$(tr '\n' '|' <"$d/sclient")"
	echo "cgroup none" >&4
	wait_for "$d/sclient" "^session $cg none 0 "
	ok $? "and back: SessionLevelChanged none 0" "$(tr '\n' '|' <"$d/sclient")"
	! grep -q "^session " "$d/client"
	ok $? "SessionLevelChanged went to the watcher only, not to the other client" "$(tr '\n' '|' <"$d/client")"
	out=$(gdbus call --system --dest org.freedesktop.LowMemoryMonitor \
		--object-path /org/freedesktop/LowMemoryMonitor \
		--method org.freedesktop.DBus.Properties.Get org.mnotify.Pressure1 Level 2>&1)
	[ "$out" = "(<'none'>,)" ] && ! grep -q "^level medium" "$d/client"
	ok $? "a session's level leaves the system's Level alone" "$out"
fi
kill "$s_pid"
wait "$s_pid" 2>/dev/null
s_pid=

# a non-root user may listen and read properties but not own the name
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	chmod 755 "$d"
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups gdbus call --system \
		--dest org.freedesktop.LowMemoryMonitor --object-path /org/freedesktop/LowMemoryMonitor \
		--method org.freedesktop.DBus.Properties.Get org.mnotify.Pressure1 Level 2>&1)
	[ "$out" = "(<'none'>,)" ]
	ok $? "the policy lets any user read the properties" "$out"
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups gdbus call --system \
		--dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
		--method org.freedesktop.DBus.RequestName org.freedesktop.LowMemoryMonitor 4 2>&1)
	case "$out" in *AccessDenied*) true ;; *) false ;; esac
	ok $? "the policy keeps other users from owning the name" "$out"
fi

# a second instance: the name is taken, exit 1 with a line that says so
out=$(sleep 5 | "$mnotifyd" --fake --address "$DBUS_SYSTEM_BUS_ADDRESS" 2>&1); rc=$?
[ $rc -eq 1 ] && case "$out" in *"is owned by another process"*) true ;; *) false ;; esac
ok $? "a second instance exits 1: the name is owned" "status $rc: $out"

# SIGTERM: exit 0, the name goes
kill -TERM "$d_pid"
exit_within "$d_pid" 10
[ "$rc" = 0 ] && wait_for "$d/client" "^owner no"
ok $? "SIGTERM: exit 0 and the name is released" "status $rc"
d_pid=
exec 4>&-

# a bus that goes away: exit 1 (systemd's Restart=on-failure brings it back)
mkfifo "$d/levels2"
"$mnotifyd" --fake --no-session --address "$DBUS_SYSTEM_BUS_ADDRESS" <"$d/levels2" >"$d/daemon2" 2>&1 &
d_pid=$!
exec 4>"$d/levels2"
wait_count "$d/client" "^owner yes" 2 10
ok $? "a new instance takes the name" "$(tr '\n' '|' <"$d/client")"
out=$(gdbus call --system --dest org.freedesktop.LowMemoryMonitor \
	--object-path /org/freedesktop/LowMemoryMonitor \
	--method org.mnotify.Pressure1.WatchSession 2>&1)
case "$out" in *"org.mnotify.Pressure1.Error.NotSupported"*"session levels are off (mnotifyd --no-session)"*) true ;; *) false ;; esac
ok $? "--no-session: WatchSession is refused, and says why" "$out"
kill "$bus_pid"
wait "$bus_pid" 2>/dev/null
bus_pid=
exit_within "$d_pid" 10
[ "$rc" = 1 ] && grep -q "lost the connection to the bus" "$d/daemon2"
ok $? "the bus goes away: exit 1" "status $rc: $(cat "$d/daemon2")"
d_pid=
exec 4>&-

echo "1..$n"
exit $bad
