public import EdgeSwipeBus
import EdgeSwipeSystem
public import EdgeSwipeVocabulary
public import Logging
import NIOConcurrencyHelpers
public import SystemPackage

#if canImport(Glibc)
import Glibc
#endif

/// The session's D-Bus role: one thread of its own owns the session-bus connection and everything made on it
/// (matches, exported objects, pending calls), polls it together with a wake pipe, and runs the jobs other threads
/// queue (``enqueue(_:)``) between messages. Nothing on it waits for another process: answered calls are sent with
/// ``BusContext/callAsync(_:values:signature:timeout:reply:)`` and their answers (or a timeout) come back as later
/// messages; calls nobody reads the answer of go out with ``BusContext/send(_:values:signature:)``.
///
/// What a backend learns here (a signal, an answer) it hands to the session's event loop itself: nothing on this
/// thread touches the session's state. The connection is opened when a job first needs it, or at start when a
/// backend asked (``onConnected(_:)``), and again after it breaks (every ``reconnectDelay``), each time calling the
/// backends' `connected` hooks so that they add their matches and objects anew.
public final class BusLoop: Sendable {
    /// How long after a broken or failed connection the loop tries again, while a backend wants one.
    public static let reconnectDelay = Microseconds(2_000_000)

    private let logger: Logger
    private let wake: WakePipe
    private let connect: @Sendable () throws(BusError) -> SDBus
    private let shared = NIOLockedValueBox(Shared())
    private let thread: NIOLockedValueBox<SystemThread?> = NIOLockedValueBox(nil)

    private struct Shared {
        var jobs: [@Sendable (BusContext) -> Void] = []
        var connectedHooks: [@Sendable (BusContext) -> Void] = []
        var disconnectedHooks: [@Sendable (BusContext) -> Void] = []
        var wanted = false
        var stopping = false
    }

    /// `connect` opens the bus (the user's session bus, or a test's private one).
    public init(
        logger: Logger, connect: @escaping @Sendable () throws(BusError) -> SDBus = { () throws(BusError) in try SDBus.user() }
    ) throws(Errno) {
        self.logger = logger
        self.connect = connect
        wake = try WakePipe()
        let started = try SystemThread.start(name: "session-bus") { [self] in run() }
        thread.withLockedValue { $0 = started }
    }

    /// Runs `job` on the bus thread with the connection (opened if needed); from any thread, without waiting. A job
    /// queued after ``stop()`` does not run.
    public func enqueue(_ job: @escaping @Sendable (BusContext) -> Void) {
        let queued = shared.withLockedValue { s -> Bool in
            guard !s.stopping else { return false }
            s.jobs.append(job)
            return true
        }
        if queued { wake.wake() }
    }

    /// Calls `hook` on the bus thread each time a connection is made (the first, and each after a break): where a
    /// backend adds its matches and exports its objects. Keeps a connection open (and reopens it) from now on.
    public func onConnected(_ hook: @escaping @Sendable (BusContext) -> Void) {
        shared.withLockedValue {
            $0.connectedHooks.append(hook)
            $0.wanted = true
        }
        wake.wake()
    }

    /// Calls `hook` on the bus thread when the connection breaks (what was registered on it is gone already), before
    /// the next is made: where a backend forgets what the other side knew of it.
    public func onDisconnected(_ hook: @escaping @Sendable (BusContext) -> Void) {
        shared.withLockedValue { $0.disconnectedHooks.append(hook) }
    }

    /// Ends the thread after the jobs queued before it (and writes what they sent), then returns; the connection,
    /// its matches and objects are freed on the thread. Safe to call twice.
    public func stop() {
        shared.withLockedValue { $0.stopping = true }
        wake.wake()
        let t = thread.withLockedValue { t -> SystemThread? in
            defer { t = nil }
            return t
        }
        t?.join()
    }

    private func run() {
        let context = BusContext(logger: logger)
        let waiter = DescriptorWaiter()
        var retryAt: MonotonicInstant? = nil
        var connectedOnce = false
        while true {
            let (jobs, hooks, lost, wanted, stopping) = shared.withLockedValue { s in
                defer { s.jobs.removeAll() }
                return (s.jobs, s.connectedHooks, s.disconnectedHooks, s.wanted, s.stopping)
            }
            let now = MonotonicClock.now()
            // A connection is (re)made when something needs it and no retry is pending (jobs do not wait for one).
            if context.bus == nil, wanted || !jobs.isEmpty, !jobs.isEmpty || retryAt.map({ $0 <= now }) ?? true {
                do {
                    context.bus = try connect()
                    retryAt = nil
                    if connectedOnce { logger.notice("session bus: connected again") }
                    connectedOnce = true
                    for hook in hooks { hook(context) }
                } catch {
                    if retryAt == nil { logger.error("session bus: cannot connect: \(error); trying again every \(Self.reconnectDelay.value / 1_000_000) s") }
                    retryAt = now + Self.reconnectDelay
                }
            }
            for job in jobs { job(context) }
            if stopping {
                context.close()
                return
            }
            if let bus = context.bus {
                do {
                    // Bounded, so that a flood of signals cannot starve the queued jobs.
                    for _ in 0..<256 {
                        if !(try bus.processOne()) { break }
                    }
                    context.sweep()
                } catch {
                    logger.error("session bus: connection lost: \(error)")
                    context.close()
                    for hook in lost { hook(context) }
                    retryAt = now + Self.reconnectDelay
                }
            }
            waiter.removeAll()
            waiter.add(wake.readEnd)
            var deadline: MonotonicInstant? = wanted && context.bus == nil ? retryAt : nil
            if let bus = context.bus {
                waiter.add(bus.fd, events: bus.events)
                if let d = bus.deadline { deadline = min(deadline ?? d, d) }
            }
            let timeout = deadline.map { d -> Int64 in
                let now = MonotonicClock.now()
                return d <= now ? 0 : Int64(clamping: (d - now).value)
            }
            do { try waiter.wait(timeoutMicroseconds: timeout) } catch { continue }
            wake.drain()
        }
    }
}

