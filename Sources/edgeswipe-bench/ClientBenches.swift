import EdgeSwipeProtocol
import EdgeSwipeSystem
import Foundation
import Glibc
import SystemPackage

// What the client sections (`session`, `overlay`, `web`) share: the real client binaries, the stand-in daemon that
// replays captured lines, and the per-thread wake-up count. The daemon's own start and capture are DaemonBench's.

/// The real client binaries the client sections start, and the source tree (for the floor client's C source).
struct ClientBinaries {
    let session: String
    let web: String
    /// The checkout this bench was built from (the folder holding `Package.swift` and `scripts/`), if found.
    let sourceRoot: String?

    /// The clients next to `daemon` unless `directory` says otherwise.
    init(directory: String?, daemon: String) {
        let dir = directory ?? URL(fileURLWithPath: daemon).deletingLastPathComponent().path
        session = dir + "/edgeswipe-session"
        web = dir + "/edgeswipe-web"
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
        sourceRoot = Self.checkout(above: FileManager.default.currentDirectoryPath) ?? Self.checkout(above: executable)
    }

    /// The nearest folder at or above `path` with the bench's floor client in it.
    private static func checkout(above path: String) -> String? {
        var url = URL(fileURLWithPath: path)
        for _ in 0..<8 {
            if FileManager.default.fileExists(atPath: url.appendingPathComponent(SessionSection.floorSource).path) { return url.path }
            url.deleteLastPathComponent()
        }
        return nil
    }

    /// Why `binary` cannot run, or nil when it can.
    static func missing(_ binary: String) -> String? {
        FileManager.default.isExecutableFile(atPath: binary) ? nil
            : "\(binary) is not an executable (scripts/bench.sh builds it; or pass --clients-dir DIR)"
    }
}

/// Reads `fd` until the peer closes it or `timeout` seconds pass; everything read.
func readUntilClosed(_ fd: Int32, timeout: Double) -> [UInt8] {
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    let deadline = monotonicSeconds() + timeout
    while monotonicSeconds() < deadline {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, 200) > 0 else { continue }
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n > 0 {
            out += buffer[0..<n]
        } else if n == 0 || (errno != EAGAIN && errno != EINTR) {
            break
        }
    }
    return out
}

/// Writes all of `bytes` to a (possibly non-blocking) descriptor, waiting while its buffer is full.
func writeFully(_ fd: Int32, _ bytes: [UInt8]) throws {
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeBytes { all -> Int in
            guard let base = all.baseAddress else { return 0 }
            return write(fd, base + offset, all.count - offset)
        }
        if n > 0 {
            offset += n
        } else if n < 0 && (errno == EAGAIN || errno == EINTR) {
            var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            _ = poll(&p, 1, 1000)
        } else {
            throw BenchError("write to descriptor \(fd): \(errnoText())")
        }
    }
}

/// A listening Unix stream socket in the scratch folder: the stand-in daemon's, or the stand-in compositor's.
final class UnixListener {
    let path: String
    let fd: FileDescriptor

    init(path: String, mode: mode_t? = nil) throws {
        self.path = path
        unlink(path)
        do { fd = try .boundUnixSocket(.stream, at: try UnixSocketAddress(path), backlog: 16) } catch {
            throw BenchError("listen on \(path): \(error)")
        }
        if let mode { chmod(path, mode) }
    }

    /// The next connection, or an error naming `who` when none comes within `timeout` seconds.
    func accept(timeout: Double, who: String) throws -> Int32 {
        let deadline = monotonicSeconds() + timeout
        while monotonicSeconds() < deadline {
            var p = pollfd(fd: fd.rawValue, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 200) > 0 else { continue }
            if let connection = try? fd.accept() { return connection.rawValue }
        }
        throw BenchError("\(who) did not connect to \(path) within \(Int(timeout)) s")
    }

    func close() {
        try? fd.close()
        unlink(path)
    }
}

/// Context switches of a process's threads between two samples: what woke it.
struct Wakeups {
    var seconds: Double
    var total: Int
    /// `name[tid]` of each thread alive at both ends that woke, and how often.
    var byThread: [(String, Int)]
    var threadsStarted: [String]
    var threadsEnded: [String]
    var threads: Int

    init(from a: ProcSample, to b: ProcSample) {
        seconds = b.time - a.time
        var woke: [(String, Int)] = []
        for t in b.threads {
            guard let before = a.threads.first(where: { $0.tid == t.tid }) else { continue }
            let n = t.voluntary + t.involuntary - before.voluntary - before.involuntary
            if n != 0 { woke.append(("\(t.name)[\(t.tid)]", n)) }
        }
        byThread = woke
        total = woke.reduce(0) { $0 + $1.1 }
        threadsStarted = b.threads.filter { t in !a.threads.contains { $0.tid == t.tid } }.map(\.name).sorted()
        threadsEnded = a.threads.filter { t in !b.threads.contains { $0.tid == t.tid } }.map(\.name).sorted()
        threads = b.threads.count
    }

