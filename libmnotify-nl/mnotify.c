// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libmnotify-nl: handles, sockets and commands.
 *
 * A handle has up to two netlink sockets: one that joined the event groups
 * (non-blocking, read with recv() and the pure parsers, so an overrun is
 * seen as ENOBUFS), and one for commands, created on first use, so that
 * replies never mix with events.  A chardev handle has the device's fd
 * instead of the event socket.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <linux/netlink.h>

#include "internal.h"
#include "uapi/linux/mem_notify.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

#define MNOTIFY_RECV_BUF	65536
#define MNOTIFY_CMD_TIMEOUT_MS	5000
#define MNOTIFY_EXT_ACK_MAX	256

struct mnotify {
	struct nl_sock *ev_sock;	/* event groups; NULL for chardev */
	struct nl_sock *cmd_sock;	/* commands, created on first use */
	int chardev_fd;			/* -1 unless chardev */
	int family;			/* family id, 0 until resolved */
	unsigned int groups;
	uint64_t last_seq[MNOTIFY_NR_GROUPS];
	char ext_ack[MNOTIFY_EXT_ACK_MAX];
	/* one receive buffer, aligned for the parsers */
	union {
		struct nlmsghdr hdr;
		char buf[MNOTIFY_RECV_BUF];
	} rx;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* libnl's NLE_* to errno, for the few that can happen here */
static int nl_to_errno(int nle)
{
	switch (nle < 0 ? -nle : nle) {
	case NLE_NOMEM:
		return -ENOMEM;
	case NLE_PERM:
		return -EPERM;
	case NLE_OBJ_NOTFOUND:
		return -ENOENT;
	case NLE_AGAIN:
		return -EAGAIN;
	case NLE_INTR:
		return -EINTR;
	case NLE_INVAL:
	case NLE_RANGE:
		return -EINVAL;
	case NLE_OPNOTSUPP:
		return -EOPNOTSUPP;
	case NLE_NOACCESS:
		return -EACCES;
	case NLE_BUSY:
		return -EBUSY;
	default:
		return -EIO;
	}
}

static int new_sock(struct nl_sock **sp)
{
	struct nl_sock *s;
	int one = 1, err;

	s = nl_socket_alloc();
	if (!s)
		return -ENOMEM;
	err = genl_connect(s);
	if (err < 0) {
		nl_socket_free(s);
		return nl_to_errno(err);
	}
	/* extended ack messages, and do not echo whole requests back */
	setsockopt(nl_socket_get_fd(s), SOL_NETLINK, NETLINK_EXT_ACK, &one,
		   sizeof(one));
	setsockopt(nl_socket_get_fd(s), SOL_NETLINK, NETLINK_CAP_ACK, &one,
		   sizeof(one));
	*sp = s;
	return 0;
}

static int resolve_family(struct mnotify *h, struct nl_sock *s)
{
	int id;

	if (h->family)
		return 0;
	id = genl_ctrl_resolve(s, MEM_NOTIFY_GENL_NAME);
	if (id < 0)
		return id == -NLE_OBJ_NOTFOUND ? -ENOENT : nl_to_errno(id);
	h->family = id;
	return 0;
}

static int cmd_sock(struct mnotify *h, struct nl_sock **sp)
{
	int err;

	if (!h->cmd_sock) {
		err = new_sock(&h->cmd_sock);
		if (err)
			return err;
	}
	err = resolve_family(h, h->cmd_sock);
	if (err)
		return err;
	*sp = h->cmd_sock;
	return 0;
}

static struct mnotify *alloc_handle(void)
{
	struct mnotify *h = calloc(1, sizeof(*h));

