#!/usr/bin/env bash
# Where the time goes: valgrind --tool=callgrind instruction counts per evdev event for each stage of the
# pipeline, on the synthetic 10-finger 240 Hz stream (docs/PERFORMANCE.md).
#
# Each stage runs twice under callgrind, over N and 2N evdev events' worth of work; the setup (generating and
# decoding the stream) is the same in both, so (Ir(2N) - Ir(N)) / N is the stage's cost per evdev event.
# Instruction counts do not depend on the machine's load, so they repeat exactly.
#
#   scripts/bench-callgrind.sh [N]        # N defaults to 20000
#
# Needs valgrind (apt-get install valgrind) and builds edgeswipe-bench in release mode under .build-bench
# (BENCH_SCRATCH to use another build folder).
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-20000}"
SCRATCH="${BENCH_SCRATCH:-.build-bench}"
command -v valgrind >/dev/null || { echo "bench-callgrind: valgrind is not installed (apt-get install valgrind)" >&2; exit 69; }
# BENCH_NO_BUILD=1 uses the binary already in $SCRATCH.
[ -n "${BENCH_NO_BUILD:-}" ] || swift build -c release --scratch-path "$SCRATCH" --product edgeswipe-bench >&2
OUT="$(mktemp -d /tmp/esb-callgrind-XXXXXX)"
trap 'rm -rf "$OUT"' EXIT
# valgrind 3.19 cannot read the DWARF 5 that Swift 6.3 emits ("unhandled dwarf2 abbrev form"), so profile a copy
# without debug info: the symbol tables still name every function.
cp "$SCRATCH/release/edgeswipe-bench" "$SCRATCH/release/libMallocInterposerSwift.so" "$OUT/"
strip --strip-debug "$OUT/edgeswipe-bench" "$OUT/libMallocInterposerSwift.so"
BIN="$OUT/edgeswipe-bench"

total_ir() {  # the "summary:" (or "totals:") line of a callgrind output file
  awk '/^summary:/ {print $2; exit} /^totals:/ {t=$2} END {if (t) print t}' "$1" | head -1
}

printf '%-10s %14s %14s %16s %s\n' stage "Ir(N)" "Ir(2N)" "Ir/evdev event" "per unit"
for stage in decode engine encode pipeline steady; do
  for n in "$N" "$((2 * N))"; do
    valgrind --tool=callgrind --callgrind-out-file="$OUT/$stage.$n.out" "$BIN" --profile "$stage" --events "$n" \
      >"$OUT/$stage.$n.json" 2>"$OUT/$stage.$n.log" || { cat "$OUT/$stage.$n.log" >&2; exit 70; }
  done
  a=$(total_ir "$OUT/$stage.$N.out"); b=$(total_ir "$OUT/$stage.$((2 * N)).out")
  units_a=$(sed -n 's/.*"units":\([0-9]*\).*/\1/p' "$OUT/$stage.$N.json")
  units_b=$(sed -n 's/.*"units":\([0-9]*\).*/\1/p' "$OUT/$stage.$((2 * N)).json")
  per_event=$(( (b - a) / N ))
  per_unit=$(( (b - a) / (units_b - units_a) ))
  case "$stage" in
    decode|pipeline) unit="per evdev event" ;;
    engine) unit="per frame ($((units_b - units_a)) frames)" ;;
    steady) unit="per frame of 10 motions (N frames)" ;;
    encode) unit="per message ($((units_b - units_a)) messages)" ;;
  esac
  printf '%-10s %14s %14s %16s %s: %s\n' "$stage" "$a" "$b" "$per_event" "$unit" "$per_unit"
  if [ "$stage" = pipeline ] || [ "$stage" = steady ]; then
    # The functions that cost most, inclusive of what they call, for the larger run (setup included).
    callgrind_annotate --inclusive=yes "$OUT/$stage.$((2 * N)).out" 2>/dev/null | sed -n '1,/^$/d; 1,40p' \
      > "$OUT/$stage.top.txt" || true
    cp "$OUT/$stage.top.txt" "/tmp/edgeswipe-callgrind-$stage-top.txt" 2>/dev/null || true
  fi
done
echo "top functions (inclusive, 2N run): /tmp/edgeswipe-callgrind-pipeline-top.txt, /tmp/edgeswipe-callgrind-steady-top.txt" >&2
