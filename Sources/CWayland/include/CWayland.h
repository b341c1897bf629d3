#ifndef EDGESWIPE_CWAYLAND_H
#define EDGESWIPE_CWAYLAND_H
/* The one C-facing module for the user's Wayland: libwayland-client, and the glue wayland-scanner generates at build
   time from the XML in protocols/ (Plugins/WaylandScanner), whose headers are in the plugin's generated include/
   folder. Only EdgeSwipeSession imports it; xkbcommon, which needs no display, is CXKBCommon. */
#include <wayland-client.h>
#include "fake-input-client-protocol.h"
#include "presentation-time-client-protocol.h"
#include "virtual-keyboard-unstable-v1-client-protocol.h"
#include "wlr-foreign-toplevel-management-unstable-v1-client-protocol.h"
#include "wlr-layer-shell-unstable-v1-client-protocol.h"

/* The interfaces the session binds, by their real address. libwayland keeps the interface a proxy is bound with for
   the proxy's whole life, and Swift's withUnsafePointer(to:) on an imported C global may point at a temporary copy
   (it does in optimized builds, where wl_registry.bind then marshals a garbage name), so the addresses come from C. */
static inline const struct wl_interface *cwayland_wl_compositor_interface(void) { return &wl_compositor_interface; }
static inline const struct wl_interface *cwayland_wl_shm_interface(void) { return &wl_shm_interface; }
static inline const struct wl_interface *cwayland_wl_output_interface(void) { return &wl_output_interface; }
static inline const struct wl_interface *cwayland_wl_seat_interface(void) { return &wl_seat_interface; }
static inline const struct wl_interface *cwayland_zwlr_layer_shell_v1_interface(void) { return &zwlr_layer_shell_v1_interface; }
static inline const struct wl_interface *cwayland_zwp_virtual_keyboard_manager_v1_interface(void) {
    return &zwp_virtual_keyboard_manager_v1_interface;
}
/* When the overlay's frames reached the screen (protocols/presentation-time.xml: version 1). */
static inline const struct wl_interface *cwayland_wp_presentation_interface(void) { return &wp_presentation_interface; }
/* KWin's keys for a client its desktop entry grants (protocols/fake-input.xml: version 4, up to keyboard_key). */
static inline const struct wl_interface *cwayland_org_kde_kwin_fake_input_interface(void) { return &org_kde_kwin_fake_input_interface; }

/* The focused app where no IPC says it (phoc): protocols/wlr-foreign-toplevel-management-unstable-v1.xml, version 1. */
static inline const struct wl_interface *cwayland_zwlr_foreign_toplevel_manager_v1_interface(void) {
    return &zwlr_foreign_toplevel_manager_v1_interface;
}

/* wl_display_get_error's fatal protocol error, with the interface and code it names (wl_display_get_protocol_error
   takes an out-parameter of interface pointer, which Swift sees as a double pointer to a C struct). */
static inline const char *cwayland_protocol_error(struct wl_display *display, uint32_t *code, uint32_t *id) {
    const struct wl_interface *interface = NULL;
    *code = wl_display_get_protocol_error(display, &interface, id);
    return interface ? interface->name : NULL;
}
#endif
