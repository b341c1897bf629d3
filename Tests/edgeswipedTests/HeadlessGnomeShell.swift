import EdgeSwipeTestSupport
import Foundation
import Glibc

/// A real GNOME Shell 43, headless (`gnome-shell --wayland --headless --no-x11 --virtual-monitor 1280x800`), in a
/// ``HeadlessSession`` (as `nobody` when the tests run as root, its own 0700 `XDG_RUNTIME_DIR` and `HOME`, every process
/// in a process group killed at the end, its logs kept in `compositors/gnome-shell/`), with the EdgeSwipe extension
/// installed where GNOME finds system extensions (`share/gnome-shell/extensions` on `XDG_DATA_DIRS`, as `make install`
/// puts it) and the test-only observer beside it (`GnomeShell/`, never installed).
///
/// Its settings are a keyfile in its `HOME` (`GSETTINGS_BACKEND=keyfile`: the extensions enabled, four static
/// workspaces, new windows centred, no notification banners over the screenshots); `dbus-run-session` gives it a
/// private session bus, on which it starts a private "system" bus where python3-dbusmock's logind template stands in
/// for systemd-logind (GNOME Shell dies at start without one). All of it stays in the launcher's process group.
final class HeadlessGnomeShell: HeadlessCompositor {
    let session: HeadlessSession
    let share: URL
    let logURL: URL
    private let launcher = Process()
    private(set) var busAddress = ""
    private(set) var startSeconds = 0.0
    static let size = (width: 1280, height: 800)

    var directory: URL { session.directory }
    var runtimeDirectory: URL { session.runtimeDirectory }

    static let extensionUUID = "edgeswipe@edgeswipe.invalid"
    static let observerUUID = "edgeswipe-test-observer@edgeswipe.invalid"
    static let fixtures = Paths.packageRoot.appendingPathComponent("Tests/edgeswipedTests/GnomeShell")
    static let extensionSource = Paths.packageRoot.appendingPathComponent("gnome-shell-extension")

    /// Where the GNOME tests must run (CI): what they need missing is then a failure, not a skip.
    static var required: Bool { ProcessInfo.processInfo.environment["EDGESWIPE_REQUIRE_GNOME"] == "1" }

