// SPDX-License-Identifier: GPL-2.0
/*
 * Levels per memory cgroup (MEM_NOTIFY_CMD_CGROUP_WATCH), raw generic
 * netlink.  Nested cgroups a/b and a sibling a/c: a ramp in b (memory.max
 * 48M) gives b low, medium and critical in order before b's memcg OOM,
 * then none; c, watched too, hears nothing; a limit on a below b's binds b
 * and the event names a; bad input is refused with an extack message;
 * nobody may watch only what it manages (a delegated cgroup.procs); a
 * removed cgroup ends its watch with CGROUP_REMOVED; watches of closed
 * sockets are freed (GET_STATS back to where it was).  Then the same
 * through libmnotify-nl and mnotify-ctl cgroups.  The OOM kill comes to
 * b's watcher as CGROUP_OOM (c's hears nothing) and to the oom group with
 * the cgroups' paths.  A /dev/mem_notify file bound to b follows b's
 * level and hangs up when b is removed.  An unprivileged container (user,
 * network and cgroup namespaces over a delegated subtree) watches its own
 * cgroups, with paths relative to its namespace, and is refused others.
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
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>

#include <mnotify/mnotify.h>
#include "uapi/linux/mem_notify.h"

#define WAIT_MS 60000

static int family;

struct cgev {
	int cmd, sock, level, prev, constraint;
	unsigned long long id, binding, seq, limit, ts, watch, oom_memcg;
	bool removed, has_binding;
	char path[256], bpath[256], opath[256];
};

/* CGROUP_OOM events, of any socket read_msgs() read */
static struct cgev oomevs[16];
static int noomevs;

static long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int nl_open(void)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC), one = 1;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		tap_bail("netlink socket: %s", strerror(errno));
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	return fd;
}

static void put_attr(char *buf, size_t *off, uint16_t type, const void *d, size_t n)
{
	struct nlattr *a = (struct nlattr *)(buf + *off);

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + n;
	memcpy(buf + *off + NLA_HDRLEN, d, n);
	*off += NLA_ALIGN(a->nla_len);
}

static uint32_t seqno = 1;

/* send @cmd with CGROUP_FD @fd (-1: none) and CGROUP_ID @id (0: none) */
static uint32_t send_cmd(int s, int cmd, int fd, unsigned long long id, int flags)
{
	char buf[256] = { 0 };
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	struct genlmsghdr *g = NLMSG_DATA(nh);
	size_t off = NLMSG_HDRLEN + GENL_HDRLEN;

	nh->nlmsg_type = family;
	nh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nh->nlmsg_seq = seqno++;
	g->cmd = cmd;
	g->version = MEM_NOTIFY_GENL_VERSION;
	if (fd >= 0) {
		uint32_t v = fd;

		put_attr(buf, &off, MEM_NOTIFY_A_CGROUP_FD, &v, sizeof(v));
	}
	if (id)
		put_attr(buf, &off, MEM_NOTIFY_A_CGROUP_ID, &id, sizeof(id));
	nh->nlmsg_len = off;
	if (send(s, buf, off, 0) != (ssize_t)off)
		tap_bail("send: %s", strerror(errno));
	return nh->nlmsg_seq;
}

static void parse_level(const struct nlmsghdr *nh, struct cgev *ev)
{
	const struct genlmsghdr *g = NLMSG_DATA(nh);
	const char *p = (const char *)g + GENL_HDRLEN, *end = (const char *)nh + nh->nlmsg_len;

	memset(ev, 0, sizeof(*ev));
	ev->cmd = g->cmd;
	ev->level = ev->prev = ev->constraint = -1;
	while (p + NLA_HDRLEN <= end) {
		const struct nlattr *a = (const struct nlattr *)p;
		const void *d = p + NLA_HDRLEN;
		unsigned long long u64 = 0;
		unsigned int u32 = 0;

		if (a->nla_len < NLA_HDRLEN || p + a->nla_len > end)
			break;
		if (a->nla_len >= NLA_HDRLEN + 8)
			memcpy(&u64, d, 8);
		if (a->nla_len >= NLA_HDRLEN + 4)
			memcpy(&u32, d, 4);
		switch (a->nla_type & NLA_TYPE_MASK) {
		case MEM_NOTIFY_A_LEVEL: ev->level = u32; break;
		case MEM_NOTIFY_A_PREV_LEVEL: ev->prev = u32; break;
		case MEM_NOTIFY_A_SEQ: ev->seq = u64; break;
		case MEM_NOTIFY_A_TIMESTAMP: ev->ts = u64; break;
		case MEM_NOTIFY_A_CGROUP_ID: ev->id = u64; break;
		case MEM_NOTIFY_A_LIMIT: ev->limit = u64; break;
		case MEM_NOTIFY_A_BINDING_CGROUP_ID: ev->binding = u64; ev->has_binding = true; break;
		case MEM_NOTIFY_A_CGROUP_REMOVED: ev->removed = true; break;
		case MEM_NOTIFY_A_WATCH_CGROUP_ID: ev->watch = u64; break;
		case MEM_NOTIFY_A_OOM_MEMCG_ID: ev->oom_memcg = u64; break;
		case MEM_NOTIFY_A_CONSTRAINT: ev->constraint = u32; break;
		case MEM_NOTIFY_A_OOM_MEMCG_PATH:
			snprintf(ev->opath, sizeof(ev->opath), "%.*s", (int)(a->nla_len - NLA_HDRLEN), (const char *)d);
			break;
		case MEM_NOTIFY_A_CGROUP_PATH:
			snprintf(ev->path, sizeof(ev->path), "%.*s", (int)(a->nla_len - NLA_HDRLEN), (const char *)d);
			break;
		case MEM_NOTIFY_A_BINDING_CGROUP_PATH:
			snprintf(ev->bpath, sizeof(ev->bpath), "%.*s", (int)(a->nla_len - NLA_HDRLEN), (const char *)d);
			break;
		}
		p += NLA_ALIGN(a->nla_len);
	}
}

