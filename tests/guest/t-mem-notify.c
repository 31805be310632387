// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/mem_notify: the device, its /proc/zoneinfo state, and wake-ups of
 * a poll, a select and an epoll watcher, together, when a hog pushes the
 * guest into reclaim, without swap, with zram swap, and with MGLRU; exit
 * from pressure once the hog frees its memory; a told file stays readable
 * until read() takes its report.
 */
#define _GNU_SOURCE
#include "guestlib.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "uapi/linux/mem_notify.h"

#define DEV "/dev/mem_notify"
#define SYSFS "/sys/kernel/mm/mem_notify/"
#define WATCH_MS 120000
#define NR_MECH (WAIT_EPOLL + 1)	/* poll, select, epoll */

#define mech_name wait_mech_name

static bool readable_now(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

/* child: wait on a fresh fd with MECH, report on OUT; exit 0 if woken readable */
static int watcher(enum wait_mech m, int out)
{
	int fd = open(DEV, O_RDONLY | O_CLOEXEC);
	bool r;
	char msg[64];

	if (fd < 0)
		return 2;
	dprintf(out, "waiting\n");
	r = wait_readable(m, fd, WATCH_MS);
	snprintf(msg, sizeof(msg), "%s %lld\n", r ? "woke" : "timeout", now_ms());
	dprintf(out, "%s", msg);
	return r ? 0 : 1;
}

static void scenario(const char *cfg, bool check_guard, bool loop)
{
	long long avail = meminfo_kb("MemAvailable") / 1024, total = meminfo_kb("MemTotal") / 1024;
	char mb[24], fast[24], line[64];
	char *hog_argv[] = { GUEST_HOG, "-m", mb, "-F", fast, "-r", "8", "-H", "-a", "1000",
			     loop ? "-L" : NULL, NULL };
	int p[NR_MECH][2], hogfd, st, started = 0;
	long long t0;
	pid_t w[NR_MECH], hog;
	bool freed, woke = true;

	/* with -L the hog stops at RAM + 32 MB and keeps swapping */
	snprintf(mb, sizeof(mb), "%lld", loop ? avail + 32 : total * 2);
	snprintf(fast, sizeof(fast), "%lld", avail > 48 ? avail - 40 : 8);
	/* one watcher per mechanism, all waiting on the same episode */
	for (int m = 0; m < NR_MECH; m++) {
		if (pipe2(p[m], O_CLOEXEC) < 0)
			tap_bail("pipe");
		w[m] = fork();
		if (w[m] == 0) {
			close(p[m][0]);
			_exit(watcher(m, p[m][1]));
		}
		close(p[m][1]);
		if (read_line_timeout(p[m][0], line, sizeof(line), 10000) > 0 &&
		    !strcmp(line, "waiting\n"))
			started++;
	}
	if (started != NR_MECH) {
		tap_ok(false, "%s: %d of %d watchers started", cfg, started, NR_MECH);
		for (int m = 0; m < NR_MECH; m++) {
			kill_reap(w[m]);
			close(p[m][0]);
		}
		return;
	}
	t0 = now_ms();
	hog = spawn(hog_argv, &hogfd);
	if (hog < 0)
		tap_bail("spawn hog");
	for (int m = 0; m < NR_MECH; m++) {
		bool ok = read_line_timeout(p[m][0], line, sizeof(line), WATCH_MS + 5000) > 0 &&
			  !strncmp(line, "woke ", 5);

		tap_ok(ok, "%s/%s: watcher woken by pressure (%lld ms after the hog started)",
		       cfg, mech_name[m], ok ? atoll(line + 5) - t0 : -1LL);
		woke &= ok;
	}
	tap_diag("%s: zones under pressure now: %d", cfg, zones_under_pressure());

	if (check_guard && woke) {
		/*
		 * Sustained pressure (the hog keeps swapping): file A, once
		 * told, stays readable through another poll (no side
		 * effect) until read() takes its report; then it is not.
		 */
		int a = open(DEV, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		struct pollfd pa = { .fd = a, .events = POLLIN };
		struct mem_notify_report rep = { 0 };
		bool a1 = poll(&pa, 1, 30000) == 1 && (pa.revents & POLLIN);
		bool a2 = readable_now(a);
		bool rd1 = read(a, &rep, sizeof(rep)) == sizeof(rep);
		bool a3 = readable_now(a);

		tap_ok(a1 && a2 && rd1 && rep.level >= MEM_NOTIFY_LEVEL_LOW && !a3,
		       "a told file stays readable (%d %d) until read() takes the report (%d, level %u), then not (%d)",
		       a1, a2, rd1, rep.level, a3);
		close(a);
	}

	kill(hog, SIGUSR1);
	freed = read_line_timeout(hogfd, line, sizeof(line), 60000) > 0 && !strcmp(line, "freed\n");
	if (!freed) {
		/* the hog may have run into the OOM killer first: also frees */
		tap_diag("%s: hog did not report freed: %s", cfg, line);
	}
	/* the level is re-evaluated every 50 ms: allow a few rounds */
	int under = zones_under_pressure();

	for (int i = 0; i < 100 && under; i++) {
		poll(NULL, 0, 20);
		under = zones_under_pressure();
	}
	int fd = open(DEV, O_RDONLY | O_CLOEXEC);
	bool rd = readable_now(fd);

	close(fd);
	tap_ok(under == 0 && !rd, "%s: after the hog freed its memory no zone is under pressure (%d) and POLLIN is clear (%d)",
	       cfg, under, rd);
	kill(hog, SIGTERM);
	if (wait_pid_timeout(hog, &st, 30000) < 0)
		kill_reap(hog);
	close(hogfd);
	for (int m = 0; m < NR_MECH; m++) {
		if (wait_pid_timeout(w[m], &st, 10000) < 0)
			kill_reap(w[m]);
		close(p[m][0]);
	}
}

/* many tasks open and close the device (some with FASYNC): counts return to 0 */
static void churn(void)
{
	enum { KIDS = 16, ROUNDS = 200, HELD = 10 };
	pid_t kids[KIDS];
	int held[HELD], i, bad = 0;

	for (i = 0; i < HELD; i++)
		held[i] = open(DEV, O_RDONLY | O_CLOEXEC);
	tap_ok(read_ll(SYSFS "watchers") == HELD,
	       "watchers counts %d open files (%lld)", HELD, read_ll(SYSFS "watchers"));
	for (i = 0; i < HELD; i++)
		close(held[i]);
	for (i = 0; i < KIDS; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			for (int r = 0; r < ROUNDS; r++) {
				int fd = open(DEV, O_RDONLY);

				if (fd < 0)
					_exit(1);
				if (r & 1) {
					fcntl(fd, F_SETOWN, getpid());
					fcntl(fd, F_SETFL, O_ASYNC);
				}
				close(fd);
			}
			_exit(0);
		}
	}
	for (i = 0; i < KIDS; i++) {
		int st;

		if (kids[i] < 0 || wait_pid_timeout(kids[i], &st, 60000) < 0 || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			bad++;
	}
	tap_ok(bad == 0, "%d tasks opened and closed " DEV " %d times each (half with FASYNC)",
	       KIDS, ROUNDS);
	tap_ok(read_ll(SYSFS "watchers") == 0 && read_ll(SYSFS "fasync_watchers") == 0,
	       "afterwards watchers and fasync_watchers are back to 0 (%lld, %lld)",
	       read_ll(SYSFS "watchers"), read_ll(SYSFS "fasync_watchers"));
}

int main(void)
{
	struct zone_state z[MAX_ZONES];
	long long node_present = 0;
	struct stat sb;
	int n, fd, i;

	protect_self();

	tap_ok(stat(DEV, &sb) == 0 && S_ISCHR(sb.st_mode) && major(sb.st_rdev) == 1 &&
	       minor(sb.st_rdev) == 13 && (sb.st_mode & 07777) == 0444,
	       DEV " is char 1:13, mode 0444");
	fd = open(DEV, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		tap_bail("open " DEV);
	n = zoneinfo_read(z, MAX_ZONES);
	tap_ok(zones_under_pressure() == 0 && !readable_now(fd),
	       "idle guest: no zone under pressure, device not readable");
	close(fd);

	for (i = 0; i < n; i++)
		if (z[i].node == 0)
			node_present += z[i].present;
	bool all_have = n > 0, tiny_ok = true, seen_tiny = false, seen_big = false;

	for (i = 0; i < n; i++) {
		bool tiny = z[i].present < node_present / 10;

		if (!z[i].present)
			continue;	/* unpopulated: zoneinfo prints no details */
		all_have &= z[i].mem_notify != -2;
		tiny_ok &= z[i].mem_notify == (tiny ? -1 : 0);
		seen_tiny |= tiny && z[i].present > 0;
		seen_big |= !tiny;
		tap_diag("zone %s: present %lld of %lld, mem_notify_status %d", z[i].name,
			 z[i].present, node_present, z[i].mem_notify);
	}
	tap_ok(all_have, "every populated zone in /proc/zoneinfo has mem_notify_status");
	tap_ok(tiny_ok && seen_tiny && seen_big,
	       "populated zones under a tenth of the node (DMA) show -1, the others 0");

	churn();
	long long ev0 = read_ll(SYSFS "events");

	scenario("noswap", false, false);
	tap_ok(read_ll(SYSFS "events") >= ev0 + 3 && read_ll(SYSFS "zones_under_pressure") == 0,
	       "the events counter rose by %lld (3 wakes at least), zones_under_pressure is 0",
	       read_ll(SYSFS "events") - ev0);

	if (zram_swap_on(96) < 0)
		tap_bail("zram swap on");
	scenario("zram", false, false);
	/*
	 * Sustained pressure: the hog stops at RAM + 32 MB and keeps swapping.
	 * Half of the zram swap is still free then, headroom enough for level
	 * none at the default thresholds: raise them for this scenario, low
	 * to 500 per mille, but below 7/10 of the idle headroom, so that the
	 * idle node is above low's exit (threshold + 1/4) again once the hog
	 * frees (the debug kernel's KASAN shadow and slab debugging leave an
	 * idle node with less than 625 per mille).
	 */
	{
		char *lv = read_file(SYSFS "levels"), th[80], name[16];
		long long node, hr = 0, t1 = 0, t2, t3, idle_pm, low;

		if (!lv || sscanf(lv, "%lld %15s %lld %lld %lld %lld", &node, name, &hr, &t1, &t2,
				  &t3) != 6 || t1 <= 0)
			tap_bail("read " SYSFS "levels");
		free(lv);
		idle_pm = hr * MN_THRESH_LOW / t1;	/* t1: the default low, in pages */
		low = idle_pm * 7 / 10 < 500 ? idle_pm * 7 / 10 : 500;
		snprintf(th, sizeof(th), "%lld %lld %lld", low, low * 4 / 5, low * 3 / 5);
		tap_diag("zram+loop: idle headroom %lld per mille, thresholds %s", idle_pm, th);
		if (write_file(SYSFS "thresholds", th) < 0)
			tap_bail("raise thresholds");
	}
	scenario("zram+loop", true, true);
	if (write_file(SYSFS "thresholds", MN_THRESH_DEFAULT) < 0)
		tap_bail("restore thresholds");

	if (write_file("/sys/kernel/mm/lru_gen/enabled", "y") < 0)
		tap_bail("enable MGLRU");
	char *en = read_file("/sys/kernel/mm/lru_gen/enabled");

	tap_ok(en && strtol(en, NULL, 0) != 0, "MGLRU enabled at runtime (%s)", en ? en : "?");
	free(en);
	scenario("mglru+zram", false, false);
	write_file("/sys/kernel/mm/lru_gen/enabled", "n");
	tap_ok(zram_swap_off() == 0, "swap off");
	return tap_done();
}
