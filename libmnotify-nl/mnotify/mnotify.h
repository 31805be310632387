/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libmnotify-nl: memory pressure and OOM events from the kernel's
 * mem_notify generic netlink family (or /dev/mem_notify), as typed events.
 *
 *   #include <mnotify/mnotify.h>     cc ... $(pkg-config --cflags --libs libmnotify-nl)
 *
 * Errors are negative errno values.  After a failed command,
 * mnotify_ext_ack() returns the kernel's explanation when it gave one.
 * No libnl type appears here.
 *
 * ABI: soname libmnotify-nl.so.1; symbol versions MNOTIFY_NL_1.0,
 * MNOTIFY_NL_1.1 (mnotify_get_nodes(), MNOTIFY_EVENT_NODE_STATE) and
 * MNOTIFY_NL_1.2 (the OOM candidate events, struct mnotify_event.why,
 * mnotify_is_oom_candidate(), mnotify_oom_reason_name()) and
 * MNOTIFY_NL_1.3 (levels per memory cgroup: mnotify_watch_cgroup() and
 * friends, struct mnotify_event.cgroup, mnotify_stats.cgroup_watches);
 * 1.4 adds no symbol (MNOTIFY_EVENT_CGROUP_OOM, struct
 * mnotify_event.oom_cgroups, mnotify_watch_cgroup() on a chardev
 * handle).  A program that needs 1.x checks MNOTIFY_NL_VERSION_MINOR at build time and
 * pkg-config --atleast-version 1.x libmnotify-nl.  Structs
 * grow only at their end, and each starts with a size:
 *  - structs the library fills for a callback (struct mnotify_event): the
 *    library sets ->size to the bytes it filled; a field is there if
 *    MNOTIFY_HAS(ev, field) (a program built against a newer header, run
 *    with an older library, sees the newer fields as absent);
 *  - structs the caller passes in (stats, thresholds, zones) come with the
 *    caller's sizeof: the library fills at most that many bytes, zeroes
 *    the rest of them and sets ->size to what it filled; when reading one
 *    (mnotify_set_thresholds()) it ignores nothing silently: bytes it does
 *    not know must be zero or the call fails with -E2BIG.
 * Event types, levels and constraints may gain values: ignore (or show as
 * "unknown") those you do not know.  Attributes a newer kernel adds are
 * ignored until the library knows them.
 *
 * Threads and reentrancy.  The library has no global state; a handle has
 * no lock: use it from one thread at a time (one handle per thread, or a
 * lock of your own).  From a callback you may call, on the same handle,
 * any command (mnotify_get_*, mnotify_set_*) and mnotify_resync(): they
 * have their own socket and buffer, and pressure events still queued that
 * a resync has covered are then dropped, never delivered stale.  Calling
 * mnotify_dispatch() or mnotify_wait() on the handle whose events are
 * being delivered returns -EBUSY; mnotify_close() on it is not allowed.
 */
#ifndef MNOTIFY_MNOTIFY_H
#define MNOTIFY_MNOTIFY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* the version of this header */
#define MNOTIFY_NL_VERSION_MAJOR	1
#define MNOTIFY_NL_VERSION_MINOR	4

/* a field of a struct with a size member is present */
#define MNOTIFY_HAS(p, field) \
	((size_t)(p)->size >= offsetof(__typeof__(*(p)), field) + sizeof((p)->field))

/* groups for mnotify_open() */
#define MNOTIFY_GROUP_PRESSURE	(1u << 0)	/* node level changes */
#define MNOTIFY_GROUP_OOM	(1u << 1)	/* OOM kills; CAP_SYS_ADMIN */
/*
 * 1.3, struct mnotify_event.group of the events of cgroup watches
 * (mnotify_watch_cgroup()); not a multicast group: not for mnotify_open()
 */
#define MNOTIFY_GROUP_CGROUP	(1u << 2)

#define MNOTIFY_ZONE_NAME_MAX	32
#define MNOTIFY_COMM_MAX	16	/* TASK_COMM_LEN */

