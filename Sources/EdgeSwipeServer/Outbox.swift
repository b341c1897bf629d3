import EdgeSwipeProtocol
import EdgeSwipeSystem
import SystemPackage

/// A batch of encoded messages shared by every connection that has yet to send some of them; immutable once
/// published.
final class SharedBatch: Sendable {
    let batch: EncodedBatch
    init(_ batch: EncodedBatch) { self.batch = batch }
}

/// A message waiting in an outbox: a reference into a shared batch.
struct QueuedMessage: CoalescingElement {
    let batch: SharedBatch
    let index: Int
    let byteCount: Int
    let coalescingKey: CoalescingKey?
    /// A `reply` or an `error`: what the connection's reading waits on (see ``OutboxState/answersQueued``).
    let isAnswer: Bool
}

/// One connection's undelivered messages, guarded by the connection's lock.
///
/// The publisher appends (any thread); the connection's event loop takes. What is kept is the shared
/// ``CoalescingQueue`` (progress coalesced per key, the rest never dropped, tombstones compacted); around it, this
/// adds what only the server needs: the subscription filter, the queue's slots counted against the byte bound, the
/// answers the connection's reading waits on, the close after the last answer, `seq` numbering and direct writes.
/// A backlog past the bound ends the connection.
///
/// One hop: while the connection is idle (nothing queued, nothing handed to the channel and not yet written, no
/// remainder), the publisher writes a batch's lines straight to the socket, non-blocking, under the connection's
/// lock (``publish(_:directly:scratch:)``); whatever the socket does not take becomes the remainder, which the
/// event loop writes before anything queued after it. Lines are numbered (`seq`) here, as they leave the outbox by
/// either way, so the numbering has no gaps and follows the order of the stream.
struct OutboxState {
    enum Phase: Equatable { case open, closing, overflowed, closed }

    enum EnqueueOutcome: Equatable {
        /// Queued; the event loop is already draining or blocked on writability.
        case queued
        /// Queued; the event loop must be woken to drain.
        case wake
        /// The backlog passed the bound: everything was dropped and the connection must be cut off.
        case overflowed(messages: Int, bytes: Int)
        /// The connection is closing or closed; nothing was queued.
        case refused
        /// Written to the socket whole by the publisher: nothing for the event loop to do.
        case written
    }

    /// The memory of one slot of the queue, counted against the byte bound with the messages themselves.
    static let slotBytes = MemoryLayout<QueuedMessage?>.stride
    /// Tombstones are left alone below this many: compacting a short queue saves nothing.
    static var compactionFloor: Int { CoalescingQueue<QueuedMessage>.compactionFloor }

    let limits: OutboxLimits
    var filter = SubscriptionFilter()
    private(set) var phase = Phase.open
    private var queue = CoalescingQueue<QueuedMessage>(slotBytes: Self.slotBytes)
    var liveCount: Int { queue.liveCount }
    var liveBytes: Int { queue.liveBytes }
    var coalesced: Int { queue.coalesced }
    /// Superseded slots between the head and the end.
    var tombstones: Int { queue.tombstones }
    /// Replies and errors queued and not yet handed to the channel, and their bytes.
    private(set) var answersQueued = 0
    private(set) var answerBytes = 0
    /// Requests of this connection waiting for the daemon's handler. Kept here rather than on the event loop so
    /// that a handler finishing after the connection (or the server) has gone never schedules work on a loop.
    private(set) var requestsInFlight = 0
    /// Set when the event loop found nothing to send, so the next enqueue must wake it.
    private var wakeNeeded = true
    /// The client has finished sending (end of stream, or `shutdown(SHUT_WR)`): once every request it sent is
    /// answered, nothing more is queued and the connection closes after what is queued.
    private(set) var inputEnded = false
    /// The `seq` of the next line this connection is sent.
    private(set) var nextSeq: UInt64 = 1
    /// Buffers the event loop handed to the channel whose write has not completed: the socket may still hold
    /// them back, so the publisher must not write past them.
    private(set) var writesInFlight = 0
    /// The part of a directly written batch the socket did not take (numbered lines, possibly cut mid-line); the
    /// event loop writes it first.
    private(set) var remainder: [UInt8]?
    /// A descriptor of the connection's socket for the publisher's direct writes (a duplicate, so that it stays
    /// this socket until ``close()``, whatever the event loop does with its own); `nil`: never written directly.
    private(set) var directSocket: FileDescriptor?
    /// Batches written whole by the publisher, and those that left a remainder (for tests and statistics).
    private(set) var directWrites = 0
    private(set) var partialDirectWrites = 0

    init(maxMessages: Int, maxBytes: Int, directSocket: FileDescriptor? = nil) {
        self.limits = OutboxLimits(messages: maxMessages, bytes: maxBytes)
        self.directSocket = directSocket
    }

    /// Nothing waits anywhere between the publisher and the socket: a line written now follows every line before
    /// it.
    var isIdle: Bool { phase == .open && queue.slotCount == 0 && writesInFlight == 0 && remainder == nil }

    /// What this connection holds in memory: the messages it has yet to send (each counted in full, although a
    /// message shared by many connections is stored once, because this connection alone can keep it alive) and
    /// the slots of its queue.
    var heldBytes: Int { queue.heldBytes }

    /// Slots between the head and the end, live or superseded (for tests and statistics).
    var slotCount: Int { queue.slotCount }

