// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mnotify-cache: an example application built on libmnotify-nl.  It holds
 * a cache (anonymous memory it could rebuild) and trims it in proportion
 * to the pressure level: to half on low, a quarter on medium, nothing on
 * critical, and by half again whenever it is told anew while it already
 * holds no more than the level allows (a netlink entry from none, every
 * wake-up of the device: the kernel tells again while pressure lasts);
 * it grows back when the level falls (after --regrow quiet seconds).
 * The level comes from the netlink "pressure" group, from
 * /dev/mem_notify (the report's level), from a PSI trigger (taken as
 * critical), or from nowhere (baseline).  Told that it is the task the
 * OOM killer would choose next (the device tells its own files; netlink's
 * "oom" group, joined when allowed), it gives back everything at once.
 * With --cgroup it follows one memory cgroup's level instead of the
 * nodes': a netlink watch, the device file bound to the cgroup, or a PSI
 * trigger on the cgroup's memory.pressure.
 */
#define _GNU_SOURCE
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <mnotify/mnotify.h>
#include "uapi/linux/mem_notify.h"
#include "clicommon.h"

#define MB (1024UL * 1024UL)

static const char usage_text[] =
"Usage: mnotify-cache [-s SOURCE] [-c CGROUP] [-m MB] [-g SEC] [-n NAME] [-o]\n"
"Hold MB megabytes of cache; trim it in proportion to the memory pressure\n"
"level (low: keep 1/2, medium: 1/4, critical: none; told again while already\n"
"within the level: give back half of what is left), grow it back to what\n"
"a lower level allows after SEC seconds without a rise (0: never).\n"
"\n"
"  -s, --source S   netlink (default), chardev, psi, none\n"
"  -c, --cgroup DIR follow the level of the memory cgroup DIR (a cgroup v2\n"
"                   directory you manage, e.g. its own) instead of the nodes':\n"
"                   netlink watches it, chardev binds the device file to it,\n"
"                   psi sets its trigger on DIR/memory.pressure\n"
"  -m, --mb MB      cache size [32]\n"
"  -g, --regrow SEC regrow after SEC quiet seconds [0 = never]\n"
"  -n, --name NAME  task name\n"
"  -o, --oom-only   keep the whole cache whatever the level; drop it only\n"
"                   when told it is the OOM candidate (a cache worth more than\n"
"                   the memory, until the process would die for it)\n"
"  -h, --help       this text\n"
"  -V, --version    print the version and exit\n"
"\n"
"Told that it is the OOM killer's next choice (chardev; netlink when it may\n"
"join the oom group, as root), it drops the whole cache at once.\n"
"\n"
"Prints \"ready MB\" once the cache is built and one line per change:\n"
"\"dropped MB after SOURCE level L\" (MB given back), \"dropped MB after\n"
"SOURCE oom-candidate\", \"regrown MB\" (the size now).  SIGTERM exits 0.\n";

static volatile sig_atomic_t done;

static void on_term(int sig)
{
	(void)sig;
	done = 1;
}

/* the cache is kept in 1 MB pieces so that it can shrink and grow */
static char **piece;
static size_t cache_mb, want_mb;
static unsigned long long seed = 0x6d6e6f74696679ULL;

