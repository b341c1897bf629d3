public import EdgeSwipeCore
public import EdgeSwipeProtocol

// The daemon's side of the encoder: engine events, and the replies and greetings built from the engine's values,
// appended to an `EncodedBatch` as the protocol's messages.

extension EncodedBatch {
    /// Appends the message for `event`; returns `false` for trace events, which are not sent.
    @discardableResult
    public mutating func append(_ event: EngineEvent) -> Bool {
        // Each message is built in place and written from there: a transition is a few hundred bytes, worth not
        // copying again.
        switch event {
        case .gesture(let e):
            var m = GestureMessage(e)
            append(&m)
        case .transition(let e):
            var m = TransitionMessage(e)
            append(&m)
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

    /// The first message of every connection.
    public mutating func appendHello(
        _ s: ServerSnapshot, access: AccessInfo, maxLineBytes: Int = WireProtocol.maxLineBytes, time: MonotonicInstant
    ) {
        var m = HelloMessage(s, access: access, maxLineBytes: maxLineBytes, time: time)
        append(&m)
    }

    /// Appends a `reply` to the request `id` (with `op`).
    public mutating func appendReply(id: RequestID?, op: String, result: ReplyResult, time: MonotonicInstant) {
        appendReply(id: id, op: op, payload: ReplyPayload(result), time: time)
    }
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
