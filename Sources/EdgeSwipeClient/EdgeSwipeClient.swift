public import EdgeSwipeProtocol
import NIOConcurrencyHelpers
public import NIOCore
import NIOPosix

/// A client of the EdgeSwipe daemon.
///
/// ```swift
/// let client = EdgeSwipeClient(socketPath: "/run/user/1000/edgeswipe.sock")
/// for try await message in client.messages() {
///     if case .transition(let t) = message { print(t.id, t.phase, t.percent) }
/// }
/// ```
///
/// It connects on first use and, with a ``ReconnectPolicy``, reconnects after the daemon goes away; made with a
/// ``DaemonSocket/standard(user:system:)`` socket, it looks again before each attempt for the user instance's
/// socket, then the system's, and while no daemon is there it says so once (``Observation/waiting(_:)``) and tries
/// again as soon as a socket appears (``SocketWatch``). Every
/// connection starts with a `hello` (the state at that moment, `seq` restarting at 1), which the message stream
/// delivers, so a consumer resumes from the new snapshot; a subscription made with ``subscribe(_:ticks:)`` is
/// sent again on every new connection. Requests (``status()``, ``push(_:in:animated:)``, ...) wait for the reply
/// with their `id`, and throw the server's `error` as ``ClientError/server(code:message:id:)``.
///
/// Call ``close()`` when done: the connection (and its reconnection loop) keeps the client alive until then.
public final class EdgeSwipeClient: Sendable {
    /// Where the daemon is looked for.
    public let socket: DaemonSocket
    /// The path of the daemon's socket tried last (connected to, when ``isConnected``).
    public var socketPath: String { state.withLockedValue { $0.path } }
    public let configuration: ClientConfiguration
    private let group: any EventLoopGroup
    private let ownsGroup: Bool
    let state = NIOLockedValueBox(ClientState())

    /// Creates a client of the daemon at `socketPath`, only there; it connects on the first call of ``messages()`` or
    /// of a request. Without an event loop group it runs its own one-thread group.
    public convenience init(socketPath: String, configuration: ClientConfiguration = .init(), eventLoopGroup: (any EventLoopGroup)? = nil) {
        self.init(socket: .fixed(socketPath), configuration: configuration, eventLoopGroup: eventLoopGroup)
    }

    /// Creates a client of the daemon wherever `socket` says, looked at again before each attempt to connect.
    public init(socket: DaemonSocket, configuration: ClientConfiguration = .init(), eventLoopGroup: (any EventLoopGroup)? = nil) {
        self.socket = socket
        self.configuration = configuration
        if let eventLoopGroup {
            group = eventLoopGroup
            ownsGroup = false
        } else {
            group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            ownsGroup = true
        }
        state.withLockedValue { $0.path = socket.current(exists: Self.exists) }
    }

    /// Whether something is at `path` (a socket file, a daemon's or one left behind).
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    deinit {
        if ownsGroup { group.shutdownGracefully { _ in } }
    }

    /// The ``ClientError/connectionFailed(path:reason:)`` reason when the connection was made, the server spoke, and
    /// then closed it (one that closes having said nothing refuses: ``ClientError/notAdmitted(path:uid:)``).
    public static let closedByServer = "the server closed the connection"

    /// Whether a connection is up and has said hello.
    public var isConnected: Bool { state.withLockedValue { $0.channel != nil && $0.helloSeen } }

    // MARK: Messages

    /// Every message from now on, across reconnections, except replies and errors that answer this client's own
    /// requests. Each call returns an independent stream. It ends when the client is closed (normally), or
    /// throws when reconnecting gives up or the consumer falls too far behind.
    public func messages() -> MessageStream {
        let (stream, continuation) = AsyncThrowingStream<ServerMessage, any Error>.makeStream(
            bufferingPolicy: .bufferingOldest(configuration.messageBufferLimit))
        let registered: ClientError? = state.withLockedValue { s in
            if let failure = s.terminalError { return failure }
            let key = s.nextSubscriberKey
            s.nextSubscriberKey += 1
            s.subscribers[key] = continuation
            continuation.onTermination = { [weak self] _ in
                _ = self?.state.withLockedValue { $0.subscribers.removeValue(forKey: key) }
            }
            return nil
        }
        if let registered {
            if registered == .closed { continuation.finish() } else { continuation.finish(throwing: registered) }
        } else {
            startIfNeeded()
        }
        return MessageStream(base: stream)
    }

