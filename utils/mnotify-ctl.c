// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mnotify-ctl: commands of the mem_notify netlink family, and a cgroup's
 * memory.oom.priority.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mnotify/mnotify.h>
#include "clicommon.h"

#define EXIT_USAGE 2

static const char usage_text[] =
"Usage: mnotify-ctl [-j] COMMAND\n"
"Query and set the kernel's memory notification (mem_notify) state.\n"
"\n"
"Commands:\n"
"  get oom_victim        print vm.oom_victim (empty line: off)\n"
"  set oom_victim NAME   OOM-kill tasks whose name contains NAME first\n"
"                        (at most 15 bytes; needs CAP_SYS_ADMIN)\n"
"  clear oom_victim      turn the preference off (CAP_SYS_ADMIN)\n"
"  get thresholds        print the level thresholds: low medium critical,\n"
"                        in 1/1000 of a node's memory\n"
"  set thresholds L M C  set them (1-1000, L > M > C; CAP_SYS_ADMIN)\n"
"  zones                 each zone's pressure state and free pages\n"
"  get oom-priority CGROUP    print the cgroup's memory.oom.priority\n"
"  set oom-priority CGROUP N  set it: 0-1000, default 500; the OOM killer\n"
"                        takes from the highest first, 0 only when nothing\n"
"                        else is left (needs write access to the file)\n"
"  stats                 event, loss, watcher and subscriber counters\n"
"  cgroups               the memory cgroups watched for their levels, with\n"
"                        level, headroom, usage and the binding limit: of\n"
"                        every watcher with CAP_SYS_ADMIN, else none\n"
"  cgroups CGROUP...     the same for these cgroups, now (you must manage\n"
"                        them: root, or their delegated owner)\n"
"\n"
"CGROUP is a cgroup v2 path as /proc/PID/cgroup shows it (/system.slice/x)\n"
"or a directory under the cgroup2 mount (/sys/fs/cgroup/system.slice/x).\n"
"\n"
"Options:\n"
"  -j, --json            print one JSON object per line\n"
"  -h, --help            show this help and exit\n"
"  -V, --version         show the version and exit\n"
"\n"
"Errors print one line with the kernel's explanation, e.g.\n"
"  mnotify-ctl: set oom_victim: Operation not permitted (setting oom_victim needs CAP_SYS_ADMIN)\n"
"Exit status: 0 success, 1 the command failed, 2 usage error.\n";

static int json;

static int fail(struct mnotify *h, const char *what, int err)
{
	const char *ack = h ? mnotify_ext_ack(h) : "";

	if (ack[0])
		fprintf(stderr, "mnotify-ctl: %s: %s (%s)\n", what,
			strerror(-err), ack);
	else
		fprintf(stderr, "mnotify-ctl: %s: %s\n", what, strerror(-err));
	return 1;
}

static int cmd_get(struct mnotify *h)
{
	char name[MNOTIFY_COMM_MAX], s[MNOTIFY_COMM_MAX * 6 + 3];
	int err = mnotify_get_oom_victim(h, name);

	if (err)
		return fail(h, "get oom_victim", err);
	if (json) {
		cli_json_string(s, sizeof(s), name);
		printf("{\"oom_victim\":%s}\n", s);
	} else {
		printf("%s\n", name);
	}
	return 0;
}

static int cmd_set(struct mnotify *h, const char *name, const char *what)
{
	int err = mnotify_set_oom_victim(h, name);

	if (err)
		return fail(h, what, err);
	return 0;
}

static int cmd_get_thresholds(struct mnotify *h)
{
	struct mnotify_thresholds t;
	int err = mnotify_get_thresholds(h, &t, sizeof(t));

	if (err)
		return fail(h, "get thresholds", err);
	if (json)
		printf("{\"low\":%u,\"medium\":%u,\"critical\":%u}\n", t.low,
		       t.medium, t.critical);
	else
		printf("%u %u %u\n", t.low, t.medium, t.critical);
	return 0;
}

static int parse_thresholds(char **argv, struct mnotify_thresholds *t)
{
	long v[3];

	for (int i = 0; i < 3; i++)
		if (cli_parse_long(argv[i], 1, 1000, &v[i])) {
			fprintf(stderr, "mnotify-ctl: set thresholds: '%s' is not a number from 1 to 1000\n",
				argv[i]);
			return -1;
		}
	t->low = (uint32_t)v[0];
	t->medium = (uint32_t)v[1];
	t->critical = (uint32_t)v[2];
	return 0;
}

static int cmd_set_thresholds(struct mnotify *h,
			      const struct mnotify_thresholds *t)
{
	int err = mnotify_set_thresholds(h, t, sizeof(*t));

	return err ? fail(h, "set thresholds", err) : 0;
}

