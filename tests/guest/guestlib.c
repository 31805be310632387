// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "guestlib.h"

#include <linux/capability.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int tap_failed;

/* one TAP line: newlines inside the text (e.g. from captured output) become spaces */
static void vline(const char *prefix, const char *fmt, va_list ap)
{
	char buf[2048];
	size_t n;

	vsnprintf(buf, sizeof(buf), fmt, ap);
	for (n = 0; buf[n]; n++)
		if (buf[n] == '\n' || buf[n] == '\r')
			buf[n] = ' ';
	while (n && buf[n - 1] == ' ')
		buf[--n] = '\0';
	fputs(prefix, stdout);
	fputs(buf, stdout);
	fputc('\n', stdout);
	fflush(stdout);
}

bool tap_ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline(cond ? "ok - " : "not ok - ", fmt, ap);
	va_end(ap);
	if (!cond)
		tap_failed++;
	return cond;
}

void tap_skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline("ok - # SKIP ", fmt, ap);
	va_end(ap);
}

void tap_diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline("# ", fmt, ap);
	va_end(ap);
}

void tap_bail(const char *fmt, ...)
{
	int e = errno;
	va_list ap;

	printf("not ok - ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(": %s\n", strerror(e));
	fflush(stdout);
	exit(1);
}

int tap_done(void)
{
	return tap_failed ? 1 : 0;
}

long long kv_get(const char *path, const char *key)
{
	size_t klen = strlen(key);
	char line[512];
	long long v = -1;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = line + klen, *end;

		if (strncmp(line, key, klen) || (*p != ' ' && *p != ':'))
			continue;
		if (*p == ':')
			p++;
		errno = 0;
		v = strtoll(p, &end, 10);
		if (errno || end == p)
			v = -1;
		break;
	}
	fclose(f);
	return v;
}

long long vmstat_get(const char *key)
{
	return kv_get("/proc/vmstat", key);
}

long long meminfo_kb(const char *key)
{
	return kv_get("/proc/meminfo", key);
}

long long vmstat_pgscan(void)
{
	return vmstat_get("pgscan_kswapd") + vmstat_get("pgscan_direct");
}

long long vmstat_pgsteal(void)
{
	return vmstat_get("pgsteal_kswapd") + vmstat_get("pgsteal_direct");
}

