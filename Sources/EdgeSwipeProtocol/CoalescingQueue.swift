/// A message waiting in a ``CoalescingQueue``: what it costs against the byte bound, and which earlier message it
/// supersedes (`nil`: none; it is never dropped).
public protocol CoalescingElement {
    /// The bytes counted against ``OutboxLimits/bytes`` while it waits.
    var byteCount: Int { get }
    /// Messages with the same key replace each other while they wait: only the latest is delivered.
    var coalescingKey: CoalescingKey? { get }
}

/// When a reader that lets messages pile up counts as too slow to keep: the server cuts off such a client, the web
/// bridge drops such a tab.
public struct OutboxLimits: Hashable, Sendable {
    /// Live messages waiting (progress counts once per key, however many arrived).
    public var messages: Int
    /// Bytes waiting (with the queue's own slots, where the queue counts them: ``CoalescingQueue/heldBytes``).
    public var bytes: Int

    public init(messages: Int, bytes: Int) {
        self.messages = messages
        self.bytes = bytes
    }
}

/// The one queue for a slow reader of the stream, shared by the server's per-client outbox (`OutboxState`) and
/// the web bridge's per-tab one (`TabOutbox`): what they queue and how they write it differs, what is kept does not.
///
/// A message whose ``CoalescingElement/coalescingKey`` already has one waiting replaces it: the old slot becomes a
/// tombstone and the new message goes to the back, so what a slow reader receives is always a subsequence of the
/// stream, in order, that lacks only superseded progress. Messages without a key (phase changes, terminal,
/// lifecycle, state, replies...) are never dropped here; the owner checks ``exceeds(_:)`` and gives up on the reader
/// instead. ``compactIfSparse()`` drops the tombstones once they outnumber the live messages, so a reader that reads
/// nothing while progress streams holds a queue the size of its live backlog, not of everything it missed.
///
/// A value, with no lock and no I/O: its owner guards it. Inlinable, so that the server's publish path gets it
/// specialized for its element.
public struct CoalescingQueue<Element: CoalescingElement> {
    /// Tombstones are left alone below this many: compacting a short queue saves nothing.
    public static var compactionFloor: Int { 256 }

    /// The memory of one slot, counted in ``heldBytes`` (0: only the messages' own bytes count).
    public let slotBytes: Int
    @usableFromInline var slots: [Element?] = []
    @usableFromInline var head = 0
    /// The absolute position of `slots[0]`, so that positions in `pendingByKey` survive compaction.
    @usableFromInline var base = 0
    @usableFromInline var pendingByKey: [CoalescingKey: Int] = [:]
    @usableFromInline var live = 0
    @usableFromInline var bytes = 0
    @usableFromInline var superseded = 0
    @usableFromInline var dead = 0

    @inlinable
    public init(slotBytes: Int = 0) {
        self.slotBytes = slotBytes
    }

    /// Messages waiting to be taken.
    @inlinable public var liveCount: Int { live }
    /// Their bytes.
    @inlinable public var liveBytes: Int { bytes }
    /// Messages replaced before they were taken, since the queue was made.
    @inlinable public var coalesced: Int { superseded }
    /// Superseded slots between the head and the end.
    @inlinable public var tombstones: Int { dead }
    /// Slots between the head and the end, live or superseded.
    @inlinable public var slotCount: Int { slots.count - head }
    /// What the queue holds in memory: its messages and, at ``slotBytes`` each, its slots.
    @inlinable public var heldBytes: Int { bytes + slotCount * slotBytes }

    /// Whether the backlog is past `limits`.
    @inlinable
    public func exceeds(_ limits: OutboxLimits) -> Bool {
        live > limits.messages || heldBytes > limits.bytes
    }

    /// Puts `element` at the back, superseding the one waiting with its key, if any.
    @inlinable
    public mutating func append(_ element: Element) {
        let key = element.coalescingKey
        if let key, let old = pendingByKey[key] {
            let slot = old - base
            if let replaced = slots[slot] {
                slots[slot] = nil
                live -= 1
                bytes -= replaced.byteCount
                superseded += 1
                dead += 1
            }
        }
        slots.append(element)
        if let key { pendingByKey[key] = base + slots.count - 1 }
        live += 1
        bytes += element.byteCount
    }

    /// Drops the tombstones once there are at least ``compactionFloor`` of them and they outnumber the live
    /// messages: the live ones move to a fresh range of positions, in order.
    @inlinable
    public mutating func compactIfSparse() {
        guard dead >= Self.compactionFloor && dead >= live else { return }
        var kept: [Element?] = []
        kept.reserveCapacity(live + live / 2)
        let fresh = base + slots.count
        pendingByKey.removeAll(keepingCapacity: true)
        for i in head..<slots.count {
            guard let m = slots[i] else { continue }
            if let key = m.coalescingKey { pendingByKey[key] = fresh + kept.count }
            kept.append(m)
        }
        slots = kept
        base = fresh
        head = 0
        dead = 0
    }

    /// Moves messages, oldest first, into `out` until at least `maxBytes` have moved or none is left.
    @inlinable
    public mutating func take(maxBytes: Int, into out: inout [Element]) {
        var taken = 0
        while head < slots.count, taken < maxBytes {
            if let m = slots[head] {
                slots[head] = nil
                out.append(m)
                taken += m.byteCount
                live -= 1
                bytes -= m.byteCount
                if let key = m.coalescingKey, pendingByKey[key] == base + head { pendingByKey[key] = nil }
            } else {
                dead -= 1
            }
            head += 1
        }
        if head == slots.count {
            base += slots.count
            slots.removeAll(keepingCapacity: slots.capacity <= 4096)
            head = 0
        } else if head >= 1024, head * 2 >= slots.count {
            slots.removeFirst(head)
            base += head
            head = 0
        }
    }

    /// Forgets every message (the reader is gone, or was given up on).
    @inlinable
    public mutating func removeAll() {
        base += slots.count
        slots.removeAll()
        head = 0
        pendingByKey.removeAll()
        live = 0
        bytes = 0
        dead = 0
    }
}

extension CoalescingQueue: Sendable where Element: Sendable {}

extension ServerMessage {
    /// Which earlier undelivered line this received line supersedes (`progress` lines: per transition, and per
    /// device for gestures), as the server's ``DeliveryRole/coalescingKey`` keys the line it sent.
    public var coalescingKey: CoalescingKey? {
        switch self {
        case .transition(let t) where t.progress: .transition(TransitionID(t.id))
        case .gesture(let g) where g.progress: .gesture(DeviceID(g.device))
        case .hello, .gesture, .transition, .lifecycle, .presentation, .interaction, .state, .device, .config,
            .error, .reply, .goodbye, .unknown:
            nil
        }
    }
}
