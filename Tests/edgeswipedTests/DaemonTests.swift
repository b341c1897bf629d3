import Foundation
import Glibc
import Testing

/// The daemon as users run it: a real subprocess with `--replay`, real Unix sockets in temp dirs.
@Suite("edgeswiped end to end", .serialized)
struct DaemonTests {
    static func isGoodbye(_ m: [String: Any]) -> Bool { m.type == "goodbye" }

    @Test("1 and 50 clients get identical phase, terminal and lifecycle sequences, with gap-free seq", arguments: [1, 50])
    func identicalStreams(_ count: Int) throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try DaemonProcess.replaying(Paths.demo, in: dir, clients: count)
        let clients = try (0..<count).map { _ in try LineClient(path: daemon.socketPath) }
        var streams: [[String]] = []
        // Read every client at once: the daemon's goodbye waits at most 2 s for a client to drain.
        // Each reader is used by exactly one iteration; the results go through a lock.
        nonisolated(unsafe) let readers = clients
        let collected = LockedSlots<[[String: Any]]>(count: count, initial: [])
        // One thread per client: concurrentPerform runs only as many iterations at once as there are cores (2 here),
        // so the other clients were not read while the daemon's goodbye waited for them, and their streams ended
        // early under load (seen under AddressSanitizer).
        let done = DispatchGroup()
        for i in 0..<count {
            done.enter()
            Thread.detachNewThread {
                collected[i] = readers[i].messages(until: Self.isGoodbye)
                done.leave()
            }
        }
        #expect(done.wait(timeout: .now() + 120) == .success, "every client read to its goodbye")
        for messages in collected.values {
            #expect(messages.first?.type == "hello")
            #expect(messages.last?.type == "goodbye")
            let seqs = messages.compactMap { $0["seq"] as? Int }
            #expect(seqs == Array(1...max(1, messages.count)))
            // The gate holds the replay, device included, until the last client's hello is queued: every client
            // has an empty device list in its hello and is then told `device` `added`.
            let hello = messages.first { $0.type == "hello" }
            let lines = messages.compactMap(\.phaseLine)
            let devices = hello?["devices"] as? [Any]
            #expect(devices.map(\.isEmpty) == true, "no device before the gate opened")
            #expect(messages.first { $0.type == "device" }?["change"] as? String == "added")
            #expect(lines.first == "device")
            streams.append(lines)
        }
        #expect(daemon.waitForExit() == 0, "\(daemon.log)")
        let first = try #require(streams.first)
        #expect(first.filter { $0.hasPrefix("transition") && ($0.contains(" completed ") || $0.contains(" cancelled ")) }.count == 6)
        for other in streams.dropFirst() { #expect(other == first) }
    }

