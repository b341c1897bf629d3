public import EdgeSwipeCore
public import EdgeSwipeProtocol
import EdgeSwipeSystem
import Glibc
public import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SystemPackage

/// How a re-evaluation of access changed the open connections.
public struct AccessChange: Hashable, Sendable {
    /// Connections closed with a `goodbye`: no longer admitted.
    public var revoked = 0
    /// Connections that could control and now only read.
    public var downgraded = 0
    /// Connections that could only read and now control.
    public var upgraded = 0
    public init() {}
}

/// State shared by the publisher, the acceptor and every connection.
final class ServerCore: Sendable {
    struct Registry {
        var snapshot: ServerSnapshot
        var connections: [UInt64: Connection] = [:]
        var nextConnectionID: UInt64 = 1
        var closing = false
        /// Sized from the previous publish, so that a steady stream allocates each batch once. (A batch is not
        /// reused: whether the event loops have released it cannot be known without synchronising with them.)
        var batchCapacity = 4096
        var accepted = 0
        var rejected = 0
        var cutOff = 0
        /// Coalesced counts of connections that have gone.
        var retiredCoalesced = 0
        /// Who may connect and control, and the facts it depends on; both change at run time.
        var policy: AccessPolicy
        var accessContext: AccessContext
        /// Connections admitted and not yet closed, counted from the accept (before they register), against
        /// `maxClients`.
        var admitted = 0
        /// `maxClients` and `stallTimeout`, as configured or last set (``EdgeSwipeServer/setClientLimits(maxClients:stallTimeout:)``).
        var maxClients: Int
        var stallTimeout: Duration
        var refusedForCapacity = 0
        var revoked = 0
        /// Departures since ``ServerConfiguration/clientsDeparted`` was last called (a cut-off client counts as
        /// a burst), the time of the last one, and whether a call is scheduled.
        var departures = 0
        var lastDepartureUS: UInt64 = 0
        var departureCallScheduled = false
        /// The lines of one connection's direct write are put together here (publishing holds this lock).
        var directScratch: [UInt8] = []
    }

    let configuration: ServerConfiguration
    let logger: Logger
    let handler: (any EdgeSwipeRequestHandler)?
    /// The policy that `nil` stands for in ``EdgeSwipeServer/applyAccessPolicy(_:revokedReason:)``: the daemon's
    /// uid and the socket's group.
    let defaultPolicy: AccessPolicy
    /// The gid of the group that owns the socket (what a grant's ``AccessGrant/socketGroup`` stands for).
    let socketGroup: UInt32
    let registry: NIOLockedValueBox<Registry>
    /// One per event loop of the group.
    let fanOuts: [LoopFanOut]
    /// ConnectionHandler instances alive (see ``ServerStatistics/liveConnectionHandlers``).
    let liveHandlers = NIOLockedValueBox(0)

    init(
        configuration: ServerConfiguration, snapshot: ServerSnapshot, handler: (any EdgeSwipeRequestHandler)?,
        policy: AccessPolicy, defaultPolicy: AccessPolicy, socketGroup: UInt32, eventLoops: [any EventLoop], logger: Logger
    ) {
        self.configuration = configuration
        self.logger = logger
        self.handler = handler
        self.defaultPolicy = defaultPolicy
        self.socketGroup = socketGroup
        self.registry = NIOLockedValueBox(
            Registry(
                snapshot: snapshot, policy: policy, accessContext: configuration.accessContext,
                maxClients: configuration.maxClients, stallTimeout: configuration.stallTimeout))
        self.fanOuts = eventLoops.map(LoopFanOut.init(eventLoop:))
    }

    /// The fan-out of `eventLoop`; `nil` for a loop outside the group, whose connections are then woken one by one.
    func fanOut(for eventLoop: any EventLoop) -> LoopFanOut? {
        fanOuts.first { $0.eventLoop === eventLoop }
    }

