#ifndef EDGESWIPE_CCAIRO_SHIM_H
#define EDGESWIPE_CCAIRO_SHIM_H
/* cairo: the session's overlay draws its frames into wl_shm buffers with it (EdgeSwipeSession/Overlay). */
#include <cairo.h>
#endif
