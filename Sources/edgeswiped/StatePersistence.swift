import EdgeSwipeCore
import Foundation
import Glibc
import Logging
import Synchronization

// The containers' state survives a restart, a crash and SIGKILL.
//
// After every completed transition the input thread publishes a `.state` event; before it goes to clients the
// containers are written to `<state dir>/state.json` atomically (write a temporary file, fsync it, rename it over
// the old one, fsync the directory), so what a client was told is what a restart restores. At start-up the file
// is read back and replaces the configured initial state of every container whose name and kind still match the
// configuration. A file that cannot be read is moved aside (`state.json.corrupt-<time>`) and the daemon starts
// from the configured state: losing a tab selection must never stop the daemon.

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

/// The on-disk form: one object per container, with exactly the fields of its kind, like the protocol's `state`
/// message, so that an administrator can read (and, with the daemon stopped, edit) the file.
struct SavedState: Codable, Equatable {
    static let currentVersion = 1

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

/// Reads and writes `state.json` in the state directory. Thread-safe; writes are serialized.
final class StateStore: Sendable {
    static let fileName = "state.json"
    /// The largest state this daemon can save fits well within it (StateLimits); anything larger is not ours.
    static let maxFileBytes = StateLimits.maxStateFileBytes

    let directory: String
    private let directoryFD: Int32
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
        var st = stat()
        if lstat(directory, &st) != 0 {
            guard errno == ENOENT else {
                logger.error("state directory \(directory): \(String(cString: strerror(errno))); container state will not be saved")
                return nil
            }
            do {
                try FileManager.default.createDirectory(
                    atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                logger.error("state directory \(directory): cannot create it (\(error.localizedDescription)); container state will not be saved")
                return nil
            }
        }
        let fd = Glibc.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else {
            logger.error("state directory \(directory): cannot open it (\(String(cString: strerror(errno)))); container state will not be saved")
            return nil
        }
        if let problem = ModeChecks.unsafeDirectory(fd: fd) {
            logger.error("state directory \(directory): \(problem); refusing to keep state there, container state will not be saved")
            close(fd)
            return nil
        }
        // One daemon per state directory: a second one (another socket, same directory) would overwrite it.
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            logger.error("state directory \(directory) is in use by another edgeswiped (flock: \(String(cString: strerror(errno)))); container state will not be saved")
            close(fd)
            return nil
        }
        return StateStore(directory: directory, fd: fd, logger: logger)
    }

    private init(directory: String, fd: Int32, logger: Logger) {
        self.directory = directory
        self.directoryFD = fd
        self.logger = logger
        removeStaleTemporaries()
    }

    deinit { close(directoryFD) }

    // MARK: Restoring

    /// The configuration with the saved state of matching containers in place of their configured state.
    func restore(into configuration: EngineConfiguration) -> EngineConfiguration {
        guard let saved = load() else { return configuration }
        var configuration = configuration
        var restored: [String] = []
        // A configuration with more or larger containers than the one that saved could pass the state's limit
        // with the saved state in place: containers that would are started afresh.
        var size = StateLimits.size(of: configuration.containers)
        for (i, container) in configuration.containers.enumerated() {
            guard let s = saved.containers.first(where: { $0.name == container.name }) else { continue }
            guard s.kind == container.content.kind else {
                logger.notice("state: container '\(container.name)' is now a \(container.content.kind) container (saved as \(s.kind)); starting it afresh")
                continue
            }
            switch s.restore(onto: container.content) {
            case .restored(let content):
                let grown = size - StateLimits.size(of: container) + StateLimits.size(of: Container(name: container.name, content: content))
                guard grown <= StateLimits.maxStateBytes else {
                    logger.notice("state: not restoring container '\(container.name)': the state would measure \(grown) bytes, over the \(StateLimits.maxStateBytes) the daemon keeps")
                    continue
                }
                size = grown
                configuration.containers[i].content = content
                restored.append("\(container.name)=\(content.visibleScene)")
            case .skipped(let reason):
                logger.notice("state: not restoring container '\(container.name)': \(reason)")
            }
        }
        for s in saved.containers where !configuration.containers.contains(where: { $0.name == s.name }) {
            logger.notice("state: container '\(s.name)' is no longer configured; its saved state is dropped")
        }
        logger.info("state restored from \(path)", metadata: ["containers": "\(restored.joined(separator: ", "))"])
        written.withLock { $0.containers = configuration.containers }
        return configuration
    }

