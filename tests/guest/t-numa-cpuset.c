// SPDX-License-Identifier: GPL-2.0
/*
 * memory.oom.priority and cpusets, in the two-node boot (qemu -numa, one
 * CPU and half the memory per node): a cpuset-constrained OOM never kills
 * outside the constraint because of a priority.  Three cgroups: "n0"
 * (cpuset.mems 0, priority 1000) and "n1hi" (mems 1, priority 900) each
 * hold a small task, "n1" (mems 1, default 500) ramps a hog until node 1
 * is full.  The OOM killer, constrained to node 1, takes the small task
 * in n1hi first (priority, inside the constraint), then the hog; the
 * small task on node 0, with the highest priority of all, is never
 * chosen: killing it frees nothing node 1 can use.  The OOM events say
 * constraint cpuset and why each victim was chosen.
 */
#define _GNU_SOURCE
#include "guestlib.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mnotify/mnotify.h>

#define WAIT_MS 60000

static struct mnotify *nl;
static struct mnotify_event kills[32];
static int nkills;

static int collect(const struct mnotify_event *ev, void *arg)
{
	(void)arg;
	if (ev->type == MNOTIFY_EVENT_OOM_VICTIM &&
	    nkills < (int)(sizeof(kills) / sizeof(kills[0])))
		kills[nkills++] = *ev;
	return MNOTIFY_CB_OK;
}

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

/* enable @ctl for the children of every cgroup from the root down to @cg */
static void enable_down_to(const char *cg, const char *ctl)
{
	char path[700], f[800];
	const char *p = cg + strlen("/sys/fs/cgroup");

	snprintf(path, sizeof(path), "/sys/fs/cgroup");
	for (;;) {
		snprintf(f, sizeof(f), "%s/cgroup.subtree_control", path);
		if (write_file(f, ctl) < 0)
			tap_bail("write %s to %s", ctl, f);
		if (!*p)
			break;
		const char *next = strchr(p + 1, '/');
		size_t len = next ? (size_t)(next - cg) : strlen(cg);

		snprintf(path, sizeof(path), "%.*s", (int)len, cg);
		p = next ? next : cg + strlen(cg);
	}
}

/* cgroup @name under cg_base() on node @node with priority @prio (-1: default) */
static const char *mk(const char *name, int node, int prio)
{
	static char paths[3][700];
	static int n;
	char *p = paths[n++ % 3], f[800], v[16];
	const char *cg = cg_make(name);

	if (!cg)
		tap_bail("mkdir %s", name);
	snprintf(p, sizeof(paths[0]), "%s", cg);
	snprintf(v, sizeof(v), "%d", node);
	snprintf(f, sizeof(f), "%s/cpuset.mems", p);
	if (write_file(f, v) < 0)
		tap_bail("write %s", f);
	snprintf(f, sizeof(f), "%s/cpuset.cpus", p);
	if (write_file(f, v) < 0)
		tap_bail("write %s", f);
	if (prio >= 0) {
		snprintf(f, sizeof(f), "%s/memory.oom.priority", p);
		snprintf(v, sizeof(v), "%d", prio);
		if (write_file(f, v) < 0)
			tap_bail("write %s", f);
	}
	return p;
}

static pid_t hog(const char *cg, int mb, const char *name, bool hold)
{
	char cmd[1024], line[64];
	char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	int ready = -1;
	pid_t pid;

	snprintf(cmd, sizeof(cmd), "echo $$ > %s/cgroup.procs && exec " GUEST_HOG
		 " -m %d -n %s -a 0%s", cg, mb, name, hold ? " -H" : "");
	pid = spawn(argv, hold ? &ready : NULL);
	if (pid < 0)
		tap_bail("spawn %s", name);
	if (hold) {
		if (read_line_timeout(ready, line, sizeof(line), 30000) <= 0)
			tap_bail("%s did not get ready", name);
		close(ready);
	}
	return pid;
}

static bool killed(pid_t pid, const char *what)
{
	int st = 0;

	if (wait_pid_timeout(pid, &st, WAIT_MS) < 0) {
		tap_diag("%s still alive after %d ms", what, WAIT_MS);
		kill_reap(pid);
		return false;
	}
	return WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
}

/*
 * the node holding at least 90% of @pid's anonymous pages (numa_maps
 * "N<node>=<pages>" on anon lines), -1 if none does
 */
