// SPDX-License-Identifier: GPL-2.0
/*
 * The early low of patch 22: a node enters low before its headroom reaches
 * the threshold on swap-out and when the headroom falls fast.
 *  - swap-out: with zram swap and the headroom inside low's hysteresis
 *    band (the thresholds moved to put it there), not falling, the node
 *    stays at none until pages go to swap (memory.reclaim of the test's
 *    own cgroup), then enters low inside the band;
 *  - a fast fall: without swap, memory that takes the headroom from 2.3
 *    to 1.6 times the low threshold at a tenth of the threshold per
 *    second leaves the node at none;
 *    the same at full speed (the threshold under a second away) makes it low
 *    inside twice the threshold, above low's band, and once the fall
 *    stops it is back to none while the memory is still held;
 *  - swapoff: the swap's share of the headroom, gone at once, is no fall:
 *    with the headroom inside twice the threshold and above low's band
 *    after it, the node stays at none.
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
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mnotify/mnotify.h>

#define LEVELS "/sys/kernel/mm/mem_notify/levels"
#define MB (1024LL * 1024)

struct seen {
	int enters_low, medium, order_ok, last_level;
	long long low_headroom, low_thresh;
};

/* pressure events: the first rise to low from none, medium, the chain */
static int on_ev(const struct mnotify_event *ev, void *arg)
{
	const struct mnotify_zone *z = &ev->u.zone;
	struct seen *s = arg;

	if (ev->type != MNOTIFY_EVENT_PRESSURE_ENTER && ev->type != MNOTIFY_EVENT_PRESSURE_EXIT)
		return MNOTIFY_CB_OK;
	if (z->prev_level != s->last_level)
		s->order_ok = 0;
	s->last_level = z->level;
	tap_diag("%s -> %s headroom %llu thresh_low %llu (free %llu file %llu swap %llu) at %lld ms",
		 mnotify_level_name(z->prev_level), mnotify_level_name(z->level),
		 (unsigned long long)z->headroom, (unsigned long long)z->thresh_low,
		 (unsigned long long)z->headroom_free, (unsigned long long)z->headroom_file,
		 (unsigned long long)z->headroom_swap, (long long)(ev->timestamp_ns / 1000000));
	if (z->level == MNOTIFY_LEVEL_LOW && z->prev_level == MNOTIFY_LEVEL_NONE &&
	    !s->enters_low++) {
		s->low_headroom = (long long)z->headroom;
		s->low_thresh = (long long)z->thresh_low;
	}
	if (z->level == MNOTIFY_LEVEL_MEDIUM)
		s->medium++;
	return MNOTIFY_CB_OK;
}

/* MNOTIFY_LEVEL_* of a level's name in the levels file */
static int level_of(const char *name)
{
	int level = mnotify_level_from_name(name);

	if (level < 0)
		tap_bail("unknown level '%s' in " LEVELS, name);
	return level;
}

static struct mnotify *open_events(void)
{
	struct mnotify *h;
	int err = mnotify_open(&h, MNOTIFY_GROUP_PRESSURE);

	if (err) {
		errno = -err;
		tap_bail("mnotify_open");
	}
	return h;
}

/* wait for events until @s is at @level, at most @ms; what is queued first */
static void wait_level(struct mnotify *h, struct seen *s, int level, int ms)
{
	long long end = now_ms() + ms;
	char name[16];
	long long hr, th;

	node_level(name, &hr, &th);
	mnotify_dispatch(h, on_ev, s);
	while (s->last_level != level && now_ms() < end) {
		node_level(name, &hr, &th);	/* a read evaluates */
		mnotify_wait(h, 200, on_ev, s);
	}
}

/*
 * Touch @mem from *@used on, at @mb_s MB/s (0: full speed, 1 MB at a
 * time) in steps of 1/16 MB, until the node's headroom is at or below
 * @target pages (or @len is used).  Returns the headroom last read.  The
 * kernel measures a fall over as little as a quarter second: one step
 * more inside such a window reads as a faster fall.  At 2 MB/s (the
 * debug guest's slow fall) a 1 MB step read as 4 MB/s and quarter-MB
 * steps as up to 3 MB/s, which with the debug guest's own churn once
 * made a fast fall at 1.41 times the threshold; 1/16 MB reads as at most
 * 2.25 MB/s.
 */
