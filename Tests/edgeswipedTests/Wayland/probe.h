/* What the compositor tests' C clients (click-probe, key-logger, layer-probe, fake-keys, virtual-devices) share:
 * unblocking the signals the test runner's children inherit blocked, a wl_shm buffer of one flat colour, and, for
 * those built with xdg-shell's glue (included before this file), a toplevel window that keeps its configured size. */
#ifndef EDGESWIPE_PROBE_H
#define EDGESWIPE_PROBE_H
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-client.h>

/* A process the test runner starts inherits its blocked signals: unblock them, so that SIGTERM ends the probe. */
static inline void probe_unblock_signals(void) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

/* A WIDTHxHEIGHT ARGB8888 buffer filled with `argb` (exits, saying why, when memory cannot be had). */
static inline struct wl_buffer *probe_flat_buffer(struct wl_shm *shm, int width, int height, uint32_t argb) {
    int stride = width * 4, size = stride * height;
    int fd = memfd_create("edgeswipe-probe", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, size) < 0) { perror("probe: memfd"); exit(1); }
    uint32_t *pixels = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (pixels == MAP_FAILED) { perror("probe: mmap"); exit(1); }
    for (int i = 0; i < width * height; i++) pixels[i] = argb;
    munmap(pixels, size);
    struct wl_shm_pool *pool = wl_shm_create_pool(shm, fd, size);
    struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, width, height, stride, WL_SHM_FORMAT_ARGB8888);
    wl_shm_pool_destroy(pool);
    close(fd);
    return buffer;
}

static void probe_buffer_release(void *data, struct wl_buffer *buffer) { (void)data; wl_buffer_destroy(buffer); }
static const struct wl_buffer_listener probe_buffer_listener = { probe_buffer_release };

/* Attaches a new flat buffer of `argb` to `surface`, damaged whole, and commits; the buffer is destroyed when the
 * compositor releases it. */
static inline void probe_fill(struct wl_surface *surface, struct wl_shm *shm, int width, int height, uint32_t argb) {
    struct wl_buffer *buffer = probe_flat_buffer(shm, width, height, argb);
    wl_buffer_add_listener(buffer, &probe_buffer_listener, NULL);
    wl_surface_attach(surface, buffer, 0, 0);
    wl_surface_damage_buffer(surface, 0, 0, width, height);
    wl_surface_commit(surface);
}

#ifdef XDG_SHELL_CLIENT_PROTOCOL_H
/* A toplevel window: the size the compositor gives (or `default_width` x `default_height`), and `configured` called
 * after each configure is acknowledged, to draw. The compositor's close request ends the process. */
struct probe_window {
    struct wl_surface *surface;
    int width, height, default_width, default_height;
    void (*configured)(struct probe_window *window);
};

static void probe_ping(void *data, struct xdg_wm_base *base, uint32_t serial) { (void)data; xdg_wm_base_pong(base, serial); }
static const struct xdg_wm_base_listener probe_wm_base_listener = { probe_ping };

static void probe_xdg_configure(void *data, struct xdg_surface *xdg, uint32_t serial) {
    struct probe_window *window = data;
    xdg_surface_ack_configure(xdg, serial);
    if (window->width <= 0 || window->height <= 0) { window->width = window->default_width; window->height = window->default_height; }
    window->configured(window);
}
static const struct xdg_surface_listener probe_xdg_surface_listener = { probe_xdg_configure };

static void probe_toplevel_configure(void *data, struct xdg_toplevel *t, int32_t w, int32_t h, struct wl_array *states) {
    struct probe_window *window = data;
    (void)t; (void)states;
    if (w > 0 && h > 0) { window->width = w; window->height = h; }
}
static void probe_toplevel_close(void *data, struct xdg_toplevel *t) { (void)data; (void)t; exit(0); }
static const struct xdg_toplevel_listener probe_toplevel_listener = { .configure = probe_toplevel_configure, .close = probe_toplevel_close };

/* Makes `window->surface` a toplevel titled and identified as `app_id`, and commits it (the first configure follows). */
static inline void probe_window_show(struct probe_window *window, struct xdg_wm_base *wm_base, const char *app_id) {
    xdg_wm_base_add_listener(wm_base, &probe_wm_base_listener, NULL);
    struct xdg_surface *xdg = xdg_wm_base_get_xdg_surface(wm_base, window->surface);
    xdg_surface_add_listener(xdg, &probe_xdg_surface_listener, window);
    struct xdg_toplevel *toplevel = xdg_surface_get_toplevel(xdg);
    xdg_toplevel_add_listener(toplevel, &probe_toplevel_listener, window);
    xdg_toplevel_set_title(toplevel, app_id);
    xdg_toplevel_set_app_id(toplevel, app_id);
    wl_surface_commit(window->surface);
}
#endif
#endif
