import EdgeSwipeClient
import EdgeSwipeCore
import EdgeSwipeProtocol
import EdgeSwipeTestSupport
import Foundation
import Synchronization
import Testing

@Suite("Reconnection backoff")
struct BackoffTests {
    @Test("without jitter: doubling from the initial delay, capped", arguments: [
        (0, 0.1), (1, 0.2), (2, 0.4), (3, 0.8), (4, 1.6), (5, 3.2), (6, 5.0), (40, 5.0),
    ])
    func exponential(_ attempt: Int, _ seconds: Double) {
        let policy = ReconnectPolicy(initialDelay: .milliseconds(100), multiplier: 2, maxDelay: .seconds(5), jitter: 0)
        #expect(policy.delay(forAttempt: attempt) == .milliseconds(Int64(seconds * 1000)))
    }

    @Test("jitter stays within its fraction and is the same for the same seed", arguments: [0, 1, 2, 3, 7, 20])
    func jitter(_ attempt: Int) {
        let policy = ReconnectPolicy(initialDelay: .milliseconds(100), maxDelay: .seconds(5), jitter: 0.2, seed: 42)
        let plain = ReconnectPolicy(initialDelay: .milliseconds(100), maxDelay: .seconds(5), jitter: 0, seed: 42).delay(forAttempt: attempt)
        let d = policy.delay(forAttempt: attempt)
        #expect(d >= plain * 0.8 && d <= plain * 1.2)
        #expect(d == ReconnectPolicy(initialDelay: .milliseconds(100), maxDelay: .seconds(5), jitter: 0.2, seed: 42).delay(forAttempt: attempt))
    }

    @Test("different seeds spread clients apart")
    func seedsDiffer() {
        let delays = Set((0..<16).map { ReconnectPolicy(jitter: 0.2, seed: UInt64($0)).delay(forAttempt: 3) })
        #expect(delays.count > 12)
    }
}

/// Gathers what a message stream yields, and wakes whoever waits for a number of messages.
actor Collected {
    var messages: [ServerMessage] = []
    var failure: ClientError?
    var ended = false
    private var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    func add(_ m: ServerMessage) {
        messages.append(m)
        wake()
    }

    func end(_ error: ClientError?) {
        failure = error
        ended = true
        wake()
    }

    /// Returns once `count` messages have arrived or the stream has ended.
    func wait(for count: Int) async {
        if messages.count >= count || ended { return }
        await withCheckedContinuation { waiters.append((count, $0)) }
    }

    private func wake() {
        let ready = waiters.filter { messages.count >= $0.count || ended }
        waiters.removeAll { messages.count >= $0.count || ended }
        for w in ready { w.continuation.resume() }
    }
}

func collect(_ stream: MessageStream) -> (Collected, Task<Void, Never>) {
    let collected = Collected()
    let task = Task {
        do {
            for try await m in stream { await collected.add(m) }
            await collected.end(nil)
        } catch {
            await collected.end(error as? ClientError ?? .closed)
        }
    }
    return (collected, task)
}

