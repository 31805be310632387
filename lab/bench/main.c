// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mnotify-bench: the lab's benchmark driver (not installed).  Runs in the
 * guest (./mnotify-lab bench); prints key=value result lines for
 * lab/bench-report.
 */
#define _GNU_SOURCE
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static const char usage_text[] =
"Usage: mnotify-bench latency poll|sigio|netlink|psi|pipe N\n"
"       mnotify-bench lead noswap|zram|pagecache RATE_MB_S RUNS\n"
"       mnotify-bench fp\n"
"       mnotify-bench avoid noswap|zram|pagecache none|psi|chardev|netlink RUNS\n"
"       mnotify-bench candidate noswap|zram|pagecache none|chardev|netlink RUNS\n"
"       mnotify-bench memcg noswap|zram RUNS\n"
"       mnotify-bench memcg-avoid noswap|zram none|netlink|chardev|psi RUNS\n"
"       mnotify-bench hotpath alloc|reclaim SECONDS REPS LISTEN(0|1)\n"
"\n"
"  latency  N watchers of a mechanism through pressure episodes: kernel time\n"
"           stamp to receipt, wake-ups and CPU time per event\n"
"  lead     a ramp to the OOM kill in a scenario: when every warning source\n"
"           (mem_notify levels and device, PSI triggers of lmkd and\n"
"           low-memory-monitor, vmpressure, a MemAvailable poller, earlyoom\n"
"           --dryrun) fires before the kill\n"
"  fp       false positives of a streaming read, then a ramp into the cache\n"
"  avoid    cooperating caches told by a source, a workload that needs their\n"
"           memory, earlyoom running: OOM kills and earlyoom kills\n"
"  candidate a cache that lets go only when told it is the OOM candidate\n"
"           (memory.oom.priority 900), a workload that needs its memory: how\n"
"           often the candidate named the victim, how long before the kill,\n"
"           and the kills when the cache is told (none: the baseline)\n"
"  memcg    a ramp in a 128 MB memory cgroup to its memcg OOM: when the\n"
"           cgroup's mem_notify levels, a device file bound to it, its\n"
"           memory.pressure PSI triggers and memory.events fire before the kill\n"
"  memcg-avoid a cooperating cache and a workload in that cgroup that fits\n"
"           only if the cache gives back: the cgroup's OOM kills per source\n"
"  hotpath  the hooks' cost on the page allocator and reclaim\n"
"\n"
"Environment: MNOTIFY_HOG (the hog, /tests/mnotify-hog), MNOTIFY_BENCH_EPISODES.\n"
"Runs in the guest of ./mnotify-lab bench; one key=value line per result.\n";

int main(int argc, char **argv)
{
	const char *h = getenv("MNOTIFY_HOG"), *e = getenv("MNOTIFY_BENCH_EPISODES");

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (h)
		hog_path = h;
	if (e && atoi(e) > 0)
		episodes_per_run = atoi(e);
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (argc == 2 && (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version"))) {
		printf("mnotify-bench %s\n", PACKAGE_VERSION);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "latency"))
		return cmd_latency(argv[2], atoi(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "lead"))
		return cmd_lead(argv[2], atoll(argv[3]), atoi(argv[4]));
	if (argc == 2 && !strcmp(argv[1], "fp"))
		return cmd_fp();
	if (argc == 5 && !strcmp(argv[1], "avoid"))
		return cmd_avoid(argv[2], argv[3], atoi(argv[4]));
	if (argc == 5 && !strcmp(argv[1], "candidate"))
		return cmd_candidate(argv[2], argv[3], atoi(argv[4]));
	if (argc == 4 && !strcmp(argv[1], "memcg"))
		return cmd_memcg(argv[2], atoi(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "memcg-avoid"))
		return cmd_memcg_avoid(argv[2], argv[3], atoi(argv[4]));
	if (argc == 6 && !strcmp(argv[1], "hotpath"))
		return cmd_hotpath(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
	fputs(usage_text, stderr);
	return 2;
}
