// SPDX-License-Identifier: GPL-2.0-or-later
/* the warning sources the bench compares, see sources.h */
#define _GNU_SOURCE
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "uapi/linux/mem_notify.h"
#include "bench.h"
#include "sources.h"

const char *const src_name[S_NSRC] = {
	"mnotify_low", "mnotify_medium", "mnotify_critical", "mnotify_chardev",
	"psi_some70", "psi_some100", "psi_full100", "psi_full700", "psi_full50_500",
	"vmpressure_low", "vmpressure_medium", "vmpressure_critical",
	"memavail_10pct", "earlyoom",
	"glib_mnotifyd", "glib_mnotifyd_255", "glib_lmm", "glib_lmm_255",
};

static const char *const psi_trig[S_NSRC] = {
	[S_PSI_SOME70] = "some 70000 1000000",
	[S_PSI_SOME100] = "some 100000 1000000",
	[S_PSI_FULL100] = "full 100000 1000000",
	[S_PSI_FULL700] = "full 700000 1000000",
	[S_PSI_FULL50_500] = "full 50000 500000",
};

#define EARLYOOM "/tests/earlyoom"

pid_t earlyoom_start(bool dryrun, int *out)
{
	int p[2] = { -1, -1 };
	pid_t pid;

	if (access(EARLYOOM, X_OK))
		return -1;
	if (out && pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		/* defaults: SIGTERM at MemAvailable and SwapFree <= 10 % */
		char *argv[] = { EARLYOOM, "-r", "0", dryrun ? "--dryrun" : NULL, NULL };

		write_file("/proc/self/oom_score_adj", "-1000");
		if (out)
			dup2(p[1], 2);
		execv(argv[0], argv);
		_exit(127);
	}
	if (out) {
		close(p[1]);
		*out = p[0];
		fcntl(p[0], F_SETFL, O_NONBLOCK);
	}
	return pid;
}

/* ---- GLib applications on D-Bus ---- */
#define DBUS_DAEMON	"/usr/bin/dbus-daemon"
#define GMM_CLIENT	"/tests/gmm-client"
static const char *const glib_service[2] = { "/usr/libexec/mnotifyd", "/tests/low-memory-monitor" };
static const char *const glib_tag[2] = { "mnotifyd", "lmm" };

static pid_t spawn_env(char *const argv[], const char *bus, int out_fd, int fd3)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (bus)
			setenv("DBUS_SYSTEM_BUS_ADDRESS", bus, 1);
		setenv("GIO_USE_MEMORY_MONITOR", "dbus", 1);
		setenv("GIO_USE_VFS", "local", 1);
		if (out_fd >= 0)
			dup2(out_fd, 1);
		if (fd3 >= 0)
			dup2(fd3, 3);
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/* one line from @fd within @ms into @buf (NUL-terminated), length or -1 */
static int line_within(int fd, char *buf, size_t len, int ms)
{
	size_t n = 0;
	uint64_t end = now_ns() + (uint64_t)ms * 1000000u;

	while (n + 1 < len && now_ns() < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, (int)((end - now_ns()) / 1000000u) + 1) <= 0)
			continue;
		if (read(fd, buf + n, 1) != 1)
			return -1;
		if (buf[n++] == '\n')
			break;
	}
	buf[n] = '\0';
	return n && buf[n - 1] == '\n' ? (int)n : -1;
}

static void stack_stop(struct dbus_stack *st)
{
	pid_t p[3] = { st->client, st->service, st->bus };

	for (int i = 0; i < 3; i++)
		if (p[i] > 0) {
			kill(p[i], SIGTERM);
			reap(p[i]);
		}
	if (st->out >= 0)
		close(st->out);
	memset(st, 0, sizeof(*st));
	st->out = -1;
}

