#!/usr/bin/env bash
# End-to-end tests on a real Linux kernel: edgeswiped reads uinput touch devices through the kernel, udev,
# libinput and libevdev inside a qemu guest (Debian bookworm's kernel and userland, TCG), and a client on its
# socket must see the expected gestures and transitions. docs/TESTING.md explains it; in short:
#
#   scripts/e2e-qemu.sh                 # everything; exits 0 only if every scenario passed
#   E2E_SCENARIOS=1,4 scripts/e2e-qemu.sh
#   E2E_SHELL=1 scripts/e2e-qemu.sh     # interactive: a shell in the guest after the scenarios (by hand only)
#
# It installs its host packages with apt when missing, builds edgeswiped and edgeswipectl with a static Swift
# runtime, and caches the kernel, a debootstrap root file system and the packed initramfs under e2e-cache/
# (git-ignored). It downloads nothing but Debian packages. If qemu cannot boot the guest, it says so and exits
# non-zero: a skipped e2e never looks like a pass.
#
# Environment: E2E_BUILD (debug, the default, or release: which static build the guest runs; see below),
# E2E_SCENARIOS (default 1,2,3,4,5,6,7,9,10,11; 8 is edgeswiped side by side with lisgd, docs/PERFORMANCE.md; 11 is
# the Debian package, in a second boot with systemd as PID 1), E2E_SMP
# (guest CPUs, default 2), E2E_TIMEOUT (seconds for the whole guest run, default 900), E2E_RECORDINGS (extra
# recordings for scenario 5, paths relative to ../shared/recordings, separated by ':'), E2E_REFRESH=1 (rebuild the
# cached kernel and root file system), E2E_EXPECT_FAIL (scenarios known to fail because of a daemon bug being
# fixed: reported as XFAIL, and as XPASS, which fails the run, once they pass), E2E_RUN (this run's folder, removed
# and made afresh by every run; default E2E_CACHE/run), E2E_MIRROR (the Debian archive root debootstrap uses;
# default: the one this machine's apt uses, from its sources, with its proxy; scripts/e2e/apt_mirror.py).
#
# E2E_BUILD=debug (CI) builds `-c debug` with the shipped flags (`make print-swift-build-flags`) in .build-e2e-debug: from scratch it takes about
# half the release build's CPU time (no -O, no whole-module optimisation), and the scenarios judge behaviour, not
# speed. E2E_BUILD=release builds `-c release` with them in .build-static: what users run, for timing
# comparisons (scenario 8, lisgd side by side, wants it and gets it unless E2E_BUILD says otherwise). Scenario 11's
# package is built by scripts/package.sh from the same build folder (DEB_BUILD_OPTIONS=noopt for the debug build).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
# E2E_CACHE moves the cache (kernel, root file system, last run) out of the work tree, e.g. to keep it across
# fresh clones on one machine.
CACHE=${E2E_CACHE:-$ROOT/e2e-cache}
RUN=${E2E_RUN:-$CACHE/run}
SUITE=bookworm
SCENARIOS=${E2E_SCENARIOS:-1,2,3,4,5,6,7,9,10,11}
SMP=${E2E_SMP:-2}
TIMEOUT=${E2E_TIMEOUT:-900}
SHARED=$ROOT/../shared/recordings
# Recordings for scenario 5 besides the project's own demo (relative to ../shared/recordings; '*.desc' beside
# an events-only file is found automatically).
RECORDINGS=${E2E_RECORDINGS:-"evemu-devices/Wacom Intuos5 touch M Finger double-top-swipe.events"}

