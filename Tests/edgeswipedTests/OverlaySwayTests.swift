import EdgeSwipeCore
import EdgeSwipeFingerScript
import EdgeSwipeRecordings
import EdgeSwipeSessionModel
import EdgeSwipeSystem
import EdgeSwipeTestSupport
import Foundation
import Glibc
import Testing

/// The session's overlay on a real, headless sway: the daemon replays a scripted recording slowed down
/// (`--speed 0.25`), `edgeswipe-session` draws, and `grim` takes screenshots while the test follows the same stream,
/// so that each shot is judged against what the daemon said at that moment. The screenshots are kept
/// (``Artefacts``, named in docs/TESTING.md). As root, sway and every client run as `nobody` (sway refuses root).
@Suite(
    "edgeswipe-session's overlay on headless sway", .serialized,
    .enabled(if: ClickProbe.missing == nil || ClickProbe.required, "\(ClickProbe.missing ?? "")"))
struct OverlaySwayTests {
    /// The backdrop a probe window paints under the overlay: a light app.
    static let backdrop: (r: Int, g: Int, b: Int) = (0xec, 0xef, 0xf4)
    static let sway = "default_border none\ndefault_floating_border none\nseat seat0 hide_cursor 1\n"
    /// The daemon's configuration: the default one, with the demo touchscreen driving sway's one output, and root
    /// (the test, when it runs as root) admitted beside the daemon's own user (sway's and the session's).
    static let daemonConfig = """
        version = 1
        [access]
        read = ["owner"]
        read_uids = [0]
        [[devices.override]]
        match = "EdgeSwipe Demo Touchscreen"
        output = "HEADLESS-1"
        """

    /// The scripted recording: on the demo's touchscreen, a left-edge swipe to 70 % at 45 % of the height (previous
    /// tab: it completes), the same at 60 % (the first tab now: blocked), a top-edge swipe (the notifications come
    /// down), and three fingers moving left at 55 % of the height (the next tab).
    static func recording() throws -> String {
        let device = try DemoRecording.device.touchDevice(id: DeviceID(1), path: "overlay")
        var script = FingerScript()
        var start = Microseconds.milliseconds(800)
        func add(_ s: FingerScript) {
            script = script + s
            start = s.end + .milliseconds(900)
        }
        func edge(_ e: Edge, along: Double, id: Int32) -> FingerScript {
            FingerScript.edgeSwipe(
                EdgeSwipe(edge: e, travel: 0.7, duration: .milliseconds(450), release: .atRest(hold: .milliseconds(200)), along: along,
                          landing: .millimeters(1.5)),
                on: device, trackingID: id, start: start)
        }
        add(edge(.left, along: 0.45, id: 1))
        add(edge(.left, along: 0.6, id: 2))
        add(edge(.top, along: 0.5, id: 3))
        add(FingerScript.multiFingerSwipe(
            MultiFingerSwipe(fingers: 3, direction: .left, travelMM: 100, duration: .milliseconds(450), center: (0.7, 0.55)),
            on: device, start: start))
        return Evemu.write(DemoRecording.device, events: EvdevScriptRenderer.events(script, on: DemoRecording.device))
    }

    /// sway, the probe window, the daemon replaying `recording`, a reader of its stream, and the session.
    final class Stage {
        let sway: HeadlessSway
        let daemon = Process()
        let session = Process()
        let probe = Process()
        let probeLog: URL
        let sessionLog: URL
        let daemonLog: URL
        let stream: LineClient
        /// Every message read so far, with what the test's clock said when it was read.
        private(set) var messages: [[String: Any]] = []

