import CSystemCalls
import Glibc
public import SystemPackage

// Unix-domain sockets, which swift-system does not cover: the address, and the calls that take one. The server
// binds and accepts with these, sd_notify sends with them, edgeswipectl, the bench and the tests connect with them.

/// The address of a Unix socket (`sockaddr_un`): a path in the filesystem or, written `@name` as systemd writes
/// `NOTIFY_SOCKET`, a name in the abstract namespace.
public struct UnixSocketAddress: Hashable, Sendable, CustomStringConvertible {
    /// The longest address `sun_path` holds: 107 bytes of path and a terminator.
    public static let maxPathBytes = 107

    /// As given (`@name` for an abstract name).
    public let path: String
    /// The bytes of `sun_path`: the path, or for an abstract name a NUL and the name.
    private let bytes: [UInt8]

    /// Fails for a path longer than ``maxPathBytes``.
    public init(_ path: String) throws(UnixSocketAddressTooLong) {
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        guard bytes.count <= Self.maxPathBytes else { throw UnixSocketAddressTooLong(path: path, bytes: bytes.count) }
        self.path = path
        self.bytes = bytes
    }

    /// Whether it names an abstract socket (no file).
    public var isAbstract: Bool { bytes.first == 0 }

    public var description: String { path }

    /// Calls `body` with the `sockaddr_un` and its length: the family and the path with its terminator, or for an
    /// abstract name exactly its bytes (a terminator would become part of the name).
    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (isAbstract ? 0 : 1))
        return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) } }
    }
}

/// A Unix socket path that does not fit in `sockaddr_un`.
public struct UnixSocketAddressTooLong: Error, Hashable, Sendable, CustomStringConvertible {
    public var path: String
    public var bytes: Int
    public init(path: String, bytes: Int) {
        self.path = path
        self.bytes = bytes
    }
    public var description: String {
        "\(path): socket path is \(bytes) bytes; Unix sockets allow at most \(UnixSocketAddress.maxPathBytes)"
    }
}

/// The credentials the kernel recorded for the peer of a Unix socket when it connected.
public struct SocketPeer: Hashable, Sendable {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32
    /// Supplementary groups; empty when the kernel cannot tell (before Linux 4.13).
    public var groups: [UInt32]
}

/// What a descriptor is, as a socket.
public struct SocketFacts: Hashable, Sendable {
    public enum Kind: Hashable, Sendable { case stream, datagram, other }
    public var kind: Kind
    public var isUnixDomain: Bool
    /// `listen` was called on it.
    public var isListening: Bool
    public init(kind: Kind, isUnixDomain: Bool, isListening: Bool) {
        self.kind = kind
        self.isUnixDomain = isUnixDomain
        self.isListening = isListening
    }
}

extension FileDescriptor {
    /// The kinds of Unix socket EdgeSwipe uses.
    public enum UnixSocketKind: Sendable {
        /// `SOCK_STREAM`: the daemon's socket.
        case stream
        /// `SOCK_DGRAM`: sd_notify's.
        case datagram
    }