    /// Hands `shared` to every connection, waking each event loop at most once: the first
    /// ``ServerConfiguration/directWriteLimit`` idle connections are written to here, on the publisher's thread
    /// (one hop); the others, and every busy one, are left to their event loop.
    private func fanOut(_ shared: SharedBatch, to connections: Dictionary<UInt64, Connection>.Values, scratch: inout [UInt8]) {
        var wake = false
        var direct = configuration.directWriteLimit
        for connection in connections {
            if connection.deliverDeferringWake(shared, directly: direct > 0, scratch: &scratch) { wake = true }
            direct -= 1
        }
        guard wake else { return }
        for fanOut in fanOuts { fanOut.wakeIfPending() }
    }

    func nextConnectionID() -> UInt64 {
        registry.withLockedValue { r in
            defer { r.nextConnectionID += 1 }
            return r.nextConnectionID
        }
    }

    /// Adds a connection and queues its hello, atomically with respect to publishing: the hello's snapshot
    /// includes exactly the events published before it, and the connection receives exactly those after it.
    /// Its access is decided here, under the same lock as a policy change, so that a connection accepted under
    /// the old policy and registered after the change is judged by the new one. `nil`: not admitted (any more).
    func register(_ connection: Connection) -> AccessLevel? {
        let registered = registry.withLockedValue { r -> (level: AccessLevel, count: Int)? in
            guard !r.closing else { return nil }
            let level = r.policy.level(for: connection.peer, in: r.accessContext)
            guard level > .none else {
                r.rejected += 1
                return nil
            }
            connection.access.withLockedValue { $0 = level }
            var batch = EncodedBatch(capacity: 4096)
            batch.appendHello(
                r.snapshot, access: AccessInfo(read: true, control: level >= .control),
                maxLineBytes: configuration.maxLineBytes, time: configuration.clock())
            r.connections[connection.id] = connection
            r.accepted += 1
            connection.deliver(SharedBatch(batch))
            return (level, r.connections.count)
        }
        guard let registered else { return nil }
        configuration.connectionRegistered?(registered.count)
        return registered.level
    }

    /// What `peer` may do under the policy in force now.
    func accessLevel(for peer: PeerCredentials) -> AccessLevel {
        registry.withLockedValue { $0.policy.level(for: peer, in: $0.accessContext) }
    }

    /// Takes a place for a new connection; false when `maxClients` are connected.
    func reserveClientSlot() -> Bool {
        registry.withLockedValue { r in
            guard r.admitted < r.maxClients else {
                r.refusedForCapacity += 1
                return false
            }
            r.admitted += 1
            return true
        }
    }

    func releaseClientSlot() { registry.withLockedValue { $0.admitted -= 1 } }

    /// Changes the policy or its inputs, then judges every open connection again from the credentials it
    /// connected with: one no longer admitted gets `goodbye` with `revokedReason` (after what is already queued for
    /// it; nothing more is queued) and is closed; the others get their new level at once, so a controller demoted
    /// to a reader has its next control request refused. The one path for every change of who may connect: a
    /// reloaded `[access]`, and the seat's active session changing.
    func reevaluateAccess(
        policy: AccessPolicy?, context: AccessContext?, revokedReason: GoodbyeReason
    ) -> AccessChange {
        var change = AccessChange()
        let revoked = registry.withLockedValue { r -> [Connection] in
            if let policy { r.policy = policy }
            if let context { r.accessContext = context }
            var revoked: [Connection] = []
            for c in r.connections.values {
                let level = r.policy.level(for: c.peer, in: r.accessContext)
                let old = c.access.withLockedValue { a in defer { a = level }; return a }
                if level == .none {
                    if old > .none { revoked.append(c) }
                } else if level < old {
                    change.downgraded += 1
                } else if level > old {
                    change.upgraded += 1
                }
            }
            r.revoked += revoked.count
            return revoked
        }
        change.revoked = revoked.count
        guard !revoked.isEmpty else { return change }
        var goodbye = EncodedBatch(capacity: 256)
        goodbye.appendGoodbye(
            revokedReason, message: "the access policy no longer admits this client (\(revokedReason.rawValue))",
            time: configuration.clock())
        let shared = SharedBatch(goodbye)
        for c in revoked {
            logger.notice("closing a connection the access policy no longer admits", metadata: ["connection": "\(c.id)", "peer": "\(c.peer)", "reason": "\(revokedReason.rawValue)"])
            c.finish(with: shared, timeout: configuration.goodbyeTimeout, immediately: true)
        }
        return change
    }

