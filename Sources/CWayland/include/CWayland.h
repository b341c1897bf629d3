#ifndef EDGESWIPE_CWAYLAND_H
#define EDGESWIPE_CWAYLAND_H
/* The one C-facing module for the user's desktop: libwayland-client, xkbcommon, and the glue wayland-scanner
   generates at build time from the XML in protocols/ (Plugins/WaylandScanner), whose headers are in the plugin's
   generated include/ folder. Only EdgeSwipeSession imports it. */
#include <wayland-client.h>
#include <xkbcommon/xkbcommon.h>
#include "virtual-keyboard-unstable-v1-client-protocol.h"
#include "wlr-layer-shell-unstable-v1-client-protocol.h"

/* wl_display_get_error's fatal protocol error, with the interface and code it names (wl_display_get_protocol_error
   takes an out-parameter of interface pointer, which Swift sees as a double pointer to a C struct). */
static inline const char *cwayland_protocol_error(struct wl_display *display, uint32_t *code, uint32_t *id) {
    const struct wl_interface *interface = NULL;
    *code = wl_display_get_protocol_error(display, &interface, id);
    return interface ? interface->name : NULL;
}
#endif
