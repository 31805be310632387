// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink family "mem_notify", through libmnotify-nl and the
 * installed tools (/usr/bin/mnotify-listen, /usr/bin/mnotify-ctl):
 * pressure enter/exit events while a hog comes and goes, the char device
 * and netlink seeing the same episode, one oom event per OOM kill with the
 * victim's pid and `matched`, oom_victim through netlink and the sysctl,
 * privileges, the zone dump against /proc/zoneinfo, subscriber counts,
 * and bad input to every command (errno and extended ack message).
 */
#define _GNU_SOURCE
#include "guestlib.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>

#include <mnotify/mnotify.h>
#include "internal.h"
#include "uapi/linux/mem_notify.h"

#define LISTEN "/usr/bin/mnotify-listen"
#define CTL "/usr/bin/mnotify-ctl"
#define SYSCTL "/proc/sys/vm/oom_victim"
#define EPISODE_MS 120000

/* ------------------------------------------------------------ helpers */

static const char *json_str(const char *line, const char *key, char *out, size_t len)
{
	char pat[64];
	const char *p, *e;

	snprintf(pat, sizeof(pat), "\"%s\":\"", key);
	p = strstr(line, pat);
	if (!p)
		return NULL;
	p += strlen(pat);
	e = strchr(p, '"');
	if (!e || (size_t)(e - p) >= len)
		return NULL;
	memcpy(out, p, (size_t)(e - p));
	out[e - p] = '\0';
	return out;
}

static long long json_ll(const char *line, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(line, pat);
	if (!p)
		return -1;
	p += strlen(pat);
	if (!strncmp(p, "true", 4))
		return 1;
	if (!strncmp(p, "false", 5))
		return 0;
	return strtoll(p, NULL, 10);
}

static char *sysctl_value(char *buf, size_t len)
{
	char *s = read_file(SYSCTL);

	if (!s)
		return NULL;
	snprintf(buf, len, "%s", s);
	free(s);
	return buf;
}

/* start a hog that takes memory until RAM + 16 MB and holds it */
static pid_t start_hog(int *fd)
{
	long long avail = meminfo_kb("MemAvailable") / 1024;
	char mb[24], fast[24];
	char *argv[] = { GUEST_HOG, "-m", mb, "-F", fast, "-r", "8", "-H",
			 "-a", "1000", NULL };

	snprintf(mb, sizeof(mb), "%lld", avail + 16);
	snprintf(fast, sizeof(fast), "%lld", avail > 48 ? avail - 40 : 8);
	return spawn(argv, fd);
}

static void stop_hog(pid_t hog, int fd)
{
	int st;

	kill(hog, SIGTERM);
	if (wait_pid_timeout(hog, &st, 30000) < 0)
		kill_reap(hog);
	close(fd);
}

/* ------------------------------------------- pressure via mnotify-listen */

static void test_listen_pressure(void)
{
	char *argv[] = { LISTEN, "-j", "-g", "pressure", "-w", "200", NULL };
	char line[512], zone[32], entered[32] = "", type[16];
	long long last_seq = 0, t0;
	int out, hogfd, enters = 0, exits = 0, seq_ok = 1, zones_ok = 1;
	int exit_same_zone = 0;
	struct zone_state zs[MAX_ZONES];
	int nz = zoneinfo_read(zs, MAX_ZONES), i;
	pid_t l, hog;

	l = spawn_out(argv, &out, 0);
	if (l < 0)
		tap_bail("spawn mnotify-listen");
	line[0] = '\0';
	if (read_line_timeout(out, line, sizeof(line), 10000) <= 0)
		line[0] = '\0';
	if (!tap_ok(!strcmp(line, "{\"type\":\"listening\",\"source\":\"netlink\"}\n"),
		    "mnotify-listen -j prints {\"type\":\"listening\",...} first, once subscribed (%s)",
		    line)) {
		kill_reap(l);
		close(out);
		return;
	}

	t0 = now_ms();
	hog = start_hog(&hogfd);
	if (hog < 0)
		tap_bail("spawn hog");
	/* until the first enter */
	while (!enters && now_ms() - t0 < EPISODE_MS &&
	       read_line_timeout(out, line, sizeof(line), EPISODE_MS) > 0) {
		if (!json_str(line, "type", type, sizeof(type)))
			continue;
		if (json_ll(line, "seq") <= last_seq)
			seq_ok = 0;
		last_seq = json_ll(line, "seq");
		if (!strcmp(type, "enter")) {
			enters++;
			json_str(line, "zone", entered, sizeof(entered));
		}
	}
	tap_ok(enters == 1, "pressure enter received %lld ms after the hog started (zone %s)",
	       now_ms() - t0, entered);
	/* the zone must be one that is not ignored */
	for (i = 0; i < nz; i++)
		if (!strcmp(zs[i].name, entered) && zs[i].mem_notify == -1)
			zones_ok = 0;
	tap_ok(enters && zones_ok, "the zone that entered pressure (%s) is not an ignored zone", entered);

	/* the hog gives its memory back: the zone leaves pressure */
	kill(hog, SIGUSR1);
	t0 = now_ms();
	while (!exit_same_zone && now_ms() - t0 < 60000 &&
	       read_line_timeout(out, line, sizeof(line), 60000) > 0) {
		if (!json_str(line, "type", type, sizeof(type)))
			continue;
		if (json_ll(line, "seq") <= last_seq)
			seq_ok = 0;
		last_seq = json_ll(line, "seq");
		if (!strcmp(type, "enter"))
			enters++;
		if (!strcmp(type, "exit")) {
			exits++;
			if (json_str(line, "zone", zone, sizeof(zone)) && !strcmp(zone, entered))
				exit_same_zone = 1;
		}
		if (json_ll(line, "ts_ns") <= 0 || json_ll(line, "free_pages") < 0 ||
		    json_ll(line, "threshold") < 2 * json_ll(line, "high_wmark"))
			zones_ok = 0;
	}
	tap_ok(exit_same_zone, "pressure exit for %s after the hog freed (%d enter, %d exit events)",
	       entered, enters, exits);
	tap_ok(seq_ok && last_seq > 1, "sequence numbers strictly increase (last %lld)", last_seq);
	tap_ok(zones_ok, "every event has ts_ns, free_pages and threshold >= 2 * high_wmark");
	stop_hog(hog, hogfd);
	kill(l, SIGTERM);
	int st;
	tap_ok(wait_pid_timeout(l, &st, 10000) == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "mnotify-listen exits 0 on SIGTERM");
	close(out);
}

