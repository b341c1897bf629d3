import EdgeSwipeTestSupport
import Foundation
import Glibc
import Testing

/// The whole path on GNOME: the real daemon replaying the repository's demo recordings (`edgeswiped --replay`), the
/// real `edgeswipe-session` (its executable is named so: the extension's caller check passes honestly) with rules,
/// and EdgeSwipe's extension in a real headless GNOME Shell 43, watched by the test-only observer
/// (`HeadlessGnomeShell`, `GnomeStage`). One shell serves every check, in order, each from rest.
@Suite(
    "edgeswipe-session on a real headless gnome-shell", .serialized,
    .enabled(if: HeadlessGnomeShell.unavailable == nil || HeadlessGnomeShell.required, "\(HeadlessGnomeShell.unavailable ?? "")"))
struct GnomeSessionTests {
    /// The session started first (it waits for the daemon and registers with the extension), then the daemon
    /// replaying `recording` once the session is its client.
    final class Run {
        let daemon = Process()
        let session = Process()
        let daemonLog: URL
        let sessionLog: URL

        init(_ s: GnomeStage, recording: URL, rules: String?, speed: Double = 1) throws {
            // Each run's files apart (one shell serves several runs).
            let n = UUID().uuidString.prefix(8).lowercased()
            let socket = s.shell.directory.appendingPathComponent("d\(n).sock").path
            daemonLog = try s.shell.writableFile("daemon-\(n).log")
            sessionLog = try s.shell.writableFile("session-\(n).log")
            var arguments = [Paths.edgeswipeSession.path, "--socket", socket, "--log-level", "debug"]
            if let rules {
                let file = try s.shell.writableFile("session-\(n).toml")
                try rules.write(to: file, atomically: true, encoding: .utf8)
                arguments += ["--config", file.path]
            }
            try s.shell.session.launch(session, arguments, environment: s.shell.environment.merging(["XDG_CURRENT_DESKTOP": "GNOME"]) { $1 }, log: sessionLog)
            guard waitUntil(timeout: 30, { self.sessionText.contains("registered with EdgeSwipe's extension") || !self.session.isRunning }),
                session.isRunning
            else { throw DaemonTestError("the session did not register: \(sessionText)") }
            try s.shell.launch(daemon, [Paths.edgeswiped.path, "--socket", socket, "--replay", recording.path, "--speed", "\(speed)", "--wait-for-clients", "1"],
                log: daemonLog)
        }

        static func read(_ url: URL) -> String { (try? String(contentsOf: url, encoding: .utf8)) ?? "" }
        var sessionText: String { Self.read(sessionLog) }

        /// Waits for the replay to end and the session to have handled all of it.
        func waitForReplay() -> Bool {
            waitUntil(timeout: 90) { !self.daemon.isRunning } && waitUntil(timeout: 30) { self.sessionText.contains("daemon: connection lost") }
        }

        /// Ends the session and the daemon; the extension lets the session go when it leaves the bus, which `shell`'s
        /// journal says, so that the next session may register.
        func stop(_ shell: HeadlessGnomeShell) {
            let left = shell.log.components(separatedBy: "is no longer the client").count
            for p in [session, daemon] where p.isRunning {
                kill(p.processIdentifier, SIGKILL)
                p.waitUntilExit()
            }
            _ = waitUntil(timeout: 20) { shell.log.components(separatedBy: "is no longer the client").count > left }
        }

        deinit {
            for p in [session, daemon] where p.isRunning {
                kill(p.processIdentifier, SIGKILL)
                p.waitUntilExit()
            }
        }
    }

    static let liveRules = """
        [[rule]]
        name = "next"
        swipe = "left"
        fingers = 3
        workspace = "next"
        [[rule]]
        name = "previous"
        swipe = "right"
        fingers = 3
        workspace = "previous"

        """

    typealias Check = GnomeCheck

    static let checks: [Check] = [
        Check(description: "the touchpad demo's 3-finger swipes: the workspace follows mid-gesture, changes on commit, stays when cancelled", run: workspaces),
        Check(description: "a real touchpad's recording (../shared/recordings): right then left, back where it began", run: realTouchpad),
        Check(description: "a daemon killed mid-gesture leaves GNOME settled where it began", run: daemonKilled),
        Check(description: "nothing moves under a modal dialog", run: modal),
        Check(description: "GNOME's defaults: the top edge opens the overview with the finger, the left edge sends alt+Left to the focused window", run: defaults),
        Check(description: "an app rule fires only for its app", run: appRule),
    ]

