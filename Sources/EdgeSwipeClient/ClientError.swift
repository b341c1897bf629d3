public import EdgeSwipeProtocol
import Glibc

/// Why a client call failed.
public enum ClientError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Nobody listens at the socket: there is no socket file there, or only one that a daemon left when it stopped
    /// (`leftBehind`). The description says what a person can do about it.
    case noDaemon(path: String, leftBehind: Bool)
    /// The daemon closed the connection having said nothing, neither `hello` nor `goodbye`: that is how it refuses a
    /// peer its access policy does not admit.
    case notAdmitted(path: String, uid: UInt32)
    /// Could not connect for another reason (and, with a reconnect policy, gave up after its attempts).
    case connectionFailed(path: String, reason: String)
    /// The connection dropped before the reply arrived.
    case disconnected(path: String)
    case timedOut(op: String, after: Duration)
    /// The server answered with an `error` message.
    case server(code: ErrorCode, message: String, id: RequestID?)
    /// The reply lacked what the op promises.
    case unexpectedReply(op: String, reason: String)
    /// ``EdgeSwipeClient/close()`` was called.
    case closed
    case consumerTooSlow(buffered: Int)

    public var description: String {
        switch self {
        case .noDaemon(let path, let leftBehind):
            "no daemon is listening at \(path)\(leftBehind ? " (the socket file is left from one that stopped)" : ""). \(EdgeSwipeClient.noDaemonAdvice)"
        case .notAdmitted(let path, let uid):
            "\(path): the daemon closed the connection without a hello: its [access] policy does not admit uid \(uid); ask for read access (the socket's group, or access.read in the daemon's configuration)"
        case .connectionFailed(let path, let reason): "cannot connect to \(path): \(reason)"
        case .disconnected(let path): "\(path): the connection closed before the reply arrived"
        case .timedOut(let op, let after): "\(op): no reply within \(after)"
        case .server(let code, let message, _): "server error \(code): \(message)"
        case .unexpectedReply(let op, let reason): "\(op): unexpected reply: \(reason)"
        case .closed: "the client was closed"
        case .consumerTooSlow(let n): "the message consumer fell \(n) messages behind"
        }
    }

    /// The error for a `connect(2)` to `path` that failed with `errno`: ``noDaemon(path:leftBehind:)`` when nobody
    /// listens there (`ENOENT`, `ECONNREFUSED`), else ``connectionFailed(path:reason:)`` with the system's words.
    public static func connecting(to path: String, failedWith errno: Int32) -> ClientError {
        switch errno {
        case ENOENT: .noDaemon(path: path, leftBehind: false)
        case ECONNREFUSED: .noDaemon(path: path, leftBehind: true)
        case EACCES, EPERM: .connectionFailed(path: path, reason: "permission denied (the socket or its directory does not admit this user)")
        default: .connectionFailed(path: path, reason: String(cString: strerror(errno)))
        }
    }
}
