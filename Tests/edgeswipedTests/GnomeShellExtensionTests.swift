import EdgeSwipeTestSupport
import Foundation
import Glibc
import Testing

/// The GNOME Shell extension (`gnome-shell-extension/`) on a real headless GNOME Shell 43, driven through its D-Bus API
/// (org.edgeswipe.Shell1) as edgeswipe-session will drive it: by `ShellDriver`, our own sd-bus client built under the
/// name `edgeswipe-session`. The test-only observer extension shows what GNOME does (`HeadlessGnomeShell`). One shell
/// serves every check, in order; each check starts from rest (workspace 1 of 4, the overview hidden). Animations are
/// un-inhibited (software rendering inhibits them), so run-outs take the durations they are given.
@Suite(
    "the GNOME Shell extension on a real headless gnome-shell", .serialized,
    .enabled(if: HeadlessGnomeShell.unavailable == nil || HeadlessGnomeShell.required, "\(HeadlessGnomeShell.unavailable ?? "")"))
struct GnomeShellExtensionTests {
    typealias Check = GnomeCheck

    static let checks: [Check] = [
        Check(description: "registers, and says GNOME's version and what it can do", run: registers),
        Check(description: "refuses a process that is not edgeswipe-session, callers that did not register, and a second session", run: refusesOutsiders),
        Check(description: "the workspace follows the fingers mid-gesture and changes on commit", run: workspaceCommits),
        Check(description: "a reversed gesture goes back and the workspace stays", run: workspaceGoesBack),
        Check(description: "a run-out caught by a new touch follows the finger again", run: runOutIsCaught),
        Check(description: "the overview opens with the fingers; inside it, workspace gestures go to its workspace view", run: overviewOpens),
        Check(description: "nothing moves under a modal dialog, and no key goes into it", run: nothingUnderModal),
        Check(description: "Esc, Super or a hide mid-gesture: nothing throws, nothing stays frozen", run: shellChangesMidGesture),
        Check(description: "a client killed mid-gesture leaves GNOME settled", run: killedClient),
        Check(description: "keys reach the focused window", run: keysReachWindow),
        Check(description: "the focused app is reported to the client alone, and changes", run: focusedApp),
        Check(description: "a claim turns GNOME's own gesture off; release and the client's death turn it back on", run: claims),
        Check(description: "the extension disabled mid-gesture: it goes back, claims are released; enabled again, it says Ready", run: disabled),
        Check(description: "measured: handler time per update, frames and the shell's CPU during a slide", run: measures),
    ]

    @Test("every check on one headless gnome-shell", .timeLimit(.minutes(8)))
    func onOneShell() throws {
        try #require(HeadlessGnomeShell.unavailable == nil, "EDGESWIPE_REQUIRE_GNOME=1, but \(HeadlessGnomeShell.unavailable ?? "")")
        let started = ContinuousClock.now
        let stage = try GnomeStage()
        let ready = ContinuousClock.now
        let times = stage.run(Self.checks)
        print("GNOME Shell extension: shell ready in \(ready - started), whole suite \(ContinuousClock.now - started)\n  " + times.joined(separator: "\n  "))
    }

    // MARK: - The checks

