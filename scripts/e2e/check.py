#!/usr/bin/env python3
"""Judges an e2e run: what the guest's clients saw against what each scenario must show, and against the
offline pipeline (`edgeswipectl replay --json` on the host) for the same recordings. Prints a table
scenario -> result -> time and exits 0 only if every scenario passed.

    check RUN_DIR [--scenarios 1,2,...] [--guest-seconds N] [--total-seconds N]
    check --count-terminals FILE.jsonl      # how many transitions end in FILE (for the guest to wait on)
    check --summary FILE.jsonl              # the comparable stream of FILE, one event a line
    check --side-by-side RUN_DIR [--markdown]   # scenario 8's table: edgeswiped and lisgd, swipe by swipe
"""
import argparse
import json
import os
import re
import statistics
import sys

NAMES = {
    1: "touchscreen left-edge swipe -> completed",
    2: "touchscreen swipe released early -> cancelled",
    3: "touchpad right-edge swipe (libevdev) -> completed",
    4: "hotplug: removed mid-gesture, new device works",
    5: "recordings via uinput == edgeswipectl replay",
    6: "permissions: edgeswipe user reads touch only",
    7: "installed units under systemd: activation, hotplug",
    8: "side by side with lisgd (20 edge swipes)",
    9: "real logind: active session reads, switch, rotate",
    10: "multi-finger swipes: libinput's gestures, a screen's",
    11: "the Debian package: install, seats, upgrade, purge",
}


def load(path):
    out = []
    if not os.path.exists(path):
        return out
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                try:
                    out.append(json.loads(line))
                except ValueError:
                    pass
    return out


def terminal(m):
    return m.get("type") == "transition" and m.get("phase") in ("completed", "cancelled")


def summary(messages):
    """The part of a stream that must not depend on timing: every gesture state but `changed`, every transition
    phase but `changed`, lifecycle and state events, with their categorical fields only."""
    out = []
    for m in messages:
        t = m.get("type")
        if t == "gesture" and m.get("state") != "changed":
            what = m.get("edge") if m.get("kind", "edge") == "edge" else f"swipe {m.get('direction')}"
            out.append(f"gesture {what} {m.get('state')} device={m.get('device')} fingers={m.get('fingers')}")
        elif t == "transition" and m.get("phase") != "changed" and not m.get("progress"):
            driver = f"edge={m.get('edge')}" if "swipe_direction" not in m else \
                f"swipe={m.get('swipe_direction')}/{m.get('swipe_fingers')}"
            out.append(f"transition {m.get('id')} {m.get('operation')} {m.get('container')}: {m.get('from')} -> "
                       f"{m.get('to')} {m.get('phase')} interactive={m.get('interactive')} {driver}")
        elif t == "lifecycle":
            out.append(f"lifecycle {m.get('transition')} {m.get('container')} {m.get('scene')} {m.get('event')}")
        elif t == "state":
            rest = {k: v for k, v in m.items() if k not in ("seq", "time_us")}
            out.append("state " + json.dumps(rest, sort_keys=True))
    return out


def devices(messages, change):
    return [m for m in messages if m.get("type") == "device" and m.get("change") == change]


def device_name(m):
    return m.get("name")


def read(path, default=""):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return default


class Verdict:
    def __init__(self):
        self.problems = []
        self.notes = []

    def require(self, ok, problem):
        if not ok:
            self.problems.append(problem)
        return ok


def common(v, d, label=""):
    """Every scenario's daemon must shut down cleanly and its client must have been told."""
    p = f"{label}: " if label else ""
    for e in read(os.path.join(d, "guest-errors.txt")).splitlines():
        v.problems.append(p + "guest: " + e)
    if os.path.exists(os.path.join(d, "daemon.exit")):
        status = read(os.path.join(d, "daemon.exit")).strip()
        v.require(status == "0", f"{p}edgeswiped exited with {status or '?'} after SIGTERM (expected 0)")
    msgs = load(os.path.join(d, "monitor.jsonl"))
    if os.path.exists(os.path.join(d, "monitor.jsonl")):
        v.require(any(m.get("type") == "hello" for m in msgs), f"{p}the client got no hello")
        v.require(any(m.get("type") == "goodbye" for m in msgs), f"{p}the client got no goodbye at shutdown")
    back = [(a.get("seq"), b.get("seq")) for a, b in zip(msgs, msgs[1:])
            if isinstance(a.get("time_us"), int) and isinstance(b.get("time_us"), int) and b["time_us"] < a["time_us"]]
    if back:
        v.notes.append(f"{p}time_us goes backwards between messages seq {back[0][0]} -> {back[0][1]}"
                       f" ({len(back)} time(s))")
    log = read(os.path.join(d, "daemon.log"))
    bad = [l for l in log.splitlines() if re.search(r"\b(critical|error)\b", l, re.I)]
    if bad:
        v.notes.append(f"{p}daemon log has {len(bad)} error line(s), first: {bad[0][:160]}")
    for t in sorted(f for f in os.listdir(d) if f.endswith(".timing")) if os.path.isdir(d) else []:
        m = re.search(r"worst_lateness_ms=([\d.]+)", read(os.path.join(d, t)))
        if m and float(m.group(1)) > 8:
            v.notes.append(f"{p}{t}: a frame was written {m.group(1)} ms late")
    return msgs


def swipe(v, msgs, edge, outcome, kind):
    added = devices(msgs, "added")
    v.require(len(added) == 1, f"expected 1 device added, saw {len(added)}")
    if added:
        v.require(added[0].get("kind") == kind, f"the device is a {added[0].get('kind')}, expected a {kind}")
    g = [m for m in msgs if m.get("type") == "gesture"]
    states = [m.get("state") for m in g]
    v.require(states[:1] == ["began"], f"first gesture state {states[:1]}, expected began")
    v.require(all(m.get("edge") == edge for m in g), f"gesture edges {sorted({m.get('edge') for m in g})}, expected {edge}")
    v.require(all(m.get("device_kind") in (None, kind) for m in g), "a gesture names the wrong device kind")
    t = [m for m in msgs if m.get("type") == "transition"]
    phases = [m.get("phase") for m in t]
    v.require(phases[:1] == ["began"], f"first transition phase {phases[:1]}, expected began")
    progress = [m for m in t if m.get("phase") == "changed" and 0 < float(m.get("percent", 0)) < 1]
    # At least one: the server coalesces progress updates for a client that reads slowly (under TCG, all do).
    v.require(len(progress) >= 1, "no transition progress update between 0 and 1")
    run_out = "finishing" if outcome == "completed" else "cancelling"
    v.require(run_out in phases, f"no {run_out} phase (phases: {dedupe(phases)})")
    v.require(phases[-1:] == [outcome], f"last transition phase {phases[-1:]}, expected {outcome}")
    v.require(sum(1 for m in t if terminal(m)) == 1, "not exactly one terminal transition event")
    v.require("ended" in states, f"no gesture ended (states: {dedupe(states)})")
    v.require(len(devices(msgs, "removed")) == 1, "no device removed event when the uinput device went")


