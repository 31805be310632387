// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mnotifyd: org.freedesktop.LowMemoryMonitor on the system bus, driven by
 * mem_notify's levels, so that applications which use GLib's
 * GMemoryMonitor (or listen for LowMemoryWarning themselves) are told
 * without linking any mnotify code.
 *
 * The object /org/freedesktop/LowMemoryMonitor has low-memory-monitor
 * 2.1's interface unchanged (the signal LowMemoryWarning(y): 50 low, 100
 * medium, 255 critical, sent when the level rises, and again every
 * --reannounce seconds while it stays at low or above), and an extension
 * interface, org.mnotify.Pressure1, that old clients never see: the
 * properties Level (none, low, medium, critical), WarningLevel (y) and
 * Headroom (pages), and the signal LevelChanged(s, y) for every change in
 * either direction, the way back to none included.  See mnotifyd(8).
 */
#define _GNU_SOURCE
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib-unix.h>

#include <mnotify/mnotify.h>
#include "mnotifyd-level.h"

#define LMM_NAME	"org.freedesktop.LowMemoryMonitor"
#define LMM_PATH	"/org/freedesktop/LowMemoryMonitor"
#define LMM_IFACE	LMM_NAME
#define EXT_IFACE	"org.mnotify.Pressure1"
#define MAX_NODES	1024

/* exit statuses for systemd: 69 (EX_UNAVAILABLE) is not restarted */
#define EXIT_NO_FAMILY	69

static const char introspection_xml[] =
"<node>"
"  <interface name='" LMM_IFACE "'>"
"    <signal name='LowMemoryWarning'>"
"      <arg name='level' type='y'/>"
"    </signal>"
"  </interface>"
"  <interface name='" EXT_IFACE "'>"
"    <property name='Level' type='s' access='read'/>"
"    <property name='WarningLevel' type='y' access='read'/>"
"    <property name='Headroom' type='t' access='read'/>"
"    <signal name='LevelChanged'>"
"      <arg name='level' type='s'/>"
"      <arg name='warning_level' type='y'/>"
"    </signal>"
"  </interface>"
"</node>";

static const char usage_text[] =
"Usage: mnotifyd [OPTION]...\n"
"Own org.freedesktop.LowMemoryMonitor on the system bus and tell its\n"
"clients (GLib's GMemoryMonitor among them) about mem_notify's memory\n"
"pressure levels: LowMemoryWarning 50 on low, 100 on medium, 255 on\n"
"critical; org.mnotify.Pressure1 for every change, the way back to none\n"
"included.\n"
"\n"
"  -r, --reannounce SEC  send LowMemoryWarning again every SEC seconds while\n"
"                        the level stays at low or above [15; 0: never]\n"
"  -a, --address ADDR    use the bus at ADDR instead of the system bus\n"
"  -f, --fake            take the levels from standard input, one per line\n"
"                        (none, low, medium, critical; \"lost\" acts as a lost\n"
"                        event): for tests, no kernel needed\n"
"  -h, --help            this text\n"
"  -V, --version         print the version and exit\n"
"\n"
"Exit status: 0 stopped by SIGTERM or SIGINT; 1 the bus or the name was\n"
"lost (another instance, or low-memory-monitor, owns it); 2 usage; 69 the\n"
"running kernel has no mem_notify family.\n";

struct state {
	GMainLoop *loop;
	GDBusConnection *conn;
	GDBusNodeInfo *info;
	struct mnotify *h;
	int node_level[MAX_NODES];
	guint64 node_headroom[MAX_NODES];
	int nodes;
	int level;		/* the system's, as last announced */
	guint64 headroom;
	int reannounce;		/* seconds */
	guint reannounce_id;
	gboolean owned;
	gboolean fake;
	gboolean need_resync;	/* events were lost */
	int status;		/* exit status */
};

static const char *level_str(int level)
{
	return level > MNOTIFY_LEVEL_CRITICAL ? "critical" : mnotify_level_name(level);
}