    mutating func enqueue(_ shared: SharedBatch) -> EnqueueOutcome {
        guard phase == .open else { return .refused }
        return append(shared)
    }

    /// Publishes `shared`: written straight to the socket (non-blocking) when the connection is idle and `directly`,
    /// else queued like ``enqueue(_:)``. A write the socket takes in part leaves the rest as the remainder and asks
    /// for the event loop (`.wake`); a write that fails (the peer has gone) leaves all of it, and the loop's own
    /// write finds the error and closes the connection.
    mutating func publish(_ shared: SharedBatch, directly: Bool, scratch: inout [UInt8]) -> EnqueueOutcome {
        guard phase == .open else { return .refused }
        guard directly, let socket = directSocket, isIdle else { return append(shared) }
        let batch = shared.batch
        scratch.removeAll(keepingCapacity: true)
        for i in 0..<batch.count where filter.admits(batch.messages[i]) {
            batch.appendLine(i, seq: nextSeq, to: &scratch)
            nextSeq += 1
        }
        guard !scratch.isEmpty else { return .written }
        let sent = scratch.withUnsafeBytes { bytes in
            (try? socket.send(bytes, flags: [.noSignal, .dontWait])) ?? 0
        }
        guard sent < scratch.count else {
            directWrites += 1
            return .written
        }
        partialDirectWrites += 1
        remainder = Array(scratch[sent...])
        wakeNeeded = false
        return .wake
    }

    /// Takes the remainder of a direct write, for the event loop to write before anything else; counts it as in
    /// flight.
    mutating func takeRemainder() -> [UInt8]? {
        guard let r = remainder else { return nil }
        remainder = nil
        writesInFlight += 1
        return r
    }

    /// A buffer the event loop handed to the channel has been written (or failed with the connection).
    mutating func writeCompleted() {
        writesInFlight -= 1
    }

    /// Numbers one line the event loop makes itself (a cut-off's goodbye).
    mutating func claimSeq() -> UInt64 {
        defer { nextSeq += 1 }
        return nextSeq
    }

    /// Queues the last message (the shutdown goodbye): afterwards nothing else is accepted, and the connection
    /// closes once the queue has drained.
    mutating func enqueueFinal(_ shared: SharedBatch) -> EnqueueOutcome {
        guard phase == .open else { return .refused }
        let outcome = append(shared)
        if phase == .open { phase = .closing }
        return outcome
    }

    private mutating func append(_ shared: SharedBatch) -> EnqueueOutcome {
        let batch = shared.batch
        var added = false
        for i in 0..<batch.count {
            let message = batch.messages[i]
            guard filter.admits(message) else { continue }
            let byteCount = message.maxLineByteCount
            let isAnswer = message.type == .reply || message.type == .error
            queue.append(
                QueuedMessage(
                    batch: shared, index: i, byteCount: byteCount, coalescingKey: message.role.coalescingKey,
                    isAnswer: isAnswer))
            if isAnswer {
                answersQueued += 1
                answerBytes += byteCount
            }
            added = true
        }
        queue.compactIfSparse()
        if queue.exceeds(limits) {
            let outcome = EnqueueOutcome.overflowed(messages: liveCount, bytes: heldBytes)
            discardAll()
            phase = .overflowed
            return outcome
        }
        guard added, wakeNeeded else { return .queued }
        wakeNeeded = false
        return .wake
    }

    /// Moves up to about `maxBytes` of messages, oldest first, into `out`, numbered from `firstSeq` on; counts
    /// them as one write in flight when there are any (the caller reports it with ``writeCompleted()``). Returns
    /// whether the connection is finished (closing, and nothing is left to send).
    mutating func take(maxBytes: Int, into out: inout [QueuedMessage]) -> (finished: Bool, firstSeq: UInt64) {
        let before = out.count
        let firstSeq = nextSeq
        queue.take(maxBytes: maxBytes, into: &out)
        if out.count == before {
            wakeNeeded = true
        } else {
            for m in out[before...] where m.isAnswer {
                answersQueued -= 1
                answerBytes -= m.byteCount
            }
            nextSeq += UInt64(out.count - before)
            writesInFlight += 1
        }
        return (phase == .closing && liveCount == 0, firstSeq)
    }

    /// Counts a request handed to the daemon.
    mutating func beginRequest() {
        requestsInFlight += 1
    }

    /// Queues the answer to a request that was handed to the daemon, and counts the request as answered. The
    /// last answer of a client that has finished sending is the last message it is sent.
    mutating func enqueueAnswer(_ shared: SharedBatch) -> EnqueueOutcome {
        requestsInFlight -= 1
        let outcome = enqueue(shared)
        closeIfAnswered()
        return outcome
    }

    /// The client has finished sending; true when the connection can close as soon as its queue is written.
    mutating func endInput() -> Bool {
        inputEnded = true
        closeIfAnswered()
        return phase == .closing
    }

    private mutating func closeIfAnswered() {
        if inputEnded && requestsInFlight == 0 && phase == .open { phase = .closing }
    }

    /// The connection went away (or is being cut off): nothing more is queued or written directly, and the direct
    /// socket is closed, here, under the connection's lock, so that no direct write can reach a descriptor number
    /// that has since been reused.
    mutating func close() {
        discardAll()
        remainder = nil
        phase = .closed
        if let socket = directSocket {
            directSocket = nil
            try? socket.close()
        }
    }

    private mutating func discardAll() {
        queue.removeAll()
        answersQueued = 0
        answerBytes = 0
    }
}
