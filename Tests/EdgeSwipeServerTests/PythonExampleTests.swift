import EdgeSwipeClient
import EdgeSwipeProtocol
import EdgeSwipeServer
import EdgeSwipeTestSupport
import Foundation
import Testing

enum PythonExample {
    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("examples/edgeswipe_client.py").path

    static let available: Bool = {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "--version"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }()
}

/// A subprocess whose output lines are collected as they come.
final class Subprocess: @unchecked Sendable {
    let process = Process()
    private let condition = NSCondition()
    private var lines: [String] = []
    private var partial = ""
    private var finished = false

    init(_ arguments: [String], environment: [String: String]? = nil) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        if let environment { process.environment = environment }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        pipe.fileHandleForReading.readabilityHandler = { [self] handle in
            let data = handle.availableData
            condition.lock()
            if data.isEmpty {
                finished = true
                handle.readabilityHandler = nil
            } else {
                partial += String(decoding: data, as: UTF8.self)
                let parts = partial.components(separatedBy: "\n")
                lines += parts.dropLast()
                partial = parts.last ?? ""
            }
            condition.broadcast()
            condition.unlock()
        }
        try process.run()
    }

    /// Waits (off the cooperative pool) until some output line satisfies `match`, or the output ends.
    func waitForLine(_ what: String, timeout: Double = 30, _ match: @escaping @Sendable (String) -> Bool) async throws -> [String] {
        try await offPool { [self] in
            let deadline = Date(timeIntervalSinceNow: timeout)
            condition.lock()
            defer { condition.unlock() }
            while !lines.contains(where: match) {
                if finished { throw TestFailure("the process ended before \(what); output:\n\(lines.joined(separator: "\n"))") }
                guard condition.wait(until: deadline) else { throw TestFailure("timed out waiting for \(what); output:\n\(lines.joined(separator: "\n"))") }
            }
            return lines
        }
    }

    func exitStatus() async throws -> Int32 {
        try await offPool { [self] in
            process.waitUntilExit()
            return process.terminationStatus
        }
    }
}

@Suite("The Python example client", .enabled(if: PythonExample.available, "python3 is not installed"))
struct PythonExampleTests {
    @Test("subscribes, prints the transitions of a real server, sends a request and exits after --count")
    func followsTransitions() async throws {
        let dir = try TempDir()
        let traffic = Traffic.swipes(2)
        let server = try TestServer.start(TestServer.configuration(dir.file("s.sock")), snapshot: traffic.initial)
        defer { Task { await server.shutdown() } }
        let expected = try Traffic.lines(traffic.batches).compactMap { if case .transition(let t) = $0, !t.progress { t } else { nil } }
        let ended = expected.filter { $0.phase == .completed || $0.phase == .cancelled }.count
        let python = try Subprocess([
            "python3", PythonExample.script, "--socket", dir.file("s.sock"), "--topics", "transition,lifecycle",
            "--tick-hz", "0", "--request", "select-tab", "--container", "shell", "--index", "2", "--count", "\(ended)",
        ])
        _ = try await python.waitForLine("the request's reply") { $0.hasPrefix("reply select-tab") }
        for batch in traffic.batches { server.publish(batch) }
        #expect(try await python.exitStatus() == 0)
        let lines = try await python.waitForLine("the end") { _ in true }
        #expect(lines.first?.hasPrefix("hello protocol=1 server=edgeswiped test devices=0 containers=shell,app,overlay control=True") == true)
        #expect(lines.contains(#"reply subscribe {"topics":["transition","lifecycle"],"tick_hz":0}"#))
        #expect(lines.contains(#"reply select-tab {"transition":77}"#))
        let transitions = lines.filter { $0.hasPrefix("transition ") }
        // Every phase change arrives; finger progress may be coalesced, run-out frames were declined.
        let phases = transitions.filter { !$0.contains(" changed ") }
        #expect(phases.count == expected.filter { $0.phase != .changed }.count)
        #expect(transitions.last?.contains("completed") == true)
        #expect(transitions.contains { $0.contains("finishing") && $0.contains("animation=ease-in-out/") })
        #expect(lines.contains { $0.hasPrefix("lifecycle 1 shell launcher did-appear") })
    }

    /// Where each environment sends a client told nothing: the socket file exists or not, the variables are set or not.
    static let socketEnvironments: [(name: String, socketExists: Bool, edgeswipeSocket: String?, runtimeDir: Bool)] = [
        ("EDGESWIPE_SOCKET wins", true, "/tmp/elsewhere.sock", true),
        ("a user's daemon in XDG_RUNTIME_DIR", true, nil, true),
        ("XDG_RUNTIME_DIR without a daemon: the system service", false, nil, true),
        ("no XDG_RUNTIME_DIR: the system service", false, nil, false),
    ]

    @Test("the example's default socket is the one every tool uses", arguments: socketEnvironments)
    func defaultSocket(_ name: String, _ socketExists: Bool, _ edgeswipeSocket: String?, _ runtimeDir: Bool) async throws {
        let dir = try TempDir()
        if socketExists { FileManager.default.createFile(atPath: dir.file("edgeswipe.sock"), contents: nil) }
        var environment = ProcessInfo.processInfo.environment
        environment["EDGESWIPE_SOCKET"] = edgeswipeSocket
        environment["XDG_RUNTIME_DIR"] = runtimeDir ? dir.path : nil
        let expected = EdgeSwipeClient.defaultSocketPath(environment: environment) { FileManager.default.fileExists(atPath: $0) }
        let python = try Subprocess([
            "python3", "-c",
            "import importlib.util, sys; s = importlib.util.spec_from_file_location('example', sys.argv[1]); "
                + "m = importlib.util.module_from_spec(s); s.loader.exec_module(m); print(m.default_socket())",
            PythonExample.script,
        ], environment: environment)
        #expect(try await python.exitStatus() == 0)
        let lines = try await python.waitForLine("the path") { _ in true }
        #expect(lines == [expected], "\(name)")
    }

    @Test("--once prints the hello and the answer to one request, including an error")
    func once() async throws {
        let dir = try TempDir()
        let server = try TestServer.start(TestServer.configuration(dir.file("s.sock")))
        defer { Task { await server.shutdown() } }
        let status = try Subprocess(["python3", PythonExample.script, "--socket", dir.file("s.sock"), "--once", "--request", "status"])
        #expect(try await status.exitStatus() == 0)
        let lines = try await status.waitForLine("the end") { _ in true }
        #expect(lines.contains { $0.hasPrefix("reply status {\"protocol\":1") })
        let refused = try Subprocess(["python3", PythonExample.script, "--socket", dir.file("s.sock"), "--once", "--request", "pop", "--container", "app"])
        #expect(try await refused.exitStatus() == 1)
        let refusal = try await refused.waitForLine("the end") { _ in true }
        #expect(refusal.contains { $0.hasPrefix("error busy: line 2 (id 2, op \"pop\")") })
    }
}
