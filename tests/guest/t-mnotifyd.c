// SPDX-License-Identifier: GPL-2.0
/*
 * t-mnotifyd: the whole path to an unmodified GLib application.  A
 * dbus-daemon with the system bus's default policy and mnotifyd's, the
 * real mnotifyd on this kernel's mem_notify family, and gmm-client (stock
 * GMemoryMonitor code) running as nobody.  A ramp of anonymous memory
 * must reach the client as LowMemoryWarning 50 before any OOM kill, then
 * 100 and 255 in that order; when the memory is given back, mnotifyd says
 * none (org.mnotify.Pressure1.LevelChanged).  gdbus introspect shows
 * low-memory-monitor 2.1's interface unchanged.  Session levels: a second
 * client, as nobody in a cgroup with memory.max 48M, calls WatchSession;
 * a ramp in that cgroup reaches it as SessionLevelChanged 50, 100, 255
 * before the cgroup's OOM kill and none afterwards, while the system's
 * level stays none and the first client hears nothing of it; when the
 * client leaves, mnotifyd's kernel watch goes.  mnotifyd outlives the
 * pressure and stops with status 0 on SIGTERM.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guestlib.h"

#define DBUS_DAEMON	"/usr/bin/dbus-daemon"
#define MNOTIFYD	"/usr/libexec/mnotifyd"
#define CLIENT		GUEST_TESTDIR "/gmm-client"
#define GDBUS		"/usr/bin/gdbus"
#define POLICY		"/usr/share/dbus-1/system.d/mnotifyd.conf"
#define CTL		"/usr/bin/mnotify-ctl"
#define DIR		"/tmp/t-mnotifyd"

static const char bus_conf[] =
"<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN\"\n"
" \"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\">\n"
"<busconfig>\n"
"  <type>system</type>\n"
"  <listen>unix:path=" DIR "/bus</listen>\n"
"  <auth>EXTERNAL</auth>\n"
"  <policy context=\"default\">\n"
"    <allow user=\"*\"/>\n"
"    <deny own=\"*\"/>\n"
"    <deny send_type=\"method_call\"/>\n"
"    <allow send_type=\"signal\"/>\n"
"    <allow send_requested_reply=\"true\" send_type=\"method_return\"/>\n"
"    <allow send_requested_reply=\"true\" send_type=\"error\"/>\n"
"    <allow receive_type=\"method_call\"/>\n"
"    <allow receive_type=\"method_return\"/>\n"
"    <allow receive_type=\"error\"/>\n"
"    <allow receive_type=\"signal\"/>\n"
"    <allow send_destination=\"org.freedesktop.DBus\" send_interface=\"org.freedesktop.DBus\"/>\n"
"  </policy>\n"
"  <include>" POLICY "</include>\n"
"</busconfig>\n";

/* argv as nobody (in cgroup @cg unless NULL), stdout and stderr on a pipe in *out */
static pid_t spawn_nobody_in(const char *cg, char *const argv[], int *out)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		char f[600];

		dup2(p[1], 1);
		dup2(p[1], 2);
		snprintf(f, sizeof(f), "%s/cgroup.procs", cg ? cg : "");
		if ((cg && write_file(f, "0")) || become_nobody())
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	*out = p[0];
	return pid;
}

struct client {
	int fd;
	int warnings[32];	/* LowMemoryWarning bytes, in order */
	int nw;
	int high;		/* highest warning since the level last fell */
	int lc_last;		/* the byte of the last LevelChanged */
	int lower;		/* warnings below @high without a fall between */
	int none_after;		/* "level none" seen after the last warning */
	int max;		/* highest warning */
	long long first_ms;	/* CLOCK_MONOTONIC of the first warning */
	int sess[32];		/* SessionLevelChanged bytes, in order */
	int ns;
	char last[640];
};

/* read client lines until one starts with @want (or any warning if NULL) */
static bool client_wait(struct client *c, const char *want, int timeout_ms)
{
	long long end = now_ms() + timeout_ms;
	char line[640];

	while (now_ms() < end) {
		int n = read_line_timeout(c->fd, line, sizeof(line), (int)(end - now_ms()));
		int w;
		long long ms;

		if (n <= 0)
			return false;
		line[strcspn(line, "\n")] = '\0';
		snprintf(c->last, sizeof(c->last), "%s", line);
		if (sscanf(line, "warning %d %lld", &w, &ms) == 2) {
			if (c->nw < 32)
				c->warnings[c->nw] = w;
			if (!c->nw++)
				c->first_ms = ms;
			if (w < c->high)
				c->lower++;
			if (w > c->high)
				c->high = w;
			if (w > c->max)
				c->max = w;
			c->none_after = 0;
		} else if (sscanf(line, "level %*s %d", &w) == 1) {
			/* the level fell: lower warnings (repeats) are right again */
			if (w < c->lc_last)
				c->high = w;
			c->lc_last = w;
			if (!strncmp(line, "level none", 10))
				c->none_after = 1;
		} else if (sscanf(line, "session %*s %*s %d", &w) == 1) {
			if (c->ns < 32)
				c->sess[c->ns] = w;
			c->ns++;
		} else if (strncmp(line, "level ", 6) && strncmp(line, "owner ", 6) &&
			   strncmp(line, "watch ", 6) && strcmp(line, "ready")) {
			tap_diag("gmm-client: %s", line);
		}
		if (want ? !strncmp(line, want, strlen(want)) : !strncmp(line, "warning ", 8))
			return true;
	}
	return false;
}

