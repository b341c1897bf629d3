import Glibc

// Thin wrappers over the socket calls the server makes itself (listening, accepting, peer credentials, sd_notify).
// NIO only ever sees connections that passed the access check.

func errnoDescription(_ code: Int32) -> String {
    String(cString: strerror(code))
}

/// Fills a `sockaddr_un` for `path` and calls `body` with it and its length. A leading `@` names an abstract
/// socket (as systemd writes `NOTIFY_SOCKET`): the `@` becomes a NUL and the length excludes a terminator.
func withUnixAddress<R>(
    _ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) throws(ServerError) -> R
) throws(ServerError) -> R {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    var bytes = Array(path.utf8)
    let abstract = bytes.first == UInt8(ascii: "@")
    if abstract { bytes[0] = 0 }
    let capacity = MemoryLayout.size(ofValue: address.sun_path)
    guard bytes.count < capacity else { throw .pathTooLong(path: path, bytes: bytes.count) }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        raw.copyBytes(from: bytes)
    }
    let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1))
    let result: Result<R, ServerError> = withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
            do throws(ServerError) { return .success(try body(sa, length)) } catch { return .failure(error) }
        }
    }
    return try result.get()
}

/// Sets `FD_CLOEXEC` so that nothing the daemon spawns inherits the descriptor.
func setCloseOnExec(_ fd: Int32) {
    let flags = fcntl(fd, F_GETFD)
    if flags >= 0 { _ = fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
}

func setNonBlocking(_ fd: Int32) {
    let flags = fcntl(fd, F_GETFL)
    if flags >= 0 { _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
}

func intSocketOption(_ fd: Int32, _ level: Int32, _ name: Int32) -> Int32? {
    var value: Int32 = 0
    var length = socklen_t(MemoryLayout<Int32>.size)
    guard getsockopt(fd, level, name, &value, &length) == 0 else { return nil }
    return value
}

/// The path a Unix socket is bound to, if it has one (not abstract, not unnamed).
func boundPath(of fd: Int32) -> String? {
    var address = sockaddr_un()
    var length = socklen_t(MemoryLayout<sockaddr_un>.size)
    let ok = withUnsafeMutablePointer(to: &address) { p in
        p.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) == 0 }
    }
    guard ok, address.sun_family == sa_family_t(AF_UNIX) else { return nil }
    let pathLength = Int(length) - MemoryLayout<sa_family_t>.size
    guard pathLength > 0 else { return nil }
    return withUnsafeBytes(of: &address.sun_path) { raw in
        let bytes = raw.prefix(pathLength)
        guard let first = bytes.first, first != 0 else { return nil }
        return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }
}

/// `SO_PEERGROUPS` (Linux 4.13), which older C library headers lack.
private let soPeerGroups: Int32 = 59

/// `struct ucred` from `<sys/socket.h>` (also hidden behind `_GNU_SOURCE`).
private struct UCred {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}

/// Reads the credentials the kernel recorded when the peer connected.
func peerCredentials(of fd: Int32) throws(ServerError) -> PeerCredentials {
    var cred = UCred()
    var length = socklen_t(MemoryLayout<UCred>.size)
    guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &length) == 0, length == socklen_t(MemoryLayout<UCred>.size) else {
        throw .system(call: "getsockopt(SO_PEERCRED)", subject: "connection", errno: errno)
    }
    return PeerCredentials(pid: cred.pid, uid: cred.uid, gid: cred.gid, groups: supplementaryGroups(of: fd))
}

/// The peer's supplementary groups (`SO_PEERGROUPS`), so that a user whose membership of the socket's group is
/// supplementary (the usual case) is recognised. Empty if the kernel does not report them.
private func supplementaryGroups(of fd: Int32) -> [UInt32] {
    var capacity = 32
    while capacity <= 65536 {
        var groups = [gid_t](repeating: 0, count: capacity)
        var length = socklen_t(capacity * MemoryLayout<gid_t>.size)
        if getsockopt(fd, SOL_SOCKET, soPeerGroups, &groups, &length) == 0 {
            return Array(groups.prefix(Int(length) / MemoryLayout<gid_t>.size))
        }
        // ERANGE reports the length needed; anything else means the kernel cannot tell.
        guard errno == ERANGE else { return [] }
        capacity = max(capacity * 2, Int(length) / MemoryLayout<gid_t>.size)
    }
    return []
}

/// `CLOCK_MONOTONIC` in microseconds: the clock of libinput and evdev timestamps.
func monotonicMicroseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000 + UInt64(ts.tv_nsec) / 1000
}

/// `accept` plus close-on-exec and non-blocking (`accept4` is not exported by the Glibc module).
func acceptConnection(_ listener: Int32) -> Int32 {
    let fd = accept(listener, nil, nil)
    if fd >= 0 {
        setCloseOnExec(fd)
        setNonBlocking(fd)
    }
    return fd
}

/// A pipe whose ends are close-on-exec and non-blocking.
func makeWakePipe() -> (read: Int32, write: Int32)? {
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { return nil }
    for fd in fds {
        setCloseOnExec(fd)
        setNonBlocking(fd)
    }
    return (fds[0], fds[1])
}
