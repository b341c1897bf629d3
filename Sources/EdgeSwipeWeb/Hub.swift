public import EdgeSwipeProtocol
import NIOConcurrencyHelpers
public import NIOCore

/// The bridge's fan-out: one daemon connection's lines to every tab, and what a tab that connects later needs to
/// catch up.
///
/// ``publish(_:line:)`` runs on the daemon client's event loop, so it must never wait: it updates the catch-up
/// snapshot and appends the line to each tab's ``TabOutbox`` under short locks, and each tab's own task writes
/// to its WebSocket. A slow tab therefore delays nobody: its progress-only lines are coalesced (the newest per
/// transition or gesture supersedes the one not yet sent, and is sent in its own place in the stream, as the
/// server's clients are), and a tab that lets essential lines pile up past its ``OutboxLimits`` is dropped; its
/// page reconnects and starts again from the snapshot.
public final class Hub: Sendable {
    /// What a tab that connects mid-stream is sent first: the daemon's `hello` (the state when the bridge
    /// connected), then what changed since: the configuration, devices, the latest `state`, and for each running
    /// transition its `began`, the message that started its run-out (with the `animation` spec) and its latest.
    struct Snapshot {
        var hello: ByteBuffer?
        var config: ByteBuffer?
        var devices: [UInt32: ByteBuffer] = [:]
        var state: ByteBuffer?
        var running: [UInt64: Running] = [:]

        struct Running {
            var began: ByteBuffer?
            var runOut: ByteBuffer?
            var latest: ByteBuffer?
            var lines: [ByteBuffer] { [began, runOut, latest].compactMap { $0 } }
        }

        var lines: [ByteBuffer] {
            guard let hello else { return [] }
            var out = [hello]
            if let config { out.append(config) }
            for id in devices.keys.sorted() { out.append(devices[id]!) }
            if let state { out.append(state) }
            for id in running.keys.sorted() { out += running[id]!.lines }
            return out
        }
    }

    struct State {
        var snapshot = Snapshot()
        var tabs: [ObjectIdentifier: TabOutbox] = [:]
        var connected = false
        /// Lines published since start: what the performance figures count.
        var published = 0
        /// Places promised to upgrades whose tab has not been added yet (``Reservation``).
        var reserved = 0
    }

    /// A tab's place, promised when the bridge answers an upgrade and kept until the tab is added (``addTab(_:)``)
    /// or its connection closes first (``release()``), whichever comes first. Without it, two upgrades answered
    /// before either tab was added both passed the cap's check, and the later one got a 101 and then a close (1013).
    public final class Reservation: Sendable {
        private let hub: Hub
        private let open = NIOLockedValueBox(true)

        fileprivate init(hub: Hub) { self.hub = hub }

        /// Gives the place back if no tab took it (a connection that closed before its tab was served).
        public func release() {
            guard take() else { return }
            hub.state.withLockedValue { $0.reserved -= 1 }
        }

        /// Whether this is the first end of the reservation (a tab taking it, or its release).
        fileprivate func take() -> Bool {
            open.withLockedValue { isOpen in
                defer { isOpen = false }
                return isOpen
            }
        }
    }

    let state = NIOLockedValueBox(State())
    /// The bridge's own first line to each tab (whether it may control, and the clock), made per tab.
    private let welcome: @Sendable () -> [UInt8]
    public let limits: OutboxLimits
    /// Tabs served at once: each costs an outbox and a task, and a page left open in thousands of tabs (or a
    /// script opening them) must not take the bridge's memory with it.
    public let maxTabs: Int

    public init(limits: OutboxLimits = TabOutbox.defaultLimits, maxTabs: Int = ConnectionLimits().tabs, welcome: @escaping @Sendable () -> [UInt8]) {
        self.limits = limits
        self.maxTabs = max(1, maxTabs)
        self.welcome = welcome
    }

    /// Tabs connected now.
    public var tabCount: Int { state.withLockedValue { $0.tabs.count } }
    /// Whether ``maxTabs`` are connected or promised.
    public var isFull: Bool { state.withLockedValue { $0.tabs.count + $0.reserved >= maxTabs } }
    /// Whether the daemon connection is up (it has said hello).
    public var isConnected: Bool { state.withLockedValue { $0.connected } }

    /// A place for a tab about to be upgraded; `nil` when ``maxTabs`` are connected or promised.
    public func reserve() -> Reservation? {
        let granted = state.withLockedValue { s -> Bool in
            guard s.tabs.count + s.reserved < maxTabs else { return false }
            s.reserved += 1
            return true
        }
        return granted ? Reservation(hub: self) : nil
    }

    /// A new tab: its outbox, already holding the welcome and the snapshot; `nil` when ``maxTabs`` are connected or
    /// promised. With the tab's `reservation` it takes the place promised to it (`nil` if the reservation ended).
    public func addTab(_ reservation: Reservation? = nil) -> TabOutbox? {
        let outbox = TabOutbox(limits: limits)
        let welcome = ByteBuffer(bytes: welcome())
        let reserved = reservation?.take() ?? false
        if reservation != nil && !reserved { return nil }
        // Under the hub's lock, so that no live line can reach the tab before its catch-up (the outbox's own lock
        // is only ever taken inside the hub's, never the other way round).
        return state.withLockedValue { s -> TabOutbox? in
            if reserved {
                s.reserved -= 1
            } else {
                guard s.tabs.count + s.reserved < maxTabs else { return nil }
            }
            s.tabs[ObjectIdentifier(outbox)] = outbox
            _ = outbox.enqueue(welcome, key: nil)
            for line in s.snapshot.lines { _ = outbox.enqueue(line, key: nil) }
            return outbox
        }
    }

