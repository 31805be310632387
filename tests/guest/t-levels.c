// SPDX-License-Identifier: GPL-2.0
/*
 * Graded pressure levels (patches 1, 2 and 11): thresholds read, set and rejected
 * through sysfs, netlink and mnotify-ctl (nothing changed on error); the
 * levels of a node rising in order under a ramp, without and with zram
 * swap, critical before the OOM kill, and back to none after it or after
 * the hog frees its memory; the hysteresis rule checked on every event
 * the kernel sent; headroom following vm.min_free_kbytes and
 * vm.watermark_scale_factor, thresholds not moving with it; the per-file
 * minimum level of /dev/mem_notify; version-1 attributes still present.
 */
#define _GNU_SOURCE
#include "guestlib.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mnotify/mnotify.h>
#include "uapi/linux/mem_notify.h"

#define SYSFS "/sys/kernel/mm/mem_notify/"
#define CTL "/usr/bin/mnotify-ctl"
#define DEV "/dev/mem_notify"
#define MAX_EV 256
#define RAMP_MS 120000

struct rec {
	struct mnotify_event ev;
	long long rx_ms;
};

struct log {
	struct rec r[MAX_EV];
	int n;
	int oom;		/* OOM events seen */
	int oom_at;		/* index in r[] of the first OOM event, -1 */
	int stop_level;		/* stop once a pressure event reaches it (0: never) */
	int reached;
};

static int on_ev(const struct mnotify_event *ev, void *arg)
{
	struct log *l = arg;

	if (ev->type == MNOTIFY_EVENT_OOM_VICTIM) {
		if (!l->oom++)
			l->oom_at = l->n;
	}
	if (ev->type == MNOTIFY_EVENT_LOST)
		tap_diag("lost notice: group %u count %llu", ev->u.lost.group,
			 (unsigned long long)ev->u.lost.count);
	if (l->n < MAX_EV) {
		l->r[l->n].ev = *ev;
		l->r[l->n].rx_ms = now_ms();
		l->n++;
	}
	if (l->stop_level && (ev->type == MNOTIFY_EVENT_PRESSURE_ENTER) &&
	    ev->u.zone.level >= l->stop_level) {
		l->reached = 1;
		return MNOTIFY_CB_STOP;
	}
	return MNOTIFY_CB_OK;
}

/* collect events until @done(l) or @ms pass */
static void collect(struct mnotify *h, struct log *l, int ms, int (*done)(struct log *))
{
	long long end = now_ms() + ms;

	while (!done(l) && now_ms() < end) {
		int r = mnotify_wait(h, (int)(end - now_ms()), on_ev, l);

		if (r < 0 && r != -EINTR) {
			tap_diag("mnotify_wait: %s", strerror(-r));
			break;
		}
	}
}

static int done_reached(struct log *l)
{
	return l->reached;
}

static int done_oom(struct log *l)
{
	return l->oom > 0;
}

static int done_never(struct log *l)
{
	(void)l;
	return 0;
}

/* the last pressure event says none */
static int done_none(struct log *l)
{
	for (int i = l->n - 1; i >= 0; i--) {
		const struct mnotify_event *e = &l->r[i].ev;

		if (e->type == MNOTIFY_EVENT_PRESSURE_ENTER)
			return 0;
		if (e->type == MNOTIFY_EVENT_PRESSURE_EXIT)
			return 1;
	}
	return 0;
}

static bool is_pressure(const struct mnotify_event *e)
{
	return e->type == MNOTIFY_EVENT_PRESSURE_ENTER ||
	       e->type == MNOTIFY_EVENT_PRESSURE_EXIT;
}

/*
 * The kernel's rules, checked on every pressure event it sent: enter a
 * level at or below its threshold (low: twice it, patch 22's early low
 * on swap-out or a fast fall; t-reclaim-cost tests when), leave one only above its threshold
 * plus a quarter; each event's prev is the level of the event before,
 * sequence numbers without gaps; version-1 attributes present.
 */
struct rule_check {
	int events, bad_rule, bad_chain, bad_seq, bad_v1, rises;
	uint64_t fast_leaves;	/* left within 100 ms of entering */
};