char *read_file(const char *path)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	ssize_t n;
	int fd;

	if (!buf)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return NULL;
	}
	for (;;) {
		if (cap - len < 2) {
			char *nb = realloc(buf, cap * 2);

			if (!nb)
				goto err;
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto err;
		if (n == 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	return buf;
err:
	close(fd);
	free(buf);
	return NULL;
}

int write_file(const char *path, const char *s)
{
	size_t len = strlen(s);
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = write(fd, s, len);
	if (close(fd) < 0 || n != (ssize_t)len)
		return -1;
	return 0;
}

int create_file(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");
	int bad = !f || fputs(s, f) < 0;

	if (f && fclose(f))
		bad = 1;
	return bad ? -1 : 0;
}

int protect_self(void)
{
	return write_file("/proc/self/oom_score_adj", "-1000");
}

pid_t spawn(char *const argv[], int *ready_fd)
{
	int p[2] = { -1, -1 };
	pid_t pid;

	if (ready_fd && pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		if (ready_fd) {
			close(p[0]);
			close(p[1]);
		}
		return -1;
	}
	if (pid == 0) {
		if (ready_fd && dup2(p[1], 3) < 0)
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	if (ready_fd) {
		close(p[1]);
		*ready_fd = p[0];
	}
	return pid;
}

int read_line_timeout(int fd, char *buf, size_t len, int timeout_ms)
{
	size_t n = 0;

	while (n + 1 < len) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int r = poll(&pfd, 1, timeout_ms);
		ssize_t got;

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got = read(fd, buf + n, 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -1;
		if (got == 0)
			break;
		if (buf[n++] == '\n')
			break;
	}
	buf[n] = '\0';
	return (int)n;
}

int wait_pid_timeout(pid_t pid, int *status, int timeout_ms)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	struct pollfd pfd;
	int r;

	if (pidfd < 0)
		return -1;
	pfd.fd = pidfd;
	pfd.events = POLLIN;
	do
		r = poll(&pfd, 1, timeout_ms);
	while (r < 0 && errno == EINTR);
	close(pidfd);
	if (r <= 0) {
		errno = r == 0 ? ETIMEDOUT : errno;
		return -1;
	}
	return waitpid(pid, status, 0) == pid ? 0 : -1;
}

void kill_reap(pid_t pid)
{
	int st;

	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
}

int zram_swap_on(unsigned int mb)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%uM", mb);
	if (write_file("/sys/block/zram0/disksize", buf) < 0)
		return -1;
	if (system("mkswap /dev/zram0 >/dev/null 2>&1") != 0) {
		errno = EIO;
		return -1;
	}
	return swapon("/dev/zram0", 0);
}

int zram_swap_off(void)
{
	int ret = 0;

	if (swapoff("/dev/zram0") < 0 && errno != EINVAL)
		ret = -1;
	if (write_file("/sys/block/zram0/reset", "1") < 0)
		ret = -1;
	return ret;
}

int zoneinfo_parse(const char *text, struct zone_state *zones, int max)
{
	const char *p = text;
	int n = -1;

	while (p && *p) {
		const char *eol = strchr(p, '\n');
		char line[256];
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		long long v;
		int node;
		char name[16];

		if (len >= sizeof(line))
			len = sizeof(line) - 1;
		memcpy(line, p, len);
		line[len] = '\0';
		p = eol ? eol + 1 : NULL;

		if (sscanf(line, "Node %d, zone %15s", &node, name) == 2) {
			if (n + 1 >= max)
				break;
			n++;
			memset(&zones[n], 0, sizeof(zones[n]));
			zones[n].node = node;
			snprintf(zones[n].name, sizeof(zones[n].name), "%s", name);
			zones[n].mem_notify = -2;
			continue;
		}
		if (n < 0)
			continue;
		if (sscanf(line, " pages free %lld", &v) == 1)
			zones[n].free = v;
		else if (sscanf(line, " high %lld", &v) == 1)
			zones[n].high = v;
		else if (sscanf(line, " low %lld", &v) == 1)
			zones[n].low = v;
		else if (sscanf(line, " present %lld", &v) == 1)
			zones[n].present = v;
		else if (sscanf(line, " mem_notify_status: %lld", &v) == 1)
			zones[n].mem_notify = (int)v;
	}
	return n + 1;
}

int zoneinfo_read(struct zone_state *zones, int max)
{
	char *text = read_file("/proc/zoneinfo");
	int n;

	if (!text)
		return -1;
	n = zoneinfo_parse(text, zones, max);
	free(text);
	return n;
}

int zones_under_pressure(void)
{
	struct zone_state z[MAX_ZONES];
	int n = zoneinfo_read(z, MAX_ZONES), i, c = 0;

	for (i = 0; i < n; i++)
		c += z[i].mem_notify == 1;
	return c;
}

long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

long long read_ll(const char *path)
{
	char *s = read_file(path), *end;
	long long v;

	if (!s)
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s)
		v = -1;
	free(s);
	return v;
}

const char *const wait_mech_name[] = { "poll", "select", "epoll" };

bool wait_readable(enum wait_mech m, int fd, int timeout_ms)
{
	if (m == WAIT_POLL) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		return poll(&p, 1, timeout_ms) == 1 && (p.revents & POLLIN);
	}
	if (m == WAIT_SELECT) {
		struct timeval tv = { .tv_sec = timeout_ms / 1000,
				      .tv_usec = (timeout_ms % 1000) * 1000 };
		fd_set r;

		FD_ZERO(&r);
		FD_SET(fd, &r);
		return select(fd + 1, &r, NULL, NULL, &tv) == 1 && FD_ISSET(fd, &r);
	}
	struct epoll_event ev = { .events = EPOLLIN }, got;
	int ep = epoll_create1(EPOLL_CLOEXEC);
	bool r = ep >= 0 && epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) == 0 &&
		 epoll_wait(ep, &got, 1, timeout_ms) == 1 && (got.events & EPOLLIN);

	if (ep >= 0)
		close(ep);
	return r;
}

bool slow_kernel(void)
{
	const char *f = getenv("MNOTIFY_TIMEOUT_FACTOR");

	return f && atoi(f) > 1;
}

/* ---- running commands ---- */

/* run argv with stdout (and stderr if @err_too) on a pipe */
pid_t spawn_out(char *const argv[], int *out, int err_too)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(p[1], 1);
		if (err_too)
			dup2(p[1], 2);
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	*out = p[0];
	return pid;
}

