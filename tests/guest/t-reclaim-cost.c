// SPDX-License-Identifier: GPL-2.0
/*
 * The early low of patch 22: a node enters low before its headroom reaches
 * the threshold once reclaim begins to cost.
 *  - swap-out: with zram swap and the headroom inside low's hysteresis
 *    band, the node stays at none until pages go to swap (memory.reclaim
 *    of the test's own cgroup), then enters low with the headroom still
 *    above the threshold; freeing the memory takes it back to none;
 *  - working-set refaults: a reader loops over a page-cache working set
 *    of about 1.5 times the low threshold while an anonymous ramp squeezes
 *    it out: the reader's refaults restore active pages
 *    (workingset_restore_file) and the node enters low within twice the
 *    threshold, above it, once, then medium and critical in order before
 *    the OOM kill.
 * A one-pass streaming read raising nothing is t-pagecache's.
 */
#define _GNU_SOURCE
#include "guestlib.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mnotify/mnotify.h>

#define LEVELS "/sys/kernel/mm/mem_notify/levels"
#define PC "/mnt/pc/files"
#define MB (1024LL * 1024)

struct seen {
	int enters_low, medium, critical, oom, order_ok, last_level;
	long long low_headroom, low_thresh, low_ms, oom_ms, none_ms;
	long long restore_at_low;
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
	if (ev->u.zone.prev_level != s->last_level)
		s->order_ok = 0;
	s->last_level = ev->u.zone.level;
	tap_diag("%s -> %s headroom %llu thresh_low %llu (free %llu file %llu swap %llu) at %lld ms",
		 mnotify_level_name(ev->u.zone.prev_level), mnotify_level_name(ev->u.zone.level),
		 (unsigned long long)ev->u.zone.headroom,
		 (unsigned long long)ev->u.zone.thresh_low,
		 (unsigned long long)ev->u.zone.headroom_free,
		 (unsigned long long)ev->u.zone.headroom_file,
		 (unsigned long long)ev->u.zone.headroom_swap, t);
	switch (ev->u.zone.level) {
	case MNOTIFY_LEVEL_NONE:
		s->none_ms = t;
		break;
	case MNOTIFY_LEVEL_LOW:
		if (ev->u.zone.prev_level == MNOTIFY_LEVEL_NONE && !s->enters_low++) {
			s->low_headroom = (long long)ev->u.zone.headroom;
			s->low_thresh = (long long)ev->u.zone.thresh_low;
			s->low_ms = t;
			s->restore_at_low = vmstat_get("workingset_restore_file");
		}
		break;
	case MNOTIFY_LEVEL_MEDIUM:
		s->medium++;
		break;
	default:
		s->critical++;
		break;
	}
	return MNOTIFY_CB_OK;
}

/* node 0's level name, headroom and low threshold (pages) from sysfs */
static int node_level(char *name, long long *headroom, long long *thresh)
{
	char *t = read_file(LEVELS);
	int node, n;

	n = t ? sscanf(t, "%d %15s %lld %lld", &node, name, headroom, thresh) : 0;
	free(t);
	return n == 4 ? 0 : -1;
}

static struct mnotify *open_events(void)
{
	struct mnotify *h;
	int err = mnotify_open(&h, MNOTIFY_GROUP_PRESSURE | MNOTIFY_GROUP_OOM);

	if (err) {
		errno = -err;
		tap_bail("mnotify_open");
	}
	return h;
}

/* wait for events until @s is at @level, at most @ms */
static void wait_level(struct mnotify *h, struct seen *s, int level, int ms)
{
	long long end = now_ms() + ms;
	char name[16];
	long long hr, th;

	while (s->last_level != level && now_ms() < end) {
		node_level(name, &hr, &th);	/* a read evaluates */
		mnotify_wait(h, 200, on_ev, s);
	}
}

static void swap_out_in_band(void)
{
	long long page = sysconf(_SC_PAGESIZE), hr = 0, th = 0, used = 0;
	long long headroom, thresh, swap0;
	struct seen s = { .order_ok = 1 };
	size_t len = 400 * MB;
	struct mnotify *h;
	char name[16] = "";
	char *mem;
	int err;

	if (zram_swap_on(16) < 0)
		tap_bail("zram swap on");
	h = open_events();
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		   -1, 0);
	if (mem == MAP_FAILED)
		tap_bail("mmap");
	/* grow 1 MB at a time until the headroom is inside low's band */
	for (;;) {
		if (node_level(name, &headroom, &thresh))
			tap_bail("read " LEVELS);
		hr = headroom;
		th = thresh;
		if (hr <= th + th / 16 || strcmp(name, "none") || (size_t)used >= len)
			break;
		for (long long off = 0; off < MB; off += page)
			mem[used + off] = (char)(1 + (off / page) % 251);
		used += MB;
	}
	mnotify_dispatch(h, on_ev, &s);
	swap0 = meminfo_kb("SwapFree");
	tap_diag("grew %lld MB: headroom %lld pages, low threshold %lld, level %s, SwapFree %lld kB",
		 used / MB, hr, th, name, swap0);
	tap_ok(!strcmp(name, "none") && hr > th && hr <= th + th / 4 && s.enters_low == 0,
	       "zram: headroom inside low's band (%lld <= %lld pages), no swap-out yet: level none",
	       hr, th + th / 4);

	/* 8 MB of it out to swap */
	/* 8 MB of it out to swap: the guest kernel has no madvise(), so by
	 * proactive reclaim of the test's own cgroup (mostly anonymous) */
	{
		char *cg = read_file("/proc/self/cgroup"), f[600];
		char *p = cg ? strstr(cg, "0::") : NULL;

		if (!p)
			tap_bail("no cgroup v2 line in /proc/self/cgroup");
		p += 3;
		p[strcspn(p, "\n")] = '\0';
		snprintf(f, sizeof(f), "/sys/fs/cgroup%s/memory.reclaim", p);
		err = write_file(f, "8M");
		tap_diag("%s: %s, pswpout %lld", f, err ? strerror(errno) : "written",
			 vmstat_get("pswpout"));
		free(cg);
	}
	tap_ok(meminfo_kb("SwapFree") < swap0,
	       "memory.reclaim put pages in swap (SwapFree %lld -> %lld kB)", swap0,
	       meminfo_kb("SwapFree"));
	wait_level(h, &s, MNOTIFY_LEVEL_LOW, 5000);
	tap_ok(s.enters_low == 1 && s.low_headroom > s.low_thresh,
	       "the swap-out made it low above the threshold (headroom %lld > %lld pages)",
	       s.low_headroom, s.low_thresh);

	munmap(mem, len);
	wait_level(h, &s, MNOTIFY_LEVEL_NONE, 5000);
	tap_ok(s.last_level == MNOTIFY_LEVEL_NONE, "freed: back to none");
	mnotify_close(h);
	if (zram_swap_off() < 0)
		tap_diag("zram swap off: %s", strerror(errno));
}

