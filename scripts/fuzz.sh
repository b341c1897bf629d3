#!/usr/bin/env bash
# Fuzzes EdgeSwipe's parsers and request handling with libFuzzer (AddressSanitizer on), each target from its
# committed seed corpus, for a time or a number of executions, and prints what each run reached.
#
#   scripts/fuzz.sh [-t SECONDS] [-n RUNS] [-c CPU-SECONDS] [-j JOBS] [--fresh] [TARGET...] [-- LIBFUZZER-FLAG...]
#   scripts/fuzz.sh SECONDS [TARGET...]         # the short form: SECONDS per target (CI: scripts/fuzz.sh 30)
#   scripts/fuzz.sh --list                      # the targets, their input caps and seed counts
#   scripts/fuzz.sh --merge [TARGET...]         # fold what long runs learnt into Fuzz/corpus/<target>/found-* (to commit)
#
#   -t SECONDS   per target (libFuzzer -max_total_time; default 60 unless -n is given)
#   -n RUNS      executions per target (-runs); with -t too, whichever comes first (the long runs:
#                scripts/fuzz.sh -n 10000000 -t 7200: 10 million executions or 2 hours a target)
#   -c SECONDS   CPU seconds per target: the fuzzer is interrupted (SIGINT, which it ends on cleanly) once it has
#                used that much processor time, however long that takes on a shared machine (the long runs:
#                scripts/fuzz.sh -n 10000000 -c 7200: 10 million executions or 2 CPU hours a target; one job only)
#   -j JOBS      parallel fuzzing processes per target (-jobs/-workers; default FUZZ_JOBS or 1)
#   --fresh      start from the committed corpus only, forgetting what earlier runs added (for measurements)
#   --merge      run nothing: for each target, add to Fuzz/corpus/<target>/ the inputs of $FUZZ_SCRATCH/corpus/<target>
#                that reach a coverage edge the committed corpus and regressions do not, as found-<SHA-1> (libFuzzer's
#                -merge=1 with -use_counters=0: edges, not hit counts, so a 3,500-input run folds into a few hundred
#                small files)
#
# Targets (all by default):
#   protocol-line          LineFramer + RequestDecoder (+ JSONValue, error encoding): every byte a client sends
#   evemu-parse            the evemu parser alone, and Evemu.write round trips of what it accepts
#   evemu-play             evemu text that parses, played through the recording player and an engine
#   libinput-record-parse  the `libinput record` YAML parser alone
#   libinput-record-play   `libinput record` YAML that parses, played through the player and an engine
#   config                 the TOML configuration parser and its rendering round trip
#   config-play            a configuration that parses, driving an engine through the demo's swipes
#   evdev-frames           EvdevFrameDecoder on random event sequences (SYN_DROPPED, out-of-range values), + engine
#   web-request            the web bridge's judgement of a page's message (PageRequest) against the protocol's decoder
#   requests-play          daemon requests (control ops, set-rotation, status) applied as the daemon applies them,
#                          between touches, device changes and ticks, through RotationControl and an engine
#   swipe-play             multi-finger swipes (random fingers, directions, timing, devices, swipe bindings, libinput's
#                          touchpad gestures) through an engine
#   session-stream         the daemon's stream as the session reads it: ServerMessage(line:) with its ranges, StreamState
#                          and the rule matcher (at most one firing per transition and phase, memory bounded)
#   session-rules          the session's rules file (session.toml): an error names its line, or rules come out
#   sway-ipc               i3 IPC frames in any chunks, sway's command replies, its tree and window events
#   niri-replies           niri's reply lines and event stream (windows and focus, bounded)
#   hyprland-replies       Hyprland's replies and events, and the workspace request around any output's name
#
# Parse and play are separate targets: a parser input costs microseconds, a played one a whole engine run, and
# together the parser got a few dozen executions a second. Each target's input is capped (-max_len, the table
# below) where a longer input only repeats what a shorter one explores: a few swipes' worth of events for the
# play targets, a few KB of text for the parsers.
#
# Seeds: Fuzz/corpus/<target>/ (committed, small: slices of real recordings, the protocol's examples, the shipped
# configuration; Fuzz/corpus/make-corpus writes them) and Fuzz/Regressions/<family>/ (every input that once
# crashed). Fuzz/corpus/<target>/found-* are what long runs found, folded in by --merge (they need not parse: the
# seed tests skip them, and the parsers' regression tests replay them). What a run learns stays in
# $FUZZ_SCRATCH/corpus/<target> for the next run (--fresh forgets it).
#
# At the end of each target it prints one line, and at the end a Markdown table for docs/TESTING.md: executions,
# wall time, executions per second of wall time and per CPU-second (the machine is shared: the CPU figure does not
# depend on the load), libFuzzer's final `cov:` (coverage points) and `ft:` (features), the corpus at the end, and
# findings. A finding (crash, leak, timeout, out-of-memory) is saved in $FUZZ_SCRATCH/artifacts/<target>/ and the
# script exits 1: copy the input to Fuzz/Regressions/<family>/ and add a test that replays it
# (Tests/*/FuzzRegressionTests.swift replay those folders).
#
# How it builds (a SwiftPM executable target built with -sanitize=fuzzer does not link, see FIELD-NOTES): SwiftPM
# compiles the library targets with coverage and AddressSanitizer (`-Xswiftc -sanitize=fuzzer,address`) into their
# own scratch path; swiftc then compiles each harness in Fuzz/Targets (plus Fuzz/Support) against those modules
# and links it with their object files and libFuzzer's main.
#
# Environment: FUZZ_SCRATCH (default .build-fuzz), FUZZ_JOBS, FUZZ_SKIP_BUILD=1 to reuse the built fuzzers,
# FUZZ_CONFIG=release (default) or debug. A debug (-Onone) build (coverage instrumentation and AddressSanitizer work
# the same) builds ~80 s faster cold on 2 cores but executes about a quarter of the inputs a second;
# docs/TESTING.md has the measurements. CI uses release.
set -euo pipefail
cd "$(dirname "$0")/.."

