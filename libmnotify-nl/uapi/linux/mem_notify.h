/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Memory pressure levels, /dev/mem_notify, and the generic netlink family
 * mem_notify: memory pressure and OOM events, vm.oom_victim.
 * See Documentation/admin-guide/mm/mem_notify.rst.
 */
#ifndef _UAPI_LINUX_MEM_NOTIFY_H
#define _UAPI_LINUX_MEM_NOTIFY_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define MEM_NOTIFY_GENL_NAME		"mem_notify"
#define MEM_NOTIFY_GENL_VERSION		1

/* multicast groups */
#define MEM_NOTIFY_MCGRP_PRESSURE	"pressure"	/* anyone may join */
#define MEM_NOTIFY_MCGRP_OOM		"oom"		/* CAP_SYS_ADMIN */

/**
 * enum mem_notify_cmd - generic netlink commands
 * @MEM_NOTIFY_CMD_UNSPEC: unused
 * @MEM_NOTIFY_CMD_PRESSURE_ENTER: event (group "pressure"): a node's level
 *	changed to LEVEL (low, medium or critical) from PREV_LEVEL, in either
 *	direction.  SEQ, TIMESTAMP, NODE, LEVEL, PREV_LEVEL, HEADROOM,
 *	HEADROOM_FREE, HEADROOM_FILE, HEADROOM_SLAB, HEADROOM_SWAP,
 *	THRESH_LOW, THRESH_MEDIUM, THRESH_CRITICAL, UNRECLAIMABLE, and for
 *	clients of version 1 the deprecated ZONE, FREE_PAGES, HIGH_WMARK,
 *	THRESHOLD.
 * @MEM_NOTIFY_CMD_PRESSURE_EXIT: event (group "pressure"): a node's level
 *	went back to none.  Same attributes as PRESSURE_ENTER.
 * @MEM_NOTIFY_CMD_OOM_VICTIM: event (group "oom"): the OOM killer killed
 *	a task.  SEQ, TIMESTAMP, PID, TGID, UID, COMM, POINTS (absent for a
 *	task killed with its memory cgroup's oom.group), OOM_SCORE_ADJ,
 *	MATCHED, CONSTRAINT, PAGES, OOM_REASON, CGROUP_ID (with the memory
 *	controller), OOM_MEMCG_ID (memcg OOMs), PRIORITY_CGROUP_ID and
 *	OOM_PRIORITY (reason priority), CGROUP_PATH and OOM_MEMCG_PATH
 *	(relative to the initial cgroup namespace: the group is global).
 * @MEM_NOTIFY_CMD_GET_OOM_VICTIM: get vm.oom_victim.  Reply: OOM_VICTIM.
 * @MEM_NOTIFY_CMD_SET_OOM_VICTIM: set vm.oom_victim to OOM_VICTIM (at
 *	most 15 bytes and a NUL, "" turns it off).  Needs CAP_SYS_ADMIN.
 * @MEM_NOTIFY_CMD_GET_ZONES: dump only: one message per populated zone
 *	with NODE, ZONE, STATUS, FREE_PAGES, HIGH_WMARK, THRESHOLD and SEQ,
 *	the sequence number of the last pressure event recorded before the
 *	zone was read.
 * @MEM_NOTIFY_CMD_GET_STATS: reply with the STATS_* attributes
 *	(STATS_PRESSURE_SUBSCRIBERS and STATS_OOM_SUBSCRIBERS only to a
 *	caller with CAP_SYS_ADMIN).
 * @MEM_NOTIFY_CMD_GET_NODES: dump only: one message per node with memory,
 *	with the attributes of a pressure event (LEVEL, HEADROOM, ...) as of
 *	the last evaluation, and SEQ as in GET_ZONES.
 * @MEM_NOTIFY_CMD_GET_THRESHOLDS: reply with LOW_PERMILLE, MEDIUM_PERMILLE
 *	and CRITICAL_PERMILLE.
 * @MEM_NOTIFY_CMD_SET_THRESHOLDS: set all three *_PERMILLE (all must be
 *	given, 1-1000, low > medium > critical).  Needs CAP_SYS_ADMIN.
 * @MEM_NOTIFY_CMD_OOM_CANDIDATE: event (group "oom"): while a node is at
 *	critical, the task the OOM killer would choose now, if that changed:
 *	the attributes of OOM_VICTIM (CONSTRAINT none, POINTS always).
 * @MEM_NOTIFY_CMD_OOM_CANDIDATE_CLEAR: event (group "oom"): the candidate
 *	of the last OOM_CANDIDATE is no longer next (another task is, or no
 *	node is at critical any more).  SEQ, TIMESTAMP, and the other
 *	attributes of that OOM_CANDIDATE.
 * @MEM_NOTIFY_CMD_CGROUP_WATCH: watch the levels of one memory cgroup:
 *	CGROUP_FD, an open cgroup v2 directory below the caller's cgroup
 *	namespace root, with the memory controller, not the root; the
 *	caller must be allowed to write its cgroup.procs (root, or the
 *	owner of a delegated subtree).  Reply: a CGROUP_LEVEL with the
 *	cgroup's state now.  From then on the kernel unicasts a
 *	CGROUP_LEVEL to this socket at every change of the cgroup's level,
 *	until CGROUP_UNWATCH, the cgroup's removal or the socket's close.
 *	At most 1024 watches per socket.
 * @MEM_NOTIFY_CMD_CGROUP_UNWATCH: end the watch of CGROUP_ID (or of the
 *	cgroup CGROUP_FD) made by this socket.
 * @MEM_NOTIFY_CMD_CGROUP_LEVEL: event (unicast to the watching socket),
 *	reply to CGROUP_WATCH, and with NLM_F_DUMP one message per watch
 *	(of every socket for a caller with CAP_SYS_ADMIN, else of the
 *	requesting socket; cgroups outside the caller's cgroup namespace
 *	left out): SEQ (per watch, from 1), TIMESTAMP,
 *	CGROUP_ID, CGROUP_PATH, LEVEL, PREV_LEVEL, HEADROOM, USAGE, LIMIT,
 *	THRESH_LOW, THRESH_MEDIUM, THRESH_CRITICAL, BINDING_CGROUP_ID and
 *	BINDING_CGROUP_PATH (the cgroup whose limit is nearest: the watched
 *	one or an ancestor; absent when no cgroup on the way up has a
 *	limit: LEVEL is none), CGROUP_REMOVED (the last event of a watch
 *	whose cgroup was removed).
 * @MEM_NOTIFY_CMD_CGROUP_OOM: event (unicast to the watching socket): an
 *	OOM kill of a task in the watched cgroup's subtree, or of the
 *	subtree's memory cgroup OOM.  One per watch that covers it: the
 *	attributes of OOM_VICTIM (SEQ is that event's number in the "oom"
 *	group, so it has gaps), the paths relative to the watcher's cgroup
 *	namespace, and WATCH_CGROUP_ID.
 * @__MEM_NOTIFY_CMD_MAX: internal
 * @MEM_NOTIFY_CMD_MAX: highest command
 */
