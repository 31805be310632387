/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small helpers shared by the mnotify command-line tools. */
#ifndef MNOTIFY_CLICOMMON_H
#define MNOTIFY_CLICOMMON_H

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline uint64_t cli_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline int cli_parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static inline int cli_parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < 0 || v > 1e7)
		return -1;
	*out = v;
	return 0;
}

/*
 * @s as one word of text output into @buf: bytes that are not printable
 * ASCII, space and backslash become \xNN, so a task name cannot break a
 * line or fake a field.
 */
static inline void cli_text_escape(char *buf, size_t size, const char *s)
{
	size_t n = 0;

	if (!size)
		return;
	for (; *s && n + 5 < size; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch <= 0x20 || ch >= 0x7f || ch == '\\')
			n += (size_t)snprintf(buf + n, size - n, "\\x%02x", ch);
		else
			buf[n++] = (char)ch;
	}
	buf[n] = '\0';
}

/*
 * Messages for errors of mnotify_open() and mnotify_open_chardev() that
 * say what is missing instead of strerror() alone.
 */
static inline const char *cli_open_hint(int err, int chardev)
{
	if (err == -ENOENT)
		return chardev ? "the running kernel has no /dev/mem_notify: CONFIG_MEM_NOTIFY" :
				 "the running kernel has no mem_notify family: CONFIG_MEM_NOTIFY_NETLINK";
	if (err == -EPERM || err == -EACCES)
		return chardev ? "cannot open /dev/mem_notify (permission denied)" :
				 "joining the oom group needs CAP_SYS_ADMIN";
	return NULL;
}

/*
 * @s as a JSON string literal (quotes included) into @buf.  Bytes from
 * 0x80 up are written as \u0080-\u00ff (read as Latin-1), so the output is
 * valid UTF-8 JSON whatever the bytes of a task name.
 */
static inline void cli_json_string(char *buf, size_t size, const char *s)
{
	size_t n = 0;

	if (size < 3) {
		if (size)
			buf[0] = '\0';
		return;
	}
	buf[n++] = '"';
	for (; *s && n + 8 < size; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\') {
			buf[n++] = '\\';
			buf[n++] = (char)ch;
		} else if (ch < 0x20 || ch >= 0x7f) {
			n += (size_t)snprintf(buf + n, size - n, "\\u%04x", ch);
		} else {
			buf[n++] = (char)ch;
		}
	}
	buf[n++] = '"';
	buf[n] = '\0';
}

#endif /* MNOTIFY_CLICOMMON_H */