    func unregister(_ connection: Connection) {
        let coalesced = connection.outbox.withLockedValue { $0.coalesced }
        registry.withLockedValue { r in
            if r.connections.removeValue(forKey: connection.id) != nil { r.retiredCoalesced += coalesced }
        }
        noteDeparture(weight: 1)
    }

    func countRejected() { registry.withLockedValue { $0.rejected += 1 } }
    func countCutOff() {
        registry.withLockedValue { $0.cutOff += 1 }
        noteDeparture(weight: Self.departureBurst)
    }

    /// Departures that make a burst worth releasing memory after.
    static let departureBurst = 16
    /// How long no client may have left before the burst counts as over, in microseconds.
    static let departureQuietUS: UInt64 = 1_000_000

    /// Counts a departure; once they make a burst, schedules ``ServerConfiguration/clientsDeparted`` for when they
    /// have stopped. Only ever one timer, and only after clients left: an idle server schedules nothing.
    private func noteDeparture(weight: Int) {
        guard configuration.clientsDeparted != nil, let loop = fanOuts.first?.eventLoop else { return }
        let schedule = registry.withLockedValue { r -> Bool in
            r.departures += weight
            r.lastDepartureUS = MonotonicClock.now().microseconds
            guard r.departures >= Self.departureBurst, !r.departureCallScheduled, !r.closing else { return false }
            r.departureCallScheduled = true
            return true
        }
        if schedule { scheduleDepartureCall(on: loop, in: Self.departureQuietUS) }
    }

    private func scheduleDepartureCall(on loop: any EventLoop, in microseconds: UInt64) {
        loop.scheduleTask(in: .microseconds(Int64(microseconds))) { [self] in
            let wait = registry.withLockedValue { r -> UInt64? in
                let quietFor = MonotonicClock.now().microseconds &- r.lastDepartureUS
                if quietFor < Self.departureQuietUS && !r.closing { return Self.departureQuietUS - quietFor }
                r.departures = 0
                r.departureCallScheduled = false
                return nil
            }
            if let wait {
                scheduleDepartureCall(on: loop, in: wait)
            } else {
                configuration.clientsDeparted?()
            }
        }
    }

    func snapshot() -> ServerSnapshot { registry.withLockedValue { $0.snapshot } }

    /// Encodes `events` once, updates the snapshot, and hands the batch to every connection.
    func publish<S: Sequence>(_ events: S) where S.Element == EngineEvent {
        registry.withLockedValue { r in
            guard !r.closing else { return }
            // Nobody to send to: keep the snapshot current for the next hello, and encode nothing.
            guard !r.connections.isEmpty else {
                for event in events { r.snapshot.apply(event) }
                return
            }
            var batch = EncodedBatch(capacity: r.batchCapacity)
            for event in events {
                r.snapshot.apply(event)
                batch.append(event)
            }
            guard !batch.isEmpty else { return }
            r.batchCapacity = max(1024, batch.byteCount)
            fanOut(SharedBatch(batch), to: r.connections.values, scratch: &r.directScratch)
        }
    }

    func publish(_ build: (inout EncodedBatch, inout ServerSnapshot) -> Void) {
        registry.withLockedValue { r in
            guard !r.closing else { return }
            var batch = EncodedBatch(capacity: 1024)
            build(&batch, &r.snapshot)
            fanOut(SharedBatch(batch), to: r.connections.values, scratch: &r.directScratch)
        }
    }
}

/// The socket server: accepts clients that pass the access policy, says hello, streams every published engine
/// event to every subscribed client, and hands requests that need the engine to the daemon's handler.
///
/// The daemon owns the engine; the server is one more consumer of its events. Call ``publish(_:)`` from the
/// input thread after each engine step: it encodes each message once and returns without waiting for any
/// client. A slow client has its progress updates coalesced (latest wins) and is disconnected once its backlog
/// passes the bound, without ever holding up the others.
///
/// Connections are accepted on a dedicated thread that sleeps in `ppoll` (no timers while idle), so that the
/// peer's credentials are checked on the raw socket before the connection reaches the event loop or a single
/// byte is sent.
public final class EdgeSwipeServer: Sendable {
    let core: ServerCore
    private let group: MultiThreadedEventLoopGroup
    private let acceptor: Acceptor
    private let stopped = NIOLockedValueBox(false)

