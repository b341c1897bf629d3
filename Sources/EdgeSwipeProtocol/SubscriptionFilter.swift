/// Applies one connection's subscription: topic filtering, and thinning of run-out frames to its `tick_hz`.
///
/// Frames are thinned per transition by their own `time_us`, so the result does not depend on when the server
/// happens to send them. The run-out start (which carries the animation spec) counts as the first frame.
public struct SubscriptionFilter: Sendable {
    public var subscription: Subscription {
        didSet { lastFrameUS.removeAll() }
    }
    private var lastFrameUS: [TransitionID: UInt64] = [:]

    public init(_ subscription: Subscription = .everything) {
        self.subscription = subscription
    }

    /// Whether a connection with this subscription receives `message`.
    public mutating func admits(_ message: EncodedMessage) -> Bool {
        if let topic = message.type.topic, !subscription.topics.contains(topic) { return false }
        switch message.role {
        case .essential, .progress:
            return true
        case .terminal(let id):
            lastFrameUS[id] = nil
            return true
        case .runOutStart(let id):
            if case .hz = subscription.ticks { lastFrameUS[id] = message.timeUS }
            return true
        case .runOutFrame(let id):
            switch subscription.ticks {
            case .every: return true
            case .none: return false
            case .hz(let hz):
                let intervalUS = UInt64(max(1, (1_000_000 / hz).rounded()))
                if let last = lastFrameUS[id], message.timeUS >= last, message.timeUS - last < intervalUS { return false }
                lastFrameUS[id] = message.timeUS
                return true
            }
        }
    }
}
