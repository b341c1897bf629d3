/* The generated protocol code is this target's other source (Plugins/WaylandScanner); this file checks, when the
   target builds, that the umbrella header and the generated headers compile together. */
#include "CWayland.h"