enum mem_notify_cmd {
	MEM_NOTIFY_CMD_UNSPEC,
	MEM_NOTIFY_CMD_PRESSURE_ENTER,
	MEM_NOTIFY_CMD_PRESSURE_EXIT,
	MEM_NOTIFY_CMD_OOM_VICTIM,
	MEM_NOTIFY_CMD_GET_OOM_VICTIM,
	MEM_NOTIFY_CMD_SET_OOM_VICTIM,
	MEM_NOTIFY_CMD_GET_ZONES,
	MEM_NOTIFY_CMD_GET_STATS,
	MEM_NOTIFY_CMD_GET_NODES,
	MEM_NOTIFY_CMD_GET_THRESHOLDS,
	MEM_NOTIFY_CMD_SET_THRESHOLDS,
	MEM_NOTIFY_CMD_OOM_CANDIDATE,
	MEM_NOTIFY_CMD_OOM_CANDIDATE_CLEAR,
	MEM_NOTIFY_CMD_CGROUP_WATCH,
	MEM_NOTIFY_CMD_CGROUP_UNWATCH,
	MEM_NOTIFY_CMD_CGROUP_LEVEL,
	MEM_NOTIFY_CMD_CGROUP_OOM,

	__MEM_NOTIFY_CMD_MAX,
	MEM_NOTIFY_CMD_MAX = __MEM_NOTIFY_CMD_MAX - 1
};