static void emit_warning(struct state *s)
{
	unsigned char w = mnotifyd_warning(s->level);

	if (!s->conn || !s->owned || !w)
		return;
	g_dbus_connection_emit_signal(s->conn, NULL, LMM_PATH, LMM_IFACE, "LowMemoryWarning",
				      g_variant_new("(y)", w), NULL);
}

static gboolean reannounce_cb(gpointer data)
{
	struct state *s = data;

	emit_warning(s);
	return G_SOURCE_CONTINUE;
}

/* the level changed (or must be said again): tell both interfaces */
static void announce(struct state *s, int level, guint64 headroom, gboolean force)
{
	int prev = s->level;
	GVariantBuilder changed;

	if (level == prev && headroom == s->headroom && !force)
		return;
	s->level = level;
	s->headroom = headroom;
	if (!s->conn || !s->owned)
		return;
	if (level > prev || (force && level >= MNOTIFY_LEVEL_LOW))
		emit_warning(s);
	if (level != prev || force)
		g_dbus_connection_emit_signal(s->conn, NULL, LMM_PATH, EXT_IFACE, "LevelChanged",
					      g_variant_new("(sy)", level_str(level),
							    mnotifyd_warning(level)), NULL);
	g_variant_builder_init(&changed, G_VARIANT_TYPE("a{sv}"));
	g_variant_builder_add(&changed, "{sv}", "Level", g_variant_new_string(level_str(level)));
	g_variant_builder_add(&changed, "{sv}", "WarningLevel",
			      g_variant_new_byte(mnotifyd_warning(level)));
	g_variant_builder_add(&changed, "{sv}", "Headroom", g_variant_new_uint64(headroom));
	g_dbus_connection_emit_signal(s->conn, NULL, LMM_PATH, "org.freedesktop.DBus.Properties",
				      "PropertiesChanged",
				      g_variant_new("(sa{sv}as)", EXT_IFACE, &changed, NULL), NULL);
	/* while at low or above, say it again now and then */
	if (s->reannounce && level >= MNOTIFY_LEVEL_LOW && !s->reannounce_id)
		s->reannounce_id = g_timeout_add_seconds((guint)s->reannounce, reannounce_cb, s);
	if (level < MNOTIFY_LEVEL_LOW && s->reannounce_id) {
		g_source_remove(s->reannounce_id);
		s->reannounce_id = 0;
	}
}

/* the system's level and the headroom of the node that decides it */
static void update(struct state *s, gboolean force)
{
	int level = mnotifyd_system_level(s->node_level, s->nodes);
	guint64 headroom = 0;

	for (int i = 0; i < s->nodes; i++)
		if (s->node_level[i] == level && (!headroom || s->node_headroom[i] < headroom))
			headroom = s->node_headroom[i];
	announce(s, level, headroom, force);
}

static void set_node(struct state *s, const struct mnotify_zone *z)
{
	if (z->node >= MAX_NODES)
		return;
	if ((int)z->node >= s->nodes)
		s->nodes = (int)z->node + 1;
	s->node_level[z->node] = z->level < 0 ? MNOTIFY_LEVEL_NONE : z->level;
	s->node_headroom[z->node] = z->headroom;
}

static int on_event(const struct mnotify_event *ev, void *arg)
{
	struct state *s = arg;

	switch (ev->type) {
	case MNOTIFY_EVENT_PRESSURE_ENTER:
	case MNOTIFY_EVENT_PRESSURE_EXIT:
	case MNOTIFY_EVENT_NODE_STATE:
		set_node(s, &ev->u.zone);
		break;
	case MNOTIFY_EVENT_LOST:
		/* resynchronise after the batch: see on_netlink() */
		s->need_resync = TRUE;
		break;
	default:
		break;
	}
	return MNOTIFY_CB_OK;
}

/* every node's level now, announced again (after a loss, at start) */
static int resync(struct state *s)
{
	int err;

	memset(s->node_level, 0, sizeof(s->node_level));
	err = mnotify_resync(s->h, on_event, s);
	if (err < 0)
		return err;
	update(s, TRUE);
	return 0;
}