	if (h)
		h->chardev_fd = -1;
	return h;
}

MNOTIFY_EXPORT
int mnotify_open(struct mnotify **hp, unsigned int groups)
{
	static const char *const names[MNOTIFY_NR_GROUPS] = {
		MEM_NOTIFY_MCGRP_PRESSURE, MEM_NOTIFY_MCGRP_OOM,
	};
	int grp[MNOTIFY_NR_GROUPS] = { 0 };
	struct mnotify *h;
	int err, i;

	*hp = NULL;
	if (groups & ~(MNOTIFY_GROUP_PRESSURE | MNOTIFY_GROUP_OOM))
		return -EINVAL;
	h = alloc_handle();
	if (!h)
		return -ENOMEM;
	h->groups = groups;

	err = new_sock(&h->ev_sock);
	if (err)
		goto fail;
	err = resolve_family(h, h->ev_sock);
	if (err)
		goto fail;
	/*
	 * Resolve every group before joining any: libnl's family lookup takes
	 * the first message it receives for the reply, and once the socket is
	 * in a group that can be an event (seen as ENOENT under pressure).
	 */
	for (i = 0; i < MNOTIFY_NR_GROUPS; i++) {
		if (!(groups & (1u << i)))
			continue;
		grp[i] = genl_ctrl_resolve_grp(h->ev_sock, MEM_NOTIFY_GENL_NAME,
					       names[i]);
		if (grp[i] < 0) {
			err = nl_to_errno(grp[i]);
			goto fail;
		}
	}
	nl_socket_disable_seq_check(h->ev_sock);
	for (i = 0; i < MNOTIFY_NR_GROUPS; i++) {
		if (!(groups & (1u << i)))
			continue;
		err = nl_socket_add_membership(h->ev_sock, grp[i]);
		if (err < 0) {
			err = nl_to_errno(err);
			goto fail;
		}
	}
	/*
	 * Let the kernel count the events we miss (STATS_OVERRUN): netlink
	 * reports a full receiver to the sender only with this option.
	 */
	setsockopt(nl_socket_get_fd(h->ev_sock), SOL_NETLINK,
		   NETLINK_BROADCAST_ERROR, &(int){ 1 }, sizeof(int));
	err = nl_socket_set_nonblocking(h->ev_sock);
	if (err < 0) {
		err = nl_to_errno(err);
		goto fail;
	}
	*hp = h;
	return 0;

fail:
	mnotify_close(h);
	return err;
}

MNOTIFY_EXPORT
int mnotify_open_chardev(struct mnotify **hp, const char *path)
{
	struct mnotify *h;

	*hp = NULL;
	h = alloc_handle();
	if (!h)
		return -ENOMEM;
	h->chardev_fd = open(path ? path : "/dev/mem_notify",
			     O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (h->chardev_fd < 0) {
		int err = -errno;

		free(h);
		return err;
	}
	*hp = h;
	return 0;
}

MNOTIFY_EXPORT
void mnotify_close(struct mnotify *h)
{
	if (!h)
		return;
	if (h->ev_sock)
		nl_socket_free(h->ev_sock);
	if (h->cmd_sock)
		nl_socket_free(h->cmd_sock);
	if (h->chardev_fd >= 0)
		close(h->chardev_fd);
	free(h);
}

MNOTIFY_EXPORT
int mnotify_fd(const struct mnotify *h)
{
	if (h->chardev_fd >= 0)
		return h->chardev_fd;
	return nl_socket_get_fd(h->ev_sock);
}

MNOTIFY_EXPORT
const char *mnotify_ext_ack(const struct mnotify *h)
{
	return h->ext_ack;
}

static int group_index(unsigned int group)
{
	return group == MNOTIFY_GROUP_OOM ? 1 : 0;
}

static int deliver_lost(unsigned int group, uint64_t count,
			mnotify_callback cb, void *arg)
{
	struct mnotify_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = MNOTIFY_EVENT_LOST;
	ev.group = group;
	ev.timestamp_ns = now_ns();
	ev.u.lost.group = group;
	ev.u.lost.count = count;
	return cb(&ev, arg);
}

/* one received datagram: returns events delivered or a callback's return */
static int dispatch_buf(struct mnotify *h, size_t len, mnotify_callback cb,
			void *arg, int *delivered)
{
	struct nlmsghdr *nlh = &h->rx.hdr;
	int rem = (int)len;

	for (; nlmsg_ok(nlh, rem); nlh = nlmsg_next(nlh, &rem)) {
		struct mnotify_event ev;
		uint64_t missed;
		int ret, gi;

		if (mnotify_parse_event(nlh, nlh->nlmsg_len, h->family, &ev))
			continue;	/* not an event of ours: ignore */
		gi = group_index(ev.group);
		if (!mnotify__seq_check(&h->last_seq[gi], ev.seq, &missed))
			continue;	/* covered by a resync */
		if (missed) {
			ret = deliver_lost(ev.group, missed, cb, arg);
			(*delivered)++;
			if (ret)
				return ret;
		}
		ret = cb(&ev, arg);
		(*delivered)++;
		if (ret)
			return ret;
	}
	return 0;
}

MNOTIFY_EXPORT
int mnotify_dispatch(struct mnotify *h, mnotify_callback cb, void *arg)
{
	int delivered = 0, ret, fd;
	ssize_t n;

	if (h->chardev_fd >= 0) {
		struct mem_notify_report rep;
		struct mnotify_event ev;

		memset(&ev, 0, sizeof(ev));
		ev.type = MNOTIFY_EVENT_CHARDEV;
		ev.u.zone.level = -1;
		ev.u.zone.prev_level = -1;
		/* acknowledge the report: the file stays readable until then */
		n = read(h->chardev_fd, &rep, sizeof(rep));
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return 0;	/* not told (any more) */
		if (n == (ssize_t)sizeof(rep)) {
			ev.seq = rep.event;
			ev.u.zone.level = (int32_t)rep.level;
		} else if (n >= 0 || errno != EINVAL) {
			return n < 0 ? -errno : -EIO;
		}
		/* EINVAL: a kernel before read(); the wake-up is the event */
		ev.timestamp_ns = now_ns();
		ret = cb(&ev, arg);
		return ret ? ret : 1;
	}

	fd = nl_socket_get_fd(h->ev_sock);
	for (;;) {
		n = recv(fd, h->rx.buf, sizeof(h->rx.buf), MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			if (errno == ENOBUFS) {
				/* the kernel dropped events for us */
				ret = deliver_lost(h->groups, 0, cb, arg);
				delivered++;
				if (ret)
					return ret;
				continue;
			}
			return -errno;
		}
		if (n == 0)
			break;
		ret = dispatch_buf(h, (size_t)n, cb, arg, &delivered);
		if (ret)
			return ret;
	}
	return delivered;
}

MNOTIFY_EXPORT
int mnotify_wait(struct mnotify *h, int timeout_ms, mnotify_callback cb,
		 void *arg)
{
	struct pollfd pfd = { .fd = mnotify_fd(h), .events = POLLIN };
	int n;

	n = poll(&pfd, 1, timeout_ms);
	if (n < 0)
		return -errno;
	if (n == 0)
		return 0;
	if (pfd.revents & (POLLERR | POLLNVAL) && !(pfd.revents & POLLIN) &&
	    h->chardev_fd >= 0)
		return -EIO;
	return mnotify_dispatch(h, cb, arg);
}

/*
 * Send a request and read its replies until the final ack (or the end of
 * a dump), calling @on_msg for each reply message.  Returns 0 or -errno;
 * the kernel's extack text goes to h->ext_ack.
 */
/* adds a request's attributes to @msg: 0 or a libnl error */
typedef int (*put_attrs_fn)(struct nl_msg *msg, const void *arg);

static int put_oom_victim(struct nl_msg *msg, const void *arg)
{
	return nla_put_string(msg, MEM_NOTIFY_A_OOM_VICTIM, arg);
}

static int transact(struct mnotify *h, uint8_t cmd, int dump,
		    put_attrs_fn put, const void *put_arg,
		    int (*on_msg)(struct mnotify *, struct nlmsghdr *, void *),
		    void *ctx)
{
	struct nl_sock *s;
	struct nl_msg *msg;
	unsigned int seq;
	int err, fd;

	h->ext_ack[0] = '\0';
	err = cmd_sock(h, &s);
	if (err)
		return err;
	msg = nlmsg_alloc();
	if (!msg)
		return -ENOMEM;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, h->family, 0,
			 NLM_F_REQUEST | NLM_F_ACK | (dump ? NLM_F_DUMP : 0),
			 cmd, MEM_NOTIFY_GENL_VERSION) ||
	    (put && put(msg, put_arg) < 0)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	err = nl_send_auto(s, msg);
	seq = nlmsg_hdr(msg)->nlmsg_seq;
	nlmsg_free(msg);
	if (err < 0)
		return nl_to_errno(err);

	fd = nl_socket_get_fd(s);
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct nlmsghdr *nlh;
		ssize_t n;
		int rem, r;

		r = poll(&pfd, 1, MNOTIFY_CMD_TIMEOUT_MS);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -ETIMEDOUT;
		n = recv(fd, h->rx.buf, sizeof(h->rx.buf), 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		rem = (int)n;
		for (nlh = &h->rx.hdr; nlmsg_ok(nlh, rem);
		     nlh = nlmsg_next(nlh, &rem)) {
			int error;

			if (nlh->nlmsg_seq != seq)
				continue;	/* stale reply of a timed-out request */
			if (nlh->nlmsg_type == NLMSG_DONE)
				return 0;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				r = mnotify_parse_ack(nlh, nlh->nlmsg_len,
						      &error, h->ext_ack,
						      sizeof(h->ext_ack));
				if (r)
					return r;
				if (error || !dump)
					return error;
				continue;
			}
			if (on_msg) {
				r = on_msg(h, nlh, ctx);
				if (r)
					return r;
			}
		}
	}
}

