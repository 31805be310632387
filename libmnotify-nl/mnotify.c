// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libmnotify-nl: handles, sockets and commands.
 *
 * A handle has up to two netlink sockets: one that joined the event groups
 * (non-blocking, read with recv() and the pure parsers, so an overrun is
 * seen as ENOBUFS), and one for commands, created on first use, so that
 * replies never mix with events.  A chardev handle has the device's fd
 * instead of the event socket.
 *
 * Each socket has its own receive buffer, so a command or a resync called
 * from a callback never touches the messages still being dispatched.  A
 * datagram is dispatched from a cursor (ev_off, ev_len) that survives a
 * callback's stop: what was received is delivered later, never dropped.
 */
#define _GNU_SOURCE	/* name_to_handle_at() */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
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

/* a receive buffer, aligned for the parsers */
struct rxbuf {
	union {
		struct nlmsghdr hdr;
		char buf[MNOTIFY_RECV_BUF];
	} u;
};

/*
 * A datagram read from the event socket while a request made there waited
 * for its ack (cgroup watches): delivered by mnotify_dispatch() before
 * anything newer.  len 0: the socket overran meanwhile.
 */
struct dgram {
	struct dgram *next;
	size_t len;
	union {
		struct nlmsghdr hdr;
		char buf[MNOTIFY_RECV_BUF];
	} u;
};

struct mnotify {
	struct nl_sock *ev_sock;	/* event groups; NULL for chardev */
	struct nl_sock *cmd_sock;	/* commands, created on first use */
	/*
	 * The sockets' fds, read and written directly (libnl only sets
	 * them up); the test constructor gives fds without libnl sockets.
	 */
	int ev_fd, cmd_fd;
	int own_fds;			/* close them (test handles) */
	uint32_t cmd_seq;		/* last request's sequence number */
	int chardev_fd;			/* -1 unless chardev */
	uint64_t chardev_cgroup;	/* bound to this cgroup; 0: not */
	int chardev_hup;		/* its cgroup's removal delivered */
	int family;			/* family id, 0 until resolved */
	unsigned int groups;
	int in_dispatch;		/* its callback is running */
	uint64_t last_seq[MNOTIFY_NR_GROUPS];
	uint64_t lost[MNOTIFY_NR_GROUPS];
	uint64_t resync_seq;		/* pressure events up to it: covered */
	/* received, not delivered yet: an event held behind its LOST ... */
	struct mnotify_event held;
	int have_held;
	/* ... and the rest of the last datagram */
	size_t ev_off, ev_len;
	struct rxbuf *ev_rx;		/* events (netlink handles) */
	struct rxbuf *cmd_rx;		/* command replies, on first use */
	struct dgram *q_head, *q_tail;	/* queued datagrams, oldest first */
	uint32_t ev_req_seq;		/* last request on the event socket */
	char ext_ack[MNOTIFY_EXT_ACK_MAX];
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

/* the command socket, created and the family resolved on first use */
static int cmd_sock(struct mnotify *h)
{
	int err;

	if (h->cmd_fd >= 0)
		return 0;
	if (!h->cmd_sock) {
		err = new_sock(&h->cmd_sock);
		if (err)
			return err;
	}
	err = resolve_family(h, h->cmd_sock);
	if (err)
		return err;
	h->cmd_fd = nl_socket_get_fd(h->cmd_sock);
	h->cmd_seq = (uint32_t)time(NULL);
	return 0;
}

static struct mnotify *alloc_handle(void)
{
	struct mnotify *h = calloc(1, sizeof(*h));