@Suite("EdgeSwipeClient against a scripted daemon")
struct ClientTests {
    @Test("replies are matched by id even when they come out of order; errors throw with their code")
    func repliesById() async throws {
        let daemon = try FakeDaemon()
        let client = EdgeSwipeClient(socketPath: daemon.path)
        async let status = client.status()
        let peer = try await daemon.accept()
        peer.write(Lines.hello())
        let first = try await peer.readRequest()
        #expect(first["op"] as? String == "status")
        async let pushed = client.push("detail", in: "app")
        let second = try await peer.readRequest()
        #expect(second["op"] as? String == "push" && second["scene"] as? String == "detail" && second["container"] as? String == "app")
        let (firstID, secondID) = (try #require(first["id"] as? Int), try #require(second["id"] as? Int))
        #expect(firstID != secondID)
        // The second is answered first.
        peer.write(
            Lines.reply(seq: 2, id: secondID, op: "push", result: #"{"transition":12}"#),
            Lines.reply(seq: 3, id: firstID, op: "status", result: #"{"protocol":1,"server":"fake","devices":[],"config":{"source":"x","containers":[],"bindings":[],"animator":{"style":"fade","duration_us":1,"curve":"linear"},"completion_curve":"linear","completion_speed":1,"tick_hz":60},"state":{"containers":[],"running":[]}}"#))
        #expect(try await pushed == TransitionID(12))
        #expect(try await status.server == "fake")

        let refused = Task { try await client.pop(in: "app") }
        let third = try await peer.readRequest()
        peer.write(Lines.error(seq: 4, id: try #require(third["id"] as? Int), code: "not-applicable", message: "container 'app': already at the root"))
        await #expect(throws: ClientError.server(code: ErrorCode("not-applicable"), message: "container 'app': already at the root", id: .int(Int64(try #require(third["id"] as? Int))))) {
            try await refused.value
        }
        await client.close()
    }

    @Test("after the connection drops the client reconnects and the stream resumes from the new hello")
    func resumesFromNewHello() async throws {
        let daemon = try FakeDaemon()
        let client = EdgeSwipeClient(
            socketPath: daemon.path,
            configuration: ClientConfiguration(reconnect: ReconnectPolicy(initialDelay: .milliseconds(10), jitter: 0)))
        let (collected, task) = collect(client.messages())
        let first = try await daemon.accept()
        first.write(Lines.hello(visible: "home"), Lines.lifecycle(seq: 2, scene: "detail"), "this line is not JSON", Lines.lifecycle(seq: 3, scene: "home"))
        // Subscribe while connected; it must be sent again on the next connection.
        async let subscribed: Void = client.subscribe([.lifecycle, .state], ticks: .hz(30))
        let request = try await first.readRequest()
        #expect(request["op"] as? String == "subscribe" && request["tick_hz"] as? Double == 30)
        first.write(Lines.reply(seq: 4, id: try #require(request["id"] as? Int), op: "subscribe", result: #"{"topics":["lifecycle","state"],"tick_hz":30}"#))
        try await subscribed
        first.hangUp()

        let second = try await daemon.accept()
        second.write(Lines.hello(visible: "detail"))
        let resubscribe = try await second.readRequest()
        #expect(resubscribe["op"] as? String == "subscribe")
        #expect(resubscribe["topics"] as? [String] == ["lifecycle", "state"])
        second.write(
            Lines.reply(seq: 2, id: "\"\(try #require(resubscribe["id"] as? String))\"", op: "subscribe", result: #"{"topics":["lifecycle","state"],"tick_hz":30}"#),
            Lines.lifecycle(seq: 3, scene: "again"))
        await collected.wait(for: 5)
        await client.close()
        await task.value
        let messages = await collected.messages
        #expect(messages.map(\.type) == ["hello", "lifecycle", "lifecycle", "hello", "lifecycle"])
        #expect(messages.map(\.seq) == [1, 2, 3, 1, 3])
        if case .hello(let h) = messages[3] { #expect(h.state.containers.first?.visible == "detail") }
        let (ended, failure) = (await collected.ended, await collected.failure)
        #expect(ended && failure == nil)
    }

    @Test("a request times out when no reply comes, and fails when the connection drops under it")
    func timeoutAndDisconnect() async throws {
        let daemon = try FakeDaemon()
        let client = EdgeSwipeClient(socketPath: daemon.path, configuration: ClientConfiguration(reconnect: nil, requestTimeout: .milliseconds(300)))
        // Connected and greeted first, so that the 300 ms run only while the request waits for its reply.
        let (greeted, _) = collect(client.messages())
        let peer = try await daemon.accept()
        peer.write(Lines.hello())
        await greeted.wait(for: 1)
        let silent = Task { try await client.ping() }
        _ = try await peer.readRequest()
        await #expect(throws: ClientError.timedOut(op: "ping", after: .milliseconds(300))) { try await silent.value }

        let patient = EdgeSwipeClient(socketPath: daemon.path, configuration: ClientConfiguration(reconnect: nil, requestTimeout: .seconds(30)))
        let dropped = Task { try await patient.devices() }
        let other = try await daemon.accept()
        other.write(Lines.hello())
        _ = try await other.readRequest()
        other.hangUp()
        await #expect(throws: ClientError.disconnected(path: daemon.path)) { try await dropped.value }
        await client.close()
        await patient.close()
    }

    @Test("with reconnection bounded, the stream ends with the reason once the attempts are used up")
    func givesUp() async throws {
        let daemon = try FakeDaemon()
        let client = EdgeSwipeClient(
            socketPath: daemon.path + ".absent",
            configuration: ClientConfiguration(reconnect: ReconnectPolicy(initialDelay: .milliseconds(5), jitter: 0, maxAttempts: 3)))
        let (collected, task) = collect(client.messages())
        await task.value
        // No socket file there: nobody listens, which the error says as such (with what to do).
        guard case .noDaemon(let path, let leftBehind)? = await collected.failure else {
            throw FakeDaemonError(description: "expected noDaemon, got \(String(describing: await collected.failure))")
        }
        #expect(path == daemon.path + ".absent" && !leftBehind)
        await #expect(throws: ClientError.noDaemon(path: path, leftBehind: false)) { try await client.ping() }
    }
}

/// What a client's observer was told.
final class Observed: Sendable {
    private let box = Mutex<[EdgeSwipeClient.Observation]>([])
    func add(_ o: EdgeSwipeClient.Observation) { box.withLock { $0.append(o) } }
    var waiting: [DaemonSocket] { box.withLock { $0.compactMap { if case .waiting(let s) = $0 { s } else { nil } } } }
    var hellos: Int { box.withLock { $0.filter { if case .message(.hello, _) = $0 { true } else { false } }.count } }
}

@Suite("A client started before its daemon")
struct WaitingForTheDaemonTests {
    /// Where the daemon comes up, as issue 37 found it: the user instance's socket (the session had looked at the
    /// system's, and never looked again), the system's, or the one path a client was given.
    enum Where: String, CaseIterable, Sendable { case user, system, fixed }

    @Test("it says once that it waits, at the paths it looks at, and finds the daemon where it comes up", arguments: Where.allCases)
    func findsItsDaemon(_ place: Where) async throws {
        let dir = try TempDir()
        let user = dir.file("user/edgeswipe.sock"), system = dir.file("run/edgeswipe/edgeswipe.sock")
        // The user's runtime directory exists; the system service's does not yet (systemd makes it for the service).
        try FileManager.default.createDirectory(atPath: dir.file("user"), withIntermediateDirectories: true)
        let socket: DaemonSocket = place == .fixed ? .fixed(user) : .standard(user: user, system: system)
        // Backoff as a session's (ReconnectPolicy's defaults: 100 ms doubling to 5 s).
        let client = EdgeSwipeClient(socket: socket)
        let observed = Observed()
        client.observe { observed.add($0) }
        #expect(await waitUntilAsync(timeout: 20) { observed.waiting.count == 1 }, "said that it waits")
        #expect(observed.waiting.first?.description == (place == .fixed ? user : "\(user) or \(system)"))

        // Other files coming and going where the socket will be: each wakes the client for an attempt, and none
        // is said again.
        for i in 0..<3 { _ = FileManager.default.createFile(atPath: dir.file("user/other-\(i)"), contents: nil) }

        let path = place == .system ? system : user
        if place == .system { try FileManager.default.createDirectory(atPath: dir.file("run/edgeswipe"), withIntermediateDirectories: true) }
        let appeared = ContinuousClock.now
        var daemon: FakeDaemon? = try FakeDaemon(path: path)
        let peer = try await #require(daemon).accept()
        let found = ContinuousClock.now - appeared
        peer.write(Lines.hello())
        #expect(await waitUntilAsync(timeout: 20) { observed.hellos == 1 })
        #expect(client.socketPath == path)
        #expect(observed.waiting.count == 1, "said once: \(observed.waiting)")
        // The design bound is a second (issue 37); measured, not asserted (a loaded machine may take longer).
        print("WaitingForTheDaemonTests: \(place.rawValue): the daemon found \(found) after its socket appeared")

        // The daemon stops (its socket removed): a new wait, said once more, and the next daemon is found too.
        peer.hangUp()
        daemon = nil
        unlink(path)
        #expect(await waitUntilAsync(timeout: 20) { observed.waiting.count == 2 }, "\(observed.waiting)")
        let next = try FakeDaemon(path: path)
        try await next.accept().write(Lines.hello())
        #expect(await waitUntilAsync(timeout: 20) { observed.hellos == 2 })
        #expect(observed.waiting.count == 2, "\(observed.waiting)")
        await client.close()
    }
}
