import SystemPackage

/// Why the server could not start, or a socket call failed. Each case names the path or descriptor and the
/// reason, so that the daemon can log it as is.
public enum ServerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Another process accepts connections on this socket: a daemon is already running.
    case socketInUse(path: String)
    /// Something other than a socket is at the path; it is never removed.
    case pathOccupied(path: String, what: String)
    /// A Unix socket path holds at most 107 bytes.
    case pathTooLong(path: String, bytes: Int)
    /// A system call failed.
    case system(call: String, subject: String, errno: Int32)
    /// The adopted descriptor is not a listening Unix stream socket.
    case notAListeningSocket(fd: Int32, reason: String)
    /// `start` was called on a server that was shut down.
    case shutDown
    /// ``EdgeSwipeServer/rebind()`` cannot bind this server's socket again.
    case cannotRebind(reason: String)

    public var description: String {
        switch self {
        case .socketInUse(let path):
            "\(path): another process is accepting connections on this socket (is edgeswiped already running?)"
        case .pathOccupied(let path, let what):
            "\(path): is \(what), not a socket; refusing to replace it"
        case .pathTooLong(let path, let bytes):
            "\(path): socket path is \(bytes) bytes; Unix sockets allow at most 107"
        case .system(let call, let subject, let errno):
            "\(subject): \(call) failed: \(Errno(rawValue: errno)) (errno \(errno))"
        case .notAListeningSocket(let fd, let reason):
            "file descriptor \(fd): \(reason)"
        case .shutDown:
            "the server was shut down"
        case .cannotRebind(let reason):
            "cannot bind the socket again: \(reason)"
        }
    }
}
