// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mnotify-bench: measure memory-pressure notification delivery in the
 * guest.  Prints one result line per measurement ("key=value" fields), so
 * the host can tabulate them.
 *
 *   latency MECH N   kernel event time stamp -> receipt, N watchers of MECH
 *                    (poll, sigio, netlink), plus wake-ups and CPU time per
 *                    event; MECH pipe measures the floor (a pipe wake-up
 *                    between two threads); MECH psi counts PSI-trigger
 *                    pollers' wake-ups
 *   lead RATE        a hog ramps at RATE MB/s until the OOM kill; first
 *                    event of every mechanism relative to the start and to
 *                    the kill; free memory every 100 ms
 *   avoid SRC RUNS   cooperating mnotify-cache processes told by SRC (none,
 *                    psi, chardev, netlink) and a growing workload: OOM
 *                    kills and whether the workload completed
 *   hotpath W S R L  page allocator (W alloc) or reclaim (W reclaim) loop,
 *                    R repetitions of S seconds, idle or with a listener (L)
 *
 * Pressure comes from GUEST_HOG (mnotify-hog) episodes driven here.
 */
#define _GNU_SOURCE
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <mnotify/mnotify.h>
#include "uapi/linux/mem_notify.h"
#include "clicommon.h"

static const char *hog_path = "/tests/mnotify-hog";

#define MAX_SAMPLES 200000
static int episodes_per_run = 6;	/* MNOTIFY_BENCH_EPISODES */

static uint64_t now(void)
{
	return cli_now_ns();
}

static long long meminfo(const char *key)
{
	char line[256];
	long long v = -1;
	size_t n = strlen(key);
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':') {
			v = atoll(line + n + 1);
			break;
		}
	fclose(f);
	return v;
}

static long long vmstat(const char *key)
{
	char k[128];
	long long v;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return -1;
	while (fscanf(f, "%127s %lld", k, &v) == 2)
		if (!strcmp(k, key)) {
			fclose(f);
			return v;
		}
	fclose(f);
	return -1;
}

/* ------------------------------------------------------------ samples */

struct samples {
	pthread_mutex_t lock;
	uint64_t v[MAX_SAMPLES];
	size_t n;
};

