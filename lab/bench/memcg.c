// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * memcg SCENARIO RUNS: a memory cgroup's warnings before its memcg OOM,
 * side by side.  A cgroup with memory.max 128 MB in a larger guest (the
 * 1 GB boot; noswap: memory.swap.max 0; zram: the guest's zram swap, the
 * hog's pages compressing like data) and a hog in it that ramps at
 * 16 MB/s to twice the limit.  For each source, how long before the memcg
 * OOM kill it first fired: mem_notify's levels of the cgroup (a netlink
 * watch; the kill itself comes to the watch as CGROUP_OOM, whose kernel
 * time stamp is the reference), a /dev/mem_notify file bound to the
 * cgroup, the PSI triggers a manager sets on the cgroup's memory.pressure
 * (lmkd's and low-memory-monitor's "some 70 ms in 1 s", low-memory-
 * monitor's critical "full 100 ms in 1 s"), and a poll of memory.events
 * (its "high" and "max" counters: the limit reached, reclaim at it).
 * Then how long after the kill the cgroup's level was back at none.
 *
 * memcg-avoid SCENARIO SRC RUNS: a cooperating cache of 64 MB
 * (mnotify-cache -c) in the same 128 MB cgroup, told by SRC (none: the
 * baseline; netlink: a cgroup watch; chardev: the device file bound to
 * the cgroup; psi: a trigger on the cgroup's memory.pressure, taken as
 * critical), and a workload of 88 MB in the cgroup that fits only if the
 * cache gives back: the cgroup's OOM kills (memory.events oom_kill) and
 * whether the workload completed.
 */
#define _GNU_SOURCE
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mnotify/mnotify.h>
#include "uapi/linux/mem_notify.h"

#include "bench.h"

#define CGM "/sys/fs/cgroup/mnb-memcg"
#define LIMIT_MB 128
#define CACHE_MB 64
#define WORK_MB 88
#define CACHE "/tests/mnotify-cache"

/* a counter of memory.events (re-read from the start) */
static long long events_get(int fd, const char *key)
{
	char buf[512], *p;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	size_t kl = strlen(key);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, kl) && p[kl] == ' ')
			return atoll(p + kl + 1);
	return -1;
}