# name | harness files (Fuzz/..., or Sources/... compiled in) | -max_len | regressions family [| -rss_limit_mb, 2048 if absent]
# `config`'s limit is higher because TOMLKit, the test-only oracle it compares our reader with, leaks about 100
# bytes per text it refuses (its `TOMLTable(string:)` error path; LeakSanitizer puts every leak of the target in
# TOMLKit's frames): over millions of executions that passed 2 GB and libFuzzer called it out of memory.
# The session's rules and matcher, compiled into the harnesses that need them (their module links the client's event
# loop, which the fuzz build does not build).
SESSION_MODEL="Sources/EdgeSwipeSessionModel/RuleMatcher.swift Sources/EdgeSwipeSessionModel/SessionRules.swift Sources/EdgeSwipeSessionModel/PlasmaDefaults.swift Sources/EdgeSwipeSessionModel/KeyChord.swift Sources/EdgeSwipeSessionModel/OverlaySettings.swift"
TARGET_TABLE="
protocol-line|Targets/ProtocolLine.swift|4096|protocol-line
evemu-parse|Targets/EvemuParse.swift Support/RecordingChecks.swift|4096|evemu
evemu-play|Targets/EvemuPlay.swift Support/EngineChecks.swift|8192|evemu
libinput-record-parse|Targets/LibinputRecordParse.swift Support/RecordingChecks.swift|4096|libinput-record
libinput-record-play|Targets/LibinputRecordPlay.swift Support/EngineChecks.swift|8192|libinput-record
config|Targets/ConfigParse.swift ../Tests/EdgeSwipeTOMLTests/TOMLKitOracle.swift|4096|config|8192
config-play|Targets/ConfigPlay.swift Support/EngineChecks.swift|4096|config
evdev-frames|Targets/EvdevFrames.swift Support/EngineChecks.swift Support/FuzzBytes.swift|2048|evdev-frames
web-request|Targets/WebRequest.swift Sources/EdgeSwipeWeb/PageRequest.swift|4096|web-request
requests-play|Targets/RequestsPlay.swift Support/EngineChecks.swift Support/FuzzBytes.swift Support/StateChecks.swift|2048|requests
swipe-play|Targets/SwipePlay.swift Support/EngineChecks.swift Support/FuzzBytes.swift Support/StateChecks.swift|1024|swipe
session-stream|Targets/SessionStream.swift $SESSION_MODEL Sources/EdgeSwipeClient/StreamState.swift|8192|session-stream
session-rules|Targets/SessionRulesParse.swift $SESSION_MODEL|4096|session-rules
sway-ipc|Targets/SwayIPCReplies.swift Sources/EdgeSwipeSessionModel/CompositorWire.swift $SESSION_MODEL|4096|sway-ipc
niri-replies|Targets/NiriReplies.swift Sources/EdgeSwipeSessionModel/CompositorWire.swift $SESSION_MODEL|4096|niri-replies
hyprland-replies|Targets/HyprlandReplies.swift Sources/EdgeSwipeSessionModel/CompositorWire.swift $SESSION_MODEL|1024|hyprland-replies
"
ALL_TARGETS=($(awk -F'|' 'NF { print $1 }' <<< "$TARGET_TABLE"))
field() { awk -F'|' -v t="$1" -v f="$2" '$1 == t { print $f }' <<< "$TARGET_TABLE"; }
# A target's harness files, $SESSION_MODEL spelled out.
harness_files() { local files; files=$(field "$1" 2); echo "${files//\$SESSION_MODEL/$SESSION_MODEL}"; }

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 64; }

