#!/usr/bin/python3
"""A private D-Bus "system bus" with a fake logind and a fake iio-sensor-proxy, for tests and for trying
edgeswiped by hand; and, asked for by name, a fake KWin (`kwin`: org.kde.kglobalaccel's /component/kwin with
invokeShortcut) and a fake GNOME Shell (`shell`: org.gnome.Shell's OverviewActive), the session bus of
edgeswipe-session's D-Bus effects (point DBUS_SESSION_BUS_ADDRESS at the same address). Debian's python3-dbus and python3-dbusmock (hence /usr/bin/python3, not whatever python3 is first
on the PATH).

It starts a real dbus-daemon and python3-dbusmock's `logind` and `iio-sensors-proxy` templates on it, prints
`address=<bus address>` (point DBUS_SYSTEM_BUS_ADDRESS at it), then reads commands from standard input, one per
line, and answers each with `ok [detail]` or `error <reason>`:

  session ID UID NAME      a session on seat0 for UID (logind's AddSession), made the seat's active session
  activate ID              make session ID the seat's active session (PropertiesChanged on the seat)
  deactivate               no active session on the seat
  orientation VALUE        the accelerometer reads VALUE (normal, left-up, right-up, bottom-up, undefined)
  claimed                  ok if someone has claimed the accelerometer (else error), with the claimers
  bad-orientations N SIZE  N readings that are no orientation: strings of SIZE characters and integers, in turn
  sleep true|false         logind's PrepareForSleep(true|false)
  stop logind|sensors      the service leaves the bus (its process is killed)
  start logind|sensors     it comes back (a new process, a new unique name; logind keeps no sessions)
  freeze logind|sensors    its process stops (SIGSTOP) and answers nothing, as a service starved of the processor
                           on a loaded machine; it keeps its name, and the bus queues what is sent to it
  thaw logind|sensors      it runs again (SIGCONT) and answers what was queued
  kwin-calls               ok, then the shortcuts KWin was asked to invoke, comma-separated
  overview                 ok true|false: GNOME Shell's OverviewActive
  extension                EdgeSwipe's GNOME Shell extension on the fake GNOME Shell (`shell`): org.edgeswipe.Shell1
                           at /org/edgeswipe/Shell (its Register offers everything, its other methods are recorded),
                           and its Ready signal
  ext-calls                ok, then the calls made to it, `Member arg,arg` each, separated by `;`
  ext-focus APP DESKTOP    its FocusedApp becomes (APP, DESKTOP) and FocusedAppChanged is sent ("-" for empty)
  ext-settle ID REASON     its GestureSettled(ID, REASON)
  ext-modal true|false     a modal dialog is up: BeginGesture answers Error.NotAllowedNow
  ext-ready                its Ready signal again (as after the lock screen)
  ext-forge-focus APP      a FocusedAppChanged naming APP, from a connection that is not GNOME Shell
  forge ID                 a seat PropertiesChanged naming session ID, addressed to every other connection by
                           someone who does not own logind
  quit                     stop everything (also on end of input)

With `slow-logind` among the services (`scripts/seat-bus-mock.py slow-logind`), logind is our own small fake instead of
dbusmock's (the seat's ActiveSession and each session's User, answered through Properties.Get; no sleep, no
forging), whose answers can be held back, as a logind on a machine that is thrashing would:

  session ID UID NAME      a session for UID, made the seat's active session
  activate ID / deactivate as above
  delay SECONDS            answer every later question SECONDS after it was asked (0: at once)
  pending                  ok N: the questions asked and not answered yet

By hand:
  scripts/seat-bus-mock.py         # then type commands; in another shell:
  DBUS_SYSTEM_BUS_ADDRESS=... edgeswiped --config with-active-session.toml
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import dbus

MOCK = "org.freedesktop.DBus.Mock"
LOGIND = "org.freedesktop.login1"
SENSORS = "net.hadess.SensorProxy"
SEAT = "/org/freedesktop/login1/seat/seat0"
KWIN = "org.kde.kglobalaccel"
SHELL = "org.gnome.Shell"
EXT = "org.edgeswipe.Shell1"
EXT_PATH = "/org/edgeswipe/Shell"
EXT_CAPABILITIES = ["workspace", "overview", "keys", "focused-app", "claim:touchpad-horizontal", "claim:touchpad-vertical",
                    "claim:touchscreen-horizontal", "claim:touchscreen-vertical"]
# Each service: its bus name, and how python3-dbusmock starts it (a template, or a name, an object and an interface).
SERVICES = {
    "logind": (LOGIND, ["--template", "logind"]),
    "sensors": (SENSORS, ["--template", "iio-sensors-proxy", "--parameters", '{"has_accelerometer": true}']),
    "kwin": (KWIN, [KWIN, "/component/kwin", "org.kde.kglobalaccel.Component"]),
    "shell": (SHELL, [SHELL, "/org/gnome/Shell", SHELL]),
    # Our own logind (serve_slow_logind below), not dbusmock's: its answers can be held back.
    "slow-logind": (LOGIND, None),
}

CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
  </policy>
</busconfig>
"""