    /// The saved state, or nil (no file, or a file that was moved aside).
    func load() -> SavedState? {
        var st = stat()
        guard fstatat(directoryFD, Self.fileName, &st, AT_SYMLINK_NOFOLLOW) == 0 else {
            if errno == ENOENT {
                logger.info("state: no saved state in \(directory); starting from the configuration")
            } else {
                logger.error("state: cannot stat \(path): \(String(cString: strerror(errno))); starting from the configuration")
            }
            return nil
        }
        if let problem = ModeChecks.unsafeStateFile(st) {
            moveAside(suffix: "unsafe", because: problem)
            return nil
        }
        if let warning = ModeChecks.stateFileWarning(st) { logger.warning("state: \(path): \(warning)") }
        guard Int(st.st_size) <= Self.maxFileBytes else {
            moveAside(suffix: "corrupt", because: "it is \(st.st_size) bytes, more than a state file can be")
            return nil
        }
        let fd = openat(directoryFD, Self.fileName, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else {
            logger.error("state: cannot open \(path): \(String(cString: strerror(errno))); starting from the configuration")
            return nil
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while bytes.count <= Self.maxFileBytes {
            let n = read(fd, &chunk, chunk.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        close(fd)
        do {
            let state = try JSONDecoder().decode(SavedState.self, from: Data(bytes))
            guard state.version == SavedState.currentVersion else {
                moveAside(suffix: "corrupt", because: "it has version \(state.version); this edgeswiped reads version \(SavedState.currentVersion)")
                return nil
            }
            return state
        } catch {
            moveAside(suffix: "corrupt", because: "it is not a valid state file (\(Self.describe(error)))")
            return nil
        }
    }

    /// Renames the state file to `state.json.<suffix>-<UTC time>` and says so; never fatal.
    private func moveAside(suffix: String, because reason: String) {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        let stamp = String(
            format: "%04d%02d%02dT%02d%02d%02dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
            Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
        var name = "\(Self.fileName).\(suffix)-\(stamp)"
        var n = 1
        while faccessat(directoryFD, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0 {
            n += 1
            name = "\(Self.fileName).\(suffix)-\(stamp)-\(n)"
        }
        if renameat(directoryFD, Self.fileName, directoryFD, name) == 0 {
            fsync(directoryFD)
            logger.error("state: \(path) was moved aside to \(directory)/\(name) because \(reason); starting from the configured state")
        } else {
            logger.error("state: \(path) is ignored because \(reason), and it could not be moved aside (\(String(cString: strerror(errno)))); starting from the configured state")
        }
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
            do throws(StateWriteError) {
                try writeAtomically(containers)
                w.containers = containers
                if w.lastError != nil { logger.notice("state: saving works again", metadata: ["file": "\(path)"]) }
                w.lastError = nil
            } catch {
                // Log a failure once, not after every transition, until it changes or saving works again.
                if w.lastError != error.description {
                    logger.error("state: cannot save \(path): \(error); the container state will be lost on restart")
                    w.lastError = error.description
                }
            }
            let elapsed = MonotonicClock.now() - started
            if elapsed.value > 50_000 {
                logger.warning("state: saving took \(elapsed.value / 1000) ms", metadata: ["file": "\(path)"])
            }
        }
    }

    private struct StateWriteError: Error, CustomStringConvertible {
        var call: String
        var code: Int32
        var description: String { "\(call) failed: \(String(cString: strerror(code))) (errno \(code))" }
    }

    /// Write a temporary file, fsync it, rename it over `state.json`, fsync the directory.
    private func writeAtomically(_ containers: [Container]) throws(StateWriteError) {
        let state = SavedState(version: SavedState.currentVersion, savedAt: Int(time(nil)), containers: containers.map(SavedState.SavedContainer.init))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        var data: [UInt8]
        do {
            data = Array(try encoder.encode(state))
        } catch {
            throw StateWriteError(call: "encode", code: EINVAL)
        }
        data.append(UInt8(ascii: "\n"))
        guard data.count <= Self.maxFileBytes else {
            // StateLimits keeps the state well below this; a file this large would be moved aside at the next start.
            logger.critical("bug: the state to save is \(data.count) bytes, over the \(Self.maxFileBytes) a restore accepts; not saving it")
            throw StateWriteError(call: "encode", code: EFBIG)
        }
        let temporary = "\(Self.fileName).tmp-\(getpid())"
        let fd = openat(directoryFD, temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw StateWriteError(call: "open \(temporary)", code: errno) }
        var offset = 0
        while offset < data.count {
            let n = data.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                let code = errno
                close(fd)
                unlinkat(directoryFD, temporary, 0)
                throw StateWriteError(call: "write \(temporary)", code: code)
            }
            offset += n
        }
        guard fsync(fd) == 0 else {
            let code = errno
            close(fd)
            unlinkat(directoryFD, temporary, 0)
            throw StateWriteError(call: "fsync \(temporary)", code: code)
        }
        close(fd)
        guard renameat(directoryFD, temporary, directoryFD, Self.fileName) == 0 else {
            let code = errno
            unlinkat(directoryFD, temporary, 0)
            throw StateWriteError(call: "rename \(temporary) to \(Self.fileName)", code: code)
        }
        guard fsync(directoryFD) == 0 else { throw StateWriteError(call: "fsync \(directory)", code: errno) }
    }

    /// Temporaries left by a daemon killed mid-write (the lock says no live daemon uses this directory).
    private func removeStaleTemporaries() {
        let prefix = "\(Self.fileName).tmp-"
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in entries where name.hasPrefix(prefix) {
            unlinkat(directoryFD, name, 0)
        }
    }
}
