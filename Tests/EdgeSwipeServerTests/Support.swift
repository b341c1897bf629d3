import EdgeSwipeCore
import EdgeSwipeEngineWire
import EdgeSwipeFingerScript
import EdgeSwipeProtocol
import EdgeSwipeServer
import EdgeSwipeSystem
import Foundation
import Glibc
import Logging
import SystemPackage

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs a blocking wait on its own thread, so that it never ties up the cooperative pool (where the server's
/// request handler runs).
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// Messages received by one test client, with a condition to wait on.
final class Inbox: @unchecked Sendable {
    private let condition = NSCondition()
    private var messages: [ServerMessage] = []
    private var byteCount = 0
    private var ended = false
    private var undecodable: [String] = []

    func append(_ message: ServerMessage) {
        condition.lock()
        messages.append(message)
        condition.broadcast()
        condition.unlock()
    }

    func received(bytes: Int) {
        condition.lock()
        byteCount += bytes
        condition.unlock()
    }

    func undecodable(_ line: String) {
        condition.lock()
        undecodable.append(line)
        condition.unlock()
    }

    func end() {
        condition.lock()
        ended = true
        condition.broadcast()
        condition.unlock()
    }

    var state: (messages: [ServerMessage], ended: Bool, bytes: Int, undecodable: [String]) {
        condition.lock()
        defer { condition.unlock() }
        return (messages, ended, byteCount, undecodable)
    }

    /// Blocks until `done` holds for the messages so far (and whether the stream ended), or fails after
    /// `timeout` saying what it waited for.
    func wait(_ what: String, timeout: Double, until done: ([ServerMessage], Bool) -> Bool) throws -> [ServerMessage] {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !done(messages, ended) {
            guard condition.wait(until: deadline) else {
                throw TestFailure("timed out after \(timeout) s waiting for \(what); have \(messages.count) messages, ended: \(ended)")
            }
        }
        return messages
    }
}

/// A client on a real Unix socket: a plain blocking socket read by its own thread once ``startReading()`` is
/// called. Until then it reads nothing, which is how a test plays a slow client.
final class TestClient: @unchecked Sendable {
    let fd: Int32
    let inbox = Inbox()
    private var framer = LineFramer(maxLineBytes: 1 << 20)
    private var reading = false

    init(path: String) throws {
        do { fd = try FileDescriptor.connectedUnixSocket(to: UnixSocketAddress(path)).rawValue } catch {
            throw TestFailure("connect \(path): \(error)")
        }
    }

    /// Starts the reader thread, which reads until end of stream and then closes the socket.
    func startReading() {
        guard !reading else { return }
        reading = true
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }
                inbox.received(bytes: n)
                framer.feed(Array(buffer[0..<n])) { frame in
                    guard case .line(let line, _) = frame else { return }
                    if let m = try? ServerMessage(line: line) { inbox.append(m) } else { inbox.undecodable(String(decoding: line, as: UTF8.self)) }
                }
            }
            inbox.end()
            Glibc.close(fd)
        }
        thread.start()
    }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { throw TestFailure("write: errno \(errno)") }
            offset += n
        }
    }

    /// Reads, before the reader thread starts, until one message has arrived: how a test makes sure the server
    /// has registered a client that is then left unread.
    func readFirstMessage(timeout: Double = 20) async throws -> ServerMessage {
        let messages = try await offPool { [self] in
            let deadline = Date(timeIntervalSinceNow: timeout)
            var buffer = [UInt8](repeating: 0, count: 4096)
            while inbox.state.messages.isEmpty {
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let remaining = Int32(max(0, deadline.timeIntervalSinceNow * 1000))
                guard poll(&p, 1, remaining) > 0 else { throw TestFailure("no message within \(timeout) s") }
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                guard n > 0 else { throw TestFailure("end of stream before the first message") }
                inbox.received(bytes: n)
                framer.feed(Array(buffer[0..<n])) { frame in
                    if case .line(let line, _) = frame, let m = try? ServerMessage(line: line) { inbox.append(m) }
                }
            }
            return inbox.state.messages
        }
        return messages[0]
    }

    /// Waits, off the cooperative pool, until `done` holds.
    @discardableResult
    func wait(_ what: String, timeout: Double = 20, until done: @escaping @Sendable ([ServerMessage], Bool) -> Bool) async throws -> [ServerMessage] {
        let inbox = self.inbox
        return try await offPool { try inbox.wait(what, timeout: timeout, until: done) }
    }

    /// Waits for the first message matching `match` after `index`.
    @discardableResult
    func wait(for what: String, timeout: Double = 20, _ match: @escaping @Sendable (ServerMessage) -> Bool) async throws -> ServerMessage {
        let messages = try await wait(what, timeout: timeout) { messages, _ in messages.contains(where: match) }
        return messages.first(where: match)!
    }

    /// Ends the connection from our side (the reader thread then sees end of stream).
    func close() {
        shutdown(fd, Int32(SHUT_RDWR))
        if !reading { Glibc.close(fd) }
    }
}

