// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/mem_notify watchers (patches 2 and 4): who is told, and what poll and
 * read() do.  Pressure without a hog: the thresholds are raised above the
 * idle guest's headroom ("999 998 997"), so every node stays at critical
 * and the worker tells files every HZ/5 until they are put back.
 *  - poll has no side effect: a told file stays readable through many
 *    zero-timeout polls and an EPOLL_CTL_ADD until read() acknowledges it;
 *    read() returns a struct mem_notify_report (event, level), then the
 *    file is not readable and a non-blocking read is EAGAIN; a short
 *    buffer is EINVAL; a blocking read() returns once the file is told;
 *  - fairness: 64 files each waited on with poll, epoll and SIGIO (192 in
 *    all) are every one told, within 16 events by the kernel's own event
 *    numbers; no herd and no starvation: every event tells exactly
 *    192 / 16 + 1 = 13 files not told before (the last one the rest);
 *    the rate limit: events are at least HZ/5 apart (by receipt, so with
 *    a margin);
 *  - per-user limit: uid 65534 opens files until EMFILE at
 *    /proc/sys/user/max_mem_notify_watchers (256); a root file opened
 *    after them is still told within 16 events.
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
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "uapi/linux/mem_notify.h"

#define DEV "/dev/mem_notify"
#define THRESH "/sys/kernel/mm/mem_notify/thresholds"
#define LIMIT "/proc/sys/user/max_mem_notify_watchers"
#define PER_MECH 64
#define NR_MECH 3
#define TELL_MS 60000		/* bound on waiting to be told */
/* every file is told within this many events (nr / 16 + 1 per event) */
#define ROUND 16

enum mech { M_POLL, M_EPOLL, M_SIGIO };
static const char *const mname[NR_MECH] = { "poll", "epoll", "SIGIO" };

static long long events_now(void)
{
	return read_ll("/sys/kernel/mm/mem_notify/events");
}

static bool readable_now(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

static int level_now(void)
{
	int fd = open(DEV, O_RDONLY | O_CLOEXEC);
	__u32 l = 99;

	if (fd < 0 || ioctl(fd, MEM_NOTIFY_IOC_GET_LEVEL, &l))
		l = 99;
	if (fd >= 0)
		close(fd);
	return (int)l;
}

/*
 * Wait until told by M and acknowledge with read(); the report's event, or
 * -1 after MS.  A report that timed out before read() (a stopped child) is
 * EAGAIN: wait for the next one.
 */
static long long told(enum mech m, int fd, int ms)
{
	long long end = now_ms() + ms;
	struct mem_notify_report rep;

	for (long long left = ms; left > 0; left = end - now_ms()) {
		if (m == M_SIGIO) {
			struct timespec ts = { left / 1000, (left % 1000) * 1000000L };
			sigset_t set;
			siginfo_t si;

			sigemptyset(&set);
			sigaddset(&set, SIGRTMIN);
			if (sigtimedwait(&set, &si, &ts) != SIGRTMIN)
				return -1;
			if (si.si_fd != fd || si.si_code != POLL_IN)
				return -1;
		} else if (!wait_readable(m == M_POLL ? WAIT_POLL : WAIT_EPOLL, fd, (int)left)) {
			return -1;
		}
		if (read(fd, &rep, sizeof(rep)) == sizeof(rep))
			return rep.level >= MEM_NOTIFY_LEVEL_LOW ? (long long)rep.event : -1;
		if (errno != EAGAIN)
			return -1;
	}
	return -1;
}

static int open_watcher(enum mech m)
{
	int fd = open(DEV, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd >= 0 && m == M_SIGIO) {
		if (fcntl(fd, F_SETOWN, getpid()) || fcntl(fd, F_SETSIG, SIGRTMIN) ||
		    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC)) {
			close(fd);
			return -1;
		}
	}
	return fd;
}