    static func registers(_ s: GnomeStage) throws {
        let reply = s.client.call("Register", "u", "1")
        #expect(reply.ok, "\(reply)")
        #expect(reply.values.first as? Int == 1)
        #expect((reply.values.dropFirst().first as? String)?.hasPrefix("43.") == true, "GNOME's version: \(reply)")
        let capabilities = Set((reply.values.last as? [String]) ?? [])
        #expect(capabilities.isSuperset(of: [
            "workspace", "overview", "keys", "focused-app", "claim:touchpad-horizontal", "claim:touchpad-vertical",
            "claim:touchscreen-horizontal", "claim:touchscreen-vertical",
        ]), "\(capabilities)")
        #expect(s.client.call("Register", "u", "1").ok, "registering again as the client changes nothing")
        #expect(s.shell.log.contains("EdgeSwipe: \(s.client.uniqueName) (pid \(s.client.pid)"), "the journal names the client")
    }

    static func refusesOutsiders(_ s: GnomeStage) throws {
        let impostor = try ShellDriver(in: s.shell, name: "not-edgeswipe-session")
        let denied = impostor.call("Register", "u", "1")
        #expect(impostor.call("Register", "u", "1").error == "org.freedesktop.DBus.Error.AccessDenied", "refused again")
        #expect(denied.error == "org.freedesktop.DBus.Error.AccessDenied", "\(denied)")
        #expect(denied.message.contains("its executable is") && denied.message.contains("not-edgeswipe-session"), "says why: \(denied)")
        let unregistered = impostor.call("BeginGesture", "tsi", "900", "workspace-next", "-1")
        #expect(unregistered.error == "org.freedesktop.DBus.Error.AccessDenied", "\(unregistered)")
        let keys = impostor.call("SendChord", "asu", "-", "97")
        #expect(keys.error == "org.freedesktop.DBus.Error.AccessDenied", "\(keys)")
        let focus = impostor.get("FocusedApp")
        #expect(focus.values.first as? [String] == ["", ""], "an outsider reads no focused app: \(focus)")
        #expect(s.shell.log.components(separatedBy: "refused Register: \(impostor.uniqueName)").count == 2, "said once in the journal")

        let second = try ShellDriver(in: s.shell)
        let busy = second.call("Register", "u", "1")
        #expect(busy.error == "org.edgeswipe.Shell1.Error.Busy" && busy.message.contains(s.client.uniqueName), "\(busy)")
        #expect(try s.shell.state().settled)
    }

    static func workspaceCommits(_ s: GnomeStage) throws {
        let id = s.begin("workspace-next")
        s.slide(id, to: 0.5)
        let mid = try #require(s.shell.waitForState { abs(($0.switchProgress ?? -1) - 0.5) < 0.01 }, "no switch at 0.5")
        #expect(mid.switching && abs((mid.switchProgress ?? -1) - 0.5) < 0.01, "GNOME's own switch follows: \(mid)")
        #expect(mid.activeWorkspace == 0, "not switched before the end")
        try s.screenshot("gnome-workspaces-mid")
        s.slide(id, from: 0.5, to: 0.7)
        #expect(s.client.call("EndGesture", "tbu", id, "true", "250").ok)
        let after = s.shell.waitForState { $0.activeWorkspace == 1 && $0.settled }
        #expect(after?.activeWorkspace == 1 && after?.settled == true, "committed to the next workspace: \(after.map { "\($0)" } ?? "?")")
    }

    static func workspaceGoesBack(_ s: GnomeStage) throws {
        try s.shell.act("activate-workspace", "1")
        s.shell.waitForState { $0.activeWorkspace == 1 && $0.settled }
        let id = s.begin("workspace-next")
        s.slide(id, to: 0.6)
        let out = s.shell.waitForState { abs(($0.switchProgress ?? -1) - 1.6) < 0.01 }
        #expect(out != nil, "progress in GNOME's units, from workspace 2's snap point: \(out.map { "\($0)" } ?? "?")")
        s.slide(id, from: 0.6, to: 0.2)
        #expect(s.shell.waitForState { abs(($0.switchProgress ?? -1) - 1.2) < 0.01 } != nil, "follows the finger back")
        #expect(s.client.call("EndGesture", "tbu", id, "false", "300").ok)
        let after = s.shell.waitForState { $0.settled }
        #expect(after?.activeWorkspace == 1 && after?.settled == true, "went back: \(after.map { "\($0)" } ?? "?")")
    }

    static func runOutIsCaught(_ s: GnomeStage) throws {
        let id = s.begin("workspace-next")
        s.slide(id, to: 0.6)
        // A long run-out, caught half-way by the same transition's next update (a touch caught the daemon's run-out).
        #expect(s.client.call("EndGesture", "tbu", id, "true", "3000").ok)
        let running = s.shell.waitForState { ($0.switchProgress ?? 0) > 0.62 }
        #expect(running != nil, "running out toward the next workspace")
        s.client.send("UpdateGesture", "td", id, "0.3")
        let caught = s.shell.waitForState { abs(($0.switchProgress ?? -1) - 0.3) < 0.01 }
        #expect(caught?.switching == true, "caught, and following the finger again: \(caught.map { "\($0)" } ?? "?")")
        #expect(s.client.call("EndGesture", "tbu", id, "false", "200").ok)
        let after = s.shell.waitForState { $0.settled }
        #expect(after?.activeWorkspace == 0 && after?.settled == true, "\(after.map { "\($0)" } ?? "?")")
    }

    static func overviewOpens(_ s: GnomeStage) throws {
        let id = s.begin("overview-show")
        // A third of the way: GNOME's layout has shrunk the workspace most of the way to the window picker by half.
        s.slide(id, to: 0.3)
        let mid = try #require(s.shell.waitForState { abs($0.overviewControlsState - 0.3) < 0.01 }, "no overview at 0.3")
        #expect(mid.overviewVisible && mid.overviewGestureInProgress, "\(mid)")
        try s.screenshot("gnome-overview-mid")
        s.slide(id, from: 0.3, to: 0.8)
        #expect(s.client.call("EndGesture", "tbu", id, "true", "250").ok)
        let open = s.shell.waitForState { $0.overviewShownState == "SHOWN" && $0.settled }
        #expect(open?.overviewControlsState == 1 && open?.actionMode == 2, "the window picker, in the overview's mode: \(open.map { "\($0)" } ?? "?")")

        // Inside the overview, a workspace gesture moves the overview's workspace view, and the overview stays.
        let ws = s.begin("workspace-next")
        s.slide(ws, to: 0.5)
        let scrolled = s.shell.waitForState { abs($0.overviewWorkspaceScroll - 0.5) < 0.01 }
        #expect(scrolled != nil && scrolled?.switching == false, "the overview's view, not the desktop's switch: \(scrolled.map { "\($0)" } ?? "?")")
        try s.screenshot("gnome-overview-workspaces-mid")
        #expect(s.client.call("EndGesture", "tbu", ws, "true", "250").ok)
        let moved = s.shell.waitForState { $0.activeWorkspace == 1 && abs($0.overviewWorkspaceScroll - 1) < 0.001 }
        #expect(moved?.overviewVisible == true, "\(moved.map { "\($0)" } ?? "?")")

        // Closed with the fingers too.
        let hide = s.begin("overview-hide")
        s.slide(hide, to: 0.7)
        #expect(s.client.call("EndGesture", "tbu", hide, "true", "250").ok)
        let closed = s.shell.waitForState { $0.overviewShownState == "HIDDEN" && $0.settled }
        #expect(closed?.actionMode == 1, "\(closed.map { "\($0)" } ?? "?")")
    }

    static func nothingUnderModal(_ s: GnomeStage) throws {
        try s.shell.act("open-modal")
        defer { try? s.shell.act("close-modal") }
        let modal = try #require(s.shell.waitForState { $0.actionMode == 32 }, "no modal dialog")
        for kind in ["workspace-next", "overview-show"] {
            let r = s.client.call("BeginGesture", "tsi", s.nextID(), kind, "-1")
            #expect(r.error == "org.edgeswipe.Shell1.Error.NotAllowedNow" && r.message.contains("SYSTEM_MODAL"), "\(kind): \(r)")
        }
        let keys = s.client.call("SendChord", "asu", "-", "97")
        #expect(keys.error == "org.edgeswipe.Shell1.Error.NotAllowedNow", "\(keys)")
        let after = try s.shell.state()
        #expect(after.activeWorkspace == modal.activeWorkspace && after.settled && after.overviewShownState == "HIDDEN", "\(after)")
    }

    static func shellChangesMidGesture(_ s: GnomeStage) throws {
        // Super (through the extension's own keyboard) while a workspace gesture follows the finger: GNOME opens
        // the overview and turns its desktop tracker off; the gesture goes back at once, as GNOME's own would.
        let ws = s.begin("workspace-next")
        s.slide(ws, to: 0.4)
        #expect(s.shell.waitForState { $0.switching } != nil)
        #expect(s.client.call("SendChord", "asu", "-", "\(0xffeb)").ok)
        let opened = s.shell.waitForState { $0.overviewShownState == "SHOWN" && !$0.switching }
        #expect(opened?.activeWorkspace == 0, "\(opened.map { "\($0)" } ?? "?")")
        #expect(s.client.wait { $0["signal"] as? String == "GestureSettled" && ($0["values"] as? [Any])?.first as? Int == Int(ws) } != nil)
        let late = s.client.call("EndGesture", "tbu", ws, "true", "250")
        #expect(late.error == "org.edgeswipe.Shell1.Error.Interrupted", "\(late)")

        // Esc while a gesture hides the shown overview: GNOME hides it itself; the gesture steps aside.
        let hide = s.begin("overview-hide")
        s.slide(hide, to: 0.4)
        #expect(s.shell.waitForState { $0.overviewGestureInProgress } != nil)
        #expect(s.client.call("SendChord", "asu", "-", "\(0xff1b)").ok)
        let hidden = s.shell.waitForState { $0.overviewShownState == "HIDDEN" && $0.settled }
        #expect(hidden != nil, "hidden by Esc, nothing frozen")
        s.client.send("UpdateGesture", "td", hide, "0.6")
        #expect(s.client.call("EndGesture", "tbu", hide, "true", "250").error == "org.edgeswipe.Shell1.Error.Interrupted")

        // Something hides the overview while a gesture shows it (GNOME would throw at the next update): it goes back.
        let show = s.begin("overview-show")
        s.slide(show, to: 0.4)
        #expect(s.shell.waitForState { $0.overviewVisible } != nil)
        try s.shell.act("hide-overview")
        s.client.send("UpdateGesture", "td", show, "0.5")
        let back = s.shell.waitForState { $0.overviewShownState == "HIDDEN" && $0.settled }
        #expect(back != nil, "settled hidden: \((try? s.shell.state()).map { "\($0)" } ?? "?")")
        #expect(s.client.call("EndGesture", "tbu", show, "true", "250").error == "org.edgeswipe.Shell1.Error.Interrupted")
    }

    static func killedClient(_ s: GnomeStage) throws {
        // The registered client leaves (its input ends); a new one registers for this check.
        s.client.quit()
        let client = try ShellDriver(in: s.shell)
        #expect(client.call("Register", "u", "1").ok)
        let id = s.nextID()
        #expect(client.call("BeginGesture", "tsi", id, "workspace-next", "-1").ok)
        for p in stride(from: 0.05, through: 0.45, by: 0.05) { client.send("UpdateGesture", "td", id, "\(p)") }
        let mid = s.shell.waitForState { abs(($0.switchProgress ?? -1) - 0.45) < 0.01 }
        #expect(mid?.switching == true)
        kill(client.process.processIdentifier, SIGKILL)
        client.process.waitUntilExit()
        let after = s.shell.waitForState { $0.settled }
        #expect(after?.activeWorkspace == 0 && after?.settled == true, "settled back: \(after.map { "\($0)" } ?? "?")")
        #expect(s.shell.waitForLog("is no longer the client: the client left the bus"))
        s.client = try ShellDriver(in: s.shell)
        #expect(s.client.call("Register", "u", "1").ok, "a new session registers once the old one is gone")
    }

    static func keysReachWindow(_ s: GnomeStage) throws {
        try s.shell.act("focus", "one")
        s.shell.waitForState { $0.focusedWMClass == "org.edgeswipe.TestOne" }
        #expect(s.client.call("SendChord", "asu", "ctrl", "\(0x78)").ok)
        #expect(s.client.call("SendChord", "asu", "shift,alt", "\(0x62)").ok)
        #expect(s.client.call("SendChord", "asu", "-", "\(0x61)").ok)
        let expected = ["key Control_L -", "key x ctrl", "key B shift+alt", "key a -"]
        #expect(waitUntil(timeout: 20) { expected.allSatisfy(s.windowLog("one").contains) }, "the window got: \(s.windowLog("one"))")
        let refused = s.client.call("SendChord", "asu", "hyper", "97")
        #expect(refused.error == "org.freedesktop.DBus.Error.InvalidArgs" && refused.message.contains("hyper"), "\(refused)")
    }

    static func focusedApp(_ s: GnomeStage) throws {
        try s.shell.act("focus", "one")
        s.shell.waitForState { $0.focusedWMClass == "org.edgeswipe.TestOne" }
        let now = s.client.get("FocusedApp")
        #expect(now.values.first as? [String] == ["org.edgeswipe.TestOne", "org.edgeswipe.TestOne"], "app id and .desktop id: \(now)")
        let before = s.client.signals("FocusedAppChanged").count
        try s.shell.act("focus", "two")
        let changed = s.client.wait {
            $0["signal"] as? String == "FocusedAppChanged" && ($0["values"] as? [String])?.first == "org.edgeswipe.TestTwo"
        }
        #expect(changed?["destination"] as? String == s.client.uniqueName, "unicast to the client: \(changed ?? [:])")
        #expect(changed?["values"] as? [String] == ["org.edgeswipe.TestTwo", ""], "no .desktop file: no desktop id")
        #expect(s.client.signals("FocusedAppChanged").count == before + 1, "once")
        let read = s.client.get("FocusedApp")
        #expect(read.values.first as? [String] == ["org.edgeswipe.TestTwo", ""], "\(read)")
    }

    static func claims(_ s: GnomeStage) throws {
        let parts = ["touchpad", "touchscreen"]
        func horizontal(_ state: ShellState) -> [Bool?] { ["workspaces", "app_grid"].flatMap { t in parts.map { state.tracker(t, $0) } } }
        let before = try s.shell.state()
        #expect(horizontal(before).allSatisfy { $0 == true }, "GNOME's gestures on at first: \(before.json["trackers"] ?? "")")

        // GNOME's own three-finger touchscreen swipe (a virtual touchscreen) moves the workspaces when nobody claims it.
        let own = try s.touchSwipe()
        #expect(own.contains { $0 }, "GNOME's own swipe began a switch")
        s.shell.waitForState { $0.settled }
        try s.shell.act("activate-workspace", "0")
        s.shell.waitForState { $0.activeWorkspace == 0 && $0.settled }

        let claimed = s.client.call("ClaimGestures", "as", "touchpad-horizontal,touchscreen-horizontal")
        #expect(claimed.values.first as? [String] == ["touchpad-horizontal", "touchscreen-horizontal"], "\(claimed)")
        let off = try s.shell.state()
        #expect(horizontal(off).allSatisfy { $0 == false }, "\(off.json["trackers"] ?? "")")
        #expect(off.tracker("overview", "touchpad") == true, "the overview's gesture is not claimed")
        #expect(!(try s.touchSwipe()).contains { $0 }, "GNOME's own swipe moves nothing while claimed")
        // GNOME turns its trackers off and on as the overview comes and goes; the claim holds.
        try s.shell.act("show-overview")
        s.shell.waitForState { $0.overviewShownState == "SHOWN" }
        try s.shell.act("hide-overview")
        let afterOverview = s.shell.waitForState { $0.overviewShownState == "HIDDEN" && $0.settled }
        #expect(afterOverview.map(horizontal)?.allSatisfy { $0 == false } == true, "still off: \(afterOverview?.json["trackers"] ?? "")")

        #expect(s.client.call("ClaimGestures", "as", "-").values.first as? [String] == [])
        let released = try s.shell.state()
        #expect(horizontal(released).allSatisfy { $0 == true }, "released: \(released.json["trackers"] ?? "")")

        #expect(s.client.call("ClaimGestures", "as", "touchpad-vertical,touchscreen-vertical").ok)
        #expect(try s.shell.state().tracker("overview", "touchscreen") == false)
        kill(s.client.process.processIdentifier, SIGKILL)
        s.client.process.waitUntilExit()
        let restored = s.shell.waitForState { $0.tracker("overview", "touchscreen") == true && $0.tracker("overview", "touchpad") == true }
        #expect(restored != nil, "the client's death released its claim")
        s.client = try ShellDriver(in: s.shell)
        #expect(s.client.call("Register", "u", "1").ok)
    }

    static func disabled(_ s: GnomeStage) throws {
        let extensions = ("/org/gnome/Shell", "org.gnome.Shell.Extensions")
        #expect(s.client.call("ClaimGestures", "as", "touchscreen-horizontal").ok)
        let id = s.begin("workspace-next")
        s.slide(id, to: 0.4)
        #expect(s.shell.waitForState { $0.switching } != nil)
        try s.shell.callShell(extensions.0, extensions.1, "DisableExtension", "s", [HeadlessGnomeShell.extensionUUID])
        let after = s.shell.waitForState { $0.settled && $0.tracker("workspaces", "touchscreen") == true }
        #expect(after?.activeWorkspace == 0 && after?.settled == true, "went back, claim released: \(after.map { "\($0)" } ?? "?")")
        let readyBefore = s.client.signals("Ready").count
        try s.shell.callShell(extensions.0, extensions.1, "EnableExtension", "s", [HeadlessGnomeShell.extensionUUID])
        #expect(waitUntil(timeout: 20) { s.client.signals("Ready").count > readyBefore }, "Ready, broadcast when the object is back")
        let stale = s.client.call("BeginGesture", "tsi", s.nextID(), "workspace-next", "-1")
        #expect(stale.error == "org.freedesktop.DBus.Error.AccessDenied", "a registration does not outlive the extension: \(stale)")
        #expect(s.client.call("Register", "u", "1").ok, "the client registers again")
        // The first chord of a freshly enabled extension arrives: its keyboard was made at enable (a device made at
        // the first chord dropped that chord).
        try s.shell.act("focus", "one")
        s.shell.waitForState { $0.focusedWMClass == "org.edgeswipe.TestOne" }
        #expect(s.client.call("SendChord", "asu", "ctrl", "\(0x79)").ok)
        #expect(waitUntil(timeout: 20) { s.windowLog("one").contains("key y ctrl") }, "the window got: \(s.windowLog("one"))")
    }

    static func measures(_ s: GnomeStage) throws {
        let id = s.begin("workspace-next")
        try s.shell.observe("Measure", "s", ["begin"])
        let cpu0 = processCPUSeconds(s.shellPID)
        let t0 = ContinuousClock.now
        // 90 updates, one per 60 Hz frame, as the daemon's stream comes during a 1.5 s slide.
        let steps = 90
        for i in 1...steps {
            s.client.send("UpdateGesture", "td", id, "\(0.8 * Double(i) / Double(steps))")
            waitUntilClock(t0 + .milliseconds(i * 1000 / 60))
        }
        s.shell.waitForState { abs(($0.switchProgress ?? -1) - 0.8) < 0.01 }
        let wall = ContinuousClock.now - t0
        let cpu1 = processCPUSeconds(s.shellPID)
        let measured = try #require(s.shell.observe("Measure", "s", ["end"]) as? [String: Any])
        #expect(s.client.call("EndGesture", "tbu", id, "false", "200").ok)
        s.shell.waitForState { $0.settled }
        let handlers = measured["handler_us"] as? [String: Any] ?? [:]
        let update = handlers["UpdateGesture"] as? [String: Any] ?? [:]
        let gnome = handlers["gnome:_switchWorkspaceUpdate"] as? [String: Any] ?? [:]
        let frames = (measured["frames"] as? Int) ?? 0
        let frameSeconds = (measured["frame_seconds"] as? Double) ?? 0
        let wallSeconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
        let cpu = (cpu1 - cpu0) / wallSeconds
        #expect((update["calls"] as? Int) == steps, "every update reached the handler: \(measured)")
        print(String(
            format: "GNOME Shell extension, measured: UpdateGesture handler p50 %@ us, p99 %@ us, max %@ us (%@ calls), of which GNOME's "
                + "own _switchWorkspaceUpdate p50 %@ us, p99 %@ us; %d frames in %.2f s (%.1f fps); gnome-shell CPU %.0f %% of one core "
                + "over the %.2f s slide",
            "\(update["p50"] ?? "?")", "\(update["p99"] ?? "?")", "\(update["max"] ?? "?")", "\(update["calls"] ?? "?")",
            "\(gnome["p50"] ?? "?")", "\(gnome["p99"] ?? "?")", frames, frameSeconds,
            frameSeconds > 0 ? Double(max(0, frames - 1)) / frameSeconds : 0, cpu * 100, wallSeconds))
    }
}