extension ServerMessage {
    /// The parts of a never-dropped message that must agree across clients, without `seq` and `time_us`; `nil`
    /// for progress updates (which a slow client may miss) and for per-connection messages.
    var essentialSignature: String? {
        switch self {
        case .gesture(let g): g.progress ? nil : "gesture \(g.device) \(String(describing: g.edge)) \(g.state)"
        case .transition(let t): t.progress ? nil : "transition \(t.id) \(t.operation) \(t.phase) \(t.percent)"
        case .lifecycle(let l): "lifecycle \(l.transition) \(l.scene) \(l.event)"
        case .presentation(let p): "presentation \(p.transition) \(p.kind) \(p.phase) \(p.completed.map(String.init) ?? "-")"
        case .interaction(let i): "interaction \(i.transition) \(i.phase) \(i.cancelled.map(String.init) ?? "-")"
        case .state(let s): "state " + s.containers.map { "\($0.name)=\($0.visible)" }.joined(separator: ",")
        case .device(let d): "device \(d.change) \(d.device.id)"
        case .config(let c): "config \(c.result) \(c.message)"
        case .hello, .reply, .error, .goodbye, .unknown: nil
        }
    }

    var isProgress: Bool {
        switch self {
        case .gesture(let g): g.progress
        case .transition(let t): t.progress
        case .hello, .lifecycle, .presentation, .interaction, .state, .device, .config, .reply, .error, .goodbye, .unknown: false
        }
    }
}

/// Engine runs to publish: real engine output, one batch per engine step, as the daemon publishes it.
enum Traffic {
    /// 200 x 120 mm.
    static let device = TouchDevice(
        id: DeviceID(3), name: "Traffic Screen", kind: .touchscreen,
        x: AxisRange(minimum: 0, maximum: 9999, resolution: 50), y: AxisRange(minimum: 0, maximum: 5999, resolution: 50),
        path: "/dev/input/event3")

    /// The default scene graph, ticking every 2 ms so that a run-out has many frames.
    static let configuration: EngineConfiguration = {
        var c = EngineConfiguration.default
        c.tickInterval = Microseconds(2000)
        return c
    }()

    static func snapshot(_ engine: Engine) -> ServerSnapshot {
        ServerSnapshot(
            serverVersion: "edgeswiped test", devices: engine.knownDevices,
            config: ConfigSummary(configuration: configuration, source: "built-in"), state: engine.snapshot)
    }

