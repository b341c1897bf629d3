#!/usr/bin/env python3
"""Creates a uinput device from an evemu description and plays evemu events into it on an absolute schedule.

Runs inside the e2e guest (python3 standard library only). Unlike `evemu-play`, which sleeps each gap separately
and so stretches a replay by 10-25 % under TCG, every frame's deadline is computed from the first frame, so sleep
overshoot never accumulates: a late frame is written at once and the next one is on time again.

    uinput-play FILE [--desc DESC] [--node-file F] [--go-file G ...] [--stop-after-frames N]
                     [--hold-file H] [--report R]

- The device is created from the description inline in FILE (or from DESC), its event node and name are
  written to --node-file (two lines), and playback waits until --go-file exists (so the caller can first wait for a daemon to see it).
  Given more than once, the frames are played once per go-file, each time once that file exists: the same device
  swipes again after the caller has changed something (a rotation, the active session).
- With --stop-after-frames N only the first N frames (SYN_REPORT groups) are played: a gesture is left in flight.
- At the end the device is destroyed (UI_DEV_DESTROY); with --hold-file, only once that file has gone (to keep
  a keyboard or a touchscreen alive while another check runs).
- --report writes the schedule accuracy: frames, the recording's span, the played span, and the worst lateness
  (after every play, with the number of plays so far).
"""
import argparse
import fcntl
import os
import struct
import sys
import time

EV_SYN, EV_KEY, EV_REL, EV_ABS, EV_MSC, EV_SW, EV_LED, EV_SND, EV_REP, EV_FF = 0, 1, 2, 3, 4, 5, 0x11, 0x12, 0x14, 0x15
SYN_REPORT = 0


def _IOW(nr, size):
    return (1 << 30) | (size << 16) | (ord("U") << 8) | nr


UI_DEV_CREATE = (ord("U") << 8) | 1
UI_DEV_DESTROY = (ord("U") << 8) | 2
UI_DEV_SETUP = _IOW(3, 92)          # struct uinput_setup: input_id (4 x u16), name[80], u32 ff_effects_max
UI_ABS_SETUP = _IOW(4, 28)          # struct uinput_abs_setup: u16 code, (pad), input_absinfo (6 x s32)
UI_SET_BIT = {EV_SYN: None, EV_KEY: _IOW(101, 4), EV_REL: _IOW(102, 4), EV_ABS: _IOW(103, 4),
              EV_MSC: _IOW(104, 4), EV_LED: _IOW(105, 4), EV_SND: _IOW(106, 4), EV_SW: _IOW(109, 4)}
UI_SET_EVBIT = _IOW(100, 4)
UI_SET_PROPBIT = _IOW(110, 4)


def UI_GET_SYSNAME(length):
    return (2 << 30) | (length << 16) | (ord("U") << 8) | 44


class Description:
    def __init__(self):
        self.name = None
        self.ids = (0x03, 0, 0, 0)
        self.props = b""
        self.bits = {}
        self.abs = {}


def parse(path, desc=None):
    """Returns (Description, frames); frames is a list of (seconds, [(type, code, value), ...])."""
    d = desc or Description()
    frames, current, frame_time = [], [], None
    with open(path, encoding="utf-8", errors="replace") as f:
        for raw in f:
            line = raw.split("#", 1)[0].strip()
            if not line or ":" not in line:
                continue
            key, rest = line.split(":", 1)
            words = rest.split()
            if key == "N":
                d.name = rest.strip()
            elif key == "I":
                d.ids = tuple(int(w, 16) for w in words[:4])
            elif key == "P":
                d.props += bytes(int(w, 16) for w in words)
            elif key == "B":
                t = int(words[0], 16)
                d.bits.setdefault(t, bytearray()).extend(int(w, 16) for w in words[1:])
            elif key == "A":
                code = int(words[0], 16)
                vals = [int(w) for w in words[1:]] + [0] * 5
                d.abs[code] = vals[:5]  # min max fuzz flat resolution
            elif key == "E":
                sec = float(words[0])
                t, c, v = int(words[1], 16), int(words[2], 16), int(words[3])
                if frame_time is None:
                    frame_time = sec
                current.append((t, c, v))
                if t == EV_SYN and c == SYN_REPORT:
                    frames.append((frame_time, current))
                    current, frame_time = [], None
    if current:
        current.append((EV_SYN, SYN_REPORT, 0))
        frames.append((frame_time, current))
    return d, frames


def codes(bitmask):
    for i, byte in enumerate(bitmask):
        for bit in range(8):
            if byte & (1 << bit):
                yield i * 8 + bit