static uint64_t thresh_of(const struct mnotify_zone *z, int level)
{
	return level == MNOTIFY_LEVEL_LOW ? z->thresh_low :
	       level == MNOTIFY_LEVEL_MEDIUM ? z->thresh_medium : z->thresh_critical;
}

static void check_rules(const struct log *l, int start_level, struct rule_check *c)
{
	int last = start_level;
	uint64_t last_seq = 0;
	long long entered_ms[4] = { 0 };

	memset(c, 0, sizeof(*c));
	for (int i = 0; i < l->n; i++) {
		const struct mnotify_event *e = &l->r[i].ev;
		const struct mnotify_zone *z = &e->u.zone;

		if (!is_pressure(e))
			continue;
		c->events++;
		if (last_seq && e->seq != last_seq + 1)
			c->bad_seq++;
		last_seq = e->seq;
		if (z->prev_level != last)
			c->bad_chain++;
		if (z->level > z->prev_level) {
			uint64_t t = thresh_of(z, z->level);

			/* patch 22: low within twice its threshold, the early low */
			if (z->level == MNOTIFY_LEVEL_LOW)
				t *= 2;
			c->rises++;
			if (z->headroom > t)
				c->bad_rule++;
			entered_ms[z->level] = (long long)(e->timestamp_ns / 1000000);
		} else if (z->prev_level > 0) {
			uint64_t t = thresh_of(z, z->prev_level);

			if (z->headroom <= t + t / 4)
				c->bad_rule++;
			if (entered_ms[z->prev_level] &&
			    (long long)(e->timestamp_ns / 1000000) - entered_ms[z->prev_level] < 100)
				c->fast_leaves++;
		}
		if (!z->name[0] || z->threshold != z->thresh_low ||
		    (e->type == MNOTIFY_EVENT_PRESSURE_EXIT) != (z->level == 0))
			c->bad_v1++;
		last = z->level;
	}
}

static void print_events(const char *what, const struct log *l)
{
	for (int i = 0; i < l->n; i++) {
		const struct mnotify_event *e = &l->r[i].ev;

		if (is_pressure(e))
			tap_diag("%s: seq %llu %s -> %s headroom %llu (free %llu file %llu slab %llu swap %llu) thresholds %llu/%llu/%llu",
				 what, (unsigned long long)e->seq,
				 mnotify_level_name(e->u.zone.prev_level),
				 mnotify_level_name(e->u.zone.level),
				 (unsigned long long)e->u.zone.headroom,
				 (unsigned long long)e->u.zone.headroom_free,
				 (unsigned long long)e->u.zone.headroom_file,
				 (unsigned long long)e->u.zone.headroom_slab,
				 (unsigned long long)e->u.zone.headroom_swap,
				 (unsigned long long)e->u.zone.thresh_low,
				 (unsigned long long)e->u.zone.thresh_medium,
				 (unsigned long long)e->u.zone.thresh_critical);
		else if (e->type == MNOTIFY_EVENT_OOM_VICTIM)
			tap_diag("%s: oom kill of %s (pid %u)", what, e->u.oom.comm, e->u.oom.pid);
	}
}

/* node 0's line of the levels file: name, headroom, thresholds (pages) */
static bool sysfs_levels(char name[16], long long *hr, long long t[3])
{
	char *s = read_file(SYSFS "levels");
	int node, n = s ? sscanf(s, "%d %15s %lld %lld %lld %lld", &node, name, hr,
				 &t[0], &t[1], &t[2]) : 0;

	free(s);
	return n == 6;
}

/* node 0's level name from the levels file, "" if absent */
static void sysfs_level(char *out, size_t len)
{
	char name[16];
	long long hr, t[3];

	snprintf(out, len, "%s", sysfs_levels(name, &hr, t) ? name : "");
}

static long long sysfs_headroom(void)
{
	char name[16];
	long long hr, t[3];

	return sysfs_levels(name, &hr, t) ? hr : -1;
}

/* ------------------------------------------------------------ thresholds */