/*
 * Read messages for up to @timeout_ms: CGROUP_LEVEL messages go to @evs
 * (at most @max, count in *@n); returns when the ack of @seq came (its
 * error, extack text in @ext) or, with @seq 0, when an event came;
 * -ETIMEDOUT otherwise.
 */
static int read_msgs(int s, uint32_t seq, int timeout_ms, struct cgev *evs, int max, int *n,
		     char *ext, size_t extlen)
{
	long long end = now_ms() + timeout_ms;
	static char buf[65536];

	if (ext)
		ext[0] = '\0';
	for (;;) {
		struct pollfd pfd = { .fd = s, .events = POLLIN };
		long long left = end - now_ms();
		int got_event = 0;
		ssize_t len;

		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
			return -ETIMEDOUT;
		len = recv(s, buf, sizeof(buf), 0);
		if (len < 0)
			return -errno;
		for (struct nlmsghdr *nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, len); nh = NLMSG_NEXT(nh, len)) {
			if (nh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(nh);

				if (seq && nh->nlmsg_seq != seq)
					continue;
				if (ext && (nh->nlmsg_flags & NLM_F_ACK_TLVS)) {
					size_t hl = NLMSG_HDRLEN + sizeof(*e) +
						    ((nh->nlmsg_flags & NLM_F_CAPPED) ? 0 :
						     e->msg.nlmsg_len - NLMSG_HDRLEN);
					const char *p = (const char *)nh + NLMSG_ALIGN(hl);

					while (p + NLA_HDRLEN <= (const char *)nh + nh->nlmsg_len) {
						const struct nlattr *a = (const struct nlattr *)p;

						if (a->nla_len < NLA_HDRLEN)
							break;
						if (a->nla_type == NLMSGERR_ATTR_MSG)
							snprintf(ext, extlen, "%s", p + NLA_HDRLEN);
						p += NLA_ALIGN(a->nla_len);
					}
				}
				return e->error;
			}
			if (nh->nlmsg_type == family) {
				const struct genlmsghdr *g = NLMSG_DATA(nh);

				if (g->cmd == MEM_NOTIFY_CMD_CGROUP_LEVEL && *n < max) {
					parse_level(nh, &evs[(*n)++]);
					got_event = 1;
				}
				if (g->cmd == MEM_NOTIFY_CMD_CGROUP_OOM &&
				    noomevs < (int)(sizeof(oomevs) / sizeof(oomevs[0]))) {
					parse_level(nh, &oomevs[noomevs]);
					oomevs[noomevs++].sock = s;
				}
			}
		}
		if (!seq && got_event)
			return 0;
	}
}

/* CGROUP_WATCH of @path on @s: the error, the reply in *@st */
static int watch(int s, const char *path, struct cgev *st, char *ext, size_t extlen)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), n = 0, err;
	struct cgev tmp;

	if (fd < 0)
		return -errno;
	err = read_msgs(s, send_cmd(s, MEM_NOTIFY_CMD_CGROUP_WATCH, fd, 0, 0), 10000,
			st ? st : &tmp, 1, &n, ext, extlen);
	close(fd);
	if (!err && n != 1)
		return -EBADMSG;
	return err;
}