        init(
            recording: String, speed: Double, probeMode: String = "window", sessionArguments: [String] = [],
            beforeSession: (HeadlessSway) throws -> Void = { _ in }
        ) throws {
            try #require(ClickProbe.missing == nil, "EDGESWIPE_REQUIRE_SWAY=1, but \(ClickProbe.missing ?? "")")
            sway = try HeadlessSway(config: OverlaySwayTests.sway)
            let probeBinary = try ClickProbe.binary()
            probeLog = try sway.writableFile("probe.log")
            let colour = String(format: "%02x%02x%02x", backdrop.r, backdrop.g, backdrop.b)
            let (probe, probeLog) = (probe, probeLog)
            try sway.launch(probe, [probeBinary.path, probeMode, colour], environment: sway.environment, log: probeLog)
            guard waitUntil(timeout: 20, { Self.read(probeLog).contains("ready") || !probe.isRunning }), probe.isRunning else {
                throw DaemonTestError("the probe window did not show: \(Self.read(probeLog))\n\(sway.log)")
            }
            let file = try sway.writableFile("overlay.evemu")
            try recording.write(to: file, atomically: false, encoding: .utf8)
            let config = try sway.writableFile("config.toml")
            try OverlaySwayTests.daemonConfig.write(to: config, atomically: false, encoding: .utf8)
            let socket = sway.directory.appendingPathComponent("d.sock").path
            daemonLog = try sway.writableFile("daemon.log")
            sessionLog = try sway.writableFile("session.log")
            let daemon = daemon
            try sway.launch(daemon, [
                Paths.edgeswiped.path, "--socket", socket, "--config", config.path, "--replay", file.path, "--speed", "\(speed)",
                "--wait-for-clients", "2",
            ], environment: [:], log: daemonLog)
            guard waitUntil(timeout: 30, { FileManager.default.fileExists(atPath: socket) || !daemon.isRunning }), daemon.isRunning else {
                throw DaemonTestError("the daemon did not listen: \(Self.read(daemonLog))")
            }
            stream = try LineClient(path: socket)
            try beforeSession(sway)
            try sway.launch(session, [Paths.edgeswipeSession.path, "--socket", socket, "--log-level", "debug"] + sessionArguments,
                            environment: sway.environment, log: sessionLog)
        }

        static func read(_ url: URL) -> String { (try? String(contentsOf: url, encoding: .utf8)) ?? "" }
        var sessionText: String { Self.read(sessionLog) }
        var probeText: String { Self.read(probeLog) }

        /// Reads the stream until a message satisfies `condition`; that message, or `nil` after `timeout`.
        @discardableResult
        func waitFor(timeout: Double = 60, _ condition: ([String: Any]) -> Bool) -> [String: Any]? {
            let read = stream.messages(until: condition, timeoutSeconds: timeout)
            messages += read
            guard let last = read.last, condition(last) else { return nil }
            return last
        }

        /// A screenshot now (as sway's user), of every output or of `output`, with the instants it was asked for and
        /// taken, on the daemon's clock.
        func screenshot(_ name: String, output: String? = nil) throws -> Screenshot {
            try sway.screenshot(name, output: output)
        }

        /// Takes screenshots until one shows nothing but the window (a run-out is over): the overlay's surface is
        /// gone. That one, or the last taken.
        func screenshotAtRest(_ name: String, timeout: Double = 20) throws -> Screenshot {
            let deadline = Date().addingTimeInterval(timeout)
            var shot = try screenshot(name)
            while shot.differingPixels(from: backdrop) > 0, Date() < deadline { shot = try screenshot(name) }
            return shot
        }

        /// The transition messages of `id` with a time within `window`.
        func transitionMessages(_ id: Int, within window: ClosedRange<UInt64>) -> [[String: Any]] {
            messages.filter {
                $0.type == "transition" && $0["id"] as? Int == id && window.contains(UInt64(($0["time_us"] as? Int) ?? 0))
            }
        }

        deinit {
            for p in [session, daemon, probe] where p.isRunning {
                kill(p.processIdentifier, SIGTERM)
                // Whatever ignores it (a process the runner started inherits its blocked signals) is killed.
                if !waitUntil(timeout: 10, { !p.isRunning }) { kill(p.processIdentifier, SIGKILL) }
                p.waitUntilExit()
            }
        }
    }

