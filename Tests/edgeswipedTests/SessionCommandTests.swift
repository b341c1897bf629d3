import EdgeSwipeTestSupport
import Foundation
import Glibc
import Testing

/// `edgeswipe-session`'s command line: `--check-config`, and SIGHUP reloading its rules, keeping them on error.
@Suite("edgeswipe-session command line", .serialized)
struct SessionCommandTests {
    /// The session with a clean environment plus `environment`.
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Finished {
        try edgeswipedTests.run(Paths.edgeswipeSession, arguments, environment: ["PATH": "/usr/bin:/bin", "HOME": "/nonexistent"].merging(environment) { $1 })
    }

    /// The session running in the background with `HOME` at `dir`, its log in `dir/session.log`: the process, and
    /// the log so far.
    static func launch(_ arguments: [String], in dir: URL, environment: [String: String] = [:]) throws -> (Process, @Sendable () -> String) {
        let log = dir.appendingPathComponent("session.log")
        try Paths.emptyFile(log)
        let process = Process()
        process.executableURL = Paths.edgeswipeSession
        process.arguments = arguments
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": dir.path].merging(environment) { $1 }
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return (process, { (try? String(contentsOf: log, encoding: .utf8)) ?? "" })
    }

    @Test("--check-config: a good file's rules and what cannot run in this session (exit 0); a bad one's line and cause (exit 1)")
    func checkConfig() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let good = dir.appendingPathComponent("good.toml")
        try "[[rule]]\nname = \"back\"\nedge = \"left\"\nkey = \"alt+Left\"\n\n[[rule]]\nswipe = \"up\"\nfingers = 3\nsway = \"workspace back_and_forth\"\n"
            .write(to: good, atomically: true, encoding: .utf8)
        let ok = try Self.run(["--check-config", good.path], environment: ["XDG_CURRENT_DESKTOP": "GNOME"])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stdout.contains("good.toml: 2 rules, then 2 built-in (defaults = false in the file turns them off)"), "\(ok.stdout)")
        // Each rule with its conditions, the file's first, then GNOME's built-in ones (the list ends where what this
        // session can run begins).
        let listed = ok.stdout.split(separator: "\n").prefix { !$0.hasPrefix("this session") }
            .filter { $0.hasPrefix("  rule ") }.map { String($0.dropFirst(2)) }
        #expect(listed == [
            "rule 'back' (\(good.path):1): left edge; on completed -> key alt+Left",
            "rule '#2' (\(good.path):6): swipe up, 3 fingers; on completed -> sway \"workspace back_and_forth\"",
            "rule 'overview' (built-in): top edge, 1 finger, on a touchscreen; on completed -> gnome overview show",
            "rule 'back' (built-in): left edge, 1 finger; on completed -> key alt+Left",
        ], "GNOME's built-in rules: its own 3-finger swipes stay: \(ok.stdout)")
        #expect(ok.stdout.contains("this session: gnome"))
        // On GNOME keys go through EdgeSwipe's extension, absent here (no session bus): said per rule, with the fix.
        #expect(ok.stdout.contains("GNOME: EdgeSwipe's extension is not there"), "\(ok.stdout)")
        #expect(ok.stdout.contains("gnome-extensions enable edgeswipe@edgeswipe.invalid"), "\(ok.stdout)")
        #expect(ok.stdout.contains("  - rule 'back' (\(good.path):1): cannot run: keys on GNOME need EdgeSwipe's extension"), "\(ok.stdout)")
        #expect(ok.stdout.contains("  - rule 'overview' (built-in): at completion (the overview is toggled over D-Bus; live with EdgeSwipe's extension)"), "\(ok.stdout)")
        #expect(ok.stdout.contains("note: rule '#2' (\(good.path):6): needs sway or i3 ($SWAYSOCK is not set)"), "\(ok.stdout)")

        let alone = dir.appendingPathComponent("alone.toml")
        try "defaults = false\n[[rule]]\nedge = \"left\"\ncommand = [\"true\"]\n".write(to: alone, atomically: true, encoding: .utf8)
        let only = try Self.run(["--check-config", alone.path], environment: ["SWAYSOCK": dir.appendingPathComponent("none").path])
        #expect(only.status == 0, "\(only.stderr)")
        #expect(only.stdout.contains("alone.toml: 1 rule; no built-in rules (defaults = false)"), "\(only.stdout)")
        #expect(only.stdout.split(separator: "\n").filter { $0.hasPrefix("  rule ") }.count == 1, "\(only.stdout)")

        let bad = dir.appendingPathComponent("bad.toml")
        try "[[rule]]\nedge = \"left\"\neffect = \"back\"\n".write(to: bad, atomically: true, encoding: .utf8)
        let refused = try Self.run(["--check-config", bad.path])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("bad.toml:3: unknown key 'effect' in [rule]"), "\(refused.stderr)")
    }

    @Test("SIGHUP reloads the rules; a wrong file keeps the rules in force, said with its line")
    func reload() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let rules = dir.appendingPathComponent("session.toml")
        try "[[rule]]\nedge = \"left\"\ncommand = [\"true\"]\n".write(to: rules, atomically: true, encoding: .utf8)
        // No daemon at this socket: the session waits for it, and still reloads.
        let (process, text) = try Self.launch(["--config", rules.path, "--socket", dir.appendingPathComponent("none.sock").path], in: dir)
        defer {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        #expect(waitUntil(timeout: 20) { text().contains("rules: 1 from \(rules.path), then 3 built-in") }, "\(text())")
        #expect(waitUntil(timeout: 20) { text().contains("following the daemon at \(dir.appendingPathComponent("none.sock").path)") }, "\(text())")
        try "[[rule]]\nedge = \"left\"\ncommand = \"true\"\n".write(to: rules, atomically: true, encoding: .utf8)
        kill(process.processIdentifier, SIGHUP)
        #expect(waitUntil(timeout: 20) {
            text().contains("reload refused, keeping the rules in force (1 from \(rules.path), then 3 built-in): \(rules.path):3: 'command' must be an array")
        }, "\(text())")
        try "defaults = false\n[[rule]]\nedge = \"left\"\ncommand = [\"true\"]\n[[rule]]\nedge = \"right\"\ncommand = [\"true\"]\n".write(to: rules, atomically: true, encoding: .utf8)
        kill(process.processIdentifier, SIGHUP)
        #expect(waitUntil(timeout: 20) { text().contains("reloaded: rules: 2 from \(rules.path), no built-in (defaults = false)") }, "\(text())")
        #expect(process.isRunning)
    }

    /// Issue 37: a session started before its daemon printed `following /run/edgeswipe/edgeswipe.sock` (the user
    /// instance's socket did not exist yet) and never found the daemon that then came up at
    /// `$XDG_RUNTIME_DIR/edgeswipe.sock`.
    @Test("a session started before its daemon says once that it waits, at both paths, and follows the daemon where it comes up",
          .enabled(if: !FileManager.default.fileExists(atPath: "/run/edgeswipe/edgeswipe.sock"), "a system daemon's socket is on this machine: the session would follow it"))
    func startedBeforeItsDaemon() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let runtime = dir.appendingPathComponent("runtime")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        let (process, text) = try Self.launch([], in: dir, environment: ["XDG_RUNTIME_DIR": runtime.path])
        defer {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        let user = runtime.appendingPathComponent("edgeswipe.sock").path
        let waiting = "waiting for a daemon at \(user) or /run/edgeswipe/edgeswipe.sock"
        #expect(waitUntil(timeout: 20) { text().contains(waiting) }, "\(text())")

        let daemon = try DaemonProcess(["--socket", user, "--replay", Paths.demo.path, "--wait-for-clients", "99"], directory: dir)
        #expect(waitUntil(timeout: 20) { text().contains("daemon: connected to edgeswiped") }, "\(text())\n\(daemon.log)")
        #expect(text().contains("at \(user)"), "\(text())")
        #expect(text().components(separatedBy: "waiting for a daemon").count - 1 == 1, "said once: \(text())")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0, "\(daemon.log)")
    }
}
