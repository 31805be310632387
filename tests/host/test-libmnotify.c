// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of libmnotify-nl's pure parts: every message and attribute
 * the kernel sends, malformed and truncated messages, unknown attributes,
 * extended acks, sequence-gap tracking.  Messages are built by hand here,
 * byte by byte, not with libnl, so the tests do not share the library's
 * assumptions.
 */
#define _GNU_SOURCE
#include "guestlib.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "internal.h"
#include "uapi/linux/mem_notify.h"

#define FAM 0x1c

struct mb {
	union {
		struct nlmsghdr hdr;
		unsigned char b[4096];
	} u;
	size_t len;
};

static void mb_init(struct mb *m, uint16_t type, uint8_t cmd)
{
	struct genlmsghdr g = { .cmd = cmd, .version = 1 };

	memset(m, 0, sizeof(*m));
	m->u.hdr.nlmsg_type = type;
	m->len = NLMSG_HDRLEN;
	memcpy(m->u.b + m->len, &g, sizeof(g));
	m->len += GENL_HDRLEN;
	m->u.hdr.nlmsg_len = (uint32_t)m->len;
}

static void mb_attr(struct mb *m, uint16_t type, const void *data, size_t n)
{
	struct nlattr a = { .nla_len = (uint16_t)(NLA_HDRLEN + n),
			    .nla_type = type };

	memcpy(m->u.b + m->len, &a, sizeof(a));
	memcpy(m->u.b + m->len + NLA_HDRLEN, data, n);
	m->len += NLA_ALIGN(NLA_HDRLEN + n);
	m->u.hdr.nlmsg_len = (uint32_t)m->len;
}

static void mb_u64(struct mb *m, uint16_t t, uint64_t v) { mb_attr(m, t, &v, 8); }
static void mb_u32(struct mb *m, uint16_t t, uint32_t v) { mb_attr(m, t, &v, 4); }
static void mb_u8(struct mb *m, uint16_t t, uint8_t v) { mb_attr(m, t, &v, 1); }
static void mb_str(struct mb *m, uint16_t t, const char *s)
{
	mb_attr(m, t, s, strlen(s) + 1);
}

/* a pressure event as the kernel builds it; skip attribute @skip */
static void mb_pressure(struct mb *m, uint8_t cmd, int skip)
{
	mb_init(m, FAM, cmd);
	if (skip != MEM_NOTIFY_A_SEQ)
		mb_u64(m, MEM_NOTIFY_A_SEQ, 42);
	if (skip != MEM_NOTIFY_A_TIMESTAMP)
		mb_u64(m, MEM_NOTIFY_A_TIMESTAMP, 123456789012ull);
	if (skip != MEM_NOTIFY_A_NODE)
		mb_u32(m, MEM_NOTIFY_A_NODE, 1);
	if (skip != MEM_NOTIFY_A_ZONE)
		mb_str(m, MEM_NOTIFY_A_ZONE, "DMA32");
	if (skip != MEM_NOTIFY_A_FREE_PAGES)
		mb_u64(m, MEM_NOTIFY_A_FREE_PAGES, 1401);
	if (skip != MEM_NOTIFY_A_HIGH_WMARK)
		mb_u64(m, MEM_NOTIFY_A_HIGH_WMARK, 729);
	if (skip != MEM_NOTIFY_A_THRESHOLD)
		mb_u64(m, MEM_NOTIFY_A_THRESHOLD, 1458);
}

static void mb_oom(struct mb *m, int with_points)
{
	mb_init(m, FAM, MEM_NOTIFY_CMD_OOM_VICTIM);
	mb_u64(m, MEM_NOTIFY_A_SEQ, 7);
	mb_u64(m, MEM_NOTIFY_A_TIMESTAMP, 99);
	mb_u32(m, MEM_NOTIFY_A_PID, 214);
	mb_u32(m, MEM_NOTIFY_A_TGID, 210);
	mb_u32(m, MEM_NOTIFY_A_UID, 65534);
	mb_str(m, MEM_NOTIFY_A_COMM, "cache-worker");
	if (with_points)
		mb_u64(m, MEM_NOTIFY_A_POINTS, (uint64_t)-5);
	mb_u32(m, MEM_NOTIFY_A_OOM_SCORE_ADJ, (uint32_t)-300);
	mb_u8(m, MEM_NOTIFY_A_MATCHED, 1);
	mb_u32(m, MEM_NOTIFY_A_CONSTRAINT, MEM_NOTIFY_OOM_CONSTRAINT_MEMCG);
	mb_u64(m, MEM_NOTIFY_A_PAGES, 61230);
}

/* --write-corpus DIR: every message built here becomes a fuzzing seed */
static const char *corpus;

static void seed(const struct mb *m)
{
	static int n;
	char path[4096];
	FILE *f;

	if (!corpus)
		return;
	snprintf(path, sizeof(path), "%s/unit-%03d", corpus, n++);
	f = fopen(path, "w");
	if (!f || fwrite(m->u.b, 1, m->len, f) != m->len)
		tap_bail("write %s", path);
	fclose(f);
}

static int parse(struct mb *m, struct mnotify_event *ev)
{
	seed(m);
	return mnotify__parse_event(m->u.b, m->len, FAM, ev);
}