/**
 * enum mem_notify_attr - generic netlink attributes
 * @MEM_NOTIFY_A_UNSPEC: unused
 * @MEM_NOTIFY_A_PAD: padding for 64-bit attributes
 * @MEM_NOTIFY_A_SEQ: u64, sequence number of the event in its group,
 *	from 1; a gap means events were lost (see STATS_LOST)
 * @MEM_NOTIFY_A_TIMESTAMP: u64, CLOCK_MONOTONIC time of the event in ns
 * @MEM_NOTIFY_A_NODE: u32, NUMA node of the zone
 * @MEM_NOTIFY_A_ZONE: string, zone name ("DMA32", "Normal", ...); in
 *	pressure events (deprecated) the node's highest populated zone
 * @MEM_NOTIFY_A_STATUS: s32, the zone's mem_notify_status: -1 ignored
 *	(too small), 0 its node at level none, 1 at low or above
 * @MEM_NOTIFY_A_FREE_PAGES: u64, free pages of the zone (GET_ZONES) or of
 *	the node (events, GET_NODES)
 * @MEM_NOTIFY_A_HIGH_WMARK: u64, the zone's high watermark in pages; in
 *	events (deprecated) the sum over the node's zones
 * @MEM_NOTIFY_A_THRESHOLD: u64, deprecated: in events, the same as
 *	THRESH_LOW; in GET_ZONES, the zone's share of it
 * @MEM_NOTIFY_A_PID: u32, thread id of the OOM victim
 * @MEM_NOTIFY_A_TGID: u32, process id of the OOM victim
 * @MEM_NOTIFY_A_UID: u32, real uid of the OOM victim
 * @MEM_NOTIFY_A_COMM: string, name (comm) of the OOM victim
 * @MEM_NOTIFY_A_POINTS: s64, the victim's badness points
 * @MEM_NOTIFY_A_OOM_SCORE_ADJ: s32, the victim's oom_score_adj
 * @MEM_NOTIFY_A_MATCHED: u8, 1 if vm.oom_victim chose the victim
 * @MEM_NOTIFY_A_CONSTRAINT: u32, enum mem_notify_oom_constraint
 * @MEM_NOTIFY_A_PAGES: u64, pages the kill is expected to free (resident,
 *	swapped out and page tables)
 * @MEM_NOTIFY_A_OOM_VICTIM: NUL-terminated string, vm.oom_victim (at
 *	most 15 bytes before the NUL)
 * @MEM_NOTIFY_A_STATS_EVENTS: u64, /dev/mem_notify wake-up events
 * @MEM_NOTIFY_A_STATS_SENT: u64, netlink events multicast
 * @MEM_NOTIFY_A_STATS_LOST: u64, netlink events that were not sent to
 *	anyone (event queue full, no memory): each left a sequence gap
 * @MEM_NOTIFY_A_STATS_OVERRUN: u64, netlink events sent that at least one
 *	subscriber with the NETLINK_BROADCAST_ERROR socket option could not
 *	receive (its socket buffer was full; it gets ENOBUFS)
 * @MEM_NOTIFY_A_STATS_WATCHERS: u32, open files of /dev/mem_notify
 * @MEM_NOTIFY_A_STATS_FASYNC_WATCHERS: u32, of which in FASYNC mode
 * @MEM_NOTIFY_A_STATS_ZONES_UNDER_PRESSURE: u32
 * @MEM_NOTIFY_A_STATS_PRESSURE_SUBSCRIBERS: u32, sockets in "pressure"
 *	(CAP_SYS_ADMIN only)
 * @MEM_NOTIFY_A_STATS_OOM_SUBSCRIBERS: u32, sockets in "oom" (likewise)
 * @MEM_NOTIFY_A_LEVEL: u32, enum mem_notify_level: the node's level
 * @MEM_NOTIFY_A_PREV_LEVEL: u32, enum mem_notify_level: the level before
 * @MEM_NOTIFY_A_HEADROOM: u64, pages the node could still provide: the sum
 *	of the four HEADROOM_* attributes below
 * @MEM_NOTIFY_A_HEADROOM_FREE: u64, free pages above the min watermark
 *	(without boost) and the reserve kept from user allocations
 * @MEM_NOTIFY_A_HEADROOM_FILE: u64, page cache reclaim can take back
 * @MEM_NOTIFY_A_HEADROOM_SLAB: u64, a quarter of the reclaimable slab
 * @MEM_NOTIFY_A_HEADROOM_SWAP: u64, half of the anonymous pages free swap
 *	space could still take (this node's share of it)
 * @MEM_NOTIFY_A_THRESH_LOW: u64, pages: the node enters low at or below
 *	this headroom (and leaves it above this plus a quarter)
 * @MEM_NOTIFY_A_THRESH_MEDIUM: u64, the same for medium
 * @MEM_NOTIFY_A_THRESH_CRITICAL: u64, the same for critical
 * @MEM_NOTIFY_A_UNRECLAIMABLE: u8, 1 if kswapd has given up on the node
 * @MEM_NOTIFY_A_LOW_PERMILLE: u32, threshold of low in 1/1000 of the
 *	node's managed pages
 * @MEM_NOTIFY_A_MEDIUM_PERMILLE: u32, the same for medium
 * @MEM_NOTIFY_A_CRITICAL_PERMILLE: u32, the same for critical
 * @MEM_NOTIFY_A_OOM_REASON: u32, enum mem_notify_oom_reason: why the OOM
 *	killer chose this task
 * @MEM_NOTIFY_A_CGROUP_ID: u64, the task's memory cgroup: the id of its
 *	cgroup v2 directory (what name_to_handle_at() returns for it; on
 *	64-bit machines also its inode number), taken when the event was
 *	recorded
 * @MEM_NOTIFY_A_OOM_MEMCG_ID: u64, in a memcg OOM (CONSTRAINT memcg), the
 *	cgroup whose limit was reached, as CGROUP_ID
 * @MEM_NOTIFY_A_PRIORITY_CGROUP_ID: u64, reason priority: the victim's
 *	cgroup at the level of the hierarchy where memory.oom.priority
 *	decided (absent: the victim sits in the OOMing scope itself)
 * @MEM_NOTIFY_A_OOM_PRIORITY: u32, reason priority: that cgroup's
 *	memory.oom.priority (500, the default, when PRIORITY_CGROUP_ID is
 *	absent)
 * @MEM_NOTIFY_A_CGROUP_FD: u32, a file descriptor of an open cgroup v2
 *	directory (CGROUP_WATCH, CGROUP_UNWATCH)
 * @MEM_NOTIFY_A_CGROUP_PATH: string, the watched cgroup's path relative
 *	to the watcher's cgroup namespace root, resolved when the event is
 *	built; in OOM events the path of CGROUP_ID (absent when the cgroup
 *	was removed before the message was built)
 * @MEM_NOTIFY_A_USAGE: u64, pages charged to the binding cgroup
 *	(memory.current)
 * @MEM_NOTIFY_A_LIMIT: u64, the binding cgroup's limit in pages: the lower
 *	of its memory.max and memory.high
 * @MEM_NOTIFY_A_BINDING_CGROUP_ID: u64, as CGROUP_ID, the cgroup whose
 *	limit decides the level: of the watched cgroup and its ancestors
 *	with a limit, the one with the least headroom per page of limit
 *	(of those, the one with the least headroom)
 * @MEM_NOTIFY_A_BINDING_CGROUP_PATH: string, its path, as CGROUP_PATH
 * @MEM_NOTIFY_A_CGROUP_REMOVED: u8, 1: the cgroup was removed, the watch
 *	is over (LEVEL none)
 * @MEM_NOTIFY_A_STATS_CGROUP_WATCHES: u32, cgroup watches of all sockets,
 *	and /dev/mem_notify files bound to a cgroup
 * @MEM_NOTIFY_A_OOM_MEMCG_PATH: string, the path of OOM_MEMCG_ID, as
 *	CGROUP_PATH
 * @MEM_NOTIFY_A_WATCH_CGROUP_ID: u64, CGROUP_OOM: the watched cgroup
 *	whose subtree the victim was in (or whose subtree ran out)
 * @__MEM_NOTIFY_A_MAX: internal
 * @MEM_NOTIFY_A_MAX: highest attribute
 */