static gboolean on_netlink(gint fd, GIOCondition cond, gpointer data)
{
	struct state *s = data;
	int err;

	err = mnotify_dispatch(s->h, on_event, s);
	if (err < 0 && err != -EINTR && err != -EAGAIN) {
		g_printerr("mnotifyd: netlink: %s\n", g_strerror(-err));
		s->status = 1;
		g_main_loop_quit(s->loop);
		return G_SOURCE_REMOVE;
	}
	if (s->need_resync) {
		s->need_resync = FALSE;
		err = resync(s);
		if (err)
			g_printerr("mnotifyd: resync after a loss: %s\n", g_strerror(-err));
	} else {
		update(s, FALSE);
	}
	return G_SOURCE_CONTINUE;
}

/* --fake: a level per line on standard input */
static gboolean on_stdin(gint fd, GIOCondition cond, gpointer data)
{
	struct state *s = data;
	char buf[256];
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	char *line, *save = NULL;

	if (n <= 0) {
		g_main_loop_quit(s->loop);
		return G_SOURCE_REMOVE;
	}
	buf[n] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int l = mnotify_level_from_name(line);

		if (!strcmp(line, "lost")) {
			update(s, TRUE);
		} else if (l >= 0) {
			s->nodes = 1;
			s->node_level[0] = l;
			s->node_headroom[0] = (guint64)(4 - l) * 1000;
			update(s, FALSE);
		} else {
			g_printerr("mnotifyd: --fake: unknown level '%s'\n", line);
		}
	}
	return G_SOURCE_CONTINUE;
}

static GVariant *get_property(GDBusConnection *conn, const gchar *sender,
			      const gchar *path, const gchar *iface, const gchar *prop,
			      GError **error, gpointer data)
{
	struct state *s = data;

	if (!g_strcmp0(prop, "Level"))
		return g_variant_new_string(level_str(s->level));
	if (!g_strcmp0(prop, "WarningLevel"))
		return g_variant_new_byte(mnotifyd_warning(s->level));
	if (!g_strcmp0(prop, "Headroom"))
		return g_variant_new_uint64(s->headroom);
	g_set_error(error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_PROPERTY, "no property %s", prop);
	return NULL;
}

static const GDBusInterfaceVTable ext_vtable = { NULL, get_property, NULL, { 0 } };
static const GDBusInterfaceVTable lmm_vtable = { NULL, NULL, NULL, { 0 } };

static void on_bus_acquired(GDBusConnection *conn, const gchar *name, gpointer data)
{
	struct state *s = data;
	GError *err = NULL;

	s->conn = conn;
	/* a bus that goes away is a failure (systemd restarts us), not a stop */
	g_dbus_connection_set_exit_on_close(conn, FALSE);
	if (!g_dbus_connection_register_object(conn, LMM_PATH, s->info->interfaces[0],
					       &lmm_vtable, s, NULL, &err) ||
	    !g_dbus_connection_register_object(conn, LMM_PATH, s->info->interfaces[1],
					       &ext_vtable, s, NULL, &err)) {
		g_printerr("mnotifyd: cannot register %s: %s\n", LMM_PATH, err->message);
		g_error_free(err);
		s->status = 1;
		g_main_loop_quit(s->loop);
	}
}

static void on_name_acquired(GDBusConnection *conn, const gchar *name, gpointer data)
{
	struct state *s = data;

	s->owned = TRUE;
	/* say the level it is already at */
	update(s, s->level >= MNOTIFY_LEVEL_LOW);
}

static void on_name_lost(GDBusConnection *conn, const gchar *name, gpointer data)
{
	struct state *s = data;

	if (!conn)
		g_printerr("mnotifyd: lost the connection to the bus\n");
	else if (!s->owned)
		g_printerr("mnotifyd: %s is owned by another process (low-memory-monitor, or "
			   "another mnotifyd?): see mnotifyd(8)\n", LMM_NAME);
	else
		g_printerr("mnotifyd: lost %s\n", LMM_NAME);
	s->status = 1;
	g_main_loop_quit(s->loop);
}