# The guest's packages. Extend the list freely (the root file system is rebuilt when it changes), but never add
# libinput-tools: it pulls in GTK and breaks debootstrap (unpack its .deb with dpkg -x instead).
GUEST_PACKAGES=(
  udev kmod acl          # udevd and our rules (setfacl), modprobe
  systemd                # systemd-sysusers for packaging/edgeswipe.sysusers; systemd-logind (scenario 9)
  dbus libpam-systemd    # the system bus, and logind sessions from PAM (scenarios 7 and 9)
  libinput10 libinput-bin libevdev2 libudev1
  libyaml-0-2            # edgeswiped reads libinput record files with libyaml
  evemu-tools            # evemu-device/-describe, for poking around by hand
  python3                # scripts/e2e/uinput-play.py
  lisgd                  # the peer, for side-by-side runs
  libwayland-client0 libxkbcommon0 libcairo2   # edgeswipe-session's libraries: scenario 11's package depends on them
)
# Kernel modules the guest may need (directories under kernel/ of the module tree).
MODULE_DIRS=(drivers/input drivers/hid)
# Bump when the way the cached root file system is made changes.
RECIPE=3

say() { echo "e2e-qemu: $*" >&2; }
die() { say "FAIL: $*"; exit 2; }
elapsed() { echo $(( SECONDS - $1 ))s; }
# CPU seconds this script's finished children have used: unlike the wall clock, it does not depend on what else
# the machine is doing.
children_cpu() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%d", ($16 + $17) / hz }' /proc/$$/stat; }
T_START=$SECONDS

# The Debian mirror debootstrap fetches from: the one this machine's apt uses (its sources, one-line or deb822,
# and its proxy; scripts/e2e/apt_mirror.py), or E2E_MIRROR. The kernel comes through apt-get itself, which reads
# the same configuration. Nothing here names a mirror host.
debian_mirror() {
  local assignments
  assignments=$(python3 scripts/e2e/apt_mirror.py --suite "$SUITE" ${E2E_MIRROR:+--mirror "$E2E_MIRROR"}) \
    || die "no Debian mirror to debootstrap $SUITE from (see above); set E2E_MIRROR"
  eval "$assignments"
  [ -z "$MIRROR_NOTE" ] || say "$MIRROR_NOTE"
  debootstrap_options=()
  # The keyring apt verifies this source with (binary keyrings only: debootstrap's gpgv reads no armour).
  case "$MIRROR_KEYRING" in ''|*.asc) ;; *) debootstrap_options+=(--keyring="$MIRROR_KEYRING") ;; esac
  # A source apt trusts unsigned (a local mirror with [trusted=yes]) is trusted here too.
  [ -z "$MIRROR_TRUSTED" ] || debootstrap_options+=(--no-check-gpg)
  # debootstrap downloads with wget, which knows nothing of apt's Acquire::http::Proxy: hand it over.
  if [ -n "${MIRROR_PROXY:-}" ]; then
    export "$MIRROR_PROXY_VAR=$MIRROR_PROXY"
    say "through apt's proxy $(sed -E 's#//[^/@]*@#//***@#' <<< "$MIRROR_PROXY") ($MIRROR_PROXY_VAR)"
  fi
}

# ---- host packages ----------------------------------------------------------------------------------------
host_packages=(qemu-system-x86 debootstrap cpio kmod busybox-static python3 xz-utils binutils)
missing=()
for p in "${host_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 is not installed and could not be installed"
[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, and packing a root file system with its owners)"
mkdir -p "$CACHE"

# ---- binaries ---------------------------------------------------------------------------------------------
T=$SECONDS
CPU=$(children_cpu)
source scripts/deps.sh
# Scenario 8 compares latencies with lisgd: it wants what users run, unless told otherwise.
if [ -z "${E2E_BUILD:-}" ] && [[ ",$SCENARIOS," == *,8,* ]]; then E2E_BUILD=release; fi
[ "${E2E_BUILD:-debug}" = release ] || [[ ",$SCENARIOS," != *,8,* ]] \
  || say "scenario 8 with a $E2E_BUILD build: its latencies are not what users get"
# The flags of the build that `make install` ships (the static Swift runtime, packed relocations where glibc loads them).
read -r -a SHIPPED_FLAGS <<< "$(make -s print-swift-build-flags)"
case "${E2E_BUILD:=debug}" in
  debug) SCRATCH=.build-e2e-debug; build=(swift build -c debug "${SHIPPED_FLAGS[@]}" --scratch-path "$SCRATCH") ;;
  release) SCRATCH=.build-static; build=(swift build -c release "${SHIPPED_FLAGS[@]}" --scratch-path "$SCRATCH") ;;
  *) die "E2E_BUILD must be debug or release, not '$E2E_BUILD'" ;;
