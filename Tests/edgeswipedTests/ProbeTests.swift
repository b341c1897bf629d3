import EdgeSwipeTestSupport
import Foundation
import Glibc
import Synchronization
import Testing

/// What an adversarial probe of a release build found: hostile local clients and clumsy operators, each failure
/// reproduced against the real daemon as a subprocess, the way the probe did it.
@Suite("Hostile clients and unlucky operators", .serialized)
struct ProbeTests {
    static let socat = "/usr/bin/socat"
    static var haveSocat: Bool { FileManager.default.isExecutableFile(atPath: socat) }

    /// `printf LINES | socat - UNIX-CONNECT:PATH`: the way scripts send requests. socat half-closes the connection
    /// (`shutdown(SHUT_WR)`) when its input ends and prints what comes back until the daemon closes.
    static func socatSend(_ lines: [String], to path: String) throws -> [[String: Any]] {
        let payload = lines.map { $0 + "\\n" }.joined().replacingOccurrences(of: "%", with: "%%")
        let done = try run(URL(fileURLWithPath: "/bin/sh"), ["-c", "printf '\(payload)' | \(socat) -t 10 - UNIX-CONNECT:\(path)"], timeoutSeconds: 30)
        return done.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }

    // MARK: - Half-closed connections

    @Test("socat: a request from a half-closed connection gets its answer before the daemon closes", .enabled(if: haveSocat, "socat is not installed"))
    func socatHalfClose() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try DaemonProcess.holdingDemo(in: dir)
        let pushed = try Self.socatSend([#"{"op":"push","id":5,"container":"app","scene":"x","animated":false}"#], to: daemon.socketPath)
        #expect(pushed.first?.type == "hello")
        let answers = pushed.filter { $0.type == "reply" || $0.type == "error" }
        #expect(answers.count == 1 && answers.first?.type == "reply" && answers.first?["id"] as? Int == 5, "\(pushed.map(\.type))")
        let pinged = try Self.socatSend([#"{"op":"ping","id":1}"#], to: daemon.socketPath)
        #expect(pinged.map(\.type) == ["hello", "reply"], "\(pinged)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0, "\(daemon.log)")
    }

    @Test("shutdown(SHUT_WR) after pipelined requests: each gets exactly one answer, then the daemon closes")
    func shutdownWriteSide() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try DaemonProcess.holdingDemo(in: dir)
        let client = try LineClient(path: daemon.socketPath)
        _ = client.messages(until: { $0.type == "hello" })
        let requests = [
            #"{"op":"ping","id":1}"#, #"{"op":"status","id":2}"#, #"{"op":"select-tab","id":3,"container":"shell","index":2,"animated":false}"#,
            #"{"op":"devices","id":4}"#, "not json", #"{"op":"push","id":6,"container":"app","scene":"y"}"#,
        ]
        client.sendRaw(Array(requests.map { $0 + "\n" }.joined().utf8))
        // A last request without its newline: the end of the stream ends it.
        client.sendRaw(Array(#"{"op":"ping","id":7}"#.utf8))
        shutdown(client.fd, Int32(SHUT_WR))
        let rest = client.messages(until: { _ in false }, timeoutSeconds: 20)
        #expect(client.closedByPeer, "the daemon closes once everything is answered")
        let answers = rest.filter { $0.type == "reply" || $0.type == "error" }
        let ids = answers.map { ($0["id"] as? Int).map(String.init) ?? "-" }
        #expect(ids.sorted() == ["-", "1", "2", "3", "4", "6", "7"], "\(answers)")
        #expect(answers.first { $0["id"] as? Int == 3 }?.type == "reply")
        #expect(rest.contains { $0.type == "transition" && $0["phase"] as? String == "completed" }, "the events up to the last answer still stream")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0, "\(daemon.log)")
    }
}

extension ProbeTests {
    static func answer(_ client: LineClient, _ request: String, id: Int) -> [String: Any]? {
        client.send(request)
        return client.messages(until: { ($0.type == "reply" || $0.type == "error") && $0["id"] as? Int == id }, timeoutSeconds: 10)
            .last { ($0.type == "reply" || $0.type == "error") && $0["id"] as? Int == id }
    }

    // MARK: - Access reload

    @Test("SIGHUP applies a new [access] to open connections: control shrinks to read at once, a removed uid gets goodbye access-revoked")
    func reloadRevokesAccess() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let me = getuid()
        let (daemon, config) = try DaemonProcess.holdingDemo(in: dir, config: "[access]\nread_uids = [\(me)]\ncontrol_uids = [\(me)]\n")
        let client = try LineClient(path: daemon.socketPath)
        let hello = try #require(client.messages(until: { $0.type == "hello" }).last)
        #expect((hello["access"] as? [String: Any])?["control"] as? Bool == true)
        #expect(Self.answer(client, #"{"op":"select-tab","id":1,"container":"shell","index":2,"animated":false}"#, id: 1)?.type == "reply")

        // Control goes to someone else: this connection may still read, but no longer control.
        try "[access]\nread_uids = [\(me)]\ncontrol_uids = [54321]\n".write(to: config, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        #expect(client.messages(until: { $0.type == "config" }, timeoutSeconds: 15).last?["result"] as? String == "reloaded")
        let refused = Self.answer(client, #"{"op":"select-tab","id":2,"container":"shell","index":0,"animated":false}"#, id: 2)
        #expect(refused?.type == "error" && refused?["code"] as? String == "forbidden", "\(refused ?? [:])")
        #expect(Self.answer(client, #"{"op":"ping","id":3}"#, id: 3)?.type == "reply", "reading is still allowed")

        // This uid is removed altogether: the connection is told why and closed; a new one is refused.
        try "[access]\nread_uids = [54321]\ncontrol_uids = [54321]\n".write(to: config, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        let rest = client.messages(until: { $0.type == "goodbye" }, timeoutSeconds: 15)
        #expect(rest.last?["reason"] as? String == "access-revoked", "\(rest.map(\.type))")
        #expect(client.readLine(timeoutSeconds: 10) == nil && client.closedByPeer, "closed after the goodbye")
        let newcomer = try LineClient(path: daemon.socketPath)
        #expect(newcomer.readLine(timeoutSeconds: 10) == nil && newcomer.closedByPeer, "a new connection of the removed uid is refused")
        #expect(Hardening.waitForLog(daemon, "closing a connection the access policy no longer admits"), "\(daemon.log)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0, "\(daemon.log)")
    }

    /// Connects, and prints the type of the first message, or "closed" when the server closes without one.
    static let firstLine = """
        import json, socket, sys
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(sys.argv[1])
        line = s.makefile("rb").readline()
        print(json.loads(line)["type"] if line else "closed")
        """

    @Test("SIGHUP that adds a uid to [access] lets it in", .enabled(if: Hardening.canSwitchUser, "needs root, setpriv and /usr/bin/python3 to act as uid 65534"))
    func reloadAdmitsAddedUID() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let me = getuid()
        let (daemon, config) = try DaemonProcess.holdingDemo(in: dir, config: "[access]\nread_uids = [\(me)]\ncontrol_uids = [\(me)]\n")
        chmod(daemon.socketPath, 0o666)
        let before = try Hardening.runAsNobody(Self.firstLine, arguments: [daemon.socketPath])
        #expect(before.stdout == "closed\n", "\(before.stdout) \(before.stderr)")
        let watcher = try LineClient(path: daemon.socketPath)
        _ = watcher.messages(until: { $0.type == "hello" })
        try "[access]\nread_uids = [\(me), \(Hardening.nobody)]\ncontrol_uids = [\(me)]\n".write(to: config, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        #expect(watcher.messages(until: { $0.type == "config" }, timeoutSeconds: 15).last?["result"] as? String == "reloaded")
        let after = try Hardening.runAsNobody(Self.firstLine, arguments: [daemon.socketPath])
        #expect(after.stdout == "hello\n", "admitted: the hello arrives: \(after.stdout) \(after.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0, "\(daemon.log)")
    }

    // MARK: - Memory and backlog bounds

    @Test("max_clients: past it a newcomer gets goodbye too-many-clients as its only message; a freed place is taken again")
    func maxClients() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (daemon, _) = try DaemonProcess.holdingDemo(in: dir, config: "[daemon]\nmax_clients = 3\n")
        // The start-up check's probe connection holds a place until the daemon has noticed it closed: take the
        // three places once they are all free.
        var clients: [LineClient] = []
        #expect(waitUntil {
            clients = (0..<3).compactMap { _ in try? LineClient(path: daemon.socketPath) }
            return clients.count == 3 && clients.allSatisfy { $0.readLine(timeoutSeconds: 10)?.contains(#""type":"hello""#) == true }
        }, "three clients are admitted")
        let extra = try LineClient(path: daemon.socketPath)
        let refused = extra.messages(until: { _ in false }, timeoutSeconds: 10)
        #expect(refused.count == 1 && refused.first?.type == "goodbye" && refused.first?["seq"] as? Int == 1, "\(refused)")
        #expect(refused.first?["reason"] as? String == "too-many-clients")
        #expect(extra.closedByPeer)
        clients.removeFirst().close()
        #expect(waitUntil {
            guard let c = try? LineClient(path: daemon.socketPath) else { return false }
            return c.readLine(timeoutSeconds: 5)?.contains(#""type":"hello""#) == true
        }, "a place freed by a client that left is taken by the next")
        #expect(Hardening.waitForLog(daemon, "clients are connected, as many as this server takes (max_clients)"), "\(daemon.log)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0, "\(daemon.log)")
    }

    /// Connects `count` times to `socket` as uid 65534, reads each connection's first line, and holds them all
    /// until ``release()``; ``summary`` is `hello H refused R: <the first refusal's message>`.
    final class ReadOnlyHog {
        let process = Process()
        private let input = Pipe()
        let summary: String

        static let script = """
            import json, socket, sys
            socks, hello, refused, message = [], 0, 0, ""
            for i in range(int(sys.argv[2])):
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(sys.argv[1])
                line = s.makefile("rb").readline()
                m = json.loads(line) if line else {"type": "closed"}
                if m["type"] == "hello":
                    hello += 1
                else:
                    refused += 1
                    message = message or m.get("message", m["type"])
                socks.append(s)
            print("hello %d refused %d: %s" % (hello, refused, message), flush=True)
            sys.stdin.read()
            """

        init(socket: String, count: Int) throws {
            let python = try #require(Hardening.python3)
            let output = Pipe()
            process.executableURL = URL(fileURLWithPath: Hardening.setpriv)
            process.arguments = ["--reuid=\(Hardening.nobody)", "--regid=\(Hardening.nobody)", "--clear-groups", python, "-c", Self.script, socket, "\(count)"]
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            let line = output.fileHandleForReading.availableData
            summary = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }

        func release() {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }

        deinit { release() }
    }

    @Test(
        "a read-only user cannot lock out the owner: the last places of max_clients are kept for clients that may control",
        .enabled(if: Hardening.canSwitchUser, "needs root, setpriv and /usr/bin/python3 to act as uid 65534"))
    func placesKeptForControl() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (daemon, _) = try DaemonProcess.holdingDemo(
            in: dir, config: "[daemon]\nmax_clients = 16\n[access]\nread_uids = [\(Hardening.nobody)]\ncontrol_uids = [\(getuid())]\n")
        chmod(daemon.socketPath, 0o666)
        // 20 read-only connections: 15 places (one of 16 is kept), or 14 while the start-up probe's is not yet given back.
        let hog = try ReadOnlyHog(socket: daemon.socketPath, count: 20)
        defer { hog.release() }
        #expect(hog.summary.hasPrefix("hello 15 refused 5: ") || hog.summary.hasPrefix("hello 14 refused 6: "), "\(hog.summary)")
        #expect(hog.summary.contains("kept for clients that may control"), "\(hog.summary)")
        // The owner, who may control, still gets in and drives the daemon.
        let owner = try LineClient(path: daemon.socketPath)
        #expect(owner.messages(until: { $0.type == "hello" || $0.type == "goodbye" }).last?.type == "hello")
        owner.close()
        let push = try run(Paths.edgeswipectl, ["push", "app", "details", "--socket", daemon.socketPath])
        #expect(push.status == 0, "\(push.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0, "\(daemon.log)")
    }

    @Test(
        "one user has at most max_clients_per_user connections; the daemon's own user is not counted",
        .enabled(if: Hardening.canSwitchUser, "needs root, setpriv and /usr/bin/python3 to act as uid 65534"))
    func perUserLimit() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (daemon, _) = try DaemonProcess.holdingDemo(
            in: dir, config: "[daemon]\nmax_clients_per_user = 12\n[access]\nread_uids = [\(Hardening.nobody)]\ncontrol_uids = [\(getuid())]\n")
        chmod(daemon.socketPath, 0o666)
        let hog = try ReadOnlyHog(socket: daemon.socketPath, count: 15)
        defer { hog.release() }
        #expect(hog.summary == "hello 12 refused 3: uid 65534 has 12 connections open, as many as one user may have (max_clients_per_user); close one and try again", "\(hog.summary)")
        #expect(Hardening.waitForLog(daemon, "refused a connection: uid 65534 has 12 connections open"), "\(daemon.log)")
        // The owner is not counted: 20 of its own connections all get in.
        let mine = try (0..<20).map { _ in try LineClient(path: daemon.socketPath) }
        #expect(mine.allSatisfy { $0.readLine(timeoutSeconds: 10)?.contains(#""type":"hello""#) == true })
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0, "\(daemon.log)")
    }

    @Test("a client that reads nothing is cut off after stall_timeout_s, with what it missed and a goodbye; others are unaffected")
    func stalledReaderTimesOut() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = try DaemonProcess.writeConfig("[daemon]\nstall_timeout_s = 1\n", in: dir)
        let daemon = try DaemonProcess(
            ["--socket", dir.appendingPathComponent("d.sock").path, "--config", config.path, "--replay", Paths.demo.path,
             "--loop", "--speed", "2", "--wait-for-clients", "2"], directory: dir)
        try daemon.waitUntilListening()
        // The well-behaved client reads everything, on its own thread, until the goodbye at the end.
        let path = daemon.socketPath
        let good = LockedSlots<SoakTests.Stream?>(count: 1, initial: nil)
        let reader = DispatchGroup()
        reader.enter()
        Thread.detachNewThread {
            good[0] = SoakTests.readWellBehaved(path: path, timeoutSeconds: 120, greeted: {})
            reader.leave()
        }
        let stalled = try LineClient(path: daemon.socketPath)
        stalled.send(#"{"op":"subscribe","tick_hz":1000}"#)
        #expect(Hardening.waitForLog(daemon, "client too slow, disconnecting: it read nothing for 1.0 s", timeoutSeconds: 60), "\(daemon.log.suffix(2000))")
        // It reads at last, within the goodbye's 2 s: what was queued, then the goodbye.
        let rest = stalled.messages(until: { $0.type == "goodbye" }, timeoutSeconds: 30)
        #expect(rest.last?["reason"] as? String == "backlog-exceeded")
        #expect((rest.last?["message"] as? String)?.contains("nothing was read for 1.0 s") == true, "\(rest.last ?? [:])")
        let seqs = rest.compactMap { $0["seq"] as? Int }
        #expect(seqs == Array(1...max(1, seqs.count)), "gap-free up to the goodbye")
        daemon.signal(SIGTERM)
        #expect(reader.wait(timeout: .now() + 60) == .success)
        #expect(daemon.waitForExit() == 0, "\(daemon.log)")
        let stream = try #require(good[0])
        #expect(stream.endedWithGoodbye && stream.seqGaps.isEmpty && stream.problems.isEmpty, "\(stream.problems.prefix(3))")
        #expect(daemon.log.components(separatedBy: "client too slow").count == 2, "only the stalled client was cut off")
    }

    @Test("a client that pipelines 20,000 requests and reads is never cut off: every one is answered, none refused")
    func pipeliningReaderIsNeverCutOff() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try DaemonProcess.holdingDemo(in: dir)
        let client = try LineClient(path: daemon.socketPath)
        _ = client.messages(until: { $0.type == "hello" })
        let count = 20_000
        // Every 100th request needs the daemon (status), so requests also wait for the input thread.
        let requests = (0..<count).map { i in i % 100 == 0 ? #"{"op":"status","id":\#(i)}"# : #"{"op":"ping","id":\#(i)}"# }
        let payload = Array((requests.joined(separator: "\n") + "\n").utf8)
        let sent = Mutex(false)
        // The writer only writes and the reader below only reads: one socket, two directions.
        nonisolated(unsafe) let writing = client
        let writer = Thread { sent.withLock { $0 = writing.sendRaw(payload, timeoutSeconds: 120) } }
        writer.start()
        var answers = 0
        var errors: [String] = []
        var goodbye: [String: Any]?
        _ = client.messages(until: { m in
            if m.type == "reply" { answers += 1 }
            if m.type == "error" { answers += 1; errors.append("\(m["code"] ?? "") \(m["message"] ?? "")") }
            if m.type == "goodbye" { goodbye = m; return true }
            return answers == count
        }, timeoutSeconds: 180)
        #expect(waitUntil(timeout: 30) { sent.withLock { $0 } }, "every request was written")
        #expect(goodbye == nil, "not cut off: \(goodbye ?? [:])")
        #expect(answers == count && errors.isEmpty, "\(answers) answers; errors: \(errors.prefix(3))")
        #expect(!daemon.log.contains("client too slow"), "\(daemon.log.suffix(1000))")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0, "\(daemon.log)")
    }
}

extension ProbeTests {
    // MARK: - One set of limits

