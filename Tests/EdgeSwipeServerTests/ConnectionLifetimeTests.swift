import EdgeSwipeProtocol
import EdgeSwipeServer
import EdgeSwipeTestSupport
import Foundation
import Glibc
import Testing

/// Found by the soak (issue 7): every closed connection stayed in memory for the life of the server (its
/// `Connection` and its handler held each other), so RSS grew with every client that came and went. After the
/// clients have gone, nothing of them may remain.
@Suite("Connection lifetime")
struct ConnectionLifetimeTests {
    enum Departure: String, CaseIterable, Sendable {
        case atOnce, afterHello, afterRequest, midLine, afterOversizedLine, afterMalformedLine
    }

    @Test("clients that come and go leave nothing behind", arguments: Departure.allCases)
    func nothingLeftAfterClose(_ departure: Departure) async throws {
        let dir = try TempDir()
        let traffic = Traffic.swipes(1)
        let server = try TestServer.start(
            TestServer.configuration(dir.file("s.sock")) { $0.maxLineBytes = 4096 }, snapshot: traffic.initial)
        defer { Task { await server.shutdown() } }
        let count = 25
        for _ in 0..<count {
            let client = try TestClient(path: dir.file("s.sock"))
            switch departure {
            case .atOnce:
                break
            case .afterHello:
                #expect(try await client.readFirstMessage().type == "hello")
            case .afterRequest:
                client.startReading()
                try client.send(#"{"op":"ping","id":"p"}"# + "\n")
                _ = try await client.wait(for: "the ping reply") { if case .reply = $0 { true } else { false } }
            case .midLine:
                try client.send(#"{"op":"subscribe","topics":["trans"#)
            case .afterOversizedLine:
                client.startReading()
                try client.send(String(repeating: "x", count: 20_000) + "\n")
                _ = try await client.wait(for: "the error") { if case .error = $0 { true } else { false } }
            case .afterMalformedLine:
                client.startReading()
                try client.send("{\"op\":\n")
                _ = try await client.wait(for: "the error") { if case .error = $0 { true } else { false } }
            }
            client.close()
        }
        // Events keep flowing to nobody in particular while the departures are noticed.
        for batch in traffic.batches { server.publish(batch) }
        _ = try await eventually(timeout: 30) {
            let s = server.statistics
            return s.accepted >= count && s.connections == 0 && s.liveConnectionHandlers == 0
        }
        let statistics = server.statistics
        #expect(statistics.accepted == count)
        #expect(statistics.connections == 0, "connections still registered: \(statistics)")
        #expect(statistics.liveConnectionHandlers == 0, "closed connections still in memory: \(statistics)")
    }
}