class Bus:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="seat-bus-")
        socket = os.path.join(self.dir, "bus")
        config = os.path.join(self.dir, "bus.conf")
        with open(config, "w") as f:
            f.write(CONFIG.format(socket=socket))
        self.daemon = subprocess.Popen(
            ["dbus-daemon", "--config-file", config, "--nofork", "--nopidfile", "--print-address=1"],
            stdout=subprocess.PIPE, text=True)
        self.address = self.daemon.stdout.readline().strip()
        if not self.address:
            raise SystemExit("dbus-daemon did not start")
        self.env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=self.address)
        os.environ["DBUS_SYSTEM_BUS_ADDRESS"] = self.address
        self.conn = dbus.bus.BusConnection(self.address)
        self.mocks = {}
        self.sessions = {}

    def wait_for_name(self, name, present, timeout=20):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.conn.name_has_owner(name) == present:
                return
            time.sleep(0.02)
        raise RuntimeError(f"{name} did not {'appear' if present else 'go'}")

    def start(self, which):
        if which in self.mocks:
            return
        if which == "slow-logind":
            self.mocks[which] = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--serve-slow-logind"],
                                                 env=self.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            if self.mocks[which].stdout.readline().strip() != "ready":
                raise RuntimeError("the slow logind did not start")
            return
        name, how = SERVICES[which]
        args = [sys.executable, "-m", "dbusmock", "--system"] + how
        self.mocks[which] = subprocess.Popen(args, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.wait_for_name(name, True)
        if which == "kwin":
            self.kwin_mock().AddMethod("org.kde.kglobalaccel.Component", "invokeShortcut", "s", "", "")
        if which == "shell":
            self.shell_mock().AddProperty(SHELL, "OverviewActive", dbus.Boolean(False))
        if which == "logind":
            self.sessions = {}
            self.logind_mock().AddSeat("seat0")

    def stop(self, which):
        process = self.mocks.pop(which, None)
        if process is None:
            return
        process.kill()
        process.wait()
        self.wait_for_name(SERVICES[which][0], False)

    def kwin_mock(self):
        return dbus.Interface(self.conn.get_object(KWIN, "/component/kwin"), MOCK)

    def shell_mock(self):
        return dbus.Interface(self.conn.get_object(SHELL, "/org/gnome/Shell"), MOCK)

    def slow_logind(self, line):
        """Hands a command to our own logind and returns its answer."""
        process = self.mocks["slow-logind"]
        process.stdin.write(line + "\n")
        process.stdin.flush()
        return process.stdout.readline().strip() or "error the slow logind ended"

    def ext_mock(self):
        return dbus.Interface(self.conn.get_object(SHELL, EXT_PATH), MOCK)

    def logind_mock(self):
        return dbus.Interface(self.conn.get_object(LOGIND, "/org/freedesktop/login1"), MOCK)

    def seat(self):
        return self.conn.get_object(LOGIND, SEAT)

    def set_active(self, session_id):
        path = self.sessions.get(session_id, "/")
        value = dbus.Struct((session_id if path != "/" else "", dbus.ObjectPath(path)), signature="so")
        self.seat().Set("org.freedesktop.login1.Seat", "ActiveSession", value,
                        dbus_interface="org.freedesktop.DBus.Properties")

    def command(self, words):
        op = words[0]
        if "slow-logind" in self.mocks and op in ("session", "activate", "deactivate", "delay", "pending"):
            return self.slow_logind(" ".join(words))
        if op == "session":
            session_id, uid, name = words[1], int(words[2]), words[3]
            self.sessions[session_id] = str(self.logind_mock().AddSession(session_id, "seat0", dbus.UInt32(uid), name, True))
            return "ok " + self.sessions[session_id]
        if op == "activate":
            if words[1] not in self.sessions:
                return f"error no session {words[1]}"
            self.set_active(words[1])
            return "ok"
        if op == "activate-ahead":
            # The seat names a session whose object logind has not made yet: reading its user fails, as a call
            # that times out on a loaded machine does. `add-session` makes it afterwards, without a seat signal.
            path = "/org/freedesktop/login1/session/" + words[1]
            self.sessions[words[1]] = path
            self.seat().Set("org.freedesktop.login1.Seat", "ActiveSession",
                            dbus.Struct((words[1], dbus.ObjectPath(path)), signature="so"),
                            dbus_interface="org.freedesktop.DBus.Properties")
            return "ok " + path
        if op == "add-session":
            session_id, uid, name = words[1], int(words[2]), words[3]
            self.sessions[session_id] = str(self.logind_mock().AddSession(session_id, "seat0", dbus.UInt32(uid), name, False))
            return "ok " + self.sessions[session_id]
        if op == "deactivate":
            self.set_active("")
            return "ok"
        if op == "orientation":
            sensors = dbus.Interface(self.conn.get_object(SENSORS, "/net/hadess/SensorProxy"), MOCK)
            sensors.SetInternalProperty(SENSORS, "AccelerometerOrientation", words[1])
            return "ok"
        if op == "bad-orientations":
            sensors = dbus.Interface(self.conn.get_object(SENSORS, "/net/hadess/SensorProxy"), MOCK)
            for i in range(int(words[1])):
                value = "z" * int(words[2]) + str(i) if i % 2 == 0 else dbus.Int32(i)
                sensors.SetInternalProperty(SENSORS, "AccelerometerOrientation", value)
            return "ok"
        if op == "claimed":
            sensors = dbus.Interface(self.conn.get_object(SENSORS, "/net/hadess/SensorProxy"), MOCK)
            owners = [str(o) for o in sensors.GetInternalProperty("AccelerometerOwners")]
            return ("ok " if owners else "error nobody ") + " ".join(owners)
        if op == "sleep":
            self.logind_mock().EmitSignal("org.freedesktop.login1.Manager", "PrepareForSleep", "b",
                                          [dbus.Boolean(words[1] == "true")])
            return "ok"
        if op == "stop":
            self.stop(words[1])
            return "ok"
        if op == "start":
            self.start(words[1])
            return "ok"
        if op in ("freeze", "thaw"):
            process = self.mocks.get(words[1])
            if process is None:
                return f"error {words[1]} is not running"
            os.kill(process.pid, signal.SIGSTOP if op == "freeze" else signal.SIGCONT)
            return "ok"
        if op == "kwin-calls":
            calls = self.kwin_mock().GetMethodCalls("invokeShortcut")
            return "ok " + ",".join(str(args[0]) for _, args in calls)
        if op == "overview":
            active = self.conn.get_object(SHELL, "/org/gnome/Shell").Get(SHELL, "OverviewActive",
                                                                        dbus_interface="org.freedesktop.DBus.Properties")
            return "ok " + ("true" if active else "false")
        if op == "extension":
            self.shell_mock().AddObject(EXT_PATH, EXT, {
                "ApiVersion": dbus.UInt32(1), "Modal": False,
                "FocusedApp": dbus.Struct(("", ""), signature="ss"),
            }, [
                ("Register", "u", "usas", 'ret = (dbus.UInt32(1), "43.9", ' + repr(EXT_CAPABILITIES) + ')'),
                ("Unregister", "", "", ""),
                ("BeginGesture", "tsi", "", 'if self.props["' + EXT + '"]["Modal"]:\n'
                 '    raise dbus.exceptions.DBusException("a modal dialog is up", name="' + EXT + '.Error.NotAllowedNow")'),
                ("UpdateGesture", "td", "", ""),
                ("EndGesture", "tbu", "", ""),
                ("SendChord", "asu", "", ""),
                ("ClaimGestures", "as", "as", "ret = args[0]"),
            ])
            self.ext_mock().EmitSignal(EXT, "Ready", "u", [dbus.UInt32(1)])
            return "ok"
        if op == "ext-calls":
            calls = self.ext_mock().GetCalls()
            def text(v):
                if isinstance(v, (list, dbus.Array)):
                    return "[" + " ".join(text(x) for x in v) + "]"
                if isinstance(v, dbus.Boolean):
                    return "true" if v else "false"
                if isinstance(v, float):
                    return "%.3f" % v
                return str(v)
            return "ok " + ";".join(str(m) + " " + ",".join(text(a) for a in args) for _, m, args in calls)
        if op == "ext-focus":
            app, desktop = ("" if w == "-" else w for w in words[1:3])
            self.conn.get_object(SHELL, EXT_PATH).Set(EXT, "FocusedApp", dbus.Struct((app, desktop), signature="ss"),
                                                      dbus_interface="org.freedesktop.DBus.Properties")
            self.ext_mock().EmitSignal(EXT, "FocusedAppChanged", "ss", [app, desktop])
            return "ok"
        if op == "ext-settle":
            self.ext_mock().EmitSignal(EXT, "GestureSettled", "ts", [dbus.UInt64(int(words[1])), words[2]])
            return "ok"
        if op == "ext-modal":
            self.conn.get_object(SHELL, EXT_PATH).Set(EXT, "Modal", dbus.Boolean(words[1] == "true"),
                                                      dbus_interface="org.freedesktop.DBus.Properties")
            return "ok"
        if op == "ext-ready":
            self.ext_mock().EmitSignal(EXT, "Ready", "u", [dbus.UInt32(1)])
            return "ok"
        if op == "ext-forge-focus":
            forger = dbus.bus.BusConnection(self.address)
            message = dbus.lowlevel.SignalMessage(EXT_PATH, EXT, "FocusedAppChanged")
            message.append(words[1], words[1], signature="ss")
            forger.send_message(message)
            forger.flush()
            forger.close()
            return "ok"
        if op == "forge":
            # The same signal logind would send, from a connection that does not own its name.
            # Broadcast, the bus itself drops it (the subscriber's match names logind as the sender); addressed to
            # each connection, it is delivered, and only the receiver can tell it is not logind's.
            forger = dbus.bus.BusConnection(self.address)
            path = self.sessions.get(words[1], "/org/freedesktop/login1/session/" + words[1])
            owners = {self.conn.get_name_owner(n) for n in (LOGIND, SENSORS) if self.conn.name_has_owner(n)}
            targets = [n for n in self.conn.list_names()
                       if n.startswith(":") and n not in owners and n not in (self.conn.get_unique_name(), forger.get_unique_name())]
            for target in targets:
                message = dbus.lowlevel.SignalMessage(SEAT, "org.freedesktop.DBus.Properties", "PropertiesChanged")
                message.set_destination(target)
                message.append("org.freedesktop.login1.Seat",
                               dbus.Dictionary({"ActiveSession": dbus.Struct((words[1], dbus.ObjectPath(path)), signature="so")},
                                               signature="sv"),
                               dbus.Array([], signature="s"), signature="sa{sv}as")
                forger.send_message(message)
            forger.flush()
            forger.close()
            return "ok " + " ".join(targets)
        return f"error unknown command {op}"

    def close(self):
        for which in list(self.mocks):
            self.stop(which)
        self.daemon.kill()
        self.daemon.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def object_label(text):
    """sd-bus's escaping of an identifier into one object path element (sd_bus_path_encode): letters stay, and
    digits after the first character; every other byte becomes _xx."""
    if not text:
        return "_"
    return "".join(chr(b) if (chr(b).isascii() and chr(b).isalpha()) or (chr(b).isdigit() and i > 0) else "_%02x" % b
                   for i, b in enumerate(text.encode()))


def serve_slow_logind():
    """Our own logind (--serve-slow-logind): owns org.freedesktop.login1 on DBUS_SYSTEM_BUS_ADDRESS, answers
    Properties.Get for the seat's ActiveSession and each session's User after the delay in force, and takes the
    commands `session ID UID [NAME]`, `activate ID|-`, `deactivate`, `delay SECONDS` and `pending` on stdin."""
    import dbus.lowlevel
    from dbus.mainloop.glib import DBusGMainLoop
    from gi.repository import GLib

    DBusGMainLoop(set_as_default=True)
    conn = dbus.bus.BusConnection(os.environ["DBUS_SYSTEM_BUS_ADDRESS"])
    users = {}            # session path -> uid
    ids = {}              # session id -> path
    state = {"active": "", "delay": 0.0, "pending": 0}
    properties = "org.freedesktop.DBus.Properties"

    def active_value():
        sid = state["active"]
        return dbus.Struct((sid, dbus.ObjectPath(ids.get(sid, "/"))), signature="so", variant_level=1)

    def reply(message):
        state["pending"] -= 1
        member, path, args = message.get_member(), message.get_path(), message.get_args_list()
        if member == "Get" and path == SEAT and args[1:] == ["ActiveSession"]:
            answer = dbus.lowlevel.MethodReturnMessage(message)
            answer.append(active_value(), signature="v")
        elif member == "Get" and path in users and args[1:] == ["User"]:
            uid = users[path]
            answer = dbus.lowlevel.MethodReturnMessage(message)
            answer.append(dbus.Struct((dbus.UInt32(uid), dbus.ObjectPath("/org/freedesktop/login1/user/_%d" % uid)),
                                      signature="uo", variant_level=1), signature="v")
        elif path in users or path == SEAT:
            answer = dbus.lowlevel.ErrorMessage(message, "org.freedesktop.DBus.Error.UnknownProperty", "no such property")
        else:
            answer = dbus.lowlevel.ErrorMessage(message, "org.freedesktop.DBus.Error.UnknownObject", "no such object " + path)
        conn.send_message(answer)
        return False

    def on_message(_, message):
        if message.get_type() != 1 or message.get_destination() not in (LOGIND, conn.get_unique_name()):
            return dbus.lowlevel.HANDLER_RESULT_NOT_YET_HANDLED
        state["pending"] += 1
        if state["delay"] > 0:
            GLib.timeout_add(int(state["delay"] * 1000), reply, message)
        else:
            reply(message)
        return dbus.lowlevel.HANDLER_RESULT_HANDLED

    def activate(sid):
        state["active"] = sid
        signal = dbus.lowlevel.SignalMessage(SEAT, properties, "PropertiesChanged")
        signal.append("org.freedesktop.login1.Seat", dbus.Dictionary({"ActiveSession": active_value()}, signature="sv"),
                      dbus.Array([], signature="s"), signature="sa{sv}as")
        conn.send_message(signal)
        conn.flush()

    def command(words):
        op = words[0]
        if op == "session":
            ids[words[1]] = "/org/freedesktop/login1/session/" + object_label(words[1])
            users[ids[words[1]]] = int(words[2])
            activate(words[1])
            return "ok " + ids[words[1]]
        if op == "activate":
            if words[1] != "-" and words[1] not in ids:
                return "error no session " + words[1]
            activate("" if words[1] == "-" else words[1])
            return "ok"
        if op == "deactivate":
            activate("")
            return "ok"
        if op == "delay":
            state["delay"] = float(words[1])
            return "ok"
        if op == "pending":
            return "ok %d" % state["pending"]
        return "error unknown command " + op

    def on_stdin(*_):
        line = sys.stdin.readline()
        if not line:
            loop.quit()
            return False
        try:
            print(command(line.split()), flush=True)
        except Exception as e:  # the controller reads the reason
            print(f"error {type(e).__name__}: {e}".replace("\n", " "), flush=True)
        return True

    conn.add_message_filter(on_message)
    if conn.request_name(LOGIND) != dbus.bus.REQUEST_NAME_REPLY_PRIMARY_OWNER:
        raise SystemExit("cannot own " + LOGIND)
    loop = GLib.MainLoop()
    GLib.io_add_watch(sys.stdin.fileno(), GLib.IO_IN | GLib.IO_HUP, on_stdin)
    print("ready", flush=True)
    loop.run()


def main():
    if sys.argv[1:] == ["--serve-slow-logind"]:
        serve_slow_logind()
        return
    # A test runner may start us with signals blocked or ignored, which our children would inherit: undo that, so
    # that the bus and the mocks stop when told.
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGPIPE):
        signal.signal(s, signal.SIG_DFL)
    want = set(sys.argv[1:]) or {"logind", "sensors"}
    bus = Bus()
    try:
        for which in SERVICES:
            if which in want:
                bus.start(which)
        print(f"address={bus.address}", flush=True)
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            if words[0] == "quit":
                break
            try:
                print(bus.command(words), flush=True)
            except Exception as e:  # the test reads the reason
                print(f"error {type(e).__name__}: {e}".replace("\n", " "), flush=True)
    finally:
        bus.close()


if __name__ == "__main__":
    main()
