// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * gmm-client: what an unmodified GLib application does to hear about low
 * memory (g_memory_monitor_dup_default() and its "low-memory-warning"
 * signal), with each warning printed; used by the tests and the bench to
 * check that mnotifyd (or low-memory-monitor) reaches such applications.
 *
 *   gmm-client [--ext]
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

static void on_appeared(GDBusConnection *c, const gchar *name, const gchar *owner, gpointer data)
{
	printf("owner yes\n");
	fflush(stdout);
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
	gboolean ext = argc > 1 && !strcmp(argv[1], "--ext");

	if (argc > 2 || (argc == 2 && !ext)) {
		fprintf(stderr, "usage: gmm-client [--ext]\n");
		return 2;
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
		g_bus_watch_name_on_connection(bus, "org.freedesktop.LowMemoryMonitor",
					       G_BUS_NAME_WATCHER_FLAGS_NONE, on_appeared,
					       on_vanished, NULL, NULL);
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
