import EdgeSwipeCore
import EdgeSwipeInput
import EdgeSwipeServer
import EdgeSwipeSystem
import Glibc
import Logging
import Synchronization

/// What `Daemon` adds for resilience, behind a few marked hooks in `Daemon.swift`:
/// - container state saved after every completed transition and restored at start-up (`StateStore.swift`);
/// - the socket file watched for deletion and bound again (`SocketWatcher.swift`);
/// - file modes checked at start-up (`ModeChecks.swift`).
final class DaemonHardening: Sendable {
    let state: StateStore?
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
    }

    /// The engine's initial configuration: the configured one, with the saved state of matching containers.
    func initialConfiguration(_ configured: EngineConfiguration) -> EngineConfiguration {
        state?.restore(into: configured) ?? configured
    }

    /// Refuses an unsafe socket location; remembers whether the daemon binds the path itself.
    func checkSocket(_ listener: ServerConfiguration.Listener) throws(StartupError) {
        try ModeChecks.checkSocket(listener, logger: logger)
        if case .path = listener { canRebind.withLock { $0 = true } }
    }

    /// Says when the state a reply reports is durable (see ``PersistenceBarrier``).
    let persistence = PersistenceBarrier()

    /// Called on the input thread with every batch of engine events, before they are published: saves the state
    /// the batch ends with, then marks its generation durable. Without a state directory nothing is saved, and
    /// every generation is durable as soon as it exists.
    /// `rotations`: the rotations clients set, when they changed in this batch (saved with the state).
    func willPublish(_ events: [EngineEvent], stateGeneration: UInt64, rotations: [RememberedRotation]? = nil) {
        state?.record(events, rotations: rotations)
        persistence.markPersisted(through: stateGeneration)
    }

    /// Starts watching the socket file once the daemon serves.
    func watchSocket(_ server: EdgeSwipeServer) {
        let started = SocketWatcher.start(server: server, canRebind: canRebind.withLock { $0 }, logger: logger)
        watcher.withLock { $0 = started }
    }

    /// Stops watching, before the server removes its socket file at shutdown.
    func stop() {
        let running = watcher.withLock { w in defer { w = nil }; return w }
        running?.stop()
    }
}
