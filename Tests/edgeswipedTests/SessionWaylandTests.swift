import EdgeSwipeCore
import EdgeSwipeFingerScript
import EdgeSwipeRecordings
import EdgeSwipeSession
import EdgeSwipeSessionModel
import EdgeSwipeSystem
import EdgeSwipeTestSupport
import Foundation
import Glibc
import Testing

/// The session's Wayland thread against a compositor that stops reading or dies (issue 35 item 3, hostile-4 s10 and
/// s12): a real headless sway, stopped with SIGSTOP or killed and started again, the real daemon replaying the demo,
/// and sway's own IPC saying which keys arrived.
@Suite(
    "edgeswipe-session's Wayland side: a compositor that stalls, restarts or is older", .serialized,
    .enabled(if: HeadlessSway.unavailable == nil || ClickProbe.required, "\(HeadlessSway.unavailable ?? "")"))
struct SessionWaylandTests {
    static let swayConfig = "bindsym alt+Left nop edgeswipe-back\n"

    /// A key chord on every percent a left- or right-edge swipe moves, and alt+Left for a completed left-edge one.
    static let floodRules = """
        [[rule]]
        name = "back"
        edge = "left"
        key = "alt+Left"
        [[rule]]
        name = "flood left"
        edge = "left"
        on = "changed"
        step = 0.01
        key = "ctrl+F1"
        [[rule]]
        name = "flood right"
        edge = "right"
        on = "changed"
        step = 0.01
        key = "ctrl+F2"
        """

    /// `pairs` quick left-edge then right-edge swipes on the demo's touchscreen (back, then forward again, so that
    /// neither is ever blocked): about 20 chords each with ``floodRules``, hundreds of requests that a stopped sway
    /// does not read (s12 broke the connection with 1,000 chords, some runs with 400).
    static func floodRecording(pairs: Int) throws -> String {
        let device = try DemoRecording.device.touchDevice(id: DeviceID(1), path: "flood")
        var script = FingerScript()
        var start = Microseconds.milliseconds(500)
        var id: Int32 = 1
        for _ in 0..<pairs {
            for edge in [Edge.left, .right] {
                let s = FingerScript.edgeSwipe(
                    EdgeSwipe(edge: edge, travel: 0.7, duration: .milliseconds(250), release: .atRest(hold: .milliseconds(60)), along: 0.5,
                              landing: .millimeters(1.5)),
                    on: device, trackingID: id, start: start)
                script = script + s
                start = s.end + .milliseconds(150)
                id += 1
            }
        }
        return Evemu.write(DemoRecording.device, events: EvdevScriptRenderer.events(script, on: DemoRecording.device))
    }

    /// The session, following a daemon socket that a replay (``replay(_:recording:)``) serves later, in a headless
    /// compositor's session (as its user).
    final class Stage {
        let compositor: any HeadlessCompositor
        let session = Process()
        let sessionLog: URL
        let socket: String
        private var daemons: [Process] = []

        /// `binary`: the session's executable (KWin grants its fake input to the path its desktop entry names).
        init(_ compositor: any HeadlessCompositor, rules: String, environment: [String: String] = [:], binary: URL = Paths.edgeswipeSession) throws {
            self.compositor = compositor
            let home = compositor.session
            socket = home.directory.appendingPathComponent("d.sock").path
            let rulesFile = try home.writableFile("session.toml")
            try rules.write(to: rulesFile, atomically: false, encoding: .utf8)
            sessionLog = try home.writableFile("session.log")
            try home.launch(session, [binary.path, "--socket", socket, "--config", rulesFile.path],
                            environment: compositor.environment.merging(environment) { $1 }, log: sessionLog)
        }

        var text: String { (try? String(contentsOf: sessionLog, encoding: .utf8)) ?? "" }
        func count(_ fragment: String) -> Int { text.components(separatedBy: fragment).count - 1 }

