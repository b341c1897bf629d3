import CWayland
public import EdgeSwipeClient
public import EdgeSwipeSessionModel
import EdgeSwipeSystem
import Glibc
public import Logging
import NIOConcurrencyHelpers

/// The session's Wayland side: one thread that owns the connection to the compositor and everything made on it (the
/// overlay's surfaces and buffers, the key backend), and the only one that touches them (each object checks it:
/// ``OwningThread``).
///
/// Other threads only hand work over, through a bounded inbox and a wake-up pipe, and never wait: the session's event
/// loop gives observations (``handle(_:)``) and key chords (``send(_:rule:)``), the main thread reloads
/// (``replace(overlay:keys:)``) and stops it (``stop()``). Built like the daemon's input thread, which receives its
/// requests the same way.
///
/// The thread survives its compositor. It connects (and, when the connection is lost, connects again) with a backoff
/// while `$WAYLAND_DISPLAY`'s socket is not there; on each connection it binds the globals again, the overlay draws
/// again, and the key backend is chosen again. While the compositor does not read (stopped, busy), nothing more is
/// queued than one batch: key chords wait in a small queue (those beyond it are dropped, with one log line) and no
/// frame is drawn behind a frame not yet sent (hostile-4 s10, s12; issue 35 item 3).
public final class WaylandThread: KeySender, Sendable {
    /// Why a compositor offers no key protocol we speak.
    public static let noKeyProtocol = KeyBackendChoice.noProtocol
    /// Why a compositor has no overlay.
    public static let noOverlayProtocol = Overlay.unsupportedHint
    /// Chords queued while they cannot be sent yet (no connection, no seat, a compositor that does not read): more
    /// are dropped, since keys pressed seconds late do the wrong thing.
    static let chordQueueLimit = 16
    /// A chord that waited longer (no seat yet, a compositor that does not read or is gone) is dropped too: a back
    /// key pressed seconds after its swipe would land on whatever the user does by then.
    static let chordMaxAgeUS: UInt64 = 1_000_000
    /// Observations queued for the overlay between two turns of the thread: beyond, the overlay starts again from
    /// rest (a thread that falls this far behind is not drawing what is current anyway).
    static let observationQueueLimit = 8192
    /// Reconnection delays: the first, and the most.
    static let firstRetryUS: UInt64 = 100_000
    static let maxRetryUS: UInt64 = 5_000_000

    private let logger: Logger
    private let displayName: String?
    private let wake: WakePipe
    private let inbox = NIOLockedValueBox(Inbox())
    private let thread = NIOLockedValueBox<SystemThread?>(nil)
    private let published = NIOLockedValueBox(Published())

    struct Inbox {
        var observations: [(EdgeSwipeClient.Observation, UInt64)] = []
        var overflowed = false
        var chords: [Chord] = []
        var droppedChords = 0
        var settings: OverlaySettings?
        var keysWanted: Bool?
        /// Where the focused app goes (ForeignToplevels.swift), once asked.
        var focus: (@Sendable (String?) -> Void)?
        var stopping = false
    }

    /// A chord handed over, with when.
    struct Chord: Sendable {
        var chord: KeyChord
        var rule: String
        var queuedUS: UInt64
    }

    /// What the thread tells the others (read by the log at exit and the tests).
    struct Published {
        var overlay = OverlayStatistics()
        var keyBackend: String?
        var connections = 0
    }

    /// A thread for the compositor at `display` (`nil`: `$WAYLAND_DISPLAY`), with an overlay drawn with `overlay`
    /// (`nil`: none) and keys when `keys`. ``start()`` starts it.
    public init(display: String? = nil, overlay: OverlaySettings?, keys: Bool, logger: Logger) throws(WaylandError) {
        self.logger = logger
        self.displayName = display
        do { wake = try WakePipe() } catch { throw WaylandError("cannot make the Wayland thread's wake-up pipe: \(error)") }
        inbox.withLockedValue {
            $0.settings = overlay
            $0.keysWanted = keys
        }
    }