def dedupe(xs):
    out = []
    for x in xs:
        if not out or out[-1] != x:
            out.append(x)
    return out


def compare(v, live, expected_path, label):
    exp = summary(load(expected_path))
    got = summary(live)
    if exp == got:
        return True
    import difflib
    diff = list(difflib.unified_diff(exp, got, "edgeswipectl replay (host)", "edgeswiped on the kernel (guest)", n=1, lineterm=""))
    v.problems.append(f"{label}: the stream differs from the offline replay:\n      " + "\n      ".join(diff[:40]))
    return False


def scenario(n, run, v):
    res = os.path.join(run, "results", f"scenario-{n}")
    exp = os.path.join(run, "expected")
    if not os.path.isdir(res):
        v.problems.append("the guest produced no results for it")
        return
    if n in (1, 2, 3):
        msgs = common(v, res)
        name, edge, outcome, kind = {
            1: ("ts-left-commit", "left", "completed", "touchscreen"),
            2: ("ts-left-cancel", "left", "cancelled", "touchscreen"),
            3: ("tp-right-commit", "right", "completed", "touchpad"),
        }[n]
        swipe(v, msgs, edge, outcome, kind)
        compare(v, msgs, os.path.join(exp, name + ".jsonl"), name)
    elif n == 4:
        msgs = common(v, res)
        seq = []
        for m in msgs:
            t = m.get("type")
            if t == "device":
                seq.append(("device", m.get("change"), m.get("id")))
            elif t == "gesture" and m.get("state") != "changed":
                seq.append(("gesture", m.get("state"), m.get("device")))
            elif t == "transition" and m.get("phase") != "changed" and not m.get("progress"):
                seq.append(("transition", m.get("phase"), m.get("id")))
        kinds = [s[:2] for s in seq]
        v.require(("gesture", "began") in kinds, "the first swipe never began")
        first_removed = kinds.index(("device", "removed")) if ("device", "removed") in kinds else None
        if v.require(first_removed is not None, "no device removed event"):
            before = kinds[: first_removed + 1]
            after = kinds[first_removed + 1:]
            v.require(("gesture", "cancelled") in before or ("gesture", "cancelled") in after[:2],
                      f"the gesture in flight was not cancelled (events: {seq[:first_removed + 3]})")
            v.require(("transition", "cancelled") in kinds[: first_removed + 3],
                      f"the transition in flight was not cancelled (events: {seq[:first_removed + 3]})")
            v.require(("transition", "completed") not in before, "a transition completed before the device went")
            second = [s for s in seq[first_removed + 1:]]
            added2 = [s for s in second if s[:2] == ("device", "added")]
            if v.require(added2, "no second device was announced"):
                new_id = added2[0][2]
                first_id = next((s[2] for s in seq if s[:2] == ("device", "added")), None)
                v.require(new_id != first_id, f"the new device reused id {new_id}")
                v.require(("gesture", "began", new_id) in second, "the new device's swipe never began")
                v.require(("transition", "completed") in [s[:2] for s in second],
                          f"the new device's swipe did not complete (events after removal: {second})")
        v.require(len(devices(msgs, "removed")) == 2, f"expected 2 devices removed, saw {len(devices(msgs, 'removed'))}")
    elif n == 5:
        recs = sorted(e for e in os.listdir(res) if os.path.isdir(os.path.join(res, e)))
        v.require("demo" in recs, "the demo recording was not played")
        for r in recs:
            d = os.path.join(res, r)
            msgs = common(v, d, r)
            v.require(len(devices(msgs, "added")) == 1, f"{r}: expected 1 device added, saw {len(devices(msgs, 'added'))}")
            ok = compare(v, msgs, os.path.join(exp, r + ".jsonl"), r)
            s = summary(msgs)
            ended = sum(1 for x in s if x.startswith("transition") and (x.split()[-3] in ("completed", "cancelled")))
            v.notes.append(f"{r}: {sum(1 for x in s if ' began ' in x and x.startswith('gesture'))} gesture(s), "
                           f"{ended} transition(s) ended{', same as the offline replay' if ok else ''}")
        if not os.path.exists(os.path.join(exp, "NOTE")):
            v.require(len(recs) >= 2, "no recording from ../shared/recordings was played")
        else:
            v.notes.append(read(os.path.join(exp, "NOTE")).strip())
    elif n == 7:
        systemd_scenario(res, v)
    elif n == 10:
        swipes_scenario(res, exp, v)
    elif n == 8:
        side_by_side_scenario(res, exp, v)
    elif n == 9:
        session_scenario(res, v)
    elif n == 11:
        package_scenario(res, v)
    elif n == 6:
        access = read(os.path.join(res, "access.txt"))
        blocks = {}
        for block in access.split("== ")[1:]:
            blocks[block.split()[0]] = block
        for dev in ("ts", "tp"):
            b = blocks.get(dev, "")
            v.require("group:edgeswipe:r--" in b, f"{dev}: no ACL entry group:edgeswipe:r-- on its node")
            v.require("open-as-edgeswipe: ok" in b, f"{dev}: the edgeswipe user cannot open it")
        kb = blocks.get("kbd", "")
        v.require(bool(kb), "no keyboard was created")
        v.require("edgeswipe" not in kb.split("open-as-edgeswipe")[0].split("getfacl")[-1] and "group:edgeswipe" not in kb,
                  "the keyboard's node has an edgeswipe ACL entry")
        v.require("ID_INPUT_KEYBOARD=1" in kb, "udev did not tag the uinput keyboard ID_INPUT_KEYBOARD")
        v.require("open-as-edgeswipe: denied" in kb, "the edgeswipe user CAN open the keyboard")
        listed = read(os.path.join(res, "list-devices.txt"))
        v.require("EdgeSwipe E2E Touchscreen" in listed and "EdgeSwipe E2E Touchpad" in listed,
                  f"edgeswiped --list-devices as edgeswipe did not list both touch devices: {listed.strip()!r} "
                  f"{read(os.path.join(res, 'list-devices.err')).strip()[-300:]!r}")
        v.require("Keyboard" not in listed, "edgeswiped --list-devices listed the keyboard")
        v.require(read(os.path.join(res, "list-kbd.exit")).strip() not in ("", "0"),
                  "edgeswiped --device <keyboard> --list-devices succeeded")
        msgs = common(v, res)
        hello = next((m for m in msgs if m.get("type") == "hello"), {})
        names = sorted(str(d.get("name")) if isinstance(d, dict) else str(d) for d in hello.get("devices", []))
        live = sorted(device_name(m) for m in devices(msgs, "added"))
        seen = names + live
        v.require(any("Touchscreen" in x for x in seen) and any("Touchpad" in x for x in seen),
                  f"the daemon (udev backend, as edgeswipe) did not open both touch devices: {seen}")
        v.require(not any("Keyboard" in x for x in seen), "the daemon opened the keyboard")
        listed = read(os.path.join(res, "devices.txt"))
        v.require("EdgeSwipe E2E Touchscreen" in listed and "EdgeSwipe E2E Touchpad" in listed and "Keyboard" not in listed,
                  f"edgeswipectl devices did not list exactly the two touch devices: {listed.strip()!r}")
        if hello and not hello.get("devices"):
            v.notes.append("the hello listed no devices although both touch devices existed before the daemon "
                           f"started; `edgeswipectl devices` right after it said: "
                           f"{read(os.path.join(res, 'devices-at-hello.txt')).strip()!r}")
        status = read(os.path.join(res, "daemon-proc-status.txt"))
        uid = re.search(r"^Uid:\s+(\d+)", status, re.M)
        v.require(uid is not None and uid.group(1) != "0", "the daemon did not run as its own user")


