/* The KWin tests' key sender: binds KDE's org_kde_kwin_fake_input (through the glue of our own protocol XML,
 * Sources/CWayland/protocols/fake-input.xml), authenticates, and sends one chord, so that a test can prove the
 * protocol, and KWin's grant of it to the executable a desktop entry names, before the session's key sender uses it.
 *
 *   fake-keys CODE...     presses the evdev key codes in order, then releases them in reverse (56 105: alt+Left)
 *
 * Output, one line each, flushed: `bound VERSION of OFFERED`, then `sent N` (N key events) and exit 0; or, when KWin
 * does not advertise the interface to this executable, `no org_kde_kwin_fake_input` and exit 3.
 * Built by the tests with cc and wayland-scanner (WaylandProbes.swift). */
#define _GNU_SOURCE
#include <string.h>
#include "fake-input-client-protocol.h"
#include "probe.h"

static struct org_kde_kwin_fake_input *fake_input;
static uint32_t bound_version, offered_version;

static void global(void *data, struct wl_registry *registry, uint32_t name, const char *interface, uint32_t version) {
    (void)data;
    if (strcmp(interface, org_kde_kwin_fake_input_interface.name) == 0 && !fake_input) {
        /* Our XML describes version 4 (keyboard_key); never more than the compositor offers. */
        offered_version = version;
        bound_version = version < 4 ? version : 4;
        fake_input = wl_registry_bind(registry, name, &org_kde_kwin_fake_input_interface, bound_version);
    }
}
static void global_remove(void *data, struct wl_registry *registry, uint32_t name) { (void)data; (void)registry; (void)name; }
static const struct wl_registry_listener registry_listener = { global, global_remove };

int main(int argc, char **argv) {
    probe_unblock_signals();
    if (argc < 2) { fprintf(stderr, "usage: fake-keys CODE...\n"); return 64; }
    uint32_t codes[16];
    int count = 0;
    for (int i = 1; i < argc && count < 16; i++) {
        char *end = NULL;
        unsigned long code = strtoul(argv[i], &end, 10);
        if (!end || *end || code == 0 || code > 0x2ff) { fprintf(stderr, "fake-keys: '%s' is not an evdev key code\n", argv[i]); return 64; }
        codes[count++] = (uint32_t)code;
    }
    struct wl_display *display = wl_display_connect(NULL);
    if (!display) { fprintf(stderr, "fake-keys: cannot connect to the Wayland display\n"); return 1; }
    struct wl_registry *registry = wl_display_get_registry(display);
    wl_registry_add_listener(registry, &registry_listener, NULL);
    wl_display_roundtrip(display);
    if (!fake_input) { printf("no org_kde_kwin_fake_input\n"); fflush(stdout); return 3; }
    printf("bound %u of %u\n", bound_version, offered_version);
    fflush(stdout);
    if (bound_version < ORG_KDE_KWIN_FAKE_INPUT_KEYBOARD_KEY_SINCE_VERSION) {
        fprintf(stderr, "fake-keys: version %u has no keyboard_key\n", bound_version);
        return 1;
    }
    org_kde_kwin_fake_input_authenticate(fake_input, "EdgeSwipe tests", "send the key chord a swipe is bound to");
    for (int i = 0; i < count; i++) org_kde_kwin_fake_input_keyboard_key(fake_input, codes[i], WL_KEYBOARD_KEY_STATE_PRESSED);
    for (int i = count - 1; i >= 0; i--) org_kde_kwin_fake_input_keyboard_key(fake_input, codes[i], WL_KEYBOARD_KEY_STATE_RELEASED);
    /* A round trip: KWin has handled every request (and would have posted a protocol error) before we leave. */
    if (wl_display_roundtrip(display) < 0) { fprintf(stderr, "fake-keys: the connection failed\n"); return 1; }
    printf("sent %d\n", 2 * count);
    fflush(stdout);
    wl_display_disconnect(display);
    return 0;
}
