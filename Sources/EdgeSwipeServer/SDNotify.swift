import EdgeSwipeSystem
import Glibc
import SystemPackage

/// One `sd_notify(3)` assignment.
public enum NotifyState: Hashable, Sendable {
    /// Start-up is finished (`Type=notify` units wait for it).
    case ready
    /// The configuration is being reloaded; send ``ready`` when done.
    case reloading
    case stopping
    /// The watchdog keep-alive.
    case watchdog
    /// A one-line status shown by `systemctl status`.
    case status(String)
    case mainPID(Int32)
    case errno(Int32)

    /// The `KEY=value` line. Newlines in a status would start a new assignment, so they become spaces.
    public var assignment: String {
        switch self {
        case .ready: "READY=1"
        case .reloading: "RELOADING=1"
        case .stopping: "STOPPING=1"
        case .watchdog: "WATCHDOG=1"
        case .status(let text): "STATUS=" + text.map { $0 == "\n" || $0 == "\r" ? " " : String($0) }.joined()
        case .mainPID(let pid): "MAINPID=\(pid)"
        case .errno(let code): "ERRNO=\(code)"
        }
    }
}

/// Why a notification could not be sent.
public struct NotifyError: Error, Hashable, Sendable, CustomStringConvertible {
    public var socketPath: String
    public var call: String
    public var errno: Int32
    public var description: String {
        "NOTIFY_SOCKET \(socketPath): \(call) failed: \(Errno(rawValue: errno)) (errno \(errno))"
    }
}

/// `sd_notify` over the `NOTIFY_SOCKET` datagram socket, without linking libsystemd.
///
/// The path may name an abstract socket (`@name`), as systemd's own is. Each ``send(_:)`` opens a datagram
/// socket, sends one datagram of newline-separated assignments and closes it, so the helper holds no descriptor
/// and is safe to use from any thread.
public struct SDNotify: Hashable, Sendable {
    public let socketPath: String

    public init(socketPath: String) {
        self.socketPath = socketPath
    }

    /// From `NOTIFY_SOCKET`; `nil` when the process was not started by systemd with `Type=notify` (then the
    /// daemon simply does not notify).
    public init?(environment: [String: String]) {
        guard let path = environment["NOTIFY_SOCKET"], !path.isEmpty else { return nil }
        self.init(socketPath: path)
    }

    /// From this process's `NOTIFY_SOCKET`.
    public static func fromEnvironment() -> SDNotify? { SDNotify(environment: ProcessEnvironment.current()) }

    /// Sends the assignments in one datagram, e.g. `send(.ready, .status("listening"))`.
    public func send(_ states: NotifyState...) throws(NotifyError) {
        try send(states)
    }

    public func send(_ states: [NotifyState]) throws(NotifyError) {
        let message = Array(states.map(\.assignment).joined(separator: "\n").utf8)
        let fd: FileDescriptor
        do { fd = try .unixSocket(.datagram) } catch { throw NotifyError(socketPath: socketPath, call: "socket", errno: error.rawValue) }
        defer { try? fd.close() }
        guard let address = try? UnixSocketAddress(socketPath) else {
            throw NotifyError(socketPath: socketPath, call: "address", errno: ENAMETOOLONG)
        }
        let sent = message.withUnsafeBytes { bytes in Result(catching: { () throws(Errno) in try fd.send(bytes, to: address) }) }
        switch sent {
        case .success(let count) where count == message.count: return
        case .success: throw NotifyError(socketPath: socketPath, call: "sendto", errno: EMSGSIZE)
        case .failure(let error): throw NotifyError(socketPath: socketPath, call: "sendto", errno: error.rawValue)
        }
    }
}

/// The service watchdog (`WatchdogSec=`): how often systemd expects `WATCHDOG=1`.
public struct Watchdog: Hashable, Sendable {
    /// `WATCHDOG_USEC`: the deadline systemd enforces.
    public var timeout: Duration

    public init(timeout: Duration) {
        self.timeout = timeout
    }

    /// Half the timeout, as `sd_watchdog_enabled(3)` recommends, so that one late ping does not kill the service.
    public var pingInterval: Duration { timeout / 2 }

    /// From `WATCHDOG_USEC` (and `WATCHDOG_PID`, which must name this process when set); `nil` when the watchdog
    /// is off or meant for another process.
    public static func fromEnvironment(_ environment: [String: String], pid: Int32) throws(ServerError) -> Watchdog? {
        guard let text = environment["WATCHDOG_USEC"] else { return nil }
        guard let usec = UInt64(text), usec > 0 else {
            throw .invalidActivation(reason: "WATCHDOG_USEC is not a positive number of microseconds: \"\(text)\"")
        }
        if let pidText = environment["WATCHDOG_PID"] {
            guard let watchedPID = Int32(pidText) else {
                throw .invalidActivation(reason: "WATCHDOG_PID is not a process id: \"\(pidText)\"")
            }
            guard watchedPID == pid else { return nil }
        }
        return Watchdog(timeout: .microseconds(Int64(clamping: usec)))
    }

    /// From this process's environment.
    public static func fromEnvironment() throws(ServerError) -> Watchdog? {
        try fromEnvironment(ProcessEnvironment.current(), pid: getpid())
    }
}