static bool thresholds_are(const char *want)
{
	char *s = read_file(SYSFS "thresholds");
	bool ok = s && !strcmp(s, want);

	free(s);
	return ok;
}

static void test_thresholds(struct mnotify *h)
{
	static const char *const bad[] = {
		"50 100 20", "100 50 50", "0 0 0", "1001 50 20", "100 50 0",
		"abc", "100 50", "100 60 30 10", "-5 -6 -7", "\n",
	};
	struct mnotify_thresholds t, set = { .low = 200, .medium = 100, .critical = 30 };
	char out[512];
	int err, bad_ok = 0, rc;

	tap_ok(thresholds_are(MN_THRESH_DEFAULT "\n"), "default thresholds are " MN_THRESH_DEFAULT " per mille");
	err = mnotify_get_thresholds(h, &t, sizeof(t));
	tap_ok(!err && t.low == MN_THRESH_LOW && t.medium == MN_THRESH_MEDIUM &&
	       t.critical == MN_THRESH_CRITICAL,
	       "netlink GET_THRESHOLDS agrees (%d: %u %u %u)", err, t.low, t.medium, t.critical);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int fd = open(SYSFS "thresholds", O_WRONLY);
		ssize_t w = fd < 0 ? -1 : write(fd, bad[i], strlen(bad[i]));
		int e = errno;

		if (fd >= 0)
			close(fd);
		if (w < 0 && e == EINVAL && thresholds_are(MN_THRESH_DEFAULT "\n"))
			bad_ok++;
		else
			tap_diag("sysfs write '%s': %zd errno %d", bad[i], w, e);
	}
	tap_ok(bad_ok == (int)(sizeof(bad) / sizeof(bad[0])),
	       "sysfs rejects %d bad threshold writes with EINVAL, nothing changed", bad_ok);

	tap_ok(write_file(SYSFS "thresholds", "150 70 30") == 0 && thresholds_are("150 70 30\n"),
	       "sysfs sets 150 70 30");
	err = mnotify_set_thresholds(h, &set, sizeof(set));
	tap_ok(!err && thresholds_are("200 100 30\n"), "netlink SET_THRESHOLDS sets 200 100 30 (%d)", err);

	t = (struct mnotify_thresholds){ .low = 50, .medium = 100, .critical = 20 };
	err = mnotify_set_thresholds(h, &t, sizeof(t));
	tap_ok(err == -EINVAL && strstr(mnotify_ext_ack(h), "ordered") && thresholds_are("200 100 30\n"),
	       "netlink: unordered thresholds: EINVAL '%s', unchanged", mnotify_ext_ack(h));
	t = (struct mnotify_thresholds){ .low = 2000, .medium = 100, .critical = 20 };
	err = mnotify_set_thresholds(h, &t, sizeof(t));
	tap_ok(err == -ERANGE && strstr(mnotify_ext_ack(h), "out of range") &&
	       thresholds_are("200 100 30\n"),
	       "netlink: 2000 per mille: ERANGE from the policy '%s', unchanged", mnotify_ext_ack(h));

	{
		char *argv[] = { CTL, "set", "thresholds", "100", "200", "20", NULL };

		rc = run(argv, out, sizeof(out));
		tap_ok(rc == 1 && strstr(out, "ordered low > medium > critical") && thresholds_are("200 100 30\n"),
		       "mnotify-ctl set thresholds 100 200 20: exit 1, one line: %s", out);
	}
	{
		char *argv[] = { CTL, "set", "thresholds", "100", "x", "20", NULL };

		rc = run(argv, out, sizeof(out));
		tap_ok(rc == 2 && strstr(out, "'x' is not a number"), "mnotify-ctl non-numeric: exit 2: %s", out);
	}
	{
		char *argv[] = { CTL, "set", "thresholds", "300", "60", "25", NULL };

		rc = run_as_nobody(argv, out, sizeof(out));
		tap_ok(rc == 1 && strstr(out, "needs CAP_SYS_ADMIN") && thresholds_are("200 100 30\n"),
		       "nobody: set thresholds refused, unchanged: %s", out);
	}
	{
		char *argv[] = { CTL, "get", "thresholds", NULL };

		rc = run_as_nobody(argv, out, sizeof(out));
		tap_ok(rc == 0 && !strcmp(out, "200 100 30\n"), "nobody: get thresholds: %s", out);
	}
	{
		char *argv[] = { CTL, "set", "thresholds", MN_STR(MN_THRESH_LOW),
				 MN_STR(MN_THRESH_MEDIUM), MN_STR(MN_THRESH_CRITICAL), NULL };

		rc = run(argv, out, sizeof(out));
		tap_ok(rc == 0 && thresholds_are(MN_THRESH_DEFAULT "\n"),
		       "mnotify-ctl restores " MN_THRESH_DEFAULT " (%d)", rc);
	}
}

