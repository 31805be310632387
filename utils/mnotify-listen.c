// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mnotify-listen: print memory pressure and OOM events as they happen,
 * from the mem_notify netlink family or /dev/mem_notify.
 */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <mnotify/mnotify.h>
#include "uapi/linux/mem_notify.h"
#include "clicommon.h"

#define EXIT_USAGE	2
#define EXIT_TIMEOUT	3

static const char usage_text[] =
"Usage: mnotify-listen [OPTION]...\n"
"Print memory pressure and OOM events, one line each, as they happen.\n"
"\n"
"  -g, --groups LIST    netlink groups to join, comma-separated:\n"
"                       pressure (default), oom (needs CAP_SYS_ADMIN)\n"
"  -c, --chardev[=PATH] watch /dev/mem_notify (or PATH) instead of netlink\n"
"  -C, --cgroup PATH    watch the levels of the memory cgroup PATH (a cgroup v2\n"
"                       directory you manage: root, or its delegated owner)\n"
"                       and the OOM kills in its subtree; may be given up to\n"
"                       64 times; without --groups no group is joined; with\n"
"                       --chardev once: the device file follows that cgroup's\n"
"                       level (and mnotify-listen exits when it is removed)\n"
"  -n, --count N        exit after N events (lost-event notices and zone\n"
"                       states do not count)\n"
"  -w, --timeout SEC    exit after SEC seconds (decimals allowed)\n"
"  -r, --resync         print every zone's state at start and after a loss\n"
"  -l, --level LEVEL    only pressure events whose new or previous level is\n"
"                       at least LEVEL (low, medium, critical): with\n"
"                       --level medium, low<->none changes are not shown;\n"
"                       with --chardev the kernel tells the file only at\n"
"                       LEVEL or above\n"
"  -t                   prefix the event's CLOCK_MONOTONIC time (kernel's)\n"
"  -T                   prefix the wall-clock time of receipt (-t and -T:\n"
"                       text only; JSON has ts_ns, kernel, and rx_ns, receipt)\n"
"  -j, --json           one JSON object per line (adds rx_ns, receipt time)\n"
"  -h, --help           show this help and exit\n"
"  -V, --version        show the version and exit\n"
"\n"
"Once subscribed it prints \"listening...\" (JSON: {\"type\":\"listening\"})\n"
"and flushes, so scripts can start their workload then.\n"
"Lines: enter|exit node N zone Z free P high P threshold P seq S level L\n"
"prev L|unknown headroom P (enter: the node's level changed to low, medium\n"
"or critical, up or down; exit: back to none; zone is the node's highest);\n"
"oom|candidate|candidate-clear pid P tgid P uid U comm C points N adj N\n"
"matched 0|1 constraint C pages P reason R cgroup ID [PATH] [memcg ID\n"
"[PATH]] [priority N priority_cgroup ID] [watch ID] seq S (oom: a kill;\n"
"cgroup-oom: a kill in the subtree of the --cgroup whose id is watch,\n"
"paths relative to your cgroup namespace; candidate: while a\n"
"node is at critical, the task the OOM killer would choose now; clear: it\n"
"is no longer next; reason: badness, name, priority, origin, allocating or\n"
"group; cgroup ids as name_to_handle_at() gives them; with --chardev only\n"
"this process's own: candidate pid P; comm: bytes outside printable\n"
"ASCII, space and backslash as \\xNN; JSON: \\u00NN); chardev [level L\n"
"event N] [cgroup ID [removed]]; lost group G count N|unknown; zone ...\n"
"status S;\n"
"cgroup|cgroup-state PATH id ID level L prev L [headroom P usage P limit P\n"
"binding PATH] [removed] seq S (cgroup: the watched cgroup's level changed;\n"
"cgroup-state: its level when the watch began; pages of the binding limit,\n"
"the lower of memory.max and memory.high of the cgroup or the ancestor with\n"
"the least headroom; no limit on the way up: \"limit none\"; removed: the\n"
"cgroup is gone, the watch ends).\n"
"\n"
"Exit status: 0 done (count reached, timeout without --count, SIGINT or\n"
"SIGTERM), 1 error (no mem_notify family: ENOENT; group not allowed: EPERM;\n"
"a cgroup that cannot be watched: the kernel's reason),\n"
"2 usage error, 3 timeout before --count events.\n";

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

struct opts {
	int json;
	int mono_ts;
	int wall_ts;
	int resync;
	int min_level;
	long count;
	long seen;
};

