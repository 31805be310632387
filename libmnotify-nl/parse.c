// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Pure parsers of mem_notify messages: no socket, no allocation.  They
 * use libnl's attribute parser with a policy and add what it leaves out:
 * bounds of the netlink header against the buffer, leftover (truncated)
 * attribute bytes, and the attributes each message needs.
 */
#include <config.h>

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <linux/netlink.h>

#include "internal.h"
#include "uapi/linux/mem_notify.h"

static struct nla_policy mnotify_policy[MEM_NOTIFY_A_MAX + 1] = {
	[MEM_NOTIFY_A_SEQ]		= { .type = NLA_U64 },
	[MEM_NOTIFY_A_TIMESTAMP]	= { .type = NLA_U64 },
	[MEM_NOTIFY_A_NODE]		= { .type = NLA_U32 },
	[MEM_NOTIFY_A_ZONE]		= { .type = NLA_STRING,
					    .maxlen = MNOTIFY_ZONE_NAME_MAX },
	[MEM_NOTIFY_A_STATUS]		= { .type = NLA_U32 },
	[MEM_NOTIFY_A_FREE_PAGES]	= { .type = NLA_U64 },
	[MEM_NOTIFY_A_HIGH_WMARK]	= { .type = NLA_U64 },
	[MEM_NOTIFY_A_THRESHOLD]	= { .type = NLA_U64 },
	[MEM_NOTIFY_A_PID]		= { .type = NLA_U32 },
	[MEM_NOTIFY_A_TGID]		= { .type = NLA_U32 },
	[MEM_NOTIFY_A_UID]		= { .type = NLA_U32 },
	[MEM_NOTIFY_A_COMM]		= { .type = NLA_STRING,
					    .maxlen = MNOTIFY_COMM_MAX },
	[MEM_NOTIFY_A_POINTS]		= { .type = NLA_U64 },
	[MEM_NOTIFY_A_OOM_SCORE_ADJ]	= { .type = NLA_U32 },
	[MEM_NOTIFY_A_MATCHED]		= { .type = NLA_U8 },
	[MEM_NOTIFY_A_CONSTRAINT]	= { .type = NLA_U32 },
	[MEM_NOTIFY_A_PAGES]		= { .type = NLA_U64 },
	[MEM_NOTIFY_A_OOM_VICTIM]	= { .type = NLA_STRING,
					    .maxlen = MNOTIFY_COMM_MAX },
	[MEM_NOTIFY_A_STATS_EVENTS]	= { .type = NLA_U64 },
	[MEM_NOTIFY_A_STATS_SENT]	= { .type = NLA_U64 },
	[MEM_NOTIFY_A_STATS_LOST]	= { .type = NLA_U64 },
	[MEM_NOTIFY_A_STATS_OVERRUN]	= { .type = NLA_U64 },
	[MEM_NOTIFY_A_STATS_WATCHERS]	= { .type = NLA_U32 },
	[MEM_NOTIFY_A_STATS_FASYNC_WATCHERS] = { .type = NLA_U32 },
	[MEM_NOTIFY_A_STATS_ZONES_UNDER_PRESSURE] = { .type = NLA_U32 },
	[MEM_NOTIFY_A_STATS_PRESSURE_SUBSCRIBERS] = { .type = NLA_U32 },
	[MEM_NOTIFY_A_STATS_OOM_SUBSCRIBERS] = { .type = NLA_U32 },
	[MEM_NOTIFY_A_LEVEL]		= { .type = NLA_U32 },
	[MEM_NOTIFY_A_PREV_LEVEL]	= { .type = NLA_U32 },
	[MEM_NOTIFY_A_HEADROOM]		= { .type = NLA_U64 },
	[MEM_NOTIFY_A_HEADROOM_FREE]	= { .type = NLA_U64 },
	[MEM_NOTIFY_A_HEADROOM_FILE]	= { .type = NLA_U64 },
	[MEM_NOTIFY_A_HEADROOM_SLAB]	= { .type = NLA_U64 },
	[MEM_NOTIFY_A_HEADROOM_SWAP]	= { .type = NLA_U64 },
	[MEM_NOTIFY_A_THRESH_LOW]	= { .type = NLA_U64 },
	[MEM_NOTIFY_A_THRESH_MEDIUM]	= { .type = NLA_U64 },
	[MEM_NOTIFY_A_THRESH_CRITICAL]	= { .type = NLA_U64 },
	[MEM_NOTIFY_A_UNRECLAIMABLE]	= { .type = NLA_U8 },
	[MEM_NOTIFY_A_LOW_PERMILLE]	= { .type = NLA_U32 },
	[MEM_NOTIFY_A_MEDIUM_PERMILLE]	= { .type = NLA_U32 },
	[MEM_NOTIFY_A_CRITICAL_PERMILLE] = { .type = NLA_U32 },
	[MEM_NOTIFY_A_OOM_REASON]	= { .type = NLA_U32 },
	[MEM_NOTIFY_A_CGROUP_ID]	= { .type = NLA_U64 },
	[MEM_NOTIFY_A_OOM_MEMCG_ID]	= { .type = NLA_U64 },
	[MEM_NOTIFY_A_PRIORITY_CGROUP_ID] = { .type = NLA_U64 },
	[MEM_NOTIFY_A_OOM_PRIORITY]	= { .type = NLA_U32 },
	[MEM_NOTIFY_A_CGROUP_FD]	= { .type = NLA_U32 },
	[MEM_NOTIFY_A_CGROUP_PATH]	= { .type = NLA_STRING },
	[MEM_NOTIFY_A_USAGE]		= { .type = NLA_U64 },
	[MEM_NOTIFY_A_LIMIT]		= { .type = NLA_U64 },
	[MEM_NOTIFY_A_BINDING_CGROUP_ID] = { .type = NLA_U64 },
	[MEM_NOTIFY_A_BINDING_CGROUP_PATH] = { .type = NLA_STRING },
	[MEM_NOTIFY_A_CGROUP_REMOVED]	= { .type = NLA_U8 },
	[MEM_NOTIFY_A_STATS_CGROUP_WATCHES] = { .type = NLA_U32 },
	[MEM_NOTIFY_A_OOM_MEMCG_PATH]	= { .type = NLA_STRING },
	[MEM_NOTIFY_A_WATCH_CGROUP_ID]	= { .type = NLA_U64 },
};