    @Test("256 scenes on a stack survive SIGKILL and a restart; the push that would make 257 is refused")
    func deepStackIsRestored() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let stateDir = dir.appendingPathComponent("state").path
        let first = try DaemonProcess.holdingDemo(in: dir, ["--state-dir", stateDir])
        let client = try LineClient(path: first.socketPath)
        _ = client.messages(until: { $0.type == "hello" })
        // Pipelined, and answered in order: the input thread takes them one after the other.
        let pushes = (1..<256).map { #"{"op":"push","id":\#($0),"container":"app","scene":"scene-\#($0)","animated":false}"# }
        client.sendRaw(Array((pushes.joined(separator: "\n") + "\n").utf8))
        var answers: [Int: [String: Any]] = [:]
        _ = client.messages(until: { m in
            if (m.type == "reply" || m.type == "error"), let id = m["id"] as? Int { answers[id] = m }
            return answers.count == 255
        }, timeoutSeconds: 120)
        #expect(answers.values.allSatisfy { $0.type == "reply" }, "\(answers.values.filter { $0.type == "error" }.prefix(2))")
        let refused = Self.answer(client, #"{"op":"push","id":999,"container":"app","scene":"one-too-many","animated":false}"#, id: 999)
        #expect(refused?["code"] as? String == "limit-exceeded", "\(refused ?? [:])")
        first.signal(SIGKILL)
        _ = first.waitForExit()

        let second = try DaemonProcess.holdingDemo(in: dir, ["--state-dir", stateDir])
        let hello = try #require(try LineClient(path: second.socketPath).messages(until: { $0.type == "hello" }).last)
        let app = ((hello["state"] as? [String: Any])?["containers"] as? [[String: Any]])?.first { $0["name"] as? String == "app" }
        let stack = app?["stack"] as? [String] ?? []
        #expect(stack.count == 256 && stack.last == "scene-255", "restored \(stack.count) scenes: \(second.log.suffix(1500))")
        second.signal(SIGTERM)
        #expect(second.waitForExit() == 0)
    }

    @Test("names past 256 bytes are refused where they enter, so the state file and the hello stay within their bounds")
    func longNamesAreRefused() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let stateDir = dir.appendingPathComponent("state")
        let daemon = try DaemonProcess.holdingDemo(in: dir, ["--state-dir", stateDir.path])
        let client = try LineClient(path: daemon.socketPath)
        _ = client.messages(until: { $0.type == "hello" })
        let long = String(repeating: "n", count: 60_000)
        for i in 1...40 {
            let answer = Self.answer(client, #"{"op":"push","id":\#(i),"container":"app","scene":"\#(long)","animated":false}"#, id: i)
            #expect(answer?.type == "error" && answer?["code"] as? String == "invalid-field", "push \(i): \(answer?["code"] ?? "?")")
            #expect((answer?["message"] as? String)?.contains("is 60000 bytes long; a name holds at most 256 bytes") == true)
            if answer?.type != "error" { break }
        }
        let at = String(repeating: "m", count: 256)
        #expect(Self.answer(client, #"{"op":"push","id":50,"container":"app","scene":"\#(at)","animated":false}"#, id: 50)?.type == "reply")
        let fresh = try LineClient(path: daemon.socketPath)
        let helloLine = try #require(fresh.readLine())
        #expect(helloLine.utf8.count < 1 << 20, "the hello is \(helloLine.utf8.count) bytes")
        #expect(helloLine.contains(at))
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    // MARK: - Frames

    @Test("a present with a frame no screen can show is refused with the field and the reason; nothing is presented", arguments: [
        (#"{"x":1e308,"y":0,"width":1,"height":1}"#, "x must be between -10 and 10"),
        (#"{"x":0,"y":0,"width":1,"height":1e-308}"#, "height must be between 0.001 and 10"),
        (#"{"x":0,"y":0,"width":0,"height":1}"#, "width must be between 0.001 and 10"),
    ])
    func badFrames(_ frame: String, _ reason: String) throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try DaemonProcess.holdingDemo(in: dir)
        let client = try LineClient(path: daemon.socketPath)
        _ = client.messages(until: { $0.type == "hello" })
        let answer = Self.answer(client, #"{"op":"present","id":1,"container":"overlay","scene":"card","style":"custom","animated":false,"frame":\#(frame)}"#, id: 1)
        #expect(answer?["code"] as? String == "invalid-field", "\(answer ?? [:])")
        #expect((answer?["message"] as? String)?.contains(#"field "frame": \#(reason)"#) == true, "\(answer?["message"] ?? "")")
        let status = Self.answer(client, #"{"op":"status","id":2}"#, id: 2)
        let overlay = (((status?["result"] as? [String: Any])?["state"] as? [String: Any])?["containers"] as? [[String: Any]])?.first { $0["name"] as? String == "overlay" }
        #expect((overlay?["presented"] as? [Any])?.isEmpty == true, "\(overlay ?? [:])")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }
}

extension ProbeTests {
    // MARK: - Replies and persistence

    /// The selected tab of `shell` in a state file's text, or nil.
    static func savedSelection(_ file: URL) -> Int? {
        guard let data = try? Data(contentsOf: file),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let containers = object["containers"] as? [[String: Any]]
        else { return nil }
        return containers.first { $0["name"] as? String == "shell" }?["selected"] as? Int
    }

    @Test("the reply to a request that changed the state comes only once that state is on disk; SIGKILL right after it loses nothing")
    func replyMeansDurable() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let stateDir = dir.appendingPathComponent("state")
        let file = stateDir.appendingPathComponent("state.json")
        let daemon = try DaemonProcess.holdingDemo(in: dir, ["--state-dir", stateDir.path])
        let client = try LineClient(path: daemon.socketPath)
        _ = client.messages(until: { $0.type == "hello" })
        var behind: [String] = []
        for round in 1...15 {
            let index = round % 3
            let reply = Self.answer(client, #"{"op":"select-tab","id":\#(round),"container":"shell","index":\#(index),"animated":false}"#, id: round)
            guard reply?.type == "reply" else {
                // Selecting the tab already selected is refused; nothing was changed, nothing to check.
                continue
            }
            // Read at once: the file must already say so.
            let saved = Self.savedSelection(file)
            if saved != index { behind.append("round \(round): replied for tab \(index), the file says \(saved.map(String.init) ?? "nothing")") }
        }
        #expect(behind.isEmpty, "\(behind)")
        let last = Self.answer(client, #"{"op":"select-tab","id":99,"container":"shell","index":0,"animated":false}"#, id: 99)
        daemon.signal(SIGKILL)
        _ = daemon.waitForExit()
        let restarted = try DaemonProcess.holdingDemo(in: dir, ["--state-dir", stateDir.path])
        let hello = try #require(try LineClient(path: restarted.socketPath).messages(until: { $0.type == "hello" }).last)
        let shell = ((hello["state"] as? [String: Any])?["containers"] as? [[String: Any]])?.first { $0["name"] as? String == "shell" }
        if last?.type == "reply" { #expect(shell?["selected"] as? Int == 0, "the last change was acknowledged and must survive") }
        restarted.signal(SIGTERM)
        #expect(restarted.waitForExit() == 0)
    }
}

extension ProbeTests {
    // MARK: - Replay

    @Test("--speed outside 0.01...100 is a usage error that says the range", arguments: ["1e-18", "0.001", "0", "-1", "nan", "inf", "1000"])
    func speedRange(_ speed: String) throws {
        let r = try run(Paths.edgeswiped, ["--replay", Paths.demo.path, "--speed=\(speed)", "--socket", "/tmp/never-\(getpid()).sock"])
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr.contains("--speed must be between 0.01 and 100"), "\(r.stderr)")
    }

    /// The demo's description and first touch, then the same touch lifted about 10^12 s later: a recording the
    /// parser accepts, whose schedule at --speed 0.1 lies past what 64 bits of microseconds hold.
    static func recordingWithTimeJump(in dir: URL) throws -> URL {
        let lines = try String(contentsOf: Paths.demo, encoding: .utf8).split(separator: "\n").map(String.init)
        let header = lines.prefix { !$0.hasPrefix("E:") }
        let events = lines.filter { $0.hasPrefix("E:") }
        let firstFrame = events.prefix { !$0.contains("0000 0000 0000") } + [events.first { $0.contains("0000 0000 0000") }!]
        let jump = ["E: 1099511627775.000000 0003 0039 -001", "E: 1099511627775.000000 0001 014a 0000", "E: 1099511627775.000000 0000 0000 0000"]
        let url = dir.appendingPathComponent("time-jump.evemu")
        try (header + firstFrame + jump).joined(separator: "\n").appending("\n").write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    @Test("a recording whose timestamps jump by 10^12 s, played at --speed 0.1, does not crash the daemon")
    func replayTimeJump() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let recording = try Self.recordingWithTimeJump(in: dir)
        let daemon = try DaemonProcess(
            ["--socket", dir.appendingPathComponent("d.sock").path, "--replay", recording.path, "--speed", "0.1", "--wait-for-clients", "1"],
            directory: dir)
        try daemon.waitUntilListening()
        let client = try LineClient(path: daemon.socketPath)
        // The replay starts with this client: its device is added and its first touch lands.
        _ = client.messages(until: { $0.type == "device" || (($0["devices"] as? [Any])?.isEmpty == false) }, timeoutSeconds: 20)
        #expect(Self.answer(client, #"{"op":"ping","id":1}"#, id: 1)?.type == "reply", "alive: \(daemon.log.suffix(1500))")
        #expect(daemon.process.isRunning)
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0, "\(daemon.log.suffix(1500))")
        #expect(daemon.log.contains("replay: the next event is"), "the wait is reported: \(daemon.log.suffix(1500))")
    }

    @Test("a daemon that dies of a fatal signal leaves no socket file behind", arguments: [SIGSEGV, SIGABRT, SIGILL])
    func crashRemovesSocket(_ sig: Int32) throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try DaemonProcess.holdingDemo(in: dir, environment: ["SWIFT_BACKTRACE": "enable=no"])
        #expect(FileManager.default.fileExists(atPath: daemon.socketPath))
        #expect(Hardening.waitForLog(daemon, "ready"), "\(daemon.log)")
        daemon.signal(sig)
        _ = daemon.waitForExit()
        #expect(daemon.process.terminationReason == .uncaughtSignal && daemon.process.terminationStatus == sig, "it still dies of the signal")
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath), "the socket file is gone")
    }
}

extension ProbeTests {
    // MARK: - The socket file

    static let strace = "/usr/bin/strace"
    static var canDelaySyscalls: Bool { Hardening.isRoot && FileManager.default.isExecutableFile(atPath: strace) }

    @Test("the socket's mode is set without following its path: a symlink swapped in after bind cannot redirect it",
          .enabled(if: canDelaySyscalls, "needs root and strace to hold the daemon between its system calls"))
    func socketModeDoesNotFollowSymlinks() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // A root-owned private file a peer who controls the directory would like to open up.
        let target = dir.appendingPathComponent("secret")
        try "private".write(to: target, atomically: true, encoding: .utf8)
        chmod(target.path, 0o600)
        let socket = dir.appendingPathComponent("d.sock").path
        // strace holds every mode change by path for 2 s: the window between bind and a chmod(path), widened.
        let daemon = try DaemonProcess(
            ["--socket", socket, "--replay", Paths.demo.path, "--wait-for-clients", "99"], directory: dir,
            // -D: strace runs as a detached grandchild, so the process the test started (and signals) is the daemon.
            launcher: [Self.strace, "-D", "-f", "-o", "/dev/null", "-e", "trace=chmod,fchmodat", "-e", "inject=chmod,fchmodat:delay_enter=2000000"])
        // As soon as the socket exists, swap a symlink to the secret in for it.
        #expect(waitUntil(timeout: 30) {
            var st = stat()
            return lstat(socket, &st) == 0 && st.st_mode & S_IFMT == S_IFSOCK
        }, "the daemon bound its socket: \(daemon.log)")
        var st = stat()
        #expect(lstat(socket, &st) == 0 && st.st_mode & 0o777 == 0o660, "the socket has its mode from the moment it exists: \(String(st.st_mode & 0o777, radix: 8))")
        let link = dir.appendingPathComponent("link").path
        #expect(symlink(target.path, link) == 0)
        #expect(rename(link, socket) == 0)
        // Whatever the daemon does next (it may notice the swap and refuse to serve), the secret keeps its mode.
        _ = waitUntil(timeout: 6) { daemon.log.contains("ready") || !daemon.process.isRunning }
        #expect(stat(target.path, &st) == 0 && st.st_mode & 0o777 == 0o600, "the secret is \(String(st.st_mode & 0o777, radix: 8)) now")
        daemon.signal(SIGTERM)
        _ = daemon.waitForExit()
    }

    @Test("a socket directory the daemon's user does not own is refused, unless it is sticky and root's", .enabled(if: Hardening.isRoot, "needs root to give a directory away"),
          arguments: [(Hardening.nobody, 0o755 as mode_t, false), (Hardening.nobody, 0o1777, false), (0, 0o1777, true), (0, 0o700, true)])
    func socketDirectoryOwner(_ owner: UInt32, _ mode: mode_t, _ accepted: Bool) throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let sockets = dir.appendingPathComponent("run")
        try FileManager.default.createDirectory(at: sockets, withIntermediateDirectories: true)
        #expect(chown(sockets.path, owner, owner) == 0)
        #expect(chmod(sockets.path, mode) == 0)
        let socket = sockets.appendingPathComponent("d.sock").path
        if accepted {
            let daemon = try DaemonProcess(["--socket", socket, "--replay", Paths.demo.path, "--wait-for-clients", "99"], directory: dir, socketName: "run/d.sock")
            try daemon.waitUntilListening()
            daemon.signal(SIGTERM)
            #expect(daemon.waitForExit() == 0)
        } else {
            let r = try run(Paths.edgeswiped, ["--socket", socket, "--replay", Paths.demo.path])
            #expect(r.status == 69, "\(r.stderr)")
            #expect(r.stderr.contains("the socket's directory belongs to uid \(owner)"), "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: socket))
        }
    }