    static func isTransition(_ m: [String: Any], edge: String? = nil, swipe: String? = nil, phase: String, atLeast percent: Double = 0) -> Bool {
        m.type == "transition" && (edge == nil || m["edge"] as? String == edge) && (swipe == nil || m["swipe_direction"] as? String == swipe)
            && m["phase"] as? String == phase && ((m["percent"] as? Double) ?? 0) >= percent
    }

    @Test("a left-edge swipe, a blocked swipe, a top-edge presentation and a 3-finger swipe, drawn under the finger and gone after their run-outs; nothing at rest",
          .timeLimit(.minutes(4)))
    func drawing() throws {
        let stage = try Stage(recording: try Self.recording(), speed: 0.25)
        let h = 600.0, w = 800.0
        #expect(stage.waitFor { $0.type == "hello" } != nil, "no hello: \(Stage.read(stage.daemonLog))")
        #expect(waitUntil(timeout: 20) { stage.sessionText.contains("overlay: drawing feedback under the finger") }, "\(stage.sessionText)")

        // At rest: only the window.
        let rest = try stage.screenshot("0-rest")
        #expect(rest.differingPixels(from: Self.backdrop) == 0, "drawn at rest")

        // The left-edge swipe: at the left edge at the finger's height, larger later, gone after the run-out.
        let began = try #require(stage.waitFor { $0.type == "gesture" && $0["edge"] as? String == "left" && $0["state"] as? String == "began" })
        let fingerY = (((began["location"] as? [String: Any])?["y"] as? Double) ?? 0) * h
        #expect(stage.waitFor { Self.isTransition($0, edge: "left", phase: "changed", atLeast: 0.15) } != nil)
        let early = try stage.screenshot("1-left-early")
        #expect(stage.waitFor { Self.isTransition($0, edge: "left", phase: "changed", atLeast: 0.45) } != nil)
        let late = try stage.screenshot("2-left-late")
        for shot in [early, late] {
            let drawn = try #require(shot.region(from: .left, backdrop: Self.backdrop), "\(shot.name): nothing at the left edge")
            #expect(abs(drawn.centerY - fingerY) < 14, "\(shot.name): drawn around y \(drawn.centerY), the finger at \(fingerY)")
            #expect(shot.region(from: .right, backdrop: Self.backdrop) == nil && shot.region(from: .top, backdrop: Self.backdrop) == nil)
        }
        let earlyDepth = early.region(from: .left, backdrop: Self.backdrop)?.depth ?? 0
        let lateDepth = late.region(from: .left, backdrop: Self.backdrop)?.depth ?? 0
        #expect(lateDepth > earlyDepth + 4, "larger later: \(earlyDepth) px then \(lateDepth) px")
        #expect(stage.waitFor { Self.isTransition($0, edge: "left", phase: "completed") } != nil)
        #expect(try stage.screenshotAtRest("3-left-gone").differingPixels(from: Self.backdrop) == 0, "still drawn after the run-out")

        // The blocked swipe: its rubber band, a grey knob, at the left edge at its finger's height, then nothing.
        let blocked = try #require(stage.waitFor {
            $0.type == "gesture" && $0["blocked"] != nil && $0["state"] as? String == "changed" && (($0["overscroll"] as? Double) ?? 0) > 0.025
        })
        let bandY = (((blocked["location"] as? [String: Any])?["y"] as? Double) ?? 0) * h
        let band = try stage.screenshot("4-blocked")
        let bandRegion = try #require(band.region(from: .left, backdrop: Self.backdrop, depths: 8...14), "no rubber band drawn")
        #expect(abs(bandRegion.centerY - bandY) < 14, "the band at y \(bandRegion.centerY), the finger at \(bandY)")
        #expect(band.hasGreyKnob(near: bandRegion), "a grey knob, not the accent")
        #expect(stage.waitFor { $0.type == "gesture" && $0["blocked"] != nil && $0["state"] as? String == "ended" } != nil)
        #expect(try stage.screenshotAtRest("5-blocked-gone").differingPixels(from: Self.backdrop) == 0, "the band did not spring back")

        // The top-edge presentation: the panel comes down with the finger, where the stream places it.
        let first = try #require(stage.waitFor { Self.isTransition($0, edge: "top", phase: "changed", atLeast: 0.25) })
        let id = try #require(first["id"] as? Int)
        let upper = try stage.screenshot("6-shade-upper")
        #expect(stage.waitFor { Self.isTransition($0, edge: "top", phase: "changed", atLeast: 0.55) } != nil)
        let lower = try stage.screenshot("7-shade-lower")
        var bottoms: [Double] = []
        for shot in [upper, lower] {
            let bottom = try #require(shot.panelBottom(column: 200, backdrop: Self.backdrop), "\(shot.name): no panel")
            // What the stream said while the screenshot was taken, and a little before: the picture shows the frame
            // last committed, drawn from a line that arrived up to a few compositor frames earlier on a busy machine.
            let window = (shot.takenUS.lowerBound - 100_000)...shot.takenUS.upperBound
            let said = stage.transitionMessages(id, within: window).compactMap { m -> Double? in
                guard let to = (m["geometry"] as? [String: Any])?["to"] as? [String: Any], let f = to["frame"] as? [String: Any],
                      let y = f["y"] as? Double, let height = f["height"] as? Double else { return nil }
                return (y + height) * h
            }
            // The panel's soft shadow reaches 3 px below it, and its edge is antialiased.
            let low = (said.min() ?? .nan) - 6, high = (said.max() ?? .nan) + 10
            #expect(!said.isEmpty && bottom >= low && bottom <= high, "\(shot.name): the panel ends at y \(bottom); the stream placed it within \(low)...\(high)")
            #expect(shot.isDimmed(x: 600, y: 590, backdrop: Self.backdrop), "\(shot.name): no dimming under the panel")
            bottoms.append(bottom)
        }
        #expect(bottoms[1] > bottoms[0] + 20, "the panel comes down as the finger does: \(bottoms)")
        #expect(stage.waitFor { $0.type == "transition" && $0["id"] as? Int == id && $0["phase"] as? String == "completed" } != nil)
        #expect(try stage.screenshotAtRest("8-shade-gone").differingPixels(from: Self.backdrop) == 0)

        // Three fingers moving left: the indicator at the right edge, where the motion comes from, at their height.
        let swipe = try #require(stage.waitFor { $0.type == "gesture" && $0["kind"] as? String == "swipe" && $0["state"] as? String == "changed" })
        let swipeY = (((swipe["location"] as? [String: Any])?["y"] as? Double) ?? 0) * h
        #expect(stage.waitFor { Self.isTransition($0, swipe: "left", phase: "changed", atLeast: 0.3) } != nil)
        let three = try stage.screenshot("9-three-fingers")
        let right = try #require(three.region(from: .right, backdrop: Self.backdrop), "nothing at the right edge")
        #expect(abs(right.centerY - swipeY) < 20, "at y \(right.centerY), the fingers' centroid at \(swipeY)")
        #expect(three.region(from: .left, backdrop: Self.backdrop) == nil)
        #expect(stage.waitFor { Self.isTransition($0, swipe: "left", phase: "completed") } != nil)
        #expect(try stage.screenshotAtRest("10-three-gone").differingPixels(from: Self.backdrop) == 0)
        _ = w

        // The session drew on its own, with frames only while something moved.
        stage.session.terminate()
        stage.session.waitUntilExit()
        let summary = stage.sessionText.components(separatedBy: "\n").last { $0.contains("overlay: ") && $0.contains(" frames (") } ?? ""
        #expect(!summary.isEmpty, "\(stage.sessionText)")
        print("overlay on sway: \(summary)")
        // The overlay asks sway for wp_presentation feedback on every new picture, and the exit line carries what came of
        // it (issue 39 item 2's figure, which the bench reads from this line). Headless sway 1.7 (wlroots 0.15) offers
        // the global but never answers `presented` (its headless output sends no present events; FIELD-NOTES), so
        // times are asserted only where it does; the bench nests sway in headless weston, which does.
        let shown = try #require(
            summary.firstMatch(of: /stream line -> presentation .* \(n (\d+)\); refresh ([\d.]+) ms; (\d+) presented, (\d+) discarded/), "\(summary)")
        let frames = Int(summary.firstMatch(of: /(\d+) frames \(/)?.1 ?? "") ?? 0
        #expect((Int(shown.3) ?? 0) + (Int(shown.4) ?? 0) <= frames, "more feedback than frames: \(summary)")
        if Int(shown.3) ?? 0 > 0 {
            #expect(Int(shown.1) ?? 0 > 0 && Double(shown.2) ?? 0 > 0, "presented frames, but no line-to-presentation figure: \(summary)")
        }
    }

    @Test("at an output scale of 2 it draws at the output's scale, where the finger is; a second output, which the touchscreen does not drive, gets nothing",
          .timeLimit(.minutes(3)))
    func scaleAndOutputs() throws {
        let stage = try Stage(recording: try Self.recording(), speed: 0.25) { sway in
            let ipc = try SwayIPCClient(path: sway.swaySocket)
            #expect(ipc.request(.runCommand, "create_output") != nil)
            #expect(ipc.request(.runCommand, "output HEADLESS-2 resolution 800x600 position 800 0") != nil)
            #expect(ipc.request(.runCommand, "output HEADLESS-1 scale 2") != nil)
            #expect(waitUntil(timeout: 10) { (ipc.request(.getOutputs, "") ?? "").contains("HEADLESS-2") }, "no second output")
        }
        #expect(waitUntil(timeout: 20) { stage.sessionText.contains("overlay: drawing feedback under the finger") }, "\(stage.sessionText)")
        let otherAtRest = try stage.screenshot("scale-other-rest", output: "HEADLESS-2")
        let began = try #require(stage.waitFor { $0.type == "gesture" && $0["edge"] as? String == "left" && $0["state"] as? String == "began" })
        let fingerY = ((began["location"] as? [String: Any])?["y"] as? Double) ?? 0
        #expect(stage.waitFor { Self.isTransition($0, edge: "left", phase: "changed", atLeast: 0.45) } != nil)
        let hidpi = try stage.screenshot("scale-2-left", output: "HEADLESS-1")
        let other = try stage.screenshot("scale-other-left", output: "HEADLESS-2")
        #expect(hidpi.width == 800 && hidpi.height == 600, "HEADLESS-1 at scale 2 is 800x600 pixels (400x300 logical)")
        // Device pixels: the bump reaches past 46 logical pixels at the threshold, twice as many here.
        let drawn = try #require(hidpi.region(from: .left, backdrop: Self.backdrop, depths: 32...44), "nothing at the left edge")
        #expect(abs(drawn.centerY - fingerY * Double(hidpi.height)) < 24, "drawn around y \(drawn.centerY), the finger at \(fingerY * 600)")
        #expect(drawn.depth > 70, "\(drawn.depth) device pixels deep: not drawn at the output's scale")
        #expect(Screenshot.sameContent(other, otherAtRest), "drawn on the output the touchscreen does not drive")
    }

    @Test("a click on a window under the overlay reaches it; under a layer surface that takes input, the same click does not",
          .timeLimit(.minutes(3)))
    func clicksPassThrough() throws {
        let stage = try Stage(recording: try Self.recording(), speed: 0.25, probeMode: "clicks")
        #expect(waitUntil(timeout: 20) { stage.probeText.contains("pointer") }, "the seat got no pointer: \(stage.probeText)")
        let ipc = try SwayIPCClient(path: stage.sway.swaySocket)
        func click(_ x: Int, _ y: Int) {
            #expect(ipc.request(.runCommand, "seat seat0 cursor set \(x) \(y)") != nil)
            #expect(ipc.request(.runCommand, "seat seat0 cursor press button1") != nil)
            #expect(ipc.request(.runCommand, "seat seat0 cursor release button1") != nil)
        }
        func presses() -> [String] { stage.probeText.split(separator: "\n").filter { $0.hasPrefix("button 272 1") }.map(String.init) }

        // Mid-way through the left-edge swipe the overlay covers the output (its surface is output-sized): a click on
        // the window, and one right on the indicator, both reach the window.
        #expect(stage.waitFor { Self.isTransition($0, edge: "left", phase: "changed", atLeast: 0.3) } != nil)
        click(400, 300)
        click(10, 270)
        let during = try stage.screenshot("click-during-overlay")
        #expect(during.region(from: .left, backdrop: Self.backdrop) != nil, "the overlay was not drawn when the clicks were made")
        #expect(waitUntil(timeout: 10) { presses().count == 2 }, "the window got \(presses()) through the overlay\n\(stage.probeText)")
        #expect(presses().map { $0.split(separator: " ").suffix(2).joined(separator: " ") } == ["400 300", "10 270"])

        // The negative control: a layer surface with the default input region swallows the same click, which is
        // how we know the one above went through the overlay rather than around it.
        let blocker = Process()
        let blockerLog = try stage.sway.writableFile("blocker.log")
        try stage.sway.launch(blocker, [try ClickProbe.binary().path, "blocker"], environment: stage.sway.environment, log: blockerLog)
        #expect(waitUntil(timeout: 20) { Stage.read(blockerLog).contains("ready") }, "\(Stage.read(blockerLog))")
        click(400, 300)
        kill(blocker.processIdentifier, SIGKILL)
        blocker.waitUntilExit()
        // The blocker gone, one more click: had the swallowed one reached the window, it would come before this.
        click(420, 320)
        #expect(waitUntil(timeout: 10) { presses().count == 3 }, "\(stage.probeText)")
        #expect(presses().last?.hasSuffix("420 320") == true, "the click under the blocker reached the window: \(presses())")
    }
}

