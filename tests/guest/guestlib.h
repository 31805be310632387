/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the mnotify guest tests: TAP output, /proc parsing,
 * spawning and reaping workloads with bounded waits, zram swap.
 *
 * Output convention: a test prints "ok - what" / "not ok - what" lines (no
 * numbers) and "# ..." diagnostics on stdout; run-guest-tests numbers them.
 */
#ifndef MNOTIFY_GUESTLIB_H
#define MNOTIFY_GUESTLIB_H

#include <stdbool.h>
#include <sys/types.h>

#define GUEST_TESTDIR "/tests"
#define GUEST_HOG GUEST_TESTDIR "/mnotify-hog"

/* the kernel's default thresholds, per mille (patch 1) */
#define MN_THRESH_LOW 250
#define MN_THRESH_MEDIUM 150
#define MN_THRESH_CRITICAL 110
#define MN_STR_(x) #x
#define MN_STR(x) MN_STR_(x)
/* "250 150 110" */
#define MN_THRESH_DEFAULT MN_STR(MN_THRESH_LOW) " " MN_STR(MN_THRESH_MEDIUM) " " \
	MN_STR(MN_THRESH_CRITICAL)

/* ---- TAP ---- */
bool tap_ok(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tap_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* exit status for main(): 0 when every tap_ok() passed */
int tap_done(void);
/* abort the test: "not ok - <msg>: <strerror(errno)>", exit 1 */
void tap_bail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* ---- /proc parsing ---- */
/*
 * Value of KEY in a file of "key value" (vmstat) or "Key: value kB"
 * (meminfo) lines; the key must match exactly.  -1 if absent/unreadable.
 */
long long kv_get(const char *path, const char *key);
long long vmstat_get(const char *key);
long long meminfo_kb(const char *key);
/* pgscan_kswapd + pgscan_direct, pgsteal_kswapd + pgsteal_direct */
long long vmstat_pgscan(void);
long long vmstat_pgsteal(void);
/* whole file into a malloc'd NUL-terminated buffer, NULL on error */
char *read_file(const char *path);
int write_file(const char *path, const char *s);
/* create or truncate PATH (0644) and write S: 0 or -1 (write_file() never creates) */
int create_file(const char *path, const char *s);

/* ---- processes ---- */
/* make the caller (and its children, unless they change it) unkillable by OOM */
int protect_self(void);
/*
 * fork+exec argv[0] with argv; if ready_fd is not NULL, the child's fd 3 is
 * the write end of a pipe whose read end is returned in *ready_fd.
 */
pid_t spawn(char *const argv[], int *ready_fd);
/* read one line from fd within timeout_ms; returns length, 0 on EOF, -1 on timeout/error */
int read_line_timeout(int fd, char *buf, size_t len, int timeout_ms);
/* waitpid with a deadline (pidfd + poll); returns 0 and fills *status, -1 on timeout */
int wait_pid_timeout(pid_t pid, int *status, int timeout_ms);
/* SIGKILL and reap (best effort, for cleanup paths) */
void kill_reap(pid_t pid);

/* ---- running commands ---- */
/* run argv with stdout (and stderr if @err_too) on a pipe in *out */
pid_t spawn_out(char *const argv[], int *out, int err_too);
/* run a command to the end (30 s at most): exit status, output in @buf */
int run(char *const argv[], char *buf, size_t len);
/* drop to uid/gid 65534 with no supplementary groups; 0 or -1 */
int become_nobody(void);
/* drop capability @cap from every set of this task: 0 or -1 */
int drop_cap(int cap);
/* CONFIG_@opt=y in the kernel under test (/etc/mnotify/kernel.config) */
bool kconfig_on(const char *opt);
/* a missing feature: not ok if CONFIG_@opt=y, a skip if it is off */
void feature_missing(const char *opt, const char *what);
/* where a test makes its cgroups (beside its own under the harness) */
const char *cg_base(void);
/* mkdir cgroup @name under cg_base(): its path (static buffer), NULL on error */
const char *cg_make(const char *name);
/*
 * cg_make() with memory.max @max and no swap (memory.swap.max 0, where
 * swap is accounted): a memcg for memcg OOM kills; NULL on error
 */
const char *cg_make_limited(const char *name, const char *max);
/* the cgroup id of directory @path (name_to_handle_at()); 0 on error */
unsigned long long cg_id(const char *path);
/* run() as nobody in a child: its exit status, output in @out */
int run_as_nobody(char *const argv[], char *out, size_t len);

/* ---- swap ---- */
int zram_swap_on(unsigned int mb);
int zram_swap_off(void);


/* ---- mem_notify ---- */
/*
 * node 0's level name (@name: 16 bytes), headroom and low threshold in
 * pages, from /sys/kernel/mm/mem_notify/levels (a read evaluates the
 * levels if the last evaluation is 50 ms old): 0 or -1
 */
int node_level(char *name, long long *headroom, long long *thresh);

/* ---- /proc/zoneinfo ---- */
#define MAX_ZONES 8
struct zone_state {
	int node;
	char name[16];
	long long present;	/* pages */
	long long free;		/* pages */
	long long low;		/* low watermark, pages */
	long long high;		/* high watermark, pages */
	int mem_notify;		/* mem_notify_status, or -2 if the field is absent */
};
/* parse zoneinfo TEXT into at most MAX_ZONES zones; returns the count */
int zoneinfo_parse(const char *text, struct zone_state *zones, int max);
/* the same from /proc/zoneinfo; -1 if unreadable */
int zoneinfo_read(struct zone_state *zones, int max);
/* number of zones with mem_notify_status == 1 (from /proc/zoneinfo) */
int zones_under_pressure(void);

/* ---- misc ---- */
/* CLOCK_MONOTONIC in ms */
long long now_ms(void);

/*
 * True on a kernel that runs several times slower than the default one
 * (the debug variant: run-guest-tests exports MNOTIFY_TIMEOUT_FACTOR > 1).
 * Only for checks whose method, not whose claim, depends on speed.
 */
bool slow_kernel(void);
/* a file holding one decimal number (sysfs); -1 if unreadable */
long long read_ll(const char *path);

/* ---- waiting on a file with poll(), select() or epoll ---- */
enum wait_mech { WAIT_POLL, WAIT_SELECT, WAIT_EPOLL };
extern const char *const wait_mech_name[];
/* block until FD is readable or TIMEOUT_MS passes; true if readable */
bool wait_readable(enum wait_mech m, int fd, int timeout_ms);

#endif
