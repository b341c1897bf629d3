#ifndef EDGESWIPE_CCAIRO_H
#define EDGESWIPE_CCAIRO_H
/*
 * cairo, with which the session's overlay draws its frames into wl_shm buffers (EdgeSwipeSession/Overlay), loaded
 * when the overlay starts rather than linked: the clients are one binary (edgeswipe-clients), and linked, cairo and
 * its libraries (pixman, fontconfig, freetype, libpng, X11, xcb) cost every client's start about 1.4 ms, the
 * edgeswipectl and edgeswipe-web that never draw included (docs/PACKAGING.md, "What each byte is").
 *
 * The functions the overlay calls are defined in CairoLoader.c with cairo's own declarations, below, and each calls
 * cairo's through a pointer looked up once. A function the overlay starts to call must be added there: the link
 * fails with an undefined symbol until it is.
 */
#include <cairo/cairo.h>
#include <stddef.h>

/*
 * Loads libcairo.so.2 and looks up every function the overlay calls, once (later calls return the first answer).
 * Returns 0, or -1 with why (dlopen's or dlsym's error) in `why`, `size` bytes at most with its NUL.
 */
int edgeswipe_cairo_load(char *why, size_t size);

#endif
