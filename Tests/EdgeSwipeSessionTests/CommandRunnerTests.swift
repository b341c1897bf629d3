import EdgeSwipeSessionModel
import EdgeSwipeSystem
import EdgeSwipeTestSupport
import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import EdgeSwipeSession

@Suite("Commands: argv, environment, timeout, one at a time per rule, exit status logged", .serialized)
struct CommandRunnerTests {
    /// A runner whose outcomes the test can wait for.
    final class Harness: Sendable {
        let log = LogCapture()
        let outcomes = NIOLockedValueBox<[CommandRunner.Outcome]>([])
        var runner: CommandRunner { CommandRunner(logger: log.logger) { o in self.outcomes.withLockedValue { $0.append(o) } } }
        func wait(for n: Int, timeout: Double = 20) -> [CommandRunner.Outcome] {
            _ = waitUntil(timeout: timeout) { outcomes.withLockedValue { $0.count } >= n }
            return outcomes.withLockedValue { $0 }
        }
    }

    struct Case: CustomStringConvertible, Sendable {
        var name: String
        var argv: [String]
        var timeout: Duration = .seconds(10)
        var status: ProcessDescriptor.ExitStatus
        var timedOut = false
        var output: String? = nil
        var logged: String
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(name: "exit 0 is logged as info", argv: ["true"], status: .exited(0), logged: "info rule 'r' (t:1): true ended with exit status 0"),
        Case(name: "a non-zero exit is a warning with its status", argv: ["sh", "-c", "echo failing >&2; exit 3"], status: .exited(3),
             output: "failing\n", logged: "warning rule 'r' (t:1): sh ended with exit status 3; output (8 bytes): failing"),
        Case(name: "arguments are never read by a shell", argv: ["printf", "%s", "a; rm -rf $HOME `x`"], status: .exited(0),
             output: "a; rm -rf $HOME `x`", logged: "output (19 bytes): a; rm -rf $HOME `x`"),
        Case(name: "the event arrives in EDGESWIPE_* variables", argv: ["sh", "-c", "echo $EDGESWIPE_EDGE $EDGESWIPE_PERCENT"],
             status: .exited(0), output: "left 0.7\n", logged: "left 0.7"),
        Case(name: "a command that hangs is killed at its timeout", argv: ["sleep", "60"], timeout: .milliseconds(200),
             status: .signalled(SIGTERM), timedOut: true, logged: "sleep ran past its 0.2 seconds timeout and was killed by signal 15 (SIGTERM)"),
        Case(name: "a command that ignores SIGTERM gets SIGKILL", argv: ["sh", "-c", "trap '' TERM; sleep 60 & wait; sleep 60"], timeout: .milliseconds(200),
             status: .signalled(SIGKILL), timedOut: true, logged: "killed by signal 9 (SIGKILL)"),
        Case(name: "a program that does not exist", argv: ["/nonexistent/edgeswipe-no-such-program"], status: .exited(127),
             logged: "edgeswipe-no-such-program"),
    ]

