import EdgeSwipeSession
import EdgeSwipeSessionModel
import EdgeSwipeTestSupport
import Foundation
import Glibc
import Testing

/// The session matrix (issue 38, "Test, in CI"): the same scenarios on headless **sway**, **phoc** and **KWin**, each
/// with the real daemon replaying a recording to a real `edgeswipe-session` started before the compositor's clients
/// (and, on phoc, before its seat exists), as an unprivileged user.
///
/// | scenario | sway | phoc | KWin |
/// |---|---|---|---|
/// | zero-config desktops: the touchpad demo's swipes right then left switch workspaces/desktops, its cancelled swipe nothing | ``desktops(_:)`` | phoc has none | ``desktops(_:)`` |
/// | zero-config back key: the demo's completed left-edge swipe reaches the focused key logger as alt+Left once, its cancelled one nothing | ``backKey(_:)`` | ``backKey(_:)`` | ``backKey(_:)`` |
/// | a rule with `app = …` fires only while its app is focused | ``perApp(_:)`` | ``perApp(_:)`` | ``perApp(_:)`` |
/// | the overlay's layer surfaces made and drawn during the demo, all destroyed at rest (screenshots where there is screencopy) | ``overlay(_:)`` | ``overlay(_:)`` | ``overlay(_:)`` |
///
/// Each compositor skips, saying what is missing, where it is not installed, except where `EDGESWIPE_REQUIRE_SWAY`,
/// `_PHOC` or `_KWIN` is `1` (CI).
@Suite("the session matrix: the same scenarios with the real daemon and session on headless sway, phoc and KWin", .serialized)
struct SessionMatrixTests {
    @Test("with no rules file, the touchpad demo's completed 3-finger swipes right then left go to the previous then the next workspace (sway) or desktop (KWin, through kglobalaccel); its cancelled swipe does nothing",
          .timeLimit(.minutes(3)), arguments: [MatrixCompositor.sway, .kwin])
    func desktops(_ compositor: MatrixCompositor) throws {
        guard try compositor.mayRun() else { return }
        switch compositor {
        case .sway:
            let sway = try HeadlessSway(config: "")
            let ipc = try SwayIPCClient(path: sway.swaySocket)
            // An empty workspace vanishes when left: a window on each of 1 and 2, and 2 focused.
            for workspace in ["1", "2"] {
                #expect(ipc.request(.runCommand, "workspace \(workspace)") != nil)
                _ = try CompositorMatrixTests.showKeyLogger(on: sway, appID: "org.edgeswipe.Workspace\(workspace)", expectFocus: false)
            }
            #expect(ipc.request(.subscribe, "[\"workspace\"]") != nil)
            let run = try SessionRun(on: sway)
            try run.startSession()
            try run.replay(Paths.touchpadDemo)
            #expect(run.waitForReplay(), "\(sway.session.describeLogs())")
            func focused() -> [String] {
                ipc.events(I3IPCFrame.workspaceEvent).filter { $0["change"] as? String == "focus" }
                    .compactMap { ($0["current"] as? [String: Any])?["name"] as? String }
            }
            #expect(waitUntil(timeout: 10) { focused().count >= 2 }, "\(focused())\n\(sway.session.describeLogs())")
            #expect(ipc.request(.runCommand, "nop settle") != nil)
            #expect(focused() == ["1", "2"], "\(run.sessionText)")
            #expect(run.fired("-> workspace") == 2, "\(run.sessionText)")
        case .kwin:
            let kwin = try HeadlessKWin()
            let desktops = try KWinDesktops(kwin, count: 3)
            try desktops.switchTo(desktops.ids[1])
            let run = try SessionRun(on: kwin)
            try run.startSession()
            #expect(run.session?.waitForLine { $0.contains("rules: 3 built-in (there is no ") } == true, "\(run.sessionText)")
            try run.replay(Paths.touchpadDemo)
            #expect(run.waitForReplay(), "\(kwin.session.describeLogs())")
            #expect(waitUntil(timeout: 10) { desktops.changes().count >= 3 }, "\(desktops.changes())\n\(kwin.session.describeLogs())")
            // The set-up's switch to the second, then the swipes: the first (left of it), the second again.
            #expect(desktops.changes() == [desktops.ids[1], desktops.ids[0], desktops.ids[1]], "\(run.sessionText)")
            #expect(try desktops.current() == desktops.ids[1])
            #expect(run.fired("-> kwin shortcut \"Switch One Desktop to the Left\"") == 1, "\(run.sessionText)")
            #expect(run.fired("-> kwin shortcut \"Switch One Desktop to the Right\"") == 1, "\(run.sessionText)")
            #expect(run.fired("->") == 2, "the cancelled swipe fired something: \(run.sessionText)")
        case .phoc:
            // phoc has no workspaces or desktops: not among this test's arguments.
            return
        }
    }