    /// Why GNOME Shell cannot run here (something is not installed), or `nil`: tests skip with it.
    static var unavailable: String? {
        let tools: [(String, String)] = [
            ("/usr/bin/gnome-shell", "gnome-shell (apt install --no-install-recommends gnome-shell mutter gjs)"),
            ("/usr/bin/gjs", "gjs (apt install gjs)"),
            ("/usr/bin/dbus-run-session", "dbus-run-session (apt install dbus-daemon)"),
            ("/usr/bin/dbus-daemon", "dbus-daemon (apt install dbus-daemon)"),
            ("/usr/bin/busctl", "busctl (systemd)"),
            ("/usr/bin/gdbus", "gdbus (apt install libglib2.0-bin)"),
        ]
        for (path, what) in tools where !FileManager.default.isExecutableFile(atPath: path) {
            return "no \(what): the GNOME Shell extension's tests run a real headless gnome-shell"
        }
        if !FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/dbusmock") {
            return "no python3-dbusmock (apt install python3-dbusmock): gnome-shell needs a logind, mocked on a private bus"
        }
        let gtk = ["/usr/lib/x86_64-linux-gnu/girepository-1.0/Gtk-4.0.typelib", "/usr/lib/aarch64-linux-gnu/girepository-1.0/Gtk-4.0.typelib"]
        if !gtk.contains(where: { FileManager.default.fileExists(atPath: $0) }) {
            return "no GTK 4 for gjs (apt install gir1.2-gtk-4.0): the tests' windows are GTK windows"
        }
        return ShellDriver.unavailable
    }

    init() throws {
        let session = try HeadlessSession(name: "gnome-shell")
        self.session = session
        share = session.directory.appendingPathComponent("share")
        let extensions = share.appendingPathComponent("gnome-shell/extensions")
        try FileManager.default.createDirectory(at: extensions, withIntermediateDirectories: true)
        // The shipped extension, built as `make install` builds it (readable by all), and the observer.
        let built = try run(Self.extensionSource.appendingPathComponent("build"), ["legacy", extensions.path])
        guard built.status == 0 else { throw DaemonTestError("gnome-shell-extension/build legacy: \(built.stderr)") }
        try FileManager.default.copyItem(
            at: Self.fixtures.appendingPathComponent(Self.observerUUID), to: extensions.appendingPathComponent(Self.observerUUID))
        try session.write(try String(contentsOf: Self.fixtures.appendingPathComponent("test-window.js"), encoding: .utf8), to: "test-window.js")
        // A desktop file for one of the test windows, so that GNOME knows its app by a .desktop id.
        try session.write(
            "[Desktop Entry]\nType=Application\nName=EdgeSwipe Test One\nExec=true\nNoDisplay=true\n",
            to: "share/applications/org.edgeswipe.TestOne.desktop")
        // The user's own: GNOME writes it when an extension is enabled or disabled.
        try session.write("""
            [org/gnome/shell]
            enabled-extensions=['\(Self.extensionUUID)', '\(Self.observerUUID)']
            disable-user-extensions=false
            welcome-dialog-last-shown-version='999'

            [org/gnome/mutter]
            dynamic-workspaces=false
            center-new-windows=true

            [org/gnome/desktop/wm/preferences]
            num-workspaces=4

            [org/gnome/desktop/notifications]
            show-banners=false

            [org/gnome/desktop/background]
            picture-uri=''
            picture-uri-dark=''
            primary-color='#3465a4'
            color-shading-type='solid'

            """, to: ".config/glib-2.0/settings/keyfile", under: session.home)
        let script = try session.write(Self.script, to: "shell.sh")
        logURL = try session.writableFile("gnome-shell.log")
        let (launcher, logURL, runtime) = (launcher, logURL, session.runtimeDirectory)
        var address = ""
        startSeconds = try secondsTaken {
            try session.launch(launcher, ["/usr/bin/dbus-run-session", "--", "/bin/sh", script.path], environment: [
                "XDG_SESSION_TYPE": "wayland", "GSETTINGS_BACKEND": "keyfile", "XDG_DATA_DIRS": "\(share.path):/usr/local/share:/usr/share",
                "SIZE": "\(Self.size.width)x\(Self.size.height)",
            ], log: logURL)
            _ = waitUntil(timeout: 90) {
                address = (try? String(contentsOf: runtime.appendingPathComponent("bus.addr"), encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
                let log = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
                return (log.contains("[edgeswipe-observer] ready") && !address.isEmpty) || !launcher.isRunning
            }
        }
        busAddress = address
        guard launcher.isRunning, log.contains("[edgeswipe-observer] ready"), !busAddress.isEmpty else {
            throw DaemonTestError("gnome-shell did not start (or the observer extension did not load):\n\(log.suffix(4000))")
        }
    }

    /// Run by `dbus-run-session` on the session bus it made: a private "system" bus with a fake logind, then the shell.
    static let script = """
        RT=$XDG_RUNTIME_DIR
        echo "$DBUS_SESSION_BUS_ADDRESS" > "$RT/bus.addr.tmp" && mv "$RT/bus.addr.tmp" "$RT/bus.addr"
        dbus-daemon --session --nofork --print-address=3 3>"$RT/sysbus.addr" &
        i=0; until [ -s "$RT/sysbus.addr" ]; do i=$((i+1)); [ $i -gt 200 ] && exit 3; sleep 0.05; done
        export DBUS_SYSTEM_BUS_ADDRESS=$(cat "$RT/sysbus.addr")
        python3 -m dbusmock --system --template logind > "$RT/logind-mock.log" 2>&1 &
        i=0; until gdbus introspect --system --dest org.freedesktop.login1 --object-path /org/freedesktop/login1 >/dev/null 2>&1; do
            i=$((i+1)); [ $i -gt 200 ] && exit 4; sleep 0.1
        done
        exec gnome-shell --wayland --headless --no-x11 --virtual-monitor "$SIZE"

        """

    var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    /// What a client of this shell needs on top of the session's base: Wayland, the session bus, GTK's backend.
    var environment: [String: String] {
        session.baseEnvironment.merging([
            "WAYLAND_DISPLAY": "wayland-0", "DBUS_SESSION_BUS_ADDRESS": busAddress, "GDK_BACKEND": "wayland", "GSK_RENDERER": "cairo",
            "GSETTINGS_BACKEND": "memory",
        ]) { $1 }
    }

    /// Starts `arguments` as the shell's user, with this shell's client environment, its output to `log`.
    func launch(_ process: Process, _ arguments: [String], log: URL, standardInput: Pipe? = nil, standardOutput: Pipe? = nil) throws {
        try session.launch(process, arguments, environment: environment, log: log, standardInput: standardInput, standardOutput: standardOutput)
    }

    /// A file in the directory that the shell's user may write.
    func writableFile(_ name: String) throws -> URL { try session.writableFile(name) }

    /// Calls the observer (`org.edgeswipe.TestObserver`) and answers its one return value, JSON answers parsed.
    @discardableResult
    func observe(_ method: String, _ signature: String = "", _ arguments: [String] = [], timeout: Double = 60) throws -> Any? {
        try callShell("/org/edgeswipe/TestObserver", "org.edgeswipe.TestObserver", method, signature, arguments, timeout: timeout)
    }

    /// Calls `interface.method` at `path` of org.gnome.Shell through busctl, as the shell's user, and answers its first
    /// return value (a string holding JSON parsed).
    @discardableResult
    func callShell(
        _ path: String, _ interface: String, _ method: String, _ signature: String = "", _ arguments: [String] = [], timeout: Double = 60
    ) throws -> Any? {
        let command = session.dropPrivileges + [
            "/usr/bin/env", "DBUS_SESSION_BUS_ADDRESS=\(busAddress)", "/usr/bin/busctl", "--user", "--json=short", "--timeout=\(Int(timeout))",
            "call", "org.gnome.Shell", path, interface, method,
        ] + (signature.isEmpty ? [] : [signature, "--"] + arguments)
        let r = try run(URL(fileURLWithPath: command[0]), Array(command.dropFirst()), timeoutSeconds: timeout + 10)
        guard r.status == 0 else { throw DaemonTestError("\(interface).\(method) \(arguments): \(r.stderr)") }
        guard let reply = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any],
            let value = (reply["data"] as? [Any])?.first
        else { throw DaemonTestError("\(interface).\(method): unreadable answer \(r.stdout)") }
        if let text = value as? String, let json = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed) {
            return json
        }
        return value
    }

    /// What the observer sees now.
    func state() throws -> ShellState {
        guard let json = try observe("State") as? [String: Any] else { throw DaemonTestError("observer State: not an object") }
        return ShellState(json)
    }

    /// Does `action` in the shell (observer's `Act`).
    func act(_ action: String, _ argument: String = "") throws {
        try observe("Act", "ss", [action, argument])
    }

    /// Waits until the shell's state satisfies `condition`; that state, or the last seen after `timeout`.
    @discardableResult
    func waitForState(timeout: Double = 20, _ condition: (ShellState) -> Bool) -> ShellState? {
        var last: ShellState?
        _ = waitUntil(timeout: timeout) {
            last = try? self.state()
            return last.map(condition) ?? false
        }
        return last
    }
}