def swipes_scenario(res, exp, v):
    """Scenario 10: libinput reports the uinput touchpad's 3- and 4-finger swipes as gestures, which drive
    transitions; its 2-finger scroll gives nothing; a touchscreen's 3-finger swipe drives one through the
    daemon's own detector. Each part's stream must equal the offline replay's (the engine's emulation)."""
    wanted = {
        "tp": ("tp-swipes", "touchpad", [("left", 3), ("up", 4)]),
        "ts": ("ts-swipe", "touchscreen", [("right", 3)]),
    }
    for part, (name, kind, swipes) in wanted.items():
        d = os.path.join(res, part)
        if not v.require(os.path.isdir(d), f"{part}: no results"):
            continue
        msgs = common(v, d, part)
        added = devices(msgs, "added")
        v.require([m.get("kind") for m in added] == [kind], f"{part}: devices added {[m.get('kind') for m in added]}, expected [{kind}]")
        g = [m for m in msgs if m.get("type") == "gesture"]
        began = [(m.get("direction"), m.get("fingers")) for m in g if m.get("state") == "began"]
        v.require(all(m.get("kind") == "swipe" for m in g), f"{part}: a gesture that is not a swipe: {[m.get('kind') for m in g]}")
        v.require(began == swipes, f"{part}: swipes began {began}, expected {swipes}")
        v.require(not any(m.get("fingers") == 2 for m in g), f"{part}: a 2-finger gesture (the scroll) was reported")
        t = [m for m in msgs if m.get("type") == "transition"]
        driven = [(m.get("swipe_direction"), m.get("swipe_fingers")) for m in t if m.get("phase") == "began"]
        v.require(driven == swipes, f"{part}: transitions driven by {driven}, expected {swipes}")
        progress = [m for m in t if m.get("phase") == "changed" and 0 < float(m.get("percent", 0)) < 1]
        v.require(len(progress) >= 1, f"{part}: no transition progress between 0 and 1: the scene did not follow the fingers")
        v.require([m.get("phase") for m in t if terminal(m)] == ["completed"] * len(swipes),
                  f"{part}: terminals {[m.get('phase') for m in t if terminal(m)]}, expected {len(swipes)} completed")
        compare(v, msgs, os.path.join(exp, name + ".jsonl"), f"{part} ({name})")
        log = read(os.path.join(d, "daemon.log"))
        if part == "tp":
            v.notes.append(f"tp: {sum(1 for l in log.splitlines() if 'swipe[' in l and '-> begin ->' in l)} swipe(s) began in the daemon's log")


def props(path):
    out = {}
    for line in read(path).splitlines():
        if "=" in line:
            k, val = line.split("=", 1)
            out[k] = val
    return out


def systemd_scenario(res, v):
    msgs = common(v, res)
    started = props(os.path.join(res, "service-started.txt"))
    v.require(started.get("ActiveState") == "active",
              f"socket activation did not bring edgeswiped.service up (after the first client: {started or 'nothing'})")
    status = read(os.path.join(res, "daemon-proc-status.txt"))
    uid = re.search(r"^Uid:\s+(\d+)", status, re.M)
    v.require(uid is not None and uid.group(1) != "0", "the service's main process does not run as its own user")
    hello = next((m for m in msgs if m.get("type") == "hello"), {})
    in_hello = [d for d in hello.get("devices", []) if isinstance(d, dict) and d.get("name") == "EdgeSwipe E2E Touchscreen"]
    added = [m for m in devices(msgs, "added") if m.get("name") == "EdgeSwipe E2E Touchscreen"]
    v.require(len(in_hello) + len(added) >= 1,
              "the touchscreen present before the daemon started (coldplug) was never announced")
    v.require(len(in_hello) + len(added) >= 2,
              "a touchscreen created while the service runs (hotplug) was never announced")
    ends = [m.get("phase") for m in msgs if terminal(m)]
    v.require(ends[:1] == ["completed"], f"the coldplugged device's swipe did not complete (terminal phases {ends})")
    v.require(ends[1:2] == ["completed"], f"the hotplugged device's swipe did not complete (terminal phases {ends})")
    before = props(os.path.join(res, "service-before-stop.txt"))
    v.require(before.get("NRestarts", "0") == "0", f"the service restarted {before.get('NRestarts')} time(s)")
    stopped = props(os.path.join(res, "service-stopped.txt"))
    v.require(stopped.get("Result") == "success", f"the service stopped with Result={stopped.get('Result')}")
    netns = props(os.path.join(res, "netns.txt"))
    if netns.get("daemon") and netns.get("daemon") != netns.get("init"):
        v.notes.append(f"the service runs in its own network namespace ({netns.get('daemon')}, "
                       f"udevd in {netns.get('init')}): PrivateNetwork=yes")
    journal = read(os.path.join(res, "journal.txt"))
    for pattern in ("watchdog", "SIGSYS", "Failed with result", "core-dump", "Failed to set thread priority"):
        hit = [l for l in journal.splitlines() if pattern.lower() in l.lower()]
        if hit:
            v.notes.append(f"journal: {len(hit)} line(s) like: {hit[0][:200]}")


REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# The multi-call client binary (the Makefile's MULTICALL): installed in /usr/lib/edgeswipe, the clients link to it.
MULTICALL = "edgeswipe-clients"


def shipped():
    """What the package must hold, from the tree itself (as the Makefile finds it): every tool (executable product of
    Package.swift but the multi-call binary) and every unit in systemd/ and systemd/user/."""
    products = re.findall(r'^\s*\.executable\(name: "([^"]+)"', read(os.path.join(REPO, "Package.swift")), re.M)
    units = lambda d: sorted(f for f in os.listdir(os.path.join(REPO, d)) if f.endswith((".service", ".socket")))
    return [p for p in products if p != MULTICALL], units("systemd"), units("systemd/user")


# What a package's install and purge leave on a system by design, whatever the package: dpkg's and apt's own
# records and logs, the journal, systemd's and udev's runtime state, and the accounts the scenario made (useradd's
# backups of /etc/passwd and friends).
PURGE_LEAVES = re.compile(r"^(/var/lib/dpkg/|/var/log/|/var/cache/|/var/lib/apt/|/run/systemd/|/run/udev/|/run/log/"
                          r"|/run/user|/etc/(passwd|group|shadow|gshadow|subuid|subgid)-?$|/etc/\.pwd\.lock$"
                          r"|/var/lib/systemd/(deb-systemd-helper-enabled|deb-systemd-user-helper-enabled)$"
                          r"|/var/lib/systemd/(timers|random-seed|linger|catalog))")


