#!/usr/bin/env bash
# Checks that a change leaves the protocol output unchanged, byte for byte.
#
#   scripts/replay-compare.sh [BASE_REV]     (default BASE_REV: main)
#
# Builds `edgeswipectl` twice, from BASE_REV (in a temporary git worktree with a scratch path of its own) and
# from the working tree as it is (uncommitted changes included), then runs `edgeswipectl replay --json` with both
# on the same inputs and compares stdout, stderr and the exit status of every run, byte for byte:
#   - the bundled demo (demo/edgeswipe-demo.evemu of the working tree);
#   - every recording under ../shared/recordings: evemu `*.events`/`*.evemu` (an events-only file finds the
#     `.desc` beside it, as `edgeswipectl replay` does for a user) and `libinput-record/*.yaml`;
#   - all of those at once (one replay, several devices);
# each with the built-in configuration and with two more that take other paths through the engine (wider zones,
# spring, linear and fade run-outs, other thresholds and references, devices mounted rotated and calibrated, and
# zones so wide that nearly every touch is an edge swipe).
# Without ../shared (a user's clone) only the demo is compared, and the script says so.
#
# Exit status: 0 when every output is the same, 1 when any differs, 2 when a build or the setup failed.
#
# Environment:
#   REPLAY_COMPARE_CACHE   a folder to keep the base worktree and its build in between runs (an incremental
#                          build then costs seconds); default: a temporary folder, removed at the end
#   REPLAY_COMPARE_OUT     where to write every output (default: a temporary folder, kept only when outputs
#                          differ)
#   REPLAY_COMPARE_BUILD   debug (default) or release
#   REPLAY_COMPARE_RECORDINGS  the recordings folder (default: ../shared/recordings)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

base_rev=${1:-main}
build=${REPLAY_COMPARE_BUILD:-debug}
case "$build" in debug | release) ;; *) echo "replay-compare: REPLAY_COMPARE_BUILD must be debug or release" >&2; exit 2 ;; esac