static int cmd_zones(struct mnotify *h)
{
	struct mnotify_zone z[64];
	char s[MNOTIFY_ZONE_NAME_MAX * 6 + 3];
	uint64_t seq;
	int n, i;

	n = mnotify_get_zones(h, z, 64, sizeof(z[0]), &seq);
	if (n < 0)
		return fail(h, "zones", n);
	if (n > 64)
		n = 64;
	if (!json)
		printf("%-4s %-8s %6s %10s %10s %10s\n", "node", "zone",
		       "status", "free", "high", "threshold");
	for (i = 0; i < n; i++) {
		if (json) {
			cli_json_string(s, sizeof(s), z[i].name);
			printf("{\"node\":%u,\"zone\":%s,\"status\":%d,\"free_pages\":%llu,\"high_wmark\":%llu,\"threshold\":%llu,\"seq\":%llu}\n",
			       z[i].node, s, z[i].status,
			       (unsigned long long)z[i].free_pages,
			       (unsigned long long)z[i].high_wmark,
			       (unsigned long long)z[i].threshold,
			       (unsigned long long)seq);
		} else {
			printf("%-4u %-8s %6d %10llu %10llu %10llu\n",
			       z[i].node, z[i].name, z[i].status,
			       (unsigned long long)z[i].free_pages,
			       (unsigned long long)z[i].high_wmark,
			       (unsigned long long)z[i].threshold);
		}
	}
	return 0;
}

/* a subscriber count, or "unknown" (null in JSON) without CAP_SYS_ADMIN */
static const char *count_str(uint32_t v, char *buf, size_t len, bool js)
{
	if (v == MNOTIFY_UNKNOWN)
		return js ? "null" : "unknown";
	snprintf(buf, len, "%u", v);
	return buf;
}

static int cmd_stats(struct mnotify *h)
{
	struct mnotify_stats st;
	char ps[16], os[16], cs[16];
	int err = mnotify_get_stats(h, &st, sizeof(st));

	if (err)
		return fail(h, "stats", err);
	if (json) {
		printf("{\"events\":%llu,\"sent\":%llu,\"lost\":%llu,\"overrun\":%llu,\"watchers\":%u,\"fasync_watchers\":%u,\"zones_under_pressure\":%u,\"pressure_subscribers\":%s,\"oom_subscribers\":%s,\"cgroup_watches\":%s}\n",
		       (unsigned long long)st.events,
		       (unsigned long long)st.sent,
		       (unsigned long long)st.lost,
		       (unsigned long long)st.overrun, st.watchers,
		       st.fasync_watchers, st.zones_under_pressure,
		       count_str(st.pressure_subscribers, ps, sizeof(ps), true),
		       count_str(st.oom_subscribers, os, sizeof(os), true),
		       count_str(st.cgroup_watches, cs, sizeof(cs), true));
		return 0;
	}
	printf("events %llu\nsent %llu\nlost %llu\noverrun %llu\n"
	       "watchers %u\nfasync_watchers %u\nzones_under_pressure %u\n"
	       "pressure_subscribers %s\noom_subscribers %s\ncgroup_watches %s\n",
	       (unsigned long long)st.events, (unsigned long long)st.sent,
	       (unsigned long long)st.lost, (unsigned long long)st.overrun,
	       st.watchers, st.fasync_watchers, st.zones_under_pressure,
	       count_str(st.pressure_subscribers, ps, sizeof(ps), false),
	       count_str(st.oom_subscribers, os, sizeof(os), false),
	       count_str(st.cgroup_watches, cs, sizeof(cs), false));
	return 0;
}

/* where cgroup2 is mounted: from /proc/self/mounts, else /sys/fs/cgroup */
static void cgroup2_mount(char *out, size_t len)
{
	char dev[256], dir[512], type[64];
	FILE *f = fopen("/proc/self/mounts", "re");

	snprintf(out, len, "/sys/fs/cgroup");
	if (!f)
		return;
	while (fscanf(f, "%255s %511s %63s %*[^\n]", dev, dir, type) == 3)
		if (!strcmp(type, "cgroup2")) {
			snprintf(out, len, "%s", dir);
			break;
		}
	fclose(f);
}

