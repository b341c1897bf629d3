import EdgeSwipeSystem
import EdgeSwipeTestSupport
import Foundation
import Glibc
import SystemPackage
import Testing

/// `edgeswipe-session` against a daemon's stream with numbers no daemon sends (issue 35.1: one line with a percent or
/// velocity of 1e300 trapped the session, in the matcher's steps and in `EDGESWIPE_*`; under `Restart=on-failure` it
/// crash-looped). A fake daemon on a real socket plays a real stream (`StreamScenario`) with hostile copies of its
/// lines in between.
@Suite("edgeswipe-session against a hostile stream", .serialized)
struct SessionHostileStreamTests {
    @Test("lines with 1e300 are skipped with one log line; the session lives and its rules fire for the real lines")
    func hugeNumbers() throws {
        let run = try StreamedSession(rules: { dir in
            """
            [[rule]]
            name = "step"
            on = "changed"
            step = 0.1
            command = ["true"]

            [[rule]]
            name = "done"
            command = ["/bin/sh", "-c", "echo $EDGESWIPE_TRANSITION $EDGESWIPE_VELOCITY >> \(dir.appendingPathComponent("fired").path)"]
            timeout_s = 5
            """
        })
        defer { run.stop() }
        let out = run.dir.appendingPathComponent("fired").path
        let log = run.log

        // Every real line, each transition line preceded by copies of it with a huge percent, velocity and height.
        var stream: [UInt8] = []
        var hostile = 0
        for line in StreamScenario.lines() {
            let text = String(decoding: line, as: UTF8.self)
            if text.hasPrefix(#"{"type":"transition""#) {
                for (pattern, value) in [(/"percent":[-0-9.e+]+/, #""percent":1e300"#), (/"velocity":[-0-9.e+]+/, #""velocity":-1e300"#),
                                         (/"height":[-0-9.e+]+/, #""height":1e300"#)] {
                    let bad = text.replacing(pattern, with: value, maxReplacements: 1)
                    if bad != text {
                        stream += Array(bad.utf8) + [10]
                        hostile += 1
                    }
                }
            }
            stream += line + [10]
        }
        #expect(hostile > 100)

        let written = run.send(stream)
        #expect(written, "the session stopped reading: \(log())")

        // The scenario completes at least four transitions (its blocked swipe makes none); each fires `done` (its
        // command runs for those that find the previous one ended: one at a time per rule).
        func fired() -> Int { log().split(separator: "\n").filter { $0.contains("rule 'done'") && $0.contains("completed -> command") }.count }
        #expect(waitUntil(timeout: 30) { fired() >= 4 }, "\(log())")
        #expect(waitUntil(timeout: 30) { !((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").isEmpty }, "no command ran: \(log())")
        #expect(run.process.isRunning, "the session died: \(log())")
        let skipped = log().split(separator: "\n").filter { $0.contains("daemon: skipped a line it cannot read") }
        #expect(skipped.count == 1, "said once (throttled): \(skipped)")
        #expect(skipped.first?.contains("is outside 0...1") == true || skipped.first?.contains("a client accepts") == true, "\(skipped)")
    }

    /// hostile-4 s05: a `changed` rule with a fine step fired at every line and logged each firing (~1.6 MB in 7 s).
    @Test("a changed rule's firings are said at most once a second, with the count of those not said")
    func changedFiringsThrottled() throws {
        let run = try StreamedSession(rules: { _ in
            """
            [[rule]]
            name = "step"
            on = "changed"
            step = 0.01
            command = ["true"]

            [[rule]]
            name = "done"
            command = ["true"]
            """
        })
        defer { run.stop() }
        let log = run.log
        let started = MonotonicClock.now().microseconds
        var stream: [UInt8] = []
        for line in StreamScenario.lines() { stream += line + [10] }
        #expect(run.send(stream), "the session stopped reading: \(log())")
        func lines(_ rule: String) -> [Substring] { log().split(separator: "\n").filter { $0.contains("rule '\(rule)'") && $0.contains(" -> command") } }
        #expect(waitUntil(timeout: 30) { lines("done").count >= 4 }, "\(log())")
        // What was held back is said within a second or so, counted.
        let summary = { log().split(separator: "\n").filter { $0.contains("rule 'step'") && $0.contains("more firings") } }
        #expect(waitUntil(timeout: 10) { !summary().isEmpty }, "\(log())")
        let seconds = Double(MonotonicClock.now().microseconds - started) / 1e6
        let step = lines("step")
        // At most one line a second (the first at once).
        #expect(!step.isEmpty && Double(step.count + summary().count) <= seconds + 2, "\(step.count) lines in \(seconds) s: \(step)")
    }
}

/// `edgeswipe-session` with a rules file, connected to a fake daemon's socket that a test writes a stream into.
struct StreamedSession {
    let dir: URL
    let listener: FileDescriptor
    let process: Process
    let log: () -> String
    let peer: Int32

    /// Starts the session with the rules `rules` writes (given the run's folder) and accepts its connection.
    init(rules: (URL) -> String) throws {
        dir = try Paths.tempDirectory()
        let socket = dir.appendingPathComponent("daemon.sock").path
        let file = dir.appendingPathComponent("session.toml")
        try rules(dir).write(to: file, atomically: true, encoding: .utf8)
        listener = try FileDescriptor.boundUnixSocket(.stream, at: UnixSocketAddress(socket), backlog: 1)
        (process, log) = try SessionCommandTests.launch(["--config", file.path, "--socket", socket], in: dir)
        var p = pollfd(fd: listener.rawValue, events: Int16(POLLIN), revents: 0)
        #expect(poll(&p, 1, 20_000) == 1, "the session did not connect: \(log())")
        peer = accept(listener.rawValue, nil, nil)
        #expect(peer >= 0)
    }

    /// Writes `bytes` to the session; false when it stopped reading.
    func send(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBytes { FileDescriptor(rawValue: peer).writeAllBlocking($0) } }

    func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        if peer >= 0 { close(peer) }
        try? listener.close()
        try? FileManager.default.removeItem(at: dir)
    }
}

extension FileDescriptor {
    /// Writes all of `bytes`, waiting while the peer does not read; false if the peer went away.
    fileprivate func writeAllBlocking(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(rawValue, base + offset, bytes.count - offset)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            offset += n
        }
        return true
    }
}
