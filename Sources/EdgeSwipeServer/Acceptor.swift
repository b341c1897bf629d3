public import EdgeSwipeCore
import EdgeSwipeProtocol
import EdgeSwipeSystem
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SystemPackage

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
        let level = core.accessLevel(for: peer)
        guard level > .none else {
            core.countRejected()
            core.logger.notice(
                "refused connection: peer is not in the access policy",
                metadata: ["pid": "\(peer.pid)", "uid": "\(peer.uid)", "gid": "\(peer.gid)"])
            try? fd.close()
            return
        }
        if let refusal = core.reserveClientSlot(for: peer, level: level) {
            refuseForCapacity(fd, peer: peer, refusal)
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
                    channel.closeFuture.whenComplete { _ in core.releaseClientSlot(for: peer) }
                case .failure(let error):
                    core.releaseClientSlot(for: peer)
                    core.logger.warning("could not set up an accepted connection", metadata: ["error": "\(error)"])
                }
            }
    }

    /// No place for the newcomer (``ServerCore/SlotRefusal``: `maxClients` are connected, the places left are
    /// kept for clients that may control, or its user has `maxClientsPerUser`): it gets `goodbye`
    /// `too-many-clients` saying which as its only message, written straight to the fresh socket (its buffer is
    /// empty, so the short write cannot block), and is closed. Logged at most every 10 s, so that a peer connecting
    /// in a loop cannot flood the journal.
    private func refuseForCapacity(_ fd: SystemPackage.FileDescriptor, peer: PeerCredentials, _ refusal: ServerCore.SlotRefusal) {
        var batch = EncodedBatch(capacity: 256)
        batch.appendGoodbye(.tooManyClients, message: refusal.message, time: core.configuration.clock())
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
                "refused a connection: \(refusal.message)",
                metadata: ["pid": "\(peer.pid)", "uid": "\(peer.uid)", "refusals_not_logged": "\(held)"])
        }
    }
}