	if (h) {
		h->chardev_fd = -1;
		h->ev_fd = -1;
		h->cmd_fd = -1;
	}
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
	h->ev_rx = malloc(sizeof(*h->ev_rx));
	if (!h->ev_rx) {
		err = -ENOMEM;
		goto fail;
	}

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
	h->ev_fd = nl_socket_get_fd(h->ev_sock);
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

int mnotify__open_fds(struct mnotify **hp, int ev_fd, int cmd_fd,
		      uint16_t family, unsigned int groups)
{
	struct mnotify *h;

	*hp = NULL;
	h = alloc_handle();
	if (!h)
		return -ENOMEM;
	h->ev_rx = malloc(sizeof(*h->ev_rx));
	if (!h->ev_rx) {
		free(h);
		return -ENOMEM;
	}
	h->ev_fd = ev_fd;
	h->cmd_fd = cmd_fd;
	h->own_fds = 1;
	h->family = family;
	h->groups = groups;
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
	if (h->own_fds) {
		if (h->ev_fd >= 0)
			close(h->ev_fd);
		if (h->cmd_fd >= 0)
			close(h->cmd_fd);
	}
	while (h->q_head) {
		struct dgram *d = h->q_head;

		h->q_head = d->next;
		free(d);
	}
	free(h->ev_rx);
	free(h->cmd_rx);
	free(h);
}

MNOTIFY_EXPORT
int mnotify_fd(const struct mnotify *h)
{
	if (h->chardev_fd >= 0)
		return h->chardev_fd;
	return h->ev_fd;
}

MNOTIFY_EXPORT
int mnotify_pending(const struct mnotify *h)
{
	return h->have_held || h->ev_off < h->ev_len || h->q_head;
}

MNOTIFY_EXPORT
const char *mnotify_ext_ack(const struct mnotify *h)
{
	return h->ext_ack;
}

MNOTIFY_EXPORT
uint64_t mnotify_lost(const struct mnotify *h, unsigned int group)
{
	uint64_t n = 0;

	for (int i = 0; i < MNOTIFY_NR_GROUPS; i++)
		if (group & (1u << i))
			n += h->lost[i];
	return n;
}

static int group_index(unsigned int group)
{
	return group == MNOTIFY_GROUP_OOM ? 1 : 0;
}

/*
 * A callback's return as: 0 go on, 1 stop, -errno error (see
 * mnotify_callback in the header).
 */
static int call(mnotify_callback cb, const struct mnotify_event *ev,
		void *arg, int *delivered)
{
	int r, e;

	errno = 0;
	r = cb(ev, arg);
	(*delivered)++;
	if (r == MNOTIFY_CB_OK)
		return 0;
	if (r == MNOTIFY_CB_STOP)
		return 1;
	e = r == MNOTIFY_CB_ERROR ? errno : EINVAL;
	return e > 0 ? -e : -ECANCELED;
}

static void make_lost(struct mnotify_event *ev, unsigned int group,
		      uint64_t count)
{
	memset(ev, 0, sizeof(*ev));
	ev->size = sizeof(*ev);
	ev->type = MNOTIFY_EVENT_LOST;
	ev->group = group;
	ev->timestamp_ns = now_ns();
	ev->u.lost.group = group;
	ev->u.lost.count = count;
}

/* a pressure event a resync has covered since it was received */
static int covered(const struct mnotify *h, const struct mnotify_event *ev)
{
	return ev->group == MNOTIFY_GROUP_PRESSURE && ev->seq <= h->resync_seq;
}

/*
 * Deliver what the handle holds: the held event, then the rest of the
 * last datagram.  0 when all is delivered, 1 stopped, -errno.
 */
static int deliver_held(struct mnotify *h, mnotify_callback cb, void *arg,
			int *delivered)
{
	int ret;

	for (;;) {
		struct nlmsghdr *nlh;
		struct mnotify_event lost;
		uint64_t missed;
		size_t rem;
		int gi;

		if (h->have_held) {
			h->have_held = 0;
			if (covered(h, &h->held))
				continue;
			ret = call(cb, &h->held, arg, delivered);
			if (ret)
				return ret;
		}
		if (h->ev_off >= h->ev_len)
			return 0;
		nlh = (struct nlmsghdr *)(h->ev_rx->u.buf + h->ev_off);
		rem = h->ev_len - h->ev_off;
		if (rem < NLMSG_HDRLEN || nlh->nlmsg_len < NLMSG_HDRLEN ||
		    nlh->nlmsg_len > rem) {
			h->ev_off = h->ev_len;	/* a torn datagram: drop its rest */
			continue;
		}
		h->ev_off += NLMSG_ALIGN(nlh->nlmsg_len);
		if (mnotify__parse_event(nlh, nlh->nlmsg_len, h->family,
					 &h->held))
			continue;	/* not an event of ours: ignore */
		/* a cgroup watch numbers its own events: nothing to check */
		if (h->held.group == MNOTIFY_GROUP_CGROUP) {
			h->have_held = 1;
			continue;
		}
		gi = group_index(h->held.group);
		if (!mnotify__seq_check(&h->last_seq[gi], h->held.seq, &missed))
			continue;	/* covered by a resync */
		h->have_held = 1;
		if (missed) {
			h->lost[gi] += missed;
			make_lost(&lost, h->held.group, missed);
			ret = call(cb, &lost, arg, delivered);
			if (ret)
				return ret;
		}
	}
}

static int dispatch_chardev(struct mnotify *h, mnotify_callback cb, void *arg)
{
	struct pollfd pfd = { .fd = h->chardev_fd, .events = POLLIN };
	struct mem_notify_report rep;
	struct mnotify_event ev;
	int delivered = 0, ret;
	ssize_t n;

	if (h->chardev_hup)
		return -EIDRM;
	/* only what the device says: told (readable) or not */
	if (poll(&pfd, 1, 0) < 0)
		return errno == EINTR ? 0 : -errno;
	if (pfd.revents & POLLNVAL)
		return -EBADF;
	if (!(pfd.revents & POLLIN))
		return 0;
	memset(&ev, 0, sizeof(ev));
	ev.size = sizeof(ev);
	ev.type = MNOTIFY_EVENT_CHARDEV;
	ev.u.zone.size = sizeof(ev.u.zone);
	ev.u.zone.level = -1;
	ev.u.zone.prev_level = -1;
	/* acknowledge the report: the file stays readable until then */
	n = read(h->chardev_fd, &rep, sizeof(rep));
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return 0;	/* acknowledged meanwhile (another reader) */
	if (n == (ssize_t)sizeof(rep) &&
	    (rep.flags & MEM_NOTIFY_REPORT_OOM_CHANGED)) {
		/*
		 * This process became, or is no longer, the OOM candidate.
		 * A report that also tells of the pressure gives this event
		 * only: the device tells the file again while it lasts.
		 */
		memset(&ev.u, 0, sizeof(ev.u));
		ev.type = rep.flags & MEM_NOTIFY_REPORT_OOM_NEXT ?
			  MNOTIFY_EVENT_OOM_CANDIDATE :
			  MNOTIFY_EVENT_OOM_CANDIDATE_CLEAR;
		ev.u.oom.pid = ev.u.oom.tgid = (uint32_t)getpid();
		ev.u.oom.uid = (uint32_t)getuid();
		ev.seq = rep.event;
	} else if (n == (ssize_t)sizeof(rep)) {
		ev.seq = rep.event;
		ev.u.zone.level = (int32_t)rep.level;
	} else if (n == 0 && h->chardev_cgroup) {
		h->chardev_hup = 1;	/* its removal was read already */
		return -EIDRM;
	} else if (n >= 0) {
		return -EIO;	/* a report of another size: not ours */
	} else if (errno != EINVAL) {
		return -errno;
	}
	if (n == (ssize_t)sizeof(rep) && (rep.flags & MEM_NOTIFY_REPORT_CGROUP)) {
		ev.cgroup.id = h->chardev_cgroup;
		ev.cgroup.level = (int32_t)rep.level;
		ev.cgroup.prev_level = -1;
		if (rep.flags & MEM_NOTIFY_REPORT_CGROUP_REMOVED) {
			ev.cgroup.removed = 1;
			h->chardev_hup = 1;
		}
	}
	/* EINVAL: a device without read(); it said readable: told */
	ev.timestamp_ns = now_ns();
	ret = call(cb, &ev, arg, &delivered);
	return ret < 0 ? ret : delivered;
}

MNOTIFY_EXPORT
int mnotify_is_oom_candidate(const struct mnotify_event *ev)
{
	return ev && ev->type == MNOTIFY_EVENT_OOM_CANDIDATE &&
	       ev->u.oom.tgid == (uint32_t)getpid();
}

static int dispatch_netlink(struct mnotify *h, mnotify_callback cb, void *arg)
{
	int delivered = 0, ret, fd = h->ev_fd;
	struct mnotify_event lost;
	ssize_t n;

	for (;;) {
		ret = deliver_held(h, cb, arg, &delivered);
		if (ret)
			break;
		if (h->q_head) {
			struct dgram *d = h->q_head;
			size_t len = d->len;

			h->q_head = d->next;
			if (!h->q_head)
				h->q_tail = NULL;
			if (len) {
				memcpy(h->ev_rx->u.buf, d->u.buf, len);
				h->ev_off = 0;
				h->ev_len = len;
			}
			free(d);
			if (len)
				continue;
			make_lost(&lost, h->groups, 0);
			ret = call(cb, &lost, arg, &delivered);
			if (ret)
				break;
			continue;
		}
		n = recv(fd, h->ev_rx->u.buf, sizeof(h->ev_rx->u.buf),
			 MSG_DONTWAIT | MSG_TRUNC);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			if (errno != ENOBUFS) {
				ret = -errno;
				break;
			}
			/* the kernel dropped events for us: count unknown yet */
			make_lost(&lost, h->groups, 0);
			ret = call(cb, &lost, arg, &delivered);
			if (ret)
				break;
			continue;
		}
		if (n == 0)
			break;
		if ((size_t)n > sizeof(h->ev_rx->u.buf)) {
			/* cannot happen with today's kernel; the seq gap counts it */
			make_lost(&lost, h->groups, 0);
			ret = call(cb, &lost, arg, &delivered);
			if (ret)
				break;
			continue;
		}
		h->ev_off = 0;
		h->ev_len = (size_t)n;
	}
	return ret < 0 ? ret : delivered;
}

MNOTIFY_EXPORT
int mnotify_dispatch(struct mnotify *h, mnotify_callback cb, void *arg)
{
	int ret;

	if (h->in_dispatch)
		return -EBUSY;
	h->in_dispatch = 1;
	if (h->chardev_fd >= 0)
		ret = dispatch_chardev(h, cb, arg);
	else
		ret = dispatch_netlink(h, cb, arg);
	h->in_dispatch = 0;
	return ret;
}

MNOTIFY_EXPORT
int mnotify_wait(struct mnotify *h, int timeout_ms, mnotify_callback cb,
		 void *arg)
{
	struct pollfd pfd = { .fd = mnotify_fd(h), .events = POLLIN };
	int n;

	if (h->in_dispatch)
		return -EBUSY;
	if (mnotify_pending(h))
		return mnotify_dispatch(h, cb, arg);
	n = poll(&pfd, 1, timeout_ms);
	if (n < 0)
		return -errno;
	if (n == 0)
		return 0;
	if (pfd.revents & POLLNVAL)
		return -EBADF;
	if (pfd.revents & POLLERR && !(pfd.revents & POLLIN) &&
	    h->chardev_fd >= 0)
		return -EIO;
	return mnotify_dispatch(h, cb, arg);
}

/* adds a request's attributes to @msg: 0 or a libnl error */
typedef int (*put_attrs_fn)(struct nl_msg *msg, const void *arg);

static int put_oom_victim(struct nl_msg *msg, const void *arg)
{
	return nla_put_string(msg, MEM_NOTIFY_A_OOM_VICTIM, arg);
}

/* build request @cmd with sequence number @seq and send it on @fd */
static int send_request(struct mnotify *h, int fd, uint32_t seq, uint8_t cmd,
			int dump, put_attrs_fn put, const void *put_arg)
{
	struct nlmsghdr *req;
	struct nl_msg *msg;
	ssize_t sent;
	int err;

	msg = nlmsg_alloc();
	if (!msg)
		return -ENOMEM;
	if (!genlmsg_put(msg, NL_AUTO_PORT, seq, h->family, 0,
			 NLM_F_REQUEST | NLM_F_ACK | (dump ? NLM_F_DUMP : 0),
			 cmd, MEM_NOTIFY_GENL_VERSION) ||
	    (put && put(msg, put_arg) < 0)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	req = nlmsg_hdr(msg);
	do {
		sent = send(fd, req, req->nlmsg_len, 0);
	} while (sent < 0 && errno == EINTR);
	err = sent < 0 ? -errno : 0;
	nlmsg_free(msg);
	return err;
}

/*
 * @nlh, an NLMSG_ERROR or NLMSG_DONE of our request: 1 if it ends the
 * request (*@err: its error, negative; the ext ack text in h->ext_ack),
 * 0 if a dump goes on.
 */
static int request_end(struct mnotify *h, struct nlmsghdr *nlh, int dump,
		       int *err)
{
	int error, r;

	r = mnotify__parse_ack(nlh, nlh->nlmsg_len, &error, h->ext_ack,
			       sizeof(h->ext_ack));
	if (r)
		error = r;
	if (error > 0)
		error = -error;
	*err = error;
	return error || !dump || nlh->nlmsg_type == NLMSG_DONE;
}

/*
 * Send a request and read its replies until the final ack (or the end of
 * a dump, whose error counts too), calling @on_msg for each reply
 * message.  Returns 0 or -errno; the kernel's extack text goes to
 * h->ext_ack.  Uses only the command socket and buffer.
 */
static int transact(struct mnotify *h, uint8_t cmd, int dump,
		    put_attrs_fn put, const void *put_arg,
		    int (*on_msg)(struct mnotify *, struct nlmsghdr *, void *),
		    void *ctx)
{
	uint32_t seq;
	int err, fd;

	h->ext_ack[0] = '\0';
	err = cmd_sock(h);
	if (err)
		return err;
	if (!h->cmd_rx) {
		h->cmd_rx = malloc(sizeof(*h->cmd_rx));
		if (!h->cmd_rx)
			return -ENOMEM;
	}
	fd = h->cmd_fd;
	seq = ++h->cmd_seq;
	err = send_request(h, fd, seq, cmd, dump, put, put_arg);
	if (err)
		return err;

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
		n = recv(fd, h->cmd_rx->u.buf, sizeof(h->cmd_rx->u.buf),
			 MSG_TRUNC);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if ((size_t)n > sizeof(h->cmd_rx->u.buf))
			return -EMSGSIZE;	/* a reply larger than the buffer */
		rem = (int)n;
		for (nlh = &h->cmd_rx->u.hdr; nlmsg_ok(nlh, rem);
		     nlh = nlmsg_next(nlh, &rem)) {
			if (nlh->nlmsg_seq != seq)
				continue;	/* stale reply of a timed-out request */
			if (nlh->nlmsg_type == NLMSG_DONE ||
			    nlh->nlmsg_type == NLMSG_ERROR) {
				if (request_end(h, nlh, dump, &err))
					return err;
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
	return mnotify__parse_oom_victim(nlh, nlh->nlmsg_len, h->family, ctx);
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
	return mnotify__parse_stats(nlh, nlh->nlmsg_len, h->family, ctx);
}

MNOTIFY_EXPORT
int mnotify_get_stats(struct mnotify *h, struct mnotify_stats *st,
		      size_t size)
{
	struct mnotify_stats s;
	int err;

	if (!st || size < sizeof(st->size))
		return -EINVAL;
	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	err = transact(h, MEM_NOTIFY_CMD_GET_STATS, 0, NULL, NULL, on_stats, &s);
	if (err)
		return err;
	mnotify__copy_out(st, size, &s, sizeof(s));
	return 0;
}

/* zones of a dump: into the caller's array (stride), or collected */
struct zones_ctx {
	int nodes;		/* a GET_NODES dump, not GET_ZONES */
	char *out;		/* caller's array, or NULL */
	size_t max, stride;
	struct mnotify_zone *all;	/* collect: grown as needed */
	size_t cap;
	size_t n;
	uint64_t seq;
};

static int on_zone(struct mnotify *h, struct nlmsghdr *nlh, void *arg)
{
	struct zones_ctx *c = arg;
	struct mnotify_zone z;
	uint64_t seq;
	int err;

	if (c->nodes)
		err = mnotify__parse_node(nlh, nlh->nlmsg_len, h->family, &z, &seq);
	else
		err = mnotify__parse_zone(nlh, nlh->nlmsg_len, h->family, &z, &seq);
	if (err)
		return err;
	if (c->out && c->n < c->max)
		mnotify__copy_out(c->out + c->n * c->stride, c->stride, &z,
				  sizeof(z));
	if (!c->out) {
		if (c->n == c->cap) {
			size_t cap = c->cap ? 2 * c->cap : 16;
			struct mnotify_zone *p = realloc(c->all, cap * sizeof(*p));

			if (!p)
				return -ENOMEM;
			c->all = p;
			c->cap = cap;
		}
		c->all[c->n] = z;
	}
	c->n++;
	/* the oldest zone's sequence number holds for all */
	if (c->n == 1 || seq < c->seq)
		c->seq = seq;
	return 0;
}

MNOTIFY_EXPORT
int mnotify_get_zones(struct mnotify *h, struct mnotify_zone *zones,
		      size_t max, size_t zone_size, uint64_t *seq)
{
	struct zones_ctx c = { .out = (char *)zones, .max = max,
			       .stride = zone_size };
	int err;

	if ((max && !zones) || zone_size < sizeof(zones->size))
		return -EINVAL;
	if (!zones)
		c.out = (char *)&c;	/* count only: nothing is written */
	err = transact(h, MEM_NOTIFY_CMD_GET_ZONES, 1, NULL, NULL, on_zone, &c);
	if (err)
		return err;
	if (seq)
		*seq = c.seq;
	return c.n > INT32_MAX ? -EOVERFLOW : (int)c.n;
}

MNOTIFY_EXPORT
int mnotify_get_nodes(struct mnotify *h, struct mnotify_zone *nodes,
		      size_t max, size_t node_size, uint64_t *seq)
{
	struct zones_ctx c = { .nodes = 1, .out = (char *)nodes, .max = max,
			       .stride = node_size };
	int err;

	if ((max && !nodes) || node_size < sizeof(nodes->size))
		return -EINVAL;
	if (!nodes)
		c.out = (char *)&c;	/* count only: nothing is written */
	err = transact(h, MEM_NOTIFY_CMD_GET_NODES, 1, NULL, NULL, on_zone, &c);
	if (err)
		return err;
	if (seq)
		*seq = c.seq;
	return c.n > INT32_MAX ? -EOVERFLOW : (int)c.n;
}

MNOTIFY_EXPORT
int mnotify_resync(struct mnotify *h, mnotify_callback cb, void *arg)
{
	struct zones_ctx c = { 0 }, n = { .nodes = 1 };
	int delivered = 0, err;
	uint64_t t, seq;

	err = transact(h, MEM_NOTIFY_CMD_GET_ZONES, 1, NULL, NULL, on_zone, &c);
	/* a kernel without levels has no node dump: zones only */
	if (!err) {
		err = transact(h, MEM_NOTIFY_CMD_GET_NODES, 1, NULL, NULL, on_zone, &n);
		if (err == -EOPNOTSUPP || err == -EINVAL)
			err = 0;
	}
	if (err)
		goto out;
	/* events up to the older dump's number are reflected in both */
	seq = n.n && n.seq < c.seq ? n.seq : c.seq;
	if (seq > h->last_seq[0])
		h->last_seq[0] = seq;
	if (seq > h->resync_seq)
		h->resync_seq = seq;
	t = now_ns();
	for (size_t i = 0; i < c.n + n.n && !err; i++) {
		struct mnotify_event ev;

		memset(&ev, 0, sizeof(ev));
		ev.size = sizeof(ev);
		ev.type = i < c.n ? MNOTIFY_EVENT_ZONE_STATE : MNOTIFY_EVENT_NODE_STATE;
		ev.group = MNOTIFY_GROUP_PRESSURE;
		ev.seq = seq;
		ev.timestamp_ns = t;
		ev.u.zone = i < c.n ? c.all[i] : n.all[i - c.n];
		err = call(cb, &ev, arg, &delivered);
	}
out:
	free(c.all);
	free(n.all);
	if (err < 0)
		return err;
	return delivered > INT32_MAX ? INT32_MAX : delivered;
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
	return mnotify__parse_thresholds(nlh, nlh->nlmsg_len, h->family, ctx);
}

MNOTIFY_EXPORT
int mnotify_get_thresholds(struct mnotify *h, struct mnotify_thresholds *t,
			   size_t size)
{
	struct mnotify_thresholds r;
	int err;

	if (!t || size < sizeof(t->size))
		return -EINVAL;
	memset(&r, 0, sizeof(r));
	err = transact(h, MEM_NOTIFY_CMD_GET_THRESHOLDS, 0, NULL, NULL,
		       on_thresholds, &r);
	if (err)
		return err;
	if (!r.size)
		return -EBADMSG;	/* acked without a reply */
	mnotify__copy_out(t, size, &r, sizeof(r));
	return 0;
}

MNOTIFY_EXPORT
int mnotify_set_thresholds(struct mnotify *h,
			   const struct mnotify_thresholds *t, size_t size)
{
	struct mnotify_thresholds r;
	int err;

	h->ext_ack[0] = '\0';
	err = mnotify__copy_in(&r, sizeof(r), t, size);
	if (err)
		return err;
	return transact(h, MEM_NOTIFY_CMD_SET_THRESHOLDS, 0, put_thresholds,
			&r, NULL, NULL);
}

/*
 * Cgroup watches belong to the socket that made them and their events
 * come to it: their requests go on the event socket.  Send one and read
 * until its ack (or, for a dump, its end), queueing every datagram read
 * meanwhile whole for mnotify_dispatch(): events, the reply (a
 * CGROUP_STATE), dump messages; the acks among them are not events and
 * are skipped there.  Returns 0 or -errno (extack text in h->ext_ack);
 * *@nreplies: messages of the reply other than the ack.
 */
static int ev_transact(struct mnotify *h, uint8_t cmd, int dump,
		       put_attrs_fn put, const void *put_arg, int *nreplies)
{
	uint64_t deadline = now_ns() + MNOTIFY_CMD_TIMEOUT_MS * 1000000ull;
	int err = 0, replies = 0;
	uint32_t seq;

	h->ext_ack[0] = '\0';
	if (h->chardev_fd >= 0 || h->ev_fd < 0)
		return -EOPNOTSUPP;
	/* apart from the command socket's numbers; never 0 (0: an event) */
	seq = ++h->ev_req_seq | 0x80000000u;
	err = send_request(h, h->ev_fd, seq, cmd, dump, put, put_arg);
	if (err)
		return err;

	for (;;) {
		struct pollfd pfd = { .fd = h->ev_fd, .events = POLLIN };
		uint64_t now = now_ns();
		struct nlmsghdr *nlh;
		struct dgram *d;
		int r, rem, done = 0;
		ssize_t n;

		if (now >= deadline)
			return -ETIMEDOUT;
		r = poll(&pfd, 1, (int)((deadline - now) / 1000000) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -ETIMEDOUT;
		d = malloc(sizeof(*d));
		if (!d)
			return -ENOMEM;
		d->next = NULL;
		n = recv(h->ev_fd, d->u.buf, sizeof(d->u.buf),
			 MSG_DONTWAIT | MSG_TRUNC);
		if (n < 0 && (errno == EINTR || errno == EAGAIN ||
			      errno == EWOULDBLOCK)) {
			free(d);
			continue;
		}
		if (n < 0 && errno != ENOBUFS) {
			err = -errno;
			free(d);
			return err;
		}
		/* ENOBUFS, or too big: a LOST at its place in the queue */
		d->len = n < 0 || (size_t)n > sizeof(d->u.buf) ? 0 : (size_t)n;
		rem = (int)d->len;
		for (nlh = &d->u.hdr; nlmsg_ok(nlh, rem);
		     nlh = nlmsg_next(nlh, &rem)) {
			if (nlh->nlmsg_seq != seq)
				continue;
			if (nlh->nlmsg_type != NLMSG_DONE &&
			    nlh->nlmsg_type != NLMSG_ERROR)
				replies++;
			else if (request_end(h, nlh, dump, &err))
				done = 1;
		}
		/* keep what came, not the 64 KB buffer */
		{
			struct dgram *small = realloc(d, offsetof(struct dgram, u) +
						      (d->len ? d->len : 1));

			if (small)
				d = small;
		}
		if (h->q_tail)
			h->q_tail->next = d;
		else
			h->q_head = d;
		h->q_tail = d;
		if (done) {
			if (nreplies)
				*nreplies = replies;
			return err;
		}
	}
}

static int put_cgroup_fd(struct nl_msg *msg, const void *arg)
{
	return nla_put_u32(msg, MEM_NOTIFY_A_CGROUP_FD, *(const int *)arg);
}

static int put_cgroup_id(struct nl_msg *msg, const void *arg)
{
	return nla_put_u64(msg, MEM_NOTIFY_A_CGROUP_ID, *(const uint64_t *)arg);
}

/* the id of the cgroup open at @dirfd: its kernfs file handle */
static uint64_t cgroup_id_of(int dirfd)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} h = { .fh.handle_bytes = sizeof(uint64_t) };
	struct stat st;
	int mount_id;

	if (!name_to_handle_at(dirfd, "", &h.fh, &mount_id, AT_EMPTY_PATH) &&
	    h.fh.handle_bytes == sizeof(uint64_t)) {
		uint64_t id;

		memcpy(&id, h.fh.f_handle, sizeof(id));
		return id;
	}
	return fstat(dirfd, &st) ? 0 : (uint64_t)st.st_ino;
}

/* MEM_NOTIFY_IOC_BIND_CGROUP, with the kernel's watch messages */
static int bind_chardev(struct mnotify *h, int dirfd)
{
	int32_t fd = dirfd;
	const char *msg;

	if (!ioctl(h->chardev_fd, MEM_NOTIFY_IOC_BIND_CGROUP, &fd)) {
		h->chardev_cgroup = cgroup_id_of(dirfd);
		return 0;
	}
	switch (errno) {
	case EBADF:
		msg = "not an open cgroup v2 directory";
		break;
	case ENOENT:
		msg = "the cgroup is outside the caller's cgroup namespace";
		break;
	case EACCES:
	case EPERM:
		msg = "no write access to the cgroup's cgroup.procs: only its manager may watch it";
		break;
	case EINVAL:
		msg = "the root cgroup, or the memory controller is not enabled for the cgroup";
		break;
	case EBUSY:
		msg = "the device file follows a cgroup already";
		break;
	case ENOTTY:
	case EOPNOTSUPP:
		msg = "the kernel's /dev/mem_notify cannot follow a cgroup";
		errno = EOPNOTSUPP;
		break;
	default:
		msg = "";
	}
	snprintf(h->ext_ack, sizeof(h->ext_ack), "%s", msg);
	return -errno;
}

MNOTIFY_EXPORT
int mnotify_watch_cgroup(struct mnotify *h, int dirfd)
{
	int err;

	if (dirfd < 0)
		return -EBADF;
	h->ext_ack[0] = '\0';
	if (h->chardev_fd >= 0)
		return bind_chardev(h, dirfd);
	err = ev_transact(h, MEM_NOTIFY_CMD_CGROUP_WATCH, 0, put_cgroup_fd,
			  &dirfd, NULL);
	/* a kernel without the command: "unknown command" */
	return err;
}

MNOTIFY_EXPORT
int mnotify_watch_cgroup_path(struct mnotify *h, const char *path)
{
	int fd, err;

	h->ext_ack[0] = '\0';
	if (!path)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = mnotify_watch_cgroup(h, fd);
	close(fd);
	return err;
}

MNOTIFY_EXPORT
int mnotify_unwatch_cgroup(struct mnotify *h, uint64_t cgroup_id)
{
	return ev_transact(h, MEM_NOTIFY_CMD_CGROUP_UNWATCH, 0, put_cgroup_id,
			   &cgroup_id, NULL);
}

MNOTIFY_EXPORT
int mnotify_get_cgroups(struct mnotify *h)
{
	int n = 0, err;

	err = ev_transact(h, MEM_NOTIFY_CMD_CGROUP_LEVEL, 1, NULL, NULL, &n);
	return err ? err : n;
}
