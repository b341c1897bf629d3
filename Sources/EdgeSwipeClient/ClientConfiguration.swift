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

/// Where a client finds the daemon: the one path it was given, or the default rule, looked at again before every
/// attempt to connect, so that a client started before its daemon (a session that logs in first) finds it wherever
/// it comes up.
public enum DaemonSocket: Hashable, Sendable, CustomStringConvertible {
    /// `--socket PATH` or `$EDGESWIPE_SOCKET`: only this path.
    case fixed(String)
    /// Neither: the user instance's socket (`$XDG_RUNTIME_DIR/edgeswipe.sock`, when there is a runtime directory)
    /// when it exists, else the system service's.
    case standard(user: String?, system: String)

    /// `explicit` (a `--socket` option) when given, else `$EDGESWIPE_SOCKET`, else the standard pair. Every command
    /// that takes `--socket` uses this rule (``EdgeSwipeClient/defaultSocketHelp``).
    public static func resolve(explicit: String?, environment: [String: String]) -> DaemonSocket {
        if let explicit { return .fixed(explicit) }
        if let path = environment["EDGESWIPE_SOCKET"], !path.isEmpty { return .fixed(path) }
        let runtime = environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 }
        return .standard(user: runtime.map { $0 + "/edgeswipe.sock" }, system: EdgeSwipeClient.systemSocketPath)
    }

    /// The path to try now: the user instance's when it exists, else the system's.
    public func current(exists: (String) -> Bool) -> String {
        switch self {
        case .fixed(let path): path
        case .standard(let user?, let system): exists(user) ? user : system
        case .standard(nil, let system): system
        }
    }

    /// Every path it may be, in the order they are tried.
    public var paths: [String] {
        switch self {
        case .fixed(let path): [path]
        case .standard(let user, let system): (user.map { [$0] } ?? []) + [system]
        }
    }

    /// `A or B`, or `A`: where a client waits for a daemon.
    public var description: String { paths.joined(separator: " or ") }
}

extension EdgeSwipeClient {
    /// Where a client looks for the daemon when told nothing, now: `$EDGESWIPE_SOCKET`, else
    /// `$XDG_RUNTIME_DIR/edgeswipe.sock` if it exists (a user's own daemon), else the system service's
    /// `/run/edgeswipe/edgeswipe.sock` (``DaemonSocket``, resolved once: what a one-shot command uses).
    public static func defaultSocketPath(environment: [String: String], exists: (String) -> Bool) -> String {
        DaemonSocket.resolve(explicit: nil, environment: environment).current(exists: exists)
    }

    /// The system service's socket.
    public static let systemSocketPath = "/run/edgeswipe/edgeswipe.sock"

    /// What a person can do when no daemon listens at the socket a tool tried, in every tool's message.
    public static let noDaemonAdvice =
        "Start one (edgeswiped; in the source tree, scripts/quickstart runs it on the demo), or point at another with --socket PATH or EDGESWIPE_SOCKET=PATH."

    /// What `--socket` says about its default, in every command's help.
    public static let defaultSocketHelp =
        "Default: $EDGESWIPE_SOCKET, else $XDG_RUNTIME_DIR/edgeswipe.sock if it exists, else /run/edgeswipe/edgeswipe.sock; a client that follows the stream (monitor, edgeswipe-session, edgeswipe-web) looks again before each attempt to reconnect."
}