/*
 * Ordering: once the events of an episode have stopped, the zone dump's
 * sequence number is the last pressure event's and every zone's status
 * says what that event's level says (issue: a state change and its
 * sequence number taken apart could reorder enter and exit).
 */
static void check_dump_matches(struct mnotify *h, struct log *l, const char *cfg)
{
	struct mnotify_zone z[8];
	uint64_t seq = 0, last_seq = 0;
	int n, bad = 0, last_level = -1;

	/* quiet: no more events for 300 ms */
	for (int before = -1; before != l->n;) {
		before = l->n;
		collect(h, l, 300, done_never);
	}
	for (int i = 0; i < l->n; i++)
		if (is_pressure(&l->r[i].ev)) {
			last_seq = l->r[i].ev.seq;
			last_level = l->r[i].ev.u.zone.level;
		}
	n = mnotify_get_zones(h, z, 8, sizeof(z[0]), &seq);
	for (int i = 0; i < n && i < 8; i++)
		if (z[i].status != MNOTIFY_ZONE_IGNORED &&
		    z[i].status != (last_level > 0 ? MNOTIFY_ZONE_PRESSURE : MNOTIFY_ZONE_OK))
			bad++;
	tap_ok(n > 0 && last_seq && seq == last_seq && !bad,
	       "%s: zone dump agrees with the last event (dump seq %llu, last event seq %llu level %s, %d zones differ)",
	       cfg, (unsigned long long)seq, (unsigned long long)last_seq,
	       mnotify_level_name(last_level), bad);
}

/* ------------------------------------------------------------ ramps */

static pid_t start_hog(const char *mb, const char *fast, const char *rate, int *fd)
{
	char *argv[] = { GUEST_HOG, "-m", (char *)mb, "-F", (char *)fast, "-r", (char *)rate,
			 "-H", "-n", "mnv-ramp", "-a", "1000", NULL };
	pid_t p = spawn(argv, fd);

	if (p < 0)
		tap_bail("spawn hog");
	return p;
}

static void end_hog(pid_t hog, int fd)
{
	int st;

	kill(hog, SIGTERM);
	if (wait_pid_timeout(hog, &st, 30000) < 0)
		kill_reap(hog);
	close(fd);
}

