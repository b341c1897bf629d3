public import EdgeSwipeCore

/// Which earlier undelivered message a progress-only message supersedes: the latest wins per transition, and
/// per device for gestures.
public enum CoalescingKey: Hashable, Sendable {
    case transition(TransitionID)
    case gesture(DeviceID)
}

/// What a message means for delivery: whether it may be coalesced or thinned, and which transition it belongs to.
public enum DeliveryRole: Hashable, Sendable {
    /// Never dropped: phase changes, lifecycle, state, device, config, hello, reply, error, goodbye.
    case essential
    /// A finger-driven update (gesture `changed`, transition `changed`): a slow client may get only the latest.
    case progress(CoalescingKey)
    /// A server-side run-out frame: coalesced like progress, and thinned or dropped by the client's `tick_hz`.
    case runOutFrame(TransitionID)
    /// The event that starts a run-out (it carries the `animation` spec); essential.
    case runOutStart(TransitionID)
    /// `completed` or `cancelled`; essential.
    case terminal(TransitionID)

    public var coalescingKey: CoalescingKey? {
        switch self {
        case .progress(let key): key
        case .runOutFrame(let id): .transition(id)
        case .essential, .runOutStart, .terminal: nil
        }
    }
}

/// One encoded message in an ``EncodedBatch``: its line is `type.linePrefix`, then the connection's `seq`,
/// then the bytes of `tail` (which start with `,"time_us":` and end with `}\n`).
public struct EncodedMessage: Hashable, Sendable {
    public var type: MessageType
    public var timeUS: UInt64
    public var role: DeliveryRole
    public var tail: Range<Int>

    /// The length of the line with a `seq` of up to 20 digits: an upper bound for buffer sizing.
    public var maxLineByteCount: Int { type.linePrefix.utf8CodeUnitCount + 20 + tail.count }
}

/// What a `reply` carries, by op.
public enum ReplyResult: Hashable, Sendable {
    /// `{}` (ping).
    case empty
    /// The subscription now in force.
    case subscribed(Subscription)
    /// Protocol and server version, devices, configuration and state.
    case status(ServerSnapshot)
    case devices([TouchDevice])
    /// A control request started this transition.
    case transition(TransitionID)
    /// `set-rotation`: the devices turned now, and those with a finger down that turn when it lifts.
    case rotation(applied: [DeviceID], pending: [DeviceID])
}

/// Messages encoded once, to be sent to any number of connections with their own `seq`.
///
/// Encoding is the per-event cost of the server, so the body of each message is written once into one byte
/// array (reused across publishes by ``removeAll()``), and only the short `{"type":…,"seq":N` prefix is written
/// per connection. Trace events encode to nothing.
public struct EncodedBatch: Sendable {
    public private(set) var messages: [EncodedMessage] = []
    private var w: JSONWriter

    /// An empty batch with room for `capacity` bytes of message bodies.
    public init(capacity: Int = 4096) {
        w = JSONWriter(capacity: capacity)
    }

    /// The size of all tails, back to back.
    public var byteCount: Int { w.count }
    public var count: Int { messages.count }
    public var isEmpty: Bool { messages.isEmpty }

    /// Empties the batch, keeping its storage.
    public mutating func removeAll() {
        messages.removeAll(keepingCapacity: true)
        w.removeAll()
    }

    /// Appends line `index` with `seq` to `out`.
    public func appendLine(_ index: Int, seq: UInt64, to out: inout [UInt8]) {
        let m = messages[index]
        m.type.linePrefix.withUTF8Buffer { out.append(contentsOf: $0) }
        JSONWriter.appendDecimal(seq, to: &out)
        withTail(index) { out.append(contentsOf: $0) }
    }

    /// Line `index` with `seq`, newline included.
    public func line(_ index: Int, seq: UInt64) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(messages[index].maxLineByteCount)
        appendLine(index, seq: seq, to: &out)
        return out
    }

    /// The tail bytes of message `index`, for writing straight into a network buffer.
    public func withTail<R>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try w.withBytes { try body(UnsafeRawBufferPointer(rebasing: $0[messages[index].tail])) }
    }

    // MARK: Engine events

    /// Appends the message for `event`; returns `false` for trace events, which are not sent.
    @discardableResult
    public mutating func append(_ event: EngineEvent) -> Bool {
        // Each message is built in place and written from there: a transition is a few hundred bytes, worth not
        // copying again.
        switch event {
        case .gesture(let e):
            var m = GestureMessage(e)
            append(&m, role: e.state == .changed ? .progress(.gesture(e.device)) : .essential)
        case .transition(let e):
            var m = TransitionMessage(e)
            append(&m, role: Self.role(of: e))
        case .lifecycle(let e):
            var m = LifecycleMessage(e)
            append(&m)
        case .presentation(let e):
            var m = PresentationMessage(e)
            append(&m)
        case .interaction(let e):
            var m = InteractionMessage(e)
            append(&m)
        case .state(let s):
            var m = StateMessage(s)
            append(&m)
        case .device(let e):
            var m = DeviceMessage(e)
            append(&m)
        case .trace:
            return false
        }
        return true
    }

    private static func role(of e: TransitionEvent) -> DeliveryRole {
        if e.phase.isTerminal { return .terminal(e.id) }
        if e.isProgress { return e.phase.isRunningOut ? .runOutFrame(e.id) : .progress(.transition(e.id)) }
        if e.phase.isRunningOut { return .runOutStart(e.id) }
        return .essential
    }

    /// Appends `m`'s tail: every field after `seq`, as its description lists them.
    private mutating func append<M: WireMessage>(_ m: inout M, role: DeliveryRole = .essential) {
        let start = w.count
        w.field("time_us", &m.timeUS)
        m.body(&w)
        w.raw("}\n")
        messages.append(EncodedMessage(type: M.type, timeUS: m.timeUS, role: role, tail: start..<w.count))
    }

    // MARK: Server messages

    /// The first message of every connection.
    public mutating func appendHello(
        _ s: ServerSnapshot, access: AccessInfo, maxLineBytes: Int = WireProtocol.maxLineBytes, time: MonotonicInstant
    ) {
        var m = HelloMessage(s, access: access, maxLineBytes: maxLineBytes, time: time)
        append(&m)
    }

    /// Appends a `reply` to the request `id` (with `op`).
    public mutating func appendReply(id: RequestID?, op: String, result: ReplyResult, time: MonotonicInstant) {
        var m = ReplyMessage(timeUS: time.microseconds, id: id, op: op, result: ReplyPayload(result))
        append(&m)
    }

    /// Appends an `error`; its `message` names the place and the problem (``RequestError/message``).
    public mutating func appendError(_ error: RequestError, time: MonotonicInstant) {
        var m = ErrorMessage(error, time: time)
        append(&m)
    }

    /// Appends a `config` message; `config` is the new summary when it was reloaded.
    public mutating func appendConfig(_ result: ConfigResult, message: String, config: ConfigSummary?, time: MonotonicInstant) {
        var m = ConfigMessage(timeUS: time.microseconds, result: result, message: message, config: config)
        append(&m)
    }

    /// Appends the `goodbye` that ends a connection.
    public mutating func appendGoodbye(_ reason: GoodbyeReason, message: String, time: MonotonicInstant) {
        var m = GoodbyeMessage(timeUS: time.microseconds, reason: reason.rawValue, message: message)
        append(&m)
    }
}
