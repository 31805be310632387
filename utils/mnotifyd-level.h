/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mnotifyd's mapping of mem_notify levels to the byte of
 * org.freedesktop.LowMemoryMonitor's LowMemoryWarning signal, the values
 * GLib's GMemoryMonitorWarningLevel and low-memory-monitor use.
 */
#ifndef MNOTIFYD_LEVEL_H
#define MNOTIFYD_LEVEL_H

#include <string.h>

#include <mnotify/mnotify.h>

#define MNOTIFYD_WARNING_LOW		50	/* G_MEMORY_MONITOR_WARNING_LEVEL_LOW */
#define MNOTIFYD_WARNING_MEDIUM		100	/* ..._MEDIUM */
#define MNOTIFYD_WARNING_CRITICAL	255	/* ..._CRITICAL */

/* the LowMemoryWarning byte of a level; 0 for none (no warning is sent) */
static inline unsigned char mnotifyd_warning(int level)
{
	switch (level) {
	case MNOTIFY_LEVEL_LOW:
		return MNOTIFYD_WARNING_LOW;
	case MNOTIFY_LEVEL_MEDIUM:
		return MNOTIFYD_WARNING_MEDIUM;
	default:	/* critical, and any level above it a kernel may add */
		return level >= MNOTIFY_LEVEL_CRITICAL ? MNOTIFYD_WARNING_CRITICAL : 0;
	}
}

/* the system's level: the highest of its nodes' */
static inline int mnotifyd_system_level(const int *node_level, int nodes)
{
	int max = MNOTIFY_LEVEL_NONE;

	for (int i = 0; i < nodes; i++)
		if (node_level[i] > max)
			max = node_level[i];
	return max;
}

/*
 * The cgroup v2 path in the text of /proc/PID/cgroup (its "0::" line) into
 * @out: 0, or -1 if there is none or it does not fit.
 */
static inline int mnotifyd_cgroup_of(const char *text, char *out, size_t size)
{
	const char *p = text;

	while (p && *p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);

		if (len >= 3 && !strncmp(p, "0::", 3)) {
			len -= 3;
			if (!len || len >= size || p[3] != '/')
				return -1;
			memcpy(out, p + 3, len);
			out[len] = '\0';
			return 0;
		}
		p = eol ? eol + 1 : NULL;
	}
	return -1;
}

#endif