    @Test("with no rules file, the demo's completed 1-finger left-edge swipe reaches the focused window as alt+Left, once; its cancelled one sends nothing",
          .timeLimit(.minutes(3)), arguments: [MatrixCompositor.sway, .phoc, .kwin])
    func backKey(_ compositor: MatrixCompositor) throws {
        guard try compositor.mayRun() else { return }
        try Self.backKeyScenario(on: compositor)
    }

    @Test("a rule with app = … fires only while its app is focused: not with another window focused, and once with its own",
          .timeLimit(.minutes(3)), arguments: [MatrixCompositor.sway, .phoc, .kwin])
    func perApp(_ compositor: MatrixCompositor) throws {
        guard try compositor.mayRun() else { return }
        try Self.perAppScenario(on: compositor)
    }

    @Test("the overlay: during the demo a layer surface is configured and drawn (on sway and phoc a screenshot shows it at the left edge during the left-edge swipe), and at rest every one is destroyed and the screen is as before",
          .timeLimit(.minutes(3)), arguments: [MatrixCompositor.sway, .phoc, .kwin])
    func overlay(_ compositor: MatrixCompositor) throws {
        guard try compositor.mayRun() else { return }
        let host = try compositor.start(installingTheDesktopEntry: false)
        _ = try CompositorMatrixTests.showKeyLogger(on: host, appID: "org.edgeswipe.Backdrop", expectFocus: false)
        let run = try SessionRun(on: host)
        // The session's requests and events, as libwayland logs them: the layer surfaces' lives (KWin has no screencopy).
        try run.startSession(environment: ["WAYLAND_DEBUG": "client"])
        #expect(run.session?.waitForLine { $0.contains("overlay: drawing feedback under the finger") } == true, "\(run.sessionText.suffix(3000))")
        let screencopy = compositor != .kwin
        let rest = screencopy ? try Self.screenshot(host, "rest") : nil
        try run.replay(Paths.demo, speed: 0.5)
        var drawn: Screenshot? = nil
        if let rest {
            var n = 0
            while drawn == nil, run.daemon?.isRunning == true {
                n += 1
                let shot = try Self.screenshot(host, "during-\(n)")
                if Self.changedPixels(shot, rest, columns: 0..<120) >= 100 { drawn = shot }
            }
        }
        #expect(run.waitForReplay(), "\(host.session.describeLogs())")
        func count(_ pattern: String) -> Int { run.sessionText.split(separator: "\n").filter { $0.contains(pattern) }.count }
        let configures = run.sessionText.split(separator: "\n").filter { $0.contains("zwlr_layer_surface_v1@") && $0.contains(".configure(") && !$0.contains(", 0, 0)") }
        #expect(count(".get_layer_surface(") >= 1 && !configures.isEmpty && count("wl_surface@") > 0, "no layer surface configured: \(run.sessionText.suffix(3000))")
        #expect(waitUntil(timeout: 20) { Self.destroyed(run.sessionText) == count(".get_layer_surface(") },
                "made \(count(".get_layer_surface(")) layer surfaces, destroyed \(Self.destroyed(run.sessionText))")
        if let rest {
            #expect(drawn != nil, "no screenshot during the demo showed the overlay at the left edge")
            #expect(waitUntil(timeout: 20) { (try? Self.screenshot(host, "after")).map { Screenshot.sameContent($0, rest) } == true }, "still drawn at rest")
        }
        print("session matrix: \(compositor) overlay: \(count(".get_layer_surface(")) layer surfaces made and destroyed, \(configures.count) configures")
    }

    // MARK: Scenarios

    /// The session starts first; then the compositor gets what a key needs (phoc its seat, late), the key logger
    /// shows, focused, and the daemon replays the demo: a completed left-edge swipe, later a cancelled one.
    static func backKeyScenario(on compositor: MatrixCompositor) throws {
        let host = try compositor.start(installingTheDesktopEntry: true)
        let run = try SessionRun(on: host, binary: compositor.sessionBinary(in: host))
        try run.startSession()
        #expect(run.session?.waitForLine { $0.contains("waiting for a daemon") } == true, "\(run.sessionText)")
        try compositor.prepareForKeys(host)
        let logger = try CompositorMatrixTests.showKeyLogger(on: host, appID: "org.edgeswipe.KeyLogger")
        try run.replay(Paths.demo)
        #expect(run.waitForReplay(), "\(host.session.describeLogs())")
        #expect(logger.waitForLine { KeyLog($0.description) == .key(sym: "Left", pressed: false) }, "\(host.session.describeLogs())")
        #expect(KeyLog.chords(in: logger.lines) == ["Mod1+Left"], "\(logger.text)")
        #expect(run.fired("rule 'back' (built-in): left-edge swipe completed") == 1, "\(run.sessionText)")
        #expect(run.fired("->") == 1, "the cancelled swipe fired something: \(run.sessionText)")
    }

    /// Two windows, `org.edgeswipe.First` and `org.edgeswipe.Second`; a rule for the first app's left-edge swipes that
    /// writes the app it fired in. With the second focused the demo fires nothing; with the first, once.
    static func perAppScenario(on compositor: MatrixCompositor) throws {
        let host = try compositor.start(installingTheDesktopEntry: false)
        try compositor.prepareForKeys(host)
        let out = try host.session.writableFile("fired.txt")
        // Only this rule: the built-in left-edge "back" would fire in the other app.
        let rules = """
            defaults = false

            [[rule]]
            name = "first only"
            edge = "left"
            app = "org.edgeswipe.First"
            command = ["sh", "-c", "echo \\"$EDGESWIPE_APP\\" >> \(out.path)"]
            """
        _ = try CompositorMatrixTests.showKeyLogger(on: host, appID: "org.edgeswipe.First")
        let second = try CompositorMatrixTests.showKeyLogger(on: host, appID: "org.edgeswipe.Second")

        let other = try SessionRun(on: host, label: "other")
        try other.startSession(rules: rules)
        #expect(other.session?.waitForLine { $0.contains("focus: org.edgeswipe.Second") } == true, "\(other.sessionText)")
        try other.replay(Paths.demo)
        #expect(other.waitForReplay(), "\(host.session.describeLogs())")
        #expect(other.fired("->") == 0, "\(other.sessionText)")
        other.stop()

        // The second window closes: the first is focused again.
        kill(-second.process.processIdentifier, SIGKILL)
        second.process.waitUntilExit()
        let own = try SessionRun(on: host, label: "own")
        try own.startSession(rules: rules)
        #expect(own.session?.waitForLine { $0.contains("focus: org.edgeswipe.First") } == true, "\(own.sessionText)")
        try own.replay(Paths.demo)
        #expect(own.waitForReplay(), "\(host.session.describeLogs())")
        #expect(waitUntil(timeout: 10) { (try? String(contentsOf: out, encoding: .utf8)) == "org.edgeswipe.First\n" }, "\(own.sessionText)")
        #expect(own.fired("rule 'first only'") == 1, "\(own.sessionText)")
        #expect((try? String(contentsOf: out, encoding: .utf8)) == "org.edgeswipe.First\n", "the cancelled swipe fired too")

        // On KWin the session unloads its focus script when it stops.
        if let kwin = host as? HeadlessKWin, let session = own.session {
            #expect(session.text.contains("focus: following the active window (KWin's focus script"), "\(session.text)")
            session.process.terminate()
            #expect(session.exitStatus() == 0, "\(session.text)")
            let loaded = try kwin.busctl(["call", "org.kde.KWin", "/Scripting", "org.kde.kwin.Scripting", "isScriptLoaded", "s", "edgeswipe-focus"])
            #expect(loaded.output.trimmingCharacters(in: .whitespacesAndNewlines) == "b false", "isScriptLoaded after the session stopped: \(loaded.output)")
        }
    }
}

extension SessionMatrixTests {
    /// A screenshot with grim (wlr-screencopy: sway, phoc), kept in the session's directory as `shot-NAME.ppm`.
    static func screenshot(_ host: some HeadlessCompositor, _ name: String) throws -> Screenshot {
        let file = try host.session.writableFile("shot-\(name).ppm")
        let grim = try host.runClient(["/usr/bin/grim", "-t", "ppm", file.path])
        guard grim.status == 0 else { throw DaemonTestError("grim: \(grim.output)") }
        return try Screenshot(ppm: Data(contentsOf: file), name: name, takenUS: 0...0)
    }

