import CSystemd
import Glibc

// The service manager's side of the process, through libsystemd's sd-daemon calls (the library the bus already
// links): readiness and status (`sd_notify(3)`), the sockets systemd passed (`sd_listen_fds(3)`) and the watchdog
// (`sd_watchdog_enabled(3)`). Each reads the process's environment, as systemd sets it; a process not started by
// systemd finds nothing there, and each call then does nothing.

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

/// Why a call to the service manager failed: the call, its errno, and the environment it read.
public struct ServiceManagerError: Error, Hashable, Sendable, CustomStringConvertible {
    public var call: String
    public var errno: Int32
    /// The variables the call read, as they were (`LISTEN_PID=123, LISTEN_FDS=x`).
    public var environment: String

    public var description: String {
        "\(call) failed: \(String(cString: strerror(errno))) (errno \(errno))" + (environment.isEmpty ? "" : " with \(environment)")
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
}

/// systemd, as the process that started this one sees it.
public enum ServiceManager {
    /// Sends the assignments to `NOTIFY_SOCKET` in one datagram, e.g. `notify([.ready, .status("listening")])`.
    /// Returns false when the process has no notification socket (it was not started by systemd with
    /// `Type=notify`): then nothing is sent and nothing is wrong.
    @discardableResult
    public static func notify(_ states: [NotifyState]) throws(ServiceManagerError) -> Bool {
        let message = states.map(\.assignment).joined(separator: "\n")
        let sent = sd_notify(0, message)
        guard sent >= 0 else { throw error("sd_notify", sent, reading: ["NOTIFY_SOCKET"]) }
        return sent > 0
    }

    /// The listening sockets systemd passed (socket activation), from descriptor 3 on; empty when it passed none,
    /// or passed them to another process (`LISTEN_PID`). Either way `LISTEN_PID`, `LISTEN_FDS` and
    /// `LISTEN_FDNAMES` are removed from the environment, so that no child takes the descriptors for its own.
    public static func listeningDescriptors() throws(ServiceManagerError) -> [Int32] {
        let variables = ["LISTEN_PID", "LISTEN_FDS"]
        let environment = describe(variables)
        let count = sd_listen_fds(1)
        guard count >= 0 else { throw ServiceManagerError(call: "sd_listen_fds", errno: -count, environment: environment) }
        return (0..<count).map { SD_LISTEN_FDS_START + $0 }
    }

    /// The watchdog systemd keeps (`WATCHDOG_USEC`, for this process when `WATCHDOG_PID` is set); `nil` when it
    /// keeps none.
    public static func watchdog() throws(ServiceManagerError) -> Watchdog? {
        var usec: UInt64 = 0
        let enabled = sd_watchdog_enabled(0, &usec)
        guard enabled >= 0 else { throw error("sd_watchdog_enabled", enabled, reading: ["WATCHDOG_USEC", "WATCHDOG_PID"]) }
        guard enabled > 0, usec > 0 else { return nil }
        return Watchdog(timeout: .microseconds(Int64(clamping: usec)))
    }

    private static func error(_ call: String, _ result: Int32, reading variables: [String]) -> ServiceManagerError {
        ServiceManagerError(call: call, errno: -result, environment: describe(variables))
    }

    /// `NAME=value` for each variable that is set, for an error message.
    private static func describe(_ variables: [String]) -> String {
        variables.compactMap { name in getenv(name).map { "\(name)=\(String(cString: $0))" } }.joined(separator: ", ")
    }
}
