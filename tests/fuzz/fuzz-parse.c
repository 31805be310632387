// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: libmnotify-nl's parsers on arbitrary datagrams.  The
 * input is what recv() on a netlink socket could return: zero or more
 * netlink messages.  Every parser sees every message; ASan and UBSan
 * (built in by tests/fuzz/run-fuzz) turn any bad access into a crash.
 * Each input gets its own allocation of exactly its size, so a read one
 * byte past the datagram is an ASan report (a large static buffer would
 * hide it).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netlink.h>

#include <mnotify/mnotify.h>
#include "internal.h"

#define FAM 0x1c

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nlmsghdr *nlh;
	void *buf;
	int rem;

	if (size > 65536)
		return 0;
	/* malloc'd: aligned, as recv() into the library's buffer is */
	buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	rem = (int)size;
	for (nlh = buf; NLMSG_OK(nlh, rem); nlh = NLMSG_NEXT(nlh, rem)) {
		struct mnotify_event ev;
		struct mnotify_zone z;
		struct mnotify_stats st;
		char name[MNOTIFY_COMM_MAX], msg[64];
		uint64_t seq;
		int err;

		/* the whole rest of the buffer as the length, as a caller might pass */
		if (!mnotify__parse_event(nlh, (size_t)rem, FAM, &ev)) {
			/* use the results: strings must be terminated */
			if (ev.type == MNOTIFY_EVENT_OOM_VICTIM && strlen(ev.u.oom.comm) >= MNOTIFY_COMM_MAX)
				abort();
			if (ev.type != MNOTIFY_EVENT_OOM_VICTIM &&
			    strlen(ev.u.zone.name) >= MNOTIFY_ZONE_NAME_MAX)
				abort();
		}
		if (!mnotify__parse_zone(nlh, (size_t)rem, FAM, &z, &seq) &&
		    strlen(z.name) >= MNOTIFY_ZONE_NAME_MAX)
			abort();
		mnotify__parse_stats(nlh, (size_t)rem, FAM, &st);
		{
			struct mnotify_thresholds t;

			mnotify__parse_thresholds(nlh, (size_t)rem, FAM, &t);
		}
		if (!mnotify__parse_oom_victim(nlh, (size_t)rem, FAM, name) &&
		    strlen(name) >= MNOTIFY_COMM_MAX)
			abort();
		if (!mnotify__parse_ack(nlh, (size_t)rem, &err, msg, sizeof(msg)) &&
		    strlen(msg) >= sizeof(msg))
			abort();
		/* and the exact message length */
		mnotify__parse_event(nlh, nlh->nlmsg_len, FAM, &ev);
		mnotify__parse_ack(nlh, nlh->nlmsg_len, &err, msg, 1);
	}
	free(buf);
	return 0;
}