    @Test("a peer deleting the socket file in a loop gets a few rebinds and a few log lines, not thousands; the socket comes back when it stops")
    func rebindsAreRateLimited() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try DaemonProcess.holdingDemo(in: dir)
        #expect(Hardening.waitForLog(daemon, "ready"))
        let linesBefore = daemon.log.split(separator: "\n").count
        let path = daemon.socketPath
        let stop = Date().addingTimeInterval(3)
        var deletions = 0
        while Date() < stop {
            if unlink(path) == 0 { deletions += 1 } else { usleep(200) }
        }
        let recreated = daemon.log.components(separatedBy: "recreated=").count - 1
        let lines = daemon.log.split(separator: "\n").count - linesBefore
        #expect(recreated <= 6, "\(recreated) rebinds for \(deletions) deletions in 3 s")
        #expect(lines <= 20, "\(lines) log lines: \(daemon.log.suffix(3000))")
        #expect(daemon.log.contains("binding it again in"), "the backoff is said: \(daemon.log.suffix(2000))")
        // Left alone, the daemon binds its path again within its backoff.
        #expect(waitUntil(timeout: 70) { (try? LineClient(path: path)) != nil }, "\(daemon.log.suffix(2000))")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }
}

extension ProbeTests {
    // MARK: - Smaller things a user meets