static int on_cgroup(const struct mnotify_event *ev, void *arg)
{
	const struct mnotify_cgroup *g = &ev->cgroup;
	char p[MNOTIFY_CGROUP_PATH_MAX * 6], b[MNOTIFY_CGROUP_PATH_MAX * 6];

	if (ev->type != MNOTIFY_EVENT_CGROUP_STATE)
		return MNOTIFY_CB_OK;
	(*(int *)arg)++;
	if (json) {
		cli_json_string(p, sizeof(p), g->path);
		printf("{\"path\":%s,\"cgroup_id\":%llu,\"level\":\"%s\"", p,
		       (unsigned long long)g->id, mnotify_level_name(g->level));
		if (g->has_limit) {
			cli_json_string(b, sizeof(b), g->binding_path);
			printf(",\"headroom\":%llu,\"usage\":%llu,\"limit\":%llu,\"binding_id\":%llu,\"binding_path\":%s",
			       (unsigned long long)g->headroom, (unsigned long long)g->usage,
			       (unsigned long long)g->limit, (unsigned long long)g->binding_id, b);
		} else {
			printf(",\"limit\":null");
		}
		printf("}\n");
		return MNOTIFY_CB_OK;
	}
	printf("%s level %s", g->path[0] ? g->path : "?", mnotify_level_name(g->level));
	if (g->has_limit)
		printf(" headroom %llu usage %llu limit %llu binding %s\n",
		       (unsigned long long)g->headroom, (unsigned long long)g->usage,
		       (unsigned long long)g->limit, g->binding_path[0] ? g->binding_path : "?");
	else
		printf(" limit none\n");
	return MNOTIFY_CB_OK;
}

/* with @cgs: watch each (its state comes back), else list the watches */
static int cmd_cgroups(struct mnotify *h, char **cgs, int n)
{
	char mnt[512], path[1024];
	int err, shown = 0;

	cgroup2_mount(mnt, sizeof(mnt));
	for (int i = 0; i < n; i++) {
		size_t m = strlen(mnt);
		const char *cg = cgs[i];

		if (!strncmp(cg, mnt, m) && (cg[m] == '/' || !cg[m]))
			snprintf(path, sizeof(path), "%s", cg);
		else
			snprintf(path, sizeof(path), "%s/%s", mnt, cg + strspn(cg, "/"));
		err = mnotify_watch_cgroup_path(h, path);
		if (err) {
			char what[1100];

			snprintf(what, sizeof(what), "cgroups %s", cg);
			return fail(h, what, err);
		}
	}
	if (!n) {
		err = mnotify_get_cgroups(h);
		if (err < 0)
			return fail(h, "cgroups", err);
	}
	err = mnotify_dispatch(h, on_cgroup, &shown);
	if (err < 0)
		return fail(h, "cgroups", err);
	return 0;
}

