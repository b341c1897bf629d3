#!/usr/bin/env bash
# Runs the whole test suite under AddressSanitizer, ThreadSanitizer and UndefinedBehaviorSanitizer, each build in
# its own scratch path so that none disturbs the normal one, and LeakSanitizer on the daemon through a long soak.
# The daemon and edgeswipectl that the end-to-end tests run as subprocesses are built with the same sanitizer: a
# report there makes the daemon exit non-zero (ASan and UBSan abort; LeakSanitizer exits 23 at exit; TSan exits
# 66), which fails the test that ran it.
#
#   scripts/sanitizers.sh [address|thread|undefined|leaks]... [-- swift test arguments]
#
#     address    the suite under ASan, then a short LeakSanitizer check of the daemon (a replay, requests, a good
#                and a bad SIGHUP, SIGTERM)
#     thread     the suite under TSan
#     undefined  the suite with UBSan in every C and C++ module (see below)
#     leaks      LeakSanitizer on the daemon for a soak: 10 minutes of the demo replayed in a loop while 1,000
#                clients churn (hello and leave, malformed and oversized lines, vanishing mid-write, slow and
#                stalled readers); reuses the ASan build
#
#   default: address thread undefined leaks
#
# Environment: SANITIZER_SCRATCH_PREFIX (default .build-san-), SANITIZER_SOAK_SECONDS (default 600),
# SANITIZER_SOAK_CONNECTIONS (default 1000), extra `swift test` arguments after `--`.
#
# UndefinedBehaviorSanitizer: swiftc refuses `-sanitize=undefined` on Linux ("unsupported option"): its driver
# looks for `libclang_rt.ubsan-<arch>`, which LLVM has since renamed `ubsan_standalone`. Swift code needs it least
# (overflow, bounds and nil unwrapping trap already in every build), so the C and C++ code gets it from clang
# instead: `-Xcc/-Xcxx -fsanitize=undefined` for every C and C++ module built from source (toml++ in TOMLKit,
# SwiftNIO's C shims and llhttp), and the runtime linked through clang. libyaml, libinput, libevdev and libudev
# are Debian's shared libraries, not rebuilt here, so not instrumented. The script checks that those modules'
# objects really call the UBSan runtime. (Header-only C, such as the inline functions the Swift modules import
# from libinput's or swift-numerics' headers, is compiled by Swift's clang importer, which does not instrument.)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh

kinds=()
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --) shift; extra=("$@"); break ;;
    address|thread|undefined|leaks) kinds+=("$1"); shift ;;
    *) echo "usage: scripts/sanitizers.sh [address|thread|undefined|leaks]... [-- swift test arguments]" >&2; exit 64 ;;
  esac
done
[ ${#kinds[@]} -gt 0 ] || kinds=(address thread undefined leaks)
prefix=${SANITIZER_SCRATCH_PREFIX:-.build-san-}

# LeakSanitizer is off for the suite: the test runner itself (XCTest, Foundation, swift-testing) leaves
# process-lifetime allocations that it reports at exit. The daemon's leaks are checked on their own
# (daemon_leak_check, daemon_leak_soak), with TOMLKit's known leaks suppressed (scripts/lsan-suppressions.txt).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1}
# scripts/tsan-suppressions.txt: one known false positive of the (uninstrumented) Swift concurrency runtime.
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=0:exitcode=66:second_deadlock_stack=1:suppressions=$(pwd)/scripts/tsan-suppressions.txt}
# Any report stops the process: the test (or the daemon, and with it the test that started it) fails. One known
# report in TOMLKit is suppressed (scripts/ubsan-suppressions.txt says which and why).
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:print_stacktrace=1:report_error_type=1:suppressions=$(pwd)/scripts/ubsan-suppressions.txt}
# The daemon's options for the leak checks: LeakSanitizer on, a leak makes it exit 23.
DAEMON_LSAN_ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:exitcode=23:strict_string_checks=1"
DAEMON_LSAN_OPTIONS="suppressions=$(pwd)/scripts/lsan-suppressions.txt:print_suppressions=1:exitcode=23"

# `swift build`/`swift test` arguments for each kind.
flags_for() {
  case "$1" in
    address|thread) echo "--sanitize=$1" ;;
    undefined) echo "-Xcc -fsanitize=undefined -Xcxx -fsanitize=undefined" \
      "-Xswiftc -Xclang-linker -Xswiftc -fsanitize=undefined -Xswiftc -Xclang-linker -Xswiftc -fsanitize-link-c++-runtime" ;;
  esac
}

