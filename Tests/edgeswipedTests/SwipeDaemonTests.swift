import EdgeSwipeCore
import EdgeSwipeFingerScript
import EdgeSwipeInput
import EdgeSwipeRecordings
import Foundation
import Testing

/// Multi-finger swipes through the daemon as users run it: a real subprocess replaying a recording, read by a
/// client over the real socket.
@Suite("Multi-finger swipes through the daemon")
struct SwipeDaemonTests {
    /// Three fingers swiping left then right on the demo touchscreen, with the built-in configuration's
    /// 3-finger bindings: the next tab, then back. The fingers land 30 ms apart and lift 20 ms apart.
    static func threeFingerRecording(in dir: URL) throws -> URL {
        let description = DemoRecording.device
        let device = try description.touchDevice(id: DeviceID(1), path: "demo")
        let left = FingerScript.multiFingerSwipe(
            MultiFingerSwipe(fingers: 3, direction: .left, travelMM: 100, duration: .milliseconds(350), center: (0.7, 0.5),
                             landingStagger: .milliseconds(30), liftStagger: .milliseconds(20)),
            on: device, start: .milliseconds(500))
        let right = FingerScript.multiFingerSwipe(
            MultiFingerSwipe(fingers: 3, direction: .right, travelMM: 100, duration: .milliseconds(350), center: (0.3, 0.5),
                             landingStagger: .milliseconds(30), liftStagger: .milliseconds(20)),
            on: device, firstFinger: 3, start: left.end + .milliseconds(1000))
        let url = dir.appendingPathComponent("three-fingers.evemu")
        try Evemu.write(description, events: EvdevScriptRenderer.events(left + right, on: description))
            .write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    static func isGoodbye(_ m: [String: Any]) -> Bool { m.type == "goodbye" }

    @Test("a client on the socket sees the swipes: gesture kind and direction, transitions with the swipe's direction and fingers")
    func swipesOnTheSocket() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try DaemonProcess.replaying(try Self.threeFingerRecording(in: dir), in: dir)
        let client = try LineClient(path: daemon.socketPath)
        let messages = client.messages(until: Self.isGoodbye, timeoutSeconds: 60)
        #expect(daemon.waitForExit() == 0, "\(daemon.log)")
        let hello = try #require(messages.first)
        let bindings = ((hello["config"] as? [String: Any])?["bindings"] as? [[String: Any]]) ?? []
        #expect(bindings.filter { $0["gesture"] as? String == "swipe" }.compactMap { $0["direction"] as? String } == ["left", "right"])
        let gestures = messages.filter { $0.type == "gesture" }
        #expect(!gestures.isEmpty && gestures.allSatisfy { $0["kind"] as? String == "swipe" && $0["edge"] == nil && $0["fingers"] as? Int == 3 })
        #expect(gestures.filter { $0["state"] as? String == "began" }.compactMap { $0["direction"] as? String } == ["left", "right"])
        let began = messages.filter { $0.type == "transition" && $0["phase"] as? String == "began" }
        #expect(began.compactMap { $0["swipe_direction"] as? String } == ["left", "right"])
        #expect(began.compactMap { $0["swipe_fingers"] as? Int } == [3, 3])
        #expect(began.compactMap { $0["to"] as? String } == ["settings", "home"])
        let terminal = messages.filter { $0.type == "transition" && ["completed", "cancelled"].contains($0["phase"] as? String ?? "") }
        #expect(terminal.compactMap { $0["phase"] as? String } == ["completed", "completed"])
        // The centroid's travel reaches the clients in mm.
        let ended = gestures.filter { $0["state"] as? String == "ended" }
        let travel = ended.compactMap { (($0["translation_mm"] as? [String: Any])?["x"] as? Double) }
        #expect(travel.count == 2 && abs(travel[0] + 100) < 2 && abs(travel[1] - 100) < 2, "\(travel)")
    }

    @Test("edgeswipectl monitor names the swipes and the transitions they drive")
    func monitorShowsSwipes() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try DaemonProcess.replaying(try Self.threeFingerRecording(in: dir), in: dir)
        // The monitor is the client the replay waits for; it stops after the first swipe's messages.
        let monitor = try run(Paths.edgeswipectl, ["monitor", "--socket", daemon.socketPath, "--count", "60"])
        #expect(monitor.status == 0, "\(monitor.stderr)")
        #expect(monitor.stdout.contains("gesture swipe left began (3 fingers, device 1)"), "\(monitor.stdout)")
        #expect(monitor.stdout.contains("began 1 select-tab shell: home -> settings, 3-finger swipe left"), "\(monitor.stdout)")
        daemon.signal(SIGTERM)
        #expect(daemon.waitForExit() == 0, "\(daemon.log)")
    }

    @Test(
        "PaperWM's real touchpad recording through the daemon: two transitions, right then left",
        .enabled(if: Paths.haveShared, "../shared/recordings is absent (a user's clone): nothing to replay"))
    func paperWM() throws {
        let dir = try Paths.tempDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let daemon = try DaemonProcess.replaying(
            Paths.sharedRecordings.appendingPathComponent("libinput-record/paperwm-three-finger-swipe.yaml"), in: dir)
        let client = try LineClient(path: daemon.socketPath)
        let messages = client.messages(until: Self.isGoodbye, timeoutSeconds: 60)
        #expect(daemon.waitForExit() == 0, "\(daemon.log)")
        let began = messages.filter { $0.type == "transition" && $0["phase"] as? String == "began" }
        #expect(began.compactMap { $0["swipe_direction"] as? String } == ["right", "left"])
        #expect(messages.filter { $0.type == "transition" && $0["phase"] as? String == "completed" }.count == 2)
    }
}