esac
for product in edgeswiped edgeswipectl; do
  for attempt in 1 2; do
    if "${build[@]}" --product "$product" > "$CACHE/build-$product.log" 2>&1; then break; fi
    # In a work tree someone is editing, swift build stops on "was modified during the build": once more.
    if [ "$attempt" = 1 ] && grep -q 'modified during the build' "$CACHE/build-$product.log"; then
      say "a source file changed during the build of $product; building again"
      continue
    fi
    tail -30 "$CACHE/build-$product.log" >&2
    die "building $product failed (log: $CACHE/build-$product.log)"
  done
done
BIN=$("${build[@]}" --show-bin-path)
say "$E2E_BUILD binaries built in $(elapsed $T), $(( $(children_cpu) - CPU )) CPU-s, load $(cut -d' ' -f1-3 /proc/loadavg) ($BIN)"

wants() { [[ ",$SCENARIOS," == *",$1,"* ]]; }
# Every scenario but 11 runs in the first boot (/init is scripts/e2e/guest-init.sh); 11 has a boot of its own.
FIRST_BOOT=$(tr ',' '\n' <<< "$SCENARIOS" | grep -vx -e 11 -e '' | paste -sd, - || true)

# ---- scenario 11's packages: the one users install, and the same again with a higher version ---------------
if wants 11; then
  T=$SECONDS
  CPU=$(children_cpu)
  PACKAGES=$CACHE/package
  noopt=""
  [ "$E2E_BUILD" = release ] || noopt=noopt
  # gzip -1 rather than dpkg-deb's xz: the debug binaries are ~240 MB, which xz takes over 12 minutes for on a loaded
  # 2-core machine (lintian on Debian 12 refuses zstd members).
  DPKG_DEB_COMPRESSOR_TYPE=gzip DPKG_DEB_COMPRESSOR_LEVEL=1 \
  EDGESWIPE_SCRATCH_PATH=$SCRATCH DEB_BUILD_OPTIONS=$noopt PACKAGE_OUT=$PACKAGES scripts/package.sh > "$CACHE/package.log" 2>&1 \
    || { tail -30 "$CACHE/package.log" >&2; die "scripts/package.sh failed (log: $CACHE/package.log)"; }
  DEB=$(tail -1 "$CACHE/package.log")
  [ -f "$DEB" ] || die "scripts/package.sh named no package (log: $CACHE/package.log)"
  DEB_VERSION=$(dpkg-deb -f "$DEB" Version)
  # The upgrade: the same members but a control file with a higher version (the data is not compressed again).
  UPGRADE_VERSION=$DEB_VERSION+e2e1
  repack=$PACKAGES/repack
  rm -rf "$repack" && mkdir -p "$repack/control"
  (cd "$repack" && ar x "$DEB" && tar -xf control.tar.* -C control && rm control.tar.* \
    && sed -i "s/^Version: .*/Version: $UPGRADE_VERSION/" control/control \
    && tar -cJf control.tar.xz --owner=0 --group=0 --sort=name -C control . \
    && rm -f upgrade.deb && ar rcD upgrade.deb debian-binary control.tar.xz data.tar.*) \
    || die "could not repack $DEB as version $UPGRADE_VERSION"
  UPGRADE_DEB=$repack/upgrade.deb
  [ "$(dpkg-deb -f "$UPGRADE_DEB" Version)" = "$UPGRADE_VERSION" ] || die "the repacked package does not read as $UPGRADE_VERSION"
  say "package $(basename "$DEB") ($(du -h "$DEB" | cut -f1), $(grep -o '[0-9]* error(s), [0-9]* warning(s)' "$CACHE/package.log" | tail -1) from lintian) and its upgrade to $UPGRADE_VERSION in $(elapsed $T), $(( $(children_cpu) - CPU )) CPU-s"