/* bus, service, client; ready once the client sees the name owned */
static int stack_start(struct dbus_stack *st, int k)
{
	char conf[64], addr[160], text[1024], line[128];
	char *bus_argv[] = { DBUS_DAEMON, NULL, "--nofork", "--print-address=3", NULL };
	char *svc_argv[] = { (char *)glib_service[k], NULL };
	char *cli_argv[] = { GMM_CLIENT, "--ext", NULL };
	char confarg[96];
	int p[2], q[2];

	memset(st, 0, sizeof(*st));
	st->out = -1;
	if (access(DBUS_DAEMON, X_OK) || access(GMM_CLIENT, X_OK) || access(glib_service[k], X_OK)) {
		fprintf(stderr, "mnotify-bench: %s: the initramfs lacks " DBUS_DAEMON ", "
			GMM_CLIENT " or %s\n", glib_tag[k], glib_service[k]);
		return -1;
	}
	snprintf(conf, sizeof(conf), "/tmp/bench-bus-%s.conf", glib_tag[k]);
	snprintf(text, sizeof(text),
		 "<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN\"\n"
		 " \"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\">\n"
		 "<busconfig><type>system</type><listen>unix:path=/tmp/bench-bus-%s</listen>"
		 "<auth>EXTERNAL</auth><policy context=\"default\"><allow user=\"*\"/>"
		 "<allow own=\"*\"/><allow send_type=\"method_call\"/>"
		 "<allow send_type=\"signal\"/>"
		 "<allow send_requested_reply=\"true\" send_type=\"method_return\"/>"
		 "<allow send_requested_reply=\"true\" send_type=\"error\"/>"
		 /* a system bus receives nothing that is not allowed */
		 "<allow receive_type=\"method_call\"/><allow receive_type=\"method_return\"/>"
		 "<allow receive_type=\"error\"/><allow receive_type=\"signal\"/>"
		 "</policy></busconfig>\n",
		 glib_tag[k]);
	if (create_file(conf, text)) {
		fprintf(stderr, "mnotify-bench: %s: cannot write %s\n", glib_tag[k], conf);
		return -1;
	}
	snprintf(confarg, sizeof(confarg), "--config-file=%s", conf);
	bus_argv[1] = confarg;
	if (pipe2(p, O_CLOEXEC))
		return -1;
	st->bus = spawn_env(bus_argv, NULL, -1, p[1]);
	close(p[1]);
	if (line_within(p[0], addr, sizeof(addr), 10000) < 0) {
		fprintf(stderr, "mnotify-bench: %s: dbus-daemon gave no address\n", glib_tag[k]);
		close(p[0]);
		stack_stop(st);
		return -1;
	}
	close(p[0]);
	addr[strcspn(addr, "\n")] = '\0';
	if (pipe2(q, O_CLOEXEC)) {
		stack_stop(st);
		return -1;
	}
	st->client = spawn_env(cli_argv, addr, q[1], -1);
	close(q[1]);
	st->out = q[0];
	st->service = spawn_env(svc_argv, addr, -1, -1);
	while (line_within(st->out, line, sizeof(line), 20000) > 0)
		if (!strncmp(line, "owner yes", 9)) {
			fcntl(st->out, F_SETFL, O_NONBLOCK);
			return 0;
		}
	fprintf(stderr, "mnotify-bench: %s did not take the bus name\n", glib_tag[k]);
	stack_stop(st);
	return -1;
}

static void fired(struct sources *s, int id, uint64_t at);

/* "warning LEVEL MS" from the client: MS is its CLOCK_MONOTONIC */
static void stack_lines(struct sources *s, int k)
{
	struct dbus_stack *st = &s->glib[k];
	ssize_t n;

	while ((n = read(st->out, st->buf + st->len, sizeof(st->buf) - 1 - st->len)) > 0) {
		char *nl;

		st->len += (size_t)n;
		st->buf[st->len] = '\0';
		while ((nl = strchr(st->buf, '\n'))) {
			int w;
			long long ms;

			*nl = '\0';
			if (sscanf(st->buf, "warning %d %lld", &w, &ms) == 2) {
				fired(s, k ? S_GLIB_LMM : S_GLIB_MND, (uint64_t)ms * 1000000u);
				if (w == 255)
					fired(s, k ? S_GLIB_LMM_CRIT : S_GLIB_MND_CRIT,
					      (uint64_t)ms * 1000000u);
			}
			st->len -= (size_t)(nl + 1 - st->buf);
			memmove(st->buf, nl + 1, st->len + 1);
		}
		if (st->len == sizeof(st->buf) - 1)
			st->len = 0;
	}
}

