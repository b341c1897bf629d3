import ArgumentParser
import Foundation
import Glibc

/// A plain blocking connection to the daemon, for commands that print the daemon's own bytes (`monitor
/// --json`, `status --json`): nothing is decoded and re-encoded on the way.
final class RawConnection {
    private let fd: Int32
    private var buffer: [UInt8] = []
    let path: String

    private init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit { close(fd) }

    static func open(_ path: String) throws -> RawConnection {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw failure(path, "socket") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(fd)
            warn("edgeswipectl: \(path): the socket path is too long")
            throw ExitCode(CtlExit.unavailable)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard rc == 0 else {
            let e = failure(path, "connect")
            close(fd)
            throw e
        }
        return RawConnection(fd: fd, path: path)
    }

    private static func failure(_ path: String, _ call: String) -> ExitCode {
        let reason = String(cString: strerror(errno))
        warn("edgeswipectl: \(path): \(call) failed: \(reason); is edgeswiped running?")
        return ExitCode(CtlExit.unavailable)
    }

    /// The next line, without its newline; `nil` when the daemon closed the connection.
    func readLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = read(fd, &chunk, chunk.count)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return nil }
            buffer.append(contentsOf: chunk[..<n])
        }
    }

    func send(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            offset += n
        }
    }

    /// Sends a request and returns the `reply` or `error` line that answers it.
    func request(_ line: String, id: String) throws -> String {
        send(line)
        let marker = #""id":"\#(id)""#
        while let reply = readLine() {
            if (reply.hasPrefix(#"{"type":"reply""#) || reply.hasPrefix(#"{"type":"error""#)) && reply.contains(marker) {
                return reply
            }
        }
        warn("edgeswipectl: \(path): the daemon closed the connection")
        throw ExitCode(CtlExit.unavailable)
    }
}
