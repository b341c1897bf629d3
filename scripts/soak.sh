#!/usr/bin/env bash
# The long soak: minutes of 240 Hz edge swipes (the demo at speed 2, looped) while 1,000 clients connect and
# disconnect, read slowly or not at all, send malformed and oversized lines and vanish mid-write, all over loopback
# Unix sockets. Asserts no crash, a complete and gap-free stream for every well-behaved client, and flat RSS and
# descriptor counts after warm-up. Then the two memory scenarios: 500 clients that subscribe at tick_hz 1000 and
# never read, held until the daemon cuts them off (at most 1 MB each at the worst moment, RSS back within 10 MB of
# the baseline once they are gone), and 20 rounds of 1,000 clients connecting and closing (RSS back within 10 MB).
# Bounded: it stops by itself.
#
#   scripts/soak.sh [MINUTES] [CONNECTIONS]      default: 5 minutes, 1000 connections
#
# It is Tests/edgeswipedTests/SoakTests.swift, which CI runs small as part of the suite (20 s and 300 connections;
# 100 stalled readers for 6 s; 2 rounds of 300), given the sizes here through EDGESWIPE_SOAK_SECONDS,
# EDGESWIPE_SOAK_CONNECTIONS, EDGESWIPE_SOAK_STALLED, EDGESWIPE_SOAK_STALLED_SECONDS, EDGESWIPE_SOAK_CHURN_ROUNDS
# and EDGESWIPE_SOAK_CHURN_CLIENTS (set any of them to change it). SCRATCH picks the build directory (default
# .build, shared with scripts/test).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh

MINUTES=${1:-5}
CONNECTIONS=${2:-1000}
SCRATCH=${SCRATCH:-.build}
REPORT=$(mktemp)
trap 'rm -f "$REPORT"' EXIT

swift build --build-tests --scratch-path "$SCRATCH"
seconds=$(awk "BEGIN { print int($MINUTES * 60) }")
echo "soak: $seconds s, $CONNECTIONS connections" >&2
EDGESWIPE_SOAK_SECONDS=$seconds EDGESWIPE_SOAK_CONNECTIONS=$CONNECTIONS EDGESWIPE_SOAK_REPORT=$REPORT \
  EDGESWIPE_SOAK_STALLED=${EDGESWIPE_SOAK_STALLED:-500} EDGESWIPE_SOAK_STALLED_SECONDS=${EDGESWIPE_SOAK_STALLED_SECONDS:-300} \
  EDGESWIPE_SOAK_CHURN_ROUNDS=${EDGESWIPE_SOAK_CHURN_ROUNDS:-20} EDGESWIPE_SOAK_CHURN_CLIENTS=${EDGESWIPE_SOAK_CHURN_CLIENTS:-1000} \
  timeout --signal=TERM $((seconds + 1800)) \
  swift test --skip-build --scratch-path "$SCRATCH" --filter 'edgeswipedTests.SoakTests'
cat "$REPORT"