enum mem_notify_attr {
	MEM_NOTIFY_A_UNSPEC,
	MEM_NOTIFY_A_PAD,
	MEM_NOTIFY_A_SEQ,
	MEM_NOTIFY_A_TIMESTAMP,
	MEM_NOTIFY_A_NODE,
	MEM_NOTIFY_A_ZONE,
	MEM_NOTIFY_A_STATUS,
	MEM_NOTIFY_A_FREE_PAGES,
	MEM_NOTIFY_A_HIGH_WMARK,
	MEM_NOTIFY_A_THRESHOLD,
	MEM_NOTIFY_A_PID,
	MEM_NOTIFY_A_TGID,
	MEM_NOTIFY_A_UID,
	MEM_NOTIFY_A_COMM,
	MEM_NOTIFY_A_POINTS,
	MEM_NOTIFY_A_OOM_SCORE_ADJ,
	MEM_NOTIFY_A_MATCHED,
	MEM_NOTIFY_A_CONSTRAINT,
	MEM_NOTIFY_A_PAGES,
	MEM_NOTIFY_A_OOM_VICTIM,
	MEM_NOTIFY_A_STATS_EVENTS,
	MEM_NOTIFY_A_STATS_SENT,
	MEM_NOTIFY_A_STATS_LOST,
	MEM_NOTIFY_A_STATS_OVERRUN,
	MEM_NOTIFY_A_STATS_WATCHERS,
	MEM_NOTIFY_A_STATS_FASYNC_WATCHERS,
	MEM_NOTIFY_A_STATS_ZONES_UNDER_PRESSURE,
	MEM_NOTIFY_A_STATS_PRESSURE_SUBSCRIBERS,
	MEM_NOTIFY_A_STATS_OOM_SUBSCRIBERS,
	MEM_NOTIFY_A_LEVEL,
	MEM_NOTIFY_A_PREV_LEVEL,
	MEM_NOTIFY_A_HEADROOM,
	MEM_NOTIFY_A_HEADROOM_FREE,
	MEM_NOTIFY_A_HEADROOM_FILE,
	MEM_NOTIFY_A_HEADROOM_SLAB,
	MEM_NOTIFY_A_HEADROOM_SWAP,
	MEM_NOTIFY_A_THRESH_LOW,
	MEM_NOTIFY_A_THRESH_MEDIUM,
	MEM_NOTIFY_A_THRESH_CRITICAL,
	MEM_NOTIFY_A_UNRECLAIMABLE,
	MEM_NOTIFY_A_LOW_PERMILLE,
	MEM_NOTIFY_A_MEDIUM_PERMILLE,
	MEM_NOTIFY_A_CRITICAL_PERMILLE,
	MEM_NOTIFY_A_OOM_REASON,
	MEM_NOTIFY_A_CGROUP_ID,
	MEM_NOTIFY_A_OOM_MEMCG_ID,
	MEM_NOTIFY_A_PRIORITY_CGROUP_ID,
	MEM_NOTIFY_A_OOM_PRIORITY,
	MEM_NOTIFY_A_CGROUP_FD,
	MEM_NOTIFY_A_CGROUP_PATH,
	MEM_NOTIFY_A_USAGE,
	MEM_NOTIFY_A_LIMIT,
	MEM_NOTIFY_A_BINDING_CGROUP_ID,
	MEM_NOTIFY_A_BINDING_CGROUP_PATH,
	MEM_NOTIFY_A_CGROUP_REMOVED,
	MEM_NOTIFY_A_STATS_CGROUP_WATCHES,
	MEM_NOTIFY_A_OOM_MEMCG_PATH,
	MEM_NOTIFY_A_WATCH_CGROUP_ID,

