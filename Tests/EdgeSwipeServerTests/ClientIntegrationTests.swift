import EdgeSwipeClient
import EdgeSwipeCore
import EdgeSwipeProtocol
import EdgeSwipeServer
import EdgeSwipeTestSupport
import Foundation
import Testing

/// Collects what a client's message stream yields, for waiting on.
final class StreamRecorder: @unchecked Sendable {
    let inbox = Inbox()
    private var task: Task<Void, Never>?
    private let lock = NSLock()
    private var failure: ClientError?

    init(_ stream: MessageStream) {
        task = Task {
            do {
                for try await message in stream { inbox.append(message) }
            } catch {
                lock.withLock { failure = error as? ClientError ?? .closed }
            }
            inbox.end()
        }
    }

    var error: ClientError? { lock.withLock { failure } }

    func wait(_ what: String, timeout: Double = 20, until done: @escaping @Sendable ([ServerMessage], Bool) -> Bool) async throws -> [ServerMessage] {
        let inbox = self.inbox
        return try await offPool { try inbox.wait(what, timeout: timeout, until: done) }
    }
}

@Suite("EdgeSwipeClient against the server")
struct ClientIntegrationTests {
    @Test("messages start with hello; requests await their reply; refusals throw the server's error")
    func messagesAndRequests() async throws {
        let dir = try TempDir()
        let traffic = Traffic.swipes(1)
        let server = try TestServer.start(TestServer.configuration(dir.file("s.sock")), snapshot: traffic.initial)
        defer { Task { await server.shutdown() } }
        let client = EdgeSwipeClient(socketPath: dir.file("s.sock"))
        let recorder = StreamRecorder(client.messages())
        _ = try await recorder.wait("hello") { m, _ in !m.isEmpty }
        try await client.subscribe([.transition, .state], ticks: .none)
        for batch in traffic.batches { server.publish(batch) }
        let expected = try Traffic.lines(traffic.batches).filter { $0.topic == .transition || $0.topic == .state }.compactMap(\.essentialSignature)
        let messages = try await recorder.wait("the transition") { m, _ in m.compactMap(\.essentialSignature).count >= expected.count }
        #expect(messages.first?.type == "hello")
        #expect(messages.compactMap(\.essentialSignature) == expected)
        #expect(!messages.contains { $0.type == "reply" }, "replies to the client's own requests are not in the stream")
        #expect(!messages.contains { if case .transition(let t) = $0 { t.progress && t.phase == .finishing } else { false } })

        let status = try await client.status()
        #expect(status.protocolVersion == 1 && status.devices.map(\.id) == [Traffic.device.id.rawValue])
        #expect(try await client.devices().count == 1)
        try await client.ping()
        #expect(try await client.selectTab(.index(0), in: "shell") == TransitionID(77))
        await #expect(throws: ClientError.server(code: ErrorCode("busy"), message: #"line 6 (id 6, op "pop"): container 'app' is running transition 1; one transition at a time"#, id: .int(6))) {
            try await client.pop(in: "app")
        }
        await client.close()
        _ = try await recorder.wait("the stream's end") { _, ended in ended }
        #expect(recorder.error == nil)
        await #expect(throws: ClientError.closed) { try await client.ping() }
    }

    @Test("after the daemon restarts the client reconnects, resumes from the new hello, and keeps its subscription")
    func reconnects() async throws {
        let dir = try TempDir()
        let path = dir.file("s.sock")
        let traffic = Traffic.swipes(1)
        var server = try TestServer.start(TestServer.configuration(path), snapshot: traffic.initial)
        let client = EdgeSwipeClient(
            socketPath: path,
            configuration: ClientConfiguration(reconnect: ReconnectPolicy(initialDelay: .milliseconds(20), maxDelay: .milliseconds(200))))
        let recorder = StreamRecorder(client.messages())
        _ = try await recorder.wait("hello") { m, _ in !m.isEmpty }
        try await client.subscribe([.lifecycle])
        await server.shutdown()
        _ = try await recorder.wait("goodbye") { m, _ in m.contains { $0.type == "goodbye" } }

        server = try TestServer.start(TestServer.configuration(path), snapshot: Traffic.snapshot(Engine(configuration: Traffic.configuration)))
        defer { Task { [server] in await server.shutdown() } }
        let afterRestart = try await recorder.wait("a second hello") { m, _ in m.filter { $0.type == "hello" }.count == 2 }
        guard case .hello(let hello) = afterRestart.last else { throw TestFailure("no second hello") }
        #expect(hello.seq == 1)
        // Requests work on the new connection, and the subscription was sent again: only lifecycle arrives.
        try await client.ping()
        for batch in traffic.batches { server.publish(batch) }
        let lifecycles = try Traffic.lines(traffic.batches).filter { $0.topic == .lifecycle }.count
        let messages = try await recorder.wait("the lifecycle events") { m, _ in m.filter { $0.type == "lifecycle" }.count >= lifecycles }
        let afterHello = messages.drop { !($0.type == "hello" && $0.seq == 1 && $0 == afterRestart.last) }.dropFirst()
        #expect(Set(afterHello.map(\.type)) == ["lifecycle"])
        await client.close()
    }

    @Test("with reconnection off, a missing daemon fails requests and ends the stream with the reason")
    func noDaemon() async throws {
        let dir = try TempDir()
        let client = EdgeSwipeClient(socketPath: dir.file("absent.sock"), configuration: ClientConfiguration(reconnect: nil))
        let recorder = StreamRecorder(client.messages())
        _ = try await recorder.wait("the stream's end") { _, ended in ended }
        guard case .noDaemon(let path, leftBehind: false)? = recorder.error else { throw TestFailure("\(String(describing: recorder.error))") }
        #expect(path == dir.file("absent.sock"))
        await #expect(throws: ClientError.self) { try await client.status() }
    }
}