    /// The path of the socket, when it has one (a bound path, or the path of an adopted socket).
    public let socketPath: String?
    /// The policy in force (the default one resolved against the socket's group).
    public var accessPolicy: AccessPolicy { core.registry.withLockedValue { $0.policy } }
    /// The facts the policy is evaluated with now.
    public var accessContext: AccessContext { core.registry.withLockedValue { $0.accessContext } }

    private init(core: ServerCore, group: MultiThreadedEventLoopGroup, acceptor: Acceptor, socketPath: String?) {
        self.core = core
        self.group = group
        self.acceptor = acceptor
        self.socketPath = socketPath
    }

    /// Binds or adopts the listening socket and starts accepting.
    ///
    /// - Parameters:
    ///   - snapshot: the state a client's hello describes until events change it (`Engine.snapshot`,
    ///     `Engine.knownDevices` and the configuration summary).
    ///   - handler: answers `status`, `devices` and the control ops; without one they get `unavailable`.
    public static func start(
        configuration: ServerConfiguration, snapshot: ServerSnapshot,
        handler: (any EdgeSwipeRequestHandler)?, logger: Logger
    ) throws(ServerError) -> EdgeSwipeServer {
        let listener: ListeningSocket
        let path: String?
        switch configuration.listener {
        case .path(let p):
            listener = try ListeningSocket.bind(path: p, mode: configuration.socketMode, backlog: configuration.listenBacklog)
            path = p
        case .fileDescriptor(let fd):
            listener = try ListeningSocket.adopt(fd: fd)
            do { try listener.fd.listen(backlog: configuration.listenBacklog) } catch {
                throw .notAListeningSocket(fd: fd, reason: "listen failed: \(error)")
            }
            path = listener.fd.boundUnixPath
        }
        let defaultPolicy = AccessPolicy.owner(uid: UInt32(getuid()), socketGroup: listener.group)
        let policy = configuration.access?.resolved(socketGroup: listener.group) ?? defaultPolicy
        let group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, configuration.eventLoopThreads))
        let core = ServerCore(
            configuration: configuration, snapshot: snapshot, handler: handler, policy: policy,
            defaultPolicy: defaultPolicy, socketGroup: listener.group, eventLoops: Array(group.makeIterator()), logger: logger)
        let acceptor: Acceptor
        do {
            acceptor = try Acceptor(listener: listener, core: core, group: group)
            try acceptor.start()
        } catch {
            listener.close()
            try? group.syncShutdownGracefully()
            throw error
        }
        // What the seat's active session may do: "read", "read+control", or "none" (never an empty field).
        let sessionGrant = [policy.read.activeSession ? "read" : nil, policy.control.activeSession ? "control" : nil]
            .compactMap { $0 }.joined(separator: "+")
        logger.info(
            "listening",
            metadata: [
                "socket": "\(path ?? "fd \(listener.fd.rawValue)")",
                "read_uids": "\(policy.read.uids.sorted())", "read_gids": "\(policy.read.gids.sorted())",
                "control_uids": "\(policy.control.uids.sorted())", "control_gids": "\(policy.control.gids.sorted())",
                "active_session": "\(sessionGrant.isEmpty ? "none" : sessionGrant)",
            ])
        return EdgeSwipeServer(core: core, group: group, acceptor: acceptor, socketPath: path)
    }

    /// Streams engine events to every client (trace events are not sent). Thread-safe and non-blocking: each
    /// message is encoded once, here, and queued for every connection; the event loops write them out.
    public func publish<S: Sequence>(_ events: S) where S.Element == EngineEvent {
        core.publish(events)
    }

    /// The same for an array, which is what the daemon's input thread hands over. Called from another module the
    /// generic version runs unspecialized, and iterating it allocated once per event (docs/PERFORMANCE.md); here
    /// the compiler specializes it.
    public func publish(_ events: [EngineEvent]) {
        core.publish(events)
    }

    /// Streams one engine event; see ``publish(_:)``.
    public func publish(_ event: EngineEvent) {
        core.publish(CollectionOfOne(event))
    }

    /// Tells clients how a configuration reload went; a reloaded summary replaces the one in later hellos.
    public func publishConfig(_ result: ConfigResult, message: String, config: ConfigSummary?) {
        let time = core.configuration.clock()
        core.publish { batch, snapshot in
            if result == .reloaded, let config { snapshot.config = config }
            batch.appendConfig(result, message: message, config: config, time: time)
        }
    }

    /// The server's current picture (what a new client's hello would describe).
    public func snapshot() -> ServerSnapshot { core.snapshot() }

    /// Puts `policy` in force (`nil`: the default, the daemon's uid and the socket's group) for new connections
    /// and for every open one: a connection it no longer admits gets `goodbye` with `revokedReason` and is
    /// closed; one whose rights shrink from control to read loses control at once (its next control request is
    /// `forbidden`); one whose rights grow gains them at once.
    @discardableResult
    public func applyAccessPolicy(_ policy: AccessPolicy?, revokedReason: GoodbyeReason = .accessRevoked) -> AccessChange {
        let change = core.reevaluateAccess(
            policy: policy?.resolved(socketGroup: core.socketGroup) ?? core.defaultPolicy, context: nil,
            revokedReason: revokedReason)
        let p = accessPolicy
        core.logger.info(
            "access policy applied",
            metadata: [
                "read_uids": "\(p.read.uids.sorted())", "read_gids": "\(p.read.gids.sorted())",
                "control_uids": "\(p.control.uids.sorted())", "control_gids": "\(p.control.gids.sorted())",
                "closed": "\(change.revoked)", "now_read_only": "\(change.downgraded)", "now_control": "\(change.upgraded)",
            ])
        return change
    }

    /// Changes how many clients may be connected at once (those connected past a lowered limit stay) and how long
    /// a client may read nothing before it is let go (from its next stall on).
    public func setClientLimits(maxClients: Int, stallTimeout: Duration) {
        core.registry.withLockedValue { r in
            r.maxClients = max(1, maxClients)
            r.stallTimeout = stallTimeout
        }
    }

    /// Replaces the facts the policy is evaluated with (the active session's uid, for grants that admit it) and
    /// judges every open connection again, through the same path as ``applyAccessPolicy(_:revokedReason:)``:
    /// a connection no longer admitted gets `goodbye` with `revokedReason` (the caller says why, e.g. that the
    /// session it belongs to is no longer active) and is closed.
    @discardableResult
    public func updateAccessContext(_ context: AccessContext, revokedReason: GoodbyeReason) -> AccessChange {
        core.reevaluateAccess(policy: nil, context: context, revokedReason: revokedReason)
    }

    /// Binds the socket path again and accepts on the new socket: for when the socket file was deleted while the
    /// server runs (the old socket still listens, but nobody can reach it any more). Clients already connected are
    /// not affected; connections queued on the old socket are still accepted. Only for a path the server bound
    /// itself: a socket that systemd passed belongs to its socket unit. Fails like ``start(configuration:snapshot:handler:logger:)``
    /// does when something else now occupies the path (a live socket, or a file that is not a socket).
    public func rebind() throws(ServerError) {
        guard case .path(let path) = core.configuration.listener else {
            throw .cannotRebind(reason: "the socket came from systemd (socket activation); restart its socket unit")
        }
        guard !stopped.withLockedValue({ $0 }) else { throw .shutDown }
        let fresh = try ListeningSocket.bind(
            path: path, mode: core.configuration.socketMode, backlog: core.configuration.listenBacklog)
        guard acceptor.replace(with: fresh) else {
            fresh.close()
            throw .shutDown
        }
        core.logger.notice("listening again", metadata: ["socket": "\(path)"])
    }

    /// Runs `companion` on the accepting thread, which sleeps in one `ppoll` on the listening socket and the
    /// companion's descriptor (the daemon watches its socket file this way rather than on a thread of its own):
    /// `service` is called once now, then whenever the descriptor is readable or the companion's deadline passes.
    /// Keep `service` short; new clients wait while it runs. One companion at a time (a second replaces the first).
    public func attach(_ companion: any AcceptLoopCompanion) {
        acceptor.attach(companion)
    }

    /// Stops servicing the companion; when this returns, `service` is not running and will not be called again.
    public func detachCompanion() {
        acceptor.detach()
    }

    /// Counters for logs and tests.
    public var statistics: ServerStatistics {
        core.registry.withLockedValue { r in
            var coalesced = r.retiredCoalesced
            var direct = 0, partial = 0, idle = 0
            for c in r.connections.values {
                c.outbox.withLockedValue { o in
                    coalesced += o.coalesced
                    direct += o.directWrites
                    partial += o.partialDirectWrites
                    if o.isIdle && o.directSocket != nil { idle += 1 }
                }
            }
            return ServerStatistics(
                connections: r.connections.count, accepted: r.accepted, rejectedPeers: r.rejected,
                disconnectedForBacklog: r.cutOff, coalescedMessages: coalesced,
                refusedForCapacity: r.refusedForCapacity, revokedConnections: r.revoked,
                liveConnectionHandlers: core.liveHandlers.withLockedValue { $0 },
                directWrites: direct, partialDirectWrites: partial, idleConnections: idle)
        }
    }

    /// Stops accepting, sends `goodbye` to every client after what is already queued for it, waits for the
    /// connections to drain and close (each at most `goodbyeTimeout`), removes the socket file if we created
    /// it, and stops the event loops. Publish the engine's final events (for example after `Engine.cancelAll`)
    /// before calling this, so clients see every transition end.
    public func shutdown(message: String = "the server is shutting down") async {
        guard stopped.withLockedValue({ s in defer { s = true }; return !s }) else { return }
        await acceptor.stop()
        acceptor.closeListener()  // the socket in use now: the original, or the one ``rebind()`` made
        let connections = core.registry.withLockedValue { r in
            r.closing = true
            return Array(r.connections.values)
        }
        var goodbye = EncodedBatch(capacity: 256)
        goodbye.appendGoodbye(.shutdown, message: message, time: core.configuration.clock())
        let shared = SharedBatch(goodbye)
        for c in connections { c.finish(with: shared, timeout: core.configuration.goodbyeTimeout) }
        for c in connections { try? await c.channel.closeFuture.get() }
        core.logger.info("stopped", metadata: ["clients_said_goodbye": "\(connections.count)"])
        try? await group.shutdownGracefully()
    }
}

