// SPDX-License-Identifier: GPL-2.0
/* An OOM kill can be provoked and observed, and the guest survives it. */
#include "guestlib.h"

#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>

int main(void)
{
	char mb[24];
	char *argv[] = { GUEST_HOG, "-m", mb, "-a", "1000", NULL };
	char *true_argv[] = { "/bin/true", NULL };
	long long kills0, total, avail0;
	int st = 0;
	pid_t pid;

	protect_self();
	tap_ok(meminfo_kb("SwapTotal") == 0, "no swap");
	total = meminfo_kb("MemTotal");
	snprintf(mb, sizeof(mb), "%lld", total / 1024 * 2);
	kills0 = vmstat_get("oom_kill");
	avail0 = meminfo_kb("MemAvailable");

	pid = spawn(argv, NULL);
	if (pid < 0)
		tap_bail("spawn hog");
	if (!tap_ok(wait_pid_timeout(pid, &st, 180000) == 0, "hog of 2 x MemTotal (%s MB) ended", mb)) {
		kill_reap(pid);
		return tap_done();
	}
	tap_ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
	       "hog was SIGKILLed (status %#x)", st);
	tap_ok(vmstat_get("oom_kill") == kills0 + 1, "oom_kill rose by exactly 1 (%lld)",
	       vmstat_get("oom_kill") - kills0);

	pid = spawn(true_argv, NULL);
	tap_ok(pid > 0 && wait_pid_timeout(pid, &st, 30000) == 0 && WIFEXITED(st) &&
	       WEXITSTATUS(st) == 0, "guest still runs new programs after the kill");
	/* not "half of MemTotal": the debug kernel has less than that to start with */
	tap_ok(meminfo_kb("MemAvailable") >= avail0 * 3 / 4,
	       "memory came back (MemAvailable %lld kB, %lld kB before the hog)",
	       meminfo_kb("MemAvailable"), avail0);
	return tap_done();
}