/* ------------------------------- char device and netlink, same episode */

struct seen {
	long long enter_ts;
	int enters;
};

static int on_ev(const struct mnotify_event *ev, void *arg)
{
	struct seen *s = arg;

	if (ev->type == MNOTIFY_EVENT_PRESSURE_ENTER && !s->enters++)
		s->enter_ts = (long long)(ev->timestamp_ns / 1000000);
	return MNOTIFY_CB_OK;
}

static void test_both_deliveries(void)
{
	struct mnotify *nl = NULL;
	struct seen s = { 0 };
	long long t0, chardev_ms = -1;
	int dev, hogfd, err;
	pid_t hog;

	err = mnotify_open(&nl, MNOTIFY_GROUP_PRESSURE);
	dev = open("/dev/mem_notify", O_RDONLY);
	if (err || dev < 0) {
		tap_ok(false, "open netlink (%d) and /dev/mem_notify (%d)", err, dev);
		return;
	}
	t0 = now_ms();
	hog = start_hog(&hogfd);
	if (hog < 0)
		tap_bail("spawn hog");
	while (now_ms() - t0 < EPISODE_MS && (!s.enters || chardev_ms < 0)) {
		struct pollfd p[2] = { { .fd = mnotify_fd(nl), .events = POLLIN },
				       { .fd = dev, .events = POLLIN } };

		if (chardev_ms >= 0)
			p[1].fd = -1;
		if (poll(p, 2, 1000) < 0)
			break;
		if (p[0].revents)
			mnotify_dispatch(nl, on_ev, &s);
		if (p[1].revents & POLLIN)
			chardev_ms = now_ms();
	}
	tap_ok(s.enters > 0 && chardev_ms >= 0,
	       "one episode: netlink enter at +%lld ms (kernel time), /dev/mem_notify readable at +%lld ms",
	       s.enters ? s.enter_ts - t0 : -1, chardev_ms >= 0 ? chardev_ms - t0 : -1);
	/* the device wakes on the same transition (or a later one of it) */
	tap_ok(s.enters > 0 && chardev_ms >= s.enter_ts,
	       "the char device woke no earlier than the netlink enter it follows (%lld ms later)",
	       chardev_ms - s.enter_ts);
	kill(hog, SIGUSR1);
	stop_hog(hog, hogfd);
	mnotify_close(nl);
	close(dev);
}

/*
 * libnl's family lookup (genl_ctrl_resolve_grp()) takes the first message
 * the socket receives for its reply.  On a socket that already belongs to a
 * group that can be a queued event, and the lookup then fails with "not
 * found": why mnotify_open() resolves every group before joining any.  Show
 * it with a raw libnl socket (reported, not asserted: whether libnl's
 * parser accepts the event depends on its bytes), then open the library
 * with both groups while the same event stream flows.
 */
