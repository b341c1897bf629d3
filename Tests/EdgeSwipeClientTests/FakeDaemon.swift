import EdgeSwipeSystem
import EdgeSwipeTestSupport
import Foundation
import Glibc
import SystemPackage

struct FakeDaemonError: Error, CustomStringConvertible {
    let description: String
}

/// A scripted stand-in for edgeswiped: a real listening Unix socket whose connections the test drives line by
/// line, so that the client can be tested against replies out of order, silence and dropped connections.
final class FakeDaemon: @unchecked Sendable {
    let directory: TempDir
    let path: String
    private let listener: Int32

    /// Listening at `path`, or at a socket in a directory of its own.
    init(path: String? = nil) throws {
        directory = try TempDir()
        self.path = path ?? directory.file("fake.sock")
        do { listener = try FileDescriptor.boundUnixSocket(.stream, at: UnixSocketAddress(self.path), backlog: 8).rawValue } catch {
            throw FakeDaemonError(description: "bind/listen: \(error)")
        }
    }

    deinit { close(listener) }

    /// Waits (on its own thread) for the client to connect.
    func accept(timeout: Double = 20) async throws -> Peer {
        let listener = self.listener
        return try await withCheckedThrowingContinuation { continuation in
            Thread {
                var p = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
                guard poll(&p, 1, Int32(timeout * 1000)) > 0 else {
                    return continuation.resume(throwing: FakeDaemonError(description: "no connection within \(timeout) s"))
                }
                let fd = Glibc.accept(listener, nil, nil)
                fd >= 0 ? continuation.resume(returning: Peer(fd: fd)) : continuation.resume(throwing: FakeDaemonError(description: "accept: errno \(errno)"))
            }.start()
        }
    }

    /// One accepted connection.
    final class Peer: @unchecked Sendable {
        let fd: Int32
        private var pending: [UInt8] = []

        init(fd: Int32) { self.fd = fd }

        func write(_ lines: String...) {
            let bytes = Array(lines.map { $0 + "\n" }.joined().utf8)
            _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        }

        /// The next request line, as a JSON object.
        func readRequest(timeout: Double = 20) async throws -> [String: Any] {
            let line = try await readLine(timeout: timeout)
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw FakeDaemonError(description: "not an object: \(line)")
            }
            return object
        }

        func readLine(timeout: Double) async throws -> String {
            try await withCheckedThrowingContinuation { continuation in
                Thread { [self] in
                    while true {
                        if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                            let line = String(decoding: pending[..<newline], as: UTF8.self)
                            pending.removeSubrange(...newline)
                            return continuation.resume(returning: line)
                        }
                        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                        var chunk = [UInt8](repeating: 0, count: 4096)
                        let n = poll(&p, 1, Int32(timeout * 1000)) > 0 ? chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) } : -1
                        guard n > 0 else { return continuation.resume(throwing: FakeDaemonError(description: "no request line")) }
                        pending += chunk[0..<n]
                    }
                }.start()
            }
        }

        func hangUp() { close(fd) }
    }
}

/// Server lines, as a real daemon would write them.
enum Lines {
    static func hello(seq: Int = 1, visible: String = "home") -> String {
        #"{"type":"hello","seq":\#(seq),"time_us":10,"protocol":1,"server":"fake","max_line_bytes":65536,"access":{"read":true,"control":true},"devices":[],"config":{"source":"built-in","containers":["app"],"bindings":[],"animator":{"style":"slide","duration_us":350000,"curve":"ease-in-out"},"completion_curve":"ease-in-out","completion_speed":1,"tick_hz":120},"state":{"containers":[{"name":"app","kind":"navigation","visible":"\#(visible)","stack":["\#(visible)"]}],"running":[]}}"#
    }

    static func lifecycle(seq: Int, scene: String) -> String {
        #"{"type":"lifecycle","seq":\#(seq),"time_us":20,"transition":1,"container":"app","scene":"\#(scene)","event":"will-appear"}"#
    }

    static func reply(seq: Int, id: Any, op: String, result: String = "{}") -> String {
        #"{"type":"reply","seq":\#(seq),"time_us":30,"id":\#(id),"op":"\#(op)","result":\#(result)}"#
    }

    static func error(seq: Int, id: Any, code: String, message: String) -> String {
        #"{"type":"error","seq":\#(seq),"time_us":30,"id":\#(id),"code":"\#(code)","message":"\#(message)"}"#
    }
}