/// The bus thread's own state, handed to jobs and hooks on that thread only: the connection and what is registered
/// on it. Never leaves the thread (not `Sendable`).
public final class BusContext {
    /// The connection, while there is one.
    public fileprivate(set) var bus: SDBus?
    /// Matches, objects and pending calls made on ``bus``: freed with it, before it.
    private var slots: [ObjectIdentifier: BusSlot] = [:]
    public let logger: Logger

    init(logger: Logger) { self.logger = logger }

    /// Calls answered during the last processing, whose slots go now.
    private var answered: [ObjectIdentifier] = []

    fileprivate func sweep() {
        for id in answered { slots[id] = nil }
        answered.removeAll()
    }

    fileprivate func close() {
        answered.removeAll()
        slots.removeAll()
        bus?.flush()
        bus = nil
    }

    /// Keeps `slot` alive as long as the connection (a match, an exported object).
    public func keep(_ slot: BusSlot) { slots[ObjectIdentifier(slot)] = slot }

    /// Lets `slot` go (its handler will not run again).
    public func drop(_ slot: BusSlot) { slots[ObjectIdentifier(slot)] = nil }

    /// A backend's own state on this thread, made by `make` on first use and kept for the thread's life (across
    /// connections): how a backend keeps state the compiler sees belongs to this thread alone.
    public func local<T: AnyObject>(_ type: T.Type, make: () -> T) -> T {
        if let found = locals[ObjectIdentifier(type)] as? T { return found }
        let made = make()
        locals[ObjectIdentifier(type)] = made
        return made
    }

    private var locals: [ObjectIdentifier: AnyObject] = [:]

    /// Matches `rule` for as long as the connection lives.
    public func addMatch(_ rule: String, handler: @escaping (BusMessage) -> Void) throws(BusError) {
        guard let bus else { throw .system(call: "match \(rule)", errno: ENOTCONN) }
        let logger = self.logger
        keep(try bus.addMatch(rule) { result in
            switch result {
            case .success(let message): handler(message)
            case .failure(let error): logger.debug("session bus: a signal for \(rule) could not be read: \(error)")
            }
        })
    }

    /// Serves `path` (``SDBus/export(_:handler:)``) for as long as the connection lives.
    public func export(_ path: String, handler: @escaping (BusCall) -> BusAnswer?) throws(BusError) {
        guard let bus else { throw .system(call: "export \(path)", errno: ENOTCONN) }
        keep(try bus.export(path, handler: handler))
    }

    /// Serves `interface` at `path` for as long as the connection lives: each call is first put to `check` (the caller
    /// check: the reason to refuse it, or `nil` to let it through; refused calls get `AccessDenied` with the reason),
    /// then to its member's handler in `methods`; unknown members get sd-bus's `UnknownMethod`. How the session takes
    /// calls from another process (KWin's focus script's `org.edgeswipe.Focus1.Activated`).
    public func serve(
        _ path: String, interface: String, check: @escaping (BusCall) -> String?, methods: [String: (BusCall) -> BusAnswer]
    ) throws(BusError) {
        let logger = self.logger
        try export(path) { call in
            guard call.interface == interface, let method = methods[call.member] else { return nil }
            if let refusal = check(call) {
                logger.notice("session bus: refused \(call.name) from \(call.sender): \(refusal)")
                return .accessDenied(refusal)
            }
            return method(call)
        }
    }

    /// Sends a call and returns at once; `reply` gets its answer, its error or a timeout's error after `timeout`, on
    /// this thread, once. An error sending it comes to `reply` too.
    public func callAsync(
        _ method: BusMethod, values: [BusValue] = [], signature: String? = nil, timeout: Microseconds,
        reply: @escaping (Result<BusMessage, BusError>) -> Void
    ) {
        guard let bus else {
            reply(.failure(.system(call: method.description, errno: ENOTCONN)))
            return
        }
        // The slot is kept until its one answer, and let go after the handler returns (``sweep()``): freeing it
        // inside its own callback would free the handler while it runs.
        let holder = SlotHolder()
        do {
            let slot = try bus.callAsync(method, values: values, signature: signature, timeout: timeout) { [weak self] result in
                if let slot = holder.slot { self?.answered.append(ObjectIdentifier(slot)) }
                reply(result)
            }
            holder.slot = slot
            keep(slot)
        } catch {
            reply(.failure(error))
        }
    }

    /// Sends a call nobody waits for (`NO_REPLY_EXPECTED`); a failure to queue it is returned.
    public func send(_ method: BusMethod, values: [BusValue], signature: String? = nil) throws(BusError) {
        guard let bus else { throw .system(call: method.description, errno: ENOTCONN) }
        try bus.send(method, values: values, signature: signature)
    }

    private final class SlotHolder {
        weak var slot: BusSlot?
    }
}
