// SPDX-License-Identifier: GPL-2.0
/*
 * vm.oom_victim: the sysctl itself, a global and a memcg OOM kill that
 * pick the task named like it first and fall back to the normal choice,
 * and no torn values while writes race with an OOM kill.
 */
#define _GNU_SOURCE
#include "guestlib.h"

#include <errno.h>
#include <linux/capability.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define SYSCTL "/proc/sys/vm/oom_victim"
/* the memcg of the memcg OOM test, beside the test's own cgroup */
static char cg_path[700];
#define CG cg_path

/* one read() call: the kernel copies the value atomically per call */
static char *get(void)
{
	char *buf = calloc(1, 64);
	int fd = open(SYSCTL, O_RDONLY | O_CLOEXEC);

	if (!buf || fd < 0 || read(fd, buf, 63) < 0) {
		free(buf);
		buf = NULL;
	}
	if (fd >= 0)
		close(fd);
	return buf;
}

static int set(const char *v)
{
	int fd = open(SYSCTL, O_WRONLY | O_CLOEXEC), r = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, v, strlen(v)) != (ssize_t)strlen(v))
		r = -errno;
	close(fd);
	return r;
}

static bool is(const char *want)
{
	char *v = get();
	bool r = v && !strcmp(v, want);

	free(v);
	return r;
}

static bool killed(pid_t pid, int ms, const char *what)
{
	int st = 0;

	if (wait_pid_timeout(pid, &st, ms) < 0) {
		tap_diag("%s still alive after %d ms", what, ms);
		kill_reap(pid);
		return false;
	}
	return WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
}

/* named small task + big hog (optionally in cgroup CG); small must die first */
static void named_first(const char *label, const char *cg, long long big_mb)
{
	char cmd_small[256], cmd_big[256], line[64];
	char *small_argv[] = { "/bin/sh", "-c", cmd_small, NULL };
	char *big_argv[] = { "/bin/sh", "-c", cmd_big, NULL };
	char enter[800] = "";
	int ready, st;
	pid_t small, big;

	if (cg)
		snprintf(enter, sizeof(enter), "echo $$ > %s/cgroup.procs && ", cg);
	snprintf(cmd_small, sizeof(cmd_small),
		 "%sexec " GUEST_HOG " -m 8 -n mnv-small -H -a 0", enter);
	snprintf(cmd_big, sizeof(cmd_big), "%sexec " GUEST_HOG " -m %lld -n mnv-big -a 0",
		 enter, big_mb);
	small = spawn(small_argv, &ready);
	if (small < 0 || read_line_timeout(ready, line, sizeof(line), 30000) <= 0) {
		tap_ok(false, "%s: small named task started", label);
		kill_reap(small);
		return;
	}
	close(ready);
	big = spawn(big_argv, NULL);
	if (big < 0)
		tap_bail("spawn big hog");
	/* the small one must go first, although the big one is far worse */
	tap_ok(killed(small, 180000, "small"), "%s: OOM killed the task matching oom_victim first",
	       label);
	tap_ok(killed(big, 180000, "big"),
	       "%s: with no match left, OOM fell back to the normal choice (the big hog)", label);
	(void)st;
}

