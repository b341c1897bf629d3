import EdgeSwipeCore
import EdgeSwipeProtocol
import EdgeSwipeServer
import Foundation
import Glibc
import Synchronization
import Testing

/// A request handler that holds every control request until the test opens it, so that a test can act while
/// requests are in flight.
final class GatedHandler: EdgeSwipeRequestHandler, Sendable {
    private let state = Mutex<(open: Bool, waiting: [CheckedContinuation<Void, Never>], held: Int)>((false, [], 0))

    var held: Int { state.withLock { $0.held } }

    func open() {
        let waiting = state.withLock { s in
            s.open = true
            defer { s.waiting = [] }
            return s.waiting
        }
        for w in waiting { w.resume() }
    }

    func handle(_ request: DaemonRequest, context: RequestContext) async throws(RequestError) -> ReplyResult {
        guard case .control = request else { return .status(context.snapshot) }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { s -> Bool in
                if s.open { return true }
                s.waiting.append(c)
                s.held += 1
                return false
            }
            if resumeNow { c.resume() }
        }
        return .transition(TransitionID(9))
    }
}

/// Waits, polling, until `condition` holds (tests only).
func eventually(timeout: Double = 20, _ condition: () -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + .seconds(timeout)
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try await Task.sleep(for: .milliseconds(10))
    }
    return true
}

@Suite("Hostile and careless clients")
struct HostileClientTests {
    @Test("a client that half-closes gets every answer, also one the daemon gives later, and then the server closes")
    func halfCloseWaitsForAnswers() async throws {
        let dir = try TempDir()
        let handler = GatedHandler()
        let server = try TestServer.start(TestServer.configuration(dir.file("s.sock")), handler: handler)
        defer { Task { await server.shutdown() } }
        let client = try TestClient(path: dir.file("s.sock"))
        client.startReading()
        try client.send(#"{"op":"ping","id":1}"# + "\n" + #"{"op":"push","id":2,"container":"app","scene":"x"}"# + "\n" + #"{"op":"ping","id":3}"#)
        shutdown(client.fd, Int32(SHUT_WR))
        #expect(try await eventually { handler.held == 1 }, "the push reached the handler")
        try await client.wait("both pings answered") { m, _ in m.filter { $0.type == "reply" }.count == 2 }
        #expect(!client.inbox.state.ended, "the connection waits for the push's answer")
        handler.open()
        let messages = try await client.wait("end of stream") { _, ended in ended }
        let ids = messages.compactMap { m -> RequestID? in if case .reply(let r) = m { r.id } else { nil } }
        #expect(ids == [.int(1), .int(3), .int(2)])
        #expect(try await eventually { server.statistics.connections == 0 })
    }
}