static void test_event_before_lookup(void)
{
	struct nl_sock *s = nl_socket_alloc();
	int grp, hogfd, queued = 0, r = 0, i, fails = 0;
	long long t0;
	pid_t hog;

	if (!s || genl_connect(s) < 0) {
		tap_ok(false, "raw libnl socket");
		return;
	}
	nl_socket_disable_seq_check(s);
	grp = genl_ctrl_resolve_grp(s, MEM_NOTIFY_GENL_NAME, MEM_NOTIFY_MCGRP_PRESSURE);
	if (grp < 0 || nl_socket_add_membership(s, grp) < 0) {
		tap_ok(false, "raw socket joins the pressure group (%d)", grp);
		nl_socket_free(s);
		return;
	}
	t0 = now_ms();
	hog = start_hog(&hogfd);
	if (hog < 0)
		tap_bail("spawn hog");
	while (!queued && now_ms() - t0 < EPISODE_MS) {
		struct pollfd p = { .fd = nl_socket_get_fd(s), .events = POLLIN };

		if (poll(&p, 1, 1000) > 0)
			queued = 1;
	}
	if (queued) {
		r = genl_ctrl_resolve_grp(s, MEM_NOTIFY_GENL_NAME, MEM_NOTIFY_MCGRP_OOM);
		tap_diag("libnl's group lookup on a socket with a queued pressure event: %d (%s)",
			 r, r < 0 ? nl_geterror(r) : "the reply came first");
	}
	tap_ok(queued, "a pressure event was queued on the raw socket at +%lld ms", now_ms() - t0);
	/* the library on the same event stream: 200 opens with both groups */
	for (i = 0; i < 200; i++) {
		struct mnotify *h;
		int err = mnotify_open(&h, MNOTIFY_GROUP_PRESSURE | MNOTIFY_GROUP_OOM);

		if (err)
			fails++;
		else
			mnotify_close(h);
	}
	tap_ok(fails == 0, "mnotify_open() with both groups during an episode: %d of 200 failed",
	       fails);
	kill(hog, SIGUSR1);
	stop_hog(hog, hogfd);
	nl_socket_free(s);
}

/* mnotify-listen --chardev: one wake-up of /dev/mem_notify, then exit 0 */
static void test_listen_chardev(void)
{
	char *argv[] = { LISTEN, "--chardev", "-t", "-n", "1", "-w", "120", NULL };
	char line[256] = "", line2[256] = "";
	int out, hogfd, st, rc = -1;
	long long t0;
	pid_t l, hog;

	l = spawn_out(argv, &out, 1);
	if (l < 0 || read_line_timeout(out, line, sizeof(line), 10000) <= 0 ||
	    strcmp(line, "listening...\n")) {
		tap_ok(false, "mnotify-listen --chardev prints listening... (%s)", line);
		if (l > 0)
			kill_reap(l);
		return;
	}
	t0 = now_ms();
	hog = start_hog(&hogfd);
	if (hog < 0)
		tap_bail("spawn hog");
	read_line_timeout(out, line2, sizeof(line2), EPISODE_MS);
	if (wait_pid_timeout(l, &st, 10000) == 0 && WIFEXITED(st))
		rc = WEXITSTATUS(st);
	else
		kill_reap(l);
	/* the report read from the device: "chardev level L event N" */
	tap_ok(strstr(line2, ": chardev level ") && strstr(line2, " event ") && rc == 0,
	       "mnotify-listen --chardev -t -n 1: '%s' %lld ms after the hog started, exit %d",
	       line2, now_ms() - t0, rc);
	kill(hog, SIGUSR1);
	stop_hog(hog, hogfd);
	close(out);
}

/* ------------------------------------------------------------- OOM */

