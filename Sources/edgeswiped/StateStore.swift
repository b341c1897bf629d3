import EdgeSwipeCore
import EdgeSwipeInput
import EdgeSwipeSystem
import Glibc
import Logging
import Synchronization
import SystemPackage

// The containers' state survives a restart, a crash and SIGKILL.
//
// After every completed transition the input thread publishes a `.state` event and hands the containers to the
// state writer (StateWriter.swift), which writes them to `<state dir>/state.json` on its own thread, atomically
// (AtomicFileWriter: a temporary file, fsync, rename over the old one, fsync of the directory); the input thread
// never waits for the disk. A reply to a request that changed the state waits until it is on disk. At start-up the
// file is read back and replaces the configured initial state of every container whose name and kind still match
// the configuration (SavedState.swift). A file that cannot be read is moved aside (`state.json.corrupt-<time>`) and
// the daemon starts from the configured state: losing a tab selection must never stop the daemon. The directory and
// the file are checked before they are trusted (ModeChecks.swift).

/// The state directory: `--state-dir`, else systemd's `$STATE_DIRECTORY` (`StateDirectory=`), else
/// `$XDG_STATE_HOME/edgeswipe` for a user instance. `nil`: nothing is persisted (tests, unless they ask).
enum StateDirectoryLocation {
    static func resolve(flag: String?, environment: [String: String], uid: uid_t) -> String? {
        if let flag, !flag.isEmpty { return flag }
        // systemd joins several StateDirectory= entries with ':'; ours is the first.
        if let systemd = environment["STATE_DIRECTORY"], let first = systemd.split(separator: ":").first, !first.isEmpty {
            return String(first)
        }
        // Deliberately no ~/.local/state fallback: a daemon started by hand or by a test without XDG_STATE_HOME
        // must not pick up (or overwrite) another instance's state.
        if uid != 0, let xdg = environment["XDG_STATE_HOME"], xdg.hasPrefix("/") {
            return xdg + "/edgeswipe"
        }
        return nil
    }
}

/// Reads and writes `state.json` in the state directory. Thread-safe; writes are serialized.
final class StateStore: Sendable {
    static let fileName = "state.json"

    let directory: String
    private let directoryFD: FileDescriptor
    private let writer: AtomicFileWriter
    private let logger: Logger
    private struct Written {
        var containers: [Container]?
        var rotations: [RememberedRotation] = []
        /// What the next save writes: the latest of each (a rotation set changes no container, and back).
        var latestContainers: [Container]?
        var latestRotations: [RememberedRotation] = []
        var lastError: String?
        /// The generation of the file on disk (SavedState.generation): each save writes the next one.
        var generation: UInt64 = 0
    }
    private let written = Mutex(Written())

    var path: String { directory + "/" + Self.fileName }

