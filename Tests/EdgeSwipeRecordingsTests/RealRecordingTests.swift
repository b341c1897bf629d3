import EdgeSwipeCore
import EdgeSwipeInput
import EdgeSwipeRecordings
import EdgeSwipeTestSupport
import Testing

/// Every real recording in `../shared/recordings` (described in its INDEX.md) through the whole pipeline. The
/// folder is not part of the package; without it these tests are skipped.
@Suite(.enabled(if: Fixtures.recordingsAvailable, "the shared recordings (../shared/recordings) are not present"))
struct RealRecordingTests {
    @Test(arguments: Fixtures.allRecordings)
    func replaysToAValidStream(_ file: String) throws {
        let recording = try Recording.load(path: Fixtures.recording(file))
        #expect(!recording.devices.isEmpty)
        let (events, player, engine) = replay([recording])
        let check = StreamCheck(events)
        #expect(check.problems == [], "\(file)")
        #expect(engine.nextDeadline == nil, "\(file): still animating after the replay")
        #expect(engine.isIdle, "\(file): not idle after the replay")
        #expect(player.devices.count + player.skipped.count == recording.devices.count)
        for played in player.devices {
            let stats = try #require(player.statistics(for: played.device.id))
            #expect(stats.frames > 0, "\(file): \(played.device.name) decoded no touch")
        }
        // The same file gives the same events.
        #expect(replay([recording]).events == events, "\(file): not deterministic")
    }