static void test_oom_events(void)
{
	/* no -n: OOM candidate events (patch 17) may come between the kills */
	char *listen_argv[] = { LISTEN, "-j", "-g", "oom", "-w", "200", NULL };
	char *set_argv[] = { CTL, "set", "oom_victim", "mnv-victim", NULL };
	char *clear_argv[] = { CTL, "clear", "oom_victim", NULL };
	long long total = meminfo_kb("MemTotal") / 1024, kills0, kills1;
	char line[512], big_mb[24], out[256], comm[32], type[16];
	char *small_argv[] = { GUEST_HOG, "-m", "8", "-n", "mnv-victim", "-H", "-a", "0", NULL };
	char *big_argv[] = { GUEST_HOG, "-m", big_mb, "-n", "mnv-big", "-a", "0", NULL };
	long long pid1 = -1, pid2 = -1, m1 = -1, m2 = -1;
	char r1[16] = "", r2[16] = "";
	int lfd, rdy, st, n = 0, other = 0;
	pid_t l, small, big;

	tap_ok(run(set_argv, out, sizeof(out)) == 0, "mnotify-ctl set oom_victim mnv-victim");
	l = spawn_out(listen_argv, &lfd, 0);
	if (l < 0 || read_line_timeout(lfd, line, sizeof(line), 10000) <= 0 ||
	    !strstr(line, "listening")) {
		tap_ok(false, "mnotify-listen -g oom started as root");
		return;
	}
	kills0 = vmstat_get("oom_kill");
	small = spawn(small_argv, &rdy);
	if (small < 0 || read_line_timeout(rdy, line, sizeof(line), 30000) <= 0)
		tap_bail("small hog");
	snprintf(big_mb, sizeof(big_mb), "%lld", total * 2);
	big = spawn(big_argv, NULL);
	if (big < 0)
		tap_bail("big hog");

	while (n < 2 && read_line_timeout(lfd, line, sizeof(line), 180000) > 0) {
		if (!json_str(line, "type", type, sizeof(type)) || strcmp(type, "oom")) {
			other++;
			continue;
		}
		n++;
		if (n == 1) {
			pid1 = json_ll(line, "pid");
			m1 = json_ll(line, "matched");
			json_str(line, "comm", comm, sizeof(comm));
			json_str(line, "reason", r1, sizeof(r1));
		} else {
			pid2 = json_ll(line, "pid");
			m2 = json_ll(line, "matched");
			json_str(line, "reason", r2, sizeof(r2));
		}
		tap_diag("%s", line);
	}
	tap_ok(n == 2, "two oom events (%d, plus %d other lines)", n, other);
	tap_ok(pid1 == small && m1 == 1 && !strcmp(comm, "mnv-victim"),
	       "first oom event: pid %lld is the task named like oom_victim (%d), matched %lld, comm %s",
	       pid1, small, m1, comm);
	tap_ok(pid2 == big && m2 == 0,
	       "second oom event: the fallback victim (pid %lld, big hog %d), matched %lld",
	       pid2, big, m2);
	tap_ok(!strcmp(r1, "name") && !strcmp(r2, "badness"),
	       "the events say why: reason name, then badness (%s, %s)", r1, r2);
	tap_ok(wait_pid_timeout(small, &st, 30000) == 0 && WIFSIGNALED(st) &&
	       WTERMSIG(st) == SIGKILL, "the task the first event names died of SIGKILL");
	tap_ok(wait_pid_timeout(big, &st, 60000) == 0 && WIFSIGNALED(st) &&
	       WTERMSIG(st) == SIGKILL, "the task the second event names died of SIGKILL");
	kills1 = vmstat_get("oom_kill");
	tap_ok(kills1 - kills0 == n, "one oom event per OOM kill (oom_kill +%lld, events %d)",
	       kills1 - kills0, n);
	kill(l, SIGTERM);
	tap_ok(wait_pid_timeout(l, &st, 10000) == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "mnotify-listen exits 0 on SIGTERM");
	close(lfd);
	close(rdy);
	run(clear_argv, out, sizeof(out));
}

/* ------------------------------------------- oom_victim both ways */

static void test_oom_victim_views(void)
{
	char *set_argv[] = { CTL, "set", "oom_victim", "cache-worker", NULL };
	char *get_argv[] = { CTL, "get", "oom_victim", NULL };
	char *getj_argv[] = { CTL, "-j", "get", "oom_victim", NULL };
	char *clear_argv[] = { CTL, "clear", "oom_victim", NULL };
	char *long_argv[] = { CTL, "set", "oom_victim", "a-name-of-16-chr", NULL };
	char out[512], val[64];
	int rc;

	rc = run(set_argv, out, sizeof(out));
	tap_ok(rc == 0 && sysctl_value(val, sizeof(val)) && !strcmp(val, "cache-worker\n"),
	       "mnotify-ctl set -> sysctl reads 'cache-worker' (rc %d)", rc);
	write_file(SYSCTL, "from-sysctl\n");
	rc = run(get_argv, out, sizeof(out));
	tap_ok(rc == 0 && !strcmp(out, "from-sysctl\n"), "sysctl write -> mnotify-ctl get prints it (%s)", out);
	rc = run(getj_argv, out, sizeof(out));
	tap_ok(rc == 0 && !strcmp(out, "{\"oom_victim\":\"from-sysctl\"}\n"), "mnotify-ctl -j get: %s", out);
	rc = run(long_argv, out, sizeof(out));
	tap_ok(rc == 2 && strstr(out, "longer than 15 bytes") &&
	       sysctl_value(val, sizeof(val)) && !strcmp(val, "from-sysctl\n"),
	       "16-byte name: usage error (exit 2) before asking the kernel, value unchanged: %s", out);
	rc = run(clear_argv, out, sizeof(out));
	tap_ok(rc == 0 && sysctl_value(val, sizeof(val)) && !strcmp(val, "\n"),
	       "mnotify-ctl clear -> sysctl empty");
}