/* run a command to the end; its output (stdout+stderr) into @buf */
int run(char *const argv[], char *buf, size_t len)
{
	size_t n = 0;
	int fd, st;
	pid_t pid;
	ssize_t r;

	pid = spawn_out(argv, &fd, 1);
	if (pid < 0)
		return -1;
	while (n + 1 < len && (r = read(fd, buf + n, len - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
	close(fd);
	if (wait_pid_timeout(pid, &st, 30000) < 0) {
		kill_reap(pid);
		return -1;
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int become_nobody(void)
{
	return setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	       setresuid(65534, 65534, 65534) ? -1 : 0;
}

/* drop capability @cap (linux/capability.h) from every set of this task */
int drop_cap(int cap)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];
	unsigned int bit = 1u << (cap % 32);

	if (cap < 0 || cap >= 64 || syscall(SYS_capget, &h, d))
		return -1;
	d[cap / 32].effective &= ~bit;
	d[cap / 32].permitted &= ~bit;
	d[cap / 32].inheritable &= ~bit;
	return syscall(SYS_capset, &h, d) ? -1 : 0;
}

/* run() as nobody in a child; its exit status, output in @out */
int run_as_nobody(char *const argv[], char *out, size_t len)
{
	int q[2], st, rc = -1;
	ssize_t n;
	pid_t d;

	if (pipe(q) < 0)
		tap_bail("pipe");
	d = fork();
	if (d == 0) {
		close(q[0]);
		if (become_nobody())
			_exit(99);
		rc = run(argv, out, len);
		dprintf(q[1], "%d|%s", rc, out);
		_exit(0);
	}
	close(q[1]);
	n = read(q[0], out, len - 1);
	out[n > 0 ? n : 0] = '\0';
	close(q[0]);
	if (wait_pid_timeout(d, &st, 30000) < 0)
		kill_reap(d);
	if (n > 0 && strchr(out, '|')) {
		rc = atoi(out);
		memmove(out, strchr(out, '|') + 1, strlen(strchr(out, '|') + 1) + 1);
	}
	return rc;
}

/*
 * Where a test makes its cgroups: under the harness (run-guest-tests with
 * MNOTIFY_CGROUP) a test runs in .../NAME/run and makes them beside "run",
 * so that cgroup.kill of NAME ends them too; run by hand, the root.  The
 * memory controller is enabled for the base's children.
 */
const char *cg_base(void)
{
	static char base[512];
	char *s, *nl;

	if (base[0])
		return base;
	s = read_file("/proc/self/cgroup");
	nl = s ? strstr(s, "0::/") : NULL;
	if (nl) {
		char *p = nl + 3, *slash;

		p[strcspn(p, "\n")] = '\0';
		slash = strrchr(p, '/');
		if (slash && slash != p) {
			*slash = '\0';
			snprintf(base, sizeof(base), "/sys/fs/cgroup%s", p);
		}
	}
	free(s);
	if (!base[0]) {
		snprintf(base, sizeof(base), "/sys/fs/cgroup");
		write_file("/sys/fs/cgroup/cgroup.subtree_control", "+memory");
	}
	return base;
}

/* make cgroup @name under cg_base(); its path (static), NULL on error */
const char *cg_make(const char *name)
{
	static char path[600];

	snprintf(path, sizeof(path), "%s/%s", cg_base(), name);
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return NULL;
	return path;
}

const char *cg_make_limited(const char *name, const char *max)
{
	const char *cg = cg_make(name);
	char f[700];

	if (!cg)
		return NULL;
	snprintf(f, sizeof(f), "%s/memory.max", cg);
	if (write_file(f, max) < 0)
		return NULL;
	snprintf(f, sizeof(f), "%s/memory.swap.max", cg);
	write_file(f, "0");	/* absent without swap accounting */
	return cg;
}

unsigned long long cg_id(const char *path)
{
	union {
		struct file_handle fh;
		char buf[sizeof(struct file_handle) + sizeof(unsigned long long)];
	} h;
	unsigned long long id;
	int mnt;

	h.fh.handle_bytes = sizeof(id);
	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mnt, 0) < 0 ||
	    h.fh.handle_bytes != sizeof(id))
		return 0;
	memcpy(&id, h.fh.f_handle, sizeof(id));
	return id;
}

/* is CONFIG_@opt =y in the kernel the harness built (its .config)? */
bool kconfig_on(const char *opt)
{
	char *cfg = read_file("/etc/mnotify/kernel.config"), want[128];
	bool on;

	snprintf(want, sizeof(want), "\nCONFIG_%s=y\n", opt);
	on = cfg && strstr(cfg, want);
	free(cfg);
	return on;
}

/*
 * A feature of this project's kernel is missing: a failure, unless the
 * kernel was built without it on purpose (CONFIG_@opt off), then a skip.
 */
void feature_missing(const char *opt, const char *what)
{
	if (kconfig_on(opt))
		tap_ok(false, "%s is missing although CONFIG_%s=y", what, opt);
	else
		tap_skip("%s: CONFIG_%s is off in this kernel", what, opt);
}

int node_level(char *name, long long *headroom, long long *thresh)
{
	char *t = read_file("/sys/kernel/mm/mem_notify/levels");
	int node, n;

	n = t ? sscanf(t, "%d %15s %lld %lld", &node, name, headroom, thresh) : 0;
	free(t);
	return n == 4 ? 0 : -1;
}
