// SPDX-License-Identifier: GPL-2.0
/*
 * memory.oom.priority (patch 15): the file and its bad input, and the
 * order of OOM kills it gives in a memcg OOM (siblings, nested cgroups,
 * 0 = never while anything else is eligible, only 0 left) and in a global
 * OOM, and its precedence with oom_score_adj -1000, vm.oom_victim and
 * memory.oom.group.  Each scenario holds small tasks in some cgroups and
 * ramps a big one in another until the OOM killer acts; the expected
 * victim is waited for first, so a wrong choice shows as the expected
 * victim surviving (the ramp, killed instead, takes the pressure away).
 * Each kill's netlink event must say why (patch 16): reason priority with
 * the deciding cgroup and value, name, group or badness, and the cgroup
 * ids of the victim and of the memcg that ran out.
 */
#define _GNU_SOURCE
#include "guestlib.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mnotify/mnotify.h>

#define WAIT_MS 60000
#define CTL "/usr/bin/mnotify-ctl"
#define OOM_VICTIM "/proc/sys/vm/oom_victim"

static char top[600];	/* the scenario's memcg, memory.max 64M */
static struct mnotify *nl;	/* the "oom" group */
static struct mnotify_event kills[128];
static int nkills;

static int collect(const struct mnotify_event *ev, void *arg)
{
	(void)arg;
	if (ev->type == MNOTIFY_EVENT_OOM_VICTIM &&
	    nkills < (int)(sizeof(kills) / sizeof(kills[0])))
		kills[nkills++] = *ev;
	return MNOTIFY_CB_OK;
}

/* the OOM event of @pid's kill (within 10 s), NULL if none came */
static const struct mnotify_event *kill_event(pid_t pid)
{
	long long end = now_ms() + 10000;

	for (;;) {
		for (int i = 0; i < nkills; i++)
			if (kills[i].u.oom.tgid == (uint32_t)pid)
				return &kills[i];
		if (now_ms() >= end || (mnotify_wait(nl, 200, collect, NULL) < 0 && errno != EINTR))
			return NULL;
	}
}

/*
 * @pid's kill event says @reason; for priority also @cg and @prio; the
 * victim's cgroup is @in, the memcg that ran out @memcg (NULL: global)
 */
static void why(pid_t pid, uint32_t reason, const char *cg, unsigned int prio,
		const char *in, const char *memcg, const char *what)
{
	const struct mnotify_event *ev = kill_event(pid);
	bool ok = ev && MNOTIFY_HAS(ev, why) && ev->why.reason == reason &&
		  ev->why.cgroup_id == cg_id(in) &&
		  ev->why.oom_memcg_id == (memcg ? cg_id(memcg) : 0);

	if (ok && reason == MNOTIFY_OOM_REASON_PRIORITY)
		ok = ev->why.priority == prio && ev->why.priority_cgroup_id == cg_id(cg);
	tap_ok(ok, "%s: the event says reason %s (%s), priority %u cgroup %llu, victim in %llu, memcg %llu",
	       what, mnotify_oom_reason_name(reason),
	       ev ? mnotify_oom_reason_name(ev->why.reason) : "no event",
	       ev ? ev->why.priority : 0, ev ? (unsigned long long)ev->why.priority_cgroup_id : 0ULL,
	       ev ? (unsigned long long)ev->why.cgroup_id : 0ULL,
	       ev ? (unsigned long long)ev->why.oom_memcg_id : 0ULL);
}

/* let @cg's children have memory.* files (@cg then takes no tasks itself) */
static void enable_memory_below(const char *cg)
{
	char f[800];

	snprintf(f, sizeof(f), "%s/cgroup.subtree_control", cg);
	if (write_file(f, "+memory") < 0)
		tap_bail("enable the memory controller below %s", cg);
}

/* make @cg the scenario's top cgroup, its children with memory.* files */
static void use_top(const char *cg, const char *what)
{
	if (!cg)
		tap_bail("set up %s", what);
	snprintf(top, sizeof(top), "%s", cg);
	enable_memory_below(top);
}

/*
 * mkdir @top/@rel with memory.oom.priority @prio (-1: leave the default);
 * @parent: enable the memory controller for children (it then takes no
 * tasks itself)
 */
