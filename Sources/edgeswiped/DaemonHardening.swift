import EdgeSwipeCore
import EdgeSwipeInput
import EdgeSwipeServer
import EdgeSwipeSystem
import Glibc
import Logging
import Synchronization

/// What `Daemon` adds for resilience, behind a few marked hooks in `Daemon.swift`:
/// - container state saved after every completed transition, off the input thread (`StateWriter.swift`), and
///   restored at start-up (`StateStore.swift`);
/// - the socket file watched for deletion and bound again (`SocketWatcher.swift`);
/// - file modes checked at start-up (`ModeChecks.swift`).
final class DaemonHardening: Sendable {
    let state: StateStore?
    /// Says when the state a reply reports is durable (see ``PersistenceBarrier``).
    let persistence = PersistenceBarrier()
    /// Saves the state off the input thread; `nil` without a state directory.
    private let writer: StateWriter?
    private let logger: Logger
    private let canRebind = Mutex(false)
    private let watcher = Mutex<SocketWatcher?>(nil)

    init(options: EdgeSwipeDaemon, logger: Logger) {
        self.logger = logger
        ModeChecks.checkConfigFile(options.config, logger: logger)
        let directory = StateDirectoryLocation.resolve(
            flag: options.stateDir, environment: ProcessEnvironment.current(), uid: getuid())
        if let directory {
            state = StateStore.open(directory: directory, logger: logger)
        } else {
            state = nil
            logger.info("no state directory (--state-dir, $STATE_DIRECTORY or $XDG_STATE_HOME): container state is not saved")
        }
        if let state {
            do {
                writer = try StateWriter(store: state, barrier: persistence, logger: logger)
            } catch {
                logger.error("state: cannot start the state writer (\(error)); container state will not be saved")
                writer = nil
            }
        } else {
            writer = nil
        }
    }

    /// The engine's initial configuration: the configured one, with the saved state of matching containers.
    func initialConfiguration(_ configured: EngineConfiguration) -> EngineConfiguration {
        state?.restore(into: configured) ?? configured
    }

    /// Refuses an unsafe socket location; remembers whether the daemon binds the path itself.
    func checkSocket(_ listener: ServerConfiguration.Listener, admitsActiveSession: Bool) throws(StartupError) {
        try ModeChecks.checkSocket(listener, admitsActiveSession: admitsActiveSession, logger: logger)
        if case .path = listener { canRebind.withLock { $0 = true } }
    }

    /// Called on the input thread with every batch of engine events, as it is published: hands the state the
    /// batch ends with (and the rotations clients set, when they changed) to the writer, which marks its
    /// generation durable once it is on disk. Without a state directory nothing is saved, and every generation is
    /// durable as soon as it exists.
    func willPublish(_ events: [EngineEvent], stateGeneration: UInt64, rotations: [RememberedRotation]? = nil) {
        guard let writer else {
            persistence.markPersisted(through: stateGeneration)
            return
        }
        var containers: [Container]?
        if let last = events.last(where: \.isState), case .state(let state) = last { containers = state.containers }
        guard containers != nil || rotations != nil else { return }
        writer.offer(containers, rotations: rotations, generation: stateGeneration, at: MonotonicClock.now())
    }

    /// Starts watching the socket file once the daemon serves.
    func watchSocket(_ server: EdgeSwipeServer) {
        let started = SocketWatcher.start(server: server, canRebind: canRebind.withLock { $0 }, logger: logger)
        watcher.withLock { $0 = started }
    }

    /// Stops watching, before the server removes its socket file at shutdown, and writes the last state (the
    /// input thread has published its last events).
    func stop() {
        let running = watcher.withLock { w in defer { w = nil }; return w }
        running?.stop()
        writer?.stop()
    }
}
