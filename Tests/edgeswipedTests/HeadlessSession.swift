import EdgeSwipeTestSupport
import Foundation
import Glibc
import Testing

/// A private desktop session for a headless compositor's tests (``HeadlessSway``, ``HeadlessPhoc``,
/// ``HeadlessKWin``): an unprivileged user (`nobody` when the tests run as root: sway and phoc refuse root, and a
/// session is a user's), its own 0700 `XDG_RUNTIME_DIR` and `HOME`, and the processes started in it, each in a
/// process group of its own (Foundation's `Process` makes every child a group leader, and `setpriv` keeps the pid),
/// all killed with their groups when the session is released.
///
/// Every process's output goes to a log in the session's directory; the logs of each test's last run are kept
/// (``keepLogs()``, in the deinit) in `$EDGESWIPE_ARTEFACTS/compositors/<name>/<test>`, else
/// `.build/artefacts/compositors/<name>/<test>`, so that a failure in CI can be read after the run (docs/TESTING.md).
final class HeadlessSession: @unchecked Sendable {
    /// The compositor's name, which names the kept logs' folder.
    let name: String
    /// Where this session's logs are kept: the compositor's folder, then the test's.
    let keptLogsFolder: URL
    let directory: URL
    let runtimeDirectory: URL
    /// `HOME` (and so `~/.local/share/applications`, `~/.config`).
    let home: URL
    /// `setpriv` arguments that drop to `nobody`, when running as root; empty otherwise.
    let dropPrivileges: [String]
    private let lock = NSLock()
    private var started: [Process] = []

    /// `nobody`, whom the tests run as when they are root.
    static let nobody: (uid: uid_t, gid: gid_t) = (65534, 65534)
    static var isRoot: Bool { getuid() == 0 }

