import EdgeSwipeServer
import Glibc
import Logging

// File modes checked at start-up.
//
// - The socket's directory: writable by others without the sticky bit means anyone could replace the socket with
//   their own and read what clients send, or delete it: refused (exit 69). So is one the daemon binds in that
//   belongs to another user, unless it is sticky and root's (/tmp).
// - The socket file (an adopted, socket-activated one; the daemon binds its own 0660): world-writable lets every
//   local user connect, which only the access policy then stops: a warning.
// - The state directory: writable by others without the sticky bit, or owned by another user: not used (the
//   daemon runs without persistence). The state file: a symbolic link, not a regular file, writable by every
//   user, or owned by someone else: moved aside unread (see StateStore); writable by its group: a warning.
// - The configuration file: writable by others lets anyone change the access policy at the next SIGHUP: a warning.
enum ModeChecks {
    private static func isWorldWritable(_ mode: mode_t) -> Bool { mode & S_IWOTH != 0 }
    private static func isSticky(_ mode: mode_t) -> Bool { mode & S_ISVTX != 0 }
    private static func octal(_ mode: mode_t) -> String { "0" + String(mode & 0o7777, radix: 8) }

    /// Why a directory that keeps our files cannot be trusted, or nil.
    static func unsafeDirectory(fd: Int32) -> String? {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return "fstat failed: \(String(cString: strerror(errno)))" }
        return unsafeDirectory(st)
    }

    static func unsafeDirectory(_ st: stat) -> String? {
        if isWorldWritable(st.st_mode) && !isSticky(st.st_mode) {
            return "it is writable by every user (mode \(octal(st.st_mode)), no sticky bit)"
        }
        if st.st_uid != geteuid() && st.st_uid != 0 {
            return "it belongs to uid \(st.st_uid), not to this daemon (uid \(geteuid())) or root"
        }
        return nil
    }

    /// Why a state file must not be read, or nil.
    static func unsafeStateFile(_ st: stat) -> String? {
        if st.st_mode & S_IFMT == S_IFLNK { return "it is a symbolic link" }
        if st.st_mode & S_IFMT != S_IFREG { return "it is not a regular file" }
        if isWorldWritable(st.st_mode) { return "it is writable by every user (mode \(octal(st.st_mode)))" }
        if st.st_uid != geteuid() { return "it belongs to uid \(st.st_uid), not to this daemon (uid \(geteuid()))" }
        return nil
    }

    /// A warning for a state file its group may write, or nil.
    static func stateFileWarning(_ st: stat) -> String? {
        st.st_mode & S_IWGRP != 0 ? "it is writable by its group (gid \(st.st_gid), mode \(octal(st.st_mode)))" : nil
    }

    /// Checks the socket before it is bound (or, when systemd passed it, as it is). Throws to refuse to start.
    static func checkSocket(_ listener: ServerConfiguration.Listener, logger: Logger) throws(StartupError) {
        let path: String
        switch listener {
        case .path(let p):
            path = p
        case .fileDescriptor(let fd):
            guard let bound = socketPath(of: fd) else { return }
            path = bound
            var st = stat()
            if stat(bound, &st) == 0, isWorldWritable(st.st_mode) {
                logger.warning("socket \(bound) is writable by every user (mode \(octal(st.st_mode))): any local user can connect, and only the access policy keeps them out; set SocketMode=0660 in the socket unit")
            }
        }
        guard !path.hasPrefix("@") else { return }
        let directory = parentDirectory(of: path)
        var st = stat()
        guard stat(directory, &st) == 0 else { return }  // binding will report it
        // A directory in another user's hands is theirs to rearrange: they could delete or replace the socket at
        // will. Only a sticky root-owned one (such as /tmp) protects a file from everyone but its owner.
        if case .path = listener, st.st_uid != geteuid(), !(isSticky(st.st_mode) && st.st_uid == 0) {
            throw StartupError(
                exitStatus: ExitStatus.unavailable,
                description: "\(directory): the socket's directory belongs to uid \(st.st_uid), not to this daemon (uid \(geteuid())), and is not a sticky directory of root's, so its owner could replace \(path); refusing to serve there (use a directory of the daemon's own, e.g. $XDG_RUNTIME_DIR)")
        }
        if isWorldWritable(st.st_mode) && !isSticky(st.st_mode) {
            throw StartupError(
                exitStatus: ExitStatus.unavailable,
                description: "\(directory): the socket's directory is writable by every user (mode \(octal(st.st_mode)), no sticky bit), so anyone could replace \(path); refusing to serve there (use a directory only the daemon can write, e.g. $XDG_RUNTIME_DIR)")
        }
        if st.st_mode & S_IWGRP != 0 && st.st_gid != getegid() {
            logger.warning("\(directory): the socket's directory is writable by group \(st.st_gid) (mode \(octal(st.st_mode))): its members could replace \(path)")
        }
    }

    /// Warns about a configuration file that others can change.
    static func checkConfigFile(_ path: String?, logger: Logger) {
        guard let path else { return }
        var st = stat()
        guard stat(path, &st) == 0 else { return }
        if isWorldWritable(st.st_mode) {
            logger.warning("configuration \(path) is writable by every user (mode \(octal(st.st_mode))): anyone could change the access policy at the next reload")
        }
    }

    static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let parent = String(path[..<slash])
        return parent.isEmpty ? "/" : parent
    }

    /// The path a listening Unix socket is bound to (for an adopted descriptor).
    static func socketPath(of fd: Int32) -> String? {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let ok = withUnsafeMutablePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) == 0 }
        }
        guard ok, address.sun_family == sa_family_t(AF_UNIX) else { return nil }
        let count = Int(length) - MemoryLayout<sa_family_t>.size
        guard count > 1 else { return nil }
        let bytes = withUnsafeBytes(of: &address.sun_path) { Array($0.prefix(count)) }
        guard bytes.first != 0 else { return nil }  // abstract
        return String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self)
    }
}