static void test_events(void)
{
	struct mnotify_event ev;
	struct mb m;
	int i, ok;

	mb_pressure(&m, MEM_NOTIFY_CMD_PRESSURE_ENTER, -1);
	tap_ok(parse(&m, &ev) == 0, "pressure enter parses");
	tap_ok(ev.type == MNOTIFY_EVENT_PRESSURE_ENTER &&
	       ev.group == MNOTIFY_GROUP_PRESSURE && ev.seq == 42 &&
	       ev.timestamp_ns == 123456789012ull,
	       "enter: type, group, seq, timestamp");
	tap_ok(ev.u.zone.node == 1 && !strcmp(ev.u.zone.name, "DMA32") &&
	       ev.u.zone.free_pages == 1401 && ev.u.zone.high_wmark == 729 &&
	       ev.u.zone.threshold == 1458 &&
	       ev.u.zone.status == MNOTIFY_ZONE_PRESSURE,
	       "enter: node, zone, free, high, threshold, status 1");

	mb_pressure(&m, MEM_NOTIFY_CMD_PRESSURE_EXIT, -1);
	tap_ok(parse(&m, &ev) == 0 && ev.type == MNOTIFY_EVENT_PRESSURE_EXIT &&
	       ev.u.zone.status == MNOTIFY_ZONE_OK, "pressure exit parses, status 0");

	ok = 1;
	for (i = MEM_NOTIFY_A_SEQ; i <= MEM_NOTIFY_A_THRESHOLD; i++) {
		if (i == MEM_NOTIFY_A_STATUS)
			continue;
		mb_pressure(&m, MEM_NOTIFY_CMD_PRESSURE_ENTER, i);
		if (parse(&m, &ev) != -EBADMSG) {
			tap_diag("missing attribute %d not rejected", i);
			ok = 0;
		}
	}
	tap_ok(ok, "pressure event without any one of its 7 attributes: -EBADMSG");

	/* version 1 kernels: no level attributes -> low on enter, none on exit */
	mb_pressure(&m, MEM_NOTIFY_CMD_PRESSURE_ENTER, -1);
	tap_ok(parse(&m, &ev) == 0 && ev.u.zone.level == MNOTIFY_LEVEL_LOW &&
	       ev.u.zone.prev_level == -1 && ev.u.zone.thresh_low == 1458,
	       "enter without LEVEL: level low, prev unknown, thresh_low = THRESHOLD");
	mb_pressure(&m, MEM_NOTIFY_CMD_PRESSURE_EXIT, -1);
	tap_ok(parse(&m, &ev) == 0 && ev.u.zone.level == MNOTIFY_LEVEL_NONE,
	       "exit without LEVEL: level none");
	/* graded levels (patches 1 and 11) */
	mb_pressure(&m, MEM_NOTIFY_CMD_PRESSURE_ENTER, -1);
	mb_u32(&m, MEM_NOTIFY_A_LEVEL, MEM_NOTIFY_LEVEL_MEDIUM);
	mb_u32(&m, MEM_NOTIFY_A_PREV_LEVEL, MEM_NOTIFY_LEVEL_CRITICAL);
	mb_u64(&m, MEM_NOTIFY_A_HEADROOM, 3000);
	mb_u64(&m, MEM_NOTIFY_A_HEADROOM_FREE, 1000);
	mb_u64(&m, MEM_NOTIFY_A_HEADROOM_FILE, 1500);
	mb_u64(&m, MEM_NOTIFY_A_HEADROOM_SLAB, 100);
	mb_u64(&m, MEM_NOTIFY_A_HEADROOM_SWAP, 400);
	mb_u64(&m, MEM_NOTIFY_A_THRESH_LOW, 6138);
	mb_u64(&m, MEM_NOTIFY_A_THRESH_MEDIUM, 3683);
	mb_u64(&m, MEM_NOTIFY_A_THRESH_CRITICAL, 1841);
	mb_u8(&m, MEM_NOTIFY_A_UNRECLAIMABLE, 1);
	tap_ok(parse(&m, &ev) == 0 && ev.u.zone.level == MNOTIFY_LEVEL_MEDIUM &&
	       ev.u.zone.prev_level == MNOTIFY_LEVEL_CRITICAL && ev.u.zone.headroom == 3000 &&
	       ev.u.zone.headroom_free == 1000 && ev.u.zone.headroom_file == 1500 &&
	       ev.u.zone.headroom_slab == 100 && ev.u.zone.headroom_swap == 400 &&
	       ev.u.zone.thresh_low == 6138 && ev.u.zone.thresh_medium == 3683 &&
	       ev.u.zone.thresh_critical == 1841 && ev.u.zone.unreclaimable == 1,
	       "enter with levels: level, prev, headroom and parts, thresholds, unreclaimable");
	mb_pressure(&m, MEM_NOTIFY_CMD_PRESSURE_ENTER, -1);
	mb_u32(&m, MEM_NOTIFY_A_LEVEL, 9);
	mb_u32(&m, MEM_NOTIFY_A_PREV_LEVEL, 7);
	tap_ok(parse(&m, &ev) == 0 && ev.u.zone.level == MNOTIFY_LEVEL_CRITICAL &&
	       ev.u.zone.prev_level == MNOTIFY_LEVEL_CRITICAL,
	       "a level this library does not know counts as critical");
	tap_ok(!strcmp(mnotify_level_name(MNOTIFY_LEVEL_MEDIUM), "medium") &&
	       !strcmp(mnotify_level_name(4), "unknown") &&
	       mnotify_level_from_name("critical") == MNOTIFY_LEVEL_CRITICAL &&
	       mnotify_level_from_name("2") == MNOTIFY_LEVEL_MEDIUM &&
	       mnotify_level_from_name("high") == -EINVAL && mnotify_level_from_name(NULL) == -EINVAL,
	       "level names both ways");

	mb_oom(&m, 1);
	tap_ok(parse(&m, &ev) == 0 && ev.type == MNOTIFY_EVENT_OOM_VICTIM &&
	       ev.group == MNOTIFY_GROUP_OOM && ev.seq == 7 &&
	       ev.timestamp_ns == 99, "oom event parses: type, group, seq, ts");
	tap_ok(ev.u.oom.pid == 214 && ev.u.oom.tgid == 210 &&
	       ev.u.oom.uid == 65534 && !strcmp(ev.u.oom.comm, "cache-worker"),
	       "oom: pid, tgid, uid, comm");
	tap_ok(ev.u.oom.has_points && ev.u.oom.points == -5 &&
	       ev.u.oom.oom_score_adj == -300 && ev.u.oom.matched == 1 &&
	       ev.u.oom.constraint == MNOTIFY_CONSTRAINT_MEMCG &&
	       ev.u.oom.pages == 61230,
	       "oom: signed points and adj, matched, constraint, pages");
	mb_oom(&m, 0);
	tap_ok(parse(&m, &ev) == 0 && !ev.u.oom.has_points,
	       "oom without POINTS (oom.group member): has_points 0");
	tap_ok(MNOTIFY_HAS(&ev, why) && ev.why.reason == MNOTIFY_OOM_REASON_BADNESS &&
	       !ev.why.cgroup_id && !ev.why.oom_memcg_id && !ev.why.priority_cgroup_id,
	       "oom from a kernel that gives no reason: why present, badness, no cgroups");

	/* 1.2: the reason and the cgroups */
	mb_oom(&m, 1);
	mb_u32(&m, MEM_NOTIFY_A_OOM_REASON, MEM_NOTIFY_OOM_REASON_PRIORITY);
	mb_u64(&m, MEM_NOTIFY_A_CGROUP_ID, 0x100000123ULL);
	mb_u64(&m, MEM_NOTIFY_A_OOM_MEMCG_ID, 77);
	mb_u64(&m, MEM_NOTIFY_A_PRIORITY_CGROUP_ID, 88);
	mb_u32(&m, MEM_NOTIFY_A_OOM_PRIORITY, 900);
	seed(&m);
	tap_ok(parse(&m, &ev) == 0 && ev.why.reason == MNOTIFY_OOM_REASON_PRIORITY &&
	       ev.why.cgroup_id == 0x100000123ULL && ev.why.oom_memcg_id == 77 &&
	       ev.why.priority_cgroup_id == 88 && ev.why.priority == 900,
	       "oom with reason priority: cgroup ids (64-bit) and priority");
	tap_ok(!strcmp(mnotify_oom_reason_name(MNOTIFY_OOM_REASON_GROUP), "group") &&
	       !strcmp(mnotify_oom_reason_name(MNOTIFY_OOM_REASON_NAME), "name") &&
	       !strcmp(mnotify_oom_reason_name(6), "unknown"), "reason names");

	/* the candidate events: the OOM event's attributes, their own type */
	mb_oom(&m, 1);
	m.u.b[NLMSG_HDRLEN] = MEM_NOTIFY_CMD_OOM_CANDIDATE;	/* genlmsghdr.cmd */
	mb_u32(&m, MEM_NOTIFY_A_OOM_REASON, MEM_NOTIFY_OOM_REASON_NAME);
	seed(&m);
	tap_ok(parse(&m, &ev) == 0 && ev.type == MNOTIFY_EVENT_OOM_CANDIDATE &&
	       ev.group == MNOTIFY_GROUP_OOM && ev.u.oom.tgid == 210 &&
	       ev.why.reason == MNOTIFY_OOM_REASON_NAME,
	       "OOM_CANDIDATE parses: type candidate, group oom, tgid, reason");
	tap_ok(mnotify_is_oom_candidate(&ev) == (getpid() == 210),
	       "mnotify_is_oom_candidate(): another process's candidate is not us");
	ev.u.oom.tgid = (uint32_t)getpid();
	tap_ok(mnotify_is_oom_candidate(&ev) == 1 && mnotify_is_oom_candidate(NULL) == 0,
	       "mnotify_is_oom_candidate(): ours is (and NULL is not)");
	m.u.b[NLMSG_HDRLEN] = MEM_NOTIFY_CMD_OOM_CANDIDATE_CLEAR;
	tap_ok(parse(&m, &ev) == 0 && ev.type == MNOTIFY_EVENT_OOM_CANDIDATE_CLEAR &&
	       !mnotify_is_oom_candidate(&ev) &&
	       !strcmp(mnotify_event_name(ev.type), "candidate-clear") &&
	       !strcmp(mnotify_event_name(MNOTIFY_EVENT_OOM_CANDIDATE), "candidate"),
	       "OOM_CANDIDATE_CLEAR parses; names candidate, candidate-clear");
}

