#!/usr/bin/env python3
"""e2e scenario 8: edgeswiped and lisgd side by side on one uinput touchscreen, in the guest (as root).

    side-by-side DIR --socket SOCK --gid GID --out OUT [--lisgd-size 1280x720]

DIR holds swipes.evemu and plan.json (scripts/e2e/make-scenarios.py). edgeswiped must already be serving SOCK. This
script creates the touchscreen from the recording's description (scripts/e2e/uinput-play.py does the uinput part),
waits for edgeswiped to announce it, starts two lisgd instances on its node (one with release-mode bindings, as
lisgd is normally run, one with pressed-mode bindings), then plays the swipes one at a time: each once both
daemons are done with the one before (edgeswiped's transition has ended, lisgd has run its command or not, and no
lisgd command is still running). It never judges; scripts/e2e/check.py does, on the host.

Clocks, all CLOCK_MONOTONIC:
- kernel: the timestamps evdev gives this script's own reader of the node, after EVIOCSCLOCKID(CLOCK_MONOTONIC)
  (the default for a reader that does not ask is CLOCK_REALTIME); the writer's time just before each write() is
  recorded too, as a check;
- edgeswiped: when a client (a process forked here, which connects with the socket's group as its effective gid)
  has read the line from the socket;
- lisgd: its bound command reads the kernel's monotonic clock from /proc/timer_list ("now at N nsecs") and
  appends it to a file. The command runs through sh, as every lisgd command does (system()).

Writes OUT/side-by-side.json: the device, the lisgd command lines, and for every swipe its plan, the kernel and
writer times of touch-down and lift, edgeswiped's lines for it (gesture began, its edge, finishing/cancelling, the
terminal phase, each with its read time) and each lisgd instance's command runs (time, what it reported).
"""
import argparse
import fcntl
import importlib.machinery
import json
import os
import socket
import struct
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
player = importlib.machinery.SourceFileLoader("uinput_play", os.path.join(HERE, "uinput-play.py")).load_module()

EV_KEY, BTN_TOUCH = 1, 0x14A
EVIOCSCLOCKID = (1 << 30) | (4 << 16) | (ord("E") << 8) | 0xA0
CLOCK_MONOTONIC = 1
# lisgd's gesture names for a swipe inward from each edge, and its edge letters.
INWARD = {"left": ("LR", "L"), "right": ("RL", "R"), "top": ("UD", "T"), "bottom": ("DU", "B")}


def log(msg):
    print(f"side-by-side: {msg}", file=sys.stderr, flush=True)


def wait_for(predicate, what, timeout, step=0.02):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            log(f"gave up waiting {timeout} s for {what}")
            return None
        time.sleep(step)


def client(sock_path, gid, out_path):
    """The forked edgeswiped client: every line it reads, with the monotonic time it read it."""
    os.setegid(gid)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sock_path)
    os.setegid(0)
    buf = b""
    with open(out_path, "w", buffering=1) as out:
        while True:
            data = s.recv(65536)
            t = time.monotonic_ns()
            if not data:
                break
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                out.write(f"{t}\t{line.decode(errors='replace')}\n")
    os._exit(0)


class StampedLines:
    """A file of `<ns>\\t<json>` lines, read incrementally."""

    def __init__(self, path):
        self.path, self.offset, self.items = path, 0, []

    def poll(self):
        try:
            with open(self.path) as f:
                f.seek(self.offset)
                chunk = f.read()
        except FileNotFoundError:
            return self.items
        end = chunk.rfind("\n")
        if end >= 0:
            for line in chunk[: end + 1].splitlines():
                t, _, text = line.partition("\t")
                try:
                    self.items.append((int(t), json.loads(text)))
                except ValueError:
                    pass
            self.offset += len(chunk[: end + 1].encode())
        return self.items


def lisgd_stamps(path):
    out = []
    try:
        with open(path) as f:
            for line in f:
                w = line.split()
                if len(w) >= 2 and w[0].isdigit():
                    out.append((int(w[0]), w[1]))
    except FileNotFoundError:
        pass
    return out