/*
 * Check the netlink and generic netlink headers of @msg against @len and
 * @family, and parse its attributes into @tb.  Returns the command, or
 * -ENOMSG (another family, a control message), -EBADMSG (malformed).
 */
static int mnotify_parse_msg(const void *msg, size_t len, uint16_t family,
			     struct nlattr *tb[MEM_NOTIFY_A_MAX + 1])
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)msg;
	struct genlmsghdr *gnlh;
	struct nlattr *nla;
	int rem, err;

	if (!msg || ((uintptr_t)msg & (NLMSG_ALIGNTO - 1)))
		return -EINVAL;
	if (len < NLMSG_HDRLEN || nlh->nlmsg_len < NLMSG_HDRLEN ||
	    nlh->nlmsg_len > len)
		return -EBADMSG;
	if (nlh->nlmsg_type != family)
		return -ENOMSG;
	if (nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
		return -EBADMSG;

	gnlh = nlmsg_data(nlh);
	/* libnl ignores bytes after the last whole attribute: we do not */
	nla_for_each_attr(nla, genlmsg_attrdata(gnlh, 0),
			  genlmsg_attrlen(gnlh, 0), rem)
		;
	if (rem != 0)
		return -EBADMSG;

	err = genlmsg_parse(nlh, 0, tb, MEM_NOTIFY_A_MAX, mnotify_policy);
	if (err < 0)
		return -EBADMSG;
	return gnlh->cmd;
}

static int has(struct nlattr *tb[], const int *need, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!tb[need[i]])
			return 0;
	return 1;
}

#define HAS(tb, ...) has(tb, (const int[]){ __VA_ARGS__ }, \
			 sizeof((const int[]){ __VA_ARGS__ }) / sizeof(int))

static void get_string(char *dst, size_t size, struct nlattr *nla)
{
	size_t n = (size_t)nla_len(nla);

	if (n >= size)
		n = size - 1;
	memcpy(dst, nla_data(nla), n);
	dst[n] = '\0';
}

static uint64_t get_u64_or(struct nlattr *nla, uint64_t def)
{
	return nla ? nla_get_u64(nla) : def;
}

static uint32_t get_u32_or(struct nlattr *nla, uint32_t def)
{
	return nla ? nla_get_u32(nla) : def;
}