/// What the overlay tests need besides sway: grim and the click probe (Wayland/click-probe.c, a ``WaylandProbe``).
enum ClickProbe {
    /// Where the overlay tests must run (CI): what they need missing is then a failure, not a skip.
    static var required: Bool { ProcessInfo.processInfo.environment["EDGESWIPE_REQUIRE_SWAY"] == "1" }

    /// What the overlay tests need and this machine lacks (sway, grim, the probe's build tools), or `nil`.
    static var missing: String? { HeadlessSway.unavailable ?? unavailable }

    /// Why the overlay tests cannot run here (no grim, or nothing to build the probe with), or `nil`.
    static var unavailable: String? {
        if !FileManager.default.isExecutableFile(atPath: "/usr/bin/grim") { return "no grim (apt install grim): the overlay tests take screenshots" }
        return WaylandProbe.unavailable
    }

    static func binary() throws -> URL { try WaylandProbe.clickProbe.binary() }
}

/// Where the overlay tests keep their screenshots: `$EDGESWIPE_ARTEFACTS/overlay`, else `.build/artefacts/overlay`
/// in the package (docs/TESTING.md). PNG, through python3's zlib.
enum Artefacts {
    /// `$EDGESWIPE_ARTEFACTS`, else `.build/artefacts` in the package: what the tests keep for a person to read after
    /// a run (the overlay's screenshots here, the compositor tests' logs in `compositors/`).
    static let base: URL = ProcessInfo.processInfo.environment["EDGESWIPE_ARTEFACTS"].map { URL(fileURLWithPath: $0) }
        ?? Paths.packageRoot.appendingPathComponent(".build/artefacts")
    static let directory = base.appendingPathComponent("overlay")