static void test_malformed(void)
{
	struct mnotify_event ev;
	struct mb m, t;
	size_t l;
	int ok, r;

	mb_pressure(&m, MEM_NOTIFY_CMD_PRESSURE_ENTER, -1);

	/* every shorter length, with nlmsg_len told the truth */
	ok = 1;
	for (l = 0; l < m.len; l++) {
		t = m;
		t.u.hdr.nlmsg_len = (uint32_t)l;
		t.len = l;
		r = parse(&t, &ev);
		if (r != -EBADMSG) {
			tap_diag("truncated to %zu bytes: %d", l, r);
			ok = 0;
		}
	}
	tap_ok(ok, "every truncation of an event: -EBADMSG");

	ok = 1;
	for (l = 0; l < m.len; l++) {
		if (mnotify__parse_event(m.u.b, l, FAM, &ev) != -EBADMSG)
			ok = 0;
	}
	tap_ok(ok, "buffer shorter than nlmsg_len: -EBADMSG");

	t = m;
	t.u.b[NLMSG_HDRLEN + GENL_HDRLEN] = 0xff;	/* first nla_len */
	t.u.b[NLMSG_HDRLEN + GENL_HDRLEN + 1] = 0x0f;
	tap_ok(parse(&t, &ev) == -EBADMSG, "attribute longer than the message: -EBADMSG");

	t = m;
	t.u.b[NLMSG_HDRLEN + GENL_HDRLEN] = 2;		/* nla_len < header */
	t.u.b[NLMSG_HDRLEN + GENL_HDRLEN + 1] = 0;
	tap_ok(parse(&t, &ev) == -EBADMSG, "attribute shorter than its header: -EBADMSG");

	mb_init(&t, FAM, MEM_NOTIFY_CMD_PRESSURE_ENTER);
	mb_u64(&t, MEM_NOTIFY_A_SEQ, 1);
	mb_u64(&t, MEM_NOTIFY_A_TIMESTAMP, 1);
	mb_attr(&t, MEM_NOTIFY_A_NODE, "\1\0", 2);	/* u32 in 2 bytes */
	mb_str(&t, MEM_NOTIFY_A_ZONE, "DMA32");
	mb_u64(&t, MEM_NOTIFY_A_FREE_PAGES, 1);
	mb_u64(&t, MEM_NOTIFY_A_HIGH_WMARK, 1);
	mb_u64(&t, MEM_NOTIFY_A_THRESHOLD, 1);
	tap_ok(parse(&t, &ev) == -EBADMSG, "u32 attribute of 2 bytes (wrong type): -EBADMSG");

	mb_init(&t, FAM, MEM_NOTIFY_CMD_PRESSURE_ENTER);
	mb_u64(&t, MEM_NOTIFY_A_SEQ, 1);
	mb_u64(&t, MEM_NOTIFY_A_TIMESTAMP, 1);
	mb_u32(&t, MEM_NOTIFY_A_NODE, 0);
	mb_attr(&t, MEM_NOTIFY_A_ZONE, "DMA32", 5);	/* no NUL */
	mb_u64(&t, MEM_NOTIFY_A_FREE_PAGES, 1);
	mb_u64(&t, MEM_NOTIFY_A_HIGH_WMARK, 1);
	mb_u64(&t, MEM_NOTIFY_A_THRESHOLD, 1);
	tap_ok(parse(&t, &ev) == -EBADMSG, "zone name without NUL: -EBADMSG");

	mb_init(&t, FAM, MEM_NOTIFY_CMD_OOM_VICTIM);
	mb_u64(&t, MEM_NOTIFY_A_SEQ, 1);
	mb_u64(&t, MEM_NOTIFY_A_TIMESTAMP, 1);
	mb_u32(&t, MEM_NOTIFY_A_PID, 1);
	mb_u32(&t, MEM_NOTIFY_A_TGID, 1);
	mb_str(&t, MEM_NOTIFY_A_COMM, "a-name-longer-than-fifteen");
	tap_ok(parse(&t, &ev) == -EBADMSG, "comm longer than TASK_COMM_LEN: -EBADMSG");

	t = m;
	mb_u32(&t, 200, 5);
	mb_u64(&t, MEM_NOTIFY_A_MAX + 1, 5);
	mb_attr(&t, 0, "", 0);
	tap_ok(parse(&t, &ev) == 0 && ev.u.zone.free_pages == 1401,
	       "unknown attributes (types 0, MAX+1, 200) are ignored");

	tap_ok(mnotify__parse_event(m.u.b, m.len, FAM + 1, &ev) == -ENOMSG,
	       "another family: -ENOMSG");
	mb_pressure(&t, MEM_NOTIFY_CMD_GET_STATS, -1);
	tap_ok(parse(&t, &ev) == -ENOMSG, "a reply command is not an event: -ENOMSG");
	mb_pressure(&t, 250, -1);
	tap_ok(parse(&t, &ev) == -ENOMSG, "unknown command: -ENOMSG");
	tap_ok(mnotify__parse_event(m.u.b + 1, m.len - 1, FAM, &ev) == -EINVAL,
	       "misaligned buffer: -EINVAL");
	tap_ok(mnotify__parse_event(NULL, 0, FAM, &ev) == -EINVAL, "NULL: -EINVAL");
}

static void test_replies(void)
{
	struct mnotify_stats st;
	struct mnotify_event ev;
	struct mnotify_zone z;
	char name[MNOTIFY_COMM_MAX];
	uint64_t seq = 0;
	struct mb m;

	mb_init(&m, FAM, MEM_NOTIFY_CMD_GET_ZONES);
	mb_u64(&m, MEM_NOTIFY_A_SEQ, 17);
	mb_u32(&m, MEM_NOTIFY_A_STATUS, (uint32_t)-1);
	mb_u32(&m, MEM_NOTIFY_A_NODE, 0);
	mb_str(&m, MEM_NOTIFY_A_ZONE, "DMA");
	mb_u64(&m, MEM_NOTIFY_A_FREE_PAGES, 3000);
	mb_u64(&m, MEM_NOTIFY_A_HIGH_WMARK, 8);
	mb_u64(&m, MEM_NOTIFY_A_THRESHOLD, 16);
	seed(&m);
	tap_ok(mnotify__parse_zone(m.u.b, m.len, FAM, &z, &seq) == 0 &&
	       z.status == -1 && !strcmp(z.name, "DMA") && z.free_pages == 3000 &&
	       z.high_wmark == 8 && z.threshold == 16 && seq == 17,
	       "zone dump message: status -1, fields, seq");
	tap_ok(mnotify__parse_event(m.u.b, m.len, FAM, &ev) == -ENOMSG,
	       "zone dump message is not an event");

	mb_init(&m, FAM, MEM_NOTIFY_CMD_GET_ZONES);
	mb_u32(&m, MEM_NOTIFY_A_NODE, 0);
	mb_str(&m, MEM_NOTIFY_A_ZONE, "DMA");
	tap_ok(mnotify__parse_zone(m.u.b, m.len, FAM, &z, &seq) == -EBADMSG,
	       "zone dump message without STATUS: -EBADMSG");

	mb_init(&m, FAM, MEM_NOTIFY_CMD_GET_STATS);
	mb_u64(&m, MEM_NOTIFY_A_STATS_EVENTS, 1);
	mb_u64(&m, MEM_NOTIFY_A_STATS_SENT, 2);
	mb_u64(&m, MEM_NOTIFY_A_STATS_LOST, 3);
	mb_u64(&m, MEM_NOTIFY_A_STATS_OVERRUN, 4);
	mb_u32(&m, MEM_NOTIFY_A_STATS_WATCHERS, 5);
	mb_u32(&m, MEM_NOTIFY_A_STATS_FASYNC_WATCHERS, 6);
	mb_u32(&m, MEM_NOTIFY_A_STATS_ZONES_UNDER_PRESSURE, 7);
	mb_u32(&m, MEM_NOTIFY_A_STATS_PRESSURE_SUBSCRIBERS, 8);
	mb_u32(&m, MEM_NOTIFY_A_STATS_OOM_SUBSCRIBERS, 9);
	seed(&m);
	tap_ok(mnotify__parse_stats(m.u.b, m.len, FAM, &st) == 0 &&
	       st.events == 1 && st.sent == 2 && st.lost == 3 && st.overrun == 4 &&
	       st.watchers == 5 && st.fasync_watchers == 6 &&
	       st.zones_under_pressure == 7 && st.pressure_subscribers == 8 &&
	       st.oom_subscribers == 9, "stats reply: all 9 counters");

	mb_init(&m, FAM, MEM_NOTIFY_CMD_GET_STATS);
	mb_u64(&m, MEM_NOTIFY_A_STATS_EVENTS, 1);
	mb_u32(&m, MEM_NOTIFY_A_STATS_WATCHERS, 5);
	tap_ok(mnotify__parse_stats(m.u.b, m.len, FAM, &st) == 0 &&
	       st.events == 1 && st.watchers == 5 &&
	       st.pressure_subscribers == MNOTIFY_UNKNOWN &&
	       st.oom_subscribers == MNOTIFY_UNKNOWN,
	       "stats reply without subscriber counts (no CAP_SYS_ADMIN): unknown");

	mb_init(&m, FAM, MEM_NOTIFY_CMD_GET_OOM_VICTIM);
	mb_str(&m, MEM_NOTIFY_A_OOM_VICTIM, "java");
	tap_ok(mnotify__parse_oom_victim(m.u.b, m.len, FAM, name) == 0 &&
	       !strcmp(name, "java"), "oom_victim reply");
	mb_init(&m, FAM, MEM_NOTIFY_CMD_GET_OOM_VICTIM);
	tap_ok(mnotify__parse_oom_victim(m.u.b, m.len, FAM, name) == -EBADMSG,
	       "oom_victim reply without the attribute: -EBADMSG");
}

/* an NLMSG_ERROR as the kernel sends it */
static void mb_err(struct mb *m, int error, int capped, const char *text)
{
	struct nlmsgerr e;
	struct nlmsghdr req = { .nlmsg_len = NLMSG_HDRLEN + 8, .nlmsg_type = FAM };

	memset(m, 0, sizeof(*m));
	memset(&e, 0, sizeof(e));
	e.error = error;
	e.msg = req;
	m->u.hdr.nlmsg_type = NLMSG_ERROR;
	m->u.hdr.nlmsg_flags = (uint16_t)((capped ? NLM_F_CAPPED : 0) |
					  (text ? NLM_F_ACK_TLVS : 0));
	m->len = NLMSG_HDRLEN;
	memcpy(m->u.b + m->len, &e, sizeof(e));
	m->len += sizeof(e);
	if (!capped)
		m->len += 8;		/* the request's payload */
	m->u.hdr.nlmsg_len = (uint32_t)m->len;
	if (text)
		mb_attr(m, NLMSGERR_ATTR_MSG, text, strlen(text) + 1);
}

