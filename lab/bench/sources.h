/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Every warning source the bench compares, watched together in one
 * process: mem_notify's levels (netlink events, the char device), PSI
 * triggers as Android's lmkd and low-memory-monitor set them, cgroup v1
 * vmpressure, a MemAvailable poller with earlyoom's rule, Debian's
 * earlyoom itself (--dryrun: when it would kill, and whom), and what a
 * GLib application's GMemoryMonitor hears on D-Bus, once from mnotifyd
 * and once from Debian's low-memory-monitor (each on a bus of its own).
 */
#ifndef MNOTIFY_BENCH_SOURCES_H
#define MNOTIFY_BENCH_SOURCES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <mnotify/mnotify.h>

enum src_id {
	S_LOW, S_MEDIUM, S_CRITICAL,	/* mem_notify levels (netlink) */
	S_CHARDEV,			/* /dev/mem_notify told a file */
	S_PSI_SOME70,			/* lmkd and low-memory-monitor: low */
	S_PSI_SOME100,			/* low-memory-monitor: medium */
	S_PSI_FULL100,			/* low-memory-monitor: critical */
	S_PSI_FULL700,			/* lmkd: critical */
	S_PSI_FULL50_500,		/* full, short window */
	S_VMP_LOW, S_VMP_MEDIUM, S_VMP_CRITICAL,
	S_MEMAVAIL,			/* MemAvailable and SwapFree <= 10% */
	S_EARLYOOM,			/* earlyoom --dryrun would kill */
	S_GLIB_MND, S_GLIB_MND_CRIT,	/* GMemoryMonitor via mnotifyd: any, 255 */
	S_GLIB_LMM, S_GLIB_LMM_CRIT,	/* via low-memory-monitor 2.1 */
	S_NSRC
};

/* a dbus-daemon, a LowMemoryMonitor service on it and a GLib client */
struct dbus_stack {
	pid_t bus, service, client;
	int out;			/* the client's stdout, -1: not running */
	char buf[256];
	size_t len;
};

extern const char *const src_name[S_NSRC];

struct sources {
	int fd[S_NSRC];
	struct mnotify *nl;
	uint64_t first[S_NSRC];		/* CLOCK_MONOTONIC ns, 0: never */
	int count[S_NSRC];		/* times it fired */
	int events;			/* mem_notify level changes */
	int exits;			/* of which back to none */
	int level;			/* mem_notify's level now */
	uint64_t none_at;		/* when it last went back to none */
	uint64_t oom_at;		/* first OOM kill (kernel time stamp) */
	char oom_comm[16];
	int ooms;
	char eo_victim[64];		/* earlyoom's choice */
	pid_t earlyoom;
	int eo_out;
	char eo_buf[512];
	size_t eo_len;
	uint64_t last_sample;
	struct dbus_stack glib[2];	/* mnotifyd, low-memory-monitor */
};

/*
 * open every source; @earlyoom: also run earlyoom --dryrun and the two
 * D-Bus stacks (those that are in the guest)
 */
int sources_open(struct sources *s, bool earlyoom);
/* wait up to @ms for anything; record what fired */
void sources_poll(struct sources *s, int ms);
void sources_reset(struct sources *s);	/* forget what fired */
void sources_close(struct sources *s);

/* earlyoom at its defaults, its stderr on *@out (-1: none); @dryrun */
pid_t earlyoom_start(bool dryrun, int *out);

#endif