/* a ramp to the OOM kill: levels in order, critical before the kill, then none */
static void ramp_to_oom(struct mnotify *h, const char *cfg)
{
	long long avail = meminfo_kb("MemAvailable") / 1024;
	char mb[24], fast[24];
	struct rule_check c;
	static struct log l;
	long long t0, low_ms = -1, crit_ms = -1, oom_ms = -1;
	int seen_mask = 0, hogfd, max_level = 0;
	pid_t hog;

	memset(&l, 0, sizeof(l));
	l.oom_at = -1;
	snprintf(mb, sizeof(mb), "%lld", avail * 4);
	snprintf(fast, sizeof(fast), "%lld", avail > 80 ? avail - 60 : 8);
	t0 = now_ms();
	hog = start_hog(mb, fast, "16", &hogfd);
	collect(h, &l, RAMP_MS, done_oom);
	end_hog(hog, hogfd);
	/* after the kill the node must come back to none */
	collect(h, &l, 30000, done_none);
	print_events(cfg, &l);

	for (int i = 0; i < l.n; i++) {
		const struct mnotify_event *e = &l.r[i].ev;

		if (e->type == MNOTIFY_EVENT_OOM_VICTIM && oom_ms < 0)
			oom_ms = (long long)(e->timestamp_ns / 1000000);
		if (e->type != MNOTIFY_EVENT_PRESSURE_ENTER || (l.oom_at >= 0 && i > l.oom_at))
			continue;
		seen_mask |= 1 << e->u.zone.level;
		if (e->u.zone.level > max_level)
			max_level = e->u.zone.level;
		if (e->u.zone.level == MNOTIFY_LEVEL_LOW && low_ms < 0)
			low_ms = (long long)(e->timestamp_ns / 1000000);
		if (e->u.zone.level == MNOTIFY_LEVEL_CRITICAL && crit_ms < 0)
			crit_ms = (long long)(e->timestamp_ns / 1000000);
	}
	tap_ok(l.oom > 0, "%s: the ramp ended in an OOM kill (%d events, %lld ms)", cfg, l.oom,
	       now_ms() - t0);
	tap_ok(seen_mask == 0xe && crit_ms >= 0 && oom_ms >= 0 && crit_ms <= oom_ms,
	       "%s: low, medium and critical all came before the OOM kill (levels seen 0x%x)",
	       cfg, seen_mask);
	tap_diag("%s: low %lld ms and critical %lld ms before the OOM kill", cfg,
		 low_ms >= 0 && oom_ms >= 0 ? oom_ms - low_ms : -1,
		 crit_ms >= 0 && oom_ms >= 0 ? oom_ms - crit_ms : -1);
	check_rules(&l, 0, &c);
	tap_ok(c.events >= 2 && c.rises >= 3 && !c.bad_rule && !c.bad_chain &&
	       !c.bad_seq,
	       "%s: %d events, each prev = the level before, no sequence gap, entered at or below the threshold, left only above threshold + 1/4 (bad rule %d chain %d seq %d)",
	       cfg, c.events, c.bad_rule, c.bad_chain, c.bad_seq);
	tap_ok(!c.bad_v1, "%s: every event has the version-1 attributes (zone, threshold = thresh_low, exit = none) (%d bad)",
	       cfg, c.bad_v1);
	tap_ok(done_none(&l), "%s: after the OOM kill the node is back to none", cfg);
	check_dump_matches(h, &l, cfg);
	{
		char lv[16];

		sysfs_level(lv, sizeof(lv));
		tap_ok(!strcmp(lv, "none"), "%s: levels file says none (%s)", cfg, lv);
	}
}

