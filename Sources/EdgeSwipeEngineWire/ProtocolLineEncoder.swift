public import EdgeSwipeCore
public import EdgeSwipeProtocol

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
        // The batch's list read once: from outside the protocol module, each read of `messages` is a call.
        let messages = batch.messages
        for i in messages.indices where filter.admits(messages[i]) {
            batch.appendLine(i, seq: nextSeq, to: &out)
            nextSeq += 1
        }
    }
}
