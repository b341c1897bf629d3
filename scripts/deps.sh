#!/usr/bin/env bash
# Installs the system packages EdgeSwipe needs, when any is missing (Debian/Ubuntu), and puts the Swift toolchain
# on PATH. Sourced by the scripts that build:
#
#   EDGESWIPE_DEPS=build source scripts/deps.sh   # what building and running need (scripts/quickstart)
#   source scripts/deps.sh                        # that, and what the tests need too (scripts/test, CI, the rest)
#
# Before installing it prints the packages (and what apt would upgrade besides) and, on a terminal, asks once;
# EDGESWIPE_YES=1 (scripts/quickstart --yes) or CI=… installs without asking. Nothing is upgraded that the new
# packages do not need (--no-install-recommends, no upgrade of what is installed): a -dev package whose library is
# installed is asked for at that library's version when the archive still has it (libsystemd-dev at the installed
# libsystemd0's, say; a newer one would pull in a newer libsystemd0 and with it systemd).
#
# The Swift toolchain itself is not an apt package on every release; this script checks for it and says how to get
# it, but never downloads one.
set -euo pipefail

# Building and running: the C libraries the targets link (libinput, libevdev, libudev, libsystemd, libyaml, cairo,
# libwayland-client, xkbcommon with xkb-data), pkg-config, which finds them, and libwayland-bin (wayland-scanner,
# run at build time). python3: scripts/quickstart chooses the web page's port with it.
edgeswipe_build_packages=(libinput-dev libevdev-dev libudev-dev libsystemd-dev libyaml-dev pkg-config python3
  libwayland-dev libwayland-bin libxkbcommon-dev xkb-data libcairo2-dev)
# Only the tests: sway and weston (weston-flower, a window to put on a workspace): the session's tests on a real
# headless compositor. grim, wayland-protocols (xdg-shell's XML) and gcc: the overlay's tests take screenshots and
# build their click probe. nodejs: the test that holds StreamState equal to edgeswipe.js runs the page's module.
# dbus-daemon, python3-dbus and python3-dbusmock: the seat tests' private system bus with a fake logind and
# iio-sensor-proxy (scripts/seat-bus-mock.py). make: the shipped build flags come from the Makefile (make
# print-swift-build-flags), which scripts/bench.sh and scripts/e2e-qemu.sh build with. librsvg2-bin: rsvg-convert, for
# `edgeswipectl plot --png` and its tests. python3-jsonschema: the protocol's schema checks; acl, socat, strace:
# the daemon's tests of permissions, raw sockets and slow storage. chromium, chromium-driver and python3-selenium:
# the web page's test in a real browser (BrowserTests). phoc, kwin-wayland, cage, wtype, wayland-utils,
# desktop-file-utils, python3-gi and libglib2.0-bin: the compositor matrix (docs/COMPOSITORS.md): phoc and KWin
# headless beside sway, wtype's virtual keyboard, wayland-info's list of globals on all five, the desktop entry KWin
# reads checked, the focus script's D-Bus receiver, and `gdbus wait` for KWin's start. gnome-shell, mutter, gjs and
# gir1.2-gtk-4.0 (the tests' windows): the GNOME Shell extension's tests on a real headless gnome-shell (about
# 380 MB); libglib2.0-dev-bin (glib-compile-resources: stand-ins for GNOME 45's modules); eslint lints the extension.
edgeswipe_test_packages=(make python3-jsonschema acl socat strace dbus-daemon python3-dbus python3-dbusmock python3-gi librsvg2-bin
  sway weston wayland-protocols grim gcc nodejs chromium chromium-driver python3-selenium
  phoc kwin-wayland cage wtype wayland-utils desktop-file-utils libglib2.0-bin gnome-shell mutter gjs gir1.2-gtk-4.0
  libglib2.0-dev-bin eslint)
# hyperfine: scripts/footprint.py times each tool's start-up with it (docs/PERFORMANCE.md, "Footprint").
edgeswipe_test_packages+=(hyperfine)

# The packages of `set` (build, or test: build and test) that are not installed, in `edgeswipe_missing`.
edgeswipe_find_missing() {
  local wanted=("${edgeswipe_build_packages[@]}")
  [ "$1" = build ] || wanted+=("${edgeswipe_test_packages[@]}")
  edgeswipe_missing=()
  local p
  for p in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || edgeswipe_missing+=("$p")
  done
}

# `package` or `package=version`: a -dev package whose exact-version dependency is installed at another version is
# asked for at the installed one, if the archive has it, so that apt upgrades nothing to install it.
edgeswipe_pinned() {
  local package=$1 dep name version installed
  while read -r dep; do
    name=${dep%% *}
    version=${dep#*(= }
    version=${version%)}
    installed=$(dpkg-query -W -f='${Version}' "$name" 2>/dev/null || true)
    if [ -n "$installed" ] && [ "$installed" != "$version" ] \
      && apt-cache madison "$package" 2>/dev/null | awk -F'|' '{ gsub(/ /, "", $2); print $2 }' | grep -qxF "$installed"; then
      echo "$package=$installed"
      return
    fi
  done < <(apt-cache show --no-all-versions "$package" 2>/dev/null | sed -n 's/^Depends: //p' | tr ',' '\n' \
    | sed -n 's/^ *\([^ :]*\)\(:any\)\{0,1\} *(= *\([^)]*\)).*/\1 (= \3)/p')
  echo "$package"
}

edgeswipe_install() {
  edgeswipe_find_missing "$1"
  [ ${#edgeswipe_missing[@]} -gt 0 ] || return 0
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  local install=() p
  for p in "${edgeswipe_missing[@]}"; do install+=("$(edgeswipe_pinned "$p")"); done
  # What apt would do: the new packages (with what they depend on) and any installed package it would upgrade.
  local plan new upgraded
  plan=$(apt-get install -s --no-install-recommends "${install[@]}" 2>/dev/null | sed -n 's/^Inst //p' || true)
  new=$(echo "$plan" | awk '$2 !~ /^\[/ { print $1 }' | tr '\n' ' ')
  upgraded=$(echo "$plan" | awk '$2 ~ /^\[/ { print $1 }' | tr '\n' ' ')
  echo "edgeswipe: to ${1/test/build and test}, apt-get installs ${edgeswipe_missing[*]}" >&2
  [ -z "$new" ] || echo "edgeswipe:   with what they need, $(echo $new | wc -w) new packages: $new" >&2
  if [ -n "$upgraded" ]; then
    echo "edgeswipe:   and upgrades $upgraded(a -dev package needs its library at the archive's version, which is no longer the installed one)" >&2
  fi
  if [ -z "${EDGESWIPE_YES:-}" ] && [ -z "${CI:-}" ] && [ -t 0 ] && [ -t 2 ]; then
    local answer
    read -r -p "edgeswipe: install them? [Y/n] " answer
    case "$answer" in
      "" | [Yy]*) ;;
      *) echo "edgeswipe: nothing installed; install them yourself, or run this again" >&2; exit 1 ;;
    esac
  fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${install[@]}" >/dev/null
}

edgeswipe_install "${EDGESWIPE_DEPS:-test}"

if ! command -v swift >/dev/null 2>&1; then
  for candidate in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
    [ -x "$candidate/swift" ] && export PATH="$candidate:$PATH" && break
  done
fi
if ! command -v swift >/dev/null 2>&1; then
  echo "edgeswipe: no Swift toolchain found. Install Swift 6.3 or newer (https://www.swift.org/install/linux/)," >&2
  echo "then run this command again." >&2
  exit 1
fi
