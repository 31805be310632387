/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libmnotify-nl: memory pressure and OOM events from the kernel's
 * mem_notify generic netlink family (or /dev/mem_notify), as typed events.
 *
 * Errors are negative errno values.  After a failed command,
 * mnotify_ext_ack() returns the kernel's explanation when it gave one.
 * No libnl type appears here: link with -lmnotify-nl (pkg-config
 * libmnotify-nl) and nothing else.
 */
#ifndef MNOTIFY_H
#define MNOTIFY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* groups for mnotify_open() */
#define MNOTIFY_GROUP_PRESSURE	(1u << 0)	/* node level changes */
#define MNOTIFY_GROUP_OOM	(1u << 1)	/* OOM kills; CAP_SYS_ADMIN */

#define MNOTIFY_ZONE_NAME_MAX	32
#define MNOTIFY_COMM_MAX	16	/* TASK_COMM_LEN */

enum mnotify_event_type {
	MNOTIFY_EVENT_PRESSURE_ENTER = 1,	/* u.zone: level now low or above */
	MNOTIFY_EVENT_PRESSURE_EXIT = 2,	/* u.zone: level back to none */
	MNOTIFY_EVENT_OOM_VICTIM = 3,		/* u.oom */
	MNOTIFY_EVENT_CHARDEV = 4,		/* /dev/mem_notify woke us */
	MNOTIFY_EVENT_LOST = 5,			/* u.lost: events were lost */
	MNOTIFY_EVENT_ZONE_STATE = 6,		/* u.zone, from mnotify_resync() */
};

/* zone status (struct mnotify_zone.status) */
#define MNOTIFY_ZONE_IGNORED	(-1)	/* too small to matter */
#define MNOTIFY_ZONE_OK		0
#define MNOTIFY_ZONE_PRESSURE	1

/* memory pressure levels of a node (struct mnotify_zone.level) */
enum mnotify_level {
	MNOTIFY_LEVEL_NONE = 0,
	MNOTIFY_LEVEL_LOW = 1,		/* give back what is cheap to rebuild */
	MNOTIFY_LEVEL_MEDIUM = 2,	/* give back more */
	MNOTIFY_LEVEL_CRITICAL = 3,	/* the OOM killer is near: everything */
};

/*
 * A zone (GET_ZONES dump) or, in pressure events, a node's change of
 * level.  Pages throughout.
 */
struct mnotify_zone {
	uint32_t node;
	char name[MNOTIFY_ZONE_NAME_MAX];	/* "DMA32", "Normal", ...; events:
						   the node's highest zone */
	int32_t status;		/* MNOTIFY_ZONE_*: from dumps; events imply it */
	uint64_t free_pages;	/* of the zone (dump) or the node (events) */
	uint64_t high_wmark;
	uint64_t threshold;	/* deprecated: events: thresh_low */
	/* events only; a kernel without levels: low on enter, none on exit */
	int32_t level;		/* enum mnotify_level */
	int32_t prev_level;	/* the level before; -1 unknown */
	uint64_t headroom;	/* free + file + slab + swap below */
	uint64_t headroom_free;
	uint64_t headroom_file;
	uint64_t headroom_slab;
	uint64_t headroom_swap;
	uint64_t thresh_low;	/* a level is entered at or below these */
	uint64_t thresh_medium;
	uint64_t thresh_critical;
	int unreclaimable;	/* kswapd has given up on the node */
};

/* level thresholds, 1/1000 of a node's managed pages (1-1000, ordered) */
struct mnotify_thresholds {
	uint32_t low;
	uint32_t medium;
	uint32_t critical;
};

/* what limited the memory of an OOM kill (struct mnotify_oom.constraint) */
enum mnotify_constraint {
	MNOTIFY_CONSTRAINT_NONE = 0,
	MNOTIFY_CONSTRAINT_CPUSET = 1,
	MNOTIFY_CONSTRAINT_MEMPOLICY = 2,
	MNOTIFY_CONSTRAINT_MEMCG = 3,
};

struct mnotify_oom {
	uint32_t pid;		/* thread killed */
	uint32_t tgid;		/* its process */
	uint32_t uid;
	char comm[MNOTIFY_COMM_MAX];
	int64_t points;		/* badness, valid if has_points */
	int has_points;		/* 0 for tasks killed with a memcg oom.group */
	int32_t oom_score_adj;
	int matched;		/* 1: vm.oom_victim chose it */
	uint32_t constraint;	/* enum mnotify_constraint */
	uint64_t pages;		/* expected to be freed */
};

struct mnotify_lost {
	unsigned int group;	/* MNOTIFY_GROUP_* (or several) affected */
	uint64_t count;		/* events missed; 0 = unknown (socket overrun) */
};

struct mnotify_event {
	enum mnotify_event_type type;
	unsigned int group;	/* MNOTIFY_GROUP_* it belongs to; 0: chardev */
	uint64_t seq;		/* kernel sequence number in its group; 0: none */
	/*
	 * CLOCK_MONOTONIC ns: the kernel's time of the event for netlink
	 * events and zone states (the dump's time: receipt); the library's
	 * time of receipt for CHARDEV and LOST.
	 */
	uint64_t timestamp_ns;
	union {
		struct mnotify_zone zone;
		struct mnotify_oom oom;
		struct mnotify_lost lost;
	} u;
};

