#!/usr/bin/env bash
# Builds edgeswiped, the clients the client sections start (edgeswipe-session, edgeswipe-web) and edgeswipe-bench
# in release mode with the flags `make install` ships them with (in .build-bench, so it does not disturb the debug
# build), and runs the process-level benchmarks; extra arguments go to edgeswipe-bench. The JSON goes to stdout
# and, with BENCH_OUT=FILE, to that file too. See docs/PERFORMANCE.md.
#
#   scripts/bench.sh                    # the full run, about eight minutes: one JSON object
#   scripts/bench.sh --only pipeline    # one section
#   scripts/bench.sh --only session overlay web    # the clients: edgeswipe-session (+ its overlay on headless sway), edgeswipe-web
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH="${BENCH_SCRATCH:-.build-bench}"
# The flags of the build that `make install` ships (the static Swift runtime, packed relocations where glibc loads them).
read -r -a FLAGS <<< "$(make -s print-swift-build-flags)"
for product in edgeswiped edgeswipe-session edgeswipe-web edgeswipe-bench; do
  swift build -c release "${FLAGS[@]}" --scratch-path "$SCRATCH" --product "$product" >&2
done
if [ -n "${BENCH_OUT:-}" ]; then
  "$SCRATCH/release/edgeswipe-bench" --json "$@" | tee "$BENCH_OUT"
else
  exec "$SCRATCH/release/edgeswipe-bench" --json "$@"
fi
