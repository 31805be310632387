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
 * either direction, the way back to none included.  A client that calls
 * WatchSession() also hears, by unicast SessionLevelChanged(s, s, y), the
 * level of its own cgroup against the memory limits on its way up (its
 * scope's, its session's, its user's slice: the kernel's levels per
 * memory cgroup), for as long as its bus connection lasts.  See
 * mnotifyd(8).
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
#define EXT_ERROR	EXT_IFACE ".Error."
#define MAX_NODES	1024
#define CGROUP_ROOT	"/sys/fs/cgroup"
/* bus connections that may watch their session at once */
#define MAX_SUBSCRIBERS	4096

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
"    <method name='WatchSession'>"
"      <arg name='cgroup' type='s' direction='out'/>"
"      <arg name='level' type='s' direction='out'/>"
"      <arg name='warning_level' type='y' direction='out'/>"
"    </method>"
"    <signal name='SessionLevelChanged'>"
"      <arg name='cgroup' type='s'/>"
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
"included, and to a client that calls WatchSession the level of its own\n"
"cgroup against the memory limits above it.\n"
"\n"
"  -r, --reannounce SEC  send LowMemoryWarning again every SEC seconds while\n"
"                        the level stays at low or above [15; 0: never]\n"
"  -S, --no-session      refuse WatchSession (no cgroup watches; then no\n"
"                        capability is needed)\n"
"  -a, --address ADDR    use the bus at ADDR instead of the system bus\n"
"  -f, --fake            take the levels from standard input, one per line\n"
"                        (none, low, medium, critical; \"lost\" acts as a lost\n"
"                        event; \"cgroup LEVEL\" sets every watched session's):\n"
"                        for tests, no kernel needed\n"
"  -h, --help            this text\n"
"  -V, --version         print the version and exit\n"
"\n"
"Exit status: 0 stopped by SIGTERM or SIGINT; 1 the bus or the name was\n"
"lost (another instance, or low-memory-monitor, owns it); 2 usage; 69 the\n"
"running kernel has no mem_notify family.\n";

/* a cgroup that clients watch, and who */
struct session {
	char *path;		/* cgroup v2 path, from /proc/PID/cgroup */
	guint64 id;		/* the kernel's id for it, once its state came */
	int level;
	gboolean watched;	/* the kernel watches it for us (not --fake) */
	GPtrArray *subscribers;	/* unique bus names */
};

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
	gboolean no_session;	/* --no-session */
	GHashTable *sessions;	/* path -> struct session */
	GHashTable *subscribers;	/* unique name -> struct session */
	guint owner_changed_id;
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

static void session_free(gpointer p)
{
	struct session *se = p;

	g_ptr_array_unref(se->subscribers);
	g_free(se->path);
	g_free(se);
}

static void session_signal(struct state *s, struct session *se, const char *dest)
{
	if (!s->conn)
		return;
	g_dbus_connection_emit_signal(s->conn, dest, LMM_PATH, EXT_IFACE, "SessionLevelChanged",
				      g_variant_new("(ssy)", se->path, level_str(se->level),
						    mnotifyd_warning(se->level)), NULL);
}

/* a session's level is @level now: tell its subscribers (all: @force) */
static void session_set(struct state *s, struct session *se, int level, gboolean force)
{
	if (level == se->level && !force)
		return;
	se->level = level;
	for (guint i = 0; i < se->subscribers->len; i++)
		session_signal(s, se, g_ptr_array_index(se->subscribers, i));
}

/* stop watching @se (its last subscriber left, or the cgroup is gone) */
static void session_drop(struct state *s, struct session *se)
{
	for (guint i = 0; i < se->subscribers->len; i++)
		g_hash_table_remove(s->subscribers, g_ptr_array_index(se->subscribers, i));
	if (se->watched && se->id && s->h) {
		int err = mnotify_unwatch_cgroup(s->h, se->id);

		if (err && err != -ENOENT)
			g_printerr("mnotifyd: unwatch %s: %s\n", se->path, g_strerror(-err));
	}
	g_hash_table_remove(s->sessions, se->path);
}