static void print_prefix(const struct opts *o, const struct mnotify_event *ev)
{
	if (o->mono_ts)
		printf("%llu.%06llu: ",
		       (unsigned long long)(ev->timestamp_ns / 1000000000u),
		       (unsigned long long)(ev->timestamp_ns % 1000000000u) /
			       1000u);
	if (o->wall_ts) {
		struct timeval tv;
		struct tm tm;
		char buf[32];

		gettimeofday(&tv, NULL);
		localtime_r(&tv.tv_sec, &tm);
		strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
		printf("%s.%06ld: ", buf, (long)tv.tv_usec);
	}
}

static const char *group_name(unsigned int g)
{
	switch (g) {
	case MNOTIFY_GROUP_PRESSURE:
		return "pressure";
	case MNOTIFY_GROUP_OOM:
		return "oom";
	case MNOTIFY_GROUP_PRESSURE | MNOTIFY_GROUP_OOM:
		return "pressure,oom";
	default:
		return "chardev";
	}
}

static void print_text(const struct opts *o, const struct mnotify_event *ev)
{
	const struct mnotify_zone *z = &ev->u.zone;
	const struct mnotify_oom *k = &ev->u.oom;
	char comm[MNOTIFY_COMM_MAX * 4 + 1];

	print_prefix(o, ev);
	switch (ev->type) {
	case MNOTIFY_EVENT_PRESSURE_ENTER:
	case MNOTIFY_EVENT_PRESSURE_EXIT:
	case MNOTIFY_EVENT_ZONE_STATE:
	case MNOTIFY_EVENT_NODE_STATE:
		printf("%s node %u zone %s", mnotify_event_name(ev->type),
		       z->node, z->name);
		if (ev->type == MNOTIFY_EVENT_ZONE_STATE)
			printf(" status %d", z->status);
		printf(" free %llu high %llu threshold %llu seq %llu",
		       (unsigned long long)z->free_pages,
		       (unsigned long long)z->high_wmark,
		       (unsigned long long)z->threshold,
		       (unsigned long long)ev->seq);
		if (ev->type != MNOTIFY_EVENT_ZONE_STATE)
			printf(" level %s prev %s headroom %llu",
			       mnotify_level_name(z->level),
			       z->prev_level < 0 ? "unknown" :
			       mnotify_level_name(z->prev_level),
			       (unsigned long long)z->headroom);
		printf("\n");
		break;
	case MNOTIFY_EVENT_OOM_CANDIDATE:
	case MNOTIFY_EVENT_OOM_CANDIDATE_CLEAR:
		if (!ev->group) {	/* chardev: about this process only */
			printf("%s pid %u\n", mnotify_event_name(ev->type),
			       k->pid);
			break;
		}
		/* fall through */
	case MNOTIFY_EVENT_OOM_VICTIM:
	case MNOTIFY_EVENT_CGROUP_OOM:
		cli_text_escape(comm, sizeof(comm), k->comm);
		printf("%s pid %u tgid %u uid %u comm %s",
		       mnotify_event_name(ev->type), k->pid, k->tgid, k->uid,
		       comm);
		if (k->has_points)
			printf(" points %lld", (long long)k->points);
		printf(" adj %d matched %d constraint %s pages %llu",
		       k->oom_score_adj, k->matched,
		       mnotify_constraint_name(k->constraint),
		       (unsigned long long)k->pages);
		if (MNOTIFY_HAS(ev, why)) {
			printf(" reason %s cgroup %llu",
			       mnotify_oom_reason_name(ev->why.reason),
			       (unsigned long long)ev->why.cgroup_id);
			if (MNOTIFY_HAS(ev, oom_cgroups) &&
			    ev->oom_cgroups.path[0])
				printf(" %s", ev->oom_cgroups.path);
			if (ev->why.oom_memcg_id)
				printf(" memcg %llu", (unsigned long long)
				       ev->why.oom_memcg_id);
			if (ev->why.oom_memcg_id &&
			    MNOTIFY_HAS(ev, oom_cgroups) &&
			    ev->oom_cgroups.oom_memcg_path[0])
				printf(" %s", ev->oom_cgroups.oom_memcg_path);
			if (ev->why.reason == MNOTIFY_OOM_REASON_PRIORITY)
				printf(" priority %u priority_cgroup %llu",
				       ev->why.priority, (unsigned long long)
				       ev->why.priority_cgroup_id);
		}
		if (ev->type == MNOTIFY_EVENT_CGROUP_OOM)
			printf(" watch %llu", (unsigned long long)
			       ev->oom_cgroups.watch_id);
		printf(" seq %llu\n", (unsigned long long)ev->seq);
		break;
	case MNOTIFY_EVENT_CHARDEV:
		if (ev->u.zone.level >= 0)
			printf("chardev level %s event %llu",
			       mnotify_level_name(ev->u.zone.level),
			       (unsigned long long)ev->seq);
		else
			printf("chardev");
		/* a device file bound to a cgroup: the level is the cgroup's */
		if (MNOTIFY_HAS(ev, cgroup) && ev->cgroup.id)
			printf(" cgroup %llu%s", (unsigned long long)ev->cgroup.id,
			       ev->cgroup.removed ? " removed" : "");
		printf("\n");
		break;
	case MNOTIFY_EVENT_CGROUP_LEVEL:
	case MNOTIFY_EVENT_CGROUP_STATE: {
		const struct mnotify_cgroup *g = &ev->cgroup;

		printf("%s %s id %llu level %s prev %s",
		       mnotify_event_name(ev->type), g->path[0] ? g->path : "?",
		       (unsigned long long)g->id, mnotify_level_name(g->level),
		       mnotify_level_name(g->prev_level));
		if (g->has_limit)
			printf(" headroom %llu usage %llu limit %llu binding %s",
			       (unsigned long long)g->headroom,
			       (unsigned long long)g->usage,
			       (unsigned long long)g->limit,
			       g->binding_path[0] ? g->binding_path : "?");
		else
			printf(" limit none");
		if (g->removed)
			printf(" removed");
		printf(" seq %llu\n", (unsigned long long)ev->seq);
		break;
	}
	case MNOTIFY_EVENT_LOST:
		if (ev->u.lost.count)
			printf("lost group %s count %llu\n",
			       group_name(ev->u.lost.group),
			       (unsigned long long)ev->u.lost.count);
		else
			printf("lost group %s count unknown\n",
			       group_name(ev->u.lost.group));
		break;
	}
}

