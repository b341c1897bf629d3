import EdgeSwipeCore
import EdgeSwipeInput
import EdgeSwipeSeat
import EdgeSwipeProtocol
import EdgeSwipeSystem
import Logging
import Synchronization
import SystemPackage

/// Something the input thread polls: live devices (libinput, libevdev) or a recording played in real time.
protocol InputSource: AnyObject {
    /// Descriptors to wait on for readability.
    var pollDescriptors: [Int32] { get }
    /// When the source wants to run even if no descriptor is ready (the next event of a replay); `nil` for
    /// sources that only react to their descriptors. Asked once a pass, after the publish and before the wait:
    /// the place for work that must not delay a batch (the replay decodes its next frame here).
    var nextWakeup: MonotonicInstant? { get }
    /// Whether the source has nothing more to give (a replay that ended without `--loop`).
    var isExhausted: Bool { get }
    /// Reads what is ready (or due at `now`) and hands each step to `feed` (which turns it as the rotation in
    /// force says and hands it to the engine).
    func service(now: MonotonicInstant, feed: (InputStep) -> Void)
    /// The machine is about to sleep: live devices are let go of (each reported removed through `feed`).
    func suspend(now: MonotonicInstant, feed: (InputStep) -> Void)
    /// The machine woke: live devices are opened again (they come back through ``service(now:feed:)``).
    func resume()
    /// A looped replay that has played a pass and plays nothing more until ``startNextPass(at:)``: the thread
    /// starts the next once everything the last one set in motion has come to rest (``InputThread``, "passes").
    var isBetweenPasses: Bool { get }
    /// Plays the recording again from its start, its first step due at `time`.
    func startNextPass(at time: MonotonicInstant)
}

extension InputSource {
    /// A recording has no devices to let go of: it plays on.
    func suspend(now: MonotonicInstant, feed: (InputStep) -> Void) {}
    func resume() {}
    /// Live devices have no passes.
    var isBetweenPasses: Bool { false }
    func startNextPass(at time: MonotonicInstant) {}
}

/// Work handed to the input thread from other threads (socket clients, signal handlers).
enum InputCommand: Sendable {
    case request(TransitionOperation, container: String, animated: Bool, reply: @Sendable (Result<TransitionID, TransitionRefusal>) -> Void)
    case reconfigure(EngineConfiguration)
    /// A client's `set-rotation` (``RotationControl``), answered once what it changed is on disk.
    case setRotation(RotationRequest, reply: @Sendable (Result<RotationOutcome, RotationRefusal>) -> Void)
    /// Cancel every transition (their terminal events go out), then stop.
    case shutdown
}

/// The daemon's single input thread: it polls every source's descriptors plus a wake-up pipe, and is the
/// serial executor of the engine. Its poll timeout is the engine's next deadline, or infinite when nothing
/// animates, so an idle daemon never wakes up on its own.
final class InputThread: @unchecked Sendable {
    // Everything below `commands` is touched only by the thread itself once `start` was called.
    private let commands = Mutex<[InputCommand]>([])
    /// A byte on it wakes the thread from its wait.
    private let wakePipe: WakePipe
    private var engine: Engine
    private var sources: [any InputSource]
    /// Between the sources and the engine: the rotation in force for each device (a client's, the
    /// accelerometer's, the configured one), applied between touch sequences.
    private var rotation: RotationControl
    /// The rotations clients set, as last handed to the state file.
    private var savedRotations: [RememberedRotation]
    /// The system bus: the seat's active session, sleep, the accelerometer. `nil` without one (or once lost).
    private var seat: SeatWatcher?
    /// Tells the server who the seat's active session belongs to now. Called on this thread, before anything read
    /// after the change is published: see ``serviceSeat(at:)``.
    private let sessionChanged: (SeatWatcher.ActiveSession?) -> Void
    private var events: [EngineEvent] = []
    /// Hands a batch to the clients (and the state it ends with to the disk). The generation numbers the batches
    /// that hold a `state` event: ``PersistenceBarrier`` says when each is durable.
    private let publish: @Sendable ([EngineEvent], _ stateGeneration: UInt64, _ rotations: [RememberedRotation]?) -> Void
    private let barrier: PersistenceBarrier
    /// Batches published that held a `state` event.
    private var stateGeneration: UInt64 = 0
    /// Replies held until the state they report is durable, with the generation that holds it.
    private var heldReplies: [@Sendable () -> Void] = []
    private let logger: Logger
    private let finished = Mutex<Bool>(false)
    private var onExit: (@Sendable () -> Void)?
    /// Passes of a looped replay (``startPassesDue(at:)``): when the last rubber band published springs back to
    /// rest. The engine does not animate a blocked gesture's band (clients do, from its spec), so the next pass
    /// waits for it here. Followed only when some source loops.
    private var bandsRestAt: MonotonicInstant = .zero
    /// A pass waits for nothing but a band: wake up then.
    private var passDue: MonotonicInstant?
    private let loops: Bool