static void add(struct samples *s, uint64_t v)
{
	pthread_mutex_lock(&s->lock);
	if (s->n < MAX_SAMPLES)
		s->v[s->n++] = v;
	pthread_mutex_unlock(&s->lock);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t pct(uint64_t *v, size_t n, double p)
{
	size_t i;

	if (!n)
		return 0;
	i = (size_t)(p * (double)(n - 1) + 0.5);
	return v[i];
}

static long long read_counter(const char *path)
{
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* vm.watermark_scale_factor: how far above min the low and high marks sit */
static long long wsf(void)
{
	return read_counter("/proc/sys/vm/watermark_scale_factor");
}

/*
 * /proc/zoneinfo's node_unreclaimable: kswapd has given up on node 0 (its
 * last runs reclaimed nothing) and no longer runs in the background
 */
static int node_unreclaimable(void)
{
	char line[256];
	int v = -1;
	FILE *f = fopen("/proc/zoneinfo", "r");

	if (!f)
		return -1;
	while (v < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, " node_unreclaimable: %d", &v) != 1)
			v = -1;
	fclose(f);
	return v;
}

/* -------------------------------------------------- pressure episodes */

/* reference: the netlink enter time stamps, in order */
static struct samples enters = { .lock = PTHREAD_MUTEX_INITIALIZER };
static atomic_int stop_all;

static int ref_cb(const struct mnotify_event *ev, void *arg)
{
	int *seen = arg;

	if (ev->type == MNOTIFY_EVENT_PRESSURE_ENTER) {
		add(&enters, ev->timestamp_ns);
		seen[0]++;
	} else if (ev->type == MNOTIFY_EVENT_PRESSURE_EXIT) {
		seen[1]++;
	}
	return MNOTIFY_CB_OK;
}

/* wait on the reference handle until @what (0 enter, 1 exit) was seen */
static int ref_wait(struct mnotify *ref, int *seen, int what, int timeout_ms)
{
	uint64_t end = now() + (uint64_t)timeout_ms * 1000000u;
	int base = seen[what];

	while (seen[what] == base && now() < end)
		mnotify_wait(ref, 200, ref_cb, seen);
	return seen[what] > base;
}

static pid_t spawn_hog(long long mb, long long fast, long long rate, int hold, int *fd3)
{
	char a_mb[24], a_fast[24], a_rate[24];
	char *argv[16];
	int i = 0, p[2] = { -1, -1 };
	pid_t pid;

	snprintf(a_mb, sizeof(a_mb), "%lld", mb);
	snprintf(a_fast, sizeof(a_fast), "%lld", fast);
	snprintf(a_rate, sizeof(a_rate), "%lld", rate);
	argv[i++] = (char *)hog_path;
	argv[i++] = "-m";
	argv[i++] = a_mb;
	if (fast > 0) {
		argv[i++] = "-F";
		argv[i++] = a_fast;
	}
	argv[i++] = "-r";
	argv[i++] = a_rate;
	if (hold)
		argv[i++] = "-H";
	argv[i++] = "-a";
	argv[i++] = "1000";
	argv[i] = NULL;
	if (fd3 && pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		if (fd3) {
			dup2(p[1], 3);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	if (fd3) {
		close(p[1]);
		*fd3 = p[0];
	}
	return pid;
}

static void reap(pid_t pid)
{
	int i, st;

	kill(pid, SIGTERM);
	for (i = 0; i < 200; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return;
		usleep(50000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
}

/* one episode: hog in until the reference sees enter, out until exit */
static int episode(struct mnotify *ref, int *seen)
{
	long long avail = meminfo("MemAvailable") / 1024;
	int fd = -1, ok;
	pid_t hog = spawn_hog(avail + 16, avail > 48 ? avail - 40 : 8, 16, 1, &fd);

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
	uint64_t rx = now();

	if (ev->type == MNOTIFY_EVENT_PRESSURE_ENTER) {
		add(&lat, rx - ev->timestamp_ns);
		w->wakes++;
	}
	return MNOTIFY_CB_OK;
}

/* acknowledge a report of /dev/mem_notify (an old kernel has no read: harmless) */
static void chardev_ack(int fd)
{
	struct mem_notify_report rep;

	if (read(fd, &rep, sizeof(rep)) < 0)
		return;
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
				add(&wakes_at, now());
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
			add(&wakes_at, now());
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

	qsort(enters.v, enters.n, sizeof(uint64_t), cmp_u64);
	qsort(wakes_at.v, wakes_at.n, sizeof(uint64_t), cmp_u64);
	for (i = 0; i < wakes_at.n; i++) {
		while (j + 1 < enters.n && enters.v[j + 1] <= wakes_at.v[i])
			j++;
		if (enters.n && enters.v[j] <= wakes_at.v[i] &&
		    wakes_at.v[i] - enters.v[j] < 1000000000u)
			add(&lat, wakes_at.v[i] - enters.v[j]);
	}
}

static void *pipe_reader(void *arg)
{
	int fd = *(int *)arg;
	uint64_t ts;

	while (read(fd, &ts, sizeof(ts)) == sizeof(ts))
		add(&lat, now() - ts);
	return NULL;
}

static int cmd_latency(const char *mech, int n)
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
			uint64_t ts = now();

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
	ev0 = vmstat("oom_kill");
	wev0 = read_counter("/sys/kernel/mm/mem_notify/events");
	t0 = now();
	for (i = 0; i < episodes_per_run; i++)
		ok += episode(ref, seen);
	ev1 = vmstat("oom_kill");
	wev1 = read_counter("/sys/kernel/mm/mem_notify/events");
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
	qsort(lat.v, lat.n, sizeof(uint64_t), cmp_u64);
	printf("latency mech=%s n=%d episodes=%d enters=%d exits=%d oom_kills=%lld samples=%zu "
	       "p50_us=%.1f p99_us=%.1f max_us=%.1f wakes=%ld dev_events=%lld "
	       "wakes_per_dev_event=%.2f wakes_per_enter=%.2f "
	       "cpu_us_per_enter=%.1f duration_s=%.1f\n",
	       mech, n, ok, seen[0], seen[1], ev1 - ev0, lat.n,
	       (double)pct(lat.v, lat.n, 0.50) / 1e3, (double)pct(lat.v, lat.n, 0.99) / 1e3,
	       (double)pct(lat.v, lat.n, 1.0) / 1e3, wakes, wev1 - wev0,
	       wev1 > wev0 ? (double)wakes / (double)(wev1 - wev0) : 0.0,
	       seen[0] ? (double)wakes / seen[0] : 0.0,
	       seen[0] ? (double)cpu / 1e3 / seen[0] : 0.0, (double)(now() - t0) / 1e9);
	mnotify_close(ref);
	free(w);
	return 0;

report_floor:
	qsort(lat.v, lat.n, sizeof(uint64_t), cmp_u64);
	printf("latency mech=pipe n=1 samples=%zu p50_us=%.1f p99_us=%.1f max_us=%.1f\n", lat.n,
	       (double)pct(lat.v, lat.n, 0.50) / 1e3, (double)pct(lat.v, lat.n, 0.99) / 1e3,
	       (double)pct(lat.v, lat.n, 1.0) / 1e3);
	return 0;
}

/* --------------------------------------------------------------- lead */

enum src { S_CHARDEV, S_NETLINK, S_PSI70, S_PSI150, S_VMP_LOW, S_VMP_MED, S_OOM, S_NSRC };
static const char *const src_names[] = {
	"chardev", "netlink", "psi_some_70ms", "psi_some_150ms", "vmpressure_low",
	"vmpressure_medium", "oom_kill",
};

static int psi_fd(const char *trig)
{
	int fd = open("/proc/pressure/memory", O_RDWR | O_CLOEXEC);

	if (fd >= 0 && write(fd, trig, strlen(trig) + 1) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* vmpressure of the root memory cgroup (cgroup v1) at @level */
static int vmpressure_fd(const char *v1, const char *level)
{
	char path[256], buf[64];
	int efd, pfd, cfd;

	snprintf(path, sizeof(path), "%s/memory.pressure_level", v1);
	pfd = open(path, O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof(path), "%s/cgroup.event_control", v1);
	cfd = open(path, O_WRONLY | O_CLOEXEC);
	efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (pfd < 0 || cfd < 0 || efd < 0)
		goto fail;
	snprintf(buf, sizeof(buf), "%d %d %s", efd, pfd, level);
	if (write(cfd, buf, strlen(buf)) < 0)
		goto fail;
	close(cfd);
	return efd;	/* pfd stays open: the registration needs it */
fail:
	if (cfd >= 0)
		close(cfd);
	if (efd >= 0)
		close(efd);
	return -1;
}

struct first {
	uint64_t t[S_NSRC];
};

static int lead_cb(const struct mnotify_event *ev, void *arg)
{
	struct first *f = arg;

	if (ev->type == MNOTIFY_EVENT_PRESSURE_ENTER && !f->t[S_NETLINK])
		f->t[S_NETLINK] = ev->timestamp_ns;
	if (ev->type == MNOTIFY_EVENT_OOM_VICTIM && !f->t[S_OOM])
		f->t[S_OOM] = ev->timestamp_ns;
	return MNOTIFY_CB_OK;
}

static int cmd_lead(long long rate, int runs)
{
	const char *v1 = "/tmp/memcg-v1";
	int r, have_v1;

	mkdir(v1, 0755);
	have_v1 = mount("memory", v1, "cgroup", 0, "memory") == 0 ||
		  access("/tmp/memcg-v1/memory.pressure_level", F_OK) == 0;
	if (!have_v1)
		fprintf(stderr, "mnotify-bench: cgroup v1 memory: %s (no vmpressure)\n",
			strerror(errno));

	for (r = 0; r < runs; r++) {
		struct first f = { { 0 } };
		struct mnotify *nl;
		int fds[S_NSRC], i, st, dead = 0;
		long long total = meminfo("MemTotal") / 1024;
		int unrecl = node_unreclaimable();
		uint64_t t0, last_sample = 0;
		pid_t hog;

		for (i = 0; i < S_NSRC; i++)
			fds[i] = -1;
		fds[S_CHARDEV] = open("/dev/mem_notify", O_RDONLY | O_CLOEXEC);
		if (mnotify_open(&nl, MNOTIFY_GROUP_PRESSURE | MNOTIFY_GROUP_OOM))
			return 1;
		fds[S_NETLINK] = mnotify_fd(nl);
		fds[S_PSI70] = psi_fd("some 70000 1000000");
		fds[S_PSI150] = psi_fd("some 150000 1000000");
		if (have_v1) {
			fds[S_VMP_LOW] = vmpressure_fd(v1, "low");
			fds[S_VMP_MED] = vmpressure_fd(v1, "medium");
		}
		sleep(1);
		t0 = now();
		hog = spawn_hog(total * 2, 0, rate, 0, NULL);
		while (!dead && now() - t0 < 300000000000ull) {
			struct pollfd p[S_NSRC];
			int n = 0, idx[S_NSRC];

			for (i = 0; i < S_OOM; i++) {
				if (fds[i] < 0 || (f.t[i] && i != S_NETLINK))
					continue;
				p[n].fd = fds[i];
				p[n].events = (i == S_PSI70 || i == S_PSI150) ? POLLPRI : POLLIN;
				idx[n++] = i;
			}
			poll(p, (nfds_t)n, 100);
			for (i = 0; i < n; i++) {
				int s = idx[i];

				if (!p[i].revents)
					continue;
				if (s == S_NETLINK) {
					mnotify_dispatch(nl, lead_cb, &f);
				} else if (!f.t[s]) {
					f.t[s] = now();
					if (s == S_VMP_LOW || s == S_VMP_MED) {
						uint64_t c;

						if (read(fds[s], &c, sizeof(c)) < 0)
							f.t[s] = 0;
					}
				}
			}
			if (now() - last_sample >= 100000000u) {
				last_sample = now();
				printf("sample wsf=%lld run=%d t_ms=%.1f memfree_kb=%lld memavail_kb=%lld\n",
				       wsf(), r,
				       (double)(last_sample - t0) / 1e6, meminfo("MemFree"),
				       meminfo("MemAvailable"));
			}
			if (waitpid(hog, &st, WNOHANG) == hog)
				dead = 1;
		}
		if (!dead)
			reap(hog);
		/* the oom event may follow the death by a moment */
		for (i = 0; i < 10 && !f.t[S_OOM]; i++)
			mnotify_wait(nl, 100, lead_cb, &f);
		for (i = 0; i < S_NSRC; i++)
			printf("lead wsf=%lld unreclaimable=%d run=%d rate_mb_s=%lld source=%s t_ms=%.1f "
			       "before_oom_ms=%.1f\n", wsf(), unrecl, r, rate, src_names[i], f.t[i] ? (double)(f.t[i] - t0) / 1e6 : -1.0,
			       f.t[i] && f.t[S_OOM] ? ((double)f.t[S_OOM] - (double)f.t[i]) / 1e6 :
						      -1.0);
		fflush(stdout);
		mnotify_close(nl);
		for (i = 0; i < S_NSRC; i++)
			if (fds[i] >= 0 && i != S_NETLINK)
				close(fds[i]);
		sleep(2);
	}
	return 0;
}

/* -------------------------------------------------------------- avoid */

/*
 * OOM avoidance: CACHES cooperating mnotify-cache processes of CACHE_MB
 * each, told by @src, and a workload that needs what is available minus a
 * margin, i.e. more than is left while the caches are held.
 */
#define CACHES 4
#define CACHE_MB 32

static pid_t spawn_out(char *const argv[], int *out)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		int fd = open("/proc/self/oom_score_adj", O_WRONLY);

		if (fd >= 0) {	/* /init runs at -1000; the apps are fair game */
			if (write(fd, "0", 1) < 0)
				_exit(126);
			close(fd);
		}
		dup2(p[1], 1);
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	*out = p[0];
	return pid;
}

static int read_line(int fd, char *buf, size_t len, int timeout_ms)
{
	size_t n = 0;

	while (n + 1 < len) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, timeout_ms) <= 0 || read(fd, buf + n, 1) != 1)
			break;
		if (buf[n++] == '\n')
			break;
	}
	buf[n] = '\0';
	return (int)n;
}

static int cmd_avoid(const char *src, int runs)
{
	int r;

	for (r = 0; r < runs; r++) {
		char mb[24], line[128];
		char *cache_argv[] = { "/usr/bin/mnotify-cache", "-s", (char *)src, "-m", "32",
				       "-n", "mnv-cache", NULL };
		char *work_argv[] = { (char *)hog_path, "-m", mb, "-r", "16", "-a", "0",
				      "-n", "mnv-work", NULL };
		pid_t caches[CACHES], work;
		int outs[CACHES], i, st, ready = 0, dropped = 0, completed;
		long long avail0 = meminfo("MemAvailable") / 1024, k0, k1;
		uint64_t t0;

		for (i = 0; i < CACHES; i++) {
			caches[i] = spawn_out(cache_argv, &outs[i]);
			if (read_line(outs[i], line, sizeof(line), 30000) > 0 &&
			    !strncmp(line, "ready", 5))
				ready++;
		}
		snprintf(mb, sizeof(mb), "%lld", avail0 - 24);
		k0 = vmstat("oom_kill");
		t0 = now();
		work = spawn_out(work_argv, &i);
		close(i);
		completed = 0;
		for (;;) {
			if (waitpid(work, &st, WNOHANG) == work) {
				completed = WIFEXITED(st) && WEXITSTATUS(st) == 0;
				break;
			}
			if (now() - t0 > 180000000000ull) {
				reap(work);
				break;
			}
			usleep(100000);
		}
		k1 = vmstat("oom_kill");
		for (i = 0; i < CACHES; i++) {
			int d = 0;

			/* a cache trims in steps: count caches that gave memory back */
			while (read_line(outs[i], line, sizeof(line), 0) > 0)
				if (!strncmp(line, "dropped", 7))
					d = 1;
			dropped += d;
			reap(caches[i]);
			close(outs[i]);
		}
		printf("avoid wsf=%lld source=%s run=%d caches=%d cache_mb=%d workload_mb=%s ready=%d "
		       "oom_kills=%lld completed=%d caches_dropped=%d duration_s=%.1f\n",
		       wsf(), src, r, CACHES, CACHE_MB, mb, ready, k1 - k0, completed, dropped,
		       (double)(now() - t0) / 1e9);
		sleep(1);
	}
	return 0;
}

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
static int cmd_hotpath(const char *workload, int secs, int reps, int listen)
{
	const int reclaim = !strcmp(workload, "reclaim");
	const int have = access("/dev/mem_notify", F_OK) == 0;
	struct hot_listener l = { .fd = -1, .stop = -1 };
	pthread_t thr;
	size_t len = 4 * 1024 * 1024;
	char *buf = NULL;
	int r, rc = 0;

	if (!reclaim && strcmp(workload, "alloc")) {
		fprintf(stderr, "mnotify-bench: hotpath workload must be alloc or reclaim\n");
		return 2;
	}
	if (reclaim) {
		if (meminfo("SwapTotal") <= 0) {
			fprintf(stderr, "mnotify-bench: hotpath reclaim needs swap\n");
			return 1;
		}
		/* a quarter more than the guest's memory */
		len = (size_t)meminfo("MemTotal") * 1024 / 4 * 5;
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
		long long out0 = vmstat("pswpout"), ev0 = read_counter("/sys/kernel/mm/mem_notify/events");
		uint64_t t0 = now(), pages = 0, t;

		while (now() - t0 < (uint64_t)secs * 1000000000u) {
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
		t = now() - t0;
		printf("hotpath workload=%s secs=%d mem_notify=%d listeners=%d rep=%d pages=%llu "
		       "ns_per_page=%.1f swapped_out=%lld device_events=%lld\n",
		       workload, secs, have, listen, r, (unsigned long long)pages,
		       (double)t / (double)pages, vmstat("pswpout") - out0,
		       have ? read_counter("/sys/kernel/mm/mem_notify/events") - ev0 : 0);
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

int main(int argc, char **argv)
{
	const char *h = getenv("MNOTIFY_HOG"), *e = getenv("MNOTIFY_BENCH_EPISODES");

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (h)
		hog_path = h;
	if (e && atoi(e) > 0)
		episodes_per_run = atoi(e);
	if (argc == 4 && !strcmp(argv[1], "latency"))
		return cmd_latency(argv[2], atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "lead"))
		return cmd_lead(atoll(argv[2]), atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "avoid"))
		return cmd_avoid(argv[2], atoi(argv[3]));
	if (argc == 6 && !strcmp(argv[1], "hotpath"))
		return cmd_hotpath(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
	fprintf(stderr,
		"Usage: mnotify-bench latency poll|sigio|netlink|psi|pipe N\n"
		"       mnotify-bench lead RATE_MB_S RUNS\n"
		"       mnotify-bench avoid none|psi|chardev|netlink RUNS\n"
		"       mnotify-bench hotpath alloc|reclaim SECONDS REPS LISTEN(0|1)\n"
		"Runs in the guest (./mnotify-lab bench); prints key=value result lines.\n");
	return 2;
}