/// Waits until the clock reaches `deadline` (a schedule, not a fixed sleep: the steps of a slide at 60 Hz).
/// One check of a table run on one shell: its name, and what it does with the stage.
struct GnomeCheck: CustomStringConvertible, Sendable {
    var description: String
    var run: @Sendable (GnomeStage) throws -> Void
}

extension GnomeStage {
    /// Runs `checks` in order, each from rest (and after `prepare`), recording a check's error with the shell's
    /// journal and going on; at the end, that the extension never caught GNOME throwing. Each check's time.
    func run(_ checks: [GnomeCheck], prepare: (GnomeStage) throws -> Void = { _ in }) -> [String] {
        var times: [String] = []
        for check in checks {
            let t0 = ContinuousClock.now
            do {
                try rest()
                try prepare(self)
                try check.run(self)
            } catch {
                Issue.record("\(check): \(error)\n\(shell.log.suffix(3000))")
            }
            times.append("\(check): \(ContinuousClock.now - t0)")
        }
        #expect(!shell.log.contains("failed inside GNOME Shell"), "the extension caught GNOME throwing:\n\(shell.log.suffix(4000))")
        return times
    }
}

func waitUntilClock(_ deadline: ContinuousClock.Instant) {
    let now = ContinuousClock.now
    guard deadline > now else { return }
    let left = deadline - now
    Thread.sleep(forTimeInterval: Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18)
}

