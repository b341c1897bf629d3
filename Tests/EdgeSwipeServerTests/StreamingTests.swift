import EdgeSwipeCore
import EdgeSwipeEngineWire
import EdgeSwipeProtocol
import EdgeSwipeServer
import EdgeSwipeTestSupport
import Glibc
import Testing

@Suite("Streaming to clients")
struct StreamingTests {
    @Test("hello comes first with the snapshot, then every published event in order with gap-free seq")
    func helloFirstThenGapFree() async throws {
        let dir = try TempDir()
        let traffic = Traffic.swipes(2)
        let server = try TestServer.start(TestServer.configuration(dir.file("s.sock")), snapshot: traffic.initial)
        defer { Task { await server.shutdown() } }
        let client = try TestClient(path: dir.file("s.sock"))
        client.startReading()
        let hello = try await client.wait(for: "hello") { _ in true }
        guard case .hello(let h) = hello else { throw TestFailure("the first message is \(hello.type), not hello") }
        #expect(h.seq == 1)
        #expect(h.protocolVersion == 1 && h.server == "edgeswiped test" && h.access == AccessInfo(read: true, control: true))
        #expect(h.state.containers.map(\.content) == traffic.initial.containers.map(\.content))
        #expect(h.config.bindings.count == Traffic.configuration.bindings.count)

        for batch in traffic.batches { server.publish(batch) }
        let expected = try Traffic.essentials(traffic.batches)
        let messages = try await client.wait("every essential message") { messages, _ in
            messages.compactMap(\.essentialSignature).count >= expected.count
        }
        #expect(messages.map(\.seq) == Array(1...UInt64(messages.count)))
        #expect(messages.compactMap(\.essentialSignature) == expected)
        #expect(client.inbox.state.undecodable.isEmpty)
        // A client that connects now is told about the device and the final container state in its hello.
        let late = try TestClient(path: dir.file("s.sock"))
        late.startReading()
        guard case .hello(let lateHello) = try await late.wait(for: "hello", { _ in true }) else { throw TestFailure("no hello") }
        #expect(lateHello.devices.map(\.id) == [Traffic.device.id.rawValue])
        #expect(lateHello.state.containers.first?.visible == "home")
        #expect(lateHello.state.running.isEmpty)
        client.close()
        late.close()
    }

    @Test(
        "1 and 50 clients, on one event loop or spread over three, receive identical phase, terminal, lifecycle and state sequences",
        arguments: [(clients: 1, eventLoops: 1), (50, 1), (50, 3)])
    func manyClientsAgree(_ count: Int, eventLoops: Int) async throws {
        let dir = try TempDir()
        let traffic = Traffic.swipes(3)
        let server = try TestServer.start(
            TestServer.configuration(dir.file("s.sock")) { $0.eventLoopThreads = eventLoops }, snapshot: traffic.initial)
        defer { Task { await server.shutdown() } }
        let clients = try (0..<count).map { _ in try TestClient(path: dir.file("s.sock")) }
        for c in clients {
            c.startReading()
            try await c.wait(for: "hello") { if case .hello = $0 { true } else { false } }
        }
        for batch in traffic.batches { server.publish(batch) }
        let expected = try Traffic.essentials(traffic.batches)
        #expect(expected.contains { $0.hasSuffix("completed 1.0") })
        for c in clients {
            let messages = try await c.wait("the essential messages") { messages, _ in
                messages.compactMap(\.essentialSignature).count >= expected.count
            }
            #expect(messages.compactMap(\.essentialSignature) == expected)
            #expect(messages.map(\.seq) == Array(1...UInt64(messages.count)))
            c.close()
        }
        #expect(server.statistics.accepted == count)
    }