    @Test("a request that is not UTF-8 is refused with the offset of the first bad byte, not read with it replaced")
    func invalidUTF8() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try DaemonProcess.holdingDemo(in: dir)
        let client = try LineClient(path: daemon.socketPath)
        _ = client.messages(until: { $0.type == "hello" })
        client.sendRaw(Array(#"{"op":"push","id":3,"container":"app","scene":"x"#.utf8) + [0xFF, 0xFE] + Array(#"","animated":false}"#.utf8) + [10])
        let error = client.messages(until: { $0.type == "error" || $0.type == "reply" }, timeoutSeconds: 10).last
        #expect(error?.type == "error" && error?["code"] as? String == "malformed-json", "\(error ?? [:])")
        #expect((error?["message"] as? String)?.contains("byte 48: invalid UTF-8") == true, "\(error?["message"] ?? "")")
        let status = Self.answer(client, #"{"op":"status","id":4}"#, id: 4)
        let app = (((status?["result"] as? [String: Any])?["state"] as? [String: Any])?["containers"] as? [[String: Any]])?.first { $0["name"] as? String == "app" }
        #expect(app?["stack"] as? [String] == ["home"], "nothing was pushed")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    @Test("a configuration that is not a regular file says what it is; one that cannot be read exits 66, in --check-config too",
          arguments: ["fifo", "/dev/zero", "directory", "missing"])
    func configNotAFile(_ kind: String) throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path: String
        let expected: String
        switch kind {
        case "fifo":
            path = dir.appendingPathComponent("c.toml").path
            #expect(mkfifo(path, 0o600) == 0)
            expected = "\(path): is a FIFO (named pipe), not a regular file"
        case "directory":
            path = dir.path
            expected = "\(path): is a directory, not a regular file"
        case "missing":
            path = dir.appendingPathComponent("none.toml").path
            expected = "\(path): cannot read the file: No such file or directory"
        default:
            path = kind
            expected = "\(path): is a character device, not a regular file"
        }
        let check = try run(Paths.edgeswiped, ["--check-config", path], timeoutSeconds: 20)
        #expect(check.status == 66, "\(check.stderr)")
        #expect(check.stderr.contains(expected), "\(check.stderr)")
        let start = try run(Paths.edgeswiped, ["--config", path, "--socket", dir.appendingPathComponent("d.sock").path, "--replay", Paths.demo.path], timeoutSeconds: 20)
        #expect(start.status == 66, "\(start.stderr)")
        #expect(start.stderr.contains(expected), "\(start.stderr)")
    }

    @Test("a configuration of binary garbage is refused with the line of the first byte that is not UTF-8")
    func binaryConfig() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("c.toml")
        try Data(Array("[daemon]\ntick_hz = 60\n".utf8) + [0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0xC3, 0x28, 0x00, 0xFF]).write(to: file)
        let r = try run(Paths.edgeswiped, ["--check-config", file.path])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("\(file.path):3: not UTF-8 text: byte 0xC3 at column 7"), "\(r.stderr)")
    }