/*
 * Read files f1..f@n @passes times (0: until killed), at about @mb_s MB/s
 * (0: as fast as they come): 0, or -1 if one cannot be opened.
 */
static int read_files(int n, int mb_s, int passes)
{
	static char buf[64 * 1024];

	for (int pass = 0; !passes || pass < passes; pass++)
		for (int i = 1; i <= n; i++) {
			char path[64];
			int fd;

			snprintf(path, sizeof(path), PC "/f%d", i);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				return -1;
			while (read(fd, buf, sizeof(buf)) > 0)
				if (mb_s)
					usleep(1000000 / 16 / mb_s);
			close(fd);
		}
	return 0;
}

static long long file_mb(void)
{
	struct stat sb;

	return stat(PC "/f1", &sb) ? -1 : (long long)sb.st_size / MB;
}

static void restores_in_band(void)
{
	long long headroom, thresh, fmb = file_mb(), ws_mb, avail, r0, end;
	long page = sysconf(_SC_PAGESIZE);
	struct seen s = { .order_ok = 1 };
	char name[16], mbs[24], fast[24];
	char *argv[] = { GUEST_HOG, "-m", mbs, "-F", fast, "-r", "8", "-a", "1000",
			 "-n", "rc-ramp", NULL };
	int nfiles, st, hogfd;
	pid_t reader, hog;
	struct mnotify *h;

	if (fmb <= 0 || node_level(name, &headroom, &thresh))
		tap_bail("no page-cache disk at " PC " or no " LEVELS);
	/* a working set of about 1.5 times the low threshold */
	ws_mb = thresh * page * 3 / 2 / MB;
	nfiles = (int)((ws_mb + fmb - 1) / fmb);
	/* twice: the second read activates the pages */
	if (read_files(nfiles, 0, 2) < 0)
		tap_bail("reading the working set");
	tap_diag("working set %d files of %lld MB (low threshold %lld MB), Active(file) %lld MB",
		 nfiles, fmb, thresh * page / MB, meminfo_kb("Active(file)") / 1024);

	h = open_events();
	reader = fork();
	if (reader == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		_exit(read_files(nfiles, 16, 0) < 0);
	}
	if (reader < 0)
		tap_bail("fork");
	r0 = vmstat_get("workingset_restore_file");
	avail = meminfo_kb("MemAvailable") / 1024;
	snprintf(mbs, sizeof(mbs), "%lld", avail * 4);
	/* fast until 40 MB above the working set, then 8 MB/s */
	snprintf(fast, sizeof(fast), "%lld",
		 avail > nfiles * fmb + 80 ? avail - nfiles * fmb - 40 : 8);
	hog = spawn(argv, &hogfd);
	if (hog < 0)
		tap_bail("spawn hog");
	end = now_ms() + 120000;
	while (!s.oom && now_ms() < end)
		mnotify_wait(h, 1000, on_ev, &s);
	if (wait_pid_timeout(hog, &st, 30000) < 0)
		kill_reap(hog);
	close(hogfd);
	kill_reap(reader);

	tap_ok(s.oom > 0, "the ramp ended in an OOM kill");
	tap_ok(s.enters_low >= 1 && s.restore_at_low - r0 > 0,
	       "the reader's refaults restored the working set before low (%lld pages)",
	       s.restore_at_low - r0);
	tap_ok(s.enters_low >= 1 && s.low_headroom > s.low_thresh &&
	       s.low_headroom <= 2 * s.low_thresh,
	       "low came within twice the threshold, above it (headroom %lld, threshold %lld pages)",
	       s.low_headroom, s.low_thresh);
	tap_ok(s.enters_low == 1 && s.order_ok && s.medium && s.critical && s.low_ms < s.oom_ms,
	       "low entered once, then medium and critical in order before the kill (%lld ms before)",
	       s.oom_ms - s.low_ms);
	wait_level(h, &s, MNOTIFY_LEVEL_NONE, 10000);
	tap_ok(s.last_level == MNOTIFY_LEVEL_NONE, "after the kill: none");
	mnotify_close(h);
}

int main(void)
{
	protect_self();
	swap_out_in_band();
	restores_in_band();
	return tap_done();
}
