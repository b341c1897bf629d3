#ifndef EDGESWIPE_CINPUT_SHIM_H
#define EDGESWIPE_CINPUT_SHIM_H
#include <libinput.h>
#include <libevdev/libevdev.h>
#include <libudev.h>
/* sd-bus: the system bus, for logind (who sits at the seat, sleep) and iio-sensor-proxy (the accelerometer).
   Only its non-variadic calls are used: Swift cannot call C variadic functions. */
#include <systemd/sd-bus.h>
#include <linux/input.h>
#include <fcntl.h>
#include <errno.h>
#include <unistd.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
/* ppoll(2) is a GNU extension, which Swift's Glibc module does not declare. The daemon's input thread needs its
   nanosecond timeout: poll(2) takes whole milliseconds. */
extern int ppoll(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout, const __sigset_t *sigmask);
/* malloc_trim(3) and mallinfo2(3): glibc's, not in Swift's Glibc module. The daemon hands memory freed by a burst
   of clients back to the system (ProcessHeap.swift). */
#include <malloc.h>
#endif