	__MEM_NOTIFY_A_MAX,
	MEM_NOTIFY_A_MAX = __MEM_NOTIFY_A_MAX - 1
};

/**
 * enum mem_notify_oom_constraint - what limited the memory of an OOM kill
 * @MEM_NOTIFY_OOM_CONSTRAINT_NONE: the whole system ran out
 * @MEM_NOTIFY_OOM_CONSTRAINT_CPUSET: the allocating task's cpuset
 * @MEM_NOTIFY_OOM_CONSTRAINT_MEMPOLICY: its NUMA memory policy
 * @MEM_NOTIFY_OOM_CONSTRAINT_MEMCG: a memory cgroup's limit
 */
enum mem_notify_oom_constraint {
	MEM_NOTIFY_OOM_CONSTRAINT_NONE,
	MEM_NOTIFY_OOM_CONSTRAINT_CPUSET,
	MEM_NOTIFY_OOM_CONSTRAINT_MEMPOLICY,
	MEM_NOTIFY_OOM_CONSTRAINT_MEMCG,
};

/**
 * enum mem_notify_oom_reason - why the OOM killer chose its victim
 * @MEM_NOTIFY_OOM_REASON_BADNESS: it had the most badness points of the
 *	eligible tasks
 * @MEM_NOTIFY_OOM_REASON_NAME: its name matched vm.oom_victim
 * @MEM_NOTIFY_OOM_REASON_PRIORITY: memory.oom.priority put it before a
 *	task with more points (PRIORITY_CGROUP_ID, OOM_PRIORITY say where)
 * @MEM_NOTIFY_OOM_REASON_ORIGIN: it was marked to go first (swapoff, KSM
 *	unmerging: oom_task_origin)
 * @MEM_NOTIFY_OOM_REASON_ALLOCATING: vm.oom_kill_allocating_task: the
 *	task that ran out
 * @MEM_NOTIFY_OOM_REASON_GROUP: killed with the chosen victim because
 *	the victim's memory cgroup has memory.oom.group set
 */
