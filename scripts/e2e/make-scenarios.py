#!/usr/bin/env python3
"""Writes the synthetic e2e scenario recordings (evemu 1.3, description inline) into a folder.

    make-scenarios OUTDIR [DESCRIPTION]     # DESCRIPTION: scripts/e2e/scenarios.json by default

The recordings are data (scripts/e2e/scenarios.json): devices, and one-finger strokes in device units. This
script renders them by the same rules as the Swift finger-script library and its evdev renderer
(Sources/EdgeSwipeFingerScript, Sources/EdgeSwipeRecordings/EvdevScriptRenderer.swift), event for event;
Tests/EdgeSwipeRecordingsTests/ScenarioDescriptionTests.swift runs both on the description and compares them.

Each file is a plain evemu recording: `edgeswipectl replay FILE --json` plays it offline on the host (the
expected stream), and `uinput-play FILE` plays it into a uinput device in the guest on the same schedule.
Scenario 8's swipes go to OUTDIR/side-by-side/, with plan.json saying what each swipe is.
"""
import json
import math
import os
import sys

EV_SYN, EV_KEY, EV_ABS = 0, 1, 3
CODES = {
    "ABS_X": 0x00, "ABS_Y": 0x01, "ABS_MT_SLOT": 0x2F, "ABS_MT_POSITION_X": 0x35, "ABS_MT_POSITION_Y": 0x36,
    "ABS_MT_TRACKING_ID": 0x39,
    "BTN_LEFT": 0x110, "BTN_TOOL_FINGER": 0x145, "BTN_TOOL_QUINTTAP": 0x148, "BTN_TOUCH": 0x14A,
    "BTN_TOOL_DOUBLETAP": 0x14D, "BTN_TOOL_TRIPLETAP": 0x14E, "BTN_TOOL_QUADTAP": 0x14F,
}
PROPERTIES = {"pointer": 0, "direct": 1, "buttonpad": 2, "semi_mt": 3}
ABS_X, ABS_Y = CODES["ABS_X"], CODES["ABS_Y"]
MT_SLOT, MT_X, MT_Y, MT_ID = (CODES[k] for k in ("ABS_MT_SLOT", "ABS_MT_POSITION_X", "ABS_MT_POSITION_Y", "ABS_MT_TRACKING_ID"))
BTN_TOUCH = CODES["BTN_TOUCH"]
TOOLS = [None, CODES["BTN_TOOL_FINGER"], CODES["BTN_TOOL_DOUBLETAP"], CODES["BTN_TOOL_TRIPLETAP"],
         CODES["BTN_TOOL_QUADTAP"], CODES["BTN_TOOL_QUINTTAP"]]