static void fill_zone(struct mnotify_zone *z, struct nlattr *tb[])
{
	memset(z, 0, sizeof(*z));
	z->size = sizeof(*z);
	z->node = nla_get_u32(tb[MEM_NOTIFY_A_NODE]);
	get_string(z->name, sizeof(z->name), tb[MEM_NOTIFY_A_ZONE]);
	z->free_pages = nla_get_u64(tb[MEM_NOTIFY_A_FREE_PAGES]);
	z->high_wmark = nla_get_u64(tb[MEM_NOTIFY_A_HIGH_WMARK]);
	z->threshold = nla_get_u64(tb[MEM_NOTIFY_A_THRESHOLD]);
}

/* level attributes; a kernel without them: low on enter, none on exit */
static void fill_level(struct mnotify_zone *z, struct nlattr *tb[], int enter)
{
	uint32_t level = get_u32_or(tb[MEM_NOTIFY_A_LEVEL],
				    enter ? MNOTIFY_LEVEL_LOW : MNOTIFY_LEVEL_NONE);

	/* a level this library does not know yet counts as critical */
	z->level = level > MNOTIFY_LEVEL_CRITICAL ? MNOTIFY_LEVEL_CRITICAL :
						    (int32_t)level;
	z->prev_level = tb[MEM_NOTIFY_A_PREV_LEVEL] ?
			(int32_t)nla_get_u32(tb[MEM_NOTIFY_A_PREV_LEVEL]) : -1;
	if (z->prev_level > MNOTIFY_LEVEL_CRITICAL)
		z->prev_level = MNOTIFY_LEVEL_CRITICAL;
	z->headroom = get_u64_or(tb[MEM_NOTIFY_A_HEADROOM], 0);
	z->headroom_free = get_u64_or(tb[MEM_NOTIFY_A_HEADROOM_FREE], 0);
	z->headroom_file = get_u64_or(tb[MEM_NOTIFY_A_HEADROOM_FILE], 0);
	z->headroom_slab = get_u64_or(tb[MEM_NOTIFY_A_HEADROOM_SLAB], 0);
	z->headroom_swap = get_u64_or(tb[MEM_NOTIFY_A_HEADROOM_SWAP], 0);
	z->thresh_low = get_u64_or(tb[MEM_NOTIFY_A_THRESH_LOW], z->threshold);
	z->thresh_medium = get_u64_or(tb[MEM_NOTIFY_A_THRESH_MEDIUM], 0);
	z->thresh_critical = get_u64_or(tb[MEM_NOTIFY_A_THRESH_CRITICAL], 0);
	z->unreclaimable = tb[MEM_NOTIFY_A_UNRECLAIMABLE] &&
			   nla_get_u8(tb[MEM_NOTIFY_A_UNRECLAIMABLE]);
}

int mnotify__parse_thresholds(const void *msg, size_t len, uint16_t family,
			       struct mnotify_thresholds *t)
{
	struct nlattr *tb[MEM_NOTIFY_A_MAX + 1];
	int cmd;

	cmd = mnotify_parse_msg(msg, len, family, tb);
	if (cmd < 0)
		return cmd;
	if (cmd != MEM_NOTIFY_CMD_GET_THRESHOLDS)
		return -ENOMSG;
	if (!HAS(tb, MEM_NOTIFY_A_LOW_PERMILLE, MEM_NOTIFY_A_MEDIUM_PERMILLE,
		 MEM_NOTIFY_A_CRITICAL_PERMILLE))
		return -EBADMSG;
	memset(t, 0, sizeof(*t));
	t->size = sizeof(*t);
	t->low = nla_get_u32(tb[MEM_NOTIFY_A_LOW_PERMILLE]);
	t->medium = nla_get_u32(tb[MEM_NOTIFY_A_MEDIUM_PERMILLE]);
	t->critical = nla_get_u32(tb[MEM_NOTIFY_A_CRITICAL_PERMILLE]);
	return 0;
}

int mnotify__parse_event(const void *msg, size_t len, uint16_t family,
			struct mnotify_event *ev)
{
	struct nlattr *tb[MEM_NOTIFY_A_MAX + 1];
	int cmd;

	cmd = mnotify_parse_msg(msg, len, family, tb);
	if (cmd < 0)
		return cmd;
	memset(ev, 0, sizeof(*ev));
	ev->size = sizeof(*ev);

