/// Constants of protocol v1 (`docs/PROTOCOL.md`).
public enum WireProtocol {
    /// Bumped only for changes that break existing clients; additions (new fields, message types, ops, error
    /// codes) keep the version, and clients ignore what they do not know.
    public static let version = 1
    /// The longest line either side accepts, terminator excluded.
    public static let maxLineBytes = 64 * 1024
    /// The longest `hello` (or `status` reply) a server sends, and so what clients must be ready to read:
    /// ``StateLimits`` keep the state and the configuration small enough for it.
    public static let maxHelloBytes = 1 << 20
}

/// What a client can subscribe to. `hello`, `reply`, `error` and `goodbye` are always delivered.
public enum Topic: String, Hashable, Sendable, Codable, CaseIterable, Comparable {
    case gesture, transition, lifecycle, state, device, config

    public static func < (a: Topic, b: Topic) -> Bool { a.bit < b.bit }

    var bit: UInt8 {
        switch self {
        case .gesture: 1 << 0
        case .transition: 1 << 1
        case .lifecycle: 1 << 2
        case .state: 1 << 3
        case .device: 1 << 4
        case .config: 1 << 5
        }
    }
}

/// A set of topics as a bit mask, so that filtering a message per connection is one AND.
public struct TopicSet: Hashable, Sendable {
    public private(set) var rawValue: UInt8
    public init<S: Sequence>(_ topics: S) where S.Element == Topic {
        rawValue = 0
        for t in topics { rawValue |= t.bit }
    }
    public static let all = TopicSet(Topic.allCases)
    public func contains(_ topic: Topic) -> Bool { rawValue & topic.bit != 0 }
    /// The members in declaration order, so that replies list them stably.
    public var members: [Topic] { Topic.allCases.filter(contains) }
}

/// The `type` of a server message.
public enum MessageType: String, Hashable, Sendable, Codable, CaseIterable {
    case hello, gesture, transition, lifecycle, presentation, interaction, state, device, config, error, reply, goodbye

    /// The topic a message belongs to; `nil` for the messages every connection receives. The presentation
    /// controller's callbacks go with the appearance callbacks they bracket; the coordinator's interaction
    /// changes go with the transition they belong to.
    public var topic: Topic? {
        switch self {
        case .gesture: .gesture
        case .transition, .interaction: .transition
        case .lifecycle, .presentation: .lifecycle
        case .state: .state
        case .device: .device
        case .config: .config
        case .hello, .error, .reply, .goodbye: nil
        }
    }

    /// The bytes every line of this type starts with, up to the per-connection `seq` value.
    public var linePrefix: StaticString {
        switch self {
        case .hello: #"{"type":"hello","seq":"#
        case .gesture: #"{"type":"gesture","seq":"#
        case .transition: #"{"type":"transition","seq":"#
        case .lifecycle: #"{"type":"lifecycle","seq":"#
        case .presentation: #"{"type":"presentation","seq":"#
        case .interaction: #"{"type":"interaction","seq":"#
        case .state: #"{"type":"state","seq":"#
        case .device: #"{"type":"device","seq":"#
        case .config: #"{"type":"config","seq":"#
        case .error: #"{"type":"error","seq":"#
        case .reply: #"{"type":"reply","seq":"#
        case .goodbye: #"{"type":"goodbye","seq":"#
        }
    }
}

/// The `id` a client puts on a request; replies and errors echo it with the same JSON type.
public enum RequestID: Hashable, Sendable, Codable, CustomStringConvertible {
    case int(Int64)
    case string(String)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let i = try? c.decode(Int64.self) {
            self = .int(i)
        } else {
            self = .string(try c.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .int(let i): try c.encode(i)
        case .string(let s): try c.encode(s)
        }
    }

    public var description: String {
        switch self {
        case .int(let i): "\(i)"
        case .string(let s): "\"\(s)\""
        }
    }

}

/// The `code` of an `error` message. Open-ended: transition refusals from the engine bring their own codes.
public struct ErrorCode: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }

    /// The line is not JSON.
    public static let malformedJSON = ErrorCode("malformed-json")
    /// The line is JSON but not an object.
    public static let notAnObject = ErrorCode("not-an-object")
    /// The line passed the length cap; the rest of it was discarded.
    public static let lineTooLong = ErrorCode("line-too-long")
    /// The object has no `op`.
    public static let missingOp = ErrorCode("missing-op")
    public static let unknownOp = ErrorCode("unknown-op")
    public static let missingField = ErrorCode("missing-field")
    public static let invalidField = ErrorCode("invalid-field")
    /// The peer may read but not control.
    public static let forbidden = ErrorCode("forbidden")
    /// Nobody behind the server can answer the request (the daemon installed no handler).
    public static let unavailable = ErrorCode("unavailable")
    /// Too many requests of this connection are still waiting for their replies.
    public static let tooManyRequests = ErrorCode("too-many-requests")
    /// The daemon failed while handling the request.
    public static let `internal` = ErrorCode("internal")
}

/// Why the server closes a connection.
public enum GoodbyeReason: String, Hashable, Sendable, Codable {
    /// The daemon is stopping.
    case shutdown
    /// The client read too slowly: its backlog passed the bound, or it read nothing for the stall timeout.
    case backlogExceeded = "backlog-exceeded"
    /// The access policy (reloaded, or something it depends on) no longer admits the client.
    case accessRevoked = "access-revoked"
    /// The client was admitted as the user of the seat's active session (`active-session`), and another session
    /// is active now (a VT switch, fast user switching) or none is.
    case sessionInactive = "session-inactive"
    /// No place for this connection: as many clients as the server takes are connected, or all but the places
    /// kept for clients that may control (and this one may only read), or its user has as many as one user may;
    /// sent as the only message of the refused connection, whose message says which.
    case tooManyClients = "too-many-clients"
}

/// How a reloaded configuration went.
public enum ConfigResult: String, Hashable, Sendable, Codable {
    case reloaded, rejected
}
