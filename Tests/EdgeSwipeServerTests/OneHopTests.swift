import EdgeSwipeCore
import EdgeSwipeEngineWire
import EdgeSwipeProtocol
import EdgeSwipeServer
import EdgeSwipeTestSupport
import Foundation
import Glibc
import Testing

/// The publisher writes straight to an idle connection's socket and leaves the rest to the event loop: these are
/// the races that hand-over must survive, on real sockets whose send buffer is made small so that partial writes
/// really happen.
@Suite("One hop: direct writes and the event loop")
struct OneHopTests {
    /// The smallest send buffer the kernel keeps (it doubles what is asked and has a floor of about 4.5 KB).
    static let smallBuffer: Int32 = 2048

    static func start(_ dir: TempDir, traffic: (initial: ServerSnapshot, batches: [[EngineEvent]]), directLimit: Int = .max) throws -> EdgeSwipeServer {
        try TestServer.start(
            TestServer.configuration(dir.file("s.sock")) {
                $0.socketSendBufferBytes = smallBuffer
                $0.directWriteLimit = directLimit
                $0.goodbyeTimeout = .seconds(60)
            },
            snapshot: traffic.initial)
    }

    @Test("a direct write the socket takes in part: the rest goes to the event loop, and everything after it follows in order")
    func partialWriteRestGoesToTheLoop() async throws {
        let dir = try TempDir()
        let traffic = Traffic.swipes(6)
        let server = try Self.start(dir, traffic: traffic)
        defer { Task { await server.shutdown() } }
        let client = try TestClient(path: dir.file("s.sock"))
        #expect(try await client.readFirstMessage().type == "hello")
        // The hello went through the event loop; once its write has completed the connection is idle, and the
        // client, reading nothing, lets the socket fill: some batch is then taken only in part.
        #expect(try await eventually { server.statistics.idleConnections == 1 })
        for batch in traffic.batches { server.publish(batch) }
        let stats = server.statistics
        #expect(stats.directWrites > 0, "no batch was written directly: \(stats)")
        #expect(stats.partialDirectWrites == 1, "one partial write, then the rest queues behind it: \(stats)")
        client.startReading()
        let expected = try Traffic.essentials(traffic.batches)
        let messages = try await client.wait("every essential message") { m, _ in m.compactMap(\.essentialSignature).count >= expected.count }
        #expect(messages.compactMap(\.essentialSignature) == expected)
        #expect(messages.map(\.seq) == Array(1...UInt64(messages.count)))
        #expect(client.inbox.state.undecodable.isEmpty, "a line cut by the partial write was not completed: \(client.inbox.state.undecodable.prefix(2))")
        client.close()
    }

    @Test("a connection that turns busy between two batches, and idle again: direct and event-loop writes interleave in order, seq gap-free")
    func busyBetweenTwoBatchesThenIdleAgain() async throws {
        let dir = try TempDir()
        let traffic = Traffic.swipes(12)
        let server = try Self.start(dir, traffic: traffic)
        defer { Task { await server.shutdown() } }
        let client = try TestClient(path: dir.file("s.sock"))
        #expect(try await client.readFirstMessage().type == "hello")
        #expect(try await eventually { server.statistics.idleConnections == 1 })
        let half = traffic.batches.count / 2
        // Busy: the client reads nothing until the socket has refused part of a batch.
        var published = 0
        while published < half && server.statistics.partialDirectWrites == 0 {
            server.publish(traffic.batches[published])
            published += 1
        }
        #expect(server.statistics.partialDirectWrites == 1, "the socket never filled in \(published) batches")
        let directBefore = server.statistics.directWrites
        // Still busy: these queue behind the remainder.
        for batch in traffic.batches[published..<half] { server.publish(batch) }
        #expect(server.statistics.directWrites == directBefore, "a batch was written past the remainder")
        // Idle again: the client reads everything so far, and once the loop's writes have completed, the next
        // batches go straight to the socket again.
        client.startReading()
        #expect(try await eventually { server.statistics.idleConnections == 1 }, "the connection never became idle again")
        for batch in traffic.batches[half...] { server.publish(batch) }
        #expect(server.statistics.directWrites > directBefore, "nothing was written directly once the connection was idle")
        let expected = try Traffic.essentials(traffic.batches)
        let messages = try await client.wait("every essential message") { m, _ in m.compactMap(\.essentialSignature).count >= expected.count }
        #expect(messages.compactMap(\.essentialSignature) == expected)
        #expect(messages.map(\.seq) == Array(1...UInt64(messages.count)))
        #expect(client.inbox.state.undecodable.isEmpty)
        client.close()
    }