static void test_thresholds(void)
{
	struct mnotify_thresholds t;
	struct mb m;

	mb_init(&m, FAM, MEM_NOTIFY_CMD_GET_THRESHOLDS);
	mb_u32(&m, MEM_NOTIFY_A_LOW_PERMILLE, 100);
	mb_u32(&m, MEM_NOTIFY_A_MEDIUM_PERMILLE, 60);
	mb_u32(&m, MEM_NOTIFY_A_CRITICAL_PERMILLE, 30);
	seed(&m);
	tap_ok(mnotify__parse_thresholds(m.u.b, m.len, FAM, &t) == 0 && t.low == 100 &&
	       t.medium == 60 && t.critical == 30, "thresholds reply parses");
	mb_init(&m, FAM, MEM_NOTIFY_CMD_GET_THRESHOLDS);
	mb_u32(&m, MEM_NOTIFY_A_LOW_PERMILLE, 100);
	mb_u32(&m, MEM_NOTIFY_A_MEDIUM_PERMILLE, 60);
	tap_ok(mnotify__parse_thresholds(m.u.b, m.len, FAM, &t) == -EBADMSG,
	       "thresholds reply without CRITICAL_PERMILLE: -EBADMSG");
	mb_init(&m, FAM, MEM_NOTIFY_CMD_GET_STATS);
	tap_ok(mnotify__parse_thresholds(m.u.b, m.len, FAM, &t) == -ENOMSG,
	       "another command is not a thresholds reply: -ENOMSG");
}

static void test_acks(void)
{
	char msg[64];
	struct mb m;
	int err = 1;

	mb_err(&m, -EINVAL, 1, "oom_victim is longer than 15 bytes");
	seed(&m);
	tap_ok(mnotify__parse_ack(m.u.b, m.len, &err, msg, sizeof(msg)) == 0 &&
	       err == -EINVAL && !strcmp(msg, "oom_victim is longer than 15 bytes"),
	       "capped error with extack: errno and message");
	mb_err(&m, -EPERM, 0, "needs CAP_SYS_ADMIN");
	seed(&m);
	tap_ok(mnotify__parse_ack(m.u.b, m.len, &err, msg, sizeof(msg)) == 0 &&
	       err == -EPERM && !strcmp(msg, "needs CAP_SYS_ADMIN"),
	       "uncapped error (request echoed) with extack");
	mb_err(&m, 0, 1, NULL);
	tap_ok(mnotify__parse_ack(m.u.b, m.len, &err, msg, sizeof(msg)) == 0 &&
	       err == 0 && msg[0] == '\0', "plain ack: 0, no message");
	mb_err(&m, -EOPNOTSUPP, 1, "Unknown command");
	tap_ok(mnotify__parse_ack(m.u.b, m.len, &err, msg, 8) == 0 &&
	       err == -EOPNOTSUPP && !strcmp(msg, "Unknown"),
	       "message truncated to the caller's buffer");
	mb_err(&m, -EINVAL, 1, "x");
	m.u.b[m.len - 8] = 200;			/* TLV longer than the message */
	tap_ok(mnotify__parse_ack(m.u.b, m.len, &err, msg, sizeof(msg)) == -EBADMSG,
	       "extack TLV past the end: -EBADMSG");
	mb_err(&m, -EINVAL, 1, NULL);
	m.u.hdr.nlmsg_len = NLMSG_HDRLEN + 2;
	tap_ok(mnotify__parse_ack(m.u.b, m.len, &err, msg, sizeof(msg)) == -EBADMSG,
	       "error message too short for struct nlmsgerr: -EBADMSG");
	mb_pressure(&m, MEM_NOTIFY_CMD_PRESSURE_ENTER, -1);
	tap_ok(mnotify__parse_ack(m.u.b, m.len, &err, msg, sizeof(msg)) == -ENOMSG,
	       "not an NLMSG_ERROR: -ENOMSG");
}

static void test_seq(void)
{
	uint64_t last = 0, missed = 99;

	tap_ok(mnotify__seq_check(&last, 5, &missed) == 1 && missed == 0 && last == 5,
	       "first event: no baseline, nothing missed");
	tap_ok(mnotify__seq_check(&last, 6, &missed) == 1 && missed == 0,
	       "next in sequence: nothing missed");
	tap_ok(mnotify__seq_check(&last, 9, &missed) == 1 && missed == 2 && last == 9,
	       "gap 6 -> 9: 2 missed");
	tap_ok(mnotify__seq_check(&last, 9, &missed) == 0 &&
	       mnotify__seq_check(&last, 3, &missed) == 0 && last == 9,
	       "duplicate and older (covered by a resync) are dropped");
	tap_ok(mnotify__event_group(MNOTIFY_EVENT_OOM_VICTIM) == MNOTIFY_GROUP_OOM &&
	       mnotify__event_group(MNOTIFY_EVENT_OOM_CANDIDATE) == MNOTIFY_GROUP_OOM &&
	       mnotify__event_group(MNOTIFY_EVENT_OOM_CANDIDATE_CLEAR) == MNOTIFY_GROUP_OOM &&
	       mnotify__event_group(MNOTIFY_EVENT_PRESSURE_EXIT) == MNOTIFY_GROUP_PRESSURE &&
	       mnotify__event_group(MNOTIFY_EVENT_CHARDEV) == 0, "event groups");
	tap_ok(!strcmp(mnotify_event_name(MNOTIFY_EVENT_PRESSURE_ENTER), "enter") &&
	       !strcmp(mnotify_event_name(MNOTIFY_EVENT_LOST), "lost") &&
	       !strcmp(mnotify_event_name((enum mnotify_event_type)77), "unknown") &&
	       !strcmp(mnotify_constraint_name(MNOTIFY_CONSTRAINT_MEMCG), "memcg") &&
	       !strcmp(mnotify_constraint_name(9), "unknown"), "names");
}

static int chardev_cb(const struct mnotify_event *ev, void *arg)
{
	*(struct mnotify_event *)arg = *ev;
	return MNOTIFY_CB_OK;
}

/* write @rep as the "device" at @path, open a chardev handle on it, dispatch once */
static int dispatch_report(const char *path, const struct mem_notify_report *rep,
			   struct mnotify **hp, struct mnotify_event *ev)
{
	int fd = open(path, O_WRONLY | O_TRUNC);

	if (fd < 0 || write(fd, rep, sizeof(*rep)) != sizeof(*rep))
		tap_bail("temporary file");
	close(fd);
	memset(ev, 0, sizeof(*ev));
	return mnotify_open_chardev(hp, path) ? -1 : mnotify_dispatch(*hp, chardev_cb, ev);
}

/* a chardev handle reads the device's report: a file, a FIFO, an empty file */
static void test_chardev(void)
{
	char path[] = "/tmp/test-libmnotify-XXXXXX", fifo[64];
	struct mem_notify_report rep = { .event = 42, .level = MEM_NOTIFY_LEVEL_MEDIUM };
	struct mnotify_event ev;
	struct mnotify *h;
	int fd = mkstemp(path), n, wfd;

	if (fd < 0 || write(fd, &rep, sizeof(rep)) != sizeof(rep))
		tap_bail("temporary file");
	close(fd);
	memset(&ev, 0, sizeof(ev));
	n = mnotify_open_chardev(&h, path) ? -1 : mnotify_dispatch(h, chardev_cb, &ev);
	tap_ok(n == 1 && ev.type == MNOTIFY_EVENT_CHARDEV && ev.seq == 42 &&
	       ev.u.zone.level == MNOTIFY_LEVEL_MEDIUM && ev.u.zone.prev_level == -1 && ev.group == 0,
	       "chardev: the report becomes one event (seq %llu level %d)",
	       (unsigned long long)ev.seq, ev.u.zone.level);
	mnotify_close(h);

	/* reports with the OOM candidate's flags: typed events about us */
	static const struct { uint32_t flags, type; int self; const char *what; } cand[] = {
		{ MEM_NOTIFY_REPORT_OOM_NEXT | MEM_NOTIFY_REPORT_OOM_CHANGED,
		  MNOTIFY_EVENT_OOM_CANDIDATE, 1, "NEXT | CHANGED: OOM_CANDIDATE, ours" },
		{ MEM_NOTIFY_REPORT_OOM_CHANGED,
		  MNOTIFY_EVENT_OOM_CANDIDATE_CLEAR, 0, "CHANGED alone: OOM_CANDIDATE_CLEAR" },
		{ MEM_NOTIFY_REPORT_OOM_NEXT, MNOTIFY_EVENT_CHARDEV, 0,
		  "NEXT without CHANGED (already told): a plain CHARDEV" },
	};
	for (size_t i = 0; i < sizeof(cand) / sizeof(cand[0]); i++) {
		rep.flags = cand[i].flags;
		n = dispatch_report(path, &rep, &h, &ev);
		tap_ok(n == 1 && ev.type == cand[i].type && ev.group == 0 &&
		       mnotify_is_oom_candidate(&ev) == cand[i].self &&
		       (ev.type == MNOTIFY_EVENT_CHARDEV || ev.u.oom.tgid == (uint32_t)getpid()),
		       "chardev report %s (%s)", cand[i].what, mnotify_event_name(ev.type));
		mnotify_close(h);
	}
	rep.flags = 0;
	if (mnotify_open_chardev(&h, path))
		tap_bail("reopen");
	memset(&ev, 0, sizeof(ev));
	mnotify_dispatch(h, chardev_cb, &ev);
	/* the file is at its end now, as an empty one: a short read */
	n = mnotify_dispatch(h, chardev_cb, &ev);
	tap_ok(n == -EIO, "chardev: a short report is -EIO (%d)", n);
	mnotify_close(h);
	unlink(path);

	snprintf(fifo, sizeof(fifo), "/tmp/test-libmnotify-fifo-%d", (int)getpid());
	if (mkfifo(fifo, 0600))
		tap_bail("mkfifo");
	wfd = open(fifo, O_RDWR | O_NONBLOCK);	/* keeps a writer: EAGAIN, not EOF */
	n = mnotify_open_chardev(&h, fifo) ? -1 : mnotify_dispatch(h, chardev_cb, &ev);
	tap_ok(n == 0, "chardev: nothing to read (EAGAIN) delivers nothing (%d)", n);
	mnotify_close(h);
	close(wfd);
	unlink(fifo);
}