static void fired(struct sources *s, int id, uint64_t at)
{
	if (!s->first[id])
		s->first[id] = at;
	s->count[id]++;
}

static int on_event(const struct mnotify_event *ev, void *arg)
{
	struct sources *s = arg;

	switch (ev->type) {
	case MNOTIFY_EVENT_PRESSURE_ENTER:
	case MNOTIFY_EVENT_PRESSURE_EXIT:
		s->events++;
		if (ev->u.zone.level >= MNOTIFY_LEVEL_LOW && ev->u.zone.level <= MNOTIFY_LEVEL_CRITICAL &&
		    ev->u.zone.level > s->level)
			for (int l = s->level + 1; l <= ev->u.zone.level; l++)
				fired(s, S_LOW + l - 1, ev->timestamp_ns);
		if (ev->u.zone.level == MNOTIFY_LEVEL_NONE) {
			s->exits++;
			s->none_at = ev->timestamp_ns;
		}
		s->level = ev->u.zone.level;
		break;
	case MNOTIFY_EVENT_OOM_VICTIM:
		if (!s->ooms++) {
			s->oom_at = ev->timestamp_ns;
			snprintf(s->oom_comm, sizeof(s->oom_comm), "%s", ev->u.oom.comm);
		}
		break;
	default:
		break;
	}
	return MNOTIFY_CB_OK;
}

