// SPDX-License-Identifier: GPL-2.0-or-later
/* mnotify-bench helpers: time, samples, hogs, sources, scenarios */
#define _GNU_SOURCE
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "uapi/linux/mem_notify.h"
#include "bench.h"

const char *hog_path = "/tests/mnotify-hog";
int episodes_per_run = 6;	/* MNOTIFY_BENCH_EPISODES */

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* vm.watermark_scale_factor: how far above min the low and high marks sit */
long long wsf(void)
{
	return read_ll("/proc/sys/vm/watermark_scale_factor");
}

/* /proc/zoneinfo's node_unreclaimable of node 0: kswapd has given up */
int node_unreclaimable(void)
{
	char line[256];
	int v = -1;
	FILE *f = fopen("/proc/zoneinfo", "r");

	if (!f)
		return -1;
	while (v < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, " node_unreclaimable: %d", &v) != 1)
			v = -1;
	fclose(f);
	return v;
}

void samples_add(struct samples *s, uint64_t v)
{
	pthread_mutex_lock(&s->lock);
	if (s->n < MAX_SAMPLES)
		s->v[s->n++] = v;
	pthread_mutex_unlock(&s->lock);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void samples_sort(struct samples *s)
{
	qsort(s->v, s->n, sizeof(s->v[0]), cmp_u64);
}

uint64_t samples_pct(const struct samples *s, double p)
{
	if (!s->n)
		return 0;
	return s->v[(size_t)(p * (double)(s->n - 1) + 0.5)];
}

pid_t spawn_hog(long long mb, long long fast, long long rate, bool hold, const char *name,
		int *fd3)
{
	char a_mb[24], a_fast[24], a_rate[24];
	char *argv[16];
	int i = 0, p[2] = { -1, -1 };
	pid_t pid;

	snprintf(a_mb, sizeof(a_mb), "%lld", mb);
	snprintf(a_fast, sizeof(a_fast), "%lld", fast);
	snprintf(a_rate, sizeof(a_rate), "%lld", rate);
	argv[i++] = (char *)hog_path;
	argv[i++] = "-m";
	argv[i++] = a_mb;
	if (fast > 0) {
		argv[i++] = "-F";
		argv[i++] = a_fast;
	}
	argv[i++] = "-r";
	argv[i++] = a_rate;
	if (hold)
		argv[i++] = "-H";
	if (name) {
		argv[i++] = "-n";
		argv[i++] = (char *)name;
	}
	/* pages that compress like application data, about 2:1 in zram */
	argv[i++] = "-p";
	argv[i++] = "data";
	argv[i++] = "-a";
	argv[i++] = "1000";
	argv[i] = NULL;
	if (fd3 && pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		if (fd3)
			dup2(p[1], 3);
		execv(argv[0], argv);
		_exit(127);
	}
	if (fd3) {
		close(p[1]);
		*fd3 = p[0];
	}
	return pid;
}

void reap(pid_t pid)
{
	int st;

	if (pid <= 0)
		return;
	kill(pid, SIGTERM);
	for (int i = 0; i < 200; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return;
		usleep(50000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
}

void chardev_ack(int fd)
{
	struct mem_notify_report rep;

	if (read(fd, &rep, sizeof(rep)) < 0)
		return;
}

int psi_fd(const char *trigger)
{
	int fd = open("/proc/pressure/memory", O_RDWR | O_CLOEXEC | O_NONBLOCK);

	if (fd >= 0 && write(fd, trigger, strlen(trigger) + 1) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* cgroup v1 memory hierarchy for vmpressure, mounted once */
#define V1 "/tmp/memcg-v1"

int vmpressure_fd(const char *level)
{
	char buf[64];
	int efd, pfd, cfd;

	mkdir(V1, 0755);
	if (access(V1 "/memory.pressure_level", F_OK) &&
	    mount("memory", V1, "cgroup", 0, "memory"))
		return -1;
	pfd = open(V1 "/memory.pressure_level", O_RDONLY | O_CLOEXEC);
	cfd = open(V1 "/cgroup.event_control", O_WRONLY | O_CLOEXEC);
	efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (pfd < 0 || cfd < 0 || efd < 0)
		goto fail;
	snprintf(buf, sizeof(buf), "%d %d %s", efd, pfd, level);
	if (write(cfd, buf, strlen(buf)) < 0)
		goto fail;
	close(cfd);
	return efd;	/* pfd stays open: the registration needs it */
fail:
	if (cfd >= 0)
		close(cfd);
	if (efd >= 0)
		close(efd);
	if (pfd >= 0)
		close(pfd);
	return -1;
}

/*
 * Give the memory controller back to cgroup v2: unmount the v1 hierarchy
 * (its root goes away asynchronously, so enabling "+memory" in v2 is
 * retried for up to 10 s).  0, or -1 with errno.
 */
int memcg_v2(void)
{
	int i;

	umount2(V1, MNT_DETACH);
	for (i = 0; i < 100; i++) {
		if (!write_file("/sys/fs/cgroup/cgroup.subtree_control", "+memory"))
			return 0;
		usleep(100000);
	}
	return -1;
}

/* the page-cache scenario's reader: streams /mnt/pc's files, paced */
static pid_t reader = -1;

static void read_files(int mb_per_s)
{
	char buf[1 << 16];

	for (;;) {
		for (int i = 1; i <= 64; i++) {
			char path[64];
			int fd;
			ssize_t n;

			snprintf(path, sizeof(path), "/mnt/pc/files/f%d", i);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				break;
			while ((n = read(fd, buf, sizeof(buf))) > 0)
				if (mb_per_s)	/* 16 reads of 64 KB per MB */
					usleep((useconds_t)(1000000 / 16 / mb_per_s));
			close(fd);
		}
		if (!mb_per_s)
			return;
	}
}

int scenario_start(const char *name)
{
	if (!strcmp(name, "noswap"))
		return 0;
	if (!strcmp(name, "zram"))
		return zram_swap_on(128);
	if (!strcmp(name, "pagecache")) {
		/* fill memory with clean page cache, then keep reading */
		read_files(0);
		reader = fork();
		if (reader == 0) {
			write_file("/proc/self/oom_score_adj", "-1000");
			read_files(8);
			_exit(0);
		}
		return reader > 0 ? 0 : -1;
	}
	fprintf(stderr, "mnotify-bench: unknown scenario '%s' (noswap, zram, pagecache)\n", name);
	return -1;
}

void scenario_stop(const char *name)
{
	if (!strcmp(name, "zram"))
		zram_swap_off();
	if (reader > 0) {
		reap(reader);
		reader = -1;
	}
}
