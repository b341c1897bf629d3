import EdgeSwipeCore
import EdgeSwipeTestSupport
import Testing
@testable import EdgeSwipeInput
@testable import EdgeSwipeLiveInput
@testable import EdgeSwipeRecordings

/// Multi-finger swipes in real recordings, replayed offline: the detector emulates libinput's swipes from the
/// recorded frames (`docs/ARCHITECTURE.md`, "The multi-finger detector").
@Suite("Multi-finger swipes in real recordings")
struct SwipeRecordingTests {
    /// The default scene graph and edges with a swipe binding for `fingers` fingers in every direction.
    static func everyDirection(fingers: ClosedRange<Int>) -> EngineConfiguration {
        var c = EngineConfiguration.default
        c.bindings = c.bindings.filter { $0.direction == nil } + [
            Binding(swipe: .left, fingers: fingers, container: "shell", operation: .nextTab),
            Binding(swipe: .right, fingers: fingers, container: "shell", operation: .previousTab),
            Binding(swipe: .up, fingers: fingers, container: "overlay", operation: .present(scene: "overview", style: .fullScreen, frame: nil)),
            Binding(swipe: .down, fingers: fingers, container: "overlay", operation: .dismiss),
        ]
        return c
    }

    @Test(
        "PaperWM's two 3-finger swipes, right then left, give one transition each, in that order",
        .enabled(if: Fixtures.recordingsAvailable, "the shared recordings (../shared/recordings) are not present"))
    func paperWM() throws {
        let recording = try Recording.load(path: Fixtures.recording("libinput-record/paperwm-three-finger-swipe.yaml"))
        for configuration in [EngineConfiguration.default, Self.everyDirection(fingers: 3...3)] {
            let (events, _, engine) = replay([recording], configuration: configuration)
            #expect(StreamCheck(events).problems == [])
            let began = events.transitions.filter { $0.phase == .began }
            #expect(began.map(\.swipe) == [.right, .left])
            #expect(began.map(\.swipeFingers) == [3, 3])
            #expect(began.map(\.to) == ["launcher", "home"], "the previous tab, then back to the next")
            #expect(events.terminalPhases == [.completed, .completed])
            let gestures = events.gestures
            #expect(gestures.allSatisfy { $0.kind == .swipe && $0.fingers == 3 && $0.deviceKind == .touchpad })
            #expect(gestures.filter { $0.state == .began }.map(\.trigger) == [.swipe(.right), .swipe(.left)])
            // The centroid's travel, in mm: 240 and 215 units of a 13 units/mm pad, less what moved before the
            // third finger landed.
            let ended = gestures.filter { $0.state == .ended }.map(\.translation.x)
            #expect(ended.count == 2 && ended[0] > 17 && ended[0] < 20 && ended[1] < -15 && ended[1] > -18, "\(ended)")
            #expect(engine.isIdle)
        }
    }

    @Test(
        "two-finger scrolls on touchpads are never swipes, whatever the bindings",
        .enabled(if: Fixtures.recordingsAvailable, "the shared recordings (../shared/recordings) are not present"),
        arguments: Fixtures.allRecordings.filter { $0.contains("two-finger-scroll") })
    func twoFingerScrolls(_ file: String) throws {
        let recording = try Recording.load(path: Fixtures.recording(file))
        for fingers in [2...5, 3...3] {
            let (events, _, _) = replay([recording], configuration: Self.everyDirection(fingers: fingers))
            #expect(!events.gestures.contains { $0.kind == .swipe }, "\(file)")
            #expect(!events.transitions.contains { $0.swipe != nil }, "\(file)")
        }
    }

