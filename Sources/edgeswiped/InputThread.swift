import EdgeSwipeCore
import EdgeSwipeInput
import EdgeSwipeSystem
import Logging
import Synchronization
import SystemPackage

/// Something the input thread polls: live devices (libinput, libevdev) or a recording played in real time.
protocol InputSource: AnyObject {
    /// Descriptors to wait on for readability.
    var pollDescriptors: [Int32] { get }
    /// When the source wants to run even if no descriptor is ready (the next event of a replay); `nil` for
    /// sources that only react to their descriptors.
    var nextWakeup: MonotonicInstant? { get }
    /// Whether the source has nothing more to give (a replay that ended without `--loop`).
    var isExhausted: Bool { get }
    /// Reads what is ready (or due at `now`) and feeds it to the engine.
    func service(now: MonotonicInstant, engine: inout Engine, into events: inout [EngineEvent])
}

/// Work handed to the input thread from other threads (socket clients, signal handlers).
enum InputCommand: Sendable {
    case request(TransitionOperation, container: String, animated: Bool, reply: @Sendable (Result<TransitionID, TransitionRefusal>) -> Void)
    case reconfigure(EngineConfiguration)
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
    private var events: [EngineEvent] = []
    /// Hands a batch to the clients (and the state it ends with to the disk). The generation numbers the batches
    /// that hold a `state` event: ``PersistenceBarrier`` says when each is durable.
    private let publish: @Sendable ([EngineEvent], _ stateGeneration: UInt64) -> Void
    private let barrier: PersistenceBarrier
    /// Batches published that held a `state` event.
    private var stateGeneration: UInt64 = 0
    /// Replies held until the state they report is durable, with the generation that holds it.
    private var heldReplies: [@Sendable () -> Void] = []
    private let logger: Logger
    private let finished = Mutex<Bool>(false)
    private var onExit: (@Sendable () -> Void)?

    init(
        engine: Engine, sources: [any InputSource], barrier: PersistenceBarrier, logger: Logger,
        publish: @escaping @Sendable ([EngineEvent], _ stateGeneration: UInt64) -> Void
    ) throws(DaemonError) {
        do { wakePipe = try WakePipe() } catch { throw .system("pipe", error.rawValue) }
        self.engine = engine
        self.sources = sources
        self.logger = logger
        self.publish = publish
        self.barrier = barrier
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
            for s in sources { for fd in s.pollDescriptors { waiter.add(fd) } }
            let now = MonotonicClock.now()
            var deadline = engine.nextDeadline
            for s in sources { if let w = s.nextWakeup { deadline = min(deadline ?? w, w) } }
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
            for s in sources { s.service(now: time, engine: &engine, into: &events) }
            engine.tick(at: time, into: &events)
            stopping = runCommands(at: time)
            if !events.isEmpty {
                logTraces()
                if events.contains(where: \.isState) { stateGeneration += 1 }
                publish(events, stateGeneration)
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
