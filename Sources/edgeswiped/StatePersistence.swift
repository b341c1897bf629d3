import EdgeSwipeCore
import EdgeSwipeSystem
import FoundationEssentials
import Glibc
import Logging
import Synchronization
import SystemPackage

// The containers' state survives a restart, a crash and SIGKILL.
//
// After every completed transition the input thread publishes a `.state` event; before it goes to clients the
// containers are written to `<state dir>/state.json` atomically (AtomicFileWriter: a temporary file, fsync, rename
// over the old one, fsync of the directory), so what a client was told is what a restart restores. At start-up the
// file is read back and replaces the configured initial state of every container whose name and kind still match
// the configuration (StateFormat.swift). A file that cannot be read is moved aside (`state.json.corrupt-<time>`) and
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
        var lastError: String?
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
        guard let saved = load() else { return configuration }
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
        logger.info("state restored from \(path)", metadata: ["containers": "\(names.joined(separator: ", "))"])
        written.withLock { $0.containers = restored.containers }
        return restored
    }

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

    /// Saves the state of the last `.state` event among `events`, if the containers changed since the last save.
    /// Called on the input thread before the events are published.
    func record(_ events: [EngineEvent]) {
        guard let snapshot = events.last(where: { if case .state = $0 { true } else { false } }),
            case .state(let state) = snapshot
        else { return }
        save(state.containers)
    }

    func save(_ containers: [Container]) {
        written.withLock { w in
            guard w.containers != containers else { return }
            let started = MonotonicClock.now()
            do {
                let bytes: [UInt8]
                do { bytes = try SavedState.encode(containers, savedAt: Int(time(nil))) } catch {
                    // StateLimits keeps the state well below the limit; a file this large would be moved aside at
                    // the next start.
                    logger.critical("bug: \(error); not saving it")
                    throw error
                }
                try writer.write(bytes, to: Self.fileName)
                w.containers = containers
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

/// When the state a reply reports is durable.
///
/// The input thread numbers the batches it publishes that hold a `state` event (generations); whoever writes the
/// state file says how far it has got (``markPersisted(through:)``), and a reply held for generation N goes out
/// once N is persisted. Today the state is written on the input thread before each batch is published, so the
/// reply goes out right after the publish; a writer that runs in the background marks generations as it finishes
/// them, and the replies follow, with no change to the input thread.
final class PersistenceBarrier: Sendable {
    private struct State {
        var persisted: UInt64 = 0
        var waiting: [(generation: UInt64, action: @Sendable () -> Void)] = []
    }
    private let state = Mutex(State())

    /// Everything up to `generation` is on disk, or failed to be written and was logged as an error (a failed
    /// write must not hold replies back forever; PROTOCOL.md says so).
    func markPersisted(through generation: UInt64) {
        let due = state.withLock { s -> [@Sendable () -> Void] in
            guard generation > s.persisted else { return [] }
            s.persisted = generation
            let (due, rest) = s.waiting.reduce(into: ([@Sendable () -> Void](), [(generation: UInt64, action: @Sendable () -> Void)]())) { r, w in
                if w.generation <= generation { r.0.append(w.action) } else { r.1.append(w) }
            }
            s.waiting = rest
            return due
        }
        for action in due { action() }
    }

    /// Runs `action` once `generation` is persisted: at once, on this thread, if it already is.
    func whenPersisted(_ generation: UInt64, _ action: @escaping @Sendable () -> Void) {
        let now = state.withLock { s -> Bool in
            if generation <= s.persisted { return true }
            s.waiting.append((generation, action))
            return false
        }
        if now { action() }
    }
}

// The state file's format: what `state.json` holds, how it is written and read back, and how a saved state is
// checked against the configuration and against the limits every state is held to (`StateLimits`, the same ones
// requests and the configuration pass). No I/O here: StateStore.swift reads and writes the file.

/// The on-disk form: one object per container, with exactly the fields of its kind, like the protocol's `state`
/// message, so that an administrator can read (and, with the daemon stopped, edit) the file.
struct SavedState: Codable, Equatable {
    static let currentVersion = 1
    /// The largest state this daemon can save fits well within it (StateLimits); anything larger is not ours.
    static let maxFileBytes = StateLimits.maxStateFileBytes

    struct SavedContainer: Codable, Equatable {
        var name: String
        var kind: String
        var stack: [String]?
        var tabs: [String]?
        var selected: Int?
        var base: String?
        var presented: [Presentation]?
        var children: [String]?
        var active: Int?

        init(_ container: Container) {
            name = container.name
            kind = container.content.kind
            switch container.content {
            case .navigation(let stack): self.stack = stack
            case .tabs(let tabs, let selected): (self.tabs, self.selected) = (tabs, selected)
            case .modal(let base, let presented): (self.base, self.presented) = (base, presented)
            case .custom(let children, let active): (self.children, self.active) = (children, active)
            }
        }
    }

    var version: Int
    /// Seconds since 1970, for people reading the file.
    var savedAt: Int?
    var containers: [SavedContainer]

    enum CodingKeys: String, CodingKey {
        case version, savedAt = "saved_at", containers
    }
}

/// Why a state file cannot be written or used.
enum StateFormatError: Error, Equatable, CustomStringConvertible {
    /// The encoder failed (a bug: every state encodes).
    case unencodable
    /// The encoded state is larger than a restore accepts (a bug: `StateLimits` keeps it well below).
    case tooLarge(bytes: Int)
    /// Not a state file this daemon can read: the decoder's reason.
    case invalid(String)
    /// A state file of another version.
    case unsupportedVersion(Int)

    var description: String {
        switch self {
        case .unencodable: "the state cannot be encoded"
        case .tooLarge(let bytes): "the state is \(bytes) bytes, over the \(SavedState.maxFileBytes) a restore accepts"
        case .invalid(let reason): "it is not a valid state file (\(reason))"
        case .unsupportedVersion(let version):
            "it has version \(version); this edgeswiped reads version \(SavedState.currentVersion)"
        }
    }
}

extension SavedState {
    /// The file's bytes for `containers`: sorted keys, indented, a final newline.
    static func encode(_ containers: [Container], savedAt: Int) throws(StateFormatError) -> [UInt8] {
        let state = SavedState(version: currentVersion, savedAt: savedAt, containers: containers.map(SavedContainer.init))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        var bytes: [UInt8]
        do { bytes = Array(try encoder.encode(state)) } catch { throw .unencodable }
        bytes.append(UInt8(ascii: "\n"))
        guard bytes.count <= maxFileBytes else { throw .tooLarge(bytes: bytes.count) }
        return bytes
    }

    /// A state file's contents, if they are a state of this version.
    static func decode(_ bytes: [UInt8]) throws(StateFormatError) -> SavedState {
        let state: SavedState
        do { state = try JSONDecoder().decode(SavedState.self, from: Data(bytes)) } catch { throw .invalid(describe(error)) }
        guard state.version == currentVersion else { throw .unsupportedVersion(state.version) }
        return state
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let c): return c.debugDescription
        case DecodingError.keyNotFound(let key, _): return "'\(key.stringValue)' is missing"
        case DecodingError.typeMismatch(_, let c), DecodingError.valueNotFound(_, let c):
            return "\(c.codingPath.map(\.stringValue).joined(separator: ".")): \(c.debugDescription)"
        default: return "\(error)"
        }
    }
}

// MARK: Restoring

/// Why one saved container was not restored.
enum RestoreOutcome: Equatable {
    case restored(ContainerContent)
    case skipped(String)
}

extension SavedState.SavedContainer {
    /// The saved state applied to the configured container of the same name and kind: scenes are matched by
    /// name, so a configuration that reordered tabs still restores the selected one, and one that changed the
    /// root of a stack or the base of a modal container starts that container afresh.
    func restore(onto configured: ContainerContent) -> RestoreOutcome {
        // The same limits requests and the configuration are held to (StateLimits): what was saved passed them.
        func validName(_ s: String) -> Bool { StateLimits.nameProblem(s) == nil }
        switch configured {
        case .navigation(let configuredStack):
            guard let stack, !stack.isEmpty, stack.count <= StateLimits.maxStackDepth, stack.allSatisfy(validName) else {
                return .skipped("the saved stack is empty or invalid")
            }
            guard stack.first == configuredStack.first else {
                return .skipped("the configured root is '\(configuredStack.first ?? "")', the saved one '\(stack[0])'")
            }
            return .restored(.navigation(stack: stack))
        case .tabs(let configuredTabs, _):
            guard let tabs, let selected, tabs.indices.contains(selected) else { return .skipped("the saved selection is invalid") }
            guard let index = configuredTabs.firstIndex(of: tabs[selected]) else {
                return .skipped("the saved tab '\(tabs[selected])' is no longer configured")
            }
            return .restored(.tabs(tabs: configuredTabs, selected: index))
        case .modal(let configuredBase, _):
            guard let base, base == configuredBase else {
                return .skipped("the configured base is '\(configuredBase)', the saved one '\(base ?? "")'")
            }
            let presented = self.presented ?? []
            var seen: Set<String> = [base]
            for p in presented {
                guard validName(p.scene), seen.insert(p.scene).inserted, p.frame.validationProblem == nil
                else { return .skipped("the saved presentations are invalid") }
            }
            guard presented.count <= StateLimits.maxPresented else { return .skipped("the saved presentations are invalid") }
            return .restored(.modal(base: base, presented: presented))
        case .custom(let configuredChildren, _):
            guard let children, let active, children.indices.contains(active) else { return .skipped("the saved active child is invalid") }
            guard let index = configuredChildren.firstIndex(of: children[active]) else {
                return .skipped("the saved child '\(children[active])' is no longer configured")
            }
            return .restored(.custom(children: configuredChildren, active: index))
        }
    }
}

extension SavedState {
    /// What restoring did to one container, in the order a restore logs them.
    enum RestoreNote: Equatable {
        case restored(container: String, visibleScene: String)
        case kindChanged(container: String, configured: String, saved: String)
        case overLimit(container: String, measure: Int)
        case skipped(container: String, reason: String)
        /// A saved container the configuration no longer has.
        case dropped(container: String)
    }

    /// `configuration` with the saved state of each container whose name and kind still match in place of the
    /// configured one, and what was done with each. A configuration with more or larger containers than the one
    /// that saved could pass the state's limit with the saved state in place: containers that would are started
    /// afresh.
    func restore(into configuration: EngineConfiguration) -> (EngineConfiguration, [RestoreNote]) {
        var configuration = configuration
        var notes: [RestoreNote] = []
        var size = StateLimits.size(of: configuration.containers)
        for (i, container) in configuration.containers.enumerated() {
            guard let s = containers.first(where: { $0.name == container.name }) else { continue }
            guard s.kind == container.content.kind else {
                notes.append(.kindChanged(container: container.name, configured: container.content.kind, saved: s.kind))
                continue
            }
            switch s.restore(onto: container.content) {
            case .restored(let content):
                let grown = size - StateLimits.size(of: container) + StateLimits.size(of: Container(name: container.name, content: content))
                guard grown <= StateLimits.maxStateBytes else {
                    notes.append(.overLimit(container: container.name, measure: grown))
                    continue
                }
                size = grown
                configuration.containers[i].content = content
                notes.append(.restored(container: container.name, visibleScene: content.visibleScene))
            case .skipped(let reason):
                notes.append(.skipped(container: container.name, reason: reason))
            }
        }
        for s in containers where !configuration.containers.contains(where: { $0.name == s.name }) {
            notes.append(.dropped(container: s.name))
        }
        return (configuration, notes)
    }
}
