// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: libmnotify-nl's parsers on arbitrary datagrams.  The
 * input is what recv() on a netlink socket could return: zero or more
 * netlink messages.  Every parser sees every message; ASan and UBSan
 * (built in by tests/fuzz/run-fuzz) turn any bad access into a crash.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netlink.h>

#include "mnotify.h"

#define FAM 0x1c

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static union {
		struct nlmsghdr h;
		uint8_t b[65536];
	} u;
	struct nlmsghdr *nlh;
	int rem;

	if (size > sizeof(u.b))
		return 0;
	memcpy(u.b, data, size);	/* aligned, as recv() into our buffer is */
	rem = (int)size;
	for (nlh = &u.h; NLMSG_OK(nlh, rem); nlh = NLMSG_NEXT(nlh, rem)) {
		struct mnotify_event ev;
		struct mnotify_zone z;
		struct mnotify_stats st;
		char name[MNOTIFY_COMM_MAX], msg[64];
		uint64_t seq;
		int err;

		/* the whole rest of the buffer as the length, as a caller might pass */
		if (!mnotify_parse_event(nlh, (size_t)rem, FAM, &ev)) {
			/* use the results: strings must be terminated */
			if (ev.type == MNOTIFY_EVENT_OOM_VICTIM && strlen(ev.u.oom.comm) >= MNOTIFY_COMM_MAX)
				abort();
			if (ev.type != MNOTIFY_EVENT_OOM_VICTIM &&
			    strlen(ev.u.zone.name) >= MNOTIFY_ZONE_NAME_MAX)
				abort();
		}
		if (!mnotify_parse_zone(nlh, (size_t)rem, FAM, &z, &seq) &&
		    strlen(z.name) >= MNOTIFY_ZONE_NAME_MAX)
			abort();
		mnotify_parse_stats(nlh, (size_t)rem, FAM, &st);
		{
			struct mnotify_thresholds t;

			mnotify_parse_thresholds(nlh, (size_t)rem, FAM, &t);
		}
		if (!mnotify_parse_oom_victim(nlh, (size_t)rem, FAM, name) &&
		    strlen(name) >= MNOTIFY_COMM_MAX)
			abort();
		if (!mnotify_parse_ack(nlh, (size_t)rem, &err, msg, sizeof(msg)) &&
		    strlen(msg) >= sizeof(msg))
			abort();
		/* and the exact message length */
		mnotify_parse_event(nlh, nlh->nlmsg_len, FAM, &ev);
		mnotify_parse_ack(nlh, nlh->nlmsg_len, &err, msg, 1);
	}
	return 0;
}
