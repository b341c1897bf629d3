import EdgeSwipeSessionModel
public import EdgeSwipeSystem
import Glibc
public import Logging
import NIOConcurrencyHelpers
import SystemPackage

/// Runs rules' commands: an argv (never through a shell) with the event in `EDGESWIPE_*` variables, at most one
/// running per rule, killed (its whole process group) after its timeout, its output kept to a bounded excerpt, and
/// its exit status logged with the rule's name.
///
/// ``run(_:argv:timeout:environment:)`` returns at once: each running command has a thread of its own that sleeps in
/// one `ppoll` on its output, its exit (a pidfd) and its deadline.
public final class CommandRunner: Sendable {
    /// What a finished command did, for the log and for tests.
    public struct Outcome: Hashable, Sendable {
        public var rule: String
        public var status: ProcessDescriptor.ExitStatus
        /// Whether the timeout killed it.
        public var timedOut: Bool
        /// Bytes it wrote to stdout and stderr, all told.
        public var outputBytes: Int
        /// The first ``CommandRunner/keptOutputBytes`` of them.
        public var output: [UInt8]
        /// Firings refused while it ran.
        public var skipped: Int
    }

    /// How much of a command's output is kept for the log (the rest is read and dropped, so a flood cannot block it).
    public static let keptOutputBytes = 4096
    /// How long a command has to exit after SIGTERM before SIGKILL.
    public static let killGrace = Duration.seconds(1)

    private let logger: Logger
    private let running = NIOLockedValueBox<[String: Int]>([:])
    private let finished: @Sendable (Outcome) -> Void

    /// `finished` is called on the command's thread when it has exited and been reaped.
    public init(logger: Logger, finished: @escaping @Sendable (Outcome) -> Void = { _ in }) {
        self.logger = logger
        self.finished = finished
    }

    public enum Start: Hashable, Sendable {
        case started(pid: Int32)
        /// The rule's previous command still runs: this firing is dropped (logged once per run).
        case skipped
        case failed(String)
    }

    /// Starts `argv` for the rule named `rule` (its key for "one at a time"), unless that rule's last command still
    /// runs.
    @discardableResult
    public func run(_ rule: String, argv: [String], timeout: Duration, environment: [String: String]) -> Start {
        let firstSkip = running.withLockedValue { r -> Bool? in
            guard let skipped = r[rule] else {
                r[rule] = 0
                return nil
            }
            r[rule] = skipped + 1
            return skipped == 0
        }
        if let firstSkip {
            if firstSkip { logger.warning("\(rule): its command is still running from an earlier gesture; skipping until it exits") }
            return .skipped
        }
        let spawned: SpawnedCommand
        do { spawned = try SpawnedCommand(argv: argv, environment: environment) } catch {
            _ = running.withLockedValue { $0.removeValue(forKey: rule) }
            logger.error("\(rule): cannot run \(argv[0]): \(error)")
            return .failed(error.description)
        }
        let pid = spawned.process.pid
        do {
            try SystemThread.start(name: "command", detached: true) { [self] in
                let (status, timedOut, total, kept) = spawned.wait(timeout: timeout)
                let skipped = running.withLockedValue { $0.removeValue(forKey: rule) } ?? 0
                let outcome = Outcome(rule: rule, status: status, timedOut: timedOut, outputBytes: total, output: kept, skipped: skipped)
                log(outcome, argv: argv, timeout: timeout)
                finished(outcome)
            }
        } catch {
            spawned.process.signal(SIGKILL)
            _ = try? spawned.process.reap()
            _ = running.withLockedValue { $0.removeValue(forKey: rule) }
            logger.error("\(rule): cannot start a thread to watch \(argv[0]): \(error)")
            return .failed("\(error)")
        }
        logger.debug("\(rule): started \(argv[0]) (pid \(pid))")
        return .started(pid: pid)
    }

    /// Whether `rule`'s command runs now.
    public func isRunning(_ rule: String) -> Bool { running.withLockedValue { $0[rule] != nil } }