TIME=""
RUNS=""
CPU_LIMIT=""
JOBS=${FUZZ_JOBS:-1}
FRESH=0
MERGE=0
TARGETS=()
EXTRA=()
if [[ "${1:-}" =~ ^[0-9]+$ ]]; then TIME=$1; shift; fi
while [ $# -gt 0 ]; do
  case "$1" in
    -t) [[ "${2:-}" =~ ^[0-9]+$ ]] || usage; TIME=$2; shift 2 ;;
    -n) [[ "${2:-}" =~ ^[0-9]+$ ]] || usage; RUNS=$2; shift 2 ;;
    -c) [[ "${2:-}" =~ ^[0-9]+$ ]] || usage; CPU_LIMIT=$2; shift 2 ;;
    -j) [[ "${2:-}" =~ ^[0-9]+$ ]] || usage; JOBS=$2; shift 2 ;;
    --fresh) FRESH=1; shift ;;
    --merge) MERGE=1; shift ;;
    --list)
      for t in "${ALL_TARGETS[@]}"; do
        printf '%-22s max_len %5s  seeds %3s  regressions %s\n' "$t" "$(field "$t" 3)" \
          "$(find "Fuzz/corpus/$t" -type f 2>/dev/null | wc -l)" "$(find "Fuzz/Regressions/$(field "$t" 4)" -type f 2>/dev/null | wc -l)"
      done
      exit 0 ;;
    -h|--help) usage ;;
    --) shift; EXTRA=("$@"); break ;;
    -*) usage ;;
    *) [ -n "$(field "$1" 2)" ] || { echo "scripts/fuzz.sh: unknown target '$1' (known: ${ALL_TARGETS[*]})" >&2; exit 64; }
       TARGETS+=("$1"); shift ;;
  esac