static void print_json(const struct mnotify_event *ev)
{
	const struct mnotify_zone *z = &ev->u.zone;
	const struct mnotify_oom *k = &ev->u.oom;
	char s[2 * MNOTIFY_ZONE_NAME_MAX * 6];

	printf("{\"type\":\"%s\",\"seq\":%llu,\"ts_ns\":%llu,\"rx_ns\":%llu",
	       mnotify_event_name(ev->type), (unsigned long long)ev->seq,
	       (unsigned long long)ev->timestamp_ns,
	       (unsigned long long)cli_now_ns());
	switch (ev->type) {
	case MNOTIFY_EVENT_PRESSURE_ENTER:
	case MNOTIFY_EVENT_PRESSURE_EXIT:
	case MNOTIFY_EVENT_ZONE_STATE:
	case MNOTIFY_EVENT_NODE_STATE:
		cli_json_string(s, sizeof(s), z->name);
		printf(",\"node\":%u,\"zone\":%s", z->node, s);
		if (ev->type == MNOTIFY_EVENT_ZONE_STATE)
			printf(",\"status\":%d", z->status);
		printf(",\"free_pages\":%llu,\"high_wmark\":%llu,\"threshold\":%llu",
		       (unsigned long long)z->free_pages,
		       (unsigned long long)z->high_wmark,
		       (unsigned long long)z->threshold);
		if (ev->type == MNOTIFY_EVENT_ZONE_STATE)
			break;
		printf(",\"level\":\"%s\",\"prev_level\":", mnotify_level_name(z->level));
		if (z->prev_level < 0)
			printf("null");
		else
			printf("\"%s\"", mnotify_level_name(z->prev_level));
		printf(",\"headroom\":%llu,\"headroom_free\":%llu,\"headroom_file\":%llu,"
		       "\"headroom_slab\":%llu,\"headroom_swap\":%llu,\"thresh_low\":%llu,"
		       "\"thresh_medium\":%llu,\"thresh_critical\":%llu,\"unreclaimable\":%s",
		       (unsigned long long)z->headroom,
		       (unsigned long long)z->headroom_free,
		       (unsigned long long)z->headroom_file,
		       (unsigned long long)z->headroom_slab,
		       (unsigned long long)z->headroom_swap,
		       (unsigned long long)z->thresh_low,
		       (unsigned long long)z->thresh_medium,
		       (unsigned long long)z->thresh_critical,
		       z->unreclaimable ? "true" : "false");
		break;
	case MNOTIFY_EVENT_OOM_VICTIM:
	case MNOTIFY_EVENT_OOM_CANDIDATE:
	case MNOTIFY_EVENT_OOM_CANDIDATE_CLEAR:
	case MNOTIFY_EVENT_CGROUP_OOM:
		if (!ev->group) {	/* chardev: about this process only */
			printf(",\"pid\":%u,\"self\":true", k->pid);
			break;
		}
		cli_json_string(s, sizeof(s), k->comm);
		printf(",\"pid\":%u,\"tgid\":%u,\"uid\":%u,\"comm\":%s",
		       k->pid, k->tgid, k->uid, s);
		if (k->has_points)
			printf(",\"points\":%lld", (long long)k->points);
		printf(",\"oom_score_adj\":%d,\"matched\":%s,\"constraint\":\"%s\",\"pages\":%llu",
		       k->oom_score_adj, k->matched ? "true" : "false",
		       mnotify_constraint_name(k->constraint),
		       (unsigned long long)k->pages);
		if (!MNOTIFY_HAS(ev, why))
			break;
		printf(",\"reason\":\"%s\",\"cgroup_id\":%llu",
		       mnotify_oom_reason_name(ev->why.reason),
		       (unsigned long long)ev->why.cgroup_id);
		if (ev->why.oom_memcg_id)
			printf(",\"memcg_id\":%llu",
			       (unsigned long long)ev->why.oom_memcg_id);
		if (ev->why.reason == MNOTIFY_OOM_REASON_PRIORITY)
			printf(",\"priority\":%u,\"priority_cgroup_id\":%llu",
			       ev->why.priority,
			       (unsigned long long)ev->why.priority_cgroup_id);
		if (!MNOTIFY_HAS(ev, oom_cgroups))
			break;
		{
			char path[MNOTIFY_CGROUP_PATH_MAX * 6];

			if (ev->oom_cgroups.path[0]) {
				cli_json_string(path, sizeof(path), ev->oom_cgroups.path);
				printf(",\"cgroup_path\":%s", path);
			}
			if (ev->oom_cgroups.oom_memcg_path[0]) {
				cli_json_string(path, sizeof(path),
						ev->oom_cgroups.oom_memcg_path);
				printf(",\"memcg_path\":%s", path);
			}
		}
		if (ev->type == MNOTIFY_EVENT_CGROUP_OOM)
			printf(",\"watch_id\":%llu",
			       (unsigned long long)ev->oom_cgroups.watch_id);
		break;
	case MNOTIFY_EVENT_CGROUP_LEVEL:
	case MNOTIFY_EVENT_CGROUP_STATE: {
		const struct mnotify_cgroup *g = &ev->cgroup;
		char path[MNOTIFY_CGROUP_PATH_MAX * 6];

		cli_json_string(path, sizeof(path), g->path);
		printf(",\"cgroup_id\":%llu,\"path\":%s,\"level\":\"%s\",\"prev_level\":\"%s\",\"removed\":%s",
		       (unsigned long long)g->id, path, mnotify_level_name(g->level),
		       mnotify_level_name(g->prev_level), g->removed ? "true" : "false");
		if (!g->has_limit) {
			printf(",\"limit\":null");
			break;
		}
		cli_json_string(path, sizeof(path), g->binding_path);
		printf(",\"headroom\":%llu,\"usage\":%llu,\"limit\":%llu,\"thresh_low\":%llu,"
		       "\"thresh_medium\":%llu,\"thresh_critical\":%llu,\"binding_id\":%llu,"
		       "\"binding_path\":%s",
		       (unsigned long long)g->headroom, (unsigned long long)g->usage,
		       (unsigned long long)g->limit, (unsigned long long)g->thresh_low,
		       (unsigned long long)g->thresh_medium,
		       (unsigned long long)g->thresh_critical,
		       (unsigned long long)g->binding_id, path);
		break;
	}
	case MNOTIFY_EVENT_LOST:
		printf(",\"group\":\"%s\",\"count\":", group_name(ev->u.lost.group));
		if (ev->u.lost.count)
			printf("%llu", (unsigned long long)ev->u.lost.count);
		else
			printf("null");
		break;
	case MNOTIFY_EVENT_CHARDEV:
		if (ev->u.zone.level >= 0)
			printf(",\"level\":\"%s\",\"event\":%llu",
			       mnotify_level_name(ev->u.zone.level),
			       (unsigned long long)ev->seq);
		if (MNOTIFY_HAS(ev, cgroup) && ev->cgroup.id)
			printf(",\"cgroup_id\":%llu,\"removed\":%s",
			       (unsigned long long)ev->cgroup.id,
			       ev->cgroup.removed ? "true" : "false");
		break;
	}
	printf("}\n");
}

