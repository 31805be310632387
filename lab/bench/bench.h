/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mnotify-bench: the lab's benchmark driver, run in the guest by
 * ./mnotify-lab bench.  One file per measurement (latency.c, lead.c,
 * fp.c, avoid.c, hotpath.c), helpers here and in tests/guest/guestlib.
 * Every result is one line of "key=value" fields on stdout.
 */
#ifndef MNOTIFY_BENCH_H
#define MNOTIFY_BENCH_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "guestlib.h"

extern const char *hog_path;
extern int episodes_per_run;

uint64_t now_ns(void);
long long wsf(void);
int node_unreclaimable(void);

/* percentiles of a sample set */
#define MAX_SAMPLES 200000
struct samples {
	pthread_mutex_t lock;
	uint64_t v[MAX_SAMPLES];
	size_t n;
};
void samples_add(struct samples *s, uint64_t v);
void samples_sort(struct samples *s);
uint64_t samples_pct(const struct samples *s, double p);

/* a memory hog (mnotify-hog) at @rate MB/s after @fast MB at full speed */
pid_t spawn_hog(long long mb, long long fast, long long rate, bool hold, const char *name,
		int *fd3);
void reap(pid_t pid);

/* acknowledge a /dev/mem_notify report */
void chardev_ack(int fd);

/* a PSI trigger on /proc/pressure/memory ("some 70000 1000000"), or -1 */
int psi_fd(const char *trigger);
/* an eventfd signalled by cgroup v1 vmpressure at @level, or -1 */
int vmpressure_fd(const char *level);
int memcg_v2(void);

/*
 * Scenarios that look like real machines: "noswap"; "zram", 128 MB of
 * zram swap that the hog's pages compress into like application data;
 * "pagecache", the guest's memory first filled with the page cache of the
 * ext4 disk (/mnt/pc) and a reader that keeps streaming its files.
 */
int scenario_start(const char *name);
void scenario_stop(const char *name);

int cmd_latency(const char *mech, int n);
int cmd_lead(const char *scenario, long long rate, int runs);
int cmd_fp(void);
int cmd_avoid(const char *scenario, const char *src, int runs);
int cmd_candidate(const char *scenario, const char *src, int runs);
int cmd_hotpath(const char *workload, int secs, int reps, int listen);
int cmd_memcg(const char *scenario, int runs);
int cmd_memcg_avoid(const char *scenario, const char *src, int runs);

#endif