static int on_oom_victim(struct mnotify *h, struct nlmsghdr *nlh, void *ctx)
{
	return mnotify_parse_oom_victim(nlh, nlh->nlmsg_len, h->family, ctx);
}

MNOTIFY_EXPORT
int mnotify_get_oom_victim(struct mnotify *h, char name[MNOTIFY_COMM_MAX])
{
	name[0] = '\0';
	return transact(h, MEM_NOTIFY_CMD_GET_OOM_VICTIM, 0, NULL, NULL,
			on_oom_victim, name);
}

MNOTIFY_EXPORT
int mnotify_set_oom_victim(struct mnotify *h, const char *name)
{
	return transact(h, MEM_NOTIFY_CMD_SET_OOM_VICTIM, 0, put_oom_victim,
			name ? name : "", NULL, NULL);
}

static int on_stats(struct mnotify *h, struct nlmsghdr *nlh, void *ctx)
{
	return mnotify_parse_stats(nlh, nlh->nlmsg_len, h->family, ctx);
}

MNOTIFY_EXPORT
int mnotify_get_stats(struct mnotify *h, struct mnotify_stats *st)
{
	memset(st, 0, sizeof(*st));
	return transact(h, MEM_NOTIFY_CMD_GET_STATS, 0, NULL, NULL, on_stats, st);
}