    private func log(_ o: Outcome, argv: [String], timeout: Duration) {
        var line = "\(o.rule): \(argv[0]) "
        line += o.timedOut ? "ran past its \(timeout) timeout and was \(o.status)" : "ended with \(o.status)"
        if o.skipped > 0 { line += "; \(o.skipped) firing\(o.skipped == 1 ? "" : "s") skipped while it ran" }
        if o.outputBytes > 0 {
            let text = String(decoding: o.output, as: UTF8.self).split(whereSeparator: \.isNewline).prefix(3).joined(separator: " | ")
            let excerpt = text.count > 300 ? String(text.prefix(300)) + "…" : text
            line += "; output (\(o.outputBytes) bytes\(o.outputBytes > o.output.count ? ", first \(o.output.count) kept" : "")): \(excerpt)"
        }
        if o.status == .exited(0) && !o.timedOut { logger.info("\(line)") } else { logger.warning("\(line)") }
    }
}

/// One spawned command: its process descriptor and the read end of its output pipe.
struct SpawnedCommand: Sendable {
    let process: ProcessDescriptor
    let output: FileDescriptor

    /// `argv` in a process group of its own (``Spawn``), stdin from /dev/null, stdout and stderr into a pipe.
    init(argv: [String], environment: [String: String]) throws(SystemCallError) {
        let (readEnd, writeEnd): (FileDescriptor, FileDescriptor)
        do { (readEnd, writeEnd) = try typedPipe() } catch { throw SystemCallError("pipe", error) }
        defer { try? writeEnd.close() }
        do {
            process = try Spawn.start(argv, environment: environment, stdin: .null, stdout: .descriptor(writeEnd),
                                      stderr: .descriptor(writeEnd), ownProcessGroup: true)
        } catch {
            try? readEnd.close()
            throw error
        }
        output = readEnd
    }

    /// Sleeps until the command exits, reading its output as it comes; past `timeout`, SIGTERM to its group, and
    /// SIGKILL after ``CommandRunner/killGrace``. Returns its status, whether it timed out, and its output.
    func wait(timeout: Duration) -> (ProcessDescriptor.ExitStatus, Bool, Int, [UInt8]) {
        defer { try? output.close() }
        var kept: [UInt8] = []
        var total = 0
        var outputOpen = true
        var timedOut = false
        var deadline = MonotonicClock.now().microseconds + UInt64(Self.microseconds(timeout))
        var killed = false
        let waiter = DescriptorWaiter()
        var buffer = [UInt8](repeating: 0, count: 16384)
        func drain() {
            while outputOpen {
                let n = buffer.withUnsafeMutableBytes { Glibc.read(output.rawValue, $0.baseAddress, $0.count) }
                if n > 0 {
                    total += n
                    if kept.count < CommandRunner.keptOutputBytes { kept += buffer.prefix(min(n, CommandRunner.keptOutputBytes - kept.count)) }
                    // A flood is read as fast as it comes; a short read means the pipe is empty for now.
                    if n < buffer.count { return }
                } else if n == 0 || errno != EINTR {
                    // EOF, or EAGAIN after the child exited (grandchildren may hold the pipe open).
                    if n == 0 { outputOpen = false }
                    return
                }
            }
        }
        while true {
            waiter.removeAll()
            waiter.add(process.descriptor)
            if outputOpen { waiter.add(output) }
            let now = MonotonicClock.now().microseconds
            let left = deadline > now ? Int64(deadline - now) : 0
            do { try waiter.wait(timeoutMicroseconds: left) } catch { continue }
            if outputOpen && waiter.isReady(1) { drain() }
            if waiter.isReady(0) {
                // Whatever it wrote before exiting, without waiting for descendants that keep the pipe.
                _ = fcntl(output.rawValue, F_SETFL, O_NONBLOCK)
                drain()
                let status = (try? process.reap()) ?? .exited(-1)
                return (status, timedOut, total, kept)
            }
            if MonotonicClock.now().microseconds >= deadline {
                timedOut = true
                _ = kill(-process.pid, killed ? SIGKILL : SIGTERM)
                killed = true
                deadline = MonotonicClock.now().microseconds + UInt64(Self.microseconds(CommandRunner.killGrace))
            }
        }
    }

    static func microseconds(_ d: Duration) -> Int64 {
        let (s, atto) = d.components
        return s * 1_000_000 + atto / 1_000_000_000_000
    }
}

private func typedPipe() throws(Errno) -> (FileDescriptor, FileDescriptor) {
    try FileDescriptor.pipe(options: [.closeOnExec])
}