struct ctx {
	struct opts *o;
	struct mnotify *h;
	int need_resync;
};

static int on_event(const struct mnotify_event *ev, void *arg)
{
	struct ctx *c = arg;
	struct opts *o = c->o;

	/* --level: a change entirely below the level is not shown */
	if ((ev->type == MNOTIFY_EVENT_PRESSURE_ENTER ||
	     ev->type == MNOTIFY_EVENT_PRESSURE_EXIT) &&
	    ev->u.zone.level < o->min_level && ev->u.zone.prev_level < o->min_level)
		return MNOTIFY_CB_OK;
	if (ev->type == MNOTIFY_EVENT_CGROUP_LEVEL && !ev->cgroup.removed &&
	    ev->cgroup.level < o->min_level && ev->cgroup.prev_level < o->min_level)
		return MNOTIFY_CB_OK;
	if (o->json)
		print_json(ev);
	else
		print_text(o, ev);
	if (ev->type == MNOTIFY_EVENT_LOST)
		c->need_resync = o->resync;
	else if (ev->type != MNOTIFY_EVENT_ZONE_STATE && ev->type != MNOTIFY_EVENT_NODE_STATE &&
		 ev->type != MNOTIFY_EVENT_CGROUP_STATE)
		o->seen++;
	if (o->count > 0 && o->seen >= o->count)
		return MNOTIFY_CB_STOP;	/* stop */
	return MNOTIFY_CB_OK;
}