static void test_cli_exit_codes(void)
{
	char *t_argv[] = { LISTEN, "-n", "1", "-w", "0.5", NULL };
	char *u_argv[] = { LISTEN, "-g", "bogus", NULL };
	char *c_argv[] = { CTL, "set", "oom_victim", NULL };
	char *h_argv[] = { CTL, "--help", NULL };
	char out[2048];
	int rc;

	rc = run(t_argv, out, sizeof(out));
	tap_ok(rc == 3 && !strcmp(out, "listening...\n"),
	       "mnotify-listen -n 1 -w 0.5 without pressure: exit 3 (%d)", rc);
	rc = run(u_argv, out, sizeof(out));
	tap_ok(rc == 2 && strstr(out, "unknown group 'bogus'"), "mnotify-listen -g bogus: exit 2, %s", out);
	rc = run(c_argv, out, sizeof(out));
	tap_ok(rc == 2 && strstr(out, "expected: set oom_victim NAME"), "mnotify-ctl set without NAME: exit 2, %s", out);
	rc = run(h_argv, out, sizeof(out));
	tap_ok(rc == 0 && strstr(out, "Usage: mnotify-ctl"), "mnotify-ctl --help: exit 0");
}

/* ------------------------------------------------------- privileges */

static void test_privileges(void)
{
	char *set_argv[] = { CTL, "set", "oom_victim", "evil", NULL };
	char *listen_argv[] = { LISTEN, "-g", "oom", "-w", "1", NULL };
	char out[512], val[64], res[256];
	int p[2], st, rc;
	pid_t c;

	write_file(SYSCTL, "keep");
	if (pipe(p) < 0)
		tap_bail("pipe");
	c = fork();
	if (c == 0) {
		struct mnotify *h = NULL;
		char name[MNOTIFY_COMM_MAX];
		int r_oom, r_pr, r_set, r_get, r_sys, r_dev, r_stats;

		close(p[0]);
		if (become_nobody())
			_exit(99);
		r_oom = mnotify_open(&h, MNOTIFY_GROUP_OOM);
		if (!r_oom)
			mnotify_close(h);
		r_pr = mnotify_open(&h, MNOTIFY_GROUP_PRESSURE);
		r_set = r_pr ? 1 : mnotify_set_oom_victim(h, "evil");
		dprintf(p[1], "%d %d %d [%s] ", r_oom, r_pr, r_set, r_pr ? "" : mnotify_ext_ack(h));
		r_get = r_pr ? 1 : mnotify_get_oom_victim(h, name);
		{
			struct mnotify_stats ms;

			r_stats = r_pr ? 1 : mnotify_get_stats(h, &ms, sizeof(ms));
			if (!r_stats && (ms.pressure_subscribers != MNOTIFY_UNKNOWN ||
					 ms.oom_subscribers != MNOTIFY_UNKNOWN))
				r_stats = 2;
		}
		r_sys = write_file(SYSCTL, "evil");
		r_sys = r_sys ? errno : 0;
		r_dev = open("/dev/mem_notify", O_RDONLY);
		dprintf(p[1], "%d %s %d %d %d\n", r_get, r_get ? "" : name, r_sys, r_dev >= 0,
			r_stats);
		if (!r_pr)
			mnotify_close(h);
		_exit(0);
	}
	close(p[1]);
	rc = read_line_timeout(p[0], res, sizeof(res), 30000);
	close(p[0]);
	wait_pid_timeout(c, &st, 10000);
	tap_diag("nobody: %s", res);
	{
		int r_oom = 1, r_pr = 1, r_set = 1, r_get = 1, r_sys = -1, r_dev = 0, r_stats = 1;
		char ack[128] = "", name[32] = "";

		if (rc > 0)
			sscanf(res, "%d %d %d [%127[^]]] %d %31s %d %d %d", &r_oom, &r_pr, &r_set, ack,
			       &r_get, name, &r_sys, &r_dev, &r_stats);
		tap_ok(r_dev == 1, "nobody: opening /dev/mem_notify works");
		tap_ok(r_oom == -EPERM, "nobody: joining group oom fails with EPERM (%d)", r_oom);
		tap_ok(r_pr == 0, "nobody: joining group pressure works (%d)", r_pr);
		tap_ok(r_set == -EPERM && strstr(ack, "CAP_SYS_ADMIN"),
		       "nobody: set oom_victim over netlink: EPERM, message '%s'", ack);
		tap_ok(r_get == 0 && !strcmp(name, "keep"), "nobody: get oom_victim works (%s)", name);
		tap_ok(r_sys == EACCES, "nobody: opening the sysctl to write fails (%s)",
		       strerror(r_sys));
		tap_ok(r_stats == 0, "nobody: stats work, subscriber counts unknown (%d)", r_stats);
	}
	tap_ok(sysctl_value(val, sizeof(val)) && !strcmp(val, "keep\n"), "oom_victim unchanged: %s", val);

	/* the CLI as nobody: one line, exit 1 */
	rc = run_as_nobody(set_argv, out, sizeof(out));
	tap_ok(rc == 1 && !strcmp(out, "mnotify-ctl: set oom_victim: Operation not permitted (setting oom_victim needs CAP_SYS_ADMIN)\n"),
	       "nobody: mnotify-ctl set prints one line with the kernel's reason, exit %d: %s", rc, out);
	rc = run_as_nobody(listen_argv, out, sizeof(out));
	tap_ok(rc == 1 && strstr(out, "Operation not permitted"),
	       "nobody: mnotify-listen -g oom exits 1 with EPERM: %s", out);
	write_file(SYSCTL, "");
}