/// A process's user and system CPU time so far, in seconds (`/proc/PID/stat`).
func processCPUSeconds(_ pid: Int32) -> Double {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return 0 }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    // After the name: state is field 3; utime and stime are fields 14 and 15.
    guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// The shell, two windows (one per workspace), the registered client, and the ids of the daemon's transitions.
final class GnomeStage {
    let shell: HeadlessGnomeShell
    var client: ShellDriver
    private var windows: [String: HeadlessSession.Launched] = [:]
    private var lastID: UInt64 = 0
    private(set) var shellPID: Int32 = 0

    init() throws {
        let shell = try HeadlessGnomeShell()
        self.shell = shell
        #expect(try shell.observe("SetAnimations", "b", ["true"]) as? Bool == true, "animations un-inhibited")
        try shell.act("hide-overview")
        try shell.act("clear-notifications")
        var windows: [String: HeadlessSession.Launched] = [:]
        for (title, text, align) in [("one", "WORKSPACE 1", "end"), ("two", "WORKSPACE 2", "start")] {
            let appID = title == "one" ? "org.edgeswipe.TestOne" : "org.edgeswipe.TestTwo"
            let log = try shell.writableFile("window-\(title).keys")
            let window = try shell.startClient(
                "window-\(title)", ["/usr/bin/gjs", shell.directory.appendingPathComponent("test-window.js").path, appID, title, text, log.path, align])
            windows[title] = HeadlessSession.Launched(process: window.process, log: log)
            let shown = waitUntil(timeout: 30) {
                let listed = (try? shell.state())?.json["windows"] as? [[String: Any]] ?? []
                return listed.contains { $0["title"] as? String == title } || !window.isRunning
            }
            guard shown, window.isRunning else { throw DaemonTestError("the test window \(title) did not show: \(window.text)") }
        }
        self.windows = windows
        try shell.act("move", "two:1")
        client = try ShellDriver(in: shell)
        shellPID = try shell.state().pid
    }