fi

# ---- kernel -----------------------------------------------------------------------------------------------
T=$SECONDS
kernel_dir=$(ls -d "$CACHE"/kernel-* 2>/dev/null | sort -V | tail -1 || true)
if [ -z "$kernel_dir" ] || [ "${E2E_REFRESH:-0}" = 1 ]; then
  apt-cache show linux-image-amd64 >/dev/null 2>&1 || apt-get update -qq
  kpkg=$(apt-cache depends linux-image-amd64 | sed -n 's/^ *Depends: \(linux-image-[0-9].*\)$/\1/p' | head -1)
  [ -n "$kpkg" ] || die "cannot tell which kernel package linux-image-amd64 depends on"
  mkdir -p "$CACHE/debs"
  rm -f "$CACHE"/debs/"$kpkg"_*.deb
  (cd "$CACHE/debs" && apt-get download "$kpkg" >/dev/null 2>&1) || die "apt-get download $kpkg failed"
  kernel_dir=$CACHE/kernel-${kpkg#linux-image-}
  rm -rf "$kernel_dir.tmp" && mkdir -p "$kernel_dir.tmp"
  dpkg -x "$CACHE"/debs/"$kpkg"_*.deb "$kernel_dir.tmp"
  rm -rf "$kernel_dir" && mv "$kernel_dir.tmp" "$kernel_dir"
  say "kernel $kpkg extracted in $(elapsed $T)"
fi
KVER=$(ls "$kernel_dir/lib/modules" | head -1)
VMLINUZ=$kernel_dir/boot/vmlinuz-$KVER
[ -f "$VMLINUZ" ] || die "no kernel image in $kernel_dir"
# Boot the uncompressed ELF through PVH (the kernel has CONFIG_PVH): under TCG, the bzImage's own XZ
# decompressor takes 30 s or more on a busy machine; xz on the host takes a second, once.
KERNEL=$kernel_dir/vmlinux-$KVER
if [ ! -s "$KERNEL" ]; then
  offset=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$VMLINUZ" | head -1 | cut -d: -f1 || true)
  if [ -n "$offset" ] && tail -c +$(( offset + 1 )) "$VMLINUZ" | xz -dc > "$KERNEL.tmp" 2>/dev/null || [ -s "$KERNEL.tmp" ]; then
    if file "$KERNEL.tmp" 2>/dev/null | grep -q 'ELF 64-bit' || head -c4 "$KERNEL.tmp" | grep -q 'ELF'; then
      mv "$KERNEL.tmp" "$KERNEL"
    fi
  fi
  rm -f "$KERNEL.tmp"
  [ -s "$KERNEL" ] || { say "could not unpack the kernel's ELF image; booting the bzImage (slower)"; KERNEL=$VMLINUZ; }
fi

# ---- root file system and its packed cpio -----------------------------------------------------------------
key=$( (echo "$RECIPE $SUITE $KVER ${GUEST_PACKAGES[*]} ${MODULE_DIRS[*]}") | sha256sum | cut -c1-12)
ROOTFS=$CACHE/rootfs-$key
BASE_CPIO=$CACHE/base-$key.cpio
if [ ! -f "$BASE_CPIO" ] || [ "${E2E_REFRESH:-0}" = 1 ]; then
  T=$SECONDS
  rm -rf "$ROOTFS"
  # debootstrap's own output is kept apart until it is complete, so that an interrupted run starts it again
  # and a failure after it does not.
  if [ ! -f "$ROOTFS.tmp/.debootstrap-complete" ] || [ "${E2E_REFRESH:-0}" = 1 ]; then
    rm -rf "$ROOTFS.tmp"
    debian_mirror
    say "debootstrap $SUITE (minbase + ${GUEST_PACKAGES[*]}) from $MIRROR ($MIRROR_FROM) ..."
    include=$(IFS=,; echo "${GUEST_PACKAGES[*]}")
    debootstrap --variant=minbase --include="$include" ${debootstrap_options[@]+"${debootstrap_options[@]}"} \
      "$SUITE" "$ROOTFS.tmp" "$MIRROR" \
      > "$CACHE/debootstrap.log" 2>&1 || { tail -20 "$CACHE/debootstrap.log" >&2; die "debootstrap failed (log: $CACHE/debootstrap.log)"; }
    touch "$ROOTFS.tmp/.debootstrap-complete"
  fi
  # Slim it down: nothing in the guest reads documentation, locales or apt's caches.
  rm -rf "$ROOTFS.tmp"/usr/share/{doc,man,info,locale} "$ROOTFS.tmp"/var/cache/apt/* "$ROOTFS.tmp"/var/lib/apt/lists/*
  # The kernel's input and HID modules, with their index.
  for d in "${MODULE_DIRS[@]}"; do
    rm -rf "$ROOTFS.tmp/lib/modules/$KVER/kernel/$d"
    mkdir -p "$ROOTFS.tmp/lib/modules/$KVER/kernel/$(dirname "$d")"
    cp -a "$kernel_dir/lib/modules/$KVER/kernel/$d" "$ROOTFS.tmp/lib/modules/$KVER/kernel/$d"
  done
  cp "$kernel_dir"/lib/modules/"$KVER"/modules.{builtin,builtin.modinfo,order} "$ROOTFS.tmp/lib/modules/$KVER/" 2>/dev/null || true
  depmod -b "$ROOTFS.tmp" "$KVER"
  echo e2e > "$ROOTFS.tmp/etc/hostname"
  mv "$ROOTFS.tmp" "$ROOTFS"
  say "root file system built in $(elapsed $T) ($(du -sh "$ROOTFS" | cut -f1))"
  T=$SECONDS
  (cd "$ROOTFS" && find . -mindepth 1 -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --quiet) > "$BASE_CPIO.tmp"
  mv "$BASE_CPIO.tmp" "$BASE_CPIO"
  say "packed in $(elapsed $T) ($(du -h "$BASE_CPIO" | cut -f1))"
  # Older caches of other keys are dead weight.
  for old in "$CACHE"/rootfs-* "$CACHE"/base-*.cpio; do
    case "$old" in "$ROOTFS"|"$BASE_CPIO"|"$ROOTFS.tmp") ;; *) rm -rf "$old" ;; esac
  done
fi

# The guest's libraries must satisfy the binaries (a new dependency would otherwise show up as a confusing
# failure inside the guest).
for lib in $(ldd "$BIN/edgeswiped" "$BIN/edgeswipectl" | sed -n 's/^\s*\(lib[^ ]*\) => .*/\1/p' | sort -u); do
  find "$ROOTFS"/usr/lib/x86_64-linux-gnu "$ROOTFS"/lib/x86_64-linux-gnu -maxdepth 1 -name "$lib" 2>/dev/null | grep -q . \
    || die "the guest has no $lib, which the binaries need: add its package to GUEST_PACKAGES"
done

# dpkg -i in the guest, which has no network, needs every package the .deb depends on already there.
if wants 11; then
  unmet=()
  while read -r group; do
    [ -n "$group" ] || continue
    ok=""
    IFS='|' read -r -a alternatives <<< "$group"
    for alt in "${alternatives[@]}"; do
      name=$(sed -E 's/\(.*\)//; s/:any//; s/ //g' <<< "$alt")
      if dpkg-query --admindir="$ROOTFS/var/lib/dpkg" -W -f='${Status}' "$name" 2>/dev/null | grep -q "install ok installed"; then
        ok=yes
      fi
    done
    [ -n "$ok" ] || unmet+=("$group")
  done < <(dpkg-deb -f "$DEB" Depends Pre-Depends | sed 's/^[A-Za-z-]*: //' | tr ',' '\n')
  [ ${#unmet[@]} -eq 0 ] || die "the guest lacks what the package depends on (${unmet[*]}): add it to GUEST_PACKAGES"
fi

# ---- this run's overlay: binaries, rules, scenarios, expected outcomes -----------------------------------
T=$SECONDS
rm -rf "$RUN" && mkdir -p "$RUN/overlay" "$RUN/expected"
O=$RUN/overlay
install -d -m 0755 "$O/usr/local/bin" "$O/etc/udev/rules.d" "$O/usr/lib/sysusers.d" "$O/e2e/scenarios" "$O/e2e/recordings"
# Stripped: the static Swift runtime makes each binary ~110 MB with its debug info, ~70 MB without, and every
# byte of the initramfs is copied by the emulated CPU at boot.
for b in edgeswiped edgeswipectl; do
  strip -o "$O/usr/local/bin/$b" "$BIN/$b" && chmod 0755 "$O/usr/local/bin/$b"
done
install -m 0644 udev/71-edgeswipe.rules "$O/etc/udev/rules.d/"
install -m 0644 packaging/edgeswipe.sysusers "$O/usr/lib/sysusers.d/edgeswipe.conf"
install -m 0755 scripts/e2e/guest-init.sh "$O/init"
# Scenario 7: our units exactly as shipped, the default configuration, and the units that drive the scenario.
install -d -m 0755 "$O/etc/systemd/system" "$O/etc/edgeswipe"
install -m 0644 systemd/edgeswiped.service systemd/edgeswiped.socket "$O/etc/systemd/system/"
scripts/system-config.sh > "$O/etc/edgeswipe/edgeswipe.toml" && chmod 0644 "$O/etc/edgeswipe/edgeswipe.toml"
install -m 0644 scripts/e2e/e2e.target scripts/e2e/e2e-systemd.service "$O/etc/systemd/system/"
install -m 0755 scripts/e2e/uinput-play.py scripts/e2e/side-by-side.py "$O/e2e/"
install -m 0644 scripts/e2e/side-by-side.toml scripts/e2e/swipes.toml "$O/e2e/"
scripts/e2e/make-scenarios.py "$O/e2e/scenarios"

# The expected stream of every recording, from the offline pipeline on the host.
expect() { # FILE NAME [--desc DESC]
  local file=$1 name=$2
  shift 2
  "$BIN/edgeswipectl" replay "$file" "$@" --json > "$RUN/expected/$name.jsonl" 2> "$RUN/expected/$name.err" \
    || die "edgeswipectl replay $file failed: $(cat "$RUN/expected/$name.err")"
  scripts/e2e/check.py --count-terminals "$RUN/expected/$name.jsonl"
}
for f in "$O"/e2e/scenarios/*.evemu; do
  n=$(basename "$f" .evemu)
  case $n in
    # Scenario 10 runs with multi-finger swipe bindings; offline, the touchpad's swipes come from the engine's
    # emulation of libinput's, live from libinput itself.
    tp-swipes|ts-swipe) expect "$f" "$n" --config scripts/e2e/swipes.toml > "$O/e2e/scenarios/$n.terminals" ;;
    *) expect "$f" "$n" > "$O/e2e/scenarios/$n.terminals" ;;
  esac
done
if [[ ",$SCENARIOS," == *,8,* ]]; then
  expect "$O/e2e/scenarios/side-by-side/swipes.evemu" side-by-side --config scripts/e2e/side-by-side.toml > /dev/null
fi
add_recording() { # SOURCE NAME [DESC]
  local src=$1 name=$2 desc=${3:-}
  cp "$src" "$O/e2e/recordings/$name.evemu"
  if [ -n "$desc" ]; then
    cp "$desc" "$O/e2e/recordings/$name.desc"
    expect "$src" "$name" --desc "$desc" > "$O/e2e/recordings/$name.terminals"
  else
    expect "$src" "$name" > "$O/e2e/recordings/$name.terminals"
  fi
}
add_recording demo/edgeswipe-demo.evemu demo
if [ -d "$SHARED" ]; then
  IFS=: read -r -a extra <<< "$RECORDINGS"
  for rel in "${extra[@]}"; do
    [ -n "$rel" ] || continue
    src=$SHARED/$rel
    [ -f "$src" ] || die "recording $rel is not in ../shared/recordings"
    desc=""
    if ! grep -q '^N:' "$src"; then
      # Events only: the description is the .desc of the same device, beside it.
      base=$(basename "$src"); dir=$(dirname "$src")
      desc=$(ls "$dir"/*.desc | while read -r d; do n=$(basename "$d" .desc); [[ "$base" == "$n"* ]] && echo "$d"; done | awk '{ print length, $0 }' | sort -rn | head -1 | cut -d' ' -f2-)
      [ -n "$desc" ] || die "no .desc for $rel"
    fi
    name=$(basename "$src" | sed 's/\.[^.]*$//; s/[^A-Za-z0-9._-]/_/g')
    add_recording "$src" "$name" "$desc"
  done
else
  say "../shared/recordings is absent: scenario 5 plays only the project's demo recording"
  echo "../shared/recordings absent: only the demo recording was played" > "$RUN/expected/NOTE"
fi
(cd "$O" && find . -mindepth 1 -print0 | LC_ALL=C sort -z | cpio --null -o -H newc -R 0:0 --quiet) > "$RUN/overlay.cpio"
cat "$BASE_CPIO" "$RUN/overlay.cpio" > "$RUN/initrd.cpio"
say "overlay packed in $(elapsed $T)"

# ---- scenario 11's overlay: the packages, the player and the unit that drives it; nothing else of ours ------
if wants 11; then
  T=$SECONDS
  O2=$RUN/overlay-package
  install -d -m 0755 "$O2/e2e/package" "$O2/e2e/scenarios" "$O2/etc/systemd/system" "$O2/etc/udev/rules.d"
  cp "$DEB" "$O2/e2e/package/first.deb"
  cp "$UPGRADE_DEB" "$O2/e2e/package/upgrade.deb"
  install -m 0755 scripts/e2e/guest-init.sh scripts/e2e/uinput-play.py "$O2/e2e/"
  cp "$O/e2e/scenarios/ts-left-commit.evemu" "$O2/e2e/scenarios/"
  # The second seat's touchscreen: the same swipe from a device of another name, which the guest's own rule
  # (as `loginctl attach seat1 DEVICE` would write one) puts on seat1.
  sed 's/^N: EdgeSwipe E2E Touchscreen$/N: EdgeSwipe E2E Touchscreen B/' "$O/e2e/scenarios/ts-left-commit.evemu" \
    > "$O2/e2e/scenarios/ts-left-commit-seat1.evemu"
  grep -q '^N: EdgeSwipe E2E Touchscreen B$' "$O2/e2e/scenarios/ts-left-commit-seat1.evemu" \
    || die "the touchscreen's evemu name is not 'EdgeSwipe E2E Touchscreen': scenario 11's seat1 device needs another"
  install -m 0644 scripts/e2e/72-e2e-seat1.rules "$O2/etc/udev/rules.d/"
  install -m 0644 scripts/e2e/e2e-package.target scripts/e2e/e2e-package.service "$O2/etc/systemd/system/"
  (cd "$O2" && find . -mindepth 1 -print0 | LC_ALL=C sort -z | cpio --null -o -H newc -R 0:0 --quiet) > "$RUN/overlay-package.cpio"
  cat "$BASE_CPIO" "$RUN/overlay-package.cpio" > "$RUN/initrd-package.cpio"
  rm -f "$RUN/overlay-package.cpio"
  say "package overlay packed in $(elapsed $T)"
fi

# ---- boot -------------------------------------------------------------------------------------------------
mkdir -p "$RUN/results"
GUEST_SECONDS=0
# boot NAME INITRD MEMORY_MB KERNEL_ARGUMENTS: one guest, from power-on to power-off (or E2E_TIMEOUT); its console
# in console.log (console-NAME.log), what it sent on the second serial port in ttyS1.bin (ttyS1-NAME.bin),
# unpacked into results/.
boot() {
  local name=$1 initrd=$2 memory=$3 append="console=ttyS0 panic=-1 loglevel=4 $4" t=$SECONDS
  local suffix=${name:+-$name} qemu_status=0 sent got
  local console=$RUN/console$suffix.log port=$RUN/ttyS1$suffix.bin
  [ "${E2E_SHELL:-0}" = 1 ] && append+=" e2e.shell=1"
  local qemu=(qemu-system-x86_64 -accel tcg -cpu max -m "$memory" -smp "$SMP" -nographic -no-reboot -monitor none
    -nic none -kernel "$KERNEL" -initrd "$initrd" -append "$append"
    -serial stdio -serial "file:$port")
  say "booting the ${name:-first} guest (TCG, $SMP cpu(s); console log: $console) ..."
  if [ "${E2E_SHELL:-0}" = 1 ]; then
    "${qemu[@]}" || qemu_status=$?
  else
    set +e
    timeout --kill-after=10 "$TIMEOUT" "${qemu[@]}" < /dev/null 2>&1 | sed -u 's/\r$//' | tee "$console" \
      | grep --line-buffered -oE '(e2e-guest:.*|Kernel panic.*)' >&2
    qemu_status=${PIPESTATUS[0]}
    set -e
  fi
  GUEST_SECONDS=$(( GUEST_SECONDS + SECONDS - t ))
  if ! grep -q 'e2e-guest: booted' "$console" 2>/dev/null; then
    tail -20 "$console" >&2 2>/dev/null || true
    die "qemu could not boot the ${name:-first} guest (qemu exit status $qemu_status): the end-to-end tests did NOT run"
  fi
  [ "$qemu_status" = 124 ] && say "the ${name:-first} guest ran out of time (E2E_TIMEOUT=${TIMEOUT}s)"
  sent=$(sed -n 's/.*e2e-guest: results: \([0-9]*\) bytes.*/\1/p' "$console" | tail -1)
  got=$(stat -c %s "$port" 2>/dev/null || echo 0)
  [ -z "$sent" ] || [ "$got" -ge "$sent" ] || say "the ${name:-first} guest sent $sent bytes of results, the host got $got"
  if [ ! -s "$port" ] || ! tar -C "$RUN/results" -xzf "$port" 2>/dev/null; then
    die "the ${name:-first} guest sent no results (qemu exit status $qemu_status; see $console)"
  fi
  say "the ${name:-first} guest ran in $(( SECONDS - t ))s; whole run $(elapsed $T_START)"
}
if [ -n "$FIRST_BOOT" ]; then
  boot "" "$RUN/initrd.cpio" 1536 "e2e.scenarios=$FIRST_BOOT"
fi
# systemd is PID 1 from the kernel on, and starts the scenario when the system is up. The guest's disk is the
# initramfs's tmpfs, which the kernel caps at half the memory: it holds the root file system (~320 MB), the
# packages (~95 MB each from the debug build) and, during the upgrade, the installed files twice (the old and the
# .dpkg-new copies, ~240 MB each): over the 1 GB that 2 GB would give. 3 GB gives 1.5 GB; TCG allocates only
# what the guest touches.
# No login prompt (but by hand, E2E_SHELL=1): agetty makes /run/agetty.reload when it gets to its prompt, which on a
# loaded host can be after the scenario's first look at the file system, and the purge's check would count it.
if wants 11; then
  no_getty=" systemd.mask=getty.target"
  [ "${E2E_SHELL:-0}" = 1 ] && no_getty=""
  boot package "$RUN/initrd-package.cpio" 3072 \
    "rdinit=/lib/systemd/systemd systemd.unit=e2e-package.target systemd.show_status=false e2e.scenarios=11$no_getty"
fi

# ---- verdict ----------------------------------------------------------------------------------------------
scripts/e2e/check.py "$RUN" --scenarios "$SCENARIOS" --expect-fail "${E2E_EXPECT_FAIL:-}" \
  --guest-seconds "$GUEST_SECONDS" --total-seconds $(( SECONDS - T_START ))