/// The observer's `State`, read.
struct ShellState: CustomStringConvertible {
    let json: [String: Any]
    init(_ json: [String: Any]) { self.json = json }

    var pid: Int32 { Int32((json["pid"] as? Int) ?? 0) }
    var activeWorkspace: Int { (json["active"] as? Int) ?? -1 }
    var switching: Bool { (json["switching"] as? Bool) ?? false }
    var switchProgress: Double? { json["switch_progress"] as? Double }
    var actionMode: Int { (json["action_mode"] as? Int) ?? -1 }
    var overview: [String: Any] { (json["overview"] as? [String: Any]) ?? [:] }
    var overviewVisible: Bool { (overview["visible"] as? Bool) ?? false }
    var overviewShownState: String { (overview["shown_state"] as? String) ?? "?" }
    var overviewAnimating: Bool { (overview["animating"] as? Bool) ?? false }
    var overviewControlsState: Double { (overview["controls_state"] as? Double) ?? -1 }
    var overviewGestureInProgress: Bool { (overview["gesture_in_progress"] as? Bool) ?? false }
    var overviewWorkspaceScroll: Double { (overview["workspace_scroll"] as? Double) ?? -1 }
    var focusedWMClass: String? { (json["focus"] as? [String: Any])?["wm_class"] as? String }
    /// GNOME's own tracker `name` (workspaces, overview_workspaces, app_grid, overview): `part` is enabled,
    /// touchpad or touchscreen.
    func tracker(_ name: String, _ part: String) -> Bool? { ((json["trackers"] as? [String: Any])?[name] as? [String: Any])?[part] as? Bool }
    /// At rest: no workspace switch, no overview animation, no gesture.
    var settled: Bool { !switching && !overviewAnimating && !overviewGestureInProgress }