    @Test("every check on one headless gnome-shell", .timeLimit(.minutes(10)))
    func onOneShell() throws {
        try #require(HeadlessGnomeShell.unavailable == nil, "EDGESWIPE_REQUIRE_GNOME=1, but \(HeadlessGnomeShell.unavailable ?? "")")
        let started = ContinuousClock.now
        let stage = try GnomeStage()
        // Each check starts on workspace 2 of 4, so that both directions have somewhere to go.
        let times = stage.run(Self.checks) { s in
            try s.shell.act("activate-workspace", "1")
            guard s.shell.waitForState(timeout: 30, { $0.activeWorkspace == 1 && $0.settled }) != nil else {
                throw DaemonTestError("not on workspace 2")
            }
        }
        print("edgeswipe-session on GNOME: whole suite \(ContinuousClock.now - started)\n  " + times.joined(separator: "\n  "))
    }

    /// The states the observer saw while `run`'s daemon replayed (polled as fast as the observer answers).
    /// The daemon's last run-out may still play when it exits: the watch ends once GNOME has settled after it.
    static func watch(_ s: GnomeStage, _ run: Run) -> [ShellState] {
        var seen: [ShellState] = []
        _ = waitUntil(timeout: 90) {
            if let state = try? s.shell.state() { seen.append(state) }
            return !run.daemon.isRunning && seen.last?.settled == true
        }
        return seen
    }

    static func workspaces(_ s: GnomeStage) throws {
        try s.shell.observe("Measure", "s", ["begin"])
        let cpu0 = processCPUSeconds(s.shellPID)
        let t0 = ContinuousClock.now
        // Slowed down, so that the observer's polls see the gestures move.
        let run = try Run(s, recording: Paths.touchpadDemo, rules: liveRules, speed: 0.5)
        let sessionCPU0 = processCPUSeconds(run.session.processIdentifier)
        let seen = Self.watch(s, run)
        #expect(run.waitForReplay(), "\(run.sessionText)")
        let sessionCPU = processCPUSeconds(run.session.processIdentifier) - sessionCPU0
        let wall = ContinuousClock.now - t0
        let cpu = processCPUSeconds(s.shellPID) - cpu0
        let measured = (try? s.shell.observe("Measure", "s", ["end"])) as? [String: Any] ?? [:]
        let between = seen.compactMap { $0.switching ? $0.switchProgress : nil }.filter { abs($0) > 0.02 && abs($0) < 0.98 }
        #expect(!between.isEmpty, "the observer saw no switch strictly between: \(seen.map(\.description))")
        let after = s.shell.waitForState { $0.settled && $0.activeWorkspace == 1 }
        #expect(after?.activeWorkspace == 1, "right (previous), left (next), a cancelled right: back on workspace 2: \(after.map(\.description) ?? "?")")
        var visited: [Int] = []
        for state in seen where visited.last != state.activeWorkspace { visited.append(state.activeWorkspace) }
        #expect(visited == [1, 0, 1], "\(visited)")
        let text = run.sessionText
        #expect(text.components(separatedBy: "live: workspace").count == 4, "three transitions taken live: \(text)")
        #expect(!text.contains("completed -> workspace"), "nothing fired again at completion: \(text)")
        #expect(text.contains("running-out -> cancelled -> ended"), "the third was cancelled: \(text)")
        let handlers = measured["handler_us"] as? [String: Any] ?? [:]
        let update = handlers["UpdateGesture"] as? [String: Any] ?? [:]
        let frames = (measured["frames"] as? Int) ?? 0
        let frameSeconds = (measured["frame_seconds"] as? Double) ?? 0
        let wallSeconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
        print(String(
            format: "edgeswipe-session on GNOME, measured over the touchpad demo at half speed: UpdateGesture handler p50 %@ us, p99 %@ us "
                + "(%@ calls); %d frames in %.2f s (%.1f fps, idle frames not painted); gnome-shell CPU %.0f %% of one core over %.2f s; "
                + "edgeswipe-session %.0f ms of CPU over the replay",
            "\(update["p50"] ?? "?")", "\(update["p99"] ?? "?")", "\(update["calls"] ?? "?")", frames, frameSeconds,
            frameSeconds > 0 ? Double(max(0, frames - 1)) / frameSeconds : 0, cpu / wallSeconds * 100, wallSeconds, sessionCPU * 1000))
    }