    /// The shots the README shows, and their names there.
    static let readme = ["2-left-late": "overlay-edge.png", "7-shade-lower": "overlay-shade.png"]

    static func keep(_ shot: Screenshot) {
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let png = directory.appendingPathComponent("\(shot.name).png")
        shot.writePNG(to: png)
        // EDGESWIPE_OVERLAY_README=docs refreshes the README's pictures from this run.
        if let folder = ProcessInfo.processInfo.environment["EDGESWIPE_OVERLAY_README"], let name = readme[shot.name] {
            let target = URL(fileURLWithPath: folder).appendingPathComponent(name)
            try? FileManager.default.removeItem(at: target)
            try? FileManager.default.copyItem(at: png, to: target)
        }
    }
}

extension HeadlessSway {
    /// A screenshot now (as sway's user), of every output or of `output`, with the instants it was asked for and
    /// taken, on the daemon's clock; kept with the overlay's artefacts.
    func screenshot(_ name: String, output: String? = nil) throws -> Screenshot {
        let file = try writableFile("\(name).ppm")
        let grim = Process()
        let before = MonotonicClock.now().microseconds
        let only = output.map { ["-o", $0] } ?? []
        try launch(grim, ["/usr/bin/grim", "-t", "ppm"] + only + [file.path], environment: environment, log: writableFile("grim.log"))
        grim.waitUntilExit()
        let after = MonotonicClock.now().microseconds
        guard grim.terminationStatus == 0 else {
            throw DaemonTestError("grim failed: \((try? String(contentsOf: directory.appendingPathComponent("grim.log"), encoding: .utf8)) ?? "")")
        }
        let shot = try Screenshot(ppm: Data(contentsOf: file), name: name, takenUS: before...after)
        Artefacts.keep(shot)
        return shot
    }
}