    /// What each shared recording gives with the built-in configuration (3-finger left and right) and with a
    /// binding for 2 to 5 fingers in every direction: the swipes that began, as `fingers direction`.
    static let expected: [String: (builtIn: [String], everyDirection: [String])] = [
        "libinput-record/paperwm-three-finger-swipe.yaml": (["3 right", "3 left"], ["3 right", "3 left"]),
        // Four fingers dragged down mid-screen: a swipe down (nothing to dismiss: blocked).
        "evemu-devices/Atmel maXTouch Touchscreen.4-finger-drag-down.events": ([], ["4 down"]),
        // The panel is mounted upside down: the fingers move toward y = 0, up as the device reports it.
        "evemu-devices/EP0430M09.4-finger-drag-down.events": ([], ["4 up"]),
        "evemu-devices/EP0430M09.2-finger-scroll-down.events": ([], ["2 up"]),
        // Two fingers from the left edge across the screen: a 2-finger swipe where one is bound, an edge
        // swipe (with 2 fingers) otherwise.
        "evemu-devices/Wacom ISDv4 E6 Finger.double-top-swipe.events": ([], ["2 right"]),
        // A 2-finger drag down among the Nexus 4's pinches.
        "xorg-integration-tests/n4.events": ([], ["2 down"]),
        // Among 66 touches, two fingers resting and sliding together once.
        "evemu-devices/Wacom DTH2242 Finger.events": ([], ["2 down"]),
        // Two fingers of a 4-finger scroll landing first.
        "evemu-devices/dell_canvas_touch.evemu": ([], ["2 up"]),
    ]

    @Test(
        "every shared recording gives the swipes its motion describes, and no others",
        .enabled(if: Fixtures.recordingsAvailable, "the shared recordings (../shared/recordings) are not present"),
        arguments: Fixtures.allRecordings)
    func everyRecording(_ file: String) throws {
        let recording = try Recording.load(path: Fixtures.recording(file))
        let want = Self.expected[file] ?? ([], [])
        for (configuration, expected) in [(EngineConfiguration.default, want.builtIn), (Self.everyDirection(fingers: 2...5), want.everyDirection)] {
            let (events, _, engine) = replay([recording], configuration: configuration)
            let swipes = events.gestures.filter { $0.kind == .swipe && $0.state == .began }
                .map { "\($0.fingers) \($0.trigger.direction?.rawValue ?? "?")" }
            #expect(swipes == expected, "\(file)")
            #expect(StreamCheck(events).problems == [], "\(file)")
            #expect(engine.isIdle, "\(file)")
        }
    }

    @Test("libinput's unaccelerated deltas: 10.52 units per mm, turned with the pad", arguments: [
        (Rotation.degrees0, MillimeterVector(x: 2, y: -1)),
        (.degrees90, MillimeterVector(x: 1, y: 2)),
        (.degrees180, MillimeterVector(x: -2, y: 1)),
        (.degrees270, MillimeterVector(x: -1, y: -2)),
    ])
    func libinputDeltas(_ rotation: Rotation, _ expected: MillimeterVector) {
        let k = 1000 / 25.4 * 0.9 * 0.2968
        let mm = LiveTouchInput.swipeDelta(dx: 2 * k, dy: -k, rotation: rotation)
        #expect(abs(mm.x - expected.x) < 1e-12 && abs(mm.y - expected.y) < 1e-12)
        // A point moved by the delta, rotated, lands where the rotated delta says.
        let p = NormalizedPoint(x: 0.5, y: 0.5), q = NormalizedPoint(x: 0.52, y: 0.49)
        let rp = rotation.apply(p), rq = rotation.apply(q)
        let turned = LiveTouchInput.swipeDelta(dx: (q.x - p.x) * k, dy: (q.y - p.y) * k, rotation: rotation)
        #expect(abs(turned.x - (rq.x - rp.x)) < 1e-12 && abs(turned.y - (rq.y - rp.y)) < 1e-12)
        #expect(LiveTouchInput.swipeDelta(dx: .nan, dy: .infinity, rotation: rotation) == .zero)
    }
}

extension [EngineEvent] {
    fileprivate var transitions: [TransitionEvent] { compactMap { if case .transition(let t) = $0 { t } else { nil } } }
    fileprivate var gestures: [GestureEvent] { compactMap { if case .gesture(let g) = $0 { g } else { nil } } }
    fileprivate var terminalPhases: [PercentDrivenInteractiveTransition.Phase] { transitions.map(\.phase).filter(\.isTerminal) }
}