def children_of(pids):
    kids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if ppid in pids:
                kids.append(int(entry))
    return kids


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--socket", required=True)
    ap.add_argument("--gid", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--lisgd-size", default="1280x720")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    plan = json.load(open(os.path.join(a.dir, "plan.json")))
    d, frames = player.parse(os.path.join(a.dir, "swipes.evemu"))
    # One group of frames per swipe: from a BTN_TOUCH 1 frame to its BTN_TOUCH 0 frame.
    swipes, current = [], None
    for when, events in frames:
        if (EV_KEY, BTN_TOUCH, 1) in events:
            current = []
        if current is not None:
            current.append((when, events))
        if (EV_KEY, BTN_TOUCH, 0) in events and current is not None:
            swipes.append(current)
            current = None
    if len(swipes) != len(plan):
        raise SystemExit(f"side-by-side: {len(swipes)} swipes in the recording, {len(plan)} in the plan")

    es_path = os.path.join(a.out, "edgeswiped-client.tsv")
    pid = os.fork()
    if pid == 0:
        try:
            client(a.socket, a.gid, es_path)
        finally:
            os._exit(1)
    es = StampedLines(es_path)
    if not wait_for(lambda: any(m.get("type") == "hello" for _, m in es.poll()), "edgeswiped's hello", 60):
        raise SystemExit("side-by-side: no hello from edgeswiped")

    fd, node = player.create(d)
    with open(os.path.join(a.out, "node"), "w") as f:
        f.write(f"{node}\n{d.name}\n")
    announced = wait_for(lambda: next((m for _, m in es.poll() if m.get("type") == "device"
                                       and m.get("change") == "added" and m.get("name") == d.name), None),
                         f"edgeswiped to announce {d.name}", 60)
    if not announced:
        raise SystemExit("side-by-side: edgeswiped never announced the touchscreen")

    # Kernel timestamps of touch-down and lift, as evdev gives them to a reader that asked for CLOCK_MONOTONIC.
    kernel = []  # (value, ns)
    evfd = os.open(node, os.O_RDONLY)
    fcntl.ioctl(evfd, EVIOCSCLOCKID, struct.pack("i", CLOCK_MONOTONIC))

    def read_evdev():
        size = struct.calcsize("llHHi")
        while True:
            try:
                data = os.read(evfd, size * 64)
            except OSError:
                return
            if not data:
                return
            for i in range(0, len(data) - size + 1, size):
                sec, usec, typ, code, value = struct.unpack_from("llHHi", data, i)
                if typ == EV_KEY and code == BTN_TOUCH:
                    kernel.append((value, sec * 1_000_000_000 + usec * 1000))

    threading.Thread(target=read_evdev, daemon=True).start()

    # lisgd, as its man page describes it: -d the node, -w/-h the screen in pixels (its edge zone is 50 of them;
    # its distance threshold -t 125 and timeout -m 800 are left at their defaults). Release mode (R) is how lisgd
    # is normally bound; pressed mode (P) runs a command while the finger is still down, once it has moved -T
    # (default 60) pixels. The inward swipe from each edge is bound first; any other one-finger swipe in the same
    # direction is bound after it, to tell "no edge" from "nothing".
    width, height = a.lisgd_size.split("x")
    def stamp(tag, file):
        return "sed -n '/^now at /{s/^now at \\([0-9]*\\) nsecs.*/\\1 " + tag + "/p;q}' /proc/timer_list >> " + file
    lisgd = {}
    for mode in ("R", "P"):
        out = os.path.join(a.out, f"lisgd-{mode}.stamps")
        args = ["lisgd", "-d", node, "-w", width, "-h", height]
        for edge, (gesture, letter) in INWARD.items():
            args += ["-g", f"1,{gesture},{letter},*,{mode}," + stamp(edge, out)]
        for edge, (gesture, letter) in INWARD.items():
            args += ["-g", f"1,{gesture},*,*,{mode}," + stamp(f"{gesture}-not-{edge}-edge", out)]
        err = open(os.path.join(a.out, f"lisgd-{mode}.err"), "w")
        proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=err, stderr=err)
        lisgd[mode] = (proc, out, args)
    with open(os.path.join(a.out, "lisgd-commands.txt"), "w") as f:
        for mode, (_, _, args) in lisgd.items():
            f.write(mode + ": " + " ".join(repr(x) if (" " in x or "'" in x) else x for x in args) + "\n")
    # lisgd has opened the node once its libinput context holds it: /proc/PID/fd links to it.
    def lisgd_ready():
        for proc, _, _ in lisgd.values():
            if proc.poll() is not None:
                raise SystemExit(f"side-by-side: lisgd exited with {proc.returncode} "
                                 f"(see lisgd-*.err): {open(os.path.join(a.out, 'lisgd-R.err')).read()[-300:]}")
            try:
                if not any(os.readlink(f"/proc/{proc.pid}/fd/{x}") == node for x in os.listdir(f"/proc/{proc.pid}/fd")):
                    return False
            except OSError:
                return False
        return True
    if not wait_for(lisgd_ready, "both lisgd instances to open the touchscreen", 60):
        raise SystemExit("side-by-side: lisgd did not open the touchscreen")

    def terminals():
        return sum(1 for _, m in es.poll() if m.get("type") == "transition" and m.get("phase") in ("completed", "cancelled"))

    records = []
    lisgd_pids = {p.pid for p, _, _ in lisgd.values()}
    for i, (item, swipe) in enumerate(zip(plan, swipes)):
        n_es_before = len(es.poll())
        terminals_before = terminals()
        r_before = len(lisgd_stamps(lisgd["R"][1]))
        p_before = len(lisgd_stamps(lisgd["P"][1]))
        k_before = len(kernel)
        written = {}

        def stamp(events, t):
            if (EV_KEY, BTN_TOUCH, 1) in events:
                written["down"] = t
            if (EV_KEY, BTN_TOUCH, 0) in events:
                written["up"] = t

        player.play_frames(fd, swipe, stamp)
        # Done with this swipe: edgeswiped's transition has ended (or it never began: then its gesture failed or
        # nothing came within the wait), lisgd has run its release command (or not within the wait), and no
        # lisgd command is still running.
        ended = wait_for(lambda: terminals() > terminals_before, f"swipe {i + 1}: edgeswiped's transition to end", 30)
        wait_for(lambda: len(lisgd_stamps(lisgd["R"][1])) > r_before, f"swipe {i + 1}: lisgd (R) to act", 10 if ended else 2)
        wait_for(lambda: not children_of(lisgd_pids), f"swipe {i + 1}: lisgd's commands to finish", 30)
        wait_for(lambda: sum(1 for v, _ in kernel[k_before:] if v == 0) >= 1, f"swipe {i + 1}: the lift on the reader", 10)
        lines = es.poll()[n_es_before:]
        g = [(t, m) for t, m in lines if m.get("type") == "gesture"]
        tr = [(t, m) for t, m in lines if m.get("type") == "transition"]
        first_of = lambda seq, pred: next(({"t": t, **{k: m.get(k) for k in ("edge", "state", "phase", "percent", "seq")}}
                                           for t, m in seq if pred(m)), None)
        k = kernel[k_before:]
        records.append({
            "plan": item,
            "kernel_down": next((t for v, t in k if v == 1), None),
            "kernel_up": next((t for v, t in k if v == 0), None),
            "written_down": written.get("down"), "written_up": written.get("up"),
            "es_began": first_of(g, lambda m: m.get("state") == "began"),
            "es_gesture_end": first_of(g, lambda m: m.get("state") in ("ended", "cancelled", "failed")),
            "es_decision": first_of(tr, lambda m: m.get("phase") in ("finishing", "cancelling")),
            "es_terminal": first_of(tr, lambda m: m.get("phase") in ("completed", "cancelled")),
            "es_edges": sorted({m.get("edge") for _, m in g if m.get("edge")}),
            "lisgd_R": [{"t": t, "tag": tag} for t, tag in lisgd_stamps(lisgd["R"][1])[r_before:]],
            "lisgd_P": [{"t": t, "tag": tag} for t, tag in lisgd_stamps(lisgd["P"][1])[p_before:]],
        })
        log(f"swipe {i + 1}/{len(plan)} {item['edge']} {item['kind']}: edgeswiped "
            f"{(records[-1]['es_terminal'] or {}).get('phase')}, lisgd R {[x['tag'] for x in records[-1]['lisgd_R']]}")

    # What running such a command costs by itself, here and now: sh -c "<the same sed>" started with posix_spawn
    # (as glibc's system() does), from just before the spawn to the time the command reads. Under TCG a new process
    # is dear (its code must be translated afresh), so this is the part of lisgd's latency that is the price of
    # running any command rather than of recognizing the gesture.
    probe_file = os.path.join(a.out, "spawn-probe.stamps")
    spawn = []
    for i in range(10):
        t0 = time.monotonic_ns()
        child = os.posix_spawn("/bin/sh", ["sh", "-c", stamp(f"probe{i}", probe_file)], dict(os.environ))
        os.waitpid(child, 0)
        got = lisgd_stamps(probe_file)
        if got and got[-1][1] == f"probe{i}":
            spawn.append((got[-1][0] - t0) / 1e6)
    log(f"sh -c sed, spawn to stamp: {sorted(round(x) for x in spawn)} ms")

    for proc, _, _ in lisgd.values():
        proc.terminate()
    for proc, _, _ in lisgd.values():
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
    fcntl.ioctl(fd, player.UI_DEV_DESTROY)
    os.close(fd)
    os.close(evfd)
    result = {"device": d.name, "node": node, "lisgd_size": a.lisgd_size,
              "lisgd_commands": {m: args for m, (_, _, args) in lisgd.items()},
              "command_spawn_ms": spawn, "swipes": records}
    with open(os.path.join(a.out, "side-by-side.json"), "w") as f:
        json.dump(result, f, indent=1)
    # The client ends when edgeswiped says goodbye (the caller stops the daemon); don't wait for it here.
    log(f"{len(records)} swipes played")


if __name__ == "__main__":
    main()