base_commit=$(git rev-parse --verify --quiet "$base_rev^{commit}") || {
    echo "replay-compare: '$base_rev' is not a revision of this repository" >&2
    exit 2
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/replay-compare.XXXXXX")
cache=${REPLAY_COMPARE_CACHE:-$tmp/cache}
out=${REPLAY_COMPARE_OUT:-$tmp/out}
keep_out=0
base_tree="$cache/base"

cleanup() {
    if [ -z "${REPLAY_COMPARE_CACHE:-}" ]; then
        git worktree remove --force "$base_tree" >/dev/null 2>&1 || true
        rm -rf "$cache"
    fi
    git worktree prune >/dev/null 2>&1 || true
    # The outputs (and the build logs among them) stay when something differed or failed.
    if [ "$keep_out" = 1 ] || [ -n "${REPLAY_COMPARE_OUT:-}" ]; then
        rmdir "$tmp" 2>/dev/null || true
    else
        rm -rf "$tmp"
    fi
}
trap cleanup EXIT

# --- The base build: a detached worktree of BASE_REV with its own scratch path. -------------------------------
mkdir -p "$cache" "$out"
if [ -d "$base_tree/.git" ] || [ -f "$base_tree/.git" ]; then
    git -C "$base_tree" checkout --quiet --detach --force "$base_commit"
else
    git worktree add --quiet --detach "$base_tree" "$base_commit"
fi
# The same dependency versions for both builds, so that a difference can only come from our code.
if [ -f "$root/Package.resolved" ]; then cp "$root/Package.resolved" "$base_tree/Package.resolved"; fi

echo "replay-compare: building edgeswipectl ($build) at $base_rev (${base_commit:0:12}) ..."
if ! (cd "$base_tree" && swift build -c "$build" --product edgeswipectl --scratch-path "$cache/scratch" \
    >"$out/build-base.log" 2>&1); then
    tail -n 30 "$out/build-base.log" >&2
    echo "replay-compare: the base build failed (log: $out/build-base.log)" >&2
    keep_out=1
    exit 2
fi
base_bin="$(cd "$base_tree" && swift build -c "$build" --scratch-path "$cache/scratch" --show-bin-path)/edgeswipectl"

echo "replay-compare: building edgeswipectl ($build) from the working tree ..."
if ! swift build -c "$build" --product edgeswipectl >"$out/build-work.log" 2>&1; then
    tail -n 30 "$out/build-work.log" >&2
    echo "replay-compare: the working tree's build failed (log: $out/build-work.log)" >&2
    keep_out=1
    exit 2
fi
work_bin="$(swift build -c "$build" --show-bin-path)/edgeswipectl"

# --- The inputs. ------------------------------------------------------------------------------------------------
recordings=("$root/demo/edgeswipe-demo.evemu")
shared=${REPLAY_COMPARE_RECORDINGS:-$root/../shared/recordings}
if [ -d "$shared" ]; then
    shared=$(cd "$shared" && pwd)
    while IFS= read -r -d '' f; do recordings+=("$f"); done < <(
        find "$shared" -type f \( -name '*.events' -o -name '*.evemu' -o -path '*/libinput-record/*.yaml' \) -print0 | sort -z)
else
    echo "replay-compare: skipping the shared recordings: $shared is absent (a user's clone has no ../shared);" \
        "comparing the bundled demo only"
fi

mkdir -p "$out/configs"
# A configuration that takes other paths through the engine than the built-in one: touches further from the edge
# begin, a spring run-out, another animator, a fraction reference on touchpads, and devices mounted rotated and
# calibrated (Rotation and CalibrationMatrix, from the configuration down to the input layer).
cat >"$out/configs/wide-spring-rotated.toml" <<'EOF'
version = 1

[transition]
threshold = 0.4
flick_velocity = 0.2
completion_speed = 1.5
completion_curve = "spring"
spring_response_ms = 250

[transition.animator]
style = "cover"
duration_ms = 300
curve = "ease-out"

[touchscreen]
edge_zone_mm = 12.0
edge_zone_fraction = 0.08
hysteresis_mm = 1.0
angle_tolerance_deg = 40.0

[touchpad]
edge_zone_mm = 15.0
edge_zone_fraction = 0.12
reference = "fraction"
reference_fraction = 0.5

[[devices.override]]
match = "Wacom ISDv4 E6 Finger"
rotation = 90

[[devices.override]]
match = "touch_dev"
rotation = 180
calibration = [0.9, 0.0, 0.05, 0.0, 0.9, 0.05]

[[devices.override]]
match = "Wacom Intuos5 touch M Finger"
rotation = 270
EOF
# And one where nearly every touch is an edge swipe (the widest zones and angle the configuration allows), so that
# the recordings full of interior touches, scrolls and pinches drive transitions too, on linear and fade run-outs.
cat >"$out/configs/every-touch-an-edge.toml" <<'EOF'
version = 1

[transition]
threshold = 0.6
completion_curve = "linear"

[transition.animator]
style = "fade"
duration_ms = 500
curve = "ease-in"

[touchscreen]
edge_zone_mm = 30.0
edge_zone_fraction = 0.5
hysteresis_mm = 0.0
angle_tolerance_deg = 89.0
corner_along_deg = 0.0
velocity_window_ms = 60
deceleration = 0.99

[touchpad]
edge_zone_mm = 30.0
edge_zone_fraction = 0.5
hysteresis_mm = 0.5
angle_tolerance_deg = 89.0
corner_along_deg = 0.0
reference = "extent"
reference_cap_mm = 40.0
EOF
configs=("" "$out/configs/wide-spring-rotated.toml" "$out/configs/every-touch-an-edge.toml")

# --- Run and compare. -------------------------------------------------------------------------------------------
runs=0
differences=0
# run NAME CONFIG FILE...: replays FILE... with both builds and compares the outputs.
run() {
    local name=$1 config=$2
    shift 2
    local args=(replay --json)
    [ -n "$config" ] && args+=(--config "$config")
    args+=("$@")
    local side bin
    for side in base work; do
        if [ "$side" = base ]; then bin=$base_bin; else bin=$work_bin; fi
        local status=0
        "$bin" "${args[@]}" >"$out/$side/$name.stdout" 2>"$out/$side/$name.stderr" || status=$?
        echo "$status" >"$out/$side/$name.status"
    done
    runs=$((runs + 1))
    local what ok=1
    for what in stdout stderr status; do
        if ! cmp -s "$out/base/$name.$what" "$out/work/$name.$what"; then
            ok=0
            echo "DIFFERENT $name ($what): $(cmp "$out/base/$name.$what" "$out/work/$name.$what" 2>&1 | head -n 1)"
            diff "$out/base/$name.$what" "$out/work/$name.$what" | head -n 6 | sed 's/^/    /' || true
        fi
    done
    if [ "$ok" = 1 ]; then
        echo "same      $name ($(wc -l <"$out/work/$name.stdout") lines, exit $(cat "$out/work/$name.status"))"
    else
        differences=$((differences + 1))
    fi
}

mkdir -p "$out/base" "$out/work"
for config in "${configs[@]}"; do
    config_name=${config:+$(basename "$config" .toml)}
    config_name=${config_name:-built-in}
    for file in "${recordings[@]}"; do
        label=${file#"$shared"/}
        label=${label#"$root"/}
        run "$config_name--$(echo "$label" | tr '/ ' '__')" "$config" "$file"
    done
    if [ "${#recordings[@]}" -gt 1 ]; then
        run "$config_name--all-at-once" "$config" "${recordings[@]}"
    fi
done

echo
if [ "$differences" -eq 0 ]; then
    echo "replay-compare: $runs replays, byte for byte the same at $base_rev (${base_commit:0:12}) and in the working tree"
    exit 0
fi
keep_out=1
echo "replay-compare: $differences of $runs replays differ between $base_rev (${base_commit:0:12}) and the working tree"
echo "replay-compare: outputs kept in $out (base/ and work/)"
exit 1
