// SPDX-License-Identifier: GPL-2.0
/*
 * "You are next" (patch 17): while a node is at critical the kernel tells
 * the task the OOM killer would choose now.  Critical without a hog first
 * (thresholds 999 998 997, as in t-watchers): a small task is told (an
 * OOM_CANDIDATE netlink event; its /dev/mem_notify file polls EPOLLPRI and
 * the library delivers MNOTIFY_EVENT_OOM_CANDIDATE), the warning moves to
 * a bigger task that appears (the first is told it is no longer next; the
 * second gets SIGIO with POLL_PRI), then to the small task once its
 * cgroup's memory.oom.priority is 1000 (reason priority), and it is
 * cleared when the level falls.  Then a real ramp: the hog is warned
 * before the OOM killer kills it.
 */
#define _GNU_SOURCE
#include "guestlib.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mnotify/mnotify.h>
#include "uapi/linux/mem_notify.h"

#define THRESH "/sys/kernel/mm/mem_notify/thresholds"
#define WAIT_MS 15000
#define NEXT MEM_NOTIFY_REPORT_OOM_NEXT
#define CHANGED MEM_NOTIFY_REPORT_OOM_CHANGED

static struct mnotify *nl;

/*
 * The two watchers' sizes: 24 and 64 MB, less where MemAvailable is
 * small (the debug kernel starts with about 75 MB): both must fit
 * together with room to spare, or the OOM killer ends the test.
 */
static int small_mb = 24, big_mb = 64;

/* a bail-out must not leave every node at critical for the next tests */
static void thresholds_back(void)
{
	write_file(THRESH, MN_THRESH_DEFAULT "\n");
}

/* the "oom" group's events so far */
static struct mnotify_event evs[256];
static int nevs;

static int collect(const struct mnotify_event *ev, void *arg)
{
	(void)arg;
	if (nevs < (int)(sizeof(evs) / sizeof(evs[0])))
		evs[nevs++] = *ev;
	return MNOTIFY_CB_OK;
}

/* the first event of @type about @pid after index @from, within WAIT_MS */
static const struct mnotify_event *wait_event(uint32_t type, pid_t pid, int from)
{
	long long end = now_ms() + WAIT_MS;

	for (;;) {
		for (int i = from; i < nevs; i++)
			if (evs[i].type == type && evs[i].u.oom.tgid == (uint32_t)pid)
				return &evs[i];
		if (now_ms() >= end)
			return NULL;
		if (mnotify_wait(nl, 200, collect, NULL) < 0 && errno != EINTR)
			return NULL;
	}
}

static int index_of(const struct mnotify_event *ev)
{
	return ev ? (int)(ev - evs) : nevs;
}

/* the watcher cannot go on: say why on its line, and exit */
static void die(int out, const char *what)
{
	dprintf(out, "failed %s: %s\n", what, strerror(errno));
	_exit(1);
}

/*
 * A task that holds @mb and watches its own /dev/mem_notify file: with
 * @sig, by SIGIO with F_SETSIG (line "sig CODE flags F"); else by poll and
 * the library (line "poll REVENTS flags F type T self S").  "ready" first.
 * With @go >= 0 it says "held" once it holds its memory and opens the
 * device only when a byte arrives on @go.
 */