    /// Pixels in `columns` that differ between two screenshots of the same size.
    static func changedPixels(_ a: Screenshot, _ b: Screenshot, columns: Range<Int>) -> Int {
        guard a.width == b.width, a.height == b.height else { return Int.max }
        var n = 0
        for y in 0..<a.height { for x in columns where x < a.width && Screenshot.distance(a.pixel(x, y), b.pixel(x, y)) > 6 { n += 1 } }
        return n
    }

    /// Layer surfaces the session destroyed (`-> zwlr_layer_surface_v1@N.destroy()` in libwayland's log).
    static func destroyed(_ log: String) -> Int {
        log.split(separator: "\n").filter { $0.contains("-> zwlr_layer_surface_v1@") && $0.contains(".destroy()") }.count
    }
}

/// The compositors of the matrix, and what differs between them.
enum MatrixCompositor: String, CaseIterable, Sendable, CustomStringConvertible {
    case sway, phoc, kwin

    var description: String { rawValue }

    /// Why this compositor cannot run here, or `nil`.
    var unavailable: String? {
        switch self {
        case .sway: HeadlessSway.unavailable ?? WaylandProbe.unavailable
        case .phoc: HeadlessPhoc.unavailable
        case .kwin: HeadlessKWin.unavailable
        }
    }

