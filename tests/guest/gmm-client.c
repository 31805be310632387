// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gmm-client: what an unmodified GLib application does to hear about low
 * memory (g_memory_monitor_dup_default() and its "low-memory-warning"
 * signal), with each warning printed; used by the tests and the bench to
 * check that mnotifyd (or low-memory-monitor) reaches such applications.
 *
 *   gmm-client [--ext] [--session]
 *
 * Prints, one line each, flushed:
 *   ready                         the monitor exists (GLib may still be
 *                                 connecting its proxy: warnings can be
 *                                 missed until the service repeats them)
 *   warning LEVEL MS              GMemoryMonitor's signal: 50, 100 or 255,
 *                                 at MS on CLOCK_MONOTONIC
 *   level NAME WARNING MS         (--ext) org.mnotify.Pressure1.LevelChanged
 *   owner yes|no                  (--ext) org.freedesktop.LowMemoryMonitor
 *                                 appeared or vanished
 *   session CGROUP NAME WARNING MS
 *                                 (--ext) org.mnotify.Pressure1.
 *                                 SessionLevelChanged: sent to this
 *                                 connection only, after --session
 *   watch CGROUP NAME WARNING     (--session) WatchSession's reply, called
 *                                 each time the service appears
 *   watch-error ERROR MESSAGE     ... or its error
 * and exits 0 on SIGTERM or SIGINT.  The bus is the system bus, or
 * DBUS_SYSTEM_BUS_ADDRESS; set GIO_USE_MEMORY_MONITOR=dbus outside a
 * sandbox if another GMemoryMonitor implementation could be picked.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <gio/gio.h>
#include <glib-unix.h>

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void on_warning(GMemoryMonitor *m, GMemoryMonitorWarningLevel level, gpointer data)
{
	printf("warning %d %lld\n", (int)level, mono_ms());
	fflush(stdout);
}

static void on_level(GDBusConnection *c, const gchar *sender, const gchar *path,
		     const gchar *iface, const gchar *signal, GVariant *params, gpointer data)
{
	const gchar *name;
	guchar w;

	if (!g_variant_is_of_type(params, G_VARIANT_TYPE("(sy)")))
		return;
	g_variant_get(params, "(&sy)", &name, &w);
	printf("level %s %u %lld\n", name, w, mono_ms());
	fflush(stdout);
}

static void on_session(GDBusConnection *c, const gchar *sender, const gchar *path,
		       const gchar *iface, const gchar *signal, GVariant *params, gpointer data)
{
	const gchar *cgroup, *name;
	guchar w;

	if (!g_variant_is_of_type(params, G_VARIANT_TYPE("(ssy)")))
		return;
	g_variant_get(params, "(&s&sy)", &cgroup, &name, &w);
	printf("session %s %s %u %lld\n", cgroup, name, w, mono_ms());
	fflush(stdout);
}

static void on_watch(GObject *src, GAsyncResult *res, gpointer data)
{
	GError *err = NULL;
	GVariant *v = g_dbus_connection_call_finish(G_DBUS_CONNECTION(src), res, &err);
	const gchar *cgroup, *name;
	guchar w;

	if (!v) {
		gchar *remote = g_dbus_error_get_remote_error(err);

		g_dbus_error_strip_remote_error(err);
		printf("watch-error %s %s\n", remote ? remote : "-", err->message);
		g_free(remote);
		g_error_free(err);
	} else {
		g_variant_get(v, "(&s&sy)", &cgroup, &name, &w);
		printf("watch %s %s %u\n", cgroup, name, w);
		g_variant_unref(v);
	}
	fflush(stdout);
}

static void on_appeared(GDBusConnection *c, const gchar *name, const gchar *owner, gpointer data)
{
	printf("owner yes\n");
	fflush(stdout);
	if (data)	/* --session */
		g_dbus_connection_call(c, "org.freedesktop.LowMemoryMonitor",
				       "/org/freedesktop/LowMemoryMonitor", "org.mnotify.Pressure1",
				       "WatchSession", NULL, G_VARIANT_TYPE("(ssy)"),
				       G_DBUS_CALL_FLAGS_NONE, -1, NULL, on_watch, NULL);
}

static void on_vanished(GDBusConnection *c, const gchar *name, gpointer data)
{
	printf("owner no\n");
	fflush(stdout);
}

static gboolean on_stop(gpointer loop)
{
	g_main_loop_quit(loop);
	return G_SOURCE_REMOVE;
}

int main(int argc, char **argv)
{
	GMainLoop *loop = g_main_loop_new(NULL, FALSE);
	GMemoryMonitor *m;
	GError *err = NULL;
	gboolean ext = FALSE, session = FALSE;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--ext")) {
			ext = TRUE;
		} else if (!strcmp(argv[i], "--session")) {
			ext = session = TRUE;
		} else {
			fprintf(stderr, "usage: gmm-client [--ext] [--session]\n");
			return 2;
		}
	}
	m = g_memory_monitor_dup_default();
	if (!m) {
		fprintf(stderr, "gmm-client: no GMemoryMonitor\n");
		return 1;
	}
	g_signal_connect(m, "low-memory-warning", G_CALLBACK(on_warning), NULL);
	if (ext) {
		GDBusConnection *bus = g_bus_get_sync(G_BUS_TYPE_SYSTEM, NULL, &err);

		if (!bus) {
			fprintf(stderr, "gmm-client: system bus: %s\n", err->message);
			return 1;
		}
		g_dbus_connection_signal_subscribe(bus, "org.freedesktop.LowMemoryMonitor",
						   "org.mnotify.Pressure1", "LevelChanged",
						   "/org/freedesktop/LowMemoryMonitor", NULL,
						   G_DBUS_SIGNAL_FLAGS_NONE, on_level, NULL, NULL);
		g_dbus_connection_signal_subscribe(bus, "org.freedesktop.LowMemoryMonitor",
						   "org.mnotify.Pressure1", "SessionLevelChanged",
						   "/org/freedesktop/LowMemoryMonitor", NULL,
						   G_DBUS_SIGNAL_FLAGS_NONE, on_session, NULL, NULL);
		g_bus_watch_name_on_connection(bus, "org.freedesktop.LowMemoryMonitor",
					       G_BUS_NAME_WATCHER_FLAGS_NONE, on_appeared,
					       on_vanished, session ? bus : NULL, NULL);
	}
	g_unix_signal_add(SIGTERM, on_stop, loop);
	g_unix_signal_add(SIGINT, on_stop, loop);
	printf("ready\n");
	fflush(stdout);
	g_main_loop_run(loop);
	g_object_unref(m);
	g_main_loop_unref(loop);
	return 0;
}