def package_scenario(res, v):
    """Scenario 11: the .deb, installed with dpkg -i in a guest with systemd as PID 1, then used, reloaded,
    upgraded over an edited configuration, run as two per-seat instances, and purged."""
    def facts(name):
        return props(os.path.join(res, f"facts-{name}.txt"))

    def stream(name):
        return load(os.path.join(res, f"{name}.jsonl"))

    def status(name):
        return read(os.path.join(res, f"{name}.exit")).strip()

    for e in read(os.path.join(res, "guest-errors.txt")).splitlines():
        v.problems.append("guest: " + e)
    before = facts("before")
    v.require(not before.get("user") and not before.get("group"), "the edgeswipe user or group existed before the install")
    v.require(status("dpkg-install") == "0",
              f"dpkg -i exited with {status('dpkg-install') or '?'}: {read(os.path.join(res, 'dpkg-install.txt')).strip()[-400:]}")

    # The install: the user and group, the socket enabled and listening, the service not started yet, every file.
    inst = facts("installed")
    v.require(inst.get("package", "").startswith("ii "), f"the package is not installed: {inst.get('package')!r}")
    v.require(inst.get("user", "").startswith("edgeswipe:x:") and "nologin" in inst.get("user", ""),
              f"no system user edgeswipe with no login shell: {inst.get('user')!r}")
    v.require(inst.get("group", "").startswith("edgeswipe:x:"), f"no group edgeswipe: {inst.get('group')!r}")
    v.require(inst.get("edgeswiped.socket.enabled") == "enabled", f"edgeswiped.socket is {inst.get('edgeswiped.socket.enabled')}, not enabled")
    v.require(inst.get("edgeswiped.socket.active") == "active", f"edgeswiped.socket is {inst.get('edgeswiped.socket.active')}, not active")
    v.require(inst.get("edgeswiped.service.active") == "inactive",
              f"edgeswiped.service is {inst.get('edgeswiped.service.active')} before any client: the socket should start it")
    v.require("/run/edgeswipe/edgeswipe.sock" in inst.get("listening", ""), "nothing listens on /run/edgeswipe/edgeswipe.sock")
    files = read(os.path.join(res, "package-files.txt"))
    products, system_units, user_units = shipped()
    wanted = [f"/usr/bin/{p}" for p in products]
    wanted += [f"/usr/share/man/man{8 if p == 'edgeswiped' else 1}/{p}.{8 if p == 'edgeswiped' else 1}.gz" for p in products]
    wanted += [f"/usr/share/bash-completion/completions/{p}" for p in products]
    wanted += [f"/lib/systemd/system/{u}" for u in system_units] + [f"/usr/lib/systemd/user/{u}" for u in user_units]
    wanted += ["/lib/udev/rules.d/71-edgeswipe.rules", "/usr/lib/sysusers.d/edgeswipe.conf", "/etc/edgeswipe/edgeswipe.toml"]
    wanted += [f"/usr/lib/edgeswipe/{MULTICALL}"]
    missing = [f for f in wanted if not re.search(r"^" + re.escape(f) + r"$", files, re.M)]
    v.require(not missing, f"the package lacks {missing}")
    conffiles = files.split("conffiles:", 1)[-1]
    v.require("/etc/edgeswipe/edgeswipe.toml" in conffiles, "/etc/edgeswipe/edgeswipe.toml is not a conffile")
    v.require("group:edgeswipe:r--" in read(os.path.join(res, "a-acl-installed.txt")),
              "the package's udev rules gave the touchscreen no group:edgeswipe:r-- entry")

    # Socket activation, the sandbox, who may connect, the first swipe.
    msgs = stream("monitor")
    v.require(any(m.get("type") == "hello" for m in msgs), "the first client got no hello: socket activation did not start the service")
    act = props(os.path.join(res, "service-activated.txt"))
    v.require(act.get("ActiveState") == "active", f"the service is not active after the first connection: {act or 'nothing'}")
    v.require(act.get("User") == "edgeswipe" and act.get("Uid", "0").split()[0] != "0", f"the service does not run as edgeswipe: {act}")
    for key, want, what in (("NoNewPrivs", "1", "no_new_privs"), ("Seccomp", "2", "a seccomp filter"),
                            ("CapEff", "0000000000000000", "no capabilities"), ("mntns", "own", "a mount namespace of its own")):
        v.require(act.get(key) == want, f"the service's sandbox lacks {what} ({key}={act.get(key)!r})")
    v.require("Read-only" in act.get("write-etc", ""), f"the service can write /etc (ProtectSystem=): {act.get('write-etc')!r}")
    v.require(act.get("state-dir") == "/var/lib/edgeswipe", f"the service's state directory is {act.get('state-dir')!r}")
    exposure = re.search(r"Overall exposure level for \S+: (.*)", read(os.path.join(res, "security.txt")))
    if exposure:
        v.notes.append(f"systemd-analyze security edgeswiped.service: {exposure.group(1).strip()}")
    v.require(not any(m.get("type") == "hello" for m in stream("outsider")) and status("outsider") not in ("", "0"),
              f"a user outside the edgeswipe group was not refused (exit {status('outsider') or '?'})")
    # The swipes' transitions (the request that puts the shell back on home before the second is not one).
    ends = [m.get("phase") for m in msgs if terminal(m) and m.get("interactive")]
    v.require(ends[:1] == ["completed"], f"the first swipe did not complete (terminal phases {ends})")

    # Reload: applied in place.
    v.require(status("reload") == "0", f"systemctl reload exited with {status('reload') or '?'}: {read(os.path.join(res, 'reload.txt')).strip()}")
    reloaded = [m for m in msgs if m.get("type") == "config" and m.get("result") == "reloaded"]
    if v.require(reloaded, "the client saw no configuration reloaded after systemctl reload"):
        v.require((reloaded[0].get("config") or {}).get("completion_speed") == 2,
                  f"the reloaded configuration's completion_speed is {(reloaded[0].get('config') or {}).get('completion_speed')}, not the edited 2")
    rel = props(os.path.join(res, "service-reloaded.txt"))
    v.require(rel.get("MainPID") == act.get("MainPID") and rel.get("NRestarts", "0") == "0",
              f"the reload restarted the daemon (MainPID {act.get('MainPID')} -> {rel.get('MainPID')})")
    v.require(status("tab-home") == "0",
              f"edgeswipectl tab shell home, as a member of the group, failed: {read(os.path.join(res, 'tab-home.txt')).strip()[-300:]}")
    v.require(ends[1:2] == ["cancelled"], f"the swipe after the reload (threshold 0.8) did not cancel (terminal phases {ends})")

    # Upgrade over the edited conffile.
    v.require(status("dpkg-upgrade") == "0",
              f"the upgrade exited with {status('dpkg-upgrade') or '?'}: {read(os.path.join(res, 'dpkg-upgrade.txt')).strip()[-400:]}")
    pre, up = facts("before-upgrade"), facts("upgraded")
    v.require(pre.get("conffile.sha256") and pre.get("conffile.sha256") != inst.get("conffile.sha256"),
              "the configuration was not edited before the upgrade")
    v.require(up.get("package", "").startswith("ii ") and up.get("package", "").endswith("+e2e1"),
              f"the upgrade did not install the new version: {up.get('package')!r}")
    v.require(up.get("conffile.sha256") == pre.get("conffile.sha256"), "the upgrade did not keep the edited /etc/edgeswipe/edgeswipe.toml")
    v.require(".dpkg-" not in up.get("etc-edgeswipe", ""), f"the upgrade left {up.get('etc-edgeswipe')} in /etc/edgeswipe")
    v.require(up.get("edgeswiped.socket.enabled") == "enabled" and up.get("edgeswiped.socket.active") == "active",
              f"after the upgrade edgeswiped.socket is {up.get('edgeswiped.socket.enabled')}/{up.get('edgeswiped.socket.active')}")
    after = stream("after-upgrade")
    hello = next((m for m in after if m.get("type") == "hello"), None)
    if v.require(hello, "no client got a hello after the upgrade"):
        v.require((hello.get("config") or {}).get("completion_speed") == 2,
                  "after the upgrade the daemon does not run with the edited configuration")
    upg = props(os.path.join(res, "service-upgraded.txt"))
    v.require(upg.get("MainPID") not in (None, "0", act.get("MainPID")),
              f"the upgrade did not restart the daemon (MainPID {act.get('MainPID')} -> {upg.get('MainPID')})")

    # Two seats side by side, each with its own device, clients, configuration and state.
    seat_device = {"seat0": "EdgeSwipe E2E Touchscreen", "seat1": "EdgeSwipe E2E Touchscreen B"}
    seat_outcome = {"seat0": "cancelled", "seat1": "completed"}  # seat0: the edited file; seat1: its own (shipped) one
    pids = set()
    v.require("ID_SEAT=seat1" in read(os.path.join(res, "b-device.txt")), "the second touchscreen is not on seat1")
    for seat in ("seat0", "seat1"):
        f = props(os.path.join(res, f"service-{seat}.txt"))
        v.require(f.get("ActiveState") == "active" and f.get("User") == "edgeswipe",
                  f"edgeswiped@{seat}.service is not active as edgeswipe: {f or 'nothing'}")
        pids.add(f.get("MainPID"))
        v.require(f.get("state-dir") == f"/var/lib/edgeswipe/seat/{seat}", f"{seat}'s state directory is {f.get('state-dir')!r}")
        v.require(f"--seat {seat}" in f.get("cmdline", ""), f"{seat}'s daemon was not started for its seat: {f.get('cmdline')!r}")
        m = stream(seat)
        hello = next((x for x in m if x.get("type") == "hello"), {})
        names = {d.get("name") for d in hello.get("devices", []) if isinstance(d, dict)}
        names |= {x.get("name") for x in devices(m, "added")}
        v.require(names == {seat_device[seat]}, f"{seat}'s daemon saw devices {sorted(map(str, names))}, expected only {seat_device[seat]!r}")
        began = [x for x in m if x.get("type") == "gesture" and x.get("state") == "began"]
        outcomes = [x.get("phase") for x in m if terminal(x)]
        v.require(len(began) == 1 and outcomes == [seat_outcome[seat]],
                  f"{seat}'s client saw {len(began)} gesture(s) ending {outcomes}, expected its own one swipe, {seat_outcome[seat]}")
    v.require(len(pids - {None, "0"}) == 2, f"the two instances do not run as two processes: {pids}")
    v.require("--config /etc/edgeswipe/seat1.toml" in props(os.path.join(res, "service-seat1.txt")).get("cmdline", ""),
              "seat1's drop-in did not give it its own configuration")
    v.require("state.json" in read(os.path.join(res, "state-dirs.txt")).split("/var/lib/edgeswipe/seat/seat1:")[-1],
              "seat1's completed swipe left no state.json in /var/lib/edgeswipe/seat/seat1")
    run_seats = read(os.path.join(res, "run-dir-seats.txt")).split("/run/edgeswipe/seat:")[-1]
    v.require("seat0.sock" in run_seats and "seat1.sock" in run_seats,
              "the instances' sockets are not /run/edgeswipe/seat/seat0.sock and seat1.sock")

    # An instance named after the single-seat socket: refused by its daemon, and its stop leaves that socket alone.
    refused = read(os.path.join(res, "not-a-seat-journal.txt"))
    v.require("--seat 'edgeswipe' is not a seat name" in refused and "edgeswiped@edgeswipe.service cannot run" in refused,
              f"edgeswiped@edgeswipe.service did not refuse its name: {refused.strip()[-300:]!r}")
    v.require(not any(m.get("type") == "hello" for m in stream("not-a-seat")), "a client of edgeswiped@edgeswipe got a hello")
    after_stop = props(os.path.join(res, "not-a-seat-after.txt"))
    v.require("/run/edgeswipe/edgeswipe.sock" in after_stop.get("listening", "")
              and "edgeswipe.sock" in read(os.path.join(res, "not-a-seat-after.txt")).split("/run/edgeswipe/seat:")[0],
              f"stopping edgeswiped@edgeswipe.socket took edgeswiped.socket's socket: {after_stop.get('listening')!r}")

    # Purge: nothing of the package left, nothing running, the devices' ACL entries gone.
    v.require(status("apt-purge") == "0", f"apt-get purge exited with {status('apt-purge') or '?'}: {read(os.path.join(res, 'apt-purge.txt')).strip()[-400:]}")
    gone = facts("purged")
    v.require(not gone.get("package", "").startswith(("ii", "rc")), f"the package is still known to dpkg after the purge: {gone.get('package')!r}")
    v.require(read(os.path.join(res, "admin-link-purged.txt")).strip() == "/opt/not-mounted/edgeswiped-exporter.service",
              "the purge removed the administrator's own edgeswiped-exporter.service link")
    for key, what in (("processes", "edgeswiped processes"), ("listening", "sockets listening"), ("unit-files", "unit files"),
                      ("units", "units loaded")):
        v.require(not gone.get(key, "").strip(), f"after the purge: {what}: {gone.get(key)}")
    v.require("No such file" in gone.get("etc-edgeswipe", ""), f"/etc/edgeswipe is still there: {gone.get('etc-edgeswipe')}")
    v.require("group:edgeswipe" not in read(os.path.join(res, "acl-purged.txt")), "a device node still grants group:edgeswipe after the purge")
    owned = [l for l in read(os.path.join(res, "owned-purged.txt")).splitlines() if l.strip()]
    v.require(not owned, f"files owned by edgeswipe remain after the purge: {owned[:10]}")
    files_before = set(read(os.path.join(res, "files-before.txt")).splitlines())
    files_after = set(read(os.path.join(res, "files-after.txt")).splitlines())
    if v.require(files_before and files_after, "no file lists before the install and after the purge"):
        left = sorted(f for f in files_after - files_before if not PURGE_LEAVES.match(f))
        v.require(not left, f"the purge left {len(left)} path(s) that were not there before the install: {left[:15]}")
        lost = sorted(f for f in files_before - files_after if not PURGE_LEAVES.match(f))
        v.require(not lost, f"the install and purge removed {len(lost)} path(s) that were there before: {lost[:15]}")
    if gone.get("user"):
        v.notes.append("the edgeswipe user and group stay after the purge, as Debian's packages leave the system users "
                       "they made (a uid given back could be reused and own another's files)")
    journal = read(os.path.join(res, "journal.txt"))
    for pattern in ("watchdog", "SIGSYS", "Failed with result", "core-dump", "Failed to set thread priority", "error"):
        hit = [l for l in journal.splitlines() if pattern.lower() in l.lower()]
        if hit:
            v.notes.append(f"journal: {len(hit)} line(s) like: {hit[0][:200]}")
    for f in ("a.timing", "b.timing"):
        worst = re.search(r"worst_lateness_ms=([\d.]+)", read(os.path.join(res, f)))
        if worst and float(worst.group(1)) > 8:
            v.notes.append(f"{f}: a frame was written {worst.group(1)} ms late")


