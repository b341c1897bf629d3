#!/usr/bin/env bash
# Regenerates packaging/edgeswiped.symbol-order: the functions the shipped daemon runs, which the release link
# (Makefile, with the toolchain's lld) places together at the start of the code, so that the pages a running daemon
# touches are few and adjacent. The kernel maps a binary's code in 64 KB windows around each page touched
# (fault-around), so about 1.3 MB of functions scattered over 14 MB of code kept ~10 MB of it resident
# (docs/PERFORMANCE.md, "Memory").
#
# The list is what valgrind's callgrind saw the static release daemon execute while it started, replayed the bundled
# demo to 100 clients that connected, asked for status and read everything, and shut down. A function missing from
# the list still works; it is only placed elsewhere. Run this after changes that rename or add much code on the
# daemon's paths; names that no longer exist are ignored by the link.
#
#   scripts/symbol-order.sh            # builds the shipped daemon in .build-order, writes the list
#
# Needs valgrind (apt-get install valgrind).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "symbol-order: valgrind is not installed (apt-get install valgrind)" >&2; exit 69; }
SCRATCH="${ORDER_SCRATCH:-.build-order}"
read -r -a FLAGS <<< "$(make -s print-swift-build-flags)"
swift build -c release "${FLAGS[@]}" --scratch-path "$SCRATCH" --product edgeswiped >&2
OUT="$(mktemp -d /tmp/edgeswipe-order-XXXXXX)"
trap 'rm -rf "$OUT"' EXIT
# valgrind 3.19 cannot read the DWARF 5 that Swift 6.3 emits: profile a copy without debug info (the symbol table
# still names every function).
cp "$SCRATCH/release/edgeswiped" "$OUT/edgeswiped"
strip --strip-debug "$OUT/edgeswiped"
python3 - "$OUT" <<'PY'
import os, re, socket, subprocess, sys, time
out = sys.argv[1]
sock = os.path.join(out, "order.sock")
clients = 100
daemon = subprocess.Popen(
    ["valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={out}/callgrind.out",
     f"{out}/edgeswiped", "--replay", "demo/edgeswipe-demo.evemu", "--socket", sock, "--log-level", "warning",
     "--wait-for-clients", str(clients)],
    stdout=subprocess.DEVNULL, stderr=open(os.path.join(out, "valgrind.log"), "w"))
deadline = time.monotonic() + 300
while not os.path.exists(sock):
    if daemon.poll() is not None or time.monotonic() > deadline:
        sys.exit("symbol-order: the daemon did not start under valgrind: " + open(os.path.join(out, "valgrind.log")).read()[-2000:])
    time.sleep(0.1)
conns = []
for _ in range(clients):
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock)
    s.setblocking(False)
    conns.append(s)
conns[0].send(b'{"type":"status","id":1}\n')
while daemon.poll() is None and time.monotonic() < deadline:
    for s in conns:
        try:
            s.recv(1 << 16)
        except BlockingIOError:
            pass
    time.sleep(0.02)
if daemon.poll() is None:
    daemon.terminate()
    daemon.wait()
# Every function with a cost in the daemon's own object (callgrind names objects with "ob=" and functions with
# "fn=", each name given once and then referred to by its number).
objects, functions, names, current = {}, {}, set(), None
pattern = re.compile(r"^(ob|cob|fn|cfn)=\((\d+)\)(?: (.*))?$")
for line in open(os.path.join(out, "callgrind.out"), errors="replace"):
    m = pattern.match(line.rstrip("\n"))
    if not m:
        continue
    kind, number, name = m.groups()
    table = objects if kind in ("ob", "cob") else functions
    if name:
        table[number] = name
    if kind == "ob":
        current = objects[number]
    elif kind == "fn" and current and current.endswith("/edgeswiped"):
        names.add(functions[number])
names.discard("(below main)")
with open("packaging/edgeswiped.symbol-order", "w") as f:
    f.write("".join(n + "\n" for n in sorted(names)))
print(f"symbol-order: {len(names)} functions in packaging/edgeswiped.symbol-order", file=sys.stderr)
PY