    @Test func theSemiMultitouchCypressIsSkippedWithItsReason() throws {
        let recording = try Recording.load(path: Fixtures.recording("evemu-devices/CyPS2 Cypress Trackpad.three_finger_press.events"))
        let (events, player, _) = replay([recording])
        #expect(player.devices.isEmpty)
        #expect(player.skipped.map(\.reason) == [.semiMultitouch(name: "CyPS/2 Cypress Trackpad")])
        #expect(player.skipped.first?.description.hasSuffix(
            "\"CyPS/2 Cypress Trackpad\": rejected: semi-multitouch (INPUT_PROP_SEMI_MT) reports a bounding box of the fingers, not their positions") == true)
        #expect(events.isEmpty)
    }

    /// Devices as INDEX.md describes them: kinds (old files without INPUT_PROP flags included), protocols,
    /// ranges and the number of touches.
    @Test(arguments: [
        ("evemu-devices/N-Trig MultiTouch.1-finger-drag-NW-SE.events", DeviceKind.touchscreen, TouchProtocol.multitouchA, 1),
        ("evemu-devices/SynPS2 Synaptics TouchPad.hp8470p.edge-scroll-vertical.events", .touchpad, .multitouchB(slots: 2), 1),
        ("evemu-devices/bcm5974.three-finger-click.events", .touchpad, .multitouchA, 8),
        ("evemu-devices/Wacom DTH2242 Finger.events", .touchscreen, .multitouchB(slots: 10), 66),
        ("evemu-devices/dell_canvas_touch.evemu", .touchscreen, .multitouchB(slots: 5), 12),
        ("xorg-integration-tests/n4.events", .touchscreen, .multitouchB(slots: 10), 12),
        ("libinput-record/paperwm-three-finger-swipe.yaml", .touchpad, .multitouchB(slots: 5), 6),
        ("evemu-devices/Wacom Intuos5 touch M Finger double-top-swipe.events", .touchpad, .multitouchB(slots: 16), 2),
    ])
    func devicesAreReadAsIndexDescribes(_ file: String, kind: DeviceKind, touchProtocol: TouchProtocol, touches: Int) throws {
        let recording = try Recording.load(path: Fixtures.recording(file))
        var player = RecordingPlayer(recordings: [recording])
        var downs = 0
        while let step = player.next() {
            if case .frame(let frame) = step.input { downs += frame.touches.filter { $0.phase == .down }.count }
        }
        #expect(player.devices.map(\.device.kind) == [kind])
        #expect(player.devices.map(\.touchProtocol) == [touchProtocol])
        #expect(downs == touches)
    }

    /// INDEX.md: "1 finger lands at x=120 (4.3% of width from the left) near the top and moves right". The default
    /// touchscreen zone on a screen without a size is 3 % of the axis, so it is not an edge swipe; a user who sets
    /// a 6 % zone gets a left-edge swipe.
    @Test func wacomE6SingleSwipeBeginsOnTheLeftOnlyWithAWiderZone() throws {
        let recording = try Recording.load(path: Fixtures.recording("evemu-devices/Wacom ISDv4 E6 Finger.single-top-swipe.events"))
        #expect(recording.devices.first?.description.name == "Wacom ISDv4 E6 Finger")

        let byDefault = StreamCheck(replay([recording]).events)
        #expect(byDefault.beganGestures.isEmpty)
        #expect(byDefault.began.isEmpty)

        var wide = EngineConfiguration.default
        wide.touchscreen.recognizer.zoneFraction = 0.06
        let widened = StreamCheck(replay([recording], configuration: wide).events)
        #expect(widened.problems == [])
        #expect(widened.beganGestures.map(\.edge) == [.left])
        #expect(widened.outcomes == [StreamCheck.Outcome(edge: .left, phase: .completed)])
    }

    /// INDEX.md: "1 finger lands at the top-right corner and slides down the right edge (along it, not inward)".
    @Test func hp8470pSlideAlongTheRightEdgeDoesNotBegin() throws {
        let recording = try Recording.load(
            path: Fixtures.recording("evemu-devices/SynPS2 Synaptics TouchPad.hp8470p.edge-scroll-vertical.events"))
        let check = StreamCheck(replay([recording]).events)
        #expect(check.problems == [])
        #expect(!check.beganGestures.contains { $0.edge == .right }, "a slide along the right edge is not a right-edge swipe")
        // It lands in the top-right corner (2.1 % from the top, 1.9 % from the right, inside both 5 % zones of a pad
        // that reports no size) and slides down. That motion is inward for the top edge, which alone would begin a
        // top-edge swipe; it fails because it runs along the right edge, where touchpads scroll.
        #expect(check.beganGestures.isEmpty)
        #expect(check.gestures.map(\.state) == [.failed])
        #expect(check.gestures.first?.failure == .edgeScroll)
        #expect(check.gestures.first?.edge == .right)
    }

    /// The hp8470p recordings report positions past their minimum and maximum (the edge scroll runs off the top,
    /// the two-finger scroll off the left and the bottom), the bcm5974's axes have negative minimums: every
    /// touch decodes onto the surface, and the stream's numbers stay finite (StreamCheck checks every recording).
    @Test(arguments: [
        "evemu-devices/SynPS2 Synaptics TouchPad.hp8470p.edge-scroll-vertical.events",
        "evemu-devices/SynPS2 Synaptics TouchPad.hp8470p.two-finger-scroll-horizontal.events",
        "evemu-devices/bcm5974.three-finger-click.events",
    ])
    func outOfRangeAndNegativeMinimums(_ file: String) throws {
        let recording = try Recording.load(path: Fixtures.recording(file))
        let device = try #require(recording.devices.first)
        let axes = [EvdevAbs.x, EvdevAbs.y, EvdevAbs.mtPositionX, EvdevAbs.mtPositionY]
        let outside = device.events.filter { e in
            guard e.type == EvdevType.abs, axes.contains(e.code), let a = device.description.absInfo[e.code] else { return false }
            return e.value < a.minimum || e.value > a.maximum
        }
        let negative = device.description.absInfo.values.contains { $0.minimum < 0 }
        #expect(!outside.isEmpty || negative, "\(file) has neither out-of-range values nor negative minimums")
        var player = RecordingPlayer(recordings: [recording])
        while let step = player.next() {
            guard case .frame(let frame) = step.input else { continue }
            #expect(frame.touches.allSatisfy { (0...1).contains($0.position.x) && (0...1).contains($0.position.y) })
        }
        let check = StreamCheck(replay([recording]).events)
        #expect(check.problems == [])
    }

    /// INDEX.md: "2 fingers land at the left edge (x 1-1.5%) and sweep right across 98% of the width".
    @Test func intuos5TwoFingerSwipeFromTheLeftEdgeCompletes() throws {
        let recording = try Recording.load(
            path: Fixtures.recording("evemu-devices/Wacom Intuos5 touch M Finger double-top-swipe.events"))
        let check = StreamCheck(replay([recording]).events)
        #expect(check.problems == [])
        let began = check.beganGestures
        #expect(began.map(\.edge) == [.left])
        #expect(began.allSatisfy { $0.fingers >= 2 && $0.deviceKind == .touchpad })
        #expect(check.outcomes == [StreamCheck.Outcome(edge: .left, phase: .completed)])
    }

    /// The device descriptions without events (`devices/evemu-devices/*.desc`, and the `.desc` files beside the
    /// events-only recordings) all parse and describe touch devices.
    @Test func everyDescriptionParsesAsATouchDevice() throws {
        #expect(Fixtures.allDescriptions.count >= 10)
        for file in Fixtures.allDescriptions {
            let text = try String(contentsOfFile: Fixtures.recording(file), encoding: .utf8)
            let description = try Evemu.parseDescription(text, file: file)
            guard case .touch = description.classification else {
                Issue.record("\(file): \(description.classification)")
                continue
            }
        }
    }

    /// Several recordings play at once, each aligned to the same start, with ids in order.
    @Test func twoRecordingsPlayConcurrently() throws {
        let a = try Recording.load(path: Fixtures.recording("xorg-integration-tests/n4.events"))
        let b = try Recording.load(path: Fixtures.recording("libinput-record/paperwm-three-finger-swipe.yaml"))
        var player = RecordingPlayer(recordings: [a, b], options: RecordingPlayer.Options(start: MonotonicInstant(microseconds: 1_000_000)))
        #expect(player.devices.map(\.device.id) == [DeviceID(1), DeviceID(2)])
        var previous = MonotonicInstant.zero
        var firstFrame: [DeviceID: MonotonicInstant] = [:]
        while let step = player.next() {
            #expect(step.time >= previous)
            previous = step.time
            if case .frame(let f) = step.input, firstFrame[f.device] == nil { firstFrame[f.device] = f.time }
        }
        // n4 starts with a touch at 92 us after its first event; the YAML with one at 0.
        #expect(firstFrame[DeviceID(1)] == MonotonicInstant(microseconds: 1_000_092))
        #expect(firstFrame[DeviceID(2)] == MonotonicInstant(microseconds: 1_000_000))
        let check = StreamCheck(replay([a, b]).events)
        #expect(check.problems == [])
    }
}