    @Test(
        "clients that close while the publisher writes to them: the others get everything in order, nothing is left behind",
        arguments: [Int.max, 4])
    func clientsCloseMidWrite(directLimit: Int) async throws {
        let dir = try TempDir()
        let traffic = Traffic.swipes(8)
        let server = try Self.start(dir, traffic: traffic, directLimit: directLimit)
        defer { Task { await server.shutdown() } }
        let stayers = try (0..<4).map { _ in try TestClient(path: dir.file("s.sock")) }
        let leavers = try (0..<12).map { _ in try TestClient(path: dir.file("s.sock")) }
        for c in stayers { c.startReading() }
        for c in stayers { _ = try await c.wait(for: "hello") { if case .hello = $0 { true } else { false } } }
        // The leavers read their hello and then nothing, so that their sockets are full and writes to them are
        // partial when they close; each closes after a different share of the run.
        for c in leavers { #expect(try await c.readFirstMessage().type == "hello") }
        let step = max(1, traffic.batches.count / leavers.count)
        for (i, batch) in traffic.batches.enumerated() {
            server.publish(batch)
            if i % step == 0, i / step < leavers.count { leavers[i / step].close() }
        }
        for c in leavers { c.close() }
        let expected = try Traffic.essentials(traffic.batches)
        for c in stayers {
            let messages = try await c.wait("every essential message") { m, _ in m.compactMap(\.essentialSignature).count >= expected.count }
            #expect(messages.compactMap(\.essentialSignature) == expected)
            #expect(messages.map(\.seq) == Array(1...UInt64(messages.count)))
        }
        #expect(try await eventually { server.statistics.connections == stayers.count }, "\(server.statistics)")
        #expect(try await eventually { server.statistics.liveConnectionHandlers == stayers.count }, "\(server.statistics)")
        // The server still serves: a newcomer is greeted and streamed to, directly.
        let late = try TestClient(path: dir.file("s.sock"))
        late.startReading()
        _ = try await late.wait(for: "hello") { if case .hello = $0 { true } else { false } }
        for c in stayers { c.close() }
        late.close()
    }

    @Test(
        "50 clients, written directly, through the event loop, or split between the two, receive the same stream",
        arguments: [0, 25, Int.max])
    func splitFanOutAgrees(directLimit: Int) async throws {
        let dir = try TempDir()
        let traffic = Traffic.swipes(3)
        let server = try TestServer.start(
            TestServer.configuration(dir.file("s.sock")) { $0.directWriteLimit = directLimit }, snapshot: traffic.initial)
        defer { Task { await server.shutdown() } }
        let clients = try (0..<50).map { _ in try TestClient(path: dir.file("s.sock")) }
        for c in clients {
            c.startReading()
            _ = try await c.wait(for: "hello") { if case .hello = $0 { true } else { false } }
        }
        for batch in traffic.batches { server.publish(batch) }
        let expected = try Traffic.essentials(traffic.batches)
        for c in clients {
            let messages = try await c.wait("the essential messages") { m, _ in m.compactMap(\.essentialSignature).count >= expected.count }
            #expect(messages.compactMap(\.essentialSignature) == expected)
            #expect(messages.map(\.seq) == Array(1...UInt64(messages.count)))
            c.close()
        }
        if directLimit == 0 { #expect(server.statistics.directWrites == 0) }
    }
}