int sources_open(struct sources *s, bool earlyoom)
{
	memset(s, 0, sizeof(*s));
	for (int i = 0; i < S_NSRC; i++)
		s->fd[i] = -1;
	s->eo_out = -1;
	s->earlyoom = -1;
	if (mnotify_open(&s->nl, MNOTIFY_GROUP_PRESSURE | MNOTIFY_GROUP_OOM))
		return -1;
	s->fd[S_LOW] = mnotify_fd(s->nl);
	s->fd[S_CHARDEV] = open("/dev/mem_notify", O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	for (int i = 0; i < S_NSRC; i++)
		if (psi_trig[i])
			s->fd[i] = psi_fd(psi_trig[i]);
	s->fd[S_VMP_LOW] = vmpressure_fd("low");
	s->fd[S_VMP_MEDIUM] = vmpressure_fd("medium");
	s->fd[S_VMP_CRITICAL] = vmpressure_fd("critical");
	s->glib[0].out = s->glib[1].out = -1;
	if (earlyoom) {
		s->earlyoom = earlyoom_start(true, &s->eo_out);
		for (int k = 0; k < 2; k++)
			stack_start(&s->glib[k], k);
	}
	for (int i = 0; i < S_NSRC; i++)
		if (s->fd[i] < 0 && i != S_MEDIUM && i != S_CRITICAL && i != S_MEMAVAIL &&
		    i != S_EARLYOOM && i < S_GLIB_MND)
			fprintf(stderr, "mnotify-bench: source %s unavailable\n", src_name[i]);
	return 0;
}

void sources_reset(struct sources *s)
{
	memset(s->first, 0, sizeof(s->first));
	memset(s->count, 0, sizeof(s->count));
	s->events = 0;
	s->exits = 0;
	s->oom_at = 0;
	s->ooms = 0;
	s->oom_comm[0] = '\0';
	s->eo_victim[0] = '\0';
}

/* earlyoom's stderr: "sending SIGTERM to process PID uid U "NAME": ..." */
static void earlyoom_lines(struct sources *s, uint64_t at)
{
	ssize_t n;

	while ((n = read(s->eo_out, s->eo_buf + s->eo_len,
			 sizeof(s->eo_buf) - 1 - s->eo_len)) > 0) {
		char *nl;

		s->eo_len += (size_t)n;
		s->eo_buf[s->eo_len] = '\0';
		while ((nl = strchr(s->eo_buf, '\n'))) {
			char *q;

			*nl = '\0';
			/* not its first line, "sending SIGTERM when mem <= ..." */
			if (strstr(s->eo_buf, "sending SIG") && strstr(s->eo_buf, " to process ")) {
				if (!s->first[S_EARLYOOM] && (q = strchr(s->eo_buf, '"')))
					snprintf(s->eo_victim, sizeof(s->eo_victim), "%.*s",
						 (int)strcspn(q + 1, "\""), q + 1);
				fired(s, S_EARLYOOM, at);
			}
			s->eo_len -= (size_t)(nl + 1 - s->eo_buf);
			memmove(s->eo_buf, nl + 1, s->eo_len + 1);
		}
		if (s->eo_len == sizeof(s->eo_buf) - 1)
			s->eo_len = 0;	/* a line too long: drop it */
	}
}

void sources_poll(struct sources *s, int ms)
{
	struct pollfd p[S_NSRC + 3];
	int idx[S_NSRC + 3], n = 0;
	uint64_t t;

	for (int i = 0; i < S_NSRC; i++) {
		if (s->fd[i] < 0)
			continue;
		p[n].fd = s->fd[i];
		p[n].events = psi_trig[i] ? POLLPRI : POLLIN;
		idx[n++] = i;
	}
	if (s->eo_out >= 0) {
		p[n].fd = s->eo_out;
		p[n].events = POLLIN;
		idx[n++] = S_EARLYOOM;
	}
	for (int k = 0; k < 2; k++)
		if (s->glib[k].out >= 0) {
			p[n].fd = s->glib[k].out;
			p[n].events = POLLIN;
			idx[n++] = k ? S_GLIB_LMM : S_GLIB_MND;
		}
	poll(p, (nfds_t)n, ms);
	t = now_ns();
	for (int k = 0; k < n; k++) {
		int i = idx[k];

		if (!p[k].revents)
			continue;
		if (i == S_LOW) {
			mnotify_dispatch(s->nl, on_event, s);
		} else if (i == S_CHARDEV) {
			chardev_ack(s->fd[i]);
			fired(s, i, t);
		} else if (i == S_EARLYOOM) {
			earlyoom_lines(s, t);
		} else if (i == S_GLIB_MND || i == S_GLIB_LMM) {
			stack_lines(s, i == S_GLIB_LMM);
		} else if (psi_trig[i]) {
			if (p[k].revents & POLLPRI)
				fired(s, i, t);
		} else {
			uint64_t c;

			if (read(s->fd[i], &c, sizeof(c)) == sizeof(c))
				fired(s, i, t);
		}
	}
	/* earlyoom's rule, polled as earlyoom and systemd-oomd poll */
	if (t - s->last_sample >= 100000000u) {
		long long total = meminfo_kb("MemTotal"), avail = meminfo_kb("MemAvailable");
		long long stot = meminfo_kb("SwapTotal"), sfree = meminfo_kb("SwapFree");

		s->last_sample = t;
		if (avail * 10 <= total && (stot <= 0 || sfree * 10 <= stot))
			fired(s, S_MEMAVAIL, t);
	}
}

void sources_close(struct sources *s)
{
	for (int i = 0; i < S_NSRC; i++)
		if (s->fd[i] >= 0 && i != S_LOW)
			close(s->fd[i]);
	mnotify_close(s->nl);
	if (s->earlyoom > 0)
		reap(s->earlyoom);
	if (s->eo_out >= 0)
		close(s->eo_out);
	for (int k = 0; k < 2; k++)
		if (s->glib[k].bus > 0)
			stack_stop(&s->glib[k]);
	memset(s->fd, -1, sizeof(s->fd));
	s->nl = NULL;
}