/* ------------------------------------------------ zone dump, stats */

static void test_zones_stats(void)
{
	struct mnotify_zone z[16];
	struct zone_state zs[MAX_ZONES];
	struct mnotify_stats st, st2;
	struct mnotify *h, *subs[3];
	int n, nz, i, j, match = 0, ok = 1, err;
	long long w;
	uint64_t seq = 0;
	char *zones_argv[] = { CTL, "zones", NULL };
	char out[1024];

	if (mnotify_open(&h, 0)) {
		tap_ok(false, "open a command handle");
		return;
	}
	n = mnotify_get_zones(h, z, 16, sizeof(z[0]), &seq);
	nz = zoneinfo_read(zs, MAX_ZONES);
	/* n is the kernel's count: only the first 16 were filled */
	for (i = 0; i < n && i < 16; i++) {
		for (j = 0; j < nz; j++) {
			if ((int)z[i].node != zs[j].node || strcmp(z[i].name, zs[j].name))
				continue;
			match++;
			if (z[i].status != zs[j].mem_notify || (long long)z[i].high_wmark != zs[j].high ||
			    z[i].threshold < 2 * z[i].high_wmark ||
			    llabs((long long)z[i].free_pages - zs[j].free) > 2048) {
				tap_diag("zone %s: dump status %d high %llu free %llu; zoneinfo %d %lld %lld",
					 z[i].name, z[i].status, (unsigned long long)z[i].high_wmark,
					 (unsigned long long)z[i].free_pages, zs[j].mem_notify,
					 zs[j].high, zs[j].free);
				ok = 0;
			}
		}
	}
	for (j = 0, nz = 0; j < MAX_ZONES && j < zoneinfo_read(zs, MAX_ZONES); j++)
		if (zs[j].mem_notify != -2)
			nz++;
	tap_ok(n > 0 && match == n && n == nz,
	       "zone dump: %d zones, each found in /proc/zoneinfo (%d populated there)", n, nz);
	tap_ok(ok, "zone dump: status and high watermark equal to zoneinfo, free pages close, threshold >= 2*high");
	tap_ok(run(zones_argv, out, sizeof(out)) == 0 && strstr(out, "DMA32"),
	       "mnotify-ctl zones lists DMA32");

	err = mnotify_get_stats(h, &st, sizeof(st));
	w = read_ll("/sys/kernel/mm/mem_notify/watchers");
	tap_ok(!err && (long long)st.watchers == w && st.fasync_watchers ==
	       (uint32_t)read_ll("/sys/kernel/mm/mem_notify/fasync_watchers") &&
	       (long long)st.events == read_ll("/sys/kernel/mm/mem_notify/events"),
	       "stats: watchers %u, fasync %u, events %llu equal sysfs", st.watchers,
	       st.fasync_watchers, (unsigned long long)st.events);
	for (i = 0; i < 3; i++)
		if (mnotify_open(&subs[i], MNOTIFY_GROUP_PRESSURE | MNOTIFY_GROUP_OOM))
			tap_bail("open subscriber");
	mnotify_get_stats(h, &st2, sizeof(st2));
	tap_ok(st2.pressure_subscribers == st.pressure_subscribers + 3 &&
	       st2.oom_subscribers == st.oom_subscribers + 3,
	       "stats: 3 more subscribers in each group (%u -> %u, %u -> %u)",
	       st.pressure_subscribers, st2.pressure_subscribers, st.oom_subscribers,
	       st2.oom_subscribers);
	for (i = 0; i < 3; i++)
		mnotify_close(subs[i]);
	mnotify_get_stats(h, &st2, sizeof(st2));
	tap_ok(st2.pressure_subscribers == st.pressure_subscribers &&
	       st2.oom_subscribers == st.oom_subscribers,
	       "stats: back to %u/%u after they close", st2.pressure_subscribers,
	       st2.oom_subscribers);
	tap_ok(st2.lost == 0, "stats: no netlink event lost so far (sent %llu, overrun %llu)",
	       (unsigned long long)st2.sent, (unsigned long long)st2.overrun);
	mnotify_close(h);
}