static int node_of(pid_t pid)
{
	char f[64], *s, *line, *save = NULL;
	long pages[2] = { 0, 0 };

	snprintf(f, sizeof(f), "/proc/%d/numa_maps", pid);
	s = read_file(f);
	for (line = s ? strtok_r(s, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
		if (!strstr(line, " anon="))
			continue;
		for (char *p = line; (p = strstr(p, " N")); p += 2) {
			int n = atoi(p + 2);
			char *eq = strchr(p, '=');

			if (n >= 0 && n < 2 && eq)
				pages[n] += atol(eq + 1);
		}
	}
	free(s);
	for (int n = 0; n < 2; n++)
		if (pages[n] * 10 >= (pages[0] + pages[1]) * 9 && pages[n])
			return n;
	tap_diag("pid %d: anonymous pages on node 0: %ld, node 1: %ld", pid, pages[0], pages[1]);
	return -1;
}

int main(void)
{
	long long node1_mb;
	char f[800];

	if (access("/sys/devices/system/node/node1", F_OK) < 0)
		tap_bail("this boot has one NUMA node: t-numa-cpuset needs the two-node boot");
	node1_mb = kv_get("/sys/devices/system/node/node1/meminfo", "Node 1 MemTotal:") / 1024;
	tap_ok(node1_mb > 64, "two NUMA nodes, node 1 has %lld MB", node1_mb);
	/*
	 * the small task on node 0 must fit there: a cpuset OOM on node 0
	 * with nothing killable in it panics the kernel
	 */
	long long node0_free = kv_get("/sys/devices/system/node/node0/meminfo",
				      "Node 0 MemFree:") / 1024;
	if (node0_free < 48)
		tap_bail("node 0 has %lld MB free, the test needs 48: boot with more memory (MNOTIFY_NUMA_MEM)",
			 node0_free);
	protect_self();
	if (mnotify_open(&nl, MNOTIFY_GROUP_OOM))
		tap_bail("join the oom group");
	enable_down_to(cg_base(), "+cpuset");

	const char *n0 = mk("n0", 0, 1000), *n1hi = mk("n1hi", 1, 900), *n1 = mk("n1", 1, -1);
	pid_t far = hog(n0, 8, "mnn-far", true), near = hog(n1hi, 8, "mnn-near", true);

	tap_ok(node_of(far) == 0 && node_of(near) == 1,
	       "cpuset.mems puts the small tasks' memory on node 0 and node 1 (at least 90%%: %d, %d)",
	       node_of(far), node_of(near));

	long long k0 = vmstat_get("oom_kill");
	pid_t big = hog(n1, (int)(node1_mb * 2), "mnn-big", false);

	tap_ok(killed(near, "near"),
	       "a node-1 cpuset OOM takes the task in n1hi (900) first, inside the constraint");
	tap_ok(killed(big, "big"), "then the hog in n1 (500)");
	tap_ok(waitpid(far, NULL, WNOHANG) == 0,
	       "the task in n0 (priority 1000, memory on node 0) is never chosen");
	tap_ok(vmstat_get("oom_kill") == k0 + 2, "exactly two OOM kills (%lld)",
	       vmstat_get("oom_kill") - k0);

	const struct mnotify_event *e1 = kill_event(near), *e2 = kill_event(big);

	tap_ok(e1 && e1->u.oom.constraint == MNOTIFY_CONSTRAINT_CPUSET &&
	       e1->why.reason == MNOTIFY_OOM_REASON_PRIORITY && e1->why.priority == 900 &&
	       e1->why.priority_cgroup_id == cg_id(n1hi),
	       "the first event: constraint cpuset, reason priority 900 in n1hi (%s, %s, %u)",
	       e1 ? mnotify_constraint_name(e1->u.oom.constraint) : "-",
	       e1 ? mnotify_oom_reason_name(e1->why.reason) : "-", e1 ? e1->why.priority : 0);
	tap_ok(e2 && e2->u.oom.constraint == MNOTIFY_CONSTRAINT_CPUSET &&
	       e2->why.reason == MNOTIFY_OOM_REASON_BADNESS && e2->why.cgroup_id == cg_id(n1),
	       "the second: constraint cpuset, reason badness, victim in n1 (%s, %s)",
	       e2 ? mnotify_constraint_name(e2->u.oom.constraint) : "-",
	       e2 ? mnotify_oom_reason_name(e2->why.reason) : "-");
	kill_reap(far);
	snprintf(f, sizeof(f), "%s", n0);
	rmdir(f);
	rmdir(n1hi);
	rmdir(n1);
	mnotify_close(nl);
	return tap_done();
}