/// Work that shares the server's accepting thread (``EdgeSwipeServer/attach(_:)``): a descriptor to wait on, a
/// deadline, and what to do.
public protocol AcceptLoopCompanion: AnyObject, Sendable {
    /// Waited on for readability alongside the listening socket.
    var descriptor: Int32 { get }
    /// When to be serviced even if the descriptor stays quiet; `nil`: only when it is readable.
    var nextDeadline: MonotonicInstant? { get }
    /// Called on the accepting thread: once when attached, then whenever the descriptor is readable or the
    /// deadline has passed. Reads its descriptor without blocking.
    func service(now: MonotonicInstant)
}

/// Accepts connections on its own thread, checks each peer's credentials on the raw socket, and hands the
/// admitted ones to NIO. It sleeps in a ``DescriptorWaiter`` until a client connects or ``stop()`` wakes it.
///
/// Why not accept on NIO's event loop: the credentials are checked on the raw socket before NIO sees it, and the
/// publisher's direct writes need a descriptor of the accepted socket of their own (``OutboxState``); NIO does
/// not hand out the descriptor of a channel it accepted.
final class Acceptor: Sendable {
    /// The socket accepted on; ``replace(with:)`` swaps in a new one (``EdgeSwipeServer/rebind()``).
    private let listener: NIOLockedValueBox<ListeningSocket>
    /// Set by ``stop()``; a replacement waits here until the thread picks it up.
    private let control = NIOLockedValueBox<(stopping: Bool, replacement: ListeningSocket?)>((false, nil))
    private let core: ServerCore
    private let group: MultiThreadedEventLoopGroup
    private let wake: WakePipe
    private let exited: EventLoopPromise<Void>
    private let refusalLog = NIOLockedValueBox(LogThrottle(interval: .seconds(10)))
    /// The attached companion, and whether the thread has serviced it once yet; held while it is serviced, so
    /// that ``detach()`` returns only once it is not running.
    private let companion = NIOLockedValueBox<(any AcceptLoopCompanion, introduced: Bool)?>(nil)