enum mem_notify_oom_reason {
	MEM_NOTIFY_OOM_REASON_BADNESS,
	MEM_NOTIFY_OOM_REASON_NAME,
	MEM_NOTIFY_OOM_REASON_PRIORITY,
	MEM_NOTIFY_OOM_REASON_ORIGIN,
	MEM_NOTIFY_OOM_REASON_ALLOCATING,
	MEM_NOTIFY_OOM_REASON_GROUP,
};

/**
 * enum mem_notify_level - how short of memory a node is
 * @MEM_NOTIFY_LEVEL_NONE: not short
 * @MEM_NOTIFY_LEVEL_LOW: headroom at or below the low threshold, or within
 *	twice it on swap-out or while it falls fast: give back what is
 *	cheap to rebuild
 * @MEM_NOTIFY_LEVEL_MEDIUM: at or below medium: give back more
 * @MEM_NOTIFY_LEVEL_CRITICAL: at or below critical: the OOM killer is
 *	near, give back everything you can
 */
enum mem_notify_level {
	MEM_NOTIFY_LEVEL_NONE,
	MEM_NOTIFY_LEVEL_LOW,
	MEM_NOTIFY_LEVEL_MEDIUM,
	MEM_NOTIFY_LEVEL_CRITICAL,
};

/**
 * struct mem_notify_report - what read() of /dev/mem_notify returns
 * @event: the wake-up event that told this file, counting from 1 (the
 *	count is /sys/kernel/mm/mem_notify/events); 0 if only the OOM
 *	candidate changed
 * @level: the highest level of any node when read() ran (an enum
 *	mem_notify_level: NONE if the pressure has ended since); of a file
 *	bound to a cgroup (MEM_NOTIFY_IOC_BIND_CGROUP), that cgroup's level
 * @flags: MEM_NOTIFY_REPORT_*
 *
 * A told file polls readable until read() returns its report (or for at
 * most a second): poll itself changes nothing.  The files of the process
 * the OOM killer would choose now poll readable and with EPOLLPRI from
 * the moment it became the candidate until read() returns that, and
 * readable (without EPOLLPRI) again once it is no longer next.  read()
 * blocks until the file is told unless the file is O_NONBLOCK (then
 * EAGAIN); a buffer shorter than the report is EINVAL.
 */
