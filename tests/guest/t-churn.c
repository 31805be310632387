// SPDX-License-Identifier: GPL-2.0
/*
 * Churn while pressure events fire: threads open and close /dev/mem_notify,
 * toggle FASYNC on and off, and join and leave the netlink groups, 12,000
 * cycles in all, while a hog repeatedly pushes the guest into pressure and
 * lets it go.  Afterwards the watcher and subscriber counts are back to 0
 * (kmemleak, on the debug kernel, is checked by /init at the end of the run).
 */
#define _GNU_SOURCE
#include "guestlib.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mnotify/mnotify.h>

#define DEV_THREADS 4
#define DEV_CYCLES 2500
#define NL_THREADS 2
#define NL_CYCLES 1000

static atomic_int stop_load, episodes;
static long long t_start;

/* go on past the minimum until two pressure episodes overlapped (at most 150 s) */
static int keep_going(int i, int min)
{
	return i < min || (atomic_load(&episodes) < 2 && now_ms() - t_start < 150000);
}
static atomic_long dev_done, nl_done, nl_tried, errors, events_seen;
static char first_error[128];

static void error_seen(const char *what, int err)
{
	if (atomic_fetch_add(&errors, 1) == 0)
		snprintf(first_error, sizeof(first_error), "%s: %s", what, strerror(err));
}

static int on_ev(const struct mnotify_event *ev, void *arg)
{
	(void)arg;
	if (ev->type == MNOTIFY_EVENT_PRESSURE_ENTER || ev->type == MNOTIFY_EVENT_PRESSURE_EXIT)
		atomic_fetch_add(&events_seen, 1);
	return MNOTIFY_CB_OK;
}

static void *dev_worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; keep_going(i, DEV_CYCLES); i++) {
		int fd = open("/dev/mem_notify", O_RDONLY | O_CLOEXEC);

		if (fd < 0) {
			error_seen("open", errno);
			continue;
		}
		if (i % 2 == 0) {
			int fl = fcntl(fd, F_GETFL);

			if (fcntl(fd, F_SETOWN, getpid()) < 0 ||
			    fcntl(fd, F_SETSIG, SIGRTMIN + 1) < 0 ||
			    fcntl(fd, F_SETFL, fl | O_ASYNC) < 0)
				error_seen("fcntl on", errno);
			if (i % 4 == 0 && fcntl(fd, F_SETFL, fl) < 0)	/* and off again */
				error_seen("fcntl off", errno);
		}
		close(fd);
		atomic_fetch_add(&dev_done, 1);
	}
	return NULL;
}

static void *nl_worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; keep_going(i, NL_CYCLES); i++) {
		struct mnotify *h;
		unsigned int g = i % 3 == 0 ? MNOTIFY_GROUP_PRESSURE | MNOTIFY_GROUP_OOM :
					      MNOTIFY_GROUP_PRESSURE;

		int err = mnotify_open(&h, g);

		atomic_fetch_add(&nl_tried, 1);
		if (err) {
			error_seen("mnotify_open", -err);
			continue;
		}
		mnotify_dispatch(h, on_ev, NULL);
		mnotify_close(h);
		atomic_fetch_add(&nl_done, 1);
	}
	return NULL;
}

/* pressure on and off until told to stop */
static void *load(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop_load)) {
		long long avail = meminfo_kb("MemAvailable") / 1024;
		char mb[24], fast[24], line[64];
		char *argv[] = { GUEST_HOG, "-m", mb, "-F", fast, "-r", "16", "-H", "-a", "1000", NULL };
		int fd, st;
		pid_t hog;

		snprintf(mb, sizeof(mb), "%lld", avail + 16);
		snprintf(fast, sizeof(fast), "%lld", avail > 48 ? avail - 40 : 8);
		hog = spawn(argv, &fd);
		if (hog < 0)
			break;
		/* until it holds its memory, or the OOM killer took it */
		read_line_timeout(fd, line, sizeof(line), 20000);
		kill(hog, SIGUSR1);
		read_line_timeout(fd, line, sizeof(line), 10000);
		kill(hog, SIGTERM);
		if (wait_pid_timeout(hog, &st, 20000) < 0)
			kill_reap(hog);
		close(fd);
		atomic_fetch_add(&episodes, 1);
	}
	return NULL;
}