	switch (cmd) {
	case MEM_NOTIFY_CMD_PRESSURE_ENTER:
	case MEM_NOTIFY_CMD_PRESSURE_EXIT:
		if (!HAS(tb, MEM_NOTIFY_A_SEQ, MEM_NOTIFY_A_TIMESTAMP,
			 MEM_NOTIFY_A_NODE, MEM_NOTIFY_A_ZONE,
			 MEM_NOTIFY_A_FREE_PAGES, MEM_NOTIFY_A_HIGH_WMARK,
			 MEM_NOTIFY_A_THRESHOLD))
			return -EBADMSG;
		ev->type = cmd == MEM_NOTIFY_CMD_PRESSURE_ENTER ?
			   MNOTIFY_EVENT_PRESSURE_ENTER :
			   MNOTIFY_EVENT_PRESSURE_EXIT;
		ev->group = MNOTIFY_GROUP_PRESSURE;
		fill_zone(&ev->u.zone, tb);
		ev->u.zone.status = cmd == MEM_NOTIFY_CMD_PRESSURE_ENTER ?
				    MNOTIFY_ZONE_PRESSURE : MNOTIFY_ZONE_OK;
		fill_level(&ev->u.zone, tb, cmd == MEM_NOTIFY_CMD_PRESSURE_ENTER);
		break;
	case MEM_NOTIFY_CMD_OOM_VICTIM:
	case MEM_NOTIFY_CMD_OOM_CANDIDATE:
	case MEM_NOTIFY_CMD_OOM_CANDIDATE_CLEAR:
	case MEM_NOTIFY_CMD_CGROUP_OOM: {
		struct mnotify_oom *o = &ev->u.oom;

		if (!HAS(tb, MEM_NOTIFY_A_SEQ, MEM_NOTIFY_A_TIMESTAMP,
			 MEM_NOTIFY_A_PID, MEM_NOTIFY_A_TGID,
			 MEM_NOTIFY_A_COMM))
			return -EBADMSG;
		ev->type = cmd == MEM_NOTIFY_CMD_OOM_VICTIM ?
			   MNOTIFY_EVENT_OOM_VICTIM :
			   cmd == MEM_NOTIFY_CMD_OOM_CANDIDATE ?
			   MNOTIFY_EVENT_OOM_CANDIDATE :
			   cmd == MEM_NOTIFY_CMD_CGROUP_OOM ?
			   MNOTIFY_EVENT_CGROUP_OOM :
			   MNOTIFY_EVENT_OOM_CANDIDATE_CLEAR;
		ev->group = cmd == MEM_NOTIFY_CMD_CGROUP_OOM ?
			    MNOTIFY_GROUP_CGROUP : MNOTIFY_GROUP_OOM;
		ev->oom_cgroups.watch_id =
			get_u64_or(tb[MEM_NOTIFY_A_WATCH_CGROUP_ID], 0);
		if (tb[MEM_NOTIFY_A_CGROUP_PATH])
			get_string(ev->oom_cgroups.path,
				   sizeof(ev->oom_cgroups.path),
				   tb[MEM_NOTIFY_A_CGROUP_PATH]);
		if (tb[MEM_NOTIFY_A_OOM_MEMCG_PATH])
			get_string(ev->oom_cgroups.oom_memcg_path,
				   sizeof(ev->oom_cgroups.oom_memcg_path),
				   tb[MEM_NOTIFY_A_OOM_MEMCG_PATH]);
		o->pid = nla_get_u32(tb[MEM_NOTIFY_A_PID]);
		o->tgid = nla_get_u32(tb[MEM_NOTIFY_A_TGID]);
		o->uid = get_u32_or(tb[MEM_NOTIFY_A_UID], UINT32_MAX);
		get_string(o->comm, sizeof(o->comm), tb[MEM_NOTIFY_A_COMM]);
		o->has_points = tb[MEM_NOTIFY_A_POINTS] != NULL;
		o->points = (int64_t)get_u64_or(tb[MEM_NOTIFY_A_POINTS], 0);
		o->oom_score_adj =
			(int32_t)get_u32_or(tb[MEM_NOTIFY_A_OOM_SCORE_ADJ], 0);
		o->matched = tb[MEM_NOTIFY_A_MATCHED] &&
			     nla_get_u8(tb[MEM_NOTIFY_A_MATCHED]);
		o->constraint = get_u32_or(tb[MEM_NOTIFY_A_CONSTRAINT],
					   MNOTIFY_CONSTRAINT_NONE);
		o->pages = get_u64_or(tb[MEM_NOTIFY_A_PAGES], 0);
		ev->why.reason = get_u32_or(tb[MEM_NOTIFY_A_OOM_REASON],
					    MNOTIFY_OOM_REASON_BADNESS);
		ev->why.priority = get_u32_or(tb[MEM_NOTIFY_A_OOM_PRIORITY], 0);
		ev->why.cgroup_id = get_u64_or(tb[MEM_NOTIFY_A_CGROUP_ID], 0);
		ev->why.oom_memcg_id =
			get_u64_or(tb[MEM_NOTIFY_A_OOM_MEMCG_ID], 0);
		ev->why.priority_cgroup_id =
			get_u64_or(tb[MEM_NOTIFY_A_PRIORITY_CGROUP_ID], 0);
		break;
	}
	case MEM_NOTIFY_CMD_CGROUP_LEVEL: {
		const struct nlmsghdr *nlh = msg;
		struct mnotify_cgroup *c = &ev->cgroup;

		if (!HAS(tb, MEM_NOTIFY_A_SEQ, MEM_NOTIFY_A_TIMESTAMP,
			 MEM_NOTIFY_A_CGROUP_ID, MEM_NOTIFY_A_LEVEL))
			return -EBADMSG;
		/* a reply (to a watch, of a dump) has its request's seq */
		ev->type = nlh->nlmsg_seq ? MNOTIFY_EVENT_CGROUP_STATE :
			   MNOTIFY_EVENT_CGROUP_LEVEL;
		ev->group = MNOTIFY_GROUP_CGROUP;
		c->id = nla_get_u64(tb[MEM_NOTIFY_A_CGROUP_ID]);
		c->level = (int32_t)nla_get_u32(tb[MEM_NOTIFY_A_LEVEL]);
		c->prev_level = ev->type == MNOTIFY_EVENT_CGROUP_STATE ?
				c->level :
				(int32_t)get_u32_or(tb[MEM_NOTIFY_A_PREV_LEVEL],
						    UINT32_MAX);
		c->removed = tb[MEM_NOTIFY_A_CGROUP_REMOVED] &&
			     nla_get_u8(tb[MEM_NOTIFY_A_CGROUP_REMOVED]);
		c->has_limit = tb[MEM_NOTIFY_A_BINDING_CGROUP_ID] != NULL;
		c->headroom = get_u64_or(tb[MEM_NOTIFY_A_HEADROOM], 0);
		c->usage = get_u64_or(tb[MEM_NOTIFY_A_USAGE], 0);
		c->limit = get_u64_or(tb[MEM_NOTIFY_A_LIMIT], 0);
		c->thresh_low = get_u64_or(tb[MEM_NOTIFY_A_THRESH_LOW], 0);
		c->thresh_medium = get_u64_or(tb[MEM_NOTIFY_A_THRESH_MEDIUM], 0);
		c->thresh_critical =
			get_u64_or(tb[MEM_NOTIFY_A_THRESH_CRITICAL], 0);
		c->binding_id = get_u64_or(tb[MEM_NOTIFY_A_BINDING_CGROUP_ID], 0);
		if (tb[MEM_NOTIFY_A_CGROUP_PATH])
			get_string(c->path, sizeof(c->path),
				   tb[MEM_NOTIFY_A_CGROUP_PATH]);
		if (tb[MEM_NOTIFY_A_BINDING_CGROUP_PATH])
			get_string(c->binding_path, sizeof(c->binding_path),
				   tb[MEM_NOTIFY_A_BINDING_CGROUP_PATH]);
		break;
	}
	default:
		return -ENOMSG;
	}
	ev->seq = nla_get_u64(tb[MEM_NOTIFY_A_SEQ]);
	ev->timestamp_ns = nla_get_u64(tb[MEM_NOTIFY_A_TIMESTAMP]);
	return 0;
}