    /// Follows the active window through `zwlr_foreign_toplevel_manager_v1` where the compositor offers it (phoc),
    /// on every connection: `focused` gets each newly focused app id, `nil` when none is, on this thread.
    public func followFocus(_ focused: @escaping @Sendable (String?) -> Void) {
        inbox.withLockedValue { $0.focus = focused }
        wake.wake()
    }

    /// Starts the thread; it connects at once.
    public func start() throws(WaylandError) {
        do {
            let started = try SystemThread.start(name: "wayland") { [self] in
                var owner = Owner(logger: logger, displayName: displayName)
                owner.run(self)
            }
            thread.withLockedValue { $0 = started }
        } catch {
            throw WaylandError("cannot start the Wayland thread: \(error)")
        }
    }

    /// Ends the thread and waits for it: it lets go of every Wayland object and disconnects (the compositor then
    /// removes the overlay's surfaces). Idempotent.
    public func stop() {
        inbox.withLockedValue { $0.stopping = true }
        wake.wake()
        let running = thread.withLockedValue { t -> SystemThread? in
            defer { t = nil }
            return t
        }
        running?.join()
    }

    /// One observation of the daemon client, for the overlay: queued, the thread woken. Only the first of a burst
    /// writes to the wake-up pipe: the thread takes the whole queue at once, so a busy stream costs the event loop a
    /// lock and an append per line, not a system call.
    public func handle(_ observation: EdgeSwipeClient.Observation) {
        let now = MonotonicClock.now().microseconds
        let first = inbox.withLockedValue { box -> Bool in
            guard box.observations.count < Self.observationQueueLimit else {
                box.overflowed = true
                box.observations.removeAll(keepingCapacity: true)
                return false
            }
            box.observations.append((observation, now))
            return box.observations.count == 1
        }
        if first { wake.wake() }
    }

    public func send(_ chord: KeyChord, rule: String) {
        let dropped = inbox.withLockedValue { box -> Bool in
            guard box.chords.count < Self.chordQueueLimit else {
                box.droppedChords += 1
                return true
            }
            box.chords.append(Chord(chord: chord, rule: rule, queuedUS: MonotonicClock.now().microseconds))
            return false
        }
        if !dropped { wake.wake() }
    }

    /// New overlay settings and whether keys are wanted, from a reload.
    public func replace(overlay: OverlaySettings?, keys: Bool) {
        inbox.withLockedValue {
            if let overlay { $0.settings = overlay }
            $0.keysWanted = keys
        }
        wake.wake()
    }

    /// What the overlay did so far.
    public var overlaySummary: OverlayStatistics { published.withLockedValue { $0.overlay } }

    /// The key backend in use (its log name), `nil` while there is none.
    public var keyBackend: String? { published.withLockedValue { $0.keyBackend } }

    /// How many times the thread connected to the compositor (1 without a loss).
    public var connections: Int { published.withLockedValue { $0.connections } }

    fileprivate func take() -> Inbox {
        inbox.withLockedValue { box in
            let taken = box
            box.observations.removeAll(keepingCapacity: true)
            box.overflowed = false
            box.chords.removeAll(keepingCapacity: true)
            box.droppedChords = 0
            box.settings = nil
            box.keysWanted = nil
            box.focus = nil
            return taken
        }
    }

    fileprivate var wakeDescriptor: Int32 { wake.readEnd.rawValue }
    fileprivate func drainWake() { wake.drain() }
    fileprivate func publish(_ body: (inout Published) -> Void) { published.withLockedValue(body) }
}

