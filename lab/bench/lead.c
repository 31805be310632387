// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * lead SCENARIO RATE RUNS: a hog ramps at RATE MB/s (after a fast start
 * to 96 MB below MemAvailable) until the kernel OOM-kills it, in a guest
 * set up as SCENARIO (bench.h); every source of sources.h watches in the
 * same process.  One line per source: when it first fired, relative to
 * the start and to the OOM kill (the kernel's time stamps for mem_notify
 * and the kill, receipt time for the others); one line per run with the
 * mem_notify events before the kill (changes, returns to none) and whom
 * earlyoom would have killed; free memory every 100 ms.
 */
#define _GNU_SOURCE
#include <config.h>

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "sources.h"

int cmd_lead(const char *scenario, long long rate, int runs)
{
	long long total_mb = meminfo_kb("MemTotal") / 1024;

	if (scenario_start(scenario))
		return 1;
	for (int r = 0; r < runs; r++) {
		struct sources s;
		long long avail = meminfo_kb("MemAvailable") / 1024;
		long long swap = meminfo_kb("SwapFree") / 1024;
		uint64_t t0, last = 0;
		int st, dead = 0, unrecl = node_unreclaimable();
		pid_t hog;

		if (!strcmp(scenario, "pagecache") && r > 0)
			scenario_stop(scenario), scenario_start(scenario);
		if (sources_open(&s, true)) {
			fprintf(stderr, "mnotify-bench: no mem_notify family\n");
			return 1;
		}
		sleep(1);
		sources_poll(&s, 0);
		sources_reset(&s);	/* what fired while opening does not count */
		t0 = now_ns();
		hog = spawn_hog(2 * total_mb + swap, avail > 160 ? avail - 96 : 0, rate, false,
				"mnv-ramp", NULL);
		while (!dead && now_ns() - t0 < 600000000000ull) {
			sources_poll(&s, 100);
			if (waitpid(hog, &st, WNOHANG) == hog)
				dead = 1;
			if (now_ns() - last >= 100000000u) {
				last = now_ns();
				printf("sample scenario=%s mem_mb=%lld wsf=%lld run=%d t_ms=%.1f memfree_kb=%lld memavail_kb=%lld swapfree_kb=%lld\n",
				       scenario, total_mb, wsf(), r, (double)(last - t0) / 1e6,
				       meminfo_kb("MemFree"), meminfo_kb("MemAvailable"),
				       meminfo_kb("SwapFree"));
			}
		}
		if (!dead)
			reap(hog);
		/* the OOM event may follow the death by a moment */
		for (int i = 0; i < 20 && !s.oom_at; i++)
			sources_poll(&s, 100);
		for (int i = 0; i < S_NSRC; i++)
			printf("lead scenario=%s mem_mb=%lld wsf=%lld unreclaimable=%d run=%d rate_mb_s=%lld source=%s t_ms=%.1f before_oom_ms=%.1f count=%d\n",
			       scenario, total_mb, wsf(), unrecl, r, rate, src_name[i],
			       s.first[i] ? (double)(s.first[i] - t0) / 1e6 : -1.0,
			       s.first[i] && s.oom_at ? ((double)s.oom_at - (double)s.first[i]) / 1e6 : -1.0,
			       s.count[i]);
		printf("lead-run scenario=%s mem_mb=%lld wsf=%lld run=%d rate_mb_s=%lld oom_kills=%d oom_victim=%s oom_ms=%.1f mnotify_changes=%d mnotify_exits=%d earlyoom_victim=%s\n",
		       scenario, total_mb, wsf(), r, rate, s.ooms, s.oom_comm[0] ? s.oom_comm : "-",
		       s.oom_at ? (double)(s.oom_at - t0) / 1e6 : -1.0,
		       s.events, s.exits,
		       s.eo_victim[0] ? s.eo_victim : "-");
		fflush(stdout);
		sources_close(&s);
		sleep(2);
	}
	scenario_stop(scenario);
	return 0;
}
