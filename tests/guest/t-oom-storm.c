// SPDX-License-Identifier: GPL-2.0
/*
 * OOM storm and a slow subscriber: 50 consecutive OOM kills (15 on the
 * debug kernel) with two "oom" subscribers attached.  The one that reads gets exactly one event per
 * kill, naming the task that died, with consecutive sequence numbers (or
 * the stats count the loss).  The one that never reads (smallest socket
 * buffer) overflows: the kernel keeps going, kernel memory stays bounded,
 * the reader misses nothing, and when the slow one reads again the library
 * reports the loss and resyncs from the zone dump.  Last, memory.oom.group:
 * one event per task killed, though the chosen one is killed twice.
 */
#define _GNU_SOURCE
#include "guestlib.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mnotify/mnotify.h>

#define KILLS 50	/* the debug kernel: 15 (see main) */

struct col {
	int events;
	int lost_notices;
	unsigned long long lost_counted;
	uint64_t first_seq, last_seq;
	int gaps;
	pid_t pids[KILLS * 2];
	int zones, nodes;
};

static int collect(const struct mnotify_event *ev, void *arg)
{
	struct col *c = arg;

	/* the oom group numbers kills and OOM candidate events together */
	if (ev->group == MNOTIFY_GROUP_OOM) {
		if (c->last_seq && ev->seq != c->last_seq + 1)
			c->gaps++;
		if (!c->first_seq)
			c->first_seq = ev->seq;
		c->last_seq = ev->seq;
	}
	switch (ev->type) {
	case MNOTIFY_EVENT_OOM_VICTIM:
		if (c->events < KILLS * 2)
			c->pids[c->events] = (pid_t)ev->u.oom.pid;
		c->events++;
		break;
	case MNOTIFY_EVENT_LOST:
		c->lost_notices++;
		c->lost_counted += ev->u.lost.count;
		break;
	case MNOTIFY_EVENT_ZONE_STATE:
		c->zones++;
		break;
	case MNOTIFY_EVENT_NODE_STATE:
		c->nodes++;
		break;
	default:
		break;
	}
	return MNOTIFY_CB_OK;
}

static char group_cg[700];

