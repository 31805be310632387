// SPDX-License-Identifier: GPL-2.0
/*
 * mnotify-hog: allocate and touch anonymous memory, optionally at a fixed
 * rate, to push a small guest into reclaim or OOM.  See --help.
 *
 * Protocol with a parent that passes fd 3 (see spawn() in guestlib.c):
 *   "ready <MB>\n"  once all memory is touched
 *   "freed\n"       after SIGUSR1 made it unmap everything (with -H)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define MB (1024UL * 1024UL)

enum pattern { PAT_COMPRESSIBLE, PAT_RANDOM, PAT_ZERO, PAT_DATA };

static void usage(FILE *f)
{
	fprintf(f,
"Usage: mnotify-hog -m MB [options]\n"
"Allocate and touch MB megabytes of anonymous memory.\n\n"
"  -m, --mb MB          total to allocate (required)\n"
"  -c, --chunk MB       allocation step [1]\n"
"  -r, --rate MB/S      pace allocation at this rate [0 = as fast as possible]\n"
"  -p, --pattern P      page contents: compressible (zram-friendly, not\n"
"                       same-filled), data (half random, half zeros: about\n"
"                       2:1 in zram, like application data), random, zero\n"
"                       [compressible]\n"
"  -n, --name NAME      set the task name (comm) first\n"
"  -a, --oom-adj N      write N to /proc/self/oom_score_adj [0]\n"
"  -F, --fast MB        allocate the first MB at full speed, then pace [0]\n"
"  -H, --hold           after allocating, stay: SIGUSR1 frees the memory\n"
"                       (also while still allocating), SIGTERM exits\n"
"  -L, --loop           with -H: keep re-touching the memory until a signal\n"
"                       (sustained reclaim when there is swap)\n"
"  -h, --help           this text\n\n"
"If fd 3 is open, writes \"ready <MB>\" there when done, \"freed\" after\n"
"SIGUSR1.  Exit status: 0 done, 1 allocation failed, 2 usage.\n");
}

static void notify(const char *msg)
{
	ssize_t r = write(3, msg, strlen(msg));

	(void)r; /* fd 3 is optional */
}