static long long grow(char *mem, size_t len, long long *used, long long target, int mb_s)
{
	long long page = sysconf(_SC_PAGESIZE), headroom, thresh;
	long long step = mb_s ? MB / 16 : MB;
	char name[16];

	for (;;) {
		if (node_level(name, &headroom, &thresh))
			tap_bail("read " LEVELS);
		if (headroom <= target || (size_t)(*used + step) > len)
			return headroom;
		for (long long off = 0; off < step; off += page)
			mem[*used + off] = (char)(1 + ((*used + off) / page) % 251);
		*used += step;
		if (mb_s)
			usleep(1000000 / 16 / mb_s);
	}
}

static char *map_mem(size_t len)
{
	char *mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (mem == MAP_FAILED)
		tap_bail("mmap");
	return mem;
}

/*
 * The kernel measures the headroom's fall over the last second: after a
 * step the test wants not to count as a fall, it lets that much pass
 * (there is nothing to wait on: a fall that does not count sends nothing).
 */
static void let_window_pass(void)
{
	long long hr, th;
	char name[16];

	for (int i = 0; i < 6; i++) {
		node_level(name, &hr, &th);	/* evaluations, as folds would do */
		usleep(250000);
	}
}

/*
 * wait (5 s at most) until the node's headroom is at least @pages (@below:
 * at most); the headroom last read (a read evaluates if the last
 * evaluation is 50 ms old)
 */
static long long wait_headroom(long long pages, bool below)
{
	long long end = now_ms() + 5000, hr = 0, th;
	char name[16];

	while ((node_level(name, &hr, &th) || (below ? hr > pages : hr < pages)) &&
	       now_ms() < end)
		usleep(20000);
	return hr;
}

/* the test's cgroup's memory.reclaim takes @what ("8M"): 0 or -1 */
static int reclaim_own_cgroup(const char *what)
{
	char *cg = read_file("/proc/self/cgroup"), f[600];
	char *p = cg ? strstr(cg, "0::") : NULL;
	int err;

	if (!p)
		tap_bail("no cgroup v2 line in /proc/self/cgroup");
	p += 3;
	p[strcspn(p, "\n")] = '\0';
	snprintf(f, sizeof(f), "/sys/fs/cgroup%s/memory.reclaim", p);
	err = write_file(f, what);
	free(cg);
	return err;
}

/* the node's managed pages, from the low threshold at its default */
static long long managed_pages(void)
{
	long long headroom, thresh;
	char name[16];

	if (node_level(name, &headroom, &thresh))
		tap_bail("read " LEVELS);
	return thresh * 1000 / MN_THRESH_LOW;
}

/* thresholds @pm, @pm/2, @pm/4 per mille */
static void set_thresholds(long long pm)
{
	char th[64];

	snprintf(th, sizeof(th), "%lld %lld %lld", pm, pm / 2, pm / 4);
	if (write_file("/sys/kernel/mm/mem_notify/thresholds", th))
		tap_bail("write thresholds %s", th);
	tap_diag("thresholds %s", th);
}