static int parse_groups(const char *arg, unsigned int *groups)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	int ret = 0;

	if (!copy)
		return -1;
	*groups = 0;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "pressure"))
			*groups |= MNOTIFY_GROUP_PRESSURE;
		else if (!strcmp(tok, "oom"))
			*groups |= MNOTIFY_GROUP_OOM;
		else {
			fprintf(stderr, "mnotify-listen: unknown group '%s' (pressure, oom)\n",
				tok);
			ret = -1;
			break;
		}
	}
	free(copy);
	if (!ret && !*groups) {
		fprintf(stderr, "mnotify-listen: no group given\n");
		ret = -1;
	}
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "groups", required_argument, NULL, 'g' },
		{ "chardev", optional_argument, NULL, 'c' },
		{ "cgroup", required_argument, NULL, 'C' },
		{ "count", required_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 'w' },
		{ "resync", no_argument, NULL, 'r' },
		{ "level", required_argument, NULL, 'l' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int groups = MNOTIFY_GROUP_PRESSURE;
	const char *cgroups[64];
	int ncgroups = 0, groups_given = 0;
	struct opts o = { 0 };
	struct ctx c = { .o = &o };
	const char *chardev = NULL;
	int use_chardev = 0, opt, err;
	double timeout = -1;
	uint64_t deadline = 0;
	struct sigaction sa;

	while ((opt = getopt_long(argc, argv, "g:c::C:n:w:rl:tTjhV", longopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'g':
			if (parse_groups(optarg, &groups))
				return EXIT_USAGE;
			groups_given = 1;
			break;
		case 'C':
			if (ncgroups == (int)(sizeof(cgroups) / sizeof(cgroups[0]))) {
				fprintf(stderr, "mnotify-listen: at most 64 --cgroup\n");
				return EXIT_USAGE;
			}
			cgroups[ncgroups++] = optarg;
			break;
		case 'c':
			use_chardev = 1;
			chardev = optarg;
			break;
		case 'n':
			if (cli_parse_long(optarg, 1, LONG_MAX, &o.count)) {
				fprintf(stderr, "mnotify-listen: bad --count '%s'\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 'w':
			if (cli_parse_seconds(optarg, &timeout)) {
				fprintf(stderr, "mnotify-listen: bad --timeout '%s'\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 'r':
			o.resync = 1;
			break;
		case 'l':
			o.min_level = mnotify_level_from_name(optarg);
			if (o.min_level < MNOTIFY_LEVEL_LOW) {
				fprintf(stderr, "mnotify-listen: bad --level '%s' (low, medium, critical)\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 't':
			o.mono_ts = 1;
			break;
		case 'T':
			o.wall_ts = 1;
			break;
		case 'j':
			o.json = 1;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		case 'V':
			puts("mnotify-listen (" PACKAGE_NAME ") " PACKAGE_VERSION);
			return 0;
		default:
			fputs("Try 'mnotify-listen --help'.\n", stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "mnotify-listen: unexpected argument '%s'\n",
			argv[optind]);
		return EXIT_USAGE;
	}
	if (ncgroups > 1 && use_chardev) {
		fprintf(stderr, "mnotify-listen: --chardev follows one --cgroup at most\n");
		return EXIT_USAGE;
	}
	if (ncgroups && !groups_given)
		groups = 0;
	if (o.json && (o.mono_ts || o.wall_ts)) {
		fprintf(stderr, "mnotify-listen: -t and -T are for text output; JSON lines carry ts_ns and rx_ns\n");
		return EXIT_USAGE;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (use_chardev)
		err = mnotify_open_chardev(&c.h, chardev);
	else
		err = mnotify_open(&c.h, groups);
	if (err) {
		const char *hint = cli_open_hint(err, use_chardev);

		fprintf(stderr, "mnotify-listen: %s: %s%s%s%s\n",
			use_chardev ? (chardev ? chardev : "/dev/mem_notify") :
				      "netlink family mem_notify",
			strerror(-err), hint ? " (" : "", hint ? hint : "",
			hint ? ")" : "");
		return 1;
	}
	/* --level with the device: the kernel tells the file only from there */
	if (use_chardev && o.min_level > MNOTIFY_LEVEL_LOW) {
		uint32_t l = (uint32_t)o.min_level;

		if (ioctl(mnotify_fd(c.h), MEM_NOTIFY_IOC_SET_MIN_LEVEL, &l)) {
			fprintf(stderr, "mnotify-listen: %s: --level: %s\n",
				chardev ? chardev : "/dev/mem_notify", strerror(errno));
			mnotify_close(c.h);
			return 1;
		}
	}

	for (int i = 0; i < ncgroups; i++) {
		err = mnotify_watch_cgroup_path(c.h, cgroups[i]);
		if (err) {
			const char *why = mnotify_ext_ack(c.h);

			fprintf(stderr, "mnotify-listen: --cgroup %s: %s%s%s%s\n", cgroups[i],
				strerror(-err), *why ? " (" : "", why, *why ? ")" : "");
			mnotify_close(c.h);
			return 1;
		}
	}

	if (o.json)
		printf("{\"type\":\"listening\",\"source\":\"%s\"}\n",
		       use_chardev ? "chardev" : "netlink");
	else
		printf("listening...\n");
	fflush(stdout);

	if (o.resync && !use_chardev && (groups & MNOTIFY_GROUP_PRESSURE))
		c.need_resync = 1;
	if (timeout >= 0)
		deadline = cli_now_ns() + (uint64_t)(timeout * 1e9);

	err = 0;
	while (!stop) {
		int wait_ms = -1;

		if (c.need_resync) {
			c.need_resync = 0;
			err = mnotify_resync(c.h, on_event, &c);
			if (err < 0) {
				fprintf(stderr, "mnotify-listen: resync: %s\n",
					strerror(-err));
				break;
			}
			fflush(stdout);
		}
		if (deadline) {
			uint64_t now = cli_now_ns();

			if (now >= deadline)
				break;
			/* a long --timeout waits in slices: an int of ms overflows */
			wait_ms = (int)((deadline - now + 999999) / 1000000 > 1 << 30 ?
					1 << 30 : (deadline - now + 999999) / 1000000);
		}
		err = mnotify_wait(c.h, wait_ms, on_event, &c);
		fflush(stdout);
		if (err == -EINTR) {
			err = 0;
			continue;
		}
		if (err == -EIDRM && use_chardev && ncgroups) {
			fprintf(stderr, "mnotify-listen: --cgroup %s: the cgroup was removed\n",
				cgroups[0]);
			err = 0;
			break;
		}
		if (err < 0) {
			fprintf(stderr, "mnotify-listen: %s\n", strerror(-err));
			break;
		}
		if (o.count > 0 && o.seen >= o.count)
			break;
	}
	mnotify_close(c.h);
	if (err < 0)
		return 1;
	if (o.count > 0 && o.seen < o.count && !stop)
		return EXIT_TIMEOUT;
	return 0;
}
