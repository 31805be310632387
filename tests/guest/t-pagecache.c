// SPDX-License-Identifier: GPL-2.0
/*
 * Pressure levels with a real page cache (the ext4 disk at /mnt/pc): a
 * streaming read of twice the guest's memory raises no level above low
 * (the cache is headroom: reclaim gets it back), the node is at none
 * after the read with memory full of clean page cache, and an anonymous
 * ramp that follows, with the cache still full, still gets low, medium
 * and critical, in order, before its OOM kill.
 */
#define _GNU_SOURCE
#include "guestlib.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mnotify/mnotify.h>

#define PC "/mnt/pc/files"
#define MB (1024 * 1024)

struct seen {
	int events, max_level, low, medium, critical, oom, last_level;
	long long low_ms, critical_ms, oom_ms, none_ms;
	int order_ok;
};

static int on_ev(const struct mnotify_event *ev, void *arg)
{
	struct seen *s = arg;
	long long t = (long long)(ev->timestamp_ns / 1000000);

	if (ev->type == MNOTIFY_EVENT_OOM_VICTIM) {
		if (!s->oom++)
			s->oom_ms = t;
		return MNOTIFY_CB_OK;
	}
	if (ev->type != MNOTIFY_EVENT_PRESSURE_ENTER && ev->type != MNOTIFY_EVENT_PRESSURE_EXIT)
		return MNOTIFY_CB_OK;
	s->events++;
	if (ev->u.zone.prev_level != s->last_level)
		s->order_ok = 0;
	s->last_level = ev->u.zone.level;
	if (ev->u.zone.level > s->max_level)
		s->max_level = ev->u.zone.level;
	switch (ev->u.zone.level) {
	case MNOTIFY_LEVEL_NONE:
		s->none_ms = t;
		break;
	case MNOTIFY_LEVEL_LOW:
		s->low++;
		if (!s->low_ms)
			s->low_ms = t;
		break;
	case MNOTIFY_LEVEL_MEDIUM:
		s->medium++;
		break;
	default:
		s->critical++;
		if (!s->critical_ms)
			s->critical_ms = t;
		break;
	}
	tap_diag("%s -> %s headroom %llu (free %llu file %llu) at %lld ms",
		 mnotify_level_name(ev->u.zone.prev_level), mnotify_level_name(ev->u.zone.level),
		 (unsigned long long)ev->u.zone.headroom,
		 (unsigned long long)ev->u.zone.headroom_free,
		 (unsigned long long)ev->u.zone.headroom_file, t);
	return MNOTIFY_CB_OK;
}

/* read every file under PC once; events drained as it goes */
static long long read_all(struct mnotify *h, struct seen *s)
{
	static char buf[MB];
	long long total = 0;
	struct dirent *de;
	DIR *d = opendir(PC);

	if (!d)
		tap_bail("opendir " PC);
	while ((de = readdir(d))) {
		char path[300];
		ssize_t n;
		int fd;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), PC "/%s", de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			tap_bail("open %s", path);
		while ((n = read(fd, buf, sizeof(buf))) > 0) {
			total += n;
			mnotify_dispatch(h, on_ev, s);
		}
		close(fd);
	}
	closedir(d);
	return total;
}

static char *level_now(void)
{
	static char name[16];
	char *t = read_file("/sys/kernel/mm/mem_notify/levels");
	int node;

	if (!t || sscanf(t, "%d %15s", &node, name) != 2)
		snprintf(name, sizeof(name), "?");
	free(t);
	return name;
}

int main(void)
{
	long long mem = meminfo_kb("MemTotal") * 1024, total = 0, t_end, cached;
	struct seen s = { .order_ok = 1 }, r = { .order_ok = 1 };
	struct mnotify *h;
	struct stat sb;
	int err, pass;

	protect_self();
	err = stat(PC "/f1", &sb);
	tap_ok(err == 0 && sb.st_size >= 16 * MB,
	       "the page-cache disk is mounted (%s, %lld MB per file)", PC,
	       (long long)sb.st_size / MB);
	err = mnotify_open(&h, MNOTIFY_GROUP_PRESSURE | MNOTIFY_GROUP_OOM);
	if (err) {
		errno = -err;
		tap_bail("mnotify_open");
	}
	tap_ok(!strcmp(level_now(), "none"), "before the read: level none");

	/* twice the guest's memory, streamed */
	long long t0 = now_ms();

	for (pass = 0; total < 2 * mem && pass < 8; pass++)
		total += read_all(h, &s);
	t_end = now_ms();
	mnotify_dispatch(h, on_ev, &s);
	cached = meminfo_kb("Cached") / 1024;
	tap_diag("read %lld MB in %lld ms (%d passes): events low %d medium %d critical %d; Cached %lld MB, MemFree %lld MB",
		 total / MB, t_end - t0, pass, s.low, s.medium, s.critical, cached,
		 meminfo_kb("MemFree") / 1024);
	tap_ok(total >= 2 * mem, "streamed %lld MB, twice the guest's memory", total / MB);
	tap_ok(s.medium == 0 && s.critical == 0,
	       "no medium or critical during the read (low %d times)", s.low);

	/* the level returns to none (or never left it) with the cache full */
	if (s.last_level != MNOTIFY_LEVEL_NONE)
		for (int i = 0; i < 100 && s.last_level != MNOTIFY_LEVEL_NONE; i++)
			mnotify_wait(h, 100, on_ev, &s);
	tap_ok(s.last_level == MNOTIFY_LEVEL_NONE && !strcmp(level_now(), "none"),
	       "after the read: level none (%s) with %lld MB of page cache", level_now(), cached);
	if (s.low)
		tap_diag("back to none %lld ms after the read ended", s.none_ms - t_end);
	tap_ok(cached > mem / MB / 3, "the page cache holds a third of memory or more (%lld MB)",
	       cached);

	/* an anonymous ramp into the full page cache */
	{
		long long avail = meminfo_kb("MemAvailable") / 1024;
		char mb[24], fast[24];
		char *argv[] = { GUEST_HOG, "-m", mb, "-F", fast, "-r", "16", "-a", "1000",
				 "-n", "pc-ramp", NULL };
		long long end;
		int st, hogfd;
		pid_t hog;

		r.last_level = s.last_level;
		snprintf(mb, sizeof(mb), "%lld", avail * 4);
		snprintf(fast, sizeof(fast), "%lld", avail > 100 ? avail - 80 : 8);
		hog = spawn(argv, &hogfd);
		if (hog < 0)
			tap_bail("spawn hog");
		end = now_ms() + 120000;
		while (!r.oom && now_ms() < end)
			mnotify_wait(h, 1000, on_ev, &r);
		if (wait_pid_timeout(hog, &st, 30000) < 0)
			kill_reap(hog);
		close(hogfd);
		tap_ok(r.oom > 0, "the ramp ended in an OOM kill");
		bool order = r.low_ms && r.critical_ms && r.critical_ms <= r.oom_ms && r.order_ok;

		tap_ok(order, "low, medium and critical came before it, in order (low %d medium %d critical %d)",
		       r.low, r.medium, r.critical);
		tap_diag("low %lld ms and critical %lld ms before the OOM kill",
			 r.low_ms ? r.oom_ms - r.low_ms : -1,
			 r.critical_ms ? r.oom_ms - r.critical_ms : -1);
	}
	mnotify_close(h);
	return tap_done();
}
