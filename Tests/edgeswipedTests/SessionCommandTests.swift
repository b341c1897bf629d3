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

    @Test("--check-config: a good file's rules and what cannot run in this session (exit 0); a bad one's line and cause (exit 1)")
    func checkConfig() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let good = dir.appendingPathComponent("good.toml")
        try "[[rule]]\nname = \"back\"\nedge = \"left\"\nkey = \"alt+Left\"\n\n[[rule]]\nswipe = \"up\"\nfingers = 3\nsway = \"workspace back_and_forth\"\n"
            .write(to: good, atomically: true, encoding: .utf8)
        let ok = try Self.run(["--check-config", good.path], environment: ["XDG_CURRENT_DESKTOP": "GNOME"])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stdout.contains("good.toml: 2 rules"))
        #expect(ok.stdout.contains("rule 'back' (\(good.path):1): on completed -> key alt+Left"))
        #expect(ok.stdout.contains("this session: gnome"))
        #expect(ok.stdout.contains("note: rule 'back' (\(good.path):1): keys cannot be sent: $WAYLAND_DISPLAY is not set"), "\(ok.stdout)")
        #expect(ok.stdout.contains("note: rule '#2' (\(good.path):6): needs sway or i3 ($SWAYSOCK is not set)"), "\(ok.stdout)")

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
        let log = dir.appendingPathComponent("session.log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = Paths.edgeswipeSession
        // No daemon at this socket: the session waits for it, and still reloads.
        process.arguments = ["--config", rules.path, "--socket", dir.appendingPathComponent("none.sock").path]
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": dir.path]
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        func text() -> String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
        #expect(waitUntil(timeout: 20) { text().contains("rules: 1 from \(rules.path)") }, "\(text())")
        #expect(waitUntil(timeout: 20) { text().contains("following ") }, "\(text())")
        try "[[rule]]\nedge = \"left\"\ncommand = \"true\"\n".write(to: rules, atomically: true, encoding: .utf8)
        kill(process.processIdentifier, SIGHUP)
        #expect(waitUntil(timeout: 20) {
            text().contains("reload refused, keeping the 1 rules from \(rules.path): \(rules.path):3: 'command' must be an array")
        }, "\(text())")
        try "[[rule]]\nedge = \"left\"\ncommand = [\"true\"]\n[[rule]]\nedge = \"right\"\ncommand = [\"true\"]\n".write(to: rules, atomically: true, encoding: .utf8)
        kill(process.processIdentifier, SIGHUP)
        #expect(waitUntil(timeout: 20) { text().contains("reloaded: 2 rules from \(rules.path)") }, "\(text())")
        #expect(process.isRunning)
    }
}
