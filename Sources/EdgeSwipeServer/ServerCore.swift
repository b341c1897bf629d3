import EdgeSwipeCore
import EdgeSwipeEngineWire
import EdgeSwipeProtocol
import EdgeSwipeSystem
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// State shared by the publisher, the acceptor and every connection.
///
/// Two locks. The registry's guards the connections, the snapshot, the policy and the counters: everyone takes it
/// (the acceptor for each newcomer, the event loops to register and unregister connections and to answer requests
/// with the snapshot, the access changes, the statistics), each for a few microseconds. The publisher's serializes
/// the publishes and is held across the fan-out, the `send(2)` to each client (milliseconds, at a thousand
/// clients): a publish takes the registry's lock only to apply its events to the snapshot, encode them and take the
/// list of connections, then fans out with it released, so that nobody but another publisher, an access change or
/// the shutdown waits for the clients' sockets. Lock order: the publisher's, then the registry's
/// (docs/ARCHITECTURE.md, "The fan-out and its locks").
final class ServerCore: Sendable {
    struct Registry {
        var snapshot: ServerSnapshot
        var connections: [UInt64: Connection] = [:]
        /// The same connections in the order they registered: what a publish hands its batch to. A publish takes
        /// it under the lock and fans out after releasing it, so a copy is made only when a connection comes or
        /// goes during a fan-out.
        var targets: [Connection] = []
        var nextConnectionID: UInt64 = 1
        var closing = false
        var accepted = 0
        var rejected = 0
        var cutOff = 0
        /// Coalesced counts of connections that have gone.
        var retiredCoalesced = 0
        /// Who may connect and control, and the facts it depends on; both change at run time.
        var policy: AccessPolicy
        var accessContext: AccessContext
        /// Connections admitted and not yet closed, counted from the accept (before they register), against
        /// `maxClients`; and the same by uid, against `maxClientsPerUser`.
        var admitted = 0
        var admittedByUID: [UInt32: Int] = [:]
        /// `maxClients`, `maxClientsPerUser` and `stallTimeout`, as configured or last set
        /// (``EdgeSwipeServer/setClientLimits(maxClients:maxClientsPerUser:stallTimeout:)``).
        var maxClients: Int
        var maxClientsPerUser: Int
        var stallTimeout: Duration
        var refusedForCapacity = 0
        var revoked = 0
        /// Departures since ``ServerConfiguration/clientsDeparted`` was last called (a cut-off client counts as
        /// a burst), the time of the last one, and whether a call is scheduled.
        var departures = 0
        var lastDepartureUS: UInt64 = 0
        var departureCallScheduled = false
    }