    @Test("each command's outcome", arguments: cases)
    func outcome(_ c: Case) {
        let h = Harness()
        let start = h.runner.run("rule 'r' (t:1)", argv: c.argv, timeout: c.timeout, environment: ["EDGESWIPE_EDGE": "left", "EDGESWIPE_PERCENT": "0.7", "PATH": "/usr/bin:/bin"])
        if case .failed = start {
            #expect(h.log.contains(c.logged), "\(h.log.all)")
            return
        }
        let outcomes = h.wait(for: 1)
        #expect(outcomes.count == 1)
        guard let o = outcomes.first else { return }
        #expect(o.status == c.status)
        #expect(o.timedOut == c.timedOut)
        if let output = c.output { #expect(String(decoding: o.output, as: UTF8.self) == output) }
        #expect(h.log.contains(c.logged), "\(h.log.all)")
    }

    @Test("output past the kept excerpt is read and dropped, so a flood neither blocks the command nor fills memory")
    func flood() {
        let h = Harness()
        h.runner.run("rule 'flood' (t:1)", argv: ["sh", "-c", "head -c 5000000 /dev/zero; exit 0"], timeout: .seconds(20), environment: ["PATH": "/usr/bin:/bin"])
        let o = h.wait(for: 1)
        #expect(o.first?.status == .exited(0))
        #expect(o.first?.outputBytes == 5_000_000)
        #expect(o.first?.output.count == CommandRunner.keptOutputBytes)
        #expect(h.log.contains("output (5000000 bytes, first 4096 kept)"), "\(h.log.all)")
    }

    @Test("one command at a time per rule: firings while it runs are skipped and counted; other rules run")
    func oneAtATime() throws {
        let h = Harness()
        let dir = try TempDir()
        let runner = h.runner
        let gate = dir.file("gate")
        let slow = runner.run("rule 'slow' (t:1)", argv: ["sh", "-c", "while [ ! -e \(gate) ]; do sleep 0.02; done"], timeout: .seconds(20), environment: ["PATH": "/usr/bin:/bin"])
        guard case .started = slow else {
            Issue.record("did not start: \(slow)")
            return
        }
        for _ in 0..<5 {
            #expect(runner.run("rule 'slow' (t:1)", argv: ["true"], timeout: .seconds(1), environment: [:]) == .skipped)
        }
        guard case .started = runner.run("rule 'other' (t:2)", argv: ["true"], timeout: .seconds(5), environment: ["PATH": "/usr/bin:/bin"]) else {
            Issue.record("another rule's command did not start")
            return
        }
        #expect(h.log.all.filter { $0.contains("still running") }.count == 1, "the refusal is said once")
        _ = FileManager.default.createFile(atPath: gate, contents: nil)
        let outcomes = h.wait(for: 2)
        #expect(outcomes.first { $0.rule == "rule 'slow' (t:1)" }?.skipped == 5)
        #expect(h.log.contains("5 firings skipped while it ran"), "\(h.log.all)")
        #expect(!runner.isRunning("rule 'slow' (t:1)"))
        guard case .started = runner.run("rule 'slow' (t:1)", argv: ["true"], timeout: .seconds(5), environment: ["PATH": "/usr/bin:/bin"]) else {
            Issue.record("the rule did not run again after its command ended")
            return
        }
        _ = h.wait(for: 3)
    }

    // Issue 35.10: a command's background children outlived its timeout and the session.

    /// Whether process `pid` has exited (gone, or a zombie nobody reaped yet).
    static func exited(_ pid: Int32) -> Bool {
        if kill(pid, 0) != 0 && errno == ESRCH { return true }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return true }
        return stat[stat.index(close, offsetBy: 2)] == "Z"
    }

    /// The pid a command wrote to `file`, once it is there.
    static func pid(in file: String) -> Int32? {
        var pid: Int32?
        _ = waitUntil(timeout: 10) {
            pid = (try? String(contentsOfFile: file, encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            return pid != nil
        }
        return pid
    }

    struct GroupCase: CustomStringConvertible, Sendable {
        var name: String
        /// A shell script; `$PIDFILE` receives the pid of a background child that ignores SIGTERM.
        var script: String
        var timeout: Duration
        /// Whether the test stops the runner (the session stopping) instead of waiting for the command.
        var stopRunner = false
        var description: String { name }
    }

    static let groupCases: [GroupCase] = [
        GroupCase(name: "the command exits and leaves a child behind",
                  script: "(trap '' TERM; exec sleep 1000) & echo $! > \"$PIDFILE\"; exit 0", timeout: .seconds(30)),
        GroupCase(name: "the command runs past its timeout with a child",
                  script: "(trap '' TERM; exec sleep 1000) & echo $! > \"$PIDFILE\"; wait", timeout: .milliseconds(300)),
        GroupCase(name: "the session stops while the command and its child run",
                  script: "(trap '' TERM; exec sleep 1000) & echo $! > \"$PIDFILE\"; wait", timeout: .seconds(60), stopRunner: true),
    ]

    @Test("a command's process group is ended with it: at its exit, at its timeout, when the session stops (SIGKILL for what ignores SIGTERM)",
          arguments: groupCases)
    func processGroup(_ c: GroupCase) throws {
        let h = Harness()
        let runner = h.runner
        let dir = try TempDir()
        let pidFile = dir.file("child.pid")
        guard case .started(let leader) = runner.run(
            "rule 'g' (t:1)", argv: ["sh", "-c", c.script], timeout: c.timeout, environment: ["PATH": "/usr/bin:/bin", "PIDFILE": pidFile])
        else {
            Issue.record("did not start")
            return
        }
        guard let child = Self.pid(in: pidFile) else {
            Issue.record("the command did not say its child's pid")
            return
        }
        #expect(getpgid(child) == leader, "the child is in the command's group")
        if c.stopRunner {
            runner.stop()
            #expect(waitUntil(timeout: 10) { Self.exited(child) && Self.exited(leader) }, "stop() ends the groups")
            #expect(h.log.contains("ending the process group of 1 running command"), "\(h.log.all)")
            guard case .failed = runner.run("rule 'g2' (t:1)", argv: ["true"], timeout: .seconds(1), environment: [:]) else {
                Issue.record("a stopped runner started a command")
                return
            }
        }
        _ = h.wait(for: 1)
        #expect(waitUntil(timeout: 10) { Self.exited(child) }, "the background child outlived the command")
    }
}