static void watcher(int mb, bool sig, int go, int out)
{
	size_t len = (size_t)mb << 20;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct mem_notify_report rep;
	struct mnotify *h = NULL;
	char line[128];
	int fd;

	if (p == MAP_FAILED)
		die(out, "mmap");
	if (write_file("/proc/self/oom_score_adj", "0"))
		die(out, "oom_score_adj 0");
	memset(p, 0x5a, len);
	if (go >= 0) {
		char c;

		dprintf(out, "held\n");
		if (read(go, &c, 1) != 1)
			die(out, "read the go byte");
	}
	if (sig) {
		sigset_t set;

		fd = open("/dev/mem_notify", O_RDONLY | O_NONBLOCK);
		sigemptyset(&set);
		sigaddset(&set, SIGRTMIN);
		sigprocmask(SIG_BLOCK, &set, NULL);
		if (fd < 0 || fcntl(fd, F_SETOWN, getpid()) || fcntl(fd, F_SETSIG, SIGRTMIN) ||
		    fcntl(fd, F_SETFL, O_NONBLOCK | O_ASYNC))
			die(out, "open /dev/mem_notify with O_ASYNC");
		dprintf(out, "ready\n");
		for (;;) {
			siginfo_t si;

			if (sigwaitinfo(&set, &si) < 0)
				continue;
			if (read(fd, &rep, sizeof(rep)) != sizeof(rep))
				continue;
			snprintf(line, sizeof(line), "sig %s flags %u\n",
				 si.si_code == POLL_PRI ? "pri" : si.si_code == POLL_IN ? "in" : "other",
				 rep.flags);
			if (write(out, line, strlen(line)) < 0)
				_exit(1);
		}
	}
	/* two files: one read raw after poll, one through the library */
	fd = open("/dev/mem_notify", O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		die(out, "open /dev/mem_notify");
	if (mnotify_open_chardev(&h, NULL))
		die(out, "mnotify_open_chardev");
	dprintf(out, "ready\n");
	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = fd, .events = POLLIN | POLLPRI },
			{ .fd = mnotify_fd(h), .events = POLLIN },
		};

		if (poll(pfd, 2, -1) <= 0)
			continue;
		if (pfd[0].revents) {
			short rev = pfd[0].revents;

			/*
			 * The worker tells the candidate before its pressure
			 * tell, but the next run's change may still come
			 * between poll() and read(), and read() takes it;
			 * poll again first so that the line says what the
			 * file polled when read.
			 */
			if (!(rev & POLLPRI)) {
				struct pollfd again = { .fd = fd, .events = POLLIN | POLLPRI };

				if (poll(&again, 1, 0) > 0)
					rev |= again.revents;
			}
			if (read(fd, &rep, sizeof(rep)) != sizeof(rep))
				continue;
			snprintf(line, sizeof(line), "poll %s flags %u\n",
				 rev & POLLPRI ? "pri" : "in", rep.flags);
			if (write(out, line, strlen(line)) < 0)
				_exit(1);
		}
		if (pfd[1].revents) {
			nevs = 0;
			mnotify_dispatch(h, collect, NULL);
			for (int i = 0; i < nevs; i++) {
				snprintf(line, sizeof(line), "lib %s self %d\n",
					 mnotify_event_name(evs[i].type),
					 mnotify_is_oom_candidate(&evs[i]));
				if (write(out, line, strlen(line)) < 0)
					_exit(1);
			}
		}
	}
}

struct task {
	pid_t pid;
	int out;	/* its lines */
	int go;		/* with @late, the byte that lets it open the device */
	/* lines read but not asked for yet: its two files race */
	char kept[32][128];
	int nkept;
};

/* @t printed @want next, within 30 s; bails out otherwise */
static void expect_line(struct task *t, const char *want)
{
	char line[64] = "";

	if (read_line_timeout(t->out, line, sizeof(line), 30000) <= 0 || strcmp(line, want))
		tap_bail("watcher %d: expected %.*s, got '%s' (killed by the OOM killer?)",
			 t->pid, (int)strlen(want) - 1, want, line);
}

/* a watcher; with @late it holds its memory but opens the device at go() */
static struct task start(int mb, bool sig, bool late)
{
	struct task t = { .pid = -1, .out = -1, .go = -1 };
	int p[2], g[2] = { -1, -1 };

	if (pipe(p) || (late && pipe(g)))
		tap_bail("pipe");
	t.pid = fork();
	if (t.pid < 0)
		tap_bail("fork");
	if (!t.pid) {
		close(p[0]);
		if (late)
			close(g[1]);
		watcher(mb, sig, g[0], p[1]);
	}
	close(p[1]);
	t.out = p[0];
	if (late) {
		close(g[0]);
		t.go = g[1];
		expect_line(&t, "held\n");
	} else {
		expect_line(&t, "ready\n");
	}
	return t;
}

/* let a late watcher open the device */
static void go(struct task *t)
{
	if (write(t->go, "g", 1) != 1)
		tap_bail("write the go byte");
	expect_line(t, "ready\n");
}

/*
 * @t printed @want within WAIT_MS.  Pressure reports ("poll in flags 0",
 * "lib chardev ...") are dropped; other lines are kept for a later call,
 * since the lines of its two files come in either order.
 */
static bool said(struct task *t, const char *want)
{
	long long end = now_ms() + WAIT_MS;
	char line[128];

	for (int i = 0; i < t->nkept; i++)
		if (!strcmp(t->kept[i], want)) {
			memmove(t->kept[i], t->kept[i + 1], (size_t)(t->nkept - i - 1) * sizeof(t->kept[0]));
			t->nkept--;
			return true;
		}
	while (now_ms() < end) {
		if (read_line_timeout(t->out, line, sizeof(line), (int)(end - now_ms())) <= 0)
			return false;
		line[strcspn(line, "\n")] = '\0';
		if (!strcmp(line, want))
			return true;
		if (strcmp(line, "poll in flags 0") && strcmp(line, "sig in flags 0") &&
		    strncmp(line, "lib chardev", 11) &&
		    t->nkept < (int)(sizeof(t->kept) / sizeof(t->kept[0])))
			snprintf(t->kept[t->nkept++], sizeof(t->kept[0]), "%s", line);
	}
	return false;
}