/* a watched cgroup's state or change, from the kernel */
static void session_event(struct state *s, const struct mnotify_event *ev)
{
	const struct mnotify_cgroup *cg = &ev->cgroup;
	struct session *se;

	/* cgroup v2 directories cannot be renamed: the path stays its key */
	if (!MNOTIFY_HAS(ev, cgroup))
		return;
	se = g_hash_table_lookup(s->sessions, cg->path);
	if (!se)
		return;
	se->id = cg->id;
	if (cg->removed) {
		session_set(s, se, MNOTIFY_LEVEL_NONE, FALSE);
		se->id = 0;	/* the kernel ended the watch */
		session_drop(s, se);
		return;
	}
	session_set(s, se, cg->level < 0 ? MNOTIFY_LEVEL_NONE : cg->level,
		    ev->type == MNOTIFY_EVENT_CGROUP_STATE);
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
	case MNOTIFY_EVENT_CGROUP_STATE:
	case MNOTIFY_EVENT_CGROUP_LEVEL:
		session_event(s, ev);
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
	/* the watched cgroups' states (each said again) */
	if (s->sessions && g_hash_table_size(s->sessions)) {
		err = mnotify_get_cgroups(s->h);
		if (err < 0)
			return err;
		err = mnotify_dispatch(s->h, on_event, s);
		if (err < 0)
			return err;
	}
	return 0;
}

/*
 * Deliver what the socket has (or the library queued behind a command's
 * ack), then announce, or resynchronise after lost events.  0, or the
 * -errno of a failed dispatch.
 */
static int pump(struct state *s)
{
	int err = mnotify_dispatch(s->h, on_event, s);

	if (err < 0 && err != -EINTR && err != -EAGAIN)
		return err;
	if (s->need_resync) {
		s->need_resync = FALSE;
		err = resync(s);
		if (err)
			g_printerr("mnotifyd: resync after a loss: %s\n", g_strerror(-err));
	} else {
		update(s, FALSE);
	}
	return 0;
}