/* ------------------------------------------------ raw bad requests */

struct raw {
	int fd;
	int family;
	unsigned int seq;
};

static int raw_request(struct raw *r, uint8_t cmd, uint16_t flags, uint8_t reserved,
		       const void *attrs, size_t alen, char *msg, size_t msglen)
{
	union {
		struct nlmsghdr h;
		char b[8192];
	} u;
	struct genlmsghdr *g;
	ssize_t n;
	int rem;

	memset(&u, 0, sizeof(u));
	u.h.nlmsg_len = (uint32_t)(NLMSG_HDRLEN + GENL_HDRLEN + alen);
	u.h.nlmsg_type = (uint16_t)r->family;
	u.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	u.h.nlmsg_seq = ++r->seq;
	g = NLMSG_DATA(&u.h);
	g->cmd = cmd;
	g->version = 1;
	g->reserved = reserved;
	memcpy(u.b + NLMSG_HDRLEN + GENL_HDRLEN, attrs, alen);
	if (send(r->fd, &u, u.h.nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		struct pollfd p = { .fd = r->fd, .events = POLLIN };
		struct nlmsghdr *h;

		if (poll(&p, 1, 5000) <= 0)
			return -ETIMEDOUT;
		n = recv(r->fd, u.b, sizeof(u.b), 0);
		if (n < 0)
			return -errno;
		rem = (int)n;
		for (h = &u.h; NLMSG_OK(h, rem); h = NLMSG_NEXT(h, rem)) {
			int error;

			if (h->nlmsg_seq != r->seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR) {
				if (mnotify__parse_ack(h, h->nlmsg_len, &error, msg, msglen))
					return -EBADMSG;
				return error;
			}
		}
	}
}

static size_t put_attr(char *buf, uint16_t type, const void *data, size_t n)
{
	struct nlattr a = { .nla_len = (uint16_t)(NLA_HDRLEN + n), .nla_type = type };

	memcpy(buf, &a, sizeof(a));
	memcpy(buf + NLA_HDRLEN, data, n);
	return NLA_ALIGN(NLA_HDRLEN + n);
}

static void test_bad_input(void)
{
	struct raw r = { 0 };
	struct nl_sock *s;
	char a[256], msg[256], val[64];
	size_t n;
	int one = 1, e;

	s = nl_socket_alloc();
	if (!s || genl_connect(s) || (r.family = genl_ctrl_resolve(s, MEM_NOTIFY_GENL_NAME)) < 0) {
		tap_ok(false, "resolve family mem_notify");
		return;
	}
	nl_socket_free(s);
	r.fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	setsockopt(r.fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(r.fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	write_file(SYSCTL, "unchanged");

#define EXPECT(err, text, what) \
	tap_ok(e == (err) && strstr(msg, text), "%s: %s (%d), message '%s'", what, strerror(-(err)), e, msg)

	e = raw_request(&r, MEM_NOTIFY_CMD_SET_OOM_VICTIM, 0, 0, NULL, 0, msg, sizeof(msg));
	EXPECT(-EINVAL, "missing attribute", "set without OOM_VICTIM");
	/* NLA_NUL_STRING of at most 15 bytes: the policy checks both */
	n = put_attr(a, MEM_NOTIFY_A_OOM_VICTIM, "0123456789abcdef", 17);
	e = raw_request(&r, MEM_NOTIFY_CMD_SET_OOM_VICTIM, 0, 0, a, n, msg, sizeof(msg));
	EXPECT(-EINVAL, "policy", "set with 16 bytes");
	n = put_attr(a, MEM_NOTIFY_A_OOM_VICTIM, "abc", 3);
	e = raw_request(&r, MEM_NOTIFY_CMD_SET_OOM_VICTIM, 0, 0, a, n, msg, sizeof(msg));
	EXPECT(-EINVAL, "policy", "set with a string that has no NUL");
	n = put_attr(a, MEM_NOTIFY_A_OOM_VICTIM | NLA_F_NESTED, "x", 2);
	e = raw_request(&r, MEM_NOTIFY_CMD_SET_OOM_VICTIM, 0, 0, a, n, msg, sizeof(msg));
	EXPECT(-EINVAL, "NLA_F_NESTED", "set with a nested-flagged string (wrong type)");
	n = put_attr(a, 200, "x", 2);
	e = raw_request(&r, MEM_NOTIFY_CMD_SET_OOM_VICTIM, 0, 0, a, n, msg, sizeof(msg));
	EXPECT(-EINVAL, "Unknown attribute type", "set with attribute type 200");
	n = put_attr(a, MEM_NOTIFY_A_PID, "\1\0\0\0", 4);
	e = raw_request(&r, MEM_NOTIFY_CMD_SET_OOM_VICTIM, 0, 0, a, n, msg, sizeof(msg));
	EXPECT(-EINVAL, "attribute", "set with an attribute of another command (PID)");
	n = put_attr(a, MEM_NOTIFY_A_SEQ, "\1\0\0\0\0\0\0\0", 8);
	e = raw_request(&r, MEM_NOTIFY_CMD_GET_STATS, 0, 0, a, n, msg, sizeof(msg));
	EXPECT(-EINVAL, "ttribute", "get stats with an attribute");
	e = raw_request(&r, MEM_NOTIFY_CMD_GET_OOM_VICTIM, 0, 0, a, n, msg, sizeof(msg));
	EXPECT(-EINVAL, "ttribute", "get oom_victim with an attribute");
	e = raw_request(&r, MEM_NOTIFY_CMD_GET_ZONES, NLM_F_DUMP, 0, a, n, msg, sizeof(msg));
	EXPECT(-EINVAL, "ttribute", "zone dump with an attribute");
	e = raw_request(&r, MEM_NOTIFY_CMD_GET_ZONES, 0, 0, NULL, 0, msg, sizeof(msg));
	EXPECT(-EOPNOTSUPP, "only dump", "zones without NLM_F_DUMP");
	e = raw_request(&r, MEM_NOTIFY_CMD_GET_STATS, NLM_F_DUMP, 0, NULL, 0, msg, sizeof(msg));
	EXPECT(-EOPNOTSUPP, "not support dump", "stats as a dump");
	e = raw_request(&r, 99, 0, 0, NULL, 0, msg, sizeof(msg));
	EXPECT(-EOPNOTSUPP, "Unknown command", "command 99");
	e = raw_request(&r, MEM_NOTIFY_CMD_PRESSURE_ENTER, 0, 0, NULL, 0, msg, sizeof(msg));
	EXPECT(-EOPNOTSUPP, "Unknown command", "an event command as a request");
	e = raw_request(&r, MEM_NOTIFY_CMD_GET_STATS, 0, 1, NULL, 0, msg, sizeof(msg));
	EXPECT(-EINVAL, "reserved", "reserved header byte set");
	e = raw_request(&r, MEM_NOTIFY_CMD_GET_STATS, NLM_F_REPLACE, 0, NULL, 0, msg, sizeof(msg));
	EXPECT(-EINVAL, "nlmsg_flags", "a modifier flag on a get");
	tap_ok(sysctl_value(val, sizeof(val)) && !strcmp(val, "unchanged\n"),
	       "after all bad requests oom_victim is unchanged (%s)", val);
	/* a C string: it ends at its first NUL */
	n = put_attr(a, MEM_NOTIFY_A_OOM_VICTIM, "ab\0cd", 6);
	e = raw_request(&r, MEM_NOTIFY_CMD_SET_OOM_VICTIM, 0, 0, a, n, msg, sizeof(msg));
	tap_ok(e == 0 && sysctl_value(val, sizeof(val)) && !strcmp(val, "ab\n"),
	       "set with a NUL inside takes the string up to it (%d, %s)", e, val);
	n = put_attr(a, MEM_NOTIFY_A_OOM_VICTIM, "", 1);
	e = raw_request(&r, MEM_NOTIFY_CMD_SET_OOM_VICTIM, 0, 0, a, n, msg, sizeof(msg));
	tap_ok(e == 0 && sysctl_value(val, sizeof(val)) && !strcmp(val, "\n"),
	       "set with an empty string clears it (%d)", e);
	close(r.fd);
#undef EXPECT
}

int main(void)
{
	struct mnotify *h;
	int err;

	protect_self();
	err = mnotify_open(&h, 0);
	if (err == -ENOENT) {
		feature_missing("MEM_NOTIFY_NETLINK", "generic netlink family mem_notify");
		return tap_done();
	}
	tap_ok(err == 0, "libmnotify-nl opens the family (%d)", err);
	if (!err)
		mnotify_close(h);

	test_bad_input();
	test_oom_victim_views();
	test_cli_exit_codes();
	test_privileges();
	test_zones_stats();
	test_listen_pressure();
	test_both_deliveries();
	test_event_before_lookup();
	test_listen_chardev();
	test_oom_events();
	return tap_done();
}