/* ramp until @stop, then the hog frees: back to none in one event */
static void ramp_and_free(struct mnotify *h, int stop)
{
	long long avail = meminfo_kb("MemAvailable") / 1024;
	char mb[24], fast[24], line[64];
	struct rule_check c;
	static struct log l;
	int hogfd, devfd_low, devfd_crit, lvl = -1;
	bool low_rd, crit_rd;
	pid_t hog;

	memset(&l, 0, sizeof(l));
	l.oom_at = -1;
	l.stop_level = stop;
	devfd_low = open(DEV, O_RDONLY | O_CLOEXEC);
	devfd_crit = open(DEV, O_RDONLY | O_CLOEXEC);
	if (devfd_low < 0 || devfd_crit < 0)
		tap_bail("open " DEV);
	{
		uint32_t v = MNOTIFY_LEVEL_CRITICAL;

		if (ioctl(devfd_crit, MEM_NOTIFY_IOC_SET_MIN_LEVEL, &v))
			tap_bail("MEM_NOTIFY_IOC_SET_MIN_LEVEL");
	}
	snprintf(mb, sizeof(mb), "%lld", avail * 4);
	snprintf(fast, sizeof(fast), "%lld", avail > 80 ? avail - 60 : 8);
	hog = start_hog(mb, fast, "8", &hogfd);
	collect(h, &l, RAMP_MS, done_reached);
	kill(hog, SIGSTOP);

	if (stop == MNOTIFY_LEVEL_LOW && l.reached) {
		struct pollfd p[2] = { { .fd = devfd_low, .events = POLLIN },
				       { .fd = devfd_crit, .events = POLLIN } };
		uint32_t cur = 99;
		int seen = 0, i;

		/*
		 * The worker tells files after the event, at most every
		 * 200 ms.  Kswapd may take the node back to none meanwhile:
		 * the change stays readable until read, so the default file
		 * is readable either way, and the critical-only file only
		 * if critical was ever entered.
		 */
		poll(p, 1, 5000);
		low_rd = p[0].revents & POLLIN;
		poll(&p[1], 1, 0);
		crit_rd = p[1].revents & POLLIN;
		ioctl(devfd_low, MEM_NOTIFY_IOC_GET_LEVEL, &cur);
		lvl = (int)cur;
		for (i = 0; i < l.n; i++)
			if (l.r[i].ev.type == MNOTIFY_EVENT_PRESSURE_ENTER &&
			    l.r[i].ev.u.zone.level > seen)
				seen = l.r[i].ev.u.zone.level;
		tap_ok(low_rd && (seen == MNOTIFY_LEVEL_CRITICAL || !crit_rd),
		       "after entering %s (now %s): a default file polls readable (%d), one with minimum critical does not (%d)",
		       mnotify_level_name(seen), mnotify_level_name(lvl), low_rd, crit_rd);
	}
	kill(hog, SIGUSR1);
	kill(hog, SIGCONT);
	if (read_line_timeout(hogfd, line, sizeof(line), 60000) <= 0 || strcmp(line, "freed\n"))
		tap_diag("hog did not say freed: %s", line);
	l.stop_level = 0;
	collect(h, &l, 30000, done_none);
	end_hog(hog, hogfd);
	print_events(mnotify_level_name(stop), &l);
	check_rules(&l, 0, &c);
	tap_ok(l.reached && l.oom == 0, "ramp reached %s without an OOM kill",
	       mnotify_level_name(stop));
	tap_ok(done_none(&l) && !c.bad_rule && !c.bad_chain && !c.bad_seq,
	       "after the hog freed its memory: back to none, rules kept (%d events, bad %d/%d/%d)",
	       c.events, c.bad_rule, c.bad_chain, c.bad_seq);
	check_dump_matches(h, &l, mnotify_level_name(stop));
	{
		uint32_t cur = 99;
		struct pollfd p = { .fd = devfd_low, .events = POLLIN };

		ioctl(devfd_low, MEM_NOTIFY_IOC_GET_LEVEL, &cur);
		tap_ok(cur == MNOTIFY_LEVEL_NONE && poll(&p, 1, 0) == 0,
		       "GET_LEVEL says none and the device is not readable (%u)", cur);
	}
	close(devfd_low);
	close(devfd_crit);
}

/*
 * Nobody watches (no open file, no subscriber): the hook in the allocator
 * is off and levels are not tracked, but a reader of the levels file gets
 * them evaluated on the spot.
 */
static void test_unwatched(void)
{
	char *s = read_file(SYSFS "levels"), lv[16] = "", line[64], mb[24];
	long long hr = -1, t1 = 0, t2 = 0, t3 = 0;
	int node, fd;
	pid_t hog;

	if (!s || sscanf(s, "%d %15s %lld %lld %lld %lld", &node, lv, &hr, &t1, &t2, &t3) != 6)
		tap_bail("read " SYSFS "levels");
	free(s);
	tap_ok(read_ll(SYSFS "watchers") == 0, "nobody watches: no open file");
	/* take the headroom to between medium and low: level low */
	snprintf(mb, sizeof(mb), "%lld", (hr - (t1 + t2) / 2) * 4 / 1024);
	{
		char *argv[] = { GUEST_HOG, "-m", mb, "-H", "-n", "mnv-unwatched", "-a", "1000", NULL };

		hog = spawn(argv, &fd);
	}
	if (hog < 0 || read_line_timeout(fd, line, sizeof(line), 120000) <= 0)
		tap_bail("hog of %s MB", mb);
	s = read_file(SYSFS "levels");
	tap_diag("before: headroom %lld thresholds %lld %lld %lld; with the hog: %s MemFree %lld kB",
		 hr, t1, t2, t3, s ? s : "?", meminfo_kb("MemFree"));
	free(s);
	/* a reader gets an evaluation at most 50 ms old: allow a few */
	for (int i = 0; i < 100; i++) {
		sysfs_level(lv, sizeof(lv));
		if (!strcmp(lv, "low") || !strcmp(lv, "medium"))
			break;
		poll(NULL, 0, 20);
	}
	tap_ok(!strcmp(lv, "low") || !strcmp(lv, "medium"),
	       "unwatched: a %s MB hog, the levels file evaluates on read: %s", mb, lv);
	end_hog(hog, fd);
	for (int i = 0; i < 100; i++) {
		sysfs_level(lv, sizeof(lv));
		if (!strcmp(lv, "none"))
			break;
		poll(NULL, 0, 20);
	}
	tap_ok(!strcmp(lv, "none"), "unwatched: hog gone, levels file says none (%s)", lv);
}

