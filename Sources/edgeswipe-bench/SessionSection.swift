import EdgeSwipeBenchSupport
import Dispatch
import EdgeSwipeProtocol
import EdgeSwipeSystem
import Foundation
import Glibc
import Synchronization

/// `--only session`: `edgeswipe-session`'s way from the daemon's line to the compositor (docs/PERFORMANCE.md, "The
/// session client").
///
/// A stand-in daemon (this process) replays the real daemon's own lines for the demo's first left-edge swipe, over
/// and over; the line that completes each transition is sent 20 ms after the swipe's earlier ones (so that no
/// backlog is timed) and timed to the sway `RUN_COMMAND` frame arriving at a stand-in sway socket (this process
/// too), for the real `edgeswipe-session` (a rule `edge = "left"`, `sway = "workspace next_on_output"`) and, in
/// alternating rounds, for the floor: a bare C client that does only that (`scripts/session-bench-floor.c`, built
/// here with `cc -O2`). Both are timed by the same two threads, so this process's own wake-ups are in both.
/// Then the session's wake-ups with the connections open and nothing streamed, and its VmRSS.
struct SessionSection {
    static let floorSource = "scripts/session-bench-floor.c"

    let binaries: ClientBinaries
    let gestures: Int
    let rounds: Int
    let idleSeconds: Double
    let log: (String) -> Void

