public import EdgeSwipeProtocol
import Glibc

/// How long to wait between reconnection attempts: exponential, capped, with deterministic jitter.
///
/// The jitter spreads clients that lost the daemon at the same moment (a restart) so they do not all reconnect
/// in the same millisecond; it comes from a seeded generator, so a given seed always yields the same delays.
public struct ReconnectPolicy: Hashable, Sendable {
    /// The delay before the first attempt.
    public var initialDelay: Duration
    /// How much each delay grows over the previous one (at least 1).
    public var multiplier: Double
    /// The cap on any delay, before jitter.
    public var maxDelay: Duration
    /// Each delay is scaled by a factor in `1 - jitter ... 1 + jitter`.
    public var jitter: Double
    /// Seeds the jitter: equal seeds give equal delays.
    public var seed: UInt64
    /// Attempts after the connection was lost (or first failed) before giving up; `nil` retries forever.
    public var maxAttempts: Int?

    public init(
        initialDelay: Duration = .milliseconds(100), multiplier: Double = 2, maxDelay: Duration = .seconds(5),
        jitter: Double = 0.2, seed: UInt64 = 0x4544_4745, maxAttempts: Int? = nil
    ) {
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maxDelay = maxDelay
        self.jitter = min(1, max(0, jitter))
        self.seed = seed
        self.maxAttempts = maxAttempts
    }

    /// The delay before attempt `attempt` (0-based): `initialDelay x multiplier^attempt`, capped at `maxDelay`,
    /// then jittered.
    public func delay(forAttempt attempt: Int) -> Duration {
        let cap = Self.seconds(maxDelay)
        var capped = Self.seconds(initialDelay)
        var step = 0
        while step < attempt && capped < cap {
            capped *= max(1, multiplier)
            step += 1
        }
        capped = min(capped, cap)
        let unit = Double(SplitMix64.value(seed &+ UInt64(max(0, attempt))) >> 11) / Double(1 << 53)
        let factor = 1 - jitter + 2 * jitter * unit
        return .nanoseconds(Int64((capped * factor * 1e9).rounded()))
    }

    static func seconds(_ d: Duration) -> Double {
        let (s, atto) = d.components
        return Double(s) + Double(atto) / 1e18
    }
}

/// SplitMix64: a tiny, well-mixed generator, used only for reconnection jitter.
enum SplitMix64 {
    static func value(_ state: UInt64) -> UInt64 {
        var z = state &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// How an ``EdgeSwipeClient`` reconnects, waits and buffers.
public struct ClientConfiguration: Sendable {
    /// `nil` never reconnects: the first failure ends the message streams and fails requests.
    public var reconnect: ReconnectPolicy?
    /// How long a request waits for its reply (including for a connection, while reconnecting).
    public var requestTimeout: Duration
    /// The longest server line accepted. A `hello` with many devices and containers is the longest message.
    public var maxLineBytes: Int
    /// Messages buffered for a consumer of ``EdgeSwipeClient/messages()`` that does not keep up; past this its
    /// stream ends with ``ClientError/consumerTooSlow(buffered:)``.
    public var messageBufferLimit: Int

    public init(
        reconnect: ReconnectPolicy? = ReconnectPolicy(), requestTimeout: Duration = .seconds(10),
        maxLineBytes: Int = 1024 * 1024, messageBufferLimit: Int = 65536
    ) {
        self.reconnect = reconnect
        self.requestTimeout = requestTimeout
        self.maxLineBytes = maxLineBytes
        self.messageBufferLimit = messageBufferLimit
    }
}

/// Why a client call failed.
public enum ClientError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Nobody listens at the socket: there is no socket file there, or only one that a daemon left when it stopped
    /// (`leftBehind`). The description says what a person can do about it.
    case noDaemon(path: String, leftBehind: Bool)
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

extension EdgeSwipeClient {
    /// Where a client looks for the daemon when told nothing: `$EDGESWIPE_SOCKET`, else
    /// `$XDG_RUNTIME_DIR/edgeswipe.sock` if it exists (a user's own daemon), else the system service's
    /// `/run/edgeswipe/edgeswipe.sock`. Every command that takes `--socket` uses this rule.
    public static func defaultSocketPath(environment: [String: String], exists: (String) -> Bool) -> String {
        if let explicit = environment["EDGESWIPE_SOCKET"], !explicit.isEmpty { return explicit }
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            let user = runtime + "/edgeswipe.sock"
            if exists(user) { return user }
        }
        return systemSocketPath
    }

    /// The system service's socket.
    public static let systemSocketPath = "/run/edgeswipe/edgeswipe.sock"

    /// What a person can do when no daemon listens at the socket a tool tried, in every tool's message.
    public static let noDaemonAdvice =
        "Start one (edgeswiped; in the source tree, scripts/quickstart runs it on the demo), or point at another with --socket PATH or EDGESWIPE_SOCKET=PATH."

    /// What `--socket` says about its default, in every command's help.
    public static let defaultSocketHelp =
        "Default: $EDGESWIPE_SOCKET, else $XDG_RUNTIME_DIR/edgeswipe.sock if it exists, else /run/edgeswipe/edgeswipe.sock."
}