/// A `grim -t ppm` screenshot, and what the tests read from its pixels.
struct Screenshot {
    let name: String
    let width: Int
    let height: Int
    let rgb: [UInt8]
    /// When grim was started and when it had finished, on the monotonic clock (the daemon's `time_us`).
    let takenUS: ClosedRange<UInt64>

    init(ppm: Data, name: String, takenUS: ClosedRange<UInt64>) throws {
        self.name = name
        self.takenUS = takenUS
        let bytes = [UInt8](ppm)
        // "P6\n<w> <h>\n255\n", then the pixels.
        var fields: [String] = []
        var i = 0
        var current = ""
        while fields.count < 4, i < bytes.count {
            let c = bytes[i]
            if c == 0x20 || c == 0x0a || c == 0x09 || c == 0x0d {
                if !current.isEmpty { fields.append(current); current = "" }
            } else {
                current.append(Character(UnicodeScalar(c)))
            }
            i += 1
        }
        guard fields.count == 4, fields[0] == "P6", let w = Int(fields[1]), let h = Int(fields[2]), fields[3] == "255",
              bytes.count - i >= w * h * 3 else { throw DaemonTestError("\(name): not a P6 screenshot") }
        width = w
        height = h
        rgb = Array(bytes[i..<(i + w * h * 3)])
    }