int mnotify__parse_zone(const void *msg, size_t len, uint16_t family,
			struct mnotify_zone *zone, uint64_t *seq)
{
	struct nlattr *tb[MEM_NOTIFY_A_MAX + 1];
	int cmd;

	cmd = mnotify_parse_msg(msg, len, family, tb);
	if (cmd < 0)
		return cmd;
	if (cmd != MEM_NOTIFY_CMD_GET_ZONES)
		return -ENOMSG;
	if (!HAS(tb, MEM_NOTIFY_A_NODE, MEM_NOTIFY_A_ZONE, MEM_NOTIFY_A_STATUS,
		 MEM_NOTIFY_A_FREE_PAGES, MEM_NOTIFY_A_HIGH_WMARK,
		 MEM_NOTIFY_A_THRESHOLD))
		return -EBADMSG;
	fill_zone(zone, tb);
	zone->status = (int32_t)nla_get_u32(tb[MEM_NOTIFY_A_STATUS]);
	if (seq)
		*seq = get_u64_or(tb[MEM_NOTIFY_A_SEQ], 0);
	return 0;
}

int mnotify__parse_node(const void *msg, size_t len, uint16_t family,
			struct mnotify_zone *node, uint64_t *seq)
{
	struct nlattr *tb[MEM_NOTIFY_A_MAX + 1];
	int cmd;

