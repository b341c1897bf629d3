import EdgeSwipeCore
import EdgeSwipeEngineWire
import EdgeSwipeProtocol
@testable import EdgeSwipeServer
import EdgeSwipeTestSupport
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

    static let me = UInt32(getuid())

    @Test("a connection's requests reach the daemon in the order it sent them, however many are pipelined")
    func pipelinedRequestsKeepTheirOrder() async throws {
        let dir = try TempDir()
        let handler = RecordingHandler()
        let server = try TestServer.start(TestServer.configuration(dir.file("s.sock")), handler: handler)
        defer { Task { await server.shutdown() } }
        let client = try TestClient(path: dir.file("s.sock"))
        client.startReading()
        let count = 200
        try client.send((0..<count).map { #"{"op":"select-tab","id":\#($0),"container":"shell","scene":"\#(["launcher", "home", "settings"][$0 % 3])"}"# + "\n" }.joined())
        try await client.wait("every answer") { m, _ in m.filter { $0.type == "reply" || $0.type == "error" }.count == count }
        let scenes = handler.log.all.compactMap { r -> String? in
            if case .control(let c) = r, case .selectTab(.scene(let s)) = c.action { s } else { nil }
        }
        #expect(scenes == (0..<count).map { ["launcher", "home", "settings"][$0 % 3] })
        client.close()
    }

    @Test("a new policy applies to open connections: one no longer admitted gets goodbye with the caller's reason, control shrinks to read at once")
    func policyChangeReachesOpenConnections() async throws {
        let dir = try TempDir()
        let everything = AccessGrant(uids: [Self.me])
        let server = try TestServer.start(TestServer.configuration(dir.file("s.sock")) { $0.access = AccessPolicy(read: everything, control: everything) })
        defer { Task { await server.shutdown() } }
        let client = try TestClient(path: dir.file("s.sock"))
        client.startReading()
        try await client.wait(for: "hello") { $0.type == "hello" }
        // Control goes elsewhere: this connection keeps reading, and its control requests are refused at once.
        let change = server.applyAccessPolicy(AccessPolicy(read: everything, control: AccessGrant(uids: [54_321])))
        #expect(change.downgraded == 1 && change.revoked == 0)
        try client.send(#"{"op":"select-tab","id":1,"container":"shell","index":0}"# + "\n")
        let refused = try await client.wait(for: "the refusal") { if case .error(let e) = $0 { e.id == .int(1) } else { false } }
        guard case .error(let e) = refused else { return }
        #expect(e.code == .forbidden)
        // Read goes elsewhere too: goodbye, then the server closes.
        #expect(server.applyAccessPolicy(AccessPolicy(read: AccessGrant(uids: [54_321]), control: .nobody)).revoked == 1)
        let messages = try await client.wait("end of stream") { _, ended in ended }
        guard case .goodbye(let g)? = messages.last else { throw TestFailure("no goodbye: \(messages.map(\.type))") }
        #expect(g.reason == "access-revoked")
        #expect(try await eventually { server.statistics.connections == 0 })
        #expect(server.statistics.revokedConnections == 1)
        // New connections are judged by the new policy.
        let late = try TestClient(path: dir.file("s.sock"))
        late.startReading()
        try await late.wait("refused") { _, ended in ended }
        #expect(late.inbox.state.bytes == 0)
    }

    @Test("the active session's uid, a fact that changes at run time, is judged through the same path")
    func accessContextChange() async throws {
        let dir = try TempDir()
        let session = AccessGrant(activeSession: true)
        let server = try TestServer.start(TestServer.configuration(dir.file("s.sock")) {
            $0.access = AccessPolicy(read: session, control: session)
            $0.accessContext = AccessContext(activeSessionUIDs: [Self.me])
        })
        defer { Task { await server.shutdown() } }
        let client = try TestClient(path: dir.file("s.sock"))
        client.startReading()
        guard case .hello(let hello) = try await client.wait(for: "hello", { $0.type == "hello" }) else { return }
        #expect(hello.access.control)
        // Another user's session becomes the active one.
        let change = server.updateAccessContext(AccessContext(activeSessionUIDs: [54_321]), revokedReason: .accessRevoked)
        #expect(change.revoked == 1)
        let messages = try await client.wait("end of stream") { _, ended in ended }
        guard case .goodbye(let g)? = messages.last else { throw TestFailure("no goodbye: \(messages.map(\.type))") }
        #expect(g.reason == "access-revoked")
        // Ours is active again: admitted again.
        server.updateAccessContext(AccessContext(activeSessionUIDs: [Self.me]), revokedReason: .accessRevoked)
        let again = try TestClient(path: dir.file("s.sock"))
        #expect(try await again.readFirstMessage().type == "hello")
        again.close()
    }

    @Test("max clients: the next client's only message is goodbye too-many-clients")
    func maxClients() async throws {
        let dir = try TempDir()
        let server = try TestServer.start(TestServer.configuration(dir.file("s.sock")) { $0.maxClients = 2 })
        defer { Task { await server.shutdown() } }
        let a = try TestClient(path: dir.file("s.sock"))
        let b = try TestClient(path: dir.file("s.sock"))
        #expect(try await a.readFirstMessage().type == "hello")
        #expect(try await b.readFirstMessage().type == "hello")
        let c = try TestClient(path: dir.file("s.sock"))
        c.startReading()
        let messages = try await c.wait("end of stream") { _, ended in ended }
        guard messages.count == 1, case .goodbye(let g) = messages[0] else { throw TestFailure("\(messages)") }
        #expect(g.reason == "too-many-clients" && g.seq == 1)
        #expect(server.statistics.refusedForCapacity == 1)
        a.close()
        b.close()
    }

    /// `count` clients, each of which must get its hello; held open by the caller.
    static func admitted(_ count: Int, at path: String) async throws -> [TestClient] {
        var held: [TestClient] = []
        for _ in 0..<count {
            let c = try TestClient(path: path)
            #expect(try await c.readFirstMessage().type == "hello")
            held.append(c)
        }
        return held
    }

    /// A newcomer, and the goodbye it got instead of a hello (`nil`: admitted; the caller holds it open).
    static func connect(_ path: String) async throws -> (client: TestClient, refusal: GoodbyeMessage?) {
        let client = try TestClient(path: path)
        client.startReading()
        let first = try await client.wait("a first message") { messages, ended in !messages.isEmpty || ended }
        if case .goodbye(let g)? = first.first { return (client, g) }
        return (client, nil)
    }

    @Test("read-only peers get all places but the ones kept for control; a peer that may control gets those")
    func placesKeptForControl() async throws {
        let dir = try TempDir()
        let me = AccessGrant(uids: [Self.me])
        let server = try TestServer.start(TestServer.configuration(dir.file("s.sock")) {
            $0.maxClients = 16
            $0.access = AccessPolicy(read: me, control: .nobody)
        })
        defer { Task { await server.shutdown() } }
        let held = try await Self.admitted(15, at: dir.file("s.sock"))
        let refused = try await Self.connect(dir.file("s.sock")).refusal
        #expect(refused?.reason == "too-many-clients" && refused?.message.contains("kept for clients that may control") == true, "\(String(describing: refused))")
        // The same user, now allowed to control, takes the kept place; past it, nobody gets in.
        _ = server.applyAccessPolicy(AccessPolicy(read: me, control: me))
        let controller = try await Self.connect(dir.file("s.sock"))
        #expect(controller.refusal == nil)
        let full = try await Self.connect(dir.file("s.sock")).refusal
        #expect(full?.message.contains("16 clients are connected") == true, "\(String(describing: full))")
        for c in held + [controller.client] { c.close() }
    }

    @Test("one user has at most maxClientsPerUser connections, unless it is the uid not counted")
    func perUserLimit() async throws {
        let dir = try TempDir()
        let server = try TestServer.start(TestServer.configuration(dir.file("s.sock")) {
            $0.maxClientsPerUser = 3
            $0.uncountedUID = nil
        })
        defer { Task { await server.shutdown() } }
        var held = try await Self.admitted(3, at: dir.file("s.sock"))
        let refused = try await Self.connect(dir.file("s.sock")).refusal
        #expect(refused?.message == "uid \(Self.me) has 3 connections open, as many as one user may have (max_clients_per_user); close one and try again")
        // A place given back is taken again (once the server has seen the close).
        held.removeFirst().close()
        var again: TestClient? = nil
        let deadline = ContinuousClock.now + .seconds(20)
        while again == nil && ContinuousClock.now < deadline {
            let attempt = try await Self.connect(dir.file("s.sock"))
            if attempt.refusal == nil { again = attempt.client } else { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(again != nil)
        for c in held + [again].compactMap({ $0 }) { c.close() }
    }
}

@Suite("Outbox")
struct OutboxTests {
    /// A batch of `count` progress updates of one transition: each supersedes the one before.
    static func progress(_ count: Int, id: UInt64 = 1) -> SharedBatch {
        var engine = Engine(configuration: Traffic.configuration)
        var events: [EngineEvent] = []
        _ = try? engine.request(.selectTab(index: 0), in: "shell", at: MonotonicInstant(microseconds: 1_000_000), into: &events)
        var batch = EncodedBatch(capacity: 4096)
        var t: UInt64 = 1_000_000
        var frames = 0
        while frames < count, let deadline = engine.nextDeadline {
            var step: [EngineEvent] = []
            engine.tick(at: deadline, into: &step)
            for e in step { if case .transition(let tr) = e, tr.isProgress { batch.append(e); frames += 1 } }
            t = deadline.microseconds
        }
        _ = t
        return SharedBatch(batch)
    }

    @Test("a client that reads nothing while progress streams holds its live backlog, not everything it missed")
    func coalescingCompacts() {
        var outbox = OutboxState(maxMessages: 4096, maxBytes: 64 << 20)
        let frames = Self.progress(10)
        #expect(frames.batch.count >= 2)
        for _ in 0..<50_000 { _ = outbox.enqueue(frames) }
        #expect(outbox.liveCount == 1, "one transition: only its latest frame is live")
        #expect(outbox.slotCount <= 2 * OutboxState.compactionFloor, "\(outbox.slotCount) slots for 1 live message")
        #expect(outbox.coalesced > 100_000)
        var out: [QueuedMessage] = []
        _ = outbox.take(maxBytes: 1 << 20, into: &out)
        #expect(out.count == 1 && out[0].index == frames.batch.count - 1, "the latest frame is the one sent")
    }

    @Test("the byte bound counts the queue's slots as well as the messages")
    func byteBoundCountsSlots() {
        var reply = EncodedBatch(capacity: 64)
        reply.appendReply(id: .int(1), op: "ping", result: .empty, time: MonotonicInstant(microseconds: 1))
        let one = SharedBatch(reply)
        let perMessage = reply.messages[0].maxLineByteCount + OutboxState.slotBytes
        var outbox = OutboxState(maxMessages: 1_000_000, maxBytes: perMessage * 100)
        for _ in 0..<100 { #expect(outbox.enqueue(one) != .refused) }
        #expect(outbox.heldBytes == perMessage * 100)
        guard case .overflowed = outbox.enqueue(one) else {
            Issue.record("the 101st message passes the bound")
            return
        }
    }
}
