/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Generic netlink interface of mem_notify: memory pressure and OOM events,
 * vm.oom_victim.  See Documentation/admin-guide/mm/mem_notify.rst.
 */
#ifndef _UAPI_LINUX_MEM_NOTIFY_H
#define _UAPI_LINUX_MEM_NOTIFY_H

#define MEM_NOTIFY_GENL_NAME		"mem_notify"
#define MEM_NOTIFY_GENL_VERSION		1

/* multicast groups */
#define MEM_NOTIFY_MCGRP_PRESSURE	"pressure"	/* anyone may join */
#define MEM_NOTIFY_MCGRP_OOM		"oom"		/* CAP_SYS_ADMIN */

/**
 * enum mem_notify_cmd - generic netlink commands
 * @MEM_NOTIFY_CMD_UNSPEC: unused
 * @MEM_NOTIFY_CMD_PRESSURE_ENTER: event (group "pressure"): a zone came
 *	under memory pressure.  SEQ, TIMESTAMP, NODE, ZONE, FREE_PAGES,
 *	HIGH_WMARK, THRESHOLD.
 * @MEM_NOTIFY_CMD_PRESSURE_EXIT: event (group "pressure"): a zone left
 *	memory pressure.  Same attributes as PRESSURE_ENTER.
 * @MEM_NOTIFY_CMD_OOM_VICTIM: event (group "oom"): the OOM killer killed
 *	a task.  SEQ, TIMESTAMP, PID, TGID, UID, COMM, POINTS (absent for a
 *	task killed with its memory cgroup's oom.group), OOM_SCORE_ADJ,
 *	MATCHED, CONSTRAINT, PAGES.
 * @MEM_NOTIFY_CMD_GET_OOM_VICTIM: get vm.oom_victim.  Reply: OOM_VICTIM.
 * @MEM_NOTIFY_CMD_SET_OOM_VICTIM: set vm.oom_victim to OOM_VICTIM (at
 *	most 15 bytes, "" turns it off).  Needs CAP_SYS_ADMIN.
 * @MEM_NOTIFY_CMD_GET_ZONES: dump only: one message per populated zone
 *	with NODE, ZONE, STATUS, FREE_PAGES, HIGH_WMARK, THRESHOLD and SEQ,
 *	the sequence number of the last pressure event recorded before the
 *	zone was read.
 * @MEM_NOTIFY_CMD_GET_STATS: reply with the STATS_* attributes.
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
 * @MEM_NOTIFY_A_ZONE: string, zone name ("DMA32", "Normal", ...)
 * @MEM_NOTIFY_A_STATUS: s32, the zone's mem_notify_status: -1 ignored
 *	(too small), 0 no pressure, 1 under pressure
 * @MEM_NOTIFY_A_FREE_PAGES: u64, free pages of the zone at the event
 * @MEM_NOTIFY_A_HIGH_WMARK: u64, the zone's high watermark in pages
 * @MEM_NOTIFY_A_THRESHOLD: u64, pages: the zone is short of memory while
 *	its free pages are at most this
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
 * @MEM_NOTIFY_A_OOM_VICTIM: string, vm.oom_victim
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
 * @MEM_NOTIFY_A_STATS_OOM_SUBSCRIBERS: u32, sockets in "oom"
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

#endif /* _UAPI_LINUX_MEM_NOTIFY_H */
