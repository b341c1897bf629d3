import EdgeSwipeBenchSupport
import EdgeSwipeProtocol
import EdgeSwipeSystem
import Foundation
import Glibc

/// `--only overlay`: the session's overlay on a real headless sway (docs/PERFORMANCE.md, "The overlay").
///
/// A real headless sway (1920x1080, pixman) and the real `edgeswipe-session` with its overlay on (both as `nobody`
/// where this runs as root: sway refuses root); in place of the daemon, this process replays the real daemon's own
/// lines for the demo recording (captured first, at recorded speed) over and over, the pauses between swipes cut to
/// 250 ms and every time moved to now, so that the overlay draws continuous swiping for `seconds`. Then the stream
/// goes quiet with the connection open for `idleSeconds`.
///
/// The latency (a stream line's arrival to the commit of the frame that shows it) and the compositor's frame
/// interval are the overlay's own statistics, which the session logs at exit; CPU, memory and wake-ups are /proc's.
struct OverlaySection {
    /// The longest pause kept between two lines (the demo rests about a second between swipes).
    static let gapUS: UInt64 = 250_000

    let binaries: ClientBinaries
    let seconds: Double
    let idleSeconds: Double
    /// Sway nested in headless weston, for `wp_presentation`'s `presented` (headless sway never says it); else
    /// headless sway, whose frame callbacks give the line-to-compositor-frame figure without a second compositor.
    let nested: Bool
    let log: (String) -> Void

    static let weston = "/usr/bin/weston"

    /// Waits (20 s at most) for the compositor's socket at `path`.
    private func waitFor(_ path: String, process: ChildProcess, what: String, log: String) throws {
        let deadline = monotonicSeconds() + 20
        while !FileManager.default.fileExists(atPath: path) {
            guard monotonicSeconds() < deadline, process.isRunning else { throw BenchError("\(what) did not start: \(tailOf(log))") }
            sleepSeconds(0.05)
        }
    }

