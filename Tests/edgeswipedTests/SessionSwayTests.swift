import EdgeSwipeSession
import EdgeSwipeTestSupport
import Foundation
import Glibc
import Testing

/// `edgeswipe-session` on a real, headless sway, driven by the real daemon replaying a recording, checked through
/// sway's own IPC. As root, sway, the daemon and the session run as `nobody` (sway refuses root).
@Suite("edgeswipe-session on headless sway", .serialized, .enabled(if: HeadlessSway.unavailable == nil, "\(HeadlessSway.unavailable ?? "")"))
struct SessionSwayTests {
    /// The daemon replaying `recording` for one client, and the session as that client, both as sway's user.
    final class Run {
        let daemon = Process()
        let session = Process()
        let daemonLog: URL
        let sessionLog: URL

        /// At speed 1: the demo's fifth swipe rests before its release and cancels; faster, it is still moving and
        /// completes.
        init(_ sway: HeadlessSway, recording: URL, sessionArguments: [String] = [], speed: Double = 1) throws {
            let socket = sway.directory.appendingPathComponent("d.sock").path
            daemonLog = try sway.writableFile("daemon.log")
            sessionLog = try sway.writableFile("session.log")
            try sway.launch(daemon, [Paths.edgeswiped.path, "--socket", socket, "--replay", recording.path, "--speed", "\(speed)", "--wait-for-clients", "1"],
                environment: [:], log: daemonLog)
            guard waitUntil(timeout: 30, { FileManager.default.fileExists(atPath: socket) || !self.daemon.isRunning }), daemon.isRunning else {
                throw DaemonTestError("the daemon did not listen: \(Self.read(daemonLog))")
            }
            try sway.launch(session, [Paths.edgeswipeSession.path, "--socket", socket, "--log-level", "debug"] + sessionArguments,
                environment: sway.environment, log: sessionLog)
        }

        static func read(_ url: URL) -> String { (try? String(contentsOf: url, encoding: .utf8)) ?? "" }
        var sessionText: String { Self.read(sessionLog) }

        /// Waits for the replay to end and the session to have handled all of it (it logs the lost connection after
        /// the daemon's last line).
        func waitForReplay() -> Bool {
            waitUntil(timeout: 60) { !self.daemon.isRunning } && waitUntil(timeout: 30) { self.sessionText.contains("daemon: connection lost") }
        }

        deinit {
            // SIGKILL: processes started by the test runner inherit its blocked signals, so sway never sees a SIGTERM.
            for p in [session, daemon] where p.isRunning {
                kill(p.processIdentifier, SIGKILL)
                p.waitUntilExit()
            }
        }
    }

    @Test("with no configuration, the demo's completed left-edge swipe sends alt+Left once, and its cancelled one nothing; with --dry-run nothing, said as what it would do",
          arguments: [false, true])
    func backKey(_ dryRun: Bool) throws {
        let sway = try HeadlessSway(config: "bindsym alt+Left nop edgeswipe-back\n")
        let ipc = try SwayIPCClient(path: sway.swaySocket)
        #expect(ipc.request(.subscribe, "[\"binding\"]") != nil)
        let run = try Run(sway, recording: Paths.demo, sessionArguments: dryRun ? ["--dry-run"] : [])
        #expect(run.waitForReplay(), "\(run.sessionText)")
        #expect(run.sessionText.contains("rules: 3 built-in (there is no \(sway.session.home.path)/.config/edgeswipe/session.toml)"), "\(run.sessionText)")
        let fired = "rule 'back' (built-in): left-edge swipe completed -> " + (dryRun ? "would send alt+Left" : "key alt+Left")
        #expect(run.sessionText.components(separatedBy: fired).count == 2, "\(run.sessionText)")
        if !dryRun {
            #expect(waitUntil(timeout: 10) { ipc.events(I3IPCFrame.bindingEvent).count >= 1 }, "no binding fired: \(run.sessionText)\n\(sway.log)")
        }
        // Everything the session sent is in; a round trip on sway's loop settles what was queued behind it.
        #expect(ipc.request(.runCommand, "nop settle") != nil)
        let bindings = ipc.events(I3IPCFrame.bindingEvent).compactMap { $0["binding"] as? [String: Any] }
        if dryRun {
            #expect(bindings.isEmpty, "a dry run sent a key: \(bindings)")
            #expect(run.sessionText.contains("dry run: no effect is fired"), "\(run.sessionText)")
        } else {
            #expect(bindings.map { $0["command"] as? String } == ["nop edgeswipe-back"], "the completed swipe once; the cancelled one not")
            #expect(bindings.first?["symbol"] as? String == "Left")
        }
    }

