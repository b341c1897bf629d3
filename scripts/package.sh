#!/usr/bin/env bash
# Builds the Debian package in one command (`make deb` runs this) and checks it with lintian:
#
#   scripts/package.sh                             # dist/edgeswipe_VERSION_ARCH.deb: the release build `make` makes
#   DEB_BUILD_OPTIONS=noopt scripts/package.sh     # the same package from a debug build (scripts/e2e-qemu.sh's)
#
# Environment: EDGESWIPE_SCRATCH_PATH (SwiftPM's build folder, default .build: a package built after `make` reuses
# its objects), PACKAGE_OUT (where the .deb, .buildinfo, .changes and lintian.txt go; default dist/), LINTIAN=0
# (skip lintian).
#
# The Swift packages are resolved first, the one step that may fetch (from SwiftPM's cache when it has the
# versions). dpkg-buildpackage then runs with no network: in a network namespace of its own where `unshare` can
# make one (as root, or with user namespaces), and debian/rules builds only the versions Package.resolved names,
# from the checkouts already made. debian/README.source has the rest.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
say() { echo "package: $*" >&2; }
die() { say "FAIL: $*"; exit 1; }

# The build's C libraries and the Swift toolchain on PATH (scripts/deps.sh), then the packaging tools: iproute2 brings
# up the loopback of the build's network namespace (below). No fakeroot: debian/control says Rules-Requires-Root: no.
source scripts/deps.sh
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
missing=()
for p in dpkg-dev debhelper lintian iproute2; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# What debian/control's Build-Depends name and this machine lacks.
if ! dpkg-checkbuilddeps >/dev/null 2>&1; then
  say "installing the build dependencies debian/control names"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get build-dep -y -qq ./ >/dev/null
fi

version=$(dpkg-parsechangelog -S Version)
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
# debian/changelog and the version the binaries report (--version, the protocol's hello) are one version.
version_file=Sources/EdgeSwipeVocabulary/Version.swift
swift_version=$(sed -n 's/^ *public static let string = "\(.*\)"$/\1/p' "$version_file" 2>/dev/null || true)
[ -n "$swift_version" ] || die "no 'public static let string = \"VERSION\"' in $version_file (EdgeSwipeVersion moved?)"
[ "${version%%-*}" = "$swift_version" ] || die "debian/changelog says $version, $version_file says $swift_version: make them one"

OUT=$(realpath -m "${PACKAGE_OUT:-dist}")
mkdir -p "$OUT"
scratch=${EDGESWIPE_SCRATCH_PATH:-}
T=$SECONDS
swift package ${scratch:+--scratch-path "$scratch"} resolve
say "Swift packages resolved in $(( SECONDS - T ))s"

# No network during the build: a network namespace of its own, with only its loopback up (Foundation's Process,
# which generate-manual runs the tools with, wakes its run loop through a loopback socket pair).
offline=()
loopback_up='ip link set lo up && exec "$@"'
if [ "$(id -u)" -eq 0 ] && command -v ip >/dev/null && unshare --net sh -c "$loopback_up" sh true 2>/dev/null; then
  offline=(unshare --net sh -c "$loopback_up" sh)
elif command -v ip >/dev/null && unshare --map-root-user --net sh -c "$loopback_up" sh true 2>/dev/null; then
  offline=(unshare --map-root-user --net sh -c "$loopback_up" sh)
else
  say "cannot make a network namespace here (unshare, ip): building with the network present (it is not used)"
fi

base=edgeswipe_${version}_${arch}
rm -f "$OUT/$base".{deb,buildinfo,changes} "$OUT/lintian.txt"
T=$SECONDS
say "dpkg-buildpackage -b (${DEB_BUILD_OPTIONS:-release}${offline:+, no network}) ..."
"${offline[@]}" env EDGESWIPE_SCRATCH_PATH="$scratch" EDGESWIPE_DEB_DESTDIR="$OUT" \
  dpkg-buildpackage -b --no-sign \
    --buildinfo-option=-u"$OUT" --buildinfo-file="$OUT/$base.buildinfo" \
    --changes-option=-u"$OUT" --changes-file="$OUT/$base.changes"
say "built $OUT/$base.deb in $(( SECONDS - T ))s ($(du -h "$OUT/$base.deb" | cut -f1))"

if [ "${LINTIAN:-1}" != 0 ]; then
  T=$SECONDS
  status=0
  # Errors fail the build; warnings are listed (debian/README.source says which are kept, and why).
  lintian --fail-on error --tag-display-limit 0 "$OUT/$base.changes" > "$OUT/lintian.txt" 2>&1 || status=$?
  sed 's/^/lintian: /' "$OUT/lintian.txt" >&2
  say "lintian: $(grep -c '^E:' "$OUT/lintian.txt" || true) error(s), $(grep -c '^W:' "$OUT/lintian.txt" || true) warning(s) in $(( SECONDS - T ))s"
  [ "$status" = 0 ] || die "lintian found errors (above; $OUT/lintian.txt)"
fi
echo "$OUT/$base.deb"
