public import EdgeSwipeCore

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

/// Turns engine events into the lines one subscribed client would receive, numbering them from 1.
///
/// This is the server's encoding without the network: `edgeswipectl replay --json` prints it, and benchmarks
/// measure it. It never coalesces (a reader of a file is never slow).
public struct ProtocolLineEncoder: Sendable {
    /// The `seq` of the next line.
    public private(set) var nextSeq: UInt64 = 1
    public var filter: SubscriptionFilter
    private var batch = EncodedBatch()

    public init(subscription: Subscription = .everything) {
        filter = SubscriptionFilter(subscription)
    }

    /// Appends the hello line a connecting client would get first.
    public mutating func encodeHello(
        _ snapshot: ServerSnapshot, access: AccessInfo = AccessInfo(read: true, control: true), time: MonotonicInstant,
        into out: inout [UInt8]
    ) {
        batch.removeAll()
        batch.appendHello(snapshot, access: access, time: time)
        flush(into: &out)
    }

    /// Appends one line per event the subscription admits (trace events produce none).
    public mutating func encode<S: Sequence>(_ events: S, into out: inout [UInt8]) where S.Element == EngineEvent {
        batch.removeAll()
        for e in events { batch.append(e) }
        flush(into: &out)
    }

    /// Appends the line for one event, if any; the allocation-free path for a per-event loop.
    public mutating func encode(_ event: EngineEvent, into out: inout [UInt8]) {
        batch.removeAll()
        guard batch.append(event) else { return }
        flush(into: &out)
    }

    private mutating func flush(into out: inout [UInt8]) {
        for i in 0..<batch.count where filter.admits(batch.messages[i]) {
            batch.appendLine(i, seq: nextSeq, to: &out)
            nextSeq += 1
        }
    }
}