class Device:
    def __init__(self, d):
        self.name = d["name"]
        self.ids = d["id"]
        self.props = [PROPERTIES[p] for p in d.get("properties", [])]
        self.keys = [CODES[k] for k in d.get("keys", [])]
        if "key_range" in d:
            lo, hi = d["key_range"]
            self.keys += list(range(lo, hi + 1))
        self.axes = {CODES[k]: tuple(v) for k, v in d.get("axes", {}).items()}

    def header(self):
        def bitmask(codes):
            if not codes:
                return []
            rows = max(codes) // 64 + 1
            b = [0] * (rows * 8)
            for c in codes:
                b[c // 8] |= 1 << (c % 8)
            return [" ".join(f"{x:02x}" for x in b[r * 8:(r + 1) * 8]) for r in range(rows)]

        types = {EV_SYN} | ({EV_KEY} if self.keys else set()) | ({EV_ABS} if self.axes else set())
        props = 0
        for p in self.props:
            props |= 1 << p
        out = ["# EVEMU 1.3", f'# Input device name: "{self.name}"', "# Written by scripts/e2e/make-scenarios.py",
               f"N: {self.name}", "I: " + " ".join(f"{v:04x}" for v in self.ids),
               "P: " + " ".join(f"{(props >> (8 * i)) & 0xFF:02x}" for i in range(4)) + " 00 00 00 00"]
        out += [f"B: 00 {row}" for row in bitmask(types)]
        out += [f"B: 01 {row}" for row in bitmask(self.keys)]
        out += [f"B: 03 {row}" for row in bitmask(sorted(self.axes))]
        for code in sorted(self.axes):
            lo, hi, res = self.axes[code]
            out.append(f"A: {code:02x} {lo} {hi} 0 0 {res}")
        return out


EASINGS = {
    "linear": lambda p: p,
    "smoothstep": lambda p: p * p * (3 - 2 * p),
    "ease-in": lambda p: p * p,
}


def round_half_away(v):
    """Swift's `rounded()`: to the nearest integer, halves away from zero (v - floor(v) is exact)."""
    if v < 0:
        return -round_half_away(-v)
    r = math.floor(v)
    return int(r + 1 if v - r >= 0.5 else r)


def samples(stroke):
    """(time_us, finger, phase, x, y, tracking_id) for one stroke: FingerScript(stroke:) in Swift."""
    finger = stroke.get("finger", 0)
    t = stroke.get("start_us", 0)
    at = stroke["from"]
    out = [(t, finger, "down", at[0], at[1], stroke.get("tracking_id"))]
    for move in stroke.get("moves", []):
        to = move["to"]
        frames = max(1, move["frames"])
        ease = EASINGS[move["easing"]]
        for i in range(1, frames + 1):
            f = ease(i / frames)
            out.append((t + i * move["duration_us"] // frames, finger, "motion",
                        at[0] + (to[0] - at[0]) * f, at[1] + (to[1] - at[1]) * f, None))
        t += move["duration_us"]
        at = to
    if stroke.get("lift", True):
        out.append((t + stroke.get("rest_us", 0), finger, "up", at[0], at[1], None))
    return out


def render(device, strokes):
    """The kernel's events for the strokes, frame by frame: EvdevScriptRenderer in Swift, rule for rule."""
    merged = []
    for s in strokes:
        merged += samples(s)
    merged.sort(key=lambda s: s[0])  # stable: at the same instant, earlier strokes first
    has_slots = MT_SLOT in device.axes and MT_X in device.axes
    has_pointer = ABS_X in device.axes and ABS_Y in device.axes
    events, current_slot, last, active, used_ids, pointer, tool = [], 0, {}, [], 0, None, None
    i = 0
    while i < len(merged):
        t = merged[i][0]
        frame = []
        while i < len(merged) and merged[i][0] == t:
            frame.append(merged[i])
            i += 1
        before, fingers_before = len(events), len(active)

        def emit(typ, code, value):
            events.append((t, typ, code, value))

        def position(finger, x, y):
            old = last.get(finger)
            if has_slots:
                if old is None or old[0] != x:
                    emit(EV_ABS, MT_X, x)
                if old is None or old[1] != y:
                    emit(EV_ABS, MT_Y, y)
            last[finger] = (x, y)

        for (_, finger, phase, x, y, tracking_id) in frame:
            down = finger in active
            if (phase == "down") == down:
                continue  # a finger that lands twice, or moves or lifts without landing
            if has_slots and finger != current_slot:
                emit(EV_ABS, MT_SLOT, finger)
                current_slot = finger
            raw = (round_half_away(x), round_half_away(y))
            if phase == "down":
                tid = tracking_id if tracking_id is not None else used_ids + 1
                used_ids = max(used_ids, tid)
                if has_slots:
                    emit(EV_ABS, MT_ID, tid)
                position(finger, *raw)
                active.append(finger)
            elif phase == "motion":
                position(finger, *raw)
            else:
                if has_slots:
                    emit(EV_ABS, MT_ID, -1)
                active.remove(finger)
        if has_pointer and active:
            p = last[active[0]]
            if pointer is None or pointer[0] != p[0]:
                emit(EV_ABS, ABS_X, p[0])
            if pointer is None or pointer[1] != p[1]:
                emit(EV_ABS, ABS_Y, p[1])
            pointer = p
        if BTN_TOUCH in device.keys and (fingers_before == 0) != (not active):
            emit(EV_KEY, BTN_TOUCH, 1 if active else 0)
        new_tool = TOOLS[min(len(active), 5)]
        if new_tool != tool:
            if tool is not None and tool in device.keys:
                emit(EV_KEY, tool, 0)
            if new_tool is not None and new_tool in device.keys:
                emit(EV_KEY, new_tool, 1)
            tool = new_tool
        if len(events) > before:
            emit(EV_SYN, 0, 0)
    return events


def evemu_lines(events):
    lines = []
    for t, typ, code, value in events:
        v = f"{value:04d}" if value >= 0 else f"-{-value:03d}"
        lines.append(f"E: {t // 1000000}.{t % 1000000:06d} {typ:04x} {code:04x} {v}")
    return lines


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        sys.exit(64)
    outdir = sys.argv[1]
    path = sys.argv[2] if len(sys.argv) == 3 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "scenarios.json")
    with open(path) as f:
        description = json.load(f)
    devices = {name: Device(d) for name, d in description["devices"].items()}
    for rec in description["recordings"]:
        device = devices[rec["device"]]
        target = os.path.join(outdir, rec["file"])
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w") as f:
            f.write("\n".join(device.header() + evemu_lines(render(device, rec["strokes"]))) + "\n")
        if "plan" in rec:
            with open(os.path.join(os.path.dirname(target), "plan.json"), "w") as f:
                json.dump(rec["plan"], f, indent=1)


if __name__ == "__main__":
    main()
