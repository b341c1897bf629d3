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

extension TransitionMessage {
    /// Its delivery role, from its phase and `progress`: a terminal phase is kept apart, a progress-only step
    /// coalesces (a run-out frame is also thinned by `tick_hz`), the step that starts a run-out carries its spec.
    public var deliveryRole: DeliveryRole {
        let id = TransitionID(self.id)
        if phase.isTerminal { return .terminal(id) }
        if progress { return phase.isRunningOut ? .runOutFrame(id) : .progress(.transition(id)) }
        if phase.isRunningOut { return .runOutStart(id) }
        return .essential
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

    // MARK: Messages

    // Each message is written from where its builder made it (`inout`): a transition is a few hundred bytes, worth
    // not copying again. Its delivery role comes from its own fields, as a client would read them.

    /// Appends a `gesture`: a `changed` update (`progress`) may be coalesced per device.
    public mutating func append(_ m: inout GestureMessage) {
        append(&m, role: m.progress ? .progress(.gesture(DeviceID(m.device))) : .essential)
    }

    /// Appends a `transition`, with the role its phase and `progress` give it (``TransitionMessage/deliveryRole``).
    public mutating func append(_ m: inout TransitionMessage) { append(&m, role: m.deliveryRole) }
    /// Appends a `lifecycle`; essential, as every message below.
    public mutating func append(_ m: inout LifecycleMessage) { append(&m, role: .essential) }
    /// Appends a `presentation`.
    public mutating func append(_ m: inout PresentationMessage) { append(&m, role: .essential) }
    /// Appends an `interaction`.
    public mutating func append(_ m: inout InteractionMessage) { append(&m, role: .essential) }
    /// Appends a `state`.
    public mutating func append(_ m: inout StateMessage) { append(&m, role: .essential) }
    /// Appends a `device`.
    public mutating func append(_ m: inout DeviceMessage) { append(&m, role: .essential) }

    /// Appends `m`'s tail: every field after `seq`, as its description lists them.
    private mutating func append<M: WireMessage>(_ m: inout M, role: DeliveryRole = .essential) {
        let start = w.count
        w.field("time_us", &m.timeUS)
        m.body(&w)
        w.raw("}\n")
        messages.append(EncodedMessage(type: M.type, timeUS: m.timeUS, role: role, tail: start..<w.count))
    }

    // MARK: Server messages

    /// Appends the first message of every connection.
    public mutating func append(_ m: inout HelloMessage) { append(&m, role: .essential) }

    /// Appends a `reply` to the request `id` (with `op`).
    public mutating func appendReply(id: RequestID?, op: String, payload: ReplyPayload, time: MonotonicInstant) {
        var m = ReplyMessage(timeUS: time.microseconds, id: id, op: op, result: payload)
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