        /// How many times the `changed` rules named `prefix…` fired: their lines, and the firings each line or a
        /// later one says were not said (a changed rule's firings are logged at most once a second).
        func changedFirings(_ prefix: String) -> Int {
            text.split(separator: "\n").filter { $0.contains("rule '\(prefix)") }.reduce(0) { sum, line in
                let held = line.firstMatch(of: /\(?(\d+) more firings/).flatMap { Int($0.1) } ?? 0
                return sum + (line.contains(" -> key ") ? 1 : 0) + held
            }
        }

        /// The daemon replaying `recording` (the demo's, or an evemu text) once for the session at speed 2 (it then
        /// completes two left-edge swipes), started as the compositor's user; returns when it has replayed it and
        /// the session saw it go.
        func replay(_ name: String, recording: String? = nil) throws -> Bool {
            let daemon = Process()
            daemons.append(daemon)
            let losses = count("daemon: connection lost")
            let home = compositor.session
            var file = Paths.demo
            if let recording {
                file = try home.writableFile("\(name).evemu")
                try recording.write(to: file, atomically: false, encoding: .utf8)
            }
            try home.launch(daemon, [Paths.edgeswiped.path, "--socket", socket, "--replay", file.path, "--speed", "2", "--wait-for-clients", "1"],
                            environment: [:], log: home.writableFile("\(name).log"))
            return waitUntil(timeout: 90) { !daemon.isRunning } && waitUntil(timeout: 30) { self.count("daemon: connection lost") > losses }
        }

        deinit {
            for p in [session] + daemons where p.isRunning {
                kill(p.processIdentifier, SIGKILL)
                p.waitUntilExit()
            }
        }
    }

    /// The bindings sway ran so far, after a round trip that settles what was queued before it.
    static func bindings(_ ipc: SwayIPCClient) -> [String] {
        _ = ipc.request(.runCommand, "nop settle")
        return ipc.events(I3IPCFrame.bindingEvent).compactMap { ($0["binding"] as? [String: Any])?["command"] as? String }
    }

    @Test("sway stopped while hundreds of key chords fire: the connection survives, the chords past a small queue are dropped with one line, and a key rule afterwards reaches sway")
    func stalledCompositor() throws {
        let sway = try HeadlessSway(config: Self.swayConfig)
        let ipc = try SwayIPCClient(path: sway.swaySocket)
        #expect(ipc.request(.subscribe, "[\"binding\"]") != nil)
        let stage = try Stage(sway, rules: Self.floodRules)
        #expect(waitUntil(timeout: 20) { stage.text.contains("keys: sent the virtual keyboard") }, "\(stage.text)")

        kill(sway.process.processIdentifier, SIGSTOP)
        let replayed = try stage.replay("daemon-stalled", recording: Self.floodRecording(pairs: 30))
        kill(sway.process.processIdentifier, SIGCONT)
        #expect(stage.changedFirings("flood") > 600, "the flood was smaller than the test needs")
        #expect(replayed, "\(stage.text)")
        #expect(waitUntil(timeout: 20) { stage.text.contains("key chords dropped") }, "\(stage.text)")
        #expect(stage.count("key chords dropped") == 1, "one line for the stall: \(stage.text.suffix(3000))")
        #expect(!stage.text.contains("wayland: connection lost"), "\(stage.text.suffix(3000))")

        // At speed 2 the demo completes two left-edge swipes.
        let before = Self.bindings(ipc).filter { $0 == "nop edgeswipe-back" }.count
        #expect(try stage.replay("daemon-after"), "\(stage.text.suffix(3000))")
        #expect(waitUntil(timeout: 20) { Self.bindings(ipc).filter { $0 == "nop edgeswipe-back" }.count == before + 2 },
                "the completed swipe after the stall sends alt+Left: \(stage.text.suffix(3000))\n\(sway.log)")
        #expect(stage.session.isRunning)
    }

    @Test("sway killed and started again on the same display: the session says so once, connects again, and its key rule reaches the new sway")
    func restartedCompositor() throws {
        let first = try HeadlessSway(config: Self.swayConfig)
        let stage = try Stage(first, rules: "[[rule]]\nname = \"back\"\nedge = \"left\"\nkey = \"alt+Left\"\n")
        #expect(waitUntil(timeout: 20) { stage.text.contains("keys: sent the virtual keyboard") }, "\(stage.text)")

        kill(first.process.processIdentifier, SIGKILL)
        first.process.waitUntilExit()
        #expect(waitUntil(timeout: 20) { stage.text.contains("wayland: connection lost") }, "\(stage.text)")

        let second = try HeadlessSway(config: Self.swayConfig, in: first.session)
        let ipc = try SwayIPCClient(path: second.swaySocket)
        #expect(ipc.request(.subscribe, "[\"binding\"]") != nil)
        #expect(waitUntil(timeout: 30) { stage.text.contains("wayland: connected to the compositor again") }, "\(stage.text)")
        #expect(stage.count("wayland: connection lost") == 1, "\(stage.text)")
        #expect(try stage.replay("daemon"), "\(stage.text)")
        // At speed 2 the demo completes two left-edge swipes.
        #expect(waitUntil(timeout: 20) { Self.bindings(ipc) == ["nop edgeswipe-back", "nop edgeswipe-back"] }, "\(stage.text)\n\(second.log)")
        #expect(stage.session.isRunning)
    }

