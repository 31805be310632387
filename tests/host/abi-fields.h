/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Every public struct field of libmnotify-nl 1.0, for test-abi: the frozen
 * 1.0 header (abi/1.0) and the current one must place each at the same
 * offset with the same size.  New fields go at the end of a struct and
 * are not listed here until a new frozen header is added.
 */
#define ABI_FIELDS(F) \
	F(mnotify_zone, size) F(mnotify_zone, node) F(mnotify_zone, name) \
	F(mnotify_zone, status) F(mnotify_zone, unreclaimable) \
	F(mnotify_zone, free_pages) F(mnotify_zone, high_wmark) \
	F(mnotify_zone, threshold) F(mnotify_zone, level) \
	F(mnotify_zone, prev_level) F(mnotify_zone, headroom) \
	F(mnotify_zone, headroom_free) F(mnotify_zone, headroom_file) \
	F(mnotify_zone, headroom_slab) F(mnotify_zone, headroom_swap) \
	F(mnotify_zone, thresh_low) F(mnotify_zone, thresh_medium) \
	F(mnotify_zone, thresh_critical) \
	F(mnotify_thresholds, size) F(mnotify_thresholds, low) \
	F(mnotify_thresholds, medium) F(mnotify_thresholds, critical) \
	F(mnotify_oom, pid) F(mnotify_oom, tgid) F(mnotify_oom, uid) \
	F(mnotify_oom, comm) F(mnotify_oom, has_points) F(mnotify_oom, points) \
	F(mnotify_oom, oom_score_adj) F(mnotify_oom, matched) \
	F(mnotify_oom, constraint) F(mnotify_oom, pages) \
	F(mnotify_lost, group) F(mnotify_lost, count) \
	F(mnotify_event, size) F(mnotify_event, type) F(mnotify_event, group) \
	F(mnotify_event, seq) F(mnotify_event, timestamp_ns) F(mnotify_event, u) \
	F(mnotify_stats, size) F(mnotify_stats, watchers) \
	F(mnotify_stats, events) F(mnotify_stats, sent) F(mnotify_stats, lost) \
	F(mnotify_stats, overrun) F(mnotify_stats, fasync_watchers) \
	F(mnotify_stats, zones_under_pressure) \
	F(mnotify_stats, pressure_subscribers) F(mnotify_stats, oom_subscribers)

struct abi_field {
	const char *name;
	size_t offset, size;
};

#define ABI_ENTRY(s, f) { #s "." #f, offsetof(struct s, f), sizeof(((struct s *)0)->f) },

/* constants a binary built against 1.0 has compiled in */
#define ABI_CONSTANTS(C) \
	C(MNOTIFY_GROUP_PRESSURE) C(MNOTIFY_GROUP_OOM) C(MNOTIFY_ZONE_NAME_MAX) \
	C(MNOTIFY_COMM_MAX) C(MNOTIFY_EVENT_PRESSURE_ENTER) \
	C(MNOTIFY_EVENT_PRESSURE_EXIT) C(MNOTIFY_EVENT_OOM_VICTIM) \
	C(MNOTIFY_EVENT_CHARDEV) C(MNOTIFY_EVENT_LOST) \
	C(MNOTIFY_EVENT_ZONE_STATE) C(MNOTIFY_ZONE_IGNORED) C(MNOTIFY_ZONE_OK) \
	C(MNOTIFY_ZONE_PRESSURE) C(MNOTIFY_LEVEL_NONE) C(MNOTIFY_LEVEL_LOW) \
	C(MNOTIFY_LEVEL_MEDIUM) C(MNOTIFY_LEVEL_CRITICAL) \
	C(MNOTIFY_CONSTRAINT_NONE) C(MNOTIFY_CONSTRAINT_CPUSET) \
	C(MNOTIFY_CONSTRAINT_MEMPOLICY) C(MNOTIFY_CONSTRAINT_MEMCG) \
	C(MNOTIFY_CB_ERROR) C(MNOTIFY_CB_STOP) C(MNOTIFY_CB_OK)

struct abi_const {
	const char *name;
	long value;
};

#define ABI_CONST(c) { #c, (long)(c) },

extern const struct abi_field abi_old_fields[];
extern const struct abi_const abi_old_consts[];
extern const size_t abi_old_nfields, abi_old_nconsts;
/* a program built against 1.0, on today's library: 0 if all it saw was right */
int abi_old_program(char *why, size_t len);