static void fill(unsigned char *p, size_t len, enum pattern pat, unsigned long *seed)
{
	size_t off;

	for (off = 0; off < len; off += 4096) {
		unsigned long *w = (unsigned long *)(p + off);

		switch (pat) {
		case PAT_ZERO:
			p[off] = 0;
			break;
		case PAT_COMPRESSIBLE:
			/* differs per page and within the page: not same-filled */
			w[0] = ++*seed;
			w[1] = 0x6d6e6f74696679UL;
			break;
		case PAT_DATA:
		case PAT_RANDOM:
			for (size_t i = 0; i < 4096 / sizeof(long); i++) {
				if (pat == PAT_DATA && i == 2048 / sizeof(long)) {
					memset(w + i, 0, 2048);
					break;
				}
				*seed = *seed * 6364136223846793005UL + 1442695040888963407UL;
				w[i] = *seed;
			}
			break;
		}
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mb", required_argument, NULL, 'm' },
		{ "chunk", required_argument, NULL, 'c' },
		{ "rate", required_argument, NULL, 'r' },
		{ "pattern", required_argument, NULL, 'p' },
		{ "name", required_argument, NULL, 'n' },
		{ "oom-adj", required_argument, NULL, 'a' },
		{ "hold", no_argument, NULL, 'H' },
		{ "fast", required_argument, NULL, 'F' },
		{ "loop", no_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long total = 0, chunk = 1, rate = 0, seed = 1, done = 0, n;
	enum pattern pat = PAT_COMPRESSIBLE;
	const char *adj = "0";
	unsigned char **chunks;
	struct timespec start, next;
	bool hold = false, loop = false, stop = false;
	unsigned long fast = 0;
	sigset_t set;
	int sig;
	char buf[64];
	int c, fd;

	while ((c = getopt_long(argc, argv, "m:c:r:p:n:a:F:HLh", opts, NULL)) != -1) {
		switch (c) {
		case 'm': total = strtoul(optarg, NULL, 0); break;
		case 'c': chunk = strtoul(optarg, NULL, 0); break;
		case 'r': rate = strtoul(optarg, NULL, 0); break;
		case 'p':
			if (!strcmp(optarg, "compressible"))
				pat = PAT_COMPRESSIBLE;
			else if (!strcmp(optarg, "random"))
				pat = PAT_RANDOM;
			else if (!strcmp(optarg, "zero"))
				pat = PAT_ZERO;
			else if (!strcmp(optarg, "data"))
				pat = PAT_DATA;
			else {
				fprintf(stderr, "mnotify-hog: unknown pattern '%s'\n", optarg);
				return 2;
			}
			break;
		case 'n':
			if (prctl(PR_SET_NAME, optarg, 0, 0, 0) < 0) {
				perror("mnotify-hog: PR_SET_NAME");
				return 1;
			}
			break;
		case 'a': adj = optarg; break;
		case 'H': hold = true; break;
		case 'L': loop = true; break;
		case 'F': fast = strtoul(optarg, NULL, 0); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!total || !chunk || optind != argc) {
		usage(stderr);
		return 2;
	}
	fd = open("/proc/self/oom_score_adj", O_WRONLY);
	if (fd < 0 || write(fd, adj, strlen(adj)) < 0) {
		perror("mnotify-hog: oom_score_adj");
		return 1;
	}
	close(fd);

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	if (hold)
		sigprocmask(SIG_BLOCK, &set, NULL);

	n = (total + chunk - 1) / chunk;
	chunks = calloc(n, sizeof(*chunks));
	if (!chunks)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (unsigned long i = 0; i < n; i++) {
		size_t len = (i == n - 1 ? total - done : chunk) * MB;

		chunks[i] = mmap(NULL, len, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (chunks[i] == MAP_FAILED) {
			perror("mnotify-hog: mmap");
			return 1;
		}
		fill(chunks[i], len, pat, &seed);
		done += len / MB;
		if (hold) {
			struct timespec zero = { 0, 0 };

			sig = sigtimedwait(&set, NULL, &zero);
			if (sig == SIGTERM)
				return 0;
			if (sig == SIGUSR1) {
				stop = true;
				break;
			}
		}
		if (rate && done > fast) {
			/* pace: chunk i must not complete before start + done/rate */
			unsigned long long ns = (unsigned long long)(done - fast) *
						1000000000ULL / rate;

			next.tv_sec = start.tv_sec + ns / 1000000000ULL;
			next.tv_nsec = start.tv_nsec + ns % 1000000000ULL;
			if (next.tv_nsec >= 1000000000L) {
				next.tv_sec++;
				next.tv_nsec -= 1000000000L;
			}
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
				;
		}
	}
	if (!stop) {
		snprintf(buf, sizeof(buf), "ready %lu\n", done);
		notify(buf);
	}
	if (!hold)
		return 0;

	for (;;) {
		if (stop) {
			sig = SIGUSR1;
			stop = false;
		} else if (loop) {
			struct timespec zero = { 0, 0 };

			/* re-touch one chunk per round, then look for a signal */
			sig = -1;
			for (unsigned long i = 0; i < n && chunks[i]; i++) {
				size_t len = (i == n - 1 ? total - (n - 1) * chunk : chunk) * MB;

				for (size_t off = 0; off < len; off += 4096)
					chunks[i][off]++;
				sig = sigtimedwait(&set, NULL, &zero);
				if (sig > 0)
					break;
			}
			if (sig <= 0)
				continue;
		} else if (sigwait(&set, &sig)) {
			return 1;
		}
		if (sig == SIGTERM)
			return 0;
		for (unsigned long i = 0; i < n; i++) {
			if (chunks[i]) {
				munmap(chunks[i], (i == n - 1 ? total - (n - 1) * chunk : chunk) * MB);
				chunks[i] = NULL;
			}
		}
		notify("freed\n");
	}
}
