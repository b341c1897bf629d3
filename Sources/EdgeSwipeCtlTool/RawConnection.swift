import ArgumentParser
import EdgeSwipeClient
import EdgeSwipeSystem
import SystemPackage

/// A plain blocking connection to the daemon, for commands that print the daemon's own bytes (`monitor
/// --json`, `status --json`): nothing is decoded and re-encoded on the way.
final class RawConnection {
    private let fd: FileDescriptor
    private var buffer: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 65536)
    let path: String

    private init(fd: FileDescriptor, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit { try? fd.close() }

    static func open(_ path: String) throws -> RawConnection {
        guard let address = try? UnixSocketAddress(path) else {
            warn("edgeswipectl: \(path): the socket path is too long")
            throw ExitCode(CtlExit.unavailable)
        }
        do {
            return RawConnection(fd: try .connectedUnixSocket(to: address), path: path)
        } catch {
            throw unreachable(path, ClientError.connecting(to: path, failedWith: error.rawValue))
        }
    }

    /// The next line, without its newline; `nil` when the daemon closed the connection.
    func readLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            guard let n = try? fd.read(into: &chunk, from: 0), n > 0 else { return nil }
            buffer.append(contentsOf: chunk[..<n])
        }
    }

    /// Sends `line` and a newline; a daemon that has gone shows as the end of its replies.
    func send(_ line: String) {
        try? fd.writeAll(Array((line + "\n").utf8))
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
