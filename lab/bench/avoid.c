// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * avoid SCENARIO SRC RUNS: OOM avoidance.  CACHES cooperating
 * mnotify-cache processes of CACHE_MB each, told by SRC (none: the
 * baseline, psi, chardev, netlink), and a workload that ramps at 16 MB/s
 * to what was available before the caches minus a margin (24 MB above
 * earlyoom's 10%; plus a quarter of the swap), i.e. more than is left
 * while the caches are held, in a guest set up as SCENARIO.  earlyoom runs at its
 * defaults, as an administrator would have it.  Kernel OOM kills,
 * earlyoom's kills, and whether the workload completed.
 */
#define _GNU_SOURCE
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "sources.h"

#define CACHES 4
#define CACHE_MB 32
#define CACHE "/tests/mnotify-cache"

/* count earlyoom's "sending SIGTERM|SIGKILL to process" lines on @fd */
static int earlyoom_kills(int fd, char *victim, size_t len)
{
	char buf[4096];
	ssize_t n;
	int kills = 0;

	while ((n = read(fd, buf, sizeof(buf) - 1)) > 0) {
		char *p = buf;

		buf[n] = '\0';
		/* not its first line, "sending SIGTERM when mem <= ..." */
		while ((p = strstr(p, " to process "))) {
			char *q = strchr(p, '"');

			if (q && !kills)
				snprintf(victim, len, "%.*s", (int)strcspn(q + 1, "\""), q + 1);
			kills++;
			p++;
		}
	}
	return kills;
}

int cmd_avoid(const char *scenario, const char *src, int runs)
{
	if (strcmp(src, "none") && strcmp(src, "psi") && strcmp(src, "chardev") &&
	    strcmp(src, "netlink")) {
		fprintf(stderr, "mnotify-bench: avoid: source none, psi, chardev or netlink\n");
		return 2;
	}
	if (scenario_start(scenario))
		return 1;
	for (int r = 0; r < runs; r++) {
		char mb[24], line[128], victim[64] = "-";
		char cmb[16];
		char *cache_argv[] = { CACHE, "-s", (char *)src, "-m", cmb, "-n", "mnv-cache", NULL };
		char *work_argv[] = { (char *)hog_path, "-m", mb, "-r", "16", "-p", "data", "-a", "0",
				      "-n", "mnv-work", NULL };
		pid_t caches[CACHES], work, eo;
		int outs[CACHES], ready = 0, dropped = 0, completed = 0, eo_out = -1, st, eo_kills;
		long long avail0, k0, k1;
		uint64_t t0;

		if (!strcmp(scenario, "pagecache") && r > 0)
			scenario_stop(scenario), scenario_start(scenario);
		snprintf(cmb, sizeof(cmb), "%d", CACHE_MB);
		/*
		 * The workload fits only if the caches go: what was available
		 * before them, less a margin, plus a quarter of the swap (zram
		 * holds about 2:1 of these pages, so it gives back about half
		 * its size in memory; a quarter keeps a margin there too).  The
		 * margin is 24 MB above earlyoom's line (10% of MemTotal
		 * available): a workload that fits must not be killed by it.
		 */
		avail0 = meminfo_kb("MemAvailable") / 1024;
		snprintf(mb, sizeof(mb), "%lld",
			 avail0 - 24 - meminfo_kb("MemTotal") / 1024 / 10 +
			 meminfo_kb("SwapFree") / 1024 / 4);
		for (int i = 0; i < CACHES; i++) {
			caches[i] = spawn_out(cache_argv, &outs[i], 0);
			if (caches[i] > 0 && read_line_timeout(outs[i], line, sizeof(line), 30000) > 0 &&
			    !strncmp(line, "ready", 5))
				ready++;
		}
		eo = earlyoom_start(false, &eo_out);
		sleep(1);
		k0 = vmstat_get("oom_kill");
		t0 = now_ns();
		work = spawn_out(work_argv, &st, 0);
		close(st);
		while (work > 0) {
			if (waitpid(work, &st, WNOHANG) == work) {
				completed = WIFEXITED(st) && WEXITSTATUS(st) == 0;
				break;
			}
			if (now_ns() - t0 > 300000000000ull) {
				reap(work);
				break;
			}
			usleep(100000);
		}
		k1 = vmstat_get("oom_kill");
		eo_kills = eo_out >= 0 ? earlyoom_kills(eo_out, victim, sizeof(victim)) : -1;
		for (int i = 0; i < CACHES; i++) {
			int d = 0;

			/* a cache trims in steps: count caches that gave memory back */
			while (read_line_timeout(outs[i], line, sizeof(line), 0) > 0)
				if (!strncmp(line, "dropped", 7))
					d = 1;
			dropped += d;
			reap(caches[i]);
			close(outs[i]);
		}
		reap(eo);
		if (eo_out >= 0)
			close(eo_out);
		printf("avoid scenario=%s source=%s run=%d caches=%d cache_mb=%d workload_mb=%s ready=%d oom_kills=%lld earlyoom_kills=%d earlyoom_victim=%s completed=%d caches_dropped=%d duration_s=%.1f\n",
		       scenario, src, r, CACHES, CACHE_MB, mb, ready, k1 - k0, eo_kills, victim,
		       completed, dropped, (double)(now_ns() - t0) / 1e9);
		fflush(stdout);
		sleep(1);
	}
	scenario_stop(scenario);
	return 0;
}