	cmd = mnotify_parse_msg(msg, len, family, tb);
	if (cmd < 0)
		return cmd;
	if (cmd != MEM_NOTIFY_CMD_GET_NODES)
		return -ENOMSG;
	if (!HAS(tb, MEM_NOTIFY_A_NODE, MEM_NOTIFY_A_LEVEL, MEM_NOTIFY_A_HEADROOM,
		 MEM_NOTIFY_A_ZONE, MEM_NOTIFY_A_FREE_PAGES, MEM_NOTIFY_A_HIGH_WMARK,
		 MEM_NOTIFY_A_THRESHOLD))
		return -EBADMSG;
	fill_zone(node, tb);
	fill_level(node, tb, 0);
	node->prev_level = -1;	/* a state, not a change */
	node->status = node->level >= MNOTIFY_LEVEL_LOW ? MNOTIFY_ZONE_PRESSURE :
							 MNOTIFY_ZONE_OK;
	if (seq)
		*seq = get_u64_or(tb[MEM_NOTIFY_A_SEQ], 0);
	return 0;
}

int mnotify__parse_stats(const void *msg, size_t len, uint16_t family,
			struct mnotify_stats *st)
{
	struct nlattr *tb[MEM_NOTIFY_A_MAX + 1];
	int cmd;

	cmd = mnotify_parse_msg(msg, len, family, tb);
	if (cmd < 0)
		return cmd;
	if (cmd != MEM_NOTIFY_CMD_GET_STATS)
		return -ENOMSG;
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	st->events = get_u64_or(tb[MEM_NOTIFY_A_STATS_EVENTS], 0);
	st->sent = get_u64_or(tb[MEM_NOTIFY_A_STATS_SENT], 0);
	st->lost = get_u64_or(tb[MEM_NOTIFY_A_STATS_LOST], 0);
	st->overrun = get_u64_or(tb[MEM_NOTIFY_A_STATS_OVERRUN], 0);
	st->watchers = get_u32_or(tb[MEM_NOTIFY_A_STATS_WATCHERS], 0);
	st->fasync_watchers =
		get_u32_or(tb[MEM_NOTIFY_A_STATS_FASYNC_WATCHERS], 0);
	st->zones_under_pressure =
		get_u32_or(tb[MEM_NOTIFY_A_STATS_ZONES_UNDER_PRESSURE], 0);
	/* sent to CAP_SYS_ADMIN only: absent means unknown */
	st->pressure_subscribers =
		get_u32_or(tb[MEM_NOTIFY_A_STATS_PRESSURE_SUBSCRIBERS],
			   MNOTIFY_UNKNOWN);
	st->oom_subscribers =
		get_u32_or(tb[MEM_NOTIFY_A_STATS_OOM_SUBSCRIBERS],
			   MNOTIFY_UNKNOWN);
	st->cgroup_watches =
		get_u32_or(tb[MEM_NOTIFY_A_STATS_CGROUP_WATCHES],
			   MNOTIFY_UNKNOWN);
	return 0;
}