    @Test("a compositor offering wl_compositor version 3 (a proxy in front of sway): the overlay draws with wl_surface.damage, and the connection lives")
    func compositorVersion3() throws {
        let sway = try HeadlessSway(config: Self.swayConfig)
        let helper = try sway.session.copyExecutable(
            Paths.packageRoot.appendingPathComponent("Tests/edgeswipedTests/Wayland/compositor-v3-proxy.py"), as: "compositor-v3-proxy.py")
        let proxy = Process()
        let proxyLog = try sway.writableFile("proxy.log")
        try sway.launch(proxy, ["/usr/bin/python3", helper.path, sway.waylandDisplay, "wayland-v3"], environment: sway.environment, log: proxyLog)
        defer {
            kill(proxy.processIdentifier, SIGKILL)
            proxy.waitUntilExit()
        }
        #expect(waitUntil(timeout: 20) { ((try? String(contentsOf: proxyLog, encoding: .utf8)) ?? "").contains("ready") || !proxy.isRunning })
        let stage = try Stage(sway, rules: "[[rule]]\nname = \"back\"\nedge = \"left\"\nkey = \"alt+Left\"\n", environment: ["WAYLAND_DISPLAY": "wayland-v3"])
        #expect(waitUntil(timeout: 20) { stage.text.contains("overlay: drawing feedback under the finger") }, "\(stage.text)")
        #expect(try stage.replay("daemon"), "\(stage.text)")
        kill(stage.session.processIdentifier, SIGTERM)
        #expect(waitUntil(timeout: 20) { stage.text.contains(" frames (") }, "\(stage.text)")
        let summary = stage.text.split(separator: "\n").last { $0.contains("overlay: ") && $0.contains(" frames (") } ?? ""
        let frames = summary.components(separatedBy: "overlay: ").last.flatMap { Int($0.prefix { $0.isNumber }) } ?? 0
        #expect(frames > 10, "\(summary)")
        #expect(!stage.text.contains("wayland: connection lost"), "\(stage.text.suffix(3000))")
        #expect(!stage.text.contains("protocol error"), "\(stage.text.suffix(3000))")
    }

    @Test("phoc, whose seat comes with its first input device: the session waits for it, makes its virtual keyboard as soon as it appears, and its alt+Left reaches the focused window",
          .enabled(if: HeadlessPhoc.unavailable == nil || HeadlessPhoc.required, "\(HeadlessPhoc.unavailable ?? "")"), .timeLimit(.minutes(3)))
    func lateSeat() throws {
        try #require(HeadlessPhoc.unavailable == nil, "EDGESWIPE_REQUIRE_PHOC=1, but \(HeadlessPhoc.unavailable ?? "")")
        let phoc = try HeadlessPhoc()
        let stage = try Stage(phoc, rules: "[[rule]]\nname = \"back\"\nedge = \"left\"\nkey = \"alt+Left\"\n")
        #expect(waitUntil(timeout: 20) { stage.text.contains("keys: waiting for the compositor's seat") }, "\(stage.text)")
        try phoc.createSeat()
        #expect(waitUntil(timeout: 20) { stage.text.contains("keys: sent the virtual keyboard") }, "\(stage.text)")
        let logger = try CompositorMatrixTests.showKeyLogger(on: phoc, appID: "org.edgeswipe.KeyLogger")
        #expect(try stage.replay("daemon"), "\(stage.text)")
        #expect(waitUntil(timeout: 20) { KeyLog.chords(in: logger.lines).count >= 2 }, "\(logger.text)\n\(stage.text)")
        #expect(KeyLog.chords(in: logger.lines) == ["Mod1+Left", "Mod1+Left"], "\(logger.text)")
        #expect(stage.count("keys: ") == 2, "said once each: waiting, then the keyboard\n\(stage.text)")
    }

