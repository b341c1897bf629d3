public import EdgeSwipeEngineWire
public import EdgeSwipeProtocol

/// What the daemon learns about a request besides the request itself.
public struct RequestContext: Sendable {
    public var peer: PeerCredentials
    public var access: AccessLevel
    /// Unique per connection for the life of the server, for logs.
    public var connectionID: UInt64
    public var requestID: RequestID?
    /// The server's picture when the request was read: what a `status` reply normally returns.
    public var snapshot: ServerSnapshot
}

/// The daemon's side of requests. The server answers `subscribe` and `ping` itself and checks access before
/// calling; everything else (which needs the engine) comes here. Replies go back to the requesting connection
/// with the request's `id`; a thrown ``RequestError`` becomes an `error` message with its code.
public protocol EdgeSwipeRequestHandler: Sendable {
    func handle(_ request: DaemonRequest, context: RequestContext) async throws(RequestError) -> ReplyResult
}