    /// Flags of ``send(_:to:flags:)`` and ``receive(into:flags:)``.
    public struct MessageFlags: OptionSet, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// A peer that has gone makes the call fail with `EPIPE` rather than raise SIGPIPE.
        public static let noSignal = MessageFlags(rawValue: Int32(MSG_NOSIGNAL))
        /// This call does not block, whatever the descriptor's mode (`EAGAIN` instead).
        public static let dontWait = MessageFlags(rawValue: Int32(MSG_DONTWAIT))
    }

    /// A new Unix socket, close-on-exec (and non-blocking if asked).
    public static func unixSocket(_ kind: UnixSocketKind, nonBlocking: Bool = false) throws(Errno) -> FileDescriptor {
        let type = kind == .stream ? Int32(SOCK_STREAM.rawValue) : Int32(SOCK_DGRAM.rawValue)
        let flags = Int32(SOCK_CLOEXEC.rawValue) | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
        return FileDescriptor(rawValue: try check(socket(AF_UNIX, type | flags, 0)))
    }

    /// A stream socket connected to `address` (closed again if connecting fails).
    public static func connectedUnixSocket(to address: UnixSocketAddress) throws(Errno) -> FileDescriptor {
        let fd = try unixSocket(.stream)
        do { try fd.connect(to: address) } catch {
            try? fd.close()
            throw error
        }
        return fd
    }

    /// A socket bound to `address`, and listening if it is a stream socket and `backlog` is given (closed again if
    /// either fails).
    public static func boundUnixSocket(_ kind: UnixSocketKind, at address: UnixSocketAddress, backlog: Int32? = nil) throws(Errno) -> FileDescriptor {
        let fd = try unixSocket(kind)
        do {
            try fd.bind(to: address)
            if let backlog { try fd.listen(backlog: backlog) }
        } catch {
            try? fd.close()
            throw error
        }
        return fd
    }

    /// `bind(2)`: for a path, the file is created with the socket's mode less the umask.
    public func bind(to address: UnixSocketAddress) throws(Errno) {
        _ = try Self.check(address.withSockaddr { Glibc.bind(rawValue, $0, $1) })
    }

    /// `connect(2)`. (Not retried after `EINTR`: the connection then goes on by itself, and a second call would
    /// fail with `EALREADY`.)
    public func connect(to address: UnixSocketAddress) throws(Errno) {
        _ = try Self.check(address.withSockaddr { Glibc.connect(rawValue, $0, $1) })
    }

    public func listen(backlog: Int32) throws(Errno) {
        _ = try Self.check(Glibc.listen(rawValue, backlog))
    }

    /// The next connection, close-on-exec and non-blocking (`accept4`).
    public func accept() throws(Errno) -> FileDescriptor {
        FileDescriptor(
            rawValue: try Self.check(
                retryingInterrupts: accept4(rawValue, nil, nil, Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue))))
    }

    /// Sends `bytes` (to `address`, for an unconnected datagram socket); the number of bytes sent.
    @discardableResult
    public func send(_ bytes: UnsafeRawBufferPointer, to address: UnixSocketAddress? = nil, flags: MessageFlags = .noSignal) throws(Errno) -> Int {
        while true {
            let sent: Int
            if let address {
                sent = address.withSockaddr { sendto(rawValue, bytes.baseAddress, bytes.count, flags.rawValue, $0, $1) }
            } else {
                sent = Glibc.send(rawValue, bytes.baseAddress, bytes.count, flags.rawValue)
            }
            if sent >= 0 { return sent }
            if errno != EINTR { throw Errno(rawValue: errno) }
        }
    }

    /// Receives into `buffer`; 0 at end of stream.
    public func receive(into buffer: UnsafeMutableRawBufferPointer, flags: MessageFlags = []) throws(Errno) -> Int {
        while true {
            let received = recv(rawValue, buffer.baseAddress, buffer.count, flags.rawValue)
            if received >= 0 { return received }
            if errno != EINTR { throw Errno(rawValue: errno) }
        }
    }

    /// Ends sending (`SHUT_WR`), or both directions.
    public func shutdown(reading: Bool = false) {
        _ = Glibc.shutdown(rawValue, reading ? Int32(SHUT_RDWR) : Int32(SHUT_WR))
    }

    /// The filesystem path a Unix socket is bound to; `nil` for an abstract or unnamed socket, or not a Unix one.
    public var boundUnixPath: String? {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let ok = withUnsafeMutablePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(rawValue, $0, &length) == 0 }
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

    /// Sets the kernel's send buffer (`SO_SNDBUF`; the kernel doubles it and keeps a minimum); returns what is in
    /// force.
    @discardableResult
    public func setSendBufferSize(_ bytes: Int32) throws(Errno) -> Int32 {
        var value = bytes
        guard setsockopt(rawValue, SOL_SOCKET, SO_SNDBUF, &value, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw Errno(rawValue: errno)
        }
        return intSocketOption(SOL_SOCKET, SO_SNDBUF) ?? bytes
    }

    /// What the descriptor is as a socket; `nil` when it is not one.
    public func socketFacts() -> SocketFacts? {
        guard let type = intSocketOption(SOL_SOCKET, SO_TYPE) else { return nil }
        let kind: SocketFacts.Kind =
            type == Int32(SOCK_STREAM.rawValue) ? .stream : type == Int32(SOCK_DGRAM.rawValue) ? .datagram : .other
        return SocketFacts(
            kind: kind, isUnixDomain: intSocketOption(SOL_SOCKET, SO_DOMAIN) == AF_UNIX,
            isListening: intSocketOption(SOL_SOCKET, SO_ACCEPTCONN) == 1)
    }

    private func intSocketOption(_ level: Int32, _ name: Int32) -> Int32? {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(rawValue, level, name, &value, &length) == 0 else { return nil }
        return value
    }

    /// The peer's credentials as the kernel recorded them at `connect` (`SO_PEERCRED`), with its supplementary
    /// groups (`SO_PEERGROUPS`), so that a user whose membership of the socket's group is supplementary (the usual
    /// case) is recognised.
    public func peerCredentials() throws(Errno) -> SocketPeer {
        var cred = UCred()
        var length = socklen_t(MemoryLayout<UCred>.size)
        guard getsockopt(rawValue, SOL_SOCKET, SO_PEERCRED, &cred, &length) == 0 else { throw Errno(rawValue: errno) }
        guard length == socklen_t(MemoryLayout<UCred>.size) else { throw Errno.invalidArgument }
        return SocketPeer(pid: cred.pid, uid: cred.uid, gid: cred.gid, groups: supplementaryGroups())
    }

    /// Empty if the kernel does not report them.
    private func supplementaryGroups() -> [UInt32] {
        var capacity = 32
        while capacity <= 65536 {
            var groups = [gid_t](repeating: 0, count: capacity)
            var length = socklen_t(capacity * MemoryLayout<gid_t>.size)
            if getsockopt(rawValue, SOL_SOCKET, soPeerGroups, &groups, &length) == 0 {
                return Array(groups.prefix(Int(length) / MemoryLayout<gid_t>.size))
            }
            // ERANGE reports the length needed; anything else means the kernel cannot tell.
            guard errno == ERANGE else { return [] }
            capacity = max(capacity * 2, Int(length) / MemoryLayout<gid_t>.size)
        }
        return []
    }
}

/// `SO_PEERGROUPS` (Linux 4.13), which older C library headers lack.
private let soPeerGroups: Int32 = 59

/// `struct ucred` from `<sys/socket.h>`, which Swift's Glibc module hides (it is behind `_GNU_SOURCE`).
private struct UCred {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}