    func pixel(_ x: Int, _ y: Int) -> (r: Int, g: Int, b: Int) {
        let o = (min(max(y, 0), height - 1) * width + min(max(x, 0), width - 1)) * 3
        return (Int(rgb[o]), Int(rgb[o + 1]), Int(rgb[o + 2]))
    }

    static func distance(_ a: (r: Int, g: Int, b: Int), _ b: (r: Int, g: Int, b: Int)) -> Int {
        abs(a.r - b.r) + abs(a.g - b.g) + abs(a.b - b.b)
    }

    /// Whether two screenshots of the same size show the same picture (allowing a little for rounding).
    static func sameContent(_ a: Screenshot, _ b: Screenshot) -> Bool {
        guard a.width == b.width, a.height == b.height else { return false }
        return zip(a.rgb, b.rgb).allSatisfy { abs(Int($0) - Int($1)) <= 6 }
    }

    /// Pixels that are not the backdrop (allowing a little for rounding).
    func differingPixels(from backdrop: (r: Int, g: Int, b: Int)) -> Int {
        var n = 0
        for y in 0..<height { for x in 0..<width where Self.distance(pixel(x, y), backdrop) > 6 { n += 1 } }
        return n
    }

    /// What is drawn against `edge`, beyond its faint glow: the rows it spans (its centre) and how deep it reaches at
    /// its centre. `nil` when nothing is.
    struct Region: Equatable {
        var centerY: Double
        var depth: Int
    }