static void stop(struct task *t)
{
	kill_reap(t->pid);
	close(t->out);
	if (t->go >= 0)
		close(t->go);
}

/* the cgroup of @pid, as a directory under /sys/fs/cgroup */
static unsigned long long cgroup_of(pid_t pid)
{
	char f[64], path[700], *s, *c;
	unsigned long long id = 0;

	snprintf(f, sizeof(f), "/proc/%d/cgroup", pid);
	s = read_file(f);
	c = s ? strstr(s, "0::") : NULL;
	if (c) {
		c[strcspn(c, "\n")] = '\0';
		snprintf(path, sizeof(path), "/sys/fs/cgroup%s", c + 3);
		id = cg_id(path);
	}
	free(s);
	return id;
}

static void candidate(const struct mnotify_event *ev, pid_t pid, uint32_t reason,
		      const char *what)
{
	unsigned long long cg = cgroup_of(pid);

	tap_ok(ev && MNOTIFY_HAS(ev, why) && ev->why.reason == reason && ev->u.oom.has_points &&
	       ev->why.cgroup_id == cg && cg,
	       "%s: OOM_CANDIDATE names it (pid %d, reason %s, cgroup %llu = %llu, points %lld)",
	       what, pid, ev ? mnotify_oom_reason_name(ev->why.reason) : "-",
	       ev ? (unsigned long long)ev->why.cgroup_id : 0ULL, cg,
	       ev ? (long long)ev->u.oom.points : 0LL);
}

static void not_hogged(void)
{
	const struct mnotify_event *c, *x;
	int mark;
	char f[800], v[32];

	struct task a = start(small_mb, false, false);

	mark = nevs;
	if (write_file(THRESH, "999 998 997\n"))
		tap_bail("write " THRESH);
	c = wait_event(MNOTIFY_EVENT_OOM_CANDIDATE, a.pid, mark);
	snprintf(f, sizeof(f), "critical, a %d MB task", small_mb);
	candidate(c, a.pid, MNOTIFY_OOM_REASON_BADNESS, f);
	tap_ok(c && c->u.oom.pages >= (uint64_t)small_mb * 256, "its PAGES cover its %d MB (%llu)",
	       small_mb, c ? (unsigned long long)c->u.oom.pages : 0ULL);
	tap_ok(said(&a, "poll pri flags 3"), "its file polls EPOLLPRI, read() has OOM_NEXT | OOM_CHANGED");
	tap_ok(said(&a, "lib candidate self 1"),
	       "the library delivers MNOTIFY_EVENT_OOM_CANDIDATE; mnotify_is_oom_candidate() says 1");

	/*
	 * A bigger task appears: the warning moves.  It opens the device
	 * only once it is the candidate: that file starts out told, and
	 * O_ASYNC on it sends the signal at once.
	 */
	struct task b = start(big_mb, true, true);

	mark = index_of(c) + 1;
	x = wait_event(MNOTIFY_EVENT_OOM_CANDIDATE_CLEAR, a.pid, mark);
	c = wait_event(MNOTIFY_EVENT_OOM_CANDIDATE, b.pid, mark);
	snprintf(f, sizeof(f), "a %d MB task appears", big_mb);
	candidate(c, b.pid, MNOTIFY_OOM_REASON_BADNESS, f);
	tap_ok(x && c && x->seq < c->seq,
	       "the small task's OOM_CANDIDATE_CLEAR comes first (seq %llu < %llu)",
	       x ? (unsigned long long)x->seq : 0ULL, c ? (unsigned long long)c->seq : 0ULL);
	tap_ok(said(&a, "poll in flags 2"), "the small task's file: readable, no EPOLLPRI, OOM_CHANGED alone");
	tap_ok(said(&a, "lib candidate-clear self 0"), "the library: MNOTIFY_EVENT_OOM_CANDIDATE_CLEAR");
	go(&b);
	tap_ok(said(&b, "sig pri flags 3"),
	       "the big task opens the device after it became the candidate: at O_ASYNC its signal with POLL_PRI, OOM_NEXT | OOM_CHANGED");

	/* memory.oom.priority 1000 puts the small one first again */
	const char *cg = cg_make("mnc-first");

	if (!cg)
		tap_bail("mkdir mnc-first");
	snprintf(f, sizeof(f), "%s/memory.oom.priority", cg);
	if (write_file(f, "1000"))
		tap_bail("write %s", f);
	snprintf(f, sizeof(f), "%s/cgroup.procs", cg);
	snprintf(v, sizeof(v), "%d", a.pid);
	mark = index_of(c) + 1;
	if (write_file(f, v))
		tap_bail("move the small task");
	c = wait_event(MNOTIFY_EVENT_OOM_CANDIDATE, a.pid, mark);
	candidate(c, a.pid, MNOTIFY_OOM_REASON_PRIORITY, "its cgroup at memory.oom.priority 1000");
	tap_ok(c && c->why.priority == 1000 && c->why.priority_cgroup_id == cg_id(cg),
	       "the event says where: priority %u, cgroup %llu (= %llu)", c ? c->why.priority : 0,
	       c ? (unsigned long long)c->why.priority_cgroup_id : 0ULL, cg_id(cg));
	tap_ok(said(&b, "sig in flags 2"), "the big task: POLL_IN, OOM_CHANGED alone (no longer next)");
	tap_ok(said(&a, "poll pri flags 3"), "the small task: EPOLLPRI again");

	/* the level falls: cleared */
	mark = index_of(c) + 1;
	if (write_file(THRESH, MN_THRESH_DEFAULT "\n"))
		tap_bail("write " THRESH);
	x = wait_event(MNOTIFY_EVENT_OOM_CANDIDATE_CLEAR, a.pid, mark);
	tap_ok(x != NULL, "thresholds back to " MN_THRESH_DEFAULT ": OOM_CANDIDATE_CLEAR");
	tap_ok(said(&a, "poll in flags 2"), "and its file: OOM_CHANGED alone");
	stop(&a);
	stop(&b);
	rmdir(cg);
}

