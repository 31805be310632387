// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * candidate SCENARIO SRC RUNS: "you are next".  A cache of CACHE_MB
 * (mnotify-cache --oom-only: it keeps everything whatever the level and
 * lets go only when told it is the OOM candidate) in a cgroup whose
 * memory.oom.priority is 900 (the administrator's "this goes first"), and
 * a workload that ramps at 16 MB/s to what was available before the cache
 * less a margin, so it fits only if the cache goes.  SRC: none (the
 * baseline: the cache is told nothing and is the OOM victim), chardev
 * (its own /dev/mem_notify file) or netlink (the oom group).  The bench
 * listens to the oom group throughout: for every kill, whether the last
 * OOM_CANDIDATE before it named the victim, and how long before the kill
 * the victim had been the candidate; without a kill, when the cache was
 * warned.  No earlyoom here: the kernel's OOM killer is what is predicted.
 */
#define _GNU_SOURCE
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mnotify/mnotify.h>

#include "bench.h"

#define CACHE_MB 96
#define CACHE "/tests/mnotify-cache"
#define CG "/sys/fs/cgroup/mnb-cache"

struct seen {
	pid_t cache;
	uint32_t candidate;	/* tgid of the last OOM_CANDIDATE, 0: none */
	uint64_t since_ns;	/* its time stamp */
	uint64_t cache_warned_ns;	/* first OOM_CANDIDATE naming the cache */
	int candidates;		/* OOM_CANDIDATE events */
	int kills, predicted;	/* kills, and those the last candidate named */
	double lead_ms;		/* candidate -> kill of the first kill */
	uint32_t victim;
};

static int on_oom(const struct mnotify_event *ev, void *arg)
{
	struct seen *s = arg;

	switch (ev->type) {
	case MNOTIFY_EVENT_OOM_CANDIDATE:
		s->candidates++;
		if (ev->u.oom.tgid != s->candidate)
			s->since_ns = ev->timestamp_ns;
		s->candidate = ev->u.oom.tgid;
		if (ev->u.oom.tgid == (uint32_t)s->cache && !s->cache_warned_ns)
			s->cache_warned_ns = ev->timestamp_ns;
		break;
	case MNOTIFY_EVENT_OOM_CANDIDATE_CLEAR:
		if (ev->u.oom.tgid == s->candidate)
			s->candidate = 0;
		break;
	case MNOTIFY_EVENT_OOM_VICTIM:
		if (!s->kills++) {
			s->victim = ev->u.oom.tgid;
			s->lead_ms = s->candidate == ev->u.oom.tgid ?
				     (double)(ev->timestamp_ns - s->since_ns) / 1e6 : -1;
		}
		if (s->candidate == ev->u.oom.tgid)
			s->predicted++;
		break;
	default:
		break;
	}
	return MNOTIFY_CB_OK;
}

int cmd_candidate(const char *scenario, const char *src, int runs)
{
	if (strcmp(src, "none") && strcmp(src, "chardev") && strcmp(src, "netlink")) {
		fprintf(stderr, "mnotify-bench: candidate: source none, chardev or netlink\n");
		return 2;
	}
	if (mkdir(CG, 0755) && errno != EEXIST) {
		perror("mnotify-bench: mkdir " CG);
		return 1;
	}
	/* the lead scenario's vmpressure mounted memory on cgroup v1 */
	if (memcg_v2() || write_file(CG "/memory.oom.priority", "900")) {
		fprintf(stderr, "mnotify-bench: candidate: memory.oom.priority: %s\n",
			strerror(errno));
		return 1;
	}
	if (scenario_start(scenario))
		return 1;
	for (int r = 0; r < runs; r++) {
		char mb[24], line[128], cmd[512];
		char *cache_argv[] = { "/bin/sh", "-c", cmd, NULL };
		char *work_argv[] = { (char *)hog_path, "-m", mb, "-r", "16", "-p", "data", "-a", "0",
				      "-n", "mnb-work", NULL };
		struct seen s = { 0 };
		struct mnotify *h = NULL;
		int out, st, completed = 0, ready = 0, dropped = 0;
		long long avail0, k0, k1;
		uint64_t t0, dropped_ns = 0;
		pid_t work;

		if (!strcmp(scenario, "pagecache") && r > 0)
			scenario_stop(scenario), scenario_start(scenario);
		/* the workload fits only if the cache goes (a 24 MB margin) */
		avail0 = meminfo_kb("MemAvailable") / 1024;
		snprintf(mb, sizeof(mb), "%lld", avail0 - 24 + meminfo_kb("SwapFree") / 1024 / 4);
		/* killable: the guest's init is at -1000 and children inherit it */
		snprintf(cmd, sizeof(cmd), "echo $$ > " CG "/cgroup.procs && "
			 "echo 0 > /proc/$$/oom_score_adj && exec " CACHE
			 " -o -m %d -n mnb-cache -s %s", CACHE_MB, src);
		s.cache = spawn_out(cache_argv, &out, 0);
		if (s.cache > 0 && read_line_timeout(out, line, sizeof(line), 30000) > 0 &&
		    !strncmp(line, "ready", 5))
			ready = 1;
		if (mnotify_open(&h, MNOTIFY_GROUP_OOM)) {
			fprintf(stderr, "mnotify-bench: candidate: cannot join the oom group\n");
			reap(s.cache);
			return 1;
		}
		sleep(1);
		k0 = vmstat_get("oom_kill");
		t0 = now_ns();
		work = spawn_out(work_argv, &st, 0);
		close(st);
		while (work > 0) {
			mnotify_wait(h, 100, on_oom, &s);
			while (!dropped && read_line_timeout(out, line, sizeof(line), 0) > 0)
				if (strstr(line, "oom-candidate")) {
					dropped = 1;
					dropped_ns = now_ns();
				}
			if (waitpid(work, &st, WNOHANG) == work) {
				completed = WIFEXITED(st) && WEXITSTATUS(st) == 0;
				break;
			}
			if (now_ns() - t0 > 300000000000ull) {
				reap(work);
				break;
			}
		}
		/* the events of a kill at the very end */
		mnotify_wait(h, 500, on_oom, &s);
		k1 = vmstat_get("oom_kill");
		mnotify_close(h);
		printf("candidate scenario=%s source=%s run=%d cache_mb=%d workload_mb=%s ready=%d "
		       "oom_kills=%lld events_kills=%d predicted=%d first_victim=%s "
		       "candidate_to_kill_ms=%.0f candidates=%d cache_warned=%d "
		       "warned_to_dropped_ms=%.0f cache_dropped=%d completed=%d duration_s=%.1f\n",
		       scenario, src, r, CACHE_MB, mb, ready, k1 - k0, s.kills, s.predicted,
		       !s.kills ? "-" : s.victim == (uint32_t)s.cache ? "cache" : "other",
		       s.kills ? s.lead_ms : -1.0, s.candidates, s.cache_warned_ns != 0,
		       dropped && s.cache_warned_ns ?
		       ((double)dropped_ns - (double)s.cache_warned_ns) / 1e6 : -1.0,
		       dropped, completed, (double)(now_ns() - t0) / 1e9);
		fflush(stdout);
		reap(s.cache);
		close(out);
		sleep(1);
	}
	scenario_stop(scenario);
	rmdir(CG);
	return 0;
}
