/* The compositor tests' key logger: an ordinary window (xdg-shell toplevel) with the app id it is given, which prints
 * every keyboard event it receives, so that a test can tell whether a key a sender injected (wtype's virtual
 * keyboard, KWin's fake input) reached the focused client, and as what.
 *
 *   key-logger APP_ID
 *
 * A compositor with no input device may have no wl_seat at first (phoc creates it with its first device), and a
 * seat's keyboard may come only with the first virtual keyboard: the logger binds a seat whenever one appears and
 * asks for its keyboard whenever the capability does.
 *
 * Output, one line each, flushed:
 *   ready WIDTHxHEIGHT APP_ID     the first frame is committed
 *   seat NAME                     a wl_seat was bound (NAME: its global name)
 *   keyboard                      the seat has a keyboard and the logger listens to it
 *   keymap SIZE                   a keymap arrived (every sender may bring its own)
 *   enter                         keyboard focus came to the window
 *   leave                         keyboard focus left it
 *   key CODE SYM pressed|released the evdev code and the keysym the current keymap gives it (e.g. key 105 Left pressed)
 *   modifiers NAMES               the modifiers now in effect, comma-separated (e.g. Mod1; "none")
 * Built by the tests with cc, wayland-scanner and xkbcommon (WaylandProbes.swift). */
#define _GNU_SOURCE
#include <stdarg.h>
#include <string.h>
#include <xkbcommon/xkbcommon.h>
#include "xdg-shell-client-protocol.h"
#include "probe.h"

static struct wl_compositor *compositor;
static struct wl_shm *shm;
static struct wl_seat *seat;
static struct xdg_wm_base *wm_base;
static struct probe_window window = { .default_width = 320, .default_height = 240 };
static struct wl_keyboard *keyboard;
static struct xkb_context *xkb;
static struct xkb_keymap *keymap;
static struct xkb_state *state;
static const char *app_id = "key-logger";
static int shown = 0;

__attribute__((format(printf, 1, 2))) static void say(const char *format, ...) {
    va_list args;
    va_start(args, format);
    vprintf(format, args);
    va_end(args);
    putchar('\n');
    fflush(stdout);
}

/* The window in one flat colour (#4c566a, which the screenshot tests look for). */
static void draw(struct probe_window *w) {
    probe_fill(w->surface, shm, w->width, w->height, 0xff4c566a);
    if (!shown) say("ready %dx%d %s", w->width, w->height, app_id);
    shown = 1;
}

static void keymap_event(void *data, struct wl_keyboard *k, uint32_t format, int32_t fd, uint32_t size) {
    (void)data; (void)k;
    if (format != WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1) { close(fd); say("keymap unsupported %u", format); return; }
    char *text = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (text == MAP_FAILED) { say("keymap unreadable"); return; }
    struct xkb_keymap *next = xkb_keymap_new_from_string(xkb, text, XKB_KEYMAP_FORMAT_TEXT_V1, XKB_KEYMAP_COMPILE_NO_FLAGS);
    munmap(text, size);
    if (!next) { say("keymap invalid"); return; }
    if (state) xkb_state_unref(state);
    if (keymap) xkb_keymap_unref(keymap);
    keymap = next;
    state = xkb_state_new(keymap);
    say("keymap %u", size);
}
static void enter(void *data, struct wl_keyboard *k, uint32_t serial, struct wl_surface *s, struct wl_array *keys) {
    (void)data; (void)k; (void)serial; (void)s; (void)keys;
    say("enter");
}
static void leave(void *data, struct wl_keyboard *k, uint32_t serial, struct wl_surface *s) {
    (void)data; (void)k; (void)serial; (void)s;
    say("leave");
}
static void key(void *data, struct wl_keyboard *k, uint32_t serial, uint32_t time, uint32_t code, uint32_t pressed) {
    (void)data; (void)k; (void)serial; (void)time;
    char name[64] = "?";
    /* XKB keycodes are evdev codes plus 8. */
    if (state) xkb_keysym_get_name(xkb_state_key_get_one_sym(state, code + 8), name, sizeof name);
    say("key %u %s %s", code, name, pressed ? "pressed" : "released");
}
static void modifiers(void *data, struct wl_keyboard *k, uint32_t serial, uint32_t depressed, uint32_t latched,
                      uint32_t locked, uint32_t group) {
    (void)data; (void)k; (void)serial;
    if (!state) { say("modifiers ?"); return; }
    xkb_state_update_mask(state, depressed, latched, locked, 0, 0, group);
    char line[512] = "";
    xkb_mod_index_t count = xkb_keymap_num_mods(keymap);
    for (xkb_mod_index_t i = 0; i < count; i++) {
        if (xkb_state_mod_index_is_active(state, i, XKB_STATE_MODS_EFFECTIVE) <= 0) continue;
        const char *n = xkb_keymap_mod_get_name(keymap, i);
        if (strlen(line) + strlen(n) + 2 >= sizeof line) break;
        if (line[0]) strcat(line, ",");
        strcat(line, n);
    }
    say("modifiers %s", line[0] ? line : "none");
}
static void repeat_info(void *data, struct wl_keyboard *k, int32_t rate, int32_t delay) { (void)data; (void)k; (void)rate; (void)delay; }
static const struct wl_keyboard_listener keyboard_listener = {
    .keymap = keymap_event, .enter = enter, .leave = leave, .key = key, .modifiers = modifiers, .repeat_info = repeat_info,
};