/* the count of cgroup watches (GET_STATS) */
static long long stats_watches(int s)
{
	char buf[256] = { 0 };
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	struct genlmsghdr *g = NLMSG_DATA(nh);
	static char rb[8192];
	long long end = now_ms() + 10000;

	nh->nlmsg_type = family;
	nh->nlmsg_flags = NLM_F_REQUEST;
	nh->nlmsg_seq = seqno++;
	nh->nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN;
	g->cmd = MEM_NOTIFY_CMD_GET_STATS;
	g->version = MEM_NOTIFY_GENL_VERSION;
	if (send(s, buf, nh->nlmsg_len, 0) < 0)
		return -1;
	while (now_ms() < end) {
		struct pollfd pfd = { .fd = s, .events = POLLIN };
		ssize_t len;

		if (poll(&pfd, 1, 1000) <= 0)
			continue;
		len = recv(s, rb, sizeof(rb), 0);
		for (struct nlmsghdr *m = (struct nlmsghdr *)rb; len > 0 && NLMSG_OK(m, len);
		     m = NLMSG_NEXT(m, len)) {
			const char *p, *e;

			if (m->nlmsg_type != family || m->nlmsg_seq != nh->nlmsg_seq)
				continue;
			p = (const char *)NLMSG_DATA(m) + GENL_HDRLEN;
			e = (const char *)m + m->nlmsg_len;
			while (p + NLA_HDRLEN <= e) {
				const struct nlattr *a = (const struct nlattr *)p;
				unsigned int v;

				if (a->nla_len < NLA_HDRLEN)
					break;
				if (a->nla_type == MEM_NOTIFY_A_STATS_CGROUP_WATCHES) {
					memcpy(&v, p + NLA_HDRLEN, 4);
					return v;
				}
				p += NLA_ALIGN(a->nla_len);
			}
			return -1;
		}
	}
	return -1;
}

struct oom_seen {
	int got;
	struct mnotify_event ev;
};

static int on_oom(const struct mnotify_event *ev, void *arg)
{
	struct oom_seen *os = arg;

	if (ev->type == MNOTIFY_EVENT_OOM_VICTIM && !os->got &&
	    !strcmp(ev->u.oom.comm, "cg-hog")) {
		os->got = 1;
		os->ev = *ev;
	}
	return MNOTIFY_CB_OK;
}

struct lib_seen {
	int state;
	struct mnotify_cgroup st;
};

static int on_lib(const struct mnotify_event *ev, void *arg)
{
	struct lib_seen *ls = arg;

	if (ev->type == MNOTIFY_EVENT_CGROUP_STATE && MNOTIFY_HAS(ev, cgroup) && !ls->state) {
		ls->state = 1;
		ls->st = ev->cgroup;
	}
	return MNOTIFY_CB_OK;
}

/* MEM_NOTIFY_IOC_BIND_CGROUP of the device file @dev to @path: 0 or -errno */
static int bind_dev(int dev, const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (ioctl(dev, MEM_NOTIFY_IOC_BIND_CGROUP, &fd))
		err = -errno;
	close(fd);
	return err;
}

/*
 * An unprivileged container's agent, in a child: uid 65534 becomes root
 * of a new user namespace with its own network namespace and a cgroup
 * namespace rooted at @ct (delegated to 65534: it owns ct, ct/init and
 * ct/mine, not ct/theirs).  It watches ct/mine (the path "/mine"), is
 * refused ct/theirs (EACCES) and @sibling (outside its namespace:
 * ENOENT), and binds a device file the same way.  Returns an exit status:
 * 0 as expected, else which step failed (diagnostics on stdout).
 */
static int container(const char *ct, const char *sibling)
{
	char f[900], mine[900], theirs[900], ext[256] = "", ext2[256] = "";
	int s, fam, e_mine, e_theirs, e_sib, b_mine, b_theirs, dev, bad = 0;
	struct nl_sock *nls;
	struct cgev st = { 0 };

#define STEP(n, ok) do { if (!(ok)) { \
		printf("# container: step %d failed: %s\n", n, strerror(errno)); \
		fflush(stdout); return n; } } while (0)
	snprintf(f, sizeof(f), "%s/cgroup.procs", ct);
	STEP(10, write_file(f, "0") >= 0);
	/* dumpable again after the change of uid: /proc/self/uid_map is ours */
	STEP(11, !become_nobody() && !prctl(PR_SET_DUMPABLE, 1, 0, 0, 0));
	STEP(12, !unshare(CLONE_NEWUSER));
	STEP(13, write_file("/proc/self/setgroups", "deny") >= 0 &&
		 write_file("/proc/self/uid_map", "0 65534 1") >= 0 &&
		 write_file("/proc/self/gid_map", "0 65534 1") >= 0);
	STEP(14, !unshare(CLONE_NEWNET | CLONE_NEWCGROUP));
	/* as the container's root: out of ct, memory for its children */
	snprintf(f, sizeof(f), "%s/init/cgroup.procs", ct);
	STEP(15, write_file(f, "0") >= 0);
	snprintf(f, sizeof(f), "%s/cgroup.subtree_control", ct);
	STEP(16, write_file(f, "+memory") >= 0);