    public func removeTab(_ outbox: TabOutbox) {
        _ = state.withLockedValue { $0.tabs.removeValue(forKey: ObjectIdentifier(outbox)) }
        outbox.close()
    }

    /// One daemon line (the bytes as received, without the newline), to every tab. The buffer is made once and
    /// shared by every tab's queue (copy on write: nobody writes to it).
    public func publish(_ message: ServerMessage, line bytes: [UInt8]) {
        let key = message.coalescingKey
        let line = ByteBuffer(bytes: bytes)
        let tabs = state.withLockedValue { s -> [TabOutbox] in
            s.published += 1
            Self.update(&s.snapshot, &s.connected, with: message, line: line)
            return Array(s.tabs.values)
        }
        for tab in tabs where !tab.enqueue(line, key: key) {
            removeTab(tab)
        }
    }

    /// The daemon connection dropped: tabs are told, and the snapshot is forgotten until the next `hello`.
    public func daemonDisconnected(_ notice: [UInt8]) {
        let notice = ByteBuffer(bytes: notice)
        let tabs = state.withLockedValue { s -> [TabOutbox] in
            s.snapshot = Snapshot()
            s.connected = false
            return Array(s.tabs.values)
        }
        for tab in tabs where !tab.enqueue(notice, key: nil) { removeTab(tab) }
    }

    /// Closes every tab (shutdown).
    public func closeAll() {
        let tabs = state.withLockedValue { s -> [TabOutbox] in
            defer { s.tabs.removeAll() }
            return Array(s.tabs.values)
        }
        for tab in tabs { tab.close() }
    }

    private static func update(_ snapshot: inout Snapshot, _ connected: inout Bool, with message: ServerMessage, line: ByteBuffer) {
        switch message {
        case .hello:
            snapshot = Snapshot()
            snapshot.hello = line
            connected = true
        case .config:
            snapshot.config = line
        case .device(let d):
            if d.change == .removed { snapshot.devices[d.device.id] = nil } else { snapshot.devices[d.device.id] = line }
        case .state:
            snapshot.state = line
        case .transition(let t):
            if t.phase.isTerminal {
                snapshot.running[t.id] = nil
            } else if t.phase == .began {
                snapshot.running[t.id] = Snapshot.Running(began: line)
            } else if t.animation != nil {
                snapshot.running[t.id, default: .init()].runOut = line
                snapshot.running[t.id]?.latest = nil
            } else {
                snapshot.running[t.id, default: .init()].latest = line
            }
        case .gesture, .lifecycle, .presentation, .interaction, .error, .reply, .goodbye, .unknown:
            break
        }
    }
}

/// One tab's queue of lines to write: bounded, coalescing progress, and never blocking the writer of the lines.
///
/// What is kept is the protocol's ``CoalescingQueue`` (the server's outbox keeps its clients' lines in the same
/// one); around it, this adds what only a tab needs: a lock, an `async` reader that takes everything queued at once,
/// and closing. A tab past its limits is dropped by the ``Hub``, not cut off here.
public final class TabOutbox: Sendable {
    /// A line as received from the daemon, and what it supersedes.
    struct Line: CoalescingElement {
        var line: ByteBuffer
        var coalescingKey: CoalescingKey?
        var byteCount: Int { line.readableBytes }
    }

    struct State {
        /// Only the lines' own bytes count against the bound (`slotBytes` 0), as they always have for a tab.
        var queue = CoalescingQueue<Line>()
        var waiter: CheckedContinuation<[ByteBuffer]?, Never>?
        var closed = false
    }

    /// A tab's limits unless configured: 4096 lines, 4 MiB.
    public static let defaultLimits = OutboxLimits(messages: 4096, bytes: 4 << 20)

    private let state = NIOLockedValueBox(State())
    let limits: OutboxLimits

    init(limits: OutboxLimits) {
        self.limits = limits
    }

    /// Queues a line; `false` when the tab is over its limits (or closed) and must be dropped.
    func enqueue(_ line: ByteBuffer, key: CoalescingKey?) -> Bool {
        let (accepted, waiter, batch) = state.withLockedValue { s -> (Bool, CheckedContinuation<[ByteBuffer]?, Never>?, [ByteBuffer]) in
            if s.closed { return (false, nil, []) }
            s.queue.append(Line(line: line, coalescingKey: key))
            s.queue.compactIfSparse()
            if s.queue.exceeds(limits) { return (false, nil, []) }
            guard let waiter = s.waiter else { return (true, nil, []) }
            s.waiter = nil
            return (true, waiter, s.take())
        }
        waiter?.resume(returning: batch)
        return accepted
    }

    /// Everything queued, waiting until there is something; nil once closed.
    public func next() async -> [ByteBuffer]? {
        await withCheckedContinuation { (continuation: CheckedContinuation<[ByteBuffer]?, Never>) in
            let ready = state.withLockedValue { s -> [ByteBuffer]?? in
                if s.queue.liveCount > 0 { return .some(s.take()) }
                if s.closed { return .some(nil) }
                s.waiter = continuation
                return .none
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Lines replaced before they were written.
    public var coalesced: Int { state.withLockedValue { $0.queue.coalesced } }

    func close() {
        let waiter = state.withLockedValue { s -> CheckedContinuation<[ByteBuffer]?, Never>? in
            s.closed = true
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(returning: nil)
    }
}

extension TabOutbox.State {
    fileprivate mutating func take() -> [ByteBuffer] {
        var lines: [TabOutbox.Line] = []
        lines.reserveCapacity(queue.liveCount)
        queue.take(maxBytes: .max, into: &lines)
        return lines.map(\.line)
    }
}