    init(listener: ListeningSocket, core: ServerCore, group: MultiThreadedEventLoopGroup) throws(ServerError) {
        do { wake = try WakePipe() } catch { throw .system(call: "pipe", subject: "acceptor wake-up pipe", errno: error.rawValue) }
        self.listener = NIOLockedValueBox(listener)
        self.core = core
        self.group = group
        self.exited = group.next().makePromise(of: Void.self)
    }

    func start() throws(ServerError) {
        do {
            try SystemThread.start(name: "edgeswipe-admit", detached: true) { [self] in
                self.run()
                self.exited.succeed(())
            }
        } catch {
            exited.succeed(())
            throw .system(call: "pthread_create", subject: "acceptor thread", errno: error.rawValue)
        }
    }

    func stop() async {
        let pending = control.withLockedValue { c in
            c.stopping = true
            defer { c.replacement = nil }
            return c.replacement
        }
        pending?.close()
        wake.wake()
        try? await exited.futureResult.get()
    }

    /// Hands the thread a newly bound socket to accept on instead; false once stopping.
    func replace(with fresh: ListeningSocket) -> Bool {
        let handed = control.withLockedValue { c -> Bool in
            guard !c.stopping else { return false }
            c.replacement?.close()
            c.replacement = fresh
            return true
        }
        guard handed else { return false }
        wake.wake()
        return true
    }