    @Test("a socket path in a directory that does not exist: a system call failed, exit 71, naming the path")
    func socketInMissingDirectory() throws {
        let r = try run(Paths.edgeswiped, ["--socket", "/nonexistent-\(getpid())/d.sock", "--replay", Paths.demo.path])
        #expect(r.status == 71, "\(r.stderr)")
        #expect(r.stderr.contains("/nonexistent-\(getpid())/d.sock: bind failed: No such file or directory"), "\(r.stderr)")
    }
}

extension ProbeTests {
    /// The demo's swipes again and again, each copy `period` seconds after the last, to at least `bytes` bytes.
    static func longRecording(in dir: URL, bytes: Int) throws -> URL {
        let lines = try String(contentsOf: Paths.demo, encoding: .utf8).split(separator: "\n").map(String.init)
        let header = lines.filter { !$0.hasPrefix("E:") }
        let events = lines.filter { $0.hasPrefix("E:") }.map { $0.split(separator: "\t")[0].split(separator: " ").map(String.init) }
        let first = Double(events.first?[1] ?? "0") ?? 0
        let period = (Double(events.last?[1] ?? "0") ?? 0) - first + 1
        var out = header.joined(separator: "\n") + "\n"
        var copy = 0
        while out.utf8.count < bytes {
            for e in events {
                out += "E: \(String(format: "%.6f", (Double(e[1]) ?? 0) + Double(copy) * period)) \(e[2]) \(e[3]) \(e[4])\n"
            }
            copy += 1
        }
        let url = dir.appendingPathComponent("long-\(bytes).evemu")
        try out.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    /// A `libinput record` file of one touchscreen swiping in from the left edge again and again, to at least
    /// `bytes` bytes.
    static func longLibinputRecord(in dir: URL, bytes: Int) throws -> URL {
        var out = """
            # libinput record
            version: 1
            ndevices: 1
            devices:
            - node: /dev/input/event9
              evdev:
                name: "Probe Touchscreen"
                id: [3, 1, 2, 1]
                codes:
                  0: [0, 1, 3]
                  1: [330]
                  3: [0, 1, 47, 53, 54, 57]
                absinfo:
                  0: [0, 4095, 0, 0, 16]
                  1: [0, 4095, 0, 0, 16]
                  47: [0, 9, 0, 0, 0]
                  53: [0, 4095, 0, 0, 16]
                  54: [0, 4095, 0, 0, 16]
                  57: [0, 65535, 0, 0, 0]
                properties: [1]
              events:

            """
        var time = 0
        var swipe = 0
        func row(_ type: Int, _ code: Int, _ value: Int) {
            out += "    - [\(time / 1_000_000), \(time % 1_000_000), \(type), \(code), \(value)]\n"
        }
        while out.utf8.count < bytes {
            out += "  - evdev:\n"
            row(3, 47, 0)
            row(3, 57, swipe)
            row(3, 53, 10)
            row(3, 54, 2000)
            row(1, 330, 1)
            row(0, 0, 0)
            for step in 1...60 {
                time += 8000
                row(3, 53, 10 + step * 40)
                row(0, 0, 0)
            }
            time += 8000
            row(3, 57, -1)
            row(1, 330, 0)
            row(0, 0, 0)
            time += 500_000
            swipe += 1
        }
        let url = dir.appendingPathComponent("long-\(bytes).yaml")
        try out.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    /// Runs `edgeswipectl arguments` with its output thrown away; its peak resident size in kB (wait4's rusage).
    static func peakRSS(_ arguments: [String]) throws -> (status: Int32, kB: Int) {
        var pid: pid_t = 0
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        let argv = ([Paths.edgeswipectl.path] + arguments).map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        guard posix_spawn(&pid, Paths.edgeswipectl.path, &actions, nil, argv, environ) == 0 else { throw DaemonTestError("posix_spawn failed") }
        var status: Int32 = 0
        var usage = rusage()
        guard wait4(pid, &status, 0, &usage) == pid else { throw DaemonTestError("wait4 failed") }
        return ((status >> 8) & 0xFF, usage.ru_maxrss)
    }

    @Test("edgeswipectl replay streams a long recording: four times the recording costs no more memory")
    func replayMemoryDoesNotGrow() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let short = try Self.peakRSS(["replay", try Self.longRecording(in: dir, bytes: 1 << 19).path, "--json"])
        let long = try Self.peakRSS(["replay", try Self.longRecording(in: dir, bytes: 2 << 20).path, "--json"])
        #expect(short.status == 0 && long.status == 0)
        #expect(long.kB - short.kB < 8 * 1024, "peak RSS \(short.kB) kB for 512 KiB of recording, \(long.kB) kB for 2 MiB")
    }

    @Test("edgeswipectl replay streams a long libinput record file too: four times the YAML costs no more memory")
    func replayLibinputRecordMemoryDoesNotGrow() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let short = try Self.peakRSS(["replay", try Self.longLibinputRecord(in: dir, bytes: 1 << 19).path, "--json"])
        let long = try Self.peakRSS(["replay", try Self.longLibinputRecord(in: dir, bytes: 2 << 20).path, "--json"])
        #expect(short.status == 0 && long.status == 0)
        #expect(long.kB - short.kB < 8 * 1024, "peak RSS \(short.kB) kB for 512 KiB of YAML, \(long.kB) kB for 2 MiB")
    }
}
