public import EdgeSwipeCore
import EdgeSwipeProtocol
import EdgeSwipeSystem
import Glibc

/// How the server listens, whom it lets in, and how much it buffers for each client.
public struct ServerConfiguration: Sendable {
    /// Where connections come from.
    public enum Listener: Hashable, Sendable {
        /// Bind this path. A stale socket file (nobody accepts on it) is replaced; a live one is refused. The file
        /// is removed at shutdown if it is still ours.
        case path(String)
        /// Adopt a descriptor that is already bound and listening: systemd socket activation
        /// (the daemon asks libsystemd for it: `ServiceManager.listeningDescriptors()`). It is never unlinked.
        case fileDescriptor(Int32)
    }

    /// The socket to bind, or the descriptor to adopt.
    public var listener: Listener
    /// Reported in `hello` and `status`, e.g. `edgeswiped 0.1.0`.
    public var serverVersion: String
    /// `nil` means the default: the daemon's uid and the socket file's group may read and control.
    public var access: AccessPolicy?
    /// The facts the policy is first evaluated with (``EdgeSwipeServer/updateAccessContext(_:revokedReason:)``
    /// changes them).
    public var accessContext = AccessContext()
    /// The mode of a socket file we bind (0660: owner and group).
    public var socketMode: UInt32 = 0o660
    /// Connections the kernel queues before they are accepted (1000 clients may connect at once).
    public var listenBacklog: Int32 = 1024
    /// The longest request line accepted, terminator excluded.
    public var maxLineBytes: Int = WireProtocol.maxLineBytes
    /// A client whose undelivered backlog passes either bound is disconnected with `goodbye` `backlog-exceeded`.
    /// Progress updates are coalesced first, so only a client that stopped reading ever gets there.
    public var maxQueuedMessages: Int = 4096
    /// Counts what the connection holds in memory: the messages it has yet to send and its queue's slots.
    public var maxQueuedBytes: Int = 4 * 1024 * 1024
    /// A client whose socket stays full this long (it reads nothing while messages wait) is disconnected with
    /// `goodbye` `backlog-exceeded`, before its backlog reaches the bounds above.
    public var stallTimeout: Duration = .seconds(30)
    /// Requests of one connection that may wait for the daemon's handler at once. At this many, the connection's
    /// further requests are not read until one is answered (backpressure, not an error).
    public var maxRequestsInFlight: Int = 32
    /// Answers (replies and errors) of one connection waiting to be written, by count; a quarter of
    /// `maxQueuedBytes` bounds their bytes. Past either, the connection's requests are not read until half of them
    /// have been written: a client that pipelines requests and reads is slowed, never cut off.
    public var maxQueuedAnswers: Int = 256
    /// Connections open at once. Past it, a new client gets `goodbye` `too-many-clients` as its only message. The
    /// last ``reservedForControl(maxClients:)`` of them are kept for clients that may control: a peer that may only
    /// read gets `too-many-clients` once the others are taken, so that readers cannot lock out the owner.
    public var maxClients: Int = 1024
    /// Connections one user (uid) may have open at once; past it, that user's next gets `too-many-clients`.
    public var maxClientsPerUser: Int = 64
    /// A uid the per-user limit does not count: the daemon's own user, who could stop the daemon anyway (and whose
    /// benchmarks open a thousand clients). `nil`: everyone is counted.
    public var uncountedUID: UInt32? = UInt32(getuid())

    /// The places of `maxClients` kept for clients that may control: one in sixteen, at least one (none when there
    /// is only one place).
    public static func reservedForControl(maxClients: Int) -> Int {
        maxClients > 1 ? max(1, maxClients / 16) : 0
    }
    /// How long a `goodbye` may take to drain before the connection is closed anyway.
    public var goodbyeTimeout: Duration = .seconds(2)
    /// How many connections, per publish, the publisher may write to itself, straight to their sockets when they
    /// are idle (one hop from the input thread to the client); the others, and any connection with something
    /// still waiting, are written by their event loop (two hops). 0: every write goes through the event loop.
    public var directWriteLimit: Int = .max
    /// The send buffer of each accepted socket (`SO_SNDBUF`); `nil`: the kernel's default. Tests make it small so
    /// that a client's socket fills, and writes are partial, after a few lines.
    public var socketSendBufferBytes: Int32?
    /// Event loop threads writing to clients; one handles thousands of connections.
    public var eventLoopThreads: Int = 1
    /// The clock of `time_us` on the messages the server makes itself (hello, reply, error, config, goodbye).
    /// Engine events keep their own times; a daemon replaying a recording passes its replay clock here.
    public var clock: @Sendable () -> MonotonicInstant = { MonotonicClock.now() }
    /// Called on an event loop once clients have left in numbers (16, or one that was cut off) and none has left
    /// for a second since: the daemon hands the memory they used back to the system here. Keep it short.
    public var clientsDeparted: (@Sendable () -> Void)?
    /// Called after a client has been admitted and its hello queued, with the number of connections open now
    /// (which ``EdgeSwipeServer/statistics`` already counts). On the accepting event loop: keep it short and
    /// non-blocking. The daemon uses it to open its `--wait-for-clients` gate without polling.
    public var connectionRegistered: (@Sendable (_ connections: Int) -> Void)?

    public init(listener: Listener, serverVersion: String) {
        self.listener = listener
        self.serverVersion = serverVersion
    }
}