static gboolean on_signal(gpointer data)
{
	struct state *s = data;

	s->status = 0;
	g_main_loop_quit(s->loop);
	return G_SOURCE_REMOVE;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "reannounce", required_argument, NULL, 'r' },
		{ "address", required_argument, NULL, 'a' },
		{ "fake", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct state s = { .reannounce = 15 };
	const char *address = NULL;
	GDBusConnection *private_conn = NULL;
	GError *gerr = NULL;
	guint owner;
	int opt, err;

	while ((opt = getopt_long(argc, argv, "r:a:fhV", longopts, NULL)) != -1) {
		switch (opt) {
		case 'r': {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (*end || end == optarg || v < 0 || v > 86400) {
				fprintf(stderr, "mnotifyd: --reannounce takes 0 to 86400 seconds\n");
				return 2;
			}
			s.reannounce = (int)v;
			break;
		}
		case 'a':
			address = optarg;
			break;
		case 'f':
			s.fake = TRUE;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		case 'V':
			printf("mnotifyd (mnotify) %s\n", PACKAGE_VERSION);
			return 0;
		default:
			fputs(usage_text, stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "mnotifyd: unexpected argument '%s'\nTry 'mnotifyd --help'.\n",
			argv[optind]);
		return 2;
	}

	if (s.fake) {
		g_unix_fd_add(0, G_IO_IN | G_IO_HUP, on_stdin, &s);
	} else {
		err = mnotify_open(&s.h, MNOTIFY_GROUP_PRESSURE);
		if (err == -ENOENT) {
			fprintf(stderr, "mnotifyd: the running kernel has no mem_notify family: "
				"CONFIG_MEM_NOTIFY_NETLINK\n");
			return EXIT_NO_FAMILY;
		}
		if (err) {
			fprintf(stderr, "mnotifyd: mem_notify: %s\n", strerror(-err));
			return 1;
		}
		err = resync(&s);
		if (err)
			fprintf(stderr, "mnotifyd: the nodes' levels: %s\n", strerror(-err));
		g_unix_fd_add(mnotify_fd(s.h), G_IO_IN, on_netlink, &s);
	}
	s.loop = g_main_loop_new(NULL, FALSE);
	s.info = g_dbus_node_info_new_for_xml(introspection_xml, NULL);
	g_unix_signal_add(SIGTERM, on_signal, &s);
	g_unix_signal_add(SIGINT, on_signal, &s);

	if (address) {
		private_conn = g_dbus_connection_new_for_address_sync(
			address, G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
			G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION, NULL, NULL, &gerr);
		if (!private_conn) {
			fprintf(stderr, "mnotifyd: bus %s: %s\n", address, gerr->message);
			g_error_free(gerr);
			s.status = 1;
			goto out;
		}
		g_dbus_connection_set_exit_on_close(private_conn, FALSE);
		on_bus_acquired(private_conn, LMM_NAME, &s);
		owner = g_bus_own_name_on_connection(private_conn, LMM_NAME,
						     G_BUS_NAME_OWNER_FLAGS_DO_NOT_QUEUE,
						     on_name_acquired, on_name_lost, &s, NULL);
	} else {
		owner = g_bus_own_name(G_BUS_TYPE_SYSTEM, LMM_NAME,
				       G_BUS_NAME_OWNER_FLAGS_DO_NOT_QUEUE, on_bus_acquired,
				       on_name_acquired, on_name_lost, &s, NULL);
	}
	g_main_loop_run(s.loop);
	g_bus_unown_name(owner);
	if (private_conn)
		g_object_unref(private_conn);
out:
	mnotify_close(s.h);
	g_dbus_node_info_unref(s.info);
	g_main_loop_unref(s.loop);
	return s.status;
}
