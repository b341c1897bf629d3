#ifndef EDGESWIPE_CINPUT_SHIM_H
#define EDGESWIPE_CINPUT_SHIM_H
/* Live touch input: libinput (touchscreens, and the touchpads' swipe gestures), libevdev (touchpads' finger
   positions, which libinput does not expose) and libudev (finding and identifying the devices). */
#include <libinput.h>
#include <libevdev/libevdev.h>
#include <libudev.h>
#include <linux/input.h>
#include <fcntl.h>
#include <errno.h>
#include <unistd.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#endif