    /// The device arrives, then `count` committed swipes alternate between the left and right edges (previous
    /// and next tab of `shell`), each run out to its end.
    static func swipes(_ count: Int, motionFrames: Int = 40) -> (initial: ServerSnapshot, batches: [[EngineEvent]]) {
        var engine = Engine(configuration: configuration)
        let initial = snapshot(engine)
        var batches: [[EngineEvent]] = []
        var t: UInt64 = 1_000_000
        func step(_ body: (inout Engine, inout [EngineEvent]) -> Void) {
            var events: [EngineEvent] = []
            body(&engine, &events)
            batches.append(events)
        }
        step { e, ev in e.addDevice(device, at: MonotonicInstant(microseconds: t), into: &ev) }
        for i in 0..<count {
            let fromLeft = i % 2 == 0
            let start = device.units(x: fromLeft ? 0.005 : 0.995, y: 0.5)
            let end = device.units(x: fromLeft ? 0.75 : 0.25, y: 0.5)
            t += 20_000
            // One finger, scripted: it lands, moves for `motionFrames` frames 8 ms apart, and lifts 8 ms later.
            let swipe = FingerScript(stroke: Stroke(
                from: start.x, start.y,
                moves: [Stroke.Move(to: end.x, end.y, frames: motionFrames, durationUS: UInt64(motionFrames) * 8000, easing: .linear)],
                restUS: 8000))
            for frame in swipe.frames(on: device, origin: MonotonicInstant(microseconds: t)) {
                step { e, ev in e.handle(frame, into: &ev) }
            }
            t += UInt64(swipe.end.value)
            while let deadline = engine.nextDeadline {
                step { e, ev in e.tick(at: deadline, into: &ev) }
            }
            t = max(t, engine.now.microseconds)
        }
        return (initial, batches)
    }

    /// What every subscribed client must receive, in order, whatever its speed.
    static func essentials(_ batches: [[EngineEvent]]) throws -> [String] {
        try lines(batches).compactMap(\.essentialSignature)
    }

    static func lines(_ batches: [[EngineEvent]]) throws -> [ServerMessage] {
        var encoder = ProtocolLineEncoder()
        var bytes: [UInt8] = []
        for b in batches { encoder.encode(b, into: &bytes) }
        return try bytes.split(separator: UInt8(ascii: "\n")).map { try ServerMessage(line: Array($0)) }
    }
}

/// Answers the daemon's requests the way edgeswiped does, from the snapshot, and records what it was asked.
struct RecordingHandler: EdgeSwipeRequestHandler {
    let log = Log()

    final class Log: @unchecked Sendable {
        private let lock = NSLock()
        private var requests: [DaemonRequest] = []
        func append(_ r: DaemonRequest) { lock.withLock { requests.append(r) } }
        var all: [DaemonRequest] { lock.withLock { requests } }
    }

    func handle(_ request: DaemonRequest, context: RequestContext) async throws(RequestError) -> ReplyResult {
        log.append(request)
        switch request {
        case .status: return .status(context.snapshot)
        case .devices: return .devices(context.snapshot.devices)
        case .control(let c):
            // The operation must resolve (a tab by scene) the way the daemon would resolve it.
            _ = try c.operation(in: context.snapshot.containers)
            if c.container == "app" { throw RequestError(TransitionRefusal.busy(container: "app", running: TransitionID(1))) }
            return .transition(TransitionID(77))
        case .setRotation(let r):
            if case .device(let id) = r.target { return .rotation(applied: [id], pending: []) }
            return .rotation(applied: [DeviceID(1)], pending: [])
        }
    }
}

enum TestServer {
    static let quietLogger = Logger(label: "edgeswipe.test") { _ in SwiftLogNoOpLogHandler() }

    static func configuration(_ path: String, _ adjust: (inout ServerConfiguration) -> Void = { _ in }) -> ServerConfiguration {
        var c = ServerConfiguration(listener: .path(path), serverVersion: "edgeswiped test")
        adjust(&c)
        return c
    }

    static func start(
        _ configuration: ServerConfiguration, snapshot: ServerSnapshot = Traffic.swipes(0).initial,
        handler: (any EdgeSwipeRequestHandler)? = RecordingHandler()
    ) throws -> EdgeSwipeServer {
        try EdgeSwipeServer.start(configuration: configuration, snapshot: snapshot, handler: handler, logger: quietLogger)
    }
}