/* struct mnotify_event.type; more may come: ignore those you do not know */
enum mnotify_event_type {
	MNOTIFY_EVENT_PRESSURE_ENTER = 1,	/* u.zone: level now low or above */
	MNOTIFY_EVENT_PRESSURE_EXIT = 2,	/* u.zone: level back to none */
	MNOTIFY_EVENT_OOM_VICTIM = 3,		/* u.oom */
	MNOTIFY_EVENT_CHARDEV = 4,		/* /dev/mem_notify told us */
	MNOTIFY_EVENT_LOST = 5,			/* u.lost: events were lost */
	MNOTIFY_EVENT_ZONE_STATE = 6,		/* u.zone, from mnotify_resync() */
	MNOTIFY_EVENT_NODE_STATE = 7,		/* u.zone: a node's level, from
						   mnotify_resync() (1.1) */
	/*
	 * 1.2, u.oom and why: while a node is at critical, the task the OOM
	 * killer would choose now (when that changes), and the end of that
	 * (another task is next, or the pressure fell below critical).
	 * From the "oom" group: any task.  From a chardev handle: only this
	 * process (u.oom.pid and tgid are getpid(), the rest 0), and then
	 * give back everything you can.  See mnotify_is_oom_candidate().
	 */
	MNOTIFY_EVENT_OOM_CANDIDATE = 8,
	MNOTIFY_EVENT_OOM_CANDIDATE_CLEAR = 9,
	/*
	 * 1.3, ev->cgroup: a watched cgroup's level changed (seq: the
	 * watch's own sequence number, from 1; a gap: events were lost) ...
	 */
	MNOTIFY_EVENT_CGROUP_LEVEL = 10,
	/*
	 * ... or its state now: the reply to mnotify_watch_cgroup() and each
	 * watch listed by mnotify_get_cgroups() (prev_level = level)
	 */
	MNOTIFY_EVENT_CGROUP_STATE = 11,
	/*
	 * 1.4, u.oom, why and oom_cgroups: an OOM kill in the subtree of a
	 * cgroup this handle watches (oom_cgroups.watch_id), paths relative
	 * to the watcher's cgroup namespace.  seq is the kill's number in
	 * the oom group (the same kill as its OOM_VICTIM; gaps are the
	 * kills elsewhere, not losses).
	 */
	MNOTIFY_EVENT_CGROUP_OOM = 12,
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
 * A zone (mnotify_get_zones(), ZONE_STATE) or, in pressure events, a
 * node's change of level.  Pages throughout.  ->size: see the ABI note.
 */
struct mnotify_zone {
	uint32_t size;
	uint32_t node;
	char name[MNOTIFY_ZONE_NAME_MAX];	/* "DMA32", "Normal", ...; events:
						   the node's highest zone */
	int32_t status;		/* MNOTIFY_ZONE_*: from dumps; events imply it */
	int32_t unreclaimable;	/* events: kswapd has given up on the node */
	uint64_t free_pages;	/* of the zone (dump) or the node (events) */
	uint64_t high_wmark;
	uint64_t threshold;	/* dump: the zone's trigger; events: thresh_low */
	/* events only; a kernel without levels: low on enter, none on exit */
	int32_t level;		/* enum mnotify_level */
	int32_t prev_level;	/* the level before; -1 unknown */
	uint64_t headroom;	/* free + file + slab + swap below */
	uint64_t headroom_free;
	uint64_t headroom_file;
	uint64_t headroom_slab;
	uint64_t headroom_swap;
	uint64_t thresh_low;	/* a level is entered at or below these
				   (low also within twice thresh_low on
				   swap-out or a fast fall: headroom above
				   it then) */
	uint64_t thresh_medium;
	uint64_t thresh_critical;
};

/* level thresholds, 1/1000 of a node's managed pages (1-1000, ordered) */
struct mnotify_thresholds {
	uint32_t size;
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

/* why the OOM killer chose a task (struct mnotify_oom_why.reason), 1.2 */
enum mnotify_oom_reason {
	MNOTIFY_OOM_REASON_BADNESS = 0,		/* the most badness points */
	MNOTIFY_OOM_REASON_NAME = 1,		/* vm.oom_victim matched */
	MNOTIFY_OOM_REASON_PRIORITY = 2,	/* memory.oom.priority decided */
	MNOTIFY_OOM_REASON_ORIGIN = 3,		/* marked to go first (swapoff) */
	MNOTIFY_OOM_REASON_ALLOCATING = 4,	/* vm.oom_kill_allocating_task */
	MNOTIFY_OOM_REASON_GROUP = 5,		/* killed with memory.oom.group */
};

/* OOM_VICTIM and OOM_CANDIDATE*: the task (the victim, or the candidate) */
struct mnotify_oom {
	uint32_t pid;		/* thread killed */
	uint32_t tgid;		/* its process */
	uint32_t uid;		/* UINT32_MAX: unknown */
	char comm[MNOTIFY_COMM_MAX];	/* raw bytes from the kernel, NUL-ended */
	int32_t has_points;	/* 0 for tasks killed with a memcg oom.group */
	int64_t points;		/* badness, valid if has_points */
	int32_t oom_score_adj;
	int32_t matched;	/* 1: vm.oom_victim chose it */
	uint32_t constraint;	/* enum mnotify_constraint */
	uint64_t pages;		/* expected to be freed */
};

/*
 * Why the OOM killer chose the task of an OOM_VICTIM or OOM_CANDIDATE*
 * event (1.2: MNOTIFY_HAS(ev, why); absent with an older library, and
 * zero when the kernel did not say).  Cgroup ids are cgroup v2 ids, what
 * name_to_handle_at() gives for the cgroup's directory (on 64-bit
 * machines also its inode number); 0: not known.
 */
struct mnotify_oom_why {
	uint32_t reason;		/* enum mnotify_oom_reason */
	uint32_t priority;		/* reason PRIORITY: the deciding value */
	uint64_t cgroup_id;		/* the task's memory cgroup */
	uint64_t oom_memcg_id;		/* memcg OOM: the cgroup that ran out */
	uint64_t priority_cgroup_id;	/* reason PRIORITY: the task's cgroup
					   where the priority decided; 0: it
					   sits in the OOMing scope itself */
};

/*
 * Events lost.  Pressure state can be recovered (mnotify_resync());
 * an OOM kill whose event was lost cannot: count says how many (0:
 * unknown, the socket overran), and mnotify_lost() keeps the sum.
 */
struct mnotify_lost {
	uint32_t group;		/* MNOTIFY_GROUP_* (or several) affected */
	uint64_t count;		/* events missed; 0 = unknown (socket overrun) */
};

/* bytes of a cgroup path in struct mnotify_cgroup, the NUL included */
#define MNOTIFY_CGROUP_PATH_MAX	512

/*
 * A watched memory cgroup's level (1.3: MNOTIFY_HAS(ev, cgroup)), as
 * for a node but against a limit: the watched cgroup's or an
 * ancestor's, the lower of memory.max and memory.high.  Pages
 * throughout.  Paths are relative to the watcher's cgroup namespace
 * (cut to MNOTIFY_CGROUP_PATH_MAX - 1 bytes; "" when the kernel gave
 * none); ids are cgroup v2 ids as in struct mnotify_oom_why.
 */
struct mnotify_cgroup {
	uint64_t id;			/* the watched cgroup */
	int32_t level;			/* enum mnotify_level */
	int32_t prev_level;		/* the level before */
	uint32_t removed;		/* 1: it was removed, the watch is over */
	uint32_t has_limit;		/* 0: no limit on the way up (level
					   none); the fields below are 0 */
	uint64_t headroom;		/* below the binding limit, with half
					   the page cache and of what swap
					   could take */
	uint64_t usage;			/* the binding cgroup's memory.current */
	uint64_t limit;			/* its limit */
	uint64_t thresh_low;		/* a level is entered at or below */
	uint64_t thresh_medium;
	uint64_t thresh_critical;
	uint64_t binding_id;		/* the cgroup whose limit binds */
	char path[MNOTIFY_CGROUP_PATH_MAX];
	char binding_path[MNOTIFY_CGROUP_PATH_MAX];
};

/*
 * 1.4 (MNOTIFY_HAS(ev, oom_cgroups)): the paths of the cgroups in why,
 * in OOM_VICTIM (the oom group: relative to the initial cgroup
 * namespace) and CGROUP_OOM (relative to the watcher's) events; "" when
 * the kernel gave none (an older kernel; the cgroup was removed before
 * the event was built; outside the namespace).
 */
struct mnotify_oom_cgroups {
	uint64_t watch_id;		/* CGROUP_OOM: the watch it came by */
	char path[MNOTIFY_CGROUP_PATH_MAX];		/* of why.cgroup_id */
	char oom_memcg_path[MNOTIFY_CGROUP_PATH_MAX];	/* why.oom_memcg_id */
};

struct mnotify_event {
	uint32_t size;		/* bytes the library filled: MNOTIFY_HAS() */
	uint32_t type;		/* enum mnotify_event_type */
	uint32_t group;		/* MNOTIFY_GROUP_* it belongs to; 0: chardev */
	uint64_t seq;		/* kernel sequence number in its group; 0: none */
	/*
	 * CLOCK_MONOTONIC ns: the kernel's time of the event for netlink
	 * events; the library's time of receipt for CHARDEV, LOST and
	 * ZONE_STATE.
	 */
	uint64_t timestamp_ns;
	union {
		struct mnotify_zone zone;
		struct mnotify_oom oom;
		struct mnotify_lost lost;
	} u;
	/* 1.2: OOM events */
	struct mnotify_oom_why why;
	/*
	 * 1.3: CGROUP_LEVEL, CGROUP_STATE; 1.4: CHARDEV of a handle bound
	 * to a cgroup (mnotify_watch_cgroup() on a chardev handle): id,
	 * level (the cgroup's), removed
	 */
	struct mnotify_cgroup cgroup;
	/* 1.4: OOM_VICTIM, CGROUP_OOM; new members come after it */
	struct mnotify_oom_cgroups oom_cgroups;
};

/* a count the kernel did not give (struct mnotify_stats) */
#define MNOTIFY_UNKNOWN		UINT32_MAX

struct mnotify_stats {
	uint32_t size;
	uint32_t watchers;		/* open /dev/mem_notify files */
	uint64_t events;		/* /dev/mem_notify wake-up events */
	uint64_t sent;			/* netlink events multicast */
	uint64_t lost;			/* not sent: sequence gaps */
	uint64_t overrun;		/* some subscriber missed them */
	uint32_t fasync_watchers;
	uint32_t zones_under_pressure;
	/* sockets in each group: MNOTIFY_UNKNOWN without CAP_SYS_ADMIN */
	uint32_t pressure_subscribers;
	uint32_t oom_subscribers;
	/* 1.3: cgroup watches of all sockets; MNOTIFY_UNKNOWN: an older kernel */
	uint32_t cgroup_watches;
};

struct mnotify;

/* what a callback returns (the convention of libmnl's MNL_CB_*) */
#define MNOTIFY_CB_ERROR	(-1)	/* stop; the call returns -errno */
#define MNOTIFY_CB_STOP		0	/* stop; the call returns its count */
#define MNOTIFY_CB_OK		1	/* go on */

/*
 * Called for each event.  @ev is valid during the call only.  After
 * MNOTIFY_CB_STOP or MNOTIFY_CB_ERROR nothing is lost: events already
 * received stay in the handle and come first at the next
 * mnotify_dispatch() or mnotify_wait() (which then does not wait).  With
 * MNOTIFY_CB_ERROR, set errno first (0: the call returns -ECANCELED).
 * Any other value counts as MNOTIFY_CB_ERROR with errno EINVAL.
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
 * Its events are MNOTIFY_EVENT_CHARDEV, and since 1.2
 * MNOTIFY_EVENT_OOM_CANDIDATE and _CLEAR about this process; commands
 * still work (they use netlink).
 */
int mnotify_open_chardev(struct mnotify **hp, const char *path);

/* Close the handle (NULL: nothing).  Not from its own callback. */
void mnotify_close(struct mnotify *h);

/* The file descriptor to poll for POLLIN (never blocks the library). */
int mnotify_fd(const struct mnotify *h);

/*
 * Events received but not delivered yet (a callback stopped): call
 * mnotify_dispatch() before polling mnotify_fd() again.
 */
int mnotify_pending(const struct mnotify *h);

/*
 * Deliver the events that are ready, without blocking.  Returns the
 * number of events delivered (0: none), or -errno (-EBUSY from inside
 * this handle's callback; a callback's MNOTIFY_CB_ERROR).  Lost events
 * (socket overrun, sequence gaps) arrive as MNOTIFY_EVENT_LOST before
 * the next event; then call mnotify_resync().  For a chardev handle each
 * call delivers at most one MNOTIFY_EVENT_CHARDEV, only when the device
 * says this file was told, and reads (acknowledges) the device's report:
 * seq is the kernel's wake-up event number and u.zone.level the highest
 * level then (a kernel whose device has no read(): seq 0, level -1);
 * other fields are 0.  A report saying that this process became, or is
 * no longer, the OOM candidate is delivered as MNOTIFY_EVENT_OOM_CANDIDATE
 * or _CLEAR instead (1.2).
 */
int mnotify_dispatch(struct mnotify *h, mnotify_callback cb, void *arg);

/*
 * Wait up to @timeout_ms (-1: forever) for events and deliver them.
 * Returns as mnotify_dispatch() (0: timed out), -EINTR if a signal came
 * first.
 */
int mnotify_wait(struct mnotify *h, int timeout_ms, mnotify_callback cb,
		 void *arg);

/*
 * Deliver every zone's current state as MNOTIFY_EVENT_ZONE_STATE, then
 * every node's level as MNOTIFY_EVENT_NODE_STATE (u.zone: node, level,
 * headroom and thresholds; prev_level -1), all of them however many, and
 * drop pressure events the states already include, also those already
 * received.  Returns the number delivered or -errno.  OOM events are not
 * recovered (struct mnotify_lost).
 */
int mnotify_resync(struct mnotify *h, mnotify_callback cb, void *arg);

/* Events of @group (MNOTIFY_GROUP_*, or several) known lost on this handle. */
uint64_t mnotify_lost(const struct mnotify *h, unsigned int group);

/* Commands: 0 (or a count) or -errno; see mnotify_ext_ack(). */
int mnotify_get_oom_victim(struct mnotify *h, char name[MNOTIFY_COMM_MAX]);
int mnotify_set_oom_victim(struct mnotify *h, const char *name);
/*
 * Fill up to @max zones of @zone_size bytes each (sizeof(struct
 * mnotify_zone)); returns the number of zones the kernel has (may be more
 * than @max: then only @max are filled).  *@seq (if not NULL): the
 * pressure sequence number the states are at least as new as.
 */
int mnotify_get_zones(struct mnotify *h, struct mnotify_zone *zones,
		      size_t max, size_t zone_size, uint64_t *seq);
/*
 * The same for nodes: their level, headroom and thresholds now (prev_level
 * -1), as a pressure event carries them.  Since 1.1 (MNOTIFY_NL_1.1).
 */
int mnotify_get_nodes(struct mnotify *h, struct mnotify_zone *nodes,
		      size_t max, size_t node_size, uint64_t *seq);
int mnotify_get_stats(struct mnotify *h, struct mnotify_stats *st,
		      size_t size);
int mnotify_get_thresholds(struct mnotify *h, struct mnotify_thresholds *t,
			   size_t size);
/*
 * Needs CAP_SYS_ADMIN; with an ext ack: -ERANGE unless each is 1-1000,
 * -EINVAL unless low > medium > critical.  -E2BIG: @t has fields this
 * library does not know, set.
 */
int mnotify_set_thresholds(struct mnotify *h,
			   const struct mnotify_thresholds *t, size_t size);

/*
 * Levels per memory cgroup (1.3).  Watch a cgroup v2 directory: @dirfd
 * open on it (O_RDONLY | O_DIRECTORY), or its @path.  The cgroup must
 * have the memory controller, not be the root, be inside the caller's
 * cgroup namespace, and the caller must be its manager (may write its
 * cgroup.procs: root, or the owner of a delegated subtree).  Its events
 * come to this handle (MNOTIFY_EVENT_CGROUP_LEVEL, group
 * MNOTIFY_GROUP_CGROUP), the first being its state now
 * (MNOTIFY_EVENT_CGROUP_STATE) at the next mnotify_dispatch(); a handle
 * opened with no group is enough.  The watch ends with
 * mnotify_unwatch_cgroup(), mnotify_close() or the cgroup's removal (a
 * last CGROUP_LEVEL with removed 1).  0 or -errno with an ext ack:
 * -EBADF not a cgroup v2 directory, -ENOENT outside the cgroup
 * namespace, -EACCES not its manager, -EINVAL the root or no memory
 * controller, -EEXIST watched already, -ENOSPC 1024 watches on this
 * handle, -EOPNOTSUPP a kernel without them.  A watch also brings the
 * OOM kills in the cgroup's subtree (1.4, MNOTIFY_EVENT_CGROUP_OOM).
 *
 * On a chardev handle (1.4) it binds the device file to the cgroup
 * (MEM_NOTIFY_IOC_BIND_CGROUP): its MNOTIFY_EVENT_CHARDEV events then
 * follow the cgroup's level and carry ev->cgroup (id, level; removed 1
 * in the last); no state event, no unwatch (a binding lasts as long as
 * the handle or the cgroup: -EBUSY a second time), and after the
 * cgroup's removal mnotify_dispatch() returns -EIDRM.  The same rules
 * and errors, with the library's message in mnotify_ext_ack().
 */
int mnotify_watch_cgroup(struct mnotify *h, int dirfd);
int mnotify_watch_cgroup_path(struct mnotify *h, const char *path);
/* End this handle's watch of the cgroup with this id (ev->cgroup.id). */
int mnotify_unwatch_cgroup(struct mnotify *h, uint64_t cgroup_id);
/*
 * Ask for the state of each watch: every watch of every socket for a
 * caller with CAP_SYS_ADMIN, else this handle's; they arrive as
 * MNOTIFY_EVENT_CGROUP_STATE at the next mnotify_dispatch().  Returns
 * their number or -errno.
 */
int mnotify_get_cgroups(struct mnotify *h);

/* The kernel's extended ack message of the last failed command, or "". */
const char *mnotify_ext_ack(const struct mnotify *h);

/*
 * Names for printing: "enter", "exit", "oom", "chardev", "lost", "zone",
 * "node", since 1.2 "candidate", "candidate-clear", since 1.3 "cgroup",
 * "cgroup-state", since 1.4 "cgroup-oom" (or "unknown").
 */
const char *mnotify_event_name(unsigned int type);
/* "none", "cpuset", "mempolicy", "memcg" (or "unknown") */
const char *mnotify_constraint_name(uint32_t constraint);
/*
 * "badness", "name", "priority", "origin", "allocating", "group" (or
 * "unknown").  Since 1.2.
 */
const char *mnotify_oom_reason_name(uint32_t reason);
/*
 * 1 if @ev says that this process is the task the OOM killer would
 * choose now (MNOTIFY_EVENT_OOM_CANDIDATE naming getpid(), from the "oom"
 * group or a chardev handle), else 0.  Since 1.2.
 */
int mnotify_is_oom_candidate(const struct mnotify_event *ev);
/* "none", "low", "medium", "critical" (or "unknown") */
const char *mnotify_level_name(int level);
/* the level of a name above (or its number); -EINVAL if none */
int mnotify_level_from_name(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* MNOTIFY_MNOTIFY_H */