    /// What the quick start's test needs besides sway, and this machine lacks, or `nil`.
    static var quickstartMissing: String? {
        if !FileManager.default.isExecutableFile(atPath: "/usr/bin/grim") { return "no grim (apt install grim): the test takes screenshots" }
        if !FileManager.default.isExecutableFile(atPath: "/usr/bin/weston-flower") { return "no weston-flower (apt install weston): the test's windows" }
        return nil
    }

    /// Two workspaces, 1 focused, a window on each (an empty workspace vanishes when left), so that a workspace rule
    /// has somewhere to go.
    static func twoWorkspaces(_ sway: HeadlessSway, _ ipc: SwayIPCClient) {
        #expect(ipc.request(.runCommand, "workspace 2; exec weston-flower") != nil)
        #expect(waitUntil(timeout: 20) { (ipc.request(.getTree, "") ?? "").components(separatedBy: "\"pid\"").count == 2 }, "\(sway.log)")
        #expect(ipc.request(.runCommand, "workspace 1; exec weston-flower") != nil)
        #expect(waitUntil(timeout: 20) { (ipc.request(.getTree, "") ?? "").components(separatedBy: "\"pid\"").count == 3 }, "\(sway.log)")
        #expect(ipc.request(.runCommand, "workspace 1") != nil)
    }