static void swap_out_in_band(void)
{
	long long page = sysconf(_SC_PAGESIZE), headroom, thresh, swap0, used = 0, pm;
	long long managed = managed_pages();
	struct seen s = { .order_ok = 1 };
	size_t len = 64 * MB;
	struct mnotify *h;
	char name[16] = "";
	char *mem;

	if (zram_swap_on(16) < 0)
		tap_bail("zram swap on");
	h = open_events();
	if (node_level(name, &headroom, &thresh))
		tap_bail("read " LEVELS);
	s.last_level = level_of(name);	/* the chain starts here */
	/* 64 MB to swap from (a third of the headroom where that is less:
	 * the debug kernel's guest starts with about 70 MB), above the band;
	 * then no fall for a window */
	if ((long long)len > headroom * page / 3)
		len = (size_t)(headroom * page / 3 / MB * MB);
	if (len < 16 * MB)
		tap_bail("headroom %lld pages: too little to take 16 MB", headroom);
	mem = map_mem(len);
	grow(mem, len, &used, 0, 0);
	let_window_pass();
	/* where that took the headroom inside twice the threshold, the fall
	 * made the node low: it ends a second after the fall */
	wait_level(h, &s, MNOTIFY_LEVEL_NONE, 5000);
	tap_diag("took %lld MB at full speed: %d early lows, level %s", used / MB, s.enters_low,
		 mnotify_level_name(s.last_level));
	s.enters_low = 0;
	/* the thresholds moved so that the headroom is inside low's band */
	if (node_level(name, &headroom, &thresh))
		tap_bail("read " LEVELS);
	pm = headroom * 1000 * 100 / 112 / managed;
	set_thresholds(pm);
	if (node_level(name, &headroom, &thresh))
		tap_bail("read " LEVELS);
	mnotify_dispatch(h, on_ev, &s);
	swap0 = meminfo_kb("SwapFree");
	tap_diag("took %lld MB: headroom %lld pages, low threshold %lld, level %s, SwapFree %lld kB",
		 used / MB, headroom, thresh, name, swap0);
	tap_ok(!strcmp(name, "none") && headroom > thresh && headroom <= thresh + thresh / 4 &&
	       s.enters_low == 0,
	       "zram: headroom inside low's band (%lld in %lld..%lld pages), not falling, no swap-out: level none",
	       headroom, thresh, thresh + thresh / 4);

	/*
	 * 8 MB out to swap: the guest kernel has no madvise(), so by proactive
	 * reclaim of the test's own cgroup (anonymous memory, mostly), 1 MB
	 * at a time with an evaluation after each: a swap-out counts against
	 * an evaluation at most a second old, and proactive reclaim frees
	 * pages, so no fold of the free counter kicks one meanwhile (8 MB at
	 * once took more than a second on the debug kernel).
	 */
	for (int i = 0; i < 8; i++) {
		if (reclaim_own_cgroup("1M"))
			tap_diag("memory.reclaim: %s", strerror(errno));
		node_level(name, &headroom, &thresh);	/* a read evaluates */
	}
	tap_ok(meminfo_kb("SwapFree") < swap0,
	       "memory.reclaim put pages in swap (SwapFree %lld -> %lld kB)", swap0,
	       meminfo_kb("SwapFree"));
	wait_level(h, &s, MNOTIFY_LEVEL_LOW, 5000);
	tap_ok(s.enters_low == 1 && s.low_headroom > s.low_thresh &&
	       s.low_headroom <= s.low_thresh + s.low_thresh / 4,
	       "the swap-out made it low, inside the band (headroom %lld, threshold %lld pages)",
	       s.low_headroom, s.low_thresh);

	if (write_file("/sys/kernel/mm/mem_notify/thresholds", MN_THRESH_DEFAULT))
		tap_bail("put the thresholds back");
	munmap(mem, len);
	wait_level(h, &s, MNOTIFY_LEVEL_NONE, 5000);
	tap_ok(s.last_level == MNOTIFY_LEVEL_NONE, "thresholds back, memory freed: none");
	mnotify_close(h);
	if (zram_swap_off() < 0)
		tap_diag("zram swap off: %s", strerror(errno));
}

/* half of what free swap could take of the anonymous memory, in pages: the
 * swap's share of a single node's headroom */
static long long swap_share(void)
{
	long long kb_page = sysconf(_SC_PAGESIZE) / 1024;
	long long anon = meminfo_kb("Active(anon)") + meminfo_kb("Inactive(anon)");
	long long swap = meminfo_kb("SwapFree");

	return (anon < swap ? anon : swap) / kb_page / 2;
}

/*
 * swapoff takes the swap's share of the headroom at once: nothing was
 * allocated, so it is no fall.  zram swap of 3/10 of the headroom and as
 * much memory taken (the share is then half the swap); the thresholds are
 * moved so that the headroom without the share is 1.35 times the low
 * threshold, inside twice it and above its band, where losing the share
 * at once reads as a fall that reaches the threshold within a second.
 * The kernel's window of the fall starts anew when the headroom rises: 4
 * MB freed just before the swapoff put its start there, so that the
 * window sees the whole step.  The node stays at none.
 */