int main(void)
{
	long long total = meminfo_kb("MemTotal") / 1024, k0;

	protect_self();
	tap_ok(is("\n"), SYSCTL " exists and is empty by default");
	tap_ok(set("kenny\n") == 0 && is("kenny\n"), "a name can be set and read back");
	tap_ok(set("123456789012345") == 0 && is("123456789012345\n"),
	       "15 characters (TASK_COMM_LEN - 1) fit");
	tap_ok(set("1234567890123456") == -EINVAL && is("123456789012345\n"),
	       "16 characters are rejected with EINVAL and change nothing");
	tap_ok(set("\n") == 0 && is("\n"), "writing an empty line turns it off");

	/* an unprivileged task may read but not write it */
	pid_t u = fork();

	if (u == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(2);
		_exit(set("nobody\n") == -EACCES && is("\n") ? 0 : 1);
	}
	int ust = -1;
	bool reaped = u > 0 && wait_pid_timeout(u, &ust, 10000) == 0;

	tap_ok(reaped && WIFEXITED(ust) && WEXITSTATUS(ust) == 0 && is("\n"),
	       "uid 65534 cannot write it (EACCES) and can read it (status %#x)", ust);

	/*
	 * Who may write is the file's mode (root), checked by the sysctl
	 * core at open and again at every write, as for every vm sysctl:
	 * no capability is checked, so a root descriptor written from a
	 * task that has become uid 65534 fails (EPERM, at write), and a
	 * root task without CAP_SYS_ADMIN writes it.
	 */
	int wfd = open(SYSCTL, O_WRONLY);

	u = fork();
	if (u == 0) {
		if (wfd < 0 || setgid(65534) || setuid(65534))
			_exit(2);
		_exit(write(wfd, "passed-fd\n", 10) < 0 && errno == EPERM ? 0 : 1);
	}
	ust = -1;
	reaped = u > 0 && wait_pid_timeout(u, &ust, 10000) == 0;
	if (wfd >= 0)
		close(wfd);
	tap_ok(reaped && WIFEXITED(ust) && WEXITSTATUS(ust) == 0 && is("\n"),
	       "a descriptor root opened fails to write from uid 65534 (EPERM, status %#x)", ust);
	u = fork();
	if (u == 0) {
		if (drop_cap(CAP_SYS_ADMIN))
			_exit(2);
		_exit(set("nocap\n") == 0 ? 0 : 1);
	}
	ust = -1;
	reaped = u > 0 && wait_pid_timeout(u, &ust, 10000) == 0;
	tap_ok(reaped && WIFEXITED(ust) && WEXITSTATUS(ust) == 0 && is("nocap\n"),
	       "root without CAP_SYS_ADMIN writes it: no capability check (status %#x)", ust);
	set("\n");

	/* global OOM */
	k0 = vmstat_get("oom_kill");
	set("mnv-sm");
	named_first("global", NULL, total * 2);
	tap_ok(vmstat_get("oom_kill") == k0 + 2, "global: exactly two OOM kills (%lld)",
	       vmstat_get("oom_kill") - k0);

	/* memcg OOM (cgroup v2 memory.max) */
	{
		const char *cg = cg_make_limited("mnt-oom", "48M");
		char f[800];

		if (!cg)
			tap_bail("set up the memcg (memory.max 48M)");
		snprintf(cg_path, sizeof(cg_path), "%s", cg);
		named_first("memcg", CG, 200);
		snprintf(f, sizeof(f), "%s/memory.events", CG);
		tap_ok(kv_get(f, "oom_kill") == 2,
		       "memcg: both kills were memcg OOM kills (memory.events oom_kill %lld)",
		       kv_get(f, "oom_kill"));
		rmdir(CG);
	}

	/* writers racing with readers and an OOM kill: never a torn value */
	char mb[24];
	char *hog_argv[] = { GUEST_HOG, "-m", mb, "-a", "1000", NULL };
	pid_t writer, hog;
	int torn = 0, reads = 0;

	snprintf(mb, sizeof(mb), "%lld", total * 2);
	set("b\n");
	writer = fork();
	if (writer == 0) {
		for (int i = 0;; i++)
			set(i & 1 ? "b\n" : "aaaaaaaaaaaaaaa\n");
	}
	hog = spawn(hog_argv, NULL);
	for (;;) {
		int st;
		char *v = get();

		reads++;
		if (!v || (strcmp(v, "b\n") && strcmp(v, "aaaaaaaaaaaaaaa\n"))) {
			if (torn++ < 3)
				tap_diag("torn read: '%s'", v ? v : "(error)");
		}
		free(v);
		if (waitpid(hog, &st, WNOHANG) == hog)
			break;
		if (reads > 2000000)
			break;
	}
	kill_reap(writer);
	tap_ok(torn == 0 && reads > 10, "%d reads during concurrent writes and an OOM kill, none torn",
	       reads);
	set("\n");
	return tap_done();
}
