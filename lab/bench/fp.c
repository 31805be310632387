// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fp: false positives.  Read every file of the page-cache disk (twice
 * the guest's memory) as fast as it comes, while nothing is short of
 * memory: how often each source fires, per minute; how long mem_notify
 * takes to be back to none once the read ends; then an anonymous ramp at
 * 16 MB/s into the full page cache: how early each source warns before
 * the OOM kill.
 */
#define _GNU_SOURCE
#include <config.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "sources.h"

/* read /mnt/pc's files once, watching the sources meanwhile; bytes read */
static long long stream(struct sources *s)
{
	static char buf[1 << 17];
	long long bytes = 0;

	for (int i = 1; i <= 64; i++) {
		char path[64];
		ssize_t n;
		int fd;

		snprintf(path, sizeof(path), "/mnt/pc/files/f%d", i);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			break;
		while ((n = read(fd, buf, sizeof(buf))) > 0) {
			bytes += n;
			sources_poll(s, 0);
		}
		close(fd);
	}
	return bytes;
}

int cmd_fp(void)
{
	long long total_mb = meminfo_kb("MemTotal") / 1024, bytes, avail;
	struct sources s;
	uint64_t t0, t1, none_ms = 0;
	double secs;
	int st, dead = 0, level_after;
	pid_t hog;

	if (sources_open(&s, true))
		return 1;
	sleep(1);
	sources_poll(&s, 0);
	sources_reset(&s);
	t0 = now_ns();
	bytes = stream(&s);
	t1 = now_ns();
	secs = (double)(t1 - t0) / 1e9;
	for (int i = 0; i < S_NSRC; i++)
		printf("fp phase=read mem_mb=%lld read_mb=%lld duration_s=%.1f source=%s events=%d per_min=%.1f\n",
		       total_mb, bytes >> 20, secs, src_name[i], s.count[i],
		       secs > 0 ? s.count[i] * 60.0 / secs : 0.0);
	printf("fp phase=read mem_mb=%lld mnotify_changes=%d mnotify_exits=%d page_cache_mb=%lld\n",
	       total_mb, s.events, s.exits,
	       (meminfo_kb("Cached") - meminfo_kb("Shmem")) / 1024);
	/* back to none (or never left it) */
	level_after = s.level;
	for (int i = 0; i < 50 && s.level != MNOTIFY_LEVEL_NONE; i++)
		sources_poll(&s, 100);
	if (level_after != MNOTIFY_LEVEL_NONE)
		none_ms = s.level == MNOTIFY_LEVEL_NONE && s.none_at > t1 ?
			  (s.none_at - t1) / 1000000 : (uint64_t)-1;
	printf("fp phase=after mem_mb=%lld level_at_end=%d none_after_ms=%lld\n", total_mb,
	       level_after, none_ms == (uint64_t)-1 ? -1LL : (long long)none_ms);

	/* an anonymous ramp into the full page cache */
	sources_reset(&s);
	avail = meminfo_kb("MemAvailable") / 1024;
	t0 = now_ns();
	hog = spawn_hog(2 * total_mb, avail > 160 ? avail - 96 : 0, 16, false, "mnv-ramp", NULL);
	while (!dead && now_ns() - t0 < 600000000000ull) {
		sources_poll(&s, 100);
		if (waitpid(hog, &st, WNOHANG) == hog)
			dead = 1;
	}
	if (!dead)
		reap(hog);
	for (int i = 0; i < 20 && !s.oom_at; i++)
		sources_poll(&s, 100);
	for (int i = 0; i < S_NSRC; i++)
		printf("fp phase=ramp mem_mb=%lld source=%s t_ms=%.1f before_oom_ms=%.1f count=%d\n",
		       total_mb, src_name[i],
		       s.first[i] ? (double)(s.first[i] - t0) / 1e6 : -1.0,
		       s.first[i] && s.oom_at ? ((double)s.oom_at - (double)s.first[i]) / 1e6 : -1.0,
		       s.count[i]);
	printf("fp phase=ramp mem_mb=%lld oom_kills=%d oom_victim=%s mnotify_changes=%d earlyoom_victim=%s\n",
	       total_mb, s.ooms, s.oom_comm[0] ? s.oom_comm : "-", s.events,
	       s.eo_victim[0] ? s.eo_victim : "-");
	sources_close(&s);
	return 0;
}