static void swapoff_no_fall(void)
{
	long long page = sysconf(_SC_PAGESIZE), managed = managed_pages();
	long long headroom, thresh, share, before, after, used = 0, end;
	struct seen s = { .order_ok = 1 };
	unsigned int swap_mb;
	struct mnotify *h;
	char name[16] = "";
	size_t len;
	char *mem;

	if (node_level(name, &headroom, &thresh))
		tap_bail("read " LEVELS);
	swap_mb = (unsigned int)(headroom * page * 3 / 10 / MB);
	if (swap_mb < 8)
		tap_bail("headroom %lld pages: too little for the swapoff test", headroom);
	if (zram_swap_on(swap_mb) < 0)
		tap_bail("zram swap on");
	h = open_events();
	s.last_level = level_of(name);
	len = (size_t)(swap_mb + 8) * MB;
	mem = map_mem(len);
	grow(mem, len, &used, 0, 0);
	let_window_pass();
	wait_level(h, &s, MNOTIFY_LEVEL_NONE, 5000);
	if (node_level(name, &headroom, &thresh))
		tap_bail("read " LEVELS);
	share = swap_share();
	set_thresholds((headroom - share) * 1000 * 100 / 135 / managed);
	let_window_pass();
	s = (struct seen){ .order_ok = 1, .last_level = MNOTIFY_LEVEL_NONE };
	mnotify_dispatch(h, on_ev, &s);
	if (node_level(name, &headroom, &thresh))
		tap_bail("read " LEVELS);
	tap_diag("zram swap %u MB, %lld MB taken: headroom %lld pages (the swap's %lld), low threshold %lld, level %s",
		 swap_mb, used / MB, headroom, share, thresh, name);
	tap_ok(!strcmp(name, "none") && s.enters_low == 0 && headroom <= 2 * thresh &&
	       headroom - share > thresh + thresh / 4,
	       "zram: headroom at %.2f times the low threshold, %.2f without the swap's share, not falling: level none",
	       (double)headroom / (double)thresh, (double)(headroom - share) / (double)thresh);

	/* the rise: an evaluation that sees it starts the window */
	munmap(mem + len - 4 * MB, 4 * MB);
	len -= 4 * MB;
	before = wait_headroom(headroom + 4 * MB / page / 2, false);
	if (swapoff("/dev/zram0"))
		tap_bail("swapoff /dev/zram0");
	after = wait_headroom(before - share / 2, true);
	/* the kernel counts a fall over a quarter to a full second */
	for (end = now_ms() + 2500; now_ms() < end;) {
		node_level(name, &headroom, &thresh);	/* a read evaluates */
		mnotify_wait(h, 100, on_ev, &s);
	}
	tap_ok(s.enters_low == 0 && s.last_level == MNOTIFY_LEVEL_NONE && after > thresh + thresh / 4 &&
	       after <= 2 * thresh && before - after >= thresh / 8,
	       "swapoff took %lld pages of headroom at once (%.2f -> %.2f times the threshold): no fall, none (%d lows)",
	       before - after, (double)before / (double)thresh, (double)after / (double)thresh,
	       s.enters_low);

	if (write_file("/sys/kernel/mm/mem_notify/thresholds", MN_THRESH_DEFAULT))
		tap_bail("put the thresholds back");
	munmap(mem, len);
	if (zram_swap_off() < 0)
		tap_diag("zram swap off: %s", strerror(errno));
	wait_level(h, &s, MNOTIFY_LEVEL_NONE, 5000);
	mnotify_close(h);
}

/*
 * The fall, without swap: the test's own memory takes the headroom from
 * 2.3 to 1.6 times the low threshold at a tenth of the threshold per
 * second (6 MB/s at the default threshold of a 256 MB guest: at 1.6
 * times the threshold is still 6 s away, three times the kernel's 2 s:
 * none); then, freed and taken again to the same depth at full speed
 * (under a second: low, above the threshold and its band), and once the
 * fall stops, back to none while the memory is still held.  Where the headroom is under 2.5 times
 * the default threshold (the debug kernel's guest), the thresholds move
 * to put it at 3 times.
 */
