public import EdgeSwipeProtocol
import NIOConcurrencyHelpers
public import NIOCore

/// The bridge's fan-out: one daemon connection's lines to every tab, and what a tab that connects later needs to
/// catch up.
///
/// ``publish(_:line:)`` runs on the daemon client's event loop, so it must never wait: it updates the catch-up
/// snapshot and appends the line to each tab's ``TabOutbox`` under short locks, and each tab's own task writes
/// to its WebSocket. A slow tab therefore delays nobody: its progress-only lines are coalesced (the newest per
/// transition or gesture replaces the one not yet sent), and a tab that lets essential lines pile up past
/// ``TabOutbox/Limits`` is dropped; its page reconnects and starts again from the snapshot.
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
    }

    let state = NIOLockedValueBox(State())
    /// The bridge's own first line to each tab (whether it may control, and the clock), made per tab.
    private let welcome: @Sendable () -> [UInt8]
    public let limits: TabOutbox.Limits
    /// Tabs served at once: each costs an outbox and a task, and a page left open in thousands of tabs (or a
    /// script opening them) must not take the bridge's memory with it.
    public let maxTabs: Int

    public init(limits: TabOutbox.Limits = .init(), maxTabs: Int = ConnectionLimits().tabs, welcome: @escaping @Sendable () -> [UInt8]) {
        self.limits = limits
        self.maxTabs = max(1, maxTabs)
        self.welcome = welcome
    }

    /// Tabs connected now.
    public var tabCount: Int { state.withLockedValue { $0.tabs.count } }
    /// Whether ``maxTabs`` are connected.
    public var isFull: Bool { tabCount >= maxTabs }
    /// Whether the daemon connection is up (it has said hello).
    public var isConnected: Bool { state.withLockedValue { $0.connected } }

    /// A new tab: its outbox, already holding the welcome and the snapshot; `nil` when ``maxTabs`` are connected.
    public func addTab() -> TabOutbox? {
        let outbox = TabOutbox(limits: limits)
        let welcome = ByteBuffer(bytes: welcome())
        // Under the hub's lock, so that no live line can reach the tab before its catch-up (the outbox's own lock
        // is only ever taken inside the hub's, never the other way round).
        return state.withLockedValue { s -> TabOutbox? in
            guard s.tabs.count < maxTabs else { return nil }
            s.tabs[ObjectIdentifier(outbox)] = outbox
            _ = outbox.enqueue(welcome, progressKey: nil)
            for line in s.snapshot.lines { _ = outbox.enqueue(line, progressKey: nil) }
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
        let key = Self.progressKey(message)
        let line = ByteBuffer(bytes: bytes)
        let tabs = state.withLockedValue { s -> [TabOutbox] in
            s.published += 1
            Self.update(&s.snapshot, &s.connected, with: message, line: line)
            return Array(s.tabs.values)
        }
        for tab in tabs where !tab.enqueue(line, progressKey: key) {
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
        for tab in tabs where !tab.enqueue(notice, progressKey: nil) { removeTab(tab) }
    }

    /// Closes every tab (shutdown).
    public func closeAll() {
        let tabs = state.withLockedValue { s -> [TabOutbox] in
            defer { s.tabs.removeAll() }
            return Array(s.tabs.values)
        }
        for tab in tabs { tab.close() }
    }

    /// Progress-only lines of the same transition (or the same device's gesture) replace each other in a slow
    /// tab's outbox: only the newest matters to a page that draws the present.
    static func progressKey(_ message: ServerMessage) -> TabOutbox.ProgressKey? {
        switch message {
        case .transition(let t) where t.progress: .transition(t.id)
        case .gesture(let g) where g.progress: .gesture(g.device)
        case .hello, .gesture, .transition, .lifecycle, .presentation, .interaction, .state, .device, .config,
            .error, .reply, .goodbye, .unknown:
            nil
        }
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
public final class TabOutbox: Sendable {
    /// When a tab counts as too slow to keep.
    public struct Limits: Sendable {
        /// Lines waiting (progress lines count once per transition or gesture, however many arrived).
        public var lines: Int
        /// Bytes waiting.
        public var bytes: Int
        public init(lines: Int = 4096, bytes: Int = 4 << 20) {
            self.lines = lines
            self.bytes = bytes
        }
    }

    public enum ProgressKey: Hashable, Sendable {
        case transition(UInt64)
        case gesture(UInt32)
    }

    struct State {
        var queue: [ByteBuffer] = []
        var bytes = 0
        /// Where each key's pending progress line sits in `queue`.
        var pendingProgress: [ProgressKey: Int] = [:]
        var waiter: CheckedContinuation<[ByteBuffer]?, Never>?
        var closed = false
        /// Lines that replaced an older one not yet written.
        var coalesced = 0
    }

    private let state = NIOLockedValueBox(State())
    let limits: Limits

    init(limits: Limits) {
        self.limits = limits
    }

    /// Queues a line; `false` when the tab is over its limits (or closed) and must be dropped.
    func enqueue(_ line: ByteBuffer, progressKey: ProgressKey?) -> Bool {
        let (accepted, waiter, batch) = state.withLockedValue { s -> (Bool, CheckedContinuation<[ByteBuffer]?, Never>?, [ByteBuffer]) in
            if s.closed { return (false, nil, []) }
            if let key = progressKey, let index = s.pendingProgress[key] {
                s.bytes += line.readableBytes - s.queue[index].readableBytes
                s.queue[index] = line
                s.coalesced += 1
            } else {
                if let key = progressKey { s.pendingProgress[key] = s.queue.count }
                s.queue.append(line)
                s.bytes += line.readableBytes
            }
            if s.queue.count > limits.lines || s.bytes > limits.bytes { return (false, nil, []) }
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
                if !s.queue.isEmpty { return .some(s.take()) }
                if s.closed { return .some(nil) }
                s.waiter = continuation
                return .none
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Lines replaced before they were written.
    public var coalesced: Int { state.withLockedValue { $0.coalesced } }

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
        let batch = queue
        queue.removeAll(keepingCapacity: true)
        pendingProgress.removeAll(keepingCapacity: true)
        bytes = 0
        return batch
    }
}
