import EdgeSwipeBenchSupport
import EdgeSwipeCore
import EdgeSwipeEngineWire
import EdgeSwipeInput
import EdgeSwipeRecordings
import EdgeSwipeProtocol
import Foundation
import Glibc

/// The process-level measurements: the real `edgeswiped`, started the way systemd starts it (`NOTIFY_SOCKET`),
/// on Unix sockets in a scratch folder, with real client sockets.
final class DaemonBench {
    let daemon: String
    let scratch: ScratchDirectory
    let log: (String) -> Void
    let environment: [String: String]
    /// The synthetic 10-finger 240 Hz stream, as an evemu file for `--replay`.
    let latencyRecording: String
    /// A touchscreen whose only events are one at the start and one `idleSpan` later (then the replay ends and
    /// the daemon stops by itself): in between, the daemon has its device and nothing touches it.
    let idleRecording: String
    /// Gesture lines one client receives for the latency recording (from the in-process pipeline).
    let expectedGestureLines: Int
    /// Phase, terminal and lifecycle lines one client receives for the latency recording: every client must get
    /// every one of them, however many there are.
    let expectedEssentialLines: Int
    /// How the measured daemon links the Swift runtime ("static" or "dynamic"), from its mappings.
    private(set) var swiftRuntime: String?
    var notes: [String] = []
    /// Captures so far (each daemon started for one has files of its own).
    private var captures = 0

    /// Passed to every daemon started for latency.
    let extraArguments: [String]