/* a child that joins group_cg and execs @argv */
static pid_t spawn_in_group(char *const argv[])
{
	char procs[800];
	pid_t p;

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", group_cg);
	p = fork();
	if (p == 0) {
		if (write_file(procs, "0") < 0)
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	return p;
}

struct group_col {
	int events, with_points;
	pid_t tgid[4];
};

static int collect_group(const struct mnotify_event *ev, void *arg)
{
	struct group_col *g = arg;

	if (ev->type != MNOTIFY_EVENT_OOM_VICTIM)
		return MNOTIFY_CB_OK;
	if (g->events < 4)
		g->tgid[g->events] = (pid_t)ev->u.oom.tgid;
	g->events++;
	g->with_points += ev->u.oom.has_points;
	tap_diag("oom.group: event pid %u comm %s points %s constraint %s", ev->u.oom.pid,
		 ev->u.oom.comm, ev->u.oom.has_points ? "yes" : "no",
		 mnotify_constraint_name(ev->u.oom.constraint));
	return MNOTIFY_CB_OK;
}

/*
 * memory.oom.group: the OOM killer kills the chosen task, then every task
 * of its group, the chosen one again: one event per task all the same.
 */
static void test_oom_group(struct mnotify *h)
{
	char *sleeper_argv[] = { GUEST_HOG, "-m", "1", "-H", "-a", "0", "-n", "grp-sleep", NULL };
	char *hog_argv[] = { GUEST_HOG, "-m", "200", "-a", "500", "-n", "grp-hog", NULL };
	struct group_col g = { 0 };
	long long k0 = vmstat_get("oom_kill");
	int st1 = 0, st2 = 0;
	pid_t sleeper, hog;

	const char *cg = cg_make("mnv-group");
	char f[800];

	if (!cg)
		tap_bail("mkdir cgroup mnv-group");
	snprintf(group_cg, sizeof(group_cg), "%s", cg);
#define CGW(file, val) (snprintf(f, sizeof(f), "%s/%s", group_cg, file), write_file(f, val))
	if (CGW("memory.max", "48M") < 0 || CGW("memory.swap.max", "0") < 0 ||
	    CGW("memory.oom.group", "1") < 0)
		tap_bail("set up %s", group_cg);
#undef CGW
	sleeper = spawn_in_group(sleeper_argv);
	hog = spawn_in_group(hog_argv);
	if (sleeper < 0 || hog < 0)
		tap_bail("spawn into %s", group_cg);
	if (wait_pid_timeout(hog, &st1, 60000) < 0)
		kill_reap(hog);
	if (wait_pid_timeout(sleeper, &st2, 30000) < 0)
		kill_reap(sleeper);
	for (int i = 0; i < 50 && g.events < 2; i++)
		mnotify_wait(h, 200, collect_group, &g);
	mnotify_wait(h, 500, collect_group, &g);	/* a third would be a bug */
	tap_ok(WIFSIGNALED(st1) && WTERMSIG(st1) == SIGKILL && WIFSIGNALED(st2) &&
	       WTERMSIG(st2) == SIGKILL, "oom.group: the hog and its group's sleeper were killed");
	tap_ok(g.events == 2 && g.with_points == 1 && g.tgid[0] != g.tgid[1],
	       "oom.group: one event per task killed (%d events, %d with points; oom_kill +%lld)",
	       g.events, g.with_points, vmstat_get("oom_kill") - k0);
	rmdir(group_cg);
}

int main(void)
{
	long long total = meminfo_kb("MemTotal") / 1024, kills0, kills1, slab0, slab1;
	struct mnotify *fast, *slow, *cmd;
	struct mnotify_stats st0, st1;
	struct col cf = { 0 }, cs = { 0 };
	pid_t victims[KILLS];
	char mb[24];
	char *argv[] = { GUEST_HOG, "-m", mb, "-a", "0", "-n", "storm", NULL };
	int i, killed = 0, matched = 0, small = 1, err;
	/* the debug kernel covers the same paths with fewer, slower kills */
	int nkills = slow_kernel() ? 15 : KILLS;
	long long t0;

	protect_self();
	err = mnotify_open(&fast, MNOTIFY_GROUP_OOM);
	if (err == -ENOENT) {
		feature_missing("MEM_NOTIFY_NETLINK", "generic netlink family mem_notify");
		return tap_done();
	}
	if (err || mnotify_open(&slow, MNOTIFY_GROUP_OOM) || mnotify_open(&cmd, 0))
		tap_bail("open subscribers: %d", err);
	/* the slow one: the smallest receive buffer, and it never reads */
	setsockopt(mnotify_fd(slow), SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	snprintf(mb, sizeof(mb), "%lld", total * 2);
	mnotify_get_stats(cmd, &st0, sizeof(st0));
	kills0 = vmstat_get("oom_kill");
	slab0 = meminfo_kb("Slab");
	t0 = now_ms();

	for (i = 0; i < nkills; i++) {
		int status;
		pid_t p = spawn(argv, NULL);

		if (p < 0)
			tap_bail("spawn hog");
		victims[i] = p;
		if (wait_pid_timeout(p, &status, 60000) < 0) {
			kill_reap(p);
			tap_diag("kill %d: hog %d did not die within 60 s", i, p);
			continue;
		}
		if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
			killed++;
		if (mnotify_dispatch(fast, collect, &cf) < 0)
			tap_diag("dispatch failed");
	}
	/* the last events may still be on their way from the work item */
	for (i = 0; i < 50 && cf.events < killed; i++)
		mnotify_wait(fast, 100, collect, &cf);
	kills1 = vmstat_get("oom_kill");
	slab1 = meminfo_kb("Slab");
	mnotify_get_stats(cmd, &st1, sizeof(st1));

	tap_ok(killed == nkills, "%d of %d hogs killed by the OOM killer in %lld s", killed, nkills,
	       (now_ms() - t0) / 1000);
	tap_ok(kills1 - kills0 == killed, "oom_kill rose by %lld", kills1 - kills0);
	tap_ok(cf.events + (int)(st1.lost - st0.lost) == kills1 - kills0,
	       "reading subscriber: %d events + %llu counted lost = %lld kills", cf.events,
	       (unsigned long long)(st1.lost - st0.lost), kills1 - kills0);
	tap_ok((cf.gaps == 0 && cf.lost_notices == 0) || st1.lost > st0.lost,
	       "reading subscriber: sequence %llu..%llu, %d gaps, %d lost notices (a gap only where the stats count a loss)",
	       (unsigned long long)cf.first_seq, (unsigned long long)cf.last_seq, cf.gaps,
	       cf.lost_notices);
	for (i = 0; i < nkills; i++) {
		int j;

		for (j = 0; j < cf.events && j < KILLS * 2; j++)
			if (cf.pids[j] == victims[i])
				break;
		if (j < cf.events)
			matched++;
	}
	tap_ok(matched == killed, "every killed hog's pid is in an event (%d of %d)", matched, killed);
	tap_ok(st1.overrun > st0.overrun,
	       "stats: %llu events overran a subscriber (the slow one, which set NETLINK_BROADCAST_ERROR through the library), %llu lost, %llu sent",
	       (unsigned long long)(st1.overrun - st0.overrun),
	       (unsigned long long)(st1.lost - st0.lost),
	       (unsigned long long)(st1.sent - st0.sent));
	tap_ok(slab1 - slab0 < 4096, "Slab %lld kB -> %lld kB: kernel memory bounded", slab0, slab1);

	/* the slow subscriber reads at last: the library says what it missed */
	err = mnotify_dispatch(slow, collect, &cs);
	tap_ok(err > 0 && cs.lost_notices >= 1 && cs.events < killed,
	       "slow subscriber: a lost notice (%d) and only %d of %d events", cs.lost_notices,
	       cs.events, killed);
	err = mnotify_resync(slow, collect, &cs);
	tap_ok(err > 0 && cs.zones > 0 && cs.nodes > 0 && cs.zones + cs.nodes == err,
	       "slow subscriber resyncs from the dumps: %d zones and %d nodes", cs.zones, cs.nodes);

	test_oom_group(fast);
	mnotify_close(fast);
	mnotify_close(slow);
	mnotify_get_stats(cmd, &st1, sizeof(st1));
	tap_ok(st1.oom_subscribers == st0.oom_subscribers - 2,
	       "oom subscribers back to %u after closing both", st1.oom_subscribers);
	mnotify_close(cmd);
	{
		char *true_argv[] = { "/bin/true", NULL };
		int status;
		pid_t p = spawn(true_argv, NULL);

		tap_ok(p > 0 && wait_pid_timeout(p, &status, 10000) == 0 && WIFEXITED(status) &&
		       WEXITSTATUS(status) == 0, "the guest still runs new programs");
	}
	return tap_done();
}