/* ------------------------------------------------ handles on socketpairs */

/* a datagram of several messages */
struct dgram {
	union {
		struct nlmsghdr hdr;
		unsigned char b[65536];
	} u;
	size_t len;
};

static void dg_add(struct dgram *d, const struct mb *m)
{
	memcpy(d->u.b + d->len, m->u.b, m->len);
	d->len += NLMSG_ALIGN(m->len);
}

static void dg_send(int fd, struct dgram *d)
{
	if (send(fd, d->u.b, d->len, 0) != (ssize_t)d->len)
		tap_bail("send datagram");
	d->len = 0;
}

static void mb_enter(struct mb *m, uint64_t seq)
{
	mb_pressure(m, MEM_NOTIFY_CMD_PRESSURE_ENTER, MEM_NOTIFY_A_SEQ);
	mb_u64(m, MEM_NOTIFY_A_SEQ, seq);
}

static void mb_zone(struct mb *m, uint32_t seq, uint32_t node, uint64_t state_seq)
{
	mb_init(m, FAM, MEM_NOTIFY_CMD_GET_ZONES);
	m->u.hdr.nlmsg_seq = seq;
	m->u.hdr.nlmsg_flags = NLM_F_MULTI;
	mb_u64(m, MEM_NOTIFY_A_SEQ, state_seq);
	mb_u32(m, MEM_NOTIFY_A_STATUS, 0);
	mb_u32(m, MEM_NOTIFY_A_NODE, node);
	mb_str(m, MEM_NOTIFY_A_ZONE, "Normal");
	mb_u64(m, MEM_NOTIFY_A_FREE_PAGES, 5000 + node);
	mb_u64(m, MEM_NOTIFY_A_HIGH_WMARK, 8);
	mb_u64(m, MEM_NOTIFY_A_THRESHOLD, 16);
}

/* a node of a GET_NODES dump: its level and headroom */
static void mb_node(struct mb *m, uint32_t seq, uint32_t node, uint64_t state_seq,
		    uint32_t level)
{
	mb_init(m, FAM, MEM_NOTIFY_CMD_GET_NODES);
	m->u.hdr.nlmsg_seq = seq;
	m->u.hdr.nlmsg_flags = NLM_F_MULTI;
	mb_u64(m, MEM_NOTIFY_A_SEQ, state_seq);
	mb_u32(m, MEM_NOTIFY_A_NODE, node);
	mb_u32(m, MEM_NOTIFY_A_LEVEL, level);
	mb_u64(m, MEM_NOTIFY_A_HEADROOM, 1234);
	mb_u64(m, MEM_NOTIFY_A_THRESH_LOW, 600);
	mb_str(m, MEM_NOTIFY_A_ZONE, "Normal");
	mb_u64(m, MEM_NOTIFY_A_FREE_PAGES, 5000);
	mb_u64(m, MEM_NOTIFY_A_HIGH_WMARK, 8);
	mb_u64(m, MEM_NOTIFY_A_THRESHOLD, 600);
}

/* the end of a dump: NLMSG_DONE with its error (and ext ack text) */
static void mb_done(struct mb *m, uint32_t seq, int32_t error, const char *text)
{
	memset(m, 0, sizeof(*m));
	m->u.hdr.nlmsg_type = NLMSG_DONE;
	m->u.hdr.nlmsg_seq = seq;
	m->u.hdr.nlmsg_flags = NLM_F_MULTI | (text ? NLM_F_ACK_TLVS : 0);
	m->len = NLMSG_HDRLEN;
	memcpy(m->u.b + m->len, &error, sizeof(error));
	m->len += sizeof(error);
	m->u.hdr.nlmsg_len = (uint32_t)m->len;
	if (text)
		mb_attr(m, NLMSGERR_ATTR_MSG, text, strlen(text) + 1);
}

struct pair {
	struct mnotify *h;
	int ev;		/* the "kernel" end of the event socket */
	int cmd;	/* ... of the command socket */
};

static void pair_open(struct pair *p)
{
	int e[2], c[2];

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, e) ||
	    socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, c))
		tap_bail("socketpair");
	if (mnotify__open_fds(&p->h, e[0], c[0], FAM,
			      MNOTIFY_GROUP_PRESSURE | MNOTIFY_GROUP_OOM))
		tap_bail("mnotify__open_fds");
	p->ev = e[1];
	p->cmd = c[1];
}

static void pair_close(struct pair *p)
{
	mnotify_close(p->h);
	close(p->ev);
	close(p->cmd);
}

/* what callbacks saw */
#define LOG_MAX 256
struct seen {
	int n;
	uint32_t type[LOG_MAX];
	uint64_t seq[LOG_MAX];
	uint64_t lost[LOG_MAX];
	int stop_at;		/* return STOP at this event (1-based; 0 never) */
	int error_at;		/* return ERROR with errno ENOSPC at this one */
	int bad_at;		/* return 7 (not a convention value) */
	struct pair *resync_at_seq1;	/* resync from the callback of seq 1 */
	int resync_ret;
	int nested;		/* mnotify_dispatch()'s return from a callback */
	struct mnotify *h;
};

static int log_cb(const struct mnotify_event *ev, void *arg)
{
	struct seen *s = arg;
	int i = s->n;

	if (i < LOG_MAX) {
		s->type[i] = ev->type;
		s->seq[i] = ev->seq;
		s->lost[i] = ev->type == MNOTIFY_EVENT_LOST ? ev->u.lost.count : 0;
	}
	s->n++;
	if (s->h)
		s->nested = mnotify_dispatch(s->h, log_cb, s);
	if (s->resync_at_seq1 && ev->type == MNOTIFY_EVENT_PRESSURE_ENTER &&
	    ev->seq == 1)
		s->resync_ret = mnotify_resync(s->resync_at_seq1->h, log_cb, s);
	if (s->n == s->stop_at)
		return MNOTIFY_CB_STOP;
	if (s->n == s->error_at) {
		errno = ENOSPC;
		return MNOTIFY_CB_ERROR;
	}
	if (s->n == s->bad_at)
		return 7;
	return MNOTIFY_CB_OK;
}

/* a callback's stop or error loses nothing already received */
static void test_dispatch_stop(void)
{
	struct seen s = { .stop_at = 1 };
	struct dgram d = { .len = 0 };
	struct pair p;
	struct mb m;
	int n;

	pair_open(&p);
	for (uint64_t q = 1; q <= 5; q++) {
		mb_enter(&m, q);
		dg_add(&d, &m);
	}
	dg_send(p.ev, &d);
	n = mnotify_dispatch(p.h, log_cb, &s);
	tap_ok(n == 1 && s.n == 1 && s.seq[0] == 1 && mnotify_pending(p.h),
	       "MNOTIFY_CB_STOP: dispatch returns 1, the rest of the datagram pending (%d)", n);
	s.error_at = 2;
	n = mnotify_dispatch(p.h, log_cb, &s);
	tap_ok(n == -ENOSPC && s.n == 2 && s.seq[1] == 2 && mnotify_pending(p.h),
	       "MNOTIFY_CB_ERROR with errno ENOSPC: -ENOSPC, rest still pending (%d)", n);
	s.bad_at = 3;
	n = mnotify_dispatch(p.h, log_cb, &s);
	tap_ok(n == -EINVAL && s.n == 3 && s.seq[2] == 3,
	       "a callback return outside the convention: -EINVAL (%d)", n);
	n = mnotify_wait(p.h, 0, log_cb, &s);
	tap_ok(n == 2 && s.n == 5 && s.seq[3] == 4 && s.seq[4] == 5 && !mnotify_pending(p.h),
	       "mnotify_wait delivers what is pending without polling: seq 4, 5 (%d)", n);
	n = mnotify_dispatch(p.h, log_cb, &s);
	tap_ok(n == 0 && s.n == 5, "then nothing is left (%d)", n);

	/* a gap: LOST first, and a stop there keeps the event behind it */
	s = (struct seen){ .stop_at = 1 };
	mb_enter(&m, 9);
	dg_add(&d, &m);
	dg_send(p.ev, &d);
	n = mnotify_dispatch(p.h, log_cb, &s);
	tap_ok(n == 1 && s.type[0] == MNOTIFY_EVENT_LOST && s.lost[0] == 3 &&
	       mnotify_lost(p.h, MNOTIFY_GROUP_PRESSURE) == 3 &&
	       mnotify_lost(p.h, MNOTIFY_GROUP_OOM) == 0 && mnotify_pending(p.h),
	       "gap 5 -> 9: LOST of 3 first, counted by mnotify_lost()");
	n = mnotify_dispatch(p.h, log_cb, &s);
	tap_ok(n == 1 && s.n == 2 && s.type[1] == MNOTIFY_EVENT_PRESSURE_ENTER && s.seq[1] == 9,
	       "the event behind a stopped LOST comes next (seq %llu)",
	       (unsigned long long)s.seq[1]);

	/* dispatch from its own callback */
	s = (struct seen){ .h = p.h, .nested = 1 };
	mb_enter(&m, 10);
	dg_add(&d, &m);
	dg_send(p.ev, &d);
	n = mnotify_dispatch(p.h, log_cb, &s);
	tap_ok(n == 1 && s.nested == -EBUSY, "dispatch from its own callback: -EBUSY (%d)",
	       s.nested);
	pair_close(&p);
}

