import EdgeSwipeCore
import EdgeSwipeProtocol
import EdgeSwipeServer
import EdgeSwipeTestSupport
import Glibc
import Testing

@Suite("Requests over the socket")
struct RequestTests {
    @Test("malformed lines, unknown ops and an oversized line get errors; the connection stays up")
    func badLinesKeepTheConnection() async throws {
        let dir = try TempDir()
        let server = try TestServer.start(TestServer.configuration(dir.file("s.sock")) { $0.maxLineBytes = 1024 })
        defer { Task { await server.shutdown() } }
        let client = try TestClient(path: dir.file("s.sock"))
        client.startReading()
        try client.send("this is not json\n")
        try client.send(#"{"id":2,"op":"teleport"}"# + "\n")
        // An oversized line sent in pieces: one error as soon as it passes the cap, the rest discarded.
        try client.send(#"{"id":3,"op":"ping","padding":""# + String(repeating: "x", count: 800))
        try client.send(String(repeating: "y", count: 3000))
        try client.send("\"}\n")
        try client.send(#"{"id":"p","op":"push","container":"shell"}"# + "\n")
        try client.send("\n" + #"{"id":4,"op":"ping"}"# + "\n")
        let messages = try await client.wait("the ping reply") { m, _ in
            m.contains { if case .reply(let r) = $0 { r.id == .int(4) } else { false } }
        }
        let answers = messages.dropFirst().map { m -> String in
            switch m {
            case .error(let e): "error \(e.code) \(e.id.map { "\($0)" } ?? "-") \(e.message)"
            case .reply(let r): "reply \(r.op) \(r.id.map { "\($0)" } ?? "-")"
            default: m.type
            }
        }
        try #require(answers.count == 5, "\(answers)")
        #expect(answers[0].hasPrefix("error malformed-json - line 1: not valid JSON: byte 0"))
        #expect(answers[1].hasPrefix("error unknown-op 2 line 2 (id 2, op \"teleport\"): unknown op"))
        #expect(answers[2].hasPrefix("error line-too-long - line 3: line is longer than 1024 bytes"))
        #expect(answers[3].hasPrefix(#"error missing-field "p" line 4 (id "p", op "push"): field "scene" is missing"#))
        #expect(answers[4] == "reply ping 4")
        #expect(messages.map(\.seq) == Array(1...UInt64(messages.count)))
        client.close()
    }

    @Test("subscribe filters topics and answers with what is now in force; ping answers {}")
    func subscribeAndPing() async throws {
        let dir = try TempDir()
        let traffic = Traffic.swipes(1)
        let server = try TestServer.start(TestServer.configuration(dir.file("s.sock")), snapshot: traffic.initial)
        defer { Task { await server.shutdown() } }
        let client = try TestClient(path: dir.file("s.sock"))
        client.startReading()
        try client.send(#"{"op":"subscribe","id":1,"topics":["lifecycle","state"],"tick_hz":0}"# + "\n")
        let reply = try await client.wait(for: "the subscribe reply") { if case .reply = $0 { true } else { false } }
        guard case .reply(let r) = reply else { return }
        #expect(r.op == "subscribe" && r.result.topics == [.lifecycle, .state] && r.result.tickHz == 0)
        for batch in traffic.batches { server.publish(batch) }
        server.publishConfig(.rejected, message: "config.toml:3: unknown key", config: nil)
        try client.send(#"{"op":"ping","id":"last"}"# + "\n")
        let messages = try await client.wait("the ping reply") { m, _ in
            m.contains { if case .reply(let r) = $0 { r.id == .string("last") } else { false } }
        }
        let types = Set(messages.map(\.type))
        #expect(types == ["hello", "reply", "lifecycle", "state"])
        let expected = try Traffic.lines(traffic.batches).filter { $0.topic == .lifecycle || $0.topic == .state }.compactMap(\.essentialSignature)
        #expect(messages.compactMap(\.essentialSignature) == expected)
        client.close()
    }

    @Test("status and devices come from the daemon's handler with the server's snapshot; refusals keep their code and the id")
    func handlerReplies() async throws {
        let dir = try TempDir()
        let traffic = Traffic.swipes(1)
        let handler = RecordingHandler()
        let server = try TestServer.start(TestServer.configuration(dir.file("s.sock")), snapshot: traffic.initial, handler: handler)
        defer { Task { await server.shutdown() } }
        for batch in traffic.batches { server.publish(batch) }
        let client = try TestClient(path: dir.file("s.sock"))
        client.startReading()
        try client.send(#"{"op":"status","id":1}"# + "\n" + #"{"op":"devices","id":2}"# + "\n")
        try client.send(#"{"op":"select-tab","id":3,"container":"shell","scene":"settings"}"# + "\n")
        try client.send(#"{"op":"pop","id":4,"container":"app"}"# + "\n")
        try client.send(#"{"op":"select-tab","id":5,"container":"shell","scene":"nowhere"}"# + "\n")
        let messages = try await client.wait("five answers") { m, _ in m.filter { $0.type == "reply" || $0.type == "error" }.count >= 5 }
        var answers: [RequestID: ServerMessage] = [:]
        for m in messages {
            if case .reply(let r) = m, let id = r.id { answers[id] = m }
            if case .error(let e) = m, let id = e.id { answers[id] = m }
        }
        guard case .reply(let status)? = answers[.int(1)], case .reply(let devices)? = answers[.int(2)],
            case .reply(let tab)? = answers[.int(3)], case .error(let busy)? = answers[.int(4)],
            case .error(let unknown)? = answers[.int(5)]
        else { throw TestFailure("unexpected answers: \(answers)") }
        #expect(status.result.protocolVersion == 1 && status.result.server == "edgeswiped test")
        #expect(status.result.state?.containers.first?.visible == "launcher")
        #expect(devices.result.devices?.map(\.name) == [Traffic.device.name])
        #expect(tab.op == "select-tab" && tab.result.transition == 77)
        #expect(busy.code == ErrorCode("busy") && busy.op == "pop" && busy.message.contains("one transition at a time"))
        #expect(unknown.code == ErrorCode("unknown-scene") && unknown.message.contains("no scene 'nowhere'"))
        #expect(handler.log.all.contains(.control(ControlRequest(container: "shell", action: .selectTab(.scene("settings"))))))
        client.close()
    }

    @Test("without a handler, daemon requests are unavailable but subscribe and ping still work")
    func noHandler() async throws {
        let dir = try TempDir()
        let server = try TestServer.start(TestServer.configuration(dir.file("s.sock")), handler: nil)
        defer { Task { await server.shutdown() } }
        let client = try TestClient(path: dir.file("s.sock"))
        client.startReading()
        try client.send(#"{"op":"status","id":1}"# + "\n" + #"{"op":"ping","id":2}"# + "\n")
        let messages = try await client.wait("two answers") { m, _ in m.count >= 3 }
        guard case .error(let e) = messages[1], case .reply(let r) = messages[2] else { throw TestFailure("\(messages)") }
        #expect(e.code == .unavailable && e.id == .int(1))
        #expect(r.id == .int(2))
        client.close()
    }
}

@Suite("Access control")
struct AccessTests {
    static let me = UInt32(getuid())
    static let someoneElse: UInt32 = 54_321

    @Test("a read-only peer may read and query but its control requests are forbidden; a controller's go through",
          arguments: [false, true])
    func controlVersusRead(_ mayControl: Bool) async throws {
        let dir = try TempDir()
        let read = AccessGrant(uids: [Self.me])
        let control = AccessGrant(uids: [mayControl ? Self.me : Self.someoneElse])
        let server = try TestServer.start(TestServer.configuration(dir.file("s.sock")) { $0.access = AccessPolicy(read: read, control: control) })
        defer { Task { await server.shutdown() } }
        let client = try TestClient(path: dir.file("s.sock"))
        client.startReading()
        guard case .hello(let hello) = try await client.wait(for: "hello", { _ in true }) else { throw TestFailure("no hello") }
        #expect(hello.access == AccessInfo(read: true, control: mayControl))
        try client.send(#"{"op":"select-tab","id":"tab","container":"shell","index":0}"# + "\n" + #"{"op":"status","id":"st"}"# + "\n")
        let messages = try await client.wait("two answers") { m, _ in m.filter { $0.type == "reply" || $0.type == "error" }.count >= 2 }
        let tab = messages.first { if case .reply(let r) = $0 { r.id == .string("tab") } else if case .error(let e) = $0 { e.id == .string("tab") } else { false } }
        if mayControl {
            guard case .reply(let r) = tab else { throw TestFailure("expected a reply, got \(String(describing: tab))") }
            #expect(r.result.transition == 77)
        } else {
            guard case .error(let e) = tab else { throw TestFailure("expected an error, got \(String(describing: tab))") }
            #expect(e.code == .forbidden && e.op == "select-tab")
            #expect(e.message.contains("uid \(Self.me) may read but not control"))
        }
        #expect(messages.contains { if case .reply(let r) = $0 { r.id == .string("st") } else { false } })
        client.close()
    }

    @Test("a peer outside the policy is closed before a single byte is sent", arguments: [
        AccessPolicy(read: AccessGrant(uids: [AccessTests.someoneElse]), control: .nobody),
        AccessPolicy(read: .nobody, control: AccessGrant(gids: [AccessTests.someoneElse])),
    ])
    func rejectedPeer(_ policy: AccessPolicy) async throws {
        let dir = try TempDir()
        let server = try TestServer.start(TestServer.configuration(dir.file("s.sock")) { $0.access = policy })
        defer { Task { await server.shutdown() } }
        let client = try TestClient(path: dir.file("s.sock"))
        client.startReading()
        try await client.wait("end of stream") { _, ended in ended }
        #expect(client.inbox.state.bytes == 0)
        #expect(server.statistics.rejectedPeers == 1)
        #expect(server.statistics.accepted == 0)
    }

    @Test("the default policy admits the daemon's uid and the socket's group, for read and control")
    func defaultPolicy() throws {
        let dir = try TempDir()
        let server = try TestServer.start(TestServer.configuration(dir.file("s.sock")))
        defer { Task { await server.shutdown() } }
        var st = stat()
        #expect(stat(dir.file("s.sock"), &st) == 0)
        #expect(server.accessPolicy == .owner(uid: Self.me, socketGroup: UInt32(st.st_gid)))
        let peer = PeerCredentials(pid: 1, uid: Self.someoneElse, gid: 999_999, groups: [UInt32(st.st_gid)])
        #expect(server.accessPolicy.level(for: peer) == .control)
        #expect(server.accessPolicy.level(for: PeerCredentials(pid: 1, uid: Self.someoneElse, gid: 999_999)) == .none)
    }
}