    var description: String {
        "workspace \(activeWorkspace)\(switching ? " switching at \(switchProgress.map { "\($0)" } ?? "?")" : ""), overview "
            + "\(overviewShownState) at \(overviewControlsState)\(overviewGestureInProgress ? " (gesture)" : ""), scroll "
            + "\(overviewWorkspaceScroll), action mode \(actionMode)"
    }
}

/// The test's stand-in for edgeswipe-session's GNOME backend: `GnomeShell/driver.c` (sd-bus, one connection),
/// built with the system compiler under the name `edgeswipe-session` (the only executable the extension serves), and
/// once more under another name, which the extension must refuse. Commands go in on its stdin; its answers, JSON
/// lines, are read on a thread.
final class ShellDriver {
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let received = ReceivedLines()
    private var tag = 0
    private(set) var uniqueName = ""
    private(set) var pid: Int32 = 0

    static var unavailable: String? {
        if WaylandProbe.compiler == nil { return "no C compiler (apt install gcc): the GNOME tests build their D-Bus driver" }
        if !FileManager.default.fileExists(atPath: "/usr/include/systemd/sd-bus.h") {
            return "no sd-bus headers (apt install libsystemd-dev): the GNOME tests build their D-Bus driver"
        }
        return nil
    }

    nonisolated(unsafe) private static var built: URL?
    private static let buildLock = NSLock()

    /// The driver, built once per test run into a folder anyone may read.
    static func binary() throws -> URL {
        buildLock.lock()
        defer { buildLock.unlock() }
        if let built { return built }
        if let why = unavailable { throw DaemonTestError(why) }
        let dir = try Paths.tempDirectory()
        chmod(dir.path, 0o755)
        let output = dir.appendingPathComponent("driver")
        let source = HeadlessGnomeShell.fixtures.appendingPathComponent("driver.c").path
        let r = try run(URL(fileURLWithPath: WaylandProbe.compiler ?? "cc"), ["-O1", "-Wall", "-o", output.path, source, "-lsystemd"])
        guard r.status == 0 else { throw DaemonTestError("building the D-Bus driver: \(r.stderr)") }
        chmod(output.path, 0o755)
        built = output
        return output
    }

