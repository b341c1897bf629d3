/* The overlay tests' click probe: an ordinary window (xdg-shell) of one flat colour that prints every pointer button
 * it receives, so that a test can tell whether a click on a window under the overlay still reaches it.
 *
 *   click-probe window [RRGGBB]   the window, in that colour (a backdrop the overlay tests read pixels against)
 *   click-probe clicks [RRGGBB]   the window, and a virtual pointer (zwlr_virtual_pointer_v1), so that the seat of a
 *                                 headless sway, which has no input device, gets a pointer that `seat seat0 cursor
 *                                 ...` moves and clicks
 *   click-probe blocker           a layer surface on the overlay layer that keeps the default input region (the whole
 *                                 surface): the negative control, which must swallow the same click
 *
 * Output, one line each, flushed: `ready WIDTHxHEIGHT`, `enter X Y`, `button BUTTON STATE X Y` (surface-local).
 * Built by the tests with cc and wayland-scanner (OverlaySwayTests.swift). */
#define _GNU_SOURCE
#include <string.h>
#include "xdg-shell-client-protocol.h"
#include "wlr-virtual-pointer-unstable-v1-client-protocol.h"
#include "wlr-layer-shell-unstable-v1-client-protocol.h"
#include "probe.h"

static struct wl_compositor *compositor;
static struct wl_shm *shm;
static struct wl_seat *seat;
static struct xdg_wm_base *wm_base;
static struct zwlr_virtual_pointer_manager_v1 *pointer_manager;
static struct zwlr_layer_shell_v1 *layer_shell;
static struct probe_window window = { .default_width = 640, .default_height = 480 };
static struct wl_pointer *pointer;
static double pointer_x, pointer_y;
static int shown = 0;
static uint32_t colour = 0xff336699;

static void global(void *data, struct wl_registry *registry, uint32_t name, const char *interface, uint32_t version) {
    (void)data;
    if (strcmp(interface, wl_compositor_interface.name) == 0)
        compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
    else if (strcmp(interface, wl_shm_interface.name) == 0)
        shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
    else if (strcmp(interface, wl_seat_interface.name) == 0 && !seat)
        seat = wl_registry_bind(registry, name, &wl_seat_interface, version < 5 ? version : 5);
    else if (strcmp(interface, xdg_wm_base_interface.name) == 0)
        wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
    else if (strcmp(interface, zwlr_virtual_pointer_manager_v1_interface.name) == 0)
        pointer_manager = wl_registry_bind(registry, name, &zwlr_virtual_pointer_manager_v1_interface, 1);
    else if (strcmp(interface, zwlr_layer_shell_v1_interface.name) == 0)
        layer_shell = wl_registry_bind(registry, name, &zwlr_layer_shell_v1_interface, 1);
}
static void global_remove(void *data, struct wl_registry *registry, uint32_t name) { (void)data; (void)registry; (void)name; }
static const struct wl_registry_listener registry_listener = { global, global_remove };

/* The window (or the blocker) in its colour. */
static void draw(struct probe_window *w) {
    probe_fill(w->surface, shm, w->width, w->height, colour);
    if (!shown) printf("ready %dx%d\n", w->width, w->height);
    shown = 1;
    fflush(stdout);
}

static void layer_configure(void *data, struct zwlr_layer_surface_v1 *l, uint32_t serial, uint32_t w, uint32_t h) {
    (void)data;
    zwlr_layer_surface_v1_ack_configure(l, serial);
    window.width = (int)w; window.height = (int)h;
    colour = 0x40ff0000; /* translucent: the window under it stays visible */
    draw(&window);
}
static void layer_closed(void *data, struct zwlr_layer_surface_v1 *l) { (void)data; (void)l; exit(0); }
static const struct zwlr_layer_surface_v1_listener layer_listener = { layer_configure, layer_closed };