struct zones_ctx {
	struct mnotify_zone *zones;
	size_t max;
	size_t n;
	uint64_t seq;
};

static int on_zone(struct mnotify *h, struct nlmsghdr *nlh, void *arg)
{
	struct zones_ctx *c = arg;
	struct mnotify_zone z;
	uint64_t seq;
	int err;

	err = mnotify_parse_zone(nlh, nlh->nlmsg_len, h->family, &z, &seq);
	if (err)
		return err;
	if (c->n < c->max)
		c->zones[c->n] = z;
	c->n++;
	/* the oldest zone's sequence number holds for all */
	if (c->n == 1 || seq < c->seq)
		c->seq = seq;
	return 0;
}

MNOTIFY_EXPORT
int mnotify_get_zones(struct mnotify *h, struct mnotify_zone *zones,
		      size_t max, uint64_t *seq)
{
	struct zones_ctx c = { .zones = zones, .max = max };
	int err;

	err = transact(h, MEM_NOTIFY_CMD_GET_ZONES, 1, NULL, NULL, on_zone, &c);
	if (err)
		return err;
	if (seq)
		*seq = c.seq;
	return c.n > 0x7fffffff ? 0x7fffffff : (int)c.n;
}

MNOTIFY_EXPORT
int mnotify_resync(struct mnotify *h, mnotify_callback cb, void *arg)
{
	struct mnotify_zone zones[64];
	uint64_t seq = 0, t;
	int n, i, ret;

	n = mnotify_get_zones(h, zones, 64, &seq);
	if (n < 0)
		return n;
	if (n > 64)
		n = 64;
	/* events up to seq are reflected in these states */
	if (seq > h->last_seq[0])
		h->last_seq[0] = seq;
	t = now_ns();
	for (i = 0; i < n; i++) {
		struct mnotify_event ev;

		memset(&ev, 0, sizeof(ev));
		ev.type = MNOTIFY_EVENT_ZONE_STATE;
		ev.group = MNOTIFY_GROUP_PRESSURE;
		ev.seq = seq;
		ev.timestamp_ns = t;
		ev.u.zone = zones[i];
		ret = cb(&ev, arg);
		if (ret)
			return ret;
	}
	return n;
}

static int put_thresholds(struct nl_msg *msg, const void *arg)
{
	const struct mnotify_thresholds *t = arg;

	return nla_put_u32(msg, MEM_NOTIFY_A_LOW_PERMILLE, t->low) ||
	       nla_put_u32(msg, MEM_NOTIFY_A_MEDIUM_PERMILLE, t->medium) ||
	       nla_put_u32(msg, MEM_NOTIFY_A_CRITICAL_PERMILLE, t->critical) ?
	       -NLE_NOMEM : 0;
}

static int on_thresholds(struct mnotify *h, struct nlmsghdr *nlh, void *ctx)
{
	return mnotify_parse_thresholds(nlh, nlh->nlmsg_len, h->family, ctx);
}

MNOTIFY_EXPORT
int mnotify_get_thresholds(struct mnotify *h, struct mnotify_thresholds *t)
{
	memset(t, 0, sizeof(*t));
	return transact(h, MEM_NOTIFY_CMD_GET_THRESHOLDS, 0, NULL, NULL,
			on_thresholds, t);
}

MNOTIFY_EXPORT
int mnotify_set_thresholds(struct mnotify *h,
			   const struct mnotify_thresholds *t)
{
	return transact(h, MEM_NOTIFY_CMD_SET_THRESHOLDS, 0, put_thresholds, t,
			NULL, NULL);
}