done
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=("${ALL_TARGETS[@]}")
# Several limits may be given: the run stops at whichever comes first.
[ -n "$TIME$RUNS$CPU_LIMIT" ] || TIME=60
if [ -n "$CPU_LIMIT" ] && [ "$JOBS" -gt 1 ]; then echo "scripts/fuzz.sh: -c counts one process's CPU time: use it with -j 1" >&2; exit 64; fi
LIMIT=()
LIMIT_TEXT=""
[ -z "$TIME" ] || { LIMIT+=(-max_total_time="$TIME"); LIMIT_TEXT="$TIME s"; }
[ -z "$RUNS" ] || { LIMIT+=(-runs="$RUNS"); LIMIT_TEXT="${LIMIT_TEXT:+$LIMIT_TEXT or }$RUNS executions"; }
[ -z "$CPU_LIMIT" ] || LIMIT_TEXT="${LIMIT_TEXT:+$LIMIT_TEXT or }$CPU_LIMIT CPU-s"
# libFuzzer's exit status when interrupted (its -interrupted_exitcode): the end of a run that -c stopped.
INTERRUPTED=72
SCRATCH=${FUZZ_SCRATCH:-.build-fuzz}
# Absolute, so that a run (which may change to the logs' folder for -jobs) finds its fuzzers wherever FUZZ_SCRATCH is.
case "$SCRATCH" in /*) ;; *) SCRATCH="$(pwd)/$SCRATCH" ;; esac
CONFIG=${FUZZ_CONFIG:-release}
case "$CONFIG" in
  release) OPT=-O ;;
  debug) OPT=-Onone ;;
  *) echo "scripts/fuzz.sh: FUZZ_CONFIG must be release or debug, not '$CONFIG'" >&2; exit 64 ;;
esac
BIN="$SCRATCH/fuzzers"

source scripts/deps.sh 2>/dev/null || true

# The objects of a module's latest build: a Swift module's from its output file map, since a source file that moved
# to another module leaves its old object behind in a reused scratch (two definitions, or one of a type since renamed);
# a C module's (no map) every object.
module_objects() {
  if [ -f "$1/output-file-map.json" ]; then
    # (The map's module-wide entry may name an object that only a whole-module build writes: objects that exist.)
    python3 -c 'import json, os, sys
for entry in json.load(open(sys.argv[1])).values():
    if "object" in entry and os.path.exists(entry["object"]): sys.stdout.write(entry["object"] + "\0")' "$1/output-file-map.json"
  else
    find "$1" -name '*.o' -print0
  fi
}

build() {
  local flags=(-c "$CONFIG" --scratch-path "$SCRATCH" -Xswiftc -sanitize=fuzzer,address)
  echo "fuzz: building the libraries ($CONFIG) with -sanitize=fuzzer,address in $SCRATCH" >&2
  swift build "${flags[@]}" --target EdgeSwipeConfig >&2      # Vocabulary, Core, System, TOML, Config and their dependencies
  swift build "${flags[@]}" --target TOMLKit >&2              # the oracle `config` compares our TOML reader with
  swift build "${flags[@]}" --target EdgeSwipeRecordings >&2  # and EdgeSwipeInput
  swift build "${flags[@]}" --target EdgeSwipeEngineWire >&2  # and EdgeSwipeProtocol
  local release="$SCRATCH/$CONFIG"
  local objects=()
  local module
  for module in EdgeSwipeVocabulary EdgeSwipeCore EdgeSwipeFingerScript EdgeSwipeSystem EdgeSwipeInput EdgeSwipeRecordings EdgeSwipeTOML \
                EdgeSwipeConfig EdgeSwipeProtocol EdgeSwipeEngineWire RealModule _NumericsShims \
                SystemPackage CSystem TOMLKit CTOML Logging; do
    [ -d "$release/$module.build" ] || continue
    while IFS= read -r -d '' o; do objects+=("$o"); done < <(module_objects "$release/$module.build")
  done
  # The C modules the Swift modules were built against (clients of a Swift module load them too).
  local modulemaps=(-Xcc -fmodule-map-file=Sources/CInput/module.modulemap
    -Xcc -fmodule-map-file=Sources/CYAML/module.modulemap
    -Xcc -fmodule-map-file=Sources/CSystemCalls/module.modulemap
    -Xcc -fmodule-map-file=Sources/CXKBCommon/module.modulemap)
  local flag
  for flag in $(pkg-config --cflags-only-I libinput libevdev libudev yaml-0.1 xkbcommon); do modulemaps+=(-Xcc "$flag"); done
  local c
  for c in _NumericsShims CTOML CSystem; do
    while IFS= read -r -d '' m; do
      modulemaps+=(-Xcc -fmodule-map-file="$m" -Xcc -I"$(dirname "$m")")
    done < <(find "$SCRATCH/checkouts" -path "*/Sources/$c/*" -name module.modulemap -print0)
  done
  mkdir -p "$BIN"
  local package_name
  package_name=$(basename "$PWD" | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9_]/_/g')
  local target harness
  for target in "${TARGETS[@]}"; do
    echo "fuzz: linking $BIN/$target" >&2
    harness=()
    # Fuzz/... files, and a source file of a module the fuzz build does not build (the web bridge's request
    # path: its module links an HTTP server) compiled in whole.
    for f in $(harness_files "$target"); do
      case "$f" in Sources/*) harness+=("$f") ;; *) harness+=("Fuzz/$f") ;; esac
    done
    # The harness joins the package's modules (sources compiled in use `package` declarations): SwiftPM names the root
    # package after its folder, lowercased, other characters as `_`.
    swiftc "$OPT" -sanitize=fuzzer,address -parse-as-library -swift-version 6 -package-name "$package_name" \
      -I "$release/Modules" -I "$release" \
      "${modulemaps[@]}" \
      "${harness[@]}" "${objects[@]}" \
      $(pkg-config --libs libinput libevdev libudev yaml-0.1 xkbcommon) -lstdc++ \
      -o "$BIN/$target"
  done
}

# CPU seconds this shell's finished children have used (they are waited for, so their time is counted here).
children_cpu() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.1f", ($16 + $17) / hz }' /proc/$$/stat; }
thousands() { sed ':a; s/\B[0-9]\{3\}\>/,&/; ta' <<< "$1"; }

# --merge: the inputs a run's corpus adds to what is committed, by coverage edge, copied into Fuzz/corpus/<target>/.
merge_corpora() {
  local target work before added
  for target in "${TARGETS[@]}"; do
    [ -x "$BIN/$target" ] || { echo "fuzz: $BIN/$target is not built (run scripts/fuzz.sh -t 1 $target first)" >&2; exit 1; }
    [ -d "$SCRATCH/corpus/$target" ] || { echo "fuzz: $target: no run's corpus in $SCRATCH/corpus/$target" >&2; continue; }
    work=$(mktemp -d)
    mkdir -p "Fuzz/corpus/$target"
    # Everything committed goes in first, so only inputs that reach a new edge are added.
    find "Fuzz/corpus/$target" "Fuzz/Regressions/$(field "$target" 4)" -type f \
      -exec cp -t "$work" {} + 2>/dev/null || true
    before=$(ls "$work" | sort)
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 \
      "$BIN/$target" -merge=1 -use_counters=0 -max_len="$(field "$target" 3)" -rss_limit_mb=4096 \
      "$work" "$SCRATCH/corpus/$target" > "$SCRATCH/logs/$target.merge.log" 2>&1 \
      || { echo "fuzz: $target: the merge failed (log: $SCRATCH/logs/$target.merge.log)" >&2; rm -rf "$work"; exit 1; }
    added=0
    while IFS= read -r f; do cp "$work/$f" "Fuzz/corpus/$target/found-$f"; added=$((added + 1)); done \
      < <(comm -13 <(printf '%s\n' "$before") <(ls "$work" | sort))
    rm -rf "$work"
    echo "fuzz: $target: $added input(s) with new coverage edges added to Fuzz/corpus/$target as found-* ($(grep -h 'new coverage edges' "$SCRATCH/logs/$target.merge.log" | sed 's/.*: //'))" >&2
  done
}
if [ "$MERGE" = 1 ]; then mkdir -p "$SCRATCH/logs"; merge_corpora; exit 0; fi

if [ "${FUZZ_SKIP_BUILD:-0}" != 1 ]; then build; fi

status=0
rows=()
root=$(pwd)
for target in "${TARGETS[@]}"; do
  [ -x "$BIN/$target" ] || { echo "fuzz: $BIN/$target is not built (run without FUZZ_SKIP_BUILD=1)" >&2; exit 1; }
  family=$(field "$target" 4)
  max_len=$(field "$target" 3)
  rss_limit=$(field "$target" 5)
  corpus="$SCRATCH/corpus/$target"
  artifacts="$SCRATCH/artifacts/$target"
  [ "$FRESH" = 1 ] && rm -rf "$corpus"
  mkdir -p "$corpus" "$artifacts" "$SCRATCH/logs"
  seeds=()
  for d in "Fuzz/corpus/$target" "Fuzz/Regressions/$family"; do [ -d "$d" ] && seeds+=("$root/$d"); done
  log="$SCRATCH/logs/$target.log"
  stamp="$SCRATCH/logs/$target.started"
  touch "$stamp"   # artifacts of earlier runs stay, but only this run's count
  echo "fuzz: $target for $LIMIT_TEXT, inputs up to $max_len bytes (log: $log)" >&2
  parallel=()
  # With -jobs, libFuzzer writes each job's output to fuzz-N.log in the working directory: run it in the logs'.
  if [ "$JOBS" -gt 1 ]; then
    parallel=(-jobs="$JOBS" -workers="$JOBS" -fork=0)
    rm -f "$SCRATCH"/logs/fuzz-*.log
  fi
  cpu_before=$(children_cpu)
  started=$SECONDS
  set +e
  (
    [ "$JOBS" -gt 1 ] && cd "$(dirname "$log")"
    # Swift's own crash backtracer reads the crashed process's memory, which AddressSanitizer reports as an
    # overflow of its own: turn it off so a trap shows the Swift message instead.
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 \
      "$BIN/$target" "$corpus" ${seeds[@]+"${seeds[@]}"} \
      ${LIMIT[@]+"${LIMIT[@]}"} -max_len="$max_len" -timeout=10 -rss_limit_mb="${rss_limit:-2048}" \
      ${parallel[@]+"${parallel[@]}"} -print_final_stats=1 -artifact_prefix="$artifacts/" \
      -interrupted_exitcode=$INTERRUPTED ${EXTRA[@]+"${EXTRA[@]}"} &
    fuzzer=$!
    if [ -n "$CPU_LIMIT" ]; then
      # The fuzzer's own user and system time (fields 14 and 15 of /proc/PID/stat), every 5 s.
      (
        hz=$(getconf CLK_TCK)
        while sleep 5; do
          used=$(awk -v hz="$hz" '{ print int(($14 + $15) / hz) }' "/proc/$fuzzer/stat" 2>/dev/null) || exit 0
          [ "$used" -ge "$CPU_LIMIT" ] && { echo "fuzz: $CPU_LIMIT CPU-s used: interrupting" >&2; kill -INT "$fuzzer"; exit 0; }
        done
      ) &
      watcher=$!
    fi
    wait "$fuzzer"
    rc=$?
    [ -z "${watcher:-}" ] || kill "$watcher" 2>/dev/null || true
    exit $rc
  ) > "$log" 2>&1
  rc=$?
  # Interrupted by -c (or by hand): the run's end, not a finding.
  [ "$rc" -eq "$INTERRUPTED" ] && rc=0
  set -e
  wall=$(( SECONDS - started ))
  cpu=$(awk -v a="$cpu_before" -v b="$(children_cpu)" 'BEGIN { printf "%.1f", b - a }')
  logs=("$log")
  # With -jobs, each job writes fuzz-N.log and the parent copies it into its own output as the job ends: count the
  # jobs' logs alone, or every execution is counted twice.
  [ "$JOBS" -gt 1 ] && logs=("$SCRATCH"/logs/fuzz-*.log)
  runs=$(cat "${logs[@]}" 2>/dev/null | grep -h 'stat::number_of_executed_units' | awk '{ s += $2 } END { print s + 0 }')
  # libFuzzer's last status line of each process: "#N DONE cov: C ft: F corp: U/SIZE ... exec/s: E rss: R".
  last=$(for l in "${logs[@]}"; do grep -h ' cov: ' "$l" 2>/dev/null | tail -1; done)
  cov=$(awk '{ for (i = 1; i < NF; i++) if ($i == "cov:" && $(i+1) > m) m = $(i+1) } END { print m + 0 }' <<< "$last")
  ft=$(awk '{ for (i = 1; i < NF; i++) if ($i == "ft:" && $(i+1) > m) m = $(i+1) } END { print m + 0 }' <<< "$last")
  corp=$(awk '{ for (i = 1; i < NF; i++) if ($i == "corp:") c = $(i+1) } END { print c }' <<< "$last")
  mkdir -p "$artifacts"   # a run that found nothing may leave it absent
  findings=$(find "$artifacts" -type f -newer "$stamp" \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  per_wall=$(awk -v r="$runs" -v w="$wall" 'BEGIN { printf "%d", (w > 0 ? r / w : 0) }')
  per_cpu=$(awk -v r="$runs" -v c="$cpu" 'BEGIN { printf "%d", (c > 0 ? r / c : 0) }')
  echo "fuzz: $target: $(thousands "$runs") executions in ${wall} s ($(thousands "$per_wall")/s; $(thousands "$per_cpu") per CPU-s of ${cpu} s), cov: $cov ft: $ft, corpus ${corp:-?}, $findings finding(s), exit $rc" >&2
  rows+=("| \`$target\` | $(thousands "$runs") | ${wall} s | $(thousands "$per_wall") | $(thousands "$per_cpu") | $cov | $ft | ${corp:-?} | $findings |")
  if [ "$rc" -ne 0 ] || [ "$findings" -ne 0 ]; then
    status=1
    echo "fuzz: $target FAILED (exit $rc); new artifacts in $artifacts (copy them to Fuzz/Regressions/$family/):" >&2
    find "$artifacts" -type f -newer "$stamp" >&2 || true
    grep -m 20 -E 'ERROR|Fatal error|precondition|SUMMARY' "$log" >&2 || true
  fi
done
echo
echo "fuzz: $LIMIT_TEXT per target, $JOBS job(s), $CONFIG build, load $(cut -d' ' -f1-3 /proc/loadavg) at the end"
echo "| target | executions | wall time | exec/s | exec per CPU-s | cov | ft | corpus (units/size) | findings |"
echo "|---|---:|---:|---:|---:|---:|---:|---|---:|"
printf '%s\n' "${rows[@]}"
exit $status