def create(d):
    fd = os.open("/dev/uinput", os.O_WRONLY | os.O_NONBLOCK)
    # The types the device has are the bits of `B: 00`; evemu also writes (empty) rows for types it lacks.
    types = set(codes(d.bits[EV_SYN])) if EV_SYN in d.bits else {t for t in d.bits if any(d.bits[t])}
    for t in sorted(types):
        if t in (EV_SYN, EV_FF):
            continue  # force feedback would need effects (ff_effects_max); no recording plays any
        fcntl.ioctl(fd, UI_SET_EVBIT, t)
        request = UI_SET_BIT.get(t)
        if request is None:
            continue
        for c in codes(d.bits.get(t, b"")):
            if t == EV_ABS and c not in d.abs:
                continue
            fcntl.ioctl(fd, request, c)
    for p in codes(d.props):
        fcntl.ioctl(fd, UI_SET_PROPBIT, p)
    for code, (lo, hi, fuzz, flat, res) in sorted(d.abs.items()):
        fcntl.ioctl(fd, UI_ABS_SETUP, struct.pack("=HH6i", code, 0, 0, lo, hi, fuzz, flat, res))
    name = (d.name or "uinput-play").encode()[:79]
    fcntl.ioctl(fd, UI_DEV_SETUP, struct.pack("=4H80sI", *d.ids, name, 0))
    fcntl.ioctl(fd, UI_DEV_CREATE)
    buf = bytearray(64)
    fcntl.ioctl(fd, UI_GET_SYSNAME(len(buf)), buf)
    sysname = bytes(buf).split(b"\0", 1)[0].decode()
    base = "/sys/devices/virtual/input/" + sysname
    deadline = time.monotonic() + 30
    while True:
        events = [e for e in os.listdir(base) if e.startswith("event")] if os.path.isdir(base) else []
        if events:
            return fd, "/dev/input/" + events[0]
        if time.monotonic() > deadline:
            raise SystemExit(f"uinput-play: {base} has no event node after 30 s")
        time.sleep(0.01)


def wait_for(predicate, what, timeout):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise SystemExit(f"uinput-play: gave up waiting for {what} after {timeout} s")
        time.sleep(0.02)


def play_frames(fd, frames, written=None):
    """Writes each frame's events to the uinput descriptor at its recorded offset from now (on an absolute
    schedule, so a late frame does not delay the next); `written(events, monotonic_ns)` after each write.
    Returns the worst lateness (s), the frames later than 4 ms, and the time the whole took (s)."""
    worst, late_frames = 0.0, 0
    start = time.monotonic()
    first = frames[0][0] if frames else 0.0
    for when, events in frames:
        deadline = start + (when - first)
        now = time.monotonic()
        if deadline > now:
            time.sleep(deadline - now)
            now = time.monotonic()
        lateness = now - deadline
        worst = max(worst, lateness)
        late_frames += lateness > 0.004
        t = time.monotonic_ns()
        os.write(fd, b"".join(struct.pack("=qqHHi", 0, 0, ty, c, v) for ty, c, v in events))
        if written:
            written(events, t)
    return worst, late_frames, time.monotonic() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--desc")
    ap.add_argument("--node-file")
    ap.add_argument("--go-file", action="append", default=[])
    ap.add_argument("--stop-after-frames", type=int)
    ap.add_argument("--hold-file")
    ap.add_argument("--report")
    ap.add_argument("--timeout", type=float, default=120)
    a = ap.parse_args()

    desc = parse(a.desc)[0] if a.desc else None
    d, frames = parse(a.file, desc)
    if a.stop_after_frames is not None:
        frames = frames[: a.stop_after_frames]
    fd, node = create(d)
    if a.node_file:
        with open(a.node_file + ".tmp", "w") as f:
            f.write(f"{node}\n{d.name}\n")
        os.rename(a.node_file + ".tmp", a.node_file)
    for play, go_file in enumerate(a.go_file or [None], start=1):
        if go_file:
            wait_for(lambda: os.path.exists(go_file), go_file, a.timeout)
        worst, late_frames, played = play_frames(fd, frames)
        span = (frames[-1][0] - frames[0][0]) if frames else 0.0

        if a.report:
            with open(a.report + ".tmp", "w") as f:
                f.write(f"device={d.name!r} node={node} frames={len(frames)} recorded_span_ms={span * 1000:.1f} "
                        f"played_span_ms={played * 1000:.1f} worst_lateness_ms={worst * 1000:.1f} "
                        f"frames_late_over_4ms={late_frames} plays={play}\n")
            os.rename(a.report + ".tmp", a.report)
    if a.hold_file:
        wait_for(lambda: not os.path.exists(a.hold_file), f"{a.hold_file} to go", a.timeout)
    fcntl.ioctl(fd, UI_DEV_DESTROY)
    os.close(fd)


if __name__ == "__main__":
    main()
