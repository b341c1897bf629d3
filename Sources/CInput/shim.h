#ifndef EDGESWIPE_CINPUT_SHIM_H
#define EDGESWIPE_CINPUT_SHIM_H
#include <libinput.h>
#include <libevdev/libevdev.h>
#include <libudev.h>
/* sd-bus: the system bus, for logind (who sits at the seat, sleep) and iio-sensor-proxy (the accelerometer).
   Only its non-variadic calls are used: Swift cannot call C variadic functions. */
#include <systemd/sd-bus.h>
/* libyaml: `libinput record` files are read with its event parser (EdgeSwipeInput/YAMLEvents.swift). */
#include <yaml.h>
#include <linux/input.h>
#include <fcntl.h>
#include <errno.h>
#include <unistd.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#endif