    @Test("clients that connect while batches fan out get a hello, then exactly the batches published after it")
    func joinDuringFanOut() async throws {
        // Each publish names its place in the sequence (the configuration's `source`, which a hello reports too), so
        // a newcomer's hello says which batches it already holds: the batches it is sent must be exactly the ones
        // after, none lost and none twice, however its registration falls against a publish's fan-out.
        let dir = try TempDir()
        let server = try TestServer.start(TestServer.configuration(dir.file("s.sock")))
        defer { Task { await server.shutdown() } }
        func publish(_ i: Int) {
            server.publishConfig(.reloaded, message: "batch \(i)", config: ConfigSummary(configuration: Traffic.configuration, source: "s\(i)"))
        }
        // Readers from the start make each fan-out take a while; the pacer is one of them.
        var readers: [TestClient] = []
        for _ in 0..<40 {
            let c = try TestClient(path: dir.file("s.sock"))
            c.startReading()
            readers.append(c)
        }
        for c in readers { _ = try await c.wait(for: "hello") { if case .hello = $0 { true } else { false } } }
        let pacer = readers[0]
        var joiners: [TestClient] = []
        var i = 0
        // A newcomer every few batches; the stream goes on until each has its hello (bounded, in case one never does).
        while i < 5000 && (joiners.count < 48 || !joiners.allSatisfy({ $0.inbox.state.messages.contains { if case .hello = $0 { true } else { false } } })) {
            i += 1
            if i % 2 == 0 && joiners.count < 48 {
                let c = try TestClient(path: dir.file("s.sock"))
                c.startReading()
                joiners.append(c)
            }
            publish(i)
            // Paced by a reader, so that no backlog grows to the bound.
            let source = "s\(i)"
            try await pacer.wait("batch \(i)") { messages, _ in
                messages.last.map { if case .config(let m) = $0 { m.config?.source == source } else { false } } ?? false
            }
        }
        let last = i + 1
        publish(last)
        for (n, joiner) in joiners.enumerated() {
            let messages = try await joiner.wait("the last batch") { messages, _ in
                messages.contains { if case .config(let m) = $0 { m.config?.source == "s\(last)" } else { false } }
            }
            guard case .hello(let hello) = messages.first else { throw TestFailure("joiner \(n): the first message is not hello") }
            let held = hello.config.source == "built-in" ? 0 : Int(hello.config.source.dropFirst()) ?? -1
            let received = messages.compactMap { m -> Int? in
                guard case .config(let c) = m, let source = c.config?.source else { return nil }
                return Int(source.dropFirst())
            }
            #expect(held >= 0, "joiner \(n): hello says \(hello.config.source)")
            #expect(received == Array((held + 1)...last), "joiner \(n): hello after batch \(held), then \(received.prefix(3))...")
            #expect(messages.map(\.seq) == Array(1...UInt64(messages.count)))
        }
        for c in readers + joiners { c.close() }
    }