    /// Opens (creating it 0700 if missing), checks and locks the state directory. `nil`, with an error logged,
    /// when it cannot be used safely: the daemon then runs without persistence rather than not at all.
    static func open(directory: String, logger: Logger) -> StateStore? {
        do {
            _ = try Stat(FilePath(directory), followTargetSymlink: false)
        } catch .noSuchFileOrDirectory {
            do {
                try FilePath(directory).createDirectories(permissions: [.ownerReadWriteExecute])
            } catch {
                logger.error("state directory \(directory): cannot create it (\(error)); container state will not be saved")
                return nil
            }
        } catch {
            logger.error("state directory \(directory): \(error); container state will not be saved")
            return nil
        }
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(FilePath(directory), .readOnly, options: [.directory, .closeOnExec, .noFollow])
        } catch {
            logger.error("state directory \(directory): cannot open it (\(error)); container state will not be saved")
            return nil
        }
        if let problem = ModeChecks.unsafeDirectory(fd: fd) {
            logger.error("state directory \(directory): \(problem); refusing to keep state there, container state will not be saved")
            try? fd.close()
            return nil
        }
        // One daemon per state directory: a second one (another socket, same directory) would overwrite it.
        do { try fd.lockExclusively() } catch {
            logger.error("state directory \(directory) is in use by another edgeswiped (flock: \(error)); container state will not be saved")
            try? fd.close()
            return nil
        }
        return StateStore(directory: directory, fd: fd, logger: logger)
    }

    private init(directory: String, fd: FileDescriptor, logger: Logger) {
        self.directory = directory
        self.directoryFD = fd
        self.writer = AtomicFileWriter(directory: fd, path: directory)
        self.logger = logger
        // Temporaries left by a daemon killed mid-write (the lock says no live daemon uses this directory).
        writer.removeStaleTemporaries(of: Self.fileName)
    }

    deinit { try? directoryFD.close() }

    // MARK: Restoring

    /// The configuration with the saved state of matching containers in place of their configured state.
    func restore(into configuration: EngineConfiguration) -> EngineConfiguration {
        // What a save before any transition (a rotation set) writes as the containers.
        written.withLock { $0.latestContainers = configuration.containers }
        guard let saved = load() else { return configuration }
        written.withLock { $0.generation = saved.generation ?? 0 }
        let (restored, notes) = saved.restore(into: configuration)
        var names: [String] = []
        for note in notes {
            switch note {
            case .restored(let name, let visible):
                names.append("\(name)=\(visible)")
            case .kindChanged(let name, let configured, let saved):
                logger.notice("state: container '\(name)' is now a \(configured) container (saved as \(saved)); starting it afresh")
            case .overLimit(let name, let measure):
                logger.notice("state: not restoring container '\(name)': the state would measure \(measure) bytes, over the \(StateLimits.maxStateBytes) the daemon keeps")
            case .skipped(let name, let reason):
                logger.notice("state: not restoring container '\(name)': \(reason)")
            case .dropped(let name):
                logger.notice("state: container '\(name)' is no longer configured; its saved state is dropped")
            }
        }
        let rotations = saved.restoredRotations
        logger.info("state restored from \(path)", metadata: [
            "containers": "\(names.joined(separator: ", "))",
            "rotations": "\(rotations.map { "\($0.device)=\($0.rotation.rawValue)" }.joined(separator: ", "))",
        ])
        written.withLock {
            $0.containers = restored.containers
            $0.latestContainers = restored.containers
            $0.rotations = rotations
            $0.latestRotations = rotations
        }
        return restored
    }

    /// The rotations clients set, as the state file remembers them (read at start-up by ``restore(into:)``).
    var restoredRotations: [RememberedRotation] { written.withLock { $0.latestRotations } }

    /// The saved state, or nil (no file, or a file that was moved aside).
    func load() -> SavedState? {
        let st: Stat
        do {
            st = try directoryFD.statEntry(Self.fileName)
        } catch .noSuchFileOrDirectory {
            logger.info("state: no saved state in \(directory); starting from the configuration")
            return nil
        } catch {
            logger.error("state: cannot stat \(path): \(error); starting from the configuration")
            return nil
        }
        if let problem = ModeChecks.unsafeStateFile(st) {
            moveAside(suffix: "unsafe", because: problem)
            return nil
        }
        if let warning = ModeChecks.stateFileWarning(st) { logger.warning("state: \(path): \(warning)") }
        guard Int(st.size) <= SavedState.maxFileBytes else {
            moveAside(suffix: "corrupt", because: "it is \(st.size) bytes, more than a state file can be")
            return nil
        }
        let bytes: [UInt8]
        do {
            let file = try FileDescriptor.open(Self.fileName, in: directoryFD, .readOnly, options: [.closeOnExec, .noFollow])
            defer { try? file.close() }
            bytes = (try? file.readToEnd(chunkSize: 16384) { $0.count > SavedState.maxFileBytes }) ?? []
        } catch {
            logger.error("state: cannot open \(path): \(error); starting from the configuration")
            return nil
        }
        do {
            return try SavedState.decode(bytes)
        } catch {
            moveAside(suffix: "corrupt", because: error.description)
            return nil
        }
    }

    /// Renames the state file to `state.json.<suffix>-<UTC time>` and says so; never fatal.
    private func moveAside(suffix: String, because reason: String) {
        let stamp = Self.utcStamp(seconds: time(nil))
        var name = "\(Self.fileName).\(suffix)-\(stamp)"
        var n = 1
        while directoryFD.hasEntry(name) {
            n += 1
            name = "\(Self.fileName).\(suffix)-\(stamp)-\(n)"
        }
        do {
            try directoryFD.renameEntry(Self.fileName, to: name)
            try? directoryFD.sync()
            logger.error("state: \(path) was moved aside to \(directory)/\(name) because \(reason); starting from the configured state")
        } catch {
            logger.error("state: \(path) is ignored because \(reason), and it could not be moved aside (\(error)); starting from the configured state")
        }
    }

    /// `20240131T235959Z`.
    private static func utcStamp(seconds: time_t) -> String {
        var now = seconds
        var parts = tm()
        gmtime_r(&now, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
    }

    // MARK: Saving

    /// The generation of the state file on disk (0: none written by a daemon that numbers them).
    var generation: UInt64 { written.withLock { $0.generation } }

    /// Writes the state file if what it would hold changed, numbered one past the file on disk; `nil`: that part as
    /// it was. Called by the state writer's thread only (StateWriter.swift), never by the input thread.
    func save(_ containers: [Container]?, rotations: [RememberedRotation]? = nil) {
        written.withLock { w in
            if let containers { w.latestContainers = containers }
            if let rotations { w.latestRotations = rotations }
            // Nothing known of the containers yet (no state restored, no transition): nothing to write them as.
            guard let containers = w.latestContainers else { return }
            guard w.containers != containers || w.rotations != w.latestRotations else { return }
            let rotations = w.latestRotations
            let started = MonotonicClock.now()
            do {
                let bytes: [UInt8]
                do { bytes = try SavedState.encode(
                        containers, rotations: rotations, savedAt: Int(time(nil)), generation: w.generation + 1) } catch {
                    // StateLimits keeps the state well below the limit; a file this large would be moved aside at
                    // the next start.
                    logger.critical("bug: \(error); not saving it")
                    throw error
                }
                try writer.write(bytes, to: Self.fileName)
                w.containers = containers
                w.rotations = rotations
                w.generation += 1
                if w.lastError != nil { logger.notice("state: saving works again", metadata: ["file": "\(path)"]) }
                w.lastError = nil
            } catch {
                // Log a failure once, not after every transition, until it changes or saving works again.
                let description = "\(error)"
                if w.lastError != description {
                    logger.error("state: cannot save \(path): \(description); the container state will be lost on restart")
                    w.lastError = description
                }
            }
            let elapsed = MonotonicClock.now() - started
            if elapsed.value > 50_000 {
                logger.warning("state: saving took \(elapsed.value / 1000) ms", metadata: ["file": "\(path)"])
            }
        }
    }
}