/// Everything the Wayland thread owns: a value on its stack, never seen by another thread.
private struct Owner {
    let logger: Logger
    let displayName: String?
    var link: Link?
    var overlay: Overlay?
    var overlayProblem: String?
    var keysWanted = false
    var focus: (@Sendable (String?) -> Void)?
    var saidFocus: String?
    var keymap: Result<KeymapResolver, WaylandError>?
    var chords: [WaylandThread.Chord] = []
    /// What was said last, so that each thing is said once (a reconnection to the same compositor says nothing new).
    var saidKeys: String?
    var saidOverlay: String?
    var saidConnectFailure = false
    /// Rules told that their chord cannot be sent, with the cause (said once each, until a reload).
    var refused: Set<String> = []
    var droppedChords = 0
    var retryUS = WaylandThread.firstRetryUS
    var nextAttemptUS: UInt64 = 0
    var stopping = false

    /// One connection and what was bound on it.
    final class Link {
        let connection: WaylandConnection
        var keys: (any KeyBackend)?
        /// The choice the keys were made for.
        var keyChoice: KeyBackendChoice?
        var overlayAttached = false
        /// The active window's follower (phoc), once bound.
        var toplevels: ForeignToplevels?

        init(connection: WaylandConnection) { self.connection = connection }
    }

    init(logger: Logger, displayName: String?) {
        self.logger = logger
        self.displayName = displayName
    }

    mutating func run(_ thread: WaylandThread) {
        let waiter = DescriptorWaiter()
        while true {
            takeInbox(thread)
            if stopping { break }
            let now = MonotonicClock.now().microseconds
            if link == nil, now >= nextAttemptUS { connect(thread) }
            if let link { service(link, thread) }
            // Sleep on the wake-up pipe and the display (writable too while requests wait to be sent).
            waiter.removeAll()
            waiter.add(thread.wakeDescriptor)
            var preparedRead = false
            if let link {
                if case .lost(let why) = link.connection.prepareRead() {
                    lose(why, thread)
                    continue
                }
                preparedRead = true
                let events = Int16(POLLIN) | (link.connection.hasUnsentRequests ? Int16(POLLOUT) : 0)
                waiter.add(link.connection.descriptor, events: events)
            }
            // Until the next connection attempt, or the overlay's next deadline (a picture that changed, painted just
            // before the compositor's next frame, or a cleared surface's end).
            let wakeUS = link == nil ? nextAttemptUS : overlay?.nextWakeUS
            let timeout = wakeUS.map { Int64(clamping: $0 - min($0, MonotonicClock.now().microseconds)) }
            do { try waiter.wait(timeoutMicroseconds: timeout) } catch {
                if preparedRead { link?.connection.cancelRead() }
                continue
            }
            if waiter.isReady(0) { thread.drainWake() }
            guard let link, preparedRead else { continue }
            if waiter.isReady(1) {
                if case .lost(let why) = link.connection.readEvents() {
                    lose(why, thread)
                    continue
                }
            } else {
                link.connection.cancelRead()
            }
            if case .lost(let why) = link.connection.dispatchPending() { lose(why, thread) }
        }
        // Stopping: the objects go before the display they were made on (WaylandObject holds it), then it disconnects.
        overlay?.detach()
        link = nil
        publishOverlay(thread)
    }

    /// Takes what the other threads handed over.
    private mutating func takeInbox(_ thread: WaylandThread) {
        let box = thread.take()
        if box.stopping { stopping = true }
        if let focus = box.focus { self.focus = focus }
        if let wanted = box.keysWanted {
            // A reload: the rules are new, each may be told again; keys wanted now or no more are chosen again.
            refused.removeAll()
            if wanted != keysWanted {
                link?.keys = nil
                link?.keyChoice = nil
            }
            keysWanted = wanted
        }
        if let settings = box.settings {
            if settings.enabled, overlay == nil {
                do { overlay = try Overlay(settings: settings, logger: logger) } catch {
                    say(overlay: "overlay: \(error)", warning: true)
                }
            }
            overlay?.replace(settings)
        }
        if box.overflowed {
            logger.warning("overlay: the Wayland thread fell \(WaylandThread.observationQueueLimit) messages behind; the overlay starts again from rest")
            overlay?.resynchronize()
        }
        if let overlay {
            for (observation, at) in box.observations { overlay.handle(observation, receivedAtUS: at) }
        }
        for entry in box.chords {
            if chords.count < WaylandThread.chordQueueLimit { chords.append(entry) } else { droppedChords += 1 }
        }
        droppedChords += box.droppedChords
    }

