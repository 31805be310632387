// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mnotifyd's mapping: mem_notify levels to LowMemoryWarning bytes (the
 * values GLib's GMemoryMonitorWarningLevel names), and the system's level
 * as the highest of its nodes'.
 */
#include <stdio.h>
#include <string.h>

#include "mnotifyd-level.h"

static int failed;

static void check(int ok, const char *what, long got)
{
	printf("%s - %s: %ld\n", ok ? "ok" : "not ok", what, got);
	failed |= !ok;
}

int main(void)
{
	int nodes[4] = { MNOTIFY_LEVEL_NONE, MNOTIFY_LEVEL_MEDIUM, MNOTIFY_LEVEL_LOW,
			 MNOTIFY_LEVEL_NONE };

	check(mnotifyd_warning(MNOTIFY_LEVEL_NONE) == 0, "none sends no warning",
	      mnotifyd_warning(MNOTIFY_LEVEL_NONE));
	check(mnotifyd_warning(MNOTIFY_LEVEL_LOW) == 50, "low is 50 (G_MEMORY_MONITOR_WARNING_LEVEL_LOW)",
	      mnotifyd_warning(MNOTIFY_LEVEL_LOW));
	check(mnotifyd_warning(MNOTIFY_LEVEL_MEDIUM) == 100, "medium is 100",
	      mnotifyd_warning(MNOTIFY_LEVEL_MEDIUM));
	check(mnotifyd_warning(MNOTIFY_LEVEL_CRITICAL) == 255, "critical is 255",
	      mnotifyd_warning(MNOTIFY_LEVEL_CRITICAL));
	check(mnotifyd_warning(MNOTIFY_LEVEL_CRITICAL + 1) == 255,
	      "a level above critical (a newer kernel) is still 255",
	      mnotifyd_warning(MNOTIFY_LEVEL_CRITICAL + 1));
	check(mnotifyd_warning(-1) == 0, "an unknown level (-1) sends nothing", mnotifyd_warning(-1));
	check(mnotifyd_system_level(nodes, 4) == MNOTIFY_LEVEL_MEDIUM,
	      "the system is at its highest node's level", mnotifyd_system_level(nodes, 4));
	check(mnotifyd_system_level(nodes, 0) == MNOTIFY_LEVEL_NONE, "no node: none",
	      mnotifyd_system_level(nodes, 0));
	{
		char out[64];
		int r;

		r = mnotifyd_cgroup_of("12:memory:/old\n0::/user.slice/user-1000.slice/session-2.scope\n",
				       out, sizeof(out));
		check(r == 0 && !strcmp(out, "/user.slice/user-1000.slice/session-2.scope"),
		      "the cgroup v2 path from /proc/PID/cgroup's 0:: line", r);
		r = mnotifyd_cgroup_of("0::/\n", out, sizeof(out));
		check(r == 0 && !strcmp(out, "/"), "the root cgroup is /", r);
		r = mnotifyd_cgroup_of("0::/a", out, sizeof(out));
		check(r == 0 && !strcmp(out, "/a"), "a last line without a newline", r);
		check(mnotifyd_cgroup_of("1:name=systemd:/x\n", out, sizeof(out)) == -1,
		      "no 0:: line (cgroup v1 only): -1", 0);
		check(mnotifyd_cgroup_of("0::\n", out, sizeof(out)) == -1, "an empty path: -1", 0);
		check(mnotifyd_cgroup_of("0::/abcdefgh\n", out, 8) == -1, "a path that does not fit: -1",
		      0);
		check(mnotifyd_cgroup_of("", out, sizeof(out)) == -1, "empty text: -1", 0);
	}
	return failed;
}