    var json: JSONValue {
        .fields([
            ("seconds", .num(seconds, digits: 2)), ("context_switches", .integer(total)),
            ("per_second", .num(seconds > 0 ? Double(total) / seconds : nil, digits: 2)),
            ("threads_that_woke", .fields(byThread.map { ($0.0, .integer($0.1)) })),
            ("threads_started", .array(threadsStarted.map { .string($0) })),
            ("threads_ended", .array(threadsEnded.map { .string($0) })), ("threads", .integer(threads)),
        ])
    }
}

/// Microsecond samples (however long the run) as the bench's percentiles take them. A difference of two arrivals
/// may be negative (the floor's relay read before the reference): it is kept, as a percentile must see it.
func clampedSamples(_ values: [Int64]) -> [Int32] { values.map { Int32(clamping: $0) } }

/// `{"p50": .., "p99": .., "max": .., "n": ..}` of microsecond samples, in `unit` (1: microseconds, 1000: ms).
func quantiles(_ p: Percentiles?, unit: Double = 1, digits: Int = 0) -> JSONValue {
    .fields([
        ("p50", .num(p.map { $0.p50 / unit }, digits: digits)), ("p99", .num(p.map { $0.p99 / unit }, digits: digits)),
        ("max", .num(p.map { $0.max / unit }, digits: digits)), ("n", .integer(p?.count ?? 0)),
    ])
}

extension EdgeSwipeBench {
    /// The client sections: each figure beside its floor from the same run, in the report; everything in `details`.
    /// A section that cannot run (a tool or binary missing) says why in `notes` and the others go on.
    func measureClients(daemon: DaemonBench, wants: (String) -> Bool, report: inout [(String, JSONValue)],
                        details: inout [(String, JSONValue)], notes: inout [String], log: @escaping (String) -> Void) throws {
        let binaries = ClientBinaries(directory: clientsDir, daemon: daemon.daemon)
        func field(_ value: JSONValue, _ path: String...) -> JSONValue {
            var v = value
            for key in path {
                guard case .object(let o) = v, let next = o[key] else { return .null }
                v = next
            }
            return v
        }
        if wants("session") {
            let scratch = try ScratchDirectory()
            defer { scratch.remove() }
            do {
                let s = try SessionSection(binaries: binaries, gestures: sessionGestures, rounds: sessionRounds, idleSeconds: sessionIdleSeconds, log: log)
                    .run(daemon: daemon, scratch: scratch)
                report.append(("session_line_to_command_us", .fields([
                    ("session", field(s, "session_us")), ("floor", field(s, "floor_us")),
                    ("ratio_p50", field(s, "ratio_p50")), ("ratio_p99", field(s, "ratio_p99")),
                ])))
                details.append(("session", s))
            } catch { notes.append("session: not measured: \(error)") }
        }
        if wants("overlay") {
            // Headless sway: line to commit and to the compositor's frame (its frame callbacks); then, where weston is
            // installed, sway nested in it: line to presentation (wp_presentation), both compositors' frames counted.
            func measure(nested: Bool) throws -> JSONValue {
                let scratch = try ScratchDirectory()
                defer { scratch.remove() }
                return try OverlaySection(binaries: binaries, seconds: overlaySeconds, idleSeconds: overlayIdleSeconds, nested: nested, log: log)
                    .run(daemon: daemon, scratch: scratch)
            }
            var headless: JSONValue = .null
            do {
                headless = try measure(nested: false)
                details.append(("overlay", headless))
            } catch { notes.append("overlay: not measured on headless sway: \(error)") }
            var nested: JSONValue = .null
            if FileManager.default.isExecutableFile(atPath: OverlaySection.weston) {
                do {
                    nested = try measure(nested: true)
                    details.append(("overlay_nested", nested))
                } catch { notes.append("overlay: not measured nested in weston: \(error)") }
            } else {
                notes.append("overlay: no line-to-presentation figures: weston is not installed (headless sway never says `presented`)")
            }
            if case .object = headless {
                report.append(("overlay_line_to_commit_ms", .fields([
                    ("p50", field(headless, "line_to_commit_ms", "p50")), ("p99", field(headless, "line_to_commit_ms", "p99")),
                    ("max", field(headless, "line_to_commit_ms", "max")),
                    ("compositor_frame_interval_p50", field(headless, "compositor_frame_interval_ms_p50")),
                    ("line_to_compositor_frame", field(headless, "line_to_compositor_frame_ms")),
                    ("line_to_presentation_nested", field(nested, "line_to_presentation_ms")),
                ])))
            }
        }
        if wants("web") {
            do {
                let w = try WebSection(binaries: binaries, seconds: webSeconds, tabs: webTabs, log: log).run(daemon: daemon)
                if case .array(let rows) = field(w, "by_tabs") {
                    report.append(("web_bridge_added_us", .fields(rows.map { row in
                        (field(row, "tabs").doubleValue.map { String(Int($0)) } ?? "?", .fields([
                            ("bridge", field(row, "bridge_added_us")), ("socat_floor", field(row, "socat_floor_us")),
                        ]))
                    })))
                }
                details.append(("web", w))
            } catch { notes.append("web: not measured: \(error)") }
        }
    }
}