static gboolean on_netlink(gint fd, GIOCondition cond, gpointer data)
{
	struct state *s = data;
	int err = pump(s);

	if (err) {
		g_printerr("mnotifyd: netlink: %s\n", g_strerror(-err));
		s->status = 1;
		g_main_loop_quit(s->loop);
		return G_SOURCE_REMOVE;
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
		} else if (!strncmp(line, "cgroup ", 7) &&
			   (l = mnotify_level_from_name(line + 7)) >= 0) {
			GHashTableIter it;
			gpointer v;

			g_hash_table_iter_init(&it, s->sessions);
			while (g_hash_table_iter_next(&it, NULL, &v))
				session_set(s, v, l, FALSE);
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

/* a WatchSession() call waiting for its caller's process id */
struct watch_call {
	struct state *s;
	GDBusMethodInvocation *inv;
};

static void watch_reply(GDBusMethodInvocation *inv, const struct session *se)
{
	g_dbus_method_invocation_return_value(inv, g_variant_new("(ssy)", se->path,
								  level_str(se->level),
								  mnotifyd_warning(se->level)));
}

/* the kernel's refusal of a cgroup watch, as a D-Bus error */
static void watch_error(struct state *s, GDBusMethodInvocation *inv, const char *path, int err)
{
	const char *ack = s->h ? mnotify_ext_ack(s->h) : "";
	const char *name = EXT_ERROR "Failed";
	char *msg;

	switch (err) {
	case -EACCES:
	case -EPERM:
		name = EXT_ERROR "AccessDenied";
		break;
	case -EOPNOTSUPP:
		name = EXT_ERROR "NotSupported";
		break;
	case -ENOSPC:
		name = EXT_ERROR "LimitsExceeded";
		break;
	default:
		break;
	}
	if (err == -EACCES || err == -EPERM)
		msg = g_strdup_printf("mnotifyd may not watch the cgroup %s: it needs write access to its cgroup.procs (CAP_DAC_OVERRIDE, see mnotifyd(8))%s%s",
				      path, *ack ? ": " : "", ack);
	else
		msg = g_strdup_printf("cannot watch the cgroup %s: %s%s%s", path, g_strerror(-err),
				      *ack ? ": " : "", ack);
	g_dbus_method_invocation_return_dbus_error(inv, name, msg);
	g_free(msg);
}

/* the caller's process id came: find its cgroup, watch it, reply */
static void on_caller_pid(GObject *src, GAsyncResult *res, gpointer data)
{
	struct watch_call *wc = data;
	struct state *s = wc->s;
	GDBusMethodInvocation *inv = wc->inv;
	const char *sender = g_dbus_method_invocation_get_sender(inv);
	char procf[64], path[4096], *text = NULL;
	GError *gerr = NULL;
	struct session *se;
	GVariant *v;
	guint32 pid;

	g_free(wc);
	v = g_dbus_connection_call_finish(G_DBUS_CONNECTION(src), res, &gerr);
	if (!v) {
		/* most likely the caller is gone already */
		g_dbus_method_invocation_return_gerror(inv, gerr);
		g_error_free(gerr);
		goto out;
	}
	g_variant_get(v, "(u)", &pid);
	g_variant_unref(v);
	snprintf(procf, sizeof(procf), "/proc/%u/cgroup", pid);
	if (!g_file_get_contents(procf, &text, NULL, &gerr)) {
		g_dbus_method_invocation_return_dbus_error(inv, EXT_ERROR "Failed", gerr->message);
		g_error_free(gerr);
		goto out;
	}
	if (mnotifyd_cgroup_of(text, path, sizeof(path))) {
		g_dbus_method_invocation_return_dbus_error(inv, EXT_ERROR "NotSupported",
			"the caller is in no cgroup v2 hierarchy (no 0:: line in /proc/PID/cgroup)");
		goto out;
	}
	if (strlen(path) >= MNOTIFY_CGROUP_PATH_MAX) {
		g_dbus_method_invocation_return_dbus_error(inv, EXT_ERROR "NotSupported",
			"the caller's cgroup path is longer than the kernel's events carry (511 bytes)");
		goto out;
	}
	if (!strcmp(path, "/")) {
		g_dbus_method_invocation_return_dbus_error(inv, EXT_ERROR "NotSupported",
			"the caller is in the root cgroup: no memory limit applies to it, only the system's Level");
		goto out;
	}
	/* the same connection again (its own WatchSession raced): its state */
	se = g_hash_table_lookup(s->subscribers, sender);
	if (se) {
		watch_reply(inv, se);
		goto out;
	}
	if (g_hash_table_size(s->subscribers) >= MAX_SUBSCRIBERS) {
		g_dbus_method_invocation_return_dbus_error(inv, EXT_ERROR "LimitsExceeded",
			"too many connections watch their sessions");
		goto out;
	}
	se = g_hash_table_lookup(s->sessions, path);
	if (!se) {
		se = g_new0(struct session, 1);
		se->path = g_strdup(path);
		se->subscribers = g_ptr_array_new_with_free_func(g_free);
		if (s->h) {
			char *dir = g_strconcat(CGROUP_ROOT, path, NULL);
			int err = mnotify_watch_cgroup_path(s->h, dir);

			g_free(dir);
			/* watched already (a watch whose state never came): ask */
			if (err == -EEXIST)
				err = mnotify_get_cgroups(s->h) < 0 ? -EEXIST : 0;
			if (err) {
				watch_error(s, inv, path, err);
				session_free(se);
				goto out;
			}
			se->watched = TRUE;
		}
		g_hash_table_insert(s->sessions, se->path, se);
		/* its state now (MNOTIFY_EVENT_CGROUP_STATE) is queued */
		if (s->h) {
			int err = pump(s);

			if (err)
				g_printerr("mnotifyd: netlink: %s\n", g_strerror(-err));
		}
		/* a cgroup removed meanwhile is gone again */
		se = g_hash_table_lookup(s->sessions, path);
		if (!se) {
			g_dbus_method_invocation_return_dbus_error(inv, EXT_ERROR "Failed",
				"the caller's cgroup was removed");
			goto out;
		}
	}
	g_ptr_array_add(se->subscribers, g_strdup(sender));
	g_hash_table_insert(s->subscribers, g_strdup(sender), se);
	watch_reply(inv, se);
out:
	g_free(text);
}

static void method_call(GDBusConnection *conn, const gchar *sender, const gchar *path,
			const gchar *iface, const gchar *method, GVariant *params,
			GDBusMethodInvocation *inv, gpointer data)
{
	struct state *s = data;
	struct session *se;
	struct watch_call *wc;

	if (g_strcmp0(method, "WatchSession")) {
		g_dbus_method_invocation_return_dbus_error(inv, "org.freedesktop.DBus.Error.UnknownMethod",
							   "no such method");
		return;
	}
	if (s->no_session) {
		g_dbus_method_invocation_return_dbus_error(inv, EXT_ERROR "NotSupported",
			"session levels are off (mnotifyd --no-session)");
		return;
	}
	if (!sender) {
		g_dbus_method_invocation_return_dbus_error(inv, EXT_ERROR "Failed",
			"a peer-to-peer caller has no session");
		return;
	}
	se = g_hash_table_lookup(s->subscribers, sender);
	if (se) {
		watch_reply(inv, se);
		return;
	}
	wc = g_new0(struct watch_call, 1);
	wc->s = s;
	wc->inv = inv;
	g_dbus_connection_call(conn, "org.freedesktop.DBus", "/org/freedesktop/DBus",
			       "org.freedesktop.DBus", "GetConnectionUnixProcessID",
			       g_variant_new("(s)", sender), G_VARIANT_TYPE("(u)"),
			       G_DBUS_CALL_FLAGS_NONE, -1, NULL, on_caller_pid, wc);
}

/* a client left the bus: its watch ends, and the cgroup's with the last */
static void on_owner_changed(GDBusConnection *conn, const gchar *sender, const gchar *path,
			     const gchar *iface, const gchar *signal, GVariant *params,
			     gpointer data)
{
	struct state *s = data;
	const char *name, *old, *new;
	struct session *se;

	if (!g_variant_is_of_type(params, G_VARIANT_TYPE("(sss)")))
		return;
	g_variant_get(params, "(&s&s&s)", &name, &old, &new);
	if (name[0] != ':' || *new)
		return;
	se = g_hash_table_lookup(s->subscribers, name);
	if (!se)
		return;
	for (guint i = 0; i < se->subscribers->len; i++) {
		if (!strcmp(g_ptr_array_index(se->subscribers, i), name)) {
			g_ptr_array_remove_index_fast(se->subscribers, i);
			break;
		}
	}
	g_hash_table_remove(s->subscribers, name);
	if (!se->subscribers->len)
		session_drop(s, se);
}

static const GDBusInterfaceVTable ext_vtable = { method_call, get_property, NULL, { 0 } };

static const GDBusInterfaceVTable lmm_vtable = { NULL, NULL, NULL, { 0 } };

static void on_bus_acquired(GDBusConnection *conn, const gchar *name, gpointer data)
{
	struct state *s = data;
	GError *err = NULL;

	s->conn = conn;
	/* a bus that goes away is a failure (systemd restarts us), not a stop */
	g_dbus_connection_set_exit_on_close(conn, FALSE);
	s->owner_changed_id = g_dbus_connection_signal_subscribe(
		conn, "org.freedesktop.DBus", "org.freedesktop.DBus", "NameOwnerChanged",
		"/org/freedesktop/DBus", NULL, G_DBUS_SIGNAL_FLAGS_NONE, on_owner_changed, s, NULL);
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
		{ "no-session", no_argument, NULL, 'S' },
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

	while ((opt = getopt_long(argc, argv, "r:Sa:fhV", longopts, NULL)) != -1) {
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
		case 'S':
			s.no_session = TRUE;
			break;
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

	s.sessions = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, session_free);
	s.subscribers = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
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
	if (s.owner_changed_id && s.conn)
		g_dbus_connection_signal_unsubscribe(s.conn, s.owner_changed_id);
	g_hash_table_destroy(s.subscribers);
	g_hash_table_destroy(s.sessions);
	mnotify_close(s.h);
	g_dbus_node_info_unref(s.info);
	g_main_loop_unref(s.loop);
	return s.status;
}