/* @cg's memory.oom.priority file in @out; -1 if the path is too long */
static int oom_priority_path(const char *cg, char *out, size_t len)
{
	char mnt[512];
	size_t m;
	int n;

	cgroup2_mount(mnt, sizeof(mnt));
	m = strlen(mnt);
	if (!strncmp(cg, mnt, m) && (cg[m] == '/' || !cg[m]))
		n = snprintf(out, len, "%s/memory.oom.priority", cg);
	else
		n = snprintf(out, len, "%s/%s/memory.oom.priority", mnt,
			     cg + strspn(cg, "/"));
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

static int oom_priority_fail(const char *what, const char *cg, int err)
{
	const char *why = NULL;

	if (err == ENOENT)
		why = "no such cgroup, or no memory.oom.priority: it is the root, its parent "
		      "does not enable the memory controller, or the kernel lacks it";
	else if (err == ERANGE)
		why = "the kernel takes 0 to 1000";
	fprintf(stderr, "mnotify-ctl: %s %s: %s%s%s%s\n", what, cg, strerror(err),
		why ? " (" : "", why ? why : "", why ? ")" : "");
	return 1;
}

static int cmd_oom_priority(const char *cg, const char *value)
{
	const char *what = value ? "set oom-priority" : "get oom-priority";
	char path[1024], buf[32], s[2048];
	ssize_t n;
	int fd, e;

	if (oom_priority_path(cg, path, sizeof(path)))
		return oom_priority_fail(what, cg, ENAMETOOLONG);
	fd = open(path, (value ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
	if (fd < 0)
		return oom_priority_fail(what, cg, errno);
	if (value)
		n = write(fd, value, strlen(value));
	else
		n = read(fd, buf, sizeof(buf) - 1);
	e = errno;
	close(fd);
	if (n < 0)
		return oom_priority_fail(what, cg, e);
	if (value)
		return 0;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (json) {
		cli_json_string(s, sizeof(s), cg);
		printf("{\"cgroup\":%s,\"oom_priority\":%s}\n", s, buf);
	} else {
		printf("%s\n", buf);
	}
	return 0;
}

static bool is_oom_priority(const char *obj)
{
	return obj && (!strcmp(obj, "oom-priority") || !strcmp(obj, "oom_priority"));
}

static int usage_error(const char *msg)
{
	fprintf(stderr, "mnotify-ctl: %s\nTry 'mnotify-ctl --help'.\n", msg);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct mnotify_thresholds thr = { 0 };
	struct mnotify *h;
	const char *cmd, *obj = NULL;
	int opt, nargs, err, ret;
	char buf[24];

	while ((opt = getopt_long(argc, argv, "+jhV", longopts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = 1;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		case 'V':
			puts("mnotify-ctl (" PACKAGE_NAME ") " PACKAGE_VERSION);
			return 0;
		default:
			fputs("Try 'mnotify-ctl --help'.\n", stderr);
			return EXIT_USAGE;
		}
	}
	nargs = argc - optind;
	if (nargs < 1)
		return usage_error("no command given");
	cmd = argv[optind];
	if (nargs > 1)
		obj = argv[optind + 1];

	/* memory.oom.priority is a cgroup file: no netlink needed */
	if ((!strcmp(cmd, "get") || !strcmp(cmd, "set")) && is_oom_priority(obj)) {
		long v;

		if (!strcmp(cmd, "get")) {
			if (nargs != 3)
				return usage_error("expected: get oom-priority CGROUP");
			return cmd_oom_priority(argv[optind + 2], NULL);
		}
		if (nargs != 4)
			return usage_error("expected: set oom-priority CGROUP N");
		if (cli_parse_long(argv[optind + 3], 0, 1000, &v)) {
			fprintf(stderr, "mnotify-ctl: set oom-priority: '%s' is not a number from 0 to 1000\n",
				argv[optind + 3]);
			return EXIT_USAGE;
		}
		snprintf(buf, sizeof(buf), "%ld", v);
		return cmd_oom_priority(argv[optind + 2], buf);
	}

	/* check the command line before talking to the kernel */
	if (!strcmp(cmd, "get")) {
		if (nargs != 2 || (strcmp(obj, "oom_victim") && strcmp(obj, "thresholds")))
			return usage_error("expected: get oom_victim|thresholds|oom-priority CGROUP");
	} else if (!strcmp(cmd, "clear")) {
		if (nargs != 2 || strcmp(obj, "oom_victim"))
			return usage_error("expected: clear oom_victim");
	} else if (!strcmp(cmd, "set") && nargs >= 2 && !strcmp(obj, "thresholds")) {
		if (nargs != 5)
			return usage_error("expected: set thresholds LOW MEDIUM CRITICAL");
		if (parse_thresholds(argv + optind + 2, &thr))
			return EXIT_USAGE;
	} else if (!strcmp(cmd, "set")) {
		if (nargs != 3 || strcmp(obj, "oom_victim"))
			return usage_error("expected: set oom_victim NAME");
		/* a task name: what the kernel takes (TASK_COMM_LEN - 1) */
		if (strlen(argv[optind + 2]) > MNOTIFY_COMM_MAX - 1)
			return usage_error("set oom_victim: NAME is longer than 15 bytes (a task name)");
	} else if (!strcmp(cmd, "cgroups")) {
		/* any number of CGROUPs */
	} else if (!strcmp(cmd, "zones") || !strcmp(cmd, "stats")) {
		if (nargs != 1)
			return usage_error("too many arguments");
	} else {
		fprintf(stderr, "mnotify-ctl: unknown command '%s'\nTry 'mnotify-ctl --help'.\n",
			cmd);
		return EXIT_USAGE;
	}

	err = mnotify_open(&h, 0);
	if (err) {
		const char *hint = cli_open_hint(err, 0);

		fprintf(stderr, "mnotify-ctl: netlink family mem_notify: %s%s%s%s\n",
			strerror(-err), hint ? " (" : "", hint ? hint : "", hint ? ")" : "");
		return 1;
	}
	if (!strcmp(cmd, "get") && !strcmp(obj, "thresholds"))
		ret = cmd_get_thresholds(h);
	else if (!strcmp(cmd, "set") && !strcmp(obj, "thresholds"))
		ret = cmd_set_thresholds(h, &thr);
	else if (!strcmp(cmd, "get"))
		ret = cmd_get(h);
	else if (!strcmp(cmd, "clear"))
		ret = cmd_set(h, "", "clear oom_victim");
	else if (!strcmp(cmd, "set"))
		ret = cmd_set(h, argv[optind + 2], "set oom_victim");
	else if (!strcmp(cmd, "zones"))
		ret = cmd_zones(h);
	else if (!strcmp(cmd, "cgroups"))
		ret = cmd_cgroups(h, argv + optind + 1, nargs - 1);
	else
		ret = cmd_stats(h);
	mnotify_close(h);
	return ret;
}