    /// What an observer is told, on the client's event loop, in order.
    public enum Observation: Sendable {
        /// A message, with the very bytes of its line (without the newline): what a relay passes on untouched.
        case message(ServerMessage, line: [UInt8])
        /// The connection dropped (a new one, with its own `hello`, follows if the client reconnects).
        case disconnected
        /// No daemon listens where the client looks (nothing at any of the socket's paths, or a socket file left
        /// by one that stopped): it waits for one. Said once per wait, when the client starts without a daemon or
        /// the first attempt after a lost connection finds none, so a follower can say `waiting for a daemon at A
        /// or B` once rather than at every attempt.
        case waiting(DaemonSocket)
    }

    /// Calls `body` for every message (except the replies and errors that answer this client's own requests) and
    /// every disconnection, synchronously on the client's event loop, before the message streams see them.
    ///
    /// For relays that fan the stream out further (the web bridge): no task hop and no second decoding. `body`
    /// must return quickly and never block, as it holds up the connection's reads.
    public func observe(_ body: @escaping @Sendable (Observation) -> Void) {
        state.withLockedValue { $0.observers.append(body) }
        startIfNeeded()
    }

    /// Calls `body`, on the client's event loop, for every line the client cannot read and skips: not JSON, a field
    /// missing or of the wrong type, or a number outside the range a client may rely on (``WireRanges``; a line
    /// with `"percent":1e300`), with the reason (`at percent: 1e+300 is outside 0...1`) and the line's bytes. The
    /// stream carries on with the next line. For a follower's log: the client itself logs nothing.
    public func observeUnreadableLines(_ body: @escaping @Sendable (_ reason: String, _ line: [UInt8]) -> Void) {
        state.withLockedValue { $0.unreadableObservers.append(body) }
    }

    /// Called on the event loop for a line that does not decode.
    func unreadable(_ reason: String, line: [UInt8]) {
        for observer in state.withLockedValue({ $0.unreadableObservers }) { observer(reason, line) }
    }

    // MARK: Requests