build() { # KIND SCRATCH
  local flags
  read -r -a flags <<< "$(flags_for "$1")"
  echo "sanitizers: building with $1 in $2" >&2
  swift build --build-tests "${flags[@]}" --scratch-path "$2"
}

# UBSan instruments at compile time: a module compiled without it would make a clean run mean nothing.
check_ubsan_instrumented() { # SCRATCH
  local module objects calls missing=()
  for module in CTOML CNIOLinux CNIOAtomics; do
    objects=$(find "$1/debug/$module.build" -name '*.o' 2>/dev/null)
    [ -n "$objects" ] || { missing+=("$module (not built)"); continue; }
    # shellcheck disable=SC2086
    calls=$(nm -u $objects 2>/dev/null | grep -c '__ubsan_handle_' || true)
    [ "$calls" -gt 0 ] || missing+=("$module")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "sanitizers: undefined: not instrumented: ${missing[*]}" >&2
    return 1
  fi
  echo "sanitizers: undefined: CTOML, CNIOLinux and CNIOAtomics call the UBSan runtime" >&2
}

# "N allocations, B bytes" from LeakSanitizer's "Suppressions used" table in FILE...
suppressed() {
  awk '/Suppressions used/ { on = 1; next } on && /^ *[0-9]+ +[0-9]+ / { n += $1; b += $2 } END { printf "%d allocations, %d bytes", n, b }' "$@"
}

# The ASan daemon through a replay with a client, a control request, a bad line, a good and a bad SIGHUP and
# SIGTERM, with LeakSanitizer on: exit 0 means no leak but TOMLKit's. Every step waits for the daemon's answer.
daemon_leak_check() { # SCRATCH
  local bin tmp status
  bin=$(swift build --show-bin-path --sanitize=address --scratch-path "$1")
  tmp=$(mktemp -d /tmp/es-leak-XXXXXX)
  printf '[daemon]\ntick_hz = 60\n' > "$tmp/c.toml"
  ASAN_OPTIONS=$DAEMON_LSAN_ASAN_OPTIONS LSAN_OPTIONS=$DAEMON_LSAN_OPTIONS \
    "$bin/edgeswiped" --socket "$tmp/d.sock" --config "$tmp/c.toml" --state-dir "$tmp/state" \
      --replay demo/edgeswipe-demo.evemu --speed 4 --wait-for-clients 1 > "$tmp/log" 2>&1 &
  local pid=$!
  status=0
  python3 - "$tmp" "$pid" <<'PY' || status=$?
import json, os, signal, socket, sys, time
tmp, pid = sys.argv[1], int(sys.argv[2])
deadline = time.monotonic() + 60
s = None
while s is None:
    try:
        s = socket.socket(socket.AF_UNIX); s.connect(tmp + "/d.sock")
    except OSError:
        s = None
        if time.monotonic() > deadline: sys.exit("the daemon never listened")
        time.sleep(0.05)  # polling for the socket, with the deadline above
s.settimeout(60)
f = s.makefile("rwb")
def until(what):
    for line in f:
        m = json.loads(line)
        if what(m): return m
    sys.exit("the daemon closed the connection early")
until(lambda m: m["type"] == "hello")
f.write(b'{"op":"push","id":1,"container":"app","scene":"detail"}\n{"op":"bogus","id":2}\n'); f.flush()
until(lambda m: m["type"] in ("reply", "error") and m.get("id") == 1)
until(lambda m: m["type"] == "error" and m.get("id") == 2)
os.kill(pid, signal.SIGHUP)
assert until(lambda m: m["type"] == "config")["result"] == "reloaded"
open(tmp + "/c.toml", "w").write("[#]\n"); os.kill(pid, signal.SIGHUP)
assert until(lambda m: m["type"] == "config")["result"] == "rejected"
os.kill(pid, signal.SIGTERM)
until(lambda m: m["type"] == "goodbye")
PY
  wait "$pid" || status=$?
  if [ "$status" -eq 0 ]; then
    echo "sanitizers: daemon leak check: no leaks (TOMLKit's suppressed: $(suppressed "$tmp/log"))" >&2
  else
    echo "sanitizers: daemon leak check FAILED (exit $status); log: $tmp/log" >&2
    grep -A12 -m3 'leak of' "$tmp/log" >&2 || tail -20 "$tmp/log" >&2
    return 1
  fi
  rm -rf "$tmp"
}

