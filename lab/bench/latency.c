// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * latency MECH N: N watchers of MECH (poll, sigio, netlink, psi) through
 * pressure episodes; kernel event time stamp -> receipt, wake-ups and CPU
 * time per event.  MECH pipe measures the floor (a pipe wake-up between
 * two threads).
 */
#define _GNU_SOURCE
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <mnotify/mnotify.h>
#include "bench.h"

/* -------------------------------------------------- pressure episodes */

/* reference: the netlink enter time stamps, in order */
static struct samples enters = { .lock = PTHREAD_MUTEX_INITIALIZER };
static atomic_int stop_all;

static int ref_cb(const struct mnotify_event *ev, void *arg)
{
	int *seen = arg;

	if (ev->type == MNOTIFY_EVENT_PRESSURE_ENTER) {
		samples_add(&enters, ev->timestamp_ns);
		seen[0]++;
	} else if (ev->type == MNOTIFY_EVENT_PRESSURE_EXIT) {
		seen[1]++;
	}
	return MNOTIFY_CB_OK;
}

/* wait on the reference handle until @what (0 enter, 1 exit) was seen */
static int ref_wait(struct mnotify *ref, int *seen, int what, int timeout_ms)
{
	uint64_t end = now_ns() + (uint64_t)timeout_ms * 1000000u;
	int base = seen[what];

	while (seen[what] == base && now_ns() < end)
		mnotify_wait(ref, 200, ref_cb, seen);
	return seen[what] > base;
}

/* one episode: hog in until the reference sees enter, out until exit */
static int episode(struct mnotify *ref, int *seen)
{
	long long avail = meminfo_kb("MemAvailable") / 1024;
	int fd = -1, ok;
	pid_t hog = spawn_hog(avail + 16, avail > 48 ? avail - 40 : 8, 16, true, NULL, &fd);

	if (hog < 0)
		return 0;
	ok = ref_wait(ref, seen, 0, 60000);
	kill(hog, SIGUSR1);
	ref_wait(ref, seen, 1, 30000);
	reap(hog);
	if (fd >= 0)
		close(fd);
	/* let the state settle between episodes */
	usleep(300000);
	return ok;
}

/* ----------------------------------------------------------- watchers */

enum mech { M_POLL, M_SIGIO, M_NETLINK, M_PSI };

struct watcher {
	pthread_t th;
	enum mech m;
	int fd;
	struct mnotify *h;
	long wakes;
	uint64_t cpu0, cpu_ns;	/* thread CPU when it started waiting, used since */
};

static struct samples lat = { .lock = PTHREAD_MUTEX_INITIALIZER };
static int stop_fd = -1;	/* eventfd: readable when the watchers must stop */
#define STOP_SIG (SIGRTMIN + 2)
static struct samples wakes_at = { .lock = PTHREAD_MUTEX_INITIALIZER };

static uint64_t thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int nl_cb(const struct mnotify_event *ev, void *arg)
{
	struct watcher *w = arg;
	uint64_t rx = now_ns();

	if (ev->type == MNOTIFY_EVENT_PRESSURE_ENTER) {
		samples_add(&lat, rx - ev->timestamp_ns);
		w->wakes++;
	}
	return MNOTIFY_CB_OK;
}

static void *watch(void *arg)
{
	struct watcher *w = arg;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	sigaddset(&set, STOP_SIG);
	w->cpu0 = thread_cpu();
	/* block until an event or the stop: no periodic wake-ups to skew CPU time */
	while (!atomic_load(&stop_all)) {
		struct pollfd p[2] = { { .fd = w->fd, .events = POLLIN },
				       { .fd = stop_fd, .events = POLLIN } };

		if (w->m == M_SIGIO) {
			siginfo_t si;

			if (sigwaitinfo(&set, &si) == SIGRTMIN) {
				samples_add(&wakes_at, now_ns());
				w->wakes++;
				chardev_ack(w->fd);
			}
			continue;
		}
		if (w->m == M_PSI)
			p[0].events = POLLPRI;
		if (poll(p, 2, -1) <= 0 || p[1].revents)
			continue;
		if (w->m == M_NETLINK) {
			mnotify_dispatch(w->h, nl_cb, w);
		} else if (w->m == M_POLL && (p[0].revents & POLLIN)) {
			samples_add(&wakes_at, now_ns());
			w->wakes++;
			chardev_ack(w->fd);
		} else if (w->m == M_PSI && (p[0].revents & POLLPRI)) {
			w->wakes++;
		}
	}
	w->cpu_ns = thread_cpu() - w->cpu0;
	return NULL;
}

