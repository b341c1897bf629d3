public import EdgeSwipeCore
import EdgeSwipeFingerScript
import EdgeSwipeEngineWire
import EdgeSwipeProtocol

/// A stream as the daemon writes it (its `hello`, then every line), from the real engine and encoder driven by
/// scripted fingers with explicit times: what drawing clients (the session's overlay, `edgeswipe.js`) are tested on.
///
/// On a 155 x 87 mm screen that drives `HEADLESS-1`, with the default configuration: a left-edge swipe to 70 % at
/// rest (previous tab: it finishes), the same again with nowhere to go (blocked: the rubber band springs back), a
/// top-edge swipe (present the notifications: a custom presentation with its dimming), a bottom-edge swipe (dismiss
/// them: the sheet goes from where it rests, with the dimming), a right-edge swipe let go at
/// 40 % at rest (it cancels) and caught 60 ms into its run-out by a new finger that carries it on to the end (a
/// re-grab), a quick right-edge flick (it finishes), and three fingers moving right (the previous tab, through the
/// multi-finger path).
public enum StreamScenario {
    public static let screen = TouchDevice(
        id: DeviceID(3), name: "Overlay Test Screen", kind: .touchscreen,
        x: AxisRange(minimum: 0, maximum: 15499, resolution: 100), y: AxisRange(minimum: 0, maximum: 8699, resolution: 100),
        path: "/dev/input/event3", output: "HEADLESS-1")

    /// The lines, `hello` first, each without its newline.
    public static func lines() -> [[UInt8]] {
        let configuration = EngineConfiguration.default
        var engine = Engine(configuration: configuration)
        var events: [EngineEvent] = []
        var t: UInt64 = 2_000_000
        engine.addDevice(screen, at: at(t), into: &events)
        let snapshot = ServerSnapshot(
            serverVersion: "edgeswiped test", devices: engine.knownDevices,
            config: ConfigSummary(configuration: configuration, source: "built-in"), state: engine.snapshot)

        func play(_ script: FingerScript) {
            for frame in script.frames(on: screen, origin: at(t)) {
                while let deadline = engine.nextDeadline, deadline < frame.time { engine.tick(at: deadline, into: &events) }
                engine.handle(frame, into: &events)
            }
            while let deadline = engine.nextDeadline { engine.tick(at: deadline, into: &events) }
            t = engine.now.microseconds + 300_000
        }
        func swipe(_ edge: Edge, travel: Double, ms: Int64, release: EdgeSwipe.Release, along: Double, id: Int32, start: Int64 = 0) -> FingerScript {
            FingerScript.edgeSwipe(
                EdgeSwipe(edge: edge, travel: travel, duration: .milliseconds(ms), release: release, along: along, landing: .millimeters(1.5)),
                on: screen, trackingID: id, start: .milliseconds(start))
        }
        play(swipe(.left, travel: 0.7, ms: 400, release: .atRest(hold: .milliseconds(200)), along: 0.45, id: 1))
        play(swipe(.left, travel: 0.5, ms: 300, release: .atRest(hold: .milliseconds(200)), along: 0.6, id: 2))
        play(swipe(.top, travel: 0.7, ms: 350, release: .atRest(hold: .milliseconds(200)), along: 0.5, id: 3))
        play(swipe(.bottom, travel: 0.7, ms: 350, release: .atRest(hold: .milliseconds(200)), along: 0.5, id: 7))
        // Let go at rest at 40 % (the run-out back takes 140 ms), caught 60 ms into it by a second finger.
        let first = swipe(.right, travel: 0.4, ms: 300, release: .atRest(hold: .milliseconds(200)), along: 0.3, id: 4)
        let catchAt = Int64(first.end.value / 1000) + 60
        play(first + swipe(.right, travel: 0.6, ms: 300, release: .atRest(hold: .milliseconds(200)), along: 0.7, id: 5, start: catchAt))
        play(swipe(.right, travel: 0.3, ms: 110, release: .whileMoving, along: 0.5, id: 6))
        play(FingerScript.multiFingerSwipe(MultiFingerSwipe(fingers: 3, direction: .right, travelMM: 90, center: (0.4, 0.55)), on: screen))

        var encoder = ProtocolLineEncoder()
        var bytes: [UInt8] = []
        encoder.encodeHello(snapshot, time: at(2_000_000), into: &bytes)
        encoder.encode(events, into: &bytes)
        return bytes.split(separator: UInt8(ascii: "\n")).map(Array.init)
    }

    static func at(_ us: UInt64) -> MonotonicInstant { MonotonicInstant(microseconds: us) }
}
