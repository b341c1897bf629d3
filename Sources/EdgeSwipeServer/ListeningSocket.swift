import EdgeSwipeSystem
import Glibc
import NIOConcurrencyHelpers
import SystemPackage

/// The listening socket: bound by us (and removed again at shutdown), or adopted from systemd.
struct ListeningSocket: Sendable {
    let fd: FileDescriptor
    /// The path we bound, with the file's identity, so that shutdown removes the file only if it is still ours.
    let ownedPath: (path: String, file: FileIdentity)?
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
        let fd: FileDescriptor
        do { fd = try .unixSocket(.stream, nonBlocking: true) } catch { throw .system(call: "socket", subject: path, errno: error.rawValue) }
        do throws(ServerError) {
            do { try fd.setPermissions(FilePermissions(rawValue: mode_t(mode))) } catch {
                throw .system(call: "fchmod (the socket, before bind)", subject: path, errno: error.rawValue)
            }
            let address = try unixAddress(path)
            // Every file the daemon creates names its mode, so clearing the umask for this call cannot widen anything
            // another thread creates meanwhile.
            let bound = bindLock.withLockedValue { _ -> Result<Void, Errno> in
                let saved = umask(0)
                defer { umask(saved) }
                return Result(catching: { () throws(Errno) in try fd.bind(to: address) })
            }
            if case .failure(let error) = bound {
                throw error == .addressInUse ? .socketInUse(path: path) : .system(call: "bind", subject: path, errno: error.rawValue)
            }
            do { try fd.listen(backlog: backlog) } catch { throw .system(call: "listen", subject: path, errno: error.rawValue) }
            // Without following the path: what is there must be the socket just bound.
            let st: Stat
            do { st = try Stat(FilePath(path), followTargetSymlink: false) } catch {
                throw .system(call: "lstat", subject: path, errno: error.rawValue)
            }
            guard st.type == .socket else {
                throw .pathOccupied(path: path, what: "no longer the socket just bound (it was replaced right after bind)")
            }
            return ListeningSocket(fd: fd, ownedPath: (path, FileIdentity(st)), group: st.groupID.rawValue)
        } catch {
            try? fd.close()
            throw error
        }
    }

    /// Adopts a descriptor that is already listening (socket activation). It is never unlinked by us.
    static func adopt(fd raw: Int32) throws(ServerError) -> ListeningSocket {
        let fd = FileDescriptor(rawValue: raw)
        guard fd.isOpen else { throw .notAListeningSocket(fd: raw, reason: "not an open descriptor") }
        guard let socket = fd.socketFacts() else { throw .notAListeningSocket(fd: raw, reason: "not a socket") }
        guard socket.kind == .stream else {
            throw .notAListeningSocket(fd: raw, reason: "not a stream socket (ListenStream= in the socket unit)")
        }
        guard socket.isUnixDomain else { throw .notAListeningSocket(fd: raw, reason: "not a Unix domain socket") }
        guard socket.isListening else { throw .notAListeningSocket(fd: raw, reason: "the socket is not listening") }
        fd.setCloseOnExec()
        fd.setNonBlocking()
        var group = UInt32(getegid())
        if let path = fd.boundUnixPath, let st = try? Stat(FilePath(path)) { group = st.groupID.rawValue }
        return ListeningSocket(fd: fd, ownedPath: nil, group: group)
    }

    /// Connects to an existing socket file to see whether anyone is listening, and removes it if nobody is.
    static func removeIfStale(_ path: String) throws(ServerError) {
        let st: Stat
        do { st = try Stat(FilePath(path), followTargetSymlink: false) } catch {
            if error == .noSuchFileOrDirectory { return }
            throw .system(call: "lstat", subject: path, errno: error.rawValue)
        }
        guard st.type == .socket else {
            let what = st.type == .directory ? "a directory" : st.type == .symbolicLink ? "a symbolic link" : "a file"
            throw .pathOccupied(path: path, what: what)
        }
        let address = try unixAddress(path)
        let probe: FileDescriptor
        do { probe = try .unixSocket(.stream, nonBlocking: true) } catch { throw .system(call: "socket", subject: path, errno: error.rawValue) }
        defer { try? probe.close() }
        switch Result(catching: { () throws(Errno) in try probe.connect(to: address) }) {
        case .success, .failure(.resourceTemporarilyUnavailable), .failure(.nowInProgress):
            // Accepted, or queued behind a full backlog: somebody is listening.
            throw .socketInUse(path: path)
        case .failure(.connectionRefused):
            guard unlink(path) == 0 || errno == ENOENT else { throw .system(call: "unlink", subject: path, errno: errno) }
        case .failure(.noSuchFileOrDirectory):
            return
        case .failure(let error):
            throw .system(call: "connect (probing for a running daemon)", subject: path, errno: error.rawValue)
        }
    }

    /// Closes the socket and removes the file we created, unless someone replaced it since.
    func close() {
        try? fd.close()
        ownedPath.map { $0.file.removeFile(at: $0.path) }
    }
}

/// The address of `path`, or the error that says it is too long.
func unixAddress(_ path: String) throws(ServerError) -> UnixSocketAddress {
    do { return try UnixSocketAddress(path) } catch { throw .pathTooLong(path: path, bytes: error.bytes) }
}
