import Glibc
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// Wakes a client that waits for its daemon as soon as one of the daemon's sockets may have appeared: inotify on
/// the directory of each path (or, for a directory that does not exist yet, such as `/run/edgeswipe` before the
/// service first ran, its nearest existing parent), read on the client's event loop. A daemon that comes up is then
/// tried at once, not at the next step of the reconnection backoff (up to 5 s), and a client that waits costs no
/// wake-ups while nothing changes there.
///
/// It owns the inotify descriptor through its channel, which closes it (``stop()``).
final class SocketWatch: Sendable {
    private let channel: any Channel

    private init(channel: any Channel) {
        self.channel = channel
    }

    /// Watches the places of `paths` and calls `changed` (on the event loop) when something is created, moved in or
    /// changes its attributes there; `nil` when nothing can be watched (no inotify, no directory readable), and the
    /// client then relies on its backoff alone.
    static func start(watching paths: [String], on group: any EventLoopGroup, changed: @escaping @Sendable () -> Void) async -> SocketWatch? {
        let fd = inotify_init1(Int32(IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        let mask = UInt32(IN_CREATE) | UInt32(IN_MOVED_TO) | UInt32(IN_ATTRIB)
        var watched = 0
        for directory in Set(paths.map(Self.placeToWatch)) where inotify_add_watch(fd, directory, mask) >= 0 {
            watched += 1
        }
        guard watched > 0 else {
            close(fd)
            return nil
        }
        do {
            let channel = try await NIOPipeBootstrap(group: group)
                // An inotify read needs room for a whole event (its name included), or it fails with EINVAL.
                .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 4096))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(ChangeHandler(changed: changed)) }
                }
                .takingOwnershipOfDescriptor(input: fd).get()
            return SocketWatch(channel: channel)
        } catch {
            // The bootstrap failed: the descriptor is still ours.
            close(fd)
            return nil
        }
    }

    /// Stops watching and closes the descriptor.
    func stop() async {
        try? await channel.close()
    }

    /// The directory `path` would appear in, or its nearest ancestor that exists: where its creation shows first.
    static func placeToWatch(_ path: String) -> String {
        var directory = parent(of: path)
        var info = stat()
        while directory != "/" && stat(directory, &info) != 0 {
            directory = parent(of: directory)
        }
        return directory
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let parent = String(path[..<slash])
        return parent.isEmpty ? "/" : parent
    }

    private final class ChangeHandler: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let changed: @Sendable () -> Void
        init(changed: @escaping @Sendable () -> Void) { self.changed = changed }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) { changed() }
    }
}

/// A wait that ends at its deadline, at ``ring()``, or when the waiting task is cancelled, whichever comes first;
/// one wait per alarm.
final class Alarm: Sendable {
    private struct State {
        var rung = false
        var over = false
        var waiter: CheckedContinuation<Void, Never>?
    }
    private let state = NIOLockedValueBox(State())

    /// Ends the wait, now or as soon as it begins.
    func ring() { end(rung: true) }

    /// Whether it was rung (rather than having reached its deadline or been cancelled).
    var wasRung: Bool { state.withLockedValue { $0.rung } }

    /// Waits up to `delay`, timed on `loop`.
    func wait(upTo delay: Duration, on loop: any EventLoop) async {
        let timer = loop.scheduleTask(in: TimeAmount(delay)) { [self] in end(rung: false) }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let over = state.withLockedValue { s -> Bool in
                    if !s.over { s.waiter = c }
                    return s.over
                }
                if over { c.resume() }
            }
        } onCancel: {
            end(rung: false)
        }
        timer.cancel()
    }

    private func end(rung: Bool) {
        let waiter = state.withLockedValue { s -> CheckedContinuation<Void, Never>? in
            if s.over { return nil }
            s.over = true
            s.rung = rung
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume()
    }
}
