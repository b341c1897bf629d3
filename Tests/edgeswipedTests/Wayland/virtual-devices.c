/* The compositor tests' input devices, for compositors that have none (headless, no libinput device):
 *
 *   virtual-devices pointer      a virtual pointer (zwlr_virtual_pointer_v1) with no seat: phoc creates its wl_seat
 *                                with its first input device, and this is one
 *   virtual-devices keyboard     a virtual keyboard (zwp_virtual_keyboard_v1, a US keymap) on the first seat, so that
 *                                the seat has a keyboard before a test's window maps: a window that binds wl_keyboard
 *                                only when a sender's keyboard appears can miss that sender's first key
 *   virtual-devices pointer keyboard   both, the pointer first
 *
 * Output, one line each, flushed: `seat NAME` when a wl_seat global appears (already there, or later), `pointer` and
 * `keyboard` once each device is made. Stays until killed (the devices go with it).
 * Built by the tests with cc, wayland-scanner and xkbcommon (WaylandProbes.swift). */
#define _GNU_SOURCE
#include <string.h>
#include <xkbcommon/xkbcommon.h>
#include "wlr-virtual-pointer-unstable-v1-client-protocol.h"
#include "virtual-keyboard-unstable-v1-client-protocol.h"
#include "probe.h"

static struct zwlr_virtual_pointer_manager_v1 *pointer_manager;
static struct zwp_virtual_keyboard_manager_v1 *keyboard_manager;
static struct wl_seat *seat;

static void global(void *data, struct wl_registry *registry, uint32_t name, const char *interface, uint32_t version) {
    (void)data; (void)version;
    if (strcmp(interface, zwlr_virtual_pointer_manager_v1_interface.name) == 0 && !pointer_manager)
        pointer_manager = wl_registry_bind(registry, name, &zwlr_virtual_pointer_manager_v1_interface, 1);
    else if (strcmp(interface, zwp_virtual_keyboard_manager_v1_interface.name) == 0 && !keyboard_manager)
        keyboard_manager = wl_registry_bind(registry, name, &zwp_virtual_keyboard_manager_v1_interface, 1);
    else if (strcmp(interface, wl_seat_interface.name) == 0) {
        if (!seat) seat = wl_registry_bind(registry, name, &wl_seat_interface, 1);
        printf("seat %u\n", name);
        fflush(stdout);
    }
}
static void global_remove(void *data, struct wl_registry *registry, uint32_t name) { (void)data; (void)registry; (void)name; }
static const struct wl_registry_listener registry_listener = { global, global_remove };

/* A virtual keyboard on the seat, with xkbcommon's US keymap uploaded (a keyboard without a keymap is an error). */
static int make_keyboard(struct wl_display *display) {
    if (!keyboard_manager || !seat) { fprintf(stderr, "virtual-devices: no zwp_virtual_keyboard_manager_v1 or no wl_seat\n"); return 0; }
    struct xkb_context *context = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
    struct xkb_rule_names names = { .layout = "us" };
    struct xkb_keymap *keymap = context ? xkb_keymap_new_from_names(context, &names, XKB_KEYMAP_COMPILE_NO_FLAGS) : NULL;
    char *text = keymap ? xkb_keymap_get_as_string(keymap, XKB_KEYMAP_FORMAT_TEXT_V1) : NULL;
    if (!text) { fprintf(stderr, "virtual-devices: no US keymap from xkbcommon\n"); return 0; }
    size_t size = strlen(text) + 1;
    int fd = memfd_create("virtual-devices-keymap", MFD_CLOEXEC);
    if (fd < 0 || write(fd, text, size) != (ssize_t)size) { perror("virtual-devices: keymap"); return 0; }
    struct zwp_virtual_keyboard_v1 *keyboard = zwp_virtual_keyboard_manager_v1_create_virtual_keyboard(keyboard_manager, seat);
    zwp_virtual_keyboard_v1_keymap(keyboard, WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1, fd, (uint32_t)size);
    close(fd);
    free(text);
    xkb_keymap_unref(keymap);
    xkb_context_unref(context);
    return wl_display_roundtrip(display) >= 0;
}

int main(int argc, char **argv) {
    probe_unblock_signals();
    int want_pointer = 0, want_keyboard = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "pointer") == 0) want_pointer = 1;
        else if (strcmp(argv[i], "keyboard") == 0) want_keyboard = 1;
        else { fprintf(stderr, "usage: virtual-devices [pointer] [keyboard]\n"); return 64; }
    }
    struct wl_display *display = wl_display_connect(NULL);
    if (!display) { fprintf(stderr, "virtual-devices: cannot connect to the Wayland display\n"); return 1; }
    struct wl_registry *registry = wl_display_get_registry(display);
    wl_registry_add_listener(registry, &registry_listener, NULL);
    wl_display_roundtrip(display);
    if (want_pointer) {
        if (!pointer_manager) { fprintf(stderr, "virtual-devices: no zwlr_virtual_pointer_manager_v1\n"); return 3; }
        /* A NULL seat: the compositor picks (or, with none, makes) one. */
        zwlr_virtual_pointer_manager_v1_create_virtual_pointer(pointer_manager, NULL);
        /* The seat it makes is announced in this round trip or the next. */
        wl_display_roundtrip(display);
        wl_display_roundtrip(display);
        printf("pointer\n");
        fflush(stdout);
    }
    if (want_keyboard) {
        if (!make_keyboard(display)) return 3;
        printf("keyboard\n");
        fflush(stdout);
    }
    while (wl_display_dispatch(display) != -1) {
    }
    return 0;
}