    /// Sends `request` and waits for the reply with its `id`.
    public func request(_ request: Request) async throws(ClientError) -> ReplyMessage {
        startIfNeeded()
        let op = request.op
        let timeout = configuration.requestTimeout
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<ReplyMessage, ClientError>, Never>) in
            let scheduled = state.withLockedValue { s -> (id: Int64, line: [UInt8], channel: (any Channel)?)? in
                if let failure = s.terminalError {
                    continuation.resume(returning: .failure(failure))
                    return nil
                }
                let id = s.nextRequestID
                s.nextRequestID += 1
                let line = request.line(id: .int(id))
                let connected = s.helloSeen ? s.channel : nil
                s.pending[id] = PendingRequest(op: op, line: line, written: connected != nil, continuation: continuation, timeout: nil)
                return (id, line, connected)
            }
            guard let scheduled else { return }
            let timer = group.next().scheduleTask(in: TimeAmount(timeout)) { [self] in
                _ = self.resolve(scheduled.id, .failure(.timedOut(op: op, after: timeout)))
            }
            state.withLockedValue { $0.pending[scheduled.id]?.timeout = timer }
            if let channel = scheduled.channel {
                write(scheduled.line, to: channel)
            }
        }
        return try result.get()
    }

    /// Protocol and server version, devices, configuration and state.
    public func status() async throws(ClientError) -> StatusInfo {
        let reply = try await request(.status)
        guard let version = reply.result.protocolVersion, let server = reply.result.server,
            let devices = reply.result.devices, let config = reply.result.config, let state = reply.result.state
        else { throw .unexpectedReply(op: "status", reason: "the result lacks protocol, server, devices, config or state") }
        return StatusInfo(protocolVersion: version, server: server, devices: devices, config: config, state: state)
    }

    /// The touch devices the daemon knows.
    public func devices() async throws(ClientError) -> [DeviceInfo] {
        let reply = try await request(.devices)
        guard let devices = reply.result.devices else { throw .unexpectedReply(op: "devices", reason: "no devices in the result") }
        return devices
    }

    /// Round-trips a `ping`: the daemon is up and this connection works.
    public func ping() async throws(ClientError) {
        _ = try await request(.ping)
    }

    /// Limits the stream to `topics` and run-out frames to `ticks`, now and after every reconnection.
    public func subscribe(_ topics: Set<Topic>, ticks: TickRate = .every) async throws(ClientError) {
        let subscription = Subscription(topics: TopicSet(topics), ticks: ticks)
        _ = try await request(.subscribe(subscription))
        // Remembered once in force, so that a reconnection repeats only what the server accepted.
        state.withLockedValue { $0.subscription = subscription }
    }

    /// Pushes `scene` onto the navigation container `container`; returns the transition started.
    @discardableResult
    public func push(_ scene: String, in container: String, animated: Bool = true) async throws(ClientError) -> TransitionID {
        try await control(ControlRequest(container: container, action: .push(scene: scene), animated: animated))
    }

    /// Pops the navigation container `container`.
    @discardableResult
    public func pop(in container: String, animated: Bool = true) async throws(ClientError) -> TransitionID {
        try await control(ControlRequest(container: container, action: .pop, animated: animated))
    }

    /// Pops the navigation container `container` to its root.
    @discardableResult
    public func popToRoot(in container: String, animated: Bool = true) async throws(ClientError) -> TransitionID {
        try await control(ControlRequest(container: container, action: .popToRoot, animated: animated))
    }

    /// Presents `scene` in the modal container `container`.
    @discardableResult
    public func present(
        _ scene: String, in container: String, style: PresentationStyle = .fullScreen, frame: NormalizedRect? = nil,
        animated: Bool = true
    ) async throws(ClientError) -> TransitionID {
        try await control(ControlRequest(container: container, action: .present(scene: scene, style: style, frame: frame), animated: animated))
    }

    /// Dismisses the top presentation of the modal container `container`.
    @discardableResult
    public func dismiss(in container: String, animated: Bool = true) async throws(ClientError) -> TransitionID {
        try await control(ControlRequest(container: container, action: .dismiss, animated: animated))
    }

    /// Selects a tab, by index or by the scene it shows, in the tabs container `container`.
    @discardableResult
    public func selectTab(_ tab: ControlRequest.TabSelection, in container: String, animated: Bool = true) async throws(ClientError) -> TransitionID {
        try await control(ControlRequest(container: container, action: .selectTab(tab), animated: animated))
    }

    /// Shows `child` of the custom container `container`.
    @discardableResult
    public func show(_ child: String, in container: String, animated: Bool = true) async throws(ClientError) -> TransitionID {
        try await control(ControlRequest(container: container, action: .show(child: child), animated: animated))
    }

    /// Sends a control request and returns the transition it started.
    @discardableResult
    public func control(_ request: ControlRequest) async throws(ClientError) -> TransitionID {
        let reply = try await self.request(.control(request))
        guard let id = reply.result.transition else {
            throw .unexpectedReply(op: request.op, reason: "no transition id in the result")
        }
        return TransitionID(id)
    }

    /// Sets which way the user sees touch devices (`set-rotation`): all touchscreens, one device, or the
    /// touchscreens of one output. Returns the devices turned now and those that turn once their fingers lift.
    @discardableResult
    public func setRotation(
        _ setting: RotationSetting, on target: RotationTarget = .allTouchscreens
    ) async throws(ClientError) -> (applied: [DeviceID], pending: [DeviceID]) {
        let request = RotationRequest(setting: setting, target: target)
        let reply = try await self.request(.daemon(.setRotation(request)))
        guard let applied = reply.result.applied, let pending = reply.result.pending else {
            throw .unexpectedReply(op: "set-rotation", reason: "no applied/pending devices in the result")
        }
        return (applied.map(DeviceID.init), pending.map(DeviceID.init))
    }

    /// Closes the connection, ends every message stream and fails waiting requests with ``ClientError/closed``.
    public func close() async {
        let (task, channel) = state.withLockedValue { s -> (Task<Void, Never>?, (any Channel)?) in
            s.closed = true
            return (s.connectionTask, s.channel)
        }
        task?.cancel()
        try? await channel?.close()
        await task?.value
        finishEverything(with: .closed)
    }

    // MARK: Connection

    private func startIfNeeded() {
        let start = state.withLockedValue { s -> Bool in
            guard !s.started, s.terminalError == nil else { return false }
            s.started = true
            return true
        }
        guard start else { return }
        let task = Task { await self.connectionLoop() }
        state.withLockedValue { $0.connectionTask = task }
    }

    private func connectionLoop() async {
        var attempt = 0
        // Whether this wait for a daemon was said (``Observation/waiting(_:)``): once per wait.
        var saidWaiting = false
        while !state.withLockedValue({ $0.closed }) {
            let failure: ClientError
            // Looked at again each time: the user instance may have come up (or gone) since.
            let socketPath = socket.current(exists: Self.exists)
            let (hellosBefore, spokenBefore) = state.withLockedValue { s in
                s.path = socketPath
                return (s.hellos, s.hellos + s.goodbyes)
            }
            do {
                let channel = try await ClientBootstrap(group: group)
                    .channelInitializer { [self] channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(
                                ClientHandler(client: self, maxLineBytes: self.configuration.maxLineBytes))
                        }
                    }
                    .connect(unixDomainSocketPath: socketPath).get()
                if state.withLockedValue({ $0.closed }) { try? await channel.close() }
                try? await channel.closeFuture.get()
                let (hellos, spoken) = state.withLockedValue { ($0.hellos, $0.hellos + $0.goodbyes) }
                if hellos > hellosBefore {
                    attempt = 0
                    saidWaiting = false
                }
                failure = spoken > spokenBefore
                    ? .connectionFailed(path: socketPath, reason: Self.closedByServer)
                    : .notAdmitted(path: socketPath, uid: UInt32(getuid()))
            } catch let error as IOError {
                failure = .connecting(to: socketPath, failedWith: error.errnoCode)
            } catch {
                failure = .connectionFailed(path: socketPath, reason: "\(error)")
            }
            if state.withLockedValue({ $0.closed }) { break }
            guard let policy = configuration.reconnect, attempt < (policy.maxAttempts ?? Int.max) else {
                finishEverything(with: failure)
                return
            }
            guard case .noDaemon(_, let leftBehind) = failure else {
                do { try await Task.sleep(for: policy.delay(forAttempt: attempt)) } catch { break }
                attempt += 1
                continue
            }
            if !saidWaiting {
                saidWaiting = true
                let (observers, socket) = (state.withLockedValue { $0.observers }, socket)
                group.next().execute { for observer in observers { observer(.waiting(socket)) } }
            }
            // No daemon: until the backoff's next attempt, or until something changes where its socket appears.
            let alarm = Alarm()
            let watch = await SocketWatch.start(watching: socket.paths, on: group) { alarm.ring() }
            // A socket that appeared between the attempt and the watch would not be seen by it.
            if !leftBehind && socket.paths.contains(where: Self.exists) { alarm.ring() }
            await alarm.wait(upTo: policy.delay(forAttempt: attempt), on: group.next())
            await watch?.stop()
            if Task.isCancelled { break }
            // A change there starts the backoff over: a socket bound and not listening yet refuses for a moment.
            attempt = alarm.wasRung ? 0 : attempt + 1
        }
    }

    private func write(_ line: [UInt8], to channel: any Channel) {
        var buffer = channel.allocator.buffer(capacity: line.count)
        buffer.writeBytes(line)
        channel.writeAndFlush(buffer, promise: nil)
    }

    /// Called on the event loop when a connection is up, before anything is read from it.
    func connected(_ channel: any Channel) {
        state.withLockedValue { s in
            s.channel = channel
            s.helloSeen = false
        }
    }

    /// Called on the event loop when the connection is gone: requests written on it can no longer be answered.
    func disconnected(_ channel: any Channel) {
        state.withLockedValue { s in
            if s.channel === channel {
                s.channel = nil
                s.helloSeen = false
            }
        }
        failPendingWrites(with: .disconnected(path: socketPath))
        for observer in state.withLockedValue({ $0.observers }) { observer(.disconnected) }
    }

    /// Called on the event loop for each decoded line, in order.
    func receive(_ message: ServerMessage, line: [UInt8], on channel: any Channel) {
        var resolved: (Int64, Result<ReplyMessage, ClientError>)? = nil
        switch message {
        case .reply(let r):
            if r.id == Self.resubscribeID { return }
            if case .int(let id)? = r.id { resolved = (id, .success(r)) }
        case .error(let e):
            if case .int(let id)? = e.id { resolved = (id, .failure(.server(code: e.code, message: e.message, id: e.id))) }
        case .hello:
            sayHelloBack(on: channel)
        case .goodbye:
            state.withLockedValue { $0.goodbyes += 1 }
        case .gesture, .transition, .lifecycle, .presentation, .interaction, .state, .device, .config, .unknown:
            break
        }
        if let (id, result) = resolved, resolve(id, result) { return }
        for observer in state.withLockedValue({ $0.observers }) { observer(.message(message, line: line)) }
        let overflowed = state.withLockedValue { s -> [Int] in
            if let topic = message.topic, let subscription = s.subscription, !subscription.topics.contains(topic) { return [] }
            var full: [Int] = []
            for (key, continuation) in s.subscribers {
                if case .dropped = continuation.yield(message) { full.append(key) }
            }
            return full
        }
        for key in overflowed {
            let continuation = state.withLockedValue { $0.subscribers.removeValue(forKey: key) }
            continuation?.finish(throwing: ClientError.consumerTooSlow(buffered: configuration.messageBufferLimit))
        }
    }

    /// The id of the subscription re-sent after a reconnection; its reply is not passed on.
    static let resubscribeID = RequestID.string("edgeswipe-client-resubscribe")

    /// After a hello: re-send the subscription and the requests that waited for a connection.
    private func sayHelloBack(on channel: any Channel) {
        let lines = state.withLockedValue { s -> [[UInt8]] in
            s.helloSeen = true
            s.hellos += 1
            var lines: [[UInt8]] = []
            if let subscription = s.subscription {
                lines.append(Request.subscribe(subscription).line(id: Self.resubscribeID))
            }
            for id in s.pending.keys.sorted() where !s.pending[id]!.written {
                s.pending[id]!.written = true
                lines.append(s.pending[id]!.line)
            }
            return lines
        }
        for line in lines { write(line, to: channel) }
    }

    @discardableResult
    private func resolve(_ id: Int64, _ result: Result<ReplyMessage, ClientError>) -> Bool {
        guard let pending = state.withLockedValue({ $0.pending.removeValue(forKey: id) }) else { return false }
        pending.timeout?.cancel()
        pending.continuation.resume(returning: result)
        return true
    }

    /// Fails the requests that were written on a connection that is gone; the others wait for the next one.
    private func failPendingWrites(with error: ClientError) {
        let failed = state.withLockedValue { s -> [PendingRequest] in
            let ids = s.pending.filter { $0.value.written }.map(\.key)
            return ids.compactMap { s.pending.removeValue(forKey: $0) }
        }
        for p in failed {
            p.timeout?.cancel()
            p.continuation.resume(returning: .failure(error))
        }
    }

    private func finishEverything(with error: ClientError) {
        let (pending, subscribers) = state.withLockedValue { s in
            if s.terminalError == nil { s.terminalError = error }
            defer {
                s.pending.removeAll()
                s.subscribers.removeAll()
            }
            return (Array(s.pending.values), Array(s.subscribers.values))
        }
        for p in pending {
            p.timeout?.cancel()
            p.continuation.resume(returning: .failure(error))
        }
        for s in subscribers {
            if error == .closed { s.finish() } else { s.finish(throwing: error) }
        }
    }
}