    static func realTouchpad(_ s: GnomeStage) throws {
        let recording = Paths.sharedRecordings.appendingPathComponent("libinput-record/paperwm-three-finger-swipe.yaml")
        guard FileManager.default.fileExists(atPath: recording.path) else {
            print("skipped: ../shared/recordings is absent (a user's clone): no real touchpad's recording to replay")
            return
        }
        let run = try Run(s, recording: recording, rules: liveRules, speed: 0.5)
        let seen = Self.watch(s, run)
        #expect(run.waitForReplay(), "\(run.sessionText)")
        var visited: [Int] = []
        for state in seen where visited.last != state.activeWorkspace { visited.append(state.activeWorkspace) }
        #expect(visited == [1, 0, 1], "right (previous), then left (next): \(visited) \(run.sessionText)")
        #expect(s.shell.waitForState { $0.settled && $0.activeWorkspace == 1 } != nil)
        #expect(run.sessionText.components(separatedBy: "live: workspace").count == 3, "\(run.sessionText)")
    }

    static func daemonKilled(_ s: GnomeStage) throws {
        let run = try Run(s, recording: Paths.touchpadDemo, rules: liveRules, speed: 0.2)
        let moving = s.shell.waitForState(timeout: 60) { $0.switching && abs($0.switchProgress ?? 0) > 0.02 }
        #expect(moving?.switching == true, "the first swipe did not move GNOME: \(run.sessionText)")
        kill(run.daemon.processIdentifier, SIGKILL)
        run.daemon.waitUntilExit()
        #expect(waitUntil(timeout: 30) { run.sessionText.contains("daemon: connection lost") }, "\(run.sessionText)")
        let after = s.shell.waitForState { $0.settled }
        #expect(after?.settled == true && after?.activeWorkspace == 1, "went back to where it began: \(after.map(\.description) ?? "?")")
    }

    static func modal(_ s: GnomeStage) throws {
        try s.shell.act("open-modal")
        defer { try? s.shell.act("close-modal") }
        let run = try Run(s, recording: Paths.touchpadDemo, rules: liveRules, speed: 1)
        let seen = Self.watch(s, run)
        #expect(run.waitForReplay(), "\(run.sessionText)")
        #expect(seen.allSatisfy { !$0.switching && $0.activeWorkspace == 1 }, "\(seen.map(\.description))")
        #expect(run.sessionText.contains("NotAllowedNow"), "the refusal is said: \(run.sessionText)")
    }

    static func defaults(_ s: GnomeStage) throws {
        try s.shell.act("focus", "one")
        s.shell.waitForState { $0.focusedWMClass == "org.edgeswipe.TestOne" }
        let before = s.windowLog("one")
        let run = try Run(s, recording: Paths.demo, rules: nil)
        #expect(run.waitForReplay(), "\(run.sessionText)")
        #expect(run.sessionText.contains("rules: 2 built-in"), "\(run.sessionText)")
        #expect(s.shell.waitForState { $0.overviewShownState == "SHOWN" && $0.settled } != nil, "the top edge opened the overview: \(run.sessionText)")
        #expect(run.sessionText.contains("rule 'overview' (built-in): top-edge swipe began in org.edgeswipe.TestOne -> gnome overview show, live"), "\(run.sessionText)")
        let keys = s.windowLog("one").dropFirst(before.count)
        #expect(keys.components(separatedBy: "key Left alt").count == 2, "alt+Left once, from the completed left-edge swipe: \(keys)")
    }

    static func appRule(_ s: GnomeStage) throws {
        let rules = """
            [[rule]]
            name = "two only"
            edge = "left"
            app = "org.edgeswipe.TestTwo"
            key = "ctrl+x"

            """
        try s.shell.act("focus", "one")
        s.shell.waitForState { $0.focusedWMClass == "org.edgeswipe.TestOne" }
        let (one, two) = (s.windowLog("one"), s.windowLog("two"))
        let first = try Run(s, recording: Paths.demo, rules: rules, speed: 2)
        #expect(first.waitForReplay(), "\(first.sessionText)")
        #expect(!s.windowLog("one").dropFirst(one.count).contains("key x ctrl"), "not for another app")
        #expect(!first.sessionText.contains("-> key ctrl+x"), "\(first.sessionText)")
        first.stop(s.shell)
        try s.shell.act("focus", "two")
        s.shell.waitForState { $0.focusedWMClass == "org.edgeswipe.TestTwo" }
        let second = try Run(s, recording: Paths.demo, rules: rules, speed: 2)
        #expect(second.waitForReplay(), "\(second.sessionText)")
        #expect(waitUntil(timeout: 20) { s.windowLog("two").dropFirst(two.count).contains("key x ctrl") }, "\(second.sessionText)")
        #expect(second.sessionText.contains("in org.edgeswipe.TestTwo -> key ctrl+x"), "\(second.sessionText)")
    }
}
