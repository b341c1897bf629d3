// The cairo functions the overlay calls, each forwarded to libcairo.so.2, which is loaded on first use
// (include/CCairo.h says why). cairo's own declarations check every signature here.
#include "CCairo.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

// Every function the overlay calls: returning ones (R) and void ones (V), with their parameters and arguments.
#define EDGESWIPE_CAIRO_FUNCTIONS(R, V) \
    V(cairo_arc, (cairo_t *cr, double xc, double yc, double radius, double angle1, double angle2), (cr, xc, yc, radius, angle1, angle2)) \
    V(cairo_clip, (cairo_t *cr), (cr)) \
    V(cairo_close_path, (cairo_t *cr), (cr)) \
    R(cairo_t *, cairo_create, (cairo_surface_t *target), (target)) \
    V(cairo_curve_to, (cairo_t *cr, double x1, double y1, double x2, double y2, double x3, double y3), (cr, x1, y1, x2, y2, x3, y3)) \
    V(cairo_destroy, (cairo_t *cr), (cr)) \
    V(cairo_fill, (cairo_t *cr), (cr)) \
    V(cairo_fill_preserve, (cairo_t *cr), (cr)) \
    R(int, cairo_format_stride_for_width, (cairo_format_t format, int width), (format, width)) \
    R(cairo_surface_t *, cairo_image_surface_create, (cairo_format_t format, int width, int height), (format, width, height)) \
    R(cairo_surface_t *, cairo_image_surface_create_for_data, (unsigned char *data, cairo_format_t format, int width, int height, int stride), (data, format, width, height, stride)) \
    R(unsigned char *, cairo_image_surface_get_data, (cairo_surface_t *surface), (surface)) \
    R(int, cairo_image_surface_get_stride, (cairo_surface_t *surface), (surface)) \
    V(cairo_line_to, (cairo_t *cr, double x, double y), (cr, x, y)) \
    V(cairo_move_to, (cairo_t *cr, double x, double y), (cr, x, y)) \
    V(cairo_new_sub_path, (cairo_t *cr), (cr)) \
    V(cairo_paint, (cairo_t *cr), (cr)) \
    V(cairo_paint_with_alpha, (cairo_t *cr, double alpha), (cr, alpha)) \
    V(cairo_pattern_add_color_stop_rgba, (cairo_pattern_t *pattern, double offset, double red, double green, double blue, double alpha), (pattern, offset, red, green, blue, alpha)) \
    R(cairo_pattern_t *, cairo_pattern_create_linear, (double x0, double y0, double x1, double y1), (x0, y0, x1, y1)) \
    V(cairo_pattern_destroy, (cairo_pattern_t *pattern), (pattern)) \
    V(cairo_rectangle, (cairo_t *cr, double x, double y, double width, double height), (cr, x, y, width, height)) \
    V(cairo_restore, (cairo_t *cr), (cr)) \
    V(cairo_rotate, (cairo_t *cr, double angle), (cr, angle)) \
    V(cairo_save, (cairo_t *cr), (cr)) \
    V(cairo_scale, (cairo_t *cr, double sx, double sy), (cr, sx, sy)) \
    V(cairo_select_font_face, (cairo_t *cr, const char *family, cairo_font_slant_t slant, cairo_font_weight_t weight), (cr, family, slant, weight)) \
    V(cairo_set_font_size, (cairo_t *cr, double size), (cr, size)) \
    V(cairo_set_line_cap, (cairo_t *cr, cairo_line_cap_t line_cap), (cr, line_cap)) \
    V(cairo_set_line_join, (cairo_t *cr, cairo_line_join_t line_join), (cr, line_join)) \
    V(cairo_set_line_width, (cairo_t *cr, double width), (cr, width)) \
    V(cairo_set_operator, (cairo_t *cr, cairo_operator_t op), (cr, op)) \
    V(cairo_set_source, (cairo_t *cr, cairo_pattern_t *source), (cr, source)) \
    V(cairo_set_source_rgba, (cairo_t *cr, double red, double green, double blue, double alpha), (cr, red, green, blue, alpha)) \
    V(cairo_set_source_surface, (cairo_t *cr, cairo_surface_t *surface, double x, double y), (cr, surface, x, y)) \
    V(cairo_show_text, (cairo_t *cr, const char *utf8), (cr, utf8)) \
    V(cairo_stroke, (cairo_t *cr), (cr)) \
    V(cairo_surface_destroy, (cairo_surface_t *surface), (surface)) \
    V(cairo_surface_flush, (cairo_surface_t *surface), (surface)) \
    V(cairo_surface_set_device_scale, (cairo_surface_t *surface, double x_scale, double y_scale), (surface, x_scale, y_scale)) \
    R(cairo_status_t, cairo_surface_status, (cairo_surface_t *surface), (surface)) \
    R(cairo_status_t, cairo_surface_write_to_png, (cairo_surface_t *surface, const char *filename), (surface, filename)) \
    V(cairo_translate, (cairo_t *cr, double tx, double ty), (cr, tx, ty))

// The looked-up functions, written once under `once` and only read after it.
static struct {
#define FIELD_R(ret, name, params, args) ret(*name) params;
#define FIELD_V(name, params, args) void(*name) params;
    EDGESWIPE_CAIRO_FUNCTIONS(FIELD_R, FIELD_V)
} cairo;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;
static char error[512];

static void load(void) {
    // Kept for the life of the process: the functions are called until it ends.
    void *library = dlopen("libcairo.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(error, sizeof error, "cannot load libcairo.so.2: %s", dlerror());
        return;
    }
#define RESOLVE_R(ret, name, params, args) \
    if (!(*(void **)&cairo.name = dlsym(library, #name))) { \
        snprintf(error, sizeof error, "libcairo.so.2 has no %s", #name); \
        return; \
    }
#define RESOLVE_V(name, params, args) RESOLVE_R(void, name, params, args)
    EDGESWIPE_CAIRO_FUNCTIONS(RESOLVE_R, RESOLVE_V)
    loaded = 1;
}

int edgeswipe_cairo_load(char *why, size_t size) {
    pthread_once(&once, load);
    if (loaded) return 0;
    if (why && size > 0) snprintf(why, size, "%s", error);
    return -1;
}

// A function called before edgeswipe_cairo_load succeeded: the overlay checks it at its start, so this is a bug,
// and there is no cairo to draw with.
static void require(const char *function) {
    pthread_once(&once, load);
    if (loaded) return;
    fprintf(stderr, "edgeswipe: %s called without cairo (%s)\n", function, error);
    abort();
}

#define FORWARD_R(ret, name, params, args) \
    ret name params { \
        require(#name); \
        return cairo.name args; \
    }
#define FORWARD_V(name, params, args) \
    void name params { \
        require(#name); \
        cairo.name args; \
    }
EDGESWIPE_CAIRO_FUNCTIONS(FORWARD_R, FORWARD_V)
