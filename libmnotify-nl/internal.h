/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libmnotify-nl internals, shared with the unit tests and the fuzz target
 * (they link libmnotify-nl-internal.la, where these are visible).
 */
#ifndef MNOTIFY_INTERNAL_H
#define MNOTIFY_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "mnotify/mnotify.h"

#define MNOTIFY_EXPORT __attribute__((visibility("default")))

#define MNOTIFY_NR_GROUPS 2	/* pressure, oom */

/*
 * Sequence tracking of one group.  @last is the last sequence number seen
 * (0: none yet, nothing to compare with).  Returns 1 if the event with
 * @seq is to be delivered (then *@missed is the number of events skipped
 * before it), 0 if it is stale (not newer than @last: already covered by
 * a resync) and must be dropped.
 */
int mnotify__seq_check(uint64_t *last, uint64_t seq, uint64_t *missed);

/* group bit (MNOTIFY_GROUP_*) of an event type, 0 if none */
unsigned int mnotify__event_group(unsigned int type);

/*
 * Copy @src (@src_size bytes, the library's struct) to the caller's @dst
 * of @dst_size bytes: at most @dst_size bytes, the rest of @dst zeroed,
 * and the struct's leading uint32_t size set to the bytes copied.
 */
void mnotify__copy_out(void *dst, size_t dst_size, const void *src,
		       size_t src_size);
/*
 * Read the caller's @src (@src_size bytes) into the library's @dst of
 * @dst_size: a shorter @src leaves the rest of @dst zero; a longer one
 * must be zero past @dst_size (-E2BIG otherwise).  0 or -errno (-EINVAL:
 * @src_size too small to hold the size member).
 */
int mnotify__copy_in(void *dst, size_t dst_size, const void *src,
		     size_t src_size);

/*
 * Pure parsers (no handle, no socket).  @msg is one netlink message
 * (header included) of @len bytes; @family is the family id.  They return
 * 0, -ENOMSG if the message is not of that kind (other family or
 * command), -EBADMSG if it is malformed, truncated or lacks a needed
 * attribute, -EINVAL for a NULL or misaligned @msg.  Unknown attributes
 * are ignored.  Results are the library's structs, ->size set.
 */
int mnotify__parse_event(const void *msg, size_t len, uint16_t family,
			 struct mnotify_event *ev);
int mnotify__parse_zone(const void *msg, size_t len, uint16_t family,
			struct mnotify_zone *zone, uint64_t *seq);
int mnotify__parse_node(const void *msg, size_t len, uint16_t family,
			struct mnotify_zone *node, uint64_t *seq);
int mnotify__parse_stats(const void *msg, size_t len, uint16_t family,
			 struct mnotify_stats *st);
int mnotify__parse_oom_victim(const void *msg, size_t len, uint16_t family,
			      char name[MNOTIFY_COMM_MAX]);
int mnotify__parse_thresholds(const void *msg, size_t len, uint16_t family,
			      struct mnotify_thresholds *t);
/*
 * An NLMSG_ERROR message: *@error gets its error (0: ack), @msgbuf the
 * extended ack text ("" if none).  An NLMSG_DONE message the same (the
 * error a dump ended with).  -ENOMSG if neither.
 */
int mnotify__parse_ack(const void *msg, size_t len, int *error,
		       char *msgbuf, size_t msgbuf_len);

/*
 * A netlink handle on given fds (the tests' socketpairs): events are read
 * from @ev_fd, requests written to @cmd_fd and replies read from it;
 * sequence numbers of requests start at 1.  The handle closes the fds.
 */
int mnotify__open_fds(struct mnotify **hp, int ev_fd, int cmd_fd,
		      uint16_t family, unsigned int groups);

#endif /* MNOTIFY_INTERNAL_H */
