import EdgeSwipeTestSupport
import Foundation
import Glibc
import Testing

/// Issue 7: faults, hostile clients, persistence and start-up checks, on the real daemon as a subprocess.
@Suite("Hardening: faults, state, security", .serialized)
struct HardeningTests {
    static func isGoodbye(_ m: [String: Any]) -> Bool { m.type == "goodbye" }

    /// Bindings where a left-edge swipe always has something to do: previous tab, or next tab at the first one.
    static let alternatingLeft = """
        [[bindings]]
        edge = "left"
        container = "shell"
        action = "previous-tab"

        [[bindings]]
        edge = "left"
        container = "shell"
        action = "next-tab"

        """

    // MARK: - Faults

    @Test("a device removed mid-gesture: the transition is cancelled, a device removed event follows; replugged, it works again")
    func deviceRemovedMidGesture() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let recording = try Hardening.recordingEndingMidSwipe(in: dir)
        let config = try DaemonProcess.writeConfig(Self.alternatingLeft, in: dir)
        // The recording played twice in turn: its device is removed where it ends, mid-swipe, and a second later
        // plugged in again (a new device, with the next id), for the second play.
        let daemon = try DaemonProcess(
            ["--socket", dir.appendingPathComponent("d.sock").path, "--config", config.path, "--replay", recording.path,
             "--replay", recording.path, "--in-turn", "--speed", "2", "--wait-for-clients", "1"], directory: dir)
        try daemon.waitUntilListening()
        let client = try LineClient(path: daemon.socketPath)
        var removedSeen = false
        let messages = client.messages(until: { m in
            if m.type == "device" && m["change"] as? String == "removed" { removedSeen = true }
            return removedSeen && m.type == "transition" && m["phase"] as? String == "completed"
        })
        daemon.signal(SIGTERM)
        _ = client.messages(until: Self.isGoodbye)
        #expect(daemon.waitForExit() == 0, "\(daemon.log)")