static void drain(const char *who, int fd)
{
	char line[256];

	while (read_line_timeout(fd, line, sizeof(line), 0) > 0)
		tap_diag("%s: %s", who, strtok(line, "\n") ? line : "");
}

/* "session CGROUP LEVEL ..." lines of @c's as "50,100" */
static const char *session_seq(const struct client *c)
{
	static char seq[160];

	seq[0] = '\0';
	for (int i = 0; i < c->ns && i < 32; i++)
		snprintf(seq + strlen(seq), sizeof(seq) - strlen(seq), "%s%d", i ? "," : "",
			 c->sess[i]);
	return seq;
}

/* the oom_kill count in @cg's memory.events */
static long long cg_oom_kills(const char *cg)
{
	char f[600], *t, *p;
	long long n = -1;

	snprintf(f, sizeof(f), "%s/memory.events", cg);
	t = read_file(f);
	p = t ? strstr(t, "oom_kill ") : NULL;
	if (p)
		n = atoll(p + 9);
	free(t);
	return n;
}

/*
 * A client that calls WatchSession hears its own cgroup's level (here the
 * limit of that cgroup binds) and nobody else does; the system's level
 * is not touched; the kernel watch ends with the client.
 */
static void session_levels(struct client *c, int factor)
{
	char *s_argv[] = { CLIENT, "--session", NULL };
	const char *cg = cg_make_limited("mnd-session", "48M");
	struct client sc = { .fd = -1 };
	char want[700], cmd[800], out[4096];
	const char *rel;
	int c_ns = c->ns, c_nw = c->nw, st, lower = 0, i;
	long long oom_at_first;
	bool node_room;
	pid_t scl, hog;

	if (!cg)
		tap_bail("make the session's cgroup");
	rel = strncmp(cg, "/sys/fs/cgroup/", 15) ? cg : cg + 14;
	scl = spawn_nobody_in(cg, s_argv, &sc.fd);
	if (scl < 0)
		tap_bail("spawn gmm-client --session");
	snprintf(want, sizeof(want), "watch %s none 0", rel);
	tap_ok(client_wait(&sc, "watch", 20000 * factor) && !strcmp(sc.last, want),
	       "WatchSession, as nobody in a cgroup with memory.max 48M: that cgroup, none (%s)",
	       sc.last);

	/* does the node have room for the cgroup's 48 MB above low's exit? */
	{
		long long hr, th;
		char name[16];

		if (node_level(name, &hr, &th))
			tap_bail("read /sys/kernel/mm/mem_notify/levels");
		node_room = hr - 48 * 256 > th + th / 4 + th / 8;
		tap_diag("node headroom %lld pages, low threshold %lld: %s", hr, th,
			 node_room ? "room for 48 MB" : "no room for 48 MB above low");
	}

	/* a ramp in the cgroup, past its limit */
	snprintf(cmd, sizeof(cmd), "echo $$ > %s/cgroup.procs && exec " GUEST_HOG
		 " -m 96 -r 8 -a 0 -n mnd-sess-hog", cg);
	{
		char *argv[] = { "/bin/sh", "-c", cmd, NULL };

		hog = spawn(argv, NULL);
		if (hog < 0)
			tap_bail("spawn the cgroup's hog");
	}
	client_wait(&sc, "session ", 120000 * factor);
	oom_at_first = cg_oom_kills(cg);
	tap_ok(sc.ns >= 1 && sc.sess[0] == 50 && oom_at_first == 0,
	       "the ramp in its cgroup: SessionLevelChanged 50 first, before the cgroup's OOM kill (%s; oom_kill %lld)",
	       sc.last, oom_at_first);
	/* on to 255, or until the level falls (a kill came first) */
	while (sc.ns && sc.sess[sc.ns < 32 ? sc.ns - 1 : 31] % 255 &&
	       client_wait(&sc, "session ", 60000 * factor))
		;
	for (i = 1; i < sc.ns && i < 32; i++)
		if (sc.sess[i] && sc.sess[i] < sc.sess[i - 1])
			lower++;
	tap_ok(sc.ns >= 3 && sc.sess[sc.ns < 32 ? sc.ns - 1 : 31] == 255 && !lower,
	       "then 100 and 255 in order (%s)", session_seq(&sc));
	if (wait_pid_timeout(hog, &st, 120000 * factor) < 0)
		kill_reap(hog);
	snprintf(want, sizeof(want), "session %s none 0 ", rel);
	tap_ok(!strncmp(sc.last, want, strlen(want)) || client_wait(&sc, want, 30000 * factor),
	       "the hog gone (memcg OOM kills %lld): SessionLevelChanged none (%s)",
	       cg_oom_kills(cg), sc.last);
	/*
	 * The other client: no session signal; and where the node had room
	 * for the cgroup's 48 MB above low's exit, no warning either (the
	 * debug kernel's guest starts about 10 MB above low's threshold, so
	 * there the node may be low as well and say so).
	 */
	client_wait(c, "nothing", 500);
	tap_ok(c->ns == c_ns && (!node_room || c->nw == c_nw),
	       "the other client heard no SessionLevelChanged%s (%d; warnings %d)",
	       node_room ? " and no LowMemoryWarning: the system stayed none" :
	       " (the node had no room for 48 MB above low: its warnings are its own)",
	       c->ns - c_ns, c->nw - c_nw);

	/* the client leaves: mnotifyd's kernel watch of the cgroup goes */
	{
		char *argv[] = { CTL, "cgroups", NULL };

		out[0] = '\0';
		run(argv, out, sizeof(out));
		tap_ok(strstr(out, rel) != NULL, "while it watches, mnotify-ctl cgroups lists %s (%.200s)",
		       rel, out);
	}
	kill(scl, SIGTERM);
	if (wait_pid_timeout(scl, &st, 10000) < 0)
		kill_reap(scl);
	{
		char *argv[] = { CTL, "cgroups", NULL };
		long long end = now_ms() + 10000 * factor;
		bool gone = false;

		while (!gone && now_ms() < end) {
			out[0] = '\0';
			run(argv, out, sizeof(out));
			gone = !strstr(out, rel);
			if (!gone)
				usleep(100000);
		}
		tap_ok(gone, "the client left: mnotifyd no longer watches %s (mnotify-ctl cgroups: %.200s)",
		       rel, out);
	}
	close(sc.fd);
	rmdir(cg);
}