    @Test("malformed and oversized lines get an error reply and the connection stays up")
    func malformedLines() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try DaemonProcess.holdingDemo(in: dir)
        let client = try LineClient(path: daemon.socketPath)
        #expect(client.messages(until: { $0.type == "hello" }).last?.type == "hello")
        for bad in ["{not json", #"{"op":"frobnicate","id":7}"#, #"{"op":"push","id":8}"#, String(repeating: "x", count: 70_000)] {
            client.send(bad)
            let reply = client.messages(until: { $0.type == "error" }, timeoutSeconds: 10).last
            #expect(reply?.type == "error", "no error for \(bad.prefix(40))")
            #expect((reply?["message"] as? String)?.isEmpty == false)
        }
        client.send(#"{"op":"ping","id":"after"}"#)
        let pong = client.messages(until: { $0.type == "reply" }, timeoutSeconds: 10).last
        #expect(pong?["id"] as? String == "after")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    @Test("control requests need control access; read-only peers get an error")
    func controlVersusReadOnly() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // We may read (our own uid is the default reader), but only uid 4242 may control.
        let (daemon, _) = try DaemonProcess.holdingDemo(in: dir, config: "[access]\ncontrol_uids = [4242]\n")
        let client = try LineClient(path: daemon.socketPath)
        let hello = client.messages(until: { $0.type == "hello" }).last
        #expect((hello?["access"] as? [String: Any])?["control"] as? Bool == false)
        client.send(#"{"op":"select-tab","id":1,"container":"shell","index":0}"#)
        let denied = client.messages(until: { $0.type == "error" || $0.type == "reply" }, timeoutSeconds: 10).last
        #expect(denied?.type == "error")
        #expect(denied?["code"] as? String == "forbidden")
        client.send(#"{"op":"status","id":2}"#)
        #expect(client.messages(until: { $0.type == "reply" }, timeoutSeconds: 10).last?["id"] as? Int == 2)
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    @Test("a control request runs a transition and the reply names it")
    func controlRequest() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try DaemonProcess.holdingDemo(in: dir)
        let r = try run(Paths.edgeswipectl, ["tab", "shell", "settings", "--socket", daemon.socketPath])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("transition 1 started"))
        let refused = try run(Paths.edgeswipectl, ["pop", "app", "--socket", daemon.socketPath])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("already at the root"))
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    @Test("a peer whose uid is not allowed is rejected before any byte is sent; monitor --json and status say so and exit 77")
    func peerRejected() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Only uid 4242 may connect: the test's own uid (the daemon's too) is not in the list.
        // Listening means accepting: the probe connection is refused like any other.
        let (daemon, _) = try DaemonProcess.holdingDemo(in: dir, config: "[access]\nread_uids = [4242]\n")
        let client = try LineClient(path: daemon.socketPath)
        // The daemon closes the connection: end of stream, with no byte before it (a read that merely timed out
        // would leave `closedByPeer` false).
        var byte: UInt8 = 0
        var p = pollfd(fd: client.fd, events: Int16(POLLIN), revents: 0)
        #expect(poll(&p, 1, 30_000) == 1, "the connection was neither closed nor written to within 30 s")
        #expect(read(client.fd, &byte, 1) == 0, "a rejected peer gets end of stream, not a byte")
        let refused = "refused connection: peer is not in the access policy"
        #expect(Hardening.waitForLog(daemon, refused), "\(daemon.log)")
        // A script reading the raw stream is told so, and fails: the end of a stream that never began is no stream.
        let monitor = try run(Paths.edgeswipectl, ["monitor", "--json", "--count", "1", "--socket", daemon.socketPath])
        #expect(monitor.status == 77 && monitor.stdout.isEmpty, "exit \(monitor.status): \(monitor.stdout)")
        #expect(monitor.stderr.contains("does not admit uid \(getuid())"), "\(monitor.stderr)")
        // The client library says the same for every request: a refusal, not a daemon that is not there (69).
        let status = try run(Paths.edgeswipectl, ["status", "--socket", daemon.socketPath])
        #expect(status.status == 77 && status.stderr.contains("does not admit uid \(getuid())"), "exit \(status.status): \(status.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        let line = daemon.log.split(separator: "\n").first { $0.contains(refused) } ?? ""
        #expect(line.contains("uid=\(getuid())"), "the log names the refused uid: \(line)")
    }

    @Test("socket activation: the daemon serves the socket systemd passes", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-socket-activate"), "systemd-socket-activate is not installed"))
    func socketActivation() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("activated.sock").path
        // systemd-socket-activate binds and listens, then execs the daemon with LISTEN_FDS=1 and LISTEN_PID.
        let daemon = try DaemonProcess(
            ["--replay", Paths.demo.path, "--wait-for-clients", "1", "--speed", "4"], directory: dir, socketName: "activated.sock",
            // systemd-socket-activate passes on only the variables it is told to: the sanitizers' too (scripts/sanitizers.sh;
            // without ASAN_OPTIONS LeakSanitizer would fail the daemon for TOMLKit's known leaks).
            launcher: ["/usr/bin/systemd-socket-activate", "-l", path, "-E", "ASAN_OPTIONS", "-E", "LSAN_OPTIONS", "-E", "TSAN_OPTIONS"])
        try daemon.waitUntilListening()
        let client = try LineClient(path: path)
        let messages = client.messages(until: Self.isGoodbye)
        #expect(messages.first?.type == "hello")
        #expect(messages.contains { $0.type == "transition" && $0["phase"] as? String == "completed" })
        #expect(daemon.waitForExit() == 0, "\(daemon.log)")
        #expect(daemon.log.contains("using the socket systemd passed"))
    }

    @Test("sd_notify: READY=1 and a status, WATCHDOG=1 within WATCHDOG_USEC, RELOADING=1 on SIGHUP, then STOPPING=1, over a datagram socket standing in for systemd")
    func notify() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let notify = try NotifyListener(path: dir.appendingPathComponent("notify").path)
        let daemon = try DaemonProcess.holdingDemo(
            in: dir, environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "400000"], waitUntilListening: false)
        #expect(notify.wait(for: "READY=1", timeoutSeconds: 30))
        #expect(notify.received.contains("STATUS="))
        #expect(notify.wait(for: "WATCHDOG=1", timeoutSeconds: 30), "\(notify.received)")
        daemon.signal(SIGHUP)
        #expect(notify.wait(for: "RELOADING=1", timeoutSeconds: 30), "\(notify.received)")
        daemon.signal(SIGTERM)
        #expect(notify.wait(for: "STOPPING=1", timeoutSeconds: 30))
        #expect(daemon.waitForExit() == 0)
    }

    @Test("malformed socket activation variables stop the start-up, and the message names them", arguments: ["x", "0", "-1"])
    func malformedActivation(_ count: String) throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // LISTEN_PID must name the daemon itself: the shell's own pid, which exec hands on.
        let daemon = try DaemonProcess(
            ["--socket", dir.appendingPathComponent("d.sock").path, "--replay", Paths.demo.path, "--wait-for-clients", "99"],
            directory: dir, launcher: ["/bin/sh", "-c", "LISTEN_PID=$$ LISTEN_FDS=\(count) exec \"$0\" \"$@\""])
        #expect(daemon.waitForExit() == 69, "\(daemon.log)")
        #expect(daemon.log.contains("socket activation: sd_listen_fds failed"), "\(daemon.log)")
        #expect(daemon.log.contains("LISTEN_FDS=\(count)"), "\(daemon.log)")
    }

    @Test("a malformed WATCHDOG_USEC is logged and the daemon serves on")
    func malformedWatchdog() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try DaemonProcess.holdingDemo(in: dir, environment: ["WATCHDOG_USEC": "soon"])
        let client = try LineClient(path: daemon.socketPath)
        #expect(client.messages(until: { $0.type == "hello" }).last != nil)
        #expect(daemon.log.contains("the watchdog is not fed: sd_watchdog_enabled failed"), "\(daemon.log)")
        #expect(daemon.log.contains("WATCHDOG_USEC=soon"), "\(daemon.log)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    @Test("SIGHUP with a bad configuration keeps the old one and tells clients; a good one is reloaded")
    func reload() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (daemon, config) = try DaemonProcess.holdingDemo(in: dir, config: "[daemon]\ntick_hz = 60\n")
        let client = try LineClient(path: daemon.socketPath)
        _ = client.messages(until: { $0.type == "hello" })
        try "[touchscreen]\nedge_zone_mm = 45\n".write(to: config, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        let rejected = client.messages(until: { $0.type == "config" }, timeoutSeconds: 15).last
        #expect(rejected?["result"] as? String == "rejected")
        #expect((rejected?["message"] as? String)?.contains("edge_zone_mm") == true)
        try "[daemon]\ntick_hz = 30\n".write(to: config, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        let reloaded = client.messages(until: { $0.type == "config" }, timeoutSeconds: 15).last
        #expect(reloaded?["result"] as? String == "reloaded")
        client.send(#"{"op":"ping","id":1}"#)
        #expect(client.messages(until: { $0.type == "reply" }, timeoutSeconds: 10).last != nil, "still serving")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        #expect(daemon.log.contains("edge_zone_mm"))
    }

    @Test("SIGTERM during a transition: the client gets its terminal event and a goodbye")
    func terminateMidTransition() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try DaemonProcess(
            ["--socket", dir.appendingPathComponent("d.sock").path, "--replay", Paths.demo.path, "--wait-for-clients", "1"], directory: dir)
        try daemon.waitUntilListening()
        let client = try LineClient(path: daemon.socketPath)
        let before = client.messages(until: { $0.type == "transition" && $0["phase"] as? String == "began" })
        let id = try #require(before.last?["id"] as? Int)
        daemon.signal(SIGTERM)
        let after = client.messages(until: Self.isGoodbye)
        let terminals = after.filter { $0.type == "transition" && $0["id"] as? Int == id && ["completed", "cancelled"].contains($0["phase"] as? String ?? "") }
        #expect(terminals.count == 1)
        #expect(after.last?.type == "goodbye")
        #expect(daemon.waitForExit() == 0, "\(daemon.log)")
    }

    @Test("a second daemon on a live socket is refused; a stale socket file is replaced")
    func liveAndStaleSockets() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("d.sock").path
        let first = try DaemonProcess(["--socket", path, "--replay", Paths.demo.path, "--wait-for-clients", "99"], directory: dir)
        try first.waitUntilListening()
        let second = try run(Paths.edgeswiped, ["--socket", path, "--replay", Paths.demo.path])
        #expect(second.status == 69)
        #expect(second.stderr.contains(path))
        first.signal(SIGKILL)
        _ = first.waitForExit()
        #expect(FileManager.default.fileExists(atPath: path), "a killed daemon leaves a stale socket")
        let third = try DaemonProcess(["--socket", path, "--replay", Paths.demo.path, "--wait-for-clients", "99"], directory: dir)
        try third.waitUntilListening()
        third.signal(SIGTERM)
        #expect(third.waitForExit() == 0)
    }
}