static const char *mk(const char *rel, int prio, bool parent)
{
	static char path[8][700];
	static int n;
	char *p = path[n++ % 8], f[800], v[16];

	snprintf(p, sizeof(path[0]), "%s/%s", top, rel);
	if (mkdir(p, 0755) < 0 && errno != EEXIST)
		tap_bail("mkdir %s", p);
	if (parent)
		enable_memory_below(p);
	if (prio >= 0) {
		snprintf(f, sizeof(f), "%s/memory.oom.priority", p);
		snprintf(v, sizeof(v), "%d", prio);
		if (write_file(f, v) < 0)
			tap_bail("write %s", f);
	}
	return p;
}

/* a hog in cgroup @cg: holds @mb (hold) or allocates until killed */
static pid_t hog(const char *cg, int mb, const char *name, const char *adj, bool hold)
{
	char cmd[1024], line[64];
	char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	int ready = -1;
	pid_t pid;

	snprintf(cmd, sizeof(cmd), "echo $$ > %s/cgroup.procs && exec " GUEST_HOG
		 " -m %d -n %s -a %s%s", cg, mb, name, adj, hold ? " -H" : "");
	pid = spawn(argv, hold ? &ready : NULL);
	if (pid < 0)
		tap_bail("spawn %s", name);
	if (hold) {
		if (read_line_timeout(ready, line, sizeof(line), 30000) <= 0) {
			tap_diag("%s did not get ready", name);
			kill_reap(pid);
			pid = -1;
		}
		close(ready);
	}
	return pid;
}

/* @pid was OOM-killed (SIGKILL) within WAIT_MS */
static bool killed(pid_t pid, const char *what)
{
	int st = 0;

	if (pid < 0)
		return false;
	if (wait_pid_timeout(pid, &st, WAIT_MS) < 0) {
		tap_diag("%s still alive after %d ms", what, WAIT_MS);
		kill_reap(pid);
		return false;
	}
	return WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
}

static bool alive(pid_t pid)
{
	return pid > 0 && waitpid(pid, NULL, WNOHANG) == 0;
}

/* remove @top's subtree (children first) after its tasks are gone */
static void cleanup(const char *const rels[])
{
	char p[800];

	for (int i = 0; rels[i]; i++) {
		snprintf(p, sizeof(p), "%s/%s", top, rels[i]);
		rmdir(p);
	}
}

static void the_file(void)
{
	const char *cg = mk("file", -1, false);
	char f[800], *v;
	int bad = 0;
	static const struct {
		const char *value;
		int err;
	} bad_input[] = {
		{ "abc", EINVAL }, { "5x", EINVAL }, { "0x10", EINVAL }, { "\n", EINVAL },
		{ "1001", ERANGE }, { "-1", ERANGE }, { "99999999999", ERANGE },
	};

	snprintf(f, sizeof(f), "%s/memory.oom.priority", cg);
	v = read_file(f);
	tap_ok(v && !strcmp(v, "500\n"), "memory.oom.priority exists, default 500 (%s)",
	       v ? v : "absent");
	free(v);
	tap_ok(write_file(f, "900") == 0 && (v = read_file(f)) && !strcmp(v, "900\n"),
	       "900 can be set and read back");
	free(v);
	tap_ok(write_file(f, "0") == 0 && write_file(f, "1000") == 0,
	       "0 and 1000 (the range's ends) are accepted");
	for (size_t i = 0; i < sizeof(bad_input) / sizeof(bad_input[0]); i++) {
		const char *in = bad_input[i].value;
		int fd = open(f, O_WRONLY), e;
		ssize_t w = fd < 0 ? -1 : write(fd, in, strlen(in));

		e = errno;
		if (fd >= 0)
			close(fd);
		if (!(w < 0 && e == bad_input[i].err)) {
			tap_diag("'%s': %zd errno %d, want %d", in, w, e, bad_input[i].err);
			bad++;
		}
	}
	v = read_file(f);
	tap_ok(!bad && v && !strcmp(v, "1000\n"),
	       "non-numbers fail with EINVAL, out of range with ERANGE, nothing changed (%s)",
	       v ? v : "?");
	free(v);
	tap_ok(access("/sys/fs/cgroup/memory.oom.priority", F_OK) < 0 && errno == ENOENT,
	       "the root cgroup has no memory.oom.priority");

	/* mnotify-ctl, with the path as /proc/PID/cgroup gives it */
	char out[512], rel[700], *argv_set[] = { CTL, "set", "oom-priority", rel, "700", NULL };
	char *argv_get[] = { CTL, "get", "oom-priority", rel, NULL };
	char *argv_bad[] = { CTL, "set", "oom-priority", rel, "x", NULL };
	int rc;

	snprintf(rel, sizeof(rel), "%s", cg + strlen("/sys/fs/cgroup"));
	rc = run(argv_set, out, sizeof(out));
	tap_ok(rc == 0 && (v = read_file(f)) && !strcmp(v, "700\n"),
	       "mnotify-ctl set oom-priority %s 700 (%d: %s)", rel, rc, out);
	free(v);
	rc = run(argv_get, out, sizeof(out));
	tap_ok(rc == 0 && !strcmp(out, "700\n"), "mnotify-ctl get oom-priority: %s", out);
	rc = run(argv_bad, out, sizeof(out));
	tap_ok(rc == 2 && strstr(out, "'x' is not a number from 0 to 1000"),
	       "mnotify-ctl: non-numeric value: exit 2: %s", out);
	rc = run_as_nobody(argv_set, out, sizeof(out));
	tap_ok(rc == 1 && strstr(out, "Permission denied") && (v = read_file(f)) &&
	       !strcmp(v, "700\n"), "nobody: set oom-priority refused, unchanged: %s", out);
	free(v);
	rmdir(cg);
}