/* a PSI trigger on the cgroup's memory.pressure, or -1 */
static int cg_psi(const char *trigger)
{
	int fd = open(CGM "/memory.pressure", O_RDWR | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0 && write(fd, trigger, strlen(trigger) + 1) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static int cg_setup(const char *scenario)
{
	if (memcg_v2() || (mkdir(CGM, 0755) && errno != EEXIST) ||
	    write_file(CGM "/memory.max", "128M")) {
		fprintf(stderr, "mnotify-bench: memcg: %s: %s\n", CGM, strerror(errno));
		return -1;
	}
	/* noswap: the cgroup may not swap; zram: it may, like a service */
	write_file(CGM "/memory.swap.max", strcmp(scenario, "zram") ? "0" : "max");
	return 0;
}

/* "sh -c" that joins the cgroup, becomes killable and runs @what */
static void in_cgroup(char *cmd, size_t len, const char *what)
{
	/* the guest's init is at oom_score_adj -1000 and children inherit it */
	snprintf(cmd, len, "echo $$ > " CGM "/cgroup.procs && echo 0 > /proc/$$/oom_score_adj && exec %s",
		 what);
}

struct lead {
	uint64_t level_ns[4];	/* first entry into each level (kernel time) */
	uint64_t kill_ns;	/* CGROUP_OOM's kernel time stamp */
	uint64_t none_ns;	/* back to none after the kill */
	int level;
};

static int on_lead(const struct mnotify_event *ev, void *arg)
{
	struct lead *l = arg;

	switch (ev->type) {
	case MNOTIFY_EVENT_CGROUP_LEVEL:
		l->level = ev->cgroup.level;
		if (ev->cgroup.level > 0 && ev->cgroup.level < 4 &&
		    !l->level_ns[ev->cgroup.level])
			l->level_ns[ev->cgroup.level] = ev->timestamp_ns;
		if (ev->cgroup.level == MNOTIFY_LEVEL_NONE && l->kill_ns && !l->none_ns)
			l->none_ns = ev->timestamp_ns;
		break;
	case MNOTIFY_EVENT_CGROUP_OOM:
		if (!l->kill_ns)
			l->kill_ns = ev->timestamp_ns;
		break;
	default:
		break;
	}
	return MNOTIFY_CB_OK;
}

/* ms from @t to the kill; -1: never, or not before it */
static double before(uint64_t t, uint64_t kill)
{
	return t && kill && t < kill ? (double)(kill - t) / 1e6 : -1.0;
}

enum { F_NL, F_DEV, F_SOME70, F_FULL100, F_EVENTS, F_NR };

int cmd_memcg(const char *scenario, int runs)
{
	if (strcmp(scenario, "noswap") && strcmp(scenario, "zram")) {
		fprintf(stderr, "mnotify-bench: memcg: scenario noswap or zram\n");
		return 2;
	}
	if (cg_setup(scenario) || scenario_start(scenario))
		return 1;
	for (int r = 0; r < runs; r++) {
		char cmd[512], hog[256];
		char *argv[] = { "/bin/sh", "-c", cmd, NULL };
		struct pollfd pfd[F_NR];
		uint64_t first[F_NR] = { 0 }, t0, died = 0;
		long long high0, max0;
		struct lead l = { 0 };
		struct mnotify *h = NULL;
		int st, killed = 0, cgfd;
		pid_t p;

		if (mnotify_open(&h, 0) || mnotify_watch_cgroup_path(h, CGM)) {
			fprintf(stderr, "mnotify-bench: memcg: cannot watch %s: %s\n", CGM,
				h ? mnotify_ext_ack(h) : "no family");
			return 1;
		}
		pfd[F_NL] = (struct pollfd){ .fd = mnotify_fd(h), .events = POLLIN };
		pfd[F_DEV] = (struct pollfd){ .fd = open("/dev/mem_notify",
							  O_RDONLY | O_NONBLOCK | O_CLOEXEC),
					      .events = POLLIN };
		cgfd = open(CGM, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (pfd[F_DEV].fd < 0 || ioctl(pfd[F_DEV].fd, MEM_NOTIFY_IOC_BIND_CGROUP, &cgfd)) {
			fprintf(stderr, "mnotify-bench: memcg: bind the device file: %s\n",
				strerror(errno));
			return 1;
		}
		close(cgfd);
		pfd[F_SOME70] = (struct pollfd){ .fd = cg_psi("some 70000 1000000"), .events = POLLPRI };
		pfd[F_FULL100] = (struct pollfd){ .fd = cg_psi("full 100000 1000000"), .events = POLLPRI };
		pfd[F_EVENTS] = (struct pollfd){ .fd = open(CGM "/memory.events", O_RDONLY | O_CLOEXEC),
						 .events = POLLPRI };
		if (pfd[F_SOME70].fd < 0 || pfd[F_FULL100].fd < 0 || pfd[F_EVENTS].fd < 0) {
			fprintf(stderr, "mnotify-bench: memcg: memory.pressure or memory.events: %s\n",
				strerror(errno));
			return 1;
		}
		high0 = events_get(pfd[F_EVENTS].fd, "high");
		max0 = events_get(pfd[F_EVENTS].fd, "max");
		mnotify_dispatch(h, on_lead, &l);	/* the watch's state */

		snprintf(hog, sizeof(hog), "%s -m %d -r 16 -p data -a 0 -n mnb-memcg", hog_path,
			 2 * LIMIT_MB);
		in_cgroup(cmd, sizeof(cmd), hog);
		t0 = now_ns();
		p = spawn(argv, NULL);
		while (p > 0 && now_ns() - t0 < 120000000000ull) {
			if (poll(pfd, F_NR, 100) > 0) {
				uint64_t t = now_ns();

				if (pfd[F_NL].revents)
					mnotify_dispatch(h, on_lead, &l);
				if (pfd[F_DEV].revents & POLLIN) {
					struct mem_notify_report rep;

					while (read(pfd[F_DEV].fd, &rep, sizeof(rep)) == sizeof(rep))
						if (rep.level && !first[F_DEV])
							first[F_DEV] = t;
				}
				for (int i = F_SOME70; i <= F_FULL100; i++)
					if ((pfd[i].revents & POLLPRI) && !first[i])
						first[i] = t;
				if (pfd[F_EVENTS].revents && !first[F_EVENTS] &&
				    (events_get(pfd[F_EVENTS].fd, "high") > high0 ||
				     events_get(pfd[F_EVENTS].fd, "max") > max0))
					first[F_EVENTS] = t;
			}
			if (!killed && waitpid(p, &st, WNOHANG) == p) {
				killed = WIFSIGNALED(st) ? 1 : -1;
				died = now_ns();
			}
			/* after the death: the kill's event and the way back to none */
			if (killed && (l.none_ns || killed < 0 || now_ns() - died > 10000000000ull))
				break;
		}
		if (!killed) {
			reap(p);
			killed = -1;
		}
		printf("memcg scenario=%s run=%d limit_mb=%d rate=16 killed=%d "
		       "low_ms=%.0f medium_ms=%.0f critical_ms=%.0f chardev_ms=%.0f "
		       "psi_some70_ms=%.0f psi_full100_ms=%.0f events_max_ms=%.0f "
		       "none_after_ms=%.0f\n",
		       scenario, r, LIMIT_MB, killed > 0 && l.kill_ns,
		       before(l.level_ns[1], l.kill_ns), before(l.level_ns[2], l.kill_ns),
		       before(l.level_ns[3], l.kill_ns), before(first[F_DEV], l.kill_ns),
		       before(first[F_SOME70], l.kill_ns), before(first[F_FULL100], l.kill_ns),
		       before(first[F_EVENTS], l.kill_ns),
		       l.none_ns && l.kill_ns ? (double)(l.none_ns - l.kill_ns) / 1e6 : -1.0);
		fflush(stdout);
		for (int i = F_DEV; i < F_NR; i++)
			close(pfd[i].fd);
		mnotify_close(h);
		sleep(1);
	}
	scenario_stop(scenario);
	rmdir(CGM);
	return 0;
}

int cmd_memcg_avoid(const char *scenario, const char *src, int runs)
{
	if (strcmp(scenario, "noswap") && strcmp(scenario, "zram")) {
		fprintf(stderr, "mnotify-bench: memcg-avoid: scenario noswap or zram\n");
		return 2;
	}
	if (strcmp(src, "none") && strcmp(src, "netlink") && strcmp(src, "chardev") &&
	    strcmp(src, "psi")) {
		fprintf(stderr, "mnotify-bench: memcg-avoid: source none, netlink, chardev or psi\n");
		return 2;
	}
	if (cg_setup(scenario) || scenario_start(scenario))
		return 1;
	for (int r = 0; r < runs; r++) {
		char cmd[512], what[256], line[128];
		char *argv[] = { "/bin/sh", "-c", cmd, NULL };
		int out, st, ready = 0, completed = 0, evfd;
		long long k0, k1, dropped = 0;
		pid_t cache, work;
		uint64_t t0;

		snprintf(what, sizeof(what), CACHE " -m %d -n mnb-cache -s %s -c " CGM, CACHE_MB,
			 src);
		in_cgroup(cmd, sizeof(cmd), what);
		cache = spawn_out(argv, &out, 0);
		if (cache > 0 && read_line_timeout(out, line, sizeof(line), 30000) > 0 &&
		    !strncmp(line, "ready", 5))
			ready = 1;
		evfd = open(CGM "/memory.events", O_RDONLY | O_CLOEXEC);
		k0 = events_get(evfd, "oom_kill");
		sleep(1);
		snprintf(what, sizeof(what), "%s -m %d -r 16 -p data -a 0 -n mnb-work", hog_path,
			 WORK_MB);
		in_cgroup(cmd, sizeof(cmd), what);
		t0 = now_ns();
		work = spawn(argv, NULL);
		while (work > 0) {
			while (read_line_timeout(out, line, sizeof(line), 100) > 0)
				if (!strncmp(line, "dropped ", 8))
					dropped += atoll(line + 8);
			if (waitpid(work, &st, WNOHANG) == work) {
				completed = WIFEXITED(st) && WEXITSTATUS(st) == 0;
				break;
			}
			if (now_ns() - t0 > 120000000000ull) {
				reap(work);
				break;
			}
		}
		k1 = events_get(evfd, "oom_kill");
		close(evfd);
		printf("memcg-avoid scenario=%s source=%s run=%d limit_mb=%d cache_mb=%d "
		       "workload_mb=%d ready=%d oom_kills=%lld cache_dropped_mb=%lld "
		       "completed=%d duration_s=%.1f\n",
		       scenario, src, r, LIMIT_MB, CACHE_MB, WORK_MB, ready, k1 - k0, dropped,
		       completed, (double)(now_ns() - t0) / 1e9);
		fflush(stdout);
		reap(cache);
		close(out);
		sleep(1);
	}
	scenario_stop(scenario);
	rmdir(CGM);
	return 0;
}