static int setup_watcher(struct watcher *w, enum mech m)
{
	memset(w, 0, sizeof(*w));
	w->m = m;
	w->fd = -1;
	switch (m) {
	case M_POLL:
	case M_SIGIO:
		w->fd = open("/dev/mem_notify", O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		return w->fd < 0 ? -errno : 0;
	case M_NETLINK: {
		int err = mnotify_open(&w->h, MNOTIFY_GROUP_PRESSURE);

		if (!err)
			w->fd = mnotify_fd(w->h);
		return err;
	}
	case M_PSI: {
		static const char trig[] = "some 150000 1000000";

		w->fd = open("/proc/pressure/memory", O_RDWR | O_CLOEXEC);
		if (w->fd < 0)
			return -errno;
		if (write(w->fd, trig, strlen(trig) + 1) < 0)
			return -errno;
		return 0;
	}
	}
	return -EINVAL;
}

static void *sigio_thread_start(void *arg)
{
	struct watcher *w = arg;
	struct f_owner_ex own = { .type = F_OWNER_TID, .pid = (pid_t)syscall(SYS_gettid) };

	fcntl(w->fd, F_SETOWN_EX, &own);
	fcntl(w->fd, F_SETSIG, SIGRTMIN);
	fcntl(w->fd, F_SETFL, fcntl(w->fd, F_GETFL) | O_ASYNC);
	return watch(arg);
}

/* latency of the char device: each wake-up against the last enter before it */
static void match_wakes(void)
{
	size_t i, j = 0;

	samples_sort(&enters);
	samples_sort(&wakes_at);
	for (i = 0; i < wakes_at.n; i++) {
		while (j + 1 < enters.n && enters.v[j + 1] <= wakes_at.v[i])
			j++;
		if (enters.n && enters.v[j] <= wakes_at.v[i] &&
		    wakes_at.v[i] - enters.v[j] < 1000000000u)
			samples_add(&lat, wakes_at.v[i] - enters.v[j]);
	}
}

static void *pipe_reader(void *arg)
{
	int fd = *(int *)arg;
	uint64_t ts;

	while (read(fd, &ts, sizeof(ts)) == sizeof(ts))
		samples_add(&lat, now_ns() - ts);
	return NULL;
}

int cmd_latency(const char *mech, int n)
{
	static const char *const names[] = { "poll", "sigio", "netlink", "psi" };
	enum mech m;
	struct watcher *w;
	struct mnotify *ref;
	pthread_attr_t attr;
	int seen[2] = { 0, 0 }, i, ok = 0, err;
	uint64_t cpu = 0, t0;
	long wakes = 0;
	long long ev0, ev1, wev0, wev1;
	sigset_t set;

	if (!strcmp(mech, "pipe")) {
		int p[2];
		pthread_t th;

		if (pipe(p) < 0)
			return 1;
		pthread_create(&th, NULL, pipe_reader, &p[0]);
		for (i = 0; i < 2000; i++) {
			uint64_t ts = now_ns();

			if (write(p[1], &ts, sizeof(ts)) != sizeof(ts))
				break;
			usleep(2000);
		}
		close(p[1]);
		pthread_join(th, NULL);
		goto report_floor;
	}
	for (m = M_POLL; m <= M_PSI; m++)
		if (!strcmp(mech, names[m]))
			break;
	if (m > M_PSI) {
		fprintf(stderr, "mnotify-bench: unknown mechanism '%s'\n", mech);
		return 2;
	}

	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	sigaddset(&set, STOP_SIG);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	stop_fd = eventfd(0, EFD_CLOEXEC);
	if (mnotify_open(&ref, MNOTIFY_GROUP_PRESSURE)) {
		fprintf(stderr, "mnotify-bench: no netlink reference\n");
		return 1;
	}
	w = calloc((size_t)n, sizeof(*w));
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 128 * 1024);
	for (i = 0; i < n; i++) {
		err = setup_watcher(&w[i], m);
		if (err) {
			fprintf(stderr, "mnotify-bench: watcher %d: %s\n", i, strerror(-err));
			return 1;
		}
		pthread_create(&w[i].th, &attr, m == M_SIGIO ? sigio_thread_start : watch, &w[i]);
	}
	usleep(500000);
	ev0 = vmstat_get("oom_kill");
	wev0 = read_ll("/sys/kernel/mm/mem_notify/events");
	t0 = now_ns();
	for (i = 0; i < episodes_per_run; i++)
		ok += episode(ref, seen);
	ev1 = vmstat_get("oom_kill");
	wev1 = read_ll("/sys/kernel/mm/mem_notify/events");
	usleep(500000);
	atomic_store(&stop_all, 1);
	{
		uint64_t one = 1;

		if (write(stop_fd, &one, sizeof(one)) != sizeof(one))
			return 1;
	}
	for (i = 0; m == M_SIGIO && i < n; i++)
		pthread_kill(w[i].th, STOP_SIG);
	for (i = 0; i < n; i++) {
		pthread_join(w[i].th, NULL);
		wakes += w[i].wakes;
		cpu += w[i].cpu_ns;
		if (w[i].h)
			mnotify_close(w[i].h);
		else if (w[i].fd >= 0)
			close(w[i].fd);
	}
	if (m == M_POLL || m == M_SIGIO)
		match_wakes();
	samples_sort(&lat);
	printf("latency mech=%s n=%d episodes=%d enters=%d exits=%d oom_kills=%lld samples=%zu "
	       "p50_us=%.1f p99_us=%.1f max_us=%.1f wakes=%ld dev_events=%lld "
	       "wakes_per_dev_event=%.2f wakes_per_enter=%.2f "
	       "cpu_us_per_enter=%.1f duration_s=%.1f\n",
	       mech, n, ok, seen[0], seen[1], ev1 - ev0, lat.n,
	       (double)samples_pct(&lat, 0.50) / 1e3, (double)samples_pct(&lat, 0.99) / 1e3,
	       (double)samples_pct(&lat, 1.0) / 1e3, wakes, wev1 - wev0,
	       wev1 > wev0 ? (double)wakes / (double)(wev1 - wev0) : 0.0,
	       seen[0] ? (double)wakes / seen[0] : 0.0,
	       seen[0] ? (double)cpu / 1e3 / seen[0] : 0.0, (double)(now_ns() - t0) / 1e9);
	mnotify_close(ref);
	free(w);
	return 0;

report_floor:
	samples_sort(&lat);
	printf("latency mech=pipe n=1 samples=%zu p50_us=%.1f p99_us=%.1f max_us=%.1f\n", lat.n,
	       (double)samples_pct(&lat, 0.50) / 1e3, (double)samples_pct(&lat, 0.99) / 1e3,
	       (double)samples_pct(&lat, 1.0) / 1e3);
	return 0;
}