int mnotify__parse_oom_victim(const void *msg, size_t len, uint16_t family,
			       char name[MNOTIFY_COMM_MAX])
{
	struct nlattr *tb[MEM_NOTIFY_A_MAX + 1];
	int cmd;

	cmd = mnotify_parse_msg(msg, len, family, tb);
	if (cmd < 0)
		return cmd;
	if (cmd != MEM_NOTIFY_CMD_GET_OOM_VICTIM)
		return -ENOMSG;
	if (!tb[MEM_NOTIFY_A_OOM_VICTIM])
		return -EBADMSG;
	get_string(name, MNOTIFY_COMM_MAX, tb[MEM_NOTIFY_A_OOM_VICTIM]);
	return 0;
}

int mnotify__parse_ack(const void *msg, size_t len, int *error,
		       char *msgbuf, size_t msgbuf_len)
{
	const struct nlmsghdr *nlh = msg;
	size_t off, end;

	if (msgbuf && msgbuf_len)
		msgbuf[0] = '\0';
	if (!msg || ((uintptr_t)msg & (NLMSG_ALIGNTO - 1)))
		return -EINVAL;
	if (len < NLMSG_HDRLEN || nlh->nlmsg_len < NLMSG_HDRLEN ||
	    nlh->nlmsg_len > len)
		return -EBADMSG;
	if (nlh->nlmsg_type == NLMSG_DONE) {
		int32_t e;

		/* the error the dump ended with; ext ack TLVs after it */
		if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(e)) {
			/* a kernel that sends an empty DONE: no error */
			*error = 0;
			return nlh->nlmsg_len == NLMSG_HDRLEN ? 0 : -EBADMSG;
		}
		memcpy(&e, NLMSG_DATA(nlh), sizeof(e));
		*error = e;
		off = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(e));
	} else if (nlh->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e;

		if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(*e))
			return -EBADMSG;
		e = NLMSG_DATA(nlh);
		*error = e->error;
		/* the request comes back whole unless NLM_F_CAPPED */
		off = NLMSG_HDRLEN + sizeof(*e);
		if ((nlh->nlmsg_flags & NLM_F_ACK_TLVS) &&
		    !(nlh->nlmsg_flags & NLM_F_CAPPED)) {
			if (e->msg.nlmsg_len < NLMSG_HDRLEN)
				return -EBADMSG;
			off += NLMSG_ALIGN(e->msg.nlmsg_len) - NLMSG_HDRLEN;
		}
	} else {
		return -ENOMSG;
	}

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return 0;
	end = nlh->nlmsg_len;
	if (off > end)
		return -EBADMSG;
	while (off + NLA_HDRLEN <= end) {
		const struct nlattr *a = (const void *)((const char *)msg + off);

		if (a->nla_len < NLA_HDRLEN || off + a->nla_len > end)
			return -EBADMSG;
		if ((a->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MSG &&
		    msgbuf && msgbuf_len) {
			size_t n = a->nla_len - NLA_HDRLEN;
			const char *s = (const char *)a + NLA_HDRLEN;

			n = strnlen(s, n);
			if (n >= msgbuf_len)
				n = msgbuf_len - 1;
			memcpy(msgbuf, s, n);
			msgbuf[n] = '\0';
		}
		off += NLA_ALIGN(a->nla_len);
	}
	return 0;
}

void mnotify__copy_out(void *dst, size_t dst_size, const void *src,
		       size_t src_size)
{
	size_t n = dst_size < src_size ? dst_size : src_size;
	uint32_t size = (uint32_t)n;

	memcpy(dst, src, n);
	if (dst_size > n)
		memset((char *)dst + n, 0, dst_size - n);
	if (dst_size >= sizeof(size))
		memcpy(dst, &size, sizeof(size));
}

int mnotify__copy_in(void *dst, size_t dst_size, const void *src,
		     size_t src_size)
{
	const unsigned char *p = src;
	size_t n = dst_size < src_size ? dst_size : src_size;

	if (!src || src_size < sizeof(uint32_t))
		return -EINVAL;
	for (size_t i = dst_size; i < src_size; i++)
		if (p[i])
			return -E2BIG;
	memset(dst, 0, dst_size);
	memcpy(dst, src, n);
	return 0;
}

int mnotify__seq_check(uint64_t *last, uint64_t seq, uint64_t *missed)
{
	*missed = 0;
	if (*last && seq <= *last)
		return 0;
	if (*last)
		*missed = seq - *last - 1;
	*last = seq;
	return 1;
}