#undef STEP
	nls = nl_socket_alloc();
	if (!nls || genl_connect(nls) ||
	    (fam = genl_ctrl_resolve(nls, MEM_NOTIFY_GENL_NAME)) < 0) {
		printf("# container: no mem_notify family in its network namespace\n");
		return 17;
	}
	nl_socket_free(nls);
	family = fam;
	s = nl_open();
	snprintf(mine, sizeof(mine), "%s/mine", ct);
	snprintf(theirs, sizeof(theirs), "%s/theirs", ct);
	e_mine = watch(s, mine, &st, NULL, 0);
	e_theirs = watch(s, theirs, NULL, ext, sizeof(ext));
	e_sib = watch(s, sibling, NULL, ext2, sizeof(ext2));
	dev = open("/dev/mem_notify", O_RDONLY | O_CLOEXEC);
	b_theirs = dev < 0 ? -EBADF : bind_dev(dev, theirs);
	b_mine = dev < 0 ? -EBADF : bind_dev(dev, mine);
	printf("# container: watch mine %d (\"%s\"), theirs %d (\"%s\"), sibling %d (\"%s\"); bind theirs %d, mine %d\n",
	       e_mine, st.path, e_theirs, ext, e_sib, ext2, b_theirs, b_mine);
	fflush(stdout);
	if (e_mine || strcmp(st.path, "/mine"))
		bad |= 1;
	if ((e_theirs != -EACCES && e_theirs != -EPERM) || !*ext)
		bad |= 2;
	if (e_sib != -ENOENT || !*ext2)
		bad |= 4;
	if ((b_theirs != -EACCES && b_theirs != -EPERM) || b_mine)
		bad |= 8;
	return bad;
}

static void set(const char *cg, const char *file, const char *v)
{
	char f[800];

	snprintf(f, sizeof(f), "%s/%s", cg, file);
	if (write_file(f, v) < 0)
		tap_bail("write %s to %s: %s", v, f, strerror(errno));
}