static void fast_fall(void)
{
	long long page = sysconf(_SC_PAGESIZE), headroom, thresh, used = 0, t0;
	long long managed = managed_pages();
	struct seen s = { .order_ok = 1 };
	struct mnotify *h = open_events();
	size_t len = 400 * MB;
	char name[16], *mem;
	int mb_s;

	if (node_level(name, &headroom, &thresh))
		tap_bail("read " LEVELS);
	s.last_level = level_of(name);
	let_window_pass();
	wait_level(h, &s, MNOTIFY_LEVEL_NONE, 5000);
	s = (struct seen){ .order_ok = 1 };	/* the fall's chain starts at none */
	wait_headroom(thresh * 5 / 2, false);	/* what the swap test freed */
	if (node_level(name, &headroom, &thresh))
		tap_bail("read " LEVELS);
	if (headroom < thresh * 5 / 2) {
		set_thresholds(headroom * 1000 / 3 / managed);
		if (node_level(name, &headroom, &thresh))
			tap_bail("read " LEVELS);
	}
	mb_s = (int)(thresh * page / MB / 10);
	if (mb_s < 1)
		mb_s = 1;
	tap_diag("headroom %lld MB, low threshold %lld MB, the slow fall at %d MB/s",
		 headroom * page / MB, thresh * page / MB, mb_s);
	if (headroom < thresh * 5 / 2 || (long long)len < headroom * page)
		tap_bail("no room for the fall (headroom %lld pages)", headroom);

	mem = map_mem(len);
	grow(mem, len, &used, thresh * 23 / 10, 0);
	let_window_pass();
	headroom = grow(mem, len, &used, thresh * 160 / 100, mb_s);
	mnotify_dispatch(h, on_ev, &s);
	tap_ok(s.enters_low == 0 && s.last_level == MNOTIFY_LEVEL_NONE &&
	       headroom <= thresh * 160 / 100,
	       "a fall at %d MB/s from 2.3 to %.2f times the threshold: none (%d lows)",
	       mb_s, (double)headroom / (double)thresh, s.enters_low);
	munmap(mem, len);
	wait_headroom(thresh * 5 / 2, false);
	wait_level(h, &s, MNOTIFY_LEVEL_NONE, 5000);
	s.enters_low = 0;

	used = 0;
	mem = map_mem(len);
	t0 = now_ms();
	/* aimed at 1.6 times: at full speed the levels file is up to 50 ms
	 * (some 10 MB) behind, and the low must come above its band */
	headroom = grow(mem, len, &used, thresh * 160 / 100, 0);
	tap_diag("took %lld MB at full speed in %lld ms", used / MB, now_ms() - t0);
	t0 = now_ms();
	wait_level(h, &s, MNOTIFY_LEVEL_LOW, 2000);
	tap_ok(s.enters_low == 1 && s.low_headroom > s.low_thresh + s.low_thresh / 4 &&
	       s.low_headroom <= 2 * s.low_thresh,
	       "the same at full speed: low inside twice the threshold, above its band (headroom %lld, threshold %lld pages)",
	       s.low_headroom, s.low_thresh);
	/* the memory is held at 1.6 times: nothing falls any more */
	wait_level(h, &s, MNOTIFY_LEVEL_NONE, 5000);
	tap_ok(s.last_level == MNOTIFY_LEVEL_NONE && s.medium == 0 && s.order_ok,
	       "the fall stopped at %.2f times the threshold: back to none %lld ms later, the memory still held (each event's prev the level before)",
	       (double)headroom / (double)thresh, now_ms() - t0);
	munmap(mem, len);
	if (write_file("/sys/kernel/mm/mem_notify/thresholds", MN_THRESH_DEFAULT))
		tap_bail("put the thresholds back");
	mnotify_close(h);
}

int main(void)
{
	protect_self();
	swap_out_in_band();
	swapoff_no_fall();
	fast_fall();
	return tap_done();
}