    /// - Parameters:
    ///   - rotations: the rotations clients set, as the state file remembers them.
    ///   - seat: the system bus, when the daemon follows the seat; polled here, with the devices.
    ///   - publish: hands a batch to the clients, with the rotations clients set when they changed (to be saved
    ///     with the state).
    init(
        engine: Engine, sources: [any InputSource], rotations: [RememberedRotation] = [], seat: SeatWatcher? = nil,
        barrier: PersistenceBarrier, logger: Logger,
        sessionChanged: @escaping (SeatWatcher.ActiveSession?) -> Void = { _ in },
        publish: @escaping @Sendable ([EngineEvent], _ stateGeneration: UInt64, _ rotations: [RememberedRotation]?) -> Void
    ) throws(DaemonError) {
        do { wakePipe = try WakePipe() } catch { throw .system("pipe", error.rawValue) }
        self.engine = engine
        self.sources = sources
        self.rotation = RotationControl(remembered: rotations)
        self.savedRotations = self.rotation.remembered
        self.seat = seat
        self.sessionChanged = sessionChanged
        self.logger = logger
        self.publish = publish
        self.barrier = barrier
        self.loops = sources.contains { ($0 as? ReplaySource)?.loops == true }
        events.reserveCapacity(256)
    }

    /// Queues `command` and wakes the thread.
    func send(_ command: InputCommand) {
        commands.withLock { $0.append(command) }
        wake()
    }

    /// Wakes the thread so that every source is serviced again (e.g. a closed `--wait-for-clients` gate, when a
    /// client has connected). Async-signal-safe: one `write` to a non-blocking pipe.
    func wake() { wakePipe.wake() }

    /// Runs the loop on a new thread; `onExit` is called on that thread when the loop ends.
    func start(onExit: @escaping @Sendable () -> Void) throws(DaemonError) {
        self.onExit = onExit
        // Nobody joins it: the daemon learns the loop has ended through `onExit`. Detached, its resources go
        // back when it ends (ThreadSanitizer reported it as a leaked thread).
        do { try SystemThread.start(name: "edgeswipe-input", detached: true) { self.run() } } catch {
            throw .system("pthread_create", error.rawValue)
        }
    }

    var hasFinished: Bool { finished.withLock { $0 } }

