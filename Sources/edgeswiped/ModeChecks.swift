import EdgeSwipeServer
import EdgeSwipeSystem
import Glibc
import Logging
import SystemPackage

// File modes checked at start-up.
//
// - The socket's directory: writable by others without the sticky bit means anyone could replace the socket with
//   their own and read what clients send, or delete it: refused (exit 69). So is one the daemon binds in that
//   belongs to another user, unless it is sticky and root's (/tmp).
// - The socket file (an adopted, socket-activated one; the daemon binds its own 0660): world-writable lets every
//   local user connect, which only the access policy then stops: a warning, unless the policy admits the seat's
//   active session. That user is in no group of ours, so the file must let every user reach the credential
//   check (as the system bus's socket does), and the check is the gate.
// - The state directory: writable by others without the sticky bit, or owned by another user: not used (the
//   daemon runs without persistence). The state file: a symbolic link, not a regular file, writable by every
//   user, or owned by someone else: moved aside unread (see StateStore); writable by its group: a warning.
// - The configuration file: writable by others lets anyone change the access policy at the next SIGHUP: a warning.
enum ModeChecks {
    private static func isWorldWritable(_ st: Stat) -> Bool { st.permissions.contains(.otherWrite) }
    private static func isSticky(_ st: Stat) -> Bool { st.permissions.contains(.saveText) }
    private static func octal(_ st: Stat) -> String { "0" + String(st.mode.rawValue & 0o7777, radix: 8) }
    private static var ourUID: UInt32 { geteuid() }

    /// Why a directory that keeps our files cannot be trusted, or nil.
    static func unsafeDirectory(fd: FileDescriptor) -> String? {
        do { return unsafeDirectory(try fd.stat()) } catch { return "fstat failed: \(error)" }
    }

    static func unsafeDirectory(_ st: Stat) -> String? {
        if isWorldWritable(st) && !isSticky(st) {
            return "it is writable by every user (mode \(octal(st)), no sticky bit)"
        }
        if st.userID.rawValue != ourUID && st.userID.rawValue != 0 {
            return "it belongs to uid \(st.userID.rawValue), not to this daemon (uid \(ourUID)) or root"
        }
        return nil
    }

    /// Why a state file must not be read, or nil.
    static func unsafeStateFile(_ st: Stat) -> String? {
        if st.type == .symbolicLink { return "it is a symbolic link" }
        if st.type != .regular { return "it is not a regular file" }
        if isWorldWritable(st) { return "it is writable by every user (mode \(octal(st)))" }
        if st.userID.rawValue != ourUID { return "it belongs to uid \(st.userID.rawValue), not to this daemon (uid \(ourUID))" }
        return nil
    }

    /// A warning for a state file its group may write, or nil.
    static func stateFileWarning(_ st: Stat) -> String? {
        st.permissions.contains(.groupWrite) ? "it is writable by its group (gid \(st.groupID.rawValue), mode \(octal(st)))" : nil
    }

    /// Checks the socket before it is bound (or, when systemd passed it, as it is). Throws to refuse to start.
    /// `admitsActiveSession`: the policy admits the seat's active session, whose user only a socket every user
    /// can reach lets in.
    static func checkSocket(
        _ listener: ServerConfiguration.Listener, admitsActiveSession: Bool, logger: Logger
    ) throws(StartupError) {
        let path: String
        switch listener {
        case .path(let p):
            path = p
        case .fileDescriptor(let fd):
            guard let bound = FileDescriptor(rawValue: fd).boundUnixPath else { return }
            path = bound
            if let st = try? Stat(FilePath(bound)), isWorldWritable(st), !admitsActiveSession {
                logger.warning("socket \(bound) is writable by every user (mode \(octal(st))): any local user can connect, and only the access policy keeps them out; set SocketMode=0660 in the socket unit (0666 is for a policy that admits \"active-session\")")
            }
        }
        guard !path.hasPrefix("@") else { return }
        let directory = parentDirectory(of: path)
        guard let st = try? Stat(FilePath(directory)) else { return }  // binding will report it
        // A directory in another user's hands is theirs to rearrange: they could delete or replace the socket at
        // will. Only a sticky root-owned one (such as /tmp) protects a file from everyone but its owner.
        let owner = st.userID.rawValue
        if case .path = listener, owner != ourUID, !(isSticky(st) && owner == 0) {
            throw StartupError(
                exitStatus: ExitStatus.unavailable,
                description: "\(directory): the socket's directory belongs to uid \(owner), not to this daemon (uid \(ourUID)), and is not a sticky directory of root's, so its owner could replace \(path); refusing to serve there (use a directory of the daemon's own, e.g. $XDG_RUNTIME_DIR)")
        }
        if isWorldWritable(st) && !isSticky(st) {
            throw StartupError(
                exitStatus: ExitStatus.unavailable,
                description: "\(directory): the socket's directory is writable by every user (mode \(octal(st)), no sticky bit), so anyone could replace \(path); refusing to serve there (use a directory only the daemon can write, e.g. $XDG_RUNTIME_DIR)")
        }
        if st.permissions.contains(.groupWrite) && st.groupID.rawValue != getegid() {
            logger.warning("\(directory): the socket's directory is writable by group \(st.groupID.rawValue) (mode \(octal(st))): its members could replace \(path)")
        }
    }

    /// Warns about a configuration file that others can change.
    static func checkConfigFile(_ path: String?, logger: Logger) {
        guard let path, let st = try? Stat(FilePath(path)) else { return }
        if isWorldWritable(st) {
            logger.warning("configuration \(path) is writable by every user (mode \(octal(st))): anyone could change the access policy at the next reload")
        }
    }

    static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let parent = String(path[..<slash])
        return parent.isEmpty ? "/" : parent
    }
}
