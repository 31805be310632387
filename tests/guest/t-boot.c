// SPDX-License-Identifier: GPL-2.0
/*
 * The guest runs the kernel this harness just built, and the /proc files
 * every later test reads are there.
 */
#include "guestlib.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static char *chomp(char *s)
{
	if (s)
		s[strcspn(s, "\n")] = '\0';
	return s;
}

int main(void)
{
	char *version = read_file("/proc/version");
	char *release = chomp(read_file("/etc/mnotify/kernel-release"));
	char *uts = chomp(read_file("/etc/mnotify/kernel-version"));
	char *zoneinfo, *psi;

	if (!version || !release || !uts)
		tap_bail("read /proc/version and /etc/mnotify/kernel-*");
	tap_diag("%s", chomp(version));
	tap_ok(strncmp(version, "Linux version ", 14) == 0 &&
	       strncmp(version + 14, release, strlen(release)) == 0 &&
	       version[14 + strlen(release)] == ' ',
	       "/proc/version names the release we built (%s)", release);
	tap_ok(strstr(version, uts) != NULL,
	       "/proc/version carries this build's UTS_VERSION (%s)", uts);
	tap_ok(strstr(version, "(mnotify@lab)") != NULL,
	       "/proc/version shows the harness build user mnotify@lab");

	zoneinfo = read_file("/proc/zoneinfo");
	tap_ok(zoneinfo && strstr(zoneinfo, "Node 0, zone") &&
	       strstr(zoneinfo, "high ") && strstr(zoneinfo, "nr_free_pages"),
	       "/proc/zoneinfo is readable and lists zones with watermarks");

	psi = read_file("/proc/pressure/memory");
	tap_ok(psi && strncmp(psi, "some avg10=", 11) == 0 && strstr(psi, "\nfull avg10="),
	       "/proc/pressure/memory is readable (PSI enabled)");

	tap_ok(vmstat_get("pgscan_kswapd") >= 0 && vmstat_get("oom_kill") >= 0,
	       "/proc/vmstat has pgscan_kswapd and oom_kill");
	tap_ok(meminfo_kb("SwapTotal") == 0, "the guest starts without swap");

	/* t-leak, before us, left a child: the harness must have ended it */
	char *leaked = read_file("/tmp/mnotify-leaked.pid");

	if (leaked) {
		pid_t p = (pid_t)atoi(leaked);

		tap_ok(p > 1 && kill(p, 0) < 0 && errno == ESRCH,
		       "the child t-leak left behind (pid %d) was ended by the harness", (int)p);
		free(leaked);
	}

	free(version);
	free(release);
	free(uts);
	free(zoneinfo);
	free(psi);
	return tap_done();
}