/* ------------------------------------------------------------ misc */

static void test_ioctl(void)
{
	int fd = open(DEV, O_RDONLY | O_CLOEXEC);
	uint32_t v;
	int bad = 0;

	if (fd < 0)
		tap_bail("open " DEV);
	for (v = 0; v < 6; v++) {
		int r = ioctl(fd, MEM_NOTIFY_IOC_SET_MIN_LEVEL, &v);
		bool want_ok = v >= 1 && v <= 3;

		if (want_ok ? r != 0 : !(r < 0 && errno == EINVAL))
			bad++;
	}
	tap_ok(!bad, "SET_MIN_LEVEL takes 1-3, EINVAL otherwise (%d wrong)", bad);
	tap_ok(ioctl(fd, _IO(MEM_NOTIFY_IOC_MAGIC, 9)) < 0 && errno == ENOTTY,
	       "an unknown ioctl is ENOTTY");
	v = 99;
	bad = ioctl(fd, MEM_NOTIFY_IOC_GET_LEVEL, &v);
	tap_ok(bad == 0 && v == 0, "idle: GET_LEVEL says none (%u)", v);
	close(fd);
}

static void test_min_free(void)
{
	char *old = read_file("/proc/sys/vm/min_free_kbytes");
	long long before = sysfs_headroom(), after, kb = old ? atoll(old) : 0;
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", kb + 16384);
	if (write_file("/proc/sys/vm/min_free_kbytes", buf) < 0)
		tap_bail("write min_free_kbytes");
	/* the change kicks an evaluation: wait for the worker's new headroom */
	after = before;
	for (int i = 0; i < 100 && after > before - 2048; i++) {
		struct pollfd none = { .fd = -1 };

		poll(&none, 1, 20);
		after = sysfs_headroom();
	}
	snprintf(buf, sizeof(buf), "%lld", kb);
	write_file("/proc/sys/vm/min_free_kbytes", buf);
	tap_ok(before > 0 && after <= before - 2048 && after >= before - 6144,
	       "min_free_kbytes +16 MB: headroom %lld -> %lld pages (about 4096 less)", before, after);
	free(old);
}

/* node 0's low watermarks, summed over its zones (pages) */
static long long node0_low_wmark(void)
{
	struct zone_state z[MAX_ZONES];
	int n = zoneinfo_read(z, MAX_ZONES);
	long long sum = 0;

	for (int i = 0; i < n; i++)
		if (z[i].node == 0)
			sum += z[i].low;
	return n > 0 ? sum : -1;
}

/* the three thresholds in pages, as the levels file gives them */
static void sysfs_thresh_pages(char *out, size_t len)
{
	char name[16];
	long long hr, t[3];

	if (sysfs_levels(name, &hr, t))
		snprintf(out, len, "%lld %lld %lld", t[0], t[1], t[2]);
	else
		snprintf(out, len, "%s", "");
}

static long long file_lru_pages(void)
{
	return (meminfo_kb("Active(file)") + meminfo_kb("Inactive(file)")) / 4;
}

static long long min_ll(long long a, long long b)
{
	return a < b ? a : b;
}

