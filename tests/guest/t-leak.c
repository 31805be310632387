// SPDX-License-Identifier: GPL-2.0
/*
 * The harness ends what a test leaves behind: this test leaves a detached
 * child (its own session, its output closed) and exits; t-boot, which
 * runs next, checks that run-guest-tests' cgroup.kill ended it.
 */
#include "guestlib.h"

#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#define PIDFILE "/tmp/mnotify-leaked.pid"

int main(void)
{
	int p[2];
	pid_t c;
	char b;

	if (pipe(p) < 0)
		tap_bail("pipe");
	c = fork();
	if (c == 0) {
		close(p[0]);
		setsid();
		signal(SIGHUP, SIG_IGN);
		close(p[1]);	/* we are detached: the parent may go */
		close(0);
		close(1);
		close(2);
		pause();
		_exit(0);
	}
	close(p[1]);
	/* the child closed its end once it had its own session */
	char pid[24];

	snprintf(pid, sizeof(pid), "%d\n", (int)c);
	bool saved = create_file(PIDFILE, pid) == 0;
	tap_ok(c > 0 && read(p[0], &b, 1) == 0 && saved,
	       "left a detached child behind (pid %d, in " PIDFILE " for t-boot)", (int)c);
	return tap_done();
}