int main(void)
{
	struct cgev evs[64], st;
	char ext[256], cmd[1024];
	struct nl_sock *ns;
	int s1, s2, n = 0, n2 = 0, err, status;
	long long w0;

	protect_self();
	ns = nl_socket_alloc();
	if (!ns || genl_connect(ns) || (family = genl_ctrl_resolve(ns, MEM_NOTIFY_GENL_NAME)) < 0)
		tap_bail("no generic netlink family mem_notify");
	nl_socket_free(ns);

	s1 = nl_open();
	s2 = nl_open();
	w0 = stats_watches(s1);
	tap_ok(w0 >= 0, "GET_STATS counts cgroup watches (%lld)", w0);

	/* a/b (48M) and a/c, no limit on a yet */
	const char *base = cg_base();
	char a[600], b[700], c[700];

	snprintf(a, sizeof(a), "%s/cga", base);
	mkdir(a, 0755);
	set(a, "cgroup.subtree_control", "+memory");
	snprintf(b, sizeof(b), "%s/cgb", a);
	snprintf(c, sizeof(c), "%s/cgc", a);
	mkdir(b, 0755);
	mkdir(c, 0755);
	set(b, "memory.max", "48M");
	{
		char f[800];

		snprintf(f, sizeof(f), "%s/memory.swap.max", b);
		write_file(f, "0");
	}

	/* bad input first */
	err = read_msgs(s1, send_cmd(s1, MEM_NOTIFY_CMD_CGROUP_WATCH, -1, 0, 0), 10000, evs, 0, &n,
			ext, sizeof(ext));
	tap_ok(err == -EINVAL, "WATCH without CGROUP_FD: EINVAL (%d, \"%s\")", err, ext);
	err = watch(s1, "/sys/fs/cgroup", NULL, ext, sizeof(ext));
	tap_ok(err == -EINVAL && strstr(ext, "root"), "the root cgroup: EINVAL, \"%s\"", ext);
	err = watch(s1, "/tmp", NULL, ext, sizeof(ext));
	tap_ok(err == -EBADF && *ext, "a directory that is no cgroup: EBADF, \"%s\"", ext);

	err = watch(s1, b, &st, ext, sizeof(ext));
	tap_ok(!err && st.level == 0 && st.id == cg_id(b) && st.has_binding && st.binding == cg_id(b),
	       "watch a/b: level none now, bound by its own limit (%d, level %d, binding %s)",
	       err, st.level, st.bpath);
	tap_ok(strstr(st.path, "/cga/cgb") != NULL, "the path relative to the cgroup namespace: %s",
	       st.path);
	err = watch(s1, b, NULL, ext, sizeof(ext));
	tap_ok(err == -EEXIST, "the same cgroup twice on one socket: EEXIST, \"%s\"", ext);
	err = watch(s2, c, &st, ext, sizeof(ext));
	tap_ok(!err && !st.has_binding && st.level == 0,
	       "watch a/c from another socket: no limit on its way up, none (%d)", err);
	tap_ok(stats_watches(s1) == w0 + 2, "GET_STATS: two more watches");

	/* nobody: refused for b, allowed for a/cgd whose cgroup.procs it owns */
	{
		char d[800], f[900];

		snprintf(d, sizeof(d), "%s/cgd", a);
		mkdir(d, 0755);
		snprintf(f, sizeof(f), "%s/cgroup.procs", d);
		if (chown(f, 65534, 65534) || chown(d, 65534, 65534))
			tap_bail("chown %s: %s", d, strerror(errno));
		pid_t p = fork();

		if (p == 0) {
			int s, e1, e2;

			if (become_nobody())
				_exit(90);
			int dev = open("/dev/mem_notify", O_RDONLY | O_CLOEXEC), b1, b2;

			s = nl_open();
			e1 = watch(s, b, NULL, ext, sizeof(ext));
			e2 = watch(s, d, NULL, NULL, 0);
			b1 = bind_dev(dev, b);
			b2 = bind_dev(dev, d);
			printf("# nobody: b %d \"%s\", d %d; device file bound to b %d, to d %d\n",
			       e1, ext, e2, b1, b2);
			fflush(stdout);
			_exit(((e1 == -EACCES || e1 == -EPERM) && *ext ? 0 : 1) | (e2 ? 2 : 0) |
			      (b1 == -EACCES || b1 == -EPERM ? 0 : 4) | (b2 ? 8 : 0));
		}
		int waited = p > 0 ? wait_pid_timeout(p, &status, 30000) : -1;

		tap_ok(!waited && WIFEXITED(status) && WEXITSTATUS(status) == 0,
		       "nobody may not watch a/b or bind a device file to it (EACCES), may both for a delegated a/cgd (exit %d)",
		       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		rmdir(d);
	}

	/* an unprivileged container over a delegated subtree a/ct */
	{
		static const char *const own[] = {
			"", "/cgroup.procs", "/cgroup.subtree_control", "/init",
			"/init/cgroup.procs", "/mine", "/mine/cgroup.procs",
		};
		char ct[800], f[900];

		snprintf(ct, sizeof(ct), "%s/ct", a);
		const char *const dirs[] = { "", "/init", "/mine", "/theirs" };

		for (size_t i = 0; i < 4; i++) {
			snprintf(f, sizeof(f), "%s%s", ct, dirs[i]);
			if (mkdir(f, 0755))
				tap_bail("mkdir %s: %s", f, strerror(errno));
		}
		for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
			snprintf(f, sizeof(f), "%s%s", ct, own[i]);
			if (chown(f, 65534, 65534))
				tap_bail("chown %s: %s", f, strerror(errno));
		}
		pid_t p = fork();
		int waited;

		if (p == 0)
			_exit(container(ct, c));
		waited = p > 0 ? wait_pid_timeout(p, &status, 30000) : -1;
		tap_ok(!waited && WIFEXITED(status) && WEXITSTATUS(status) == 0,
		       "an unprivileged container (user, net and cgroup namespaces) watches its own cgroup as \"/mine\", is refused its parent's (EACCES) and a sibling's (ENOENT), binds a device file likewise (exit %d)",
		       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		for (size_t i = 4; i-- > 0;) {
			snprintf(f, sizeof(f), "%s%s", ct, dirs[i]);
			if (rmdir(f))
				tap_diag("rmdir %s: %s", f, strerror(errno));
		}
	}

	/* a device file bound to a/b, and bad bindings */
	int dev = open("/dev/mem_notify", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	unsigned int dlevel = 9;

	if (dev < 0)
		tap_bail("open /dev/mem_notify: %s", strerror(errno));
	tap_ok(bind_dev(dev, "/sys/fs/cgroup") == -EINVAL && bind_dev(dev, "/tmp") == -EBADF,
	       "binding a device file to the root cgroup: EINVAL; to a directory that is no cgroup: EBADF");
	err = bind_dev(dev, b);
	{
		int gl = ioctl(dev, MEM_NOTIFY_IOC_GET_LEVEL, &dlevel), busy = bind_dev(dev, c);

		tap_ok(!err && !gl && dlevel == 0 && busy == -EBUSY,
		       "a device file bound to a/b: GET_LEVEL is a/b's (%u), a second binding EBUSY (%d, %d)",
		       dlevel, err, busy);
	}

	/* a ramp in b to its memcg OOM; the oom group says which memcg ran out */
	struct mnotify *oomh = NULL;

	if (mnotify_open(&oomh, MNOTIFY_GROUP_OOM))
		tap_bail("join the oom group");
	n = 0;
	/*
	 * 16 MB/s crosses medium's band (4% of 48 MB) in some 120 ms, about
	 * one re-evaluation (100 ms while above none): the debug kernel's
	 * worker once went from low to critical in one step, so there the
	 * ramp goes at 4 MB/s
	 */
	snprintf(cmd, sizeof(cmd), "echo $$ > %s/cgroup.procs && exec " GUEST_HOG
		 " -m 96 -r %d -a 0 -n cg-hog", b, slow_kernel() ? 4 : 16);
	char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	pid_t hog = spawn(argv, NULL);
	int levels_seen[4] = { 0 }, order_ok = 1, last = 0;
	bool killed = false;

	if (hog < 0)
		tap_bail("spawn the hog");
	long long end = now_ms() + WAIT_MS;

	struct mem_notify_report rep;
	long long dev_first_ns = 0;
	unsigned int dev_max = 0, dev_reports = 0, dev_cgroup_flag = 1;

	while (now_ms() < end && !killed) {
		int st2;

		read_msgs(s1, 0, 50, evs, 64, &n, NULL, 0);
		/* the bound device file, read as it is told */
		while (read(dev, &rep, sizeof(rep)) == sizeof(rep)) {
			dev_reports++;
			if (!(rep.flags & MEM_NOTIFY_REPORT_CGROUP))
				dev_cgroup_flag = 0;
			if (rep.level > 0 && !dev_first_ns)
				dev_first_ns = mono_ns();
			if (rep.level > dev_max)
				dev_max = rep.level;
		}
		if (waitpid(hog, &st2, WNOHANG) == hog)
			killed = WIFSIGNALED(st2) && WTERMSIG(st2) == SIGKILL;
	}
	if (!killed)
		kill_reap(hog);
	tap_ok(killed, "the hog in a/b was OOM-killed (memcg OOM)");

	struct oom_seen os = { 0 };

	for (long long e2 = now_ms() + 5000; !os.got && now_ms() < e2;)
		mnotify_wait(oomh, 200, on_oom, &os);
	mnotify_close(oomh);
	tap_ok(os.got && os.ev.u.oom.constraint == MNOTIFY_CONSTRAINT_MEMCG &&
	       os.ev.why.oom_memcg_id == cg_id(b) && os.ev.why.cgroup_id == cg_id(b),
	       "its OOM event: constraint memcg, the memcg that ran out and the victim's are a/b (%s)",
	       os.got ? mnotify_constraint_name(os.ev.u.oom.constraint) : "no event");
	tap_ok(os.got && MNOTIFY_HAS(&os.ev, oom_cgroups) &&
	       strstr(os.ev.oom_cgroups.path, "/cga/cgb") &&
	       strstr(os.ev.oom_cgroups.oom_memcg_path, "/cga/cgb"),
	       "... with their paths: victim's %s, ran out %s", os.ev.oom_cgroups.path,
	       os.ev.oom_cgroups.oom_memcg_path);
	tap_ok(dev_first_ns && os.got && dev_first_ns < (long long)os.ev.timestamp_ns &&
	       dev_max >= 1 && dev_cgroup_flag,
	       "the device file bound to a/b was told before the kill: %lld ms before, up to level %u, %u reports all with REPORT_CGROUP",
	       os.got && dev_first_ns ? ((long long)os.ev.timestamp_ns - dev_first_ns) / 1000000 : -1,
	       dev_max, dev_reports);

	/* the kill to a/b's watcher, as CGROUP_OOM */
	int oi = -1;

	for (long long e2 = now_ms() + 5000; oi < 0 && now_ms() < e2;) {
		read_msgs(s1, 0, 200, evs, 64, &n, NULL, 0);
		for (int i = 0; i < noomevs; i++)
			if (oomevs[i].sock == s1)
				oi = i;
	}
	tap_ok(oi >= 0 && oomevs[oi].watch == cg_id(b) && oomevs[oi].id == cg_id(b) &&
	       oomevs[oi].oom_memcg == cg_id(b) &&
	       oomevs[oi].constraint == MEM_NOTIFY_OOM_CONSTRAINT_MEMCG &&
	       strstr(oomevs[oi].path, "/cga/cgb") && strstr(oomevs[oi].opath, "/cga/cgb") &&
	       os.got && oomevs[oi].seq == os.ev.seq,
	       "a/b's watcher got CGROUP_OOM: watch a/b, victim's and OOM memcg %s, the oom group's seq",
	       oi >= 0 ? oomevs[oi].opath : "none");

	/* recovery: back to none */
	while (now_ms() < end && (!n || evs[n - 1].level != 0))
		read_msgs(s1, 0, 500, evs, 64, &n, NULL, 0);
	/* the events time-stamped before the kill's (both CLOCK_MONOTONIC) */
	int at_kill = 0;

	for (int i = 0; i < n; i++) {
		tap_diag("a/b event %d: seq %llu level %d prev %d at %+lld ms from the kill, binding %s",
			 i, evs[i].seq, evs[i].level, evs[i].prev,
			 os.got ? ((long long)evs[i].ts - (long long)os.ev.timestamp_ns) / 1000000 : 0,
			 evs[i].bpath);
		if (!os.got || evs[i].ts >= os.ev.timestamp_ns)
			continue;
		at_kill++;
		if (evs[i].level <= last || evs[i].prev != last)
			order_ok = 0;
		last = evs[i].level;
		if (evs[i].level >= 0 && evs[i].level < 4)
			levels_seen[evs[i].level]++;
	}
	tap_ok(levels_seen[1] == 1 && levels_seen[2] == 1 && levels_seen[3] == 1 && order_ok,
	       "a/b: low, medium, critical, each once and in order, before the kill (%d events)",
	       at_kill);
	tap_ok(n > at_kill && evs[n - 1].level == 0, "a/b back to none after the kill");
	tap_ok(read_msgs(s2, 0, 300, evs, 64, &n2, NULL, 0) == -ETIMEDOUT && n2 == 0,
	       "a/c heard nothing");
	{
		int other = 0;

		for (int i = 0; i < noomevs; i++)
			other += oomevs[i].sock == s2;
		tap_ok(!other, "a/c's watcher got no CGROUP_OOM (%d)", other);
	}

	/* a limit on a below b's: a binds b */
	set(a, "memory.max", "32M");
	n = 0;
	read_msgs(s1, 0, 2000, evs, 64, &n, NULL, 0);
	{
		int s3 = nl_open();

		err = watch(s3, b, &st, ext, sizeof(ext));
		tap_ok(!err && st.has_binding && st.binding == cg_id(a) && strstr(st.bpath, "/cga") &&
		       st.limit == 32 * 256,
		       "with memory.max 32M on a, a's limit binds a/b: %s, %llu pages", st.bpath,
		       st.limit);
		close(s3);
	}

	/* the library and the CLI, on a/b still bound by a */
	{
		struct mnotify *h = NULL;
		struct lib_seen ls = { 0 };
		char out[4096];
		char *ctl[] = { "/usr/bin/mnotify-ctl", "cgroups", b, NULL };
		int rc;

		tap_ok(mnotify_open(&h, 0) == 0 && mnotify_watch_cgroup_path(h, b) == 0,
		       "libmnotify-nl: a handle with no group watches a/b by path");
		for (long long e2 = now_ms() + 10000; !ls.state && now_ms() < e2;)
			mnotify_wait(h, 500, on_lib, &ls);
		tap_ok(ls.state && ls.st.id == cg_id(b) && ls.st.level == MNOTIFY_LEVEL_NONE &&
		       ls.st.has_limit && ls.st.binding_id == cg_id(a) &&
		       strstr(ls.st.binding_path, "/cga") && strstr(ls.st.path, "/cga/cgb"),
		       "... its CGROUP_STATE: %s level %s, binding %s", ls.st.path,
		       mnotify_level_name(ls.st.level), ls.st.binding_path);
		err = mnotify_watch_cgroup_path(h, b);
		tap_ok(err == -EEXIST && *mnotify_ext_ack(h),
		       "... twice: -EEXIST, \"%s\"", mnotify_ext_ack(h));
		err = mnotify_get_cgroups(h);
		tap_ok(err >= 1, "mnotify_get_cgroups(): %d watches (root sees all)", err);
		tap_ok(mnotify_unwatch_cgroup(h, cg_id(b)) == 0 &&
		       mnotify_unwatch_cgroup(h, cg_id(b)) == -ENOENT,
		       "mnotify_unwatch_cgroup(): once, then -ENOENT");
		mnotify_close(h);
		rc = run(ctl, out, sizeof(out));
		tap_ok(rc == 0 && strstr(out, "/cga/cgb level none") && strstr(out, "binding") &&
		       strstr(out, "limit 8192"),
		       "mnotify-ctl cgroups a/b: \"%.*s\"", (int)strcspn(out, "\n"), out);
	}

	/* removal while watched */
	unsigned long long bid = cg_id(b);

	n = 0;
	if (rmdir(b))
		tap_diag("rmdir %s: %s", b, strerror(errno));
	/* css offline follows rmdir after an RCU grace period: seconds under debug */
	err = read_msgs(s1, 0, 60000, evs, 64, &n, NULL, 0);
	tap_ok(!err && n >= 1 && evs[n - 1].removed && evs[n - 1].id == bid && evs[n - 1].level == 0,
	       "rmdir a/b: a last event with CGROUP_REMOVED (%d events)", n);
	{
		struct pollfd pfd = { .fd = dev, .events = POLLIN };
		int pr = poll(&pfd, 1, 60000), r1 = -1, r2;

		memset(&rep, 0, sizeof(rep));
		/* reports of the level before the removal may come first */
		for (int i = 0; i < 16; i++) {
			r1 = read(dev, &rep, sizeof(rep));
			if (r1 != sizeof(rep) || (rep.flags & MEM_NOTIFY_REPORT_CGROUP_REMOVED))
				break;
		}
		{
			struct mem_notify_report tmp;

			r2 = read(dev, &tmp, sizeof(tmp)) == 0 ? 0 : -1;
		}
		tap_ok(pr == 1 && (pfd.revents & POLLHUP) && r1 == sizeof(rep) &&
		       (rep.flags & MEM_NOTIFY_REPORT_CGROUP_REMOVED) && rep.level == 0 && r2 == 0,
		       "the bound device file hangs up: POLLHUP, a report with CGROUP_REMOVED, then end of file (revents %#x)",
		       pfd.revents);
		close(dev);
	}
	/*
	 * 1,000 cgroups watched on one socket, then removed (200 on the
	 * debug kernel: its memory cgroups cost several times more, and 256
	 * MB do not hold 1,000 of them; creation stops, and the test fails,
	 * before MemAvailable falls under 40 MB instead of an OOM with
	 * nothing to kill)
	 */
	{
		int s = nl_open(), watched = 0, removed = 0, nn, want = slow_kernel() ? 200 : 1000;
		char d[800];
		struct cgev ev1[64];
		long long w1, t0 = now_ms();

		set(a, "memory.max", "max");
		int made = 0;

		for (int i = 0; i < want; i++) {
			snprintf(d, sizeof(d), "%s/m%d", c, i);
			if (i == 0)
				set(c, "cgroup.subtree_control", "+memory");
			if (i % 50 == 0 && meminfo_kb("MemAvailable") < 40 * 1024) {
				tap_diag("MemAvailable under 40 MB after %d cgroups: stopped", i);
				break;
			}
			if (mkdir(d, 0755) == 0) {
				made++;
				if (watch(s, d, NULL, NULL, 0) == 0)
					watched++;
			}
		}
		w1 = stats_watches(s1);
		tap_ok(watched == want && w1 == w0 + 1 + want,
		       "%d cgroups watched on one socket (%d; GET_STATS %lld)", want, watched, w1);
		for (int i = 0; i < made; i++) {
			snprintf(d, sizeof(d), "%s/m%d", c, i);
			rmdir(d);
		}
		for (long long e2 = now_ms() + 60000; removed < made && now_ms() < e2;) {
			nn = 0;
			if (read_msgs(s, 0, 2000, ev1, 64, &nn, NULL, 0) == -ETIMEDOUT)
				break;
			for (int i = 0; i < nn; i++)
				removed += ev1[i].removed;
		}
		for (long long e2 = now_ms() + 30000; now_ms() < e2 && stats_watches(s1) != w0 + 1;)
			read_msgs(s, 0, 200, ev1, 64, &nn, NULL, 0);
		tap_diag("removed events read: %d of %d (the rest overran the socket: STATS_OVERRUN), %lld ms",
			 removed, made, now_ms() - t0);
		tap_ok(removed > 0 && stats_watches(s1) == w0 + 1,
		       "all removed: every watch freed (GET_STATS back), removal events came");
		close(s);
	}
	close(s1);
	close(s2);
	rmdir(c);
	rmdir(a);
	{
		int s = nl_open();
		long long w = -1;

		for (int i = 0; i < 50 && (w = stats_watches(s)) != w0; i++)
			usleep(100000);
		tap_ok(w == w0, "closed sockets' watches freed: GET_STATS %lld, as before", w);
		close(s);
	}
	return tap_done();
}
