import EdgeSwipeSessionModel
public import EdgeSwipeSystem
import Glibc
public import Logging
import NIOConcurrencyHelpers
import SystemPackage

/// Runs rules' commands: an argv (never through a shell) with the event in `EDGESWIPE_*` variables, at most one
/// running per rule, its output kept to a bounded excerpt, and its exit status logged with the rule's name.
///
/// Each command runs in a process group of its own, and the whole group is ended (SIGTERM, then SIGKILL after
/// ``killGrace``) when the command's timeout passes, when the command itself exits (what it left running in the
/// background goes with it), and when the session stops (``stop()``). A descendant that leaves the group
/// (`setsid`, `systemd-run --user`) is out of reach: that is how a command starts something meant to outlive it.
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
    /// The process groups not known to be empty yet (by their leader's pid), and whether ``stop()`` was called.
    private let groups = NIOLockedValueBox<(live: Set<Int32>, stopped: Bool)>(([], false))
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
        // Registered and spawned under the lock, so that stop() cannot miss a group that starts while it runs.
        let spawned: Result<SpawnedCommand, SystemCallError> = groups.withLockedValue { g in
            guard !g.stopped else { return .failure(SystemCallError("the session is stopping: spawn", Errno.canceled)) }
            do throws(SystemCallError) {
                let command = try SpawnedCommand(argv: argv, environment: environment)
                g.live.insert(command.process.pid)
                return .success(command)
            } catch {
                return .failure(error)
            }
        }
        guard case .success(let spawned) = spawned else {
            _ = running.withLockedValue { $0.removeValue(forKey: rule) }
            if case .failure(let error) = spawned {
                logger.error("\(rule): cannot run \(argv[0]): \(error)")
                return .failed(error.description)
            }
            return .failed("cannot run \(argv[0])")
        }
        let pid = spawned.process.pid
        do {
            try SystemThread.start(name: "command", detached: true) { [self] in
                let (status, timedOut, total, kept) = spawned.wait(timeout: timeout)
                let skipped = running.withLockedValue { $0.removeValue(forKey: rule) } ?? 0
                let outcome = Outcome(rule: rule, status: status, timedOut: timedOut, outputBytes: total, output: kept, skipped: skipped)
                log(outcome, argv: argv, timeout: timeout)
                finished(outcome)
                // The group was told to end when the command exited; what ignores that is killed after the grace.
                ProcessGroups.end([pid], signalledAlready: true)
                _ = groups.withLockedValue { $0.live.remove(pid) }
            }
        } catch {
            _ = kill(-pid, SIGKILL)
            _ = try? spawned.process.reap()
            _ = groups.withLockedValue { $0.live.remove(pid) }
            _ = running.withLockedValue { $0.removeValue(forKey: rule) }
            logger.error("\(rule): cannot start a thread to watch \(argv[0]): \(error)")
            return .failed("\(error)")
        }
        logger.debug("\(rule): started \(argv[0]) (pid \(pid))")
        return .started(pid: pid)
    }

    /// Whether `rule`'s command runs now.
    public func isRunning(_ rule: String) -> Bool { running.withLockedValue { $0[rule] != nil } }

    /// Ends every command's process group (SIGTERM, then SIGKILL to what is left after ``killGrace``) and runs no
    /// more: when the session stops. Returns once the groups are gone or were sent SIGKILL.
    public func stop() {
        let live = groups.withLockedValue { g -> Set<Int32> in
            g.stopped = true
            return g.live
        }
        guard !live.isEmpty else { return }
        let plural = live.count == 1 ? "" : "s"
        logger.notice("ending the process group\(plural) of \(live.count) running command\(plural)")
        ProcessGroups.end(live, signalledAlready: false)
    }

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
                // What it left running in its group ends with it. Signalled before the leader is reaped: until then
                // the group's id is certainly this group's.
                _ = kill(-process.pid, SIGTERM)
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

/// Ends process groups: SIGTERM to each (unless sent already), then SIGKILL to those that still have a member after
/// ``CommandRunner/killGrace``, looking every 20 ms whether each is empty yet (`kill(-pgid, 0)` fails with ESRCH).
///
/// A group's id stays reserved while any member lives, so it names our group for as long as it is signalled; once the
/// group is empty it is not signalled again. (Between the last member's exit and the next look, at most 20 ms, the
/// id could in principle be taken by a new group leader; the kernel hands out ids in turn, so that would need every
/// other id used within those 20 ms.)
enum ProcessGroups {
    static func end(_ groups: Set<Int32>, signalledAlready: Bool) {
        if !signalledAlready { for g in groups { _ = kill(-g, SIGTERM) } }
        var left = groups
        let deadline = MonotonicClock.now().microseconds + UInt64(SpawnedCommand.microseconds(CommandRunner.killGrace))
        let waiter = DescriptorWaiter()
        while true {
            left = left.filter { kill(-$0, 0) == 0 || errno == EPERM }
            if left.isEmpty { return }
            let now = MonotonicClock.now().microseconds
            if now >= deadline { break }
            // No descriptor: a sleep until the next look or the deadline.
            try? waiter.wait(timeoutMicroseconds: Int64(min(20_000, deadline - now)))
        }
        for g in left { _ = kill(-g, SIGKILL) }
    }
}

private func typedPipe() throws(Errno) -> (FileDescriptor, FileDescriptor) {
    try FileDescriptor.pipe(options: [.closeOnExec])
}