int main(void)
{
	char addr[256], env[300], mb[24], fast[24];
	char *bus_argv[] = { DBUS_DAEMON, "--config-file=" DIR "/bus.conf", "--nofork",
			     "--print-address=3", NULL };
	char *d_argv[] = { MNOTIFYD, "--address", addr, "--reannounce", "2", NULL };
	char *c_argv[] = { CLIENT, "--ext", NULL };
	int factor = slow_kernel() ? 4 : 1, bus_fd, d_fd, st, i;
	struct client c = { .fd = -1 };
	long long avail, oom0, t0;
	pid_t bus, d, cl, hog;

	if (!kconfig_on("MEM_NOTIFY_NETLINK")) {
		feature_missing("MEM_NOTIFY_NETLINK", "the mem_notify family for mnotifyd");
		return tap_done();
	}
	if (access(DBUS_DAEMON, X_OK) || access(MNOTIFYD, X_OK) || access(CLIENT, X_OK) ||
	    access(POLICY, R_OK))
		tap_bail("the initramfs lacks " DBUS_DAEMON ", " MNOTIFYD ", " CLIENT " or " POLICY);
	protect_self();		/* the bus, the daemon and the client inherit it */
	mkdir(DIR, 0755);
	if (create_file(DIR "/bus.conf", bus_conf))
		tap_bail("write " DIR "/bus.conf");

	bus = spawn(bus_argv, &bus_fd);
	if (bus < 0 || read_line_timeout(bus_fd, addr, sizeof(addr), 20000 * factor) <= 0)
		tap_bail("dbus-daemon did not start");
	addr[strcspn(addr, "\n")] = '\0';
	tap_ok(!strncmp(addr, "unix:", 5), "dbus-daemon runs with mnotifyd's policy: %s", addr);
	snprintf(env, sizeof(env), "%s", addr);
	setenv("DBUS_SYSTEM_BUS_ADDRESS", env, 1);
	setenv("GIO_USE_MEMORY_MONITOR", "dbus", 1);
	setenv("GIO_USE_VFS", "local", 1);

	cl = spawn_nobody_in(NULL, c_argv, &c.fd);
	if (cl < 0 || !client_wait(&c, "ready", 20000 * factor))
		tap_bail("gmm-client did not start (%s)", c.last);
	d = spawn_out(d_argv, &d_fd, 1);
	if (d < 0)
		tap_bail("spawn mnotifyd");
	tap_ok(client_wait(&c, "owner yes", 20000 * factor),
	       "mnotifyd owns org.freedesktop.LowMemoryMonitor (client: %s)", c.last);
	drain("mnotifyd", d_fd);

	/* the interface, as gdbus introspect shows it: low-memory-monitor's */
	{
		static char out[8192];
		char *argv[] = { GDBUS, "introspect", "--system", "--dest",
				 "org.freedesktop.LowMemoryMonitor", "--object-path",
				 "/org/freedesktop/LowMemoryMonitor", NULL };
		int rc = run_as_nobody(argv, out, sizeof(out));
		char *lmm = strstr(out, "interface org.freedesktop.LowMemoryMonitor {");
		char *end = lmm ? strstr(lmm, "};") : NULL;
		char want[] = "interface org.freedesktop.LowMemoryMonitor {\n    methods:\n"
			      "    signals:\n      LowMemoryWarning(y level);\n    properties:\n  };";

		tap_ok(rc == 0 && lmm && end && (size_t)(end + 2 - lmm) == strlen(want) &&
		       !strncmp(lmm, want, strlen(want)) && strstr(out, "interface org.mnotify.Pressure1"),
		       "gdbus introspect (as nobody): org.freedesktop.LowMemoryMonitor is low-memory-monitor 2.1's, org.mnotify.Pressure1 beside it (status %d)",
		       rc);
		if (!lmm || !end)
			tap_diag("gdbus: %.300s", access(GDBUS, X_OK) ? "not in the initramfs" : out);
	}

	/* a ramp of anonymous memory, held at the first warning */
	avail = meminfo_kb("MemAvailable") / 1024;
	snprintf(mb, sizeof(mb), "%lld", avail * 4);
	snprintf(fast, sizeof(fast), "%lld", avail > 80 ? avail - 60 : 8);
	{
		char *argv[] = { GUEST_HOG, "-m", mb, "-F", fast, "-r", "8", "-H", "-n", "mnd-ramp",
				 "-a", "1000", NULL };
		int hogfd;

		oom0 = vmstat_get("oom_kill");
		t0 = now_ms();
		hog = spawn(argv, &hogfd);
		if (hog < 0)
			tap_bail("spawn hog");
		close(hogfd);
	}
	tap_ok(client_wait(&c, NULL, 120000 * factor) && c.warnings[0] == 50 &&
	       vmstat_get("oom_kill") == oom0,
	       "GMemoryMonitor heard LowMemoryWarning 50 first, %lld ms into the ramp, before any OOM kill (%s)",
	       c.first_ms ? c.first_ms - t0 : -1, c.last);
	/* on to critical (or the hog's end) */
	while (c.nw && c.max < 255 && client_wait(&c, "warning", 60000 * factor))
		;
	kill(hog, SIGKILL);
	waitpid(hog, &st, 0);
	{
		char seq[128] = "";
		int saw100 = 0;

		for (i = 0; i < c.nw && i < 32 && strlen(seq) < sizeof(seq) - 8; i++) {
			snprintf(seq + strlen(seq), sizeof(seq) - strlen(seq), "%s%d", i ? "," : "",
				 c.warnings[i]);
			saw100 |= c.warnings[i] == 100;
		}
		tap_ok(c.max == 255 && saw100 && !c.lower,
		       "then 100 and 255; no lower warning unless the level fell first (warnings %s; OOM kills %lld)",
		       seq, vmstat_get("oom_kill") - oom0);
	}
	tap_ok(c.none_after || client_wait(&c, "level none", 60000 * factor),
	       "the memory given back: LevelChanged none (%s)", c.last);
	session_levels(&c, factor);

	/* mnotifyd lived through it and stops cleanly */
	drain("mnotifyd", d_fd);
	kill(d, SIGTERM);
	st = -1;
	i = wait_pid_timeout(d, &st, 20000 * factor);
	tap_ok(i == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "mnotifyd ran through the pressure; SIGTERM: exit 0 (status %#x)", st);
	drain("mnotifyd", d_fd);
	kill(cl, SIGTERM);
	if (wait_pid_timeout(cl, &st, 10000) < 0)
		kill_reap(cl);
	kill(bus, SIGTERM);
	if (wait_pid_timeout(bus, &st, 10000) < 0)
		kill_reap(bus);
	return tap_done();
}