    /// The keys window `title` received, one line each.
    func windowLog(_ title: String) -> String { windows[title]?.text ?? "" }

    /// A transition id the daemon could have given (as text, for the driver).
    func nextID() -> String {
        lastID += 1
        return "\(lastID)"
    }

    /// Begins a gesture of `kind` for a new transition, as the session does at `began`; its id.
    func begin(_ kind: String, sourceLocation: SourceLocation = #_sourceLocation) -> String {
        let id = nextID()
        let reply = client.call("BeginGesture", "tsi", id, kind, "-1")
        #expect(reply.ok, "BeginGesture \(kind): \(reply)", sourceLocation: sourceLocation)
        return id
    }

    /// Each check starts here: no modal dialog, the overview hidden, workspace 1, nothing moving.
    func rest() throws {
        try shell.act("close-modal")
        try shell.act("hide-overview")
        try shell.act("activate-workspace", "0")
        guard shell.waitForState(timeout: 30, { $0.activeWorkspace == 0 && $0.overviewShownState == "HIDDEN" && $0.settled }) != nil else {
            throw DaemonTestError("the shell did not come to rest: \((try? shell.state()).map { "\($0)" } ?? "?")")
        }
    }

    /// Updates from `from` to `to` in steps of 0.05 (the daemon's stream, coalesced), without waiting for answers.
    func slide(_ id: String, from: Double = 0, to: Double) {
        let steps = max(1, Int((abs(to - from) / 0.05).rounded()))
        for i in 1...steps { client.send("UpdateGesture", "td", id, "\(from + (to - from) * Double(i) / Double(steps))") }
    }