    /// Connects (a first time, or again after a loss); on failure, tries again later, with a longer delay each time.
    private mutating func connect(_ thread: WaylandThread) {
        do {
            link = Link(connection: try WaylandConnection(name: displayName))
            retryUS = WaylandThread.firstRetryUS
            thread.publish { $0.connections += 1 }
            if saidConnectFailure || thread.connections > 1 { logger.notice("wayland: connected to the compositor again") }
            saidConnectFailure = false
        } catch {
            if !saidConnectFailure {
                logger.warning("wayland: \(error); trying again (every \(WaylandThread.maxRetryUS / 1_000_000) s at most) until it is there")
                saidConnectFailure = true
            }
            nextAttemptUS = MonotonicClock.now().microseconds + retryUS
            retryUS = min(retryUS * 2, WaylandThread.maxRetryUS)
        }
    }

    /// The connection is gone: everything made on it is let go of (the compositor, if it is still there, removes
    /// the overlay's surfaces), and a new one is tried soon.
    private mutating func lose(_ why: String, _ thread: WaylandThread) {
        logger.error("wayland: connection lost: \(why); connecting again when the compositor is back (the overlay and keys wait)")
        overlay?.detach()
        link = nil
        saidConnectFailure = true
        nextAttemptUS = MonotonicClock.now().microseconds + retryUS
        retryUS = min(retryUS * 2, WaylandThread.maxRetryUS)
        thread.publish { $0.keyBackend = nil }
    }

    /// One turn on a live connection: the globals that came or went, the chords, the overlay's frame, the flush.
    private mutating func service(_ link: Link, _ thread: WaylandThread) {
        let connection = link.connection
        guard connection.isReady else {
            if case .lost(let why) = connection.flush() { lose(why, thread) }
            return
        }
        let changed = connection.takeGlobalsChanged()
        if changed || (link.keys == nil && keysWanted && link.keyChoice == nil) { chooseKeys(link, thread) }
        if let focus, link.toplevels == nil, connection.global(ForeignToplevels.interface) != nil {
            do {
                link.toplevels = try ForeignToplevels(on: connection, focused: focus)
                say(focus: "focus: following the active window (zwlr_foreign_toplevel_manager_v1)")
            } catch {
                say(focus: "focus: \(error)")
            }
        }
        if let overlay {
            if !link.overlayAttached {
                link.overlayAttached = true
                do {
                    try overlay.attach(to: connection)
                    say(overlay: "overlay: drawing feedback under the finger (zwlr_layer_shell_v1, \(overlay.settings.outputs))", warning: false)
                } catch {
                    say(overlay: "overlay: \(error)", warning: true)
                }
            } else if changed {
                overlay.globalsChanged()
            }
        }
        // Nothing more is queued while the compositor has not taken the last batch: libwayland keeps 4 KiB, and a
        // request beyond it ends the connection. The socket may have become writable since (POLLOUT woke us).
        if connection.hasUnsentRequests, case .lost(let why) = connection.flush() {
            lose(why, thread)
            return
        }
        if !connection.hasUnsentRequests {
            pressChords(link)
            overlay?.pump()
        }
        if case .lost(let why) = connection.flush() {
            lose(why, thread)
            return
        }
        // Said once per stall, when the compositor takes requests again.
        if droppedChords > 0, !connection.hasUnsentRequests {
            logger.warning(
                "keys: \(droppedChords) key chord\(droppedChords == 1 ? "" : "s") dropped: the compositor did not take them within \(WaylandThread.chordMaxAgeUS / 1_000_000) s, or more than \(WaylandThread.chordQueueLimit) waited")
            droppedChords = 0
        }
        publishOverlay(thread)
    }