    private func run() {
        let waiter = DescriptorWaiter()
        var stopping = false
        // libinput queues the devices present at start (coldplug) when its seat is assigned, before its descriptor
        // ever becomes readable: the first pass services every source without waiting.
        var firstPass = true
        while !stopping {
            waiter.removeAll()
            waiter.add(wakePipe.readEnd)
            // The bus is index 1 when there is one.
            if let seat { waiter.add(seat.pollDescriptor, events: seat.pollEvents) }
            for s in sources { for fd in s.pollDescriptors { waiter.add(fd) } }
            var deadline = engine.nextDeadline
            for s in sources { if let w = s.nextWakeup { deadline = min(deadline ?? w, w) } }
            if let w = seat?.deadline { deadline = min(deadline ?? w, w) }
            if let w = passDue { deadline = min(deadline ?? w, w) }
            // The clock is read after the sources were asked: `nextWakeup` may do work (a replay decodes its next
            // frame there), and a timeout measured from a clock read before that work woke the thread late by
            // all of it, every frame (docs/PERFORMANCE.md, "The wait's clock").
            let now = MonotonicClock.now()
            // ppoll, not poll: poll's timeout is whole milliseconds, rounded up, which woke every replayed event
            // and run-out tick up to 1 ms late (0.5 ms on average; docs/PERFORMANCE.md).
            let waitUS = firstPass ? 0 : deadline.map { $0 <= now ? 0 : min(60_000_000, ($0 - now).value) }
            firstPass = false
            do { try waiter.wait(timeoutMicroseconds: waitUS) } catch {
                logger.critical("poll failed: \(error)")
                break
            }
            if waiter.isReady(0) { wakePipe.drain() }
            let time = MonotonicClock.now()
            // The bus before the devices: a session switch read in this pass takes effect before any touch read
            // in it is published.
            if let seat, waiter.isReady(1) || (seat.deadline.map { $0 <= time } ?? false) { serviceSeat(at: time) }
            for s in sources { s.service(now: time, feed: feed) }
            engine.tick(at: time, into: &events)
            if loops { startPassesDue(at: time) }
            stopping = runCommands(at: time)
            var rotations: [RememberedRotation]? = nil
            if rotation.remembered != savedRotations {
                savedRotations = rotation.remembered
                rotations = savedRotations
            }
            if !events.isEmpty || rotations != nil {
                if rotations != nil || events.contains(where: \.isState) { stateGeneration += 1 }
                publish(events, stateGeneration, rotations)
                // After the publish: the log is for people, the batch is on the touch's path (logTraces copies
                // every event to look for traces).
                logTraces()
                events.removeAll(keepingCapacity: true)
            }
            // After the publish: a held reply goes out once what it reports is on disk (the state writer marks it,
            // on its own thread; at once without a state directory) and in every later hello.
            if !heldReplies.isEmpty {
                let generation = stateGeneration
                for reply in heldReplies { barrier.whenPersisted(generation, reply) }
                heldReplies.removeAll(keepingCapacity: true)
            }
            if !sources.isEmpty && sources.allSatisfy(\.isExhausted) && engine.nextDeadline == nil && engine.isIdle {
                logger.info("every input source has ended")
                break
            }
        }
        finished.withLock { $0 = true }
        onExit?()
    }

    /// A looped replay plays every pass alike, and to its end: the next pass starts once the last one's run-outs
    /// have ended (the engine has nothing in flight) and its rubber bands have sprung back, with the containers
    /// back in their initial state (``Engine/returnToInitialState(at:into:)``). Without the wait, the next pass's
    /// first swipe caught the last one's run-out; without the reset, the state carried over, so a pass's last
    /// swipe found no tab left to go to and was blocked from the third pass on.
    private func startPassesDue(at time: MonotonicInstant) {
        for case .gesture(let g) in events {
            if let band = g.animation { bandsRestAt = max(bandsRestAt, band.end) }
        }
        passDue = nil
        for source in sources where source.isBetweenPasses {
            guard engine.nextDeadline == nil else { return }
            guard time >= bandsRestAt else {
                passDue = bandsRestAt
                return
            }
            guard engine.returnToInitialState(at: time, into: &events) else { return }
            source.startNextPass(at: time)
        }
    }

    /// A step from a source, to the engine through the rotation in force: one stage, in the input module.
    private func feed(_ step: InputStep) {
        rotation.feed(step, to: &engine, into: &events)
    }

