#ifndef EDGESWIPE_CXKBCOMMON_SHIM_H
#define EDGESWIPE_CXKBCOMMON_SHIM_H
/* xkbcommon: keysym names for the key-chord grammar (EdgeSwipeSessionModel/KeyChord.swift) and the keymap the virtual
   keyboard sends chords through (EdgeSwipeSession/Keys/Keymap.swift). Neither needs a display. */
#include <xkbcommon/xkbcommon.h>
#endif