    init(name: String) throws {
        self.name = name
        let test = (Test.current?.name ?? "outside-a-test").filter { $0.isLetter || $0.isNumber || $0 == "-" }
        keptLogsFolder = Self.keptLogs.appendingPathComponent(name).appendingPathComponent(test)
        directory = try Paths.tempDirectory()
        runtimeDirectory = directory.appendingPathComponent("run")
        home = directory.appendingPathComponent("home")
        for dir in [runtimeDirectory, home] { try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true) }
        dropPrivileges = Self.isRoot ? ["/usr/bin/setpriv", "--reuid=\(Self.nobody.uid)", "--regid=\(Self.nobody.gid)", "--clear-groups", "--"] : []
        chmod(directory.path, 0o755)
        chmod(home.path, 0o755)
        chmod(runtimeDirectory.path, 0o700)
        for dir in [directory, runtimeDirectory, home] { giveToUser(dir) }
    }

    deinit {
        stopAll()
        keepLogs()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The environment every process of the session starts with (a clean one: nothing of the test runner's leaks in).
    var baseEnvironment: [String: String] {
        ["XDG_RUNTIME_DIR": runtimeDirectory.path, "HOME": home.path, "PATH": "/usr/bin:/bin", "XKB_DEFAULT_LAYOUT": "us", "LANG": "C.UTF-8"]
    }

    /// Makes `url` the session user's (when the tests run as root).
    func giveToUser(_ url: URL) {
        if Self.isRoot { chown(url.path, Self.nobody.uid, Self.nobody.gid) }
    }

    /// A file in the directory that the session's user may write (emptied if it existed).
    func writableFile(_ name: String) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try Paths.emptyFile(url)
        giveToUser(url)
        return url
    }

    /// `text` written to `relativePath` under `base` (its folders made, all the session user's), readable by all.
    @discardableResult
    func write(_ text: String, to relativePath: String, under base: URL? = nil) throws -> URL {
        let root = base ?? directory
        let url = root.appendingPathComponent(relativePath)
        var folder = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // Each folder between the root and the file becomes the user's, as `mkdir -p` run by the user would make it.
        while folder.path.count > root.path.count {
            giveToUser(folder)
            folder = folder.deletingLastPathComponent()
        }
        try text.write(to: url, atomically: false, encoding: .utf8)
        chmod(url.path, 0o644)
        giveToUser(url)
        return url
    }

    /// A copy of `source` in the session's directory, executable by all: for binaries the session runs from a path
    /// of its own (KWin without its file capability, clients a desktop entry names).
    func copyExecutable(_ source: URL, as name: String) throws -> URL {
        let target = directory.appendingPathComponent(name)
        try? FileManager.default.removeItem(at: target)
        try FileManager.default.copyItem(at: source, to: target)
        chmod(target.path, 0o755)
        return target
    }

    /// Starts `arguments` as the session's user with ``baseEnvironment`` plus `environment`, its output to `log` (or
    /// its standard output to `standardOutput`, and its input from `standardInput`, for a client the test talks to).
    /// The process is the leader of a new process group, which ``stopAll()`` kills.
    func launch(
        _ process: Process, _ arguments: [String], environment: [String: String], log: URL, standardInput: Pipe? = nil,
        standardOutput: Pipe? = nil
    ) throws {
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }
        let command = dropPrivileges + arguments
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.environment = baseEnvironment.merging(environment) { $1 }
        process.standardOutput = standardOutput ?? handle
        process.standardError = handle
        if let standardInput { process.standardInput = standardInput }
        process.currentDirectoryURL = directory
        try process.run()
        lock.withLock { started.append(process) }
    }

    /// A process started by ``start(_:_:environment:)``, and what it has written so far.
    struct Launched {
        let process: Process
        let log: URL
        var text: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
        var lines: [Substring] { text.split(separator: "\n") }
        var isRunning: Bool { process.isRunning }

        /// Waits until the process has written a line satisfying `condition` (or exited); whether it has.
        func waitForLine(timeout: Double = 20, _ condition: (Substring) -> Bool) -> Bool {
            waitUntil(timeout: timeout) { lines.contains(where: condition) || !process.isRunning } && lines.contains(where: condition)
        }

        /// Waits, up to `timeout`, for the process to exit; its status, or `nil` if it is still running.
        func exitStatus(timeout: Double = 20) -> Int32? {
            guard waitUntil(timeout: timeout, { !process.isRunning }) else { return nil }
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    /// Starts `arguments` as the session's user, its output in `<label>.log` (a unique name if taken).
    func start(_ label: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Launched {
        var name = "\(label).log"
        var n = 2
        while FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path) {
            name = "\(label)-\(n).log"
            n += 1
        }
        let log = try writableFile(name)
        let process = Process()
        try launch(process, arguments, environment: environment, log: log)
        return Launched(process: process, log: log)
    }

    /// Runs `arguments` as the session's user to completion (an error past `timeout`): its status and its output
    /// (standard output, then standard error).
    func run(_ arguments: [String], environment: [String: String] = [:], timeout: Double = 30) throws -> (status: Int32, output: String) {
        let command = dropPrivileges + arguments
        let finished = try edgeswipedTests.run(
            URL(fileURLWithPath: command[0]), Array(command.dropFirst()), environment: baseEnvironment.merging(environment) { $1 },
            timeoutSeconds: timeout)
        return (finished.status, finished.stdout + finished.stderr)
    }

    /// Kills every process the session started, with its process group (SIGKILL: a process the test runner starts
    /// inherits its blocked signals, so a SIGTERM may stay pending), and reaps it. Later processes first: clients
    /// before their compositor.
    func stopAll() {
        let processes = lock.withLock { () -> [Process] in
            defer { started = [] }
            return started.reversed()
        }
        for process in processes where process.isRunning {
            kill(-process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Every log of the session, by file name.
    var logs: [String: String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        var result: [String: String] = [:]
        for name in names where name.hasSuffix(".log") {
            result[name] = (try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)) ?? ""
        }
        return result
    }

    /// The last lines of every log, for a failure message.
    func describeLogs(lines: Int = 15) -> String {
        logs.sorted { $0.key < $1.key }.map { name, text in
            "--- \(name) (last \(lines) lines; all in \(self.keptLogsFolder.path))\n"
                + text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// Where the last run's logs of each compositor's tests are kept.
    static var keptLogs: URL { Artefacts.base.appendingPathComponent("compositors") }

    /// Copies the session's logs to ``keptLogsFolder``, replacing those of the test's previous run.
    func keepLogs() {
        let target = keptLogsFolder
        try? FileManager.default.removeItem(at: target)
        guard (try? FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)) != nil else { return }
        for (file, text) in logs { try? text.write(to: target.appendingPathComponent(file), atomically: false, encoding: .utf8) }
    }

    /// The first `wayland-N` socket in the runtime directory, once there is one.
    var waylandSocket: String? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: runtimeDirectory.path)) ?? []
        return names.sorted().first { $0.hasPrefix("wayland-") && !$0.hasSuffix(".lock") }
    }
}

/// What the compositor matrix's tests ask of each headless compositor, whatever it is.
protocol HeadlessCompositor: AnyObject {
    /// The user, the directories and the processes.
    var session: HeadlessSession { get }
    /// `WAYLAND_DISPLAY` and whatever else a client of this compositor needs, on top of the session's base.
    var environment: [String: String] { get }
    /// How long the compositor took from its start to accepting clients.
    var startSeconds: Double { get }
}

extension HeadlessCompositor {
    /// Starts a client of the compositor as the session's user.
    func startClient(_ label: String, _ arguments: [String], environment extra: [String: String] = [:]) throws -> HeadlessSession.Launched {
        try session.start(label, arguments, environment: environment.merging(extra) { $1 })
    }

    /// Runs a client to completion: its status and output.
    func runClient(_ arguments: [String], environment extra: [String: String] = [:], timeout: Double = 30) throws -> (status: Int32, output: String) {
        try session.run(arguments, environment: environment.merging(extra) { $1 }, timeout: timeout)
    }
}

/// How long `body` took, in seconds (a start-up cost reported by the tests, never asserted).
func secondsTaken(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    let (s, atto) = (ContinuousClock.now - start).components
    return Double(s) + Double(atto) / 1e18
}
