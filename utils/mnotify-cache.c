// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mnotify-cache: an example application built on libmnotify-nl.  It holds
 * a cache (anonymous memory it could rebuild), drops it when memory
 * pressure is signalled, and regrows it once pressure has been gone for a
 * while.  The signal comes from the netlink "pressure" group, from
 * /dev/mem_notify, from a PSI trigger, or from nowhere (the baseline).
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
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "mnotify.h"
#include "clicommon.h"

#define MB (1024UL * 1024UL)

static const char usage_text[] =
"Usage: mnotify-cache [-s SOURCE] [-m MB] [-g SEC] [-n NAME]\n"
"Hold MB megabytes of cache; drop all of it when memory pressure is\n"
"signalled, regrow it after SEC seconds without pressure (0: never).\n"
"\n"
"  -s, --source S   netlink (default), chardev, psi, none\n"
"  -m, --mb MB      cache size [32]\n"
"  -g, --regrow SEC regrow after SEC quiet seconds [0 = never]\n"
"  -n, --name NAME  task name\n"
"  -h, --help       this text\n"
"\n"
"Prints \"ready MB\" once the cache is built and one line per drop or regrow:\n"
"\"dropped MB after SOURCE\", \"regrown MB\".  SIGTERM exits 0.\n";

static volatile sig_atomic_t done;

static void on_term(int sig)
{
	(void)sig;
	done = 1;
}

static char *cache;
static size_t cache_mb;

static void build(size_t mb)
{
	size_t i;

	cache = mmap(NULL, mb * MB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (cache == MAP_FAILED) {
		cache = NULL;
		return;
	}
	for (i = 0; i < mb * MB; i += 4096)
		cache[i] = (char)(i >> 12 | 1);	/* not same-filled */
	cache_mb = mb;
}

static void drop(const char *why)
{
	if (!cache)
		return;
	munmap(cache, cache_mb * MB);
	cache = NULL;
	printf("dropped %zu after %s\n", cache_mb, why);
	fflush(stdout);
	cache_mb = 0;
}

static int pressure_seen;

static int on_event(const struct mnotify_event *ev, void *arg)
{
	(void)arg;
	if (ev->type == MNOTIFY_EVENT_PRESSURE_ENTER || ev->type == MNOTIFY_EVENT_CHARDEV ||
	    ev->type == MNOTIFY_EVENT_LOST)
		pressure_seen = 1;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "source", required_argument, NULL, 's' },
		{ "mb", required_argument, NULL, 'm' },
		{ "regrow", required_argument, NULL, 'g' },
		{ "name", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *source = "netlink";
	long mb = 32, regrow = 0;
	struct mnotify *h = NULL;
	uint64_t quiet_since;
	int fd = -1, opt, err;

	while ((opt = getopt_long(argc, argv, "s:m:g:n:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 's':
			source = optarg;
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
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			goto usage;
		}
	}
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);

	if (!strcmp(source, "netlink"))
		err = mnotify_open(&h, MNOTIFY_GROUP_PRESSURE);
	else if (!strcmp(source, "chardev"))
		err = mnotify_open_chardev(&h, NULL);
	else if (!strcmp(source, "psi")) {
		/* what Android's lmkd uses for "some" pressure */
		static const char trig[] = "some 70000 1000000";

		fd = open("/proc/pressure/memory", O_RDWR | O_CLOEXEC);
		err = fd < 0 || write(fd, trig, sizeof(trig)) < 0 ? -errno : 0;
	} else if (!strcmp(source, "none"))
		err = 0;
	else
		goto usage;
	if (err) {
		fprintf(stderr, "mnotify-cache: %s: %s\n", source, strerror(-err));
		return 1;
	}

	build((size_t)mb);
	printf("ready %zu\n", cache_mb);
	fflush(stdout);
	quiet_since = cli_now_ns();

	while (!done) {
		struct pollfd p = { .fd = h ? mnotify_fd(h) : fd, .events = h ? POLLIN : POLLPRI };
		int n = poll(&p, p.fd >= 0 ? 1 : 0, 1000);

		pressure_seen = 0;
		if (n > 0 && h)
			mnotify_dispatch(h, on_event, NULL);
		else if (n > 0 && (p.revents & POLLPRI))
			pressure_seen = 1;
		if (pressure_seen) {
			drop(source);
			quiet_since = cli_now_ns();
		} else if (!cache && regrow &&
			   cli_now_ns() - quiet_since > (uint64_t)regrow * 1000000000u) {
			build((size_t)mb);
			printf("regrown %zu\n", cache_mb);
			fflush(stdout);
		}
	}
	mnotify_close(h);
	return 0;

usage:
	fputs(usage_text, stderr);
	return 2;
}
