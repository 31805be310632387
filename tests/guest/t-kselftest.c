// SPDX-License-Identifier: GPL-2.0
/*
 * The kselftest the series adds (tools/testing/selftests/vm/mem_notify.c,
 * built by ./mnotify-lab against this kernel's headers): run it and turn
 * its TAP into ours.  This kernel has every feature the selftest looks
 * for, so a skip is a failure unless the option is off on purpose.
 */
#include "guestlib.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define SELFTEST "/tests/kselftest-mem_notify"

int main(void)
{
	char *argv[] = { SELFTEST, NULL };
	char line[512];
	int out, st = -1, results = 0;
	pid_t p;

	if (access(SELFTEST, X_OK)) {
		tap_ok(false, SELFTEST " was not built into the initramfs");
		return tap_done();
	}
	p = spawn_out(argv, &out, 1);
	if (p < 0)
		tap_bail("spawn " SELFTEST);
	while (read_line_timeout(out, line, sizeof(line), 60000) > 0) {
		char *d;

		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "ok ", 3) && isdigit((unsigned char)line[3])) {
			d = strchr(line + 3, ' ');
			d = d ? d + 1 : line;
			results++;
			if (strstr(d, "# SKIP")) {
				if (strstr(d, "netlink"))
					feature_missing("MEM_NOTIFY_NETLINK", d);
				else
					tap_ok(false, "kselftest skipped in a kernel that has it: %s", d);
			} else {
				tap_ok(true, "kselftest: %s", d);
			}
		} else if (!strncmp(line, "not ok ", 7)) {
			d = strchr(line + 7, ' ');
			results++;
			tap_ok(false, "kselftest: %s", d ? d + 1 : line);
		} else {
			tap_diag("kselftest: %s", line);
		}
	}
	close(out);
	if (wait_pid_timeout(p, &st, 10000) < 0)
		kill_reap(p);
	tap_ok(results >= 12 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "kselftest mem_notify: %d results, exit status %d", results,
	       WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return tap_done();
}
