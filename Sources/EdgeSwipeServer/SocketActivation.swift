import EdgeSwipeSystem
import Glibc
import SystemPackage

/// systemd socket activation (`sd_listen_fds(3)`): descriptors from 3 on, passed to the process whose pid is
/// `LISTEN_PID`.
public enum SocketActivation {
    /// `SD_LISTEN_FDS_START`: the first descriptor systemd passes.
    public static let firstDescriptor: Int32 = 3

    /// The descriptors systemd passed to this process; empty when the process was not socket-activated (no
    /// `LISTEN_PID`, or one that names another process, e.g. a parent that forgot to unset it).
    public static func listeningDescriptors(environment: [String: String], pid: Int32) throws(ServerError) -> [Int32] {
        guard let pidText = environment["LISTEN_PID"] else { return [] }
        guard let listenPID = Int32(pidText) else {
            throw .invalidActivation(reason: "LISTEN_PID is not a process id: \"\(pidText)\"")
        }
        guard listenPID == pid else { return [] }
        guard let countText = environment["LISTEN_FDS"] else {
            throw .invalidActivation(reason: "LISTEN_PID is set but LISTEN_FDS is missing")
        }
        guard let count = Int32(countText), count >= 0, count < 4096 else {
            throw .invalidActivation(reason: "LISTEN_FDS is not a descriptor count: \"\(countText)\"")
        }
        return (0..<count).map { firstDescriptor + $0 }
    }

    /// The descriptors of this process (`getpid()`), from its real environment.
    public static func listeningDescriptors() throws(ServerError) -> [Int32] {
        try listeningDescriptors(environment: ProcessEnvironment.current(), pid: getpid())
    }

    /// The filesystem path a Unix socket descriptor is bound to (for logs about an adopted socket); `nil` for an
    /// abstract or unnamed socket.
    public static func path(of fd: Int32) -> String? { FileDescriptor(rawValue: fd).boundUnixPath }

    /// Removes `LISTEN_PID`, `LISTEN_FDS` and `LISTEN_FDNAMES`, so that children do not take the descriptors
    /// for theirs.
    public static func unsetEnvironment() {
        unsetenv("LISTEN_PID")
        unsetenv("LISTEN_FDS")
        unsetenv("LISTEN_FDNAMES")
    }
}
