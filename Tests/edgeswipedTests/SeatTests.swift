import EdgeSwipeTestSupport
import Foundation
import Glibc
import Testing

/// The daemon as part of the user's seat, against a real dbus-daemon with python3-dbusmock's logind and
/// iio-sensors-proxy (`scripts/seat-bus-mock.py`): who the seat's active session admits, rotation set by a client and
/// by the accelerometer, and what a client cannot ask for.
@Suite(.serialized, .enabled(if: MockSeatBus.isAvailable, "needs dbus-daemon and python3-dbusmock (scripts/deps.sh)"))
struct SeatTests {
    static let sessionAccess = "[access]\nread = [\"active-session\"]\ncontrol = [\"active-session\"]\n"

    /// The demo, held at its gate until `clients` have connected, with the system bus of `bus`.
    private func daemon(
        in dir: URL, config: String, bus: MockSeatBus, clients: Int = 99, state: Bool = false, speed: Double = 1
    ) throws -> DaemonProcess {
        let file = try DaemonProcess.writeConfig(config, in: dir)
        var arguments = ["--socket", dir.appendingPathComponent("d.sock").path, "--config", file.path]
        if state { arguments += ["--state-dir", dir.appendingPathComponent("state").path] }
        arguments += ["--replay", Paths.demo.path, "--wait-for-clients", "\(clients)", "--speed", "\(speed)"]
        let daemon = try DaemonProcess(arguments, directory: dir, environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        return daemon
    }

    /// A connection that is admitted gets its hello; a refused one gets end of stream and no byte.
    private func admitted(_ path: String) -> Bool {
        guard let client = try? LineClient(path: path) else { return false }
        return client.readLine(timeoutSeconds: 10)?.contains(#""type":"hello""#) == true
    }

    @Test("a session switch closes the old session's clients with goodbye session-inactive; the new session's user is admitted")
    func sessionSwitch() throws {
        let bus = try MockSeatBus(["logind"])
        let me = getuid()
        try bus.send("session s1 \(me) me")
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try daemon(in: dir, config: Self.sessionAccess, bus: bus)
        try daemon.waitUntilListening()

        let client = try LineClient(path: daemon.socketPath)
        let hello = client.messages(until: { $0.type == "hello" }).last
        #expect((hello?["access"] as? [String: Any])?["control"] as? Bool == true, "the active session's user may control")

        // Another user's session becomes active: our client is told why and let go, with nothing after it.
        try bus.send("session s2 4242 other")
        let seen = client.messages(until: { $0.type == "goodbye" }, timeoutSeconds: 10)
        #expect(seen.last?.type == "goodbye")
        #expect(seen.last?["reason"] as? String == "session-inactive")
        #expect(client.readLine(timeoutSeconds: 10) == nil && client.closedByPeer, "nothing follows the goodbye")
        #expect(!admitted(daemon.socketPath), "the old session's user is refused while s2 is active")

        // Our session is active again: we are admitted again.
        try bus.send("activate s1")
        #expect(waitUntil(timeout: 10) { admitted(daemon.socketPath) }, "\(daemon.log)")
        // No session at all admits nobody.
        try bus.send("deactivate")
        #expect(waitUntil(timeout: 10) { !admitted(daemon.socketPath) }, "\(daemon.log)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        #expect(daemon.log.contains("active session on seat0: session s2 (uid 4242)"), "\(daemon.log)")
    }

    @Test("a session whose user logind cannot tell yet is asked about again, not left refused until the next switch")
    func sessionReadRetried() throws {
        let bus = try MockSeatBus(["logind"])
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try daemon(in: dir, config: Self.sessionAccess, bus: bus)
        try daemon.waitUntilListening()
        #expect(!admitted(daemon.socketPath), "no session: nobody is admitted")
        // The seat switches to a session whose user cannot be read (no such object yet, as a call that timed out).
        try bus.send("activate-ahead s7")
        #expect(waitUntil(timeout: 10) { daemon.log.contains("asking again for the active session") }, "\(daemon.log)")
        #expect(!admitted(daemon.socketPath), "closed while the session's user is unknown")
        // logind can answer now; no further seat signal comes, and the daemon's next question admits us.
        try bus.send("add-session s7 \(getuid()) me")
        #expect(waitUntil(timeout: 15) { admitted(daemon.socketPath) }, "\(daemon.log)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    /// When each gesture or transition message arrived, read for `seconds` of this clock (the stream is observed
    /// for a window: a stall shows as a gap, and one that lasts to the end of the window as a gap up to its end).
    private func arrivals(_ client: LineClient, for seconds: Double) -> (times: [ContinuousClock.Instant], end: ContinuousClock.Instant) {
        let end = ContinuousClock.now + .seconds(seconds)
        var times: [ContinuousClock.Instant] = []
        while ContinuousClock.now < end {
            guard let line = client.readLine(timeoutSeconds: max(0.01, Self.seconds(end - .now))) else { continue }
            if line.contains(#""type":"gesture""#) || line.contains(#""type":"transition""#) { times.append(.now) }
        }
        return (times, end)
    }

    private func largestGap(_ times: [ContinuousClock.Instant], until end: ContinuousClock.Instant) -> Double {
        Self.seconds(zip(times, times.dropFirst() + [end]).map { $1 - $0 }.max() ?? .zero)
    }

    private static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    @Test("a slow logind does not stall touches: while 20 session switches wait 10 s for logind's answers, the stream keeps its pace")
    func slowLogindDoesNotStallTouches() throws {
        let bus = try MockSeatBus(["slow-logind"])
        try bus.send("session c 4243 carol")
        try bus.send("session d 4244 dave")
        try bus.send("session a 4242 alice")
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // The stream's reader is admitted by its uid, whoever is active: what it sees is the input thread's pace.
        let file = try DaemonProcess.writeConfig("[access]\nread = [\"active-session\"]\nread_uids = [\(getuid())]\n", in: dir)
        let daemon = try DaemonProcess(
            ["--socket", dir.appendingPathComponent("d.sock").path, "--config", file.path, "--replay", Paths.demo.path, "--loop", "--speed", "4"],
            directory: dir, environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        try daemon.waitUntilListening()
        #expect(Hardening.waitForLog(daemon, "active session on seat0: session a (uid 4242)"), "\(daemon.log)")
        let client = try LineClient(path: daemon.socketPath)
        let before = arrivals(client, for: 4)
        let usual = largestGap(before.times, until: before.end)
        #expect(before.times.count > 10, "the demo streams")

        // logind now answers 10 s late, and the seat switches between two sessions whose users it has not said.
        try bus.send("delay 10")
        for i in 0..<20 { try bus.send("activate \(i % 2 == 0 ? "c" : "d")") }
        let during = arrivals(client, for: 6)
        let pending = try bus.send("pending")
        let stalled = largestGap([before.times.last ?? before.end] + during.times, until: during.end)
        #expect(pending != "ok 0", "logind's answers were still pending while the stream was read (\(pending))")
        #expect(stalled < usual + 2, "largest gap \(stalled) s while logind was slow, \(usual) s before")

        // Nobody counted meanwhile (the last session named, d, has no known user); once logind answers again, the
        // question that timed out is asked again and d's user counts.
        #expect(daemon.log.contains("active session on seat0: none"), "\(daemon.log)")
        try bus.send("delay 0")
        #expect(Hardening.waitForLog(daemon, "active session on seat0: session d (uid 4244)"), "\(daemon.log)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    @Test("static lists still admit whoever they name, whatever session is active")
    func staticListsBesideTheSession() throws {
        let bus = try MockSeatBus(["logind"])
        try bus.send("session s2 4242 other")
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try daemon(in: dir, config: "[access]\nread = [\"active-session\"]\nread_uids = [\(getuid())]\n", bus: bus)
        try daemon.waitUntilListening()
        let client = try LineClient(path: daemon.socketPath)
        #expect(client.messages(until: { $0.type == "hello" }).last?.type == "hello")
        try bus.send("deactivate")
        try bus.send("session s3 4243 third")
        client.send(#"{"op":"ping","id":1}"#)
        let reply = client.messages(until: { $0.type == "reply" || $0.type == "goodbye" }, timeoutSeconds: 10).last
        #expect(reply?.type == "reply", "a client the static list admits stays: \(String(describing: reply))")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    @Test("without logind on the bus, active-session admits nobody, the daemon says so once and keeps running")
    func noLogind() throws {
        let bus = try MockSeatBus(["sensors"])
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try daemon(in: dir, config: Self.sessionAccess + "read_uids = [4242]\n", bus: bus)
        // Listening is checked by connecting, which this policy refuses: wait for the log instead.
        #expect(Hardening.waitForLog(daemon, "ready"), "\(daemon.log)")
        #expect(!admitted(daemon.socketPath))
        #expect(!admitted(daemon.socketPath))
        let said = daemon.log.components(separatedBy: "nobody counts as the seat's active session").count - 1
        #expect(said == 1, "said once: \(daemon.log)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    @Test("without a system bus at all, active-session admits nobody and the daemon says so")
    func noSystemBus() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try DaemonProcess.writeConfig(Self.sessionAccess, in: dir)
        let daemon = try DaemonProcess(
            ["--socket", dir.appendingPathComponent("d.sock").path, "--config", file.path, "--replay", Paths.demo.path, "--wait-for-clients", "99"],
            directory: dir, environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(dir.path)/no-bus"])
        #expect(Hardening.waitForLog(daemon, "ready"), "\(daemon.log)")
        #expect(daemon.log.contains("\"active-session\" in [access] admits nobody"), "\(daemon.log)")
        #expect(!admitted(daemon.socketPath))
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    /// The edges the demo's swipes begin on, as a client sees them, once the screen has turned (its `device`
    /// `changed` message): `turn` runs as soon as the screen is added, while the demo's first swipe is under way,
    /// so the new rotation waits for that finger to lift and holds from the second swipe on.
    private func edgesAfterTurning(
        config: String, bus: MockSeatBus, state: Bool = false, in dir: URL,
        turn: (LineClient, DaemonProcess) throws -> Void
    ) throws -> [String] {
        let daemon = try daemon(in: dir, config: config, bus: bus, clients: 1, state: state)
        // Not waitUntilListening: its probe would count as the client the demo waits for.
        #expect(Hardening.waitForLog(daemon, "ready"), "\(daemon.log)")
        let client = try LineClient(path: daemon.socketPath)
        let added = client.messages(until: { $0.type == "device" && $0["change"] as? String == "added" }).last
        #expect(added?["rotation"] as? Int == 0, "\(String(describing: added))")
        try turn(client, daemon)
        let seen = client.messages(until: { $0.type == "device" && $0["change"] as? String == "removed" }, timeoutSeconds: 60)
        var edges: [String] = []
        var turned = false
        for m in seen {
            if m.type == "device" && m["change"] as? String == "changed" { turned = true }
            if turned && m.type == "gesture" && m["state"] as? String == "began" { edges.append(m["edge"] as? String ?? "?") }
        }
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
        return edges
    }

    /// The demo swipes from the physical left, right, top, bottom, left and right edges. Turned a quarter
    /// clockwise from the second on, each is seen on the edge that is now where it was: right is the bottom, top
    /// is the right, bottom is the left, left is the top.
    static let turnedDemoEdges = ["bottom", "right", "left", "top", "bottom"]

    @Test("set-rotation turns the next swipe: the physical left edge of a screen turned 90° is the top edge")
    func setRotation() throws {
        let bus = try MockSeatBus(["logind"])
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let edges = try edgesAfterTurning(config: "", bus: bus, state: true, in: dir) { client, _ in
            client.send(#"{"op":"set-rotation","id":1,"rotation":90}"#)
            let reply = client.messages(until: { $0.type == "reply" || $0.type == "error" }, timeoutSeconds: 10).last
            #expect(reply?.type == "reply", "\(String(describing: reply))")
            // The first swipe's finger is down: the screen turns when it lifts.
            #expect(((reply?["result"] as? [String: Any])?["pending"] as? [Int]) == [1], "\(String(describing: reply))")
        }
        #expect(edges == Self.turnedDemoEdges)
        // Persisted with the state, by the device's identity.
        let state = try String(contentsOf: dir.appendingPathComponent("state/state.json"), encoding: .utf8)
        #expect(state.contains("\"rotations\""), "\(state)")
        #expect(state.contains("EdgeSwipe Demo Touchscreen"), "\(state)")
    }

    @Test("rotation = \"auto\" follows iio-sensor-proxy: left-up makes the physical left edge the top; the proxy vanishing keeps it")
    func automaticRotation() throws {
        let bus = try MockSeatBus(["sensors"])
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = "[[devices.override]]\nmatch = \"EdgeSwipe Demo Touchscreen\"\nrotation = \"auto\"\n"
        let edges = try edgesAfterTurning(config: config, bus: bus, in: dir) { client, daemon in
            #expect(waitUntil(timeout: 10) { (try? bus.send("claimed")) != nil }, "the daemon claims the accelerometer: \(daemon.log)")
            try bus.send("orientation left-up")
            // The proxy goes away: the rotation stays, and the daemon says so.
            try bus.send("stop sensors")
            #expect(Hardening.waitForLog(daemon, "iio-sensor-proxy left the system bus"), "\(daemon.log)")
        }
        #expect(edges == Self.turnedDemoEdges)
    }

    @Test(
        "bad set-rotation requests get a clear error and the connection stays up",
        arguments: [
            (#"{"op":"set-rotation","id":1,"rotation":45}"#, "invalid-field", "must be 0, 90, 180, 270 or \"auto\""),
            (#"{"op":"set-rotation","id":1,"rotation":"sideways"}"#, "invalid-field", "got \"sideways\""),
            (#"{"op":"set-rotation","id":1}"#, "missing-field", "\"rotation\" is missing"),
            (#"{"op":"set-rotation","id":1,"rotation":90,"device":77}"#, "unknown-device", "no device has id 77"),
            (#"{"op":"set-rotation","id":1,"rotation":90,"output":"HDMI-A-9"}"#, "unknown-output", "HDMI-A-9"),
        ])
    func badRequests(_ line: String, _ code: String, _ says: String) throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try DaemonProcess.holdingDemo(in: dir)
        let client = try LineClient(path: daemon.socketPath)
        _ = client.messages(until: { $0.type == "hello" })
        client.send(line)
        let error = client.messages(until: { $0.type == "error" || $0.type == "reply" }, timeoutSeconds: 10).last
        #expect(error?.type == "error")
        #expect(error?["code"] as? String == code)
        let message = error?["message"] as? String ?? ""
        #expect(message.contains(says), "\(String(describing: error))")
        client.send(#"{"op":"ping","id":2}"#)
        #expect(client.messages(until: { $0.type == "reply" }, timeoutSeconds: 10).last?["id"] as? Int == 2, "the connection stays up")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    @Test("set-rotation from a read-only peer is forbidden, and the connection stays up")
    func readOnlyPeer() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (daemon, _) = try DaemonProcess.holdingDemo(in: dir, config: "[access]\ncontrol_uids = [4242]\n")
        let client = try LineClient(path: daemon.socketPath)
        _ = client.messages(until: { $0.type == "hello" })
        client.send(#"{"op":"set-rotation","id":1,"rotation":90}"#)
        let error = client.messages(until: { $0.type == "error" || $0.type == "reply" }, timeoutSeconds: 10).last
        #expect(error?["code"] as? String == "forbidden")
        client.send(#"{"op":"ping","id":2}"#)
        #expect(client.messages(until: { $0.type == "reply" }, timeoutSeconds: 10).last?["id"] as? Int == 2)
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    @Test("edgeswipectl rotate: a bad rotation is a usage error; an unknown device is the daemon's refusal")
    func rotateCommand() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try DaemonProcess.holdingDemo(in: dir)
        let bad = try run(Paths.edgeswipectl, ["rotate", "45", "--socket", daemon.socketPath])
        #expect(bad.status == 64, "\(bad.stderr)")
        #expect(bad.stderr.contains("0, 90, 180, 270 or auto"), "\(bad.stderr)")
        let unknown = try run(Paths.edgeswipectl, ["rotate", "90", "--device", "77", "--socket", daemon.socketPath])
        #expect(unknown.status == 1, "\(unknown.stderr)")
        #expect(unknown.stderr.contains("no device has id 77"), "\(unknown.stderr)")
        let none = try run(Paths.edgeswipectl, ["rotate", "auto", "--socket", daemon.socketPath])
        #expect(none.status == 1, "\(none.stderr)")
        #expect(none.stderr.contains("no touchscreen"), "\(none.stderr)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }

    @Test("PrepareForSleep is followed: the daemon lets go of its devices before the sleep and opens them after, and keeps serving")
    func sleepAndWake() throws {
        let bus = try MockSeatBus(["logind"])
        try bus.send("session s1 \(getuid()) me")
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try daemon(in: dir, config: Self.sessionAccess, bus: bus)
        try daemon.waitUntilListening()
        try bus.send("sleep true")
        #expect(Hardening.waitForLog(daemon, "the machine is about to sleep"), "\(daemon.log)")
        try bus.send("sleep false")
        #expect(Hardening.waitForLog(daemon, "the machine woke"), "\(daemon.log)")
        #expect(admitted(daemon.socketPath))
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0)
    }
}
