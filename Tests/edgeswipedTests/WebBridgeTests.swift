import EdgeSwipeTestSupport
import Foundation
import Glibc
import Testing

/// `edgeswipe-web` against a real daemon: access control (token, Host, Origin), read-only and control, the
/// daemon's own access rules, and reconnection.
@Suite("edgeswipe-web", .serialized)
struct WebBridgeTests {
    @Test("without the token (or with a wrong one, or a foreign Host) every request gets 403 and no data")
    func tokenRequired() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try DaemonProcess.holdingDemo(in: dir)
        let bridge = try BridgeProcess(socket: daemon.socketPath, directory: dir)
        let cookie = "edgeswipe-token-\(bridge.port)=\(bridge.token)"
        for path in ["/", "/edgeswipe.js", "/about", "/stream", "/anything"] {
            for headers in [[:], ["Cookie": "edgeswipe-token-\(bridge.port)=wrong"], ["Authorization": "Bearer x\(bridge.token)"], ["Cookie": cookie, "Host": "evil.example:\(bridge.port)"]] {
                let r = try httpGet(port: bridge.port, path: path, headers: headers)
                #expect(r.status == 403, "\(path) \(headers)")
                let body = String(decoding: r.body, as: UTF8.self)
                #expect(body.hasPrefix("403 forbidden") && !body.contains("\"type\""), "no data leaks: \(body)")
            }
        }
        let page = try httpGet(port: bridge.port, path: "/", headers: ["Cookie": cookie])
        #expect(page.status == 200)
        #expect(String(decoding: page.body, as: UTF8.self).contains("<html") || String(decoding: page.body, as: UTF8.self).contains("<!doctype"))
        #expect(page.headers["content-security-policy"] != nil)
        // One line says what is shown, and links to the page that says what each part shows and where the docs are.
        #expect(String(decoding: page.body, as: UTF8.self).contains(#"The daemon's containers, live"#))
        #expect(String(decoding: page.body, as: UTF8.self).contains(#"<a href="/about">"#))
        let about = try httpGet(port: bridge.port, path: "/about", headers: ["Cookie": cookie])
        #expect(about.status == 200 && about.headers["content-type"]?.hasPrefix("text/html") == true)
        #expect(String(decoding: about.body, as: UTF8.self).contains("docs/PROTOCOL.md"))
        let module = try httpGet(port: bridge.port, path: "/edgeswipe.js", headers: ["Authorization": "Bearer \(bridge.token)"])
        #expect(module.status == 200 && module.headers["content-type"]?.hasPrefix("text/javascript") == true)
        // A WebSocket without the token is refused before any byte of the stream.
        let refused = try wsProbe(port: bridge.port, token: nil, origin: "http://127.0.0.1:\(bridge.port)")
        #expect(refused.first?.contains(" 101 ") == false)
        #expect(refused.last == "body-bytes 0")
    }

    @Test("the first load trades the token for a cookie and a URL without it")
    func firstLoad() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try DaemonProcess.holdingDemo(in: dir)
        let bridge = try BridgeProcess(socket: daemon.socketPath, directory: dir)
        #expect(bridge.url.host == "127.0.0.1")
        #expect(bridge.token.count == 64)
        let r = try httpGet(port: bridge.port, path: "/?token=\(bridge.token)")
        #expect(r.status == 303)
        #expect(r.headers["location"] == "/")
        let cookie = try #require(r.headers["set-cookie"])
        #expect(cookie.hasPrefix("edgeswipe-token-\(bridge.port)=\(bridge.token)"))
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
    }

    @Test("a WebSocket from another origin is refused; from the page's own origin it gets the welcome and the hello")
    func origin() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try DaemonProcess.holdingDemo(in: dir)
        let bridge = try BridgeProcess(socket: daemon.socketPath, directory: dir)
        for foreign in ["http://evil.example", "http://127.0.0.1:\(bridge.port + 1)", "https://127.0.0.1:\(bridge.port)", "null"] {
            let lines = try wsProbe(port: bridge.port, token: bridge.token, origin: foreign)
            #expect(lines.first?.contains(" 101 ") == false, "\(foreign) was let in")
            #expect(lines.last == "body-bytes 0", "no data for \(foreign)")
        }
        let lines = try wsProbe(port: bridge.port, token: bridge.token, origin: "http://127.0.0.1:\(bridge.port)", until: ["type=hello"])
        #expect(lines.first?.contains(" 101 ") == true)
        let welcome = jsonObject(lines[1])
        #expect(welcome["type"] as? String == "bridge" && welcome["event"] as? String == "welcome")
        #expect(welcome["control"] as? Bool == false)
        #expect(jsonObject(lines.last ?? "")["type"] as? String == "hello")
        // "localhost" is the same bridge, under another name: allowed when Host and Origin agree.
        let local = try wsProbe(port: bridge.port, token: bridge.token, origin: "http://localhost:\(bridge.port)", host: "localhost:\(bridge.port)", until: ["type=hello"])
        #expect(local.first?.contains(" 101 ") == true)
    }

    @Test("a read-only bridge refuses a push; with --control it forwards it and the daemon runs it")
    func control() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try DaemonProcess.holdingDemo(in: dir)
        let push = #"{"op":"push","id":7,"container":"app","scene":"details"}"#
        let readOnly = try BridgeProcess(socket: daemon.socketPath, directory: dir)
        let refused = try wsProbe(port: readOnly.port, token: readOnly.token, send: [push], until: ["type=bridge-error"])
        let error = jsonObject(refused.last ?? "")
        #expect(error["code"] as? String == "read-only")
        #expect(error["id"] as? Int == 7)
        // Nothing reached the daemon: its app stack is still the root alone.
        let status = try run(Paths.edgeswipectl, ["status", "--socket", daemon.socketPath])
        #expect(!status.stdout.contains("details"), "\(status.stdout)")

        let controlling = try BridgeProcess(socket: daemon.socketPath, directory: dir, arguments: ["--control"])
        let accepted = try wsProbe(port: controlling.port, token: controlling.token, send: [push], until: ["type=transition", "phase=completed"])
        #expect(accepted.contains { jsonObject($0)["type"] as? String == "bridge-reply" && jsonObject($0)["id"] as? Int == 7 })
        #expect(accepted.contains { jsonObject($0)["to"] as? String == "details" })
        // Only the five ops a page may send; the protocol's own decoder judges the rest.
        let others = try wsProbe(port: controlling.port, token: controlling.token, send: [#"{"op":"status","id":1}"#, #"{"op":"push","container":"app"}"#, "not json"], until: ["code=malformed-json"])
        let codes = others.map { jsonObject($0) }.filter { $0["type"] as? String == "bridge-error" }.compactMap { $0["code"] as? String }
        #expect(codes.count == 3 && codes[0] == "unsupported" && codes[2] == "malformed-json", "\(codes)")
    }

    @Test("RFC 6455: a text frame that is not UTF-8 closes the tab with 1007, an unmasked frame with 1002; neither reaches the daemon")
    func frameRules() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try DaemonProcess.holdingDemo(in: dir)
        let bridge = try BridgeProcess(socket: daemon.socketPath, directory: dir, arguments: ["--control"])
        let invalid = Array(#"{"op":"push","id":7,"container":"app","scene":"bad"#.utf8) + [0xFF, 0xFE] + Array(#"utf8"}"#.utf8)
        let closed = try wsProbe(port: bridge.port, token: bridge.token, sendBytes: [invalid], until: ["type=bridge-reply"])
        #expect(closed.last == "closed 1007", "\(closed.suffix(3))")
        #expect(!closed.contains { $0.contains("bridge-reply") })
        let unmasked = try wsProbe(port: bridge.port, token: bridge.token, send: [#"{"op":"push","id":8,"container":"app","scene":"details"}"#], unmasked: true, until: ["type=bridge-reply"])
        #expect(unmasked.last == "closed 1002", "\(unmasked.suffix(3))")
        let status = try run(Paths.edgeswipectl, ["status", "--socket", daemon.socketPath])
        #expect(!status.stdout.contains("details") && !status.stdout.contains("bad"), "nothing reached the daemon: \(status.stdout)")
        // A well-formed tab still works.
        let fine = try wsProbe(port: bridge.port, token: bridge.token, send: [#"{"op":"push","id":9,"container":"app","scene":"details"}"#], until: ["type=bridge-reply"])
        #expect(fine.contains { jsonObject($0)["type"] as? String == "bridge-reply" })
    }

    @Test("half-open connections cannot crowd out the page: the quietest makes room past the cap, and each is closed at the header deadline")
    func halfOpenConnections() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try DaemonProcess.holdingDemo(in: dir)
        let bridge = try BridgeProcess(socket: daemon.socketPath, directory: dir)
        // 700 connections that start a request and never finish its headers (no token needed for that).
        let parked = try (0..<700).map { _ in try HalfOpenConnection(port: bridge.port) }
        let pid = bridge.process.processIdentifier
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
        #expect(descriptors < 512 + 40, "the bridge holds \(descriptors) descriptors for 700 parked connections")
        let page = try httpGet(port: bridge.port, path: "/", headers: ["Authorization": "Bearer \(bridge.token)"])
        #expect(page.status == 200, "the page loads while they are parked")
        // The header deadline (10 s) closes every one of them.
        #expect(waitUntil(timeout: 40) { parked.allSatisfy(\.isClosedByPeer) }, "\(parked.filter { !$0.isClosedByPeer }.count) still open")
    }

    @Test("past the cap on tabs a new tab is refused (400, no WebSocket), and gets in once one has left")
    func tabCap() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try DaemonProcess.holdingDemo(in: dir)
        let bridge = try BridgeProcess(socket: daemon.socketPath, directory: dir)
        let storm = try run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["python3", Paths.webHelpers.appendingPathComponent("wsstorm.py").path, "\(bridge.port)", bridge.token, "70"], timeoutSeconds: 60)
        #expect(storm.status == 0, "\(storm.stderr)")
        #expect(storm.stdout.contains("opened 64"), "\(storm.stdout)")
        #expect(storm.stdout.contains("refused 65 HTTP/1.1 400"), "\(storm.stdout)")
        #expect(bridge.stderr.contains("refused a tab: 64 are open"), "\(bridge.stderr)")
        // The storm's tabs are gone: a new one is served.
        #expect(waitUntil(timeout: 20) {
            (try? wsProbe(port: bridge.port, token: bridge.token, origin: "http://127.0.0.1:\(bridge.port)", until: ["type=hello"]))?.first?.contains(" 101 ") == true
        })
    }

    @Test("the bridge refuses to start where the daemon's access rules refuse its user")
    func refusedByDaemon() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Only uid 4242 may read: not the user the bridge runs as (the daemon's own uid is then not implied).
        let other = getuid() == 4242 ? 4243 : 4242
        let (daemon, _) = try DaemonProcess.holdingDemo(in: dir, config: "[access]\nread_uids = [\(other)]\ncontrol_uids = [\(other)]\n")
        let r = try run(Paths.edgeswipeWeb, ["--socket", daemon.socketPath, "--listen", "127.0.0.1:0"], timeoutSeconds: 30)
        #expect(r.status == 77, "\(r.stderr)")
        #expect(r.stderr.contains("does not admit uid \(getuid())"), "\(r.stderr)")
        #expect(r.stdout.isEmpty, "no URL is printed")
        // No daemon at all: 69, saying so.
        let none = try run(Paths.edgeswipeWeb, ["--socket", dir.appendingPathComponent("none.sock").path, "--listen", "127.0.0.1:0"], timeoutSeconds: 30)
        #expect(none.status == 69, "\(none.stderr)")
    }

    @Test("--control where the daemon grants read only: refused at start")
    func controlNotGranted() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let other = getuid() == 4242 ? 4243 : 4242
        let (daemon, _) = try DaemonProcess.holdingDemo(in: dir, config: "[access]\nread_uids = [\(getuid())]\ncontrol_uids = [\(other)]\n")
        let r = try run(Paths.edgeswipeWeb, ["--socket", daemon.socketPath, "--listen", "127.0.0.1:0", "--control"], timeoutSeconds: 30)
        #expect(r.status == 77, "\(r.stderr)")
        #expect(r.stderr.contains("--control"), "\(r.stderr)")
    }

    @Test("listening beyond loopback needs --allow-remote, and then warns", arguments: [
        (["--listen", "0.0.0.0:0"], Int32(64)),
        (["--listen", "nonsense"], Int32(64)),
        (["--listen", "127.0.0.1:70000"], Int32(64)),
    ])
    func listen(_ arguments: [String], _ status: Int32) throws {
        let r = try run(Paths.edgeswipeWeb, ["--socket", "/nonexistent.sock"] + arguments, timeoutSeconds: 30)
        #expect(r.status == status, "\(r.stderr)")
        #expect(r.stdout.isEmpty)
        let allowed = try run(Paths.edgeswipeWeb, ["--socket", "/nonexistent.sock", "--listen", "0.0.0.0:0", "--allow-remote"], timeoutSeconds: 30)
        #expect(allowed.stderr.contains("warning: listening on 0.0.0.0"), "\(allowed.stderr)")
    }

    @Test("when the daemon restarts, tabs are told, and resume from the new hello")
    func reconnect() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var daemon: DaemonProcess? = try DaemonProcess.holdingDemo(in: dir)
        let socket = daemon!.socketPath
        let bridge = try BridgeProcess(socket: socket, directory: dir)
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = ["python3", Paths.webHelpers.appendingPathComponent("wsprobe.py").path, "--port", "\(bridge.port)", "--token", bridge.token, "--count", "5", "--timeout", "60"]
        let out = Pipe()
        probe.standardOutput = out
        try probe.run()
        // welcome + hello, then the restart's notice and the new hello.
        let reader = LineReader(out.fileHandleForReading)
        #expect(reader.next(timeout: 20)?.contains(" 101 ") == true)
        #expect(jsonObject(reader.next(timeout: 20) ?? "")["event"] as? String == "welcome")
        #expect(jsonObject(reader.next(timeout: 20) ?? "")["type"] as? String == "hello")
        daemon!.signal(SIGTERM)
        _ = daemon!.waitForExit()
        daemon = nil
        // The daemon says goodbye (shutdown) before it goes; then the bridge tells the tab.
        var notice = jsonObject(reader.next(timeout: 20) ?? "")
        if notice["type"] as? String == "goodbye" { notice = jsonObject(reader.next(timeout: 20) ?? "") }
        #expect(notice["event"] as? String == "daemon-disconnected")
        let restarted = try DaemonProcess.holdingDemo(in: dir)
        #expect(jsonObject(reader.next(timeout: 30) ?? "")["type"] as? String == "hello")
        probe.waitUntilExit()
        _ = restarted
    }
}

/// Lines from a pipe, each waited for with a deadline.
final class LineReader: @unchecked Sendable {
    private let handle: FileHandle
    private var buffer = Data()
    init(_ handle: FileHandle) { self.handle = handle }

    func next(timeout: Double) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            var p = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
            if poll(&p, 1, 100) > 0 {
                let chunk = handle.availableData
                if chunk.isEmpty { return nil }
                buffer.append(chunk)
            }
        }
        return nil
    }
}