    /// What only publishing uses, under the publisher's lock.
    struct Publisher {
        /// Sized from the previous publish, so that a steady stream allocates each batch once. (A batch is not
        /// reused: whether the event loops have released it cannot be known without synchronising with them.)
        var batchCapacity = 4096
        /// The lines of one connection's direct write are put together here.
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
    /// Held by a publish from its encoding to the end of its fan-out; taken before ``registry`` when both are.
    let publisher = NIOLockedValueBox(Publisher())
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
                maxClients: configuration.maxClients, maxClientsPerUser: configuration.maxClientsPerUser,
                stallTimeout: configuration.stallTimeout))
        self.fanOuts = eventLoops.map(LoopFanOut.init(eventLoop:))
    }

    /// The fan-out of `eventLoop`; `nil` for a loop outside the group, whose connections are then woken one by one.
    func fanOut(for eventLoop: any EventLoop) -> LoopFanOut? {
        fanOuts.first { $0.eventLoop === eventLoop }
    }

    /// Hands `shared` to every connection, waking each event loop at most once: the first
    /// ``ServerConfiguration/directWriteLimit`` idle connections are written to here, on the publisher's thread
    /// (one hop); the others, and every busy one, are left to their event loop.
    private func fanOut(_ shared: SharedBatch, to connections: [Connection], scratch: inout [UInt8]) {
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
            r.targets.append(connection)
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

    /// Why a connection got no place.
    enum SlotRefusal: Sendable {
        /// `maxClients` are connected.
        case full(maxClients: Int)
        /// The places left are kept for clients that may control, and this one may only read.
        case keptForControl(maxClients: Int, kept: Int)
        /// Its user has `maxClientsPerUser` connections open.
        case userLimit(uid: UInt32, maxClientsPerUser: Int)

        /// The goodbye's message, and the log line's.
        var message: String {
            switch self {
            case .full(let limit):
                "\(limit) clients are connected, as many as this server takes (max_clients); try again later"
            case .keptForControl(let limit, let kept):
                "\(limit - kept) clients are connected; the last \(kept) places of max_clients (\(limit)) are kept for clients that may control; try again later"
            case .userLimit(let uid, let limit):
                "uid \(uid) has \(limit) connections open, as many as one user may have (max_clients_per_user); close one and try again"
            }
        }
    }

    /// Takes a place for a new connection of `peer`, which may do `level`; why not when it cannot have one: all
    /// `maxClients` are taken, or all but those kept for control and it may only read, or its user has
    /// `maxClientsPerUser` open (unless it is ``ServerConfiguration/uncountedUID``).
    func reserveClientSlot(for peer: PeerCredentials, level: AccessLevel) -> SlotRefusal? {
        registry.withLockedValue { r in
            let kept = ServerConfiguration.reservedForControl(maxClients: r.maxClients)
            let counted = peer.uid != configuration.uncountedUID
            let refusal: SlotRefusal?
            if r.admitted >= r.maxClients {
                refusal = .full(maxClients: r.maxClients)
            } else if level < .control && r.admitted >= r.maxClients - kept {
                refusal = .keptForControl(maxClients: r.maxClients, kept: kept)
            } else if counted && r.admittedByUID[peer.uid, default: 0] >= r.maxClientsPerUser {
                refusal = .userLimit(uid: peer.uid, maxClientsPerUser: r.maxClientsPerUser)
            } else {
                refusal = nil
            }
            if refusal != nil {
                r.refusedForCapacity += 1
                return refusal
            }
            r.admitted += 1
            if counted { r.admittedByUID[peer.uid, default: 0] += 1 }
            return nil
        }
    }

    /// Gives back the place ``reserveClientSlot(for:level:)`` took for `peer`.
    func releaseClientSlot(for peer: PeerCredentials) {
        registry.withLockedValue { r in
            r.admitted -= 1
            guard peer.uid != configuration.uncountedUID, let count = r.admittedByUID[peer.uid] else { return }
            r.admittedByUID[peer.uid] = count > 1 ? count - 1 : nil
        }
    }

    /// Changes the policy or its inputs, then judges every open connection again from the credentials it
    /// connected with: one no longer admitted gets `goodbye` with `revokedReason` (after what is already queued for
    /// it; nothing more is queued) and is closed; the others get their new level at once, so a controller demoted
    /// to a reader has its next control request refused. The one path for every change of who may connect: a
    /// reloaded `[access]`, and the seat's active session changing. Under the publisher's lock, from the judgement
    /// to the goodbyes, so that no batch is published in between: a connection no longer admitted gets nothing
    /// published after the change.
    func reevaluateAccess(
        policy: AccessPolicy?, context: AccessContext?, revokedReason: GoodbyeReason
    ) -> AccessChange {
        publisher.withLockedValue { _ in judgeAccess(policy: policy, context: context, revokedReason: revokedReason) }
    }

    private func judgeAccess(
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
            guard r.connections.removeValue(forKey: connection.id) != nil else { return }
            r.retiredCoalesced += coalesced
            if let i = r.targets.firstIndex(where: { $0 === connection }) { r.targets.remove(at: i) }
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

    /// Encodes `events` once, updates the snapshot, and hands the batch to every connection. The registry's lock is
    /// held for the snapshot, the encoding and the list of connections, not for the fan-out (see the type).
    func publish<S: Sequence>(_ events: S) where S.Element == EngineEvent {
        publisher.withLockedValue { p in
            let taken = registry.withLockedValue { r -> (SharedBatch, [Connection])? in
                guard !r.closing else { return nil }
                // Nobody to send to: keep the snapshot current for the next hello, and encode nothing.
                guard !r.targets.isEmpty else {
                    for event in events { r.snapshot.apply(event) }
                    return nil
                }
                var batch = EncodedBatch(capacity: p.batchCapacity)
                for event in events {
                    r.snapshot.apply(event)
                    batch.append(event)
                }
                guard !batch.isEmpty else { return nil }
                p.batchCapacity = max(1024, batch.byteCount)
                return (SharedBatch(batch), r.targets)
            }
            guard let (shared, targets) = taken else { return }
            fanOut(shared, to: targets, scratch: &p.directScratch)
        }
    }

    func publish(_ build: (inout EncodedBatch, inout ServerSnapshot) -> Void) {
        publisher.withLockedValue { p in
            let taken = registry.withLockedValue { r -> (SharedBatch, [Connection])? in
                guard !r.closing else { return nil }
                var batch = EncodedBatch(capacity: 1024)
                build(&batch, &r.snapshot)
                return (SharedBatch(batch), r.targets)
            }
            guard let (shared, targets) = taken else { return }
            fanOut(shared, to: targets, scratch: &p.directScratch)
        }
    }

    /// Stops every later publish and returns the connections open now; a publish in progress ends its fan-out
    /// first, so that no batch it hands out can come after a goodbye the caller queues.
    func close() -> [Connection] {
        publisher.withLockedValue { _ in
            registry.withLockedValue { r in
                r.closing = true
                return r.targets
            }
        }
    }
}