    @Test("a slow client is coalesced, then cut off past the bound, while the others are unaffected")
    func slowClient() async throws {
        let dir = try TempDir()
        // How much a client that reads nothing soaks up before the server must hold messages back depends on the
        // kernel's socket buffers (net.core.wmem_default, tunable): measure it, and publish enough to pass it
        // twice over, whatever it is.
        let absorbed = try Self.unixStreamCapacity() + Self.serverBufferBytes
        let perSwipe = try Traffic.encodedBytes(Traffic.swipes(2).batches) - Traffic.encodedBytes(Traffic.swipes(1).batches)
        let traffic = Traffic.swipes(max(12, 2 * absorbed / perSwipe + 1))
        let bound = 600
        let server = try TestServer.start(
            TestServer.configuration(dir.file("s.sock")) {
                $0.maxQueuedMessages = bound
                $0.goodbyeTimeout = .seconds(60)
            },
            snapshot: traffic.initial)
        defer { Task { await server.shutdown() } }
        let fast = try (0..<2).map { _ in try TestClient(path: dir.file("s.sock")) }
        for c in fast {
            c.startReading()
            try await c.wait(for: "hello") { if case .hello = $0 { true } else { false } }
        }
        let expected = try Traffic.essentials(traffic.batches)
        let publishedProgress = try Traffic.lines(traffic.batches).filter(\.isProgress).count

        // Phase 1: the slow client reads its hello, then nothing while the whole run is published.
        let slow = try TestClient(path: dir.file("s.sock"))
        #expect(try await slow.readFirstMessage().type == "hello")
        for batch in traffic.batches { server.publish(batch) }
        for c in fast {
            let messages = try await c.wait("the fast client's essentials") { m, _ in m.compactMap(\.essentialSignature).count >= expected.count }
            #expect(messages.compactMap(\.essentialSignature) == expected)
        }
        #expect(server.statistics.coalescedMessages > 0)
        // When it reads again it gets every essential message in order, fewer progress updates, no gap in seq.
        slow.startReading()
        let caughtUp = try await slow.wait("the slow client's essentials") { m, _ in m.compactMap(\.essentialSignature).count >= expected.count }
        #expect(caughtUp.compactMap(\.essentialSignature) == expected)
        #expect(caughtUp.filter(\.isProgress).count < publishedProgress)
        #expect(caughtUp.map(\.seq) == Array(1...UInt64(caughtUp.count)))
        #expect(server.statistics.disconnectedForBacklog == 0)

        // Phase 2: a client that stops reading while essential messages pile up past the bound is cut off; the
        // others, paced by what they have read, never come near it.
        let blocked = try TestClient(path: dir.file("s.sock"))
        #expect(try await blocked.readFirstMessage().type == "hello")
        let state = EngineEvent.state(StateSnapshot.from(traffic))
        let chunk = 100
        // Enough to fill the buffers, then pass the bound, with room to spare.
        let stateBytes = try Traffic.encodedBytes([[state]])
        let chunks = max(30, (absorbed / stateBytes + bound) * 3 / 2 / chunk + 1)
        for i in 0..<chunks {
            for _ in 0..<chunk { server.publish(state) }
            let target = expected.count + (i + 1) * chunk
            for c in fast + [slow] {
                try await c.wait("\(target) essential messages") { m, _ in m.compactMap(\.essentialSignature).count >= target }
            }
        }
        #expect(server.statistics.disconnectedForBacklog == 1)
        blocked.startReading()
        let last = try await blocked.wait("the cut-off client's end of stream") { _, ended in ended }
        guard case .goodbye(let goodbye) = last.last else { throw TestFailure("the cut-off client's last message is \(last.last?.type ?? "none")") }
        #expect(goodbye.reason == GoodbyeReason.backlogExceeded.rawValue)
        #expect(goodbye.message.contains("\(bound) messages"))
        #expect(last.count < chunk * chunks)
        #expect(last.map(\.seq) == Array(1...UInt64(last.count)))
        // The others are still connected and answered.
        for c in fast + [slow] {
            try c.send(#"{"op":"ping","id":"still-there"}"# + "\n")
            _ = try await c.wait(for: "the ping reply") { if case .reply(let r) = $0 { r.id == .string("still-there") } else { false } }
            #expect(c.inbox.state.messages.compactMap(\.essentialSignature).count == expected.count + chunk * chunks)
            c.close()
        }
    }

    @Test("shutdown says goodbye to everyone after what was queued, closes, and removes the socket file")
    func shutdownSaysGoodbye() async throws {
        let dir = try TempDir()
        let path = dir.file("s.sock")
        let traffic = Traffic.swipes(1)
        let server = try TestServer.start(TestServer.configuration(path), snapshot: traffic.initial)
        let clients = try (0..<3).map { _ in try TestClient(path: path) }
        for c in clients {
            c.startReading()
            try await c.wait(for: "hello") { if case .hello = $0 { true } else { false } }
        }
        for batch in traffic.batches { server.publish(batch) }
        await server.shutdown(message: "edgeswiped is stopping")
        let expected = try Traffic.essentials(traffic.batches)
        for c in clients {
            let messages = try await c.wait("end of stream") { _, ended in ended }
            #expect(messages.compactMap(\.essentialSignature) == expected)
            guard case .goodbye(let g) = messages.last else { throw TestFailure("no goodbye") }
            #expect(g.reason == "shutdown" && g.message == "edgeswiped is stopping")
        }
        #expect(access(path, F_OK) != 0)
        // Publishing after shutdown is ignored, not a crash.
        server.publish(traffic.batches[0])
    }
}

extension StreamingTests {
    /// What NIO holds for a connection besides the kernel: up to its high water mark (64 KiB) plus the last chunk the
    /// server handed it while the channel was still writable (`ConnectionHandler.chunkBytes`, 128 KiB).
    static let serverBufferBytes = (64 + 128) * 1024

    /// How many bytes a Unix stream socket holds unread with this machine's default buffer sizes, which is what
    /// the server's side of a connection gets: written until the kernel says `EAGAIN`.
    static func unixStreamCapacity() throws -> Int {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { throw TestFailure("socketpair: errno \(errno)") }
        defer { close(fds[0]); close(fds[1]) }
        guard fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK) == 0 else { throw TestFailure("fcntl: errno \(errno)") }
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 64 * 1024)
        var total = 0
        while true {
            let n = chunk.withUnsafeBytes { write(fds[0], $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            total += n
        }
        guard errno == EAGAIN || errno == EWOULDBLOCK, total > 0 else { throw TestFailure("measuring the socket buffer: errno \(errno)") }
        return total
    }
}

extension Traffic {
    /// The bytes a client subscribed to everything receives for `batches`.
    static func encodedBytes(_ batches: [[EngineEvent]]) throws -> Int {
        var encoder = ProtocolLineEncoder()
        var bytes: [UInt8] = []
        for b in batches { encoder.encode(b, into: &bytes) }
        return bytes.count
    }
}

extension StateSnapshot {
    /// The final state of a traffic run, for publishing `state` messages in bulk.
    static func from(_ traffic: (initial: ServerSnapshot, batches: [[EngineEvent]])) -> StateSnapshot {
        for batch in traffic.batches.reversed() {
            for event in batch.reversed() { if case .state(let s) = event { return s } }
        }
        fatalError("a traffic run always ends with a state event")
    }
}