unsigned int mnotify__event_group(unsigned int type)
{
	switch (type) {
	case MNOTIFY_EVENT_PRESSURE_ENTER:
	case MNOTIFY_EVENT_PRESSURE_EXIT:
	case MNOTIFY_EVENT_ZONE_STATE:
	case MNOTIFY_EVENT_NODE_STATE:
		return MNOTIFY_GROUP_PRESSURE;
	case MNOTIFY_EVENT_OOM_VICTIM:
	case MNOTIFY_EVENT_OOM_CANDIDATE:
	case MNOTIFY_EVENT_OOM_CANDIDATE_CLEAR:
		return MNOTIFY_GROUP_OOM;
	case MNOTIFY_EVENT_CGROUP_LEVEL:
	case MNOTIFY_EVENT_CGROUP_STATE:
	case MNOTIFY_EVENT_CGROUP_OOM:
		return MNOTIFY_GROUP_CGROUP;
	default:
		return 0;
	}
}

MNOTIFY_EXPORT
const char *mnotify_event_name(unsigned int type)
{
	switch (type) {
	case MNOTIFY_EVENT_PRESSURE_ENTER:
		return "enter";
	case MNOTIFY_EVENT_PRESSURE_EXIT:
		return "exit";
	case MNOTIFY_EVENT_OOM_VICTIM:
		return "oom";
	case MNOTIFY_EVENT_CHARDEV:
		return "chardev";
	case MNOTIFY_EVENT_LOST:
		return "lost";
	case MNOTIFY_EVENT_ZONE_STATE:
		return "zone";
	case MNOTIFY_EVENT_NODE_STATE:
		return "node";
	case MNOTIFY_EVENT_OOM_CANDIDATE:
		return "candidate";
	case MNOTIFY_EVENT_OOM_CANDIDATE_CLEAR:
		return "candidate-clear";
	case MNOTIFY_EVENT_CGROUP_LEVEL:
		return "cgroup";
	case MNOTIFY_EVENT_CGROUP_STATE:
		return "cgroup-state";
	case MNOTIFY_EVENT_CGROUP_OOM:
		return "cgroup-oom";
	}
	return "unknown";
}

MNOTIFY_EXPORT
const char *mnotify_constraint_name(uint32_t constraint)
{
	static const char *const names[] = {
		[MNOTIFY_CONSTRAINT_NONE] = "none",
		[MNOTIFY_CONSTRAINT_CPUSET] = "cpuset",
		[MNOTIFY_CONSTRAINT_MEMPOLICY] = "mempolicy",
		[MNOTIFY_CONSTRAINT_MEMCG] = "memcg",
	};

	return constraint < sizeof(names) / sizeof(names[0]) ?
	       names[constraint] : "unknown";
}

MNOTIFY_EXPORT
const char *mnotify_oom_reason_name(uint32_t reason)
{
	static const char *const names[] = {
		[MNOTIFY_OOM_REASON_BADNESS] = "badness",
		[MNOTIFY_OOM_REASON_NAME] = "name",
		[MNOTIFY_OOM_REASON_PRIORITY] = "priority",
		[MNOTIFY_OOM_REASON_ORIGIN] = "origin",
		[MNOTIFY_OOM_REASON_ALLOCATING] = "allocating",
		[MNOTIFY_OOM_REASON_GROUP] = "group",
	};

	return reason < sizeof(names) / sizeof(names[0]) ?
	       names[reason] : "unknown";
}

static const char *const level_names[] = {
	[MNOTIFY_LEVEL_NONE] = "none",
	[MNOTIFY_LEVEL_LOW] = "low",
	[MNOTIFY_LEVEL_MEDIUM] = "medium",
	[MNOTIFY_LEVEL_CRITICAL] = "critical",
};

MNOTIFY_EXPORT
const char *mnotify_level_name(int level)
{
	return level >= 0 && level <= MNOTIFY_LEVEL_CRITICAL ?
	       level_names[level] : "unknown";
}

MNOTIFY_EXPORT
int mnotify_level_from_name(const char *name)
{
	if (!name)
		return -EINVAL;
	for (int l = MNOTIFY_LEVEL_NONE; l <= MNOTIFY_LEVEL_CRITICAL; l++)
		if (!strcmp(name, level_names[l]) ||
		    (name[0] == '0' + l && name[1] == '\0'))
			return l;
	return -EINVAL;
}