    /// Whether CI requires it (`EDGESWIPE_REQUIRE_…=1`): its absence is then a failure.
    var required: Bool {
        switch self {
        case .sway: ClickProbe.required
        case .phoc: HeadlessPhoc.required
        case .kwin: HeadlessKWin.required
        }
    }

    /// Whether the scenario runs: `false` (said on the output) when the compositor is missing and not required; a
    /// failure when it is missing and required.
    func mayRun() throws -> Bool {
        guard let why = unavailable else { return true }
        try #require(!required, "EDGESWIPE_REQUIRE_\(rawValue.uppercased())=1, but \(why)")
        print("session matrix: \(rawValue) skipped: \(why)")
        return false
    }

    /// A fresh headless compositor; KWin with the session's desktop entry installed when asked (its fake input).
    func start(installingTheDesktopEntry: Bool) throws -> any HeadlessCompositor {
        switch self {
        case .sway: try HeadlessSway(config: "default_border none\n")
        case .phoc: try HeadlessPhoc()
        case .kwin: try HeadlessKWin(installing: installingTheDesktopEntry ? [KWinGrant.desktopEntry] : [])
        }
    }

    /// The session's binary: on KWin a copy at the path the desktop entry names (KWin grants fake input by it).
    func sessionBinary(in host: any HeadlessCompositor) throws -> URL {
        guard let kwin = host as? HeadlessKWin else { return Paths.edgeswipeSession }
        try FileManager.default.createDirectory(at: kwin.binDirectory, withIntermediateDirectories: true)
        chmod(kwin.binDirectory.path, 0o755)
        let target = kwin.binDirectory.appendingPathComponent("edgeswipe-session")
        try? FileManager.default.removeItem(at: target)
        try FileManager.default.copyItem(at: Paths.edgeswipeSession.resolvingSymlinksInPath(), to: target)
        chmod(target.path, 0o755)
        return target
    }

    /// What a key needs before a window shows: a keyboard on sway's device-less seat (docs/COMPOSITORS.md), phoc's
    /// seat itself (made now, after the session started), nothing on KWin.
    func prepareForKeys(_ host: any HeadlessCompositor) throws {
        switch host {
        case let phoc as HeadlessPhoc: try phoc.createSeat()
        case let sway as HeadlessSway: try CompositorMatrixTests.giveKeyboard(to: sway)
        default: break
        }
    }
}

/// The real daemon replaying a recording for one client, and the real session as that client, in a compositor's
/// session, as its user. The session starts first (as systemd starts it at login): it waits for the daemon, whose
/// `--wait-for-clients 1` holds the replay until the session has connected.
final class SessionRun {
    let host: any HeadlessCompositor
    let label: String
    let binary: URL
    let socket: String
    private(set) var session: HeadlessSession.Launched?
    private(set) var daemon: HeadlessSession.Launched?

    init(on host: any HeadlessCompositor, label: String = "session", binary: URL = Paths.edgeswipeSession) throws {
        self.host = host
        self.label = label
        self.binary = binary
        socket = host.session.directory.appendingPathComponent("\(label).sock").path
    }

    /// Starts the session with `rules` (a file), or none (its built-in rules).
    func startSession(rules: String? = nil, environment: [String: String] = [:]) throws {
        var arguments = [binary.path, "--socket", socket, "--log-level", "debug"]
        if let rules { arguments += ["--config", try host.session.write(rules, to: "\(label).toml").path] }
        session = try host.startClient(label, arguments, environment: environment)
    }

