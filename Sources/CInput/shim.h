#ifndef EDGESWIPE_CINPUT_SHIM_H
#define EDGESWIPE_CINPUT_SHIM_H
#include <libinput.h>
#include <libevdev/libevdev.h>
#include <libudev.h>
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