static void poll_and_read(void)
{
	int a = open(DEV, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct mem_notify_report rep;
	struct pollfd pa = { .fd = a, .events = POLLIN };
	int still = 0, ep, n, st;
	struct epoll_event ee = { .events = EPOLLIN };
	long long ev0;
	char small[8];
	pid_t kid;

	if (a < 0)
		tap_bail("open " DEV);
	/* a told file is what says the thresholds took effect: no sleep */
	if (!tap_ok(poll(&pa, 1, TELL_MS) == 1 && (pa.revents & POLLIN),
		    "thresholds 999 998 997: a file is told (level %d)", level_now()))
		return;
	for (int i = 0; i < 100; i++)
		still += readable_now(a);
	tap_ok(still == 100, "poll has no side effect: 100 zero-timeout polls all readable (%d)", still);

	ep = epoll_create1(EPOLL_CLOEXEC);
	ee.data.fd = a;
	n = epoll_ctl(ep, EPOLL_CTL_ADD, a, &ee) == 0 ? epoll_wait(ep, &ee, 1, 0) : -1;
	tap_ok(n == 1 && readable_now(a),
	       "EPOLL_CTL_ADD of a told file: epoll_wait reports it and it stays readable (%d)", n);
	close(ep);

	errno = 0;
	n = (int)read(a, small, sizeof(small));
	int e = errno;
	bool kept = readable_now(a);

	tap_ok(n < 0 && e == EINVAL && kept,
	       "read() with an 8-byte buffer: EINVAL (%s), nothing consumed (%d)",
	       strerror(e), kept);
	ev0 = events_now();
	n = (int)read(a, &rep, sizeof(rep));
	tap_ok(n == (int)sizeof(rep) && rep.event >= 1 && (long long)rep.event <= ev0 &&
	       rep.level == MEM_NOTIFY_LEVEL_CRITICAL && rep.flags == 0,
	       "read() returns the report: %d bytes, event %llu of %lld, level %u, flags 0 (never the OOM candidate: oom_score_adj -1000)",
	       n, (unsigned long long)rep.event, ev0, rep.level);
	bool after = readable_now(a);

	errno = 0;
	n = (int)read(a, &rep, sizeof(rep));
	e = errno;
	tap_ok(!after && n < 0 && e == EAGAIN,
	       "after read(): not readable (%d), a non-blocking read is EAGAIN (%s)",
	       after, strerror(e));
	close(a);

	/* a blocking read of a new file returns once the file is told */
	kid = fork();
	if (kid == 0) {
		int b = open(DEV, O_RDONLY | O_CLOEXEC);

		alarm(TELL_MS / 1000);
		_exit(b >= 0 && read(b, &rep, sizeof(rep)) == sizeof(rep) &&
		      rep.level >= MEM_NOTIFY_LEVEL_LOW ? 0 : 1);
	}
	tap_ok(kid > 0 && wait_pid_timeout(kid, &st, TELL_MS + 5000) == 0 &&
	       WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "a blocking read() returns the report once the file is told");
}

static void fairness(void)
{
	enum { N = NR_MECH * PER_MECH, SHARE = N / 16 + 1 };
	pid_t kids[N];
	int p[2], nk = 0, ready = 0, per[NR_MECH] = { 0 }, got = 0;
	int told_by[ROUND + 1] = { 0 }, bad_share = 0, j;
	long long first_at[ROUND + 1], e0, emax = 0, min_gap = -1, t_first = -1, t_last = -1;
	int nread = 0;
	char line[96];

	/* no event until every file is open: the share per event is exact */
	if (write_file(THRESH, MN_THRESH_DEFAULT "\n"))
		tap_bail("write " THRESH);
	for (j = 0; j < 250 && level_now() != MEM_NOTIFY_LEVEL_NONE; j++)
		poll(NULL, 0, 20);
	if (pipe2(p, O_CLOEXEC) < 0)
		tap_bail("pipe");
	for (int m = 0; m < NR_MECH; m++) {
		for (int i = 0; i < PER_MECH; i++) {
			pid_t k = fork();

			if (k == 0) {
				sigset_t set;
				int fd;

				sigemptyset(&set);
				sigaddset(&set, SIGRTMIN);
				sigprocmask(SIG_BLOCK, &set, NULL);
				fd = open_watcher(m);
				close(p[0]);
				dprintf(p[1], fd >= 0 ? "r\n" : "e\n");
				if (fd < 0)
					_exit(1);
				/* the parent resumes us once all are open */
				raise(SIGSTOP);
				long long ev = told(m, fd, TELL_MS);

				dprintf(p[1], "t %d %lld %lld\n", m, ev, now_ms());
				pause();	/* keep the file open until killed */
				_exit(0);
			}
			if (k > 0)
				kids[nk++] = k;
		}
	}
	close(p[1]);
	for (int i = 0; i < nk; i++)
		if (read_line_timeout(p[0], line, sizeof(line), 30000) > 0 && !strcmp(line, "r\n"))
			ready++;
	/* every file is open and waits from here; count events from now */
	for (int i = 0; i < nk; i++) {
		int st;

		waitpid(kids[i], &st, WUNTRACED);
	}
	e0 = events_now();
	if (write_file(THRESH, "999 998 997\n"))
		tap_bail("write " THRESH);
	for (int i = 0; i < nk; i++)
		kill(kids[i], SIGCONT);
	tap_ok(ready == NR_MECH * PER_MECH, "%d watchers open (64 each on poll, epoll, SIGIO)", ready);
	for (j = 0; j <= ROUND; j++)
		first_at[j] = -1;
	for (int i = 0; i < nk; i++) {
		int m;
		long long ev, at;

		if (read_line_timeout(p[0], line, sizeof(line), TELL_MS + 5000) <= 0 ||
		    sscanf(line, "t %d %lld %lld", &m, &ev, &at) != 3 || m < 0 || m >= NR_MECH)
			break;
		if (ev > 0) {
			per[m]++;
			got++;
			if (ev > emax)
				emax = ev;
			if (ev > e0 && ev - e0 <= ROUND) {
				told_by[ev - e0]++;
				if (first_at[ev - e0] < 0 || at < first_at[ev - e0])
					first_at[ev - e0] = at;
			}
		}
	}
	/*
	 * Every event but the last tells SHARE new files, the last the rest.
	 * A told file that is not read within MEM_NOTIFY_TOLD_TIMEOUT (1 s:
	 * 192 readers on the debug kernel can take that long) becomes
	 * tellable again and reads a later event's number, so an event may
	 * count fewer: a herd is more than SHARE, starvation a file left out
	 * of ROUND events (asserted below).
	 */
	for (j = 1; j <= emax - e0 && j <= ROUND; j++) {
		int want = j < emax - e0 ? SHARE : N - (int)(emax - e0 - 1) * SHARE;

		if (told_by[j] > SHARE)
			bad_share++;
		tap_diag("event %lld told %d new files (%d expected), first read at %lld ms",
			 e0 + j, told_by[j], want, first_at[j]);
		if (j > 1 && first_at[j] >= 0 && first_at[j - 1] >= 0 &&
		    (min_gap < 0 || first_at[j] - first_at[j - 1] < min_gap))
			min_gap = first_at[j] - first_at[j - 1];
		if (first_at[j] >= 0) {
			if (t_first < 0)
				t_first = first_at[j];
			t_last = first_at[j];
			nread++;
		}
	}
	for (int m = 0; m < NR_MECH; m++)
		tap_ok(per[m] == PER_MECH, "fairness: %d of %d %s watchers were told", per[m],
		       PER_MECH, mname[m]);
	tap_ok(got == nk && emax - e0 <= ROUND,
	       "fairness: all %d were told within %lld events (at most %d: 13 per event)",
	       got, emax - e0, ROUND);
	tap_ok(got == nk && !bad_share,
	       "no herd: no event told more than %d files not told before (%d did)",
	       SHARE, bad_share);
	/*
	 * The first read of an event comes some time after the tell: on the
	 * debug kernel one late reader put two first reads 91 ms apart.  So
	 * the span: n events at least HZ/5 apart span (n - 1) * 200 ms, less
	 * the first event's reading delay (margin 100 ms); without the rate
	 * limit they would come every 50 ms (the evaluation interval).
	 */
	tap_ok(nread >= 2 && t_last - t_first >= (nread - 1) * 200LL - 100,
	       "rate limit: events at least HZ/5 apart (%d events' first reads span %lld ms, at least %lld; closest two %lld ms apart)",
	       nread, t_last - t_first, (nread - 1) * 200LL - 100, min_gap);
	for (int i = 0; i < nk; i++)
		kill_reap(kids[i]);
	close(p[0]);
}

static void per_user_limit(void)
{
	long long limit = read_ll(LIMIT), e0, ev;
	int p[2], n = -1, err = 0, st;
	char line[64];
	pid_t k;

	tap_ok(limit == 256, LIMIT " is 256 (%lld)", limit);
	if (pipe2(p, O_CLOEXEC) < 0)
		tap_bail("pipe");
	k = fork();
	if (k == 0) {
		int i = 0;

		close(p[0]);
		if (become_nobody())
			_exit(1);
		while (open(DEV, O_RDONLY) >= 0 && i < 100000)
			i++;
		dprintf(p[1], "%d %d\n", i, errno);
		pause();	/* hold them, never read them */
		_exit(0);
	}
	close(p[1]);
	if (read_line_timeout(p[0], line, sizeof(line), 30000) > 0)
		sscanf(line, "%d %d", &n, &err);
	tap_ok(n == limit && err == EMFILE, "uid 65534 opened %d files, then %s", n, strerror(err));

	int r = open(DEV, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	e0 = events_now();
	ev = r >= 0 ? told(M_POLL, r, TELL_MS) : -1;
	tap_ok(ev > 0 && ev - e0 <= ROUND,
	       "a root file opened after uid 65534's %d is told within %lld events (at most %d)",
	       n, ev > 0 ? ev - e0 : -1, ROUND);
	if (r >= 0)
		close(r);
	kill_reap(k);
	(void)st;
	close(p[0]);
	/* the files are closed with the process: the count went back */
	k = fork();
	if (k == 0) {
		int fd;

		if (become_nobody())
			_exit(1);
		fd = open(DEV, O_RDONLY);
		_exit(fd >= 0 ? 0 : 1);
	}
	tap_ok(k > 0 && wait_pid_timeout(k, &st, 10000) == 0 && WIFEXITED(st) &&
	       WEXITSTATUS(st) == 0, "after uid 65534's files were closed it can open one again");
}

int main(void)
{
	int i;

	protect_self();
	if (write_file(THRESH, "999 998 997\n"))
		tap_bail("write " THRESH);
	poll_and_read();
	fairness();
	per_user_limit();
	tap_ok(write_file(THRESH, MN_THRESH_DEFAULT "\n") == 0, "thresholds put back to " MN_THRESH_DEFAULT);
	/* the worker re-evaluates at once on a threshold change */
	for (i = 0; i < 250 && level_now() != MEM_NOTIFY_LEVEL_NONE; i++)
		poll(NULL, 0, 20);
	tap_ok(level_now() == MEM_NOTIFY_LEVEL_NONE, "back to none (%d)", level_now());
	return tap_done();
}
