/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libmnotify-nl internals, shared with the unit tests. */
#ifndef MNOTIFY_INTERNAL_H
#define MNOTIFY_INTERNAL_H

#include <stdint.h>
#include "mnotify.h"

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
unsigned int mnotify__event_group(enum mnotify_event_type type);

#endif /* MNOTIFY_INTERNAL_H */
