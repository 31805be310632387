// SPDX-License-Identifier: GPL-2.0-or-later
/* hotpath W S R L: the cost of the hooks on the allocator and reclaim */
#define _GNU_SOURCE
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include <mnotify/mnotify.h>
#include "bench.h"

/* ------------------------------------------------------------ hotpath */

struct hot_listener {
	int fd;			/* /dev/mem_notify, or -1 */
	struct mnotify *h;	/* netlink subscriber, or NULL */
	int stop;		/* eventfd */
	long dev_wakes, nl_events;
};

static int hot_cb(const struct mnotify_event *ev, void *arg)
{
	struct hot_listener *l = arg;

	if (ev->type == MNOTIFY_EVENT_PRESSURE_ENTER || ev->type == MNOTIFY_EVENT_PRESSURE_EXIT)
		l->nl_events++;
	return MNOTIFY_CB_OK;
}

/* a listener that does what an application would: wait, take the event */
static void *hot_listen(void *arg)
{
	struct hot_listener *l = arg;

	for (;;) {
		struct pollfd p[3] = {
			{ .fd = l->stop, .events = POLLIN },
			{ .fd = l->fd, .events = POLLIN },
			{ .fd = l->h ? mnotify_fd(l->h) : -1, .events = POLLIN },
		};

		if (poll(p, 3, 1000) < 0 && errno != EINTR)
			break;
		if (p[0].revents)
			break;
		if (p[1].revents & POLLIN) {
			l->dev_wakes++;
			chardev_ack(l->fd);
		}
		if (p[2].revents)
			mnotify_dispatch(l->h, hot_cb, l);
	}
	return NULL;
}

/*
 * Hot paths with the notification machinery idle (nobody listening), with a
 * listener (one device watcher and one netlink subscriber, in a thread), or
 * not compiled in (a kernel without CONFIG_MEM_NOTIFY: mem_notify=0):
 *   alloc    mmap 4 MB, touch every page, munmap: the page allocator and
 *            the page-free hook
 *   reclaim  touch a buffer larger than memory over and over: every pass
 *            swaps out (reclaim, the reclaim hooks) and faults back in;
 *            needs swap (the guest's zram)
 * Each repetition runs @secs seconds; one line per repetition.
 */
int cmd_hotpath(const char *workload, int secs, int reps, int listen)
{
	const int reclaim = !strcmp(workload, "reclaim");
	const int have = access("/dev/mem_notify", F_OK) == 0;
	struct hot_listener l = { .fd = -1, .stop = -1 };
	pthread_t thr;
	size_t len = 4 * 1024 * 1024;
	char *buf = NULL;
	int r, rc = 0;
	/* where this run sits in the boot's sequence (qemu/init), for the report */
	const char *slot_env = getenv("MNOTIFY_HOT_SLOT");
	const int slot = slot_env ? atoi(slot_env) : 1;

	if (!reclaim && strcmp(workload, "alloc")) {
		fprintf(stderr, "mnotify-bench: hotpath workload must be alloc or reclaim\n");
		return 2;
	}
	if (reclaim) {
		if (meminfo_kb("SwapTotal") <= 0) {
			fprintf(stderr, "mnotify-bench: hotpath reclaim needs swap\n");
			return 1;
		}
		/* a quarter more than the guest's memory */
		len = (size_t)meminfo_kb("MemTotal") * 1024 / 4 * 5;
		buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (buf == MAP_FAILED) {
			perror("mnotify-bench: mmap");
			return 1;
		}
		/* untimed first pass: afterwards every pass swaps out and in */
		for (size_t i = 0; i < len; i += 4096)
			buf[i] = 1;
	}
	if (listen) {
		if (!have) {
			fprintf(stderr, "mnotify-bench: no /dev/mem_notify to listen to\n");
			return 1;
		}
		l.fd = open("/dev/mem_notify", O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		rc = mnotify_open(&l.h, MNOTIFY_GROUP_PRESSURE);
		l.stop = eventfd(0, EFD_CLOEXEC);
		if (l.fd < 0 || rc || l.stop < 0 || pthread_create(&thr, NULL, hot_listen, &l)) {
			fprintf(stderr, "mnotify-bench: cannot set up the listener\n");
			return 1;
		}
	}
	for (r = 0; r < reps; r++) {
		long long out0 = vmstat_get("pswpout"), ev0 = read_ll("/sys/kernel/mm/mem_notify/events");
		uint64_t t0 = now_ns(), pages = 0, t;

		while (now_ns() - t0 < (uint64_t)secs * 1000000000u) {
			char *p = buf;
			size_t i;

			if (!reclaim) {
				p = mmap(NULL, len, PROT_READ | PROT_WRITE,
					 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
				if (p == MAP_FAILED)
					return 1;
			}
			for (i = 0; i < len; i += 4096)
				p[i] = (char)(i >> 12);
			if (!reclaim)
				munmap(p, len);
			pages += len / 4096;
		}
		t = now_ns() - t0;
		printf("hotpath workload=%s secs=%d mem_notify=%d listeners=%d slot=%d rep=%d "
		       "pages=%llu ns_per_page=%.1f swapped_out=%lld device_events=%lld\n",
		       workload, secs, have, listen, slot, r, (unsigned long long)pages,
		       (double)t / (double)pages, vmstat_get("pswpout") - out0,
		       have ? read_ll("/sys/kernel/mm/mem_notify/events") - ev0 : 0);
	}
	if (listen) {
		uint64_t one = 1;

		if (write(l.stop, &one, sizeof(one)) == sizeof(one))
			pthread_join(thr, NULL);
		printf("hotpath-listener workload=%s device_wakes=%ld netlink_events=%ld\n",
		       workload, l.dev_wakes, l.nl_events);
		close(l.fd);
		close(l.stop);
		mnotify_close(l.h);
	}
	if (buf)
		munmap(buf, len);
	return 0;
}