    /// Starts the daemon replaying `recording` at `speed` (at most 1: faster, the demo's cancelled swipe, which rests
    /// before its release, would still be moving and complete).
    func replay(_ recording: URL, speed: Double = 1) throws {
        let daemon = try host.session.start(
            "\(label)-daemon", [Paths.edgeswiped.path, "--socket", socket, "--replay", recording.path, "--speed", "\(speed)", "--wait-for-clients", "1"])
        self.daemon = daemon
        guard waitUntil(timeout: 30, { FileManager.default.fileExists(atPath: self.socket) || !daemon.isRunning }), daemon.isRunning else {
            throw DaemonTestError("the daemon did not listen: \(daemon.text)")
        }
    }

    var sessionText: String { session?.text ?? "" }

    /// Waits for the replay to end and the session to have handled all of it (it logs the lost connection after the
    /// daemon's last line).
    func waitForReplay() -> Bool {
        guard let daemon else { return false }
        return waitUntil(timeout: 60) { !daemon.isRunning } && waitUntil(timeout: 30) { self.sessionText.contains("daemon: connection lost") }
    }

    /// How many rules fired whose log line contains `text` (each firing is one line: `rule … : gesture phase -> effect`).
    func fired(_ text: String) -> Int {
        sessionText.split(separator: "\n").filter { $0.contains(": ") && $0.contains(" -> ") && $0.contains("rule '") && $0.contains(text) }.count
    }

    /// Ends the session (and its daemon, if still running).
    func stop() {
        for process in [session?.process, daemon?.process].compactMap({ $0 }) where process.isRunning {
            kill(-process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

/// KWin's virtual desktops, through its D-Bus interface, and their changes as `gdbus monitor` sees them.
final class KWinDesktops {
    let kwin: HeadlessKWin
    /// The desktops' ids, in order.
    let ids: [String]
    private let monitor: HeadlessSession.Launched
    static let object = ["org.kde.KWin", "/VirtualDesktopManager", "org.kde.KWin.VirtualDesktopManager"]

    /// Makes `count` desktops and starts following `currentChanged`.
    init(_ kwin: HeadlessKWin, count: Int) throws {
        self.kwin = kwin
        for n in 1..<count {
            let made = try kwin.busctl(["call"] + Self.object + ["createDesktop", "us", "\(n)", "Desktop \(n + 1)"])
            guard made.status == 0 else { throw DaemonTestError("createDesktop: \(made.output)") }
        }
        let listed = try kwin.busctl(["--json=short", "get-property"] + Self.object + ["desktops"])
        guard listed.status == 0, let json = try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [String: Any],
            let rows = json["data"] as? [[Any]]
        else { throw DaemonTestError("KWin's desktops: \(listed.output)") }
        ids = rows.compactMap { $0.count > 1 ? $0[1] as? String : nil }
        guard ids.count == count else { throw DaemonTestError("KWin has \(ids.count) desktops, not \(count): \(listed.output)") }
        monitor = try kwin.startClient("desktop-monitor", ["/usr/bin/gdbus", "monitor", "--session", "--dest", "org.kde.KWin", "--object-path", "/VirtualDesktopManager"])
        guard monitor.waitForLine({ $0.contains("Monitoring signals") }) else {
            throw DaemonTestError("gdbus monitor did not start: \(monitor.text)")
        }
    }

    /// The current desktop's id.
    func current() throws -> String {
        let got = try kwin.busctl(["get-property"] + Self.object + ["current"])
        // `s "ID"`
        return got.output.split(separator: "\"").dropFirst().first.map(String.init) ?? got.output
    }

    /// Makes `id` current and waits until the monitor has seen it (which also proves the monitor's match is live).
    func switchTo(_ id: String) throws {
        let set = try kwin.busctl(["set-property"] + Self.object + ["current", "s", id])
        guard set.status == 0 else { throw DaemonTestError("set current: \(set.output)") }
        guard waitUntil(timeout: 20, { self.changes().last == id }) else {
            throw DaemonTestError("no currentChanged for \(id): \(monitor.text)")
        }
    }

    /// Each `currentChanged` seen, its desktop id, in order.
    func changes() -> [String] {
        monitor.lines.filter { $0.contains(".currentChanged (") }.compactMap { line in
            line.split(separator: "'").dropFirst().first.map(String.init)
        }
    }
}