    @Test("the quick start in a Wayland session, as its user: edgeswipe-session --dry-run draws the demo's swipes on the screen, logs what it would do, fires nothing, and stops with Ctrl-C",
          .enabled(if: Self.quickstartMissing == nil || ClickProbe.required, "\(Self.quickstartMissing ?? "")"))
    func quickstartOnScreen() throws {
        try #require(Self.quickstartMissing == nil, "EDGESWIPE_REQUIRE_SWAY=1, but \(Self.quickstartMissing ?? "")")
        let sway = try HeadlessSway(config: "bindsym alt+Left nop edgeswipe-back\n")
        let ipc = try SwayIPCClient(path: sway.swaySocket)
        Self.twoWorkspaces(sway, ipc)
        #expect(ipc.request(.subscribe, "[\"workspace\", \"binding\"]") != nil)
        #expect(ipc.request(.runCommand, "nop settle") != nil)
        let desktop = try sway.screenshot("quickstart-desktop")

        // The script as sway's user (nobody, when the tests are root), through python3 for Ctrl-C (FirstMinutesTests).
        let logs = sway.directory.appendingPathComponent("quickstart-logs")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        sway.session.giveToUser(logs)
        let script = Process()
        try sway.launch(script, [
            "/usr/bin/python3", "-c",
            "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); signal.signal(signal.SIGINT, signal.SIG_DFL); signal.signal(signal.SIGTERM, signal.SIG_DFL); os.execv('/bin/bash', ['bash'] + sys.argv[1:])",
            Paths.packageRoot.appendingPathComponent("scripts/quickstart").path,
        ], environment: sway.environment.merging(["EDGESWIPE_QUICKSTART_BIN": Paths.products.path, "EDGESWIPE_QUICKSTART_LOGS": logs.path, "CI": "1"]) { $1 },
            log: try sway.writableFile("quickstart.log"))
        let said = { Run.read(sway.directory.appendingPathComponent("quickstart.log")) }
        let sessionLog = logs.appendingPathComponent("latest/session.log")
        let session = { Run.read(sessionLog) }
        defer { if script.isRunning { kill(-script.processIdentifier, SIGKILL) } }

        #expect(waitUntil(timeout: 60) { said().contains("edgeswipe: on your screen: edgeswipe-session --dry-run draws the demo's swipes") }, "\(said())")
        #expect(session().contains("dry run: no effect is fired"), "\(session())")
        // Mid-gesture, the screen is not the desktop: the overlay draws the demo's swipes on it.
        var drawn = false
        let deadline = Date().addingTimeInterval(60)
        while !drawn, Date() < deadline, script.isRunning {
            drawn = !Screenshot.sameContent(desktop, try sway.screenshot("quickstart-mid-gesture"))
        }
        #expect(drawn, "the screen never showed the overlay: \(session())")
        // The demo's left-edge swipe and the touchpad's 3-finger swipes: what they would do, said and not done.
        #expect(waitUntil(timeout: 90) {
            let text = session()
            return ["would send alt+Left", "would switch to the next workspace", "would switch to the previous workspace"].allSatisfy(text.contains)
        }, "\(session())")
        #expect(ipc.request(.runCommand, "nop settle") != nil)
        #expect(ipc.events(I3IPCFrame.bindingEvent).isEmpty, "a key reached sway: \(session())")
        #expect(ipc.events(I3IPCFrame.workspaceEvent).filter { $0["change"] as? String == "focus" }.isEmpty, "a workspace changed: \(session())")
        #expect(!session().contains("-> key alt+Left") && !session().contains("-> workspace "), "\(session())")

        // Ctrl-C stops it with the rest: nothing of the script's process group is left.
        kill(script.processIdentifier, SIGINT)
        #expect(waitUntil(timeout: 30) { !script.isRunning }, "\(said())")
        script.waitUntilExit()
        #expect(script.terminationStatus == 130)
        #expect(waitUntil(timeout: 10) { kill(-script.processIdentifier, 0) != 0 }, "a process of the quick start outlived it")
    }

    @Test(
        "with no configuration, a real touchpad's 3-finger swipes right then left go to the previous then the next workspace",
        .enabled(if: Paths.haveShared, "../shared/recordings is absent (a user's clone): nothing to replay"))
    func workspaces() throws {
        let sway = try HeadlessSway(config: "")
        let ipc = try SwayIPCClient(path: sway.swaySocket)
        Self.twoWorkspaces(sway, ipc)
        #expect(ipc.request(.subscribe, "[\"workspace\"]") != nil)
        let recording = Paths.sharedRecordings.appendingPathComponent("libinput-record/paperwm-three-finger-swipe.yaml")
        let run = try Run(sway, recording: recording)
        #expect(run.waitForReplay(), "\(run.sessionText)")
        func focused() -> [String] {
            ipc.events(I3IPCFrame.workspaceEvent).filter { $0["change"] as? String == "focus" }
                .compactMap { ($0["current"] as? [String: Any])?["name"] as? String }
        }
        #expect(waitUntil(timeout: 10) { focused().count >= 2 }, "\(focused()) \(run.sessionText)")
        #expect(focused() == ["2", "1"], "\(run.sessionText)")
        // The focused window came from sway's tree and window events.
        #expect(run.sessionText.contains("rule 'previous workspace' (built-in): 3-finger swipe right completed in org.freedesktop.weston.flower -> workspace previous"))
        #expect(run.sessionText.contains("rule 'next workspace' (built-in): 3-finger swipe left completed in org.freedesktop.weston.flower -> workspace next"))
    }

    @Test("a rules file: sway commands, a command with the event in its environment, and a bad file at start-up refused with its line")
    func rulesFile() throws {
        let sway = try HeadlessSway(config: "")
        let ipc = try SwayIPCClient(path: sway.swaySocket)
        #expect(ipc.request(.subscribe, "[\"workspace\"]") != nil)
        let out = try sway.writableFile("command.out")
        let rules = try sway.writableFile("session.toml")
        try """
            [[rule]]
            name = "to 5"
            edge = "right"
            sway = "workspace 5"

            [[rule]]
            name = "note"
            edge = "top"
            command = ["sh", "-c", "echo $EDGESWIPE_EDGE $EDGESWIPE_PHASE $EDGESWIPE_FINGERS >> \(out.path)"]
            """.write(to: rules, atomically: false, encoding: .utf8)
        let run = try Run(sway, recording: Paths.demo, sessionArguments: ["--config", rules.path])
        #expect(run.waitForReplay(), "\(run.sessionText)")
        #expect(waitUntil(timeout: 10) {
            ipc.events(I3IPCFrame.workspaceEvent).contains { ($0["current"] as? [String: Any])?["name"] as? String == "5" }
        }, "\(run.sessionText)")
        #expect(waitUntil(timeout: 10) { (try? String(contentsOf: out, encoding: .utf8)) == "top completed 1\n" }, "\(run.sessionText)")

        let bad = try sway.writableFile("bad.toml")
        try "[[rule]]\nedge = \"left\"\nkey = \"alt+Nope\"\n".write(to: bad, atomically: false, encoding: .utf8)
        let check = Process()
        let checkLog = try sway.writableFile("check.log")
        try sway.launch(check, [Paths.edgeswipeSession.path, "--config", bad.path], environment: sway.environment, log: checkLog)
        check.waitUntilExit()
        #expect(check.terminationStatus == 78)
        #expect(Run.read(checkLog).contains("bad.toml:3: rule '#1': 'Nope' in 'alt+Nope' is not a key name"), "\(Run.read(checkLog))")
    }
}