static int grow(size_t mb)
{
	while (cache_mb < mb) {
		char *p = mmap(NULL, MB, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return -1;
		/* like application data: half of each page random, half zeros
		 * (about 2:1 in zram; never same-filled) */
		for (size_t i = 0; i < MB; i += 4096)
			for (size_t j = 0; j < 2048; j += sizeof(seed)) {
				seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
				memcpy(p + i + j, &seed, sizeof(seed));
			}
		piece[cache_mb++] = p;
	}
	return 0;
}

/* shrink to @mb; returns the MB given back */
static size_t shrink(size_t mb)
{
	size_t before = cache_mb;

	while (cache_mb > mb)
		munmap(piece[--cache_mb], MB);
	return before - cache_mb;
}

/* what a level lets the cache keep */
static size_t keep_mb(int level)
{
	switch (level) {
	case MNOTIFY_LEVEL_NONE:
		return want_mb;
	case MNOTIFY_LEVEL_LOW:
		return want_mb / 2;
	case MNOTIFY_LEVEL_MEDIUM:
		return want_mb / 4;
	default:
		return 0;
	}
}

static int level = -1;	/* from the last event of this batch; -1: none */
static int fresh;	/* that event is a new notification, not a change */
static int next;	/* this process is the OOM killer's next choice */

static int on_event(const struct mnotify_event *ev, void *arg)
{
	struct mnotify *h = arg;

	switch (ev->type) {
	case MNOTIFY_EVENT_PRESSURE_ENTER:
	case MNOTIFY_EVENT_PRESSURE_EXIT:
		level = ev->u.zone.level;
		/* entered from none: pressure is back after a recovery */
		fresh = ev->type == MNOTIFY_EVENT_PRESSURE_ENTER &&
			ev->u.zone.prev_level == MNOTIFY_LEVEL_NONE;
		break;
	case MNOTIFY_EVENT_CHARDEV: {
		uint32_t l = MNOTIFY_LEVEL_CRITICAL;

		/* the report's level; an older kernel: the ioctl, or critical */
		if (ev->u.zone.level >= 0)
			l = (uint32_t)ev->u.zone.level;
		else if (ioctl(mnotify_fd(h), MEM_NOTIFY_IOC_GET_LEVEL, &l))
			l = MNOTIFY_LEVEL_CRITICAL;
		level = (int)l;
		fresh = 1;	/* each report asks for a share */
		break;
	}
	case MNOTIFY_EVENT_CGROUP_LEVEL:
	case MNOTIFY_EVENT_CGROUP_STATE:
		/* --cgroup over netlink: the watched cgroup's level */
		level = ev->cgroup.level;
		fresh = ev->type == MNOTIFY_EVENT_CGROUP_LEVEL &&
			ev->cgroup.prev_level == MNOTIFY_LEVEL_NONE;
		break;
	case MNOTIFY_EVENT_LOST:
		/* do not know: be safe */
		level = MNOTIFY_LEVEL_CRITICAL;
		break;
	case MNOTIFY_EVENT_OOM_CANDIDATE:
		/* "you are next": everything, now */
		if (mnotify_is_oom_candidate(ev)) {
			next = 1;
			level = MNOTIFY_LEVEL_CRITICAL;
		}
		break;
	default:
		break;
	}
	return MNOTIFY_CB_OK;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "source", required_argument, NULL, 's' },
		{ "cgroup", required_argument, NULL, 'c' },
		{ "mb", required_argument, NULL, 'm' },
		{ "regrow", required_argument, NULL, 'g' },
		{ "name", required_argument, NULL, 'n' },
		{ "oom-only", no_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *source = "netlink", *cgroup = NULL;
	long mb = 32, regrow = 0;
	struct mnotify *h = NULL;
	uint64_t quiet_since;
	int fd = -1, opt, err, cur = MNOTIFY_LEVEL_NONE, oom_only = 0;
	size_t target;

	while ((opt = getopt_long(argc, argv, "s:c:m:g:n:ohV", longopts, NULL)) != -1) {
		switch (opt) {
		case 's':
			source = optarg;
			break;
		case 'c':
			cgroup = optarg;
			break;
		case 'm':
			if (cli_parse_long(optarg, 1, 1 << 20, &mb))
				goto usage;
			break;
		case 'g':
			if (cli_parse_long(optarg, 0, INT_MAX, &regrow))
				goto usage;
			break;
		case 'n':
			prctl(PR_SET_NAME, optarg, 0, 0, 0);
			break;
		case 'o':
			oom_only = 1;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		case 'V':
			printf("mnotify-cache %s\n", PACKAGE_VERSION);
			return 0;
		default:
			goto usage;
		}
	}
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);

	if (!strcmp(source, "netlink")) {
		/* the oom group tells the candidate; it needs CAP_SYS_ADMIN */
		unsigned int groups = cgroup ? 0 : MNOTIFY_GROUP_PRESSURE;

		err = mnotify_open(&h, groups | MNOTIFY_GROUP_OOM);
		if (err == -EPERM)
			err = mnotify_open(&h, groups);
	} else if (!strcmp(source, "chardev"))
		err = mnotify_open_chardev(&h, NULL);
	else if (!strcmp(source, "psi")) {
		/* what Android's lmkd uses for "some" pressure */
		static const char trig[] = "some 70000 1000000";
		char f[PATH_MAX];

		snprintf(f, sizeof(f), "%s%s", cgroup ? cgroup : "/proc/pressure/memory",
			 cgroup ? "/memory.pressure" : "");
		fd = open(f, O_RDWR | O_CLOEXEC);
		err = fd < 0 || write(fd, trig, sizeof(trig)) < 0 ? -errno : 0;
	} else if (!strcmp(source, "none"))
		err = 0;
	else
		goto usage;
	if (err) {
		fprintf(stderr, "mnotify-cache: %s: %s\n", source, strerror(-err));
		return 1;
	}
	/* netlink: a watch; chardev: the device file bound to the cgroup */
	if (cgroup && h) {
		err = mnotify_watch_cgroup_path(h, cgroup);
		if (err) {
			const char *why = mnotify_ext_ack(h);

			fprintf(stderr, "mnotify-cache: --cgroup %s: %s%s%s%s\n", cgroup,
				strerror(-err), *why ? " (" : "", why, *why ? ")" : "");
			return 1;
		}
	}

	want_mb = (size_t)mb;
	piece = calloc(want_mb, sizeof(*piece));
	if (!piece || grow(want_mb)) {
		fprintf(stderr, "mnotify-cache: cannot build %zu MB\n", want_mb);
		return 1;
	}
	printf("ready %zu\n", cache_mb);
	fflush(stdout);
	quiet_since = cli_now_ns();

	while (!done) {
		struct pollfd p = { .fd = h ? mnotify_fd(h) : fd, .events = h ? POLLIN : POLLPRI };
		int n = poll(&p, p.fd >= 0 ? 1 : 0, 1000);

		level = -1;
		fresh = 0;
		next = 0;
		if (n > 0 && h && mnotify_dispatch(h, on_event, h) == -EIDRM) {
			/* the device file's cgroup is gone */
			fprintf(stderr, "mnotify-cache: --cgroup %s: removed\n", cgroup);
			break;
		}
		else if (n > 0 && (p.revents & POLLPRI))
			level = MNOTIFY_LEVEL_CRITICAL;
		/* --oom-only: the levels change nothing, "you are next" does */
		if (oom_only && !next) {
			level = -1;
			fresh = 0;
		}
		if (level >= MNOTIFY_LEVEL_LOW)
			quiet_since = cli_now_ns();
		target = level >= 0 ? keep_mb(level) : cache_mb;
		/* told anew and already within the level: give back half */
		if (fresh && level >= MNOTIFY_LEVEL_LOW && target >= cache_mb)
			target = cache_mb / 2;
		if (next)
			target = 0;
		if (target < cache_mb) {
			size_t freed = shrink(target);

			if (next)
				printf("dropped %zu after %s oom-candidate\n",
				       freed, source);
			else
				printf("dropped %zu after %s level %s\n", freed,
				       source, mnotify_level_name(level));
			fflush(stdout);
		}
		if (level >= 0)
			cur = level;
		/* chardev and PSI say nothing when pressure ends: quiet means none */
		if (n == 0 && strcmp(source, "netlink"))
			cur = MNOTIFY_LEVEL_NONE;
		if (regrow && cache_mb < keep_mb(cur) &&
		    cli_now_ns() - quiet_since > (uint64_t)regrow * 1000000000u) {
			if (grow(keep_mb(cur)) == 0) {
				printf("regrown %zu\n", cache_mb);
				fflush(stdout);
			}
		}
	}
	mnotify_close(h);
	return 0;

usage:
	fputs(usage_text, stderr);
	return 2;
}