    init(daemon: String, latencySeconds: Double, idleSpan: Double, extraArguments: [String] = [], log: @escaping (String) -> Void) throws {
        self.extraArguments = extraArguments
        guard FileManager.default.isExecutableFile(atPath: daemon) else {
            throw BenchError("\(daemon) is not an executable; build it (swift build -c release --product edgeswiped) or pass --daemon PATH")
        }
        self.daemon = daemon
        self.log = log
        scratch = try ScratchDirectory()
        var env = ProcessInfo.processInfo.environment
        for key in ["NOTIFY_SOCKET", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES", "WATCHDOG_USEC", "WATCHDOG_PID"] { env[key] = nil }
        environment = env

        let stream = BenchCorpus.synthetic(seconds: latencySeconds)
        latencyRecording = scratch.file("synthetic-240hz.evemu")
        try Evemu.write(stream.description, events: stream.events).write(toFile: latencyRecording, atomically: true, encoding: .utf8)
        var gestures = 0
        var engine = Engine(configuration: .default)
        var decoder = try EvdevFrameDecoder(description: stream.description, device: stream.device)
        var events: [EngineEvent] = []
        engine.addDevice(stream.device, at: stream.events[0].time, into: &events)
        for e in stream.events {
            if case .frame(let f)? = decoder.feed(e) {
                engine.tick(through: f.time, into: &events)
                engine.handle(f, into: &events)
            }
        }
        for event in events { if case .gesture = event { gestures += 1 } }
        expectedGestureLines = gestures
        var encoder = ProtocolLineEncoder()
        var bytes: [UInt8] = []
        encoder.encode(events, into: &bytes)
        var essential = 0
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            if line.starts(with: Array(#"{"type":"lifecycle""#.utf8)) {
                essential += 1
            } else if line.starts(with: Array(#"{"type":"gesture""#.utf8)) || line.starts(with: Array(#"{"type":"transition""#.utf8)),
                LineBytes.find(Array(#""progress":false"#.utf8), in: line) != nil {
                essential += 1
            }
        }
        expectedEssentialLines = essential

        idleRecording = scratch.file("idle.evemu")
        let start = MonotonicInstant(microseconds: 1_000_000)
        let idleEvents = [
            EvdevEvent(time: start, type: EvdevType.syn, code: EvdevSyn.report, value: 0),
            EvdevEvent(time: start.advanced(by: .seconds(idleSpan)), type: EvdevType.syn, code: EvdevSyn.report, value: 0),
        ]
        try Evemu.write(SyntheticStream.device, events: idleEvents).write(toFile: idleRecording, atomically: true, encoding: .utf8)
    }

    deinit { scratch.remove() }

    /// Starts the daemon with its own `NOTIFY_SOCKET`. With a `limit`, it runs under `timeout(1)`, so that it
    /// stops by itself even if this benchmark dies; the pid to watch is then the daemon's, the child of timeout.
    private func start(_ name: String, _ arguments: [String], limit: Double? = nil) throws -> (ChildProcess, NotifySocket, UInt64, pid_t) {
        let notify = try NotifySocket(path: scratch.file("\(name).notify"))
        var env = environment
        env["NOTIFY_SOCKET"] = notify.path
        let timeout = "/usr/bin/timeout"
        if let limit, FileManager.default.isExecutableFile(atPath: timeout) {
            let (child, t0) = try ChildProcess.spawn(
                timeout, ["--kill-after=5", String(Int(limit.rounded(.up))), daemon] + arguments, environment: env,
                log: scratch.file("\(name).log"))
            return (child, notify, t0, Self.onlyChild(of: child.pid) ?? child.pid)
        }
        let (child, t0) = try ChildProcess.spawn(daemon, arguments, environment: env, log: scratch.file("\(name).log"))
        return (child, notify, t0, child.pid)
    }

    /// The child process of `pid` (from `/proc/PID/task/PID/children`), waiting up to 2 s for it to appear.
    private static func onlyChild(of pid: pid_t) -> pid_t? {
        let deadline = monotonicSeconds() + 2
        while monotonicSeconds() < deadline {
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
            if let first = text.split(separator: " ").first, let child = pid_t(first.trimmingCharacters(in: .whitespacesAndNewlines)) {
                return child
            }
            sleepSeconds(0.005)
        }
        return nil
    }

    private func tail(_ name: String) -> String {
        let text = (try? String(contentsOfFile: scratch.file("\(name).log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(5).joined(separator: " | ")
    }

    // MARK: - Captured streams

    /// The real daemon's lines for `recording` (its hello first), read by one client from connection to goodbye:
    /// what the client benches' stand-in daemons replay (``SessionSection``, ``OverlaySection``). `speed` is the
    /// daemon's `--speed` (nil: recorded speed, so that `time_us` keeps the finger's own pacing).
    func capture(_ recording: String, speed: Double? = nil, timeout: Double = 120) throws -> [[UInt8]] {
        let name = "capture\(captures)"
        captures += 1
        let socketPath = scratch.file("\(name).sock")
        let (child, notify, _, _) = try start(name, [
            "--replay", recording, "--wait-for-clients", "1", "--socket", socketPath, "--log-level", "warning",
        ] + (speed.map { ["--speed", String($0)] } ?? []), limit: timeout)
        defer { child.stop() }
        guard notify.waitForReady(timeout: 20) != nil else {
            throw BenchError("edgeswiped sent no READY=1 within 20 s for the capture of \(recording): \(tail(name))")
        }
        let fd = try connectUnix(socketPath)
        defer { close(fd) }
        let bytes = readUntilClosed(fd, timeout: timeout)
        let lines = bytes.split(separator: UInt8(ascii: "\n")).map { Array($0) }
        guard let first = lines.first, first.starts(with: Array(#"{"type":"hello""#.utf8)) else {
            throw BenchError("the capture of \(recording) did not start with a hello (\(lines.count) lines): \(tail(name))")
        }
        return lines
    }

    /// A daemon replaying `recording` with `arguments` (its `--loop`, `--speed`, `--wait-for-clients`), ready, on a
    /// socket of its own; stopped by the caller (and by itself after `limit` seconds).
    func stream(_ recording: String, arguments: [String], limit: Double) throws -> (child: ChildProcess, socket: String) {
        let name = "stream\(captures)"
        captures += 1
        let socketPath = scratch.file("\(name).sock")
        let (child, notify, _, _) = try start(name, ["--replay", recording, "--socket", socketPath, "--log-level", "warning"] + arguments, limit: limit)
        guard notify.waitForReady(timeout: 20) != nil else {
            child.stop()
            throw BenchError("edgeswiped sent no READY=1 within 20 s: \(tail(name))")
        }
        return (child, socketPath)
    }

    // MARK: - Start-up

    /// `startup_ms`: from just before `posix_spawn` to reading `READY=1` on our `NOTIFY_SOCKET`.
    func startup(runs: Int) throws -> JSONValue {
        var times: [Double] = []
        for run in 0..<runs {
            let name = "startup\(run)"
            let (child, notify, t0, _) = try start(name, ["--replay", idleRecording, "--socket", scratch.file("\(name).sock"), "--log-level", "warning"])
            guard let ready = notify.waitForReady(timeout: 20) else {
                child.stop()
                throw BenchError("edgeswiped sent no READY=1 within 20 s (exit \(child.poll().map(String.init) ?? "none")): \(tail(name))")
            }
            times.append(Double(ready - t0) / 1000)
            child.stop()
        }
        return .fields([
            ("startup_ms", .num(median(times), digits: 2)),
            ("runs", .integer(runs)),
            ("min_ms", .num(times.min(), digits: 2)),
            ("max_ms", .num(times.max(), digits: 2)),
            ("all_ms", .array(times.map { .num($0, digits: 2) })),
            ("mode", .string("--replay of a one-device recording, --socket in a temp dir; exec to READY=1 on NOTIFY_SOCKET")),
        ])
    }

    // MARK: - Idle

    struct IdleResult {
        var json: JSONValue
        var wakeupsPerSecond: Double
        var ownWakeupsPerSecond: Double
        var cpuMSPerSecond: Double
        var rssKB: Int
        var sample: ProcSample
    }

    /// Context switches and CPU time of a started daemon over `seconds`, after `settle` seconds.
    private func measureIdle(_ name: String, _ arguments: [String], seconds: Double, settle: Double) throws -> IdleResult? {
        let (child, notify, _, pid) = try start(name, arguments, limit: settle + seconds + 30)
        defer { child.stop() }
        guard notify.waitForReady(timeout: 20) != nil else {
            notes.append("\(name): no READY=1 (exit \(child.poll().map(String.init) ?? "none")): \(tail(name))")
            return nil
        }
        sleepSeconds(settle)
        guard let a = ProcSample.read(pid: pid) else { return nil }
        sleepSeconds(seconds)
        guard let b = ProcSample.read(pid: pid), child.isRunning else {
            notes.append("\(name): the daemon exited during the idle window: \(tail(name))")
            return nil
        }
        let dt = b.time - a.time
        // Per thread, over the threads alive at both ends (a runtime worker that exits takes its counts with it;
        // one that appears counts in full). The sum is the process's wakeups.
        var switches = 0
        var ownSwitches = 0
        var threads: [JSONValue] = []
        for t in b.threads {
            let before = a.threads.first { $0.tid == t.tid }
            let n = t.voluntary + t.involuntary - (before.map { $0.voluntary + $0.involuntary } ?? 0)
            let ticks = t.cpuTicks - (before?.cpuTicks ?? 0)
            switches += n
            // Threads named by libdispatch ("com.apple.root.*-qos*", truncated) that do not wait in poll or ppoll
            // are the Swift runtime's (its manager thread, in epoll_wait, and its workers, in futex). The daemon's
            // own threads name themselves ("edgeswipe-input", "edgeswipe-admit", "edgeswipe-state", all in ppoll);
            // NIO's event loop is "NIO-ELT-*"; the main thread is "edgeswiped".
            let runtime = t.name.contains("qos") && t.blockedIn != "poll" && t.blockedIn != "ppoll"
            if !runtime { ownSwitches += n }
            threads.append(.fields([
                ("tid", .integer(t.tid)), ("name", .string(t.name)), ("blocked_in", .string(t.blockedIn)),
                ("owner", .string(runtime ? "swift runtime (libdispatch)" : "edgeswiped")),
                ("context_switches", .integer(n)), ("new", .bool(before == nil)),
                ("cpu_ms", .num(Double(ticks) * 1000 / ProcSample.ticksPerSecond, digits: 1)),
            ]))
        }
        let exited = a.threads.filter { t in !b.threads.contains { $0.tid == t.tid } }.count
        let wakeups = Double(switches) / dt
        let cpu = Double(b.cpuTicks - a.cpuTicks) * 1000 / ProcSample.ticksPerSecond / dt
        let json: JSONValue = .fields([
            ("seconds", .num(dt, digits: 2)),
            ("wakeups_per_s", .num(wakeups, digits: 3)),
            ("own_threads_wakeups_per_s", .num(Double(ownSwitches) / dt, digits: 3)),
            ("runtime_threads_wakeups_per_s", .num(Double(switches - ownSwitches) / dt, digits: 3)),
            ("cpu_ms_per_s", .num(cpu, digits: 3)),
            ("cpu_resolution_ms", .num(1000 / ProcSample.ticksPerSecond, digits: 1)),
            ("rss_mb", .num(Double(b.rssKB) / 1024, digits: 2)),
            ("rss_anon_mb", .num(Double(b.rssAnonKB) / 1024, digits: 2)),
            ("rss_file_mb", .num(Double(b.rssFileKB) / 1024, digits: 2)),
            ("pss_mb", .num(Double(b.pssKB) / 1024, digits: 2)),
            ("threads_exited_during_window", .integer(exited)),
            ("threads", .array(threads)),
        ])
        return IdleResult(
            json: json, wakeupsPerSecond: wakeups, ownWakeupsPerSecond: Double(ownSwitches) / dt, cpuMSPerSecond: cpu,
            rssKB: b.rssKB, sample: b)
    }

    /// The daemon with its device open and nothing touching it: a replay whose next event is a year away.
    func idle(seconds: Double, settle: Double) throws -> IdleResult? {
        try measureIdle("idle", ["--replay", idleRecording, "--socket", scratch.file("idle.sock"), "--log-level", "warning"], seconds: seconds, settle: settle)
    }

    /// Waiting at `--wait-for-clients` with nobody connecting.
    func gateIdle(seconds: Double) throws -> IdleResult? {
        try measureIdle(
            "gate", ["--replay", latencyRecording, "--wait-for-clients", "1", "--socket", scratch.file("gate.sock"), "--log-level", "warning"],
            seconds: seconds, settle: 1)
    }

    /// Live input (libinput's udev backend) on this machine, whatever devices it has.
    func liveIdle(seconds: Double, settle: Double) throws -> IdleResult? {
        try measureIdle("live", ["--socket", scratch.file("live.sock"), "--log-level", "warning"], seconds: seconds, settle: settle)
    }

    // MARK: - Memory with clients

    /// `VmRSS` of the idle daemon (the one-device idle recording: no replay data held) with `clients` connected,
    /// each having read its hello, after a second to settle.
    func rssWithClients(_ clients: Int) throws -> ProcSample? {
        let name = "rss\(clients)"
        let socketPath = scratch.file("\(name).sock")
        let (child, notify, _, pid) = try start(name, ["--replay", idleRecording, "--socket", socketPath, "--log-level", "warning"], limit: 60)
        defer { child.stop() }
        guard notify.waitForReady(timeout: 20) != nil else {
            notes.append("\(name): no READY=1: \(tail(name))")
            return nil
        }
        var fds: [Int32] = []
        defer { for fd in fds { close(fd) } }
        for _ in 0..<clients { fds.append(try connectUnix(socketPath)) }
        // Read every hello, so the daemon has written to every client, then let it settle.
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let deadline = monotonicSeconds() + 10
        var pending = Set(fds)
        while !pending.isEmpty && monotonicSeconds() < deadline {
            for fd in pending where buffer.withUnsafeMutableBytes({ read(fd, $0.baseAddress, $0.count) }) > 0 { pending.remove(fd) }
            sleepSeconds(0.01)
        }
        sleepSeconds(1)
        noteSwiftRuntime(pid: pid)
        return ProcSample.read(pid: pid)
    }

    // MARK: - Latency

    struct LatencyResult {
        var json: JSONValue
        var percentiles: Percentiles?
        /// Every gesture line's latency, in microseconds (pooled across rounds by the caller).
        var samples: [Int32]
        var maxRSSKB: Int
        var peak: ProcSample?
        /// Every client received every phase, terminal and lifecycle line.
        var allEssentialLines: Bool
        /// With a hello probe: each newcomer's wait for its hello while the clients streamed, in microseconds.
        var helloSamples: [Int32] = []
    }

    /// How the running daemon `pid` links the Swift runtime, from its mappings.
    private func noteSwiftRuntime(pid: pid_t) {
        let maps = (try? String(contentsOfFile: "/proc/\(pid)/maps", encoding: .utf8)) ?? ""
        guard !maps.isEmpty else { return }
        swiftRuntime = maps.contains("libswiftCore.so") ? "dynamic" : "static"
    }

    /// Replays the synthetic stream at 240 Hz to `clients` connected sockets, read by up to 16 threads with
    /// poll, and measures each gesture line from its `time_us` (the input's instant on the daemon's monotonic
    /// clock) to the moment a client's `read` returned it. With `helloProbe` (seconds between connections), a
    /// newcomer connects over and over while they stream (``HelloProbe``).
    func latency(clients: Int, seconds: Double, helloProbe: Double? = nil) throws -> LatencyResult {
        let name = "latency\(clients)"
        let socketPath = scratch.file("\(name).sock")
        let (child, notify, _, pid) = try start(name, [
            "--replay", latencyRecording, "--wait-for-clients", String(clients), "--socket", socketPath, "--log-level", "warning",
        ] + extraArguments, limit: seconds + 60)
        defer { child.stop() }
        guard notify.waitForReady(timeout: 20) != nil else {
            throw BenchError("edgeswiped sent no READY=1 within 20 s: \(tail(name))")
        }
        if swiftRuntime == nil { noteSwiftRuntime(pid: pid) }
        // Every client but the last connects, and its reader thread is running and has read its hello, before the
        // last one connects and so opens the daemon's --wait-for-clients gate. The replay's first frames go out at
        // once: with every reader started only after the gate (as until the fifth session) they went out while 16
        // threads were starting and reading up to 1,000 hellos, and the figure's tail measured the benchmark's own
        // start-up.
        let deadline = monotonicSeconds() + seconds + 30
        var fds: [Int32] = []
        var readers: [ReaderThread] = []
        let t0 = monotonicSeconds()
        do {
            for _ in 0..<(clients - 1) { fds.append(try connectUnix(socketPath)) }
            readers = ReaderThread.spread(fds, deadline: deadline, expectedSamplesPerClient: expectedGestureLines + 16)
            for r in readers { r.start() }
            let greeted = monotonicSeconds() + 20
            while !readers.allSatisfy(\.everyClientGreeted) && monotonicSeconds() < greeted { sleepSeconds(0.001) }
            let last = try connectUnix(socketPath)
            fds.append(last)
            let lastReader = ReaderThread.spread([last], deadline: deadline, expectedSamplesPerClient: expectedGestureLines + 16)
            for r in lastReader { r.start() }
            readers += lastReader
        } catch {
            // Readers already started own their descriptors: they close them when the daemon goes (stopped below).
            if readers.isEmpty { for fd in fds { close(fd) } }
            throw error
        }
        let probe = helloProbe.map { HelloProbe(path: socketPath, interval: $0) }
        probe?.start()
        var peak: ProcSample? = nil
        while child.isRunning && monotonicSeconds() < deadline {
            if let s = ProcSample.read(pid: pid), s.rssKB > (peak?.rssKB ?? 0) { peak = s }
            sleepSeconds(0.25)
        }
        probe?.stop()
        let hello = probe.flatMap { Percentiles($0.samples) }
        let maxRSS = peak?.rssKB ?? 0
        let exit = child.isRunning ? nil : child.poll()
        for r in readers { r.join() }
        let elapsed = monotonicSeconds() - t0
        var all: [Int32] = []
        all.reserveCapacity(readers.reduce(0) { $0 + $1.samples.count })
        for r in readers { all += r.samples }
        let p = Percentiles(all)
        let received = readers.reduce(0) { $0 + $1.gestureLines }
        let essential = readers.flatMap(\.essentialCounts)
        let goodbyes = readers.reduce(0) { $0 + $1.goodbyes }
        let negative = readers.reduce(0) { $0 + $1.negative }
        let errors = readers.compactMap(\.error)
        return LatencyResult(
            json: .fields([
                ("p50", .num(p?.p50, digits: 0)),
                ("p99", .num(p?.p99, digits: 0)),
                ("p999", .num(p?.p999, digits: 0)),
                ("max", .num(p?.max, digits: 0)),
                ("mean", .num(p?.mean, digits: 1)),
                ("samples", .integer(p?.count ?? 0)),
                ("gesture_lines_expected_per_client", .integer(expectedGestureLines)),
                ("gesture_lines_received_per_client", .num(Double(received) / Double(max(1, clients)), digits: 1)),
                ("essential_lines_expected_per_client", .integer(expectedEssentialLines)),
                ("essential_lines_received_min", .integer(essential.min() ?? 0)),
                ("essential_lines_received_max", .integer(essential.max() ?? 0)),
                ("clients_missing_essential_lines", .integer(essential.filter { $0 < expectedEssentialLines }.count)),
                ("goodbyes", .integer(goodbyes)),
                ("reader_threads", .integer(readers.count)),
                ("negative_latencies", .integer(negative)),
                ("seconds", .num(elapsed, digits: 1)),
                ("daemon_exit", exit.map { .integer(Int($0)) } ?? .null),
                ("max_rss_mb", .num(Double(maxRSS) / 1024, digits: 2)),
                ("at_max_rss", .fields([
                    ("rss_anon_mb", .num(peak.map { Double($0.rssAnonKB) / 1024 }, digits: 2)),
                    ("rss_file_mb", .num(peak.map { Double($0.rssFileKB) / 1024 }, digits: 2)),
                    ("pss_mb", .num(peak.map { Double($0.pssKB) / 1024 }, digits: 2)),
                    ("threads", .integer(peak?.threads.count ?? 0)),
                ])),
                ("errors", .array(errors.map { .string($0) })),
                ("hello_while_streaming_us", probe.map { p in
                    .fields([
                        ("p50", .num(hello?.p50, digits: 0)), ("p99", .num(hello?.p99, digits: 0)), ("max", .num(hello?.max, digits: 0)),
                        ("samples", .integer(hello?.count ?? 0)), ("failures", .integer(p.failures)),
                    ])
                } ?? .null),
            ]),
            percentiles: p, samples: all, maxRSSKB: maxRSS, peak: peak,
            // Every client the same count (none missed one another got), and no fewer than the in-process engine
            // makes (the daemon adds a few of its own at the replay's end: the device's removal and what follows).
            allEssentialLines: essential.count == clients && essential.min() == essential.max()
                && (essential.min() ?? 0) >= expectedEssentialLines,
            helloSamples: probe?.samples ?? [])
    }
}
