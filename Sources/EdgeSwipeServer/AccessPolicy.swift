/// Who is on the other end of a connection, as the kernel recorded it at `connect` (`SO_PEERCRED`), plus the
/// peer's supplementary groups (`SO_PEERGROUPS`) when the kernel reports them.
public struct PeerCredentials: Hashable, Sendable, CustomStringConvertible {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32
    public var groups: [UInt32]

    public init(pid: Int32, uid: UInt32, gid: UInt32, groups: [UInt32] = []) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.groups = groups
    }

    public var description: String { "pid \(pid) uid \(uid) gid \(gid)" }
}

/// What an access decision depends on besides the policy and the peer: facts that change while the daemon runs.
/// The server re-evaluates every open connection when they change (``EdgeSwipeServer/updateAccessContext(_:revokedReason:)``).
public struct AccessContext: Hashable, Sendable {
    /// The uids of the sessions that are active on the daemon's seat now (logind's), for grants that admit
    /// ``AccessGrant/activeSession``. Empty: nobody's session is active.
    public var activeSessionUIDs: Set<UInt32>

    public init(activeSessionUIDs: Set<UInt32> = []) {
        self.activeSessionUIDs = activeSessionUIDs
    }
}

/// A set of users and groups.
public struct AccessGrant: Hashable, Sendable {
    public var uids: Set<UInt32>
    public var gids: Set<UInt32>
    /// Also admits the uid of the session active on the seat, whoever that is at the moment
    /// (``AccessContext/activeSessionUIDs``).
    public var activeSession: Bool
    /// Also admits the group that owns the socket: the server adds its gid to ``gids`` when the policy is put in
    /// force (the configuration names the group this way without knowing its number).
    public var socketGroup: Bool

    public init(uids: Set<UInt32> = [], gids: Set<UInt32> = [], activeSession: Bool = false, socketGroup: Bool = false) {
        self.uids = uids
        self.gids = gids
        self.activeSession = activeSession
        self.socketGroup = socketGroup
    }

    /// The grant with ``socketGroup`` turned into that group's gid.
    public func resolved(socketGroup gid: UInt32) -> AccessGrant {
        guard socketGroup else { return self }
        var g = self
        g.gids.insert(gid)
        g.socketGroup = false
        return g
    }

    public static let nobody = AccessGrant()

    /// Whether the peer's uid, primary gid or one of its supplementary groups is listed, or (when the grant says
    /// so) its uid is that of an active session in `context`.
    public func admits(_ peer: PeerCredentials, in context: AccessContext = AccessContext()) -> Bool {
        uids.contains(peer.uid) || gids.contains(peer.gid) || peer.groups.contains(where: gids.contains)
            || (activeSession && context.activeSessionUIDs.contains(peer.uid))
    }
}

/// What a peer may do.
public enum AccessLevel: Int, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Rejected: the connection is closed before any byte is sent.
    case none
    /// Receive messages and send `subscribe`, `ping`, `status` and `devices`.
    case read
    /// Also start transitions (`push`, `pop`, `present`, ...).
    case control

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    public var description: String {
        switch self {
        case .none: "none"
        case .read: "read"
        case .control: "control"
        }
    }
}

/// Who may connect and who may control. A peer the control grant admits may also read.
public struct AccessPolicy: Hashable, Sendable {
    public var read: AccessGrant
    public var control: AccessGrant

    public init(read: AccessGrant, control: AccessGrant) {
        self.read = read
        self.control = control
    }

    /// The default: the daemon's own user and the socket's group may read and control.
    public static func owner(uid: UInt32, socketGroup gid: UInt32) -> AccessPolicy {
        let grant = AccessGrant(uids: [uid], gids: [gid])
        return AccessPolicy(read: grant, control: grant)
    }

    /// The policy with "the socket's group" turned into `gid` in both grants.
    public func resolved(socketGroup gid: UInt32) -> AccessPolicy {
        AccessPolicy(read: read.resolved(socketGroup: gid), control: control.resolved(socketGroup: gid))
    }

    /// Whether either grant admits the seat's active session (the daemon then follows logind).
    public var followsActiveSession: Bool { read.activeSession || control.activeSession }

    /// What `peer` may do under this policy, given the facts in `context`. The server asks at connect time and
    /// again for every open connection whenever the policy or the context changes.
    public func level(for peer: PeerCredentials, in context: AccessContext = AccessContext()) -> AccessLevel {
        if control.admits(peer, in: context) { return .control }
        if read.admits(peer, in: context) { return .read }
        return .none
    }
}

/// How a re-evaluation of access changed the open connections.
public struct AccessChange: Hashable, Sendable {
    /// Connections closed with a `goodbye`: no longer admitted.
    public var revoked = 0
    /// Connections that could control and now only read.
    public var downgraded = 0
    /// Connections that could only read and now control.
    public var upgraded = 0
    public init() {}
}