    /// Makes the key backend the compositor's globals call for, when it differs from the one there is.
    private mutating func chooseKeys(_ link: Link, _ thread: WaylandThread) {
        guard keysWanted else {
            link.keys = nil
            link.keyChoice = nil
            return
        }
        let choice = KeyBackendChoice.choose(from: link.connection.globals)
        guard choice != link.keyChoice else { return }
        link.keyChoice = choice
        link.keys = nil
        switch choice {
        case .virtualKeyboard(let manager, let seat):
            guard let keymap = resolvedKeymap() else { return }
            do {
                // Made now, as soon as there is a seat, not at the first chord (docs/COMPOSITORS.md).
                link.keys = try VirtualKeyboard(on: link.connection, seat: seat, manager: manager, keymap: keymap)
            } catch {
                say(keys: "keys cannot be sent: \(error)", warning: true)
            }
        case .fakeInput(let global):
            guard let keymap = resolvedKeymap() else { return }
            do { link.keys = try FakeInput(on: link.connection, global: global, keymap: keymap) } catch {
                say(keys: "keys cannot be sent: \(error)", warning: true)
            }
        case .waitingForSeat, .unavailable:
            break
        }
        if let keys = link.keys {
            say(keys: "keys: sent \(keys.summary)", warning: false)
        } else if case .waitingForSeat = choice {
            say(keys: "keys: \(choice.description)", warning: false)
        } else if case .unavailable(let why) = choice {
            say(keys: "keys cannot be sent: \(why)", warning: true)
        }
        let name = link.keys?.summary
        thread.publish { $0.keyBackend = name }
    }

    private mutating func resolvedKeymap() -> KeymapResolver? {
        if keymap == nil {
            do { keymap = .success(try KeymapResolver()) } catch { keymap = .failure(WaylandError(error.description)) }
        }
        switch keymap {
        case .success(let k)?: return k
        case .failure(let e)?:
            say(keys: "keys cannot be sent: \(e)", warning: true)
            return nil
        case nil: return nil
        }
    }

    /// Presses the chords that wait, when there is a backend; with none, keeps them while one may come (a seat, a
    /// connection), refuses them when none can.
    private mutating func pressChords(_ link: Link) {
        guard !chords.isEmpty else { return }
        let now = MonotonicClock.now().microseconds
        let fresh = chords.filter { now - min(now, $0.queuedUS) <= WaylandThread.chordMaxAgeUS }
        droppedChords += chords.count - fresh.count
        chords = fresh
        guard let keys = link.keys else {
            if case .unavailable(let why)? = link.keyChoice {
                for c in chords { refuse(c.rule, "cannot send \(c.chord): \(why)") }
                chords.removeAll()
            }
            return
        }
        for c in chords {
            do { try keys.press(c.chord) } catch { refuse(c.rule, "cannot send \(c.chord): \(error)") }
        }
        chords.removeAll()
    }

    private mutating func refuse(_ rule: String, _ why: String) {
        guard refused.insert("\(rule) \(why)").inserted else { return }
        logger.error("\(rule): \(why) (said once; the other rules keep working)")
    }

    private mutating func say(keys line: String, warning: Bool) {
        guard line != saidKeys else { return }
        saidKeys = line
        if warning { logger.warning("\(line)") } else { logger.notice("\(line)") }
    }

    private mutating func say(focus line: String) {
        guard line != saidFocus else { return }
        saidFocus = line
        logger.notice("\(line)")
    }

    private mutating func say(overlay line: String, warning: Bool) {
        guard line != saidOverlay else { return }
        saidOverlay = line
        if warning { logger.warning("\(line)") } else { logger.notice("\(line)") }
    }

    private func publishOverlay(_ thread: WaylandThread) {
        guard let overlay else { return }
        let statistics = overlay.statistics
        thread.publish { $0.overlay = statistics }
    }
}