    /// A screenshot taken inside the shell, while the gesture holds still (a capture stalls the compositor), kept in
    /// the artefacts (`gnome/NAME.png`); `EDGESWIPE_GNOME_README=docs` refreshes the README's copy.
    func screenshot(_ name: String) throws {
        let file = try shell.writableFile("\(name).png")
        try shell.observe("Screenshot", "s", [file.path], timeout: 120)
        let folder = Artefacts.base.appendingPathComponent("gnome")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let kept = folder.appendingPathComponent("\(name).png")
        try? FileManager.default.removeItem(at: kept)
        try FileManager.default.copyItem(at: file, to: kept)
        if let docs = ProcessInfo.processInfo.environment["EDGESWIPE_GNOME_README"] {
            let target = URL(fileURLWithPath: docs).appendingPathComponent("\(name).png")
            try? FileManager.default.removeItem(at: target)
            try FileManager.default.copyItem(at: file, to: target)
        }
    }

    /// GNOME's own three-finger swipe on a virtual touchscreen, right to left: whether a workspace switch was in
    /// progress after each step.
    func touchSwipe() throws -> [Bool] {
        let answer = try shell.observe("TouchSwipe", "udduu", ["3", "-420", "0", "12", "30"]) as? [String: Any]
        return ((answer?["samples"] as? [[String: Any]]) ?? []).map { ($0["switching"] as? Bool) ?? false }
    }
}

extension HeadlessGnomeShell {
    /// Whether the shell's log says `text` within `timeout`.
    func waitForLog(_ text: String, timeout: Double = 20) -> Bool {
        waitUntil(timeout: timeout) { self.log.contains(text) }
    }
}