/* a real ramp: the hog is warned before it is killed */
static void ramp(long long total_mb)
{
	char mb[32];
	char *argv[] = { GUEST_HOG, "-m", mb, "-r", "32", "-n", "mnc-hog", NULL };
	const struct mnotify_event *c, *k;
	int mark = nevs, st = 0;
	pid_t hog;

	snprintf(mb, sizeof(mb), "%lld", total_mb * 2);
	hog = spawn(argv, NULL);
	if (hog < 0)
		tap_bail("spawn the hog");
	c = wait_event(MNOTIFY_EVENT_OOM_CANDIDATE, hog, mark);
	k = wait_event(MNOTIFY_EVENT_OOM_VICTIM, hog, mark);
	if (wait_pid_timeout(hog, &st, WAIT_MS) < 0)
		kill_reap(hog);
	tap_ok(c && k && c->seq < k->seq && k->timestamp_ns > c->timestamp_ns,
	       "a 32 MB/s ramp: the hog is the candidate before the OOM killer kills it (%.0f ms before)",
	       c && k ? (double)(k->timestamp_ns - c->timestamp_ns) / 1e6 : -1.0);
	tap_ok(k && MNOTIFY_HAS(k, why) && k->why.reason == MNOTIFY_OOM_REASON_BADNESS,
	       "the kill says reason badness (%s)", k ? mnotify_oom_reason_name(k->why.reason) : "-");
	/* the candidate is cleared when the level falls after the kill */
	tap_ok(wait_event(MNOTIFY_EVENT_OOM_CANDIDATE_CLEAR, hog, index_of(c) + 1) != NULL,
	       "after the kill the pressure ends: OOM_CANDIDATE_CLEAR for the hog");
}

int main(void)
{
	int err;

	long long avail = meminfo_kb("MemAvailable") / 1024;

	protect_self();
	if (avail / 8 < small_mb)
		small_mb = avail / 8 > 4 ? (int)(avail / 8) : 4;
	if (avail / 3 < big_mb)
		big_mb = (int)(avail / 3);
	if (big_mb < 2 * small_mb + 4)
		tap_bail("MemAvailable %lld MB is too little for two watchers", avail);
	printf("# MemAvailable %lld MB: watchers of %d and %d MB\n", avail, small_mb, big_mb);
	atexit(thresholds_back);
	err = mnotify_open(&nl, MNOTIFY_GROUP_OOM);
	if (err)
		tap_bail("mnotify_open(oom): %s", strerror(-err));
	not_hogged();
	ramp(meminfo_kb("MemTotal") / 1024);
	mnotify_close(nl);
	return tap_done();
}
