/* The compositor tests' layer-shell probe: the overlay's protocol on its own. It makes a surface on the overlay
 * layer as the session's overlay does (anchored to every edge, an empty input region, no exclusive zone, no keyboard),
 * draws one translucent frame, waits for the frame callback that says the compositor used it, then destroys the
 * layer surface and checks the compositor is still answering.
 *
 *   layer-probe
 *
 * Output, one line each, flushed: `configured WIDTHxHEIGHT`, `presented` (the frame callback), `destroyed`; exit 0.
 * Without zwlr_layer_shell_v1: `no zwlr_layer_shell_v1` and exit 3. If the compositor closes the surface: `closed`.
 * Built by the tests with cc and wayland-scanner (WaylandProbes.swift). */
#define _GNU_SOURCE
#include <string.h>
#include "wlr-layer-shell-unstable-v1-client-protocol.h"
#include "probe.h"

static struct wl_compositor *compositor;
static struct wl_shm *shm;
static struct zwlr_layer_shell_v1 *layer_shell;
static struct wl_surface *surface;
static int width, height, configured, presented, closed;

static void global(void *data, struct wl_registry *registry, uint32_t name, const char *interface, uint32_t version) {
    (void)data; (void)version;
    if (strcmp(interface, wl_compositor_interface.name) == 0)
        compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
    else if (strcmp(interface, wl_shm_interface.name) == 0)
        shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
    else if (strcmp(interface, zwlr_layer_shell_v1_interface.name) == 0)
        layer_shell = wl_registry_bind(registry, name, &zwlr_layer_shell_v1_interface, 1);
}
static void global_remove(void *data, struct wl_registry *registry, uint32_t name) { (void)data; (void)registry; (void)name; }
static const struct wl_registry_listener registry_listener = { global, global_remove };

static void layer_configure(void *data, struct zwlr_layer_surface_v1 *l, uint32_t serial, uint32_t w, uint32_t h) {
    (void)data;
    zwlr_layer_surface_v1_ack_configure(l, serial);
    width = (int)w; height = (int)h;
    configured = 1;
    printf("configured %dx%d\n", width, height);
    fflush(stdout);
}
static void layer_closed(void *data, struct zwlr_layer_surface_v1 *l) { (void)data; (void)l; closed = 1; printf("closed\n"); fflush(stdout); }
static const struct zwlr_layer_surface_v1_listener layer_listener = { layer_configure, layer_closed };

static void frame_done(void *data, struct wl_callback *callback, uint32_t time) {
    (void)data; (void)time;
    wl_callback_destroy(callback);
    presented = 1;
    printf("presented\n");
    fflush(stdout);
}
static const struct wl_callback_listener frame_listener = { frame_done };

int main(void) {
    probe_unblock_signals();
    struct wl_display *display = wl_display_connect(NULL);
    if (!display) { fprintf(stderr, "layer-probe: cannot connect to the Wayland display\n"); return 1; }
    struct wl_registry *registry = wl_display_get_registry(display);
    wl_registry_add_listener(registry, &registry_listener, NULL);
    wl_display_roundtrip(display);
    if (!layer_shell) { printf("no zwlr_layer_shell_v1\n"); fflush(stdout); return 3; }
    if (!compositor || !shm) { fprintf(stderr, "layer-probe: no wl_compositor or wl_shm\n"); return 1; }
    surface = wl_compositor_create_surface(compositor);
    struct zwlr_layer_surface_v1 *layer = zwlr_layer_shell_v1_get_layer_surface(
        layer_shell, surface, NULL, ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY, "edgeswipe-layer-probe");
    zwlr_layer_surface_v1_add_listener(layer, &layer_listener, NULL);
    zwlr_layer_surface_v1_set_anchor(layer, ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP | ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM |
                                                ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT | ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT);
    zwlr_layer_surface_v1_set_exclusive_zone(layer, -1);
    struct wl_region *empty = wl_compositor_create_region(compositor);
    wl_surface_set_input_region(surface, empty);
    wl_region_destroy(empty);
    wl_surface_commit(surface);
    while (!configured && !closed && wl_display_dispatch(display) != -1) {
    }
    if (!configured || width <= 0 || height <= 0) { fprintf(stderr, "layer-probe: no usable configure\n"); return 1; }

    struct wl_buffer *buffer = probe_flat_buffer(shm, width, height, 0x40ff0000);
    struct wl_callback *frame = wl_surface_frame(surface);
    wl_callback_add_listener(frame, &frame_listener, NULL);
    wl_surface_attach(surface, buffer, 0, 0);
    wl_surface_damage_buffer(surface, 0, 0, width, height);
    wl_surface_commit(surface);
    while (!presented && !closed && wl_display_dispatch(display) != -1) {
    }
    if (!presented) { fprintf(stderr, "layer-probe: the frame was never presented\n"); return 1; }

    zwlr_layer_surface_v1_destroy(layer);
    wl_surface_destroy(surface);
    wl_buffer_destroy(buffer);
    if (wl_display_roundtrip(display) < 0) { fprintf(stderr, "layer-probe: the connection failed after the destroy\n"); return 1; }
    printf("destroyed\n");
    fflush(stdout);
    wl_display_disconnect(display);
    return 0;
}