    /// Starts the driver in `shell`'s session as `name` (a copy of the binary of that name).
    init(in shell: HeadlessGnomeShell, name: String = "edgeswipe-session") throws {
        let exe = shell.directory.appendingPathComponent(name)
        if !FileManager.default.fileExists(atPath: exe.path) { _ = try shell.session.copyExecutable(try Self.binary(), as: name) }
        let log = try shell.writableFile("driver-\(name)-\(UInt32.random(in: 0...UInt32.max)).log")
        try shell.launch(process, [exe.path], log: log, standardInput: input, standardOutput: output)
        // A driver that died must not take the test runner with it when the test writes to it.
        signal(SIGPIPE, SIG_IGN)
        let reader = output.fileHandleForReading
        let received = received
        Thread.detachNewThread {
            var buffer = Data()
            while true {
                let chunk = reader.availableData
                if chunk.isEmpty { return }
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: 0x0A) {
                    let line = buffer[buffer.startIndex..<newline]
                    buffer.removeSubrange(buffer.startIndex...newline)
                    if let json = try? JSONSerialization.jsonObject(with: line) as? [String: Any] { received.append(json) }
                }
            }
        }
        guard let ready = wait(timeout: 20, { $0["ready"] != nil }) else {
            throw DaemonTestError("the driver did not reach the session bus: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
        }
        uniqueName = (ready["ready"] as? String) ?? ""
        pid = Int32((ready["pid"] as? Int) ?? 0)
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Ends the driver's input: it leaves the bus and exits, as a session that quits does.
    func quit() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    /// The first line satisfying `condition`, within `timeout`.
    func wait(timeout: Double = 20, _ condition: ([String: Any]) -> Bool) -> [String: Any]? {
        var found: [String: Any]?
        _ = waitUntil(timeout: timeout) {
            found = self.received.first(where: condition)
            return found != nil
        }
        return found
    }

    private func write(_ verb: String, _ words: [String]) -> Int {
        tag += 1
        let line = ([String(tag), verb] + words).joined(separator: " ") + "\n"
        try? input.fileHandleForWriting.write(contentsOf: Data(line.utf8))
        return tag
    }

    /// Calls `method` of org.edgeswipe.Shell1 with `arguments` (see driver.c for the signature letters) and waits for
    /// its answer.
    @discardableResult
    func call(_ method: String, _ signature: String = "-", _ arguments: String..., timeout: Double = 30) -> DriverReply {
        let n = write("call", [method, signature] + arguments)
        guard let line = wait(timeout: timeout, { $0["tag"] as? Int == n && $0["sent"] == nil }) else {
            return DriverReply(values: [], error: "timeout", message: "no answer to \(method) within \(timeout) s")
        }
        return DriverReply(line)
    }

    /// Sends `method` without waiting for an answer (NO_REPLY_EXPECTED), as the session sends updates.
    func send(_ method: String, _ signature: String, _ arguments: String...) {
        _ = write("send", [method, signature] + arguments)
    }

    /// Reads a property of org.edgeswipe.Shell1.
    func get(_ property: String) -> DriverReply {
        let n = write("get", [property])
        guard let line = wait(timeout: 30, { $0["tag"] as? Int == n }) else {
            return DriverReply(values: [], error: "timeout", message: "no answer to Get \(property)")
        }
        return DriverReply(line)
    }

    /// The signals received so far, by member.
    func signals(_ member: String) -> [[String: Any]] {
        received.all.filter { $0["signal"] as? String == member }
    }
}

/// The driver's lines, appended by its reader thread.
final class ReceivedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [[String: Any]] = []

    func append(_ line: [String: Any]) { lock.withLock { lines.append(line) } }
    func first(where condition: ([String: Any]) -> Bool) -> [String: Any]? { lock.withLock { lines.first(where: condition) } }
    var all: [[String: Any]] { lock.withLock { lines } }
}

/// A method's answer through the driver: its values, or the D-Bus error's name and message.
struct DriverReply: CustomStringConvertible {
    var values: [Any]
    var error: String?
    var message: String

    init(values: [Any], error: String?, message: String) {
        self.values = values
        self.error = error
        self.message = message
    }

    init(_ line: [String: Any]) {
        values = (line["values"] as? [Any]) ?? []
        error = line["error"] as? String
        message = (line["message"] as? String) ?? ""
    }

    var ok: Bool { error == nil }
    var description: String { error.map { "\($0): \(message)" } ?? "\(values)" }
}
