// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the guest test helpers that do not need the guest. */
#define _GNU_SOURCE
#include "guestlib.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char tmpl[] = "/tmp/mnotify-test-XXXXXX";

static const char *write_tmp(const char *text)
{
	int fd;

	strcpy(tmpl, "/tmp/mnotify-test-XXXXXX");
	fd = mkstemp(tmpl);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		tap_bail("mkstemp");
	close(fd);
	return tmpl;
}

int main(void)
{
	const char *p;

	p = write_tmp("pgscan_kswapd_extra 7\npgscan_kswapd 1234\npgscan_direct 5\n"
		      "MemTotal:       245460 kB\nbroken x\n");
	tap_ok(kv_get(p, "pgscan_kswapd") == 1234, "kv_get: exact key, not a longer one");
	tap_ok(kv_get(p, "pgscan_direct") == 5, "kv_get: vmstat style");
	tap_ok(kv_get(p, "MemTotal") == 245460, "kv_get: meminfo style");
	tap_ok(kv_get(p, "pgscan") == -1, "kv_get: prefix of a key is not a key");
	tap_ok(kv_get(p, "broken") == -1, "kv_get: non-numeric value is -1");
	tap_ok(kv_get(p, "absent") == -1, "kv_get: absent key is -1");
	tap_ok(kv_get("/nonexistent/file", "x") == -1, "kv_get: unreadable file is -1");
	char *s = read_file(p);

	tap_ok(s && strlen(s) == 92 && !strncmp(s, "pgscan_kswapd_extra", 19),
	       "read_file reads the whole file (%zu bytes)", s ? strlen(s) : 0);
	free(s);
	unlink(p);

	/* spawn + ready pipe + bounded waits */
	char *sh[] = { "/bin/sh", "-c", "echo ready 5 >&3; exit 3", NULL };
	char line[64];
	int fd, st;
	pid_t pid = spawn(sh, &fd);

	tap_ok(pid > 0 && read_line_timeout(fd, line, sizeof(line), 5000) > 0 &&
	       !strcmp(line, "ready 5\n"), "spawn passes fd 3 for the ready line");
	tap_ok(wait_pid_timeout(pid, &st, 5000) == 0 && WIFEXITED(st) && WEXITSTATUS(st) == 3,
	       "wait_pid_timeout reaps and reports the status");
	close(fd);

	char *sleeper[] = { "/bin/sh", "-c", "exec 3>&-; exec sleep 30", NULL };

	pid = spawn(sleeper, &fd);
	tap_ok(pid > 0 && read_line_timeout(fd, line, sizeof(line), 100) == 0,
	       "read_line_timeout: EOF (child closed fd 3) is 0, not a line");
	tap_ok(wait_pid_timeout(pid, &st, 100) == -1, "wait_pid_timeout times out on a live child");
	kill_reap(pid);
	tap_ok(kill(pid, 0) == -1, "kill_reap reaped the child");
	close(fd);

	int pfd[2];

	if (pipe(pfd))
		tap_bail("pipe");
	tap_ok(read_line_timeout(pfd[0], line, sizeof(line), 50) == -1,
	       "read_line_timeout: nothing written is a timeout (-1)");
	/* zoneinfo_parse: populated and empty zones, the mem_notify field */
	static const char zi[] =
		"Node 0, zone      DMA\n  per-node stats\n      nr_inactive_anon 5\n"
		"  pages free     3840\n        min      31\n        low      38\n"
		"        high     45\n        spanned  4095\n        present  3998\n"
		"  start_pfn:           1\n  mem_notify_status:   -1\n"
		"Node 0, zone    DMA32\n  pages free     53400\n        high     680\n"
		"        present  61408\n  mem_notify_status:   1\n"
		"Node 0, zone   Normal\n  pages free     0\n        high     0\n"
		"        present  0\n";
	struct zone_state z[MAX_ZONES];
	int n = zoneinfo_parse(zi, z, MAX_ZONES);

	tap_ok(n == 3 && !strcmp(z[0].name, "DMA") && !strcmp(z[2].name, "Normal"),
	       "zoneinfo_parse finds 3 zones (%d)", n);
	tap_ok(n == 3 && z[0].free == 3840 && z[0].high == 45 && z[0].present == 3998 &&
	       z[0].mem_notify == -1, "zoneinfo_parse: DMA free/high/present/status");
	tap_ok(n == 3 && z[1].mem_notify == 1 && z[1].present == 61408,
	       "zoneinfo_parse: DMA32 under pressure");
	tap_ok(n == 3 && z[2].mem_notify == -2, "zoneinfo_parse: absent field is -2");
	tap_ok(zoneinfo_parse(zi, z, 1) == 1, "zoneinfo_parse stops at max");

	/* read_ll */
	p = write_tmp("42\n");
	tap_ok(read_ll(p) == 42, "read_ll reads a sysfs-style number");
	unlink(p);
	p = write_tmp("x\n");
	tap_ok(read_ll(p) == -1, "read_ll: not a number is -1");
	unlink(p);
	tap_ok(read_ll("/nonexistent") == -1, "read_ll: unreadable is -1");

	/* wait_readable on a pipe, each mechanism: times out empty, sees data */
	for (int m = WAIT_POLL; m <= WAIT_EPOLL; m++) {
		int q[2];

		if (pipe(q))
			tap_bail("pipe");
		bool empty = wait_readable(m, q[0], 20);

		tap_ok(write(q[1], "x", 1) == 1 && !empty && wait_readable(m, q[0], 1000),
		       "wait_readable(%s): times out when empty, true with data",
		       wait_mech_name[m]);
		close(q[0]);
		close(q[1]);
	}
	return tap_done();
}
