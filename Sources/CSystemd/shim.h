#ifndef EDGESWIPE_CSYSTEMD_SHIM_H
#define EDGESWIPE_CSYSTEMD_SHIM_H
/* libsystemd's sd-bus: the system bus (logind, iio-sensor-proxy) for the daemon's seat, and the session bus for
   edgeswipe-session's D-Bus effects. Only its non-variadic calls are used: Swift cannot call C variadic functions.
   And sd-daemon: the service manager's notification socket, socket activation and watchdog. */
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <errno.h>
#endif