    func run(daemon: DaemonBench, scratch: ScratchDirectory) throws -> JSONValue {
        var output = ""
        if let why = ClientBinaries.missing(binaries.session) { throw BenchError(why) }
        guard let root = binaries.sourceRoot else { throw BenchError("the demo recording was not found: run from the checkout") }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/sway") else { throw BenchError("sway is not installed (/usr/bin/sway)") }
        // Sway and the session may run as nobody: the folder must let them in.
        chmod(scratch.path, 0o755)
        let run = scratch.file("run")
        mkdir(run, 0o700)
        let asRoot = getuid() == 0
        if asRoot { chown(run, 65534, 65534) }
        let drop = asRoot ? ["--reuid=65534", "--regid=65534", "--clear-groups", "--"] : []
        func spawn(_ binary: String, _ arguments: [String], _ env: [String: String], log: String) throws -> ChildProcess {
            if asRoot {
                // The log is opened here, as root, before the drop; setpriv execs, so the pid is the program's.
                return try ChildProcess.spawn("/usr/bin/setpriv", drop + [binary] + arguments, environment: env, log: log).0
            }
            return try ChildProcess.spawn(binary, arguments, environment: env, log: log).0
        }
        let env = ["XDG_RUNTIME_DIR": run, "PATH": "/usr/bin:/bin", "HOME": scratch.path]
        var swayEnv = env
        swayEnv["WLR_RENDERER"] = "pixman"
        swayEnv["WLR_LIBINPUT_NO_DEVICES"] = "1"
        // Sway 1.7's headless output (wlroots 0.15) never answers wp_presentation feedback with `presented`; its
        // Wayland backend passes on its parent's, and headless weston presents every frame on CLOCK_MONOTONIC with a
        // 16.67 ms refresh. So the nested run has sway in weston (the output is then WL-1), for the
        // line-to-presentation figure, which then counts both compositors' frames.
        var weston: ChildProcess?
        defer { weston?.stop() }
        if nested {
            guard FileManager.default.isExecutableFile(atPath: Self.weston) else { throw BenchError("weston is not installed (\(Self.weston))") }
            let parent = try spawn(Self.weston, [
                "--backend=headless-backend.so", "--use-pixman", "--socket=wayland-parent", "--width=1920", "--height=1080", "--idle-time=0",
            ], env, log: scratch.file("weston.log"))
            weston = parent
            try waitFor(run + "/wayland-parent", process: parent, what: "weston", log: scratch.file("weston.log"))
            swayEnv["WLR_BACKENDS"] = "wayland"
            swayEnv["WAYLAND_DISPLAY"] = "wayland-parent"
        } else {
            swayEnv["WLR_BACKENDS"] = "headless"
        }
        output = nested ? "WL-1 1920x1080 scale 1, sway (pixman) nested in headless weston (pixman)" : "HEADLESS-1 1920x1080 scale 1, sway headless (pixman)"
        let conf = scratch.file("sway.conf")
        try "output \(nested ? "WL-1" : "HEADLESS-1") resolution 1920x1080\nxwayland disable\n".write(toFile: conf, atomically: true, encoding: .utf8)
        chmod(conf, 0o644)
        let sway = try spawn("/usr/bin/sway", ["-c", conf], swayEnv, log: scratch.file("sway.log"))
        defer { sway.stop() }
        try waitFor(run + "/wayland-1", process: sway, what: "sway", log: scratch.file("sway.log"))

        log("overlay: capturing the demo's lines from the real daemon at recorded speed")
        let captured = try daemon.capture(root + "/demo/edgeswipe-demo.evemu").map(CapturedLine.init)
        let hello = captured[0]
        let messages = captured.dropFirst().filter { $0.type != "goodbye" }
        // Continuous swiping: the pauses between the demo's swipes (about a second each) shortened to 250 ms. Each
        // line's shift, as times to send it at (`time_us` plus its shift).
        var shifts: [Int64] = []
        var shift: UInt64 = 0
        var last = messages.first?.timeUS ?? 0
        for m in messages {
            let gap = m.timeUS >= last ? m.timeUS - last : 0
            last = m.timeUS
            if gap > Self.gapUS { shift += gap - Self.gapUS }
            shifts.append(-Int64(clamping: shift))
        }
        guard !messages.isEmpty else { throw BenchError("the demo's capture holds no lines") }
        let ids = Int64(clamping: (messages.compactMap { $0.type == "transition" ? $0.transition : nil }.max() ?? 0) + 1)

        let listener = try UnixListener(path: scratch.file("d.sock"), mode: 0o666)
        defer { listener.close() }
        let sessionLog = scratch.file("session.log")
        var sessionEnv = env
        sessionEnv["WAYLAND_DISPLAY"] = "wayland-1"
        let session = try spawn(binaries.session, ["--socket", listener.path], sessionEnv, log: sessionLog)
        defer { session.stop(grace: 20) }
        let fd = try listener.accept(timeout: 20, who: "edgeswipe-session")
        defer { close(fd) }
        var seq: UInt64 = 1
        try writeFully(fd, hello.sent(seq: seq, timeShift: Int64(clamping: monotonicMicroseconds()) - Int64(clamping: hello.timeUS)))
        let started = monotonicSeconds() + 20
        while !((try? String(contentsOfFile: sessionLog, encoding: .utf8)) ?? "").contains("overlay: drawing feedback") {
            guard monotonicSeconds() < started, session.isRunning else {
                throw BenchError("the session did not start its overlay: \(tailOf(sessionLog, lines: 10))")
            }
            sleepSeconds(0.05)
        }
        sleepSeconds(0.5)

        log("overlay: \(seconds) s of continuous swiping")
        let cpu0 = ProcSample.read(pid: session.pid)
        let t0 = monotonicSeconds()
        var rssSwiping = 0
        var loops: Int64 = 0
        while monotonicSeconds() - t0 < seconds {
            let origin = Int64(clamping: monotonicMicroseconds()) + 20_000
            let offset = origin - Int64(clamping: messages[0].timeUS)
            for (m, s) in zip(messages, shifts) {
                let due = Int64(clamping: m.timeUS) + s + offset
                let wait = Double(due - Int64(clamping: monotonicMicroseconds())) / 1e6
                if wait > 0 { sleepSeconds(wait) }
                seq += 1
                try writeFully(fd, m.sent(seq: seq, timeShift: s + offset, idShift: loops * ids))
            }
            rssSwiping = max(rssSwiping, ProcSample.read(pid: session.pid)?.rssKB ?? 0)
            loops += 1
        }
        let swiped = monotonicSeconds() - t0
        let cpu1 = ProcSample.read(pid: session.pid)
        let hwm = ProcSample.statusField(pid: session.pid, "VmHWM:")

        log("overlay: \(idleSeconds) s quiet, the connection open")
        // The last run-out ends; then nothing should wake the session.
        sleepSeconds(1)
        let before = ProcSample.read(pid: session.pid)
        sleepSeconds(idleSeconds)
        let after = ProcSample.read(pid: session.pid)
        session.stop(grace: 20)

        let text = (try? String(contentsOfFile: sessionLog, encoding: .utf8)) ?? ""
        let summary = text.split(separator: "\n").last { $0.contains("overlay: ") && $0.contains(" frames (") }.map(String.init) ?? ""
        // p50, p99, n; and max where the overlay logs it (since the bench's FramePresentations seam).
        let commitMax = numbers(#"stream line -> commit p50 ([\d.]+) ms, p99 ([\d.]+) ms, max ([\d.]+) ms \(n (\d+)\)"#, in: summary)
        let commit = commitMax.map { [$0[0], $0[1], $0[3]] } ?? numbers(#"stream line -> commit p50 ([\d.]+) ms, p99 ([\d.]+) ms \(n (\d+)\)"#, in: summary)
        let frames = numbers(#"(\d+) frames \("#, in: summary)
        let interval = numbers(#"frame interval p50 ([\d.]+) ms"#, in: summary)
        var cpu: Double?
        if let cpu0, let cpu1 { cpu = Double(cpu1.cpuTicks - cpu0.cpuTicks) / ProcSample.ticksPerSecond }
        var idle: JSONValue = .null
        if let before, let after { idle = Wakeups(from: before, to: after).json }
        // The presentation of the frame that shows a line: wp_presentation feedback, which the overlay reports through
        // FramePresentations (issue 39 item 2's figure); no figures while the overlay requests no feedback.
        let shown = numbers(
            #"stream line -> presentation p50 ([\d.]+) ms, p99 ([\d.]+) ms, max ([\d.]+) ms \(n (\d+)\); refresh ([\d.]+) ms; (\d+) presented, (\d+) discarded, (\d+) missed"#,
            in: summary)
        let compositor = numbers(#"commit -> presentation p50 ([\d.]+) ms, p99 ([\d.]+) ms"#, in: summary)
        // The compositor's frame that drew the line (frame callbacks), and the pacer's frames made and missed.
        let drawn = numbers(#"stream line -> compositor frame p50 ([\d.]+) ms, p99 ([\d.]+) ms, max ([\d.]+) ms \(n (\d+)\), (\d+) later than a frame"#, in: summary)
        let paced = numbers(#"paced frames made (\d+), missed (\d+), lead ([\d.]+) ms"#, in: summary)
        var frame: JSONValue = .null
        if let drawn, drawn[3] > 0 {
            frame = .fields([
                ("p50", .num(drawn[0], digits: 2)), ("p99", .num(drawn[1], digits: 2)), ("max", .num(drawn[2], digits: 2)),
                ("n", .integer(Int(drawn[3]))), ("later_than_a_frame", .integer(Int(drawn[4]))),
                ("paced_frames_made", .integer(Int(paced?[0] ?? 0))), ("paced_frames_missed", .integer(Int(paced?[1] ?? 0))),
                ("paced_frames_missed_per_second_swiping", .num((paced?[1]).map { $0 / swiped }, digits: 2)),
                ("lead_ms", .num(paced?[2], digits: 2)),
            ])
        }
        var presentation: JSONValue = .null
        if let shown, shown[3] > 0 {
            presentation = .fields([
                ("p50", .num(shown[0], digits: 2)), ("p99", .num(shown[1], digits: 2)), ("max", .num(shown[2], digits: 2)),
                ("n", .integer(Int(shown[3]))), ("refresh_ms", .num(shown[4], digits: 2)), ("presented", .integer(Int(shown[5]))),
                ("discarded", .integer(Int(shown[6]))), ("frames_missed", .integer(Int(shown[7]))),
                ("frames_missed_per_second_swiping", .num(shown[7] / swiped, digits: 2)),
                // The compositor's share: from the overlay's commit to the presentation.
                ("commit_to_presentation_p50", .num(compositor?[0], digits: 2)), ("commit_to_presentation_p99", .num(compositor?[1], digits: 2)),
            ])
        }
        return .fields([
            ("output", .string(output)),
            ("swiping_seconds", .num(swiped, digits: 2)), ("demo_loops", .integer(Int(loops))),
            ("frames", .integer(Int(frames?[0] ?? 0))),
            ("line_to_commit_ms", .fields([
                ("p50", .num(commit?[0], digits: 2)), ("p99", .num(commit?[1], digits: 2)), ("max", .num(commitMax?[2], digits: 2)),
                ("n", .integer(Int(commit?[2] ?? 0))),
            ])),
            // The floor: the next frame is the best any client can do.
            ("compositor_frame_interval_ms_p50", .num(interval?[0], digits: 1)),
            ("line_to_compositor_frame_ms", frame),
            ("line_to_presentation_ms", presentation),
            ("cpu_seconds_per_second_swiping", .num(cpu.map { $0 / swiped }, digits: 4)),
            ("rss_kb", .fields([
                ("swiping", .integer(rssSwiping)), ("idle", before.map { JSONValue.integer($0.rssKB) } ?? .null),
                ("peak", hwm.map { JSONValue.integer($0) } ?? .null),
            ])),
            ("idle", idle),
            ("summary", .string(summary.components(separatedBy: "overlay: ").last ?? "")),
        ])
    }
}

/// The numbers a regular expression's groups capture in the first match in `text`, or nil without a match.
func numbers(_ pattern: String, in text: String) -> [Double]? {
    guard let regex = try? NSRegularExpression(pattern: pattern),
        let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text))
    else { return nil }
    var out: [Double] = []
    for group in 1..<match.numberOfRanges {
        guard let range = Range(match.range(at: group), in: text), let value = Double(text[range]) else { return nil }
        out.append(value)
    }
    return out
}