        func index(_ predicate: ([String: Any]) -> Bool) -> Int? { messages.firstIndex(where: predicate) }
        func phase(_ id: Int, _ phase: String) -> ([String: Any]) -> Bool {
            { $0.type == "transition" && $0["id"] as? Int == id && $0["phase"] as? String == phase }
        }
        let completed1 = try #require(index(phase(1, "completed")), "the first swipe completes")
        let began2 = try #require(index(phase(2, "began")), "the cut swipe starts a transition")
        let cancelling2 = try #require(index(phase(2, "cancelling")), "the removal cancels it: \(messages.compactMap(\.phaseLine))")
        let cancelled2 = try #require(index(phase(2, "cancelled")))
        let removed = try #require(index { $0.type == "device" && $0["change"] as? String == "removed" })
        let gestureCancelled = index { $0.type == "gesture" && $0["state"] as? String == "cancelled" }
        #expect(completed1 < began2 && began2 < cancelling2 && cancelling2 < cancelled2)
        #expect(cancelling2 < removed, "the gesture is cancelled before the device is reported removed")
        #expect(gestureCancelled.map { $0 < removed } == true, "a cancelled gesture event precedes the removal")
        #expect(index(phase(2, "completed")) == nil)
        // Replugged: the device is added again and the same swipe drives a transition to its end.
        let readded = try #require(messages[removed...].firstIndex { $0.type == "device" && $0["change"] as? String == "added" })
        let began3 = try #require(messages[readded...].firstIndex { $0.type == "transition" && $0["phase"] as? String == "began" })
        #expect(messages[began3...].contains { $0.type == "transition" && $0["phase"] as? String == "completed" })
        #expect(messages.compactMap { $0["seq"] as? Int } == Array(1...messages.count))
    }

    @Test("SIGHUP with an invalid configuration during a transition: the old one stays in force, the error is logged and sent")
    func invalidReloadKeepsOldConfiguration() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = try DaemonProcess.writeConfig("[daemon]\ntick_hz = 60\n\n" + Self.alternatingLeft, in: dir)
        let daemon = try DaemonProcess(
            ["--socket", dir.appendingPathComponent("d.sock").path, "--config", config.path, "--replay", Paths.demo.path,
             "--loop", "--speed", "2", "--wait-for-clients", "1"], directory: dir)
        try daemon.waitUntilListening()
        let client = try LineClient(path: daemon.socketPath)
        let before = client.messages(until: { $0.type == "transition" && $0["phase"] as? String == "began" })
        let running = try #require(before.last?["id"] as? Int)
        try "[touchscreen]\nedge_zone_mm = 45\n".write(to: config, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        let after = client.messages(until: { $0.type == "config" }, timeoutSeconds: 15)
        let rejected = try #require(after.last)
        #expect(rejected["result"] as? String == "rejected")
        #expect((rejected["message"] as? String)?.contains("c.toml:2") == true, "\(rejected)")
        // The transition that was running ends normally, and later swipes still run on the old bindings.
        let rest = client.messages(until: { $0.type == "transition" && ($0["id"] as? Int ?? 0) > running + 1 && $0["phase"] as? String == "completed" })
        #expect((before + after + rest).contains { $0.type == "transition" && $0["id"] as? Int == running && ["completed", "cancelled"].contains($0["phase"] as? String ?? "") })
        client.send(#"{"op":"status","id":"s"}"#)
        let status = client.messages(until: { $0.type == "reply" }, timeoutSeconds: 10).last
        let summary = ((status?["result"] as? [String: Any])?["config"] as? [String: Any])
        let tickHz = (summary?["tick_hz"] as? NSNumber)?.doubleValue ?? 0
        #expect(abs(tickHz - 60) < 0.1, "the old tick rate is in force: \(summary ?? [:])")
        #expect((summary?["bindings"] as? [Any])?.count == 2, "the old bindings are in force")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        #expect(daemon.log.contains("configuration rejected, keeping the old one"), "\(daemon.log)")
        #expect(daemon.log.contains("edge_zone_mm"))
    }

    @Test("SIGHUP with a file that used to abort the TOML parser (found by fuzzing) is rejected; the daemon lives", arguments: [
        ("[#]\n", ":1:2: TOML syntax: expected a key"),
        ("[daemon]\n[.]\n", ":2:2: TOML syntax: expected a key"),
        ("[\u{1}]\n", ":1:2: TOML syntax: expected a key (letters, digits, '_', '-' or a quoted string), found the control character U+0001"),
    ])
    func reloadWithParserCrasher(_ text: String, _ expected: String) throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (daemon, config) = try DaemonProcess.holdingDemo(in: dir, config: "[daemon]\ntick_hz = 60\n")
        let client = try LineClient(path: daemon.socketPath)
        _ = client.messages(until: { $0.type == "hello" })
        try text.write(to: config, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        let rejected = client.messages(until: { $0.type == "config" }, timeoutSeconds: 15).last
        #expect(rejected?["result"] as? String == "rejected")
        #expect((rejected?["message"] as? String)?.contains(config.path + expected) == true, "\(rejected ?? [:])")
        client.send(#"{"op":"ping","id":1}"#)
        #expect(client.messages(until: { $0.type == "reply" }, timeoutSeconds: 10).last != nil, "still serving")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0, "\(daemon.log)")
    }

    @Test("the socket file deleted while the daemon runs: detected, bound again, reported to systemd; old clients unaffected")
    func socketFileDeleted() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let notify = try NotifyListener(path: dir.appendingPathComponent("notify").path)
        let daemon = try DaemonProcess.holdingDemo(in: dir, environment: ["NOTIFY_SOCKET": notify.path])
        #expect(notify.wait(for: "READY=1"))
        let old = try LineClient(path: daemon.socketPath)
        #expect(old.messages(until: { $0.type == "hello" }).last?.type == "hello")

        #expect(unlink(daemon.socketPath) == 0)
        #expect(Hardening.waitForLog(daemon, "recreated"), "\(daemon.log)")
        #expect(daemon.log.contains("was deleted while edgeswiped runs"))
        #expect(notify.wait(for: "recreated after it was deleted"), "\(notify.received)")
        let fresh = try LineClient(path: daemon.socketPath)
        #expect(fresh.messages(until: { $0.type == "hello" }).last?.type == "hello", "a new client reaches the daemon again")
        old.send(#"{"op":"ping","id":"old"}"#)
        #expect(old.messages(until: { $0.type == "reply" }, timeoutSeconds: 10).last?["id"] as? String == "old")

        // Deleted again: bound again again (no one-shot).
        #expect(unlink(daemon.socketPath) == 0)
        #expect(waitUntil { daemon.log.components(separatedBy: "recreated=2").count > 1 }, "\(daemon.log)")
        #expect((try? LineClient(path: daemon.socketPath)) != nil)

        // Replaced by another file: reported, and that file is left alone (also at shutdown).
        let impostor = dir.appendingPathComponent("impostor")
        try "not a socket".write(to: impostor, atomically: false, encoding: .utf8)
        #expect(rename(impostor.path, daemon.socketPath) == 0)
        #expect(Hardening.waitForLog(daemon, "was replaced by another file"), "\(daemon.log)")
        #expect(notify.wait(for: "was replaced by another file"))
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0, "\(daemon.log)")
        #expect((try? String(contentsOfFile: daemon.socketPath, encoding: .utf8)) == "not a socket")
    }

    @Test("a socket systemd passed and then deleted is reported loudly (systemd owns it)", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-socket-activate"), "systemd-socket-activate is not installed"))
    func activatedSocketDeleted() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("activated.sock").path
        let notify = try NotifyListener(path: dir.appendingPathComponent("notify").path)
        let daemon = try DaemonProcess(
            ["--replay", Paths.demo.path, "--wait-for-clients", "99"], directory: dir, socketName: "activated.sock",
            // systemd-socket-activate passes on only the variables it is told to: the sanitizers' too (scripts/sanitizers.sh).
            launcher: ["/usr/bin/systemd-socket-activate", "-l", path, "-E", "NOTIFY_SOCKET=\(notify.path)", "-E", "ASAN_OPTIONS", "-E", "LSAN_OPTIONS", "-E", "TSAN_OPTIONS"])
        try daemon.waitUntilListening()
        #expect(notify.wait(for: "READY=1"), "\(daemon.log)")
        #expect(unlink(path) == 0)
        #expect(Hardening.waitForLog(daemon, "systemd owns this socket"), "\(daemon.log)")
        #expect(notify.wait(for: "new clients cannot connect"), "\(notify.received)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    @Test("SIGTERM during a requested transition: every client gets its terminal event and a goodbye, seq gap-free")
    func terminateMidRequestedTransition() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try DaemonProcess.holdingDemo(in: dir)
        let clients = try (0..<3).map { _ in try LineClient(path: daemon.socketPath) }
        for c in clients { _ = c.messages(until: { $0.type == "hello" }) }
        clients[0].send(#"{"op":"present","id":1,"container":"overlay","scene":"card","style":"custom"}"#)
        let began = clients[0].messages(until: { $0.type == "transition" && $0["phase"] as? String == "began" })
        let id = try #require(began.last?["id"] as? Int)
        daemon.signal(SIGTERM)
        for (i, c) in clients.enumerated() {
            let rest = c.messages(until: Self.isGoodbye)
            let all = (i == 0 ? began : []) + rest
            #expect(rest.last?.type == "goodbye", "client \(i)")
            let terminal = all.filter {
                $0.type == "transition" && $0["id"] as? Int == id && ["completed", "cancelled"].contains($0["phase"] as? String ?? "")
            }
            #expect(terminal.count == 1, "client \(i): \(rest.compactMap(\.phaseLine))")
            let seqs = rest.compactMap { $0["seq"] as? Int }
            #expect(seqs == Array(seqs.first.map { $0..<($0 + seqs.count) } ?? 0..<0), "client \(i): seq has gaps")
        }
        #expect(daemon.waitForExit() == 0, "\(daemon.log)")
    }

    // MARK: - State persistence

    static let panesConfig = """
        [[containers]]
        name = "shell"
        kind = "tabs"
        tabs = ["launcher", "home", "settings"]
        selected = "home"

        [[containers]]
        name = "app"
        kind = "navigation"
        stack = ["home"]

        [[containers]]
        name = "overlay"
        kind = "modal"
        base = "shell"

        [[containers]]
        name = "panes"
        kind = "custom"
        children = ["a", "b"]
        active = "a"

        """

    /// Sends a request and waits for its reply and, for transitions, the `state` that follows.
    static func request(_ client: LineClient, _ json: String, id: Int) -> [String: Any]? {
        client.send(json)
        var reply: [String: Any]?
        var sawState = false
        _ = client.messages(until: { m in
            if (m.type == "reply" || m.type == "error") && m["id"] as? Int == id { reply = m }
            if m.type == "state" { sawState = true }
            return reply != nil && (reply?.type == "error" || sawState)
        }, timeoutSeconds: 10)
        return reply
    }

    @Test("SIGKILL and restart: navigation stack, selected tab, presented scenes and custom child are restored")
    func stateSurvivesSIGKILL() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let stateDir = dir.appendingPathComponent("state")
        let config = try DaemonProcess.writeConfig(Self.panesConfig, in: dir)
        func start() throws -> DaemonProcess {
            let d = try DaemonProcess(
                ["--socket", dir.appendingPathComponent("d.sock").path, "--config", config.path, "--state-dir", stateDir.path,
                 "--replay", Paths.demo.path, "--wait-for-clients", "99"], directory: dir)
            try d.waitUntilListening()
            return d
        }
        let first = try start()
        let client = try LineClient(path: first.socketPath)
        _ = client.messages(until: { $0.type == "hello" })
        for (i, request) in [
            #""op":"select-tab","container":"shell","scene":"settings""#,
            #""op":"push","container":"app","scene":"detail""#,
            #""op":"push","container":"app","scene":"more""#,
            #""op":"present","container":"overlay","scene":"card","style":"custom","frame":{"x":0,"y":0.5,"width":1,"height":0.5}"#,
            #""op":"show","container":"panes","child":"b""#,
        ].enumerated() {
            let reply = Self.request(client, "{\"id\":\(i + 1),\"animated\":false,\(request)}", id: i + 1)
            #expect(reply?.type == "reply", "\(request): \(reply ?? [:])")
        }
        let saved = stateDir.appendingPathComponent("state.json")
        var st = stat()
        #expect(stat(saved.path, &st) == 0 && st.st_mode & 0o777 == 0o600, "state.json is private")
        first.signal(SIGKILL)
        _ = first.waitForExit()

        let second = try start()
        let hello = try #require(try LineClient(path: second.socketPath).messages(until: { $0.type == "hello" }).last)
        #expect(hello.visibleScenes == ["shell": "settings", "app": "more", "overlay": "card", "panes": "b"], "\(second.log)")
        let containers = ((hello["state"] as? [String: Any])?["containers"] as? [[String: Any]]) ?? []
        let app = containers.first { $0["name"] as? String == "app" }
        #expect(app?["stack"] as? [String] == ["home", "detail", "more"])
        let presented = (containers.first { $0["name"] as? String == "overlay" }?["presented"] as? [[String: Any]])?.first
        #expect(presented?["style"] as? String == "custom")
        #expect(((presented?["frame"] as? [String: Any])?["y"] as? Double) == 0.5)
        #expect(second.log.contains("state restored from"))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: stateDir.path).filter { $0 != "state.json" }
        #expect(leftovers.isEmpty, "no temporary files left: \(leftovers)")
        second.signal(SIGTERM)
        #expect(second.waitForExit() == 0)

        // A configuration that changed: 'app' is now a tabs container (not restored), the shell's tabs are reordered
        // (the selected scene is found by name), 'panes' lost child 'b' (not restored).
        try """
            [[containers]]
            name = "shell"
            kind = "tabs"
            tabs = ["settings", "launcher", "home"]
            selected = "home"

            [[containers]]
            name = "app"
            kind = "tabs"
            tabs = ["home", "more"]

            [[containers]]
            name = "overlay"
            kind = "modal"
            base = "shell"

            [[containers]]
            name = "panes"
            kind = "custom"
            children = ["a", "c"]

            """.write(to: config, atomically: true, encoding: .utf8)
        let third = try start()
        let hello3 = try #require(try LineClient(path: third.socketPath).messages(until: { $0.type == "hello" }).last)
        #expect(hello3.visibleScenes == ["shell": "settings", "app": "home", "overlay": "card", "panes": "a"], "\(third.log)")
        #expect(third.log.contains("'app' is now a tabs container"), "\(third.log)")
        #expect(third.log.contains("'b' is no longer configured"), "\(third.log)")
        third.signal(SIGTERM)
        #expect(third.waitForExit() == 0)
    }

    @Test("a corrupt or unsafe state file is moved aside with a clear log, never fatal", arguments: ["corrupt", "version", "wrong-type", "unsafe", "symlink"])
    func badStateFileMovedAside(_ kind: String) throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let stateDir = dir.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: stateDir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let file = stateDir.appendingPathComponent("state.json")
        let valid = #"{"version":1,"containers":[{"name":"shell","kind":"tabs","tabs":["launcher","home","settings"],"selected":2}]}"#
        switch kind {
        case "corrupt": try #"{"version":1,"containers":[{"name":"shell","#.write(to: file, atomically: true, encoding: .utf8)
        case "version": try valid.replacingOccurrences(of: #""version":1"#, with: #""version":99"#).write(to: file, atomically: true, encoding: .utf8)
        case "wrong-type": try valid.replacingOccurrences(of: #""selected":2"#, with: #""selected":"2""#).write(to: file, atomically: true, encoding: .utf8)
        case "unsafe":
            try valid.write(to: file, atomically: true, encoding: .utf8)
            chmod(file.path, 0o666)
        default:
            let target = dir.appendingPathComponent("elsewhere.json")
            try valid.write(to: target, atomically: true, encoding: .utf8)
            try FileManager.default.createSymbolicLink(at: file, withDestinationURL: target)
        }
        let daemon = try DaemonProcess.holdingDemo(in: dir, ["--state-dir", stateDir.path])
        let client = try LineClient(path: daemon.socketPath)
        let hello = try #require(client.messages(until: { $0.type == "hello" }).last)
        #expect(hello.visibleScenes["shell"] == "home", "the configured state, not the bad file's")
        let suffix = kind == "unsafe" || kind == "symlink" ? "unsafe" : "corrupt"
        #expect(daemon.log.contains("was moved aside to \(stateDir.path)/state.json.\(suffix)-"), "\(daemon.log)")
        let reason = ["version": "it has version 99", "wrong-type": "containers[0].selected: expected an integer, got a string"][kind]
        if let reason { #expect(daemon.log.contains(reason), "the log says why: \(daemon.log)") }
        let names = try FileManager.default.contentsOfDirectory(atPath: stateDir.path)
        #expect(names.contains { $0.hasPrefix("state.json.\(suffix)-") }, "\(names)")
        // Saving works again afterwards, into a fresh private file.
        #expect(Self.request(client, #"{"op":"select-tab","id":1,"container":"shell","index":0,"animated":false}"#, id: 1)?.type == "reply")
        #expect(waitUntil { ((try? String(contentsOf: file, encoding: .utf8)) ?? "").contains(#""selected": 0"#) })
        var st = stat()
        #expect(lstat(file.path, &st) == 0 && st.st_mode & S_IFMT == S_IFREG && st.st_mode & 0o777 == 0o600)
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    // MARK: - Hostile clients

    @Test("a client that stops reading is cut off past the bound; the others are unaffected")
    func slowReaderCutOff() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (daemon, _) = try DaemonProcess.holdingDemo(in: dir, config: "[daemon]\nstall_timeout_s = 2\n")
        let good = try LineClient(path: daemon.socketPath)
        _ = good.messages(until: { $0.type == "hello" })
        let stalled = try LineClient(path: daemon.socketPath)
        // 20,000 pings and not a byte read: the replies fill the socket buffer, the daemon stops reading the
        // requests (backpressure), and once nothing has been read for stall_timeout_s it lets the client go.
        let pings = (0..<20_000).map { #"{"op":"ping","id":\#($0)}"# + "\n" }.joined()
        #expect(!stalled.sendRaw(Array(pings.utf8), timeoutSeconds: 1), "the daemon stops reading requests nobody reads the answers of")
        #expect(Hardening.waitForLog(daemon, "client too slow, disconnecting"), "\(daemon.log)")
        // What the stalled client finds when it reads at last (within the goodbye's 2 s): its earlier replies,
        // then the goodbye.
        let rest = stalled.messages(until: Self.isGoodbye, timeoutSeconds: 30)
        #expect(rest.last?.type == "goodbye")
        #expect(rest.last?["reason"] as? String == "backlog-exceeded")
        let seqs = rest.compactMap { $0["seq"] as? Int }
        #expect(seqs == Array(1...max(1, seqs.count)), "gap-free up to the goodbye")
        // The well-behaved client still gets answers and events.
        #expect(Self.request(good, #"{"op":"select-tab","id":7,"container":"shell","index":2}"#, id: 7)?.type == "reply")
        good.send(#"{"op":"ping","id":8}"#)
        #expect(good.messages(until: { $0.type == "reply" && $0["id"] as? Int == 8 }, timeoutSeconds: 10).last != nil)
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    // MARK: - Security

    static let readAll = """
        import socket, sys
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(sys.argv[1])
        except OSError as e:
            print("connect-failed", e.errno); sys.exit(0)
        s.settimeout(5)
        data = b""
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk: break
                data += chunk
        except socket.timeout:
            print("timeout", len(data)); sys.exit(0)
        print("closed", len(data))
        """

    @Test("an unauthorised peer (another uid) is rejected before any byte is sent", .enabled(if: Hardening.canSwitchUser, "needs root, setpriv and /usr/bin/python3 to act as uid 65534"))
    func otherUserRejectedBeforeAnyByte() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try DaemonProcess.holdingDemo(in: dir)
        // First gate: the socket file (0660, root's group) does not let nobody connect at all.
        let gated = try Hardening.runAsNobody(Self.readAll, arguments: [daemon.socketPath])
        #expect(gated.stdout.hasPrefix("connect-failed \(EACCES)"), "\(gated.stdout) \(gated.stderr)")
        // Second gate, with the file opened to everyone: the peer credentials. Closed at once, zero bytes.
        chmod(daemon.socketPath, 0o666)
        let refused = try Hardening.runAsNobody(Self.readAll, arguments: [daemon.socketPath])
        #expect(refused.stdout == "closed 0\n", "\(refused.stdout) \(refused.stderr)")
        #expect(Hardening.waitForLog(daemon, "refused connection: peer is not in the access policy"))
        #expect(daemon.log.contains("uid=65534"), "\(daemon.log)")
        // The owner is still served.
        #expect(try LineClient(path: daemon.socketPath).messages(until: { $0.type == "hello" }).last?.type == "hello")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    @Test("a read-only peer (another uid) reads, and its control request is denied with an error", .enabled(if: Hardening.canSwitchUser, "needs root, setpriv and /usr/bin/python3 to act as uid 65534"))
    func readOnlyOtherUserDenied() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (daemon, _) = try DaemonProcess.holdingDemo(in: dir, config: "[access]\nread_uids = [\(Hardening.nobody)]\ncontrol_uids = [\(getuid())]\n")
        chmod(daemon.socketPath, 0o666)
        let script = """
            import json, socket, sys
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(sys.argv[1])
            f = s.makefile("rwb")
            hello = json.loads(f.readline())
            print("hello", hello["access"]["read"], hello["access"]["control"])
            for line in [b'{"op":"select-tab","id":1,"container":"shell","index":2}\\n', b'{"op":"ping","id":2}\\n']:
                f.write(line); f.flush()
                while True:
                    m = json.loads(f.readline())
                    if m["type"] in ("reply", "error"):
                        print(m["type"], m.get("id"), m.get("code", ""))
                        break
            """
        let r = try Hardening.runAsNobody(script, arguments: [daemon.socketPath])
        #expect(r.stdout == "hello True False\nerror 1 forbidden\nreply 2 \n", "\(r.stdout) \(r.stderr)")
        #expect(Hardening.waitForLog(daemon, "control request refused: read-only peer"))
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    @Test("start-up refuses a socket directory every user can write (no sticky bit), accepts a sticky one")
    func socketDirectoryModes() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let open = dir.appendingPathComponent("open")
        try FileManager.default.createDirectory(at: open, withIntermediateDirectories: true)
        chmod(open.path, 0o777)
        let refused = try run(Paths.edgeswiped, ["--socket", open.appendingPathComponent("d.sock").path, "--replay", Paths.demo.path])
        #expect(refused.status == 69, "\(refused.stderr)")
        #expect(refused.stderr.contains("writable by every user (mode 0777, no sticky bit)"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: open.appendingPathComponent("d.sock").path))

        chmod(open.path, 0o1777)
        let daemon = try DaemonProcess(["--socket", open.appendingPathComponent("d.sock").path, "--replay", Paths.demo.path, "--wait-for-clients", "99"], directory: open)
        try daemon.waitUntilListening()
        // The socket the daemon binds itself is its owner's and group's only.
        var st = stat()
        #expect(stat(daemon.socketPath, &st) == 0 && st.st_mode & S_IFMT == S_IFSOCK && st.st_mode & 0o777 == 0o660, "mode \(String(st.st_mode & 0o7777, radix: 8))")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    /// A socket every user can write is a warning, unless the policy admits the seat's active session: that user
    /// is in no group of ours, so the installed socket unit opens the file to everyone and the credentials decide.
    @Test("start-up checks a socket systemd passed: one every user can write is reported, unless [access] admits the active session", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-socket-activate"), "systemd-socket-activate is not installed"),
          arguments: [(0o666 as mode_t, false, true), (0o660 as mode_t, false, false), (0o666 as mode_t, true, false)])
    func passedSocketMode(_ mode: mode_t, activeSession: Bool, warns: Bool) throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("activated.sock").path
        let config = activeSession
            ? ["--config", try DaemonProcess.writeConfig("[access]\nread = [\"active-session\", \"owner\"]\n", in: dir).path] : []
        // systemd-socket-activate binds the socket, then starts the daemon at the first connection: the mode is
        // set in between, as a socket unit's SocketMode= would.
        let daemon = try DaemonProcess(
            ["--replay", Paths.demo.path, "--wait-for-clients", "99"] + config, directory: dir, socketName: "activated.sock",
            // No system bus: "active-session" then admits nobody, and the daemon's own uid still reads.
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(dir.path)/no-bus"],
            launcher: ["/usr/bin/systemd-socket-activate", "-l", path, "-E", "ASAN_OPTIONS", "-E", "LSAN_OPTIONS", "-E", "TSAN_OPTIONS",
                       "-E", "DBUS_SYSTEM_BUS_ADDRESS"])
        #expect(waitUntil(timeout: 30) { FileManager.default.fileExists(atPath: path) }, "the launcher bound \(path)")
        #expect(chmod(path, mode) == 0)
        try daemon.waitUntilListening()
        #expect(try LineClient(path: path).messages(until: { $0.type == "hello" }).last?.type == "hello")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0, "\(daemon.log)")
        #expect(daemon.log.contains("using the socket systemd passed"), "\(daemon.log)")
        #expect(daemon.log.contains("is writable by every user (mode 0666)") == warns, "\(daemon.log)")
    }

    @Test("start-up checks the state directory and the configuration file: unsafe ones are reported, never fatal")
    func stateDirectoryAndConfigModes() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let stateDir = dir.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: stateDir, withIntermediateDirectories: true)
        chmod(stateDir.path, 0o777)
        let config = try DaemonProcess.writeConfig("[daemon]\ntick_hz = 60\n", in: dir)
        chmod(config.path, 0o666)
        let daemon = try DaemonProcess(
            ["--socket", dir.appendingPathComponent("d.sock").path, "--config", config.path, "--state-dir", stateDir.path,
             "--replay", Paths.demo.path, "--wait-for-clients", "99"], directory: dir)
        try daemon.waitUntilListening()
        #expect(daemon.log.contains("refusing to keep state there"), "\(daemon.log)")
        #expect(daemon.log.contains("configuration \(config.path) is writable by every user"), "\(daemon.log)")
        let client = try LineClient(path: daemon.socketPath)
        _ = client.messages(until: { $0.type == "hello" })
        #expect(Self.request(client, #"{"op":"select-tab","id":1,"container":"shell","index":2,"animated":false}"#, id: 1)?.type == "reply")
        #expect(!FileManager.default.fileExists(atPath: stateDir.appendingPathComponent("state.json").path), "nothing written there")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    @Test("two daemons on one state directory: the second runs without saving rather than overwrite the first's state")
    func stateDirectoryLocked() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let stateDir = dir.appendingPathComponent("state").path
        let first = try DaemonProcess(
            ["--socket", dir.appendingPathComponent("a.sock").path, "--state-dir", stateDir, "--replay", Paths.demo.path, "--wait-for-clients", "99"],
            directory: dir, socketName: "a.sock")
        try first.waitUntilListening()
        let secondDir = dir.appendingPathComponent("second")
        try FileManager.default.createDirectory(at: secondDir, withIntermediateDirectories: true)
        let second = try DaemonProcess(
            ["--socket", secondDir.appendingPathComponent("b.sock").path, "--state-dir", stateDir, "--replay", Paths.demo.path, "--wait-for-clients", "99"],
            directory: secondDir, socketName: "b.sock")
        try second.waitUntilListening()
        #expect(second.log.contains("is in use by another edgeswiped"), "\(second.log)")
        first.signal(SIGTERM)
        second.signal(SIGTERM)
        #expect(first.waitForExit() == 0)
        #expect(second.waitForExit() == 0)
    }
}