static void siblings(void)
{
	const char *hi = mk("hi", 900, false), *lo = mk("lo", 100, false);
	pid_t small = hog(hi, 8, "mnp-small", "0", true), big = hog(lo, 200, "mnp-big", "0", false);

	tap_ok(killed(small, "small"),
	       "siblings: the small task in the sibling with priority 900 went first");
	tap_ok(killed(big, "big"), "siblings: then the big one in the sibling with 100");
	why(small, MNOTIFY_OOM_REASON_PRIORITY, hi, 900, hi, top, "siblings, the small one");
	why(big, MNOTIFY_OOM_REASON_BADNESS, NULL, 0, lo, top, "siblings, the big one (alone)");
	cleanup((const char *const[]){ "hi", "lo", NULL });
}

static void never(void)
{
	const char *nv = mk("never", 0, false), *lo = mk("lo", 1, false);
	pid_t fat = hog(nv, 36, "mnp-fat", "0", true), big = hog(lo, 200, "mnp-big", "0", false);

	tap_ok(killed(big, "big"), "0: the task in the sibling with 1 went, not the bigger one below 0");
	tap_ok(alive(fat), "0: the task below 0 is alive");
	why(big, MNOTIFY_OOM_REASON_PRIORITY, lo, 1, lo, top, "0");
	kill_reap(fat);

	/* nothing but tasks below 0: the badness chooses among them */
	pid_t small = hog(nv, 8, "mnp-small", "0", true);

	big = hog(nv, 200, "mnp-big", "0", false);
	tap_ok(killed(big, "big"), "0 only: with nothing else eligible the biggest below 0 is killed");
	tap_ok(alive(small), "0 only: the small one below 0 is alive");
	kill_reap(small);
	cleanup((const char *const[]){ "never", "lo", NULL });
}

static void nested(void)
{
	const char *a = mk("a", 800, true), *b = mk("b", 200, false);
	const char *x = mk("a/x", 100, false), *y = mk("a/y", 900, false);
	pid_t px = hog(x, 8, "mnp-x", "0", true), py = hog(y, 8, "mnp-y", "0", true);
	pid_t big = hog(b, 200, "mnp-big", "0", false);

	tap_ok(killed(py, "a/y"), "nested: a (800) before b (200), inside a y (900) before x: a/y first");
	why(py, MNOTIFY_OOM_REASON_PRIORITY, a, 800, y, top, "nested, a/y (decided at a)");
	tap_ok(killed(px, "a/x"), "nested: then a/x");
	tap_ok(killed(big, "big"), "nested: then the big task in b");
	cleanup((const char *const[]){ "a/x", "a/y", "a", "b", NULL });
}

