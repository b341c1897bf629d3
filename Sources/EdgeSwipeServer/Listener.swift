import Glibc
import NIOConcurrencyHelpers

/// The listening socket: bound by us (and removed again at shutdown), or adopted from systemd.
struct ListeningSocket: Sendable {
    let fd: Int32
    /// The path we bound, with its inode, so that shutdown removes the file only if it is still ours.
    let ownedPath: (path: String, device: UInt64, inode: UInt64)?
    /// The group of the socket file, for the default access policy.
    let group: UInt32

    /// Serializes the brief umask change around `bind` (the umask is the process's).
    private static let bindLock = NIOLockedValueBox(())

    /// Binds `path` with `mode`. A stale socket file (nobody accepts on it) is replaced; a live one, or a file
    /// that is not a socket, is refused.
    ///
    /// The mode is set on the socket before `bind` creates the file (`fchmod` on the descriptor: Linux gives the
    /// new file the socket's mode, less the umask, which is cleared for the call), never by path afterwards: a
    /// peer who can write the directory could swap the path for a symbolic link between `bind` and a `chmod`, and
    /// the `chmod` would change whatever the link points at. The file has its mode from the moment it exists.
    static func bind(path: String, mode: UInt32, backlog: Int32) throws(ServerError) -> ListeningSocket {
        try removeIfStale(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw .system(call: "socket", subject: path, errno: errno) }
        do throws(ServerError) {
            guard fchmod(fd, mode_t(mode)) == 0 else { throw .system(call: "fchmod (the socket, before bind)", subject: path, errno: errno) }
            try withUnixAddress(path) { (address, length) throws(ServerError) in
                // Every file the daemon creates names its mode, so clearing the umask for this call cannot widen
                // anything another thread creates meanwhile.
                let bound = bindLock.withLockedValue { _ -> Int32 in
                    let saved = umask(0)
                    defer { umask(saved) }
                    return Glibc.bind(fd, address, length) == 0 ? 0 : errno
                }
                guard bound == 0 else {
                    throw bound == EADDRINUSE ? .socketInUse(path: path) : .system(call: "bind", subject: path, errno: bound)
                }
            }
            guard listen(fd, backlog) == 0 else { throw .system(call: "listen", subject: path, errno: errno) }
            // Without following the path: what is there must be the socket just bound.
            var st = stat()
            guard lstat(path, &st) == 0 else { throw .system(call: "lstat", subject: path, errno: errno) }
            guard st.st_mode & S_IFMT == S_IFSOCK else {
                throw .pathOccupied(path: path, what: "no longer the socket just bound (it was replaced right after bind)")
            }
            return ListeningSocket(
                fd: fd, ownedPath: (path, UInt64(st.st_dev), UInt64(st.st_ino)), group: UInt32(st.st_gid))
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    /// Adopts a descriptor that is already listening (socket activation). It is never unlinked by us.
    static func adopt(fd: Int32) throws(ServerError) -> ListeningSocket {
        guard fcntl(fd, F_GETFD) >= 0 else { throw .notAListeningSocket(fd: fd, reason: "not an open descriptor") }
        guard let type = intSocketOption(fd, SOL_SOCKET, SO_TYPE) else {
            throw .notAListeningSocket(fd: fd, reason: "not a socket")
        }
        guard type == Int32(SOCK_STREAM.rawValue) else {
            throw .notAListeningSocket(fd: fd, reason: "not a stream socket (ListenStream= in the socket unit)")
        }
        guard intSocketOption(fd, SOL_SOCKET, SO_DOMAIN) == AF_UNIX else {
            throw .notAListeningSocket(fd: fd, reason: "not a Unix domain socket")
        }
        guard intSocketOption(fd, SOL_SOCKET, SO_ACCEPTCONN) == 1 else {
            throw .notAListeningSocket(fd: fd, reason: "the socket is not listening")
        }
        setCloseOnExec(fd)
        setNonBlocking(fd)
        var group = UInt32(getegid())
        if let path = boundPath(of: fd) {
            var st = stat()
            if stat(path, &st) == 0 { group = UInt32(st.st_gid) }
        }
        return ListeningSocket(fd: fd, ownedPath: nil, group: group)
    }

    /// Connects to an existing socket file to see whether anyone is listening, and removes it if nobody is.
    static func removeIfStale(_ path: String) throws(ServerError) {
        var st = stat()
        guard lstat(path, &st) == 0 else {
            let code = errno
            if code == ENOENT { return }
            throw .system(call: "lstat", subject: path, errno: code)
        }
        guard st.st_mode & S_IFMT == S_IFSOCK else {
            let what = st.st_mode & S_IFMT == S_IFDIR ? "a directory" : st.st_mode & S_IFMT == S_IFLNK ? "a symbolic link" : "a file"
            throw .pathOccupied(path: path, what: what)
        }
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard probe >= 0 else { throw .system(call: "socket", subject: path, errno: errno) }
        defer { Glibc.close(probe) }
        let connectErrno: Int32 = try withUnixAddress(path) { (address, length) throws(ServerError) in
            connect(probe, address, length) == 0 ? 0 : errno
        }
        switch connectErrno {
        case 0, EAGAIN, EINPROGRESS:
            // Accepted, or queued behind a full backlog: somebody is listening.
            throw .socketInUse(path: path)
        case ECONNREFUSED:
            guard unlink(path) == 0 || errno == ENOENT else { throw .system(call: "unlink", subject: path, errno: errno) }
        case ENOENT:
            return
        default:
            throw .system(call: "connect (probing for a running daemon)", subject: path, errno: connectErrno)
        }
    }

    /// Closes the socket and removes the file we created, unless someone replaced it since.
    func close() {
        _ = Glibc.close(fd)
        guard let owned = ownedPath else { return }
        var st = stat()
        if lstat(owned.path, &st) == 0, UInt64(st.st_dev) == owned.device, UInt64(st.st_ino) == owned.inode {
            unlink(owned.path)
        }
    }
}

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
        try listeningDescriptors(environment: processEnvironment(), pid: getpid())
    }

    /// The filesystem path a Unix socket descriptor is bound to (for logs about an adopted socket); `nil` for an
    /// abstract or unnamed socket.
    public static func path(of fd: Int32) -> String? { boundPath(of: fd) }

    /// Removes `LISTEN_PID`, `LISTEN_FDS` and `LISTEN_FDNAMES`, so that children do not take the descriptors
    /// for theirs.
    public static func unsetEnvironment() {
        unsetenv("LISTEN_PID")
        unsetenv("LISTEN_FDS")
        unsetenv("LISTEN_FDNAMES")
    }
}