    func attach(_ c: any AcceptLoopCompanion) {
        companion.withLockedValue { $0 = (c, false) }
        wake.wake()
    }

    func detach() {
        companion.withLockedValue { $0 = nil }
    }

    /// Services the companion if it is still attached and is due (`ready`, past its deadline, or new); under the
    /// companion's lock. Returns its descriptor and deadline for the next wait.
    private func serviceCompanion(ready: Bool) -> (fd: Int32, deadline: MonotonicInstant?)? {
        companion.withLockedValue { entry -> (fd: Int32, deadline: MonotonicInstant?)? in
            guard let (c, introduced) = entry else { return nil }
            let now = MonotonicClock.now()
            if ready || !introduced || (c.nextDeadline.map { $0 <= now } ?? false) {
                entry = (c, true)
                c.service(now: now)
            }
            return (c.descriptor, c.nextDeadline)
        }
    }

    /// Closes the socket in use (after ``stop()``), removing its file if it is still ours.
    func closeListener() {
        listener.withLockedValue { $0 }.close()
    }

    private func run() {
        var current = listener.withLockedValue { $0 }
        let waiter = DescriptorWaiter()
        var watched = serviceCompanion(ready: false)
        while true {
            waiter.removeAll()
            waiter.add(current.fd)
            waiter.add(wake.readEnd)
            if let watched { waiter.add(watched.fd) }
            let now = MonotonicClock.now()
            let timeout = watched?.deadline.map { $0 <= now ? Int64(0) : Int64(clamping: ($0 - now).value) }
            do { try waiter.wait(timeoutMicroseconds: timeout) } catch {
                core.logger.error("poll on the listening socket failed; no longer accepting", metadata: ["errno": "\(error.rawValue)"])
                return
            }
            if waiter.isReady(1) {
                wake.drain()
                let (stopping, fresh) = control.withLockedValue { c in
                    defer { c.replacement = nil }
                    return (c.stopping, c.replacement)
                }
                if stopping { return }
                if let fresh {
                    // Whoever connected to the old socket before its file went is still let in, then it closes.
                    while let fd = try? current.fd.accept() { admit(fd) }
                    current.close()
                    current = fresh
                    listener.withLockedValue { $0 = fresh }
                }
            }
            watched = serviceCompanion(ready: waiter.isReady(2))
            guard waiter.isReady(0) else { continue }
            switch Result(catching: { () throws(Errno) in try current.fd.accept() }) {
            case .success(let fd):
                admit(fd)
            case .failure(.resourceTemporarilyUnavailable), .failure(.interrupted), .failure(.connectionAbort), .failure(.protocolError):
                continue
            case .failure(let error) where [.tooManyOpenFiles, .tooManyOpenFilesInSystem, .noBufferSpace, .noMemory].contains(error):
                // Out of descriptors: the pending connection stays readable, so wait briefly (only in this state)
                // instead of spinning on it; a wake-up (stop or rebind) is handled at the top of the loop.
                core.logger.error("accept failed: out of file descriptors", metadata: ["errno": "\(error.rawValue)"])
                let pause = DescriptorWaiter()
                pause.add(wake.readEnd)
                try? pause.wait(timeoutMicroseconds: 100_000)
            case .failure(let error):
                core.logger.error("accept failed; no longer accepting", metadata: ["errno": "\(error.rawValue)"])
                return
            }
        }
    }