/*
 * vm.watermark_scale_factor moves the low watermark, and with it what the
 * headroom holds back of the page cache (as MemAvailable does): the file
 * part counts the file LRU less min(file / 2, low).  The thresholds are
 * per mille of the node and do not move.  With 96 MB of clean page cache
 * read in, 10 -> 1000 must lower the headroom by what the formula says.
 */
static void test_wsf(void)
{
	char *old_wsf = read_file("/proc/sys/vm/watermark_scale_factor");
	static char big[1 << 16];
	char thr0[64], thr1[64], buf[64];
	long long h0, h1 = -1, low0, low1, f = 0, want = 0;
	int fd;

	for (int i = 1; i <= 3; i++) {
		snprintf(buf, sizeof(buf), "/mnt/pc/files/f%d", i);
		fd = open(buf, O_RDONLY);
		if (fd < 0)
			tap_bail("open %s", buf);
		while (read(fd, big, sizeof(big)) > 0)
			;
		close(fd);
	}
	low0 = node0_low_wmark();
	h0 = sysfs_headroom();
	sysfs_thresh_pages(thr0, sizeof(thr0));
	if (write_file("/proc/sys/vm/watermark_scale_factor", "1000") < 0)
		tap_bail("write watermark_scale_factor");
	low1 = node0_low_wmark();
	/* the change kicks an evaluation: wait for it (2 s at most) */
	for (int i = 0; i < 100; i++) {
		struct pollfd none = { .fd = -1 };

		f = file_lru_pages();
		want = h0 - (min_ll(f / 2, low1) - min_ll(f / 2, low0));
		h1 = sysfs_headroom();
		if (h1 >= 0 && llabs(h1 - want) <= 1024)
			break;
		poll(&none, 1, 20);
	}
	sysfs_thresh_pages(thr1, sizeof(thr1));
	write_file("/proc/sys/vm/watermark_scale_factor", old_wsf ? old_wsf : "10");
	tap_ok(low1 - low0 > 2048 && f / 2 > low1,
	       "watermark_scale_factor 1000: low watermark %lld -> %lld pages, file LRU %lld",
	       low0, low1, f);
	tap_ok(h0 > 0 && llabs(h1 - want) <= 1024,
	       "watermark_scale_factor 1000: headroom %lld -> %lld pages (formula: %lld)",
	       h0, h1, want);
	tap_ok(thr0[0] && !strcmp(thr0, thr1),
	       "watermark_scale_factor 1000: thresholds in pages unchanged (%s -> %s)", thr0, thr1);
	free(old_wsf);
}

int main(void)
{
	struct mnotify *h;
	char lv[16];
	int err;

	protect_self();
	test_unwatched();
	err = mnotify_open(&h, MNOTIFY_GROUP_PRESSURE | MNOTIFY_GROUP_OOM);
	if (err) {
		errno = -err;
		tap_bail("mnotify_open");
	}
	sysfs_level(lv, sizeof(lv));
	tap_ok(!strcmp(lv, "none"), "idle guest: node 0 at none (%s)", lv);
	{
		struct mnotify_zone z[8];
		int n = mnotify_get_zones(h, z, 8, sizeof(z[0]), NULL);

		for (int i = 0; i < n && i < 8; i++)
			tap_diag("zone %s: free %llu high %llu trigger %llu", z[i].name,
				 (unsigned long long)z[i].free_pages,
				 (unsigned long long)z[i].high_wmark,
				 (unsigned long long)z[i].threshold);
	}
	test_thresholds(h);
	test_ioctl();
	test_min_free();
	test_wsf();

	ramp_and_free(h, MNOTIFY_LEVEL_LOW);
	ramp_and_free(h, MNOTIFY_LEVEL_CRITICAL);
	ramp_to_oom(h, "noswap");
	ramp_to_oom(h, "noswap, after an OOM kill");
	if (zram_swap_on(96) < 0)
		tap_bail("zram swap on");
	ramp_to_oom(h, "zram");
	tap_ok(zram_swap_off() == 0, "swap off");
	mnotify_close(h);
	return tap_done();
}
