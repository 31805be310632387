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
#include <string.h>
#include <unistd.h>

#include "uapi/linux/mem_notify.h"
#include "bench.h"
#include "sources.h"

const char *const src_name[S_NSRC] = {
	"mnotify_low", "mnotify_medium", "mnotify_critical", "mnotify_chardev",
	"psi_some70", "psi_some100", "psi_full100", "psi_full700", "psi_full50_500",
	"vmpressure_low", "vmpressure_medium", "vmpressure_critical",
	"memavail_10pct", "earlyoom",
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
	if (earlyoom)
		s->earlyoom = earlyoom_start(true, &s->eo_out);
	for (int i = 0; i < S_NSRC; i++)
		if (s->fd[i] < 0 && i != S_MEDIUM && i != S_CRITICAL && i != S_MEMAVAIL &&
		    i != S_EARLYOOM)
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
			if (strstr(s->eo_buf, "sending SIGTERM")) {
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
	struct pollfd p[S_NSRC + 1];
	int idx[S_NSRC + 1], n = 0;
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
	memset(s->fd, -1, sizeof(s->fd));
	s->nl = NULL;
}