    private func admit(_ fd: SystemPackage.FileDescriptor) {
        let peer: PeerCredentials
        do {
            let credentials = try fd.peerCredentials()
            peer = PeerCredentials(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid, groups: credentials.groups)
        } catch {
            let reason = ServerError.system(call: "getsockopt(SO_PEERCRED)", subject: "connection", errno: error.rawValue)
            core.logger.warning("refused a connection whose credentials cannot be read", metadata: ["error": "\(reason)"])
            try? fd.close()
            return
        }
        guard core.accessLevel(for: peer) > .none else {
            core.countRejected()
            core.logger.notice(
                "refused connection: peer is not in the access policy",
                metadata: ["pid": "\(peer.pid)", "uid": "\(peer.uid)", "gid": "\(peer.gid)"])
            try? fd.close()
            return
        }
        guard core.reserveClientSlot() else {
            refuseForCapacity(fd, peer: peer)
            return
        }
        let core = self.core
        let id = core.nextConnectionID()
        if let bytes = core.configuration.socketSendBufferBytes { _ = try? fd.setSendBufferSize(bytes) }
        // The publisher's own descriptor of the socket (one hop): NIO closes its descriptor whenever the
        // connection fails, on its own schedule, and the number could be reused by then; this one is closed only
        // under the connection's lock (``OutboxState/close()``). Without it, the connection is only written by its
        // event loop.
        let direct = core.configuration.directWriteLimit > 0 ? try? fd.duplicateCloseOnExec() : nil
        ClientBootstrap(group: group)
            // End of stream from the client only ends its requests: their answers are still written.
            .channelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        ConnectionHandler(core: core, peer: peer, id: id, directSocket: direct))
                }
            }
            .withConnectedSocket(fd.rawValue)
            .whenComplete { result in
                switch result {
                case .success(let channel):
                    channel.closeFuture.whenComplete { _ in core.releaseClientSlot() }
                case .failure(let error):
                    core.releaseClientSlot()
                    core.logger.warning("could not set up an accepted connection", metadata: ["error": "\(error)"])
                }
            }
    }

    /// `maxClients` are connected: the newcomer gets `goodbye` `too-many-clients` as its only message, written
    /// straight to the fresh socket (its buffer is empty, so the short write cannot block), and is closed. Logged at
    /// most every 10 s, so that a peer connecting in a loop cannot flood the journal.
    private func refuseForCapacity(_ fd: SystemPackage.FileDescriptor, peer: PeerCredentials) {
        var batch = EncodedBatch(capacity: 256)
        let limit = core.registry.withLockedValue { $0.maxClients }
        batch.appendGoodbye(
            .tooManyClients, message: "\(limit) clients are connected, as many as this server takes (max_clients); try again later",
            time: core.configuration.clock())
        let line = batch.line(0, seq: 1)
        _ = line.withUnsafeBytes { try? fd.send($0, flags: [.noSignal, .dontWait]) }
        // Whatever the client already sent is read and dropped, so that closing does not reset the connection
        // before it has read the goodbye.
        var sink = [UInt8](repeating: 0, count: 4096)
        while let n = sink.withUnsafeMutableBytes({ try? fd.receive(into: $0, flags: .dontWait) }), n > 0 {}
        fd.shutdown()
        try? fd.close()
        let (log, held) = refusalLog.withLockedValue { $0.admit(now: MonotonicClock.now().microseconds) }
        if log {
            core.logger.warning(
                "refused a connection: \(limit) clients are connected (max_clients)",
                metadata: ["pid": "\(peer.pid)", "uid": "\(peer.uid)", "refusals_not_logged": "\(held)"])
        }
    }
}