    func run(daemon: DaemonBench, scratch: ScratchDirectory) throws -> JSONValue {
        if let why = ClientBinaries.missing(binaries.session) { throw BenchError(why) }
        guard let root = binaries.sourceRoot else {
            throw BenchError("the floor client's source (\(Self.floorSource)) was not found above the working directory or this binary: run from the checkout")
        }
        let floor = scratch.file("session-floor")
        let (cc, _) = try ChildProcess.spawn("/usr/bin/cc", ["-O2", "-o", floor, root + "/" + Self.floorSource], environment: ProcessInfo.processInfo.environment, log: scratch.file("cc.log"))
        guard cc.wait(timeout: 120) == 0 else {
            throw BenchError("cc could not build the floor client: \((try? String(contentsOfFile: scratch.file("cc.log"), encoding: .utf8)) ?? "")")
        }
        log("session: capturing the demo's lines from the real daemon")
        let lines = try daemon.capture(root + "/demo/edgeswipe-demo.evemu", speed: 8).map(CapturedLine.init)
        let hello = lines[0]
        guard let first = lines.first(where: { $0.type == "transition" && LineBytes.find(Array(#""edge":"left""#.utf8), in: $0.bytes[...]) != nil }),
            let id = first.transition
        else { throw BenchError("the demo's capture holds no left-edge transition") }
        var swipe: [CapturedLine] = []
        for line in lines where (line.type == "transition" || line.type == "gesture") && line.transition == id {
            swipe.append(line)
            if line.completes { break }
        }
        let rules = scratch.file("session.toml")
        try "[[rule]]\nedge = \"left\"\nsway = \"workspace next_on_output\"\n".write(toFile: rules, atomically: true, encoding: .utf8)

        var floorSamples: [Int64] = [], sessionSamples: [Int64] = []
        var perRound: [JSONValue] = []
        for round in 1...rounds {
            log("session: round \(round) of \(rounds), \(gestures) swipes to the floor client, then to edgeswipe-session")
            let f = try exchange(.floor(floor), hello: hello, swipe: swipe, gestures: gestures, scratch: scratch, rules: rules).latencies
            let s = try exchange(.session, hello: hello, swipe: swipe, gestures: gestures, scratch: scratch, rules: rules).latencies
            floorSamples += f
            sessionSamples += s
            let pf = Percentiles(clampedSamples(f)), ps = Percentiles(clampedSamples(s))
            perRound.append(.fields([
                ("floor_p50_us", .num(pf?.p50, digits: 0)), ("floor_p99_us", .num(pf?.p99, digits: 0)),
                ("session_p50_us", .num(ps?.p50, digits: 0)), ("session_p99_us", .num(ps?.p99, digits: 0)),
            ]))
        }
        log("session: \(idleSeconds) s connected and quiet (the built-in defaults)")
        let idle = try exchange(.session, hello: hello, swipe: swipe, gestures: 20, scratch: scratch, rules: nil, idleSeconds: idleSeconds)
        let pf = Percentiles(clampedSamples(floorSamples)), ps = Percentiles(clampedSamples(sessionSamples))
        func ratio(_ a: Double?, _ b: Double?) -> JSONValue { .num(a.flatMap { a in b.flatMap { $0 > 0 ? a / $0 : nil } }, digits: 2) }
        return .fields([
            ("what", .string("daemon line completing a transition -> sway RUN_COMMAND frame at the compositor socket, microseconds")),
            ("gestures_per_round", .integer(gestures)), ("rounds", .integer(rounds)),
            ("floor_us", quantiles(pf)), ("session_us", quantiles(ps)),
            ("ratio_p50", ratio(ps?.p50, pf?.p50)), ("ratio_p99", ratio(ps?.p99, pf?.p99)),
            ("per_round", .array(perRound)),
            ("idle", idle.wakeups?.json ?? .null),
            ("memory_defaults_vmrss_kb", idle.rssKB.map { JSONValue.integer($0) } ?? .null),
            ("floor_client", .string(Self.floorSource)),
        ])
    }

    enum Client { case floor(String), session }

    struct Exchange {
        var latencies: [Int64] = []
        var wakeups: Wakeups?
        var rssKB: Int?
    }

    /// One client's run: the stand-in daemon and sway listen, the client starts and connects to both, `gestures`
    /// swipes go out (each completing line timed to its command), and with `idleSeconds` the connection then stays
    /// open and quiet while the client's threads are counted.
    private func exchange(_ client: Client, hello: CapturedLine, swipe: [CapturedLine], gestures: Int, scratch: ScratchDirectory,
                          rules: String?, idleSeconds: Double = 0) throws -> Exchange {
        let daemonSocket = try UnixListener(path: scratch.file("d.sock"))
        defer { daemonSocket.close() }
        let sway = try StandInSway(path: scratch.file("sway.sock"))
        defer { sway.stop() }
        let child: ChildProcess
        switch client {
        case .floor(let binary):
            child = try ChildProcess.spawn(binary, [daemonSocket.path, sway.path], environment: [:], log: scratch.file("floor.log")).0
        case .session:
            let env = ["PATH": "/usr/bin:/bin", "SWAYSOCK": sway.path, "HOME": scratch.path, "XDG_CONFIG_HOME": scratch.path]
            child = try ChildProcess.spawn(
                binaries.session, ["--socket", daemonSocket.path, "--log-level", "warning"] + (rules.map { ["--config", $0] } ?? []),
                environment: env, log: scratch.file("session.log")).0
        }
        defer { child.stop() }
        let fd = try daemonSocket.accept(timeout: 20, who: "the \(client) client")
        defer { Glibc.close(fd) }
        var seq: UInt64 = 1
        try writeFully(fd, hello.sent(seq: seq))
        // The client's start-up (its connection to sway) is not what is measured.
        sleepSeconds(0.5)
        var result = Exchange()
        for g in 0..<gestures {
            let idShift = Int64(1000 + g) - Int64(clamping: swipe[0].transition ?? 0)
            for line in swipe {
                seq += 1
                let bytes = line.sent(seq: seq, idShift: idShift)
                if line.completes && idleSeconds == 0 {
                    // The client has read the swipe's earlier lines by now: what is timed is the completing line's own
                    // way to the compositor, not a backlog (the real daemon paces its lines by the finger).
                    sleepSeconds(0.02)
                    let t0 = monotonicMicroseconds()
                    try writeFully(fd, bytes)
                    guard let arrival = sway.nextArrival(timeout: 5) else {
                        throw BenchError("no request reached the stand-in sway within 5 s (\(client); \(tailOf(scratch.file("session.log"))))")
                    }
                    result.latencies.append(Int64(clamping: arrival) - Int64(clamping: t0))
                } else {
                    try writeFully(fd, bytes)
                }
            }
            sleepSeconds(0.01)
        }
        if idleSeconds > 0 {
            sleepSeconds(0.5)
            let before = ProcSample.read(pid: child.pid)
            result.rssKB = before?.rssKB
            sleepSeconds(idleSeconds)
            if let before, let after = ProcSample.read(pid: child.pid) { result.wakeups = Wakeups(from: before, to: after) }
        }
        return result
    }
}

/// The last lines of a log file, for an error.
func tailOf(_ path: String, lines: Int = 5) -> String {
    ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").suffix(lines).joined(separator: " | ")
}

/// A stand-in sway IPC socket: answers every request (`RUN_COMMAND` with success, `GET_TREE` with an empty root,
/// anything else with success) and timestamps each `RUN_COMMAND` frame's arrival, on a thread of its own.
final class StandInSway: @unchecked Sendable {
    let path: String
    private let listener: UnixListener
    private let stopping = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)
    private let arrived = DispatchSemaphore(value: 0)
    private let arrivals = Mutex<[UInt64]>([])

    init(path: String) throws {
        self.path = path
        listener = try UnixListener(path: path)
        let thread = Thread { [self] in
            serve()
            done.signal()
        }
        thread.start()
    }

    /// The arrival time of the next `RUN_COMMAND` frame, waiting up to `timeout` seconds.
    func nextArrival(timeout: Double) -> UInt64? {
        guard arrived.wait(timeout: .now() + timeout) == .success else { return nil }
        return arrivals.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    }

    func stop() {
        stopping.store(true, ordering: .releasing)
        done.wait()
        listener.close()
    }

    private func serve() {
        var fds = [pollfd(fd: listener.fd.rawValue, events: Int16(POLLIN), revents: 0)]
        var pending: [Int32: [UInt8]] = [:]
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        defer { for p in fds.dropFirst() { close(p.fd) } }
        while !stopping.load(ordering: .acquiring) {
            guard poll(&fds, nfds_t(fds.count), 100) > 0 else { continue }
            let now = monotonicMicroseconds()
            if fds[0].revents != 0, let c = try? listener.fd.accept() {
                fds.append(pollfd(fd: c.rawValue, events: Int16(POLLIN), revents: 0))
            }
            for i in fds.indices.dropFirst() where fds[i].revents != 0 && fds[i].fd >= 0 {
                let fd = fds[i].fd
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                guard n > 0 else {
                    if n == 0 || (errno != EAGAIN && errno != EINTR) {
                        close(fd)
                        fds[i].fd = -1
                    }
                    continue
                }
                var data = pending[fd, default: []] + buffer[0..<n]
                while data.count >= 14 {
                    let length = Int(UInt32(data[6]) | UInt32(data[7]) << 8 | UInt32(data[8]) << 16 | UInt32(data[9]) << 24)
                    let kind = UInt32(data[10]) | UInt32(data[11]) << 8 | UInt32(data[12]) << 16 | UInt32(data[13]) << 24
                    guard data.count >= 14 + length else { break }
                    data.removeFirst(14 + length)
                    let reply: String
                    switch kind {
                    case 0:
                        arrivals.withLock { $0.append(now) }
                        arrived.signal()
                        reply = #"[{"success":true}]"#
                    case 4: reply = #"{"type":"root","nodes":[]}"#
                    default: reply = #"{"success":true}"#
                    }
                    let body = Array(reply.utf8)
                    var frame = Array("i3-ipc".utf8)
                    withUnsafeBytes(of: UInt32(body.count).littleEndian) { frame += $0 }
                    withUnsafeBytes(of: kind.littleEndian) { frame += $0 }
                    try? writeFully(fd, frame + body)
                }
                pending[fd] = data
            }
            fds.removeAll { $0.fd < 0 }
            if fds.isEmpty { break }
        }
    }
}
