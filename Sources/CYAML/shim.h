#ifndef EDGESWIPE_CYAML_SHIM_H
#define EDGESWIPE_CYAML_SHIM_H
/* libyaml: `libinput record` files are read with its event parser (EdgeSwipeRecordings/YAMLEvents.swift). */
#include <yaml.h>
#endif
