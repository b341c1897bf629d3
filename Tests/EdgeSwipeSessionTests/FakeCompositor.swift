import EdgeSwipeSystem
import EdgeSwipeTestSupport
import Foundation
import NIOConcurrencyHelpers
import SystemPackage

/// A compositor's socket that records what it got and answers as a test tells it: how Hyprland's and niri's framing
/// is checked without them (neither is in Debian 12), and how sway's stalls and garbage are made.
final class FakeCompositorSocket: @unchecked Sendable {
    /// What to do with one request.
    enum Answer: Sendable {
        case reply([UInt8], thenClose: Bool)
        /// Never answer (a stalled compositor); the connection stays open until the test ends.
        case stall
        /// Close without a word.
        case close
    }

    /// How a request ends on the wire.
    enum Framing: Sendable {
        /// What one read returns (Hyprland reads one message per connection).
        case oneRead
        /// Up to a newline (niri).
        case line
        /// One i3 IPC frame (sway).
        case i3
    }

    let path: String
    private let listener: FileDescriptor
    private let framing: Framing
    private let answer: @Sendable (_ request: [UInt8], _ index: Int) -> Answer
    private let state = NIOLockedValueBox(State())
    private struct State {
        var requests: [[UInt8]] = []
        var connections = 0
        var open: [FileDescriptor] = []
        var stopped = false
    }

    /// Written to each connection as soon as it is accepted (an event stream that needs no request).
    private let greeting: [UInt8]

    init(path: String, framing: Framing, greeting: [UInt8] = [], answer: @escaping @Sendable (_ request: [UInt8], _ index: Int) -> Answer) throws {
        self.path = path
        self.greeting = greeting
        self.framing = framing
        self.answer = answer
        listener = try FileDescriptor.boundUnixSocket(.stream, at: UnixSocketAddress(path), backlog: 16)
        try SystemThread.start(name: "fake-compositor", detached: true) { [self] in acceptLoop() }
    }

    /// The requests received, in order (their text).
    var requests: [String] { state.withLockedValue { $0.requests.map { String(decoding: $0, as: UTF8.self) } } }
    var connections: Int { state.withLockedValue { $0.connections } }
    /// Connections the peer has not closed yet (after each answer).
    var openConnections: Int { state.withLockedValue { $0.open.count } }

    func stop() {
        let open = state.withLockedValue { s -> [FileDescriptor] in
            s.stopped = true
            defer { s.open = [] }
            return s.open
        }
        listener.shutdown(reading: true)
        for fd in open { fd.shutdown(reading: true) }
    }

    deinit {
        try? listener.close()
        unlink(path)
    }

    private func acceptLoop() {
        while !state.withLockedValue({ $0.stopped }) {
            guard let fd = try? listener.accept() else { return }
            // accept4 hands out non-blocking sockets; this fake reads and writes blocking.
            _ = fcntl(fd.rawValue, F_SETFL, 0)
            state.withLockedValue {
                $0.connections += 1
                $0.open.append(fd)
            }
            _ = try? SystemThread.start(name: "fake-conn", detached: true) { [self] in serve(fd) }
        }
    }

    private func serve(_ fd: FileDescriptor) {
        var pending: [UInt8] = []
        defer {
            state.withLockedValue { s in s.open.removeAll { $0 == fd } }
            try? fd.close()
        }
        if !greeting.isEmpty { _ = try? greeting.withUnsafeBytes { try fd.send($0) } }
        while true {
            guard let request = read(fd, &pending) else { return }
            let index = state.withLockedValue { s -> Int in
                s.requests.append(request)
                return s.requests.count - 1
            }
            switch answer(request, index) {
            case .reply(let bytes, let thenClose):
                _ = try? bytes.withUnsafeBytes { try fd.send($0) }
                if thenClose { return }
                if framing != .i3 {
                    // Wait for the peer to close, to count connections left open.
                    var byte: UInt8 = 0
                    _ = withUnsafeMutableBytes(of: &byte) { try? fd.receive(into: $0) }
                    return
                }
            case .stall:
                var byte: UInt8 = 0
                _ = withUnsafeMutableBytes(of: &byte) { try? fd.receive(into: $0) }
                return
            case .close:
                return
            }
        }
    }

    /// One request, per the framing; nil when the peer closed.
    private func read(_ fd: FileDescriptor, _ pending: inout [UInt8]) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            switch framing {
            case .oneRead:
                if !pending.isEmpty {
                    defer { pending = [] }
                    return pending
                }
            case .line:
                if let nl = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = Array(pending[..<nl])
                    pending.removeFirst(nl + 1)
                    return line
                }
            case .i3:
                if pending.count >= 14 {
                    let length = Int(pending[6]) | Int(pending[7]) << 8 | Int(pending[8]) << 16 | Int(pending[9]) << 24
                    if pending.count >= 14 + length {
                        let frame = Array(pending[..<(14 + length)])
                        pending.removeFirst(14 + length)
                        return frame
                    }
                }
            }
            let n = (try? buffer.withUnsafeMutableBytes { try fd.receive(into: $0) }) ?? 0
            if n <= 0 { return nil }
            pending += buffer.prefix(n)
        }
    }
}