static void capabilities(void *data, struct wl_seat *s, uint32_t caps) {
    (void)data;
    if ((caps & WL_SEAT_CAPABILITY_KEYBOARD) && !keyboard) {
        keyboard = wl_seat_get_keyboard(s);
        wl_keyboard_add_listener(keyboard, &keyboard_listener, NULL);
        say("keyboard");
    } else if (!(caps & WL_SEAT_CAPABILITY_KEYBOARD) && keyboard) {
        wl_keyboard_release(keyboard);
        keyboard = NULL;
        say("keyboard gone");
    }
}
static void seat_name(void *data, struct wl_seat *s, const char *name) { (void)data; (void)s; (void)name; }
static const struct wl_seat_listener seat_listener = { capabilities, seat_name };

static void global(void *data, struct wl_registry *registry, uint32_t name, const char *interface, uint32_t version) {
    (void)data;
    if (strcmp(interface, wl_compositor_interface.name) == 0)
        compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
    else if (strcmp(interface, wl_shm_interface.name) == 0)
        shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
    else if (strcmp(interface, xdg_wm_base_interface.name) == 0)
        wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
    else if (strcmp(interface, wl_seat_interface.name) == 0 && !seat) {
        /* Version 5 for wl_keyboard.release; the seat may come long after start-up. */
        seat = wl_registry_bind(registry, name, &wl_seat_interface, version < 5 ? version : 5);
        wl_seat_add_listener(seat, &seat_listener, NULL);
        say("seat %u", name);
    }
}
static void global_remove(void *data, struct wl_registry *registry, uint32_t name) { (void)data; (void)registry; (void)name; }
static const struct wl_registry_listener registry_listener = { global, global_remove };

int main(int argc, char **argv) {
    probe_unblock_signals();
    if (argc > 1) app_id = argv[1];
    xkb = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
    if (!xkb) { fprintf(stderr, "key-logger: no xkb context\n"); return 1; }
    struct wl_display *display = wl_display_connect(NULL);
    if (!display) { fprintf(stderr, "key-logger: cannot connect to the Wayland display\n"); return 1; }
    struct wl_registry *registry = wl_display_get_registry(display);
    wl_registry_add_listener(registry, &registry_listener, NULL);
    wl_display_roundtrip(display);
    if (!compositor || !shm || !wm_base) {
        fprintf(stderr, "key-logger: the compositor lacks wl_compositor, wl_shm or xdg_wm_base\n");
        return 1;
    }
    window.surface = wl_compositor_create_surface(compositor);
    window.configured = draw;
    probe_window_show(&window, wm_base, app_id);
    while (wl_display_dispatch(display) != -1) {
    }
    fprintf(stderr, "key-logger: the compositor closed the connection\n");
    return 0;
}