# LeakSanitizer on the daemon for the soak (Tests/edgeswipedTests/SoakTests.swift, as scripts/soak.sh runs it): the
# test runner keeps LeakSanitizer off, the daemon it starts gets it on (EDGESWIPE_DAEMON_ASAN_OPTIONS) and writes
# its report to a file. The soak's own checks hold too (nothing lost, descriptors flat; not RSS under ASan).
daemon_leak_soak() { # SCRATCH
  local seconds=${SANITIZER_SOAK_SECONDS:-600} connections=${SANITIZER_SOAK_CONNECTIONS:-1000} out status=0
  out=$(mktemp -d /tmp/es-lsan-soak-XXXXXX)
  echo "sanitizers: leaks: the ASan daemon with LeakSanitizer through a ${seconds} s soak, $connections churning clients (reports: $out)" >&2
  local started=$SECONDS
  EDGESWIPE_SANITIZER=address EDGESWIPE_SOAK_SECONDS=$seconds EDGESWIPE_SOAK_CONNECTIONS=$connections \
  EDGESWIPE_SOAK_REPORT=$out/soak-report \
  EDGESWIPE_DAEMON_ASAN_OPTIONS="$DAEMON_LSAN_ASAN_OPTIONS:log_path=$out/daemon" LSAN_OPTIONS=$DAEMON_LSAN_OPTIONS \
    timeout --signal=TERM $(( seconds + 900 )) \
    swift test --skip-build --sanitize=address --scratch-path "$1" --filter 'edgeswipedTests.SoakTests' \
    > "$out/test.log" 2>&1 || status=$?
  local reports leaks suppressed
  reports=$(find "$out" -name 'daemon.*' | sort)
  # shellcheck disable=SC2086
  leaks=$( [ -z "$reports" ] || grep -h -c 'ERROR: LeakSanitizer' $reports | awk '{ s += $1 } END { print s + 0 }')
  # shellcheck disable=SC2086
  suppressed=$( [ -z "$reports" ] || suppressed $reports)
  echo "sanitizers: leaks: $(cat "$out/soak-report" 2>/dev/null || echo 'no soak report')" >&2
  echo "sanitizers: leaks: $(( SECONDS - started )) s; daemon reports: ${leaks:-0} with leaks; suppressed (TOMLKit's, scripts/lsan-suppressions.txt): ${suppressed:-none}; soak exit $status" >&2
  if [ "$status" -ne 0 ] || [ "${leaks:-0}" -ne 0 ]; then
    echo "sanitizers: leaks FAILED; test log $out/test.log" >&2
    # shellcheck disable=SC2086
    [ -z "$reports" ] || grep -h -A14 -m5 'leak of' $reports >&2 || true
    grep -E 'Expectation failed|failed after' "$out/test.log" | head -20 >&2 || true
    return 1
  fi
  echo "sanitizers: leaks: clean (0 leaks)" >&2
}

status=0
for kind in "${kinds[@]}"; do
  if [ "$kind" = leaks ]; then
    scratch="${prefix}address"
    build address "$scratch"
    daemon_leak_soak "$scratch" || status=1
    continue
  fi
  scratch="$prefix$kind"
  export EDGESWIPE_SANITIZER=$kind   # the soak then skips its RSS bound (ASan's quarantine keeps freed memory)
  build "$kind" "$scratch"
  if [ "$kind" = undefined ]; then check_ubsan_instrumented "$scratch" || { status=1; continue; }; fi
  read -r -a flags <<< "$(flags_for "$kind")"
  echo "sanitizers: testing with $kind" >&2
  # Serially, as scripts/test does: sanitized daemons are slower still, and parallel suites starve their timeouts.
  if swift test --skip-build --no-parallel "${flags[@]}" --scratch-path "$scratch" ${extra[@]+"${extra[@]}"}; then
    echo "sanitizers: $kind: clean" >&2
  else
    echo "sanitizers: $kind: FAILED" >&2
    status=1
  fi
  if [ "$kind" = address ]; then daemon_leak_check "$scratch" || status=1; fi
done
exit $status
