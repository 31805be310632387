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
	int fd = mkstemp(tmpl);

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
	return tap_done();
}