    @Test("KWin: the session, run from the path its desktop entry names, sends its key rule's alt+Left through KWin's fake input to the focused window",
          .enabled(if: HeadlessKWin.unavailable == nil || HeadlessKWin.required, "\(HeadlessKWin.unavailable ?? "")"), .timeLimit(.minutes(3)))
    func kwinFakeInput() throws {
        try #require(HeadlessKWin.unavailable == nil, "EDGESWIPE_REQUIRE_KWIN=1, but \(HeadlessKWin.unavailable ?? "")")
        let kwin = try HeadlessKWin(installing: [KWinGrant.desktopEntry])
        let logger = try CompositorMatrixTests.showKeyLogger(on: kwin, appID: "org.edgeswipe.KeyLogger")
        try FileManager.default.createDirectory(at: kwin.binDirectory, withIntermediateDirectories: true)
        chmod(kwin.binDirectory.path, 0o755)
        let installed = try kwin.session.copyExecutable(Paths.edgeswipeSession, as: "bin/edgeswipe-session")
        let stage = try Stage(kwin, rules: "[[rule]]\nname = \"back\"\nedge = \"left\"\nkey = \"alt+Left\"\n", binary: installed)
        #expect(waitUntil(timeout: 20) { stage.text.contains("keys: sent KWin's fake input") }, "\(stage.text)\n\(kwin.session.describeLogs())")
        #expect(try stage.replay("daemon"), "\(stage.text)")
        #expect(waitUntil(timeout: 20) { KeyLog.chords(in: logger.lines).count >= 2 }, "\(logger.text)\n\(stage.text)")
        #expect(KeyLog.chords(in: logger.lines) == ["Mod1+Left", "Mod1+Left"], "\(logger.text)")
    }

    @Test("weston, with neither protocol: the session names the missing protocols once each (no virtual keyboard protocol, no layer shell; not 'no seat'), and the key rule's refusal once though it fires twice",
          .enabled(if: HeadlessWeston.unavailable == nil || WaylandGlobals.required, "\(HeadlessWeston.unavailable ?? "")"), .timeLimit(.minutes(3)))
    func westonSaysWhatIsMissing() throws {
        try #require(HeadlessWeston.unavailable == nil, "an EDGESWIPE_REQUIRE_* variable is set, but \(HeadlessWeston.unavailable ?? "")")
        let weston = try HeadlessWeston()
        let stage = try Stage(weston, rules: "[[rule]]\nname = \"back\"\nedge = \"left\"\nkey = \"alt+Left\"\n")
        #expect(waitUntil(timeout: 20) { stage.text.contains("keys cannot be sent: the compositor offers no virtual keyboard protocol") }, "\(stage.text)")
        #expect(waitUntil(timeout: 20) { stage.text.contains("overlay: the compositor offers no zwlr_layer_shell_v1") }, "\(stage.text)")
        #expect(try stage.replay("daemon"), "\(stage.text)")
        #expect(waitUntil(timeout: 10) { stage.count("rule 'back'") >= 2 }, "\(stage.text)")
        #expect(stage.count("keys cannot be sent: the compositor offers no virtual keyboard protocol") == 1, "\(stage.text)")
        #expect(stage.count("overlay: the compositor offers no zwlr_layer_shell_v1") == 1, "\(stage.text)")
        #expect(stage.count("cannot send alt+Left") == 1, "once for the rule, though it fired twice: \(stage.text)")
        #expect(!stage.text.contains("no seat") && !stage.text.contains("wl_seat"), "\(stage.text)")
    }
}

/// weston 10, headless (pixman), in a ``HeadlessSession``: a compositor with neither the virtual keyboard nor the
/// layer shell, and no seat without an input device (docs/COMPOSITORS.md).
final class HeadlessWeston: HeadlessCompositor {
    let session: HeadlessSession
    private(set) var startSeconds = 0.0
    let waylandDisplay = "wayland-weston"

    static var unavailable: String? { WaylandGlobals.Compositor.weston.unavailable }

    init() throws {
        session = try HeadlessSession(name: "weston")
        let (session, display) = (session, waylandDisplay)
        var started: HeadlessSession.Launched?
        startSeconds = try secondsTaken {
            let weston = try session.start("weston", [
                "/usr/bin/weston", "--backend=headless-backend.so", "--use-pixman", "--socket=\(display)", "--width=1280", "--height=800", "--idle-time=0",
            ])
            started = weston
            let socket = session.runtimeDirectory.appendingPathComponent(display).path
            _ = waitUntil(timeout: 20) { FileManager.default.fileExists(atPath: socket) || !weston.isRunning }
        }
        guard started?.isRunning == true else { throw DaemonTestError("weston did not start:\n\(session.describeLogs())") }
    }

    var environment: [String: String] { session.baseEnvironment.merging(["WAYLAND_DISPLAY": waylandDisplay]) { $1 } }
}
