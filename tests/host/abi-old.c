// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Built against the frozen 1.0 header (tests/host/abi/1.0), linked with
 * today's library: the layout a 1.0 binary has compiled in, and a 1.0
 * program that receives events from a newer kernel (attributes it has
 * never heard of, a new event type) and a new command reply.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <mnotify/mnotify.h>
#include "abi-fields.h"
#include "uapi/linux/mem_notify.h"	/* the wire format: a kernel ABI */

#define FAM 0x1c

/* the test hook of the library (libmnotify-nl-internal) */
int mnotify__open_fds(struct mnotify **hp, int ev_fd, int cmd_fd,
		      uint16_t family, unsigned int groups);

const struct abi_field abi_old_fields[] = { ABI_FIELDS(ABI_ENTRY) };
const struct abi_const abi_old_consts[] = { ABI_CONSTANTS(ABI_CONST) };
const size_t abi_old_nfields = sizeof(abi_old_fields) / sizeof(abi_old_fields[0]);
const size_t abi_old_nconsts = sizeof(abi_old_consts) / sizeof(abi_old_consts[0]);

/* a message built by hand, as a kernel newer than 1.0 might send it */
struct msg {
	union {
		struct nlmsghdr h;
		unsigned char b[1024];
	} u;
	size_t len;
};

static void put(struct msg *m, uint16_t type, const void *v, size_t n)
{
	struct nlattr a = { .nla_len = (uint16_t)(NLA_HDRLEN + n), .nla_type = type };

	memcpy(m->u.b + m->len, &a, sizeof(a));
	memcpy(m->u.b + m->len + NLA_HDRLEN, v, n);
	m->len += NLA_ALIGN(NLA_HDRLEN + n);
	m->u.h.nlmsg_len = (uint32_t)m->len;
}

static void put64(struct msg *m, uint16_t type, uint64_t v) { put(m, type, &v, 8); }
static void put32(struct msg *m, uint16_t type, uint32_t v) { put(m, type, &v, 4); }

static void start(struct msg *m, uint8_t cmd)
{
	struct genlmsghdr g = { .cmd = cmd, .version = 1 };

	memset(m, 0, sizeof(*m));
	m->u.h.nlmsg_type = FAM;
	m->len = NLMSG_HDRLEN;
	memcpy(m->u.b + m->len, &g, sizeof(g));
	m->len += GENL_HDRLEN;
	m->u.h.nlmsg_len = (uint32_t)m->len;
}

struct got {
	int n, enter, unknown;
	struct mnotify_event ev;
};

static int cb(const struct mnotify_event *ev, void *arg)
{
	struct got *g = arg;

	g->n++;
	if (ev->type == MNOTIFY_EVENT_PRESSURE_ENTER) {
		g->enter++;
		g->ev = *ev;	/* a 1.0 binary copies its 1.0 size */
	} else {
		g->unknown++;
	}
	return MNOTIFY_CB_OK;
}

int abi_old_program(char *why, size_t len)
{
	struct mnotify *h;
	struct got g = { 0 };
	struct msg m;
	int e[2], c[2], n;

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, e) || socketpair(AF_UNIX, SOCK_DGRAM, 0, c) ||
	    mnotify__open_fds(&h, e[0], c[0], FAM, MNOTIFY_GROUP_PRESSURE)) {
		snprintf(why, len, "setup");
		return -1;
	}
	/* pressure enter (command 1) with attributes numbered past 1.0's */
	start(&m, MEM_NOTIFY_CMD_PRESSURE_ENTER);
	put64(&m, MEM_NOTIFY_A_SEQ, 5);
	put64(&m, MEM_NOTIFY_A_TIMESTAMP, 1000);
	put32(&m, MEM_NOTIFY_A_NODE, 0);
	put(&m, MEM_NOTIFY_A_ZONE, "Normal", 7);
	put64(&m, MEM_NOTIFY_A_FREE_PAGES, 321);
	put64(&m, MEM_NOTIFY_A_HIGH_WMARK, 100);
	put64(&m, MEM_NOTIFY_A_THRESHOLD, 200);
	put32(&m, MEM_NOTIFY_A_LEVEL, MEM_NOTIFY_LEVEL_MEDIUM);
	put64(&m, MEM_NOTIFY_A_MAX + 10, 7);	/* unknown to this library */
	put(&m, MEM_NOTIFY_A_MAX + 11, "cgroup:/a/b", 12);
	if (send(e[1], m.u.b, m.len, 0) != (ssize_t)m.len) {
		snprintf(why, len, "send");
		return -1;
	}
	/* an event command 1.0 does not know: not delivered as anything */
	start(&m, MEM_NOTIFY_CMD_MAX + 20);
	put64(&m, MEM_NOTIFY_A_SEQ, 6);
	put64(&m, MEM_NOTIFY_A_TIMESTAMP, 1001);
	send(e[1], m.u.b, m.len, 0);
	n = mnotify_dispatch(h, cb, &g);
	close(e[1]);
	close(c[1]);
	mnotify_close(h);
	if (n != 1 || g.enter != 1 || g.unknown) {
		snprintf(why, len, "dispatch %d, %d enter, %d other", n, g.enter, g.unknown);
		return -1;
	}
	if (g.ev.seq != 5 || g.ev.timestamp_ns != 1000 || strcmp(g.ev.u.zone.name, "Normal") ||
	    g.ev.u.zone.free_pages != 321 || g.ev.u.zone.level != MNOTIFY_LEVEL_MEDIUM ||
	    !MNOTIFY_HAS(&g.ev, u.zone.thresh_critical)) {
		snprintf(why, len, "fields: seq %llu free %llu level %d size %u",
			 (unsigned long long)g.ev.seq, (unsigned long long)g.ev.u.zone.free_pages,
			 g.ev.u.zone.level, g.ev.size);
		return -1;
	}
	return 0;
}