/*
 * A resync from the callback: its reply has its own buffer, and events
 * of the same datagram that it covers are dropped, not delivered stale.
 */
static void test_dispatch_resync(void)
{
	struct seen s = { .n = 0 };
	struct dgram d = { .len = 0 };
	struct pair p;
	struct mb m;
	char req[256];
	int n, i;

	pair_open(&p);
	s.resync_at_seq1 = &p;
	/* the reply to request 1 (GET_ZONES), queued before it is asked */
	mb_zone(&m, 1, 0, 3);
	dg_add(&d, &m);
	mb_zone(&m, 1, 1, 3);
	dg_add(&d, &m);
	mb_done(&m, 1, 0, NULL);
	dg_add(&d, &m);
	dg_send(p.cmd, &d);
	/* ... and to request 2 (GET_NODES): one node, at medium */
	mb_node(&m, 2, 0, 3, MNOTIFY_LEVEL_MEDIUM);
	dg_add(&d, &m);
	mb_done(&m, 2, 0, NULL);
	dg_add(&d, &m);
	dg_send(p.cmd, &d);
	for (uint64_t q = 1; q <= 4; q++) {
		mb_enter(&m, q);
		dg_add(&d, &m);
	}
	dg_send(p.ev, &d);
	n = mnotify_dispatch(p.h, log_cb, &s);
	tap_ok(s.resync_ret == 3, "resync from a callback delivers 2 zones and 1 node (%d)",
	       s.resync_ret);
	tap_ok(n == 2 && s.n == 5 &&
	       s.type[0] == MNOTIFY_EVENT_PRESSURE_ENTER && s.seq[0] == 1 &&
	       s.type[1] == MNOTIFY_EVENT_ZONE_STATE && s.type[2] == MNOTIFY_EVENT_ZONE_STATE &&
	       s.type[3] == MNOTIFY_EVENT_NODE_STATE &&
	       s.type[4] == MNOTIFY_EVENT_PRESSURE_ENTER && s.seq[4] == 4,
	       "dispatch goes on after it: seq 1, two zones, the node, seq 4 (2 and 3 covered) (n %d, %d seen)",
	       n, s.n);
	n = (int)recv(p.cmd, req, sizeof(req), MSG_DONTWAIT);
	tap_ok(n >= (int)(NLMSG_HDRLEN + GENL_HDRLEN) &&
	       ((struct nlmsghdr *)req)->nlmsg_seq == 1 &&
	       (((struct nlmsghdr *)req)->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP &&
	       ((struct genlmsghdr *)NLMSG_DATA((struct nlmsghdr *)req))->cmd ==
	       MEM_NOTIFY_CMD_GET_ZONES,
	       "the resync asked for the zone dump first");
	n = (int)recv(p.cmd, req, sizeof(req), MSG_DONTWAIT);
	tap_ok(n >= (int)(NLMSG_HDRLEN + GENL_HDRLEN) &&
	       ((struct nlmsghdr *)req)->nlmsg_seq == 2 &&
	       ((struct genlmsghdr *)NLMSG_DATA((struct nlmsghdr *)req))->cmd ==
	       MEM_NOTIFY_CMD_GET_NODES,
	       "then for the node dump");
	pair_close(&p);

	/* many zones: all of them (the library once stopped at 64) */
	pair_open(&p);
	for (i = 0; i < 150; i++) {
		mb_zone(&m, 1, (uint32_t)i, 7);
		dg_add(&d, &m);
		if (d.len > 60000) {
			dg_send(p.cmd, &d);
		}
	}
	mb_done(&m, 1, 0, NULL);
	dg_add(&d, &m);
	dg_send(p.cmd, &d);
	/* a kernel without levels: the node dump is not supported */
	mb_done(&m, 2, -EOPNOTSUPP, "Command does not support dump requests");
	dg_add(&d, &m);
	dg_send(p.cmd, &d);
	s = (struct seen){ .n = 0 };
	n = mnotify_resync(p.h, log_cb, &s);
	tap_ok(n == 150 && s.n == 150 && s.type[149] == MNOTIFY_EVENT_ZONE_STATE,
	       "resync of 150 zones delivers 150, and no node from a kernel without levels (%d)", n);
	pair_close(&p);

	/* mnotify_get_nodes: a node's level and headroom */
	pair_open(&p);
	mb_node(&m, 1, 0, 9, MNOTIFY_LEVEL_CRITICAL);
	dg_add(&d, &m);
	mb_node(&m, 1, 1, 8, MNOTIFY_LEVEL_NONE);
	dg_add(&d, &m);
	mb_done(&m, 1, 0, NULL);
	dg_add(&d, &m);
	dg_send(p.cmd, &d);
	{
		struct mnotify_zone nz[4];
		uint64_t nseq = 0;

		n = mnotify_get_nodes(p.h, nz, 4, sizeof(nz[0]), &nseq);
		tap_ok(n == 2 && nz[0].level == MNOTIFY_LEVEL_CRITICAL && nz[0].headroom == 1234 &&
		       nz[0].prev_level == -1 && nz[0].status == MNOTIFY_ZONE_PRESSURE &&
		       nz[1].node == 1 && nz[1].level == MNOTIFY_LEVEL_NONE && nseq == 8,
		       "get_nodes: 2 nodes, levels critical and none, seq the older (%llu)",
		       (unsigned long long)nseq);
	}
	pair_close(&p);
}

static void test_commands(void)
{
	struct mnotify_zone z[4];
	struct {
		struct mnotify_stats st;
		unsigned char guard[32];
	} big;
	unsigned char small[sizeof(struct mnotify_stats) + 8];
	struct {
		struct mnotify_thresholds t;
		uint32_t future;
	} ft;
	struct dgram d = { .len = 0 };
	struct pair p;
	struct mb m;
	int n, ok;

	/* a dump that ends with an error reports it, and its ext ack */
	pair_open(&p);
	mb_zone(&m, 1, 0, 1);
	dg_add(&d, &m);
	mb_done(&m, 1, -EPERM, "dump refused");
	dg_add(&d, &m);
	dg_send(p.cmd, &d);
	n = mnotify_get_zones(p.h, z, 4, sizeof(z[0]), NULL);
	tap_ok(n == -EPERM && !strcmp(mnotify_ext_ack(p.h), "dump refused"),
	       "NLMSG_DONE carrying -EPERM: -EPERM, ext ack '%s' (%d)", mnotify_ext_ack(p.h), n);

	/* more zones than room: the count, and nothing past @max written */
	memset(z, 0xa5, sizeof(z));
	for (int i = 0; i < 6; i++) {
		mb_zone(&m, 2, (uint32_t)i, 1);
		dg_add(&d, &m);
	}
	mb_done(&m, 2, 0, NULL);
	dg_add(&d, &m);
	dg_send(p.cmd, &d);
	n = mnotify_get_zones(p.h, z, 3, sizeof(z[0]), NULL);
	tap_ok(n == 6 && z[2].node == 2 && z[2].size == sizeof(z[0]) &&
	       z[3].node == 0xa5a5a5a5u, "6 zones into room for 3: returns 6, fills 3 (%d)", n);

	/* stats into a smaller (older) and a larger (newer) struct */
	mb_init(&m, FAM, MEM_NOTIFY_CMD_GET_STATS);
	m.u.hdr.nlmsg_seq = 3;
	mb_u32(&m, MEM_NOTIFY_A_STATS_WATCHERS, 5);
	mb_u64(&m, MEM_NOTIFY_A_STATS_EVENTS, 11);
	mb_u32(&m, MEM_NOTIFY_A_STATS_OOM_SUBSCRIBERS, 9);
	dg_add(&d, &m);
	mb_err(&m, 0, 1, NULL);
	m.u.hdr.nlmsg_seq = 3;
	dg_add(&d, &m);
	dg_send(p.cmd, &d);
	memset(small, 0xa5, sizeof(small));
	n = mnotify_get_stats(p.h, (struct mnotify_stats *)(void *)small, 16);
	ok = n == 0;
	for (size_t i = 16; i < sizeof(small); i++)
		ok = ok && small[i] == 0xa5;
	{
		struct mnotify_stats head;

		memcpy(&head, small, 16);
		ok = ok && head.size == 16 && head.watchers == 5 && head.events == 11;
	}
	tap_ok(ok, "stats into 16 bytes (an older struct): those filled, size 16, nothing after");
	mb_init(&m, FAM, MEM_NOTIFY_CMD_GET_STATS);
	m.u.hdr.nlmsg_seq = 4;
	mb_u32(&m, MEM_NOTIFY_A_STATS_OOM_SUBSCRIBERS, 9);
	dg_add(&d, &m);
	mb_err(&m, 0, 1, NULL);
	m.u.hdr.nlmsg_seq = 4;
	dg_add(&d, &m);
	dg_send(p.cmd, &d);
	memset(&big, 0xa5, sizeof(big));
	n = mnotify_get_stats(p.h, &big.st, sizeof(big));
	ok = n == 0 && big.st.size == sizeof(struct mnotify_stats) &&
	     big.st.oom_subscribers == 9 && MNOTIFY_HAS(&big.st, oom_subscribers);
	for (size_t i = 0; i < sizeof(big.guard); i++)
		ok = ok && big.guard[i] == 0;
	tap_ok(ok, "stats into a larger (newer) struct: size says what was filled, the rest zeroed");

	/* thresholds from a newer program: unknown fields must be zero */
	ft.t = (struct mnotify_thresholds){ .low = 100, .medium = 60, .critical = 30 };
	ft.future = 1;
	n = mnotify_set_thresholds(p.h, &ft.t, sizeof(ft));
	tap_ok(n == -E2BIG, "set_thresholds with an unknown field set: -E2BIG (%d)", n);
	ft.future = 0;
	mb_err(&m, 0, 1, NULL);
	m.u.hdr.nlmsg_seq = 5;
	dg_add(&d, &m);
	dg_send(p.cmd, &d);
	n = mnotify_set_thresholds(p.h, &ft.t, sizeof(ft));
	tap_ok(n == 0, "... and with it zero: sent and acked (%d)", n);
	n = mnotify_set_thresholds(p.h, &ft.t, 2);
	tap_ok(n == -EINVAL, "a size that cannot hold ->size: -EINVAL (%d)", n);
	pair_close(&p);
}

/* a CGROUP_LEVEL message: an event (seq 0) or a reply (its request's seq) */
static void mb_cgroup(struct mb *m, uint32_t nlseq, uint64_t seq, uint32_t level,
		      uint32_t prev, int limited, int removed)
{
	mb_init(m, FAM, MEM_NOTIFY_CMD_CGROUP_LEVEL);
	m->u.hdr.nlmsg_seq = nlseq;
	mb_u64(m, MEM_NOTIFY_A_SEQ, seq);
	mb_u64(m, MEM_NOTIFY_A_TIMESTAMP, 1000 + seq);
	mb_u64(m, MEM_NOTIFY_A_CGROUP_ID, 4242);
	mb_str(m, MEM_NOTIFY_A_CGROUP_PATH, "/a/b");
	mb_u32(m, MEM_NOTIFY_A_LEVEL, level);
	mb_u32(m, MEM_NOTIFY_A_PREV_LEVEL, prev);
	if (removed)
		mb_u8(m, MEM_NOTIFY_A_CGROUP_REMOVED, 1);
	if (!limited)
		return;
	mb_u64(m, MEM_NOTIFY_A_HEADROOM, 3000);
	mb_u64(m, MEM_NOTIFY_A_USAGE, 5192);
	mb_u64(m, MEM_NOTIFY_A_LIMIT, 8192);
	mb_u64(m, MEM_NOTIFY_A_THRESH_LOW, 2048);
	mb_u64(m, MEM_NOTIFY_A_THRESH_MEDIUM, 1228);
	mb_u64(m, MEM_NOTIFY_A_THRESH_CRITICAL, 901);
	mb_u64(m, MEM_NOTIFY_A_BINDING_CGROUP_ID, 4241);
	mb_str(m, MEM_NOTIFY_A_BINDING_CGROUP_PATH, "/a");
}

struct cg_seen {
	int n;
	struct mnotify_event ev[8];
};

static int cg_cb(const struct mnotify_event *ev, void *arg)
{
	struct cg_seen *s = arg;

	if (s->n < 8)
		s->ev[s->n] = *ev;
	s->n++;
	return MNOTIFY_CB_OK;
}

/* the request the library wrote on the event socket: its command */
static int read_request(int fd, int *has_fd, int *has_id)
{
	struct mb m;
	ssize_t n = recv(fd, m.u.b, sizeof(m.u.b), MSG_DONTWAIT);
	const struct genlmsghdr *g = (const void *)(m.u.b + NLMSG_HDRLEN);
	size_t off = NLMSG_HDRLEN + GENL_HDRLEN;

	*has_fd = *has_id = 0;
	if (n < (ssize_t)off || m.u.hdr.nlmsg_type != FAM)
		return -1;
	while (off + NLA_HDRLEN <= (size_t)n) {
		const struct nlattr *a = (const void *)(m.u.b + off);

		if (a->nla_len < NLA_HDRLEN)
			break;
		*has_fd |= a->nla_type == MEM_NOTIFY_A_CGROUP_FD;
		*has_id |= a->nla_type == MEM_NOTIFY_A_CGROUP_ID;
		off += NLA_ALIGN(a->nla_len);
	}
	return g->cmd;
}

/* 1.3: cgroup watches, parsed and over the event socket */
static void test_cgroups(void)
{
	struct dgram d = { .len = 0 };
	struct mnotify_event ev;
	struct cg_seen s = { 0 };
	struct pair p;
	struct mb m;
	int n, hf, hi, cmd;

	mb_cgroup(&m, 0, 7, MNOTIFY_LEVEL_MEDIUM, MNOTIFY_LEVEL_LOW, 1, 0);
	tap_ok(parse(&m, &ev) == 0 && ev.type == MNOTIFY_EVENT_CGROUP_LEVEL &&
	       ev.group == MNOTIFY_GROUP_CGROUP && ev.seq == 7 && MNOTIFY_HAS(&ev, cgroup) &&
	       ev.cgroup.id == 4242 && ev.cgroup.level == 2 && ev.cgroup.prev_level == 1 &&
	       ev.cgroup.has_limit && ev.cgroup.limit == 8192 && ev.cgroup.usage == 5192 &&
	       ev.cgroup.headroom == 3000 && ev.cgroup.thresh_critical == 901 &&
	       ev.cgroup.binding_id == 4241 && !strcmp(ev.cgroup.path, "/a/b") &&
	       !strcmp(ev.cgroup.binding_path, "/a") && !ev.cgroup.removed,
	       "CGROUP_LEVEL event: every field, group cgroup");
	mb_cgroup(&m, 0, 8, 0, 0, 0, 1);
	tap_ok(parse(&m, &ev) == 0 && ev.cgroup.removed && !ev.cgroup.has_limit &&
	       ev.cgroup.limit == 0 && !ev.cgroup.binding_path[0],
	       "a removed cgroup's last event: removed 1, no limit");
	mb_cgroup(&m, 5, 1, 1, 0, 1, 0);
	tap_ok(parse(&m, &ev) == 0 && ev.type == MNOTIFY_EVENT_CGROUP_STATE &&
	       ev.cgroup.prev_level == ev.cgroup.level,
	       "a CGROUP_LEVEL reply (nlmsg_seq set) is a CGROUP_STATE, prev = level");
	mb_init(&m, FAM, MEM_NOTIFY_CMD_CGROUP_LEVEL);
	mb_u64(&m, MEM_NOTIFY_A_SEQ, 1);
	mb_u64(&m, MEM_NOTIFY_A_TIMESTAMP, 1);
	mb_u32(&m, MEM_NOTIFY_A_LEVEL, 1);
	tap_ok(parse(&m, &ev) == -EBADMSG, "CGROUP_LEVEL without CGROUP_ID: -EBADMSG");
	tap_ok(!strcmp(mnotify_event_name(MNOTIFY_EVENT_CGROUP_LEVEL), "cgroup") &&
	       !strcmp(mnotify_event_name(MNOTIFY_EVENT_CGROUP_STATE), "cgroup-state"),
	       "event names cgroup, cgroup-state");

	/*
	 * A watch: the request goes on the event socket; an event that came
	 * first, the reply and the ack are read while waiting, and dispatch
	 * delivers the event then the state, in that order, the ack not.
	 */
	pair_open(&p);
	mb_enter(&m, 1);
	dg_add(&d, &m);
	dg_send(p.ev, &d);
	mb_cgroup(&m, 0, 3, 1, 0, 1, 0);
	dg_add(&d, &m);
	dg_send(p.ev, &d);
	mb_cgroup(&m, 0x80000001u, 1, 0, 0, 1, 0);
	dg_add(&d, &m);
	dg_send(p.ev, &d);
	mb_err(&m, 0, 1, NULL);
	m.u.hdr.nlmsg_seq = 0x80000001u;
	dg_add(&d, &m);
	dg_send(p.ev, &d);
	n = mnotify_watch_cgroup(p.h, 0);
	cmd = read_request(p.ev, &hf, &hi);
	tap_ok(n == 0 && cmd == MEM_NOTIFY_CMD_CGROUP_WATCH && hf && !hi,
	       "mnotify_watch_cgroup(): CGROUP_WATCH with CGROUP_FD on the event socket, acked (%d)", n);
	tap_ok(mnotify_pending(p.h), "what was read meanwhile is pending");
	n = mnotify_dispatch(p.h, cg_cb, &s);
	tap_ok(n == 3 && s.n == 3 && s.ev[0].type == MNOTIFY_EVENT_PRESSURE_ENTER &&
	       s.ev[1].type == MNOTIFY_EVENT_CGROUP_LEVEL && s.ev[1].seq == 3 &&
	       s.ev[2].type == MNOTIFY_EVENT_CGROUP_STATE && s.ev[2].cgroup.id == 4242,
	       "dispatch: the pressure event, the cgroup event, then the state (%d)", n);

	/* refused: the errno and the kernel's reason */
	mb_err(&m, -EACCES, 1, "only its manager may watch it");
	m.u.hdr.nlmsg_seq = 0x80000002u;
	dg_add(&d, &m);
	dg_send(p.ev, &d);
	n = mnotify_watch_cgroup(p.h, 0);
	read_request(p.ev, &hf, &hi);
	tap_ok(n == -EACCES && !strcmp(mnotify_ext_ack(p.h), "only its manager may watch it"),
	       "a refused watch: -EACCES and the ext ack (%d, '%s')", n, mnotify_ext_ack(p.h));
	tap_ok(mnotify_watch_cgroup(p.h, -1) == -EBADF, "a negative fd: -EBADF, nothing sent");

	/* the list: two states and the end of the dump */
	mb_cgroup(&m, 0x80000003u, 2, 1, 1, 1, 0);
	m.u.hdr.nlmsg_flags = NLM_F_MULTI;
	dg_add(&d, &m);
	mb_cgroup(&m, 0x80000003u, 1, 0, 0, 0, 0);
	m.u.hdr.nlmsg_flags = NLM_F_MULTI;
	dg_add(&d, &m);
	mb_done(&m, 0x80000003u, 0, NULL);
	dg_add(&d, &m);
	dg_send(p.ev, &d);
	s.n = 0;
	n = mnotify_get_cgroups(p.h);
	cmd = read_request(p.ev, &hf, &hi);
	tap_ok(n == 2 && cmd == MEM_NOTIFY_CMD_CGROUP_LEVEL &&
	       mnotify_dispatch(p.h, cg_cb, &s) == 2 &&
	       s.ev[0].type == MNOTIFY_EVENT_CGROUP_STATE && s.ev[0].cgroup.level == 1 &&
	       s.ev[1].type == MNOTIFY_EVENT_CGROUP_STATE && !s.ev[1].cgroup.has_limit,
	       "mnotify_get_cgroups(): 2, then two CGROUP_STATE (%d)", n);

	/* unwatch by id */
	mb_err(&m, 0, 1, NULL);
	m.u.hdr.nlmsg_seq = 0x80000004u;
	dg_add(&d, &m);
	dg_send(p.ev, &d);
	n = mnotify_unwatch_cgroup(p.h, 4242);
	cmd = read_request(p.ev, &hf, &hi);
	tap_ok(n == 0 && cmd == MEM_NOTIFY_CMD_CGROUP_UNWATCH && hi && !hf,
	       "mnotify_unwatch_cgroup(): CGROUP_UNWATCH with CGROUP_ID (%d)", n);
	pair_close(&p);
}

/* 1.4: cgroup paths in OOM events, CGROUP_OOM, a chardev bound to a cgroup */
static void test_cgroup_oom(void)
{
	char path[] = "/tmp/test-libmnotify-XXXXXX";
	struct mem_notify_report rep = {
		.event = 9, .level = MEM_NOTIFY_LEVEL_LOW,
		.flags = MEM_NOTIFY_REPORT_CGROUP,
	};
	struct mnotify_event ev;
	struct mnotify *h;
	struct mb m;
	int fd, n;

	mb_oom(&m, 1);
	mb_u64(&m, MEM_NOTIFY_A_CGROUP_ID, 4243);
	mb_u64(&m, MEM_NOTIFY_A_OOM_MEMCG_ID, 4242);
	mb_str(&m, MEM_NOTIFY_A_CGROUP_PATH, "/a/b/c");
	mb_str(&m, MEM_NOTIFY_A_OOM_MEMCG_PATH, "/a/b");
	tap_ok(parse(&m, &ev) == 0 && ev.type == MNOTIFY_EVENT_OOM_VICTIM &&
	       ev.group == MNOTIFY_GROUP_OOM && MNOTIFY_HAS(&ev, oom_cgroups) &&
	       ev.why.cgroup_id == 4243 && !strcmp(ev.oom_cgroups.path, "/a/b/c") &&
	       ev.why.oom_memcg_id == 4242 && !strcmp(ev.oom_cgroups.oom_memcg_path, "/a/b") &&
	       ev.oom_cgroups.watch_id == 0,
	       "OOM_VICTIM with CGROUP_PATH and OOM_MEMCG_PATH: both paths");
	mb_oom(&m, 1);
	tap_ok(parse(&m, &ev) == 0 && !ev.oom_cgroups.path[0] &&
	       !ev.oom_cgroups.oom_memcg_path[0],
	       "OOM_VICTIM without paths (older kernel, cgroup gone): empty paths");
	mb_oom(&m, 1);
	((struct genlmsghdr *)NLMSG_DATA(&m.u.hdr))->cmd = MEM_NOTIFY_CMD_CGROUP_OOM;
	mb_u64(&m, MEM_NOTIFY_A_CGROUP_ID, 4243);
	mb_str(&m, MEM_NOTIFY_A_CGROUP_PATH, "/b/c");
	mb_u64(&m, MEM_NOTIFY_A_WATCH_CGROUP_ID, 4242);
	tap_ok(parse(&m, &ev) == 0 && ev.type == MNOTIFY_EVENT_CGROUP_OOM &&
	       ev.group == MNOTIFY_GROUP_CGROUP && ev.seq == 7 && ev.u.oom.tgid == 210 &&
	       !strcmp(ev.u.oom.comm, "cache-worker") && ev.oom_cgroups.watch_id == 4242 &&
	       !strcmp(ev.oom_cgroups.path, "/b/c") &&
	       !strcmp(mnotify_event_name(MNOTIFY_EVENT_CGROUP_OOM), "cgroup-oom"),
	       "CGROUP_OOM: an OOM event of group cgroup, with the watch's id");

	/* a chardev report of a bound file, then its cgroup's removal */
	fd = mkstemp(path);
	if (fd < 0 || write(fd, &rep, sizeof(rep)) != sizeof(rep))
		tap_bail("temporary file");
	close(fd);
	memset(&ev, 0, sizeof(ev));
	n = mnotify_open_chardev(&h, path) ? -1 : mnotify_dispatch(h, chardev_cb, &ev);
	tap_ok(n == 1 && ev.type == MNOTIFY_EVENT_CHARDEV && ev.cgroup.level == 1 &&
	       !ev.cgroup.removed && ev.seq == 9,
	       "chardev report with CGROUP: ev->cgroup.level is the cgroup's (%d)", n);
	mnotify_close(h);
	rep.flags |= MEM_NOTIFY_REPORT_CGROUP_REMOVED;
	rep.level = 0;
	n = dispatch_report(path, &rep, &h, &ev);
	tap_ok(n == 1 && ev.cgroup.removed && ev.cgroup.level == 0 &&
	       mnotify_dispatch(h, chardev_cb, &ev) == -EIDRM,
	       "CGROUP_REMOVED: removed 1, then dispatch says -EIDRM");
	/* a regular file is no cgroup: the ioctl fails, with a message */
	fd = open("/tmp", O_RDONLY | O_DIRECTORY);
	n = mnotify_watch_cgroup(h, fd);
	tap_ok(n < 0 && n != -EIDRM, "binding a chardev handle that is no device fails (%d, '%s')",
	       n, mnotify_ext_ack(h));
	close(fd);
	mnotify_close(h);
	unlink(path);
}

/* a field added by a newer kernel (an attribute unknown here) is ignored */
static void test_unknown_attrs(void)
{
	struct mnotify_event ev;
	struct mb m;

	mb_pressure(&m, MEM_NOTIFY_CMD_PRESSURE_ENTER, -1);
	mb_u64(&m, MEM_NOTIFY_A_MAX + 1, 77);
	mb_str(&m, MEM_NOTIFY_A_MAX + 9, "from the future");
	tap_ok(parse(&m, &ev) == 0 && ev.size == sizeof(ev) && ev.seq == 42 &&
	       ev.u.zone.free_pages == 1401 && MNOTIFY_HAS(&ev, u.zone.thresh_critical),
	       "attributes past MEM_NOTIFY_A_MAX are ignored; the event is whole");
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--write-corpus"))
		corpus = argv[2];
	test_events();
	test_malformed();
	test_replies();
	test_thresholds();
	test_acks();
	test_seq();
	test_chardev();
	test_dispatch_stop();
	test_dispatch_resync();
	test_commands();
	test_cgroups();
	test_cgroup_oom();
	test_unknown_attrs();
	return tap_done();
}