/// A request waiting for its reply.
struct PendingRequest {
    let op: String
    let line: [UInt8]
    /// Whether it went out on the current connection (else it goes out after the next hello).
    var written: Bool
    let continuation: CheckedContinuation<Result<ReplyMessage, ClientError>, Never>
    var timeout: Scheduled<Void>?
}

struct ClientState {
    /// The socket path tried last.
    var path = ""
    var started = false
    var closed = false
    /// Set once the client can no longer work (closed, or reconnecting gave up).
    var terminalError: ClientError?
    var channel: (any Channel)?
    /// Whether the current connection has said hello (requests wait for it).
    var helloSeen = false
    /// Hellos received over the client's life: a connection that said hello resets the backoff.
    var hellos = 0
    /// Goodbyes received: with the hellos, whether a connection that closed had said anything.
    var goodbyes = 0
    var connectionTask: Task<Void, Never>?
    var subscription: Subscription?
    var pending: [Int64: PendingRequest] = [:]
    var nextRequestID: Int64 = 1
    var subscribers: [Int: AsyncThrowingStream<ServerMessage, any Error>.Continuation] = [:]
    var nextSubscriberKey = 0
    var observers: [@Sendable (EdgeSwipeClient.Observation) -> Void] = []
    var unreadableObservers: [@Sendable (String, [UInt8]) -> Void] = []
}

/// The reply to `status`.
public struct StatusInfo: Hashable, Sendable {
    public var protocolVersion: Int
    public var server: String
    public var devices: [DeviceInfo]
    public var config: ConfigSummary
    public var state: StateInfo
}

/// The messages of an ``EdgeSwipeClient``, failing with ``ClientError``.
public struct MessageStream: AsyncSequence, Sendable {
    public typealias Element = ServerMessage
    public typealias Failure = ClientError

    let base: AsyncThrowingStream<ServerMessage, any Error>

    public func makeAsyncIterator() -> Iterator { Iterator(base: base.makeAsyncIterator()) }

    public struct Iterator: AsyncIteratorProtocol {
        public typealias Element = ServerMessage
        public typealias Failure = ClientError

        var base: AsyncThrowingStream<ServerMessage, any Error>.Iterator

        public mutating func next() async throws(ClientError) -> ServerMessage? {
            do {
                return try await base.next()
            } catch let error as ClientError {
                throw error
            } catch {
                throw .closed
            }
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async throws(ClientError) -> ServerMessage? {
            do {
                return try await base.next(isolation: actor)
            } catch let error as ClientError {
                throw error
            } catch {
                throw .closed
            }
        }
    }
}