struct mnotify_stats {
	uint64_t events;		/* /dev/mem_notify wake-up events */
	uint64_t sent;			/* netlink events multicast */
	uint64_t lost;			/* not sent: sequence gaps */
	uint64_t overrun;		/* some subscriber missed them */
	uint32_t watchers;		/* open /dev/mem_notify files */
	uint32_t fasync_watchers;
	uint32_t zones_under_pressure;
	uint32_t pressure_subscribers;
	uint32_t oom_subscribers;
};

struct mnotify;

/*
 * Return 0 to go on; anything else stops dispatching and is returned by
 * mnotify_dispatch()/mnotify_wait()/mnotify_resync().
 */
typedef int (*mnotify_callback)(const struct mnotify_event *ev, void *arg);

/*
 * Open a handle on the netlink family and join @groups (0: commands only).
 * Returns 0 or -errno: -ENOENT when the kernel has no mem_notify family,
 * -EPERM when a group needs a privilege the caller lacks.
 */
int mnotify_open(struct mnotify **hp, unsigned int groups);

/*
 * Open a handle on the character device (@path NULL: /dev/mem_notify).
 * Its events are MNOTIFY_EVENT_CHARDEV; commands still work (they use
 * netlink).
 */
int mnotify_open_chardev(struct mnotify **hp, const char *path);

void mnotify_close(struct mnotify *h);

/* The file descriptor to poll for POLLIN (never blocks the library). */
int mnotify_fd(const struct mnotify *h);

/*
 * Deliver the events that are ready, without blocking.  Returns the
 * number delivered, a callback's non-zero return, or -errno.  Lost
 * events (socket overrun, sequence gaps) arrive as MNOTIFY_EVENT_LOST
 * before the next event; then call mnotify_resync().  For a chardev
 * handle each call reads (acknowledges) the device's report and delivers
 * one MNOTIFY_EVENT_CHARDEV, or returns 0 if the file was not told: seq
 * is the kernel's wake-up event number and u.zone.level the highest level
 * now (a kernel without read(): seq 0, level -1); other fields are 0.
 */
int mnotify_dispatch(struct mnotify *h, mnotify_callback cb, void *arg);

/*
 * Wait up to @timeout_ms (-1: forever) for events and deliver them.
 * Returns the number delivered (0: timed out), a callback's non-zero
 * return, or -errno (-EINTR if a signal came first).
 */
int mnotify_wait(struct mnotify *h, int timeout_ms, mnotify_callback cb,
		 void *arg);

/*
 * Deliver every zone's current state as MNOTIFY_EVENT_ZONE_STATE and
 * ignore later pressure events that the state already includes.
 */
int mnotify_resync(struct mnotify *h, mnotify_callback cb, void *arg);

/* Commands: 0 (or a count) or -errno; see mnotify_ext_ack(). */
int mnotify_get_oom_victim(struct mnotify *h, char name[MNOTIFY_COMM_MAX]);
int mnotify_set_oom_victim(struct mnotify *h, const char *name);
/*
 * Fill up to @max zones; returns the number of zones the kernel has (may
 * be more than @max).  *@seq (if not NULL): the pressure sequence number
 * the states are at least as new as.
 */
int mnotify_get_zones(struct mnotify *h, struct mnotify_zone *zones,
		      size_t max, uint64_t *seq);
int mnotify_get_stats(struct mnotify *h, struct mnotify_stats *st);
int mnotify_get_thresholds(struct mnotify *h, struct mnotify_thresholds *t);
/* needs CAP_SYS_ADMIN; with an ext ack: -ERANGE unless each is 1-1000, -EINVAL unless low > medium > critical */
int mnotify_set_thresholds(struct mnotify *h,
			   const struct mnotify_thresholds *t);

/* The kernel's extended ack message of the last failed command, or "". */
const char *mnotify_ext_ack(const struct mnotify *h);

/*
 * Pure parsers (no handle, no socket), for tests and for programs that
 * read the socket themselves.  @msg is one netlink message (header
 * included) of @len bytes; @family is the family id.  They return 0,
 * -ENOMSG if the message is not of that kind (other family or command),
 * -EBADMSG if it is malformed, truncated or lacks a needed attribute.
 * Unknown attributes are ignored.
 */
int mnotify_parse_event(const void *msg, size_t len, uint16_t family,
			struct mnotify_event *ev);
int mnotify_parse_zone(const void *msg, size_t len, uint16_t family,
		       struct mnotify_zone *zone, uint64_t *seq);
int mnotify_parse_stats(const void *msg, size_t len, uint16_t family,
			struct mnotify_stats *st);
int mnotify_parse_oom_victim(const void *msg, size_t len, uint16_t family,
			     char name[MNOTIFY_COMM_MAX]);
int mnotify_parse_thresholds(const void *msg, size_t len, uint16_t family,
			     struct mnotify_thresholds *t);
/*
 * An NLMSG_ERROR message: *@error gets its error (0: ack), @msgbuf the
 * extended ack text ("" if none).  -ENOMSG if not NLMSG_ERROR.
 */
int mnotify_parse_ack(const void *msg, size_t len, int *error,
		      char *msgbuf, size_t msgbuf_len);

/* Names for printing: "enter", "exit", "oom", "chardev", "lost", "zone". */
const char *mnotify_event_name(enum mnotify_event_type type);
/* "none", "cpuset", "mempolicy", "memcg" (or "unknown") */
const char *mnotify_constraint_name(uint32_t constraint);
/* "none", "low", "medium", "critical" (or "unknown") */
const char *mnotify_level_name(int level);
/* the level of a name above (or its number); -EINVAL if none */
int mnotify_level_from_name(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* MNOTIFY_H */
