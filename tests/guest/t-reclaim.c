// SPDX-License-Identifier: GPL-2.0
/*
 * A hog bigger than free memory pushes the guest into reclaim.  The guest
 * has no file-backed page cache (initramfs is tmpfs, i.e. swap-backed), so
 * reclaim needs swap: a zram device provides it.
 */
#include "guestlib.h"

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

int main(void)
{
	long long scan0, steal0, swpout0, avail;
	char mb[24], line[64] = "";
	char *argv[] = { GUEST_HOG, "-m", mb, "-a", "0", NULL };
	int ready, st = -1;
	pid_t pid;

	protect_self();
	if (zram_swap_on(128) < 0)
		tap_bail("zram swap on");
	tap_ok(meminfo_kb("SwapTotal") > 0, "zram swap is on (%lld kB)", meminfo_kb("SwapTotal"));

	avail = meminfo_kb("MemAvailable");
	snprintf(mb, sizeof(mb), "%lld", avail / 1024 + 48);
	scan0 = vmstat_pgscan();
	steal0 = vmstat_pgsteal();
	swpout0 = vmstat_get("pswpout");
	tap_diag("MemAvailable %lld kB, hog %s MB", avail, mb);

	pid = spawn(argv, &ready);
	if (pid < 0)
		tap_bail("spawn hog");
	tap_ok(read_line_timeout(ready, line, sizeof(line), 120000) > 0,
	       "hog touched MemAvailable + 48 MB: %.*s", (int)strcspn(line, "\n"), line);
	tap_ok(wait_pid_timeout(pid, &st, 60000) == 0 && WIFEXITED(st) &&
	       WEXITSTATUS(st) == 0, "hog exited normally (status %#x)", st);

	tap_ok(vmstat_pgscan() > scan0, "pgscan rose by %lld", vmstat_pgscan() - scan0);
	tap_ok(vmstat_pgsteal() > steal0, "pgsteal rose by %lld", vmstat_pgsteal() - steal0);
	tap_ok(vmstat_get("pswpout") > swpout0, "pswpout rose by %lld",
	       vmstat_get("pswpout") - swpout0);
	tap_ok(zram_swap_off() == 0, "swap off and zram reset");
	tap_ok(meminfo_kb("SwapTotal") == 0, "no swap left for later tests");
	return tap_done();
}