struct mem_notify_report {
	__u64 event;
	__u32 level;
	__u32 flags;
};

/*
 * struct mem_notify_report.flags.  OOM_NEXT: the process that opened the
 * file is the task the OOM killer would choose now.  OOM_CHANGED: this
 * report is the first since OOM_NEXT changed (it became the candidate, or
 * is no longer next).  The field was "reserved", always 0, before the
 * candidate warning.
 */
#define MEM_NOTIFY_REPORT_OOM_NEXT	(1U << 0)
#define MEM_NOTIFY_REPORT_OOM_CHANGED	(1U << 1)
/*
 * CGROUP: the file is bound to a memory cgroup and @level is the
 * cgroup's.  CGROUP_REMOVED: the cgroup was removed; after this report
 * read() returns 0 (end of file) and poll() reports EPOLLHUP.
 */
#define MEM_NOTIFY_REPORT_CGROUP	(1U << 2)
#define MEM_NOTIFY_REPORT_CGROUP_REMOVED	(1U << 3)

/*
 * ioctls of /dev/mem_notify (any open file, no privilege needed)
 *
 * MEM_NOTIFY_IOC_SET_MIN_LEVEL: the file is told (polls readable, gets
 *	SIGIO) only while some node is at this level or above (__u32, an
 *	enum mem_notify_level from LOW to CRITICAL; LOW when opened).
 * MEM_NOTIFY_IOC_GET_LEVEL: the highest level of any node now (__u32);
 *	of a bound file, its cgroup's level.
 * MEM_NOTIFY_IOC_BIND_CGROUP: from now on the file follows the level of
 *	one memory cgroup instead of the nodes' (__s32, a file descriptor
 *	of the cgroup's cgroup v2 directory).  The rules of
 *	MEM_NOTIFY_CMD_CGROUP_WATCH: the caller must be allowed to write
 *	the cgroup's cgroup.procs and the cgroup must be inside its cgroup
 *	namespace; the levels are those CGROUP_LEVEL reports.  Errors:
 *	EBADF (not a cgroup v2 directory), ENOENT (outside the caller's
 *	cgroup namespace), EACCES (not its manager), EINVAL (the root
 *	cgroup, or no memory controller for it), EBUSY (bound already: a
 *	binding lasts as long as the file or the cgroup), EOPNOTSUPP
 *	(a kernel without CONFIG_MEM_NOTIFY_NETLINK or CONFIG_MEMCG, or the
 *	memory controller disabled).
 */
#define MEM_NOTIFY_IOC_MAGIC		0xB8
#define MEM_NOTIFY_IOC_SET_MIN_LEVEL	_IOW(MEM_NOTIFY_IOC_MAGIC, 0, __u32)
#define MEM_NOTIFY_IOC_GET_LEVEL	_IOR(MEM_NOTIFY_IOC_MAGIC, 1, __u32)
#define MEM_NOTIFY_IOC_BIND_CGROUP	_IOW(MEM_NOTIFY_IOC_MAGIC, 2, __s32)

#endif /* _UAPI_LINUX_MEM_NOTIFY_H */