static void enter(void *data, struct wl_pointer *p, uint32_t serial, struct wl_surface *s, wl_fixed_t x, wl_fixed_t y) {
    (void)data; (void)p; (void)serial; (void)s;
    pointer_x = wl_fixed_to_double(x); pointer_y = wl_fixed_to_double(y);
    printf("enter %.0f %.0f\n", pointer_x, pointer_y);
    fflush(stdout);
}
static void leave(void *data, struct wl_pointer *p, uint32_t serial, struct wl_surface *s) { (void)data; (void)p; (void)serial; (void)s; }
static void motion(void *data, struct wl_pointer *p, uint32_t time, wl_fixed_t x, wl_fixed_t y) {
    (void)data; (void)p; (void)time;
    pointer_x = wl_fixed_to_double(x); pointer_y = wl_fixed_to_double(y);
}
static void button(void *data, struct wl_pointer *p, uint32_t serial, uint32_t time, uint32_t b, uint32_t state) {
    (void)data; (void)p; (void)serial; (void)time;
    printf("button %u %u %.0f %.0f\n", b, state, pointer_x, pointer_y);
    fflush(stdout);
}
static void axis(void *data, struct wl_pointer *p, uint32_t time, uint32_t a, wl_fixed_t v) { (void)data; (void)p; (void)time; (void)a; (void)v; }
static void frame(void *data, struct wl_pointer *p) { (void)data; (void)p; }
static void axis_source(void *data, struct wl_pointer *p, uint32_t s) { (void)data; (void)p; (void)s; }
static void axis_stop(void *data, struct wl_pointer *p, uint32_t time, uint32_t a) { (void)data; (void)p; (void)time; (void)a; }
static void axis_discrete(void *data, struct wl_pointer *p, uint32_t a, int32_t d) { (void)data; (void)p; (void)a; (void)d; }
static const struct wl_pointer_listener pointer_listener = {
    .enter = enter, .leave = leave, .motion = motion, .button = button, .axis = axis, .frame = frame,
    .axis_source = axis_source, .axis_stop = axis_stop, .axis_discrete = axis_discrete,
};

static void capabilities(void *data, struct wl_seat *s, uint32_t caps) {
    (void)data;
    if ((caps & WL_SEAT_CAPABILITY_POINTER) && !pointer) {
        pointer = wl_seat_get_pointer(s);
        wl_pointer_add_listener(pointer, &pointer_listener, NULL);
        printf("pointer\n");
        fflush(stdout);
    }
}
static void seat_name(void *data, struct wl_seat *s, const char *name) { (void)data; (void)s; (void)name; }
static const struct wl_seat_listener seat_listener = { capabilities, seat_name };

int main(int argc, char **argv) {
    probe_unblock_signals();
    int blocker = argc > 1 && strcmp(argv[1], "blocker") == 0;
    int clicks = argc > 1 && strcmp(argv[1], "clicks") == 0;
    if (argc > 2) colour = 0xff000000u | (uint32_t)strtoul(argv[2], NULL, 16);
    struct wl_display *display = wl_display_connect(NULL);
    if (!display) { fprintf(stderr, "click-probe: cannot connect to the Wayland display\n"); return 1; }
    struct wl_registry *registry = wl_display_get_registry(display);
    wl_registry_add_listener(registry, &registry_listener, NULL);
    wl_display_roundtrip(display);
    if (!compositor || !shm || !seat || !wm_base || !pointer_manager || !layer_shell) {
        fprintf(stderr, "click-probe: the compositor lacks a global this probe needs\n");
        return 1;
    }
    window.surface = wl_compositor_create_surface(compositor);
    window.configured = draw;
    if (blocker) {
        struct zwlr_layer_surface_v1 *layer = zwlr_layer_shell_v1_get_layer_surface(
            layer_shell, window.surface, NULL, ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY, "click-probe-blocker");
        zwlr_layer_surface_v1_add_listener(layer, &layer_listener, NULL);
        zwlr_layer_surface_v1_set_anchor(layer, ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP | ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM |
                                                    ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT | ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT);
        zwlr_layer_surface_v1_set_exclusive_zone(layer, -1);
        wl_surface_commit(window.surface);
    } else {
        if (clicks) {
            zwlr_virtual_pointer_manager_v1_create_virtual_pointer(pointer_manager, seat);
            wl_seat_add_listener(seat, &seat_listener, NULL);
        }
        probe_window_show(&window, wm_base, "click-probe");
    }
    while (wl_display_dispatch(display) != -1) {
    }
    return 0;
}