def gesture_edges(msgs):
    """The edge each gesture began on, in order."""
    return [m.get("edge") for m in msgs if m.get("type") == "gesture" and m.get("state") == "began"]


def session_scenario(res, v):
    """Scenario 9: the installed service admits the user of the seat's active logind session (and no one else
    outside its lists), closes that user's client with `goodbye` `session-inactive` when another session becomes
    active, and turns the next swipe after `set-rotation`. One touchscreen swipes from its physical left edge three
    times: for alice, for alice after `edgeswipectl rotate 90`, and for bob after the switch."""
    common(v, res)
    seat = read(os.path.join(res, "seat-before.txt"))
    v.require("dbus: active" in seat and "logind: active" in seat,
              f"the guest's system bus or logind is not running: {seat.strip()!r}")
    sessions = read(os.path.join(res, "sessions.txt"))
    if not v.require(" alice " in sessions and " bob " in sessions,
                     f"no logind sessions of alice and bob: {sessions.strip()!r} "
                     f"{read(os.path.join(res, 'session-alice.err')).strip()[-200:]!r}"):
        return
    for who in ("alice", "bob"):
        line = next((l for l in sessions.splitlines() if f" {who} " in l), "")
        v.require("seat0" in line, f"{who}'s session is not on seat0: {line.strip()!r}")
    alice = load(os.path.join(res, "alice.jsonl"))
    v.require(any(m.get("type") == "hello" for m in alice),
              f"alice, the active session's user, got no hello: {read(os.path.join(res, 'alice.err')).strip()[-300:]!r}")
    for name, who in (("bob-inactive", "bob (a session, not the active one)"), ("carol-none", "carol (no session)"),
                      ("alice-after-switch", "alice (after the switch)")):
        got = load(os.path.join(res, name + ".jsonl"))
        ran = os.path.exists(os.path.join(res, name + ".exit"))
        if v.require(ran, f"{who} never tried to connect"):
            v.require(not any(m.get("type") == "hello" for m in got), f"{who} was admitted: {got[:1]}")
    edges = gesture_edges(alice)
    v.require(edges[:1] == ["left"], f"alice's first swipe began on {edges[:1]}, expected the left edge")
    v.require(read(os.path.join(res, "rotate.exit")).strip() == "0",
              f"edgeswipectl rotate 90 as alice failed: {read(os.path.join(res, 'rotate.txt')).strip()[-300:]!r}")
    changed = [m for m in alice if m.get("type") == "device" and m.get("change") == "changed"]
    if v.require(changed, "no device 'changed' after set-rotation"):
        v.require(changed[0].get("rotation") == 90, f"the device changed to rotation {changed[0].get('rotation')}, expected 90")
        after = gesture_edges(alice[alice.index(changed[0]):])
        v.require(after[:1] == ["top"], f"after rotate 90 the physical left-edge swipe began on {after[:1]}, "
                                        "expected the top edge")
    goodbyes = [m for m in alice if m.get("type") == "goodbye"]
    if v.require(goodbyes, "alice's client got no goodbye at the switch"):
        v.require(goodbyes[0].get("reason") == "session-inactive",
                  f"alice's goodbye says {goodbyes[0].get('reason')!r}, expected 'session-inactive'")
        v.require(alice[-1] is goodbyes[0], "alice's client got messages after its goodbye")
    v.require(len(edges) == 2, f"alice's client saw {len(edges)} swipe(s) begin, expected 2 (none of bob's)")
    bob = load(os.path.join(res, "bob.jsonl"))
    hello = next((m for m in bob if m.get("type") == "hello"), None)
    if v.require(hello is not None, f"bob, active after the switch, got no hello: "
                                    f"{read(os.path.join(res, 'bob.err')).strip()[-300:]!r}"):
        screens = [d for d in hello.get("devices", []) if isinstance(d, dict) and d.get("name") == "EdgeSwipe E2E Touchscreen"]
        v.require(screens and screens[0].get("rotation") == 90, f"bob's hello does not list the screen at 90: {screens}")
        v.require(gesture_edges(bob)[:1] == ["top"], f"bob's swipe began on {gesture_edges(bob)[:1]}, expected the top edge")
        v.require(any(m.get("type") == "goodbye" for m in bob), "bob's client got no goodbye at shutdown")
    stopped = props(os.path.join(res, "service-stopped.txt"))
    v.require(stopped.get("Result") == "success", f"the service stopped with Result={stopped.get('Result')}")
    v.require(stopped.get("NRestarts", "0") == "0", f"the service restarted {stopped.get('NRestarts')} time(s)")
    ends = [m.get("phase") for m in alice + bob if terminal(m)]
    v.notes.append(f"alice's swipes: {edges}, bob's: {gesture_edges(bob)}; transitions ended: {ends}")