    /// Handles what the system bus says, in order.
    ///
    /// A session switch goes to the server at once, on this thread: it re-judges every connection under the lock
    /// `publish` takes, so a connection admitted only through the old session is closed (after its `goodbye`)
    /// before the next batch is published, and nothing read after the switch reaches it. Every touch sequence in
    /// flight ends with the switch (as events lost): the screen belongs to another session now, and its user's
    /// gesture starts afresh.
    private func serviceSeat(at time: MonotonicInstant) {
        guard let seat else { return }
        let changes: [SeatWatcher.Change]
        do { changes = try seat.process() } catch {
            logger.error("lost the system bus (\(error)): the seat's active session, sleep and the accelerometer are no longer followed; \"active-session\" admits nobody until the daemon restarts")
            self.seat = nil
            sessionChanged(nil)
            return
        }
        for change in changes {
            switch change {
            case .activeSession(let session):
                sessionChanged(session)
                for device in rotation.devices { feed(InputStep(time: time, input: .eventsLost(device.id))) }
            case .preparingForSleep(true):
                logger.notice("the machine is about to sleep: letting go of the devices (gestures in flight are cancelled)")
                for s in sources { s.suspend(now: time, feed: feed) }
                // Every run-out ends now, in order, so that clients see each transition finished before the sleep
                // rather than frozen half way until the wake-up.
                engine.tickUntilSettled(into: &events)
            case .preparingForSleep(false):
                logger.notice("the machine woke: opening the devices again")
                for s in sources { s.resume() }
            case .orientation(let reading):
                guard let turned = reading.rotation else { continue }
                rotation.accelerometerChanged(turned, at: time, to: &engine, into: &events)
            }
        }
    }

    /// Carries out queued commands; returns true when asked to stop.
    private func runCommands(at time: MonotonicInstant) -> Bool {
        let pending = commands.withLock { queue -> [InputCommand] in
            let taken = queue
            queue.removeAll()
            return taken
        }
        var stop = false
        for command in pending {
            switch command {
            case .request(let op, let container, let animated, let reply):
                do {
                    let before = events.count
                    let id = try engine.request(op, in: container, animated: animated, at: time, into: &events)
                    // A request that changed the state at once (animated: false) is answered once that state is
                    // durable: the reply is the client's proof (docs/PROTOCOL.md, "What a reply promises").
                    if events[before...].contains(where: \.isState) {
                        heldReplies.append { reply(.success(id)) }
                    } else {
                        reply(.success(id))
                    }
                } catch {
                    reply(.failure(error))
                }
            case .reconfigure(let configuration):
                engine.reconfigure(configuration)
            case .setRotation(let request, let reply):
                do {
                    let before = rotation.remembered
                    let outcome = try rotation.set(request.setting, on: request.target, at: time, to: &engine, into: &events)
                    // What a client set is answered once it is on disk, like a state change.
                    if rotation.remembered != before {
                        heldReplies.append { reply(.success(outcome)) }
                    } else {
                        reply(.success(outcome))
                    }
                } catch {
                    reply(.failure(error))
                }
            case .shutdown:
                engine.cancelAll(at: time, into: &events)
                stop = true
            }
        }
        return stop
    }

    /// State machine steps at debug level; an event a machine could not take in its state is a bug (libinput's
    /// `log_gesture_bug`), logged as an error whatever the level.
    private func logTraces() {
        let steps = logger.logLevel <= .debug
        for case .trace(let trace) in events {
            if trace.isBug {
                logger.error("bug: \(trace.line)")
            } else if steps {
                logger.debug("\(trace.line)")
            }
        }
    }
}

extension EngineEvent {
    var isState: Bool { if case .state = self { true } else { false } }
}

/// Failures of the daemon's own plumbing, with the call and errno.
enum DaemonError: Error, CustomStringConvertible {
    case system(String, Int32)
    case usage(String)

    var description: String {
        switch self {
        case .system(let call, let code): SystemCallError(call, Errno(rawValue: code)).description
        case .usage(let message): message
        }
    }
}