int main(void)
{
	pthread_t dev[DEV_THREADS], nl[NL_THREADS], ld;
	long long ev0, ev1, w, fw;
	struct mnotify_stats st0, st1;
	struct mnotify *cmd, *steady = NULL;
	int steady_fd;
	int i, have_nl;
	long long t0 = now_ms();

	t_start = t0;

	protect_self();
	signal(SIGRTMIN + 1, SIG_IGN);
	signal(SIGIO, SIG_IGN);
	have_nl = mnotify_open(&cmd, 0) == 0;
	/*
	 * One steady subscriber and one steady device watcher, so that
	 * netlink events are sent and wake-ups happen throughout: the
	 * churning ones come and go too fast to be there when pressure
	 * starts, on a slow (debug) kernel.
	 */
	if (have_nl && mnotify_open(&steady, MNOTIFY_GROUP_PRESSURE))
		tap_bail("open the steady subscriber");
	steady_fd = open("/dev/mem_notify", O_RDONLY | O_CLOEXEC);
	if (steady_fd < 0)
		tap_bail("open the steady device watcher");
	if (have_nl)
		mnotify_get_stats(cmd, &st0, sizeof(st0));
	ev0 = read_ll("/sys/kernel/mm/mem_notify/events");

	pthread_create(&ld, NULL, load, NULL);
	for (i = 0; i < DEV_THREADS; i++)
		pthread_create(&dev[i], NULL, dev_worker, NULL);
	for (i = 0; have_nl && i < NL_THREADS; i++)
		pthread_create(&nl[i], NULL, nl_worker, NULL);
	for (i = 0; i < DEV_THREADS; i++)
		pthread_join(dev[i], NULL);
	for (i = 0; have_nl && i < NL_THREADS; i++)
		pthread_join(nl[i], NULL);
	atomic_store(&stop_load, 1);
	pthread_join(ld, NULL);

	ev1 = read_ll("/sys/kernel/mm/mem_notify/events");
	close(steady_fd);
	tap_ok(atomic_load(&errors) == 0, "%ld device and %ld netlink cycles in %lld s, %ld errors %s",
	       atomic_load(&dev_done), atomic_load(&nl_done), (now_ms() - t0) / 1000,
	       atomic_load(&errors), first_error);
	tap_ok(atomic_load(&dev_done) >= DEV_THREADS * DEV_CYCLES, "at least %d device cycles ran",
	       DEV_THREADS * DEV_CYCLES);
	tap_diag("%d pressure episodes, %lld device wake-up events, %ld netlink events read during churn",
		 atomic_load(&episodes), ev1 - ev0, atomic_load(&events_seen));
	tap_ok(atomic_load(&episodes) >= 2 && ev1 > ev0,
	       "pressure came and went during the churn (%d episodes, %lld wake-up events)",
	       atomic_load(&episodes), ev1 - ev0);
	w = read_ll("/sys/kernel/mm/mem_notify/watchers");
	fw = read_ll("/sys/kernel/mm/mem_notify/fasync_watchers");
	tap_ok(w == 0 && fw == 0, "watchers %lld, fasync_watchers %lld after the churn", w, fw);
	if (have_nl) {
		long before = atomic_load(&events_seen);

		mnotify_dispatch(steady, on_ev, NULL);
		mnotify_close(steady);
		tap_ok(atomic_load(&events_seen) > before,
		       "the steady subscriber received %ld pressure events during the churn",
		       atomic_load(&events_seen) - before);
		tap_ok(atomic_load(&nl_tried) >= NL_THREADS * NL_CYCLES, "at least %d netlink cycles ran",
		       NL_THREADS * NL_CYCLES);
		mnotify_get_stats(cmd, &st1, sizeof(st1));
		tap_ok(st1.pressure_subscribers == 0 && st1.oom_subscribers == 0,
		       "subscribers back to 0/0 (%u/%u)", st1.pressure_subscribers, st1.oom_subscribers);
		tap_diag("netlink: sent %llu, lost %llu, overrun %llu during the churn",
			 (unsigned long long)(st1.sent - st0.sent),
			 (unsigned long long)(st1.lost - st0.lost),
			 (unsigned long long)(st1.overrun - st0.overrun));
		mnotify_close(cmd);
	} else {
		feature_missing("MEM_NOTIFY_NETLINK", "generic netlink family mem_notify (netlink churn)");
	}
	return tap_done();
}