def side_by_side_load(res):
    try:
        with open(os.path.join(res, "side-by-side.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def side_by_side_scenario(res, exp, v):
    """Scenario 8 judges edgeswiped only (each swipe's edge, and the outcome the offline replay with the same
    configuration gives); lisgd is the peer being measured, so only that it ran at all is required."""
    common(v, res)
    status = read(os.path.join(res, "side-by-side.exit")).strip()
    v.require(status == "0", f"the side-by-side driver exited with {status or '?'}: "
                             f"{read(os.path.join(res, 'side-by-side.err')).strip()[-300:]}")
    data = side_by_side_load(res)
    if not v.require(data is not None, "no side-by-side.json"):
        return
    swipes = data["swipes"]
    v.require(len(swipes) == 20, f"{len(swipes)} swipes recorded, expected 20")
    offline = [m.get("phase") for m in load(os.path.join(exp, "side-by-side.jsonl")) if terminal(m)]
    live = [(s.get("es_terminal") or {}).get("phase") for s in swipes]
    v.require(offline == [s["plan"]["edgeswiped"] for s in swipes],
              f"the offline replay's outcomes {offline} are not the plan's")
    for i, s in enumerate(swipes):
        p = s["plan"]
        began = s.get("es_began") or {}
        v.require(began.get("edge") == p["edge"], f"swipe {i + 1} ({p['edge']} {p['kind']}): edgeswiped's gesture "
                                                  f"began on edge {began.get('edge')}")
        v.require(live[i] == p["edgeswiped"], f"swipe {i + 1} ({p['edge']} {p['kind']}): edgeswiped's transition "
                                              f"{live[i]}, expected {p['edgeswiped']}")
    v.require(any(s["lisgd_R"] for s in swipes), "lisgd (release mode) never ran a command: is it running? "
                                                 f"{read(os.path.join(res, 'lisgd-R.err')).strip()[-200:]!r}")
    v.notes.append("tabulate it: scripts/e2e/check.py --side-by-side RUN_DIR (docs/PERFORMANCE.md)")


def percentile(xs, q):
    """Nearest rank."""
    xs = sorted(xs)
    if not xs:
        return None
    import math
    return xs[max(0, math.ceil(q / 100 * len(xs)) - 1)]


def side_by_side_table(run, markdown):
    res = os.path.join(run, "results", "scenario-8")
    data = side_by_side_load(res)
    if data is None:
        print(f"no {res}/side-by-side.json", file=sys.stderr)
        return 1
    ms = lambda a, b: None if a is None or b is None else (a - b) / 1e6
    rows, ff_es, ff_r, ff_p, dec_es, dec_r = [], [], [], [], [], []
    agree_edge = agree_act = 0
    skew = []
    for i, s in enumerate(data["swipes"]):
        p = s["plan"]
        kd, ku = s.get("kernel_down"), s.get("kernel_up")
        if kd is not None and s.get("written_down") is not None:
            skew.append((kd - s["written_down"]) / 1e6)
        began = s.get("es_began") or {}
        decision = s.get("es_decision") or {}
        term = (s.get("es_terminal") or {}).get("phase")
        r = s["lisgd_R"][0] if s["lisgd_R"] else None
        pp = s["lisgd_P"][0] if s["lisgd_P"] else None
        f_es, f_r, f_p = ms(began.get("t"), kd), ms(r and r["t"], kd), ms(pp and pp["t"], kd)
        d_es, d_r = ms(decision.get("t"), ku), ms(r and r["t"], ku)
        for xs, x in ((ff_es, f_es), (ff_r, f_r), (ff_p, f_p), (dec_es, d_es), (dec_r, d_r)):
            if x is not None:
                xs.append(x)
        r_edge = r["tag"] if r and r["tag"] in ("left", "right", "top", "bottom") else None
        agree_edge += began.get("edge") == p["edge"] and r_edge == p["edge"]
        acted_es = term == "completed"
        agree_act += acted_es == (r_edge is not None)
        f = lambda x: "-" if x is None else f"{x:.0f}"
        rows.append([str(i + 1), p["edge"], f"{p['kind']} {round(p['percent'] * 100)} %",
                     f"{began.get('edge') or '-'} {term or '-'}", (r["tag"] if r else "nothing"),
                     f"{pp['tag']} x{len(s['lisgd_P'])}" if pp else "nothing",
                     f(f_es), f(f_r), f(f_p), f(d_es), f(d_r)])
    head = ["#", "edge", "swipe", "edgeswiped", "lisgd R", "lisgd P", "first fb es", "first fb lisgd R",
            "first fb lisgd P", "decision es", "decision lisgd R"]
    if markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "|".join("---" if j < 6 else "---:" for j in range(len(head))) + "|")
        for row in rows:
            print("| " + " | ".join(row) + " |")
    else:
        widths = [max(len(h), *(len(r[j]) for r in rows)) for j, h in enumerate(head)]
        print("  ".join(h.ljust(w) for h, w in zip(head, widths)))
        for row in rows:
            print("  ".join(c.ljust(w) for c, w in zip(row, widths)))
    print()
    stat = lambda xs: (statistics.median(xs), percentile(xs, 90)) if xs else (None, None)
    summary_rows = [("time to first feedback, edgeswiped (`gesture` `began` read by a client)", ff_es),
                    ("time to first feedback, lisgd release mode (its command runs)", ff_r),
                    ("time to first feedback, lisgd pressed mode (its command runs)", ff_p),
                    ("decision latency, edgeswiped (`finishing`/`cancelling` read by a client)", dec_es),
                    ("decision latency, lisgd release mode (its command runs)", dec_r)]
    fmt = lambda x: "-" if x is None else f"{x:.1f}"
    print("| measure (ms, from the kernel's timestamp) | n | median | p90 |" if markdown else "measure  n  median  p90")
    if markdown:
        print("|---|---:|---:|---:|")
    for name, xs in summary_rows:
        med, p90 = stat(xs)
        print(f"| {name} | {len(xs)} | {fmt(med)} | {fmt(p90)} |" if markdown else f"{name}  {len(xs)}  {fmt(med)}  {fmt(p90)}")
    print()
    def ratio(a, b):
        (ma, pa), (mb, pb) = stat(a), stat(b)
        return "-" if None in (ma, mb, pa, pb) or 0 in (mb, pb) else f"median {ma / mb:.2f}, p90 {pa / pb:.2f}"
    print(f"ratio edgeswiped / lisgd, first feedback vs release mode: {ratio(ff_es, ff_r)}")
    print(f"ratio edgeswiped / lisgd, first feedback vs pressed mode: {ratio(ff_es, ff_p)}")
    print(f"ratio edgeswiped / lisgd, decision vs release mode: {ratio(dec_es, dec_r)}")
    n = len(data["swipes"])
    print(f"agreement: same edge from both (and the plan's) in {agree_edge}/{n}; "
          f"acted alike (edgeswiped completed <=> lisgd ran its edge command) in {agree_act}/{n}")
    if skew:
        print(f"kernel timestamp - writer's time before write(): {min(skew):.2f} .. {max(skew):.2f} ms")
    spawn = data.get("command_spawn_ms") or []
    if spawn:
        med, p90 = stat(spawn)
        print(f"running lisgd's command by itself (posix_spawn of sh -c <the same sed> to its stamp), n={len(spawn)}: "
              f"median {med:.1f} ms, p90 {p90:.1f} ms")
        mr = stat(dec_r)[0]
        if mr is not None:
            print(f"lisgd release mode, decision latency less the median command cost: {mr - med:.1f} ms "
                  f"(edgeswiped / that: {stat(dec_es)[0] / max(mr - med, 0.001):.2f})")
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("run", nargs="?")
    ap.add_argument("--scenarios", default="1,2,3,4,5,6,7,9,10,11")
    ap.add_argument("--guest-seconds", type=int)
    ap.add_argument("--total-seconds", type=int)
    ap.add_argument("--expect-fail", default="",
                    help="scenarios known to fail (a daemon bug being fixed): shown as XFAIL, and as XPASS (a failure) "
                         "once they pass, so that the list is kept honest")
    ap.add_argument("--count-terminals")
    ap.add_argument("--summary")
    ap.add_argument("--side-by-side", metavar="RUN_DIR")
    ap.add_argument("--markdown", action="store_true")
    a = ap.parse_args()
    if a.count_terminals:
        print(sum(1 for m in load(a.count_terminals) if terminal(m)))
        return 0
    if a.side_by_side:
        return side_by_side_table(a.side_by_side, a.markdown)
    if a.summary:
        print("\n".join(summary(load(a.summary))))
        return 0

    wanted = [int(x) for x in a.scenarios.split(",") if x]
    known = {int(x) for x in a.expect_fail.split(",") if x}
    rows, failed, passed, xfailed = [], 0, 0, 0
    for n in wanted:
        v = Verdict()
        scenario(n, a.run, v)
        ms = read(os.path.join(a.run, "results", f"scenario-{n}", "guest-ms")).strip()
        t = f"{int(ms) / 1000:.1f}s" if ms.isdigit() else "-"
        result = "PASS" if not v.problems else "FAIL"
        if n in known:
            result = "XFAIL" if result == "FAIL" else "XPASS"
            if result == "XPASS":
                v.problems.append("passes now: take it off E2E_EXPECT_FAIL")
        failed += result in ("FAIL", "XPASS")
        passed += result == "PASS"
        xfailed += result == "XFAIL"
        rows.append((n, result, t, v))
    print()
    print(f"{'scenario':<54} {'result':<7} {'time':>7}")
    print("-" * 70)
    for n, result, t, v in rows:
        print(f"{str(n) + '. ' + NAMES.get(n, '?'):<54} {result:<7} {t:>7}")
        for p in v.problems:
            print(f"     - {p}")
        for note in v.notes:
            print(f"     . {note}")
    print("-" * 70)
    extra = []
    if a.guest_seconds is not None:
        extra.append(f"guest {a.guest_seconds}s (boot to power-off)")
    if a.total_seconds is not None:
        extra.append(f"whole run {a.total_seconds}s")
    if extra:
        print("e2e timing: " + ", ".join(extra))
    if xfailed:
        print(f"e2e: {xfailed} known failure(s) (E2E_EXPECT_FAIL), shown as XFAIL above; they are not passes")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