static void precedence(void)
{
	const char *hi = mk("hi", 1000, false), *lo = mk("lo", 1, false);
	pid_t prot = hog(hi, 8, "mnp-prot", "-1000", true);
	pid_t big = hog(lo, 200, "mnp-big", "0", false);

	tap_ok(killed(big, "big"), "oom_score_adj -1000 stays absolute: the task in 1 went");
	tap_ok(alive(prot), "the protected task in 1000 is alive");
	kill_reap(prot);

	/* vm.oom_victim first, then the priority */
	if (write_file(OOM_VICTIM, "mnp-named") < 0)
		tap_bail("set " OOM_VICTIM);
	pid_t named = hog(lo, 8, "mnp-named", "0", true), other = hog(hi, 8, "mnp-hi", "0", true);

	big = hog(lo, 200, "mnp-big", "0", false);
	tap_ok(killed(named, "named"), "vm.oom_victim wins over the priority: the named task in 1 first");
	why(named, MNOTIFY_OOM_REASON_NAME, NULL, 0, lo, top, "vm.oom_victim");
	tap_ok(killed(other, "hi"), "then the priority: the task in 1000 before the big one in 1");
	tap_ok(killed(big, "big"), "then the big one");
	write_file(OOM_VICTIM, "\n");

	/* memory.oom.group kills the chosen task's whole group */
	char f[800];

	snprintf(f, sizeof(f), "%s/memory.oom.group", hi);
	if (write_file(f, "1") < 0)
		tap_bail("set %s", f);
	pid_t g1 = hog(hi, 8, "mnp-g1", "0", true), g2 = hog(hi, 8, "mnp-g2", "0", true);

	big = hog(lo, 200, "mnp-big", "0", false);
	tap_ok(killed(g1, "g1") && killed(g2, "g2"),
	       "memory.oom.group: both tasks of the group chosen by priority were killed");
	const struct mnotify_event *e1 = kill_event(g1), *e2 = kill_event(g2);
	uint32_t r1 = e1 ? e1->why.reason : 99, r2 = e2 ? e2->why.reason : 99;

	tap_ok((r1 == MNOTIFY_OOM_REASON_PRIORITY && r2 == MNOTIFY_OOM_REASON_GROUP) ||
	       (r2 == MNOTIFY_OOM_REASON_PRIORITY && r1 == MNOTIFY_OOM_REASON_GROUP),
	       "memory.oom.group: one event says priority, the other group (%s, %s)",
	       mnotify_oom_reason_name(r1), mnotify_oom_reason_name(r2));
	tap_ok(killed(big, "big"), "then the big one");
	cleanup((const char *const[]){ "hi", "lo", NULL });
}

/* a global OOM: no memory.max anywhere on the way */
static void global(long long total_mb)
{
	char hi[700], lo[700];

	use_top(cg_make("mnp-global"), "the global scenario's cgroup");
	snprintf(hi, sizeof(hi), "%s", mk("hi", 900, false));
	snprintf(lo, sizeof(lo), "%s", mk("lo", -1, false));

	long long k0 = vmstat_get("oom_kill");
	pid_t small = hog(hi, 8, "mnp-small", "0", true);
	pid_t big = hog(lo, (int)(total_mb * 2), "mnp-big", "0", false);

	tap_ok(killed(small, "small"), "global: the small task in 900 went first");
	why(small, MNOTIFY_OOM_REASON_PRIORITY, hi, 900, hi, NULL, "global");
	tap_ok(killed(big, "big"), "global: then the big one (default 500)");
	tap_ok(vmstat_get("oom_kill") == k0 + 2, "global: exactly two OOM kills (%lld)",
	       vmstat_get("oom_kill") - k0);
	cleanup((const char *const[]){ "hi", "lo", NULL });
	rmdir(top);
}

int main(void)
{
	long long total = meminfo_kb("MemTotal") / 1024;
	char f[800];

	if (access("/sys/fs/cgroup/cgroup.controllers", F_OK) < 0)
		tap_bail("cgroup v2 is not mounted");
	protect_self();
	if (mnotify_open(&nl, MNOTIFY_GROUP_OOM))
		tap_bail("join the oom group");
	use_top(cg_make_limited("mnp-memcg", "64M"), "the memcg (memory.max 64M)");

	long long k0 = vmstat_get("oom_kill");

	the_file();
	siblings();
	never();
	nested();
	precedence();
	snprintf(f, sizeof(f), "%s/memory.events", top);
	tap_ok(kv_get(f, "oom_kill") == vmstat_get("oom_kill") - k0,
	       "every kill so far was a memcg OOM kill of the scenario's cgroup (%lld)",
	       kv_get(f, "oom_kill"));
	rmdir(top);
	global(total);
	mnotify_close(nl);
	return tap_done();
}
