public import EdgeSwipeCore
public import EdgeSwipeEngineWire
public import EdgeSwipeProtocol
import EdgeSwipeSystem
import Glibc
public import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SystemPackage

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

    /// Changes how many clients may be connected at once, in all and per user (those connected past a lowered
    /// limit stay), and how long a client may read nothing before it is let go (from its next stall on).
    public func setClientLimits(maxClients: Int, maxClientsPerUser: Int, stallTimeout: Duration) {
        core.registry.withLockedValue { r in
            r.maxClients = max(1, maxClients)
            r.maxClientsPerUser = max(1, maxClientsPerUser)
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
        let connections = core.close()
        var goodbye = EncodedBatch(capacity: 256)
        goodbye.appendGoodbye(.shutdown, message: message, time: core.configuration.clock())
        let shared = SharedBatch(goodbye)
        for c in connections { c.finish(with: shared, timeout: core.configuration.goodbyeTimeout) }
        for c in connections { try? await c.channel.closeFuture.get() }
        core.logger.info("stopped", metadata: ["clients_said_goodbye": "\(connections.count)"])
        try? await group.shutdownGracefully()
    }
}
