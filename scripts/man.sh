#!/usr/bin/env bash
# Writes the manual page of every tool Package.swift declares, from the built binaries' help
# (--experimental-dump-help, read by swift-argument-parser's generate-manual, built for this machine from the
# checkout SwiftPM already has: it is a target of that package, not a product).
#
#   scripts/man.sh BIN OUT [YYYY-MM-DD]     # BIN: the built tools; OUT: where the pages go; the date they carry
#
# `make man` writes them from the release build for `make install`; docs/man/ holds them for a clone
# (`man -l docs/man/edgeswiped.8`), written by `EDGESWIPE_WRITE_MAN=1 swift test --filter ManualPageTests`, and a test
# holds docs/man/ equal to what this writes. Daemons' pages go in section 8, the commands' in section 1.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: scripts/man.sh BIN OUT [YYYY-MM-DD]" >&2; exit 64; }
bin=$1 out=$2 date=${3:-}
scratch=${SCRATCH_DIR:-.build}
build=("${SWIFT:-swift}" build -c debug --package-path "$scratch/checkouts/swift-argument-parser" --scratch-path "$scratch/generate-manual" --product generate-manual)
"${build[@]}" >&2
generate="$("${build[@]}" --show-bin-path)/generate-manual"
mkdir -p "$out"
# Every tool but edgeswipe-clients, the multi-call binary the package installs the clients as (its links are the
# tools: make's TOOLDIR, or the tools' own builds in .build).
for product in $(sed -n 's/^ *[.]executable.name: "\([^"]*\)".*/\1/p' Package.swift | grep -vx edgeswipe-clients); do
  case " edgeswiped " in *" $product "*) section=8 ;; *) section=1 ;; esac
  "$generate" "$bin/$product" --section "$section" ${date:+--date "$date"} --output-directory "$out"
done
# A blank line in a command's discussion is a paragraph: mdoc's .Pp (groff warns about empty input lines).
sed -i 's/^$/.Pp/' "$out"/*.[18]
