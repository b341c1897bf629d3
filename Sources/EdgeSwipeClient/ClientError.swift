public import EdgeSwipeProtocol

/// Why a client call failed.
public enum ClientError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Could not connect (and, with a reconnect policy, gave up after its attempts).
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
        case .connectionFailed(let path, let reason): "\(path): cannot connect: \(reason)"
        case .disconnected(let path): "\(path): the connection closed before the reply arrived"
        case .timedOut(let op, let after): "\(op): no reply within \(after)"
        case .server(let code, let message, _): "server error \(code): \(message)"
        case .unexpectedReply(let op, let reason): "\(op): unexpected reply: \(reason)"
        case .closed: "the client was closed"
        case .consumerTooSlow(let n): "the message consumer fell \(n) messages behind"
        }
    }
}