    func region(from edge: Edge, backdrop: (r: Int, g: Int, b: Int), depths: ClosedRange<Int> = 16...22) -> Region? {
        // Strongly different pixels 16 to 22 px in: the bump and the knob, past the glow along the whole edge (it
        // fades out within 22 px, and is faint 16 px in).
        func strong(_ x: Int, _ y: Int) -> Bool { Self.distance(pixel(x, y), backdrop) > 90 }
        switch edge {
        case .left, .right:
            let column = { (d: Int) in edge == .left ? d : self.width - 1 - d }
            // Not the corners, where the other edges' glow runs.
            let rows = (24..<(height - 24)).filter { y in depths.contains { strong(column($0), y) } }
            guard let top = rows.first, let bottom = rows.last else { return nil }
            let center = (top + bottom) / 2
            let depth = (0..<(width / 2)).last { strong(column($0), center) } ?? 0
            return Region(centerY: Double(top + bottom) / 2, depth: depth)
        case .top, .bottom:
            let row = { (d: Int) in edge == .top ? d : self.height - 1 - d }
            let columns = (24..<(width - 24)).filter { x in depths.contains { strong(x, row($0)) } }
            guard let left = columns.first, let right = columns.last else { return nil }
            let depth = (0..<(height / 2)).last { strong((left + right) / 2, row($0)) } ?? 0
            return Region(centerY: Double(left + right) / 2, depth: depth)
        }
    }

    /// Whether the knob in `region` is grey (a blocked swipe's) rather than the light or accent knob of a transition.
    func hasGreyKnob(near region: Region) -> Bool {
        let y = Int(region.centerY)
        return (4..<max(5, region.depth)).contains { x in
            let p = pixel(x, y)
            return abs(p.r - p.g) < 12 && abs(p.g - p.b) < 12 && p.r > 110 && p.r < 170
        }
    }

    /// The lowest row of the dark panel in `column`: scanning up from the bottom, the first pixel far darker than the
    /// (dimmed) backdrop below it.
    func panelBottom(column x: Int, backdrop: (r: Int, g: Int, b: Int)) -> Double? {
        let reference = pixel(x, height - 2)
        let brightness = { (p: (r: Int, g: Int, b: Int)) in p.r + p.g + p.b }
        let panel = 3 * 60
        let threshold = (brightness(reference) + panel) / 2
        for y in stride(from: height - 1, through: 0, by: -1) where brightness(pixel(x, y)) < threshold {
            return Double(y + 1)
        }
        return nil
    }

    /// Whether (x, y) shows the backdrop darkened (the dimming layer) rather than as it is.
    func isDimmed(x: Int, y: Int, backdrop: (r: Int, g: Int, b: Int)) -> Bool {
        let p = pixel(x, y)
        return p.r < backdrop.r - 8 && p.g < backdrop.g - 8 && p.b < backdrop.b - 8
    }

    /// Writes a PNG (python3's zlib; no image library needed).
    func writePNG(to url: URL) {
        let raw = url.deletingPathExtension().appendingPathExtension("rgb")
        guard (try? Data(rgb).write(to: raw)) != nil else { return }
        defer { try? FileManager.default.removeItem(at: raw) }
        let script = """
            import struct, sys, zlib
            w, h = int(sys.argv[1]), int(sys.argv[2])
            data = open(sys.argv[3], 'rb').read()
            rows = b''.join(b'\\x00' + data[y * w * 3:(y + 1) * w * 3] for y in range(h))
            def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
            png = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(rows, 9)) + chunk(b'IEND', b'')
            open(sys.argv[4], 'wb').write(png)
            """
        _ = try? run(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script, "\(width)", "\(height)", raw.path, url.path])
    }
}
